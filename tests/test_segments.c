/*
 * test_segments.c - segmented, stable, partial (top-k) and enqueued sorts, on the device the
 * environment selects.
 *
 *   test_segments [--tiny]
 *     --tiny   small inputs only (for oclgrind)
 *
 * Segments: every shape of tu_make_segments, for key types of both widths, both orders and
 * every value size, checked segment by segment against the reference sort, with every key and
 * value outside the segments unchanged. Stable sorts: the input order of equal keys kept, whole
 * and in segments. Partial sorts: k around every boundary, the first k keys the reference's and
 * the whole a permutation. Offsets out of range, decreasing or overlapping: the
 * device's refusal, with every buffer byte-identical; the host's refusals of the buffers.
 * Asynchronous calls: a sort held back by a user event in its wait list (the keys are rewritten
 * while it waits), a chain of the program's kernels and sorts on two queues with one wait,
 * more sorts in flight than the context follows, a refusal found by the device and reported by
 * clqsort_finish, events of sorts with nothing to do.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

static clqsort_context *ctx;
static cl_context clctx;
static cl_command_queue queue;

static int tiny; /* --tiny */
/* --partial-stress N: only the partial sorts of one size and key type, N times over (a rare
 * fault of pocl 3.1 that only many runs show: cl/select.cl, the kept composites) */
static int stress_size = -1, stress_config = -1;

/* --tiny (for oclgrind): a new context before each case. oclgrind 21.10 reports kernel-written
 * scratch as uninitialized once a context has reallocated its scratch buffers (test_sort.c);
 * pocl runs the reuse case in every suite without --tiny. */
static void renew_context_if_tiny(void)
{
    if (!tiny)
        return;
    clqsort_release(ctx);
    ctx = tu_create_or_die();
    clctx = clqsort_cl_context(ctx);
    queue = clqsort_cl_queue(ctx);
}

static cl_mem buffer(size_t bytes, const void *data, cl_mem_flags flags)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clctx, flags | (data ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 4, (void *)data, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer(%zu bytes) failed: %d\n", bytes, err);
        exit(2);
    }
    return m;
}

static void read_back(cl_mem m, size_t bytes, void *out)
{
    cl_int err = clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", err);
}

typedef struct config {
    clqsort_key_type type;
    int desc;
    size_t value_bytes;
} config;

/* One segmented sort of n keys of the config in the given shape, verified. */
static void sort_shape(const config *c, tu_seg_shape shape, size_t param, size_t n, const clqsort_info *info,
                       uint64_t seed)
{
    const size_t w = tu_width_of(c->type), vb = c->value_bytes;
    unsigned char *in = malloc(n * w + 1), *out = malloc(n * w + 1);
    unsigned char *vin = malloc(n * 8 + 1), *vout = malloc(n * 8 + 1);
    uint32_t *begin = malloc((n + 2) * 4), *end = malloc((n + 2) * 4);
    size_t segments;
    int ends_given;
    tu_generate_typed(c->type, TU_UNIFORM, in, n, seed);
    if (seed % 3 == 0) /* duplicates too */
        tu_generate_typed(c->type, TU_FEW_16, in, n, seed);
    tu_index_values(vin, vb ? vb : 4, n);
    tu_make_segments(shape, param, n, info->lqsort_small, info->lqsort_max, seed, begin, end, &segments, &ends_given);

    cl_mem k = buffer(n * w, in, CL_MEM_READ_WRITE), v = vb ? buffer(n * vb, vin, CL_MEM_READ_WRITE) : NULL;
    cl_mem bb = buffer((segments + 1) * 4, begin, CL_MEM_READ_ONLY);
    cl_mem eb = ends_given ? buffer(segments * 4 + 4, end, CL_MEM_READ_ONLY) : NULL;
    clqsort_status s = clqsort_sort_segments(ctx, k, 0, v, 0, n, c->type, vb, bb, eb, segments,
                                             c->desc ? CLQSORT_DESCENDING : 0);
    CHECK(s == CLQSORT_SUCCESS, "%s%s +%zu B, %s(%zu) n=%zu: status %d: %s", tu_type_names[c->type],
          c->desc ? " desc" : "", vb, tu_seg_shape_name(shape), param, n, s, clqsort_last_error(ctx));
    if (s == CLQSORT_SUCCESS) {
        read_back(k, n * w, out);
        if (vb)
            read_back(v, n * vb, vout);
        char why[300];
        CHECK(tu_verify_segments(c->type, c->desc, in, out, vin, vout, vb, n, begin, ends_given ? end : NULL, segments,
                                 why, sizeof why),
              "%s%s +%zu B, %s(%zu) n=%zu, %zu segments: %s", tu_type_names[c->type], c->desc ? " desc" : "", vb,
              tu_seg_shape_name(shape), param, n, segments, why);
    }
    clReleaseMemObject(k);
    if (v)
        clReleaseMemObject(v);
    clReleaseMemObject(bb);
    if (eb)
        clReleaseMemObject(eb);
    free(in), free(out), free(vin), free(vout), free(begin), free(end);
}

/* Segments long enough for two phase-one splits (2 lqsort_max x gqsort_ways keys each): their
 * roots split first by the bits the second split leaves over (relauncher.cl, clq_ways_log2),
 * fewer ways than a plain root takes wherever the ways are more than 4. */
static void long_segments(const clqsort_info *info)
{
    static const config configs[] = {{CLQSORT_KEY_UINT32, 0, 4}, {CLQSORT_KEY_FLOAT, 1, 0}};
    const size_t n = 4 * (size_t)info->lqsort_max * info->gqsort_ways + 1001;
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
        sort_shape(&configs[c], TU_SEG_FEW, 2, n, info, 1000 + c);
}

/* Invalid offsets: refused by the device with the first invalid segment named, nothing moved. */
static void invalid_segments(int enqueue)
{
    renew_context_if_tiny();
    /* segment 0 of the first cases is longer than phase two takes: phase one would move it */
    static const struct {
        const char *what;
        int ends_given;
        size_t segments;
        uint32_t begin[5], end[4];
        unsigned bad;
    } cases[] = {
        {"begin > end", 1, 3, {0, 15000, 16000}, {12000, 14000, 20000}, 1},
        {"end past count", 0, 2, {0, 12000, 20001}, {0}, 1},
        {"overlap", 1, 3, {0, 100, 400}, {150, 300, 1000}, 0},
        {"decreasing begins", 0, 4, {0, 16000, 14000, 18000, 20000}, {0}, 1},
        {"begin past count", 1, 2, {0, 25000}, {13000, 26000}, 1},
    };
    enum { N = 20000 };
    const size_t n = N;
    static uint32_t in[N], out[N], vin[N], vout[N];
    tu_generate(TU_UNIFORM, in, n, 99);
    for (size_t i = 0; i < n; i++)
        vin[i] = (uint32_t)i;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cl_mem k = buffer(sizeof in, in, CL_MEM_READ_WRITE), v = buffer(sizeof vin, vin, CL_MEM_READ_WRITE);
        cl_mem bb = buffer(sizeof cases[c].begin, cases[c].begin, CL_MEM_READ_ONLY);
        cl_mem eb = cases[c].ends_given ? buffer(sizeof cases[c].end, cases[c].end, CL_MEM_READ_ONLY) : NULL;
        clqsort_status s;
        if (enqueue) {
            cl_event ev = NULL;
            s = clqsort_enqueue_sort_segments(ctx, k, 0, v, 0, n, CLQSORT_KEY_UINT32, 4, bb, eb, cases[c].segments, 0,
                                              0, NULL, &ev);
            CHECK(s == CLQSORT_SUCCESS && ev, "%s (enqueued): the call itself: status %d: %s", cases[c].what, s,
                  clqsort_last_error(ctx));
            if (ev) {
                CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS, "%s: the sort's event did not complete", cases[c].what);
                clReleaseEvent(ev);
            }
            s = clqsort_finish(ctx);
        } else {
            s = clqsort_sort_segments(ctx, k, 0, v, 0, n, CLQSORT_KEY_UINT32, 4, bb, eb, cases[c].segments, 0);
        }
        char bad[64];
        snprintf(bad, sizeof bad, "segment %u of", cases[c].bad);
        const char *msg = clqsort_last_error(ctx);
        CHECK(s == CLQSORT_ERROR_INVALID_SEGMENTS && strstr(msg, bad) &&
                  (!enqueue || strstr(msg, "clqsort_enqueue_sort_segments")),
              "%s%s: status %d, message \"%s\" (expected CLQSORT_ERROR_INVALID_SEGMENTS naming %s)", cases[c].what,
              enqueue ? " (enqueued)" : "", s, msg, bad);
        read_back(k, sizeof out, out);
        read_back(v, sizeof vout, vout);
        CHECK(!memcmp(in, out, sizeof in) && !memcmp(vin, vout, sizeof vin), "%s: the keys or values changed",
              cases[c].what);
        if (enqueue)
            CHECK(clqsort_finish(ctx) == CLQSORT_SUCCESS, "%s: a second clqsort_finish still reports: %s",
                  cases[c].what, clqsort_last_error(ctx));
        clReleaseMemObject(k), clReleaseMemObject(v), clReleaseMemObject(bb);
        if (eb)
            clReleaseMemObject(eb);
    }
}

