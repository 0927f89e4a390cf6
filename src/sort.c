/* sort.c - clqsort_sort: validation, record capacities, scratch memory, dispatch to a path. */
#include "clqsort_internal.h"

#include <stdio.h>
#include <string.h>

/* The checks of one buffer argument: a read-write buffer of this context holding `bytes`. */
static clqsort_status check_buffer(clqsort_context *ctx, cl_mem m, const char *name, size_t count, size_t elem_bytes)
{
    if (!m)
        return clq_fail(ctx, CLQSORT_ERROR_NULL_BUFFER, "clqsort: %s is NULL", name);
    cl_mem_object_type mtype;
    cl_context mctx;
    cl_mem_flags mflags;
    size_t msize;
    cl_int err = clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof mtype, &mtype, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof mctx, &mctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof mflags, &mflags, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof msize, &msize, NULL);
    if (err != CL_SUCCESS)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_BUFFER, "clGetMemObjectInfo on %s failed with %s (%d)", name,
                        clq_cl_error_name(err), (int)err);
    if (mtype != CL_MEM_OBJECT_BUFFER)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_BUFFER, "%s is a memory object of type 0x%x, not a buffer", name,
                        (unsigned)mtype);
    if (mctx != ctx->context)
        return clq_fail(ctx, CLQSORT_ERROR_WRONG_CONTEXT,
                        "%s was created in another OpenCL context than the one of this clqsort context "
                        "(use clqsort_cl_context() or clqsort_create_with_queue())",
                        name);
    if (mflags & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY))
        return clq_fail(ctx, CLQSORT_ERROR_BUFFER_ACCESS, "%s was created with %s; sorting needs CL_MEM_READ_WRITE", name,
                        (mflags & CL_MEM_READ_ONLY) ? "CL_MEM_READ_ONLY" : "CL_MEM_WRITE_ONLY");
    if (count > msize / elem_bytes)
        return clq_fail(ctx, CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER,
                        "%zu %s of %zu bytes need %zu bytes, but the buffer holds %zu (CL_MEM_SIZE)", count, name,
                        elem_bytes, count * elem_bytes, msize);
    return CLQSORT_SUCCESS;
}

/* The byte range of m inside its outermost buffer, to find overlapping sub-buffers. */
static void extent_of(cl_mem m, size_t bytes, cl_mem *root, size_t *begin, size_t *end)
{
    size_t offset = 0, off;
    cl_mem parent = NULL;
    *root = m;
    while (clGetMemObjectInfo(*root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) == CL_SUCCESS &&
           parent) {
        if (clGetMemObjectInfo(*root, CL_MEM_OFFSET, sizeof off, &off, NULL) == CL_SUCCESS)
            offset += off;
        *root = parent;
    }
    *begin = offset;
    *end = offset + bytes;
}

/* Every check runs before anything is enqueued, so a refused call leaves the buffers unchanged. */
static clqsort_status validate(clqsort_context *ctx, cl_mem keys, cl_mem values, size_t count, clqsort_key_type type,
                               size_t value_bytes, unsigned flags)
{
    if (!keys)
        return clq_fail(ctx, CLQSORT_ERROR_NULL_BUFFER, "clqsort_sort: keys is NULL");
    if ((int)type < 0 || (int)type >= CLQ_KEY_TYPES)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "clqsort_sort: %d is not a clqsort_key_type", (int)type);
    if (flags & ~CLQSORT_DESCENDING)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "clqsort_sort: unknown flags 0x%x",
                        flags & ~CLQSORT_DESCENDING);
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT,
                        "clqsort_sort_pairs: value_size %zu; values are 4 or 8 bytes", value_bytes);
    if (clq_key_bytes(type) == 8 && !ctx->has_int64_atomics)
        return clq_fail(ctx, CLQSORT_ERROR_UNSUPPORTED_TYPE,
                        "64-bit keys need cl_khr_int64_base_atomics and cl_khr_int64_extended_atomics, which "
                        "\"%s\" lacks",
                        ctx->device_name);
    if (count > CLQSORT_MAX_COUNT)
        return clq_fail(ctx, CLQSORT_ERROR_COUNT_TOO_LARGE, "count %zu exceeds CLQSORT_MAX_COUNT (%zu)", count,
                        CLQSORT_MAX_COUNT);
    clqsort_status s = check_buffer(ctx, keys, "keys", count, clq_key_bytes(type));
    if (s != CLQSORT_SUCCESS || !value_bytes)
        return s;
    if ((s = check_buffer(ctx, values, "values", count, value_bytes)) != CLQSORT_SUCCESS)
        return s;
    cl_mem kroot, vroot;
    size_t kb, ke, vb, ve;
    extent_of(keys, count * clq_key_bytes(type), &kroot, &kb, &ke);
    extent_of(values, count * value_bytes, &vroot, &vb, &ve);
    if (keys == values || (kroot == vroot && kb < ve && vb < ke && count > 0))
        return clq_fail(ctx, CLQSORT_ERROR_OVERLAPPING_BUFFERS,
                        "keys and values share memory (bytes %zu..%zu and %zu..%zu of one buffer)", kb, ke, vb, ve);
    return CLQSORT_SUCCESS;
}

