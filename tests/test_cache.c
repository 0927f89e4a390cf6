/*
 * test_cache.c - the program cache (CLQSORT_CACHE_DIR, src/cache.c): what it stores, that a later
 * context loads it instead of building, and that nothing that goes wrong with it fails a sort.
 *
 * Every sort is checked for order and permutation against the reference sort, and each step
 * checks clqsort_info's counts of programs built, loaded and stored:
 *   - a first context builds and stores one file; a second loads it and builds nothing;
 *   - a file whose key is another program's (the ascending program's file under the descending
 *     program's name) is a miss: the descending sort comes out descending; so is a file whose key
 *     differs in one byte;
 *   - a truncated file, a file with garbage for its binary, a folder that cannot be made: misses,
 *     built from source, sorted; the damaged file is replaced by a whole one, which loads;
 *   - four threads, a context each, build and store the same program at once: one whole file
 *     and no part left, which the next context loads;
 *   - under the fault layer (OPENCL_LAYERS, as ctest runs it): each OpenCL call of the cache's
 *     paths failed in turn (the load's clCreateProgramWithBinary and clBuildProgram, the store's
 *     clGetProgramInfo and the driver's version), and the first kernel made or fitted from a
 *     loaded binary: the sort succeeds, and no object is left once the context is released.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include "fault_layer.h"
#include "test_util.h"

#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 20000

static char dir[256];
static uint32_t in[N], out[N];

/* The files of the cache folder named clqsort-*.bin: their number; the first's path in `first`. */
static int cache_files(const char *folder, char *first, size_t size)
{
    DIR *d = opendir(folder);
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (!strncmp(e->d_name, "clqsort-", 8) && len > 4 && !strcmp(e->d_name + len - 4, ".bin")) {
            if (!n++ && first)
                snprintf(first, size, "%s/%s", folder, e->d_name);
        } else if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            CHECK(0, "the cache folder holds %s, not a program file (a part left behind?)", e->d_name);
        }
    }
    closedir(d);
    return n;
}

/* Removes the folder's program files. */
static void empty_folder(const char *folder)
{
    char f[512];
    while (cache_files(folder, f, sizeof f))
        remove(f);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : (long)st.st_size;
}

/* One context: sorts the keys (descending with desc), checks them, and the counts it reports
 * against built / loaded / stored (-1: any). With `entry`, its call number `fail` after the
 * context's creation fails (fault layer); *fired says whether it did. */
static void sort_failing(const char *what, int desc, int built, int loaded, int stored, const char *entry,
                         unsigned fail, int *fired)
{
    clqsort_context *ctx = tu_create_or_die();
    memcpy(out, in, sizeof in);
    if (entry)
        fl_arm(entry, fail, CL_OUT_OF_HOST_MEMORY);
    clqsort_status s = clqsort_sort_host(ctx, out, N, CLQSORT_KEY_UINT32, desc ? CLQSORT_DESCENDING : 0);
    if (entry) {
        *fired = fl_fired();
        fl_disarm();
    }
    CHECK(s == CLQSORT_SUCCESS, "%s: status %d: %s", what, s, clqsort_last_error(ctx));
    char why[256] = "";
    CHECK(s == CLQSORT_SUCCESS && tu_verify_typed(CLQSORT_KEY_UINT32, desc, (const unsigned char *)in,
                                                  (const unsigned char *)out, N, why, sizeof why),
          "%s: %s", what, why);
    clqsort_info info;
    CHECK(clqsort_get_info(ctx, &info) == CLQSORT_SUCCESS, "%s: clqsort_get_info", what);
    CHECK(info.cache_dir && !strcmp(info.cache_dir, getenv("CLQSORT_CACHE_DIR")), "%s: cache_dir %s", what,
          info.cache_dir ? info.cache_dir : "(null)");
    CHECK((built < 0 || info.programs_built == (unsigned)built) &&
              (loaded < 0 || info.programs_loaded == (unsigned)loaded) &&
              (stored < 0 || info.programs_stored == (unsigned)stored),
          "%s: programs built %u, loaded %u, stored %u; expected %d, %d, %d", what, info.programs_built,
          info.programs_loaded, info.programs_stored, built, loaded, stored);
    clqsort_release(ctx);
}

static void sort_once(const char *what, int desc, int built, int loaded, int stored)
{
    sort_failing(what, desc, built, loaded, stored, NULL, 0, NULL);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, n, f) == n && fclose(f) == 0, "writing %s", path);
}

static unsigned char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    long size = file_size(path);
    unsigned char *data = size > 0 ? malloc((size_t)size) : NULL;
    *n = data && f && fread(data, 1, (size_t)size, f) == (size_t)size ? (size_t)size : 0;
    if (f)
        fclose(f);
    return data;
}

/* Each call of `entry` in a sort that goes through the cache, failed in turn (the first `most`):
 * the sort must still succeed (the cache is a miss) and leave no object behind. `loaded`: the
 * file is there. */
static void fail_each(const char *entry, unsigned most, int loaded)
{
    unsigned n = 1;
    for (int fired = 1; fired && n <= most; n++) {
        if (!loaded) /* an empty folder each time, so that the build stores */
            empty_folder(getenv("CLQSORT_CACHE_DIR"));
        const long before = fl_live_objects();
        char what[128];
        snprintf(what, sizeof what, "%s call %u failing%s", entry, n, loaded ? ", file there" : ", empty folder");
        sort_failing(what, 0, -1, -1, -1, entry, n, &fired);
        CHECK(fl_live_objects() == before, "%s: %ld objects left", what, fl_live_objects() - before);
        CHECK(fired || n > 1, "%s: the cache's path never called %s", what, entry);
    }
    printf("%s: calls failed in turn until none was left or %u, each sort right\n", entry, most);
}

