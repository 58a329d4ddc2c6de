// Internal: the backend's live handles. Every handle a caller passes back is looked up here
// first, so a closed or foreign pointer is refused rather than dereferenced.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "nvidia_driver/cuda_driver/cublas_library.hpp"
#include "nvidia_driver/cuda_driver/nvrtc_library.hpp"
#include "nvidia_driver/kernel_driver/handles.hpp"
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

namespace cudabridge::nv {

struct kernel_driver_backend::registry {
    mutable std::mutex mutex;
    std::unordered_map<kd_device*, std::unique_ptr<kd_device>> devices;
    std::unordered_map<kd_stream*, std::unique_ptr<kd_stream>> streams;
    std::unordered_map<kd_event*, std::unique_ptr<kd_event>> events;
    std::unordered_map<kd_module*, std::unique_ptr<kd_module>> modules;

    // cuBLAS and NVRTC, loaded on first use.
    mutable std::once_flag cublas_once, nvrtc_once;
    mutable std::unique_ptr<cublas_library> cublas;
    mutable std::unique_ptr<nvrtc_library> nvrtc;

    template <class Map, class Handle>
    bool live(const Map& map, Handle* h) const {
        std::lock_guard lock(mutex);
        return h != nullptr && map.count(h) != 0;
    }
};

}  // namespace cudabridge::nv
