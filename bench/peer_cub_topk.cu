// clqsort-peer-cub-topk - CUB's DeviceTopK, then a sort of its k results, measured the way
// clqsort-bench --topk K measures clqsort_partial_sort: the k smallest uint32 keys, in order.
// Issue 15 set its top-k targets from this pair of calls (DeviceTopK returns its k keys unsorted).
//   - the same inputs: tests/test_util.c's generators, with clqsort-bench's seed (12345 + n);
//   - device-resident time: the input stays on the device and is only read; the timed region is
//     DeviceTopK::MinKeys, DeviceRadixSort::SortKeys of its k keys and a cudaDeviceSynchronize, on
//     the host clock, as clqsort-bench times its call and clFinish; both temporary stores are
//     allocated once, outside;
//   - median of --runs after --warmup runs; every run, warm-up included, read back and checked
//     against the first k keys of the host's sort of the input.
// DeviceTopK came with CCCL 3.3; CUDA 13.0 ships CCCL 3.0, so CMake builds this program only
// where CLQSORT_CCCL_INCLUDE_DIR names newer headers (README.md, "Commands").
//   clqsort-peer-cub-topk [--n LIST] [--topk LIST] [--dist LIST] [--runs N] [--warmup N] [--csv FILE]
// Exit status 1 if any run is wrong. CSV columns are clqsort-bench's.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_topk.cuh>
#include <cuda/execution.determinism.h>
#include <cuda/execution.output_ordering.h>
#include <cuda/execution.require.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "test_util.h"
}
#include "peer_cuda.h"

// Comma-separated items of a list, each through f.
template <typename F> static void for_each_item(const std::string &list, F f)
{
    for (size_t p = 0; p <= list.size();) {
        const size_t q = std::min(list.find(',', p), list.size());
        f(list.substr(p, q - p));
        p = q + 1;
    }
}

// The only configuration this CCCL implements, which must be asked for by name.
static auto topk_env()
{
    return cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                    cuda::execution::output_ordering::unsorted);
}

struct options {
    int runs = 9, warmup = 1;
    FILE *csv = nullptr;
    std::string device;
};

