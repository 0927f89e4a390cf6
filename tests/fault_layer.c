/* fault_layer.c - an OpenCL layer for the tests: counts the calls of the entry points clqsort
 * uses, fails a chosen one on demand, and counts the objects alive (see fault_layer.h).
 *
 * ocl-icd 2.3 loads the files named in OPENCL_LAYERS, asks each for its dispatch table through
 * clInitLayer, and routes every call through the first layer's table; each entry here either
 * fails or forwards to the next table. Entry points the layer does not list are forwarded
 * untouched (tests/check_cl_calls.sh checks that every call in src/ is listed). */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl_layer.h>

#include "cl_layer_info.h"

#include "fault_layer.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Every entry point the layer intercepts. */
#define FL_ENTRIES(X)                                                                              \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) X(clCreateContext) \
    X(clRetainContext) X(clReleaseContext) X(clCreateCommandQueue) X(clCreateCommandQueueWithProperties) \
    X(clGetCommandQueueInfo) X(clRetainCommandQueue) X(clReleaseCommandQueue) X(clCreateBuffer)     \
    X(clCreateSubBuffer) X(clRetainMemObject) X(clReleaseMemObject) X(clGetMemObjectInfo)           \
    X(clCreateProgramWithSource) X(clCreateProgramWithBinary) X(clBuildProgram)                    \
    X(clGetProgramBuildInfo) X(clGetProgramInfo) X(clReleaseProgram)                               \
    X(clCreateKernel) X(clGetKernelWorkGroupInfo) X(clSetKernelArg) X(clReleaseKernel)              \
    X(clEnqueueReadBuffer) X(clEnqueueWriteBuffer) X(clEnqueueFillBuffer) X(clEnqueueCopyBuffer)    \
    X(clEnqueueNDRangeKernel) X(clFinish) X(clGetEventProfilingInfo) X(clReleaseEvent)             \
    X(clRetainEvent) X(clWaitForEvents) X(clEnqueueMarkerWithWaitList) X(clEnqueueMapBuffer)        \
    X(clEnqueueUnmapMemObject)

#define FL_ENUM(name) FL_##name,
enum { FL_ENTRIES(FL_ENUM) FL_COUNT };
#define FL_NAME(name) #name,
static const char *const entry_names[FL_COUNT] = {FL_ENTRIES(FL_NAME)};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const struct _cl_icd_dispatch *next;
static struct _cl_icd_dispatch table;
static int active, armed, fired;
static int target = -1;
static unsigned target_n, seen[FL_COUNT];
static cl_int target_error;
static unsigned char *trace; /* entry indices since fl_arm */
static size_t trace_len, trace_cap;

/* Objects and their counts: made and retained, minus released. */
typedef struct tracked {
    void *object;
    long count;
} tracked;
static tracked *objects;
static size_t nobjects, objects_cap;

/* Counts a call of `entry`; 1 (with the error) if this call is the one to fail. */
static int fire(int entry, cl_int *error)
{
    int hit = 0;
    pthread_mutex_lock(&lock);
    if (armed) {
        if (trace_len == trace_cap) {
            size_t cap = trace_cap ? 2 * trace_cap : 4096;
            unsigned char *t = realloc(trace, cap);
            if (t)
                trace = t, trace_cap = cap;
        }
        if (trace_len < trace_cap)
            trace[trace_len++] = (unsigned char)entry;
        if (++seen[entry] == target_n && entry == target && !fired) {
            fired = 1;
            hit = 1;
            *error = target_error;
        }
    }
    pthread_mutex_unlock(&lock);
    return hit;
}

static void count_object(void *object, long delta)
{
    if (!object)
        return;
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < nobjects && objects[i].object != object)
        i++;
    if (i == nobjects && delta > 0) {
        if (nobjects == objects_cap) {
            size_t cap = objects_cap ? 2 * objects_cap : 1024;
            tracked *o = realloc(objects, cap * sizeof *o);
            if (o)
                objects = o, objects_cap = cap;
        }
        if (nobjects < objects_cap)
            objects[nobjects++] = (tracked){object, 0};
    }
    if (i < nobjects) {
        objects[i].count += delta;
        if (objects[i].count <= 0) /* gone (a handle can come back for a new object) */
            objects[i] = objects[--nobjects];
    }
    pthread_mutex_unlock(&lock);
}

/* ---- the entry points ------------------------------------------------------------------ */

