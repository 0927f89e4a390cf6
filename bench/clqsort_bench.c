/*
 * clqsort-bench - sorts random keys with clqsort, verifies every run, and compares with qsort.
 *
 * Shaped like the console program of Intel's GPU-Quicksort article:
 *   clqsort-bench [iterations] [cpu|gpu|accelerator|all] [vendor] [width] [height] [show_CL|no_show_CL]
 * sorts width x height uint32 keys `iterations` times. Flags add sweeps:
 *   --n LIST       sizes, comma-separated, each a number or 2^k (replaces width x height)
 *   --dist LIST    distributions (uniform, gaussian, bucket, staggered, sorted, reverse, all-equal,
 *                  few-2, few-16, many-duplicates, power-law, upper-bits, sawtooth) or "all";
 *                  default uniform
 *   --runs N       timed runs per case (default: iterations, 5)
 *   --warmup N     untimed runs first (default 1; the first also builds the kernels)
 *   --csv FILE     append one line per case
 *   --json FILE    write every case as one object of a JSON array
 *   --type T       key type: uint32 (default), int32, float, uint64, int64, double
 *   --values B     sort pairs: B-byte values (4 or 8) set to each key's index, moved with the keys
 *   --no-qsort     skip the CPU qsort reference timing (the reference sort still verifies)
 *   --topk K       partial sort (clqsort_partial_sort): the K smallest keys sorted at the front;
 *                  verified: those K against the reference, the whole a permutation of the input
 *   --stable       CLQSORT_STABLE (with --values: equal keys' values checked in input order)
 *   --segments S   segmented sort (clqsort_sort_segments) in segments of shape S: fixed:LEN,
 *                  few:COUNT, pareto:MAX (lengths 1..MAX, P(len >= s) = 1/s), tiny, gaps:MAX;
 *                  every segment verified against the reference sort
 * Times: "device" is the sort alone, input restored from a device copy before each run and not
 * timed; "transfers" is writing the keys to the device and reading them back, timed apart.
 */
#define _POSIX_C_SOURCE 200809L
#include "clqsort.h"
#include "../tests/test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void usage(void)
{
    puts("usage: clqsort-bench [iterations] [cpu|gpu|accelerator|all] [vendor] [width] [height]\n"
         "                     [show_CL|no_show_CL] [--n LIST] [--dist LIST|all] [--runs N]\n"
         "                     [--warmup N] [--csv FILE] [--json FILE] [--type T] [--values 4|8] [--no-qsort]\n"
         "                     [--segments SHAPE] [--topk K] [--stable] [--help]\n"
         "Sorts width*height random uint32 keys (default 2048*2048) with clqsort on the chosen OpenCL\n"
         "device (default: CLQSORT_* environment, else the first GPU, else the first device), verifies\n"
         "every run against a CPU reference sort, and prints per-run and median times beside qsort.\n"
         "LIST: comma-separated; sizes as numbers or 2^k. Exit status 1 if any run is wrong.\n"
         "--segments fixed:LEN|few:COUNT|pareto:MAX|tiny|gaps:MAX: a segmented sort of that shape;\n"
         "--topk K: a partial sort of the K smallest (clqsort_partial_sort); --stable: CLQSORT_STABLE.");
}

static size_t parse_size(const char *s)
{
    if (s[0] == '2' && s[1] == '^')
        return (size_t)1 << atoi(s + 2);
    return (size_t)strtoull(s, NULL, 10);
}

