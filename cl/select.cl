/*
 * select.cl - partial sorts of 32-bit keys that read every key twice and sort only candidates.
 *
 * Each key i becomes the composite c = code << pbits | i (pbits: the bits of count - 1), which
 * no two keys share and whose order is the sort's order with ties in input order. The k
 * smallest composites are the answer, so a radix selection finds a range of composites that
 * holds the k-th one and few others, and only the keys below its end are sorted:
 *   select_sample_kernel  one group: writes the sort's status words where it brings them
 *                         (clq_bring_words), zeroes the words of `sel`, then chooses the
 *                         first range, [0, 2^top), from a sample of the keys (CLQ_SEL_RANK:
 *                         for small k at least k keys lie inside it; for larger k a few more
 *                         than k in all likelihood, and if not the next launch starts again
 *                         from every composite).
 *   select_hist_kernel    one level: every group first picks, from the previous level's counts,
 *                         the bucket that holds the k-th composite as the new range (the same
 *                         pick in every group: clq_sel_advance); then the keys inside the range
 *                         [base, base + 2^width) are counted in CLQ_SEL_BINS buckets of it
 *                         (local histogram, added to the level's in sel). Once the composites
 *                         below the range's end number at most `cap` (or it is a single
 *                         composite), the selection is done: status[CLQ_ST_COUNT] becomes that
 *                         number, and the host's further levels count nothing. Every input
 *                         gets there in the levels the widest range needs, one more if the
 *                         first range may fall short of k composites (src/sort.c,
 *                         select_levels); a blocking call enqueues one level first
 *                         (select_first_round), and the rest only if the gather says so.
 *   select_gather_kernel  zeroes the k marks of the placement (below) with the whole grid
 *                         where k > CLQ_SEL_SORT_MAX (the one-group sort keeps its own), and
 *                         picks from the last level's counts as a level does. If the selection
 *                         is not done, it sets status[CLQ_ST_SEL_SHORT] and the candidates'
 *                         count to 0, and every later kernel of the round moves nothing (the
 *                         next round's levels go on from the words in sel). Else it appends
 *                         every composite below the range's end to `cand` (each group stages
 *                         its own in local memory, in the histogram's space, and appends them
 *                         with one atomic), and for k <= CLQ_SEL_SORT_MAX counts those inside
 *                         the range by the next level's digit. For larger k, where this launch
 *                         finished the selection from a range with no composite below it (one
 *                         level of uniform keys does), each candidate goes to its bucket of the
 *                         counts it picked from instead (a cursor each), unless one holds more
 *                         than CLQ_SEL_BUCKET_MAX.
 *   select_sort_kernel    one group, for k <= CLQ_SEL_SORT_MAX: from those counts (and, if
 *                         needed, further levels over the candidates) narrows the range until
 *                         at most CLQ_SEL_SORT_MAX candidates lie below its end, sorts those in
 *                         local memory and puts the answer in place by the steps of the two
 *                         kernels below, one after the other, with the marks and holes in
 *                         local memory too (clq_sel_place_group). For larger k:
 *   select_buckets_kernel sorts each of the gather's buckets in local memory, in place, and
 *                         then the candidates are sorted (status[CLQ_ST_SEL_SORTED]). Where the
 *                         gather appended them instead, the program of 64-bit keys sorts them
 *                         (with the k of the call, over status[CLQ_ST_COUNT] composites).
 * Then cand[0, k) holds the answer, sorted, and two launches put it in place, moving only keys
 * of the first k positions and keys of the answer:
 *   select_stash_kernel   keeps the answer's values; an answer key at position >= k leaves a
 *                         hole, listed; an answer key at position < k marks its position.
 *   select_place_kernel   every unmarked position < k holds a key outside the answer: it moves
 *                         into a hole (any hole: each is filled once); then the answer goes to
 *                         [0, k), keys decoded from their composites. Each position j < k is one
 *                         work-item's: it reads key j before it writes it, and the holes lie at
 *                         k or after, so one launch does both.
 * All seven kernels take the same arguments (the sample four more), set once per sort
 * (src/sort.c) but for `launch`:
 * the sample is launch 0, the levels 1, 2, ..., the gather and the one-group sort the two after
 * them (it says which histogram and which copy of the state a launch reads and writes); a second
 * round's first level takes the number of the first round's gather, whose state it overwrites
 * and whose histogram that gather left as the last level cleared it. The words of `sel` are
 * laid out in clqsort_shared.h.
 */
#if CLQ_CODE_BITS == 32

#define CLQ_SELECT_PARAMS                                                                                  \
    __global clq_key *keys, __global clq_value *vals, __global uint *sel, __global ulong *cand,           \
        __global uint *status, ulong key_offset, ulong value_offset, uint n, uint k, uint pbits, uint cap, uint launch
#define CLQ_SELECT_ARGS keys, vals, sel, cand, status, key_offset, value_offset, n, k, pbits, cap, launch

/* Runs EACH(code, i) with the code of every key i < count, the grid taking them in turn: 16-byte
 * loads, CLQ_SEL_IN_FLIGHT of them at once per work-item (a pass over every key is bound by how
 * many loads wait on memory), from the first key at a 16-byte aligned address (whatever the
 * buffer's own alignment) to the last whole group of four; the keys before and after one by
 * one. */
#define CLQ_SEL_IN_FLIGHT 4
#define CLQ_SEL_EACH_QUAD(v, i, EACH)                                                              \
    do {                                                                                           \
        EACH(clq_code_of_bits((v).x), (i));                                                        \
        EACH(clq_code_of_bits((v).y), (i) + 1);                                                    \
        EACH(clq_code_of_bits((v).z), (i) + 2);                                                    \
        EACH(clq_code_of_bits((v).w), (i) + 3);                                                    \
    } while (0)
#define CLQ_SEL_EACH_KEY(count, EACH)                                                              \
    do {                                                                                           \
        const ulong g_ = get_global_size(0), id_ = get_global_id(0), n_ = (count);                 \
        const ulong a_ = (ulong)(size_t)(keys + key_offset);                                       \
        const ulong head_ = min(((16ul - (a_ & 15ul)) & 15ul) / 4ul, n_);                          \
        const ulong quads_ = (n_ - head_) / 4, tail_ = head_ + 4 * quads_;                         \
        __global const uint4 *q_ = (__global const uint4 *)(keys + key_offset + head_);            \
        ulong j_ = id_;                                                                            \
        for (; j_ + (CLQ_SEL_IN_FLIGHT - 1) * g_ < quads_; j_ += CLQ_SEL_IN_FLIGHT * g_) {         \
            uint4 v_[CLQ_SEL_IN_FLIGHT];                                                           \
            for (uint t_ = 0; t_ < CLQ_SEL_IN_FLIGHT; t_++)                                        \
                v_[t_] = q_[j_ + t_ * g_];                                                         \
            for (uint t_ = 0; t_ < CLQ_SEL_IN_FLIGHT; t_++)                                        \
                CLQ_SEL_EACH_QUAD(v_[t_], head_ + 4 * (j_ + t_ * g_), EACH);                       \
        }                                                                                          \
        for (; j_ < quads_; j_ += g_) {                                                            \
            const uint4 w_ = q_[j_];                                                               \
            CLQ_SEL_EACH_QUAD(w_, head_ + 4 * j_, EACH);                                           \
        }                                                                                          \
        for (ulong i_ = id_; i_ < head_; i_ += g_)                                                 \
            EACH(clq_to_code(keys[key_offset + i_]), i_);                                          \
        for (ulong i_ = tail_ + id_; i_ < n_; i_ += g_)                                            \
            EACH(clq_to_code(keys[key_offset + i_]), i_);                                          \
    } while (0)

