// Short texts for messages: a cb_status's name and a hex number.
#pragma once

#include <cudabridge/abi.h>

#include <cstdint>
#include <string>

namespace cudabridge::nv {

// "CB_ERR_TIMEOUT"; "cb_status -99" for a code the ABI does not define.
std::string status_name(cb_status status);
// "0x00fc000c": at least `digits` hex digits.
std::string hex(uint64_t value, int digits = 1);

}  // namespace cudabridge::nv
