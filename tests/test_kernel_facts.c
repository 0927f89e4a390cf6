/*
 * test_kernel_facts.c - the host's copies of kernel facts against the built kernels.
 *
 * src/tuning.c fits the launch shape to the device with its own estimate of each kernel's local
 * memory (clq_local_bytes); if a kernel's structs grow and the estimate does not, a tuning that
 * "fits" fails at launch. For every key type, order and value size (and the wide programs, twice
 * the phase-one ways, of uint32 and uint64 keys with each value size, ascending, where the device
 * holds them: local memory depends on the element's size, not its type or order), this builds
 * the program on
 * the device the environment selects (with CLQSORT_TUNING applied, as a sort would) and checks
 * that every kernel's CL_KERNEL_LOCAL_MEM_SIZE is within the estimate and within the device's
 * local memory (the selection's kernels of partial sorts against clq_select_local_bytes), and that
 * every kernel allows the work-group size its program's tuning launches it with
 * (CL_KERNEL_WORK_GROUP_SIZE; program.c lowers a size a runtime does not allow, and the test
 * prints where it did). Uses the library's internal header: these facts are not public.
 *
 *   test_kernel_facts [--ascending]
 *     --ascending: the programs of ascending order only. A descending program differs only in
 *     how keys map to codes (CLQ_DESCENDING), never in local memory; on a runtime whose builds
 *     take seconds (Intel's) this halves the test.
 */
#include "../src/clqsort_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