#define FAIL_OR_GO(entry)                                                                          \
    do {                                                                                           \
        cl_int fail_;                                                                              \
        if (fire(FL_##entry, &fail_))                                                              \
            return fail_;                                                                          \
    } while (0)
#define FAIL_CREATE_OR_GO(entry, errcode_ret)                                                      \
    do {                                                                                           \
        cl_int fail_;                                                                              \
        if (fire(FL_##entry, &fail_)) {                                                            \
            if (errcode_ret)                                                                       \
                *(errcode_ret) = fail_;                                                            \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)
/* a failed release still releases: the library has no second chance, and the test must not leak */
#define RELEASE_ENTRY(entry, type)                                                                 \
    static cl_int CL_API_CALL w_##entry(type object)                                               \
    {                                                                                              \
        cl_int fail_ = CL_SUCCESS;                                                                 \
        const int hit = fire(FL_##entry, &fail_);                                                  \
        const cl_int err = next->entry(object);                                                    \
        if (err == CL_SUCCESS)                                                                     \
            count_object(object, -1);                                                              \
        return hit ? fail_ : err;                                                                  \
    }
#define RETAIN_ENTRY(entry, type)                                                                  \
    static cl_int CL_API_CALL w_##entry(type object)                                               \
    {                                                                                              \
        FAIL_OR_GO(entry);                                                                         \
        const cl_int err = next->entry(object);                                                    \
        if (err == CL_SUCCESS)                                                                     \
            count_object(object, 1);                                                               \
        return err;                                                                                \
    }
#define INFO_ENTRY(entry, type, info_type)                                                         \
    static cl_int CL_API_CALL w_##entry(type object, info_type name, size_t size, void *value, size_t *size_ret) \
    {                                                                                              \
        FAIL_OR_GO(entry);                                                                         \
        return next->entry(object, name, size, value, size_ret);                                   \
    }
/* the event an enqueue returns is an object too */
#define MADE_EVENT(err, event)                                                                     \
    do {                                                                                           \
        if ((err) == CL_SUCCESS && (event))                                                        \
            count_object(*(event), 1);                                                             \
    } while (0)

static cl_int CL_API_CALL w_clGetPlatformIDs(cl_uint n, cl_platform_id *platforms, cl_uint *np)
{
    FAIL_OR_GO(clGetPlatformIDs);
    return next->clGetPlatformIDs(n, platforms, np);
}
INFO_ENTRY(clGetPlatformInfo, cl_platform_id, cl_platform_info)
static cl_int CL_API_CALL w_clGetDeviceIDs(cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d, cl_uint *nd)
{
    FAIL_OR_GO(clGetDeviceIDs);
    return next->clGetDeviceIDs(p, t, n, d, nd);
}
INFO_ENTRY(clGetDeviceInfo, cl_device_id, cl_device_info)
static cl_context CL_API_CALL w_clCreateContext(const cl_context_properties *props, cl_uint n, const cl_device_id *devs,
                                                void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                                                void *user, cl_int *err)
{
    FAIL_CREATE_OR_GO(clCreateContext, err);
    cl_context c = next->clCreateContext(props, n, devs, notify, user, err);
    count_object(c, 1);
    return c;
}
RETAIN_ENTRY(clRetainContext, cl_context)
RELEASE_ENTRY(clReleaseContext, cl_context)
static cl_command_queue CL_API_CALL w_clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties p,
                                                           cl_int *err)
{
    FAIL_CREATE_OR_GO(clCreateCommandQueue, err);
    cl_command_queue q = next->clCreateCommandQueue(c, d, p, err);
    count_object(q, 1);
    return q;
}
static cl_command_queue CL_API_CALL w_clCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                                         const cl_queue_properties *p, cl_int *err)
{
    FAIL_CREATE_OR_GO(clCreateCommandQueueWithProperties, err);
    cl_command_queue q = next->clCreateCommandQueueWithProperties(c, d, p, err);
    count_object(q, 1);
    return q;
}
INFO_ENTRY(clGetCommandQueueInfo, cl_command_queue, cl_command_queue_info)
RETAIN_ENTRY(clRetainCommandQueue, cl_command_queue)
RELEASE_ENTRY(clReleaseCommandQueue, cl_command_queue)
static cl_mem CL_API_CALL w_clCreateBuffer(cl_context c, cl_mem_flags f, size_t size, void *host, cl_int *err)
{
    FAIL_CREATE_OR_GO(clCreateBuffer, err);
    cl_mem m = next->clCreateBuffer(c, f, size, host, err);
    count_object(m, 1);
    return m;
}
static cl_mem CL_API_CALL w_clCreateSubBuffer(cl_mem b, cl_mem_flags f, cl_buffer_create_type t, const void *info,
                                              cl_int *err)
{
    FAIL_CREATE_OR_GO(clCreateSubBuffer, err);
    cl_mem m = next->clCreateSubBuffer(b, f, t, info, err);
    count_object(m, 1);
    return m;
}
RETAIN_ENTRY(clRetainMemObject, cl_mem)
RELEASE_ENTRY(clReleaseMemObject, cl_mem)
INFO_ENTRY(clGetMemObjectInfo, cl_mem, cl_mem_info)
static cl_program CL_API_CALL w_clCreateProgramWithSource(cl_context c, cl_uint n, const char **src, const size_t *len,
                                                          cl_int *err)
{
    FAIL_CREATE_OR_GO(clCreateProgramWithSource, err);
    cl_program p = next->clCreateProgramWithSource(c, n, src, len, err);
    count_object(p, 1);
    return p;
}
static cl_program CL_API_CALL w_clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d,
                                                          const size_t *len, const unsigned char **bin,
                                                          cl_int *status, cl_int *err)
{
    FAIL_CREATE_OR_GO(clCreateProgramWithBinary, err);
    cl_program p = next->clCreateProgramWithBinary(c, n, d, len, bin, status, err);
    count_object(p, 1);
    return p;
}
INFO_ENTRY(clGetProgramInfo, cl_program, cl_program_info)
static cl_int CL_API_CALL w_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *options,
                                          void(CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    FAIL_OR_GO(clBuildProgram);
    return next->clBuildProgram(p, n, d, options, notify, user);
}
static cl_int CL_API_CALL w_clGetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info name, size_t size,
                                                  void *value, size_t *size_ret)
{
    FAIL_OR_GO(clGetProgramBuildInfo);
    return next->clGetProgramBuildInfo(p, d, name, size, value, size_ret);
}
RELEASE_ENTRY(clReleaseProgram, cl_program)
static cl_kernel CL_API_CALL w_clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    FAIL_CREATE_OR_GO(clCreateKernel, err);
    cl_kernel k = next->clCreateKernel(p, name, err);
    count_object(k, 1);
    return k;
}
static cl_int CL_API_CALL w_clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_work_group_info name,
                                                     size_t size, void *value, size_t *size_ret)
{
    FAIL_OR_GO(clGetKernelWorkGroupInfo);
    return next->clGetKernelWorkGroupInfo(k, d, name, size, value, size_ret);
}
static cl_int CL_API_CALL w_clSetKernelArg(cl_kernel k, cl_uint i, size_t size, const void *value)
{
    FAIL_OR_GO(clSetKernelArg);
    return next->clSetKernelArg(k, i, size, value);
}
RELEASE_ENTRY(clReleaseKernel, cl_kernel)
static cl_int CL_API_CALL w_clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t offset,
                                                size_t size, void *ptr, cl_uint nw, const cl_event *wait, cl_event *ev)
{
    FAIL_OR_GO(clEnqueueReadBuffer);
    const cl_int err = next->clEnqueueReadBuffer(q, b, blocking, offset, size, ptr, nw, wait, ev);
    MADE_EVENT(err, ev);
    return err;
}
static cl_int CL_API_CALL w_clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t offset,
                                                 size_t size, const void *ptr, cl_uint nw, const cl_event *wait,
                                                 cl_event *ev)
{
    FAIL_OR_GO(clEnqueueWriteBuffer);
    const cl_int err = next->clEnqueueWriteBuffer(q, b, blocking, offset, size, ptr, nw, wait, ev);
    MADE_EVENT(err, ev);
    return err;
}
static void *CL_API_CALL w_clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags flags,
                                              size_t offset, size_t size, cl_uint nw, const cl_event *wait,
                                              cl_event *ev, cl_int *err)
{
    FAIL_CREATE_OR_GO(clEnqueueMapBuffer, err);
    void *p = next->clEnqueueMapBuffer(q, b, blocking, flags, offset, size, nw, wait, ev, err);
    MADE_EVENT(p ? CL_SUCCESS : CL_INVALID_VALUE, ev);
    return p;
}
/* a failed unmap still unmaps, as a failed release still releases: the library unmaps only
 * before it releases the buffer, and a runtime may keep a mapped buffer alive (pocl does) */
