/*
 * listen.c: --listen and the listening socket. The option names a host and a port:
 * a numeric address (127.0.0.1:8080, [::1]:8080) or a host name (localhost:8080),
 * resolved once when the options are read. The daemon binds the socket itself and
 * hands it to libmicrohttpd (MHD_OPTION_LISTEN_SOCKET) so that it can try every
 * address a name resolves to (localhost may be ::1 and 127.0.0.1, and IPv6 may be
 * off) and say exactly what failed: a second daemon on a busy port is told which
 * address and port are taken, not only that the HTTP daemon did not start.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "srv_int.h"

/* Connections the kernel queues before libmicrohttpd accepts them: a burst of code
 * generator processes starting at once, and clients that reconnect as soon as they
 * are shed (conns.c), which kept a queue of 128 full: the kernel then drops a new
 * client's SYN, and the client retries only a second later. Twice the connections
 * libmicrohttpd serves; the kernel caps it at somaxconn (4096 on current Linux). */
#define SRV_LISTEN_BACKLOG 1024

/* A whole decimal port from 0 to 65535; 0 or -1. */
static int parse_port(const char *s, unsigned *out)
{
    size_t n = strlen(s);
    if (n == 0 || n > 5 || strspn(s, "0123456789") != n)
        return -1;
    unsigned long v = strtoul(s, NULL, 10);
    if (v > 65535)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int srv_listen_parse(const char *value, srv_listen *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    const char *colon = strrchr(value, ':');
    const char *h = value, *h_end = colon;
    int bracketed = value[0] == '[';
    if (bracketed) { /* IPv6 in brackets, as in a URL */
        h = value + 1;
        h_end = strchr(value, ']');
        if (!h_end || h_end + 1 != colon)
            h_end = NULL;
    }
    if (!colon || !h_end || h_end == h || (size_t)(h_end - h) >= sizeof out->host ||
        parse_port(colon + 1, &out->port)) {
        snprintf(why, why_size,
                 "'%.80s' is not HOST:PORT (127.0.0.1:8080, localhost:8080, [::1]:8080; "
                 "port 0 picks a free one)",
                 value);
        return -1;
    }
    memcpy(out->host, h, (size_t)(h_end - h));
    out->host[h_end - h] = '\0';
    if (!bracketed && strchr(out->host, ':')) {
        snprintf(why, why_size, "write an IPv6 address in brackets: [%.64s]:%u", out->host,
                 out->port);
        return -1;
    }

    /* Digits and dots are an IPv4 address, written whole: getaddrinfo would also
     * take the old short forms (1.2.3 as 1.2.0.3), which are typos here. */
    struct in_addr v4;
    if (!bracketed && strspn(out->host, "0123456789.") == strlen(out->host) &&
        inet_pton(AF_INET, out->host, &v4) != 1) {
        snprintf(why, why_size, "'%.80s' is not an IPv4 address (four numbers 0-255)",
                 out->host);
        return -1;
    }
    struct addrinfo hints = {.ai_family = bracketed ? AF_INET6 : AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | (bracketed ? AI_NUMERICHOST : 0)};
    struct addrinfo *res = NULL;
    char port[8];
    snprintf(port, sizeof port, "%u", out->port);
    int rc = getaddrinfo(out->host, port, &hints, &res);
    if (rc) {
        snprintf(why, why_size, "cannot resolve '%.80s': %s", out->host, gai_strerror(rc));
        return -1;
    }
    for (struct addrinfo *a = res; a && out->n_addrs < SRV_LISTEN_ADDRS; a = a->ai_next) {
        if ((a->ai_family != AF_INET && a->ai_family != AF_INET6) ||
            a->ai_addrlen > sizeof out->addrs[0])
            continue;
        memcpy(&out->addrs[out->n_addrs], a->ai_addr, a->ai_addrlen);
        out->lens[out->n_addrs++] = a->ai_addrlen;
    }
    freeaddrinfo(res);
    if (!out->n_addrs) {
        snprintf(why, why_size, "'%.80s' has no IPv4 or IPv6 address", out->host);
        return -1;
    }
    out->is_name = !bracketed && inet_pton(AF_INET, out->host, &v4) != 1;
    return 0;
}

void srv_addr_text(const struct sockaddr_storage *a, char *out, size_t size)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (a->ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, ip, sizeof ip);
        snprintf(out, size, "[%s]", ip);
    } else {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, ip, sizeof ip);
        snprintf(out, size, "%s", ip);
    }
}

/* A bound, listening socket on a, or -1 with *error_no set. */
static int open_one(const struct sockaddr_storage *a, socklen_t len, int *error_no)
{
    int fd = socket(a->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *error_no = errno;
        return -1;
    }
    int one = 1;
    /* A restarted daemon rebinds at once, despite connections in TIME_WAIT. */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    /* [::] serves IPv6 only: 0.0.0.0 is a separate, explicit choice. */
    if (a->ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (const struct sockaddr *)a, len) != 0 || listen(fd, SRV_LISTEN_BACKLOG) != 0) {
        *error_no = errno;
        close(fd);
        return -1;
    }
    return fd;
}

int srv_listen_open(const srv_listen *l, struct sockaddr_storage *bound, lr_error *err)
{
    int first_errno = 0;
    const struct sockaddr_storage *first = NULL;
    for (unsigned i = 0; i < l->n_addrs; i++) {
        int e = 0;
        int fd = open_one(&l->addrs[i], l->lens[i], &e);
        if (fd >= 0) {
            socklen_t n = sizeof *bound;
            if (getsockname(fd, (struct sockaddr *)bound, &n) != 0)
                memcpy(bound, &l->addrs[i], sizeof *bound);
            return fd;
        }
        /* The first address's failure is the one to report: it is the address a
         * client of the name tries first. */
        if (!first) {
            first = &l->addrs[i];
            first_errno = e;
        }
    }
    char addr[INET6_ADDRSTRLEN + 2];
    srv_addr_text(first, addr, sizeof addr);
    if (first_errno == EADDRINUSE)
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "port %u is already in use on %s (another launchrank-serve, or another "
                     "program, listens there); stop it or choose another port with --listen",
                     l->port, addr);
    else if (first_errno == EACCES)
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "port %u on %s needs privileges this process lacks (ports below 1024 "
                     "do); choose a port from 1024 up with --listen",
                     l->port, addr);
    else
        lr_error_set(err, LR_UNAVAILABLE, NULL, "cannot listen on %s port %u: %s", addr,
                     l->port, strerror(first_errno));
    return -1;
}
