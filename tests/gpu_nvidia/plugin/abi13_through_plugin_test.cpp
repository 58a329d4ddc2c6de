// ABI 1.3 through the plugin on the simulated GPU (usb4 transport + nvidia family from the
// registry): the built-in crc32c against the tests' own CRC-32C, host kernels (a vector add, a
// kernel fault, refused images and formats), pinned host memory with the link's mapping counters
// read through the transport's {"op":"links"}, and stream_wait_event's checks.
#include "gpu_fixture.hpp"

#include "../common/crc32c_reference.hpp"
#include "../userspace/test_kernels.hpp"

#include <cudabridge/core/error.hpp>

#include <string>
#include <vector>

namespace cudabridge::test {
namespace {

namespace tk = cb_test_kernels;

class nvidia_abi13 : public gpu_test {
protected:
    void SetUp() override {
        gpu_test::SetUp();
        bring_up();
    }

    // The open link's current IOMMU mappings, from the transport's control entry.
    uint64_t link_mappings() {
        std::string reply(1 << 16, '\0');
        size_t needed = 0;
        EXPECT_EQ(t()->control(th(), R"({"op":"links"})", reply.data(), reply.size(), &needed), CB_OK)
            << core::last_error();
        const std::string key = "\"mappings\":";
        const size_t at = reply.find(key);
        EXPECT_NE(at, std::string::npos) << reply.c_str();
        return at == std::string::npos ? ~uint64_t{0} : std::stoull(reply.substr(at + key.size()));
    }

    cb_gpu_module* load_test_module() {
        const cb_host_kernel_module image = tk::module();
        cb_gpu_module* m = nullptr;
        char log[256] = {};
        EXPECT_EQ(g()->module_load(gh(), dev, &image, sizeof image, CB_MODULE_HOST_KERNELS, &m, log, sizeof log), CB_OK)
            << core::last_error();
        return m;
    }

