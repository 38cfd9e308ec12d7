/*
 * conns.c: the receive deadline. Every open connection is tracked from the moment
 * libmicrohttpd accepts it; a request must arrive whole (request line, headers and
 * body) within --receive-deadline seconds of its start, however steadily the client
 * trickles it. libmicrohttpd's --timeout only bounds silence (each byte restarts it),
 * and while the headers arrive it calls none of our code, so a thread here looks at
 * the clock a few times a second and shuts down the socket of each connection past
 * its deadline; libmicrohttpd then sees the end of the stream on its own thread and
 * closes the connection the usual way (the access log says why).
 *
 * Threads: MHD's I/O threads add, update and remove connections; the deadline
 * thread reads them. All under conns.mu. A connection is removed (notify "closed")
 * before libmicrohttpd closes its socket, so the thread never shuts down a socket
 * number that was closed and reused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "srv_int.h"

/* How often the deadline thread looks at the connections. The deadline is whole
 * seconds, so a tenth of a second late is within its precision; a scan of the
 * connections (at most SRV_MAX_CONNECTIONS) costs microseconds. */
#define SRV_DEADLINE_TICK_MS 100

static double seconds_since(const struct timespec *t0, const struct timespec *now)
{
    return (double)(now->tv_sec - t0->tv_sec) + (double)(now->tv_nsec - t0->tv_nsec) / 1e9;
}

/* Shuts down every receiving connection past the deadline. Called with mu held. */
static void cut_late(srv_server *s, const struct timespec *now)
{
    double deadline = (double)s->cfg->receive_deadline_s;
    for (srv_conn *c = s->conns.head; c; c = c->next)
        if (c->receiving && !c->cut && seconds_since(&c->since, now) >= deadline) {
            /* Not close(): the socket stays libmicrohttpd's, which closes it. */
            shutdown(c->fd, SHUT_RDWR);
            c->cut = 1;
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
    pthread_cond_destroy(&cs->wake);
    pthread_mutex_destroy(&cs->mu);
    cs->initialized = 0;
}

static void conn_opened(srv_server *s, struct MHD_Connection *c, void **socket_context)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    srv_conn *conn = info ? calloc(1, sizeof *conn) : NULL;
    if (!conn) {
        /* A connection we cannot bound is not served: MHD closes it at once. */
        if (info)
            shutdown(info->connect_fd, SHUT_RDWR);
        return;
    }
    conn->fd = info->connect_fd;
    conn->receiving = 1;
    clock_gettime(CLOCK_MONOTONIC, &conn->since);
    pthread_mutex_lock(&s->conns.mu);
    conn->next = s->conns.head;
    if (conn->next)
        conn->next->prev = conn;
    s->conns.head = conn;
    pthread_mutex_unlock(&s->conns.mu);
    *socket_context = conn;
}

static void conn_closed(srv_server *s, void **socket_context)
{
    srv_conn *conn = *socket_context;
    if (!conn)
        return;
    pthread_mutex_lock(&s->conns.mu);
    if (conn->prev)
        conn->prev->next = conn->next;
    else
        s->conns.head = conn->next;
    if (conn->next)
        conn->next->prev = conn->prev;
    pthread_mutex_unlock(&s->conns.mu);
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

void srv_conn_received(srv_server *s, srv_conn *conn)
{
    if (!conn)
        return;
    pthread_mutex_lock(&s->conns.mu);
    conn->receiving = 0;
    pthread_mutex_unlock(&s->conns.mu);
}

void srv_conn_next_request(srv_server *s, srv_conn *conn)
{
    if (!conn)
        return;
    pthread_mutex_lock(&s->conns.mu);
    conn->receiving = 1;
    clock_gettime(CLOCK_MONOTONIC, &conn->since);
    pthread_mutex_unlock(&s->conns.mu);
}

int srv_conn_was_cut(srv_server *s, srv_conn *conn)
{
    if (!conn)
        return 0;
    pthread_mutex_lock(&s->conns.mu);
    int cut = conn->cut;
    pthread_mutex_unlock(&s->conns.mu);
    return cut;
}