/* Grows a cached device buffer to at least `bytes`. */
static clqsort_status ensure_buffer(clqsort_context *ctx, cl_mem *buf, size_t *have, size_t bytes, const char *what)
{
    if (*buf && *have >= bytes)
        return CLQSORT_SUCCESS;
    if (*buf) {
        clReleaseMemObject(*buf);
        *buf = NULL;
        *have = 0;
    }
    if (bytes > ctx->max_alloc_size)
        return clq_fail(ctx, CLQSORT_ERROR_OUT_OF_MEMORY,
                        "the %s buffer needs %zu bytes; the device allows %llu per allocation", what, bytes,
                        (unsigned long long)ctx->max_alloc_size);
    cl_int err;
    *buf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!*buf)
        return clq_fail(ctx, err == CL_INVALID_BUFFER_SIZE || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                                     err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY
                                 ? CLQSORT_ERROR_OUT_OF_MEMORY
                                 : CLQSORT_ERROR_OPENCL,
                        "clCreateBuffer(%zu bytes) for the %s buffer failed with %s (%d)", bytes, what,
                        clq_cl_error_name(err), (int)err);
    *have = bytes;
    return CLQSORT_SUCCESS;
}

/* Record capacities that no input can exceed:
 *  - a work list holds sequences longer than lq_max that do not overlap: at most n / (lq_max + 1);
 *  - a sequence of len keys gets at most max(2, 2 * ceil(2 len / lq_max)) < 4 len / lq_max + 2
 *    buckets (relauncher.cl), so one level's buckets number less than 6 n / lq_max + 2;
 *  - phase-two records: each count pass turns a bucket into at most one sort record or a run of
 *    equal keys, which becomes ceil(len / fill_chunk) fill records; a level has fewer buckets
 *    than the pool holds, and there are at most code_bits levels. Records never overlap, so
 *    there are also at most n of them. */
static void capacities(const clq_tuning *t, size_t n, unsigned code_bits, size_t *seq_cap, size_t *pool_cap,
                       size_t *leaf_cap)
{
    *seq_cap = n / ((size_t)t->lq_max + 1) + 1;
    *pool_cap = 6 * (n / t->lq_max) + 2 * (size_t)t->gq_ways + 2;
    size_t levels = code_bits;
    if (n <= t->lq_max)
        levels = 0; /* the root goes to phase two directly */
    size_t leaves = *pool_cap * levels + n / t->fill_chunk + 2;
    *leaf_cap = leaves < n ? leaves : n;
}

