// NVRTC options that name a real architecture (sm_NN: machine code) rewritten to the matching
// virtual one (compute_NN: PTX), which a simulated GPU runs. Pure text work.
#pragma once

#include <string>
#include <vector>

namespace cudabridge::nvrtc {

struct rewritten_options {
    std::vector<std::string> options;  // as given, each sm_NN replaced by compute_NN
    bool asked_for_machine_code = false;
};

// Handles --gpu-architecture=sm_NN, -arch=sm_NN, and both followed by the value as the next
// option; an "a" or "f" suffix (sm_90a, sm_100f) keeps its compute_ form (compute_90a).
rewritten_options to_virtual_architecture(const std::vector<std::string>& options);

}  // namespace cudabridge::nvrtc
