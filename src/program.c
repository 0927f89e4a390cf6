/* program.c - the embedded kernel sources, built once per key type, order, value size and width
 * (wide: twice the phase-one ways, for the largest sorts), on first use: the sort's program, and
 * for 32-bit keys the selection's, at the first partial sort that selects. */
#include "clqsort_internal.h"

#include <stdio.h>
#include <string.h>

/* cmake/EmbedKernels.cmake: the sort's program and the selection's */
extern const char clqsort_kernel_source[], clqsort_select_source[];
extern const size_t clqsort_kernel_source_length, clqsort_select_source_length;

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

/* The two programs of a clq_program, and their sources. */
enum { CLQ_PART_SORT, CLQ_PART_SELECT };

static clq_source source_of(int part)
{
    return part == CLQ_PART_SELECT ? (clq_source){clqsort_select_source, clqsort_select_source_length}
                                   : (clq_source){clqsort_kernel_source, clqsort_kernel_source_length};
}

static clq_tuning *tuning_of(clq_program *p, int part)
{
    return part == CLQ_PART_SELECT ? &p->select_tuning : &p->tuning;
}

/* The program of `part` for its tuning in *out: from the cache (`*loaded` 1 on entry to look
 * there; on return, whether it came from there), else built from source and stored. */
static clqsort_status make_program(clqsort_context *ctx, clq_program *p, int part, cl_program *out, int *loaded)
{
    const clq_tuning *t = tuning_of(p, part);
    const clq_source source = source_of(part);
    char options[1024];
    snprintf(options, sizeof options,
             "-D%s%s%s%s%s -DCLQ_GQ_WG=%u -DCLQ_GQ_K=%u -DCLQ_GQ_WAYS=%u -DCLQ_GQ_COUNT_K=%u -DCLQ_LQ_WG=%u -DCLQ_LQ_WAYS=%u -DCLQ_LQ_MAX=%u -DCLQ_LQ_SMALL=%u "
             "-DCLQ_FILL_CHUNK=%u -DCLQ_RL_WG=%u -DCLQ_SEG_NET=%u -DCLQ_GQ_VALUE_PARTS=%u -DCLQ_GQ_COUNT_COPIES=%u -DCLQ_GQ_RANK_COPIES=%u -DCLQ_ROOT_LEAD=%u -DCLQ_FLOAT_DISTANCE=%u -DCLQ_GQ_QUADS=%u",
             key_defines[p->type], p->descending ? " -DCLQ_DESCENDING" : "",
             p->value_bytes == 8 ? " -DCLQ_VALUE_BYTES=8" : p->value_bytes == 4 ? " -DCLQ_VALUE_BYTES=4" : "",
             ctx->path == CLQSORT_PATH_DEVICE_ENQUEUE ? " -cl-std=CL2.0 -DCLQ_DEVICE_ENQUEUE" : "",
             (ctx->device_type & CL_DEVICE_TYPE_CPU) ? " -DCLQ_CPU" : "",
             t->gq_wg, t->gq_k, t->gq_ways, t->gq_count_k, t->lq_wg, t->lq_ways, t->lq_max, t->lq_small, t->fill_chunk, t->rl_wg,
             t->seg_net, clq_gq_value_parts(t, clq_key_bytes(p->type) + p->value_bytes), t->gq_count_copies,
             t->gq_rank_copies, t->root_lead,
             p->type == CLQSORT_KEY_DOUBLE ? t->double_distance : t->float_distance, t->gq_quads);

    if (ctx->profile == 2) /* what tools/dump_program.c needs to build the same kernels */
        fprintf(stderr, "clqsort build options%s: %s\n", part == CLQ_PART_SELECT ? " (selection)" : "", options);

    *out = *loaded ? clq_cache_load(ctx, &source, options) : NULL; /* NULL: no cache, or a miss (cache.c) */
    *loaded = *out != NULL;
    if (*out) {
        ctx->programs_loaded++;
        return CLQSORT_SUCCESS;
    }
    cl_int err;
    const char *text = source.text;
    *out = clCreateProgramWithSource(ctx->context, 1, &text, &source.length, &err);
    CLQ_TRY(clq_check_created(ctx, *out, err, "clCreateProgramWithSource", ""));
    /* one build at a time in the process: Intel's CPU runtime crashed in its compiler (SIGSEGV
     * in its LLVM passes) when 8 threads built at once (ctest intel_threads, one CI run in three) */
    clq_lock_builds();
    err = clBuildProgram(*out, 1, &ctx->device, options, NULL, NULL);
    clq_unlock_builds();
    if (err != CL_SUCCESS)
        return build_failed(ctx, *out, options, err);
    ctx->programs_built++;
    clq_cache_store(ctx, *out, &source, options);
    return CLQSORT_SUCCESS;
}

/* Builds the program of `part` and its kernels for its tuning; lowers a work-group size the built
 * kernels do not allow (fit_kernel: `*lower` 0 to allow that, -1 to fail instead). */
