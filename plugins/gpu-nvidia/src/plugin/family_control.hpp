// The family's control requests (ABI 1.2, gpu.h): JSON in, JSON out.
//   {"op":"profiles"}                      -> {"profiles":[<profile>...]} every seeded model
//   {"op":"profile","key":"rtx-5090"}      -> {"profile":<profile>}  (or "pci_device_id": N)
//   {"op":"drivers"}                       -> {"kernel_driver":{...},"userspace":{...}} which
//                                             backends can run here and why (from `drivers`)
// Unknown ops are CB_ERR_UNSUPPORTED; bad requests CB_ERR_INVALID_ARGUMENT (thrown as
// sdk::status_error with the reason).
#pragma once

#include <functional>
#include <string>

namespace cudabridge::nv {

// `drivers` answers the "drivers" op (it loads the kernel driver's libraries on first use).
std::string handle_family_control(const std::string& request, const std::function<std::string()>& drivers);

}  // namespace cudabridge::nv
