// gather_cost.cu - what the pieces of a lead for 4-byte keys with 8-byte values cost on one GPU:
// sort the keys with their 4-byte places instead of the values (a sort of 4-byte pairs), then
// move the values by those places. docs/PERFORMANCE.md ("Pairs with 8-byte values") has the
// arithmetic and the numbers. Steps, each timed alone with CUDA events, median of --runs after a
// warm-up, the gather's output checked on the host after the last run:
//   places   write 0 .. n-1 (the places the sort would carry, 4 bytes a key)
//   copy     copy the 8-byte values to another buffer (the caller's buffer is the gather's output)
//   gather   out[i] = values[place[i]], place a random permutation (the order a sort leaves)
//   stream   the same with place[i] = i (the gather's floor: every access coalesced)
// Build and run on the GPU machine (not part of the CMake build):
//   nvcc -O3 -std=c++17 -I bench -o gather_cost tools/gather_cost.cu
//   ./gather_cost 2^26 9 gather.csv
#include "peer_cuda.h"

#include <cstdint>
#include <random>

__global__ void write_places(uint32_t *place, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        place[i] = uint32_t(i);
}

__global__ void gather(const uint64_t *values, const uint32_t *place, uint64_t *out, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        out[i] = values[place[i]];
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? parse_size(argv[1]) : size_t(1) << 26;
    const int runs = argc > 2 ? std::atoi(argv[2]) : 9;
    const char *csv = argc > 3 ? argv[3] : nullptr;
    const std::string device = peer_device();

    std::vector<uint32_t> perm(n);
    for (size_t i = 0; i < n; i++)
        perm[i] = uint32_t(i);
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(12345));
    std::vector<uint64_t> values(n);
    for (size_t i = 0; i < n; i++)
        values[i] = (uint64_t(i) << 32) ^ (i * 0x9e3779b97f4a7c15ull);

    uint32_t *d_perm, *d_places;
    uint64_t *d_values, *d_out;
    CUDA_OK(cudaMalloc(&d_perm, n * 4));
    CUDA_OK(cudaMalloc(&d_places, n * 4));
    CUDA_OK(cudaMalloc(&d_values, n * 8));
    CUDA_OK(cudaMalloc(&d_out, n * 8));
    CUDA_OK(cudaMemcpy(d_perm, perm.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_values, values.data(), n * 8, cudaMemcpyHostToDevice));
    int sms = 0;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int grid = sms * 8, block = 256;

    cudaEvent_t t0, t1;
    CUDA_OK(cudaEventCreate(&t0));
    CUDA_OK(cudaEventCreate(&t1));
    const char *steps[] = {"places", "copy", "gather", "stream"};
    FILE *out = csv ? std::fopen(csv, "w") : nullptr;
    if (out)
        std::fprintf(out, "program,device,step,n,runs,median_ms,min_ms,verified\n");
    int bad = 0;
    for (int s = 0; s < 4; s++) {
        std::vector<double> ms;
        for (int r = 0; r <= runs; r++) {
            CUDA_OK(cudaEventRecord(t0));
            if (s == 0 || s == 3)
                write_places<<<grid, block>>>(d_places, n);
            if (s == 3) /* the identity's own writing is not the gather's: time from here */
                CUDA_OK(cudaEventRecord(t0));
            if (s == 1)
                CUDA_OK(cudaMemcpyAsync(d_out, d_values, n * 8, cudaMemcpyDeviceToDevice));
            if (s == 2 || s == 3)
                gather<<<grid, block>>>(d_values, s == 2 ? d_perm : d_places, d_out, n);
            CUDA_OK(cudaEventRecord(t1));
            CUDA_OK(cudaEventSynchronize(t1));
            CUDA_OK(cudaGetLastError());
            float m = 0;
            CUDA_OK(cudaEventElapsedTime(&m, t0, t1));
            if (r > 0) /* run 0 is the warm-up */
                ms.push_back(m);
        }
        int ok = 1;
        if (s >= 1) {
            std::vector<uint64_t> got(n);
            CUDA_OK(cudaMemcpy(got.data(), d_out, n * 8, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n && ok; i++)
                ok = got[i] == values[s == 2 ? perm[i] : i];
        }
        bad += !ok;
        const double med = sorted_median(ms);
        std::printf("n=%zu %s: median %.3f ms, min %.3f ms%s\n", n, steps[s], med, ms[0], ok ? "" : " WRONG");
        if (out)
            std::fprintf(out, "gather_cost,\"%s\",%s,%zu,%d,%.4f,%.4f,%d\n", device.c_str(), steps[s], n, runs, med,
                         ms[0], ok);
    }
    if (out)
        std::fclose(out);
    return bad ? 1 : 0;
}
