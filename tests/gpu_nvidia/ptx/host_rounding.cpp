#include "host_rounding.hpp"

#include <cfenv>
#include <cmath>

namespace cudabridge::nv::ptx::host_reference {
namespace {

template <typename T>
T rounded(host_op op, host_round mode, T a, T b, T c) {
    const int saved = std::fegetround();
    std::fesetround(mode == host_round::toward_zero ? FE_TOWARDZERO
                    : mode == host_round::down      ? FE_DOWNWARD
                                                    : FE_UPWARD);
    volatile T x = a, y = b, z = c;
    volatile T r = 0;
    switch (op) {
    case host_op::add:
        r = x + y;
        break;
    case host_op::sub:
        r = x - y;
        break;
    case host_op::mul:
        r = x * y;
        break;
    case host_op::fma:
        r = std::fma(T(x), T(y), T(z));
        break;
    case host_op::div:
        r = x / y;
        break;
    case host_op::sqrt:
        r = std::sqrt(T(x));
        break;
    case host_op::rcp:
        r = T(1) / x;
        break;
    }
    const T result = r;
    std::fesetround(saved);
    return result;
}

}  // namespace

float host_rounded(host_op op, host_round mode, float a, float b, float c) { return rounded(op, mode, a, b, c); }
double host_rounded(host_op op, host_round mode, double a, double b, double c) { return rounded(op, mode, a, b, c); }

}  // namespace cudabridge::nv::ptx::host_reference
