/*
 * segments.cl - the roots of a segmented sort: every segment, checked, becomes its own work.
 *
 * The caller gives segments by their offsets (begin[i], end[i]; without an end buffer end[i] =
 * begin[i + 1]), in order of position. Two launches before the usual ones, over the segments:
 *   segcheck_kernel  checks each segment (begin <= end <= count, end <= the next begin) and
 *                    records the first invalid one and what the invalid ones break; a valid
 *                    short segment (2 .. CLQ_SEG_HALF keys, but for those segnet.cl sorts) marks
 *                    itself in its window, the CLQ_SEG_HALF keys its begin falls in (first and
 *                    last such segment, atomics).
 *   segemit_kernel   does nothing if any segment was invalid, so that no key moves; else it
 *                    emits each longer segment as the root sequence of phase one (over
 *                    CLQ_LQ_MAX keys) or as a phase-two record, and each window that has short
 *                    segments as one phase-two record of them all (CLQ_LEAF_SEGMENTS).
 * A window's record runs from its first segment's begin to its last one's end: less than
 * 2 * CLQ_SEG_HALF <= CLQ_LQ_MAX keys, and no longer segment lies inside it (one would push the
 * next short segment past the window). Phase two sorts the segments of such a record apart
 * (lqsort.cl); keys between them are neither sorted nor written. From there on a segment is a
 * sequence like any other, and no sequence ever spans two segments.
 */

#define CLQ_SEG_HALF max(CLQ_LQ_MAX / 2u, 1u)

inline uint clq_seg_end(__global const uint *seg_begin, __global const uint *seg_end, uint i, uint end_given)
{
    return end_given ? seg_end[i] : seg_begin[i + 1];
}

/* Windows of CLQ_SEG_HALF positions a segmented sort of status[CLQ_ST_COUNT] keys has. */
inline uint clq_seg_windows(__global const uint *status) { return status[CLQ_ST_COUNT] / CLQ_SEG_HALF + 1u; }

/* Clears what a sort needs clear before it starts (status[CLQ_ST_CLEAR]): the bucket pool, when
 * the last sort on it did not leave it clear, and a segmented sort's windows. A kernel rather than
 * clEnqueueFillBuffer so that oclgrind, which does not count a fill as writing, can check phase
 * one for uninitialized reads. */
__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void clear_kernel(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool, __global clq_leaf *leaves,
                  __global uint *status, __global uint *windows)
{
    (void)lists;
    (void)leaves;
    const uint what = status[CLQ_ST_CLEAR];
    const ulong words = what & CLQ_CLEAR_POOL ? clq_offset_at(status, CLQ_ST_POOL_WORDS) : 0ul;
    const ulong nwin = what & CLQ_CLEAR_WINDOWS ? (ulong)clq_seg_windows(status) : 0ul;
    for (ulong i = get_global_id(0); i < max(words, nwin); i += get_global_size(0)) {
        if (i < words) /* the whole buffer: a failed sort may have left records past this one's */
            ((__global uint *)pool)[i] = 0;
        if (i < nwin) {
            windows[2 * i] = 0xffffffffu;
            windows[2 * i + 1] = 0;
        }
    }
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void segcheck_kernel(CLQ_BUFFER_PARAMS, __global clq_leaf *leaves, __global uint *status, __global uint *windows)
{
    const uint nseg = status[CLQ_ST_SEGMENTS], n = status[CLQ_ST_COUNT], end_given = status[CLQ_ST_SEG_END_GIVEN];
    for (ulong i = get_global_id(0); i < nseg; i += get_global_size(0)) {
        const uint s = (uint)i;
        const uint b = seg_begin[s], e = clq_seg_end(seg_begin, seg_end, s, end_given);
        uint why = 0;
        if (b > e)
            why |= CLQ_SEG_BEGIN_AFTER_END;
        if (e > n)
            why |= CLQ_SEG_END_PAST_COUNT;
        if (end_given && s + 1u < nseg && e > seg_begin[s + 1u])
            why |= CLQ_SEG_OVERLAP;
        if (why) {
            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SEGMENTS);
            atomic_or(&status[CLQ_ST_SEG_WHY], why);
            atomic_min(&status[CLQ_ST_BAD_SEGMENT], s);
        } else if (e - b >= 2u && e - b <= CLQ_SEG_HALF && !clq_seg_net(e - b)) {
            const uint w = b / CLQ_SEG_HALF;
            atomic_min(&windows[2 * (size_t)w], s);
            atomic_max(&windows[2 * (size_t)w + 1], s);
        }
    }
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void segemit_kernel(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool, __global clq_leaf *leaves,
                    __global uint *status, __global uint *windows)
{
    (void)pool;
    if (status[CLQ_ST_ERROR])
        return; /* an invalid segment: nothing may move */
    const uint nseg = status[CLQ_ST_SEGMENTS], end_given = status[CLQ_ST_SEG_END_GIVEN];
    const uint nwin = clq_seg_windows(status);
    for (ulong i = get_global_id(0); i < max(nseg, nwin); i += get_global_size(0)) {
        const uint s = (uint)i;
        if (s < nseg) {
            const uint b = seg_begin[s], len = clq_seg_end(seg_begin, seg_end, s, end_given) - b;
            if (len > CLQ_SEG_HALF) /* its own sequence (list 0) or record, its range not known yet */
                clq_emit_child(lists, leaves, status, b, len, 0, CLQ_CODE_MAX, 0);
        }
        if (s < nwin && windows[2 * (size_t)s] <= windows[2 * (size_t)s + 1]) {
            const uint first = windows[2 * (size_t)s], last = windows[2 * (size_t)s + 1];
            const uint at = atomic_inc(&status[CLQ_ST_LEAVES]);
            if (at < status[CLQ_ST_LEAF_CAP]) {
                __global clq_leaf *leaf = leaves + at;
                leaf->lo = first;
                leaf->hi = last;
                leaf->start = seg_begin[first];
                leaf->len = clq_seg_end(seg_begin, seg_end, last, end_given) - seg_begin[first];
                leaf->flags = CLQ_LEAF_SEGMENTS;
            } else {
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_LEAF_OVERFLOW); /* cannot happen: see capacities() */
            }
        }
    }
}
