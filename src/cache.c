/* cache.c - built programs kept on disk between processes (CLQSORT_CACHE_DIR).
 *
 * A program is built from source the first time a process needs it: a few seconds per key type,
 * order and value size on CPU runtimes that keep no cache of their own (Intel's: 5-8 s a program
 * on 2 cores). With CLQSORT_CACHE_DIR set, program.c asks here first for the binary that an
 * earlier build on the same device and driver left, and stores each binary it builds.
 *
 * A file, clqsort-<16 hex digits>.bin, holds one program: a text header, then the binary.
 *     clqsort program cache 1\n
 *     <the key: library version, kernel source hash and length, build options, platform,
 *      device, device version and driver version, one per line>\n
 *     binary <bytes> <their hash, 16 hex digits>\n
 *     <the bytes that clGetProgramInfo(CL_PROGRAM_BINARIES) gave>
 * The name is a hash of the key, and a file is used only if its key is the whole key, byte for
 * byte: any other file under that name is a miss. The binary's hash is checked before the
 * runtime sees it, as runtimes trust their binaries (pocl 3.1 crashed on a damaged one). Files
 * are written under a name of their own and moved into place, so a reader sees a whole file or
 * none, whichever process wrote it.
 *
 * The cache never fails a sort: a file that cannot be read, a binary that the runtime refuses or
 * does not build, a directory that cannot be written, any OpenCL call failing on the way, each
 * is a miss, and the program is built from source as without the cache (its failures are
 * reported as usual; program.c also treats a loaded binary whose kernels fail as a miss).
 * clqsort_info counts the programs built, loaded and stored. */
#include "clqsort_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <direct.h>
#include <process.h>
#include <windows.h>
#define clq_mkdir(path) _mkdir(path)
#define clq_pid() ((unsigned long)_getpid())
/* rename() there fails where the target exists: a damaged file would never be replaced */
#define clq_replace(from, to) (MoveFileExA((from), (to), MOVEFILE_REPLACE_EXISTING) ? 0 : -1)
#else
#include <unistd.h>
#define clq_mkdir(path) mkdir((path), 0777)
#define clq_pid() ((unsigned long)getpid())
#define clq_replace(from, to) rename((from), (to)) /* POSIX: replaces the target at once */
#endif

#define CLQ_CACHE_MAGIC "clqsort program cache 1\n"
#define CLQ_CACHE_MAX_BINARY ((size_t)1 << 30) /* a larger size in a header is a damaged file */

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
#define FNV_OFFSET 0xcbf29ce484222325ull

/* The key of a program built from `source` with `options` on the context's device, in `key`
 * (NUL-terminated); 0 if it does not fit or the driver's version cannot be read. */
static int make_key(clqsort_context *ctx, const clq_source *source, const char *options, char *key, size_t size)
{
    char driver[256];
    if (clGetDeviceInfo(ctx->device, CL_DRIVER_VERSION, sizeof driver, driver, NULL) != CL_SUCCESS)
        return 0;
    driver[sizeof driver - 1] = 0;
    const uint64_t hash = fnv1a(FNV_OFFSET, source->text, source->length);
    const int n = snprintf(key, size,
                           "library %s\nsource %016llx %zu\noptions %s\nplatform %s\ndevice %s\n"
                           "device version %s\ndriver %s\n",
                           CLQSORT_VERSION_STRING, (unsigned long long)hash, source->length, options,
                           ctx->platform_name, ctx->device_name, ctx->device_version, driver);
    return n > 0 && (size_t)n < size;
}

static int file_name(const clqsort_context *ctx, const char *key, char *path, size_t size)
{
    const uint64_t h = fnv1a(FNV_OFFSET, key, strlen(key));
    const int n = snprintf(path, size, "%s/clqsort-%016llx.bin", ctx->cache_dir, (unsigned long long)h);
    return n > 0 && (size_t)n < size;
}

/* The length and hash of the line "binary <bytes> <hash>\n" (decimal, 16 hex digits); 0 if the
 * line is not one. */
static int parse_length_line(FILE *f, unsigned long long *n, unsigned long long *hash)
{
    char line[64], *end;
    if (!fgets(line, sizeof line, f) || strncmp(line, "binary ", 7) || !isdigit((unsigned char)line[7]))
        return 0;
    errno = 0;
    *n = strtoull(line + 7, &end, 10);
    if (errno || *end != ' ' || !isxdigit((unsigned char)end[1]))
        return 0;
    *hash = strtoull(end + 1, &end, 16);
    return !errno && !strcmp(end, "\n");
}

