/*
 * stable.cl - stable sorts of 32-bit keys (CLQSORT_STABLE): each key becomes the 64-bit key
 * (code << 32 | position), which no two keys share, so any sort of those keeps equal keys in
 * their input order. The host packs, sorts the packed keys (with the values) with the program
 * of 64-bit keys, and unpacks. The kernels exist only in the programs of 32-bit keys; the
 * offset and count are their own scalar arguments, set for each sort (src/sort.c).
 */
#if CLQ_CODE_BITS == 32
__kernel void stable_pack_kernel(__global const clq_key *keys, __global ulong *packed, ulong offset, uint n)
{
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        packed[i] = (ulong)clq_to_code(keys[offset + i]) << 32 | i;
}

__kernel void stable_unpack_kernel(__global clq_key *keys, __global const ulong *packed, ulong offset, uint n)
{
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        keys[offset + i] = clq_from_code((clq_code)(packed[i] >> 32));
}
#endif
