/* tuning.c - launch shapes per device: a small table, then the device's own limits. */
#include "clqsort_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned clq_key_bytes(clqsort_key_type type)
{
    return type == CLQSORT_KEY_UINT64 || type == CLQSORT_KEY_INT64 || type == CLQSORT_KEY_DOUBLE ? 8u : 4u;
}

unsigned clq_code_bits(clqsort_key_type type) { return 8u * clq_key_bytes(type); }

typedef struct tuning_entry {
    cl_device_type type;  /* CL_DEVICE_TYPE_ALL matches any */
    const char *vendor;   /* substring of the platform vendor, lower case; "" matches any */
    clq_tuning t;
} tuning_entry;

/* First match wins. Sizes are for 4-byte keys; fit_to_device() shrinks them where local memory
 * or work-group limits demand (8-byte keys, small devices). Each field's meaning: clq_tuning in
 * clqsort_internal.h.
 * small_tiles: a sort of one tile (at most lq_max keys) is one launch wherever the tile path
 * runs; more tiles trade phase one's launches for a merge that ranks each key in every other
 * tile (H200: 16, see docs/PERFORMANCE.md "The tile path"). seg_net: segments of 17 .. 64 keys
 * by cl/segnet.cl's network, exchanging through local memory (1) or PTX shuffles (2); CPUs
 * keep phase two's ranking (groups of one work-item). */
