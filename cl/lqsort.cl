/*
 * lqsort.cl - phase two of GPU-Quicksort: one work-group finishes each short sequence.
 *
 * The groups take phase-two records in turn. A fill record is a run of equal keys: the group
 * writes the key. A count record (keys alone) spans fewer than CLQ_LQ_WAYS codes: the group
 * counts each code and writes the keys from the counts. A sort record (at most CLQ_LQ_MAX keys) is loaded into local memory and sorted
 * there with an explicit stack of ranges (a record of short segments, segments.cl, starts with one
 * range per segment). A range is split, like a phase-one sequence, into up to
 * CLQ_LQ_WAYS equal slices of its code range (clq_lq_bucket; about CLQ_LQ_SMALL / 4 keys each):
 * count, scan, scatter into the other local buffer. A bucket that holds a single code is
 * finished as it is, and one of more than CLQ_LQ_SMALL keys goes on the stack with its bucket's
 * code range. A short bucket is finished on the way out: each key is written to its rank in the
 * bucket (the keys smaller than it, and the equal ones before it), one work-item per key, so no
 * work-item waits on another's bucket (the insertion sort per bucket by one work-item that this
 * replaced took phase two 0.75 ms instead of 0.62 for 2^26 keys on an H200: docs/PERFORMANCE.md).
 * A group of one work-item (CPU devices) ranks each bucket's keys too, as soon as the bucket is
 * made: it compares more pairs than an insertion sort did, but with no branch to mispredict
 * (pocl, 2 cores, 2^22 keys: phase two 14-16 ms against 22-25).
 * Local memory holds the keys' codes, not the keys: converted once on the way in and once on the
 * way out, where the rank finish compares each key with every key of its bucket (doubles spent
 * 1.15 ms of 3.77 here at 2^26 on an H200 converting keys again at each comparison, 0.87 as codes).
 *
 * Depth: a bucket's range is at most 2^shift codes, shift being the range's width in bits minus
 * log2(buckets) >= 1 (for either kind of slice), so a range is split at most CLQ_CODE_BITS times.
 * The stack holds disjoint ranges longer than CLQ_LQ_SMALL, so never more than
 * CLQ_LQ_MAX / (CLQ_LQ_SMALL + 1) of them.
 */

#define CLQ_LQ_STACK (CLQ_LQ_MAX / (CLQ_LQ_SMALL + 1) + 1)
#define CLQ_LQ_CELLS (CLQ_LQ_WAYS > 2 * CLQ_LQ_WG ? CLQ_LQ_WAYS : 2 * CLQ_LQ_WG)
#define CLQ_LQ_RUNS (CLQ_LQ_WG < 32 ? CLQ_LQ_WG : 32)

/* A work-item's increment of a local counter: a plain one when the group is one work-item
 * (CPU devices), where an atomic would only cost time. */
#if CLQ_LQ_WG == 1
#define clq_lq_inc(p) ((*(p))++)
#else
#define clq_lq_inc(p) atomic_inc(p)
#endif

/* Local memory of an lqsort_kernel work-group (one object: see clq_gq_local). */
typedef struct clq_lq_local {
    clq_code buf[2][CLQ_LQ_MAX]; /* the keys' codes: every comparison reads them as they are */
#ifdef CLQ_PAIRS
    clq_value vbuf[2][CLQ_LQ_MAX];
#endif
    clq_code st_lo[CLQ_LQ_STACK], st_hi[CLQ_LQ_STACK];
    uint st_start[CLQ_LQ_STACK], st_len[CLQ_LQ_STACK], st_buf[CLQ_LQ_STACK];
    /* each bucket's count, then (clq_lq_scan) its first place in the other buffer, and once the
     * keys are there, its end, which is where the next bucket begins (clq_lq_first); the running
     * maximum's scan of a segments record before that (CLQ_LQ_CELLS: 2 * CLQ_LQ_WG words at least) */
    uint end[CLQ_LQ_CELLS];
    uint sums[CLQ_LQ_RUNS + 1u]; /* clq_lq_scan */
    uint sp;
    uint take; /* the record the group sorts next (clq_lq_take) */
} clq_lq_local;

