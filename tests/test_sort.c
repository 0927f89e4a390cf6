/*
 * test_sort.c - correctness: every size class and key distribution, checked for order and
 * permutation against a CPU reference sort, on the device the environment selects.
 * A host-loop sort waits for the device once, or more where it took more phase-one levels than
 * uniform keys of its count need (README.md, "Levels enqueued": the first round enqueues those,
 * and the tuning's level_margin more: 0 on NVIDIA, all levels elsewhere; each further round at
 * least one level with work). With CLQSORT_TEST_LEVEL_ROUNDS=both, some sorts of the run must
 * take one round trip and some more. The spread path (README.md) waits once more where a group's
 * keys did not fit and the tile path sorted them again (clqsort_stats.spilled). With
 * CLQSORT_TEST_SPREAD=sorted some sorts of the run must take the spread path and none may spill
 * (a spill would hide a wrong split behind the tile path); with =spilled some must spill: a path
 * that did not run never counts as passed.
 *
 *   test_sort [--tiny | --quick | --large]
 *     --tiny   nine sizes up to 1100 keys, around the boundaries of a small tuning (for
 *              oclgrind, which simulates every work-item and checks every access)
 *     --quick  sizes up to a few thousand keys
 *     default  sizes up to 2^20, every boundary of the kernels' tuning +-1
 *     --large  adds 2^21 and 2^22 keys for every distribution
 */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static size_t sizes[512];
static size_t nsizes;

static void add_size(size_t n, size_t limit)
{
    if (n > limit)
        return;
    for (size_t i = 0; i < nsizes; i++)
        if (sizes[i] == n)
            return;
    if (nsizes < sizeof sizes / sizeof sizes[0])
        sizes[nsizes++] = n;
}

static void add_around(size_t n, size_t limit)
{
    if (n > 0)
        add_size(n - 1, limit);
    add_size(n, limit);
    add_size(n + 1, limit);
}

/* The phase-one levels uniform keys of count n need, by README.md's rule ("Levels enqueued"):
 * splits by length into buckets of about lq_max / 2, at most `ways` of them, while a bucket
 * holds more than 3/4 of lq_max. Written from the rule, not from the library's code. */
