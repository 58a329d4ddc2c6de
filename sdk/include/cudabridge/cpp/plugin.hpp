// C++ helpers for plugin authors: derive from the base class of your kind, give the class its
// identity and list it in CB_PLUGIN_DEFINE:
//
//     class csv_sink final : public cudabridge::sdk::logsink {
//     public:
//         static constexpr cudabridge::sdk::plugin_identity identity{
//             "csv", CB_MAKE_VERSION(1, 0, 0), "MIT", "writes records to a CSV file"};
//         csv_sink(const cudabridge::sdk::host& h, const cudabridge::sdk::config& c);
//         cb_status write(const cb_log_record& r) override;
//     };
//     CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<csv_sink>())
//
// The base classes fill the kind's C table; every entry runs behind the exception firewall.
#ifndef CUDABRIDGE_CPP_PLUGIN_HPP
#define CUDABRIDGE_CPP_PLUGIN_HPP

#include <cudabridge/cpp/firewall.hpp>
#include <cudabridge/cpp/kinds.hpp>

#include <memory>

namespace cudabridge::sdk {

// What a plugin says about itself in its descriptor: the name the host knows it by (the `sinks`
// and `policy` settings, `cudabridge-cli plugins`), its version (CB_MAKE_VERSION), its license
// (an SPDX identifier) and one line on what it does.
struct plugin_identity {
    const char* name;
    uint32_t version;
    const char* license;
    const char* description;
};

namespace detail {

// A class written for earlier SDK releases has four statics (name, version, license,
// description) instead of `identity`; both build.
template <class T>
constexpr plugin_identity identity_of() {
    if constexpr (requires { T::identity; })
        return T::identity;
    else
        return {T::name, T::version, T::license, T::description};
}

template <class T>
cb_status create(const cb_host_services* services, const cb_config* cfg, void** out) noexcept {
    host h(services);
    if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    *out = nullptr;
    return guard(h, [&] {
        // Store the kind's base pointer: the table's adapters cast back to it. A std::bad_alloc
        // reaches guard(), which answers CB_ERR_OUT_OF_MEMORY.
        std::unique_ptr<typename T::base_type> instance = std::make_unique<T>(h, config(cfg));
        *out = instance.release();
        return CB_OK;
    });
}

template <class T>
void destroy(void* instance) noexcept {
    auto* base = static_cast<typename T::base_type*>(instance);
    try {
        delete base;
    } catch (...) {
        // Destructors must not throw; nothing can be reported once the instance is gone.
    }
}

}  // namespace detail

// The static descriptor of plugin class T (one per T, built on first use).
template <class T>
const cb_plugin_descriptor* descriptor_of() {
    constexpr plugin_identity id = detail::identity_of<T>();
    static const cb_plugin_descriptor d = {
        sizeof(cb_plugin_descriptor),
        T::base_type::kind,
        id.name,
        id.version,
        0,
        id.license,
        id.description,
        &detail::create<T>,
        &detail::destroy<T>,
        T::base_type::table(),
    };
    return &d;
}

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_PLUGIN_HPP
