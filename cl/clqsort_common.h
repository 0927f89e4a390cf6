/*
 * clqsort_common.h - key codes, records and work-group helpers shared by every clqsort kernel.
 *
 * The host (src/program.c) builds one program per key type and order from this file and the
 * three kernel files, with these defines:
 *   CLQ_KEY_UINT32 | CLQ_KEY_INT32 | CLQ_KEY_FLOAT | CLQ_KEY_UINT64 | CLQ_KEY_INT64 | CLQ_KEY_DOUBLE
 *   CLQ_DESCENDING        optional: sort from largest to smallest
 *   CLQ_VALUE_BYTES       optional (4 or 8): move a value along with every key
 *   CLQ_DEVICE_ENQUEUE    optional: OpenCL C 2.0 path (work-group collectives, enqueue_kernel)
 *   CLQ_GQ_WG, CLQ_GQ_K   phase one: work-group size and keys per work-item (block = product)
 *   CLQ_GQ_COUNT_K        phase one: keys per work-item of the count pass (count unit = WG * it)
 *   CLQ_GQ_WAYS           phase one: most buckets one pass splits a sequence into (power of 2)
 *   CLQ_LQ_WG             phase two: work-group size
 *   CLQ_LQ_MAX            phase two: longest sequence sorted by one work-group in local memory
 *   CLQ_LQ_WAYS           phase two: most buckets a range is split into (power of 2)
 *   CLQ_LQ_SMALL          phase two: buckets up to this length are finished by one work-item
 *   CLQ_FILL_CHUNK        longest run of equal keys written by one phase-two record
 *   CLQ_RL_WG             relauncher: work-group size
 *   CLQ_SEG_NET           segmented sorts: 0, or how segnet.cl's network exchanges keys (1 local
 *                         memory, 2 PTX shuffles); 0 where missing
 *   CLQ_GQ_VALUE_PARTS    phase one's sort pass: parts a block's values are staged in (gqsort.cl);
 *                         1 where missing
 *   CLQ_GQ_COUNT_COPIES   phase one's count pass: copies of its local counters (gqsort.cl); 1 where
 *                         missing
 *   CLQ_GQ_RANK_COPIES    phase one's sort pass: the same for its counters (gqsort.cl); 1 where missing
 *   CLQ_GQ_QUADS          phase one's count pass: 16-byte loads in flight per work-item, 0 for one
 *                         key a load (gqsort.cl); 0 where missing
 *   CLQ_ROOT_LEAD         1: a plain sort's root that keeps code slices leads (relauncher.cl); 0
 *                         where missing
 *   CLQ_FLOAT_DISTANCE    1: float and double roots may take the distance's slices (below); 0:
 *                         the value's only, and phase one's kernels hold no other; 1 where missing
 * All work-group sizes are powers of two; the host derives them from one tuning entry.
 *
 * Every comparison goes through an unsigned "code" with the wanted order: a bijection between
 * keys and codes, so a run of equal keys can be rebuilt from its code without losing a bit
 * pattern. Pivots come from the code range [lo, hi] of a sequence, never from its keys: both
 * phases split a range into buckets of equal code width (gqsort.cl, lqsort.cl), so each split
 * takes at least one bit off the range and a range with lo == hi is finished. Phase one takes
 * enough bits per level that no input needs more than the levels the host enqueues
 * (status[CLQ_ST_MAX_LEVELS], relauncher.cl). One exception: the root of a sort with a level to
 * spare may split into equal slices of another order-keeping value instead (root slices, below),
 * and so may the float and double sequences after a root in value slices (value slices), each
 * only where the levels after it keep the bound by themselves.
 */

/* ---- key types and codes ------------------------------------------------------------------ */

#if defined(CLQ_KEY_UINT32) || defined(CLQ_KEY_INT32) || defined(CLQ_KEY_FLOAT)
typedef uint clq_code;
#define CLQ_CODE_BITS 32
#define CLQ_CODE_MAX 0xffffffffu
#define CLQ_SIGN ((clq_code)0x80000000u)
/* Float: negative NaNs (sign set, exponent all ones, mantissa not zero) would get the lowest
 * codes; subtracting their number rotates them above every other code, so all NaNs sort last. */