/* What the host refuses before anything is enqueued, the keys untouched. */
static void host_refusals(void)
{
    renew_context_if_tiny();
    uint32_t in[64], out[64], offs[3] = {0, 32, 64};
    tu_generate(TU_UNIFORM, in, 64, 5);
    cl_mem k = buffer(sizeof in, in, CL_MEM_READ_WRITE);
    cl_mem bb = buffer(sizeof offs, offs, CL_MEM_READ_ONLY), small = buffer(8, offs, CL_MEM_READ_ONLY);
    cl_mem wo = buffer(sizeof offs, NULL, CL_MEM_WRITE_ONLY);
    const struct {
        const char *what;
        cl_mem begin, end;
        size_t segments;
        clqsort_status want;
    } cases[] = {
        {"NULL begin", NULL, NULL, 2, CLQSORT_ERROR_NULL_BUFFER},
        {"begin too small", small, NULL, 2, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER},
        {"ends too small", bb, small, 3, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER},
        {"write-only offsets", wo, NULL, 2, CLQSORT_ERROR_BUFFER_ACCESS},
        {"offsets in the keys", k, NULL, 2, CLQSORT_ERROR_OVERLAPPING_BUFFERS},
        {"too many segments", bb, NULL, (size_t)CLQSORT_MAX_COUNT, CLQSORT_ERROR_COUNT_TOO_LARGE},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clqsort_status s = clqsort_sort_segments(ctx, k, 0, NULL, 0, 64, CLQSORT_KEY_UINT32, 0, cases[c].begin,
                                                 cases[c].end, cases[c].segments, 0);
        CHECK(s == cases[c].want, "%s: status %d, expected %d: %s", cases[c].what, s, cases[c].want,
              clqsort_last_error(ctx));
    }
    CHECK(clqsort_sort_segments(ctx, k, 0, k, 0, 64, CLQSORT_KEY_UINT32, 0, bb, NULL, 2, 0) ==
              CLQSORT_ERROR_INVALID_ARGUMENT,
          "values with value_size 0: %s", clqsort_last_error(ctx));
    CHECK(clqsort_sort_segments(ctx, k, 0, NULL, 0, 64, CLQSORT_KEY_UINT32, 0, bb, NULL, 0, 0) == CLQSORT_SUCCESS,
          "no segments: %s", clqsort_last_error(ctx));
    cl_event ev = NULL;
    CHECK(clqsort_enqueue_sort(ctx, k, 0, NULL, 0, 64, CLQSORT_KEY_UINT32, 0, 0, 1, NULL, &ev) ==
              CLQSORT_ERROR_INVALID_ARGUMENT && !ev,
          "a wait list of 1 event that is NULL: %s", clqsort_last_error(ctx));
    read_back(k, sizeof out, out);
    CHECK(!memcmp(in, out, sizeof in), "a refused call changed the keys");
    clReleaseMemObject(k), clReleaseMemObject(bb), clReleaseMemObject(small), clReleaseMemObject(wo);
}

/* A sort waits for the events of its wait list: the keys are rewritten, through another queue,
 * while a user event holds it back, and the sort must see the new keys. Three sorts: 5000 keys
 * (the tile path; the status words' write takes the wait list), and 300007 keys in full (phase
 * one) and with `partial` a partial sort of k = 16 that selects its candidates first, whose
 * first launches take the wait list and the status words instead (src/sort.c,
 * words_by_launch). */
static void waits_for_its_events(size_t N, int partial)
{
    enum { MOST = 300007, K = 16 };
    static uint32_t first[MOST], second[MOST], out[MOST], ref[MOST];
    tu_generate(TU_UNIFORM, first, N, 1);
    tu_generate(TU_GAUSSIAN, second, N, 2);
    cl_int err;
    cl_mem k = buffer(N * 4, first, CL_MEM_READ_WRITE);
    cl_event gate = clCreateUserEvent(clctx, &err);
    cl_device_id dev = clqsort_cl_device(ctx);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    cl_command_queue other = clCreateCommandQueue(clctx, dev, 0, &err);
#pragma GCC diagnostic pop
    cl_event done = NULL;
    clqsort_status s = partial ? clqsort_enqueue_partial_sort(ctx, k, 0, NULL, 0, N, CLQSORT_KEY_UINT32, 0, K, 0, 1,
                                                              &gate, &done)
                               : clqsort_enqueue_sort(ctx, k, 0, NULL, 0, N, CLQSORT_KEY_UINT32, 0, 0, 1, &gate, &done);
    CHECK(s == CLQSORT_SUCCESS && done, "enqueue behind a user event%s: %d: %s", partial ? " (partial)" : "", s,
          clqsort_last_error(ctx));
    /* a sort that ignored its wait list would have finished after a flush and a while */
    clFlush(queue);
    cl_int state = CL_COMPLETE;
    for (int i = 0; i < 20 && done; i++) {
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
    }
    CHECK(state != CL_COMPLETE, "the sort completed before its wait list had");
    err = clEnqueueWriteBuffer(other, k, CL_TRUE, 0, N * 4, second, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "rewriting the keys: %d", err);
    clSetUserEventStatus(gate, CL_COMPLETE);
    if (done) {
        CHECK(clWaitForEvents(1, &done) == CL_SUCCESS, "waiting for the sort's event");
        clReleaseEvent(done);
    }
    CHECK(clqsort_finish(ctx) == CLQSORT_SUCCESS, "clqsort_finish: %s", clqsort_last_error(ctx));
    read_back(k, N * 4, out);
    char why[256];
    if (partial) { /* the K smallest of the new keys in order, the whole a permutation of them */
        clqsort_stats st = {0};
        clqsort_get_stats(ctx, &st);
        CHECK(st.selected_keys >= K, "the partial sort behind the user event did not select (%u candidates)",
              st.selected_keys);
        memcpy(ref, second, N * 4);
        tu_sort_typed(CLQSORT_KEY_UINT32, 0, ref, N);
        CHECK(!memcmp(out, ref, K * 4), "the partial sort behind the user event: the first %d keys are wrong", K);
        tu_sort_typed(CLQSORT_KEY_UINT32, 0, out, N);
        CHECK(!memcmp(out, ref, N * 4), "the partial sort behind the user event: not a permutation of the new keys");
    } else {
        CHECK(tu_verify(second, out, N, why, sizeof why), "the sort behind the user event: %s", why);
    }
    clReleaseEvent(gate);
    clReleaseCommandQueue(other);
    clReleaseMemObject(k);
}

/* The program's own kernels around enqueued sorts, on two queues, one wait at the end:
 * make keys (queue B) -> sort them (waits for B's event) -> add one to each (the context's
 * queue) -> segmented sort of the result descending -> read, waited for once. */
