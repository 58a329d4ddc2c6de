// The opaque handles of gpu.h as this family defines them. A stream / event / module remembers
// its device so calls that take only the handle reach the right backend.
#pragma once

#include "plugin/device_backend.hpp"

#include <cudabridge/gpu.h>

#include <memory>

struct cb_gpu_device {
    // Shared: a call in flight holds its own reference, so close_device on another thread
    // never destroys the backend under it; the last holder does.
    std::shared_ptr<cudabridge::nv::device_backend> backend;
};

struct cb_gpu_stream {
    cb_gpu_device* device = nullptr;
    void* handle = nullptr;  // the backend's
};

struct cb_gpu_event {
    cb_gpu_device* device = nullptr;
    void* handle = nullptr;
};

struct cb_gpu_module {
    cb_gpu_device* device = nullptr;
    void* handle = nullptr;
};
