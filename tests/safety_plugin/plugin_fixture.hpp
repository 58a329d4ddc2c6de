// The safety plugin library loaded through the core registry on a private store in a temporary
// folder, as the host loads it; helpers that call its table.
#pragma once

#include "health_samples.hpp"
#include "temp_dir.hpp"

#include <cudabridge/core/registry.hpp>
#include <cudabridge/core/store.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace cudabridge::test {

class safety_plugin_test : public ::testing::Test {
protected:
    void SetUp() override;

    // A new instance of the named policy (replacing the current one).
    void create(const std::string& name = "standard", const core::config_entries& config = {});

    const cb_safety_table* table() const { return policy->safety(); }
    void* instance() const { return policy->handle(); }

    // Calls through the table; fail the test unless the call returns CB_OK.
    cb_verdict check(const cb_device_facts& facts);
    cb_safety_decision evaluate(const cb_health_history& history);
    cb_safety_decision evaluate(const history& h) { return evaluate(h.view()); }

    temp_dir tmp;
    std::unique_ptr<core::store> database;
    std::unique_ptr<core::registry> reg;
    std::unique_ptr<core::plugin_instance> policy;
};

}  // namespace cudabridge::test
