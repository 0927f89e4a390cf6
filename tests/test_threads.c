/*
 * test_threads.c - clqsort from many threads at once. The threads wait on a barrier, then:
 *   own       each creates a context (clqsort_create) and sorts every key type, keys and pairs,
 *             every result verified against the reference sort;
 *   shared    each makes a queue of its own on one OpenCL context and a clqsort context on it
 *             (clqsort_create_with_queue), then sorts the same way;
 *   busy      all use one clqsort context at once: each call either runs alone and sorts (verified)
 *             or is refused with CLQSORT_ERROR_CONTEXT_BUSY, leaving the buffer as it was; and a
 *             release while another thread is inside a call leaves the context alive.
 *
 *   test_threads [--threads N] [--types uint32,float,...] [--values 0,4,8] [--n KEYS]
 *                [--rounds R] [--mode own,shared,busy]
 */
#define _POSIX_C_SOURCE 200809L /* barriers */
#include "test_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static int nthreads = 8;
static size_t nkeys = 20000;
static int rounds = 20;
static int types[CLQSORT_KEY_DOUBLE + 1], ntypes;
static size_t value_sizes[3], nvalue_sizes;
static pthread_barrier_t start;

/* the program's own OpenCL context (shared mode) and the one clqsort context (busy mode) */
static cl_context shared_cl;
static cl_device_id device;
static clqsort_context *busy_ctx;
static atomic_int busy_refusals, busy_sorts, release_refusals;
static atomic_uint repeated_sorts; /* device-enqueue path: sorts repeated after a refused launch */

static cl_mem new_buffer(cl_context c, const void *data, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)data, &err);
    CHECK(m != NULL, "clCreateBuffer(%zu) failed with %d", bytes, (int)err);
    return m;
}

static void read_back(cl_command_queue q, cl_mem m, void *out, size_t bytes)
{
    cl_int err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "clEnqueueReadBuffer failed with %d", (int)err);
}

/* Sorts keys of `type` (with `vsize`-byte values, or none) on ctx and verifies the result. */
static void sort_and_verify(clqsort_context *ctx, int tid, clqsort_key_type type, size_t vsize, int desc)
{
    const size_t w = tu_width_of(type), n = nkeys;
    unsigned char *in = malloc(n * w), *out = malloc(n * w), *vals = malloc(n * 8), *vout = malloc(n * 8);
    tu_generate_typed(type, (tu_dist)((tid + (int)type) % TU_DIST_COUNT), in, n, 1000u * (unsigned)tid + type);
    tu_index_values(vals, vsize ? vsize : 4, n);
    cl_context c = clqsort_cl_context(ctx);
    cl_command_queue q = clqsort_cl_queue(ctx);
    cl_mem kb = new_buffer(c, in, n * w), vb = vsize ? new_buffer(c, vals, n * vsize) : NULL;
    const unsigned flags = desc ? CLQSORT_DESCENDING : 0;
    const clqsort_status s = vsize ? clqsort_sort_pairs(ctx, kb, vb, n, type, vsize, flags)
                                   : clqsort_sort(ctx, kb, n, type, flags);
    CHECK(s == CLQSORT_SUCCESS, "thread %d %s values %zu: %s", tid, tu_type_names[type], vsize, clqsort_last_error(ctx));
    if (s == CLQSORT_SUCCESS) {
        clqsort_stats st;
        clqsort_get_stats(ctx, &st);
        atomic_fetch_add(&repeated_sorts, st.repeats ? 1u : 0u);
        char why[256];
        read_back(q, kb, out, n * w);
        if (vsize)
            read_back(q, vb, vout, n * vsize);
        CHECK(vsize ? tu_verify_pairs(type, desc, in, out, vout, vsize, n, why, sizeof why)
                    : tu_verify_typed(type, desc, in, out, n, why, sizeof why),
              "thread %d %s values %zu %s: %s", tid, tu_type_names[type], vsize, desc ? "descending" : "ascending", why);
    }
    clReleaseMemObject(kb);
    if (vb)
        clReleaseMemObject(vb);
    free(in), free(out), free(vals), free(vout);
}

static void sort_everything(clqsort_context *ctx, int tid)
{
    for (int t = 0; t < ntypes; t++)
        for (size_t v = 0; v < nvalue_sizes; v++)
            sort_and_verify(ctx, tid, (clqsort_key_type)types[t], value_sizes[v], (tid + t) & 1);
}

