/* program.c - the embedded kernel source, built once per key type, order, value size and width (wide:
 * twice the phase-one ways, for the largest sorts), on first use. */
#include "clqsort_internal.h"

#include <stdio.h>
#include <string.h>

extern const char clqsort_kernel_source[];
extern const size_t clqsort_kernel_source_length;

static const char *const key_defines[CLQ_KEY_TYPES] = {
    "CLQ_KEY_UINT32", "CLQ_KEY_INT32", "CLQ_KEY_FLOAT", "CLQ_KEY_UINT64", "CLQ_KEY_INT64", "CLQ_KEY_DOUBLE",
};

/* Every kernel object of a program, in the order of clq_program.all. Each takes the keys, scratch,
 * values, value scratch, segment begin and end, [work lists, bucket pool,] phase-two list and
 * status buffers, [segment windows,] then its scalars (cl/gqsort.cl, lqsort.cl, tiles.cl,
 * relauncher.cl, segments.cl; the order is set_buffer_args's in sort.c). */
const clq_kernel_desc clq_kernel_table[CLQ_KERNELS] = {
    {"gqcount_kernel", 0, 1, 0, 1, {0, 0}},    {"gqcount_kernel", 0, 1, 0, 1, {1, 0}},
    {"gqsort_kernel", 1, 1, 0, 1, {0, 0}},     {"gqsort_kernel", 1, 1, 0, 1, {1, 0}},
    {"relauncher_kernel", 2, 1, 0, 0, {0, 0}}, {"lqsort_kernel", 3, 0, 0, 0, {0, 0}},
    {"segcheck_kernel", 4, 1, 1, 0, {0, 0}},   {"segemit_kernel", 7, 1, 1, 0, {0, 0}},
    {"tilesort_kernel", 3, 0, 0, 0, {0, 0}},   {"tilemerge_kernel", 5, 0, 0, 0, {0, 0}},
    {"clear_kernel", 6, 1, 1, 0, {0, 0}},      {"spreadsort_kernel", 3, 0, 0, 0, {0, 0}},
};

const char *const clq_select_names[CLQ_SELECT_KERNELS] = {
    "select_sample_kernel", "select_hist_kernel",  "select_gather_kernel",
    "select_sort_kernel",   "select_stash_kernel", "select_place_kernel", "select_buckets_kernel",
};

static clqsort_status build_failed(clqsort_context *ctx, cl_program program, const char *options, cl_int err)
{
    size_t size = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) == CL_SUCCESS &&
        (log = clq_calloc(1, size + 1)) != NULL &&
        clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS)
        log[0] = 0;
    clqsort_status s = clq_fail(ctx, clq_status_of_cl(err), "clBuildProgram failed with %s (%d) for options \"%s\"; log:\n%s",
                                clq_cl_error_name(err), (int)err, options, log && *log ? log : "(none could be read)");
    clq_free(log);
    return s;
}

/* Each kernel must run at the work-group size it was compiled for, and a runtime may allow a
 * kernel fewer work-items than the device's maximum (CL_KERNEL_WORK_GROUP_SIZE: registers,
 * stack; Intel's CPU runtime let the relauncher of the one-level programs run 32 through the
 * host loop, against 64 asked). Where a kernel allows fewer, its phase's size in the tuning is
 * lowered to the largest power of two it allows and `*lower` set: the kernels are correct at any
 * power of two (the small test tuning runs 32, CPUs 1), and the program is built again. */
static clqsort_status fit_kernel(clqsort_context *ctx, cl_kernel k, const char *name, unsigned *wg, int *lower)
{
    size_t max = 0;
    CLQ_CL(ctx, name, clGetKernelWorkGroupInfo, (k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max, &max, NULL));
    if (max >= *wg)
        return CLQSORT_SUCCESS;
    if (max == 0 || *lower < 0)
        return clq_fail(ctx, CLQSORT_ERROR_BUILD,
                        "%s can run at most %zu work-items per group on \"%s\", but was built for %u; "
                        "lower it with CLQSORT_TUNING",
                        name, max, ctx->device_name, *wg);
    *wg = clq_floor_pow2(max);
    *lower = 1;
    return CLQSORT_SUCCESS;
}

/* Builds the program and its kernels for p->tuning; lowers a work-group size the built kernels do
 * not allow (fit_kernel: `*lower` 0 to allow that, -1 to fail instead). */
