/*
 * gqsort.cl - phase one of GPU-Quicksort: many work-groups partition long sequences together.
 *
 * A sequence is split around 2^w - 1 pivots at once (w chosen per sequence, 2^w <= CLQ_GQ_WAYS):
 * the pivots are evenly spaced through the sequence's exact code range [lo, hi], so bucket b
 * holds the codes c with (c - lo) 2^w / (hi - lo + 1) near b (clq_scaled_bucket; the root may
 * take equal slices of another order-keeping value instead, and float and double sequences after
 * a root in value slices equal slices of the value: root and value slices, clqsort_common.h and
 * relauncher.cl). A two-way split would need log2(n / CLQ_LQ_MAX) passes over the keys; a
 * 256-way split needs a quarter or less of the bytes moved (see docs/PERFORMANCE.md for the
 * arithmetic).
 *
 * A level is two launches over the sequences' keys (a group takes pieces in turn, so the host
 * can launch a fixed grid):
 *   gqcount_kernel  over count units (CLQ_GQ_UNIT keys): each counts its keys per bucket with
 *                   their code ranges (local atomics), then adds them to the sequence's bucket
 *                   records (global atomics; unit u of a long sequence to copy u % 16 of them,
 *                   clq_copies_of). The unit with the last ticket adds up the copies, scans the
 *                   bucket counts into offsets and emits the children (bucket b becomes child b,
 *                   with its exact code range). If every key fell in one bucket, nothing needs to
 *                   move: the child is the sequence itself with a narrower range, and the sort
 *                   pass skips it. A sequence of at most CLQ_GQ_ALONE keys is one unit, whose
 *                   group emits the children from its own counts, touching no bucket record
 *                   but to leave the offsets there.
 *   gqsort_kernel   over blocks (CLQ_GQ_BLOCK keys): each loads its keys into registers, counts
 *                   them per bucket in local memory, reserves its space in every bucket with one
 *                   atomic add on the bucket record (where CLQ_GQ_SORT_COPIES, on the copy its
 *                   count unit added to, so the 16,384 blocks of a 2^26-key root do not queue
 *                   on the same 256 words), groups the keys by bucket in local memory and
 *                   writes them to the other buffer in contiguous runs. The block with the
 *                   last ticket clears the bucket records for the next level, and the group
 *                   that finishes last prepares the next level's work list (relauncher.cl).
 * No group reads keys another group wrote in the same launch: what the last group needs comes
 * through atomics on the records.
 *
 * Depth: a child's range is narrower than 2^(the parent's range width in bits - w) (see
 * clq_scaled_bucket), so each level takes w bits off every range (root and value slices may
 * take none); a range with lo == hi is finished. relauncher.cl chooses w, and when a sequence
 * may take root or value slices, so that no input needs more than status[CLQ_ST_MAX_LEVELS]
 * levels.
 */

/* Keys alone: a range of fewer than CLQ_LQ_WAYS codes and at most CLQ_LQ_COUNT_MAX keys becomes
 * one phase-two count record (lqsort.cl: clq_lq_count) instead of a sequence of the next level,
 * which would split it into single codes with two passes over its keys and leave phase two
 * their records too. */
#define CLQ_LQ_COUNT_MAX (4u * CLQ_LQ_MAX)
inline int clq_countable(clq_code lo, clq_code hi, uint len)
{
#ifdef CLQ_PAIRS
    (void)lo;
    (void)hi;
    (void)len;
    return 0;
#else
    return hi - lo < (clq_code)CLQ_LQ_WAYS && len <= CLQ_LQ_COUNT_MAX;
#endif
}

/* Where a finished bucket goes, decided by the one work-item that owns it (no barrier inside):
 * dropped if empty or if its equal keys already lie in the caller's buffer; in a partial sort,
 * a bucket that starts at or past status[CLQ_ST_TOPK] is dropped too, or, if its keys are in
 * scratch, becomes copy records of CLQ_FILL_CHUNK keys: only buckets that reach into the first
 * status[CLQ_ST_TOPK] positions are refined further; runs of equal keys
 * become phase-two fill records of CLQ_FILL_CHUNK keys; a short range becomes one phase-two
 * sort record; a long one a sequence of the next work list, unless it spans so few codes that
 * phase two counts it (keys alone: clq_countable). */
void clq_emit_child(__global clq_seq *next, __global clq_leaf *leaves, __global uint *status, uint start, uint len,
                    clq_code lo, clq_code hi, uint in_scratch)
{
    if (len == 0 || (lo == hi && !in_scratch))
        return;
    const uint copy = start >= status[CLQ_ST_TOPK]; /* past the part a partial sort orders */
    if (copy && !in_scratch)
        return; /* in the caller's buffer already, in no promised order */
    if (lo != hi && len > CLQ_LQ_MAX && !copy && !clq_countable(lo, hi, len)) {
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
    const uint nrec = lo == hi || copy ? clq_ceil_div(len, CLQ_FILL_CHUNK) : 1u;
    const uint base = atomic_add(&status[CLQ_ST_LEAVES], nrec);
    if (base + nrec > status[CLQ_ST_LEAF_CAP]) {
        atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_LEAF_OVERFLOW);
        return;
    }
    for (uint i = 0; i < nrec; i++) {
        const uint offset = i * CLQ_FILL_CHUNK;
        __global clq_leaf *leaf = leaves + base + i;
        leaf->lo = lo;
        leaf->hi = hi;
        leaf->start = start + offset;
        leaf->len = lo == hi || copy ? min((uint)CLQ_FILL_CHUNK, len - offset) : len;
        leaf->flags = (copy ? CLQ_LEAF_COPY : lo == hi ? CLQ_LEAF_FILL : len > CLQ_LQ_MAX ? CLQ_LEAF_COUNT : 0u) |
                      (in_scratch ? CLQ_LEAF_IN_SCRATCH : 0u);
    }
}

/* Finding a block's sequence. At the start of a launch the group copies the first block (or
 * count unit) of every step-th sequence into local memory, CLQ_SEQ_TABLE of them
 * (clq_fill_table); step is 1 while there are at most CLQ_SEQ_TABLE sequences, so then a search
 * reads local memory only, with no barrier: the lists of a level never change while its
 * launches run (the relauncher writes the next level's). CLQ_SEQ_TABLE: clqsort_shared.h. */
