/*
 * check_public.c - independent verification of clqsort through its public header only.
 *
 * Every check builds its input on the host, keeps a copy, runs the library, reads the result
 * back and compares it with a host reference (qsort of the copy in the documented order):
 * order, permutation (multisets of keys, or of (key, value) pairs), untouched bytes outside the
 * sorted range, and the documented statuses of refusals.
 *
 *   check_public [--scale S] [--seed N] [--verbose]
 *
 * --scale multiplies the larger sizes (1: about 7 s on pocl with 2 cores once pocl has cached the
 * kernels, about 2.5 min on a cold pocl kernel cache; on a GPU, 24 reaches 24 million keys in
 * 265 s on an H200, and 64, up to 64 million, takes more than 9 minutes, mostly host checking).
 * --seed changes every input; --verbose prints each case with the library call's time.
 * Prints one line per failure (the case, its shape and what differs; rerun with the same --seed
 * and --scale to reproduce) and ends with "check_public: N passed, M failed"; exits 1 if M > 0
 * or N == 0.
 *
 * Build:
 *   cc -std=c11 -O2 -Wall -Wextra -Iinclude tools/check_public.c build/libclqsort.a -lOpenCL -lm -lpthread
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <threads.h>

#include "clqsort.h"

/* ---- bookkeeping --------------------------------------------------------------------------- */

static unsigned long g_pass, g_fail;
static unsigned long g_scale = 1;
static unsigned long long g_seed = 12345;
static int g_verbose;
static clqsort_context *g_ctx;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
static cl_context g_clctx;
static cl_command_queue g_queue;

static void pass(void) { g_pass++; }

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf(" (run seed %llu, scale %lu)\n", g_seed, g_scale);
    va_end(ap);
    fflush(stdout);
    g_fail++;
}

/* ---- random numbers (splitmix64) ------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t *s, uint64_t n) { return n ? rng_next(s) % n : 0; }

/* ---- key types and the documented order ---------------------------------------------------- */

typedef struct {
    clqsort_key_type type;
    const char *name;
    size_t width; /* bytes */
} key_info;

static const key_info KEYS[] = {
    {CLQSORT_KEY_UINT32, "uint32", 4}, {CLQSORT_KEY_INT32, "int32", 4},   {CLQSORT_KEY_FLOAT, "float", 4},
    {CLQSORT_KEY_UINT64, "uint64", 8}, {CLQSORT_KEY_INT64, "int64", 8},   {CLQSORT_KEY_DOUBLE, "double", 8},
};
#define NKEYS (sizeof KEYS / sizeof KEYS[0])

static const key_info *key_of(clqsort_key_type t)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (KEYS[i].type == t) return &KEYS[i];
    return NULL;
}

static uint64_t kget(const void *p, size_t w, size_t i)
{
    if (w == 4) {
        uint32_t v;
        memcpy(&v, (const char *)p + i * 4, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)p + i * 8, 8);
    return v;
}

static void kput(void *p, size_t w, size_t i, uint64_t v)
{
    if (w == 4) {
        uint32_t u = (uint32_t)v;
        memcpy((char *)p + i * 4, &u, 4);
    } else {
        memcpy((char *)p + i * 8, &v, 8);
    }
}

static int is_nan_bits(clqsort_key_type t, uint64_t b)
{
    if (t == CLQSORT_KEY_FLOAT) return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0;
    if (t == CLQSORT_KEY_DOUBLE)
        return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0x000fffffffffffffull) != 0;
    return 0;
}

/* Ascending order of the header: integers by value; floats -inf < negatives < -0.0 < +0.0 <
 * positives < +inf < NaN, all NaNs equal to each other (no promised order among them). */
static int kcmp(clqsort_key_type t, uint64_t a, uint64_t b)
{
    switch (t) {
    case CLQSORT_KEY_UINT32:
    case CLQSORT_KEY_UINT64:
        return (a > b) - (a < b);
    case CLQSORT_KEY_INT32: {
        int32_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b;
        return (x > y) - (x < y);
    }
    case CLQSORT_KEY_INT64: {
        int64_t x = (int64_t)a, y = (int64_t)b;
        return (x > y) - (x < y);
    }
    case CLQSORT_KEY_FLOAT:
    case CLQSORT_KEY_DOUBLE: {
        int na = is_nan_bits(t, a), nb = is_nan_bits(t, b);
        if (na || nb) return na - nb;
        uint64_t sign = t == CLQSORT_KEY_FLOAT ? 0x80000000ull : 0x8000000000000000ull;
        uint64_t mask = t == CLQSORT_KEY_FLOAT ? 0xffffffffull : ~0ull;
        uint64_t ca = (a & sign) ? (~a & mask) : (a | sign);
        uint64_t cb = (b & sign) ? (~b & mask) : (b | sign);
        return (ca > cb) - (ca < cb);
    }
    }
    return 0;
}

/* qsort comparators (qsort has no context argument: the type and direction are globals). */
static clqsort_key_type q_type;
static int q_desc;

typedef struct {
    uint64_t key, val, pos;
} rec;

/* direction order, ties by key bits then value then position: a canonical order of records */
static int rec_cmp_full(const void *pa, const void *pb)
{
    const rec *a = pa, *b = pb;
    int c = kcmp(q_type, a->key, b->key);
    if (q_desc) c = -c;
    if (c) return c;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->val != b->val) return a->val < b->val ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* stable reference: direction order, ties (same bit pattern) by input position */
static int rec_cmp_stable(const void *pa, const void *pb)
{
    const rec *a = pa, *b = pb;
    int c = kcmp(q_type, a->key, b->key);
    if (q_desc) c = -c;
    if (c) return c;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* raw multiset order of (key, value) */
static int rec_cmp_raw(const void *pa, const void *pb)
{
    const rec *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->val > b->val) - (a->val < b->val);
}

/* ---- the central check of one sorted range ------------------------------------------------- */

/*
 * in_k/in_v: the range before, out_k/out_v: after (values may be NULL with vsize 0).
 * k: how many leading positions must be sorted (n for a full sort). Checks:
 *   - out[i] compares equal (documented order) to ref[i] for i < k, ref the sorted input;
 *   - the multiset of keys (or of (key, value) pairs) is unchanged;
 *   - with stable: the first k (key, value) pairs equal the stable reference exactly.
 * Returns 1 if good; else prints one failure line starting with `what`.
 */
