/*
 * test_largest.c - the largest sorts, and the sort that does not fit.
 *
 * Inputs of billions of keys cannot be checked against a reference sort in host memory, so the
 * keys come from distributions that are cheap to check exactly, written and read in chunks:
 *   few      16 distinct keys: sorted, and each key's count equals the input's;
 *   perm     key i = i * odd + c (mod 2^bits), a bijection: for 2^32 - 1 uint32 keys the sorted
 *            output is every 32-bit value but one, in order; for other counts sorted, with the
 *            sum and a hash sum of the keys equal to the input's;
 *   uniform  key i = a hash of i: sorted, sum and hash sum equal to the input's;
 * and with values (8-byte positions): each output value is a position, seen once, whose key
 * (generated again) is the key beside it.
 *   --does-not-fit: uint64 keys with 8-byte values, as many as the device's largest allocation
 *   holds (at most CLQSORT_MAX_COUNT), must be refused with CLQSORT_ERROR_OUT_OF_MEMORY and a
 *   message that names the device's limit, the keys unchanged.
 *
 *   test_largest [--type uint32|uint64] [--values 0|8] [--n N|2^K|max] [--dist few|perm|uniform]
 *                [--csv FILE] | --does-not-fit
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { DIST_FEW, DIST_PERM, DIST_UNIFORM };
static const char *const dist_names[] = {"few", "perm", "uniform"};
static const size_t chunk = (size_t)1 << 24; /* keys per transfer */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t few_keys[16]; /* the keys of DIST_FEW */

static uint64_t key_of(int dist, int wide, size_t i)
{
    uint64_t k;
    switch (dist) {
    case DIST_FEW: k = few_keys[mix64(i) & 15]; break;
    case DIST_PERM: k = wide ? i * 0x9e3779b97f4a7c15ull + 0x7f4a7c15ull : (uint32_t)(i * 0x9e3779b1u + 0x7f4a7c15u); break;
    default: k = mix64(i * 0x9e3779b97f4a7c15ull); break;
    }
    return wide ? k : (uint32_t)k;
}

/* What must be equal between input and output: each key's count for DIST_FEW; else the sum and
 * a hash sum of the keys (not needed where the output is known exactly). */
typedef struct sums {
    uint64_t sum, hash_sum, few[16];
} sums;

static uint64_t hash_of(uint64_t k) { return mix64(k ^ 0x5851f42d4c957f2dull); }

static int few_index(uint64_t k)
{
    for (int j = 0; j < 16; j++)
        if (k == few_keys[j])
            return j;
    return -1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t parse_count(const char *s)
{
    if (!strcmp(s, "max"))
        return CLQSORT_MAX_COUNT;
    if (!strncmp(s, "2^", 2))
        return (size_t)1 << atoi(s + 2);
    return (size_t)strtoull(s, NULL, 10);
}

static cl_mem new_buffer(clqsort_context *ctx, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clqsort_cl_context(ctx), CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!m) {
        fprintf(stderr, "test_largest: clCreateBuffer(%zu bytes) failed with %d\n", bytes, (int)err);
        exit(2);
    }
    return m;
}

