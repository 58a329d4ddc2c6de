// Folders and files the sinks write to, with failures turned into status_errors that name the
// path and the reason.
#pragma once

#include <cudabridge/abi.h>

#include <cstdio>
#include <string>

namespace cudabridge::plugins::logging {

// CB_ERR_PERMISSION for EACCES/EPERM/EROFS, CB_ERR_INVALID_ARGUMENT otherwise.
cb_status status_from_errno(int err) noexcept;

// Creates `dir` and its missing parents with mode 0700 (like mkdir -p; logs are private) and
// checks that it is a writable folder. `what` prefixes the message ("file sink").
void ensure_directory(const std::string& dir, const std::string& what);

// Mode 0600 for a log file this process opened: readable by its user only.
void make_private(std::FILE* file);

// The folder part of a file path ("." when there is none).
std::string parent_of(const std::string& path);

}  // namespace cudabridge::plugins::logging
