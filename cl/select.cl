/*
 * select.cl - partial sorts of 32-bit keys that read every key twice and sort only candidates.
 *
 * Each key i becomes the composite c = code << pbits | i (pbits: the bits of count - 1), which
 * no two keys share and whose order is the sort's order with ties in input order. The k
 * smallest composites are the answer, so a radix selection finds a range of composites that
 * holds the k-th one and few others, and only the keys below its end are sorted:
 *   select_hist_kernel    one level: the keys inside the range [base, base + 2^width) are
 *                         counted in CLQ_SEL_BINS buckets of the range (local histogram, added
 *                         to sel[]);
 *   select_pick_kernel    one group: the bucket that holds the k-th composite becomes the range.
 *                         Once the composites below its end number at most `cap` (or it is a
 *                         single composite), the selection is done: status[CLQ_ST_COUNT]
 *                         becomes that number, and the host's further levels do nothing.
 *                         CLQ_SEL_LEVELS(pbits) levels always reach a single composite, so the
 *                         host enqueues that many.
 *   select_gather_kernel  appends every composite below the range's end to `cand`, the keys
 *                         of the sort that follows (the program of 64-bit keys, with the k of
 *                         the call, over status[CLQ_ST_COUNT] composites).
 * Then cand[0, k) holds the answer, sorted, and three launches put it in place, moving only
 * keys of the first k positions and keys of the answer:
 *   select_stash_kernel   keeps the answer's values; an answer key at position >= k leaves a
 *                         hole, listed; an answer key at position < k marks its position.
 *   select_move_kernel    every unmarked position < k holds a key outside the answer: it moves
 *                         into a hole (any hole: each is filled once).
 *   select_place_kernel   writes the answer to [0, k), keys decoded from their composites.
 * All six kernels take the same arguments, set once per sort (src/sort.c). The words of `sel`
 * are laid out in clqsort_shared.h; the host zeroes them and the marks before the first level.
 */
#if CLQ_CODE_BITS == 32

#define CLQ_SELECT_PARAMS                                                                                  \
    __global clq_key *keys, __global clq_value *vals, __global uint *sel, __global ulong *cand,           \
        __global uint *status, ulong key_offset, ulong value_offset, uint n, uint k, uint pbits, uint cap

/* Runs EACH(key, i) for every key i < count, the grid taking them in turn, four loads in flight
 * per work-item. */
#define CLQ_SEL_EACH_KEY(count, EACH)                                                              \
    do {                                                                                           \
        const ulong g_ = get_global_size(0);                                                       \
        ulong i_ = get_global_id(0);                                                               \
        for (; i_ + 3 * g_ < (count); i_ += 4 * g_) {                                              \
            const clq_key k0_ = keys[key_offset + i_], k1_ = keys[key_offset + i_ + g_];           \
            const clq_key k2_ = keys[key_offset + i_ + 2 * g_], k3_ = keys[key_offset + i_ + 3 * g_]; \
            EACH(k0_, i_);                                                                         \
            EACH(k1_, i_ + g_);                                                                    \
            EACH(k2_, i_ + 2 * g_);                                                                \
            EACH(k3_, i_ + 3 * g_);                                                                \
        }                                                                                          \
        for (; i_ < (count); i_ += g_)                                                             \
            EACH(keys[key_offset + i_], i_);                                                       \
    } while (0)

inline ulong clq_composite(clq_key key, uint i, uint pbits) { return (ulong)clq_to_code(key) << pbits | i; }

/* The selection's range: composites in [base, base + 2^width). */
inline ulong clq_sel_base(__global const uint *sel)
{
    return (ulong)sel[CLQ_SEL_BASE_LO] | (ulong)sel[CLQ_SEL_BASE_HI] << 32;
}
/* Digits are CLQ_SEL_BITS wide from the composite's highest bit, so the last level's may be
 * narrower. The range of a selection that has done `level` of its CLQ_SEL_LEVELS(pbits) levels
 * is 2^width composites wide. (Written without a saturating subtraction: oclgrind cannot run
 * the intrinsic LLVM makes of one.) */
inline uint clq_sel_width(uint level, uint pbits)
{
    return level < CLQ_SEL_LEVELS(pbits) ? 32u + pbits - CLQ_SEL_BITS * level : 0u;
}
inline uint clq_sel_inside(ulong c, ulong base, uint width) { return width >= 64u || (c >= base && (c - base) >> width == 0ul); }

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_hist_kernel(CLQ_SELECT_PARAMS)
{
    (void)vals;
    (void)cand;
    (void)status;
    (void)value_offset;
    (void)k;
    (void)cap;
    __local uint hist[CLQ_SEL_BINS];
    const uint done = sel[CLQ_SEL_DONE]; /* then this level counts nothing */
    const uint level = sel[CLQ_SEL_LEVEL];
    const uint width = clq_sel_width(level, pbits), shift = clq_sel_width(level + 1u, pbits);
    const ulong base = clq_sel_base(sel);
    const uint bins = done ? 0u : CLQ_SEL_BINS, count = done ? 0u : n;
    for (uint b = get_local_id(0); b < bins; b += CLQ_GQ_WG)
        hist[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#define CLQ_SEL_COUNT(key, i)                                                                      \
    do {                                                                                           \
        const ulong c_ = clq_composite((key), (uint)(i), pbits);                                   \
        if (clq_sel_inside(c_, base, width))                                                       \
            clq_gq_add(&hist[(uint)((c_ - base) >> shift)], 1u);                                   \
    } while (0)
    CLQ_SEL_EACH_KEY(count, CLQ_SEL_COUNT);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = get_local_id(0); b < bins; b += CLQ_GQ_WG)
        if (hist[b])
            atomic_add(&sel[b], hist[b]);
}

