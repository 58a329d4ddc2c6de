#include "userspace/driver/status_text.hpp"

#include <iterator>

namespace cudabridge::nv {

std::string status_name(cb_status status) {
    static constexpr const char* names[] = {"CB_OK",
                                            "CB_ERR_INVALID_ARGUMENT",
                                            "CB_ERR_UNSUPPORTED",
                                            "CB_ERR_NOT_FOUND",
                                            "CB_ERR_NO_DEVICE",
                                            "CB_ERR_DEVICE_LOST",
                                            "CB_ERR_LINK_DOWN",
                                            "CB_ERR_TIMEOUT",
                                            "CB_ERR_OUT_OF_MEMORY",
                                            "CB_ERR_DMA_LIMIT",
                                            "CB_ERR_INTEGRITY",
                                            "CB_ERR_THERMAL_LIMIT",
                                            "CB_ERR_PERMISSION",
                                            "CB_ERR_ABI_MISMATCH",
                                            "CB_ERR_BUSY",
                                            "CB_ERR_INTERNAL",
                                            "CB_ERR_ILLEGAL_ADDRESS",
                                            "CB_ERR_ASSERT"};
    // A status the SDK adds must get its name here: a short table would hand out null.
    static_assert(std::size(names) == CB_STATUS_COUNT);
    if (status <= 0 && -status < CB_STATUS_COUNT) return names[-status];
    return "cb_status " + std::to_string(status);
}

std::string hex(uint64_t value, int digits) {
    static const char d[] = "0123456789abcdef";
    std::string s;
    do {
        s.insert(s.begin(), d[value & 0xf]);
        value >>= 4;
    } while (value != 0 || static_cast<int>(s.size()) < digits);
    return "0x" + s;
}

}  // namespace cudabridge::nv