static clqsort_status compile(clqsort_context *ctx, clqsort_key_type type, int descending, unsigned value_bytes,
                              clq_program *p, int *lower, int *loaded)
{
    clq_tuning *t = &p->tuning;
    char options[1024];
    snprintf(options, sizeof options,
             "-D%s%s%s%s%s -DCLQ_GQ_WG=%u -DCLQ_GQ_K=%u -DCLQ_GQ_WAYS=%u -DCLQ_GQ_COUNT_K=%u -DCLQ_LQ_WG=%u -DCLQ_LQ_WAYS=%u -DCLQ_LQ_MAX=%u -DCLQ_LQ_SMALL=%u "
             "-DCLQ_FILL_CHUNK=%u -DCLQ_RL_WG=%u -DCLQ_SEG_NET=%u -DCLQ_GQ_VALUE_PARTS=%u -DCLQ_GQ_COUNT_COPIES=%u -DCLQ_GQ_RANK_COPIES=%u -DCLQ_ROOT_LEAD=%u -DCLQ_FLOAT_DISTANCE=%u -DCLQ_GQ_QUADS=%u",
             key_defines[type], descending ? " -DCLQ_DESCENDING" : "",
             value_bytes == 8 ? " -DCLQ_VALUE_BYTES=8" : value_bytes == 4 ? " -DCLQ_VALUE_BYTES=4" : "",
             ctx->path == CLQSORT_PATH_DEVICE_ENQUEUE ? " -cl-std=CL2.0 -DCLQ_DEVICE_ENQUEUE" : "",
             (ctx->device_type & CL_DEVICE_TYPE_CPU) ? " -DCLQ_CPU" : "",
             t->gq_wg, t->gq_k, t->gq_ways, t->gq_count_k, t->lq_wg, t->lq_ways, t->lq_max, t->lq_small, t->fill_chunk, t->rl_wg,
             t->seg_net, clq_gq_value_parts(t, clq_key_bytes(type) + value_bytes), t->gq_count_copies,
             t->gq_rank_copies, t->root_lead,
             type == CLQSORT_KEY_DOUBLE ? t->double_distance : t->float_distance, t->gq_quads);

    if (ctx->profile == 2) /* what tools/dump_program.c needs to build the same kernels */
        fprintf(stderr, "clqsort build options: %s\n", options);

    cl_int err;
    /* *loaded on entry: 1 to look in the cache first; on return, whether the program came from it */
    p->program = *loaded ? clq_cache_load(ctx, options) : NULL; /* NULL: no cache, or a miss (cache.c) */
    *loaded = p->program != NULL;
    if (p->program) {
        ctx->programs_loaded++;
    } else {
        const char *src = clqsort_kernel_source;
        size_t len = clqsort_kernel_source_length;
        p->program = clCreateProgramWithSource(ctx->context, 1, &src, &len, &err);
        CLQ_TRY(clq_check_created(ctx, p->program, err, "clCreateProgramWithSource", ""));
        /* one build at a time in the process: Intel's CPU runtime crashed in its compiler (SIGSEGV
         * in its LLVM passes) when 8 threads built at once (ctest intel_threads, one CI run in three) */
        clq_lock_builds();
        err = clBuildProgram(p->program, 1, &ctx->device, options, NULL, NULL);
        clq_unlock_builds();
        if (err != CL_SUCCESS)
            return build_failed(ctx, p->program, options, err);
        ctx->programs_built++;
        clq_cache_store(ctx, p->program, options);
    }
    for (int i = 0; i < CLQ_KERNELS; i++) {
        const clq_kernel_desc *d = &clq_kernel_table[i];
        p->all[i] = clCreateKernel(p->program, d->name, &err);
        CLQ_TRY(clq_check_created(ctx, p->all[i], err, "clCreateKernel", d->name));
        CLQ_TRY(fit_kernel(ctx, p->all[i], d->name, clq_work_group_of(t, d->phase), lower));
        /* the scalars follow the buffers (eight, two more with the work lists, one with windows) */
        const cl_uint first = 8u + (d->work_lists ? 2u : 0u) + (d->windows ? 1u : 0u);
        for (int a = 0; a < d->nscalars; a++)
            CLQ_CL(ctx, d->name, clSetKernelArg, (p->all[i], first + (cl_uint)a, sizeof(cl_uint), &d->scalars[a]));
    }
    if (clq_key_bytes(type) == 4) {
        p->stable_pack = clCreateKernel(p->program, "stable_pack_kernel", &err);
        CLQ_TRY(clq_check_created(ctx, p->stable_pack, err, "clCreateKernel", "stable_pack_kernel"));
        p->stable_unpack = clCreateKernel(p->program, "stable_unpack_kernel", &err);
        CLQ_TRY(clq_check_created(ctx, p->stable_unpack, err, "clCreateKernel", "stable_unpack_kernel"));
        for (int i = 0; i < CLQ_SELECT_KERNELS; i++) {
            p->select[i] = clCreateKernel(p->program, clq_select_names[i], &err);
            CLQ_TRY(clq_check_created(ctx, p->select[i], err, "clCreateKernel", clq_select_names[i]));
            CLQ_TRY(fit_kernel(ctx, p->select[i], clq_select_names[i], &t->gq_wg, lower));
        }
    }
    return CLQSORT_SUCCESS;
}

