#include <cudabridge/core/error.hpp>
#include <cudabridge/core/thread_text.hpp>

namespace cudabridge::core {

namespace {
struct status_text {
    cb_status status;
    const char* name;
    const char* description;
};

constexpr status_text texts[] = {
    {CB_OK, "CB_OK", "success"},
    {CB_ERR_INVALID_ARGUMENT, "CB_ERR_INVALID_ARGUMENT", "invalid argument"},
    {CB_ERR_UNSUPPORTED, "CB_ERR_UNSUPPORTED", "not supported"},
    {CB_ERR_NOT_FOUND, "CB_ERR_NOT_FOUND", "not found"},
    {CB_ERR_NO_DEVICE, "CB_ERR_NO_DEVICE", "no device"},
    {CB_ERR_DEVICE_LOST, "CB_ERR_DEVICE_LOST", "device lost"},
    {CB_ERR_LINK_DOWN, "CB_ERR_LINK_DOWN", "link down"},
    {CB_ERR_TIMEOUT, "CB_ERR_TIMEOUT", "timed out"},
    {CB_ERR_OUT_OF_MEMORY, "CB_ERR_OUT_OF_MEMORY", "out of memory"},
    {CB_ERR_DMA_LIMIT, "CB_ERR_DMA_LIMIT", "DMA mapping limit reached"},
    {CB_ERR_INTEGRITY, "CB_ERR_INTEGRITY", "data integrity error"},
    {CB_ERR_THERMAL_LIMIT, "CB_ERR_THERMAL_LIMIT", "thermal limit exceeded"},
    {CB_ERR_PERMISSION, "CB_ERR_PERMISSION", "permission denied"},
    {CB_ERR_ABI_MISMATCH, "CB_ERR_ABI_MISMATCH", "plugin ABI mismatch"},
    {CB_ERR_BUSY, "CB_ERR_BUSY", "busy"},
    {CB_ERR_INTERNAL, "CB_ERR_INTERNAL", "internal error"},
    {CB_ERR_ILLEGAL_ADDRESS, "CB_ERR_ILLEGAL_ADDRESS", "illegal memory access"},
    {CB_ERR_ASSERT, "CB_ERR_ASSERT", "a kernel's assert() failed"},
};

const status_text* find(cb_status status) noexcept {
    for (const auto& t : texts)
        if (t.status == status) return &t;
    return nullptr;
}

thread_local thread_text last_error_message;  // safe to set during exit (thread_text.hpp)
}  // namespace

const char* status_name(cb_status status) noexcept {
    const status_text* t = find(status);
    return t ? t->name : "CB_ERR_UNKNOWN";
}

const char* status_description(cb_status status) noexcept {
    const status_text* t = find(status);
    return t ? t->description : "unknown status";
}

void set_last_error(std::string_view message) { last_error_message.set(message); }
std::string last_error() { return std::string(last_error_message.view()); }

}  // namespace cudabridge::core
