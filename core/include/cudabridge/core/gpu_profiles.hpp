// The store's GPU model profiles beyond the rows themselves (store.hpp): the overrides a user
// sets over a profile's fields. What fills the rows is the host's business
// (cudabridge/host/gpu_profile_seed.hpp): the store knows no plugin kind.
#pragma once

#include <cudabridge/core/store.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::core {

// ---- user overrides -------------------------------------------------------------------------
// A field of a profile a user changed (`cudabridge-cli profile set MODEL KEY VALUE`) is a setting
// in scope "profile:<key>" whose value is the field's JSON text ("350", "true", "\"GDDR7\""), so
// each change is in the settings history with its old and new value. Seeding never touches them.
std::string gpu_profile_scope(std::string_view key);
std::vector<setting_row> gpu_profile_overrides(store& s, std::string_view key);
// The profile JSON with the overrides set over its fields. Throws core::error
// (CB_ERR_INVALID_ARGUMENT) when the profile or an override is not JSON.
std::string apply_gpu_profile_overrides(const std::string& profile_json, const std::vector<setting_row>& overrides);
// The stored profile with its overrides applied (what a connection uses).
std::optional<gpu_profile_row> find_effective_gpu_profile(store& s, int pci_device_id);
std::optional<gpu_profile_row> find_effective_gpu_profile_by_key(store& s, std::string_view key);

}  // namespace cudabridge::core
