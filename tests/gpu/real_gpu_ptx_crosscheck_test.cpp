// The same CUDA kernel gives the same results on a real GPU as on the simulator: PTX from the
// corpus (tests/ptx_corpus, nvcc 13's output) loaded by the kernel-driver backend and by the PTX
// engine, launched with the same grid, block and inputs, every output buffer compared byte for
// byte. The kernels picked are the corpus's deterministic ones (trees, scans, integer atomics,
// warp votes, f16, a device-function call, correctly rounded float arithmetic); float atomics
// and approximate math differ by design.
#include "real_gpu_fixture.hpp"

#include "common/kernels/engine.hpp"
#include "sim/ptx/program.hpp"

#include <cudabridge/cpp/builtin_args.hpp>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace real_gpu {
namespace {

namespace ptx = cudabridge::nv::ptx;

// The corpus folder: CB_PTX_CORPUS_DIR in the environment (a prebuilt test run from another
// checkout, as tests/gpu/run.sh does on a GPU machine), else this source tree's.
std::string corpus_dir() {
    const char* dir = std::getenv("CB_PTX_CORPUS_DIR");
    return dir != nullptr && *dir != '\0' ? dir : CB_PTX_CORPUS_DIR;
}

std::string corpus_ptx(const std::string& file) {
    std::ifstream in(corpus_dir() + "/" + file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The name of the .entry that contains `plain` (C++ kernels have mangled names).
std::string entry_named(const std::string& text, const std::string& plain) {
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);) {
        const size_t at = l.find(".entry ");
        if (at == std::string::npos) continue;
        std::string name = l.substr(at + 7);
        name = name.substr(0, name.find('('));
        name.erase(name.find_last_not_of(" \t\r") + 1);
        if (name.find(plain) != std::string::npos) return name;
    }
    return plain;
}

// One argument: a device buffer (its initial bytes) or a scalar.
struct arg_spec {
    std::vector<unsigned char> buffer;  // empty with is_buffer false: a scalar
    bool is_buffer = false;
    cb_kernel_arg scalar{};
};

enum class fill { floats, ints, bytes, halves, zeros };

arg_spec buffer(size_t bytes, fill how, uint64_t seed) {
    arg_spec a;
    a.is_buffer = true;
    a.buffer.assign(bytes, 0);
    std::mt19937_64 rng(seed);
    for (size_t i = 0; i + 4 <= bytes && how != fill::zeros; i += 4) {
        uint32_t word = 0;
        if (how == fill::floats) {
            const float f = std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
            std::memcpy(&word, &f, 4);
        } else if (how == fill::ints) {
            word = static_cast<uint32_t>(std::uniform_int_distribution<int32_t>(-1000, 1000)(rng));
        } else if (how == fill::halves) {  // two normal halves in [2^-14, 4): sums and products stay finite
            auto half = [&] { return static_cast<uint32_t>((rng() & 0x83ff) | ((1 + rng() % 16) << 10)); };
            word = half() | half() << 16;
        } else {
            word = static_cast<uint32_t>(rng());
        }
        std::memcpy(a.buffer.data() + i, &word, 4);
    }
    return a;
}
arg_spec scalar(cb_kernel_arg v) {
    arg_spec a;
    a.scalar = v;
    return a;
}

struct crosscheck_case {
    std::string file, kernel;
    std::array<uint32_t, 3> grid, block;
    uint32_t shared_bytes = 0;
    std::vector<arg_spec> args;
};

std::vector<crosscheck_case> cases() {
    const int n = 5000;
    const size_t f = sizeof(float);
    return {
        {"saxpy.ptx",
         "saxpy",
         {20, 1, 1},
         {256, 1, 1},
         0,
         {scalar(int_arg(n)), scalar(float_arg(2.5)), buffer(n * f, fill::floats, 1), buffer(n * f, fill::floats, 2)}},
        {"double_ops.ptx",
         "damped_axpy",
         {40, 1, 1},
         {128, 1, 1},
         0,
         {scalar(int_arg(n)), scalar(float_arg(0.75)), scalar(float_arg(-0.5)), buffer(n * 8, fill::floats, 3),
          buffer(n * 8, fill::floats, 4)}},
        {"int_bits.ptx",
         "int_bits",
         {20, 1, 1},
         {256, 1, 1},
         0,
         {buffer(n * 4, fill::bytes, 5), buffer(n * 4, fill::bytes, 6), buffer(n * 4, fill::zeros, 0),
          buffer(n * 4 * 4, fill::zeros, 0), scalar(int_arg(n))}},
        {"reduce_sum.ptx",
         "reduce_sum",
         {20, 1, 1},
         {256, 1, 1},
         0,
         {buffer(n * f, fill::floats, 7), buffer(20 * f, fill::zeros, 0), scalar(int_arg(n))}},
        {"block_scan.ptx",
         "inclusive_scan",
         {20, 1, 1},
         {256, 1, 1},
         0,
         {buffer(n * 4, fill::ints, 8), buffer(n * 4, fill::zeros, 0), buffer(20 * 4, fill::zeros, 0),
          scalar(int_arg(n))}},
        {"bitonic_sort.ptx", "bitonic_sort1024", {3, 1, 1}, {1024, 1, 1}, 0, {buffer(3 * 1024 * 4, fill::bytes, 9)}},
        {"sgemm_tiled.ptx",
         "sgemm_tiled",
         {5, 4, 1},
         {16, 16, 1},
         0,
         {scalar(int_arg(61)), scalar(int_arg(77)), scalar(int_arg(45)), scalar(float_arg(1.25)),
          buffer(61 * 45 * f, fill::floats, 10), buffer(45 * 77 * f, fill::floats, 11), scalar(float_arg(-0.5)),
          buffer(61 * 77 * f, fill::floats, 12)}},
        {"histogram.ptx",
         "histogram256",
         {12, 1, 1},
         {256, 1, 1},
         0,
         {buffer(40000, fill::bytes, 13), scalar(int_arg(40000)), buffer(256 * 4, fill::zeros, 0)}},
        {"warp_shuffle.ptx",
         "warp_sum",
         {40, 1, 1},
         {128, 1, 1},
         0,
         {buffer(n * 4, fill::ints, 14), buffer(160 * 4, fill::zeros, 0), scalar(int_arg(n))}},
        {"stencil2d.ptx",
         "stencil5",
         {5, 4, 1},
         {16, 16, 1},
         0,
         {buffer(70 * 53 * f, fill::floats, 15), buffer(70 * 53 * f, fill::zeros, 0), scalar(int_arg(70)),
          scalar(int_arg(53)), scalar(float_arg(0.5)), scalar(float_arg(0.125))}},
        {"transpose.ptx",
         "transpose_tiled",
         {2, 3, 1},
         {32, 8, 1},
         0,
         {buffer(70 * 33 * f, fill::zeros, 0), buffer(70 * 33 * f, fill::floats, 16), scalar(int_arg(70)),
          scalar(int_arg(33))}},
        {"atomics64.ptx",  // integer sums and maxima, and a double sum exact in any order
         "atomics64",
         {8, 1, 1},
         {256, 1, 1},
         0,
         {buffer(2000 * 8, fill::bytes, 18), scalar(int_arg(2000)), buffer(8, fill::zeros, 0),
          buffer(8, fill::zeros, 0), buffer(8, fill::zeros, 0)}},
        {"warp_vote.ptx",
         "warp_vote",
         {40, 1, 1},
         {128, 1, 1},
         0,
         {buffer(n * 4, fill::ints, 19), scalar(int_arg(n)), buffer(160 * 4, fill::zeros, 0),
          buffer(160 * 4, fill::zeros, 0), buffer(160 * 4, fill::zeros, 0), buffer(160 * 4, fill::zeros, 0)}},
        {"half_ops.ptx",
         "half_ops",
         {20, 1, 1},
         {256, 1, 1},
         0,
         {buffer(n * 2, fill::halves, 20), buffer(n * 2, fill::halves, 21), buffer(n * 2, fill::zeros, 0),
          buffer(n * 2, fill::zeros, 0), buffer(n * 2, fill::zeros, 0), scalar(float_arg(0.75)), scalar(int_arg(n))}},
        {"device_call.ptx",
         "window_sums",
         {20, 1, 1},
         {256, 1, 1},
         0,
         {buffer(n * f, fill::floats, 22), buffer(n * f, fill::zeros, 0), scalar(int_arg(n))}},
        {"dynamic_shared.ptx",
         "reverse_segments",
         {40, 1, 1},
         {128, 1, 1},
         128 * 4,
         {buffer(n * f, fill::floats, 17), buffer(n * f, fill::zeros, 0), scalar(int_arg(n))}},
    };
}

cb_kernel_launch launch_of(const crosscheck_case& c, const std::string& name, const std::vector<cb_kernel_arg>& args) {
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = name.c_str();
    std::copy(c.grid.begin(), c.grid.end(), l.grid);
    std::copy(c.block.begin(), c.block.end(), l.block);
    l.shared_memory_bytes = c.shared_bytes;
    l.args = args.data();
    l.arg_count = args.size();
    return l;
}

// The buffers after the kernel ran on the PTX engine over a stand-in VRAM.
std::vector<std::vector<unsigned char>> run_on_engine(const crosscheck_case& c, const std::string& text,
                                                      const std::string& name) {
    std::string error;
    auto program = ptx::program::load(text, error);
    EXPECT_TRUE(program) << error;
    if (!program) return {};
    constexpr uint64_t base = 0x200000000ull;
    std::vector<uint8_t> vram(16u << 20);
    std::vector<cb_kernel_arg> args;
    std::vector<uint64_t> at;
    uint64_t used = 0;
    for (const arg_spec& a : c.args) {
        if (!a.is_buffer) {
            args.push_back(a.scalar);
            continue;
        }
        used = (used + 255) / 256 * 256;
        std::memcpy(vram.data() + used, a.buffer.data(), a.buffer.size());
        at.push_back(used);
        args.push_back(cudabridge::sdk::device_ptr_arg(base + used));
        used += a.buffer.size();
    }
    ptx::launch_request r;
    r.kernel = static_cast<size_t>(program->find(name));
    std::copy(c.grid.begin(), c.grid.end(), r.grid);
    std::copy(c.block.begin(), c.block.end(), r.block);
    r.dynamic_shared = c.shared_bytes;
    EXPECT_EQ(program->pack_arguments(r.kernel, args.data(), args.size(), r.params, error), CB_OK) << error;
    cudabridge::nv::kernels::engine engine;
    const ptx::block_runner run = [&](uint64_t count, const std::function<void(uint64_t, uint64_t)>& fn) {
        engine.parallel_for(static_cast<int64_t>(count), 1,
                            [&](int64_t b, int64_t e) { fn(uint64_t(b), uint64_t(e)); });
    };
    const auto out = program->launch(r, {vram.data(), base, vram.size()}, run, {});
    EXPECT_EQ(out.status, CB_OK) << out.message;
    std::vector<std::vector<unsigned char>> buffers;
    size_t k = 0;
    for (const arg_spec& a : c.args)
        if (a.is_buffer) buffers.emplace_back(vram.begin() + at[k], vram.begin() + at[k] + a.buffer.size()), ++k;
    return buffers;
}

// The buffers after the kernel ran on the GPU.
std::vector<std::vector<unsigned char>> run_on_gpu(kernel_driver_backend& b, kd_device* device,
                                                   const crosscheck_case& c, const std::string& text,
                                                   const std::string& name) {
    cudabridge::nv::kd_module* module = nullptr;
    std::string log, error;
    cb_status s = b.module_load(device, text.data(), text.size() + 1, CB_MODULE_PTX, module, error, &log);
    EXPECT_EQ(s, CB_OK) << error << "\n" << log;
    if (s != CB_OK) return {};
    std::vector<cb_kernel_arg> args;
    std::vector<uint64_t> at;
    for (const arg_spec& a : c.args) {
        if (!a.is_buffer) {
            args.push_back(a.scalar);
            continue;
        }
        uint64_t d = 0;
        EXPECT_EQ(b.mem_alloc(device, a.buffer.size(), d, error), CB_OK);
        EXPECT_EQ(b.memcpy_h2d(device, d, a.buffer.data(), a.buffer.size(), nullptr, error), CB_OK);
        at.push_back(d);
        args.push_back(cudabridge::sdk::device_ptr_arg(d));
    }
    s = b.launch_kernel(module, launch_of(c, name, args), nullptr, error);
    EXPECT_EQ(s, CB_OK) << error;
    std::vector<std::vector<unsigned char>> buffers;
    size_t k = 0;
    for (const arg_spec& a : c.args) {
        if (!a.is_buffer) continue;
        buffers.emplace_back(a.buffer.size());
        EXPECT_EQ(b.memcpy_d2h(device, buffers.back().data(), at[k], a.buffer.size(), nullptr, error), CB_OK);
        EXPECT_EQ(b.mem_free(device, at[k], error), CB_OK);
        ++k;
    }
    EXPECT_EQ(b.module_unload(module, error), CB_OK);
    return buffers;
}

// Without a GPU the cases still run on the engine, so a case that no longer matches its kernel
// (a name, a parameter) fails here rather than only on the GPU machine.
TEST(PtxCrosscheck, EveryCaseRunsOnTheEngineAndWritesItsOutputs) {
    for (const crosscheck_case& c : cases()) {
        SCOPED_TRACE(c.file);
        const std::string text = corpus_ptx(c.file);
        const auto buffers = run_on_engine(c, text, entry_named(text, c.kernel));
        ASSERT_FALSE(buffers.empty());
        size_t changed = 0;
        for (size_t i = 0, k = 0; i < c.args.size(); ++i)
            if (c.args[i].is_buffer) changed += buffers[k++] != c.args[i].buffer;
        EXPECT_GE(changed, 1u) << "the kernel wrote nothing";
    }
}

TEST_F(RealGpu, CorpusKernelsGiveTheSameBytesAsTheSimulatorsPtxEngine) {
    if (gpu().emulated) GTEST_SKIP() << "the emulated driver runs only the built-in kernels";
    for (const crosscheck_case& c : cases()) {
        SCOPED_TRACE(c.file);
        const std::string text = corpus_ptx(c.file);
        const std::string name = entry_named(text, c.kernel);
        const auto engine = run_on_engine(c, text, name);
        const auto real = run_on_gpu(backend(), device(), c, text, name);
        ASSERT_EQ(engine.size(), real.size());
        for (size_t i = 0; i < engine.size(); ++i) {
            size_t first = 0;
            while (first < engine[i].size() && engine[i][first] == real[i][first]) ++first;
            EXPECT_EQ(first, engine[i].size()) << "buffer " << i << " differs first at byte " << first;
        }
    }
}

}  // namespace
}  // namespace real_gpu
