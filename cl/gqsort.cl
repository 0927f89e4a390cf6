/*
 * gqsort.cl - phase one of GPU-Quicksort: many work-groups partition long sequences together.
 *
 * A launch works on the current work list (prepared by relauncher_kernel): every sequence is cut
 * into blocks of CLQ_GQ_BLOCK keys, and the groups of the launch take blocks in turn (a group may
 * take several, so the host can launch a fixed grid without knowing the block count). For a block:
 *   1. each work-item loads CLQ_GQ_K keys into registers and counts those below and above the
 *      pivot, with their code ranges;
 *   2. the counts are scanned in the group; one work-item reserves the group's space in the
 *      sequence with atomics on the sequence record (below-pivot keys from the left end, above-
 *      pivot keys from the right end) and folds the children's code ranges in with atomic min/max;
 *   3. the keys are grouped in local memory and written to the other buffer in contiguous runs;
 *   4. the group takes a ticket; the group with the last ticket emits the children and the run of
 *      keys equal to the pivot (the gap between the two sides), using only the atomic counters:
 *      no group reads keys another group wrote in this launch.
 */

/* Where a finished partition's pieces go. A range of keys with codes in [lo, hi] is dropped if
 * empty, becomes runs of equal keys (phase-two fill records, CLQ_FILL_CHUNK long) if lo == hi,
 * one phase-two sort record if it is short, and otherwise a sequence of the next phase-one list.
 * One work-item classifies and reserves (clq_place_range); the group then writes the phase-two
 * records in parallel (clq_write_leaves). No barrier sits inside a one-work-item branch or after
 * an early return: pocl 3.1 mis-ran such code. */
typedef struct clq_range {
    uint start, len, in_scratch, base, nrec;
    clq_code lo, hi;
} clq_range;

inline void clq_place_range(__global clq_seq *next, __global uint *status, __local clq_range *r,
                            uint start, uint len, clq_code lo, clq_code hi, uint in_scratch)
{
    r->start = start;
    r->len = len;
    r->lo = lo;
    r->hi = hi;
    r->in_scratch = in_scratch;
    r->nrec = 0;
    if (len == 0)
        return;
#ifdef CLQ_PAIRS
    if (lo == hi && !in_scratch)
        return; /* equal keys already in place with their values */
#endif
    if (lo != hi && len > CLQ_LQ_MAX) {
        const uint i = atomic_inc(&status[CLQ_ST_NEXT_SEQS]);
        if (i < status[CLQ_ST_SEQ_CAP]) {
            next[i].lo = lo;
            next[i].hi = hi;
            next[i].start = start;
            next[i].len = len;
            next[i].in_scratch = in_scratch;
        } else {
            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SEQ_OVERFLOW);
        }
        return;
    }
    r->nrec = lo == hi ? (len + (CLQ_FILL_CHUNK - 1)) / CLQ_FILL_CHUNK : 1u;
    r->base = atomic_add(&status[CLQ_ST_LEAVES], r->nrec);
}

inline void clq_write_leaves(__global clq_leaf *leaves, __global uint *status, __local const clq_range *r)
{
    const uint fill = r->lo == r->hi, cap = status[CLQ_ST_LEAF_CAP];
    for (uint i = get_local_id(0); i < r->nrec; i += get_local_size(0)) {
        if (r->base + i < cap) {
            const uint offset = i * CLQ_FILL_CHUNK;
            __global clq_leaf *leaf = leaves + r->base + i;
            leaf->lo = r->lo;
            leaf->hi = r->hi;
            leaf->start = r->start + offset;
            leaf->len = fill ? min((uint)CLQ_FILL_CHUNK, r->len - offset) : r->len;
            leaf->flags = (fill ? CLQ_LEAF_FILL : 0u) | (r->in_scratch ? CLQ_LEAF_IN_SCRATCH : 0u);
        } else {
            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_LEAF_OVERFLOW);
        }
    }
}

