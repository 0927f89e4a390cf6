// clqsort-peer-cub - CUB's DeviceRadixSort measured the way clqsort-bench measures clqsort, so
// that a GPU table has CUB beside clqsort from one device call and one CSV:
//   - the same inputs: tests/test_util.c's generators, with clqsort-bench's seeds;
//   - device-resident time: the input restored from a device copy before each run (not timed),
//     the timed region the sort call and a cudaDeviceSynchronize, on the host clock as
//     clqsort-bench times its call and clFinish; CUB's temporary storage allocated once, outside;
//   - median of --runs after --warmup runs; every run, warm-up included, read back and checked:
//     a permutation of the input's bit patterns, in order (CUB's order: integers by value, floats
//     by value with the NaNs where CUB's bit transform puts them, -0.0 and +0.0 either way), and
//     with --values, each value (its key's input position) beside the key it came with.
//   clqsort-peer-cub [--n LIST] [--type T] [--values 0|4|8] [--dist LIST] [--runs N] [--warmup N]
//                    [--csv FILE]
// Exit status 1 if any run is wrong. CSV columns are clqsort-bench's.
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

extern "C" {
#include "test_util.h"
}
#include "peer_cuda.h"

// Non-decreasing in CUB's order: integers by value; floats by value where neither is a NaN (the
// zeros compare equal), NaNs anywhere.
template <typename K> static bool in_order(const K *k, size_t n, size_t *at)
{
    const K *last = nullptr; // the last key that is not a NaN
    for (size_t i = 0; i < n; i++) {
        if (std::is_floating_point<K>::value && std::isnan((double)k[i]))
            continue;
        if (last && k[i] < *last) {
            *at = i;
            return false;
        }
        last = &k[i];
    }
    return true;
}

struct no_values {}; // V for a sort of keys alone

template <typename K, typename V> struct runner {
    static constexpr bool pairs = !std::is_same<V, no_values>::value;
    clqsort_key_type type;
    size_t n;
    const unsigned char *input; // n keys, raw
    K *d_src, *d_keys, *d_keys_out;
    V *d_vsrc, *d_vals, *d_vals_out;
    void *d_temp = nullptr;
    size_t temp_bytes = 0;

    void setup()
    {
        CUDA_OK(cudaMalloc(&d_src, n * sizeof(K)));
        CUDA_OK(cudaMalloc(&d_keys, n * sizeof(K)));
        CUDA_OK(cudaMalloc(&d_keys_out, n * sizeof(K)));
        CUDA_OK(cudaMemcpy(d_src, input, n * sizeof(K), cudaMemcpyHostToDevice));
        d_vsrc = d_vals = d_vals_out = nullptr;
        if constexpr (pairs) {
            std::vector<V> idx(n);
            for (size_t i = 0; i < n; i++)
                idx[i] = V(i);
            CUDA_OK(cudaMalloc(&d_vsrc, n * sizeof(V)));
            CUDA_OK(cudaMalloc(&d_vals, n * sizeof(V)));
            CUDA_OK(cudaMalloc(&d_vals_out, n * sizeof(V)));
            CUDA_OK(cudaMemcpy(d_vsrc, idx.data(), n * sizeof(V), cudaMemcpyHostToDevice));
            CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, d_keys, d_keys_out, d_vals, d_vals_out, n));
        } else {
            CUDA_OK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, d_keys, d_keys_out, n));
        }
        CUDA_OK(cudaMalloc(&d_temp, temp_bytes));
    }

    double run_once()
    {
        CUDA_OK(cudaMemcpy(d_keys, d_src, n * sizeof(K), cudaMemcpyDeviceToDevice));
        if (d_vsrc)
            CUDA_OK(cudaMemcpy(d_vals, d_vsrc, n * sizeof(V), cudaMemcpyDeviceToDevice));
        CUDA_OK(cudaDeviceSynchronize());
        const auto t0 = std::chrono::steady_clock::now();
        if constexpr (pairs)
            CUDA_OK(cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, d_keys, d_keys_out, d_vals, d_vals_out, n));
        else
            CUDA_OK(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_keys, d_keys_out, n));
        CUDA_OK(cudaDeviceSynchronize());
        const auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::milli>(t1 - t0).count();
    }

    // The output against the input: order, multiset of bit patterns, values beside their keys.
    bool verify(const std::vector<unsigned char> &canonical, char *why, size_t why_size)
    {
        std::vector<K> out(n);
        CUDA_OK(cudaMemcpy(out.data(), d_keys_out, n * sizeof(K), cudaMemcpyDeviceToHost));
        size_t at = 0;
        if (!in_order(out.data(), n, &at)) {
            std::snprintf(why, why_size, "out of order at %zu", at);
            return false;
        }
        // In order and equal to the sorted input: a permutation of it. Only when the two differ
        // (ties of the order with other bit patterns: -0.0 and +0.0, NaNs) are the output's bit
        // patterns sorted and compared. Sorting every run held 2^26 past a 60 s limit (call 187).
        std::vector<unsigned char> bits(n * sizeof(K));
        std::memcpy(bits.data(), out.data(), bits.size());
        if (std::memcmp(bits.data(), canonical.data(), bits.size()))
            tu_sort_typed(type, 0, bits.data(), n);
        if (std::memcmp(bits.data(), canonical.data(), bits.size())) {
            std::snprintf(why, why_size, "not a permutation of the input's bit patterns");
            return false;
        }
        if constexpr (pairs) {
            std::vector<V> vals(n);
            std::vector<unsigned char> seen(n, 0);
            CUDA_OK(cudaMemcpy(vals.data(), d_vals_out, n * sizeof(V), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n; i++) {
                const uint64_t p = uint64_t(vals[i]);
                if (p >= n || seen[p] || std::memcmp(input + p * sizeof(K), &out[i], sizeof(K))) {
                    std::snprintf(why, why_size, "value at %zu (%llu) is not the position its key came from", i,
                                  (unsigned long long)p);
                    return false;
                }
                seen[p] = 1;
            }
        }
        return true;
    }

    void teardown()
    {
        cudaFree(d_src), cudaFree(d_keys), cudaFree(d_keys_out), cudaFree(d_temp);
        if (d_vsrc)
            cudaFree(d_vsrc), cudaFree(d_vals), cudaFree(d_vals_out);
    }
};

