// The seeded GPU model profiles: the ONE place their data lives.
//
// Each row below holds the figures of docs/gpu-profiles.md as the
// reference gives them; `make_profile` then fills in the figures the reference lacks by the
// rules below and records the source of every figure in `sources`. Items the reference marks
// "(?)" (from memory / unverified) keep that mark in their source text.
//
// Derivation rules (each derived figure's source reads "derived: <rule>"):
//  R1 GeForce power bounds: min = default x 150/320, max = default x 400/320 (rounded to 1 W),
//     the ratios of the RTX 4080 SUPER capture (320 W default, 150-400 W).
//  R2 Professional / datacenter power bounds: min = default x 2/7, max = default; the L40S
//     (100-350 W) and H100 SXM (200-700 W) captures both show min = 2/7 of default, max = default.
//  R3 Temperatures: slowdown = max-operating + 6 C, shutdown = max-operating + 11 C (RTX 4080
//     SUPER capture: 90 / 96 / 101 C). Boards without a max-operating figure in the reference
//     (A4000, A6000, L4, A100, H100) get 85 C, a model choice below the GeForce 90-93 C.
//  R4 Max SM clock: GeForce boost x 3165/2550 (4080 SUPER capture max 3165 MHz over its 2550 MHz
//     boost, the latter from memory (?)); professional / datacenter boards max = boost (L40S and
//     H100 SXM captures report max SM clock = boost (?)).
//  R5 Memory clock = bandwidth x 8 / bus width / 2 (data rate per pin over 2, as nvidia-smi shows
//     it): matches the captures (4080 SUPER 11501, L40S 9001, H100 SXM 2619 MHz).
//  R6 VRAM: the reference's "N GB" as N x 2^30 bytes (4080 SUPER capture: 16376 MiB for 16 GB).
// Model choices (the simulator's own constants, labelled "model choice: ..."): ambient 25 C;
// thermal resistance = 50 C / default power (steady state at default power = ambient + 50 C);
// fan curve 30% at 40 C, 45% at 60 C, 70% at max-op - 15 C, 100% at max-op - 5 C (none for
// passively cooled boards); minimum link bandwidth PCIe 3.0 x4 = 3.94 GB/s (what Thunderbolt 3/4
// tunnel), 7.88 GB/s (PCIe 4.0 x4, USB4 v2 / TB5) for the HBM datacenter boards.
#include "common/profiles/profile.hpp"

#include <cmath>
#include <initializer_list>
#include <utility>

