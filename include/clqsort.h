/*
 * clqsort.h - GPU-Quicksort for OpenCL: the whole public interface.
 *
 * clqsort sorts keys that already live in an OpenCL buffer, on the device that owns the buffer.
 * The algorithm is GPU-Quicksort (Cederman and Tsigas) in the structure of Intel's OpenCL port:
 * phase one partitions long sequences with many work-groups each, phase two sorts short ones
 * with one work-group each in local memory. Two execution paths run the same kernels:
 *   - host loop (OpenCL 1.2): the host launches the phase-one passes and reads a few words back;
 *   - device-side enqueue (OpenCL 2.0): the device launches every pass after the first.
 *
 * Typical use:
 *
 *     clqsort_context *ctx;
 *     if (clqsort_create(&ctx, NULL) != CLQSORT_SUCCESS) { puts(clqsort_last_error(NULL)); ... }
 *     cl_mem buf = clCreateBuffer(clqsort_cl_context(ctx), CL_MEM_READ_WRITE, n * 4, NULL, &err);
 *     ... write n uint32 keys to buf ...
 *     if (clqsort_sort(ctx, buf, n, CLQSORT_KEY_UINT32, 0) != CLQSORT_SUCCESS)
 *         puts(clqsort_last_error(ctx));
 *     clqsort_release(ctx);
 *
 * Threads: distinct contexts may be used from distinct threads at once, and contexts may be
 * created on many threads at once (the library serialises its own queries of the platforms and
 * devices, which some runtimes, pocl among them, answer wrongly when asked from two threads at
 * once; a program that queries devices itself while another thread creates a context can still
 * meet that). A context is used by one thread at a time: a call on a context that another thread
 * is inside of is refused with CLQSORT_ERROR_CONTEXT_BUSY before it touches anything (nothing
 * waits; see that status). clqsort_last_error(NULL), clqsort_status_string() and the
 * clqsort_cl_*() accessors are safe from any thread.
 *
 * Errors: every call returns a clqsort_status, and every failure leaves a message that names the
 * public function, the cause and, for a failed OpenCL call, the call and its error code, in
 * clqsort_last_error(). An OpenCL error code maps to a status by one table, wherever it occurs:
 *     CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_RESOURCES, CL_MEM_OBJECT_ALLOCATION_FAILURE,
 *     CL_INVALID_BUFFER_SIZE                              -> CLQSORT_ERROR_OUT_OF_MEMORY
 *     CL_BUILD_PROGRAM_FAILURE, CL_COMPILER_NOT_AVAILABLE, CL_LINKER_NOT_AVAILABLE,
 *     CL_INVALID_BUILD_OPTIONS, CL_INVALID_PROGRAM_EXECUTABLE -> CLQSORT_ERROR_BUILD
 *     CL_INVALID_COMMAND_QUEUE                            -> CLQSORT_ERROR_INVALID_QUEUE
 *     CL_INVALID_MEM_OBJECT                               -> CLQSORT_ERROR_INVALID_BUFFER
 *     CL_DEVICE_NOT_FOUND, CL_DEVICE_NOT_AVAILABLE,
 *     CL_PLATFORM_NOT_FOUND_KHR                           -> CLQSORT_ERROR_NO_DEVICE
 *     any other code                                      -> CLQSORT_ERROR_OPENCL
 * A failed host allocation is CLQSORT_ERROR_OUT_OF_MEMORY too. When a call fails, nothing it
 * created is left behind (a failed clqsort_create leaves no context), nothing it enqueued is
 * still running, and the context it was given still works: the next call can succeed.
 *
 * Ownership: the library owns its context object, programs and scratch buffers, and releases
 * them in clqsort_release(). It never releases a buffer, queue or context the program passed in
 * (it retains a passed-in queue and its context while it uses them).
 */
#ifndef CLQSORT_H
#define CLQSORT_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CLQSORT_VERSION_MAJOR 0
#define CLQSORT_VERSION_MINOR 1
#define CLQSORT_VERSION_PATCH 0
#define CLQSORT_VERSION_STRING "0.1.0"

/* Largest number of keys one sort accepts: positions are 32-bit on the device. */
#define CLQSORT_MAX_COUNT ((size_t)0xffffffffu)

