// Exit codes of cudabridge-cli (documented in docs/cli.md and `cudabridge-cli help`).
#pragma once

namespace cudabridge::cli {

enum exit_code : int {
    exit_ok = 0,
    exit_error = 1,        // the command ran and failed (refused, not found, I/O ...)
    exit_usage = 2,        // bad command line: unknown command or option, missing argument
    exit_interrupted = 130 // stopped by Ctrl-C (128 + SIGINT)
};

}  // namespace cudabridge::cli
