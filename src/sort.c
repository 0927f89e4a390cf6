/* sort.c - the sort calls: one validator for every entry point, record capacities, device
 * memory, kernel arguments, then an execution path. */
#include "clqsort_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- validation: everything is checked before anything is enqueued ------------------------- */

/* The arguments that are not buffers, shared by every sort call and clqsort_scratch_bytes. */
static clqsort_status check_arguments(clqsort_context *ctx, size_t count, clqsort_key_type type, size_t value_bytes,
                                      unsigned flags)
{
    if ((int)type < 0 || (int)type >= CLQ_KEY_TYPES)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "%d is not a clqsort_key_type", (int)type);
    const unsigned known = CLQSORT_DESCENDING | CLQSORT_STABLE;
    if (flags & ~known)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "unknown flags 0x%x", flags & ~known);
    if ((flags & CLQSORT_STABLE) && clq_key_bytes(type) == 8)
        return clq_fail(ctx, CLQSORT_ERROR_UNSUPPORTED_TYPE,
                        "CLQSORT_STABLE sorts 32-bit key types only (it sorts each key with its position as one "
                        "64-bit key)");
    if ((flags & CLQSORT_STABLE) && !ctx->has_int64_atomics)
        return clq_fail(ctx, CLQSORT_ERROR_UNSUPPORTED_TYPE,
                        "CLQSORT_STABLE sorts 64-bit keys, which need cl_khr_int64_base_atomics and "
                        "cl_khr_int64_extended_atomics, which \"%s\" lacks",
                        ctx->device_name);
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "value_size %zu; values are 4 or 8 bytes", value_bytes);
    if (clq_key_bytes(type) == 8 && !ctx->has_int64_atomics)
        return clq_fail(ctx, CLQSORT_ERROR_UNSUPPORTED_TYPE,
                        "64-bit keys need cl_khr_int64_base_atomics and cl_khr_int64_extended_atomics, which "
                        "\"%s\" lacks",
                        ctx->device_name);
    if (count > CLQSORT_MAX_COUNT)
        return clq_fail(ctx, CLQSORT_ERROR_COUNT_TOO_LARGE, "count %zu exceeds CLQSORT_MAX_COUNT (%zu)", count,
                        CLQSORT_MAX_COUNT);
    return CLQSORT_SUCCESS;
}

/* What every buffer argument must be: not NULL, a buffer, of this context. Gives its flags and
 * size for the checks of its use. */
static clqsort_status query_buffer(clqsort_context *ctx, cl_mem m, const char *name, cl_mem_flags *mflags,
                                   size_t *msize)
{
    if (!m)
        return clq_fail(ctx, CLQSORT_ERROR_NULL_BUFFER, "%s is NULL", name);
    cl_mem_object_type mtype;
    cl_context mctx;
    CLQ_CL(ctx, name, clGetMemObjectInfo, (m, CL_MEM_TYPE, sizeof mtype, &mtype, NULL));
    CLQ_CL(ctx, name, clGetMemObjectInfo, (m, CL_MEM_CONTEXT, sizeof mctx, &mctx, NULL));
    CLQ_CL(ctx, name, clGetMemObjectInfo, (m, CL_MEM_FLAGS, sizeof *mflags, mflags, NULL));
    CLQ_CL(ctx, name, clGetMemObjectInfo, (m, CL_MEM_SIZE, sizeof *msize, msize, NULL));
    if (mtype != CL_MEM_OBJECT_BUFFER)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_BUFFER, "%s is a memory object of type 0x%x, not a buffer", name,
                        (unsigned)mtype);
    if (mctx != ctx->context)
        return clq_fail(ctx, CLQSORT_ERROR_WRONG_CONTEXT,
                        "%s was created in another OpenCL context than the one of this clqsort context "
                        "(use clqsort_cl_context() or clqsort_create_with_queue())",
                        name);
    return CLQSORT_SUCCESS;
}

/* The checks of one buffer argument: a read-write buffer of this context holding `count` elements
 * from element `offset`. */
static clqsort_status check_buffer(clqsort_context *ctx, cl_mem m, const char *name, size_t offset, size_t count,
                                   size_t elem_bytes)
{
    cl_mem_flags mflags;
    size_t msize;
    CLQ_TRY(query_buffer(ctx, m, name, &mflags, &msize));
    if (mflags & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY))
        return clq_fail(ctx, CLQSORT_ERROR_BUFFER_ACCESS, "%s was created with %s; sorting needs CL_MEM_READ_WRITE", name,
                        (mflags & CL_MEM_READ_ONLY) ? "CL_MEM_READ_ONLY" : "CL_MEM_WRITE_ONLY");
    if (offset > msize / elem_bytes || count > msize / elem_bytes - offset)
        return clq_fail(ctx, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER,
                        "%zu %s of %zu bytes from element %zu do not fit in the buffer's %zu bytes (CL_MEM_SIZE)",
                        count, name, elem_bytes, offset, msize);
    return CLQSORT_SUCCESS;
}

/* The byte range [*begin, *end) of `bytes` from byte `offset` of m, inside its outermost buffer *root. */
static clqsort_status extent_of(clqsort_context *ctx, cl_mem m, const char *name, size_t offset, size_t bytes,
                                cl_mem *root, size_t *begin, size_t *end)
{
    *root = m;
    for (;;) {
        cl_mem parent = NULL;
        size_t off = 0;
        CLQ_CL(ctx, name, clGetMemObjectInfo, (*root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL));
        if (!parent)
            break;
        CLQ_CL(ctx, name, clGetMemObjectInfo, (*root, CL_MEM_OFFSET, sizeof off, &off, NULL));
        offset += off;
        *root = parent;
    }
    *begin = offset;
    *end = offset + bytes;
    return CLQSORT_SUCCESS;
}

/* a and b (byte ranges of buffers, as extent_of gives them) share no byte, and neither is a
 * sub-buffer of the other (OpenCL leaves a command that writes through a buffer and its
 * sub-buffer undefined, even apart; sub-buffers of sub-buffers do not exist). */
static clqsort_status check_apart(clqsort_context *ctx, cl_mem a, const char *an, size_t a_offset, size_t a_bytes,
                                  cl_mem b, const char *bn, size_t b_offset, size_t b_bytes)
{
    cl_mem aroot, broot;
    size_t ab, ae, bb, be;
    CLQ_TRY(extent_of(ctx, a, an, a_offset, a_bytes, &aroot, &ab, &ae));
    CLQ_TRY(extent_of(ctx, b, bn, b_offset, b_bytes, &broot, &bb, &be));
    if (aroot != broot)
        return CLQSORT_SUCCESS;
    if (ab < be && bb < ae)
        return clq_fail(ctx, CLQSORT_ERROR_OVERLAPPING_BUFFERS, "%s and %s share memory (bytes %zu..%zu and %zu..%zu of one buffer)",
                        an, bn, ab, ae, bb, be);
    if ((a == aroot) != (b == broot))
        return clq_fail(ctx, CLQSORT_ERROR_OVERLAPPING_BUFFERS,
                        "%s is a sub-buffer of %s, which OpenCL does not allow one command to write through "
                        "together; give the one buffer with element offsets",
                        a == aroot ? bn : an, a == aroot ? an : bn);
    return CLQSORT_SUCCESS;
}

/* The caller's buffers: each holds its slice, and keys and values are apart (check_apart). */
static clqsort_status check_buffers(clqsort_context *ctx, const clq_plan *plan, size_t count, clqsort_key_type type,
                                    size_t value_bytes)
{
    const size_t kw = clq_key_bytes(type);
    CLQ_TRY(check_buffer(ctx, plan->keys, "keys", (size_t)plan->key_offset, count, kw));
    if (!value_bytes)
        return CLQSORT_SUCCESS;
    CLQ_TRY(check_buffer(ctx, plan->values, "values", (size_t)plan->value_offset, count, value_bytes));
    return check_apart(ctx, plan->keys, "keys", (size_t)plan->key_offset * kw, count * kw, plan->values, "values",
                       (size_t)plan->value_offset * value_bytes, count * value_bytes);
}

/* A buffer of segment offsets: `n` uint32s from its first byte, readable by kernels (read-only
 * buffers are fine), apart from the keys and values. */
static clqsort_status check_offsets(clqsort_context *ctx, const clq_plan *plan, cl_mem m, const char *name, size_t n,
                                    size_t count, clqsort_key_type type, size_t value_bytes)
{
    cl_mem_flags mflags;
    size_t msize;
    CLQ_TRY(query_buffer(ctx, m, name, &mflags, &msize));
    if (mflags & CL_MEM_WRITE_ONLY)
        return clq_fail(ctx, CLQSORT_ERROR_BUFFER_ACCESS, "%s was created with CL_MEM_WRITE_ONLY; kernels read it", name);
    if (n > msize / 4)
        return clq_fail(ctx, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER,
                        "%s must hold %zu uint32 offsets, but has %zu bytes (CL_MEM_SIZE)", name, n, msize);
    const size_t kw = clq_key_bytes(type);
    CLQ_TRY(check_apart(ctx, m, name, 0, n * 4, plan->keys, "keys", (size_t)plan->key_offset * kw, count * kw));
    if (value_bytes)
        CLQ_TRY(check_apart(ctx, m, name, 0, n * 4, plan->values, "values", (size_t)plan->value_offset * value_bytes,
                            count * value_bytes));
    return CLQSORT_SUCCESS;
}

/* ---- device memory ------------------------------------------------------------------------- */

