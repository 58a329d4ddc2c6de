// C++ helpers for plugin authors: derive from the base class of your kind, give the class the
// static metadata below, and list it in CB_PLUGIN_DEFINE:
//
//     class csv_sink final : public cudabridge::sdk::logsink {
//     public:
//         static constexpr const char* name = "csv";
//         static constexpr uint32_t version = CB_MAKE_VERSION(1, 0, 0);
//         static constexpr const char* license = "MIT";
//         static constexpr const char* description = "writes records to a CSV file";
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

namespace detail {

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
    static const cb_plugin_descriptor d = {
        sizeof(cb_plugin_descriptor),
        T::base_type::kind,
        T::name,
        T::version,
        0,
        T::license,
        T::description,
        &detail::create<T>,
        &detail::destroy<T>,
        T::base_type::table(),
    };
    return &d;
}

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_PLUGIN_HPP
