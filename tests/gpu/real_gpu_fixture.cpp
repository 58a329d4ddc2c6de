#include "real_gpu_fixture.hpp"

#include <cmath>
#include <cstdlib>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>

#include "common/kernels/engine.hpp"
#include "common/launch/builtin_call.hpp"

namespace real_gpu {

namespace nv = cudabridge::nv;
namespace kernels = cudabridge::nv::kernels;

// ---- host tensors ------------------------------------------------------------------------------

int64_t host_tensor::numel() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
}

cb_tensor_desc host_tensor::desc(uint64_t storage_address) const {
    cb_tensor_desc d{};
    d.device_ptr = storage_address + static_cast<uint64_t>(offset * static_cast<int64_t>(element_size()));
    d.dtype = dtype;
    d.ndim = static_cast<int32_t>(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) {
        d.shape[i] = shape[i];
        d.strides[i] = strides[i];
    }
    return d;
}

host_tensor contiguous(cb_dtype dtype, std::vector<int64_t> shape) {
    host_tensor t;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.strides.assign(t.shape.size(), 1);
    int64_t s = 1;
    for (int i = static_cast<int>(t.shape.size()) - 1; i >= 0; --i) {
        t.strides[i] = s;
        s *= t.shape[i];
    }
    t.storage.assign(static_cast<std::size_t>(std::max<int64_t>(s, 1)) * t.element_size(), 0);
    return t;
}

host_tensor transposed(cb_dtype dtype, int64_t rows, int64_t cols) {
    host_tensor t = contiguous(dtype, {rows, cols});
    t.strides = {1, rows};
    return t;
}

host_tensor reversed(cb_dtype dtype, int64_t n) {
    host_tensor t = contiguous(dtype, {n});
    t.strides = {-1};
    t.offset = n - 1;
    return t;
}

host_tensor every_other(cb_dtype dtype, int64_t n) {
    host_tensor t = contiguous(dtype, {2 * n});
    t.shape = {n};
    t.strides = {2};
    return t;
}

namespace {

template <class T>
void randomize_as(host_tensor& t, std::mt19937_64& rng, bool specials) {
    const std::size_t n = t.storage.size() / sizeof(T);
    if constexpr (std::is_same_v<T, bool>) {  // bytes 0 or 1
        for (auto& byte : t.storage) byte = static_cast<unsigned char>(rng() & 1);
        return;
    }
    std::vector<T> v(n);
    std::uniform_int_distribution<int> kind(0, 9);
    for (std::size_t i = 0; i < n; ++i) {
        const int k = kind(rng);
        if constexpr (std::is_floating_point_v<T>) {
            if (specials && k == 0) {
                const T s[] = {std::numeric_limits<T>::quiet_NaN(),
                               std::numeric_limits<T>::infinity(),
                               -std::numeric_limits<T>::infinity(),
                               T(-0.0),
                               T(1e30),
                               T(-3e9)};
                v[i] = s[rng() % 6];
            } else if (k < 4) {
                v[i] = static_cast<T>(static_cast<int>(rng() % 9) - 4);  // exact, zero included
            } else {
                v[i] = static_cast<T>(std::uniform_real_distribution<double>(-8.0, 8.0)(rng));
            }
        } else {
            if (k == 0) {
                v[i] = std::numeric_limits<T>::min();
            } else if (k == 1) {
                v[i] = std::numeric_limits<T>::max();
            } else if (k < 5) {
                v[i] = static_cast<T>(static_cast<int>(rng() % 9) - 4);  // small, zero and -1 included
            } else {
                v[i] = static_cast<T>(rng());
            }
        }
    }
    if constexpr (!std::is_same_v<T, bool>) std::memcpy(t.storage.data(), v.data(), n * sizeof(T));
}

}  // namespace

void randomize(host_tensor& t, std::mt19937_64& rng, bool specials) {
    kernels::dispatch(t.dtype, [&](auto tag) { randomize_as<typename decltype(tag)::type>(t, rng, specials); });
}

void fill_pattern(host_tensor& t, unsigned char byte) { std::memset(t.storage.data(), byte, t.storage.size()); }

cb_kernel_arg int_arg(int64_t v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_INT64;
    a.value.i64 = v;
    return a;
}
cb_kernel_arg float_arg(double v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_FLOAT64;
    a.value.f64 = v;
    return a;
}
cb_kernel_arg u64_arg(uint64_t v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_UINT64;
    a.value.u64 = v;
    return a;
}

