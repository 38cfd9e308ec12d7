/*
 * api_int.h: what the files of the api share (api.c: the api and its workers, the
 * cache's health, stored devices; api_estimate.c: the cache lookups, estimate,
 * measure and emit; api_rank.c: rank). Not included outside protocol/api*.c.
 */
#ifndef LR_API_INT_H
#define LR_API_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "api.h"
#include "memo.h"
#include "reqmem.h"
#include "request.h"
#include "store.h"

/* Distinct cache failures the api keeps as messages (each one until lr_api_free): a
 * cache fails in few ways (disk full, file unreadable, locked), and a bound keeps a
 * flapping disk from growing the list. */
#define LR_CACHE_MESSAGES 16

/* How often a computing thread looks whether its cache database file was deleted or
 * replaced, in seconds: soon enough that a deleted cache is remade within a request
 * or two, and a stat per quarter second costs nothing. */
#define LR_CACHE_LOOK_S 0.25

struct lr_api {
    lr_api_config cfg;
    char *db_path;    /* owned copy; NULL = no cache */
    lr_devices *devs; /* owned: the built-ins, then the devices stored in db_path */
    char devices_warning[LR_MESSAGE_MAX]; /* "" = every stored device was loaded */
    /* The cache's health, which recovers (issue 10): the current failure, NULL while
     * the cache works. It points into messages, whose strings are never changed or
     * freed before lr_api_free, so lr_api_cache_status can hand one out while another
     * thread records the next. */
    _Atomic(const char *) cache_error;
    pthread_mutex_t cache_mu;          /* guards messages and n_messages */
    char *messages[LR_CACHE_MESSAGES]; /* owned: the distinct failures seen */
    unsigned n_messages;
    char *deleted; /* owned: what the status says while the database file is gone */
    atomic_uint_fast64_t cache_failures; /* cache operations failed since lr_api_new */
    _Atomic(const char *) cache_last;    /* the last failure (into messages), kept when
                                            an operation succeeds; NULL until one fails */
    atomic_uint_fast64_t hits, misses;
    atomic_uint_fast64_t evaluated, measured; /* configurations computed, timed */
    est_stop *stop; /* owned; raised by lr_api_cancel, watched by every computation */
    cg_usage_cache *sources; /* owned: kernel.source's compilations (NULL: none kept) */
};

struct lr_worker {
    lr_api *api;
    est_ctx *ctx;     /* owned */
    st_store *store;  /* owned; NULL without cache, or while it cannot be opened */
    struct stat file; /* the database file store has open (st_dev, st_ino) */
    double looked;    /* est_now() when store_keep last looked at the file */
    lr_memo *memo;    /* owned, created on first use: lr_api_estimate_cached's */
    lr_arrays arrays; /* the arrays of store, for the requests this worker parses */
};

/* Parses body as lr_request_parse_with does, with the api's local_files and the arrays
 * of w's store (api_arrays.c): an index field's {"sha256"} values are read from it, a
 * ranking's permutations kept in it. A ranking's orderings stop at deadline (0: none). */
int api_parse(lr_worker *w, const char *body, size_t len, lr_request_kind kind,
              double deadline, lr_request *req, lr_error *err);

/* The arrays of w's store (api_arrays.c), or NULL when the api has no database. */
const lr_arrays *api_arrays(lr_worker *w);
/* api_parse where index fields' {"sha256"} values are looked up in arrays (NULL: none)
 * instead of w's store: the levels' synthetic meshes, held in memory (api_levels.c). */
int api_parse_arrays(lr_worker *w, const char *body, size_t len, lr_request_kind kind,
                     double deadline, const lr_arrays *arrays, lr_request *req, lr_error *err);
/* lr_api_estimate of body parsed with arrays (api_parse_arrays), its estimate stopped
 * at deadline (est_now's clock; 0: the api's time limit from now, which also bounds
 * it otherwise): the levels' estimates share one request's time limit. */
char *api_estimate_with(lr_worker *w, const char *body, size_t len, const lr_arrays *arrays,
                        double deadline, lr_error *err);

/* Records a cache failure as the cache's status until an operation succeeds. */
void api_cache_failed(lr_api *api, const lr_error *e);
/* A cache operation succeeded: the cache is healthy again. */
void api_cache_ok(lr_api *api);
/* Before a computation: reopens w's store when its database file was deleted or
 * replaced (at most every LR_CACHE_LOOK_S). */
void api_store_keep(lr_worker *w);
/* The error of a computation the api's stop ended: 503 unavailable. Returns -1. */
int api_stopped(const lr_api *api, lr_error *err);

/* The cached estimate text of configuration l of req, as lr_estimate_json's object
 * printed unformatted (caller frees), or NULL when there is none that can be trusted
 * (api_estimate.c). The lookup is counted as a hit or a miss. */
char *api_cache_get(lr_worker *w, const lr_request *req, const est_launch *l, const char *key);
/* Stores the estimate text of configuration l of req under key, once its object est is
 * checked (the one check a row gets); failures only mark the cache's health. */
void api_cache_put(lr_worker *w, const lr_request *req, const est_launch *l, const char *key,
                   const cJSON *est, const char *text);
/* 0 when req, computed on threads threads, fits the api's per-request memory limit
 * (lr_api_config.max_request_mb); else -1 with err (reqmem.h). */
int api_memory_check(const lr_api *api, const lr_request *req, unsigned threads, lr_error *err);
/* The threads one ranking of api may compute on (its own and those lent to it). */
unsigned api_rank_threads(const lr_api *api);
/* The wall-clock limit of one estimate, and of one measurement, in seconds. */
double api_time_limit(const lr_api *api);
/* Times one configuration; the measured object (caller owns) or NULL with err. The
 * measurement is also appended to the store, where it is kept for calibration. */
cJSON *api_measure_one(lr_worker *w, const lr_request *req, const est_config *cfg,
                       double predicted, lr_error *err);

#endif
