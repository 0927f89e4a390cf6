/* cl_layer_info.h - what the project's OpenCL layers (tests/fault_layer.c, bench/time_layer.c)
 * share: the export of their entry points and clGetLayerInfo, which tells ocl-icd 2.3 the layer
 * API they follow (1.0.0). Each layer includes it once, after <CL/cl_layer.h>, and defines its
 * own clInitLayer. */
#ifndef CLQSORT_CL_LAYER_INFO_H
#define CLQSORT_CL_LAYER_INFO_H

#if defined(__GNUC__)
#define EXPORT __attribute__((visibility("default")))
#else
#define EXPORT
#endif

EXPORT CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info name, size_t size, void *value, size_t *size_ret)
{
    if (name != CL_LAYER_API_VERSION)
        return CL_INVALID_VALUE;
    if (value) {
        if (size < sizeof(cl_layer_api_version))
            return CL_INVALID_VALUE;
        *(cl_layer_api_version *)value = CL_LAYER_API_VERSION_100;
    }
    if (size_ret)
        *size_ret = sizeof(cl_layer_api_version);
    return CL_SUCCESS;
}

#endif