#define CLQ_NEG_NAN_COUNT ((clq_code)0x007fffffu)
#if defined(CLQ_KEY_UINT32)
typedef uint clq_key;
#elif defined(CLQ_KEY_INT32)
typedef int clq_key;
#else
typedef float clq_key;
#endif
#define CLQ_BITS_OF(k) as_uint(k)
#elif defined(CLQ_KEY_UINT64) || defined(CLQ_KEY_INT64) || defined(CLQ_KEY_DOUBLE)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
typedef ulong clq_code;
#define CLQ_CODE_BITS 64
#define CLQ_CODE_MAX 0xfffffffffffffffful
#define CLQ_SIGN ((clq_code)0x8000000000000000ul)
#define CLQ_NEG_NAN_COUNT ((clq_code)0x000ffffffffffffful)
#if defined(CLQ_KEY_UINT64)
typedef ulong clq_key;
#elif defined(CLQ_KEY_INT64)
typedef long clq_key;
#else
/* Doubles are moved as their bit patterns: no cl_khr_fp64 is needed. */
typedef ulong clq_key;
#define CLQ_KEY_IS_BITS 1
#endif
#define CLQ_BITS_OF(k) as_ulong(k)
#else
#error "clqsort: no key type defined"
#endif

/* The code of the key whose bit pattern is u. */
inline clq_code clq_code_of_bits(clq_code u)
{
    clq_code c;
#if defined(CLQ_KEY_UINT32) || defined(CLQ_KEY_UINT64)
    c = u;
#elif defined(CLQ_KEY_INT32) || defined(CLQ_KEY_INT64)
    c = u ^ CLQ_SIGN;
#else /* float, double */
    c = (u & CLQ_SIGN) ? ~u : (u | CLQ_SIGN);
    c -= CLQ_NEG_NAN_COUNT;
#endif
#ifdef CLQ_DESCENDING
    c = ~c;
#endif
    return c;
}

inline clq_code clq_to_code(clq_key k) { return clq_code_of_bits(CLQ_BITS_OF(k)); }

inline clq_key clq_from_code(clq_code c)
{
#ifdef CLQ_DESCENDING
    c = ~c;
#endif
    clq_code u;
#if defined(CLQ_KEY_UINT32) || defined(CLQ_KEY_UINT64)
    u = c;
#elif defined(CLQ_KEY_INT32) || defined(CLQ_KEY_INT64)
    u = c ^ CLQ_SIGN;
#else
    c += CLQ_NEG_NAN_COUNT;
    u = (c & CLQ_SIGN) ? (c ^ CLQ_SIGN) : ~c;
#endif
#if defined(CLQ_KEY_FLOAT)
    return as_float(u);
#elif defined(CLQ_KEY_INT32)
    return as_int(u);
#elif defined(CLQ_KEY_INT64)
    return as_long(u);
#else
    return u;
#endif
}

/* ---- values ---------------------------------------------------------------------------------
 * With CLQ_VALUE_BYTES every move of a key moves its value too. Keys alone are sometimes rebuilt
 * from their code instead of moved (a run of equal keys); with values, such a run is copied. */
#ifdef CLQ_VALUE_BYTES
#define CLQ_PAIRS 1
#if CLQ_VALUE_BYTES == 8
typedef ulong clq_value;
#else
typedef uint clq_value;
#endif
#define CLQ_IF_PAIRS(...) __VA_ARGS__
#else
typedef uint clq_value; /* unused: the value buffers are NULL */
#define CLQ_IF_PAIRS(...)
#endif

/* Bucket of code c in slices of 2^shift codes from lo (phase two but for double keys: lqsort.cl). */
inline uint clq_bucket_of(clq_code c, clq_code lo, uint shift, uint ways)
{
    return (uint)min((c - lo) >> shift, (clq_code)(ways - 1u));
}

