// The PTX engine on its own: corpus kernels (tests/ptx_corpus, nvcc 13's PTX) loaded, compiled
// and run over a host buffer standing in for the simulated VRAM, each checked against a host
// reference computed here; and what must be refused or must fail.
#include "sim/ptx/jit_cache.hpp"
#include "sim/ptx/program.hpp"

#include "common/kernels/engine.hpp"
#include "host_rounding.hpp"

#include <cudabridge/cpp/builtin_args.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>
#include <type_traits>

namespace cudabridge::nv::ptx {
namespace {

// Compiled kernels go to a disk cache of this run's own (jit_cache.hpp), named before the first
// compile and removed at exit: no test reads what another run left, and every test after the
// first to compile a kernel runs the cached machine code.
const std::filesystem::path private_jit_cache = [] {
    std::string dir = (std::filesystem::temp_directory_path() / "cb-ptx-jit-XXXXXX").string();
    if (!mkdtemp(dir.data())) return std::filesystem::path();
    setenv("CUDABRIDGE_PTX_CACHE_DIR", dir.c_str(), 1);
    std::atexit([] {
        std::error_code ec;
        std::filesystem::remove_all(private_jit_cache, ec);
    });
    return std::filesystem::path(dir);
}();

// sm_80 kernels (cp.async, mbarrier) the compute_75 corpus cannot hold: sm80/*.cu beside them.
std::string sm80_kernels(const std::string& name) {
    std::ifstream f(std::string(CB_PTX_SM80_DIR) + "/" + name + ".ptx");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string corpus(const std::string& name) {
    std::ifstream f(std::string(CB_PTX_CORPUS_DIR) + "/" + name + ".ptx");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// A VRAM stand-in: device addresses from `base`, bump-allocated.
struct fake_vram {
    static constexpr uint64_t base = 0x200000000ull;
    std::vector<uint8_t> bytes = std::vector<uint8_t>(64u << 20);
    uint64_t used = 0;
    device_memory memory() { return {bytes.data(), base, bytes.size()}; }
    template <typename T>
    uint64_t put(const std::vector<T>& v) {
        const uint64_t at = alloc(v.size() * sizeof(T));
        std::memcpy(bytes.data() + (at - base), v.data(), v.size() * sizeof(T));
        return at;
    }
    uint64_t alloc(uint64_t n) {
        used = (used + 255) / 256 * 256;
        const uint64_t at = base + used;
        used += n;
        return at;
    }
    template <typename T>
    std::vector<T> get(uint64_t at, size_t n) const {
        std::vector<T> v(n);
        std::memcpy(v.data(), bytes.data() + (at - base), n * sizeof(T));
        return v;
    }
};

cb_kernel_arg ptr(uint64_t p) { return sdk::device_ptr_arg(p); }
cb_kernel_arg i64(int64_t v) { return sdk::int64_arg(v); }
cb_kernel_arg f64(double v) { return sdk::float64_arg(v); }

class ptx_engine : public ::testing::Test {
protected:
    std::shared_ptr<program> load(const std::string& name) {
        std::string error;
        auto p = program::load(corpus(name), error);
        EXPECT_TRUE(p) << error;
        return p;
    }
    launch_outcome run(const program& p, const std::string& kernel, uint32_t grid, uint32_t block,
                       const std::vector<cb_kernel_arg>& args, uint32_t dynamic_shared = 0) {
        launch_request r;
        const int k = p.find(kernel);
        EXPECT_GE(k, 0) << kernel;
        r.kernel = static_cast<size_t>(k);
        r.grid[0] = grid;
        r.block[0] = block;
        r.dynamic_shared = dynamic_shared;
        std::string error;
        EXPECT_EQ(p.pack_arguments(r.kernel, args.data(), args.size(), r.params, error), CB_OK) << error;
        return p.launch(r, vram.memory(), on_engine, {});
    }
    fake_vram vram;
    kernels::engine engine{2};
    const block_runner on_engine = [this](uint64_t n, const std::function<void(uint64_t, uint64_t)>& fn) {
        engine.parallel_for(static_cast<int64_t>(n), 1, [&](int64_t b, int64_t e) { fn(uint64_t(b), uint64_t(e)); });
    };
};

TEST_F(ptx_engine, SaxpyOnAnOddSizeMatchesTheHostLoopBitForBit) {
    auto p = load("saxpy");
    ASSERT_TRUE(p);
    const int n = 100003;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = 0.5f * float(i % 977) - 3.0f, y[i] = float(i % 13) * 0.25f;
    const uint64_t dx = vram.put(x), dy = vram.put(y);
    auto out = run(*p, "saxpy", (n + 255) / 256, 256, {i64(n), f64(1.5), ptr(dx), ptr(dy)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<float>(dy, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], std::fma(x[i], 1.5f, y[i])) << i;
    EXPECT_GT(out.executed, uint64_t(n) * 10) << "instructions are counted per executed block";
    EXPECT_EQ(out.bytes_moved, uint64_t(n) * 12);
}

// Code is compiled per kernel and block shape, on the shape's first launch; a kernel launched
// with many shapes runs those past the eighth in one compile that reads the shape at run time.
TEST_F(ptx_engine, EachBlockShapeCompilesOnceAndPastEightShapesOneCompileServesTheRest) {
    auto p = load("saxpy");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->compiled_count(), 0u) << "loading lowers every kernel but compiles none";
    const int n = 5000;
    std::vector<float> x(n), y(n, 1.0f);
    for (int i = 0; i < n; ++i) x[i] = float(i % 101) - 50.0f;
    const uint64_t dx = vram.put(x), dy = vram.put(y);
    auto saxpy_with = [&](uint32_t block, double a) {
        auto out = run(*p, "saxpy", (n + block - 1) / block, block, {i64(n), f64(a), ptr(dx), ptr(dy)});
        ASSERT_EQ(out.status, CB_OK) << out.message;
        const auto got = vram.get<float>(dy, n);
        for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], std::fma(x[i], float(a), y[i])) << "block " << block << ", " << i;
        y = got;
    };
    saxpy_with(256, 2.0);
    saxpy_with(256, -1.0);
    EXPECT_EQ(p->compiled_count(), 1u) << "a second launch of a shape compiles nothing";
    for (uint32_t block = 32; block <= 32 * 10; block += 32) saxpy_with(block, 0.5);
    // 256 was already there: 32..320 add 9 shapes, of which 7 fill the eight, and the rest share one.
    EXPECT_EQ(p->compiled_count(), 9u);
    saxpy_with(1000, 0.25);
    saxpy_with(33, 0.25);
    EXPECT_EQ(p->compiled_count(), 9u) << "shapes past the eighth compile nothing more";
}

// A kernel compiled once is compiled no more on this machine: a second program loads the first
// one's machine code from the disk cache and computes the same, bit for bit; an entry damaged on
// disk is deleted and compiled again, never run.
TEST_F(ptx_engine, CompiledCodeIsCachedOnDiskAndADamagedEntryIsCompiledAgain) {
    ASSERT_FALSE(private_jit_cache.empty());
    ASSERT_NE(jit_cache::shared(), nullptr);
    EXPECT_EQ(jit_cache::shared()->folder(), private_jit_cache);
    // What earlier tests cached goes: this kernel's first compile here must be a compile.
    for (const auto& e : std::filesystem::directory_iterator(private_jit_cache)) std::filesystem::remove(e.path());
    const int n = 4099;
    const uint32_t block = 224;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = 0.25f * float(i % 311) - 7.0f;
    const uint64_t dx = vram.put(x);
    auto saxpy_from_a_new_program = [&](const char* what) {
        auto p = load("saxpy");
        ASSERT_TRUE(p);
        const uint64_t dy = vram.put(std::vector<float>(n, 2.0f));
        auto out = run(*p, "saxpy", (n + block - 1) / block, block, {i64(n), f64(3.0), ptr(dx), ptr(dy)});
        ASSERT_EQ(out.status, CB_OK) << what << ": " << out.message;
        const auto got = vram.get<float>(dy, n);
        for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], std::fma(x[i], 3.0f, 2.0f)) << what << ", " << i;
    };
    const uint64_t stored = jit_cache::stored, loaded = jit_cache::loaded, damaged = jit_cache::damaged;
    saxpy_from_a_new_program("compiled");
    EXPECT_EQ(jit_cache::stored, stored + 1);
    saxpy_from_a_new_program("from the cache");
    EXPECT_EQ(jit_cache::loaded, loaded + 1) << "the second program compiles nothing";
    EXPECT_EQ(jit_cache::stored, stored + 1);

    // One byte of every entry flipped: each is found damaged when read, removed, and its kernel
    // compiled and stored again.
    for (const auto& e : std::filesystem::directory_iterator(private_jit_cache)) {
        std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(-1, std::ios::end);
        const char last = static_cast<char>(f.get());
        f.seekp(-1, std::ios::end);
        f.put(static_cast<char>(last ^ 0x5a));
    }
    saxpy_from_a_new_program("after the damage");
    EXPECT_EQ(jit_cache::damaged, damaged + 1);
    EXPECT_EQ(jit_cache::stored, stored + 2);
    saxpy_from_a_new_program("from the cache again");
    EXPECT_EQ(jit_cache::loaded, loaded + 2);
}

// The cache's own rules over plain bytes: an entry comes back as stored; one that is cut short,
// or that others could have written, is never loaded; the folder stays under its size, the
// least recently used entries going first.
TEST(jit_cache_entries, RoundTripRefusalsAndSizeBound) {
    std::string dir = (std::filesystem::temp_directory_path() / "cb-jit-entries-XXXXXX").string();
    ASSERT_TRUE(mkdtemp(dir.data()));
    jit_cache cache(dir, 2500);
    const std::string a(1000, 'a'), b(1000, 'b'), c(1000, 'c');
    cache.store("a", a);
    EXPECT_EQ(cache.load("a").value_or(""), a);
    EXPECT_FALSE(cache.load("missing"));

    std::filesystem::permissions(std::filesystem::path(dir) / "a.o", std::filesystem::perms::group_write,
                                 std::filesystem::perm_options::add);
    EXPECT_FALSE(cache.load("a")) << "an entry others could write is not loaded";
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "a.o")) << "and is removed";

    cache.store("a", a);
    std::filesystem::resize_file(std::filesystem::path(dir) / "a.o", 500);
    EXPECT_FALSE(cache.load("a")) << "a short entry is not loaded";

    cache.store("a", a);
    cache.store("b", b);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // distinct times of last use
    ASSERT_TRUE(cache.load("a"));                                // a is used after b
    cache.store("c", c);  // three entries and their headers are past 2500 bytes: b, the oldest, goes
    EXPECT_TRUE(cache.load("a"));
    EXPECT_FALSE(cache.load("b"));
    EXPECT_TRUE(cache.load("c"));
    std::filesystem::remove_all(dir);
}

// Compiled for the launch's shape, the shared window's size is a constant of the code: a launch
// that gives one float too few still faults at the first access past it, and the same kernel
// launched with enough runs.
TEST_F(ptx_engine, ASharedAccessPastTheLaunchsWindowFaultsInCodeCompiledForThatWindow) {
    auto p = load("dynamic_shared");
    ASSERT_TRUE(p);
    const int n = 64;
    std::vector<float> in(n);
    std::iota(in.begin(), in.end(), 1.0f);
    const uint64_t din = vram.put(in), dout = vram.alloc(n * 4);
    auto short_by_one = run(*p, "reverse_segments", 1, n, {ptr(din), ptr(dout), i64(n)}, (n - 1) * 4);
    EXPECT_EQ(short_by_one.status, CB_ERR_ILLEGAL_ADDRESS) << short_by_one.message;
    auto enough = run(*p, "reverse_segments", 1, n, {ptr(din), ptr(dout), i64(n)}, n * 4);
    ASSERT_EQ(enough.status, CB_OK) << enough.message;
    const auto got = vram.get<float>(dout, n);
    for (int t = 0; t < n; ++t) ASSERT_EQ(got[t], in[n - 1 - t]) << t;
    EXPECT_EQ(p->compiled_count(), 2u) << "one compile per shared window";
}

