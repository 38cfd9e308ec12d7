/*
 * stencil25: the request both benchmarks use, docs/model.md §9 case 3: the 3-D
 * 25-point range-4 star stencil on 640 x ny x 512 doubles (base offset 32 B), with the
 * device and the closing part (a launch or a search) the caller gives.
 */
#ifndef LR_BENCH_STENCIL25_H
#define LR_BENCH_STENCIL25_H

#include <stdio.h>
#include <string.h>

/* Writes the request into buf (n bytes); tail is the JSON of "launch" or "search". */
static inline void stencil25_request(char *buf, size_t n, const char *device, int ny,
                                     const char *tail)
{
    char loads[2048] = "[\"x\",\"y\",\"z\"]";
    for (int r = 1; r <= 4; r++)
        snprintf(loads + strlen(loads), sizeof loads - strlen(loads),
                 ",[\"x+%d\",\"y\",\"z\"],[\"x-%d\",\"y\",\"z\"],[\"x\",\"y+%d\",\"z\"],"
                 "[\"x\",\"y-%d\",\"z\"],[\"x\",\"y\",\"z+%d\"],[\"x\",\"y\",\"z-%d\"]",
                 r, r, r, r, r, r);
    snprintf(buf, n,
             "{\"device\":\"%s\",\"domain\":[640,%d,512],"
             "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[640,%d,512],"
             "\"base_offset_bytes\":32,\"loads\":[%s]},{\"name\":\"B\",\"dims\":[640,%d,512],"
             "\"base_offset_bytes\":32,\"stores\":[[\"x\",\"y\",\"z\"]]}],\"flops\":25},%s}",
             device, ny, ny, loads, ny, tail);
}

#endif
