/*
 * tiles.cl - the tile path: host-loop sorts of at most small_tiles tiles of CLQ_LQ_MAX keys
 * (src/path_host_loop.c), in two launches instead of a relauncher, every phase-one level the
 * depth bound allows and phase two.
 *
 * tilesort_kernel: work-group g sorts tile g (keys g * CLQ_LQ_MAX onwards) in local memory, as
 * phase two sorts a record (lqsort.cl, clq_lq_split), into the scratch buffers; a sort of one
 * tile writes straight back to the caller's buffers and is done. Unlike a phase-two record, a
 * tile and the ranges its splits push come with no measured code range, so each range is first
 * narrowed to its keys' least and greatest codes (clq_tighten): sorted input and few distinct
 * keys then split as uniform keys do, and a range of equal keys is written as it is.
 * tilemerge_kernel: each key goes to its place in the whole: its place in its own tile plus,
 * in every other tile, the number of keys that go before it there: smaller ones, and equal ones
 * of an earlier tile. Places are distinct and cover the count, so the result is a permutation.
 *
 * The number of keys is read from status[CLQ_ST_COUNT] (a selecting partial sort writes its
 * candidates' count there; none if it sorted them itself: clq_keys_to_sort), so a grid sized for
 * more keys than that does no harm.
 */

/* Narrows the range on top of the stack to its keys' codes; writes it out and pops it if they
 * are all equal (1). Every work-item of the group calls it; red holds 2 * CLQ_LQ_WG codes. */
