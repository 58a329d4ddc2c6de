// Errors inside the host side of CudaBridge: a status code from the ABI plus a message.
#pragma once

#include <cudabridge/abi.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace cudabridge::core {

class error : public std::runtime_error {
public:
    error(cb_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
    cb_status status() const noexcept { return status_; }

private:
    cb_status status_;
};

// "CB_ERR_DMA_LIMIT" style identifier of a status.
const char* status_name(cb_status status) noexcept;
// A short human description ("DMA limit reached").
const char* status_description(cb_status status) noexcept;

// The calling thread's last error message (set by plugins through the host services, and by the
// host itself before it returns a failure through a C API).
void set_last_error(std::string_view message);
std::string last_error();

}  // namespace cudabridge::core
