/* time_layer.c - an OpenCL layer for measuring what a call of the library costs the host: it
 * times every call of the entry points below (the host's clock around the next layer's call)
 * and, at exit, writes one line per call to the file named by CLQSORT_TIME_LAYER_OUT (standard
 * error if unset):
 *   <entry> <start, us from the first call> <duration, us> <detail>
 * detail: the bytes of a read or write, the global size of a launch, 0 otherwise. No device
 * time is taken (no events are added), so what it shows is what an unprofiled run does.
 * bench/time_layer_report.py splits the lines into the bench's timed calls (between its
 * clFinish calls) and prints where each call's time went.
 *
 * Use: OPENCL_LAYERS=/path/libclqsort_time_layer.so CLQSORT_TIME_LAYER_OUT=calls.txt
 *      clqsort-bench ... (ocl-icd 2.3 or later). */
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl_layer.h>

#include "../tests/cl_layer_info.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum {
    TL_SET_ARG,
    TL_LAUNCH,
    TL_WRITE,
    TL_READ,
    TL_COPY,
    TL_FILL,
    TL_WAIT,
    TL_FINISH,
    TL_FLUSH,
    TL_MEM_INFO,
    TL_EVENT_INFO,
    TL_RELEASE_EVENT,
    TL_RETAIN_EVENT,
    TL_ENTRIES
};
static const char *const names[TL_ENTRIES] = {
    "clSetKernelArg", "clEnqueueNDRangeKernel", "clEnqueueWriteBuffer", "clEnqueueReadBuffer",
    "clEnqueueCopyBuffer", "clEnqueueFillBuffer", "clWaitForEvents", "clFinish", "clFlush",
    "clGetMemObjectInfo", "clGetEventInfo", "clReleaseEvent", "clRetainEvent"};

typedef struct record {
    unsigned char entry;
    double start, duration;
    unsigned long long detail;
} record;

#define TL_MAX_RECORDS (1u << 21)
static record *records;
static size_t nrecords;
static double origin = -1.0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const struct _cl_icd_dispatch *next;
static struct _cl_icd_dispatch table;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void note(int entry, double start, double end, unsigned long long detail)
{
    pthread_mutex_lock(&lock);
    if (origin < 0)
        origin = start;
    if (!records)
        records = malloc(sizeof(record) * TL_MAX_RECORDS);
    if (records && nrecords < TL_MAX_RECORDS)
        records[nrecords++] = (record){(unsigned char)entry, start - origin, end - start, detail};
    pthread_mutex_unlock(&lock);
}

#define TIMED(entry, detail, call)                                                                 \
    do {                                                                                           \
        const double t0_ = now_us();                                                               \
        const cl_int r_ = (call);                                                                  \
        note((entry), t0_, now_us(), (unsigned long long)(detail));                                \
        return r_;                                                                                 \
    } while (0)

