// diag levels 2 and 3: tests that move data to and compute on the connected eGPU.
#include "diag/checks.hpp"

#include "device_report.hpp"
#include "device_text.hpp"
#include "runtime_buffers.hpp"
#include "exit_codes.hpp"
#include "interruption.hpp"

#include <cudabridge/core/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace cudabridge::cli {

namespace {

using steady = std::chrono::steady_clock;

void emit(diag_context& c, int level, const std::string& test, verdict v, const std::string& reason,
          json_object details = nullptr) {
    c.report({level, test, v, reason, std::move(details)});
}

verdict ratio_verdict(double ratio) {
    return ratio >= 0.8 ? verdict::pass : ratio >= 0.5 ? verdict::warn : verdict::fail;
}

void bandwidth(diag_context& c, host::device& d, bool simulated) {
    auto& rt = c.rt;
    const size_t size = 64u << 20;
    const int reps = 4;
    pinned_buffer src(rt, size), dst(rt, size);
    device_buffer dev(rt, size);
    for (size_t i = 0; i < size; ++i) src.get()[i] = static_cast<unsigned char>((i * 2654435761u) >> 11);
    // Each copy timed alone, the best of `reps` (best_device_seconds: a loaded host must not fail
    // a healthy link).
    const double h2d_s = best_device_seconds(
        rt, reps, [&] { host::check(rt.memcpy(dev.get(), src.get(), size, cbMemcpyHostToDevice, nullptr, true)); });
    const double d2h_s = best_device_seconds(
        rt, reps, [&] { host::check(rt.memcpy(dst.get(), dev.get(), size, cbMemcpyDeviceToHost, nullptr, true)); });
    const bool intact = std::memcmp(src.get(), dst.get(), size) == 0;
    const auto ls = d.link_status();
    const double h2d = size / h2d_s / 1e9, d2h = size / d2h_s / 1e9;
    const double rh = ls.h2d_bandwidth_gbs > 0 ? h2d / ls.h2d_bandwidth_gbs : 0;
    const double rd = ls.d2h_bandwidth_gbs > 0 ? d2h / ls.d2h_bandwidth_gbs : 0;
    auto det = make_object();
    det->set("h2d_gbs", h2d);
    det->set("d2h_gbs", d2h);
    det->set("link_h2d_gbs", ls.h2d_bandwidth_gbs);
    det->set("link_d2h_gbs", ls.d2h_bandwidth_gbs);
    det->set("figures", std::string(provenance(simulated)));
    det->set("data_intact", intact);
    const std::string text = "pinned 64 MiB, best of " + std::to_string(reps) + ": host-to-device " + fixed(h2d, 2) +
                             " GB/s (" + fixed(100 * rh, 0) + " % of the link's " + fixed(ls.h2d_bandwidth_gbs, 2) +
                             "), device-to-host " + fixed(d2h, 2) + " GB/s (" + fixed(100 * rd, 0) + " % of " +
                             fixed(ls.d2h_bandwidth_gbs, 2) + "), " + provenance(simulated) + "; pass at 80 %";
    if (!intact)
        emit(c, 2, "pcie_bandwidth", verdict::fail, "data came back different after a round trip; " + text, det);
    else
        emit(c, 2, "pcie_bandwidth", std::max(ratio_verdict(rh), ratio_verdict(rd)), text, det);
}

void latency(diag_context& c, bool simulated) {
    auto& rt = c.rt;
    pinned_buffer host_word(rt, 4);
    device_buffer dev(rt, 4);
    const int reps = 100;
    const double dev_s = best_device_seconds(
        rt, reps, [&] { host::check(rt.memcpy(dev.get(), host_word.get(), 4, cbMemcpyHostToDevice, nullptr, true)); });
    const auto t0 = steady::now();
    for (int i = 0; i < reps; ++i)
        host::check(rt.memcpy(dev.get(), host_word.get(), 4, cbMemcpyHostToDevice, nullptr, false));
    const double wall_us = std::chrono::duration<double, std::micro>(steady::now() - t0).count() / reps;
    const double dev_us = dev_s * 1e6;
    auto det = make_object();
    det->set("device_us", dev_us);
    det->set("wall_us", wall_us);
    det->set("figures", std::string(provenance(simulated)));
    const verdict v = dev_us <= 50 ? verdict::pass : dev_us <= 1000 ? verdict::warn : verdict::fail;
    emit(c, 2, "pcie_latency", v,
         "a 4-byte copy takes " + fixed(dev_us, 2) + " us on the device's clock (best of " + std::to_string(reps) +
             ", " + provenance(simulated) + "), " + fixed(wall_us, 1) +
             " us synchronous on the wall clock (measured); pass up to 50 us",
         det);
}

void link_errors(diag_context& c, const cb_link_status& before, const cb_link_status& after, double minutes) {
    auto& s = c.rt.current_session();
    const uint64_t packets = after.packets - before.packets;
    const uint64_t crc = after.crc_errors - before.crc_errors;
    const uint64_t replays = after.replays - before.replays;
    const double rate = packets ? static_cast<double>(crc + replays) / static_cast<double>(packets) : 0;
    const double threshold = s.safety_number("error_rate_threshold", 0.01);
    const double per_minute = minutes > 0 ? static_cast<double>(replays) / minutes : 0;
    auto det = make_object();
    det->set("packets", packets);
    det->set("crc_errors", crc);
    det->set("replays", replays);
    det->set("error_rate", rate);
    det->set("error_rate_threshold", threshold);
    det->set("replays_per_minute", per_minute);
    const std::string text = std::to_string(crc) + " CRC errors and " + std::to_string(replays) + " replays in " +
                             std::to_string(packets) + " packets (rate " + fixed(rate, 6) + " against the policy's " +
                             fixed(threshold, 4) + "; DCGM allows 80 replays a run, 8 a minute)";
    verdict v = verdict::pass;
    if (rate > threshold || replays > 80)
        v = verdict::fail;
    else if (crc > 0 || per_minute > 8)
        v = verdict::warn;
    emit(c, 2, "pcie_errors", v, text, det);
}

void downgrade(diag_context& c, host::device& d, const gpu_readings& r) {
    const auto& e = d.enclosure();
    std::vector<std::string> issues;
    if (e.generation != CB_LINK_OCULINK && e.lanes < 2)
        issues.push_back("the USB4 link runs on " + std::to_string(e.lanes) + " lane (2 expected)");
    const double nominal = e.generation == CB_LINK_USB4_V2                              ? 40
                           : e.generation == CB_LINK_TB3 || e.generation == CB_LINK_TB4 ? 20
                                                                                        : 0;
    if (nominal > 0 && e.lane_speed_gbps + 0.5 < nominal)
        issues.push_back("lanes run at " + fixed(e.lane_speed_gbps, 1) + " Gb/s of " + fixed(nominal, 0));
    if (r.telemetry.pcie_link_width > 0 && r.telemetry.pcie_link_width < 4)
        issues.push_back("the GPU's PCIe link is x" + std::to_string(r.telemetry.pcie_link_width) +
                         " (x4 expected behind a tunnel)");
    auto det = make_object();
    det->set("usb4_lanes", e.lanes);
    det->set("lane_speed_gbps", e.lane_speed_gbps);
    det->set("pcie_link_gen", r.telemetry.pcie_link_gen);
    det->set("pcie_link_width", r.telemetry.pcie_link_width);
    if (issues.empty())
        emit(c, 2, "link_downgrade", verdict::pass,
             std::string(generation_name(e.generation)) + " " + std::to_string(e.lanes) + " x " +
                 fixed(e.lane_speed_gbps, 0) + " Gb/s, PCIe gen" + std::to_string(r.telemetry.pcie_link_gen) + " x" +
                 std::to_string(r.telemetry.pcie_link_width) + " at the enclosure's port: no downgrade",
             det);
    else
        emit(c, 2, "link_downgrade", verdict::warn, join(issues, "; "), det);
}

void vram_pattern(diag_context& c) {
    auto& rt = c.rt;
    size_t free_bytes = 0, total = 0;
    host::check(rt.mem_get_info(&free_bytes, &total));
    const size_t size = std::min<size_t>(256u << 20, free_bytes / 4) & ~size_t{4095};
    device_buffer dev(rt, size);
    pinned_buffer host_buf(rt, size), expect(rt, size);
    std::string failure;
    const unsigned char fills[] = {0x00, 0xFF, 0x55, 0xAA};
    for (unsigned char f : fills) {
        host::check(rt.memset(dev.get(), f, size, nullptr, false));
        host::check(rt.memcpy(host_buf.get(), dev.get(), size, cbMemcpyDeviceToHost, nullptr, false));
        for (size_t i = 0; i < size && failure.empty(); ++i)
            if (host_buf.get()[i] != f)
                failure =
                    "byte " + std::to_string(i) + " read " + hex16(host_buf.get()[i]) + " after a fill of " + hex16(f);
    }
    // Each 8-byte word holds its own offset: catches address-line faults that fills cannot.
    auto* words = reinterpret_cast<uint64_t*>(expect.get());
    for (size_t i = 0; i < size / 8; ++i) words[i] = i * 8 ^ 0x5a5a5a5a5a5a5a5aull;
    host::check(rt.memcpy(dev.get(), expect.get(), size, cbMemcpyHostToDevice, nullptr, false));
    host::check(rt.memcpy(host_buf.get(), dev.get(), size, cbMemcpyDeviceToHost, nullptr, false));
    if (failure.empty() && std::memcmp(host_buf.get(), expect.get(), size) != 0)
        failure = "the address-in-address pattern came back different";
    auto det = make_object();
    det->set("bytes", size);
    det->set("patterns", 5);
    if (failure.empty())
        emit(c, 2, "vram_pattern", verdict::pass,
             bytes_text(size) + " written and read back with 5 patterns (4 fills, address-in-address)", det);
    else
        emit(c, 2, "vram_pattern", verdict::fail, failure, det);
}

}  // namespace

