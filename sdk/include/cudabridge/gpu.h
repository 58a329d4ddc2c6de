/* GPU-family plugins: one vendor's GPUs, whether driven by the vendor's kernel driver, by a
 * userspace driver over a transport link, or simulated.
 *
 * Threading: every entry may be called from any thread. Calls taking a stream return once the
 * work is queued; a NULL stream means "synchronous on the device's default stream".
 */
#ifndef CUDABRIDGE_GPU_H
#define CUDABRIDGE_GPU_H

#include "abi.h"
#include "endpoint_model.h"
#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_gpu_device cb_gpu_device;
typedef struct cb_gpu_stream cb_gpu_stream;
typedef struct cb_gpu_event cb_gpu_event;
typedef struct cb_gpu_module cb_gpu_module;

/* Element types of the built-in kernel library: numpy dtypes (eight in 1.0-1.8; the unsigned
 * 16-, 32- and 64-bit ones, float16 and the complex ones since 1.9, which an older family refuses
 * as an invalid dtype). */
typedef int32_t cb_dtype;
enum {
    CB_DTYPE_FLOAT32 = 0,
    CB_DTYPE_FLOAT64 = 1,
    CB_DTYPE_INT32 = 2,
    CB_DTYPE_INT64 = 3,
    CB_DTYPE_UINT8 = 4,
    CB_DTYPE_INT8 = 5,
    CB_DTYPE_INT16 = 6,
    CB_DTYPE_BOOL = 7,
    CB_DTYPE_UINT16 = 8,     /* ABI 1.9 */
    CB_DTYPE_UINT32 = 9,     /* ABI 1.9 */
    CB_DTYPE_UINT64 = 10,    /* ABI 1.9 */
    CB_DTYPE_FLOAT16 = 11,   /* ABI 1.9: IEEE half */
    CB_DTYPE_COMPLEX64 = 12, /* ABI 1.9: two float32, real then imaginary */
    CB_DTYPE_COMPLEX128 = 13 /* ABI 1.9: two float64 */
};

/* How to reach the device being opened. */
typedef struct cb_gpu_open_params {
    uint32_t struct_size;
    int32_t ordinal;                     /* kernel-driver backends: the driver's index; else -1 */
    const cb_transport_table* transport; /* userspace driver: the link to drive, else NULL */
    void* transport_instance;
    cb_link* link;
    const cb_endpoint_info* endpoint; /* the PCI function, when known */
    const char* profile_json;         /* the model profile to apply; may be NULL */
} cb_gpu_open_params;

typedef struct cb_gpu_properties {
    uint32_t struct_size;
    cb_bool is_simulated;
    char name[256];
    char uuid[64];         /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    char architecture[32]; /* "Blackwell", "Ada Lovelace", ... */
    char backend[32];      /* "kernel-driver", "userspace", "simulated" */
    char pci_bus_id[32];
    uint16_t pci_vendor_id;
    uint16_t pci_device_id;
    uint32_t pci_subsystem_id;
    int32_t compute_major;
    int32_t compute_minor;
    uint32_t sm_count;
    uint32_t warp_size;
    uint64_t total_memory;
    uint32_t max_threads_per_block;
    uint32_t max_block_dim[3];
    uint32_t max_grid_dim[3];
    uint32_t shared_memory_per_block;
    uint32_t memory_bus_width;
    uint32_t l2_cache_bytes;
    uint32_t clock_mhz; /* max SM clock */
    uint32_t memory_clock_mhz;
    uint32_t reserved0;
    uint32_t reserved1; /* fills the tail padding so struct_size grows with the next field */
} cb_gpu_properties;

/* Bits of cb_gpu_telemetry.throttle_reasons, after NVML's clocks-event reasons. */
enum {
    CB_THROTTLE_IDLE = 1u << 0,
    CB_THROTTLE_APP_CLOCKS = 1u << 1,
    CB_THROTTLE_SW_POWER_CAP = 1u << 2,
    CB_THROTTLE_HW_SLOWDOWN = 1u << 3,
    CB_THROTTLE_SW_THERMAL = 1u << 5,
    CB_THROTTLE_HW_THERMAL = 1u << 6
};