/* The sort that does not fit: refused before anything is allocated or touched. */
static int does_not_fit(clqsort_context *ctx)
{
    cl_ulong global = 0, max_alloc = 0;
    clGetDeviceInfo(clqsort_cl_device(ctx), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    clGetDeviceInfo(clqsort_cl_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    size_t n = max_alloc / 8 < CLQSORT_MAX_COUNT ? (size_t)(max_alloc / 8) : CLQSORT_MAX_COUNT;
    size_t need = 0;
    CHECK(clqsort_scratch_bytes(ctx, n, CLQSORT_KEY_UINT64, 8, &need) == CLQSORT_SUCCESS, "scratch_bytes: %s",
          clqsort_last_error(ctx));
    printf("device: %llu bytes of global memory, %llu per allocation; %zu uint64 keys with 8-byte values: %zu bytes "
           "of keys and values, %zu of scratch\n",
           (unsigned long long)global, (unsigned long long)max_alloc, n, 16 * n, need);
    if (16 * n + need <= global) {
        printf("the largest such sort fits this device: no refusal to test\n");
        return 77;
    }
    cl_mem keys = new_buffer(ctx, n * 8), values = new_buffer(ctx, n * 8);
    const size_t m = n < chunk ? n : chunk;
    uint64_t *in = malloc(m * 8), *back = malloc(m * 8);
    for (size_t i = 0; i < m; i++)
        in[i] = key_of(DIST_UNIFORM, 1, i);
    cl_command_queue q = clqsort_cl_queue(ctx);
    clEnqueueWriteBuffer(q, keys, CL_TRUE, 0, m * 8, in, 0, NULL, NULL);
    const clqsort_status s = clqsort_sort_pairs(ctx, keys, values, n, CLQSORT_KEY_UINT64, 8, 0);
    const char *msg = clqsort_last_error(ctx);
    printf("refused: status %d: %s\n", s, msg);
    CHECK(s == CLQSORT_ERROR_OUT_OF_MEMORY, "status %d, expected CLQSORT_ERROR_OUT_OF_MEMORY", s);
    CHECK(strstr(msg, "CL_DEVICE_GLOBAL_MEM_SIZE") || strstr(msg, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"),
          "the message names the device's limit: %s", msg);
    clEnqueueReadBuffer(q, keys, CL_TRUE, 0, m * 8, back, 0, NULL, NULL);
    CHECK(!memcmp(in, back, m * 8), "keys changed by the refused sort");
    clReleaseMemObject(keys);
    clReleaseMemObject(values);

    /* a host array whose device copy exceeds the largest allocation */
    const size_t hn = (size_t)(max_alloc / 4) + 1;
    if (hn <= CLQSORT_MAX_COUNT) {
        uint32_t *host = calloc(hn, 4); /* untouched pages: nothing is read before the refusal */
        const clqsort_status h = host ? clqsort_sort_host(ctx, host, hn, CLQSORT_KEY_UINT32, 0) : CLQSORT_SUCCESS;
        printf("host array of %zu keys: status %d: %s\n", hn, h, clqsort_last_error(ctx));
        CHECK(!host || (h == CLQSORT_ERROR_OUT_OF_MEMORY && strstr(clqsort_last_error(ctx), "CL_DEVICE_MAX_MEM_ALLOC_SIZE")),
              "host array past the largest allocation: status %d", h);
        free(host);
    }
    free(in);
    free(back);
    return -1;
}

int main(int argc, char **argv)
{
    int wide = 0, dist = DIST_UNIFORM;
    size_t vsize = 0, n = (size_t)1 << 20;
    const char *csv = NULL;
    int refuse = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--does-not-fit"))
            refuse = 1;
        else if (!strcmp(a, "--type"))
            wide = !strcmp(v, "uint64"), i++;
        else if (!strcmp(a, "--values"))
            vsize = (size_t)atoi(v), i++;
        else if (!strcmp(a, "--n"))
            n = parse_count(v), i++;
        else if (!strcmp(a, "--dist")) {
            for (int d = 0; d < 3; d++)
                if (!strcmp(v, dist_names[d]))
                    dist = d;
            i++;
        } else if (!strcmp(a, "--csv"))
            csv = v, i++;
    }
    clqsort_context *ctx = tu_create_or_die();
    clqsort_info info;
    clqsort_get_info(ctx, &info);
    printf("device \"%s\" (%s)\n", info.device_name, info.platform_name);
    if (refuse) {
        const int r = does_not_fit(ctx);
        clqsort_release(ctx);
        return r == 77 ? 77 : tu_finish("test_largest --does-not-fit");
    }
    if (vsize && (vsize != 8 || !wide)) {
        fprintf(stderr, "test_largest: values are 8-byte positions, with uint64 keys\n");
        return 2;
    }
    for (uint64_t j = 0; j < 16; j++)
        few_keys[j] = wide ? mix64(0x1234 + j) : (uint32_t)mix64(0x1234 + j);
    const size_t w = wide ? 8 : 4;
    const clqsort_key_type type = wide ? CLQSORT_KEY_UINT64 : CLQSORT_KEY_UINT32;
    cl_command_queue q = clqsort_cl_queue(ctx);
    size_t need = 0;
    clqsort_scratch_bytes(ctx, n, type, vsize, &need);
    printf("%zu %s keys%s, %s: %zu bytes of keys and values, %zu of scratch\n", n, wide ? "uint64" : "uint32",
           vsize ? " with 8-byte values" : "", dist_names[dist], n * (w + vsize), need);
    cl_mem keys = new_buffer(ctx, n * w), values = vsize ? new_buffer(ctx, n * vsize) : NULL;

    /* write the input in chunks, summing it */
    const int exact_perm = dist == DIST_PERM && !wide && n == CLQSORT_MAX_COUNT;
    unsigned char *buf = malloc(chunk * 8), *vbuf = malloc(chunk * 8);
    uint64_t *buf64 = (uint64_t *)buf, *vbuf64 = (uint64_t *)vbuf;
    uint32_t *buf32 = (uint32_t *)buf;
    sums in_sums = {0}, out_sums = {0};
    double t0 = now();
    for (size_t at = 0; at < n; at += chunk) {
        const size_t m = n - at < chunk ? n - at : chunk;
        uint64_t sum = 0, hash_sum = 0, few[16] = {0};
#pragma omp parallel for reduction(+ : sum, hash_sum, few[:16])
        for (size_t i = 0; i < m; i++) {
            const uint64_t k = key_of(dist, wide, at + i);
            if (wide)
                buf64[i] = k;
            else
                buf32[i] = (uint32_t)k;
            if (vsize)
                vbuf64[i] = at + i;
            if (dist == DIST_FEW)
                few[mix64(at + i) & 15]++;
            else if (!exact_perm)
                sum += k, hash_sum += hash_of(k);
        }
        in_sums.sum += sum, in_sums.hash_sum += hash_sum;
        for (int j = 0; j < 16; j++)
            in_sums.few[j] += few[j];
        clEnqueueWriteBuffer(q, keys, CL_TRUE, at * w, m * w, buf, 0, NULL, NULL);
        if (vsize)
            clEnqueueWriteBuffer(q, values, CL_TRUE, at * 8, m * 8, vbuf, 0, NULL, NULL);
    }
    const double t_write = now() - t0;

    clFinish(q);
    t0 = now();
    const clqsort_status s = vsize ? clqsort_sort_pairs(ctx, keys, values, n, type, vsize, 0) : clqsort_sort(ctx, keys, n, type, 0);
    const double t_sort = now() - t0;
    CHECK(s == CLQSORT_SUCCESS, "sort: %s", clqsort_last_error(ctx));
    clqsort_stats st;
    clqsort_get_stats(ctx, &st);

    /* read back in chunks: order, sums, and the exact checks */
    unsigned char *seen = vsize ? calloc(n / 8 + 1, 1) : NULL;
    const uint64_t missing = (uint32_t)(0x7f4a7c15u - 0x9e3779b1u); /* the key i = 2^32 - 1 would have */
    uint64_t last = 0; /* the previous chunk's last key */
    size_t bad = 0, first_bad = SIZE_MAX;
    t0 = now();
    for (size_t at = 0; at < n && s == CLQSORT_SUCCESS; at += chunk) {
        const size_t m = n - at < chunk ? n - at : chunk;
        clEnqueueReadBuffer(q, keys, CL_TRUE, at * w, m * w, buf, 0, NULL, NULL);
        if (vsize)
            clEnqueueReadBuffer(q, values, CL_TRUE, at * 8, m * 8, vbuf, 0, NULL, NULL);
        uint64_t sum = 0, hash_sum = 0, few[16] = {0};
        size_t chunk_bad = 0, chunk_first = SIZE_MAX;
#pragma omp parallel for reduction(+ : sum, hash_sum, few[:16], chunk_bad) reduction(min : chunk_first)
        for (size_t i = 0; i < m; i++) {
            const uint64_t k = wide ? buf64[i] : buf32[i];
            const uint64_t before = i ? (wide ? buf64[i - 1] : buf32[i - 1]) : last;
            const size_t p = at + i;
            int ok = p == 0 || k >= before;
            if (exact_perm) /* every 32-bit value but the missing one, in order */
                ok = ok && k == (p < missing ? p : p + 1);
            else if (dist == DIST_FEW) {
                const int j = few_index(k);
                ok = ok && j >= 0;
                if (j >= 0)
                    few[j]++;
            } else
                sum += k, hash_sum += hash_of(k);
            if (vsize) { /* a position, seen once, whose key is the one beside it */
                const uint64_t pos = vbuf64[i];
                const unsigned char bit = (unsigned char)(1u << (pos % 8));
                ok = ok && pos < n && key_of(dist, wide, pos) == k &&
                     !(__atomic_fetch_or(&seen[pos / 8], bit, __ATOMIC_RELAXED) & bit);
            }
            if (!ok) {
                chunk_bad++;
                chunk_first = p < chunk_first ? p : chunk_first;
            }
        }
        out_sums.sum += sum, out_sums.hash_sum += hash_sum;
        for (int j = 0; j < 16; j++)
            out_sums.few[j] += few[j];
        if (chunk_bad && !bad)
            first_bad = chunk_first;
        bad += chunk_bad;
        last = wide ? buf64[m - 1] : buf32[m - 1];
    }
    const double t_check = now() - t0;
    CHECK(!bad, "%zu keys out of place or not the input's, the first at %zu", bad, first_bad);
    CHECK(!memcmp(&in_sums, &out_sums, sizeof in_sums), "the output's sums differ from the input's: not a permutation");
    printf("sorted in %.1f ms (%u levels, %u launches, %u round trips, %u phase-two records); write %.1f s, check "
           "%.1f s: %s\n",
           t_sort * 1e3, st.phase_one_levels, st.kernel_launches, st.host_round_trips, st.phase_two_records, t_write, t_check,
           bad || memcmp(&in_sums, &out_sums, sizeof in_sums) ? "WRONG" : "verified");
    if (csv) {
        FILE *f = fopen(csv, "a");
        if (f) {
            fseek(f, 0, SEEK_END);
            if (ftell(f) == 0)
                fprintf(f, "device,type,values,dist,n,sort_ms,levels,verified\n");
            fprintf(f, "\"%s\",%s,%zu,%s,%zu,%.3f,%u,%d\n", info.device_name, wide ? "uint64" : "uint32", vsize,
                    dist_names[dist], n, t_sort * 1e3, st.phase_one_levels, !bad && !memcmp(&in_sums, &out_sums, sizeof in_sums));
            fclose(f);
        }
    }
    clReleaseMemObject(keys);
    if (values)
        clReleaseMemObject(values);
    free(buf), free(vbuf), free(seen);
    clqsort_release(ctx);
    return tu_finish("test_largest");
}