static unsigned uniform_levels(size_t n, unsigned ways, unsigned lq_max)
{
    const size_t half = lq_max / 2 ? lq_max / 2 : 1;
    unsigned levels = 0;
    for (size_t len = n; len > (size_t)lq_max / 4 * 3; levels++) {
        const size_t parts = (len - 1) / half + 1;
        unsigned w = 2;
        while (w < parts && w < ways)
            w *= 2;
        len = (len + w - 1) / w;
    }
    return levels;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int tiny = argc > 1 && !strcmp(argv[1], "--tiny");
    int quick = tiny || (argc > 1 && !strcmp(argv[1], "--quick"));
    int large = argc > 1 && !strcmp(argv[1], "--large");
    const int verbose = getenv("CLQSORT_TEST_VERBOSE") != NULL;
    const char *rounds_env = getenv("CLQSORT_TEST_LEVEL_ROUNDS");
    const int require_both = rounds_env && !strcmp(rounds_env, "both");
    unsigned rounds_seen[2] = {0, 0};
    const char *spread_env = getenv("CLQSORT_TEST_SPREAD");
    unsigned spread_seen[2] = {0, 0}; /* sorts on the spread path: without a spill, with one */
    const size_t limit = quick ? 3000 : large ? (1u << 22) : (1u << 20);

    clqsort_context *ctx = tu_create_or_die();
    clqsort_info info;
    clqsort_get_info(ctx, &info);
    printf("device \"%s\" (%s), path %s; tuning gq %ux%u (%u ways), lq %u (%u ways), phase two <= %u keys, "
           "one work-item <= %u\n",
           info.device_name, info.platform_name,
           info.path == CLQSORT_PATH_DEVICE_ENQUEUE ? "device-enqueue" : "host-loop", info.gqsort_work_group,
           info.gqsort_keys_per_item, info.gqsort_ways, info.lqsort_work_group, info.lqsort_ways, info.lqsort_max,
           info.lqsort_small);

    if (tiny) {
        static const size_t few[] = {0, 1, 2, 3, 33, 130, 257, 300, 1100};
        for (size_t i = 0; i < sizeof few / sizeof few[0]; i++)
            add_size(few[i], limit);
    }
    /* CLQSORT_TEST_EXPECT_PATH: the run fails unless the context runs that path, and its sorts
     * launch kernels from the device, so that a path that did not run never counts as passed */
    const char *expect = getenv("CLQSORT_TEST_EXPECT_PATH");
    const int expect_enqueue = expect && !strcmp(expect, "device-enqueue");
    if (expect) {
        CHECK(!strcmp(expect, "device-enqueue") || !strcmp(expect, "host-loop"), "CLQSORT_TEST_EXPECT_PATH=%s", expect);
        CHECK(info.path == (expect_enqueue ? CLQSORT_PATH_DEVICE_ENQUEUE : CLQSORT_PATH_HOST_LOOP),
              "expected the %s path, the context runs %s", expect,
              info.path == CLQSORT_PATH_DEVICE_ENQUEUE ? "device-enqueue" : "host-loop");
    }

    /* tu_expect_ways: sorts of the counts listed must report W phase-one ways, and here every
     * other sort W / 2 (uint32 keys alone: the list is exact) */
    tu_ways_spec wide;
    tu_expect_ways(&wide);

    /* small sizes and primes */
    static const size_t small[] = {0, 1, 2, 3, 4, 5, 7, 11, 13, 17, 31, 61, 97, 127, 251, 509, 1021, 2039};
    for (size_t i = 0; i < sizeof small / sizeof small[0] && !tiny; i++)
        add_size(small[i], limit);
    /* powers of two +-1 */
    for (size_t p = 4; p <= limit + 1 && !tiny; p *= 2)
        add_around(p, limit);
    /* every boundary of the kernels: phase-one block (and two), phase-two limit (and a level
     * above it), one work-item's limit in phase two, fill chunk */
    const size_t block = (size_t)info.gqsort_work_group * info.gqsort_keys_per_item;
    if (!tiny) {
        add_around(block, limit);
        add_around(2 * block, limit);
        add_around(info.lqsort_max, limit);
        add_around(2 * (size_t)info.lqsort_max, limit);
        add_around(info.lqsort_small, limit);
    }
    if (!quick) {
        add_size(100003, limit); /* primes well above every threshold */
        add_size(999983, limit);
    }
    qsort(sizes, nsizes, sizeof sizes[0], cmp_size);

    const size_t max_n = sizes[nsizes - 1];
    uint32_t *in = malloc((max_n + 1) * sizeof *in), *out = malloc((max_n + 1) * sizeof *out);
    if (!in || !out)
        return 2;
    char why[256];
    for (size_t si = 0; si < nsizes; si++) {
        const size_t n = sizes[si];
        for (int d = 0; d < TU_DIST_COUNT; d++) {
            /* above 2^18 the default run keeps the distributions that stress different paths */
            if (!quick && !large && n > (1u << 18) && d != TU_UNIFORM && d != TU_SORTED && d != TU_ALL_EQUAL &&
                d != TU_FEW_2 && d != TU_GAUSSIAN)
                continue;
            tu_generate((tu_dist)d, in, n, n * 31 + (uint64_t)d);
            if (verbose)
                fprintf(stderr, "case n=%zu %s\n", n, tu_dist_name((tu_dist)d));
            memset(out, 0xa5, n * sizeof *out);
            if (tiny && (si || d)) {
                /* A new context per case: oclgrind 21.10 reports kernel-written scratch as
                 * uninitialized once a context has reallocated its scratch buffers (the output
                 * is verified correct; pocl runs the reuse case in test_api). */
                clqsort_release(ctx);
                ctx = tu_create_or_die();
            }
            clqsort_status s = tu_sort_host(ctx, in, n, out);
            CHECK(s == CLQSORT_SUCCESS, "n=%zu %s: status %d: %s", n, tu_dist_name((tu_dist)d), s,
                  clqsort_last_error(ctx));
            if (s == CLQSORT_SUCCESS)
                CHECK(tu_verify(in, out, n, why, sizeof why), "n=%zu %s: %s", n, tu_dist_name((tu_dist)d), why);
            clqsort_stats st;
            clqsort_get_stats(ctx, &st);
            /* Both paths wait for the device once per sort; on the device-enqueue path the host
             * launches one kernel and the rest come from the device. A host-loop sort may wait
             * again after the levels uniform keys need, once per further round, each of which
             * has at least one level of work, so only where it took more levels than those. */
            if (n >= 2) {
                const unsigned uniform = uniform_levels(n, st.phase_one_ways, info.lqsort_max);
                const unsigned more = info.path == CLQSORT_PATH_HOST_LOOP && st.phase_one_levels > uniform
                                          ? st.phase_one_levels - uniform
                                          : 0u;
                CHECK(st.host_round_trips >= 1 && st.host_round_trips <= 1 + more + st.spilled &&
                          (expect_enqueue ? st.kernel_launches >= 2 : 1),
                      "n=%zu %s: %u launches, %u round trips, %u phase-one levels (uniform keys: %u) (%s path)", n,
                      tu_dist_name((tu_dist)d), st.kernel_launches, st.host_round_trips, st.phase_one_levels, uniform,
                      expect_enqueue ? "device-enqueue" : "host-loop");
                rounds_seen[st.host_round_trips >= 2] += s == CLQSORT_SUCCESS;
                CHECK(!st.spilled || st.spread_groups, "n=%zu %s: spilled without the spread path", n,
                      tu_dist_name((tu_dist)d));
                if (st.spread_groups && s == CLQSORT_SUCCESS)
                    spread_seen[st.spilled != 0]++;
            }
            if (wide.ways && n >= 2) {
                const unsigned long want = tu_ways_wide_at(&wide, n) ? wide.ways : wide.ways / 2;
                CHECK(st.phase_one_ways == want, "n=%zu: %u phase-one ways, expected %lu", n, st.phase_one_ways,
                      want);
            }
        }
    }
    printf("sizes tested: %zu (0 .. %zu), distributions: %d; spread path: %u sorts, %u of them spilled\n", nsizes,
           max_n, TU_DIST_COUNT, spread_seen[0] + spread_seen[1], spread_seen[1]);
    if (spread_env) {
        const int spilled = !strcmp(spread_env, "spilled");
        CHECK(spilled || !strcmp(spread_env, "sorted"), "CLQSORT_TEST_SPREAD=%s: sorted or spilled", spread_env);
        CHECK(spread_seen[spilled] > 0, "CLQSORT_TEST_SPREAD=%s: no sort on the spread path %s", spread_env,
              spilled ? "spilled" : "went without a spill");
        CHECK(spilled || spread_seen[1] == 0, "CLQSORT_TEST_SPREAD=sorted: %u sorts spilled", spread_seen[1]);
    }
    if (require_both) /* both kinds of sort must have run, or the second round went untested */
        CHECK(rounds_seen[0] > 0 && rounds_seen[1] > 0, "CLQSORT_TEST_LEVEL_ROUNDS=both: %u sorts in one round trip, %u in more",
              rounds_seen[0], rounds_seen[1]);
    free(in);
    free(out);
    clqsort_release(ctx);
    return tu_finish("test_sort");
}