namespace {

// Why level 2 or 3 cannot run without a device.
std::string no_device_text(const diag_context& c) {
    return c.unreachable.empty() ? "no eGPU is connected: connect one first ('cudabridge-cli connect')" : c.unreachable;
}

}  // namespace

void link_checks(diag_context& c) {
    if (c.device < 0) {
        emit(c, 2, "link", verdict::fail, no_device_text(c));
        return;
    }
    auto& d = c.rt.device(c.device);
    host::check(c.rt.set_device(c.device));
    const bool simulated = d.properties().is_simulated != 0;
    const auto before = d.link_status();
    const auto t0 = steady::now();
    bandwidth(c, d, simulated);
    latency(c, simulated);
    vram_pattern(c);
    const double minutes = std::chrono::duration<double>(steady::now() - t0).count() / 60;
    link_errors(c, before, d.link_status(), minutes);
    downgrade(c, d, read_gpu(d));
}

void stress_checks(diag_context& c) {
    if (c.device < 0) {
        emit(c, 3, "compute_stress", verdict::fail, no_device_text(c));
        return;
    }
    auto& rt = c.rt;
    auto& d = rt.device(c.device);
    host::check(rt.set_device(c.device));
    const int64_t n = 256;
    const size_t bytes = static_cast<size_t>(n * n) * sizeof(float);
    // Small integers: every product and sum is exact in float32, so the check is exact too.
    std::vector<float> a(n * n), b(n * n), expect(n * n, 0.0f), got(n * n);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < n; ++k) {
            a[i * n + k] = static_cast<float>((i + k) % 7 - 3);
            b[i * n + k] = static_cast<float>((i * 3 + k) % 5 - 2);
        }
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < n; ++k)
            for (int64_t j = 0; j < n; ++j) expect[i * n + j] += a[i * n + k] * b[k * n + j];
    device_buffer da(rt, bytes), db(rt, bytes), dc(rt, bytes);
    host::check(rt.memcpy(da.get(), a.data(), bytes, cbMemcpyHostToDevice, nullptr, false));
    host::check(rt.memcpy(db.get(), b.data(), bytes, cbMemcpyHostToDevice, nullptr, false));
    const cbTensor ta = square_matrix(da.get(), n), tb = square_matrix(db.get(), n), tc = square_matrix(dc.get(), n);
    const cbKernelArg args[] = {cbArgTensor(&ta), cbArgTensor(&tb), cbArgTensor(&tc)};

    const double limit_c = rt.current_session().safety_number("thermal_limit", 90);
    double max_temp = 0, max_power = 0, power_limit = 0;
    uint32_t throttles = 0;
    uint64_t iterations = 0, wrong = 0, samples = 0;
    const auto end = steady::now() + std::chrono::duration<double>(c.stress_seconds);
    auto next_sample = steady::now();
    // Ctrl-C ends the stress early; the figures cover the time it ran.
    const auto started = steady::now();
    while (steady::now() < end && !interruption_requested()) {
        for (int k = 0; k < 8; ++k) host::check(rt.launch_builtin("matmul", CB_DTYPE_FLOAT32, args, 3, nullptr));
        host::check(rt.memcpy(got.data(), dc.get(), bytes, cbMemcpyDeviceToHost, nullptr, false));
        iterations += 8;
        wrong += got != expect;  // by value: the sums are exact, so equal values are the right answer
        if (steady::now() >= next_sample) {
            cb_gpu_telemetry t{};
            if (d.read_telemetry(t) != CB_OK) throw cli_error(exit_device_lost, core::last_error());
            max_temp = std::max(max_temp, t.temperature_c);
            max_power = std::max(max_power, t.power_w);
            power_limit = t.power_limit_w;
            throttles |= t.throttle_reasons & ~static_cast<uint32_t>(CB_THROTTLE_IDLE);
            ++samples;
            next_sample += std::chrono::milliseconds(250);
        }
    }
    const bool simulated = d.properties().is_simulated != 0;
    const double ran_s = std::chrono::duration<double>(steady::now() - started).count();
    auto det = make_object();
    det->set("seconds", ran_s);
    det->set("matmuls", iterations);
    det->set("wrong_results", wrong);
    emit(c, 3, "compute_stress", wrong ? verdict::fail : verdict::pass,
         std::to_string(iterations) + " float32 256x256 matrix products in " + fixed(ran_s, 0) + " s, " +
             std::to_string(wrong) + " wrong (each checked exactly against the CPU)",
         det);
    auto th = make_object();
    th->set("max_temperature_c", max_temp);
    th->set("max_power_w", max_power);
    th->set("power_limit_w", power_limit);
    th->set("thermal_limit_c", limit_c);
    th->set("samples", samples);
    auto reasons = make_array();
    for (const auto& r : throttle_names(throttles)) reasons->add(r);
    th->set("throttle_reasons", reasons);
    th->set("figures", std::string(provenance(simulated)));
    const std::string text =
        "under load: up to " + fixed(max_temp, 1) + " C (safety limit " + fixed(limit_c, 0) + " C), up to " +
        fixed(max_power, 0) + " W of a " + fixed(power_limit, 0) +
        " W limit, throttling: " + (throttles ? join(throttle_names(throttles), ", ") : std::string("none")) + " (" +
        provenance(simulated) + ")";
    verdict v = verdict::pass;
    if (max_temp >= limit_c || d.state() != host::device_state::connected)
        v = verdict::fail;
    else if (throttles & (CB_THROTTLE_HW_SLOWDOWN | CB_THROTTLE_SW_THERMAL | CB_THROTTLE_HW_THERMAL) ||
             max_power > power_limit * 1.05)
        v = verdict::warn;
    emit(c, 3, "thermal_power", v, text, th);
}

}  // namespace cudabridge::cli
