// The compute corpus's harness (issue 43 item 4): times, or runs once under Nsight
// Compute, every configuration of manifest.txt on the GPU present.
//
//   bench time MANIFEST OUT.jsonl [REPS]   2 warm-ups, then REPS (default 21) launches each
//                                          timed with CUDA events, the L2 flushed before
//                                          each (a 512 MiB read); one JSON line per
//                                          configuration with every time, the median, GLup/s
//   bench profile MANIFEST ORDER.csv       one launch per configuration, after a flush; run
//                                          it under `ncu -k regex:^ck_`; ORDER.csv lists the
//                                          configurations in launch order (collect pairs them)
//
// A manifest line: family kernel bx by bz fx fy fz (gen.py --families writes them). The
// arrays of a family are allocated when its first line comes and freed after its last.
// After the first launch of each kernel the output is checked: every interior value
// finite, and for LBM the mass and momentum of sampled cells conserved by the collision.
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// KERNELS selects the generated file: kernels.cu (the corpus), or kernels_heldout.cu
// (-DKERNELS='"kernels_heldout.cu"', stage.sh --heldout: the held-out families)
#ifndef KERNELS
#define KERNELS "kernels.cu"
#endif
#include KERNELS

#define CK(x)                                                                         \
    do {                                                                              \
        cudaError_t e_ = (x);                                                         \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                 \
                    cudaGetErrorString(e_));                                          \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

struct Entry {
    const char *family;
    const void *fn;
    int fold[3], elem, nin, nout, domain[3], dims[3], pad;
    const char *init;
    int q, nparams;
    double params[4];
};

static const Entry ENTRIES[] = {
#define X(fam, fn, fx, fy, fz, el, ni, no, nx, ny, nz, dx, dy, dz, pad, ini, q, np, p0, p1, p2, p3) \
    {fam, (const void *)fn, {fx, fy, fz}, el, ni, no, {nx, ny, nz}, {dx, dy, dz}, pad, ini, q, np, \
     {p0, p1, p2, p3}},
    FAMILIES
#undef X
};

__global__ void fill(void *p, size_t n, int elem, unsigned long long seed, double base,
                     double amp)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
        h ^= h >> 31;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        double v = base + amp * ((h >> 11) * (1.0 / 9007199254740992.0));
        if (elem == 8)
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
}

__global__ void flush_l2(const int4 *p, size_t n, int *sink)
{
    int acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345678)
        *sink = acc;
}

static int4 *flushbuf;
static int *sink;
static const size_t FLUSH_BYTES = 512ull << 20;

static void flush()
{
    flush_l2<<<132 * 8, 512>>>(flushbuf, FLUSH_BYTES / sizeof(int4), sink);
}

struct Arrays {
    const Entry *e = nullptr;
    std::vector<void *> p;
    size_t n = 0;
    void alloc(const Entry *en)
    {
        e = en;
        n = (size_t)en->dims[0] * en->dims[1] * en->dims[2];
        p.assign(en->nin + en->nout, nullptr);
        for (int i = 0; i < en->nin + en->nout; i++) {
            CK(cudaMalloc(&p[i], n * en->elem));
            if (i < en->nin) {
                bool lbm = !strcmp(en->init, "lbm");
                double base = lbm ? 0.9 / en->q : 0.0, amp = lbm ? 0.2 / en->q : 1.0;
                fill<<<1024, 256>>>(p[i], n, en->elem, 0x5EEDull * (i + 1), base, amp);
            } else {
                CK(cudaMemset(p[i], 0xFF, n * en->elem)); // NaN: a point not written shows
            }
        }
        CK(cudaDeviceSynchronize());
    }
    void release()
    {
        for (void *q : p)
            cudaFree(q);
        p.clear();
        e = nullptr;
    }
};

