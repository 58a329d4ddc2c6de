// The built-in crc32c on the CPU engine (ISA-L) and the bitwise loop the CUDA kernel compiles,
// against the tests' own non-reflected CRC-32C: the check value, chunk boundaries, odd chunk
// sizes, several MiB, and the argument checks.
#include <gtest/gtest.h>

#include <cstring>

#include "../common/crc32c_reference.hpp"
#include "common/kernels/crc32c.hpp"
#include "common/kernels/crc32c_bitwise.hpp"

using namespace cudabridge::nv::kernels;

namespace {

tensor_view bytes_view(std::vector<uint8_t>& v) {
    tensor_view t = make_view(v.data(), CB_DTYPE_UINT8, {static_cast<int64_t>(v.size())});
    return t;
}

std::vector<int64_t> run(std::vector<uint8_t>& data, int64_t chunk, engine& eng) {
    std::string error;
    std::vector<int64_t> out(static_cast<size_t>(crc32c_chunk_count(static_cast<int64_t>(data.size()), chunk)), -1);
    tensor_view o = make_view(out.data(), CB_DTYPE_INT64, {static_cast<int64_t>(out.size())});
    cb_status s = crc32c(bytes_view(data), chunk, o, error, eng);
    EXPECT_EQ(s, CB_OK) << error;
    return out;
}

}  // namespace

TEST(Crc32c, CheckValue) {
    const char* text = "123456789";
    std::vector<uint8_t> v(text, text + 9);
    EXPECT_EQ(cb_test::crc32c_reference(v.data(), v.size()), 0xE3069283u);  // the reference itself
    EXPECT_EQ(crc32c_of(v.data(), v.size()), 0xE3069283u);
    EXPECT_EQ(~fn::crc32c_raw(0xFFFFFFFFu, v.data(), 9), 0xE3069283u);
    engine eng(2);
    EXPECT_EQ(run(v, 9, eng), std::vector<int64_t>{0xE3069283ll});
    EXPECT_EQ(run(v, 1000, eng), std::vector<int64_t>{0xE3069283ll});
}

TEST(Crc32c, ChunkBoundariesAndOddSizes) {
    engine eng(2);
    for (int64_t chunk : {1, 3, 7, 64, 4095, 4096, 4097}) {
        for (int64_t n : {int64_t{0}, int64_t{1}, chunk - 1, chunk, chunk + 1, 3 * chunk + 5}) {
            if (n < 0) continue;
            auto data = cb_test::test_bytes(static_cast<size_t>(n), static_cast<uint64_t>(chunk * 131 + n));
            EXPECT_EQ(run(data, chunk, eng), cb_test::crc32c_chunks_reference(data, chunk))
                << "n=" << n << " chunk=" << chunk;
        }
    }
}

TEST(Crc32c, SeveralMiBInParallelChunks) {
    engine eng(2);
    auto data = cb_test::test_bytes((5u << 20) + 12345, 7);
    for (int64_t chunk : {int64_t{1} << 20, int64_t{65521}, int64_t{6} << 20})
        EXPECT_EQ(run(data, chunk, eng), cb_test::crc32c_chunks_reference(data, chunk)) << "chunk=" << chunk;
    // The bitwise loop the CUDA kernel runs agrees over the whole buffer.
    EXPECT_EQ(~fn::crc32c_raw(0xFFFFFFFFu, data.data(), static_cast<int64_t>(data.size())),
              cb_test::crc32c_reference(data.data(), data.size()));
}

TEST(Crc32c, RefusesBadArguments) {
    std::string error;
    std::vector<uint8_t> data(10);
    std::vector<int64_t> out(2);
    tensor_view in = bytes_view(data);
    tensor_view o = make_view(out.data(), CB_DTYPE_INT64, {2});
    EXPECT_EQ(crc32c(in, 0, o, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(crc32c(in, -5, o, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(crc32c(in, 3, o, error), CB_ERR_INVALID_ARGUMENT);  // needs 4 outputs
    tensor_view wrong = make_view(out.data(), CB_DTYPE_INT32, {2});
    EXPECT_EQ(crc32c(in, 5, wrong, error), CB_ERR_INVALID_ARGUMENT);
    tensor_view strided = in;
    strided.shape[0] = 5;
    strided.strides[0] = 2;
    EXPECT_EQ(crc32c(strided, 5, make_view(out.data(), CB_DTYPE_INT64, {1}), error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(crc32c(in, 5, o, error), CB_OK);
}