static int check_range(const char *what, clqsort_key_type t, unsigned flags, const void *in_k, const void *in_v,
                       const void *out_k, const void *out_v, size_t vsize, size_t n, size_t k)
{
    size_t w = key_of(t)->width;
    rec *ref = malloc((n ? n : 1) * sizeof *ref), *got = malloc((n ? n : 1) * sizeof *got);
    int ok = 1;
    char detail[256] = "";
    if (!ref || !got) {
        fprintf(stderr, "out of host memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        ref[i].key = kget(in_k, w, i);
        ref[i].val = vsize ? kget(in_v, vsize, i) : 0;
        ref[i].pos = i;
        got[i].key = kget(out_k, w, i);
        got[i].val = vsize ? kget(out_v, vsize, i) : 0;
        got[i].pos = i;
    }
    q_type = t;
    q_desc = (flags & CLQSORT_DESCENDING) != 0;
    qsort(ref, n, sizeof *ref, (flags & CLQSORT_STABLE) ? rec_cmp_stable : rec_cmp_full);
    for (size_t i = 0; i < k && ok; i++) {
        if (kcmp(t, got[i].key, ref[i].key) != 0) {
            snprintf(detail, sizeof detail, "order: position %zu holds 0x%llx, reference 0x%llx", i,
                     (unsigned long long)got[i].key, (unsigned long long)ref[i].key);
            ok = 0;
        } else if ((flags & CLQSORT_STABLE) && (got[i].key != ref[i].key || got[i].val != ref[i].val)) {
            snprintf(detail, sizeof detail,
                     "stability: position %zu holds (0x%llx, %llu), stable reference (0x%llx, %llu)", i,
                     (unsigned long long)got[i].key, (unsigned long long)got[i].val,
                     (unsigned long long)ref[i].key, (unsigned long long)ref[i].val);
            ok = 0;
        }
    }
    if (ok) {
        qsort(ref, n, sizeof *ref, rec_cmp_raw);
        qsort(got, n, sizeof *got, rec_cmp_raw);
        for (size_t i = 0; i < n; i++)
            if (ref[i].key != got[i].key || ref[i].val != got[i].val) {
                snprintf(detail, sizeof detail,
                         "permutation: %s multiset differs at rank %zu: got (0x%llx, %llu), expected (0x%llx, %llu)",
                         vsize ? "(key, value)" : "key", i, (unsigned long long)got[i].key,
                         (unsigned long long)got[i].val, (unsigned long long)ref[i].key,
                         (unsigned long long)ref[i].val);
                ok = 0;
                break;
            }
    }
    if (!ok) fail("%s: %s", what, detail);
    free(ref);
    free(got);
    return ok;
}

/* ---- OpenCL helpers ------------------------------------------------------------------------ */

static cl_mem mkbuf(size_t bytes, const void *data, cl_mem_flags fl)
{
    cl_int err;
    cl_mem m = clCreateBuffer(g_clctx, fl | (data ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 1,
                              (void *)(uintptr_t)data, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer(%zu bytes) failed: %d\n", bytes, (int)err);
        exit(2);
    }
    return m;
}

static void rdbuf(cl_mem m, size_t bytes, void *dst)
{
    if (!bytes) return;
    cl_int err = clEnqueueReadBuffer(g_queue, m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clEnqueueReadBuffer failed: %d\n", (int)err);
        exit(2);
    }
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(2);
    }
    return p;
}

/* ---- input generation ---------------------------------------------------------------------- */

enum dist { D_UNIFORM, D_EQUAL, D_FEW, D_SORTED, D_REVERSE, D_SAWTOOTH, D_HIGHBITS, D_DUPS, D_SPECIAL, D_COUNT };
static const char *DIST_NAMES[] = {"uniform", "equal", "few", "sorted", "reverse", "sawtooth", "highbits", "dups",
                                   "special"};

static uint64_t float_bits(clqsort_key_type t, double x)
{
    if (t == CLQSORT_KEY_FLOAT) {
        float f = (float)x;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}

/* a small integer as a key of type t (for sawtooth and few-distinct values, negatives included) */
static uint64_t small_key(clqsort_key_type t, int64_t v)
{
    switch (t) {
    case CLQSORT_KEY_FLOAT:
    case CLQSORT_KEY_DOUBLE:
        return float_bits(t, (double)v * 0.5);
    case CLQSORT_KEY_UINT32:
    case CLQSORT_KEY_INT32:
        return (uint32_t)(int32_t)v;
    default:
        return (uint64_t)v;
    }
}

/* special floating-point values: signed zeros, infinities, NaNs with payloads, denormals */
static uint64_t special_key(clqsort_key_type t, uint64_t *s)
{
    int f = t == CLQSORT_KEY_FLOAT;
    switch (rng_below(s, 12)) {
    case 0: return f ? 0x80000000u : 0x8000000000000000ull;                 /* -0.0 */
    case 1: return 0;                                                        /* +0.0 */
    case 2: return f ? 0x7f800000u : 0x7ff0000000000000ull;                 /* +inf */
    case 3: return f ? 0xff800000u : 0xfff0000000000000ull;                 /* -inf */
    case 4: return f ? 0x7fc00000u : 0x7ff8000000000000ull;                 /* quiet NaN */
    case 5: return f ? 0xffc00001u : 0xfff8000000000001ull;                 /* negative NaN, payload */
    case 6: return f ? (0x7f800000u | (1 + rng_below(s, 0x7fffff))) : (0x7ff0000000000000ull | (1 + rng_below(s, 0xfffffffffffffull)));
    case 7: return f ? rng_below(s, 0x800000) : rng_below(s, 0x10000000000000ull);                 /* +denormal */
    case 8: return f ? (0x80000000u | rng_below(s, 0x800000)) : (0x8000000000000000ull | rng_below(s, 0x10000000000000ull));
    case 9: return float_bits(t, -(double)rng_below(s, 1000) / 7.0);
    default: return float_bits(t, ((double)rng_below(s, 2000000) - 1000000.0) / 3.0);
    }
}

static int is_float(clqsort_key_type t) { return t == CLQSORT_KEY_FLOAT || t == CLQSORT_KEY_DOUBLE; }

/* fills n keys of type t; stable_safe: NaNs all of one bit pattern (their mutual order is free) */
static void gen_keys(void *dst, clqsort_key_type t, enum dist d, size_t n, uint64_t *s, int stable_safe)
{
    size_t w = key_of(t)->width;
    uint64_t mask = w == 4 ? 0xffffffffull : ~0ull;
    uint64_t few[5];
    for (int i = 0; i < 5; i++) few[i] = is_float(t) ? special_key(t, s) : (rng_next(s) & mask);
    uint64_t one = few[0];
    size_t ndup = n / 64 + 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        switch (d) {
        case D_EQUAL: v = one; break;
        case D_FEW: v = few[rng_below(s, 5)]; break;
        case D_SAWTOOTH: v = small_key(t, (int64_t)(i % 97) - 40); break;
        case D_HIGHBITS: v = (rng_next(s) & 0xf) << (w * 8 - 4); break;
        case D_DUPS: v = small_key(t, (int64_t)rng_below(s, ndup) - (int64_t)(ndup / 3)); break;
        case D_SPECIAL: v = is_float(t) ? special_key(t, s) : (rng_below(s, 2) ? (rng_next(s) & mask) : (i & 1 ? mask : 0)); break;
        default: v = rng_next(s) & mask; break;
        }
        if (stable_safe && is_nan_bits(t, v)) v = t == CLQSORT_KEY_FLOAT ? 0x7fc00000u : 0x7ff8000000000000ull;
        kput(dst, w, i, v);
    }
    if (d == D_SORTED || d == D_REVERSE) {
        rec *r = xmalloc(n * sizeof *r);
        for (size_t i = 0; i < n; i++) r[i] = (rec){kget(dst, w, i), 0, i};
        q_type = t;
        q_desc = d == D_REVERSE;
        qsort(r, n, sizeof *r, rec_cmp_full);
        for (size_t i = 0; i < n; i++) kput(dst, w, i, r[i].key);
        free(r);
    }
}

static void gen_values(void *dst, size_t vsize, size_t n, uint64_t *s)
{
    /* distinct per position so that a pair that comes apart shows */
    uint64_t hi = rng_next(s) << 32;
    for (size_t i = 0; i < n; i++) kput(dst, vsize, i, vsize == 8 ? (hi ^ ((uint64_t)i << 1)) | 1 : (uint32_t)i);
}

/* ---- section 1: full sorts ------------------------------------------------------------------ */

static int g_has64; /* device has the 64-bit atomics the header requires for 64-bit keys and CLQSORT_STABLE */

static unsigned long g_case;

/* One full sort of n keys at offset off in a buffer with guard keys around; vsize 0 for keys alone. */
/* Whether a and b (elements of `width` bytes) agree before element `off` and in the `tail`
 * elements after off + n: what a call on the slice [off, off + n) must leave alone. */
static int outside_same(const void *a, const void *b, size_t width, size_t off, size_t n, size_t tail)
{
    const char *x = a, *y = b;
    return !memcmp(x, y, off * width) && !memcmp(x + (off + n) * width, y + (off + n) * width, tail * width);
}

static void full_sort_case(clqsort_key_type t, enum dist d, size_t n, size_t off, size_t vsize, unsigned flags)
{
    const key_info *ki = key_of(t);
    size_t w = ki->width, tail = 7, total = off + n + tail;
    uint64_t s = g_seed * 1000003u + (++g_case);
    int stable = (flags & CLQSORT_STABLE) != 0;
    char what[256];
    snprintf(what, sizeof what, "full sort case %lu: type=%s dist=%s n=%zu offset=%zu value_size=%zu flags=%u%s%s",
             g_case, ki->name, DIST_NAMES[d], n, off, vsize, flags, (flags & CLQSORT_DESCENDING) ? " (descending)" : "",
             stable ? " (stable)" : "");

    void *all_k = xmalloc(total * w), *out_k = xmalloc(total * w);
    void *all_v = vsize ? xmalloc(total * vsize) : NULL, *out_v = vsize ? xmalloc(total * vsize) : NULL;
    gen_keys(all_k, t, D_UNIFORM, total, &s, 0); /* guards */
    gen_keys((char *)all_k + off * w, t, d, n, &s, stable);
    if (vsize) gen_values(all_v, vsize, total, &s);
    cl_mem kb = mkbuf(total * w, all_k, CL_MEM_READ_WRITE);
    cl_mem vb = vsize ? mkbuf(total * vsize, all_v, CL_MEM_READ_WRITE) : NULL;

    clqsort_status st;
    const char *api;
    double t0 = now_s();
    if (!vsize && off == 0) {
        api = "clqsort_sort";
        st = clqsort_sort(g_ctx, kb, n, t, flags);
    } else if (!vsize) {
        api = "clqsort_sort_at";
        st = clqsort_sort_at(g_ctx, kb, off, n, t, flags);
    } else if (off == 0) {
        api = "clqsort_sort_pairs";
        st = clqsort_sort_pairs(g_ctx, kb, vb, n, t, vsize, flags);
    } else {
        api = "clqsort_sort_pairs_at";
        st = clqsort_sort_pairs_at(g_ctx, kb, off, vb, off, n, t, vsize, flags);
    }
    if (g_verbose) printf("  %.3f s  %s\n", now_s() - t0, what);
    int expect_unsupported = (w == 8 && !g_has64) || (stable && (w == 8 || !g_has64));
    if (expect_unsupported) {
        if (st == CLQSORT_ERROR_UNSUPPORTED_TYPE) pass();
        else fail("%s [%s]: expected CLQSORT_ERROR_UNSUPPORTED_TYPE, got %d", what, api, (int)st);
    } else if (st != CLQSORT_SUCCESS) {
        fail("%s [%s]: status %d (%s)", what, api, (int)st, clqsort_last_error(g_ctx));
    } else {
        rdbuf(kb, total * w, out_k);
        if (vsize) rdbuf(vb, total * vsize, out_v);
        char w2[300];
        snprintf(w2, sizeof w2, "%s [%s]", what, api);
        int ok = check_range(w2, t, flags, (char *)all_k + off * w, vsize ? (char *)all_v + off * vsize : NULL,
                             (char *)out_k + off * w, vsize ? (char *)out_v + off * vsize : NULL, vsize, n, n);
        if (ok) {
            if (!outside_same(all_k, out_k, w, off, n, tail))
                fail("%s [%s]: keys outside the range changed", what, api), ok = 0;
            else if (vsize && !outside_same(all_v, out_v, vsize, off, n, tail))
                fail("%s [%s]: values outside the range changed", what, api), ok = 0;
        }
        if (ok) pass();
    }
    clReleaseMemObject(kb);
    if (vb) clReleaseMemObject(vb);
    free(all_k);
    free(out_k);
    free(all_v);
    free(out_v);
}

/* sizes: primes, 2^k +- 1, tiny; the larger ones grow with --scale */
static size_t scaled(size_t n) { return n * g_scale; }

static void section_full(void)
{
    const size_t sizes[] = {0, 1, 2, 3, 5, 31, 127, 257, 1023, 4097, 8191, 65537, 131071, 100003};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    const size_t vsizes[] = {0, 4, 8};
    unsigned rot = 0;
    for (size_t ti = 0; ti < NKEYS; ti++) {
        clqsort_key_type t = KEYS[ti].type;
        /* every distribution, both directions, moderately large, keys alone and pairs */
        for (int d = 0; d < D_COUNT; d++)
            for (unsigned dir = 0; dir < 2; dir++, rot++) {
                size_t n = scaled(d % 2 ? 40009 : 65521);
                full_sort_case(t, (enum dist)d, n, rot % 4 == 3 ? 17 : 0, vsizes[rot % 3], dir ? CLQSORT_DESCENDING : 0);
            }
        /* every size, alternating directions, keys alone and pairs, with and without an offset */
        for (size_t si = 0; si < nsizes; si++, rot++) {
            size_t n = sizes[si] > 1000 ? scaled(sizes[si]) : sizes[si];
            full_sort_case(t, (enum dist)(si % 2 ? D_UNIFORM : (is_float(t) ? D_SPECIAL : D_DUPS)), n,
                           si % 3 == 1 ? 5 : 0, vsizes[rot % 3], si % 2 ? CLQSORT_DESCENDING : 0);
        }
    }
    /* host arrays: clqsort_sort_host and clqsort_sort_pairs_host */
    for (size_t ti = 0; ti < NKEYS; ti++, rot++) {
        clqsort_key_type t = KEYS[ti].type;
        size_t w = KEYS[ti].width, n = ti % 2 ? scaled(12289) : 3, vs = ti % 2 ? 4 : 8;
        unsigned flags = rot % 2 ? CLQSORT_DESCENDING : 0;
        uint64_t s = g_seed * 1000003u + (++g_case);
        void *k0 = xmalloc(n * w), *k1 = xmalloc(n * w), *v0 = xmalloc(n * vs), *v1 = xmalloc(n * vs);
        gen_keys(k0, t, is_float(t) ? D_SPECIAL : D_DUPS, n, &s, 0);
        gen_values(v0, vs, n, &s);
        char what[200];
        memcpy(k1, k0, n * w);
        snprintf(what, sizeof what, "host case %lu [clqsort_sort_host]: type=%s n=%zu flags=%u", g_case, KEYS[ti].name, n, flags);
        clqsort_status st = clqsort_sort_host(g_ctx, k1, n, t, flags);
        if (st != CLQSORT_SUCCESS) fail("%s: status %d (%s)", what, (int)st, clqsort_last_error(g_ctx));
        else if (check_range(what, t, flags, k0, NULL, k1, NULL, 0, n, n)) pass();
        memcpy(k1, k0, n * w);
        memcpy(v1, v0, n * vs);
        snprintf(what, sizeof what, "host case %lu [clqsort_sort_pairs_host]: type=%s n=%zu value_size=%zu flags=%u", g_case,
                 KEYS[ti].name, n, vs, flags);
        st = clqsort_sort_pairs_host(g_ctx, k1, v1, n, t, vs, flags);
        if (st != CLQSORT_SUCCESS) fail("%s: status %d (%s)", what, (int)st, clqsort_last_error(g_ctx));
        else if (check_range(what, t, flags, k0, v0, k1, v1, vs, n, n)) pass();
        free(k0);
        free(k1);
        free(v0);
        free(v1);
    }
    /* one large sort per key width */
    full_sort_case(CLQSORT_KEY_UINT32, D_UNIFORM, scaled(1000003), 0, 0, 0);
    full_sort_case(CLQSORT_KEY_DOUBLE, D_SPECIAL, scaled(524287), 3, 8, CLQSORT_DESCENDING);
}

/* ---- section 2: segmented sorts -------------------------------------------------------------- */

enum layout { L_MIXED, L_HUGE_TINY, L_ALL_EMPTY, L_SINGLE, L_SHORT, L_COUNT };
static const char *LAYOUT_NAMES[] = {"mixed+gaps", "huge+tiny", "all-empty", "single", "lengths-1-2"};

/* Builds segments [b[i], e[i]) of n keys in order; contiguous: no gaps between segments (for the
 * compressed form; a leading and a trailing gap remain). Returns the number of segments. */
static size_t gen_layout(enum layout L, size_t n, int contiguous, uint64_t *s, cl_uint **pb, cl_uint **pe)
{
    size_t cap = 16, m = 0;
    cl_uint *b = xmalloc(cap * sizeof *b), *e = xmalloc(cap * sizeof *e);
    size_t pos = n > 10 ? rng_below(s, 6) : 0;
    size_t huge_at = n / 5, huge_len = n - n / 5 - n / 10;
    size_t stop = n > 10 ? n - rng_below(s, 4) : n; /* trailing gap */
    int huge_done = 0;
    for (;;) {
        size_t len;
        if (L == L_SINGLE) {
            if (m) break;
            pos = 0;
            stop = n;
            len = n;
        } else if (L == L_ALL_EMPTY) {
            if (m >= 50) break;
            len = 0;
        } else if (L == L_SHORT) {
            len = 1 + (m & 1);
        } else if (L == L_HUGE_TINY) {
            if (!huge_done && pos >= huge_at) {
                len = huge_len;
                huge_done = 1;
            } else {
                len = rng_below(s, 4);
            }
        } else {
            switch (rng_below(s, 6)) {
            case 0: len = 0; break;
            case 1: len = 1; break;
            case 2: len = 2 + rng_below(s, 3); break;
            case 3: len = 5 + rng_below(s, 60); break;
            case 4: len = rng_below(s, n / 16 + 1); break;
            default: len = rng_below(s, 4097); break;
            }
        }
        if (pos + len > stop) {
            if (pos >= stop && L != L_ALL_EMPTY && L != L_SINGLE) break;
            len = pos <= stop ? stop - pos : 0;
        }
        if (m == cap) {
            cap *= 2;
            b = realloc(b, cap * sizeof *b);
            e = realloc(e, cap * sizeof *e);
            if (!b || !e) exit(2);
        }
        b[m] = (cl_uint)pos;
        e[m] = (cl_uint)(pos + len);
        m++;
        pos += len;
        if (L == L_ALL_EMPTY) pos += rng_below(s, n / 40 + 2);
        else if (!contiguous && L != L_SHORT && rng_below(s, 3) == 0) pos += 1 + rng_below(s, 9);
        else if (!contiguous && L == L_SHORT && (m % 5) == 0) pos += 1;
        if (pos > stop) pos = stop;
        if (L == L_ALL_EMPTY && pos >= stop) pos = stop;
        if (L != L_ALL_EMPTY && pos >= stop && L != L_SINGLE) {
            /* one more empty segment at the very end, sometimes */
            if (rng_below(s, 2) && m < cap) {
                b[m] = e[m] = (cl_uint)pos;
                m++;
            }
            break;
        }
    }
    if (contiguous) /* the compressed form cannot express gaps between segments */
        for (size_t i = 0; i + 1 < m; i++) e[i] = b[i + 1];
    *pb = b;
    *pe = e;
    return m;
}

/* mode 0: clqsort_sort_segments with an end buffer; 1: end NULL (compressed);
 * 2: clqsort_sort_segments_host with end; 3: _host with end NULL */
static void seg_case(clqsort_key_type t, enum layout L, enum dist d, size_t n, size_t koff, size_t voff, size_t vsize,
                     unsigned flags, int mode)
{
    const key_info *ki = key_of(t);
    size_t w = ki->width, tail = 5;
    uint64_t s = g_seed * 1000003u + (++g_case);
    int stable = (flags & CLQSORT_STABLE) != 0, compressed = mode & 1, host = mode >= 2;
    cl_uint *b, *e;
    size_t m = gen_layout(L, n, compressed, &s, &b, &e);
    if (host) koff = voff = 0;
    char what[320];
    snprintf(what, sizeof what,
             "segment case %lu [%s, %s]: type=%s dist=%s layout=%s n=%zu segments=%zu keys_offset=%zu "
             "values_offset=%zu value_size=%zu flags=%u",
             g_case, host ? "clqsort_sort_segments_host" : "clqsort_sort_segments", compressed ? "end NULL" : "end buffer",
             ki->name, DIST_NAMES[d], LAYOUT_NAMES[L], n, m, koff, voff, vsize, flags);
    size_t ktot = koff + n + tail, vtot = voff + n + tail;
    void *in_k = xmalloc(ktot * w), *out_k = xmalloc(ktot * w);
    void *in_v = vsize ? xmalloc(vtot * vsize) : NULL, *out_v = vsize ? xmalloc(vtot * vsize) : NULL;
    gen_keys(in_k, t, D_UNIFORM, ktot, &s, 0);
    gen_keys((char *)in_k + koff * w, t, d, n, &s, stable);
    if (vsize) gen_values(in_v, vsize, vtot, &s);
    /* begin array: compressed holds m + 1 offsets */
    cl_uint *bb = xmalloc((m + 1) * sizeof *bb);
    memcpy(bb, b, m * sizeof *bb);
    bb[m] = m ? e[m - 1] : 0;
    size_t nb = compressed ? m + 1 : m;

    clqsort_status st;
    double t0 = now_s();
    cl_mem kb = NULL, vb = NULL, sb = NULL, eb = NULL;
    if (host) {
        memcpy(out_k, in_k, ktot * w);
        if (vsize) memcpy(out_v, in_v, vtot * vsize);
        st = clqsort_sort_segments_host(g_ctx, out_k, vsize ? out_v : NULL, n, t, vsize, bb, compressed ? NULL : e, m,
                                        flags);
    } else {
        kb = mkbuf(ktot * w, in_k, CL_MEM_READ_WRITE);
        vb = vsize ? mkbuf(vtot * vsize, in_v, CL_MEM_READ_WRITE) : NULL;
        sb = mkbuf(nb * sizeof *bb, bb, CL_MEM_READ_ONLY);
        eb = compressed ? NULL : mkbuf(m * sizeof *e, e, CL_MEM_READ_WRITE);
        st = clqsort_sort_segments(g_ctx, kb, koff, vb, voff, n, t, vsize, sb, eb, m, flags);
    }
    if (g_verbose) printf("  %.3f s  %s\n", now_s() - t0, what);
    int expect_unsupported = (w == 8 && !g_has64) || (stable && (w == 8 || !g_has64));
    if (expect_unsupported) {
        if (st == CLQSORT_ERROR_UNSUPPORTED_TYPE) pass();
        else fail("%s: expected CLQSORT_ERROR_UNSUPPORTED_TYPE, got %d", what, (int)st);
    } else if (st != CLQSORT_SUCCESS) {
        fail("%s: status %d (%s)", what, (int)st, clqsort_last_error(g_ctx));
    } else {
        if (!host) {
            rdbuf(kb, ktot * w, out_k);
            if (vsize) rdbuf(vb, vtot * vsize, out_v);
        }
        int ok = 1;
        /* every segment sorted, a permutation of itself */
        for (size_t i = 0; i < m && ok; i++) {
            size_t sb0 = b[i], len = e[i] - b[i];
            char w2[420];
            snprintf(w2, sizeof w2, "%s: segment %zu [%zu, %zu)", what, i, sb0, sb0 + len);
            ok = check_range(w2, t, flags, (char *)in_k + (koff + sb0) * w,
                             vsize ? (char *)in_v + (voff + sb0) * vsize : NULL, (char *)out_k + (koff + sb0) * w,
                             vsize ? (char *)out_v + (voff + sb0) * vsize : NULL, vsize, len, len);
        }
        /* everything outside the segments byte-identical */
        if (ok) {
            unsigned char *inside = calloc(n + 1, 1);
            if (!inside) exit(2);
            for (size_t i = 0; i < m; i++) memset(inside + b[i], 1, e[i] - b[i]);
            for (size_t i = 0; i < ktot && ok; i++) {
                int in = i >= koff && i < koff + n && inside[i - koff];
                if (!in && memcmp((char *)in_k + i * w, (char *)out_k + i * w, w)) {
                    fail("%s: key at buffer index %zu (outside every segment) changed", what, i);
                    ok = 0;
                }
            }
            for (size_t i = 0; vsize && i < vtot && ok; i++) {
                int in = i >= voff && i < voff + n && inside[i - voff];
                if (!in && memcmp((char *)in_v + i * vsize, (char *)out_v + i * vsize, vsize)) {
                    fail("%s: value at buffer index %zu (outside every segment) changed", what, i);
                    ok = 0;
                }
            }
            free(inside);
        }
        /* the segment buffers are inputs: unchanged */
        if (ok && !host) {
            cl_uint *chk = xmalloc((m + 1) * sizeof *chk);
            rdbuf(sb, nb * sizeof *bb, chk);
            if (memcmp(chk, bb, nb * sizeof *bb)) fail("%s: segment_begin buffer changed", what), ok = 0;
            if (ok && eb) {
                rdbuf(eb, m * sizeof *e, chk);
                if (memcmp(chk, e, m * sizeof *e)) fail("%s: segment_end buffer changed", what), ok = 0;
            }
            free(chk);
        }
        if (ok) pass();
    }
    if (kb) clReleaseMemObject(kb);
    if (vb) clReleaseMemObject(vb);
    if (sb) clReleaseMemObject(sb);
    if (eb) clReleaseMemObject(eb);
    free(in_k);
    free(out_k);
    free(in_v);
    free(out_v);
    free(b);
    free(e);
    free(bb);
}

static void section_segments(void)
{
    const size_t vsizes[] = {0, 4, 8};
    unsigned rot = 0;
    for (size_t ti = 0; ti < NKEYS; ti++) {
        clqsort_key_type t = KEYS[ti].type;
        for (int L = 0; L < L_COUNT; L++)
            for (int mode = 0; mode < 2; mode++, rot++) {
                size_t n = scaled(L == L_HUGE_TINY ? 70001 : L == L_SHORT ? 4099 : 30011);
                enum dist d = (enum dist)((rot * 5 + ti) % D_COUNT);
                seg_case(t, (enum layout)L, d, n, rot % 2 ? 3 : 0, rot % 4 >= 2 ? 9 : 0, vsizes[rot % 3],
                         (rot / 3) % 2 ? CLQSORT_DESCENDING : 0, mode);
            }
    }
    /* small and odd sizes, both forms */
    const size_t small[] = {0, 1, 2, 7, 64, 65, 257};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++, rot++)
        seg_case(i % 2 ? CLQSORT_KEY_INT32 : CLQSORT_KEY_DOUBLE, (enum layout)(i % L_COUNT), D_DUPS, small[i], 1, 2,
                 vsizes[rot % 3], i % 3 == 0 ? CLQSORT_DESCENDING : 0, (int)(i % 2));
    /* host arrays */
    seg_case(CLQSORT_KEY_UINT32, L_MIXED, D_UNIFORM, scaled(20011), 0, 0, 4, 0, 2);
    seg_case(CLQSORT_KEY_FLOAT, L_HUGE_TINY, D_SPECIAL, scaled(20011), 0, 0, 0, CLQSORT_DESCENDING, 3);
    seg_case(CLQSORT_KEY_INT64, L_MIXED, D_FEW, scaled(20011), 0, 0, 8, CLQSORT_DESCENDING, 2);
    /* one big segment plus many tiny ones at a larger size */
    seg_case(CLQSORT_KEY_UINT32, L_HUGE_TINY, D_UNIFORM, scaled(400009), 11, 0, 4, 0, 0);
}