static clqsort_status sort(clqsort_context *ctx, cl_mem keys, cl_mem values, size_t count, clqsort_key_type type,
                           size_t value_bytes, unsigned flags)
{
    if (!ctx)
        return clq_fail(NULL, CLQSORT_ERROR_NULL_CONTEXT, "clqsort_sort: ctx is NULL");
    clqsort_status s = validate(ctx, keys, values, count, type, value_bytes, flags);
    if (s != CLQSORT_SUCCESS)
        return s;
    memset(&ctx->stats, 0, sizeof ctx->stats);
    if (count < 2) {
        ctx->last_stats = ctx->stats;
        return CLQSORT_SUCCESS;
    }

    clq_plan plan;
    memset(&plan, 0, sizeof plan);
    s = clq_get_program(ctx, type, (flags & CLQSORT_DESCENDING) != 0, (unsigned)value_bytes, &plan.prog);
    if (s != CLQSORT_SUCCESS)
        return s;
    plan.keys = keys;
    plan.values = value_bytes ? values : NULL;
    plan.count = (cl_uint)count;
    plan.code_bits = clq_code_bits(type);
    size_t seq_cap, pool_cap, leaf_cap;
    capacities(&plan.prog->tuning, count, plan.code_bits, &seq_cap, &pool_cap, &leaf_cap);
    plan.seq_cap = (cl_uint)seq_cap;
    plan.pool_cap = (cl_uint)pool_cap;
    plan.leaf_cap = (cl_uint)leaf_cap;

    const size_t code_bytes = plan.code_bits / 8;
    if ((s = ensure_buffer(ctx, &ctx->scratch, &ctx->scratch_bytes, count * clq_key_bytes(type), "scratch")) ||
        (value_bytes && (s = ensure_buffer(ctx, &ctx->scratch_values, &ctx->scratch_values_bytes,
                                           count * value_bytes, "value scratch"))) ||
        (s = ensure_buffer(ctx, &ctx->lists, &ctx->lists_bytes, 2 * seq_cap * CLQ_SEQ_RECORD_BYTES(code_bytes),
                           "work list")) ||
        (s = ensure_buffer(ctx, &ctx->pool, &ctx->pool_bytes, pool_cap * CLQ_BUCKET_RECORD_BYTES(code_bytes),
                           "bucket pool")) ||
        (s = ensure_buffer(ctx, &ctx->leaves, &ctx->leaves_bytes, leaf_cap * CLQ_LEAF_RECORD_BYTES(code_bytes),
                           "phase-two list")))
        return s;
    if (!ctx->status) {
        size_t have = 0;
        if ((s = ensure_buffer(ctx, &ctx->status, &have, CLQ_ST_WORDS * sizeof(cl_uint), "status")))
            return s;
    }
    s = ctx->path == CLQSORT_PATH_DEVICE_ENQUEUE ? clq_run_device_enqueue(ctx, &plan) : clq_run_host_loop(ctx, &plan);
    if (s == CLQSORT_SUCCESS)
        ctx->last_stats = ctx->stats;
    return s;
}

clqsort_status clqsort_sort(clqsort_context *ctx, cl_mem keys, size_t count, clqsort_key_type type, unsigned flags)
{
    return sort(ctx, keys, NULL, count, type, 0, flags);
}

clqsort_status clqsort_sort_pairs(clqsort_context *ctx, cl_mem keys, cl_mem values, size_t count,
                                  clqsort_key_type key_type, size_t value_size, unsigned flags)
{
    if (ctx && value_size == 0)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "clqsort_sort_pairs: value_size 0; values are 4 or 8 bytes");
    return sort(ctx, keys, values, count, key_type, value_size, flags);
}

/* ---- shared by the execution paths ------------------------------------------------------ */

/* Buffer arguments change with every sort (the caller's keys); the scalar ones were set when
 * the program was built. */
