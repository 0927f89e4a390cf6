/* context.c - host memory, device selection (options and CLQSORT_* environment), contexts. */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#endif
#include "clqsort_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32
#include <windows.h>
static SRWLOCK discovery_lock = SRWLOCK_INIT, build_lock = SRWLOCK_INIT;
static void lock_discovery(void) { AcquireSRWLockExclusive(&discovery_lock); }
static void unlock_discovery(void) { ReleaseSRWLockExclusive(&discovery_lock); }
void clq_lock_builds(void) { AcquireSRWLockExclusive(&build_lock); }
void clq_unlock_builds(void) { ReleaseSRWLockExclusive(&build_lock); }
void clq_pause_ms(unsigned ms) { Sleep(ms); }
#else
#include <pthread.h>
static pthread_mutex_t discovery_lock = PTHREAD_MUTEX_INITIALIZER, build_lock = PTHREAD_MUTEX_INITIALIZER;
static void lock_discovery(void) { pthread_mutex_lock(&discovery_lock); }
static void unlock_discovery(void) { pthread_mutex_unlock(&discovery_lock); }
void clq_lock_builds(void) { pthread_mutex_lock(&build_lock); }
void clq_unlock_builds(void) { pthread_mutex_unlock(&build_lock); }
void clq_pause_ms(unsigned ms)
{
    struct timespec t = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) /* a signal: sleep the rest */
        ;
}
#endif

/* ---- host memory ----------------------------------------------------------------------------- */

static void *(*malloc_func)(size_t) = malloc;
static void (*free_func)(void *) = free;

void clqsort_set_memory_allocator(void *(*m)(size_t), void (*f)(void *))
{
    malloc_func = m && f ? m : malloc;
    free_func = m && f ? f : free;
}

void *clq_malloc(size_t bytes) { return malloc_func(bytes ? bytes : 1); }

