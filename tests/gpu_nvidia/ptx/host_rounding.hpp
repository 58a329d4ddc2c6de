// The host's IEEE operations under a rounding mode (fesetround around one operation), as a
// reference for the engine's directed rounding; host_rounding.cpp is built with -frounding-math.
#pragma once

namespace cudabridge::nv::ptx::host_reference {

enum class host_op { add, sub, mul, fma, div, sqrt, rcp };
enum class host_round { toward_zero, down, up };

float host_rounded(host_op op, host_round mode, float a, float b, float c);
double host_rounded(host_op op, host_round mode, double a, double b, double c);

}  // namespace cudabridge::nv::ptx::host_reference