static const tuning_entry table[] = {
    /* NVIDIA: 48 KiB local memory per group; phase two holds 2 x 4096 keys. A partial sort counts
     * with 5 groups per compute unit, as many as hold select_hist_kernel's 48 registers a
     * work-item at once (ptxas on the PTX of NVIDIA's OpenCL, call 276), so its first level runs
     * in one wave: over 2^26 keys it took 0.078-0.087 ms with 4 against 0.082-0.086 with 8 (1.6
     * waves) and 0.091-0.094 with 6 (H200, call 276); k = 16 / 1024 / 65536 in 0.182 / 0.188 /
     * 0.222 ms with 5 against 0.187 / 0.197 / 0.234 with 8 (call 278). 8 had been chosen against
     * 16 (0.186 / 0.307 / 0.408 ms against 0.192 / 0.323 / 0.424, call 90).
     * wide 15: sorts of 15/16 x 2^28 uint32 keys and more split 512 ways, in 2 levels instead of 3:
     * 2^28 in 6.57 ms against 7.89 (H200, call 189); 2^27 and 3 x 2^26 were faster with 256
     * (2.98 and 4.26 ms against 3.22 and 4.85, call 190). The same rule for 8- to 16-byte
     * elements (their lq_max is smaller, so they widen sooner): uint64 2^27 5.24 ms against 6.29,
     * double 2^27 5.69 against 6.80 (call 196), uint32 + 8-byte values 2^26 4.34 against 4.61;
     * uint64 2^26 stays (2.66 wide, 2.49 not; call 193). One level down, 4-byte keys from
     * 15/16 x 2^20 to 15/8 x 2^20 (fewer with values): uint32 2^20 in 0.119 ms against 0.131
     * (call 206; clq_tuning_of_sort). gq_split_values: uint32 + 8-byte values in blocks of 4096
     * keys, 2^26 in 3.29 ms against 4.18 with blocks of 2048 (call 235). gq_count_copies 4:
     * uint32 2^26 sawtooth keys in 1.556-1.568 ms against 1.754-1.760 with one copy, sorted
     * 1.578-1.591 against 1.690-1.697, uniform 1.563-1.564 against 1.551-1.564 (call 252; 8
     * copies: sawtooth 1.479, uniform 1.571, one round). Other GPUs keep one copy: unmeasured.
     * gq_rank_copies 4 with root_lead, measured together in one binary against neither (call
     * 254, median of 5): uint32 2^26 uniform 1.601 ms against 1.621, sorted 1.430 against 1.636,
     * sawtooth 1.489 against 1.621, many-duplicates 1.597 against 1.652, bucket and staggered
     * 1.647 and 1.640 against 1.569 and 1.579; 2^24 faster on all six keys measured (bucket
     * 0.471 against 0.520, sorted 0.447 against 0.506). Their sum over 13 inputs at 2^26:
     * 16.48 ms against 17.09, the slowest 1.647 against 1.652. float_distance 0: with the
     * distance's slices in the kernels, 2^26 uniform floats took 1.741-1.743 ms against
     * 1.682-1.692 without (the root's sort pass 0.373 against 0.346 ms, the next level's 0.287
     * against 0.277; H200, call 261, one binary each, in turn), which the float target (1.1x
     * uint32) cannot afford, and power-law floats are within 1.3x of uniform ones without them
     * (2^26: 2.155 ms, call 259). double_distance 1: uniform doubles pay 1.6 % (2^26 2.824 ms
     * against 2.780, call 265), but power-law doubles take 3 levels instead of 5-6, 1.04x
     * uniform instead of 1.62x at 2^24 and 1.31x instead of 1.67x at 2^26, and few-2 doubles at
     * 2^24 1.23x instead of 1.33x (same call). gq_quads 4: the count pass in 16-byte loads, four in
     * flight, took the two count passes of 2^26 uint32 keys from 0.321-0.323 ms to 0.287-0.289
     * (2 in flight: 0.297-0.301), the sort 1.487-1.496 ms against 1.512-1.551, and every
     * distribution at 2^24 1-10 % less (H200, calls 303-304; 8 in flight: 1.553-1.557); the sort
     * pass in 16-byte loads was slower (0.589-0.594 ms against 0.571-0.576, call 305). Other GPUs
     * keep one key a load: unmeasured. */
    {CL_DEVICE_TYPE_GPU, "nvidia",
     {.gq_wg = 256, .gq_k = 16, .gq_ways = 256, .gq_count_k = 64, .lq_wg = 256, .lq_ways = 512, .lq_max = 4096,
      .lq_small = 32, .fill_chunk = 16384, .rl_wg = 256, .groups_per_cu = 16, .extra_levels = 1,
      .select_slack = 65536, .select_groups_per_cu = 5, .small_tiles = 16, .seg_net = 2, .wide = 15,
      .level_margin = 0, .gq_split_values = 1, .gq_count_copies = 4, .gq_rank_copies = 4, .root_lead = 1,
      .float_distance = 0, .double_distance = 1, .gq_quads = 4}},
    {CL_DEVICE_TYPE_GPU, "",
     {.gq_wg = 256, .gq_k = 8, .gq_ways = 256, .gq_count_k = 32, .lq_wg = 256, .lq_ways = 256, .lq_max = 2048,
      .lq_small = 32, .fill_chunk = 16384, .rl_wg = 256, .groups_per_cu = 8, .extra_levels = 1,
      .select_slack = 65536, .select_groups_per_cu = 8, .small_tiles = 1, .seg_net = 1, .level_margin = 64,
      .float_distance = 1, .double_distance = 1}},
    /* CPUs: a work-group runs on one core, so both phases run best as one work-item per group,
     * counting with plain increments instead of local atomics. pocl 3.1, 2 cores, 2^22 keys:
     * 60 ms (16-item groups in phase one: 172 ms). Intel's CPU runtime 2026.2, same cores:
     * 2^24 keys in 345 ms (device enqueue) and 353 ms (host loop); its vectorized 64-item
     * groups took 1527 and 646 ms, and at 2^20 103 and 29 ms instead of 18 and 16. CPUs take
     * one level of 2048 ways where 64 would take two (one_level: clq_tuning_of_sort): pocl 2^22
     * in 38.1 ms against 58.5; Intel's runtime lets the relauncher of those programs run 32
     * work-items through the host loop, so it is built at 32 there (program.c, fit_kernel). */
    {CL_DEVICE_TYPE_CPU, "",
     {.gq_wg = 1, .gq_k = 2048, .gq_ways = 64, .gq_count_k = 16384, .lq_wg = 1, .lq_ways = 512, .lq_max = 4096,
      .lq_small = 32, .fill_chunk = 16384, .rl_wg = 64, .groups_per_cu = 8, .extra_levels = 1,
      .select_slack = 65536, .select_groups_per_cu = 8, .small_tiles = 1, .seg_net = 0, .level_margin = 64,
      .one_level = 2048, .float_distance = 1, .double_distance = 1}},
    {CL_DEVICE_TYPE_ALL, "",
     {.gq_wg = 64, .gq_k = 8, .gq_ways = 64, .gq_count_k = 16, .lq_wg = 64, .lq_ways = 128, .lq_max = 1024,
      .lq_small = 32, .fill_chunk = 8192, .rl_wg = 64, .groups_per_cu = 4, .extra_levels = 1, .select_slack = 65536,
      .select_groups_per_cu = 4, .small_tiles = 1, .seg_net = 1, .level_margin = 64,
      .float_distance = 1, .double_distance = 1}},
};

