/*
 * pending.c - the status words of every sort, and sorts that finish after the call returned.
 *
 * Each sort writes its input words to the device at its start and reads its output words back
 * at its end, both without blocking, through a slot of the context that keeps them until the
 * read's event has completed. A blocking call waits for that event at once and checks the words
 * (the one host round trip of a sort; a selection or phase one whose round stopped short goes
 * on in another, sort.c); clqsort_enqueue_* leave the slot pending, and the words
 * are checked when the slot is collected: by clqsort_finish, by a later blocking call, or by an
 * enqueue that finds every slot taken. A failure found then is kept in ctx->deferred for
 * clqsort_finish, worded for the call that enqueued the sort.
 *
 * The words live in one buffer of host memory that the device reaches directly
 * (CL_MEM_ALLOC_HOST_PTR, mapped once when the context is created). From ordinary (pageable)
 * memory, NVIDIA's OpenCL took 11-35 us longer for the two small transfers alone
 * (bench/launch_cost.c), and whole sorts on an H200 took 0.03-0.2 ms longer: 2^16 keys 0.128
 * instead of 0.092 ms, 2^26 keys 2.358 instead of 2.135 (docs/PERFORMANCE.md).
 */
#include "clqsort_internal.h"

#include <stdio.h>
#include <string.h>

static clq_pending *slot_at(clqsort_context *ctx, unsigned i)
{
    return &ctx->pending[(ctx->pending_first + i) % CLQSORT_MAX_PENDING];
}

static void defer(clqsort_context *ctx, const clq_pending *slot, clqsort_status s, const char *msg);
static clqsort_status collect(clqsort_context *ctx, clq_pending *slot, char *msg, size_t size);

clqsort_status clq_take_slot(clqsort_context *ctx, const char *api, clq_pending **slot)
{
    if (ctx->npending == CLQSORT_MAX_PENDING) { /* the oldest first; its failure is kept */
        char msg[1024];
        clq_pending *oldest = slot_at(ctx, 0);
        const clqsort_status s = collect(ctx, oldest, msg, sizeof msg);
        if (s != CLQSORT_SUCCESS)
            defer(ctx, oldest, s, msg);
        ctx->pending_first = (ctx->pending_first + 1) % CLQSORT_MAX_PENDING;
        ctx->npending--;
    }
    clq_pending *p = slot_at(ctx, ctx->npending++);
    memset(p, 0, sizeof *p);
    p->in = ctx->host_words + (size_t)(p - ctx->pending) * 2 * CLQ_ST_WORDS; /* the slot's own words */
    p->out = p->in + CLQ_ST_WORDS;
    memset(p->in, 0, 2 * CLQ_ST_WORDS * sizeof(cl_uint));
    p->api = api;
    p->serial = ++ctx->serial;
    *slot = p;
    return CLQSORT_SUCCESS;
}

void clq_drop_slot(clqsort_context *ctx, clq_pending *slot)
{
    if (slot->done)
        (void)clReleaseEvent(slot->done); /* the caller waited: nothing of the sort runs on */
    ctx->npending--;                      /* the newest slot is the one being dropped */
}

#define WORDS_BYTES ((size_t)CLQSORT_MAX_PENDING * 2 * CLQ_ST_WORDS * sizeof(cl_uint))

/* A blocking map on the context's queue: with the program's own queue, creation waits for what
 * that queue already holds. */
clqsort_status clq_map_words(clqsort_context *ctx)
{
    cl_int err;
    ctx->words = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, WORDS_BYTES, NULL, &err);
    CLQ_TRY(clq_check_created(ctx, ctx->words, err, "clCreateBuffer", "the status words' host memory"));
    void *p = clEnqueueMapBuffer(ctx->queue, ctx->words, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, WORDS_BYTES, 0, NULL,
                                 NULL, &err);
    CLQ_TRY(clq_check_created(ctx, p, err, "clEnqueueMapBuffer", "the status words' host memory"));
    ctx->host_words = p;
    return CLQSORT_SUCCESS;
}

/* Before the buffer is released; every slot has been collected or abandoned. */
void clq_unmap_words(clqsort_context *ctx, clq_release_log *log)
{
    if (ctx->host_words) {
        clq_released(log, clEnqueueUnmapMemObject(ctx->queue, ctx->words, ctx->host_words, 0, NULL, NULL),
                     "clEnqueueUnmapMemObject");
        clq_released(log, clFinish(ctx->queue), "clFinish");
        ctx->host_words = NULL;
    }
}