static void chain_with_program_kernels(void)
{
    static const char *src =
        "__kernel void make(__global uint *k) { uint i = get_global_id(0); uint x = i * 2654435761u;"
        " x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; k[i] = x >> 1; }\n"
        "__kernel void add_one(__global uint *k) { k[get_global_id(0)] += 1u; }\n";
    enum { N = 20000 };
    cl_int err;
    cl_device_id dev = clqsort_cl_device(ctx);
    cl_program prog = clCreateProgramWithSource(clctx, 1, &src, NULL, &err);
    err = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
    CHECK(err == CL_SUCCESS, "building the program's kernels: %d", err);
    cl_kernel make = clCreateKernel(prog, "make", &err), add_one = clCreateKernel(prog, "add_one", &err);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    cl_command_queue other = clCreateCommandQueue(clctx, dev, 0, &err);
#pragma GCC diagnostic pop
    cl_mem k = buffer(N * 4, NULL, CL_MEM_READ_WRITE);
    uint32_t offs[3] = {0, N / 3, N};
    cl_mem bb = buffer(sizeof offs, offs, CL_MEM_READ_ONLY);
    clSetKernelArg(make, 0, sizeof k, &k);
    clSetKernelArg(add_one, 0, sizeof k, &k);
    const size_t global = N;
    cl_event made = NULL, sorted = NULL, resorted = NULL, read = NULL;
    err = clEnqueueNDRangeKernel(other, make, 1, NULL, &global, NULL, 0, NULL, &made);
    clFlush(other);
    clqsort_status s = clqsort_enqueue_sort(ctx, k, 0, NULL, 0, N, CLQSORT_KEY_UINT32, 0, 0, 1, &made, &sorted);
    CHECK(s == CLQSORT_SUCCESS, "sort after the program's kernel: %s", clqsort_last_error(ctx));
    if (!sorted)
        goto done;
    err |= clEnqueueNDRangeKernel(queue, add_one, 1, NULL, &global, NULL, 1, &sorted, NULL);
    s = clqsort_enqueue_sort_segments(ctx, k, 0, NULL, 0, N, CLQSORT_KEY_UINT32, 0, bb, NULL, 2, CLQSORT_DESCENDING,
                                      0, NULL, &resorted);
    CHECK(s == CLQSORT_SUCCESS, "segmented sort after the program's kernel: %s", clqsort_last_error(ctx));
    if (!resorted)
        goto done; /* failed above: no event to chain on (a crash would hide the checks after) */
    static uint32_t out[N], expect[N];
    err |= clEnqueueReadBuffer(queue, k, CL_FALSE, 0, sizeof out, out, 1, &resorted, &read);
    CHECK(err == CL_SUCCESS, "the program's commands: %d", err);
    CHECK(clWaitForEvents(1, &read) == CL_SUCCESS, "the one wait");
    for (uint32_t i = 0; i < N; i++) { /* the same keys as the kernel made */
        uint32_t x = i * 2654435761u;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        expect[i] = (x >> 1) + 1;
    }
    tu_sort_typed(CLQSORT_KEY_UINT32, 0, expect, N);
    char why[256];
    uint32_t ends[2] = {N / 3, N};
    CHECK(tu_verify_segments(CLQSORT_KEY_UINT32, 1, (const unsigned char *)expect, (const unsigned char *)out, NULL,
                             NULL, 0, N, offs, ends, 2, why, sizeof why),
          "make -> sort -> add one -> segmented sort: %s", why);
    CHECK(clqsort_finish(ctx) == CLQSORT_SUCCESS, "clqsort_finish after the chain: %s", clqsort_last_error(ctx));
done:
    (void)clFinish(queue);
    (void)clFinish(other);
    const cl_event events[] = {made, sorted, resorted, read};
    for (int i = 0; i < 4; i++)
        if (events[i])
            clReleaseEvent(events[i]);
    clReleaseKernel(make), clReleaseKernel(add_one), clReleaseProgram(prog), clReleaseCommandQueue(other);
    clReleaseMemObject(k), clReleaseMemObject(bb);
}

/* More sorts in flight than the context follows, one with invalid segments among them: every
 * valid one sorted, the invalid one reported by clqsort_finish with its position. */
static void many_in_flight(void)
{
    enum { SORTS = CLQSORT_MAX_PENDING + 6, N = 3000, BAD = 3 }; /* collected when the ring is full */
    static uint32_t in[SORTS][N], out[N];
    cl_mem k[SORTS];
    uint32_t bad_offsets[3] = {0, 2000, 1000};
    cl_mem bb = buffer(sizeof bad_offsets, bad_offsets, CL_MEM_READ_ONLY);
    for (int i = 0; i < SORTS; i++) {
        tu_generate((tu_dist)(i % TU_DIST_COUNT), in[i], N, (uint64_t)i);
        k[i] = buffer(sizeof in[i], in[i], CL_MEM_READ_WRITE);
        const clqsort_status s = i == BAD ? clqsort_enqueue_sort_segments(ctx, k[i], 0, NULL, 0, N, CLQSORT_KEY_UINT32,
                                                                          0, bb, NULL, 2, 0, 0, NULL, NULL)
                                          : clqsort_enqueue_sort(ctx, k[i], 0, NULL, 0, N, CLQSORT_KEY_UINT32, 0, 0, 0,
                                                                 NULL, NULL);
        CHECK(s == CLQSORT_SUCCESS, "enqueue %d: %s", i, clqsort_last_error(ctx));
    }
    const clqsort_status s = clqsort_finish(ctx);
    CHECK(s == CLQSORT_ERROR_INVALID_SEGMENTS && strstr(clqsort_last_error(ctx), "segment 1 of"),
          "%d sorts in flight, #%d invalid: clqsort_finish gave %d: %s", SORTS, BAD, s, clqsort_last_error(ctx));
    for (int i = 0; i < SORTS; i++) {
        read_back(k[i], sizeof out, out);
        char why[256];
        if (i == BAD)
            CHECK(!memcmp(in[i], out, sizeof out), "the refused sort #%d moved keys", i);
        else
            CHECK(tu_verify(in[i], out, N, why, sizeof why), "enqueued sort %d: %s", i, why);
        clReleaseMemObject(k[i]);
    }
    clReleaseMemObject(bb);
    CHECK(clqsort_finish(ctx) == CLQSORT_SUCCESS, "clqsort_finish with nothing in flight: %s", clqsort_last_error(ctx));
}

static void *set_later(void *gate)
{
    nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    clSetUserEventStatus((cl_event)gate, CL_COMPLETE);
    return NULL;
}

/* Sorts with nothing to do still give an event that completes after their wait list; a context
 * released with sorts in flight waits for them. */