/* ---- section 3: partial sorts ------------------------------------------------------------------ */

/* host: clqsort_partial_sort_host instead of the device-buffer call */
static void partial_case(clqsort_key_type t, enum dist d, size_t n, size_t k, size_t koff, size_t voff, size_t vsize,
                         unsigned flags, int host)
{
    const key_info *ki = key_of(t);
    size_t w = ki->width, tail = 3;
    uint64_t s = g_seed * 1000003u + (++g_case);
    int stable = (flags & CLQSORT_STABLE) != 0;
    if (host) koff = voff = 0;
    char what[320];
    snprintf(what, sizeof what,
             "partial case %lu [%s]: type=%s dist=%s n=%zu k=%zu keys_offset=%zu values_offset=%zu value_size=%zu flags=%u",
             g_case, host ? "clqsort_partial_sort_host" : "clqsort_partial_sort", ki->name, DIST_NAMES[d], n, k, koff,
             voff, vsize, flags);
    size_t ktot = koff + n + tail, vtot = voff + n + tail;
    void *in_k = xmalloc(ktot * w), *out_k = xmalloc(ktot * w);
    void *in_v = vsize ? xmalloc(vtot * vsize) : NULL, *out_v = vsize ? xmalloc(vtot * vsize) : NULL;
    gen_keys(in_k, t, D_UNIFORM, ktot, &s, 0);
    gen_keys((char *)in_k + koff * w, t, d, n, &s, stable);
    if (vsize) gen_values(in_v, vsize, vtot, &s);
    cl_mem kb = NULL, vb = NULL;
    clqsort_status st;
    double t0 = now_s();
    if (host) {
        memcpy(out_k, in_k, ktot * w);
        if (vsize) memcpy(out_v, in_v, vtot * vsize);
        st = clqsort_partial_sort_host(g_ctx, out_k, vsize ? out_v : NULL, n, t, vsize, k, flags);
    } else {
        kb = mkbuf(ktot * w, in_k, CL_MEM_READ_WRITE);
        vb = vsize ? mkbuf(vtot * vsize, in_v, CL_MEM_READ_WRITE) : NULL;
        st = clqsort_partial_sort(g_ctx, kb, koff, vb, voff, n, t, vsize, k, flags);
    }
    if (g_verbose) printf("  %.3f s  %s\n", now_s() - t0, what);
    int expect_unsupported = (w == 8 && !g_has64) || (stable && (w == 8 || !g_has64));
    if (expect_unsupported && k > 0) {
        if (st == CLQSORT_ERROR_UNSUPPORTED_TYPE) pass();
        else fail("%s: expected CLQSORT_ERROR_UNSUPPORTED_TYPE, got %d", what, (int)st);
    } else if (expect_unsupported && st == CLQSORT_ERROR_UNSUPPORTED_TYPE) {
        pass(); /* k 0: "succeeds without touching the device", but the type may be refused first */
    } else if (st != CLQSORT_SUCCESS) {
        fail("%s: status %d (%s)", what, (int)st, clqsort_last_error(g_ctx));
    } else {
        if (!host) {
            rdbuf(kb, ktot * w, out_k);
            if (vsize) rdbuf(vb, vtot * vsize, out_v);
        }
        int ok = check_range(what, t, flags, (char *)in_k + koff * w, vsize ? (char *)in_v + voff * vsize : NULL,
                             (char *)out_k + koff * w, vsize ? (char *)out_v + voff * vsize : NULL, vsize, n, k);
        if (ok && !outside_same(in_k, out_k, w, koff, n, tail))
            fail("%s: keys outside the slice changed", what), ok = 0;
        if (ok && vsize && !outside_same(in_v, out_v, vsize, voff, n, tail))
            fail("%s: values outside the slice changed", what), ok = 0;
        if (ok && k == 0 && (memcmp(in_k, out_k, ktot * w) || (vsize && memcmp(in_v, out_v, vtot * vsize))))
            fail("%s: k 0 changed the buffers", what), ok = 0;
        if (ok) pass();
    }
    if (kb) clReleaseMemObject(kb);
    if (vb) clReleaseMemObject(vb);
    free(in_k);
    free(out_k);
    free(in_v);
    free(out_v);
}