// One (n, k, distribution): returns the number of wrong runs.
static int measure(const options &o, tu_dist dist, size_t n, size_t k)
{
    std::vector<uint32_t> input(n + 2), want;
    tu_generate_typed(CLQSORT_KEY_UINT32, dist, reinterpret_cast<unsigned char *>(input.data()), n, 12345 + n);
    input.resize(n);
    want = input;
    std::partial_sort(want.begin(), want.begin() + k, want.end());
    want.resize(k);

    uint32_t *d_in, *d_topk, *d_sorted;
    CUDA_OK(cudaMalloc(&d_in, n * 4));
    CUDA_OK(cudaMalloc(&d_topk, k * 4));
    CUDA_OK(cudaMalloc(&d_sorted, k * 4));
    CUDA_OK(cudaMemcpy(d_in, input.data(), n * 4, cudaMemcpyHostToDevice));
    size_t topk_bytes = 0, sort_bytes = 0;
    void *d_topk_temp = nullptr, *d_sort_temp = nullptr;
    CUDA_OK(cub::DeviceTopK::MinKeys(nullptr, topk_bytes, d_in, d_topk, n, k, topk_env()));
    CUDA_OK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, d_topk, d_sorted, int(k)));
    CUDA_OK(cudaMalloc(&d_topk_temp, topk_bytes));
    CUDA_OK(cudaMalloc(&d_sort_temp, sort_bytes));

    std::vector<double> ms;
    std::vector<uint32_t> got(k);
    int ok_runs = 0, failures = 0;
    for (int i = -o.warmup; i < o.runs; i++) {
        CUDA_OK(cudaMemset(d_sorted, 0xff, k * 4)); // a run that writes nothing fails the check
        CUDA_OK(cudaDeviceSynchronize());
        const auto t0 = std::chrono::steady_clock::now();
        CUDA_OK(cub::DeviceTopK::MinKeys(d_topk_temp, topk_bytes, d_in, d_topk, n, k, topk_env()));
        CUDA_OK(cub::DeviceRadixSort::SortKeys(d_sort_temp, sort_bytes, d_topk, d_sorted, int(k)));
        CUDA_OK(cudaDeviceSynchronize());
        const auto t1 = std::chrono::steady_clock::now();
        CUDA_OK(cudaMemcpy(got.data(), d_sorted, k * 4, cudaMemcpyDeviceToHost));
        const bool ok = got == want;
        if (!ok) {
            size_t at = 0;
            while (got[at] == want[at])
                at++;
            std::fprintf(stderr, "n=%zu k=%zu %s: CUB's output is wrong at %zu: %u, expected %u\n", n, k,
                         tu_dist_name(dist), at, got[at], want[at]);
        }
        failures += !ok;
        if (i >= 0) {
            ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            ok_runs += ok;
        }
    }
    cudaFree(d_in), cudaFree(d_topk), cudaFree(d_sorted), cudaFree(d_topk_temp), cudaFree(d_sort_temp);

    const double med = sorted_median(ms);
    std::printf("n=%zu uint32 %s top-k %zu: cub DeviceTopK + sort median %.3f ms, min %.3f ms; %d/%d runs verified\n",
                n, tu_dist_name(dist), k, med, ms[0], ok_runs, o.runs);
    if (o.csv) {
        std::fprintf(o.csv, "cub-topk,\"%s\",cuda,uint32,%s/topk=%zu,%zu,%d,%.4f,%.4f,,%.2f,,,,,%d\n", o.device.c_str(),
                     tu_dist_name(dist), k, n, o.runs, med, ms[0], n / med / 1e3, ok_runs == o.runs);
        std::fflush(o.csv);
    }
    return failures;
}

int main(int argc, char **argv)
{
    options o;
    std::string n_list = "2^26", k_list = "16,1024,65536", dist_list = "uniform";
    const char *csv_path = nullptr;
    for (int a = 1; a < argc; a++) {
        const char *s = argv[a];
        const bool more = a + 1 < argc;
        if (!std::strcmp(s, "--n") && more)
            n_list = argv[++a];
        else if (!std::strcmp(s, "--topk") && more)
            k_list = argv[++a];
        else if (!std::strcmp(s, "--dist") && more)
            dist_list = argv[++a];
        else if (!std::strcmp(s, "--runs") && more)
            o.runs = std::max(1, std::atoi(argv[++a]));
        else if (!std::strcmp(s, "--warmup") && more)
            o.warmup = std::max(0, std::atoi(argv[++a]));
        else if (!std::strcmp(s, "--csv") && more)
            csv_path = argv[++a];
        else {
            std::puts("usage: clqsort-peer-cub-topk [--n LIST] [--topk LIST] [--dist LIST] [--runs N] [--warmup N] "
                      "[--csv FILE]");
            return std::strcmp(s, "--help") ? 2 : 0;
        }
    }
    o.device = peer_device();
    if (csv_path && !(o.csv = open_peer_csv(csv_path)))
        return 2;
    int failures = 0, bad = 0;
    for_each_item(dist_list, [&](const std::string &d) {
        const int dist = tu_dist_parse(d.c_str());
        if (dist < 0) {
            std::fprintf(stderr, "unknown distribution %s\n", d.c_str());
            bad = 1;
            return;
        }
        for_each_item(n_list, [&](const std::string &ns) {
            const size_t n = parse_size(ns.c_str());
            for_each_item(k_list, [&](const std::string &ks) {
                const size_t k = std::min(parse_size(ks.c_str()), n);
                if (k > 0)
                    failures += measure(o, tu_dist(dist), n, k);
            });
        });
    });
    if (o.csv)
        std::fclose(o.csv);
    return bad ? 2 : failures ? 1 : 0;
}
