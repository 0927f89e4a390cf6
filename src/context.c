/* context.c - errors, device selection (options and CLQSORT_* environment), contexts. */
#include "clqsort_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char thread_error[8192];

/* ---- errors ---------------------------------------------------------------------------------- */

static clqsort_status record_error(clqsort_context *ctx, clqsort_status status, const char *fmt,
                                   va_list ap)
{
    char *buf = ctx ? ctx->error : thread_error;
    size_t size = ctx ? sizeof ctx->error : sizeof thread_error;
    int n = snprintf(buf, size, "%s: ", clqsort_status_string(status));
    if (n > 0 && (size_t)n < size)
        vsnprintf(buf + n, size - (size_t)n, fmt, ap);
    if (ctx)
        snprintf(thread_error, sizeof thread_error, "%s", ctx->error);
    return status;
}

clqsort_status clq_fail(clqsort_context *ctx, clqsort_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record_error(ctx, status, fmt, ap);
    va_end(ap);
    return status;
}

const char *clq_cl_error_name(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_BUILD_PROGRAM_FAILURE) E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM)
    E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES)
    E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BUILD_OPTIONS)
    E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME)
    E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef E
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
}

clqsort_status clq_fail_cl(clqsort_context *ctx, const char *call, cl_int err)
{
    clqsort_status s = CLQSORT_ERROR_OPENCL;
    if (err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
        err == CL_OUT_OF_RESOURCES || err == CL_INVALID_BUFFER_SIZE)
        s = CLQSORT_ERROR_OUT_OF_MEMORY;
    return clq_fail(ctx, s, "%s failed with %s (%d)", call, clq_cl_error_name(err), (int)err);
}

const char *clqsort_status_string(clqsort_status status)
{
    switch (status) {
    case CLQSORT_SUCCESS: return "success";
    case CLQSORT_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case CLQSORT_ERROR_NULL_CONTEXT: return "NULL clqsort context";
    case CLQSORT_ERROR_NULL_BUFFER: return "NULL buffer";
    case CLQSORT_ERROR_INVALID_BUFFER: return "invalid buffer";
    case CLQSORT_ERROR_WRONG_CONTEXT: return "buffer belongs to another OpenCL context";
    case CLQSORT_ERROR_BUFFER_ACCESS: return "buffer is not readable and writable by kernels";
    case CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER: return "count exceeds the buffer size";
    case CLQSORT_ERROR_COUNT_TOO_LARGE: return "count exceeds the supported maximum";
    case CLQSORT_ERROR_UNSUPPORTED_TYPE: return "unsupported key type";
    case CLQSORT_ERROR_INVALID_OPTION: return "invalid option";
    case CLQSORT_ERROR_NO_DEVICE: return "no matching OpenCL device";
    case CLQSORT_ERROR_PATH_UNSUPPORTED: return "execution path not supported by the device";
    case CLQSORT_ERROR_INVALID_QUEUE: return "invalid command queue";
    case CLQSORT_ERROR_BUILD: return "kernel build failed";
    case CLQSORT_ERROR_OUT_OF_MEMORY: return "out of memory";
    case CLQSORT_ERROR_OPENCL: return "OpenCL error";
    case CLQSORT_ERROR_INTERNAL: return "internal error";
    case CLQSORT_ERROR_OVERLAPPING_BUFFERS: return "keys and values overlap";
    }
    return "unknown status";
}

const char *clqsort_last_error(const clqsort_context *ctx)
{
    return ctx ? ctx->error : thread_error;
}

/* ---- device queries ---------------------------------------------------------------------- */