static void release_program(clq_program *p, clq_release_log *log)
{
    for (int i = 0; i < CLQ_KERNELS; i++)
        if (p->all[i])
            clq_released(log, clReleaseKernel(p->all[i]), "clReleaseKernel");
    if (p->stable_pack)
        clq_released(log, clReleaseKernel(p->stable_pack), "clReleaseKernel");
    if (p->stable_unpack)
        clq_released(log, clReleaseKernel(p->stable_unpack), "clReleaseKernel");
    for (int i = 0; i < CLQ_SELECT_KERNELS; i++)
        if (p->select[i])
            clq_released(log, clReleaseKernel(p->select[i]), "clReleaseKernel");
    if (p->program)
        clq_released(log, clReleaseProgram(p->program), "clReleaseProgram");
    memset(p, 0, sizeof *p);
}

/* The program of p's kind for the tuning in force, built again where a kernel allowed fewer
 * work-items than that tuning asked (with each such size lowered; once is enough unless a runtime
 * lowers its limits with the size asked, so the third build may not lower anything). */
static clqsort_status build(clqsort_context *ctx, clqsort_key_type type, int descending, unsigned value_bytes,
                            int wide, clq_program *p)
{
    CLQ_TRY(clq_tuning_of(ctx, type, value_bytes, &p->tuning));
    if (wide && !clq_tuning_widen(ctx, clq_key_bytes(type) + value_bytes, &p->tuning))
        return clq_fail(ctx, CLQSORT_ERROR_INTERNAL, "a wide program was asked for where its ways do not fit");
    clq_release_log ignored = {CL_SUCCESS, NULL}; /* a failed release here leaks, no more */
    for (int attempt = 0;; attempt++) {
        const clq_tuning asked = p->tuning;
        const int may_lower = attempt < 2 ? 0 : -1;
        int lower = may_lower, loaded = 1;
        clqsort_status s = compile(ctx, type, descending, value_bytes, p, &lower, &loaded);
        if (s != CLQSORT_SUCCESS && loaded) {
            /* a binary from the cache that built, but whose kernels could not be made or fitted:
             * a miss like any other (cache.c), so the program is built from source */
            release_program(p, &ignored);
            p->tuning = asked;
            ctx->programs_loaded--;
            lower = may_lower;
            loaded = 0;
            s = compile(ctx, type, descending, value_bytes, p, &lower, &loaded);
        }
        CLQ_TRY(s);
        if (lower <= 0)
            return CLQSORT_SUCCESS;
        const clq_tuning lowered = p->tuning;
        release_program(p, &ignored);
        p->tuning = lowered;
    }
}

clqsort_status clq_get_program(clqsort_context *ctx, clqsort_key_type type, int descending, unsigned value_bytes,
                               int wide, clq_program **out)
{
    clq_program *p = &ctx->programs[(((int)type * 2 + (descending ? 1 : 0)) * 3 + (int)(value_bytes / 4)) * 2 + !!wide];
    if (!p->lqsort) {
        clqsort_status s = build(ctx, type, descending, value_bytes, wide, p);
        if (s != CLQSORT_SUCCESS) {
            clq_release_log ignored = {CL_SUCCESS, NULL}; /* the build's failure is the message */
            release_program(p, &ignored);
            return s;
        }
    }
    *out = p;
    return CLQSORT_SUCCESS;
}

void clq_release_programs(clqsort_context *ctx, clq_release_log *log)
{
    for (int i = 0; i < CLQ_PROGRAM_SLOTS; i++)
        release_program(&ctx->programs[i], log);
}