typedef struct cb_gpu_telemetry {
    uint32_t struct_size;
    cb_bool is_simulated; /* modeled (1) or measured on hardware (0) */
    uint64_t time_ns;
    double temperature_c;
    double power_w;
    double power_limit_w;
    double fan_percent; /* < 0 when the board has no fan readout */
    uint32_t sm_clock_mhz;
    uint32_t memory_clock_mhz;
    double gpu_utilization;    /* percent */
    double memory_utilization; /* percent */
    uint64_t memory_used;
    uint64_t memory_total;
    int32_t performance_state; /* 0..15 for P0..P15 */
    uint32_t throttle_reasons;
    uint32_t pcie_link_gen;
    uint32_t pcie_link_width;
    uint64_t ecc_corrected;
    uint64_t ecc_uncorrected;
    uint64_t xid_count;
    uint32_t last_xid;
    uint32_t reserved0;
} cb_gpu_telemetry;

/* ABI 1.9: one process attached to a device (cb_gpu_table.processes). */
enum {
    CB_GPU_PROCESS_COMPUTE = 1u << 0 /* it has allocated memory, loaded a module or launched work */
};
typedef struct cb_gpu_process {
    uint32_t struct_size;
    int32_t pid;
    uint64_t memory_used;   /* bytes of device memory this process has allocated */
    uint64_t start_unix_ns; /* when it attached to the device */
    uint32_t flags;         /* CB_GPU_PROCESS_* */
    uint32_t queued;        /* commands it has queued that have not completed */
    char name[64];          /* the process's name (Linux: /proc/PID/comm), NUL-terminated */
} cb_gpu_process;

/* Which fields of cb_gpu_settings a call sets. */
enum { CB_SET_CLOCKS = 1u << 0, CB_SET_POWER_LIMIT = 1u << 1, CB_SET_FAN = 1u << 2, CB_SET_PSTATE = 1u << 3 };

typedef struct cb_gpu_settings {
    uint32_t struct_size;
    uint32_t fields;       /* CB_SET_* bits */
    uint32_t sm_clock_mhz; /* locked clocks; 0 = default */
    uint32_t memory_clock_mhz;
    double power_limit_w;
    int32_t fan_percent;       /* -1 = automatic */
    int32_t performance_state; /* 0..15 */
} cb_gpu_settings;

/* Bounds the settings are checked against (from the model profile or the driver). */
typedef struct cb_gpu_setting_limits {
    uint32_t struct_size;
    uint32_t min_sm_clock_mhz;
    uint32_t max_sm_clock_mhz;
    uint32_t min_memory_clock_mhz;
    uint32_t max_memory_clock_mhz;
    uint32_t reserved0;
    double min_power_w;
    double max_power_w;
    double default_power_w;
    int32_t min_performance_state;
    int32_t max_performance_state;
    cb_bool fan_control;
    uint32_t reserved1;
} cb_gpu_setting_limits;

/* A kernel argument: a device pointer or a scalar. */
typedef int32_t cb_kernel_arg_type;
enum { CB_ARG_DEVICE_PTR = 0, CB_ARG_INT64 = 1, CB_ARG_UINT64 = 2, CB_ARG_FLOAT64 = 3, CB_ARG_BYTES = 4 };

typedef struct cb_kernel_arg {
    cb_kernel_arg_type type;
    uint32_t size; /* CB_ARG_BYTES only: bytes at value.bytes */
    union {
        uint64_t device_ptr;
        int64_t i64;
        uint64_t u64;
        double f64;
        const void* bytes;
    } value;
} cb_kernel_arg;

typedef struct cb_kernel_launch {
    uint32_t struct_size;
    uint32_t shared_memory_bytes;
    const char* name; /* built-in (builtin_kernels.h): "add", "sum", ...; module: symbol */
    cb_dtype dtype;   /* built-ins only */
    uint32_t grid[3];
    uint32_t block[3];
    /* ABI 1.15 (reserved and zero before): CB_LAUNCH_* bits. */
    uint32_t flags;
    const cb_kernel_arg* args;
    size_t arg_count;
    /* ABI 1.7, user modules only: the arguments as cuLaunchKernel's kernelParams take them, one
     * pointer per parameter of the kernel, each to a value of that parameter's size and layout
     * (the family knows the sizes from the kernel itself). When set, args and arg_count are
     * ignored. Read it only when CB_HAS_MEMBER(launch, cb_kernel_launch, kernel_params). */
    void* const* kernel_params;
    /* ABI 1.15, user modules only: the per-thread call stack (cudaLimitStackSize) and the device
     * heap that malloc/free/new/delete in kernels allocate from (cudaLimitMallocHeapSize), in bytes;
     * 0, or a caller's struct that predates 1.15: CUDA's defaults, 1 KiB and 8 MiB. A family sizes
     * the heap once, at the first launch that needs it, as CUDA does. */
    uint64_t stack_bytes;
    uint64_t heap_bytes;
} cb_kernel_launch;