/* A range's buckets. Double keys take equal slices of the whole range (clq_scaled_bucket,
 * clqsort_common.h), as phase one does: their records come out of value-sliced roots and scaled
 * slices with ranges of any width, whose slices of 2^shift codes would reach as few as half of
 * the buckets. Other keys keep slices of 2^shift codes: scaled slices cost their phase two more
 * than they saved (H200, 2^26 keys, calls 84-85: uint32 0.674-0.685 ms against 0.620-0.622,
 * double 0.958-0.962 against 1.070-1.086 with slices of 2^shift codes). */
typedef struct clq_lq_slices {
    clq_code lo;
    uint ways, shift; /* shift: the bits a bucket's range may have left (0: one code each) */
    uint norm, scale; /* double keys */
} clq_lq_slices;

inline uint clq_lq_bucket(const clq_lq_slices *sl, clq_code c)
{
#ifdef CLQ_KEY_DOUBLE
    return clq_scaled_bucket(c, sl->lo, sl->norm, sl->scale, sl->ways);
#else
    return clq_bucket_of(c, sl->lo, sl->shift, sl->ways);
#endif
}

/* The least offset c - lo of bucket b (past the range's end if the range reaches no code of it). */
inline clq_code clq_lq_offset(const clq_lq_slices *sl, uint b)
{
#ifdef CLQ_KEY_DOUBLE
    return b ? clq_scaled_offset(b, sl->norm, sl->scale) : 0u;
#else
    return (clq_code)b << sl->shift;
#endif
}

/* Whether the key of code d at position q goes before the key of code c at position p when a key
 * is ranked: smaller, or equal and earlier. For 32-bit codes one 64-bit comparison of (code,
 * position) pairs, where the pair of c and p stays the same through a ranking loop. */
#if CLQ_CODE_BITS == 32
#define clq_goes_before(d, q, c, p) (upsample((d), (q)) < upsample((c), (p)))
#else
#define clq_goes_before(d, q, c, p) ((d) < (c) || ((d) == (c) && (q) < (p)))
#endif

/* The place of the key of code c at position i among the n keys of its bucket y[first, ..):
 * first plus the keys that go before it (smaller, or equal and earlier). */
inline uint clq_rank_in(__local const clq_code *y, uint first, uint n, clq_code c, uint i)
{
    uint at = first;
#if CLQ_LQ_WG == 1
    /* one work-item (CPUs): the keys before i that are not larger, then those after it that are
     * smaller; one comparison of codes a key, where a (code, position) pair took two more
     * instructions to build */
    for (uint q = first; q < i; q++)
        at += y[q] <= c;
    for (uint q = i + 1u; q < first + n; q++)
        at += y[q] < c;
#else
    for (uint q = first; q < first + n; q++)
        at += clq_goes_before(y[q], q, c, i);
#endif
    return at;
}

/* The buckets of a range of len keys, codes lo .. hi: about CLQ_LQ_SMALL / 4 keys each, no more
 * than the range has codes. */
inline clq_lq_slices clq_lq_slices_of(clq_code lo, clq_code hi, uint len)
{
    const uint width_bits = CLQ_CODE_BITS - (uint)clz(hi - lo);
    const uint per_bucket = max(CLQ_LQ_SMALL / 4u, 1u);
    uint w = 1;
    while ((1u << w) < CLQ_LQ_WAYS && (per_bucket << w) < len)
        w++;
    w = min(w, width_bits);
    clq_lq_slices sl;
    sl.lo = lo;
    sl.ways = 1u << w;
    sl.shift = width_bits - w;
    sl.norm = (uint)clz(hi - lo);
    sl.scale = clq_scale_of(hi - lo, sl.norm, sl.ways);
    return sl;
}

/* Replaces the counts cnt[0, n) by their exclusive prefix sums, in place, and returns their sum:
 * work-item r < CLQ_LQ_RUNS turns run r of the counts into sums from 0 and writes the run's total,
 * work-item 0 turns the totals into the runs' offsets, and every work-item adds them. Phase two
 * so keeps no scan buffer of 2 * CLQ_LQ_WG words and no copy of the bucket starts beside the
 * counts: 37,456 bytes of local memory and 40 registers with NVIDIA's tuning (41,420 and 48
 * before), 6 groups on an H200's compute unit instead of 5, and phase two of 2^26 uint32 keys in
 * 0.532-0.536 ms instead of 0.548-0.553 (docs/PERFORMANCE.md, calls 310-311). The runs of
 * neighbouring work-items fall in few banks; the scan runs once a split. A group of one
 * work-item (CPU devices) has one run, the whole scan, and stops there: it would otherwise add 0
 * to every counter after two barriers. */
