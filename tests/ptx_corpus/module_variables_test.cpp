// A module's __device__ and __constant__ variables as the host reaches them (cuModuleGetGlobal,
// and under it cudaMemcpyToSymbol / cudaMemcpyFromSymbol / cudaGetSymbolAddress): a device
// address and a size, and copies to and from it that the module's kernels see.
#include "corpus_fixture.hpp"

#include <algorithm>
#include <cmath>

namespace cudabridge::test {
namespace {

class module_variables : public ptx_corpus {
protected:
    cbModule_t load(const std::string& file) {
        const std::string text = ptx_text(file);
        cbModule_t m = nullptr;
        EXPECT_EQ(rt->module_load(&m, text.data(), text.size(), CB_MODULE_PTX), cbSuccess) << cbGetLastErrorMessage();
        return m;
    }
    void* variable(cbModule_t m, const char* name, size_t& bytes) {
        void* at = nullptr;
        EXPECT_EQ(rt->module_global(m, name, &at, &bytes), cbSuccess) << cbGetLastErrorMessage();
        return at;
    }

    // Horner's rule as nvcc compiles it: one fused multiply-add a step.
    static float horner(const float c[4], float v) {
        return std::fma(v, std::fma(v, std::fma(v, c[3], c[2]), c[1]), c[0]);
    }
};

TEST_F(module_variables, AConstantTableStartsAsTheSourceInitializedIt) {
    cbModule_t m = load("constant_table.ptx");
    size_t bytes = 0;
    void* coeffs = variable(m, "coeffs", bytes);
    ASSERT_EQ(bytes, 16u);
    EXPECT_EQ(download<float>(coeffs, 4), (std::vector<float>{0.5f, -1.25f, 2.0f, 0.125f}));
}

TEST_F(module_variables, ACopyIntoAConstantTableIsWhatTheKernelReadsNext) {
    cbModule_t m = load("constant_table.ptx");
    size_t bytes = 0;
    void* coeffs = variable(m, "coeffs", bytes);
    const float mine[4] = {1.0f, 2.0f, -0.5f, 0.25f};
    ASSERT_EQ(rt->memcpy(coeffs, mine, sizeof mine, cbMemcpyHostToDevice, nullptr, false), cbSuccess)
        << cbGetLastErrorMessage();
    const size_t n = 1000;
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = spread(i, -3.0f, 3.0f);
    void* dx = upload(x);
    void* dy = device_alloc(n * 4);
    ASSERT_EQ(run(m, "poly_eval", {blocks_for(n, 128), 1, 1}, {128, 1, 1},
                  {cbArgPointer(dx), cbArgPointer(dy), cbArgInt(static_cast<int64_t>(n))}),
              cbSuccess)
        << cbGetLastErrorMessage();
    const auto y = download<float>(dy, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], horner(mine, x[i])) << i;
}

TEST_F(module_variables, ADeviceVariableKeepsWhatKernelsLeaveAndTheHostCanSetIt) {
    cbModule_t m = load("device_globals.ptx");
    size_t bytes = 0;
    void* ticket = variable(m, "next_ticket", bytes);
    ASSERT_EQ(bytes, 4u);
    const size_t n = 300;
    void* tickets = device_alloc(n * 4);
    void* biased = device_alloc(n * 4);
    const std::vector<cbKernelArg> args = {cbArgPointer(tickets), cbArgPointer(biased),
                                           cbArgInt(static_cast<int64_t>(n))};
    ASSERT_EQ(run(m, "take_tickets", {3, 1, 1}, {128, 1, 1}, args), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(download<uint32_t>(ticket, 1)[0], n) << "every thread took one ticket";

    const uint32_t start = 5000;
    ASSERT_EQ(rt->memcpy(ticket, &start, 4, cbMemcpyHostToDevice, nullptr, false), cbSuccess);
    ASSERT_EQ(run(m, "take_tickets", {3, 1, 1}, {128, 1, 1}, args), cbSuccess) << cbGetLastErrorMessage();
    auto taken = download<uint32_t>(tickets, n);
    std::sort(taken.begin(), taken.end());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(taken[i], start + i) << i;
    EXPECT_EQ(download<uint32_t>(ticket, 1)[0], start + n);
}

TEST_F(module_variables, EachLoadOfAModuleHasItsOwnVariables) {
    cbModule_t a = load("device_globals.ptx");
    cbModule_t b = load("device_globals.ptx");
    size_t bytes = 0;
    void* ta = variable(a, "next_ticket", bytes);
    void* tb = variable(b, "next_ticket", bytes);
    EXPECT_NE(ta, tb);
    const uint32_t seven = 7;
    ASSERT_EQ(rt->memcpy(ta, &seven, 4, cbMemcpyHostToDevice, nullptr, false), cbSuccess);
    EXPECT_EQ(download<uint32_t>(tb, 1)[0], 0u);
}

TEST_F(module_variables, AnUnknownNameIsNotFoundAndSaysWhichName) {
    cbModule_t m = load("constant_table.ptx");
    void* at = nullptr;
    size_t bytes = 0;
    EXPECT_EQ(rt->module_global(m, "no_such_table", &at, &bytes), cbErrorNotFound);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("no_such_table"), std::string::npos) << cbGetLastErrorMessage();
    EXPECT_EQ(rt->module_global(m, "poly_eval", &at, &bytes), cbErrorNotFound) << "a kernel is not a variable";
}

TEST_F(module_variables, ACopyPastTheVariablesEndIsRefused) {
    cbModule_t m = load("constant_table.ptx");
    size_t bytes = 0;
    auto* coeffs = static_cast<char*>(variable(m, "coeffs", bytes));
    const float two[2] = {1.0f, 2.0f};
    EXPECT_EQ(rt->memcpy(coeffs + bytes - 4, two, sizeof two, cbMemcpyHostToDevice, nullptr, false),
              cbErrorInvalidValue);
    EXPECT_EQ(rt->memcpy(coeffs + bytes - 8, two, sizeof two, cbMemcpyHostToDevice, nullptr, false), cbSuccess)
        << cbGetLastErrorMessage();
}

TEST_F(module_variables, AfterUnloadTheVariablesAreNoLongerDeviceMemory) {
    cbModule_t m = load("constant_table.ptx");
    size_t bytes = 0;
    void* coeffs = variable(m, "coeffs", bytes);
    ASSERT_EQ(rt->module_unload(m), cbSuccess);
    float back[4];
    EXPECT_EQ(rt->memcpy(back, coeffs, sizeof back, cbMemcpyDeviceToHost, nullptr, false), cbErrorInvalidValue);
}

}  // namespace
}  // namespace cudabridge::test
