// The embedded image is a whole, valid fatbin: the fatbinary header (magic 0xBA55ED50, version
// 1, header size, payload size) accounts for every byte, and it equals the file nvcc wrote.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "nvidia_driver/cuda_kernels/embedded_fatbin.hpp"
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

using namespace cudabridge::nv;

TEST(EmbeddedFatbin, HeaderAndSize) {
    const cuda_kernels::embedded_image image = cuda_kernels::builtin_fatbin();
#ifndef CB_TEST_BUILTIN_FATBIN
    EXPECT_EQ(image.size, 0u);
    EXPECT_FALSE(kernel_driver_backend::has_builtin_kernels());
    GTEST_SKIP() << "built without the CUDA toolkit: no fatbin";
#else
    ASSERT_TRUE(kernel_driver_backend::has_builtin_kernels());
    ASSERT_GE(image.size, 16u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(image.data) % 8, 0u) << "the driver reads 64-bit header fields";
    uint32_t magic = 0;
    uint16_t version = 0, header_size = 0;
    uint64_t payload = 0;
    std::memcpy(&magic, image.data, 4);
    std::memcpy(&version, image.data + 4, 2);
    std::memcpy(&header_size, image.data + 6, 2);
    std::memcpy(&payload, image.data + 8, 8);
    EXPECT_EQ(magic, cuda_kernels::k_fatbin_magic);
    EXPECT_EQ(version, 1u);
    EXPECT_EQ(header_size, 16u);
    EXPECT_EQ(header_size + payload, image.size);

    std::ifstream file(CB_TEST_BUILTIN_FATBIN, std::ios::binary);
    ASSERT_TRUE(file) << CB_TEST_BUILTIN_FATBIN;
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.size(), image.size);
    EXPECT_EQ(std::memcmp(bytes.data(), image.data, image.size), 0);
#endif
}
