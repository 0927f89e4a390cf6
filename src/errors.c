/* errors.c - the one error vocabulary: statuses and their sentences, OpenCL codes and the
 * statuses they map to, the messages of clqsort_last_error, and the guard every public call
 * passes through. */
#include "clqsort_internal.h"

#include <stdio.h>
#include <string.h>

/* The calling thread's last message, and the public function it is inside of. */
static _Thread_local char thread_error[CLQ_MESSAGE_BYTES];
static _Thread_local const char *thread_api = "clqsort";

static void record(clqsort_context *ctx, clqsort_status status, const char *fmt, va_list ap)
{
    const int n = snprintf(thread_error, sizeof thread_error, "%s: %s: ", clqsort_status_string(status), thread_api);
    if (n > 0 && (size_t)n < sizeof thread_error)
        vsnprintf(thread_error + n, sizeof thread_error - (size_t)n, fmt, ap);
    if (ctx)
        memcpy(ctx->error, thread_error, sizeof ctx->error);
}

clqsort_status clq_fail(clqsort_context *ctx, clqsort_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(ctx, status, fmt, ap);
    va_end(ap);
    return status;
}

void clq_append(clqsort_context *ctx, const char *fmt, ...)
{
    const size_t used = strlen(thread_error);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(thread_error + used, sizeof thread_error - used, fmt, ap);
    va_end(ap);
    if (ctx)
        memcpy(ctx->error, thread_error, sizeof ctx->error);
}

clqsort_status clq_status_of_cl(cl_int err)
{
    switch (err) {
    case CL_SUCCESS:
        return CLQSORT_SUCCESS;
    case CL_OUT_OF_HOST_MEMORY:
    case CL_OUT_OF_RESOURCES:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE:
        return CLQSORT_ERROR_OUT_OF_MEMORY;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILER_NOT_AVAILABLE:
    case CL_LINKER_NOT_AVAILABLE:
    case CL_INVALID_BUILD_OPTIONS:
    case CL_INVALID_PROGRAM_EXECUTABLE:
        return CLQSORT_ERROR_BUILD;
    case CL_INVALID_COMMAND_QUEUE:
        return CLQSORT_ERROR_INVALID_QUEUE;
    case CL_INVALID_MEM_OBJECT:
        return CLQSORT_ERROR_INVALID_BUFFER;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case -1001: /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no platform */
        return CLQSORT_ERROR_NO_DEVICE;
    default:
        return CLQSORT_ERROR_OPENCL;
    }
}

const char *clq_cl_error_name(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_BUILD_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE)
    E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE)
    E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL)
    E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE) E(CL_INVALID_KERNEL_ARGS)
    E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE)
    E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST) E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION)
    E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef E
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "an unknown OpenCL error";
    }
}

clqsort_status clq_fail_cl(clqsort_context *ctx, cl_int err, const char *call, const char *what)
{
    return clq_fail(ctx, clq_status_of_cl(err), "%s%s%s%s failed with %s (%d)", call, *what ? "(" : "", what,
                    *what ? ")" : "", clq_cl_error_name(err), (int)err);
}

clqsort_status clq_check_created(clqsort_context *ctx, const void *object, cl_int err, const char *call,
                                 const char *what)
{
    if (err != CL_SUCCESS)
        return clq_fail_cl(ctx, err, call, what);
    if (!object)
        return clq_fail(ctx, CLQSORT_ERROR_OPENCL, "%s(%s) returned no object and no error code", call, what);
    return CLQSORT_SUCCESS;
}

void clq_released(clq_release_log *log, cl_int err, const char *call)
{
    if (err != CL_SUCCESS && log->err == CL_SUCCESS) {
        log->err = err;
        log->call = call;
    }
}

const char *clqsort_status_string(clqsort_status status)
{
    switch (status) {
    case CLQSORT_SUCCESS: return "success";
    case CLQSORT_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case CLQSORT_ERROR_NULL_CONTEXT: return "NULL clqsort context";
    case CLQSORT_ERROR_NULL_BUFFER: return "NULL buffer";
    case CLQSORT_ERROR_INVALID_BUFFER: return "invalid buffer";
    case CLQSORT_ERROR_WRONG_CONTEXT: return "buffer belongs to another OpenCL context";
    case CLQSORT_ERROR_BUFFER_ACCESS: return "buffer is not readable and writable by kernels";
    case CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER: return "count exceeds the buffer size";
    case CLQSORT_ERROR_COUNT_TOO_LARGE: return "count exceeds the supported maximum";
    case CLQSORT_ERROR_UNSUPPORTED_TYPE: return "unsupported key type";
    case CLQSORT_ERROR_INVALID_OPTION: return "invalid option";
    case CLQSORT_ERROR_NO_DEVICE: return "no matching OpenCL device";
    case CLQSORT_ERROR_PATH_UNSUPPORTED: return "execution path not supported by the device";
    case CLQSORT_ERROR_INVALID_QUEUE: return "invalid command queue";
    case CLQSORT_ERROR_BUILD: return "kernel build failed";
    case CLQSORT_ERROR_OUT_OF_MEMORY: return "out of memory";
    case CLQSORT_ERROR_OPENCL: return "OpenCL error";
    case CLQSORT_ERROR_INTERNAL: return "internal error";
    case CLQSORT_ERROR_OVERLAPPING_BUFFERS: return "keys and values overlap";
    case CLQSORT_ERROR_CONTEXT_BUSY: return "context in use by another thread";
    case CLQSORT_ERROR_INVALID_SEGMENTS: return "invalid segment offsets";
    }
    return "unknown status";
}

const char *clq_current_api(void) { return thread_api; }

const char *clqsort_last_error(const clqsort_context *ctx)
{
    return ctx ? ctx->error : thread_error;
}

/* ---- the guard of every public call ------------------------------------------------------- */

void clq_begin(const char *api)
{
    thread_api = api;
}

clqsort_status clq_enter(const clqsort_context *ctx, const char *api)
{
    clq_begin(api);
    if (!ctx)
        return clq_fail(NULL, CLQSORT_ERROR_NULL_CONTEXT, "ctx is NULL");
    /* the flag is the one member a call may change through a const context: it is what makes
     * the others safe to read */
    if (atomic_flag_test_and_set_explicit(&((clqsort_context *)ctx)->busy, memory_order_acquire))
        return clq_fail(NULL, CLQSORT_ERROR_CONTEXT_BUSY,
                        "another thread is inside a call on this context; a context is used by one thread at a "
                        "time (nothing was done)");
    return CLQSORT_SUCCESS;
}

clqsort_status clq_leave(const clqsort_context *ctx, clqsort_status status)
{
    atomic_flag_clear_explicit(&((clqsort_context *)ctx)->busy, memory_order_release);
    return status;
}
