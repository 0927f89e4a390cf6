/* clqsort_internal.h - what the library's source files share; not installed. */
#ifndef CLQSORT_INTERNAL_H
#define CLQSORT_INTERNAL_H

#include "clqsort.h"
#include "../cl/clqsort_shared.h"

#include <stdarg.h>

#define CLQ_KEY_TYPES 6
#define CLQ_PROGRAM_SLOTS (CLQ_KEY_TYPES * 2 * 3) /* key type x order x value size (none, 4, 8) */

/* Launch shape of the kernels for one device and key size (see tuning.c). */
typedef struct clq_tuning {
    unsigned gq_wg;       /* gqsort_kernel work-group size */
    unsigned gq_k;        /* keys per work-item in a phase-one block */
    unsigned gq_ways;     /* most buckets a phase-one pass splits a sequence into (power of 2) */
    unsigned gq_count_k;  /* keys per work-item of a count unit (phase one's count pass) */
    unsigned lq_wg;       /* lqsort_kernel work-group size */
    unsigned lq_ways;     /* most buckets a phase-two split makes (power of 2) */
    unsigned lq_max;      /* longest sequence phase two takes (local memory holds 2 x lq_max keys) */
    unsigned lq_small;    /* phase two: one work-item finishes a bucket up to this length */
    unsigned fill_chunk;  /* longest run of equal keys one phase-two record writes */
    unsigned rl_wg;       /* relauncher_kernel work-group size */
    unsigned groups_per_cu; /* host loop: work-groups launched per compute unit */
} clq_tuning;

/* A built program. Kernels whose scalar arguments differ between launches exist once per
 * value, with those arguments set at build time: a launch then only sets buffer arguments. */
typedef struct clq_program {
    cl_program program;
    cl_kernel gqcount[2];    /* [parity]: count list `parity`'s buckets, append children to the other */
    cl_kernel gqsort[2];     /* [parity]: move list `parity`'s keys to their buckets */
    cl_kernel relauncher[3]; /* [parity]: prepare list `parity`; [2]: emit the root into list 0 */
    cl_kernel lqsort;
    clq_tuning tuning;
} clq_program;

struct clqsort_context {
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
    cl_ulong local_mem_size, max_alloc_size;
    int has_int64_atomics;

    clq_program programs[CLQ_PROGRAM_SLOTS];

    /* scratch, grown on demand and kept for later sorts */
    cl_mem scratch, scratch_values, lists, pool, leaves, status, host_keys;
    size_t scratch_bytes, scratch_values_bytes, lists_bytes, pool_bytes, leaves_bytes, host_keys_bytes;
    cl_uint status_host[CLQ_ST_WORDS];

    clqsort_stats stats;      /* counters of the sort in progress */
    clqsort_stats last_stats; /* of the last successful sort (clqsort_get_stats) */
    /* CLQSORT_PROFILE=1: events of the host's launches, summed per kernel after each sort */
    int profile;
    cl_event events[256];
    cl_kernel event_kernels[256]; /* the kernel each event timed */
    unsigned nevents;
    char error[8192];
};

/* Records `status` with a formatted message for clqsort_last_error (on ctx if not NULL, and on
 * the calling thread); returns status. */
clqsort_status clq_fail(clqsort_context *ctx, clqsort_status status, const char *fmt, ...);
/* The same for a failed OpenCL call. */
clqsort_status clq_fail_cl(clqsort_context *ctx, const char *call, cl_int err);
const char *clq_cl_error_name(cl_int err);

/* tuning.c */
/* `elem_bytes`: bytes moved per key, its value included (4, 8, 12 or 16). */
void clq_tuning_for_device(const clqsort_context *ctx, unsigned elem_bytes, clq_tuning *out);
clqsort_status clq_tuning_from_env(clqsort_context *ctx, unsigned elem_bytes, clq_tuning *t);
unsigned clq_key_bytes(clqsort_key_type type);
unsigned clq_code_bits(clqsort_key_type type);

/* program.c: the built program of a key type and order, built on first use. */
clqsort_status clq_get_program(clqsort_context *ctx, clqsort_key_type type, int descending,
                               unsigned value_bytes, clq_program **out);
void clq_release_programs(clqsort_context *ctx);

/* path_host_loop.c / path_device_enqueue.c: run a validated sort whose scratch is ready. */
typedef struct clq_plan {
    clq_program *prog;
    cl_mem keys, values; /* values NULL for keys alone */
    cl_uint count;
    cl_uint seq_cap, pool_cap, leaf_cap;
    unsigned code_bits;
} clq_plan;
clqsort_status clq_run_host_loop(clqsort_context *ctx, const clq_plan *plan);
clqsort_status clq_run_device_enqueue(clqsort_context *ctx, const clq_plan *plan);

/* sort.c, for both paths: writes the status inputs and sets every kernel's buffer arguments;
 * enqueues one launch (counted in stats); reads `words` status words back, waiting. */
clqsort_status clq_start_sort(clqsort_context *ctx, const clq_plan *plan);
cl_int clq_launch(clqsort_context *ctx, cl_kernel k, size_t groups, size_t wg);
cl_int clq_read_status(clqsort_context *ctx, size_t words);

/* Checks the status words read back after a sort; fills ctx->stats. */
clqsort_status clq_finish_status(clqsort_context *ctx, const clq_plan *plan);

#endif
