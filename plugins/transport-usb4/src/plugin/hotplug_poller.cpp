#include "plugin/hotplug_poller.hpp"

#include "sysfs_hotplug_diff.hpp"

namespace cudabridge::usb4 {

hotplug_poller::hotplug_poller(reader read, std::chrono::milliseconds period, cb_transport_event_handler handler,
                               void* user)
    : read_(std::move(read)), period_(period), handler_(handler), user_(user) {
    thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
}

hotplug_poller::~hotplug_poller() {
    thread_.request_stop();
    wake_.notify_all();
}

void hotplug_poller::run(const std::stop_token& stop) {
    std::vector<cb_endpoint_info> before;
    try {
        before = read_();
    } catch (...) {
        // A sysfs read that fails now is retried at the next period.
    }
    while (!stop.stop_requested()) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait_for(lock, stop, period_, [] { return false; });
        }
        if (stop.stop_requested()) break;
        try {
            std::vector<cb_endpoint_info> after = read_();
            for (const cb_transport_event& ev : linux_sysfs::diff_endpoints(before, after)) handler_(user_, &ev);
            before = std::move(after);
        } catch (...) {
        }
    }
}

}  // namespace cudabridge::usb4