/* Several contexts, one per thread, build and store the same program at once into an empty
 * folder: every sort right, one whole file and no part left, which a later context loads. */
#define WRITERS 4
static void *writer(void *arg)
{
    uint32_t *keys = arg;
    clqsort_context *ctx = tu_create_or_die();
    memcpy(keys, in, sizeof in);
    clqsort_status s = clqsort_sort_host(ctx, keys, N, CLQSORT_KEY_UINT32, 0);
    char why[256] = "";
    CHECK(s == CLQSORT_SUCCESS && tu_verify_typed(CLQSORT_KEY_UINT32, 0, (const unsigned char *)in,
                                                  (const unsigned char *)keys, N, why, sizeof why),
          "writer thread: status %d, %s", s, why);
    clqsort_release(ctx);
    return NULL;
}

static void writers_at_once(const char *folder)
{
    static uint32_t keys[WRITERS][N];
    pthread_t t[WRITERS];
    empty_folder(folder);
    for (int i = 0; i < WRITERS; i++)
        CHECK(pthread_create(&t[i], NULL, writer, keys[i]) == 0, "pthread_create");
    for (int i = 0; i < WRITERS; i++)
        pthread_join(t[i], NULL);
    CHECK(cache_files(folder, NULL, 0) == 1, "%d writers at once: %d files", WRITERS, cache_files(folder, NULL, 0));
    sort_once("after the writers", 0, 0, 1, 0);
}

int main(void)
{
    strcpy(dir, "/tmp/clqsort-cache-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char folder[300];
    snprintf(folder, sizeof folder, "%s/programs", dir); /* made by the library */
    setenv("CLQSORT_CACHE_DIR", folder, 1);
    tu_generate(TU_UNIFORM, in, N, 2026);

    /* a first context builds and stores; a second loads */
    sort_once("first context", 0, 1, 0, 1);
    char path[512] = "";
    CHECK(cache_files(folder, path, sizeof path) == 1, "one file after the first sort");
    const long whole = file_size(path);
    sort_once("second context", 0, 0, 1, 0);

    /* another program's file under this program's name: a miss */
    char other[300], desc_path[512] = "";
    snprintf(other, sizeof other, "%s/other", dir);
    setenv("CLQSORT_CACHE_DIR", other, 1);
    sort_once("descending, own folder", 1, 1, 0, 1);
    CHECK(cache_files(other, desc_path, sizeof desc_path) == 1, "one file in the second folder");
    size_t n = 0;
    unsigned char *asc = read_file(path, &n);
    CHECK(asc && n == (size_t)whole, "reading the ascending program's file");
    if (asc)
        write_file(desc_path, asc, n);
    sort_once("descending, the ascending program's file in its place", 1, 1, 0, 1);
    setenv("CLQSORT_CACHE_DIR", folder, 1);

    /* a key that differs in one byte (the library's version), a binary that is whole: a miss */
    if (asc) {
        unsigned char *foreign = malloc(n);
        memcpy(foreign, asc, n);
        char *v = strstr((char *)foreign, "\nlibrary ");
        CHECK(v != NULL, "the file names the library's version");
        if (v)
            v[9] = v[9] == 'X' ? 'Y' : 'X';
        write_file(path, foreign, n);
        free(foreign);
        sort_once("a key one byte off", 0, 1, 0, 1);
    }

    /* damaged files: misses, replaced by whole ones */
    if (asc) {
        write_file(path, asc, n / 2);
        sort_once("truncated file", 0, 1, 0, 1);
        /* replaced by a whole file (not always of the first one's size: pocl's binaries hold the
         * kernels it has compiled by then), which the next context loads */
        sort_once("the truncated file replaced", 0, 0, 1, 0);
        unsigned char *garbage = malloc(n);
        memcpy(garbage, asc, n);
        for (size_t i = n - (n - 2000) / 2; i < n; i++) /* past the header: half the binary */
            garbage[i] = (unsigned char)(i * 131u);
        write_file(path, garbage, n);
        sort_once("garbage for a binary", 0, 1, 0, 1); /* its hash: a miss before the runtime sees it */
        free(garbage);
        free(asc);
        sort_once("after the damaged files", 0, -1, -1, -1);
    }

    /* a folder that cannot be made: built every time, never stored */
    char missing[400];
    snprintf(missing, sizeof missing, "%s/no/such/folder", dir);
    setenv("CLQSORT_CACHE_DIR", missing, 1);
    sort_once("a folder that cannot be made", 0, 1, 0, 0);
    sort_once("a folder that cannot be made, again", 0, 1, 0, 0);
    setenv("CLQSORT_CACHE_DIR", folder, 1);

    writers_at_once(folder);

    if (fl_active()) {
        sort_once("before the faults", 0, -1, -1, -1); /* a whole file in place */
        fail_each("clCreateProgramWithBinary", 100, 1);
        fail_each("clBuildProgram", 1, 1); /* the binary's build; the source's would fail the sort */
        fail_each("clGetProgramInfo", 100, 0);
        fail_each("clGetDeviceInfo", 100, 1); /* the driver's version, for the key */
        /* a loaded binary whose kernels cannot be made or fitted: built from source instead */
        fail_each("clCreateKernel", 1, 1);
        fail_each("clGetKernelWorkGroupInfo", 1, 1);
    } else {
        printf("the fault layer is not loaded (OPENCL_LAYERS): its part skipped, and said so\n");
    }

    empty_folder(folder);
    empty_folder(other);
    rmdir(folder);
    rmdir(other);
    rmdir(dir);
    return tu_finish("test_cache");
}
