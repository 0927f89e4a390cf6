/*
 * dump_program.c - builds an OpenCL C source on the first GPU and writes the program binary the
 * runtime made (on NVIDIA's OpenCL: PTX text), so that the register count of each kernel, which
 * decides how many groups a compute unit holds, can be read with `ptxas -v`.
 *
 *   cc -o dump_program tools/dump_program.c -lOpenCL
 *   ./dump_program build/clqsort_kernels.cl "<the library's build options>" out.ptx
 *   tr -d '\0' < out.ptx > k.ptx && ptxas -arch=sm_90 -v k.ptx -o /dev/null
 *
 * build/clqsort_kernels.cl is the sort's embedded program source the build writes
 * (build/clqsort_kernels_select.cl the selection's, "build options (selection)"). The options are
 * those src/program.c passes, which a sort that builds a program prints with CLQSORT_PROFILE=2
 * (the line "clqsort build options: ..."; programs are kept per key type, order and value width,
 * so run the sort in a fresh process).
 * docs/PERFORMANCE.md ("The sort pass without ranks") used it: the runtime ends the PTX with
 * NUL bytes, which ptxas refuses, hence the `tr`.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long n = ftell(f);
        rewind(f);
        text = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (text && fread(text, 1, (size_t)n, f) == (size_t)n) {
            text[n] = '\0';
            *len = (size_t)n;
        } else {
            free(text);
            text = NULL;
        }
    }
    fclose(f);
    return text;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s SOURCE.cl \"OPTIONS\" OUT\n", argv[0]);
        return 2;
    }
    size_t len = 0;
    char *src = read_file(argv[1], &len);
    if (!src) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    cl_platform_id platforms[8];
    cl_uint nplatforms = 0;
    cl_device_id device = NULL;
    if (clGetPlatformIDs(8, platforms, &nplatforms) != CL_SUCCESS)
        nplatforms = 0;
    for (cl_uint i = 0; i < nplatforms && !device; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, &device, NULL) != CL_SUCCESS)
            device = NULL;
    if (!device) {
        fprintf(stderr, "no GPU found\n");
        return 1;
    }
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    const char *text = src;
    cl_program program = err == CL_SUCCESS ? clCreateProgramWithSource(context, 1, &text, &len, &err) : NULL;
    if (err != CL_SUCCESS) {
        fprintf(stderr, "cannot create the program: %d\n", err);
        return 1;
    }
    const cl_int built = clBuildProgram(program, 1, &device, argv[2], NULL, NULL);
    size_t log_len = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_len);
    char *log = malloc(log_len + 1);
    if (log && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log_len, log, NULL) == CL_SUCCESS) {
        log[log_len] = '\0';
        fputs(log, stderr);
    }
    free(log);
    if (built != CL_SUCCESS) {
        fprintf(stderr, "build failed: %d\n", built);
        return 1;
    }
    size_t size = 0;
    clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    unsigned char *binary = malloc(size ? size : 1);
    unsigned char *binaries[1] = {binary};
    FILE *out = fopen(argv[3], "wb");
    if (!binary || !out || clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binaries, binaries, NULL) != CL_SUCCESS ||
        fwrite(binary, 1, size, out) != size) {
        fprintf(stderr, "cannot write %s\n", argv[3]);
        return 1;
    }
    fclose(out);
    printf("%s: %zu bytes\n", argv[3], size);
    free(binary);
    clReleaseProgram(program);
    clReleaseContext(context);
    free(src);
    return 0;
}
