// Folders and files the sinks write to, with failures turned into status_errors that name the
// path and the reason.
#pragma once

#include <cudabridge/abi.h>

#include <string>

namespace cudabridge::plugins::logging {

// CB_ERR_PERMISSION for EACCES/EPERM/EROFS, CB_ERR_INVALID_ARGUMENT otherwise.
cb_status status_from_errno(int err) noexcept;

// Creates `dir` and its missing parents with mode 0755 (like mkdir -p) and checks that it is a
// writable folder. `what` prefixes the message ("file sink").
void ensure_directory(const std::string& dir, const std::string& what);

// The folder part of a file path ("." when there is none).
std::string parent_of(const std::string& path);

}  // namespace cudabridge::plugins::logging
