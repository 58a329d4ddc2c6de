#include "common/kernels/engine.hpp"

#include <algorithm>

namespace cudabridge::nv::kernels {

namespace {

// The typed loops are SSE code. A thread that last ran AVX-512 code without VZEROUPPER (the
// ISA-L CRC routines of a simulated link do) leaves the upper vector state dirty, and every
// legacy-SSE instruction then carries a false dependency on it: measured 2.8x slower max
// reductions on the simulated GPU's command thread. Clearing the state first costs nothing.
inline void clear_upper_vector_state() {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx")) __asm__ volatile("vzeroupper" ::: "memory");
#endif
}

}  // namespace

engine::engine(unsigned threads) {
    threads_ = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
}

engine::~engine() {
    {
        std::lock_guard lk(m_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void engine::run_chunks() {
    clear_upper_vector_state();
    for (;;) {
        std::int64_t c = next_.fetch_add(1, std::memory_order_relaxed);
        if (c >= chunks_) return;
        std::int64_t b = c * chunk_;
        (*fn_)(b, std::min(n_, b + chunk_));
        if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks_) {
            std::lock_guard lk(m_);
            done_cv_.notify_all();
        }
    }
}

void engine::worker_loop() {
    std::uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock lk(m_);
            wake_.wait(lk, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            ++active_;
        }
        run_chunks();
        std::lock_guard lk(m_);
        if (--active_ == 0) done_cv_.notify_all();
    }
}

void engine::parallel_for(std::int64_t n, std::int64_t grain,
                          const std::function<void(std::int64_t, std::int64_t)>& fn) {
    if (n <= 0) return;
    clear_upper_vector_state();
    grain = std::max<std::int64_t>(grain, 1);
    if (threads_ == 1 || n <= grain) {
        fn(0, n);
        return;
    }
    std::lock_guard call(call_mutex_);
    std::int64_t parts = std::min<std::int64_t>((n + grain - 1) / grain, threads_);
    {
        std::lock_guard lk(m_);
        fn_ = &fn;
        n_ = n;
        chunk_ = (n + parts - 1) / parts;
        chunks_ = (n + chunk_ - 1) / chunk_;
        next_.store(0);
        done_.store(0);
        ++generation_;
    }
    wake_.notify_all();
    run_chunks();
    std::unique_lock lk(m_);
    // Also wait for every woken worker to leave run_chunks, so none can see the next job half-set.
    done_cv_.wait(lk, [&] { return done_.load() == chunks_ && active_ == 0; });
}

engine& default_engine() {
    static engine e;
    return e;
}

}  // namespace cudabridge::nv::kernels