/* Record capacities that no input can exceed:
 *  - a work list holds sequences longer than lq_max that do not overlap: at most n / (lq_max + 1);
 *  - each of them gets at most gq_ways buckets (relauncher.cl) in clq_copies_of(len) copies,
 *    at most len / (lq_max + 1) of them (clqsort_common.h), so the pool needs no more than
 *    gq_ways records per sequence the work list can hold;
 *  - phase-two records (gqsort.cl, clq_emit_children): a sequence of len keys has fewer than
 *    len / half buckets of more than half = lq_max / 2 keys, each at most one record or a run
 *    of equal keys, and its shorter buckets make at most len / half + 1 records; so a level
 *    makes at most 2 n / half + nseq of them, besides the runs of equal keys, which become
 *    ceil(len / fill_chunk) fill records and never overlap, as do the copy records of a partial
 *    sort (gqsort.cl, clq_emit_child); there are at most clq_levels levels. Records never overlap, so there are also at most n of them.
 *  - a segmented sort's roots (cl/segments.cl) add a record per window of `half` keys and one per
 *    segment of more than `half` keys: fewer than 2 (n / half + 1). */
static void capacities(const clq_tuning *t, cl_ulong n, unsigned levels, int segmented, cl_ulong *seq_cap,
                       cl_ulong *pool_cap, cl_ulong *leaf_cap)
{
    *seq_cap = n / ((cl_ulong)t->lq_max + 1) + 1;
    *pool_cap = *seq_cap * t->gq_ways;
    const cl_ulong half = t->lq_max / 2 ? t->lq_max / 2 : 1;
    const cl_ulong leaves = (cl_ulong)levels * (2 * (n / half + 1) + *seq_cap) + 2 * (n / t->fill_chunk) + 2 +
                            (segmented ? 2 * (n / half + 1) : 0);
    *leaf_cap = leaves < n ? leaves : n ? n : 1; /* segmented sorts of no keys still launch */
}

/* A device buffer the context keeps for sorts, and the bytes one sort needs of it. */
typedef struct scratch_request {
    cl_mem *buf;
    size_t *have;
    size_t bytes;
    const char *what;
} scratch_request;
enum { SCRATCH_REQUESTS = 9 };

/* A selecting partial sort's own buffer (cl/select.cl): the selection's words, then k marks and
 * k holes, then the answer's values, then for small k the first level's kept composites. */
static cl_ulong select_bytes(const clq_plan *plan)
{
    const cl_ulong k = plan->topk, room = CLQ_SEL_KEEP_ROOM((cl_ulong)plan->select_count, k);
    if (room) /* then the first level's kept composites, 8-byte aligned (clqsort_shared.h) */
        return CLQ_SEL_KEEP_WORD(k, (cl_ulong)plan->select_value_bytes) * 4 + room * 8;
    return ((cl_ulong)CLQ_SEL_WORDS + 2 * k) * 4 + k * plan->select_value_bytes;
}

/* Whether select_sort_kernel's one group sorts the candidates and places the answer, in place
 * of the 64-bit program's sort and the placement's launches. */
static int select_in_one_group(const clq_plan *plan) { return plan->select && plan->topk <= CLQ_SEL_SORT_MAX; }

/* The scratch buffers a sort of `count` keys needs with tuning t; fills plan's capacities. The
 * kernels count records in 32 bits, and a host with a 32-bit size_t cannot hold every size. */
static clqsort_status scratch_requests(clqsort_context *ctx, const clq_tuning *t, size_t count, clqsort_key_type type,
                                       size_t value_bytes, clq_plan *plan, scratch_request r[SCRATCH_REQUESTS])
{
    const unsigned code_bits = clq_code_bits(type);
    const cl_ulong n = count, code_bytes = code_bits / 8;
    /* the program's keys; a segmented sort's roots take no root slices */
    const int floats = (type == CLQSORT_KEY_FLOAT || type == CLQSORT_KEY_DOUBLE) && !plan->segments;
    plan->levels = clq_levels(t, code_bits, floats, count); /* 0: the root is one phase-two record */
    plan->value_levels = plan->levels - clq_levels(t, code_bits, 0, count); /* the one more, if taken */
    /* the tile path (path_host_loop.c): one sequence of at most small_tiles tiles (a selection's
     * candidates: CLQ_TILES_MAX), host loop */
    const cl_ulong most_tiles = plan->select ? CLQ_TILES_MAX : t->small_tiles;
    const int tiled = ctx->path == CLQSORT_PATH_HOST_LOOP && !plan->segments && n <= most_tiles * t->lq_max;
    plan->tiles = tiled ? (cl_uint)((n + t->lq_max - 1) / t->lq_max) : 0;
    cl_ulong seq_cap, pool_cap, leaf_cap;
    capacities(t, n, plan->levels, plan->segments > 0, &seq_cap, &pool_cap, &leaf_cap);
    const cl_ulong half = t->lq_max / 2 ? t->lq_max / 2 : 1;
    plan->windows = plan->segments ? (cl_uint)(n / half + 1) : 0;
    if (pool_cap > CL_UINT_MAX) /* the other two are below n */
        return clq_fail(ctx, CLQSORT_ERROR_COUNT_TOO_LARGE,
                        "with phase two taking at most %u keys (lq_max of the tuning in force), %zu keys need %llu "
                        "bucket records; the kernels count at most %u",
                        t->lq_max, count, (unsigned long long)pool_cap, (unsigned)CL_UINT_MAX);
    plan->seq_cap = (cl_uint)seq_cap;
    plan->pool_cap = (cl_uint)pool_cap;
    plan->leaf_cap = (cl_uint)leaf_cap;
    plan->code_bits = code_bits;
    const cl_ulong sorts = !select_in_one_group(plan); /* whose one group needs none of the first five */
    plan->records = sorts && !plan->tiles;
    const cl_ulong records = plan->records != 0;
    const struct { cl_mem *buf; size_t *have; cl_ulong bytes; const char *what; } need[SCRATCH_REQUESTS] = {
        {&ctx->scratch, &ctx->scratch_bytes, sorts * n * clq_key_bytes(type), "scratch"},
        {&ctx->scratch_values, &ctx->scratch_values_bytes, sorts * n * value_bytes, "value scratch"},
        {&ctx->lists, &ctx->lists_bytes, records * 2 * seq_cap * CLQ_SEQ_RECORD_BYTES(code_bytes), "work list"},
        {&ctx->pool, &ctx->pool_bytes, records * pool_cap * CLQ_BUCKET_RECORD_BYTES(code_bytes), "bucket pool"},
        {&ctx->leaves, &ctx->leaves_bytes, records * leaf_cap * CLQ_LEAF_RECORD_BYTES(code_bytes), "phase-two list"},
        {&ctx->status, &ctx->status_bytes, CLQ_ST_WORDS * sizeof(cl_uint), "status"},
        {&ctx->windows, &ctx->windows_bytes, (cl_ulong)plan->windows * 2 * sizeof(cl_uint), "segment windows"},
        {&ctx->packed, &ctx->packed_bytes, plan->stable || plan->select ? n * 8 : 0, "packed keys"},
        {&ctx->select, &ctx->select_bytes, plan->select ? select_bytes(plan) : 0, "selection"},
    };
    for (int i = 0; i < SCRATCH_REQUESTS; i++) {
        if (need[i].bytes > SIZE_MAX)
            return clq_fail(ctx, CLQSORT_ERROR_OUT_OF_MEMORY, "the %s buffer needs %llu bytes, more than size_t holds",
                            need[i].what, (unsigned long long)need[i].bytes);
        r[i] = (scratch_request){need[i].buf, need[i].have, (size_t)need[i].bytes, need[i].what};
    }
    return CLQSORT_SUCCESS;
}

/* The whole scratch need, in bytes (each request fits size_t; the sum is capped there). */
static size_t scratch_total(const scratch_request r[SCRATCH_REQUESTS])
{
    size_t total = 0;
    for (int i = 0; i < SCRATCH_REQUESTS; i++)
        total = r[i].bytes > SIZE_MAX - total ? SIZE_MAX : total + r[i].bytes;
    return total;
}

/* Grows a cached device buffer to what the sort needs of it. */
static clqsort_status grow(clqsort_context *ctx, const scratch_request *r)
{
    if (r->bytes == 0 || (*r->buf && *r->have >= r->bytes))
        return CLQSORT_SUCCESS;
    if (r->bytes > ctx->max_alloc_size)
        return clq_fail(ctx, CLQSORT_ERROR_OUT_OF_MEMORY,
                        "the %s buffer needs %zu bytes; \"%s\" allows %llu per allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                        r->what, r->bytes, ctx->device_name, (unsigned long long)ctx->max_alloc_size);
    if (*r->buf) {
        const cl_mem old = *r->buf;
        *r->buf = NULL;
        *r->have = 0;
        CLQ_CL(ctx, r->what, clReleaseMemObject, (old));
    }
    if (r->buf == &ctx->pool)
        ctx->pool_clear = 0;
    if (r->buf == &ctx->windows)
        ctx->windows_clear = 0;
    cl_int err;
    *r->buf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, r->bytes, NULL, &err);
    char what[96];
    snprintf(what, sizeof what, "%zu bytes for the %s", r->bytes, r->what);
    CLQ_TRY(clq_check_created(ctx, *r->buf, err, "clCreateBuffer", what));
    *r->have = r->bytes;
    return CLQSORT_SUCCESS;
}

/* Grows the scratch buffers. The whole need is checked first, so a sort the device cannot hold
 * is refused with its own message before anything is allocated. */
