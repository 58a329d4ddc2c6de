// 100 connect / disconnect cycles of the whole runtime, each with work still queued when the
// disconnect starts: no hang, and no thread, file descriptor or memory mapping left behind.
#include "host_fixture.hpp"

#include <dirent.h>

#include <malloc.h>

#include <fstream>

namespace cudabridge::test {
namespace {

size_t entries(const char* folder) {
    size_t n = 0;
    if (DIR* d = opendir(folder)) {
        while (readdir(d)) ++n;
        closedir(d);
    }
    return n;
}

size_t mappings() {
    std::ifstream maps("/proc/self/maps");
    size_t n = 0;
    for (std::string line; std::getline(maps, line);) ++n;
    return n;
}

struct resources {
    size_t threads, fds, maps;
};

resources now() { return {entries("/proc/self/task"), entries("/proc/self/fd"), mappings()}; }

// One cycle: connect, queue work on two streams, disconnect while it may still run.
void cycle(host_test& t, int i, bool force) {
    host::runtime rt(t.runtime_options({{"heartbeat_interval_ms", "20"}}));
    ASSERT_EQ(rt.device_count(), 1) << "cycle " << i << ": " << rt.startup_error();
    const size_t n = 1 << 20;
    std::vector<uint8_t> host(n, static_cast<uint8_t>(i));
    void* d = nullptr;
    ASSERT_EQ(rt.malloc(&d, n), cbSuccess);
    cbStream_t a = nullptr, b = nullptr;
    ASSERT_EQ(rt.stream_create(&a, cbStreamDefault), cbSuccess);
    ASSERT_EQ(rt.stream_create(&b, cbStreamNonBlocking), cbSuccess);
    for (int k = 0; k < 4; ++k) {
        ASSERT_EQ(rt.memcpy(d, host.data(), n, cbMemcpyHostToDevice, a, true), cbSuccess);
        ASSERT_EQ(rt.memset(d, k, n, b, true), cbSuccess);
    }
    host::disconnect_options o;
    o.force = force;
    const auto reports = rt.disconnect_all(o);
    ASSERT_EQ(reports.size(), 1u);
    // Whatever was queued either ran or was aborted; the device answers device-lost now.
    EXPECT_EQ(rt.memset(d, 0, n, nullptr, false), cbErrorDeviceLost) << "cycle " << i;
}

TEST_F(host_test, HundredConnectDisconnectCyclesWithWorkInFlightLeakNothing) {
    // glibc gives new threads new malloc arenas (64 MiB mappings each, kept for reuse, up to
    // 8 per core): one arena keeps that from reading as a leak of mappings.
    mallopt(M_ARENA_MAX, 1);
    cycle(*this, 0, false);  // warm-up: process-wide things made once (log thread, caches)
    const resources before = now();
    for (int i = 1; i <= 100; ++i) {
        cycle(*this, i, i % 10 == 0);  // every tenth disconnect is forced
        if (HasFatalFailure()) return;
    }
    const resources after = now();
    EXPECT_EQ(after.threads, before.threads);
    EXPECT_EQ(after.fds, before.fds);
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    // A sanitizer maps its own shadow and bookkeeping memory as the program runs.
    (void)after.maps;
#else
    EXPECT_EQ(after.maps, before.maps);
#endif
}

}  // namespace
}  // namespace cudabridge::test
