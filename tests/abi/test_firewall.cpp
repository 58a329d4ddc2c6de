// The C++ helpers' exception firewall: whatever a plugin's C++ method throws, the C table entry
// returns a status and reports the message through the host's set_last_error.
//
//   std::runtime_error("x")      -> CB_ERR_INTERNAL,      "unexpected exception: x"
//   sdk::status_error(s, "x")    -> s,                    "x"
//   std::bad_alloc               -> CB_ERR_OUT_OF_MEMORY, "out of host memory"
//   anything else (an int)       -> CB_ERR_INTERNAL,      "unexpected non-standard exception"
#include "fake_host.hpp"

#include <cudabridge/cpp/plugin.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <ostream>
#include <stdexcept>
#include <string>

namespace sdk = cudabridge::sdk;

namespace {

enum class thrown { runtime_error, status_error, bad_alloc, integer };

struct firewall_case {
    thrown what;
    cb_status status;
    const char* message;
};

// Test names and failure messages show the case, not its bytes.
void PrintTo(const firewall_case& c, std::ostream* os) { *os << c.message; }

[[noreturn]] void throw_as(thrown what) {
    switch (what) {
    case thrown::runtime_error:
        throw std::runtime_error("runtime boom");
    case thrown::status_error:
        throw sdk::status_error(CB_ERR_TIMEOUT, "took too long");
    case thrown::bad_alloc:
        throw std::bad_alloc();
    case thrown::integer:
        break;
    }
    throw 42;
}

// ---- one throwing class per kind --------------------------------------------------------------

class throwing_sink final : public sdk::logsink {
public:
    throwing_sink(const sdk::host& h, thrown what) : logsink(h), what_(what) {}
    cb_status write(const cb_log_record&) override { throw_as(what_); }
    cb_status flush() override { throw_as(what_); }
    void close() override { throw_as(what_); }
    cb_status write_batch(const cb_log_record*, size_t) override { throw_as(what_); }

private:
    thrown what_;
};

class throwing_policy final : public sdk::safety_policy {
public:
    throwing_policy(const sdk::host& h, thrown what) : safety_policy(h), what_(what) {}
    cb_status check_compatibility(const cb_device_facts&, cb_verdict&) override { throw_as(what_); }
    cb_status evaluate(const cb_health_history&, cb_safety_decision&) override { throw_as(what_); }

private:
    thrown what_;
};

class throwing_transport final : public sdk::transport {
public:
    throwing_transport(const sdk::host& h, thrown what) : transport(h), what_(what) {}
    cb_status enumerate(cb_endpoint_info*, size_t, size_t&) override { throw_as(what_); }
    cb_status open_link(const char*, cb_link**) override { throw_as(what_); }
    cb_status close_link(cb_link*) override { throw_as(what_); }
    cb_status mmio_read32(cb_link*, uint32_t, uint64_t, uint32_t&) override { throw_as(what_); }
    cb_status dma_map(cb_link*, void*, size_t, cb_dma_direction, uint64_t&) override { throw_as(what_); }

private:
    thrown what_;
};

class throwing_gpu final : public sdk::gpu_family {
public:
    throwing_gpu(const sdk::host& h, thrown what) : gpu_family(h), what_(what) {}
    cb_status claim(const cb_endpoint_info&, cb_bool&) override { throw_as(what_); }
    cb_status open_device(const cb_gpu_open_params&, cb_gpu_device**) override { throw_as(what_); }
    cb_status close_device(dev) override { throw_as(what_); }
    cb_status get_properties(dev, cb_gpu_properties&) override { throw_as(what_); }
    cb_status mem_alloc(dev, uint64_t, uint64_t&) override { throw_as(what_); }
    cb_status heartbeat(dev, uint64_t&) override { throw_as(what_); }
    cb_status control(const char*, char*, size_t, size_t*) override { throw_as(what_); }

private:
    thrown what_;
};

class throwing_model final : public sdk::endpoint_model {
public:
    throwing_model(const sdk::host& h, thrown what) : endpoint_model(h), what_(what) {}
    cb_status config_read(uint32_t, void*, uint32_t) override { throw_as(what_); }
    cb_status config_write(uint32_t, const void*, uint32_t) override { throw_as(what_); }
    cb_status bar_info(uint32_t, cb_bar_info&) override { throw_as(what_); }
    cb_status mmio_read(uint32_t, uint64_t, void*, uint32_t) override { throw_as(what_); }
    cb_status mmio_write(uint32_t, uint64_t, const void*, uint32_t) override { throw_as(what_); }
    cb_status attach(const cb_endpoint_host_ops&) override { throw_as(what_); }
    void detach() override { throw_as(what_); }

private:
    thrown what_;
};

class firewall : public ::testing::TestWithParam<firewall_case> {
protected:
    // Checks one call's status and that it reported exactly one, expected, message.
    void expect_caught(cb_status status, const char* call) {
        SCOPED_TRACE(call);
        EXPECT_EQ(status, GetParam().status);
        expect_reported(call);
    }
    // For entries that return void: only the message tells.
    void expect_reported(const char* call) {
        SCOPED_TRACE(call);
        auto errors = host_.errors();
        ASSERT_EQ(errors.size(), reported_ + 1) << "set_last_error not called exactly once";
        EXPECT_EQ(errors.back(), GetParam().message);
        reported_ = errors.size();
    }

