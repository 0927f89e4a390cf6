/* test_util.h - what the clqsort test programs share: checks, key distributions, reference. */
#ifndef CLQSORT_TEST_UTIL_H
#define CLQSORT_TEST_UTIL_H

#include "clqsort.h"

#include <stdint.h>
#include <stdio.h>

/* atomic: test_threads checks from many threads at once (C only: the CUB peer, C++, uses none) */
#ifndef __cplusplus
extern _Atomic int tu_passed, tu_failed;
#endif

/* Counts one assertion; prints a line for each failure. */
#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (cond) {                                                                          \
            tu_passed++;                                                                     \
        } else {                                                                             \
            tu_failed++;                                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
        }                                                                                    \
    } while (0)

/* Prints "N passed, N failed" and returns the process exit code. */
int tu_finish(const char *name);
/* CLQSORT_TEST_EXPECT_WAYS (tests/CMakeLists.txt: sort_wide, types_wide): a comma-separated list
 * of key counts, each "N:W" (N keys and more) or "A-B:W" (A to B keys), the same W in all: sorts
 * of those counts must report W phase-one ways, so that a run meant to test wide programs cannot
 * pass without them. ways is 0 without the variable; a malformed one fails a check. */
#define TU_WAYS_RANGES 4
typedef struct tu_ways_spec {
    unsigned long lo[TU_WAYS_RANGES], hi[TU_WAYS_RANGES], ways;
    unsigned ranges;
} tu_ways_spec;
void tu_expect_ways(tu_ways_spec *spec);
/* Whether a sort of n keys is to report spec->ways. */
int tu_ways_wide_at(const tu_ways_spec *spec, size_t n);

typedef enum tu_dist {
    TU_UNIFORM, TU_GAUSSIAN, TU_BUCKET, TU_STAGGERED, TU_SORTED, TU_REVERSE, TU_ALL_EQUAL,
    TU_FEW_2, TU_FEW_16, TU_MANY_DUPLICATES,
    /* inputs whose codes crowd into a small part of the range */
    TU_POWER_LAW, TU_UPPER_BITS, TU_SAWTOOTH, TU_DIST_COUNT
} tu_dist;

const char *tu_dist_name(tu_dist d);
/* Parses a distribution name; returns -1 if unknown. */
int tu_dist_parse(const char *name);
/* Fills keys[0, n) with the distribution, deterministically from seed. */
void tu_generate(tu_dist d, uint32_t *keys, size_t n, uint64_t seed);

/* 1 if out[0, n) is in ascending order and a permutation of in[0, n) (compared with a CPU
 * reference sort of in); otherwise 0, with the first difference described in why. */
int tu_verify(const uint32_t *in, const uint32_t *out, size_t n, char *why, size_t why_size);

/* A host allocator for clqsort_set_memory_allocator: counts the calls and the allocations alive,
 * and makes call number tu_alloc_fail_at (counted from 1; 0: none) fail. One thread at a time. */
extern long tu_alloc_calls, tu_alloc_live, tu_alloc_fail_at;
void *tu_counting_malloc(size_t n);
void tu_counting_free(void *p);

/* Creates a context from the environment (CLQSORT_*); exits with a message if there is none. */
clqsort_context *tu_create_or_die(void);

/* Copies keys to a new device buffer of the context, sorts count keys, reads them back into
 * out. Returns the sort's status. */
clqsort_status tu_sort_host(clqsort_context *ctx, const uint32_t *keys, size_t n, uint32_t *out);

/* ---- keys of every type (raw little-endian bytes) ---- */
extern const char *const tu_type_names[];
size_t tu_width_of(clqsort_key_type t);
/* The documented order as an unsigned code (NaNs all equal, above everything); written apart
 * from the library's kernels on purpose. */
uint64_t tu_code_of(clqsort_key_type t, const unsigned char *key);
/* CPU reference sort by (code, raw bits); reversed for desc. */
void tu_sort_typed(clqsort_key_type t, int desc, void *keys, size_t n);
/* qsort's comparator of 64-bit unsigned words (bit patterns, NaN payloads). */
int tu_cmp_u64(const void *a, const void *b);
/* 1 if out[0, n) is in the order (descending if desc) and holds exactly the bit patterns of
 * in[0, n); else 0 with the reason in why. */
int tu_verify_typed(clqsort_key_type t, int desc, const unsigned char *in, const unsigned char *out, size_t n,
                    char *why, size_t why_size);
/* The same, given ref = in sorted by tu_sort_typed(t, desc): linear time, for checking many
 * sorts of one input. */
