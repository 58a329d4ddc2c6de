// How an engine finished one command: a cb_status for the error registers, the Xid a real
// driver would log for the failure (the safety policy reads them as telemetry), and why.
#pragma once

#include <cudabridge/abi.h>

#include <cstdint>
#include <string>
#include <utility>

namespace cudabridge::nv {

// Xid numbers from NVIDIA's published Xid catalog.
inline constexpr uint32_t xid_graphics_engine_exception = 13;  // a bad command or kernel
inline constexpr uint32_t xid_mmu_fault = 31;                  // access outside device memory

struct command_result {
    cb_status status = CB_OK;
    uint32_t xid = 0;          // 0: none (host-side failures are the link's, not the GPU's)
    std::string message;       // for the log
    cb_status detail = CB_OK;  // reg::error_detail: what a failed host kernel returned

    bool ok() const noexcept { return status == CB_OK; }
    static command_result success() { return {}; }
    static command_result failure(cb_status status, uint32_t xid, std::string message) {
        return {status, xid, std::move(message), CB_OK};
    }
    // A host kernel returned `returned` (not CB_OK): a kernel fault, CB_ERR_INTERNAL, Xid 13.
    static command_result kernel_fault(cb_status returned, std::string message) {
        return {CB_ERR_INTERNAL, xid_graphics_engine_exception, std::move(message), returned};
    }
};

}  // namespace cudabridge::nv
