#include "sim/device_model/copy_engine.hpp"

#include <cudabridge/cpp/hex_text.hpp>

#include <algorithm>
#include <cstring>

namespace cudabridge::nv {
namespace {

command_result outside_vram(const char* what, uint64_t address, uint64_t bytes) {
    return command_result::failure(CB_ERR_INVALID_ARGUMENT, xid_mmu_fault,
                                   std::string(what) + ": device range " + sdk::hex_text(address) + " + " +
                                       std::to_string(bytes) + " bytes is outside VRAM");
}

command_result host_failed(const char* what, cb_status status, uint64_t iova, uint64_t bytes) {
    return command_result::failure(status, 0,
                                   std::string(what) + ": host DMA at IOVA " + sdk::hex_text(iova) + " + " +
                                       std::to_string(bytes) + " bytes failed (status " + std::to_string(status) + ")");
}

// Device-side work in pieces of dma_piece_bytes, so an abort is seen between them.
template <class Step>
bool in_pieces(uint64_t bytes, const abort_check& abort, Step step) {
    for (uint64_t done = 0; done < bytes;) {
        if (abort && abort()) return false;
        const uint64_t piece = std::min<uint64_t>(dma_piece_bytes, bytes - done);
        step(done, piece);
        done += piece;
    }
    return true;
}

command_result aborted(const char* what) {
    return command_result::failure(CB_ERR_DEVICE_LOST, 0, std::string(what) + ": abandoned by a reset");
}

}  // namespace

command_result copy_h2d(const dma_port& dma, const vram& memory, uint64_t host_iova, uint64_t device_address,
                        uint64_t bytes, const abort_check& abort) {
    if (bytes == 0) return command_result::success();
    uint8_t* dst = memory.translate(device_address, bytes);
    if (!dst) return outside_vram("copy_h2d", device_address, bytes);
    if (cb_status st = dma.read(host_iova, dst, bytes, abort); st != CB_OK)
        return host_failed("copy_h2d", st, host_iova, bytes);
    return command_result::success();
}

command_result copy_d2h(const dma_port& dma, const vram& memory, uint64_t device_address, uint64_t host_iova,
                        uint64_t bytes, const abort_check& abort) {
    if (bytes == 0) return command_result::success();
    const uint8_t* src = memory.translate(device_address, bytes);
    if (!src) return outside_vram("copy_d2h", device_address, bytes);
    if (cb_status st = dma.write(host_iova, src, bytes, abort); st != CB_OK)
        return host_failed("copy_d2h", st, host_iova, bytes);
    return command_result::success();
}

command_result copy_d2d(const vram& memory, uint64_t source, uint64_t destination, uint64_t bytes,
                        const abort_check& abort) {
    if (bytes == 0) return command_result::success();
    const uint8_t* src = memory.translate(source, bytes);
    if (!src) return outside_vram("copy_d2d source", source, bytes);
    uint8_t* dst = memory.translate(destination, bytes);
    if (!dst) return outside_vram("copy_d2d destination", destination, bytes);
    // Front to back unless the destination overlaps the source's tail.
    const bool backward = dst > src && dst < src + bytes;
    const bool finished = in_pieces(bytes, abort, [&](uint64_t done, uint64_t piece) {
        const uint64_t at = backward ? bytes - done - piece : done;
        std::memmove(dst + at, src + at, piece);
    });
    return finished ? command_result::success() : aborted("copy_d2d");
}

command_result fill_bytes(const vram& memory, uint64_t device_address, uint8_t value, uint64_t bytes,
                          const abort_check& abort) {
    if (bytes == 0) return command_result::success();
    uint8_t* dst = memory.translate(device_address, bytes);
    if (!dst) return outside_vram("memset8", device_address, bytes);
    const bool finished =
        in_pieces(bytes, abort, [&](uint64_t done, uint64_t piece) { std::memset(dst + done, value, piece); });
    return finished ? command_result::success() : aborted("memset8");
}

}  // namespace cudabridge::nv
