// Running a program from a test: arguments, extra environment, captured output and exit code.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudabridge::test {

struct process_result {
    int exit_code = -1;  // -1 when killed by a signal
    int signal = 0;
    std::string out;
    std::string err;
};

struct process_options {
    std::map<std::string, std::string> set_env;  // added or replaced
    std::vector<std::string> unset_env;
    std::optional<std::string> stdin_text;
    int timeout_ms = 60000;  // killed with SIGKILL past this
};

process_result run_process(const std::string& program, const std::vector<std::string>& args,
                           const process_options& options = {});

}  // namespace cudabridge::test
