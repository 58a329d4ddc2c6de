// bench_log_front_end [iterations]: the log front end's caller-side cost and throughput.
//
// Every figure is printed next to a reference measured in the same process, so the ratios hold
// across machines:
//   caller_ns_per_call     CB_LOG_INFO (C API, process front end) and front_end::log of a
//                          snprintf-formatted ~60-byte message, vs snprintf of it alone
//   enqueue_records_per_s  front_end::log of a preformatted message from one thread, null sink
//   delivered_records_per_s  end to end (first log to flush() returned), counting sink
// Goals: >= 1,000,000 records/s enqueued, <= 200 ns per call. The program asserts nothing (a
// smoke run passes a tiny iteration count).
#include <cb_log.h>

#include <cudabridge/core/log.hpp>
#include <cudabridge/core/process_log.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace lg = cudabridge::core::log;
using clock_type = std::chrono::steady_clock;

namespace {

// A typical message: about 60 bytes after formatting.
#define BENCH_FMT "GPU %d initialized: %s (%u MiB VRAM)"
const char* const gpu_name = "NVIDIA GeForce RTX 4090";

struct null_sink {
    static cb_status write(void*, const cb_log_record*) { return CB_OK; }
    static cb_status write_batch(void*, const cb_log_record*, size_t) { return CB_OK; }
    static cb_status flush(void*) { return CB_OK; }
    static void close(void*) {}
    static const cb_logsink_table* table() {
        static const cb_logsink_table t{sizeof(cb_logsink_table), &write, &flush, &close, &write_batch};
        return &t;
    }
};

struct counting_sink {
    std::atomic<uint64_t> records{0};
    std::atomic<uint64_t> bytes{0};
    static cb_status write(void* self, const cb_log_record* r) {
        auto* s = static_cast<counting_sink*>(self);
        s->records.fetch_add(1, std::memory_order_relaxed);
        s->bytes.fetch_add(r->message_len, std::memory_order_relaxed);
        return CB_OK;
    }
    static cb_status write_batch(void* self, const cb_log_record* rs, size_t n) {
        auto* s = static_cast<counting_sink*>(self);
        uint64_t b = 0;
        for (size_t i = 0; i < n; ++i) b += rs[i].message_len;
        s->records.fetch_add(n, std::memory_order_relaxed);
        s->bytes.fetch_add(b, std::memory_order_relaxed);
        return CB_OK;
    }
    static cb_status flush(void*) { return CB_OK; }
    static void close(void*) {}
    static const cb_logsink_table* table() {
        static const cb_logsink_table t{sizeof(cb_logsink_table), &write, &flush, &close, &write_batch};
        return &t;
    }
};

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

volatile int g_sink_int;  // keeps the reference loop from being optimised away

int format_one(char* buf, size_t n, int i) { return std::snprintf(buf, n, BENCH_FMT, i & 7, gpu_name, 24564u); }

// Reference: snprintf of the same message alone, ns per call.
double snprintf_ns(long iterations) {
    char buf[256];
    auto t0 = clock_type::now();
    for (long i = 0; i < iterations; ++i) g_sink_int = format_one(buf, sizeof buf, static_cast<int>(i));
    return seconds_since(t0) * 1e9 / static_cast<double>(iterations);
}

// front_end::log with the caller formatting the message each time.
double front_end_format_and_log_ns(long iterations, lg::statistics* st) {
    lg::front_end fe;
    fe.add_sink("null", null_sink::table(), nullptr);
    char buf[256];
    auto t0 = clock_type::now();
    for (long i = 0; i < iterations; ++i) {
        int n = format_one(buf, sizeof buf, static_cast<int>(i));
        fe.log(CB_LOG_INFO, CB_LOG_CAT_DRIVER, std::string_view(buf, static_cast<size_t>(n)));
    }
    double ns = seconds_since(t0) * 1e9 / static_cast<double>(iterations);
    fe.shutdown();
    *st = fe.stats();
    return ns;
}

// CB_LOG_INFO through the C API into the process front end.
double c_macro_ns(long iterations) {
    lg::front_end& fe = lg::process_front_end();
    fe.add_sink("bench-null", null_sink::table(), nullptr);
    auto t0 = clock_type::now();
    for (long i = 0; i < iterations; ++i)
        CB_LOG_INFO(CB_LOG_CAT_DRIVER, BENCH_FMT, static_cast<int>(i) & 7, gpu_name, 24564u);
    double ns = seconds_since(t0) * 1e9 / static_cast<double>(iterations);
    cb_log_flush();
    fe.remove_sink("bench-null");
    return ns;
}

// A disabled CB_LOG_DEBUG: the cost of the level test alone.
double c_macro_disabled_ns(long iterations) {
    auto t0 = clock_type::now();
    for (long i = 0; i < iterations; ++i)
        CB_LOG_DEBUG(CB_LOG_CAT_DRIVER, BENCH_FMT, static_cast<int>(i) & 7, gpu_name, 24564u);
    return seconds_since(t0) * 1e9 / static_cast<double>(iterations);
}

// Records/s enqueued from `threads` threads, preformatted message, null sink.
double enqueue_rate(long iterations, int threads, lg::statistics* st) {
    lg::front_end fe;
    fe.add_sink("null", null_sink::table(), nullptr);
    char buf[256];
    int n = format_one(buf, sizeof buf, 1);
    const std::string_view msg(buf, static_cast<size_t>(n));
    auto t0 = clock_type::now();
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
        ts.emplace_back([&] {
            for (long i = 0; i < iterations; ++i) fe.log(CB_LOG_INFO, CB_LOG_CAT_DRIVER, msg);
        });
    for (auto& th : ts) th.join();
    double s = seconds_since(t0);
    fe.shutdown();
    *st = fe.stats();
    return static_cast<double>(iterations) * threads / s;
}

// Records/s from the first log() to flush() returning, counting sink.
double delivered_rate(long iterations, uint64_t* delivered) {
    lg::front_end fe;
    counting_sink sink;
    fe.add_sink("count", counting_sink::table(), &sink);
    char buf[256];
    int n = format_one(buf, sizeof buf, 1);
    const std::string_view msg(buf, static_cast<size_t>(n));
    auto t0 = clock_type::now();
    for (long i = 0; i < iterations; ++i) fe.log(CB_LOG_INFO, CB_LOG_CAT_DRIVER, msg);
    fe.flush();
    double s = seconds_since(t0);
    *delivered = sink.records.load();
    return static_cast<double>(*delivered) / s;
}

}  // namespace

