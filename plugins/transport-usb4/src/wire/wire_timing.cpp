#include "wire/wire_timing.hpp"

#include <cmath>

namespace cudabridge::usb4 {

uint64_t modeled_transfer_ns(const wire_timing& t, direction d, uint64_t wire_bytes, uint64_t replays) noexcept {
    const double serialise = std::ceil(static_cast<double>(wire_bytes) / wire_rate(t, d));
    return t.latency_ns + static_cast<uint64_t>(serialise) + replays * t.latency_ns;
}

bool wire_timing_valid(const wire_timing& t) noexcept {
    auto ok = [](double r) { return std::isfinite(r) && r > 0.0; };
    return ok(t.to_device_bytes_per_ns) && ok(t.from_device_bytes_per_ns);
}

}  // namespace cudabridge::usb4