void *clq_calloc(size_t count, size_t size)
{
    if (size && count > (size_t)-1 / size)
        return NULL;
    void *p = clq_malloc(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

void clq_free(void *p)
{
    if (p)
        free_func(p);
}

/* ---- device queries ---------------------------------------------------------------------- */

/* A fixed-size value of clGetDeviceInfo; a failure names the parameter. */
static clqsort_status device_info(clqsort_context *ctx, cl_device_info what, const char *name, size_t size, void *out)
{
    CLQ_CL(ctx, name, clGetDeviceInfo, (ctx->device, what, size, out, NULL));
    return CLQSORT_SUCCESS;
}
#define DEVICE_INFO(ctx, what, var) device_info((ctx), (what), #what, sizeof(var), &(var))

/* A string of clGetDeviceInfo (dev) or clGetPlatformInfo (platform), NUL-terminated, in memory
 * from clq_malloc. */
static clqsort_status info_string(clqsort_context *ctx, cl_device_id dev, cl_platform_id platform, cl_uint what,
                                  const char *name, char **out)
{
    const char *call = dev ? "clGetDeviceInfo" : "clGetPlatformInfo";
    size_t size = 0;
    *out = NULL;
    cl_int err = dev ? clGetDeviceInfo(dev, what, 0, NULL, &size) : clGetPlatformInfo(platform, what, 0, NULL, &size);
    if (err != CL_SUCCESS)
        return clq_fail_cl(ctx, err, call, name);
    char *s = clq_malloc(size + 1);
    if (!s)
        return clq_fail(ctx, CLQSORT_ERROR_OUT_OF_MEMORY, "%zu bytes of host memory for %s", size + 1, name);
    err = dev ? clGetDeviceInfo(dev, what, size, s, NULL) : clGetPlatformInfo(platform, what, size, s, NULL);
    if (err != CL_SUCCESS) {
        clq_free(s);
        return clq_fail_cl(ctx, err, call, name);
    }
    s[size] = 0;
    *out = s;
    return CLQSORT_SUCCESS;
}
#define DEVICE_STRING(ctx, what, out) info_string((ctx), (ctx)->device, NULL, (what), #what, (out))
#define PLATFORM_STRING(platform, what, out) info_string(NULL, NULL, (platform), (what), #what, (out))

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

/* A capability query: a device that does not know it (CL_INVALID_VALUE) is taken to lack the
 * capability, since an answer of "no" must not make a working device unusable; every other
 * failure is raised. *known tells which. */
static clqsort_status capability(clqsort_context *ctx, cl_device_info what, const char *name, size_t size, void *out,
                                 int *known)
{
    const cl_int err = clGetDeviceInfo(ctx->device, what, size, out, NULL);
    *known = err == CL_SUCCESS;
    return err == CL_SUCCESS || err == CL_INVALID_VALUE ? CLQSORT_SUCCESS : clq_fail_cl(ctx, err, "clGetDeviceInfo", name);
}
#define CAPABILITY(ctx, what, var, known) capability((ctx), (what), #what, sizeof(var), &(var), (known))

/* Device-side enqueue needs an on-device queue, work-group collectives and OpenCL C 2.0. */
static clqsort_status probe_device_enqueue(clqsort_context *ctx)
{
    ctx->device_enqueue_supported = 0;
    int known;
    const int version = parse_version(ctx->device_version);
    if (version < 20)
        return CLQSORT_SUCCESS;
    if (version < 30) {
        cl_command_queue_properties props = 0;
        CLQ_TRY(CAPABILITY(ctx, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, props, &known));
        ctx->device_enqueue_supported = known && props != 0 && parse_version(ctx->device_c_version) >= 20;
        return CLQSORT_SUCCESS;
    }
    cl_device_device_enqueue_capabilities caps = 0;
    CLQ_TRY(CAPABILITY(ctx, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, caps, &known));
    if (!known || !(caps & CL_DEVICE_QUEUE_SUPPORTED))
        return CLQSORT_SUCCESS;
    cl_bool collectives = CL_FALSE;
    CLQ_TRY(CAPABILITY(ctx, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, collectives, &known));
    if (!known || !collectives)
        return CLQSORT_SUCCESS;
    /* OpenCL C 2.0 must be among the supported C versions; 3.0 devices list them all */
    size_t size = 0;
    cl_int err = clGetDeviceInfo(ctx->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &size);
    if (err == CL_INVALID_VALUE || (err == CL_SUCCESS && size == 0)) {
        ctx->device_enqueue_supported = parse_version(ctx->device_c_version) >= 20;
        return CLQSORT_SUCCESS;
    }
    if (err != CL_SUCCESS)
        return clq_fail_cl(ctx, err, "clGetDeviceInfo", "CL_DEVICE_OPENCL_C_ALL_VERSIONS");
    cl_name_version *v = clq_malloc(size);
    if (!v)
        return clq_fail(ctx, CLQSORT_ERROR_OUT_OF_MEMORY, "%zu bytes of host memory for the OpenCL C versions", size);
    if ((err = clGetDeviceInfo(ctx->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, v, NULL)) != CL_SUCCESS) {
        clq_free(v);
        return clq_fail_cl(ctx, err, "clGetDeviceInfo", "CL_DEVICE_OPENCL_C_ALL_VERSIONS");
    }
    for (size_t i = 0; i < size / sizeof *v; i++)
        if (CL_VERSION_MAJOR(v[i].version) == 2)
            ctx->device_enqueue_supported = 1;
    clq_free(v);
    return CLQSORT_SUCCESS;
}

static clqsort_status query_device(clqsort_context *ctx)
{
    CLQ_TRY(DEVICE_INFO(ctx, CL_DEVICE_PLATFORM, ctx->platform));
    CLQ_TRY(info_string(ctx, NULL, ctx->platform, CL_PLATFORM_NAME, "CL_PLATFORM_NAME", &ctx->platform_name));
    CLQ_TRY(info_string(ctx, NULL, ctx->platform, CL_PLATFORM_VENDOR, "CL_PLATFORM_VENDOR", &ctx->platform_vendor));
    CLQ_TRY(DEVICE_STRING(ctx, CL_DEVICE_NAME, &ctx->device_name));
    CLQ_TRY(DEVICE_STRING(ctx, CL_DEVICE_VERSION, &ctx->device_version));
    CLQ_TRY(DEVICE_STRING(ctx, CL_DEVICE_OPENCL_C_VERSION, &ctx->device_c_version));
    char *ext;
    CLQ_TRY(DEVICE_STRING(ctx, CL_DEVICE_EXTENSIONS, &ext));
    ctx->has_int64_atomics = strstr(ext, "cl_khr_int64_base_atomics") && strstr(ext, "cl_khr_int64_extended_atomics");
    /* NVIDIA's compiler takes inline PTX; shfl.sync needs compute capability 7 (Volta) or later */
    cl_uint cc_major = 0;
    if (strstr(ext, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(ctx->device, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */, sizeof cc_major, &cc_major,
                        NULL) != CL_SUCCESS)
        cc_major = 0;
    ctx->has_ptx_shuffles = cc_major >= 7;
    clq_free(ext);
    CLQ_TRY(DEVICE_INFO(ctx, CL_DEVICE_TYPE, ctx->device_type));
    CLQ_TRY(DEVICE_INFO(ctx, CL_DEVICE_MAX_COMPUTE_UNITS, ctx->compute_units));
    CLQ_TRY(DEVICE_INFO(ctx, CL_DEVICE_MAX_WORK_GROUP_SIZE, ctx->max_work_group_size));
    CLQ_TRY(DEVICE_INFO(ctx, CL_DEVICE_LOCAL_MEM_SIZE, ctx->local_mem_size));
    CLQ_TRY(DEVICE_INFO(ctx, CL_DEVICE_MAX_MEM_ALLOC_SIZE, ctx->max_alloc_size));
    CLQ_TRY(DEVICE_INFO(ctx, CL_DEVICE_GLOBAL_MEM_SIZE, ctx->global_mem_size));
    if (ctx->compute_units == 0)
        ctx->compute_units = 1;
    return probe_device_enqueue(ctx);
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
    if (vendor && strlen(vendor) >= sizeof sel->vendor)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_OPTION, "the vendor \"%.40s...\" is %zu characters long; at most %zu",
                        vendor, strlen(vendor), sizeof sel->vendor - 1);
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

/* Appends " Platform 0 "name" (vendor "v"): [GPU] "device"; ..." for every device that exists
 * to the failure just recorded. A query that fails here is shown in place of its answer. */
static void list_devices(cl_platform_id *platforms, cl_uint np)
{
    if (np == 0)
        clq_append(NULL, " No OpenCL platform is installed (is an ICD registered?).");
    for (cl_uint p = 0; p < np; p++) {
        char *name = NULL, *vendor = NULL;
        if (PLATFORM_STRING(platforms[p], CL_PLATFORM_NAME, &name) == CLQSORT_SUCCESS)
            PLATFORM_STRING(platforms[p], CL_PLATFORM_VENDOR, &vendor);
        clq_append(NULL, " Platform %u \"%s\" (vendor \"%s\"):", p, name ? name : "?", vendor ? vendor : "?");
        clq_free(name);
        clq_free(vendor);
        cl_uint nd = 0;
        cl_device_id devs[64];
        cl_int err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd);
        if (err != CL_SUCCESS && err != CL_DEVICE_NOT_FOUND)
            clq_append(NULL, " (clGetDeviceIDs failed with %s)", clq_cl_error_name(err));
        if (err != CL_SUCCESS)
            nd = 0;
        for (cl_uint d = 0; d < nd && d < 64; d++) {
            char dn[256] = "?";
            cl_device_type t = 0;
            if (clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dn, dn, NULL) != CL_SUCCESS)
                snprintf(dn, sizeof dn, "?");
            dn[sizeof dn - 1] = 0;
            if (clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof t, &t, NULL) != CL_SUCCESS)
                t = 0;
            clq_append(NULL, " [%s] \"%s\";", type_name(t), dn);
        }
    }
}