/* Buckets of a code range [lo, hi] (phase one; phase two for double keys): `ways` equal slices
 * of it, however wide it is. Equal slices of 2^shift codes would reach only half of the buckets
 * of a range just over a power of two wide, and leave its children up to twice as long (doubles
 * at 2^26 keys took a third phase-one level for that: docs/PERFORMANCE.md). Instead the offset
 * c - lo is normalized, shifted left by `norm` = clz(hi - lo) so that the last offset `top` has
 * its top bit at bit 31 (cut to 32 bits for 64-bit codes), and multiplied by `scale` / 2^32 with
 * scale = floor(ways 2^16 / (floor(top / 2^16) + 1)) (clq_scale_of: a 32-bit division). Then:
 * - top * scale < ways 2^32: every code of the range lands in a bucket below `ways`;
 * - top >= 2^31 gives ways <= scale < 2 ways, so a bucket holds at most 2^32 / ways normalized
 *   offsets: at most 2^(width bits - log2 ways) codes, as a slice of 2^shift codes does, and
 *   the depth bounds of both phases hold as for those slices;
 * - the last code lands in bucket ways - 2 or ways - 1: every bucket is reached.
 * Per key it is a subtraction, a shift and a 32-bit mul_hi (clq_mul_hi32). Codes outside the
 * range cannot occur (ranges are exact, or a bucket's own range in phase two); should one, it is
 * kept inside the local arrays and the pass that counts buckets reports it (CLQ_ERR_RANGE), so
 * that a broken invariant gives an error status instead of a memory fault. */
inline uint clq_normalized(clq_code c, clq_code lo, uint norm)
{
    return (uint)(((c - lo) << norm) >> (CLQ_CODE_BITS - 32));
}
inline uint clq_scale_of(clq_code width, uint norm, uint ways)
{
    return (ways << 16) / ((clq_normalized(width, 0, norm) >> 16) + 1u);
}
/* The high word of a 32 x 32-bit product. On CPUs (-DCLQ_CPU) from the 64-bit product: pocl 3.1
 * does not inline its mul_hi, and at 2^22 keys (2 cores) phase one took 58 ms with it against
 * 31 with the product; GPUs keep mul_hi (the product was 2 % slower on an H100 at 2^26). */
#ifdef CLQ_CPU
inline uint clq_mul_hi32(uint a, uint b) { return (uint)(((ulong)a * b) >> 32); }
#else
inline uint clq_mul_hi32(uint a, uint b) { return mul_hi(a, b); }
#endif
inline uint clq_scaled_bucket(clq_code c, clq_code lo, uint norm, uint scale, uint ways)
{
    return min(clq_mul_hi32(clq_normalized(c, lo, norm), scale), ways - 1u);
}
/* The least offset c - lo of bucket b >= 1 of such a range (the least whose normalized offset is
 * at least ceil(b 2^32 / scale)); it may lie past the range's last offset when the bucket is
 * empty. Phase two gives a pushed bucket the offsets from it to the next bucket's. */
inline clq_code clq_scaled_offset(uint b, uint norm, uint scale)
{
    const uint a = (uint)((((ulong)b << 32) + scale - 1u) / scale);
    const clq_code t = (clq_code)a << (CLQ_CODE_BITS - 32); /* d << norm >= t: d >= t / 2^norm */
    return (t >> norm) + ((t & (((clq_code)1 << norm) - 1u)) != 0u);
}

/* ---- root slices ----------------------------------------------------------------------------
 * Equal slices of the code range come out uneven where the codes crowd into part of it, and a
 * crowded slice takes more levels. Two kinds of input crowd that way:
 * - floats spread evenly in value: their codes halve in density with every octave below the
 *   largest, so a quarter of keys spread over [-2^21, 2^21] share one slice of 256;
 * - keys that crowd towards one end of their range (integer power laws, sizes, counts; floats
 *   within a few octaves that do so in value): the slice at that end holds most keys, and each
 *   level takes about as many off as the one before.
 * The root of a sort with a level to spare may take equal slices of a "slice value" of the code
 * instead (relauncher.cl: clq_choose_root_slices):
 *   CLQ_SLICE_VALUE  float and double keys: the key's value (a double cut to a float's precision
 *                    and range, so no fp64 is needed), NaNs as infinity on the side where they
 *                    sort (last), negated for descending order;
 *   CLQ_SLICE_UP     every key type (float and double keys with CLQ_FLOAT_DISTANCE): the
 *                    distance of the code above `base` (the root sample's least code) on a
 *                    log scale: the bits of its float, which are a piecewise-linear log2 of
 *                    it (0 counts as 0.5, an octave below 1). Float
 *                    and double keys crowd this way when they lie within a few octaves and
 *                    crowd towards one end in value (a power law above an offset): within an
 *                    octave the code distance is proportional to the value distance;
 *   CLQ_SLICE_DOWN   the same types: minus the same for the distance below `base` (the
 *                    sample's greatest code).
 * The bucket is (v - vlo) * vscale, clamped to the buckets. It must never decrease as the code
 * grows, so every step keeps the order: rounding can merge neighbours but never swap them. */