// ---- the environment ----------------------------------------------------------------------------

namespace {

struct owned_environment {
    std::unique_ptr<kernel_driver_backend> backend;
    environment env;

    owned_environment() {
        nv::kernel_driver_options options;
        if (const char* lib = std::getenv("CB_REAL_GPU_TEST_CUDA_LIBRARY"); lib != nullptr && *lib != '\0') {
            options.cuda_library = lib;
            options.nvml_library = "/nonexistent/emulated/libnvidia-ml.so.1";
            // A real cuBLAS would reach a real GPU with the emulator's host addresses.
            options.cublas_libraries = {"/nonexistent/emulated/libcublas.so"};
            env.emulated = true;
        }
        backend = std::make_unique<kernel_driver_backend>(options);
        env.backend = backend.get();
        if (!backend->available()) {
            env.skip_reason = "no NVIDIA GPU with a working driver: " + backend->availability_status().reason;
            return;
        }
        std::string error;
        if (backend->open(0, env.device, error) != CB_OK) env.skip_reason = "cannot open CUDA device 0: " + error;
    }
    ~owned_environment() {
        std::string ignored;
        if (env.device != nullptr) (void)backend->close(env.device, ignored);
    }
};

std::unique_ptr<owned_environment>& environment_slot() {
    static std::unique_ptr<owned_environment> e;
    return e;
}

owned_environment& the_environment() {
    auto& e = environment_slot();
    if (!e) e = std::make_unique<owned_environment>();
    return *e;
}

// Closes the device and unloads the driver after the last test, before static destruction
// (when the driver's own exit handlers may already have run).
class close_at_end : public ::testing::Environment {
public:
    void TearDown() override { environment_slot().reset(); }
};
[[maybe_unused]] ::testing::Environment* const k_close_at_end = ::testing::AddGlobalTestEnvironment(new close_at_end);

// Device storage for one case: one allocation, each tensor's storage at a 256-byte boundary.
struct device_arena {
    kernel_driver_backend& b;
    kd_device* d;
    uint64_t base = 0;
    std::vector<uint64_t> offsets;

    device_arena(kernel_driver_backend& backend, kd_device* device, const std::vector<const host_tensor*>& tensors)
        : b(backend), d(device) {
        uint64_t size = 0;
        for (const host_tensor* t : tensors) {
            offsets.push_back(size);
            size += (t->storage.size() + 255) / 256 * 256;
        }
        std::string error;
        EXPECT_EQ(b.mem_alloc(d, size, base, error), CB_OK) << error;
        for (std::size_t i = 0; i < tensors.size() && base != 0; ++i)
            EXPECT_EQ(b.memcpy_h2d(d, base + offsets[i], tensors[i]->storage.data(), tensors[i]->storage.size(),
                                   nullptr, error),
                      CB_OK)
                << error;
    }
    ~device_arena() {
        std::string ignored;
        if (base != 0) (void)b.mem_free(d, base, ignored);
    }
};

template <class T>
bool close_enough(T gpu, T cpu, tolerance tol) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(gpu) || std::isnan(cpu)) return std::isnan(gpu) && std::isnan(cpu);
        if (gpu == cpu) return true;
        if (std::isinf(gpu) || std::isinf(cpu)) return false;
        return std::fabs(double(gpu) - double(cpu)) <= tol.atol + tol.rtol * std::fabs(double(cpu));
    } else {
        return gpu == cpu;
    }
}

// An element as a stream prints it: complex as (re,im), half and other floats as double, the
// integer types (bytes and bools included) as numbers.
template <typename T>
struct is_complex : std::false_type {};
template <typename F>
struct is_complex<std::complex<F>> : std::true_type {};

template <typename T>
auto printable(T v) {
    if constexpr (is_complex<T>::value)
        return v;
    else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>)
        return static_cast<unsigned long long>(v);
    else if constexpr (std::is_integral_v<T>)
        return static_cast<long long>(v);
    else
        return static_cast<double>(v);
}

