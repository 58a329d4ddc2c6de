// Where the failure of an asynchronous command lands: each stream has one, and each synchronous
// call makes its own. The first failure is kept until the owner takes it.
#pragma once

#include <cudabridge/abi.h>

#include <mutex>
#include <string>

namespace cudabridge::nv {

class error_sink {
public:
    void record(cb_status code, const std::string& message);
    // The kept failure, cleared (CB_OK when none); `message` receives its text.
    cb_status take(std::string& message);
    // The kept failure, left in place.
    cb_status peek(std::string& message) const;

private:
    mutable std::mutex mutex_;
    cb_status code_ = CB_OK;
    std::string message_;
};

}  // namespace cudabridge::nv
