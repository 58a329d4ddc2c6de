/* Endpoint models: the behaviour of one simulated PCIe function (a GPU, say), offered by a GPU
 * family and hosted by a transport's simulated fabric. The two plugins meet only through these
 * tables: the transport calls the model for config and MMIO cycles, and the model calls back
 * through cb_endpoint_host_ops to DMA into host memory and raise interrupts.
 *
 * Threading: a transport serialises calls into one model; the model may call host_ops from its
 * own engine threads at any time between attach and detach.
 */
#ifndef CUDABRIDGE_ENDPOINT_MODEL_H
#define CUDABRIDGE_ENDPOINT_MODEL_H

#include "abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One Base Address Register as the function reports it. */
typedef struct cb_bar_info {
    uint32_t struct_size;
    uint32_t index; /* 0..5 */
    uint64_t size;  /* bytes; 0 when the BAR is not implemented */
    uint64_t bus_address;
    cb_bool is_64bit;
    cb_bool prefetchable;
    cb_bool is_io;
    uint32_t reserved0;
} cb_bar_info;

/* Reset kinds shared by transports, models and GPUs. */
typedef int32_t cb_reset_kind;
enum {
    CB_RESET_FUNCTION = 0, /* function-level reset of one PCIe function */
    CB_RESET_HOT = 1,      /* secondary-bus / hot reset */
    CB_RESET_LINK_RETRAIN = 2,
    CB_RESET_SOFT = 3, /* engine-level reset (GPU) */
    CB_RESET_HARD = 4  /* full device reset (GPU) */
};

/* What a hosted model may do back across the link. Given by the transport at attach. */
typedef struct cb_endpoint_host_ops {
    uint32_t struct_size;
    uint32_t reserved0;
    void* context;

    /* ABI 1.0 */
    /* Device-side DMA at an IOVA the host mapped; crosses the modeled link as packets. */
    cb_status (*dma_read)(void* context, uint64_t iova, void* dst, size_t size);
    cb_status (*dma_write)(void* context, uint64_t iova, const void* src, size_t size);
    /* Raise MSI vector `vector`. */
    cb_status (*raise_interrupt)(void* context, uint32_t vector);

    /* ABI 1.3 */
    /* The link's modeled clock: nanoseconds the real link would have spent on everything this
     * link carried so far (monotonic). A model reads it around its DMA to learn what a transfer
     * cost in modeled time. Optional (NULL: the host does not model time). */
    uint64_t (*modeled_time_ns)(void* context);
} cb_endpoint_host_ops;
/* ABI 1.0 size, frozen: the smallest struct_size a reader accepts. */
#define CB_ENDPOINT_HOST_OPS_SIZE_1_0 CB_SIZE_THROUGH(cb_endpoint_host_ops, raise_interrupt)

typedef struct cb_endpoint_model_table {
    uint32_t struct_size;

    /* ABI 1.0 */
    cb_status (*config_read)(void* model, uint32_t offset, void* data, uint32_t size);
    cb_status (*config_write)(void* model, uint32_t offset, const void* data, uint32_t size);
    cb_status (*bar_info)(void* model, uint32_t bar, cb_bar_info* out);
    /* MMIO of 1, 2, 4 or 8 bytes, or a block (size any multiple of 4) for BAR apertures. */
    cb_status (*mmio_read)(void* model, uint32_t bar, uint64_t offset, void* data, uint32_t size);
    cb_status (*mmio_write)(void* model, uint32_t bar, uint64_t offset, const void* data, uint32_t size);
    cb_status (*reset)(void* model, cb_reset_kind kind);
    /* The transport connects the model to the link; ops stays valid until detach. */
    cb_status (*attach)(void* model, const cb_endpoint_host_ops* ops);
    void (*detach)(void* model);

    /* ABI 1.11 */
    /* The host address of [offset, offset + size) of a memory BAR, as mmap of the function's
     * sysfs resource file gives a host on a real link: loads and stores through it reach the
     * model's memory directly, without crossing the modeled link. The mapping stays readable and
     * writable for the life of the process, even after the model is destroyed (its memory then
     * reads as zeros and no longer reaches any device). Optional; CB_ERR_UNSUPPORTED for a BAR
     * the model cannot map, CB_ERR_INVALID_ARGUMENT for a range outside the BAR. */
    cb_status (*bar_map)(void* model, uint32_t bar, uint64_t offset, uint64_t size, void** out_host);
} cb_endpoint_model_table;
/* ABI 1.0 size, frozen: the smallest struct_size a reader accepts. */
#define CB_ENDPOINT_MODEL_TABLE_SIZE_1_0 CB_SIZE_THROUGH(cb_endpoint_model_table, detach)

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_ENDPOINT_MODEL_H */
