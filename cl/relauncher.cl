/*
 * relauncher.cl - the bookkeeping between phase-one passes, run by one work-group.
 *
 * The count pass of a level (gqcount_kernel) appends the children that still need phase one to
 * the next work list (and the short ones to the phase-two list). The last work-group of the
 * level's sort pass (gqsort_kernel) then runs clq_relauncher_body, which turns that list into
 * the current one: it cuts every sequence into count units and blocks and gives it
 * its buckets in the pool (scans of the unit, block and bucket counts give each sequence its
 * first unit, block and bucket), resets the sequence's tickets and publishes the sequence, unit
 * and block counts for the next level.
 * relauncher_kernel runs it once per sort, with `init` set: it first emits the root sequence of
 * status[CLQ_ST_COUNT] keys (clq_keys_to_sort). A segmented sort has no relauncher_kernel:
 * segcheck_kernel emitted its roots, and segemit_kernel's last group runs the body with `init`
 * (segments.cl).
 *
 * The host loop enqueues every level at once and reads the status words once, after phase two.
 * On the OpenCL 2.0 path the body also launches the next kernel itself (gqcount_kernel over all
 * count units, or lqsort_kernel once no long sequence is left), so the recursion stays on the
 * device.
 */

/* Bits a split must take off a sequence of len keys to leave parts of at most `size` keys (as
 * uniform keys split): the least b with len <= 2^b size. */
inline uint clq_bits_to(uint len, uint size)
{
    const uint parts = (len - 1u) / max(size, 1u) + 1u;
    return parts > 1u ? 32u - (uint)clz(parts - 1u) : 0u; /* up to 32: no shift of 1u by 32 */
}

/* The levels code slices keep to: the sort's status[CLQ_ST_MAX_LEVELS] less the one that float
 * and double sorts have only for value slices after the root (CLQ_ST_VALUE_LEVELS; clq_levels in
 * src/tuning.c). A sequence whose keys crowd (zeros below values spread in [0, x)) split into
 * more ways that way, and splitting into more ways than the bound asks never breaks it. */
inline uint clq_code_levels(__global const uint *status)
{
    const uint levels = status[CLQ_ST_MAX_LEVELS];
    return levels - min(status[CLQ_ST_VALUE_LEVELS], levels);
}

/* Buckets for a sequence of len > CLQ_LQ_MAX keys whose codes span `width` + 1 values, split at
 * phase-one level `level` (1 for the root) of a sort of at most `levels` levels
 * (status[CLQ_ST_MAX_LEVELS], at least ceil(CLQ_CODE_BITS / CLQ_GQ_WAYS_LOG2)): 2^w of them,
 * 1 <= w <= CLQ_GQ_WAYS_LOG2 and no more bits than the range has.
 * By length, enough that uniform keys leave children of about CLQ_LQ_MAX / 2 keys: all of them
 * at once where one split does it. Where it takes several (more than CLQ_LQ_MAX x CLQ_GQ_WAYS
 * keys), a split that `leads` takes only the bits that the splits after it, at
 * CLQ_GQ_WAYS_LOG2 bits each, leave over, and any other split the most it may: on an H200 a
 * segment of 2^22 keys splits 8 ways and then 256 (a few long sequences at level 2, as one sort
 * of 2^26 keys has), not 256 ways and then 8 (256 sequences of one count unit each).
 * A lead keeps the depth bound below, which it never has to raise: such a root has more than
 * CLQ_LQ_MAX x CLQ_GQ_WAYS keys, so its sort has the spare level (clq_levels in src/tuning.c)
 * wherever the tuning gives one, and the levels after the first then take the full code width.
 * By depth, at least enough bits that what is left of the range fits the levels after this one
 * at CLQ_GQ_WAYS_LOG2 bits each: a range enters level i at most CLQ_GQ_WAYS_LOG2 * (levels - i + 1)
 * bits wide (true at level 1, and kept by every split, as a child's range is narrower than
 * 2^(width bits - w): see clq_scaled_bucket; a root split into root slices keeps it because it
 * only does so when the bound holds at level 2 for the full code width,
 * clq_choose_root_slices, and a later sequence split into value slices because it only does so
 * when its own range fits the levels after it, clq_relauncher_body), so every range left after
 * level `levels` is a single code and no input needs more levels. */