static int vendor_matches(const char *vendor, const char *want)
{
    if (!*want)
        return 1;
    char low[256];
    size_t i = 0;
    for (; vendor[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)vendor[i]);
    low[i] = 0;
    return strstr(low, want) != NULL;
}

unsigned clq_floor_pow2(size_t v)
{
    unsigned p = 1;
    while ((size_t)p * 2 <= v && p < (1u << 30))
        p *= 2;
    return p;
}

unsigned clq_gq_value_parts(const clq_tuning *t, unsigned elem_bytes)
{
    const unsigned key_bytes = elem_bytes - t->value_bytes;
    return t->gq_split_values && t->gq_wg > 1 && t->value_bytes > key_bytes ? t->value_bytes / key_bytes : 1u;
}

/* gqcount_kernel's local memory (gqsort.cl), codes <= 8 bytes: per bucket five uints and two
 * codes, and a uint and two codes in each further copy with a pad (gq_count_copies); the scan
 * takes two uints per work-item; the table of sequences */
static cl_ulong gq_count_local_bytes(const clq_tuning *t)
{
    const cl_ulong seqs = 4ull * CLQ_SEQ_TABLE;
    const cl_ulong cells = t->gq_wg == 1 ? 24ull * t->gq_ways : 0u; /* a group of one: clq_count_cell */
    const cl_ulong copies = (cl_ulong)(t->gq_count_copies - 1u) * (t->gq_ways + 1u) * (4 + 2 * 8);
    return (cl_ulong)t->gq_ways * (5 * 4 + 2 * 8) + copies + cells + 8ull * t->gq_wg + seqs + 64;
}

/* gqsort_kernel's local memory (gqsort.cl): the staged block; per bucket a count and a target,
 * and a count in each further copy with a pad (gq_rank_copies); the scan; the table of
 * sequences */
static cl_ulong gq_sort_local_bytes(const clq_tuning *t, unsigned kb)
{
    const cl_ulong seqs = 4ull * CLQ_SEQ_TABLE;
    const cl_ulong staged = kb - t->value_bytes + t->value_bytes / clq_gq_value_parts(t, kb); /* per key */
    const cl_ulong copies = 4ull * (t->gq_rank_copies - 1u) * (t->gq_ways + 1u);
    return (cl_ulong)t->gq_wg * t->gq_k * staged + 8ull * t->gq_ways + copies + 8ull * t->gq_wg + seqs + 64;
}

/* the larger of gqcount_kernel's and gqsort_kernel's local memory (gqsort.cl), codes <= 8 bytes */
static cl_ulong gq_local_bytes(const clq_tuning *t, unsigned kb)
{
    const cl_ulong count = gq_count_local_bytes(t), sort = gq_sort_local_bytes(t, kb);
    return count > sort ? count : sort;
}

/* lqsort_kernel's local memory (lqsort.cl): two buffers, the stack, the bucket counters (at least
 * 2 * lq_wg words: CLQ_LQ_CELLS) and the scan's run totals; and tilesort_kernel's (tiles.cl): the
 * same and two codes per work-item */
