/* test_util.c - see test_util.h. */
#include "test_util.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Atomic int tu_passed, tu_failed;

int tu_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, tu_passed, tu_failed);
    return tu_failed ? 1 : 0;
}

static const char *const names[TU_DIST_COUNT] = {
    "uniform", "gaussian", "bucket", "staggered", "sorted", "reverse", "all-equal", "few-2", "few-16",
    "many-duplicates", "power-law", "upper-bits", "sawtooth",
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
        tu_sort_typed(CLQSORT_KEY_UINT32, 0, keys, n);
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
    case TU_POWER_LAW: /* 2^32 u^8 for uniform u: half the keys below 2^24, a long thin tail */
        for (size_t i = 0; i < n; i++) {
            const double u = (double)(next(&s) >> 11) * 0x1p-53, u2 = u * u, u4 = u2 * u2;
            keys[i] = (uint32_t)(u4 * u4 * 4294967295.0);
        }
        break;
    case TU_UPPER_BITS: /* random upper 12 bits, the lower 20 zero: 4096 values far apart */
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)next(&s) & 0xfff00000u;
        break;
    case TU_SAWTOOTH: /* ramps of 4099 keys over the whole range, with noise in the low byte */
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)((i % 4099) * (0xffffffffull / 4099)) + (uint32_t)(next(&s) & 0xff);
        break;
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
    tu_sort_typed(CLQSORT_KEY_UINT32, 0, ref, n);
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

long tu_alloc_calls, tu_alloc_live, tu_alloc_fail_at;

void *tu_counting_malloc(size_t n)
{
    if (++tu_alloc_calls == tu_alloc_fail_at)
        return NULL;
    void *p = malloc(n);
    if (p)
        tu_alloc_live++;
    return p;
}

void tu_counting_free(void *p)
{
    tu_alloc_live--;
    free(p);
}

void tu_expect_ways(tu_ways_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    const char *env = getenv("CLQSORT_TEST_EXPECT_WAYS");
    if (!env)
        return;
    int ok = 1;
    for (const char *p = env; ok && *p;) {
        unsigned long lo, hi = ULONG_MAX, ways;
        int used = 0;
        if (sscanf(p, "%lu-%lu:%lu%n", &lo, &hi, &ways, &used) != 3 &&
            (hi = ULONG_MAX, sscanf(p, "%lu:%lu%n", &lo, &ways, &used) != 2))
            ok = 0;
        else if (spec->ranges == TU_WAYS_RANGES || ways < 2 || lo > hi || (spec->ways && ways != spec->ways))
            ok = 0;
        else {
            spec->lo[spec->ranges] = lo;
            spec->hi[spec->ranges++] = hi;
            spec->ways = ways;
            p += used;
            if (*p == ',')
                p++;
            else if (*p)
                ok = 0;
        }
    }
    CHECK(ok && spec->ranges, "CLQSORT_TEST_EXPECT_WAYS=%s: expected N:W or A-B:W, comma-separated, one W", env);
    if (!ok)
        spec->ways = 0;
}