inline uint clq_lq_scan(__local uint *cnt, uint n, __local uint *sums)
{
    const uint lid = get_local_id(0), per = (n + CLQ_LQ_RUNS - 1u) / CLQ_LQ_RUNS;
    uint run = 0;
    if (lid < CLQ_LQ_RUNS) {
        for (uint b = lid * per, stop = min(b + per, n); b < stop; b++) {
            const uint c = cnt[b];
            cnt[b] = run;
            run += c;
        }
        sums[lid] = run;
    }
#if CLQ_LQ_WG == 1
    return run;
#else
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        uint s = 0;
        for (uint r = 0; r < CLQ_LQ_RUNS; r++) {
            const uint c = sums[r];
            sums[r] = s;
            s += c;
        }
        sums[CLQ_LQ_RUNS] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < n; b += CLQ_LQ_WG)
        cnt[b] += sums[b / per];
    const uint total = sums[CLQ_LQ_RUNS];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
#endif
}

/* Bucket b's first place once its keys are in place: where bucket b - 1 ends. */
inline uint clq_lq_first(__local const clq_lq_local *lm, uint b) { return b ? lm->end[b - 1u] : 0u; }

/* Splits the range on top of the stack into buckets; finishes the short ones and writes them
 * out, pushes the long ones. Every work-item of the group calls it. `counted`: lm->end holds
 * the range's counts per bucket already (a record's first split in a group of one work-item,
 * counted as its keys were loaded: clq_lqsort_body). */