static clqsort_status ensure_scratch(clqsort_context *ctx, const scratch_request r[SCRATCH_REQUESTS],
                                     cl_ulong caller_bytes)
{
    cl_ulong held = caller_bytes;
    for (int i = 0; i < SCRATCH_REQUESTS; i++)
        held += r[i].bytes > *r[i].have ? r[i].bytes : *r[i].have;
    if (held > ctx->global_mem_size)
        return clq_fail(ctx, CLQSORT_ERROR_OUT_OF_MEMORY,
                        "the sort needs %llu bytes of device memory (%llu of the caller's keys and values, %llu of "
                        "scratch), but \"%s\" has %llu (CL_DEVICE_GLOBAL_MEM_SIZE)",
                        (unsigned long long)held, (unsigned long long)caller_bytes,
                        (unsigned long long)(held - caller_bytes), ctx->device_name,
                        (unsigned long long)ctx->global_mem_size);
    for (int i = 0; i < SCRATCH_REQUESTS; i++)
        CLQ_TRY(grow(ctx, &r[i]));
    return CLQSORT_SUCCESS;
}

/* ---- kernel arguments and launches --------------------------------------------------------- */

/* Buffer arguments change with every sort (the caller's keys); the scalars were set at build.
 * Every kernel takes the keys, scratch, values, value scratch, segment begins and ends, [work
 * lists, bucket pool,] phase-two list and status, [segment windows,] then its scalars. */
static clqsort_status set_buffer_args(clqsort_context *ctx, const clq_plan *plan)
{
    const clq_program *p = plan->prog;
    const cl_mem svals = plan->values ? ctx->scratch_values : NULL;
    const cl_mem windows = plan->segments ? ctx->windows : NULL;
    for (int i = 0; i < CLQ_KERNELS; i++) {
        const clq_kernel_desc *d = &clq_kernel_table[i];
        const cl_mem args[11] = {plan->keys, ctx->scratch, plan->values, svals,       plan->seg_begin, plan->seg_end,
                                 ctx->lists, ctx->pool,    ctx->leaves,  ctx->status, windows};
        cl_uint a = 0;
        for (int j = 0; j < 11; j++) {
            if (((j == 6 || j == 7) && !d->work_lists) || (j == 10 && !d->windows))
                continue;
            CLQ_CL(ctx, d->name, clSetKernelArg, (p->all[i], a, sizeof(cl_mem), &args[j]));
            a++;
        }
    }
    return CLQSORT_SUCCESS;
}

static int kernel_index(const clq_program *p, cl_kernel k)
{
    int i = 0;
    while (i + 1 < CLQ_KERNELS && p->all[i] != k)
        i++;
    return i;
}

/* Every launch of the host: `groups` groups of `wg`, counted in stats, and with CLQSORT_PROFILE
 * timed under profile row `phase` (-1: not timed). */
static clqsort_status enqueue_kernel_after(clqsort_context *ctx, cl_kernel k, const char *name, int phase,
                                           size_t groups, size_t wg, cl_uint nwait, const cl_event *wait)
{
    const size_t global = groups * wg;
    cl_event *ev = phase >= 0 && ctx->profile && !ctx->enqueuing && ctx->nevents < CLQ_PROFILE_EVENTS
                       ? &ctx->events[ctx->nevents]
                       : NULL;
    CLQ_CL(ctx, name, clEnqueueNDRangeKernel, (ctx->queue, k, 1, NULL, &global, &wg, nwait, wait, ev));
    ctx->stats.kernel_launches++;
    if (ev)
        ctx->event_phase[ctx->nevents++] = phase;
    return CLQSORT_SUCCESS;
}

static clqsort_status enqueue_kernel(clqsort_context *ctx, cl_kernel k, const char *name, int phase, size_t groups,
                                     size_t wg)
{
    return enqueue_kernel_after(ctx, k, name, phase, groups, wg, 0, NULL);
}

clqsort_status clq_launch(clqsort_context *ctx, const clq_program *p, cl_kernel k, size_t groups, size_t wg)
{
    const clq_kernel_desc *d = &clq_kernel_table[kernel_index(p, k)];
    return enqueue_kernel(ctx, k, d->name, d->phase, groups, wg);
}

/* Groups of gq_wg work-items for `items` items taken in turn: one item per work-item, at most the
 * groups that fill the device. */
static size_t fill_groups(const clqsort_context *ctx, const clq_tuning *t, size_t items)
{
    const size_t groups = (items + t->gq_wg - 1) / t->gq_wg, resident = (size_t)ctx->compute_units * t->groups_per_cu;
    return groups < resident ? groups : resident;
}

/* Whether the status words come with a round's first launch (clq_bring_words, cl/clqsort_common.h)
 * instead of their write: where that launch is one group that reads none of them before it
 * has written them, and nothing comes before it: with a selection, its sample in the first
 * round of a partial sort of k <= CLQ_SEL_SORT_MAX (a larger k's relauncher comes after the
 * selection, so never it); else the relauncher of a plain sort with nothing to clear. On the H200 the write took the host 8.5-16.9 us (timed by bench/time_layer.c) before
 * the first launch could be enqueued; without it 2^26 keys with k = 1024 took 0.168-0.173 ms
 * against 0.183-0.192 (docs/PERFORMANCE.md, call 301). */
static int words_by_launch(const clq_plan *plan, cl_uint clear)
{
    if (plan->stable || plan->segments || clear)
        return 0;
    if (plan->select)
        return select_in_one_group(plan) && plan->select_from == 1;
    return !plan->tiles;
}

/* Enqueues the sort's status inputs (after the caller's events; or leaves them to the first
 * launch, words_by_launch), clears the bucket pool if it needs it and the segment windows:
 * nothing the caller owns is touched yet. */
static clqsort_status start_sort(clqsort_context *ctx, clq_plan *plan, cl_uint nwait, const cl_event *wait)
{
    cl_uint *st = plan->slot->in;
    st[CLQ_ST_COUNT] = plan->count;
    st[CLQ_ST_SEQ_CAP] = plan->seq_cap;
    st[CLQ_ST_LEAF_CAP] = plan->leaf_cap;
    st[CLQ_ST_POOL_CAP] = plan->pool_cap;
    st[CLQ_ST_MAX_LEVELS] = plan->levels;
    st[CLQ_ST_VALUE_LEVELS] = plan->value_levels;
    st[CLQ_ST_KEY_OFFSET] = (cl_uint)plan->key_offset;
    st[CLQ_ST_KEY_OFFSET + 1] = (cl_uint)(plan->key_offset >> 32);
    st[CLQ_ST_VALUE_OFFSET] = (cl_uint)plan->value_offset;
    st[CLQ_ST_VALUE_OFFSET + 1] = (cl_uint)(plan->value_offset >> 32);
    st[CLQ_ST_SEGMENTS] = plan->segments;
    st[CLQ_ST_SEG_END_GIVEN] = plan->seg_end != NULL;
    st[CLQ_ST_BAD_SEGMENT] = CL_UINT_MAX;
    st[CLQ_ST_TOPK] = plan->topk;
    st[CLQ_ST_FAIL_ENQUEUE] = plan->attempt < ctx->fail_attempts ? ctx->fail_device_enqueue : 0u;
    const cl_uint clear = (plan->records && !ctx->pool_clear ? CLQ_CLEAR_POOL : 0u) |
                          (plan->segments && !ctx->windows_clear ? CLQ_CLEAR_WINDOWS : 0u);
    st[CLQ_ST_CLEAR] = clear;
    const cl_ulong pool_words = clear & CLQ_CLEAR_POOL ? ctx->pool_bytes / 4 : 0;
    st[CLQ_ST_POOL_WORDS] = (cl_uint)pool_words;
    st[CLQ_ST_POOL_WORDS + 1] = (cl_uint)(pool_words >> 32);
    plan->words_by_launch = words_by_launch(plan, clear);
    plan->nwait = nwait;
    plan->wait = wait;
    if (!plan->words_by_launch)
        CLQ_TRY(clq_write_status(ctx, plan->slot, nwait, wait));
    /* The kernels leave every bucket record they use cleared, but a sort that failed half-way
     * would not, nor is a new buffer clear: the pool is cleared whole unless the last sort on it
     * succeeded, which keeps each sort independent without clearing it every time. A sort that
     * uses no records leaves the pool as it was. A segmented sort's windows (first short
     * segment: min, last: max) start empty: segemit_kernel empties those it reads, so they are
     * cleared on the same terms. Both by clear_kernel (cl/segments.cl). */
    if (clear) /* one work-item per pool word or window */
        CLQ_TRY(clq_launch(ctx, plan->prog, plan->prog->clear,
                           fill_groups(ctx, &plan->prog->tuning,
                                       pool_words > plan->windows ? (size_t)pool_words : plan->windows),
                           plan->prog->tuning.gq_wg));
    if (plan->records)
        ctx->pool_clear = 0; /* until this sort is enqueued whole */
    if (plan->segments)
        ctx->windows_clear = 0;
    return CLQSORT_SUCCESS;
}

/* Segmented sorts (cl/segments.cl): check every segment and emit the roots, then emit the
 * windows' records, sort the segments of up to CLQ_NET_MAX keys that phase two leaves
 * (cl/segnet.cl, where the tuning has it) and prepare the roots for phase one, in place of
 * relauncher_kernel. The groups take segments and windows in turn, the network a chunk of gq_wg
 * segments at a time. */
static clqsort_status launch_segments(clqsort_context *ctx, const clq_plan *plan)
{
    const clq_program *p = plan->prog;
    const size_t most = plan->segments > plan->windows ? plan->segments : plan->windows;
    CLQ_TRY(clq_launch(ctx, p, p->segcheck, fill_groups(ctx, &p->tuning, plan->segments), p->tuning.gq_wg));
    return clq_launch(ctx, p, p->segemit, fill_groups(ctx, &p->tuning, most), p->tuning.gq_wg);
}

