#include "sim/ptx/perf_map.hpp"

#include <cudabridge/cpp/bool_text.hpp>
#include <cudabridge/cpp/secure_env.hpp>

#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/Object/SymbolSize.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace cudabridge::nv::ptx {

namespace {

// The map of this process, opened once: appended to by every compile, from any thread.
class map_file {
public:
    static map_file& instance() {
        static map_file f;
        return f;
    }
    bool open() const noexcept { return fd_ >= 0; }
    void write(uint64_t start, uint64_t size, const std::string& name) {
        char line[512];
        const int n = std::snprintf(line, sizeof line, "%" PRIx64 " %" PRIx64 " %s\n", start, size, name.c_str());
        if (n <= 0) return;
        std::lock_guard lock(mutex_);
        // One write per line with O_APPEND: lines of concurrent compiles never interleave.
        [[maybe_unused]] const ssize_t written = ::write(fd_, line, std::min<size_t>(size_t(n), sizeof line - 1));
    }

private:
    map_file() {
        const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
        // /tmp is everyone's: never follow a link planted there, and use the file only if it is ours.
        fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
        struct stat st {};
        if (fd_ >= 0 && (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid())) {
            ::close(fd_);
            fd_ = -1;
            errno = EPERM;
        }
        if (fd_ < 0)
            std::fprintf(stderr, "cudabridge: CUDABRIDGE_PERF_MAP: cannot write %s (%s); perf will not name kernels\n",
                         path.c_str(), std::strerror(errno));
    }
    int fd_ = -1;
    std::mutex mutex_;
};

class perf_map_listener final : public llvm::JITEventListener {
public:
    explicit perf_map_listener(std::function<std::string(const std::string&)> display_name)
        : display_name_(std::move(display_name)) {}

    void notifyObjectLoaded(ObjectKey, const llvm::object::ObjectFile& object,
                            const llvm::RuntimeDyld::LoadedObjectInfo& loaded) override {
        // The debug object carries the addresses the code was loaded at.
        const llvm::object::OwningBinary<llvm::object::ObjectFile> debug = loaded.getObjectForDebug(object);
        const llvm::object::ObjectFile* view = debug.getBinary() ? debug.getBinary() : &object;
        for (const auto& [symbol, size] : llvm::object::computeSymbolSizes(*view)) {
            auto type = symbol.getType();
            auto name = symbol.getName();
            auto address = symbol.getAddress();
            if (!type || !name || !address) {
                if (!type) llvm::consumeError(type.takeError());
                if (!name) llvm::consumeError(name.takeError());
                if (!address) llvm::consumeError(address.takeError());
                continue;
            }
            if (*type != llvm::object::SymbolRef::ST_Function || size == 0) continue;
            map_file::instance().write(*address, size, display_name_(name->str()));
        }
    }

private:
    std::function<std::string(const std::string&)> display_name_;
};

}  // namespace

bool perf_map_wanted() {
    static const bool wanted = [] {
        const auto text = sdk::secure_env("CUDABRIDGE_PERF_MAP");
        return text && sdk::parse_bool(*text).value_or(false);
    }();
    return wanted;
}

std::unique_ptr<llvm::JITEventListener> make_perf_map_listener(
    std::function<std::string(const std::string&)> display_name) {
    if (!perf_map_wanted() || !map_file::instance().open()) return nullptr;
    return std::make_unique<perf_map_listener>(std::move(display_name));
}

}  // namespace cudabridge::nv::ptx