static cl_ulong lq_local_bytes(const clq_tuning *t, unsigned kb)
{
    const cl_ulong stack = t->lq_max / (t->lq_small + 1) + 1;
    const cl_ulong cells = t->lq_ways > 2ull * t->lq_wg ? t->lq_ways : 2ull * t->lq_wg;
    const cl_ulong runs = t->lq_wg < 32 ? t->lq_wg : 32; /* CLQ_LQ_RUNS */
    return 2ull * t->lq_max * kb + stack * (2 * 8 + 3 * 4) + 4 * cells + 4 * (runs + 1) + 16ull * t->lq_wg + 64;
}

/* relauncher_kernel's local memory (relauncher.cl): the scan; for the root's slices, its
 * sample's counts per bucket two ways and two floats per work-item */
static cl_ulong rl_local_bytes(const clq_tuning *t)
{
    return 8ull * t->rl_wg + 8ull * t->gq_ways + 8ull * t->rl_wg + 64;
}

/* segemit_kernel's local memory (segments.cl): the relauncher's scan, and for the network
 * (segnet.cl) a list of segments, one uint per work-item and its count; with seg_net 1,
 * CLQ_NET_MAX / CLQ_NET_T keys per work-item too */
static cl_ulong net_local_bytes(const clq_tuning *t, unsigned kb)
{
    const cl_ulong keys = t->seg_net == 1 ? (cl_ulong)t->gq_wg * (CLQ_NET_MAX / CLQ_NET_T) * kb : 8u;
    return keys + 4ull * t->gq_wg + 8ull * t->gq_wg + 64;
}

unsigned *clq_work_group_of(clq_tuning *t, int phase)
{
    return phase == 2 ? &t->rl_wg : phase == 3 ? &t->lq_wg : &t->gq_wg; /* segments, tile merge: gq_wg */
}

cl_ulong clq_local_bytes(const clq_tuning *t, unsigned elem_bytes, int phase)
{
    if (phase == 4 || phase == 6)
        return 64; /* segcheck_kernel and clear_kernel declare no local memory */
    if (phase == 7)
        return net_local_bytes(t, elem_bytes);
    if (phase == 5) /* tilemerge_kernel (tiles.cl): lq_max keys, three words per tile, one per work-item */
        return (cl_ulong)t->lq_max * elem_bytes + 3 * 4 * CLQ_TILES_MAX + 4ull * t->gq_wg + 64;
    return phase == 2 ? rl_local_bytes(t) : phase == 3 ? lq_local_bytes(t, elem_bytes) : gq_local_bytes(t, elem_bytes);
}

/* The most local memory of a selection's kernels (select.cl): CLQ_SEL_BINS counts or the
 * one-group sort's CLQ_SEL_SORT_MAX composites in the same space; beside them a level's stage of
 * composites or the one-group sort's marks (a byte each) and holes (a word each); the scan, a
 * few words. */
cl_ulong clq_select_local_bytes(const clq_tuning *t)
{
    const cl_ulong bins = 4ull * CLQ_SEL_BINS, keys = 8ull * CLQ_SEL_SORT_MAX;
    const cl_ulong stage = 8ull * CLQ_SEL_KEEP_STAGE, placement = 5ull * CLQ_SEL_SORT_MAX;
    return (bins > keys ? bins : keys) + (stage > placement ? stage : placement) + 8ull * t->gq_wg + 64;
}

cl_ulong clq_device_local_bytes(const clqsort_context *ctx)
{
    return ctx->local_mem_size ? ctx->local_mem_size : 32768u; /* OpenCL's minimum for a GPU */
}

/* Copies of a pass's counters (gq_count_copies, gq_rank_copies): 1 to the group's work-items,
 * and 1 in a group of one (gqsort.cl, CLQ_GQ_COPY_AT). */
static void fit_copies(unsigned *copies, unsigned wg)
{
    if (*copies < 1 || wg == 1)
        *copies = 1;
    if (*copies > wg)
        *copies = wg;
}