static cl_int CL_API_CALL w_SetKernelArg(cl_kernel k, cl_uint i, size_t size, const void *value)
{
    TIMED(TL_SET_ARG, i, next->clSetKernelArg(k, i, size, value));
}
static cl_int CL_API_CALL w_NDRange(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                                    const size_t *global, const size_t *local, cl_uint nw, const cl_event *w,
                                    cl_event *ev)
{
    TIMED(TL_LAUNCH, global ? global[0] : 0, next->clEnqueueNDRangeKernel(q, k, dim, off, global, local, nw, w, ev));
}
static cl_int CL_API_CALL w_Write(cl_command_queue q, cl_mem m, cl_bool block, size_t off, size_t size,
                                  const void *p, cl_uint nw, const cl_event *w, cl_event *ev)
{
    TIMED(TL_WRITE, size, next->clEnqueueWriteBuffer(q, m, block, off, size, p, nw, w, ev));
}
static cl_int CL_API_CALL w_Read(cl_command_queue q, cl_mem m, cl_bool block, size_t off, size_t size, void *p,
                                 cl_uint nw, const cl_event *w, cl_event *ev)
{
    TIMED(TL_READ, size, next->clEnqueueReadBuffer(q, m, block, off, size, p, nw, w, ev));
}
static cl_int CL_API_CALL w_Copy(cl_command_queue q, cl_mem a, cl_mem b, size_t ao, size_t bo, size_t size,
                                 cl_uint nw, const cl_event *w, cl_event *ev)
{
    TIMED(TL_COPY, size, next->clEnqueueCopyBuffer(q, a, b, ao, bo, size, nw, w, ev));
}
static cl_int CL_API_CALL w_Fill(cl_command_queue q, cl_mem m, const void *pat, size_t psize, size_t off,
                                 size_t size, cl_uint nw, const cl_event *w, cl_event *ev)
{
    TIMED(TL_FILL, size, next->clEnqueueFillBuffer(q, m, pat, psize, off, size, nw, w, ev));
}
static cl_int CL_API_CALL w_Wait(cl_uint n, const cl_event *evs) { TIMED(TL_WAIT, n, next->clWaitForEvents(n, evs)); }
static cl_int CL_API_CALL w_Finish(cl_command_queue q) { TIMED(TL_FINISH, 0, next->clFinish(q)); }
static cl_int CL_API_CALL w_Flush(cl_command_queue q) { TIMED(TL_FLUSH, 0, next->clFlush(q)); }
static cl_int CL_API_CALL w_MemInfo(cl_mem m, cl_mem_info what, size_t size, void *value, size_t *ret)
{
    TIMED(TL_MEM_INFO, what, next->clGetMemObjectInfo(m, what, size, value, ret));
}
static cl_int CL_API_CALL w_EventInfo(cl_event e, cl_event_info what, size_t size, void *value, size_t *ret)
{
    TIMED(TL_EVENT_INFO, what, next->clGetEventInfo(e, what, size, value, ret));
}
static cl_int CL_API_CALL w_ReleaseEvent(cl_event e) { TIMED(TL_RELEASE_EVENT, 0, next->clReleaseEvent(e)); }
static cl_int CL_API_CALL w_RetainEvent(cl_event e) { TIMED(TL_RETAIN_EVENT, 0, next->clRetainEvent(e)); }

static void write_records(void)
{
    const char *path = getenv("CLQSORT_TIME_LAYER_OUT");
    FILE *f = path && *path ? fopen(path, "w") : stderr;
    if (!f)
        return;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nrecords; i++)
        fprintf(f, "%s %.3f %.3f %llu\n", names[records[i].entry], records[i].start, records[i].duration,
                records[i].detail);
    pthread_mutex_unlock(&lock);
    if (f != stderr)
        fclose(f);
}

EXPORT CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const struct _cl_icd_dispatch *target,
                                                   cl_uint *num_entries_ret, const struct _cl_icd_dispatch **layer)
{
    const cl_uint entries = sizeof table / sizeof(void *);
    if (!target || !num_entries_ret || !layer || num_entries < entries)
        return CL_INVALID_VALUE;
    next = target;
    table = *target; /* what the layer does not time goes straight on */
    table.clSetKernelArg = w_SetKernelArg;
    table.clEnqueueNDRangeKernel = w_NDRange;
    table.clEnqueueWriteBuffer = w_Write;
    table.clEnqueueReadBuffer = w_Read;
    table.clEnqueueCopyBuffer = w_Copy;
    table.clEnqueueFillBuffer = w_Fill;
    table.clWaitForEvents = w_Wait;
    table.clFinish = w_Finish;
    table.clFlush = w_Flush;
    table.clGetMemObjectInfo = w_MemInfo;
    table.clGetEventInfo = w_EventInfo;
    table.clReleaseEvent = w_ReleaseEvent;
    table.clRetainEvent = w_RetainEvent;
    *num_entries_ret = entries;
    *layer = &table;
    atexit(write_records);
    return CL_SUCCESS;
}