    // The built-in crc32c of `data` (uploaded to `in`) in chunks of `chunk`, read back from `out`.
    std::vector<int64_t> crc_on_gpu(const std::vector<uint8_t>& data, int64_t chunk, uint64_t in, uint64_t out) {
        const auto n = static_cast<int64_t>(data.size());
        const int64_t chunks = n / chunk + (n % chunk != 0 ? 1 : 0);
        if (n > 0) upload(in, data.data(), data.size());
        const auto tin = sdk::contiguous_tensor(in, CB_DTYPE_UINT8, {n});
        const auto tout = sdk::contiguous_tensor(out, CB_DTYPE_INT64, {chunks});
        const std::vector<cb_kernel_arg> args = {sdk::tensor_arg(tin), sdk::tensor_arg(tout), sdk::int64_arg(chunk)};
        const cb_kernel_launch launch = sdk::builtin_launch("crc32c", CB_DTYPE_INT64, args);
        EXPECT_EQ(g()->launch_builtin(gh(), dev, &launch, nullptr), CB_OK) << core::last_error();
        std::vector<int64_t> crcs(static_cast<size_t>(chunks));
        if (chunks > 0) download(crcs.data(), out, crcs.size() * sizeof(int64_t));
        return crcs;
    }
};

TEST_F(nvidia_abi13, Crc32cMatchesAnIndependentCrcOnTheSimulatedGpu) {
    const size_t max_bytes = (3u << 20) + 7;
    const uint64_t in = alloc(max_bytes), out = alloc(1 << 16);
    const std::vector<uint8_t> check = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    EXPECT_EQ(crc_on_gpu(check, 9, in, out), std::vector<int64_t>{0xE3069283ll});
    for (int64_t chunk : {int64_t{4097}, int64_t{1} << 20}) {
        for (int64_t n : {int64_t{0}, int64_t{1}, chunk - 1, chunk, chunk + 1, int64_t(max_bytes)}) {
            const auto data = cb_test::test_bytes(static_cast<size_t>(n), static_cast<uint64_t>(n + chunk));
            EXPECT_EQ(crc_on_gpu(data, chunk, in, out), cb_test::crc32c_chunks_reference(data, chunk))
                << "n=" << n << " chunk=" << chunk;
        }
    }
    // A chunk of 0 is refused with its reason.
    const auto tin = sdk::contiguous_tensor(in, CB_DTYPE_UINT8, {16});
    const auto tout = sdk::contiguous_tensor(out, CB_DTYPE_INT64, {1});
    const std::vector<cb_kernel_arg> bad = {sdk::tensor_arg(tin), sdk::tensor_arg(tout), sdk::int64_arg(0)};
    const cb_kernel_launch launch = sdk::builtin_launch("crc32c", CB_DTYPE_INT64, bad);
    EXPECT_EQ(g()->launch_builtin(gh(), dev, &launch, nullptr), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(core::last_error().find("chunk"), std::string::npos) << core::last_error();
}

TEST_F(nvidia_abi13, HostKernelsRunOnTheSimulatedGpu) {
    cb_gpu_module* m = load_test_module();
    ASSERT_NE(m, nullptr);
    const int64_t n = 5000;
    std::vector<float> a(n), b(n), c(n);
    for (int64_t i = 0; i < n; ++i) {
        a[static_cast<size_t>(i)] = static_cast<float>(i);
        b[static_cast<size_t>(i)] = 0.5f * static_cast<float>(i % 17);
    }
    const uint64_t da = alloc(n * 4), db = alloc(n * 4), dc = alloc(n * 4);
    upload(da, a.data(), n * 4);
    upload(db, b.data(), n * 4);
    std::vector<cb_kernel_arg> args(4);
    for (int i = 0; i < 3; ++i) args[static_cast<size_t>(i)].type = CB_ARG_DEVICE_PTR;
    args[0].value.device_ptr = da;
    args[1].value.device_ptr = db;
    args[2].value.device_ptr = dc;
    args[3] = sdk::int64_arg(n);
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = "vector_add";
    l.grid[0] = static_cast<uint32_t>((n + 127) / 128);
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = 128;
    l.block[1] = l.block[2] = 1;
    l.args = args.data();
    l.arg_count = args.size();
    cb_gpu_stream* s = nullptr;
    ASSERT_EQ(g()->stream_create(gh(), dev, &s), CB_OK);
    ASSERT_EQ(g()->launch_kernel(gh(), m, &l, s), CB_OK) << core::last_error();
    ASSERT_EQ(g()->stream_synchronize(gh(), s), CB_OK) << core::last_error();
    download(c.data(), dc, n * 4);
    for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;

    // A kernel fault: the launch is queued, the stream's synchronize reports it.
    cb_kernel_launch f = l;
    f.name = "fail_in_block_3";
    f.arg_count = 0;
    f.grid[0] = 6;
    ASSERT_EQ(g()->launch_kernel(gh(), m, &f, s), CB_OK) << core::last_error();
    EXPECT_EQ(g()->stream_synchronize(gh(), s), CB_ERR_INTERNAL);
    EXPECT_NE(core::last_error().find("fail_in_block_3"), std::string::npos) << core::last_error();
    EXPECT_NE(core::last_error().find("CB_ERR_INVALID_ARGUMENT"), std::string::npos) << core::last_error();

    // Unknown symbol, a pointer outside every allocation.
    cb_kernel_launch unknown = l;
    unknown.name = "nope";
    EXPECT_EQ(g()->launch_kernel(gh(), m, &unknown, nullptr), CB_ERR_NOT_FOUND);
    args[2].value.device_ptr = dc + n * 4;
    EXPECT_EQ(g()->launch_kernel(gh(), m, &l, nullptr), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->module_unload(gh(), m), CB_OK) << core::last_error();
    EXPECT_EQ(g()->launch_kernel(gh(), m, &l, nullptr), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->stream_destroy(gh(), s), CB_OK);
}

TEST_F(nvidia_abi13, BadModuleImagesAndOtherFormatsAreRefused) {
    cb_gpu_module* m = nullptr;
    const cb_host_kernel unnamed[] = {{nullptr, &tk::vector_add}};
    cb_host_kernel_module image{};
    image.struct_size = sizeof image;
    image.kernels = unnamed;
    image.kernel_count = 1;
    EXPECT_EQ(g()->module_load(gh(), dev, &image, sizeof image, CB_MODULE_HOST_KERNELS, &m, nullptr, 0),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(core::last_error().find("no name"), std::string::npos) << core::last_error();
    EXPECT_EQ(m, nullptr);
    const char ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n";
    EXPECT_EQ(g()->module_load(gh(), dev, ptx, sizeof ptx, CB_MODULE_PTX, &m, nullptr, 0), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(core::last_error().find("no kernel"), std::string::npos) << core::last_error();
    const char cubin[] =
        "\x7f"
        "ELF\2\1\1";
    EXPECT_EQ(g()->module_load(gh(), dev, cubin, sizeof cubin, CB_MODULE_CUBIN, &m, nullptr, 0), CB_ERR_UNSUPPORTED);
    EXPECT_NE(core::last_error().find("code=compute_"), std::string::npos) << core::last_error();
    EXPECT_EQ(m, nullptr);
}

TEST_F(nvidia_abi13, PinnedCopiesAndNoMappingLeftAfterClose) {
    const size_t n = 2u << 20;
    const auto src = cb_test::test_bytes(n, 3);
    std::vector<uint8_t> pinned_src = src, pinned_dst(n);
    const uint64_t before = link_mappings();
    ASSERT_EQ(g()->host_register(gh(), dev, pinned_src.data(), n), CB_OK) << core::last_error();
    ASSERT_EQ(g()->host_register(gh(), dev, pinned_dst.data(), n), CB_OK) << core::last_error();
    EXPECT_EQ(link_mappings(), before + 2);
    EXPECT_EQ(g()->host_register(gh(), dev, pinned_src.data() + 100, 10), CB_ERR_INVALID_ARGUMENT);
    const uint64_t d = alloc(n);
    cb_gpu_stream* s = nullptr;
    ASSERT_EQ(g()->stream_create(gh(), dev, &s), CB_OK);
    ASSERT_EQ(g()->memcpy_h2d(gh(), dev, d, pinned_src.data(), n, s), CB_OK) << core::last_error();
    ASSERT_EQ(g()->memcpy_d2h(gh(), dev, pinned_dst.data(), d, n, s), CB_OK) << core::last_error();
    ASSERT_EQ(g()->stream_synchronize(gh(), s), CB_OK) << core::last_error();
    EXPECT_EQ(pinned_dst, src);
    ASSERT_EQ(g()->host_unregister(gh(), dev, pinned_src.data()), CB_OK) << core::last_error();
    EXPECT_EQ(g()->host_unregister(gh(), dev, pinned_src.data()), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(link_mappings(), before + 1);
    // Closing the device with a registration left: nothing stays mapped on the link.
    ASSERT_EQ(g()->close_device(gh(), dev), CB_OK) << core::last_error();
    dev = nullptr;
    EXPECT_EQ(link_mappings(), 0u);
}

TEST_F(nvidia_abi13, StreamWaitEventChecksItsHandles) {
    cb_gpu_stream* s = nullptr;
    cb_gpu_event* e = nullptr;
    ASSERT_EQ(g()->stream_create(gh(), dev, &s), CB_OK);
    ASSERT_EQ(g()->event_create(gh(), dev, &e), CB_OK);
    ASSERT_EQ(g()->event_record(gh(), e, nullptr), CB_OK);
    EXPECT_EQ(g()->stream_wait_event(gh(), s, e), CB_OK) << core::last_error();
    EXPECT_EQ(g()->stream_wait_event(gh(), nullptr, e), CB_OK) << core::last_error();
    EXPECT_EQ(g()->stream_wait_event(gh(), s, nullptr), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->stream_wait_event(gh(), s, reinterpret_cast<cb_gpu_event*>(s)), CB_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(g()->event_destroy(gh(), e), CB_OK);
    EXPECT_EQ(g()->stream_wait_event(gh(), s, e), CB_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(g()->stream_destroy(gh(), s), CB_OK);
}

}  // namespace
}  // namespace cudabridge::test
