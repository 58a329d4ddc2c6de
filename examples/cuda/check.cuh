// What every example does with a CUDA result: stop with the call, the error's name and its text.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), \
                         cudaGetErrorString(e_));                                                       \
            std::exit(1);                                                                               \
        }                                                                                               \
    } while (0)
