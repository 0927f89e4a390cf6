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

/* Classifies the range [start, start + len) of keys with codes in [lo, hi] and appends it where
 * it belongs: nowhere if empty, as runs of equal keys (phase-two fill records, CLQ_FILL_CHUNK
 * long) if lo == hi, as one phase-two record if short, else to the next phase-one work list.
 * Every work-item of the group calls it with the same arguments. */
void clq_emit_range(__global clq_seq *next, __global clq_leaf *leaves, __global uint *status,
                    uint start, uint len, clq_code lo, clq_code hi, uint in_scratch,
                    __local uint *slot)
{
    /* One exit and no early return: barriers sit only in branches every work-item takes
     * alike (pocl 3.1 mis-runs single-work-item code that follows an early return here). */
    const uint lid = get_local_id(0);
    const uint is_long = lo != hi && len > CLQ_LQ_MAX;
    if (len != 0 && is_long && lid == 0) {
        uint i = atomic_inc(&status[CLQ_ST_NEXT_SEQS]);
        if (i < status[CLQ_ST_SEQ_CAP]) {
            next[i].lo = lo;
            next[i].hi = hi;
            next[i].start = start;
            next[i].len = len;
            next[i].in_scratch = in_scratch;
        } else {
            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SEQ_OVERFLOW);
        }
    }
    if (len != 0 && !is_long) {
        const uint fill = lo == hi;
        const uint nrec = fill ? (len + (CLQ_FILL_CHUNK - 1)) / CLQ_FILL_CHUNK : 1u;
        if (lid == 0)
            *slot = atomic_add(&status[CLQ_ST_LEAVES], nrec);
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint base = *slot;
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint cap = status[CLQ_ST_LEAF_CAP];
        for (uint r = lid; r < nrec; r += get_local_size(0)) {
            if (base + r < cap) {
                const uint offset = r * CLQ_FILL_CHUNK;
                __global clq_leaf *leaf = leaves + base + r;
                leaf->lo = lo;
                leaf->hi = hi;
                leaf->start = start + offset;
                leaf->len = fill ? min((uint)CLQ_FILL_CHUNK, len - offset) : len;
                leaf->flags = (fill ? CLQ_LEAF_FILL : 0u) | (in_scratch ? CLQ_LEAF_IN_SCRATCH : 0u);
            } else {
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_LEAF_OVERFLOW);
            }
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

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void gqsort_kernel(__global clq_key *keys, __global clq_key *scratch, __global clq_seq *lists,
                   __global clq_leaf *leaves, __global uint *status, uint parity)
{
    __local clq_key stage[CLQ_GQ_BLOCK];
    __local uint scan_tmp[CLQ_GQ_WG];
    __local clq_code range_tmp[4 * CLQ_GQ_WG];
    __local uint shared_base_lt, shared_base_gt, shared_last, emit_slot;

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

        /* 1. load and count */
        clq_key v[CLQ_GQ_K];
        uint nlt = 0, ngt = 0;
        clq_code ltmin = CLQ_CODE_MAX, ltmax = 0, gtmin = CLQ_CODE_MAX, gtmax = 0;
        for (uint k = 0; k < CLQ_GQ_K; k++) {
            const uint i = k * CLQ_GQ_WG + lid;
            if (i < block_len) {
                v[k] = src[i];
                const clq_code c = clq_to_code(v[k]);
                if (c < pivot) {
                    nlt++;
                    ltmin = min(ltmin, c);
                    ltmax = max(ltmax, c);
                } else if (c > pivot) {
                    ngt++;
                    gtmin = min(gtmin, c);
                    gtmax = max(gtmax, c);
                }
            }
        }

        /* 2. scan, reserve, fold ranges */
        uint total;
        const uint excl = clq_scan_exclusive(CLQ_PACK(nlt, ngt), &total, scan_tmp, CLQ_GQ_WG);
        const uint block_lt = CLQ_LT_OF(total), block_gt = CLQ_GT_OF(total);
        clq_reduce_ranges(&ltmin, &ltmax, &gtmin, &gtmax, range_tmp, CLQ_GQ_WG);
        if (lid == 0) {
            shared_base_lt = block_lt ? atomic_add(&seq->lt_used, block_lt) : 0u;
            shared_base_gt = block_gt ? seq_len - atomic_add(&seq->gt_used, block_gt) - block_gt : 0u;
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
                if (c < pivot)
                    stage[at_lt++] = v[k];
                else if (c > pivot)
                    stage[at_gt++] = v[k];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint base_lt = shared_base_lt, base_gt = shared_base_gt;
        for (uint j = lid; j < block_lt + block_gt; j += CLQ_GQ_WG)
            dst[j < block_lt ? base_lt + j : base_gt + (j - block_lt)] = stage[j];

        /* 4. ticket; the last block of the sequence emits the children */
        if (lid == 0) {
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            const uint ticket = atomic_inc(&seq->blocks_done);
            shared_last = ticket == clq_blocks_of(seq_len) - 1u;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (shared_last) {
            /* one work-item reads the totals through atomics (they are final now) for all */
            __local uint *totals = scan_tmp;
            __local clq_code *ranges = range_tmp;
            if (lid == 0) {
                totals[0] = clq_atomic_read_u32(&seq->lt_used);
                totals[1] = clq_atomic_read_u32(&seq->gt_used);
                ranges[0] = clq_atomic_read_min(&seq->lt_min);
                ranges[1] = clq_atomic_read_max(&seq->lt_max);
                ranges[2] = clq_atomic_read_min(&seq->gt_min);
                ranges[3] = clq_atomic_read_max(&seq->gt_max);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint total_lt = totals[0], total_gt = totals[1];
            const clq_code lmin = ranges[0], lmax = ranges[1], gmin = ranges[2], gmax = ranges[3];
            const uint child_scratch = in_scratch ^ 1u;
            clq_emit_range(next, leaves, status, seq_start, total_lt, lmin, lmax, child_scratch, &emit_slot);
            clq_emit_range(next, leaves, status, seq_start + total_lt, seq_len - total_lt - total_gt,
                           pivot, pivot, child_scratch, &emit_slot);
            clq_emit_range(next, leaves, status, seq_start + seq_len - total_gt, total_gt, gmin, gmax,
                           child_scratch, &emit_slot);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
