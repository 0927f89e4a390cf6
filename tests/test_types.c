/*
 * test_types.c - every key type, ascending and descending, through clqsort_sort and
 * clqsort_sort_host: the distributions of test_sort mapped to each type, plus each type's edge
 * values (INT_MIN/INT_MAX, 0/UINT_MAX, +-0.0, +-inf, NaNs of several payloads and both signs,
 * denormals, FLT_MAX/DBL_MAX). The reference is a CPU sort by the documented total order; the
 * output must be in that order and hold exactly the input's bit patterns. Key-value sorts (4- and
 * 8-byte values, set to each key's index) are checked so that every output pair existed in the
 * input; their bad input (value size, overlapping or short buffers) must be refused, unchanged.
 * Inputs that crowd towards one end of the order must come out sorted with the root slices
 * expected of them (check_root_slices).
 *
 *   test_types [--ascending] [--large] [--root-slices]
 *     --ascending: ascending order only. A descending program differs from its ascending one
 *       only in how codes are made, which types, types_asan and intel_types_host_loop cover;
 *       intel_types_device_enqueue (Intel's builds take seconds a program),
 *       types_wide (wide programs), types_small_tuning and types_tiles pass it, as every program
 *       is a build of its own on pocl (minutes a suite where pocl's kernel cache is empty).
 *     --large: every distribution at every size (by default the larger sizes take three).
 *     --root-slices: check_root_slices of float and double keys alone (types_float_value_slices:
 *       a tuning that gives their roots no distance slices, two more programs to build).
 */
#include "test_util.h"
#include "../cl/clqsort_shared.h" /* CLQ_TILES_MAX */

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* tu_expect_ways (types_wide): every sort of the counts listed, keys alone or pairs, must report
 * W phase-one ways. Others are not checked: each element size widens from its own count. */
static tu_ways_spec wide;

static void check_ways(clqsort_context *ctx, size_t n, const char *what)
{
    if (!wide.ways || !tu_ways_wide_at(&wide, n))
        return;
    clqsort_stats st;
    clqsort_get_stats(ctx, &st);
    CHECK(st.phase_one_ways == wide.ways, "%s n=%zu: %u phase-one ways, expected %lu", what, n, st.phase_one_ways,
          wide.ways);
}

/* Sorts n keys with their indices as values (value_size 4 or 8) on the device; checks the keys
 * against the reference sort, and that each output pair (key, index) was an input pair and every
 * index comes out once (tu_verify_pairs). */
static void check_pairs(clqsort_context *ctx, clqsort_key_type t, int desc, size_t vsize, const unsigned char *in,
                        size_t n, const char *what)
{
    const size_t w = tu_width_of(t);
    cl_context c = clqsort_cl_context(ctx);
    cl_command_queue q = clqsort_cl_queue(ctx);
    unsigned char *vals = malloc(n * vsize + 8), *outk = malloc(n * w + 8), *outv = malloc(n * vsize + 8);
    tu_index_values(vals, vsize, n);
    cl_int err;
    cl_mem kb = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * w, (void *)in, &err);
    cl_mem vb = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * vsize, vals, &err);
    clqsort_status s = clqsort_sort_pairs(ctx, kb, vb, n, t, vsize, desc ? CLQSORT_DESCENDING : 0);
    CHECK(s == CLQSORT_SUCCESS, "pairs %s %zu-byte values %s: %s", tu_type_names[t], vsize, what, clqsort_last_error(ctx));
    check_ways(ctx, n, tu_type_names[t]);
    clEnqueueReadBuffer(q, kb, CL_TRUE, 0, n * w, outk, 0, NULL, NULL);
    clEnqueueReadBuffer(q, vb, CL_TRUE, 0, n * vsize, outv, 0, NULL, NULL);
    char why[256] = "";
    CHECK(tu_verify_pairs(t, desc, in, outk, outv, vsize, n, why, sizeof why), "pairs %s %zu-byte values %s: %s",
          tu_type_names[t], vsize, what, why);
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    free(vals), free(outk), free(outv);
}

