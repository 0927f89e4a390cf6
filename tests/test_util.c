/* test_util.c - see test_util.h. */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tu_passed, tu_failed;

int tu_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, tu_passed, tu_failed);
    return tu_failed ? 1 : 0;
}

static const char *const names[TU_DIST_COUNT] = {
    "uniform", "gaussian", "bucket", "staggered", "sorted", "reverse", "all-equal", "few-2", "few-16",
    "many-duplicates",
};

const char *tu_dist_name(tu_dist d) { return names[d]; }

int tu_dist_parse(const char *name)
{
    for (int i = 0; i < TU_DIST_COUNT; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

static uint64_t next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The distributions of the GPU-Quicksort paper's evaluation (Cederman and Tsigas), and a few more. */
void tu_generate(tu_dist d, uint32_t *keys, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dull + 1;
    const size_t groups = 32;
    switch (d) {
    case TU_UNIFORM:
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)next(&s);
        break;
    case TU_GAUSSIAN: /* mean of four uniforms: a bell around 2^31 */
        for (size_t i = 0; i < n; i++) {
            uint64_t sum = 0;
            for (int j = 0; j < 4; j++)
                sum += (uint32_t)next(&s);
            keys[i] = (uint32_t)(sum / 4);
        }
        break;
    case TU_BUCKET: /* each of `groups` runs holds keys from every one of `groups` value ranges */
        for (size_t i = 0; i < n; i++) {
            size_t within = i % (n / groups + 1);
            size_t bucket = within * groups / (n / groups + 1);
            keys[i] = (uint32_t)(bucket * (0xffffffffull / groups) + next(&s) % (0xffffffffull / groups));
        }
        break;
    case TU_STAGGERED: /* runs whose value ranges are interleaved */
        for (size_t i = 0; i < n; i++) {
            size_t run = i * groups / (n ? n : 1);
            size_t range = run < groups / 2 ? 2 * run + 1 : 2 * (run - groups / 2);
            keys[i] = (uint32_t)(range * (0xffffffffull / groups) + next(&s) % (0xffffffffull / groups));
        }
        break;
    case TU_SORTED:
    case TU_REVERSE:
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)next(&s);
        qsort(keys, n, sizeof *keys, cmp_u32);
        if (d == TU_REVERSE)
            for (size_t i = 0; i < n / 2; i++) {
                uint32_t t = keys[i];
                keys[i] = keys[n - 1 - i];
                keys[n - 1 - i] = t;
            }
        break;
    case TU_ALL_EQUAL: {
        uint32_t v = (uint32_t)next(&s) | 1u; /* never zero */
        for (size_t i = 0; i < n; i++)
            keys[i] = v;
        break;
    }
    case TU_FEW_2:
    case TU_FEW_16: {
        uint32_t vals[16];
        for (int j = 0; j < 16; j++)
            vals[j] = (uint32_t)next(&s);
        unsigned m = d == TU_FEW_2 ? 2 : 16;
        for (size_t i = 0; i < n; i++)
            keys[i] = vals[next(&s) % m];
        break;
    }
    case TU_MANY_DUPLICATES: /* about n/8 distinct values spread over the whole range */
    default: {
        uint64_t distinct = n / 8 + 1;
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)((next(&s) % distinct) * (0xffffffffull / distinct));
        break;
    }
    }
}

int tu_verify(const uint32_t *in, const uint32_t *out, size_t n, char *why, size_t why_size)
{
    uint32_t *ref = malloc((n ? n : 1) * sizeof *ref);
    if (!ref) {
        snprintf(why, why_size, "out of host memory for the reference");
        return 0;
    }
    memcpy(ref, in, n * sizeof *ref);
    qsort(ref, n, sizeof *ref, cmp_u32);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && out[i - 1] > out[i]) {
            snprintf(why, why_size, "not sorted at %zu: %u > %u", i, out[i - 1], out[i]);
            ok = 0;
            break;
        }
        if (out[i] != ref[i]) {
            snprintf(why, why_size, "not a permutation of the input: at %zu got %u, reference %u", i, out[i], ref[i]);
            ok = 0;
            break;
        }
    }
    free(ref);
    return ok;
}

clqsort_context *tu_create_or_die(void)
{
    clqsort_context *ctx;
    clqsort_status s = clqsort_create(&ctx, NULL);
    if (s != CLQSORT_SUCCESS) {
        fprintf(stderr, "clqsort_create failed: %s\n", clqsort_last_error(NULL));
        exit(2);
    }
    return ctx;
}

clqsort_status tu_sort_host(clqsort_context *ctx, const uint32_t *keys, size_t n, uint32_t *out)
{
    cl_int err;
    size_t bytes = (n ? n : 1) * sizeof *keys;
    cl_mem buf = clCreateBuffer(clqsort_cl_context(ctx), CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!buf) {
        fprintf(stderr, "clCreateBuffer(%zu) failed: %d\n", bytes, (int)err);
        return CLQSORT_ERROR_OUT_OF_MEMORY;
    }
    cl_command_queue q = clqsort_cl_queue(ctx);
    if (n)
        clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, n * sizeof *keys, keys, 0, NULL, NULL);
    clqsort_status s = clqsort_sort(ctx, buf, n, CLQSORT_KEY_UINT32, 0);
    if (n)
        clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n * sizeof *keys, out, 0, NULL, NULL);
    clReleaseMemObject(buf);
    return s;
}
