/*
 * test_cycles.c - create, sort and release a context many times: the process's resident memory
 * must stay flat once warm, and nothing may be left behind: the library's host allocations are
 * counted after every release, and so are the OpenCL objects when the tests' fault layer is loaded
 * (OPENCL_LAYERS); under AddressSanitizer, LeakSanitizer checks the whole process at exit.
 *
 *   test_cycles [--cycles N] [--n KEYS] [--max-growth-kib K]
 */
#include "fault_layer.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

/* resident set size in KiB, from /proc/self/statm (0 where there is none) */
static long resident_kib(void)
{
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
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--cycles"))
            cycles = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n"))
            n = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-growth-kib"))
            max_growth_kib = atol(argv[i + 1]);
    }
    clqsort_set_memory_allocator(tu_counting_malloc, tu_counting_free);
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
    const int warm = cycles / 10;
    long rss_warm = 0, rss_end = 0, objects = -1;
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
        if (c + 1 == warm)
            rss_warm = resident_kib();
    }
    rss_end = resident_kib();
    printf("%d cycles of create / sort %zu keys / release: resident %ld KiB after %d, %ld KiB at the end (%+ld KiB); "
           "OpenCL objects %s\n",
           cycles, n, rss_warm, warm, rss_end, rss_end - rss_warm,
           fl_active() ? "counted after every cycle" : "not counted (the fault layer is not loaded)");
    CHECK(rss_end - rss_warm <= max_growth_kib, "resident memory grew by %ld KiB over %d cycles (at most %ld)",
          rss_end - rss_warm, cycles - warm, max_growth_kib);
    free(in);
    free(out);
    return tu_finish("test_cycles");
}
