#include "sim/ptx/jit.hpp"

#include "sim/ptx/jit_cache.hpp"
#include "sim/ptx/lowering.hpp"
#include "sim/ptx/perf_map.hpp"
#include "sim/ptx/texture_fetch.hpp"

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include <dlfcn.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>

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

// This engine's build: its library file's size and time, so that code an older build made is
// never loaded by a newer one (the lowering, the passes or the helpers' contracts may differ).
const std::string& engine_build() {
    static const std::string build = [] {
        Dl_info info{};
        struct stat st {};
        if (!dladdr(reinterpret_cast<void*>(&engine_build), &info) || !info.dli_fname ||
            ::stat(info.dli_fname, &st) != 0)
            return std::string("unknown");
        return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
               std::to_string(st.st_mtim.tv_nsec);
    }();
    return build;
}

// Everything that decides a kernel's machine code: its IR before optimization, the target
// (triple, CPU, features), LLVM's version and this engine's build; two 64-bit hashes of them.
std::string cache_key(const llvm::Module& ir, const llvm::orc::JITTargetMachineBuilder& jtmb) {
    std::string text;
    llvm::raw_string_ostream os(text);
    ir.print(os, nullptr);
    os << jtmb.getTargetTriple().str() << '\n'
       << jtmb.getCPU() << '\n'
       << jtmb.getFeatures().getString() << '\n'
       << LLVM_VERSION_STRING << '\n'
       << engine_build();
    os.flush();
    const uint64_t first = llvm::xxHash64(text);
    text += "\x01second";
    char key[40];
    std::snprintf(key, sizeof key, "%016llx%016llx", static_cast<unsigned long long>(first),
                  static_cast<unsigned long long>(llvm::xxHash64(text)));
    return key;
}

// Hands what the code generator made to the disk cache under the kernel's key.
class store_in_cache : public llvm::ObjectCache {
public:
    store_in_cache(jit_cache& cache, std::string key) : cache_(cache), key_(std::move(key)) {}
    void notifyObjectCompiled(const llvm::Module*, llvm::MemoryBufferRef object) override {
        cache_.store(key_, std::string_view(object.getBufferStart(), object.getBufferSize()));
    }
    std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module*) override { return nullptr; }

private:
    jit_cache& cache_;
    std::string key_;
};

}  // namespace

bool check_lowering(const module& m, const module_layout& layout, std::string& error) {
    llvm::LLVMContext context;
    return lower_module(context, m, layout, error) != nullptr;
}

struct compiled_kernel::jit {
    std::unique_ptr<store_in_cache> store;             // outlives the compile, which runs at the first lookup
    std::unique_ptr<llvm::JITEventListener> perf_map;  // outlives the JIT that calls it
    std::unique_ptr<llvm::orc::LLJIT> lljit;
};

compiled_kernel::compiled_kernel() : jit_(std::make_unique<jit>()) {}
compiled_kernel::~compiled_kernel() = default;

namespace {

// The engine's helpers by address; libm (tanhf, sinf, ...) from the process.
std::optional<std::string> define_helpers(llvm::orc::LLJIT& j) {
    llvm::orc::JITDylib& lib = j.getMainJITDylib();
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
    if (auto e = lib.define(llvm::orc::absoluteSymbols(std::move(helpers))))
        return "LLVM JIT: " + message(std::move(e));
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(j.getDataLayout().getGlobalPrefix());
    if (!process) return "LLVM JIT: " + message(process.takeError());
    lib.addGenerator(std::move(*process));
    return std::nullopt;
}

// A JIT for this CPU; when `store` is given, what its code generator makes also goes to the disk
// cache.
llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> make_jit(llvm::orc::JITTargetMachineBuilder jtmb,
                                                           store_in_cache* store) {
    llvm::orc::LLJITBuilder builder;
    builder.setJITTargetMachineBuilder(std::move(jtmb));
    if (store)
        builder.setCompileFunctionCreator(
            [store](llvm::orc::JITTargetMachineBuilder b)
                -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                auto tm = b.createTargetMachine();
                if (!tm) return tm.takeError();
                return std::make_unique<llvm::orc::TMOwningSimpleCompiler>(std::move(*tm), store);
            });
    return builder.create();
}

// CUDABRIDGE_PERF_MAP: the JIT's functions go to perf's map, the block function as "ptx:KERNEL".
// The default ORC object layer on Linux (RuntimeDyld) is the one that tells listeners.
void watch_for_perf(llvm::orc::LLJIT& j, std::unique_ptr<llvm::JITEventListener>& listener, const std::string& kernel,
                    const std::string& block_symbol) {
    if (!perf_map_wanted()) return;
    auto* layer = dynamic_cast<llvm::orc::RTDyldObjectLinkingLayer*>(&j.getObjLinkingLayer());
    if (!layer) return;
    listener = make_perf_map_listener([kernel, block_symbol](const std::string& symbol) {
        return symbol == block_symbol ? "ptx:" + kernel : "ptx:" + kernel + ":" + symbol;
    });
    if (listener) layer->registerJITEventListener(*listener);
}

}  // namespace

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

    std::unique_ptr<compiled_kernel> out(new compiled_kernel());
    jit_cache* cache = jit_cache::shared();
    const std::string key = cache ? cache_key(*ir, *jtmb) : std::string();
    std::optional<std::string> cached = cache ? cache->load(key) : std::nullopt;
    if (!cached) {
        optimize(*ir, tm->get());
        // A very large block function took the default register allocator minutes (NVIDIA's
        // cudaTensorCoreGemm: 2048 unrolled wmma.mma, each parking, 875k instructions after
        // -O2, more than 7 minutes); the fast allocator is linear in the code's size (5 s
        // there), for slower code. Corpus kernels stay far below the mark (bitonic_sort1024: 12k).
        if (instruction_count(*ir) > large_function_instructions) jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::None);
        if (cache) out->jit_->store = std::make_unique<store_in_cache>(*cache, key);
    }

    auto built = make_jit(std::move(*jtmb), out->jit_->store.get());
    if (!built) {
        error = "LLVM JIT: " + message(built.takeError());
        return nullptr;
    }
    out->jit_->lljit = std::move(*built);
    llvm::orc::LLJIT& j = *out->jit_->lljit;
    watch_for_perf(j, out->jit_->perf_map, layout.kernels.at(kernel).name, block_function_name(kernel));
    if (auto why = define_helpers(j)) {
        error = *why;
        return nullptr;
    }
    llvm::Error added = cached ? j.addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(*cached))
                               : j.addIRModule(llvm::orc::ThreadSafeModule(std::move(ir), std::move(context)));
    if (added) {
        error = "LLVM JIT: " + message(std::move(added));
        return nullptr;
    }
    auto sym = j.lookup(block_function_name(kernel));
    if (!sym) {
        error = "LLVM JIT: " + message(sym.takeError());
        return nullptr;
    }
    out->function_ = sym->toPtr<block_function>();
    out->from_cache_ = cached.has_value();
    out->compile_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return out;
}

}  // namespace cudabridge::nv::ptx
