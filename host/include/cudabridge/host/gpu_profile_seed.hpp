// Seeding the store's GPU model profiles from a GPU family: the family's ABI 1.2 `control`
// answers {"op":"profiles"} with every profile it knows, and the session keeps each one whole
// (JSON, with its sources) under its PCI device id, so the CLI and later sessions can show and
// match models without loading the family. See sdk/docs/kinds/gpu.md, "Control (ABI 1.2)".
// This is the host's knowledge of the GPU kind; the store (core) only keeps the rows.
#pragma once

#include <cudabridge/core/gpu_profiles.hpp>
#include <cudabridge/gpu.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::host {

// The largest "profiles" reply accepted, terminator included (the limit gpu.h documents).
inline constexpr size_t max_gpu_control_reply = size_t{1} << 20;

// Parses a "profiles" reply ({"profiles": [<profile>, ...]}) into rows with `source`. Each
// profile needs "pci_device_id" (an integer or a "0x2b85" string, 0x0001..0xfffe), "key" and
// "name" (non-empty strings); "sources", when present, must be an object. `data` is the profile
// object re-serialised, field order kept. Throws core::error(CB_ERR_INVALID_ARGUMENT) naming the
// profile (by position) and the field at fault; ids repeated within one reply are refused too.
std::vector<core::gpu_profile_row> parse_gpu_profiles_reply(std::string_view reply, const std::string& source);

// Asks the family for its profiles and upserts them into the store in one transaction, with
// source "plugin <family_name>". Returns how many were stored: 0 when the family has no
// `control` (an ABI 1.0 or 1.1 family; CB_HAS_FIELD is false) or answers CB_ERR_UNSUPPORTED.
// A reply larger than the first buffer is asked for again with the size the family reported.
// Throws core::error: with the family's status and last-error message when the call fails, and
// with CB_ERR_INVALID_ARGUMENT when the reply is malformed or larger than
// max_gpu_control_reply. Nothing is stored when it throws.
size_t seed_gpu_profiles(core::store& s, const cb_gpu_table* table, void* instance, const std::string& family_name);

}  // namespace cudabridge::host
