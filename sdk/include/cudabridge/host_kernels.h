/* User kernels for simulated GPUs: plain C or C++ functions, loaded as a module of format
 * CB_MODULE_HOST_KERNELS and launched like any user kernel (cb_gpu_table.launch_kernel, or
 * cbModuleLoadData + cbModuleLaunchKernel in the runtime). A simulated GPU has no instruction
 * set to run PTX or CUBIN on; its compute engine calls these functions instead, once per block
 * of the launch grid, on its own threads, in the order the stream queued them.
 *
 * A kernel sees its device-pointer arguments as host addresses into the simulated VRAM, each
 * with the bytes from that address to the end of its allocation: staying inside them is the
 * kernel's job, as it is on a real GPU. Blocks of one launch may run concurrently: a kernel that
 * writes the same bytes from two blocks races, as on a real GPU. A kernel returns CB_OK, or a
 * status that fails the launch (reported by the stream's next synchronize, and sticky for the
 * runtime, as a faulting CUDA kernel is).
 *
 * Real GPUs refuse this format (CB_ERR_UNSUPPORTED); load PTX, CUBIN or CUDA source there.
 */
#ifndef CUDABRIDGE_HOST_KERNELS_H
#define CUDABRIDGE_HOST_KERNELS_H

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where one device-pointer argument lands in the simulated VRAM. */
typedef struct cb_host_kernel_buffer {
    void* data;    /* NULL for arguments that are not device pointers */
    uint64_t size; /* bytes from data to the end of its allocation */
} cb_host_kernel_buffer;

/* One call: one block of the grid. */
typedef struct cb_host_kernel_call {
    uint32_t struct_size;
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t block_index[3];
    const cb_kernel_arg* args;            /* as launched */
    const cb_host_kernel_buffer* buffers; /* one per argument */
    size_t arg_count;
} cb_host_kernel_call;

typedef cb_status (*cb_host_kernel_fn)(const cb_host_kernel_call* call);

typedef struct cb_host_kernel {
    const char* name; /* the symbol launches name */
    cb_host_kernel_fn fn;
} cb_host_kernel;

/* The module image: the table must outlive the loaded module. */
typedef struct cb_host_kernel_module {
    uint32_t struct_size;
    uint32_t reserved0;
    const cb_host_kernel* kernels;
    size_t kernel_count;
} cb_host_kernel_module;

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_HOST_KERNELS_H */