#ifndef CLQ_FLOAT_DISTANCE
#define CLQ_FLOAT_DISTANCE 1
#endif
#define CLQ_SLICE_CODE 0u /* clq_scaled_bucket: every sequence but such a root and those below */
#define CLQ_SLICE_VALUE 1u
#define CLQ_SLICE_UP 2u
#define CLQ_SLICE_DOWN 3u

#if defined(CLQ_KEY_FLOAT) || defined(CLQ_KEY_DOUBLE)
/* CLQ_SLICE_VALUE's value of code c */
inline float clq_key_value(clq_code c)
{
    const clq_code u = CLQ_BITS_OF(clq_from_code(c));
    const clq_code mag = u & ~CLQ_SIGN;
#if defined(CLQ_KEY_FLOAT)
    float v = mag > 0x7f800000u ? INFINITY : as_float(u);
#else /* the upper word: sign, exponent and 20 bits of mantissa, more than the buckets need */
    const uint hi = (uint)(mag >> 32);
    const int e = (int)(hi >> 20) - 1023 + 127; /* the float exponent */
    const uint f = e >= 255 ? 0x7f800000u : e <= 0 ? 0u : ((uint)e << 23) | (hi & 0xfffffu) << 3;
    float v = mag > 0x7ff0000000000000ul ? INFINITY : (u & CLQ_SIGN) ? -as_float(f) : as_float(f);
#endif
#ifdef CLQ_DESCENDING
    v = -v;
#endif
    return v;
}
#endif

/* Value slices for a sequence after a root in value slices (`root_vscale` its buckets per unit
 * of value), with codes lo .. hi split `ways` ways: *vscale stays 0 unless its values lie on
 * both sides of zero or in more than one octave (where equal slices of the code hold keys
 * spread evenly in value unevenly, up to 2^octaves: the root's bucket that holds zero spans
 * every exponent below its ends, and a bucket across one boundary holds twice as many codes a
 * unit of value on one side). Where one end is infinite (a NaN counts as one, and so does a
 * double beyond a float's range), as the root's first and last buckets are, the slices span a
 * root bucket from the other end
 * and as far again as 4 gaps between the root's samples (keys spread evenly in value reach past
 * the sample's ends by one gap on average, and the root's end buckets hold them); keys past
 * that fall into the end slice. Root slices take every way (CLQ_GQ_WAYS). */
#if defined(CLQ_KEY_FLOAT) || defined(CLQ_KEY_DOUBLE)
inline void clq_value_slices_of(clq_code lo, clq_code hi, uint ways, float root_vscale, float *vlo, float *vscale)
{
    float a = clq_key_value(lo);
    const float b = clq_key_value(hi);
    const uint ea = (as_uint(a) >> 23) & 0xffu, eb = (as_uint(b) >> 23) & 0xffu;
    /* within one octave, or across one boundary in a range too narrow for a float to spread
     * (under 2^-12 of its ends' magnitude): code slices are as even */
    if (signbit(a) == signbit(b) && eb <= ea + 1u && ea <= eb + 1u &&
        (ea == eb || (b - a) * 4096.0f < fmax(fabs(a), fabs(b))))
        return;
    /* a range that ends at zero (either sign): code slices give its zeros, often many, a
     * bucket of their own, where a value slice would mix them with the least values above */
    if (a == 0.0f || b == 0.0f)
        return;
    const float s = isfinite(a) && isfinite(b)
                        ? (float)ways / (b - a)
                        : (float)ways * root_vscale / (1.0f + 4.0f * (float)CLQ_GQ_WAYS / (float)CLQ_SLICE_SAMPLES);
    if (!isfinite(a))
        a = b - (float)ways / s;
    if (isfinite(a) && isfinite(s) && s > 0.0f) {
        *vlo = a;
        *vscale = s;
    }
}
#endif