inline uint clq_ways_log2(uint len, clq_code width, uint level, uint levels, uint lead)
{
    const uint b = max(clq_bits_to(len, CLQ_LQ_MAX / 2u), 1u);
    const uint splits = (clq_bits_to(len, CLQ_LQ_MAX) + CLQ_GQ_WAYS_LOG2 - 1u) / CLQ_GQ_WAYS_LOG2;
    uint w = lead && splits > 1u ? b - CLQ_GQ_WAYS_LOG2 * (splits - 1u) : b;
    w = min(w, (uint)CLQ_GQ_WAYS_LOG2);
    const uint width_bits = CLQ_CODE_BITS - (uint)clz(width);
    const uint later = CLQ_GQ_WAYS_LOG2 * (levels - min(level, levels));
    if (width_bits > later)
        w = max(w, min(width_bits - later, (uint)CLQ_GQ_WAYS_LOG2));
    return min(w, width_bits);
}

CLQ_OUT_OF_LINE void clq_relauncher_body(CLQ_BUFFER_PARAMS, __global clq_seq *lists,
                                                __global clq_bucket *pool, __global clq_leaf *leaves,
                                                __global uint *status, uint parity, uint init,
                                                __local uint *scan_tmp, uint wg)
{
    (void)pool;
    const uint lid = get_local_id(0);
    const uint seq_cap = status[CLQ_ST_SEQ_CAP];
    __global clq_seq *list = lists + (size_t)parity * seq_cap;
    const uint level = status[CLQ_ST_LEVELS] + 1u; /* the level this list is prepared for */
    const uint levels = status[CLQ_ST_MAX_LEVELS];
    const uint code_levels = clq_code_levels(status);
    /* a segmented sort's roots lead (16 segments of 2^22 keys: 1.566-1.582 ms against
     * 1.706-1.711 on an H200, calls 246-247). A plain root keeps every way here: its root slices
     * need them, and it leads only where clq_choose_root_slices keeps code slices, with
     * CLQ_ROOT_LEAD; later levels split long sequences only where keys crowd. */
    const uint lead = level == 1u && status[CLQ_ST_SEGMENTS] != 0u;

    if (init && status[CLQ_ST_SEGMENTS] == 0) { /* segmented sorts: segments.cl emitted the roots */
        const uint n = clq_keys_to_sort(status);
        if (lid == 0)
            clq_emit_child(list, leaves, status, 0, n > 1 ? n : 0, 0, CLQ_CODE_MAX, 0);
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }

    uint nseq = min(status[CLQ_ST_NEXT_SEQS], seq_cap);
    uint blocks = 0, units = 0, buckets = 0;
    for (uint base = 0; base < nseq; base += wg) {
        const uint i = base + lid;
        uint nb = 0, nu = 0, w = 0;
        if (i < nseq) {
            nb = clq_blocks_of(list[i].len);
            nu = clq_units_of(list[i].len);
            w = clq_ways_log2(list[i].len, list[i].hi - list[i].lo, level, code_levels, lead);
        }
        uint total_blocks, total_units, total_buckets;
        const uint first_block = blocks + clq_scan_exclusive(nb, &total_blocks, scan_tmp, wg);
        const uint first_unit = units + clq_scan_exclusive(nu, &total_units, scan_tmp, wg);
        const uint first_bucket = buckets + clq_scan_exclusive(i < nseq ? clq_copies_of(list[i].len) << w : 0u,
                                                                &total_buckets, scan_tmp, wg);
        if (i < nseq) {
            __global clq_seq *seq = list + i;
            const clq_code width = seq->hi - seq->lo;
            seq->first_block = first_block;
            seq->first_unit = first_unit;
            seq->bucket_base = first_bucket;
            seq->ways_log2 = w;
            seq->norm = (uint)clz(width);
            seq->scale = clq_scale_of(width, seq->norm, 1u << w);
            float vlo = 0.0f, vscale = 0.0f;
#if defined(CLQ_KEY_FLOAT) || defined(CLQ_KEY_DOUBLE)
            /* after a root that took value slices, a sequence may take them too (its keys are
             * likely spread evenly in value as well) where they take no more levels than the
             * bound leaves: its range fits the levels after this one at CLQ_GQ_WAYS_LOG2 bits
             * each, as the root's does at level 2 (clq_choose_root_slices) */
            if (level > 1u && status[CLQ_ST_ROOT_SLICES] == CLQ_SLICE_VALUE &&
                CLQ_CODE_BITS - (uint)clz(width) <= CLQ_GQ_WAYS_LOG2 * (levels - min(level, levels)))
                clq_value_slices_of(seq->lo, seq->hi, 1u << w, as_float(status[CLQ_ST_ROOT_VSCALE]), &vlo, &vscale);
            if (vscale > 0.0f)
                seq->scale = 0;
#endif
            seq->vlo = as_uint(vlo);
            seq->vscale = as_uint(vscale);
            seq->count_done = 0;
            seq->sort_done = 0;
            seq->stay = 0;
        }
        blocks += total_blocks;
        units += total_units;
        buckets += total_buckets;
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);

    if (lid == 0) {
        if (buckets > status[CLQ_ST_POOL_CAP]) { /* cannot happen: see capacities() in sort.c */
            status[CLQ_ST_ERROR] |= CLQ_ERR_POOL_OVERFLOW;
            nseq = 0;
        }
        if (nseq > 0 && ++status[CLQ_ST_LEVELS] > levels) {
            status[CLQ_ST_ERROR] |= CLQ_ERR_DEPTH; /* cannot happen: see clq_ways_log2 */
            nseq = 0;                              /* and the device-enqueue chain ends */
        }
        status[CLQ_ST_CUR_SEQS] = nseq;
        status[CLQ_ST_CUR_BLOCKS] = nseq ? blocks : 0u;
        status[CLQ_ST_CUR_UNITS] = nseq ? units : 0u;
        status[CLQ_ST_NEXT_SEQS] = 0;
#ifdef CLQ_DEVICE_ENQUEUE
        clq_enqueue_next(CLQ_BUFFER_ARGS, lists, pool, leaves, status, parity, nseq, units);
#endif
    }
}

