/*
 * reqmem: how much memory a parsed request may take while it is answered, and the
 * per-request limit on it (docs/api.md "Limits", the daemon's --max-request-mb).
 * The body limits bound the text; this bounds what the text asks for: a ranking keeps
 * every configuration's result and estimate object until its answer is printed, so
 * a request of 2 KB can ask for hundreds of MB.
 */
#ifndef LR_REQMEM_H
#define LR_REQMEM_H

#include <stddef.h>

#include "lr_error.h"
#include "request.h"

/* A conservative estimate of the memory, in bytes, answering req takes above the
 * process's own (libraries, devices, the cache connection), computed from the
 * request alone: its configurations (1 for an estimate), fields, accesses and
 * foldings, on threads computing threads (at most one per configuration). Fitted
 * on measured peak RSS (reqmem.c says on what); an upper bound, not a prediction. */
size_t lr_request_memory_bytes(const lr_request *req, unsigned threads);

/* 0 when req's estimate fits in max_mb MiB (max_mb <= 0: no limit); else -1 with err
 * LR_LIMIT_EXCEEDED, the path of the input that drives it ("search" for a ranking,
 * "kernel.fields" for an estimate) and a message with both figures and what to do. */
int lr_request_memory_check(const lr_request *req, unsigned threads, long max_mb,
                            lr_error *err);

#endif