/* Whether platform p matches the requested vendor (a substring of its name or vendor). */
static clqsort_status platform_matches(cl_platform_id p, const char *want, int *match)
{
    char *name, *vendor;
    CLQ_TRY(PLATFORM_STRING(p, CL_PLATFORM_NAME, &name));
    clqsort_status s = PLATFORM_STRING(p, CL_PLATFORM_VENDOR, &vendor);
    if (s == CLQSORT_SUCCESS)
        *match = contains_nocase(name, want) || contains_nocase(vendor, want);
    clq_free(name);
    clq_free(vendor);
    return s;
}

static clqsort_status select_device(const selection *sel, cl_device_id *out)
{
    cl_uint np = 0;
    cl_platform_id platforms[32];
    cl_int err = clGetPlatformIDs(32, platforms, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found none */)
        np = 0;
    else if (err != CL_SUCCESS)
        return clq_fail_cl(NULL, err, "clGetPlatformIDs", "");
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
            int match = 0;
            CLQ_TRY(platform_matches(platforms[p], sel->vendor, &match));
            if (!match)
                continue;
            cl_uint nd = 0;
            cl_device_id devs[64];
            err = clGetDeviceIDs(platforms[p], want, 64, devs, &nd);
            if (err == CL_DEVICE_NOT_FOUND) /* none of this type here */
                continue;
            if (err != CL_SUCCESS)
                return clq_fail_cl(NULL, err, "clGetDeviceIDs", "");
            for (cl_uint d = 0; d < nd && d < 64; d++, seen++)
                if (seen == sel->index) {
                    *out = devs[d];
                    return CLQSORT_SUCCESS;
                }
        }
    }

    static const char *type_names[] = {"default (first GPU, else first device)", "cpu", "gpu", "accelerator", "all"};
    clqsort_status s = clq_fail(NULL, CLQSORT_ERROR_NO_DEVICE, "no OpenCL device matches type=%s vendor=\"%s\" index=%d.",
                                type_names[sel->type], sel->vendor, sel->index);
    list_devices(platforms, np);
    return s;
}

