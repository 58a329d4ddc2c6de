// nvidia-smi's -i / --id: which GPUs a query reads, named by index, UUID or PCI bus id.
#pragma once

#include <string>
#include <vector>

namespace cudabridge::cli::query {

struct device_identity {
    int index = 0;
    std::string uuid;    // "GPU-xxxxxxxx-..."
    std::string bus_id;  // "00000000:12:00.0"
};

// The devices a comma-separated list of ids names, in the list's order, each once. An id is an
// index ("0"), a UUID (with or without "GPU-", any case) or a PCI bus id with or without its
// domain ("12:00.0", "0000:12:00.0", "00000000:12:00.0", hex digits in any case). `unknown`
// receives the first id that names none of `devices` (the result is then empty).
std::vector<int> pick_devices(const std::string& list, const std::vector<device_identity>& devices,
                              std::string& unknown);

}  // namespace cudabridge::cli::query
