// The test plugin: a small file-backed log sink, built into several libraries whose descriptors
// and tables differ on purpose. tests/plugins/CMakeLists.txt picks the variant with these
// definitions (tests/plugins/test_plugins.hpp documents what each variant is for):
//
//   TP_NAME="..."            plugin name (default "testsink")
//   TP_VERSION_MAJOR=n       plugin version n.0.0 (default 1)
//   TP_ABI_MAJOR, TP_ABI_MINOR   the ABI the library claims (default CB_ABI_MAJOR.CB_ABI_MINOR)
//   TP_TABLE_V10             logsink table struct_size as ABI 1.0 had it (no write_batch)
//   TP_TABLE_FUTURE          logsink table with one extra entry appended
//   TP_NO_WRITE              logsink table without the required write
//   TP_SMALL_DESCRIPTOR      descriptor struct_size ends before create
//   TP_CREATE_FAILS          create refuses with CB_ERR_INVALID_ARGUMENT
//   TP_CREATE_THROWS         the sink's constructor throws
//   TP_MULTI                 two plugins in one library, "multi_a" and "multi_b"
#include <cudabridge/cpp/plugin.hpp>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#ifndef TP_NAME
#define TP_NAME "testsink"
#endif
#ifndef TP_VERSION_MAJOR
#define TP_VERSION_MAJOR 1
#endif

namespace {

namespace sdk = cudabridge::sdk;

const char* level_name(cb_log_level level) {
    switch (level) {
    case CB_LOG_TRACE:
        return "TRACE";
    case CB_LOG_DEBUG:
        return "DEBUG";
    case CB_LOG_INFO:
        return "INFO";
    case CB_LOG_WARN:
        return "WARN";
    case CB_LOG_ERROR:
        return "ERROR";
    case CB_LOG_FATAL:
        return "FATAL";
    default:
        return "LEVEL?";
    }
}

// "LEVEL CATEGORY message\n"; reads message_len only when the record carries it.
std::string format_line(const cb_log_record& r) {
    std::string line = level_name(r.level);
    line += ' ';
    line += r.category != nullptr ? r.category : "-";
    line += ' ';
    if (r.message != nullptr) {
        const cb_log_record* p = &r;
        if (CB_HAS_MEMBER(p, cb_log_record, message_len))
            line.append(r.message, r.message_len);
        else
            line += r.message;
    }
    line += '\n';
    return line;
}

class file_sink : public sdk::logsink {
public:
    static constexpr sdk::plugin_identity identity{TP_NAME, CB_MAKE_VERSION(TP_VERSION_MAJOR, 0, 0), "MIT",
                                                   "test plugin: appends records to a file"};

    file_sink(const sdk::host& h, const sdk::config& c) : logsink(h) {
#if defined(TP_CREATE_THROWS)
        (void)c;
        throw std::runtime_error("constructor threw on purpose");
#else
        h.declare(CB_PARAM_STRING, "path", "",
                  "file the records are appended to, one line each: LEVEL CATEGORY message");
        std::string path = c.get("path").value_or(h.param_or("path", ""));
        if (!path.empty()) {
            file_ = std::fopen(path.c_str(), "ab");
            if (file_ == nullptr) throw sdk::status_error(CB_ERR_PERMISSION, "testsink: cannot open " + path);
        }
#endif
    }
    ~file_sink() override { close(); }

    cb_status write(const cb_log_record& r) override { return append(format_line(r)); }
    cb_status write_batch(const cb_log_record* records, size_t count) override {
        std::string text;
        for (size_t i = 0; i < count; ++i) text += format_line(records[i]);
        return append(text);
    }
    cb_status flush() override { return CB_OK; }
    void close() override {
        if (file_ != nullptr) {
            std::fclose(file_);
            file_ = nullptr;
        }
    }

