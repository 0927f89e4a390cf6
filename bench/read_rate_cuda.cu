// read_rate_cuda.cu - the same reads as read_rate.c, through CUDA, on the same GPU: whether a
// pass that only reads every key is slower through NVIDIA's OpenCL than the device allows.
// A kernel reads the buffer's uint4s (1, 4 or 8 loads in flight per thread, 32- or 64-bit
// indices) on grids of 2 to 64 blocks of 256 threads per multiprocessor or one load step per
// thread; cudaMemcpyAsync device to device beside them. The time is each launch's own (events
// around it), the median after two warm-ups, in read_rate.c's CSV columns.
//
// usage: clqsort-read-rate-cuda [runs] [mib]
#include "peer_cuda.h"

template <typename Idx, unsigned Flight>
__global__ void read_all(const uint4 *q, unsigned quads, unsigned *out)
{
    const Idx g = Idx(gridDim.x) * blockDim.x;
    Idx j = Idx(blockIdx.x) * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    for (; j + (Flight - 1) * g < quads; j += Flight * g) {
        uint4 v[Flight];
#pragma unroll
        for (unsigned t = 0; t < Flight; t++)
            v[t] = q[j + t * g];
#pragma unroll
        for (unsigned t = 0; t < Flight; t++)
            acc ^= v[t].x + 3u * v[t].y + 5u * v[t].z + 7u * v[t].w;
    }
    for (; j < quads; j += g)
        acc ^= q[j].x + 3u * q[j].y + 5u * q[j].z + 7u * q[j].w;
    if (acc == 0x9e3779b9u)
        out[0] = acc;
}

static void report(const std::string &dev, const char *what, size_t blocks, double bytes, std::vector<double> &ms)
{
    const double med = sorted_median(ms);
    std::printf("\"%s\",\"%s\",%zu,%.0f,%zu,%.4f,%.4f,%.3f\n", dev.c_str(), what, blocks, bytes, ms.size(), med, ms[0],
                bytes / (med * 1e-3) / 1e12);
}

// The times of `runs` calls of f() after two warm-ups, each between two events on the stream.
template <typename F>
static std::vector<double> time_runs(int runs, F f)
{
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    std::vector<double> ms;
    for (int r = -2; r < runs; r++) {
        CUDA_OK(cudaEventRecord(a));
        f();
        CUDA_OK(cudaEventRecord(b));
        CUDA_OK(cudaEventSynchronize(b));
        float t = 0;
        CUDA_OK(cudaEventElapsedTime(&t, a, b));
        if (r >= 0)
            ms.push_back(t);
    }
    CUDA_OK(cudaEventDestroy(a));
    CUDA_OK(cudaEventDestroy(b));
    return ms;
}

template <typename Idx, unsigned Flight>
static void sweep(const std::string &dev, const uint4 *in, unsigned quads, unsigned *out, int runs, int sms,
                  const char *idx)
{
    static const unsigned per_sm[] = {2, 4, 8, 16, 32, 64, 0};
    for (unsigned p : per_sm) {
        const unsigned blocks = p ? p * unsigned(sms) : (quads / Flight + 255) / 256;
        std::vector<double> ms = time_runs(runs, [&] {
            read_all<Idx, Flight><<<blocks, 256>>>(in, quads, out);
            CUDA_OK(cudaGetLastError());
        });
        char what[128];
        std::snprintf(what, sizeof what, "read, %s indices, %u loads in flight, %s", idx, Flight,
                      p ? "groups per compute unit as given" : "one load step per work-item");
        report(dev, what, blocks, double(quads) * 16, ms);
    }
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::atoi(argv[1]) : 15;
    const long mib = argc > 2 ? std::atol(argv[2]) : 256;
    if (runs < 1 || runs > 10000 || mib < 1 || mib > 4095) {
        std::fprintf(stderr, "usage: clqsort-read-rate-cuda [runs] [mib, below 4096]\n");
        return 2;
    }
    const std::string dev = peer_device(stderr); // stdout: the CSV alone, as read_rate.c's
    int sms = 0;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t bytes = size_t(mib) << 20;
    const unsigned quads = unsigned(bytes / 16);
    uint4 *in = nullptr, *copy = nullptr;
    unsigned *out = nullptr;
    CUDA_OK(cudaMalloc(&in, bytes));
    CUDA_OK(cudaMalloc(&copy, bytes));
    CUDA_OK(cudaMalloc(&out, 64));
    CUDA_OK(cudaMemset(in, 0x5a, bytes));
    CUDA_OK(cudaDeviceSynchronize());
    std::printf("device,case,groups,bytes,runs,median_ms,min_ms,median_tb_per_s\n");
    std::vector<double> copy_ms =
        time_runs(runs, [&] { CUDA_OK(cudaMemcpyAsync(copy, in, bytes, cudaMemcpyDeviceToDevice)); });
    report(dev, "cudaMemcpyAsync device to device (bytes read and as many written)", 0, double(bytes), copy_ms);
    sweep<unsigned, 1>(dev, in, quads, out, runs, sms, "uint");
    sweep<unsigned, 4>(dev, in, quads, out, runs, sms, "uint");
    sweep<unsigned, 8>(dev, in, quads, out, runs, sms, "uint");
    sweep<unsigned long long, 1>(dev, in, quads, out, runs, sms, "ulong");
    sweep<unsigned long long, 4>(dev, in, quads, out, runs, sms, "ulong");
    sweep<unsigned long long, 8>(dev, in, quads, out, runs, sms, "ulong");
    CUDA_OK(cudaFree(in));
    CUDA_OK(cudaFree(copy));
    CUDA_OK(cudaFree(out));
    return 0;
}
