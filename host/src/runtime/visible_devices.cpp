#include "runtime/visible_devices.hpp"

#include <cudabridge/core/error.hpp>

#include <algorithm>
#include <cctype>

namespace cudabridge::host {
namespace {

constexpr const char* uuid_prefix = "gpu-";
constexpr size_t min_uuid_chars = 8;  // after "GPU-": enough to be unique among a few eGPUs

[[noreturn]] void refuse(const std::string& why) {
    throw core::error(CB_ERR_INVALID_ARGUMENT, std::string(visible_devices_variable) + ": " + why);
}

std::string trimmed(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

visible_entry parse_entry(const std::string& item) {
    visible_entry e;
    if (!item.empty() && std::all_of(item.begin(), item.end(), [](unsigned char c) { return std::isdigit(c); })) {
        if (item.size() > 4) refuse("device index " + item + " is out of range");
        e.index = std::stoi(item);
        return e;
    }
    const std::string l = lower(item);
    if (l.rfind(uuid_prefix, 0) != 0) refuse("'" + item + "' is neither a device index nor a GPU UUID (GPU-...)");
    if (l.size() < std::char_traits<char>::length(uuid_prefix) + min_uuid_chars)
        refuse("UUID '" + item + "' is too short (give at least 8 characters after GPU-)");
    e.uuid = l;
    return e;
}

std::string describe(const visible_entry& e) { return e.index >= 0 ? "device " + std::to_string(e.index) : e.uuid; }

}  // namespace

std::optional<std::vector<visible_entry>> parse_visible_devices(const char* text) {
    if (text == nullptr) return std::nullopt;
    std::vector<visible_entry> entries;
    const std::string value(text);
    if (trimmed(value).empty()) return entries;
    size_t start = 0;
    while (true) {
        const size_t comma = value.find(',', start);
        const std::string item = trimmed(value.substr(start, comma == std::string::npos ? comma : comma - start));
        if (item.empty()) refuse("an empty entry between commas in '" + value + "'");
        entries.push_back(parse_entry(item));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return entries;
}

bool names_a_uuid(const std::vector<visible_entry>& entries) {
    return std::any_of(entries.begin(), entries.end(), [](const visible_entry& e) { return e.index < 0; });
}

std::vector<size_t> resolve_visible_devices(const std::vector<visible_entry>& entries,
                                            const std::vector<std::string>& uuids) {
    std::vector<size_t> chosen;
    for (const visible_entry& e : entries) {
        size_t position = 0;
        if (e.index >= 0) {
            if (static_cast<size_t>(e.index) >= uuids.size())
                refuse("names device " + std::to_string(e.index) + ", but " + std::to_string(uuids.size()) +
                       " eGPU(s) are connected");
            position = static_cast<size_t>(e.index);
        } else {
            std::vector<size_t> matches;
            for (size_t i = 0; i < uuids.size(); ++i)
                if (lower(uuids[i]).rfind(e.uuid, 0) == 0) matches.push_back(i);
            if (matches.empty()) refuse("names " + e.uuid + ", which is none of the connected eGPUs");
            if (matches.size() > 1) refuse(e.uuid + " matches several connected eGPUs");
            position = matches.front();
        }
        if (std::find(chosen.begin(), chosen.end(), position) != chosen.end())
            refuse("names " + describe(e) + " twice");
        chosen.push_back(position);
    }
    return chosen;
}

}  // namespace cudabridge::host