static void *own_thread(void *arg)
{
    const int tid = (int)(size_t)arg;
    pthread_barrier_wait(&start);
    clqsort_context *ctx;
    const clqsort_status s = clqsort_create(&ctx, NULL);
    CHECK(s == CLQSORT_SUCCESS, "thread %d: clqsort_create: %s", tid, clqsort_last_error(NULL));
    if (s == CLQSORT_SUCCESS) {
        sort_everything(ctx, tid);
        clqsort_release(ctx);
    }
    return NULL;
}

static void *shared_thread(void *arg)
{
    const int tid = (int)(size_t)arg;
    pthread_barrier_wait(&start);
    cl_int err;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    cl_command_queue q = clCreateCommandQueue(shared_cl, device, 0, &err);
#pragma GCC diagnostic pop
    CHECK(q != NULL, "thread %d: clCreateCommandQueue failed with %d", tid, (int)err);
    if (!q)
        return NULL;
    clqsort_context *ctx;
    const clqsort_status s = clqsort_create_with_queue(&ctx, q, NULL);
    CHECK(s == CLQSORT_SUCCESS, "thread %d: clqsort_create_with_queue: %s", tid, clqsort_last_error(NULL));
    if (s == CLQSORT_SUCCESS) {
        CHECK(clqsort_cl_context(ctx) == shared_cl, "thread %d: not the program's context", tid);
        sort_everything(ctx, tid);
        clqsort_release(ctx);
    }
    clReleaseCommandQueue(q);
    return NULL;
}

/* One context, many threads: each call runs alone or is refused, never both at once. */
static void *busy_thread(void *arg)
{
    const int tid = (int)(size_t)arg;
    const size_t n = nkeys;
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
    tu_generate(TU_UNIFORM, in, n, 77u + (unsigned)tid);
    cl_mem kb = new_buffer(clqsort_cl_context(busy_ctx), in, n * 4);
    cl_command_queue q = clqsort_cl_queue(busy_ctx); /* the queue is thread-safe; the context is not */
    pthread_barrier_wait(&start);
    for (int r = 0; r < rounds; r++) {
        const clqsort_status s = clqsort_sort(busy_ctx, kb, n, CLQSORT_KEY_UINT32, 0);
        read_back(q, kb, out, n * 4);
        char why[256];
        if (s == CLQSORT_SUCCESS) {
            atomic_fetch_add(&busy_sorts, 1);
            CHECK(tu_verify(in, out, n, why, sizeof why), "busy thread %d round %d: %s", tid, r, why);
        } else {
            atomic_fetch_add(&busy_refusals, 1);
            CHECK(s == CLQSORT_ERROR_CONTEXT_BUSY, "busy thread %d round %d: status %d: %s", tid, r, s,
                  clqsort_last_error(NULL));
            CHECK(strstr(clqsort_last_error(NULL), "another thread") != NULL, "busy thread %d: message %s", tid,
                  clqsort_last_error(NULL));
            CHECK(!memcmp(in, out, n * 4), "busy thread %d round %d: a refused sort changed the keys", tid, r);
        }
        const clqsort_status w = clqsort_sort(busy_ctx, kb, 0, CLQSORT_KEY_UINT32, 0); /* a cheap call, to collide */
        CHECK(w == CLQSORT_SUCCESS || w == CLQSORT_ERROR_CONTEXT_BUSY, "busy thread %d: count 0: status %d", tid, w);
        clEnqueueWriteBuffer(q, kb, CL_TRUE, 0, n * 4, in, 0, NULL, NULL);
    }
    clReleaseMemObject(kb);
    free(in), free(out);
    return NULL;
}

/* A long sort on one thread; another releases the context while the sort runs: refused. */
static atomic_int long_sort_done;

static void *long_sort_thread(void *arg)
{
    cl_mem kb = arg;
    pthread_barrier_wait(&start);
    clqsort_status s;
    do /* the other thread's polling can hold the context for a moment */
        s = clqsort_sort(busy_ctx, kb, nkeys * 16, CLQSORT_KEY_UINT32, 0);
    while (s == CLQSORT_ERROR_CONTEXT_BUSY);
    CHECK(s == CLQSORT_SUCCESS, "long sort: %s", clqsort_last_error(busy_ctx));
    atomic_store(&long_sort_done, 1);
    return NULL;
}

/* 1 if the release was refused (and the context then released alone); 0 if the sort had
 * already ended, so the release went through */
