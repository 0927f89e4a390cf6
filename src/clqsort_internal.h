/* clqsort_internal.h - what the library's source files share; not installed. */
#ifndef CLQSORT_INTERNAL_H
#define CLQSORT_INTERNAL_H

#include "clqsort.h"
#include "../cl/clqsort_shared.h"

#include <stdarg.h>
#include <stdatomic.h>

#define CLQ_KEY_TYPES 6
#define CLQ_PROGRAM_SLOTS (CLQ_KEY_TYPES * 2 * 3 * 2) /* key type x order x value size (none, 4, 8) x wide */
#define CLQ_MESSAGE_BYTES 8192                    /* longest message kept for clqsort_last_error */
#define CLQ_SORT_ATTEMPTS 6 /* a sort the device could not launch before any key moved: tries in all,
                               each after a pause 4 times the last, from 1 ms (341 ms in all) */
#define CLQ_PROFILE_EVENTS 256                    /* launches of one sort timed with CLQSORT_PROFILE */

/* ---- errors (errors.c): the one vocabulary -------------------------------------------------
 * A failure is raised once, where it happens, with clq_fail (a status and a message) or
 * clq_fail_cl (a failed OpenCL call; its status comes from clq_status_of_cl, the table in
 * clqsort.h). Both record the message on the context, if there is one, and on the calling
 * thread, prefixed with the public function in progress, and return the status; callers forward
 * it at once with CLQ_TRY or CLQ_CL, so the first failure of a call is the one returned. Cleanup
 * after a failure records nothing. */
clqsort_status clq_fail(clqsort_context *ctx, clqsort_status status, const char *fmt, ...);
/* "<call>(<what>) failed with <name> (<code>)"; `what` says which object, or is "" */
clqsort_status clq_fail_cl(clqsort_context *ctx, cl_int err, const char *call, const char *what);
/* Appends to the message of the failure just recorded (the device list of NO_DEVICE). */
void clq_append(clqsort_context *ctx, const char *fmt, ...);
clqsort_status clq_status_of_cl(cl_int err);
const char *clq_cl_error_name(cl_int err);
/* One clBuildProgram at a time in the process (src/context.c; why: src/program.c). */
void clq_lock_builds(void);
void clq_unlock_builds(void);
/* Sleeps the calling thread for ms milliseconds (src/context.c). */
void clq_pause_ms(unsigned ms);
/* Raises a clCreate* call that failed: an error code, or no object without one. */
clqsort_status clq_check_created(clqsort_context *ctx, const void *object, cl_int err, const char *call,
                                 const char *what);
/* Releases go on after a failure (there is nothing else to do with the object); the first failed
 * one is kept here, for clqsort_release to report. */
typedef struct clq_release_log {
    cl_int err;
    const char *call;
} clq_release_log;
void clq_released(clq_release_log *log, cl_int err, const char *call);

#define CLQ_TRY(expr)                                                                              \
    do {                                                                                           \
        const clqsort_status clq_try_ = (expr);                                                    \
        if (clq_try_ != CLQSORT_SUCCESS)                                                           \
            return clq_try_;                                                                       \
    } while (0)
