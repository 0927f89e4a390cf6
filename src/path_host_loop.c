/*
 * path_host_loop.c - the OpenCL 1.2 execution path: the host launches the passes.
 *
 * relauncher_kernel emits the root (a segmented sort's segemit_kernel has prepared its roots
 * already: cl/segments.cl); then each phase-one level is gqcount_kernel and
 * gqsort_kernel over a fixed grid (their groups take the level's blocks in turn, so the host need
 * not know how many there are), and the sort pass's last group prepares the next level on the
 * device. No input needs more than clq_levels() levels (relauncher.cl), so the host enqueues
 * the levels uniform keys need (level_margin more) and phase two after them, all at once; the
 * caller reads the status words once, at the end (sort.c; once per further round where phase one
 * or a partial sort's selection was unfinished). A level with no work left costs two launches
 * that end at once.
 *
 * Short sorts take the tile path instead (cl/tiles.cl): a local sort of each tile of lq_max keys
 * and, with more than one tile, a merge; two launches where phase one's schedule takes
 * 2 + 2 clq_levels(), most of which find no work at these sizes. Where the tuning has it
 * (spread), a blocking sort of more than one tile takes one launch instead, after a copy of its
 * keys to scratch: each group sorts the keys between two sampled splitters (the spread path),
 * and in the rare round where a group's keys did not fit, the tile path follows (sort.c).
 */
#include "clqsort_internal.h"

/* One phase-one level: partition the current list (parity); the sort pass's last group prepares
 * the next (parity ^ 1). */
static clqsort_status enqueue_level(clqsort_context *ctx, const clq_program *p, unsigned parity, size_t count_groups,
                                    size_t sort_groups)
{
    CLQ_TRY(clq_launch(ctx, p, p->gqcount[parity], count_groups, p->tuning.gq_wg));
    return clq_launch(ctx, p, p->gqsort[parity], sort_groups, p->tuning.gq_wg);
}

clqsort_status clq_run_host_loop(clqsort_context *ctx, const clq_plan *plan)
{
    const clq_program *p = plan->prog;
    const clq_tuning *t = &p->tuning;

    if (plan->spread) {
        CLQ_TRY(clq_spread_in(ctx, plan));
        ctx->stats.spread_groups = plan->spread;
        return clq_launch(ctx, p, p->spreadsort, plan->spread, t->lq_wg);
    }
    if (plan->tiles) {
        CLQ_TRY(clq_launch(ctx, p, p->tilesort, plan->tiles, t->lq_wg));
        if (plan->tiles == 1)
            return CLQSORT_SUCCESS;
        /* one group per CLQ_MERGE_KEYS(gq_wg) keys of a tile (tiles.cl) */
        const size_t per = CLQ_MERGE_KEYS(t->gq_wg);
        return clq_launch(ctx, p, p->tilemerge, (size_t)plan->tiles * ((t->lq_max + per - 1) / per), t->gq_wg);
    }

    /* Grids: enough groups to fill the device, never more than there can be blocks/records. */
    const size_t block = (size_t)t->gq_wg * t->gq_k, unit = (size_t)t->gq_wg * t->gq_count_k;
    const size_t resident = (size_t)ctx->compute_units * t->groups_per_cu;
    size_t sort_groups = (plan->count + block - 1) / block + 1, count_groups = (plan->count + unit - 1) / unit + 1;
    if (sort_groups > resident)
        sort_groups = resident;
    if (count_groups > resident)
        count_groups = resident;
    size_t lq_groups = plan->leaf_cap < resident ? plan->leaf_cap : resident;

    if (!plan->segments && plan->level_from == 0) /* segemit_kernel prepared a segmented sort's roots */
        CLQ_TRY(clq_launch_relauncher(ctx, plan));
    for (unsigned level = plan->level_from; level < plan->level_to; level++)
        CLQ_TRY(enqueue_level(ctx, p, level & 1u, count_groups, sort_groups));
    return clq_launch(ctx, p, p->lqsort, lq_groups, t->lq_wg);
}
