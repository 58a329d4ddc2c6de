#include "logging_plugin.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

namespace cbtest {

const cb_plugin_library& logging_library() {
    static const cb_plugin_library* lib = [] {
        const std::string path = std::string(CB_TEST_PLUGIN_DIR) + "/libcudabridge_logging.so";
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) throw std::runtime_error("dlopen " + path + ": " + dlerror());
        auto entry = reinterpret_cast<cb_plugin_entry_fn>(dlsym(handle, CB_PLUGIN_ENTRY_SYMBOL));
        if (entry == nullptr) throw std::runtime_error("no cb_plugin_entry in " + path);
        return entry();
    }();
    return *lib;
}

const cb_plugin_descriptor* find_sink(std::string_view name) {
    const cb_plugin_library& lib = logging_library();
    for (size_t i = 0; i < lib.plugin_count; ++i) {
        const cb_plugin_descriptor* d = lib.plugins[i];
        if (d != nullptr && d->kind == CB_KIND_LOGSINK && name == d->name) return d;
    }
    return nullptr;
}

sink::sink(std::string_view name, fake_host& host) : descriptor_(find_sink(name)) {
    if (descriptor_ == nullptr) return;
    host.clear_errors();  // so last_error() after a failed create is that create's
    status_ = descriptor_->create(host.services(), host.instance_config(), &instance_);
    if (status_ != CB_OK) instance_ = nullptr;
}

sink::~sink() {
    if (instance_ == nullptr) return;
    if (!closed_) table()->close(instance_);
    descriptor_->destroy(instance_);
}

const cb_logsink_table* sink::table() const { return static_cast<const cb_logsink_table*>(descriptor_->table); }

cb_status sink::write(const cb_log_record& r) { return table()->write(instance_, &r); }

cb_status sink::write_batch(const std::vector<cb_log_record>& records) {
    return table()->write_batch(instance_, records.data(), records.size());
}

cb_status sink::flush() { return table()->flush(instance_); }

void sink::close() {
    table()->close(instance_);
    closed_ = true;
}

cb_log_record record_data::record() const {
    cb_log_record r{};
    r.struct_size = sizeof r;
    r.level = level;
    r.time_ns = time_ns;
    r.thread_id = thread_id;
    r.category = category.c_str();
    r.device = device ? device->c_str() : nullptr;
    r.message = message.c_str();
    r.message_len = static_cast<uint32_t>(message.size());
    return r;
}

std::string local_stamp(int64_t time_ns) {
    const std::time_t secs = static_cast<std::time_t>(time_ns / 1'000'000'000);
    std::tm tm{};
    localtime_r(&secs, &tm);
    char text[64];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%06lld", static_cast<long long>((time_ns % 1'000'000'000) / 1000));
    return std::string(text) + frac;
}

std::vector<std::string> read_lines(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

scoped_env::scoped_env(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    if (value) {
        setenv(name, value->c_str(), 1);
    } else {
        unsetenv(name);
    }
}

scoped_env::~scoped_env() {
    if (saved_) {
        setenv(name_.c_str(), saved_->c_str(), 1);
    } else {
        unsetenv(name_.c_str());
    }
}

stderr_capture::stderr_capture(target t) : target_(t) {
    std::fflush(stderr);
    if (t == target::file) {
        char pattern[] = "/tmp/cb_stderr.XXXXXX";
        write_fd_ = mkstemp(pattern);
        if (write_fd_ < 0) throw std::runtime_error("mkstemp failed");
        file_ = pattern;
        read_fd_ = open(pattern, O_RDONLY | O_CLOEXEC);
    } else {
        read_fd_ = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (read_fd_ < 0 || grantpt(read_fd_) != 0 || unlockpt(read_fd_) != 0) {
            throw std::runtime_error(std::string("no pseudo-terminal: ") + std::strerror(errno));
        }
        write_fd_ = open(ptsname(read_fd_), O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (write_fd_ < 0) throw std::runtime_error("cannot open the pty slave");
        termios tio{};
        tcgetattr(write_fd_, &tio);
        cfmakeraw(&tio);  // no \n -> \r\n translation
        tcsetattr(write_fd_, TCSANOW, &tio);
        fcntl(read_fd_, F_SETFL, fcntl(read_fd_, F_GETFL) | O_NONBLOCK);
    }
    saved_ = dup(STDERR_FILENO);
    dup2(write_fd_, STDERR_FILENO);
}

std::string stderr_capture::finish() {
    if (finished_) return {};
    finished_ = true;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    std::string out;
    if (target_ == target::file) {
        close(write_fd_);
        out = read_file(file_);
        close(read_fd_);
        std::filesystem::remove(file_);
    } else {
        char buf[4096];
        for (;;) {
            pollfd p{read_fd_, POLLIN, 0};
            if (poll(&p, 1, 200) <= 0) break;
            const ssize_t n = read(read_fd_, buf, sizeof buf);
            if (n <= 0) break;
            out.append(buf, static_cast<size_t>(n));
        }
        close(write_fd_);
        close(read_fd_);
    }
    return out;
}

stderr_capture::~stderr_capture() { finish(); }

}  // namespace cbtest
