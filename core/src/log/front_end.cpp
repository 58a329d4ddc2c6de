// The asynchronous log front end.
//
// Queue design. Producers append to one "pending" batch under a mutex: a fixed-size entry
// (time, thread, level, category, offsets) in a vector plus the message text in a byte arena
// next to it. Both keep their capacity, so once warm a log() call allocates nothing. The
// logging thread swaps the whole pending batch with its own empty one (O(1) under the lock) and
// delivers from it with the lock released, then clears it and swaps it back next time. The
// capacity bounds the records waiting in the pending batch; the thread may hold one more batch
// that it is delivering.
//
// Wake-ups. A futex wake per record would cost the caller microseconds, so producers only wake
// the thread when it is asleep for good (idle), when the pending batch reaches a threshold, for
// records of level ERROR and above, and for flush()/shutdown(). After activity the thread naps in
// short timed waits and picks up whatever arrived; after a run of empty naps it sleeps until
// woken. A record of level below ERROR is therefore delivered at most one nap (2 ms) late.
//
// Sinks and callbacks. The lists are an immutable snapshot (shared_ptr) replaced on change. The
// thread takes the snapshot for each chunk of up to max_batch records while holding the delivery
// mutex; remove_sink/remove_callback replace the snapshot and then take the delivery mutex once,
// so when they return the removed entry is not in use and never will be again.
#include <cudabridge/core/error.hpp>
#include <cudabridge/core/log.hpp>

#include "log_internal.hpp"
#include "record_batch.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace cudabridge::core::log {

using detail::batch;
using detail::entry;

namespace {

constexpr size_t max_message_bytes = size_t{1} << 20;  // longer messages are truncated
constexpr size_t max_device_bytes = 256;
constexpr auto nap_interval = std::chrono::milliseconds(2);
constexpr int naps_before_sleep = 25;  // ~50 ms of quiet, then sleep until woken

int64_t wall_clock_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

uint64_t os_thread_id() noexcept {
    thread_local const uint64_t id = static_cast<uint64_t>(::syscall(SYS_gettid));
    return id;
}

// Ids that are not registered (or out of range) are treated as GENERAL.
int effective_category(int id) noexcept {
    return static_cast<unsigned>(id) < static_cast<unsigned>(detail::registered_category_count()) ? id : 0;
}

// Cut at most `limit` bytes without splitting a UTF-8 sequence.
size_t clamp_utf8(std::string_view s, size_t limit) noexcept {
    if (s.size() <= limit) return s.size();
    size_t n = limit;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return n;
}

struct sink_slot {
    std::string name;
    const cb_logsink_table* table = nullptr;
    void* instance = nullptr;
    bool has_write = false;
    bool has_batch = false;
    bool has_flush = false;
};

struct callback_slot {
    int id = 0;
    front_end::callback fn;
};

struct config {
    std::vector<sink_slot> sinks;
    std::vector<callback_slot> callbacks;
};

void default_error_handler(const std::string& message) {
    std::fprintf(stderr, "cudabridge log: %s\n", message.c_str());
}

}  // namespace

struct front_end::impl : std::enable_shared_from_this<front_end::impl> {
    options opts;
    std::array<std::atomic<cb_log_level>, max_categories> levels;
    std::atomic<overflow_policy> policy;
    std::atomic<bool> accepting{false};  // a hint for the fast path; `stop` under qm decides

    // ---- the queue (qm) ----
    std::mutex qm;
    std::condition_variable wake_cv;     // the logging thread waits here
    std::condition_variable space_cv;    // producers blocked on a full queue
    std::condition_variable flushed_cv;  // flush() callers
    batch pending;
    enum class thread_state { running, napping, sleeping } state = thread_state::running;
    bool stop = true;
    bool thread_done = true;
    uint64_t accepted = 0;  // records ever accepted into the queue
    uint64_t dropped = 0;
    uint64_t flush_request = 0;  // highest `accepted` value a flush() is waiting for
    uint64_t flushed_upto = 0;   // records up to here are delivered (or evicted) and sinks flushed
    size_t blocked = 0;          // producers waiting for room
    size_t notify_threshold = 1;