static void section_partial(void)
{
    const size_t vsizes[] = {0, 4, 8};
    unsigned rot = 0;
    for (size_t ti = 0; ti < NKEYS; ti++) {
        clqsort_key_type t = KEYS[ti].type;
        size_t n = scaled(ti % 2 ? 20011 : 32769);
        size_t ks[] = {0, 1, 2, 17, n / 3, n - 1, n};
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
            for (unsigned dir = 0; dir < 2; dir++, rot++) {
                enum dist d = (enum dist)((rot * 3 + ti) % D_COUNT);
                partial_case(t, d, n, ks[ki], rot % 3 == 1 ? 4 : 0, rot % 4 == 1 ? 6 : 0, vsizes[rot % 3],
                             dir ? CLQSORT_DESCENDING : 0, 0);
            }
    }
    /* tiny counts: every k */
    for (size_t n = 0; n <= 5; n++)
        for (size_t k = 0; k <= n; k++, rot++)
            partial_case((rot & 1) ? CLQSORT_KEY_FLOAT : CLQSORT_KEY_UINT64, D_SPECIAL, n, k, 1, 2, vsizes[rot % 3],
                         rot % 4 >= 2 ? CLQSORT_DESCENDING : 0, 0);
    /* counts large enough for the candidate selection the header describes (2 k + 65536 <= count / 4) */
    size_t big = scaled(300007);
    const size_t bks[] = {1, 100, 2048, 2049, 5000, big / 2};
    for (size_t i = 0; i < sizeof bks / sizeof bks[0]; i++, rot++) {
        partial_case(i % 2 ? CLQSORT_KEY_INT32 : CLQSORT_KEY_FLOAT, i % 3 ? D_UNIFORM : D_DUPS, big, bks[i], 0, 0,
                     vsizes[rot % 3], i % 2 ? CLQSORT_DESCENDING : 0, 0);
        partial_case(CLQSORT_KEY_UINT32, (enum dist)(i + 1), big, bks[i], 5, 1, 4, i % 2 ? 0 : CLQSORT_DESCENDING, 0);
    }
    partial_case(CLQSORT_KEY_DOUBLE, D_SPECIAL, big, 777, 0, 0, 8, 0, 0);
    /* host arrays */
    partial_case(CLQSORT_KEY_UINT32, D_UNIFORM, scaled(10007), 100, 0, 0, 4, 0, 1);
    partial_case(CLQSORT_KEY_INT64, D_FEW, scaled(10007), 5000, 0, 0, 0, CLQSORT_DESCENDING, 1);
    partial_case(CLQSORT_KEY_FLOAT, D_SPECIAL, scaled(10007), 10007, 0, 0, 8, 0, 1);
}

/* ---- section 4: stable sorts (CLQSORT_STABLE) -------------------------------------------------- */

static void section_stable(void)
{
    const enum dist dd[] = {D_DUPS, D_FEW, D_EQUAL, D_SAWTOOTH, D_SPECIAL, D_HIGHBITS, D_UNIFORM, D_SORTED, D_REVERSE};
    const size_t vsizes[] = {4, 8};
    unsigned rot = 0;
    for (size_t ti = 0; ti < NKEYS; ti++) {
        clqsort_key_type t = KEYS[ti].type;
        if (KEYS[ti].width == 8) { /* documented refusal: CLQSORT_ERROR_UNSUPPORTED_TYPE */
            full_sort_case(t, D_DUPS, 1000, 0, 4, CLQSORT_STABLE);
            partial_case(t, D_DUPS, 1000, 10, 0, 0, 4, CLQSORT_STABLE | CLQSORT_DESCENDING, 0);
            seg_case(t, L_MIXED, D_DUPS, 1000, 0, 0, 8, CLQSORT_STABLE, 0);
            continue;
        }
        for (size_t di = 0; di < sizeof dd / sizeof dd[0]; di++)
            for (unsigned dir = 0; dir < 2; dir++, rot++)
                full_sort_case(t, dd[di], scaled(di % 2 ? 30011 : 8191), rot % 3 == 2 ? 7 : 0, vsizes[rot % 2],
                               CLQSORT_STABLE | (dir ? CLQSORT_DESCENDING : 0));
        full_sort_case(t, D_DUPS, 4099, 0, 0, CLQSORT_STABLE); /* keys alone */
        for (int L = 0; L < L_COUNT; L++, rot++)
            seg_case(t, (enum layout)L, dd[rot % 5], scaled(20011), 2, 3, vsizes[rot % 2],
                     CLQSORT_STABLE | (rot % 2 ? CLQSORT_DESCENDING : 0), L % 2);
        const size_t ks[] = {1, 100, 4097};
        for (size_t i = 0; i < 3; i++, rot++)
            partial_case(t, dd[rot % 5], scaled(20011), ks[i], 1, 0, vsizes[rot % 2],
                         CLQSORT_STABLE | (rot % 2 ? CLQSORT_DESCENDING : 0), 0);
    }
    /* stable partial sorts large enough for candidate selection, and host arrays */
    partial_case(CLQSORT_KEY_UINT32, D_DUPS, scaled(300007), 1000, 0, 0, 4, CLQSORT_STABLE, 0);
    partial_case(CLQSORT_KEY_FLOAT, D_FEW, scaled(300007), 3001, 0, 0, 8, CLQSORT_STABLE | CLQSORT_DESCENDING, 0);
    partial_case(CLQSORT_KEY_INT32, D_DUPS, scaled(10007), 333, 0, 0, 4, CLQSORT_STABLE, 1);
    seg_case(CLQSORT_KEY_INT32, L_MIXED, D_FEW, scaled(10007), 0, 0, 4, CLQSORT_STABLE | CLQSORT_DESCENDING, 2);
}

