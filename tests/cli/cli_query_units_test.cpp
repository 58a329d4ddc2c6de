// The pure parts of `query` and `exporter`, on hand-made readings: field lists, nvidia-smi's
// value and heading text, --format and --listen parsing, safety event counts, and the Prometheus
// text (families, labels, escaping, a GPU that gave no telemetry).
#include "exporter/listen_address.hpp"
#include "exporter/prometheus_text.hpp"
#include "query/device_ids.hpp"
#include "query/fields.hpp"
#include "query/read_snapshot.hpp"
#include "query/pmon_text.hpp"
#include "query/render.hpp"
#include "query/summary_table.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace cudabridge::cli {
namespace {

query::gpu_snapshot reading() {
    query::gpu_snapshot s;
    s.index = 1;
    s.gpu_count = 2;
    s.device_id = "enc-1";
    s.name = "NVIDIA Test \"GPU\"";
    s.uuid = "GPU-00000000-0000-0000-0000-000000000001";
    s.pci_bus_id = "0000:3b:00.0";
    s.compute_major = 8;
    s.compute_minor = 9;
    s.total_memory = 24ull << 30;
    s.max_sm_clock_mhz = 2520;
    s.max_memory_clock_mhz = 10501;
    s.simulated = true;
    cb_gpu_telemetry t{};
    t.temperature_c = 44.6;
    t.power_w = 120.5;
    t.power_limit_w = 450;
    t.fan_percent = -1;  // no readout
    t.sm_clock_mhz = 2100;
    t.memory_clock_mhz = 10501;
    t.gpu_utilization = 34.6;
    t.memory_utilization = 10.2;
    t.memory_used = 1536ull << 20;
    t.memory_total = 24ull << 30;
    t.performance_state = 2;
    t.throttle_reasons = CB_THROTTLE_SW_POWER_CAP;
    t.pcie_link_gen = 4;
    t.pcie_link_width = 4;
    s.telemetry = t;
    s.link.up = 1;
    s.link.h2d_bandwidth_gbs = 3.94;
    s.link.d2h_bandwidth_gbs = 3.5;
    s.link.crc_errors = 7;
    s.link.replays = 5;
    s.link_generation = CB_LINK_TB4;
    s.link_lanes = 2;
    s.link_lane_speed_gbps = 20;
    s.state = "connected";
    return s;
}

std::vector<query::requested_field> fields(const std::string& list) {
    std::string unknown;
    auto out = query::parse_field_list(list, unknown);
    EXPECT_TRUE(unknown.empty()) << unknown;
    return out;
}

TEST(query_fields, ListsParseWithAliasesAndNameTheFirstUnknownField) {
    std::string unknown;
    const auto f = query::parse_field_list(" name , clocks.current.sm,clocks.sm", unknown);
    ASSERT_EQ(f.size(), 3u);
    EXPECT_EQ(f[1].f, f[2].f);  // an alias reads the same field
    EXPECT_EQ(f[1].as_typed, "clocks.current.sm");
    EXPECT_TRUE(query::parse_field_list("name,bogus,other", unknown).empty());
    EXPECT_EQ(unknown, "bogus");
    EXPECT_TRUE(query::parse_field_list(",,", unknown).empty());
    EXPECT_TRUE(unknown.empty());
}

TEST(query_fields, ValuesReadAsNvidiaSmiPrintsThem) {
    const auto f = fields(
        "index,name,pci.bus_id,compute_cap,temperature.gpu,power.draw,memory.used,memory.free,"
        "memory.total,utilization.gpu,fan.speed,pstate,clocks_event_reasons.active,link.speed,"
        "link.bandwidth.h2d,link.crc_errors,link.generation,safety.state,count");
    EXPECT_EQ(query::csv_row(f, reading(), true),
              "1, NVIDIA Test \"GPU\", 00000000:3B:00.0, 8.9, 45, 120.50 W, 1536 MiB, 23040 MiB, 24576 MiB, 35 %, "
              "[N/A], P2, 0x0000000000000004, 40 Gb/s, 3.94 GB/s, 7, Thunderbolt 4, connected, 2");
    EXPECT_EQ(query::csv_row(fields("power.draw,memory.used,fan.speed"), reading(), false), "120.50, 1536, [N/A]");
    EXPECT_EQ(query::csv_heading(fields("power.draw,temperature.gpu,clocks.current.sm")),
              "power.draw [W], temperature.gpu, clocks.current.sm [MHz]");
}

TEST(query_fields, WithoutTelemetryItsFieldsAreNotAvailable) {
    auto s = reading();
    s.telemetry.reset();
    EXPECT_EQ(query::csv_row(fields("name,power.draw,memory.used,memory.total"), s, true),
              "NVIDIA Test \"GPU\", [N/A], [N/A], 24576 MiB");
    const auto j = query::json_row(fields("power.draw,name"), s);
    EXPECT_TRUE(j->getObject("values")->get("power.draw").isEmpty());
    EXPECT_EQ(j->getObject("values")->getValue<std::string>("name"), "NVIDIA Test \"GPU\"");
}

TEST(query_fields, BusIdsTakeNvidiaSmisForm) {
    EXPECT_EQ(query::nvidia_smi_bus_id("0000:05:00.0"), "00000000:05:00.0");
    EXPECT_EQ(query::nvidia_smi_bus_id("3b:00.1"), "00000000:3B:00.1");
    EXPECT_EQ(query::nvidia_smi_bus_id("00000000:3B:00.0"), "00000000:3B:00.0");
}

TEST(query_fields, EveryFieldHasADescriptionAndAnOrigin) {
    const std::string help = query::help_query_text();
    for (const auto& f : query::all_fields()) {
        EXPECT_FALSE(f.description.empty()) << f.name;
        EXPECT_NE(help.find("\n" + f.name + " "), std::string::npos) << f.name;
    }
    EXPECT_TRUE(query::modeled_on_simulator(query::origin::telemetry));
    EXPECT_FALSE(query::modeled_on_simulator(query::origin::store));
}

TEST(query_format, CsvVariantsAndJson) {
    std::string why;
    auto f = query::parse_format("csv,noheader,nounits", why);
    ASSERT_TRUE(f);
    EXPECT_FALSE(f->json);
    EXPECT_FALSE(f->header);
    EXPECT_FALSE(f->units);
    f = query::parse_format("json", why);
    ASSERT_TRUE(f);
    EXPECT_TRUE(f->json);
    for (const char* bad : {"", "xml", "csv,json", "noheader", "json,nounits", "csv,,nounits"})
        EXPECT_FALSE(query::parse_format(bad, why)) << bad;
    EXPECT_FALSE(query::parse_format("csv,bogus", why));
    EXPECT_NE(why.find("'bogus'"), std::string::npos) << why;
}

TEST(exporter_listen, AddressesAndMistakes) {
    std::string why;
    auto a = exporter::parse_listen_address("127.0.0.1:9400", why);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->host, "127.0.0.1");
    EXPECT_EQ(a->port, 9400);
    a = exporter::parse_listen_address(":9400", why);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->host, "");
    a = exporter::parse_listen_address("[::1]:0", why);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->host, "::1");
    EXPECT_EQ(a->port, 0);
    for (const char* bad : {"9400", "host:", "host:65536", "host:-1", "host:94x", "::1:9400", "[::1]9400", "[]:1"})
        EXPECT_FALSE(exporter::parse_listen_address(bad, why)) << bad;
}

