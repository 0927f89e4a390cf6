/*
 * test_api.c - the API contract: bad input gets its own status and message and leaves the
 * buffer as it was; device selection errors; contexts reused and side by side; the program's
 * own queue; keys past count untouched.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#define N 5000

static uint32_t in[N], out[N], back[N];

static cl_mem make_buffer(cl_context c, cl_mem_flags flags, const uint32_t *data, size_t n)
{
    cl_int err;
    cl_mem m = clCreateBuffer(c, flags | CL_MEM_COPY_HOST_PTR, n * sizeof *data, (void *)data, &err);
    if (!m) {
        fprintf(stderr, "clCreateBuffer failed: %d\n", (int)err);
        exit(2);
    }
    return m;
}

static int unchanged(cl_command_queue q, cl_mem m, const uint32_t *data, size_t n)
{
    clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof *data, back, 0, NULL, NULL);
    return memcmp(back, data, n * sizeof *data) == 0;
}

/* One bad call: the expected status, a message that names the cause, the buffer unchanged. */
static void expect_refused(clqsort_context *ctx, cl_mem buf, size_t count, clqsort_key_type type, unsigned flags,
                           clqsort_status want, const char *word, cl_command_queue q, cl_mem check)
{
    clqsort_status s = clqsort_sort(ctx, buf, count, type, flags);
    CHECK(s == want, "expected status %d (%s), got %d (%s)", want, clqsort_status_string(want), s,
          clqsort_status_string(s));
    const char *msg = clqsort_last_error(ctx);
    CHECK(strstr(msg, word) != NULL, "message for status %d should mention \"%s\": %s", want, word, msg);
    if (check)
        CHECK(unchanged(q, check, in, N), "buffer changed after refused call (status %d)", want);
}

static void test_bad_input(clqsort_context *ctx, clqsort_context *other)
{
    cl_context c = clqsort_cl_context(ctx);
    cl_command_queue q = clqsort_cl_queue(ctx);
    cl_mem buf = make_buffer(c, CL_MEM_READ_WRITE, in, N);

    CHECK(clqsort_sort(NULL, buf, N, CLQSORT_KEY_UINT32, 0) == CLQSORT_ERROR_NULL_CONTEXT, "NULL context");
    CHECK(strstr(clqsort_last_error(NULL), "ctx is NULL") != NULL, "NULL context message: %s", clqsort_last_error(NULL));
    CHECK(unchanged(q, buf, in, N), "buffer changed after NULL context");
    expect_refused(ctx, NULL, N, CLQSORT_KEY_UINT32, 0, CLQSORT_ERROR_NULL_BUFFER, "keys is NULL", q, buf);
    expect_refused(ctx, buf, N + 1, CLQSORT_KEY_UINT32, 0, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER, "CL_MEM_SIZE", q, buf);
    expect_refused(ctx, buf, (size_t)1 << 32, CLQSORT_KEY_UINT32, 0, CLQSORT_ERROR_COUNT_TOO_LARGE,
                   "CLQSORT_MAX_COUNT", q, buf);
    expect_refused(ctx, buf, N, (clqsort_key_type)42, 0, CLQSORT_ERROR_INVALID_ARGUMENT, "clqsort_key_type", q, buf);
    expect_refused(ctx, buf, N, CLQSORT_KEY_UINT32, 0x80, CLQSORT_ERROR_INVALID_ARGUMENT, "flags", q, buf);
    /* count x key size: N doubles do not fit in a buffer of N uint32 */
    expect_refused(ctx, buf, N, CLQSORT_KEY_DOUBLE, 0, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER, "8 bytes", q, buf);

    cl_mem ro = make_buffer(c, CL_MEM_READ_ONLY, in, N);
    expect_refused(ctx, ro, N, CLQSORT_KEY_UINT32, 0, CLQSORT_ERROR_BUFFER_ACCESS, "CL_MEM_READ_ONLY", q, ro);
    cl_mem wo = make_buffer(c, CL_MEM_WRITE_ONLY, in, N);
    expect_refused(ctx, wo, N, CLQSORT_KEY_UINT32, 0, CLQSORT_ERROR_BUFFER_ACCESS, "CL_MEM_WRITE_ONLY", q, wo);

    /* a buffer of another OpenCL context */
    cl_mem foreign = make_buffer(clqsort_cl_context(other), CL_MEM_READ_WRITE, in, N);
    expect_refused(ctx, foreign, N, CLQSORT_KEY_UINT32, 0, CLQSORT_ERROR_WRONG_CONTEXT, "another OpenCL context",
                   clqsort_cl_queue(other), foreign);

    /* the statuses are distinct */
    clqsort_status all[] = {CLQSORT_ERROR_NULL_CONTEXT, CLQSORT_ERROR_NULL_BUFFER, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER,
                            CLQSORT_ERROR_COUNT_TOO_LARGE, CLQSORT_ERROR_BUFFER_ACCESS, CLQSORT_ERROR_WRONG_CONTEXT};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        for (size_t j = i + 1; j < sizeof all / sizeof all[0]; j++)
            CHECK(all[i] != all[j] && strcmp(clqsort_status_string(all[i]), clqsort_status_string(all[j])),
                  "statuses %d and %d share a value or a string", all[i], all[j]);

    /* after all that, the same buffer still sorts */
    CHECK(clqsort_sort(ctx, buf, N, CLQSORT_KEY_UINT32, 0) == CLQSORT_SUCCESS, "sort after refusals: %s",
          clqsort_last_error(ctx));
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    char why[256];
    CHECK(tu_verify(in, out, N, why, sizeof why), "sort after refusals: %s", why);

    clReleaseMemObject(buf);
    clReleaseMemObject(ro);
    clReleaseMemObject(wo);
    clReleaseMemObject(foreign);
}

