// The exception firewall: every C entry point of a C++ plugin runs its body through guard(), so
// no exception ever crosses the ABI. Exceptions become status codes plus a last-error message.
#ifndef CUDABRIDGE_CPP_FIREWALL_HPP
#define CUDABRIDGE_CPP_FIREWALL_HPP

#include <cudabridge/cpp/host.hpp>

#include <exception>
#include <new>
#include <string>

namespace cudabridge::sdk {

template <class Body>
cb_status guard(const host& h, Body&& body) noexcept {
    try {
        return body();
    } catch (const status_error& e) {
        h.set_last_error(e.what());
        return e.status();
    } catch (const std::bad_alloc&) {
        h.set_last_error("out of host memory");
        return CB_ERR_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        h.set_last_error((std::string("unexpected exception: ") + e.what()).c_str());
        return CB_ERR_INTERNAL;
    } catch (...) {
        h.set_last_error("unexpected non-standard exception");
        return CB_ERR_INTERNAL;
    }
}

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_FIREWALL_HPP
