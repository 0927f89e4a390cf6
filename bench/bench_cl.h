/*
 * bench_cl.h - what the bench's stand-alone OpenCL programs share (launch_cost.c, read_rate.c):
 * an exit on a failed call, the device of a platform vendor, and the ordering of times for a
 * median. They measure the runtime itself, so they call OpenCL directly, not through clqsort.
 */
#ifndef CLQSORT_BENCH_CL_H
#define CLQSORT_BENCH_CL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        const cl_int err_ = (call);                                                                \
        if (err_ != CL_SUCCESS) {                                                                  \
            fprintf(stderr, "%s failed: %d\n", #call, (int)err_);                                  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* qsort's comparison of two doubles, ascending */
static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The first device of the first platform whose vendor contains `vendor` (lower case; NULL: any
 * platform); its name goes to `name`. Exits where there is none. */
static cl_device_id pick_device(const char *vendor, char *name, size_t size)
{
    cl_platform_id platforms[16];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(16, platforms, &np));
    for (cl_uint i = 0; i < np; i++) {
        char v[256];
        CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_VENDOR, sizeof v, v, NULL));
        for (char *c = v; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        cl_device_id d;
        if ((!vendor || strstr(v, vendor)) && clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &d, NULL) == CL_SUCCESS) {
            CHECK(clGetDeviceInfo(d, CL_DEVICE_NAME, size, name, NULL));
            return d;
        }
    }
    fprintf(stderr, "no OpenCL device%s%s\n", vendor ? " of vendor " : "", vendor ? vendor : "");
    exit(1);
}

#endif
