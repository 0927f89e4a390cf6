/*
 * segnet.cl - segmented sorts: segments of CLQ_NET_MIN + 1 .. CLQ_NET_MAX keys, sorted by a
 * bitonic network in registers.
 *
 * Phase two sorts a window of short segments by ranking each key among its segment's keys
 * (lqsort.cl): a key of a 64-key segment reads 64 keys, and for 2^20 segments of 64 keys that
 * loop was phase two's whole time (1.39 of 1.63 ms on an H100). A network sorts 64 keys with 21
 * compare-exchange steps instead. segemit_kernel (segments.cl) runs it on both paths, taking
 * every segment of that length straight from the caller's buffer; segcheck_kernel leaves them
 * out of the windows and phase two skips them (CLQ_SEG_NET: clqsort_shared.h).
 *
 * CLQ_NET_T work-items sort a segment, each holding CLQ_NET_E keys in registers, padded with
 * CLQ_CODE_MAX up to CLQ_NET_MAX keys: logical positions E q .. E q + E - 1 for the segment's
 * work-item q. Every compare-exchange puts the smaller key at the lower position, each merge
 * opening with the step that pairs mirrored positions (i with i ^ (k - 1)), so one rule serves
 * every step. Steps between positions of one work-item run in its registers; the six that pair
 * two work-items' keys exchange them:
 *   CLQ_SEG_NET 2   by shuffles between the lanes of a warp (NVIDIA, PTX shfl.sync: the tuning
 *                   asks for it where the device has them): no local memory and no barrier;
 *   CLQ_SEG_NET 1   through local memory, with barriers (every other device with groups of at
 *                   least CLQ_NET_T work-items).
 * The keys are read in stripes (work-item q reads positions q, q + T, ...: which position a key
 * starts at does not matter to a network) and written in stripes again, the blocks turned by
 * shuffles or through local memory, so that the segment's work-items write runs together.
 * With values (4-byte keys only), the network sorts each key's code with its position in the
 * segment below it, (code << 32 | position): no two are equal, so the padding stays behind keys of
 * the largest code, and each value is then read from its key's old position (all of the
 * segment's reads before any write) and written beside the key.
 */

#if CLQ_SEG_NET
#define CLQ_NET_E 8u /* keys a work-item holds */
#define CLQ_NET_T 8u /* work-items a segment */
typedef char clq_check_net_keys[CLQ_NET_E * CLQ_NET_T == CLQ_NET_MAX ? 1 : -1];
typedef char clq_check_net_group[CLQ_GQ_WG % CLQ_NET_T == 0 ? 1 : -1];
typedef char clq_check_net_square[CLQ_NET_E == CLQ_NET_T ? 1 : -1]; /* clq_net_stripes */

/* What the network sorts: codes, or with values (code << 32 | position); the padding sorts last. */
#ifdef CLQ_PAIRS
#if CLQ_CODE_BITS != 32
#error "segnet.cl: values go through the network with 4-byte keys only (src/tuning.c)"
#endif
typedef ulong clq_net_t;
#define CLQ_NET_BITS 64
#define CLQ_NET_PAD 0xfffffffffffffffful
#define clq_net_of(code, pos) (upsample((code), (pos)))
#define clq_net_code(e) ((clq_code)((e) >> 32))
#define clq_net_pos(e) ((uint)(e))
#else
typedef clq_code clq_net_t;
#define CLQ_NET_BITS CLQ_CODE_BITS
#define CLQ_NET_PAD CLQ_CODE_MAX
#define clq_net_of(code, pos) (code)
#define clq_net_code(e) (e)
#endif

#define CLQ_NET_CE(a, b)                                                                                               \
    do {                                                                                                               \
        const clq_net_t lo_ = min((a), (b));                                                                           \
        (b) = max((a), (b));                                                                                           \
        (a) = lo_;                                                                                                     \
    } while (0)

/* The steps of distance j0 .. 1 within one work-item's keys. */
inline void clq_net_clean(clq_net_t *r, uint j0)
{
#pragma unroll
    for (uint j = CLQ_NET_E / 2u; j > 0; j >>= 1) {
        if (j > j0)
            continue;
#pragma unroll
        for (uint i = 0; i < CLQ_NET_E; i++)
            if ((i ^ j) > i)
                CLQ_NET_CE(r[i], r[i ^ j]);
    }
}