/* Code slices or root slices (clqsort_common.h) for the root of a sort, run by the whole group
 * once the body has prepared the root. It reads CLQ_SLICE_SAMPLES codes spread evenly over the
 * root and counts them per bucket for code slices and for each kind of root slice the key type
 * has (CLQ_SLICE_UP and CLQ_SLICE_DOWN for every type but float and double keys in a program
 * built without CLQ_FLOAT_DISTANCE, CLQ_SLICE_VALUE first for those two), each kind spanning the
 * sample's finite slice values. It takes the kind whose fullest
 * bucket holds the fewest samples, if that is at most half as many as the fullest code slice;
 * where the fullest code slice holds at most 3 times its share, it tries no kind.
 * Depth: a root slice may take no bit off the code range, so the root takes them only when the
 * levels after it take CLQ_GQ_WAYS_LOG2 bits each from the full code width (the spare level,
 * clq_levels): then clq_ways_log2's bound holds from level 2 on as it does at level 1 without
 * one. */
#if defined(CLQ_KEY_FLOAT) || defined(CLQ_KEY_DOUBLE)
#define CLQ_SLICE_FIRST CLQ_SLICE_VALUE
#define CLQ_SLICE_LAST (CLQ_FLOAT_DISTANCE ? CLQ_SLICE_DOWN : CLQ_SLICE_VALUE)
#else
#define CLQ_SLICE_FIRST CLQ_SLICE_UP
#define CLQ_SLICE_LAST CLQ_SLICE_DOWN
#endif