TEST(query_safety, EventsCountAsInterventionsAndRecoveries) {
    std::vector<core::event_row> events(5);
    events[0].kind = "safety.warn";
    events[1].kind = "safety.hard_reset";
    events[2].kind = "safety.reconnect";
    events[3].kind = "safety.manual_reset";  // a person's, not the policy's
    events[4].kind = "connect.attach";
    query::gpu_snapshot s;
    query::count_safety_events(events, s);
    EXPECT_EQ(s.recoveries, 2u);
    EXPECT_EQ(s.interventions["warn"], 1u);
    EXPECT_EQ(s.interventions["hard_reset"], 1u);
    EXPECT_EQ(s.interventions.count("manual_reset"), 0u);
}

TEST(query_safety, TheGateCorrectsAStateThisProcessHasNotSeenChange) {
    using host::device_state;
    EXPECT_EQ(query::reported_state(device_state::connected, CB_OK), "connected");
    EXPECT_EQ(query::reported_state(device_state::connected, CB_ERR_DEVICE_LOST), "lost");
    EXPECT_EQ(query::reported_state(device_state::connected, CB_ERR_LINK_DOWN), "lost");
    EXPECT_EQ(query::reported_state(device_state::connected, CB_ERR_THERMAL_LIMIT), "emergency-stop");
    EXPECT_EQ(query::reported_state(device_state::recovering, CB_ERR_BUSY), "recovering");
    EXPECT_EQ(query::reported_state(device_state::failed, CB_ERR_DEVICE_LOST), "failed");
    // Another process's policy marked it failed: this process's gate refuses it as lost.
    EXPECT_EQ(query::reported_state(device_state::connected, CB_ERR_DEVICE_LOST, true), "failed");
}