/* One group, after each level's counts: the bucket b of the range with below + before(b) < k <=
 * below + before(b) + hist[b] becomes the range, and the counts are cleared for the next level.
 * (Its own launch, not the last group of the count: pocl 3.1 miscompiled a pick behind a ticket.) */
__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_pick_kernel(CLQ_SELECT_PARAMS)
{
    (void)keys;
    (void)vals;
    (void)cand;
    (void)key_offset;
    (void)value_offset;
    (void)n;
    __local uint hist[CLQ_SEL_BINS];
    __local uint scan_tmp[2 * CLQ_GQ_WG];
    __local uint pick[3];
    const uint done = sel[CLQ_SEL_DONE], level = sel[CLQ_SEL_LEVEL], below = sel[CLQ_SEL_BELOW];
    const uint lid = get_local_id(0), per = CLQ_SEL_BINS / CLQ_GQ_WG, first = lid * per;
    const uint bins = done ? 0u : CLQ_SEL_BINS; /* a level after the selection counted nothing */
    for (uint b = lid; b < bins; b += CLQ_GQ_WG) /* coalesced, then each work-item its own bins */
        hist[b] = sel[b];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint sum = 0;
    for (uint b = first; b < first + (done ? 0u : per); b++)
        sum += hist[b];
    uint total;
    const uint before = clq_scan_exclusive(sum, &total, scan_tmp, CLQ_GQ_WG);
    const uint want = k - below; /* 1 <= want <= total while the selection is not done */
    if (!done && before < want && want <= before + sum) {
        uint b = first, at = before;
        while (at + hist[b] < want)
            at += hist[b++];
        pick[0] = b;
        pick[1] = at;
        pick[2] = hist[b];
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (uint b = lid; b < bins; b += CLQ_GQ_WG)
        sel[b] = 0; /* for the next level */
    if (lid == 0 && !done) {
        const uint shift = clq_sel_width(level + 1u, pbits);
        const ulong nbase = clq_sel_base(sel) + ((ulong)pick[0] << shift);
        const uint nbelow = below + pick[1], m = nbelow + pick[2];
        sel[CLQ_SEL_BASE_LO] = (uint)nbase;
        sel[CLQ_SEL_BASE_HI] = (uint)(nbase >> 32);
        sel[CLQ_SEL_LEVEL] = level + 1u;
        sel[CLQ_SEL_BELOW] = nbelow;
        if (m <= cap || shift == 0u) { /* shift 0: one composite, m <= k <= cap */
            sel[CLQ_SEL_DONE] = 1;
            status[CLQ_ST_COUNT] = m;
        }
    }
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_gather_kernel(CLQ_SELECT_PARAMS)
{
    (void)vals;
    (void)value_offset;
    (void)k;
    const uint width = clq_sel_width(sel[CLQ_SEL_LEVEL], pbits);
    const ulong base = clq_sel_base(sel);
#define CLQ_SEL_GATHER(key, i)                                                                     \
    do {                                                                                           \
        const ulong c_ = clq_composite((key), (uint)(i), pbits);                                   \
        if (c_ < base || clq_sel_inside(c_, base, width)) {                                        \
            const uint at_ = atomic_inc(&sel[CLQ_SEL_TAKEN]);                                      \
            if (at_ < cap)                                                                         \
                cand[at_] = c_;                                                                    \
            else /* cannot happen: the levels counted them */                                      \
                atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_SELECT);                                  \
        }                                                                                          \
    } while (0)
    CLQ_SEL_EACH_KEY(n, CLQ_SEL_GATHER);
}

#define CLQ_SEL_POSITION(c, pbits) ((uint)((c) & ((1ul << (pbits)) - 1ul)))

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_stash_kernel(CLQ_SELECT_PARAMS)
{
    (void)keys;
    (void)key_offset;
    (void)cap;
    __global uint *marks = sel + CLQ_SEL_WORDS, *holes = marks + k;
    __global clq_value *stash = (__global clq_value *)(holes + k);
    for (ulong i = get_global_id(0); i < k; i += get_global_size(0)) {
        const uint pos = CLQ_SEL_POSITION(cand[i], pbits);
        CLQ_IF_PAIRS(stash[i] = vals[value_offset + pos];)
        if (pos < k)
            marks[pos] = 1;
        else
            holes[atomic_inc(&sel[CLQ_SEL_HOLES])] = pos;
    }
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_move_kernel(CLQ_SELECT_PARAMS)
{
    (void)cand;
    (void)pbits;
    (void)cap;
    __global const uint *marks = sel + CLQ_SEL_WORDS, *holes = marks + k;
    for (ulong j = get_global_id(0); j < k; j += get_global_size(0))
        if (!marks[j]) {
            const uint to = holes[atomic_inc(&sel[CLQ_SEL_FILLED])];
            keys[key_offset + to] = keys[key_offset + j];
            CLQ_IF_PAIRS(vals[value_offset + to] = vals[value_offset + j];)
        }
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void select_place_kernel(CLQ_SELECT_PARAMS)
{
    (void)cap;
    __global const uint *holes = sel + CLQ_SEL_WORDS + k;
    __global const clq_value *stash = (__global const clq_value *)(holes + k);
    for (ulong i = get_global_id(0); i < k; i += get_global_size(0)) {
        keys[key_offset + i] = clq_from_code((clq_code)(cand[i] >> pbits));
        CLQ_IF_PAIRS(vals[value_offset + i] = stash[i];)
    }
}
#endif
