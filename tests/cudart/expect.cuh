// What the test programs under tests/cudart/ share: EXPECT, which prints the failing line and
// counts it without stopping the program, the verdict at the end, and a kernel that fills an array.
#pragma once

#include <cstdio>

static int failures = 0;
#define EXPECT(cond)                                                    \
    do {                                                                \
        if (!(cond)) {                                                  \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                 \
        }                                                               \
    } while (0)

// The program's exit status: 0 when every EXPECT held.
static int verdict(const char* program) {
    std::printf(failures ? "%s: %d FAILED\n" : "%s: PASS\n", program, failures);
    return failures ? 1 : 0;
}

__global__ void fill(int* p, int n, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = value;
}