/* A host clock in ms (C11), for the profile's host times. */
static double host_ms(void)
{
    struct timespec ts;
    return timespec_get(&ts, TIME_UTC) ? (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6 : 0.0;
}

/* CLQSORT_PROFILE=1: prints the device time of the last sort per kernel (if it succeeded) and
 * releases the launches' events; CLQSORT_PROFILE=2 also prints each launch on a line of its own.
 * Profiling is diagnostic output: an event that cannot be queried or released is counted in its
 * line, and does not fail a sort that worked. */
static void finish_profile(clqsort_context *ctx, const clq_plan *plan, clqsort_status s, const double host[4])
{
    static const char *const sort_names[CLQ_SORT_PHASES] = {"gqcount_kernel", "gqsort_kernel", "relauncher_kernel",
                                                            "lqsort_kernel or tilesort_kernel", "segcheck_kernel",
                                                            "tilemerge_kernel", "clear_kernel", "segemit_kernel"};
    const char *names[CLQ_PHASES];
    for (int i = 0; i < CLQ_PHASES; i++)
        names[i] = i < CLQ_SORT_PHASES ? sort_names[i] : clq_select_names[i - CLQ_SORT_PHASES];
    double ms[CLQ_PHASES] = {0};
    unsigned count[CLQ_PHASES] = {0}, not_queried = 0, not_released = 0;
    cl_ulong first = 0, last = 0, queued = 0; /* the first launch's enqueue, on the device's clock */
    for (unsigned i = 0; i < ctx->nevents; i++) {
        cl_ulong t0 = 0, t1 = 0, tq = 0;
        if (s == CLQSORT_SUCCESS &&
            (clGetEventProfilingInfo(ctx->events[i], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) != CL_SUCCESS ||
             clGetEventProfilingInfo(ctx->events[i], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS ||
             (i == 0 &&
              clGetEventProfilingInfo(ctx->events[i], CL_PROFILING_COMMAND_QUEUED, sizeof tq, &tq, NULL) != CL_SUCCESS))) {
            not_queried++;
            t0 = t1 = tq = 0;
        }
        if (i == 0)
            queued = tq;
        const double launch_ms = (double)(t1 - t0) * 1e-6;
        ms[ctx->event_phase[i]] += launch_ms;
        count[ctx->event_phase[i]]++;
        if (i == 0)
            first = t0;
        if (ctx->profile == 2 && s == CLQSORT_SUCCESS) /* with its start after the first launch's */
            fprintf(stderr, "clqsort launch %u: %s %.3f ms, from %.3f ms\n", i, names[ctx->event_phase[i]], launch_ms,
                    t0 >= first ? (double)(t0 - first) * 1e-6 : 0.0);
        last = t1;
        not_released += clReleaseEvent(ctx->events[i]) != CL_SUCCESS;
    }
    if (s == CLQSORT_SUCCESS && ctx->nevents) {
        /* host: set-up (arguments, slot), enqueueing, the wait for the status words */
        fprintf(stderr,
                "clqsort profile n=%u: host %.3f ms set-up, %.3f enqueueing, %.3f waiting; first launch queued to "
                "its start %.3f ms; first launch to last end %.3f ms;",
                plan->count, host[1] - host[0], host[2] - host[1], host[3] - host[2],
                first >= queued ? (double)(first - queued) * 1e-6 : 0.0, (double)(last - first) * 1e-6);
        for (int i = 0; i < CLQ_PHASES; i++)
            if (count[i])
                fprintf(stderr, " %s %u x %.3f ms;", names[i], count[i], ms[i]);
        if (not_queried || not_released)
            fprintf(stderr, " %u events could not be queried, %u not released", not_queried, not_released);
        fputc('\n', stderr);
    }
    ctx->nevents = 0;
}

/* ---- the sort calls ------------------------------------------------------------------------ */

/* CLQSORT_STABLE: the arguments of the key type's pack and unpack kernels (cl/stable.cl). */
static clqsort_status set_stable_args(clqsort_context *ctx, const clq_plan *plan)
{
    const cl_kernel ks[2] = {plan->stable->stable_pack, plan->stable->stable_unpack};
    for (int i = 0; i < 2; i++) {
        const char *name = i ? "stable_unpack_kernel" : "stable_pack_kernel";
        CLQ_CL(ctx, name, clSetKernelArg, (ks[i], 0, sizeof(cl_mem), &plan->stable_keys));
        CLQ_CL(ctx, name, clSetKernelArg, (ks[i], 1, sizeof(cl_mem), &ctx->packed));
        CLQ_CL(ctx, name, clSetKernelArg, (ks[i], 2, sizeof(cl_ulong), &plan->stable_offset));
        CLQ_CL(ctx, name, clSetKernelArg, (ks[i], 3, sizeof(cl_uint), &plan->count));
    }
    return CLQSORT_SUCCESS;
}

/* Packs or unpacks the keys of a stable sort: a grid that fills the device, each work-item
 * taking keys in turn. */
static clqsort_status launch_stable(clqsort_context *ctx, const clq_plan *plan, cl_kernel k, const char *name)
{
    if (plan->count == 0) /* a segmented sort of no keys: nothing to pack */
        return CLQSORT_SUCCESS;
    const clq_tuning *t = &plan->stable->tuning;
    return enqueue_kernel(ctx, k, name, -1, fill_groups(ctx, t, plan->count), t->gq_wg);
}

/* Whether a selecting partial sort launches kernel i of clq_select_names: the one-group sort, or
 * the sort of the gather's buckets and the placement's two. */
static int select_launches(const clq_plan *plan, int i)
{
    return i == CLQ_SELECT_SORT    ? select_in_one_group(plan)
           : i >= CLQ_SELECT_STASH ? !select_in_one_group(plan)
                                   : 1;
}

/* A selecting partial sort (cl/select.cl): the arguments its kernels share, set on those it
 * launches (the launch number 0 here; launch_select_kernel sets it where a kernel reads it). */
static clqsort_status set_select_args(clqsort_context *ctx, const clq_plan *plan)
{
    const cl_mem values = plan->select_value_bytes ? plan->select_values : NULL;
    const cl_uint cap = plan->count;
    for (int i = 0; i < CLQ_SELECT_KERNELS; i++) {
        if (!select_launches(plan, i))
            continue;
        const cl_kernel k = plan->select->select[i];
        const char *name = clq_select_names[i];
        CLQ_CL(ctx, name, clSetKernelArg, (k, 0, sizeof(cl_mem), &plan->select_keys));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 1, sizeof(cl_mem), &values));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 2, sizeof(cl_mem), &ctx->select));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 3, sizeof(cl_mem), &ctx->packed));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 4, sizeof(cl_mem), &ctx->status));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 5, sizeof(cl_ulong), &plan->select_key_offset));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 6, sizeof(cl_ulong), &plan->select_value_offset));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 7, sizeof(cl_uint), &plan->select_count));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 8, sizeof(cl_uint), &plan->topk));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 9, sizeof(cl_uint), &plan->select_pbits));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 10, sizeof(cl_uint), &cap));
        CLQ_CL(ctx, name, clSetKernelArg, (k, 11, sizeof(cl_uint), &(cl_uint){0}));
    }
    return CLQSORT_SUCCESS;
}

/* Kernel i of the selection over `items` items, taken in turn by a grid that fills the device;
 * the counts of a level by at most select_groups_per_cu groups per compute unit, as each group
 * adds its whole histogram to the global one (CLQ_SEL_BINS atomics). A level, the gather and the
 * one-group sort learn their place in the selection's launches (cl/select.cl) from `launch`. */
static clqsort_status launch_select_kernel(clqsort_context *ctx, const clq_plan *plan, int i, size_t items,
                                           cl_uint launch)
{
    const clq_tuning *t = &plan->select->select_tuning;
    if (i == CLQ_SELECT_HIST || i == CLQ_SELECT_GATHER || i == CLQ_SELECT_SORT)
        CLQ_CL(ctx, clq_select_names[i], clSetKernelArg, (plan->select->select[i], 11, sizeof launch, &launch));
    size_t groups = fill_groups(ctx, t, items);
    if (i == CLQ_SELECT_HIST && groups > (size_t)ctx->compute_units * t->select_groups_per_cu)
        groups = (size_t)ctx->compute_units * t->select_groups_per_cu;
    return enqueue_kernel(ctx, plan->select->select[i], clq_select_names[i], CLQ_SORT_PHASES + i, groups, t->gq_wg);
}

/* A launch of one group of kernel k that may bring the status words (CLQ_WORDS_PARAMS, from
 * argument `first`): the words and the caller's events where the round's words come with it
 * (`brings`), else none (its arguments say so: they outlast the launch). */
static clqsort_status launch_with_words(clqsort_context *ctx, const clq_plan *plan, int brings, cl_kernel k,
                                        const char *name, int phase, cl_uint first, size_t wg)
{
    _Static_assert(CLQ_ST_WORDS <= 40, "CLQ_WORDS_PARAMS hold 40 status words");
    cl_uint words[40] = {0};
    if (brings)
        memcpy(words, plan->slot->in, CLQ_ST_WORDS * sizeof(cl_uint));
    const cl_uint nwords = brings ? CLQ_ST_WORDS : 0u;
    CLQ_CL(ctx, name, clSetKernelArg, (k, first, 16 * sizeof(cl_uint), words));
    CLQ_CL(ctx, name, clSetKernelArg, (k, first + 1, 16 * sizeof(cl_uint), words + 16));
    CLQ_CL(ctx, name, clSetKernelArg, (k, first + 2, 8 * sizeof(cl_uint), words + 32));
    CLQ_CL(ctx, name, clSetKernelArg, (k, first + 3, sizeof nwords, &nwords));
    return enqueue_kernel_after(ctx, k, name, phase, 1, wg, brings ? plan->nwait : 0, brings ? plan->wait : NULL);
}