#define CLQ_FIRST_OF(seqs, i, count_pass) ((count_pass) ? (seqs)[i].first_unit : (seqs)[i].first_block)
inline uint clq_table_step(uint nseq) { return nseq > CLQ_SEQ_TABLE ? clq_ceil_div(nseq, CLQ_SEQ_TABLE) : 1u; }

/* Ends with a barrier: every work-item calls it. Entries past the last sequence hold
 * 0xffffffff, which no block index reaches. */
inline void clq_fill_table(__global const clq_seq *seqs, uint nseq, uint count_pass, __local uint *table)
{
    const uint step = clq_table_step(nseq);
    for (uint j = get_local_id(0); j < CLQ_SEQ_TABLE; j += CLQ_GQ_WG)
        table[j] = j * step < nseq ? CLQ_FIRST_OF(seqs, j * step, count_pass) : 0xffffffffu;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Index of the sequence that owns block (or count unit) `blk`: the last one whose first block
 * (unit) is <= blk. Every work-item of the group calls it with the same arguments. The table
 * narrows it to a stretch of `step` sequences (a search by halves in local memory). Within a
 * longer stretch, a group of one work-item searches by halves; a larger group searches together:
 * in each round every work-item reads one of the candidates, evenly spaced, and the last one at
 * or before blk narrows the candidates to its stretch (one round up to CLQ_SEQ_TABLE x CLQ_GQ_WG
 * sequences). `found`: three words of local scratch. */
inline uint clq_find_sequence(__global const clq_seq *seqs, uint nseq, uint blk, uint count_pass,
                              __local const uint *table, __local uint *found)
{
    uint t = 0;
    for (uint span = CLQ_SEQ_TABLE / 2u; span > 0; span /= 2u)
        if (table[t + span] <= blk)
            t += span;
    const uint stride = clq_table_step(nseq);
    uint lo = t * stride, hi = min(lo + stride, nseq) - 1u;
    if (lo == hi) /* the same for the whole group */
        return lo;
#if CLQ_GQ_WG == 1
    (void)found;
    while (lo < hi) {
        const uint mid = (lo + hi + 1) / 2;
        if (CLQ_FIRST_OF(seqs, mid, count_pass) <= blk)
            lo = mid;
        else
            hi = mid - 1;
    }
#else
    const uint lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE); /* the last call's readers are done with the scratch */
    if (lid == 0)
        found[0] = found[1] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* round r adds to found[r % 3] and clears found[(r + 2) % 3] for round r + 2, which reads it
     * only after round r + 1's barrier */
    for (uint r = 0; lo < hi; r++) {
        const uint step = (hi - lo) / CLQ_GQ_WG + 1u; /* candidate lid covers [lo + lid step, + step) */
        const uint at = lo + lid * step;
        if (lid > 0 && at <= hi && CLQ_FIRST_OF(seqs, at, count_pass) <= blk) /* lo's always is */
            atomic_max(&found[r % 3u], lid);
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint best = found[r % 3u];
        if (lid == 0)
            found[(r + 2u) % 3u] = 0;
        lo += best * step;
        hi = min(hi, lo + step - 1u);
    }
#endif
    return lo;
}

/* What a block needs to know about its sequence. */
typedef struct clq_block {
    __global clq_seq *seq;
    __global clq_bucket *bk; /* the sequence's bucket records */
    clq_code lo, hi;
    uint norm, scale, ways, start, len, in_scratch;
    uint begin, n; /* the block: keys [begin, begin + n) of the sequence */
    uint slices; /* CLQ_SLICE_*, and for the root's slices: */
    clq_code base;
    float vlo, vscale;
} clq_block;

/* Block `blk` of the sort pass, or count unit `blk` of the count pass. */
inline clq_block clq_block_at(__global clq_seq *list, __global clq_bucket *pool, __global const uint *status, uint nseq,
                              uint blk, uint count_pass, __local const uint *table, __local uint *found)
{
    clq_block b;
    const uint size = count_pass ? CLQ_GQ_UNIT : CLQ_GQ_BLOCK;
    b.seq = list + clq_find_sequence(list, nseq, blk, count_pass, table, found);
    b.bk = pool + b.seq->bucket_base;
    b.lo = b.seq->lo;
    b.hi = b.seq->hi;
    b.norm = b.seq->norm;
    b.scale = b.seq->scale;
    b.ways = 1u << b.seq->ways_log2;
    b.start = b.seq->start;
    b.len = b.seq->len;
    b.in_scratch = b.seq->in_scratch;
    b.begin = (blk - (count_pass ? b.seq->first_unit : b.seq->first_block)) * size;
    b.n = count_pass && b.len <= CLQ_GQ_ALONE ? b.len : min(size, b.len - b.begin); /* clq_units_of */
    const uint vscale = b.scale ? 0u : b.seq->vscale; /* a later sequence's value slices */
    b.slices = b.scale ? CLQ_SLICE_CODE : vscale ? CLQ_SLICE_VALUE : status[CLQ_ST_ROOT_SLICES];
    if (vscale) {
        b.base = 0;
        b.vlo = as_float(b.seq->vlo);
        b.vscale = as_float(vscale);
    } else if (b.slices != CLQ_SLICE_CODE) { /* the root only: no loads elsewhere */
        b.base = (clq_code)clq_offset_at(status, CLQ_ST_ROOT_BASE);
        b.vlo = as_float(status[CLQ_ST_ROOT_VLO]);
        b.vscale = as_float(status[CLQ_ST_ROOT_VSCALE]);
    } else {
        b.base = 0;
        b.vlo = b.vscale = 0.0f;
    }
    return b;
}

/* Bucket of code c in the block's sequence. */
inline uint clq_bucket_in(const clq_block *b, clq_code c)
{
    if (b->slices != CLQ_SLICE_CODE)
        return clq_value_bucket(clq_slice_value(c, b->slices, b->base), b->vlo, b->vscale, b->ways);
    return clq_scaled_bucket(c, b->lo, b->norm, b->scale, b->ways);
}

