// A program run in the background with its output in files, for tests that act while it runs
// (send Ctrl-C, pull the cable): wait for text it prints, signal it, wait for its exit. Every
// wait has a generous deadline and reports whether it was met; none decides a test by timing.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace cudabridge::test {

class background_process {
public:
    // Starts `program` with `args`, `env` added to this process's environment and `unset` taken
    // out of it, stdout and stderr into files in `folder`. started() is false when it could not
    // be spawned.
    background_process(const std::string& program, const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env, const std::vector<std::string>& unset,
                       const std::filesystem::path& folder);
    ~background_process();  // kills it (SIGKILL) if it still runs
    background_process(const background_process&) = delete;
    background_process& operator=(const background_process&) = delete;

    bool started() const noexcept { return pid_ > 0; }
    // True once its stdout holds `text`; false when it exited first or `seconds` passed.
    bool wait_for_output(const std::string& text, double seconds);
    void signal(int sig) const;
    // Its exit code once it exits within `seconds`; -1 when it was killed by a signal or is still
    // running (then it is killed).
    int wait_exit(double seconds);
    std::string out() const;
    std::string err() const;

private:
    bool poll_exit();
    pid_t pid_ = -1;
    bool exited_ = false;
    int status_ = 0;
    std::filesystem::path out_, err_;
};

}  // namespace cudabridge::test