struct options {
    int runs = 7, warmup = 1;
    FILE *csv = nullptr;
    std::string device;
};

template <typename K, typename V>
static int measure(const options &o, clqsort_key_type type, int vbytes, tu_dist dist, size_t n)
{
    std::vector<unsigned char> input(n * sizeof(K) + 8), canonical;
    tu_generate_typed(type, dist, input.data(), n, 12345 + n); // clqsort-bench's seed
    canonical.assign(input.begin(), input.begin() + n * sizeof(K));
    tu_sort_typed(type, 0, canonical.data(), n);
    runner<K, V> r{type, n, input.data()};
    r.setup();
    std::vector<double> ms;
    int ok_runs = 0, failures = 0;
    char why[160] = "";
    for (int i = -o.warmup; i < o.runs; i++) {
        const double t = r.run_once();
        const bool ok = r.verify(canonical, why, sizeof why);
        failures += !ok;
        if (!ok)
            std::fprintf(stderr, "n=%zu %s %s: CUB's output is wrong: %s\n", n, tu_type_names[type],
                         tu_dist_name(dist), why);
        if (i >= 0) {
            ms.push_back(t);
            ok_runs += ok;
        }
    }
    r.teardown();
    const double med = sorted_median(ms);
    std::printf("n=%zu %s%s %s: cub median %.3f ms (%.1f Mkeys/s), min %.3f ms; %d/%d runs verified\n", n,
                tu_type_names[type], vbytes ? (vbytes == 4 ? " +4B values" : " +8B values") : "", tu_dist_name(dist),
                med, n / med / 1e3, ms[0], ok_runs, o.runs);
    if (o.csv) {
        std::fprintf(o.csv, "cub,\"%s\",cuda,%s%s,%s,%zu,%d,%.4f,%.4f,,%.2f,,,,,%d\n", o.device.c_str(),
                     tu_type_names[type], vbytes ? (vbytes == 4 ? "+u32" : "+u64") : "", tu_dist_name(dist), n, o.runs,
                     med, ms[0], n / med / 1e3, ok_runs == o.runs);
        std::fflush(o.csv); // a sweep cut short keeps the rows it finished
    }
    return failures;
}

