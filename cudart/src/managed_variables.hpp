// __managed__ variables. nvcc declares one in the PTX as `.global .attribute(.managed)`, with its
// initializer, and turns the host side into a pointer (`static int* counter`) that host code
// dereferences on every access; the registration hands the runtime that pointer's address
// (__cudaRegisterManagedVar), and the first host access in a translation unit calls
// __cudaInitModule, which must leave the pointer at memory that holds the variable.
//
// The GPU family has no way to place a module variable at a given address, so each variable has
// two copies: the module's own (what kernels that name it reach, in device memory) and host
// memory (managed memory where the family gives it) that the host pointer points at. They are
// made to agree at the points where CUDA lets the host look (concurrentManagedAccess 0): before a
// launch of one of the module's kernels, the device copy gets the bytes the host changed; after a
// synchronizing call, the host copy gets the bytes kernels changed, or, if the host changed it
// since, the device copy gets the host's.
#pragma once

#include "registration.hpp"

#include <cstddef>

namespace cudabridge::cudart {

// __cudaRegisterManagedVar: remembered; nothing reaches the device yet.
void add_managed_variable(fatbin_record* f, void** host_pointer, const char* device_name, size_t size);
// __cudaUnregisterFatBinary (at exit): forgets them; their memory stays, as the modules do.
void forget_managed_variables(fatbin_record* f);

// __cudaInitModule: loads `f` on the current device and gives each of its managed variables its
// host memory, holding the variable's value (its initializer, or what kernels left there).
cudaError_t bind_managed_variables(fatbin_record& f);

// Before a kernel of `f` is launched from `module`: the device copies get what the host wrote.
cudaError_t managed_variables_before_launch(fatbin_record& f, cbModule_t module);

// A synchronizing call succeeded (`whole_device`: every stream of the current device is done):
// each bound variable's two copies agree again.
cudaError_t managed_variables_synchronized(bool whole_device);

// A blocking copy is about to read or write [dst, dst + count) or [src, src + count): when either
// overlaps a managed variable's host memory, the work before it is waited for and the host copies
// brought up to date first, so the copy sees what kernels wrote.
cudaError_t managed_variables_before_blocking_copy(const void* dst, const void* src, size_t count);

// A managed variable's host memory by the address host code uses for it (&counter, which is
// what cudaMemcpyToSymbol and cudaGetSymbolAddress receive): false when `symbol` is none.
bool managed_variable_at(const void* symbol, void** address, size_t* size);

// cudaDeviceReset freed the device's modules and managed memory: the variables bound there get
// new memory, at their initial values, as a fresh context would give them.
void rebind_managed_variables_after_reset(int device);

}  // namespace cudabridge::cudart
