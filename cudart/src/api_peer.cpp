// Copies between devices. eGPUs reach each other only through the host (no peer mappings over
// Thunderbolt / USB4), so cudaDeviceCanAccessPeer answers 0 and a peer copy between two devices is
// staged through host memory; a "peer" copy within one device is a device-to-device copy.
#include "errors.hpp"
#include "handles.hpp"

#include <vector>

extern "C" {
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize(void);
}

using namespace cudabridge::cudart;

namespace {

bool valid_device(int device) {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && device >= 0 && device < count;
}

// Between two devices: the source device's bytes to the host, then to the destination device,
// each on its own device, the caller's device current again afterwards.
cudaError_t staged_copy(void* dst, int dst_device, const void* src, int src_device, size_t count) {
    int current = 0;
    if (cudaError_t e = cudaGetDevice(&current); e != cudaSuccess) return e;
    std::vector<unsigned char> bounce(count);
    cudaError_t e = cudaSetDevice(src_device);
    if (e == cudaSuccess) e = cudaMemcpy(bounce.data(), src, count, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaSetDevice(dst_device);
    if (e == cudaSuccess) e = cudaMemcpy(dst, bounce.data(), count, cudaMemcpyHostToDevice);
    const cudaError_t back = cudaSetDevice(current);
    return e != cudaSuccess ? e : back;
}

}  // namespace

extern "C" {

cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) {
    if (!can) return record(cudaErrorInvalidValue);
    if (!valid_device(device) || !valid_device(peer)) return record(cudaErrorInvalidDevice);
    *can = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned /*flags*/) {
    if (!valid_device(peer)) return record(cudaErrorInvalidDevice);
    return fail(cudaErrorPeerAccessUnsupported, "cudaDeviceEnablePeerAccess: eGPUs reach each other through the host");
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
    if (!valid_device(peer)) return record(cudaErrorInvalidDevice);
    return record(cudaErrorPeerAccessNotEnabled);
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t count,
                                cudaStream_t stream) {
    if (!valid_device(dst_device) || !valid_device(src_device)) return record(cudaErrorInvalidDevice);
    if (dst_device == src_device) {
        int current = 0;
        if (cudaError_t e = cudaGetDevice(&current); e != cudaSuccess) return e;
        if (current == dst_device) return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream);
    }
    // Staged: the stream's earlier work first, then the copy is done when this returns.
    if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) return e;
    return staged_copy(dst, dst_device, src, src_device, count);
}

cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t count) {
    if (cudaError_t e = cudaMemcpyPeerAsync(dst, dst_device, src, src_device, count, nullptr); e != cudaSuccess)
        return e;
    return cudaStreamSynchronize(nullptr);
}

}  // extern "C"
