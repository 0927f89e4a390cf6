/*
 * test_cycles.c - create, sort and release a context many times: the process's resident memory
 * must stay flat once warm, and nothing may be left behind: the library's host allocations are
 * counted after every release, and so are the OpenCL objects when the tests' fault layer is loaded
 * (OPENCL_LAYERS); under AddressSanitizer, LeakSanitizer checks the whole process at exit.
 *
 * Resident memory is compared as a floor: the least of the samples taken over the tenth of the
 * cycles after warm-up against the least over the last tenth, each sample after malloc_trim where
 * glibc has it. A leak raises every sample; what a single sample may hold without a leak does not
 * count: free heap glibc kept (its trim threshold rises with the sizes freed) and what pocl's
 * worker threads release a moment after the release returns. On a loaded CI machine those made a
 * single end-of-run sample read up to 3 MiB high with no leak; the floor read at most 0.6 MiB.
 *
 *   test_cycles [--cycles N] [--n KEYS] [--max-growth-kib K] [--trace EVERY]
 */
#include "fault_layer.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* resident set size in KiB, from /proc/self/statm (0 where there is none), after handing the
 * allocator's free pages back */
static long resident_kib(void)
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
    fclose(f);
    return resident * 4;
}

int main(int argc, char **argv)
{
    int cycles = 1000;
    size_t n = 10000;
    long max_growth_kib = 2048;
    int trace = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--cycles"))
            cycles = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n"))
            n = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-growth-kib"))
            max_growth_kib = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--trace"))
            trace = atoi(argv[i + 1]);
    }
    clqsort_set_memory_allocator(tu_counting_malloc, tu_counting_free);
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
    /* cycles [0, warm) warm up; the floor is taken over [warm, 2 warm) and over the last warm */
    const int warm = cycles / 10 > 0 ? cycles / 10 : 1;
    long floor_early = -1, floor_late = -1, objects = -1;
    char why[256];
    for (int c = 0; c < cycles; c++) {
        clqsort_context *ctx;
        clqsort_status s = clqsort_create(&ctx, NULL);
        CHECK(s == CLQSORT_SUCCESS, "cycle %d: create: %s", c, clqsort_last_error(NULL));
        if (s != CLQSORT_SUCCESS)
            break;
        tu_generate((tu_dist)(c % TU_DIST_COUNT), in, n, (uint64_t)c);
        memcpy(out, in, n * 4);
        s = clqsort_sort_host(ctx, out, n, CLQSORT_KEY_UINT32, 0);
        CHECK(s == CLQSORT_SUCCESS, "cycle %d: sort: %s", c, clqsort_last_error(ctx));
        CHECK(s != CLQSORT_SUCCESS || tu_verify(in, out, n, why, sizeof why), "cycle %d: %s", c, why);
        clqsort_release(ctx);
        CHECK(tu_alloc_live == 0, "cycle %d: %ld host allocations of the library left after release", c, tu_alloc_live);
        if (objects < 0)
            objects = fl_live_objects();
        CHECK(fl_live_objects() == objects, "cycle %d: %ld OpenCL objects left after release", c,
              fl_live_objects() - objects);
        if (tu_alloc_live || fl_live_objects() != objects)
            break;
        const int early = c >= warm && c < 2 * warm, late = c >= cycles - warm;
        if (early || late || (trace > 0 && (c + 1) % trace == 0)) {
            const long rss = resident_kib();
            long *floor = early ? &floor_early : late ? &floor_late : NULL;
            if (floor && (*floor < 0 || rss < *floor))
                *floor = rss;
            if (trace > 0 && (c + 1) % trace == 0)
                printf("after %d cycles: resident %ld KiB\n", c + 1, rss);
        }
    }
    printf("%d cycles of create / sort %zu keys / release: resident at least %ld KiB over cycles %d-%d, "
           "at least %ld KiB over the last %d (%+ld KiB); OpenCL objects %s\n",
           cycles, n, floor_early, warm, 2 * warm - 1, floor_late, warm, floor_late - floor_early,
           fl_active() ? "counted after every cycle" : "not counted (the fault layer is not loaded)");
    CHECK(floor_late - floor_early <= max_growth_kib, "resident memory's floor grew by %ld KiB over %d cycles (at most %ld)",
          floor_late - floor_early, cycles - 2 * warm, max_growth_kib);
    free(in);
    free(out);
    return tu_finish("test_cycles");
}