/* Keeps the shape inside the device's limits and the kernels' invariants. */
static void fit_to_device(const clqsort_context *ctx, unsigned kb, clq_tuning *t)
{
    const unsigned max_wg = clq_floor_pow2(ctx->max_work_group_size ? ctx->max_work_group_size : 1);
    if (t->gq_wg > max_wg)
        t->gq_wg = max_wg;
    if (t->lq_wg > max_wg)
        t->lq_wg = max_wg;
    if (t->rl_wg > max_wg)
        t->rl_wg = max_wg;
    if (t->gq_count_k < 1)
        t->gq_count_k = 1;
    if ((cl_ulong)t->gq_wg * t->gq_count_k > (1u << 24))
        t->gq_count_k = (1u << 24) / t->gq_wg;
    fit_copies(&t->gq_count_copies, t->gq_wg);
    fit_copies(&t->gq_rank_copies, t->gq_wg);
    if (t->gq_ways < 2)
        t->gq_ways = 2;
    if (t->gq_ways > 4096)
        t->gq_ways = 4096;
    /* a block is staged in local memory: at most 32768 keys */
    while ((cl_ulong)t->gq_wg * t->gq_k > 32768u && t->gq_k > 1)
        t->gq_k /= 2;
    if (t->lq_max > 32768u)
        t->lq_max = 32768u;
    const cl_ulong local = clq_device_local_bytes(ctx);
    while (gq_count_local_bytes(t) > local && t->gq_count_copies > 1)
        t->gq_count_copies /= 2;
    while (gq_sort_local_bytes(t, kb) > local && t->gq_rank_copies > 1)
        t->gq_rank_copies /= 2;
    while (gq_local_bytes(t, kb) > local && t->gq_k > 1)
        t->gq_k /= 2;
    while (gq_local_bytes(t, kb) > local && t->gq_ways > 2)
        t->gq_ways /= 2;
    while (lq_local_bytes(t, kb) > local && t->lq_max > 2)
        t->lq_max /= 2;
    while (lq_local_bytes(t, kb) > local && t->lq_ways > 2)
        t->lq_ways /= 2;
    while (rl_local_bytes(t) > local && t->rl_wg > 1)
        t->rl_wg /= 2;
    if (t->lq_ways < 2)
        t->lq_ways = 2;
    if (t->lq_ways > 4096)
        t->lq_ways = 4096;
    if (t->lq_small < 1)
        t->lq_small = 1;
    if (t->fill_chunk < 1)
        t->fill_chunk = 1;
    if (t->groups_per_cu < 1)
        t->groups_per_cu = 1;
    if (t->select_groups_per_cu < 1)
        t->select_groups_per_cu = 1;
    if (t->extra_levels > 64)
        t->extra_levels = 64;
    if (t->level_margin > 64)
        t->level_margin = 64;
    if (t->small_tiles > CLQ_TILES_MAX)
        t->small_tiles = CLQ_TILES_MAX;
    if (t->seg_net == 2 && !ctx->has_ptx_shuffles)
        t->seg_net = 1;
    if (t->gq_wg < CLQ_NET_T || net_local_bytes(t, kb) > local)
        t->seg_net = 0;
}

unsigned clq_levels(const clq_tuning *t, unsigned code_bits, int floats, size_t count)
{
    if (count <= t->lq_max)
        return 0; /* the root goes to phase two */
    unsigned ways_log2 = 0;
    while ((2u << ways_log2) <= t->gq_ways)
        ways_log2++;
    /* The spare levels let the first split follow the length instead of the depth bound (or
     * take root slices: relauncher.cl). A sort short enough to split into fewer than gq_ways
     * buckets by length is better off with all of them at once: every level it need not
     * enqueue saves two launches. Float and double sorts (`floats`: those that may take root
     * slices, not segmented ones) take one more with any: after a root in value slices, a
     * sequence may take value slices too only where the levels after it can take its whole
     * range (relauncher.cl), and the one more lets that hold at level 2 for a range of the
     * code's full width (the root's bucket that holds zero, which spans every exponent below
     * its ends). */
    const int spare = (cl_ulong)count / (t->lq_max / 2 ? t->lq_max / 2 : 1) >= t->gq_ways;
    const unsigned extra = spare && t->extra_levels ? t->extra_levels + (floats ? 1u : 0u) : 0u;
    return (code_bits + ways_log2 - 1) / ways_log2 + extra;
}

