// An in-test log sink implementing cb_logsink_table: stores and counts records, and can fail,
// slow down, or block on a gate so tests can fill the front end's queue deliberately.
#pragma once

#include <cudabridge/logsink.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cbtest {

struct stored_record {
    cb_log_level level = 0;
    int64_t time_ns = 0;
    uint64_t thread_id = 0;
    std::string category;
    std::string message;
    bool has_device = false;
    std::string device;
    bool nul_terminated = false;
};

class test_sink {
public:
    test_sink() {
        table_.struct_size = sizeof(cb_logsink_table);
        table_.write = &s_write;
        table_.flush = &s_flush;
        table_.close = &s_close;
        table_.write_batch = &s_write_batch;

        // An ABI 1.0 sink: the table ends before write_batch. The pointer is set anyway, to a
        // function that records a violation, to prove the host goes by struct_size.
        old_table_ = table_;
        old_table_.struct_size = offsetof(cb_logsink_table, write_batch);
        old_table_.write_batch = &s_forbidden_batch;

        // A sink whose batch entry answers CB_ERR_UNSUPPORTED: absent, by the SDK's rule.
        unsupported_batch_table_ = table_;
        unsupported_batch_table_.write_batch = &s_unsupported_batch;
    }

    const cb_logsink_table* table() const { return &table_; }           // ABI 1.1, batches
    const cb_logsink_table* table_v1_0() const { return &old_table_; }  // ABI 1.0, per record
    const cb_logsink_table* table_unsupported_batch() const { return &unsupported_batch_table_; }
    void* instance() { return this; }

    // ---- behaviour ----
    std::atomic<cb_status> fail_with{CB_OK};
    std::atomic<bool> throw_on_write{false};
    std::atomic<int> delay_us{0};

    void close_gate() {
        std::lock_guard lk(m_);
        gate_closed_ = true;
    }
    void open_gate() {
        {
            std::lock_guard lk(m_);
            gate_closed_ = false;
        }
        cv_.notify_all();
    }
    // Wait until the logging thread is stuck in this sink behind the closed gate.
    bool wait_blocked(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
        std::unique_lock lk(m_);
        return cv_.wait_for(lk, timeout, [&] { return blocked_; });
    }

    // ---- observations ----
    std::vector<stored_record> records() {
        std::lock_guard lk(m_);
        return records_;
    }
    std::vector<std::string> messages() {
        std::lock_guard lk(m_);
        std::vector<std::string> out;
        for (const auto& r : records_) out.push_back(r.message);
        return out;
    }
    size_t count() {
        std::lock_guard lk(m_);
        return records_.size();
    }
    // "w" for each record written, "f" for each flush, in order.
    std::string events() {
        std::lock_guard lk(m_);
        return events_;
    }
    std::atomic<int> write_calls{0};
    std::atomic<int> batch_calls{0};
    std::atomic<int> flush_calls{0};
    std::atomic<size_t> largest_batch{0};
    std::atomic<int> forbidden_calls{0};

private:
    cb_status one(const cb_log_record* r) {
        std::unique_lock lk(m_);
        if (gate_closed_) {
            blocked_ = true;
            cv_.notify_all();
            cv_.wait(lk, [&] { return !gate_closed_; });
            blocked_ = false;
        }
        stored_record s;
        s.level = r->level;
        s.time_ns = r->time_ns;
        s.thread_id = r->thread_id;
        s.category = r->category ? r->category : "<null>";
        s.message.assign(r->message, r->message_len);
        s.nul_terminated = r->message[r->message_len] == '\0';
        s.has_device = r->device != nullptr;
        if (r->device) s.device = r->device;
        records_.push_back(std::move(s));
        events_ += 'w';
        lk.unlock();
        if (int d = delay_us.load()) std::this_thread::sleep_for(std::chrono::microseconds(d));
        return fail_with.load();
    }

    static cb_status s_write(void* inst, const cb_log_record* r) {
        auto* self = static_cast<test_sink*>(inst);
        self->write_calls++;
        if (self->throw_on_write) throw std::runtime_error("sink exploded");
        return self->one(r);
    }
    static cb_status s_write_batch(void* inst, const cb_log_record* rs, size_t n) {
        auto* self = static_cast<test_sink*>(inst);
        self->batch_calls++;
        size_t prev = self->largest_batch.load();
        while (n > prev && !self->largest_batch.compare_exchange_weak(prev, n)) {
        }
        if (self->throw_on_write) throw std::runtime_error("sink exploded");
        cb_status st = CB_OK;
        for (size_t i = 0; i < n; ++i)
            if (cb_status s = self->one(&rs[i]); s != CB_OK) st = s;
        return st;
    }
    static cb_status s_forbidden_batch(void* inst, const cb_log_record*, size_t) {
        static_cast<test_sink*>(inst)->forbidden_calls++;
        return CB_ERR_INTERNAL;
    }
    static cb_status s_unsupported_batch(void* inst, const cb_log_record*, size_t) {
        static_cast<test_sink*>(inst)->batch_calls++;
        return CB_ERR_UNSUPPORTED;
    }
    static cb_status s_flush(void* inst) {
        auto* self = static_cast<test_sink*>(inst);
        self->flush_calls++;
        std::lock_guard lk(self->m_);
        self->events_ += 'f';
        return CB_OK;
    }
    static void s_close(void*) {}

    cb_logsink_table table_{};
    cb_logsink_table old_table_{};
    cb_logsink_table unsupported_batch_table_{};
    std::mutex m_;
    std::condition_variable cv_;
    bool gate_closed_ = false;
    bool blocked_ = false;
    std::vector<stored_record> records_;
    std::string events_;
};

}  // namespace cbtest
