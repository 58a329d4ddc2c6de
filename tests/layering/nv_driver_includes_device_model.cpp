// Must fail with the userspace driver's include path: the driver knows the GPU only through the
// link and the register contract, never the simulated GPU's code (it drives real ones too).
#include "common/hw/registers.hpp"
#include "sim/device_model/device_model.hpp"
