// Where the plugin's error idiom (cb_status + std::string& error, README "Errors") meets the SDK's:
// the backends turn a library call's failure into sdk::status_error, which guard() turns back
// into the status and last-error message at the C ABI.
#pragma once

#include <cudabridge/cpp/host.hpp>

#include <string>

namespace cudabridge::nv {

// Runs `call(error)`; a failure becomes sdk::status_error.
template <class Call>
void run(Call&& call) {
    std::string error;
    if (cb_status st = call(error); st != CB_OK) throw sdk::status_error(st, error);
}

// A completion query: CB_OK is done, CB_ERR_BUSY is not yet, anything else throws.
template <class Query>
bool done(Query&& query) {
    std::string error;
    const cb_status st = query(error);
    if (st == CB_OK) return true;
    if (st == CB_ERR_BUSY) return false;
    throw sdk::status_error(st, error);
}

}  // namespace cudabridge::nv
