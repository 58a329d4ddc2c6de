#include "sim/ptx/jit.hpp"

#include "sim/ptx/lowering.hpp"
#include "sim/ptx/texture_fetch.hpp"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>

#include <chrono>
#include <mutex>

namespace cudabridge::nv::ptx {
namespace {

void initialize_llvm_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
    });
}

std::string message(llvm::Error e) {
    std::string s;
    llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase& info) { s += info.message(); });
    return s;
}

// Past this many instructions as lowered, -O2 costs minutes (NVIDIA's cudaTensorCoreGemm: 2048
// unrolled wmma.mma, each parking, 1.8M instructions; LICM alone took 47 s of -O1 on it, -O2
// 91 s); such a function gets the passes that are linear in its size: registers into SSA values,
// common subexpressions, peepholes and a simpler control flow (7 s there). The corpus kernels
// stay far below the mark (bitonic_sort1024: 30k).
constexpr size_t huge_function_instructions = 400000;

size_t instruction_count(const llvm::Module& m) {
    size_t n = 0;
    for (const llvm::Function& f : m) n += f.getInstructionCount();
    return n;
}

void optimize(llvm::Module& m, llvm::TargetMachine* tm) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    if (instruction_count(m) <= huge_function_instructions) {
        pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(m, mam);
        return;
    }
    llvm::ModulePassManager linear;
    if (llvm::Error e = pb.parsePassPipeline(linear, "function(sroa,early-cse<memssa>,instcombine,simplifycfg)"))
        llvm::consumeError(std::move(e));  // a fixed pipeline LLVM 15 knows; unoptimized code still runs
    linear.run(m, mam);
}

// Past this many instructions after -O2, the code generator's fast register allocator.
constexpr size_t large_function_instructions = 40000;

}  // namespace

bool check_lowering(const module& m, const module_layout& layout, std::string& error) {
    llvm::LLVMContext context;
    return lower_module(context, m, layout, error) != nullptr;
}

struct compiled_kernel::jit {
    std::unique_ptr<llvm::orc::LLJIT> lljit;
};

compiled_kernel::compiled_kernel() : jit_(std::make_unique<jit>()) {}
compiled_kernel::~compiled_kernel() = default;

std::unique_ptr<compiled_kernel> compiled_kernel::compile(const module& m, const module_layout& layout, size_t kernel,
                                                          const block_shape* shape, std::string& error) {
    const auto started = std::chrono::steady_clock::now();
    initialize_llvm_once();
    auto context = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::Module> ir = lower_kernel(*context, m, layout, kernel, shape, error);
    if (!ir) return nullptr;

    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) {
        error = "LLVM cannot target this CPU: " + message(jtmb.takeError());
        return nullptr;
    }
    // The IR arrives optimized at -O2; the code generator's cheaper level saves a fifth of the
    // compile time (thread CPU time per corpus module, median 52 -> 41 ms), and the kernels'
    // times in bench/ptx stayed within run-to-run noise.
    jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Less);
    auto tm = jtmb->createTargetMachine();
    if (!tm) {
        error = "LLVM cannot target this CPU: " + message(tm.takeError());
        return nullptr;
    }
    ir->setDataLayout((*tm)->createDataLayout());
    ir->setTargetTriple((*tm)->getTargetTriple().str());
    optimize(*ir, tm->get());
    // A very large block function took the default register allocator minutes (NVIDIA's
    // cudaTensorCoreGemm: 2048 unrolled wmma.mma, each parking, 875k instructions after -O2, more
    // than 7 minutes); the fast allocator is linear in the code's size (5 s there), for slower
    // code. Corpus kernels stay far below the mark (bitonic_sort1024: 12k).
    if (instruction_count(*ir) > large_function_instructions) jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::None);

    auto built = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
    if (!built) {
        error = "LLVM JIT: " + message(built.takeError());
        return nullptr;
    }
    std::unique_ptr<compiled_kernel> out(new compiled_kernel());
    out->jit_->lljit = std::move(*built);
    llvm::orc::LLJIT& j = *out->jit_->lljit;
    llvm::orc::JITDylib& lib = j.getMainJITDylib();
    // The engine's helpers by address; libm (tanhf, sinf, ...) from the process.
    llvm::orc::MangleAndInterner mangle(j.getExecutionSession(), j.getDataLayout());
    llvm::orc::SymbolMap helpers;
    auto add = [&](const char* name, void* fn) {
        helpers[mangle(name)] =
            llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(fn), llvm::JITSymbolFlags::Exported);
    };
    add("cb_ptx_resolve", reinterpret_cast<void*>(&cb_ptx_resolve));
    add("cb_ptx_vprintf", reinterpret_cast<void*>(&cb_ptx_vprintf));
    add("cb_ptx_clock64", reinterpret_cast<void*>(&cb_ptx_clock64));
    add("cb_ptx_trap", reinterpret_cast<void*>(&cb_ptx_trap));
    add("cb_ptx_poll", reinterpret_cast<void*>(&cb_ptx_poll));
    add("cb_ptx_malloc", reinterpret_cast<void*>(&cb_ptx_malloc));
    add("cb_ptx_free", reinterpret_cast<void*>(&cb_ptx_free));
    add("cb_ptx_stack_overflow", reinterpret_cast<void*>(&cb_ptx_stack_overflow));
    add("cb_ptx_assertfail", reinterpret_cast<void*>(&cb_ptx_assertfail));
    add("cb_ptx_fault", reinterpret_cast<void*>(&cb_ptx_fault));
    add("cb_ptx_rounded_f32", reinterpret_cast<void*>(&cb_ptx_rounded_f32));
    add("cb_ptx_rounded_f64", reinterpret_cast<void*>(&cb_ptx_rounded_f64));
    add("cb_ptx_texture", reinterpret_cast<void*>(&cb_ptx_texture));
    add("cb_ptx_parameter_buffer", reinterpret_cast<void*>(&cb_ptx_parameter_buffer));
    add("cb_ptx_launch_device", reinterpret_cast<void*>(&cb_ptx_launch_device));
    add("cb_ptx_memcpy_device", reinterpret_cast<void*>(&cb_ptx_memcpy_device));
    add("cb_ptx_error_string", reinterpret_cast<void*>(&cb_ptx_error_string));
    if (auto e = lib.define(llvm::orc::absoluteSymbols(std::move(helpers)))) {
        error = "LLVM JIT: " + message(std::move(e));
        return nullptr;
    }
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(j.getDataLayout().getGlobalPrefix());
    if (!process) {
        error = "LLVM JIT: " + message(process.takeError());
        return nullptr;
    }
    lib.addGenerator(std::move(*process));
    if (auto e = j.addIRModule(llvm::orc::ThreadSafeModule(std::move(ir), std::move(context)))) {
        error = "LLVM JIT: " + message(std::move(e));
        return nullptr;
    }
    auto sym = j.lookup(block_function_name(kernel));
    if (!sym) {
        error = "LLVM JIT: " + message(sym.takeError());
        return nullptr;
    }
    out->function_ = sym->toPtr<block_function>();
    out->compile_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return out;
}

}  // namespace cudabridge::nv::ptx