    // ---- sinks and callbacks (cfg_m) ----
    std::mutex cfg_m;
    std::shared_ptr<const config> cfg = std::make_shared<config>();
    int next_callback_id = 1;

    // ---- delivery ----
    std::mutex deliver_m;  // held by the thread while it uses a snapshot
    std::atomic<uint64_t> written{0};
    std::atomic<uint64_t> sink_errors{0};
    std::atomic<std::thread::id> thread_id{};
    std::vector<cb_log_record> recs;  // thread-only scratch
    record cb_record;                 // thread-only scratch

    // ---- errors (err_m) ----
    std::mutex err_m;
    std::function<void(const std::string&)> error_handler;
    std::chrono::steady_clock::time_point last_report{};
    bool reported = false;
    uint64_t suppressed = 0;

    // ---- lifetime (life_m) ----
    std::mutex life_m;
    std::thread thread;

    explicit impl(options o) : opts(o), policy(o.overflow) {
        if (opts.queue_capacity == 0) opts.queue_capacity = 1;
        if (opts.max_batch == 0) opts.max_batch = 1;
        if (opts.default_level < CB_LOG_TRACE || opts.default_level > CB_LOG_OFF) opts.default_level = CB_LOG_INFO;
        for (auto& l : levels) l.store(opts.default_level, std::memory_order_relaxed);
        notify_threshold = std::max<size_t>(1, std::min(opts.max_batch, opts.queue_capacity / 2));
        pending.entries.reserve(std::min<size_t>(opts.queue_capacity, 4096));
        recs.reserve(std::min<size_t>(opts.max_batch, 4096));
    }

    bool on_thread() const noexcept { return std::this_thread::get_id() == thread_id.load(std::memory_order_relaxed); }

    std::shared_ptr<const config> snapshot() {
        std::lock_guard lk(cfg_m);
        return cfg;
    }

    // Caller holds qm. Wake the thread if it is not already running.
    void wake_locked() {
        if (state != thread_state::running) {
            state = thread_state::running;
            wake_cv.notify_one();
        }
    }

    // Caller holds qm and the pending batch is full. True when the record may now be appended.
    bool make_room(std::unique_lock<std::mutex>& lk) {
        for (;;) {
            if (stop) {
                ++dropped;
                return false;
            }
            if (pending.size() < opts.queue_capacity) return true;
            switch (policy.load(std::memory_order_relaxed)) {
            case overflow_policy::drop_newest:
                ++dropped;
                return false;
            case overflow_policy::drop_oldest:
                pending.drop_front(opts.queue_capacity);
                ++dropped;
                return true;
            case overflow_policy::block:
                if (on_thread()) {  // a sink or callback logging into a full queue: never self-wait
                    ++dropped;
                    return false;
                }
                wake_locked();
                ++blocked;
                space_cv.wait(lk);
                --blocked;
                break;
            }
        }
    }

    // Rate limited unless `always` (used for the summary at shutdown).
    void report_error(std::string message, bool always = false) noexcept {
        try {
            std::function<void(const std::string&)> handler;
            {
                std::lock_guard lk(err_m);
                auto now = std::chrono::steady_clock::now();
                if (!always && reported && now - last_report < opts.error_interval) {
                    ++suppressed;
                    return;
                }
                if (suppressed) {
                    message += " (" + std::to_string(suppressed) + " similar messages suppressed)";
                    suppressed = 0;
                }
                reported = true;
                last_report = now;
                handler = error_handler;
            }
            if (handler)
                handler(message);
            else
                default_error_handler(message);
        } catch (...) {
        }
    }

    void sink_failed(const sink_slot& s, const char* what, cb_status st) noexcept {
        sink_errors.fetch_add(1, std::memory_order_relaxed);
        try {
            report_error("log sink '" + s.name + "' " + what + " failed: " + status_name(st) + " (" +
                         std::to_string(st) + ")");
        } catch (...) {
        }
    }

