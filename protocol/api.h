/*
 * api: the request/response layer shared by the CLI and the daemon.
 *
 * It turns request JSON into estimator calls and results into response JSON, looks
 * predictions up in and writes them to the store, and enforces the input limits. It
 * knows JSON, not HTTP: the daemon maps lr_error codes to HTTP statuses, the CLI to
 * exit codes. Response bodies are documented in docs/api.md and schema/.
 *
 * Threads: one lr_api per process (immutable after lr_api_new); one lr_worker per
 * thread that serves requests (it owns that thread's isl context and store
 * connection). A worker must not be used by two threads at once.
 */
#ifndef LR_API_H
#define LR_API_H

#include <stddef.h>
#include <stdint.h>

#include "lr_error.h"

/* Input limits; each is the default of a daemon option. */
#define LR_MAX_BODY_BYTES (1u << 20) /* 1 MiB: a 3-D LBM kernel with 27 fields is ~30 KiB */
#define LR_MAX_JSON_DEPTH 32 /* requests nest 5 deep; 32 leaves room, stops stack abuse */

typedef struct lr_api_config {
    const char *db_path;     /* SQLite file; NULL = no cache */
    int threads;             /* ranking threads per request; 0 = number of cores */
    long isl_max_operations; /* isl operation budget per configuration; 0 = default */
    double time_limit_s;     /* wall-clock limit per request; 0 = LR_DEFAULT_TIME_LIMIT_S */
    long cache_max;          /* predictions kept in db_path; 0 = LR_DEFAULT_CACHE_MAX */
    long long max_arrays_mb; /* MiB all arrays in db_path may take together (uploads and
                                permutations; the least recently used are evicted):
                                0 = LR_DEFAULT_MAX_ARRAYS_MB */
    long max_request_mb;     /* memory one request may be estimated to use, MiB (reqmem.h):
                                0 = LR_DEFAULT_MAX_REQUEST_MB, < 0 = no limit; a request
                                over it is refused with LR_LIMIT_EXCEEDED before computing */
    int local_files;         /* requests are the user's own, read on their machine (the
                                CLI): an index field's values may name a file. Never set
                                in the daemon, whose clients must not read its files */
    int compute_threads;     /* threads that may compute one ranking, counted in its
                                memory estimate: the daemon's --threads, whose idle ones
                                are lent to a ranking; 0 = threads */
} lr_api_config;

/* Predictions a cache keeps before it evicts the least recently used. Measured (2-core
 * development machine, 2026-11-29): a ranking's prediction takes 2.5 KB of the file (its
 * configurations share the request text), an estimate of a request of its own 4.7 KB,
 * so 100000 rows are 250-470 MB. */
#define LR_DEFAULT_CACHE_MAX 100000L

/* The memory one request may be estimated to use (reqmem.h), in MiB, unless
 * configured otherwise (the daemon's and the CLI's --max-request-mb). The protocol's
 * other limits allow requests estimated at ~750 MiB (4096 configurations of 64 fields,
 * or 2048 accesses folded 64); the 949-byte ranking of the 25-point star over the
 * default space x 17 foldings is estimated at 105 MiB (86 measured). 256 MiB refuses
 * the extremes and keeps a daemon of --threads N under N x 256 MiB of requests. */
#define LR_DEFAULT_MAX_REQUEST_MB 256

/* A request may compute for 30 s: the D3Q19 ranking of 462 configurations takes 17 s
 * on two cores; longer means a pathological kernel holding a daemon thread. */
#define LR_DEFAULT_TIME_LIMIT_S 30.0

typedef struct lr_api lr_api;
typedef struct lr_worker lr_worker;

/* Progress of a long ranking: done of total configurations evaluated. */
typedef void (*lr_progress_fn)(void *user, size_t done, size_t total);

/* Creates the process-wide state (built-in devices, configuration). With a db_path,
 * the devices stored there (lr_api_device_add) join the built-ins, read once here: a
 * device stored later is seen by an api created later. A store that cannot be opened
 * is not an error: the api then answers without caching (and without stored devices)
 * and lr_api_cache_status says why. NULL with err set on failure. Free with
 * lr_api_free. */
lr_api *lr_api_new(const lr_api_config *cfg, lr_error *err);
void lr_api_free(lr_api *api);

/* Cancels every computation of api, running or to come (any thread, e.g. a daemon on
 * its second SIGTERM): estimates and rankings stop at the estimator's next deadline
 * check (isl interrupted, the samplers between warps) and fail with LR_UNAVAILABLE;
 * measuring stops before the next configuration. Answers from the cache still come.
 * There is no undoing it: the api is for shutting down. */
