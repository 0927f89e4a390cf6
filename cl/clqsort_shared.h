/*
 * clqsort_shared.h - constants shared by the host library (C11) and the kernels (OpenCL C).
 *
 * Both sides include this file: the host through src/, the kernels because the build step
 * places it first in the embedded program source. Only plain #defines belong here.
 */
#ifndef CLQSORT_SHARED_H
#define CLQSORT_SHARED_H

/* Words of the status buffer (uint32 each). The host writes the inputs before a sort and reads
 * the outputs back; kernels update the counters. */
#define CLQ_ST_CUR_SEQS 0   /* sequences in the current phase-one work list */
#define CLQ_ST_CUR_BLOCKS 1 /* blocks those sequences are cut into */
#define CLQ_ST_NEXT_SEQS 2  /* children appended to the next work list (atomic) */
#define CLQ_ST_LEAVES 3     /* records appended to the phase-two list (atomic) */
#define CLQ_ST_ERROR 4      /* CLQ_ERR_* bits set by kernels (atomic_or) */
#define CLQ_ST_LEVELS 5     /* phase-one levels that had work */
#define CLQ_ST_COUNT 6      /* input: number of keys */
#define CLQ_ST_SEQ_CAP 7    /* input: capacity of each of the two work lists */
#define CLQ_ST_LEAF_CAP 8   /* input: capacity of the phase-two list */
#define CLQ_ST_LAUNCHES 9   /* device-enqueue path: kernels enqueued on the device */
#define CLQ_ST_POOL_CAP 10  /* input: capacity of the bucket pool (records) */
#define CLQ_ST_CUR_UNITS 11 /* count units (CLQ_GQ_COUNT_K keys per work-item) of the sequences */
#define CLQ_ST_KEY_OFFSET 12   /* input, 2 words (low, high): the first key's element in its buffer */
#define CLQ_ST_VALUE_OFFSET 14 /* input, 2 words: the first value's element in its buffer */
#define CLQ_ST_SORT_GROUPS 16  /* groups of the sort pass done with the level (atomic ticket) */
#define CLQ_ST_MAX_LEVELS 17   /* input: phase-one levels the sort must finish in (clq_levels) */
#define CLQ_ST_SEGMENTS 18     /* input: segments of a segmented sort; 0: one sequence of COUNT keys */
#define CLQ_ST_SEG_END_GIVEN 19 /* input: 1 if the segment ends come in their own buffer */
#define CLQ_ST_BAD_SEGMENT 20  /* the first invalid segment (atomic min; the host writes ~0) */
#define CLQ_ST_SEG_WHY 21      /* CLQ_SEG_* bits: what the invalid segments break (atomic_or) */
#define CLQ_ST_TOPK 22         /* input: positions that must come out sorted (COUNT: all of them) */
#define CLQ_ST_ROOT_VLO 23     /* the root's slices, when it takes them (as float bits; */
#define CLQ_ST_ROOT_VSCALE 24  /* relauncher.cl: clq_choose_root_slices) */
#define CLQ_ST_CLEAR 25        /* input: what clear_kernel clears (CLQ_CLEAR_*) */
#define CLQ_ST_POOL_WORDS 26   /* input, 2 words (low, high): the pool buffer's size in uints */
#define CLQ_ST_ROOT_BASE 28    /* 2 words (low, high): the code distance slices start from */
#define CLQ_ST_ROOT_SLICES 30  /* how the root was split: CLQ_SLICE_* (0: code slices) */
#define CLQ_ST_SEL_SHORT 31    /* 1: a selecting partial sort's levels ended before its selection
                                  did, and nothing was moved (cl/select.cl); the host goes on */
#define CLQ_ST_SEL_SORTED 32   /* 1: the selection sorted its candidates in their buckets
                                  (cl/select.cl), and the 64-bit program's sort of them sorts none */
#define CLQ_ST_ENQUEUE_ERR 33  /* device-enqueue path: the first error enqueue_kernel returned, as
                                  a uint (atomic_cmpxchg from 0) */
#define CLQ_ST_FAIL_ENQUEUE 34 /* input, a test hook: the device-side launch of this number (from 1)
                                  fails as if the queue were full; 0: none (CLQSORT_FAIL_DEVICE_ENQUEUE) */
