/*
 * lqsort.cl - phase two of GPU-Quicksort: one work-group finishes each short sequence.
 *
 * The groups take phase-two records in turn. A fill record is a run of equal keys: the group
 * writes the key. A sort record (at most CLQ_LQ_MAX keys) is loaded into local memory and sorted
 * there with an explicit stack of ranges: a range is partitioned around the middle of its code
 * range into the other local buffer (count, scan, scatter, as in phase one), the keys equal to the
 * pivot go straight to their final place, and a range of at most CLQ_BITONIC_MAX keys is finished
 * with a bitonic network. Results always go to the caller's buffer.
 */

/* Sorts x[0, len) (len <= CLQ_BITONIC_MAX) by code with a bitonic network in which every
 * comparator puts the smaller key first; comparators that reach past len are skipped, which is
 * the same as padding with keys larger than all others. */
void clq_bitonic_local(__local clq_key *x, __local clq_value *xv, uint len)
{
    const uint lid = get_local_id(0);
    uint size = 1;
    while (size < len)
        size <<= 1;
    for (uint k = 2; k <= size; k <<= 1) {
        for (uint h = k >> 1; h > 0; h >>= 1) {
            for (uint t = lid; t < size / 2; t += CLQ_LQ_WG) {
                const uint i = ((t & ~(h - 1)) << 1) | (t & (h - 1));
                /* the first step of each merge compares mirrored positions, the rest halves */
                const uint j = h == (k >> 1) ? i ^ (k - 1) : i + h;
                if (j < len) {
                    const clq_key a = x[i], b = x[j];
                    if (clq_to_code(a) > clq_to_code(b)) {
                        x[i] = b;
                        x[j] = a;
                        CLQ_IF_PAIRS(const clq_value t = xv[i]; xv[i] = xv[j]; xv[j] = t;)
                    }
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
}

/* Local memory of an lqsort_kernel work-group (one object: see clq_gq_local). */
typedef struct clq_lq_local {
    clq_key buf[2][CLQ_LQ_MAX];
#ifdef CLQ_PAIRS
    clq_value vbuf[2][CLQ_LQ_MAX];
#endif
    clq_code range_tmp[4 * CLQ_LQ_WG];
    clq_code st_lo[CLQ_LQ_STACK], st_hi[CLQ_LQ_STACK];
    uint scan_tmp[CLQ_LQ_WG];
    uint st_start[CLQ_LQ_STACK], st_len[CLQ_LQ_STACK], st_buf[CLQ_LQ_STACK];
    uint sp;
} clq_lq_local;

void clq_lqsort_body(CLQ_BUFFER_PARAMS, __global clq_leaf *leaves, __global uint *status, __local clq_lq_local *lm)
{
    const uint lid = get_local_id(0);
    const uint nleaves = min(status[CLQ_ST_LEAVES], status[CLQ_ST_LEAF_CAP]);

    for (uint r = get_group_id(0); r < nleaves; r += get_num_groups(0)) {
        const clq_leaf leaf = leaves[r];
        __global clq_key *out = keys + leaf.start;
        __global const clq_key *src = ((leaf.flags & CLQ_LEAF_IN_SCRATCH) ? scratch : keys) + leaf.start;
        CLQ_IF_PAIRS(__global clq_value *vout = vals + leaf.start;)
        CLQ_IF_PAIRS(__global const clq_value *vsrc = ((leaf.flags & CLQ_LEAF_IN_SCRATCH) ? svals : vals) + leaf.start;)
        if (leaf.flags & CLQ_LEAF_FILL) {
            /* equal keys: rebuilt from the code; with values, moved from scratch with them */
            const clq_key value = clq_from_code(leaf.lo);
            for (uint i = lid; i < leaf.len; i += CLQ_LQ_WG) {
                out[i] = value;
                CLQ_IF_PAIRS(vout[i] = vsrc[i];)
            }
        } else {
            for (uint i = lid; i < leaf.len; i += CLQ_LQ_WG) {
                lm->buf[0][i] = src[i];
                CLQ_IF_PAIRS(lm->vbuf[0][i] = vsrc[i];)
            }
            if (lid == 0) {
                lm->st_start[0] = 0;
                lm->st_len[0] = leaf.len;
                lm->st_buf[0] = 0;
                lm->st_lo[0] = leaf.lo;
                lm->st_hi[0] = leaf.hi;
                lm->sp = 1;
            }
            /* global too: the sorted keys may go back to the range they were read from */
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

            while (lm->sp > 0) {
                const uint top = lm->sp - 1;
                const uint s = lm->st_start[top], len = lm->st_len[top], from = lm->st_buf[top];
                const clq_code lo = lm->st_lo[top], hi = lm->st_hi[top];
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lid == 0)
                    lm->sp = top;
                __local clq_key *x = lm->buf[from] + s;
                __local clq_value *xv = 0;
                CLQ_IF_PAIRS(xv = lm->vbuf[from] + s;)

                if (lo == hi) { /* all keys equal */
                    const clq_key value = clq_from_code(lo);
                    for (uint i = lid; i < len; i += CLQ_LQ_WG) {
                        out[s + i] = value;
                        CLQ_IF_PAIRS(vout[s + i] = xv[i];)
                    }
                } else if (len <= CLQ_BITONIC_MAX) {
                    clq_bitonic_local(x, xv, len);
                    for (uint i = lid; i < len; i += CLQ_LQ_WG) {
                        out[s + i] = x[i];
                        CLQ_IF_PAIRS(vout[s + i] = xv[i];)
                    }
                } else {
                    __local clq_key *y = lm->buf[from ^ 1u] + s;
                    CLQ_IF_PAIRS(__local clq_value *yv = lm->vbuf[from ^ 1u] + s;)
                    const clq_code pivot = clq_pivot(lo, hi);
                    uint nlt = 0, ngt = 0;
                    clq_code ltmin = CLQ_CODE_MAX, ltmax = 0, gtmin = CLQ_CODE_MAX, gtmax = 0;
                    for (uint i = lid; i < len; i += CLQ_LQ_WG)
                        clq_count_side(clq_to_code(x[i]), pivot, &nlt, &ngt, &ltmin, &ltmax, &gtmin, &gtmax);
                    uint total;
                    const uint excl = clq_scan_exclusive(CLQ_PACK(nlt, ngt), &total, lm->scan_tmp, CLQ_LQ_WG);
                    clq_reduce_ranges(&ltmin, &ltmax, &gtmin, &gtmax, lm->range_tmp, CLQ_LQ_WG);
                    const uint total_lt = CLQ_LT_OF(total), total_gt = CLQ_GT_OF(total);
                    uint at_lt = CLQ_LT_OF(excl), at_gt = len - total_gt + CLQ_GT_OF(excl);
                    for (uint i = lid; i < len; i += CLQ_LQ_WG) {
                        const clq_key k = x[i];
                        const clq_code c = clq_to_code(k);
                        const uint at = CLQ_GOES_LEFT(c, pivot) ? at_lt++ : c > pivot ? at_gt++ : len;
                        if (at < len) {
                            y[at] = k;
                            CLQ_IF_PAIRS(yv[at] = xv[i];)
                        }
                    }
                    /* keys equal to the pivot (none with values: those go left) */
                    const clq_key pivot_key = clq_from_code(pivot);
                    for (uint i = total_lt + lid; i < len - total_gt; i += CLQ_LQ_WG)
                        out[s + i] = pivot_key;
                    if (lid == 0) {
                        /* push the longer side first so the shorter one is finished first; the
                         * stack then never holds more than log2(CLQ_LQ_MAX) + 2 ranges */
                        const uint left_longer = total_lt >= total_gt;
                        const uint n_first = left_longer ? total_lt : total_gt;
                        const uint n_second = left_longer ? total_gt : total_lt;
                        uint at = lm->sp;
                        if (at + 2 > CLQ_LQ_STACK) {
                            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_STACK);
                        } else {
                            if (n_first) {
                                lm->st_start[at] = left_longer ? s : s + len - total_gt;
                                lm->st_len[at] = n_first;
                                lm->st_buf[at] = from ^ 1u;
                                lm->st_lo[at] = left_longer ? ltmin : gtmin;
                                lm->st_hi[at] = left_longer ? ltmax : gtmax;
                                at++;
                            }
                            if (n_second) {
                                lm->st_start[at] = left_longer ? s + len - total_gt : s;
                                lm->st_len[at] = n_second;
                                lm->st_buf[at] = from ^ 1u;
                                lm->st_lo[at] = left_longer ? gtmin : ltmin;
                                lm->st_hi[at] = left_longer ? gtmax : ltmax;
                                at++;
                            }
                        }
                        lm->sp = at;
                    }
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has seen lm->sp == 0 before it is reused */
        }
    }
}

__kernel __attribute__((reqd_work_group_size(CLQ_LQ_WG, 1, 1)))
void lqsort_kernel(CLQ_BUFFER_PARAMS, __global clq_leaf *leaves, __global uint *status)
{
    __local clq_lq_local lm;
    clq_lqsort_body(CLQ_BUFFER_ARGS, leaves, status, &lm);
}