static cl_int CL_API_CALL w_clEnqueueUnmapMemObject(cl_command_queue q, cl_mem b, void *ptr, cl_uint nw,
                                                   const cl_event *wait, cl_event *ev)
{
    cl_int fail_ = CL_SUCCESS;
    const int hit = fire(FL_clEnqueueUnmapMemObject, &fail_);
    const cl_int err = next->clEnqueueUnmapMemObject(q, b, ptr, nw, wait, hit ? NULL : ev);
    if (!hit)
        MADE_EVENT(err, ev);
    return hit ? fail_ : err;
}
static cl_int CL_API_CALL w_clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void *pattern, size_t psize,
                                                size_t offset, size_t size, cl_uint nw, const cl_event *wait,
                                                cl_event *ev)
{
    FAIL_OR_GO(clEnqueueFillBuffer);
    const cl_int err = next->clEnqueueFillBuffer(q, b, pattern, psize, offset, size, nw, wait, ev);
    MADE_EVENT(err, ev);
    return err;
}
static cl_int CL_API_CALL w_clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t so, size_t doff,
                                                size_t size, cl_uint nw, const cl_event *wait, cl_event *ev)
{
    FAIL_OR_GO(clEnqueueCopyBuffer);
    const cl_int err = next->clEnqueueCopyBuffer(q, src, dst, so, doff, size, nw, wait, ev);
    MADE_EVENT(err, ev);
    return err;
}
static cl_int CL_API_CALL w_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset,
                                                   const size_t *global, const size_t *local, cl_uint nw,
                                                   const cl_event *wait, cl_event *ev)
{
    FAIL_OR_GO(clEnqueueNDRangeKernel);
    const cl_int err = next->clEnqueueNDRangeKernel(q, k, dim, offset, global, local, nw, wait, ev);
    MADE_EVENT(err, ev);
    return err;
}
static cl_int CL_API_CALL w_clFinish(cl_command_queue q)
{
    FAIL_OR_GO(clFinish);
    return next->clFinish(q);
}
INFO_ENTRY(clGetEventProfilingInfo, cl_event, cl_profiling_info)
RELEASE_ENTRY(clReleaseEvent, cl_event)
RETAIN_ENTRY(clRetainEvent, cl_event)
static cl_int CL_API_CALL w_clWaitForEvents(cl_uint n, const cl_event *events)
{
    FAIL_OR_GO(clWaitForEvents);
    return next->clWaitForEvents(n, events);
}
static cl_int CL_API_CALL w_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint nw, const cl_event *wait,
                                                        cl_event *ev)
{
    FAIL_OR_GO(clEnqueueMarkerWithWaitList);
    const cl_int err = next->clEnqueueMarkerWithWaitList(q, nw, wait, ev);
    MADE_EVENT(err, ev);
    return err;
}

