/*
 * test_faults.c - every OpenCL call and every host allocation the library makes, failed one at a
 * time (run with OPENCL_LAYERS naming the tests' fault layer, tests/fault_layer.c).
 *
 * Each scenario is one public call (create, create with the program's queue, each kind of sort,
 * release) after some set-up. A clean run records the calls the scenario makes; then, for every
 * position in that record, a new run makes exactly that call fail and checks:
 *   - the status is the one clqsort.h's table gives for the error (a few calls have a
 *     documented fallback instead, and must then succeed completely);
 *   - the message names the public function, the failed OpenCL call and its error;
 *   - the keys (and values) are byte-for-byte unchanged if the failure came before the sort's
 *     first kernel launch, and the message says they may have changed otherwise;
 *   - the next call on the same context succeeds, and its result is verified;
 *   - once the context is released, no OpenCL object and no host allocation is left.
 * Every call is failed with CL_OUT_OF_HOST_MEMORY; each distinct entry point is also failed at
 * its first and last call with an error of its own kind (allocation failure, out of resources,
 * build failure, invalid queue...). Host allocations get the same sweep through
 * clqsort_set_memory_allocator.
 *
 *   test_faults [--only SCENARIO,...] [--entry NAME,...]
 *     a subset: the scenarios named, failing only the calls of the entry points named (on a
 *     runtime whose builds are slow, the calls of one path).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "fault_layer.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

/* ---- the expected status: clqsort.h's table, written again here on purpose -------------------- */

static clqsort_status status_of(cl_int err)
{
    switch (err) {
    case CL_OUT_OF_HOST_MEMORY: case CL_OUT_OF_RESOURCES: case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE:
        return CLQSORT_ERROR_OUT_OF_MEMORY;
    case CL_BUILD_PROGRAM_FAILURE: case CL_COMPILER_NOT_AVAILABLE: case CL_LINKER_NOT_AVAILABLE:
    case CL_INVALID_BUILD_OPTIONS: case CL_INVALID_PROGRAM_EXECUTABLE:
        return CLQSORT_ERROR_BUILD;
    case CL_INVALID_COMMAND_QUEUE: return CLQSORT_ERROR_INVALID_QUEUE;
    case CL_INVALID_MEM_OBJECT: return CLQSORT_ERROR_INVALID_BUFFER;
    case CL_DEVICE_NOT_FOUND: case CL_DEVICE_NOT_AVAILABLE: case -1001: return CLQSORT_ERROR_NO_DEVICE;
    default: return CLQSORT_ERROR_OPENCL;
    }
}

static const char *error_name(cl_int err)
{
    switch (err) {
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_KERNEL: return "CL_INVALID_KERNEL";
    case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "?";
    }
}

/* The error of its own kind that each entry point is also failed with. */
static cl_int typical_error(const char *entry)
{
    static const struct { const char *entry; cl_int err; } table[] = {
        {"clGetPlatformIDs", CL_INVALID_PLATFORM},
        {"clGetDeviceIDs", CL_DEVICE_NOT_AVAILABLE},
        {"clGetDeviceInfo", CL_INVALID_DEVICE},
        {"clGetPlatformInfo", CL_INVALID_PLATFORM},
        {"clCreateContext", CL_DEVICE_NOT_AVAILABLE},
        {"clCreateCommandQueueWithProperties", CL_OUT_OF_RESOURCES},
        {"clCreateCommandQueue", CL_OUT_OF_RESOURCES},
        {"clGetCommandQueueInfo", CL_INVALID_COMMAND_QUEUE},
        {"clRetainCommandQueue", CL_INVALID_COMMAND_QUEUE},
        {"clRetainContext", CL_INVALID_CONTEXT},
        {"clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE},
        {"clGetMemObjectInfo", CL_INVALID_MEM_OBJECT},
        {"clReleaseMemObject", CL_INVALID_MEM_OBJECT},
        {"clCreateProgramWithSource", CL_OUT_OF_RESOURCES},
        {"clBuildProgram", CL_BUILD_PROGRAM_FAILURE},
        {"clCreateKernel", CL_INVALID_PROGRAM},
        {"clGetKernelWorkGroupInfo", CL_INVALID_KERNEL},
        {"clSetKernelArg", CL_INVALID_MEM_OBJECT},
        {"clEnqueueWriteBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE},
        {"clEnqueueNDRangeKernel", CL_OUT_OF_RESOURCES},
        {"clEnqueueReadBuffer", CL_INVALID_COMMAND_QUEUE},
        {"clGetEventProfilingInfo", CL_INVALID_EVENT},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].entry, entry))
            return table[i].err;
    return CL_INVALID_VALUE;
}

