#include "wire_test_support.hpp"

#include "wire/xoshiro256.hpp"

#include <cstring>

namespace cudabridge::usb4::test {

std::vector<unsigned char> random_bytes(size_t size, uint64_t seed) {
    std::vector<unsigned char> out(size);
    xoshiro256ss rng(seed);
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        const uint64_t v = rng();
        std::memcpy(out.data() + i, &v, 8);
    }
    for (const uint64_t v = rng(); i < size; ++i) out[i] = static_cast<unsigned char>(v >> (8 * (i & 7)));
    return out;
}

wire_config test_config(uint32_t payload_bytes, uint64_t seed) {
    wire_config c;
    c.timing = {2.0, 4.0, 1000};
    c.payload_bytes = payload_bytes;
    c.seed = seed;
    return c;
}

}  // namespace cudabridge::usb4::test
