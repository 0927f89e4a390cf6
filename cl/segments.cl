/*
 * segments.cl - the roots of a segmented sort: every segment, checked, becomes its own work.
 *
 * The caller gives segments by their offsets (begin[i], end[i]; without an end buffer end[i] =
 * begin[i + 1]), in order of position. Two launches before phase one's levels, over the segments:
 *   segcheck_kernel  checks each segment (begin <= end <= count, end <= the next begin) and
 *                    records the first invalid one and what the invalid ones break. A valid
 *                    segment of more than CLQ_SEG_HALF keys becomes a root sequence of phase one
 *                    (over CLQ_LQ_MAX keys) or a phase-two record; a valid short one (2 ..
 *                    CLQ_SEG_HALF keys, but for those segnet.cl sorts) marks itself in its
 *                    window, the CLQ_SEG_HALF keys its begin falls in (first and last such
 *                    segment, atomics).
 *   segemit_kernel   emits each window that has short segments as one phase-two record of them
 *                    all (CLQ_LEAF_SEGMENTS) and sorts the segments segnet.cl sorts; its last
 *                    group then prepares the roots as relauncher_kernel prepares a sort's one root
 *                    (relauncher.cl), so that phase one starts right after it. If any segment
 *                    was invalid it moves no key: it drops the roots and records segcheck_kernel
 *                    emitted, and phase one and two find nothing to do.
 * Either way segemit_kernel leaves every window it read empty again, so that the next segmented
 * sort needs no clear_kernel for them (src/sort.c: windows_clear).
 * A window's record runs from its first segment's begin to its last one's end: less than
 * 2 * CLQ_SEG_HALF <= CLQ_LQ_MAX keys, and no longer segment lies inside it (one would push the
 * next short segment past the window). Phase two sorts the segments of such a record apart
 * (lqsort.cl); keys between them are neither sorted nor written. From there on a segment is a
 * sequence like any other, and no sequence ever spans two segments.
 */

#define CLQ_SEG_HALF max(CLQ_LQ_MAX / 2u, 1u)

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

/* Segments of a sort whose segments are invalid may overlap and overflow the work lists: the
 * emission then only flags the overflow, and segemit_kernel drops what was emitted. */
__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void segcheck_kernel(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool, __global clq_leaf *leaves,
                     __global uint *status, __global uint *windows)
{
    (void)pool;
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
        } else if (e - b > CLQ_SEG_HALF) { /* its own sequence (list 0) or record, its range not known yet */
            clq_emit_child(lists, leaves, status, b, e - b, 0, CLQ_CODE_MAX, 0);
        } else if (e - b >= 2u && !clq_seg_net(e - b)) {
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
#if CLQ_SEG_NET
    __local clq_net_t x[CLQ_SEG_NET == 1 ? CLQ_GQ_WG * CLQ_NET_E : 1];
    __local uint list[CLQ_GQ_WG], listed;
#endif
    __local uint scan_tmp[2 * CLQ_GQ_WG], last;
    const uint refused = status[CLQ_ST_ERROR] != 0u; /* an invalid segment: nothing may move */
    const uint end_given = status[CLQ_ST_SEG_END_GIVEN], nwin = clq_seg_windows(status);
    uint landed = 0; /* clq_last_ticket */
    for (ulong i = get_global_id(0); i < nwin; i += get_global_size(0)) {
        const uint from = windows[2 * i], to = windows[2 * i + 1]; /* its first and last segment */
        windows[2 * i] = 0xffffffffu; /* empty for the next segmented sort */
        windows[2 * i + 1] = 0;
        if (refused || from > to)
            continue;
        const uint at = atomic_inc(&status[CLQ_ST_LEAVES]);
        landed += at;
        if (at < status[CLQ_ST_LEAF_CAP]) {
            __global clq_leaf *leaf = leaves + at;
            leaf->lo = from;
            leaf->hi = to;
            leaf->start = seg_begin[from];
            leaf->len = clq_seg_end(seg_begin, seg_end, to, end_given) - seg_begin[from];
            leaf->flags = CLQ_LEAF_SEGMENTS;
        } else {
            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_LEAF_OVERFLOW); /* cannot happen: see capacities() */
        }
    }
#if CLQ_SEG_NET
    if (!refused) /* the same for every work-item */
        clq_segnet_body(CLQ_BUFFER_ARGS_AT(status), status, x, list, &listed);
#endif
    /* the roots came from segcheck_kernel, so the last group reads nothing this launch wrote but
     * the phase-two count, which the device-enqueue path reads (atomics, in `landed`) */
    if (clq_last_ticket(&status[CLQ_ST_SORT_GROUPS], (uint)get_num_groups(0), &last, landed, scan_tmp)) {
        if (get_local_id(0) == 0) {
            status[CLQ_ST_SORT_GROUPS] = 0;
            if (refused) {
                status[CLQ_ST_NEXT_SEQS] = 0;
                status[CLQ_ST_LEAVES] = 0;
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        clq_relauncher_body(CLQ_BUFFER_ARGS_AT(status), lists, pool, leaves, status, 0u, 1u, scan_tmp, CLQ_GQ_WG);
    }
}