/* cb_kernel_launch.flags (ABI 1.15). COOPERATIVE: cudaLaunchCooperativeKernel's launch, whose
 * blocks are all resident at once and may wait for each other (a grid-wide barrier); the family
 * gives its kernels the grid's workspace and runs every block together, or refuses the launch. */
#define CB_LAUNCH_COOPERATIVE 0x1u

/* CUDA's defaults for cb_kernel_launch.stack_bytes and heap_bytes. */
#define CB_DEFAULT_STACK_BYTES 1024u
#define CB_DEFAULT_HEAP_BYTES (8u << 20)

/* A launch's per-thread stack and device heap in bytes: the caller's, or the defaults when its
 * struct predates ABI 1.15 or leaves them 0. */
static inline uint64_t cb_launch_stack_bytes(const cb_kernel_launch* launch) {
    const int has = launch->struct_size >= CB_SIZE_THROUGH(cb_kernel_launch, stack_bytes);
    return has && launch->stack_bytes ? launch->stack_bytes : CB_DEFAULT_STACK_BYTES;
}
static inline uint64_t cb_launch_heap_bytes(const cb_kernel_launch* launch) {
    const int has = launch->struct_size >= CB_SIZE_THROUGH(cb_kernel_launch, heap_bytes);
    return has && launch->heap_bytes ? launch->heap_bytes : CB_DEFAULT_HEAP_BYTES;
}

/* A launch's kernel_params, or NULL when the caller's struct predates ABI 1.7 or did not set it. */
static inline void* const* cb_launch_kernel_params(const cb_kernel_launch* launch) {
    /* NOLINTNEXTLINE(modernize-use-nullptr): a C header, and C has no nullptr */
    return launch->struct_size >= CB_SIZE_THROUGH(cb_kernel_launch, kernel_params) ? launch->kernel_params : NULL;
}

typedef int32_t cb_module_format;
enum {
    CB_MODULE_CUDA_SOURCE = 0,
    CB_MODULE_PTX = 1,
    CB_MODULE_CUBIN = 2,
    CB_MODULE_FATBIN = 3,
    /* ABI 1.3: C/C++ functions run by a simulated GPU's compute engine; the image is a
     * cb_host_kernel_module (host_kernels.h) and size is its struct_size. */
    CB_MODULE_HOST_KERNELS = 4
};

typedef int32_t cb_memcpy_kind;
enum { CB_COPY_HOST_TO_DEVICE = 1, CB_COPY_DEVICE_TO_HOST = 2, CB_COPY_DEVICE_TO_DEVICE = 3 };