/* Scratch grows and is reused: sizes up and down on one context, checked each time. */
static void test_reuse(clqsort_context *ctx)
{
    static const size_t ns[] = {N, 17, 300000, 2, 4099, 300000, 1, 0, 123457};
    size_t max_n = 300000;
    uint32_t *a = malloc(max_n * sizeof *a), *b = malloc(max_n * sizeof *b);
    char why[256];
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        tu_generate(TU_UNIFORM, a, ns[i], i);
        clqsort_status s = tu_sort_host(ctx, a, ns[i], b);
        CHECK(s == CLQSORT_SUCCESS, "reuse n=%zu: %s", ns[i], clqsort_last_error(ctx));
        CHECK(s != CLQSORT_SUCCESS || tu_verify(a, b, ns[i], why, sizeof why), "reuse n=%zu: %s", ns[i], why);
    }
    free(a);
    free(b);
}

/* Two contexts alive at once, sorts interleaved. */
static void test_two_contexts(clqsort_context *x, clqsort_context *y)
{
    char why[256];
    for (int round = 0; round < 3; round++) {
        size_t n = 20000 + 7919 * (size_t)round;
        uint32_t *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4), *d = malloc(n * 4);
        tu_generate(TU_GAUSSIAN, a, n, 100 + round);
        tu_generate(TU_FEW_16, c, n, 200 + round);
        CHECK(tu_sort_host(x, a, n, b) == CLQSORT_SUCCESS, "context 1: %s", clqsort_last_error(x));
        CHECK(tu_sort_host(y, c, n, d) == CLQSORT_SUCCESS, "context 2: %s", clqsort_last_error(y));
        CHECK(tu_verify(a, b, n, why, sizeof why), "context 1 round %d: %s", round, why);
        CHECK(tu_verify(c, d, n, why, sizeof why), "context 2 round %d: %s", round, why);
        free(a), free(b), free(c), free(d);
    }
}