static int is_number(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static void show_device(clqsort_context *ctx)
{
    clqsort_info i;
    clqsort_get_info(ctx, &i);
    printf("platform:        %s (%s)\n", i.platform_name, i.platform_vendor);
    printf("device:          %s\n", i.device_name);
    printf("version:         %s / %s\n", i.device_version, i.device_c_version);
    printf("compute units:   %u, max work-group %zu, local memory %llu bytes\n", i.compute_units,
           i.max_work_group_size, (unsigned long long)i.local_mem_size);
    printf("device enqueue:  %s\n", i.device_enqueue_supported ? "supported" : "not supported");
    printf("execution path:  %s\n", i.path == CLQSORT_PATH_DEVICE_ENQUEUE ? "device-enqueue" : "host-loop");
    printf("tuning:          gqsort %u x %u keys, %u ways; lqsort %u items, %u ways, <= %u keys, one item <= %u\n",
           i.gqsort_work_group, i.gqsort_keys_per_item, i.gqsort_ways, i.lqsort_work_group, i.lqsort_ways, i.lqsort_max,
           i.lqsort_small);
}

int main(int argc, char **argv)
{
    int iterations = 5, warmup = 1, show = 0, numbers = 0, no_qsort = 0;
    size_t width = 2048, height = 2048;
    const char *n_list = NULL, *dist_list = "uniform", *csv_path = NULL, *json_path = NULL;
    clqsort_key_type type = CLQSORT_KEY_UINT32;
    size_t vsize = 0;
    const char *seg_spec = NULL;
    unsigned sort_flags = 0;
    long long topk = -1;
    tu_seg_shape seg_shape = TU_SEG_FIXED;
    size_t seg_param = 0;
    clqsort_options opt;
    clqsort_options_init(&opt);

    for (int a = 1; a < argc; a++) {
        const char *s = argv[a];
        if (!strcmp(s, "--help") || !strcmp(s, "-h") || !strcmp(s, "-?")) {
            usage();
            return 0;
        } else if (!strcmp(s, "--n") && a + 1 < argc) {
            n_list = argv[++a];
        } else if (!strcmp(s, "--dist") && a + 1 < argc) {
            dist_list = argv[++a];
        } else if (!strcmp(s, "--runs") && a + 1 < argc) {
            iterations = atoi(argv[++a]);
        } else if (!strcmp(s, "--warmup") && a + 1 < argc) {
            warmup = atoi(argv[++a]);
        } else if (!strcmp(s, "--csv") && a + 1 < argc) {
            csv_path = argv[++a];
        } else if (!strcmp(s, "--json") && a + 1 < argc) {
            json_path = argv[++a];
        } else if (!strcmp(s, "--type") && a + 1 < argc) {
            const char *name = argv[++a];
            int t = 0;
            while (t < 6 && strcmp(tu_type_names[t], name))
                t++;
            if (t == 6) {
                fprintf(stderr, "unknown type %s (uint32, int32, float, uint64, int64, double)\n", name);
                return 2;
            }
            type = (clqsort_key_type)t;
        } else if (!strcmp(s, "--values") && a + 1 < argc) {
            vsize = (size_t)atoi(argv[++a]);
            if (vsize != 4 && vsize != 8) {
                fprintf(stderr, "--values takes 4 or 8\n");
                return 2;
            }
        } else if (!strcmp(s, "--segments") && a + 1 < argc) {
            seg_spec = argv[++a];
            const char *colon = strchr(seg_spec, ':');
            const size_t len = colon ? (size_t)(colon - seg_spec) : strlen(seg_spec);
            int found = 0;
            for (int i = 0; i < TU_SEG_SHAPES && !found; i++)
                if (strlen(tu_seg_shape_name((tu_seg_shape)i)) == len && !strncmp(seg_spec, tu_seg_shape_name((tu_seg_shape)i), len)) {
                    seg_shape = (tu_seg_shape)i;
                    found = 1;
                }
            seg_param = colon ? (size_t)strtoull(colon + 1, NULL, 0) : 0;
            if (!found || (colon && !seg_param)) {
                fprintf(stderr, "--segments takes fixed:LEN, few:COUNT, pareto:MAX, tiny or gaps:MAX\n");
                return 2;
            }
        } else if (!strcmp(s, "--topk") && a + 1 < argc) {
            topk = atoll(argv[++a]);
            if (topk < 0) {
                fprintf(stderr, "--topk takes a count of keys\n");
                return 2;
            }
        } else if (!strcmp(s, "--stable")) {
            sort_flags |= CLQSORT_STABLE;
        } else if (!strcmp(s, "--no-qsort")) {
            no_qsort = 1;
        } else if (s[0] == '-') {
            fprintf(stderr, "unknown option %s (see --help)\n", s);
            return 2;
        } else if (is_number(s)) {
            size_t v = strtoull(s, NULL, 10);
            if (numbers == 0)
                iterations = (int)v;
            else if (numbers == 1)
                width = v;
            else
                height = v;
            numbers++;
        } else if (!strcmp(s, "cpu")) {
            opt.device_type = CLQSORT_DEVICE_CPU;
        } else if (!strcmp(s, "gpu")) {
            opt.device_type = CLQSORT_DEVICE_GPU;
        } else if (!strcmp(s, "accelerator")) {
            opt.device_type = CLQSORT_DEVICE_ACCELERATOR;
        } else if (!strcmp(s, "all")) {
            opt.device_type = CLQSORT_DEVICE_ALL;
        } else if (!strcmp(s, "show_CL")) {
            show = 1;
        } else if (!strcmp(s, "no_show_CL")) {
            show = 0;
        } else {
            opt.vendor = s;
        }
    }
    if (iterations < 1)
        iterations = 1;

    clqsort_context *ctx;
    if (clqsort_create(&ctx, &opt) != CLQSORT_SUCCESS) {
        fprintf(stderr, "%s\n", clqsort_last_error(NULL));
        return 2;
    }
    clqsort_info info;
    clqsort_get_info(ctx, &info);
    if (show)
        show_device(ctx);
    else
        printf("device: %s (%s), path %s\n", info.device_name, info.platform_name,
               info.path == CLQSORT_PATH_DEVICE_ENQUEUE ? "device-enqueue" : "host-loop");

    size_t sizes[64];
    int nsizes = 0;
    if (n_list) {
        char *copy = strdup(n_list);
        for (char *t = strtok(copy, ","); t && nsizes < 64; t = strtok(NULL, ","))
            sizes[nsizes++] = parse_size(t);
        free(copy);
    } else {
        sizes[nsizes++] = width * height;
    }
    int dists[TU_DIST_COUNT], ndists = 0;
    if (!strcmp(dist_list, "all")) {
        for (int d = 0; d < TU_DIST_COUNT; d++)
            dists[ndists++] = d;
    } else {
        char *copy = strdup(dist_list);
        for (char *t = strtok(copy, ","); t && ndists < TU_DIST_COUNT; t = strtok(NULL, ",")) {
            int d = tu_dist_parse(t);
            if (d < 0) {
                fprintf(stderr, "unknown distribution %s\n", t);
                return 2;
            }
            dists[ndists++] = d;
        }
        free(copy);
    }
    FILE *csv = NULL;
    if (csv_path) {
        csv = fopen(csv_path, "a");
        if (!csv) {
            perror(csv_path);
            return 2;
        }
        if (ftell(csv) == 0)
            fprintf(csv, "library,device,path,type,dist,n,runs,median_ms,min_ms,transfer_ms,mkeys_per_s,qsort_ms,"
                         "levels,launches,round_trips,verified\n");
    }

    FILE *json = NULL;
    if (json_path) {
        json = fopen(json_path, "w");
        if (!json) {
            perror(json_path);
            return 2;
        }
        fputs("[\n", json);
    }
    int json_rows = 0;
    int failures = 0;
    const size_t w = tu_width_of(type);
    for (int si = 0; si < nsizes; si++) {
        const size_t n = sizes[si];
        unsigned char *keys = malloc(n * w + 8), *ref = malloc(n * w + 8), *out = malloc(n * w + 8);
        unsigned char *vals = malloc(n * 8 + 8), *outv = malloc(n * 8 + 8);
        if (!keys || !ref || !out || !vals || !outv) {
            fprintf(stderr, "out of host memory for %zu keys\n", n);
            return 2;
        }
        for (size_t i = 0; i < n && vsize; i++) {
            uint64_t v = i;
            memcpy(vals + i * vsize, &v, vsize);
        }
        /* segmented: the offsets, on the device once */
        uint32_t *seg_begin = NULL, *seg_end = NULL;
        size_t segments = 0;
        int ends_given = 0;
        cl_mem seg_b = NULL, seg_e = NULL;
        char dist_label[96];
        if (seg_spec) {
            seg_begin = malloc((n + 2) * 4);
            seg_end = malloc((n + 2) * 4);
            if (!seg_begin || !seg_end) {
                fprintf(stderr, "out of host memory for the segments\n");
                return 2;
            }
            tu_make_segments(seg_shape, seg_param, n, info.lqsort_small, info.lqsort_max, 777, seg_begin, seg_end,
                             &segments, &ends_given);
            cl_int err;
            seg_b = clCreateBuffer(clqsort_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (segments + 1) * 4,
                                   seg_begin, &err);
            if (ends_given)
                seg_e = clCreateBuffer(clqsort_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       segments * 4 + 4, seg_end, &err);
            if (!seg_b || (ends_given && !seg_e)) {
                fprintf(stderr, "clCreateBuffer for %zu segments failed: %d\n", segments, (int)err);
                return 2;
            }
            printf("segments %s: %zu of them over %zu keys\n", seg_spec, segments, n);
        }
        for (int di = 0; di < ndists; di++) {
            const tu_dist d = (tu_dist)dists[di];
            char topk_label[32] = "";
            if (topk >= 0)
                snprintf(topk_label, sizeof topk_label, "/topk=%lld", topk);
            snprintf(dist_label, sizeof dist_label, "%s%s%s%s%s", tu_dist_name(d), seg_spec ? "/segments=" : "",
                     seg_spec ? seg_spec : "", (sort_flags & CLQSORT_STABLE) ? "/stable" : "", topk_label);
            tu_generate_typed(type, d, keys, n, 12345 + n);
            memcpy(ref, keys, n * w);
            double t0 = now_ms();
            if (seg_spec && topk < 0) /* each segment sorted, once: every run is checked against it
                                          (and the CPU sort column times this) */
                tu_sort_segments_typed(type, 0, ref, seg_begin, ends_given ? seg_end : NULL, segments);
            else if (type == CLQSORT_KEY_UINT32 && !no_qsort)
                qsort(ref, n, 4, cmp_u32); /* the CPU peer the article compares with */
            else
                tu_sort_typed(type, 0, ref, n); /* radix sort; timed as "CPU sort" for other types */
            double qsort_ms = no_qsort ? 0 : now_ms() - t0;

            cl_int err;
            cl_context c = clqsort_cl_context(ctx);
            cl_command_queue q = clqsort_cl_queue(ctx);
            cl_mem src = clCreateBuffer(c, CL_MEM_READ_WRITE, n * w + 8, NULL, &err);
            cl_mem work = clCreateBuffer(c, CL_MEM_READ_WRITE, n * w + 8, NULL, &err);
            cl_mem vsrc = vsize ? clCreateBuffer(c, CL_MEM_READ_WRITE, n * vsize + 8, NULL, &err) : NULL;
            cl_mem vwork = vsize ? clCreateBuffer(c, CL_MEM_READ_WRITE, n * vsize + 8, NULL, &err) : NULL;
            if (!src || !work || (vsize && (!vsrc || !vwork))) {
                fprintf(stderr, "clCreateBuffer for %zu keys failed: %d\n", n, (int)err);
                return 2;
            }
            double *dev_ms = malloc(sizeof(double) * (size_t)iterations);
            double *xfer_ms = malloc(sizeof(double) * (size_t)iterations);
            int ok_runs = 0;
            clqsort_stats stats = {0};
            char why[256] = "";
            for (int r = -warmup; r < iterations; r++) {
                /* transfers, timed apart from the sort */
                double x0 = now_ms();
                clEnqueueWriteBuffer(q, src, CL_TRUE, 0, n * w, keys, 0, NULL, NULL);
                if (vsize)
                    clEnqueueWriteBuffer(q, vsrc, CL_TRUE, 0, n * vsize, vals, 0, NULL, NULL);
                double x1 = now_ms();
                clEnqueueCopyBuffer(q, src, work, 0, 0, n * w + 8, 0, NULL, NULL);
                if (vsize)
                    clEnqueueCopyBuffer(q, vsrc, vwork, 0, 0, n * vsize + 8, 0, NULL, NULL);
                clFinish(q);
                double s0 = now_ms();
                const size_t k = topk < 0 ? 0 : (size_t)topk > n ? n : (size_t)topk;
                clqsort_status s = topk >= 0 ? clqsort_partial_sort(ctx, work, 0, vwork, 0, n, type, vsize, k, sort_flags)
                                   : seg_spec ? clqsort_sort_segments(ctx, work, 0, vwork, 0, n, type, vsize, seg_b, seg_e,
                                                                    segments, sort_flags)
                                   : vsize  ? clqsort_sort_pairs(ctx, work, vwork, n, type, vsize, sort_flags)
                                            : clqsort_sort(ctx, work, n, type, sort_flags);
                clFinish(q);
                double s1 = now_ms();
                double x2 = now_ms();
                clEnqueueReadBuffer(q, work, CL_TRUE, 0, n * w, out, 0, NULL, NULL);
                if (vsize)
                    clEnqueueReadBuffer(q, vwork, CL_TRUE, 0, n * vsize, outv, 0, NULL, NULL);
                double x3 = now_ms();
                int ok = s == CLQSORT_SUCCESS;
                if (!ok)
                    fprintf(stderr, "sort failed: %s\n", clqsort_last_error(ctx));
                else if (topk >= 0) { /* the first k by the order, then the whole a permutation */
                    for (size_t i = 0; i < k && ok; i++)
                        ok = tu_code_of(type, out + i * w) == tu_code_of(type, ref + i * w);
                    if (!ok)
                        snprintf(why, sizeof why, "the first %zu keys are not the reference's", k);
                    if (ok && !vsize) {
                        memcpy(outv, out, n * w < n * 8 ? n * w : n * 8); /* outv: room for n * 8 bytes */
                        tu_sort_typed(type, 0, outv, n);
                        ok = tu_verify_sorted(type, 0, ref, outv, n, why, sizeof why);
                    }
                } else if (seg_spec)
                    ok = tu_verify_segments_ref(type, 0, keys, ref, out, vals, outv, vsize, n, seg_begin,
                                                ends_given ? seg_end : NULL, segments, why, sizeof why);
                else if (type == CLQSORT_KEY_UINT32 && !vsize)
                    ok = !memcmp(out, ref, n * w);
                else
                    ok = tu_verify_sorted(type, 0, ref, out, n, why, sizeof why);
                if (ok && vsize && !seg_spec) /* every (key, index) pair came from the input, each index once */
                    ok = tu_verify_values(type, keys, out, outv, vsize, n, why, sizeof why);
                if (ok && vsize && (sort_flags & CLQSORT_STABLE)) /* a partial sort: its first k */
                    ok = tu_verify_stable(type, out, outv, vsize, topk >= 0 ? k : n, why, sizeof why);
                if (r < 0) { /* not timed, but a wrong warm-up run fails the bench too */
                    if (!ok) {
                        fprintf(stderr, "warm-up run: WRONG OUTPUT%s%s\n", *why ? ": " : "", why);
                        failures++;
                    }
                    continue;
                }
                clqsort_get_stats(ctx, &stats);
                dev_ms[r] = s1 - s0;
                xfer_ms[r] = (x1 - x0) + (x3 - x2);
                ok_runs += ok;
                if (!ok)
                    failures++;
                if (nsizes == 1 && ndists == 1)
                    printf("run %d: %.3f ms sort, %.3f ms transfers, %s\n", r + 1, dev_ms[r], xfer_ms[r],
                           ok ? "verified" : "WRONG OUTPUT");
            }
            double min_ms = dev_ms[0];
            for (int r = 1; r < iterations; r++)
                if (dev_ms[r] < min_ms)
                    min_ms = dev_ms[r];
            double med = median(dev_ms, iterations), xmed = median(xfer_ms, iterations);
            printf("n=%zu %s %s%s: median %.3f ms (%.1f Mkeys/s), min %.3f ms, transfers %.3f ms; %s %.3f ms "
                   "(%.1fx); levels %u, launches %u, round trips %u, selected %u, root slices %u, phase-two records %u; "
                   "%d/%d runs verified\n",
                   n, tu_type_names[type], dist_label, vsize ? (vsize == 4 ? " +4B values" : " +8B values") : "",
                   med, med > 0 ? n / med / 1e3 : 0.0, min_ms, xmed, type == CLQSORT_KEY_UINT32 ? "qsort" : "CPU sort",
                   qsort_ms, med > 0 ? qsort_ms / med : 0.0, stats.phase_one_levels, stats.kernel_launches,
                   stats.host_round_trips, stats.selected_keys, stats.root_slices, stats.phase_two_records, ok_runs,
                   iterations);
            fflush(stdout);
            fprintf(stderr, "[%d/%d sizes] n=%zu %s done\n", si + 1, nsizes, n, tu_dist_name(d));
            if (csv)
                fprintf(csv, "clqsort,\"%s\",%s,%s%s,%s,%zu,%d,%.4f,%.4f,%.4f,%.2f,%.3f,%u,%u,%u,%d\n",
                        info.device_name, info.path == CLQSORT_PATH_DEVICE_ENQUEUE ? "device-enqueue" : "host-loop",
                        tu_type_names[type], vsize ? (vsize == 4 ? "+u32" : "+u64") : "", dist_label, n,
                        iterations, med, min_ms, xmed, med > 0 ? n / med / 1e3 : 0.0, qsort_ms,
                        stats.phase_one_levels, stats.kernel_launches, stats.host_round_trips, ok_runs == iterations);
            if (csv)
                fflush(csv); /* a sweep cut short by a time limit keeps the rows it finished */
            if (json)
                fprintf(json,
                        "%s  {\"library\": \"clqsort\", \"device\": \"%s\", \"path\": \"%s\", \"type\": \"%s\", "
                        "\"values\": %zu, \"dist\": \"%s\", \"n\": %zu, \"runs\": %d, \"median_ms\": %.4f, "
                        "\"min_ms\": %.4f, \"transfer_ms\": %.4f, \"cpu_sort_ms\": %.3f, \"levels\": %u, "
                        "\"launches\": %u, \"round_trips\": %u, \"verified_runs\": %d}",
                        json_rows++ ? ",\n" : "", info.device_name,
                        info.path == CLQSORT_PATH_DEVICE_ENQUEUE ? "device-enqueue" : "host-loop", tu_type_names[type],
                        vsize, dist_label, n, iterations, med, min_ms, xmed, qsort_ms, stats.phase_one_levels,
                        stats.kernel_launches, stats.host_round_trips, ok_runs);
            free(dev_ms);
            free(xfer_ms);
            clReleaseMemObject(src);
            clReleaseMemObject(work);
            if (vsize) {
                clReleaseMemObject(vsrc);
                clReleaseMemObject(vwork);
            }
        }
        free(keys), free(ref), free(out), free(vals), free(outv);
        free(seg_begin), free(seg_end);
        if (seg_b)
            clReleaseMemObject(seg_b);
        if (seg_e)
            clReleaseMemObject(seg_e);
    }
    if (csv)
        fclose(csv);
    if (json) {
        fputs("\n]\n", json);
        fclose(json);
    }
    clqsort_release(ctx);
    if (failures)
        fprintf(stderr, "%d runs gave wrong output\n", failures);
    return failures ? 1 : 0;
}
