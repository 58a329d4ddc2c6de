// The device heap: what malloc, free and C++'s new and delete in a kernel allocate from. CUDA
// gives each context one heap of cudaLimitMallocHeapSize bytes (8 MiB by default), sized when the
// first kernel that needs it launches; the userspace driver places it in VRAM then and names it
// in every launch (launch_request::heap_address), so allocations outlive the kernel that made
// them, as on a GPU, until the program frees them or resets the device.
//
// The heap's own bookkeeping lives in the heap's first bytes (a header with a lock word, then a
// 16-byte header before each block), so that it persists between launches with the memory
// itself; blocks of a grid run concurrently, and the lock serializes them. Every step checks the
// headers it reads against the heap's bounds: a kernel that scribbles over them gets NULL from
// malloc, never a host crash. Blocks are 16-byte aligned (CUDA's malloc alignment).
#pragma once

#include <cstdint>
#include <string>

namespace cudabridge::nv::ptx {

enum class heap_call { none, allocate, release };

// malloc, operator new and new[] allocate; free, operator delete and delete[] (sized or not)
// release. nvcc declares them `.extern .func`.
heap_call heap_function(const std::string& name);

// `bytes` from the heap at `host` (`size` bytes, at device address `base`): the device address of
// the block, or 0 when none is free (or the request is 0 bytes), as malloc returns NULL.
uint64_t heap_allocate(uint8_t* host, uint64_t base, uint64_t size, uint64_t bytes);

// Frees the block at device address `address` (0: nothing to do). False when it is not a block
// heap_allocate returned and that is still allocated.
bool heap_release(uint8_t* host, uint64_t base, uint64_t size, uint64_t address);

}  // namespace cudabridge::nv::ptx
