/*
 * read_rate.c - how fast one device reads a buffer through OpenCL: the ceiling of a pass that
 * only reads every key (a partial sort's first level, phase one's count pass).
 *
 * A kernel reads `bytes` of uint4s and folds them into a word it writes only in a case that does
 * not happen, so nothing but the loads is timed. It is built in variants (loads a work-item
 * issues before using any: 1, 4 or 8; 32- or 64-bit indices, the library's passes using 64-bit
 * ones) and launched on grids of 2 to 64 groups of 256 work-items per compute unit, or one load
 * step per work-item; clEnqueueCopyBuffer of the same buffer is timed beside them. Each case
 * runs `runs` times after two warm-ups; the time is the launch's own (event profiling), printed
 * as CSV rows with the median, the minimum and the median's rate.
 *
 * usage: clqsort-read-rate [runs] [mib] [vendor]   (vendor: a substring of the platform vendor)
 */
#include "bench_cl.h"

/* IDX (uint or ulong) and FLIGHT come from the build options */
static const char *const source =
    "__kernel void read_all(__global const uint4 *q, uint quads, __global uint *out)\n"
    "{\n"
    "    const IDX g = get_global_size(0);\n"
    "    IDX j = get_global_id(0);\n"
    "    uint acc = 0;\n"
    "    for (; j + (FLIGHT - 1) * g < quads; j += FLIGHT * g) {\n"
    "        uint4 v[FLIGHT];\n"
    "        for (uint t = 0; t < FLIGHT; t++)\n"
    "            v[t] = q[j + t * g];\n"
    "        for (uint t = 0; t < FLIGHT; t++)\n"
    "            acc ^= v[t].x + 3u * v[t].y + 5u * v[t].z + 7u * v[t].w;\n"
    "    }\n"
    "    for (; j < quads; j += g)\n"
    "        acc ^= q[j].x + 3u * q[j].y + 5u * q[j].z + 7u * q[j].w;\n"
    "    if (acc == 0x9e3779b9u)\n"
    "        out[0] = acc;\n"
    "}\n";

static double event_ms(cl_event e)
{
    cl_ulong t0, t1;
    CHECK(clWaitForEvents(1, &e));
    CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
    CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
    CHECK(clReleaseEvent(e));
    return (double)(t1 - t0) * 1e-6;
}

static void report(const char *device, const char *what, size_t groups, double *ms, int runs, double bytes)
{
    qsort(ms, (size_t)runs, sizeof(double), by_value);
    const double med = ms[runs / 2];
    printf("\"%s\",\"%s\",%zu,%.0f,%d,%.4f,%.4f,%.3f\n", device, what, groups, bytes, runs, med, ms[0],
           bytes / (med * 1e-3) / 1e12);
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 15;
    const long mib = argc > 2 ? atol(argv[2]) : 256;
    const char *vendor = argc > 3 ? argv[3] : getenv("CLQSORT_VENDOR");
    if (runs < 1 || runs > 10000 || mib < 1 || mib > 4095) {
        fprintf(stderr, "usage: clqsort-read-rate [runs] [mib, below 4096] [vendor]\n");
        return 2;
    }
    char name[256];
    const cl_device_id dev = pick_device(vendor, name, sizeof name);
    cl_uint cus = 0;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL));
    cl_int err;
    const cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    const cl_command_queue q = clCreateCommandQueue(c, dev, CL_QUEUE_PROFILING_ENABLE, &err);
#pragma GCC diagnostic pop
    CHECK(err);
    const size_t bytes = (size_t)mib << 20;
    const cl_uint quads = (cl_uint)(bytes / 16);
    const cl_mem in = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK(err);
    const cl_mem copy = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK(err);
    const cl_mem out = clCreateBuffer(c, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(err);
    const cl_uint pattern = 0x12345678u;
    CHECK(clEnqueueFillBuffer(q, in, &pattern, sizeof pattern, 0, bytes, 0, NULL, NULL));
    CHECK(clFinish(q));
    double *ms = malloc(sizeof(double) * (size_t)runs);

    printf("device,case,groups,bytes,runs,median_ms,min_ms,median_tb_per_s\n");
    for (int r = -2; r < runs; r++) {
        cl_event e;
        CHECK(clEnqueueCopyBuffer(q, in, copy, 0, 0, bytes, 0, NULL, &e));
        const double t = event_ms(e);
        if (r >= 0)
            ms[r] = t;
    }
    report(name, "clEnqueueCopyBuffer (bytes read and as many written)", 0, ms, runs, (double)bytes);

    static const char *const idx[] = {"uint", "ulong"};
    static const unsigned flights[] = {1, 4, 8};
    static const unsigned per_cu[] = {2, 4, 8, 16, 32, 64, 0}; /* 0: one load step per work-item */
    for (size_t x = 0; x < 2; x++)
        for (size_t f = 0; f < sizeof flights / sizeof flights[0]; f++) {
            char opts[96], what[96];
            snprintf(opts, sizeof opts, "-DIDX=%s -DFLIGHT=%u", idx[x], flights[f]);
            const cl_program p = clCreateProgramWithSource(c, 1, (const char **)&source, NULL, &err);
            CHECK(err);
            CHECK(clBuildProgram(p, 1, &dev, opts, NULL, NULL));
            const cl_kernel k = clCreateKernel(p, "read_all", &err);
            CHECK(err);
            CHECK(clSetKernelArg(k, 0, sizeof in, &in));
            CHECK(clSetKernelArg(k, 1, sizeof quads, &quads));
            CHECK(clSetKernelArg(k, 2, sizeof out, &out));
            for (size_t g = 0; g < sizeof per_cu / sizeof per_cu[0]; g++) {
                const size_t local = 256;
                const size_t groups = per_cu[g] ? (size_t)per_cu[g] * cus : (quads / flights[f] + local - 1) / local;
                const size_t global = groups * local;
                for (int r = -2; r < runs; r++) {
                    cl_event e;
                    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &e));
                    const double t = event_ms(e);
                    if (r >= 0)
                        ms[r] = t;
                }
                snprintf(what, sizeof what, "read, %s indices, %u loads in flight, %s", idx[x], flights[f],
                         per_cu[g] ? "groups per compute unit as given" : "one load step per work-item");
                report(name, what, groups, ms, runs, (double)bytes);
            }
            clReleaseKernel(k);
            clReleaseProgram(p);
        }
    free(ms);
    clReleaseMemObject(in);
    clReleaseMemObject(copy);
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
    clReleaseContext(c);
    return 0;
}
