// `info [--section NAME[,NAME...]]`: what nvidia-smi -q shows, for each connected eGPU (or the one
// -d names): product, PCI ids, memory, clocks, power, temperatures, the link and the backend.
#include "app.hpp"
#include "command_args.hpp"
#include "device_report.hpp"
#include "device_text.hpp"
#include "process_table.hpp"

#include <boost/algorithm/string/split.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

std::vector<std::string> parse_sections(const std::vector<std::string>& given) {
    std::vector<std::string> out;
    for (const auto& g : given) {
        std::vector<std::string> parts;
        boost::split(parts, g, [](char c) { return c == ','; });
        for (const auto& p : parts) {
            std::vector<std::string> known = info_section_names();
            known.emplace_back("processes");
            if (std::find(known.begin(), known.end(), p) == known.end())
                throw usage_error("unknown section '" + p + "' (" + join(known, ", ") + ")");
            out.push_back(p);
        }
    }
    return out;
}

int run_info(app& a, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("section,s", po::value<std::vector<std::string>>()->composing(), "")("query,q", "");
    const po::variables_map vm = parse_options(args, opts);
    const auto only =
        parse_sections(vm.count("section") ? vm["section"].as<std::vector<std::string>>() : std::vector<std::string>{});
    a.read_only();
    auto& rt = a.runtime();
    auto devices = make_array();
    bool first = true;
    for (int i : a.device_indices()) {
        auto& d = rt.device(i);
        const auto sections = info_sections(rt.current_session(), d, read_gpu(d));
        const bool show_processes = only.empty() || std::find(only.begin(), only.end(), "processes") != only.end();
        const json_array processes = process_rows(other_processes(d));
        if (a.options().json) {
            auto o = make_object();
            o->set("index", i);
            o->set("id", d.id());
            o->set("simulated", d.properties().is_simulated != 0);
            for (const auto& name : sections->getNames())
                if (only.empty() || std::find(only.begin(), only.end(), name) != only.end())
                    o->set(name, sections->getObject(name));
            if (show_processes) o->set("processes", processes);
            devices->add(o);
            continue;
        }
        if (!first) std::cout << "\n";
        first = false;
        std::cout << "GPU " << i << ": " << d.properties().name << " in " << d.name() << " ("
                  << (d.properties().is_simulated ? "simulated; figures modeled" : "hardware; figures measured")
                  << ")\n";
        print_sections(std::cout, sections, only);
        if (show_processes) print_process_table(std::cout, processes);
    }
    if (a.options().json) {
        auto o = make_object();
        o->set("devices", devices);
        print_json(o);
    }
    return exit_ok;
}

}  // namespace

command info_command() {
    return {"info",
            "i",
            "show the eGPU's details (like nvidia-smi -q)",
            "info [--section NAME[,NAME...]]",
            "For each connected eGPU (or the one -d N names): product (name, architecture, UUID,\n"
            "compute capability, SMs), pci (ids, bus id, PCIe generation and width read at the\n"
            "enclosure's port), memory, clocks (current, maximum, settable range), power (draw, limit,\n"
            "default, range), temperature (current, slowdown, shutdown, maximum operating, the safety\n"
            "limit), link (enclosure, generation, lanes, speed, usable bandwidth each way, security\n"
            "level, authorization), backend (real or simulated, and why) and processes (the other\n"
            "processes using the eGPU: PID, name, device memory in MiB, queued commands). Memory is\n"
            "shown in MiB, as nvidia-smi does; --json gives bytes.\n"
            "  -s, --section NAME   only these sections: product, pci, memory, clocks, power,\n"
            "                       temperature, link, backend, processes (repeatable or\n"
            "                       comma-separated)\n"
            "Examples:\n"
            "  cudabridge-cli info\n"
            "  cudabridge-cli info --section link,power\n"
            "  cudabridge-cli info --json",
            false,
            run_info};
}

}  // namespace cudabridge::cli