/* Index of the sequence that owns block `blk`: the last one whose first block is <= blk. */
inline uint clq_find_sequence(__global const clq_seq *seqs, uint nseq, uint blk)
{
    uint lo = 0, hi = nseq - 1;
    while (lo < hi) {
        uint mid = (lo + hi + 1) / 2;
        if (seqs[mid].first_block <= blk)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Local memory of a gqsort_kernel work-group, as one object so that a device-side launch can
 * hand it over as a block's local argument. */
typedef struct clq_gq_local {
    clq_key stage[CLQ_GQ_BLOCK];
#ifdef CLQ_PAIRS
    clq_value stage_v[CLQ_GQ_BLOCK];
#endif
    clq_code range_tmp[4 * CLQ_GQ_WG];
    uint scan_tmp[CLQ_GQ_WG];
    clq_range pieces[3];
    uint base_lt, base_gt, last;
} clq_gq_local;

void clq_gqsort_body(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_leaf *leaves, __global uint *status,
                     uint parity, __local clq_gq_local *lm)
{
    __local clq_key *stage = lm->stage;
    __local clq_range *pieces = lm->pieces;

    const uint lid = get_local_id(0);
    const uint seq_cap = status[CLQ_ST_SEQ_CAP];
    __global clq_seq *cur = lists + (size_t)parity * seq_cap;
    __global clq_seq *next = lists + (size_t)(parity ^ 1u) * seq_cap;
    const uint nseq = status[CLQ_ST_CUR_SEQS];
    const uint nblocks = status[CLQ_ST_CUR_BLOCKS];

    for (uint blk = get_group_id(0); blk < nblocks; blk += get_num_groups(0)) {
        __global clq_seq *seq = cur + clq_find_sequence(cur, nseq, blk);
        const uint seq_start = seq->start, seq_len = seq->len, in_scratch = seq->in_scratch;
        const clq_code lo = seq->lo, hi = seq->hi;
        const clq_code pivot = clq_pivot(lo, hi);
        const uint block_begin = (blk - seq->first_block) * CLQ_GQ_BLOCK;
        const uint block_len = min((uint)CLQ_GQ_BLOCK, seq_len - block_begin);
        __global const clq_key *src = (in_scratch ? scratch : keys) + seq_start + block_begin;
        __global clq_key *dst = (in_scratch ? keys : scratch) + seq_start;
#ifdef CLQ_PAIRS
        __global const clq_value *vsrc = (in_scratch ? svals : vals) + seq_start + block_begin;
        __global clq_value *vdst = (in_scratch ? vals : svals) + seq_start;
        clq_value w[CLQ_GQ_K];
#endif

        /* 1. load and count */
        clq_key v[CLQ_GQ_K];
        uint nlt = 0, ngt = 0;
        clq_code ltmin = CLQ_CODE_MAX, ltmax = 0, gtmin = CLQ_CODE_MAX, gtmax = 0;
        for (uint k = 0; k < CLQ_GQ_K; k++) {
            const uint i = k * CLQ_GQ_WG + lid;
            if (i < block_len) {
                v[k] = src[i];
#ifdef CLQ_PAIRS
                w[k] = vsrc[i];
#endif
                clq_count_side(clq_to_code(v[k]), pivot, &nlt, &ngt, &ltmin, &ltmax, &gtmin, &gtmax);
            }
        }

        /* 2. scan, reserve, fold ranges */
        uint total;
        const uint excl = clq_scan_exclusive(CLQ_PACK(nlt, ngt), &total, lm->scan_tmp, CLQ_GQ_WG);
        const uint block_lt = CLQ_LT_OF(total), block_gt = CLQ_GT_OF(total);
        clq_reduce_ranges(&ltmin, &ltmax, &gtmin, &gtmax, lm->range_tmp, CLQ_GQ_WG);
        if (lid == 0) {
            lm->base_lt = block_lt ? atomic_add(&seq->lt_used, block_lt) : 0u;
            lm->base_gt = block_gt ? seq_len - atomic_add(&seq->gt_used, block_gt) - block_gt : 0u;
            if (block_lt) {
                clq_atomic_min_code(&seq->lt_min, ltmin);
                clq_atomic_max_code(&seq->lt_max, ltmax);
            }
            if (block_gt) {
                clq_atomic_min_code(&seq->gt_min, gtmin);
                clq_atomic_max_code(&seq->gt_max, gtmax);
            }
        }

        /* 3. group the keys in local memory: [below pivot | above pivot] */
        uint at_lt = CLQ_LT_OF(excl), at_gt = block_lt + CLQ_GT_OF(excl);
        for (uint k = 0; k < CLQ_GQ_K; k++) {
            const uint i = k * CLQ_GQ_WG + lid;
            if (i < block_len) {
                const clq_code c = clq_to_code(v[k]);
                const uint at = CLQ_GOES_LEFT(c, pivot) ? at_lt++ : c > pivot ? at_gt++ : CLQ_GQ_BLOCK;
                if (at < CLQ_GQ_BLOCK) {
                    stage[at] = v[k];
#ifdef CLQ_PAIRS
                    lm->stage_v[at] = w[k];
#endif
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint base_lt = lm->base_lt, base_gt = lm->base_gt;
        for (uint j = lid; j < block_lt + block_gt; j += CLQ_GQ_WG) {
            const uint to = j < block_lt ? base_lt + j : base_gt + (j - block_lt);
            dst[to] = stage[j];
#ifdef CLQ_PAIRS
            vdst[to] = lm->stage_v[j];
#endif
        }

        /* 4. ticket; the last block of the sequence emits the children */
        if (lid == 0) {
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            const uint ticket = atomic_inc(&seq->blocks_done);
            lm->last = ticket == clq_blocks_of(seq_len) - 1u;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lm->last) {
            /* the totals are final now; read them through atomics */
            if (lid == 0) {
                const uint total_lt = clq_atomic_read_u32(&seq->lt_used);
                const uint total_gt = clq_atomic_read_u32(&seq->gt_used);
                const uint child_scratch = in_scratch ^ 1u;
                clq_place_range(next, status, &pieces[0], seq_start, total_lt, clq_atomic_read_min(&seq->lt_min),
                                clq_atomic_read_max(&seq->lt_max), child_scratch);
                clq_place_range(next, status, &pieces[1], seq_start + total_lt, seq_len - total_lt - total_gt,
                                pivot, pivot, child_scratch);
                clq_place_range(next, status, &pieces[2], seq_start + seq_len - total_gt, total_gt,
                                clq_atomic_read_min(&seq->gt_min), clq_atomic_read_max(&seq->gt_max), child_scratch);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint p = 0; p < 3; p++)
                clq_write_leaves(leaves, status, &pieces[p]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#ifdef CLQ_DEVICE_ENQUEUE
    clq_after_gqsort(CLQ_BUFFER_ARGS, lists, leaves, status, parity);
#endif
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void gqsort_kernel(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_leaf *leaves, __global uint *status,
                   uint parity)
{
    __local clq_gq_local lm;
    clq_gqsort_body(CLQ_BUFFER_ARGS, lists, leaves, status, parity, &lm);
}