/* The selection's first launch: its twelve shared arguments, then the words'. */
static clqsort_status launch_sample(clqsort_context *ctx, const clq_plan *plan)
{
    return launch_with_words(ctx, plan, plan->words_by_launch, plan->select->select[CLQ_SELECT_SAMPLE],
                             clq_select_names[CLQ_SELECT_SAMPLE], CLQ_SORT_PHASES + CLQ_SELECT_SAMPLE, 12,
                             plan->select->select_tuning.gq_wg);
}

/* The relauncher: its ten buffers, then the words' (never after a selection: words_by_launch). */
clqsort_status clq_launch_relauncher(clqsort_context *ctx, const clq_plan *plan)
{
    const clq_program *p = plan->prog;
    const clq_kernel_desc *d = &clq_kernel_table[kernel_index(p, p->relauncher)];
    return launch_with_words(ctx, plan, plan->words_by_launch, p->relauncher, d->name, d->phase, 10, p->tuning.rl_wg);
}

/* The selection's levels for any input (cl/select.cl). After a level the range holds the k-th
 * composite, so fewer than k lie below it, and at most 2^width inside it (composites are
 * distinct): the pick is done once k - 1 + 2^width <= cap, which the range of every composite
 * (32 + pbits bits) reaches in the levels returned, plus one where a sampled first range may
 * hold too few and the first level start again (CLQ_SEL_RANK below k). */
static unsigned select_levels(const clq_plan *plan)
{
    const cl_ulong k = plan->topk, cap = plan->count; /* cap >= 2 k */
    unsigned width = 32 + plan->select_pbits, levels = 0, fits = 0; /* 2^fits <= cap - k + 1 */
    while (fits < 63 && ((cl_ulong)2 << fits) <= cap - k + 1)
        fits++;
    do {
        width = width > CLQ_SEL_BITS ? width - CLQ_SEL_BITS : 0;
        levels++;
    } while (width > fits);
    return levels + (CLQ_SEL_RANK((cl_ulong)plan->select_count, k) < k);
}

/* Before the sort of the candidates: in a first round the first range from a sample (launch 0,
 * which clears the selection's words); the levels select_from to select_to, which narrow it
 * (those after the last needed return at once); the gathering (the launch after them, which
 * clears the placement's marks); for k above the one group's, the sort of the gather's buckets
 * (which returns at once where it made none). A later round goes on from the levels before it,
 * whose state and counts the selection's words keep. */
static clqsort_status launch_selection(clqsort_context *ctx, const clq_plan *plan)
{
    if (plan->select_from == 1)
        CLQ_TRY(launch_sample(ctx, plan));
    for (unsigned level = plan->select_from; level <= plan->select_to; level++)
        CLQ_TRY(launch_select_kernel(ctx, plan, CLQ_SELECT_HIST, plan->select_count, level));
    CLQ_TRY(launch_select_kernel(ctx, plan, CLQ_SELECT_GATHER, plan->select_count, plan->select_to + 1));
    if (select_in_one_group(plan))
        return CLQSORT_SUCCESS;
    return launch_select_kernel(ctx, plan, CLQ_SELECT_BUCKETS, plan->count, 0); /* if the gather made any */
}

/* After the sort of the candidates: the answer into the first k positions, the keys there into
 * its places. */
static clqsort_status launch_placement(clqsort_context *ctx, const clq_plan *plan)
{
    CLQ_TRY(launch_select_kernel(ctx, plan, CLQ_SELECT_STASH, plan->topk, 0));
    return launch_select_kernel(ctx, plan, CLQ_SELECT_PLACE, plan->topk, 0);
}

/* What a public call adds to a sort of device buffers: segments, and for clqsort_enqueue_* the
 * caller's events (enqueue 0: the call waits for the sort and reports its verdict). */
typedef struct sort_call {
    cl_mem seg_begin, seg_end;
    size_t segments; /* 0 with segmented 0: one sequence */
    int segmented;
    int partial;     /* a partial sort of the first k positions */
    size_t k;
    int enqueue;
    cl_uint nwait;
    const cl_event *wait;
    cl_event *event;
} sort_call;

static const sort_call blocking = {NULL, NULL, 0, 0, 0, 0, 0, 0, NULL, NULL};

/* The levels a selection's first round enqueues (select_from = 1 to this). A blocking call
 * enqueues plan->select_first_levels: one is enough for most integer keys (uniform keys at
 * every k), while select_levels counts the levels of the widest first range and of a sample
 * that falls short, each an idle launch of 0.005-0.008 ms on an H200 where the first level was
 * enough (docs/PERFORMANCE.md). Float keys take two: their first range reaches from -inf, so
 * where floats crowd (spread evenly in value: the k smallest in one exponent) the bin of the
 * k-th holds too many for one level (2^26 keys: about half a million). The gather of a round
 * whose levels were too few moves nothing and says so in the status words; the call then
 * enqueues the rest (run_sort), one more wait. An enqueued call cannot go on after its return:
 * it enqueues every level at once. */
static unsigned select_first_round(const clq_plan *plan, const sort_call *call)
{
    const unsigned all = select_levels(plan);
    return call->enqueue || plan->select_first_levels > all ? all : plan->select_first_levels;
}

/* The phase-one levels a host-loop sort's first round enqueues. A blocking sort (but a partial
 * sort, whose levels refine only where position k lies) enqueues those that uniform keys need and the
 * tuning's level_margin more, since each level it did not need costs two launches that find no
 * work (0.005-0.008 ms each on an H200, and as long for the host to enqueue). Where phase one
 * is unfinished after them, phase two returns at once (lqsort.cl), and the call enqueues more
 * levels and phase two again (run_sort, next_round_levels), one more wait. The device-enqueue path launches
 * exactly the levels it needs; an enqueued call cannot go on after its return: both take them all. */
static unsigned first_round_levels(const clqsort_context *ctx, const clq_plan *plan, const sort_call *call,
                                   clqsort_key_type type)
{
    if (ctx->path != CLQSORT_PATH_HOST_LOOP || call->enqueue || call->partial || plan->tiles)
        return plan->levels;
    /* float and double roots take slices of the values where those crowd the code range
     * (relauncher.cl), which take no bit off it and come out less even than equal slices of
     * codes: one level more.
     * (Before the sequences after a root in value slices took them too, 2^26 uniform doubles
     * took 4 levels and were counted as twice the keys as well, call 242; now they take 2 or 3,
     * and gaussian, power-law, sawtooth and upper-bits doubles 3, on pocl with NVIDIA's tuning.) */
    const unsigned slices = type == CLQSORT_KEY_FLOAT || type == CLQSORT_KEY_DOUBLE;
    const unsigned first = clq_first_levels(&plan->prog->tuning, plan->count, plan->levels) + slices;
    return first < plan->levels ? first : plan->levels;
}

/* The phase-one levels a host-loop sort's next round enqueues where the last stopped short: those
 * uniform keys as many as its sequences' blocks hold would need (clq_first_levels; at least the
 * longest sequence's keys, no root slices any more), the tuning's level_margin more, and one
 * more, as those keys have split worse than uniform ones so far; a round that falls short again
 * is followed by another. Enqueuing every level left launched the empty ones after the last with
 * work: double few-16 keys at 2^24 took 4 levels on the H200 and their second round enqueued 6,
 * 10 empty launches (call 260, docs/PERFORMANCE.md). Without the one more, double power-law keys
 * at 2^26 took a third round on pocl with NVIDIA's tuning. A stable sort still enqueues every
 * level left: each round ends with stable_unpack_kernel, a pass over all its keys. */
static unsigned next_round_levels(const clq_plan *plan)
{
    if (plan->stable)
        return plan->levels;
    const clq_tuning *t = &plan->prog->tuning;
    const size_t keys = (size_t)plan->slot->out[CLQ_ST_CUR_BLOCKS] * t->gq_wg * t->gq_k;
    const unsigned left = plan->levels - plan->level_to;
    const unsigned need = clq_first_levels(t, keys, left) + 1u;
    return plan->level_to + (need < left ? need : left);
}

/* The spread path's groups for a sort on the tile path (path_host_loop.c, cl/tiles.cl), or 0:
 * blocking sorts of keys or pairs of more than one tile, where the tuning has it: a group per
 * `spread` keys (tuning.c keeps the table's at most a quarter of lq_max). Where a group's keys
 * do not fit, the tile path sorts them again, which an enqueued call cannot do after its return. */
static cl_uint spread_groups(const clq_plan *plan, const sort_call *call)
{
    const clq_tuning *t = &plan->prog->tuning;
    if (plan->tiles < 2 || !t->spread || call->enqueue || plan->stable || plan->select)
        return 0;
    return (cl_uint)((plan->count + t->spread - 1) / t->spread);
}

/* The keys and values of a sort, between the caller's buffers and scratch: the spread path reads
 * them from scratch, and where a group spilled the tile path sorts them again from the caller's. */
static clqsort_status copy_elements(clqsort_context *ctx, const clq_plan *plan, int to_scratch)
{
    const size_t kb = plan->code_bits / 8, vb = plan->prog->tuning.value_bytes, n = plan->count;
    /* [0] the caller's, [1] scratch */
    const cl_mem keys[2] = {plan->keys, ctx->scratch}, values[2] = {plan->values, ctx->scratch_values};
    const size_t key_at[2] = {(size_t)plan->key_offset * kb, 0}, value_at[2] = {(size_t)plan->value_offset * vb, 0};
    const int from = !to_scratch, to = to_scratch;
    CLQ_CL(ctx, "the keys", clEnqueueCopyBuffer,
           (ctx->queue, keys[from], keys[to], key_at[from], key_at[to], n * kb, 0, NULL, NULL));
    if (plan->values)
        CLQ_CL(ctx, "the values", clEnqueueCopyBuffer,
               (ctx->queue, values[from], values[to], value_at[from], value_at[to], n * vb, 0, NULL, NULL));
    return CLQSORT_SUCCESS;
}

