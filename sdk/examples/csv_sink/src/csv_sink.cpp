// csv_sink: each log record becomes one CSV line in the file named by the `path` parameter
// (`--log-sink csv:path=/tmp/cb.csv`). A new or empty file starts with a header line.
#include "csv_row.hpp"
#include "record_columns.hpp"

#include <cudabridge/cpp/plugin.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

namespace csv_sink {

namespace sdk = cudabridge::sdk;

class csv_file_sink final : public sdk::logsink {
public:
    static constexpr sdk::plugin_identity identity{"csv", CB_MAKE_VERSION(1, 0, 0), "MIT",
                                                   "log records as CSV lines (RFC 4180) appended to a file"};

    csv_file_sink(const sdk::host& h, const sdk::config&) : logsink(h) {
        h.declare(CB_PARAM_STRING, "path", "", "CSV file the records are appended to (required)");
        path_ = h.param_or("path", "");
        if (path_.empty()) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "csv sink: set path=FILE");
        open();
    }
    // The host calls write, flush and close from its one logging thread: no lock is needed.
    cb_status write(const cb_log_record& record) override {
        put(csv_row(column_values(record)));
        return CB_OK;
    }
    cb_status flush() override {
        if (std::fflush(open_file()) != 0) fail("cannot flush");
        return CB_OK;
    }
    void close() override { file_.reset(); }

private:
    void open() {
        const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
        std::error_code ignored;  // fopen below reports a folder that could not be made
        if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
        file_.reset(std::fopen(path_.c_str(), "a"));
        if (!file_) fail("cannot open");
        // At the end of what is there already, position 0 means a new or empty file.
        if (std::fseek(file_.get(), 0, SEEK_END) != 0) fail("cannot seek in");
        if (std::ftell(file_.get()) == 0) put(csv_row(column_names()));
    }

    std::FILE* open_file() const {
        if (!file_) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "csv sink is closed");
        return file_.get();
    }

    void put(const std::string& row) {
        if (std::fwrite(row.data(), 1, row.size(), open_file()) != row.size()) fail("cannot write to");
    }

    [[noreturn]] void fail(const char* what) const {
        throw sdk::status_error(errno == EACCES ? CB_ERR_PERMISSION : CB_ERR_INTERNAL,
                                std::string("csv sink: ") + what + " '" + path_ + "': " + std::strerror(errno));
    }

    struct closer {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };

    std::string path_;
    std::unique_ptr<std::FILE, closer> file_;  // closed by close() or, at the latest, destroy
};

}  // namespace csv_sink

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<csv_sink::csv_file_sink>())
