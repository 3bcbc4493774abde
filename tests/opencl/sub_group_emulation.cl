/* sub_group_emulation.cl: sub-groups for kernels_cl/shuffle.cl on a device that has none, as strict as the strictest implementation seen.
   tests/opencl/test_sub_groups.cpp puts this text before shuffle.cl and declares the lanes' words,
   cc_emulated_lanes, at the top of the kernel's body; the backend builds it with -DCC_SHUFFLE_EMULATED
   and one of the layouts below (backends/opencl/cl_devices.cpp, CONVCOMPARE_TEST_SUB_GROUPS):
     -DCC_EMULATED_SUB_GROUP_SIZE=W  the work-group's work-items in linear order, W to a sub-group, the
                                     last one short where the group's size is no multiple of W;
     -DCC_EMULATED_ALONG_X           a sub-group is one row of the work-group (PoCL's CPU driver).
   A shuffle is a barrier over the whole work-group, as PoCL makes it: a kernel whose sub-groups do not all
   make the same shuffles in the same order reads another round's words (and Oclgrind reports the barrier
   divergence). A lane past the end of a short sub-group reads a poison word: NaN as a float, and as an
   8-bit pixel saturated to 255. */

#define CC_EMULATED_POISON 0x7fc00000u
#define CC_EMULATED_ITEMS 1024 /* the most work-items the backend gives a work-group here (16 x 16, or less) */

CC_FN int cc_emulated_linear_id(void) { return (int)(get_local_id(1) * get_local_size(0) + get_local_id(0)); }
CC_FN int cc_emulated_items(void) { return (int)(get_local_size(0) * get_local_size(1)); }

#if defined(CC_EMULATED_ALONG_X)
CC_FN uint cc_emulated_max_size(void) { return (uint)get_local_size(0); }
CC_FN uint cc_emulated_size(void) { return (uint)get_local_size(0); }
CC_FN uint cc_emulated_id(void) { return (uint)get_local_id(1); }
CC_FN uint cc_emulated_local_id(void) { return (uint)get_local_id(0); }
#elif defined(CC_EMULATED_SUB_GROUP_SIZE)
CC_FN uint cc_emulated_max_size(void) { return (uint)min(CC_EMULATED_SUB_GROUP_SIZE, cc_emulated_items()); }
CC_FN uint cc_emulated_id(void) { return (uint)(cc_emulated_linear_id() / CC_EMULATED_SUB_GROUP_SIZE); }
CC_FN uint cc_emulated_local_id(void) { return (uint)(cc_emulated_linear_id() % CC_EMULATED_SUB_GROUP_SIZE); }
CC_FN uint cc_emulated_size(void)
{
    return (uint)min(CC_EMULATED_SUB_GROUP_SIZE, cc_emulated_items() - (int)cc_emulated_id() * CC_EMULATED_SUB_GROUP_SIZE);
}
#else
#error "sub_group_emulation.cl needs -DCC_EMULATED_SUB_GROUP_SIZE=W or -DCC_EMULATED_ALONG_X"
#endif

#define get_max_sub_group_size() cc_emulated_max_size()
#define get_sub_group_size() cc_emulated_size()
#define get_sub_group_id() cc_emulated_id()
#define get_sub_group_local_id() cc_emulated_local_id()

/* Lane `from`'s word of this work-item's sub-group: every work-item writes its own, then reads. */
CC_FN uint cc_emulated_shuffle(__local uint* lanes, uint word, uint from)
{
    barrier(CLK_LOCAL_MEM_FENCE); /* the last shuffle's reads are done */
    lanes[cc_emulated_linear_id()] = word;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int first = cc_emulated_linear_id() - (int)cc_emulated_local_id();
    return from < cc_emulated_size() ? lanes[first + (int)from] : CC_EMULATED_POISON;
}

/* A word crosses as its 32 bits: a float pixel, or an 8-bit one widened (shuffle.cl's cc_word). */
#if CC_PIXEL == CC_PIXEL_F32
#define cc_emulated_bits(word) as_uint(word)
#define cc_emulated_word(bits) as_float(bits)
#else
#define cc_emulated_bits(word) (word)
#define cc_emulated_word(bits) (bits)
#endif

#define cc_lane_shuffle(word, from) \
    cc_emulated_word(cc_emulated_shuffle(cc_emulated_lanes, cc_emulated_bits(word), (from)))
