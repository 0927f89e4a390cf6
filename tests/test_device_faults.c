/*
 * test_device_faults.c - device-side launches that fail, on the device-enqueue path.
 *
 * A kernel of that path launches the next one with enqueue_kernel, which a runtime may refuse
 * (a full device queue, resources short while other programs run). CLQSORT_FAIL_DEVICE_ENQUEUE=N
 * (read when a context is created) makes the N-th device-side launch of a sort's first attempt
 * fail as if the queue were full; N*K in the first K attempts, N* in every attempt. The checks:
 *   - N = 1 and 2 (the first level's count pass and sort pass, or phase two alone): no key has
 *     moved, so a blocking call sorts again, whole, and succeeds; the result is verified and
 *     clqsort_stats.repeats is 1. Keys, pairs (the double keys with 8-byte values of the failure
 *     once seen under threads), stable pairs, segments and a partial sort.
 *   - N = 3 (after a sort pass moved keys): CLQSORT_ERROR_INTERNAL, the message names the
 *     launch's error and says the keys may have changed.
 *   - N = 1*3: the first three attempts fail (the refusal once seen in CI), the fourth sorts.
 *   - N = 1*: every attempt fails: CLQSORT_ERROR_INTERNAL after CLQ_SORT_ATTEMPTS tries, the
 *     message says the sort can be repeated, and the keys are byte-for-byte as they were; a
 *     context without the variable then sorts the same buffer.
 * The run fails unless the context runs the device-enqueue path.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static clqsort_context *create_failing(const char *fail)
{
    if (fail)
        setenv("CLQSORT_FAIL_DEVICE_ENQUEUE", fail, 1);
    else
        unsetenv("CLQSORT_FAIL_DEVICE_ENQUEUE");
    clqsort_context *ctx = tu_create_or_die();
    unsetenv("CLQSORT_FAIL_DEVICE_ENQUEUE");
    clqsort_info info;
    clqsort_get_info(ctx, &info);
    CHECK(info.path == CLQSORT_PATH_DEVICE_ENQUEUE, "the context runs the host loop: this test needs device enqueue");
    if (info.path != CLQSORT_PATH_DEVICE_ENQUEUE)
        exit(tu_finish("test_device_faults"));
    return ctx;
}

static unsigned repeats_of(clqsort_context *ctx)
{
    clqsort_stats st;
    clqsort_get_stats(ctx, &st);
    return st.repeats;
}

static cl_mem buffer_of(clqsort_context *ctx, const void *data, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clqsort_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)data,
                              &err);
    CHECK(m != NULL, "clCreateBuffer(%zu) failed with %d", bytes, (int)err);
    if (!m)
        exit(tu_finish("test_device_faults"));
    return m;
}

static void read_back(clqsort_context *ctx, cl_mem m, void *out, size_t bytes)
{
    cl_int err = clEnqueueReadBuffer(clqsort_cl_queue(ctx), m, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "clEnqueueReadBuffer failed with %d", (int)err);
}

/* The case of the refusal seen under threads: 20000 double keys with 8-byte values (their input
 * positions), through host arrays, checked; the call's status. */
static clqsort_status double_pairs(clqsort_context *ctx, const char *fail, int descending, uint64_t seed)
{
    const size_t n = 20000;
    unsigned char *in = malloc(n * 8), *out = malloc(n * 8), *vals = malloc(n * 8);
    tu_generate_typed(CLQSORT_KEY_DOUBLE, TU_UNIFORM, in, n, seed);
    memcpy(out, in, n * 8);
    tu_index_values(vals, 8, n);
    const clqsort_status s =
        clqsort_sort_pairs_host(ctx, out, vals, n, CLQSORT_KEY_DOUBLE, 8, descending ? CLQSORT_DESCENDING : 0);
    CHECK(s == CLQSORT_SUCCESS, "fail %s, double pairs: %s", fail, clqsort_last_error(ctx));
    char why[256];
    CHECK(s != CLQSORT_SUCCESS || tu_verify_pairs(CLQSORT_KEY_DOUBLE, descending, in, out, vals, 8, n, why, sizeof why),
          "fail %s, double pairs: %s", fail, why);
    free(in), free(out), free(vals);
    return s;
}

/* Each kind of sort with the N-th launch failed once: repeated, verified, repeats 1 (or at most 1
 * where the sort may launch nothing from the device: a partial sort). */