static char *device_string(cl_device_id dev, cl_device_info what)
{
    size_t size = 0;
    if (clGetDeviceInfo(dev, what, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return calloc(1, 1);
    char *s = calloc(1, size + 1);
    if (s && clGetDeviceInfo(dev, what, size, s, NULL) != CL_SUCCESS)
        s[0] = 0;
    return s;
}

static char *platform_string(cl_platform_id p, cl_platform_info what)
{
    size_t size = 0;
    if (clGetPlatformInfo(p, what, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return calloc(1, 1);
    char *s = calloc(1, size + 1);
    if (s && clGetPlatformInfo(p, what, size, s, NULL) != CL_SUCCESS)
        s[0] = 0;
    return s;
}

/* "OpenCL 2.1 foo" or "OpenCL C 2.0 foo" -> 21 / 20 */
static int parse_version(const char *s)
{
    const char *p = s;
    while (*p && !isdigit((unsigned char)*p))
        p++;
    int major = atoi(p), minor = 0;
    const char *dot = strchr(p, '.');
    if (dot)
        minor = atoi(dot + 1);
    return major * 10 + minor;
}

/* Device-side enqueue needs an on-device queue, work-group collectives and OpenCL C 2.0. */
static int probe_device_enqueue(clqsort_context *ctx)
{
    if (parse_version(ctx->device_version) < 20)
        return 0;
    if (parse_version(ctx->device_version) >= 30) {
        cl_device_device_enqueue_capabilities caps = 0;
        cl_bool collectives = CL_FALSE;
        if (clGetDeviceInfo(ctx->device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof caps, &caps, NULL) !=
                CL_SUCCESS || !(caps & CL_DEVICE_QUEUE_SUPPORTED))
            return 0;
        if (clGetDeviceInfo(ctx->device, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, sizeof collectives,
                            &collectives, NULL) != CL_SUCCESS || !collectives)
            return 0;
        /* OpenCL C 2.0 must be among the supported C versions; 3.0 devices list them all */
        size_t size = 0;
        if (clGetDeviceInfo(ctx->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &size) != CL_SUCCESS ||
            size == 0)
            return parse_version(ctx->device_c_version) >= 20;
        cl_name_version *v = malloc(size);
        int found = 0;
        if (v && clGetDeviceInfo(ctx->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, v, NULL) == CL_SUCCESS)
            for (size_t i = 0; i < size / sizeof *v; i++)
                if (CL_VERSION_MAJOR(v[i].version) == 2)
                    found = 1;
        free(v);
        return found;
    }
    cl_command_queue_properties props = 0; /* OpenCL 2.x */
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, sizeof props, &props, NULL) != CL_SUCCESS)
        return 0;
    return props != 0 && parse_version(ctx->device_c_version) >= 20;
}

static clqsort_status query_device(clqsort_context *ctx)
{
    cl_int err = clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof ctx->platform, &ctx->platform, NULL);
    if (err != CL_SUCCESS)
        return clq_fail_cl(ctx, "clGetDeviceInfo(CL_DEVICE_PLATFORM)", err);
    ctx->platform_name = platform_string(ctx->platform, CL_PLATFORM_NAME);
    ctx->platform_vendor = platform_string(ctx->platform, CL_PLATFORM_VENDOR);
    ctx->device_name = device_string(ctx->device, CL_DEVICE_NAME);
    ctx->device_version = device_string(ctx->device, CL_DEVICE_VERSION);
    ctx->device_c_version = device_string(ctx->device, CL_DEVICE_OPENCL_C_VERSION);
    char *ext = device_string(ctx->device, CL_DEVICE_EXTENSIONS);
    if (!ctx->platform_name || !ctx->platform_vendor || !ctx->device_name || !ctx->device_version ||
        !ctx->device_c_version || !ext) {
        free(ext);
        return clq_fail(ctx, CLQSORT_ERROR_OUT_OF_MEMORY, "device query strings");
    }
    ctx->has_int64_atomics = strstr(ext, "cl_khr_int64_base_atomics") &&
                             strstr(ext, "cl_khr_int64_extended_atomics");
    free(ext);
    clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof ctx->device_type, &ctx->device_type, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof ctx->compute_units, &ctx->compute_units, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof ctx->max_work_group_size,
                    &ctx->max_work_group_size, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ctx->local_mem_size, &ctx->local_mem_size, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ctx->max_alloc_size, &ctx->max_alloc_size, NULL);
    if (ctx->compute_units == 0)
        ctx->compute_units = 1;
    ctx->device_enqueue_supported = probe_device_enqueue(ctx);
    return CLQSORT_SUCCESS;
}

/* ---- selection --------------------------------------------------------------------------- */

typedef struct selection {
    clqsort_device_type type;
    char vendor[256];
    int index;
    clqsort_path path;
} selection;

static int equals_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