#define CLQ_SLICE_PER_ITEM ((CLQ_SLICE_SAMPLES + CLQ_RL_WG - 1u) / CLQ_RL_WG) /* codes in registers */

typedef struct clq_slice_local {
    uint by_code[CLQ_GQ_WAYS], by_slice[CLQ_GQ_WAYS];
    float least[CLQ_RL_WG], most[CLQ_RL_WG]; /* each work-item's finite slice values */
    clq_code not_least, most_code;           /* the sample's least code (as a max of ~code) and greatest */
    float vlo, vscale;
    uint fullest_code, fullest_slice;
} clq_slice_local;

void clq_choose_root_slices(__global const clq_key *keys, __global uint *status, __global clq_seq *root,
                            __local clq_slice_local *lm)
{
    const uint lid = get_local_id(0);
    const uint n = root->len, ways = 1u << root->ways_log2;
    /* every load first, so that they are in flight together: sample i is key (i + 1/2) n / samples */
    clq_code code[CLQ_SLICE_PER_ITEM];
    for (uint k = 0; k < CLQ_SLICE_PER_ITEM; k++) {
        const uint i = min(k * CLQ_RL_WG + lid, CLQ_SLICE_SAMPLES - 1u); /* a repeat counts as a sample */
        code[k] = clq_to_code(keys[root->start + (uint)(((ulong)i * n + n / 2u) / CLQ_SLICE_SAMPLES)]);
    }
    for (uint b = lid; b < ways; b += CLQ_RL_WG)
        lm->by_code[b] = 0;
    if (lid == 0) {
        lm->fullest_code = 0;
        lm->not_least = 0;
        lm->most_code = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint fullest = 0;
    clq_code least_code = CLQ_CODE_MAX, most_code = 0;
    for (uint k = 0; k < CLQ_SLICE_PER_ITEM; k++) {
        least_code = min(least_code, code[k]);
        most_code = max(most_code, code[k]);
        const uint b = clq_scaled_bucket(code[k], root->lo, root->norm, root->scale, ways);
        fullest = max(fullest, atomic_inc(&lm->by_code[b]) + 1u);
    }
    atomic_max(&lm->fullest_code, fullest);
    clq_atomic_max_local(&lm->not_least, ~least_code);
    clq_atomic_max_local(&lm->most_code, most_code);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* code slices within 3x of even (uniform keys): no kind is worth its passes. With
     * CLQ_ROOT_LEAD (src/tuning.c, root_lead) the root then leads as a segmented sort's roots do
     * (clq_ways_log2); on for NVIDIA's 4-byte keys with the sort pass's counter copies, whose
     * pair made 2^26 uint32 keys 1.2 % faster on an H200 and the 13 inputs of the bench 3.6 %
     * (call 254, docs/PERFORMANCE.md) */
    if (lm->fullest_code <= 3u * ((CLQ_SLICE_SAMPLES + ways - 1u) / ways)) {
        if (CLQ_ROOT_LEAD && lid == 0) {
            const clq_code width = root->hi - root->lo;
            const uint w = clq_ways_log2(n, width, 1u, clq_code_levels(status), 1u);
            root->ways_log2 = w;
            root->scale = clq_scale_of(width, root->norm, 1u << w);
        }
        return; /* the same for every work-item */
    }
    /* the same in every work-item: what the kinds so far chose, and what a later one must beat */
    uint chosen = CLQ_SLICE_CODE, limit = lm->fullest_code / 2u;
    clq_code chosen_base = 0;
    float chosen_vlo = 0.0f, chosen_vscale = 0.0f;
    for (uint how = CLQ_SLICE_FIRST; how <= CLQ_SLICE_LAST; how++) {
        const clq_code base = how == CLQ_SLICE_DOWN ? lm->most_code : ~lm->not_least;
        float least = INFINITY, most = -INFINITY;
        for (uint k = 0; k < CLQ_SLICE_PER_ITEM; k++) {
            const float v = clq_slice_value(code[k], how, base);
            if (isfinite(v)) {
                least = fmin(least, v);
                most = fmax(most, v);
            }
        }
        lm->least[lid] = least;
        lm->most[lid] = most;
        for (uint b = lid; b < ways; b += CLQ_RL_WG)
            lm->by_slice[b] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            for (uint i = 1; i < CLQ_RL_WG; i++) {
                least = fmin(least, lm->least[i]);
                most = fmax(most, lm->most[i]);
            }
            lm->vlo = least;
            lm->vscale = (float)ways / (most - least); /* infinite or NaN where the span is 0 or overflows */
            lm->fullest_slice = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const float vlo = lm->vlo, vscale = lm->vscale;
        const int usable = isfinite(vscale) && vscale > 0.0f; /* the same for every work-item */
        if (usable) {
            fullest = 0;
            for (uint k = 0; k < CLQ_SLICE_PER_ITEM; k++) {
                const uint b = clq_value_bucket(clq_slice_value(code[k], how, base), vlo, vscale, ways);
                fullest = max(fullest, atomic_inc(&lm->by_slice[b]) + 1u);
            }
            atomic_max(&lm->fullest_slice, fullest);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (usable && lm->fullest_slice <= limit) {
            chosen = how;
            limit = lm->fullest_slice - 1u; /* a later kind must hold fewer */
            chosen_base = base;
            chosen_vlo = vlo;
            chosen_vscale = vscale;
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read the words the next kind resets */
    }
    if (lid == 0 && chosen != CLQ_SLICE_CODE) {
        status[CLQ_ST_ROOT_VLO] = as_uint(chosen_vlo);
        status[CLQ_ST_ROOT_VSCALE] = as_uint(chosen_vscale);
        status[CLQ_ST_ROOT_BASE] = (uint)chosen_base;
        status[CLQ_ST_ROOT_BASE + 1] = (uint)((ulong)chosen_base >> 32);
        status[CLQ_ST_ROOT_SLICES] = chosen;
        root->scale = 0; /* the blocks read the slices from the status words */
    }
}

__kernel __attribute__((reqd_work_group_size(CLQ_RL_WG, 1, 1)))
void relauncher_kernel(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool,
                       __global clq_leaf *leaves, __global uint *status, CLQ_WORDS_PARAMS)
{
    __local uint scan_tmp[2 * CLQ_RL_WG];
    clq_bring_words(status, CLQ_WORDS_ARGS, CLQ_RL_WG);
    barrier(CLK_GLOBAL_MEM_FENCE); /* the words before the body reads them */
    clq_relauncher_body(CLQ_BUFFER_ARGS_AT(status), lists, pool, leaves, status, 0u, 1u, scan_tmp, CLQ_RL_WG);
    __local clq_slice_local lm;
    barrier(CLK_GLOBAL_MEM_FENCE);
    /* the root of one sequence (not a segmented sort's), with a level to spare */
    const uint levels = status[CLQ_ST_MAX_LEVELS];
    if (status[CLQ_ST_SEGMENTS] == 0 && status[CLQ_ST_CUR_SEQS] == 1u &&
        CLQ_GQ_WAYS_LOG2 * (levels - min(1u, levels)) >= CLQ_CODE_BITS)
        clq_choose_root_slices(keys + clq_offset_at(status, CLQ_ST_KEY_OFFSET), status, lists, &lm);
}

#ifdef CLQ_DEVICE_ENQUEUE
/* ---- device-side launches (OpenCL C 2.0) -------------------------------------------------
 * The chain: relauncher -> gqcount over all count units -> gqsort over all blocks, whose last
 * group prepares the next level as the relauncher does -> gqcount -> ... -> lqsort over all
 * phase-two records. Every child is enqueued with
 * CLK_ENQUEUE_FLAGS_WAIT_KERNEL, so it starts once the kernel that enqueued it has finished and
 * its global writes are visible; the host's first relauncher_kernel completes only when the
 * whole chain has. Each block receives its
 * work-group's local memory as one `local void *` argument of the size of the body's struct.
 * A launch the runtime refuses ends the chain: CLQ_ERR_ENQUEUE, its error code and, in
 * CLQ_ST_LAUNCHES, the launches before it; where it was the first or second, no sort pass ran
 * and the host sorts again (src/pending.c: clq_repeatable). */

/* Whether the next device-side launch is the one a test asks to fail (CLQ_ST_FAIL_ENQUEUE). */
static bool clq_planted_failure(__global const uint *status)
{
    return status[CLQ_ST_FAIL_ENQUEUE] == status[CLQ_ST_LAUNCHES] + 1u;
}

static void clq_note_enqueue(__global uint *status, int err)
{
    if (err == CLK_SUCCESS)
        atomic_inc(&status[CLQ_ST_LAUNCHES]);
    else {
        atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_ENQUEUE);
        atomic_cmpxchg(&status[CLQ_ST_ENQUEUE_ERR], 0u, (uint)err);
    }
}

/* Called by every work-item at the end of a gqcount_kernel: the sort pass over the same blocks. */
void clq_after_gqcount(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool,
                       __global clq_leaf *leaves, __global uint *status, uint parity)
{
    if (get_global_id(0) == 0) {
        const uint blocks = status[CLQ_ST_CUR_BLOCKS];
        int err = clq_planted_failure(status) ? CLK_DEVICE_QUEUE_FULL :
                  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
                                 ndrange_1D((size_t)blocks * CLQ_GQ_WG, CLQ_GQ_WG),
                                 ^(local void *lm) {
                                     clq_gqsort_body(CLQ_BUFFER_ARGS, lists, pool, leaves, status, parity,
                                                     (local clq_gq_local *)lm);
                                 },
                                 (uint)sizeof(clq_gq_local));
        clq_note_enqueue(status, err);
    }
}

/* Called by work-item 0 of the relauncher once list `parity` holds nseq sequences in `units`
 * count units: count them all, or, with none left, finish every phase-two record. The grids are
 * exact: one work-group per count unit, block or record. */
void clq_enqueue_next(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool,
                      __global clq_leaf *leaves, __global uint *status, uint parity, uint nseq, uint units)
{
    int err = CLK_SUCCESS;
    if (nseq > 0) {
        err = clq_planted_failure(status) ? CLK_DEVICE_QUEUE_FULL :
              enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
                             ndrange_1D((size_t)units * CLQ_GQ_WG, CLQ_GQ_WG),
                             ^(local void *lm) {
                                 clq_gqcount_body(CLQ_BUFFER_ARGS, lists, pool, leaves, status, parity,
                                                  (local clq_count_local *)lm);
                             },
                             (uint)sizeof(clq_count_local));
        clq_note_enqueue(status, err);
    } else {
        const uint nleaves = min(status[CLQ_ST_LEAVES], status[CLQ_ST_LEAF_CAP]);
        if (nleaves > 0) {
            err = clq_planted_failure(status) ? CLK_DEVICE_QUEUE_FULL :
                  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
                                 ndrange_1D((size_t)nleaves * CLQ_LQ_WG, CLQ_LQ_WG),
                                 ^(local void *lm) {
                                     clq_lqsort_body(CLQ_BUFFER_ARGS, leaves, status, (local clq_lq_local *)lm);
                                 },
                                 (uint)sizeof(clq_lq_local));
            clq_note_enqueue(status, err);
        }
    }
}
#endif
