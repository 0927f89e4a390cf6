/*
 * launch_cost.c - what the host pays for the OpenCL commands a sort is made of, on one device.
 *
 * Small sorts are bound by commands, not by keys: this program times the shapes that clqsort's
 * host loop uses (launches, the status words' write and read, the wait) with kernels that do
 * nothing, so that a change to the schedule can be judged by what it removes. Each case runs
 * `runs` times after a warm-up; it prints the median host time to enqueue the case's commands
 * and the median (and minimum) time until the case's wait returned, as CSV rows.
 *
 * usage: clqsort-launch-cost [runs] [vendor]   (vendor: a substring of the platform vendor)
 */
#include "bench_cl.h"

#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static const char *const source =
    "__kernel void nothing(__global uint *p, uint n) { if (get_global_id(0) == 0 && n == 12345u) p[0] = 1u; }\n"
    "__kernel void busy(__global uint *p, uint n) {\n"
    "    uint x = (uint)get_global_id(0);\n"
    "    for (uint i = 0; i < n; i++) x = x * 1664525u + 1013904223u;\n"
    "    if (x == 12345u) p[0] = x;\n"
    "}\n"
    "__kernel void words(__global uint *p, uint16 a, uint16 b) {\n"
    "    const uint i = (uint)get_global_id(0);\n"
    "    union { uint16 v[2]; uint w[32]; } u;\n"
    "    u.v[0] = a;\n"
    "    u.v[1] = b;\n"
    "    if (i < 32u) p[i] = u.w[i];\n"
    "}\n";

enum { WORDS = 64 };

typedef struct bench {
    cl_command_queue q;
    cl_kernel k, busy; /* busy: the last launch of the *_BUSY cases, BUSY_STEPS steps a work-item */
    cl_kernel words;   /* SORT_SHAPE_WORDS_KERNEL: the status words from its arguments */
    cl_mem status;
    cl_uint *pageable, *pinned; /* 2 * WORDS each: in, out */
    size_t global, local;
} bench;

typedef enum { LAUNCHES, SORT_SHAPE_PAGEABLE, SORT_SHAPE_PINNED, LAUNCHES_WITH_EVENTS, SORT_SHAPE_POLLED, SORT_SHAPE_BUSY,
               SORT_SHAPE_BUSY_POLLED, SORT_SHAPE_WORDS_KERNEL, CASES } shape;

/* About 0.1-0.2 ms of a GPU's time at the end of the *_BUSY cases: a wait that begins well
 * before the device is done, as a sort's does. */
enum { BUSY_STEPS = 50000 };

/* Waits for `done` by asking for its status in a loop after a flush, instead of clWaitForEvents
 * (which may put the thread to sleep and wake it later than the command completed). */
static void poll_event(cl_command_queue q, cl_event done)
{
    CHECK(clFlush(q));
    cl_int st = CL_QUEUED;
    do
        CHECK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    while (st > CL_COMPLETE);
    if (st < 0) {
        fprintf(stderr, "the status read failed: %d\n", (int)st);
        exit(1);
    }
}