/* The file's binary if its header carries `key` and the binary its hash: clq_malloc'd, its size
 * in *bytes; else NULL. */
static unsigned char *read_binary(const char *path, const char *key, size_t *bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *binary = NULL;
    const size_t magic = sizeof CLQ_CACHE_MAGIC - 1, klen = strlen(key);
    char *header = clq_malloc(magic + klen + 1);
    unsigned long long n = 0, hash = 0;
    long start = -1, size = -1;
    if (header && fread(header, 1, magic + klen, f) == magic + klen &&
        !memcmp(header, CLQ_CACHE_MAGIC, magic) && !memcmp(header + magic, key, klen) &&
        parse_length_line(f, &n, &hash) && (start = ftell(f)) >= 0 && !fseek(f, 0, SEEK_END) &&
        (size = ftell(f)) >= 0 && !fseek(f, start, SEEK_SET) &&
        /* the binary, whole, and nothing after it; its length checked before memory is taken */
        n > 0 && n <= CLQ_CACHE_MAX_BINARY && (unsigned long long)(size - start) == n &&
        (binary = clq_malloc((size_t)n)) != NULL) {
        if (fread(binary, 1, (size_t)n, f) != (size_t)n || fnv1a(FNV_OFFSET, binary, (size_t)n) != hash) {
            clq_free(binary);
            binary = NULL;
        }
    }
    clq_free(header);
    fclose(f);
    *bytes = (size_t)n;
    return binary;
}

cl_program clq_cache_load(clqsort_context *ctx, const clq_source *source, const char *options)
{
    char key[4096], path[4096];
    if (!ctx->cache_dir || !make_key(ctx, source, options, key, sizeof key) || !file_name(ctx, key, path, sizeof path))
        return NULL;
    size_t bytes = 0;
    unsigned char *binary = read_binary(path, key, &bytes);
    if (!binary)
        return NULL;
    cl_int err = CL_SUCCESS, status = CL_SUCCESS;
    const unsigned char *b = binary;
    cl_program program = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &bytes, &b, &status, &err);
    clq_free(binary);
    if (!program)
        return NULL;
    if (err == CL_SUCCESS && status == CL_SUCCESS) {
        clq_lock_builds(); /* as program.c: one build at a time in the process */
        err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
        clq_unlock_builds();
    }
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
        clReleaseProgram(program); /* a failure here leaks a program the runtime refused, no more */
        return NULL;
    }
    return program;
}

void clq_cache_store(clqsort_context *ctx, cl_program program, const clq_source *source, const char *options)
{
    char key[4096], path[4096], part[4200];
    size_t bytes = 0;
    if (!ctx->cache_dir || !make_key(ctx, source, options, key, sizeof key) || !file_name(ctx, key, path, sizeof path) ||
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof bytes, &bytes, NULL) != CL_SUCCESS || !bytes ||
        bytes > CLQ_CACHE_MAX_BINARY)
        return;
    unsigned char *binary = clq_malloc(bytes);
    if (!binary)
        return;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) == CL_SUCCESS) {
        /* a name of its own: this process, context and program; "x" fails where another writer
         * (a process in another PID namespace sharing the folder) happens to use it too */
        snprintf(part, sizeof part, "%s.%lu.%p.%p.part", path, clq_pid(), (void *)ctx, (void *)program);
        (void)clq_mkdir(ctx->cache_dir); /* the last folder of the path, where missing */
        FILE *f = fopen(part, "wbx");
        if (f) {
            const int ok = fputs(CLQ_CACHE_MAGIC, f) >= 0 && fputs(key, f) >= 0 &&
                           fprintf(f, "binary %llu %016llx\n", (unsigned long long)bytes,
                                   (unsigned long long)fnv1a(FNV_OFFSET, binary, bytes)) > 0 &&
                           fwrite(binary, 1, bytes, f) == bytes;
            if (fclose(f) == 0 && ok && clq_replace(part, path) == 0)
                ctx->programs_stored++;
            else
                remove(part);
        }
    }
    clq_free(binary);
}
