/* example_check.h: how the examples stop on an error: every cb* call goes through CB_CHECK,
 * which prints the call, the error's name and text, and the runtime's message saying what
 * failed and why, releases the runtime and exits with status 1. */
#ifndef CUDABRIDGE_EXAMPLE_CHECK_H
#define CUDABRIDGE_EXAMPLE_CHECK_H

#include <cudabridge.h>

#include <stdio.h>
#include <stdlib.h>

static inline void example_fail(const char* call, cbError_t error, const char* file, int line) {
    const char* message = cbGetLastErrorMessage();
    fprintf(stderr, "error: %s failed at %s:%d\n  %s (%s, %d): %s\n", call, file, line, cbGetErrorString(error),
            cbGetErrorName(error), (int)error, message && message[0] ? message : "(no further detail)");
    cbShutdown();
    exit(EXIT_FAILURE);
}

#define CB_CHECK(call)                                                                              \
    do {                                                                                            \
        cbError_t cb_check_error_ = (call);                                                         \
        if (cb_check_error_ != cbSuccess) example_fail(#call, cb_check_error_, __FILE__, __LINE__); \
    } while (0)

/* What the device's timings and link figures are: the simulator's model, or the hardware. */
static inline const char* example_figures_label(const cbDeviceProp* prop) {
    return prop->isSimulated ? "modeled by the simulator" : "measured on the GPU";
}

#endif /* CUDABRIDGE_EXAMPLE_CHECK_H */