unsigned clq_first_levels(const clq_tuning *t, size_t count, unsigned levels)
{
    /* relauncher.cl's split by length (clq_ways_log2): about lq_max / 2 keys a bucket, at most
     * gq_ways buckets; a bucket above 3/4 of lq_max counts as one that takes another level */
    if (count <= t->lq_max)
        return 0;
    const size_t half = t->lq_max / 2 ? t->lq_max / 2 : 1;
    unsigned need = 0;
    for (size_t len = count; len > t->lq_max / 4 * 3 && need < levels; need++) {
        const size_t parts = (len - 1) / half + 1;
        unsigned ways = 2;
        while (ways < parts && ways < t->gq_ways)
            ways *= 2;
        len = (len + ways - 1) / ways;
    }
    return need + t->level_margin < levels ? need + t->level_margin : levels;
}

void clq_tuning_for_device(const clqsort_context *ctx, unsigned elem_bytes, unsigned value_bytes, clq_tuning *out)
{
    const size_t n = sizeof table / sizeof table[0];
    size_t i = 0;
    for (; i + 1 < n; i++)
        if ((table[i].type == CL_DEVICE_TYPE_ALL || (ctx->device_type & table[i].type)) &&
            vendor_matches(ctx->platform_vendor, table[i].vendor))
            break;
    *out = table[i].t;
    out->value_bytes = value_bytes;
    /* the same local memory holds fewer keys when they are wider or carry values */
    out->lq_max = clq_floor_pow2((size_t)out->lq_max * 4 / elem_bytes);
    /* the count pass's copies for 4-byte keys only: uint64 2^26 took 2.557 ms with 4 copies
     * against 2.470 with one, double 2.886 against 2.789 (H200, call 253); the rank copies and
     * the lead too: uint64 and double moved by less than 1 % with them (call 255) */
    if (elem_bytes - value_bytes > 4u) {
        out->gq_count_copies = 1;
        out->gq_rank_copies = 1;
        out->root_lead = 0;
    }
    fit_to_device(ctx, elem_bytes, out);
    /* the spread path's groups draw 1024 samples in all where lq_max allows (cl/tiles.cl), 16 a
     * group or more where small_tiles is 16 or less: with a quarter of lq_max a group on average,
     * one of uniform keys overflows its local memory about once in 10^13 (a sum of 16
     * exponential gaps past 4 times its mean); with half of it, about once in 3000 */
    if (out->spread > out->lq_max / 4)
        out->spread = out->lq_max / 4;
}

static int is_pow2(unsigned v) { return v && !(v & (v - 1)); }

/* CLQSORT_TUNING="gq_wg=64,gq_k=4,lq_max=256,...": overrides for tests and tuning runs, applied
 * over the table's entry and then fitted to the device like it. */