static clqsort_status parse_path(const char *s, clqsort_path *out)
{
    if (equals_nocase(s, "auto"))
        *out = CLQSORT_PATH_AUTO;
    else if (equals_nocase(s, "host-loop"))
        *out = CLQSORT_PATH_HOST_LOOP;
    else if (equals_nocase(s, "device-enqueue"))
        *out = CLQSORT_PATH_DEVICE_ENQUEUE;
    else
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_OPTION,
                        "CLQSORT_PATH=\"%s\": expected auto, host-loop or device-enqueue", s);
    return CLQSORT_SUCCESS;
}

/* The execution path: the option, else CLQSORT_PATH, else auto. */
static clqsort_status resolve_path(const clqsort_options *o, clqsort_path *path)
{
    *path = o->path;
    if (*path < CLQSORT_PATH_DEFAULT || *path > CLQSORT_PATH_DEVICE_ENQUEUE)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_OPTION, "path %d is not a clqsort_path", (int)*path);
    const char *env;
    if (*path == CLQSORT_PATH_DEFAULT) {
        *path = CLQSORT_PATH_AUTO;
        if ((env = getenv("CLQSORT_PATH")) && *env)
            return parse_path(env, path);
    }
    return CLQSORT_SUCCESS;
}

/* Options first, then the environment, then defaults. */
static clqsort_status resolve_selection(const clqsort_options *o, selection *sel)
{
    clqsort_options defaults;
    clqsort_options_init(&defaults);
    if (!o)
        o = &defaults;
    const char *env;

    sel->type = o->device_type;
    if (sel->type < CLQSORT_DEVICE_DEFAULT || sel->type > CLQSORT_DEVICE_ALL)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_OPTION, "device_type %d is not a clqsort_device_type",
                        (int)sel->type);
    if (sel->type == CLQSORT_DEVICE_DEFAULT && (env = getenv("CLQSORT_DEVICE")) && *env) {
        if (equals_nocase(env, "cpu"))
            sel->type = CLQSORT_DEVICE_CPU;
        else if (equals_nocase(env, "gpu"))
            sel->type = CLQSORT_DEVICE_GPU;
        else if (equals_nocase(env, "accelerator"))
            sel->type = CLQSORT_DEVICE_ACCELERATOR;
        else if (equals_nocase(env, "all"))
            sel->type = CLQSORT_DEVICE_ALL;
        else
            return clq_fail(NULL, CLQSORT_ERROR_INVALID_OPTION,
                            "CLQSORT_DEVICE=\"%s\": expected cpu, gpu, accelerator or all", env);
    }

    const char *vendor = o->vendor ? o->vendor : getenv("CLQSORT_VENDOR");
    snprintf(sel->vendor, sizeof sel->vendor, "%s", vendor ? vendor : "");

    sel->index = o->device_index;
    if (sel->index < 0 && (env = getenv("CLQSORT_DEVICE_INDEX")) && *env) {
        char *end;
        errno = 0;
        long v = strtol(env, &end, 10);
        if (errno || *end || v < 0 || v > 1000000)
            return clq_fail(NULL, CLQSORT_ERROR_INVALID_OPTION,
                            "CLQSORT_DEVICE_INDEX=\"%s\": expected a non-negative integer", env);
        sel->index = (int)v;
    }
    if (sel->index < 0)
        sel->index = 0;

    return resolve_path(o, &sel->path);
}