/* Bad input of the key-value call: its own status each, both buffers unchanged. */
static void check_pairs_refusals(clqsort_context *ctx)
{
    enum { N = 1000 };
    uint32_t k[N], v[2 * N], back[2 * N];
    for (int i = 0; i < N; i++)
        k[i] = (uint32_t)(N - i) * 2654435761u, v[i] = (uint32_t)i, v[N + i] = 7;
    cl_context c = clqsort_cl_context(ctx);
    cl_command_queue q = clqsort_cl_queue(ctx);
    cl_int err;
    cl_mem kb = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof k, k, &err);
    cl_mem vb = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof v, v, &err);
    struct { cl_mem values; size_t count, vsize; clqsort_status want; const char *word; } cases[] = {
        {vb, N, 3, CLQSORT_ERROR_INVALID_ARGUMENT, "value_size"},
        {vb, N, 0, CLQSORT_ERROR_INVALID_ARGUMENT, "value_size"},
        {kb, N, 4, CLQSORT_ERROR_OVERLAPPING_BUFFERS, "share memory"},
        {NULL, N, 4, CLQSORT_ERROR_NULL_BUFFER, "values is NULL"},
        {vb, N + 1, 4, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER, "keys"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clqsort_status s = clqsort_sort_pairs(ctx, kb, cases[i].values, cases[i].count, CLQSORT_KEY_UINT32, cases[i].vsize, 0);
        CHECK(s == cases[i].want, "pairs refusal %zu: status %d, expected %d", i, s, cases[i].want);
        CHECK(strstr(clqsort_last_error(ctx), cases[i].word) != NULL, "pairs refusal %zu message: %s", i,
              clqsort_last_error(ctx));
    }
    /* 8-byte values: N of them need the whole values buffer, N + 1 do not fit */
    CHECK(clqsort_sort_pairs(ctx, kb, vb, N, CLQSORT_KEY_UINT32, 8, 0) == CLQSORT_SUCCESS, "8-byte values fit: %s",
          clqsort_last_error(ctx));
    clEnqueueWriteBuffer(q, kb, CL_TRUE, 0, sizeof k, k, 0, NULL, NULL);
    clEnqueueWriteBuffer(q, vb, CL_TRUE, 0, sizeof v, v, 0, NULL, NULL);
    /* overlapping sub-buffers of one parent (offsets at a multiple of the device's alignment) */
    cl_uint align_bits = 0;
    clGetDeviceInfo(clqsort_cl_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    size_t align = align_bits / 8 ? align_bits / 8 : 4;
    if (align <= sizeof v / 4) {
        cl_buffer_region r1 = {0, sizeof v / 2}, r2 = {align, sizeof v / 2};
        cl_mem s1 = clCreateSubBuffer(vb, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
        cl_mem s2 = clCreateSubBuffer(vb, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
        CHECK(s1 && s2, "sub-buffers: %d", (int)err);
        if (s1 && s2) {
            clqsort_status s = clqsort_sort_pairs(ctx, s1, s2, N / 2, CLQSORT_KEY_UINT32, 4, 0);
            CHECK(s == CLQSORT_ERROR_OVERLAPPING_BUFFERS, "overlapping sub-buffers: status %d", s);
            clReleaseMemObject(s1);
            clReleaseMemObject(s2);
        }
    }
    clEnqueueReadBuffer(q, kb, CL_TRUE, 0, sizeof k, back, 0, NULL, NULL);
    CHECK(!memcmp(back, k, sizeof k), "keys unchanged after refusals");
    clEnqueueReadBuffer(q, vb, CL_TRUE, 0, sizeof v, back, 0, NULL, NULL);
    CHECK(!memcmp(back, v, sizeof v), "values unchanged after refusals");
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
}

/* Root slices (README.md, "Pivots and depth bound"): inputs that crowd towards one end of the
 * code range, long enough for the root to have its spare level and not to take the tile path,
 * must come out in order and show the kind of slices the root took (clqsort_stats.root_slices): integers spread
 * evenly on a log scale above their type's least key take slices of the log of the distance
 * from the least sampled key (2), or from the greatest for descending order (3); floats spread
 * evenly in [0, 1) take value slices (1), and floats in one octave spread evenly on a log
 * scale above its start the distance's slices (2 or 3), or code slices (0) where the tuning has
 * none for that type (clqsort_info.float_root_distance or double_root_distance 0); uniform
 * integers keep code slices (0).
 * The expected kind is not checked under a tuning that sets extra_levels (none spare: code
 * slices only), nor where the sort's program has more ways than its keys fill (pocl's one-level
 * programs). Floats and doubles in [0, 1) that took value slices must take no more levels than
 * uniform integers of their width (value slices after the root, relauncher.cl). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void check_root_slices(clqsort_context *ctx, const clqsort_info *info, int orders, int floats_only)
{
    /* more keys than the tile path takes under any tuning (small_tiles is at most CLQ_TILES_MAX
     * tiles of lq_max keys); with gq_ways=16 on the H200, 65536 keys were 16 tiles and took it */
    const size_t past_tiles = (CLQ_TILES_MAX + 1) * (size_t)info->lqsort_max;
    size_t n = (size_t)info->gqsort_ways * info->lqsort_max;
    if (n < past_tiles)
        n = past_tiles;
    if (n < 65536)
        n = 65536;
    const char *tuning = getenv("CLQSORT_TUNING");
    const int spare = !(tuning && strstr(tuning, "extra_levels"));
    unsigned char *in = malloc(n * 8), *out = malloc(n * 8);
    char why[256];
    unsigned value_levels[2] = {0, 0}; /* [0, 1) floats and doubles, ascending, in value slices */
    for (int t = 0; t <= 8; t++) {
        const int uniform = t == 6; /* after the six types: uniform uint32 keys */
        /* then float and double keys in [2^20, 2^21): 2^(m u) - 1 units of the last place above
         * 2^20, m the mantissa's bits (the last place of 2^20 is 2^(20 - m)) */
        const int octave = t >= 7;
        const clqsort_key_type type = uniform ? CLQSORT_KEY_UINT32
                                      : t == 7 ? CLQSORT_KEY_FLOAT
                                      : t == 8 ? CLQSORT_KEY_DOUBLE
                                               : (clqsort_key_type)t;
        const size_t w = tu_width_of(type);
        const int is_float = type == CLQSORT_KEY_FLOAT || type == CLQSORT_KEY_DOUBLE;
        const int is_signed = type == CLQSORT_KEY_INT32 || type == CLQSORT_KEY_INT64;
        if (floats_only && !is_float)
            continue;
        const double m = type == CLQSORT_KEY_FLOAT ? 23.0 : 52.0;
        uint64_t state = 42 + (uint64_t)t;
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = next_random(&state);
            const double u = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
            const double fx = octave ? 1048576.0 + (exp2(u * m) - 1.0) * exp2(20.0 - m) : u; /* floats */
            uint64_t bits;
            if (type == CLQSORT_KEY_FLOAT) {
                const float f = (float)fx;
                uint32_t b32;
                memcpy(&b32, &f, 4);
                bits = b32;
            } else if (type == CLQSORT_KEY_DOUBLE) {
                memcpy(&bits, &fx, 8);
            } else if (uniform) {
                bits = r;
            } else { /* distance 2^(width * u) - 1 from the least key */
                const double x = exp2(u * 8.0 * (double)w) - 1.0;
                bits = x >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)x;
                if (is_signed)
                    bits ^= 1ull << (8 * w - 1); /* the least int plus the distance */
            }
            memcpy(in + i * w, &bits, w); /* little-endian: the low bytes */
        }
        for (int desc = 0; desc < orders && !(uniform && desc); desc++) {
            memcpy(out, in, n * w);
            const clqsort_status s = clqsort_sort_host(ctx, out, n, type, desc ? CLQSORT_DESCENDING : 0);
            if (s == CLQSORT_ERROR_UNSUPPORTED_TYPE && w == 8)
                continue; /* no 64-bit atomics: the edge-value section above checked the refusal */
            CHECK(s == CLQSORT_SUCCESS, "root slices %s n=%zu: %s", tu_type_names[type], n, clqsort_last_error(ctx));
            check_ways(ctx, n, tu_type_names[type]);
            CHECK(tu_verify_typed(type, desc, in, out, n, why, sizeof why), "root slices %s %s%s n=%zu: %s",
                  tu_type_names[type], uniform ? "uniform " : octave ? "one octave " : "",
                  desc ? "descending" : "ascending", n, why);
            clqsort_stats st;
            clqsort_get_stats(ctx, &st);
            /* a spare level only where the keys fill the program's ways at half of phase two's
             * length each (clq_levels, src/tuning.c): not in a CPU's one-level program */
            const size_t half = (w == 8 ? info->lqsort_max / 2 : info->lqsort_max) / 2;
            const int spare_here = spare && half && n / half >= st.phase_one_ways;
            const unsigned distance = type == CLQSORT_KEY_DOUBLE ? info->double_root_distance
                                                                  : info->float_root_distance;
            const unsigned want = !spare_here || uniform   ? 0u
                                  : is_float && !octave     ? 1u
                                  : octave && !distance     ? 0u
                                  : desc                    ? 3u
                                                            : 2u;
            CHECK(st.root_slices == want, "root slices %s %s%s n=%zu: kind %u, expected %u", tu_type_names[type],
                  uniform ? "uniform " : octave ? "one octave " : "", desc ? "descending" : "ascending", n,
                  st.root_slices, want);
            if (!desc && is_float && !octave && st.root_slices == 1u)
                value_levels[type == CLQSORT_KEY_DOUBLE] = st.phase_one_levels;
        }
    }
    /* after a root in value slices, the bucket that holds 0 (every exponent below 1 / ways)
     * takes value slices too, so keys spread evenly in value take no more levels than uniform
     * integers of their width (without that: one or two more, relauncher.cl) */
    for (int d = 0; d < 2; d++) {
        if (!value_levels[d])
            continue;
        const clqsort_key_type itype = d ? CLQSORT_KEY_UINT64 : CLQSORT_KEY_UINT32;
        const size_t w = tu_width_of(itype);
        uint64_t state = 7;
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = next_random(&state);
            memcpy(in + i * w, &r, w);
        }
        memcpy(out, in, n * w);
        CHECK(clqsort_sort_host(ctx, out, n, itype, 0) == CLQSORT_SUCCESS, "uniform %s n=%zu: %s", tu_type_names[itype],
              n, clqsort_last_error(ctx));
        CHECK(tu_verify_typed(itype, 0, in, out, n, why, sizeof why), "uniform %s n=%zu: %s", tu_type_names[itype], n, why);
        clqsort_stats st;
        clqsort_get_stats(ctx, &st);
        CHECK(value_levels[d] <= st.phase_one_levels, "root slices %s in [0, 1) n=%zu: %u phase-one levels, uniform %s %u",
              d ? "double" : "float", n, value_levels[d], tu_type_names[itype], st.phase_one_levels);
    }
    free(in);
    free(out);
}