TEST(exporter_text, FamiliesLabelsAndValues) {
    const std::string text = exporter::render_metrics({reading()}, "host-1");
    const std::string labels =
        "gpu=\"1\",UUID=\"GPU-00000000-0000-0000-0000-000000000001\",pci_bus_id=\"00000000:3B:00.0\","
        "device=\"nvidia1\",modelName=\"NVIDIA Test \\\"GPU\\\"\",Hostname=\"host-1\"";
    EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_GPU_TEMP gauge\nDCGM_FI_DEV_GPU_TEMP{" + labels + "} 45\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("DCGM_FI_DEV_POWER_USAGE{" + labels + "} 120.5\n"), std::string::npos);
    EXPECT_NE(text.find("DCGM_FI_DEV_FB_USED{" + labels + "} 1536\n"), std::string::npos);
    EXPECT_NE(text.find("DCGM_FI_DEV_FB_FREE{" + labels + "} 23040\n"), std::string::npos);
    EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_PCIE_REPLAY_COUNTER counter\n"), std::string::npos);
    EXPECT_NE(text.find("DCGM_FI_DEV_PCIE_REPLAY_COUNTER{" + labels + "} 5\n"), std::string::npos);
    EXPECT_NE(text.find("cudabridge_link_crc_errors_total{" + labels + "} 7\n"), std::string::npos);
    EXPECT_NE(text.find("cudabridge_safety_state{" + labels + ",state=\"connected\"} 1\n"), std::string::npos);
    EXPECT_NE(text.find("cudabridge_safety_state{" + labels + ",state=\"lost\"} 0\n"), std::string::npos);
    EXPECT_NE(text.find("cudabridge_link_bandwidth_bytes_per_second{" + labels + ",direction=\"h2d\"} 3940000000\n"),
              std::string::npos);
    EXPECT_EQ(text.find("DCGM_FI_DEV_FAN_SPEED{"), std::string::npos) << "no fan readout, no sample";
    // Every family has its HELP and TYPE once.
    EXPECT_EQ(text.find("# HELP DCGM_FI_DEV_GPU_TEMP "), text.rfind("# HELP DCGM_FI_DEV_GPU_TEMP "));
}

