// The SDK's safety_policy base with its own C table: the same entries behind the same exception
// firewall, but a NULL argument also leaves a last-error message saying which one was missing
// (the SDK's adapters return CB_ERR_INVALID_ARGUMENT without one). descriptor_of<> picks this
// table through base_type.
#pragma once

#include <cudabridge/cpp/kinds.hpp>

namespace cudabridge::plugins::safety {

class null_checked_policy : public sdk::safety_policy {
public:
    using base_type = null_checked_policy;
    using sdk::safety_policy::safety_policy;

    static const cb_safety_table* table();
};

}  // namespace cudabridge::plugins::safety