static void repeated_sorts(const char *fail)
{
    clqsort_context *ctx = create_failing(fail);
    char why[256];
    const size_t n = 1u << 18;
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
    unsigned char *din = malloc(n * 8), *dout = malloc(n * 8), *vals = malloc(n * 8);

    /* keys, in a device buffer */
    tu_generate(TU_UNIFORM, in, n, 11);
    cl_mem kb = buffer_of(ctx, in, n * 4);
    clqsort_status s = clqsort_sort(ctx, kb, n, CLQSORT_KEY_UINT32, 0);
    CHECK(s == CLQSORT_SUCCESS, "fail %s, keys: %s", fail, clqsort_last_error(ctx));
    read_back(ctx, kb, out, n * 4);
    CHECK(tu_verify(in, out, n, why, sizeof why), "fail %s, keys: %s", fail, why);
    CHECK(s != CLQSORT_SUCCESS || repeats_of(ctx) == 1, "fail %s, keys: %u repeats", fail, repeats_of(ctx));
    clReleaseMemObject(kb);

    /* double keys with 8-byte values, descending */
    s = double_pairs(ctx, fail, 1, 12);
    CHECK(s != CLQSORT_SUCCESS || repeats_of(ctx) == 1, "fail %s, double pairs: %u repeats", fail, repeats_of(ctx));

    /* stable pairs of few distinct keys */
    tu_generate_typed(CLQSORT_KEY_UINT32, TU_FEW_16, din, n, 13);
    memcpy(dout, din, n * 4);
    tu_index_values(vals, 4, n);
    s = clqsort_sort_pairs_host(ctx, dout, vals, n, CLQSORT_KEY_UINT32, 4, CLQSORT_STABLE);
    CHECK(s == CLQSORT_SUCCESS, "fail %s, stable pairs: %s", fail, clqsort_last_error(ctx));
    CHECK(s != CLQSORT_SUCCESS || (tu_verify_pairs(CLQSORT_KEY_UINT32, 0, din, dout, vals, 4, n, why, sizeof why) &&
                                   tu_verify_stable(CLQSORT_KEY_UINT32, dout, vals, 4, n, why, sizeof why)),
          "fail %s, stable pairs: %s", fail, why);
    CHECK(s != CLQSORT_SUCCESS || repeats_of(ctx) == 1, "fail %s, stable pairs: %u repeats", fail, repeats_of(ctx));

    /* segments of heavy-tailed lengths, with values */
    uint32_t *begin = malloc((n + 2) * 4), *end = malloc((n + 2) * 4);
    size_t segments;
    int ends_given;
    tu_make_segments(TU_SEG_PARETO, 1u << 16, n, 8, 256, 14, begin, end, &segments, &ends_given);
    tu_generate_typed(CLQSORT_KEY_UINT32, TU_UNIFORM, din, n, 15);
    memcpy(dout, din, n * 4);
    unsigned char *vin = malloc(n * 4);
    tu_index_values(vin, 4, n); /* each value: its key's input position */
    memcpy(vals, vin, n * 4);
    s = clqsort_sort_segments_host(ctx, dout, vals, n, CLQSORT_KEY_UINT32, 4, begin, ends_given ? end : NULL, segments,
                                   0);
    CHECK(s == CLQSORT_SUCCESS, "fail %s, segments: %s", fail, clqsort_last_error(ctx));
    CHECK(s != CLQSORT_SUCCESS || tu_verify_segments(CLQSORT_KEY_UINT32, 0, din, dout, vin, vals, 4, n, begin,
                                                     ends_given ? end : NULL, segments, why, sizeof why),
          "fail %s, segments: %s", fail, why);
    CHECK(s != CLQSORT_SUCCESS || repeats_of(ctx) == 1, "fail %s, segments: %u repeats", fail, repeats_of(ctx));

    /* a partial sort: the first k as a full sort has them, the whole a permutation */
    const size_t k = 70000;
    tu_generate(TU_UNIFORM, in, n, 16);
    memcpy(out, in, n * 4);
    s = clqsort_partial_sort_host(ctx, out, NULL, n, CLQSORT_KEY_UINT32, 0, k, 0);
    CHECK(s == CLQSORT_SUCCESS, "fail %s, partial sort: %s", fail, clqsort_last_error(ctx));
    if (s == CLQSORT_SUCCESS) {
        uint32_t *ref = malloc(n * 4), *all = malloc(n * 4);
        memcpy(ref, in, n * 4);
        tu_sort_typed(CLQSORT_KEY_UINT32, 0, ref, n);
        memcpy(all, out, n * 4);
        tu_sort_typed(CLQSORT_KEY_UINT32, 0, all, n);
        CHECK(!memcmp(out, ref, k * 4), "fail %s, partial sort: the first %zu keys differ from a full sort's", fail, k);
        CHECK(!memcmp(all, ref, n * 4), "fail %s, partial sort: not a permutation of the input", fail);
        CHECK(repeats_of(ctx) <= 1, "fail %s, partial sort: %u repeats", fail, repeats_of(ctx));
        free(ref), free(all);
    }
    free(in), free(out), free(din), free(dout), free(vals), free(vin), free(begin), free(end);
    clqsort_release(ctx);
}

