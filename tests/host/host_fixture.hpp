// Tests of the host runtime on the simulated fabric: a private database and plugin folder per
// test, the simulated eGPU (an RTX 5090 in a Thunderbolt 4 enclosure unless a test edits the
// layout), and helpers to reach the fabric's control entry (layout edits, fault injection).
#pragma once

#include "temp_dir.hpp"

#include <cudabridge/host/device.hpp>
#include <cudabridge/host/runtime.hpp>
#include <cudabridge/host/session.hpp>

#include <Poco/JSON/Object.h>

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

namespace cudabridge::test {

class host_test : public ::testing::Test {
public:
    // Session options for this test's database; `safety` overrides policy parameters.
    host::session_options session_options(core::config_entries safety = {}) const;
    host::runtime_options runtime_options(core::config_entries safety = {}) const;
    std::unique_ptr<host::session> open_session(core::config_entries safety = {}) const;

    // Edits the stored fabric layout (before a session that should see it is opened).
    void edit_layout(const std::function<void(Poco::JSON::Object::Ptr layout)>& edit) const;
    // A transport control request; the reply (fails the test on error).
    static std::string control(host::session& s, const std::string& request);
    // The default enclosure's id.
    static std::string enclosure_id(host::session& s);
    // Events of a kind in the store, newest first.
    std::vector<core::event_row> events(host::session& s, const std::string& kind) const;

    temp_dir tmp;
};

// Fills `n` floats with a pattern that depends on `seed`.
std::vector<float> pattern(size_t n, float seed);

}  // namespace cudabridge::test
