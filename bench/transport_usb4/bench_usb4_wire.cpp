// bench_usb4_wire: wall-clock throughput of the simulated USB4 link's data path (packetize,
// CRC-32C on both ends, deliver) next to memcpy of the same bytes in the same run, and ISA-L's
// CRC-32C alone for context. The goal (issue "transport-usb4") is wire >= 0.5 x memcpy with the
// CRC on, so the simulator can pace a TB5 link (~5.8 GB/s) in real time.
//
// Usage: bench_usb4_wire [bytes = 268435456] [repeats = 7] [payload = 256]
// Each repeat times memcpy, the wire and the CRC back to back; the figures are the best of the
// repeats, and ratio_median is the median of the per-repeat ratios (robust to a busy machine).
// Nothing is asserted about speed; the run fails only if the delivered bytes differ.
#include "wire/crc32c.hpp"
#include "wire/wire.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using cudabridge::usb4::direction;

template <class F>
double seconds(F&& body) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

uint64_t parse(const char* text, uint64_t fallback) {
    return text != nullptr ? std::strtoull(text, nullptr, 0) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
    const size_t bytes = parse(argc > 1 ? argv[1] : nullptr, size_t{256} << 20);
    const auto repeats = static_cast<int>(std::max<uint64_t>(1, parse(argc > 2 ? argv[2] : nullptr, 7)));
    const auto payload = static_cast<uint32_t>(parse(argc > 3 ? argv[3] : nullptr, 256));

    std::vector<unsigned char> src(bytes), dst(bytes), ref(bytes);
    uint64_t x = 0x243F6A8885A308D3ull;  // a cheap LCG stream; writing every page faults it in
    for (auto& b : src) b = static_cast<unsigned char>((x = x * 6364136223846793005ull + 1) >> 56);
    std::memset(dst.data(), 0, bytes);
    std::memset(ref.data(), 0, bytes);

    cudabridge::usb4::wire_config config;
    config.timing = {1e9, 1e9, 0};  // modeled time is irrelevant here; pacing stays off
    config.payload_bytes = payload;
    cudabridge::usb4::wire link(config);

    double best_memcpy = 1e300, best_wire = 1e300, best_crc = 1e300;
    std::vector<double> ratios;
    cb_status status = CB_OK;
    uint32_t crc = 0;
    for (int r = 0; r < repeats; ++r) {
        const double m = seconds([&] { std::memcpy(ref.data(), src.data(), bytes); });
        const double w = seconds([&] {
            uint64_t ns = 0;
            const cb_status st = link.transfer(direction::to_device, src.data(), dst.data(), bytes, ns);
            if (st != CB_OK) status = st;
        });
        best_crc = std::min(best_crc, seconds([&] { crc = cudabridge::usb4::crc32c(src.data(), bytes); }));
        best_memcpy = std::min(best_memcpy, m);
        best_wire = std::min(best_wire, w);
        ratios.push_back(m / w);
    }
    std::sort(ratios.begin(), ratios.end());

    const auto s = link.stats();
    const double gb = static_cast<double>(bytes) / 1e9;
    std::printf(
        "bench_usb4_wire: measured on this host (wall clock), best of %d; %zu bytes in "
        "%u-byte packets (%llu packets per run), CRC-32C (ISA-L) on both ends\n",
        repeats, bytes, payload, static_cast<unsigned long long>(s.packets_to_device / static_cast<uint64_t>(repeats)));
    std::printf("wire_gbs=%.2f memcpy_gbs=%.2f ratio=%.2f ratio_median=%.2f\n", gb / best_wire, gb / best_memcpy,
                best_memcpy / best_wire, ratios[ratios.size() / 2]);
    std::printf("crc32c_isal_gbs=%.2f (one pass over the whole buffer, crc=0x%08x)\n", gb / best_crc, crc);
    if (ref[bytes / 2] != src[bytes / 2] || status != CB_OK || std::memcmp(src.data(), dst.data(), bytes) != 0) {
        std::fprintf(stderr, "bench_usb4_wire: delivery FAILED (status %d)\n", static_cast<int>(status));
        return 1;
    }
    std::printf("delivery: bit-exact\n");
    return 0;
}
