/*
 * path_device_enqueue.c - the OpenCL 2.0 execution path: the device launches the passes.
 *
 * The host launches one relauncher_kernel (which emits the root; for a segmented sort, the
 * segemit_kernel that prepares its roots: cl/segments.cl); from then on each kernel
 * enqueues the next on the device's default queue (relauncher.cl), and the host's launch
 * completes only when the last phase-two kernel has. The caller reads the status words once,
 * after it (sort.c; after each round of a partial sort's selection), and counts the device's
 * launches from them (pending.c).
 */
#include "clqsort_internal.h"

clqsort_status clq_run_device_enqueue(clqsort_context *ctx, const clq_plan *plan)
{
    if (plan->segments) /* segemit_kernel started the chain (cl/segments.cl) */
        return CLQSORT_SUCCESS;
    return clq_launch_relauncher(ctx, plan);
}