/* Every call returns one of these. Each failure also leaves a message naming the cause (the
 * OpenCL error code, the build log, the devices that exist...) in clqsort_last_error(). */
typedef enum clqsort_status {
    CLQSORT_SUCCESS = 0,
    CLQSORT_ERROR_INVALID_ARGUMENT = -1,   /* a NULL out-pointer, an unknown flag or enum value */
    CLQSORT_ERROR_NULL_CONTEXT = -2,       /* the clqsort_context is NULL */
    CLQSORT_ERROR_NULL_BUFFER = -3,        /* the cl_mem is NULL */
    CLQSORT_ERROR_INVALID_BUFFER = -4,     /* the cl_mem is not a valid buffer object */
    CLQSORT_ERROR_WRONG_CONTEXT = -5,      /* the buffer belongs to another OpenCL context */
    CLQSORT_ERROR_BUFFER_ACCESS = -6,      /* the buffer is read-only or write-only for kernels */
    CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER = -7, /* offset + count elements do not fit in the buffer */
    CLQSORT_ERROR_COUNT_TOO_LARGE = -8,    /* count > CLQSORT_MAX_COUNT */
    CLQSORT_ERROR_UNSUPPORTED_TYPE = -9,   /* the key type is not supported (yet, or by the device) */
    CLQSORT_ERROR_INVALID_OPTION = -10,    /* an option or CLQSORT_* environment variable is invalid */
    CLQSORT_ERROR_NO_DEVICE = -11,         /* no OpenCL device matches the selection */
    CLQSORT_ERROR_PATH_UNSUPPORTED = -12,  /* the requested execution path is not available */
    CLQSORT_ERROR_INVALID_QUEUE = -13,     /* the queue is invalid or out-of-order */
    CLQSORT_ERROR_BUILD = -14,             /* the kernels did not build (message holds the log) */
    CLQSORT_ERROR_OUT_OF_MEMORY = -15,     /* host or device memory for scratch could not be had */
    CLQSORT_ERROR_OPENCL = -16,            /* an OpenCL call failed (message names call and code) */
    CLQSORT_ERROR_INTERNAL = -17,          /* a kernel reported a broken invariant: a bug */
    CLQSORT_ERROR_OVERLAPPING_BUFFERS = -18, /* keys and values share memory, or one buffer is a
                                                sub-buffer of the other */
    CLQSORT_ERROR_CONTEXT_BUSY = -19,      /* another thread is inside a call on this context: the
                                              call did nothing (its message is only in
                                              clqsort_last_error(NULL): the context's own message
                                              belongs to the call in progress) */
    CLQSORT_ERROR_INVALID_SEGMENTS = -20   /* segment offsets out of range, decreasing or overlapping
                                              (found by the device: see clqsort_sort_segments) */
} clqsort_status;

/* Key types. Keys are compared by value; see README.md for the order of floating-point keys. */
typedef enum clqsort_key_type {
    CLQSORT_KEY_UINT32 = 0,
    CLQSORT_KEY_INT32 = 1,
    CLQSORT_KEY_FLOAT = 2,
    CLQSORT_KEY_UINT64 = 3,
    CLQSORT_KEY_INT64 = 4,
    CLQSORT_KEY_DOUBLE = 5
} clqsort_key_type;

/* Flags of the sort calls. 0 sorts in ascending order, not stably. */
#define CLQSORT_DESCENDING 1u
/* Keys that compare equal (the same bit pattern) keep their input order, and so do their values:
 * for every call on device buffers and host arrays, with segments too. 32-bit key types only
 * (64-bit keys give CLQSORT_ERROR_UNSUPPORTED_TYPE), on devices with 64-bit atomics (else the
 * same status): each key is sorted as the 64-bit key (code << 32 | position), which takes 8 bytes
 * of device memory more per key and runs the sort of 64-bit keys. */
#define CLQSORT_STABLE 2u

typedef enum clqsort_device_type {
    CLQSORT_DEVICE_DEFAULT = 0, /* CLQSORT_DEVICE if set, else the first GPU, else the first device */
    CLQSORT_DEVICE_CPU = 1,
    CLQSORT_DEVICE_GPU = 2,
    CLQSORT_DEVICE_ACCELERATOR = 3,
    CLQSORT_DEVICE_ALL = 4      /* any type */
} clqsort_device_type;