TEST_F(ptx_engine, ASharedMemoryTreeReductionWaitsAtEveryBarrier) {
    auto p = load("reduce_sum");
    ASSERT_TRUE(p);
    const int n = 1000003, blocks = (n + 255) / 256;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = float(i % 17) - 8.0f;
    const uint64_t din = vram.put(in), dpart = vram.alloc(blocks * 4);
    auto out = run(*p, "reduce_sum", blocks, 256, {ptr(din), ptr(dpart), i64(n)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<float>(dpart, blocks);
    for (int b = 0; b < blocks; ++b) {
        float s[256];
        for (int t = 0; t < 256; ++t) s[t] = b * 256 + t < n ? in[b * 256 + t] : 0.0f;
        for (int stride = 128; stride > 0; stride >>= 1)
            for (int t = 0; t < stride; ++t) s[t] += s[t + stride];
        ASSERT_EQ(got[b], s[0]) << "block " << b;
    }
}

// The general loop for the same kernel: a never-taken branch across a barrier (%p10 is never
// written, so it is false) makes the regions not straight, and adds one instruction per thread.
std::string with_a_branch_across_barriers(std::string ptx, const std::string& to_label) {
    const size_t at = ptx.find("bar.sync");
    ptx.insert(at, "@%p10 bra " + to_label + ";\n\t");
    return ptx;
}

TEST_F(ptx_engine, StraightRegionsComputeAndCountWhatTheGeneralLoopDoes) {
    auto straight = load("reduce_sum");
    std::string error;
    auto general = program::load(with_a_branch_across_barriers(corpus("reduce_sum"), "$L__BB0_20"), error);
    ASSERT_TRUE(straight && general) << error;
    const int n = 5000, blocks = (n + 255) / 256;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = float(i % 29) * 0.5f - 7.0f;
    const uint64_t din = vram.put(in), d1 = vram.alloc(blocks * 4), d2 = vram.alloc(blocks * 4);
    auto a = run(*straight, "reduce_sum", blocks, 256, {ptr(din), ptr(d1), i64(n)});
    auto b = run(*general, "reduce_sum", blocks, 256, {ptr(din), ptr(d2), i64(n)});
    ASSERT_EQ(a.status, CB_OK) << a.message;
    ASSERT_EQ(b.status, CB_OK) << b.message;
    EXPECT_EQ(vram.get<float>(d1, blocks), vram.get<float>(d2, blocks));
    EXPECT_EQ(a.executed + uint64_t(blocks) * 256, b.executed) << "threads a region skips count what they ran";
    EXPECT_EQ(a.bytes_moved, b.bytes_moved);
}

// Regions guarded on %tid.x in a block of several rows and layers: only the guarded columns of
// every row change, and the others keep their values through the next barrier.
const char* columns_kernel = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry columns(.param .u64 columns_out)
{
	.reg .pred %p<11>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 s[1024];
	ld.param.u64 %rd1, [columns_out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r11, %tid.z;
	mov.u32 %r10, %ntid.y;
	mad.lo.s32 %r2, %r11, %r10, %r2;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	shl.b32 %r5, %r4, 2;
	mov.u32 %r6, s;
	add.s32 %r7, %r6, %r5;
	st.shared.u32 [%r7], %r4;
	bar.sync 0;
	setp.gt.u32 %p1, %r1, 2;
	@%p1 bra $L_one;
	ld.shared.u32 %r8, [%r7];
	add.s32 %r8, %r8, 1000;
	st.shared.u32 [%r7], %r8;
$L_one:
	bar.sync 0;
	setp.lt.u32 %p2, %r1, 5;
	@%p2 bra $L_two;
	ld.shared.u32 %r9, [%r7];
	add.s32 %r9, %r9, 50;
	st.shared.u32 [%r7], %r9;
$L_two:
	bar.sync 0;
	ld.shared.u32 %r9, [%r7+0];
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd3, %rd2, %rd3;
	st.global.u32 [%rd3], %r9;
	ret;
}
)";

TEST_F(ptx_engine, RegionsGuardedOnTidXChangeOnlyTheirColumnsInEveryRowAndLayer) {
    std::string error;
    auto straight = program::load(columns_kernel, error);
    ASSERT_TRUE(straight) << error;
    auto general = program::load(with_a_branch_across_barriers(columns_kernel, "$L_two"), error);
    ASSERT_TRUE(general) << error;
    for (const auto& dims : std::vector<std::array<uint32_t, 3>>{{8, 4, 1}, {7, 3, 2}, {2, 1, 1}, {64, 1, 1}}) {
        const uint32_t threads = dims[0] * dims[1] * dims[2];
        std::vector<uint64_t> outs;
        std::vector<launch_outcome> outcomes;
        for (const program* p : {straight.get(), general.get()}) {
            launch_request r;
            r.kernel = 0;
            r.grid[0] = 3;
            std::copy(dims.begin(), dims.end(), r.block);
            const uint64_t out = vram.alloc(threads * 4);
            const std::vector<cb_kernel_arg> args = {ptr(out)};
            ASSERT_EQ(p->pack_arguments(0, args.data(), args.size(), r.params, error), CB_OK) << error;
            outcomes.push_back(p->launch(r, vram.memory(), on_engine, {}));
            ASSERT_EQ(outcomes.back().status, CB_OK) << outcomes.back().message;
            outs.push_back(out);
        }
        const auto got = vram.get<uint32_t>(outs[0], threads);
        for (uint32_t t = 0; t < threads; ++t) {
            const uint32_t x = t % dims[0];
            const uint32_t want = t + (x <= 2 ? 1000u : 0u) + (x >= 5 ? 50u : 0u);
            ASSERT_EQ(got[t], want) << "thread " << t << " of " << dims[0] << "x" << dims[1] << "x" << dims[2];
        }
        EXPECT_EQ(got, vram.get<uint32_t>(outs[1], threads));
        EXPECT_EQ(outcomes[0].executed + 3ull * threads, outcomes[1].executed);
    }
}

TEST_F(ptx_engine, WarpShufflesSumAndButterflyAcrossLanes) {
    auto p = load("warp_shuffle");
    ASSERT_TRUE(p);
    const int n = 1000;
    std::vector<int> in(n);
    std::iota(in.begin(), in.end(), -300);
    const uint64_t din = vram.put(in), dout = vram.alloc((n + 31) / 32 * 4);
    auto out = run(*p, "warp_sum", (n + 127) / 128, 128, {ptr(din), ptr(dout), i64(n)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<int>(dout, n / 32);
    for (int w = 0; w < n / 32; ++w) {
        int s = 0;
        for (int l = 0; l < 32; ++l) s += in[w * 32 + l];
        ASSERT_EQ(got[w], s) << "warp " << w;
    }
    std::vector<float> f(n);
    for (int i = 0; i < n; ++i) f[i] = float((i * 37) % 101);
    const uint64_t df = vram.put(f), dmax = vram.alloc(n * 4);
    out = run(*p, "warp_max", (n + 127) / 128, 128, {ptr(df), ptr(dmax), i64(n)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto mx = vram.get<float>(dmax, n);
    for (int i = 0; i < n; ++i) {
        float m = -INFINITY;
        for (int l = 0; l < 32; ++l) m = std::max(m, (i / 32) * 32 + l < n ? f[(i / 32) * 32 + l] : -INFINITY);
        ASSERT_EQ(mx[i], m) << i;
    }
}

// Warp-synchronous code (warp_synchronous.cu): lanes exchange values through volatile shared
// memory with no barrier and no __syncwarp(), relying on the warp's lanes running in step.
TEST_F(ptx_engine, AWarpScanThroughVolatileSharedMemoryRunsItsLanesInStep) {
    auto p = load("warp_synchronous");
    ASSERT_TRUE(p);
    const int blocks = 5, n = blocks * 256;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 201 - 100;
    const uint64_t din = vram.put(in), dscan = vram.alloc(n * 4), dtotals = vram.alloc(n * 4);
    auto out = run(*p, "warp_scan", blocks, 256, {ptr(din), ptr(dscan), ptr(dtotals)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto scan = vram.get<int>(dscan, n), totals = vram.get<int>(dtotals, n);
    for (int w = 0; w < n / 32; ++w) {
        int sum = 0;
        for (int l = 0; l < 32; ++l)
            ASSERT_EQ(scan[w * 32 + l], sum += in[w * 32 + l]) << "warp " << w << " lane " << l;
        for (int l = 0; l < 32; ++l)
            ASSERT_EQ(totals[w * 32 + l], sum) << "lane " << l << " of warp " << w << " read the total too early";
    }
}

TEST_F(ptx_engine, EightLanesTransformAnEightByEightTileThroughVolatileSharedMemory) {
    auto p = load("warp_synchronous");
    ASSERT_TRUE(p);
    const int blocks = 3, tiles = blocks * 8, n = tiles * 64;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 31 + 7) % 97 - 48;
    const uint64_t din = vram.put(in), dout = vram.alloc(n * 4);
    auto out = run(*p, "tile_transform8", blocks, 64, {ptr(din), ptr(dout)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<int>(dout, n);
    auto butterfly8 = [](std::array<int, 8>& x) {
        for (int half = 4; half > 0; half >>= 1)
            for (int i = 0; i < 8; ++i)
                if (!(i & half)) {
                    const int a = x[i], b = x[i + half];
                    x[i] = a + b, x[i + half] = a - b;
                }
    };
    for (int t = 0; t < tiles; ++t) {
        std::array<std::array<int, 8>, 8> rows;
        for (int r = 0; r < 8; ++r) {
            for (int c = 0; c < 8; ++c) rows[r][c] = in[t * 64 + r * 8 + c] * (r + 1);
            butterfly8(rows[r]);
        }
        for (int r = 0; r < 8; ++r) {
            std::array<int, 8> column;
            for (int c = 0; c < 8; ++c) column[c] = rows[c][r];
            butterfly8(column);
            for (int c = 0; c < 8; ++c) ASSERT_EQ(got[t * 64 + r * 8 + c], column[c]) << "tile " << t << " " << r << c;
        }
    }
}

TEST_F(ptx_engine, AReductionWhoseLastWarpUnrollsThroughVolatileSharedMemorySumsEveryValue) {
    auto p = load("warp_synchronous");
    ASSERT_TRUE(p);
    const int n = 100003, blocks = (n + 511) / 512;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 13) % 1001 - 500;
    const uint64_t din = vram.put(in), dsums = vram.alloc(blocks * 4);
    auto out = run(*p, "reduce_last_warp", blocks, 256, {ptr(din), ptr(dsums), i64(n)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<int>(dsums, blocks);
    for (int b = 0; b < blocks; ++b) {
        int sum = 0;
        for (int i = b * 512; i < std::min(n, b * 512 + 512); ++i) sum += in[i];
        ASSERT_EQ(got[b], sum) << "block " << b;
    }
    EXPECT_TRUE(p->kernel(static_cast<size_t>(p->find("reduce_last_warp"))).region_barriers.empty())
        << "volatile shared accesses park: the general loop runs the kernel";
}

// Some lanes take the volatile path (with a loop whose trip count differs between lanes), some
// only wait at the barrier, some leave first: nothing hangs, and what the lanes on the path
// exchange is what a warp in step gives.
TEST_F(ptx_engine, LanesThatSkipTheVolatilePathNeitherHangNorHoldTheOthersBack) {
    auto p = load("warp_synchronous");
    ASSERT_TRUE(p);
    const int threads = 128;
    const uint64_t dout = vram.put(std::vector<int>(threads, 7777)),
                   dcounts = vram.put(std::vector<int>(threads, 7777));
    auto out = run(*p, "divergent_exchange", 1, threads, {ptr(dout), ptr(dcounts)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<int>(dout, threads), counts = vram.get<int>(dcounts, threads);
    auto final_value = [](int tid) {
        const int lane = tid & 31;
        return (lane + 1) * 10 + ((lane ^ 1) + 1) + (lane & 3) + tid / 32;
    };
    for (int tid = 0; tid < threads; ++tid) {
        const int lane = tid & 31;
        if (lane >= 24) {
            EXPECT_EQ(got[tid], 7777) << tid;
            EXPECT_EQ(counts[tid], 7777) << tid;
        } else if (lane >= 16) {
            EXPECT_EQ(got[tid], -1) << tid;
            EXPECT_EQ(counts[tid], 7777) << tid;
        } else {
            EXPECT_EQ(got[tid], final_value(tid)) << tid;
            EXPECT_EQ(counts[tid], final_value(tid ^ 2)) << "lane " << lane << " read its neighbour's count early";
        }
    }
}

// In a loop, lanes that skip a step's write wait at the loop's end for the writers, as a warp
// in lockstep does, before any lane reads for the next step.
TEST_F(ptx_engine, LanesThatSkipAWriteInALoopWaitForTheWritersBeforeTheNextStep) {
    auto p = load("warp_synchronous");
    ASSERT_TRUE(p);
    const int blocks = 2, threads = 128, n = blocks * threads;
    for (int rounds : {3, 7, 12}) {
        std::vector<int> in(n);
        for (int i = 0; i < n; ++i) in[i] = (i * 37) % 19 - 9;
        const uint64_t din = vram.put(in), dout = vram.alloc(n * 4);
        auto out = run(*p, "loop_exchange", blocks, threads, {ptr(din), ptr(dout), i64(rounds)});
        ASSERT_EQ(out.status, CB_OK) << out.message;
        const auto got = vram.get<int>(dout, n);
        for (int b = 0; b < blocks; ++b) {
            std::vector<int> s(in.begin() + b * threads, in.begin() + (b + 1) * threads), v = s;
            for (int k = 0; k < rounds; ++k) {
                const int mask = 1 << (k % 5);
                std::vector<int> other(threads);
                for (int t = 0; t < threads; ++t) other[t] = s[t ^ mask];  // every lane reads, then
                for (int t = 0; t < threads; ++t)                          // the writers write
                    if (((t & 31) & mask) == 0) s[t] = v[t] = v[t] * 3 + other[t];
            }
            for (int t = 0; t < threads; ++t)
                ASSERT_EQ(got[b * threads + t], v[t] * 7 + s[t ^ 1]) << rounds << " rounds, thread " << t;
        }
    }
}

// Lane 1 spins on a volatile flag that lane 0 sets further down the kernel: holding lanes back at
// later points has a bound, so lane 0 gets there and both finish.
TEST_F(ptx_engine, ALaneSpinningOnAFlagItsWarpSetsLaterDoesNotHoldThatLaneBackForEver) {
    auto p = load("warp_synchronous");
    ASSERT_TRUE(p);
    const uint64_t dout = vram.put(std::vector<int>{0, 0});
    auto out = run(*p, "lane_waits_for_lane", 2, 64, {ptr(dout)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    EXPECT_EQ(vram.get<int>(dout, 2), (std::vector<int>{42, 1}));
}

// Kernels without volatile shared accesses keep the straight regions (one loop over the threads
// per stretch between barriers); only a kernel with them parks at each.
TEST_F(ptx_engine, KernelsWithoutVolatileSharedAccessesKeepTheirStraightRegions) {
    for (const char* name : {"reduce_sum", "transpose", "block_scan"}) {
        auto p = load(name);
        ASSERT_TRUE(p);
        bool straight = false;
        for (size_t k = 0; k < p->kernel_count(); ++k) straight |= !p->kernel(k).region_barriers.empty();
        EXPECT_TRUE(straight) << name;
    }
}

// Tensor cores (tensor_cores.cu): wmma's fragments are the engine's own, mma.sync's and
// ldmatrix's the ISA's; products of f16, bf16 and tf32 are exact, and each is added to the
// accumulator in its type, k after k: the host references below do the same.
float bf16_value(uint16_t bits) {
    const uint32_t b = uint32_t{bits} << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

float tf32_value(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    b &= 0xFFFFE000u;
    std::memcpy(&f, &b, 4);
    return f;
}

_Float16 add_in_half(_Float16 acc, _Float16 a, _Float16 b) {
    // The test's values keep every sum exact in double: the one rounding is to f16.
    return static_cast<_Float16>(double(acc) + double(a) * double(b));
}

class ptx_tensor_cores : public ptx_engine {
protected:
    launch_outcome run_shape(const program& p, const std::string& kernel, std::array<uint32_t, 3> grid,
                             std::array<uint32_t, 3> block, const std::vector<cb_kernel_arg>& args) {
        launch_request r;
        const int k = p.find(kernel);
        EXPECT_GE(k, 0) << kernel;
        r.kernel = static_cast<size_t>(k);
        std::copy(grid.begin(), grid.end(), r.grid);
        std::copy(block.begin(), block.end(), r.block);
        std::string error;
        EXPECT_EQ(p.pack_arguments(r.kernel, args.data(), args.size(), r.params, error), CB_OK) << error;
        return p.launch(r, vram.memory(), on_engine, {});
    }
    std::mt19937 rng{2026};
    _Float16 small_half() { return static_cast<_Float16>(static_cast<float>(int(rng() % 17) - 8) * 0.125f); }
};

TEST_F(ptx_tensor_cores, AWmmaGemmOfHalvesIntoFloatsMatchesTheHostBitForBit) {
    auto p = load("tensor_cores");
    ASSERT_TRUE(p);
    const int m = 64, n = 48, k = 80;
    const float alpha = 1.5f, beta = -0.75f;
    std::vector<_Float16> a(m * k), b(k * n);  // A row-major, B column-major
    for (auto& v : a) v = small_half();
    for (auto& v : b) v = static_cast<_Float16>(static_cast<float>(int(rng() % 2001) - 1000) / 256.0f);
    std::vector<float> c(m * n);
    for (auto& v : c) v = static_cast<float>(int(rng() % 201) - 100) / 3.0f;
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c);
    auto out = run_shape(*p, "wmma_gemm", {uint32_t(n / 32 + 1), uint32_t(m / 32), 1}, {64, 2, 1},
                         {ptr(da), ptr(db), ptr(dc), i64(m), i64(n), i64(k), f64(alpha), f64(beta)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<float>(dc, m * n);
    for (int r = 0; r < m; ++r)
        for (int col = 0; col < n; ++col) {
            float acc = 0.0f;
            for (int i = 0; i < k; ++i) acc = std::fma(float(a[r * k + i]), float(b[col * k + i]), acc);
            ASSERT_EQ(got[r * n + col], std::fma(acc, alpha, c[r * n + col] * beta)) << r << ", " << col;
        }
}

TEST_F(ptx_tensor_cores, AWmmaProductAccumulatesInHalfPrecisionKAfterK) {
    auto p = load("tensor_cores");
    ASSERT_TRUE(p);
    const int tiles = 3;
    std::vector<_Float16> a(256 * tiles), b(256 * tiles), c(256 * tiles);
    for (auto& v : a) v = small_half();
    for (auto& v : b) v = static_cast<_Float16>(static_cast<float>(int(rng() % 64)) * 0.5f + 0.25f);
    for (auto& v : c) v = static_cast<_Float16>(static_cast<float>(int(rng() % 3000)) - 1500.0f);
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c), dd = vram.alloc(256 * tiles * 2);
    auto out = run(*p, "wmma_half_accumulator", tiles, 32, {ptr(da), ptr(db), ptr(dc), ptr(dd)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<_Float16>(dd, 256 * tiles);
    int rounded = 0;
    for (int t = 0; t < tiles; ++t)
        for (int r = 0; r < 16; ++r)
            for (int col = 0; col < 16; ++col) {
                _Float16 acc = c[t * 256 + r * 16 + col];  // C row-major
                double exact = double(acc);
                for (int i = 0; i < 16; ++i) {
                    // A column-major, B row-major.
                    acc = add_in_half(acc, a[t * 256 + i * 16 + r], b[t * 256 + i * 16 + col]);
                    exact += double(a[t * 256 + i * 16 + r]) * double(b[t * 256 + i * 16 + col]);
                }
                rounded += double(acc) != exact;
                // D column-major.
                ASSERT_EQ(float(got[t * 256 + col * 16 + r]), float(acc)) << t << ": " << r << ", " << col;
            }
    EXPECT_GT(rounded, 100) << "the test's sums must need rounding to f16";
}

TEST_F(ptx_tensor_cores, MmaSyncWithFragmentsFromLdmatrixMatchesTheHostBitForBit) {
    auto p = load("tensor_cores");
    ASSERT_TRUE(p);
    const int blocks = 4;
    std::vector<_Float16> a(256 * blocks), b(128 * blocks);  // A 16x16, B 16x8, row-major
    for (auto& v : a) v = small_half();
    for (auto& v : b) v = static_cast<_Float16>(static_cast<float>(int(rng() % 2001) - 1000) / 64.0f);
    std::vector<float> c(128 * blocks);
    for (auto& v : c) v = static_cast<float>(int(rng() % 2001) - 1000) / 7.0f;
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c), dd = vram.alloc(128 * blocks * 4);
    auto out = run(*p, "mma_ldmatrix_f16", blocks, 32, {ptr(da), ptr(db), ptr(dc), ptr(dd)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<float>(dd, 128 * blocks);
    for (int t = 0; t < blocks; ++t)
        for (int r = 0; r < 16; ++r)
            for (int col = 0; col < 8; ++col) {
                float acc = c[t * 128 + r * 8 + col];
                for (int i = 0; i < 16; ++i)
                    acc = std::fma(float(a[t * 256 + r * 16 + i]), float(b[t * 128 + i * 8 + col]), acc);
                ASSERT_EQ(got[t * 128 + r * 8 + col], acc) << t << ": " << r << ", " << col;
            }
}

TEST_F(ptx_tensor_cores, MmaSyncM16n8k8AccumulatesInHalfPrecision) {
    auto p = load("tensor_cores");
    ASSERT_TRUE(p);
    std::vector<_Float16> a(128), b(64), c(128);
    for (auto& v : a) v = small_half();
    for (auto& v : b) v = static_cast<_Float16>(static_cast<float>(int(rng() % 64)) * 0.5f + 0.25f);
    for (auto& v : c) v = static_cast<_Float16>(static_cast<float>(int(rng() % 4000)) - 2000.0f);
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c), dd = vram.alloc(128 * 2);
    auto out = run(*p, "mma_m16n8k8_half", 1, 32, {ptr(da), ptr(db), ptr(dc), ptr(dd)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<_Float16>(dd, 128);
    for (int r = 0; r < 16; ++r)
        for (int col = 0; col < 8; ++col) {
            _Float16 acc = c[r * 8 + col];
            for (int i = 0; i < 8; ++i) acc = add_in_half(acc, a[r * 8 + i], b[i * 8 + col]);
            ASSERT_EQ(float(got[r * 8 + col]), float(acc)) << r << ", " << col;
        }
}

TEST_F(ptx_tensor_cores, MmaSyncOfTf32IgnoresTheLowMantissaBitsAndBf16IsExact) {
    auto p = load("tensor_cores");
    ASSERT_TRUE(p);
    std::uniform_real_distribution<float> any(-3.0f, 3.0f);
    std::vector<float> a32(128), b32(64), c(128);
    for (auto& v : a32) v = any(rng);
    for (auto& v : b32) v = any(rng);
    for (auto& v : c) v = any(rng) * 10.0f;
    std::vector<uint16_t> a16(256), b16(128);
    for (auto& v : a16) v = static_cast<uint16_t>(0x3C00 + rng() % 0x800) ^ (rng() % 2 ? 0x8000 : 0);
    for (auto& v : b16) v = static_cast<uint16_t>(0x3E00 + rng() % 0x600) ^ (rng() % 2 ? 0x8000 : 0);
    const uint64_t da32 = vram.put(a32), db32 = vram.put(b32), da16 = vram.put(a16), db16 = vram.put(b16);
    const uint64_t dc = vram.put(c), dtf = vram.alloc(128 * 4), dbf = vram.alloc(128 * 4);
    auto out =
        run(*p, "mma_tf32_bf16", 1, 32, {ptr(da32), ptr(db32), ptr(da16), ptr(db16), ptr(dc), ptr(dtf), ptr(dbf)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto tf = vram.get<float>(dtf, 128), bf = vram.get<float>(dbf, 128);
    for (int r = 0; r < 16; ++r)
        for (int col = 0; col < 8; ++col) {
            float acc = c[r * 8 + col], full = acc;
            for (int i = 0; i < 8; ++i) {
                acc = std::fma(tf32_value(a32[r * 8 + i]), tf32_value(b32[i * 8 + col]), acc);
                full = std::fma(a32[r * 8 + i], b32[i * 8 + col], full);
            }
            ASSERT_EQ(tf[r * 8 + col], acc) << "tf32 " << r << ", " << col;
            EXPECT_NE(tf[r * 8 + col], full) << "tf32 " << r << ", " << col << ": the low bits must not count";
            float acc2 = c[r * 8 + col];
            for (int i = 0; i < 16; ++i)
                acc2 = std::fma(bf16_value(a16[r * 16 + i]), bf16_value(b16[i * 8 + col]), acc2);
            ASSERT_EQ(bf[r * 8 + col], acc2) << "bf16 " << r << ", " << col;
        }
}

TEST_F(ptx_tensor_cores, AWmmaOfEightBitIntegersInTheM32n8k16ShapeSumsIntoInt32) {
    auto p = load("tensor_cores");
    ASSERT_TRUE(p);
    std::vector<int8_t> a(32 * 16), b(16 * 8);  // A row-major, B column-major
    for (auto& v : a) v = static_cast<int8_t>(rng());
    for (auto& v : b) v = static_cast<int8_t>(rng());
    std::vector<int32_t> c(32 * 8);
    for (auto& v : c) v = static_cast<int32_t>(rng() % 2000001) - 1000000;
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c), dd = vram.alloc(32 * 8 * 4);
    auto out = run(*p, "wmma_int8", 1, 32, {ptr(da), ptr(db), ptr(dc), ptr(dd)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<int32_t>(dd, 32 * 8);
    for (int r = 0; r < 32; ++r)
        for (int col = 0; col < 8; ++col) {
            int32_t acc = c[r * 8 + col];
            for (int i = 0; i < 16; ++i) acc += int32_t{a[r * 16 + i]} * int32_t{b[col * 16 + i]};
            ASSERT_EQ(got[col * 32 + r], acc) << r << ", " << col;  // D column-major
        }
}

TEST_F(ptx_tensor_cores, AWmmaInTheM8n32k16ShapeHonoursLayoutsAndStrides) {
    auto p = load("tensor_cores");
    ASSERT_TRUE(p);
    std::vector<_Float16> a(8 * 16), b(16 * 32);  // A column-major (stride 8), B row-major
    for (auto& v : a) v = small_half();
    for (auto& v : b) v = static_cast<_Float16>(static_cast<float>(int(rng() % 2001) - 1000) / 128.0f);
    const uint64_t da = vram.put(a), db = vram.put(b), dd = vram.put(std::vector<float>(8 * 40, -1.0f));
    auto out = run(*p, "wmma_m8n32k16", 1, 32, {ptr(da), ptr(db), ptr(dd)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<float>(dd, 8 * 40);
    for (int r = 0; r < 8; ++r)
        for (int col = 0; col < 40; ++col) {
            float acc = 0.0f;
            for (int i = 0; i < 16; ++i) acc = std::fma(float(a[i * 8 + r]), float(b[i * 32 + col % 32]), acc);
            ASSERT_EQ(got[r * 40 + col], col < 32 ? acc : -1.0f) << r << ", " << col;  // the padding untouched
        }
}

TEST_F(ptx_tensor_cores, MovmatrixAndStmatrixTransposeWhatLdmatrixLoaded) {
    auto p = load("tensor_cores");
    ASSERT_TRUE(p);
    std::vector<uint16_t> in(256);
    for (int i = 0; i < 256; ++i) in[i] = static_cast<uint16_t>(i * 257 + 3);
    const uint64_t din = vram.put(in), dstore = vram.alloc(512), dmove = vram.alloc(128);
    auto out = run(*p, "matrix_moves", 1, 32, {ptr(din), ptr(dstore), ptr(dmove)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto stored = vram.get<uint16_t>(dstore, 256);
    const auto moved = vram.get<uint32_t>(dmove, 32);
    for (int lane = 0; lane < 32; ++lane) {  // the first quarter's transpose, as a fragment
        const int g = lane / 4, pair = (lane % 4) * 2;
        ASSERT_EQ(moved[lane], uint32_t{in[pair * 16 + g]} | uint32_t{in[(pair + 1) * 16 + g]} << 16) << lane;
    }
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) {
            const int r0 = r / 8 * 8, c0 = c / 8 * 8;
            ASSERT_EQ(stored[r * 16 + c], in[(r0 + c - c0) * 16 + c0 + r - r0]) << r << ", " << c;
        }
}

TEST_F(ptx_tensor_cores, IntegerMmaSyncWrapsWithoutSatfiniteAndClampsWithIt) {
    auto p = load("tensor_cores");
    ASSERT_TRUE(p);
    std::vector<uint8_t> a(256 + 512);
    std::vector<int8_t> b(128 + 256);
    for (auto& v : a) v = static_cast<uint8_t>(rng());
    for (auto& v : b) v = static_cast<int8_t>(rng());
    std::vector<int32_t> c(128);
    for (size_t i = 0; i < c.size(); ++i)  // some near the ends of the range: the sums overflow
        c[i] = i % 3 == 0   ? std::numeric_limits<int32_t>::max() - int32_t(rng() % 300000)
               : i % 3 == 1 ? std::numeric_limits<int32_t>::min() + int32_t(rng() % 300000)
                            : int32_t(rng() % 200001) - 100000;
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c);
    const uint64_t d8 = vram.alloc(64 * 4), d16 = vram.alloc(128 * 4), d32 = vram.alloc(128 * 4);
    auto out = run(*p, "mma_int8", 1, 32, {ptr(da), ptr(db), ptr(dc), ptr(d8), ptr(d16), ptr(d32)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto g8 = vram.get<int32_t>(d8, 64), g16 = vram.get<int32_t>(d16, 128), g32 = vram.get<int32_t>(d32, 128);
    auto product = [&](int r, int col, int k, const uint8_t* pa, const int8_t* pb) {
        int64_t sum = c[r * 8 + col];
        for (int i = 0; i < k; ++i) sum += int64_t{pa[r * k + i]} * int64_t{pb[i * 8 + col]};
        return sum;
    };
    int clamped = 0;
    for (int r = 0; r < 16; ++r)
        for (int col = 0; col < 8; ++col) {
            if (r < 8) {
                ASSERT_EQ(g8[r * 8 + col], static_cast<int32_t>(product(r, col, 16, a.data(), b.data())));
            }
            ASSERT_EQ(g16[r * 8 + col], static_cast<int32_t>(product(r, col, 16, a.data(), b.data()))) << r << col;
            const int64_t wide = product(r, col, 32, a.data() + 256, b.data() + 128);
            const int64_t want = std::clamp<int64_t>(wide, INT32_MIN, INT32_MAX);
            clamped += want != wide;
            ASSERT_EQ(g32[r * 8 + col], want) << r << ", " << col;
        }
    EXPECT_GT(clamped, 0) << "some sums must overflow";
}

// sm_80's wmma types (sm80/wmma_sm80.cu): bf16 and tf32, the latter rounded by
// cvt.rna.tf32.f32 (wmma::__float_to_tf32: ties away from zero) before the product.
float rna_tf32(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    b = (b + 0x1000u) & 0xFFFFE000u;
    std::memcpy(&f, &b, 4);
    return f;
}

TEST_F(ptx_tensor_cores, Sm80WmmaOfBf16AndTf32MatchesTheHostBitForBit) {
    std::string error;
    auto p = program::load(sm80_kernels("wmma_sm80"), error);
    ASSERT_TRUE(p) << error;
    std::vector<uint16_t> a(256), b(256);
    for (auto& v : a) v = static_cast<uint16_t>(0x3C00 + rng() % 0x800) ^ (rng() % 2 ? 0x8000 : 0);
    for (auto& v : b) v = static_cast<uint16_t>(0x3E00 + rng() % 0x600) ^ (rng() % 2 ? 0x8000 : 0);
    std::uniform_real_distribution<float> any(-4.0f, 4.0f);
    std::vector<float> c(256), a32(128), b32(128);
    for (auto& v : c) v = any(rng) * 8.0f;
    for (auto& v : a32) v = any(rng);
    for (auto& v : b32) v = any(rng);
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c), dd = vram.alloc(256 * 4);
    auto out = run(*p, "wmma_bf16", 1, 32, {ptr(da), ptr(db), ptr(dc), ptr(dd)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    auto got = vram.get<float>(dd, 256);
    for (int r = 0; r < 16; ++r)
        for (int col = 0; col < 16; ++col) {
            float acc = c[r * 16 + col];
            for (int i = 0; i < 16; ++i) acc = std::fma(bf16_value(a[r * 16 + i]), bf16_value(b[i * 16 + col]), acc);
            ASSERT_EQ(got[r * 16 + col], acc) << "bf16 " << r << ", " << col;
        }
    const uint64_t da32 = vram.put(a32), db32 = vram.put(b32), dd32 = vram.alloc(256 * 4);
    out = run(*p, "wmma_tf32", 1, 32, {ptr(da32), ptr(db32), ptr(dc), ptr(dd32)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    got = vram.get<float>(dd32, 256);
    for (int r = 0; r < 16; ++r)
        for (int col = 0; col < 16; ++col) {
            float acc = c[r * 16 + col];  // A 16x8 row-major, B 8x16 column-major
            for (int i = 0; i < 8; ++i) acc = std::fma(rna_tf32(a32[r * 8 + i]), rna_tf32(b32[col * 8 + i]), acc);
            ASSERT_EQ(got[r * 16 + col], acc) << "tf32 " << r << ", " << col;
        }
}

TEST_F(ptx_tensor_cores, F64ProductsFuseEachMultiplyAddKAfterKInWmmaAndMmaSync) {
    std::string error;
    auto p = program::load(sm80_kernels("wmma_sm80"), error);
    ASSERT_TRUE(p) << error;
    // Values whose products and sums round: a separate multiply and add would differ from fma.
    std::uniform_real_distribution<double> any(-3.0, 3.0);
    std::vector<double> a(64), b(64), c(64);
    for (auto& v : a) v = any(rng) / 3.0;
    for (auto& v : b) v = any(rng) / 7.0;
    for (auto& v : c) v = any(rng) * 1e3;
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c), dd = vram.alloc(64 * 8);
    auto out = run(*p, "wmma_f64", 1, 32, {ptr(da), ptr(db), ptr(dc), ptr(dd)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    auto got = vram.get<double>(dd, 64);
    for (int r = 0; r < 8; ++r)
        for (int col = 0; col < 8; ++col) {
            double acc = c[r * 8 + col];  // A row-major, B column-major, both 8x8
            for (int i = 0; i < 8; ++i) acc = std::fma(a[r * 8 + i], b[col * 8 + i], acc);
            ASSERT_EQ(got[r * 8 + col], acc) << "wmma " << r << ", " << col;
        }
    out = run(*p, "mma_f64", 1, 32, {ptr(da), ptr(db), ptr(dc), ptr(dd)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    got = vram.get<double>(dd, 64);
    for (int r = 0; r < 8; ++r)
        for (int col = 0; col < 8; ++col) {
            double acc = c[r * 8 + col];  // A 8x4 row-major, B 4x8 column-major
            for (int i = 0; i < 4; ++i) acc = std::fma(a[r * 4 + i], b[col * 4 + i], acc);
            ASSERT_EQ(got[r * 8 + col], acc) << "mma.sync " << r << ", " << col;
        }
}

// Asynchronous copies (sm80/async_copies.cu, what cuda::pipeline, cuda::barrier and
// __pipeline_memcpy_async emit at compute_80): cp.async copies at once, mbarriers count arrivals
// and flip their phase, and a thread waiting on one parks until the others have run.
class ptx_async_copies : public ptx_engine {
protected:
    std::shared_ptr<program> load_sm80() {
        std::string error;
        auto p = program::load(sm80_kernels("async_copies"), error);
        EXPECT_TRUE(p) << error;
        return p;
    }
};

TEST_F(ptx_async_copies, AThreadScopePipelineCopiesFourEightAndSixteenByteElementsAheadOfUse) {
    auto p = load_sm80();
    ASSERT_TRUE(p);
    const int blocks = 3, tiles = 5, n = blocks * tiles * 64;
    std::vector<float> in(n), in2(2 * n), in4(4 * n);
    for (int i = 0; i < n; ++i) in[i] = float(i) * 0.5f - 7.0f;
    for (int i = 0; i < 2 * n; ++i) in2[i] = float(i % 1013) - 300.25f;
    for (int i = 0; i < 4 * n; ++i) in4[i] = float(i % 977) * 0.125f;
    const uint64_t d1 = vram.put(in), d2 = vram.put(in2), d4 = vram.put(in4);
    const uint64_t o1 = vram.alloc(n * 4), o2 = vram.alloc(n * 8), o4 = vram.alloc(n * 16);
    auto out =
        run(*p, "pipeline_stages", blocks, 64, {ptr(d1), ptr(d2), ptr(d4), ptr(o1), ptr(o2), ptr(o4), i64(tiles)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto g1 = vram.get<float>(o1, n), g2 = vram.get<float>(o2, 2 * n), g4 = vram.get<float>(o4, 4 * n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(g1[i], in[i] * 2.0f) << i;
    for (int i = 0; i < 2 * n; ++i) ASSERT_EQ(g2[i], in2[i] * 2.0f) << i;
    for (int i = 0; i < 4 * n; ++i) ASSERT_EQ(g4[i], in4[i] * 2.0f) << i;
}

TEST_F(ptx_async_copies, ABlocksCooperativeCopyCompletesOnACudaBarrier) {
    auto p = load_sm80();
    ASSERT_TRUE(p);
    const int blocks = 4, n = blocks * 128;
    std::vector<float> in(4 * n);
    for (int i = 0; i < 4 * n; ++i) in[i] = float(i) + 0.5f;
    const uint64_t din = vram.put(in), dout = vram.alloc(n * 16);
    auto out = run(*p, "barrier_tile", blocks, 128, {ptr(din), ptr(dout)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<float>(dout, 4 * n);
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < 128; ++t)
            for (int c = 0; c < 4; ++c)
                ASSERT_EQ(got[(b * 128 + t) * 4 + c], in[(b * 128 + (t + 1) % 128) * 4 + c]) << b << " " << t;
}

TEST_F(ptx_async_copies, TheZeroFillingFormReadsOnlyTheBytesItCopies) {
    auto p = load_sm80();
    ASSERT_TRUE(p);
    for (int valid : {0, 4, 12, 16}) {
        // The input ends where the last thread's valid bytes end, at the end of the one mapped
        // page when that is 16-byte aligned (0 and 16 valid bytes): a byte read past it faults.
        std::vector<int32_t> in(31 * 4 + valid / 4);
        std::iota(in.begin(), in.end(), 100);
        fake_vram small;
        const uint64_t page = uint64_t{1} << vram_page_shift;
        const uint64_t din = fake_vram::base + (page - in.size() * 4) / 16 * 16, dout = fake_vram::base;
        std::memcpy(small.bytes.data() + (din - fake_vram::base), in.data(), in.size() * 4);
        device_memory memory = small.memory();
        std::vector<uint8_t> pages((memory.size >> vram_page_shift) + 1, 0);
        pages[0] = 1;  // only the first 64 KiB page is mapped
        memory.page_map = pages.data();
        launch_request r;
        r.kernel = static_cast<size_t>(p->find("zero_fill"));
        r.grid[0] = 1, r.block[0] = 32;
        const std::vector<cb_kernel_arg> args = {ptr(din), ptr(dout), i64(valid)};
        std::string error;
        ASSERT_EQ(p->pack_arguments(r.kernel, args.data(), args.size(), r.params, error), CB_OK) << error;
        auto out = p->launch(r, memory, on_engine, {});
        ASSERT_EQ(out.status, CB_OK) << out.message;
        const auto got = small.get<int32_t>(dout, 32 * 4);
        for (int i = 0; i < 32 * 4; ++i) ASSERT_EQ(got[i], i < int(in.size()) ? in[i] : 0) << valid << ": " << i;
    }
}

TEST_F(ptx_async_copies, AProducerWarpAndAConsumerWarpShareABlockScopePipeline) {
    auto p = load_sm80();
    ASSERT_TRUE(p);
    const int blocks = 2, tiles = 7;
    std::vector<int32_t> in(blocks * tiles * 32);
    for (size_t i = 0; i < in.size(); ++i) in[i] = int32_t(i * 3 % 101) - 50;
    const uint64_t din = vram.put(in), dsums = vram.alloc(blocks * 32 * 4);
    auto out = run(*p, "producer_consumer", blocks, 64, {ptr(din), ptr(dsums), i64(tiles)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<int32_t>(dsums, blocks * 32);
    for (int b = 0; b < blocks; ++b)
        for (int lane = 0; lane < 32; ++lane) {
            int32_t sum = 0;
            for (int t = 0; t < tiles; ++t) sum += in[(b * tiles + t) * 32 + lane];
            ASSERT_EQ(got[b * 32 + lane], sum) << b << " " << lane;
        }
}

// warpSize is the PTX constant WARP_SZ (mov.u32 %r, WARP_SZ): 32 on every NVIDIA GPU.
// A .func with barriers that nvcc left a call (__noinline__, or -rdc): inlined into the kernel
// at each call site, with its own registers and labels, its `ret`s jumping past it.
TEST_F(ptx_engine, AFunctionWithBarriersRunsInlinedAtEachCallSite) {
    const std::string ptx = R"(
.version 8.0
.target sm_75
.address_size 64
.shared .align 4 .b8 tile[128];

.func (.param .b32 total) block_sum(.param .b32 value, .param .b32 lane)
{
    .reg .b32 %r<9>;
    .reg .pred %p<3>;
    ld.param.b32 %r1, [value];
    ld.param.b32 %r2, [lane];
    mov.u32 %r8, tile;
    shl.b32 %r3, %r2, 2;
    add.u32 %r3, %r3, %r8;
    st.shared.u32 [%r3], %r1;
    bar.sync 0;
    mov.u32 %r5, 0;
    mov.u32 %r6, 0;
$L_sum:
    shl.b32 %r7, %r6, 2;
    add.u32 %r7, %r7, %r8;
    ld.shared.u32 %r4, [%r7];
    add.u32 %r5, %r5, %r4;
    add.u32 %r6, %r6, 1;
    setp.lt.u32 %p1, %r6, 32;
    @%p1 bra $L_sum;
    bar.sync 0;
    setp.eq.u32 %p2, %r1, 0;
    @%p2 bra $L_zero;
    st.param.b32 [total], %r5;
    ret;
$L_zero:
    st.param.b32 [total], 0;
    ret;
}

.visible .entry sums(.param .u64 out, .param .u64 in)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [in];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    {
    .param .b32 p0;
    .param .b32 p1;
    .param .b32 r0;
    st.param.b32 [p0], %r2;
    st.param.b32 [p1], %r1;
    call.uni (r0), block_sum, (p0, p1);
    ld.param.b32 %r3, [r0];
    }
    shl.b32 %r4, %r2, 1;
    {
    .param .b32 p0;
    .param .b32 p1;
    .param .b32 r0;
    st.param.b32 [p0], %r4;
    st.param.b32 [p1], %r1;
    call.uni (r0), block_sum, (p0, p1);
    ld.param.b32 %r5, [r0];
    }
    ld.param.u64 %rd4, [out];
    cvta.to.global.u64 %rd4, %rd4;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd5, %rd4, %rd2;
    st.global.u32 [%rd5], %r3;
    st.global.u32 [%rd5+4], %r5;
    ret;
}
)";
    std::string error;
    auto p = program::load(ptx, error);
    ASSERT_TRUE(p) << error;
    std::vector<uint32_t> in(32);
    uint32_t total = 0;
    for (uint32_t i = 0; i < 32; ++i) total += in[i] = i % 5 == 0 ? 0 : 3 * i + 1;
    const uint64_t din = vram.put(in), dout = vram.alloc(32 * 8);
    auto out = run(*p, "sums", 1, 32, {ptr(dout), ptr(din)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<uint32_t>(dout, 64);
    for (uint32_t i = 0; i < 32; ++i) {
        EXPECT_EQ(got[2 * i], in[i] ? total : 0u) << i;
        EXPECT_EQ(got[2 * i + 1], in[i] ? 2 * total : 0u) << i;
    }
}

// An -rdc program's translation units, one after another: a kernel of one calls a function the
// other defines; each unit's own variable of the same name stays its own.
TEST_F(ptx_engine, TranslationUnitsLinkByVisibleNamesAndKeepTheirOwnSymbolsApart) {
    const std::string unit_a = R"(
.version 8.0
.target sm_75
.address_size 64
.global .align 4 .u32 own = 11;
.extern .func (.param .b32 r) twice(.param .b32 x);
.visible .entry from_a(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.global.u32 %r1, [own];
    {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r1;
    call.uni (r0), twice, (a0);
    ld.param.b32 %r2, [r0];
    }
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    st.global.u32 [%rd1], %r2;
    ret;
}
)";
    const std::string unit_b = R"(
.version 8.0
.target sm_75
.address_size 64
.global .align 4 .u32 own = 100;
.visible .func (.param .b32 r) twice(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    ld.global.u32 %r2, [own];
    add.u32 %r1, %r1, %r1;
    add.u32 %r1, %r1, %r2;
    st.param.b32 [r], %r1;
    ret;
}
.visible .entry from_b(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.global.u32 %r1, [own];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    st.global.u32 [%rd1], %r1;
    ret;
}
)";
    std::string error;
    auto p = program::load(unit_a + unit_b, error);
    ASSERT_TRUE(p) << error;
    const uint64_t dout = vram.alloc(8);
    auto out = run(*p, "from_a", 1, 1, {ptr(dout)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    EXPECT_EQ(vram.get<uint32_t>(dout, 1)[0], 2u * 11u + 100u);  // unit a's own, doubled, plus unit b's
    out = run(*p, "from_b", 1, 1, {ptr(dout)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    EXPECT_EQ(vram.get<uint32_t>(dout, 1)[0], 100u);
    // Two units that define one linked name: refused, naming it.
    EXPECT_FALSE(program::load(unit_b + unit_b, error));
    EXPECT_NE(error.find("'twice'"), std::string::npos) << error;
}

TEST_F(ptx_engine, WarpSizeIsTheConstantThirtyTwo) {
    auto p = load("warp_size");
    ASSERT_TRUE(p);
    const int n = 300;
    const uint64_t out = vram.alloc(n * 4);
    auto o = run(*p, "warp_geometry", 3, 128, {ptr(out), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    const auto got = vram.get<int>(out, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], (i / 32) * 1000 + (i % 32) * 10 + (n + 31) / 32) << i;
}

// A shared address in a 32-bit register plus an immediate is a 32-bit sum, as on the GPU: a
// diagonal wavefront over two shared tiles (Rodinia's Needleman-Wunsch pattern) computes a
// thread's cells as base - 64 * tx + ..., below zero for the threads a diagonal leaves out, and
// nvcc folds the rest into [%r + imm], which wraps back into the tile; summed in 64 bits it was
// 0x1_0000_0004 and every launch faulted.
TEST_F(ptx_engine, ASharedAddressRegisterPlusAnOffsetWrapsAtThirtyTwoBits) {
    auto p = load("wavefront_tiles");
    ASSERT_TRUE(p);
    const int tiles = 5, pitch = tiles * 17, gap = 3;
    std::vector<int> cost(16 * pitch), score(17 * pitch);
    std::mt19937 rng(5);
    for (auto& v : cost) v = static_cast<int>(rng() % 21) - 10;
    for (auto& v : score) v = static_cast<int>(rng() % 41) - 20;
    const uint64_t dcost = vram.put(cost), dscore = vram.put(score);
    auto o = run(*p, "wavefront_tile", tiles, 16, {ptr(dcost), ptr(dscore), i64(pitch), i64(gap)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    const auto got = vram.get<int>(dscore, score.size());
    for (int t = 0; t < tiles; ++t) {
        const int origin = t * 17;
        int s[17][17];
        for (int i = 0; i <= 16; ++i) s[0][i] = score[origin + i], s[i][0] = score[i * pitch + origin];
        for (int y = 1; y <= 16; ++y)
            for (int x = 1; x <= 16; ++x)
                s[y][x] = std::max(s[y - 1][x - 1] + cost[(y - 1) * pitch + origin + x - 1],
                                   std::max(s[y][x - 1] - gap, s[y - 1][x] - gap));
        for (int y = 1; y <= 16; ++y)
            for (int x = 1; x <= 16; ++x)
                ASSERT_EQ(got[y * pitch + origin + x], s[y][x]) << "tile " << t << " cell " << y << "," << x;
    }
}

// The integer instructions of int_intrinsics.cu, each against the PTX ISA's own definition.
namespace isa {
uint32_t bmsk(uint32_t a, uint32_t b, bool clamp) {
    const uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1;
    uint32_t mask1 = sum >= 32 ? 0 : ~0u << sum;
    if (clamp && a >= 32) mask0 = 0;
    if (sum >= 32 || (clamp && (a >= 32 || b >= 32))) mask1 = 0;
    return mask0 & ~mask1;
}
uint32_t szext(uint32_t a, uint32_t b, bool clamp, bool is_signed) {
    const uint32_t b1 = b & 31;
    const bool too_large = b >= 32 && clamp;
    const uint32_t mask = too_large ? 0 : ~0u << b1;
    const bool sign = b1 != 0 && !too_large && is_signed && ((a >> ((b1 - 1) & 31)) & 1);
    return (a & ~mask) | (sign ? mask : 0);
}
int32_t part(uint32_t v, int at, int bits, bool is_signed) {
    const uint32_t raw = (v >> at) & ((1u << bits) - 1);
    return is_signed && (raw >> (bits - 1)) ? int32_t(raw) - (1 << bits) : int32_t(raw);
}
uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, bool s) {
    for (int i = 0; i < 4; ++i) c += uint32_t(part(a, 8 * i, 8, s) * part(b, 8 * i, 8, s));
    return c;
}
uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, bool hi, bool s) {
    for (int i = 0; i < 2; ++i) c += uint32_t(part(a, 16 * i, 16, s) * part(b, 8 * (i + (hi ? 2 : 0)), 8, s));
    return c;
}
uint32_t fns(uint32_t mask, uint32_t base, int32_t offset) {
    if (offset == 0) return (mask >> base) & 1 ? base : 0xFFFFFFFFu;
    int64_t count = std::abs(int64_t(offset)) - 1;
    for (int pos = int(base); pos >= 0 && pos<32; pos += offset> 0 ? 1 : -1)
        if ((mask >> pos) & 1) {
            if (count == 0) return uint32_t(pos);
            --count;
        }
    return 0xFFFFFFFFu;
}
// The ISA's prmt mode table: for selector 0..3, the source bytes of d.b3, d.b2, d.b1, d.b0.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, const char* mode) {
    static const std::map<std::string, std::array<std::array<int, 4>, 4>> table = {
        {"f4e", {{{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}}}},
        {"b4e", {{{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}}}},
        {"rc8", {{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}}},
        {"ecl", {{{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}}}},
        {"ecr", {{{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}}}},
        {"rc16", {{{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}}}}};
    const uint64_t both = a | uint64_t(b) << 32;
    const auto& row = table.at(mode)[c & 3];
    uint32_t d = 0;
    for (int i = 0; i < 4; ++i) d |= uint32_t((both >> (8 * row[3 - i])) & 0xFF) << (8 * i);
    return d;
}
// The default mode; __byte_perm passes it the selector's low three bits of each nibble only.
uint32_t byte_perm(uint32_t a, uint32_t b, uint32_t c) {
    const uint64_t both = a | uint64_t(b) << 32;
    uint32_t d = 0;
    for (int i = 0; i < 4; ++i) {
        const uint32_t s = (c >> (4 * i)) & 0xF;
        uint32_t byte = (both >> (8 * (s & 7))) & 0xFF;
        if (s & 8) byte = byte & 0x80 ? 0xFF : 0;
        d |= byte << (8 * i);
    }
    return d;
}
}  // namespace isa

TEST_F(ptx_engine, IntegerIntrinsicsComputeWhatThePtxIsaDefines) {
    auto p = load("int_intrinsics");
    ASSERT_TRUE(p);
    const int n = 4096;
    std::vector<uint32_t> a(n), b(n);
    std::vector<int32_t> c(n);
    std::mt19937 rng(17);
    for (int i = 0; i < n; ++i) {
        a[i] = rng(), b[i] = rng(), c[i] = static_cast<int32_t>(rng());
        if (i % 4 == 1) a[i] %= 40, b[i] %= 40;                                    // positions and widths around 32
        if (i % 4 == 2) c[i] = static_cast<int32_t>(rng() % 70) - 35, b[i] %= 36;  // small offsets, lengths
    }
    a[0] = 1, b[0] = 2;  // the ISA's bmsk example: 0x6
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c), out = vram.alloc(16 * 4 * n);
    auto o = run(*p, "int_intrinsics", n / 128, 128, {ptr(da), ptr(db), ptr(dc), ptr(out), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    const auto got = vram.get<uint32_t>(out, 16 * n);
    EXPECT_EQ(got[1], 6u) << "bmsk.wrap.b32 d, 1, 2";
    for (int i = 0; i < n; ++i) {
        const uint32_t x = a[i], y = b[i], z = static_cast<uint32_t>(c[i]);
        const uint32_t want[16] = {isa::bmsk(x, y, true),
                                   isa::bmsk(x, y, false),
                                   isa::szext(z, y, true, true),
                                   isa::szext(z, y, false, false),
                                   isa::dp4a(x, y, z, false),
                                   isa::dp4a(x, y, z, true),
                                   isa::dp2a(x, y, z, false, false),
                                   isa::dp2a(x, y, z, true, true),
                                   isa::fns(x, y & 31, c[i]),
                                   isa::prmt(x, y, z, "f4e"),
                                   isa::prmt(x, y, z, "b4e"),
                                   isa::prmt(x, y, z, "rc8"),
                                   isa::prmt(x, y, z, "ecl"),
                                   isa::prmt(x, y, z, "ecr"),
                                   isa::prmt(x, y, z, "rc16"),
                                   isa::byte_perm(x, y, z & 0x7777)};
        const char* names[16] = {"bmsk.clamp", "bmsk.wrap", "szext.clamp.s32", "szext.wrap.u32",
                                 "dp4a.u32",   "dp4a.s32",  "dp2a.lo.u32",     "dp2a.hi.s32",
                                 "fns",        "prmt.f4e",  "prmt.b4e",        "prmt.rc8",
                                 "prmt.ecl",   "prmt.ecr",  "prmt.rc16",       "prmt"};
        for (int k = 0; k < 16; ++k)
            ASSERT_EQ(got[16 * i + k], want[k]) << names[k] << " of " << x << ", " << y << ", " << c[i];
    }
}

// The SIMD video instructions, from the PTX ISA's pseudocode: lanes of 8 (or 16) bits chosen from
// {b, a} by the selectors, extended by type, the operation, .sat's clamp to d's lane type, then
// d = c plus the masked lanes (.add) or each masked lane's low bits with c's other lanes.
namespace video {
enum op { add, sub, avrg, absdiff, min, max, ge, lt };
struct form {
    op o;
    int lanes;  // 4 or 2
    bool ds, as, bs, sat, accumulate;
    std::array<int, 4> asel, bsel;  // lane i's element of {b, a}
    unsigned mask;
};
uint32_t apply(const form& f, uint32_t a, uint32_t b, uint32_t c) {
    const int width = f.lanes == 4 ? 8 : 16;
    const uint64_t both = a | uint64_t(b) << 32;
    const int64_t field = (int64_t{1} << width) - 1;
    auto element = [&](int index, bool is_signed) {
        const int64_t raw = int64_t(both >> (index * width)) & field;
        return is_signed && raw >> (width - 1) ? raw - (field + 1) : raw;
    };
    uint32_t d = f.accumulate ? c : 0;
    for (int i = 0; i < f.lanes; ++i) {
        const int64_t x = element(f.asel[i], f.as), y = element(f.bsel[i], f.bs);
        int64_t t = 0;
        switch (f.o) {
        case add:
            t = x + y;
            break;
        case sub:
            t = x - y;
            break;
        case avrg:
            t = x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1;
            break;
        case absdiff:
            t = x > y ? x - y : y - x;
            break;
        case min:
            t = std::min(x, y);
            break;
        case max:
            t = std::max(x, y);
            break;
        case ge:
            t = x >= y;
            break;
        case lt:
            t = x < y;
            break;
        }
        if (f.sat) t = f.ds ? std::clamp<int64_t>(t, -(field + 1) / 2, field / 2) : std::clamp<int64_t>(t, 0, field);
        const bool in_mask = (f.mask >> i) & 1;
        if (f.accumulate)
            d += in_mask ? uint32_t(t) : 0;
        else
            d |= uint32_t(in_mask ? t & field : (c >> (i * width)) & field) << (i * width);
    }
    return d;
}
constexpr std::array<int, 4> a4 = {0, 1, 2, 3}, b4 = {4, 5, 6, 7}, a2 = {0, 1, 0, 0}, b2 = {2, 3, 0, 0};
}  // namespace video

TEST_F(ptx_engine, SimdVideoInstructionsComputeWhatThePtxIsaDefines) {
    using namespace video;
    // simd_video.cu's sixteen results, in its order.
    const form forms[16] = {
        {absdiff, 4, false, false, false, false, false, a4, b4, 0xF},                  // __vabsdiffu4
        {absdiff, 4, false, false, false, false, true, a4, b4, 0xF},                   // __vsadu4 (c = 0)
        {absdiff, 2, false, false, false, false, true, a2, b2, 0x3},                   // __vsadu2 (c = 0)
        {add, 4, true, true, true, true, false, a4, b4, 0xF},                          // vadd4.s32.s32.s32.sat
        {sub, 4, false, false, false, true, false, a4, b4, 0xF},                       // vsub4.u32.u32.u32.sat
        {avrg, 4, true, true, true, false, false, a4, b4, 0xF},                        // vavrg4.s32.s32.s32
        {min, 4, true, true, true, false, true, a4, b4, 0xF},                          // vmin4.s32.s32.s32.add
        {max, 4, false, true, false, false, false, a4, b4, 0xF},                       // vmax4.u32.s32.u32
        {ge, 4, false, true, false, false, true, a4, b4, 0xF},                         // vset4.s32.u32.ge.add
        {avrg, 2, false, false, false, false, false, a2, b2, 0x3},                     // vavrg2.u32.u32.u32
        {sub, 2, true, true, true, true, false, a2, b2, 0x3},                          // vsub2.s32.s32.s32.sat
        {lt, 2, false, true, true, false, false, a2, b2, 0x3},                         // vset2.s32.s32.lt
        {absdiff, 4, false, false, false, false, false, a4, b4, 0x5},                  // vabsdiff4 d.b20
        {add, 4, false, false, false, false, false, {0, 3, 4, 7}, {6, 5, 2, 1}, 0xA},  // d.b31, a.b7430, b.b1256
        {max, 2, true, true, true, false, true, {3, 0, 0, 0}, {1, 2, 0, 0}, 0x2},      // d.h1, a.h03, b.h21
        {absdiff, 2, false, false, false, false, false, a2, b2, 0x3},                  // __vabsdiffu2
    };
    auto p = load("simd_video");
    ASSERT_TRUE(p);
    const int n = 4096;
    std::vector<uint32_t> a(n), b(n), c(n);
    std::mt19937 rng(23);
    for (int i = 0; i < n; ++i) {
        a[i] = rng(), b[i] = rng(), c[i] = rng();
        if (i % 4 == 1) b[i] = a[i] ^ (rng() & 0x01010101u);       // near-equal lanes: compares, averages of ties
        if (i % 4 == 2) a[i] |= 0x80808080u, b[i] &= 0x7F7F7F7Fu;  // saturating lanes
    }
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c), out = vram.alloc(16 * 4 * n);
    auto o = run(*p, "simd_video", n / 128, 128, {ptr(da), ptr(db), ptr(dc), ptr(out), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    const auto got = vram.get<uint32_t>(out, 16 * n);
    for (int i = 0; i < n; ++i) {
        // The intrinsics pass c = 0 to the summing forms; __vabsdiffu4/2 merge every lane.
        for (int k = 0; k < 16; ++k) {
            const uint32_t cin = (k == 1 || k == 2) ? 0 : c[i];
            ASSERT_EQ(got[16 * i + k], apply(forms[k], a[i], b[i], cin))
                << "result " << k << " of " << a[i] << ", " << b[i] << ", " << c[i];
        }
    }
}

// Virtual functions (calls through a vtable, whose initializer holds function addresses) and a
// table of function pointers in a .global variable.
TEST_F(ptx_engine, VirtualFunctionsAndFunctionPointersCallWhatTheyPointAt) {
    auto p = load("virtual_calls");
    ASSERT_TRUE(p);
    const int n = 300;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = 0.25f * float(i % 17) + 1.0f;
    const uint64_t dx = vram.put(x), area = vram.alloc(4 * n), sides = vram.alloc(4 * n), folded = vram.alloc(4 * n);
    auto o = run(*p, "virtual_calls", 3, 128, {ptr(dx), ptr(area), ptr(sides), ptr(folded), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    const auto got_area = vram.get<float>(area, n);
    const auto got_sides = vram.get<int32_t>(sides, n);
    const auto got_folded = vram.get<float>(folded, n);
    for (int i = 0; i < n; ++i) {
        const float v = x[i];
        const float want_area = i % 3 == 0 ? v * v : i % 3 == 1 ? 3.25f * v * v : 0.5f * v * (v + 1.0f);
        const int want_sides = i % 3 == 0 ? 4 : i % 3 == 1 ? 0 : 3;
        const int op = (i / 3) % 3;
        const float want_fold = op == 0 ? v + 2.0f : op == 1 ? v * 2.0f : std::max(v, 2.0f);
        ASSERT_EQ(got_area[i], want_area) << i;
        ASSERT_EQ(got_sides[i], want_sides) << i;
        ASSERT_EQ(got_folded[i], want_fold) << i;
    }
}

// A call through an address that is no function of the module faults, naming the address.
TEST_F(ptx_engine, AnIndirectCallToANonFunctionFaults) {
    const char* text = R"(.version 9.0
.target sm_75
.address_size 64
.func (.param .b32 r) twice(.param .b32 a)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [a];
	add.s32 %r2, %r1, %r1;
	st.param.b32 [r], %r2;
	ret;
}
.visible .entry k(.param .u64 k_out, .param .u64 k_target)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [k_out];
	ld.param.u64 %rd2, [k_target];
	mov.u64 %rd3, twice;
	setp.eq.s64 %p1, %rd2, 0;
	@!%p1 mov.u64 %rd3, %rd2;
	{
	.param .b32 a0;
	st.param.b32 [a0], 21;
	.param .b32 r0;
	proto : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (r0), %rd3, (a0), proto;
	ld.param.b32 %r1, [r0];
	}
	cvta.to.global.u64 %rd1, %rd1;
	st.global.u32 [%rd1], %r1;
	ret;
}
)";
    std::string error;
    auto p = program::load(text, error);
    ASSERT_TRUE(p) << error;
    const uint64_t out = vram.alloc(4);
    auto good = run(*p, "k", 1, 1, {ptr(out), i64(0)});
    ASSERT_EQ(good.status, CB_OK) << good.message;
    EXPECT_EQ(vram.get<int32_t>(out, 1)[0], 42);
    auto bad = run(*p, "k", 1, 1, {ptr(out), i64(0x1234)});
    EXPECT_EQ(bad.status, CB_ERR_ILLEGAL_ADDRESS);
    EXPECT_NE(bad.message.find("0x1234"), std::string::npos) << bad.message;
}

// sm_90's integer forms, as nvcc -arch=compute_90 writes __vimax_s32_relu, __vimax3_s16x2 and
// __vimin_s16x2_relu: .relu makes a negative result 0, and 16-bit pairs are compared lane by lane.
TEST_F(ptx_engine, ReluAndPackedSixteenBitMinMaxWorkLaneByLane) {
    const char* text = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry pairs(.param .u64 pairs_in, .param .u64 pairs_out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [pairs_in];
	ld.param.u64 %rd2, [pairs_out];
	ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];
	{max.s32.relu %r5, %r1, %r2;}
	st.global.u32 [%rd2], %r5;
	{.reg .b32 t1;
	max.s16x2 t1, %r1, %r2;
	max.s16x2 %r6, t1, %r3;}
	st.global.u32 [%rd2+4], %r6;
	{min.s16x2.relu %r7, %r1, %r2;}
	st.global.u32 [%rd2+8], %r7;
	max.u16x2 %r7, %r1, %r4;
	st.global.u32 [%rd2+12], %r7;
	min.s32.relu %r7, %r1, %r3;
	st.global.u32 [%rd2+16], %r7;
	ret;
}
)";
    std::string error;
    auto p = program::load(text, error);
    ASSERT_TRUE(p) << error;
    auto pack = [](int16_t lo, int16_t hi) { return uint32_t(uint16_t(lo)) | uint32_t(uint16_t(hi)) << 16; };
    const std::vector<uint32_t> in = {pack(-5, 7), pack(3, -9), pack(1, 100), pack(-1, 2)};
    const uint64_t din = vram.put(in), dout = vram.alloc(20);
    ASSERT_EQ(run(*p, "pairs", 1, 1, {ptr(din), ptr(dout)}).status, CB_OK);
    const auto got = vram.get<uint32_t>(dout, 5);
    EXPECT_EQ(got[0], pack(-5, 7)) << "max(0x0007FFFB, 0xFFF70003) as s32";
    EXPECT_EQ(got[1], pack(3, 100));
    EXPECT_EQ(got[2], pack(0, 0)) << "min(-5, 3) and min(7, -9) are negative: 0";
    EXPECT_EQ(got[3], pack(-1, 7)) << "unsigned: 0xFFFF is the largest";
    EXPECT_EQ(got[4], pack(-5, 7)) << "min(0x0007FFFB, 0x00640001) is positive: relu keeps it";
}

// Directed rounding (directed_rounding.cu: __fadd_rz, __ddiv_ru, ...): every operation, mode and
// type against the host's IEEE operation under that rounding mode, over edge values.
template <typename T>
std::vector<T> rounding_inputs(size_t triples, uint64_t seed) {
    using bits_t = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const T edges[] = {T(0),
                       -T(0),
                       T(1),
                       T(-1),
                       T(3),
                       T(0.1),
                       std::numeric_limits<T>::infinity(),
                       -std::numeric_limits<T>::infinity(),
                       std::numeric_limits<T>::quiet_NaN(),
                       std::numeric_limits<T>::max(),
                       -std::numeric_limits<T>::max(),
                       std::numeric_limits<T>::min(),
                       std::numeric_limits<T>::denorm_min(),
                       -std::numeric_limits<T>::denorm_min(),
                       std::nextafter(T(1), T(2)),
                       std::nextafter(T(1), T(0))};
    std::mt19937_64 rng(seed);
    std::vector<T> v(3 * triples);
    for (auto& x : v) {
        switch (rng() % 4) {
        case 0:
            x = edges[rng() % std::size(edges)];
            break;
        case 1: {  // any bits
            const bits_t b = static_cast<bits_t>(rng());
            std::memcpy(&x, &b, sizeof x);
            break;
        }
        default:  // moderate magnitudes, both signs
            x = std::ldexp(T(static_cast<int64_t>(rng() % 2000001) - 1000000), static_cast<int>(rng() % 40) - 20);
        }
    }
    return v;
}

template <typename T>
bool same_or_both_nan(T a, T b) {
    return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

template <typename T>
void check_directed_rounding(const std::vector<T>& in, const std::vector<T>& got, const char* type) {
    using host_reference::host_op, host_reference::host_round;
    const host_op ops[] = {host_op::add, host_op::sub,  host_op::mul, host_op::fma,
                           host_op::div, host_op::sqrt, host_op::rcp};
    const char* op_names[] = {"add", "sub", "mul", "fma", "div", "sqrt", "rcp"};
    const host_round modes[] = {host_round::toward_zero, host_round::down, host_round::up};
    const char* mode_names[] = {"rz", "rm", "rp"};
    for (size_t i = 0; i < in.size() / 3; ++i) {
        const T a = in[3 * i], b = in[3 * i + 1], c = in[3 * i + 2];
        for (int op = 0; op < 7; ++op)
            for (int m = 0; m < 3; ++m) {
                const T want = host_reference::host_rounded(ops[op], modes[m], a, b, c);
                const T have = got[21 * i + 3 * op + m];
                ASSERT_TRUE(same_or_both_nan(want, have))
                    << op_names[op] << "." << mode_names[m] << "." << type << " of " << std::hexfloat << a << ", " << b
                    << ", " << c << ": want " << want << ", engine " << have;
            }
    }
}

TEST_F(ptx_engine, DirectedRoundingOfEveryOperationMatchesTheHostsIeeeResultInThatMode) {
    auto p = load("directed_rounding");
    ASSERT_TRUE(p);
    const int n = 2048;
    const auto f = rounding_inputs<float>(n, 3);
    const auto d = rounding_inputs<double>(n, 4);
    const uint64_t df = vram.put(f), dd = vram.put(d), of = vram.alloc(21 * 4 * n), od = vram.alloc(21 * 8 * n);
    auto o = run(*p, "rounded_float", n / 128, 128, {ptr(df), ptr(of), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    o = run(*p, "rounded_double", n / 128, 128, {ptr(dd), ptr(od), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    check_directed_rounding(f, vram.get<float>(of, 21 * n), "f32");
    check_directed_rounding(d, vram.get<double>(od, 21 * n), "f64");
}

// The cases interval arithmetic relies on, worked out by hand: each bound on its side of the
// exact value, overflow towards zero at the largest finite value, x - x rounded down is -0.
TEST_F(ptx_engine, DirectedRoundingBracketsTheExactResultAtTheEdges) {
    auto p = load("directed_rounding");
    ASSERT_TRUE(p);
    const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
    const std::vector<double> in = {1.0, 3.0, 0.0, big, 2.0, 0.0, 5.0, 5.0, 0.0, tiny, 0.5, 0.0, 2.0, 1.0, 0.0};
    const uint64_t din = vram.put(in), dout = vram.alloc(21 * 8 * 5);
    ASSERT_EQ(run(*p, "rounded_double", 1, 5, {ptr(din), ptr(dout), i64(5)}).status, CB_OK);
    const auto r = vram.get<double>(dout, 21 * 5);
    auto bits = [](double x) {
        uint64_t b;
        std::memcpy(&b, &x, 8);
        return b;
    };
    // 1 / 3: 0x3FD5555555555555 lies below it.
    EXPECT_EQ(bits(r[12]), 0x3FD5555555555555u) << "div.rz";
    EXPECT_EQ(bits(r[13]), 0x3FD5555555555555u) << "div.rm";
    EXPECT_EQ(bits(r[14]), 0x3FD5555555555556u) << "div.rp (the interval sample's upper bound)";
    EXPECT_EQ(r[21 + 6], big) << "mul.rz of an overflow is the largest finite value";
    EXPECT_EQ(r[21 + 7], big) << "mul.rm of a positive overflow";
    EXPECT_EQ(r[21 + 8], std::numeric_limits<double>::infinity()) << "mul.rp of an overflow";
    EXPECT_EQ(bits(r[42 + 4]), 0x8000000000000000u) << "sub.rm: 5 - 5 is -0";
    EXPECT_EQ(bits(r[42 + 5]), 0u) << "sub.rp: 5 - 5 is +0";
    EXPECT_EQ(r[63 + 6], 0.0) << "mul.rz: half the smallest subnormal";
    EXPECT_EQ(r[63 + 8], tiny) << "mul.rp: half the smallest subnormal rounds up to it";
    // sqrt(2) = 1.41421356237309504880...; 0x3FF6A09E667F3BCD lies above it.
    EXPECT_EQ(bits(r[84 + 15]), 0x3FF6A09E667F3BCCu) << "sqrt.rz";
    EXPECT_EQ(bits(r[84 + 17]), 0x3FF6A09E667F3BCDu) << "sqrt.rp";
    EXPECT_EQ(r[84 + 19], 0.5) << "rcp.rm of 2 is exact";
}

// A kernel's by-value parameter has an address (large_param.cu, a 32004-byte struct as NVIDIA's
// LargeKernelParameter sample passes one): nvcc takes it with mov.b64 and loads through it with
// ld.param [%rd], or copies the struct to local memory to pass a device function a pointer.
TEST_F(ptx_engine, ALargeStructParameterIsAddressableByItsParamAddress) {
    auto p = load("large_param");
    ASSERT_TRUE(p);
    struct lookup_table {
        int scale;
        int entries[8000];
    };
    static_assert(sizeof(lookup_table) == 32004);
    auto table = std::make_unique<lookup_table>();
    table->scale = -3;
    for (int i = 0; i < 8000; ++i) table->entries[i] = i * i % 10007 - 5000;
    const int n = 3000;
    std::vector<int> keys(n);
    for (int i = 0; i < n; ++i) keys[i] = (i * 2654435761u) % 1000000;
    const uint64_t dkeys = vram.put(keys), out1 = vram.alloc(4 * n), out2 = vram.alloc(4 * n);
    cb_kernel_arg by_value{};
    by_value.type = CB_ARG_BYTES;
    by_value.size = sizeof(lookup_table);
    by_value.value.bytes = table.get();
    auto o = run(*p, "large_table", (n + 127) / 128, 128, {by_value, ptr(dkeys), ptr(out1), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    o = run(*p, "large_table_by_pointer", (n + 127) / 128, 128, {by_value, ptr(dkeys), ptr(out2), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    const auto got1 = vram.get<int>(out1, n), got2 = vram.get<int>(out2, n);
    for (int i = 0; i < n; ++i) {
        const int k = keys[i] % 8000;
        ASSERT_EQ(got1[i], table->scale * table->entries[k] + table->entries[(7 * i) % 8000]) << i;
        ASSERT_EQ(got2[i], table->entries[k] + table->entries[(k + 1) % 8000]) << i;
    }
}

// cvta.param makes a parameter's address generic (the param window); isspacep.param knows it, a
// generic load reads the parameter, and ld.param past the buffer faults.
TEST_F(ptx_engine, AParameterAddressConvertsToAGenericOneAndStaysInsideTheBuffer) {
    const char* text = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .align 4 .b8 k_param_0[16], .param .u64 k_param_1, .param .u32 k_param_2)
{
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	mov.b64 %rd1, k_param_0;
	cvta.param.u64 %rd2, %rd1;
	ld.u32 %r1, [%rd2+8];
	isspacep.param %p1, %rd2;
	isspacep.global %p2, %rd2;
	selp.u32 %r2, 1, 0, %p1;
	selp.u32 %r3, 1, 0, %p2;
	ld.param.u32 %r4, [k_param_2];
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.param.u32 %r5, [%rd4];
	ld.param.u64 %rd5, [k_param_1];
	st.global.v4.u32 [%rd5], {%r1, %r2, %r3, %r5};
	ret;
}
)";
    std::string error;
    auto p = program::load(text, error);
    ASSERT_TRUE(p) << error;
    const uint32_t words[4] = {11, 22, 33, 44};
    cb_kernel_arg by_value{};
    by_value.type = CB_ARG_BYTES;
    by_value.size = sizeof words;
    by_value.value.bytes = words;
    const uint64_t out = vram.alloc(16);
    auto o = run(*p, "k", 1, 1, {by_value, ptr(out), i64(3)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    EXPECT_EQ(vram.get<uint32_t>(out, 4), (std::vector<uint32_t>{33, 1, 0, 44}));
    o = run(*p, "k", 1, 1, {by_value, ptr(out), i64(1000)});
    EXPECT_EQ(o.status, CB_ERR_ILLEGAL_ADDRESS) << "ld.param past the parameter buffer: " << o.message;
}

// 16-bit atomics (atomics16.cu): atomicAdd on __half, __half2 and __nv_bfloat16 and atomicCAS on
// an unsigned short, from every thread of several blocks at once. The values are multiples of
// 0.25 whose partial sums stay exact in every order, so the sums are exact.
TEST_F(ptx_engine, SixteenBitAtomicsAddAndCompareAndSwapExactly) {
    auto p = load("atomics16");
    ASSERT_TRUE(p);
    const int n = 256;
    std::vector<float> v(n);
    float sum = 0;
    for (int i = 0; i < n; ++i) v[i] = 0.25f * float(i % 5 - 2) + (i == 7 ? 3.0f : 0.0f), sum += v[i];
    const uint64_t dv = vram.put(v), dh = vram.put(std::vector<uint16_t>{0x3C00}),               // 1.0
        dh2 = vram.put(std::vector<uint32_t>{0}), db = vram.put(std::vector<uint16_t>{0xC000}),  // -2.0
        dticket = vram.put(std::vector<uint16_t>{0}), dorder = vram.put(std::vector<uint16_t>(n, 0));
    auto o = run(*p, "atomics16", n / 64, 64, {ptr(dv), ptr(dh), ptr(dh2), ptr(db), ptr(dticket), ptr(dorder), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    auto half_of = [](uint16_t b) {
        _Float16 h;
        std::memcpy(&h, &b, 2);
        return float(h);
    };
    auto bf16_of = [](uint16_t b) {
        const uint32_t f = uint32_t(b) << 16;
        float x;
        std::memcpy(&x, &f, 4);
        return x;
    };
    EXPECT_EQ(half_of(vram.get<uint16_t>(dh, 1)[0]), 1.0f + sum);
    const uint32_t pair = vram.get<uint32_t>(dh2, 1)[0];
    EXPECT_EQ(half_of(uint16_t(pair)), sum) << "low half";
    EXPECT_EQ(half_of(uint16_t(pair >> 16)), -2.0f * sum) << "high half";
    EXPECT_EQ(bf16_of(vram.get<uint16_t>(db, 1)[0]), -2.0f + sum);
    EXPECT_EQ(vram.get<uint16_t>(dticket, 1)[0], n) << "every atomicCAS ticket taken once";
    EXPECT_EQ(vram.get<uint16_t>(dorder, n), std::vector<uint16_t>(n, 1));
}

// cuda_fp16.h's packed compares (set.{eq,lt,gtu}.u32.f16x2, set.le.f16x2.f16x2): a lane is all
// ones (or 1.0) when its compare holds; __hbeq2 and friends want both lanes.
TEST_F(ptx_engine, PackedHalfComparesDecideEachLane) {
    auto p = load("atomics16");
    ASSERT_TRUE(p);
    const int n = 1024;
    std::vector<_Float16> a(2 * n), c(2 * n);
    std::mt19937 rng(23);
    for (int i = 0; i < 2 * n; ++i) {
        a[i] = static_cast<_Float16>(float(rng() % 7) - 3.0f);
        c[i] = rng() % 9 == 0 ? static_cast<_Float16>(NAN) : static_cast<_Float16>(float(rng() % 7) - 3.0f);
    }
    const uint64_t da = vram.put(a), dc = vram.put(c), dboth = vram.alloc(4 * n), dle = vram.alloc(4 * n);
    auto o = run(*p, "half2_compare", n / 128, 128, {ptr(da), ptr(dc), ptr(dboth), ptr(dle), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    const auto both = vram.get<uint32_t>(dboth, n);
    const auto le = vram.get<uint16_t>(dle, 2 * n);
    for (int i = 0; i < n; ++i) {
        auto lanes = [&](auto cmp) { return cmp(a[2 * i], c[2 * i]) && cmp(a[2 * i + 1], c[2 * i + 1]); };
        const uint32_t want = (lanes([](_Float16 x, _Float16 y) { return x == y; }) ? 1u : 0u) |
                              (lanes([](_Float16 x, _Float16 y) { return x < y; }) ? 2u : 0u) |
                              (lanes([](_Float16 x, _Float16 y) { return !(x <= y); }) ? 4u : 0u);
        ASSERT_EQ(both[i], want) << i;
        for (int l = 0; l < 2; ++l)
            ASSERT_EQ(le[2 * i + l], a[2 * i + l] <= c[2 * i + l] ? 0x3C00 : 0) << i << " lane " << l;
    }
}

// bf16 arithmetic as nvcc -arch=compute_90 writes __hfma, __hadd, __hmax, ... on __nv_bfloat16
// and their bf16x2 forms, with cvt to and from f32 and a two-predicate setp.f16x2: each result
// the exact value rounded once to bf16 (nearest, ties to even).
TEST_F(ptx_engine, Bf16ArithmeticRoundsTheExactResultOnce) {
    const char* text = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry bf(.param .u64 bf_in, .param .u64 bf_out)
{
	.reg .pred %p<3>;
	.reg .b16 %rs<20>;
	.reg .b32 %r<12>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<7>;
	ld.param.u64 %rd1, [bf_in];
	ld.param.u64 %rd2, [bf_out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 12;
	add.s64 %rd4, %rd1, %rd3;
	mul.wide.u32 %rd5, %r1, 48;
	add.s64 %rd6, %rd2, %rd5;
	ld.global.f32 %f1, [%rd4];
	ld.global.f32 %f2, [%rd4+4];
	ld.global.f32 %f3, [%rd4+8];
	{  cvt.rn.bf16.f32 %rs1, %f1;}
	{  cvt.rn.bf16.f32 %rs2, %f2;}
	{  cvt.rn.bf16.f32 %rs3, %f3;}
	{fma.rn.bf16 %rs4,%rs1,%rs2,%rs3;
}
	{ add.bf16 %rs5,%rs1,%rs2; }
	{ sub.bf16 %rs6,%rs1,%rs2; }
	{ mul.bf16 %rs7,%rs1,%rs2; }
	{ max.bf16 %rs8,%rs1,%rs2;
}
	{ min.bf16 %rs9,%rs1,%rs2;
}
	{neg.bf16 %rs10,%rs3;
}
	{abs.bf16 %rs11,%rs10;
}
	st.global.v4.u16 [%rd6], {%rs4, %rs5, %rs6, %rs7};
	st.global.v4.u16 [%rd6+8], {%rs8, %rs9, %rs10, %rs11};
	{ cvt.rn.bf16x2.f32 %r2, %f2, %f1;}
	{ cvt.rn.bf16x2.f32 %r3, %f3, %f2;}
	{fma.rn.bf16x2 %r4,%r2,%r3,%r2;
}
	{ max.bf16x2 %r5,%r2,%r3;
}
	add.rn.bf16x2 %r6, %r2, %r3;
	{ set.lt.u32.bf16x2 %r7,%r2,%r3;
}
	{ cvt.rn.f16x2.f32 %r8, %f2, %f1;}
	{ cvt.rn.f16x2.f32 %r9, %f3, %f2;}
	setp.lt.f16x2 %p1|%p2, %r8, %r9;
	selp.u32 %r10, 1, 0, %p1;
	selp.u32 %r11, 2, 0, %p2;
	or.b32 %r10, %r10, %r11;
	st.global.v4.u32 [%rd6+16], {%r4, %r5, %r6, %r7};
	{ cvt.f32.bf16 %f4, %rs4;}
	st.global.f32 [%rd6+32], %f4;
	st.global.u32 [%rd6+36], %r10;
	fma.rn.relu.bf16 %rs12, %rs1, %rs2, %rs3;
	st.global.u16 [%rd6+40], %rs12;
	ret;
}
)";
    std::string error;
    auto p = program::load(text, error);
    ASSERT_TRUE(p) << error;
    const int n = 1024;
    std::vector<float> in(3 * n);
    std::mt19937 rng(29);
    for (auto& x : in)  // magnitudes 2^-10..2^10: a*b+c is exact in double
        x = std::ldexp(float(int(rng() % 511) - 255), int(rng() % 12) - 16) * (rng() % 3 == 0 ? 1.0f + 0x1p-12f : 1.0f);
    in[0] = 1.0f + 0x1p-7f, in[1] = 0x1p-8f, in[2] = 1.0f;  // the ties below
    const uint64_t din = vram.put(in), dout = vram.alloc(48 * n);
    auto o = run(*p, "bf", 1, n, {ptr(din), ptr(dout)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    auto bf16 = [](double x) -> uint16_t {  // round to nearest even, for normal values
        if (x == 0) return std::signbit(x) ? 0x8000 : 0;
        const int e = std::ilogb(x);
        const float r = static_cast<float>(std::ldexp(std::nearbyint(std::ldexp(x, 7 - e)), e - 7));
        uint32_t b;
        std::memcpy(&b, &r, 4);
        return uint16_t(b >> 16);
    };
    auto value = [](uint16_t b) {
        const uint32_t f = uint32_t(b) << 16;
        float x;
        std::memcpy(&x, &f, 4);
        return double(x);
    };
    const auto out = vram.get<uint16_t>(dout, 24 * n);
    for (int i = 0; i < n; ++i) {
        const uint16_t ab = bf16(in[3 * i]), bb = bf16(in[3 * i + 1]), cb = bf16(in[3 * i + 2]);
        const double a = value(ab), b = value(bb), c = value(cb);
        const uint16_t want[8] = {bf16(a * b + c),       bf16(a + b),          bf16(a - b),
                                  bf16(a * b),           bf16(std::max(a, b)), bf16(std::min(a, b)),
                                  uint16_t(cb ^ 0x8000), uint16_t(cb & 0x7FFF)};
        const char* names[8] = {"fma", "add", "sub", "mul", "max", "min", "neg", "abs"};
        for (int k = 0; k < 8; ++k)
            ASSERT_EQ(out[24 * i + k], want[k]) << names[k] << ".bf16 of " << a << ", " << b << ", " << c;
        // pairs {lo, hi}: x = {a, b}, y = {b, c}
        const uint16_t fma2[2] = {bf16(a * b + a), bf16(b * c + b)},
                       max2[2] = {bf16(std::max(a, b)), bf16(std::max(b, c))}, add2[2] = {bf16(a + b), bf16(b + c)};
        for (int l = 0; l < 2; ++l) {
            ASSERT_EQ(out[24 * i + 8 + l], fma2[l]) << "fma.rn.bf16x2 lane " << l << " of " << i;
            ASSERT_EQ(out[24 * i + 10 + l], max2[l]) << "max.bf16x2 lane " << l << " of " << i;
            ASSERT_EQ(out[24 * i + 12 + l], add2[l]) << "add.rn.bf16x2 lane " << l << " of " << i;
        }
        ASSERT_EQ(out[24 * i + 14], a < b ? 0xFFFF : 0) << "set.lt.u32.bf16x2 low lane";
        ASSERT_EQ(out[24 * i + 15], b < c ? 0xFFFF : 0) << "set.lt.u32.bf16x2 high lane";
        float back;
        std::memcpy(&back, &out[24 * i + 16], 4);
        ASSERT_EQ(back, value(want[0])) << "cvt.f32.bf16";
        const _Float16 h[3] = {static_cast<_Float16>(in[3 * i]), static_cast<_Float16>(in[3 * i + 1]),
                               static_cast<_Float16>(in[3 * i + 2])};
        const uint32_t predicates = (h[0] < h[1] ? 1u : 0u) | (h[1] < h[2] ? 2u : 0u);
        uint32_t got_predicates;
        std::memcpy(&got_predicates, &out[24 * i + 18], 4);
        ASSERT_EQ(got_predicates, predicates) << "setp.lt.f16x2 p (low) | q (high) of " << i;
        const bool negative = (want[0] & 0x8000) && want[0] != 0x8000;
        ASSERT_EQ(out[24 * i + 20], negative ? 0 : want[0]) << "fma.rn.relu.bf16: a negative result is 0";
    }
    EXPECT_EQ(out[1], 0x3F82) << "add: 1 + 2^-7 + 2^-8 ties to the even 1 + 2^-6";
    EXPECT_EQ(out[0], 0x3F81) << "fma: 1 + 2^-8 + 2^-15 is past the tie at 1 + 2^-8: up to 1 + 2^-7";
}

TEST_F(ptx_engine, BitonicSortInSharedMemorySortsEveryBlock) {
    auto p = load("bitonic_sort");
    ASSERT_TRUE(p);
    const int blocks = 3;
    std::vector<int> data(1024 * blocks);
    std::mt19937 rng(7);
    for (auto& v : data) v = static_cast<int>(rng() % 20001) - 10000;
    const uint64_t d = vram.put(data);
    auto out = run(*p, "bitonic_sort1024", blocks, 1024, {ptr(d)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<int>(d, data.size());
    for (int b = 0; b < blocks; ++b) {
        std::vector<int> want(data.begin() + b * 1024, data.begin() + (b + 1) * 1024);
        std::sort(want.begin(), want.end());
        ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin() + b * 1024)) << "block " << b;
    }
}

TEST_F(ptx_engine, SharedAndGlobalAtomicsCountAHistogramExactly) {
    auto p = load("histogram");
    ASSERT_TRUE(p);
    const int n = 300007;
    std::vector<uint8_t> data(n);
    for (int i = 0; i < n; ++i) data[i] = static_cast<uint8_t>((i * 2654435761u) >> 24);
    const uint64_t dd = vram.put(data), dbins = vram.put(std::vector<uint32_t>(256, 0));
    auto out = run(*p, "histogram256", 16, 256, {ptr(dd), i64(n), ptr(dbins)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    std::vector<uint32_t> want(256, 0);
    for (uint8_t v : data) ++want[v];
    EXPECT_EQ(vram.get<uint32_t>(dbins, 256), want);
}

TEST_F(ptx_engine, SixtyFourBitAtomicsAcrossBlocks) {
    auto p = load("atomics64");
    ASSERT_TRUE(p);
    const int n = 20011;
    std::vector<int64_t> v(n);
    for (int i = 0; i < n; ++i) v[i] = (int64_t(i) * 1000003) % 7919 - 3000 + (int64_t(i) << 20);
    const uint64_t dv = vram.put(v), dsum = vram.put(std::vector<uint64_t>{0}),
                   dmax = vram.put(std::vector<int64_t>{INT64_MIN}), dhalf = vram.put(std::vector<double>{0.0});
    auto out = run(*p, "atomics64", (n + 127) / 128, 128, {ptr(dv), i64(n), ptr(dsum), ptr(dmax), ptr(dhalf)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    uint64_t sum = 0;
    int64_t mx = INT64_MIN;
    double half = 0;
    for (int64_t x : v) sum += static_cast<uint64_t>(x), mx = std::max(mx, x), half += double(x & 0xffff) * 0.5;
    EXPECT_EQ(vram.get<uint64_t>(dsum, 1)[0], sum);
    EXPECT_EQ(vram.get<int64_t>(dmax, 1)[0], mx);
    EXPECT_EQ(vram.get<double>(dhalf, 1)[0], half) << "sums of halves of 16-bit values are exact in any order";
}

TEST_F(ptx_engine, ADeviceFunctionCallWithALocalArray) {
    auto p = load("device_call");
    ASSERT_TRUE(p);
    const int n = 5003;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = float(i % 29) * 0.125f;
    const uint64_t din = vram.put(in), dout = vram.alloc(n * 4);
    auto out = run(*p, "window_sums", (n + 127) / 128, 128, {ptr(din), ptr(dout), i64(n)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto got = vram.get<float>(dout, n);
    for (int i = 0; i < n; ++i) {
        float s = 0.0f;
        for (int k = 0; k < std::min(8, n - i); ++k) s = std::fma(in[i + k], float(k + 1), s);
        float plain = 0.0f;
        for (int k = 0; k < std::min(8, n - i); ++k) plain += in[i + k] * float(k + 1);
        ASSERT_TRUE(got[i] == s || got[i] == plain) << i << ": " << got[i];
    }
}

TEST_F(ptx_engine, PrintfWritesEachThreadsLineToStdout) {
    auto p = load("printf");
    ASSERT_TRUE(p);
    std::vector<float> values(64);
    for (int i = 0; i < 64; ++i) values[i] = float(i) * 0.5f;
    const uint64_t d = vram.put(values);
    testing::internal::CaptureStdout();
    auto out = run(*p, "print_values", 2, 32, {ptr(d)});
    const std::string printed = testing::internal::GetCapturedStdout();
    ASSERT_EQ(out.status, CB_OK) << out.message;
    EXPECT_NE(printed.find("block 0 thread 0 value 0.000000\n"), std::string::npos) << printed;
    EXPECT_NE(printed.find("block 1 thread 16 value 24.000000\n"), std::string::npos) << printed;
}

// What CUDA's headers put into ordinary kernels (cuda_header_intrinsics.cu): registers declared in
// inline asm's { } blocks, double sin/cos of huge arguments through a slow path declared before
// the kernel and defined after it (with carry chains), and bfind for __ffs.
TEST_F(ptx_engine, CudaHeaderIntrinsicsRunAsNvccEmitsThem) {
    auto p = load("cuda_header_intrinsics");
    ASSERT_TRUE(p);
    const int n = 2048;
    std::vector<double> x(n);
    std::vector<uint32_t> u(n), h(n);
    for (int i = 0; i < n; ++i) {
        x[i] = i < n / 2 ? -1e15 + 2e15 * i / (n / 2) : -10.0 + 20.0 * (i - n / 2) / (n / 2);
        u[i] = static_cast<uint32_t>(uint64_t(i) * 2654435761u);
        const _Float16 lo = static_cast<_Float16>(0.25f * float(i % 97) - 7.0f), hi = static_cast<_Float16>(float(i));
        uint16_t lo_bits, hi_bits;
        std::memcpy(&lo_bits, &lo, 2);
        std::memcpy(&hi_bits, &hi, 2);
        h[i] = lo_bits | uint32_t(hi_bits) << 16;
    }
    u[0] = 0, u[1] = 0x80000000u;
    const uint64_t dx = vram.put(x), dh = vram.put(h), du = vram.put(u);
    const uint64_t trig = vram.alloc(n * 8), halves = vram.alloc(n * 8), bits = vram.alloc(n * 8);
    auto out = run(*p, "header_intrinsics", n / 128, 128,
                   {ptr(dx), ptr(dh), ptr(du), ptr(trig), ptr(halves), ptr(bits), i64(n)});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    const auto t = vram.get<double>(trig, n);
    const auto f = vram.get<float>(halves, 2 * n);
    const auto b = vram.get<int32_t>(bits, 2 * n);
    auto ffs = [](uint64_t v) { return v ? __builtin_ctzll(v) + 1 : 0; };
    for (int i = 0; i < n; ++i) {
        ASSERT_NEAR(t[i], std::sin(x[i]) + 2.0 * std::cos(x[i]), 4e-15) << "x = " << x[i];
        uint16_t lo_bits = static_cast<uint16_t>(h[i]), hi_bits = static_cast<uint16_t>(h[i] >> 16);
        _Float16 lo, hi;
        std::memcpy(&lo, &lo_bits, 2);
        std::memcpy(&hi, &hi_bits, 2);
        ASSERT_EQ(f[2 * i], float(lo)) << i;
        ASSERT_EQ(f[2 * i + 1], float(hi)) << i;
        ASSERT_EQ(b[2 * i], ffs(u[i])) << "__ffs(" << u[i] << ")";
        const int clz = u[i] ? __builtin_clz(u[i]) : 32;
        ASSERT_EQ(b[2 * i + 1], clz + 64 * ffs(uint64_t(u[i]) << 20)) << u[i];
    }
}

// Packed half pairs (.f16x2): each lane rounded once, as the GPU does; max takes +0 over -0.
TEST_F(ptx_engine, PackedHalfPairsRoundEachLaneOnce) {
    auto p = load("cuda_header_intrinsics");
    ASSERT_TRUE(p);
    const int n = 4096;  // pairs
    std::vector<_Float16> a(2 * n), b(2 * n), c(2 * n);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> d(-8.0f, 8.0f);
    for (int i = 0; i < 2 * n; ++i)
        a[i] = static_cast<_Float16>(d(rng)), b[i] = static_cast<_Float16>(d(rng) / 4),
        c[i] = static_cast<_Float16>(d(rng));
    a[0] = static_cast<_Float16>(-0.0f), b[0] = static_cast<_Float16>(0.0f);
    const uint64_t da = vram.put(a), db = vram.put(b), dc = vram.put(c), out = vram.alloc(8 * n * 2);
    auto o = run(*p, "half2_math", n / 128, 128, {ptr(da), ptr(db), ptr(dc), ptr(out), i64(n)});
    ASSERT_EQ(o.status, CB_OK) << o.message;
    const auto got = vram.get<_Float16>(out, 8 * n);
    auto bits = [](_Float16 h) {
        uint16_t v;
        std::memcpy(&v, &h, 2);
        return v;
    };
    for (int i = 0; i < 2 * n; ++i) {
        const int pair = i / 2, lane = i % 2;
        const double exact_fma = double(a[i]) * double(b[i]) + double(c[i]);  // exact in double for these
        const _Float16 want[4] = {static_cast<_Float16>(double(a[i]) + double(b[i])),
                                  static_cast<_Float16>(double(a[i]) * double(b[i])),
                                  static_cast<_Float16>(std::min(1.0, std::max(0.0, exact_fma))),
                                  bits(a[i]) == 0x8000 && bits(b[i]) == 0 ? b[i] : std::max(a[i], b[i])};
        for (int k = 0; k < 4; ++k)
            ASSERT_EQ(bits(got[8 * pair + 2 * k + lane]), bits(want[k])) << "op " << k << ", element " << i;
    }
}

// Registers declared inside a { } block belong to it: two blocks may use the same name, and a
// block's %r1 hides the function's only until the block ends.
TEST_F(ptx_engine, RegistersDeclaredInABlockAreTheBlocksOwn) {
    const char* text =
        ".version 9.0\n.target sm_75\n.address_size 64\n"
        ".visible .entry shadow(.param .u64 out)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n"
        "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, 7;\n"
        "{\n.reg .b32 %r1, low;\nmov.u32 %r1, 5;\nmov.u32 low, 9;\nadd.u32 %r2, %r1, low;\n}\n"
        "{\n.reg .b32 low;\nmov.u32 low, 100;\nadd.u32 %r2, %r2, low;\n}\n"
        "add.u32 %r2, %r2, %r1;\nst.global.u32 [%rd2], %r2;\nret;\n}\n";
    std::string error;
    auto p = program::load(text, error);
    ASSERT_TRUE(p) << error;
    const uint64_t out = vram.alloc(4);
    ASSERT_EQ(run(*p, "shadow", 1, 1, {ptr(out)}).status, CB_OK);
    EXPECT_EQ(vram.get<uint32_t>(out, 1)[0], 5u + 9u + 100u + 7u);
}

// assert() in a kernel: the failing thread prints CUDA's line to stderr and the launch fails.
TEST_F(ptx_engine, AFailedAssertPrintsCudasLineAndFailsTheLaunch) {
    auto p = load("cuda_header_intrinsics");
    ASSERT_TRUE(p);
    const int n = 512;
    std::vector<float> v(n, 2.0f);
    const uint64_t dv = vram.put(v);
    auto fine = run(*p, "checked_scale", n / 128, 128, {ptr(dv), f64(1.5), i64(n)});
    ASSERT_EQ(fine.status, CB_OK) << fine.message;
    EXPECT_EQ(vram.get<float>(dv, n)[n - 1], 3.0f);
    v[300] = -1.0f;  // block 2, thread 44
    const uint64_t bad = vram.put(v);
    testing::internal::CaptureStderr();
    auto failed = run(*p, "checked_scale", n / 128, 128, {ptr(bad), f64(1.5), i64(n)});
    const std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(failed.status, CB_ERR_ASSERT);
    EXPECT_NE(failed.message.find("device-side assertion failed"), std::string::npos) << failed.message;
    EXPECT_NE(printed.find("cuda_header_intrinsics.cu:24: "), std::string::npos) << printed;
    EXPECT_NE(printed.find("block: [2,0,0], thread: [44,0,0] Assertion `v[i] >= 0.0f` failed."), std::string::npos)
        << printed;
}

TEST_F(ptx_engine, AStoreOutsideMemoryFailsTheLaunchWithItsAddress) {
    auto p = load("oob_store");
    ASSERT_TRUE(p);
    const uint64_t d = vram.alloc(4096);
    auto out = run(*p, "store_far_out_of_bounds", 4, 64, {ptr(d), i64(256)});
    EXPECT_EQ(out.status, CB_ERR_ILLEGAL_ADDRESS);
    EXPECT_NE(out.message.find("illegal address 0x"), std::string::npos) << out.message;
}

TEST_F(ptx_engine, AnAccessToAnUnmappedPageFaultsAndAMappedOneDoesNot) {
    auto p = load("saxpy");
    ASSERT_TRUE(p);
    const std::vector<float> x(64, 1.0f), y(64, 2.0f);
    const uint64_t dx = vram.put(x);
    const uint64_t dy = vram.alloc(1u << 16);  // its own page
    std::vector<uint8_t> pages((vram.bytes.size() >> 16) + 1, 1);
    pages[(dy - fake_vram::base) >> 16] = 0;
    launch_request r;
    r.grid[0] = 1;
    r.block[0] = 64;
    std::string error;
    const std::vector<cb_kernel_arg> args = {i64(64), f64(1.0), ptr(dx), ptr(dy)};
    ASSERT_EQ(p->pack_arguments(0, args.data(), args.size(), r.params, error), CB_OK) << error;
    device_memory memory = vram.memory();
    memory.page_map = pages.data();
    auto out = p->launch(r, memory, on_engine, {});
    EXPECT_EQ(out.status, CB_ERR_ILLEGAL_ADDRESS) << out.message;
    pages[(dy - fake_vram::base) >> 16] = 1;
    out = p->launch(r, memory, on_engine, {});
    EXPECT_EQ(out.status, CB_OK) << out.message;
}

std::string refusal_of(const std::string& text);  // below: the error of a module that must not load

// Texture fetches through texture objects load (texture_fetch.cpp); surface reductions and
// queries are still refused, naming the instruction and its line.
TEST_F(ptx_engine, ATextureFetchLoadsAndSurfaceReductionsAndQueriesAreRefused) {
    std::string error;
    EXPECT_TRUE(program::load(corpus("texture_fetch"), error)) << error;
    const std::string head =
        ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
        "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n\t.reg .f32 %f<2>;\n\t.reg .b16 %rs<2>;\n";
    for (const char* instruction : {"suq.width.b32 %r1, [%rd1];", "sured.b.add.1d.u32.trap [%rd1, {%r1}], %r2;"}) {
        const std::string refused = refusal_of(head + "\t" + instruction + "\n\tret;\n}\n");
        const std::string opcode = std::string(instruction).substr(0, std::string(instruction).find(' '));
        EXPECT_NE(refused.find("line 11"), std::string::npos) << instruction << ": " << refused;
        EXPECT_NE(refused.find(opcode), std::string::npos) << instruction << ": " << refused;
    }
}

TEST_F(ptx_engine, ArgumentsAreMatchedToTheParamList) {
    auto p = load("saxpy");
    ASSERT_TRUE(p);
    std::vector<uint8_t> params;
    std::string error;
    const std::vector<cb_kernel_arg> too_few = {i64(1), f64(1.0)};
    EXPECT_EQ(p->pack_arguments(0, too_few.data(), too_few.size(), params, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("2 arguments for 4 parameters"), std::string::npos) << error;
    const std::vector<cb_kernel_arg> float_as_ptr = {i64(1), f64(1.0), f64(2.0), ptr(0x1000)};
    EXPECT_EQ(p->pack_arguments(0, float_as_ptr.data(), float_as_ptr.size(), params, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("parameter 2 (saxpy_param_2)"), std::string::npos) << error;
    const std::vector<cb_kernel_arg> too_big = {i64(int64_t(1) << 40), f64(1.0), ptr(0x1000), ptr(0x1000)};
    EXPECT_EQ(p->pack_arguments(0, too_big.data(), too_big.size(), params, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("does not fit"), std::string::npos) << error;
}

// nvcc declares a __managed__ variable as `.global .attribute(.managed)`: to the engine an ordinary
// module variable with its initial value (the CUDA runtime keeps the host's copy in agreement).
TEST_F(ptx_engine, AManagedVariableIsAModuleVariableWithItsInitialValue) {
    std::string error;
    auto p = program::load(
        ".version 9.0\n.target sm_75\n.address_size 64\n"
        ".global .attribute(.managed) .align 4 .u32 counter = 5;\n"
        ".global .attribute(.managed) .align 4 .b8 data[64];\n"
        ".visible .entry k()\n{\n ret;\n}\n",
        error);
    ASSERT_TRUE(p) << error;
    module_symbol counter, data;
    ASSERT_TRUE(p->find_symbol("counter", counter));
    ASSERT_TRUE(p->find_symbol("data", data));
    EXPECT_EQ(counter.size, 4u);
    EXPECT_EQ(data.size, 64u);
}

TEST_F(ptx_engine, SyntaxErrorsNameTheLine) {
    std::string error;
    EXPECT_FALSE(
        program::load(".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(\n{\n ret;\n}\n", error));
    EXPECT_NE(error.find("line "), std::string::npos) << error;
    EXPECT_FALSE(program::load(
        ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n frobnicate.u32 %r1;\n}\n", error));
    EXPECT_NE(error.find("line 6"), std::string::npos) << error;
    EXPECT_NE(error.find("frobnicate"), std::string::npos) << error;
}

// `while (*flag == 0) {}`, as nvcc writes it: a loop a block may never leave. One version with a
// barrier after the loop, so the same loop also runs in the engine's general pass over threads.
const char* spin_kernel = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry spin(.param .u64 spin_flag)
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [spin_flag];
	cvta.to.global.u64 %rd2, %rd1;
$L_wait:
	ld.volatile.global.u32 %r1, [%rd2];
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra $L_wait;
	ret;
}
.visible .entry spin_then_sync(.param .u64 spin_then_sync_flag)
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [spin_then_sync_flag];
	cvta.to.global.u64 %rd2, %rd1;
$L_wait2:
	ld.volatile.global.u32 %r1, [%rd2];
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra $L_wait2;
	bar.sync 0;
	ret;
}
)";

// A launch whose blocks never end stops once its abort check says so (a reset, the device
// closing): the loop polls it at its back-edge, and the launch reports the abandon.
TEST_F(ptx_engine, AKernelThatNeverEndsStopsWhenItsLaunchIsCancelled) {
    std::string error;
    auto p = program::load(spin_kernel, error);
    ASSERT_TRUE(p) << error;
    for (const char* kernel : {"spin", "spin_then_sync"}) {
        const uint64_t flag = vram.put(std::vector<uint32_t>{0});
        launch_request r;
        r.kernel = static_cast<size_t>(p->find(kernel));
        r.grid[0] = 4;
        r.block[0] = 64;
        ASSERT_EQ(p->pack_arguments(r.kernel, std::vector<cb_kernel_arg>{ptr(flag)}.data(), 1, r.params, error), CB_OK)
            << error;
        std::atomic<bool> cancel{false};
        std::atomic<uint64_t> asked{0};
        const std::function<bool()> abort = [&] {
            asked.fetch_add(1);
            return cancel.load();
        };
        std::thread canceller([&] {
            while (asked.load() < 8) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // inside the loop
            cancel.store(true);
        });
        const launch_outcome out = p->launch(r, vram.memory(), on_engine, abort);
        canceller.join();
        EXPECT_EQ(out.status, CB_ERR_DEVICE_LOST) << kernel << ": " << out.message;
        EXPECT_NE(out.message.find("abandoned"), std::string::npos) << out.message;
    }
}

// The same loop, released: polling changes nothing for a loop that ends.
TEST_F(ptx_engine, ALoopThatEndsRunsToItsEndWithPollingOn) {
    std::string error;
    auto p = program::load(spin_kernel, error);
    ASSERT_TRUE(p) << error;
    const uint64_t flag = vram.put(std::vector<uint32_t>{1});
    launch_request r;
    r.kernel = static_cast<size_t>(p->find("spin_then_sync"));
    r.grid[0] = 4;
    r.block[0] = 64;
    ASSERT_EQ(p->pack_arguments(r.kernel, std::vector<cb_kernel_arg>{ptr(flag)}.data(), 1, r.params, error), CB_OK);
    const launch_outcome out = p->launch(r, vram.memory(), on_engine, [] { return false; });
    EXPECT_EQ(out.status, CB_OK) << out.message;
}

// A module that breaks a limit is refused, naming the limit, before anything is sized by it: none
// of these may take memory in proportion to the number it gives.
std::string kernel_with(const std::string& header, const std::string& declarations, const std::string& params = "") {
    return header + ".visible .entry k(" + params + ")\n{\n" + declarations + "\n\tret;\n}\n";
}
const std::string usual_header = ".version 9.0\n.target sm_75\n.address_size 64\n";

std::string refusal_of(const std::string& text) {
    std::string error;
    cb_status st = CB_OK;
    auto p = program::load(text, error, &st);
    EXPECT_FALSE(p) << text;
    EXPECT_NE(st, CB_OK);
    return error;
}

// What the engine still does not run is refused at load, naming the instruction and its line.
TEST_F(ptx_engine, WhatStillCannotRunIsRefusedAtLoadNamingTheInstructionAndLine) {
    const std::string head =
        ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
        "\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .f64 %fd<4>;\n"
        "\t.reg .b64 %rd<4>;\n";  // the instruction is on line 11
    for (const char* instruction :
         {"vadd.u32.u32.u32.add %r1, %r2, %r3, %r1;", "vabsdiff4.u32.u32.u32.sat.add %r1, %r2, %r3, %r1;",
          "cvt.rz.f32.f64 %f1, %fd1;", "add.s16x2 %r1, %r2, %r3;", "fma.rz.bf16 %rs1, %rs2, %rs3, %rs1;",
          "atom.global.exch.b16 %rs1, [%rd1], %rs2;", "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;",
          "add.rz.f16 %rs1, %rs2, %rs3;",
          // Tensor-core forms the engine does not compute: Volta's m8n8k4 quad-pairs, 4-bit
          // mma.sync and wmma, 8-bit ldmatrix and stmatrix.
          "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f1, %f2, %f3, %f1, %f2}, {%r1, %r2}, "
          "{%r1, %r2}, {%f1, %f2, %f3, %f1, %f2, %f3, %f1, %f2};",
          "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%r1, %r2, %r3, %r1}, {%r1, %r2, %r3, %r1}, {%r1, %r2}, "
          "{%r1, %r2, %r3, %r1};",
          "wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r1}, [%rd1], %r2;",
          "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%rd1];",
          "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%rd1], {%r1};",
          // Hopper's bulk copies (TMA) and mbarrier transaction counts.
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];",
          "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;"}) {
        const std::string error = refusal_of(head + "\t" + instruction + "\n\tret;\n}\n");
        const std::string opcode = std::string(instruction).substr(0, std::string(instruction).find(' '));
        EXPECT_NE(error.find("line 11"), std::string::npos) << instruction << ": " << error;
        EXPECT_NE(error.find(opcode), std::string::npos) << instruction << ": " << error;
    }
}

TEST_F(ptx_engine, CountsPastWhatAGpuAllowsAreRefusedNamingTheLimit) {
    struct refused {
        std::string text;
        std::string says;
    } cases[] = {
        {kernel_with(usual_header, "\t.reg .b32 %big<2000000000>;"), "2000000000 registers in one declaration"},
        {kernel_with(usual_header, "\t.reg .b32 %r<0>;"), "registers in one declaration"},
        {kernel_with(".version 99.9\n.target sm_75\n.address_size 64\n", ""), ".version 99.9"},
        {kernel_with(".version nine\n.target sm_75\n.address_size 64\n", ""), "not a PTX ISA version"},
        {kernel_with(".version 9.0\n.target sm_99999\n.address_size 64\n", ""), ".target sm_99999"},
        {kernel_with(usual_header, "\t.shared .align 4 .b8 s[4294967296];"), "shared memory per block"},
        {kernel_with(usual_header, "\t.shared .align 4 .b8 s[65536][65537];"), "more than 2^32 array elements"},
        {kernel_with(usual_header, "\t.shared .align 4 .b8 s[300000];"), "shared memory per block"},
        {kernel_with(usual_header, "\t.local .align 4 .b8 l[600000];"), "local memory per thread"},
        {kernel_with(usual_header, "", ".param .align 4 .b8 p[40000]"), "bytes of parameters"},
        {kernel_with(usual_header, "\t.shared .align 3 .b8 s[8];"), "power of two"},
        {kernel_with(usual_header, "") + kernel_with("", ""), "'k' is defined twice"},
        {usual_header + ".const .align 4 .b8 c[70000];\n" + kernel_with("", ""), "constant memory"},
        {usual_header + ".shared .align 4 .b8 g[200000];\n" + kernel_with("", "\t.shared .align 4 .b8 s[100000];"),
         "300000 bytes of shared memory per block"},
        {kernel_with(usual_header, std::string(300, '{') + std::string(300, '}')), "nested"},
    };
    for (const auto& c : cases) {
        const std::string error = refusal_of(c.text);
        EXPECT_NE(error.find(c.says), std::string::npos) << "expected '" << c.says << "' in: " << error;
    }
}

// A block smaller than a warp: the lanes past its last thread do not take part, and a shuffle
// from one reads 0 (NVIDIA's reduction sample sums its last few partial results with blocks of 1
// to 16 threads, shuffling down by 16, 8, 4, 2, 1; it read the lane's own value instead and
// multiplied the sum; its kernel 7 does the same with 8 of 32 lanes in the member mask).
TEST_F(ptx_engine, AShuffleFromALaneTheBlockDoesNotHaveReadsZero) {
    const char* text = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry sum_down(.param .u64 sum_down_out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [sum_down_out];
	mov.u32 %r1, %tid.x;
	add.s32 %r2, %r1, 1;
	shfl.sync.down.b32 %r3, %r2, 16, 31, -1;
	add.s32 %r2, %r2, %r3;
	shfl.sync.down.b32 %r3, %r2, 8, 31, -1;
	add.s32 %r2, %r2, %r3;
	shfl.sync.down.b32 %r3, %r2, 4, 31, -1;
	add.s32 %r2, %r2, %r3;
	shfl.sync.down.b32 %r3, %r2, 2, 31, -1;
	add.s32 %r2, %r2, %r3;
	shfl.sync.down.b32 %r3, %r2, 1, 31, -1;
	add.s32 %r2, %r2, %r3;
	setp.ne.s32 %p1, %r1, 0;
	@%p1 bra done;
	st.global.u32 [%rd1], %r2;
done:
	ret;
}
)";
    std::string error;
    auto p = program::load(text, error);
    ASSERT_TRUE(p) << error;
    for (uint32_t threads : {1u, 2u, 5u, 16u, 32u}) {
        const uint64_t out = vram.put(std::vector<int32_t>{-1});
        const auto r = run(*p, "sum_down", 1, threads, {ptr(out)});
        ASSERT_EQ(r.status, CB_OK) << r.message;
        EXPECT_EQ(vram.get<int32_t>(out, 1)[0], int32_t(threads * (threads + 1) / 2)) << threads << " threads";
    }
}

// __syncthreads_count / _and / _or (bar.red): every thread gets the block's answer, block by
// block (3 blocks of 96 threads: each decides differently).
TEST_F(ptx_engine, BarrierReductionsGiveEveryThreadTheBlocksCountAndOr) {
    auto p = load("barrier_reduction");
    const uint32_t threads = 96, blocks = 3;
    std::vector<int32_t> v(threads * blocks);
    for (uint32_t i = 0; i < v.size(); ++i) v[i] = int32_t(i % threads);         // 0..95 in every block
    v[threads + 5] = 500;                                                        // block 1: one large
    for (uint32_t i = 0; i < threads; ++i) v[2 * threads + i] = 1 + int32_t(i);  // block 2: all positive
    const uint64_t in = vram.put(v), out = vram.alloc(v.size() * 4);
    const auto r = run(*p, "_Z13barrier_votesPKiPi", blocks, threads, {ptr(in), ptr(out)});
    ASSERT_EQ(r.status, CB_OK) << r.message;
    const auto got = vram.get<int32_t>(out, v.size());
    for (uint32_t b = 0; b < blocks; ++b) {
        int count = 0, all = 1, any = 0;
        for (uint32_t t = 0; t < threads; ++t) {
            const int x = v[b * threads + t];
            count += x > 10, all &= x > 0, any |= x > 100;
        }
        for (uint32_t t = 0; t < threads; ++t)
            ASSERT_EQ(got[b * threads + t], count * 4 + all * 2 + any) << "block " << b << " thread " << t;
    }
}

}  // namespace
}  // namespace cudabridge::nv::ptx
