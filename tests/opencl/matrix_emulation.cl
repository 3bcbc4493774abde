/* matrix_emulation.cl: Intel's sub-group bf16 matrix product (cl_intel_subgroup_matrix_multiply_accumulate) and the sub-groups it needs, for kernels_cl/tensor.cl on a device that has neither.
   tests/opencl/test_sub_groups.cpp puts this text before tensor.cl and declares the lanes' A
   words, cc_emulated_a, at the top of the kernel's body; the backend builds it with -DCC_TENSOR_INTEL=W
   and -DCC_TENSOR_EMULATED (backends/opencl/cl_devices.cpp, CONVCOMPARE_TEST_MATRIX).
   Sub-groups are the work-group's work-items in linear order, W to a sub-group (tensor.cl reads only the
   sub-group ids, whatever the layout). The one built-in tensor.cl calls,
       float8 intel_sub_group_bf16_bf16_matrix_mad_k16(int8 a, int8 b, float8 acc)    W = 8
       float8 intel_sub_group_bf16_bf16_matrix_mad_k16(short8 a, int8 b, float8 acc)  W = 16
   takes the operands in the extension's layout: component m of `a` is row m of the 8 x 16 matrix A,
   lane n holding its columns 2n and 2n + 1 (W = 8: two bf16 in an int, column 2n in the low half) or
   column n (W = 16: one bf16); lane n's `b` is column n of the 16 x W matrix B, b.sk its rows 2k (low
   half) and 2k + 1 (high half); lane n's `acc` and result are column n of the 8 x W sums, component m row
   m. A bf16 times a bf16 is exact in float, so each of the 16 products per entry is added in float, in
   the order k = 0 .. 15. An exchange of A is a barrier over the whole work-group, as a shuffle is in
   sub_group_emulation.cl: every work-item must make the same products in the same order. */

#if CC_TENSOR_INTEL == 8
#define CC_EMULATED_A_ROWS int8
#elif CC_TENSOR_INTEL == 16
#define CC_EMULATED_A_ROWS short8
#else
#error "matrix_emulation.cl needs -DCC_TENSOR_INTEL=8 or 16"
#endif
#define CC_EMULATED_ITEMS 128 /* tensor.cl's work-group: LANES x WARPS */

CC_FN int cc_emulated_linear_id(void) { return (int)(get_local_id(1) * get_local_size(0) + get_local_id(0)); }

#define get_sub_group_id() ((uint)(cc_emulated_linear_id() / CC_TENSOR_INTEL))
#define get_sub_group_local_id() ((uint)(cc_emulated_linear_id() % CC_TENSOR_INTEL))
#define CC_SUB_GROUP_SIZE /* no intel_reqd_sub_group_size: this device has none */

CC_FN float cc_emulated_bf16(uint bits) { return as_float((bits & 0xffffu) << 16); }

/* Entry (m, k) of A, from the words the sub-group's lanes wrote (lane i's row m at (first + i) * 8 + m). */
CC_FN float cc_emulated_a_entry(__local const int* words, int first, int m, int k)
{
#if CC_TENSOR_INTEL == 8
    const uint word = (uint)words[(first + k / 2) * 8 + m];
    return cc_emulated_bf16(k % 2 == 0 ? word : word >> 16);
#else
    return cc_emulated_bf16((uint)words[(first + k) * 8 + m]);
#endif
}

CC_FN float8 cc_emulated_matrix_mad(__local int* words, CC_EMULATED_A_ROWS a, int8 b, float8 acc)
{
    int rows[8], column[8];
    float sum[8];
    vstore8(convert_int8(a), 0, rows);
    vstore8(b, 0, column);
    vstore8(acc, 0, sum);
    const int me = cc_emulated_linear_id();
    const int first = me - (int)get_sub_group_local_id();
    barrier(CLK_LOCAL_MEM_FENCE); /* the last product's reads are done */
    for (int m = 0; m < 8; ++m) words[me * 8 + m] = rows[m];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int m = 0; m < 8; ++m)
        for (int k = 0; k < 16; ++k) {
            const uint pair = (uint)column[k / 2];
            sum[m] += cc_emulated_a_entry(words, first, m, k) * cc_emulated_bf16(k % 2 == 0 ? pair : pair >> 16);
        }
    return vload8(0, sum);
}

#define cc_matrix_mad(a, b, acc) cc_emulated_matrix_mad(cc_emulated_a, a, b, acc)
