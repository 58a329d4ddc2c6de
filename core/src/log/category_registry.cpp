// The one process-wide category registry, and the level / overflow-policy name tables.
//
// Categories only ever get added, never renamed or removed, so readers need no lock: a name is
// written in full before the count that covers it is published (release), and a reader loads
// the count (acquire) before it reads a name below it. Writers serialise on a mutex.
// The registry is constant-initialised (no constructor runs), so it is usable from any static
// initialiser or destructor and from any thread at any time.
#include <cudabridge/core/log.hpp>

#include "log_internal.hpp"

#include <array>
#include <mutex>

namespace cudabridge::core::log {

namespace {

constexpr size_t max_name_bytes = 32;

struct category_registry {
    // Fixed storage: a name lives at names[id] for the life of the process.
    std::array<std::array<char, max_name_bytes + 1>, max_categories> names;
    std::atomic<int> count;
    std::mutex write_mutex;
};

constinit category_registry registry{
    {{{"GENERAL"}, {"DRIVER"}, {"EGPU"}, {"MEMORY"}, {"PCIE"}, {"USB4"}, {"CUDA"}, {"CLI"}, {"PYTHON"}}},
    detail::builtin_category_count,
    {},
};

char upper(char c) noexcept { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (upper(a[i]) != upper(b[i])) return false;
    return true;
}

bool valid_name(std::string_view name) noexcept {
    if (name.empty() || name.size() > max_name_bytes) return false;
    for (char c : name) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                  c == '.';
        if (!ok) return false;
    }
    return true;
}

int find_locked_free(std::string_view name, int count) noexcept {
    for (int i = 0; i < count; ++i)
        if (iequals(name, registry.names[static_cast<size_t>(i)].data())) return i;
    return -1;
}

}  // namespace

namespace detail {
int registered_category_count() noexcept { return registry.count.load(std::memory_order_acquire); }
}  // namespace detail

int category_id(std::string_view name) {
    if (!valid_name(name)) return -1;
    int n = registry.count.load(std::memory_order_acquire);
    if (int id = find_locked_free(name, n); id >= 0) return id;
    std::lock_guard lock(registry.write_mutex);
    n = registry.count.load(std::memory_order_relaxed);
    if (int id = find_locked_free(name, n); id >= 0) return id;
    if (n >= max_categories) return -1;
    auto& slot = registry.names[static_cast<size_t>(n)];
    name.copy(slot.data(), name.size());
    slot[name.size()] = '\0';
    registry.count.store(n + 1, std::memory_order_release);
    return n;
}

std::optional<int> find_category(std::string_view name) {
    int id = find_locked_free(name, registry.count.load(std::memory_order_acquire));
    if (id < 0) return std::nullopt;
    return id;
}

const char* category_c_name(int id) noexcept {
    if (id < 0 || id >= registry.count.load(std::memory_order_acquire)) return nullptr;
    return registry.names[static_cast<size_t>(id)].data();
}

std::string category_name(int id) {
    const char* n = category_c_name(id);
    return n ? std::string(n) : std::string();
}

std::vector<std::string> category_names() {
    int n = registry.count.load(std::memory_order_acquire);
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) out.emplace_back(registry.names[static_cast<size_t>(i)].data());
    return out;
}

// ---- levels -------------------------------------------------------------------------------

namespace {
constexpr std::array<const char*, 7> level_names = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"};
}

std::optional<cb_log_level> parse_level(std::string_view text) {
    for (size_t i = 0; i < level_names.size(); ++i)
        if (iequals(text, level_names[i])) return static_cast<cb_log_level>(i);
    if (iequals(text, "WARNING")) return CB_LOG_WARN;
    return std::nullopt;
}

const char* level_name(cb_log_level level) noexcept {
    if (level < CB_LOG_TRACE || level > CB_LOG_OFF) return "UNKNOWN";
    return level_names[static_cast<size_t>(level)];
}

// ---- overflow policies ----------------------------------------------------------------------

std::optional<overflow_policy> parse_overflow_policy(std::string_view text) {
    std::string norm(text);
    for (char& c : norm)
        if (c == '-') c = '_';
    if (iequals(norm, "block")) return overflow_policy::block;
    if (iequals(norm, "drop_newest")) return overflow_policy::drop_newest;
    if (iequals(norm, "drop_oldest")) return overflow_policy::drop_oldest;
    return std::nullopt;
}

const char* to_string(overflow_policy p) noexcept {
    switch (p) {
    case overflow_policy::block:
        return "block";
    case overflow_policy::drop_newest:
        return "drop_newest";
    case overflow_policy::drop_oldest:
        return "drop_oldest";
    }
    return "unknown";
}

}  // namespace cudabridge::core::log
