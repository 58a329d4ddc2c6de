#include "sim/device_model/vram.hpp"

#include "common/hw/registers.hpp"

namespace cudabridge::nv {

uint8_t* vram::translate(uint64_t device_address, uint64_t bytes) const noexcept {
    if (bytes == 0 || device_address < hw::vram_base) return nullptr;
    return memory_.at(device_address - hw::vram_base, bytes);
}

}  // namespace cudabridge::nv
