// `perf report` names JIT'd kernels: with CUDABRIDGE_PERF_MAP=1 every function the engine's JIT
// loads is appended to /tmp/perf-<pid>.map ("START SIZE NAME", hex), the file Linux perf reads for
// code it finds no symbols for. A kernel's block function is named after the kernel
// ("ptx:saxpy"). The file is opened only if it is not a link and belongs to this user.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace llvm {
class JITEventListener;
}

namespace cudabridge::nv::ptx {

// True when CUDABRIDGE_PERF_MAP asks for the map (read once).
bool perf_map_wanted();

// A listener that writes each loaded object's functions to the map; `display_name` turns a
// symbol name into the name perf shows. nullptr when the map is not wanted or cannot be opened
// (said once on stderr).
std::unique_ptr<llvm::JITEventListener> make_perf_map_listener(
    std::function<std::string(const std::string&)> display_name);

}  // namespace cudabridge::nv::ptx