inline float clq_slice_value(clq_code c, uint how, clq_code base)
{
#if defined(CLQ_KEY_FLOAT) || defined(CLQ_KEY_DOUBLE)
    if (!CLQ_FLOAT_DISTANCE || how == CLQ_SLICE_VALUE) /* without the distance: always */
        return clq_key_value(c);
#endif
    /* The distance wraps for codes on the far side of base; those take the value of 0. (Not a
     * clamped subtraction: LLVM makes that a saturating one, which oclgrind cannot run.) */
    const clq_code d = how == CLQ_SLICE_UP ? c - base : base - c;
    const int beyond = how == CLQ_SLICE_UP ? c < base : c > base;
    const uint one_half = 0x3f000000u; /* the bits of 0.5f */
    const float v = (float)(beyond ? one_half : max(as_uint((float)d), one_half));
    return how == CLQ_SLICE_UP ? v : -v;
}

inline uint clq_value_bucket(float v, float vlo, float vscale, uint ways)
{
    return (uint)fmin(fmax((v - vlo) * vscale, 0.0f), (float)(ways - 1u));
}

/* ---- atomics on records ------------------------------------------------------------------- */

#if CLQ_CODE_BITS == 32
#define clq_atomic_max_code(p, v) atomic_max((volatile __global uint *)(p), (v))
#define clq_atomic_max_local(p, v) atomic_max((volatile __local uint *)(p), (v))
#else
#define clq_atomic_max_code(p, v) atom_max((volatile __global ulong *)(p), (v))
#define clq_atomic_max_local(p, v) atom_max((volatile __local ulong *)(p), (v))
#endif
/* Reads a word other work-groups of this launch update atomically: a read-modify-write that
 * changes nothing returns the value every earlier atomic left there. */
#define clq_atomic_read_u32(p) atomic_or((volatile __global uint *)(p), 0u)
#define clq_atomic_read_max(p) clq_atomic_max_code((p), (clq_code)0)

/* Updates of local counters: atomics, except in a group of one work-item (CPU devices), where
 * they would only cost time (the partition passes and the selection, cl/select.cl). */
#if CLQ_GQ_WG == 1
inline uint clq_gq_add(__local uint *p, uint v)
{
    const uint old = *p;
    *p = old + v;
    return old;
}
#define clq_gq_max(p, v) (*(p) = max(*(p), (v)))
#else
#define clq_gq_add(p, v) atomic_add((p), (v))
#define clq_gq_max(p, v) clq_atomic_max_local((p), (v))
#endif

/* ---- records ------------------------------------------------------------------------------ */

/* A sequence in a phase-one work list: keys [start, start + len) with codes in [lo, hi]
 * (exact: the smallest and largest code present). relauncher_kernel fills in the rest. */
typedef struct clq_seq {
    clq_code lo, hi;
    uint start, len;
    uint in_scratch;  /* 1: keys are in the scratch buffer */
    uint first_block; /* index of the sequence's first block in the level (sort pass) */
    uint first_unit;  /* index of its first count unit in the level (count pass) */
    uint bucket_base; /* its 2^ways_log2 bucket records (times clq_copies_of) start here in the pool */
    uint ways_log2;
    uint norm;        /* bucket of code c: clq_scaled_bucket(c, lo, norm, scale, 2^ways_log2) */
    uint count_done;  /* atomic: tickets of the count pass; the last block emits the children */
    uint sort_done;   /* atomic: tickets of the sort pass; the last block clears the buckets */
    uint stay;        /* set by the count pass: one bucket holds every key, nothing moves */
    uint scale;       /* 0: value or root slices instead (clq_value_bucket of the slice values):
                       * with vscale 0, the root's, status[CLQ_ST_ROOT_SLICES] says which */
    uint vlo, vscale; /* float bits: a later sequence's value slices (clq_value_slices_of) */
} clq_seq;