typedef enum clqsort_path {
    CLQSORT_PATH_DEFAULT = 0,        /* CLQSORT_PATH if set, else CLQSORT_PATH_AUTO */
    CLQSORT_PATH_AUTO = 1,           /* device-side enqueue where the device has it, else host loop */
    CLQSORT_PATH_HOST_LOOP = 2,      /* OpenCL 1.2: the host launches every pass */
    CLQSORT_PATH_DEVICE_ENQUEUE = 3  /* OpenCL 2.0: the device launches the passes after the first */
} clqsort_path;

/* Device selection and behaviour. Initialise with clqsort_options_init(); every field left at
 * its initial value falls back to the environment variable named beside it, then to the default.
 *   CLQSORT_DEVICE        cpu | gpu | accelerator | all
 *   CLQSORT_VENDOR        case-insensitive substring of the platform's vendor or name
 *                         (intel, amd, nvidia, pocl, ...)
 *   CLQSORT_DEVICE_INDEX  index among the devices that match type and vendor (default 0)
 *   CLQSORT_PATH          auto | host-loop | device-enqueue
 * and, for every context (clqsort_create_with_queue's too), read once at creation:
 *   CLQSORT_CACHE_DIR     a folder where built programs are kept for later processes on the same
 *                         device and driver (created if its parent exists). Unset or empty: none.
 *                         The cache never fails a call: a file it cannot read or write, or a
 *                         binary the runtime refuses, is a miss, and the program is built from
 *                         source (README.md, "Program cache") */
typedef struct clqsort_options {
    clqsort_device_type device_type; /* initial: CLQSORT_DEVICE_DEFAULT */
    const char *vendor;              /* initial: NULL; copied, need not outlive the call */
    int device_index;                /* initial: -1 */
    clqsort_path path;               /* initial: CLQSORT_PATH_DEFAULT */
} clqsort_options;

/* Opaque: the device, its queue, the built programs and the scratch memory of the sorts. */
typedef struct clqsort_context clqsort_context;

/* What a context runs on, for display. Strings are owned by the context and stay valid until
 * clqsort_release(). */
typedef struct clqsort_info {
    const char *platform_name;
    const char *platform_vendor;
    const char *device_name;
    const char *device_version;     /* CL_DEVICE_VERSION */
    const char *device_c_version;   /* CL_DEVICE_OPENCL_C_VERSION */
    cl_device_type device_type;
    clqsort_path path;              /* the path this context runs: HOST_LOOP or DEVICE_ENQUEUE */
    int device_enqueue_supported;   /* 1 if the device can run the device-enqueue path */
    unsigned compute_units;
    size_t max_work_group_size;
    cl_ulong local_mem_size;
    /* tuning in force for 4-byte keys: work-group sizes, keys per work-item of a phase-one block,
     * most buckets per split in each phase, longest phase-two sequence, longest bucket that one
     * work-item finishes in phase two */
    unsigned gqsort_work_group, gqsort_keys_per_item, gqsort_ways, lqsort_work_group, lqsort_ways, lqsort_max,
        lqsort_small;
    /* 1: the root of a float sort may take slices of the distance from its least or greatest
     * key, as integer roots do (README.md, "root slices"); 0: of the value only (NVIDIA's GPUs,
     * where those kernels cost uniform float keys 2-3 %) */
    unsigned float_root_distance;
    /* the same for double sorts (1 on NVIDIA's GPUs too: there they cost uniform doubles about
     * 2 % and take power-law doubles at 2^24 from 1.6x the time of uniform ones to 1.04x) */
    unsigned double_root_distance;
    /* the program cache (README.md, "Program cache"): CLQSORT_CACHE_DIR as the context read it
     * at creation, or NULL where it was unset or empty; programs this context built from source,
     * loaded from the cache, and stored there (each built program is stored where the folder
     * can be written) */
    const char *cache_dir;
    unsigned programs_built, programs_loaded, programs_stored;
} clqsort_info;

