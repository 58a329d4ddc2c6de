// The link bandwidth model against the public measurements, and its invariants.
#include "link/link_model.hpp"

#include <cudabridge/cpp/host.hpp>
#include <gtest/gtest.h>

#include <cmath>

namespace cudabridge::usb4 {
namespace {

link_figures at(generation gen, uint32_t mps = 256, uint32_t mrrs = 512, uint32_t lanes = 0) {
    return compute_link({gen, mps, mrrs, lanes});
}

void expect_within(double value, double target, double tolerance, const char* what) {
    EXPECT_GE(value, target * (1 - tolerance)) << what;
    EXPECT_LE(value, target * (1 + tolerance)) << what;
}

// Calibration points: the measured figures in docs/link-figures.md.
TEST(Usb4LinkModel, Tb5LandsOnMeasured) {
    const auto f = at(*parse_generation("tb5"));
    expect_within(f.h2d_gbs, 5.6, 0.05, "TB5 host->device");
    expect_within(f.d2h_gbs, 5.8, 0.05, "TB5 device->host");
    EXPECT_LT(f.h2d_gbs, f.d2h_gbs);  // reads pay for completions and turnaround
}

TEST(Usb4LinkModel, Tb3AndTb4WithinPublishedRange) {
    for (generation g : {generation::tb3, generation::tb4, generation::usb4_40}) {
        const auto f = at(g);
        for (double gbs : {f.h2d_gbs, f.d2h_gbs}) {
            EXPECT_GE(gbs, 2.2) << f.key;
            EXPECT_LE(gbs, 3.8) << f.key;
        }
    }
    EXPECT_LT(at(generation::tb3).h2d_gbs, at(generation::tb4).h2d_gbs);
}

TEST(Usb4LinkModel, OcuLinkLandsOnMeasured) {
    const auto f = at(generation::oculink);
    expect_within(f.h2d_gbs, 6.6, 0.05, "OCuLink host->device");
    expect_within(f.d2h_gbs, 6.7, 0.05, "OCuLink device->host");
    EXPECT_FALSE(f.tunnelled);
    EXPECT_GT(f.h2d_gbs, at(generation::usb4v2_80).h2d_gbs);  // TB5 up to ~14% slower (§3.1)
}

TEST(Usb4LinkModel, Bottlenecks) {
    EXPECT_EQ(at(generation::tb4).d2h.limit, bottleneck::tunnel_cap);
    EXPECT_EQ(at(generation::usb4v2_80).d2h.limit, bottleneck::tunnel_cap);
    EXPECT_EQ(at(generation::usb4_20).d2h.limit, bottleneck::usb4_lanes);
    EXPECT_EQ(at(generation::oculink).d2h.limit, bottleneck::pcie_link);
    // Bandwidth Boost: the single back lane bounds device->host below the symmetric link.
    const auto boost = at(generation::usb4v2_120);
    EXPECT_EQ(boost.d2h.limit, bottleneck::usb4_lanes);
    EXPECT_LT(boost.d2h_gbs, at(generation::usb4v2_80).d2h_gbs);
    EXPECT_DOUBLE_EQ(boost.h2d_gbs, at(generation::usb4v2_80).h2d_gbs);
    EXPECT_STREQ(bottleneck_name(bottleneck::tunnel_cap), "pcie tunnel cap");
}

TEST(Usb4LinkModel, EveryGenerationSane) {
    for (const auto& s : all_generations()) {
        const auto f = at(s.gen);
        EXPECT_EQ(f.gen, s.gen);
        EXPECT_STREQ(f.key, s.key);
        EXPECT_NE(std::string(f.name), "");
        EXPECT_NE(std::string(f.encoding), "");
        EXPECT_EQ(f.abi_generation, s.abi_generation);
        EXPECT_GE(f.lanes, 1u);
        EXPECT_LE(f.lanes, 4u);
        EXPECT_EQ(f.lanes, std::max(f.h2d.lanes, f.d2h.lanes));
        EXPECT_GT(f.lane_speed_gbps, 0);
        EXPECT_TRUE(f.pcie_gen == 3 || f.pcie_gen == 4) << f.key;
        EXPECT_EQ(f.pcie_width, 4u);
        EXPECT_EQ(f.tunnelled, s.gen != generation::oculink);
        EXPECT_EQ(f.tunnelled, f.tunnel_cap_gbps > 0);
        EXPECT_GT(f.controller_efficiency, 0);
        EXPECT_LE(f.controller_efficiency, 1);
        EXPECT_GT(f.latency_ns, 0u);
        EXPECT_EQ(f.max_payload, 256u);
        EXPECT_EQ(f.max_read_request, 512u);
        for (const auto* d : {&f.h2d, &f.d2h}) {
            EXPECT_GT(d->gbs, 0.5) << f.key;
            EXPECT_LT(d->gbs * 8, d->line_gbps) << f.key;  // never above the raw data rate
            EXPECT_LT(d->gbs, 8.0) << f.key;
            EXPECT_EQ(d->tlp.payload, 256u);
        }
        EXPECT_DOUBLE_EQ(f.h2d_gbs, f.h2d.gbs);
        EXPECT_DOUBLE_EQ(f.d2h_gbs, f.d2h.gbs);
        EXPECT_LT(f.h2d.read_efficiency, 1.0);
        EXPECT_DOUBLE_EQ(f.d2h.read_efficiency, 1.0);
    }
    EXPECT_EQ(at(generation::tb4).lanes, 2u);
    EXPECT_EQ(at(generation::usb4v2_120).lanes, 3u);
    EXPECT_EQ(at(generation::oculink).lanes, 4u);
}

TEST(Usb4LinkModel, Framing) {
    // A 256-byte write: 16 header + 256 + 6 seq/LCRC = 278 B, two tunneled packets, 286 B.
    const auto w = posted_write_tlp(256, 4);
    EXPECT_EQ(w.tunnel_bytes, 278u);
    EXPECT_EQ(w.link_bytes, 282u);
    EXPECT_EQ(w.tunnel_packets, 2u);
    EXPECT_EQ(w.tunnel_wire_bytes, 286u);
    // Completions are capped by MRRS as well as MPS, and carry a 3-DW header.
    const auto c = read_completion_tlp(512, 128, 3);
    EXPECT_EQ(c.payload, 128u);
    EXPECT_EQ(c.tunnel_bytes, 12u + 128 + 6);
    EXPECT_EQ(c.tunnel_packets, 1u);
    EXPECT_EQ(tunnel_packets_for(256), 1u);
    EXPECT_EQ(tunnel_packets_for(257), 2u);
    EXPECT_EQ(posted_write_tlp(128, 2).link_bytes, 16u + 128 + 6 + 2);
}

TEST(Usb4LinkModel, LargerPayloadNeverSlower) {
    for (const auto& s : all_generations()) {
        for (uint32_t mrrs = 128; mrrs <= 4096; mrrs *= 2) {
            double h2d = 0, d2h = 0;
            for (uint32_t mps : {128u, 256u, 512u}) {
                const auto f = at(s.gen, mps, mrrs);
                EXPECT_GE(f.h2d_gbs, h2d) << s.key << " mps " << mps << " mrrs " << mrrs;
                EXPECT_GE(f.d2h_gbs, d2h) << s.key << " mps " << mps << " mrrs " << mrrs;
                h2d = f.h2d_gbs;
                d2h = f.d2h_gbs;
            }
        }
    }
}

TEST(Usb4LinkModel, LargerReadRequestNeverSlower) {
    for (const auto& s : all_generations()) {
        for (uint32_t mps : {128u, 256u, 512u}) {
            double h2d = 0;
            for (uint32_t mrrs = 128; mrrs <= 4096; mrrs *= 2) {
                const auto f = at(s.gen, mps, mrrs);
                EXPECT_GE(f.h2d_gbs, h2d) << s.key << " mps " << mps << " mrrs " << mrrs;
                h2d = f.h2d_gbs;
            }
        }
    }
    EXPECT_GT(at(generation::tb4, 256, 4096).h2d_gbs, at(generation::tb4, 256, 128).h2d_gbs);
}

TEST(Usb4LinkModel, MoreLanesNeverSlower) {
    for (const auto& s : all_generations()) {
        const uint32_t max_lanes = std::max(s.lanes_h2d, s.lanes_d2h);
        double h2d = 0, d2h = 0;
        for (uint32_t lanes = 1; lanes <= max_lanes; ++lanes) {
            if (!s.tunnelled && (lanes & (lanes - 1)) != 0) continue;  // PCIe x1, x2, x4
            const auto f = at(s.gen, 256, 512, lanes);
            EXPECT_GE(f.h2d_gbs, h2d) << s.key << " lanes " << lanes;
            EXPECT_GE(f.d2h_gbs, d2h) << s.key << " lanes " << lanes;
            h2d = f.h2d_gbs;
            d2h = f.d2h_gbs;
        }
        // The explicit full lane count equals the default.
        EXPECT_DOUBLE_EQ(at(s.gen, 256, 512, max_lanes).h2d_gbs, at(s.gen).h2d_gbs);
    }
    // A TB4 link degraded to one lane is lane-bound and slower.
    const auto one = at(generation::tb4, 256, 512, 1);
    EXPECT_EQ(one.lanes, 1u);
    EXPECT_EQ(one.d2h.limit, bottleneck::usb4_lanes);
    EXPECT_LT(one.d2h_gbs, at(generation::tb4).d2h_gbs);
    EXPECT_EQ(at(generation::oculink, 256, 512, 1).pcie_width, 1u);
}

TEST(Usb4LinkModel, InvalidParametersRefused) {
    const auto refused = [](link_params p) {
        EXPECT_FALSE(check_link_params(p).empty());
        try {
            compute_link(p);
            ADD_FAILURE() << "accepted mps " << p.max_payload << " mrrs " << p.max_read_request << " lanes " << p.lanes;
        } catch (const sdk::status_error& e) {
            EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(e.what()).find("link model"), std::string::npos);
        }
    };
    for (uint32_t mps : {0u, 64u, 100u, 384u, 1024u, 4096u}) refused({generation::tb4, mps, 512, 0});
    for (uint32_t mrrs : {0u, 64u, 100u, 384u, 8192u}) refused({generation::tb4, 256, mrrs, 0});
    refused({generation::tb4, 256, 512, 3});
    refused({generation::usb4v2_120, 256, 512, 4});
    refused({generation::oculink, 256, 512, 3});
    refused({static_cast<generation>(99), 256, 512, 0});
    EXPECT_EQ(check_link_params({generation::tb4, 512, 4096, 2}), "");
    EXPECT_NE(check_link_params({generation::tb4, 300, 512, 0}).find("300"), std::string::npos);
}

TEST(Usb4LinkModel, TransferTimeIsLatencyPlusLinear) {
    const auto f = at(generation::usb4v2_80);
    EXPECT_EQ(transfer_time_ns(f, 0, true), f.latency_ns);
    const uint64_t gib = 1ull << 30;
    const uint64_t t1 = transfer_time_ns(f, gib, true);
    const uint64_t t2 = transfer_time_ns(f, 2 * gib, true);
    const uint64_t t4 = transfer_time_ns(f, 4 * gib, true);
    EXPECT_NEAR(static_cast<double>(t2 - t1), static_cast<double>(t1 - f.latency_ns), 1.0);
    EXPECT_NEAR(static_cast<double>(t4 - t2), 2.0 * static_cast<double>(t2 - t1), 2.0);
    EXPECT_NEAR(static_cast<double>(t1 - f.latency_ns), gib / f.h2d_gbs, 1.0);
    // One byte costs at least a nanosecond beyond the latency; D2H uses its own rate.
    EXPECT_EQ(transfer_time_ns(f, 1, false), f.latency_ns + 1);
    EXPECT_LT(transfer_time_ns(f, gib, false), t1);  // D2H is the faster way on TB5
}

}  // namespace
}  // namespace cudabridge::usb4