/* Keys past count stay as they were. */
static void test_prefix(clqsort_context *ctx)
{
    cl_mem buf = make_buffer(clqsort_cl_context(ctx), CL_MEM_READ_WRITE, in, N);
    const size_t count = N - 1000;
    CHECK(clqsort_sort(ctx, buf, count, CLQSORT_KEY_UINT32, 0) == CLQSORT_SUCCESS, "prefix: %s",
          clqsort_last_error(ctx));
    clEnqueueReadBuffer(clqsort_cl_queue(ctx), buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    char why[256];
    CHECK(tu_verify(in, out, count, why, sizeof why), "prefix: %s", why);
    CHECK(!memcmp(out + count, in + count, (N - count) * sizeof *in), "keys past count changed");
    clReleaseMemObject(buf);
}

/* Slices of a buffer by element offset (clqsort_sort_at, clqsort_sort_pairs_at), and host pairs. */
static void test_offsets(clqsort_context *ctx)
{
    cl_context c = clqsort_cl_context(ctx);
    cl_command_queue q = clqsort_cl_queue(ctx);
    char why[256];
    /* keys from an offset that no sub-buffer could start at */
    cl_mem buf = make_buffer(c, CL_MEM_READ_WRITE, in, N);
    const size_t off = 3, count = 4000;
    CHECK(clqsort_sort_at(ctx, buf, off, count, CLQSORT_KEY_UINT32, 0) == CLQSORT_SUCCESS, "sort_at: %s",
          clqsort_last_error(ctx));
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    CHECK(tu_verify(in + off, out + off, count, why, sizeof why), "sort_at: %s", why);
    CHECK(!memcmp(out, in, off * 4) && !memcmp(out + off + count, in + off + count, (N - off - count) * 4),
          "sort_at changed keys outside its slice");
    /* the end of the buffer: a slice up to it, an empty one at it, none past it */
    clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL);
    CHECK(clqsort_sort_at(ctx, buf, N - 10, 10, CLQSORT_KEY_UINT32, 0) == CLQSORT_SUCCESS, "slice at the end: %s",
          clqsort_last_error(ctx));
    CHECK(clqsort_sort_at(ctx, buf, N, 0, CLQSORT_KEY_UINT32, 0) == CLQSORT_SUCCESS, "empty slice at the end");
    clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL);
    CHECK(clqsort_sort_at(ctx, buf, N - 9, 10, CLQSORT_KEY_UINT32, 0) == CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER &&
              strstr(clqsort_last_error(ctx), "from element"),
          "slice past the end: %s", clqsort_last_error(ctx));
    CHECK(clqsort_sort_at(ctx, buf, (size_t)-1, 2, CLQSORT_KEY_UINT32, 0) == CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER,
          "offset SIZE_MAX");
    CHECK(unchanged(q, buf, in, N), "buffer changed by refused slices");

    /* pairs: keys and values in one buffer, in slices that do not overlap; then ones that do */
    uint32_t packed[N];
    for (int i = 0; i < N; i++)
        packed[i] = i < 2000 ? in[i] : (uint32_t)(i - 2500);
    cl_mem one = make_buffer(c, CL_MEM_READ_WRITE, packed, N);
    CHECK(clqsort_sort_pairs_at(ctx, one, 0, one, 2500, 2000, CLQSORT_KEY_UINT32, 4, 0) == CLQSORT_SUCCESS,
          "pairs in one buffer: %s", clqsort_last_error(ctx));
    clEnqueueReadBuffer(q, one, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    CHECK(tu_verify_pairs(CLQSORT_KEY_UINT32, 0, (const unsigned char *)in, (const unsigned char *)out,
                          (const unsigned char *)(out + 2500), 4, 2000, why, sizeof why),
          "pairs in one buffer: %s", why);
    CHECK(!memcmp(out + 2000, packed + 2000, 500 * 4) && !memcmp(out + 4500, packed + 4500, (N - 4500) * 4),
          "pairs in one buffer changed the rest");
    clEnqueueWriteBuffer(q, one, CL_TRUE, 0, sizeof packed, packed, 0, NULL, NULL);
    CHECK(clqsort_sort_pairs_at(ctx, one, 0, one, 1999, 2000, CLQSORT_KEY_UINT32, 4, 0) ==
              CLQSORT_ERROR_OVERLAPPING_BUFFERS,
          "overlapping slices of one buffer: %s", clqsort_last_error(ctx));
    CHECK(unchanged(q, one, packed, N), "buffer changed by refused overlapping slices");

    /* 64-bit keys and values at odd offsets in two buffers */
    enum { M = 3001 };
    static unsigned char dk[(M + 5) * 8], dv[(M + 9) * 8], ok[(M + 5) * 8], ov[(M + 9) * 8];
    tu_generate_typed(CLQSORT_KEY_DOUBLE, TU_UNIFORM, dk, M + 5, 99);
    tu_index_values(dv + 9 * 8, 8, M);
    cl_mem kb = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof dk, dk, NULL);
    cl_mem vb = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof dv, dv, NULL);
    CHECK(clqsort_sort_pairs_at(ctx, kb, 5, vb, 9, M, CLQSORT_KEY_DOUBLE, 8, CLQSORT_DESCENDING) == CLQSORT_SUCCESS,
          "double pairs at offsets: %s", clqsort_last_error(ctx));
    clEnqueueReadBuffer(q, kb, CL_TRUE, 0, sizeof ok, ok, 0, NULL, NULL);
    clEnqueueReadBuffer(q, vb, CL_TRUE, 0, sizeof ov, ov, 0, NULL, NULL);
    CHECK(tu_verify_pairs(CLQSORT_KEY_DOUBLE, 1, dk + 5 * 8, ok + 5 * 8, ov + 9 * 8, 8, M, why, sizeof why),
          "double pairs at offsets: %s", why);
    CHECK(!memcmp(ok, dk, 5 * 8) && !memcmp(ov, dv, 9 * 8), "double pairs at offsets changed what precedes them");

    /* host pairs */
    static unsigned char hk[M * 8], hv[M * 4], hk0[M * 8];
    tu_generate_typed(CLQSORT_KEY_INT64, TU_FEW_16, hk0, M, 7);
    memcpy(hk, hk0, sizeof hk);
    tu_index_values(hv, 4, M);
    CHECK(clqsort_sort_pairs_host(ctx, hk, hv, M, CLQSORT_KEY_INT64, 4, 0) == CLQSORT_SUCCESS, "pairs_host: %s",
          clqsort_last_error(ctx));
    CHECK(tu_verify_pairs(CLQSORT_KEY_INT64, 0, hk0, hk, hv, 4, M, why, sizeof why), "pairs_host: %s", why);
    memcpy(hk, hk0, sizeof hk);
    CHECK(clqsort_sort_pairs_host(ctx, hk, NULL, M, CLQSORT_KEY_INT64, 4, 0) == CLQSORT_ERROR_NULL_BUFFER &&
              !memcmp(hk, hk0, sizeof hk),
          "pairs_host with NULL values");
    CHECK(clqsort_sort_pairs_host(ctx, hk, hv, M, CLQSORT_KEY_INT64, 0, 0) == CLQSORT_ERROR_INVALID_ARGUMENT,
          "pairs_host with value_size 0");
    CHECK(clqsort_sort_pairs_host(ctx, hk, NULL, M, CLQSORT_KEY_INT64, 0, 0) == CLQSORT_ERROR_NULL_BUFFER,
          "pairs_host with NULL values and value_size 0: %s", clqsort_last_error(ctx));
    CHECK(clqsort_sort_pairs_host(ctx, hk, hk + 8 * (M - 1), M, CLQSORT_KEY_INT64, 8, 0) ==
                  CLQSORT_ERROR_OVERLAPPING_BUFFERS &&
              strstr(clqsort_last_error(ctx), "share memory") && !memcmp(hk, hk0, sizeof hk),
          "pairs_host with overlapping arrays: %s", clqsort_last_error(ctx));
    CHECK(clqsort_sort_pairs_host(ctx, hk, hk + 8 * (M / 2), M / 2, CLQSORT_KEY_INT64, 8, 0) == CLQSORT_SUCCESS,
          "pairs_host with adjacent arrays: %s", clqsort_last_error(ctx));
    CHECK(tu_verify_typed(CLQSORT_KEY_INT64, 0, hk0, hk, M / 2, why, sizeof why), "pairs_host adjacent: %s", why);

    /* a buffer and its own sub-buffer, apart: refused, since OpenCL leaves one command writing
     * through both undefined */
    cl_uint align_bits = 0;
    clGetDeviceInfo(clqsort_cl_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    const size_t origin = (2000 * 4 + align_bits / 8 - 1) / (align_bits / 8) * (align_bits / 8);
    if (origin + 2000 * 4 <= sizeof packed) {
        clEnqueueWriteBuffer(q, one, CL_TRUE, 0, sizeof packed, packed, 0, NULL, NULL);
        cl_buffer_region region = {origin, 2000 * 4};
        cl_int err;
        cl_mem sub = clCreateSubBuffer(one, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        CHECK(err == CL_SUCCESS, "clCreateSubBuffer: %d", err);
        CHECK(clqsort_sort_pairs(ctx, one, sub, 2000, CLQSORT_KEY_UINT32, 4, 0) == CLQSORT_ERROR_OVERLAPPING_BUFFERS &&
                  strstr(clqsort_last_error(ctx), "values is a sub-buffer of keys"),
              "a buffer and its sub-buffer: %s", clqsort_last_error(ctx));
        CHECK(clqsort_sort_pairs(ctx, sub, one, 2000, CLQSORT_KEY_UINT32, 4, 0) == CLQSORT_ERROR_OVERLAPPING_BUFFERS &&
                  strstr(clqsort_last_error(ctx), "keys is a sub-buffer of values"),
              "a sub-buffer and its buffer: %s", clqsort_last_error(ctx));
        CHECK(unchanged(q, one, packed, N), "buffer changed by a refused buffer and sub-buffer");
        clReleaseMemObject(sub);
    } else {
        CHECK(0, "no room for an aligned sub-buffer (alignment %u bits)", align_bits);
    }

    clReleaseMemObject(buf);
    clReleaseMemObject(one);
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
}

/* The program's own context and queue. */
static void test_own_queue(clqsort_context *ctx)
{
    cl_device_id dev = clqsort_cl_device(ctx);
    cl_int err;
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    cl_command_queue q = clCreateCommandQueue(c, dev, 0, &err);
    cl_command_queue ooo = clCreateCommandQueue(c, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
#pragma GCC diagnostic pop
    clqsort_context *mine;
    /* the queue fixes the device: variables that select one are not read */
    setenv("CLQSORT_DEVICE", "toaster", 1);
    CHECK(clqsort_create_with_queue(&mine, q, NULL) == CLQSORT_SUCCESS, "create_with_queue: %s",
          clqsort_last_error(NULL));
    unsetenv("CLQSORT_DEVICE");
    CHECK(clqsort_cl_context(mine) == c && clqsort_cl_queue(mine) == q, "context/queue of create_with_queue");
    char why[256];
    CHECK(tu_sort_host(mine, in, N, out) == CLQSORT_SUCCESS, "sort on own queue: %s", clqsort_last_error(mine));
    CHECK(tu_verify(in, out, N, why, sizeof why), "sort on own queue: %s", why);
    clqsort_release(mine);
    /* the queue and context are still the program's, and usable */
    CHECK(clFinish(q) == CL_SUCCESS, "own queue usable after clqsort_release");

    if (ooo) {
        clqsort_context *bad = (clqsort_context *)1;
        CHECK(clqsort_create_with_queue(&bad, ooo, NULL) == CLQSORT_ERROR_INVALID_QUEUE && bad == NULL,
              "out-of-order queue refused");
        CHECK(strstr(clqsort_last_error(NULL), "out-of-order") != NULL, "message: %s", clqsort_last_error(NULL));
        clReleaseCommandQueue(ooo);
    } else {
        printf("note: the device has no out-of-order queues; that refusal was not exercised\n");
    }
    clqsort_context *none = (clqsort_context *)1;
    CHECK(clqsort_create_with_queue(&none, NULL, NULL) == CLQSORT_ERROR_INVALID_QUEUE && none == NULL, "NULL queue");
    clReleaseCommandQueue(q);
    clReleaseContext(c);
}

/* clqsort_get_stats reports the last successful sort; a bad CLQSORT_TUNING is an error of the
 * sort that builds kernels with it and of clqsort_get_info, not a silent partial tuning. */
static void test_stats_and_tuning(clqsort_context *ctx)
{
    char why[256];
    CHECK(tu_sort_host(ctx, in, N, out) == CLQSORT_SUCCESS, "sort: %s", clqsort_last_error(ctx));
    CHECK(tu_verify(in, out, N, why, sizeof why), "sort: %s", why);
    clqsort_stats good, after;
    CHECK(clqsort_get_stats(ctx, &good) == CLQSORT_SUCCESS && good.kernel_launches > 0, "stats of a sort");

    const char *saved = getenv("CLQSORT_TUNING");
    char keep[512];
    snprintf(keep, sizeof keep, "%s", saved ? saved : "");
    setenv("CLQSORT_TUNING", "gq_wg=3", 1); /* not a power of two */
    cl_int err;
    cl_mem buf = clCreateBuffer(clqsort_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * 4, in, &err);
    /* descending order needs a program not built yet: the tuning is read now */
    CHECK(clqsort_sort(ctx, buf, N, CLQSORT_KEY_UINT32, CLQSORT_DESCENDING) == CLQSORT_ERROR_INVALID_OPTION,
          "bad CLQSORT_TUNING refused");
    CHECK(strstr(clqsort_last_error(ctx), "CLQSORT_TUNING") != NULL, "message: %s", clqsort_last_error(ctx));
    clEnqueueReadBuffer(clqsort_cl_queue(ctx), buf, CL_TRUE, 0, N * 4, out, 0, NULL, NULL);
    CHECK(!memcmp(in, out, N * 4), "keys unchanged after the refused sort");
    CHECK(clqsort_get_stats(ctx, &after) == CLQSORT_SUCCESS && !memcmp(&good, &after, sizeof good),
          "stats still those of the last successful sort");
    clqsort_info info;
    CHECK(clqsort_get_info(ctx, &info) == CLQSORT_ERROR_INVALID_OPTION && info.gqsort_work_group > 0,
          "get_info reports the bad tuning and the table's shape");
    setenv("CLQSORT_TUNING", "seg_net=3", 1); /* 0, 1 or 2 */
    CHECK(clqsort_get_info(ctx, &info) == CLQSORT_ERROR_INVALID_OPTION && strstr(clqsort_last_error(ctx), "seg_net"),
          "seg_net=3 refused: %s", clqsort_last_error(ctx));
    /* a tuning whose record counts would not fit the kernels' 32 bits: refused, not wrapped */
    setenv("CLQSORT_TUNING", "lq_max=1", 1);
    size_t bytes = 0;
    CHECK(clqsort_scratch_bytes(ctx, 800000000, CLQSORT_KEY_UINT32, 0, &bytes) == CLQSORT_ERROR_COUNT_TOO_LARGE &&
              strstr(clqsort_last_error(ctx), "bucket records"),
          "records past 32 bits: %s", clqsort_last_error(ctx));
    if (saved)
        setenv("CLQSORT_TUNING", keep, 1);
    else
        unsetenv("CLQSORT_TUNING");
    CHECK(clqsort_get_info(ctx, &info) == CLQSORT_SUCCESS, "get_info: %s", clqsort_last_error(ctx));
    /* the memory a sort needs: scratch for the keys and values, and the records */
    CHECK(clqsort_scratch_bytes(ctx, N, CLQSORT_KEY_UINT32, 0, &bytes) == CLQSORT_SUCCESS && bytes >= N * 4,
          "scratch_bytes of %d keys: %zu: %s", N, bytes, clqsort_last_error(ctx));
    size_t pairs = 0;
    CHECK(clqsort_scratch_bytes(ctx, N, CLQSORT_KEY_UINT32, 8, &pairs) == CLQSORT_SUCCESS && pairs >= bytes + N * 8,
          "scratch_bytes of %d pairs: %zu", N, pairs);
    CHECK(clqsort_scratch_bytes(ctx, N, CLQSORT_KEY_UINT32, 3, &pairs) == CLQSORT_ERROR_INVALID_ARGUMENT,
          "scratch_bytes with value size 3");
    CHECK(clqsort_scratch_bytes(ctx, N, CLQSORT_KEY_UINT32, 0, NULL) == CLQSORT_ERROR_INVALID_ARGUMENT,
          "scratch_bytes with bytes NULL");
    clReleaseMemObject(buf);
}

/* Selection through the environment, with the errors a user would meet. */
static void test_selection(void)
{
    const char *saved = getenv("CLQSORT_VENDOR");
    char keep[256];
    snprintf(keep, sizeof keep, "%s", saved ? saved : "");
    clqsort_context *ctx;

    setenv("CLQSORT_VENDOR", "no-such-vendor-xyz", 1);
    CHECK(clqsort_create(&ctx, NULL) == CLQSORT_ERROR_NO_DEVICE && ctx == NULL, "unknown vendor");
    const char *msg = clqsort_last_error(NULL);
    CHECK(strstr(msg, "no-such-vendor-xyz") && strstr(msg, "Platform 0"),
          "no-device message names the request and lists platforms: %s", msg);
    setenv("CLQSORT_VENDOR", keep, 1);

    setenv("CLQSORT_DEVICE", "toaster", 1);
    CHECK(clqsort_create(&ctx, NULL) == CLQSORT_ERROR_INVALID_OPTION, "bad CLQSORT_DEVICE");
    CHECK(strstr(clqsort_last_error(NULL), "CLQSORT_DEVICE") != NULL, "message: %s", clqsort_last_error(NULL));
    unsetenv("CLQSORT_DEVICE");

    setenv("CLQSORT_DEVICE_INDEX", "99", 1);
    CHECK(clqsort_create(&ctx, NULL) == CLQSORT_ERROR_NO_DEVICE, "device index out of range");
    setenv("CLQSORT_DEVICE_INDEX", "x", 1);
    CHECK(clqsort_create(&ctx, NULL) == CLQSORT_ERROR_INVALID_OPTION, "bad CLQSORT_DEVICE_INDEX");
    unsetenv("CLQSORT_DEVICE_INDEX");

    setenv("CLQSORT_PATH", "sideways", 1);
    CHECK(clqsort_create(&ctx, NULL) == CLQSORT_ERROR_INVALID_OPTION, "bad CLQSORT_PATH");
    setenv("CLQSORT_PATH", "host-loop", 1);
    CHECK(clqsort_create(&ctx, NULL) == CLQSORT_SUCCESS, "CLQSORT_PATH=host-loop: %s", clqsort_last_error(NULL));
    clqsort_info info;
    if (ctx) {
        clqsort_get_info(ctx, &info);
        CHECK(info.path == CLQSORT_PATH_HOST_LOOP, "host-loop path reported");
        int has_enqueue = info.device_enqueue_supported;
        clqsort_release(ctx);
        setenv("CLQSORT_PATH", "device-enqueue", 1);
        clqsort_status s = clqsort_create(&ctx, NULL);
        if (!has_enqueue) {
            CHECK(s == CLQSORT_ERROR_PATH_UNSUPPORTED, "forcing device-enqueue on a device without it: %d", s);
            CHECK(strstr(clqsort_last_error(NULL), "device-enqueue") != NULL, "message: %s", clqsort_last_error(NULL));
        } else {
            printf("note: the device supports device-side enqueue; the refusal case was not exercised\n");
            if (s == CLQSORT_SUCCESS)
                clqsort_release(ctx);
        }
    }
    unsetenv("CLQSORT_PATH");

    clqsort_options o;
    clqsort_options_init(&o);
    o.device_type = (clqsort_device_type)77;
    CHECK(clqsort_create(&ctx, &o) == CLQSORT_ERROR_INVALID_OPTION, "bad device_type option");
    CHECK(clqsort_create(NULL, NULL) == CLQSORT_ERROR_INVALID_ARGUMENT, "NULL out pointer");
    clqsort_release(NULL); /* accepted */
}

int main(void)
{
    tu_generate(TU_MANY_DUPLICATES, in, N, 7);
    clqsort_context *ctx = tu_create_or_die();
    clqsort_context *other = tu_create_or_die();
    test_bad_input(ctx, other);
    test_reuse(ctx);
    test_two_contexts(ctx, other);
    test_prefix(ctx);
    test_offsets(ctx);
    test_own_queue(ctx);
    test_stats_and_tuning(other);
    clqsort_release(other);
    clqsort_release(ctx);
    test_selection();
    return tu_finish("test_api");
}