/* One bucket of a sequence being partitioned. Every field is 0 between levels (the host clears
 * the pool before a sort; the pass that last uses a record clears it). */
typedef struct clq_bucket {
    clq_code not_min; /* atomic max of ~code, so 0 means "no key yet" */
    clq_code max;     /* atomic max of code */
    uint count;       /* count pass: atomic key count; after it: where the bucket (or this
                       * copy's part of it, CLQ_GQ_SORT_COPIES) starts */
    uint cursor;      /* sort pass: keys of the bucket placed so far (atomic) */
} clq_bucket;

/* A phase-two record: a short sequence to sort, or a run of equal keys to write. */
typedef struct clq_leaf {
    clq_code lo, hi;
    uint start, len;
    uint flags; /* CLQ_LEAF_* */
    uint pad;
} clq_leaf;

/* The host sizes its buffers from clqsort_shared.h; refuse to build if the layouts disagree. */
typedef char clq_check_seq_size[(sizeof(clq_seq) == CLQ_SEQ_RECORD_BYTES(sizeof(clq_code))) ? 1 : -1];
typedef char clq_check_bucket_size[(sizeof(clq_bucket) == CLQ_BUCKET_RECORD_BYTES(sizeof(clq_code))) ? 1 : -1];
typedef char clq_check_leaf_size[(sizeof(clq_leaf) == CLQ_LEAF_RECORD_BYTES(sizeof(clq_code))) ? 1 : -1];

/* The keys a sort (the root, or the tile path) takes: status[CLQ_ST_COUNT], or none where a
 * selecting partial sort has sorted its candidates already (cl/select.cl). */
inline uint clq_keys_to_sort(__global const uint *status)
{
    return status[CLQ_ST_SEL_SORTED] ? 0u : status[CLQ_ST_COUNT];
}

#define CLQ_GQ_BLOCK (CLQ_GQ_WG * CLQ_GQ_K)
#define CLQ_GQ_WAYS_LOG2 (31u - (uint)clz((uint)CLQ_GQ_WAYS))

#define CLQ_GQ_UNIT (CLQ_GQ_WG * CLQ_GQ_COUNT_K)
/* ceil(len / size) without the overflow of len + size - 1 near 2^32 keys */
inline uint clq_ceil_div(uint len, uint size) { return len / size + (len % size != 0u); }
inline uint clq_blocks_of(uint len) { return clq_ceil_div(len, CLQ_GQ_BLOCK); }
/* A sequence of at most CLQ_GQ_ALONE keys is one count unit, however many CLQ_GQ_UNIT it spans:
 * its one group counts all of it and emits its children from its own counts, with no atomics on
 * the bucket records and no ticket (gqsort.cl). Level-one buckets of 16 segments of 2^22 keys
 * hold 16,384 keys on average, about half of them a few more. */
#define CLQ_GQ_ALONE (2u * CLQ_GQ_UNIT)
inline uint clq_units_of(uint len) { return len && len <= CLQ_GQ_ALONE ? 1u : clq_ceil_div(len, CLQ_GQ_UNIT); }
/* Copies of a long sequence's bucket records: its count units add to them in turn (unit u to
 * copy u % copies), so that thousands of units do not queue on the same 3 x 2^w words, and the
 * unit with the last ticket adds the copies up into the first and clears the others (but for
 * their counts where CLQ_GQ_SORT_COPIES: those become offsets, cleared by the sort pass). Sequences
 * of at least CLQ_GQ_COPY_UNITS units take CLQ_GQ_COPIES copies (the root of 2^26 keys has 4096
 * units; on the H200 the copies cost the root of 2^22, 256 units, more than they saved). A
 * sequence takes copies only where the pool has room for them: copies <= len / (CLQ_LQ_MAX + 1),
 * as many sequences as could lie in its keys (sort.c, capacities). The test is two comparisons
 * of quotients by constants: a division by a variable copy count here made the whole count
 * kernel slower on the H200 (root count pass 0.229 ms against 0.183 at 2^26). */