/* Codes that are answers rather than failures, which the library acts on as clqsort.h says:
 * fallback 1 - it goes another way and succeeds; 0 - it finds no device (CLQSORT_ERROR_NO_DEVICE
 * with the device list, not the call, in the message). */
static const struct answer { const char *entry; cl_int err; int fallback, last; } answers[] = {
    /* the context's queue (the first one made) on a 1.2 platform: clCreateCommandQueue instead */
    {"clCreateCommandQueueWithProperties", CL_INVALID_OPERATION, 1, 0},
    {"clGetPlatformIDs", -1001, 0, 1}, /* CL_PLATFORM_NOT_FOUND_KHR */
    /* none of the type on the platform; the last call, as earlier ones may get that answer anyway
     * (the default selection asks for GPUs first) */
    {"clGetDeviceIDs", CL_DEVICE_NOT_FOUND, 0, 1},
};

/* Calls whose failure the library reports in its profile line (CLQSORT_PROFILE) without failing
 * the sort. */
static int diagnostic_only(const char *entry)
{
    return entry && (!strcmp(entry, "clGetEventProfilingInfo") || !strcmp(entry, "clReleaseEvent"));
}

static const struct answer *answer_of(const char *entry, cl_int err)
{
    for (size_t i = 0; entry && i < sizeof answers / sizeof answers[0]; i++)
        if (!strcmp(answers[i].entry, entry) && answers[i].err == err)
            return &answers[i];
    return NULL;
}

/* ---- scenarios ------------------------------------------------------------------------------- */

typedef struct fixture {
    clqsort_context *ctx;      /* made before the armed call (NULL for the create scenarios) */
    cl_context cl;             /* the program's own context and queue (create_with_queue) */
    cl_command_queue queue;
    cl_mem keys, values;
    unsigned char *in, *vin, *host; /* input keys and values; the host array of sort_host */
} fixture;

typedef struct scenario {
    const char *name;
    const char *api;           /* the public function the armed call is */
    clqsort_key_type type;
    size_t n, value_bytes, setup_n; /* setup_n: a sort of this many keys before the armed call (0: none) */
    unsigned flags;
    int kind;                  /* what the armed call is */
    int profile;               /* CLQSORT_PROFILE=1 on the context: launches make events */
    size_t k;                  /* K_PARTIAL: the k smallest keys */
} scenario;
enum { K_CREATE, K_CREATE_WITH_QUEUE, K_SORT, K_PAIRS, K_HOST, K_PARTIAL, K_RELEASE };

static const scenario scenarios[] = {
    {"create", "clqsort_create", CLQSORT_KEY_UINT32, 3000, 0, 0, 0, K_CREATE},
    {"create_with_queue", "clqsort_create_with_queue", CLQSORT_KEY_UINT32, 3000, 0, 0, 0, K_CREATE_WITH_QUEUE},
    {"first_sort", "clqsort_sort", CLQSORT_KEY_UINT32, 5000, 0, 0, 0, K_SORT},
    {"cached_sort", "clqsort_sort", CLQSORT_KEY_UINT32, 5000, 0, 5000, 0, K_SORT},
    {"profiled_sort", "clqsort_sort", CLQSORT_KEY_INT64, 9000, 0, 9000, 0, K_SORT, 1},
    {"growing_sort_float_desc", "clqsort_sort", CLQSORT_KEY_FLOAT, 200000, 0, 100, CLQSORT_DESCENDING, K_SORT},
    {"pairs_uint64_8", "clqsort_sort_pairs", CLQSORT_KEY_UINT64, 20000, 8, 0, CLQSORT_DESCENDING, K_PAIRS},
    {"pairs_int32_4_cached", "clqsort_sort_pairs", CLQSORT_KEY_INT32, 20000, 4, 20000, 0, K_PAIRS},
    {"host_double", "clqsort_sort_host", CLQSORT_KEY_DOUBLE, 7000, 0, 0, 0, K_HOST},
    /* a partial sort that selects (clqsort.h: 32-bit keys, 2 k + 65536 <= count / 4), after a sort
     * that built the sort's program: the armed call builds the selection's (src/program.c) */
    {"partial_select", "clqsort_partial_sort", CLQSORT_KEY_UINT32, 270000, 0, 5000, 0, K_PARTIAL, 0, 100},
    {"release", "clqsort_release", CLQSORT_KEY_UINT32, 5000, 0, 5000, 0, K_RELEASE},
};