static void trivial_and_release(void)
{
    uint32_t one = 7;
    cl_mem k = buffer(4, &one, CL_MEM_READ_WRITE);
    cl_event ev = NULL;
    clqsort_status s = clqsort_enqueue_sort(ctx, k, 0, NULL, 0, 1, CLQSORT_KEY_UINT32, 0, 0, 0, NULL, &ev);
    CHECK(s == CLQSORT_SUCCESS && ev && clWaitForEvents(1, &ev) == CL_SUCCESS, "one key, enqueued: %d: %s", s,
          clqsort_last_error(ctx));
    if (ev)
        clReleaseEvent(ev);
    clReleaseMemObject(k);

    /* a sort with nothing to do, held back by a user event that another thread sets later:
     * clqsort_finish waits for it like for any enqueued sort */
    cl_int err;
    cl_event gate = clCreateUserEvent(clctx, &err);
    ev = NULL;
    s = clqsort_enqueue_partial_sort(ctx, k = buffer(4, &one, CL_MEM_READ_WRITE), 0, NULL, 0, 1, CLQSORT_KEY_UINT32, 0,
                                     0, 0, 1, &gate, &ev);
    pthread_t setter;
    pthread_create(&setter, NULL, set_later, gate);
    const clqsort_status f = clqsort_finish(ctx);
    cl_int state = CL_QUEUED;
    if (ev)
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
    CHECK(s == CLQSORT_SUCCESS && f == CLQSORT_SUCCESS && state == CL_COMPLETE,
          "k = 0 behind a user event: clqsort_finish returned %d before the event completed (status %d)", f, state);
    pthread_join(setter, NULL);
    if (ev)
        clReleaseEvent(ev);
    clReleaseEvent(gate);
    clReleaseMemObject(k);

    clqsort_context *other = tu_create_or_die();
    enum { N = 50000 };
    static uint32_t in[N], out[N];
    tu_generate(TU_UNIFORM, in, N, 3);
    cl_mem kb = clCreateBuffer(clqsort_cl_context(other), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    for (int i = 0; i < 3; i++)
        CHECK(clqsort_enqueue_sort(other, kb, 0, NULL, 0, N, CLQSORT_KEY_UINT32, 0, i % 2 ? CLQSORT_DESCENDING : 0, 0,
                                   NULL, NULL) == CLQSORT_SUCCESS,
              "enqueue before release: %s", clqsort_last_error(other));
    cl_command_queue q = clqsort_cl_queue(other);
    clRetainCommandQueue(q);
    clqsort_release(other); /* waits for the three sorts */
    err = clEnqueueReadBuffer(q, kb, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    char why[256];
    CHECK(err == CL_SUCCESS && tu_verify(in, out, N, why, sizeof why), "three sorts, then release: %d %s", err, why);
    clReleaseCommandQueue(q);
    clReleaseMemObject(kb);
}

/* CLQSORT_STABLE: pairs with many equal keys, whole and in segments, both orders, values of both
 * sizes; the input order of equal keys kept, besides order and permutation. */
static void stable_sorts(void)
{
    const size_t n = tiny ? 1200 : 150000;
    static const clqsort_key_type types[] = {CLQSORT_KEY_UINT32, CLQSORT_KEY_FLOAT, CLQSORT_KEY_INT32};
    unsigned char *in = malloc(n * 4), *out = malloc(n * 4), *vin = malloc(n * 8), *vout = malloc(n * 8);
    uint32_t *begin = malloc((n + 2) * 4), *end = malloc((n + 2) * 4);
    /* --tiny (oclgrind, 10 s a case): uint32 alone, whose two orders take both value sizes; the
     * other types differ only in the code they map keys to, which the pocl run covers */
    for (int t = 0; t < (tiny ? 1 : 3); t++)
        for (int desc = 0; desc < 2; desc++)
            for (int seg = 0; seg < 2; seg++) {
                renew_context_if_tiny();
                const size_t vb = (t + desc) % 2 ? 8 : 4, w = 4;
                const clqsort_key_type type = types[t];
                tu_generate_typed(type, t == 1 ? TU_FEW_16 : TU_MANY_DUPLICATES, in, n, 40 + t);
                tu_index_values(vin, vb, n);
                size_t segments = 0;
                int ends_given = 0;
                if (seg)
                    tu_make_segments(TU_SEG_GAPS, 3000, n, 32, 4096, 8, begin, end, &segments, &ends_given);
                cl_mem k = buffer(n * w, in, CL_MEM_READ_WRITE), v = buffer(n * vb, vin, CL_MEM_READ_WRITE);
                cl_mem bb = seg ? buffer((segments + 1) * 4, begin, CL_MEM_READ_ONLY) : NULL;
                cl_mem eb = seg && ends_given ? buffer(segments * 4 + 4, end, CL_MEM_READ_ONLY) : NULL;
                const unsigned flags = CLQSORT_STABLE | (desc ? CLQSORT_DESCENDING : 0);
                clqsort_status s = seg ? clqsort_sort_segments(ctx, k, 0, v, 0, n, type, vb, bb, eb, segments, flags)
                                       : clqsort_sort_pairs(ctx, k, v, n, type, vb, flags);
                CHECK(s == CLQSORT_SUCCESS, "stable %s%s +%zu B%s: %d: %s", tu_type_names[type], desc ? " desc" : "",
                      vb, seg ? " segments" : "", s, clqsort_last_error(ctx));
                if (s == CLQSORT_SUCCESS) {
                    read_back(k, n * w, out);
                    read_back(v, n * vb, vout);
                    char why[300] = "";
                    const int ok = seg ? tu_verify_segments(type, desc, in, out, vin, vout, vb, n, begin,
                                                            ends_given ? end : NULL, segments, why, sizeof why)
                                       : tu_verify_pairs(type, desc, in, out, vout, vb, n, why, sizeof why);
                    CHECK(ok, "stable %s%s +%zu B%s: %s", tu_type_names[type], desc ? " desc" : "", vb,
                          seg ? " segments" : "", why);
                    CHECK(tu_verify_stable(type, out, vout, vb, n, why, sizeof why), "stable %s%s +%zu B%s: %s",
                          tu_type_names[type], desc ? " desc" : "", vb, seg ? " segments" : "", why);
                }
                clReleaseMemObject(k), clReleaseMemObject(v);
                if (bb)
                    clReleaseMemObject(bb);
                if (eb)
                    clReleaseMemObject(eb);
            }
    /* keys alone, enqueued, stable: sorted like any sort */
    renew_context_if_tiny();
    tu_generate_typed(CLQSORT_KEY_UINT32, TU_FEW_2, in, n, 3);
    cl_mem k = buffer(n * 4, in, CL_MEM_READ_WRITE);
    CHECK(clqsort_enqueue_sort(ctx, k, 0, NULL, 0, n, CLQSORT_KEY_UINT32, 0, CLQSORT_STABLE, 0, NULL, NULL) ==
                  CLQSORT_SUCCESS &&
              clqsort_finish(ctx) == CLQSORT_SUCCESS,
          "stable keys, enqueued: %s", clqsort_last_error(ctx));
    read_back(k, n * 4, out);
    char why[256];
    CHECK(tu_verify_typed(CLQSORT_KEY_UINT32, 0, in, out, n, why, sizeof why), "stable keys, enqueued: %s", why);
    CHECK(clqsort_sort(ctx, k, n, CLQSORT_KEY_UINT64, CLQSORT_STABLE) == CLQSORT_ERROR_UNSUPPORTED_TYPE,
          "a stable sort of 64-bit keys was accepted");
    clReleaseMemObject(k);
    free(in), free(out), free(vin), free(vout), free(begin), free(end);
}

/* Whether a partial sort selects first (clqsort.h): 32-bit keys, 2 k + select_slack <= count / 4
 * on a device with 64-bit atomics and the local memory the header names, the slack 65536 unless
 * CLQSORT_TUNING sets it. */
static size_t select_slack(void)
{
    const char *env = getenv("CLQSORT_TUNING"), *at = env ? strstr(env, "select_slack=") : NULL;
    return at ? strtoul(at + strlen("select_slack="), NULL, 10) : 65536;
}

static int selects(clqsort_key_type type, size_t n, size_t k, const clqsort_info *info)
{
    const size_t slack = select_slack();
    const int has64 = clqsort_scratch_bytes(ctx, 2, CLQSORT_KEY_UINT64, 0, &(size_t){0}) == CLQSORT_SUCCESS;
    const int local = info->local_mem_size >= 4096u * 4 + 1024u * 8 + 8u * info->gqsort_work_group + 64;
    return has64 && local && tu_width_of(type) == 4 && k > 0 && 2 * k + slack <= n / 4;
}

/* Moves the keys of ref[0, 6) (the smallest by the order) to the first three and the last three
 * positions of `in`, where a selection reads keys one by one rather than four at a time. */
static void smallest_to_ends(unsigned char *in, const unsigned char *ref, size_t n, size_t w)
{
    if (n < 12)
        return;
    const size_t to[6] = {0, 1, 2, n - 3, n - 2, n - 1};
    for (size_t j = 0; j < 6; j++) {
        size_t at = 0; /* an occurrence of ref[j] at a position not yet filled */
        for (;; at++) {
            int filled = 0;
            for (size_t f = 0; f < j; f++)
                filled |= to[f] == at;
            if (!filled && !memcmp(in + at * w, ref + j * w, w))
                break;
        }
        unsigned char tmp[8];
        memcpy(tmp, in + at * w, w);
        memcpy(in + at * w, in + to[j] * w, w);
        memcpy(in + to[j] * w, tmp, w);
    }
}

/* The first of out[0, k) whose key differs from ref's by the documented order (tu_code_of:
 * every NaN equal, whatever its payload); k if none does. */
static size_t first_differing_key(clqsort_key_type t, const unsigned char *out, const unsigned char *ref, size_t k)
{
    const size_t w = tu_width_of(t);
    for (size_t i = 0; i < k; i++)
        if (tu_code_of(t, out + i * w) != tu_code_of(t, ref + i * w))
            return i;
    return k;
}

/* Partial sorts: k around every boundary (2048: the selection's sort in one group), for key
 * types of both widths, with and without values; the first k keys exactly the reference's, the
 * whole a permutation of the input. */
static void partial_sorts(const clqsort_info *info)
{
    /* --tiny: 2200 keys, so that under oclgrind's small tuning (select_slack 16, lq_max 256)
     * k = lq_max + 1 still selects (its 2 k + 16 candidates at most a quarter of the keys) */
    const size_t sizes[] = {tiny ? 300 : 3000, tiny ? 2200 : 200003, tiny ? 0 : 300007};
    static const config configs[] = {
        {CLQSORT_KEY_UINT32, 0, 0}, {CLQSORT_KEY_FLOAT, 1, 8}, {CLQSORT_KEY_UINT64, 0, 4}, {CLQSORT_KEY_INT32, 1, 0}};
    static const tu_dist dists[] = {TU_UNIFORM, TU_FEW_2, TU_POWER_LAW};
    unsigned selecting = 0, second_rounds = 0; /* partial sorts that selected; of them, in two rounds */
    for (size_t si = 0; si < 3 && sizes[si]; si++) {
        const size_t n = sizes[si], lq = info->lqsort_max, sm = info->lqsort_small;
        if (stress_size >= 0 && si != (size_t)stress_size)
            continue;
        const size_t ks[] = {0, 1, 2, sm, lq / 2 - 1, lq / 2 + 1, lq, lq + 1, 2048, 2049, n / 3, n - 1, n};
        unsigned char *in = malloc(n * 8), *out = malloc(n * 8), *ref = malloc(n * 8), *vin = malloc(n * 8),
                      *vout = malloc(n * 8);
        for (size_t c = 0; c < (tiny ? 2 : sizeof configs / sizeof configs[0]); c++) {
            const config *cf = &configs[c];
            if (stress_config >= 0 && c != (size_t)stress_config)
                continue;
            const size_t w = tu_width_of(cf->type), vb = cf->value_bytes;
            if (w == 8 && clqsort_scratch_bytes(ctx, 2, cf->type, 0, &(size_t){0}) != CLQSORT_SUCCESS)
                continue; /* no 64-bit atomics: said by the stable test's line */
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
                const size_t k = ks[ki];
                if (k > n || (tiny && (ki + c) % 2))
                    continue; /* --tiny (oclgrind, 2 s a sort): each k under one of the two configs */
                renew_context_if_tiny();
                const tu_dist d = dists[(ki + c) % 3];
                tu_generate_typed(cf->type, d, in, n, n + ki);
                tu_index_values(vin, vb ? vb : 4, n);
                memcpy(ref, in, n * w);
                tu_sort_typed(cf->type, cf->desc, ref, n);
                smallest_to_ends(in, ref, n, w);
                /* stable: 32-bit keys with values, every other k */
                const unsigned stable = w == 4 && vb && ki % 2 ? CLQSORT_STABLE : 0;
                /* the keys start `off` keys into their buffer (every alignment of 16 bytes), guard
                 * keys before and after them that would be the answer's first if read; the values
                 * `voff` into theirs */
                const size_t off = ki % 4, guard = 3, voff = ki % 2;
                unsigned char *whole = malloc((n + off + guard) * w);
                for (size_t g = 0; g < n + off + guard; g++)
                    memcpy(whole + g * w, ref, w);
                memcpy(whole + off * w, in, n * w);
                unsigned char *vwhole = malloc((n + 1) * 8);
                memset(vwhole, 0x5a, (n + 1) * 8);
                if (vb)
                    memcpy(vwhole + voff * vb, vin, n * vb);
                cl_mem kb = buffer((n + off + guard) * w, whole, CL_MEM_READ_WRITE),
                       v = vb ? buffer((n + voff) * vb, vwhole, CL_MEM_READ_WRITE) : NULL;
                clqsort_status s = clqsort_partial_sort(ctx, kb, off, v, voff, n, cf->type, vb, k,
                                                        (cf->desc ? CLQSORT_DESCENDING : 0) | stable);
                CHECK(s == CLQSORT_SUCCESS, "partial %s%s +%zu B n=%zu k=%zu: %d: %s", tu_type_names[cf->type],
                      cf->desc ? " desc" : "", vb, n, k, s, clqsort_last_error(ctx));
                clqsort_stats st = {0};
                clqsort_get_stats(ctx, &st);
                /* the selection where the header promises it, and never more candidates than 2 k + slack */
                CHECK(s != CLQSORT_SUCCESS || (st.selected_keys != 0) == selects(cf->type, n, k, info),
                      "partial %s n=%zu k=%zu: selected %u keys, expected %s", tu_type_names[cf->type], n, k,
                      st.selected_keys, selects(cf->type, n, k, info) ? "a selection" : "none");
                CHECK(st.selected_keys == 0 || (st.selected_keys >= k && st.selected_keys <= n / 4),
                      "partial %s n=%zu k=%zu: %u candidates", tu_type_names[cf->type], n, k, st.selected_keys);
                selecting += st.selected_keys != 0;
                /* a blocking selection waits once, or twice where its first round's one level was
                 * not enough (src/sort.c, select_first_round); every other sort once, if it has work */
                CHECK(s != CLQSORT_SUCCESS || st.host_round_trips <= 1 || (st.selected_keys && st.host_round_trips == 2),
                      "partial %s n=%zu k=%zu (%s): %u round trips, %u candidates", tu_type_names[cf->type], n, k,
                      tu_dist_name(d), st.host_round_trips, st.selected_keys);
                second_rounds += st.selected_keys && st.host_round_trips == 2;
                if (s == CLQSORT_SUCCESS) {
                    unsigned char *back = malloc((n + off + guard) * w);
                    read_back(kb, (n + off + guard) * w, back);
                    CHECK(!memcmp(back, whole, off * w) && !memcmp(back + (off + n) * w, whole + (off + n) * w, guard * w),
                          "partial %s n=%zu k=%zu at key %zu: a key outside the sort changed", tu_type_names[cf->type],
                          n, k, off);
                    memcpy(out, back + off * w, n * w);
                    free(back);
                    if (vb) {
                        unsigned char *vback = malloc((n + voff) * vb);
                        read_back(v, (n + voff) * vb, vback);
                        CHECK(!memcmp(vback, vwhole, voff * vb), "partial n=%zu k=%zu: a value before the values changed",
                              n, k);
                        memcpy(vout, vback + voff * vb, n * vb);
                        free(vback);
                    }
                    char why[300] = "";
                    const size_t bad = first_differing_key(cf->type, out, ref, k);
                    CHECK(bad == k, "partial %s%s n=%zu k=%zu (%s): key %zu of the first k differs from the "
                          "reference's", tu_type_names[cf->type], cf->desc ? " desc" : "", n, k, tu_dist_name(d), bad);
                    /* the whole a permutation: its values name each input position once, with its key;
                     * keys alone: sorted, it is the reference sort of the input (ref) */
                    int ok;
                    if (vb) {
                        ok = tu_verify_values(cf->type, in, out, vout, vb, n, why, sizeof why);
                    } else {
                        tu_sort_typed(cf->type, cf->desc, out, n);
                        ok = tu_verify_sorted(cf->type, cf->desc, ref, out, n, why, sizeof why);
                    }
                    if (ok && stable) /* equal keys among the first k in input order */
                        ok = tu_verify_stable(cf->type, out, vout, vb, k, why, sizeof why);
                    CHECK(ok, "partial %s%s +%zu B n=%zu k=%zu (%s)%s: %s", tu_type_names[cf->type],
                          cf->desc ? " desc" : "", vb, n, k, tu_dist_name(d), stable ? " stable" : "", why);
                }
                clReleaseMemObject(kb);
                if (v)
                    clReleaseMemObject(v);
                free(whole), free(vwhole);
            }
        }
        free(in), free(out), free(ref), free(vin), free(vout);
    }
    printf("partial sorts: %u selected their candidates first, %u of them in two rounds\n", selecting, second_rounds);
    /* both kinds of selection ran: uniform keys in one round, two equal keys' many composites in two
     * (where the device selects at all: the line above says how many did) */
    CHECK(tiny || !selecting || (second_rounds > 0 && second_rounds < selecting),
          "%u of %u selections took two rounds", second_rounds, selecting);
    /* k > count refused, the keys untouched; enqueued with an event */
    uint32_t keys[100], back[100];
    tu_generate(TU_UNIFORM, keys, 100, 4);
    cl_mem kb = buffer(sizeof keys, keys, CL_MEM_READ_WRITE);
    CHECK(clqsort_partial_sort(ctx, kb, 0, NULL, 0, 100, CLQSORT_KEY_UINT32, 0, 101, 0) ==
              CLQSORT_ERROR_INVALID_ARGUMENT,
          "k > count: %s", clqsort_last_error(ctx));
    read_back(kb, sizeof back, back);
    CHECK(!memcmp(keys, back, sizeof keys), "k > count changed the keys");
    cl_event ev = NULL;
    CHECK(clqsort_enqueue_partial_sort(ctx, kb, 0, NULL, 0, 100, CLQSORT_KEY_UINT32, 0, 10, 0, 0, NULL, &ev) ==
                  CLQSORT_SUCCESS &&
              ev && clWaitForEvents(1, &ev) == CL_SUCCESS && clqsort_finish(ctx) == CLQSORT_SUCCESS,
          "enqueued partial sort: %s", clqsort_last_error(ctx));
    if (ev)
        clReleaseEvent(ev);
    read_back(kb, sizeof back, back);
    tu_sort_typed(CLQSORT_KEY_UINT32, 0, keys, 100);
    CHECK(!memcmp(keys, back, 10 * 4), "enqueued partial sort: the first 10 keys");
    clReleaseMemObject(kb);
}

/* The answer of a partial sort of n 32-bit keys `in` of type t with their indices as vbytes-byte
 * values, left in kb and vb: the first k keys those of the reference sort `ref`, and the whole a
 * permutation whose values name each input position once, with its key. */
static void check_selected(cl_mem kb, cl_mem vb, clqsort_key_type t, size_t vbytes, const void *in, const void *ref,
                           size_t n, size_t k, const char *what)
{
    unsigned char *out = malloc(n * 4), *vals = malloc(n * vbytes);
    read_back(kb, n * 4, out);
    read_back(vb, n * vbytes, vals);
    const size_t bad = first_differing_key(t, out, ref, k);
    CHECK(bad == k, "%s n=%zu k=%zu: key %zu of the first k differs from the reference's", what, n, k, bad);
    char why[300] = "";
    CHECK(tu_verify_values(t, in, out, vals, vbytes, n, why, sizeof why), "%s n=%zu k=%zu: %s", what, n, k, why);
    free(out), free(vals);
}

/* A blocking partial sort of the n 32-bit keys `in` of type t (flags as for clqsort_partial_sort)
 * with their indices as vbytes-byte values, each in a buffer of its own: its stats in *st, and
 * where it succeeded its answer checked against `ref` (check_selected). */
static clqsort_status select_checked(clqsort_key_type t, unsigned flags, size_t vbytes, const void *in, const void *ref,
                                     size_t n, size_t k, const char *what, clqsort_stats *st)
{
    unsigned char *vals = malloc(n * vbytes);
    tu_index_values(vals, vbytes, n);
    cl_mem kb = buffer(n * 4, in, CL_MEM_READ_WRITE), vb = buffer(n * vbytes, vals, CL_MEM_READ_WRITE);
    const clqsort_status s = clqsort_partial_sort(ctx, kb, 0, vb, 0, n, t, vbytes, k, flags);
    *st = (clqsort_stats){0};
    clqsort_get_stats(ctx, st);
    if (s == CLQSORT_SUCCESS)
        check_selected(kb, vb, t, vbytes, in, ref, n, k, what);
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    free(vals);
    return s;
}

/* A sample that misleads the selection (clqsort_shared.h, CLQ_SEL_RANK): the keys at the
 * positions select_sample_kernel reads (cl/select.cl: s * step / 2^32, step = n 2^32 / 4096)
 * are the smallest, so its first range holds about the rank's number of keys, fewer than k,
 * and the first level has to start again from every key. The answer must not change. */
static void partial_sort_misleading_sample(void)
{
    const size_t n = tiny ? 9000 : 300007, samples = 4096;
    const size_t ks[] = {100, tiny ? 600 : 1000};
    uint32_t *in = malloc(n * 4), *ref = malloc(n * 4);
    tu_generate(TU_UNIFORM, in, n, 77);
    for (size_t i = 0; i < n; i++)
        in[i] |= 1u << 20;
    const uint64_t step = ((uint64_t)n << 32) / samples;
    for (size_t j = 0; j < samples; j++)
        in[(size_t)((j * step) >> 32)] = (uint32_t)j;
    memcpy(ref, in, n * 4);
    tu_sort_typed(CLQSORT_KEY_UINT32, 0, ref, n);
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        const size_t k = ks[ki];
        renew_context_if_tiny();
        clqsort_stats st;
        const clqsort_status s =
            select_checked(CLQSORT_KEY_UINT32, 0, 4, in, ref, n, k, "misleading sample", &st);
        CHECK(s == CLQSORT_SUCCESS && st.selected_keys >= k, "misleading sample n=%zu k=%zu: %d, %u candidates: %s", n,
              k, s, st.selected_keys, clqsort_last_error(ctx));
        /* the first level starts again, so one level cannot finish the selection; not at 9000 keys
         * and k = 100, where the rank (92) leaves the 128 sampled keys below 2^7 in the first range */
        CHECK(s != CLQSORT_SUCCESS || st.host_round_trips == 2 || (tiny && k == 100),
              "misleading sample n=%zu k=%zu: %u round trips", n, k, st.host_round_trips);
    }
    free(in), free(ref);
}

