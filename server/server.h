/*
 * server: the launchrank HTTP daemon (`launchrank serve`).
 *
 * It knows HTTP and nothing about kernels: requests are routed to the lr_api_*
 * calls of protocol/api.h, their lr_error codes mapped to HTTP statuses in one
 * table (respond.c). Infrastructure lives in small files with one concern each:
 * main.c (options, signals, lifecycle), http.c (libmicrohttpd plumbing, access
 * log), request.c (one request's memory and body), pool.c (the compute threads that
 * run estimate and rank off the I/O threads, lend idle ones to a ranking, cancel a
 * ranking whose client left, and stream its progress lines), routes.c (the routing table, data
 * only), handlers.c (what each route does), respond.c (status table, JSON bodies),
 * stats.c (counters for /v1/stats), metrics.c (/metrics), worker.c (one lr_worker
 * per compute thread). Calls between them point one way: routes.c and request.c
 * call no other file of server/, and the pool runs the handler http.c gives it.
 */
#ifndef SRV_SERVER_H
#define SRV_SERVER_H

/* Runs the daemon until SIGINT or SIGTERM. argv[0] is "serve"; the options are
 * described by `launchrank serve --help`. Returns the process exit status: 0 after
 * a graceful shutdown (or --help), 2 on bad options, 1 when the daemon could not
 * start (address in use, api creation failed, port file not writable). Blocks
 * SIGINT and SIGTERM in the calling thread and waits for them with sigwait, so call
 * it from the main thread of a process that has no other threads yet. */
int srv_main(int argc, char **argv);

#endif