template <typename K>
static int measure_values(const options &o, clqsort_key_type type, int vbytes, tu_dist dist, size_t n)
{
    switch (vbytes) {
    case 4: return measure<K, uint32_t>(o, type, vbytes, dist, n);
    case 8: return measure<K, uint64_t>(o, type, vbytes, dist, n);
    default: return measure<K, no_values>(o, type, 0, dist, n);
    }
}

int main(int argc, char **argv)
{
    options o;
    const char *n_list = "2^20", *dist_list = "uniform", *csv_path = nullptr;
    clqsort_key_type type = CLQSORT_KEY_UINT32;
    int vbytes = 0;
    for (int a = 1; a < argc; a++) {
        const char *s = argv[a];
        const bool more = a + 1 < argc;
        if (!std::strcmp(s, "--n") && more)
            n_list = argv[++a];
        else if (!std::strcmp(s, "--dist") && more)
            dist_list = argv[++a];
        else if (!std::strcmp(s, "--runs") && more)
            o.runs = std::max(1, std::atoi(argv[++a]));
        else if (!std::strcmp(s, "--warmup") && more)
            o.warmup = std::max(0, std::atoi(argv[++a]));
        else if (!std::strcmp(s, "--values") && more)
            vbytes = std::atoi(argv[++a]);
        else if (!std::strcmp(s, "--csv") && more)
            csv_path = argv[++a];
        else if (!std::strcmp(s, "--type") && more) {
            const char *t = argv[++a];
            int found = -1;
            for (int i = 0; i < 6; i++)
                if (!std::strcmp(t, tu_type_names[i]))
                    found = i;
            if (found < 0) {
                std::fprintf(stderr, "unknown type %s\n", t);
                return 2;
            }
            type = clqsort_key_type(found);
        } else {
            std::puts("usage: clqsort-peer-cub [--n LIST] [--type T] [--values 0|4|8] [--dist LIST|all] [--runs N] "
                      "[--warmup N] [--csv FILE]");
            return std::strcmp(s, "--help") ? 2 : 0;
        }
    }
    if (vbytes != 0 && vbytes != 4 && vbytes != 8) {
        std::fprintf(stderr, "--values takes 0, 4 or 8\n");
        return 2;
    }
    o.device = peer_device();
    if (csv_path && !(o.csv = open_peer_csv(csv_path)))
        return 2;
    std::vector<int> dists;
    std::string dl = dist_list;
    if (dl == "all")
        for (int d = 0; d < TU_DIST_COUNT; d++)
            dists.push_back(d);
    else
        for (size_t p = 0; p <= dl.size();) {
            const size_t q = std::min(dl.find(',', p), dl.size());
            const int d = tu_dist_parse(dl.substr(p, q - p).c_str());
            if (d < 0) {
                std::fprintf(stderr, "unknown distribution %s\n", dl.substr(p, q - p).c_str());
                return 2;
            }
            dists.push_back(d);
            p = q + 1;
        }
    int failures = 0;
    std::string nl = n_list;
    for (size_t p = 0; p <= nl.size();) {
        const size_t q = std::min(nl.find(',', p), nl.size());
        const size_t n = parse_size(nl.substr(p, q - p).c_str());
        p = q + 1;
        for (int d : dists) {
            const tu_dist dist = tu_dist(d);
            switch (type) {
            case CLQSORT_KEY_UINT32: failures += measure_values<uint32_t>(o, type, vbytes, dist, n); break;
            case CLQSORT_KEY_INT32: failures += measure_values<int32_t>(o, type, vbytes, dist, n); break;
            case CLQSORT_KEY_FLOAT: failures += measure_values<float>(o, type, vbytes, dist, n); break;
            case CLQSORT_KEY_UINT64: failures += measure_values<uint64_t>(o, type, vbytes, dist, n); break;
            case CLQSORT_KEY_INT64: failures += measure_values<int64_t>(o, type, vbytes, dist, n); break;
            case CLQSORT_KEY_DOUBLE: failures += measure_values<double>(o, type, vbytes, dist, n); break;
            }
        }
    }
    if (o.csv)
        std::fclose(o.csv);
    return failures ? 1 : 0;
}