/* Counters of the last successful sort on a context (clqsort_sort, _pairs or _host). */
typedef struct clqsort_stats {
    unsigned phase_one_levels;  /* phase-one passes that had work */
    unsigned kernel_launches;   /* kernels run, by the host and the device together */
    unsigned host_round_trips;  /* times the host waited for the device to read status back: 1,
                                   or more where a host-loop sort needed more phase-one levels
                                   than uniform keys do (README.md, "Levels enqueued"), or 2
                                   where a selection needed more than its first round
                                   (clqsort_partial_sort) */
    unsigned phase_two_records; /* short sequences and runs of equal keys finished in phase two
                                   (the tile path, README.md: its tiles); 0 for a partial sort
                                   whose selection sorted its candidates in their buckets */
    unsigned selected_keys;     /* a partial sort that selected candidates first: how many it
                                   sorted (0: it partitioned all of the keys) */
    unsigned root_slices;       /* how the first phase-one level split the keys (README.md,
                                   "Pivots and depth bound"): 0 equal slices of the code range;
                                   1 equal slices of the values (float, double); 2 or 3 equal
                                   slices of the log of the distance from the least or greatest
                                   sampled key (every type: integers, and floats within a few
                                   octaves) */
    unsigned phase_one_ways;    /* most buckets a phase-one pass of the sort could split a
                                   sequence into: the device's usual number, or twice it for the
                                   largest plain sorts, keys alone or pairs (README.md, "The
                                   largest sorts: wide programs") */
    unsigned repeats;           /* device-enqueue path: times a blocking call sorted again, whole,
                                   because the device could not launch its next kernel before
                                   any key had moved (clqsort_sort); 0 on every other path */
    unsigned spread_groups;     /* host loop: the groups of the spread path's one launch, where a
                                   short sort took it (README.md, "The spread path"); 0 where not */
    unsigned spilled;           /* 1 where a group of the spread path found more keys than its local
                                   memory holds, and the tile path sorted them again (one more
                                   host_round_trips) */
} clqsort_stats;

/* Sets every field of *options to its initial value (see clqsort_options). */
void clqsort_options_init(clqsort_options *options);

/* Creates a context on a device chosen by `options` (may be NULL: environment, then default),
 * with its own OpenCL context and in-order queue. Kernels are built on first use of each key
 * type, order and value size. On success *ctx is set; on failure *ctx is NULL and
 * clqsort_last_error(NULL) says why (for CLQSORT_ERROR_NO_DEVICE, it lists the platforms and
 * devices that exist). */
clqsort_status clqsort_create(clqsort_context **ctx, const clqsort_options *options);

/* Creates a context that enqueues on the program's own in-order `queue` (and its context and
 * device). Only `options->path` is used (NULL: CLQSORT_PATH, then auto; the variables that
 * select a device are not read). The queue and its context are retained until
 * clqsort_release(). An out-of-order queue is refused with CLQSORT_ERROR_INVALID_QUEUE.
 * Creation maps a small buffer of host memory through the queue (the sorts' status words), so it
 * returns once the commands already in the queue have completed; clqsort_release() likewise
 * waits for the queue. */
clqsort_status clqsort_create_with_queue(clqsort_context **ctx, cl_command_queue queue,
                                         const clqsort_options *options);

/* Releases everything the context owns; NULL is accepted and ignored. It first waits for the
 * sorts enqueued by clqsort_enqueue_* (their failures are not reported), then for its queue
 * (clFinish after unmapping the status words' host buffer). A context that another thread is
 * inside a call on is left alive (releasing it would pull memory from under that call) and
 * clqsort_last_error(NULL) says so; releasing a context that another thread uses afterwards is
 * the program's error. If the runtime fails to release an object, the rest are still released and
 * clqsort_last_error(NULL) names the call. */
void clqsort_release(clqsort_context *ctx);

