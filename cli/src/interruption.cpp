#include "interruption.hpp"

#include <atomic>
#include <csignal>

namespace cudabridge::cli {
namespace {

std::atomic<bool> requested{false};
extern "C" void on_interrupt(int) { requested.store(true); }

}  // namespace

interruption_scope::interruption_scope() {
    requested.store(false);
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

interruption_scope::~interruption_scope() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}

bool interruption_requested() noexcept { return requested.load(); }

}  // namespace cudabridge::cli
