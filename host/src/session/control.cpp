// The plugins' JSON control entries, for applications (the CLI's `sim`, `profile`, `monitor`).
#include <cudabridge/host/session.hpp>

#include <cudabridge/core/error.hpp>

#include <vector>

namespace cudabridge::host {
namespace {

// Control calls are not idempotent, so one buffer as large as the contract allows a reply to be
// (64 KiB for a transport, 1 MiB for a GPU family) and no second call.
template <class Table>
std::string call_control(const Table* table, void* instance, const std::string& who, const std::string& request,
                         size_t reply_limit) {
    if (!CB_HAS_FIELD(table, Table, control) || table->control == nullptr)
        throw core::error(CB_ERR_UNSUPPORTED, "the " + who + " plugin has no control entry");
    std::vector<char> reply(reply_limit + 1);
    size_t needed = 0;
    const cb_status st = table->control(instance, request.c_str(), reply.data(), reply.size(), &needed);
    if (st != CB_OK) {
        const std::string why = core::last_error();
        throw core::error(st, "the " + who + " plugin refused " + request + ": " +
                                  (why.empty() ? std::string(core::status_name(st)) : why));
    }
    return std::string(reply.data());
}

}  // namespace

std::string session::transport_control(const std::string& request) {
    return call_control(transport(), transport_instance(), transport_info().name, request, 64 * 1024);
}

std::string session::gpu_control(const std::string& request) {
    return call_control(gpu(), gpu_instance(), gpu_info().name, request, 1024 * 1024);
}

}  // namespace cudabridge::host
