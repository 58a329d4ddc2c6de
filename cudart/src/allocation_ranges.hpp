// Where an allocation this process made begins and how long it is (cuMemGetAddressRange).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudabridge::cudart {

// The device or managed allocation holding `ptr`: false when none does.
bool allocation_range(const void* ptr, uintptr_t& base, size_t& bytes);

}  // namespace cudabridge::cudart