static cl_int set_buffer_args(const clqsort_context *ctx, const clq_plan *plan)
{
    const clq_program *p = plan->prog;
    const cl_mem svals = plan->values ? ctx->scratch_values : NULL;
    const cl_kernel all[] = {p->gqcount[0],    p->gqcount[1],    p->gqsort[0],     p->gqsort[1],
                             p->relauncher[0], p->relauncher[1], p->relauncher[2], p->lqsort};
    cl_int err = CL_SUCCESS;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        cl_uint a = 0;
        err |= clSetKernelArg(all[i], a++, sizeof(cl_mem), &plan->keys);
        err |= clSetKernelArg(all[i], a++, sizeof(cl_mem), &ctx->scratch);
        err |= clSetKernelArg(all[i], a++, sizeof(cl_mem), &plan->values);
        err |= clSetKernelArg(all[i], a++, sizeof(cl_mem), &svals);
        if (all[i] != p->lqsort) {
            err |= clSetKernelArg(all[i], a++, sizeof(cl_mem), &ctx->lists);
            err |= clSetKernelArg(all[i], a++, sizeof(cl_mem), &ctx->pool);
        }
        err |= clSetKernelArg(all[i], a++, sizeof(cl_mem), &ctx->leaves);
        err |= clSetKernelArg(all[i], a++, sizeof(cl_mem), &ctx->status);
    }
    return err;
}

cl_int clq_launch(clqsort_context *ctx, cl_kernel k, size_t groups, size_t wg)
{
    size_t global = groups * wg;
    ctx->stats.kernel_launches++;
    cl_event *ev = NULL;
    if (ctx->profile && ctx->nevents < 256) {
        ctx->event_kernels[ctx->nevents] = k;
        ev = &ctx->events[ctx->nevents++];
    }
    return clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, 0, NULL, ev);
}

