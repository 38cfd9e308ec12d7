/*
 * request_int.h: what request.c and request_kernel.c share. Not included outside
 * protocol/request*.c.
 */
#ifndef LR_REQUEST_INT_H
#define LR_REQUEST_INT_H

#include <cjson/cJSON.h>

#include "jbuild.h"
#include "request.h"

/* "model": "v2" (default, also when v is NULL) or "warpspeed" into *out; 0, or -1
 * with err naming "model". */
int lr_request_parse_model(const cJSON *v, est_model *out, lr_error *err);

/* The "kernel" object kv (NULL: missing) into req->kernel under model, its canonical
 * form into canon through b (jbuild.h: an allocation that fails sets b->failed, which
 * the caller turns into LR_NO_MEMORY); 0, or -1 with err naming the offending value's
 * path. */
int lr_request_parse_kernel(const cJSON *kv, est_model model, lr_request *req, jb *b,
                            cJSON *canon, lr_error *err);

/* search.orderings (sv is "search", NULL: none) of a ranking whose space is built:
 * every ordering's permutation computed and added to the kernel as a variant, the space
 * repeated for each, the names added to canon as "orderings" (the cache key must tell
 * which mesh launch.ordering i means). 0, or -1 with err naming the value. */
int lr_request_parse_orderings(const cJSON *sv, lr_request *req, jb *b, cJSON *canon,
                               lr_error *err);

/* kernel.source (sv, not NULL) compiled for req's device (request_source.c): *regs gets
 * the kernel's register count, or, when regs_sent (kernel.registers was given, in *regs),
 * must equal it; with mix (NULL when kernel.instructions was sent), *has_mix is 1 and
 * *mix the instruction mix counted in the PTX when it can stand for kernel.instructions
 * (no loop, no call), else 0; req->registers_note says where the counts came from.
 * Compilations go through req->sources. 0, or -1 with err naming the member
 * (LR_UNAVAILABLE at "kernel.source" without NVRTC or for an architecture it cannot
 * target). */
int lr_request_parse_source(const cJSON *sv, lr_request *req, int regs_sent, int64_t *regs,
                            est_instructions *mix, int *has_mix, lr_error *err);

#endif