TEST(exporter_text, AGpuWithoutTelemetryKeepsItsIdentityAndSaysSo) {
    auto s = reading();
    s.telemetry.reset();
    const std::string text = exporter::render_metrics({s}, "h");
    EXPECT_EQ(text.find("DCGM_FI_DEV_GPU_TEMP{"), std::string::npos);
    EXPECT_NE(text.find("DCGM_FI_DEV_FB_TOTAL{"), std::string::npos);
    EXPECT_NE(text.find("cudabridge_gpu_telemetry_available{gpu=\"1\""), std::string::npos);
    EXPECT_NE(text.find("} 0\n", text.find("cudabridge_gpu_telemetry_available{")), std::string::npos);
    EXPECT_EQ(exporter::escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

// nvidia-smi -i: an index, a UUID (with or without GPU-, any case) or a PCI bus id (with or
// without its domain, any case), comma-separated, each eGPU once, in the order named.
TEST(DeviceIds, IndexUuidAndBusIdEachNameTheirGpu) {
    const std::vector<query::device_identity> gpus = {
        {0, "GPU-771f3e6b-c6b2-94ff-63f4-d84487fdb8d6", "00000000:12:00.0"},
        {1, "GPU-00000000-0000-0000-0000-0000000000aa", "00000000:3B:00.0"}};
    std::string unknown;
    for (const char* id : {"1", "GPU-00000000-0000-0000-0000-0000000000AA", "00000000-0000-0000-0000-0000000000aa",
                           "3b:00.0", "0000:3B:00.0", "00000000:3b:00.0"}) {
        EXPECT_EQ(query::pick_devices(id, gpus, unknown), std::vector<int>{1}) << id;
        EXPECT_EQ(unknown, "") << id;
    }
    EXPECT_EQ(query::pick_devices("1, 12:00.0,0", gpus, unknown), (std::vector<int>{1, 0}));
}

TEST(DeviceIds, AnIdThatNamesNoGpuIsReported) {
    const std::vector<query::device_identity> gpus = {
        {0, "GPU-771f3e6b-c6b2-94ff-63f4-d84487fdb8d6", "00000000:12:00.0"}};
    for (const char* id : {"2", "13:00.0", "GPU-771f3e6b", "12:00.1", "0,x", "12:00.0junk", "-1"}) {
        std::string unknown;
        EXPECT_TRUE(query::pick_devices(id, gpus, unknown).empty()) << id;
        EXPECT_FALSE(unknown.empty()) << id;
    }
}

// Every field of `nvidia-smi --help-query-gpu` (a CUDA 13 driver's list, 202 names) is a field
// here, so that a script written for nvidia-smi never stops at an unknown one; each gives a value
// or nvidia-smi's own text for what the board lacks.
TEST(NvidiaSmiFields, EveryFieldOfTheDriversListIsKnownAndGivesText) {
    const std::string list =
        "timestamp,driver_version,kmd_version,vgpu_driver_capability.heterogenous_multivGPU,count,name,serial"
        ",uuid,pci.bus_id,pci.domain,pci.bus,pci.device,pci.baseClass,pci.subClass,pci.device_id,pci.sub_devi"
        "ce_id,vgpu_device_capability.fractional_multiVgpu,vgpu_device_capability.heterogeneous_timeSlice_pro"
        "file,vgpu_device_capability.heterogeneous_timeSlice_sizes,vgpu_device_capability.homogeneous_placeme"
        "nts,vgpu_device_capability.mig_timeSlicing,vgpu_device_capability.mig_timeSlicing_mode,pcie.link.gen"
        ".current,pcie.link.gen.gpucurrent,pcie.link.gen.max,pcie.link.gen.gpumax,pcie.link.gen.hostmax,pcie."
        "link.width.current,pcie.link.width.max,index,display_mode,display_attached,display_active,persistenc"
        "e_mode,addressing_mode,accounting.mode,accounting.buffer_size,driver_model.current,driver_model.pend"
        "ing,vbios_version,inforom.img,inforom.oem,inforom.ecc,inforom.pwr,inforom.checksum_validation,gpu_re"
        "covery_action,gom.current,gom.pending,fan.speed,pstate,clocks_event_reasons.supported,clocks_event_r"
        "easons.active,clocks_event_reasons.gpu_idle,clocks_event_reasons.applications_clocks_setting,clocks_"
        "event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.hw_thermal_slowdown"
        ",clocks_event_reasons.hw_power_brake_slowdown,clocks_event_reasons.sw_thermal_slowdown,clocks_event_"
        "reasons.sync_boost,clocks_event_reasons_counters.sw_power_cap,clocks_event_reasons_counters.sync_boo"
        "st,clocks_event_reasons_counters.sw_thermal_slowdown,clocks_event_reasons_counters.hw_thermal_slowdo"
        "wn,clocks_event_reasons_counters.hw_power_brake_slowdown,memory.total,memory.reserved,memory.used,me"
        "mory.free,compute_mode,compute_cap,utilization.gpu,utilization.memory,utilization.encoder,utilizatio"
        "n.decoder,utilization.jpeg,utilization.ofa,encoder.stats.sessionCount,encoder.stats.averageFps,encod"
        "er.stats.averageLatency,dramEncryption.mode.current,dramEncryption.mode.pending,ecc.mode.current,ecc"
        ".mode.pending,ecc.errors.corrected.volatile.device_memory,ecc.errors.corrected.volatile.dram,ecc.err"
        "ors.corrected.volatile.register_file,ecc.errors.corrected.volatile.l1_cache,ecc.errors.corrected.vol"
        "atile.l2_cache,ecc.errors.corrected.volatile.texture_memory,ecc.errors.corrected.volatile.cbu,ecc.er"
        "rors.corrected.volatile.sram,ecc.errors.corrected.volatile.total,ecc.errors.corrected.aggregate.devi"
        "ce_memory,ecc.errors.corrected.aggregate.dram,ecc.errors.corrected.aggregate.register_file,ecc.error"
        "s.corrected.aggregate.l1_cache,ecc.errors.corrected.aggregate.l2_cache,ecc.errors.corrected.aggregat"
        "e.texture_memory,ecc.errors.corrected.aggregate.cbu,ecc.errors.corrected.aggregate.sram,ecc.errors.c"
        "orrected.aggregate.total,ecc.errors.uncorrected.volatile.device_memory,ecc.errors.uncorrected.volati"
        "le.dram,ecc.errors.uncorrected.volatile.register_file,ecc.errors.uncorrected.volatile.l1_cache,ecc.e"
        "rrors.uncorrected.volatile.l2_cache,ecc.errors.uncorrected.volatile.texture_memory,ecc.errors.uncorr"
        "ected.volatile.cbu,ecc.errors.uncorrected.volatile.sram,ecc.errors.uncorrected.volatile.total,ecc.er"
        "rors.uncorrected.aggregate.device_memory,ecc.errors.uncorrected.aggregate.dram,ecc.errors.uncorrecte"
        "d.aggregate.register_file,ecc.errors.uncorrected.aggregate.l1_cache,ecc.errors.uncorrected.aggregate"
        ".l2_cache,ecc.errors.uncorrected.aggregate.texture_memory,ecc.errors.uncorrected.aggregate.cbu,ecc.e"
        "rrors.uncorrected.aggregate.sram,ecc.errors.uncorrected.aggregate.total,ecc.errors.uncorrected.volat"
        "ile.sram.parity,ecc.errors.uncorrected.volatile.sram.secded,ecc.errors.uncorrected.aggregate.sram.pa"
        "rity,ecc.errors.uncorrected.aggregate.sram.secded,ecc.errors.uncorrected.aggregate.sram.thresholdExc"
        "eeded,ecc.errors.uncorrected.aggregate.sram.l2,ecc.errors.uncorrected.aggregate.sram.sm,ecc.errors.u"
        "ncorrected.aggregate.sram.mcu,ecc.errors.uncorrected.aggregate.sram.pcie,ecc.errors.uncorrected.aggr"
        "egate.sram.other,retired_pages.single_bit_ecc.count,retired_pages.double_bit.count,retired_pages.pen"
        "ding,remapped_rows.correctable,remapped_rows.correctable_inactive,remapped_rows.uncorrectable,remapp"
        "ed_rows.uncorrectable_inactive,remapped_rows.pending,remapped_rows.failure,remapped_rows.histogram.m"
        "ax,remapped_rows.histogram.high,remapped_rows.histogram.partial,remapped_rows.histogram.low,remapped"
        "_rows.histogram.none,temperature.gpu,temperature.gpu.tlimit,temperature.memory,power.management,powe"
        "r.draw,power.draw.average,power.draw.instant,power.limit,enforced.power.limit,power.default_limit,po"
        "wer.min_limit,power.max_limit,module.power.draw.average,module.power.draw.instant,module.power.limit"
        ",module.enforced.power.limit,module.power.default_limit,module.power.min_limit,module.power.max_limi"
        "t,edpp_multiplier,clocks.current.graphics,clocks.current.sm,clocks.current.memory,clocks.current.vid"
        "eo,clocks.applications.graphics,clocks.applications.memory,clocks.default_applications.graphics,cloc"
        "ks.default_applications.memory,clocks.max.graphics,clocks.max.sm,clocks.max.memory,mig.mode.current,"
        "mig.mode.pending,gsp.mode.current,gsp.mode.default,c2c.mode,protected_memory.total,protected_memory."
        "used,protected_memory.free,fabric.state,fabric.status,fabric.cliqueId,fabric.clusterUuid,fabric.heal"
        "th.summary,fabric.health.bandwidth,fabric.health.route_recovery_in_progress,fabric.health.route_unhe"
        "althy,fabric.health.access_timeout_recovery,fabric.health.incorrect_configuration,fabric.health.part"
        "ition_assigned,platform.chassis_serial_number,platform.slot_number,platform.tray_index,platform.host"
        "_id,platform.peer_type,platform.module_id,platform.gpu_fabric_guid,hostname";
    std::string unknown;
    const auto fields = query::parse_field_list(list, unknown);
    EXPECT_EQ(unknown, "");
    EXPECT_EQ(fields.size(), 202u);
    const auto s = reading();
    for (const auto& r : fields) EXPECT_NO_THROW(query::value_text(*r.f, r.f->read(s), true)) << r.as_typed;
    auto text = [&](const char* name) {
        const auto* f = query::find_field(name);
        return f ? query::value_text(*f, f->read(s), true) : std::string("unknown");
    };
    EXPECT_EQ(text("serial"), "[N/A]");
    EXPECT_EQ(text("temperature.memory"), "N/A");  // nvidia-smi's own spelling there, without brackets
    EXPECT_EQ(text("pci.domain"), "0x0000");
    EXPECT_EQ(text("pci.bus"), "0x3B");
    EXPECT_EQ(text("clocks.applications.graphics"), "[Requested functionality has been deprecated]");
    EXPECT_EQ(text("power.draw.average"), text("power.draw"));
    EXPECT_EQ(text("clocks.gr"), text("clocks.sm"));
    EXPECT_EQ(text("memory.reserved"), "0 MiB");
}

// nvidia-smi's summary table: 91 columns on every line, a block per GPU with its figures, the
// processes with their memory, and whether the figures are measured or modeled.
TEST(SummaryTable, ShowsEachGpuAndProcessInNvidiaSmisColumns) {
    query::summary_gpu gpu{reading(), {}};
    cb_gpu_process p{};
    p.pid = 4242;
    p.flags = CB_GPU_PROCESS_COMPUTE;
    p.memory_used = 512ull << 20;
    std::snprintf(p.name, sizeof p.name, "%s", "python3");
    gpu.processes.push_back(p);
    const std::string table = query::summary_table({gpu}, "0.1.0", "Tue Dec  8 01:30:00 2026");
    std::istringstream in(table);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "Tue Dec  8 01:30:00 2026");
    while (std::getline(in, line)) EXPECT_TRUE(line.empty() || line.size() == 91u) << line;
    EXPECT_NE(table.find("Figures: modeled (simulated eGPU)"), std::string::npos);
    EXPECT_NE(table.find("00000000:3B:00.0"), std::string::npos);
    EXPECT_NE(table.find("NVIDIA Test \"GPU\""), std::string::npos);
    EXPECT_NE(table.find("4242"), std::string::npos);
    EXPECT_NE(table.find("python3"), std::string::npos);
    EXPECT_NE(table.find("512MiB"), std::string::npos);
    EXPECT_EQ(table.find("No running processes found"), std::string::npos);
    gpu.processes.clear();
    EXPECT_NE(query::summary_table({gpu}, "0.1.0", "now").find("No running processes found"), std::string::npos);
}

// nvidia-smi pmon: its two heading lines, a line per process with its type, dashes for the
// engine shares no process-level figure exists for, fb in MB with -s m, and a line of dashes for
// a GPU no process uses.
TEST(Pmon, LinesFollowNvidiaSmisColumns) {
    const query::pmon_columns both{true, true};
    const auto heading = query::pmon_heading(both);
    ASSERT_EQ(heading.size(), 2u);
    EXPECT_EQ(heading[0], "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb    command");
    EXPECT_EQ(heading[1], "# Idx           #    C/G      %      %      %      %      %      %     MB    name");
    cb_gpu_process p{};
    p.pid = 4242;
    p.flags = CB_GPU_PROCESS_COMPUTE;
    p.memory_used = 512ull << 20;
    std::snprintf(p.name, sizeof p.name, "%s", "python3");
    const auto lines = query::pmon_lines(1, {p}, both);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "    1        4242      C      -      -      -      -      -      -    512    python3");
    EXPECT_EQ(query::pmon_lines(0, {}, query::pmon_columns{})[0],
              "    0           -      -      -      -      -      -      -      -    -");
    EXPECT_EQ(query::pmon_heading(query::pmon_columns{false, true})[0], "# gpu         pid   type     fb    command");
}

}  // namespace
}  // namespace cudabridge::cli