clqsort_status clq_tuning_from_env(clqsort_context *ctx, unsigned elem_bytes, clq_tuning *t)
{
    const char *env = getenv("CLQSORT_TUNING");
    if (!env || !*env)
        return CLQSORT_SUCCESS;
    /* pow2 1: a power of two; 0: 1..2^20; -1: 0 allowed too; -2: a switch, 0 or 1 */
    struct { const char *name; unsigned *field; int pow2; } fields[] = {
        {"gq_wg", &t->gq_wg, 1},         {"gq_k", &t->gq_k, 0},
        {"gq_split_values", &t->gq_split_values, -2},
        {"gq_ways", &t->gq_ways, 1},     {"gq_count_k", &t->gq_count_k, 0},
        {"gq_quads", &t->gq_quads, -1},
        {"gq_count_copies", &t->gq_count_copies, 1}, {"gq_rank_copies", &t->gq_rank_copies, 1},
        {"root_lead", &t->root_lead, -2}, {"float_distance", &t->float_distance, -2},
        {"double_distance", &t->double_distance, -2},
        {"lq_wg", &t->lq_wg, 1},
        {"lq_ways", &t->lq_ways, 1},     {"lq_max", &t->lq_max, 0},
        {"lq_small", &t->lq_small, 0},   {"fill_chunk", &t->fill_chunk, 0},
        {"rl_wg", &t->rl_wg, 1},         {"groups_per_cu", &t->groups_per_cu, 0},
        {"extra_levels", &t->extra_levels, -1}, {"select_slack", &t->select_slack, -1},
        {"select_groups_per_cu", &t->select_groups_per_cu, 0}, {"small_tiles", &t->small_tiles, -1},
        {"spread", &t->spread, -1},
        {"seg_net", &t->seg_net, -1},    {"wide", &t->wide, -1},
        {"level_margin", &t->level_margin, -1}, {"one_level", &t->one_level, -1},
    };
    const char *p = env;
    while (*p) {
        const char *eq = strchr(p, '=');
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        if (!eq || eq > end)
            return clq_fail(ctx, CLQSORT_ERROR_INVALID_OPTION, "CLQSORT_TUNING=\"%s\": expected name=value,...", env);
        size_t i = 0, nf = sizeof fields / sizeof fields[0];
        for (; i < nf; i++)
            if (strlen(fields[i].name) == (size_t)(eq - p) && !strncmp(p, fields[i].name, (size_t)(eq - p)))
                break;
        char *stop;
        unsigned long v = strtoul(eq + 1, &stop, 10);
        if (i == nf || stop != end || (v == 0 && fields[i].pow2 >= 0) || v > (1ul << 20) ||
            (fields[i].pow2 > 0 && !is_pow2((unsigned)v)))
            return clq_fail(ctx, CLQSORT_ERROR_INVALID_OPTION,
                            "CLQSORT_TUNING=\"%s\": unknown name or bad value near \"%.*s\" (work-group "
                            "sizes are powers of two, values 1..2^20)",
                            env, (int)(end - p), p);
        if (fields[i].field == &t->one_level && v && !is_pow2((unsigned)v))
            return clq_fail(ctx, CLQSORT_ERROR_INVALID_OPTION, "CLQSORT_TUNING=\"%s\": one_level is 0 or a power of two", env);
        if (fields[i].pow2 == -2 && v > 1)
            return clq_fail(ctx, CLQSORT_ERROR_INVALID_OPTION, "CLQSORT_TUNING=\"%s\": %s is 0 or 1", env, fields[i].name);
        if (fields[i].field == &t->gq_quads && v > 16)
            return clq_fail(ctx, CLQSORT_ERROR_INVALID_OPTION, "CLQSORT_TUNING=\"%s\": gq_quads is 0 to 16", env);
        if (fields[i].field == &t->seg_net && v > 2)
            return clq_fail(ctx, CLQSORT_ERROR_INVALID_OPTION,
                            "CLQSORT_TUNING=\"%s\": seg_net is 0 (off), 1 (local memory) or 2 (PTX shuffles)", env);
        *fields[i].field = (unsigned)v;
        p = *end ? end + 1 : end;
    }
    fit_to_device(ctx, elem_bytes, t);
    return CLQSORT_SUCCESS;
}

clqsort_status clq_tuning_of(clqsort_context *ctx, clqsort_key_type type, unsigned value_bytes, clq_tuning *t)
{
    const unsigned elem_bytes = clq_key_bytes(type) + value_bytes;
    clq_tuning_for_device(ctx, elem_bytes, value_bytes, t);
    CLQ_TRY(clq_tuning_from_env(ctx, elem_bytes, t));
    if (value_bytes && clq_key_bytes(type) == 8)
        t->seg_net = 0; /* with values the network sorts (code, position) in 64 bits: 4-byte keys */
    return CLQSORT_SUCCESS;
}

