// What the Linux USB4 backend reads from sysfs, fuzzed two ways:
//  - the attribute text parsers on their own (link speeds, AER counters, PCI addresses,
//    security levels, lane speeds, the C ABI's fixed strings);
//  - a whole read of a fake sysfs tree: the committed fixtures of tests/transport_usb4/linux are
//    copied once to a temporary folder, the input rewrites some of their attribute files, and
//    the backend detects, enumerates and reports links on it as it would on /sys (the files are
//    put back afterwards, so each input runs on the same tree).
//
// Input: one byte choosing the fixture (low 7 bits, modulo their count) and whether to ask for a
// link report as well (high bit: it reads the whole tree a second time), then records of
// [file][length: 2 bytes, little endian][text], where `file` picks one of the fixture's regular
// files (sorted by path, modulo their count) and `text` becomes its whole content (and goes
// through the text parsers).
#include "fuzz_temp_dir.hpp"
#include "sysfs_aer.hpp"
#include "sysfs_detect.hpp"
#include "sysfs_endpoints.hpp"
#include "sysfs_fabric_view.hpp"
#include "sysfs_fixed_string.hpp"
#include "sysfs_io.hpp"
#include "sysfs_link_report.hpp"
#include "sysfs_pci_devices.hpp"
#include "sysfs_pcie_link.hpp"
#include "sysfs_tb_devices.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;
using namespace cudabridge::usb4::linux_sysfs;

namespace {

struct fake_sysfs {
    fs::path root;                      // <temp>/<fixture>, holding sys/
    std::vector<fs::path> files;        // its regular files, sorted
    std::vector<std::string> original;  // their committed content
};

struct fixtures {
    cudabridge::fuzz::temp_dir temp{"cb-sysfs-fuzz"};
    std::vector<fake_sysfs> trees;
};

fixtures& copies() {
    static fixtures f;
    return f;
}

std::string read_all(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const fs::path& file, std::string_view text) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void parse_text(std::string_view text) {
    const double gts = parse_link_speed_gts(text);
    (void)pcie_generation(gts);
    (void)parse_aer_total(text, "TOTAL_ERR_COR");
    (void)is_pci_address(text);
    bool known = false;
    (void)parse_security_level(text, known);
    tb_router r;
    r.generation = 4;
    r.usb4_version = std::string(text);
    r.rx_speed_gbps = parse_gbps(text);
    (void)link_generation_of(r);
    char small[8], large[64];
    copy_fixed(small, text);
    copy_fixed(large, text);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    auto& f = copies();
    const fs::path source = fs::path(CB_FUZZ_SOURCE_DIR) / "tests/transport_usb4/linux/fixtures";
    std::vector<fs::path> names;
    for (const auto& e : fs::directory_iterator(source))
        if (e.is_directory()) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
        fake_sysfs t;
        t.root = f.temp.path() / name;
        fs::copy(source / name, t.root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
        for (const auto& e : fs::recursive_directory_iterator(t.root))
            if (e.is_regular_file() && !e.is_symlink()) t.files.push_back(e.path());
        std::sort(t.files.begin(), t.files.end());
        for (const auto& file : t.files) t.original.push_back(read_all(file));
        f.trees.push_back(std::move(t));
    }
    if (f.trees.empty()) {
        std::fprintf(stderr, "no sysfs fixtures under %s\n", source.c_str());
        std::abort();
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    auto& tree = copies().trees[(data[0] & 0x7f) % copies().trees.size()];
    const bool report = data[0] & 0x80;
    std::vector<size_t> changed;
    for (size_t at = 1; at + 3 <= size;) {
        const size_t file = data[at] % tree.files.size();
        const size_t length = std::min<size_t>(data[at + 1] | (size_t{data[at + 2]} << 8), size - at - 3);
        const std::string_view text(reinterpret_cast<const char*>(data) + at + 3, length);
        at += 3 + length;
        parse_text(text);
        write_all(tree.files[file], text);
        changed.push_back(file);
    }

    const fabric_view view = read_fabric(tree.root);
    (void)to_endpoints(view);
    for (const auto& f : view.functions) {
        (void)read_aer_counters(f.function->dir);
        (void)uevent_value(f.function->dir, "PCI_SLOT_NAME");
    }
    if (report && !view.functions.empty()) {
        std::string why;
        (void)has_thunderbolt(tree.root, why);
        pci_link_report r;
        (void)read_link_report(tree.root, view.functions.front().function->address, r, why);
    }

    for (size_t file : changed) write_all(tree.files[file], tree.original[file]);
    return 0;
}