static cl_mem new_buffer(cl_context c, const void *data, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes ? bytes : 1, (void *)data, &err);
    if (!m) {
        fprintf(stderr, "test_faults: clCreateBuffer(%zu) failed with %d\n", bytes, (int)err);
        exit(2);
    }
    return m;
}

static void write(cl_command_queue q, cl_mem m, const void *data, size_t bytes)
{
    if (clEnqueueWriteBuffer(q, m, CL_TRUE, 0, bytes, data, 0, NULL, NULL) != CL_SUCCESS) {
        fprintf(stderr, "test_faults: clEnqueueWriteBuffer failed\n");
        exit(2);
    }
}

static unsigned char *read_back(cl_command_queue q, cl_mem m, size_t bytes)
{
    unsigned char *out = malloc(bytes + 1);
    if (!out || clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL) != CL_SUCCESS) {
        fprintf(stderr, "test_faults: clEnqueueReadBuffer failed\n");
        exit(2);
    }
    return out;
}

/* The program's own context and queue, made once: create_with_queue must leave them as they were. */
static cl_context own_context;
static cl_command_queue own_queue;

static clqsort_status create(clqsort_context **ctx) { return clqsort_create(ctx, NULL); }

/* A context, the input buffers and the set-up sort; the inputs restored after it. */
static int set_up(const scenario *sc, fixture *f)
{
    memset(f, 0, sizeof *f);
    const size_t w = tu_width_of(sc->type);
    f->in = malloc(sc->n * w + 1);
    f->vin = malloc(sc->n * 8 + 1);
    f->host = malloc(sc->n * w + 1);
    tu_generate_typed(sc->type, TU_UNIFORM, f->in, sc->n, 17 + sc->n);
    tu_index_values(f->vin, sc->value_bytes, sc->n);
    memcpy(f->host, f->in, sc->n * w);
    if (sc->kind == K_CREATE || sc->kind == K_CREATE_WITH_QUEUE)
        return 1;
    if (sc->profile)
        setenv("CLQSORT_PROFILE", "1", 1);
    const clqsort_status made = create(&f->ctx);
    unsetenv("CLQSORT_PROFILE");
    if (made != CLQSORT_SUCCESS) {
        fprintf(stderr, "test_faults: set-up create failed: %s\n", clqsort_last_error(NULL));
        return 0;
    }
    f->cl = clqsort_cl_context(f->ctx);
    f->queue = clqsort_cl_queue(f->ctx);
    f->keys = new_buffer(f->cl, f->in, sc->n * w);
    if (sc->kind == K_PAIRS)
        f->values = new_buffer(f->cl, f->vin, sc->n * sc->value_bytes);
    if (sc->setup_n) {
        const size_t m = sc->setup_n < sc->n ? sc->setup_n : sc->n;
        clqsort_status s = sc->kind == K_PAIRS
                               ? clqsort_sort_pairs(f->ctx, f->keys, f->values, m, sc->type, sc->value_bytes, sc->flags)
                               : clqsort_sort(f->ctx, f->keys, m, sc->type, sc->flags);
        if (s != CLQSORT_SUCCESS) {
            fprintf(stderr, "test_faults: set-up sort failed: %s\n", clqsort_last_error(f->ctx));
            return 0;
        }
        write(f->queue, f->keys, f->in, sc->n * w);
        if (f->values)
            write(f->queue, f->values, f->vin, sc->n * sc->value_bytes);
    }
    return 1;
}

/* The armed call. */
static clqsort_status armed_call(const scenario *sc, fixture *f)
{
    switch (sc->kind) {
    case K_CREATE: return create(&f->ctx);
    case K_CREATE_WITH_QUEUE: return clqsort_create_with_queue(&f->ctx, own_queue, NULL);
    case K_SORT: return clqsort_sort(f->ctx, f->keys, sc->n, sc->type, sc->flags);
    case K_PAIRS: return clqsort_sort_pairs(f->ctx, f->keys, f->values, sc->n, sc->type, sc->value_bytes, sc->flags);
    case K_HOST: return clqsort_sort_host(f->ctx, f->host, sc->n, sc->type, sc->flags);
    case K_PARTIAL: return clqsort_partial_sort(f->ctx, f->keys, 0, NULL, 0, sc->n, sc->type, 0, sc->k, sc->flags);
    default: clqsort_release(f->ctx); f->ctx = NULL; return CLQSORT_SUCCESS;
    }
}

