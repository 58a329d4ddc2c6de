// Exit codes of cudabridge-cli (documented in docs/cli.md and `cudabridge-cli help`), and the
// exception a command throws to end with one of them.
#pragma once

#include <cudabridge/abi.h>

#include <stdexcept>
#include <string>

namespace cudabridge::host {
class connect_error;
}

namespace cudabridge::cli {

enum exit_code : int {
    exit_ok = 0,
    exit_error = 1,         // the command ran and failed (refused value, not found, I/O ...)
    exit_usage = 2,         // bad command line: unknown command or option, missing argument
    exit_no_device = 3,     // no eGPU connected, or none matching the one asked for
    exit_permission = 4,    // the operation needs privileges this process does not have
    exit_refused = 5,       // refused by the safety policy or the device's authorization
    exit_device_lost = 6,   // the device went away (unplugged, link down, disconnected elsewhere)
    exit_diag_warning = 8,  // diag: no test failed, at least one warned
    exit_interrupted = 130  // stopped by Ctrl-C (128 + SIGINT)
};

// The exit code a failure with this status ends the command with.
exit_code exit_code_for(cb_status status) noexcept;
// A runtime error (cbError_t) likewise.
exit_code exit_code_for_runtime(int cb_error) noexcept;
// A failed connection: refusals at the compatibility or authorization step are the policy's.
exit_code exit_code_for_connect(const host::connect_error& e) noexcept;

// A failure that ends the command with a given exit code; main() prints the message.
class cli_error : public std::runtime_error {
public:
    cli_error(exit_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
    exit_code code() const noexcept { return code_; }

private:
    exit_code code_;
};

}  // namespace cudabridge::cli
