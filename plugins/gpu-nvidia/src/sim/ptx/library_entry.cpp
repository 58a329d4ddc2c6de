// The one symbol libcudabridge_ptx_engine.so exports: load a PTX module (kernel_module.hpp).
#include "sim/ptx/program.hpp"

extern "C" __attribute__((visibility("default"))) cudabridge::nv::ptx::kernel_module* cudabridge_ptx_load(
    const char* ptx_text, size_t size, std::string* error, cb_status* status) {
    std::string ignored;
    std::string& why = error ? *error : ignored;
    try {
        return cudabridge::nv::ptx::program::load({ptx_text, size}, why, status).release();
    } catch (const std::exception& e) {
        why = std::string("PTX engine: ") + e.what();
        if (status) *status = CB_ERR_INTERNAL;
        return nullptr;
    }
}
