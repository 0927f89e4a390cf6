/*
 * fuzz_api.c - a libFuzzer target over the public API. An input chooses the call, the key type,
 * the flags (unknown bits included), the count, the value size, the shape of the key and value
 * buffers (read-write, read-only, write-only, NULL, a sub-buffer, another context's, host memory,
 * the same buffer twice, overlapping and disjoint sub-buffers of one parent), the element offsets
 * of keys and values, and the key bytes; the harness works out on its own which refusals the call
 * deserves, then checks that
 *   - a call with none is never refused, and its result is right: the `count` keys of the slice in
 *     the documented order and a permutation of the input (the reference sort of
 *     tests/test_util.c), each value beside its key, every byte outside the slices untouched;
 *   - a refused call returns one of the statuses it deserves, sets a message that starts with that
 *     status, and leaves every buffer as it was.
 *
 * Input layout (little-endian), then the key bytes, repeated to fill the buffer:
 *   0 call (% 4: sort, sort_pairs, sort_host, scratch_bytes)   1 key type (int8, as given)
 *   2-5 flags          6 count mode (% 8: see below)    7-8 count operand   9 value size (% 6: 0 4 8 3 16, byte 10)
 *   10 raw value size  11 keys' shape 12 values' shape    13-14 buffer length in elements (% 4097)
 *   15 keys' offset, 16 values' offset (elements, % (length + 2): one past the end too)
 * Counts are relative to the room after the keys' offset.
 * make_seeds.py writes the seed corpus in this layout. Run: see README.md, "Reliability".
 */
#include "../test_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { HEADER = 17, MAX_KEYS = 4096 };
enum { CALL_SORT, CALL_PAIRS, CALL_HOST, CALL_SCRATCH };
enum { SHAPE_RW, SHAPE_RO, SHAPE_WO, SHAPE_NULL, SHAPE_SUB, SHAPE_FOREIGN, SHAPE_HOST_PTR, SHAPE_SAME,
       SHAPE_OVERLAP, SHAPE_BESIDE, SHAPES };

static clqsort_context *ctx, *other;
static size_t align_bytes; /* sub-buffer origins are multiples of this */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    ctx = tu_create_or_die();
    other = tu_create_or_die();
    cl_uint bits = 0;
    if (clGetDeviceInfo(clqsort_cl_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) != CL_SUCCESS)
        bits = 1024;
    align_bytes = bits / 8 ? bits / 8 : 128;
    return 0;
}

/* The statuses a call deserves, as a bit set over -status. */
typedef uint32_t problems;
#define PROBLEM(s) ((problems)1 << -(int)(s))

/* A buffer argument and what stands around it. */
typedef struct arg {
    cl_mem mem, parent; /* parent: of a sub-buffer (released with it) */
    void *host;         /* memory of a CL_MEM_USE_HOST_PTR buffer */
    int shape;          /* SAME: the keys' shape, with same set */
    int same;           /* the keys' buffer again */
    size_t bytes;       /* of the argument itself */
    cl_mem root;        /* the outermost buffer, and where the argument starts in it */
    size_t origin;
    cl_command_queue q; /* to read it back */
} arg;

static cl_mem create(clqsort_context *c, cl_mem_flags flags, size_t bytes, void *data)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clqsort_cl_context(c), flags, bytes ? bytes : 1, data, &err);
    if (!m) {
        fprintf(stderr, "fuzz_api: clCreateBuffer(%zu) failed with %d\n", bytes, (int)err);
        abort();
    }
    return m;
}

static cl_mem sub_buffer(cl_mem parent, size_t origin, size_t bytes)
{
    cl_buffer_region r = {origin, bytes ? bytes : 1};
    cl_int err;
    cl_mem m = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    if (!m) {
        fprintf(stderr, "fuzz_api: clCreateSubBuffer(%zu, %zu) failed with %d\n", origin, bytes, (int)err);
        abort();
    }
    return m;
}

static void make_mem(arg *a, int shape, const void *data, size_t bytes, const arg *keys);

/* Makes the buffer argument of `shape` holding `data` (bytes). SAME, OVERLAP and BESIDE refer to
 * `keys`, the argument made before (values only). */
static void make_arg(arg *a, int shape, const void *data, size_t bytes, const arg *keys)
{
    memset(a, 0, sizeof *a);
    a->shape = shape;
    a->bytes = bytes;
    a->q = clqsort_cl_queue(shape == SHAPE_FOREIGN ? other : ctx);
    make_mem(a, shape, data, bytes, keys);
    if (!a->root) {
        a->root = a->mem;
        a->origin = 0;
    }
}