/* Sorts the first `count` keys of type `type` in `keys` (a buffer of the context's OpenCL
 * context, created readable and writable by kernels), in place as seen by the caller, in
 * ascending order or, with CLQSORT_DESCENDING in `flags`, descending.
 *
 * Work already enqueued on the context's queue runs first; the call returns once the sorted
 * keys are in `keys` (it waits for the device). Scratch memory of `count` keys and some records
 * is allocated on first need and kept in the context for later sorts. Keys past `count` are
 * left as they are. Not stable unless CLQSORT_STABLE is in `flags` (see that flag).
 *
 * What is unchanged after a failure: bad input is reported before anything is enqueued, and every
 * other step that can fail (building the kernels, allocating scratch, setting kernel arguments)
 * runs before the first kernel, so `keys` is byte-for-byte unchanged after every failure except
 * those of the sort's own kernels: a kernel launch or a wait for the device that fails
 * (CLQSORT_ERROR_OUT_OF_MEMORY, _OPENCL or _INVALID_QUEUE whose message names
 * clEnqueueNDRangeKernel, clEnqueueReadBuffer or clFinish), or a broken invariant the kernels
 * report (CLQSORT_ERROR_INTERNAL). After those the content of `keys` is unspecified (part of the
 * keys may still be in the scratch buffer), and the message says "the keys may have changed".
 * On the device-enqueue path a kernel launches the next one itself, and the runtime may refuse
 * (enqueue_kernel: a full device queue, resources short). Where that happens before the first
 * sort pass has moved a key, the keys are a permutation of the input, and the call (blocking
 * calls only) sorts again, whole, up to 6 tries in all, pausing 1, 4, 16, 64 and 256 ms before
 * them (clqsort_stats.repeats counts them); a refusal in the last try, or any later one, is
 * CLQSORT_ERROR_INTERNAL with the launch's error in the message, which says "the sort can be
 * repeated" or "the keys may have changed".
 * count 0 and 1 succeed without touching the device.
 *
 * Order: integers by value; float and double by the total order
 *     -inf < negative numbers < -0.0 < +0.0 < positive numbers < +inf < NaN
 * with every NaN last (NaNs of different payloads in no promised order among themselves).
 * No bit pattern is lost or changed: -0.0 and +0.0 stay distinct, NaN payloads stay as they were.
 * Descending order is the exact reverse (NaNs first). 64-bit keys need the device's
 * cl_khr_int64_base_atomics and cl_khr_int64_extended_atomics (else
 * CLQSORT_ERROR_UNSUPPORTED_TYPE); doubles need no cl_khr_fp64 (they are compared as integers). */
clqsort_status clqsort_sort(clqsort_context *ctx, cl_mem keys, size_t count, clqsort_key_type type,
                            unsigned flags);

/* clqsort_sort on the `count` keys that start `keys_offset` keys (elements of `type`) into `keys`:
 * a slice of a larger buffer, as CLBlast's routines take an offset, where a sub-buffer would need
 * an origin aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN. keys_offset + count keys must fit in the
 * buffer (else CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER); keys outside the slice are left as they are.
 * Everything else as for clqsort_sort, which is clqsort_sort_at with keys_offset 0. */
clqsort_status clqsort_sort_at(clqsort_context *ctx, cl_mem keys, size_t keys_offset, size_t count,
                               clqsort_key_type type, unsigned flags);

/* Sorts `count` keys of `key_type` in `keys` like clqsort_sort, and moves the value at each key's
 * position in `values` (another buffer of the same context, `value_size` 4 or 8 bytes per
 * value) along with it: afterwards values[i] is the value that came with keys[i]. With values
 * 0, 1, 2, ... this is an argsort. Values of equal keys come out in no promised order, or with
 * CLQSORT_STABLE in their input order.
 * Refusals and what stays unchanged as for clqsort_sort, for both buffers; value_size other than 4 or 8 gives
 * CLQSORT_ERROR_INVALID_ARGUMENT, keys and values sharing memory (the same buffer, or
 * overlapping sub-buffers of one buffer, where count > 0) or one buffer a sub-buffer of the other
 * (OpenCL leaves a command writing through a buffer and its sub-buffer undefined, even where
 * the bytes are apart) CLQSORT_ERROR_OVERLAPPING_BUFFERS. */
clqsort_status clqsort_sort_pairs(clqsort_context *ctx, cl_mem keys, cl_mem values, size_t count,
                                  clqsort_key_type key_type, size_t value_size, unsigned flags);

/* clqsort_sort_pairs on slices: the `count` keys from key `keys_offset` of `keys` and as many
 * values from value `values_offset` of `values` (offsets in elements of each). Keys and values
 * may lie in one buffer (or in two sub-buffers of one buffer) if their slices do not overlap
 * (else CLQSORT_ERROR_OVERLAPPING_BUFFERS);
 * each slice must fit in its buffer. clqsort_sort_pairs is this with both offsets 0. */
clqsort_status clqsort_sort_pairs_at(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                     size_t values_offset, size_t count, clqsort_key_type key_type,
                                     size_t value_size, unsigned flags);