clqsort_status clq_spread_in(clqsort_context *ctx, const clq_plan *plan) { return copy_elements(ctx, plan, 1); }

/* A call's first round: the selection's first levels and phase one's (a repeat starts over). */
static void first_round(const clqsort_context *ctx, clq_plan *plan, const sort_call *call, clqsort_key_type type)
{
    plan->select_from = 1;
    plan->select_to = plan->select ? select_first_round(plan, call) : 0;
    plan->level_from = 0;
    plan->level_to = first_round_levels(ctx, plan, call, type);
}

/* One round of a sort's commands in its slot (taken): the status inputs after the caller's
 * events, the kernels, the status outputs' read, and for an enqueue call the event of that
 * read. A selection enqueues its levels select_from to select_to. */
static clqsort_status enqueue_round(clqsort_context *ctx, clq_plan *plan, const sort_call *call)
{
    const int more = plan->level_from > 0; /* a round that goes on with phase one's levels: the
                                              device's state stays as the last round left it */
    plan->slot->seq_cap = plan->seq_cap;
    plan->slot->leaf_cap = plan->leaf_cap;
    plan->slot->selecting = plan->select != NULL;
    if (more)
        plan->words_by_launch = 0; /* the last round's are in place */
    clqsort_status s = more ? CLQSORT_SUCCESS : start_sort(ctx, plan, call->nwait, call->wait);
    plan->slot->may_stop_short = !call->enqueue && plan->select && plan->select_to < select_levels(plan);
    plan->slot->may_spill = plan->spread != 0;
    plan->slot->levels_short = plan->level_to < plan->levels;
    if (s == CLQSORT_SUCCESS && plan->stable && !more)
        s = launch_stable(ctx, plan, plan->stable->stable_pack, "stable_pack_kernel");
    if (s == CLQSORT_SUCCESS && plan->select)
        s = launch_selection(ctx, plan);
    if (s == CLQSORT_SUCCESS && plan->segments && !more)
        s = launch_segments(ctx, plan);
    if (s == CLQSORT_SUCCESS && select_in_one_group(plan)) /* the launch after the gather */
        s = launch_select_kernel(ctx, plan, CLQ_SELECT_SORT, 1, plan->select_to + 2);
    else if (s == CLQSORT_SUCCESS)
        s = ctx->path == CLQSORT_PATH_DEVICE_ENQUEUE ? clq_run_device_enqueue(ctx, plan) : clq_run_host_loop(ctx, plan);
    if (s == CLQSORT_SUCCESS && plan->stable)
        s = launch_stable(ctx, plan, plan->stable->stable_unpack, "stable_unpack_kernel");
    if (s == CLQSORT_SUCCESS && plan->select && !select_in_one_group(plan))
        s = launch_placement(ctx, plan);
    if (s == CLQSORT_SUCCESS)
        s = clq_read_status(ctx, plan->slot);
    if (s == CLQSORT_SUCCESS && call->event) {
        const cl_int err = clRetainEvent(plan->slot->done);
        if (err != CL_SUCCESS)
            s = clq_fail_cl(ctx, err, "clRetainEvent", "the sort's event");
        else
            *call->event = plan->slot->done;
    }
    plan->slot->stats = ctx->stats;
    return s;
}

/* A validated sort (plan: the caller's buffers and offsets): program, scratch and kernel
 * arguments, none of which touches the caller's buffers, then the sort's commands in a slot
 * (pending.c), and for a blocking call the wait for its verdict. */
static clqsort_status run_sort(clqsort_context *ctx, clq_plan *plan, size_t count, clqsort_key_type type,
                               size_t value_bytes, unsigned flags, const sort_call *call)
{
    double host[4] = {0}; /* CLQSORT_PROFILE: start, enqueueing, all enqueued, waited (with more
                             rounds: the last's enqueueing; the earlier waits count as enqueueing) */
    if (ctx->profile)
        host[0] = host_ms();
    /* the largest plain sorts take a program with twice the phase-one ways (clq_tuning_of_sort) */
    const int plain = !call->segmented && !call->partial && !plan->stable && !plan->select;
    clq_tuning t;
    int wide;
    CLQ_TRY(clq_tuning_of_sort(ctx, type, (unsigned)value_bytes, count, plain, &t, &wide));
    CLQ_TRY(clq_get_program(ctx, type, (flags & CLQSORT_DESCENDING) != 0, (unsigned)value_bytes, wide, &plan->prog));
    ctx->stats.phase_one_ways = plan->prog->tuning.gq_ways;
    plan->count = (cl_uint)count;
    scratch_request r[SCRATCH_REQUESTS];
    CLQ_TRY(scratch_requests(ctx, &plan->prog->tuning, count, type, value_bytes, plan, r));
    const cl_ulong caller_bytes = plan->select   ? (cl_ulong)plan->select_count * (4 + plan->select_value_bytes)
                                  : plan->stable ? (cl_ulong)count * (4 + value_bytes)
                                                 : (cl_ulong)count * (clq_key_bytes(type) + value_bytes);
    CLQ_TRY(ensure_scratch(ctx, r, caller_bytes));
    if (plan->stable || plan->select) { /* the 64-bit sort runs on packed keys or candidates */
        plan->keys = ctx->packed;
        plan->key_offset = 0;
    }
    if (plan->stable)
        CLQ_TRY(set_stable_args(ctx, plan));
    if (plan->select)
        CLQ_TRY(set_select_args(ctx, plan));
    if (!select_in_one_group(plan)) /* which sorts no keys with the program */
        CLQ_TRY(set_buffer_args(ctx, plan));
    first_round(ctx, plan, call, type);
    plan->spread = spread_groups(plan, call);
    plan->attempt = 0;
    ctx->enqueuing = call->enqueue;
    if (ctx->profile)
        host[1] = host_ms();
    clqsort_status s;
    for (;;) { /* one round; another where the last one's selection or phase one stopped short */
        if ((s = clq_take_slot(ctx, clq_current_api(), &plan->slot)) != CLQSORT_SUCCESS)
            break;
        if (plan->select_from > 1) /* a second round of the same call keeps its number */
            plan->slot->serial = --ctx->serial;
        s = enqueue_round(ctx, plan, call);
        if (ctx->profile)
            host[2] = host_ms();
        if (s != CLQSORT_SUCCESS) {
            /* nothing of this sort may run on after it returns; the first failure is the message */
            (void)clFinish(ctx->queue);
            clq_append(ctx, "; the keys may have changed");
            clq_drop_slot(ctx, plan->slot);
            break;
        }
        /* every kernel that used a bucket record clears it, so a sort found successful leaves
         * the pool clear; one that is only enqueued is not known to be yet */
        if (plan->records)
            ctx->pool_clear = !call->enqueue;
        if (plan->segments)
            ctx->windows_clear = !call->enqueue;
        if (call->enqueue)
            break;
        if ((s = clq_collect_all(ctx, 1)) != CLQSORT_SUCCESS) {
            (void)clFinish(ctx->queue); /* a failed wait: nothing of the sort may run on after the return */
            if (s != CLQSORT_ERROR_INTERNAL || !clq_repeatable(plan->slot))
                break;
            if (++plan->attempt >= CLQ_SORT_ATTEMPTS) {
                clq_append(ctx, "; the device refused the launch in each of %u tries", CLQ_SORT_ATTEMPTS);
                break;
            }
            /* the device could not launch its chain before any key moved: the whole sort again,
             * after a pause that grows fourfold with each try. What refused the launch is the
             * runtime's, shared with other sorts and programs (on Intel's CPU runtime: three
             * tries in a row failed while 8 threads sorted), so it is given time to drain. */
            ctx->stats.repeats++;
            clq_pause_ms(1u << (2u * (plan->attempt - 1u)));
            first_round(ctx, plan, call, type);
            continue;
        }
        if (!clq_stopped_short(plan->slot))
            break;
        if (plan->spread) { /* a group's keys did not fit: the tile path, from the keys as they came */
            if ((s = copy_elements(ctx, plan, 0)) != CLQSORT_SUCCESS) {
                (void)clFinish(ctx->queue);
                clq_append(ctx, "; the keys may have changed");
                break;
            }
            plan->spread = 0;
            ctx->stats.spilled = 1;
        } else if (plan->select) { /* the selection stopped short: its levels left */
            plan->select_from = plan->select_to + 1;
            plan->select_to = select_levels(plan);
        } else { /* phase one stopped short: the levels its sequences left need */
            const unsigned to = next_round_levels(plan);
            plan->level_from = plan->level_to;
            plan->level_to = to;
        }
    }
    if (ctx->profile)
        host[3] = host_ms();
    finish_profile(ctx, plan, s, host);
    ctx->enqueuing = 0;
    return s;
}

/* The caller's events: a list and its length agree (CL_INVALID_EVENT_WAIT_LIST in OpenCL). */
static clqsort_status check_events(clqsort_context *ctx, const sort_call *call)
{
    if ((call->nwait == 0) != (call->wait == NULL))
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "num_events_in_wait_list is %u but event_wait_list is %s",
                        call->nwait, call->wait ? "not NULL" : "NULL");
    return CLQSORT_SUCCESS;
}

/* A call with nothing to sort: an enqueue that asks for an event gets one that completes after
 * the caller's events, a marker followed in a slot like any sort (clqsort_finish waits for it;
 * its status words stay zero, which reads as success). */
