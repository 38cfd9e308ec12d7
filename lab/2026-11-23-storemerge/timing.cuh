// The probes' timing (lab/2026-11-23-storemerge/README.md): the median time in ms of runs - warm
// launches of launch(), each after overwriting the 256 MiB flush buffer so that L2
// starts cold.
#pragma once
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
template <typename Launch>
float median_ms(Launch launch, void *flush, int runs, int warm)
{
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> v;
    for (int r = 0; r < runs; r++) {
        float ms;
        cudaMemset(flush, r, 256 << 20);
        cudaEventRecord(e0);
        launch();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= warm)
            v.push_back(ms);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// A probe's run of one configuration: timed (median_ms) in its timing mode, else
// launched once for the profiler, which times it itself (0 returned).
template <typename Launch>
float time_or_run_once(bool timing, Launch launch, void *flush, int runs, int warm)
{
    if (timing)
        return median_ms(launch, flush, runs, warm);
    launch();
    return 0;
}