clqsort_status clq_write_status(clqsort_context *ctx, clq_pending *slot, cl_uint nwait, const cl_event *wait)
{
    CLQ_CL(ctx, "status words", clEnqueueWriteBuffer,
           (ctx->queue, ctx->status, CL_FALSE, 0, CLQ_ST_WORDS * sizeof(cl_uint), slot->in, nwait, wait, NULL));
    return CLQSORT_SUCCESS;
}

clqsort_status clq_read_status(clqsort_context *ctx, clq_pending *slot)
{
    CLQ_CL(ctx, "status words", clEnqueueReadBuffer,
           (ctx->queue, ctx->status, CL_FALSE, 0, CLQ_ST_WORDS * sizeof(cl_uint), slot->out, 0, NULL, &slot->done));
    return CLQSORT_SUCCESS;
}

/* Appends ", <name>" to `what` for each bit of `bits` in `names`. */
static void name_bits(char *what, size_t size, unsigned bits, const char *const *names, unsigned nnames)
{
    for (unsigned b = 0; b < nnames; b++)
        if (bits & (1u << b))
            snprintf(what + strlen(what), size - strlen(what), "%s%s", *what ? ", " : "", names[b]);
}

/* The name of an OpenCL C enqueue_kernel error (the codes of the OpenCL C specification). */
static const char *enqueue_error_name(int err)
{
    switch (err) {
    case -101: return "CLK_ENQUEUE_FAILURE";
    case -102: return "CLK_INVALID_QUEUE";
    case -160: return "CLK_INVALID_NDRANGE";
    case -57: return "CLK_INVALID_EVENT_WAIT_LIST";
    case -161: return "CLK_DEVICE_QUEUE_FULL";
    case -51: return "CLK_INVALID_ARG_SIZE";
    case -100: return "CLK_EVENT_ALLOCATION_FAILURE";
    case -5: return "CLK_OUT_OF_RESOURCES";
    default: return "not a code the specification names";
    }
}

/* The verdict of a sort's output words, its message in msg (without the status and call). */
static clqsort_status check_words(const clq_pending *slot, char *msg, size_t size)
{
    const cl_uint *st = slot->out;
    char what[256] = "";
    if (st[CLQ_ST_ERROR] & CLQ_ERR_SEGMENTS) {
        static const char *const why[] = {"begin[i] > end[i]", "end[i] > count", "end[i] > begin[i + 1]"};
        name_bits(what, sizeof what, st[CLQ_ST_SEG_WHY], why, sizeof why / sizeof why[0]);
        snprintf(msg, size,
                 "segment %u of %u is the first invalid one; the invalid segments have %s (segments must be in "
                 "order of position, within the %u keys); no key was moved",
                 st[CLQ_ST_BAD_SEGMENT], st[CLQ_ST_SEGMENTS], *what ? what : "no recorded cause", st[CLQ_ST_COUNT]);
        return CLQSORT_ERROR_INVALID_SEGMENTS;
    }
    if (st[CLQ_ST_ERROR] || (st[CLQ_ST_CUR_SEQS] && !slot->levels_short)) {
        static const char *const bits[] = {"work list full", "phase-two list full", "too many levels",
                                           "phase-two stack full", "device enqueue failed", "bucket pool full",
                                           "key outside its range", "bucket counts do not add up",
                                           "invalid segments", "selection miscounted"};
        name_bits(what, sizeof what, st[CLQ_ST_ERROR], bits, sizeof bits / sizeof bits[0]);
        if (st[CLQ_ST_ERROR] & CLQ_ERR_ENQUEUE)
            snprintf(what + strlen(what), sizeof what - strlen(what), ": enqueue_kernel returned %d (%s) after %u launches",
                     (int)st[CLQ_ST_ENQUEUE_ERR], enqueue_error_name((int)st[CLQ_ST_ENQUEUE_ERR]),
                     st[CLQ_ST_LAUNCHES]);
        snprintf(msg, size,
                 "the kernels reported error bits 0x%x (%s) with %u sequences left after %u levels (work list "
                 "capacity %u, phase-two capacity %u); %s",
                 st[CLQ_ST_ERROR], *what ? what : "none", st[CLQ_ST_CUR_SEQS], st[CLQ_ST_LEVELS], slot->seq_cap,
                 slot->leaf_cap,
                 clq_repeatable(slot) ? "the chain stopped before its first sort pass, so the keys are a permutation "
                                        "of the input (each segment's of its own) and the sort can be repeated"
                                      : "the keys may have changed");
        return CLQSORT_ERROR_INTERNAL;
    }
    if (st[CLQ_ST_SEL_SHORT] && !slot->may_stop_short) { /* cannot happen: every level was enqueued */
        snprintf(msg, size, "the partial sort's selection was unfinished after the most levels any input needs; "
                            "no key was moved");
        return CLQSORT_ERROR_INTERNAL;
    }
    return CLQSORT_SUCCESS;
}