static clqsort_status nothing_to_sort(clqsort_context *ctx, const sort_call *call)
{
    memset(&ctx->stats, 0, sizeof ctx->stats);
    ctx->last_stats = ctx->stats;
    if (!call->event)
        return CLQSORT_SUCCESS;
    clq_pending *slot;
    CLQ_TRY(clq_take_slot(ctx, clq_current_api(), &slot));
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, call->nwait, call->wait, &slot->done);
    clqsort_status s = err == CL_SUCCESS ? CLQSORT_SUCCESS : clq_fail_cl(ctx, err, "clEnqueueMarkerWithWaitList", "the sort's event");
    if (s == CLQSORT_SUCCESS && (err = clRetainEvent(slot->done)) != CL_SUCCESS)
        s = clq_fail_cl(ctx, err, "clRetainEvent", "the sort's event");
    if (s != CLQSORT_SUCCESS) {
        if (slot->done)
            (void)clWaitForEvents(1, &slot->done); /* nothing of the call runs on after it */
        clq_drop_slot(ctx, slot);
        return s;
    }
    *call->event = slot->done;
    return CLQSORT_SUCCESS;
}

/* Whether a partial sort selects before it sorts (cl/select.cl): keys of 32 bits in one
 * sequence, its kernels' local memory on the device, and k small enough that the candidates, at
 * most 2 k + select_slack (*cap), are a quarter of the keys or fewer. Otherwise the partial sort is the whole sort that stops refining
 * past k (gqsort.cl). */
static int select_first(clqsort_context *ctx, const sort_call *call, size_t count, clqsort_key_type type, size_t *cap)
{
    clq_tuning t;
    if (call->segmented || clq_key_bytes(type) != 4 || !ctx->has_int64_atomics ||
        clq_tuning_of(ctx, type, 0, &t) != CLQSORT_SUCCESS ||
        clq_select_local_bytes(&t) > clq_device_local_bytes(ctx))
        return 0;
    *cap = 2 * call->k + t.select_slack;
    return *cap <= count / 4;
}

/* Every sort of device buffers: `count` keys from key `key_offset` of `keys`, and with
 * value_bytes 4 or 8 as many values from value `value_offset` of `values`; `call` adds segments
 * and events. */
static clqsort_status sort(clqsort_context *ctx, cl_mem keys, size_t key_offset, cl_mem values, size_t value_offset,
                           size_t count, clqsort_key_type type, size_t value_bytes, unsigned flags,
                           const sort_call *call)
{
    CLQ_TRY(check_arguments(ctx, count, type, value_bytes, flags));
    CLQ_TRY(check_events(ctx, call));
    clq_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.keys = keys;
    plan.key_offset = key_offset;
    if (value_bytes) {
        plan.values = values;
        plan.value_offset = value_offset;
    }
    CLQ_TRY(check_buffers(ctx, &plan, count, type, value_bytes));
    if (call->segmented) {
        if (call->segments > CLQSORT_MAX_COUNT - 1)
            return clq_fail(ctx, CLQSORT_ERROR_COUNT_TOO_LARGE, "%zu segments; at most %zu", call->segments,
                            CLQSORT_MAX_COUNT - 1);
        const size_t nbegin = call->segments + (call->seg_end ? 0 : 1);
        CLQ_TRY(check_offsets(ctx, &plan, call->seg_begin, "segment_begin", nbegin, count, type, value_bytes));
        if (call->seg_end)
            CLQ_TRY(check_offsets(ctx, &plan, call->seg_end, "segment_end", call->segments, count, type, value_bytes));
        plan.seg_begin = call->seg_begin;
        plan.seg_end = call->seg_end;
        plan.segments = (cl_uint)call->segments;
    }
    if (call->partial && call->k > count)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "k %zu is larger than count %zu", call->k, count);
    plan.topk = (cl_uint)(call->partial ? call->k : count);
    /* a segmented sort of under two keys still has its offsets checked on the device */
    if (call->segmented ? call->segments == 0 : count < 2 || plan.topk == 0)
        return nothing_to_sort(ctx, call);
    memset(&ctx->stats, 0, sizeof ctx->stats);
    size_t cap;
    if (call->partial && select_first(ctx, call, count, type, &cap)) {
        /* the k smallest of the composites (code, position): stable by construction */
        clq_program *kp;
        CLQ_TRY(clq_get_program(ctx, type, (flags & CLQSORT_DESCENDING) != 0, (unsigned)value_bytes, 0, &kp));
        CLQ_TRY(clq_get_select(ctx, kp));
        plan.select = kp;
        plan.select_keys = plan.keys;
        plan.select_values = plan.values;
        plan.select_key_offset = plan.key_offset;
        plan.select_value_offset = plan.value_offset;
        plan.select_count = (cl_uint)count;
        plan.select_value_bytes = (cl_uint)value_bytes;
        plan.select_first_levels = type == CLQSORT_KEY_FLOAT ? 2 : 1;
        plan.values = NULL;
        plan.value_offset = 0;
        while ((cl_ulong)1 << plan.select_pbits < count)
            plan.select_pbits++;
        return run_sort(ctx, &plan, cap, CLQSORT_KEY_UINT64, 0, 0, call);
    }
    if (flags & CLQSORT_STABLE) { /* (code, position) as 64-bit keys, the order in the codes */
        clq_program *kp;
        CLQ_TRY(clq_get_program(ctx, type, (flags & CLQSORT_DESCENDING) != 0, 0, 0, &kp));
        plan.stable = kp;
        plan.stable_keys = plan.keys;
        plan.stable_offset = plan.key_offset;
        return run_sort(ctx, &plan, count, CLQSORT_KEY_UINT64, value_bytes, 0, call);
    }
    return run_sort(ctx, &plan, count, type, value_bytes, flags, call);
}

clqsort_status clqsort_sort(clqsort_context *ctx, cl_mem keys, size_t count, clqsort_key_type type, unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_sort"));
    return clq_leave(ctx, sort(ctx, keys, 0, NULL, 0, count, type, 0, flags, &blocking));
}

clqsort_status clqsort_sort_at(clqsort_context *ctx, cl_mem keys, size_t keys_offset, size_t count,
                               clqsort_key_type type, unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_sort_at"));
    return clq_leave(ctx, sort(ctx, keys, keys_offset, NULL, 0, count, type, 0, flags, &blocking));
}

/* value_size 0 would be a sort of keys alone: refused by the pairs calls */
static clqsort_status sort_pairs(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                 size_t values_offset, size_t count, clqsort_key_type key_type, size_t value_size,
                                 unsigned flags)
{
    if (value_size == 0)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "value_size 0; values are 4 or 8 bytes");
    return sort(ctx, keys, keys_offset, values, values_offset, count, key_type, value_size, flags, &blocking);
}

clqsort_status clqsort_sort_pairs(clqsort_context *ctx, cl_mem keys, cl_mem values, size_t count,
                                  clqsort_key_type key_type, size_t value_size, unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_sort_pairs"));
    return clq_leave(ctx, sort_pairs(ctx, keys, 0, values, 0, count, key_type, value_size, flags));
}

clqsort_status clqsort_sort_pairs_at(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                     size_t values_offset, size_t count, clqsort_key_type key_type,
                                     size_t value_size, unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_sort_pairs_at"));
    return clq_leave(ctx,
                     sort_pairs(ctx, keys, keys_offset, values, values_offset, count, key_type, value_size, flags));
}

/* The calls that take values or not, on device buffers or host arrays: value_size 0 needs values
 * NULL, and the other way round. */
static clqsort_status check_optional_values(clqsort_context *ctx, const void *values, size_t value_size)
{
    if (value_size == 0 && values)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "values given with value_size 0");
    if (value_size != 0 && !values)
        return clq_fail(ctx, CLQSORT_ERROR_NULL_BUFFER, "values is NULL with value_size %zu", value_size);
    return CLQSORT_SUCCESS;
}

/* After that check, as sort(). */
static clqsort_status sort_optional_values(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                           size_t values_offset, size_t count, clqsort_key_type type,
                                           size_t value_size, unsigned flags, const sort_call *call)
{
    CLQ_TRY(check_optional_values(ctx, values, value_size));
    return sort(ctx, keys, keys_offset, values, values_offset, count, type, value_size, flags, call);
}

clqsort_status clqsort_sort_segments(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                     size_t values_offset, size_t count, clqsort_key_type key_type,
                                     size_t value_size, cl_mem segment_begin, cl_mem segment_end, size_t segments,
                                     unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_sort_segments"));
    const sort_call call = {segment_begin, segment_end, segments, 1, 0, 0, 0, 0, NULL, NULL};
    return clq_leave(ctx, sort_optional_values(ctx, keys, keys_offset, values, values_offset, count, key_type,
                                               value_size, flags, &call));
}

clqsort_status clqsort_partial_sort(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                    size_t values_offset, size_t count, clqsort_key_type key_type, size_t value_size,
                                    size_t k, unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_partial_sort"));
    const sort_call call = {NULL, NULL, 0, 0, 1, k, 0, 0, NULL, NULL};
    return clq_leave(ctx, sort_optional_values(ctx, keys, keys_offset, values, values_offset, count, key_type,
                                               value_size, flags, &call));
}

clqsort_status clqsort_enqueue_partial_sort(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                            size_t values_offset, size_t count, clqsort_key_type key_type,
                                            size_t value_size, size_t k, unsigned flags,
                                            cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                            cl_event *event)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_enqueue_partial_sort"));
    const sort_call call = {NULL, NULL, 0, 0, 1, k, 1, num_events_in_wait_list, event_wait_list, event};
    return clq_leave(ctx, sort_optional_values(ctx, keys, keys_offset, values, values_offset, count, key_type,
                                               value_size, flags, &call));
}