int tu_ways_wide_at(const tu_ways_spec *spec, size_t n)
{
    for (unsigned i = 0; i < spec->ranges; i++)
        if (n >= spec->lo[i] && n <= spec->hi[i])
            return 1;
    return 0;
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

/* ---- typed keys ---- */

const char *const tu_type_names[] = {"uint32", "int32", "float", "uint64", "int64", "double"};

size_t tu_width_of(clqsort_key_type t) { return t >= CLQSORT_KEY_UINT64 ? 8 : 4; }

/* The order of README.md as an unsigned code (the same mapping as the kernels, written again
 * here on purpose: the test must not share the library's code). */
uint64_t tu_code_of(clqsort_key_type t, const unsigned char *p)
{
    uint64_t u;
    if (tu_width_of(t) == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        u = v;
    } else {
        memcpy(&u, p, 8);
    }
    const int bits = (int)tu_width_of(t) * 8;
    const uint64_t sign = (uint64_t)1 << (bits - 1), mask = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    switch (t) {
    case CLQSORT_KEY_INT32:
    case CLQSORT_KEY_INT64:
        return u ^ sign;
    case CLQSORT_KEY_FLOAT:
    case CLQSORT_KEY_DOUBLE: {
        /* NaN: exponent all ones, mantissa not zero -> above everything, sign ignored */
        const uint64_t exp_mask = bits == 32 ? 0x7f800000u : 0x7ff0000000000000ull;
        const uint64_t man_mask = bits == 32 ? 0x007fffffu : 0x000fffffffffffffull;
        if ((u & exp_mask) == exp_mask && (u & man_mask))
            return mask; /* every NaN ties at the top; the check below then ignores their order */
        return (u & sign) ? (~u & mask) : (u | sign);
    }
    default:
        return u;
    }
}

/* LSD radix sort of 64-bit values by their bytes from `low` up, a byte a pass (the bytes below
 * `low` are left in input order; at most 32 values are sorted whole, by insertion, which is the
 * same wherever the caller passes low > 0: there the low bytes follow from the high ones): one
 * read counts every byte position, and positions where all values share the byte are skipped.
 * Linear time, so that checking 2^28 keys takes seconds, not minutes. */
static void radix_sort_u64_from(uint64_t *a, size_t n, unsigned low)
{
    if (n <= 32) { /* by insertion: the tables below cost more than a short segment's sort */
        for (size_t i = 1; i < n; i++) {
            const uint64_t x = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1] > x; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    uint64_t *tmp = malloc((n + 1) * sizeof *tmp);
    size_t(*count)[257] = calloc(8, sizeof *count);
    if (!tmp || !count) {
        fprintf(stderr, "test_util: out of host memory for the reference sort of %zu keys\n", n);
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        for (unsigned d = low; d < 8; d++)
            count[d][((a[i] >> (8 * d)) & 0xff) + 1]++;
    uint64_t *from = a, *to = tmp; /* each pass from one to the other */
    for (unsigned d = low; d < 8; d++) {
        int skip = 0;
        for (int b = 1; b <= 256; b++)
            skip |= count[d][b] == n;
        if (skip)
            continue;
        for (int b = 0; b < 256; b++)
            count[d][b + 1] += count[d][b];
        for (size_t i = 0; i < n; i++)
            to[count[d][(from[i] >> (8 * d)) & 0xff]++] = from[i];
        uint64_t *t = from;
        from = to, to = t;
    }
    if (from != a)
        memcpy(a, from, n * sizeof *a);
    free(tmp);
    free(count);
}

static void radix_sort_u64(uint64_t *a, size_t n) { radix_sort_u64_from(a, n, 0); }

static uint64_t *load_u64(const unsigned char *keys, size_t n, size_t w)
{
    uint64_t *a = malloc((n + 1) * sizeof *a);
    if (!a) {
        fprintf(stderr, "test_util: out of host memory for %zu keys\n", n);
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        a[i] = 0;
        memcpy(&a[i], keys + i * w, w);
    }
    return a;
}

int tu_cmp_u64(const void *a, const void *b)
{
    uint64_t x = 0, y = 0;
    memcpy(&x, a, 8), memcpy(&y, b, 8);
    return (x > y) - (x < y);
}

static int is_nan64(uint64_t u) { return (u & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (u & 0x000fffffffffffffull); }

void tu_sort_typed(clqsort_key_type t, int desc, void *keys, size_t n)
{
    const size_t w = tu_width_of(t);
    unsigned char *k = keys;
    uint64_t *a = load_u64(k, n, w);
    if (w == 4) {
        /* (code, raw bits) in one 64-bit value: ties of the code (NaNs) ordered by their bits.
         * Without a NaN the code decides the bits, and the bits' four passes are skipped: half
         * of test_sort's time on pocl was this sort. */
        int nan = 0;
        for (size_t i = 0; i < n; i++) {
            const uint64_t c = tu_code_of(t, k + 4 * i);
            nan |= t == CLQSORT_KEY_FLOAT && c == 0xffffffffu; /* the code of every NaN, and of nothing else */
            a[i] = c << 32 | a[i];
        }
        radix_sort_u64_from(a, n, nan ? 0 : 4);
        for (size_t i = 0; i < n; i++) {
            const uint32_t v = (uint32_t)a[i];
            memcpy(k + 4 * i, &v, 4);
        }
    } else {
        /* an order-preserving bijection of the bits; for doubles it puts the negative NaNs first
         * and the positive ones last, so afterwards every NaN is moved to the end, by bits */
        const uint64_t sign = 1ull << 63;
        for (size_t i = 0; i < n; i++)
            a[i] = t == CLQSORT_KEY_INT64 ? a[i] ^ sign
                   : t == CLQSORT_KEY_DOUBLE ? ((a[i] & sign) ? ~a[i] : a[i] | sign)
                                              : a[i];
        radix_sort_u64(a, n);
        for (size_t i = 0; i < n; i++)
            a[i] = t == CLQSORT_KEY_INT64 ? a[i] ^ sign
                   : t == CLQSORT_KEY_DOUBLE ? ((a[i] & sign) ? a[i] ^ sign : ~a[i])
                                              : a[i];
        if (t == CLQSORT_KEY_DOUBLE) {
            size_t lead = 0; /* negative NaNs, now first: moved behind everything */
            while (lead < n && is_nan64(a[lead]))
                lead++;
            uint64_t *nans = malloc((lead + 1) * sizeof *nans);
            memcpy(nans, a, lead * sizeof *a);
            memmove(a, a + lead, (n - lead) * sizeof *a);
            memcpy(a + n - lead, nans, lead * sizeof *a);
            free(nans);
            size_t first_nan = n;
            while (first_nan > 0 && is_nan64(a[first_nan - 1]))
                first_nan--;
            qsort(a + first_nan, n - first_nan, sizeof *a, tu_cmp_u64);
        }
        for (size_t i = 0; i < n; i++)
            memcpy(k + 8 * i, &a[i], 8);
    }
    free(a);
    if (desc) {
        unsigned char tmp[8];
        for (size_t i = 0; i < n / 2; i++) {
            memcpy(tmp, k + i * w, w);
            memcpy(k + i * w, k + (n - 1 - i) * w, w);
            memcpy(k + (n - 1 - i) * w, tmp, w);
        }
    }
}

/* Each type's edge values as raw bit patterns. */
size_t tu_edges(clqsort_key_type t, unsigned char *out)
{
    size_t n = 0;
#define PUT(T, v) do { T tmp_ = (v); memcpy(out + n * sizeof(T), &tmp_, sizeof(T)); n++; } while (0)
    switch (t) {
    case CLQSORT_KEY_UINT32: PUT(uint32_t, 0); PUT(uint32_t, 1); PUT(uint32_t, UINT32_MAX); PUT(uint32_t, 0x80000000u); break;
    case CLQSORT_KEY_INT32: PUT(int32_t, INT32_MIN); PUT(int32_t, INT32_MAX); PUT(int32_t, 0); PUT(int32_t, -1); PUT(int32_t, 1); break;
    case CLQSORT_KEY_UINT64: PUT(uint64_t, 0); PUT(uint64_t, UINT64_MAX); PUT(uint64_t, 1ull << 63); PUT(uint64_t, UINT32_MAX); break;
    case CLQSORT_KEY_INT64: PUT(int64_t, INT64_MIN); PUT(int64_t, INT64_MAX); PUT(int64_t, 0); PUT(int64_t, -1); break;
    case CLQSORT_KEY_FLOAT: {
        static const uint32_t bits[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                        0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 0x00000001u, 0x80000001u,
                                        0x007fffffu, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u};
        for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
            PUT(uint32_t, bits[i]);
        break;
    }
    case CLQSORT_KEY_DOUBLE: {
        static const uint64_t bits[] = {0, 1ull << 63, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                        0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                        0xfff0000000000001ull, 0x7fffffffffffffffull, 0xffffffffffffffffull, 1,
                                        0x8000000000000001ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
                                        0x3ff0000000000000ull, 0xbff0000000000000ull};
        for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
            PUT(uint64_t, bits[i]);
        break;
    }
    }
#undef PUT
    return n;
}

/* A test_util distribution mapped to the type: integers keep the shape, floats become values of
 * both signs around zero, 64-bit keys carry random low halves. Edge values are sprinkled in. */
void tu_generate_typed(clqsort_key_type t, tu_dist d, unsigned char *out, size_t n, uint64_t seed)
{
    uint32_t *base = malloc((n + 1) * 4), *low = malloc((n + 1) * 4);
    tu_generate(d, base, n, seed);
    tu_generate(TU_UNIFORM, low, n, seed + 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t v = base[i];
        switch (t) {
        case CLQSORT_KEY_UINT32: memcpy(out + 4 * i, &v, 4); break;
        case CLQSORT_KEY_INT32: { int32_t x = (int32_t)(v ^ 0x80000000u); memcpy(out + 4 * i, &x, 4); break; }
        case CLQSORT_KEY_FLOAT: { float f = ((float)v - 2147483648.0f) / 1024.0f; memcpy(out + 4 * i, &f, 4); break; }
        case CLQSORT_KEY_UINT64: { uint64_t x = ((uint64_t)v << 32) | (d == TU_ALL_EQUAL ? 7 : low[i] % 4096); memcpy(out + 8 * i, &x, 8); break; }
        case CLQSORT_KEY_INT64: { int64_t x = (int64_t)((((uint64_t)v << 32) | (d == TU_ALL_EQUAL ? 7 : low[i] % 4096)) ^ (1ull << 63)); memcpy(out + 8 * i, &x, 8); break; }
        case CLQSORT_KEY_DOUBLE: { double x = ((double)v - 2147483648.0) * 1e-3 + (d == TU_ALL_EQUAL ? 0 : low[i] * 1e-9); memcpy(out + 8 * i, &x, 8); break; }
        }
    }
    if (d == TU_UNIFORM && n >= 64) { /* edge values at spread positions, some repeated */
        unsigned char e[32 * 8];
        size_t ne = tu_edges(t, e), w = tu_width_of(t);
        for (size_t k = 0; k < 3 * ne && k < n / 4; k++)
            memcpy(out + ((k * 7919) % n) * w, e + (k % ne) * w, w);
    }
    free(base);
    free(low);
}


int tu_verify_sorted(clqsort_key_type t, int desc, const unsigned char *ref, const unsigned char *out, size_t n,
                     char *why, size_t why_size)
{
    const size_t w = tu_width_of(t);
    if (!memcmp(out, ref, n * w))
        return 1; /* the reference's bits: in order and a permutation (the common case, at memcmp's speed) */
    size_t i = 0;
    while (i < n) {
        const uint64_t c = tu_code_of(t, ref + i * w);
        if (tu_code_of(t, out + i * w) != c) {
            snprintf(why, why_size, "at %zu: not the key of the reference sort (%s)", i,
                     i > 0 && (desc ? tu_code_of(t, out + i * w) > tu_code_of(t, out + (i - 1) * w)
                                    : tu_code_of(t, out + i * w) < tu_code_of(t, out + (i - 1) * w))
                         ? "out of order"
                         : "not a permutation of the input");
            return 0;
        }
        /* a run of one code: one bit pattern, except for NaNs, which tie in the order; their
         * bit patterns must match as multisets */
        size_t j = i + 1;
        while (j < n && tu_code_of(t, ref + j * w) == c)
            j++;
        for (size_t k = i + 1; k < j; k++)
            if (tu_code_of(t, out + k * w) != c) {
                snprintf(why, why_size, "at %zu: not the key of the reference sort", k);
                return 0;
            }
        if (memcmp(out + i * w, ref + i * w, (j - i) * w)) {
            uint64_t *x = load_u64(ref + i * w, j - i, w), *y = load_u64(out + i * w, j - i, w);
            radix_sort_u64(x, j - i);
            radix_sort_u64(y, j - i);
            const int same = !memcmp(x, y, (j - i) * sizeof *x);
            free(x);
            free(y);
            if (!same) {
                snprintf(why, why_size, "at %zu..%zu: bit patterns differ from the input's", i, j);
                return 0;
            }
        }
        i = j;
    }
    return 1;
}

int tu_verify_typed(clqsort_key_type t, int desc, const unsigned char *in, const unsigned char *out, size_t n,
                    char *why, size_t why_size)
{
    unsigned char *ref = malloc(n * tu_width_of(t) + 1);
    if (!ref) {
        snprintf(why, why_size, "out of host memory for the reference");
        return 0;
    }
    memcpy(ref, in, n * tu_width_of(t));
    tu_sort_typed(t, desc, ref, n);
    const int ok = tu_verify_sorted(t, desc, ref, out, n, why, why_size);
    free(ref);
    return ok;
}

void tu_index_values(unsigned char *values, size_t value_bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t v = i; /* little-endian: the low bytes */
        memcpy(values + i * value_bytes, &v, value_bytes);
    }
}

/* The index a value holds (4 or 8 bytes, little-endian). Read at its own width: copying 4 bytes
 * into a zeroed 8-byte word and loading the word cannot be forwarded from the store, and in the
 * checks' loops, whose next load is a cache miss, that stall serialised the misses (a 2^24 check
 * took 3.4 s with 4-byte values against 1.0 s with 8-byte ones). */
static uint64_t value_at(const unsigned char *values, size_t value_bytes, size_t i)
{
    if (value_bytes == 4) {
        uint32_t v;
        memcpy(&v, values + i * 4, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, values + i * 8, 8);
    return v;
}

int tu_verify_values(clqsort_key_type t, const unsigned char *in, const unsigned char *out_keys,
                     const unsigned char *out_values, size_t value_bytes, size_t n, char *why, size_t why_size)
{
    const size_t w = tu_width_of(t);
    unsigned char *seen = calloc(n + 1, 1);
    if (!seen) {
        snprintf(why, why_size, "out of host memory for the check");
        return 0;
    }
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        const uint64_t v = value_at(out_values, value_bytes, i);
        if (v >= n || seen[v] || memcmp(out_keys + i * w, in + v * w, w)) {
            snprintf(why, why_size, "at %zu: value %llu is not the input position of its key, or repeats", i,
                     (unsigned long long)v);
            ok = 0;
        } else {
            seen[v] = 1;
        }
    }
    free(seen);
    return ok;
}

int tu_verify_pairs(clqsort_key_type t, int desc, const unsigned char *in, const unsigned char *out_keys,
                    const unsigned char *out_values, size_t value_bytes, size_t n, char *why, size_t why_size)
{
    return tu_verify_typed(t, desc, in, out_keys, n, why, why_size) &&
           tu_verify_values(t, in, out_keys, out_values, value_bytes, n, why, why_size);
}

int tu_verify_stable(clqsort_key_type t, const unsigned char *out_keys, const unsigned char *out_values,
                     size_t value_bytes, size_t n, char *why, size_t why_size)
{
    const size_t w = tu_width_of(t);
    for (size_t i = 1; i < n; i++) {
        const uint64_t a = value_at(out_values, value_bytes, i - 1), b = value_at(out_values, value_bytes, i);
        if (!memcmp(out_keys + (i - 1) * w, out_keys + i * w, w) && a >= b) {
            snprintf(why, why_size, "equal keys out of input order at %zu", i);
            return 0;
        }
    }
    return 1;
}

/* ---- segments ---- */

static const char *const seg_names[TU_SEG_SHAPES] = {"tiny", "fixed", "few", "pareto", "gaps", "around", "empty"};

const char *tu_seg_shape_name(tu_seg_shape s) { return seg_names[s]; }

void tu_make_segments(tu_seg_shape shape, size_t param, size_t n, size_t lq_small, size_t lq_max, uint64_t seed,
                      uint32_t *begin, uint32_t *end, size_t *segments, int *ends_given)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 7;
    size_t k = 0, at = 0;
    *ends_given = shape == TU_SEG_GAPS || shape == TU_SEG_AROUND;
    const size_t around[] = {0, 1, 2, lq_small - 1, lq_small, lq_small + 1, 2 * lq_small, 2 * lq_small + 1,
                             lq_max / 2 - 1, lq_max / 2, lq_max / 2 + 1, lq_max - 1, lq_max, lq_max + 1,
                             2 * lq_max + 3, 3};
    while (at < n && k < n) {
        size_t len = 0, gap = 0;
        switch (shape) {
        case TU_SEG_TINY: len = next(&s) % 7; break;
        case TU_SEG_FIXED: len = param; break;
        case TU_SEG_FEW: len = (n + param - 1) / (param ? param : 1); break;
        case TU_SEG_PARETO: { /* P(len > x) ~ 1 / x */
            const double u = ((double)(next(&s) >> 11) + 1.0) / 9007199254740992.0;
            const double x = 1.0 / u;
            len = x >= (double)param ? param : (size_t)x;
            break;
        }
        case TU_SEG_GAPS:
            gap = next(&s) % 4 == 0 ? next(&s) % 50 : 0;
            len = next(&s) % 3 == 0 ? 0 : next(&s) % (param + 1);
            break;
        case TU_SEG_AROUND:
            len = around[k % (sizeof around / sizeof around[0])];
            gap = k % 3 == 0;
            break;
        case TU_SEG_EMPTY: at = n; break;
        default: break;
        }
        if (shape == TU_SEG_EMPTY)
            break;
        at = at + gap > n ? n : at + gap;
        if (len > n - at)
            len = n - at;
        begin[k] = (uint32_t)at;
        end[k] = (uint32_t)(at + len);
        k++;
        at += len;
        if (!*ends_given && shape != TU_SEG_EMPTY && len == 0 && at == n)
            break;
    }
    if (shape == TU_SEG_EMPTY) {
        const size_t m = param ? param : 1;
        for (k = 0; k < m && k < n + 1; k++)
            begin[k] = end[k] = (uint32_t)n;
    }
    if (!*ends_given)
        begin[k] = k ? end[k - 1] : 0; /* compressed: back to back, the last end closes it */
    *segments = k;
}

void tu_sort_segments_typed(clqsort_key_type t, int desc, unsigned char *keys, const uint32_t *begin,
                            const uint32_t *end, size_t segments)
{
    const size_t w = tu_width_of(t);
    for (size_t i = 0; i < segments; i++) {
        const size_t b = begin[i], e = end ? end[i] : begin[i + 1];
        tu_sort_typed(t, desc, keys + b * w, e - b);
    }
}

int tu_verify_segments(clqsort_key_type t, int desc, const unsigned char *in, const unsigned char *out,
                       const unsigned char *in_values, const unsigned char *out_values, size_t value_bytes, size_t n,
                       const uint32_t *begin, const uint32_t *end, size_t segments, char *why, size_t why_size)
{
    const size_t w = tu_width_of(t);
    unsigned char *ref = malloc(n * w + 1);
    if (!ref) {
        snprintf(why, why_size, "out of host memory");
        return 0;
    }
    memcpy(ref, in, n * w);
    tu_sort_segments_typed(t, desc, ref, begin, end, segments);
    const int ok = tu_verify_segments_ref(t, desc, in, ref, out, in_values, out_values, value_bytes, n, begin, end,
                                          segments, why, why_size);
    free(ref);
    return ok;
}

int tu_verify_segments_ref(clqsort_key_type t, int desc, const unsigned char *in, const unsigned char *ref,
                           const unsigned char *out, const unsigned char *in_values, const unsigned char *out_values,
                           size_t value_bytes, size_t n, const uint32_t *begin, const uint32_t *end, size_t segments,
                           char *why, size_t why_size)
{
    const size_t w = tu_width_of(t);
    unsigned char *inside = calloc(n + 1, 1), *seen = calloc(n + 1, 1);
    int ok = inside && seen;
    if (!ok)
        snprintf(why, why_size, "out of host memory");
    for (size_t i = 0; ok && i < segments; i++) {
        const size_t b = begin[i], e = end ? end[i] : begin[i + 1];
        memset(inside + b, 1, e - b);
        char inner[200];
        if (!tu_verify_sorted(t, desc, ref + b * w, out + b * w, e - b, inner, sizeof inner)) {
            snprintf(why, why_size, "segment %zu [%zu, %zu): %s", i, b, e, inner);
            ok = 0;
        }
        for (size_t j = b; ok && value_bytes && j < e; j++) {
            const uint64_t v = value_at(out_values, value_bytes, j);
            if (v < b || v >= e || seen[v] || memcmp(in + v * w, out + j * w, w)) {
                snprintf(why, why_size, "segment %zu [%zu, %zu): value %llu at %zu is not the position of its key",
                         i, b, e, (unsigned long long)v, j);
                ok = 0;
            } else {
                seen[v] = 1;
            }
        }
    }
    for (size_t j = 0; ok && j < n; j++)
        if (!inside[j] && (memcmp(in + j * w, out + j * w, w) ||
                           (value_bytes && memcmp(in_values + j * value_bytes, out_values + j * value_bytes, value_bytes)))) {
            snprintf(why, why_size, "key or value %zu, outside every segment, changed", j);
            ok = 0;
        }
    free(inside);
    free(seen);
    return ok;
}
