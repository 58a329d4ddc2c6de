// The checks a library must pass before the host calls anything in it. Each check is recorded
// with its outcome so `plugins verify` can print them all.
#include "internal.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace cudabridge::core {

namespace {

struct checker {
    std::vector<check_result>& checks;
    bool& ok;
    bool expect(bool condition, std::string name, std::string pass_detail, std::string fail_detail) {
        checks.push_back({std::move(name), condition, condition ? std::move(pass_detail) : std::move(fail_detail)});
        if (!condition) ok = false;
        return condition;
    }
};

bool valid_name(const char* name) {
    if (name == nullptr || *name == '\0' || std::strlen(name) > 63) return false;
    for (const char* c = name; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-')) return false;
    return true;
}

// Required entries of each kind's table (the rest are optional and checked before each call).
std::string missing_required(cb_plugin_kind kind, const void* table) {
    std::string missing;
    auto need = [&](bool present, const char* name) {
        if (!present) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    switch (kind) {
    case CB_KIND_LOGSINK: {
        auto t = static_cast<const cb_logsink_table*>(table);
        need(t->write, "write");
        need(t->flush, "flush");
        need(t->close, "close");
        break;
    }
    case CB_KIND_SAFETY: {
        auto t = static_cast<const cb_safety_table*>(table);
        need(t->check_compatibility, "check_compatibility");
        need(t->evaluate, "evaluate");
        break;
    }
    case CB_KIND_TRANSPORT: {
        auto t = static_cast<const cb_transport_table*>(table);
        need(t->enumerate, "enumerate");
        need(t->open_link, "open_link");
        need(t->close_link, "close_link");
        break;
    }
    case CB_KIND_GPU: {
        auto t = static_cast<const cb_gpu_table*>(table);
        need(t->claim, "claim");
        need(t->open_device, "open_device");
        need(t->close_device, "close_device");
        need(t->get_properties, "get_properties");
        break;
    }
    default:
        break;
    }
    return missing;
}

void validate_plugin(const cb_plugin_descriptor* d, size_t index, checker& c, std::vector<plugin_info>& out,
                     const cb_plugin_library* lib, const std::string& path) {
    const std::string p = "plugin[" + std::to_string(index) + "] ";
    if (!c.expect(d != nullptr, p + "descriptor", "present", "NULL descriptor pointer")) return;
    if (!c.expect(d->struct_size >= CB_PLUGIN_DESCRIPTOR_SIZE_1_0, p + "descriptor size",
                  std::to_string(d->struct_size) + " bytes",
                  "struct_size " + std::to_string(d->struct_size) + " is smaller than the ABI 1.0 descriptor (" +
                      std::to_string(CB_PLUGIN_DESCRIPTOR_SIZE_1_0) + " bytes)"))
        return;
    const std::string label = d->name ? std::string(d->name) : std::string("?");
    if (!c.expect(valid_name(d->name), p + "name", label, "name must be 1-63 characters of a-z, 0-9, '_' or '-'"))
        return;
    const char* kname = kind_name(d->kind);
    if (!c.expect(std::strcmp(kname, "unknown") != 0, label + ": kind", kname,
                  "unknown kind " + std::to_string(d->kind)))
        return;
    if (!c.expect(d->create != nullptr && d->destroy != nullptr, label + ": create/destroy", "present",
                  "create or destroy is NULL"))
        return;
    if (!c.expect(d->table != nullptr, label + ": function table", "present", "table is NULL")) return;
    const uint32_t table_size = *static_cast<const uint32_t*>(d->table);
    const size_t min_size = minimum_table_size(d->kind);
    if (!c.expect(table_size >= min_size, label + ": table size", std::to_string(table_size) + " bytes",
                  "table struct_size " + std::to_string(table_size) + " is smaller than the ABI 1.0 " + kname +
                      " table (" + std::to_string(min_size) + " bytes)"))
        return;
    // Read required entries through a host-sized, zero-filled copy so a short table is safe.
    alignas(std::max_align_t) unsigned char copy[sizeof(cb_gpu_table) + sizeof(cb_transport_table)] = {};
    std::memcpy(copy, d->table, std::min<size_t>(table_size, host_table_size(d->kind)));
    const std::string missing = missing_required(d->kind, copy);
    if (!c.expect(missing.empty(), label + ": required entries", "all present", "missing required entry: " + missing))
        return;

    plugin_info info;
    info.name = d->name;
    info.kind = d->kind;
    info.version = d->version;
    info.license = d->license ? d->license : "";
    info.description = d->description ? d->description : "";
    info.abi_major = lib->abi_major;
    info.abi_minor = lib->abi_minor;
    info.path = path;
    out.push_back(std::move(info));
}

}  // namespace

std::vector<plugin_info> validate_library(const cb_plugin_library* lib, const std::string& path,
                                          std::vector<check_result>& checks, bool& ok) {
    ok = true;
    checker c{checks, ok};
    std::vector<plugin_info> plugins;
    if (!c.expect(lib != nullptr, "library descriptor", "present", "cb_plugin_entry returned NULL")) return plugins;
    if (!c.expect(lib->struct_size >= CB_PLUGIN_LIBRARY_SIZE_1_0, "library descriptor size",
                  std::to_string(lib->struct_size) + " bytes",
                  "struct_size " + std::to_string(lib->struct_size) + " is smaller than the ABI 1.0 library (" +
                      std::to_string(CB_PLUGIN_LIBRARY_SIZE_1_0) + " bytes)"))
        return plugins;
    const std::string built = std::to_string(lib->abi_major) + "." + std::to_string(lib->abi_minor);
    const std::string host = std::to_string(CB_ABI_MAJOR) + "." + std::to_string(CB_ABI_MINOR);
    if (!c.expect(lib->abi_major == CB_ABI_MAJOR, "ABI major", "built for " + built,
                  "built for ABI " + built + ", host speaks ABI " + host + " (major must match)"))
        return plugins;
    std::string minor_note = "built for " + built + ", same as the host";
    if (lib->abi_minor < CB_ABI_MINOR)
        minor_note = "built for " + built + " (older than host " + host +
                     "): entries it lacks read as absent and the host uses its defaults";
    else if (lib->abi_minor > CB_ABI_MINOR)
        minor_note = "built for " + built + " (newer than host " + host +
                     "): the host uses only the fields it knows; the plugin must check host services with CB_HAS_FIELD";
    c.expect(true, "ABI minor", minor_note, "");
    if (!c.expect(lib->plugin_count > 0 && lib->plugins != nullptr, "plugin list",
                  std::to_string(lib->plugin_count) + " plugin(s)", "the library lists no plugins"))
        return plugins;
    for (size_t i = 0; i < lib->plugin_count; ++i) validate_plugin(lib->plugins[i], i, c, plugins, lib, path);
    if (!ok) plugins.clear();  // a library with any broken descriptor is refused whole
    return plugins;
}

verify_report verify_plugin_file(const std::filesystem::path& path) {
    verify_report r;
    r.path = path.string();
    bool ok = true;
    checker c{r.checks, ok};
    auto finish = [&] {
        r.ok = ok;
        for (const auto& ch : r.checks)
            if (!ch.passed) {
                r.reason = ch.detail;
                break;
            }
        return r;
    };
    std::string why;
    auto facts = stat_plugin_file(path, why);
    if (!c.expect(facts.has_value(), "file", facts ? facts->canonical : "", why)) return finish();
    r.path = facts->canonical;
    r.sha256 = file_sha256(facts->canonical);
    if (!c.expect(!r.sha256.empty(), "integrity", "SHA-256 " + r.sha256, "cannot read " + facts->canonical))
        return finish();
    auto unsafe = unsafe_permissions(facts->canonical);
    if (!c.expect(!unsafe, "permissions", "not writable by others", unsafe.value_or(""))) return finish();
    // Before dlopen: loading runs the library's constructors.
    auto elf = elf_problem(facts->canonical, facts->size);
    if (!c.expect(!elf, "ELF", "a whole shared object for this machine that exports " CB_PLUGIN_ENTRY_SYMBOL,
                  elf.value_or("")))
        return finish();
    std::unique_ptr<loaded_library> lib;
    try {
        lib = std::make_unique<loaded_library>(facts->canonical);
        c.expect(true, "load", "dlopen(RTLD_NOW|RTLD_LOCAL) succeeded", "");
    } catch (const std::exception& e) {
        c.expect(false, "load", "", e.what());
        return finish();
    }
    if (!c.expect(lib->has_entry(), "entry point", CB_PLUGIN_ENTRY_SYMBOL " exported",
                  "the library does not export " CB_PLUGIN_ENTRY_SYMBOL))
        return finish();
    std::vector<check_result> more;
    bool lib_ok = true;
    r.plugins = validate_library(lib->entry(), facts->canonical, more, lib_ok);
    r.checks.insert(r.checks.end(), more.begin(), more.end());
    ok = ok && lib_ok;
    return finish();
}

}  // namespace cudabridge::core