inline ulong clq_composite(clq_code code, uint i, uint pbits) { return (ulong)code << pbits | i; }

/* The selection's state, as a launch reads it and writes it (a copy in sel, CLQ_SEL_STATE): the
 * range [base, base + 2^width) after `level` levels, the composites below it, whether the
 * selection is done, and the first range's width if a sample chose it (0: every composite). */
typedef struct clq_sel_state {
    ulong base;
    uint level, below, done, sampled;
} clq_sel_state;

inline clq_sel_state clq_sel_load(__global const uint *sel, uint launch)
{
    __global const uint *w = sel + CLQ_SEL_STATE(launch);
    clq_sel_state s;
    s.base = (ulong)w[CLQ_SEL_BASE_LO] | (ulong)w[CLQ_SEL_BASE_HI] << 32;
    s.level = w[CLQ_SEL_LEVEL];
    s.below = w[CLQ_SEL_BELOW];
    s.done = w[CLQ_SEL_DONE];
    s.sampled = w[CLQ_SEL_TOP];
    return s;
}

/* By the first work-item of the grid: the state of launch `launch`, for the next launch. */
inline void clq_sel_store(__global uint *sel, uint launch, clq_sel_state s)
{
    __global uint *w = sel + CLQ_SEL_STATE(launch);
    if (get_global_id(0) != 0)
        return;
    w[CLQ_SEL_BASE_LO] = (uint)s.base;
    w[CLQ_SEL_BASE_HI] = (uint)(s.base >> 32);
    w[CLQ_SEL_LEVEL] = s.level;
    w[CLQ_SEL_BELOW] = s.below;
    w[CLQ_SEL_DONE] = s.done;
    w[CLQ_SEL_TOP] = s.sampled;
}
/* Digits are CLQ_SEL_BITS wide from the first range's highest bit (the first range is
 * [0, 2^top)), so the last level's may be narrower. The range of a selection that has done
 * `level` of its CLQ_SEL_LEVELS_OF(top) levels is 2^width composites wide. (Written without a
 * saturating subtraction: oclgrind cannot run the intrinsic LLVM makes of one.) */
inline uint clq_sel_width(uint level, uint top)
{
    return level < CLQ_SEL_LEVELS_OF(top) ? top - CLQ_SEL_BITS * level : 0u;
}
/* The first range's width: the sample's, or (no sample, or one that found top 0) every
 * composite's. */
inline uint clq_sel_top(clq_sel_state s, uint pbits) { return s.sampled ? s.sampled : 32u + pbits; }
inline uint clq_sel_inside(ulong c, ulong base, uint width) { return width >= 64u || (c >= base && (c - base) >> width == 0ul); }

/* The composites the first level of a sampled selection keeps (CLQ_SEL_KEEP_ROOM), after the
 * answer's values in sel. */
#ifdef CLQ_PAIRS
#define CLQ_SEL_VALUE_BYTES ((uint)sizeof(clq_value))
#else
#define CLQ_SEL_VALUE_BYTES 0u
#endif
inline __global ulong *clq_sel_kept(__global uint *sel, uint k)
{
    return (__global ulong *)(sel + CLQ_SEL_KEEP_WORD(k, CLQ_SEL_VALUE_BYTES));
}
/* Whether the levels after the first and the gather read the kept composites: the first level
 * kept them, and all of them fit. */
inline uint clq_sel_reads_kept(__global const uint *sel, clq_sel_state s, uint n, uint k)
{
    const uint room = CLQ_SEL_KEEP_ROOM(n, k);
    return room && s.sampled && s.level > 0u && sel[CLQ_SEL_KEPT] <= room;
}
/* The kept composites are read by the grid's first groups only, CLQ_SEL_KEPT_PER_ITEM per
 * work-item, and in a level by at least the groups that clear the next level's counts (`clears`
 * words): the grid is sized for a pass over every key, and each group that reads composites must
 * first make the pick, a read of CLQ_SEL_BINS counts. */
#define CLQ_SEL_KEPT_PER_ITEM 16u
inline uint clq_sel_kept_groups(uint nkept, uint clears)
{
    const uint per_group = CLQ_SEL_KEPT_PER_ITEM * CLQ_GQ_WG;
    const uint want = max((nkept + per_group - 1u) / per_group, (clears + CLQ_GQ_WG - 1u) / CLQ_GQ_WG);
    return clamp(want, 1u, (uint)get_num_groups(0));
}
/* Runs EACH(c) with every kept composite, the first clq_sel_kept_groups groups taking them in
 * turn, CLQ_SEL_IN_FLIGHT loads at once per work-item (as a pass over the keys does). */
#define CLQ_SEL_EACH_KEPT(count, clears, EACH)                                                     \
    do {                                                                                           \
        __global const ulong *kept_ = clq_sel_kept(sel, k);                                        \
        const uint stride_ = clq_sel_kept_groups((count), (clears)) * CLQ_GQ_WG;                   \
        uint j_ = get_global_id(0) < stride_ ? (uint)get_global_id(0) : (count);                   \
        for (; j_ + (CLQ_SEL_IN_FLIGHT - 1u) * stride_ < (count); j_ += CLQ_SEL_IN_FLIGHT * stride_) { \
            ulong c_[CLQ_SEL_IN_FLIGHT];                                                           \
            for (uint t_ = 0; t_ < CLQ_SEL_IN_FLIGHT; t_++)                                        \
                c_[t_] = kept_[j_ + t_ * stride_];                                                 \
            for (uint t_ = 0; t_ < CLQ_SEL_IN_FLIGHT; t_++)                                        \
                EACH(c_[t_]);                                                                      \
        }                                                                                          \
        for (; j_ < (count); j_ += stride_)                                                        \
            EACH(kept_[j_]);                                                                       \
    } while (0)
/* Whether this group of launch `launch` (a level after the first, or the gather) may leave at
 * once, before its pick: the launch reads only the kept composites, as the previous launch's
 * state tells without the pick (sampled, every composite of the first range kept, at least k of
 * them, so the first level does not start again), and the group is not among those that read
 * them. Group 0, which writes the state, always is. */
inline uint clq_sel_idle(__global const uint *sel, uint launch, uint n, uint k, uint clears)
{
    if (launch <= 1u) /* the first level writes what this reads */
        return 0u;
    const clq_sel_state p = clq_sel_load(sel, launch - 1u);
    const uint room = CLQ_SEL_KEEP_ROOM(n, k), nkept = sel[CLQ_SEL_KEPT];
    const uint reads_kept = room && p.sampled && nkept <= room && (p.level > 0u || nkept >= k);
    return reads_kept && get_group_id(0) >= clq_sel_kept_groups(nkept, clears);
}

/* Candidate number `at` of the gather is c. */
inline void clq_sel_append(__global ulong *cand, __global uint *status, uint cap, uint at, ulong c)
{
    if (at < cap)
        cand[at] = c;
    else /* cannot happen: the levels counted them */
        atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);
}

/* In one group: EACH(j, LOAD(j)) for every j < count, the work-items taking them in turn with
 * four loads (of type T) in flight each. */
