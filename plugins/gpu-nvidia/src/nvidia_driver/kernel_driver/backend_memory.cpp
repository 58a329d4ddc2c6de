// Memory, copies, streams and events of the kernel-driver backend.
#include "nvidia_driver/kernel_driver/backend_registry.hpp"
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

namespace cudabridge::nv {

cb_status kernel_driver_backend::stream_of(kd_device* device, kd_stream* stream, cu::CUstream& out,
                                           std::string& error) const {
    out = nullptr;
    if (stream == nullptr) return CB_OK;
    kd_device* owner = nullptr;
    if (cb_status s = check_stream(stream, error, &owner); s != CB_OK) return s;
    if (owner != device) return fail(error, CB_ERR_INVALID_ARGUMENT, "the stream belongs to another device");
    out = stream->stream;
    return CB_OK;
}

// After work queued on the default stream for a synchronous call: wait, and report what failed.
cb_status kernel_driver_backend::finish_sync(kd_device*, kd_stream* stream, const char* what,
                                             std::string& error) const {
    if (stream != nullptr) return CB_OK;
    return cuda(driver_.api().cuStreamSynchronize(nullptr), what, error);
}

// ---- memory ------------------------------------------------------------------------------------

cb_status kernel_driver_backend::mem_alloc(kd_device* device, uint64_t size, uint64_t& out_ptr, std::string& error) {
    out_ptr = 0;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (size == 0) return CB_OK;  // like cudaMalloc(0): success, no memory
    cu::CUdeviceptr p = 0;
    if (cb_status s = cuda(driver_.api().cuMemAlloc(&p, static_cast<std::size_t>(size)), "cuMemAlloc_v2", error);
        s != CB_OK) {
        if (s == CB_ERR_OUT_OF_MEMORY) error += " (" + std::to_string(size) + " bytes requested)";
        return s;
    }
    out_ptr = p;
    return CB_OK;
}

cb_status kernel_driver_backend::mem_free(kd_device* device, uint64_t ptr, std::string& error) {
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (ptr == 0) return CB_OK;
    return cuda(driver_.api().cuMemFree(ptr), "cuMemFree_v2", error);
}

cb_status kernel_driver_backend::mem_info(kd_device* device, uint64_t& out_free, uint64_t& out_total,
                                          std::string& error) {
    out_free = out_total = 0;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    std::size_t free = 0, total = 0;
    if (cb_status s = cuda(driver_.api().cuMemGetInfo(&free, &total), "cuMemGetInfo_v2", error); s != CB_OK) return s;
    out_free = free;
    out_total = total;
    return CB_OK;
}

// ---- copies --------------------------------------------------------------------------------------

cb_status kernel_driver_backend::memcpy_h2d(kd_device* device, uint64_t dst, const void* src, size_t size,
                                            kd_stream* stream, std::string& error) {
    cu::CUstream st = nullptr;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (cb_status s = stream_of(device, stream, st, error); s != CB_OK) return s;
    if (size == 0) return CB_OK;
    if (src == nullptr || dst == 0) return fail(error, CB_ERR_INVALID_ARGUMENT, "memcpy_h2d: null pointer");
    const cuda_api& api = driver_.api();
    return stream == nullptr ? cuda(api.cuMemcpyHtoD(dst, src, size), "cuMemcpyHtoD_v2", error)
                             : cuda(api.cuMemcpyHtoDAsync(dst, src, size, st), "cuMemcpyHtoDAsync_v2", error);
}

cb_status kernel_driver_backend::memcpy_d2h(kd_device* device, void* dst, uint64_t src, size_t size, kd_stream* stream,
                                            std::string& error) {
    cu::CUstream st = nullptr;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (cb_status s = stream_of(device, stream, st, error); s != CB_OK) return s;
    if (size == 0) return CB_OK;
    if (dst == nullptr || src == 0) return fail(error, CB_ERR_INVALID_ARGUMENT, "memcpy_d2h: null pointer");
    const cuda_api& api = driver_.api();
    return stream == nullptr ? cuda(api.cuMemcpyDtoH(dst, src, size), "cuMemcpyDtoH_v2", error)
                             : cuda(api.cuMemcpyDtoHAsync(dst, src, size, st), "cuMemcpyDtoHAsync_v2", error);
}

cb_status kernel_driver_backend::memcpy_d2d(kd_device* device, uint64_t dst, uint64_t src, size_t size,
                                            kd_stream* stream, std::string& error) {
    cu::CUstream st = nullptr;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (cb_status s = stream_of(device, stream, st, error); s != CB_OK) return s;
    if (size == 0) return CB_OK;
    if (dst == 0 || src == 0) return fail(error, CB_ERR_INVALID_ARGUMENT, "memcpy_d2d: null pointer");
    const cuda_api& api = driver_.api();
    // cuMemcpyDtoD may return before the copy ends: a synchronous call waits for it.
    if (stream == nullptr) {
        if (cb_status s = cuda(api.cuMemcpyDtoD(dst, src, size), "cuMemcpyDtoD_v2", error); s != CB_OK) return s;
        return finish_sync(device, nullptr, "cuMemcpyDtoD_v2", error);
    }
    return cuda(api.cuMemcpyDtoDAsync(dst, src, size, st), "cuMemcpyDtoDAsync_v2", error);
}

cb_status kernel_driver_backend::memset8(kd_device* device, uint64_t dst, uint8_t value, size_t size, kd_stream* stream,
                                         std::string& error) {
    cu::CUstream st = nullptr;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (cb_status s = stream_of(device, stream, st, error); s != CB_OK) return s;
    if (size == 0) return CB_OK;
    if (dst == 0) return fail(error, CB_ERR_INVALID_ARGUMENT, "memset8: null pointer");
    const cuda_api& api = driver_.api();
    if (stream == nullptr) {
        if (cb_status s = cuda(api.cuMemsetD8(dst, value, size), "cuMemsetD8_v2", error); s != CB_OK) return s;
        return finish_sync(device, nullptr, "cuMemsetD8_v2", error);
    }
    return cuda(api.cuMemsetD8Async(dst, value, size, st), "cuMemsetD8Async", error);
}

// ---- streams -------------------------------------------------------------------------------------

cb_status kernel_driver_backend::stream_create(kd_device* device, kd_stream*& out, std::string& error) {
    out = nullptr;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    auto st = std::make_unique<kd_stream>();
    st->device = device;
    // A blocking stream (CU_STREAM_DEFAULT), as cudaStreamCreate makes: work on the default
    // stream waits for it, so a synchronous call after async ones sees their results.
    if (cb_status s = cuda(driver_.api().cuStreamCreate(&st->stream, cu::CU_STREAM_DEFAULT), "cuStreamCreate", error);
        s != CB_OK)
        return s;
    out = st.get();
    std::lock_guard lock(registry_->mutex);
    registry_->streams.emplace(out, std::move(st));
    return CB_OK;
}

cb_status kernel_driver_backend::stream_destroy(kd_stream* stream, std::string& error) {
    kd_device* device = nullptr;
    if (cb_status s = check_stream(stream, error, &device); s != CB_OK) return s;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    std::unique_ptr<kd_stream> owned;
    {
        std::lock_guard lock(registry_->mutex);
        auto it = registry_->streams.find(stream);
        if (it == registry_->streams.end())
            return fail(error, CB_ERR_INVALID_ARGUMENT, "unknown or destroyed stream handle");
        owned = std::move(it->second);
        registry_->streams.erase(it);
    }
    return cuda(driver_.api().cuStreamDestroy(owned->stream), "cuStreamDestroy_v2", error);
}

cb_status kernel_driver_backend::stream_synchronize(kd_stream* stream, std::string& error) {
    kd_device* device = nullptr;
    if (cb_status s = check_stream(stream, error, &device); s != CB_OK) return s;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    return cuda(driver_.api().cuStreamSynchronize(stream->stream), "cuStreamSynchronize", error);
}

cb_status kernel_driver_backend::stream_query(kd_stream* stream, std::string& error) {
    kd_device* device = nullptr;
    if (cb_status s = check_stream(stream, error, &device); s != CB_OK) return s;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    cu::CUresult r = driver_.api().cuStreamQuery(stream->stream);
    if (r == cu::CUDA_ERROR_NOT_READY) return fail(error, CB_ERR_BUSY, "work is still pending on the stream");
    return cuda(r, "cuStreamQuery", error);
}

cb_status kernel_driver_backend::synchronize(kd_device* device, std::string& error) {
    if (cb_status s = current(device, error); s != CB_OK) return s;
    return cuda(driver_.api().cuCtxSynchronize(), "cuCtxSynchronize", error);
}

cb_status kernel_driver_backend::stream_wait_event(kd_device* device, kd_stream* stream, kd_event* event,
                                                   std::string& error) {
    if (cb_status s = check_event(event, error); s != CB_OK) return s;
    if (event->device != device)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "stream_wait_event: the event belongs to another device");
    if (cb_status s = current(device, error); s != CB_OK) return s;
    cu::CUstream st = nullptr;
    if (cb_status s = stream_of(device, stream, st, error); s != CB_OK) return s;
    const auto wait = driver_.api().cuStreamWaitEvent;
    if (wait == nullptr)
        return fail(error, CB_ERR_UNSUPPORTED, "stream_wait_event: this driver does not export cuStreamWaitEvent");
    return cuda(wait(st, event->event, 0), "cuStreamWaitEvent", error);
}