int main(int argc, char** argv) {
    long iterations = 2'000'000;
    if (argc > 1) iterations = std::strtol(argv[1], nullptr, 10);
    if (iterations < 1) iterations = 1;
    const bool smoke = iterations < 10000;

    char sample[256];
    int sample_len = format_one(sample, sizeof sample, 1);
    std::printf("bench_log_front_end: iterations=%ld message_bytes=%d (\"%s\")\n", iterations, sample_len, sample);

    // Warm-up (page faults, queue buffers, frequency).
    lg::statistics st{};
    snprintf_ns(iterations / 10 + 1);
    front_end_format_and_log_ns(iterations / 10 + 1, &st);

    const double ref_ns = snprintf_ns(iterations);
    const double fe_ns = front_end_format_and_log_ns(iterations, &st);
    std::printf(
        "caller_ns_per_call=%.1f (front_end::log, snprintf alone %.1f ns, ratio %.2f; "
        "enqueue part %.1f ns) enqueued=%llu dropped=%llu\n",
        fe_ns, ref_ns, fe_ns / ref_ns, fe_ns - ref_ns, static_cast<unsigned long long>(st.enqueued),
        static_cast<unsigned long long>(st.dropped));
    const double c_ns = c_macro_ns(iterations);
    std::printf("caller_ns_per_call=%.1f (CB_LOG_INFO, snprintf alone %.1f ns, ratio %.2f; goal <= 200 ns)\n", c_ns,
                ref_ns, c_ns / ref_ns);
    const double off_ns = c_macro_disabled_ns(iterations);
    std::printf("disabled_ns_per_call=%.2f (CB_LOG_DEBUG below the level, snprintf alone %.1f ns, ratio %.3f)\n",
                off_ns, ref_ns, off_ns / ref_ns);

    const double ref_rate = 1e9 / ref_ns;
    const double rate1 = enqueue_rate(iterations, 1, &st);
    std::printf(
        "enqueue_records_per_s=%.0f (1 thread, null sink; snprintf alone %.0f/s, ratio %.2f; "
        "goal 1000000, ratio %.2f) dropped=%llu\n",
        rate1, ref_rate, rate1 / ref_rate, rate1 / 1e6, static_cast<unsigned long long>(st.dropped));
    const unsigned hw = std::max(2u, std::thread::hardware_concurrency());
    const int threads = static_cast<int>(std::min(4u, hw));
    const double rate_n = enqueue_rate(iterations / threads, threads, &st);
    std::printf("enqueue_records_per_s=%.0f (%d threads, null sink; ratio to 1 thread %.2f) dropped=%llu\n", rate_n,
                threads, rate_n / rate1, static_cast<unsigned long long>(st.dropped));

    uint64_t delivered = 0;
    const double e2e = delivered_rate(iterations, &delivered);
    std::printf(
        "delivered_records_per_s=%.0f (end to end to a counting sink; ratio to enqueue rate %.2f) "
        "delivered=%llu of %ld\n",
        e2e, e2e / rate1, static_cast<unsigned long long>(delivered), iterations);

    cb_log_shutdown();
    if (smoke) std::printf("(smoke run: figures are not meaningful at this iteration count)\n");
    return delivered == static_cast<uint64_t>(iterations) ? 0 : 1;
}