#define CLQ_GQ_COPIES 16u
/* Where every sort block lies inside one count unit, the sort pass reserves its runs on the copy
 * its unit counted into: the last unit of the count pass gives copy c of each bucket the place
 * where the keys of copy c's units start, so the blocks of the root do not all queue on the same
 * 2^w cursors either. */
#define CLQ_GQ_SORT_COPIES (CLQ_GQ_COUNT_K % CLQ_GQ_K == 0)
/* the sort pass finds its copy with a mask (gqsort.cl, clq_sort_copy) */
typedef char clq_check_copies_pow2[(CLQ_GQ_COPIES & (CLQ_GQ_COPIES - 1u)) == 0 ? 1 : -1];
#define CLQ_GQ_COPY_UNITS 1024u
inline uint clq_copies_of(uint len)
{
    return len / CLQ_GQ_UNIT >= CLQ_GQ_COPY_UNITS && len / (CLQ_LQ_MAX + 1u) >= CLQ_GQ_COPIES ? CLQ_GQ_COPIES : 1u;
}
/* Copies the sort pass reserves on, and so clears after it (gqsort.cl): the count copies, or the
 * first alone. */
inline uint clq_sort_copies_of(uint len) { return CLQ_GQ_SORT_COPIES ? clq_copies_of(len) : 1u; }

#ifndef CLQ_SEG_NET
#define CLQ_SEG_NET 0
#endif
#ifndef CLQ_GQ_VALUE_PARTS
#define CLQ_GQ_VALUE_PARTS 1
#endif
#ifndef CLQ_GQ_COUNT_COPIES
#define CLQ_GQ_COUNT_COPIES 1
#endif
#ifndef CLQ_GQ_RANK_COPIES
#define CLQ_GQ_RANK_COPIES 1
#endif
#ifndef CLQ_ROOT_LEAD
#define CLQ_ROOT_LEAD 0
#endif
/* The end of segment i of a segmented sort (segments.cl): its own, or the next one's begin. */
inline uint clq_seg_end(__global const uint *seg_begin, __global const uint *seg_end, uint i, uint end_given)
{
    return end_given ? seg_end[i] : seg_begin[i + 1];
}

/* Whether a segment of n keys is sorted by segnet.cl's network, and not in phase two. */
#if CLQ_SEG_NET
inline int clq_seg_net(uint n) { return n > CLQ_NET_MIN && n <= CLQ_NET_MAX; }
#else
inline int clq_seg_net(uint n)
{
    (void)n;
    return 0;
}
#endif

/* ---- work-group scans --------------------------------------------------------------------- */
/* Every work-item of the group calls these with the same `wg` (the compile-time group size).
 * The OpenCL 2.0 path uses the built-in collectives; the 1.2 path runs them through local
 * memory (`tmp` holds 2 * wg elements). Both return the same values to every work-item and
 * leave `tmp` free for reuse. */

