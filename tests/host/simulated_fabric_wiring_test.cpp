// Putting a GPU model in every simulated enclosure, against fake transport and family tables:
// models are attached and taken down again, a real failure is reported per enclosure, and an
// entry answering CB_ERR_UNSUPPORTED is absent (the SDK's rule), so it is not a warning.
#include "session/simulated_fabric_wiring.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace cudabridge::test {
namespace {

// Two simulated enclosures, each naming a GPU model, behind a fake transport.
struct fake_fabric {
    cb_status attach_answer = CB_OK;
    std::vector<std::string> attached;
    std::vector<std::string> detached;

    static cb_status control(void*, const char*, char* reply, size_t size, size_t* needed) {
        const char* layout =
            R"({"layout":{"enclosures":[{"id":"e1","gpu_model":"rtx-4090"},{"id":"e2","gpu_model":"rtx-4090"}]}})";
        *needed = std::strlen(layout) + 1;
        if (*needed > size) return CB_ERR_INVALID_ARGUMENT;
        std::memcpy(reply, layout, *needed);
        return CB_OK;
    }
    static cb_status attach(void* self, const char* id, const cb_endpoint_model_table*, void*) {
        auto* f = static_cast<fake_fabric*>(self);
        if (f->attach_answer == CB_OK) f->attached.emplace_back(id);
        return f->attach_answer;
    }
    static cb_status detach(void* self, const char* id) {
        static_cast<fake_fabric*>(self)->detached.emplace_back(id);
        return CB_OK;
    }
    cb_transport_table table() {
        cb_transport_table t{};
        t.struct_size = sizeof t;
        t.attach_endpoint_model = &attach;
        t.detach_endpoint_model = &detach;
        t.control = &control;
        return t;
    }
};

// A GPU family that builds models, or answers every request with `answer`.
struct fake_family {
    cb_status answer = CB_OK;
    int created = 0;
    int destroyed = 0;
    int model = 0;  // what the model handles point at

    static cb_status create(void* self, const char*, void** out, const cb_endpoint_model_table** table) {
        auto* f = static_cast<fake_family*>(self);
        if (f->answer != CB_OK) return f->answer;
        ++f->created;
        *out = &f->model;
        static const cb_endpoint_model_table empty{};
        *table = &empty;
        return CB_OK;
    }
    static cb_status destroy(void* self, void*) {
        ++static_cast<fake_family*>(self)->destroyed;
        return CB_OK;
    }
    cb_gpu_table table() {
        cb_gpu_table t{};
        t.struct_size = sizeof t;
        t.create_endpoint_model = &create;
        t.destroy_endpoint_model = &destroy;
        return t;
    }
};

struct wiring_test : ::testing::Test {
    fake_fabric fabric;
    fake_family family;
    cb_transport_table transport_table{};
    cb_gpu_table gpu_table{};
    std::vector<std::string> warnings;

    size_t wire_and_unwire() {
        transport_table = fabric.table();
        gpu_table = family.table();
        host::simulated_fabric_wiring w(&transport_table, &fabric, &gpu_table, &family,
                                        [&](cb_log_level level, const std::string& text) {
                                            if (level >= CB_LOG_WARN) warnings.push_back(text);
                                        });
        return w.wire();
    }
};

TEST_F(wiring_test, EveryEnclosureGetsAModelAndLosesItAgain) {
    EXPECT_EQ(wire_and_unwire(), 2u);
    EXPECT_EQ(fabric.attached, (std::vector<std::string>{"e1", "e2"}));
    EXPECT_EQ(fabric.detached, (std::vector<std::string>{"e2", "e1"}));
    EXPECT_EQ(family.destroyed, 2);
    EXPECT_TRUE(warnings.empty());
}

TEST_F(wiring_test, AFamilyWithoutModelsIsNotAWarning) {
    family.answer = CB_ERR_UNSUPPORTED;
    EXPECT_EQ(wire_and_unwire(), 0u);
    EXPECT_TRUE(fabric.attached.empty());
    EXPECT_TRUE(warnings.empty()) << warnings.front();
}

TEST_F(wiring_test, ATransportThatHostsNoModelsIsNotAWarningAndTheModelIsDestroyed) {
    fabric.attach_answer = CB_ERR_UNSUPPORTED;
    EXPECT_EQ(wire_and_unwire(), 0u);
    EXPECT_EQ(family.created, 1);  // asked once: absent for every enclosure after that
    EXPECT_EQ(family.destroyed, 1);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
}

TEST_F(wiring_test, AFamilysRealFailureIsReportedForEachEnclosure) {
    family.answer = CB_ERR_NOT_FOUND;
    EXPECT_EQ(wire_and_unwire(), 0u);
    ASSERT_EQ(warnings.size(), 2u);
    EXPECT_NE(warnings[0].find("simulated enclosure e1"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[1].find("simulated enclosure e2"), std::string::npos) << warnings[1];
}

TEST_F(wiring_test, ATransportsRealFailureIsReportedAndTheModelIsDestroyed) {
    fabric.attach_answer = CB_ERR_BUSY;
    EXPECT_EQ(wire_and_unwire(), 0u);
    EXPECT_EQ(warnings.size(), 2u);
    EXPECT_EQ(family.destroyed, family.created);
}

}  // namespace
}  // namespace cudabridge::test
