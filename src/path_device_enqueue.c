/*
 * path_device_enqueue.c - the OpenCL 2.0 execution path: the device launches the passes.
 *
 * The host launches one relauncher_kernel (which emits the root); from then on each kernel
 * enqueues the next on the device's default queue (relauncher.cl), and the host's launch
 * completes only when the last phase-two kernel has. The host reads the status words once.
 */
#include "clqsort_internal.h"

clqsort_status clq_run_device_enqueue(clqsort_context *ctx, const clq_plan *plan)
{
    clqsort_status s = clq_start_sort(ctx, plan);
    if (s != CLQSORT_SUCCESS)
        return s;
    cl_int err = clq_launch(ctx, plan->prog->relauncher[2], 1, plan->prog->tuning.rl_wg);
    if (err != CL_SUCCESS)
        return clq_fail_cl(ctx, "enqueue relauncher_kernel", err);
    if ((err = clq_read_status(ctx, CLQ_ST_WORDS)) != CL_SUCCESS)
        return clq_fail_cl(ctx, "clEnqueueReadBuffer(status)", err);
    ctx->stats.kernel_launches += ctx->status_host[CLQ_ST_LAUNCHES];
    return clq_finish_status(ctx, plan);
}