/* The reference sort itself, against qsort: random bit patterns of every type (NaNs, both zeros)
 * and the type's edge values, with and without NaNs (for 4-byte keys its fast path skips the bit
 * passes when no NaN is there). In order by the code, and the same multiset of bit patterns. */
static void check_reference_sort(void)
{
    enum { n = 5000 };
    static uint64_t in[n], out[n], a[n], b[n];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int t = 0; t < 6; t++) {
        const clqsort_key_type type = (clqsort_key_type)t;
        const size_t w = tu_width_of(type);
        for (int desc = 0; desc < 2; desc++) {
            for (int with_nan = 0; with_nan < 2; with_nan++) {
                unsigned char e[32 * 8], *bytes = (unsigned char *)in;
                const size_t ne = tu_edges(type, e);
                for (size_t i = 0; i < n; i++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    const uint64_t r = i % 7 == 0 ? 0 : x; /* repeats */
                    memcpy(bytes + i * w, i % 5 == 0 ? e + (i / 5 % ne) * w : (const unsigned char *)&r, w);
                    if (!with_nan && tu_code_of(type, bytes + i * w) == (w == 4 ? 0xffffffffull : ~0ull) &&
                        (type == CLQSORT_KEY_FLOAT || type == CLQSORT_KEY_DOUBLE))
                        memset(bytes + i * w, 0, w); /* a NaN: +0.0 instead */
                }
                memcpy(out, in, n * w);
                tu_sort_typed(type, desc, out, n);
                const unsigned char *o = (const unsigned char *)out;
                size_t bad = n;
                for (size_t i = 1; i < n && bad == n; i++) {
                    const uint64_t p = tu_code_of(type, o + (i - 1) * w), c = tu_code_of(type, o + i * w);
                    if (desc ? p < c : p > c)
                        bad = i;
                }
                CHECK(bad == n, "reference sort, %s %s: out of order at %zu", tu_type_names[t], desc ? "desc" : "asc", bad);
                for (size_t i = 0; i < n; i++) {
                    a[i] = b[i] = 0;
                    memcpy(&a[i], bytes + i * w, w), memcpy(&b[i], o + i * w, w);
                }
                qsort(a, n, 8, tu_cmp_u64), qsort(b, n, 8, tu_cmp_u64);
                CHECK(!memcmp(a, b, sizeof a), "reference sort, %s %s%s: not a permutation of its input",
                      tu_type_names[t], desc ? "desc" : "asc", with_nan ? " with NaNs" : "");
            }
        }
    }
}