static void make_mem(arg *a, int shape, const void *data, size_t bytes, const arg *keys)
{
    const cl_mem_flags copy = CL_MEM_COPY_HOST_PTR;
    switch (shape) {
    case SHAPE_RO: a->mem = create(ctx, CL_MEM_READ_ONLY | copy, bytes, (void *)data); break;
    case SHAPE_WO: a->mem = create(ctx, CL_MEM_WRITE_ONLY | copy, bytes, (void *)data); break;
    case SHAPE_NULL: break;
    case SHAPE_SUB:
        /* a parent with room before, and after for values beside the keys (BESIDE); the argument
         * starts at an aligned origin */
        a->parent = create(ctx, CL_MEM_READ_WRITE, 3 * align_bytes + 3 * bytes, NULL);
        a->mem = sub_buffer(a->parent, align_bytes, bytes);
        a->root = a->parent, a->origin = align_bytes;
        clEnqueueWriteBuffer(a->q, a->mem, CL_TRUE, 0, bytes, data, 0, NULL, NULL);
        break;
    case SHAPE_FOREIGN: a->mem = create(other, CL_MEM_READ_WRITE | copy, bytes, (void *)data); break;
    case SHAPE_HOST_PTR:
        a->host = malloc(bytes + 1);
        memcpy(a->host, data, bytes);
        a->mem = create(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, a->host);
        break;
    case SHAPE_SAME: /* everything as the keys' */
        *a = *keys;
        a->same = 1;
        a->parent = NULL;
        a->host = NULL;
        if (a->mem)
            clRetainMemObject(a->mem);
        break;
    case SHAPE_OVERLAP: /* at the keys' own origin in their parent */
    case SHAPE_BESIDE:  /* in the same parent, just past the keys */
        if (keys->shape == SHAPE_SUB) {
            const size_t origin = shape == SHAPE_OVERLAP ? align_bytes
                                                         : (align_bytes + keys->bytes + align_bytes - 1) / align_bytes * align_bytes;
            size_t parent_size = 0;
            clGetMemObjectInfo(keys->parent, CL_MEM_SIZE, sizeof parent_size, &parent_size, NULL);
            if (origin + bytes <= parent_size) {
                a->mem = sub_buffer(keys->parent, origin, bytes);
                a->root = keys->parent, a->origin = origin;
                clEnqueueWriteBuffer(a->q, a->mem, CL_TRUE, 0, bytes, data, 0, NULL, NULL);
                break;
            }
        }
        a->shape = SHAPE_RW; /* no parent to share, or no room: a plain buffer */
        /* fall through */
    default: a->mem = create(ctx, CL_MEM_READ_WRITE | copy, bytes, (void *)data); break;
    }
}

static void free_arg(arg *a)
{
    if (a->mem)
        clReleaseMemObject(a->mem);
    if (a->parent)
        clReleaseMemObject(a->parent);
    free(a->host);
}

static unsigned char *read_arg(const arg *a)
{
    unsigned char *out = malloc(a->bytes + 1);
    if (a->mem && a->shape != SHAPE_WO)
        clEnqueueReadBuffer(a->q, a->mem, CL_TRUE, 0, a->bytes, out, 0, NULL, NULL);
    return out;
}

/* What a buffer argument deserves: its shape, then whether count elements of elem_bytes fit
 * from element `offset`. */
static problems buffer_problems(const arg *a, size_t offset, size_t count, size_t elem_bytes)
{
    switch (a->shape) {
    case SHAPE_NULL: return PROBLEM(CLQSORT_ERROR_NULL_BUFFER);
    case SHAPE_RO:
    case SHAPE_WO: return PROBLEM(CLQSORT_ERROR_BUFFER_ACCESS);
    case SHAPE_FOREIGN: return PROBLEM(CLQSORT_ERROR_WRONG_CONTEXT);
    default: {
        const size_t room = a->bytes / elem_bytes;
        return offset > room || count > room - offset ? PROBLEM(CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER) : 0;
    }
    }
}

/* A slice of a root buffer: bytes [begin, end). */
typedef struct range {
    cl_mem root;
    size_t begin, end;
} range;

static range slice_of(const arg *a, size_t offset, size_t count, size_t elem_bytes)
{
    range r = {a->root, a->origin + offset * elem_bytes, a->origin + (offset + count) * elem_bytes};
    return r;
}

static int overlap(range x, range y) { return x.root && x.root == y.root && x.begin < y.end && y.begin < x.end; }

/* 1 if the bytes of `a` read before and after the call are equal outside the slices in s[0..n). */
static int unchanged_outside(const arg *a, const unsigned char *before, const unsigned char *after, const range *s,
                             int n)
{
    for (size_t i = 0; i < a->bytes; i++) {
        int inside = 0;
        for (int j = 0; j < n; j++)
            inside |= s[j].root == a->root && a->origin + i >= s[j].begin && a->origin + i < s[j].end;
        if (!inside && before[i] != after[i])
            return 0;
    }
    return 1;
}

