// The plugins' JSON control entries, for applications (the CLI's `sim`, `profile`, `monitor`).
#include <cudabridge/host/session.hpp>

#include <cudabridge/core/error.hpp>

#include <memory>

namespace cudabridge::host {
namespace {

// Control calls are not idempotent, so one buffer as large as the contract allows a reply to be
// (64 KiB for a transport, 1 MiB for a GPU family) and no second call.
template <class Table>
std::string call_control(const Table* table, void* instance, const std::string& who, const std::string& request,
                         size_t reply_limit) {
    if (!CB_HAS_FIELD(table, Table, control) || table->control == nullptr)
        throw core::error(CB_ERR_UNSUPPORTED, "the " + who + " plugin has no control entry");
    // Not zeroed: the plugin writes a terminated reply (1 MiB of memset per call would show in
    // `info`'s start-up).
    auto reply = std::make_unique_for_overwrite<char[]>(reply_limit + 1);
    reply[0] = '\0';
    size_t needed = 0;
    const cb_status st = table->control(instance, request.c_str(), reply.get(), reply_limit + 1, &needed);
    if (st != CB_OK) {
        // A copy of the thread's one error slot, which anything that fails later overwrites.
        const std::string why = core::last_error();  // NOLINT(performance-unnecessary-copy-initialization)
        throw core::error(st, "the " + who + " plugin refused " + request + ": " +
                                  (why.empty() ? std::string(core::status_name(st)) : why));
    }
    return std::string(reply.get());
}

}  // namespace

std::string session::transport_control(const std::string& request) {
    return call_control(transport(), transport_instance(), transport_info().name, request, 64 * 1024);
}

std::string session::gpu_control(const std::string& request) {
    return call_control(gpu(), gpu_instance(), gpu_info().name, request, 1024 * 1024);
}

}  // namespace cudabridge::host