/* ---- the layer's interface to the ICD loader ------------------------------------------------ */

EXPORT CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const struct _cl_icd_dispatch *target,
                                                   cl_uint *num_entries_ret, const struct _cl_icd_dispatch **layer)
{
    const cl_uint entries = sizeof table / sizeof(void *);
    if (!target || !num_entries_ret || !layer || num_entries < entries)
        return CL_INVALID_VALUE;
    next = target;
    table = *target; /* what the layer does not intercept goes straight on */
#define FL_HOOK(name) table.name = w_##name;
    FL_ENTRIES(FL_HOOK)
    *num_entries_ret = entries;
    *layer = &table;
    active = 1;
    return CL_SUCCESS;
}

/* ---- steering ------------------------------------------------------------------------------- */

static int entry_index(const char *entry)
{
    for (int i = 0; i < FL_COUNT; i++)
        if (!strcmp(entry_names[i], entry))
            return i;
    return -1;
}

int fl_active(void) { return active; }
int fl_knows(const char *entry) { return entry_index(entry) >= 0; }

void fl_arm(const char *entry, unsigned n, cl_int error)
{
    pthread_mutex_lock(&lock);
    armed = 1;
    fired = 0;
    target = entry ? entry_index(entry) : -1;
    target_n = n;
    target_error = error;
    memset(seen, 0, sizeof seen);
    trace_len = 0;
    pthread_mutex_unlock(&lock);
}

void fl_disarm(void)
{
    pthread_mutex_lock(&lock);
    armed = 0;
    pthread_mutex_unlock(&lock);
}

int fl_fired(void)
{
    pthread_mutex_lock(&lock);
    const int f = fired;
    pthread_mutex_unlock(&lock);
    return f;
}

size_t fl_trace_length(void)
{
    pthread_mutex_lock(&lock);
    const size_t n = trace_len;
    pthread_mutex_unlock(&lock);
    return n;
}

const char *fl_trace_at(size_t i)
{
    pthread_mutex_lock(&lock);
    const char *name = i < trace_len ? entry_names[trace[i]] : NULL;
    pthread_mutex_unlock(&lock);
    return name;
}

long fl_live_objects(void)
{
    pthread_mutex_lock(&lock);
    long live = (long)nobjects;
    pthread_mutex_unlock(&lock);
    return live;
}