static clqsort_status compile(clqsort_context *ctx, clq_program *p, int part, int *lower, int *loaded)
{
    clq_tuning *t = tuning_of(p, part);
    cl_int err;
    if (part == CLQ_PART_SELECT) {
        CLQ_TRY(make_program(ctx, p, part, &p->select_program, loaded));
        for (int i = 0; i < CLQ_SELECT_KERNELS; i++) {
            p->select[i] = clCreateKernel(p->select_program, clq_select_names[i], &err);
            CLQ_TRY(clq_check_created(ctx, p->select[i], err, "clCreateKernel", clq_select_names[i]));
            CLQ_TRY(fit_kernel(ctx, p->select[i], clq_select_names[i], &t->gq_wg, lower));
        }
        return CLQSORT_SUCCESS;
    }
    CLQ_TRY(make_program(ctx, p, part, &p->program, loaded));
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
    if (clq_key_bytes(p->type) == 4) {
        p->stable_pack = clCreateKernel(p->program, "stable_pack_kernel", &err);
        CLQ_TRY(clq_check_created(ctx, p->stable_pack, err, "clCreateKernel", "stable_pack_kernel"));
        p->stable_unpack = clCreateKernel(p->program, "stable_unpack_kernel", &err);
        CLQ_TRY(clq_check_created(ctx, p->stable_unpack, err, "clCreateKernel", "stable_unpack_kernel"));
    }
    return CLQSORT_SUCCESS;
}

static void release_kernel(clq_release_log *log, cl_kernel *k)
{
    if (*k)
        clq_released(log, clReleaseKernel(*k), "clReleaseKernel");
    *k = NULL;
}

/* Releases the OpenCL objects of `part` (the selection's, or all), leaving its tuning. */
static void release_part(clq_program *p, int part, clq_release_log *log)
{
    for (int i = 0; i < CLQ_SELECT_KERNELS; i++)
        release_kernel(log, &p->select[i]);
    if (p->select_program)
        clq_released(log, clReleaseProgram(p->select_program), "clReleaseProgram");
    p->select_program = NULL;
    if (part == CLQ_PART_SELECT)
        return;
    for (int i = 0; i < CLQ_KERNELS; i++)
        release_kernel(log, &p->all[i]);
    release_kernel(log, &p->stable_pack);
    release_kernel(log, &p->stable_unpack);
    if (p->program)
        clq_released(log, clReleaseProgram(p->program), "clReleaseProgram");
    p->program = NULL;
}

/* The program of `part` for the tuning in force, built again where a kernel allowed fewer
 * work-items than that tuning asked (with each such size lowered; once is enough unless a runtime
 * lowers its limits with the size asked, so the third build may not lower anything). */
static clqsort_status build(clqsort_context *ctx, clq_program *p, int part)
{
    clq_tuning *t = tuning_of(p, part);
    clq_release_log ignored = {CL_SUCCESS, NULL}; /* a failed release here leaks, no more */
    for (int attempt = 0;; attempt++) {
        const clq_tuning asked = *t;
        const int may_lower = attempt < 2 ? 0 : -1;
        int lower = may_lower, loaded = 1;
        clqsort_status s = compile(ctx, p, part, &lower, &loaded);
        if (s != CLQSORT_SUCCESS && loaded) {
            /* a binary from the cache that built, but whose kernels could not be made or fitted:
             * a miss like any other (cache.c), so the program is built from source */
            release_part(p, part, &ignored);
            *t = asked;
            ctx->programs_loaded--;
            lower = may_lower;
            loaded = 0;
            s = compile(ctx, p, part, &lower, &loaded);
        }
        CLQ_TRY(s);
        if (lower <= 0)
            return CLQSORT_SUCCESS;
        release_part(p, part, &ignored); /* and again with the sizes lowered */
    }
}

clqsort_status clq_get_program(clqsort_context *ctx, clqsort_key_type type, int descending, unsigned value_bytes,
                               int wide, clq_program **out)
{
    clq_program *p = &ctx->programs[(((int)type * 2 + (descending ? 1 : 0)) * 3 + (int)(value_bytes / 4)) * 2 + !!wide];
    if (!p->lqsort) {
        clqsort_status s = clq_tuning_of(ctx, type, value_bytes, &p->tuning);
        if (s == CLQSORT_SUCCESS && wide && !clq_tuning_widen(ctx, clq_key_bytes(type) + value_bytes, &p->tuning))
            s = clq_fail(ctx, CLQSORT_ERROR_INTERNAL, "a wide program was asked for where its ways do not fit");
        p->type = type;
        p->descending = descending;
        p->value_bytes = value_bytes;
        if (s == CLQSORT_SUCCESS)
            s = build(ctx, p, CLQ_PART_SORT);
        if (s != CLQSORT_SUCCESS) {
            clq_release_log ignored = {CL_SUCCESS, NULL}; /* the build's failure is the message */
            release_part(p, CLQ_PART_SORT, &ignored);
            return s;
        }
    }
    *out = p;
    return CLQSORT_SUCCESS;
}

clqsort_status clq_get_select(clqsort_context *ctx, clq_program *p)
{
    if (p->select_program)
        return CLQSORT_SUCCESS;
    p->select_tuning = p->tuning;
    const clqsort_status s = build(ctx, p, CLQ_PART_SELECT);
    if (s != CLQSORT_SUCCESS) {
        clq_release_log ignored = {CL_SUCCESS, NULL}; /* the build's failure is the message */
        release_part(p, CLQ_PART_SELECT, &ignored);
    }
    return s;
}

void clq_release_programs(clqsort_context *ctx, clq_release_log *log)
{
    for (int i = 0; i < CLQ_PROGRAM_SLOTS; i++) {
        release_part(&ctx->programs[i], CLQ_PART_SORT, log);
        memset(&ctx->programs[i], 0, sizeof ctx->programs[i]);
    }
}
