// What the driver API test programs share: one printed line per check, the macros that make one
// of a call or a condition, and host <-> device helpers.
#pragma once

#include "driver_types.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace driver_checks {

inline int failures = 0;

// One line per check: "ok" or "FAIL", then what was checked, as written.
inline bool check(bool ok, const std::string& what, int line) {
    std::printf(ok ? "ok   %s\n" : "FAIL %s (line %d)\n", what.c_str(), line);
    failures += !ok;
    return ok;
}

inline const char* name_of(CUresult r) {
    const char* name = nullptr;
    return cuGetErrorName(r, &name) == CUDA_SUCCESS && name ? name : "(no name)";
}

// A call's result against the one it must give; a wrong one is named.
inline bool check_result(CUresult got, CUresult want, const std::string& call, int line) {
    if (got == want) return check(true, call, line);
    return check(false, call + ": " + std::to_string(got) + " " + name_of(got) + ", not " + name_of(want), line);
}

// A call that must fail, whatever its error.
inline bool check_failure(CUresult got, const std::string& call, int line) {
    return check(got != CUDA_SUCCESS, call + " fails: " + std::to_string(got) + " " + name_of(got), line);
}

// A step the checks build on, not a check of its own: printed only when it fails.
inline bool step(CUresult got, const char* call, int line) {
    return got == CUDA_SUCCESS || check_result(got, CUDA_SUCCESS, call, line);
}

#define CHECK(cond) check((cond), #cond, __LINE__)
#define CALL(call) check_result((call), CUDA_SUCCESS, #call, __LINE__)
#define RESULT(call, want) check_result((call), (want), #call " == " #want, __LINE__)
#define FAILS(call) check_failure((call), #call, __LINE__)
#define STEP(call) step((call), #call, __LINE__)

// driver_types.hpp names no device attributes: the numbers of CUdevice_attribute.
namespace attribute {
constexpr int max_threads_per_block = 1, multiprocessor_count = 16, major = 75, minor = 76;
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The elements where got differs from want; the first is printed.
template <class T>
size_t mismatches(const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size()) return got.size() > want.size() ? got.size() : want.size();
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (!(got[i] == want[i]) && bad++ == 0)
            std::printf("     first difference at [%zu]: %g, expected %g\n", i, double(got[i]), double(want[i]));
    return bad;
}

template <class T>
CUdeviceptr upload(const std::vector<T>& host) {
    CUdeviceptr d = 0;
    STEP(cuMemAlloc_v2(&d, host.size() * sizeof(T)));
    STEP(cuMemcpyHtoD_v2(d, host.data(), host.size() * sizeof(T)));
    return d;
}

template <class T>
std::vector<T> download(CUdeviceptr d, size_t n) {
    std::vector<T> host(n);
    STEP(cuMemcpyDtoH_v2(host.data(), d, n * sizeof(T)));
    return host;
}

// A 1-D launch: n threads in blocks of 256, one pointer per parameter.
inline CUresult launch(CUfunction f, int n, void** params, CUstream stream = nullptr, unsigned shared = 0) {
    return cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, shared, stream, params, nullptr);
}

}  // namespace driver_checks