static uint32_t le32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER)
        return 0;
    const int call = data[0] % 4;
    const clqsort_key_type type = (clqsort_key_type)(int8_t)data[1];
    const unsigned flags = le32(data + 2);
    const unsigned v = data[7] | (unsigned)data[8] << 8;
    static const size_t value_sizes[] = {0, 4, 8, 3, 16};
    const size_t vsize = data[9] % 6 < 5 ? value_sizes[data[9] % 6] : data[10];
    const int kshape = data[11] % SHAPE_SAME, vshape = data[12] % SHAPES;
    const size_t elems = (data[13] | (size_t)data[14] << 8) % (MAX_KEYS + 1);
    size_t koff = call == CALL_HOST || call == CALL_SCRATCH ? 0 : data[15] % (elems + 2);
    const size_t voff = call == CALL_PAIRS ? data[16] % (elems + 2) : 0;
    const size_t room = koff <= elems ? elems - koff : 0; /* keys from the offset to the end */
    size_t count;
    switch (data[6] % 8) { /* boundaries are a byte's mutation away */
    case 0: count = room; break;
    case 1: count = v < room ? v : room; break;                       /* a prefix */
    case 2: count = room + 1 + (v & 7); break;                        /* just past the buffer */
    case 3: count = (size_t)CLQSORT_MAX_COUNT - 3 + (v & 7); break;  /* around the largest count */
    case 4: count = SIZE_MAX - (v & 7); break;
    case 5: count = v & 3; break;
    default: count = v; break;
    }
    const int valid_type = (int)type >= 0 && type <= CLQSORT_KEY_DOUBLE;
    const size_t w = valid_type ? tu_width_of(type) : 4;
    const size_t vw = vsize == 4 || vsize == 8 ? vsize : 4;

    /* the keys: the input's bytes, repeated; the values: their positions in the values' slice */
    unsigned char *keys = malloc(elems * 8 + 8), *values = malloc(elems * 8 + 8);
    const uint8_t *tail = data + HEADER;
    const size_t ntail = size - HEADER;
    for (size_t i = 0; i < elems * w; i++)
        keys[i] = ntail ? tail[i % ntail] : (uint8_t)(i * 131);
    memset(values, 0xa5, voff * vw < elems * vw ? voff * vw : elems * vw);
    if (voff < elems)
        tu_index_values(values + voff * vw, vw, elems - voff);

    /* the refusals the call deserves */
    problems want = 0;
    if (!valid_type)
        want |= PROBLEM(CLQSORT_ERROR_INVALID_ARGUMENT);
    if (flags & ~(CLQSORT_DESCENDING | CLQSORT_STABLE) && call != CALL_SCRATCH)
        want |= PROBLEM(CLQSORT_ERROR_INVALID_ARGUMENT);
    if (flags & CLQSORT_STABLE && valid_type && tu_width_of(type) == 8 && call != CALL_SCRATCH)
        want |= PROBLEM(CLQSORT_ERROR_UNSUPPORTED_TYPE); /* stable sorts take 32-bit keys only */
    if (call == CALL_PAIRS ? vsize != 4 && vsize != 8 : call == CALL_SCRATCH && vsize != 0 && vsize != 4 && vsize != 8)
        want |= PROBLEM(CLQSORT_ERROR_INVALID_ARGUMENT);
    if (count > CLQSORT_MAX_COUNT)
        want |= PROBLEM(CLQSORT_ERROR_COUNT_TOO_LARGE);

    arg k = {0}, val = {0};
    unsigned char *host = NULL, *kbefore = NULL, *vbefore = NULL;
    size_t scratch = 0;
    range slices[2] = {{0}, {0}};
    clqsort_status s;
    switch (call) {
    case CALL_SCRATCH:
        s = clqsort_scratch_bytes(ctx, count, type, vsize, &scratch);
        break;
    case CALL_HOST:
        /* a host array has no size to check: counts past it would be the caller's error */
        if (count > elems && count <= CLQSORT_MAX_COUNT)
            count = elems;
        host = kshape == SHAPE_NULL ? NULL : malloc(elems * w + 1);
        if (host)
            memcpy(host, keys, elems * w);
        else
            want |= PROBLEM(CLQSORT_ERROR_NULL_BUFFER);
        s = clqsort_sort_host(ctx, host, count, type, flags);
        break;
    default:
        make_arg(&k, kshape, keys, elems * w, NULL);
        want |= buffer_problems(&k, koff, count, w);
        if (call == CALL_PAIRS) {
            make_arg(&val, vshape, values, elems * vw, &k);
            const size_t vstart = voff * vw; /* the values' slice, written into the keys' buffer */
            if (val.same && val.mem && voff < elems && vstart < val.bytes) {
                const size_t len = (elems - voff) * vw, fits = val.bytes - vstart;
                clEnqueueWriteBuffer(val.q, val.mem, CL_TRUE, vstart, len < fits ? len : fits, values + vstart, 0, NULL,
                                     NULL);
            }
            const problems vp = buffer_problems(&val, voff, count, vw);
            want |= vp;
            if (!(want & PROBLEM(CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER)) &&
                overlap(slice_of(&k, koff, count, w), slice_of(&val, voff, count, vw)))
                want |= PROBLEM(CLQSORT_ERROR_OVERLAPPING_BUFFERS);
        }
        /* what the buffers hold just before the call (values made over the keys change them) */
        kbefore = read_arg(&k);
        vbefore = val.mem ? read_arg(&val) : NULL;
        if (!(want & PROBLEM(CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER)) && count <= CLQSORT_MAX_COUNT) {
            slices[0] = slice_of(&k, koff, count, w);
            if (val.mem)
                slices[1] = slice_of(&val, voff, count, vw);
        }
        s = call == CALL_PAIRS ? clqsort_sort_pairs_at(ctx, k.mem, koff, val.mem, voff, count, type, vsize, flags)
                               : clqsort_sort_at(ctx, k.mem, koff, count, type, flags);
        break;
    }

    const char *msg = clqsort_last_error(ctx);
    if (s != CLQSORT_SUCCESS) {
        if (!(want & PROBLEM(s))) {
            fprintf(stderr, "fuzz_api: call %d type %d flags 0x%x offsets %zu/%zu count %zu value size %zu shapes %d/%d: "
                            "refused with %d (%s), deserved 0x%x: %s\n",
                    call, (int)type, flags, koff, voff, count, vsize, kshape, vshape, s, clqsort_status_string(s), want,
                    msg);
            abort();
        }
        if (strncmp(msg, clqsort_status_string(s), strlen(clqsort_status_string(s)))) {
            fprintf(stderr, "fuzz_api: status %d with the message \"%s\"\n", s, msg);
            abort();
        }
    } else if (want) {
        fprintf(stderr, "fuzz_api: call %d type %d flags 0x%x offsets %zu/%zu count %zu value size %zu shapes %d/%d: "
                        "accepted, deserved 0x%x\n",
                call, (int)type, flags, koff, voff, count, vsize, kshape, vshape, want);
        abort();
    }

    /* what the buffers hold now */
    const int desc = (flags & CLQSORT_DESCENDING) != 0;
    char why[256] = "";
    int ok = 1;
    if (call == CALL_SCRATCH) {
        ok = s != CLQSORT_SUCCESS || (count < 2 ? scratch == 0 : scratch >= count * w);
        snprintf(why, sizeof why, "scratch_bytes %zu for %zu keys", scratch, count);
    } else if (call == CALL_HOST) {
        if (host && s == CLQSORT_SUCCESS)
            ok = tu_verify_typed(type, desc, keys, host, count, why, sizeof why) &&
                 !memcmp(host + count * w, keys + count * w, (elems - count) * w);
        else if (host)
            ok = !memcmp(host, keys, elems * w);
    } else {
        unsigned char *kout = read_arg(&k), *vout = val.mem ? read_arg(&val) : NULL;
        const int readable = k.mem && k.shape != SHAPE_WO;
        const int nslices = s == CLQSORT_SUCCESS ? 2 : 0; /* a refusal changes nothing at all */
        if (s == CLQSORT_SUCCESS)
            ok = vout ? tu_verify_pairs(type, desc, kbefore + koff * w, kout + koff * w, vout + voff * vw, vw, count, why,
                                        sizeof why)
                      : tu_verify_typed(type, desc, kbefore + koff * w, kout + koff * w, count, why, sizeof why);
        if (ok && readable && !unchanged_outside(&k, kbefore, kout, slices, nslices))
            ok = 0, snprintf(why, sizeof why, "bytes of the keys' buffer outside the slices changed");
        if (ok && vout && val.shape != SHAPE_WO && !unchanged_outside(&val, vbefore, vout, slices, nslices))
            ok = 0, snprintf(why, sizeof why, "bytes of the values' buffer outside the slices changed");
        free(kout);
        free(vout);
        free(kbefore);
        free(vbefore);
    }
    if (!ok) {
        fprintf(stderr, "fuzz_api: call %d type %d flags 0x%x offsets %zu/%zu count %zu value size %zu shapes %d/%d, "
                        "status %d: %s\n",
                call, (int)type, flags, koff, voff, count, vsize, kshape, vshape, s, why);
        abort();
    }
    free_arg(&val);
    free_arg(&k);
    free(host);
    free(keys);
    free(values);
    return 0;
}
