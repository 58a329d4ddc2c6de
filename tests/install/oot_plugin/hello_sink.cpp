// A log sink that appends "LEVEL CATEGORY message" lines to the file named by its `path`
// parameter: the smallest useful plugin, written with the SDK's C++ helpers.
#include <cudabridge/cpp/plugin.hpp>

#include <cstdio>
#include <string>

namespace {

class hello_sink final : public cudabridge::sdk::logsink {
public:
    static constexpr cudabridge::sdk::plugin_identity identity{"hello", CB_MAKE_VERSION(0, 1, 0), "MIT",
                                                               "appends records to a text file"};

    hello_sink(const cudabridge::sdk::host& h, const cudabridge::sdk::config& c) : logsink(h) {
        h.declare(CB_PARAM_STRING, "path", "/tmp/hello_sink.txt", "file the records are appended to");
        const std::string path = c.get("path").value_or(h.param_or("path", "/tmp/hello_sink.txt"));
        file_ = std::fopen(path.c_str(), "a");
        if (file_ == nullptr) throw cudabridge::sdk::status_error(CB_ERR_PERMISSION, "cannot open " + path);
    }
    ~hello_sink() override { close(); }

    cb_status write(const cb_log_record& r) override {
        std::fprintf(file_, "%d %s %s\n", r.level, r.category, r.message);
        return CB_OK;
    }
    cb_status flush() override { return std::fflush(file_) == 0 ? CB_OK : CB_ERR_INTERNAL; }
    void close() override {
        if (file_ != nullptr) std::fclose(file_);
        file_ = nullptr;
    }

private:
    std::FILE* file_ = nullptr;
};

}  // namespace

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<hello_sink>())
