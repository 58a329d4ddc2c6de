/* Transport plugins: the USB4 / Thunderbolt fabric and the PCIe tunnel across it.
 *
 * The operation set mirrors what a macOS PCIDriverKit user client gives a userspace driver
 * (identity, claim, DMA buffers, config, BAR info, MMIO, interrupts, reset), so real Linux,
 * macOS and simulated backends all fit one table.
 *
 * Threading: every entry may be called from any thread; a transport serialises per link itself.
 * Handlers registered here are called on the transport's own threads and must not block.
 */
#ifndef CUDABRIDGE_TRANSPORT_H
#define CUDABRIDGE_TRANSPORT_H

#include "abi.h"
#include "endpoint_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_link cb_link; /* an open PCIe tunnel to one function */

typedef int32_t cb_endpoint_kind;
enum {
    CB_ENDPOINT_DOMAIN = 0, /* a USB4 / Thunderbolt domain (host controller) */
    CB_ENDPOINT_HOST_ROUTER = 1,
    CB_ENDPOINT_DEVICE_ROUTER = 2, /* an enclosure or dock */
    CB_ENDPOINT_PCI_FUNCTION = 3   /* a PCIe function tunnelled behind a device router */
};

typedef int32_t cb_link_generation;
enum {
    CB_LINK_UNKNOWN = 0,
    CB_LINK_TB3 = 3,
    CB_LINK_TB4 = 4,
    CB_LINK_USB4_V1 = 5,
    CB_LINK_USB4_V2 = 6, /* also Thunderbolt 5 */
    CB_LINK_OCULINK = 7  /* a direct PCIe cable; a non-tunnel reference */
};

/* Kernel security levels of a Thunderbolt domain. */
typedef int32_t cb_security_level;
enum {
    CB_SECURITY_NONE = 0,
    CB_SECURITY_USER = 1,
    CB_SECURITY_SECURE = 2,
    CB_SECURITY_DPONLY = 3,
    CB_SECURITY_USBONLY = 4,
    CB_SECURITY_NOPCIE = 5
};

typedef int32_t cb_auth_state;
enum { CB_AUTH_NONE = 0, CB_AUTH_AUTHORIZED = 1, CB_AUTH_SECURE = 2 };

/* One thing on the fabric. Which fields mean something depends on kind. */
typedef struct cb_endpoint_info {
    uint32_t struct_size;
    cb_endpoint_kind kind;
    char id[64];        /* stable id: unique_id for routers, "DDDD:BB:DD.F" for PCI functions */
    char parent_id[64]; /* the domain / router it hangs off; "" for a domain */
    char name[128];     /* device_name / product */
    char vendor_name[128];
    uint32_t domain;
    cb_security_level security_level;
    cb_auth_state authorized;
    cb_link_generation generation;
    uint32_t lanes; /* 1 or 2 (USB4) */
    uint32_t reserved0;
    double lane_speed_gbps; /* per lane, line rate */
    cb_bool iommu_dma_protection;
    cb_bool is_simulated;
    /* PCI functions only */
    uint16_t pci_vendor_id;
    uint16_t pci_device_id;
    uint16_t pci_subsystem_vendor_id;
    uint16_t pci_subsystem_device_id;
    uint32_t pci_class_code; /* 24-bit class/subclass/prog-if */
    uint32_t pcie_link_gen;  /* read at the enclosure's port, not the tunnel bridge */
    uint32_t pcie_link_width;
    uint32_t reserved1;
    char driver[64]; /* bound kernel driver, "" when none */
} cb_endpoint_info;

/* DMA direction as seen from the device. */
typedef int32_t cb_dma_direction;
enum { CB_DMA_TO_DEVICE = 1, CB_DMA_FROM_DEVICE = 2, CB_DMA_BIDIRECTIONAL = 3 };

/* How the host maps a BAR for CPU writes (cost model on the simulator). */
typedef int32_t cb_mmio_mapping;
enum { CB_MMIO_DEVICE_NGNRNE = 0, CB_MMIO_GATHERED = 1 };

typedef struct cb_dma_limits {
    uint32_t struct_size;
    uint32_t reserved0;
    uint64_t max_mapped_bytes; /* at once; UINT64_MAX when unlimited */
    uint64_t max_mappings;
    uint64_t page_size;
    uint64_t mapped_bytes; /* in use now */
    uint64_t mappings;
} cb_dma_limits;

typedef struct cb_link_status {
    uint32_t struct_size;
    cb_bool up;
    cb_link_generation generation;
    uint32_t lanes;
    double h2d_bandwidth_gbs; /* usable payload bandwidth, GB/s */
    double d2h_bandwidth_gbs;
    uint64_t bytes_to_device;
    uint64_t bytes_from_device;
    uint64_t packets;
    uint64_t crc_errors;
    uint64_t replays;
    uint64_t corrected_errors;
    uint64_t uncorrectable_errors;
    uint64_t modeled_time_ns; /* time the real link would have taken, summed */
    cb_bool is_simulated;     /* figures modeled (1) or measured on hardware (0) */
    uint32_t reserved0;
    /* ABI 1.6: CRC failures per packet sent over the link's recent traffic (the last one to two
       seconds), whichever processes sent it; 0 when none was sent. */
    double recent_error_rate;
} cb_link_status;

typedef int32_t cb_transport_event_type;
enum {
    CB_TRANSPORT_PLUGGED = 0,
    CB_TRANSPORT_UNPLUGGED = 1,
    CB_TRANSPORT_AUTHORIZED = 2,
    CB_TRANSPORT_DEAUTHORIZED = 3,
    CB_TRANSPORT_LINK_UP = 4,
    CB_TRANSPORT_LINK_DOWN = 5,
    CB_TRANSPORT_LINK_ERROR = 6
};

