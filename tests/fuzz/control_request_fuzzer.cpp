// The nvidia GPU family's control requests (gpu.h, ABI 1.2): nv::handle_family_control on any
// text, which covers the model request parser (parse_model_request) and, through it, the profile
// parser. A bad request must be refused with sdk::status_error (INVALID_ARGUMENT, NOT_FOUND or
// UNSUPPORTED); any other exception would reach the plugin's firewall as CB_ERR_INTERNAL
// ("unexpected exception"), so it is a finding here. A reply must be JSON.
#include "plugin/family_control.hpp"

#include <cudabridge/cpp/host.hpp>

#include <Poco/Exception.h>
#include <Poco/JSON/Parser.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // The request crosses the C ABI as a C string.
    const char* text = reinterpret_cast<const char*>(data);
    const std::string request(text, strnlen(text, size));
    std::string reply;
    try {
        reply = cudabridge::nv::handle_family_control(request, [] { return std::string("{\"drivers\":{}}"); });
    } catch (const cudabridge::sdk::status_error& e) {
        const cb_status st = e.status();
        if (st != CB_ERR_INVALID_ARGUMENT && st != CB_ERR_NOT_FOUND && st != CB_ERR_UNSUPPORTED) {
            std::fprintf(stderr, "refused with status %d: %s\n", static_cast<int>(st), e.what());
            std::abort();
        }
        return 0;
    }
    try {
        Poco::JSON::Parser().parse(reply);
    } catch (const Poco::Exception& e) {
        std::fprintf(stderr, "the reply is not JSON (%s):\n%s\n", e.displayText().c_str(), reply.c_str());
        std::abort();
    }
    return 0;
}