void lr_api_cancel(lr_api *api);

/* The devices requests of this api see: the built-ins, then those stored in its
 * database. Owned by api, valid until lr_api_free. */
typedef struct lr_devices lr_devices;
const lr_devices *lr_api_device_list(const lr_api *api);

/* "ok", or a sentence saying why the cache is not usable (owned by api). It says
 * what the last cache operation found: a cache whose reads succeed and whose writes
 * fail (a full disk) goes from one to the other at every request. */
const char *lr_api_cache_status(const lr_api *api);

/* How many cache operations have failed since the api was made; *last (OUT, owned
 * by api) is the reason of the last failure, NULL while none has failed. With them
 * a log says how often the cache fails without a line per failure (issue 41). */
uint64_t lr_api_cache_failures(const lr_api *api, const char **last);

/* NULL, or a sentence naming the first stored device that was not loaded and why (a
 * built-in of a later build took its name, or this build cannot read it). Owned by api. */
const char *lr_api_devices_warning(const lr_api *api);

/* Creates the state of one serving thread (isl context, store connection).
 * Free with lr_worker_free on the same thread. */
lr_worker *lr_worker_new(lr_api *api, lr_error *err);
void lr_worker_free(lr_worker *w);

/* Each returns a malloc'd, NUL-terminated JSON response body the caller frees, or
 * NULL with err set (err->path names the offending input). body need not be
 * NUL-terminated. A rank request with "measure": {"top": K} also times the K best
 * predicted configurations on the GPU (one measurement at a time per process); without
 * a GPU the ranking is returned with "measure": {"status": "unavailable", "reason"}. */
char *lr_api_estimate(lr_worker *w, const char *body, size_t len, lr_error *err);
char *lr_api_rank(lr_worker *w, const char *body, size_t len, lr_progress_fn progress,
                  void *progress_user, lr_error *err);

/* The estimate answer only if the cache has it: 1 with *out set (malloc'd, caller
 * frees; the same bytes lr_api_estimate answers), 0 when the prediction must be
 * computed (then call lr_api_estimate), -1 with err set when the request is invalid
 * (the error lr_api_estimate would give) or there is no memory. Computes nothing: a
 * daemon answers cache hits with it on its I/O threads, so that they never wait
 * behind a computation. */
int lr_api_estimate_cached(lr_worker *w, const char *body, size_t len, char **out,
                           lr_error *err);

/* One ranking in progress, shared with threads lent to it (lr_rank_help). Opaque. */
typedef struct lr_rank_run lr_rank_run;

/* What a caller may give a ranking besides its body, each member 0/NULL or as
 * est_rank_hooks (estimator/rank.h) says, where they are passed on: progress, a
 * cancelled test (a client that hung up: LR_UNAVAILABLE), a pause of the calling
 * thread between its configurations (it may run another request there, with the same
 * worker: the ranking does not use the worker while it estimates), and open/close of
 * a lender of threads, between which any thread may work on the ranking with
 * lr_rank_help. */
typedef struct lr_rank_hooks {
    lr_progress_fn progress;
    int (*cancelled)(void *user);
    void (*pause)(void *user);
    void (*open)(void *user, lr_rank_run *run);
    void (*close)(void *user, lr_rank_run *run);
    void *user;
} lr_rank_hooks;

/* lr_api_rank with hooks (NULL: none). The answer is the same, byte for byte, however
 * many threads were lent: each configuration's numbers do not depend on the thread
 * that computed them, and only this call reads and writes the cache. */
char *lr_api_rank_with(lr_worker *w, const char *body, size_t len, const lr_rank_hooks *hooks,
                       lr_error *err);

/* Lends the calling thread, whose worker is w, to run until its configurations are
 * all taken, the ranking ends, or leave(user) (asked before each configuration; NULL:
 * never) says to go: a daemon's idle compute thread helping another thread's ranking.
 * Uses w's estimation context only (not its store). */
void lr_rank_help(lr_worker *w, lr_rank_run *run, int (*leave)(void *), void *user);

/* Called before each synthetic mesh of lr_api_levels is estimated, with its diagonal
 * block in cells. */
typedef void (*lr_levels_fn)(void *user, int64_t block_cells);

/* Langguth et al.'s figure for an estimate request whose kernel reads through an index
 * field of its domain's cells (docs/meshes.md): the kernel with its launch estimated on
 * synthetic meshes of as many cells whose neighbours are random inside diagonal blocks
 * of b = 32, 128, ... cells and on a random mesh, each named by its level ("memory",
 * "on-chip", "cliff", "random"), and on the request's own mesh (docs/api.md, POST
 * /v1/levels). One time limit covers them all. progress (NULL: none) hears each b.
 * The answer (caller frees), or NULL with err (LR_INVALID_REQUEST naming
 * "kernel.fields" for a kernel without such a field, the estimate's errors otherwise). */
