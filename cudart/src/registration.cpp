#include "registration.hpp"

#include "errors.hpp"

#include <cstdio>
#include <cstring>

namespace cudabridge::cudart {
namespace {

constexpr int wrapper_magic = 0x466243b1;
constexpr uint32_t fatbin_magic = 0xBA55ED50u;

// The architectures of the PTX entries of a fatbin's first container (an entry: kind 2 bytes,
// 2 more, its header size 4, payload size 8, ..., the architecture at byte 28; kind 1 is PTX).
// Only the uncompressed entry headers are read.
std::vector<int> ptx_architectures(const void* image, size_t size) {
    std::vector<int> out;
    const auto* p = static_cast<const unsigned char*>(image);
    auto read = [&](size_t at, auto& v) { std::memcpy(&v, p + at, sizeof v); };
    uint16_t header = 0;
    read(6, header);
    for (size_t at = header; at + 32 <= size;) {
        uint16_t kind = 0;
        uint32_t entry_header = 0, arch = 0;
        uint64_t payload = 0;
        read(at, kind);
        read(at + 4, entry_header);
        read(at + 8, payload);
        read(at + 28, arch);
        if (entry_header < 32 || payload > size) break;
        if (kind == 1) out.push_back(static_cast<int>(arch));
        at += entry_header + payload;
    }
    return out;
}

// A program built with -rdc registers the fatbin nvlink made (machine code only) in a wrapper of
// version 2 whose last field lists, NULL-terminated, the fatbins of its translation units before
// linking, with their PTX (crt/link.stub): for a GPU the machine code does not fit, the driver
// JIT-links those. The module gets them all, one container after another (each translation
// unit's and NVIDIA's device runtime's); the PTX engine takes what it can run (fatbin.hpp).
constexpr int linked_wrapper_version = 2;

void use_prelinked_fatbins(fatbin_record& f, const void* const* fatbins) {
    std::vector<unsigned char> joined;
    std::vector<int> architectures;
    for (size_t i = 0; fatbins[i] && i < 4096; ++i) {
        const size_t size = fatbin_size(fatbins[i]);
        if (size == 0) continue;
        const auto* bytes = static_cast<const unsigned char*>(fatbins[i]);
        joined.insert(joined.end(), bytes, bytes + size);
        const std::vector<int> some = ptx_architectures(fatbins[i], size);
        architectures.insert(architectures.end(), some.begin(), some.end());
    }
    if (architectures.empty()) return;
    f.joined = std::move(joined);
    f.image = f.joined.data();
    f.size = f.joined.size();
    f.ptx_architectures = std::move(architectures);
}

thread_local std::vector<call_configuration> configurations;

}  // namespace

// Magic (4), version (2), header size (2), payload size (8).
size_t fatbin_size(const void* image) {
    uint32_t magic = 0;
    uint16_t header_size = 0;
    uint64_t payload = 0;
    std::memcpy(&magic, image, 4);
    std::memcpy(&header_size, static_cast<const char*>(image) + 6, 2);
    std::memcpy(&payload, static_cast<const char*>(image) + 8, 8);
    return magic == fatbin_magic ? header_size + payload : 0;
}

registrations& registered() {
    static registrations r;
    return r;
}

fatbin_record* registrations::add_fatbin(const void* wrapper) {
    fatbin_wrapper w{};
    if (!wrapper) return nullptr;
    std::memcpy(&w, wrapper, sizeof w);
    if (w.magic != wrapper_magic || !w.data) return nullptr;
    auto f = std::make_unique<fatbin_record>();
    f->image = w.data;
    f->size = fatbin_size(w.data);
    if (f->size == 0) return nullptr;
    f->ptx_architectures = ptx_architectures(f->image, f->size);
    if (f->ptx_architectures.empty() && w.version == linked_wrapper_version && w.filename_or_fatbins)
        use_prelinked_fatbins(*f, static_cast<const void* const*>(w.filename_or_fatbins));
    std::lock_guard lock(mutex_);
    fatbins_.push_back(std::move(f));
    return fatbins_.back().get();
}

void registrations::remove_fatbin(fatbin_record* f) {
    // The modules stay with the runtime, which may already be gone at exit: it frees them itself.
    std::lock_guard lock(mutex_);
    std::erase_if(kernels_, [&](const auto& k) { return k.second->fatbin == f; });
    std::erase_if(variables_, [&](const auto& v) { return v.second.fatbin == f; });
    std::erase_if(fatbins_, [&](const auto& p) { return p.get() == f; });
}

void registrations::add_kernel(fatbin_record* f, const void* host_function, const char* device_name) {
    if (!f || !host_function || !device_name) return;
    std::lock_guard lock(mutex_);
    kernels_[host_function] = std::make_unique<kernel_record>(kernel_record{f, device_name, host_function});
}

void registrations::add_variable(fatbin_record* f, const void* host_variable, const char* device_name, size_t size,
                                 bool constant) {
    if (!f || !host_variable || !device_name) return;
    std::lock_guard lock(mutex_);
    variables_[host_variable] = variable_record{f, device_name, size, constant};
}

kernel_record* registrations::kernel(const void* host_function) {
    std::lock_guard lock(mutex_);
    auto it = kernels_.find(host_function);
    return it == kernels_.end() ? nullptr : it->second.get();
}

const variable_record* registrations::variable(const void* host_variable) {
    std::lock_guard lock(mutex_);
    auto it = variables_.find(host_variable);
    return it == variables_.end() ? nullptr : &it->second;
}

cudaError_t registrations::module_on_current_device(fatbin_record& f, cbModule_t& out) {
    int device = 0;
    if (cbError_t e = cbGetDevice(&device); e != cbSuccess) return record(e);
    std::lock_guard lock(f.mutex);
    if (auto it = f.modules.find(device); it != f.modules.end()) {
        out = it->second;
        return cudaSuccess;
    }
    cbModule_t m = nullptr;
    if (cbError_t e = cbModuleLoadData(&m, f.image, f.size, CB_MODULE_FATBIN); e != cbSuccess) {
        // A fatbin with machine code only, or PTX the GPU cannot run: CUDA's name for that. The
        // program sees only the code, so the reason (the instruction and its PTX line) goes to
        // stderr, once per translation unit.
        if (!f.refusal_told) {
            f.refusal_told = true;
            std::fprintf(stderr,
                         "cudabridge cudart: the kernels of one of this program's translation units cannot "
                         "run on this GPU: %s\n",
                         cbGetLastErrorMessage());
        }
        return record(e == cbErrorNotSupported ? cudaErrorNoKernelImageForDevice : to_cuda(e));
    }
    f.modules[device] = m;
    out = m;
    return cudaSuccess;
}

void registrations::forget_modules_of(int device) {
    std::lock_guard lock(mutex_);
    for (auto& f : fatbins_) {
        std::lock_guard flock(f->mutex);
        f->modules.erase(device);
    }
}

void push_configuration(const call_configuration& c) { configurations.push_back(c); }

bool pop_configuration(call_configuration& out) {
    if (configurations.empty()) return false;
    out = configurations.back();
    configurations.pop_back();
    return true;
}

}  // namespace cudabridge::cudart
