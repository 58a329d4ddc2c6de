// The SIMD video instructions: what CUDA's intrinsics emit (__vabsdiffu4, and the sums of
// absolute differences __vsadu4 / __vsadu2 as vabsdiff4/vabsdiff2 with .add) and, by inline
// assembly, the other operations, signed types, .sat, lane masks on d, selectors on a and b, and
// vset4/vset2 with a comparison. Sixteen results per element.
#define VIDEO_SUFFIX(name, text, dsuffix, asuffix, bsuffix)                                        \
    __device__ unsigned name(unsigned a, unsigned b, unsigned c) {                                 \
        unsigned d;                                                                                \
        asm(text " %0" dsuffix ", %1" asuffix ", %2" bsuffix ", %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); \
        return d;                                                                                  \
    }
#define VIDEO(name, text) VIDEO_SUFFIX(name, text, "", "", "")

VIDEO(add4_sat_s, "vadd4.s32.s32.s32.sat")
VIDEO(sub4_u_sat, "vsub4.u32.u32.u32.sat")
VIDEO(avrg4_s, "vavrg4.s32.s32.s32")
VIDEO(min4_s_add, "vmin4.s32.s32.s32.add")
VIDEO(max4_mixed, "vmax4.u32.s32.u32")
VIDEO(set4_ge_add, "vset4.s32.u32.ge.add")
VIDEO(avrg2_u, "vavrg2.u32.u32.u32")
VIDEO(sub2_s_sat, "vsub2.s32.s32.s32.sat")
VIDEO(set2_lt, "vset2.s32.s32.lt")
VIDEO_SUFFIX(absdiff4_masked, "vabsdiff4.u32.u32.u32", ".b20", "", "")
VIDEO_SUFFIX(add4_selected, "vadd4.u32.u32.u32", ".b31", ".b7430", ".b1256")
VIDEO_SUFFIX(max2_selected, "vmax2.s32.s32.s32.add", ".h1", ".h03", ".h21")

extern "C" __global__ void simd_video(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* out,
                                      int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i], z = c[i];
    unsigned* o = out + 16 * i;
    o[0] = __vabsdiffu4(x, y);
    o[1] = __vsadu4(x, y);
    o[2] = __vsadu2(x, y);
    o[3] = add4_sat_s(x, y, z);
    o[4] = sub4_u_sat(x, y, z);
    o[5] = avrg4_s(x, y, z);
    o[6] = min4_s_add(x, y, z);
    o[7] = max4_mixed(x, y, z);
    o[8] = set4_ge_add(x, y, z);
    o[9] = avrg2_u(x, y, z);
    o[10] = sub2_s_sat(x, y, z);
    o[11] = set2_lt(x, y, z);
    o[12] = absdiff4_masked(x, y, z);
    o[13] = add4_selected(x, y, z);
    o[14] = max2_selected(x, y, z);
    o[15] = __vabsdiffu2(x, y);
}
