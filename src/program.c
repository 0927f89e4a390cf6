/* program.c - the embedded kernel source, built once per key type and order, on first use. */
#include "clqsort_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char clqsort_kernel_source[];
extern const size_t clqsort_kernel_source_length;

static const char *const key_defines[CLQ_KEY_TYPES] = {
    "CLQ_KEY_UINT32", "CLQ_KEY_INT32", "CLQ_KEY_FLOAT", "CLQ_KEY_UINT64", "CLQ_KEY_INT64", "CLQ_KEY_DOUBLE",
};

static clqsort_status build_failed(clqsort_context *ctx, cl_program program, const char *options, cl_int err)
{
    size_t size = 0;
    clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    char *log = calloc(1, size + 1);
    if (log && size)
        clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
    clqsort_status s = clq_fail(ctx, CLQSORT_ERROR_BUILD, "clBuildProgram failed with %s (%d) for options \"%s\"; log:\n%s",
                                clq_cl_error_name(err), (int)err, options, log ? log : "(none)");
    free(log);
    return s;
}

/* Each kernel must run at the work-group size it was compiled for. */
static clqsort_status check_kernel(clqsort_context *ctx, cl_kernel k, const char *name, unsigned wg)
{
    size_t max = 0;
    cl_int err = clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max, &max, NULL);
    if (err != CL_SUCCESS)
        return clq_fail_cl(ctx, "clGetKernelWorkGroupInfo", err);
    if (max < wg)
        return clq_fail(ctx, CLQSORT_ERROR_BUILD,
                        "%s can run at most %zu work-items per group on \"%s\", but was built for %u; "
                        "lower it with CLQSORT_TUNING",
                        name, max, ctx->device_name, wg);
    return CLQSORT_SUCCESS;
}

static clqsort_status build(clqsort_context *ctx, clqsort_key_type type, int descending, unsigned value_bytes,
                            clq_program *p)
{
    const unsigned kb = clq_key_bytes(type) + value_bytes;
    clq_tuning_for_device(ctx, kb, &p->tuning);
    clqsort_status s = clq_tuning_from_env(ctx, kb, &p->tuning);
    if (s != CLQSORT_SUCCESS)
        return s;
    const clq_tuning *t = &p->tuning;
    char options[1024];
    snprintf(options, sizeof options,
             "-D%s%s%s%s -DCLQ_GQ_WG=%u -DCLQ_GQ_K=%u -DCLQ_GQ_WAYS=%u -DCLQ_GQ_COUNT_K=%u -DCLQ_LQ_WG=%u -DCLQ_LQ_WAYS=%u -DCLQ_LQ_MAX=%u -DCLQ_LQ_SMALL=%u "
             "-DCLQ_FILL_CHUNK=%u -DCLQ_RL_WG=%u",
             key_defines[type], descending ? " -DCLQ_DESCENDING" : "",
             value_bytes == 8 ? " -DCLQ_VALUE_BYTES=8" : value_bytes == 4 ? " -DCLQ_VALUE_BYTES=4" : "",
             ctx->path == CLQSORT_PATH_DEVICE_ENQUEUE ? " -cl-std=CL2.0 -DCLQ_DEVICE_ENQUEUE" : "",
             t->gq_wg, t->gq_k, t->gq_ways, t->gq_count_k, t->lq_wg, t->lq_ways, t->lq_max, t->lq_small, t->fill_chunk, t->rl_wg);

    const char *src = clqsort_kernel_source;
    size_t len = clqsort_kernel_source_length;
    cl_int err;
    p->program = clCreateProgramWithSource(ctx->context, 1, &src, &len, &err);
    if (!p->program)
        return clq_fail_cl(ctx, "clCreateProgramWithSource", err);
    err = clBuildProgram(p->program, 1, &ctx->device, options, NULL, NULL);
    if (err != CL_SUCCESS)
        return build_failed(ctx, p->program, options, err);
    /* name, work-group size, and the value of the trailing scalar arguments (parity, init) */
    struct { cl_kernel *k; const char *name; unsigned wg; int nscalars; cl_uint scalars[2]; } kernels[] = {
        {&p->gqcount[0], "gqcount_kernel", t->gq_wg, 1, {0, 0}},
        {&p->gqcount[1], "gqcount_kernel", t->gq_wg, 1, {1, 0}},
        {&p->gqsort[0], "gqsort_kernel", t->gq_wg, 1, {0, 0}},
        {&p->gqsort[1], "gqsort_kernel", t->gq_wg, 1, {1, 0}},
        {&p->relauncher[0], "relauncher_kernel", t->rl_wg, 2, {0, 0}},
        {&p->relauncher[1], "relauncher_kernel", t->rl_wg, 2, {1, 0}},
        {&p->relauncher[2], "relauncher_kernel", t->rl_wg, 2, {0, 1}},
        {&p->lqsort, "lqsort_kernel", t->lq_wg, 0, {0, 0}},
    };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        *kernels[i].k = clCreateKernel(p->program, kernels[i].name, &err);
        if (!*kernels[i].k)
            return clq_fail_cl(ctx, "clCreateKernel", err);
        if ((s = check_kernel(ctx, *kernels[i].k, kernels[i].name, kernels[i].wg)) != CLQSORT_SUCCESS)
            return s;
        for (int a = 0; a < kernels[i].nscalars; a++)
            if ((err = clSetKernelArg(*kernels[i].k, 8u + (cl_uint)a /* after the eight buffers */,
                                      sizeof(cl_uint), &kernels[i].scalars[a])) != CL_SUCCESS)
                return clq_fail_cl(ctx, "clSetKernelArg", err);
    }
    return CLQSORT_SUCCESS;
}

static void release_program(clq_program *p)
{
    cl_kernel all[] = {p->gqcount[0], p->gqcount[1], p->gqsort[0],     p->gqsort[1],
                       p->relauncher[0], p->relauncher[1], p->relauncher[2], p->lqsort};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i])
            clReleaseKernel(all[i]);
    if (p->program)
        clReleaseProgram(p->program);
    memset(p, 0, sizeof *p);
}

clqsort_status clq_get_program(clqsort_context *ctx, clqsort_key_type type, int descending, unsigned value_bytes,
                               clq_program **out)
{
    clq_program *p = &ctx->programs[((int)type * 2 + (descending ? 1 : 0)) * 3 + (int)(value_bytes / 4)];
    if (!p->lqsort) {
        clqsort_status s = build(ctx, type, descending, value_bytes, p);
        if (s != CLQSORT_SUCCESS) {
            release_program(p);
            return s;
        }
    }
    *out = p;
    return CLQSORT_SUCCESS;
}

void clq_release_programs(clqsort_context *ctx)
{
    for (int i = 0; i < CLQ_PROGRAM_SLOTS; i++)
        release_program(&ctx->programs[i]);
}
