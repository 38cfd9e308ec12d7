/*
 * conns.c: deadlines and limits on connections whose request has not arrived whole
 * ("half-received"). Every open connection is tracked from the moment libmicrohttpd
 * accepts it, with its client address.
 *
 * Deadlines: a request's head (request line and headers) must arrive within
 * --head-deadline seconds of its start (the connection's opening, or the previous
 * answer on it), and its body within --body-deadline seconds of the head, however
 * steadily the client trickles. libmicrohttpd's --timeout only bounds silence (each
 * byte restarts it), and while the headers arrive it calls none of our code, so a
 * thread here looks at the clock a few times a second and shuts down the socket of
 * each connection past its deadline; libmicrohttpd then sees the end of the stream
 * on its own thread and closes the connection the usual way (the access log says
 * why).
 *
 * Limits: one client address may hold --max-client-receiving half-received
 * connections, and all together --max-receiving. A connection that opens past
 * either limit sheds the slowest half-received connection: under the address's
 * limit the one of that address that has been receiving its request longest; under
 * the total, the one receiving longest of the address that holds the most. A client
 * that sends its request promptly is half-received for a moment only, so it is the
 * newest in any such comparison and is never the one shed, even from the address of
 * a trickling client; and trickling from many connections of a few addresses only
 * sheds those addresses' connections.
 *
 * Threads: MHD's I/O threads add, update and remove connections; the deadline
 * thread reads them. All under conns.mu. A connection is removed (notify "closed")
 * before libmicrohttpd closes its socket, so nobody shuts down a socket number that
 * was closed and reused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "srv_int.h"

/* How often the deadline thread looks at the connections. The deadlines are whole
 * seconds, so a tenth of a second late is within their precision; a scan of the
 * connections (at most SRV_MAX_CONNECTIONS) costs microseconds. */
#define SRV_DEADLINE_TICK_MS 100

static double seconds_since(const struct timespec *t0, const struct timespec *now)
{
    return (double)(now->tv_sec - t0->tv_sec) + (double)(now->tv_nsec - t0->tv_nsec) / 1e9;
}

static int earlier(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static int is_receiving(const srv_conn *c)
{
    return !c->cut && c->phase != SRV_CONN_ANSWERING;
}

/* Counts c in or out of the half-received connections (of its address and in all)
 * as it enters or leaves them. Called with mu held. */
static void count_receiving(srv_conns *cs, srv_conn *c, int was_receiving)
{
    int now = is_receiving(c);
    if (now == was_receiving)
        return;
    if (now) {
        cs->receiving++;
        c->peer->receiving++;
    } else {
        cs->receiving--;
        c->peer->receiving--;
    }
}

/* Shuts c's socket down for reason. Not close(): the socket stays libmicrohttpd's,
 * which closes it when it reads the end of the stream. Called with mu held. */
static void cut(srv_conns *cs, srv_conn *c, srv_cut_reason reason)
{
    int was = is_receiving(c);
    shutdown(c->fd, SHUT_RDWR);
    c->cut = reason;
    count_receiving(cs, c, was);
    atomic_fetch_add(&cs->cuts[reason], 1);
}

/* Shuts down every half-received connection past its deadline. Called with mu held. */
static void cut_late(srv_server *s, const struct timespec *now)
{
    srv_conns *cs = &s->conns;
    double head = (double)s->cfg->head_deadline_s, body = (double)s->cfg->body_deadline_s;
    for (srv_conn *c = cs->head; c; c = c->next) {
        if (!is_receiving(c))
            continue;
        if (c->phase == SRV_CONN_HEAD && seconds_since(&c->since, now) >= head)
            cut(cs, c, SRV_CUT_HEAD_DEADLINE);
        else if (c->phase == SRV_CONN_BODY && seconds_since(&c->since, now) >= body)
            cut(cs, c, SRV_CUT_BODY_DEADLINE);
    }
}

static void *deadline_main(void *arg)
{
    srv_server *s = arg;
    srv_conns *cs = &s->conns;
    pthread_mutex_lock(&cs->mu);
    while (!cs->stopping) {
        struct timespec now, until;
        clock_gettime(CLOCK_MONOTONIC, &now);
        cut_late(s, &now);
        until = now;
        until.tv_nsec += SRV_DEADLINE_TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!cs->stopping && pthread_cond_timedwait(&cs->wake, &cs->mu, &until) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&cs->mu);
    return NULL;
}

int srv_conns_start(srv_server *s, lr_error *err)
{
    srv_conns *cs = &s->conns;
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "cannot create the deadline thread");
    /* The waits are measured on the monotonic clock, like the deadlines. */
    int bad = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
              pthread_mutex_init(&cs->mu, NULL) != 0;
    if (!bad && pthread_cond_init(&cs->wake, &attr) != 0) {
        pthread_mutex_destroy(&cs->mu);
        bad = 1;
    }
    pthread_condattr_destroy(&attr);
    if (bad)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "cannot create the deadline thread");
    cs->initialized = 1;
    if (pthread_create(&cs->thread, NULL, deadline_main, s) != 0) {
        srv_conns_fini(s);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "cannot start the deadline thread");
    }
    cs->started = 1;
    return 0;
}

