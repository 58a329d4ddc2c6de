// Must compile with the userspace driver's include path: it programs the GPU through the
// register map and command format (common/hw) it links.
#include "common/hw/registers.hpp"
#include "userspace/driver/userspace_device.hpp"
