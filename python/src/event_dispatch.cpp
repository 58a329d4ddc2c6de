#include "event_dispatch.hpp"

#include <iostream>

namespace py = pybind11;

namespace cudabridge::python {

event_dispatch::event_dispatch() : worker_([this] { run(); }) {}

event_dispatch::~event_dispatch() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
}

int event_dispatch::add(py::object fn) {
    const int id = next_id_++;
    functions_[id] = std::move(fn);
    return id;
}

bool event_dispatch::remove(int id) { return functions_.erase(id) > 0; }

void event_dispatch::clear() { functions_.clear(); }

void event_dispatch::post(const host::device_event& e) {
    {
        std::lock_guard lock(mutex_);
        if (stop_) return;
        queue_.push_back(e);
    }
    cv_.notify_one();
}

int event_dispatch::attach(host::device& d) {
    return d.add_callback([this](const host::device_event& e) { post(e); });
}

void event_dispatch::run() {
    for (;;) {
        host::device_event e;
        {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
            if (stop_) return;  // what is still queued goes with the runtime
            e = std::move(queue_.front());
            queue_.pop_front();
        }
        if (!Py_IsInitialized()) return;
        py::gil_scoped_acquire gil;
        py::dict event;
        event["device"] = e.device;
        event["state"] = std::string(host::state_name(e.state));
        event["status"] = static_cast<int>(e.status);
        event["kind"] = e.kind;
        event["message"] = e.message;
        // A copy: a callback may add or remove callbacks.
        std::vector<py::object> fns;
        for (const auto& [id, fn] : functions_) fns.push_back(fn);
        for (const auto& fn : fns) {
            try {
                fn(event);
            } catch (py::error_already_set& err) {
                // A failing callback is reported as Python reports unraisable errors; others still run.
                err.discard_as_unraisable("cudabridge event callback");
            }
        }
    }
}

}  // namespace cudabridge::python