static int release_while_busy(void)
{
    const size_t n = nkeys * 16;
    uint32_t *in = malloc(n * 4);
    tu_generate(TU_UNIFORM, in, n, 5);
    busy_ctx = tu_create_or_die();
    cl_mem kb = new_buffer(clqsort_cl_context(busy_ctx), in, n * 4);
    pthread_t t;
    atomic_store(&long_sort_done, 0);
    pthread_barrier_init(&start, NULL, 2);
    pthread_create(&t, NULL, long_sort_thread, kb);
    pthread_barrier_wait(&start);
    clqsort_stats st;
    /* wait until the sort is inside the context, then try to release it */
    while (!atomic_load(&long_sort_done) && clqsort_get_stats(busy_ctx, &st) == CLQSORT_SUCCESS)
        ;
    clqsort_release(busy_ctx);
    const int refused = strstr(clqsort_last_error(NULL), "another thread") != NULL;
    pthread_join(t, NULL);
    pthread_barrier_destroy(&start);
    clReleaseMemObject(kb);
    if (refused)
        clqsort_release(busy_ctx); /* alone now: this one goes through */
    busy_ctx = NULL;
    free(in);
    return refused;
}

static void run(const char *mode, void *(*fn)(void *))
{
    pthread_t *t = malloc((size_t)nthreads * sizeof *t);
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, fn, (void *)(size_t)i);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    free(t);
    printf("%s: %d threads done\n", mode, nthreads);
}

static int parse_list(const char *s, const char *const *names, int count, int *out)
{
    int n = 0;
    while (*s) {
        const size_t len = strcspn(s, ",");
        int found = -1;
        for (int i = 0; i < count; i++)
            if (strlen(names[i]) == len && !strncmp(s, names[i], len))
                found = i;
        if (found < 0) {
            fprintf(stderr, "test_threads: unknown \"%.*s\"\n", (int)len, s);
            exit(2);
        }
        out[n++] = found;
        s += len + (s[len] == ',');
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *modes = "own,shared,busy", *type_list = "uint32,int32,float,uint64,int64,double", *values = "0,4,8";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads"))
            nthreads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--types"))
            type_list = argv[i + 1];
        else if (!strcmp(argv[i], "--values"))
            values = argv[i + 1];
        else if (!strcmp(argv[i], "--n"))
            nkeys = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--mode"))
            modes = argv[i + 1];
    }
    if (nthreads < 2 || nkeys < 2) {
        fprintf(stderr, "test_threads: --threads >= 2 and --n >= 2\n");
        return 2;
    }
    ntypes = parse_list(type_list, tu_type_names, 6, types);
    static const char *const value_names[] = {"0", "4", "8"};
    int vi[3];
    nvalue_sizes = (size_t)parse_list(values, value_names, 3, vi);
    for (size_t i = 0; i < nvalue_sizes; i++)
        value_sizes[i] = 4 * (size_t)vi[i];
    printf("%d threads, %zu keys, types %s, value sizes %s\n", nthreads, nkeys, type_list, values);

    /* first, before any thread has touched OpenCL: the concurrent creation the library must survive */
    if (strstr(modes, "own"))
        run("own contexts", own_thread);

    clqsort_context *probe = tu_create_or_die();
    device = clqsort_cl_device(probe);
    if (strstr(modes, "shared")) {
        cl_int err;
        shared_cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
        CHECK(shared_cl != NULL, "clCreateContext failed with %d", (int)err);
        if (shared_cl) {
            run("contexts over one OpenCL context", shared_thread);
            clReleaseContext(shared_cl);
        }
    }
    printf("sorts repeated after the device refused a launch: %u\n", atomic_load(&repeated_sorts));
    if (strstr(modes, "busy")) {
        busy_ctx = probe;
        probe = NULL;
        run("one context, many threads", busy_thread);
        printf("busy: %d sorts ran, %d calls refused as busy\n", atomic_load(&busy_sorts), atomic_load(&busy_refusals));
        CHECK(atomic_load(&busy_sorts) > 0 && atomic_load(&busy_refusals) > 0,
              "expected both sorts and refusals when %d threads share a context (%d, %d)", nthreads,
              atomic_load(&busy_sorts), atomic_load(&busy_refusals));
        clqsort_release(busy_ctx);
        int refused = 0;
        for (int attempt = 0; attempt < 3 && !refused; attempt++)
            refused = release_while_busy();
        CHECK(refused, "a release while another thread sorted was never refused");
    }
    clqsort_release(probe);
    return tu_finish("test_threads");
}