// The first few differing elements of two storages, as text; empty when they agree.
std::string differences(cb_dtype dtype, const std::vector<unsigned char>& gpu, const std::vector<unsigned char>& cpu,
                        tolerance tol) {
    return kernels::dispatch(dtype, [&](auto tag) {
        // Bools as their bytes: storage no kernel wrote keeps its fill pattern (0xCD), which is
        // not a bool (an empty tensor still has one byte of storage).
        using D = typename decltype(tag)::type;
        using T = std::conditional_t<std::is_same_v<D, bool>, unsigned char, D>;
        const std::size_t n = gpu.size() / sizeof(T);
        std::ostringstream out;
        int shown = 0, total = 0;
        for (std::size_t i = 0; i < n; ++i) {
            T g, c;
            std::memcpy(&g, gpu.data() + i * sizeof(T), sizeof(T));
            std::memcpy(&c, cpu.data() + i * sizeof(T), sizeof(T));
            if (close_enough(g, c, tol)) continue;
            ++total;
            if (shown++ < 5) out << " [" << i << "] gpu " << printable(g) << " cpu " << printable(c) << ";";
        }
        return total == 0 ? std::string() : std::to_string(total) + " of " + std::to_string(n) + " differ:" + out.str();
    });
}

cb_kernel_launch launch_of(const std::string& name, cb_dtype dtype, const std::vector<cb_kernel_arg>& args) {
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = name.c_str();
    l.dtype = dtype;
    l.args = args.data();
    l.arg_count = args.size();
    return l;
}

}  // namespace

const environment& gpu() { return the_environment().env; }

void expect_same_as_cpu(const std::string& name, const std::vector<const host_tensor*>& tensors,
                        const std::vector<cb_kernel_arg>& scalars, tolerance tol, const std::string& what) {
    SCOPED_TRACE(name + " " + what);
    const environment& env = gpu();
    const host_tensor& out = *tensors.back();

    // GPU.
    device_arena arena(*env.backend, env.device, tensors);
    if (arena.base == 0) return;
    std::vector<cb_tensor_desc> gpu_descs;
    for (std::size_t i = 0; i < tensors.size(); ++i)
        gpu_descs.push_back(tensors[i]->desc(arena.base + arena.offsets[i]));
    std::vector<cb_kernel_arg> gpu_args;
    for (const auto& d : gpu_descs) {
        cb_kernel_arg a{};
        a.type = CB_ARG_BYTES;
        a.size = sizeof d;
        a.value.bytes = &d;
        gpu_args.push_back(a);
    }
    gpu_args.insert(gpu_args.end(), scalars.begin(), scalars.end());
    std::string gpu_error;
    const cb_status gpu_status =
        env.backend->launch_builtin(env.device, launch_of(name, out.dtype, gpu_args), nullptr, gpu_error);
    std::vector<unsigned char> gpu_result(out.storage.size());
    std::string error;
    ASSERT_EQ(env.backend->memcpy_d2h(env.device, gpu_result.data(), arena.base + arena.offsets.back(),
                                      gpu_result.size(), nullptr, error),
              CB_OK)
        << error;

    // CPU engine, same call, on copies of the same bytes.
    std::vector<std::vector<unsigned char>> copies;
    for (const host_tensor* t : tensors) copies.push_back(t->storage);
    std::vector<cb_tensor_desc> cpu_descs;
    for (std::size_t i = 0; i < tensors.size(); ++i)
        cpu_descs.push_back(tensors[i]->desc(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(copies[i].data()))));
    std::vector<cb_kernel_arg> cpu_args;
    for (const auto& d : cpu_descs) {
        cb_kernel_arg a{};
        a.type = CB_ARG_BYTES;
        a.size = sizeof d;
        a.value.bytes = &d;
        cpu_args.push_back(a);
    }
    cpu_args.insert(cpu_args.end(), scalars.begin(), scalars.end());
    nv::builtin_call call;
    std::string cpu_error;
    cb_status cpu_status = nv::parse_builtin(launch_of(name, out.dtype, cpu_args), call, cpu_error);
    if (cpu_status == CB_OK)
        cpu_status = nv::run_on_cpu(
            call, [](uint64_t address, uint64_t) { return reinterpret_cast<void*>(static_cast<uintptr_t>(address)); },
            kernels::default_engine(), cpu_error);

    ASSERT_EQ(gpu_status, cpu_status) << "gpu: " << gpu_error << " | cpu: " << cpu_error;
    if (gpu_status != CB_OK) return;
    const std::string diff = differences(out.dtype, gpu_result, copies.back(), tol);
    EXPECT_TRUE(diff.empty()) << diff;
}

}  // namespace real_gpu