char *lr_api_levels(lr_worker *w, const char *body, size_t len, lr_levels_fn progress,
                    void *user, lr_error *err);

/* The devices (GET /v1/devices) and one device (GET /v1/devices/{name}). */
char *lr_api_devices(lr_api *api, lr_error *err);
char *lr_api_device(lr_api *api, const char *name, lr_error *err);

/* Stores a device description (body: a device object as `launchrank calibrate` writes it
 * or GET /v1/devices/{name} returns it, with "name") in the api's database, checked as a
 * request's device is (errors carry the JSON path of the bad figure). "base" is resolved
 * now: every figure is stored. "sources" is kept, "units" and "stored" are dropped. A
 * built-in's name is refused (LR_INVALID_REQUEST, path "name"), and so is a stored
 * one's unless replace. Returns {"name","replaced","db","model_version"} (caller frees),
 * or NULL with err (LR_UNAVAILABLE when the database cannot be written). The api itself
 * does not change: the device is seen by apis created afterwards. */
char *lr_api_device_add(lr_api *api, const char *body, size_t len, int replace, lr_error *err);

/* Removes a stored device from the api's database: {"removed","db","model_version"}, or
 * NULL with err (LR_NOT_FOUND when none of that name is stored). */
char *lr_api_device_remove(lr_api *api, const char *name, lr_error *err);

/* An estimate request whose configuration is also compiled and timed on the GPU:
 * the estimate response plus "measured" (times in ms, GLup/s, GPU) and
 * "predicted_over_measured". LR_UNAVAILABLE without a GPU. */
char *lr_api_measure(lr_worker *w, const char *body, size_t len, lr_error *err);

/* The CUDA C++ source of an estimate request's configuration (plain text, not JSON). */
char *lr_api_emit(lr_worker *w, const char *body, size_t len, lr_error *err);

/* Arrays kept in the api's database by the SHA-256 of their bytes (docs/api.md,
 * "Arrays"): an index field's values uploaded once (PUT /v1/arrays/{sha256}) and named
 * by requests as {"sha256": ...}, and the permutations of a ranking's orderings. */

/* Stores len bytes of data, little-endian integers of format ("int32-le", the
 * default when NULL, or "int64-le"), under sha256 (64 lowercase hex digits), which
 * must be data_sha256, the digest of data the caller computed as it arrived. The
 * answer {"sha256","format","count","bytes"} (caller frees) with *created 1, or 0
 * when the array was stored already; NULL with err: LR_INVALID_REQUEST naming
 * "sha256" (not a digest, or not data's), "format" or "body" (empty, or not a
 * multiple of the width), LR_LIMIT_EXCEEDED past what one array may hold, and
 * LR_UNAVAILABLE without a database. */
/* The largest array the database keeps, in bytes: SQLite's largest value (1e9 bytes,
 * SQLITE_MAX_LENGTH); the daemon's --max-array-mb may only lower it. */
#define LR_MAX_ARRAY_BYTES 1000000000ll
/* What all arrays of the database may take together by default, MiB: eight of the
 * daemon's largest uploads by default (--max-array-mb 512), or 16 M-cell meshes'
 * neighbour lists in several orderings. */
#define LR_DEFAULT_MAX_ARRAYS_MB 4096

char *lr_api_array_put(lr_worker *w, const char *sha256, const char *format, const void *data,
                       size_t len, const char *data_sha256, int *created, lr_error *err);

/* The bytes stored under sha256 into *data (malloc'd, caller frees) and *len; 0, or
 * -1 with err: LR_NOT_FOUND when none is stored, LR_INVALID_REQUEST naming "sha256"
 * when it is not a digest, LR_UNAVAILABLE without a database. */
int lr_api_array_get(lr_worker *w, const char *sha256, char **data, size_t *len, lr_error *err);

/* Counters since start (for /v1/stats and /metrics). */
typedef struct lr_api_stats {
    uint64_t cache_hits;
    uint64_t cache_misses;
    uint64_t configurations_evaluated; /* configurations the model computed (not cached) */
    uint64_t measurements;             /* configurations timed on a GPU */
} lr_api_stats;
void lr_api_get_stats(const lr_api *api, lr_api_stats *out);

/* The model version every response carries ("model_version"); changes whenever a
 * change of the model can change a number, so cached predictions are keyed by it. */
#define LR_MODEL_VERSION "2026.11-38"

#endif
