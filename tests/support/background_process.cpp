#include "background_process.hpp"

#include "read_file.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

extern char** environ;

namespace cudabridge::test {

background_process::background_process(const std::string& program, const std::vector<std::string>& args,
                                       const std::map<std::string, std::string>& env,
                                       const std::vector<std::string>& unset, const std::filesystem::path& folder)
    : out_(folder / "background.out"), err_(folder / "background.err") {
    // env(1) adds the variables, so this process's own environment is left alone.
    std::vector<std::string> argv = {"/usr/bin/env"};
    for (const auto& name : unset) argv.insert(argv.end(), {"-u", name});
    for (const auto& [k, v] : env) argv.push_back(k + "=" + v);
    argv.push_back(program);
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargs;
    for (auto& a : argv) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    if (posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, cargs.data(), environ) == 0) pid_ = pid;
    posix_spawn_file_actions_destroy(&fa);
}

background_process::~background_process() {
    if (pid_ > 0 && !poll_exit()) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status_, 0);
    }
}

bool background_process::poll_exit() {
    if (!exited_ && pid_ > 0 && ::waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
    return exited_;
}

bool background_process::wait_for_output(const std::string& text, double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        if (out().find(text) != std::string::npos) return true;
        if (poll_exit()) return out().find(text) != std::string::npos;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

void background_process::signal(int sig) const {
    if (pid_ > 0 && !exited_) ::kill(pid_, sig);
}

int background_process::wait_exit(double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!poll_exit() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!exited_) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status_, 0);
        exited_ = true;
        return -1;
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
}

std::string background_process::out() const { return read_file(out_); }
std::string background_process::err() const { return read_file(err_); }

}  // namespace cudabridge::test