typedef struct cb_gpu_table {
    uint32_t struct_size;

    /* ABI 1.0: devices */
    /* Does this family drive the endpoint (vendor id, class)? *out_claim is 1 to claim it. */
    cb_status (*claim)(void* instance, const cb_endpoint_info* endpoint, cb_bool* out_claim);
    /* Devices the family can reach without a transport (kernel-driver backends). */
    cb_status (*device_count)(void* instance, uint32_t* out);
    cb_status (*open_device)(void* instance, const cb_gpu_open_params* params, cb_gpu_device** out);
    cb_status (*close_device)(void* instance, cb_gpu_device* device);
    cb_status (*get_properties)(void* instance, cb_gpu_device* device, cb_gpu_properties* out);

    /* ABI 1.0: memory */
    cb_status (*mem_alloc)(void* instance, cb_gpu_device* device, uint64_t size, uint64_t* out_ptr);
    cb_status (*mem_free)(void* instance, cb_gpu_device* device, uint64_t ptr);
    cb_status (*mem_info)(void* instance, cb_gpu_device* device, uint64_t* out_free, uint64_t* out_total);
    /* Copies: host pointers are void*, device addresses uint64. stream NULL = synchronous. */
    cb_status (*memcpy_h2d)(void* instance, cb_gpu_device* device, uint64_t dst, const void* src, size_t size,
                            cb_gpu_stream* stream);
    cb_status (*memcpy_d2h)(void* instance, cb_gpu_device* device, void* dst, uint64_t src, size_t size,
                            cb_gpu_stream* stream);
    cb_status (*memcpy_d2d)(void* instance, cb_gpu_device* device, uint64_t dst, uint64_t src, size_t size,
                            cb_gpu_stream* stream);
    cb_status (*memset8)(void* instance, cb_gpu_device* device, uint64_t dst, uint8_t value, size_t size,
                         cb_gpu_stream* stream);

    /* ABI 1.0: streams and events */
    cb_status (*stream_create)(void* instance, cb_gpu_device* device, cb_gpu_stream** out);
    cb_status (*stream_destroy)(void* instance, cb_gpu_stream* stream);
    cb_status (*stream_synchronize)(void* instance, cb_gpu_stream* stream);
    /* CB_OK when all work is done, CB_ERR_BUSY while some is pending. */
    cb_status (*stream_query)(void* instance, cb_gpu_stream* stream);
    cb_status (*event_create)(void* instance, cb_gpu_device* device, cb_gpu_event** out);
    cb_status (*event_destroy)(void* instance, cb_gpu_event* event);
    cb_status (*event_record)(void* instance, cb_gpu_event* event, cb_gpu_stream* stream);
    cb_status (*event_synchronize)(void* instance, cb_gpu_event* event);
    cb_status (*event_query)(void* instance, cb_gpu_event* event);
    cb_status (*event_elapsed_ms)(void* instance, cb_gpu_event* start, cb_gpu_event* end, float* out_ms);
    cb_status (*device_synchronize)(void* instance, cb_gpu_device* device);

    /* ABI 1.0: kernels */
    cb_status (*launch_builtin)(void* instance, cb_gpu_device* device, const cb_kernel_launch* launch,
                                cb_gpu_stream* stream);
    /* Load user code; on failure the compiler log (if any) goes to log_buf. */
    cb_status (*module_load)(void* instance, cb_gpu_device* device, const void* image, size_t size,
                             cb_module_format format, cb_gpu_module** out, char* log_buf, size_t log_size);
    cb_status (*module_unload)(void* instance, cb_gpu_module* module);
    cb_status (*launch_kernel)(void* instance, cb_gpu_module* module, const cb_kernel_launch* launch,
                               cb_gpu_stream* stream);

    /* ABI 1.0: management */
    cb_status (*get_telemetry)(void* instance, cb_gpu_device* device, cb_gpu_telemetry* out);
    cb_status (*get_settings)(void* instance, cb_gpu_device* device, cb_gpu_settings* out);
    cb_status (*get_setting_limits)(void* instance, cb_gpu_device* device, cb_gpu_setting_limits* out);
    /* Apply the fields named in settings->fields; out of bounds → CB_ERR_INVALID_ARGUMENT,
     * not allowed (needs root) → CB_ERR_PERMISSION. */
    cb_status (*apply_settings)(void* instance, cb_gpu_device* device, const cb_gpu_settings* settings);
    cb_status (*reset)(void* instance, cb_gpu_device* device, cb_reset_kind kind);
    /* A liveness probe that reaches the device; CB_ERR_DEVICE_LOST when it is gone. *out_counter
     * receives a device-side counter that advances while the device runs. */
    cb_status (*heartbeat)(void* instance, cb_gpu_device* device, uint64_t* out_counter);

    /* ABI 1.0: simulation. Optional. */
    /* A model of one PCIe function of this family, built from a profile (JSON), for a simulated
     * fabric to host. */
    cb_status (*create_endpoint_model)(void* instance, const char* profile_json, void** out_model,
                                       const cb_endpoint_model_table** out_table);
    cb_status (*destroy_endpoint_model)(void* instance, void* model);

    /* ABI 1.2 */
    /* Family-specific control, with the contract of cb_transport_table.control: `request` is a
     * JSON object ({"op": "...", ...}); the JSON reply is written like every string getter (at
     * most reply_size bytes with the terminator, *needed receives the full length + 1, and a
     * truncated reply still returns CB_OK); every call carries the request out. Replies may be
     * up to 1 MiB. Read-only ops may be repeated: a caller that finds *needed > reply_size calls
     * again with *needed bytes. Optional; CB_ERR_UNSUPPORTED for an op the family does not know,
     * CB_ERR_INVALID_ARGUMENT for a malformed request. Well-known ops (both read-only):
     *   "profiles"  reply {"profiles": [<profile>, ...]}: every model profile the family knows,
     *               each an object with at least "key", "name", "pci_device_id" (an integer or a
     *               "0x2b85" string) and "sources" (field -> where its figure comes from);
     *   "live"      reply {"devices": [...]}: live telemetry of the simulated devices visible to
     *               this process, without opening them. Optional. */
    cb_status (*control)(void* instance, const char* request, char* reply, size_t reply_size, size_t* needed);

    /* ABI 1.3 */
    /* Pin host memory for the device: [ptr, ptr + size) stays mapped for DMA until unregistered,
     * so copies from or to it need no per-copy mapping or staging and, on a stream, return as
     * soon as they are queued (the caller keeps the memory unchanged, or unread, until the
     * stream passes the copy, as with CUDA's pinned memory). Ranges may not overlap a registered
     * one (CB_ERR_INVALID_ARGUMENT); CB_ERR_DMA_LIMIT when the IOMMU cannot hold the range.
     * Optional: without them the host copies through pageable memory. */
    cb_status (*host_register)(void* instance, cb_gpu_device* device, void* ptr, size_t size);
    cb_status (*host_unregister)(void* instance, cb_gpu_device* device, void* ptr);
    /* Work queued on `stream` (NULL: the default stream) after this call starts only once the
     * work before `event`'s last record has completed. An event never recorded: no wait. */
    cb_status (*stream_wait_event)(void* instance, cb_gpu_stream* stream, cb_gpu_event* event);

    /* ABI 1.8 */
    /* A module-scope variable of a loaded module (a CUDA __device__ or __constant__ variable; a
     * PTX .global or .const one) by its symbol name: its device address and size in bytes, as
     * cuModuleGetGlobal gives them. Copies to and from that address reach what the module's
     * kernels read (cudaMemcpyToSymbol). CB_ERR_NOT_FOUND when the module defines no such name.
     * Optional. */
    cb_status (*module_global)(void* instance, cb_gpu_module* module, const char* name, uint64_t* out_address,
                               uint64_t* out_bytes);

    /* ABI 1.9 */
    /* The processes attached to the device, this one included, as nvidia-smi's process table
     * lists them: up to `capacity` records, stepping by out[0].struct_size; *out_count receives
     * how many there are (call with capacity 0 to size). Device memory sums over them to the
     * device's memory in use. Optional. */
    cb_status (*processes)(void* instance, cb_gpu_device* device, cb_gpu_process* out, size_t capacity,
                           size_t* out_count);
    /* Memory that host code and kernels reach at one address (cudaMallocManaged). *out_ptr is both
     * a host pointer and a device address; mem_free releases it. A simulated GPU backs it with
     * host memory its kernels reach over the link; a kernel-driver backend asks the driver for
     * managed memory. Optional; CB_ERR_UNSUPPORTED where kernels cannot reach host memory. */
    cb_status (*mem_alloc_managed)(void* instance, cb_gpu_device* device, uint64_t size, uint64_t* out_ptr);
    /* The device address kernels use for host memory registered with host_register
     * (cuMemHostGetDevicePointer): zero-copy access from kernels. CB_ERR_NOT_FOUND when `ptr` is
     * not in a registered range. Optional; CB_ERR_UNSUPPORTED where kernels cannot reach it. */
    cb_status (*host_device_address)(void* instance, cb_gpu_device* device, const void* ptr, uint64_t* out_address);

    /* ABI 1.10 */
    /* The time the GPU has spent running the kernels this process launched on `device` since it
     * opened it, in nanoseconds, completed kernels only: a simulated GPU's modeled time (its
     * PTIMER), or what a family measures. One read replaces a pair of timing events around every
     * launch (cudabridge-cli run's summary). Optional; CB_ERR_UNSUPPORTED where the family cannot
     * tell. */
    cb_status (*kernel_time)(void* instance, cb_gpu_device* device, uint64_t* out_ns);

    /* ABI 1.11 */
    /* The host address at which the CPU reads and writes device memory [ptr, ptr + size): the
     * range seen through the GPU's BAR1 VRAM aperture (a large, resizable BAR shows all of VRAM;
     * a 256 MiB one only its start), as GPUDirect's BAR1 mappings give it. The range must lie in
     * one allocation. Accesses are not ordered with the GPU's work: synchronize first. The
     * address stays valid while the allocation lives. Optional; CB_ERR_UNSUPPORTED where the
     * range is not host-visible. */
    cb_status (*mem_host_address)(void* instance, cb_gpu_device* device, uint64_t ptr, uint64_t size, void** out_host);

    /* ABI 1.13 */
    /* A counter that advances whenever the device moves this process's queued work forward: a
     * command retired, a kernel block reached. It never goes backwards (resets included); only
     * changes mean anything. The watchdog calls a device hung when work is pending and this has
     * not moved for the policy's timeout, and a blocking wait times out the same way, so a long
     * queue or a long kernel that keeps moving is never taken for a hang. Must not block.
     * Optional; CB_ERR_UNSUPPORTED where the family cannot tell. */
    cb_status (*progress)(void* instance, cb_gpu_device* device, uint64_t* out_count);

    /* ABI 1.14 */
    /* Where parameter `index` of kernel `name` of a loaded module lies in its parameter buffer,
     * and its size in bytes, as cuFuncGetParamInfo gives them: what a caller needs to copy a
     * launch's arguments (cb_kernel_launch.kernel_params: one pointer per parameter) and replay
     * them later (CUDA graphs). CB_ERR_NOT_FOUND when the module has no such kernel,
     * CB_ERR_INVALID_ARGUMENT when index is past its last parameter. Optional. */
    cb_status (*kernel_param_info)(void* instance, cb_gpu_module* module, const char* name, uint32_t index,
                                   uint64_t* out_offset, uint64_t* out_size);

    /* ABI 1.16 */
    /* How long the kernel the device is running for this process has been running, in
     * milliseconds of the host's clock: 0 when none runs. The watchdog stops a kernel past the
     * policy's time limit (a display GPU's watchdog; off by default, as on compute GPUs). Must not
     * block. Optional; CB_ERR_UNSUPPORTED where the family cannot tell. */
    cb_status (*kernel_running)(void* instance, cb_gpu_device* device, uint64_t* out_ms);

    /* ABI 1.17 */
    /* Device memory another process reaches (cudaIpcGetMemHandle): fills `out_handle`, an opaque
     * record of CB_GPU_SHARE_HANDLE_SIZE bytes, naming the allocation that holds `ptr` and where
     * `ptr` lies in it. The memory stays shared until mem_free; asking again gives the same
     * handle. Optional; CB_ERR_UNSUPPORTED where the family cannot share memory. */
    cb_status (*mem_share)(void* instance, cb_gpu_device* device, uint64_t ptr, void* out_handle);
    /* Maps memory another process shared with mem_share into this process's device address
     * space: *out_ptr is the address of the shared `ptr`, *out_bytes how many bytes from there
     * to the end of its allocation. Opening the same handle again gives
     * the same address and counts one more opening; mem_free on it undoes one. CB_ERR_NOT_FOUND
     * when the sharing process has freed the memory or exited; CB_ERR_INVALID_ARGUMENT for a
     * handle that is no such record or that this process made. Optional. */
    cb_status (*mem_open_shared)(void* instance, cb_gpu_device* device, const void* handle, uint64_t* out_ptr,
                                 uint64_t* out_bytes);
} cb_gpu_table;
/* The size of mem_share's handle: CUDA's cudaIpcMemHandle_t. */
#define CB_GPU_SHARE_HANDLE_SIZE 64
/* ABI 1.0 size, frozen: the smallest struct_size a reader accepts. */
#define CB_GPU_TABLE_SIZE_1_0 CB_SIZE_THROUGH(cb_gpu_table, destroy_endpoint_model)

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_GPU_H */
