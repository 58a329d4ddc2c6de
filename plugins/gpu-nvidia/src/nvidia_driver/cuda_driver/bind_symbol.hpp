// Resolve one loader slot: the versioned export first, then a same-ABI fallback.
#pragma once

#include <string>
#include <vector>

#include "nvidia_driver/cuda_driver/availability.hpp"
#include "nvidia_driver/cuda_driver/bound_symbol.hpp"
#include "nvidia_driver/cuda_driver/dynamic_library.hpp"

namespace cudabridge::nv {

// Returns true when bound. Records the outcome in `bound`; a miss leaves `slot` null.
template <typename Fn>
bool bind_symbol(const dynamic_library& lib, Fn& slot, const char* api, const char* name, const char* fallback,
                 std::vector<bound_symbol>& bound) {
    const char* used = name;
    void* sym = lib.symbol(name);
    if (sym == nullptr && fallback != nullptr) {
        sym = lib.symbol(fallback);
        used = fallback;
    }
    if (sym == nullptr) {
        slot = nullptr;
        bound.push_back({api, ""});
        return false;
    }
    slot = reinterpret_cast<Fn>(sym);
    bound.push_back({api, used});
    return true;
}

// "missing symbol A in lib (and 2 more: B C)".
inline std::string missing_symbols_text(const std::vector<std::string>& missing, const std::string& library) {
    if (missing.empty()) return {};
    std::string text = "missing symbol " + missing.front() + " in " + library;
    if (missing.size() > 1) {
        text += " (and " + std::to_string(missing.size() - 1) + " more:";
        for (std::size_t i = 1; i < missing.size(); ++i) text += " " + missing[i];
        text += ")";
    }
    return text;
}

// Opens a driver library (libcuda, libnvidia-ml). False when it is not there: `a` then says so,
// as CB_ERR_NO_DEVICE (no NVIDIA driver installed).
inline bool open_driver_library(dynamic_library& lib, const std::string& library, availability& a) {
    if (lib.open(library)) return true;
    a.status = CB_ERR_NO_DEVICE;
    a.reason = library + " not found (no NVIDIA driver installed): " + lib.error();
    return false;
}

// False when a required export is `missing`: `a` then names it, as CB_ERR_UNSUPPORTED, followed by
// `hint` ("; not a usable NVML").
inline bool all_bound(const std::vector<std::string>& missing, const std::string& library, const char* hint,
                      availability& a) {
    if (missing.empty()) return true;
    a.status = CB_ERR_UNSUPPORTED;
    a.reason = missing_symbols_text(missing, library) + hint;
    return false;
}

}  // namespace cudabridge::nv
