// How a CUDA device is named and matched: nvidia-smi's UUID text, the architecture of a compute
// capability, and the NVML index of a CUDA ordinal (the two number GPUs differently: CUDA puts
// the fastest first, NVML follows PCI order, and CUDA_VISIBLE_DEVICES renumbers only CUDA).
#pragma once

#include <string>

#include "nvidia_driver/cuda_driver/cuda_driver.hpp"
#include "nvidia_driver/cuda_driver/nvml_library.hpp"

namespace cudabridge::nv {

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L prints it.
std::string format_gpu_uuid(const cu::CUuuid& uuid);

// "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell", ...; "unknown" for others.
const char* architecture_name(int cc_major, int cc_minor);

// NVML's index of CUDA device `device`, matched by UUID, else by PCI domain/bus/device; -1 when
// NVML is unavailable or does not list it (`why` says which).
int nvml_index_of(const cuda_driver& driver, const nvml_library& nvml, cu::CUdevice device, std::string& why);

}  // namespace cudabridge::nv