static cl_device_type cl_type_of(clqsort_device_type t)
{
    switch (t) {
    case CLQSORT_DEVICE_CPU: return CL_DEVICE_TYPE_CPU;
    case CLQSORT_DEVICE_GPU: return CL_DEVICE_TYPE_GPU;
    case CLQSORT_DEVICE_ACCELERATOR: return CL_DEVICE_TYPE_ACCELERATOR;
    default: return CL_DEVICE_TYPE_ALL;
    }
}

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (t & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

/* Appends "platform ... device ..." lines for every device that exists to buf. */
static void list_devices(char *buf, size_t size, cl_platform_id *platforms, cl_uint np)
{
    size_t used = strlen(buf);
    if (np == 0)
        snprintf(buf + used, size - used, " No OpenCL platform is installed (is an ICD registered?).");
    for (cl_uint p = 0; p < np; p++) {
        char *name = platform_string(platforms[p], CL_PLATFORM_NAME);
        char *vendor = platform_string(platforms[p], CL_PLATFORM_VENDOR);
        used = strlen(buf);
        snprintf(buf + used, size - used, " Platform %u \"%s\" (vendor \"%s\"):", p, name ? name : "",
                 vendor ? vendor : "");
        free(name);
        free(vendor);
        cl_uint nd = 0;
        cl_device_id devs[64];
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS)
            nd = 0;
        for (cl_uint d = 0; d < nd && d < 64; d++) {
            char *dn = device_string(devs[d], CL_DEVICE_NAME);
            cl_device_type t = 0;
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof t, &t, NULL);
            used = strlen(buf);
            snprintf(buf + used, size - used, " [%s] \"%s\";", type_name(t), dn ? dn : "");
            free(dn);
        }
    }
}

static clqsort_status select_device(const selection *sel, cl_device_id *out)
{
    cl_uint np = 0;
    cl_platform_id platforms[32];
    cl_int err = clGetPlatformIDs(32, platforms, &np);
    if (err != CL_SUCCESS && err != -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)
        return clq_fail_cl(NULL, "clGetPlatformIDs", err);
    if (err != CL_SUCCESS)
        np = 0;
    if (np > 32)
        np = 32;

    /* Default type: GPUs first; if none match, any device. */
    const int passes = sel->type == CLQSORT_DEVICE_DEFAULT ? 2 : 1;
    for (int pass = 0; pass < passes; pass++) {
        cl_device_type want = sel->type == CLQSORT_DEVICE_DEFAULT
                                  ? (pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL)
                                  : cl_type_of(sel->type);
        int seen = 0;
        for (cl_uint p = 0; p < np; p++) {
            char *name = platform_string(platforms[p], CL_PLATFORM_NAME);
            char *vendor = platform_string(platforms[p], CL_PLATFORM_VENDOR);
            int match = name && vendor && (contains_nocase(name, sel->vendor) || contains_nocase(vendor, sel->vendor));
            free(name);
            free(vendor);
            if (!match)
                continue;
            cl_uint nd = 0;
            cl_device_id devs[64];
            if (clGetDeviceIDs(platforms[p], want, 64, devs, &nd) != CL_SUCCESS)
                continue;
            for (cl_uint d = 0; d < nd && d < 64; d++, seen++)
                if (seen == sel->index) {
                    *out = devs[d];
                    return CLQSORT_SUCCESS;
                }
        }
    }

    static const char *type_names[] = {"default (first GPU, else first device)", "cpu", "gpu", "accelerator", "all"};
    clqsort_status s = clq_fail(NULL, CLQSORT_ERROR_NO_DEVICE,
                                "no OpenCL device matches type=%s vendor=\"%s\" index=%d.",
                                type_names[sel->type], sel->vendor, sel->index);
    list_devices(thread_error, sizeof thread_error, platforms, np);
    return s;
}

/* ---- contexts ---------------------------------------------------------------------------- */

void clqsort_options_init(clqsort_options *options)
{
    if (!options)
        return;
    options->device_type = CLQSORT_DEVICE_DEFAULT;
    options->vendor = NULL;
    options->device_index = -1;
    options->path = CLQSORT_PATH_DEFAULT;
}

/* The on-device default queue that device-side launches go to. The chain of launches holds
 * at most two kernels at a time, so a small queue is enough: the device's preferred size,
 * capped at 1 MiB and at its maximum. */
static clqsort_status create_device_queue(clqsort_context *ctx)
{
    cl_uint preferred = 0, max = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, sizeof preferred, &preferred, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, sizeof max, &max, NULL);
    cl_uint size = preferred ? preferred : 65536u;
    if (size > (1u << 20))
        size = 1u << 20;
    if (max && size > max)
        size = max;
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                   CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE |
                                       CL_QUEUE_ON_DEVICE_DEFAULT,
                                   CL_QUEUE_SIZE, size, 0};
    cl_int err;
    ctx->device_queue = clCreateCommandQueueWithProperties(ctx->context, ctx->device, props, &err);
    if (!ctx->device_queue)
        return clq_fail(ctx, CLQSORT_ERROR_PATH_UNSUPPORTED,
                        "creating the on-device default queue (%u bytes) for the device-enqueue path failed "
                        "with %s (%d)",
                        size, clq_cl_error_name(err), (int)err);
    return CLQSORT_SUCCESS;
}

