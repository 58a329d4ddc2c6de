// The outcome of a kernel call: a cb_status code plus a numpy-style message for the caller to show.
#pragma once

#include <string>
#include <utility>

#include <cudabridge/abi.h>

namespace cudabridge::nv::kernels {

struct status {
    cb_status code = CB_OK;
    std::string message;

    bool ok() const { return code == CB_OK; }
    static status success() { return {}; }
    static status invalid(std::string msg) { return {CB_ERR_INVALID_ARGUMENT, std::move(msg)}; }
    static status unsupported(std::string msg) { return {CB_ERR_UNSUPPORTED, std::move(msg)}; }
};

}  // namespace cudabridge::nv::kernels
