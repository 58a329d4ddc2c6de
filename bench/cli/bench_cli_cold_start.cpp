// Cold start of cudabridge-cli, whole process: the median wall time of N runs of
//   /bin/true                       (what starting any process costs here: the floor)
//   cudabridge-cli version          (the CLI's own binary and libraries, no store, no plugins)
//   cudabridge-cli plugins list     (the store and the registry, answered from the cache)
//   cudabridge-cli info             (attach to the connected simulated eGPU and read it)
// in a private CUDABRIDGE_HOME with the simulated eGPU connected first. Goal: <= 50 ms for
// info and plugins list, and plugins list loads no plugin library (checked with --json).
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {

// Runs argv with stdout to `out_path` (or /dev/null); returns the exit status and the wall time.
int run(const std::vector<std::string>& argv, double& seconds, const char* out_path = "/dev/null") {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = 0;
    int status = -1;
    if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ) == 0) waitpid(pid, &status, 0);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    posix_spawn_file_actions_destroy(&fa);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double median_ms(const std::vector<std::string>& argv, int runs) {
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        double s = 0;
        if (run(argv, s) != 0) {
            std::fprintf(stderr, "bench: '%s' failed\n", argv[1 < argv.size() ? 1 : 0].c_str());
            std::exit(1);
        }
        t.push_back(s * 1e3);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
    char tmpl[] = "/tmp/cb-coldstart-XXXXXX";
    if (!mkdtemp(tmpl)) return 1;
    const std::string home = tmpl;
    setenv("CUDABRIDGE_HOME", home.c_str(), 1);
    unsetenv("CUDABRIDGE_PLUGIN_PATH");
    unsetenv("CUDABRIDGE_ADD_PLUGIN_PATH");
    const std::string cli = CB_CLI_PATH;
    double s = 0;
    // The first run fills the plugin cache and the store; connect brings the simulated eGPU up.
    if (run({cli, "plugins", "list"}, s) != 0 || run({cli, "connect"}, s) != 0) {
        std::fprintf(stderr, "bench: could not prepare the simulated eGPU in %s\n", home.c_str());
        return 1;
    }
    const std::string json_path = home + "/plugins.json";
    run({cli, "--json", "plugins", "list"}, s, json_path.c_str());
    std::ifstream in(json_path);
    std::stringstream text;
    text << in.rdbuf();
    const auto scan = Poco::JSON::Parser().parse(text.str()).extract<Poco::JSON::Object::Ptr>()->getObject("scan");
    const int loaded = scan->getValue<int>("libraries_loaded");

    const double floor = median_ms({"/bin/true"}, runs);
    const double version = median_ms({cli, "version"}, runs);
    const double plugins = median_ms({cli, "plugins", "list"}, runs);
    const double info = median_ms({cli, "info"}, runs);
    std::printf("cudabridge-cli cold start, median of %d runs (measured on this machine, wall clock)\n", runs);
    std::printf("  /bin/true                 %7.2f ms   (process start floor)\n", floor);
    std::printf("  cudabridge-cli version    %7.2f ms   %5.2fx the floor\n", version, version / floor);
    std::printf(
        "  cudabridge-cli plugins    %7.2f ms   %5.2fx version   goal <= 50 ms: %s; libraries loaded: %d (goal 0)\n",
        plugins, plugins / version, plugins <= 50 ? "met" : "NOT met", loaded);
    std::printf("  cudabridge-cli info       %7.2f ms   %5.2fx version   goal <= 50 ms: %s\n", info, info / version,
                info <= 50 ? "met" : "NOT met");
    run({cli, "disconnect"}, s);
    std::filesystem::remove_all(home);
    return loaded == 0 ? 0 : 1;
}
