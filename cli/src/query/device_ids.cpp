#include "query/device_ids.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <sstream>

namespace cudabridge::cli::query {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

struct bus_address {
    unsigned long domain = 0, bus = 0, device = 0, function = 0;
    bool operator==(const bus_address&) const = default;
};

// [domain:]bus:device.function, in hex; nothing else.
std::optional<bus_address> parse_bus_id(const std::string& text) {
    bus_address a;
    char tail = 0;
    int used = 0;
    if (std::sscanf(text.c_str(), "%lx:%lx:%lx.%lx%n%c", &a.domain, &a.bus, &a.device, &a.function, &used, &tail) ==
            4 &&
        used == static_cast<int>(text.size()))
        return a;
    a.domain = 0;
    if (std::sscanf(text.c_str(), "%lx:%lx.%lx%n%c", &a.bus, &a.device, &a.function, &used, &tail) == 3 &&
        used == static_cast<int>(text.size()))
        return a;
    return std::nullopt;
}

std::optional<int> parse_index(const std::string& text) {
    if (text.empty() || text.size() > 6 || !std::all_of(text.begin(), text.end(), ::isdigit)) return std::nullopt;
    return std::stoi(text);
}

std::string without_gpu_prefix(const std::string& uuid) {
    const std::string l = lower(uuid);
    return l.rfind("gpu-", 0) == 0 ? l.substr(4) : l;
}

std::optional<int> match(const std::string& id, const std::vector<device_identity>& devices) {
    if (const auto index = parse_index(id)) {
        for (const auto& d : devices)
            if (d.index == *index) return d.index;
        return std::nullopt;
    }
    if (const auto bus = parse_bus_id(id)) {
        for (const auto& d : devices)
            if (parse_bus_id(d.bus_id) == bus) return d.index;
        return std::nullopt;
    }
    for (const auto& d : devices)
        if (!d.uuid.empty() && without_gpu_prefix(d.uuid) == without_gpu_prefix(id)) return d.index;
    return std::nullopt;
}

}  // namespace

std::vector<int> pick_devices(const std::string& list, const std::vector<device_identity>& devices,
                              std::string& unknown) {
    std::vector<int> picked;
    std::stringstream in(list);
    for (std::string id; std::getline(in, id, ',');) {
        id = trimmed(id);
        const auto index = match(id, devices);
        if (!index) {
            unknown = id;
            return {};
        }
        if (std::find(picked.begin(), picked.end(), *index) == picked.end()) picked.push_back(*index);
    }
    if (picked.empty()) unknown = list;  // an empty list names nothing
    return picked;
}

}  // namespace cudabridge::cli::query
