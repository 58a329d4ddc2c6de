#include "sim/modules/fatbin.hpp"

#include <cudabridge/cpp/hex_text.hpp>

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <map>
#include <cstring>

namespace cudabridge::nv {
namespace {

constexpr uint32_t container_magic = 0xBA55ED50u;
constexpr size_t container_header_bytes = 16;
constexpr size_t entry_header_bytes = 64;                // the fields read here; sm_120 entries are longer
constexpr uint64_t max_ptx_bytes = uint64_t{256} << 20;  // far above any real module
// Entry flags seen in nvcc's and the CUDA libraries' fatbins: 64-bit code, debug, the host OS,
// the optimization level, the compressions (0x2000 LZ4, 0x8000 zstd) and a few more below bit
// 25. A flag word with a bit past them, or claiming two compressions at once, is garbage.
constexpr uint64_t known_entry_flags = (uint64_t{1} << 25) - 1;

std::string check_flags(uint64_t flags) {
    if (flags & ~known_entry_flags) return "an entry's flags " + sdk::hex_text(flags) + " set bits no fatbin uses";
    if ((flags & fatbin_zstd) && (flags & fatbin_lz4)) return "an entry claims both LZ4 and zstd compression";
    return {};
}

template <typename T>
T read_at(const uint8_t* p, size_t offset) {
    T v;
    std::memcpy(&v, p + offset, sizeof v);
    return v;
}

cb_status malformed(std::string& error, const std::string& what) {
    error = "module_load: not a well-formed fatbin: " + what;
    return CB_ERR_INVALID_ARGUMENT;
}

std::string arch_list(const std::vector<fatbin_entry>& entries) {
    std::string s;
    for (const auto& e : entries)
        if (e.kind == uint16_t(fatbin_kind::elf)) s += (s.empty() ? "sm_" : ", sm_") + std::to_string(e.arch);
    return s.empty() ? "no code at all" : "machine code (SASS) for " + s + " only";
}

cb_status decompress(const uint8_t* data, const fatbin_entry& e, std::string& out, std::string& error) {
    if (e.uncompressed_bytes == 0 || e.uncompressed_bytes > max_ptx_bytes)
        return malformed(error, "a compressed PTX entry declares " + std::to_string(e.uncompressed_bytes) + " bytes");
    out.assign(e.uncompressed_bytes, '\0');
    if (e.flags & fatbin_zstd) {
        const size_t n = ZSTD_decompress(out.data(), out.size(), data, e.payload_bytes);
        if (ZSTD_isError(n) || n != out.size())
            return malformed(error, std::string("zstd: ") + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output"));
        return CB_OK;
    }
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(data), out.data(),
                                      static_cast<int>(e.payload_bytes), static_cast<int>(out.size()));
    if (n < 0 || static_cast<uint64_t>(n) != out.size()) return malformed(error, "lz4: corrupt PTX entry");
    return CB_OK;
}

}  // namespace

cb_status read_fatbin(const void* image, size_t size, std::vector<fatbin_entry>& out, std::string& error) {
    const auto* p = static_cast<const uint8_t*>(image);
    out.clear();
    size_t at = 0;
    uint32_t containers = 0;
    while (at < size) {
        if (size - at < container_header_bytes || read_at<uint32_t>(p, at) != container_magic) {
            if (at > 0 && std::all_of(p + at, p + size, [](uint8_t b) { return b == 0; })) break;  // padding
            return malformed(error, at == 0 ? "bad magic" : "bad magic at byte " + std::to_string(at));
        }
        const uint16_t header = read_at<uint16_t>(p, at + 6);
        const uint64_t body = read_at<uint64_t>(p, at + 8);
        if (header < container_header_bytes || header > size - at || body > size - at - header)
            return malformed(error, "a container runs past the image");
        size_t entry = at + header;
        const size_t end = at + header + body;
        while (entry < end) {
            if (end - entry < entry_header_bytes) return malformed(error, "a truncated entry header");
            fatbin_entry e;
            e.kind = read_at<uint16_t>(p, entry);
            const uint32_t entry_bytes = read_at<uint32_t>(p, entry + 4);
            e.payload_bytes = read_at<uint64_t>(p, entry + 8);
            const uint32_t compressed = read_at<uint32_t>(p, entry + 16);
            e.ptx_minor = read_at<uint16_t>(p, entry + 24);
            e.ptx_major = read_at<uint16_t>(p, entry + 26);
            e.arch = read_at<uint32_t>(p, entry + 28);
            e.flags = read_at<uint64_t>(p, entry + 40);
            e.uncompressed_bytes = read_at<uint64_t>(p, entry + 56);
            if (entry_bytes < entry_header_bytes || entry_bytes > end - entry ||
                e.payload_bytes > end - entry - entry_bytes)
                return malformed(error, "an entry runs past its container");
            if (std::string why = check_flags(e.flags); !why.empty()) return malformed(error, why);
            e.payload = entry + entry_bytes;
            e.container = containers;
            if ((e.flags & (fatbin_zstd | fatbin_lz4)) && compressed != 0 && compressed <= e.payload_bytes)
                e.payload_bytes = compressed;  // the stored size pads the compressed bytes to 8
            out.push_back(e);
            entry += entry_bytes + read_at<uint64_t>(p, entry + 8);
        }
        at = end;
        ++containers;
    }
    if (out.empty()) return malformed(error, "no entries");
    return CB_OK;
}

namespace {

cb_status entry_text(const void* image, const fatbin_entry& e, std::string& ptx, std::string& error) {
    const auto* data = static_cast<const uint8_t*>(image) + e.payload;
    if (e.flags & (fatbin_zstd | fatbin_lz4)) {
        if (cb_status st = decompress(data, e, ptx, error); st != CB_OK) return st;
    } else {
        ptx.assign(reinterpret_cast<const char*>(data), e.payload_bytes);
    }
    while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
    return CB_OK;
}

// NVIDIA's device runtime (libcudadevrt's PTX, linked into every -rdc program): the one that
// defines the __cudaCDP2 functions, which programs only declare (.extern). The PTX engine
// provides those functions itself.
bool device_runtime_ptx(const std::string& ptx) {
    return ptx.find(".visible .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2(") != std::string::npos;
}

}  // namespace

cb_status newest_fatbin_ptx(const void* image, size_t size, std::string& ptx, std::string& error) {
    std::vector<fatbin_entry> entries;
    if (cb_status st = read_fatbin(image, size, entries, error); st != CB_OK) return st;
    // The newest PTX of each container: one container per translation unit.
    std::map<uint32_t, const fatbin_entry*> best;
    for (const auto& e : entries) {
        if (e.kind != uint16_t(fatbin_kind::ptx)) continue;
        const fatbin_entry*& newest = best[e.container];
        if (!newest || e.arch > newest->arch) newest = &e;
    }
    if (best.empty()) {
        error = "module_load: the fatbin holds " + arch_list(entries) +
                "; the simulated GPU runs PTX: build with PTX as well, e.g. nvcc -gencode "
                "arch=compute_75,code=compute_75 (or code=[sm_XX,compute_XX])";
        return CB_ERR_UNSUPPORTED;
    }
    if (best.size() == 1) return entry_text(image, *best.begin()->second, ptx, error);
    // Several containers: a program built with -rdc, its translation units' PTX and the device
    // runtime's (what cudart gathers from the linked wrapper's prelinked fatbins).
    std::vector<std::string> units;
    for (const auto& [container, e] : best) {
        std::string text;
        if (cb_status st = entry_text(image, *e, text, error); st != CB_OK) return st;
        if (!device_runtime_ptx(text)) units.push_back(std::move(text));
    }
    if (units.empty()) {
        error = "module_load: the fatbin holds PTX of NVIDIA's device runtime only";
        return CB_ERR_UNSUPPORTED;
    }
    // The units one after another, each from its .version: the PTX engine links them.
    ptx.clear();
    for (const auto& unit : units) ptx += unit + "\n";
    return CB_OK;
}

}  // namespace cudabridge::nv
