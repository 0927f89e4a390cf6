// peer_cuda.h - what the CUDA peers of clqsort-bench share (peer_cub.cu, peer_cub_topk.cu): the
// error check, sizes as numbers or 2^k, the median of the timed runs, the device line and the
// CSV file in clqsort-bench's columns.
#pragma once

#include <cub/version.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CUDA_OK(call)                                                                                   \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(2);                                                                               \
        }                                                                                               \
    } while (0)

static inline size_t parse_size(const char *s)
{
    if (s[0] == '2' && s[1] == '^')
        return size_t(1) << std::atoi(s + 2);
    return size_t(std::strtoull(s, nullptr, 10));
}

// Sorts the run times (ms[0] is then the fastest) and returns their median.
static inline double sorted_median(std::vector<double> &ms)
{
    std::sort(ms.begin(), ms.end());
    const size_t h = ms.size() / 2;
    return ms.size() % 2 ? ms[h] : 0.5 * (ms[h - 1] + ms[h]);
}

// Prints the device line to `to` and returns the device's name, the CSV rows' device column.
static inline std::string peer_device(FILE *to = stdout)
{
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    std::fprintf(to, "device: %s (CUDA, CUB %d.%d.%d)\n", prop.name, CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
                 CUB_SUBMINOR_VERSION);
    return prop.name;
}

// The CSV file to append rows to, with clqsort-bench's header where it is new; NULL (after a
// message) where it cannot be opened.
static inline FILE *open_peer_csv(const char *path)
{
    FILE *f = std::fopen(path, "a");
    if (!f) {
        std::perror(path);
        return nullptr;
    }
    if (std::ftell(f) == 0)
        std::fputs("library,device,path,type,dist,n,runs,median_ms,min_ms,transfer_ms,mkeys_per_s,qsort_ms,levels,"
                   "launches,round_trips,verified\n",
                   f);
    return f;
}
