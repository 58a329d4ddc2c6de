#include "runtime/integrity.hpp"

#include "runtime/device_context.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/host/session.hpp>

#include <cb_log.h>

#include <isa-l/crc.h>

#include <algorithm>
#include <bit>

namespace cudabridge::host {
namespace {

uint32_t crc32c(const unsigned char* p, size_t n) {
    // ISA-L's crc32_iscsi is the raw register: the standard value is ~crc32_iscsi(p, n, ~0).
    uint32_t reg = 0xffffffffu;
    while (n > 0) {
        const size_t slice = std::min<size_t>(n, size_t{1} << 30);  // it takes an int length
        reg = crc32_iscsi(const_cast<unsigned char*>(p), static_cast<int>(slice), reg);
        p += slice;
        n -= slice;
    }
    return ~reg;
}

size_t chunks_of(size_t size, uint64_t chunk) { return static_cast<size_t>((size + chunk - 1) / chunk); }

cb_tensor_desc vector_of(uint64_t address, cb_dtype dtype, size_t count) {
    cb_tensor_desc t{};
    t.device_ptr = address;
    t.dtype = dtype;
    t.ndim = 1;
    t.shape[0] = static_cast<int64_t>(count);
    t.strides[0] = 1;
    return t;
}

}  // namespace

std::vector<uint32_t> chunk_crcs(const void* data, size_t size, uint64_t chunk) {
    std::vector<uint32_t> out;
    out.reserve(chunks_of(size, chunk));
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t at = 0; at < size; at += chunk) out.push_back(crc32c(p + at, std::min<size_t>(chunk, size - at)));
    return out;
}

uint64_t chunk_for(size_t size) {
    const uint64_t mib = uint64_t{1} << 20;
    const uint64_t wanted = (static_cast<uint64_t>(size) + 1023) / 1024;
    return std::max(mib, std::bit_ceil(wanted));
}

size_t integrity_checker::slots_for(size_t size, cbMemcpyKind kind) {
    return chunks_of(size, chunk_for(size)) * (kind == cbMemcpyDeviceToDevice ? 2 : 1);
}

integrity_checker::integrity_checker(device_context& ctx, bool enabled, uint32_t retries)
    : ctx_(ctx), enabled_(enabled), retries_(retries) {}

void integrity_checker::disable(const std::string& why) {
    if (!enabled_) return;
    enabled_ = false;
    ctx_.s_.log_line(CB_LOG_WARN, CB_LOG_CAT_MEMORY, "end-to-end copy checks are off: " + why, ctx_.dev().id());
}

cb_status integrity_checker::launch_crcs(gpu_call& g, uint64_t address, size_t size, uint64_t chunk,
                                         cb_gpu_stream* stream, uint64_t out) {
    const cb_tensor_desc in = vector_of(address, CB_DTYPE_UINT8, size);
    const cb_tensor_desc crcs = vector_of(out, CB_DTYPE_INT64, chunks_of(size, chunk));
    cb_kernel_arg args[3] = {};
    args[0].type = CB_ARG_BYTES;
    args[0].size = sizeof in;
    args[0].value.bytes = &in;
    args[1].type = CB_ARG_BYTES;
    args[1].size = sizeof crcs;
    args[1].value.bytes = &crcs;
    args[2].type = CB_ARG_INT64;
    args[2].value.i64 = static_cast<int64_t>(chunk);
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = "crc32c";
    l.dtype = CB_DTYPE_INT64;
    l.args = args;
    l.arg_count = 3;
    return g.t->launch_builtin(g.instance, g.handle, &l, stream);
}

cb_status integrity_checker::read_crcs(gpu_call& g, uint64_t address, size_t count, std::vector<uint32_t>& out) {
    std::vector<int64_t> raw(count);
    const cb_status st = g.t->memcpy_d2h(g.instance, g.handle, raw.data(), address, count * sizeof(int64_t), nullptr);
    out.resize(count);
    for (size_t i = 0; i < count; ++i) out[i] = static_cast<uint32_t>(raw[i]);
    return st;
}

cb_status integrity_checker::mismatch(const std::string& what) {
    ctx_.dev().report_integrity_failure(what);
    core::set_last_error("end-to-end CRC-32C mismatch: " + what);
    return CB_ERR_INTEGRITY;
}

// ---- synchronous copies ----------------------------------------------------------------------------

cb_status integrity_checker::verify_once(gpu_call& g, void* dst, const void* src, size_t size, cbMemcpyKind kind,
                                         bool& match) {
    const uint64_t chunk = chunk_for(size);
    const size_t n = chunks_of(size, chunk);
    const bool d2d = kind == cbMemcpyDeviceToDevice;
    uint64_t scratch = 0;
    std::string error;
    cb_status st = ctx_.allocator_->allocate((d2d ? 2 : 1) * n * sizeof(int64_t), scratch, error);
    if (st != CB_OK) {
        core::set_last_error("no device memory for the integrity check: " + error);
        return st;
    }
    std::vector<uint32_t> near, far;
    const uint64_t device_side = reinterpret_cast<uintptr_t>(kind == cbMemcpyHostToDevice ? dst : src);
    st = launch_crcs(g, device_side, size, chunk, nullptr, scratch);
    if (st == CB_OK && d2d)
        st = launch_crcs(g, reinterpret_cast<uintptr_t>(dst), size, chunk, nullptr, scratch + n * sizeof(int64_t));
    if (st == CB_OK) st = read_crcs(g, scratch, (d2d ? 2 : 1) * n, far);
    ctx_.allocator_->release(scratch, error);
    if (st != CB_OK) return st;
    if (kind == cbMemcpyHostToDevice) near = chunk_crcs(src, size, chunk);
    if (kind == cbMemcpyDeviceToHost) near = chunk_crcs(dst, size, chunk);
    if (d2d) {
        near.assign(far.begin(), far.begin() + static_cast<std::ptrdiff_t>(n));
        far.erase(far.begin(), far.begin() + static_cast<std::ptrdiff_t>(n));
    }
    match = near == far;
    return CB_OK;
}