/* Keys at the top of the first range. The first range is [0, 2^top), top the bit length of a
 * sampled composite, and the first level takes the keys whose codes lie below 2^cs
 * (cl/select.cl, CLQ_SEL_COUNT_FIRST). Here every key is 2^20 - 1 (about 1 in 64) or 2^31 - 1,
 * so the sampled code is one of the two, the range's largest code 2^cs - 1 is the code of a whole
 * group, and the k-th key lies in that group. A first level that left those keys out would find
 * fewer than k in the range and start again from every key: the answer would still come out
 * right, in two round trips. So where the keys up to the k-th's code fit the candidates' room
 * (2 k + select_slack: the first level's pick, that group's one bin, finishes the selection),
 * one round trip is checked too; a smaller slack (the small tuning) takes a second level anyway. */
static void partial_sort_range_edges(void)
{
    const size_t n = tiny ? 9000 : 300007;
    const size_t ks[] = {16, tiny ? 600 : 1000};
    uint32_t *in = malloc(n * 4), *ref = malloc(n * 4);
    tu_generate(TU_UNIFORM, in, n, 79);
    for (size_t i = 0; i < n; i++)
        in[i] = in[i] % 64 == 0 ? (1u << 20) - 1u : (1u << 31) - 1u;
    memcpy(ref, in, n * 4);
    tu_sort_typed(CLQSORT_KEY_UINT32, 0, ref, n);
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        const size_t k = ks[ki];
        size_t upto = k; /* keys whose code is at most the k-th's */
        while (upto < n && ref[upto] == ref[k - 1])
            upto++;
        const int one_round = upto <= 2 * k + select_slack();
        renew_context_if_tiny();
        clqsort_stats st;
        const clqsort_status s = select_checked(CLQSORT_KEY_UINT32, 0, 4, in, ref, n, k, "keys at the range's top", &st);
        CHECK(s == CLQSORT_SUCCESS && st.selected_keys >= k && (!one_round || st.host_round_trips == 1),
              "keys at the range's top n=%zu k=%zu: %d, %u candidates, %u round trips (%s): %s", n, k, s,
              st.selected_keys, st.host_round_trips, one_round ? "one expected" : "any", clqsort_last_error(ctx));
    }
    free(in), free(ref);
}

