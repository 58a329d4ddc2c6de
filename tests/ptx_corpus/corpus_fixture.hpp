// The corpus tests' fixture: a runtime over the simulated eGPU, the corpus files, and helpers to
// upload, download and launch as a CUDA program would.
#pragma once

#include "host_fixture.hpp"

#include <cudabridge/host/runtime.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cudabridge::test {

using host::runtime;

// A deterministic spread of 32-bit values (splitmix64's finaliser).
inline uint32_t mix(uint64_t i) {
    uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<uint32_t>((z ^ (z >> 31)) >> 16);
}

// A float in [lo, hi) picked by i.
inline float spread(uint64_t i, float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(mix(i) % 1000000u) / 1000000.0f;
}

inline unsigned blocks_for(size_t n, unsigned block) { return static_cast<unsigned>((n + block - 1) / block); }

// IEEE binary16 <-> float on the host, round to nearest even (as cvt.rn.f16.f32 rounds).
inline uint16_t to_half(float f) {
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    const float a = std::fabs(f);
    if (std::isnan(f)) return static_cast<uint16_t>(sign | 0x7e00);
    if (a >= 65520.0f) return static_cast<uint16_t>(sign | 0x7c00);  // at or past the midpoint above 65504: infinity
    if (a < 0x1p-14f)
        return static_cast<uint16_t>(sign |
                                     static_cast<uint16_t>(std::nearbyint(a * 0x1p24f)));  // subnormal (or 0x400)
    int e = 0;
    (void)std::frexp(a, &e);                                                // a = m * 2^e, m in [0.5, 1)
    auto m = static_cast<uint32_t>(std::nearbyint(std::ldexp(a, 11 - e)));  // in [1024, 2048]
    uint32_t exponent = static_cast<uint32_t>(e - 1 + 15);
    if (m == 2048) {
        m = 1024;
        ++exponent;
    }
    return static_cast<uint16_t>(sign | (exponent << 10) | (m - 1024));
}

inline float from_half(uint16_t h) {
    const int exponent = (h >> 10) & 0x1f;
    const uint32_t m = h & 0x3ffu;
    float v;
    if (exponent == 0)
        v = std::ldexp(static_cast<float>(m), -24);
    else if (exponent == 31)
        v = m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else
        v = std::ldexp(static_cast<float>(m | 0x400u), exponent - 25);
    return (h & 0x8000) ? -v : v;
}

class ptx_corpus : public host_test {
protected:
    void SetUp() override {
        rt = std::make_unique<runtime>(runtime_options());
        ASSERT_EQ(rt->device_count(), 1) << rt->startup_error();
    }
    void TearDown() override { rt.reset(); }

    // The committed PTX text of kernels/<file> (or any corpus file, by a path below kernels/).
    static std::string ptx_text(const std::string& file) {
        std::ifstream in(std::string(CB_PTX_CORPUS_DIR) + "/" + file, std::ios::binary);
        EXPECT_TRUE(in.good()) << "cannot read " << file;
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    // Loads kernels/<file> as PTX (NUL-terminated text); null (and a test failure) if it fails.
    cbModule_t load(const std::string& file) {
        const std::string text = ptx_text(file);
        cbModule_t m = nullptr;
        const cbError_t e = rt->module_load(&m, text.data(), text.size() + 1, CB_MODULE_PTX);
        EXPECT_EQ(e, cbSuccess) << file << ": " << cbGetLastErrorMessage();
        return e == cbSuccess ? m : nullptr;
    }

    // The name of the one .entry in `ptx` whose name contains `plain` (a C++ kernel's mangled name).
    static std::string entry_named(const std::string& ptx, const std::string& plain) {
        std::istringstream lines(ptx);
        std::string line, found;
        while (std::getline(lines, line)) {
            const size_t at = line.find(".entry ");
            if (at == std::string::npos) continue;
            std::string name = line.substr(at + 7);
            name = name.substr(0, name.find('('));
            name.erase(name.find_last_not_of(" \t\r") + 1);
            if (name.find(plain) != std::string::npos) {
                EXPECT_TRUE(found.empty()) << "two entries named like " << plain;
                found = name;
            }
        }
        EXPECT_FALSE(found.empty()) << "no .entry named like " << plain;
        return found;
    }

    void* device_alloc(size_t bytes) {
        void* p = nullptr;
        EXPECT_EQ(rt->malloc(&p, bytes), cbSuccess) << cbGetLastErrorMessage();
        return p;
    }
    template <class T>
    void* upload(const std::vector<T>& host) {
        void* d = device_alloc(host.size() * sizeof(T));
        EXPECT_EQ(rt->memcpy(d, host.data(), host.size() * sizeof(T), cbMemcpyHostToDevice, nullptr, false), cbSuccess)
            << cbGetLastErrorMessage();
        return d;
    }
    template <class T>
    std::vector<T> download(const void* d, size_t n) {
        std::vector<T> host(n);
        EXPECT_EQ(rt->memcpy(host.data(), d, n * sizeof(T), cbMemcpyDeviceToHost, nullptr, false), cbSuccess)
            << cbGetLastErrorMessage();
        return host;
    }

    // Launches `name` and waits for it: the launch's error, else the synchronization's.
    cbError_t run(cbModule_t m, const std::string& name, cbDim3 grid, cbDim3 block,
                  const std::vector<cbKernelArg>& args, size_t shared_bytes = 0) {
        const cbError_t e =
            rt->launch_kernel(m, name.c_str(), grid, block, args.data(), args.size(), shared_bytes, nullptr);
        if (e != cbSuccess) return e;
        return rt->synchronize();
    }

    std::unique_ptr<runtime> rt;
};

}  // namespace cudabridge::test