/* A launch after a sort pass: not repeatable, reported. */
static void failure_after_keys_moved(void)
{
    clqsort_context *ctx = create_failing("3");
    const size_t n = 1u << 18;
    uint32_t *in = malloc(n * 4);
    tu_generate(TU_UNIFORM, in, n, 21);
    cl_mem kb = buffer_of(ctx, in, n * 4);
    const clqsort_status s = clqsort_sort(ctx, kb, n, CLQSORT_KEY_UINT32, 0);
    const char *msg = clqsort_last_error(ctx);
    CHECK(s == CLQSORT_ERROR_INTERNAL, "fail 3: status %d, expected CLQSORT_ERROR_INTERNAL: %s", s, msg);
    CHECK(strstr(msg, "enqueue_kernel returned -161 (CLK_DEVICE_QUEUE_FULL) after 2 launches") != NULL,
          "fail 3: the message does not name the launch's error: %s", msg);
    CHECK(strstr(msg, "the keys may have changed") != NULL, "fail 3: the message does not warn of moved keys: %s", msg);
    clReleaseMemObject(kb);
    free(in);
    clqsort_release(ctx);
}

/* The refusal seen in CI (intel_threads): three tries in a row refused before the first launch
 * (enqueue_kernel -101). The later tries, after pauses, sort the double pairs; repeats 3. */
static void failure_in_three_tries(void)
{
    clqsort_context *ctx = create_failing("1*3");
    double_pairs(ctx, "1*3", 0, 41);
    CHECK(repeats_of(ctx) == 3, "fail 1*3, double pairs: %u repeats, expected 3", repeats_of(ctx));
    clqsort_release(ctx);
}

/* Every attempt fails: refused after the last, the keys as they were; another context sorts them. */
static void failure_every_attempt(void)
{
    clqsort_context *ctx = create_failing("1*");
    const size_t n = 1u << 18;
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
    tu_generate(TU_GAUSSIAN, in, n, 31);
    cl_mem kb = buffer_of(ctx, in, n * 4);
    const clqsort_status s = clqsort_sort(ctx, kb, n, CLQSORT_KEY_UINT32, 0);
    const char *msg = clqsort_last_error(ctx);
    CHECK(s == CLQSORT_ERROR_INTERNAL, "fail 1*: status %d, expected CLQSORT_ERROR_INTERNAL: %s", s, msg);
    CHECK(strstr(msg, "after 0 launches") && strstr(msg, "the sort can be repeated"),
          "fail 1*: the message does not say the sort can be repeated: %s", msg);
    CHECK(strstr(msg, "the device refused the launch in each of 6 tries") != NULL,
          "fail 1*: the message does not count the tries: %s", msg);
    read_back(ctx, kb, out, n * 4);
    CHECK(!memcmp(in, out, n * 4), "fail 1*: the keys changed, though no sort pass ran");
    clqsort_context *other = create_failing(NULL);
    /* the buffer belongs to ctx's OpenCL context: sort it through a copy in other's */
    cl_mem ob = buffer_of(other, out, n * 4);
    const clqsort_status t = clqsort_sort(other, ob, n, CLQSORT_KEY_UINT32, 0);
    CHECK(t == CLQSORT_SUCCESS, "a context without the failure: %s", clqsort_last_error(other));
    char why[256];
    read_back(other, ob, out, n * 4);
    CHECK(tu_verify(in, out, n, why, sizeof why), "a context without the failure: %s", why);
    CHECK(repeats_of(other) == 0, "a context without the failure: %u repeats", repeats_of(other));
    clReleaseMemObject(ob);
    clReleaseMemObject(kb);
    clqsort_release(other);
    clqsort_release(ctx);
    free(in), free(out);
}

int main(void)
{
    repeated_sorts("1");
    repeated_sorts("2");
    failure_after_keys_moved();
    failure_in_three_tries();
    failure_every_attempt();
    return tu_finish("test_device_faults");
}