    cudabridge::test::fake_host host_;
    sdk::host h_{host_.services()};
    size_t reported_ = 0;
};

}  // namespace

TEST_P(firewall, logsink_entries) {
    throwing_sink sink(h_, GetParam().what);
    void* instance = static_cast<sdk::logsink*>(&sink);
    const cb_logsink_table* t = sdk::logsink::table();
    cb_log_record r{};
    r.struct_size = sizeof r;
    r.message = "m";
    expect_caught(t->write(instance, &r), "write");
    expect_caught(t->write_batch(instance, &r, 1), "write_batch");
    expect_caught(t->flush(instance), "flush");
    t->close(instance);
    expect_reported("close");
}

TEST_P(firewall, safety_entries) {
    throwing_policy policy(h_, GetParam().what);
    void* instance = static_cast<sdk::safety_policy*>(&policy);
    const cb_safety_table* t = sdk::safety_policy::table();
    cb_device_facts facts{};
    facts.struct_size = sizeof facts;
    cb_verdict verdict{};
    verdict.struct_size = sizeof verdict;
    expect_caught(t->check_compatibility(instance, &facts, &verdict), "check_compatibility");
    cb_health_history history{};
    history.struct_size = sizeof history;
    cb_safety_decision decision{};
    decision.struct_size = sizeof decision;
    expect_caught(t->evaluate(instance, &history, &decision), "evaluate");
}

TEST_P(firewall, transport_entries) {
    throwing_transport transport(h_, GetParam().what);
    void* instance = static_cast<sdk::transport*>(&transport);
    const cb_transport_table* t = sdk::transport::table();
    size_t count = 0;
    expect_caught(t->enumerate(instance, nullptr, 0, &count), "enumerate");
    cb_link* link = nullptr;
    expect_caught(t->open_link(instance, "0000:01:00.0", &link), "open_link");
    uint32_t value = 0;
    expect_caught(t->mmio_read32(instance, link, 0, 0, &value), "mmio_read32");
    uint64_t iova = 0;
    int buffer = 0;
    expect_caught(t->dma_map(instance, link, &buffer, sizeof buffer, CB_DMA_TO_DEVICE, &iova), "dma_map");
}

TEST_P(firewall, gpu_entries) {
    throwing_gpu gpu(h_, GetParam().what);
    void* instance = static_cast<sdk::gpu_family*>(&gpu);
    const cb_gpu_table* t = sdk::gpu_family::table();
    cb_endpoint_info endpoint{};
    endpoint.struct_size = sizeof endpoint;
    cb_bool claimed = 0;
    expect_caught(t->claim(instance, &endpoint, &claimed), "claim");
    cb_gpu_open_params params{};
    params.struct_size = sizeof params;
    cb_gpu_device* device = nullptr;
    expect_caught(t->open_device(instance, &params, &device), "open_device");
    cb_gpu_properties props{};
    props.struct_size = sizeof props;
    expect_caught(t->get_properties(instance, device, &props), "get_properties");
    uint64_t ptr = 0;
    expect_caught(t->mem_alloc(instance, device, 64, &ptr), "mem_alloc");
    uint64_t counter = 0;
    expect_caught(t->heartbeat(instance, device, &counter), "heartbeat");
    char reply[64];
    size_t needed = 0;
    expect_caught(t->control(instance, "{\"op\":\"profiles\"}", reply, sizeof reply, &needed), "control");
    expect_caught(t->close_device(instance, device), "close_device");
}

TEST_P(firewall, endpoint_model_entries) {
    throwing_model model(h_, GetParam().what);
    void* instance = static_cast<sdk::endpoint_model*>(&model);
    const cb_endpoint_model_table* t = sdk::endpoint_model::table();
    uint32_t data = 0;
    expect_caught(t->config_read(instance, 0, &data, 4), "config_read");
    expect_caught(t->config_write(instance, 0, &data, 4), "config_write");
    cb_bar_info bar{};
    bar.struct_size = sizeof bar;
    expect_caught(t->bar_info(instance, 0, &bar), "bar_info");
    expect_caught(t->mmio_read(instance, 0, 0, &data, 4), "mmio_read");
    expect_caught(t->mmio_write(instance, 0, 0, &data, 4), "mmio_write");
    cb_endpoint_host_ops ops{};
    ops.struct_size = sizeof ops;
    expect_caught(t->attach(instance, &ops), "attach");
    t->detach(instance);
    expect_reported("detach");
}

