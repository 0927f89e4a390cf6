/* fault_layer.h - steering the tests' OpenCL layer (fault_layer.c) from a test program.
 *
 * The ICD loader loads the layer when OPENCL_LAYERS names its file, and puts it in front of every
 * OpenCL call. A test program links the same library, so both share one copy of its state: the
 * program arms a fault, calls clqsort, and looks at what the layer saw. */
#ifndef CLQSORT_FAULT_LAYER_H
#define CLQSORT_FAULT_LAYER_H

#include <CL/cl.h>
#include <stddef.h>

/* 1 once the ICD loader has initialised the layer (OPENCL_LAYERS took effect). */
int fl_active(void);

/* From now on: count the calls of every entry point the layer knows, record their order, and
 * make the `n`th call (1 = the next one) of `entry` fail with `error` instead of running; n 0
 * fails nothing. A failing create call returns NULL with `error`; a failing release or retain
 * returns `error`, the release having been done and the retain not (so the program's own count
 * stays right and nothing leaks through the test). */
void fl_arm(const char *entry, unsigned n, cl_int error);
/* Stops counting and failing. */
void fl_disarm(void);
/* 1 if the armed fault was injected. */
int fl_fired(void);
/* The calls made since fl_arm, in order: their number, and the name of call i. */
size_t fl_trace_length(void);
const char *fl_trace_at(size_t i);
/* 1 if the layer intercepts entry point `entry`. */
int fl_knows(const char *entry);

/* OpenCL objects (contexts, queues, buffers, programs, kernels, events) made through the loader
 * and not yet released as often as they were made and retained. */
long fl_live_objects(void);

#endif
