// GPU model profiles: one row per model, keyed by PCI device id, with the whole profile as JSON.
#include "store_internal.hpp"

namespace cudabridge::core {

namespace {
// A macro so string-literal concatenation keeps each statement one constant SQL text.
#define CB_SELECT_GPU_PROFILE "SELECT pci_device_id, key, name, data, source FROM gpu_profiles"

gpu_profile_row gpu_profile_from(const statement& st) {
    gpu_profile_row r;
    store_detail::read_columns(st, r.pci_device_id, r.key, r.name, r.data, r.source);
    return r;
}

// 0x0000 and 0xffff are what a missing or dead PCI function reads as, never a model's id.
void check_id(const store& s, int pci_device_id) {
    if (pci_device_id < 0x0001 || pci_device_id > 0xfffe)
        throw error(CB_ERR_INVALID_ARGUMENT, "store " + s.path().string() + ": GPU profile PCI device id " +
                                                 std::to_string(pci_device_id) + " is outside 0x0001..0xfffe");
}
}  // namespace

void put_gpu_profiles(store& s, const std::vector<gpu_profile_row>& rows) {
    for (const auto& row : rows) check_id(s, row.pci_device_id);
    s.write([&] {
        for (const auto& row : rows) {
            statement st = s.prepare(
                "INSERT INTO gpu_profiles(pci_device_id, key, name, data, source) VALUES(?1, ?2, ?3, ?4, ?5) "
                "ON CONFLICT(pci_device_id) DO UPDATE SET key = excluded.key, name = excluded.name, "
                "data = excluded.data, source = excluded.source");
            store_detail::bind_values(st, row.pci_device_id, row.key, row.name, row.data, row.source);
            st.run();
        }
    });
}

std::vector<gpu_profile_row> list_gpu_profiles(store& s) {
    return store_detail::all_rows(s.prepare(CB_SELECT_GPU_PROFILE " ORDER BY pci_device_id"), gpu_profile_from);
}

std::optional<gpu_profile_row> find_gpu_profile(store& s, int pci_device_id) {
    return store_detail::find_row(s, CB_SELECT_GPU_PROFILE " WHERE pci_device_id = ?1", pci_device_id,
                                  gpu_profile_from);
}

// Keys are unique within a family; should two rows share one, the lowest id answers.
std::optional<gpu_profile_row> find_gpu_profile_by_key(store& s, std::string_view key) {
    if (key.empty()) return std::nullopt;  // rows migrated from schema v2 have key ''
    return store_detail::find_row(s, CB_SELECT_GPU_PROFILE " WHERE key = ?1 ORDER BY pci_device_id LIMIT 1", key,
                                  gpu_profile_from);
}

#undef CB_SELECT_GPU_PROFILE

}  // namespace cudabridge::core