/* An enqueued selection cannot wait for its first round (src/sort.c, select_first_round): it
 * enqueues every level any input needs. Keys of two values need more than one, and the sort must
 * still come out right in one round trip. */
static void partial_sort_enqueued_levels(void)
{
    const size_t n = tiny ? 9000 : 300007, k = 100;
    uint32_t *in = malloc(n * 4), *ref = malloc(n * 4), *vals = malloc(n * 4);
    tu_generate(TU_FEW_2, in, n, 78);
    memcpy(ref, in, n * 4);
    tu_sort_typed(CLQSORT_KEY_UINT32, 0, ref, n);
    renew_context_if_tiny();
    tu_index_values((unsigned char *)vals, 4, n);
    cl_mem kb = buffer(n * 4, in, CL_MEM_READ_WRITE), vb = buffer(n * 4, vals, CL_MEM_READ_WRITE);
    cl_event ev = NULL;
    clqsort_status s = clqsort_enqueue_partial_sort(ctx, kb, 0, vb, 0, n, CLQSORT_KEY_UINT32, 4, k, 0, 0, NULL, &ev);
    if (s == CLQSORT_SUCCESS && ev && clWaitForEvents(1, &ev) != CL_SUCCESS)
        s = CLQSORT_ERROR_OPENCL;
    if (s == CLQSORT_SUCCESS)
        s = clqsort_finish(ctx);
    if (ev)
        clReleaseEvent(ev);
    clqsort_stats st = {0};
    clqsort_get_stats(ctx, &st);
    CHECK(s == CLQSORT_SUCCESS && st.selected_keys >= k && st.host_round_trips == 1,
          "enqueued selection n=%zu k=%zu: %d, %u candidates, %u round trips: %s", n, k, s, st.selected_keys,
          st.host_round_trips, clqsort_last_error(ctx));
    if (s == CLQSORT_SUCCESS)
        check_selected(kb, vb, CLQSORT_KEY_UINT32, 4, in, ref, n, k, "enqueued selection");
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    free(in), free(ref), free(vals);
}