/* Runs the OpenCL call `fn args`; if it fails, raises it (naming fn and `what`) and returns. */
#define CLQ_CL(ctx, what, fn, args)                                                                \
    do {                                                                                           \
        const cl_int clq_err_ = fn args;                                                           \
        if (clq_err_ != CL_SUCCESS)                                                                \
            return clq_fail_cl((ctx), clq_err_, #fn, (what));                                      \
    } while (0)

/* Every public function starts with clq_begin (no context yet) or clq_enter and returns through
 * clq_leave. They name the function for the messages, and clq_enter refuses a NULL context and a
 * context that another thread is inside a call on (CLQSORT_ERROR_CONTEXT_BUSY). */
void clq_begin(const char *api);
clqsort_status clq_enter(const clqsort_context *ctx, const char *api);
clqsort_status clq_leave(const clqsort_context *ctx, clqsort_status status);
/* The public function the calling thread is inside of (a string literal). */
const char *clq_current_api(void);

/* ---- host memory (context.c): through clqsort_set_memory_allocator's functions ---- */
void *clq_malloc(size_t bytes);
void *clq_calloc(size_t count, size_t size);
void clq_free(void *p);

/* ---- kernels (program.c): one table ------------------------------------------------------- */
/* Launch shape of the kernels for one device and key size (see tuning.c). */
typedef struct clq_tuning {
    unsigned gq_wg;       /* gqsort_kernel work-group size */
    unsigned gq_k;        /* keys per work-item in a phase-one block */
    unsigned gq_split_values; /* 1: where values are wider than keys, the sort pass of a group of more
                               * than one work-item stages a block's values in parts of its keys'
                               * size, one after the other, so that 8-byte values keep the blocks
                               * of 4-byte ones (clq_gq_value_parts); 0: keys and values together */
    unsigned gq_ways;     /* most buckets a phase-one pass splits a sequence into (power of 2) */
    unsigned gq_count_k;  /* keys per work-item of a count unit (phase one's count pass) */
    unsigned gq_quads;    /* 0: the count pass loads one key a load; above 0, with more than one
                           * work-item a group: 16-byte loads, this many in flight per work-item
                           * (CLQ_GQ_QUADS, gqsort.cl) */
    unsigned gq_count_copies; /* the count pass's local counters in this many copies, work-item i
                               * counting into copy i % copies, so that neighbours in the input
                               * that share a bucket (ramps, clusters) do not queue a warp on one
                               * counter; 1 in a group of one work-item. Where it is above 1, a
                               * block of fewer than gq_ways buckets takes as many more copies as
                               * the cells hold, up to 32 (gqsort.cl, clq_count_copies) */
    unsigned gq_rank_copies;  /* the same for the sort pass's counters, which give each key its
                               * place in the stage: each copy of a bucket takes its own part of
                               * the bucket's run */
    unsigned root_lead;       /* 1: a plain sort's root that takes code slices splits first by the
                               * bits its later splits leave over (CLQ_ROOT_LEAD, relauncher.cl) */
    unsigned float_distance;  /* 1: float roots may take slices of the code's distance as
                               * integer roots do (CLQ_FLOAT_DISTANCE, clqsort_common.h); 0: of the
                               * value only, the phase-one kernels without that path */
    unsigned double_distance; /* the same for double roots */
    unsigned lq_wg;       /* lqsort_kernel work-group size */
    unsigned lq_ways;     /* most buckets a phase-two split makes (power of 2) */
    unsigned lq_max;      /* longest sequence phase two takes (local memory holds 2 x lq_max keys) */
    unsigned lq_small;    /* phase two: one work-item finishes a bucket up to this length */
    unsigned fill_chunk;  /* longest run of equal keys one phase-two record writes */
    unsigned rl_wg;       /* relauncher_kernel work-group size */
    unsigned groups_per_cu; /* host loop: work-groups launched per compute unit */
    unsigned extra_levels;  /* phase-one levels beyond the fewest the depth bound allows, so that
                             * early levels may split by length (clq_levels, relauncher.cl); only
                             * for sorts whose first split is by length narrower than gq_ways */
    unsigned select_slack;  /* a selecting partial sort (cl/select.cl) sorts at most 2 k + this
                             * many candidates, and selects only where count / 4 exceeds that */
    unsigned select_groups_per_cu; /* its counting groups per compute unit: each adds its whole
                                    * histogram to the global one (CLQ_SEL_BINS atomics) */
    unsigned small_tiles; /* host loop: sorts of at most this many tiles of lq_max keys take the
                           * tile path (cl/tiles.cl); 0: none */
    unsigned spread;      /* host loop, blocking sorts of keys or pairs on the tile path with more
                           * than one tile: one launch of spreadsort_kernel (cl/tiles.cl) with a
                           * group per this many keys, each sorting the keys between two sampled
                           * splitters; 0: the tile sort and the merge */
    unsigned seg_net;     /* segmented sorts (keys alone, or 4-byte keys with values): segments of
                           * CLQ_NET_MIN + 1 .. CLQ_NET_MAX keys sorted by cl/segnet.cl's network,
                           * its work-items exchanging keys through local memory (1) or by PTX
                           * shuffles (2, NVIDIA); 0: by phase two's ranking, like shorter ones */
    unsigned wide;        /* a sort whose buckets after two phase-one levels would hold at least
                           * wide / 16 of lq_max keys on average takes a program of 2 x gq_ways,
                           * and one of 4-byte keys whose buckets after one level would, but not
                           * after one of 2 x gq_ways (clq_tuning_of_sort); 0: never */
    unsigned one_level;   /* CPUs: a plain sort that one split into gq_ways buckets leaves too long
                           * for phase two (count > gq_ways x lq_max / 2) but one into this many
                           * does not takes the wide program instead: this many ways (a power of
                           * two) and blocks of 8 keys a way, one level where gq_ways took two or
                           * more (clq_tuning_of_sort); 0: the wide program is wide's */
    unsigned level_margin; /* host loop, blocking sorts of keys or pairs: the levels enqueued first
                            * are those uniform keys need and this many more; where phase one is
                            * unfinished after them, the host enqueues those its sequences need,
                            * this many and one more (another round trip each; sort.c,
                            * next_round_levels). 64: every level at once (clq_first_levels) */
    unsigned value_bytes;  /* not a choice: the values' bytes per key (0: keys alone), which the
                            * fit to local memory needs (set by clq_tuning_for_device) */
} clq_tuning;

/* The kernel objects of a program, in the order of clq_kernel_table. Kernels whose scalar
 * arguments differ between launches exist once per value, with those arguments set at build
 * time: a launch then only sets buffer arguments. */
enum { CLQ_KERNELS = 12, CLQ_SORT_PHASES = 8 };
typedef struct clq_kernel_desc {
    const char *name;
    int phase; /* 0 count pass, 1 sort pass, 2 relauncher, 3 phase two, 4 segment check, 5 tile
                * merge, 6 clear, 7 segment emission (with the network and the relauncher): the
                * profile's rows */
    int work_lists; /* takes the work lists and the bucket pool among its buffers */
    int windows;    /* takes the segment windows after the status words */
    int nscalars;
    cl_uint scalars[2]; /* values of the arguments after the buffers (parity) */
} clq_kernel_desc;
extern const clq_kernel_desc clq_kernel_table[CLQ_KERNELS];
enum {
    CLQ_SELECT_SAMPLE,
    CLQ_SELECT_HIST,
    CLQ_SELECT_GATHER,
    CLQ_SELECT_SORT,
    CLQ_SELECT_STASH,
    CLQ_SELECT_PLACE,
    CLQ_SELECT_BUCKETS,
    CLQ_SELECT_KERNELS
};
extern const char *const clq_select_names[CLQ_SELECT_KERNELS];
enum { CLQ_PHASES = CLQ_SORT_PHASES + CLQ_SELECT_KERNELS }; /* profile rows: the selection's kernels last */

/* The embedded sources of the two programs a clq_program holds (cmake/EmbedKernels.cmake). */
typedef struct clq_source {
    const char *text;
    size_t length;
} clq_source;

typedef struct clq_program {
    cl_program program; /* the sort's kernels, which every sort of this kind needs */
    union {
        struct {
            cl_kernel gqcount[2];    /* [parity]: count list `parity`'s buckets, append children to the other */
            cl_kernel gqsort[2];     /* [parity]: move list `parity`'s keys to their buckets */
            cl_kernel relauncher;    /* emit the root into list 0 and prepare it */
            cl_kernel lqsort;
            cl_kernel segcheck;      /* segmented sorts: check the offsets, emit the roots, gather short segments */
            cl_kernel segemit;       /* segmented sorts: emit the windows, sort by the network, prepare list 0 */
            cl_kernel tilesort;      /* the tile path: sort each tile in local memory */
            cl_kernel tilemerge;     /* the tile path: move each key to its place among all tiles */
            cl_kernel clear;         /* clear the bucket pool and the segment windows */
            cl_kernel spreadsort;    /* the spread path: the tile path's sorts in one launch */
        };
        cl_kernel all[CLQ_KERNELS]; /* the same, in the order of clq_kernel_table */
    };
    /* 32-bit keys only: pack keys into (code, position) and back (cl/stable.cl); arguments of
     * their own (keys, packed keys, offset, count), set for each sort */
    cl_kernel stable_pack, stable_unpack;
    /* 32-bit keys only: a partial sort's selection, a program of its own (cl/select.cl) built at
     * the first partial sort that selects (clq_get_select): a third of the source, which no other
     * sort needs. Its kernels in the order of clq_select_names; the same arguments for all, set
     * for each sort. */
    cl_program select_program;
    cl_kernel select[CLQ_SELECT_KERNELS];
    clq_tuning tuning;
    clq_tuning select_tuning; /* tuning, with gq_wg lowered where a selection kernel allows fewer */
    clqsort_key_type type;    /* what both programs are built for */
    int descending;
    unsigned value_bytes;
} clq_program;

/* A sort enqueued on the queue and not yet collected (pending.c): its status words on the
 * host, which the non-blocking write at its start reads and the non-blocking read at its end
 * fills, so they stay put until the read's event has completed. They lie in the context's
 * mapped host buffer (ctx->host_words), CLQ_ST_WORDS each. */
typedef struct clq_pending {
    cl_uint *in, *out;
    cl_event done;         /* the read's event */
    const char *api;       /* the public call that enqueued the sort */
    unsigned serial;       /* its position among the context's enqueued sorts, from 1 */
    cl_uint seq_cap, leaf_cap;
    int selecting;         /* a selecting partial sort: status[CLQ_ST_COUNT] is its candidates */
    int may_stop_short;    /* ... whose levels may end before its selection (CLQ_ST_SEL_SHORT) */
    int levels_short;      /* a host-loop round that enqueued fewer phase-one levels than the
                              sort may need: CLQ_ST_CUR_SEQS left over is not an error */
    int may_spill;         /* a round on the spread path, which the tile path follows where a
                              group's keys did not fit (CLQ_ST_SPILL) */
    clqsort_stats stats;   /* the host's counts; the device's are added when collected */
} clq_pending;

struct clqsort_context {
    atomic_flag busy; /* set while a public call runs on the context (clq_enter) */

    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_command_queue device_queue; /* device-enqueue path: the on-device default queue */

    clqsort_path path;
    int device_enqueue_supported;
    char *platform_name, *platform_vendor, *device_name, *device_version, *device_c_version;
    cl_device_type device_type;
    cl_uint compute_units;
    size_t max_work_group_size;
    cl_ulong local_mem_size, max_alloc_size, global_mem_size;
    int has_int64_atomics;
    int has_ptx_shuffles; /* NVIDIA, compute capability 7 or later: shfl.sync in inline PTX */

    clq_program programs[CLQ_PROGRAM_SLOTS];
    char *cache_dir; /* CLQSORT_CACHE_DIR, or NULL: where built programs are kept (cache.c) */
    unsigned programs_built, programs_loaded, programs_stored; /* clqsort_info */

    /* scratch, grown on demand and kept for later sorts */
    cl_mem scratch, scratch_values, lists, pool, leaves, status, windows, host_keys, host_values, packed, select,
        host_begin, host_end;
    int pool_clear; /* the bucket pool is all zero: the last sort on it succeeded (sort.c) */
    int windows_clear; /* the segment windows are all empty: the last segmented sort succeeded */
    size_t scratch_bytes, scratch_values_bytes, lists_bytes, pool_bytes, leaves_bytes, status_bytes, windows_bytes,
        host_keys_bytes, host_values_bytes, packed_bytes, select_bytes, host_begin_bytes, host_end_bytes;

    /* sorts enqueued and not yet collected: a ring from pending_first, oldest first; slots do not
     * move while in use, as non-blocking commands read and write them (pending.c) */
    clq_pending pending[CLQSORT_MAX_PENDING];
    cl_mem words;         /* host memory the device reaches directly, mapped at creation: */
    cl_uint *host_words;  /* 2 * CLQ_ST_WORDS per slot, in and out (pending.c) */
    unsigned pending_first, npending, serial;
    clqsort_status deferred; /* the first failure collected since the last clqsort_finish */
    char deferred_error[CLQ_MESSAGE_BYTES];

    clqsort_stats stats;      /* counters of the sort in progress */
    clqsort_stats last_stats; /* of the last successful sort (clqsort_get_stats) */
    /* CLQSORT_PROFILE: events of the host's launches, printed after each sort per kernel (1) or
     * per kernel and per launch (2); 0: off */
    int profile;
    cl_event events[CLQ_PROFILE_EVENTS];
    int event_phase[CLQ_PROFILE_EVENTS]; /* the clq_kernel_desc.phase each event timed */
    int enqueuing; /* inside clqsort_enqueue_*: no profile events (they complete later) */
    unsigned nevents;
    unsigned fail_device_enqueue; /* CLQSORT_FAIL_DEVICE_ENQUEUE=N[*[K]], a test hook: status[CLQ_ST_FAIL_ENQUEUE] */
    unsigned fail_attempts;       /* in how many of a sort's first attempts: 1 (N), K (N*K), all (N*) */
    char error[CLQ_MESSAGE_BYTES];
};

/* tuning.c */
/* `elem_bytes`: bytes moved per key, its value included (4, 8, 12 or 16); `value_bytes`: the
 * value's part of them. */
void clq_tuning_for_device(const clqsort_context *ctx, unsigned elem_bytes, unsigned value_bytes, clq_tuning *out);
clqsort_status clq_tuning_from_env(clqsort_context *ctx, unsigned elem_bytes, clq_tuning *t);
/* The tuning sorts of `type` with values of `value_bytes` run with: the table's, then CLQSORT_TUNING. */
clqsort_status clq_tuning_of(clqsort_context *ctx, clqsort_key_type type, unsigned value_bytes, clq_tuning *t);
/* The wide program's tuning: twice the ways, or with one_level that many ways and blocks of 8
 * keys a way. 1 where the device's local memory holds them with every other field of *t as it
 * was, and *t is changed; else 0, and *t is not. */
int clq_tuning_widen(const clqsort_context *ctx, unsigned elem_bytes, clq_tuning *t);
/* The tuning of a sort of `count` keys, and whether it takes the wide program (*wide): only a
 * plain sort (`plain`: one sequence, neither stable nor partial), of keys alone or pairs, the
 * cases measured (docs/PERFORMANCE.md, "Twice the ways for the largest sorts" and "Wide
 * programs for every key and value size", "A second level saved for 4-byte keys"). */
clqsort_status clq_tuning_of_sort(clqsort_context *ctx, clqsort_key_type type, unsigned value_bytes, size_t count,
                                  int plain, clq_tuning *t, int *wide);
unsigned clq_key_bytes(clqsort_key_type type);
unsigned clq_code_bits(clqsort_key_type type);
/* The local memory the tuning assumes a kernel of clq_kernel_desc.phase `phase` takes (bytes,
 * at least what the kernel declares: tests/test_kernel_facts.c checks it against each built
 * kernel's CL_KERNEL_LOCAL_MEM_SIZE); fit_to_device keeps it within the device's. */
cl_ulong clq_local_bytes(const clq_tuning *t, unsigned elem_bytes, int phase);
/* The tuning's work-group size for a kernel of clq_kernel_desc.phase `phase` (the size it is
 * built for and launched with; program.c may lower it to what the built kernel allows). */
unsigned *clq_work_group_of(clq_tuning *t, int phase);
/* The largest power of two at most v (1 for v < 2), at most 2^30. */
unsigned clq_floor_pow2(size_t v);
/* The parts the sort pass stages a block's values in (CLQ_GQ_VALUE_PARTS, cl/gqsort.cl): value
 * bytes / key bytes with gq_split_values, else 1. */
unsigned clq_gq_value_parts(const clq_tuning *t, unsigned elem_bytes);
cl_ulong clq_select_local_bytes(const clq_tuning *t);
/* The local memory a work-group may take on the context's device (32 KiB if it does not say). */
cl_ulong clq_device_local_bytes(const clqsort_context *ctx);
/* Phase-one levels a sort of `count` keys of `code_bits`-bit codes finishes in: the host loop
 * enqueues this many, and the kernels choose their splits so that none needs more
 * (status[CLQ_ST_MAX_LEVELS]). */
unsigned clq_levels(const clq_tuning *t, unsigned code_bits, int floats, size_t count); /* floats: a float or
                                                                                          double sort that may take root slices */
/* The phase-one levels uniform keys need, plus t->level_margin, at most `levels` */
unsigned clq_first_levels(const clq_tuning *t, size_t count, unsigned levels);

/* program.c: the built program of a key type and order, built on first use. */
clqsort_status clq_get_program(clqsort_context *ctx, clqsort_key_type type, int descending,
                               unsigned value_bytes, int wide, clq_program **out);
/* ... and its selection's program and kernels (32-bit keys), built on first use. */
clqsort_status clq_get_select(clqsort_context *ctx, clq_program *p);
void clq_release_programs(clqsort_context *ctx, clq_release_log *log);

/* cache.c: the program of `source` built with `options`, from the cache folder and built for the
 * device, or NULL (no folder, or a miss: nothing there, a damaged file, a refused binary); never a
 * failure. */
cl_program clq_cache_load(clqsort_context *ctx, const clq_source *source, const char *options);
/* Keeps the binary of `program`, built from `source` with `options`, in the cache folder; best
 * effort. */
void clq_cache_store(clqsort_context *ctx, cl_program program, const clq_source *source, const char *options);

/* path_host_loop.c / path_device_enqueue.c: run a validated sort whose scratch is ready and
 * whose kernel arguments are set (clq_prepare_sort). */
typedef struct clq_plan {
    clq_program *prog;
    cl_mem keys, values; /* values NULL for keys alone */
    cl_ulong key_offset, value_offset; /* the first key's and value's element in its buffer */
    cl_mem seg_begin, seg_end;         /* segmented sorts; seg_end NULL: the compressed form */
    cl_uint segments;                  /* 0: one sequence of count keys */
    cl_uint windows;                   /* segmented: windows of CLQ_LQ_MAX / 2 keys (segcheck) */
    clq_pending *slot;                 /* the sort's status words */
    const clq_program *stable;         /* CLQSORT_STABLE: the key type's program, which packs the
                                          caller's keys (stable_keys, stable_offset) into `keys`
                                          before the kernels and unpacks them after */
    cl_mem stable_keys;
    cl_ulong stable_offset;
    const clq_program *select;         /* a selecting partial sort: the key type's program, whose
                                          kernels pick candidates from the caller's keys into
                                          `keys` (64-bit composites) and put the answer in place */
    cl_mem select_keys, select_values;
    cl_ulong select_key_offset, select_value_offset;
    cl_uint select_count;              /* the caller's keys; `count` is the candidates' capacity */
    cl_uint select_value_bytes, select_pbits;
    unsigned select_from, select_to;   /* the selection's levels enqueued in this round (sort.c) */
    unsigned attempt;                  /* 0, then 1.. for each repeat of a sort that could be
                                          repeated (clq_repeatable) */
    unsigned select_first_levels;      /* those a blocking call's first round enqueues */
    cl_uint count;
    cl_uint topk;                      /* the first topk positions come out sorted (count: all) */
    cl_uint seq_cap, pool_cap, leaf_cap;
    unsigned code_bits;
    unsigned levels; /* clq_levels: phase-one levels allowed (and enqueued in all, host loop) */
    unsigned value_levels; /* of those, the one more for value slices after the root (0 or 1) */
    unsigned level_from, level_to; /* host loop: the levels this round enqueues (0..levels at
                                      most; a blocking sort starts with clq_first_levels) */
    cl_uint tiles;   /* the tile path's tiles of lq_max keys (path_host_loop.c); 0: phase one */
    cl_uint spread;  /* the spread path's groups this round (path_host_loop.c); 0: not taken */
    int records;     /* runs the relauncher (phase one, phase two): needs the work lists, bucket
                      * pool and phase-two list; the tile path and one-group selections do not */
    int words_by_launch;  /* this round's status words come with its first launch (sort.c) */
    cl_uint nwait;        /* the caller's events: that launch's, else the words' write's */
    const cl_event *wait;
} clq_plan;
clqsort_status clq_run_host_loop(clqsort_context *ctx, const clq_plan *plan);
clqsort_status clq_run_device_enqueue(clqsort_context *ctx, const clq_plan *plan);

/* sort.c, for both paths: enqueues kernel k of the program (counted in stats). Raises its own
 * failure. */
clqsort_status clq_launch(clqsort_context *ctx, const clq_program *p, cl_kernel k, size_t groups, size_t wg);
/* The relauncher's launch, one group, with the status words where it brings them (sort.c). */
clqsort_status clq_launch_relauncher(clqsort_context *ctx, const clq_plan *plan);
/* The spread path's copy of the caller's keys and values to scratch, which its groups read (sort.c). */
clqsort_status clq_spread_in(clqsort_context *ctx, const clq_plan *plan);

/* ---- pending.c: every sort's status words, and sorts that finish after the call ----------
 * A sort takes a slot (clq_take_slot; with CLQSORT_MAX_PENDING in flight the oldest is collected
 * first), writes its inputs from it waiting for the caller's events (clq_write_status), and, after
 * its kernels, reads its outputs into it (clq_read_status: non-blocking, with an event). A
 * blocking call then collects every slot (clq_collect_all), an enqueue call leaves its slot for
 * clqsort_finish. A sort that fails to enqueue gives its slot back (clq_drop_slot) after
 * waiting for what it enqueued. */
clqsort_status clq_take_slot(clqsort_context *ctx, const char *api, clq_pending **slot);
clqsort_status clq_write_status(clqsort_context *ctx, clq_pending *slot, cl_uint nwait, const cl_event *wait);
clqsort_status clq_read_status(clqsort_context *ctx, clq_pending *slot);
void clq_drop_slot(clqsort_context *ctx, clq_pending *slot);
clqsort_status clq_map_words(clqsort_context *ctx);
void clq_unmap_words(clqsort_context *ctx, clq_release_log *log);
/* Collects every slot, oldest first: waits for each, checks its words, and keeps the first
 * failure in ctx->deferred. Returns the newest slot's own status (raised as this call's failure)
 * if `newest_is_mine`, else CLQSORT_SUCCESS. */
clqsort_status clq_collect_all(clqsort_context *ctx, int newest_is_mine);
/* Whether a collected slot's selection (CLQ_ST_SEL_SHORT) or phase one (sequences left) stopped
 * short, or its spread path spilled (CLQ_ST_SPILL), where its call may go on in another round
 * (sort.c); its counters are then in ctx->stats, not the last sort's. Its words stay readable until the next slot is taken. */
int clq_stopped_short(const clq_pending *slot);
/* whether a sort that failed stopped before moving a key, and can be repeated whole */
int clq_repeatable(const clq_pending *slot);
/* clqsort_release: waits for the slots and releases their events, reporting nothing. */
void clq_abandon_slots(clqsort_context *ctx);

#endif
