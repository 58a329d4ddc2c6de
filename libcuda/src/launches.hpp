// A kernel launch in the current context, as cuLaunchKernel makes it: the configuration checked
// against the device's limits (and a cooperative grid against what the device holds at once),
// the arguments one pointer per parameter or `extra`'s packed buffer, counted in run's summary.
#pragma once

#include "modules.hpp"

namespace cudabridge::libcuda {

CUresult launch(CUfunction f, cbDim3 grid, cbDim3 block, unsigned shared, CUstream stream, void** params, void** extra,
                bool cooperative);

}  // namespace cudabridge::libcuda