/* Takes the block's ticket on one of the sequence's counters once all its global writes and
 * atomics are done; every work-item learns whether it was the last block.
 * A fence is not enough for that on every runtime: NVIDIA's OpenCL compiles
 * mem_fence(CLK_GLOBAL_MEM_FENCE) to a work-group-scope fence (membar.cta), and an atomic whose
 * result is unused may be issued as a fire-and-forget reduction and land after the ticket (the
 * last block then read short bucket counts: 1 sort in 100 at 2^24-2^26 keys on an H200). So each
 * work-item passes in `landed`, a value made of the results of its atomics, and stores it in
 * local memory before the barrier: it cannot get there before its atomics were performed.
 * `sink` is local scratch of one uint per work-item. */
inline uint clq_last_ticket(volatile __global uint *done, uint nblocks, __local uint *flag, uint landed,
                            __local uint *sink)
{
    sink[get_local_id(0)] = landed;
#ifdef CLQ_DEVICE_ENQUEUE
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        *flag = atomic_inc(done) == nblocks - 1u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *flag;
}

/* ---- count pass ----------------------------------------------------------------------------- */

/* Keys a work-item of the count pass loads before it counts any (16 were no faster on the H200,
 * docs/PERFORMANCE.md, call 161). */
#define CLQ_GQ_IN_FLIGHT 8u

/* CLQ_GQ_QUADS (src/tuning.c, gq_quads): where above 0, a group of more than one work-item
 * counts with 16-byte loads, that many in flight per work-item, from the block's first key at a
 * 16-byte aligned address (whatever the sequence's start) to the last whole vector, the keys
 * before and after it one by one; 0: one key a load, CLQ_GQ_IN_FLIGHT at once. A work-item's
 * keys then lie next to each other in fours (twos for 8-byte keys), which only changes which keys
 * a work-item's runs see. */
#ifndef CLQ_GQ_QUADS
#define CLQ_GQ_QUADS 0
#endif
#if defined(CLQ_KEY_UINT32)
typedef uint4 clq_quad;
#elif defined(CLQ_KEY_INT32)
typedef int4 clq_quad;
#elif defined(CLQ_KEY_FLOAT)
typedef float4 clq_quad;
#elif defined(CLQ_KEY_UINT64)
typedef ulong2 clq_quad;
#elif defined(CLQ_KEY_INT64)
typedef long2 clq_quad;
#else
typedef ulong2 clq_quad; /* double keys are their bit patterns (clqsort_common.h) */
#endif
#if CLQ_CODE_BITS == 32
#define CLQ_QUAD_EACH(v, EACH) EACH((v).s0) EACH((v).s1) EACH((v).s2) EACH((v).s3)
#else
#define CLQ_QUAD_EACH(v, EACH) EACH((v).s0) EACH((v).s1)
#endif
#define CLQ_QUAD_KEYS (16u / (uint)sizeof(clq_key))

/* The n keys at src as 16-byte loads: `head` keys up to the first 16-byte aligned address, then
 * `quads` whole vectors, then the rest, one by one. */
typedef struct clq_quads {
    uint head, quads;
} clq_quads;

inline clq_quads clq_quads_of(__global const clq_key *src, uint n)
{
    const uint misaligned = (uint)((size_t)src & 15u) / (uint)sizeof(clq_key);
    clq_quads r;
    r.head = min((CLQ_QUAD_KEYS - misaligned) % CLQ_QUAD_KEYS, n);
    r.quads = (n - r.head) / CLQ_QUAD_KEYS;
    return r;
}

/* A group of one work-item (CPUs) counts each key into its bucket's cell: the count and the code
 * range side by side, so that a key touches one cache line where the three arrays below took
 * three (2048 ways of them fill 24 KiB, most of a core's first-level cache); it copies the cells
 * into the arrays after the count. */
typedef struct clq_count_cell {
    clq_code not_min, max;
    uint count;
} clq_count_cell;

/* A pass's local per-bucket counters in copies (CLQ_GQ_COUNT_COPIES for the count pass,
 * CLQ_GQ_RANK_COPIES for the sort pass; src/tuning.c): work-item i counts into copy i % copies
 * (CLQ_GQ_MY_COPY), so that a warp whose keys rise in a ramp (neighbours in the input sharing a
 * bucket) spreads its atomics over as many counters. Copy c of bucket b is at CLQ_GQ_COPY_AT(b, c),
 * each copy one word after the last (a pad) so that one bucket's copies fall in different banks;
 * CLQ_GQ_CELLS(copies) words hold them. */
#if CLQ_GQ_COUNT_COPIES < 1 || CLQ_GQ_RANK_COPIES < 1 || \
    (CLQ_GQ_WG == 1 && (CLQ_GQ_COUNT_COPIES > 1 || CLQ_GQ_RANK_COPIES > 1))
#error "gq_count_copies, gq_rank_copies: at least 1, and 1 in a group of one work-item"
#endif
#define CLQ_GQ_COPY_IN(b, c, ways) ((c) * ((ways) + 1u) + (b))
#define CLQ_GQ_COPY_AT(b, c) CLQ_GQ_COPY_IN((b), (c), CLQ_GQ_WAYS)
#define CLQ_GQ_MY_COPY(b, copies) CLQ_GQ_COPY_AT((b), get_local_id(0) % (copies))
#define CLQ_GQ_CELLS(copies) (CLQ_GQ_WAYS + ((copies) - 1) * (CLQ_GQ_WAYS + 1))
#define CLQ_GQ_COUNT_CELLS CLQ_GQ_CELLS(CLQ_GQ_COUNT_COPIES)

/* The count pass's copies for a block of `ways` buckets. The cells hold CLQ_GQ_COUNT_COPIES
 * copies of CLQ_GQ_WAYS buckets; a block of fewer buckets lays its copies out at a stride of
 * ways + 1 (CLQ_GQ_COPY_IN) and takes as many more as fit, up to 32, one for each lane of a
 * warp. A segmented sort's roots of 2^22 keys split 8 ways on the H200 (relauncher.cl,
 * clq_ways_log2): with 4 copies a warp's 32 work-items queued on 32 counters, and the count
 * pass over 16 such roots took 0.19 ms where one root of 2^26 keys in 128 ways took 0.157
 * (docs/PERFORMANCE.md, call 259). A tuning of one copy keeps one. */