#ifdef CLQ_DEVICE_ENQUEUE
inline uint clq_scan_exclusive(uint v, uint *total, __local uint *tmp, uint wg)
{
    (void)tmp;
    (void)wg;
    uint e = work_group_scan_exclusive_add(v);
    *total = work_group_reduce_add(v);
    return e;
}
/* The largest v of the work-items before this one (0 for the first). */
inline uint clq_scan_exclusive_max(uint v, __local uint *tmp, uint wg)
{
    (void)tmp;
    (void)wg;
    return work_group_scan_exclusive_max(v);
}
#else
inline uint clq_scan_exclusive_max(uint v, __local uint *tmp, uint wg)
{
    const uint lid = get_local_id(0);
    __local uint *a = tmp, *b = tmp + wg;
    a[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < wg; off <<= 1) {
        b[lid] = lid >= off ? max(a[lid], a[lid - off]) : a[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        __local uint *t = a;
        a = b;
        b = t;
    }
    const uint before = lid ? a[lid - 1] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    return before;
}
/* Hillis-Steele between two arrays: one barrier per step. */
inline uint clq_scan_exclusive(uint v, uint *total, __local uint *tmp, uint wg)
{
    const uint lid = get_local_id(0);
    __local uint *a = tmp, *b = tmp + wg;
    a[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < wg; off <<= 1) {
        b[lid] = lid >= off ? a[lid] + a[lid - off] : a[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        __local uint *t = a;
        a = b;
        b = t;
    }
    const uint inclusive = a[lid];
    *total = a[wg - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return inclusive - v;
}
#endif

/* The sort's status words (the host's inputs, its outputs zeroed) where the host's first launch
 * of a sort brings them as its last four arguments instead of writing them before it (src/sort.c,
 * words_by_launch): nwords CLQ_ST_WORDS, else 0. The kernel's one group writes them, its `wg`
 * work-items taking them in turn (one work-item on CPUs). */
#define CLQ_WORDS_PARAMS uint16 words_lo, uint16 words_mid, uint8 words_hi, uint nwords
#define CLQ_WORDS_ARGS words_lo, words_mid, words_hi, nwords
inline void clq_bring_words(__global uint *status, uint16 lo, uint16 mid, uint8 hi, uint nwords, uint wg)
{
    if (!nwords)
        return;
    uint w[40];
    vstore16(lo, 0, w);
    vstore16(mid, 1, w);
    vstore8(hi, 4, w);
    for (uint i = get_local_id(0); i < nwords; i += wg)
        status[i] = w[i];
}

/* The buffers every kernel takes first: the caller's keys and values and their scratch, and a
 * segmented sort's segment offsets (segments.cl; NULL otherwise). */
#define CLQ_BUFFER_PARAMS                                                                         \
    __global clq_key *keys, __global clq_key *scratch, __global clq_value *vals, __global clq_value *svals, \
        __global const uint *seg_begin, __global const uint *seg_end
#define CLQ_BUFFER_ARGS keys, scratch, vals, svals, seg_begin, seg_end

/* The caller's keys and values start some elements into their buffers (clqsort_sort_at); the
 * host writes the offsets into the status words, and each __kernel passes its body pointers to
 * the first key and value. Bodies, and the launches the device-enqueue path makes from them,
 * never see the offsets. (Status words, not scalar arguments: a kernel object's scalars are set
 * once, see src/program.c.) */
inline ulong clq_offset_at(__global const uint *status, uint word)
{
    return (ulong)status[word] | (ulong)status[word + 1] << 32;
}
#define CLQ_BUFFER_ARGS_AT(status)                                                                \
    keys + clq_offset_at(status, CLQ_ST_KEY_OFFSET), scratch, vals + clq_offset_at(status, CLQ_ST_VALUE_OFFSET), svals, \
        seg_begin, seg_end

/* Functions that a kernel calls rarely and whose registers it should not take: out of line on
 * the host-loop path (NVIDIA's compiler gives a kernel the registers of what it inlines), inline
 * on the device-enqueue path, where Intel's CPU runtime allowed a kernel with such a call only
 * 48 work-items per group. */
#ifdef CLQ_DEVICE_ENQUEUE
#define CLQ_OUT_OF_LINE
#else
#define CLQ_OUT_OF_LINE __attribute__((noinline))
#endif

/* Prepares work list `parity` for the next level (relauncher.cl); run by one whole work-group of
 * `wg` work-items, `scan_tmp` holding 2 * wg uints. The sort pass's last group calls it
 * (gqsort.cl), CLQ_OUT_OF_LINE: inlined, it took the sort pass 30 % slower on an H200 (2^26
 * keys: 1.14 instead of 0.88 ms). */
CLQ_OUT_OF_LINE void clq_relauncher_body(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool,
                         __global clq_leaf *leaves, __global uint *status, uint parity, uint init,
                         __local uint *scan_tmp, uint wg);

#ifdef CLQ_DEVICE_ENQUEUE
/* Device-side launches, defined in relauncher.cl (the kernels' bodies call them). */
void clq_after_gqcount(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool,
                       __global clq_leaf *leaves, __global uint *status, uint parity);
void clq_enqueue_next(CLQ_BUFFER_PARAMS, __global clq_seq *lists, __global clq_bucket *pool,
                      __global clq_leaf *leaves, __global uint *status, uint parity, uint nseq, uint units);
#endif