/* Some runtimes (pocl 3.1) set up their devices on first demand, and a second thread that asks
 * while the first is doing so is told there are none. One thread of the process asks at a time. */
static clqsort_status select_device_alone(const selection *sel, cl_device_id *out)
{
    lock_discovery();
    const clqsort_status s = select_device(sel, out);
    unlock_discovery();
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
    CLQ_TRY(DEVICE_INFO(ctx, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, preferred));
    CLQ_TRY(DEVICE_INFO(ctx, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, max));
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
    return clq_check_created(ctx, ctx->device_queue, err, "clCreateCommandQueueWithProperties",
                             "the on-device default queue of the device-enqueue path");
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

static clqsort_context *new_context(void)
{
    clqsort_context *ctx = clq_calloc(1, sizeof *ctx);
    if (ctx)
        atomic_flag_clear(&ctx->busy);
    return ctx;
}

#define RELEASE(log, fn, object)                                                                   \
    do {                                                                                           \
        if (object)                                                                                \
            clq_released((log), fn(object), #fn);                                                  \
    } while (0)

/* Releases what the context holds, the first failed release into log. */
static void destroy(clqsort_context *ctx, clq_release_log *log)
{
    clq_abandon_slots(ctx);
    clq_unmap_words(ctx, log);
    clq_release_programs(ctx, log);
    cl_mem *buffers[] = {&ctx->scratch, &ctx->scratch_values, &ctx->lists,     &ctx->pool,       &ctx->leaves,
                         &ctx->status,  &ctx->windows,        &ctx->host_keys, &ctx->host_values, &ctx->packed,
                         &ctx->select,  &ctx->host_begin,     &ctx->host_end,    &ctx->words};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        RELEASE(log, clReleaseMemObject, *buffers[i]);
    RELEASE(log, clReleaseCommandQueue, ctx->device_queue);
    RELEASE(log, clReleaseCommandQueue, ctx->queue);
    RELEASE(log, clReleaseContext, ctx->context);
    clq_free(ctx->platform_name);
    clq_free(ctx->platform_vendor);
    clq_free(ctx->device_name);
    clq_free(ctx->device_version);
    clq_free(ctx->device_c_version);
    clq_free(ctx->cache_dir);
    clq_free(ctx);
}

/* A create that failed: what it made goes, and the failure already recorded stays the message. */
static clqsort_status abandon(clqsort_context *ctx, clqsort_status s)
{
    clq_release_log ignored = {CL_SUCCESS, NULL};
    destroy(ctx, &ignored);
    return s;
}

static clqsort_status finish_create(clqsort_context *ctx, clqsort_path wanted, clqsort_context **out)
{
    clqsort_status s = query_device(ctx);
    if (s == CLQSORT_SUCCESS)
        s = choose_path(ctx, wanted);
    if (s == CLQSORT_SUCCESS)
        s = clq_map_words(ctx);
    if (s != CLQSORT_SUCCESS)
        return abandon(ctx, s);
    const char *cache = getenv("CLQSORT_CACHE_DIR");
    if (cache && *cache) {
        const size_t bytes = strlen(cache) + 1;
        if (!(ctx->cache_dir = clq_malloc(bytes)))
            return abandon(ctx, clq_fail(ctx, CLQSORT_ERROR_OUT_OF_MEMORY,
                                         "%zu bytes of host memory for CLQSORT_CACHE_DIR", bytes));
        memcpy(ctx->cache_dir, cache, bytes);
    }
    const char *profile = getenv("CLQSORT_PROFILE");
    ctx->profile = !profile || !*profile || *profile == '0' ? 0 : *profile == '2' ? 2 : 1;
    const char *fail = getenv("CLQSORT_FAIL_DEVICE_ENQUEUE");
    char *end = NULL;
    ctx->fail_device_enqueue = fail && *fail ? (unsigned)strtoul(fail, &end, 10) : 0u;
    /* N: the first attempt; N*K: the first K; N*: every attempt */
    ctx->fail_attempts = !end || *end != '*' ? 1u : end[1] ? (unsigned)strtoul(end + 1, NULL, 10) : UINT_MAX;
    *out = ctx;
    return CLQSORT_SUCCESS;
}

clqsort_status clqsort_create(clqsort_context **out, const clqsort_options *options)
{
    clq_begin("clqsort_create");
    if (!out)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_ARGUMENT, "ctx (the pointer to set) is NULL");
    *out = NULL;
    selection sel;
    CLQ_TRY(resolve_selection(options, &sel));
    cl_device_id dev;
    CLQ_TRY(select_device_alone(&sel, &dev));

    clqsort_context *ctx = new_context();
    if (!ctx)
        return clq_fail(NULL, CLQSORT_ERROR_OUT_OF_MEMORY, "%zu bytes of host memory for the context", sizeof *ctx);
    ctx->device = dev;
    cl_int err;
    ctx->context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    clqsort_status s = clq_check_created(ctx, ctx->context, err, "clCreateContext", "");
    if (s != CLQSORT_SUCCESS)
        return abandon(ctx, s);
    /* Profiling lets programs time the sort with events on this queue; it costs nothing here. */
    const char *queue_call = "clCreateCommandQueue";
#if CL_TARGET_OPENCL_VERSION >= 200
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    queue_call = "clCreateCommandQueueWithProperties";
    ctx->queue = clCreateCommandQueueWithProperties(ctx->context, dev, props, &err);
    if (!ctx->queue && err == CL_INVALID_OPERATION) /* 1.2 platform behind a newer loader */
#endif
    {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        queue_call = "clCreateCommandQueue";
        ctx->queue = clCreateCommandQueue(ctx->context, dev, CL_QUEUE_PROFILING_ENABLE, &err);
#pragma GCC diagnostic pop
    }
    if ((s = clq_check_created(ctx, ctx->queue, err, queue_call, "")) != CLQSORT_SUCCESS)
        return abandon(ctx, s);
    return finish_create(ctx, sel.path, out);
}

clqsort_status clqsort_create_with_queue(clqsort_context **out, cl_command_queue queue,
                                         const clqsort_options *options)
{
    clq_begin("clqsort_create_with_queue");
    if (!out)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_ARGUMENT, "ctx (the pointer to set) is NULL");
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
    CLQ_TRY(resolve_path(&only_path, &path));

    cl_command_queue_properties props = 0;
    cl_context context;
    cl_device_id dev;
    CLQ_CL(NULL, "CL_QUEUE_PROPERTIES", clGetCommandQueueInfo, (queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
    CLQ_CL(NULL, "CL_QUEUE_CONTEXT", clGetCommandQueueInfo, (queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL));
    CLQ_CL(NULL, "CL_QUEUE_DEVICE", clGetCommandQueueInfo, (queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL));
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return clq_fail(NULL, CLQSORT_ERROR_INVALID_QUEUE, "the queue is out-of-order; clqsort needs an in-order queue");

    clqsort_context *ctx = new_context();
    if (!ctx)
        return clq_fail(NULL, CLQSORT_ERROR_OUT_OF_MEMORY, "%zu bytes of host memory for the context", sizeof *ctx);
    ctx->device = dev;
    cl_int err = clRetainCommandQueue(queue);
    if (err != CL_SUCCESS)
        return abandon(ctx, clq_fail_cl(ctx, err, "clRetainCommandQueue", "the program's queue"));
    ctx->queue = queue;
    if ((err = clRetainContext(context)) != CL_SUCCESS)
        return abandon(ctx, clq_fail_cl(ctx, err, "clRetainContext", "the queue's context"));
    ctx->context = context;
    return finish_create(ctx, path, out);
}

void clqsort_release(clqsort_context *ctx)
{
    if (!ctx)
        return;
    if (clq_enter(ctx, "clqsort_release") != CLQSORT_SUCCESS)
        return; /* another thread is inside a call on it: leaving it alive is the lesser harm */
    clq_release_log log = {CL_SUCCESS, NULL};
    destroy(ctx, &log);
    if (log.err != CL_SUCCESS)
        clq_fail(NULL, clq_status_of_cl(log.err), "%s failed with %s (%d); the other objects were released", log.call,
                 clq_cl_error_name(log.err), (int)log.err);
}

clqsort_status clqsort_get_info(const clqsort_context *ctx, clqsort_info *info)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_get_info"));
    if (!info)
        return clq_leave(ctx, clq_fail((clqsort_context *)ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "info is NULL"));
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
    clq_tuning t;
    /* a bad CLQSORT_TUNING: the table's shape is reported, with the error the sorts will give */
    const clqsort_status s = clq_tuning_of((clqsort_context *)ctx, CLQSORT_KEY_UINT32, 0, &t);
    if (s != CLQSORT_SUCCESS)
        clq_tuning_for_device(ctx, 4, 0, &t);
    info->gqsort_work_group = t.gq_wg;
    info->gqsort_keys_per_item = t.gq_k;
    info->lqsort_work_group = t.lq_wg;
    info->gqsort_ways = t.gq_ways;
    info->lqsort_ways = t.lq_ways;
    info->lqsort_max = t.lq_max;
    info->lqsort_small = t.lq_small;
    info->float_root_distance = t.float_distance;
    info->double_root_distance = t.double_distance;
    info->cache_dir = ctx->cache_dir;
    info->programs_built = ctx->programs_built;
    info->programs_loaded = ctx->programs_loaded;
    info->programs_stored = ctx->programs_stored;
    return clq_leave(ctx, s);
}

clqsort_status clqsort_get_stats(const clqsort_context *ctx, clqsort_stats *stats)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_get_stats"));
    if (!stats)
        return clq_leave(ctx, clq_fail((clqsort_context *)ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "stats is NULL"));
    *stats = ctx->last_stats;
    return clq_leave(ctx, CLQSORT_SUCCESS);
}

cl_context clqsort_cl_context(const clqsort_context *ctx) { return ctx ? ctx->context : NULL; }
cl_device_id clqsort_cl_device(const clqsort_context *ctx) { return ctx ? ctx->device : NULL; }
cl_command_queue clqsort_cl_queue(const clqsort_context *ctx) { return ctx ? ctx->queue : NULL; }