int main(int argc, char **argv)
{
    int large = 0, orders = 2, root_slices_only = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--ascending"))
            orders = 1;
        else if (!strcmp(argv[a], "--large"))
            large = 1;
        else if (!strcmp(argv[a], "--root-slices"))
            root_slices_only = 1;
        else {
            fprintf(stderr, "usage: test_types [--ascending] [--large] [--root-slices]\n");
            return 2;
        }
    }
    if (root_slices_only) {
        clqsort_context *ctx = tu_create_or_die();
        clqsort_info info;
        clqsort_get_info(ctx, &info);
        const char *tuning = getenv("CLQSORT_TUNING");
        /* the kinds expected follow the info; it must follow the tuning */
        if (tuning && strstr(tuning, "float_distance=0"))
            CHECK(info.float_root_distance == 0, "CLQSORT_TUNING=%s: float_root_distance %u", tuning,
                  info.float_root_distance);
        if (tuning && strstr(tuning, "double_distance=0"))
            CHECK(info.double_root_distance == 0, "CLQSORT_TUNING=%s: double_root_distance %u", tuning,
                  info.double_root_distance);
        check_root_slices(ctx, &info, orders, 1);
        clqsort_release(ctx);
        return tu_finish("test_types --root-slices");
    }
    tu_expect_ways(&wide);
    check_reference_sort();
    clqsort_context *ctx = tu_create_or_die();
    static const size_t sizes[] = {2, 3, 17, 64, 1000, 4097, 65537, 300000};
    const size_t max_n = 300000;
    unsigned char *in = malloc(max_n * 8), *out = malloc(max_n * 8);
    char why[256];
    for (int t = 0; t < 6; t++) {
        const clqsort_key_type type = (clqsort_key_type)t;
        const size_t w = tu_width_of(type);
        for (int desc = 0; desc < orders; desc++) {
            const unsigned flags = desc ? CLQSORT_DESCENDING : 0;
            /* the edge values alone, repeated */
            unsigned char e[32 * 8];
            size_t ne = tu_edges(type, e), n = 0;
            for (; n < 200; n++)
                memcpy(in + n * w, e + ((n * 5) % ne) * w, w);
            memcpy(out, in, n * w);
            clqsort_status s = clqsort_sort_host(ctx, out, n, type, flags);
            if (s == CLQSORT_ERROR_UNSUPPORTED_TYPE && w == 8) {
                /* a device without 64-bit atomics: the refusal must say why, and nothing else is checked */
                CHECK(strstr(clqsort_last_error(ctx), "int64") != NULL, "%s: %s", tu_type_names[t], clqsort_last_error(ctx));
                printf("note: %s keys not supported by this device: %s\n", tu_type_names[t], clqsort_last_error(ctx));
                break;
            }
            CHECK(s == CLQSORT_SUCCESS, "%s edges: %s", tu_type_names[t], clqsort_last_error(ctx));
            CHECK(tu_verify_typed(type, desc, in, out, n, why, sizeof why), "%s %s edges: %s", tu_type_names[t],
                  desc ? "descending" : "ascending", why);
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                for (int d = 0; d < TU_DIST_COUNT; d++) {
                    n = sizes[si];
                    if (n > 5000 && !large && d != TU_UNIFORM && d != TU_FEW_2 && d != TU_SORTED)
                        continue;
                    tu_generate_typed(type, (tu_dist)d, in, n, 1000 * t + 10 * d + si);
                    memcpy(out, in, n * w);
                    s = clqsort_sort_host(ctx, out, n, type, flags);
                    CHECK(s == CLQSORT_SUCCESS, "%s n=%zu %s: %s", tu_type_names[t], n, tu_dist_name((tu_dist)d),
                          clqsort_last_error(ctx));
                    check_ways(ctx, n, tu_type_names[t]);
                    CHECK(tu_verify_typed(type, desc, in, out, n, why, sizeof why), "%s %s n=%zu %s: %s", tu_type_names[t],
                          desc ? "descending" : "ascending", n, tu_dist_name((tu_dist)d), why);
                }
            }
        }
    }
    /* key-value sorts: every type with 4-byte values, and 8-byte values for a 32- and a 64-bit
     * type, both orders; sizes around the phase-two limit and above it */
    static const size_t pair_sizes[] = {2, 5, 300, 1500, 5000, 70000};
    for (int t = 0; t < 6; t++) {
        const clqsort_key_type type = (clqsort_key_type)t;
        for (size_t vs = 4; vs <= 8; vs += 4) {
            if (vs == 8 && type != CLQSORT_KEY_FLOAT && type != CLQSORT_KEY_INT64)
                continue;
            for (int desc = 0; desc < orders; desc++)
                for (size_t si = 0; si < sizeof pair_sizes / sizeof pair_sizes[0]; si++)
                    for (int d = 0; d < TU_DIST_COUNT; d++) {
                        const size_t n = pair_sizes[si];
                        if (n > 2000 && d != TU_UNIFORM && d != TU_FEW_2 && d != TU_ALL_EQUAL && d != TU_MANY_DUPLICATES)
                            continue;
                        char what[96];
                        snprintf(what, sizeof what, "%s n=%zu %s", desc ? "descending" : "ascending", n,
                                 tu_dist_name((tu_dist)d));
                        tu_generate_typed(type, (tu_dist)d, in, n, 77 * t + d + si);
                        check_pairs(ctx, type, desc, vs, in, n, what);
                    }
        }
    }
    check_pairs_refusals(ctx);
    clqsort_info info;
    clqsort_get_info(ctx, &info);
    check_root_slices(ctx, &info, orders, 0);

    /* host-array errors */
    CHECK(clqsort_sort_host(ctx, NULL, 10, CLQSORT_KEY_UINT32, 0) == CLQSORT_ERROR_NULL_BUFFER, "NULL host array");
    CHECK(clqsort_sort_host(NULL, in, 10, CLQSORT_KEY_UINT32, 0) == CLQSORT_ERROR_NULL_CONTEXT, "NULL context");
    memcpy(out, in, 40);
    CHECK(clqsort_sort_host(ctx, out, 10, (clqsort_key_type)9, 0) == CLQSORT_ERROR_INVALID_ARGUMENT && !memcmp(out, in, 40),
          "bad type: status and unchanged array");
    CHECK(clqsort_sort_host(ctx, out, 10, CLQSORT_KEY_UINT32, 0x40) == CLQSORT_ERROR_INVALID_ARGUMENT && !memcmp(out, in, 40),
          "bad flags: status and unchanged array");
    free(in);
    free(out);
    clqsort_release(ctx);
    return tu_finish("test_types");
}