// ---- events --------------------------------------------------------------------------------------

cb_status kernel_driver_backend::event_create(kd_device* device, kd_event*& out, std::string& error) {
    out = nullptr;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    auto ev = std::make_unique<kd_event>();
    ev->device = device;
    if (cb_status s = cuda(driver_.api().cuEventCreate(&ev->event, cu::CU_EVENT_DEFAULT), "cuEventCreate", error);
        s != CB_OK)
        return s;
    out = ev.get();
    std::lock_guard lock(registry_->mutex);
    registry_->events.emplace(out, std::move(ev));
    return CB_OK;
}

cb_status kernel_driver_backend::event_destroy(kd_event* event, std::string& error) {
    if (cb_status s = check_event(event, error); s != CB_OK) return s;
    if (cb_status s = current(event->device, error); s != CB_OK) return s;
    std::unique_ptr<kd_event> owned;
    {
        std::lock_guard lock(registry_->mutex);
        auto it = registry_->events.find(event);
        if (it == registry_->events.end())
            return fail(error, CB_ERR_INVALID_ARGUMENT, "unknown or destroyed event handle");
        owned = std::move(it->second);
        registry_->events.erase(it);
    }
    return cuda(driver_.api().cuEventDestroy(owned->event), "cuEventDestroy_v2", error);
}