/* Sorts `count` keys of type `type` in host memory at `keys`, like clqsort_sort: copies them to
 * a device buffer the context keeps for this, sorts, and copies them back before returning.
 * `keys` NULL gives CLQSORT_ERROR_NULL_BUFFER (also for count 0). The array is written only by
 * the final copy back, after the sort succeeded: it is unchanged after every failure but one of
 * that copy (a failed clEnqueueReadBuffer named in the message). */
clqsort_status clqsort_sort_host(clqsort_context *ctx, void *keys, size_t count, clqsort_key_type type,
                                 unsigned flags);

/* clqsort_sort_pairs on host arrays: `count` keys at `keys` and their `value_size`-byte values at
 * `values` (4 or 8), through device buffers the context keeps. NULL arrays give
 * CLQSORT_ERROR_NULL_BUFFER (checked first), arrays that share a byte (count > 0)
 * CLQSORT_ERROR_OVERLAPPING_BUFFERS; both arrays are written only by the final copies back,
 * after the sort succeeded (unchanged after every failure but one of those copies). */
clqsort_status clqsort_sort_pairs_host(clqsort_context *ctx, void *keys, void *values, size_t count,
                                       clqsort_key_type key_type, size_t value_size, unsigned flags);

/* ---- segments --------------------------------------------------------------------------------
 * Sorts each of `segments` segments of the `count` keys from key `keys_offset` of `keys`
 * independently (and, with value_size 4 or 8, the values from value `values_offset` of `values`
 * with them; value_size 0 and values NULL for keys alone), in one call. Segment i is the keys
 * [begin[i], end[i]) of that slice: `segment_begin` and `segment_end` are buffers of the context
 * holding uint32 offsets (counted in keys from keys_offset) from their first byte; `segment_end`
 * NULL is the compressed form: segment_begin holds segments + 1 offsets and end[i] = begin[i + 1].
 *
 * Segments are given in order of position: begin[i] <= end[i] <= count, and end[i] <= begin[i + 1]
 * when i + 1 < segments. Empty segments, gaps between segments and segments of very different
 * lengths are fine; keys and values outside every segment keep their bytes. Segments that break
 * the order are found by the device before any key moves: the call (or, for
 * clqsort_enqueue_sort_segments, clqsort_finish) returns CLQSORT_ERROR_INVALID_SEGMENTS, naming
 * the first invalid segment and what is wrong with the invalid ones, and every buffer is
 * byte-for-byte as it was.
 *
 * Refusals before anything is enqueued, as for clqsort_sort_pairs_at, and: segment_begin NULL
 * (CLQSORT_ERROR_NULL_BUFFER), a segment buffer that is not a buffer of the context, is
 * write-only for kernels or holds fewer offsets than said (the buffer statuses of clqsort_sort),
 * segments > CLQSORT_MAX_COUNT - 1 (CLQSORT_ERROR_COUNT_TOO_LARGE), a segment buffer sharing
 * memory with the keys or values (CLQSORT_ERROR_OVERLAPPING_BUFFERS). segments 0 succeeds without
 * touching the device. CLQSORT_STABLE keeps equal keys of a segment in their input order. */
clqsort_status clqsort_sort_segments(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                     size_t values_offset, size_t count, clqsort_key_type key_type,
                                     size_t value_size, cl_mem segment_begin, cl_mem segment_end, size_t segments,
                                     unsigned flags);

