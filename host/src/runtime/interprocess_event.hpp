// Events other processes wait on (cudaIpcGetEventHandle, cudaEventInterprocess). Each process has
// its own device queue, so such an event is also a page of shared memory (a memfd another process
// of the same user reopens through /proc/<pid>/fd) that says which record is the latest, by whom,
// and which records' work is done. Recording takes a ticket; the recording process marks the
// ticket done once the device passes the record. A wait in any process waits for the ticket that
// was latest when it was called, as a CUDA event waits for its latest record.
#pragma once

#include <cudabridge.h>

#include <cstdint>
#include <memory>
#include <string>

namespace cudabridge::host {

class interprocess_event {
public:
    // A new event page (nothing recorded yet). Null, with `error`, when none can be made.
    static std::shared_ptr<interprocess_event> create(std::string& error);
    // The page another process's handle names. Null, with `error` and `e` (cbErrorInvalidValue:
    // no such handle; cbErrorInvalidResourceHandle: its event is gone).
    static std::shared_ptr<interprocess_event> open(const cbIpcEventHandle_t& handle, std::string& error, cbError_t& e);
    ~interprocess_event();
    interprocess_event(const interprocess_event&) = delete;
    interprocess_event& operator=(const interprocess_event&) = delete;

    cbIpcEventHandle_t handle() const;
    // A record by this process: its ticket, to be marked done when the device passes it.
    uint64_t take_ticket();
    void mark_done(uint64_t ticket);
    // The latest record's ticket (0: never recorded) and whether this process made it.
    uint64_t latest() const;
    bool recorded_here(uint64_t ticket) const;
    bool done(uint64_t ticket) const;
    // Blocks until `ticket` is done. cbErrorLaunchFailure, with `error`, when the process that
    // recorded it exited first.
    cbError_t wait(uint64_t ticket, std::string& error) const;

private:
    struct page;
    interprocess_event(page* p, int fd, const cbIpcEventHandle_t& origin);
    page* page_;
    int fd_;
    cbIpcEventHandle_t origin_;  // the handle of the process that made the page (its descriptor)
};

}  // namespace cudabridge::host