void srv_conns_stop(srv_server *s)
{
    srv_conns *cs = &s->conns;
    if (!cs->started)
        return;
    pthread_mutex_lock(&cs->mu);
    cs->stopping = 1;
    pthread_cond_signal(&cs->wake);
    pthread_mutex_unlock(&cs->mu);
    pthread_join(cs->thread, NULL);
    cs->started = 0;
}

void srv_conns_fini(srv_server *s)
{
    srv_conns *cs = &s->conns;
    if (!cs->initialized)
        return;
    /* MHD reported every connection closed when it stopped; free any it did not. */
    while (cs->head) {
        srv_conn *c = cs->head;
        cs->head = c->next;
        free(c);
    }
    while (cs->peers) {
        srv_peer *p = cs->peers;
        cs->peers = p->next;
        free(p);
    }
    pthread_cond_destroy(&cs->wake);
    pthread_mutex_destroy(&cs->mu);
    cs->initialized = 0;
}

/* ---- client addresses ------------------------------------------------------------ */

/* a's address without its port (an unknown family keeps only the family: all such
 * clients count as one). */
static void address_only(const struct sockaddr *a, struct sockaddr_storage *out)
{
    memset(out, 0, sizeof *out);
    if (!a)
        return;
    out->ss_family = a->sa_family;
    if (a->sa_family == AF_INET)
        ((struct sockaddr_in *)out)->sin_addr = ((const struct sockaddr_in *)a)->sin_addr;
    else if (a->sa_family == AF_INET6)
        ((struct sockaddr_in6 *)out)->sin6_addr = ((const struct sockaddr_in6 *)a)->sin6_addr;
}

/* The peer of address a, added when it has no connection yet; NULL when out of
 * memory. Called with mu held. The list holds one entry per client address with an
 * open connection, so a few usually, at most SRV_MAX_CONNECTIONS. */
static srv_peer *peer_get(srv_conns *cs, const struct sockaddr *a)
{
    struct sockaddr_storage key;
    address_only(a, &key);
    for (srv_peer *p = cs->peers; p; p = p->next)
        if (memcmp(&p->addr, &key, sizeof key) == 0)
            return p;
    srv_peer *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->addr = key;
    p->next = cs->peers;
    cs->peers = p;
    return p;
}

static void peer_put(srv_conns *cs, srv_peer *peer)
{
    if (--peer->conns > 0)
        return;
    for (srv_peer **p = &cs->peers; *p; p = &(*p)->next)
        if (*p == peer) {
            *p = peer->next;
            free(peer);
            return;
        }
}

/* ---- shedding ---------------------------------------------------------------------- */

/* The half-received connection of peer (any peer when NULL) that began its request
 * first, or NULL. Called with mu held. */
static srv_conn *longest_receiving(srv_conns *cs, const srv_peer *peer)
{
    srv_conn *oldest = NULL;
    for (srv_conn *c = cs->head; c; c = c->next)
        if (is_receiving(c) && (!peer || c->peer == peer) &&
            (!oldest || earlier(&c->begun, &oldest->begun)))
            oldest = c;
    return oldest;
}

/* The address with the most half-received connections. Called with mu held. */
static srv_peer *busiest_peer(srv_conns *cs)
{
    srv_peer *busiest = NULL;
    for (srv_peer *p = cs->peers; p; p = p->next)
        if (!busiest || p->receiving > busiest->receiving)
            busiest = p;
    return busiest;
}

/* Sheds half-received connections until peer's and the total are within their
 * limits (the file's header says which go first). Called with mu held. */
