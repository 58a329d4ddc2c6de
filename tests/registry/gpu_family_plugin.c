/* A tiny GPU family in plain C, for the registry's ABI-minor tests. Built twice:
 *   gpu_v11  the library claims ABI 1.1 and its table ends before `control` (struct_size
 *            offsetof(cb_gpu_table, control)), as an ABI 1.0 or 1.1 family has it. The bytes
 *            past struct_size still hold a control pointer that answers CB_ERR_ABI_MISMATCH, so
 *            a host that calls past struct_size is caught;
 *   gpu_v12  the current ABI: `control` answers {"op":"profiles"} with two model profiles and
 *            CB_ERR_UNSUPPORTED for any other op.
 * Devices: it claims NVIDIA endpoints and opens none. */
#include <cudabridge/plugin.h>

#include <stdlib.h>
#include <string.h>

static cb_status gpu_create(const cb_host_services* host, const cb_config* config, void** out) {
    (void)host;
    (void)config;
    if (out == NULL) return CB_ERR_INVALID_ARGUMENT;
    *out = malloc(1);
    return *out != NULL ? CB_OK : CB_ERR_OUT_OF_MEMORY;
}

static void gpu_destroy(void* instance) { free(instance); }

static cb_status gpu_claim(void* instance, const cb_endpoint_info* endpoint, cb_bool* out_claim) {
    (void)instance;
    if (endpoint == NULL || out_claim == NULL) return CB_ERR_INVALID_ARGUMENT;
    *out_claim = endpoint->pci_vendor_id == 0x10de;
    return CB_OK;
}

static cb_status gpu_open(void* instance, const cb_gpu_open_params* params, cb_gpu_device** out) {
    (void)instance;
    (void)params;
    (void)out;
    return CB_ERR_NO_DEVICE;
}

static cb_status gpu_close(void* instance, cb_gpu_device* device) {
    (void)instance;
    (void)device;
    return CB_OK;
}

static cb_status gpu_properties(void* instance, cb_gpu_device* device, cb_gpu_properties* out) {
    (void)instance;
    (void)device;
    (void)out;
    return CB_ERR_NO_DEVICE;
}

#if defined(TP_GPU_V11)
static cb_status gpu_control(void* instance, const char* request, char* reply, size_t reply_size, size_t* needed) {
    (void)instance;
    (void)request;
    (void)reply;
    (void)reply_size;
    (void)needed;
    return CB_ERR_ABI_MISMATCH; /* beyond struct_size: a host must never call it */
}
#define TP_GPU_TABLE_SIZE offsetof(cb_gpu_table, control)
#define TP_GPU_ABI_MINOR 1
#else
static const char profiles_reply[] =
    "{\"profiles\":["
    "{\"key\":\"test-a\",\"name\":\"Test GPU A\",\"pci_device_id\":\"0x1a01\",\"sources\":{}},"
    "{\"key\":\"test-b\",\"name\":\"Test GPU B\",\"pci_device_id\":6658,\"sources\":{\"name\":\"test\"}}"
    "]}";

static cb_status gpu_control(void* instance, const char* request, char* reply, size_t reply_size, size_t* needed) {
    (void)instance;
    if (request == NULL) return CB_ERR_INVALID_ARGUMENT;
    if (strstr(request, "\"profiles\"") == NULL) return CB_ERR_UNSUPPORTED;
    if (needed != NULL) *needed = sizeof profiles_reply;
    if (reply != NULL && reply_size > 0) {
        const size_t n = reply_size - 1 < sizeof profiles_reply - 1 ? reply_size - 1 : sizeof profiles_reply - 1;
        memcpy(reply, profiles_reply, n);
        reply[n] = '\0';
    }
    return CB_OK;
}
#define TP_GPU_TABLE_SIZE sizeof(cb_gpu_table)
#define TP_GPU_ABI_MINOR CB_ABI_MINOR
#endif

static const cb_gpu_table gpu_table = {
    .struct_size = (uint32_t)TP_GPU_TABLE_SIZE,
    .claim = gpu_claim,
    .open_device = gpu_open,
    .close_device = gpu_close,
    .get_properties = gpu_properties,
    .control = gpu_control,
};

static const cb_plugin_descriptor gpu_descriptor = {sizeof(cb_plugin_descriptor),
                                                    CB_KIND_GPU,
                                                    "testgpu",
                                                    CB_MAKE_VERSION(1, 0, 0),
                                                    0,
                                                    "MIT",
                                                    "registry test GPU family",
                                                    gpu_create,
                                                    gpu_destroy,
                                                    &gpu_table};

/* Written out rather than CB_PLUGIN_DEFINE, which always claims the headers' ABI minor. */
CB_PLUGIN_EXPORT const cb_plugin_library* cb_plugin_entry(void);
CB_PLUGIN_EXPORT const cb_plugin_library* cb_plugin_entry(void) {
    static const cb_plugin_descriptor* const plugins[] = {&gpu_descriptor};
    static const cb_plugin_library library = {sizeof(cb_plugin_library), CB_ABI_MAJOR, TP_GPU_ABI_MINOR, plugins, 1};
    return &library;
}
