// One small memory-mapped file per eGPU, shared by every process on the machine, saying whether
// the device is connected, under which connection epoch, and whether a safety policy stopped it
// (an emergency stop holds new work in every process until a resume or a reset) or marked it
// failed (every process refuses work until a manual reset). A process that attached under
// epoch N finds, on its next runtime call, that another process disconnected (the state says
// so, or the epoch moved on) and answers device-lost, as a CUDA application sees a GPU that
// fell off the bus. One atomic load per check: cheap enough for every call.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

namespace cudabridge::host {

enum class shared_link_state : uint32_t { disconnected = 0, connected = 1, failed = 2 };

class shared_connection_state {
public:
    // Opens (creating it and its folder as needed) <folder>/<device id>.v2.conn. Throws core::error
    // when the file cannot be made or is not ours.
    shared_connection_state(const std::filesystem::path& folder, const std::string& device_id);
    ~shared_connection_state();
    shared_connection_state(const shared_connection_state&) = delete;
    shared_connection_state& operator=(const shared_connection_state&) = delete;

    shared_link_state state() const noexcept;
    uint64_t epoch() const noexcept;
    int64_t session_id() const noexcept;

    // A new connection: a fresh epoch, state connected. Returns the epoch.
    uint64_t publish_connected(int64_t session_id) noexcept;
    // The connection is over (or failed): state set, epoch moved on so attached processes notice.
    void publish_ended(shared_link_state state) noexcept;
    // True while the connection this process attached under (epoch) is still the live one.
    bool still_connected(uint64_t epoch) const noexcept;
    // An emergency stop, set by the process whose policy stopped the device, cleared by a resume
    // or a manual reset in any process, and by a new connection.
    void publish_emergency_stop(bool stopped) noexcept;
    bool emergency_stopped() const noexcept;
    // The policy of some process marked the device failed; a manual reset in any process, or a
    // new connection, clears it.
    void publish_failed(bool failed) noexcept;
    bool marked_failed() const noexcept;
    // A process reset the device (hard reset, reconnect): every attached process's context goes
    // with it. Returns the new count.
    uint64_t publish_reset() noexcept;
    uint64_t resets() const noexcept;
    // A process reset the device's engines (a soft reset): the work every process had queued is
    // abandoned, memory stays. Returns the new count.
    uint64_t publish_engine_reset() noexcept;
    uint64_t engine_resets() const noexcept;

    const std::filesystem::path& path() const noexcept { return path_; }

private:
    struct layout;
    std::filesystem::path path_;
    layout* map_ = nullptr;
};

// The folder for these files: "connections" beside the database.
std::filesystem::path connection_state_folder(const std::filesystem::path& database);

}  // namespace cudabridge::host
