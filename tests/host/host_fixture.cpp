#include "host_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <Poco/JSON/Parser.h>

#include <cstdlib>
#include <sstream>
#include <vector>

namespace cudabridge::test {

host::session_options host_test::session_options(core::config_entries safety) const {
    host::session_options o;
    o.database = tmp / "cudabridge.db";
    o.plugin_paths = {CB_TEST_PLUGIN_DIR};
    o.use_environment = false;
    o.flags.log_sinks = std::getenv("CB_TEST_LOG_SINKS") ? std::getenv("CB_TEST_LOG_SINKS") : "sqlite";
    o.transport_config = {{"backend", "sim"}};
    // No NVIDIA driver here: a path that does not exist keeps the kernel-driver backend idle.
    o.gpu_config = {{"cuda_library", "/nonexistent/libcuda.so.1"}, {"nvml_library", "/nonexistent/libnvidia-ml.so.1"}};
    o.safety_config = std::move(safety);
    return o;
}

host::runtime_options host_test::runtime_options(core::config_entries safety) const {
    host::runtime_options o;
    o.session = session_options(std::move(safety));
    return o;
}

std::unique_ptr<host::session> host_test::open_session(core::config_entries safety) const {
    return std::make_unique<host::session>(session_options(std::move(safety)));
}

std::string host_test::control(host::session& s, const std::string& request) {
    std::vector<char> reply(64 * 1024);
    size_t needed = 0;
    const cb_status st =
        s.transport()->control(s.transport_instance(), request.c_str(), reply.data(), reply.size(), &needed);
    EXPECT_EQ(st, CB_OK) << request << ": " << core::last_error();
    return reply.data();
}

void host_test::edit_layout(const std::function<void(Poco::JSON::Object::Ptr)>& edit) const {
    auto s = open_session();
    const std::string reply = control(*s, R"({"op":"layout"})");
    auto layout = Poco::JSON::Parser().parse(reply).extract<Poco::JSON::Object::Ptr>()->getObject("layout");
    edit(layout);
    Poco::JSON::Object request;
    request.set("op", "set_layout");
    request.set("layout", layout);
    std::ostringstream text;
    request.stringify(text);
    control(*s, text.str());
}

std::string host_test::enclosure_id(host::session& s) {
    for (const auto& d : host::detect(s)) return d.enclosure.id;
    return {};
}

std::vector<core::event_row> host_test::events(host::session& s, const std::string& kind) const {
    core::event_query q;
    q.kind = kind;
    q.limit = 1000;
    std::lock_guard lock(s.store_mutex());
    return core::query_events(s.db(), q);
}

std::vector<float> pattern(size_t n, float seed) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = seed + static_cast<float>(i % 1000) * 0.5f;
    return v;
}

}  // namespace cudabridge::test