#define CLQ_SEL_GROUP_EACH(count, T, LOAD, EACH)                                                   \
    do {                                                                                           \
        uint j_ = get_local_id(0);                                                                 \
        for (; j_ + 3u * CLQ_GQ_WG < (count); j_ += 4u * CLQ_GQ_WG) {                              \
            const T v0_ = LOAD(j_), v1_ = LOAD(j_ + CLQ_GQ_WG);                                    \
            const T v2_ = LOAD(j_ + 2u * CLQ_GQ_WG), v3_ = LOAD(j_ + 3u * CLQ_GQ_WG);              \
            EACH(j_, v0_);                                                                         \
            EACH(j_ + CLQ_GQ_WG, v1_);                                                             \
            EACH(j_ + 2u * CLQ_GQ_WG, v2_);                                                        \
            EACH(j_ + 3u * CLQ_GQ_WG, v3_);                                                        \
        }                                                                                          \
        for (; j_ < (count); j_ += CLQ_GQ_WG)                                                      \
            EACH(j_, LOAD(j_));                                                                    \
    } while (0)

/* In one group, over the counts hist[0, CLQ_SEL_BINS) of a level: the bucket b with
 * before(b) < want <= before(b) + hist[b], 1 <= want <= the sum of the counts, goes to
 * pick[0] = b, pick[1] = before(b), pick[2] = hist[b]. Returns the sum of the counts to every
 * work-item. Ends with a barrier. */
