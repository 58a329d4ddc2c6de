// The device attributes only the driver API has (CUdevice_attribute numbers the runtime's
// cudaDeviceAttr leaves out): what this library and the simulated GPU offer for each.
#pragma once

namespace cudabridge::libcuda {

// false for a number that is not one of them.
bool driver_only_attribute(int attribute, int& value);

}  // namespace cudabridge::libcuda