    void callback_failed(int id, const char* what) noexcept {
        sink_errors.fetch_add(1, std::memory_order_relaxed);
        try {
            report_error("log callback " + std::to_string(id) + " threw: " + what);
        } catch (...) {
        }
    }

    void deliver(batch& b) noexcept {
        const size_t end = b.entries.size();
        for (size_t i = b.head; i < end;) {
            const size_t n = std::min(opts.max_batch, end - i);
            std::lock_guard dl(deliver_m);
            std::shared_ptr<const config> c = snapshot();
            const char* text = b.text.data();

            if (!c->sinks.empty()) {
                recs.clear();
                for (size_t k = 0; k < n; ++k) {
                    const entry& e = b.entries[i + k];
                    cb_log_record r{};
                    r.struct_size = sizeof(cb_log_record);
                    r.level = e.level;
                    r.time_ns = e.time_ns;
                    r.thread_id = e.thread_id;
                    const char* cat = category_c_name(e.category);
                    r.category = cat ? cat : "GENERAL";
                    r.message = text + e.text_off;
                    r.message_len = e.msg_len;
                    r.device = e.dev_len ? text + e.text_off + e.msg_len + 1 : nullptr;
                    try {
                        recs.push_back(r);
                    } catch (...) {  // reserve() made room up to 4096; only huge max_batch gets here
                        break;
                    }
                }
                const size_t m = recs.size();
                for (const sink_slot& s : c->sinks) {
                    try {
                        // A batch entry answering CB_ERR_UNSUPPORTED is absent (the SDK's
                        // rule): the records go one by one.
                        cb_status st = CB_ERR_UNSUPPORTED;
                        if (s.has_batch) st = s.table->write_batch(s.instance, recs.data(), m);
                        if (st != CB_ERR_UNSUPPORTED) {
                            if (st != CB_OK) sink_failed(s, "write_batch", st);
                        } else if (s.has_write) {
                            for (size_t k = 0; k < m; ++k) {
                                cb_status w = s.table->write(s.instance, &recs[k]);
                                if (w != CB_OK) sink_failed(s, "write", w);
                            }
                        } else {
                            sink_failed(s, "write_batch", st);  // no way left to deliver them
                        }
                    } catch (const std::exception& e) {
                        sink_errors.fetch_add(1, std::memory_order_relaxed);
                        report_error("log sink '" + s.name + "' threw: " + e.what());
                    } catch (...) {
                        sink_errors.fetch_add(1, std::memory_order_relaxed);
                        report_error("log sink '" + s.name + "' threw");
                    }
                }
            }

            if (!c->callbacks.empty()) {
                for (size_t k = 0; k < n; ++k) {
                    const entry& e = b.entries[i + k];
                    record& r = cb_record;
                    try {
                        r.level = e.level;
                        r.time_ns = e.time_ns;
                        r.thread_id = e.thread_id;
                        r.category = e.category;
                        r.message.assign(text + e.text_off, e.msg_len);
                        if (e.dev_len)
                            r.device.assign(text + e.text_off + e.msg_len + 1, e.dev_len);
                        else
                            r.device.clear();
                    } catch (...) {
                        continue;
                    }
                    for (const callback_slot& cb : c->callbacks) {
                        try {
                            cb.fn(r);
                        } catch (const std::exception& ex) {
                            callback_failed(cb.id, ex.what());
                        } catch (...) {
                            callback_failed(cb.id, "unknown exception");
                        }
                    }
                }
            }
            written.fetch_add(n, std::memory_order_relaxed);
            i += n;
        }
    }

    void flush_sinks() noexcept {
        std::lock_guard dl(deliver_m);
        std::shared_ptr<const config> c = snapshot();
        for (const sink_slot& s : c->sinks) {
            if (!s.has_flush) continue;
            try {
                cb_status st = s.table->flush(s.instance);
                if (st != CB_OK) sink_failed(s, "flush", st);
            } catch (...) {
                sink_errors.fetch_add(1, std::memory_order_relaxed);
                report_error("log sink '" + s.name + "' flush threw");
            }
        }
    }