int main(int argc, char **argv)
{
    const int orders = argc > 1 && !strcmp(argv[1], "--ascending") ? 1 : 2;
    if (argc > 1 && orders == 2) {
        fprintf(stderr, "usage: test_kernel_facts [--ascending]\n");
        return 2;
    }
    clqsort_context *ctx;
    if (clqsort_create(&ctx, NULL) != CLQSORT_SUCCESS) {
        fprintf(stderr, "clqsort_create failed: %s\n", clqsort_last_error(NULL));
        return 1;
    }
    static const char *const types[CLQ_KEY_TYPES] = {"uint32", "int32", "float", "uint64", "int64", "double"};
    for (int type = 0; type < CLQ_KEY_TYPES; type++)
        for (int desc = 0; desc < orders; desc++)
            for (unsigned vw = 0; vw < 6; vw++) { /* values of 0, 4, 8 bytes; then the wide programs */
                const unsigned vb = 4 * (vw % 3);
                const int wide = vw >= 3;
                const char *const w = wide ? " wide" : "";
                if (clq_key_bytes((clqsort_key_type)type) == 8 && !ctx->has_int64_atomics)
                    continue; /* refused before any build (CLQSORT_ERROR_UNSUPPORTED_TYPE) */
                clq_tuning wt;
                if (wide && (desc || (type != CLQSORT_KEY_UINT32 && type != CLQSORT_KEY_UINT64) ||
                             clq_tuning_of(ctx, (clqsort_key_type)type, vb, &wt) != CLQSORT_SUCCESS ||
                             !clq_tuning_widen(ctx, clq_key_bytes((clqsort_key_type)type) + vb, &wt)))
                    continue; /* one per element size; none where twice the ways do not fit */
                clq_program *p;
                clqsort_status s = clq_get_program(ctx, (clqsort_key_type)type, desc, vb, wide, &p);
                checks++;
                if (s != CLQSORT_SUCCESS) {
                    failures++;
                    printf("FAIL %s%s%s +%u B: build: %s\n", types[type], desc ? " desc" : "", w, vb,
                           clqsort_last_error(ctx));
                    continue;
                }
                const unsigned elem = clq_key_bytes((clqsort_key_type)type) + vb;
                clq_tuning asked;
                if (clq_tuning_of(ctx, (clqsort_key_type)type, vb, &asked) == CLQSORT_SUCCESS &&
                    (!wide || clq_tuning_widen(ctx, elem, &asked)) &&
                    (asked.gq_wg != p->tuning.gq_wg || asked.lq_wg != p->tuning.lq_wg || asked.rl_wg != p->tuning.rl_wg))
                    printf("%s%s%s +%u B: built with work-groups of %u / %u / %u (phase one, phase two, relauncher), "
                           "the tuning asked %u / %u / %u\n",
                           types[type], desc ? " desc" : "", w, vb, p->tuning.gq_wg, p->tuning.lq_wg, p->tuning.rl_wg,
                           asked.gq_wg, asked.lq_wg, asked.rl_wg);
                for (int k = 0; k < CLQ_KERNELS; k++) {
                    const clq_kernel_desc *d = &clq_kernel_table[k];
                    cl_ulong used = 0;
                    cl_int err = clGetKernelWorkGroupInfo(p->all[k], clqsort_cl_device(ctx), CL_KERNEL_LOCAL_MEM_SIZE,
                                                          sizeof used, &used, NULL);
                    const cl_ulong est = clq_local_bytes(&p->tuning, elem, d->phase);
                    size_t most = 0;
                    const unsigned launched = *clq_work_group_of(&p->tuning, d->phase);
                    checks++;
                    if (clGetKernelWorkGroupInfo(p->all[k], clqsort_cl_device(ctx), CL_KERNEL_WORK_GROUP_SIZE, sizeof most,
                                                 &most, NULL) != CL_SUCCESS ||
                        most < launched) {
                        failures++;
                        printf("FAIL %s%s%s +%u B: %s allows %zu work-items per group, launched with %u\n",
                               types[type], desc ? " desc" : "", w, vb, d->name, most, launched);
                    }
                    checks++;
                    if (getenv("CLQSORT_TEST_VERBOSE"))
                        printf("%s%s%s +%u B: %s %llu of %llu bytes\n", types[type], desc ? " desc" : "", w, vb, d->name,
                               (unsigned long long)used, (unsigned long long)est);
                    if (err != CL_SUCCESS || used > est || used > ctx->local_mem_size) {
                        failures++;
                        printf("FAIL %s%s%s +%u B: %s uses %llu bytes of local memory (query %d); the tuning "
                               "assumes %llu, the device has %llu\n",
                               types[type], desc ? " desc" : "", w, vb, d->name, (unsigned long long)used, (int)err,
                               (unsigned long long)est, (unsigned long long)ctx->local_mem_size);
                    }
                }
                /* programs of 32-bit keys: the selection's kernels, within clq_select_local_bytes
                 * (where that fits the device: elsewhere partial sorts do not select) */
                const int selects = clq_key_bytes((clqsort_key_type)type) == 4 &&
                                    clq_select_local_bytes(&p->tuning) <= ctx->local_mem_size;
                if (selects && clq_get_select(ctx, p) != CLQSORT_SUCCESS) {
                    failures++;
                    printf("FAIL %s%s%s +%u B: the selection's build: %s\n", types[type], desc ? " desc" : "", w, vb,
                           clqsort_last_error(ctx));
                    continue;
                }
                for (int k = 0; selects && k < CLQ_SELECT_KERNELS; k++) {
                    cl_ulong used = 0;
                    cl_int err = clGetKernelWorkGroupInfo(p->select[k], clqsort_cl_device(ctx), CL_KERNEL_LOCAL_MEM_SIZE,
                                                          sizeof used, &used, NULL);
                    const cl_ulong est = clq_select_local_bytes(&p->select_tuning);
                    checks++;
                    if (err != CL_SUCCESS || used > est || used > ctx->local_mem_size) {
                        failures++;
                        printf("FAIL %s%s%s +%u B: %s uses %llu bytes of local memory (query %d); the host "
                               "assumes %llu, the device has %llu\n",
                               types[type], desc ? " desc" : "", w, vb, clq_select_names[k], (unsigned long long)used,
                               (int)err, (unsigned long long)est, (unsigned long long)ctx->local_mem_size);
                    }
                }
            }
    printf("test_kernel_facts on \"%s\": %d checks, %d failed\n", ctx->device_name, checks, failures);
    clqsort_release(ctx);
    return failures != 0 || checks == 0;
}
