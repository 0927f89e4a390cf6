/*
 * path_host_loop.c - the OpenCL 1.2 execution path: the host launches the passes.
 *
 * relauncher_kernel(init) emits the root; then each phase-one level is gqcount_kernel and
 * gqsort_kernel over a fixed grid (their groups take the level's blocks in turn, so the host need
 * not know how many there are) followed by relauncher_kernel, which prepares the next level on
 * the device. The host only needs to know when no long sequence is left: it enqueues levels in
 * batches and reads five status words after each batch. The first batch is as long as uniform
 * keys need; later batches grow. A level with no work costs three empty launches. At most
 * code_bits levels exist (clqsort_common.h), which bounds the loop.
 */
#include "clqsort_internal.h"

/* One phase-one level: partition the current list (parity), prepare the next (parity ^ 1). */
static clqsort_status enqueue_level(clqsort_context *ctx, const clq_program *p, unsigned parity, size_t count_groups,
                                    size_t sort_groups)
{
    CLQ_TRY(clq_launch(ctx, p, p->gqcount[parity], count_groups, p->tuning.gq_wg));
    CLQ_TRY(clq_launch(ctx, p, p->gqsort[parity], sort_groups, p->tuning.gq_wg));
    return clq_launch(ctx, p, p->relauncher[parity ^ 1u], 1, p->tuning.rl_wg);
}

clqsort_status clq_run_host_loop(clqsort_context *ctx, const clq_plan *plan)
{
    const clq_program *p = plan->prog;
    const clq_tuning *t = &p->tuning;
    const cl_uint *st = ctx->status_host;

    /* Grids: enough groups to fill the device, never more than there can be blocks/records. */
    const size_t block = (size_t)t->gq_wg * t->gq_k, unit = (size_t)t->gq_wg * t->gq_count_k;
    const size_t resident = (size_t)ctx->compute_units * t->groups_per_cu;
    size_t sort_groups = (plan->count + block - 1) / block + 1, count_groups = (plan->count + unit - 1) / unit + 1;
    if (sort_groups > resident)
        sort_groups = resident;
    if (count_groups > resident)
        count_groups = resident;
    size_t lq_groups = plan->leaf_cap < resident ? plan->leaf_cap : resident;

    CLQ_TRY(clq_launch(ctx, p, p->relauncher[2], 1, t->rl_wg));

    if (plan->count > t->lq_max) {
        /* levels uniform keys need before every sequence fits phase two (relauncher.cl) */
        unsigned level = 0, batch = 0;
        for (size_t n = plan->count; n > t->lq_max; batch++) {
            size_t ways = 2;
            while (ways < t->gq_ways && ways * (t->lq_max / 2) < n)
                ways *= 2;
            n = (n + ways - 1) / ways;
        }
        for (;;) {
            for (unsigned i = 0; i < batch && level < plan->code_bits; i++, level++)
                CLQ_TRY(enqueue_level(ctx, p, level & 1u, count_groups, sort_groups));
            CLQ_TRY(clq_read_status(ctx, CLQ_ST_ERROR + 1));
            if (st[CLQ_ST_CUR_SEQS] == 0 || st[CLQ_ST_ERROR] || level >= plan->code_bits)
                break;
            batch = batch < 4 ? 2 * batch : 8;
        }
    }

    CLQ_TRY(clq_launch(ctx, p, p->lqsort, lq_groups, t->lq_wg));
    CLQ_TRY(clq_read_status(ctx, CLQ_ST_WORDS));
    return clq_finish_status(ctx, plan);
}