cb_status kernel_driver_backend::event_record(kd_event* event, kd_stream* stream, std::string& error) {
    if (cb_status s = check_event(event, error); s != CB_OK) return s;
    if (cb_status s = current(event->device, error); s != CB_OK) return s;
    cu::CUstream st = nullptr;
    if (cb_status s = stream_of(event->device, stream, st, error); s != CB_OK) return s;
    return cuda(driver_.api().cuEventRecord(event->event, st), "cuEventRecord", error);
}

cb_status kernel_driver_backend::event_synchronize(kd_event* event, std::string& error) {
    if (cb_status s = check_event(event, error); s != CB_OK) return s;
    if (cb_status s = current(event->device, error); s != CB_OK) return s;
    return cuda(driver_.api().cuEventSynchronize(event->event), "cuEventSynchronize", error);
}

cb_status kernel_driver_backend::event_query(kd_event* event, std::string& error) {
    if (cb_status s = check_event(event, error); s != CB_OK) return s;
    if (cb_status s = current(event->device, error); s != CB_OK) return s;
    cu::CUresult r = driver_.api().cuEventQuery(event->event);
    if (r == cu::CUDA_ERROR_NOT_READY) return fail(error, CB_ERR_BUSY, "the event has not been reached yet");
    return cuda(r, "cuEventQuery", error);
}

cb_status kernel_driver_backend::event_elapsed_ms(kd_event* start, kd_event* end, float& out_ms, std::string& error) {
    out_ms = 0;
    if (cb_status s = check_event(start, error); s != CB_OK) return s;
    if (cb_status s = check_event(end, error); s != CB_OK) return s;
    if (start->device != end->device)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "event_elapsed_ms: the events belong to different devices");
    if (cb_status s = current(start->device, error); s != CB_OK) return s;
    cu::CUresult r = driver_.api().cuEventElapsedTime(&out_ms, start->event, end->event);
    if (r == cu::CUDA_ERROR_NOT_READY) return fail(error, CB_ERR_BUSY, "an event has not been reached yet");
    return cuda(r, "cuEventElapsedTime", error);
}

}  // namespace cudabridge::nv