/* ---- partial sorts (top-k) ------------------------------------------------------------------
 * Leaves the k smallest of the `count` keys from key `keys_offset` of `keys` (the k largest with
 * CLQSORT_DESCENDING) in sorted order at the front of the slice, and the other count - k after
 * them in no promised order; the whole slice is a permutation of what it was, and values
 * (value_size 4 or 8; 0 and values NULL for keys alone) move with their keys. k 0 succeeds
 * without touching the device; k > count is refused with CLQSORT_ERROR_INVALID_ARGUMENT; k =
 * count is a full sort. Refusals and what stays unchanged as for clqsort_sort_pairs_at;
 * CLQSORT_STABLE as there (the first k keys in order, equal ones in input order).
 * How: 32-bit keys with 2 k + 65536 <= count / 4, on a device with 64-bit atomics and at least
 * 4096 * 4 + 1024 * 8 + 8 * (gqsort_work_group of clqsort_info) + 64 bytes of local memory, are selected
 * first: a few reads of the keys narrow down at most 2 k + 65536 candidates, only those are
 * sorted (for k <= 2048 by one work-group in local memory; for larger k, where the last read
 * enqueued finished the selection and none of its buckets holds more than 1024 candidates,
 * bucket by bucket in local memory, else as 64-bit keys by this library's sort), and the answer
 * trades places with the keys in the first k positions; equal keys then come out in input order
 * with or without CLQSORT_STABLE (clqsort_stats.selected_keys: the candidates). The blocking
 * call first enqueues one narrowing read (two for float keys), which is enough for most inputs;
 * where it is not (keys with few distinct values), nothing has moved yet, and the call enqueues
 * the rest and waits a second time (clqsort_stats.host_round_trips 2).
 * clqsort_enqueue_partial_sort cannot wait: it enqueues every read any input needs, once. Every other partial sort partitions the keys and refines
 * only the partitions that reach into the first k positions. */
clqsort_status clqsort_partial_sort(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                    size_t values_offset, size_t count, clqsort_key_type key_type, size_t value_size,
                                    size_t k, unsigned flags);

/* ---- partial and segmented sorts of host arrays ----------------------------------------------
 * clqsort_partial_sort and clqsort_sort_segments on arrays in host memory, through device buffers
 * the context keeps, as clqsort_sort_pairs_host does: `count` keys at `keys` and, with value_size
 * 4 or 8, their values at `values` (value_size 0 and values NULL for keys alone; values given
 * with value_size 0 is CLQSORT_ERROR_INVALID_ARGUMENT). NULL arrays give CLQSORT_ERROR_NULL_BUFFER,
 * keys and values sharing a byte CLQSORT_ERROR_OVERLAPPING_BUFFERS. The arrays are written only by
 * the final copies back, after the sort succeeded: unchanged after every failure but one of those
 * copies, invalid segments (CLQSORT_ERROR_INVALID_SEGMENTS, found on the device) included.
 * clqsort_partial_sort_host: k as for clqsort_partial_sort (k > count refused before anything is
 * copied). clqsort_sort_segments_host: the offsets are host arrays of uint32 (segment_begin
 * segments + 1 of them when segment_end is NULL, else segments each), copied to the device with
 * the keys; segment_begin NULL gives CLQSORT_ERROR_NULL_BUFFER, segments 0 succeeds without
 * touching the device. */
clqsort_status clqsort_partial_sort_host(clqsort_context *ctx, void *keys, void *values, size_t count,
                                         clqsort_key_type key_type, size_t value_size, size_t k, unsigned flags);
clqsort_status clqsort_sort_segments_host(clqsort_context *ctx, void *keys, void *values, size_t count,
                                          clqsort_key_type key_type, size_t value_size, const cl_uint *segment_begin,
                                          const cl_uint *segment_end, size_t segments, unsigned flags);

/* ---- sorts that do not block the host -------------------------------------------------------
 * clqsort_enqueue_sort, clqsort_enqueue_sort_segments and clqsort_enqueue_partial_sort enqueue the sort on the context's queue
 * and return without waiting, following the OpenCL API's convention for the last three
 * arguments: the sort starts once the `num_events_in_wait_list` events of `event_wait_list` have
 * completed (and after every command enqueued on the queue before, which is in order), and, if
 * `event` is not NULL, *event is set to a new event that completes when the sort has (the program
 * releases it with clReleaseEvent). Commands the program enqueues on the same queue afterwards run
 * after the sort; a program can enqueue a sort, its own kernels and a read, and wait once.
 *
 * Reporting: everything that can be checked on the host is checked before anything is enqueued
 * and returned by the call itself, with the same statuses and the same "unchanged" guarantee as
 * the blocking calls; so is a failure to enqueue (after which nothing of the call still runs:
 * the call waits for the queue, so the events of its wait list must be able to complete).
 * What the device finds after the call returned (invalid segment offsets, a broken invariant of
 * the kernels, a command that failed on the device) is reported by clqsort_finish(), which waits
 * for every sort enqueued on the context and returns the first such failure since the last
 * clqsort_finish, its message naming the call that enqueued the sort and its position among the
 * enqueued sorts. The event completes either way: it does not carry the status.
 * At most CLQSORT_MAX_PENDING sorts are followed at once: an enqueue beyond them first waits for
 * the oldest (its failure, if any, is kept for clqsort_finish). The counters of
 * clqsort_get_stats() are those of the last sort found successful. Buffers given to an enqueued
 * sort must stay alive and unused by other commands until it completes. clqsort_release() waits
 * for the enqueued sorts first. */
