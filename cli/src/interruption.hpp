// Ctrl-C for commands that stop cleanly and report what they did (benchmark, diag, monitor,
// log -f): while an interruption_scope lives, SIGINT and SIGTERM only set a flag that the
// command polls; the default actions come back when the scope ends.
#pragma once

namespace cudabridge::cli {

class interruption_scope {
public:
    interruption_scope();
    ~interruption_scope();
    interruption_scope(const interruption_scope&) = delete;
    interruption_scope& operator=(const interruption_scope&) = delete;
};

// True once SIGINT or SIGTERM arrived inside the current scope.
bool interruption_requested() noexcept;

}  // namespace cudabridge::cli
