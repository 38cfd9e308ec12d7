/*
 * reqmem: see reqmem.h. What a request's memory grows with, from measurements of
 * the real paths (bench/request_memory prints them beside the estimate):
 *
 * - per configuration of a ranking, held until the answer is printed: the
 *   estimator's est_result (8.3 KB, EST_MAX_FIELDS volumes whether used or not), the
 *   estimate object of response.c (its per-field "fields" member included, ~1.2 KB a
 *   field), the entry in the answer tree and the answer's text;
 * - per computing thread, for the configuration it is on: the binding (one
 *   instruction per access and folding step) and the samplers' buffers, and the
 *   thread's memo tables as they fill (estimator/sample_warp.c, up to ~9 MB);
 * - per request: the parsed body, the canonical text, the plausibility checks.
 *
 * Fitted on 2026-11-30 on the 2-core development VM (release build, glibc malloc,
 * `launchrank rank|estimate --threads 1|2` under /usr/bin/time -v, peak RSS minus
 * that of a one-field estimate): copies of 2 to 54 fields ranked over 64 to 4096
 * explicit blocks, a 25-point star over the default space x 17 foldings (3927
 * configurations), estimates of 2 to 2045 accesses and foldings of 1 and 16. Each
 * constant is rounded up from the largest per-unit figure seen, so the estimate is
 * 1.0-2.5x the measured growth on all of them (table in bench/README.md).
 */
#include "reqmem.h"

#include <stdint.h>

#include "estimator.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* Fixed per request: body tree, canonical text, the first memo pages. */
#define MEM_REQUEST (1.0 * MIB)
/* Per configuration, fields aside (measured 22.3-23.0 KB with 2 fields). */
#define MEM_CONFIG (24.0 * KIB)
/* Per configuration and field: the estimate object's "fields" member (1.14-1.25 KB). */
#define MEM_CONFIG_FIELD (1.4 * KIB)
/* Per computing thread beyond the first: its memo tables as they fill. */
#define MEM_THREAD (10.0 * MIB)
/* Per access, on each computing thread: its isl maps, the binding's groups
 * (2045 accesses unfolded: 3.4 KB each with the instruction's share). */
#define MEM_ACCESS (1.5 * KIB)
/* Per access and folding step, on each computing thread: the binding's instruction and
 * the samplers' address buffers (129 accesses x 64 steps in z: 2.1 KB; 512 x 16 in z:
 * 0.8 KB, so the estimate is 3x there: the share of steps whose addresses coincide is
 * not modelled). */
#define MEM_INSTRUCTION (2.2 * KIB)

static int total_accesses(const est_kernel *k)
{
    int n = 0, nf = est_kernel_field_count(k);
    for (int f = 0; f < nf; f++)
        n += est_kernel_access_count(k, f);
    return n;
}

static int folding_points(const est_launch *l)
{
    return l->folding[0] * l->folding[1] * l->folding[2];
}

/* The most folding steps of any configuration req asks for. */
static int max_steps(const lr_request *req)
{
    int m = folding_points(&req->launch);
    for (size_t i = 0; req->space && i < req->nspace; i++)
        if (folding_points(&req->space[i]) > m)
            m = folding_points(&req->space[i]);
    return m > 0 ? m : 1;
}

static size_t configurations(const lr_request *req)
{
    return req->space ? req->nspace : 1;
}

size_t lr_request_memory_bytes(const lr_request *req, unsigned threads)
{
    size_t n = configurations(req);
    double t = threads < 1 ? 1 : threads < n ? threads : (double)n;
    int fields = est_kernel_field_count(req->kernel);
    double acc = total_accesses(req->kernel);
    double per_thread = MEM_ACCESS * acc + MEM_INSTRUCTION * acc * max_steps(req);
    double bytes = MEM_REQUEST + (double)n * (MEM_CONFIG + MEM_CONFIG_FIELD * fields) +
                   t * per_thread + (t - 1) * MEM_THREAD;
    /* the protocol's limits keep this below 1 GB; the cap only guards a caller */
    return bytes < (double)SIZE_MAX / 2 ? (size_t)bytes : SIZE_MAX / 2;
}

int lr_request_memory_check(const lr_request *req, unsigned threads, long max_mb,
                            lr_error *err)
{
    if (max_mb <= 0)
        return 0;
    size_t need = lr_request_memory_bytes(req, threads);
    if ((double)need <= (double)max_mb * MIB)
        return 0;
    long need_mb = (long)((double)need / MIB + 0.999);
    int fields = est_kernel_field_count(req->kernel);
    if (!req->space)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, "kernel.fields",
                            "this estimate of %d fields and %d accesses would need about %ld "
                            "MB, more than the %ld MB a request may use (--max-request-mb); "
                            "estimate fewer fields or accesses, or a smaller folding",
                            fields, total_accesses(req->kernel), need_mb, max_mb);
    return lr_error_set(err, LR_LIMIT_EXCEEDED, "search",
                        "this ranking of %zu configurations of %d fields would need about "
                        "%ld MB, more than the %ld MB a request may use (--max-request-mb); "
                        "rank fewer configurations (search.blocks, search.foldings) or ask "
                        "in parts",
                        req->nspace, fields, need_mb, max_mb);
}