/* Sorts one work-item's keys: merges of 2, 4, .. CLQ_NET_E keys. */
inline void clq_net_sort_own(clq_net_t *r)
{
#pragma unroll
    for (uint k = 2; k <= CLQ_NET_E; k <<= 1) {
#pragma unroll
        for (uint i = 0; i < CLQ_NET_E; i++)
            if ((i ^ (k - 1u)) > i)
                CLQ_NET_CE(r[i], r[i ^ (k - 1u)]);
        clq_net_clean(r, k / 4u);
    }
}

#if CLQ_SEG_NET == 2
/* The value of lane (this lane ^ mask) among the lanes `members` of the warp. */
inline uint clq_shfl_xor(uint v, uint mask, uint members)
{
    uint r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, %3;" : "=r"(r) : "r"(v), "r"(mask), "r"(members));
    return r;
}

inline clq_net_t clq_net_shfl(clq_net_t v, uint mask, uint members)
{
#if CLQ_NET_BITS == 32
    return clq_shfl_xor(v, mask, members);
#else
    const uint2 h = as_uint2(v);
    return as_ulong((uint2)(clq_shfl_xor(h.x, mask, members), clq_shfl_xor(h.y, mask, members)));
#endif
}

/* Turns the segment's blocks into stripes: lane q's keys become positions q, q + T, .. (they
 * were E q .. E q + E - 1), so that each store of the segment's lanes writes one run. A transpose
 * of the E x E keys of the lanes, halves, then quarters, then eighths swapped between lanes. */
inline void clq_net_stripes(clq_net_t *r, uint q, uint members)
{
#pragma unroll
    for (uint m = CLQ_NET_E / 2u; m > 0; m >>= 1) {
        const int upper = (q & m) != 0;
#pragma unroll
        for (uint i = 0; i < CLQ_NET_E; i++) {
            if (i & m)
                continue;
            const clq_net_t got = clq_net_shfl(upper ? r[i] : r[i | m], m, members);
            r[i] = upper ? got : r[i];
            r[i | m] = upper ? r[i | m] : got;
        }
    }
}
#endif

/* A step that pairs this work-item's key i with work-item (q ^ mask)'s key E - 1 - i (mirrored)
 * or i; the lower work-item keeps the smaller of each pair. `xs`: the segment's CLQ_NET_MAX
 * slots in local memory (CLQ_SEG_NET 1), `members`: its lanes (CLQ_SEG_NET 2). */
