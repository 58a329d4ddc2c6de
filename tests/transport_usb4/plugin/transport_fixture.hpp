// A usb4 transport instance created through the registry on a private store, with helpers to
// call its table and its control entry.
#pragma once

#include "fake_host.hpp"
#include "loopback_model.hpp"
#include "temp_dir.hpp"

#include <cudabridge/core/registry.hpp>
#include <cudabridge/core/store.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace cudabridge::test {

inline std::string fixture_root(const std::string& name) {
    return std::string(CB_TEST_SOURCE_DIR) + "/tests/transport_usb4/linux/fixtures/" + name;
}

class usb4_test : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    // A transport instance (backend=sim unless config says otherwise).
    std::unique_ptr<core::plugin_instance> make(core::config_entries config = {});
    const cb_transport_table* t() const { return inst->transport(); }
    void* h() const { return inst->handle(); }

    // control() with a JSON request; returns the reply, or throws with the last error.
    std::string control(const std::string& request, cb_status expect = CB_OK);
    std::vector<cb_endpoint_info> endpoints();
    std::string enclosure_id();  // the default layout's enclosure
    std::string function_id();   // its PCI function
    void attach_loopback();
    // Replaces the layout with the default enclosure on the given host and security level.
    void set_layout(const std::string& host, const std::string& security);
    cb_link* authorize_and_open();

    temp_dir tmp;
    std::unique_ptr<core::store> db;
    std::unique_ptr<core::registry> reg;
    std::unique_ptr<core::plugin_instance> inst;
    fake_host model_host;
    std::unique_ptr<loopback_model> model;
};

}  // namespace cudabridge::test