namespace cudabridge::nv {
namespace {

enum class segment { geforce, professional, datacenter };

struct seed_row {
    const char* key;
    const char* name;
    uint16_t pci;
    std::initializer_list<uint16_t> aliases;
    const char* pci_note;  // the reference's wording of the ids
    segment seg;
    const char* architecture;
    const char* chip;
    int cc_major, cc_minor;
    uint32_t sms, cores;
    uint64_t vram_gb;
    const char* memory_type;
    uint32_t bus_bits;
    double bandwidth_gbps;
    double power_w;
    uint32_t base_mhz, boost_mhz;
    double max_temp_c;  // 0: the reference has none
    bool passive;
    // Per-field source overrides: the reference's own marks and remarks.
    std::initializer_list<std::pair<const char*, const char*>> notes;
};

constexpr const char* ref = "docs/gpu-profiles.md";

// clang-format off
const seed_row seed_rows[] = {
  {"rtx-3060", "NVIDIA GeForce RTX 3060", 0x2503, {0x2504, 0x2487, 0x2544, 0x2509},
   "2503 (LHR 2504; also 2487 GA104, 2544, 2509 Rev.2)", segment::geforce,
   "Ampere", "GA106", 8, 6, 28, 3584, 12, "GDDR6", 192, 360, 170, 1320, 1777, 93, false, {}},
  {"rtx-3070", "NVIDIA GeForce RTX 3070", 0x2484, {0x2488}, "2484 (LHR 2488)", segment::geforce,
   "Ampere", "GA104", 8, 6, 46, 5888, 8, "GDDR6", 256, 448, 220, 1500, 1725, 93, false, {}},
  {"rtx-3080", "NVIDIA GeForce RTX 3080", 0x2206, {0x2216}, "2206 (LHR 2216; the 12GB 220a is another model)",
   segment::geforce, "Ampere", "GA102", 8, 6, 68, 8704, 10, "GDDR6X", 320, 760, 320, 1440, 1710, 93, false,
   {{"base_clock_mhz", "docs/gpu-profiles.md (Lambda gpu_specs.csv, TechPowerUp-derived)"}}},
  {"rtx-3090", "NVIDIA GeForce RTX 3090", 0x2204, {}, "2204", segment::geforce,
   "Ampere", "GA102", 8, 6, 82, 10496, 24, "GDDR6X", 384, 936, 350, 1395, 1695, 93, false,
   {{"base_clock_mhz", "docs/gpu-profiles.md (Lambda gpu_specs.csv, TechPowerUp-derived)"}}},
  {"rtx-4060-ti", "NVIDIA GeForce RTX 4060 Ti", 0x2803, {0x2788}, "2803 (8GB); 2788 AD104 variant (?) memory size not given",
   segment::geforce, "Ada Lovelace", "AD106", 8, 9, 34, 4352, 8, "GDDR6", 128, 288, 160, 2310, 2535, 90, false, {}},
  {"rtx-4060-ti-16gb", "NVIDIA GeForce RTX 4060 Ti 16GB", 0x2805, {}, "2805 (16GB)", segment::geforce,
   "Ada Lovelace", "AD106", 8, 9, 34, 4352, 16, "GDDR6", 128, 288, 165, 2310, 2535, 90, false,
   {{"power_default_w", "docs/gpu-profiles.md (16GB 165 W)"}}},
  {"rtx-4070", "NVIDIA GeForce RTX 4070", 0x2786, {0x2709}, "2786 (2709 AD103 var.)", segment::geforce,
   "Ada Lovelace", "AD104", 8, 9, 46, 5888, 12, "GDDR6X", 192, 504, 200, 1920, 2475, 90, false, {}},
  {"rtx-4080", "NVIDIA GeForce RTX 4080", 0x2704, {}, "2704 (SUPER 2702/2703 is its own profile)", segment::geforce,
   "Ada Lovelace", "AD103", 8, 9, 76, 9728, 16, "GDDR6X", 256, 716.8, 320, 2205, 2505, 90, false, {}},
  // Not a row of the §6 table: the model of the reference's real nvidia-smi capture, whose
  // power, temperature and clock figures are ground truth; its launch specs are from memory (?).
  {"rtx-4080-super", "NVIDIA GeForce RTX 4080 SUPER", 0x2702, {0x2703}, "2702/2703 (listed under RTX 4080)",
   segment::geforce, "Ada Lovelace", "AD103", 8, 9, 80, 10240, 16, "GDDR6X", 256, 736, 320, 2295, 2550, 90, false,
   {{"sm_count", "(?) from memory: NVIDIA launch specs, not in docs/gpu-profiles.md"},
    {"cuda_cores", "(?) from memory: NVIDIA launch specs, not in docs/gpu-profiles.md"},
    {"memory_bandwidth_gbps", "(?) from memory: NVIDIA launch specs, not in docs/gpu-profiles.md"},
    {"base_clock_mhz", "(?) from memory: NVIDIA launch specs, not in docs/gpu-profiles.md"},
    {"boost_clock_mhz", "(?) from memory: NVIDIA launch specs, not in docs/gpu-profiles.md"},
    {"power_default_w", "docs/gpu-profiles.md: nvidia-smi capture (utkuozdemir/nvidia_gpu_exporter), 320 W"},
    {"power_min_w", "docs/gpu-profiles.md: nvidia-smi capture, min 150 W"},
    {"power_max_w", "docs/gpu-profiles.md: nvidia-smi capture, max 400 W"},
    {"max_operating_temp_c", "docs/gpu-profiles.md: nvidia-smi capture, max operating 90 C"},
    {"slowdown_temp_c", "docs/gpu-profiles.md: nvidia-smi capture, slowdown 96 C"},
    {"shutdown_temp_c", "docs/gpu-profiles.md: nvidia-smi capture, shutdown 101 C"},
    {"max_clock_mhz", "docs/gpu-profiles.md: nvidia-smi capture, max SM clock 3165 MHz"},
    {"memory_clock_mhz", "derived: R5 gives 11500 MHz; docs/gpu-profiles.md nvidia-smi capture shows 11501 MHz"}}},
  {"rtx-4090", "NVIDIA GeForce RTX 4090", 0x2684, {}, "2684 (the 4090 D 2685 is another model)", segment::geforce,
   "Ada Lovelace", "AD102", 8, 9, 128, 16384, 24, "GDDR6X", 384, 1008, 450, 2235, 2520, 90, false, {}},
  {"rtx-5070", "NVIDIA GeForce RTX 5070", 0x2f04, {}, "2f04", segment::geforce,
   "Blackwell", "GB205", 12, 0, 48, 6144, 12, "GDDR7", 192, 672, 250, 2160, 2510, 90, false,
   {{"power_default_w", "docs/gpu-profiles.md: 250 W (?)"},
    {"max_operating_temp_c", "docs/gpu-profiles.md: (?) ~90 C"}}},
  {"rtx-5080", "NVIDIA GeForce RTX 5080", 0x2c02, {}, "2c02", segment::geforce,
   "Blackwell", "GB203", 12, 0, 84, 10752, 16, "GDDR7", 256, 960, 360, 2300, 2620, 88, false,
   {{"power_default_w", "docs/gpu-profiles.md: 360 W (?)"},
    {"max_operating_temp_c", "docs/gpu-profiles.md: (?) 88-90 C; the lower bound taken"}}},
  {"rtx-5090", "NVIDIA GeForce RTX 5090", 0x2b85, {0x2b87}, "2b85 (5090 D 2b87, same SM count (?))", segment::geforce,
   "Blackwell", "GB202", 12, 0, 170, 21760, 32, "GDDR7", 512, 1792, 575, 2010, 2410, 90, false,
   {{"power_default_w", "docs/gpu-profiles.md: 575 W (?; pre-launch rumours said 600 W)"},
    {"max_operating_temp_c", "docs/gpu-profiles.md: (?) 90 C"}}},
  {"rtx-a4000", "NVIDIA RTX A4000", 0x24b0, {0x24b1}, "24b0 (A4000H 24b1)", segment::professional,
   "Ampere", "GA104GL", 8, 6, 48, 6144, 16, "GDDR6 ECC", 256, 448, 140, 735, 1560, 0, false,
   {{"boost_clock_mhz", "docs/gpu-profiles.md: 1560 MHz (?)"},
    {"base_clock_mhz", "docs/gpu-profiles.md: 735 MHz (base/boost pair marked (?))"}}},
  {"rtx-a6000", "NVIDIA RTX A6000", 0x2230, {}, "2230", segment::professional,
   "Ampere", "GA102GL", 8, 6, 84, 10752, 48, "GDDR6 ECC", 384, 768, 300, 1410, 1800, 0, false,
   {{"base_clock_mhz", "docs/gpu-profiles.md (Lambda gpu_specs.csv, TechPowerUp-derived)"}}},
  {"l4", "NVIDIA L4", 0x27b8, {}, "27b8", segment::datacenter,
   "Ada Lovelace", "AD104GL", 8, 9, 58, 7424, 24, "GDDR6", 192, 300, 72, 795, 2040, 0, true, {}},
  {"a100-pcie-40gb", "NVIDIA A100-PCIE-40GB", 0x20f1, {0x20b1}, "20f1 (pci.ids also names 20b1 \"A100 PCIe 40GB\")",
   segment::datacenter, "Ampere", "GA100", 8, 0, 108, 6912, 40, "HBM2", 5120, 1555, 250, 765, 1410, 0, true,
   {{"base_clock_mhz", "docs/gpu-profiles.md (Lambda gpu_specs.csv, TechPowerUp-derived)"},
    {"memory_type", "docs/gpu-profiles.md: HBM2 (TechPowerUp data says HBM2e)"},
    {"sm_count", "docs/gpu-profiles.md (SM = CUDA cores / 64 on GA100)"}}},
  {"h100-pcie", "NVIDIA H100 PCIe", 0x2331, {}, "2331", segment::datacenter,
   "Hopper", "GH100", 9, 0, 114, 14592, 80, "HBM2e", 5120, 2000, 350, 1125, 1755, 0, true,
   {{"memory_bandwidth_gbps", "docs/gpu-profiles.md: ~2000 GB/s"},
    {"power_default_w", "docs/gpu-profiles.md: 350 W (300-350)"},
    {"base_clock_mhz", "docs/gpu-profiles.md: (?) 1125 MHz"},
    {"boost_clock_mhz", "docs/gpu-profiles.md: (?) 1755 MHz"},
    {"max_operating_temp_c", "derived: no figure in docs/gpu-profiles.md (Hopper reports T.Limit "
                             "temperatures); 85 C model choice (R3)"}}},
};
// clang-format on

// L2 cache per model, in MiB. Not in the reference: NVIDIA's architecture whitepapers (GA102,
// AD102, GB202, GA100, GH100) give the full chips; a product with memory controllers disabled
// has its share (RTX 4090: 72 of AD102's 96 MiB; RTX 5090: 96 of GB202's 128 MiB).
struct l2_row {
    const char* key;
    uint32_t mib;
};
constexpr l2_row l2_rows[] = {
    {"rtx-3060", 3},        {"rtx-3070", 4},          {"rtx-3080", 5},  {"rtx-3090", 6},
    {"rtx-4060-ti", 32},    {"rtx-4060-ti-16gb", 32}, {"rtx-4070", 36}, {"rtx-4080", 64},
    {"rtx-4080-super", 64}, {"rtx-4090", 72},         {"rtx-5070", 48}, {"rtx-5080", 64},
    {"rtx-5090", 96},       {"rtx-a4000", 4},         {"rtx-a6000", 6}, {"l4", 48},
    {"a100-pcie-40gb", 40}, {"h100-pcie", 50},
};

std::string cite(const std::string& what) { return std::string(ref) + ": " + what; }

gpu_profile make_profile(const seed_row& r) {
    gpu_profile p;
    p.key = r.key;
    p.name = r.name;
    p.pci_device_id = r.pci;
    p.alias_pci_device_ids.assign(r.aliases.begin(), r.aliases.end());
    p.architecture = r.architecture;
    p.chip = r.chip;
    p.compute_major = r.cc_major;
    p.compute_minor = r.cc_minor;
    p.sm_count = r.sms;
    p.cuda_cores = r.cores;
    p.vram_bytes = r.vram_gb << 30;
    p.memory_type = r.memory_type;
    p.memory_bus_width_bits = r.bus_bits;
    p.memory_bandwidth_gbps = r.bandwidth_gbps;
    p.power_default_w = r.power_w;
    p.base_clock_mhz = r.base_mhz;
    p.boost_clock_mhz = r.boost_mhz;

    auto& s = p.sources;
    const std::string spec = cite("NVIDIA launch specs");
    s["name"] = spec;
    s["pci_device_id"] = cite(std::string("pci.ids 2026.08.22, ") + r.pci_note);
    s["alias_pci_device_ids"] = s["pci_device_id"];
    for (const char* f :
         {"architecture", "chip", "compute_major", "compute_minor", "cuda_cores", "vram_bytes", "memory_type",
          "memory_bus_width_bits", "memory_bandwidth_gbps", "power_default_w", "base_clock_mhz", "boost_clock_mhz"})
        s[f] = spec;
    if (r.seg == segment::geforce && std::string_view(r.architecture) == "Blackwell")
        for (const char* f : {"cuda_cores", "memory_bandwidth_gbps", "base_clock_mhz", "boost_clock_mhz"})
            s[f] = cite("Tweaktown CES-2025 table");
    s["sm_count"] = cite("SM = CUDA cores / 128 (GA10x, AD10x, GB20x, GH100)");
    s["vram_bytes"] = "derived: R6 the reference's GB as GiB (" + spec + ")";

    // R1 / R2: power bounds.
    if (r.seg == segment::geforce) {
        p.power_min_w = std::round(r.power_w * 150.0 / 320.0);
        p.power_max_w = std::round(r.power_w * 400.0 / 320.0);
        s["power_min_w"] = "derived: R1 default x 150/320 (RTX 4080 SUPER capture ratio)";
        s["power_max_w"] = "derived: R1 default x 400/320 (RTX 4080 SUPER capture ratio)";
    } else {
        p.power_min_w = std::round(r.power_w * 2.0 / 7.0);
        p.power_max_w = r.power_w;
        s["power_min_w"] = "derived: R2 default x 2/7 (L40S 100/350 W, H100 SXM 200/700 W captures)";
        s["power_max_w"] = "derived: R2 max = default (L40S, H100 SXM captures)";
    }
    // R3: temperatures.
    if (r.max_temp_c > 0) {
        p.max_operating_temp_c = r.max_temp_c;
        s["max_operating_temp_c"] = cite("NVIDIA spec page \"Maximum GPU Temperature\"");
    } else {
        p.max_operating_temp_c = 85;
        s["max_operating_temp_c"] = "derived: R3 no figure in the reference; 85 C model choice";
    }
    p.slowdown_temp_c = p.max_operating_temp_c + 6;
    p.shutdown_temp_c = p.max_operating_temp_c + 11;
    s["slowdown_temp_c"] = "derived: R3 max-operating + 6 C (RTX 4080 SUPER capture 90/96 C)";
    s["shutdown_temp_c"] = "derived: R3 max-operating + 11 C (RTX 4080 SUPER capture 90/101 C)";
    // R4: max clock.
    if (r.seg == segment::geforce) {
        p.max_clock_mhz = static_cast<uint32_t>(std::lround(r.boost_mhz * 3165.0 / 2550.0));
        s["max_clock_mhz"] = "derived: R4 boost x 3165/2550 (RTX 4080 SUPER capture max over its boost (?))";
    } else {
        p.max_clock_mhz = r.boost_mhz;
        s["max_clock_mhz"] = "derived: R4 max = boost (L40S, H100 SXM captures (?))";
    }
    // R5: memory clock.
    p.memory_clock_mhz = static_cast<uint32_t>(std::lround(r.bandwidth_gbps * 8.0 / r.bus_bits * 1000.0 / 2.0));
    s["memory_clock_mhz"] =
        "derived: R5 bandwidth x 8 / bus width / 2 (matches the 4080 SUPER, L40S, H100 SXM captures)";

    // Model choices.
    if (!r.passive) {
        const double t = p.max_operating_temp_c;
        p.fan_curve = {{40, 30}, {60, 45}, {t - 15, 70}, {t - 5, 100}};
        s["fan_curve"] = "model choice: 30% at 40 C, 45% at 60 C, 70% at max-op - 15 C, 100% at max-op - 5 C";
    } else {
        s["fan_curve"] = "model choice: none, passively cooled board (" + cite("passive") + ")";
    }
    p.ambient_temp_c = 25;
    s["ambient_temp_c"] = "model choice: 25 C room";
    p.thermal_resistance_c_per_w = 50.0 / r.power_w;
    s["thermal_resistance_c_per_w"] = "model choice: 50 C / default power (ambient + 50 C at default power)";
    const bool hbm = std::string_view(r.memory_type).starts_with("HBM");
    p.min_link_bandwidth_gbps = hbm ? 7.88 : 3.94;
    s["min_link_bandwidth_gbps"] = hbm ? "model choice: PCIe 4.0 x4 (USB4 v2 / TB5 tunnel) for HBM boards"
                                       : "model choice: PCIe 3.0 x4 (what Thunderbolt 3/4 tunnel)";
    p.resizable_bar = true;
    s["resizable_bar"] =
        "(?) general knowledge, not in the reference: Resizable BAR on RTX 30 (VBIOS update) and "
        "later, large BAR1 on professional / datacenter boards";

    for (const auto& l2 : l2_rows)
        if (std::string_view(l2.key) == r.key) p.l2_cache_bytes = uint64_t{l2.mib} << 20;
    s["l2_cache_bytes"] =
        "(?) from memory, not in the reference: NVIDIA architecture whitepapers (full chip) and the "
        "product's share of its memory controllers";

    for (const auto& [field, text] : r.notes) s[field] = text;
    return p;
}

}  // namespace

const std::vector<gpu_profile>& all_profiles() {
    static const std::vector<gpu_profile> profiles = [] {
        std::vector<gpu_profile> out;
        for (const auto& row : seed_rows) out.push_back(make_profile(row));
        return out;
    }();
    return profiles;
}

}  // namespace cudabridge::nv
