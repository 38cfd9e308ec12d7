/*
 * dl.c: resolving the entry points of the libraries cudagen opens at run time (the
 * CUDA driver in gpu.c, NVRTC in nvrtc.c) from a table, so each loader lists names
 * instead of repeating the lookup and its error.
 */
#include <dlfcn.h>

#include "cudagen_int.h"

int cg_dl_resolve(void *h, const cg_dl_sym *syms, size_t n, void *api, const char *library,
                  lr_error *err)
{
    for (size_t i = 0; i < n; i++) {
        void *p = dlsym(h, syms[i].name);
        if (!p && syms[i].fallback)
            p = dlsym(h, syms[i].fallback);
        if (!p)
            return lr_error_set(err, LR_UNAVAILABLE, NULL, "the %s lacks %s; it is too old",
                                library, syms[i].name);
        /* POSIX guarantees that a dlsym result converts to a function pointer; the
         * struct's members are function pointers of the same representation */
        *(void **)((char *)api + syms[i].offset) = p;
    }
    return 0;
}