/* ---- section 5: asynchronous calls (clqsort_enqueue_*) ------------------------------------------ */

enum job_kind { J_SORT, J_SEGMENTS, J_PARTIAL };

typedef struct {
    enum job_kind kind;
    clqsort_key_type t;
    size_t n, k, koff, voff, vsize, ktot, vtot, m, nb;
    unsigned flags;
    int compressed;
    void *in_k, *in_v;
    cl_uint *b, *e, *bb;
    cl_mem kb, vb, sb, eb;    /* the sorted buffers (written on the other queue) */
    cl_mem ck, cv;            /* copies made after the sort, on the other queue */
    char what[320];
} job;

static cl_command_queue g_queue2; /* a second in-order queue of the same context and device */

static void cl_ok(cl_int err, const char *call)
{
    if (err != CL_SUCCESS) {
        fprintf(stderr, "%s failed: %d\n", call, (int)err);
        exit(2);
    }
}

static void job_init(job *j, enum job_kind kind, clqsort_key_type t, enum dist d, size_t n, size_t k, size_t koff,
                     size_t voff, size_t vsize, unsigned flags, enum layout L, int compressed)
{
    memset(j, 0, sizeof *j);
    uint64_t s = g_seed * 1000003u + (++g_case);
    size_t w = key_of(t)->width;
    j->kind = kind;
    j->t = t;
    j->n = n;
    j->k = kind == J_PARTIAL ? k : n;
    j->koff = koff;
    j->voff = voff;
    j->vsize = vsize;
    j->flags = flags;
    j->compressed = compressed;
    j->ktot = koff + n + 4;
    j->vtot = voff + n + 4;
    j->in_k = xmalloc(j->ktot * w);
    j->in_v = vsize ? xmalloc(j->vtot * vsize) : NULL;
    gen_keys(j->in_k, t, D_UNIFORM, j->ktot, &s, 0);
    gen_keys((char *)j->in_k + koff * w, t, d, n, &s, (flags & CLQSORT_STABLE) != 0);
    if (vsize) gen_values(j->in_v, vsize, j->vtot, &s);
    if (kind == J_SEGMENTS) {
        j->m = gen_layout(L, n, compressed, &s, &j->b, &j->e);
        j->bb = xmalloc((j->m + 1) * sizeof *j->bb);
        memcpy(j->bb, j->b, j->m * sizeof *j->bb);
        j->bb[j->m] = j->m ? j->e[j->m - 1] : 0;
        j->nb = compressed ? j->m + 1 : j->m;
    }
    snprintf(j->what, sizeof j->what,
             "async case %lu [%s]: type=%s dist=%s n=%zu k=%zu segments=%zu%s keys_offset=%zu values_offset=%zu "
             "value_size=%zu flags=%u",
             g_case,
             kind == J_SORT ? "clqsort_enqueue_sort"
             : kind == J_SEGMENTS ? "clqsort_enqueue_sort_segments"
                                  : "clqsort_enqueue_partial_sort",
             key_of(t)->name, DIST_NAMES[d], n, j->k, j->m, kind == J_SEGMENTS ? (compressed ? " (end NULL)" : " (end buffer)") : "",
             koff, voff, vsize, flags);
    j->kb = mkbuf(j->ktot * w, NULL, CL_MEM_READ_WRITE);
    j->ck = mkbuf(j->ktot * w, NULL, CL_MEM_READ_WRITE);
    if (vsize) {
        j->vb = mkbuf(j->vtot * vsize, NULL, CL_MEM_READ_WRITE);
        j->cv = mkbuf(j->vtot * vsize, NULL, CL_MEM_READ_WRITE);
    }
    if (kind == J_SEGMENTS) {
        j->sb = mkbuf(j->nb * sizeof *j->bb, NULL, CL_MEM_READ_ONLY);
        if (!compressed) j->eb = mkbuf(j->m * sizeof *j->e, NULL, CL_MEM_READ_ONLY);
    }
}