/* Partial sorts with k above the one group's (CLQ_SEL_SORT_MAX, 2048) whose one level finishes
 * the selection, each checked for the path it took (clqsort_stats.phase_two_records):
 * - uint32 keys spread over their range, ascending with 4-byte values and descending with 8-byte
 *   values: the candidates go to the gather's buckets, which the selection sorts itself (no
 *   phase-two record of the 64-bit program's sort);
 * - the same keys with 1500 copies of one near the k-th: those crowd one bucket, too large for
 *   that, and the 64-bit program sorts the candidates;
 * - float keys spread over [-2^21, 2^21) with k + 200 of them in a cluster just below (4096
 *   values 0.25 apart): the first level's bins split the code range from 0 (-inf), so the
 *   cluster lies in one bin, and the 64-bit program sorts the candidates too.
 * One round trip and the right answer every time (cl/select.cl). */
static void partial_sort_buckets(const clqsort_info *info)
{
    /* 2 k + the slack of the selection within a quarter of the keys (selects()) */
    const size_t n = tiny ? 20000 : 300007, k = 2100, copies = 1500;
    static const struct {
        clqsort_key_type type;
        int desc;
        size_t vbytes;
        int copies, buckets; /* copies of one key near the k-th; the candidates sorted in buckets */
    } cases[] = {{CLQSORT_KEY_UINT32, 0, 4, 0, 1},
                 {CLQSORT_KEY_UINT32, 1, 8, 0, 1},
                 {CLQSORT_KEY_UINT32, 0, 4, 1, 0},
                 {CLQSORT_KEY_FLOAT, 0, 8, 0, 0}};
    if (!selects(CLQSORT_KEY_UINT32, n, k, info)) {
        printf("partial sorts in buckets: not run, the device does not select\n");
        return;
    }
    unsigned char *in = malloc(n * 4), *ref = malloc(n * 4);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const clqsort_key_type t = cases[c].type;
        const int desc = cases[c].desc, with_copies = cases[c].copies;
        const size_t vbytes = cases[c].vbytes;
        tu_generate_typed(t, TU_UNIFORM, in, n, 80);
        for (size_t j = 0; t == CLQSORT_KEY_FLOAT && j < k + 200; j++) {
            const float f = -2097152.0f - 0.25f * (float)(j % 4096 + 1);
            memcpy(in + (j * 104729) % n * 4, &f, 4);
        }
        if (with_copies) {
            memcpy(ref, in, n * 4);
            tu_sort_typed(t, desc, ref, n);
            for (size_t j = 0; j < copies; j++)
                memcpy(in + (j * 7919) % n * 4, ref + (k - 100) * 4, 4);
        }
        memcpy(ref, in, n * 4);
        tu_sort_typed(t, desc, ref, n);
        renew_context_if_tiny();
        char what[80];
        snprintf(what, sizeof what, "%s%s %s%s +%zu B", with_copies ? "copies, " : "",
                 cases[c].buckets ? "buckets" : "64-bit sort", tu_type_names[t], desc ? " desc" : "", vbytes);
        clqsort_stats st;
        const clqsort_status s =
            select_checked(t, desc ? CLQSORT_DESCENDING : 0, vbytes, in, ref, n, k, what, &st);
        CHECK(s == CLQSORT_SUCCESS && st.selected_keys >= k && st.host_round_trips == 1,
              "%s n=%zu k=%zu: %d, %u candidates, %u round trips: %s", what, n, k, s, st.selected_keys,
              st.host_round_trips, clqsort_last_error(ctx));
        CHECK(s != CLQSORT_SUCCESS || (st.phase_two_records == 0) == cases[c].buckets,
              "%s n=%zu k=%zu: %u phase-two records, expected %s", what, n, k, st.phase_two_records,
              cases[c].buckets ? "none" : "the 64-bit sort's");
    }
    free(in), free(ref);
}

/* Float keys spread evenly in value, 2^24 of them: the first range reaches from -inf, and the
 * first level's bin of the k-th holds about 130,000 keys, more than the candidates may be; a
 * blocking call enqueues two levels for float keys (src/sort.c, select_first_round), so the
 * selection still ends in one round trip. Not under --tiny (oclgrind). */
static void partial_sort_float_levels(const clqsort_info *info)
{
    const size_t n = (size_t)1 << 24, k = 1024;
    if (tiny || !selects(CLQSORT_KEY_FLOAT, n, k, info))
        return;
    unsigned char *in = malloc(n * 4), *ref = malloc(n * 4);
    tu_generate_typed(CLQSORT_KEY_FLOAT, TU_UNIFORM, in, n, 81);
    memcpy(ref, in, n * 4);
    tu_sort_typed(CLQSORT_KEY_FLOAT, 0, ref, n);
    clqsort_stats st;
    const clqsort_status s = select_checked(CLQSORT_KEY_FLOAT, 0, 4, in, ref, n, k, "float levels", &st);
    CHECK(s == CLQSORT_SUCCESS && st.selected_keys >= k && st.host_round_trips == 1,
          "float levels n=%zu k=%zu: %d, %u candidates, %u round trips: %s", n, k, s, st.selected_keys,
          st.host_round_trips, clqsort_last_error(ctx));
    free(in), free(ref);
}

/* The host-array forms of partial and segmented sorts: the answer as on device buffers, and each
 * refusal, before the copies or found by the device, leaving the arrays as they were. */
