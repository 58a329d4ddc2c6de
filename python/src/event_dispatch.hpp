// Safety and connection events to Python callbacks, without ever holding up the thread that
// raised them: the device's callback only queues the event; one dispatcher thread takes the GIL
// and calls the Python functions. The supervisor never waits for the interpreter, and a Python
// thread waiting in a runtime call (GIL released) never waits for the supervisor.
#pragma once

#include <pybind11/pybind11.h>

#include <cudabridge/host/device.hpp>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace cudabridge::python {

class event_dispatch {
public:
    event_dispatch();
    ~event_dispatch();  // stops the thread; call with the GIL released
    event_dispatch(const event_dispatch&) = delete;
    event_dispatch& operator=(const event_dispatch&) = delete;

    // Python side (GIL held).
    int add(pybind11::object fn);
    bool remove(int id);
    void clear();  // drops every Python function (GIL held)

    // Any thread: queue an event for the dispatcher.
    void post(const host::device_event& e);
    // Hook this dispatcher to a device's events; returns the device's callback id.
    int attach(host::device& d);

private:
    void run();

    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<host::device_event> queue_;
    std::map<int, pybind11::object> functions_;  // touched only with the GIL held
    int next_id_ = 1;
    bool stop_ = false;
    std::thread worker_;
};

}  // namespace cudabridge::python