/* One run of a case: `n` launches, with or without the status words around them. */
static void run_case(const bench *b, shape s, int n, double *enqueue_ms, double *total_ms)
{
    const double t0 = now_ms();
    const int busy = s == SORT_SHAPE_BUSY || s == SORT_SHAPE_BUSY_POLLED;
    const int polled = s == SORT_SHAPE_POLLED || s == SORT_SHAPE_BUSY_POLLED;
    cl_uint *words = s == SORT_SHAPE_PAGEABLE ? b->pageable : b->pinned;
    const int words_around = s != LAUNCHES && s != LAUNCHES_WITH_EVENTS;
    cl_event done = NULL, ev[64];
    if (s == SORT_SHAPE_WORDS_KERNEL) { /* the words as two arguments of a launch of one group */
        const size_t one = 64;
        CHECK(clSetKernelArg(b->words, 1, 16 * sizeof(cl_uint), words));
        CHECK(clSetKernelArg(b->words, 2, 16 * sizeof(cl_uint), words + 16));
        CHECK(clEnqueueNDRangeKernel(b->q, b->words, 1, NULL, &one, &one, 0, NULL, NULL));
    } else if (words_around) {
        CHECK(clEnqueueWriteBuffer(b->q, b->status, CL_FALSE, 0, WORDS * 4, words, 0, NULL, NULL));
    }
    for (int i = 0; i < n; i++)
        CHECK(clEnqueueNDRangeKernel(b->q, busy && i + 1 == n ? b->busy : b->k, 1, NULL, &b->global, &b->local, 0, NULL,
                                     s == LAUNCHES_WITH_EVENTS ? &ev[i] : NULL));
    if (words_around)
        CHECK(clEnqueueReadBuffer(b->q, b->status, CL_FALSE, 0, WORDS * 4, words + WORDS, 0, NULL, &done));
    *enqueue_ms = now_ms() - t0;
    if (done) {
        if (polled)
            poll_event(b->q, done);
        else
            CHECK(clWaitForEvents(1, &done));
        CHECK(clReleaseEvent(done));
    } else {
        CHECK(clFinish(b->q));
    }
    *total_ms = now_ms() - t0;
    if (s == LAUNCHES_WITH_EVENTS)
        for (int i = 0; i < n; i++)
            CHECK(clReleaseEvent(ev[i]));
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 41;
    const char *vendor = argc > 2 ? argv[2] : getenv("CLQSORT_VENDOR");
    if (runs < 1 || runs > 100000) {
        fprintf(stderr, "usage: clqsort-launch-cost [runs] [vendor]\n");
        return 2;
    }
    char name[256];
    const cl_device_id dev = pick_device(vendor, name, sizeof name);
    cl_int err;
    const cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    bench b = {.q = clCreateCommandQueue(c, dev, 0, &err)};
#pragma GCC diagnostic pop
    CHECK(err);
    const cl_program p = clCreateProgramWithSource(c, 1, (const char **)&source, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL));
    b.k = clCreateKernel(p, "nothing", &err);
    CHECK(err);
    b.status = clCreateBuffer(c, CL_MEM_READ_WRITE, WORDS * 4, NULL, &err);
    CHECK(err);
    const cl_mem host = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 2 * WORDS * 4, NULL, &err);
    CHECK(err);
    b.pinned = clEnqueueMapBuffer(b.q, host, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 2 * WORDS * 4, 0, NULL, NULL, &err);
    CHECK(err);
    b.pageable = calloc(2 * WORDS, 4);
    const cl_uint n = 0;
    CHECK(clSetKernelArg(b.k, 0, sizeof b.status, &b.status));
    CHECK(clSetKernelArg(b.k, 1, sizeof n, &n));
    b.busy = clCreateKernel(p, "busy", &err);
    CHECK(err);
    const cl_uint steps = BUSY_STEPS;
    CHECK(clSetKernelArg(b.busy, 0, sizeof b.status, &b.status));
    CHECK(clSetKernelArg(b.busy, 1, sizeof steps, &steps));
    b.words = clCreateKernel(p, "words", &err);
    CHECK(err);
    CHECK(clSetKernelArg(b.words, 0, sizeof b.status, &b.status));
    b.local = 256;
    b.global = 256 * 132;

    static const char *const names[CASES] = {"launches, clFinish", "status write + launches + status read, wait",
                                            "same with mapped host words", "launches with events, clFinish",
                                            "mapped host words, the read's event polled",
                                            "mapped host words, the last launch busy, wait",
                                            "mapped host words, the last launch busy, polled",
                                            "words by a launch's arguments, mapped words read, wait"};
    static const int counts[] = {1, 3, 12};
    double *enq = malloc(sizeof(double) * (size_t)runs), *tot = malloc(sizeof(double) * (size_t)runs);
    printf("device,case,launches,runs,enqueue_median_ms,total_median_ms,total_min_ms\n");
    for (int s = 0; s < CASES; s++)
        for (size_t j = 0; j < sizeof counts / sizeof counts[0]; j++) {
            double e, t;
            run_case(&b, (shape)s, counts[j], &e, &t); /* warm-up */
            for (int r = 0; r < runs; r++)
                run_case(&b, (shape)s, counts[j], &enq[r], &tot[r]);
            qsort(enq, (size_t)runs, sizeof(double), by_value);
            qsort(tot, (size_t)runs, sizeof(double), by_value);
            printf("\"%s\",\"%s\",%d,%d,%.4f,%.4f,%.4f\n", name, names[s], counts[j], runs, enq[runs / 2],
                   tot[runs / 2], tot[0]);
        }
    CHECK(clEnqueueUnmapMemObject(b.q, host, b.pinned, 0, NULL, NULL));
    CHECK(clFinish(b.q));
    free(enq);
    free(tot);
    free(b.pageable);
    clReleaseMemObject(host);
    clReleaseMemObject(b.status);
    clReleaseKernel(b.k);
    clReleaseKernel(b.busy);
    clReleaseKernel(b.words);
    clReleaseProgram(p);
    clReleaseCommandQueue(b.q);
    clReleaseContext(c);
    return 0;
}