void clq_lq_split(__global clq_key *out, __global clq_value *vout, __global uint *status, __local clq_lq_local *lm,
                  uint counted)
{
    const uint lid = get_local_id(0);
    const uint top = min(lm->sp, (uint)CLQ_LQ_STACK) - 1u; /* more only after CLQ_ERR_STACK */
    const uint s = lm->st_start[top], len = lm->st_len[top], from = lm->st_buf[top];
    const clq_code lo = lm->st_lo[top], hi = lm->st_hi[top];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        lm->sp = top;

    const clq_lq_slices sl = clq_lq_slices_of(lo, hi, len);
    const uint ways = sl.ways, shift = sl.shift;

    __local const clq_code *x = lm->buf[from] + s;
    __local clq_code *y = lm->buf[from ^ 1u] + s;
    __local clq_value *yv = 0;
    CLQ_IF_PAIRS(__local const clq_value *xv = lm->vbuf[from] + s; yv = lm->vbuf[from ^ 1u] + s;)

    /* count, scan, scatter */
    for (uint b = lid; b < (counted ? 0u : ways); b += CLQ_LQ_WG)
        lm->end[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint outside = 0;
    for (uint i = lid; i < (counted ? 0u : len); i += CLQ_LQ_WG) {
        const clq_code c = x[i];
        outside |= c < lo || c > hi;
        clq_lq_inc(&lm->end[clq_lq_bucket(&sl, c)]);
    }
    if (outside)
        atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_RANGE);
    barrier(CLK_LOCAL_MEM_FENCE);
    clq_lq_scan(lm->end, ways, lm->sums);
    for (uint i = lid; i < len; i += CLQ_LQ_WG) {
        const clq_code c = x[i];
        const uint at = clq_lq_inc(&lm->end[clq_lq_bucket(&sl, c)]);
        y[at] = c;
        CLQ_IF_PAIRS(yv[at] = xv[i];)
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* finish or push each bucket */
    for (uint b = lid; b < ways; b += CLQ_LQ_WG) {
        const uint first = clq_lq_first(lm, b), n = lm->end[b] - first;
        if (n > CLQ_LQ_SMALL && shift > 0) {
            const uint at = clq_lq_inc(&lm->sp);
            if (at < CLQ_LQ_STACK) {
                lm->st_start[at] = s + first;
                lm->st_len[at] = n;
                lm->st_buf[at] = from ^ 1u;
                lm->st_lo[at] = lo + clq_lq_offset(&sl, b);
                lm->st_hi[at] = lo + (b + 1u < ways ? min(hi - lo, clq_lq_offset(&sl, b + 1u) - 1u) : hi - lo);
            } else {
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_STACK); /* cannot happen: see above */
            }
        }
#if CLQ_LQ_WG == 1
        else { /* one work-item: each key of the bucket is written at its rank at once */
            for (uint i = first; i < first + n; i++) {
                const clq_code c = y[i];
                const uint at = shift > 0 ? clq_rank_in(y, first, n, c, i) : i;
                out[s + at] = clq_from_code(c);
                CLQ_IF_PAIRS(vout[s + at] = yv[i];)
            }
        }
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLQ_LQ_WG > 1
    for (uint i = lid; i < len; i += CLQ_LQ_WG) {
        const clq_code c = y[i];
        const uint b = clq_lq_bucket(&sl, c), first = clq_lq_first(lm, b), n = lm->end[b] - first;
        if (n <= CLQ_LQ_SMALL || shift == 0) {
            const uint at = shift > 0 ? clq_rank_in(y, first, n, c, i) : i;
            out[s + at] = clq_from_code(c);
            CLQ_IF_PAIRS(vout[s + at] = yv[i];)
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
}

/* The longest segment of a CLQ_LEAF_SEGMENTS record sorted by ranking (below); longer ones are
 * split by the whole group. At least CLQ_LQ_SMALL (the stack bound above holds), and it fits the
 * 16 bits of a mark. */
#define CLQ_SEG_RANK_MAX min(4u * CLQ_LQ_SMALL, 65535u)

/* A record of short segments (segments.cl), its keys loaded at lm->buf[0] (len of them, from
 * segment `leaf.lo`'s begin): segments of at most CLQ_SEG_RANK_MAX keys are sorted by rank, the
 * others pushed for the group, with the whole code range (their exact one is not known). Keys
 * outside the segments are neither sorted nor written.
 * Ranking: each such segment marks its first position in lm->buf[1] with (begin << 16 | length),
 * a running maximum over the positions gives every key the mark of the last segment that starts
 * at or before it, and a key inside that segment counts the keys of the segment that go before it
 * (smaller, or equal and earlier) and is written there. The keys of a segment are read by
 * neighbouring work-items at once, so each read serves them all. */
void clq_lq_segments(__global clq_key *out, __global clq_value *vout, __global const uint *seg_begin,
                     __global const uint *seg_end, const clq_leaf leaf, __global uint *status,
                     __local clq_lq_local *lm)
{
    (void)vout;
    const uint lid = get_local_id(0), len = leaf.len, end_given = status[CLQ_ST_SEG_END_GIVEN];
    __local uint *mark = (__local uint *)lm->buf[1]; /* free until the split loop */
    __local const clq_code *x = lm->buf[0];
    for (uint p = lid; p < len; p += CLQ_LQ_WG)
        mark[p] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong i = (ulong)leaf.lo + lid; i <= (ulong)leaf.hi; i += CLQ_LQ_WG) {
        const uint b = seg_begin[(uint)i] - leaf.start;
        const uint n = (end_given ? seg_end[(uint)i] : seg_begin[(uint)i + 1u]) - leaf.start - b;
        if (n < 2u || clq_seg_net(n))
            continue; /* nothing to sort, or sorted by segnet.cl */
        if (n <= CLQ_SEG_RANK_MAX) {
            mark[b] = b << 16 | n;
            continue;
        }
        const uint at = clq_lq_inc(&lm->sp);
        if (at < CLQ_LQ_STACK) {
            lm->st_start[at] = b;
            lm->st_len[at] = n;
            lm->st_buf[at] = 0;
            lm->st_lo[at] = 0;
            lm->st_hi[at] = CLQ_CODE_MAX;
        } else {
            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_STACK); /* cannot happen: see CLQ_SEG_RANK_MAX */
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* running maximum: each work-item a run of positions, then a scan of the runs' maxima */
    const uint per = (len + CLQ_LQ_WG - 1) / CLQ_LQ_WG, p0 = min(lid * per, len), p1 = min(p0 + per, len);
    uint run = 0;
    for (uint p = p0; p < p1; p++)
        run = max(run, mark[p]);
    run = clq_scan_exclusive_max(run, lm->end, CLQ_LQ_WG); /* free until the split loop */
    for (uint p = p0; p < p1; p++) {
        run = max(run, mark[p]);
        mark[p] = run;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = lid; p < len; p += CLQ_LQ_WG) {
        const uint m = mark[p], b = m >> 16, n = m & 0xffffu;
        if (n < 2u || p >= b + n)
            continue; /* between segments, or in a long one */
        const clq_code c = x[p];
        const uint at = clq_rank_in(x, b, n, c, p);
        out[at] = clq_from_code(c);
        CLQ_IF_PAIRS(vout[at] = lm->vbuf[0][p];)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

#ifndef CLQ_PAIRS
/* A count record (gqsort.cl: clq_countable): keys alone, up to CLQ_LQ_COUNT_MAX of them, codes
 * lo .. hi, fewer than CLQ_LQ_WAYS. The group counts each code, then writes position p as the
 * code of the last one that starts at or before it, so the keys are read once and written once
 * (src may be out: every key is counted before any is written). */
void clq_lq_count(__global clq_key *out, __global const clq_key *src, clq_leaf leaf, __global uint *status,
                  __local clq_lq_local *lm)
{
    const uint lid = get_local_id(0);
    const uint codes = (uint)min(leaf.hi - leaf.lo, (clq_code)(CLQ_LQ_WAYS - 1u)) + 1u;
    for (uint b = lid; b < codes; b += CLQ_LQ_WG)
        lm->end[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint outside = 0;
    for (uint i = lid; i < leaf.len; i += CLQ_LQ_WG) {
        const clq_code d = clq_to_code(src[i]) - leaf.lo;
        outside |= d >= (clq_code)codes;
        clq_lq_inc(&lm->end[min(d, (clq_code)(codes - 1u))]);
    }
    if (outside)
        atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_RANGE);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    clq_lq_scan(lm->end, codes, lm->sums);
    for (uint p = lid; p < leaf.len; p += CLQ_LQ_WG) {
        uint a = 0, z = codes - 1u;
        while (a < z) {
            const uint mid = (a + z + 1u) / 2u;
            if (lm->end[mid] <= p)
                a = mid;
            else
                z = mid - 1u;
        }
        out[p] = clq_from_code(leaf.lo + a);
    }
}
#endif

/* Which records a group sorts. The device-enqueue path launches a group per record, and the
 * host loop where there are no more records than groups: group g sorts record g, and the device
 * hands out the groups as others finish. Where the host loop's grid (at most what fills the
 * device) has fewer groups than records, the groups take them one at a time from a shared
 * counter (status[CLQ_ST_LEAF_NEXT]). Records differ in length and kind (a copy or a fill is a
 * pass, a sort of 4096 keys many), and in turn, a fixed share each however long its records
 * were, the groups that drew the longest ran on alone: on an H200 2^26 uniform keys (32,462
 * records for 2112 groups) took 1.520-1.551 ms against 1.569-1.592 and 2^28 6.30 against 6.46;
 * seven other distributions at 2^26 took 1-5 % less, few-16 the same (calls 280-281,
 * docs/PERFORMANCE.md). With a record or less a group, the counter's two atomics a group, all at
 * once on one word, cost 4-10 % at 2^21 and 2^22 (1013 and 2029 records; call 282).
 * `shared` also needs the counter not to wrap (each group takes once past the last record). */
inline int clq_lq_takes_shared(uint nleaves)
{
#ifdef CLQ_DEVICE_ENQUEUE
    (void)nleaves;
    return 0;
#else
    const uint groups = (uint)get_num_groups(0);
    return nleaves > groups && nleaves <= UINT_MAX - groups;
#endif
}

inline ulong clq_lq_take(__global uint *status, int shared, __local clq_lq_local *lm)
{
    if (!shared)
        return get_group_id(0);
    if (get_local_id(0) == 0)
        lm->take = atomic_inc(&status[CLQ_ST_LEAF_NEXT]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return lm->take;
}

/* after the group's last use of local memory for record r (every work-item has read lm->take) */
inline ulong clq_lq_next(__global uint *status, int shared, ulong r, __local clq_lq_local *lm)
{
    return shared ? clq_lq_take(status, shared, lm) : r + get_num_groups(0);
}

void clq_lqsort_body(CLQ_BUFFER_PARAMS, __global clq_leaf *leaves, __global uint *status, __local clq_lq_local *lm)
{
    const uint lid = get_local_id(0);
    /* after an error in phase one the list may have holes: leave the keys as they are; while
     * phase one has sequences left (a host-loop round that enqueued fewer levels than the sort
     * needs: src/sort.c, first_round_levels), the next round runs phase two */
    const uint nleaves = status[CLQ_ST_ERROR] || status[CLQ_ST_CUR_SEQS] ? 0u
                                                                         : min(status[CLQ_ST_LEAVES], status[CLQ_ST_LEAF_CAP]);

    /* groups past the records find none (the grid fills the device whatever the records), and
     * a round with none leaves the counter at 0 for a later round's phase two: records
     * outnumbering the groups are the only case that takes from it. 64-bit: near 2^32 one-key
     * records, r + groups would wrap past nleaves */
    const int shared = clq_lq_takes_shared(nleaves);
    for (ulong r = clq_lq_take(status, shared, lm); r < nleaves; r = clq_lq_next(status, shared, r, lm)) {
        const clq_leaf leaf = leaves[r];
        __global clq_key *out = keys + leaf.start;
        __global const clq_key *src = ((leaf.flags & CLQ_LEAF_IN_SCRATCH) ? scratch : keys) + leaf.start;
        __global clq_value *vout = 0;
        CLQ_IF_PAIRS(vout = vals + leaf.start;)
        CLQ_IF_PAIRS(__global const clq_value *vsrc = ((leaf.flags & CLQ_LEAF_IN_SCRATCH) ? svals : vals) + leaf.start;)
        if (leaf.flags & CLQ_LEAF_COPY) { /* partial sorts: back from scratch, as they are */
            for (uint i = lid; i < leaf.len; i += CLQ_LQ_WG) {
                out[i] = src[i];
                CLQ_IF_PAIRS(vout[i] = vsrc[i];)
            }
        } else if (leaf.flags & CLQ_LEAF_FILL) {
            /* equal keys: rebuilt from the code; with values, moved from scratch with them */
            const clq_key value = clq_from_code(leaf.lo);
            for (uint i = lid; i < leaf.len; i += CLQ_LQ_WG) {
                out[i] = value;
                CLQ_IF_PAIRS(vout[i] = vsrc[i];)
            }
#ifndef CLQ_PAIRS
        } else if (leaf.flags & CLQ_LEAF_COUNT) {
            clq_lq_count(out, src, leaf, status, lm);
#endif
        } else if (leaf.len > CLQ_LQ_MAX) { /* cannot happen: phase one emits no such record */
            if (lid == 0)
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_LEAF_OVERFLOW);
        } else {
            const int segments = (leaf.flags & CLQ_LEAF_SEGMENTS) != 0;
#if CLQ_LQ_WG == 1
            /* one work-item counts the keys of the first split as it loads them (no pass more) */
            const uint counted = !segments;
            const clq_lq_slices sl = clq_lq_slices_of(leaf.lo, leaf.hi, leaf.len);
            for (uint b = 0; b < (counted ? sl.ways : 0u); b++)
                lm->end[b] = 0;
            uint outside = 0;
            for (uint i = 0; i < leaf.len; i++) {
                const clq_code c = clq_to_code(src[i]);
                lm->buf[0][i] = c;
                CLQ_IF_PAIRS(lm->vbuf[0][i] = vsrc[i];)
                if (counted) {
                    outside |= c < leaf.lo || c > leaf.hi;
                    lm->end[clq_lq_bucket(&sl, c)]++;
                }
            }
            if (outside)
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_RANGE);
#else
            const uint counted = 0;
            for (uint i = lid; i < leaf.len; i += CLQ_LQ_WG) {
                lm->buf[0][i] = clq_to_code(src[i]);
                CLQ_IF_PAIRS(lm->vbuf[0][i] = vsrc[i];)
            }
#endif
            if (lid == 0) {
                lm->st_start[0] = 0;
                lm->st_len[0] = leaf.len;
                lm->st_buf[0] = 0;
                lm->st_lo[0] = leaf.lo;
                lm->st_hi[0] = leaf.hi;
                lm->sp = segments ? 0u : 1u;
            }
            /* global too: the sorted keys may go back to the range they were read from */
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            if (segments)
                clq_lq_segments(out, vout, seg_begin, seg_end, leaf, status, lm);
            for (uint first = counted; lm->sp > 0; first = 0)
                clq_lq_split(out, vout, status, lm, first);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel __attribute__((reqd_work_group_size(CLQ_LQ_WG, 1, 1)))
void lqsort_kernel(CLQ_BUFFER_PARAMS, __global clq_leaf *leaves, __global uint *status)
{
    __local clq_lq_local lm;
    clq_lqsort_body(CLQ_BUFFER_ARGS_AT(status), leaves, status, &lm);
}
