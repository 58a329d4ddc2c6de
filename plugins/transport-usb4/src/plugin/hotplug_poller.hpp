// Hot-plug events on the Linux backend: sysfs is read every period and compared with the last
// reading; each difference (plugged, unplugged, authorized, deauthorized, link degraded) goes to
// the handler on the poller's own thread. (A udev netlink monitor would wake sooner; polling
// needs no extra library and works on fixture trees.)
#pragma once

#include <cudabridge/transport.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cudabridge::usb4 {

class hotplug_poller {
public:
    using reader = std::function<std::vector<cb_endpoint_info>()>;
    hotplug_poller(reader read, std::chrono::milliseconds period, cb_transport_event_handler handler, void* user);
    ~hotplug_poller();  // stops and joins; the handler is not called after it returns
    hotplug_poller(const hotplug_poller&) = delete;
    hotplug_poller& operator=(const hotplug_poller&) = delete;

private:
    void run(const std::stop_token& stop);

    reader read_;
    std::chrono::milliseconds period_;
    cb_transport_event_handler handler_;
    void* user_;
    std::mutex mutex_;
    std::condition_variable_any wake_;
    std::jthread thread_;
};

}  // namespace cudabridge::usb4