    void run() noexcept {
        thread_id.store(std::this_thread::get_id(), std::memory_order_relaxed);
        pthread_setname_np(pthread_self(), "cb-log");
        batch work;
        try {
            work.entries.reserve(std::min<size_t>(opts.queue_capacity, 4096));
        } catch (...) {
        }
        bool unflushed = false;
        int empty_naps = 0;
        std::unique_lock lk(qm);
        for (;;) {
            if (pending.empty()) {
                if (unflushed || flush_request > flushed_upto) {
                    // Idle (or asked to): flush the sinks. Everything accepted so far is delivered.
                    const uint64_t target = accepted;
                    lk.unlock();
                    flush_sinks();
                    unflushed = false;
                    lk.lock();
                    flushed_upto = std::max(flushed_upto, target);
                    flushed_cv.notify_all();
                    continue;
                }
                if (stop) break;
                if (empty_naps < naps_before_sleep) {
                    state = thread_state::napping;
                    wake_cv.wait_for(lk, nap_interval);
                    state = thread_state::running;
                    if (pending.empty()) ++empty_naps;
                } else {
                    state = thread_state::sleeping;
                    wake_cv.wait(lk);
                    state = thread_state::running;
                }
                continue;
            }
            empty_naps = 0;
            std::swap(pending, work);
            const uint64_t target = accepted;
            const bool wake_blocked = blocked > 0;
            const bool want_flush = flush_request > flushed_upto;
            lk.unlock();
            if (wake_blocked) space_cv.notify_all();
            deliver(work);
            work.clear();
            unflushed = true;
            if (want_flush) {
                flush_sinks();
                unflushed = false;
                lk.lock();
                flushed_upto = std::max(flushed_upto, target);
                flushed_cv.notify_all();
            } else {
                lk.lock();
            }
        }
        flushed_upto = accepted;
        thread_done = true;
        flushed_cv.notify_all();
        space_cv.notify_all();
    }

    // Caller holds life_m.
    void start() {
        {
            std::lock_guard lk(qm);
            stop = false;
            thread_done = false;
            state = thread_state::running;
            accepting.store(true, std::memory_order_relaxed);
        }
        try {
            // The thread holds the state it runs on: when a callback destroys the front end,
            // the thread finishes its batch on it and releases it last.
            thread = std::thread([self = shared_from_this()] { self->run(); });
        } catch (...) {
            std::lock_guard lk(qm);
            stop = true;
            thread_done = true;
            accepting.store(false, std::memory_order_relaxed);
            throw;
        }
    }
};

front_end::front_end(options opts) : impl_(std::make_shared<impl>(opts)) {
    std::lock_guard life(impl_->life_m);
    impl_->start();
}

front_end::~front_end() {
    try {
        shutdown();
        std::lock_guard life(impl_->life_m);
        if (impl_->thread.joinable()) impl_->thread.detach();  // destroyed from a callback: it holds impl
    } catch (...) {
    }
}

void front_end::add_sink(std::string name, const cb_logsink_table* table, void* instance) {
    sink_slot s;
    s.has_write = CB_HAS_FIELD(table, cb_logsink_table, write);
    s.has_batch = CB_HAS_FIELD(table, cb_logsink_table, write_batch);
    s.has_flush = CB_HAS_FIELD(table, cb_logsink_table, flush);
    if (!s.has_write && !s.has_batch)
        throw error(CB_ERR_INVALID_ARGUMENT, "log sink '" + name + "' has no write function");
    s.name = std::move(name);
    s.table = table;
    s.instance = instance;
    std::lock_guard lk(impl_->cfg_m);
    for (const sink_slot& o : impl_->cfg->sinks)
        if (o.name == s.name)
            throw error(CB_ERR_INVALID_ARGUMENT, "a log sink named '" + s.name + "' is already attached");
    auto c = std::make_shared<config>(*impl_->cfg);
    c->sinks.push_back(std::move(s));
    impl_->cfg = std::move(c);
}