clqsort_status clqsort_enqueue_sort(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                    size_t values_offset, size_t count, clqsort_key_type key_type, size_t value_size,
                                    unsigned flags, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                    cl_event *event)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_enqueue_sort"));
    const sort_call call = {NULL, NULL, 0, 0, 0, 0, 1, num_events_in_wait_list, event_wait_list, event};
    return clq_leave(ctx, sort_optional_values(ctx, keys, keys_offset, values, values_offset, count, key_type,
                                               value_size, flags, &call));
}

clqsort_status clqsort_enqueue_sort_segments(clqsort_context *ctx, cl_mem keys, size_t keys_offset, cl_mem values,
                                             size_t values_offset, size_t count, clqsort_key_type key_type,
                                             size_t value_size, cl_mem segment_begin, cl_mem segment_end,
                                             size_t segments, unsigned flags, cl_uint num_events_in_wait_list,
                                             const cl_event *event_wait_list, cl_event *event)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_enqueue_sort_segments"));
    const sort_call call = {segment_begin, segment_end, segments, 1, 0, 0, 1, num_events_in_wait_list,
                            event_wait_list, event};
    return clq_leave(ctx, sort_optional_values(ctx, keys, keys_offset, values, values_offset, count, key_type,
                                               value_size, flags, &call));
}

/* Segments of a host-array sort: offsets in host memory (end NULL: the compressed form). */
typedef struct host_segments {
    const cl_uint *begin, *end;
    size_t segments;
} host_segments;

/* Host arrays: copied to device buffers the context keeps, sorted as `call` says (partial or
 * not; with segs, segmented by offsets copied the same way), copied back once the sort
 * succeeded (values NULL with value_bytes 0: keys alone). */
static clqsort_status sort_host(clqsort_context *ctx, void *keys, void *values, size_t count, clqsort_key_type type,
                                size_t value_bytes, unsigned flags, const sort_call *call, const host_segments *segs)
{
    if (!keys)
        return clq_fail(ctx, CLQSORT_ERROR_NULL_BUFFER, "keys is NULL");
    if (value_bytes && !values)
        return clq_fail(ctx, CLQSORT_ERROR_NULL_BUFFER, "values is NULL");
    if (segs && !segs->begin)
        return clq_fail(ctx, CLQSORT_ERROR_NULL_BUFFER, "segment_begin is NULL");
    CLQ_TRY(check_arguments(ctx, count, type, value_bytes, flags));
    if (count > SIZE_MAX / 8)
        return clq_fail(ctx, CLQSORT_ERROR_OUT_OF_MEMORY, "%zu keys take more bytes than size_t holds", count);
    const size_t bytes = count * clq_key_bytes(type), vbytes = count * value_bytes;
    const uintptr_t k = (uintptr_t)keys, v = (uintptr_t)values;
    if (vbytes && k < v + vbytes && v < k + bytes)
        return clq_fail(ctx, CLQSORT_ERROR_OVERLAPPING_BUFFERS,
                        "the keys (%zu bytes at %p) and values (%zu bytes at %p) share memory", bytes, keys, vbytes,
                        values);
    if (call->partial && call->k > count)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "k %zu is larger than count %zu", call->k, count);
    if (segs && segs->segments > CLQSORT_MAX_COUNT - 1)
        return clq_fail(ctx, CLQSORT_ERROR_COUNT_TOO_LARGE, "%zu segments; at most %zu", segs->segments,
                        CLQSORT_MAX_COUNT - 1);
    if (segs ? segs->segments == 0 : count < 2 || (call->partial && call->k == 0)) { /* nothing moves; segments
                                                                                      of fewer keys are checked */
        memset(&ctx->stats, 0, sizeof ctx->stats);
        ctx->last_stats = ctx->stats;
        return CLQSORT_SUCCESS;
    }
    sort_call c = *call;
    const size_t nbegin = segs ? segs->segments + (segs->end ? 0 : 1) : 0, nend = segs && segs->end ? segs->segments : 0;
    /* at least one key's bytes: a segmented sort of no keys still has a buffer to name */
    const scratch_request need[4] = {
        {&ctx->host_keys, &ctx->host_keys_bytes, bytes ? bytes : 8, "host-array"},
        {&ctx->host_values, &ctx->host_values_bytes, vbytes ? vbytes : (value_bytes ? 8 : 0), "host-values"},
        {&ctx->host_begin, &ctx->host_begin_bytes, nbegin * sizeof(cl_uint), "host segment-begin"},
        {&ctx->host_end, &ctx->host_end_bytes, nend * sizeof(cl_uint), "host segment-end"},
    };
    for (int i = 0; i < 4; i++)
        CLQ_TRY(grow(ctx, &need[i]));
    const struct { cl_mem buf; size_t bytes; const void *from; const char *what; } writes[4] = {
        {ctx->host_keys, bytes, keys, "keys"},
        {ctx->host_values, vbytes, values, "values"},
        {ctx->host_begin, nbegin * sizeof(cl_uint), segs ? segs->begin : NULL, "segment_begin"},
        {ctx->host_end, nend * sizeof(cl_uint), segs ? segs->end : NULL, "segment_end"},
    };
    clqsort_status s = CLQSORT_SUCCESS;
    for (int i = 0; i < 4 && s == CLQSORT_SUCCESS; i++) {
        const cl_int err = writes[i].bytes ? clEnqueueWriteBuffer(ctx->queue, writes[i].buf, CL_FALSE, 0, writes[i].bytes,
                                                                  writes[i].from, 0, NULL, NULL)
                                           : CL_SUCCESS;
        if (err != CL_SUCCESS)
            s = clq_fail_cl(ctx, err, "clEnqueueWriteBuffer", writes[i].what);
    }
    if (segs) {
        c.seg_begin = ctx->host_begin;
        c.seg_end = segs->end ? ctx->host_end : NULL;
    }
    if (s == CLQSORT_SUCCESS)
        s = sort(ctx, ctx->host_keys, 0, value_bytes ? ctx->host_values : NULL, 0, count, type, value_bytes, flags, &c);
    if (s != CLQSORT_SUCCESS) {
        (void)clFinish(ctx->queue); /* the writes must not read the arrays after the return */
        clq_append(ctx, " (in the device copy: the arrays are as they were)");
        return s;
    }
    /* the arrays are written only now, once the sort succeeded */
    if (bytes)
        CLQ_CL(ctx, "keys", clEnqueueReadBuffer, (ctx->queue, ctx->host_keys, CL_TRUE, 0, bytes, keys, 0, NULL, NULL));
    if (vbytes)
        CLQ_CL(ctx, "values", clEnqueueReadBuffer,
               (ctx->queue, ctx->host_values, CL_TRUE, 0, vbytes, values, 0, NULL, NULL));
    return CLQSORT_SUCCESS;
}

clqsort_status clqsort_sort_host(clqsort_context *ctx, void *keys, size_t count, clqsort_key_type type,
                                 unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_sort_host"));
    return clq_leave(ctx, sort_host(ctx, keys, NULL, count, type, 0, flags, &blocking, NULL));
}

clqsort_status clqsort_sort_pairs_host(clqsort_context *ctx, void *keys, void *values, size_t count,
                                       clqsort_key_type key_type, size_t value_size, unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_sort_pairs_host"));
    if (!keys || !values)
        return clq_leave(ctx, clq_fail(ctx, CLQSORT_ERROR_NULL_BUFFER, "%s is NULL", keys ? "values" : "keys"));
    if (value_size == 0)
        return clq_leave(ctx, clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "value_size 0; values are 4 or 8 bytes"));
    return clq_leave(ctx, sort_host(ctx, keys, values, count, key_type, value_size, flags, &blocking, NULL));
}

clqsort_status clqsort_partial_sort_host(clqsort_context *ctx, void *keys, void *values, size_t count,
                                         clqsort_key_type key_type, size_t value_size, size_t k, unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_partial_sort_host"));
    const sort_call call = {NULL, NULL, 0, 0, 1, k, 0, 0, NULL, NULL};
    clqsort_status s = check_optional_values(ctx, values, value_size);
    if (s == CLQSORT_SUCCESS)
        s = sort_host(ctx, keys, values, count, key_type, value_size, flags, &call, NULL);
    return clq_leave(ctx, s);
}

clqsort_status clqsort_sort_segments_host(clqsort_context *ctx, void *keys, void *values, size_t count,
                                          clqsort_key_type key_type, size_t value_size, const cl_uint *segment_begin,
                                          const cl_uint *segment_end, size_t segments, unsigned flags)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_sort_segments_host"));
    const sort_call call = {NULL, NULL, segments, 1, 0, 0, 0, 0, NULL, NULL};
    const host_segments segs = {segment_begin, segment_end, segments};
    clqsort_status s = check_optional_values(ctx, values, value_size);
    if (s == CLQSORT_SUCCESS)
        s = sort_host(ctx, keys, values, count, key_type, value_size, flags, &call, &segs);
    return clq_leave(ctx, s);
}

clqsort_status clqsort_scratch_bytes(clqsort_context *ctx, size_t count, clqsort_key_type type, size_t value_size,
                                     size_t *bytes)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_scratch_bytes"));
    clqsort_status s = check_arguments(ctx, count, type, value_size, 0);
    if (s == CLQSORT_SUCCESS && !bytes)
        s = clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "bytes is NULL");
    clq_tuning t;
    int wide;
    if (s == CLQSORT_SUCCESS)
        s = clq_tuning_of_sort(ctx, type, (unsigned)value_size, count, 1, &t, &wide);
    clq_plan plan;
    memset(&plan, 0, sizeof plan); /* a sort of one sequence, not stable */
    scratch_request r[SCRATCH_REQUESTS];
    if (s == CLQSORT_SUCCESS)
        s = scratch_requests(ctx, &t, count, type, value_size, &plan, r);
    if (s == CLQSORT_SUCCESS)
        *bytes = count < 2 ? 0 : scratch_total(r);
    return clq_leave(ctx, s);
}