inline uint clq_sel_pick(__local const uint *hist, uint want, __local uint *scan_tmp, __local uint *pick)
{
    const uint per = CLQ_SEL_BINS / CLQ_GQ_WG, first = get_local_id(0) * per;
    uint sum = 0;
    for (uint b = first; b < first + per; b++)
        sum += hist[b];
    uint total;
    const uint before = clq_scan_exclusive(sum, &total, scan_tmp, CLQ_GQ_WG);
    if (before < want && want <= before + sum) {
        uint b = first, at = before;
        while (at + hist[b] < want)
            at += hist[b++];
        pick[0] = b;
        pick[1] = at;
        pick[2] = hist[b];
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    return total;
}

/* The picked bucket (clq_sel_pick) becomes the state's range, one level down; returns the
 * composites below the new range's end. */
inline uint clq_sel_narrow(clq_sel_state *s, __local const uint *pick, uint pbits)
{
    const uint shift = clq_sel_width(s->level + 1u, clq_sel_top(*s, pbits));
    s->base += (ulong)pick[0] << shift;
    s->below += pick[1];
    s->level++;
    return s->below + pick[2];
}

/* Every work-item of a group, at the start of launch `launch` (a level or the gather): the
 * state the previous launch left, advanced by the pick from its counts (unless it was the first
 * level, or the selection is done): the bucket that holds the k-th composite becomes the range,
 * and once the composites below its end number at most `cap` (or it is a single composite) the
 * selection is done and status[CLQ_ST_COUNT] becomes that number. Every group picks the same.
 * A sampled first range that holds fewer than k composites (the sample's keys were not like the
 * others) gives way to every composite: this launch is the first level again, counting every
 * key and keeping none. hist, scan_tmp and pick are the caller's to reuse after. */
inline clq_sel_state clq_sel_advance(__global const uint *sel, __global uint *status, uint launch, uint k, uint cap,
                                     uint pbits, __local uint *hist, __local uint *scan_tmp, __local uint *pick)
{
    clq_sel_state s = clq_sel_load(sel, launch - 1u);
    if (launch == 1u || s.done) /* the same words for every work-item */
        return s;
    const uint lid = get_local_id(0);
    for (uint b = lid; b < CLQ_SEL_BINS; b += CLQ_GQ_WG)
        hist[b] = sel[CLQ_SEL_HIST(launch - 1u) + b];
    if (lid == 0) /* kept only if the counts were inconsistent: then m = below < k, reported */
        pick[0] = pick[1] = pick[2] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint total = clq_sel_pick(hist, k - s.below, scan_tmp, pick); /* 1 <= k - below */
    if (s.level == 0u && s.sampled && total < k) {
        s.sampled = 0u; /* every composite; level, base and below stay 0 */
    } else {
        const uint m = clq_sel_narrow(&s, pick, pbits);
        /* a range of width 0 is one composite: m <= k <= cap */
        if (m <= cap || clq_sel_width(s.level, clq_sel_top(s, pbits)) == 0u) {
            s.done = 1u;
            if (get_global_id(0) == 0) {
                status[CLQ_ST_COUNT] = min(m, cap); /* the candidates' buffer holds cap */
                if (m > cap || m < k) /* cannot happen: the counts are inconsistent */
                    atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* pick[] read by every work-item */
    return s;
}

/* Counters per bit length of select_sample_kernel: spread over CLQ_SEL_SPREAD copies, as most
 * samples share a few lengths and one counter each would serialize their atomics. */
#define CLQ_SEL_SPREAD 16u

/* One group, before every other kernel of the selection: the selection's words sel[0,
 * CLQ_SEL_STARTS) to 0 (here rather than by clEnqueueFillBuffer, so that oclgrind, which does not
 * count a fill as writing, can check the selection for uninitialized reads; the buckets' cursors
 * and the k marks after them are the first level's and the gather's to clear, with the whole
 * grid), then the first range, [0, 2^top), top the
 * bit length of the composite of rank CLQ_SEL_RANK(n, k) among CLQ_SEL_SAMPLES keys spread evenly
 * over the input (all of them when there are fewer). The first level counts and keeps only the
 * keys inside it (for uniform keys, 2^26 of them and k <= 16384, about 1/300 of them). */
__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_sample_kernel(CLQ_SELECT_PARAMS, CLQ_WORDS_PARAMS)
{
    (void)vals;
    (void)cand;
    (void)value_offset;
    (void)cap;
    (void)launch;
    clq_bring_words(status, CLQ_WORDS_ARGS, CLQ_GQ_WG); /* read by later launches only */
    __local uint lengths[65 * CLQ_SEL_SPREAD]; /* samples by the bit length of their composite */
    __local uint scan_tmp[2 * CLQ_GQ_WG];
    const uint lid = get_local_id(0), copy = lid % CLQ_SEL_SPREAD;
    /* a rank above the samples: the whole range, and nothing to read */
    const uint rank = CLQ_SEL_RANK(n, k);
    const uint samples = rank <= CLQ_SEL_SAMPLES_OF(n) ? CLQ_SEL_SAMPLES_OF(n) : 0u;
    for (uint b = lid; b < 65u * CLQ_SEL_SPREAD; b += CLQ_GQ_WG)
        lengths[b] = 0;
    for (uint i = lid; i < CLQ_SEL_STARTS; i += CLQ_GQ_WG) /* the buckets' words: see the first level */
        sel[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* before sel[CLQ_SEL_TOP] is written */
    /* sample s at floor(s * step / 2^32), step = floor(n 2^32 / samples) >= 2^32: distinct
     * positions below n, without a 64-bit division per sample */
    const ulong step = samples ? ((ulong)n << 32) / samples : 0ul;
#define CLQ_SEL_SAMPLE_AT(s) ((uint)(((ulong)(s) * step) >> 32))
    /* all of a work-item's samples in flight at once (16 each with the H200's groups of 256) */
#define CLQ_SEL_SAMPLE_BATCH 16u
    for (uint s0 = lid; s0 < samples; s0 += CLQ_SEL_SAMPLE_BATCH * CLQ_GQ_WG) {
        clq_key v[CLQ_SEL_SAMPLE_BATCH];
        for (uint j = 0; j < CLQ_SEL_SAMPLE_BATCH; j++) {
            const uint s = s0 + j * CLQ_GQ_WG;
            v[j] = keys[key_offset + CLQ_SEL_SAMPLE_AT(s < samples ? s : s0)];
        }
        for (uint j = 0; j < CLQ_SEL_SAMPLE_BATCH; j++) {
            const uint s = s0 + j * CLQ_GQ_WG;
            const ulong c = clq_composite(clq_to_code(v[j]), CLQ_SEL_SAMPLE_AT(s), pbits);
            if (s < samples)
                clq_gq_add(&lengths[(c ? 64u - (uint)clz(c) : 0u) * CLQ_SEL_SPREAD + copy], 1u);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* top: the smallest bit length with `rank` samples at or below it, so below 2^top. Work-item
     * t adds up length t's copies, a scan of the group gives the samples below each length, and
     * the one whose length takes them to `rank` writes it; exactly one does, as rank <= samples
     * (length 0 where rank is 0). No samples: every composite. One work-item walking the lengths
     * in turn read up to 65 x 16 counters one after another: this kernel took 0.017-0.019 ms
     * that way and 0.015-0.017 so on an H200 (call 271, docs/PERFORMANCE.md). */
    uint below = 0;
    for (uint t0 = 0; t0 < 65u; t0 += CLQ_GQ_WG) { /* the same for every work-item */
        const uint t = t0 + lid;
        uint mine = 0;
        for (uint c = 0; t < 65u && c < CLQ_SEL_SPREAD; c++)
            mine += lengths[t * CLQ_SEL_SPREAD + c];
        uint total;
        const uint before = below + clq_scan_exclusive(mine, &total, scan_tmp, CLQ_GQ_WG);
        if (samples && t < 65u && (before < rank || t == 0u) && before + mine >= rank)
            sel[CLQ_SEL_STATE(0u) + CLQ_SEL_TOP] = t;
        below += total;
    }
    if (!samples && lid == 0)
        sel[CLQ_SEL_STATE(0u) + CLQ_SEL_TOP] = 32u + pbits;
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_hist_kernel(CLQ_SELECT_PARAMS)
{
    (void)vals;
    (void)cand;
    (void)value_offset;
    __local uint hist[CLQ_SEL_BINS];
    __local ulong stage[CLQ_SEL_KEEP_STAGE];
    __local uint staged, first;
    __local uint scan_tmp[2 * CLQ_GQ_WG];
    __local uint pick[3];
    if (clq_sel_idle(sel, launch, n, k, CLQ_SEL_BINS))
        return;
    const clq_sel_state s = clq_sel_advance(sel, status, launch, k, cap, pbits, hist, scan_tmp, pick);
    clq_sel_store(sel, launch, s);
    for (uint b = get_global_id(0); b < CLQ_SEL_BINS; b += get_global_size(0)) {
        sel[CLQ_SEL_HIST(launch + 1u) + b] = 0; /* for the next launch's counts */
        if (launch == 1u && k > CLQ_SEL_SORT_MAX)
            sel[CLQ_SEL_CURSORS + b] = 0; /* for the gather's buckets (their starts need none) */
    }
    const uint done = s.done; /* then this level counts nothing */
    const uint level = s.level, top = clq_sel_top(s, pbits);
    const uint width = clq_sel_width(level, top), shift = clq_sel_width(level + 1u, top);
    const ulong base = s.base;
    const uint bins = done ? 0u : CLQ_SEL_BINS;
    /* the first level of a sampled selection keeps its range's composites for the later ones */
    const uint room = CLQ_SEL_KEEP_ROOM(n, k), keep = !done && level == 0u && room && s.sampled;
    const uint kept = !done && clq_sel_reads_kept(sel, s, n, k), count = done || kept ? 0u : n;
    const uint nkept = kept ? sel[CLQ_SEL_KEPT] : 0u;
    for (uint b = get_local_id(0); b < bins; b += CLQ_GQ_WG)
        hist[b] = 0;
    if (get_local_id(0) == 0)
        staged = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
/* Counts composite c if it lies in the level's range, then does THEN(c) with it (keeping it, or
 * nothing). */
#define CLQ_SEL_COUNT_THEN(c, THEN)                                                                \
    do {                                                                                           \
        if (clq_sel_inside((c), base, width)) {                                                    \
            clq_gq_add(&hist[(uint)(((c) - base) >> shift)], 1u);                                  \
            THEN(c);                                                                               \
        }                                                                                          \
    } while (0)
#define CLQ_SEL_NOTHING(c) ((void)(c))
/* kept in the group's stage as far as it holds; a group with more makes the keeping fail (below),
 * as the input is then not the one the sample promised */
#define CLQ_SEL_KEEP(c)                                                                            \
    do {                                                                                           \
        const uint s_ = atomic_inc(&staged);                                                       \
        if (s_ < CLQ_SEL_KEEP_STAGE)                                                               \
            stage[s_] = (c);                                                                       \
    } while (0)
#define CLQ_SEL_COUNT_C(c) CLQ_SEL_COUNT_THEN(c, CLQ_SEL_NOTHING)
#define CLQ_SEL_COUNT_KEY(code, i, THEN)                                                           \
    do {                                                                                           \
        const ulong c_ = clq_composite((code), (uint)(i), pbits);                                  \
        CLQ_SEL_COUNT_THEN(c_, THEN);                                                              \
    } while (0)
#define CLQ_SEL_COUNT(code, i) CLQ_SEL_COUNT_KEY(code, i, CLQ_SEL_NOTHING)
#define CLQ_SEL_COUNT_KEEP(code, i) CLQ_SEL_COUNT_KEY(code, i, CLQ_SEL_KEEP)
/* the first level, when its range [0, 2^top) holds whole codes (codes below 2^cs, every
 * position), by the code alone: its top CLQ_SEL_BITS bits below 2^cs */
    const uint cs = top - pbits;
#define CLQ_SEL_COUNT_FIRST_THEN(code, i, THEN)                                                    \
    do {                                                                                           \
        if (((ulong)(code) >> cs) == 0ul) {                                                        \
            clq_gq_add(&hist[(code) >> (cs - CLQ_SEL_BITS)], 1u);                                  \
            THEN(clq_composite((code), (uint)(i), pbits));                                         \
        }                                                                                          \
    } while (0)
#define CLQ_SEL_COUNT_FIRST(code, i) CLQ_SEL_COUNT_FIRST_THEN(code, i, CLQ_SEL_NOTHING)
#define CLQ_SEL_COUNT_FIRST_KEEP(code, i) CLQ_SEL_COUNT_FIRST_THEN(code, i, CLQ_SEL_KEEP)
    if (kept)
        CLQ_SEL_EACH_KEPT(nkept, CLQ_SEL_BINS, CLQ_SEL_COUNT_C);
    else if (keep && top >= pbits + CLQ_SEL_BITS)
        CLQ_SEL_EACH_KEY(count, CLQ_SEL_COUNT_FIRST_KEEP);
    else if (keep)
        CLQ_SEL_EACH_KEY(count, CLQ_SEL_COUNT_KEEP);
    else if (level == 0u && top >= pbits + CLQ_SEL_BITS)
        CLQ_SEL_EACH_KEY(count, CLQ_SEL_COUNT_FIRST);
    else
        CLQ_SEL_EACH_KEY(count, CLQ_SEL_COUNT);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The group's kept composites, with one atomic; too many: past the room at once. The barrier
     * stays outside the branch on `keep`, though every work-item of the group takes it alike:
     * inside it, pocl 3.1 (two threads) let the group write its composites at the wrong places
     * about once in 50 runs of test_segments' partial sorts at 300007 keys, and the later levels
     * then counted composites that were not the input's. */
    const uint held = keep ? min(staged, CLQ_SEL_KEEP_STAGE) : 0u;
    if (keep && get_local_id(0) == 0) {
        if (staged > CLQ_SEL_KEEP_STAGE) {
            atomic_max(&sel[CLQ_SEL_KEPT], room + 1u);
            first = room; /* writes nothing */
        } else {
            first = atomic_add(&sel[CLQ_SEL_KEPT], held);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global ulong *to = clq_sel_kept(sel, k);
    for (uint j = get_local_id(0); j < held; j += CLQ_GQ_WG)
        if (first + j < room)
            to[first + j] = stage[j];
    for (uint b = get_local_id(0); b < bins; b += CLQ_GQ_WG)
        if (hist[b])
            atomic_add(&sel[CLQ_SEL_HIST(launch) + b], hist[b]);
}

/* The gather's buckets, for k > CLQ_SEL_SORT_MAX where this launch's pick finished the
 * selection and no composite lies below the range that the picked counts split: then the
 * candidates are exactly the composites of that range's buckets 0 to buckets - 1, whose counts
 * are in hist. Turns the counts into each bucket's first candidate (in place) and returns
 * `buckets`, or 0 where one of them holds more than CLQ_SEL_BUCKET_MAX (the counts are gone
 * either way). Every work-item of the group calls it; it ends with a barrier. */
inline uint clq_sel_bucket_starts(__local uint *hist, uint buckets, __local uint *scan_tmp, __local uint *largest)
{
    const uint per = CLQ_SEL_BINS / CLQ_GQ_WG, first = get_local_id(0) * per, end = min(first + per, buckets);
    if (get_local_id(0) == 0)
        *largest = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint sum = 0, most = 0;
    for (uint b = first; b < end; b++) {
        sum += hist[b];
        most = max(most, hist[b]);
    }
    atomic_max(largest, most);
    uint total;
    uint at = clq_scan_exclusive(sum, &total, scan_tmp, CLQ_GQ_WG);
    for (uint b = first; b < end; b++) {
        const uint count = hist[b];
        hist[b] = at;
        at += count;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *largest <= CLQ_SEL_BUCKET_MAX ? buckets : 0u;
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_gather_kernel(CLQ_SELECT_PARAMS)
{
    (void)vals;
    (void)value_offset;
    __local union {
        uint hist[CLQ_SEL_BINS];    /* for the pick */
        ulong stage[CLQ_SEL_STAGE]; /* then the group's candidates */
    } loc;
    __local uint staged, first, largest;
    __local uint scan_tmp[2 * CLQ_GQ_WG];
    __local uint pick[3];
    for (ulong i = get_global_id(0); k > CLQ_SEL_SORT_MAX && i < k; i += get_global_size(0))
        sel[CLQ_SEL_WORDS + i] = 0; /* the marks, for select_stash_kernel (one group keeps its own) */
    if (clq_sel_idle(sel, launch, n, k, 0u))
        return;
    const clq_sel_state was = clq_sel_load(sel, launch - 1u);
    const clq_sel_state s = clq_sel_advance(sel, status, launch, k, cap, pbits, loc.hist, scan_tmp, pick);
    clq_sel_store(sel, launch, s);
    if (!s.done) { /* the levels enqueued so far were not enough: nothing to sort, nothing moved */
        if (get_global_id(0) == 0) {
            status[CLQ_ST_SEL_SHORT] = 1u;
            status[CLQ_ST_COUNT] = 0u; /* the 64-bit program's sort of the candidates sorts none */
        }
        return;
    }
    const uint level = s.level, top = clq_sel_top(s, pbits), width = clq_sel_width(level, top);
    const uint next = clq_sel_width(level + 1u, top), counts = k <= CLQ_SEL_SORT_MAX;
    const ulong base = s.base;
    const uint kept = clq_sel_reads_kept(sel, s, n, k), nkept = kept ? sel[CLQ_SEL_KEPT] : 0u;
    __global uint *next_counts = sel + CLQ_SEL_HIST(launch); /* cleared by the last level */
    /* Large k: the candidates go to their buckets of the counts just picked from, if this launch
     * finished the selection, no composite lies below the range those counts split, and no
     * bucket is too large; select_buckets_kernel then sorts them, and the 64-bit program's sort
     * sorts none. Else they are appended in any order, for that sort. */
    const uint buckets = !counts && !was.done && was.below == 0u
                             ? clq_sel_bucket_starts(loc.hist, pick[0] + 1u, scan_tmp, &largest)
                             : 0u;
    const ulong origin = was.base;
    const uint shift = width;
    uint m = 0; /* the candidates: below the range, none; inside it, the picked bucket's */
    if (buckets)
        m = pick[1] + pick[2];
    if (buckets && get_group_id(0) == 0) {
        for (uint b = get_local_id(0); b < buckets; b += CLQ_GQ_WG)
            sel[CLQ_SEL_STARTS + b] = loc.hist[b];
        if (get_local_id(0) == 0) {
            sel[CLQ_SEL_STARTS + buckets] = m;
            sel[CLQ_SEL_ORIGIN_LO] = (uint)origin;
            sel[CLQ_SEL_ORIGIN_HI] = (uint)(origin >> 32);
            sel[CLQ_SEL_SHIFT] = shift;
            sel[CLQ_SEL_BUCKETS] = buckets;
            status[CLQ_ST_SEL_SORTED] = 1u;
        }
    }
    if (get_local_id(0) == 0)
        staged = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* every composite below the range's end; those inside the range also counted by the next
     * level's digit for select_sort_kernel */
#define CLQ_SEL_GATHER_C(c)                                                                        \
    do {                                                                                           \
        const uint in_ = clq_sel_inside((c), base, width);                                         \
        if ((c) < base || in_) {                                                                   \
            const uint s_ = atomic_inc(&staged);                                                   \
            if (s_ < CLQ_SEL_STAGE)                                                                \
                loc.stage[s_] = (c);                                                               \
            else                                                                                   \
                clq_sel_append(cand, status, cap, atomic_inc(&sel[CLQ_SEL_TAKEN]), (c));           \
            if (in_ && counts)                                                                     \
                atomic_inc(&next_counts[(uint)(((c) - base) >> next)]);                            \
        }                                                                                          \
    } while (0)
#define CLQ_SEL_GATHER(code, i) CLQ_SEL_GATHER_C(clq_composite((code), (uint)(i), pbits))
/* into bucket b at its start plus its cursor's count; `mine` counts them for sel[CLQ_SEL_TAKEN] */
#define CLQ_SEL_BUCKET_C(c)                                                                        \
    do {                                                                                           \
        if ((c) < base || clq_sel_inside((c), base, width)) {                                      \
            const ulong b_ = ((c) - origin) >> shift;                                              \
            const uint at_ = b_ < buckets ? loc.hist[b_] + atomic_inc(&sel[CLQ_SEL_CURSORS + b_]) : m; \
            if (at_ < (b_ + 1u < buckets ? loc.hist[b_ + 1u] : m))                                 \
                cand[at_] = (c);                                                                   \
            else /* cannot happen: the counts put it there */                                     \
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);                                  \
            mine++;                                                                                \
        }                                                                                          \
    } while (0)
#define CLQ_SEL_BUCKET(code, i) CLQ_SEL_BUCKET_C(clq_composite((code), (uint)(i), pbits))
    if (buckets) {
        uint mine = 0;
        if (kept)
            CLQ_SEL_EACH_KEPT(nkept, 0u, CLQ_SEL_BUCKET_C);
        else
            CLQ_SEL_EACH_KEY(n, CLQ_SEL_BUCKET);
        if (mine)
            atomic_add(&sel[CLQ_SEL_TAKEN], mine);
        return;
    }
    if (kept)
        CLQ_SEL_EACH_KEPT(nkept, 0u, CLQ_SEL_GATHER_C);
    else
        CLQ_SEL_EACH_KEY(n, CLQ_SEL_GATHER);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint held = min(staged, CLQ_SEL_STAGE);
    if (get_local_id(0) == 0)
        first = held ? atomic_add(&sel[CLQ_SEL_TAKEN], held) : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = get_local_id(0); j < held; j += CLQ_GQ_WG)
        clq_sel_append(cand, status, cap, first + j, loc.stage[j]);
}

/* The first of the gather's buckets that starts at or after candidate v <= start[buckets]. */
inline uint clq_sel_bucket_at(__global const uint *start, uint buckets, uint v)
{
    uint lo = 0, hi = buckets;
    while (lo < hi) {
        const uint mid = (lo + hi) / 2u;
        if (start[mid] < v)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

/* After the gather, for k > CLQ_SEL_SORT_MAX: where it left the candidates in buckets, sorts
 * each bucket in place, so that cand[0, m) is sorted; else returns at once. The groups take
 * spans of CLQ_SEL_BUCKET_SPAN candidates in turn, each the buckets that start in it (fewer
 * than CLQ_SEL_BUCKET_SPAN + CLQ_SEL_BUCKET_MAX candidates) in local memory. A candidate's place
 * in its bucket is the number of smaller ones there: composites are distinct. */
__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_buckets_kernel(CLQ_SELECT_PARAMS)
{
    (void)keys;
    (void)vals;
    (void)key_offset;
    (void)value_offset;
    (void)n;
    (void)k;
    (void)pbits;
    (void)cap;
    (void)launch;
    __local ulong x[CLQ_SEL_BUCKET_SPAN + CLQ_SEL_BUCKET_MAX];
    __local uint span[2];
    const uint buckets = sel[CLQ_SEL_BUCKETS], lid = get_local_id(0);
    if (!buckets)
        return;
    __global const uint *start = sel + CLQ_SEL_STARTS;
    const ulong origin = (ulong)sel[CLQ_SEL_ORIGIN_LO] | (ulong)sel[CLQ_SEL_ORIGIN_HI] << 32;
    const uint shift = sel[CLQ_SEL_SHIFT], m = start[buckets];
    for (uint from = get_group_id(0) * CLQ_SEL_BUCKET_SPAN; from < m;
         from += get_num_groups(0) * CLQ_SEL_BUCKET_SPAN) {
        if (lid == 0) {
            span[0] = clq_sel_bucket_at(start, buckets, from);
            span[1] = clq_sel_bucket_at(start, buckets, min(from + CLQ_SEL_BUCKET_SPAN, m));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint b0 = span[0], b1 = span[1], lo = start[b0];
        uint len = start[b1] - lo;
        if (len > CLQ_SEL_BUCKET_SPAN + CLQ_SEL_BUCKET_MAX) { /* cannot happen: the gather checked */
            if (lid == 0)
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);
            len = 0;
        }
        for (uint i = lid; i < len; i += CLQ_GQ_WG)
            x[i] = cand[lo + i];
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* every read before a write */
        for (uint i = lid; i < len; i += CLQ_GQ_WG) {
            const ulong c = x[i], b = (c - origin) >> shift;
            if (b < b0 || b >= b1) { /* cannot happen: the gather put it in its bucket */
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);
                continue;
            }
            const uint head = start[b] - lo, tail = start[b + 1u] - lo;
            uint rank = 0;
            for (uint j = head; j < tail; j++)
                rank += x[j] < c;
            cand[lo + head + rank] = c;
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* x and span, before the next span's */
    }
}

#define CLQ_SEL_POSITION(c, pbits) ((uint)((c) & ((1ul << (pbits)) - 1ul)))

/* Whether the placement may run: no step before it failed, and the gather took as many
 * candidates as the levels counted (else the sort read candidates the gather did not write,
 * perhaps an earlier sort's; cannot happen, reported by clq_sel_stash). */
inline uint clq_sel_may_place(__global const uint *sel, __global const uint *status)
{
    return !status[CLQ_ST_ERROR] && !status[CLQ_ST_SEL_SHORT] && sel[CLQ_SEL_TAKEN] == status[CLQ_ST_COUNT];
}

/* The placement's first step for one answer key, at input position pos: its value into STASH
 * (pairs), then its position marked (below k) or listed among the holes, `listed` counting them.
 * marks and holes are global for the separate kernels, local in select_sort_kernel's group. A
 * position past n cannot happen (a composite names one of the n keys): it is reported, and the
 * placement's second step then moves nothing. */
#define CLQ_SEL_STASH_ONE(pos, STASH, marks, holes, listed)                                        \
    do {                                                                                           \
        if ((pos) >= n) {                                                                          \
            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);                                      \
        } else {                                                                                   \
            CLQ_IF_PAIRS(STASH = vals[value_offset + (pos)];)                                      \
            if ((pos) < k)                                                                         \
                (marks)[pos] = 1;                                                                  \
            else                                                                                   \
                (holes)[atomic_inc(listed)] = (pos);                                               \
        }                                                                                          \
    } while (0)

/* The two steps that put the answer cand[0, k) in place, each over i = first, first + step, ...
 * below k: their own launches, or one after the other in select_sort_kernel's group. If one
 * may not run, the keys stay as they are. */
inline void clq_sel_stash(CLQ_SELECT_PARAMS, ulong first, ulong step)
{
    (void)keys;
    (void)key_offset;
    (void)cap;
    (void)launch;
    __global uint *marks = sel + CLQ_SEL_WORDS, *holes = marks + k;
    __global clq_value *stash = (__global clq_value *)(holes + k);
    if (get_global_id(0) == 0 && sel[CLQ_SEL_TAKEN] != status[CLQ_ST_COUNT])
        atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);
    if (!clq_sel_may_place(sel, status))
        return;
    for (ulong i = first; i < k; i += step) {
        const uint pos = CLQ_SEL_POSITION(cand[i], pbits);
        CLQ_SEL_STASH_ONE(pos, stash[i], marks, holes, &sel[CLQ_SEL_HOLES]);
    }
}

/* Position j < k: its key, if not the answer's, into a hole (read before it is overwritten: no
 * other work-item reads position j, and every hole lies at k or after); then the answer's j-th
 * key there. */
inline void clq_sel_place(CLQ_SELECT_PARAMS, ulong first, ulong step)
{
    (void)n;
    (void)cap;
    (void)launch;
    __global const uint *marks = sel + CLQ_SEL_WORDS, *holes = marks + k;
    __global const clq_value *stash = (__global const clq_value *)(holes + k);
    if (!clq_sel_may_place(sel, status))
        return;
    for (ulong j = first; j < k; j += step) {
        if (!marks[j]) {
            const uint to = holes[atomic_inc(&sel[CLQ_SEL_FILLED])];
            keys[key_offset + to] = keys[key_offset + j];
            CLQ_IF_PAIRS(vals[value_offset + to] = vals[value_offset + j];)
        }
        keys[key_offset + j] = clq_from_code((clq_code)(cand[j] >> pbits));
        CLQ_IF_PAIRS(vals[value_offset + j] = stash[j];)
    }
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_stash_kernel(CLQ_SELECT_PARAMS)
{
    clq_sel_stash(CLQ_SELECT_ARGS, get_global_id(0), get_global_size(0));
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_place_kernel(CLQ_SELECT_PARAMS)
{
    clq_sel_place(CLQ_SELECT_ARGS, get_global_id(0), get_global_size(0));
}

/* select_sort_kernel's bitonic sort of x[0, size) in local memory (size a power of two, at
 * least 8), one barrier a phase of up to three steps rather than one a step: a phase's steps
 * compare positions that differ in three adjacent bits only, so a work-item loads the 8 keys
 * that share its other bits, runs the steps on them in registers and stores them back (24
 * phases for 2048 keys instead of 66 steps; docs/PERFORMANCE.md has the measurements).
 * Positions are stored at CLQ_SEL_SLOT: the low 4 bits XORed with the next 4, so that the 8
 * keys of neighbouring work-items do not fall in the same few banks (16 slots of 8 bytes). */
#define CLQ_SEL_SLOT(i) ((i) ^ (((i) >> 4) & 15u))
/* work-item t's e-th position (e < 8) of a phase whose steps change bits q, q + 1, q + 2 */
#define CLQ_SEL_POS8(t, q, e) ((((t) >> (q)) << ((q) + 3u)) | ((uint)(e) << (q)) | ((t) & ((1u << (q)) - 1u)))
#define CLQ_SEL_CX(v, a, b, up)                                                                    \
    do {                                                                                           \
        const ulong x_ = (v)[a], y_ = (v)[b];                                                      \
        if ((x_ > y_) == (up)) {                                                                   \
            (v)[a] = y_;                                                                           \
            (v)[b] = x_;                                                                           \
        }                                                                                          \
    } while (0)
#define CLQ_SEL_EACH8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
/* one step over the 8 keys: the pairs (e, e + bit) whose e lacks bit `bit` (4, 2 or 1),
 * ascending where UP(e); e and bit are literals, so the test and the indices fold away */
#define CLQ_SEL_CX_IF(v, e, bit, UP)                                                               \
    do {                                                                                           \
        if (!((e) & (bit)))                                                                        \
            CLQ_SEL_CX(v, e, (e) | (bit), UP(e));                                                  \
    } while (0)
#define CLQ_SEL_STEP(v, bit, UP)                                                                   \
    do {                                                                                           \
        CLQ_SEL_CX_IF(v, 0, bit, UP);                                                              \
        CLQ_SEL_CX_IF(v, 1, bit, UP);                                                              \
        CLQ_SEL_CX_IF(v, 2, bit, UP);                                                              \
        CLQ_SEL_CX_IF(v, 3, bit, UP);                                                              \
        CLQ_SEL_CX_IF(v, 4, bit, UP);                                                              \
        CLQ_SEL_CX_IF(v, 5, bit, UP);                                                              \
        CLQ_SEL_CX_IF(v, 6, bit, UP);                                                              \
        CLQ_SEL_CX_IF(v, 7, bit, UP);                                                              \
    } while (0)

/* One phase: with len 0 the first one, every step of lengths 2, 4 and 8 on 8 adjacent keys;
 * else the steps of length len with gaps gap, gap / 2 and gap / 4 (those of them >= 1). */
inline void clq_sel_bitonic_phase(__local ulong *x, uint size, uint len, uint gap)
{
    const uint q = gap >= 4u ? 29u - clz(gap) : 0u; /* log2(gap) - 2 */
    for (uint t = get_local_id(0); t < size / 8u; t += CLQ_GQ_WG) {
        ulong v[8];
#define CLQ_SEL_LOAD8(e) v[e] = x[CLQ_SEL_SLOT(CLQ_SEL_POS8(t, q, e))];
        CLQ_SEL_EACH8(CLQ_SEL_LOAD8)
        if (len == 0u) { /* position 8t + e: ascending runs where the bit of their length is 0 */
#define CLQ_SEL_UP2(e) (!((e) & 2))
#define CLQ_SEL_UP4(e) (!((e) & 4))
#define CLQ_SEL_UP8(e) (!(t & 1u))
            CLQ_SEL_STEP(v, 1u, CLQ_SEL_UP2);
            CLQ_SEL_STEP(v, 2u, CLQ_SEL_UP4);
            CLQ_SEL_STEP(v, 1u, CLQ_SEL_UP4);
            CLQ_SEL_STEP(v, 4u, CLQ_SEL_UP8);
            CLQ_SEL_STEP(v, 2u, CLQ_SEL_UP8);
            CLQ_SEL_STEP(v, 1u, CLQ_SEL_UP8);
        } else { /* len is above the three bits: one direction for all 8 */
            const int up = !(CLQ_SEL_POS8(t, q, 0) & len);
#define CLQ_SEL_UP(e) up
            if (gap >= 4u)
                CLQ_SEL_STEP(v, 4u, CLQ_SEL_UP);
            if (gap >= 2u)
                CLQ_SEL_STEP(v, 2u, CLQ_SEL_UP);
            CLQ_SEL_STEP(v, 1u, CLQ_SEL_UP);
        }
#define CLQ_SEL_STORE8(e) x[CLQ_SEL_SLOT(CLQ_SEL_POS8(t, q, e))] = v[e];
        CLQ_SEL_EACH8(CLQ_SEL_STORE8)
    }
}

/* Positions j < k of select_sort_kernel's placement: work-item j % CLQ_GQ_WG's, in its round
 * j / CLQ_GQ_WG. */
#define CLQ_SEL_ROUNDS ((CLQ_SEL_SORT_MAX + CLQ_GQ_WG - 1u) / CLQ_GQ_WG)

/* select_sort_kernel's placement of its sorted answer x[0, k) (at CLQ_SEL_SLOT): the steps of
 * clq_sel_stash and clq_sel_place, with the marks and holes in local memory (k of each; `words`:
 * the holes listed, those filled, whether the placement goes on) and each work-item's values of
 * the answer in registers between the steps. A group alone on the device waits for each global
 * access in turn: the two steps' global atomics and reads of cand took most of its time there
 * (docs/PERFORMANCE.md). Every work-item calls it; the checks are made once, by work-item 0, so
 * that all leave together. */
inline void clq_sel_place_group(CLQ_SELECT_PARAMS, __local const ulong *x, __local uchar *marks, __local uint *holes,
                                __local uint *words)
{
    (void)cand;
    (void)cap;
    (void)launch;
    const uint lid = get_local_id(0);
    for (uint j = lid; j < k; j += CLQ_GQ_WG)
        marks[j] = 0;
    if (lid == 0) {
        if (sel[CLQ_SEL_TAKEN] != status[CLQ_ST_COUNT])
            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);
        words[0] = words[1] = 0;
        words[2] = clq_sel_may_place(sel, status);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (!words[2])
        return;
    CLQ_IF_PAIRS(clq_value answer[CLQ_SEL_ROUNDS];)
    for (uint r = 0; r < CLQ_SEL_ROUNDS; r++) {
        const uint i = lid + r * CLQ_GQ_WG;
        if (i >= k)
            break;
        const uint pos = CLQ_SEL_POSITION(x[CLQ_SEL_SLOT(i)], pbits);
        CLQ_SEL_STASH_ONE(pos, answer[r], marks, holes, &words[0]);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (lid == 0)
        words[2] = !status[CLQ_ST_ERROR];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!words[2])
        return;
    /* position j's key, where it is not the answer's, into a hole: every load of the work-item
     * first, then the stores (no other work-item reads position j, and the holes lie at k or
     * after) */
    clq_key moving[CLQ_SEL_ROUNDS];
    CLQ_IF_PAIRS(clq_value moving_value[CLQ_SEL_ROUNDS];)
    for (uint r = 0; r < CLQ_SEL_ROUNDS; r++) {
        const uint j = lid + r * CLQ_GQ_WG;
        if (j < k && !marks[j]) {
            moving[r] = keys[key_offset + j];
            CLQ_IF_PAIRS(moving_value[r] = vals[value_offset + j];)
        }
    }
    for (uint r = 0; r < CLQ_SEL_ROUNDS; r++) {
        const uint j = lid + r * CLQ_GQ_WG;
        if (j >= k)
            break;
        if (!marks[j]) {
            const uint f = atomic_inc(&words[1]);
            if (f >= words[0]) { /* cannot happen: as many holes as unmarked positions */
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);
                continue;
            }
            keys[key_offset + holes[f]] = moving[r];
            CLQ_IF_PAIRS(vals[value_offset + holes[f]] = moving_value[r];)
        }
        keys[key_offset + j] = clq_from_code((clq_code)(x[CLQ_SEL_SLOT(j)] >> pbits));
        CLQ_IF_PAIRS(vals[value_offset + j] = answer[r];)
    }
}

/* One group, when k <= CLQ_SEL_SORT_MAX (the host's choice), in place of the 64-bit program's
 * sort: the same levels narrow the candidates cand[0, m) again, in local memory, until at most
 * CLQ_SEL_SORT_MAX lie below the range's end (the first level's counts come from the gather);
 * those are sorted in local memory (bitonic, in phases), the first k written back to cand[0, k)
 * and put in place by the same group. One launch instead of two per phase-one level and the
 * two of the placement. */
__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_sort_kernel(CLQ_SELECT_PARAMS)
{
    (void)keys;
    (void)vals;
    (void)key_offset;
    (void)value_offset;
    (void)n;
    __local union {
        uint hist[CLQ_SEL_BINS];       /* while narrowing */
        ulong keys[CLQ_SEL_SORT_MAX]; /* then the composites below the range's end */
    } loc;
    __local uint scan_tmp[2 * CLQ_GQ_WG];
    __local uint pick[3];
    __local uint taken;
    __local uchar marks[CLQ_SEL_SORT_MAX];
    __local uint holes[CLQ_SEL_SORT_MAX], words[3];
    if (status[CLQ_ST_SEL_SHORT]) /* the gather found the selection unfinished: the host goes on */
        return;
    const uint lid = get_local_id(0), m = status[CLQ_ST_COUNT]; /* <= cap: the pick clamps it */
    /* from where the selection stopped (the gather's state): the range, the candidates below it
     * and (counted by the gather) the next level's counts; end: the candidates below the range's
     * end */
    clq_sel_state s = clq_sel_load(sel, launch - 1u);
    const uint top = clq_sel_top(s, pbits);
    uint end = m, counted = 1;
    if (lid == 0) /* set by every pick of consistent counts; defined for any */
        pick[0] = pick[1] = pick[2] = 0;
#define CLQ_SEL_LOAD_CAND(i) cand[i]
    while (end > CLQ_SEL_SORT_MAX && s.level < CLQ_SEL_LEVELS_OF(top)) {
        const uint width = clq_sel_width(s.level, top), shift = clq_sel_width(s.level + 1u, top);
        const ulong base = s.base;
        for (uint b = lid; b < CLQ_SEL_BINS; b += CLQ_GQ_WG)
            loc.hist[b] = counted ? sel[CLQ_SEL_HIST(launch - 1u) + b] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
#define CLQ_SEL_COUNT_CAND(i, c)                                                                   \
    do {                                                                                           \
        if (clq_sel_inside((c), base, width))                                                      \
            clq_gq_add(&loc.hist[(uint)(((c) - base) >> shift)], 1u);                              \
    } while (0)
        if (!counted)
            CLQ_SEL_GROUP_EACH(m, ulong, CLQ_SEL_LOAD_CAND, CLQ_SEL_COUNT_CAND);
        barrier(CLK_LOCAL_MEM_FENCE);
        clq_sel_pick(loc.hist, k - s.below, scan_tmp, pick);
        end = clq_sel_narrow(&s, pick, pbits);
        counted = 0;
        barrier(CLK_LOCAL_MEM_FENCE); /* pick[] read before the next level's pick */
    }
    if (lid == 0)
        taken = counted ? m : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint width = clq_sel_width(s.level, top);
    const ulong base = s.base;
    /* after levels here, the candidates below the range's end (contending for one counter);
     * without, every candidate: the gather took only those (and m <= CLQ_SEL_SORT_MAX) */
#define CLQ_SEL_TAKE_CAND(i, c)                                                                    \
    do {                                                                                           \
        if ((c) < base || clq_sel_inside((c), base, width)) {                                      \
            const uint at_ = atomic_inc(&taken);                                                   \
            if (at_ < CLQ_SEL_SORT_MAX)                                                            \
                loc.keys[CLQ_SEL_SLOT(at_)] = (c);                                                 \
        }                                                                                          \
    } while (0)
#define CLQ_SEL_COPY_CAND(i, c) (loc.keys[CLQ_SEL_SLOT(i)] = (c))
    if (counted)
        CLQ_SEL_GROUP_EACH(min(m, CLQ_SEL_SORT_MAX), ulong, CLQ_SEL_LOAD_CAND, CLQ_SEL_COPY_CAND);
    else
        CLQ_SEL_GROUP_EACH(m, ulong, CLQ_SEL_LOAD_CAND, CLQ_SEL_TAKE_CAND);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* k <= taken <= CLQ_SEL_SORT_MAX unless the candidates were miscounted: then sort nothing */
    const uint got = taken >= k && taken <= CLQ_SEL_SORT_MAX ? taken : 0u;
    if (lid == 0 && !got)
        atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);
    uint size = 8;
    while (size < got)
        size <<= 1;
    for (uint i = got + lid; i < size; i += CLQ_GQ_WG)
        loc.keys[CLQ_SEL_SLOT(i)] = ULONG_MAX; /* after every composite */
    barrier(CLK_LOCAL_MEM_FENCE);
    clq_sel_bitonic_phase(loc.keys, size, 0u, 0u);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint len = 16; len <= size; len <<= 1)
        for (uint gap = len >> 1; gap > 0; gap = gap >= 4u ? gap >> 3 : 0u) {
            clq_sel_bitonic_phase(loc.keys, size, len, gap);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    if (got)
        clq_sel_place_group(CLQ_SELECT_ARGS, loc.keys, marks, holes, words);
}

#endif
