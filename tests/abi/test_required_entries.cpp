// A C++ plugin cannot leave out an entry the host requires: the SDK's base classes declare every
// required entry without a default, so such a class is abstract and descriptor_of<T>() cannot
// build. (The host's required-entry check then refuses only C plugins with a NULL slot.)
#include <cudabridge/cpp/plugin.hpp>

#include <gtest/gtest.h>

#include <type_traits>

namespace sdk = cudabridge::sdk;

namespace {

struct transport_without_links : sdk::transport {
    using transport::transport;
    cb_status enumerate(cb_endpoint_info*, size_t, size_t&) override { return CB_OK; }
};

struct transport_with_links : transport_without_links {
    using transport_without_links::transport_without_links;
    cb_status open_link(const char*, cb_link**) override { return CB_OK; }
    cb_status close_link(cb_link*) override { return CB_OK; }
};

struct gpu_without_properties : sdk::gpu_family {
    using gpu_family::gpu_family;
    cb_status claim(const cb_endpoint_info&, cb_bool&) override { return CB_OK; }
    cb_status open_device(const cb_gpu_open_params&, cb_gpu_device**) override { return CB_OK; }
    cb_status close_device(cb_gpu_device*) override { return CB_OK; }
};

struct sink_without_write : sdk::logsink {
    using logsink::logsink;
};

struct policy_without_evaluate : sdk::safety_policy {
    using safety_policy::safety_policy;
    cb_status check_compatibility(const cb_device_facts&, cb_verdict&) override { return CB_OK; }
};

}  // namespace

TEST(required_entries, a_transport_without_open_link_and_close_link_does_not_build) {
    static_assert(std::is_abstract_v<transport_without_links>);
    static_assert(!std::is_abstract_v<transport_with_links>);
}

TEST(required_entries, a_gpu_family_without_get_properties_does_not_build) {
    static_assert(std::is_abstract_v<gpu_without_properties>);
}

TEST(required_entries, a_sink_without_write_and_a_policy_without_evaluate_do_not_build) {
    static_assert(std::is_abstract_v<sink_without_write>);
    static_assert(std::is_abstract_v<policy_without_evaluate>);
}