#define CLQ_ST_VALUE_LEVELS 35 /* input: levels of MAX_LEVELS there only for value slices after the
                                  root (clq_levels' one more for floats); code slices keep to the rest */
#define CLQ_ST_LEAF_NEXT 36   /* host loop: the next phase-two record a group of lqsort_kernel takes
                                  (atomic; 0 from the host; used only where records outnumber the
                                  groups: lqsort.cl, clq_lq_takes_shared) */
#define CLQ_ST_SPILL 37       /* the spread path (cl/tiles.cl): 1 where a group's keys did not fit;
                                  the host then sorts them on the tile path */
#define CLQ_ST_WORDS 38

/* What clear_kernel (cl/segments.cl) clears before a sort, in status[CLQ_ST_CLEAR]. */
#define CLQ_CLEAR_POOL 1u    /* the whole bucket pool buffer to 0 */
#define CLQ_CLEAR_WINDOWS 2u /* every segment window to empty: (~0, 0) */

/* Error bits in status[CLQ_ST_ERROR]. */
#define CLQ_ERR_SEQ_OVERFLOW 1u
#define CLQ_ERR_LEAF_OVERFLOW 2u
#define CLQ_ERR_DEPTH 4u
#define CLQ_ERR_STACK 8u
#define CLQ_ERR_ENQUEUE 16u
#define CLQ_ERR_POOL_OVERFLOW 32u
#define CLQ_ERR_RANGE 64u  /* a key lay outside its sequence's code range (clamped, not sorted) */
#define CLQ_ERR_COUNT 128u /* a sequence's bucket counts did not add up to its length */
#define CLQ_ERR_SEGMENTS 256u /* the caller's segment offsets are invalid: nothing was moved */
#define CLQ_ERR_SELECT 512u   /* a partial sort's selection found more candidates than it counted */

/* The words of a selecting partial sort's buffer (cl/select.cl): three histograms of
 * CLQ_SEL_BINS counts (launch j of the selection adds to histogram j % 3, picks from j - 1's and
 * clears j + 1's), two copies of the selection's state (launch j reads copy (j - 1) % 2 and
 * writes copy j % 2), counters, the candidates' buckets (below), then k marks, k holes and (with
 * values) the k values of the answer, 8-byte aligned. */
#define CLQ_SEL_BITS 12u
#define CLQ_SEL_BINS (1u << CLQ_SEL_BITS)
#define CLQ_SEL_HIST(j) (((j) % 3u) * CLQ_SEL_BINS)
#define CLQ_SEL_STATE(j) (3u * CLQ_SEL_BINS + ((j) % 2u) * 8u)
#define CLQ_SEL_BASE_LO 0u /* in a state: the range's first composite, 2 words (low, high) */
#define CLQ_SEL_BASE_HI 1u
#define CLQ_SEL_LEVEL 2u   /* levels done */
#define CLQ_SEL_BELOW 3u   /* composites below the range */
#define CLQ_SEL_DONE 4u    /* 1 once the candidates are few enough */
#define CLQ_SEL_TOP 5u     /* the first range's width, [0, 2^top), if sampled; 0: all */
#define CLQ_SEL_TAKEN (3u * CLQ_SEL_BINS + 16u)  /* candidates gathered (atomic) */
#define CLQ_SEL_HOLES (3u * CLQ_SEL_BINS + 17u)  /* holes listed (atomic) */
#define CLQ_SEL_FILLED (3u * CLQ_SEL_BINS + 18u) /* holes filled (atomic) */
#define CLQ_SEL_KEPT (3u * CLQ_SEL_BINS + 19u)   /* composites the first level kept (atomic; may pass the room) */
/* When the gather leaves the candidates in buckets (select_gather_kernel), bucket b holds the
 * candidates c with (c - origin) >> shift == b at [start[b], start[b + 1]), placed there by a
 * cursor each (atomic), for select_buckets_kernel to sort. */
#define CLQ_SEL_BUCKETS (3u * CLQ_SEL_BINS + 20u)   /* buckets; 0: the candidates were appended */
#define CLQ_SEL_ORIGIN_LO (3u * CLQ_SEL_BINS + 21u) /* 2 words (low, high) */
#define CLQ_SEL_ORIGIN_HI (3u * CLQ_SEL_BINS + 22u)
#define CLQ_SEL_SHIFT (3u * CLQ_SEL_BINS + 23u)
#define CLQ_SEL_STARTS (3u * CLQ_SEL_BINS + 24u)  /* CLQ_SEL_BINS + 1 words */
#define CLQ_SEL_CURSORS (4u * CLQ_SEL_BINS + 25u) /* CLQ_SEL_BINS words */
#define CLQ_SEL_WORDS (5u * CLQ_SEL_BINS + 26u)   /* even: what follows is 8-byte aligned */
/* The largest bucket the gather leaves for select_buckets_kernel (more: the candidates go to the
 * 64-bit program's sort, as for k <= CLQ_SEL_SORT_MAX), and the candidates' positions whose
 * buckets one of its groups takes at a time (those that start there). */
#define CLQ_SEL_BUCKET_MAX 1024u
#define CLQ_SEL_BUCKET_SPAN 512u
/* The first level of a sampled selection also keeps every composite of its range [0, 2^top)
 * (about CLQ_SEL_RANK(n, k) / CLQ_SEL_SAMPLES of the keys, twice that at most), in room for
 * CLQ_SEL_KEEP_ROOM(n, k) of them (twice the most expected) after the values of the answer
 * (8-byte aligned, from word CLQ_SEL_KEEP_WORD(k, value bytes)); when they fit, the later levels
 * and the gather read those instead of every key. Ranks above CLQ_SEL_KEEP_MAX_RANK keep
 * nothing: their room would pass n / 16. */
#define CLQ_SEL_KEEP_MAX_RANK 64u
/* Candidates a group of the gather holds in local memory (in the space of its histogram) before
 * it appends them all with one atomic; any more go one by one, contending for one counter. For
 * k = 65536 of 2^26 uniform keys, the gather's first 92 groups take about 710 each. */
#define CLQ_SEL_STAGE (CLQ_SEL_BINS / 2u)
/* The composites one counting group of the first level keeps: for k = 65536 on the H200's 1056
 * groups, 2^26 uniform keys leave about 540 per group, twice that at most. A group with more
 * makes the keeping fail (the input is not what the sample promised) rather than append them one
 * by one: k = 64 appending past a stage of 256 took 0.526 ms against 0.304 without keeping, the
 * composites contending for one counter. */
#define CLQ_SEL_KEEP_STAGE 1024u
#define CLQ_SEL_KEEP_ROOM(n, k)                                                                    \
    (CLQ_SEL_RANK(n, k) > CLQ_SEL_KEEP_MAX_RANK                      ? 0u                          \
     : (n) < ((n) / CLQ_SEL_SAMPLES + 1u) * 4u * CLQ_SEL_RANK(n, k) ? (n)                         \
                                                                    : ((n) / CLQ_SEL_SAMPLES + 1u) * 4u * CLQ_SEL_RANK(n, k))
#define CLQ_SEL_KEEP_WORD(k, vb) (CLQ_SEL_WORDS + 2u * (k) + 2u * (((k) * (vb) + 7u) / 8u))
/* Candidates select_sort_kernel sorts in local memory (8 bytes each, in the space of the
 * histogram): partial sorts with k up to this many sort their candidates in one group. */
#define CLQ_SEL_SORT_MAX 2048u
/* Levels of CLQ_SEL_BITS that take a range of 2^width composites down to a single value; the
 * kernels derive each level's range from the first range's width. (The host enqueues fewer:
 * the selection is done once the candidates fit their buffer, select_levels in src/sort.c.) */
#define CLQ_SEL_LEVELS_OF(width) (((width) + CLQ_SEL_BITS - 1u) / CLQ_SEL_BITS)
/* Keys select_sample_kernel reads to choose the first range (all of them when fewer). */
#define CLQ_SEL_SAMPLES 4096u
/* The first range is [0, 2^top), top the bit length of the rank-th smallest composite of the
 * samples. Rank k (small k, or every key sampled) puts at least k composites in it, as the
 * samples are keys. A larger k takes the rank its share of the samples has, k s / n rounded up,
 * plus half that and 16 (so that k <= 16 keeps rank k); the share is taken as k / (n / s) + 1,
 * no smaller and without a 64-bit product. Then fewer than k composites lie below the sample of
 * that rank with a chance under 1e-6 for keys in random order (Poisson tails; 1e-17 for
 * k <= n / s). When they do, the next launch finds it and the selection starts again from every
 * composite (clq_sel_advance), one level more than the host otherwise needs. */
#define CLQ_SEL_SAMPLES_OF(n) ((n) < CLQ_SEL_SAMPLES ? (n) : CLQ_SEL_SAMPLES)
#define CLQ_SEL_SHARE(n, k) ((k) / ((n) / CLQ_SEL_SAMPLES_OF(n)) + 1u)
#define CLQ_SEL_RANK(n, k)                                                                         \
    ((k) < CLQ_SEL_SHARE(n, k) + CLQ_SEL_SHARE(n, k) / 2u + 16u ? (k)                              \
                                                                : CLQ_SEL_SHARE(n, k) + CLQ_SEL_SHARE(n, k) / 2u + 16u)

/* Keys the root of a sort reads to choose between slices of its code range and root slices
 * (relauncher.cl: clq_choose_root_slices). */
#define CLQ_SLICE_SAMPLES 2048u

/* The most tiles a sort on the tile path has (cl/tiles.cl): the merge keeps three words per
 * tile in local memory, and the host caps the tuning's small_tiles here. A selecting partial
 * sort's candidates take the tile path up to this many tiles whatever small_tiles says
 * (src/sort.c): their count is known only on the device, and phase one's schedule for 64-bit
 * keys is eight levels of launches that mostly find nothing (k = 65536 on the H100: 0.34 ms). */
#define CLQ_TILES_MAX 128u
/* tilemerge_kernel's groups of wg work-items take CLQ_MERGE_KEYS(wg) keys of a tile each, every
 * key ranked in the other tiles by CLQ_MERGE_PARTS(wg) work-items, each over a share of them:
 * the group's windows in the other tiles (their keys that can go between its first and last key)
 * then fit in local memory even with a hundred tiles. */
#define CLQ_MERGE_PARTS(wg) ((wg) >= 32u ? 8u : 1u)
#define CLQ_MERGE_KEYS(wg) ((wg) / CLQ_MERGE_PARTS(wg))

/* Phase one: the first block of every step-th sequence of a level, in each group's local memory
 * (cl/gqsort.cl, clq_find_sequence). */
#define CLQ_SEQ_TABLE 256u

/* Segmented sorts: segments of CLQ_NET_MIN + 1 .. CLQ_NET_MAX keys are sorted by a network of
 * CLQ_NET_T work-items each (cl/segnet.cl) where the tuning's seg_net allows, not in phase two;
 * the network's groups need at least CLQ_NET_T work-items, and hold CLQ_NET_MAX / CLQ_NET_T keys
 * per work-item in local memory where they exchange keys there (seg_net 1). */
#define CLQ_NET_MIN 16u
#define CLQ_NET_MAX 64u
#define CLQ_NET_T 8u

/* What an invalid segment breaks (status[CLQ_ST_SEG_WHY]). */
#define CLQ_SEG_BEGIN_AFTER_END 1u
#define CLQ_SEG_END_PAST_COUNT 2u
#define CLQ_SEG_OVERLAP 4u /* end[i] > begin[i + 1] */

/* Flags of a phase-two record. */
#define CLQ_LEAF_IN_SCRATCH 1u /* the keys are in the scratch buffer, not the caller's */
#define CLQ_LEAF_FILL 2u       /* every key of the range equals `lo`: write it, read nothing */
#define CLQ_LEAF_COPY 8u       /* partial sorts: keys past the sorted part, copied back from scratch */
#define CLQ_LEAF_COUNT 16u     /* keys alone, codes lo .. hi (fewer than lq_ways of them) and up to
                                * 4 lq_max keys: counted per code and written from the codes */
#define CLQ_LEAF_SEGMENTS 4u   /* segments lo .. hi (indices), each at most CLQ_LQ_MAX / 2 keys,
                                  sorted apart; the record's range runs from the first's begin
                                  to the last's end */

/* Record sizes in bytes for a key code of CODE_BYTES (4 or 8); the kernels check them. */
#define CLQ_SEQ_RECORD_BYTES(CODE_BYTES) (2 * (CODE_BYTES) + 14 * 4)
#define CLQ_BUCKET_RECORD_BYTES(CODE_BYTES) (2 * (CODE_BYTES) + 2 * 4)
#define CLQ_LEAF_RECORD_BYTES(CODE_BYTES) (2 * (CODE_BYTES) + 4 * 4)

#endif
