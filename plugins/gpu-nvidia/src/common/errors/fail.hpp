// The plugin's one error idiom (README, "Errors"): a fallible function returns cb_status and writes
// its message into a trailing `std::string& error`; only src/plugin/ throws (sdk::status_error).
#pragma once

#include <cudabridge/abi.h>

#include <string>
#include <utility>

namespace cudabridge::nv {

// Sets the message and returns the code, so a failure is one line: return fail(error, code, "...");
inline cb_status fail(std::string& error, cb_status code, std::string message) {
    error = std::move(message);
    return code;
}

}  // namespace cudabridge::nv
