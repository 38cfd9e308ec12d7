/*
 * request: a request body (JSON) turned into the estimator's objects, with every
 * default applied and every limit enforced, plus the canonical text of what
 * determines a prediction (the cache key). See docs/api.md for the request format.
 */
#ifndef LR_REQUEST_H
#define LR_REQUEST_H

#include <stddef.h>

#include "cudagen.h"
#include "devices.h"
#include "estimator.h"
#include "lr_sha256.h"
#include "rank.h"

/* Configurations one rank request may ask for: the default space has at most 231
 * blocks (56 with bx a multiple of 32); 4096 allows several foldings over it and
 * bounds a request to seconds. */
#define LR_MAX_CONFIGS 4096
/* Accesses summed over all fields: bounds the isl maps of one request. */
#define LR_MAX_TOTAL_ACCESSES 2048
/* Lattice points of a domain: 2^42 (~4.4e12) is far beyond any GPU's memory and
 * keeps every count exact in a double. */
#define LR_MAX_DOMAIN_POINTS (1ll << 42)
#define LR_MAX_PARAMETERS 64

typedef enum lr_request_kind { LR_REQ_ESTIMATE, LR_REQ_RANK } lr_request_kind;

typedef struct lr_measure_opts {
    int top; /* 0 = no measurement */
    int repetitions;
    int warmup;
    int flush_l2;
} lr_measure_opts;

/* search.orderings: a cell ordering of a gathering kernel's mesh (mesh.h), its one-time
 * cost and the digest of its permutation. */
#define LR_MAX_ORDERINGS 16
/* Bytes of renumbered index fields the orderings of one request may hold: each ordering
 * but "given" copies the mesh (a 16 M-cell tetrahedral mesh is 256 MB of int32), and the
 * daemon runs under MemoryMax=2G (docs/operations.md); 1 GB allows three such copies. */
#define LR_MAX_ORDERING_BYTES 1000000000.0
typedef struct lr_ordering {
    char name[32];
    double seconds;      /* wall time of computing the permutation */
    char perm_sha256[LR_SHA256_HEX]; /* of the permutation as int64-le new cell numbers */
    int variant;          /* the launch.ordering of its configurations */
} lr_ordering;

/* Where arrays named by their SHA-256 live (the daemon's database, through the api):
 * an index field's "values": {"sha256": ...} is read with get, and a ranking's
 * orderings keep their permutations with put, so that a client can download the one it
 * chooses (docs/api.md, "Arrays"). Borrowed while a request is parsed. */
typedef struct lr_arrays {
    /* The array stored under sha256 (64 lowercase hex digits): 1 with *data (malloc'd,
     * the caller frees), its *bytes and its integers' *width (4 or 8, little-endian);
     * 0 when none is stored; -1 with err set. */
    int (*get)(void *user, const char *sha256, void **data, int64_t *bytes, int *width,
               lr_error *err);
    /* Keeps bytes of data (integers of width bytes) under sha256, their digest. NULL:
     * nothing is kept. Failing costs only the download, so it reports nothing. */
    void (*put)(void *user, const char *sha256, int width, const void *data, int64_t bytes);
    void *user;
} lr_arrays;

typedef struct lr_request {
    est_kernel *kernel; /* owned */
    est_device device;
    int64_t domain[3];
    est_launch launch; /* estimate: the configuration */
    est_launch *space; /* rank: owned array of nspace configurations */
    size_t nspace;
    int top; /* rank: results to return, 0 = all */
    int blockwise4d;    /* kernel.indexing "blockwise4d": the launch is fixed */
    int registers_assumed; /* kernel.registers not sent: its 32 are a guess (issue 43) */
    char registers_note[768]; /* "": none; else where kernel.registers (and
                                 kernel.instructions) came from (kernel.source compiled),
                                 for the answer: a warning's message holds 768 */
    int has_baseline;   /* rank: search.baseline was given ... */
    est_launch baseline; /* ... the code generator's current launch, also in space */
    lr_measure_opts measure;
    lr_ordering *orderings; /* rank: search.orderings (owned); launch.ordering i > 0 is
                               orderings[i]'s renumbered mesh, orderings[0] "given" */
    size_t norderings;
    int local_files; /* index fields' values may be read from files (lr_request_parse_local) */
    const lr_arrays *arrays; /* borrowed while parsing (lr_request_parse_with); NULL: none */
    cg_usage_cache *sources; /* borrowed while parsing: kernel.source's compilations
                                (NULL: each request compiles its own) */
    double deadline; /* while parsing: when orderings stop being computed; 0: never */
    char *canonical; /* owned: kernel, domain, device figures, model version */
} lr_request;

/* Parses body (len bytes, need not be NUL-terminated) as one JSON object with every
 * check a request gets before its values are read: size, nesting, UTF-8, numbers as
 * RFC 8259 writes them (integers at most 2^53, none infinite; jstrict.h), nothing
 * after the object, no raw control bytes, no key twice. The tree (caller frees with
 * cJSON_Delete), or NULL with err set. */
cJSON *lr_request_parse_json(const char *body, size_t len, lr_error *err);

/* Parses body (len bytes, need not be NUL-terminated) into *req. On error returns -1
 * with err set (path names the offending value) and *req holds nothing to free. */
int lr_request_parse(const lr_devices *devs, const char *body, size_t len, lr_request_kind kind,
                     lr_request *req, lr_error *err);
/* lr_request_parse where an index field's values may name a file of this machine
 * (docs/api.md, "Index fields"): for the CLI and the Python Local back end, which read
 * the client's own request; never for the daemon. */
int lr_request_parse_local(const lr_devices *devs, const char *body, size_t len,
                           lr_request_kind kind, int local_files, lr_request *req,
                           lr_error *err);
/* lr_request_parse_local where arrays (NULL: none) holds the arrays that index fields
 * may name by "sha256", and keeps a ranking's permutations; past deadline (seconds on
 * est_now's clock, 0: none) no further search.ordering is computed (LR_BUDGET_EXCEEDED,
 * its path): the request's time limit covers its orderings too. sources (NULL: none)
 * remembers kernel.source's compilations across requests. */
int lr_request_parse_with(const lr_devices *devs, const char *body, size_t len,
                          lr_request_kind kind, int local_files, const lr_arrays *arrays,
                          cg_usage_cache *sources, double deadline, lr_request *req,
                          lr_error *err);
void lr_request_release(lr_request *req);

/* The name of launch.ordering's mesh in req ("given" without orderings). */
const char *lr_request_ordering_name(const lr_request *req, int variant);

/* The request body that canonical (an lr_request's canonical text, as the measurement
 * log of store/ keeps it) stands for: an object with "device" (every figure and the
 * name), "domain", "kernel" and "model", without "launch", that lr_request_parse reads
 * back into the same kernel. Caller frees with cJSON_Delete. NULL with err
 * (LR_INVALID_REQUEST) when canonical is not such a text. */
cJSON *lr_request_from_canonical(const char *canonical, lr_error *err);

/* The text of one configuration ("|block=32,4,1|folding=1,1,1"): with req->canonical,
 * everything that determines a prediction, and what the cache compares on a hit. */
#define LR_CONFIG_TEXT 128
void lr_request_config_text(const est_launch *launch, char out[LR_CONFIG_TEXT]);

/* The cache key of one configuration of req (32 hex digits into key): the hash of
 * req->canonical and the configuration's text. */
void lr_request_key(const lr_request *req, const est_launch *launch, char key[33]);

#endif