#define CLQ_GQ_COUNT_COPIES_MAX 32u
inline uint clq_count_copies(uint ways)
{
    uint copies = CLQ_GQ_COUNT_COPIES;
    while (CLQ_GQ_COUNT_COPIES > 1 && copies < min(CLQ_GQ_COUNT_COPIES_MAX, (uint)CLQ_GQ_WG) &&
           2u * copies * (ways + 1u) <= CLQ_GQ_COUNT_CELLS + 1u)
        copies *= 2u;
    return copies;
}

typedef struct clq_count_local {
#if CLQ_GQ_WG == 1
    clq_count_cell cell[CLQ_GQ_WAYS];
#endif
    /* copy c of bucket b's counters at CLQ_GQ_COPY_IN(b, c, ways) (clq_count_run); copy 0 the whole
     * block's once the count is done */
    uint count[CLQ_GQ_COUNT_CELLS];
    clq_code not_min[CLQ_GQ_COUNT_CELLS], max[CLQ_GQ_COUNT_CELLS]; /* ~min, so that 0 means "none" for both */
    /* the last block's view of the whole sequence (clq_emit_children) */
    uint first[CLQ_GQ_WAYS];       /* where each bucket starts in the sequence */
    uint small_index[CLQ_GQ_WAYS]; /* a short bucket's place among the short buckets */
    uint small_chunk[CLQ_GQ_WAYS]; /* by that place: the short bucket's record key */
    uint small_bucket[CLQ_GQ_WAYS]; /* by that place: the bucket */
    uint scan_tmp[2 * CLQ_GQ_WG];
    uint nonempty, last;
    uint table[CLQ_SEQ_TABLE], found[3]; /* clq_find_sequence */
} clq_count_local;

inline void clq_count_run(__local clq_count_local *lm, uint b, uint n, clq_code cmin, clq_code cmax, uint ways,
                          uint copies)
{
    const uint at = CLQ_GQ_COPY_IN(b, get_local_id(0) & (copies - 1u), ways);
    clq_gq_add(&lm->count[at], n);
    clq_gq_max(&lm->not_min[at], ~cmin);
    clq_gq_max(&lm->max[at], cmax);
}

/* The records of one bucket, copy c at r[c * ways]: each copy's count becomes where the keys of
 * its units start in the bucket, from `at` on (CLQ_GQ_SORT_COPIES). Out of line: inlined, it
 * took the count pass from 48 to 63 registers on the H200 (ptxas -v), 4 groups per compute unit
 * instead of 5. */
CLQ_OUT_OF_LINE void clq_copy_offsets(__global clq_bucket *r, uint ways, uint copies, uint at)
{
    for (uint c = 0; c < copies; c++, r += ways) {
        const uint m = clq_atomic_read_u32(&r->count);
        r->count = at;
        at += m;
    }
}

/* The last block of a sequence: bucket counts -> offsets, buckets -> children. The counts are
 * the sum of the sequence's copies of its bucket records (the copies after the first cleared
 * here, but for their counts, which become their offsets where CLQ_GQ_SORT_COPIES), or with
 * `alone` (a sequence of one count unit) the block's own in lm.
 * Short buckets (at most CLQ_LQ_MAX / 2 keys) that lie next to each other become one phase-two
 * record together: those whose first key falls in the same chunk of CLQ_LQ_MAX / 2 positions of
 * the sequence. Such a record holds fewer than CLQ_LQ_MAX keys, a sequence of len keys gives at
 * most len / (CLQ_LQ_MAX / 2) + 1 of them (sort.c sizes the list by this), and a split into
 * many buckets, as the depth bound asks for late levels, does not leave many tiny records. A
 * long bucket lies between different chunks, so records never reach across one. */