void front_end::remove_sink(std::string_view name) {
    {
        std::lock_guard lk(impl_->cfg_m);
        const auto& sinks = impl_->cfg->sinks;
        auto it = std::find_if(sinks.begin(), sinks.end(), [&](const sink_slot& s) { return s.name == name; });
        if (it == sinks.end()) return;
        auto c = std::make_shared<config>(*impl_->cfg);
        c->sinks.erase(c->sinks.begin() + (it - sinks.begin()));
        impl_->cfg = std::move(c);
    }
    // Wait out a chunk in flight that still uses the old snapshot (unless we are that thread).
    if (!impl_->on_thread()) std::lock_guard dl(impl_->deliver_m);
}

std::vector<std::string> front_end::sink_names() const {
    std::lock_guard lk(impl_->cfg_m);
    std::vector<std::string> out;
    for (const sink_slot& s : impl_->cfg->sinks) out.push_back(s.name);
    return out;
}

int front_end::add_callback(callback cb) {
    if (!cb) throw error(CB_ERR_INVALID_ARGUMENT, "empty log callback");
    std::lock_guard lk(impl_->cfg_m);
    auto c = std::make_shared<config>(*impl_->cfg);
    int id = impl_->next_callback_id++;
    c->callbacks.push_back({id, std::move(cb)});
    impl_->cfg = std::move(c);
    return id;
}

void front_end::remove_callback(int id) {
    std::shared_ptr<const config> old;  // the removed std::function dies outside the lock
    {
        std::lock_guard lk(impl_->cfg_m);
        const auto& cbs = impl_->cfg->callbacks;
        auto it = std::find_if(cbs.begin(), cbs.end(), [&](const callback_slot& s) { return s.id == id; });
        if (it == cbs.end()) return;
        auto c = std::make_shared<config>(*impl_->cfg);
        c->callbacks.erase(c->callbacks.begin() + (it - cbs.begin()));
        old = std::exchange(impl_->cfg, std::move(c));
    }
    if (!impl_->on_thread()) std::lock_guard dl(impl_->deliver_m);
}

void front_end::set_level(int category, cb_log_level level) {
    if (category < 0 || category >= max_categories)
        throw error(CB_ERR_INVALID_ARGUMENT, "log category id out of range: " + std::to_string(category));
    if (level < CB_LOG_TRACE || level > CB_LOG_OFF)
        throw error(CB_ERR_INVALID_ARGUMENT, "invalid log level: " + std::to_string(level));
    impl_->levels[static_cast<size_t>(category)].store(level, std::memory_order_relaxed);
}

cb_log_level front_end::level(int category) const {
    if (category < 0 || category >= max_categories) category = 0;
    return impl_->levels[static_cast<size_t>(category)].load(std::memory_order_relaxed);
}

void front_end::set_all_levels(cb_log_level level) {
    if (level < CB_LOG_TRACE || level > CB_LOG_OFF)
        throw error(CB_ERR_INVALID_ARGUMENT, "invalid log level: " + std::to_string(level));
    for (auto& l : impl_->levels) l.store(level, std::memory_order_relaxed);
}

void front_end::set_overflow_policy(overflow_policy p) {
    impl_->policy.store(p, std::memory_order_relaxed);
    std::lock_guard lk(impl_->qm);  // blocked producers re-read the policy
    impl_->space_cv.notify_all();
}

bool front_end::enabled(int category, cb_log_level level) const noexcept {
    category = effective_category(category);
    return level >= impl_->levels[static_cast<size_t>(category)].load(std::memory_order_relaxed) &&
           level < CB_LOG_OFF && impl_->accepting.load(std::memory_order_relaxed);
}