    // Each call reaches the file before it returns, so a test can read it at any time.
    cb_status append(const std::string& text) {
        if (file_ == nullptr || text.empty()) return CB_OK;
        if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
            throw sdk::status_error(CB_ERR_INTERNAL, "testsink: write failed");
        return CB_OK;
    }

private:
    std::FILE* file_ = nullptr;
};

#if defined(TP_TABLE_V10)
// Reached only by a host that reads write_batch past the table's struct_size.
cb_status abi_violation_batch(void* instance, const cb_log_record*, size_t) noexcept {
    auto* sink = static_cast<file_sink*>(static_cast<sdk::logsink*>(instance));
    try {
        sink->append("ABI-VIOLATION write_batch called past struct_size\n");
    } catch (...) {
    }
    return CB_ERR_ABI_MISMATCH;
}
#endif

#if defined(TP_TABLE_FUTURE)
// The table as a later ABI minor might have it: one more entry appended.
struct future_logsink_table {
    cb_logsink_table v1;
    cb_status (*write_tagged)(void* instance, const cb_log_record* record, const char* tag);
};

cb_status write_tagged(void* instance, const cb_log_record* record, const char*) noexcept {
    return sdk::logsink::table()->write(instance, record);
}
#endif

const cb_logsink_table* sink_table() {
#if defined(TP_TABLE_FUTURE)
    static const future_logsink_table t = [] {
        future_logsink_table x{};
        x.v1 = *sdk::logsink::table();
        x.v1.struct_size = sizeof(future_logsink_table);
        x.write_tagged = &write_tagged;
        return x;
    }();
    return &t.v1;
#else
    static const cb_logsink_table t = [] {
        cb_logsink_table x = *sdk::logsink::table();
#if defined(TP_TABLE_V10)
        x.struct_size = offsetof(cb_logsink_table, write_batch);
        x.write_batch = &abi_violation_batch;
#endif
#if defined(TP_NO_WRITE)
        x.write = nullptr;
#endif
        return x;
    }();
    return &t;
#endif
}

#if defined(TP_CREATE_FAILS)
cb_status refuse_create(const cb_host_services* services, const cb_config*, void** out) noexcept {
    if (out != nullptr) *out = nullptr;
    sdk::host(services).set_last_error("create refused on purpose");
    return CB_ERR_INVALID_ARGUMENT;
}
#endif

// The SDK's descriptor for file_sink with this variant's changes applied.
cb_plugin_descriptor make_descriptor(const char* plugin_name) {
    cb_plugin_descriptor d = *sdk::descriptor_of<file_sink>();
    d.name = plugin_name;
    d.table = sink_table();
#if defined(TP_SMALL_DESCRIPTOR)
    d.struct_size = offsetof(cb_plugin_descriptor, create);
#endif
#if defined(TP_CREATE_FAILS)
    d.create = &refuse_create;
#endif
    return d;
}

[[maybe_unused]] const cb_plugin_descriptor* descriptor() {
    static const cb_plugin_descriptor d = make_descriptor(TP_NAME);
    return &d;
}

#if defined(TP_MULTI)
const cb_plugin_descriptor* descriptor_b() {
    static const cb_plugin_descriptor d = make_descriptor("multi_b");
    return &d;
}
#endif

}  // namespace

#if defined(TP_ABI_MAJOR) || defined(TP_ABI_MINOR)
// A library claiming another ABI than the headers': the entry point written out by hand.
#ifndef TP_ABI_MAJOR
#define TP_ABI_MAJOR CB_ABI_MAJOR
#endif
#ifndef TP_ABI_MINOR
#define TP_ABI_MINOR CB_ABI_MINOR
#endif
extern "C" CB_PLUGIN_EXPORT const cb_plugin_library* cb_plugin_entry(void) {
    static const cb_plugin_descriptor* const plugins[] = {descriptor()};
    static const cb_plugin_library library = {sizeof(cb_plugin_library), TP_ABI_MAJOR, TP_ABI_MINOR, plugins, 1};
    return &library;
}
#elif defined(TP_MULTI)
CB_PLUGIN_DEFINE(descriptor(), descriptor_b())
#elif defined(TP_PLAIN)
// The canonical form for a plugin with nothing to adjust.
CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<file_sink>())
#else
CB_PLUGIN_DEFINE(descriptor())
#endif