static cudaError_t launch(const Entry *e, Arrays &a, const int b[3], int shmem = 0)
{
    void *args[64];
    void *ptrs[64];
    float pf[4];
    double pd[4];
    int k = 0;
    for (size_t i = 0; i < a.p.size(); i++) {
        ptrs[i] = a.p[i];
        args[k++] = &ptrs[i];
    }
    for (int i = 0; i < e->nparams; i++) {
        pf[i] = (float)e->params[i];
        pd[i] = e->params[i];
        args[k++] = e->elem == 8 ? (void *)&pd[i] : (void *)&pf[i];
    }
    dim3 block(b[0], b[1], b[2]);
    dim3 grid;
    unsigned *g[3] = {&grid.x, &grid.y, &grid.z};
    for (int d = 0; d < 3; d++) {
        int per = b[d] * e->fold[d];
        *g[d] = (e->domain[d] + per - 1) / per;
    }
    // shared memory the kernel does not use, reserved per block to cap the blocks per SM
    // (lab/2026-11-29-lbmconc); above 48 KiB a launch must opt in
    if (shmem > 48 * 1024)
        cudaFuncSetAttribute(e->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, shmem);
    return cudaLaunchKernel(e->fn, grid, block, args, (size_t)shmem, 0);
}

template <typename T> static double at(const std::vector<char> &h, size_t i)
{
    return (double)((const T *)h.data())[i];
}