void front_end::log(cb_log_level level, int category, std::string_view message, std::string_view device) noexcept {
    impl& s = *impl_;
    if (level < CB_LOG_TRACE || level >= CB_LOG_OFF) return;
    if (!s.accepting.load(std::memory_order_relaxed)) return;
    category = effective_category(category);
    if (level < s.levels[static_cast<size_t>(category)].load(std::memory_order_relaxed)) return;
    message = message.substr(0, clamp_utf8(message, max_message_bytes));
    device = device.substr(0, clamp_utf8(device, max_device_bytes));

    entry proto{};
    proto.time_ns = wall_clock_ns();
    proto.thread_id = os_thread_id();
    proto.msg_len = static_cast<uint32_t>(message.size());
    proto.dev_len = static_cast<uint32_t>(device.size());
    proto.level = level;
    proto.category = category;

    bool notify = false;
    {
        std::unique_lock lk(s.qm);
        if (s.stop) return;  // shut down: dropped silently
        if (s.pending.size() >= s.opts.queue_capacity && !s.make_room(lk)) return;
        try {
            s.pending.push(proto, message, device);
        } catch (...) {  // out of memory: the record is lost, the caller is not told
            ++s.dropped;
            return;
        }
        ++s.accepted;
        if (s.state != impl::thread_state::running &&
            (s.state == impl::thread_state::sleeping || level >= CB_LOG_ERROR ||
             s.pending.size() >= s.notify_threshold)) {
            s.state = impl::thread_state::running;
            notify = true;
        }
    }
    if (notify) s.wake_cv.notify_one();
}

void front_end::flush() {
    impl& s = *impl_;
    if (s.on_thread()) return;  // a sink or callback: waiting for ourselves would never end
    std::unique_lock lk(s.qm);
    if (s.thread_done) return;
    const uint64_t target = s.accepted;
    if (s.flushed_upto >= target) return;
    s.flush_request = std::max(s.flush_request, target);
    s.wake_locked();
    s.flushed_cv.wait(lk, [&] { return s.flushed_upto >= target || s.thread_done; });
}

void front_end::shutdown() {
    impl& s = *impl_;
    {
        std::lock_guard lk(s.qm);
        s.accepting.store(false, std::memory_order_relaxed);
        s.stop = true;
        s.wake_locked();
        s.space_cv.notify_all();
    }
    if (s.on_thread()) return;  // called from a sink or callback: the thread ends after this batch
    std::lock_guard life(s.life_m);
    if (!s.thread.joinable()) return;
    s.thread.join();
    s.thread_id.store(std::thread::id{}, std::memory_order_relaxed);
    {
        std::lock_guard lk(s.cfg_m);
        s.cfg = std::make_shared<config>();
    }
    uint64_t suppressed = 0;
    {
        std::lock_guard lk(s.err_m);
        suppressed = std::exchange(s.suppressed, 0);
    }
    if (suppressed)
        s.report_error("log front end: " + std::to_string(suppressed) + " error messages suppressed before shutdown",
                       true);
}

void front_end::restart() {
    impl& s = *impl_;
    std::lock_guard life(s.life_m);
    {
        std::lock_guard lk(s.qm);
        if (!s.stop) return;
    }
    if (s.thread.joinable()) {  // shut down from its own thread earlier: finish that now
        s.thread.join();
        s.thread_id.store(std::thread::id{}, std::memory_order_relaxed);
        std::lock_guard lk(s.cfg_m);
        s.cfg = std::make_shared<config>();
    }
    s.start();
}

bool front_end::running() const noexcept { return impl_->accepting.load(std::memory_order_relaxed); }

statistics front_end::stats() const {
    statistics st;
    {
        std::lock_guard lk(impl_->qm);
        st.enqueued = impl_->accepted;
        st.dropped = impl_->dropped;
    }
    st.written = impl_->written.load(std::memory_order_relaxed);
    st.sink_errors = impl_->sink_errors.load(std::memory_order_relaxed);
    return st;
}

void front_end::set_error_handler(std::function<void(const std::string&)> handler) {
    std::lock_guard lk(impl_->err_m);
    impl_->error_handler = std::move(handler);
}

}  // namespace cudabridge::core::log