int clq_tuning_widen(const clqsort_context *ctx, unsigned elem_bytes, clq_tuning *t)
{
    clq_tuning w = *t;
    w.gq_ways = t->one_level ? t->one_level : 2 * t->gq_ways;
    /* one copy of the count pass's counters, as every widened sort was measured: 4 copies of 512
     * ways do not fit NVIDIA's 48 KiB by gq_count_local_bytes, and when the fit halved them the
     * widening was refused (uint32 + 8-byte values 2^26: 4.344 ms against 3.306, H200, call 253) */
    w.gq_count_copies = 1;
    if (t->one_level) {
        w.gq_k = 8 * t->one_level / t->gq_wg ? 8 * t->one_level / t->gq_wg : 1u;
        w.gq_count_k = 32 * t->one_level / t->gq_wg ? 32 * t->one_level / t->gq_wg : 1u;
    }
    const clq_tuning want = w;
    fit_to_device(ctx, elem_bytes, &w);
    clq_tuning rest = w;
    rest.gq_ways = t->gq_ways;
    rest.gq_k = t->gq_k;
    rest.gq_count_k = t->gq_count_k;
    rest.gq_count_copies = t->gq_count_copies;
    rest.gq_rank_copies = t->gq_rank_copies; /* fewer where twice the ways leave less room */
    if (w.gq_ways != want.gq_ways || w.gq_k != want.gq_k || memcmp(&rest, t, sizeof rest))
        return 0;
    *t = w;
    return 1;
}

clqsort_status clq_tuning_of_sort(clqsort_context *ctx, clqsort_key_type type, unsigned value_bytes, size_t count,
                                  int plain, clq_tuning *t, int *wide)
{
    CLQ_TRY(clq_tuning_of(ctx, type, value_bytes, t));
    /* L levels of gq_ways leave count / gq_ways^L keys per bucket on average; from wide / 16 of
     * lq_max on, enough buckets outgrow phase two that one more level runs. lq_max is the
     * element's own (wider keys and values: fewer), so the rule serves every key and value size.
     * - A third level (L = 2): uint32 2^28 took 3 levels with 256 ways and 2 with 512 (H200),
     *   uint64 2^27 the same; 2^27 and 2^26 took 2 either way and were faster with 256.
     * - A second level (L = 1), for 4-byte keys, up to where 2 x gq_ways need one as well, and
     *   past small_tiles x lq_max keys, which the host loop sorts on the tile path without phase
     *   one (sort.c, scratch_requests); the bound holds on both paths, so they pick the same program
     *   for the same count. With 512 ways (H200) uint32 from 2^20 to 1.75 x 2^20 took
     *   0.79-0.91 of the time, uint32 + 4-byte values 0.82-0.89, uint32 + 8-byte values 0.70-0.84
     *   (call 206); uint64 took 1.01-1.21 in its window (calls 203-204). */
    const unsigned elem_bytes = clq_key_bytes(type) + value_bytes;
    const cl_ulong c16 = (cl_ulong)count * 16u, one = (cl_ulong)t->gq_ways * t->lq_max * t->wide;
    const int third = c16 >= one * t->gq_ways;
    const int second = clq_key_bytes(type) == 4 && c16 >= one && c16 < 2u * one &&
                       count > (size_t)t->small_tiles * t->lq_max;
    /* - One level on CPUs (one_level): a split into 2048 buckets, in blocks of 16384 keys, where
     *   64 took two levels, sorted 2^22 uint32 keys in 38.1 ms against 58.5 on pocl (2 cores,
     *   median of 6 rounds in turn), 2^18 and 2^20 in 0.55-0.88 of the time, and in 43.0 against
     *   51.5 on Intel's CPU runtime (host loop, median of 3 rounds); where 2048 ways still took
     *   two levels (2^24 keys, or 2^22 with values) they were slower than 64 in two or three
     *   (docs/PERFORMANCE.md, "One level on pocl"). */
    const size_t half = t->lq_max / 2;
    const int one_level = count > (size_t)t->gq_ways * half && count <= (size_t)t->one_level * half;
    *wide = plain && (t->one_level ? one_level : t->wide && (third || second)) && clq_tuning_widen(ctx, elem_bytes, t);
    return CLQSORT_SUCCESS;
}