// After the first launch: interior finite; LBM conserves mass and momentum.
static std::string check(const Entry *e, Arrays &a)
{
    size_t n = a.n;
    int nf = e->nin + e->nout;
    std::vector<std::vector<char>> h(nf, std::vector<char>(n * e->elem));
    for (int i = 0; i < nf; i++)
        CK(cudaMemcpy(h[i].data(), a.p[i], n * e->elem, cudaMemcpyDeviceToHost));
    auto val = [&](int arr, size_t i) {
        return e->elem == 8 ? at<double>(h[arr], i) : at<float>(h[arr], i);
    };
    const int *D = e->dims, P = e->pad;
    long bad = 0, count = 0;
    double maxmass = 0, maxmom = 0, sumabs = 0;
    for (int z = 0; z < e->domain[2]; z++)
        for (int y = 0; y < e->domain[1]; y++)
            for (int x = 0; x < e->domain[0]; x++) {
                size_t c = (x + P) + (size_t)(y + P) * D[0] + (size_t)(z + P) * D[0] * D[1];
                for (int o = 0; o < e->nout; o++) {
                    double v = val(e->nin + o, c);
                    count++;
                    sumabs += fabs(v);
                    if (!std::isfinite(v))
                        bad++;
                }
                if (e->q && (c % 97) == 0) {
                    const int(*vel)[3] = e->q == 19 ? VEL19 : VEL27;
                    double m0 = 0, m1 = 0, j0[3] = {0, 0, 0}, j1[3] = {0, 0, 0};
                    for (int i = 0; i < e->q; i++) {
                        long o = -(vel[i][0] + (long)vel[i][1] * D[0] +
                                   (long)vel[i][2] * D[0] * D[1]);
                        double f = val(i, c + o), g = val(e->nin + i, c);
                        m0 += f;
                        m1 += g;
                        for (int d = 0; d < 3; d++) {
                            j0[d] += vel[i][d] * f;
                            j1[d] += vel[i][d] * g;
                        }
                    }
                    maxmass = std::max(maxmass, fabs(m1 - m0) / m0);
                    for (int d = 0; d < 3; d++)
                        maxmom = std::max(maxmom, fabs(j1[d] - j0[d]) / m0);
                }
            }
    char buf[256];
    snprintf(buf, sizeof buf,
             "not_finite=%ld of %ld mean_abs=%.6g mass_relerr=%.3g momentum_relerr=%.3g",
             bad, count, sumabs / count, maxmass, maxmom);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench time|profile MANIFEST OUT [REPS]\n");
        return 2;
    }
    bool prof = !strcmp(argv[1], "profile");
    int reps = argc > 4 ? atoi(argv[4]) : 21;
    FILE *man = fopen(argv[2], "r"), *out = fopen(argv[3], "w");
    if (!man || !out) {
        perror("open");
        return 1;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int drv = 0;
    cudaDriverGetVersion(&drv);
    fprintf(stderr, "%s, %d SMs, L2 %d B, driver API %d\n", prop.name, prop.multiProcessorCount,
            prop.l2CacheSize, drv);
    CK(cudaMalloc(&flushbuf, FLUSH_BYTES));
    CK(cudaMemset(flushbuf, 1, FLUSH_BYTES));
    CK(cudaMalloc(&sink, sizeof(int)));
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    Arrays arr;
    std::string curfam, checked;
    char fam[128], kname[128];
    int b[3], f[3], idx = 0;
    if (prof)
        fprintf(out, "index,family,kernel,bx,by,bz,fx,fy,fz,status,shared\n");
    char line[512];
    int shmem = 0;
    // a line: family kernel bx by bz fx fy fz [shared bytes per block]
    while (fgets(line, sizeof line, man)) {
        shmem = 0;
        if (sscanf(line, "%127s %127s %d %d %d %d %d %d %d", fam, kname, &b[0], &b[1], &b[2],
                   &f[0], &f[1], &f[2], &shmem) < 8)
            continue;
        const Entry *e = nullptr;
        for (const Entry &en : ENTRIES)
            if (!strcmp(en.family, fam) && en.fold[0] == f[0] && en.fold[1] == f[1] &&
                en.fold[2] == f[2])
                e = &en;
        if (!e) {
            fprintf(stderr, "no kernel for %s\n", kname);
            continue;
        }
        std::string chk;
        if (curfam != fam) {
            arr.release();
            arr.alloc(e);
            curfam = fam;
        }
        if (!prof && checked != kname) { // once per kernel (not under the profiler)
            checked = kname;
            for (int o = 0; o < e->nout; o++) // NaN again: a point this kernel misses shows
                CK(cudaMemset(arr.p[e->nin + o], 0xFF, arr.n * e->elem));
            if (launch(e, arr, b, shmem) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess)
                chk = check(e, arr);
            else
                chk = cudaGetErrorString(cudaGetLastError());
            fprintf(stderr, "%s: %s\n", fam, chk.c_str());
        }
        if (prof) {
            flush();
            cudaError_t err = launch(e, arr, b, shmem);
            if (err == cudaSuccess)
                err = cudaDeviceSynchronize();
            fprintf(out, "%d,%s,%s,%d,%d,%d,%d,%d,%d,%s,%d\n", idx++, fam, kname, b[0], b[1],
                    b[2], f[0], f[1], f[2], err == cudaSuccess ? "ok" : cudaGetErrorString(err),
                    shmem);
            fflush(out);
            continue;
        }
        std::vector<float> ms;
        cudaError_t err = cudaSuccess;
        for (int r = 0; r < reps + 2 && err == cudaSuccess; r++) {
            flush();
            CK(cudaEventRecord(t0));
            err = launch(e, arr, b, shmem);
            CK(cudaEventRecord(t1));
            if (err == cudaSuccess)
                err = cudaEventSynchronize(t1);
            float t = 0;
            if (err == cudaSuccess && r >= 2) {
                CK(cudaEventElapsedTime(&t, t0, t1));
                ms.push_back(t);
            }
        }
        fprintf(out, "{\"family\":\"%s\",\"kernel\":\"%s\",\"block\":[%d,%d,%d],\"folding\":[%d,%d,%d]",
                fam, kname, b[0], b[1], b[2], f[0], f[1], f[2]);
        if (shmem)
            fprintf(out, ",\"shared_bytes\":%d", shmem);
        if (err != cudaSuccess) {
            fprintf(out, ",\"error\":\"%s\"}\n", cudaGetErrorString(err));
            cudaGetLastError();
        } else {
            std::vector<float> s = ms;
            std::sort(s.begin(), s.end());
            double med = s.size() % 2 ? s[s.size() / 2]
                                      : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
            double lups = (double)e->domain[0] * e->domain[1] * e->domain[2];
            fprintf(out, ",\"ms_median\":%.6g,\"ms_min\":%.6g,\"ms_max\":%.6g,\"glups\":%.6g,\"ms\":[",
                    med, s.front(), s.back(), lups / (med * 1e6));
            for (size_t i = 0; i < ms.size(); i++)
                fprintf(out, "%s%.5g", i ? "," : "", ms[i]);
            fprintf(out, "],\"gpu\":\"%s\",\"driver_api\":%d%s%s%s}\n", prop.name, drv,
                    chk.empty() ? "" : ",\"check\":\"", chk.c_str(), chk.empty() ? "" : "\"");
        }
        fflush(out);
    }
    arr.release();
    fclose(out);
    return 0;
}