INSTANTIATE_TEST_SUITE_P(
    sdk, firewall,
    ::testing::Values(firewall_case{thrown::runtime_error, CB_ERR_INTERNAL, "unexpected exception: runtime boom"},
                      firewall_case{thrown::status_error, CB_ERR_TIMEOUT, "took too long"},
                      firewall_case{thrown::bad_alloc, CB_ERR_OUT_OF_MEMORY, "out of host memory"},
                      firewall_case{thrown::integer, CB_ERR_INTERNAL, "unexpected non-standard exception"}),
    [](const ::testing::TestParamInfo<firewall_case>& param_info) {
        switch (param_info.param.what) {
        case thrown::runtime_error:
            return std::string("runtime_error");
        case thrown::status_error:
            return std::string("status_error");
        case thrown::bad_alloc:
            return std::string("bad_alloc");
        case thrown::integer:
            return std::string("int");
        }
        return std::string("unknown");
    });

// ---- what the adapters do when nothing throws ---------------------------------------------------

namespace {

class counting_sink final : public sdk::logsink {
public:
    using logsink::logsink;
    cb_status write(const cb_log_record& r) override {
        ++writes;
        return r.level == CB_LOG_FATAL ? CB_ERR_BUSY : CB_OK;
    }
    int writes = 0;
};

class minimal_transport final : public sdk::transport {
public:
    using transport::transport;
    cb_status enumerate(cb_endpoint_info*, size_t, size_t& count) override {
        count = 3;
        return CB_OK;
    }
    cb_status open_link(const char*, cb_link**) override { return CB_ERR_UNSUPPORTED; }
    cb_status close_link(cb_link*) override { return CB_ERR_UNSUPPORTED; }
};

class minimal_gpu final : public sdk::gpu_family {
public:
    using gpu_family::gpu_family;
    cb_status claim(const cb_endpoint_info& e, cb_bool& out) override {
        out = e.pci_vendor_id == 0x10de ? 1 : 0;
        return CB_OK;
    }
    cb_status open_device(const cb_gpu_open_params&, cb_gpu_device**) override { return CB_ERR_NO_DEVICE; }
    cb_status close_device(dev) override { return CB_OK; }
    cb_status get_properties(dev, cb_gpu_properties&) override { return CB_OK; }
};

}  // namespace

TEST(firewall_passthrough, statuses_pass_unchanged_and_report_nothing) {
    cudabridge::test::fake_host host;
    counting_sink sink{sdk::host(host.services())};
    void* instance = static_cast<sdk::logsink*>(&sink);
    const cb_logsink_table* t = sdk::logsink::table();
    cb_log_record ok{}, busy{};
    ok.struct_size = busy.struct_size = sizeof(cb_log_record);
    ok.level = CB_LOG_INFO;
    busy.level = CB_LOG_FATAL;
    EXPECT_EQ(t->write(instance, &ok), CB_OK);
    EXPECT_EQ(t->write(instance, &busy), CB_ERR_BUSY);
    EXPECT_TRUE(host.errors().empty());
}

TEST(firewall_passthrough, default_write_batch_writes_each_record_and_stops_at_a_failure) {
    cudabridge::test::fake_host host;
    counting_sink sink{sdk::host(host.services())};
    void* instance = static_cast<sdk::logsink*>(&sink);
    const cb_logsink_table* t = sdk::logsink::table();
    cb_log_record records[3]{};
    for (auto& r : records) {
        r.struct_size = sizeof r;
        r.level = CB_LOG_INFO;
    }
    EXPECT_EQ(t->write_batch(instance, records, 3), CB_OK);
    EXPECT_EQ(sink.writes, 3);
    records[1].level = CB_LOG_FATAL;
    EXPECT_EQ(t->write_batch(instance, records, 3), CB_ERR_BUSY);
    EXPECT_EQ(sink.writes, 5);
    EXPECT_EQ(t->write_batch(instance, nullptr, 0), CB_OK);
    EXPECT_EQ(t->flush(instance), CB_OK);  // default flush
    t->close(instance);                    // default close
    EXPECT_TRUE(host.errors().empty());
}