int clq_tighten(__global clq_key *out, __global clq_value *vout, __local clq_lq_local *lm, __local clq_code *red)
{
    (void)vout;
    const uint lid = get_local_id(0), top = min(lm->sp, (uint)CLQ_LQ_STACK) - 1u; /* as clq_lq_split */
    const uint s = lm->st_start[top], len = lm->st_len[top], from = lm->st_buf[top];
    __local const clq_code *x = lm->buf[from] + s;
    clq_code lo = CLQ_CODE_MAX, hi = 0;
    for (uint i = lid; i < len; i += CLQ_LQ_WG) {
        const clq_code c = x[i];
        lo = min(lo, c);
        hi = max(hi, c);
    }
    red[lid] = lo;
    red[CLQ_LQ_WG + lid] = hi;
    for (uint w = CLQ_LQ_WG / 2; w > 0; w /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < w) {
            red[lid] = min(red[lid], red[lid + w]);
            red[CLQ_LQ_WG + lid] = max(red[CLQ_LQ_WG + lid], red[CLQ_LQ_WG + lid + w]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    lo = red[0];
    hi = red[CLQ_LQ_WG];
    const int equal = lo == hi;
    if (equal) {
        for (uint i = lid; i < len; i += CLQ_LQ_WG) {
            out[s + i] = clq_from_code(x[i]);
            CLQ_IF_PAIRS(vout[s + i] = lm->vbuf[from][s + i];)
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read sp and the range */
    if (lid == 0) {
        lm->st_lo[top] = lo;
        lm->st_hi[top] = hi;
        if (equal)
            lm->sp = top;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return equal;
}

/* Sorts the len codes (and values) loaded at lm->buf[0] into out (and vout), counted as a
 * phase-two record: their whole code range on the stack, narrowed and split until none is left.
 * Every work-item of the group calls it after its loads; the global fence lets a tile go back to
 * the range it was read from. */
void clq_sort_loaded(__global clq_key *out, __global clq_value *vout, uint len, __global uint *status,
                     __local clq_lq_local *lm, __local clq_code *red)
{
    if (get_local_id(0) == 0) {
        lm->st_start[0] = 0;
        lm->st_len[0] = len;
        lm->st_buf[0] = 0;
        lm->st_lo[0] = 0;
        lm->st_hi[0] = CLQ_CODE_MAX;
        lm->sp = 1;
        atomic_inc(&status[CLQ_ST_LEAVES]);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    while (lm->sp > 0)
        if (!clq_tighten(out, vout, lm, red))
            clq_lq_split(out, vout, status, lm, 0u);
}

void clq_tilesort_body(CLQ_BUFFER_PARAMS, __global uint *status, __local clq_lq_local *lm, __local clq_code *red)
{
    (void)seg_begin;
    (void)seg_end;
    const uint lid = get_local_id(0), n = clq_keys_to_sort(status);
    const uint start = get_group_id(0) * CLQ_LQ_MAX;
    if (start >= n)
        return;
    const uint len = min(n - start, (uint)CLQ_LQ_MAX);
    for (uint i = lid; i < len; i += CLQ_LQ_WG) {
        lm->buf[0][i] = clq_to_code(keys[start + i]);
        CLQ_IF_PAIRS(lm->vbuf[0][i] = vals[start + i];)
    }
    __global clq_key *out = (n <= CLQ_LQ_MAX ? keys : scratch) + start; /* one tile: the whole sort */
    __global clq_value *vout = 0;
    CLQ_IF_PAIRS(vout = (n <= CLQ_LQ_MAX ? vals : svals) + start;)
    clq_sort_loaded(out, vout, len, status, lm, red);
}

__kernel __attribute__((reqd_work_group_size(CLQ_LQ_WG, 1, 1)))
void tilesort_kernel(CLQ_BUFFER_PARAMS, __global clq_leaf *leaves, __global uint *status)
{
    (void)leaves;
    __local clq_lq_local lm;
    __local clq_code red[2 * CLQ_LQ_WG];
    clq_tilesort_body(CLQ_BUFFER_ARGS_AT(status), status, &lm, red);
}

/* The spread path (src/path_host_loop.c): a blocking sort of more than one tile on the tile
 * path, in one launch instead of a tile sort and a merge. The host has copied the keys (and
 * values) to scratch, and every group reads all of them there: what a group sorts is the keys
 * between two splitters, taken as (code, position) pairs so that no two keys are equal. The
 * splitters are the elements of ranks g * S / G and (g + 1) * S / G of a sample of S keys that
 * every group draws and sorts alike (its positions spread over the input, each moved by a hash
 * within its stride, so that a pattern repeating with the stride does not fill the sample with
 * one key). A group's keys go to the output after those before its lower splitter, which it
 * counts as it reads; it gathers its keys in local memory and sorts them as a tile is sorted,
 * straight into the caller's buffers. A group whose keys do not fit in CLQ_LQ_MAX sets
 * status[CLQ_ST_SPILL] and writes nothing: the host then puts the keys back from scratch and
 * sorts them on the tile path, one wait more (src/sort.c). */
#define CLQ_SPREAD_BATCH 16u

inline uint clq_spread_samples(void)
{
    const uint most = clamp((uint)CLQ_LQ_MAX / 2u, 1u, 1024u);
    return 1u << (31u - (uint)clz(most)); /* a power of two for the bitonic sort below */
}

inline uint clq_spread_position(uint j, uint n, uint samples)
{
    uint h = j * 0x9e3779b9u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    return (uint)((ulong)j * n / samples) + h % (n / samples);
}

void clq_spreadsort_body(CLQ_BUFFER_PARAMS, __global uint *status, __local clq_lq_local *lm, __local clq_code *red)
{
    (void)seg_begin;
    (void)seg_end;
    const uint lid = get_local_id(0), n = clq_keys_to_sort(status), S = clq_spread_samples();
    const uint g = get_group_id(0), groups = get_num_groups(0);
    if (n <= 2u * S) { /* not on this path: the host takes it for more than one tile only (CLQ_LQ_MAX >= 2 S) */
        if (lid == 0)
            atomic_or(&status[CLQ_ST_SPILL], 1u);
        return;
    }
    __local clq_code *code = lm->buf[1], *pos = lm->buf[1] + S; /* the sample, in buf[1] until sorted */
    for (uint j = lid; j < S; j += CLQ_LQ_WG) {
        const uint p = clq_spread_position(j, n, S);
        code[j] = clq_to_code(scratch[p]);
        pos[j] = p;
    }
    if (lid == 0) {
        lm->end[0] = 0; /* the group's keys */
        lm->end[1] = 0; /* the keys before them */
    }
    /* bitonic sort of the sample's (code, position) pairs */
    for (uint k = 2; k <= S; k *= 2) {
        for (uint j = k / 2; j > 0; j /= 2) {
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint t = lid; t < S / 2u; t += CLQ_LQ_WG) {
                const uint a = ((t & ~(j - 1u)) << 1) | (t & (j - 1u)), b = a + j; /* j: a power of two */
                const clq_code ca = code[a], cb = code[b];
                const uint pa = (uint)pos[a], pb = (uint)pos[b];
                if (clq_goes_before(cb, pb, ca, pa) == ((a & k) == 0u)) {
                    code[a] = cb;
                    code[b] = ca;
                    pos[a] = pb;
                    pos[b] = pa;
                }
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint la = (uint)((ulong)g * S / groups), hb = (uint)((ulong)(g + 1u) * S / groups);
    const int has_lo = g > 0u, has_hi = g + 1u < groups;
    const clq_code lo_c = code[la], hi_c = code[min(hb, S - 1u)];
    const uint lo_p = (uint)pos[la], hi_p = (uint)pos[min(hb, S - 1u)];

    /* every key, CLQ_SPREAD_BATCH loads in flight per work-item: a group reads them all */
    uint below = 0;
    for (uint base = 0; base < n; base += CLQ_LQ_WG * CLQ_SPREAD_BATCH) {
        clq_code c[CLQ_SPREAD_BATCH];
        for (uint k = 0; k < CLQ_SPREAD_BATCH; k++) {
            const uint i = base + k * CLQ_LQ_WG + lid;
            c[k] = i < n ? clq_to_code(scratch[i]) : 0;
        }
        for (uint k = 0; k < CLQ_SPREAD_BATCH; k++) {
            const uint i = base + k * CLQ_LQ_WG + lid;
            const int before = has_lo && clq_goes_before(c[k], i, lo_c, lo_p);
            below += before && i < n;
            if (i < n && !before && (!has_hi || clq_goes_before(c[k], i, hi_c, hi_p))) {
                const uint at = clq_lq_inc(&lm->end[0]);
                if (at < CLQ_LQ_MAX) {
                    lm->buf[0][at] = c[k];
                    CLQ_IF_PAIRS(lm->vbuf[0][at] = svals[i];)
                }
            }
        }
    }
#if CLQ_LQ_WG == 1
    lm->end[1] += below;
#else
    atomic_add(&lm->end[1], below);
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint mine = lm->end[0], first = lm->end[1];
    if (mine > CLQ_LQ_MAX) {
        if (lid == 0)
            atomic_or(&status[CLQ_ST_SPILL], 1u);
        return;
    }
    if (mine == 0u)
        return;
    __global clq_value *vout = 0;
    CLQ_IF_PAIRS(vout = vals + first;)
    clq_sort_loaded(keys + first, vout, mine, status, lm, red);
}

__kernel __attribute__((reqd_work_group_size(CLQ_LQ_WG, 1, 1)))
void spreadsort_kernel(CLQ_BUFFER_PARAMS, __global clq_leaf *leaves, __global uint *status)
{
    (void)leaves;
    __local clq_lq_local lm;
    __local clq_code red[2 * CLQ_LQ_WG];
    clq_spreadsort_body(CLQ_BUFFER_ARGS_AT(status), status, &lm, red);
}

/* The keys of the sorted run t[0, len) that go before code c: those below it, and with
 * `equal_too` those equal to it as well. */
#define CLQ_RANK_IN(space)                                                                        \
    inline uint clq_rank_in_##space(space const clq_key *t, uint len, clq_code c, int equal_too)  \
    {                                                                                             \
        uint below = 0;                                                                           \
        while (len > 0) {                                                                         \
            const uint step = len / 2;                                                            \
            const clq_code d = clq_to_code(t[below + step]);                                      \
            if (d < c || (equal_too && d == c)) {                                                 \
                below += step + 1;                                                                \
                len -= step + 1;                                                                  \
            } else {                                                                              \
                len = step;                                                                       \
            }                                                                                     \
        }                                                                                         \
        return below;                                                                             \
    }
CLQ_RANK_IN(__global)
CLQ_RANK_IN(__local)

/* Local memory of a tilemerge_kernel work-group: each other tile's window (below), as many of
 * them as fit in CLQ_LQ_MAX keys, one after the other; each work-item's share of its key's place. */
typedef struct clq_merge_local {
    clq_key win[CLQ_LQ_MAX];
    uint lo[CLQ_TILES_MAX], len[CLQ_TILES_MAX], at[CLQ_TILES_MAX]; /* at: in win, or ~0: not loaded */
    uint share[CLQ_GQ_WG];
} clq_merge_local;

/* A work-group takes CLQ_MERGE_KEYS consecutive keys of one sorted tile (a chunk). Their places
 * in any other tile lie between those of the chunk's first and last key: that window is found
 * with two searches per tile (one work-item each, all at once), loaded into local memory where
 * it fits, and each key then searches only the windows, its CLQ_MERGE_PARTS work-items taking
 * the tiles in turn; the first of them adds up the shares and writes the key. */
void clq_tilemerge_body(CLQ_BUFFER_PARAMS, __global uint *status, __local clq_merge_local *lm)
{
    (void)seg_begin;
    (void)seg_end;
    const uint lid = get_local_id(0), n = clq_keys_to_sort(status);
    const uint per = CLQ_MERGE_KEYS(CLQ_GQ_WG), parts = CLQ_MERGE_PARTS(CLQ_GQ_WG);
    const uint chunks = (CLQ_LQ_MAX + per - 1) / per;
    const uint mine = get_group_id(0) / chunks, base = mine * CLQ_LQ_MAX;
    const uint first = base + get_group_id(0) % chunks * per;
    if (n <= CLQ_LQ_MAX || base >= n || first >= n)
        return; /* one tile (fewer candidates than the grid was made for) is sorted in place */
    const uint tiles = (n - 1) / CLQ_LQ_MAX + 1;
    const uint last = min(min(first + per, base + CLQ_LQ_MAX), n) - 1;

    for (uint w = lid; w < 2u * tiles; w += CLQ_GQ_WG) { /* w: tile w / 2, the last key if odd */
        const uint u = w / 2u;
        if (u == mine)
            continue;
        const uint b = u * CLQ_LQ_MAX, len = min(n - b, (uint)CLQ_LQ_MAX);
        const int equal_too = u < mine; /* equal keys: the earlier tile's go first */
        const uint r = clq_rank_in___global(scratch + b, len, clq_to_code(scratch[w & 1u ? last : first]), equal_too);
        if (w & 1u)
            lm->len[u] = r; /* the window's end, until below */
        else
            lm->lo[u] = r;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        uint used = 0;
        for (uint u = 0; u < tiles; u++) {
            if (u == mine)
                continue;
            lm->len[u] -= lm->lo[u];
            const int fits = lm->len[u] <= CLQ_LQ_MAX - used;
            lm->at[u] = fits ? used : ~0u;
            used += fits ? lm->len[u] : 0u;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint u = 0; u < tiles; u++)
        if (u != mine && lm->at[u] != ~0u)
            for (uint j = lid; j < lm->len[u]; j += CLQ_GQ_WG)
                lm->win[lm->at[u] + j] = scratch[u * CLQ_LQ_MAX + lm->lo[u] + j];
    barrier(CLK_LOCAL_MEM_FENCE);

    const uint part = lid / per, i = first + lid % per;
    uint share = 0;
    if (i <= last) {
        const clq_code c = clq_to_code(scratch[i]);
        for (uint u = part; u < tiles; u += parts) {
            if (u == mine)
                continue;
            const uint lo = lm->lo[u], len = lm->len[u];
            share += lo + (lm->at[u] != ~0u ? clq_rank_in___local(lm->win + lm->at[u], len, c, u < mine)
                                            : clq_rank_in___global(scratch + u * CLQ_LQ_MAX + lo, len, c, u < mine));
        }
    }
    lm->share[lid] = share;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (part != 0u || i > last)
        return;
    uint at = i - base;
    for (uint q = 0; q < parts; q++)
        at += lm->share[q * per + lid];
    keys[at] = scratch[i];
    CLQ_IF_PAIRS(vals[at] = svals[i];)
}

__kernel __attribute__((reqd_work_group_size(CLQ_GQ_WG, 1, 1)))
void tilemerge_kernel(CLQ_BUFFER_PARAMS, __global clq_leaf *leaves, __global uint *status)
{
    (void)leaves;
    __local clq_merge_local lm;
    clq_tilemerge_body(CLQ_BUFFER_ARGS_AT(status), status, &lm);
}