/* Settles the execution path once the device is known: device-side enqueue where the device
 * has it (or where it is asked for), else the host loop. */
static clqsort_status choose_path(clqsort_context *ctx, clqsort_path wanted)
{
    if (wanted == CLQSORT_PATH_DEVICE_ENQUEUE && !ctx->device_enqueue_supported)
        return clq_fail(ctx, CLQSORT_ERROR_PATH_UNSUPPORTED,
                        "the device-enqueue path was requested, but \"%s\" (%s, %s) lacks device-side "
                        "enqueue, work-group collective functions or OpenCL C 2.0",
                        ctx->device_name, ctx->device_version, ctx->device_c_version);
    if (wanted == CLQSORT_PATH_HOST_LOOP || !ctx->device_enqueue_supported) {
        ctx->path = CLQSORT_PATH_HOST_LOOP;
        return CLQSORT_SUCCESS;
    }
    ctx->path = CLQSORT_PATH_DEVICE_ENQUEUE;
    return create_device_queue(ctx);
}

static clqsort_status finish_create(clqsort_context *ctx, clqsort_path wanted, clqsort_context **out)
{
    clqsort_status s = query_device(ctx);
    if (s == CLQSORT_SUCCESS)
        s = choose_path(ctx, wanted);
    if (s != CLQSORT_SUCCESS) {
        snprintf(thread_error, sizeof thread_error, "%s", ctx->error);
        clqsort_release(ctx);
        return s;
    }
    const char *profile = getenv("CLQSORT_PROFILE");
    ctx->profile = profile && *profile && *profile != '0';
    *out = ctx;
    return CLQSORT_SUCCESS;
}

clqsort_status clqsort_create(clqsort_context **out, const clqsort_options *options)
{
    if (!out)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_ARGUMENT, "clqsort_create: ctx is NULL");
    *out = NULL;
    selection sel;
    clqsort_status s = resolve_selection(options, &sel);
    if (s != CLQSORT_SUCCESS)
        return s;
    cl_device_id dev;
    if ((s = select_device(&sel, &dev)) != CLQSORT_SUCCESS)
        return s;

    clqsort_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return clq_fail(NULL, CLQSORT_ERROR_OUT_OF_MEMORY, "context object");
    ctx->device = dev;
    cl_int err;
    ctx->context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (!ctx->context) {
        s = clq_fail_cl(NULL, "clCreateContext", err);
        clqsort_release(ctx);
        return s;
    }
    /* Profiling lets programs time the sort with events on this queue; it costs nothing here. */
#if CL_TARGET_OPENCL_VERSION >= 200
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    ctx->queue = clCreateCommandQueueWithProperties(ctx->context, dev, props, &err);
    if (!ctx->queue && err == CL_INVALID_OPERATION) /* 1.2 platform behind a newer loader */
#endif
    {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        ctx->queue = clCreateCommandQueue(ctx->context, dev, CL_QUEUE_PROFILING_ENABLE, &err);
#pragma GCC diagnostic pop
    }
    if (!ctx->queue) {
        s = clq_fail_cl(NULL, "clCreateCommandQueue", err);
        clqsort_release(ctx);
        return s;
    }
    return finish_create(ctx, sel.path, out);
}