inline void clq_net_cross(clq_net_t *r, __local clq_net_t *xs, uint members, uint q, uint mask, int mirrored)
{
    const int lower = q < (q ^ mask);
#if CLQ_SEG_NET == 2
    (void)xs;
    clq_net_t v[CLQ_NET_E]; /* every key is sent before any changes */
#pragma unroll
    for (uint i = 0; i < CLQ_NET_E; i++)
        v[i] = clq_net_shfl(r[mirrored ? CLQ_NET_E - 1u - i : i], mask, members);
#pragma unroll
    for (uint i = 0; i < CLQ_NET_E; i++)
        r[i] = lower ? min(r[i], v[i]) : max(r[i], v[i]);
#else
    (void)members;
    /* slot E q + ((i + q) mod E): the segment's work-items meet in different banks. Global too:
     * the segment's keys were read by other work-items before any is written back. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* and the partner read what was stored last */
#pragma unroll
    for (uint i = 0; i < CLQ_NET_E; i++)
        xs[CLQ_NET_E * q + ((i + q) & (CLQ_NET_E - 1u))] = r[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint p = q ^ mask;
#pragma unroll
    for (uint i = 0; i < CLQ_NET_E; i++) {
        const uint e = mirrored ? CLQ_NET_E - 1u - i : i;
        const clq_net_t v = xs[CLQ_NET_E * p + ((e + p) & (CLQ_NET_E - 1u))];
        r[i] = lower ? min(r[i], v) : max(r[i], v);
    }
#endif
}

/* The group takes the segments in chunks of CLQ_GQ_WG: it lists those the network sorts, then
 * sorts them CLQ_GQ_WG / CLQ_NET_T at a time, so that short or long segments among them cost no
 * network (barriers stay outside every branch: pocl 3.1 miscompiled a round skipped by a branch
 * on a flag in local memory). */
void clq_segnet_body(CLQ_BUFFER_PARAMS, __global uint *status, __local clq_net_t *x, __local uint *list,
                     __local uint *listed)
{
    const uint nseg = status[CLQ_ST_SEGMENTS], end_given = status[CLQ_ST_SEG_END_GIVEN];
    const uint lid = get_local_id(0), q = lid % CLQ_NET_T, slots = CLQ_GQ_WG / CLQ_NET_T;
    /* its segment's lanes of the warp (NVIDIA: work-item lid is lane lid % 32) */
    const uint members = ((1u << CLQ_NET_T) - 1u) << (lid & 31u & ~(CLQ_NET_T - 1u));
    (void)members;
    for (ulong c0 = (ulong)get_group_id(0) * CLQ_GQ_WG; c0 < nseg; c0 += (ulong)get_num_groups(0) * CLQ_GQ_WG) {
        if (lid == 0)
            *listed = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (c0 + lid < nseg) {
            const uint s = (uint)(c0 + lid);
            if (clq_seg_net(clq_seg_end(seg_begin, seg_end, s, end_given) - seg_begin[s]))
                list[atomic_inc(listed)] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint nlisted = *listed;
        for (uint j0 = 0; j0 < nlisted; j0 += slots) {
            const uint j = j0 + lid / CLQ_NET_T, s = list[min(j, nlisted - 1u)];
            const uint b = seg_begin[s];
            const uint n = j < nlisted ? clq_seg_end(seg_begin, seg_end, s, end_given) - b : 0u;
#if CLQ_SEG_NET == 2
            if (n == 0)
                continue; /* the same for the segment's lanes, the only ones a shuffle waits for */
            __local clq_net_t *xs = x; /* not used */
#else
            /* the segment's slots; computed in the loop: pocl 3.1 gave every work-item the first
             * segment's when this was computed once before it (the lanes of a group's empty
             * segments then wrote their padding over that segment's keys) */
            __local clq_net_t *xs = x + (lid / CLQ_NET_T) * CLQ_NET_MAX;
#endif
            clq_net_t r[CLQ_NET_E];
#pragma unroll
            for (uint i = 0; i < CLQ_NET_E; i++) {
                const uint at = q + CLQ_NET_T * i;
                r[i] = at < n ? clq_net_of(clq_to_code(keys[b + at]), at) : CLQ_NET_PAD;
            }
            clq_net_sort_own(r);
#pragma unroll
            for (uint k = 2u * CLQ_NET_E; k <= CLQ_NET_MAX; k <<= 1) {
                clq_net_cross(r, xs, members, q, k / CLQ_NET_E - 1u, 1);
#pragma unroll
                for (uint t = k / (4u * CLQ_NET_E); t > 0; t >>= 1)
                    clq_net_cross(r, xs, members, q, t, 0);
                clq_net_clean(r, CLQ_NET_E / 2u);
            }
#if CLQ_SEG_NET == 2
            clq_net_stripes(r, q, members);
#else
            /* back in stripes through local memory, as the keys came: the writes of a segment's
             * work-items meet in runs */
            barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
            for (uint i = 0; i < CLQ_NET_E; i++)
                xs[CLQ_NET_E * q + ((i + q) & (CLQ_NET_E - 1u))] = r[i];
            barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
            for (uint i = 0; i < CLQ_NET_E; i++)
                r[i] = xs[CLQ_NET_E * i + ((q + i) & (CLQ_NET_E - 1u))];
#endif
#ifdef CLQ_PAIRS
            clq_value v[CLQ_NET_E];
#pragma unroll
            for (uint i = 0; i < CLQ_NET_E; i++)
                if (q + CLQ_NET_T * i < n)
                    v[i] = vals[b + clq_net_pos(r[i])];
            /* every value of the segment is read before any is written */
#if CLQ_SEG_NET == 2
            asm volatile("bar.warp.sync %0;" ::"r"(members) : "memory");
#else
            barrier(CLK_GLOBAL_MEM_FENCE);
#endif
#endif
#pragma unroll
            for (uint i = 0; i < CLQ_NET_E; i++)
                if (q + CLQ_NET_T * i < n) {
                    keys[b + q + CLQ_NET_T * i] = clq_from_code(clq_net_code(r[i]));
                    CLQ_IF_PAIRS(vals[b + q + CLQ_NET_T * i] = v[i];)
                }
            /* local memory is next written after the barrier that opens the next exchange */
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the list is read: the next chunk may write it */
    }
}
#endif
