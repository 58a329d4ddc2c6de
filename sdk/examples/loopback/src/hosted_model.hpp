// An endpoint model a GPU family handed to the loopback, with the lock that serialises calls
// into it (the endpoint-model contract: at most one model-table call at a time per model).
#pragma once

#include <cudabridge/endpoint_model.h>

#include <cstdint>
#include <mutex>

namespace loopback {

struct hosted_model {
    const cb_endpoint_model_table* table = nullptr;
    void* model = nullptr;
    std::mutex calls;  // held around every model-table call

    // Identity read from its config space when it was attached.
    uint16_t vendor_id = 0;
    uint16_t device_id = 0;
    uint32_t class_code = 0;  // 24-bit class / subclass / prog-if
};

}  // namespace loopback
