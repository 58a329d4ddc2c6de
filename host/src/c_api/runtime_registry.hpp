// The one piece of process-wide state behind cudabridge.h and egpu_safety.h: the process's
// runtime (made by cbInit, egpu_safety_init or the first call that needs it), the safety-policy
// overrides given to egpu_safety_init, and the C event callback.
#pragma once

#include <cudabridge/host/runtime.hpp>
#include <egpu_safety.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>

namespace cudabridge::host::c_api {

struct runtime_registry {
    std::mutex mutex;  // init, shutdown, connect, callbacks
    std::unique_ptr<runtime> owned;
    std::atomic<runtime*> current{nullptr};  // the calls' fast path
    core::config_entries policy;             // egpu_safety_init overrides
    // Held shared while the callback runs, exclusively while it is replaced: once
    // egpu_set_event_callback returns, the previous callback is not running and never will.
    std::shared_mutex callback_mutex;
    EGPUEventCallback callback = nullptr;
    void* callback_user = nullptr;
};

runtime_registry& registry();

// The process's runtime, made on first use (connecting the eGPU when needed); nullptr with the
// thread's last error set when that fails.
runtime* get_runtime(bool autoconnect = true);
// Makes the registry's C callback hear a device's events.
void forward_events(host::device& d);
// Tells the C callback (if any) directly.
void notify(EGPUConnectionState state, EGPUError error, const std::string& message);

}  // namespace cudabridge::host::c_api