clqsort_status clqsort_create_with_queue(clqsort_context **out, cl_command_queue queue,
                                         const clqsort_options *options)
{
    if (!out)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_ARGUMENT, "clqsort_create_with_queue: ctx is NULL");
    *out = NULL;
    if (!queue)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_QUEUE, "the queue is NULL");
    /* the queue fixes the device: only the path is chosen (CLQSORT_DEVICE and the others are
     * not read) */
    clqsort_options only_path;
    clqsort_options_init(&only_path);
    if (options)
        only_path.path = options->path;
    clqsort_path path;
    clqsort_status s = resolve_path(&only_path, &path);
    if (s != CLQSORT_SUCCESS)
        return s;

    cl_command_queue_properties props = 0;
    cl_context context;
    cl_device_id dev;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    if (err != CL_SUCCESS)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_QUEUE, "clGetCommandQueueInfo failed with %s (%d)",
                        clq_cl_error_name(err), (int)err);
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_QUEUE,
                        "the queue is out-of-order; clqsort needs an in-order queue");

    clqsort_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return clq_fail(NULL, CLQSORT_ERROR_OUT_OF_MEMORY, "context object");
    clRetainCommandQueue(queue);
    clRetainContext(context);
    ctx->queue = queue;
    ctx->context = context;
    ctx->device = dev;
    return finish_create(ctx, path, out);
}

void clqsort_release(clqsort_context *ctx)
{
    if (!ctx)
        return;
    clq_release_programs(ctx);
    if (ctx->scratch)
        clReleaseMemObject(ctx->scratch);
    if (ctx->scratch_values)
        clReleaseMemObject(ctx->scratch_values);
    if (ctx->lists)
        clReleaseMemObject(ctx->lists);
    if (ctx->pool)
        clReleaseMemObject(ctx->pool);
    if (ctx->leaves)
        clReleaseMemObject(ctx->leaves);
    if (ctx->status)
        clReleaseMemObject(ctx->status);
    if (ctx->host_keys)
        clReleaseMemObject(ctx->host_keys);
    if (ctx->device_queue)
        clReleaseCommandQueue(ctx->device_queue);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->context)
        clReleaseContext(ctx->context);
    free(ctx->platform_name);
    free(ctx->platform_vendor);
    free(ctx->device_name);
    free(ctx->device_version);
    free(ctx->device_c_version);
    free(ctx);
}

clqsort_status clqsort_get_info(const clqsort_context *ctx, clqsort_info *info)
{
    if (!ctx)
        return clq_fail(NULL, CLQSORT_ERROR_NULL_CONTEXT, "clqsort_get_info: ctx is NULL");
    if (!info)
        return clq_fail((clqsort_context *)ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "clqsort_get_info: info is NULL");
    memset(info, 0, sizeof *info);
    info->platform_name = ctx->platform_name;
    info->platform_vendor = ctx->platform_vendor;
    info->device_name = ctx->device_name;
    info->device_version = ctx->device_version;
    info->device_c_version = ctx->device_c_version;
    info->device_type = ctx->device_type;
    info->path = ctx->path;
    info->device_enqueue_supported = ctx->device_enqueue_supported;
    info->compute_units = ctx->compute_units;
    info->max_work_group_size = ctx->max_work_group_size;
    info->local_mem_size = ctx->local_mem_size;
    clq_tuning t, table;
    clq_tuning_for_device(ctx, 4, &table);
    t = table;
    /* a bad CLQSORT_TUNING: the table's shape is reported, with the error the sorts will give */
    const clqsort_status s = clq_tuning_from_env((clqsort_context *)ctx, 4, &t);
    if (s != CLQSORT_SUCCESS)
        t = table;
    info->gqsort_work_group = t.gq_wg;
    info->gqsort_keys_per_item = t.gq_k;
    info->lqsort_work_group = t.lq_wg;
    info->gqsort_ways = t.gq_ways;
    info->lqsort_ways = t.lq_ways;
    info->lqsort_max = t.lq_max;
    info->lqsort_small = t.lq_small;
    return s;
}

clqsort_status clqsort_get_stats(const clqsort_context *ctx, clqsort_stats *stats)
{
    if (!ctx)
        return clq_fail(NULL, CLQSORT_ERROR_NULL_CONTEXT, "clqsort_get_stats: ctx is NULL");
    if (!stats)
        return clq_fail((clqsort_context *)ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "clqsort_get_stats: stats is NULL");
    *stats = ctx->last_stats;
    return CLQSORT_SUCCESS;
}

cl_context clqsort_cl_context(const clqsort_context *ctx) { return ctx ? ctx->context : NULL; }
cl_device_id clqsort_cl_device(const clqsort_context *ctx) { return ctx ? ctx->device : NULL; }
cl_command_queue clqsort_cl_queue(const clqsort_context *ctx) { return ctx ? ctx->queue : NULL; }