static void shed(srv_server *s, srv_peer *peer)
{
    srv_conns *cs = &s->conns;
    for (;;) {
        srv_conn *victim = NULL;
        if (peer->receiving > s->cfg->max_client_receiving)
            victim = longest_receiving(cs, peer);
        else if (cs->receiving > s->cfg->max_receiving)
            victim = longest_receiving(cs, busiest_peer(cs));
        if (!victim)
            return;
        cut(cs, victim, SRV_CUT_SHED);
    }
}

/* ---- MHD's notifications and the request's progress -------------------------------- */

static void conn_opened(srv_server *s, struct MHD_Connection *c, void **socket_context)
{
    const union MHD_ConnectionInfo *fd =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *addr =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    srv_conn *conn = fd ? calloc(1, sizeof *conn) : NULL;
    srv_conns *cs = &s->conns;
    pthread_mutex_lock(&cs->mu);
    srv_peer *peer = conn ? peer_get(cs, addr ? addr->client_addr : NULL) : NULL;
    if (!peer) {
        pthread_mutex_unlock(&cs->mu);
        free(conn);
        /* A connection we cannot bound is not served: MHD closes it at once. */
        if (fd)
            shutdown(fd->connect_fd, SHUT_RDWR);
        return;
    }
    conn->fd = fd->connect_fd;
    conn->phase = SRV_CONN_HEAD;
    clock_gettime(CLOCK_MONOTONIC, &conn->begun);
    conn->since = conn->begun;
    conn->peer = peer;
    peer->conns++;
    count_receiving(cs, conn, 0);
    conn->next = cs->head;
    if (conn->next)
        conn->next->prev = conn;
    cs->head = conn;
    shed(s, peer);
    pthread_mutex_unlock(&cs->mu);
    *socket_context = conn;
}

static void conn_closed(srv_server *s, void **socket_context)
{
    srv_conn *conn = *socket_context;
    if (!conn)
        return;
    srv_conns *cs = &s->conns;
    pthread_mutex_lock(&cs->mu);
    if (is_receiving(conn)) {
        cs->receiving--;
        conn->peer->receiving--;
    }
    if (conn->prev)
        conn->prev->next = conn->next;
    else
        cs->head = conn->next;
    if (conn->next)
        conn->next->prev = conn->prev;
    peer_put(cs, conn->peer);
    pthread_mutex_unlock(&cs->mu);
    free(conn);
    *socket_context = NULL;
}

void srv_conns_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                      enum MHD_ConnectionNotificationCode toe)
{
    srv_server *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED)
        conn_opened(s, c, socket_context);
    else if (toe == MHD_CONNECTION_NOTIFY_CLOSED)
        conn_closed(s, socket_context);
}

/* Moves conn to phase, starting the phase's clock (and the request's, when a new
 * request begins). */
static void enter_phase(srv_server *s, srv_conn *conn, srv_conn_phase phase)
{
    if (!conn)
        return;
    pthread_mutex_lock(&s->conns.mu);
    if (conn->phase != phase) {
        int was = is_receiving(conn);
        conn->phase = phase;
        clock_gettime(CLOCK_MONOTONIC, &conn->since);
        if (phase == SRV_CONN_HEAD)
            conn->begun = conn->since;
        count_receiving(&s->conns, conn, was);
    }
    pthread_mutex_unlock(&s->conns.mu);
}

void srv_conn_head_received(srv_server *s, srv_conn *conn)
{
    enter_phase(s, conn, SRV_CONN_BODY);
}

void srv_conn_received(srv_server *s, srv_conn *conn)
{
    enter_phase(s, conn, SRV_CONN_ANSWERING);
}

void srv_conn_next_request(srv_server *s, srv_conn *conn)
{
    enter_phase(s, conn, SRV_CONN_HEAD);
}

srv_cut_reason srv_conn_cut_reason(srv_server *s, srv_conn *conn)
{
    if (!conn)
        return SRV_CUT_NONE;
    pthread_mutex_lock(&s->conns.mu);
    srv_cut_reason reason = conn->cut;
    pthread_mutex_unlock(&s->conns.mu);
    return reason;
}

const char *srv_cut_reason_text(srv_cut_reason reason)
{
    switch (reason) {
    case SRV_CUT_HEAD_DEADLINE:
        return "--head-deadline passed";
    case SRV_CUT_BODY_DEADLINE:
        return "--body-deadline passed";
    case SRV_CUT_SHED:
        return "shed: too many half-received connections";
    case SRV_CUT_NONE:
    case SRV_CUT_REASONS:
    default:
        return NULL;
    }
}