static void host_arrays(size_t n, const clqsort_info *info)
{
    uint32_t *in = malloc(n * 4), *ref = malloc(n * 4), *hk = malloc(n * 4), *hv = malloc(n * 4), *vin = malloc(n * 4);
    uint32_t *begin = malloc((n + 2) * 4), *end = malloc((n + 2) * 4);
    char why[300] = "";
    tu_generate(TU_FEW_16, in, n, 41); /* equal keys: the stable sorts have order to keep */
    tu_index_values((unsigned char *)vin, 4, n);
    memcpy(ref, in, n * 4);
    tu_sort_typed(CLQSORT_KEY_UINT32, 0, ref, n);
    const size_t ks[] = {1, 100, n / 3, n};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const size_t k = ks[i];
        const unsigned flags = i % 2 ? CLQSORT_STABLE : 0;
        renew_context_if_tiny();
        memcpy(hk, in, n * 4), memcpy(hv, vin, n * 4);
        clqsort_status s = clqsort_partial_sort_host(ctx, hk, hv, n, CLQSORT_KEY_UINT32, 4, k, flags);
        CHECK(s == CLQSORT_SUCCESS, "partial_sort_host n=%zu k=%zu: %s", n, k, clqsort_last_error(ctx));
        int ok = !memcmp(hk, ref, k * 4) &&
                 tu_verify_values(CLQSORT_KEY_UINT32, (unsigned char *)in, (unsigned char *)hk, (unsigned char *)hv,
                                  4, n, why, sizeof why);
        if (ok && flags)
            ok = tu_verify_stable(CLQSORT_KEY_UINT32, (unsigned char *)hk, (unsigned char *)hv, 4, k, why, sizeof why);
        CHECK(s != CLQSORT_SUCCESS || ok, "partial_sort_host n=%zu k=%zu%s: %s", n, k, flags ? " stable" : "",
              *why ? why : "the first k keys differ from the reference's");
    }
    for (int shape = 0; shape < 2; shape++) { /* gaps with ends given; Pareto lengths, compressed */
        size_t segments;
        int ends_given;
        tu_make_segments(shape ? TU_SEG_PARETO : TU_SEG_GAPS, shape ? 5000 : 300, n, info->lqsort_small,
                         info->lqsort_max, 43 + shape, begin, end, &segments, &ends_given);
        memcpy(hk, in, n * 4), memcpy(hv, vin, n * 4);
        clqsort_status s = clqsort_sort_segments_host(ctx, hk, hv, n, CLQSORT_KEY_UINT32, 4, begin,
                                                      ends_given ? end : NULL, segments, CLQSORT_STABLE);
        CHECK(s == CLQSORT_SUCCESS, "sort_segments_host (%s): %s", shape ? "Pareto" : "gaps", clqsort_last_error(ctx));
        CHECK(s != CLQSORT_SUCCESS ||
                  tu_verify_segments(CLQSORT_KEY_UINT32, 0, (unsigned char *)in, (unsigned char *)hk,
                                     (unsigned char *)vin, (unsigned char *)hv, 4, n, begin, ends_given ? end : NULL,
                                     segments, why, sizeof why),
              "sort_segments_host (%s), %zu segments: %s", shape ? "Pareto" : "gaps", segments, why);
    }
    /* refusals: the arrays byte for byte as they were */
    const uint32_t bad[3] = {0, (uint32_t)n / 2, (uint32_t)n / 4}; /* decreasing */
    memcpy(hk, in, n * 4), memcpy(hv, vin, n * 4);
    const struct {
        const char *what;
        clqsort_status got, want;
    } cases[] = {
        {"k > count", clqsort_partial_sort_host(ctx, hk, hv, n, CLQSORT_KEY_UINT32, 4, n + 1, 0),
         CLQSORT_ERROR_INVALID_ARGUMENT},
        {"values with value_size 0", clqsort_partial_sort_host(ctx, hk, hv, n, CLQSORT_KEY_UINT32, 0, 5, 0),
         CLQSORT_ERROR_INVALID_ARGUMENT},
        {"keys NULL", clqsort_partial_sort_host(ctx, NULL, NULL, n, CLQSORT_KEY_UINT32, 0, 5, 0),
         CLQSORT_ERROR_NULL_BUFFER},
        {"segment_begin NULL", clqsort_sort_segments_host(ctx, hk, hv, n, CLQSORT_KEY_UINT32, 4, NULL, NULL, 2, 0),
         CLQSORT_ERROR_NULL_BUFFER},
        {"decreasing offsets", clqsort_sort_segments_host(ctx, hk, hv, n, CLQSORT_KEY_UINT32, 4, bad, NULL, 2, 0),
         CLQSORT_ERROR_INVALID_SEGMENTS},
        {"no segments", clqsort_sort_segments_host(ctx, hk, hv, n, CLQSORT_KEY_UINT32, 4, bad, NULL, 0, 0),
         CLQSORT_SUCCESS},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        CHECK(cases[c].got == cases[c].want, "host arrays, %s: status %d, expected %d", cases[c].what, cases[c].got,
              cases[c].want);
    CHECK(!memcmp(hk, in, n * 4) && !memcmp(hv, vin, n * 4), "a refused host-array call changed the arrays");
    free(in), free(ref), free(hk), free(hv), free(vin), free(begin), free(end);
}

int main(int argc, char **argv)
{
    tiny = argc > 1 && !strcmp(argv[1], "--tiny");
    ctx = tu_create_or_die();
    clctx = clqsort_cl_context(ctx);
    queue = clqsort_cl_queue(ctx);
    clqsort_info info;
    clqsort_get_info(ctx, &info);
    printf("device \"%s\", path %s, phase two <= %u keys\n", info.device_name,
           info.path == CLQSORT_PATH_DEVICE_ENQUEUE ? "device-enqueue" : "host-loop", info.lqsort_max);
    if (argc > 2 && !strcmp(argv[1], "--partial-stress")) { /* 300007 int32 keys, descending */
        stress_size = 2;
        stress_config = 3;
        for (int r = atoi(argv[2]); r > 0; r--)
            partial_sorts(&info);
        clqsort_release(ctx);
        return tu_finish("test_segments --partial-stress");
    }

    /* key types of both widths, both orders, every value size */
    static const config configs[] = {
        {CLQSORT_KEY_UINT32, 0, 0}, {CLQSORT_KEY_FLOAT, 1, 4},  {CLQSORT_KEY_INT32, 0, 8},
        {CLQSORT_KEY_UINT64, 1, 0}, {CLQSORT_KEY_DOUBLE, 0, 8}, {CLQSORT_KEY_INT64, 0, 4},
    };
    const size_t lq = info.lqsort_max;
    const struct {
        tu_seg_shape shape;
        size_t param, n;
    } shapes[] = {
        {TU_SEG_TINY, 0, 3000},        {TU_SEG_FIXED, 64, 20000},      {TU_SEG_FIXED, lq / 2, 30000},
        {TU_SEG_FIXED, 3 * lq, 50000}, {TU_SEG_FEW, 3, 200003},        {TU_SEG_PARETO, 20000, 150000},
        {TU_SEG_GAPS, 300, 40000},     {TU_SEG_GAPS, 3 * lq, 80000},   {TU_SEG_AROUND, lq, 60000},
        {TU_SEG_EMPTY, 5, 1000},       {TU_SEG_FEW, 1, 1},             {TU_SEG_FEW, 1, 2},
        /* lengths of the sorting network (17 .. 64 keys: segnet.cl) and around them */
        {TU_SEG_GAPS, 70, 30000},      {TU_SEG_FIXED, 33, 20000},
    };
    const size_t nconfigs = tiny ? 2 : sizeof configs / sizeof configs[0];
    for (size_t c = 0; c < nconfigs; c++) {
        if (tu_width_of(configs[c].type) == 8) {
            clqsort_status s = clqsort_scratch_bytes(ctx, 2, configs[c].type, 0, &(size_t){0});
            if (s == CLQSORT_ERROR_UNSUPPORTED_TYPE) {
                printf("64-bit keys not supported here: skipped, and said so\n");
                continue;
            }
        }
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            const size_t n = tiny ? (shapes[i].n > 1500 ? 1500 : shapes[i].n) : shapes[i].n;
            renew_context_if_tiny();
            sort_shape(&configs[c], shapes[i].shape, shapes[i].param, n, &info, c * 100 + i);
        }
    }
    if (clqsort_scratch_bytes(ctx, 2, CLQSORT_KEY_UINT64, 0, &(size_t){0}) == CLQSORT_SUCCESS)
        stable_sorts();
    else
        printf("no 64-bit atomics: stable sorts skipped, and said so\n");
    partial_sorts(&info);
    partial_sort_misleading_sample();
    partial_sort_range_edges();
    partial_sort_enqueued_levels();
    partial_sort_buckets(&info);
    partial_sort_float_levels(&info);
    invalid_segments(0);
    invalid_segments(1);
    host_refusals();
    host_arrays(tiny ? 1500 : 300007, &info);
    if (!tiny) {
        long_segments(&info);
        waits_for_its_events(5000, 0);
        waits_for_its_events(300007, 0);
        waits_for_its_events(300007, 1);
        chain_with_program_kernels();
        many_in_flight();
        trivial_and_release();
    }
    clqsort_release(ctx);
    return tu_finish("test_segments");
}