TEST(firewall_passthrough, null_arguments_are_refused_before_the_method) {
    cudabridge::test::fake_host host;
    sdk::host h(host.services());
    counting_sink sink{h};
    const cb_logsink_table* lt = sdk::logsink::table();
    EXPECT_EQ(lt->write(static_cast<sdk::logsink*>(&sink), nullptr), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(lt->write_batch(static_cast<sdk::logsink*>(&sink), nullptr, 2), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sink.writes, 0);

    minimal_transport tr{h};
    const cb_transport_table* tt = sdk::transport::table();
    EXPECT_EQ(tt->enumerate(static_cast<sdk::transport*>(&tr), nullptr, 0, nullptr), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tt->bar_info(static_cast<sdk::transport*>(&tr), nullptr, 0, nullptr), CB_ERR_INVALID_ARGUMENT);

    minimal_gpu gpu{h};
    const cb_gpu_table* gt = sdk::gpu_family::table();
    cb_bool out = 0;
    EXPECT_EQ(gt->claim(static_cast<sdk::gpu_family*>(&gpu), nullptr, &out), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gt->device_count(static_cast<sdk::gpu_family*>(&gpu), nullptr), CB_ERR_INVALID_ARGUMENT);
    char reply[16];
    EXPECT_EQ(gt->control(static_cast<sdk::gpu_family*>(&gpu), nullptr, reply, sizeof reply, nullptr),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(host.errors().empty());
}

TEST(firewall_passthrough, unimplemented_entries_report_unsupported) {
    cudabridge::test::fake_host host;
    sdk::host h(host.services());

    minimal_transport tr{h};
    void* ti = static_cast<sdk::transport*>(&tr);
    const cb_transport_table* tt = sdk::transport::table();
    size_t count = 0;
    EXPECT_EQ(tt->enumerate(ti, nullptr, 0, &count), CB_OK);
    EXPECT_EQ(count, 3u);
    cb_link* link = nullptr;
    EXPECT_EQ(tt->open_link(ti, "x", &link), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(tt->authorize(ti, "x", CB_AUTH_AUTHORIZED, nullptr, 0), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(tt->reset_link(ti, link, CB_RESET_HOT), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(tt->detach_endpoint_model(ti, "x"), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(tt->control(ti, "{}", nullptr, 0, nullptr), CB_ERR_UNSUPPORTED);

    minimal_gpu gpu{h};
    void* gi = static_cast<sdk::gpu_family*>(&gpu);
    const cb_gpu_table* gt = sdk::gpu_family::table();
    uint32_t n = 99;
    EXPECT_EQ(gt->device_count(gi, &n), CB_OK);
    EXPECT_EQ(n, 0u);
    cb_endpoint_info e{};
    e.struct_size = sizeof e;
    e.pci_vendor_id = 0x10de;
    cb_bool claimed = 0;
    EXPECT_EQ(gt->claim(gi, &e, &claimed), CB_OK);
    EXPECT_EQ(claimed, 1);
    EXPECT_EQ(gt->stream_query(gi, nullptr), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(gt->reset(gi, nullptr, CB_RESET_SOFT), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(gt->destroy_endpoint_model(gi, nullptr), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(gt->control(gi, "{\"op\":\"profiles\"}", nullptr, 0, nullptr), CB_ERR_UNSUPPORTED);
    EXPECT_TRUE(host.errors().empty());
}

TEST(firewall_passthrough, tables_are_complete) {
    const cb_logsink_table* l = sdk::logsink::table();
    EXPECT_EQ(l->struct_size, sizeof(cb_logsink_table));
    EXPECT_TRUE(CB_HAS_FIELD(l, cb_logsink_table, write_batch));
    const cb_safety_table* s = sdk::safety_policy::table();
    EXPECT_EQ(s->struct_size, sizeof(cb_safety_table));
    const cb_endpoint_model_table* m = sdk::endpoint_model::table();
    EXPECT_EQ(m->struct_size, sizeof(cb_endpoint_model_table));
    EXPECT_TRUE(CB_HAS_FIELD(m, cb_endpoint_model_table, detach));

    // Every function pointer of the transport and GPU tables is set.
    auto all_set = [](const void* table, size_t size) {
        const char* bytes = static_cast<const char*>(table);
        for (size_t off = sizeof(void*); off + sizeof(void*) <= size; off += sizeof(void*)) {
            void (*fn)(void) = nullptr;
            std::memcpy(&fn, bytes + off, sizeof fn);
            if (fn == nullptr) return false;
        }
        return true;
    };
    const cb_transport_table* t = sdk::transport::table();
    EXPECT_EQ(t->struct_size, sizeof(cb_transport_table));
    EXPECT_TRUE(all_set(t, sizeof *t));
    const cb_gpu_table* g = sdk::gpu_family::table();
    EXPECT_EQ(g->struct_size, sizeof(cb_gpu_table));
    EXPECT_TRUE(all_set(g, sizeof *g));
}