/* The scenario's result, verified against the reference sort of test_util. */
static int verify(const scenario *sc, fixture *f, const char *what)
{
    const size_t w = tu_width_of(sc->type);
    const int desc = (sc->flags & CLQSORT_DESCENDING) != 0;
    char why[256];
    if (sc->kind == K_HOST) {
        const int ok = tu_verify_typed(sc->type, desc, f->in, f->host, sc->n, why, sizeof why);
        CHECK(ok, "%s %s: %s", sc->name, what, why);
        return ok;
    }
    unsigned char *out = read_back(f->queue, f->keys, sc->n * w);
    if (sc->kind == K_PARTIAL) { /* the first k as the reference sort's, the rest any permutation */
        unsigned char *ref = malloc(sc->n * w);
        memcpy(ref, f->in, sc->n * w);
        tu_sort_typed(sc->type, desc, ref, sc->n);
        int ok = !memcmp(out, ref, sc->k * w);
        if (!ok)
            snprintf(why, sizeof why, "the first %zu keys are not the %zu smallest in order", sc->k, sc->k);
        tu_sort_typed(sc->type, desc, out, sc->n);
        ok = ok && tu_verify_sorted(sc->type, desc, ref, out, sc->n, why, sizeof why); /* a permutation */
        free(ref);
        free(out);
        CHECK(ok, "%s %s: %s", sc->name, what, why);
        return ok;
    }
    unsigned char *vout = f->values ? read_back(f->queue, f->values, sc->n * sc->value_bytes) : NULL;
    const int ok = vout ? tu_verify_pairs(sc->type, desc, f->in, out, vout, sc->value_bytes, sc->n, why, sizeof why)
                        : tu_verify_typed(sc->type, desc, f->in, out, sc->n, why, sizeof why);
    free(out);
    free(vout);
    CHECK(ok, "%s %s: %s", sc->name, what, why);
    return ok;
}

/* The caller's data is byte-for-byte as before the call. */
static int unchanged(const scenario *sc, fixture *f)
{
    const size_t w = tu_width_of(sc->type);
    if (sc->kind == K_HOST)
        return !memcmp(f->host, f->in, sc->n * w);
    unsigned char *out = read_back(f->queue, f->keys, sc->n * w);
    int same = !memcmp(out, f->in, sc->n * w);
    free(out);
    if (same && f->values) {
        unsigned char *vout = read_back(f->queue, f->values, sc->n * sc->value_bytes);
        same = !memcmp(vout, f->vin, sc->n * sc->value_bytes);
        free(vout);
    }
    return same;
}

static void tear_down(const scenario *sc, fixture *f)
{
    clqsort_release(f->ctx);
    if (f->keys && sc->kind != K_CREATE && sc->kind != K_CREATE_WITH_QUEUE)
        clReleaseMemObject(f->keys);
    if (f->values)
        clReleaseMemObject(f->values);
    free(f->in);
    free(f->vin);
    free(f->host);
}

/* ---- one injection ---------------------------------------------------------------------------- */

static long base_objects, base_allocs;
static unsigned injections;

/* Runs the scenario with the `n`th call of `entry` failing with `err` (entry NULL: the `n`th host
 * allocation fails); `before_launch`: the failure comes before the sort's first kernel. */
