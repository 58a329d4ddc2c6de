// The helpers generated code calls (abi.hpp): address resolution outside the VRAM fast path,
// faults, %clock64, and device printf (CUDA's vprintf: a format string and a buffer of
// arguments, each aligned to its own size).
#include "sim/ptx/abi.hpp"
#include "sim/ptx/device_heap.hpp"
#include "sim/ptx/kernel_module.hpp"

#include <cudabridge/cpp/hex_text.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

namespace cudabridge::nv::ptx {
namespace {

void raise(block_env* env, uint64_t address, uint32_t bytes, uint32_t kind) {
    uint32_t none = 0;
    if (env->fault->raised.compare_exchange_strong(none, 1)) {
        env->fault->address = address;
        env->fault->bytes = bytes;
        env->fault->kind = kind;
    }
}

uint8_t* within(uint8_t* base, uint64_t size, uint64_t offset, uint32_t bytes) {
    return base && bytes <= size && offset <= size - bytes ? base + offset : nullptr;
}

uint8_t* lookup(block_env* env, thread_state* thread, uint64_t address, uint32_t bytes, bool generic) {
    const uint64_t tag = address & window_mask, offset = address & ~window_mask;
    if (tag == module_globals_window) return within(env->globals_host, env->globals_size, offset, bytes);
    if (tag == grid_window) return within(env->grid_host, env->grid_host ? grid_workspace_bytes : 0, offset, bytes);
    if (generic && tag == shared_window) return within(env->shared, env->shared_size, offset, bytes);
    if (generic && tag == local_window)
        return within(reinterpret_cast<uint8_t*>(thread) + env->local_offset, env->local_size, offset, bytes);
    if (generic && tag == const_window)
        return within(const_cast<uint8_t*>(env->const_host), env->const_size, offset, bytes);
    if (generic && tag == param_window)
        return within(const_cast<uint8_t*>(env->params), env->param_bytes, offset, bytes);
    if (address >= env->vram_base) {
        const uint64_t at = address - env->vram_base;
        if (uint8_t* p = within(env->vram_host, env->vram_size, at, bytes)) {
            const bool mapped =
                env->page_map[at >> vram_page_shift] && env->page_map[(at + bytes - 1) >> vram_page_shift];
            return mapped ? p : nullptr;
        }
    }
    return nullptr;
}

// Host memory at its own address (zero-copy), when the launch reaches any: the block's last
// spans first, so that a run of accesses to one page asks the device model once.
uint8_t* host_lookup(block_env* env, uint64_t address, uint32_t bytes) {
    if (!env->host_ranges || (address & window_mask) != 0) return nullptr;
    for (int i = 0; i < 4; ++i) {
        const uint64_t first = env->host_span_first[i], size = env->host_span_end[i] - first;
        if (address >= first && address - first <= size && bytes <= size - (address - first))
            return env->host_span_base[i] + (address - first);
    }
    host_memory::span around;
    uint8_t* p = static_cast<host_memory*>(env->host_ranges)->reach_span(address, bytes, around);
    if (p) {
        const uint32_t i = env->host_span_next++ % 4;
        env->host_span_first[i] = around.first;
        env->host_span_end[i] = around.end;
        env->host_span_base[i] = around.base;
    }
    return p;
}

// A NUL-terminated string at a generic address, at most `limit` bytes.
bool read_string(block_env* env, thread_state* thread, uint64_t address, std::string& out, size_t limit = 65536) {
    out.clear();
    for (size_t i = 0; i < limit; ++i) {
        const uint8_t* c = lookup(env, thread, address + i, 1, true);
        if (!c) c = host_lookup(env, address + i, 1);
        if (!c) return false;
        if (*c == 0) return true;
        out.push_back(static_cast<char>(*c));
    }
    return true;
}

// Reads the next argument of `size` bytes from the buffer, aligned to its size.
bool next_argument(block_env* env, thread_state* thread, uint64_t args, uint64_t& at, uint32_t size, uint64_t& value) {
    at = (at + size - 1) / size * size;
    const uint8_t* p = lookup(env, thread, args + at, size, true);
    if (!p) return false;
    value = 0;
    std::memcpy(&value, p, size);
    at += size;
    return true;
}

std::mutex& print_mutex() {
    static std::mutex m;
    return m;
}

}  // namespace

extern "C" uint8_t* cb_ptx_resolve(block_env* env, thread_state* thread, uint64_t address, uint32_t bytes,
                                   uint32_t how) {
    const bool generic = (how & resolve_generic) != 0;
    if (uint8_t* p = lookup(env, thread, address, bytes, generic)) return p;
    uint8_t* p = nullptr;
    if (how & resolve_system_atomic)
        p = env->host_ranges ? static_cast<host_memory*>(env->host_ranges)->reach_for_system_atomic(address, bytes)
                             : nullptr;
    else
        p = host_lookup(env, address, bytes);
    if (p) {
        // Over the link, not VRAM: the generated code counted a global access in bytes_moved.
        env->host_bytes += bytes;
        if (!generic) env->bytes_moved -= bytes;
        return p;
    }
    raise(env, address, bytes, 1);
    return nullptr;
}

extern "C" void cb_ptx_fault(block_env* env, uint64_t address, uint32_t bytes) { raise(env, address, bytes, 1); }

extern "C" void cb_ptx_trap(block_env* env) { raise(env, 0, 0, 3); }

extern "C" uint64_t cb_ptx_malloc(block_env* env, uint64_t bytes) {
    return heap_allocate(env->heap_host, env->heap_base, env->heap_size, bytes);
}

extern "C" uint32_t cb_ptx_free(block_env* env, uint64_t address) {
    if (heap_release(env->heap_host, env->heap_base, env->heap_size, address)) return 0;
    raise(env, address, 0, 7);
    return 1;
}

extern "C" void cb_ptx_stack_overflow(block_env* env, uint64_t needed) { raise(env, needed, 0, 6); }

extern "C" uint32_t cb_ptx_poll(block_env* env) {
    if (env->fault->raised.load(std::memory_order_relaxed)) return 1;
    if (env->cancel == nullptr || !env->cancel(env->cancel_context)) return 0;
    raise(env, 0, 0, 5);
    return 1;
}

// The line CUDA prints for a failed device-side assert, then the launch fails as CUDA's does.
extern "C" void cb_ptx_assertfail(block_env* env, thread_state* thread, uint64_t message, uint64_t file, uint32_t line,
                                  uint64_t function, uint32_t tid_x, uint32_t tid_y, uint32_t tid_z) {
    std::string what, where, in;
    if (!read_string(env, thread, message, what)) what = "?";
    if (!read_string(env, thread, file, where)) where = "?";
    if (!read_string(env, thread, function, in)) in = "?";
    char text[160];
    if (tid_x == 0xFFFFFFFFu)  // inside a called .func
        std::snprintf(text, sizeof text, ": block: [%u,%u,%u], thread: [?] Assertion `", env->ctaid[0], env->ctaid[1],
                      env->ctaid[2]);
    else
        std::snprintf(text, sizeof text, ": block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `", env->ctaid[0],
                      env->ctaid[1], env->ctaid[2], tid_x, tid_y, tid_z);
    const std::string out = where + ":" + std::to_string(line) + ": " + in + text + what + "` failed.\n";
    {
        std::lock_guard lock(print_mutex());
        std::fwrite(out.data(), 1, out.size(), stderr);
    }
    raise(env, 0, 0, 4);
}

extern "C" uint64_t cb_ptx_clock64(block_env*) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

// Formats like printf: each conversion takes its argument (ints 4 bytes unless l/ll/z, doubles
// 8, pointers and strings 8) from the buffer. Returns the characters printed, -1 on a bad
// format or an argument outside memory.
extern "C" int32_t cb_ptx_vprintf(block_env* env, thread_state* thread, uint64_t format, uint64_t args) {
    std::string fmt, out;
    if (!read_string(env, thread, format, fmt)) return -1;
    uint64_t at = 0;
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%') {
            out.push_back(fmt[i]);
            continue;
        }
        size_t j = i + 1;
        while (j < fmt.size() && std::strchr("-+ #0", fmt[j])) ++j;
        while (j < fmt.size() && (std::isdigit(static_cast<unsigned char>(fmt[j])) || fmt[j] == '.')) ++j;
        int longs = 0;
        while (j < fmt.size() && std::strchr("hlLqjzt", fmt[j]))
            longs += fmt[j] == 'l' || fmt[j] == 'L' || fmt[j] == 'q' || fmt[j] == 'j' || fmt[j] == 'z' || fmt[j] == 't',
                ++j;
        if (j >= fmt.size()) return -1;
        const char conv = fmt[j];
        std::string spec = fmt.substr(i, j - i);
        // Our own length modifier: strip the source's and give the host's.
        while (!spec.empty() && std::strchr("hlLqjzt", spec.back())) spec.pop_back();
        char buf[512];
        uint64_t v = 0;
        if (conv == '%') {
            out.push_back('%');
        } else if (std::strchr("diouxXc", conv)) {
            if (!next_argument(env, thread, args, at, longs ? 8 : 4, v)) return -1;
            if (conv == 'c')
                std::snprintf(buf, sizeof buf, (spec + "c").c_str(), static_cast<int>(v));
            else if (conv == 'd' || conv == 'i')
                std::snprintf(buf, sizeof buf, (spec + "lld").c_str(),
                              longs ? static_cast<long long>(v) : static_cast<long long>(static_cast<int32_t>(v)));
            else
                std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(),
                              longs ? static_cast<unsigned long long>(v)
                                    : static_cast<unsigned long long>(static_cast<uint32_t>(v)));
            out += buf;
        } else if (std::strchr("fFeEgGaA", conv)) {
            if (!next_argument(env, thread, args, at, 8, v)) return -1;
            double d;
            std::memcpy(&d, &v, 8);
            std::snprintf(buf, sizeof buf, (spec + conv).c_str(), d);
            out += buf;
        } else if (conv == 'p') {
            if (!next_argument(env, thread, args, at, 8, v)) return -1;
            out += sdk::hex_text(v);
        } else if (conv == 's') {
            if (!next_argument(env, thread, args, at, 8, v)) return -1;
            std::string s;
            if (!read_string(env, thread, v, s)) s = "(null)";
            out += s;
        } else {
            return -1;
        }
        i = j;
    }
    std::lock_guard lock(print_mutex());
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return static_cast<int32_t>(out.size());
}

}  // namespace cudabridge::nv::ptx
