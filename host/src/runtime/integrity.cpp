#include "runtime/integrity.hpp"

#include "runtime/device_context.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/host/session.hpp>

#include <cb_log.h>

#include <isa-l/crc.h>

#include <algorithm>

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

cb_tensor_desc bytes_tensor(uint64_t address, size_t size) {
    cb_tensor_desc t{};
    t.device_ptr = address;
    t.dtype = CB_DTYPE_UINT8;
    t.ndim = 1;
    t.shape[0] = static_cast<int64_t>(size);
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

integrity_checker::integrity_checker(device_context& ctx, bool enabled, uint64_t chunk_bytes, uint32_t retries)
    : ctx_(ctx), enabled_(enabled), chunk_(chunk_bytes), retries_(retries) {}

void integrity_checker::disable(const std::string& why) {
    if (!enabled_) return;
    enabled_ = false;
    ctx_.s_.log_line(CB_LOG_WARN, CB_LOG_CAT_MEMORY, "end-to-end copy checks are off: " + why, ctx_.dev().id());
}

cb_status integrity_checker::device_crcs(gpu_call& g, uint64_t address, size_t size, cb_gpu_stream* stream,
                                         uint64_t& scratch) {
    const size_t n = chunks_of(size, chunk_);
    std::string error;
    cb_status st = ctx_.allocator_->allocate(n * sizeof(int64_t), scratch, error);
    if (st != CB_OK) {
        core::set_last_error("no device memory for the integrity check: " + error);
        return st;
    }
    const cb_tensor_desc in = bytes_tensor(address, size);
    cb_tensor_desc out{};
    out.device_ptr = scratch;
    out.dtype = CB_DTYPE_INT64;
    out.ndim = 1;
    out.shape[0] = static_cast<int64_t>(n);
    out.strides[0] = 1;
    cb_kernel_arg args[3] = {};
    args[0].type = CB_ARG_BYTES;
    args[0].size = sizeof in;
    args[0].value.bytes = &in;
    args[1].type = CB_ARG_BYTES;
    args[1].size = sizeof out;
    args[1].value.bytes = &out;
    args[2].type = CB_ARG_INT64;
    args[2].value.i64 = static_cast<int64_t>(chunk_);
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = "crc32c";
    l.dtype = CB_DTYPE_INT64;
    l.args = args;
    l.arg_count = 3;
    st = g.t->launch_builtin(g.instance, g.handle, &l, stream);
    if (st != CB_OK) {
        ctx_.allocator_->release(scratch, error);
        scratch = 0;
    }
    return st;
}

cb_status integrity_checker::read_crcs(gpu_call& g, uint64_t scratch, size_t size, std::vector<uint32_t>& out) {
    std::vector<int64_t> raw(chunks_of(size, chunk_));
    const cb_status st = g.t->memcpy_d2h(g.instance, g.handle, raw.data(), scratch, raw.size() * sizeof(int64_t), nullptr);
    out.assign(raw.size(), 0);
    for (size_t i = 0; i < raw.size(); ++i) out[i] = static_cast<uint32_t>(raw[i]);
    return st;
}

cb_status integrity_checker::mismatch(const std::string& what) {
    ctx_.dev().report_integrity_failure(what);
    core::set_last_error("end-to-end CRC-32C mismatch: " + what);
    return CB_ERR_INTEGRITY;
}

cb_status integrity_checker::verify_once(gpu_call& g, void* dst, const void* src, size_t size, cbMemcpyKind kind,
                                         bool& match) {
    std::vector<uint32_t> near, far;
    uint64_t scratch = 0, scratch2 = 0;
    std::string error;
    cb_status st = CB_OK;
    if (kind == cbMemcpyHostToDevice) {
        near = chunk_crcs(src, size, chunk_);
        st = device_crcs(g, reinterpret_cast<uintptr_t>(dst), size, nullptr, scratch);
        if (st == CB_OK) st = read_crcs(g, scratch, size, far);
    } else if (kind == cbMemcpyDeviceToHost) {
        // The GPU's CRCs of the source were taken before the copy (see copy()); here: the host's.
        far = chunk_crcs(dst, size, chunk_);
        st = device_crcs(g, reinterpret_cast<uintptr_t>(src), size, nullptr, scratch);
        if (st == CB_OK) st = read_crcs(g, scratch, size, near);
    } else {
        st = device_crcs(g, reinterpret_cast<uintptr_t>(src), size, nullptr, scratch);
        if (st == CB_OK) st = device_crcs(g, reinterpret_cast<uintptr_t>(dst), size, nullptr, scratch2);
        if (st == CB_OK) st = read_crcs(g, scratch, size, near);
        if (st == CB_OK) st = read_crcs(g, scratch2, size, far);
    }
    if (scratch) ctx_.allocator_->release(scratch, error);
    if (scratch2) ctx_.allocator_->release(scratch2, error);
    match = st == CB_OK && near == far;
    return st;
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

cb_status integrity_checker::queue(gpu_call& g, cb_gpu_stream* stream, void* dst, const void* src, size_t size,
                                   cbMemcpyKind kind, pending_check& out) {
    out.kind = kind;
    out.size = size;
    out.what = std::to_string(size) + "-byte asynchronous copy";
    cb_status st = CB_OK;
    if (kind == cbMemcpyHostToDevice) {
        out.expected = chunk_crcs(src, size, chunk_);
        st = device_crcs(g, reinterpret_cast<uintptr_t>(dst), size, stream, out.far_crcs);
    } else if (kind == cbMemcpyDeviceToHost) {
        out.host = dst;
        st = device_crcs(g, reinterpret_cast<uintptr_t>(src), size, stream, out.far_crcs);
    } else {
        st = device_crcs(g, reinterpret_cast<uintptr_t>(src), size, stream, out.near_crcs);
        if (st == CB_OK) st = device_crcs(g, reinterpret_cast<uintptr_t>(dst), size, stream, out.far_crcs);
    }
    if (st == CB_ERR_UNSUPPORTED || st == CB_ERR_NOT_FOUND) {
        disable("the GPU family has no crc32c kernel (" + core::last_error() + ")");
        drop(g, out);
        return CB_OK;
    }
    return st;
}

cb_status integrity_checker::settle(gpu_call& g, pending_check& c) {
    std::vector<uint32_t> far, near;
    cb_status st = c.far_crcs ? read_crcs(g, c.far_crcs, c.size, far) : CB_OK;
    if (st == CB_OK && c.kind == cbMemcpyHostToDevice) near = c.expected;
    if (st == CB_OK && c.kind == cbMemcpyDeviceToHost) {
        // For a device-to-host copy the GPU's CRCs describe the source; the host's the result.
        near = std::move(far);
        far = chunk_crcs(c.host, c.size, chunk_);
    }
    if (st == CB_OK && c.kind == cbMemcpyDeviceToDevice) st = read_crcs(g, c.near_crcs, c.size, near);
    const bool checked = c.far_crcs != 0;
    drop(g, c);
    if (st != CB_OK || !checked) return st;
    return near == far ? CB_OK : mismatch(c.what);
}

void integrity_checker::drop(gpu_call&, pending_check& c) noexcept {
    std::string error;
    if (c.far_crcs) ctx_.allocator_->release(c.far_crcs, error);
    if (c.near_crcs) ctx_.allocator_->release(c.near_crcs, error);
    c.far_crcs = c.near_crcs = 0;
}

}  // namespace cudabridge::host
