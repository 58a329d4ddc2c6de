// Runtime errors: a plugin's cb_status mapped to the runtime's cbError_t, and the calling
// thread's last error (cbGetLastError / cbPeekAtLastError) with its message.
#pragma once

#include <cudabridge.h>

#include <string>

namespace cudabridge::host {

cbError_t to_runtime_error(cb_status status) noexcept;
// Errors that leave the device unusable until cbDeviceReset.
bool is_sticky(cbError_t e) noexcept;

// Records `e` as the thread's last error (with its message) and returns it; cbSuccess records
// nothing (CUDA keeps the last failure until it is read).
cbError_t set_last_error(cbError_t e, const std::string& message);
cbError_t take_last_error() noexcept;  // and reset it
cbError_t peek_last_error() noexcept;
const char* last_error_message() noexcept;

// A synchronization found a failed device command: the failure maps to cbErrorLaunchFailure.
void mark_launch_failure() noexcept;
bool take_launch_failure() noexcept;

const char* error_name(cbError_t e) noexcept;
const char* error_string(cbError_t e) noexcept;

}  // namespace cudabridge::host
