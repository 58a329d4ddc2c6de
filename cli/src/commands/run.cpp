// `run [-d N] -- PROGRAM [ARGS...]`: runs an unmodified CUDA program on the eGPU. The program's
// libcudart.so.13 is replaced by CudaBridge's (lib/cudabridge/cudart/, first on its loader path),
// and on a simulated GPU its libcuda.so.1 too (lib/cudabridge/driver/: a real GPU keeps NVIDIA's
// driver); the eGPU is connected first if no process has, and afterwards a one-line summary goes
// to stderr: kernels launched, bytes copied each way, the kernels' GPU time, recoveries.
#include "app.hpp"
#include "json_output.hpp"
#include "run/cuda_runtime_linkage.hpp"
#include "device_text.hpp"

#include <cudabridge/core/paths.hpp>
#include <cudabridge/core/store.hpp>

#include <Poco/JSON/Parser.h>

#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

extern char** environ;

namespace cudabridge::cli {
namespace {

namespace fs = std::filesystem;

// lib/cudabridge/cudart beside the library this program's runtime lives in (build tree or prefix).
fs::path cudart_folder() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&host::state_name), &info) == 0 || !info.dli_fname)
        throw cli_error(exit_error, "cannot tell where the CudaBridge libraries are installed");
    fs::path folder = fs::path(info.dli_fname).parent_path() / "cudabridge" / "cudart";
    if (!fs::exists(folder / "libcudart.so.13"))
        throw cli_error(exit_error, "no CUDA runtime library at " + folder.string() + " (this installation lacks it)");
    return folder;
}

void refuse_unless_replaceable(const fs::path& program, const std::string& name) {
    if (cuda_runtime_linkage_of(program) != cuda_runtime_linkage::static_runtime) return;
    throw cli_error(exit_error, name +
                                    " has the CUDA runtime linked in statically (nvcc's default), so no loader path "
                                    "can put CudaBridge's in its place. Rebuild it with the runtime as a shared "
                                    "library: nvcc -cudart shared ...");
}

// lib/cudabridge/driver beside the runtime's folder, when this installation has it.
std::optional<fs::path> driver_folder(const fs::path& cudart) {
    fs::path folder = cudart.parent_path() / "driver";
    if (!fs::exists(folder / "libcuda.so.1")) return std::nullopt;
    return folder;
}

struct attached_device {
    std::string id;
    bool simulated = false;
};

// The eGPU the program will use: connected now, or already by some process.
attached_device connect_or_attach(app& a) {
    auto& rt = a.runtime();
    if (rt.device_count() == 0) {
        host::connect_options o;
        if (a.options().device) o.device = std::to_string(*a.options().device);
        if (!a.options().json) std::cerr << "cudabridge run: connecting the eGPU\n";
        rt.adopt(host::connect(rt.current_session(), o));
    }
    attached_device d{a.device().id(), a.device().properties().is_simulated != 0};
    a.close_runtime();  // the connection stays up; the program attaches to it
    return d;
}

// What the CLI was told on its command line that the program's runtime must also use.
std::map<std::string, std::string> settings_for_child(const global_options& g) {
    std::map<std::string, std::string> env;
    if (g.db) env["CUDABRIDGE_DB"] = fs::absolute(*g.db).string();
    if (g.transport) env["CUDABRIDGE_TRANSPORT"] = *g.transport;
    if (g.gpu) env["CUDABRIDGE_GPU"] = *g.gpu;
    if (g.safety) env["CUDABRIDGE_SAFETY"] = *g.safety;
    std::string paths;
    for (const auto& p : g.plugin_paths) paths += (paths.empty() ? "" : ":") + fs::absolute(p).string();
    if (!paths.empty()) env["CUDABRIDGE_ADD_PLUGIN_PATH"] = paths;
    return env;
}

// This process's environment with the program's loader path (the driver's folder first, where
// the device is simulated), the summary file and the command line's settings in front (they win
// over inherited ones).
std::vector<std::string> child_environment(const global_options& g, const std::string& library_folders,
                                           const fs::path& summary) {
    std::map<std::string, std::string> set = settings_for_child(g);
    const char* library_path = std::getenv("LD_LIBRARY_PATH");
    set["LD_LIBRARY_PATH"] = library_folders + (library_path && *library_path ? ":" + std::string(library_path) : "");
    set["CUDABRIDGE_RUN_SUMMARY"] = summary.string();
    // The program's own output stays its own: CudaBridge logs to its file and store only.
    if (!core::secure_env("CUDABRIDGE_LOG_SINKS")) set["CUDABRIDGE_LOG_SINKS"] = "file,sqlite";
    std::vector<std::string> env;
    env.reserve(set.size());
    for (const auto& [name, value] : set) env.push_back(name + "=" + value);
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        if (!set.count(entry.substr(0, entry.find('=')))) env.push_back(entry);
    }
    return env;
}