cb_status integrity_checker::copy(gpu_call& g, void* dst, const void* src, size_t size, cbMemcpyKind kind) {
    for (uint32_t attempt = 0;; ++attempt) {
        cb_status st = ctx_.copy_once(g, dst, src, size, kind, nullptr);
        if (st != CB_OK) return st;
        if (kind == cbMemcpyHostToDevice && ctx_.corrupt_next_copy_.exchange(false) && size > 0) {
            // Injected fault: one flipped bit in VRAM after the link delivered the data.
            const uint8_t flipped = static_cast<uint8_t>(static_cast<const uint8_t*>(src)[0] ^ 0x01u);
            g.t->memset8(g.instance, g.handle, reinterpret_cast<uintptr_t>(dst), flipped, 1, nullptr);
        }
        bool match = false;
        st = verify_once(g, dst, src, size, kind, match);
        if (st == CB_ERR_UNSUPPORTED || st == CB_ERR_NOT_FOUND) {
            disable("the GPU family has no crc32c kernel (" + core::last_error() + ")");
            return CB_OK;
        }
        if (st != CB_OK) return st;
        if (match) return CB_OK;
        const std::string what = std::to_string(size) + "-byte copy (attempt " + std::to_string(attempt + 1) + " of " +
                                 std::to_string(retries_ + 1) + ")";
        if (attempt >= retries_) return mismatch(what + ": giving up");
        ctx_.dev().report_integrity_failure(what + ": copying again");
    }
}

// ---- asynchronous copies -------------------------------------------------------------------------

cb_status integrity_checker::queue(gpu_call& g, cb_gpu_stream* stream, crc_arena& arena, void* dst, const void* src,
                                   size_t size, cbMemcpyKind kind, pending_check& out) {
    if (!arena.address) {
        std::string error;
        const cb_status st = ctx_.allocator_->allocate(crc_arena::slots * sizeof(int64_t), arena.address, error);
        if (st != CB_OK) {
            core::set_last_error("no device memory for the integrity checks: " + error);
            return st;
        }
    }
    out.kind = kind;
    out.size = size;
    out.chunk = chunk_for(size);
    const size_t n = chunks_of(size, out.chunk);
    out.far_slot = arena.used;
    cb_status st = CB_OK;
    if (kind == cbMemcpyHostToDevice) {
        out.expected = chunk_crcs(src, size, out.chunk);
        st = launch_crcs(g, reinterpret_cast<uintptr_t>(dst), size, out.chunk, stream, arena.address + arena.used * 8);
    } else if (kind == cbMemcpyDeviceToHost) {
        out.host = dst;
        st = launch_crcs(g, reinterpret_cast<uintptr_t>(src), size, out.chunk, stream, arena.address + arena.used * 8);
    } else {
        out.near_slot = arena.used + n;
        st = launch_crcs(g, reinterpret_cast<uintptr_t>(dst), size, out.chunk, stream, arena.address + arena.used * 8);
        if (st == CB_OK)
            st = launch_crcs(g, reinterpret_cast<uintptr_t>(src), size, out.chunk, stream,
                             arena.address + out.near_slot * 8);
    }
    if (st == CB_ERR_UNSUPPORTED || st == CB_ERR_NOT_FOUND) {
        disable("the GPU family has no crc32c kernel (" + core::last_error() + ")");
        out.size = 0;  // nothing to settle
        return CB_OK;
    }
    if (st == CB_OK) arena.used += slots_for(size, kind);
    return st;
}

cb_status integrity_checker::settle(gpu_call& g, crc_arena& arena, std::vector<pending_check>& checks) {
    if (checks.empty()) return CB_OK;
    std::vector<uint32_t> crcs;
    const cb_status st = arena.used ? read_crcs(g, arena.address, arena.used, crcs) : CB_OK;
    arena.used = 0;
    if (st != CB_OK) {
        checks.clear();
        return st;
    }
    cb_status first = CB_OK;
    for (const auto& c : checks) {
        if (c.size == 0) continue;
        const size_t n = chunks_of(c.size, c.chunk);
        const auto at = [&](size_t slot) { return crcs.begin() + static_cast<std::ptrdiff_t>(slot); };
        const std::vector<uint32_t> far(at(c.far_slot), at(c.far_slot + n));
        std::vector<uint32_t> near;
        if (c.kind == cbMemcpyHostToDevice) near = c.expected;
        if (c.kind == cbMemcpyDeviceToHost) near = chunk_crcs(c.host, c.size, c.chunk);
        if (c.kind == cbMemcpyDeviceToDevice) near.assign(at(c.near_slot), at(c.near_slot + n));
        if (near != far && first == CB_OK) first = mismatch(std::to_string(c.size) + "-byte asynchronous copy");
    }
    checks.clear();
    return first;
}

void integrity_checker::release(crc_arena& arena) noexcept {
    std::string error;
    if (arena.address) ctx_.allocator_->release(arena.address, error);
    arena = {};
}

}  // namespace cudabridge::host