void clq_emit_children(__global clq_seq *next, __global clq_leaf *leaves, __global uint *status,
                       const clq_block *blk, __local clq_count_local *lm, uint alone)
{
    const uint lid = get_local_id(0);
    const uint chunk = max(CLQ_LQ_MAX / 2u, 1u);
    __global clq_bucket *bk = blk->bk;
    if (lid == 0)
        lm->nonempty = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint copies = alone ? 0u : clq_copies_of(blk->len);
    for (uint b = lid; b < blk->ways; b += CLQ_GQ_WG) {
        uint n = alone ? lm->count[b] : 0u;
        clq_code not_min = 0, top = 0;
        for (uint c = 0; c < copies; c++) {
            __global clq_bucket *r = bk + c * blk->ways + b;
            const uint m = clq_atomic_read_u32(&r->count);
            if (m) {
                n += m;
                not_min = max(not_min, clq_atomic_read_max(&r->not_min));
                top = max(top, clq_atomic_read_max(&r->max));
            }
            if (c > 0) { /* for the next level: no other unit touches it now */
                if (!CLQ_GQ_SORT_COPIES)
                    r->count = 0;
                r->not_min = 0;
                r->max = 0;
            }
        }
        if (copies) {
            lm->count[b] = n;
            lm->not_min[b] = not_min;
            lm->max[b] = top;
        }
        if (n)
            clq_gq_add(&lm->nonempty, 1u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* offsets, and the short buckets in order with their chunks */
    uint offset = 0, nsmall = 0;
    for (uint b0 = 0; b0 < blk->ways; b0 += CLQ_GQ_WG) {
        const uint b = b0 + lid;
        const uint n = b < blk->ways ? lm->count[b] : 0u;
        const uint small = n != 0u && n <= chunk;
        uint total, total_small;
        const uint at = offset + clq_scan_exclusive(n, &total, lm->scan_tmp, CLQ_GQ_WG);
        const uint i = nsmall + clq_scan_exclusive(small, &total_small, lm->scan_tmp, CLQ_GQ_WG);
        if (b < blk->ways) {
            lm->first[b] = at;
            lm->small_index[b] = i;
        }
        if (small) {
            lm->small_chunk[i] = at / chunk;
            lm->small_bucket[i] = b;
        }
        offset += total;
        nsmall += total_small;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* one bucket holds every key: the keys stay where they are */
    const uint stay = lm->nonempty == 1u;
    const uint in_scratch = stay ? blk->in_scratch : blk->in_scratch ^ 1u;
    for (uint b = lid; b < blk->ways; b += CLQ_GQ_WG) {
        const uint n = lm->count[b], at = lm->first[b];
        if (!n)
            continue;
        if (stay) {
            bk[b].count = 0; /* the sort pass skips this sequence: clear its record now */
            bk[b].not_min = 0;
            bk[b].max = 0;
            for (uint c = 1; c < (CLQ_GQ_SORT_COPIES ? copies : 0u); c++)
                bk[c * blk->ways + b].count = 0;
        } else if (CLQ_GQ_SORT_COPIES && copies > 1u) {
            clq_copy_offsets(bk + b, blk->ways, copies, at);
        } else {
            bk[b].count = at; /* from here on: where the bucket's keys start */
        }
        const clq_code lo = ~lm->not_min[b];
        if (n > chunk) {
            clq_emit_child(next, leaves, status, blk->start + at, n, lo, lm->max[b], in_scratch);
            continue;
        }
        /* the first short bucket of its chunk emits the record of all of them */
        const uint i = lm->small_index[b], c = lm->small_chunk[i];
        if (i > 0 && lm->small_chunk[i - 1] == c)
            continue;
        uint j = i;
        while (j + 1 < nsmall && lm->small_chunk[j + 1] == c)
            j++;
        const uint e = lm->small_bucket[j];
        clq_emit_child(next, leaves, status, blk->start + at, lm->first[e] + lm->count[e] - at, lo, lm->max[e],
                       in_scratch);
    }
    if (lid == 0) {
        blk->seq->stay = stay;
        /* cannot fail: every block's counts were added before its ticket (no nested branch:
         * pocl 3.1 miscompiled one here into a hang) */
        atomic_or(&status[CLQ_ST_ERROR], offset != blk->len ? CLQ_ERR_COUNT : 0u);
    }
}

/* Empty levels. The host loop enqueues every level the depth bound allows (path_host_loop.c),
 * and several find no sequence (for 32-bit keys on a GPU, the last two or three): both passes of
 * such a level return at once, and no group of its sort pass takes a ticket. The relauncher that
 * the last group would run has nothing to do: with no sequence counted no child was emitted, and
 * it would write back the zeros it finds in the status words. The device-enqueue path launches
 * no empty level. */
void clq_gqcount_body(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool, __global clq_leaf *leaves,
                      __global uint *status, uint parity, __local clq_count_local *lm)
{
    const uint lid = get_local_id(0);
    const uint seq_cap = status[CLQ_ST_SEQ_CAP];
    __global clq_seq *cur = lists + (size_t)parity * seq_cap;
    __global clq_seq *next = lists + (size_t)(parity ^ 1u) * seq_cap;
    const uint nseq = status[CLQ_ST_CUR_SEQS];
    const uint nunits = status[CLQ_ST_CUR_UNITS];
    if (nseq == 0)
        return; /* an empty level (the note above clq_gqcount_body) */

    clq_fill_table(cur, nseq, 1, lm->table);
    /* 64-bit: with one-key units near 2^32 keys, i + groups would wrap past nunits */
    for (ulong i = get_group_id(0); i < nunits; i += get_num_groups(0)) {
        const clq_block blk = clq_block_at(cur, pool, status, nseq, (uint)i, 1, lm->table, lm->found);
        __global const clq_key *src = (blk.in_scratch ? scratch : keys) + blk.start + blk.begin;
#if CLQ_GQ_WG == 1
        for (uint b = 0; b < blk.ways; b++) {
            lm->cell[b].count = 0;
            lm->cell[b].not_min = 0;
            lm->cell[b].max = 0;
        }
#else
        const uint copies = clq_count_copies(blk.ways); /* the same for the whole group */
        for (uint i = lid; i < CLQ_GQ_COPY_IN(blk.ways, copies - 1u, blk.ways); i += CLQ_GQ_WG) {
            lm->count[i] = 0;
            lm->not_min[i] = 0;
            lm->max[i] = 0;
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Count. Consecutive keys of a work-item in one bucket are counted as one run, so that
         * sorted or clustered input does not queue every work-item on one local counter; a group
         * of one work-item (CPUs) shares no counter and counts each key at once, for keys in no
         * order the run's test would be a branch mispredicted at nearly every key. A sequence of
         * one unit may span two CLQ_GQ_UNIT. */
        uint outside = 0;
#if CLQ_GQ_WG == 1
        /* one work-item reads its keys in order, which the processor's prefetch serves; copied
         * through a private array first, each key's load waited on the store before it */
        for (uint j = 0; j < blk.n; j++) {
            const clq_code c = clq_to_code(src[j]);
            outside |= c < blk.lo || c > blk.hi; /* root slices: the root's full range */
            __local clq_count_cell *e = &lm->cell[clq_bucket_in(&blk, c)];
            e->count++;
            e->not_min = max(e->not_min, ~c);
            e->max = max(e->max, c);
        }
#else
        uint run_b = 0, run_n = 0;
        clq_code run_min = CLQ_CODE_MAX, run_max = 0;
        /* one key into the work-item's run */
#define CLQ_GQ_COUNT_KEY(key)                                                                     \
    {                                                                                             \
        const clq_code c = clq_to_code(key);                                                      \
        const uint b = clq_bucket_in(&blk, c);                                                    \
        outside |= c < blk.lo || c > blk.hi; /* root slices: the root's full range */             \
        if (b != run_b && run_n) {                                                                \
            clq_count_run(lm, run_b, run_n, run_min, run_max, blk.ways, copies);                  \
            run_n = 0;                                                                            \
            run_min = CLQ_CODE_MAX;                                                               \
            run_max = 0;                                                                          \
        }                                                                                         \
        run_b = b;                                                                                \
        run_n++;                                                                                  \
        run_min = min(run_min, c);                                                                \
        run_max = max(run_max, c);                                                                \
    }
#if CLQ_GQ_QUADS
        const clq_quads qs = clq_quads_of(src, blk.n);
        const uint head = qs.head, quads = qs.quads, tail = head + quads * CLQ_QUAD_KEYS;
        __global const clq_quad *q = (__global const clq_quad *)(src + head);
        for (uint j0 = 0; j0 < quads; j0 += CLQ_GQ_QUADS * CLQ_GQ_WG) {
            clq_quad v[CLQ_GQ_QUADS];
            for (uint t = 0; t < CLQ_GQ_QUADS; t++) {
                const uint j = j0 + t * CLQ_GQ_WG + lid;
                if (j < quads)
                    v[t] = q[j];
            }
            for (uint t = 0; t < CLQ_GQ_QUADS; t++)
                if (j0 + t * CLQ_GQ_WG + lid < quads) {
                    CLQ_QUAD_EACH(v[t], CLQ_GQ_COUNT_KEY)
                }
        }
        for (uint i = lid; i < head; i += CLQ_GQ_WG)
            CLQ_GQ_COUNT_KEY(src[i])
        for (uint i = tail + lid; i < blk.n; i += CLQ_GQ_WG)
            CLQ_GQ_COUNT_KEY(src[i])
#else
        for (uint part = 0; part < blk.n; part += CLQ_GQ_UNIT)
        for (uint k0 = 0; k0 < CLQ_GQ_COUNT_K; k0 += CLQ_GQ_IN_FLIGHT) {
            /* CLQ_GQ_IN_FLIGHT loads before the first key is counted: with one at a time the
             * pass waited on memory for every key */
            clq_key v[CLQ_GQ_IN_FLIGHT];
            for (uint t = 0; t < CLQ_GQ_IN_FLIGHT; t++) {
                const uint j = part + (k0 + t) * CLQ_GQ_WG + lid;
                if (k0 + t < CLQ_GQ_COUNT_K && j < blk.n)
                    v[t] = src[j];
            }
            for (uint t = 0; t < CLQ_GQ_IN_FLIGHT; t++) {
                const uint j = part + (k0 + t) * CLQ_GQ_WG + lid;
                if (k0 + t < CLQ_GQ_COUNT_K && j < blk.n)
                    CLQ_GQ_COUNT_KEY(v[t])
            }
        }
#endif
#undef CLQ_GQ_COUNT_KEY
#endif
#if CLQ_GQ_WG > 1
        if (run_n)
            clq_count_run(lm, run_b, run_n, run_min, run_max, blk.ways, copies);
        /* the copies into copy 0, halving them each round: copy c takes copy c + step */
        for (uint step = copies / 2u; step > 0u; step /= 2u) {
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint i = lid; i < step * blk.ways; i += CLQ_GQ_WG) {
                const uint c = i / blk.ways, b = i - c * blk.ways;
                const uint to = CLQ_GQ_COPY_IN(b, c, blk.ways), from = CLQ_GQ_COPY_IN(b, c + step, blk.ways);
                lm->count[to] += lm->count[from];
                lm->not_min[to] = max(lm->not_min[to], lm->not_min[from]);
                lm->max[to] = max(lm->max[to], lm->max[from]);
            }
        }
#else
        for (uint b = 0; b < blk.ways; b++) {
            lm->count[b] = lm->cell[b].count;
            lm->not_min[b] = lm->cell[b].not_min;
            lm->max[b] = lm->cell[b].max;
        }
#endif
        if (outside)
            atomic_or(&status[CLQ_ST_ERROR], CLQ_ERR_RANGE);
        barrier(CLK_LOCAL_MEM_FENCE);

        /* add the block's buckets to the sequence's, unless the block is the whole sequence */
        const uint alone = clq_units_of(blk.len) == 1u; /* the same for the whole group */
        __global clq_bucket *copy = blk.bk + (blk.begin / CLQ_GQ_UNIT) % clq_copies_of(blk.len) * blk.ways;
        uint landed = 0;
        for (uint b = lid; b < (alone ? 0u : blk.ways); b += CLQ_GQ_WG) {
            const uint n = lm->count[b];
            if (n) {
                landed += atomic_add(&copy[b].count, n);
                landed += (uint)clq_atomic_max_code(&copy[b].not_min, lm->not_min[b]);
                landed += (uint)clq_atomic_max_code(&copy[b].max, lm->max[b]);
            }
        }
        if (alone || clq_last_ticket(&blk.seq->count_done, clq_units_of(blk.len), &lm->last, landed, lm->scan_tmp))
            clq_emit_children(next, leaves, status, &blk, lm, alone);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#ifdef CLQ_DEVICE_ENQUEUE
    clq_after_gqcount(CLQ_BUFFER_ARGS, lists, pool, leaves, status, parity);
#endif
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void gqcount_kernel(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool, __global clq_leaf *leaves,
                    __global uint *status, uint parity)
{
    __local clq_count_local lm;
    clq_gqcount_body(CLQ_BUFFER_ARGS_AT(status), lists, pool, leaves, status, parity, &lm);
}

/* ---- sort pass ------------------------------------------------------------------------------ */

/* The bucket records a sort block reserves its runs on: those of the copy its count unit added
 * to (clq_sort_copies_of: 1 or CLQ_GQ_COPIES, a power of two). */
inline __global clq_bucket *clq_sort_copy(const clq_block *blk)
{
    return blk->bk + ((blk->begin / CLQ_GQ_UNIT) & (clq_sort_copies_of(blk->len) - 1u)) * blk->ways;
}

/* A group of one work-item (CPUs) keeps each key's bucket from step 1 of the sort pass for step 3
 * and writes the stage out bucket by bucket, computing no bucket twice; a larger group computes
 * them again in each step (kept, they would hold registers: the note at step 3). */
#define CLQ_GQ_KEEP_BUCKETS (CLQ_GQ_WG == 1)

/* A work-item's key k of its block, and its value: a larger group keeps them in registers from
 * step 1 to step 3; a group of one work-item reads them again from the block, in the cache since
 * step 1, where a private copy of 16384 keys would be memory written and read once more. */
#if CLQ_GQ_KEEP_BUCKETS
#define CLQ_GQ_KEY(k) src[k]
#define CLQ_GQ_VALUE(k) vsrc[k]
#else
#define CLQ_GQ_KEY(k) v[k]
#define CLQ_GQ_VALUE(k) w[k]
#endif

/* Values wider than keys may be staged in parts (CLQ_GQ_VALUE_PARTS, src/tuning.c): the keys
 * go into the stage all at once, each work-item keeps the place each of its keys took, and then
 * the values whose keys took places in part p go into a stage of CLQ_GQ_VALUE_PART values and out
 * with their keys, one part after the other. 8-byte values beside 4-byte keys so take 8 bytes of
 * local memory a key instead of 12, and a block of 4096 keys fits NVIDIA's 48 KiB: the runs it
 * writes are twice as long as those of the 2048 that fit otherwise. Not with a group of one
 * work-item, whose write-out goes bucket by bucket. */
#define CLQ_GQ_VALUE_PART (CLQ_GQ_BLOCK / CLQ_GQ_VALUE_PARTS)
#if defined(CLQ_PAIRS) && CLQ_GQ_VALUE_PARTS > 1
#define CLQ_GQ_SPLIT_VALUES 1
#else
#define CLQ_GQ_SPLIT_VALUES 0
#endif
#if CLQ_GQ_VALUE_PARTS > 1 && (CLQ_GQ_KEEP_BUCKETS || CLQ_GQ_BLOCK % CLQ_GQ_VALUE_PARTS)
#error "values staged in parts need a group of more than one work-item and parts that divide the block"
#endif

/* The sort pass's counters in CLQ_GQ_RANK_COPIES copies, laid out as the count pass's
 * (CLQ_GQ_COPY_AT): each copy of a bucket takes its own part of the bucket's run in the stage, so
 * that a block whose keys lie in few buckets does not queue a warp on one counter for each key. */
#define CLQ_GQ_RANK_MINE(b) CLQ_GQ_MY_COPY((b), CLQ_GQ_RANK_COPIES)

typedef struct clq_gq_local {
    clq_key stage[CLQ_GQ_BLOCK];
#ifdef CLQ_PAIRS
    clq_value stage_v[CLQ_GQ_VALUE_PART];
#endif
    /* keys of the block per bucket (copy c of bucket b at CLQ_GQ_COPY_AT(b, c)), then the place
     * in the stage of each copy's keys */
    uint count[CLQ_GQ_CELLS(CLQ_GQ_RANK_COPIES)];
    uint to[CLQ_GQ_WAYS];    /* where the block's run of each bucket goes in the sequence */
    uint scan_tmp[2 * CLQ_GQ_WG];
    uint last, whole; /* whole: 1 + the bucket that holds all the block's keys, or 0 */
    uint table[CLQ_SEQ_TABLE], found[3]; /* clq_find_sequence */
} clq_gq_local;

void clq_gqsort_body(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool, __global clq_leaf *leaves,
                     __global uint *status, uint parity, __local clq_gq_local *lm)
{
    const uint lid = get_local_id(0);
    __global clq_seq *cur = lists + (size_t)parity * status[CLQ_ST_SEQ_CAP];
    const uint nseq = status[CLQ_ST_CUR_SEQS];
    const uint nblocks = status[CLQ_ST_CUR_BLOCKS];
    if (nseq == 0)
        return; /* an empty level (the note above clq_gqcount_body) */

    clq_fill_table(cur, nseq, 0, lm->table);
    for (ulong i = get_group_id(0); i < nblocks; i += get_num_groups(0)) { /* 64-bit: as above */
        const clq_block blk = clq_block_at(cur, pool, status, nseq, (uint)i, 0, lm->table, lm->found);
        if (blk.seq->stay == 0) { /* the same for the whole group */
            __global const clq_key *src = (blk.in_scratch ? scratch : keys) + blk.start + blk.begin;
            __global clq_key *dst = (blk.in_scratch ? keys : scratch) + blk.start;
#ifdef CLQ_PAIRS
            __global const clq_value *vsrc = (blk.in_scratch ? svals : vals) + blk.start + blk.begin;
            __global clq_value *vdst = (blk.in_scratch ? vals : svals) + blk.start;
#if !CLQ_GQ_KEEP_BUCKETS
            clq_value w[CLQ_GQ_K];
#endif
#endif
            for (uint i = lid; i < CLQ_GQ_COPY_AT(blk.ways, CLQ_GQ_RANK_COPIES - 1u); i += CLQ_GQ_WG)
                lm->count[i] = 0;
            if (lid == 0)
                lm->whole = 0;
            barrier(CLK_LOCAL_MEM_FENCE);

            /* 1. load, and count the block's keys of each bucket */
#if CLQ_GQ_KEEP_BUCKETS
            ushort kept[CLQ_GQ_K]; /* ways <= 4096 */
#else
            clq_key v[CLQ_GQ_K];
            for (uint k = 0; k < CLQ_GQ_K; k++) { /* every load before the first atomic */
                const uint j = k * CLQ_GQ_WG + lid;
                if (j < blk.n) {
                    v[k] = src[j];
                    CLQ_IF_PAIRS(w[k] = vsrc[j];)
                }
            }
#endif
            for (uint k = 0; k < CLQ_GQ_K; k++)
                if (k * CLQ_GQ_WG + lid < blk.n) {
                    const uint b = clq_bucket_in(&blk, clq_to_code(CLQ_GQ_KEY(k)));
#if CLQ_GQ_KEEP_BUCKETS
                    kept[k] = (ushort)b;
#endif
                    clq_gq_add(&lm->count[CLQ_GQ_RANK_MINE(b)], 1u);
                }
            barrier(CLK_LOCAL_MEM_FENCE);

            /* 2. reserve the block's run in every bucket; bucket counts -> places in the stage */
            uint offset = 0;
            for (uint b0 = 0; b0 < blk.ways; b0 += CLQ_GQ_WG) {
                const uint b = b0 + lid;
                uint n = 0;
                for (uint c = 0; b < blk.ways && c < CLQ_GQ_RANK_COPIES; c++)
                    n += lm->count[CLQ_GQ_COPY_AT(b, c)];
                uint total;
                const uint at = offset + clq_scan_exclusive(n, &total, lm->scan_tmp, CLQ_GQ_WG);
                if (n) {
                    __global clq_bucket *r = clq_sort_copy(&blk) + b; /* computed here: fewer live registers */
                    lm->to[b] = r->count + atomic_add(&r->cursor, n) - at;
                    for (uint c = 0, place = at; c < CLQ_GQ_RANK_COPIES; c++) {
                        const uint m = lm->count[CLQ_GQ_COPY_AT(b, c)];
                        lm->count[CLQ_GQ_COPY_AT(b, c)] = place;
                        place += m;
                    }
                    if (n == blk.n)
                        lm->whole = b + 1u;
                }
                offset += total;
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            /* 3. A block whose keys all lie in one bucket (sorted input, at the first level
             * mostly) goes out in the order it came in: its keys need no place in the stage, and
             * taking one would queue every work-item on one local counter for each key. Any other
             * block groups its keys by bucket in local memory (each takes the next place of its
             * bucket's run: no rank kept from step 1, whose 16 registers held the sort pass to 3
             * groups per compute unit on the H200), then writes them out in runs. The barrier
             * stays outside the branches: pocl 3.1 has run a kernel with a barrier in a branch
             * wrongly (select.cl). */
#if CLQ_GQ_SPLIT_VALUES
            ushort place[CLQ_GQ_K]; /* where each of the work-item's keys went in the stage */
#endif
            if (!lm->whole) { /* the same for the whole group */
                for (uint k = 0; k < CLQ_GQ_K; k++) {
                    const uint j = k * CLQ_GQ_WG + lid;
                    if (j < blk.n) {
#if CLQ_GQ_KEEP_BUCKETS
                        const uint at = clq_gq_add(&lm->count[kept[k]], 1u);
#else
                        const uint at = clq_gq_add(&lm->count[CLQ_GQ_RANK_MINE(clq_bucket_in(&blk, clq_to_code(CLQ_GQ_KEY(k))))], 1u);
#endif
                        lm->stage[at] = CLQ_GQ_KEY(k);
#if CLQ_GQ_SPLIT_VALUES
                        place[k] = (ushort)at;
                        if (at < CLQ_GQ_VALUE_PART)
                            lm->stage_v[at] = CLQ_GQ_VALUE(k);
#else
                        CLQ_IF_PAIRS(lm->stage_v[at] = CLQ_GQ_VALUE(k);)
#endif
                    }
                }
            }
            for (uint part = 0; part < CLQ_GQ_VALUE_PARTS; part++) {
                const uint first = part * CLQ_GQ_VALUE_PART; /* the part's places in the stage */
#if CLQ_GQ_SPLIT_VALUES
                if (part > 0 && !lm->whole)
                    for (uint k = 0; k < CLQ_GQ_K; k++)
                        if (k * CLQ_GQ_WG + lid < blk.n && place[k] - first < CLQ_GQ_VALUE_PART)
                            lm->stage_v[place[k] - first] = CLQ_GQ_VALUE(k);
#endif
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lm->whole) {
                    const uint to = lm->to[lm->whole - 1u];
                    for (uint k = 0; k < (part ? 0u : CLQ_GQ_K); k++) {
                        const uint j = k * CLQ_GQ_WG + lid;
                        if (j < blk.n && to + j < blk.len) { /* as below */
                            dst[to + j] = CLQ_GQ_KEY(k);
                            CLQ_IF_PAIRS(vdst[to + j] = CLQ_GQ_VALUE(k);)
                        }
                    }
                } else {
                    /* with the buckets kept, bucket by bucket (bucket b's run in the stage ends
                     * where its count now points); else each work-item finds its keys' buckets
                     * again */
#if CLQ_GQ_KEEP_BUCKETS
                    for (uint b = 0, j = 0; b < blk.ways; b++)
                        for (const uint end = lm->count[b]; j < end; j++) {
                            const uint to = lm->to[b] + j;
#else
                    for (uint j = first + lid, end = min(blk.n, first + CLQ_GQ_VALUE_PART); j < end; j += CLQ_GQ_WG) {
                            const uint to = lm->to[clq_bucket_in(&blk, clq_to_code(lm->stage[j]))] + j;
#endif
                            if (to < blk.len) { /* cannot fail unless the count pass reported an error */
                                dst[to] = lm->stage[j];
                                CLQ_IF_PAIRS(vdst[to] = lm->stage_v[j - first];)
                            }
                        }
                }
#if CLQ_GQ_SPLIT_VALUES
                barrier(CLK_LOCAL_MEM_FENCE); /* the next part takes the values' stage */
#endif
            }

            /* 4. the last block clears the bucket records for the next level */
            if (clq_last_ticket(&blk.seq->sort_done, clq_blocks_of(blk.len), &lm->last, 0u, lm->scan_tmp)) {
                for (uint b = lid; b < clq_sort_copies_of(blk.len) * blk.ways; b += CLQ_GQ_WG) {
                    blk.bk[b].count = 0;
                    blk.bk[b].cursor = 0;
                    blk.bk[b].not_min = 0;
                    blk.bk[b].max = 0;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* The group that finishes last prepares the next level. Every other group has read this
     * level's status words before its ticket, and the relauncher needs nothing this launch wrote:
     * the children came from the count pass. */
    if (clq_last_ticket(&status[CLQ_ST_SORT_GROUPS], (uint)get_num_groups(0), &lm->last, 0u, lm->scan_tmp)) {
        if (lid == 0)
            status[CLQ_ST_SORT_GROUPS] = 0;
        clq_relauncher_body(CLQ_BUFFER_ARGS, lists, pool, leaves, status, parity ^ 1u, 0u, lm->scan_tmp, CLQ_GQ_WG);
    }
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void gqsort_kernel(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool, __global clq_leaf *leaves,
                   __global uint *status, uint parity)
{
    __local clq_gq_local lm;
    clq_gqsort_body(CLQ_BUFFER_ARGS_AT(status), lists, pool, leaves, status, parity, &lm);
}