static void inject(const scenario *sc, const char *entry, unsigned n, cl_int err, int before_launch)
{
    char what[160];
    if (entry)
        snprintf(what, sizeof what, "%s call %u failing with %s", entry, n, error_name(err));
    else
        snprintf(what, sizeof what, "host allocation %u failing", n);
    fixture f;
    if (!set_up(sc, &f)) {
        CHECK(0, "%s %s: set-up failed", sc->name, what);
        return;
    }
    injections++;
    tu_alloc_calls = 0;
    tu_alloc_fail_at = entry ? 0 : n;
    fl_arm(entry, entry ? n : 0, err);
    const clqsort_status s = armed_call(sc, &f);
    fl_disarm();
    const int fired = entry ? fl_fired() : tu_alloc_calls >= n;
    tu_alloc_fail_at = 0;
    const char *msg = clqsort_last_error(NULL);
    CHECK(fired, "%s %s: the fault was not injected (the calls differ from the clean run)", sc->name, what);

    const clqsort_status want = entry ? status_of(err) : CLQSORT_ERROR_OUT_OF_MEMORY;
    const struct answer *answer = answer_of(entry, err);
    if (sc->kind == K_RELEASE) {
        /* release returns nothing: the thread's message must name the failed call */
        CHECK(!entry || strstr(msg, entry), "%s %s: message \"%s\"", sc->name, what, msg);
    } else if (diagnostic_only(entry)) {
        CHECK(s == CLQSORT_SUCCESS, "%s %s: a failure of profiling failed the sort: %s", sc->name, what, msg);
    } else if (answer && answer->fallback) {
        CHECK(s == CLQSORT_SUCCESS, "%s %s: the documented fallback did not succeed: %s", sc->name, what, msg);
    } else if (answer) {
        CHECK(s == want && strstr(msg, "no OpenCL device matches"), "%s %s: status %d, message %s", sc->name, what,
              s, msg);
    } else {
        CHECK(s == want, "%s %s: status %d (%s), expected %d (%s): %s", sc->name, what, s, clqsort_status_string(s),
              want, clqsort_status_string(want), msg);
        CHECK(strstr(msg, sc->api) != NULL, "%s %s: message does not name %s: %s", sc->name, what, sc->api, msg);
        if (entry)
            CHECK(strstr(msg, entry) && strstr(msg, error_name(err)), "%s %s: message does not name the call and "
                  "its error: %s", sc->name, what, msg);
        else
            CHECK(strstr(msg, "host memory") != NULL, "%s %s: message does not say host memory: %s", sc->name, what,
                  msg);
        if (sc->kind == K_CREATE || sc->kind == K_CREATE_WITH_QUEUE)
            CHECK(f.ctx == NULL, "%s %s: a failed create set *ctx", sc->name, what);
        else if (before_launch || sc->kind == K_HOST)
            CHECK(unchanged(sc, &f), "%s %s: the caller's data changed", sc->name, what);
        else
            CHECK(strstr(msg, "the keys may have changed") != NULL, "%s %s: a failure after the kernels started does "
                  "not say the keys may have changed: %s", sc->name, what, msg);
    }

    /* the next call succeeds: on the same context, or a new create (which sorts only where the
     * failed one went another way: the rest of its work is that of a fresh context, swept apart) */
    if (sc->kind == K_CREATE || sc->kind == K_CREATE_WITH_QUEUE) {
        if (f.ctx) {
            f.keys = new_buffer(clqsort_cl_context(f.ctx), f.in, sc->n * 4);
            f.queue = clqsort_cl_queue(f.ctx);
            CHECK(clqsort_sort(f.ctx, f.keys, sc->n, sc->type, 0) == CLQSORT_SUCCESS, "%s %s: sort on the new context: %s",
                  sc->name, what, clqsort_last_error(f.ctx));
            verify(sc, &f, what);
            clReleaseMemObject(f.keys);
            f.keys = NULL;
        } else {
            const clqsort_status again = armed_call(sc, &f);
            CHECK(again == CLQSORT_SUCCESS, "%s %s: the next create failed: %s", sc->name, what, clqsort_last_error(NULL));
        }
    } else if (sc->kind != K_RELEASE) {
        const size_t w = tu_width_of(sc->type);
        if (sc->kind == K_HOST) {
            memcpy(f.host, f.in, sc->n * w);
        } else {
            write(f.queue, f.keys, f.in, sc->n * w);
            if (f.values)
                write(f.queue, f.values, f.vin, sc->n * sc->value_bytes);
        }
        const clqsort_status again = armed_call(sc, &f);
        CHECK(again == CLQSORT_SUCCESS, "%s %s: the next call on the context failed: %s", sc->name, what,
              clqsort_last_error(f.ctx));
        if (again == CLQSORT_SUCCESS)
            verify(sc, &f, what);
    }
    tear_down(sc, &f);
    CHECK(fl_live_objects() == base_objects, "%s %s: %ld OpenCL objects left behind", sc->name, what,
          fl_live_objects() - base_objects);
    CHECK(tu_alloc_live == base_allocs, "%s %s: %ld host allocations left behind", sc->name, what, tu_alloc_live - base_allocs);
}