int spawn_and_wait(const fs::path& program, const std::vector<std::string>& args, const std::vector<std::string>& env) {
    std::vector<char*> argv, envp;
    for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    for (const auto& s : env) envp.push_back(const_cast<char*>(s.c_str()));
    envp.push_back(nullptr);
    pid_t pid = 0;
    if (int e = posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), envp.data()); e != 0)
        throw cli_error(exit_error, "cannot start " + program.string() + ": " + std::strerror(e));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw cli_error(exit_error, std::string("waitpid: ") + std::strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The resets the supervisor made while the program ran (each a recovery attempt; "recovered" is
// only recorded after a healthy streak, which a program that ends soon after never sees).
int64_t recoveries_since(app& a, const std::string& device, int64_t since_ns) {
    int64_t count = 0;
    for (const char* kind : {"safety.soft_reset", "safety.hard_reset", "safety.reconnect"}) {
        core::event_query q;
        q.since_ns = since_ns;
        q.device = device;
        q.kind = kind;
        q.limit = 100000;
        // The store alone (as `history` reads it): no plugins are loaded for this.
        count += static_cast<int64_t>(core::query_events(a.core(false).db(), q).size());
    }
    return count;
}

std::string bytes_text(double bytes) {
    const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000 && u < 4) bytes /= 1000, ++u;
    return fixed(bytes, u ? 1 : 0) + " " + units[u];
}

void report(app& a, const fs::path& summary_file, int64_t recoveries, int exit_code) {
    std::ifstream in(summary_file);
    std::stringstream text;
    text << in.rdbuf();
    json_object o = make_object();
    if (!text.str().empty()) o = Poco::JSON::Parser().parse(text.str()).extract<Poco::JSON::Object::Ptr>();
    o->set("recoveries", recoveries);
    o->set("exit_code", exit_code);
    o->set("used_gpu", !text.str().empty());
    if (a.options().json) {
        std::ostringstream line;
        o->stringify(line);
        std::cerr << line.str() << "\n";
        return;
    }
    if (text.str().empty()) {
        if (exit_code >= 128)  // spawn_and_wait's 128 + signal: it died before its runtime counted anything
            std::cerr << "cudabridge run: the program was ended by signal " << exit_code - 128
                      << " before its CUDA runtime reported; exit code " << exit_code << "\n";
        else
            std::cerr << "cudabridge run: the program made no CUDA call that reached the eGPU; exit code " << exit_code
                      << "\n";
        return;
    }
    std::cerr << "cudabridge run: " << o->getValue<uint64_t>("kernels_launched") << " kernels, "
              << bytes_text(o->getValue<double>("bytes_host_to_device")) << " host->device, "
              << bytes_text(o->getValue<double>("bytes_device_to_host")) << " device->host, kernel time "
              << fixed(o->getValue<double>("kernel_time_ms"), 3) << " ms ("
              << o->getValue<std::string>("kernel_time_source") << "), " << recoveries << " recoveries, exit code "
              << exit_code << (o->optValue<bool>("final", true) ? "" : " (counted until the program stopped short)")
              << "\n";
}

// The file the program's runtime writes its summary to: made here with a name no one can guess,
// mode 0600, never through a link (mkstemp's O_EXCL); the runtime only opens it, never creates
// it. In the user's private runtime folder when there is one, else in the temp folder (sticky:
// no one else can replace it there).
fs::path private_summary_file() {
    fs::path dir = fs::temp_directory_path();
    if (const auto runtime = core::secure_env("XDG_RUNTIME_DIR"); runtime && !core::not_own_folder(*runtime))
        dir = *runtime;
    std::string name = (dir / "cudabridge-run-XXXXXX.json").string();
    const int fd = ::mkstemps(name.data(), 5);
    if (fd < 0)
        throw cli_error(exit_error,
                        "cannot create the run summary file in " + dir.string() + ": " + std::strerror(errno));
    ::close(fd);
    return name;
}

int run_run(app& a, const std::vector<std::string>& given) {
    std::vector<std::string> args = given;
    if (!args.empty() && args.front() == "--") args.erase(args.begin());
    if (args.empty()) throw usage_error("run needs a program to run");
    const fs::path program = find_program(args.front());
    if (program.empty())
        throw cli_error(exit_error, "no program '" + args.front() + "' (not an executable file, nor on PATH)");
    refuse_unless_replaceable(program, args.front());
    const fs::path cudart = cudart_folder();
    const attached_device device = connect_or_attach(a);
    std::string library_folders = cudart.string();
    if (auto driver = driver_folder(cudart); driver && device.simulated)
        library_folders = driver->string() + ":" + library_folders;
    const fs::path summary = private_summary_file();
    const int64_t started_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    const int code = spawn_and_wait(program, args, child_environment(a.options(), library_folders, summary));
    report(a, summary, recoveries_since(a, device.id, started_ns), code);
    fs::remove(summary);
    return code;
}

}  // namespace

command run_command() {
    return {"run",
            "",
            "run an unmodified CUDA program on the eGPU",
            "run [-d N] [--json] -- PROGRAM [ARGS...]",
            "Runs PROGRAM with CudaBridge's CUDA runtime (libcudart.so.13) first on its loader path, so a\n"
            "program built with 'nvcc -cudart shared' runs unchanged on the eGPU, under the safety\n"
            "supervisor. On a simulated eGPU the CUDA driver API (libcuda.so.1) is CudaBridge's too, for\n"
            "programs that load PTX and launch kernels themselves. The eGPU is connected first when no\n"
            "process has connected it. Afterwards one\n"
            "line on stderr sums up: kernels launched, bytes copied each way, the kernels' GPU time\n"
            "(modeled on a simulated eGPU) and recoveries; --json writes it as JSON (to stderr, so the\n"
            "program's stdout stays its own). The exit code is the program's.\n"
            "A program with the CUDA runtime linked in statically (nvcc's default) is refused with how\n"
            "to rebuild it.\n"
            "Example:\n  nvcc -cudart shared -o vectorAdd vectorAdd.cu\n  cudabridge-cli run -- ./vectorAdd",
            true,
            run_run};
}

}  // namespace cudabridge::cli