/* non-blocking writes of the input on queue q; *ev: the last write's event (the queue is in order) */
static void job_write(job *j, cl_command_queue q, cl_event *ev)
{
    size_t w = key_of(j->t)->width;
    cl_ok(clEnqueueWriteBuffer(q, j->kb, CL_FALSE, 0, j->ktot * w, j->in_k, 0, NULL, NULL), "clEnqueueWriteBuffer");
    if (j->vsize)
        cl_ok(clEnqueueWriteBuffer(q, j->vb, CL_FALSE, 0, j->vtot * j->vsize, j->in_v, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
    if (j->sb && j->nb)
        cl_ok(clEnqueueWriteBuffer(q, j->sb, CL_FALSE, 0, j->nb * sizeof *j->bb, j->bb, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
    if (j->eb && j->m)
        cl_ok(clEnqueueWriteBuffer(q, j->eb, CL_FALSE, 0, j->m * sizeof *j->e, j->e, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
    cl_ok(clEnqueueMarkerWithWaitList(q, 0, NULL, ev), "clEnqueueMarkerWithWaitList");
}

static clqsort_status job_enqueue(job *j, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    switch (j->kind) {
    case J_SORT:
        return clqsort_enqueue_sort(g_ctx, j->kb, j->koff, j->vb, j->voff, j->n, j->t, j->vsize, j->flags, nwait, wait,
                                    ev);
    case J_SEGMENTS:
        return clqsort_enqueue_sort_segments(g_ctx, j->kb, j->koff, j->vb, j->voff, j->n, j->t, j->vsize, j->sb, j->eb,
                                             j->m, j->flags, nwait, wait, ev);
    default:
        return clqsort_enqueue_partial_sort(g_ctx, j->kb, j->koff, j->vb, j->voff, j->n, j->t, j->vsize, j->k, j->flags,
                                            nwait, wait, ev);
    }
}

/* copies of the sorted buffers on queue q after event ev (NULL: none) */
static void job_copy(job *j, cl_command_queue q, cl_event ev)
{
    size_t w = key_of(j->t)->width;
    cl_uint nw = ev ? 1 : 0;
    const cl_event *wl = ev ? &ev : NULL;
    cl_ok(clEnqueueCopyBuffer(q, j->kb, j->ck, 0, 0, j->ktot * w, nw, wl, NULL), "clEnqueueCopyBuffer");
    if (j->vsize) cl_ok(clEnqueueCopyBuffer(q, j->vb, j->cv, 0, 0, j->vtot * j->vsize, nw, wl, NULL), "clEnqueueCopyBuffer");
}

/* reads the copies back on queue q and checks them; counts one pass or one failure */
static void job_verify(job *j, cl_command_queue q)
{
    size_t w = key_of(j->t)->width, vs = j->vsize;
    void *out_k = xmalloc(j->ktot * w), *out_v = vs ? xmalloc(j->vtot * vs) : NULL;
    cl_ok(clEnqueueReadBuffer(q, j->ck, CL_TRUE, 0, j->ktot * w, out_k, 0, NULL, NULL), "clEnqueueReadBuffer");
    if (vs) cl_ok(clEnqueueReadBuffer(q, j->cv, CL_TRUE, 0, j->vtot * vs, out_v, 0, NULL, NULL), "clEnqueueReadBuffer");
    unsigned char *inside = calloc(j->n + 1, 1);
    if (!inside) exit(2);
    int ok = 1;
    if (j->kind == J_SEGMENTS) {
        for (size_t i = 0; i < j->m && ok; i++) {
            size_t b0 = j->b[i], len = j->e[i] - j->b[i];
            char w2[420];
            snprintf(w2, sizeof w2, "%s: segment %zu [%zu, %zu)", j->what, i, b0, b0 + len);
            ok = check_range(w2, j->t, j->flags, (char *)j->in_k + (j->koff + b0) * w,
                             vs ? (char *)j->in_v + (j->voff + b0) * vs : NULL, (char *)out_k + (j->koff + b0) * w,
                             vs ? (char *)out_v + (j->voff + b0) * vs : NULL, vs, len, len);
            memset(inside + b0, 1, len);
        }
    } else {
        ok = check_range(j->what, j->t, j->flags, (char *)j->in_k + j->koff * w, vs ? (char *)j->in_v + j->voff * vs : NULL,
                         (char *)out_k + j->koff * w, vs ? (char *)out_v + j->voff * vs : NULL, vs, j->n, j->k);
        memset(inside, 1, j->n);
    }
    for (size_t i = 0; i < j->ktot && ok; i++)
        if (!(i >= j->koff && i < j->koff + j->n && inside[i - j->koff]) &&
            memcmp((char *)j->in_k + i * w, (char *)out_k + i * w, w))
            fail("%s: key at buffer index %zu (outside what is sorted) changed", j->what, i), ok = 0;
    for (size_t i = 0; vs && i < j->vtot && ok; i++)
        if (!(i >= j->voff && i < j->voff + j->n && inside[i - j->voff]) &&
            memcmp((char *)j->in_v + i * vs, (char *)out_v + i * vs, vs))
            fail("%s: value at buffer index %zu (outside what is sorted) changed", j->what, i), ok = 0;
    if (ok) pass();
    free(inside);
    free(out_k);
    free(out_v);
}

static void job_free(job *j)
{
    cl_mem ms[] = {j->kb, j->vb, j->sb, j->eb, j->ck, j->cv};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        if (ms[i]) clReleaseMemObject(ms[i]);
    free(j->in_k);
    free(j->in_v);
    free(j->b);
    free(j->e);
    free(j->bb);
}

/* the helper thread completes the user event if the enqueue call has not returned in time */
typedef struct {
    cl_event user;
    atomic_int returned;  /* set by the main thread once the enqueue call returned */
    atomic_int released;  /* whoever sets this first completes the user event */
    atomic_int by_helper; /* 1 if the helper had to complete it (the call waited for its wait list) */
} gate;

static int gate_thread(void *arg)
{
    gate *g = arg;
    for (int i = 0; i < 1000 && !atomic_load(&g->returned); i++) { /* up to 10 s */
        struct timespec ts = {0, 10 * 1000 * 1000};
        thrd_sleep(&ts, NULL);
    }
    if (!atomic_exchange(&g->released, 1)) {
        atomic_store(&g->by_helper, 1);
        clSetUserEventStatus(g->user, CL_COMPLETE);
    }
    return 0;
}

/* One enqueued sort whose wait list holds a user event (completed only after the call returned)
 * and the event of the input's writes on the second queue; the copies on the second queue wait
 * for the returned event. */
static void async_gated(job *j)
{
    cl_int err;
    /* warm-up: the same kind of sort, so that building kernels is not what the call spends time on */
    {
        job wj;
        job_init(&wj, j->kind, j->t, D_UNIFORM, j->n, j->k, j->koff, j->voff, j->vsize, j->flags, L_MIXED, j->compressed);
        g_case--;
        cl_event wev;
        job_write(&wj, g_queue2, &wev);
        clWaitForEvents(1, &wev);
        clReleaseEvent(wev);
        clqsort_status st = job_enqueue(&wj, 0, NULL, NULL);
        clqsort_status st2 = clqsort_finish(g_ctx);
        if (st != CLQSORT_SUCCESS || st2 != CLQSORT_SUCCESS)
            fail("%s: warm-up enqueue without wait list or event: status %d, clqsort_finish %d (%s)", j->what, (int)st,
                 (int)st2, clqsort_last_error(g_ctx));
        job_free(&wj);
    }
    gate g;
    g.user = clCreateUserEvent(g_clctx, &err);
    cl_ok(err, "clCreateUserEvent");
    atomic_init(&g.returned, 0);
    atomic_init(&g.released, 0);
    atomic_init(&g.by_helper, 0);
    cl_event wev, sev = NULL;
    job_write(j, g_queue2, &wev);
    thrd_t th;
    if (thrd_create(&th, gate_thread, &g) != thrd_success) {
        fprintf(stderr, "thrd_create failed\n");
        exit(2);
    }
    cl_event wl[2] = {g.user, wev};
    double t0 = now_s();
    clqsort_status st = job_enqueue(j, 2, wl, &sev);
    atomic_store(&g.returned, 1);
    double took = now_s() - t0;
    int ok = 1;
    if (st == CLQSORT_SUCCESS && !atomic_load(&g.by_helper)) {
        /* the sort must not have completed while its wait list has not */
        cl_int es = CL_COMPLETE;
        if (sev) clGetEventInfo(sev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof es, &es, NULL);
        if (j->n > 1 && es == CL_COMPLETE && j->k > 0)
            fail("%s: the returned event completed before the user event of the wait list", j->what), ok = 0;
    }
    if (!atomic_exchange(&g.released, 1)) clSetUserEventStatus(g.user, CL_COMPLETE);
    thrd_join(th, NULL);
    if (st != CLQSORT_SUCCESS) {
        fail("%s: status %d (%s)", j->what, (int)st, clqsort_last_error(g_ctx));
        clFinish(g_queue2);
    } else {
        if (atomic_load(&g.by_helper))
            fail("%s: the call did not return until its wait list completed (it took %.1f s; the user event was "
                 "completed by a helper thread after 10 s; the header: it returns without waiting)",
                 j->what, took), ok = 0;
        if (!sev) {
            fail("%s: *event not set", j->what);
            clFinish(g_queue2);
        } else {
            job_copy(j, g_queue2, sev);
            if (ok) job_verify(j, g_queue2);
            clFinish(g_queue2);
            cl_int es = -1;
            clGetEventInfo(sev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof es, &es, NULL);
            if (es != CL_COMPLETE) fail("%s: the returned event is not complete after the copy that waited on it (%d)", j->what, (int)es);
            clReleaseEvent(sev);
        }
        clqsort_status fs = clqsort_finish(g_ctx);
        if (fs != CLQSORT_SUCCESS) fail("%s: clqsort_finish: status %d (%s)", j->what, (int)fs, clqsort_last_error(g_ctx));
        else pass();
    }
    clReleaseEvent(wev);
    clReleaseEvent(g.user);
    job_free(j);
}

static void section_async(void)
{
    cl_int err;
    cl_command_queue_properties props[] = {0};
    g_queue2 = clCreateCommandQueueWithProperties(g_clctx, clqsort_cl_device(g_ctx), props, &err);
    cl_ok(err, "clCreateCommandQueueWithProperties");
    job j;
    job_init(&j, J_SORT, CLQSORT_KEY_UINT32, D_UNIFORM, scaled(100003), 0, 0, 0, 0, 0, L_MIXED, 0);
    async_gated(&j);
    job_init(&j, J_SORT, CLQSORT_KEY_FLOAT, D_SPECIAL, scaled(65537), 0, 3, 8, 4, CLQSORT_DESCENDING, L_MIXED, 0);
    async_gated(&j);
    job_init(&j, J_SORT, CLQSORT_KEY_INT32, D_DUPS, scaled(30011), 0, 0, 1, 4, CLQSORT_STABLE, L_MIXED, 0);
    async_gated(&j);
    job_init(&j, J_SORT, CLQSORT_KEY_INT64, D_UNIFORM, scaled(50021), 0, 1, 0, 8, 0, L_MIXED, 0);
    async_gated(&j);
    job_init(&j, J_SEGMENTS, CLQSORT_KEY_DOUBLE, D_SPECIAL, scaled(40009), 0, 2, 5, 8, 0, L_HUGE_TINY, 0);
    async_gated(&j);
    job_init(&j, J_SEGMENTS, CLQSORT_KEY_UINT32, D_FEW, scaled(40009), 0, 0, 0, 0, CLQSORT_DESCENDING, L_MIXED, 1);
    async_gated(&j);
    job_init(&j, J_PARTIAL, CLQSORT_KEY_UINT64, D_DUPS, scaled(40009), 123, 4, 0, 4, CLQSORT_DESCENDING, L_MIXED, 0);
    async_gated(&j);
    job_init(&j, J_PARTIAL, CLQSORT_KEY_FLOAT, D_UNIFORM, scaled(300007), 1000, 0, 0, 4, 0, L_MIXED, 0);
    async_gated(&j);

    /* more sorts in flight than CLQSORT_MAX_PENDING, each waiting for its writes, then one finish */
    {
        enum { NJ = CLQSORT_MAX_PENDING + 9 };
        job *js = xmalloc(NJ * sizeof *js);
        cl_event *evs = xmalloc(NJ * sizeof *evs);
        int ok = 1;
        for (unsigned i = 0; i < NJ; i++) {
            enum job_kind kind = (enum job_kind)(i % 3);
            job_init(&js[i], kind, KEYS[i % NKEYS].type, (enum dist)(i % D_COUNT), 1 + (i * 977) % 3001,
                     (i * 31) % 500, i % 4, i % 5, (size_t[]){0, 4, 8}[i % 3], i % 2 ? CLQSORT_DESCENDING : 0,
                     (enum layout)(i % L_COUNT), (int)(i / 3 % 2));
            if (js[i].k > js[i].n) js[i].k = js[i].n;
            cl_event wev;
            job_write(&js[i], g_queue2, &wev);
            evs[i] = NULL;
            clqsort_status st = job_enqueue(&js[i], 1, &wev, i % 4 == 3 ? NULL : &evs[i]);
            clReleaseEvent(wev);
            if (st != CLQSORT_SUCCESS) {
                fail("%s (one of %u in flight): status %d (%s)", js[i].what, (unsigned)NJ, (int)st, clqsort_last_error(g_ctx));
                ok = 0;
            }
        }
        clqsort_status fs = clqsort_finish(g_ctx);
        if (fs != CLQSORT_SUCCESS) fail("%u sorts in flight: clqsort_finish: status %d (%s)", (unsigned)NJ, (int)fs, clqsort_last_error(g_ctx)), ok = 0;
        for (unsigned i = 0; i < NJ; i++) {
            if (evs[i]) {
                cl_int es = -1;
                clGetEventInfo(evs[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof es, &es, NULL);
                if (es != CL_COMPLETE) fail("%s: event not complete after clqsort_finish (%d)", js[i].what, (int)es), ok = 0;
            }
            job_copy(&js[i], g_queue2, evs[i]);
            unsigned long before = g_fail;
            job_verify(&js[i], g_queue2);
            if (g_fail == before) g_pass--; /* counted once below */
            else ok = 0;
            if (evs[i]) clReleaseEvent(evs[i]);
            job_free(&js[i]);
        }
        if (ok) pass();
        free(js);
        free(evs);
    }
    clReleaseCommandQueue(g_queue2);
}

/* ---- section 6: documented refusals ------------------------------------------------------------ */

/* buffers whose bytes must survive every refusal */
typedef struct {
    cl_mem m;
    size_t bytes;
    void *before;
    const char *name;
} watched;

static watched g_watch[8];
static size_t g_nwatch;

static void watch(cl_mem m, size_t bytes, const char *name)
{
    g_watch[g_nwatch].m = m;
    g_watch[g_nwatch].bytes = bytes;
    g_watch[g_nwatch].before = xmalloc(bytes);
    g_watch[g_nwatch].name = name;
    rdbuf(m, bytes, g_watch[g_nwatch].before);
    g_nwatch++;
}

static void unwatch_all(void)
{
    for (size_t i = 0; i < g_nwatch; i++) free(g_watch[i].before);
    g_nwatch = 0;
}

/* the status is one of the documented ones (b: a second acceptable status where two refusals of
 * the header both apply, else same as a), a message was left, and every watched buffer is
 * byte-identical */
static void expect(const char *what, clqsort_status got, clqsort_status a, clqsort_status b, const clqsort_context *mctx)
{
    int ok = 1;
    if (got != a && got != b) {
        if (a == b) fail("refusal %s: expected status %d (%s), got %d (%s)", what, (int)a, clqsort_status_string(a), (int)got,
                         got ? clqsort_last_error(mctx) : "success");
        else fail("refusal %s: expected status %d or %d, got %d (%s)", what, (int)a, (int)b, (int)got,
                  got ? clqsort_last_error(mctx) : "success");
        ok = 0;
    } else if (got != CLQSORT_SUCCESS && clqsort_last_error(mctx)[0] == '\0') {
        fail("refusal %s: status %d but clqsort_last_error(%s) is empty", what, (int)got, mctx ? "ctx" : "NULL");
        ok = 0;
    }
    for (size_t i = 0; i < g_nwatch && ok; i++) {
        void *now = xmalloc(g_watch[i].bytes);
        rdbuf(g_watch[i].m, g_watch[i].bytes, now);
        if (memcmp(now, g_watch[i].before, g_watch[i].bytes)) {
            fail("refusal %s: %s buffer changed", what, g_watch[i].name);
            ok = 0;
        }
        free(now);
    }
    if (ok) pass();
}

#define EXPECT(what, call, a) expect(what, (call), a, a, g_ctx)
#define EXPECT2(what, call, a, b) expect(what, (call), a, b, g_ctx)

/* an invalid segment layout: the blocking call, the host call and the enqueued call all refuse
 * with CLQSORT_ERROR_INVALID_SEGMENTS and leave every buffer as it was */
static void invalid_segments(const char *name, cl_mem kb, cl_mem vb, size_t n, const cl_uint *b, const cl_uint *e, size_t m)
{
    char what[200];
    size_t nb = e ? m : m + 1;
    cl_mem sb = mkbuf(nb * sizeof *b, b, CL_MEM_READ_WRITE);
    cl_mem eb = e ? mkbuf(m * sizeof *e, e, CL_MEM_READ_ONLY) : NULL;
    watch(sb, nb * sizeof *b, "segment_begin");
    if (eb) watch(eb, m * sizeof *e, "segment_end");
    for (unsigned flags = 0; flags < 4; flags += 3) {
        snprintf(what, sizeof what, "clqsort_sort_segments, %s, %zu segments, value_size 4, flags %u", name, m, flags);
        EXPECT(what, clqsort_sort_segments(g_ctx, kb, 0, vb, 0, n, CLQSORT_KEY_UINT32, 4, sb, eb, m, flags),
               CLQSORT_ERROR_INVALID_SEGMENTS);
    }
    snprintf(what, sizeof what, "clqsort_sort_segments, %s, keys alone", name);
    EXPECT(what, clqsort_sort_segments(g_ctx, kb, 0, NULL, 0, n, CLQSORT_KEY_UINT32, 0, sb, eb, m, 0),
           CLQSORT_ERROR_INVALID_SEGMENTS);
    /* enqueued: the call succeeds, clqsort_finish reports */
    snprintf(what, sizeof what, "clqsort_enqueue_sort_segments + clqsort_finish, %s", name);
    cl_event ev = NULL;
    clqsort_status st = clqsort_enqueue_sort_segments(g_ctx, kb, 0, vb, 0, n, CLQSORT_KEY_UINT32, 4, sb, eb, m,
                                                      CLQSORT_DESCENDING, 0, NULL, &ev);
    if (st != CLQSORT_SUCCESS) {
        fail("refusal %s: the enqueue call returned %d (the header: found by the device, reported by clqsort_finish)",
             what, (int)st);
        clqsort_finish(g_ctx);
    } else {
        if (ev) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
        } else {
            fail("refusal %s: *event not set", what);
        }
        EXPECT(what, clqsort_finish(g_ctx), CLQSORT_ERROR_INVALID_SEGMENTS);
        EXPECT("a second clqsort_finish after the reported failure", clqsort_finish(g_ctx), CLQSORT_SUCCESS);
    }
    /* host arrays */
    {
        uint32_t *hk = xmalloc(n * 4), *hv = xmalloc(n * 4), *hk0 = xmalloc(n * 4), *hv0 = xmalloc(n * 4);
        rdbuf(kb, n * 4, hk);
        rdbuf(vb, n * 4, hv);
        memcpy(hk0, hk, n * 4);
        memcpy(hv0, hv, n * 4);
        snprintf(what, sizeof what, "clqsort_sort_segments_host, %s", name);
        EXPECT(what, clqsort_sort_segments_host(g_ctx, hk, hv, n, CLQSORT_KEY_UINT32, 4, b, e, m, 0),
               CLQSORT_ERROR_INVALID_SEGMENTS);
        if (memcmp(hk, hk0, n * 4) || memcmp(hv, hv0, n * 4)) fail("refusal %s: the host arrays changed", what);
        free(hk);
        free(hv);
        free(hk0);
        free(hv0);
    }
    g_nwatch -= eb ? 2 : 1;
    free(g_watch[g_nwatch].before);
    if (eb) free(g_watch[g_nwatch + 1].before);
    clReleaseMemObject(sb);
    if (eb) clReleaseMemObject(eb);
}

static void section_refusals(void)
{
    const size_t n = 1000;
    uint64_t s = g_seed * 7919u + 1;
    uint32_t *hk = xmalloc(n * 4), *hv = xmalloc(n * 8);
    for (size_t i = 0; i < n; i++) hk[i] = (uint32_t)rng_next(&s);
    for (size_t i = 0; i < 2 * n; i++) hv[i] = (uint32_t)i;
    cl_mem kb = mkbuf(n * 4, hk, CL_MEM_READ_WRITE);
    cl_mem vb = mkbuf(n * 8, hv, CL_MEM_READ_WRITE);
    cl_mem ro = mkbuf(n * 4, hk, CL_MEM_READ_ONLY);
    cl_mem wo = mkbuf(n * 4, hk, CL_MEM_WRITE_ONLY);
    cl_mem v4 = mkbuf(n * 4, hv, CL_MEM_READ_WRITE); /* room for n 4-byte values only */
    cl_int err;
    watch(kb, n * 4, "keys");
    watch(vb, n * 8, "values");
    watch(ro, n * 4, "read-only keys");
    watch(v4, n * 4, "4-byte values");
    const clqsort_key_type U = CLQSORT_KEY_UINT32;

    /* contexts and arguments */
    expect("clqsort_sort with ctx NULL", clqsort_sort(NULL, kb, n, U, 0), CLQSORT_ERROR_NULL_CONTEXT,
           CLQSORT_ERROR_NULL_CONTEXT, NULL);
    expect("clqsort_partial_sort with ctx NULL", clqsort_partial_sort(NULL, kb, 0, NULL, 0, n, U, 0, 5, 0),
           CLQSORT_ERROR_NULL_CONTEXT, CLQSORT_ERROR_NULL_CONTEXT, NULL);
    expect("clqsort_create with ctx NULL", clqsort_create(NULL, NULL), CLQSORT_ERROR_INVALID_ARGUMENT,
           CLQSORT_ERROR_INVALID_ARGUMENT, NULL);
    EXPECT("clqsort_get_info with info NULL", clqsort_get_info(g_ctx, NULL), CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_get_stats with stats NULL", clqsort_get_stats(g_ctx, NULL), CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_scratch_bytes with bytes NULL", clqsort_scratch_bytes(g_ctx, n, U, 0, NULL),
           CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_sort keys NULL", clqsort_sort(g_ctx, NULL, n, U, 0), CLQSORT_ERROR_NULL_BUFFER);
    EXPECT("clqsort_sort_pairs values NULL", clqsort_sort_pairs(g_ctx, kb, NULL, n, U, 4, 0), CLQSORT_ERROR_NULL_BUFFER);
    EXPECT("clqsort_sort unknown flag 4", clqsort_sort(g_ctx, kb, n, U, 4u), CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_sort unknown flag 0x80000000", clqsort_sort(g_ctx, kb, n, U, 0x80000000u),
           CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_sort unknown key type 99", clqsort_sort(g_ctx, kb, n, (clqsort_key_type)99, 0),
           CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_sort_pairs value_size 3", clqsort_sort_pairs(g_ctx, kb, vb, n, U, 3, 0), CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_sort_pairs value_size 0", clqsort_sort_pairs(g_ctx, kb, vb, n, U, 0, 0), CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_sort_pairs value_size 16", clqsort_sort_pairs(g_ctx, kb, vb, n / 4, U, 16, 0),
           CLQSORT_ERROR_INVALID_ARGUMENT);

    /* sizes */
    EXPECT("clqsort_sort count past the buffer", clqsort_sort(g_ctx, kb, n + 1, U, 0), CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
    EXPECT("clqsort_sort_at offset + count past the buffer", clqsort_sort_at(g_ctx, kb, 1, n, U, 0),
           CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
    EXPECT("clqsort_sort 64-bit keys past the buffer", clqsort_sort(g_ctx, kb, n / 2 + 1, CLQSORT_KEY_UINT64, 0),
           CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
    EXPECT("clqsort_sort_pairs_at values past their buffer", clqsort_sort_pairs_at(g_ctx, kb, 0, vb, 1, n, U, 8, 0),
           CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
    EXPECT("clqsort_sort_pairs 4-byte keys, 8-byte values past their buffer", clqsort_sort_pairs(g_ctx, kb, v4, n, U, 8, 0),
           CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
    EXPECT2("clqsort_sort count CLQSORT_MAX_COUNT + 1", clqsort_sort(g_ctx, kb, CLQSORT_MAX_COUNT + 1, U, 0),
            CLQSORT_ERROR_COUNT_TOO_LARGE, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
    EXPECT("clqsort_partial_sort k > count", clqsort_partial_sort(g_ctx, kb, 0, vb, 0, n, U, 4, n + 1, 0),
           CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_enqueue_partial_sort k > count",
           clqsort_enqueue_partial_sort(g_ctx, kb, 0, NULL, 0, 10, U, 0, 11, 0, 0, NULL, NULL),
           CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_enqueue_sort keys NULL", clqsort_enqueue_sort(g_ctx, NULL, 0, NULL, 0, n, U, 0, 0, 0, NULL, NULL),
           CLQSORT_ERROR_NULL_BUFFER);
    EXPECT("clqsort_enqueue_sort count past the buffer",
           clqsort_enqueue_sort(g_ctx, kb, 3, NULL, 0, n, U, 0, 0, 0, NULL, NULL), CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
    EXPECT("clqsort_finish after refused enqueues", clqsort_finish(g_ctx), CLQSORT_SUCCESS);

    /* buffer kinds */
    EXPECT("clqsort_sort read-only buffer", clqsort_sort(g_ctx, ro, n, U, 0), CLQSORT_ERROR_BUFFER_ACCESS);
    EXPECT("clqsort_sort write-only buffer", clqsort_sort(g_ctx, wo, n, U, 0), CLQSORT_ERROR_BUFFER_ACCESS);
    EXPECT("clqsort_sort_pairs read-only values", clqsort_sort_pairs(g_ctx, kb, ro, n, U, 4, 0), CLQSORT_ERROR_BUFFER_ACCESS);
    {
        cl_device_id dev = clqsort_cl_device(g_ctx);
        cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        cl_ok(err, "clCreateContext");
        cl_mem ob = clCreateBuffer(other, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, hk, &err);
        cl_ok(err, "clCreateBuffer");
        EXPECT("clqsort_sort buffer of another context", clqsort_sort(g_ctx, ob, n, U, 0), CLQSORT_ERROR_WRONG_CONTEXT);
        EXPECT("clqsort_sort_pairs values of another context", clqsort_sort_pairs(g_ctx, kb, ob, n, U, 4, 0),
               CLQSORT_ERROR_WRONG_CONTEXT);
        cl_uint zero[2] = {0, (cl_uint)n};
        cl_mem os = clCreateBuffer(other, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &err);
        cl_ok(err, "clCreateBuffer");
        EXPECT("clqsort_sort_segments segment buffer of another context",
               clqsort_sort_segments(g_ctx, kb, 0, NULL, 0, n, U, 0, os, NULL, 1, 0), CLQSORT_ERROR_WRONG_CONTEXT);
        clReleaseMemObject(os);
        clReleaseMemObject(ob);
        clReleaseContext(other);
    }
    {
        /* an image is a cl_mem but not a buffer object */
        cl_image_format fmt = {CL_R, CL_UNSIGNED_INT32};
        cl_image_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = 16;
        desc.image_height = 16;
        cl_mem img = clCreateImage(g_clctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
        if (err == CL_SUCCESS) {
            EXPECT("clqsort_sort on an image object", clqsort_sort(g_ctx, img, 16, U, 0), CLQSORT_ERROR_INVALID_BUFFER);
            clReleaseMemObject(img);
        }
    }
    /* overlapping keys and values */
    EXPECT("clqsort_sort_pairs keys and values one buffer", clqsort_sort_pairs(g_ctx, kb, kb, n, U, 4, 0),
           CLQSORT_ERROR_OVERLAPPING_BUFFERS);
    EXPECT("clqsort_sort_pairs_at overlapping slices of one buffer",
           clqsort_sort_pairs_at(g_ctx, vb, 0, vb, 999, n, U, 4, 0), CLQSORT_ERROR_OVERLAPPING_BUFFERS);
    {
        cl_buffer_region reg = {0, 256};
        cl_mem sub = clCreateSubBuffer(vb, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
        cl_ok(err, "clCreateSubBuffer");
        EXPECT("clqsort_sort_pairs values a sub-buffer of the keys", clqsort_sort_pairs(g_ctx, vb, sub, 64, U, 4, 0),
               CLQSORT_ERROR_OVERLAPPING_BUFFERS);
        clReleaseMemObject(sub);
    }
    uint32_t *hk0 = xmalloc(n * 4), *hv0 = xmalloc(n * 8); /* the host arrays before the host refusals */
    memcpy(hk0, hk, n * 4);
    memcpy(hv0, hv, n * 8);
    EXPECT("clqsort_sort_pairs_host keys and values share bytes",
           clqsort_sort_pairs_host(g_ctx, hv, hv + 1, 10, U, 4, 0), CLQSORT_ERROR_OVERLAPPING_BUFFERS);
    EXPECT("clqsort_sort_host keys NULL count 0", clqsort_sort_host(g_ctx, NULL, 0, U, 0), CLQSORT_ERROR_NULL_BUFFER);
    EXPECT("clqsort_sort_pairs_host values NULL", clqsort_sort_pairs_host(g_ctx, hk, NULL, 10, U, 4, 0),
           CLQSORT_ERROR_NULL_BUFFER);
    EXPECT("clqsort_partial_sort_host values with value_size 0",
           clqsort_partial_sort_host(g_ctx, hk, hv, 10, U, 0, 3, 0), CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_partial_sort_host k > count", clqsort_partial_sort_host(g_ctx, hk, NULL, 10, U, 0, 11, 0),
           CLQSORT_ERROR_INVALID_ARGUMENT);
    EXPECT("clqsort_sort_segments_host segment_begin NULL",
           clqsort_sort_segments_host(g_ctx, hk, NULL, 10, U, 0, NULL, NULL, 1, 0), CLQSORT_ERROR_NULL_BUFFER);
    if (!g_has64) {
        EXPECT("clqsort_sort 64-bit keys without 64-bit atomics", clqsort_sort(g_ctx, vb, n, CLQSORT_KEY_UINT64, 0),
               CLQSORT_ERROR_UNSUPPORTED_TYPE);
    }
    EXPECT("clqsort_sort CLQSORT_STABLE with 64-bit keys", clqsort_sort(g_ctx, vb, n, CLQSORT_KEY_INT64, CLQSORT_STABLE),
           CLQSORT_ERROR_UNSUPPORTED_TYPE);
    if (memcmp(hk0, hk, n * 4) || memcmp(hv0, hv, n * 8)) fail("refusals of host-array calls: the host arrays changed");
    else pass();
    free(hk0);
    free(hv0);

    /* segment arguments refused on the host */
    {
        cl_uint ok_b[3] = {0, 500, (cl_uint)n};
        cl_mem sb = mkbuf(sizeof ok_b, ok_b, CL_MEM_READ_ONLY);
        cl_mem swo = mkbuf(sizeof ok_b, ok_b, CL_MEM_WRITE_ONLY);
        EXPECT("clqsort_sort_segments segment_begin NULL",
               clqsort_sort_segments(g_ctx, kb, 0, NULL, 0, n, U, 0, NULL, NULL, 2, 0), CLQSORT_ERROR_NULL_BUFFER);
        EXPECT("clqsort_sort_segments segment_begin with fewer offsets than said",
               clqsort_sort_segments(g_ctx, kb, 0, NULL, 0, n, U, 0, sb, NULL, 3, 0), CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
        EXPECT("clqsort_sort_segments segment_end with fewer offsets than said",
               clqsort_sort_segments(g_ctx, kb, 0, NULL, 0, n, U, 0, sb, sb, 4, 0), CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
        EXPECT("clqsort_sort_segments write-only segment buffer",
               clqsort_sort_segments(g_ctx, kb, 0, NULL, 0, n, U, 0, swo, NULL, 2, 0), CLQSORT_ERROR_BUFFER_ACCESS);
        EXPECT2("clqsort_sort_segments segments CLQSORT_MAX_COUNT",
                clqsort_sort_segments(g_ctx, kb, 0, NULL, 0, n, U, 0, sb, NULL, CLQSORT_MAX_COUNT, 0),
                CLQSORT_ERROR_COUNT_TOO_LARGE, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER);
        EXPECT("clqsort_sort_segments segment buffer is the keys buffer",
               clqsort_sort_segments(g_ctx, kb, 0, NULL, 0, n, U, 0, kb, NULL, 2, 0), CLQSORT_ERROR_OVERLAPPING_BUFFERS);
        EXPECT("clqsort_sort_segments segment buffer is the values buffer",
               clqsort_sort_segments(g_ctx, kb, 0, vb, 0, n, U, 4, vb, NULL, 2, 0), CLQSORT_ERROR_OVERLAPPING_BUFFERS);
        EXPECT("clqsort_sort_segments 0 segments", clqsort_sort_segments(g_ctx, kb, 0, vb, 0, n, U, 4, sb, NULL, 0, 0),
               CLQSORT_SUCCESS);
        EXPECT("clqsort_sort count 0", clqsort_sort(g_ctx, kb, 0, U, 0), CLQSORT_SUCCESS);
        EXPECT("clqsort_sort count 1", clqsort_sort(g_ctx, kb, 1, U, CLQSORT_DESCENDING), CLQSORT_SUCCESS);
        EXPECT("clqsort_partial_sort k 0", clqsort_partial_sort(g_ctx, kb, 0, vb, 0, n, U, 4, 0, 0), CLQSORT_SUCCESS);
        clReleaseMemObject(sb);
        clReleaseMemObject(swo);
    }

    /* invalid segment offsets, found on the device */
    {
        cl_uint b1[4] = {0, 10, 20, 30}, e1[4] = {10, 20, 30, (cl_uint)n + 1};
        invalid_segments("end past count", kb, vb, n, b1, e1, 4);
        cl_uint b2[4] = {0, 100, 50, 300}, e2[4] = {100, 200, 250, 400};
        invalid_segments("begin decreasing / overlapping", kb, vb, n, b2, e2, 4);
        cl_uint b3[3] = {0, 300, 600}, e3[3] = {200, 250, 700};
        invalid_segments("end before begin", kb, vb, n, b3, e3, 3);
        cl_uint b4[3] = {0, 400, 600}, e4[3] = {450, 500, 700};
        invalid_segments("end past the next begin", kb, vb, n, b4, e4, 3);
        cl_uint c5[6] = {0, 100, 200, 150, 400, 500};
        invalid_segments("compressed offsets decreasing", kb, vb, n, c5, NULL, 5);
        cl_uint c6[4] = {0, 500, 900, (cl_uint)n + 7};
        invalid_segments("compressed last offset past count", kb, vb, n, c6, NULL, 3);
        /* one bad segment among many good ones */
        cl_uint *bm = xmalloc(200 * sizeof *bm), *em = xmalloc(200 * sizeof *em);
        for (cl_uint i = 0; i < 200; i++) bm[i] = i * 5, em[i] = i * 5 + 4;
        em[150] = 757; /* overlaps segment 151 */
        invalid_segments("one overlapping segment among 200", kb, vb, n, bm, em, 200);
        free(bm);
        free(em);
    }

    /* after all of that the context still works */
    unwatch_all();
    {
        EXPECT("a valid clqsort_sort_pairs after the refusals", clqsort_sort_pairs(g_ctx, kb, vb, n, U, 4, 0), CLQSORT_SUCCESS);
        uint32_t *ok_k = xmalloc(n * 4), *ok_v = xmalloc(n * 4);
        rdbuf(kb, n * 4, ok_k);
        rdbuf(vb, n * 4, ok_v);
        if (check_range("the valid sort after the refusals", U, 0, hk, hv, ok_k, ok_v, 4, n, n)) pass();
        free(ok_k);
        free(ok_v);
        /* one buffer holding keys and values in slices that do not overlap: allowed */
        cl_mem both = mkbuf(n * 8, NULL, CL_MEM_READ_WRITE);
        cl_ok(clEnqueueWriteBuffer(g_queue, both, CL_TRUE, 0, n * 4, hk, 0, NULL, NULL), "clEnqueueWriteBuffer");
        cl_ok(clEnqueueWriteBuffer(g_queue, both, CL_TRUE, n * 4, n * 4, hv, 0, NULL, NULL), "clEnqueueWriteBuffer");
        clqsort_status st = clqsort_sort_pairs_at(g_ctx, both, 0, both, n, n, U, 4, CLQSORT_DESCENDING);
        if (st != CLQSORT_SUCCESS) {
            fail("clqsort_sort_pairs_at keys and values in disjoint slices of one buffer: status %d (%s)", (int)st,
                 clqsort_last_error(g_ctx));
        } else {
            uint32_t *bo = xmalloc(n * 8);
            rdbuf(both, n * 8, bo);
            if (check_range("clqsort_sort_pairs_at keys and values in disjoint slices of one buffer", U, CLQSORT_DESCENDING,
                            hk, hv, bo, bo + n, 4, n, n))
                pass();
            free(bo);
        }
        clReleaseMemObject(both);
    }
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    clReleaseMemObject(ro);
    clReleaseMemObject(wo);
    clReleaseMemObject(v4);
    free(hk);
    free(hv);
}

/* ---- main ----------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
            g_scale = strtoul(argv[++i], NULL, 10);
            if (!g_scale) g_scale = 1;
        } else if (!strcmp(argv[i], "--verbose")) {
            g_verbose = 1;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            g_seed = strtoull(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: %s [--scale S] [--seed N]\n", argv[0]);
            return 2;
        }
    }
    clqsort_status st = clqsort_create(&g_ctx, NULL);
    if (st != CLQSORT_SUCCESS) {
        printf("FAIL clqsort_create: status %d: %s\n", (int)st, clqsort_last_error(NULL));
        printf("check_public: %lu passed, %lu failed\n", g_pass, g_fail + 1);
        return 1;
    }
    clqsort_info info;
    if (clqsort_get_info(g_ctx, &info) == CLQSORT_SUCCESS)
        printf("device: %s (%s, %s), path %s\n", info.device_name, info.platform_name, info.device_version,
               info.path == CLQSORT_PATH_DEVICE_ENQUEUE ? "device-enqueue" : "host-loop");
    g_clctx = clqsort_cl_context(g_ctx);
    g_queue = clqsort_cl_queue(g_ctx);
    {
        char ext[8192] = "";
        clGetDeviceInfo(clqsort_cl_device(g_ctx), CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
        g_has64 = strstr(ext, "cl_khr_int64_base_atomics") && strstr(ext, "cl_khr_int64_extended_atomics");
    }
    printf("seed %llu, scale %lu, 64-bit atomics %s\n", g_seed, g_scale, g_has64 ? "yes" : "no");
    fflush(stdout);

    section_full();
    section_segments();
    section_partial();
    section_stable();
    section_async();
    section_refusals();

    clqsort_release(g_ctx);
    printf("check_public: %lu passed, %lu failed\n", g_pass, g_fail);
    return (g_fail > 0 || g_pass == 0) ? 1 : 0;
}
