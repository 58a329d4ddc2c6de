// The CPU engine's workers: a small fixed pool that splits one call's index range into chunks.
// Small ranges run inline on the caller (thread start-up would cost more than the work).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cudabridge::nv::kernels {

class engine {
public:
    // threads == 0: std::thread::hardware_concurrency().
    explicit engine(unsigned threads = 0);
    ~engine();
    engine(const engine&) = delete;
    engine& operator=(const engine&) = delete;

    unsigned threads() const { return threads_; }

    // Calls fn(begin, end) over [0, n) in chunks of at least `grain` items, on up to threads()
    // threads (the caller is one of them). Returns when every chunk is done. Calls from several
    // threads at once are serialised.
    void parallel_for(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& fn);

private:
    void worker_loop();
    void run_chunks();

    unsigned threads_;
    std::vector<std::thread> workers_;
    std::mutex call_mutex_;  // one parallel_for at a time

    std::mutex m_;
    std::condition_variable wake_;
    std::condition_variable done_cv_;
    std::uint64_t generation_ = 0;
    bool stop_ = false;
    int active_ = 0;  // workers inside run_chunks for the current generation

    // The current job.
    const std::function<void(std::int64_t, std::int64_t)>* fn_ = nullptr;
    std::int64_t n_ = 0;
    std::int64_t chunk_ = 0;
    std::int64_t chunks_ = 0;
    std::atomic<std::int64_t> next_{0};
    std::atomic<std::int64_t> done_{0};
};

// The process-wide default engine (all cores), for callers that do not manage their own.
engine& default_engine();

}  // namespace cudabridge::nv::kernels