#define CLQSORT_MAX_PENDING 64u

/* clqsort_sort_pairs_at without waiting: values NULL with value_size 0 sorts keys alone. */
clqsort_status clqsort_enqueue_sort(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                    size_t values_offset, size_t count, clqsort_key_type key_type, size_t value_size,
                                    unsigned flags, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                    cl_event *event);

/* clqsort_sort_segments without waiting. */
clqsort_status clqsort_enqueue_sort_segments(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                             size_t values_offset, size_t count, clqsort_key_type key_type,
                                             size_t value_size, cl_mem segment_begin, cl_mem segment_end,
                                             size_t segments, unsigned flags, cl_uint num_events_in_wait_list,
                                             const cl_event *event_wait_list, cl_event *event);

/* clqsort_partial_sort without waiting. */
clqsort_status clqsort_enqueue_partial_sort(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                            size_t values_offset, size_t count, clqsort_key_type key_type,
                                            size_t value_size, size_t k, unsigned flags,
                                            cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                            cl_event *event);

/* Waits for every sort enqueued on the context and returns the first failure the device found in
 * one of them since the last clqsort_finish (its message in clqsort_last_error(ctx)), else
 * CLQSORT_SUCCESS. The blocking calls report their own failures themselves. */
clqsort_status clqsort_finish(clqsort_context *ctx);

/* The device memory a sort of `count` keys of `type` (with values of `value_size` bytes, or 0
 * for keys alone) takes on this context besides the caller's buffers, in bytes: scratch for the
 * keys and values, and the record lists. Sorts refuse with CLQSORT_ERROR_OUT_OF_MEMORY, before
 * anything is enqueued, when this plus the caller's keys and values exceeds the device's global
 * memory, or one of its buffers exceeds the largest allocation. clqsort_sort_host needs a
 * buffer of count keys more, and clqsort_sort_pairs_host one of count values too. Arguments
 * are checked as by the sorts. */
clqsort_status clqsort_scratch_bytes(clqsort_context *ctx, size_t count, clqsort_key_type type, size_t value_size,
                                     size_t *bytes);

/* Fills *info with what the context runs on. If CLQSORT_TUNING is set and invalid, *info holds
 * the tuning table's shape and CLQSORT_ERROR_INVALID_OPTION is returned (sorts that build
 * kernels give the same error). */
clqsort_status clqsort_get_info(const clqsort_context *ctx, clqsort_info *info);

/* Fills *stats with the counters of the last successful sort on the context (all zero before
 * the first); a failed sort leaves them as they were. */
clqsort_status clqsort_get_stats(const clqsort_context *ctx, clqsort_stats *stats);

/* The context's OpenCL context, device and queue (owned by the clqsort context). */
cl_context clqsort_cl_context(const clqsort_context *ctx);
cl_device_id clqsort_cl_device(const clqsort_context *ctx);
cl_command_queue clqsort_cl_queue(const clqsort_context *ctx);

/* Replaces the functions the library allocates and frees its host memory with (default: malloc
 * and free): for programs with an allocator of their own, and for tests that make allocations
 * fail. Either pointer NULL restores both defaults. Call it while no context exists and no other
 * clqsort call runs: memory must be freed by the allocator that gave it. */
void clqsort_set_memory_allocator(void *(*malloc_func)(size_t), void (*free_func)(void *));

/* A fixed English sentence for a status ("invalid buffer", ...); never NULL. */
const char *clqsort_status_string(clqsort_status status);

/* The detailed message of the last failed call on `ctx`, or with ctx NULL of the last failed
 * call made by this thread (on any context, or a clqsort_create that gave no context). Empty
 * if there was none. Valid until the next call on the same context or thread; reading a
 * context's message while another thread calls on that context is the program's error. */
const char *clqsort_last_error(const clqsort_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* CLQSORT_H */