/* Prints the device time of the last sort per kernel, from the launches' profiling events. */
static void print_profile(clqsort_context *ctx, const clq_plan *plan)
{
    const char *names[4] = {"gqcount_kernel", "gqsort_kernel", "relauncher_kernel", "lqsort_kernel"};
    double ms[4] = {0, 0, 0, 0};
    unsigned count[4] = {0, 0, 0, 0};
    cl_ulong first = 0, last = 0;
    for (unsigned i = 0; i < ctx->nevents; i++) {
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(ctx->events[i], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        clGetEventProfilingInfo(ctx->events[i], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        const cl_kernel k = ctx->event_kernels[i];
        const clq_program *p = plan->prog;
        const int kind = k == p->lqsort                               ? 3
                         : (k == p->gqcount[0] || k == p->gqcount[1]) ? 0
                         : (k == p->gqsort[0] || k == p->gqsort[1])   ? 1
                                                                      : 2;
        ms[kind] += (double)(t1 - t0) * 1e-6;
        count[kind]++;
        if (i == 0)
            first = t0;
        last = t1;
        clReleaseEvent(ctx->events[i]);
    }
    fprintf(stderr, "clqsort profile n=%u: first launch to last end %.3f ms;", plan->count, (double)(last - first) * 1e-6);
    for (int i = 0; i < 4; i++)
        fprintf(stderr, " %s %u x %.3f ms;", names[i], count[i], ms[i]);
    fprintf(stderr, "\n");
    ctx->nevents = 0;
}

cl_int clq_read_status(clqsort_context *ctx, size_t words)
{
    ctx->stats.host_round_trips++;
    return clEnqueueReadBuffer(ctx->queue, ctx->status, CL_TRUE, 0, words * sizeof(cl_uint), ctx->status_host, 0,
                               NULL, NULL);
}

clqsort_status clq_start_sort(clqsort_context *ctx, const clq_plan *plan)
{
    cl_uint *st = ctx->status_host;
    for (int i = 0; i < CLQ_ST_WORDS; i++)
        st[i] = 0;
    st[CLQ_ST_COUNT] = plan->count;
    st[CLQ_ST_SEQ_CAP] = plan->seq_cap;
    st[CLQ_ST_LEAF_CAP] = plan->leaf_cap;
    st[CLQ_ST_POOL_CAP] = plan->pool_cap;
    cl_int err = clEnqueueWriteBuffer(ctx->queue, ctx->status, CL_FALSE, 0, sizeof ctx->status_host, st, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clq_fail_cl(ctx, "clEnqueueWriteBuffer(status)", err);
    /* the kernels leave every bucket record they use cleared, but a sort the host abandoned
     * half-way would not; clearing the pool every time keeps each sort independent */
    const cl_uint zero = 0;
    err = clEnqueueFillBuffer(ctx->queue, ctx->pool, &zero, sizeof zero, 0,
                              (size_t)plan->pool_cap * CLQ_BUCKET_RECORD_BYTES(plan->code_bits / 8), 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clq_fail_cl(ctx, "clEnqueueFillBuffer(bucket pool)", err);
    if ((err = set_buffer_args(ctx, plan)) != CL_SUCCESS)
        return clq_fail_cl(ctx, "clSetKernelArg", err);
    return CLQSORT_SUCCESS;
}

clqsort_status clqsort_sort_host(clqsort_context *ctx, void *keys, size_t count, clqsort_key_type type,
                                 unsigned flags)
{
    if (!ctx)
        return clq_fail(NULL, CLQSORT_ERROR_NULL_CONTEXT, "clqsort_sort_host: ctx is NULL");
    if (!keys)
        return clq_fail(ctx, CLQSORT_ERROR_NULL_BUFFER, "clqsort_sort_host: keys is NULL");
    if ((int)type < 0 || (int)type >= CLQ_KEY_TYPES)
        return clq_fail(ctx, CLQSORT_ERROR_INVALID_ARGUMENT, "clqsort_sort_host: %d is not a clqsort_key_type",
                        (int)type);
    if (count > CLQSORT_MAX_COUNT)
        return clq_fail(ctx, CLQSORT_ERROR_COUNT_TOO_LARGE, "count %zu exceeds CLQSORT_MAX_COUNT (%zu)", count,
                        CLQSORT_MAX_COUNT);
    const size_t bytes = count * clq_key_bytes(type);
    clqsort_status s = ensure_buffer(ctx, &ctx->host_keys, &ctx->host_keys_bytes, bytes ? bytes : 1, "host-array");
    if (s != CLQSORT_SUCCESS)
        return s;
    cl_int err = bytes ? clEnqueueWriteBuffer(ctx->queue, ctx->host_keys, CL_FALSE, 0, bytes, keys, 0, NULL, NULL)
                       : CL_SUCCESS;
    if (err != CL_SUCCESS)
        return clq_fail_cl(ctx, "clEnqueueWriteBuffer(keys)", err);
    /* a refused sort leaves the device copy unchanged, and the host array is not read back */
    if ((s = clqsort_sort(ctx, ctx->host_keys, count, type, flags)) != CLQSORT_SUCCESS) {
        clFinish(ctx->queue);
        return s;
    }
    if (bytes && (err = clEnqueueReadBuffer(ctx->queue, ctx->host_keys, CL_TRUE, 0, bytes, keys, 0, NULL, NULL)) !=
                     CL_SUCCESS)
        return clq_fail_cl(ctx, "clEnqueueReadBuffer(keys)", err);
    return CLQSORT_SUCCESS;
}

clqsort_status clq_finish_status(clqsort_context *ctx, const clq_plan *plan)
{
    if (ctx->profile && ctx->nevents)
        print_profile(ctx, plan);
    const cl_uint *st = ctx->status_host;
    ctx->stats.phase_one_levels = st[CLQ_ST_LEVELS];
    ctx->stats.phase_two_records = st[CLQ_ST_LEAVES];
    if (st[CLQ_ST_ERROR] || st[CLQ_ST_CUR_SEQS]) {
        static const char *const bits[] = {"work list full", "phase-two list full", "too many levels",
                                           "phase-two stack full", "device enqueue failed", "bucket pool full",
                                           "key outside its range", "bucket counts do not add up"};
        char what[256] = "";
        for (unsigned b = 0; b < sizeof bits / sizeof bits[0]; b++)
            if (st[CLQ_ST_ERROR] & (1u << b))
                snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", *what ? ", " : "", bits[b]);
        return clq_fail(ctx, CLQSORT_ERROR_INTERNAL,
                        "the kernels reported error bits 0x%x (%s) with %u sequences left after %u levels (work "
                        "list capacity %u, phase-two capacity %u); the keys may be partly sorted",
                        st[CLQ_ST_ERROR], *what ? what : "none", st[CLQ_ST_CUR_SEQS], st[CLQ_ST_LEVELS],
                        plan->seq_cap, plan->leaf_cap);
    }
    return CLQSORT_SUCCESS;
}