/* The clean run: the calls and host allocations the armed call makes, and its result verified. */
static size_t record(const scenario *sc, const char ***calls, long *allocs)
{
    fixture f;
    if (!set_up(sc, &f)) {
        CHECK(0, "%s: set-up failed", sc->name);
        return 0;
    }
    tu_alloc_calls = 0;
    fl_arm(NULL, 0, CL_SUCCESS);
    const clqsort_status s = armed_call(sc, &f);
    fl_disarm();
    *allocs = tu_alloc_calls;
    CHECK(s == CLQSORT_SUCCESS, "%s: clean run failed: %s", sc->name, clqsort_last_error(f.ctx));
    const size_t n = fl_trace_length();
    *calls = malloc((n + 1) * sizeof **calls);
    for (size_t i = 0; i < n; i++)
        (*calls)[i] = fl_trace_at(i);
    if (sc->kind == K_SORT || sc->kind == K_PAIRS || sc->kind == K_HOST || sc->kind == K_PARTIAL)
        verify(sc, &f, "clean run");
    clqsort_stats st;
    CHECK(sc->kind != K_PARTIAL || (clqsort_get_stats(f.ctx, &st) == CLQSORT_SUCCESS && st.selected_keys > 0),
          "%s: the clean run did not select", sc->name);
    tear_down(sc, &f);
    return n;
}

/* 1 if `name` is one of the comma-separated names in `list` */
static int listed(const char *list, const char *name)
{
    const size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == 0))
            return 1;
    return 0;
}

static void sweep(const scenario *sc, const char *only_entry)
{
    const char **calls;
    long allocs;
    const size_t n = record(sc, &calls, &allocs);
    const unsigned before = injections;
    size_t first_launch = n;
    for (size_t i = 0; i < n && first_launch == n; i++)
        if (!strcmp(calls[i], "clEnqueueNDRangeKernel"))
            first_launch = i;
    for (size_t i = 0; i < n; i++) {
        if (only_entry && !listed(only_entry, calls[i]))
            continue;
        unsigned k = 0, total = 0; /* this call is the k-th of its entry point, of total */
        for (size_t j = 0; j < n; j++)
            if (!strcmp(calls[j], calls[i])) {
                total++;
                if (j <= i)
                    k++;
            }
        inject(sc, calls[i], k, CL_OUT_OF_HOST_MEMORY, i < first_launch);
        if (k == 1 || k == total)
            inject(sc, calls[i], k, typical_error(calls[i]), i < first_launch);
        for (size_t a = 0; a < sizeof answers / sizeof answers[0]; a++)
            if (k == (answers[a].last ? total : 1) && !strcmp(answers[a].entry, calls[i]))
                inject(sc, calls[i], k, answers[a].err, i < first_launch);
    }
    for (long a = 1; a <= allocs && !only_entry; a++)
        inject(sc, NULL, (unsigned)a, 0, 1);
    printf("%-26s %4zu OpenCL calls, %ld host allocations: %u injections\n", sc->name, n, allocs, injections - before);
    free(calls);
}

int main(int argc, char **argv)
{
    const char *only = NULL, *only_entry = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--only"))
            only = argv[i + 1];
        else if (!strcmp(argv[i], "--entry"))
            only_entry = argv[i + 1];
    }
    clqsort_set_memory_allocator(tu_counting_malloc, tu_counting_free);
    /* the layer must be in the call chain, or nothing here would be tested */
    clqsort_context *probe = tu_create_or_die();
    if (!fl_active()) {
        fprintf(stderr, "test_faults: the fault layer is not active (set OPENCL_LAYERS to its file; ocl-icd >= 2.3)\n");
        return 1;
    }
    /* the program's own queue, for create_with_queue */
    cl_device_id dev = clqsort_cl_device(probe);
    cl_int err;
    own_context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    own_queue = clCreateCommandQueue(own_context, dev, 0, &err);
#pragma GCC diagnostic pop
    clqsort_release(probe);
    cl_uint refs_before = 0, refs_after = 0;
    clGetCommandQueueInfo(own_queue, CL_QUEUE_REFERENCE_COUNT, sizeof refs_before, &refs_before, NULL);

    base_objects = fl_live_objects();
    base_allocs = tu_alloc_live;
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        if (!only || listed(only, scenarios[i].name))
            sweep(&scenarios[i], only_entry);

    /* the program's queue has as many references as before all that */
    clGetCommandQueueInfo(own_queue, CL_QUEUE_REFERENCE_COUNT, sizeof refs_after, &refs_after, NULL);
    CHECK(refs_after == refs_before, "the program's queue has %u references, %u before", refs_after, refs_before);
    clReleaseCommandQueue(own_queue);
    clReleaseContext(own_context);
    printf("%u injections\n", injections);
    return tu_finish("test_faults");
}
