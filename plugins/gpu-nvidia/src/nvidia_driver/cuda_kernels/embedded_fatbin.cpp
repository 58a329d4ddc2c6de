#include "nvidia_driver/cuda_kernels/embedded_fatbin.hpp"

#if CB_NV_HAVE_BUILTIN_FATBIN
extern const unsigned char cb_nv_builtin_fatbin[];
extern const std::size_t cb_nv_builtin_fatbin_size;
#endif

namespace cudabridge::nv::cuda_kernels {

embedded_image builtin_fatbin() {
#if CB_NV_HAVE_BUILTIN_FATBIN
    return {cb_nv_builtin_fatbin, cb_nv_builtin_fatbin_size};
#else
    return {};
#endif
}

}  // namespace cudabridge::nv::cuda_kernels
