/*
 * worker.c: one lr_worker per compute thread. A worker owns its thread's isl
 * context and store connection and must be freed on that thread, so it lives under
 * a pthread key: created on the first job a compute thread runs (threads that never
 * compute cost nothing), freed by the key's destructor when the thread returns in
 * srv_pool_stop. The key lives in srv_server, not in a global.
 */
#include <stdlib.h>

#include "srv_int.h"

/* What the key holds: the worker and the server whose count it is in (a pthread
 * destructor gets only this pointer). */
typedef struct srv_thread_worker {
    srv_server *s;
    lr_worker *w;
} srv_thread_worker;

static void thread_worker_free(void *p)
{
    srv_thread_worker *tw = p;
    lr_worker_free(tw->w);
    atomic_fetch_sub(&tw->s->live_workers, 1);
    free(tw);
}

int srv_workers_init(srv_server *s, lr_error *err)
{
    if (pthread_key_create(&s->worker_key, thread_worker_free) != 0)
        return lr_error_set(err, LR_INTERNAL, NULL, "cannot create a thread key for workers");
    s->worker_key_created = 1;
    return 0;
}

lr_worker *srv_worker_get(srv_server *s, lr_error *err)
{
    srv_thread_worker *tw = pthread_getspecific(s->worker_key);
    if (tw)
        return tw->w;
    tw = malloc(sizeof *tw);
    if (!tw) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory while starting a worker");
        return NULL;
    }
    tw->s = s;
    tw->w = lr_worker_new(s->api, err); /* on failure the next request tries again */
    if (!tw->w) {
        free(tw);
        return NULL;
    }
    if (pthread_setspecific(s->worker_key, tw) != 0) {
        lr_worker_free(tw->w);
        free(tw);
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory while starting a worker");
        return NULL;
    }
    atomic_fetch_add(&s->live_workers, 1);
    return tw->w;
}

void srv_workers_fini(srv_server *s)
{
    if (!s->worker_key_created)
        return;
    /* Every compute thread has exited and run the destructor; a worker still counted
     * here would have been leaked by a thread that did not exit normally. */
    unsigned left = atomic_load(&s->live_workers);
    if (left)
        srv_log("launchrank: %u worker(s) not freed at shutdown", left);
    pthread_key_delete(s->worker_key);
    s->worker_key_created = 0;
}
