// The launch API before CUDA 4, still exported and still used by older programs: the block shape,
// shared memory and a packed argument buffer are set on the function, then cuLaunch /
// cuLaunchGrid launch it (as cuLaunchKernel with `extra`'s buffer).
#include "contexts.hpp"
#include "launches.hpp"
#include "results.hpp"

#include <cstring>

using namespace cudabridge::libcuda;

namespace {

CUresult set_bytes(CUfunction f, int offset, const void* bytes, unsigned count) {
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuParamSet: no such function");
    if (offset < 0 || static_cast<size_t>(offset) + count > f->params.size())
        return fail(CUDA_ERROR_INVALID_VALUE, "cuParamSet: past the size cuParamSetSize gave");
    std::memcpy(f->params.data() + offset, bytes, count);
    return CUDA_SUCCESS;
}

CUresult launch_grid(CUfunction f, int width, int height, CUstream stream) {
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuLaunchGrid: no such function");
    if (width <= 0 || height <= 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchGrid: an empty grid");
    size_t size = f->params.size();
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, f->params.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    return launch(f, {unsigned(width), unsigned(height), 1}, {f->block[0], f->block[1], f->block[2]}, f->shared, stream,
                  nullptr, extra, false);
}

}  // namespace

extern "C" {

CUresult cuFuncSetBlockShape(CUfunction f, int x, int y, int z) {
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncSetBlockShape: no such function");
    if (x <= 0 || y <= 0 || z <= 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuFuncSetBlockShape: an empty block");
    f->block[0] = unsigned(x), f->block[1] = unsigned(y), f->block[2] = unsigned(z);
    return CUDA_SUCCESS;
}

CUresult cuFuncSetSharedSize(CUfunction f, unsigned bytes) {
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncSetSharedSize: no such function");
    f->shared = bytes;
    return CUDA_SUCCESS;
}

CUresult cuParamSetSize(CUfunction f, unsigned bytes) {
    if (!live(f)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuParamSetSize: no such function");
    f->params.assign(bytes, 0);
    return CUDA_SUCCESS;
}

CUresult cuParamSeti(CUfunction f, int offset, unsigned value) { return set_bytes(f, offset, &value, sizeof value); }
CUresult cuParamSetf(CUfunction f, int offset, float value) { return set_bytes(f, offset, &value, sizeof value); }
CUresult cuParamSetv(CUfunction f, int offset, void* bytes, unsigned count) {
    if (!bytes && count) return CUDA_ERROR_INVALID_VALUE;
    return set_bytes(f, offset, bytes, count);
}

CUresult cuLaunch(CUfunction f) { return launch_grid(f, 1, 1, nullptr); }
CUresult cuLaunchGrid(CUfunction f, int width, int height) { return launch_grid(f, width, height, nullptr); }
CUresult cuLaunchGridAsync(CUfunction f, int width, int height, CUstream stream) {
    return launch_grid(f, width, height, stream);
}

}  // extern "C"