typedef struct cb_transport_event {
    uint32_t struct_size;
    cb_transport_event_type type;
    char endpoint_id[64];
    char message[256];
} cb_transport_event;

typedef void (*cb_interrupt_handler)(void* user, uint32_t vector);
typedef void (*cb_transport_event_handler)(void* user, const cb_transport_event* event);

typedef struct cb_transport_table {
    uint32_t struct_size;

    /* ABI 1.0: the fabric */
    /* Fill up to capacity entries; *count receives how many exist (call with capacity 0 to size). */
    cb_status (*enumerate)(void* instance, cb_endpoint_info* out, size_t capacity, size_t* count);
    /* Authorize a device router. For CB_AUTH_SECURE, key is 32 bytes: stored on first use, then
     * challenged. */
    cb_status (*authorize)(void* instance, const char* endpoint_id, cb_auth_state level, const uint8_t* key,
                           size_t key_len);
    cb_status (*deauthorize)(void* instance, const char* endpoint_id);
    cb_status (*set_event_handler)(void* instance, cb_transport_event_handler handler, void* user);

    /* ABI 1.0: the tunnel to one PCI function */
    cb_status (*open_link)(void* instance, const char* pci_function_id, cb_link** out);
    cb_status (*close_link)(void* instance, cb_link* link);
    cb_status (*config_read)(void* instance, cb_link* link, uint32_t offset, void* data, uint32_t size);
    cb_status (*config_write)(void* instance, cb_link* link, uint32_t offset, const void* data, uint32_t size);
    cb_status (*bar_info)(void* instance, cb_link* link, uint32_t bar, cb_bar_info* out);
    cb_status (*mmio_read32)(void* instance, cb_link* link, uint32_t bar, uint64_t offset, uint32_t* out);
    cb_status (*mmio_write32)(void* instance, cb_link* link, uint32_t bar, uint64_t offset, uint32_t value);
    cb_status (*mmio_read64)(void* instance, cb_link* link, uint32_t bar, uint64_t offset, uint64_t* out);
    cb_status (*mmio_write64)(void* instance, cb_link* link, uint32_t bar, uint64_t offset, uint64_t value);
    cb_status (*mmio_write_block)(void* instance, cb_link* link, uint32_t bar, uint64_t offset, const void* data,
                                  size_t size, cb_mmio_mapping mapping);
    cb_status (*mmio_read_block)(void* instance, cb_link* link, uint32_t bar, uint64_t offset, void* data, size_t size);
    /* Map host memory for device DMA; the IOMMU picks *out_iova. Beyond the IOMMU's limits the
     * call fails with CB_ERR_DMA_LIMIT. */
    cb_status (*dma_map)(void* instance, cb_link* link, void* host_address, size_t size, cb_dma_direction direction,
                         uint64_t* out_iova);
    cb_status (*dma_unmap)(void* instance, cb_link* link, uint64_t iova, size_t size);
    cb_status (*dma_limits)(void* instance, cb_link* link, cb_dma_limits* out);
    /* Replaces the link's MSI handler (NULL clears it). Returns once no call to the previous
     * handler is running, so its `user` may be freed afterwards. */
    cb_status (*set_interrupt_handler)(void* instance, cb_link* link, cb_interrupt_handler handler, void* user);
    cb_status (*link_status)(void* instance, cb_link* link, cb_link_status* out);
    cb_status (*reset_link)(void* instance, cb_link* link, cb_reset_kind kind);

    /* ABI 1.0: simulation. Optional; real backends leave them NULL. */
    /* Host an endpoint model behind the simulated enclosure `enclosure_id`. */
    cb_status (*attach_endpoint_model)(void* instance, const char* enclosure_id, const cb_endpoint_model_table* table,
                                       void* model);
    cb_status (*detach_endpoint_model)(void* instance, const char* enclosure_id);

    /* ABI 1.1 */
    /* Backend-specific control: `request` is a JSON object ({"op": "...", ...}), e.g. fault
     * injection, plug/unplug and layout edits on a simulated fabric. The reply (JSON) is written
     * like every string getter: at most reply_size bytes, *needed receives the full length + 1.
     * Unlike a getter, every call carries the request out: size the reply buffer generously
     * (replies are small; 64 KiB holds any) rather than calling twice. Optional;
     * CB_ERR_UNSUPPORTED for operations a backend does not know. */
    cb_status (*control)(void* instance, const char* request, char* reply, size_t reply_size, size_t* needed);

    /* ABI 1.11 */
    /* A host mapping of [offset, offset + size) of a memory BAR of the link's function (what
     * mmap of /sys/bus/pci/devices/<function>/resource<bar> gives): CPU loads and stores reach
     * the device's aperture directly. On a simulated link they reach the endpoint model's memory
     * without crossing the modeled wire. The mapping lives as long as the process. Optional;
     * CB_ERR_UNSUPPORTED where the backend cannot map the BAR. */
    cb_status (*bar_map)(void* instance, cb_link* link, uint32_t bar, uint64_t offset, uint64_t size, void** out_host);
} cb_transport_table;
/* ABI 1.0 size, frozen: the smallest struct_size a reader accepts. */
#define CB_TRANSPORT_TABLE_SIZE_1_0 CB_SIZE_THROUGH(cb_transport_table, detach_endpoint_model)

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_TRANSPORT_H */