int tu_verify_sorted(clqsort_key_type t, int desc, const unsigned char *ref, const unsigned char *out, size_t n,
                     char *why, size_t why_size);
/* 1 if out_keys[0, n) is in the order and a permutation of in[0, n) (tu_verify_typed), and each
 * out_values[i] (value_bytes 4 or 8) is the input position of the key beside it, each position once
 * (input values 0, 1, 2, ...); else 0 with the reason in why. */
int tu_verify_pairs(clqsort_key_type t, int desc, const unsigned char *in, const unsigned char *out_keys,
                    const unsigned char *out_values, size_t value_bytes, size_t n, char *why, size_t why_size);
/* The values half of tu_verify_pairs: each out_values[i] is the input position of the key beside
 * it, each position once (the keys in any order: partial sorts). */
int tu_verify_values(clqsort_key_type t, const unsigned char *in, const unsigned char *out_keys,
                     const unsigned char *out_values, size_t value_bytes, size_t n, char *why, size_t why_size);
/* 1 if every two neighbours with the same key bytes carry increasing values (input positions):
 * the input order of equal keys kept (CLQSORT_STABLE); else 0 with the place in why. */
int tu_verify_stable(clqsort_key_type t, const unsigned char *out_keys, const unsigned char *out_values,
                     size_t value_bytes, size_t n, char *why, size_t why_size);
/* values[i] = i in value_bytes (4 or 8) bytes each */
void tu_index_values(unsigned char *values, size_t value_bytes, size_t n);

/* The type's edge values into out (at most 32); returns how many. */
size_t tu_edges(clqsort_key_type t, unsigned char *out);
/* A distribution mapped to the type, with the edge values sprinkled into uniform input. */
void tu_generate_typed(clqsort_key_type t, tu_dist d, unsigned char *out, size_t n, uint64_t seed);

/* ---- segments (clqsort_sort_segments) ---- */
typedef enum tu_seg_shape {
    TU_SEG_TINY,      /* back to back, 0 .. 6 keys each */
    TU_SEG_FIXED,     /* back to back, `param` keys each (the last one shorter) */
    TU_SEG_FEW,       /* `param` segments of equal length */
    TU_SEG_PARETO,    /* back to back, lengths 1 .. `param` from a heavy-tailed law */
    TU_SEG_GAPS,      /* random lengths up to `param` with random gaps and empty segments (ends given) */
    TU_SEG_AROUND,    /* lengths around every boundary of the tuning (`param`: lq_max; ends given) */
    TU_SEG_EMPTY,     /* every segment empty, all at the end of the keys */
    TU_SEG_SHAPES
} tu_seg_shape;
const char *tu_seg_shape_name(tu_seg_shape s);
/* Makes the segments of a shape over n keys: begin[0, *segments) and, if the shape gives ends,
 * end[0, *segments) with *ends_given 1; else begin[*segments] = n (compressed form). begin and
 * end must hold n + 2 entries each. lq_small and lq_max place TU_SEG_AROUND's lengths. */
void tu_make_segments(tu_seg_shape shape, size_t param, size_t n, size_t lq_small, size_t lq_max, uint64_t seed,
                      uint32_t *begin, uint32_t *end, size_t *segments, int *ends_given);
/* 1 if out (keys of width w, values of value_bytes: 0 for none) holds every segment of in sorted
 * (tu_sort_typed order) with each value the input position of its key within the segment (input
 * values: their positions), and every key and value outside the segments as it was; else 0 with
 * the reason. end NULL: the compressed form. */
int tu_verify_segments(clqsort_key_type t, int desc, const unsigned char *in, const unsigned char *out,
                       const unsigned char *in_values, const unsigned char *out_values, size_t value_bytes, size_t n,
                       const uint32_t *begin, const uint32_t *end, size_t segments, char *why, size_t why_size);
/* The reference for it: every segment of keys sorted in place by tu_sort_typed(t, desc). */
void tu_sort_segments_typed(clqsort_key_type t, int desc, unsigned char *keys, const uint32_t *begin,
                            const uint32_t *end, size_t segments);
/* tu_verify_segments given ref = in with its segments sorted by tu_sort_segments_typed: linear
 * time, for checking many sorts of one input (the bench). */
int tu_verify_segments_ref(clqsort_key_type t, int desc, const unsigned char *in, const unsigned char *ref,
                           const unsigned char *out, const unsigned char *in_values, const unsigned char *out_values,
                           size_t value_bytes, size_t n, const uint32_t *begin, const uint32_t *end, size_t segments,
                           char *why, size_t why_size);

#endif