/* A device-enqueue chain that could not launch its first or second kernel (the count pass of the
 * first level and its sort pass, or phase two alone) stopped before any kernel of phase one or two
 * moved a key: what ran before it (a stable sort's packing, a selection, the short segments'
 * networks) leaves the keys a permutation of the input, each segment's within it, and so does
 * what runs after it (unpacking, placing the selection). Such a sort can be repeated whole. */
int clq_repeatable(const clq_pending *slot)
{
    const cl_uint *st = slot->out;
    return st[CLQ_ST_ERROR] == CLQ_ERR_ENQUEUE && st[CLQ_ST_LAUNCHES] < 2u;
}

int clq_stopped_short(const clq_pending *slot)
{
    return (slot->may_stop_short && slot->out[CLQ_ST_SEL_SHORT]) || (slot->levels_short && slot->out[CLQ_ST_CUR_SEQS]) ||
           (slot->may_spill && slot->out[CLQ_ST_SPILL]);
}

/* Waits for one slot and checks it; on success its counters become the context's last. */
static clqsort_status collect(clqsort_context *ctx, clq_pending *slot, char *msg, size_t size)
{
    const cl_int err = clWaitForEvents(1, &slot->done);
    (void)clReleaseEvent(slot->done); /* waited for: a failed release leaks one event, nothing runs on */
    slot->done = NULL;
    clqsort_status s;
    if (err != CL_SUCCESS) {
        snprintf(msg, size, "clWaitForEvents(status words) failed with %s (%d); the keys may have changed",
                 clq_cl_error_name(err), (int)err);
        s = clq_status_of_cl(err);
    } else {
        s = check_words(slot, msg, size);
    }
    if (s != CLQSORT_SUCCESS) {
        ctx->pool_clear = 0; /* the kernels may have left bucket records behind */
        ctx->windows_clear = 0; /* and segment windows marked */
        return s;
    }
    slot->stats.host_round_trips++;
    slot->stats.phase_one_levels = slot->out[CLQ_ST_LEVELS];
    slot->stats.phase_two_records = slot->out[CLQ_ST_LEAVES];
    slot->stats.selected_keys = slot->selecting ? slot->out[CLQ_ST_COUNT] : 0;
    slot->stats.root_slices = slot->out[CLQ_ST_ROOT_SLICES];
    slot->stats.kernel_launches += slot->out[CLQ_ST_LAUNCHES];
    /* a selection that stopped short is not a finished sort: its caller goes on from the counts */
    if (clq_stopped_short(slot))
        ctx->stats = slot->stats;
    else
        ctx->last_stats = slot->stats;
    return CLQSORT_SUCCESS;
}

/* Keeps the first failure found since the last clqsort_finish, worded for its call. */
static void defer(clqsort_context *ctx, const clq_pending *slot, clqsort_status s, const char *msg)
{
    if (ctx->deferred != CLQSORT_SUCCESS)
        return;
    ctx->deferred = s;
    snprintf(ctx->deferred_error, sizeof ctx->deferred_error, "the sort %s enqueued (sort #%u of the context): %s",
             slot->api, slot->serial, msg);
}

clqsort_status clq_collect_all(clqsort_context *ctx, int newest_is_mine)
{
    clqsort_status mine = CLQSORT_SUCCESS;
    for (unsigned i = 0; i < ctx->npending; i++) {
        clq_pending *slot = slot_at(ctx, i);
        char msg[1024];
        const clqsort_status s = collect(ctx, slot, msg, sizeof msg);
        if (s == CLQSORT_SUCCESS)
            continue;
        if (newest_is_mine && i + 1 == ctx->npending)
            mine = clq_fail(ctx, s, "%s", msg);
        else
            defer(ctx, slot, s, msg);
    }
    ctx->pending_first = 0;
    ctx->npending = 0;
    return mine;
}

void clq_abandon_slots(clqsort_context *ctx)
{
    for (unsigned i = 0; i < ctx->npending; i++) {
        (void)clWaitForEvents(1, &slot_at(ctx, i)->done);
        (void)clReleaseEvent(slot_at(ctx, i)->done);
    }
    ctx->pending_first = 0;
    ctx->npending = 0;
}

clqsort_status clqsort_finish(clqsort_context *ctx)
{
    CLQ_TRY(clq_enter(ctx, "clqsort_finish"));
    (void)clq_collect_all(ctx, 0);
    clqsort_status s = ctx->deferred;
    if (s != CLQSORT_SUCCESS) {
        clq_fail(ctx, s, "%s", ctx->deferred_error);
        ctx->deferred = CLQSORT_SUCCESS;
    }
    return clq_leave(ctx, s);
}
