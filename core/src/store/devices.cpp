// Known devices: every USB4/Thunderbolt device ever seen, with its connect policy and its
// secure-connect key, in the spirit of boltctl's device database.
#include "store_internal.hpp"

#include <algorithm>
#include <array>

namespace cudabridge::core {

using store_detail::or_null;

namespace {
// A macro so string-literal concatenation keeps each statement one constant SQL text.
#define CB_SELECT_DEVICE "SELECT unique_id, name, vendor, first_seen_ns, last_seen_ns, policy, key, data FROM devices"

constexpr size_t device_key_bytes = 32;
constexpr std::array<std::string_view, 2> device_policies{"auto", "manual"};

known_device_row device_from(const statement& st) {
    known_device_row r;
    store_detail::read_columns(st, r.unique_id, r.name, r.vendor, r.first_seen_ns, r.last_seen_ns, r.policy, r.key,
                               r.data_json);
    return r;
}

std::string where(const store& s, std::string_view unique_id) {
    return "store " + s.path().string() + ": device '" + std::string(unique_id) + "'";
}

// How many rows the last statement on this connection changed.
bool changed_rows(store& s) { return sqlite3_changes64(s.handle()) > 0; }
}  // namespace

known_device_row remember_device(store& s, std::string_view unique_id, std::string_view name, std::string_view vendor,
                                 std::string_view data_json) {
    if (unique_id.empty())
        throw error(CB_ERR_INVALID_ARGUMENT, "store " + s.path().string() + ": a device needs a unique_id");
    known_device_row row;
    s.write([&] {
        statement st = s.prepare(
            "INSERT INTO devices(unique_id, name, vendor, first_seen_ns, last_seen_ns, data) "
            "VALUES(?1, ?2, ?3, ?4, ?4, ?5) "
            "ON CONFLICT(unique_id) DO UPDATE SET name = excluded.name, vendor = excluded.vendor, "
            "last_seen_ns = excluded.last_seen_ns, data = COALESCE(excluded.data, devices.data)");
        store_detail::bind_values(st, unique_id, name, vendor, store_detail::now_ns(), or_null{data_json}).run();
        row = *find_known_device(s, unique_id);
    });
    return row;
}

std::optional<known_device_row> find_known_device(store& s, std::string_view unique_id) {
    return store_detail::find_row(s, CB_SELECT_DEVICE " WHERE unique_id = ?1", unique_id, device_from);
}

std::vector<known_device_row> list_known_devices(store& s) {
    return store_detail::all_rows(s.prepare(CB_SELECT_DEVICE " ORDER BY first_seen_ns, unique_id"), device_from);
}

bool forget_device(store& s, std::string_view unique_id) {
    bool forgotten = false;
    s.write([&] {
        s.prepare("DELETE FROM devices WHERE unique_id = ?1").bind(1, unique_id).run();
        forgotten = changed_rows(s);
    });
    return forgotten;
}

void set_device_policy(store& s, std::string_view unique_id, std::string_view policy) {
    if (std::find(device_policies.begin(), device_policies.end(), policy) == device_policies.end())
        throw error(CB_ERR_INVALID_ARGUMENT,
                    where(s, unique_id) + ": unknown policy '" + std::string(policy) + "' (expected auto or manual)");
    s.write([&] {
        s.prepare("UPDATE devices SET policy = ?2 WHERE unique_id = ?1").bind(1, unique_id).bind(2, policy).run();
        if (!changed_rows(s)) throw error(CB_ERR_INVALID_ARGUMENT, where(s, unique_id) + " is not known");
    });
}

void set_device_key(store& s, std::string_view unique_id, const std::vector<uint8_t>& key) {
    if (!key.empty() && key.size() != device_key_bytes)
        throw error(CB_ERR_INVALID_ARGUMENT, where(s, unique_id) + ": a key is " + std::to_string(device_key_bytes) +
                                                 " bytes, not " + std::to_string(key.size()));
    s.write([&] {
        statement st = s.prepare("UPDATE devices SET key = ?2 WHERE unique_id = ?1");
        st.bind(1, unique_id);
        if (key.empty())
            st.bind_null(2);
        else
            st.bind_blob(2, key.data(), key.size());
        st.run();
        if (!changed_rows(s)) throw error(CB_ERR_NOT_FOUND, where(s, unique_id) + " is not known");
    });
}

#undef CB_SELECT_DEVICE

}  // namespace cudabridge::core
