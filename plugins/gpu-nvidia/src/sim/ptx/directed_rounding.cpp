// Floating-point operations rounded towards zero, down or up (PTX's .rz, .rm, .rp), for the
// generated code: the host's own IEEE operation under the requested rounding mode, which the
// thread's floating-point environment holds for this one operation and gets back after it. So
// each result is exact for every input, subnormals, infinities, NaNs, signed zeros and overflow
// included (rounding an overflow towards zero gives the largest finite value). Built with
// -frounding-math, so that the compiler keeps each operation between the two mode changes.
#include "sim/ptx/abi.hpp"

#include <cfenv>
#include <cmath>

namespace cudabridge::nv::ptx {
namespace {

int host_mode(uint32_t mode) {
    switch (mode) {
    case round_toward_zero:
        return FE_TOWARDZERO;
    case round_down:
        return FE_DOWNWARD;
    case round_up:
        return FE_UPWARD;
    default:
        return FE_TONEAREST;
    }
}

template <typename T>
T rounded(uint32_t op, uint32_t mode, T a, T b, T c) {
    const int saved = std::fegetround();
    std::fesetround(host_mode(mode));
    volatile T x = a, y = b, z = c;
    volatile T r;
    switch (op) {
    case rounded_add:
        r = x + y;
        break;
    case rounded_sub:
        r = x - y;
        break;
    case rounded_mul:
        r = x * y;
        break;
    case rounded_fma:
        r = std::fma(T(x), T(y), T(z));
        break;
    case rounded_div:
        r = x / y;
        break;
    case rounded_sqrt:
        r = std::sqrt(T(x));
        break;
    case rounded_rcp:
        r = T(1) / x;
        break;
    default:
        r = T(NAN);
        break;
    }
    const T result = r;
    std::fesetround(saved);
    return result;
}

}  // namespace

extern "C" float cb_ptx_rounded_f32(uint32_t op, uint32_t mode, float a, float b, float c) {
    return rounded<float>(op, mode, a, b, c);
}

extern "C" double cb_ptx_rounded_f64(uint32_t op, uint32_t mode, double a, double b, double c) {
    return rounded<double>(op, mode, a, b, c);
}

}  // namespace cudabridge::nv::ptx
