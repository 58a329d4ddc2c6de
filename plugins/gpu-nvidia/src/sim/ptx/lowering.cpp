// PTX to LLVM IR. PTX registers become allocas of their width (promoted to SSA by mem2reg), so
// PTX's weak typing is a bitcast at each use. A kernel's body sits inside a loop over the block's
// threads (abi.hpp); an instruction that parks a thread saves the registers live after it
// (liveness.hpp) to the thread's record and continues with the next thread, and a resume point
// restores them, computing recomputable ones (recomputable.hpp) again instead. A kernel in
// straight regions (barrier_regions.hpp) is instead one loop over the threads per region. Memory
// accesses translate device, shared, local and const addresses to host ones with a range check:
// a fault raises the launch's fault and ends the thread instead of touching host memory.
#include "sim/ptx/lowering.hpp"

#include "sim/ptx/abi.hpp"
#include "sim/ptx/device_heap.hpp"
#include "sim/ptx/device_launch.hpp"
#include "sim/ptx/matrix.hpp"
#include "sim/ptx/parser.hpp"
#include "sim/ptx/simd_video.hpp"
#include "sim/ptx/texture_fetch.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>

namespace cudabridge::nv::ptx {
namespace {

using llvm::BasicBlock;
using llvm::Value;

struct lowering_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

operand named(operand::kind k, const std::string& name) {
    operand o;
    o.k = k;
    o.name = name;
    return o;
}

std::string opcode_text(const instruction& in) {
    std::string s = in.opcode;
    for (const auto& m : in.mods) s += "." + m;
    return s;
}

[[noreturn]] void refuse(const instruction& in, const std::string& why) {
    throw lowering_error("line " + std::to_string(in.line) + ": '" + opcode_text(in) + "': " + why);
}

// The instruction's types, in order (cvt has two: destination, then source).
std::vector<scalar_type> types_of(const instruction& in) {
    std::vector<scalar_type> t;
    for (const auto& m : in.mods)
        if (auto st = type_from_word(m); st.valid()) t.push_back(st);
    return t;
}

space space_of(const instruction& in) {
    for (const auto& m : in.mods) {
        if (m == "global") return space::global;
        if (m == "shared" || m == "shared::cta" || m == "shared::cluster") return space::shared;
        if (m == "local") return space::local;
        if (m == "const") return space::constant;
        if (m == "param") return space::param;
    }
    return space::generic;
}

int vector_width(const instruction& in) {
    for (const auto& m : in.mods)
        if (m == "v2")
            return 2;
        else if (m == "v4")
            return 4;
        else if (m == "v8")
            return 8;
    return 1;
}

struct reg_slot {
    Value* slot = nullptr;  // an alloca, or the thread record's save slot in kernels that park
    int bits = 0;
    uint32_t index = 0;
};

class function_lowering;

// Module-wide state: the LLVM module, helper declarations, the layouts.
struct module_context {
    llvm::LLVMContext& ctx;
    llvm::Module& mod;
    const module& ptx;
    const module_layout& layout;
    llvm::Type* i1;
    llvm::Type* i8;
    llvm::Type* i16;
    llvm::Type* i32;
    llvm::Type* i64;
    llvm::Type* ptr;
    llvm::FunctionCallee resolve, vprintf, clock64, trap, assertfail, fault, poll, rounded_f32, rounded_f64, texture;
    llvm::FunctionCallee heap_malloc, heap_free, stack_overflow;
    llvm::FunctionCallee parameter_buffer, launch_device, memcpy_device, error_string;
    std::map<std::string, llvm::Function*> funcs;  // per kernel: "kernel/func"
    const block_shape* shape = nullptr;            // lowering for one launch shape (lower_kernel)

    module_context(llvm::LLVMContext& c, llvm::Module& m, const module& p, const module_layout& l)
        : ctx(c), mod(m), ptx(p), layout(l) {
        i1 = llvm::Type::getInt1Ty(c);
        i8 = llvm::Type::getInt8Ty(c);
        i16 = llvm::Type::getInt16Ty(c);
        i32 = llvm::Type::getInt32Ty(c);
        i64 = llvm::Type::getInt64Ty(c);
        ptr = llvm::PointerType::get(c, 0);
        auto* vd = llvm::Type::getVoidTy(c);
        resolve =
            m.getOrInsertFunction("cb_ptx_resolve", llvm::FunctionType::get(ptr, {ptr, ptr, i64, i32, i32}, false));
        vprintf = m.getOrInsertFunction("cb_ptx_vprintf", llvm::FunctionType::get(i32, {ptr, ptr, i64, i64}, false));
        clock64 = m.getOrInsertFunction("cb_ptx_clock64", llvm::FunctionType::get(i64, {ptr}, false));
        trap = m.getOrInsertFunction("cb_ptx_trap", llvm::FunctionType::get(vd, {ptr}, false));
        assertfail = m.getOrInsertFunction(
            "cb_ptx_assertfail", llvm::FunctionType::get(vd, {ptr, ptr, i64, i64, i32, i64, i32, i32, i32}, false));
        fault = m.getOrInsertFunction("cb_ptx_fault", llvm::FunctionType::get(vd, {ptr, i64, i32}, false));
        poll = m.getOrInsertFunction("cb_ptx_poll", llvm::FunctionType::get(i32, {ptr}, false));
        heap_malloc = m.getOrInsertFunction("cb_ptx_malloc", llvm::FunctionType::get(i64, {ptr, i64}, false));
        heap_free = m.getOrInsertFunction("cb_ptx_free", llvm::FunctionType::get(i32, {ptr, i64}, false));
        stack_overflow = m.getOrInsertFunction("cb_ptx_stack_overflow", llvm::FunctionType::get(vd, {ptr, i64}, false));
        parameter_buffer =
            m.getOrInsertFunction("cb_ptx_parameter_buffer",
                                  llvm::FunctionType::get(i64, {ptr, i64, i32, i32, i32, i32, i32, i32, i32}, false));
        launch_device =
            m.getOrInsertFunction("cb_ptx_launch_device", llvm::FunctionType::get(i32, {ptr, i64, i64}, false));
        memcpy_device = m.getOrInsertFunction("cb_ptx_memcpy_device",
                                              llvm::FunctionType::get(i32, {ptr, i64, i64, i64, i32}, false));
        error_string = m.getOrInsertFunction("cb_ptx_error_string", llvm::FunctionType::get(i64, {ptr, i32}, false));
        texture =
            m.getOrInsertFunction("cb_ptx_texture", llvm::FunctionType::get(vd, {ptr, ptr, i32, i64, ptr, ptr}, false));
        // Pure: the rounding mode is the helper's own for one operation (LLVM may hoist and merge).
        llvm::AttrBuilder pure(c);
        pure.addAttribute(llvm::Attribute::ReadNone);
        pure.addAttribute(llvm::Attribute::NoUnwind);
        pure.addAttribute(llvm::Attribute::WillReturn);
        const auto pure_list = llvm::AttributeList::get(c, llvm::AttributeList::FunctionIndex, pure);
        auto* f = llvm::Type::getFloatTy(c);
        auto* d = llvm::Type::getDoubleTy(c);
        rounded_f32 = m.getOrInsertFunction("cb_ptx_rounded_f32",
                                            llvm::FunctionType::get(f, {i32, i32, f, f, f}, false), pure_list);
        rounded_f64 = m.getOrInsertFunction("cb_ptx_rounded_f64",
                                            llvm::FunctionType::get(d, {i32, i32, d, d, d}, false), pure_list);
    }
    llvm::Type* int_type(int bits) const { return llvm::Type::getIntNTy(ctx, static_cast<unsigned>(bits)); }
    llvm::Type* llvm_type(scalar_type t) const {
        if (t.k == scalar_type::kind::pred) return i1;
        if (t.is_float()) {
            if (t.bits == 16) return llvm::Type::getHalfTy(ctx);
            if (t.bits == 32) return llvm::Type::getFloatTy(ctx);
            return llvm::Type::getDoubleTy(ctx);
        }
        return int_type(t.bits);
    }
};

class function_lowering {
public:
    function_lowering(module_context& mc, const function& f, const kernel_layout& kl, bool is_kernel)
        : mc_(mc), f_(f), kl_(kl), kernel_(is_kernel), b_(mc.ctx) {}

    llvm::Function* lower(const std::string& symbol) {
        create_function(symbol);
        declare_registers();
        declare_call_params();
        create_labels();
        if (kernel_)
            open_thread_loop();
        else
            open_function_body();
        for (current_index_ = 0; current_index_ < f_.body.size(); ++current_index_)
            lower_statement(f_.body[current_index_]);
        close_body();
        return fn_;
    }

    llvm::Function* declare(const std::string& symbol) {
        create_function(symbol);
        return fn_;
    }

private:
    module_context& mc_;
    const function& f_;
    const kernel_layout& kl_;
    bool kernel_;
    llvm::IRBuilder<> b_;
    llvm::Function* fn_ = nullptr;
    Value* env_ = nullptr;
    Value* states_ = nullptr;
    Value* stride_ = nullptr;
    Value* nthreads_ = nullptr;
    Value* state_ = nullptr;       // the current thread's record
    Value* frame_base_ = nullptr;  // local-space offset of this function's depot
    Value* release_ = nullptr;     // block_env::release_barrier, read once per pass
    std::map<std::string, reg_slot> regs_;
    std::map<std::string, llvm::AllocaInst*> call_params_;  // .param in call blocks
    std::map<std::string, Value*> func_params_;             // a .func's own parameters and returns
    std::map<std::string, BasicBlock*> labels_;
    std::map<std::string, size_t> label_at_;      // each label's index in the body: a branch back is a loop
    llvm::AllocaInst* poll_countdown_ = nullptr;  // back-edges left before the next cb_ptx_poll
    llvm::AllocaInst* executed_ = nullptr;
    bool system_atomic_ = false;         // the address being lowered is a system-scope atomic's
    llvm::AllocaInst* carry_ = nullptr;  // CC.CF of carry chains (add.cc, addc, ...), made when first used
    llvm::AllocaInst* bytes_ = nullptr;
    llvm::AllocaInst* parked_at_barrier_ = nullptr;  // threads this pass parked, for block_env
    llvm::AllocaInst* parked_at_warp_op_ = nullptr;
    BasicBlock* latch_ = nullptr;
    BasicBlock* done_ = nullptr;
    BasicBlock* dead_ = nullptr;  // the thread ends after a fault
    BasicBlock* first_ = nullptr;
    llvm::SwitchInst* dispatch_ = nullptr;
    std::map<std::pair<size_t, llvm::Type*>, Value*> env_cache_;  // env_field's loads, in env_home_
    BasicBlock* env_home_ = nullptr;                              // the region's first block, or entry
    static constexpr int64_t n_max = 1024;                        // threads per block at most: larger bounds are none
    size_t region_ = 0;                                           // straight regions: the one being lowered, from 1
    BasicBlock* region_exit_ = nullptr;                           // where its loop over the threads leaves
    uint32_t resume_points_ = 0;
    size_t current_index_ = 0;                      // the instruction being lowered, by its index in the body
    Value* tid_ = nullptr;                          // the thread's index in the block
    Value* tidx_[3] = {nullptr, nullptr, nullptr};  // kernels that never park: %tid as loop values

    // ---- structure ---------------------------------------------------------------------------

    void create_function(const std::string& symbol) {
        if (fn_) return;
        llvm::FunctionType* type;
        if (kernel_) {
            type = llvm::FunctionType::get(llvm::Type::getVoidTy(mc_.ctx), {mc_.ptr, mc_.ptr, mc_.i64, mc_.i32}, false);
        } else {
            // (env, state, frame base, return buffers..., parameter buffers...) -> faulted
            std::vector<llvm::Type*> args = {mc_.ptr, mc_.ptr, mc_.i64};
            for (size_t i = 0; i < f_.returns.size() + f_.params.size(); ++i) args.push_back(mc_.ptr);
            type = llvm::FunctionType::get(mc_.i1, args, false);
        }
        fn_ = llvm::Function::Create(type, kernel_ ? llvm::Function::ExternalLinkage : llvm::Function::InternalLinkage,
                                     symbol, mc_.mod);
        fn_->addFnAttr(llvm::Attribute::NoUnwind);
    }

    llvm::AllocaInst* entry_alloca(llvm::Type* t, const std::string& name, uint64_t count = 0) {
        llvm::IRBuilder<> eb(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
        auto* a = eb.CreateAlloca(t, count ? llvm::ConstantInt::get(mc_.i64, count) : nullptr, name);
        if (count) a->setAlignment(llvm::Align(16));
        return a;
    }

    void declare_registers() {
        b_.SetInsertPoint(BasicBlock::Create(mc_.ctx, "entry", fn_));
        uint32_t index = 0;
        auto add = [&](const std::string& name, const variable& v) {
            if (regs_.count(name)) return;
            reg_slot r;
            r.bits = v.type.k == scalar_type::kind::pred ? 1 : v.type.bits;
            r.slot = entry_alloca(mc_.int_type(r.bits), name);
            r.index = index++;
            regs_[name] = r;
        };
        for (const auto& v : f_.locals) {
            if (v.where != space::reg) continue;
            if (v.vector_width != 1)
                throw lowering_error("line " + std::to_string(v.line) + ": vector registers are not supported");
            if (v.reg_count >= 0)
                for (int i = 0; i < v.reg_count; ++i) add(v.name + std::to_string(i), v);
            else
                add(v.name, v);
        }
        executed_ = entry_alloca(mc_.i64, "executed");
        bytes_ = entry_alloca(mc_.i64, "bytes");
        parked_at_barrier_ = entry_alloca(mc_.i32, "parked.barrier");
        parked_at_warp_op_ = entry_alloca(mc_.i32, "parked.warp");
        poll_countdown_ = entry_alloca(mc_.i32, "poll.countdown");
        b_.CreateStore(b_.getInt32(poll_period), poll_countdown_);
        b_.CreateStore(b_.getInt64(0), executed_);
        b_.CreateStore(b_.getInt64(0), bytes_);
        b_.CreateStore(b_.getInt32(0), parked_at_barrier_);
        b_.CreateStore(b_.getInt32(0), parked_at_warp_op_);
    }

    void declare_call_params() {
        std::map<std::string, uint64_t> sizes;
        for (const auto& v : f_.locals)
            if (v.where == space::param)
                sizes[v.name] = std::max<uint64_t>(sizes[v.name], std::max<uint64_t>(v.size_bytes(), 8));
        for (const auto& [name, size] : sizes) call_params_[name] = entry_alloca(mc_.i8, name, (size + 15) / 16 * 16);
    }

    void create_labels() {
        for (size_t i = 0; i < f_.body.size(); ++i) {
            const instruction& in = f_.body[i];
            if (in.label.empty()) continue;
            labels_[in.label] = BasicBlock::Create(mc_.ctx, in.label, fn_);
            label_at_[in.label] = i;
        }
    }

    Value* env_field(size_t offset, llvm::Type* t) {
        if (Value* known = shape_constant(offset, t)) return known;
        if (!constant_during_call(offset)) return b_.CreateLoad(t, b_.CreateConstInBoundsGEP1_64(mc_.i8, env_, offset));
        // Read once, in the entry block: LLVM cannot tell the kernel's stores from the
        // environment, so a load in the loop over the threads would be repeated after each store.
        // In straight regions, once per region: a value live across them all would take a
        // register in every loop.
        Value*& cached = env_cache_[{offset, t}];
        if (!cached) {
            BasicBlock* home = env_home_ ? env_home_ : &fn_->getEntryBlock();
            llvm::IRBuilder<> eb(home);
            if (home->getTerminator()) eb.SetInsertPoint(home->getTerminator());
            cached = eb.CreateLoad(t, eb.CreateConstInBoundsGEP1_64(mc_.i8, env_, offset));
        }
        return cached;
    }

    // %ntid and the shared window when lowering for one shape; null otherwise.
    Value* shape_constant(size_t offset, llvm::Type* t) const {
        const block_shape* s = mc_.shape;
        if (!s) return nullptr;
        const size_t ntid = offsetof(block_env, ntid);
        if (offset >= ntid && offset < ntid + sizeof s->ntid && t == mc_.i32)
            return llvm::ConstantInt::get(mc_.i32, s->ntid[(offset - ntid) / 4]);
        if (offset == offsetof(block_env, shared_size) && t == mc_.i64)
            return llvm::ConstantInt::get(mc_.i64, s->shared_size);
        return nullptr;
    }

    // The environment's fields that stay the same while the block function runs.
    static bool constant_during_call(size_t offset) {
        return offset < offsetof(block_env, executed) || offset == offsetof(block_env, release_barrier) ||
               offset == offsetof(block_env, host_ranges);
    }

    // Memory that no kernel writes during a launch (its parameters, the page map).
    void mark_invariant(Value* load) {
        llvm::cast<llvm::LoadInst>(load)->setMetadata(llvm::LLVMContext::MD_invariant_load,
                                                      llvm::MDNode::get(mc_.ctx, {}));
    }
    Value* state_field_ptr(size_t offset) { return b_.CreateConstInBoundsGEP1_64(mc_.i8, state_, offset); }

    Value* vram_host() { return env_field(offsetof(block_env, vram_host), mc_.ptr); }
    Value* vram_base() { return env_field(offsetof(block_env, vram_base), mc_.i64); }
    Value* vram_size() { return env_field(offsetof(block_env, vram_size), mc_.i64); }
    Value* page_map() { return env_field(offsetof(block_env, page_map), mc_.ptr); }

    void open_thread_loop() {
        auto arg = fn_->arg_begin();
        env_ = &*arg++;
        states_ = &*arg++;
        stride_ = &*arg++;
        nthreads_ = &*arg++;
        if (const block_shape* s = mc_.shape) nthreads_ = b_.getInt32(s->ntid[0] * s->ntid[1] * s->ntid[2]);
        frame_base_ = b_.getInt64(0);
        release_ = env_field(offsetof(block_env, release_barrier), mc_.i32);
        done_ = BasicBlock::Create(mc_.ctx, "block.done", fn_);
        dead_ = BasicBlock::Create(mc_.ctx, "thread.dead", fn_);
        if (!kl_.parks) {
            // Threads run to completion one after another: one record serves them all (its local
            // memory is uninitialized for each, as CUDA's is).
            open_loop_over_threads(done_);
            state_ = states_;
            zero_registers_and_open_body();
            llvm::IRBuilder<>(dead_).CreateBr(latch_);
            return;
        }
        if (!kl_.region_barriers.empty()) {
            // After a fault the block stops: the launch fails with it.
            llvm::IRBuilder<>(dead_).CreateBr(done_);
            open_region();
            zero_registers_and_open_body();
            return;
        }
        open_pass_over_threads();
    }

    // A loop over the block's threads, x fastest, then y, then z (no divisions), that leaves for
    // `exit` after the last one; the insertion point is left in its body.
    void open_loop_over_threads(BasicBlock* exit) {
        BasicBlock* from = b_.GetInsertBlock();
        auto* head = BasicBlock::Create(mc_.ctx, "thread.head", fn_);
        auto* body = BasicBlock::Create(mc_.ctx, "thread.body", fn_);
        latch_ = BasicBlock::Create(mc_.ctx, "thread.next", fn_);
        b_.CreateBr(head);
        b_.SetInsertPoint(head);
        auto* t = b_.CreatePHI(mc_.i32, 2, "t");
        auto* tx = b_.CreatePHI(mc_.i32, 2, "tx");
        auto* ty = b_.CreatePHI(mc_.i32, 2, "ty");
        auto* tz = b_.CreatePHI(mc_.i32, 2, "tz");
        for (auto* phi : {t, tx, ty, tz}) phi->addIncoming(b_.getInt32(0), from);
        tid_ = t;
        tidx_[0] = tx, tidx_[1] = ty, tidx_[2] = tz;
        b_.CreateCondBr(b_.CreateICmpULT(tid_, nthreads_), body, exit);
        llvm::IRBuilder<> lb(latch_);
        Value* nx = env_field(offsetof(block_env, ntid), mc_.i32);
        Value* ny = env_field(offsetof(block_env, ntid) + 4, mc_.i32);
        Value* x1 = lb.CreateAdd(tx, lb.getInt32(1));
        Value* wrap_x = lb.CreateICmpEQ(x1, nx);
        Value* y1 = lb.CreateSelect(wrap_x, lb.CreateAdd(ty, lb.getInt32(1)), ty);
        Value* wrap_y = lb.CreateICmpEQ(y1, ny);
        tx->addIncoming(lb.CreateSelect(wrap_x, lb.getInt32(0), x1), latch_);
        ty->addIncoming(lb.CreateSelect(wrap_y, lb.getInt32(0), y1), latch_);
        tz->addIncoming(lb.CreateSelect(wrap_y, lb.CreateAdd(tz, lb.getInt32(1)), tz), latch_);
        t->addIncoming(lb.CreateAdd(t, lb.getInt32(1)), latch_);
        lb.CreateBr(head);
        b_.SetInsertPoint(body);
    }

    // Registers start at zero for each thread; the kernel's first instruction follows.
    void zero_registers_and_open_body() {
        for (auto& [name, r] : regs_) b_.CreateStore(llvm::ConstantInt::get(mc_.int_type(r.bits), 0), r.slot);
        if (kl_.device_runtime)
            b_.CreateStore(b_.getInt32(cuda_success), state_field_ptr(offsetof(thread_state, device_error)));
        first_ = BasicBlock::Create(mc_.ctx, "body", fn_);
        b_.CreateBr(first_);
        b_.SetInsertPoint(first_);
    }

    // A kernel in straight regions: one loop over the threads per region, each thread in its own
    // record. The fault flag (another block's, or this one's) is read once per region.
    void open_region() {
        ++region_;
        region_exit_ = region_ < kl_.region_barriers.size() + 1 ? BasicBlock::Create(mc_.ctx, "region", fn_) : done_;
        auto* fault_ptr = env_field(offsetof(block_env, fault), mc_.ptr);
        auto* raised = b_.CreateLoad(mc_.i32, fault_ptr);
        raised->setAtomic(llvm::AtomicOrdering::Monotonic);
        raised->setAlignment(llvm::Align(4));
        auto* run = BasicBlock::Create(mc_.ctx, "region.run", fn_);
        b_.CreateCondBr(b_.CreateICmpNE(raised, b_.getInt32(0)), done_, run);
        b_.SetInsertPoint(run);
        env_home_ = run;
        env_cache_.clear();
        open_region_loops(kl_.region_ranges.at(region_ - 1));
        state_ = b_.CreateGEP(mc_.i8, states_, b_.CreateMul(b_.CreateZExt(tid_, mc_.i64), stride_), "state");
    }

    // z, y, then x innermost over [lo, hi) of the region's threads (barrier_regions.hpp); the
    // threads outside count what they would have executed to skip the region. Leaves for
    // region_exit_; the insertion point is left in the body.
    void open_region_loops(const region_threads& range) {
        Value* n[3];
        for (int a = 0; a < 3; ++a) n[a] = env_field(offsetof(block_env, ntid) + 4 * a, mc_.i32);
        auto clamp = [&](int64_t v) -> Value* {
            if (v >= int64_t{n_max}) return n[0];
            return b_.CreateSelect(b_.CreateICmpULT(b_.getInt32(static_cast<uint32_t>(v)), n[0]),
                                   b_.getInt32(static_cast<uint32_t>(v)), n[0]);
        };
        Value* lo = clamp(range.lo);
        Value* hi = clamp(range.hi);
        if (range.skipped_instructions) {
            Value* outside = b_.CreateSub(n[0], b_.CreateSub(hi, lo));
            Value* rows = b_.CreateMul(b_.CreateZExt(n[1], mc_.i64), b_.CreateZExt(n[2], mc_.i64));
            Value* skipped = b_.CreateMul(b_.CreateMul(b_.CreateZExt(outside, mc_.i64), rows),
                                          b_.getInt64(range.skipped_instructions));
            b_.CreateStore(b_.CreateAdd(b_.CreateLoad(mc_.i64, executed_), skipped), executed_);
        }
        BasicBlock* from = b_.GetInsertBlock();
        auto* z_head = BasicBlock::Create(mc_.ctx, "tz.head", fn_);
        auto* y_head = BasicBlock::Create(mc_.ctx, "ty.head", fn_);
        auto* x_head = BasicBlock::Create(mc_.ctx, "tx.head", fn_);
        auto* body = BasicBlock::Create(mc_.ctx, "thread.body", fn_);
        auto* y_next = BasicBlock::Create(mc_.ctx, "ty.next", fn_);
        auto* z_next = BasicBlock::Create(mc_.ctx, "tz.next", fn_);
        latch_ = BasicBlock::Create(mc_.ctx, "tx.next", fn_);
        b_.CreateBr(z_head);

        b_.SetInsertPoint(z_head);
        auto* tz = b_.CreatePHI(mc_.i32, 2, "tz");
        tz->addIncoming(b_.getInt32(0), from);
        b_.CreateCondBr(b_.CreateICmpULT(tz, n[2]), y_head, region_exit_);
        b_.SetInsertPoint(y_head);
        auto* ty = b_.CreatePHI(mc_.i32, 2, "ty");
        ty->addIncoming(b_.getInt32(0), z_head);
        auto* row_start = BasicBlock::Create(mc_.ctx, "ty.row", fn_);
        b_.CreateCondBr(b_.CreateICmpULT(ty, n[1]), row_start, z_next);
        b_.SetInsertPoint(row_start);
        Value* row = b_.CreateMul(n[0], b_.CreateAdd(ty, b_.CreateMul(n[1], tz)));
        b_.CreateBr(x_head);
        b_.SetInsertPoint(x_head);
        auto* tx = b_.CreatePHI(mc_.i32, 2, "tx");
        tx->addIncoming(lo, row_start);
        b_.CreateCondBr(b_.CreateICmpULT(tx, hi), body, y_next);

        llvm::IRBuilder<> lb(latch_);
        tx->addIncoming(lb.CreateAdd(tx, lb.getInt32(1)), latch_);
        lb.CreateBr(x_head);
        lb.SetInsertPoint(y_next);
        ty->addIncoming(lb.CreateAdd(ty, lb.getInt32(1)), y_next);
        lb.CreateBr(y_head);
        lb.SetInsertPoint(z_next);
        tz->addIncoming(lb.CreateAdd(tz, lb.getInt32(1)), z_next);
        lb.CreateBr(z_head);

        b_.SetInsertPoint(body);
        tidx_[0] = tx, tidx_[1] = ty, tidx_[2] = tz;
        tid_ = b_.CreateAdd(row, tx, "t");
    }

    // The general loop: a pass runs each runnable thread (or one parked at a barrier the executor
    // released) from its resume point until it exits or parks again.
    void open_pass_over_threads() {
        BasicBlock* entry = b_.GetInsertBlock();
        auto* head = BasicBlock::Create(mc_.ctx, "thread.head", fn_);
        auto* pick = BasicBlock::Create(mc_.ctx, "thread.pick", fn_);
        auto* start = BasicBlock::Create(mc_.ctx, "thread.start", fn_);
        latch_ = BasicBlock::Create(mc_.ctx, "thread.next", fn_);
        b_.CreateBr(head);

        b_.SetInsertPoint(head);
        auto* t = b_.CreatePHI(mc_.i32, 2, "t");
        t->addIncoming(b_.getInt32(0), entry);
        tid_ = t;
        b_.CreateCondBr(b_.CreateICmpULT(tid_, nthreads_), pick, done_);

        b_.SetInsertPoint(pick);
        state_ = b_.CreateGEP(mc_.i8, states_, b_.CreateMul(b_.CreateZExt(tid_, mc_.i64), stride_), "state");
        auto* status = b_.CreateLoad(mc_.i32, state_field_ptr(offsetof(thread_state, status)));
        auto* fault_ptr = env_field(offsetof(block_env, fault), mc_.ptr);
        auto* raised = b_.CreateLoad(mc_.i32, fault_ptr);
        raised->setAtomic(llvm::AtomicOrdering::Monotonic);
        raised->setAlignment(llvm::Align(4));
        auto* go = BasicBlock::Create(mc_.ctx, "thread.go", fn_);
        auto* skip = BasicBlock::Create(mc_.ctx, "thread.skip", fn_);
        b_.CreateCondBr(b_.CreateICmpNE(raised, b_.getInt32(0)), done_, skip);
        b_.SetInsertPoint(skip);
        // Runnable, or parked at a barrier the executor released for this pass.
        Value* released =
            b_.CreateAnd(b_.CreateICmpEQ(status, b_.getInt32(at_barrier)), b_.CreateICmpNE(release_, b_.getInt32(0)));
        b_.CreateCondBr(b_.CreateOr(b_.CreateICmpEQ(status, b_.getInt32(runnable)), released), go, latch_);
        b_.SetInsertPoint(go);
        auto* resume = b_.CreateLoad(mc_.i32, state_field_ptr(offsetof(thread_state, resume)));
        dispatch_ = b_.CreateSwitch(resume, start);

        b_.SetInsertPoint(start);
        zero_registers_and_open_body();

        // thread.next: the next thread; thread.dead: a fault ended this one.
        llvm::IRBuilder<> lb(latch_);
        t->addIncoming(lb.CreateAdd(t, lb.getInt32(1)), latch_);
        lb.CreateBr(head);
        llvm::IRBuilder<> db(dead_);
        db.CreateStore(db.getInt32(exited),
                       db.CreateConstInBoundsGEP1_64(mc_.i8, state_, offsetof(thread_state, status)));
        db.CreateBr(latch_);
    }

    void open_function_body() {
        auto arg = fn_->arg_begin();
        env_ = &*arg++;
        state_ = &*arg++;
        frame_base_ = &*arg++;
        for (const auto& r : f_.returns) func_params_[r.name] = &*arg++;
        for (const auto& p : f_.params) func_params_[p.name] = &*arg++;
        for (auto& [name, r] : regs_) b_.CreateStore(llvm::ConstantInt::get(mc_.int_type(r.bits), 0), r.slot);
        dead_ = BasicBlock::Create(mc_.ctx, "faulted", fn_);
        done_ = BasicBlock::Create(mc_.ctx, "done", fn_);
        llvm::IRBuilder<> db(dead_);
        flush_counters(db);
        db.CreateRet(db.getInt1(true));
        llvm::IRBuilder<> rb(done_);
        flush_counters(rb);
        rb.CreateRet(rb.getInt1(false));
        first_ = BasicBlock::Create(mc_.ctx, "body", fn_);
        b_.CreateBr(first_);
        b_.SetInsertPoint(first_);
    }

    void flush_counters(llvm::IRBuilder<>& bb) {
        auto add = [&](size_t offset, llvm::AllocaInst* acc) {
            auto* p = bb.CreateConstInBoundsGEP1_64(mc_.i8, env_, offset);
            bb.CreateStore(bb.CreateAdd(bb.CreateLoad(mc_.i64, p), bb.CreateLoad(mc_.i64, acc)), p);
        };
        add(offsetof(block_env, executed), executed_);
        add(offsetof(block_env, bytes_moved), bytes_);
        if (!kernel_) return;
        auto put = [&](size_t offset, llvm::AllocaInst* count) {
            bb.CreateStore(bb.CreateLoad(mc_.i32, count), bb.CreateConstInBoundsGEP1_64(mc_.i8, env_, offset));
        };
        put(offsetof(block_env, parked_at_barrier), parked_at_barrier_);
        put(offsetof(block_env, parked_at_warp_op), parked_at_warp_op_);
    }

    void close_body() {
        // Falling off the end returns, as ret would.
        if (!b_.GetInsertBlock()->getTerminator()) emit_return();
        if (kernel_) {
            llvm::IRBuilder<> db(done_);
            flush_counters(db);
            db.CreateRetVoid();
        }
        for (auto& [name, bb] : labels_)
            if (bb->empty()) llvm::IRBuilder<>(bb).CreateUnreachable();
    }

    void emit_return() {
        if (kernel_) {
            if (kl_.region_barriers.empty())
                b_.CreateStore(b_.getInt32(exited), state_field_ptr(offsetof(thread_state, status)));
            b_.CreateBr(latch_);
        } else {
            b_.CreateBr(done_);
        }
    }

    // A new block for the code after a terminator (unreachable unless a label follows).
    void continue_in_new_block(const char* name = "cont") { b_.SetInsertPoint(BasicBlock::Create(mc_.ctx, name, fn_)); }

    // ---- registers and operands --------------------------------------------------------------

    reg_slot& reg(const instruction& in, const std::string& name) {
        auto it = regs_.find(name);
        if (it == regs_.end()) refuse(in, "register " + name + " is not declared");
        return it->second;
    }

    Value* convert_bits(Value* v, llvm::Type* to, bool sign_extend = false) {
        llvm::Type* from = v->getType();
        if (from == to) return v;
        const unsigned fb = from->getPrimitiveSizeInBits(), tb = to->getPrimitiveSizeInBits();
        if (!from->isIntegerTy()) v = b_.CreateBitCast(v, mc_.int_type(static_cast<int>(fb)));
        llvm::Type* to_int = to->isIntegerTy() ? to : mc_.int_type(static_cast<int>(tb));
        if (fb > tb)
            v = b_.CreateTrunc(v, to_int);
        else if (fb < tb)
            v = sign_extend ? b_.CreateSExt(v, to_int) : b_.CreateZExt(v, to_int);
        if (to_int != to) v = b_.CreateBitCast(v, to);
        return v;
    }

    Value* special_register(const instruction& in, const std::string& name, llvm::Type* want) {
        auto axis = [&](const std::string& base) -> int {
            if (name.size() == base.size() + 2 && name.compare(0, base.size(), base) == 0 && name[base.size()] == '.') {
                const char c = name.back();
                if (c == 'x') return 0;
                if (c == 'y') return 1;
                if (c == 'z') return 2;
            }
            return -1;
        };
        Value* v = nullptr;
        if (int a = axis("%tid"); a >= 0) {
            if (!kernel_) refuse(in, "%tid inside a called .func is not supported");
            v = tidx_[a] ? tidx_[a] : thread_index(a);
        } else if (int a2 = axis("%ntid"); a2 >= 0) {
            v = env_field(offsetof(block_env, ntid) + 4 * a2, mc_.i32);
        } else if (int a3 = axis("%ctaid"); a3 >= 0) {
            v = env_field(offsetof(block_env, ctaid) + 4 * a3, mc_.i32);
        } else if (int a4 = axis("%nctaid"); a4 >= 0) {
            v = env_field(offsetof(block_env, nctaid) + 4 * a4, mc_.i32);
        } else if (name == "%laneid") {
            v = b_.CreateAnd(linear_tid(in), 31);
        } else if (name == "%warpid") {
            v = b_.CreateLShr(linear_tid(in), 5);
        } else if (name == "%nwarpid") {
            v = b_.getInt32(32);
        } else if (name == "%clock64" || name == "%globaltimer") {
            v = b_.CreateCall(mc_.clock64, {env_});
        } else if (name == "%clock") {
            v = b_.CreateTrunc(b_.CreateCall(mc_.clock64, {env_}), mc_.i32);
        } else if (name.rfind("%lanemask_", 0) == 0) {
            Value* lane = b_.CreateAnd(linear_tid(in), 31);
            Value* bit = b_.CreateShl(b_.getInt32(1), lane);
            const std::string kind = name.substr(10);
            if (kind == "eq")
                v = bit;
            else if (kind == "lt")
                v = b_.CreateSub(bit, b_.getInt32(1));
            else if (kind == "le")
                v = b_.CreateOr(bit, b_.CreateSub(bit, b_.getInt32(1)));
            else if (kind == "gt")
                v = b_.CreateNot(b_.CreateOr(bit, b_.CreateSub(bit, b_.getInt32(1))));
            else if (kind == "ge")
                v = b_.CreateNot(b_.CreateSub(bit, b_.getInt32(1)));
            else
                refuse(in, "unknown special register " + name);
        } else if (name == "%dynamic_smem_size") {
            v = env_field(offsetof(block_env, dynamic_shared), mc_.i32);
        } else if (name == "%total_smem_size") {
            v = b_.CreateTrunc(env_field(offsetof(block_env, shared_size), mc_.i64), mc_.i32);
        } else if (name == "%envreg1" || name == "%envreg2") {
            // Cooperative groups' grid workspace (its address's high and low words): a
            // cooperative launch's, 0 for any other launch (grid.sync() then traps, as on a GPU).
            v = b_.CreateTrunc(env_field(name == "%envreg1" ? offsetof(block_env, grid_workspace_high)
                                                            : offsetof(block_env, grid_workspace_low),
                                         mc_.i32),
                               mc_.i32);
        } else if (name.rfind("%envreg", 0) == 0) {
            v = b_.getInt32(0);
        } else if (name == "%smid" || name == "%gridid") {
            v = b_.getInt32(0);
        } else if (name == "%nsmid") {
            v = b_.getInt32(1);
        } else {
            refuse(in, "special register " + name + " is not supported");
        }
        return convert_bits(v, want);
    }

    // %tid.x/y/z in the general loop: from the loop's linear index when the shape is known (a few
    // multiplications by constants, and LLVM then knows each index's range), else from the
    // thread's record.
    Value* thread_index(int axis) {
        const block_shape* s = mc_.shape;
        if (!s) return b_.CreateLoad(mc_.i32, state_field_ptr(offsetof(thread_state, tid) + 4 * axis));
        Value* t = tid_;
        if (axis > 0) t = b_.CreateUDiv(t, b_.getInt32(axis == 1 ? s->ntid[0] : s->ntid[0] * s->ntid[1]));
        return axis < 2 ? b_.CreateURem(t, b_.getInt32(s->ntid[axis])) : t;
    }

    Value* linear_tid(const instruction& in) {
        if (!kernel_) refuse(in, "thread indices inside a called .func are not supported");
        if (tidx_[0] || mc_.shape) return tid_;
        Value* x = b_.CreateLoad(mc_.i32, state_field_ptr(offsetof(thread_state, tid)));
        Value* y = b_.CreateLoad(mc_.i32, state_field_ptr(offsetof(thread_state, tid) + 4));
        Value* z = b_.CreateLoad(mc_.i32, state_field_ptr(offsetof(thread_state, tid) + 8));
        Value* nx = env_field(offsetof(block_env, ntid), mc_.i32);
        Value* ny = env_field(offsetof(block_env, ntid) + 4, mc_.i32);
        return b_.CreateAdd(x, b_.CreateMul(nx, b_.CreateAdd(y, b_.CreateMul(ny, z))));
    }

    // The value of a source operand as the instruction's type.
    Value* src(const instruction& in, const operand& o, scalar_type t, bool sign_extend = false) {
        llvm::Type* want = mc_.llvm_type(t);
        Value* v = nullptr;
        switch (o.k) {
        case operand::kind::reg:
            if (!regs_.count(o.name) && o.name[0] == '%' && o.name.find('.') != std::string::npos)
                v = special_register(in, o.name, want);
            else if (!regs_.count(o.name) &&
                     (o.name.rfind("%lanemask", 0) == 0 || o.name == "%laneid" || o.name == "%warpid" ||
                      o.name == "%clock64" || o.name == "%clock" || o.name == "%globaltimer" || o.name == "%smid" ||
                      o.name == "%nsmid" || o.name == "%nwarpid" || o.name == "%gridid" ||
                      o.name.rfind("%envreg", 0) == 0 || o.name == "%dynamic_smem_size" ||
                      o.name == "%total_smem_size"))
                v = special_register(in, o.name, want);
            else {
                reg_slot& r = reg(in, o.name);
                v = convert_bits(b_.CreateLoad(mc_.int_type(r.bits), r.slot), want, sign_extend);
            }
            break;
        case operand::kind::imm_int:
            if (t.is_float())
                v = llvm::ConstantFP::get(want, static_cast<double>(o.value));
            else if (t.k == scalar_type::kind::pred)
                v = b_.getInt1(o.value != 0);
            else
                v = llvm::ConstantInt::get(want, static_cast<uint64_t>(o.value));
            break;
        case operand::kind::imm_float: {
            double value;
            if (o.float_bits == 32) {
                const auto bits = static_cast<uint32_t>(o.value);
                float f;
                std::memcpy(&f, &bits, 4);
                value = f;
                if (t.is_float() && t.bits == 32) {
                    v = llvm::ConstantFP::get(mc_.ctx, llvm::APFloat(f));
                    break;
                }
            } else {
                std::memcpy(&value, &o.value, 8);
            }
            if (t.is_float())
                v = llvm::ConstantFP::get(want, value);
            else
                v = llvm::ConstantInt::get(want, static_cast<uint64_t>(o.value));  // bits as an integer
            break;
        }
        case operand::kind::symbol:
            // WARP_SZ: nvcc's spelling of warpSize, a constant of the target (32 threads).
            if (o.name == "WARP_SZ")
                v = t.is_float() ? llvm::ConstantFP::get(want, 32.0) : llvm::ConstantInt::get(want, 32);
            else
                v = convert_bits(symbol_address(in, o.name, space::none), want);
            break;
        default:
            refuse(in, "an unexpected operand");
        }
        if (o.negate_pred) v = b_.CreateNot(v);
        return v;
    }

    void set(const instruction& in, const operand& o, Value* v, bool sign_extend = false) {
        if (o.k == operand::kind::discard) return;
        if (o.k != operand::kind::reg) refuse(in, "the destination is not a register");
        reg_slot& r = reg(in, o.name);
        b_.CreateStore(convert_bits(v, mc_.int_type(r.bits), sign_extend), r.slot);
    }

    // ---- addresses ---------------------------------------------------------------------------

    // The address of a named variable in `sp` (space::none: in its own space, as mov gives it).
    Value* symbol_address(const instruction& in, const std::string& name, space sp) {
        const auto& ml = mc_.layout;
        if (auto it = kl_.shared_offsets.find(name); it != kl_.shared_offsets.end()) {
            uint64_t off = it->second;
            return b_.getInt64(sp == space::generic ? (shared_window | off) : off);
        }
        if (auto it = ml.global_offsets.find(name); it != ml.global_offsets.end())
            return b_.getInt64(module_globals_window | it->second);
        if (auto it = ml.const_offsets.find(name); it != ml.const_offsets.end())
            return b_.getInt64(sp == space::generic ? (const_window | it->second) : it->second);
        if (auto d = ml.depot_offsets.find(f_.name); d != ml.depot_offsets.end())
            if (auto it = d->second.find(name); it != d->second.end()) {
                Value* off = b_.CreateAdd(frame_base_, b_.getInt64(it->second));
                return sp == space::generic ? b_.CreateOr(off, b_.getInt64(local_window)) : off;
            }
        // A kernel's by-value parameter (mov.b64 %rd, k_param_0, as nvcc takes the address of a
        // large struct): its offset in the parameter buffer, the param window's in generic.
        if (kernel_)
            for (const auto& p : kl_.params)
                if (p.name == name) return b_.getInt64(sp == space::generic ? (param_window | p.offset) : p.offset);
        // A function's address (a function pointer): what an indirect call dispatches on.
        for (size_t i = 0; i < mc_.ptx.functions.size(); ++i)
            if (mc_.ptx.functions[i].name == name && !mc_.ptx.functions[i].is_entry)
                return b_.getInt64(function_address(i));
        // A kernel's: what a launch from a kernel names (device_launch.hpp).
        for (size_t i = 0; i < mc_.layout.kernels.size(); ++i)
            if (mc_.layout.kernels[i].name == name) return b_.getInt64(kernel_address(i));
        refuse(in, "'" + name + "' is not a variable the engine can address here");
    }

    // A host pointer to the parameter bytes `name`+offset (kernel parameters, a .func's own, a call
    // block's).
    Value* param_pointer(const instruction& in, const operand& a, uint32_t bytes) {
        if (kernel_ && a.base_is_reg) return kernel_param_at(in, a, bytes);
        if (a.base_is_reg || a.name.empty())
            refuse(in, "parameter addresses held in registers are only supported in kernels");
        if (kernel_) {
            for (const auto& p : kl_.params)
                if (p.name == a.name) {
                    if (a.value < 0 || uint64_t(a.value) + bytes > p.size)
                        refuse(in, "an access past parameter " + a.name);
                    Value* base = env_field(offsetof(block_env, params), mc_.ptr);
                    // The whole buffer is there: LLVM may read a parameter before the branch that
                    // needs it, outside the loop over the threads.
                    llvm::cast<llvm::LoadInst>(base)->setMetadata(
                        llvm::LLVMContext::MD_dereferenceable,
                        llvm::MDNode::get(mc_.ctx, llvm::ConstantAsMetadata::get(b_.getInt64(kl_.param_bytes))));
                    return b_.CreateConstInBoundsGEP1_64(mc_.i8, base, p.offset + static_cast<uint64_t>(a.value));
                }
        } else if (auto it = func_params_.find(a.name); it != func_params_.end()) {
            return b_.CreateConstInBoundsGEP1_64(mc_.i8, it->second, static_cast<uint64_t>(a.value));
        }
        if (auto it = call_params_.find(a.name); it != call_params_.end())
            return b_.CreateConstInBoundsGEP1_64(mc_.i8, it->second, static_cast<uint64_t>(a.value));
        refuse(in, "'" + a.name + "' is not a parameter");
    }

    // ld.param [%rd+offset] in a kernel: the register holds a parameter's address (its offset in
    // the buffer, as mov gives it); range-checked against the buffer, which no launch changes.
    Value* kernel_param_at(const instruction& in, const operand& a, uint32_t bytes) {
        Value* at = address_value(in, a, space::param);
        Value* fits = b_.CreateICmpULT(at, end_of_fit(b_.getInt64(kl_.param_bytes), bytes));
        auto* good = BasicBlock::Create(mc_.ctx, "param.in.range", fn_);
        auto* bad = BasicBlock::Create(mc_.ctx, "param.out.of.range", fn_);
        b_.CreateCondBr(fits, good, bad, likely());
        b_.SetInsertPoint(bad);
        b_.CreateCall(mc_.fault, {env_, b_.CreateOr(at, b_.getInt64(param_window)), b_.getInt32(bytes)});
        b_.CreateBr(dead_);
        b_.SetInsertPoint(good);
        Value* base = env_field(offsetof(block_env, params), mc_.ptr);
        return b_.CreateGEP(mc_.i8, base, at);
    }

    bool is_kernel_param(const operand& a) const {
        if (a.base_is_reg) return false;
        for (const auto& p : kl_.params)
            if (p.name == a.name) return true;
        return false;
    }

    Value* address_value(const instruction& in, const operand& a, space sp) {
        Value* base;
        // A 32-bit register (a shared, local or const address, as nvcc keeps them) plus the
        // offset is a 32-bit sum, as on the GPU: a base below the variable that the offset
        // brings back into it wraps (nvcc folds base - 64 * tid + 68 that way).
        if (a.base_is_reg && a.value)
            if (auto it = regs_.find(a.name); it != regs_.end() && it->second.bits == 32) {
                Value* r32 = src(in, named(operand::kind::reg, a.name), scalar_type{scalar_type::kind::uint, 32});
                return b_.CreateZExt(b_.CreateAdd(r32, b_.getInt32(static_cast<uint32_t>(a.value))), mc_.i64);
            }
        if (a.name.empty())
            base = b_.getInt64(0);
        else if (a.base_is_reg)
            base = src(in, named(operand::kind::reg, a.name), scalar_type{scalar_type::kind::uint, 64});
        else
            base = symbol_address(in, a.name, sp);
        return a.value ? b_.CreateAdd(base, b_.getInt64(static_cast<uint64_t>(a.value))) : base;
    }

    void count_bytes(uint32_t bytes) {
        b_.CreateStore(b_.CreateAdd(b_.CreateLoad(mc_.i64, bytes_), b_.getInt64(bytes)), bytes_);
    }

    // A range-checked host pointer for `bytes` at address `addr` of space `sp`.
    Value* host_pointer(space sp, Value* addr, uint32_t bytes) {
        if (sp == space::shared || sp == space::local || sp == space::constant) {
            Value* size = sp == space::shared  ? env_field(offsetof(block_env, shared_size), mc_.i64)
                          : sp == space::local ? env_field(offsetof(block_env, local_size), mc_.i64)
                                               : env_field(offsetof(block_env, const_size), mc_.i64);
            Value* ok = b_.CreateICmpULT(addr, end_of_fit(size, bytes));
            Value* base;
            if (sp == space::shared)
                base = env_field(offsetof(block_env, shared), mc_.ptr);
            else if (sp == space::constant)
                base = env_field(offsetof(block_env, const_host), mc_.ptr);
            else
                base = b_.CreateGEP(mc_.i8, state_,
                                    b_.CreateZExt(env_field(offsetof(block_env, local_offset), mc_.i32), mc_.i64));
            auto* good = BasicBlock::Create(mc_.ctx, "in.range", fn_);
            auto* bad = BasicBlock::Create(mc_.ctx, "out.of.range", fn_);
            b_.CreateCondBr(ok, good, bad, likely());
            b_.SetInsertPoint(bad);
            b_.CreateCall(mc_.fault, {env_, addr, b_.getInt32(bytes)});
            b_.CreateBr(dead_);
            b_.SetInsertPoint(good);
            return b_.CreateGEP(mc_.i8, base, addr);
        }
        // Global and generic: the VRAM fast path inline, everything else through the resolver.
        if (sp == space::global) count_bytes(bytes);
        Value* off = b_.CreateSub(addr, vram_base());
        Value* fits = b_.CreateICmpULT(off, end_of_fit(vram_size(), bytes));
        auto* pages = BasicBlock::Create(mc_.ctx, "vram.pages", fn_);
        auto* fast = BasicBlock::Create(mc_.ctx, "vram", fn_);
        auto* slow = BasicBlock::Create(mc_.ctx, "resolve", fn_);
        auto* join = BasicBlock::Create(mc_.ctx, "addr", fn_);
        b_.CreateCondBr(fits, pages, slow, likely());
        // Inside VRAM: the page must be mapped (the resolver faults on the rest). One page per
        // access: PTX accesses are naturally aligned and at most 16 bytes, so none crosses a
        // 64 KiB page; a misaligned one is checked at both ends by the resolver.
        b_.SetInsertPoint(pages);
        Value* aligned = b_.CreateICmpEQ(b_.CreateAnd(off, b_.getInt64(bytes - 1)), b_.getInt64(0));
        b_.CreateCondBr(b_.CreateAnd(aligned, page_mapped(off)), fast, slow, likely());
        b_.SetInsertPoint(fast);
        Value* p1 = b_.CreateGEP(mc_.i8, vram_host(), off);
        b_.CreateBr(join);
        b_.SetInsertPoint(slow);
        uint32_t how = 0;
        if (sp == space::generic) how |= resolve_generic;
        if (system_atomic_) how |= resolve_system_atomic;
        Value* p2 = b_.CreateCall(mc_.resolve, {env_, state_, addr, b_.getInt32(bytes), b_.getInt32(how)});
        auto* resolved = BasicBlock::Create(mc_.ctx, "resolved", fn_);
        b_.CreateCondBr(b_.CreateIsNull(p2), dead_, resolved);
        b_.SetInsertPoint(resolved);
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
        auto* phi = b_.CreatePHI(mc_.ptr, 2);
        phi->addIncoming(p1, fast);
        phi->addIncoming(p2, resolved);
        return phi;
    }

    // The offsets where `bytes` fit in `size` are those below size - bytes + 1 (none when size
    // is smaller): one comparison per access against a value computed outside the loops.
    Value* end_of_fit(Value* size, uint32_t bytes) {
        return b_.CreateSelect(b_.CreateICmpUGE(size, b_.getInt64(bytes)),
                               b_.CreateAdd(b_.CreateSub(size, b_.getInt64(bytes)), b_.getInt64(1)), b_.getInt64(0));
    }

    Value* page_mapped(Value* offset) {
        Value* page = b_.CreateLShr(offset, b_.getInt64(vram_page_shift));
        Value* entry = b_.CreateLoad(mc_.i8, b_.CreateGEP(mc_.i8, page_map(), page));
        mark_invariant(entry);
        return b_.CreateICmpNE(entry, b_.getInt8(0));
    }

    llvm::MDNode* likely() { return llvm::MDBuilder(mc_.ctx).createBranchWeights(1000, 1); }
    llvm::MDNode* unlikely() { return llvm::MDBuilder(mc_.ctx).createBranchWeights(1, 1000); }

    Value* memory_pointer(const instruction& in, const operand& a, space sp, uint32_t bytes) {
        if (a.k != operand::kind::address) refuse(in, "expected an address operand");
        if (sp == space::param) return param_pointer(in, a, bytes);
        return host_pointer(sp, address_value(in, a, sp), bytes);
    }

    // ---- statements --------------------------------------------------------------------------

    void count_instruction() {
        b_.CreateStore(b_.CreateAdd(b_.CreateLoad(mc_.i64, executed_), b_.getInt64(1)), executed_);
    }

    void lower_statement(const instruction& in) {
        if (!in.label.empty()) {
            BasicBlock* bb = labels_.at(in.label);
            if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(bb);
            b_.SetInsertPoint(bb);
            return;
        }
        if (b_.GetInsertBlock()->getTerminator()) continue_in_new_block("unreachable");
        count_instruction();
        if (in.guard.empty()) return lower_instruction(in);
        Value* p = src(in, named(operand::kind::reg, in.guard), scalar_type{scalar_type::kind::pred, 1});
        if (in.guard_negated) p = b_.CreateNot(p);
        if (in.opcode == "bra") {
            auto* fall = BasicBlock::Create(mc_.ctx, "fall", fn_);
            if (is_back_edge(in)) {
                auto* taken = BasicBlock::Create(mc_.ctx, "loop.back", fn_);
                b_.CreateCondBr(p, taken, fall);
                b_.SetInsertPoint(taken);
                poll_for_cancel();
                converge_at_back_edge();
                b_.CreateBr(target(in));
            } else {
                b_.CreateCondBr(p, target(in), fall);
            }
            b_.SetInsertPoint(fall);
            return;
        }
        auto* then = BasicBlock::Create(mc_.ctx, "pred.then", fn_);
        auto* after = BasicBlock::Create(mc_.ctx, "pred.after", fn_);
        b_.CreateCondBr(p, then, after);
        b_.SetInsertPoint(then);
        lower_instruction(in);
        if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(after);
        b_.SetInsertPoint(after);
    }

    // A branch to a label at or before it closes a loop: the one place a block can run forever.
    bool is_back_edge(const instruction& in) {
        if (in.operands.size() != 1 || in.operands[0].k != operand::kind::symbol) return false;
        auto it = label_at_.find(in.operands[0].name);
        return it != label_at_.end() && it->second <= current_index_;
    }

    // Every poll_period back-edges, ask cb_ptx_poll whether to stop (a reset, the program's exit,
    // a fault in another block): a kernel that never ends can still be stopped. A kernel leaves
    // the whole block at once (its other threads would spin too); a function returns "faulted"
    // to its caller, which does the same. The countdown is a register after mem2reg, so a loop
    // pays a decrement and a rarely taken branch.
    void poll_for_cancel() {
        Value* left = b_.CreateSub(b_.CreateLoad(mc_.i32, poll_countdown_), b_.getInt32(1));
        b_.CreateStore(left, poll_countdown_);
        auto* ask = BasicBlock::Create(mc_.ctx, "poll.ask", fn_);
        auto* go = BasicBlock::Create(mc_.ctx, "poll.go", fn_);
        b_.CreateCondBr(b_.CreateICmpEQ(left, b_.getInt32(0)), ask, go, unlikely());
        b_.SetInsertPoint(ask);
        b_.CreateStore(b_.getInt32(poll_period), poll_countdown_);
        Value* stop = b_.CreateCall(mc_.poll, {env_});
        b_.CreateCondBr(b_.CreateICmpNE(stop, b_.getInt32(0)), kernel_ ? done_ : dead_, go, unlikely());
        b_.SetInsertPoint(go);
    }

    BasicBlock* target(const instruction& in) {
        if (in.operands.size() != 1 || in.operands[0].k != operand::kind::symbol) refuse(in, "expected a label");
        auto it = labels_.find(in.operands[0].name);
        if (it == labels_.end()) refuse(in, "no label " + in.operands[0].name);
        return it->second;
    }

    scalar_type type1(const instruction& in) {
        auto t = types_of(in);
        if (t.empty()) refuse(in, "no type");
        return t.back();
    }

    // The n registers of a .v2/.v4 access ({%f1, %f2, ...}), or the one of a scalar access.
    std::vector<const operand*> elements(const instruction& in, const operand& o, int n) {
        if (n == 1) return {&o};
        if (o.k != operand::kind::vector || o.elements.size() != size_t(n))
            refuse(in, "a vector access needs " + std::to_string(n) + " registers in braces");
        std::vector<const operand*> parts;
        for (const auto& e : o.elements) parts.push_back(&e);
        return parts;
    }

    void need(const instruction& in, size_t n) {
        if (in.operands.size() < n) refuse(in, "expected " + std::to_string(n) + " operands");
    }

    void lower_instruction(const instruction& in);

    // Each family of instructions, in lowering_ops below.
    void lower_mov(const instruction& in);
    void converge_before(const instruction& in);
    void converge_at_back_edge();
    void lower_ld(const instruction& in);
    void lower_st(const instruction& in);
    void lower_cvta(const instruction& in);
    void lower_cvt(const instruction& in);
    void lower_int_arith(const instruction& in, scalar_type t);
    void lower_float_arith(const instruction& in, scalar_type t);
    Value* directed_f32(const instruction& in);
    Value* directed_by_host(const instruction& in, scalar_type t);
    void lower_funnel_shift(const instruction& in);
    void lower_setp(const instruction& in);
    void lower_bits(const instruction& in, scalar_type t);
    void lower_atom(const instruction& in);
    void lower_call(const instruction& in);
    void lower_assertfail(const instruction& in);
    void lower_heap_call(const instruction& in);
    void lower_device_runtime(const instruction& in);
    void lower_indirect_call(const instruction& in);
    void call_function(const instruction& in, const function& callee);
    void check_stack(Value* callee_end);
    void lower_carry(const instruction& in, scalar_type t);
    void lower_half2(const instruction& in);
    void lower_int16x2(const instruction& in);
    void lower_simd_video(const instruction& in);
    Value* permute_mode(const instruction& in, Value* both, Value* sel);
    Value* fma_for_half(Value* x, Value* y, Value* z);
    Value* half_min_max(Value* x, Value* y, bool is_min, bool nan_result, uint16_t inf_bits = 0x7C00);
    // 16-bit floats held as i16 (or <2 x i16>): .f16 and .bf16 to float and back (round to
    // nearest even; a NaN becomes 0x7FFF), and the ops that take them.
    Value* narrow_to_float(Value* bits, bool bf);
    Value* float_to_narrow(Value* f, bool bf);
    Value* fma_for_bf16(Value* x, Value* y, Value* z);
    // .relu (fma.rn.relu.{f16,bf16}, cvt.rn.relu...): a negative result is +0; a NaN stays NaN.
    Value* relu(const instruction& in, Value* f) {
        if (!in.has("relu")) return f;
        Value* negative = b_.CreateFCmpOLT(f, llvm::ConstantFP::get(f->getType(), 0.0));
        return b_.CreateSelect(negative, llvm::ConstantFP::get(f->getType(), 0.0), f);
    }
    void lower_bf16(const instruction& in);
    void lower_narrow_compare(const instruction& in);
    void lower_narrow_cvt(const instruction& in);
    void lower_atom_narrow_float(const instruction& in);
    void lower_park(const instruction& in);
    void lower_matrix(const instruction& in);
    void lower_wmma_memory(const instruction& in, uint32_t m, uint32_t n, uint32_t k,
                           const std::vector<matrix_element>& types);
    void lower_matrix_mma(const instruction& in, uint32_t m, uint32_t n, uint32_t k,
                          const std::vector<matrix_element>& types);
    void lower_ldmatrix(const instruction& in);
    void lower_cp_async(const instruction& in);
    void lower_tf32_cvt(const instruction& in);
    void lower_mbarrier(const instruction& in);
    void lower_texture(const instruction& in);
    Value* mbarrier_arrive(Value* object, Value* count, bool drop);
    void park_for_matrix(uint32_t code, uint64_t what, const std::function<void()>& save_operands);
    void park(uint32_t status, const std::function<void()>& save_operands);
    Value* compare(const instruction& in, const std::string& cmp, scalar_type t, Value* a, Value* b);
};

// ---- instruction families ------------------------------------------------------------------

// Textures and surfaces (texture_fetch.hpp): the handle, the coordinates' and data's bits go to
// cb_ptx_texture, which writes the destination vector's.
void function_lowering::lower_texture(const instruction& in) {
    texture_code code;
    std::string why;
    if (!texture_instruction_code(in, code, why)) refuse(in, why);
    need(in, 2);
    const bool store = in.opcode == "sust";
    const operand& target = in.operands[store ? 0 : 1];
    if (target.k != operand::kind::address || !target.base_is_reg)
        refuse(in, "only texture and surface objects (a handle in a register) are supported");
    auto elements = [](const operand& o) {
        std::vector<const operand*> list;
        if (o.k == operand::kind::vector)
            for (const auto& e : o.elements) list.push_back(&e);
        else
            list.push_back(&o);
        return list;
    };
    const scalar_type b32{scalar_type::kind::bits, 32}, b64{scalar_type::kind::bits, 64};
    const int element_bits = in.opcode == "suld" || store ? 8 << code.element_log2 : 32;
    const scalar_type element{scalar_type::kind::bits, element_bits};
    Value* handle = src(in, named(operand::kind::reg, target.name), b64);
    auto* words = entry_alloca(mc_.i64, "texture.words", texture_operand_words + texture_result_words);
    if (!target.elements.empty()) {
        const auto coords = elements(target.elements[0]);
        for (size_t i = 0; i < coords.size() && i < 4; ++i)
            if (coords[i]->k != operand::kind::discard)
                b_.CreateStore(b_.CreateZExt(src(in, *coords[i], b32), mc_.i64),
                               b_.CreateConstGEP1_64(mc_.i64, words, i));
    }
    if (store) {
        const auto data = elements(in.operands[1]);
        for (size_t i = 0; i < data.size() && i < 4; ++i)
            b_.CreateStore(convert_bits(src(in, *data[i], element), mc_.i64),
                           b_.CreateConstGEP1_64(mc_.i64, words, 4 + i));
    }
    Value* result = b_.CreateConstGEP1_64(mc_.i64, words, texture_operand_words);
    b_.CreateCall(mc_.texture, {env_, state_, b_.getInt32(code.pack()), handle, words, result});
    if (store) return;
    if (in.operands[0].k == operand::kind::vector && in.operands[0].name == "|")
        refuse(in, "a texture fetch's predicate result is not supported");
    const auto destinations = elements(in.operands[0]);
    for (size_t i = 0; i < destinations.size() && i < texture_result_words; ++i) {
        Value* bits = b_.CreateLoad(mc_.i64, b_.CreateConstGEP1_64(mc_.i64, words, texture_operand_words + i));
        set(in, *destinations[i], b_.CreateTrunc(bits, mc_.int_type(element_bits)));
    }
}

void function_lowering::lower_instruction(const instruction& in) {
    const std::string& op = in.opcode;
    if (op == "bra") {
        if (is_back_edge(in)) poll_for_cancel(), converge_at_back_edge();
        b_.CreateBr(target(in));
        return continue_in_new_block();
    }
    if (op == "ret" || op == "exit") {
        emit_return();
        return continue_in_new_block();
    }
    if (op == "trap") {
        b_.CreateCall(mc_.trap, {env_});
        b_.CreateBr(dead_);
        return continue_in_new_block();
    }
    if (op == "cvt" && in.has("tf32")) return lower_tf32_cvt(in);
    if (op == "cvt" && (in.has("bf16") || in.has("bf16x2") || in.has("f16x2"))) return lower_narrow_cvt(in);
    if ((op == "setp" || op == "set") && (in.has("bf16") || in.has("bf16x2") || in.has("f16x2")))
        return lower_narrow_compare(in);
    if (op == "mov") return lower_mov(in);
    if (op == "ld" || op == "ldu") return lower_ld(in);
    if (op == "st") return lower_st(in);
    if (op == "cvta") return lower_cvta(in);
    if (op == "cvt") return lower_cvt(in);
    if (op == "setp") return lower_setp(in);
    if (op == "atom" || op == "red") return lower_atom(in);
    if (op == "call") return lower_call(in);
    if (op == "shf") return lower_funnel_shift(in);
    if (op == "wmma" || op == "mma" || op == "ldmatrix" || op == "stmatrix" || op == "movmatrix")
        return lower_matrix(in);
    if (op == "cp") return lower_cp_async(in);
    if (op == "mbarrier") return lower_mbarrier(in);
    if (op == "tex" || op == "tld4" || op == "txq" || op == "suld" || op == "sust") return lower_texture(in);
    if (parks_thread(in)) return lower_park(in);
    if (op == "membar" || op == "fence") {
        b_.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
        return;
    }
    if (op == "prefetch" || op == "prefetchu" || op == "nanosleep" || op == "discard" || op == "applypriority" ||
        op == "pmevent")
        return;
    if (in.has("f16x2")) return lower_half2(in);
    if (in.has("bf16") || in.has("bf16x2")) return lower_bf16(in);
    if (in.has("s16x2") || in.has("u16x2")) return lower_int16x2(in);
    if (is_simd_video(op)) return lower_simd_video(in);
    if (op == "isspacep") return lower_int_arith(in, scalar_type{scalar_type::kind::pred, 1});  // it has no type
    const scalar_type t = type1(in);
    if (op == "selp") {
        need(in, 4);
        Value* c = src(in, in.operands[3], scalar_type{scalar_type::kind::pred, 1});
        return set(in, in.operands[0], b_.CreateSelect(c, src(in, in.operands[1], t), src(in, in.operands[2], t)));
    }
    if (t.is_float()) return lower_float_arith(in, t);
    if (op == "and" || op == "or" || op == "xor" || op == "not" || op == "cnot" || op == "shl" || op == "shr" ||
        op == "popc" || op == "clz" || op == "bfind" || op == "brev" || op == "bfe" || op == "bfi" || op == "prmt" ||
        op == "lop3" || op == "bmsk" || op == "szext" || op == "fns" || op == "dp4a" || op == "dp2a")
        return lower_bits(in, t);
    return lower_int_arith(in, t);
}

void function_lowering::lower_mov(const instruction& in) {
    need(in, 2);
    const scalar_type t = type1(in);
    const operand& d = in.operands[0];
    const operand& s = in.operands[1];
    if (s.k == operand::kind::vector) {  // pack: mov.b64 %rd, {%r1, %r2}
        const int n = static_cast<int>(s.elements.size());
        const scalar_type part{scalar_type::kind::bits, t.bits / n};
        Value* acc = b_.getIntN(static_cast<unsigned>(t.bits), 0);
        for (int i = 0; i < n; ++i) {
            Value* e = b_.CreateZExt(src(in, s.elements[static_cast<size_t>(i)], part), mc_.int_type(t.bits));
            acc = b_.CreateOr(acc, b_.CreateShl(e, static_cast<uint64_t>(i) * static_cast<uint64_t>(part.bits)));
        }
        return set(in, d, acc);
    }
    if (d.k == operand::kind::vector) {  // unpack: mov.b64 {%r1, %r2}, %rd
        const int n = static_cast<int>(d.elements.size());
        Value* whole = src(in, s, scalar_type{scalar_type::kind::bits, t.bits});
        for (int i = 0; i < n; ++i)
            set(in, d.elements[static_cast<size_t>(i)],
                b_.CreateTrunc(b_.CreateLShr(whole, static_cast<uint64_t>(i * t.bits / n)), mc_.int_type(t.bits / n)));
        return;
    }
    set(in, d, src(in, s, t));
}

// A loop that holds a convergence point: the thread parks as at one before it jumps back
// (layout.hpp's converging_back_edges), keeping the registers live at the loop's head.
void function_lowering::converge_at_back_edge() {
    if (!kernel_ || !kl_.converging_back_edges.count(current_index_)) return;
    park(at_warp_op,
         [&] { b_.CreateStore(b_.getInt32(warp_converge), state_field_ptr(offsetof(thread_state, warp_op))); });
}

// A kernel's thread parks before a convergence point's access (layout.hpp): the executor lets the
// lanes of its warp go on together.
void function_lowering::converge_before(const instruction& in) {
    if (!kernel_ || !is_convergence_point(in)) return;
    park(at_warp_op,
         [&] { b_.CreateStore(b_.getInt32(warp_converge), state_field_ptr(offsetof(thread_state, warp_op))); });
}

void function_lowering::lower_ld(const instruction& in) {
    need(in, 2);
    converge_before(in);
    const scalar_type t = type1(in);
    const int n = vector_width(in);
    const uint32_t elem = t.k == scalar_type::kind::pred ? 1 : static_cast<uint32_t>(t.bits / 8);
    const space sp = in.opcode == "ldu" ? space::global : space_of(in);
    Value* p = memory_pointer(in, in.operands[1], sp, elem * static_cast<uint32_t>(n));
    const bool volatile_ = in.has("volatile") || in.has("relaxed") || in.has("acquire");
    auto load_one = [&](int i, const operand& d) {
        Value* at = i ? b_.CreateConstInBoundsGEP1_64(mc_.i8, p, static_cast<uint64_t>(i) * elem) : p;
        auto* v = b_.CreateAlignedLoad(mc_.llvm_type(t), at, llvm::Align(1));
        if (volatile_) v->setVolatile(true);
        if (kernel_ && sp == space::param && (is_kernel_param(in.operands[1]) || in.operands[1].base_is_reg))
            mark_invariant(v);
        set(in, d, v, t.is_signed());
    };
    const auto parts = elements(in, in.operands[0], n);
    for (size_t i = 0; i < parts.size(); ++i) load_one(static_cast<int>(i), *parts[i]);
    // A load that may be spinning on another thread's or block's flag: park after it, so that
    // they run before this thread asks again (layout.hpp's is_spin_load).
    if (kernel_ && is_spin_load(in))
        park(at_warp_op,
             [&] { b_.CreateStore(b_.getInt32(thread_yield), state_field_ptr(offsetof(thread_state, warp_op))); });
}

void function_lowering::lower_st(const instruction& in) {
    need(in, 2);
    converge_before(in);
    const scalar_type t = type1(in);
    const int n = vector_width(in);
    const uint32_t elem = static_cast<uint32_t>(t.bits / 8);
    Value* p = memory_pointer(in, in.operands[0], space_of(in), elem * static_cast<uint32_t>(n));
    const bool volatile_ = in.has("volatile") || in.has("relaxed") || in.has("release");
    auto store_one = [&](int i, const operand& s) {
        Value* at = i ? b_.CreateConstInBoundsGEP1_64(mc_.i8, p, static_cast<uint64_t>(i) * elem) : p;
        auto* st = b_.CreateAlignedStore(src(in, s, t), at, llvm::Align(1));
        if (volatile_) st->setVolatile(true);
    };
    const auto parts = elements(in, in.operands[1], n);
    for (size_t i = 0; i < parts.size(); ++i) store_one(static_cast<int>(i), *parts[i]);
}

void function_lowering::lower_cvta(const instruction& in) {
    need(in, 2);
    const scalar_type t = type1(in);
    const bool to = in.has("to");
    space sp = space_of(in);
    Value* a;
    if (in.operands[1].k == operand::kind::symbol)
        a = symbol_address(in, in.operands[1].name, to ? sp : space::none);
    else
        a = src(in, in.operands[1], scalar_type{scalar_type::kind::uint, 64});
    if (t.bits == 32) a = b_.CreateZExt(b_.CreateTrunc(a, mc_.i32), mc_.i64);
    uint64_t tag = 0;
    if (sp == space::shared)
        tag = shared_window;
    else if (sp == space::local)
        tag = local_window;
    else if (sp == space::constant)
        tag = const_window;
    else if (sp == space::param && kernel_)
        tag = param_window;
    else if (sp != space::global)
        refuse(in, "cvta of this state space is not supported");
    Value* r = a;
    if (tag) r = to ? b_.CreateAnd(a, b_.getInt64(~window_mask)) : b_.CreateOr(a, b_.getInt64(tag));
    set(in, in.operands[0], r);
}

void function_lowering::lower_cvt(const instruction& in) {
    need(in, 2);
    auto ts = types_of(in);
    if (ts.size() != 2) refuse(in, "cvt needs a destination and a source type");
    const scalar_type dt = ts[0], st = ts[1];
    const bool sat = in.has("sat");
    Value* a = src(in, in.operands[1], st);
    Value* r = nullptr;
    llvm::Type* dty = mc_.llvm_type(dt);
    auto int_round = [&](Value* x) -> Value* {
        if (in.has("rzi")) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x);
        if (in.has("rmi")) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
        if (in.has("rpi")) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
        if (in.has("rni")) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::rint, x);
        return nullptr;
    };
    if (st.is_float() && dt.is_float()) {
        if (Value* rounded = int_round(a)) a = rounded;
        if (st.bits > dt.bits)
            r = b_.CreateFPTrunc(a, dty);
        else if (st.bits < dt.bits)
            r = b_.CreateFPExt(a, dty);
        else
            r = a;
        if (sat) {
            r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, r, llvm::ConstantFP::get(dty, 0.0));
            r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, r, llvm::ConstantFP::get(dty, 1.0));
        }
    } else if (st.is_float()) {
        Value* rounded = int_round(a);
        if (!rounded) refuse(in, "a float to integer conversion needs .rzi, .rni, .rmi or .rpi");
        if (st.bits == 16) rounded = b_.CreateFPExt(rounded, llvm::Type::getFloatTy(mc_.ctx));
        r = b_.CreateIntrinsic(dt.is_signed() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                               {dty, rounded->getType()}, {rounded});
        // PTX 9: NaN converts to 0, except from .f64 or to a 64-bit integer: 1 << (width - 1).
        if (st.bits == 64 || dt.bits == 64)
            r = b_.CreateSelect(b_.CreateFCmpUNO(rounded, rounded),
                                llvm::ConstantInt::get(dty, llvm::APInt::getSignMask(static_cast<unsigned>(dt.bits))),
                                r);
    } else if (dt.is_float()) {
        r = st.is_signed() ? b_.CreateSIToFP(a, dty) : b_.CreateUIToFP(a, dty);
        if (sat) {
            r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, r, llvm::ConstantFP::get(dty, 0.0));
            r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, r, llvm::ConstantFP::get(dty, 1.0));
        }
    } else {
        if (sat) {  // clamp to the destination's range, in the wider of the two widths
            const int w = std::max(st.bits, dt.bits) + 1;
            llvm::Type* wt = mc_.int_type(w);
            Value* x = st.is_signed() ? b_.CreateSExt(a, wt) : b_.CreateZExt(a, wt);
            llvm::APInt lo =
                dt.is_signed()
                    ? llvm::APInt::getSignedMinValue(static_cast<unsigned>(dt.bits)).sext(static_cast<unsigned>(w))
                    : llvm::APInt::getZero(static_cast<unsigned>(w));
            llvm::APInt hi =
                dt.is_signed()
                    ? llvm::APInt::getSignedMaxValue(static_cast<unsigned>(dt.bits)).sext(static_cast<unsigned>(w))
                    : llvm::APInt::getMaxValue(static_cast<unsigned>(dt.bits)).zext(static_cast<unsigned>(w));
            x = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, llvm::ConstantInt::get(wt, lo));
            x = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, llvm::ConstantInt::get(wt, hi));
            r = b_.CreateTrunc(x, dty);
        } else if (st.bits > dt.bits) {
            r = b_.CreateTrunc(a, dty);
        } else {
            r = st.is_signed() ? b_.CreateSExt(a, dty) : b_.CreateZExt(a, dty);
        }
    }
    set(in, in.operands[0], r, dt.is_signed());
}

Value* function_lowering::compare(const instruction& in, const std::string& c, scalar_type t, Value* a, Value* b) {
    using P = llvm::CmpInst::Predicate;
    if (t.is_float() && t.bits == 16) {  // compared in float (exact), as halves are computed
        a = b_.CreateFPExt(a, llvm::Type::getFloatTy(mc_.ctx));
        b = b_.CreateFPExt(b, llvm::Type::getFloatTy(mc_.ctx));
    }
    if (t.is_float()) {
        static const std::map<std::string, P> f = {{"eq", P::FCMP_OEQ},  {"ne", P::FCMP_ONE},  {"lt", P::FCMP_OLT},
                                                   {"le", P::FCMP_OLE},  {"gt", P::FCMP_OGT},  {"ge", P::FCMP_OGE},
                                                   {"equ", P::FCMP_UEQ}, {"neu", P::FCMP_UNE}, {"ltu", P::FCMP_ULT},
                                                   {"leu", P::FCMP_ULE}, {"gtu", P::FCMP_UGT}, {"geu", P::FCMP_UGE},
                                                   {"num", P::FCMP_ORD}, {"nan", P::FCMP_UNO}};
        auto it = f.find(c);
        if (it == f.end()) refuse(in, "unknown comparison " + c);
        return b_.CreateFCmp(it->second, a, b);
    }
    const bool s = t.is_signed();
    static const std::map<std::string, std::pair<P, P>> i = {
        {"eq", {P::ICMP_EQ, P::ICMP_EQ}},   {"ne", {P::ICMP_NE, P::ICMP_NE}},   {"lt", {P::ICMP_SLT, P::ICMP_ULT}},
        {"le", {P::ICMP_SLE, P::ICMP_ULE}}, {"gt", {P::ICMP_SGT, P::ICMP_UGT}}, {"ge", {P::ICMP_SGE, P::ICMP_UGE}},
        {"lo", {P::ICMP_ULT, P::ICMP_ULT}}, {"ls", {P::ICMP_ULE, P::ICMP_ULE}}, {"hi", {P::ICMP_UGT, P::ICMP_UGT}},
        {"hs", {P::ICMP_UGE, P::ICMP_UGE}}};
    auto it = i.find(c);
    if (it == i.end()) refuse(in, "unknown comparison " + c);
    return b_.CreateICmp(s ? it->second.first : it->second.second, a, b);
}

void function_lowering::lower_setp(const instruction& in) {
    need(in, 3);
    const scalar_type t = type1(in);
    const std::string cmp = in.mods.empty() ? "" : in.mods[0];
    Value* r = compare(in, cmp, t, src(in, in.operands[1], t), src(in, in.operands[2], t));
    Value* nr = b_.CreateNot(r);
    if (in.operands.size() > 3) {  // .and/.or/.xor with a predicate
        Value* c = src(in, in.operands[3], scalar_type{scalar_type::kind::pred, 1});
        auto combine = [&](Value* x) -> Value* {
            if (in.has("and")) return b_.CreateAnd(x, c);
            if (in.has("or")) return b_.CreateOr(x, c);
            if (in.has("xor")) return b_.CreateXor(x, c);
            refuse(in, "a fourth operand without .and, .or or .xor");
        };
        r = combine(r);
        nr = combine(nr);
    }
    const operand& d = in.operands[0];
    if (d.k == operand::kind::vector) {
        set(in, d.elements[0], r);
        set(in, d.elements[1], nr);
    } else {
        set(in, d, r);
    }
}

// Carry chains, multi-word integer arithmetic (add.cc, addc, sub.cc, subc, mad{,c}.{lo,hi}.cc,
// madc): the carry out of the instruction, or the borrow for a subtraction, in the function's
// flag, which the next instruction of the chain adds (or subtracts).
void function_lowering::lower_carry(const instruction& in, scalar_type t) {
    const std::string& op = in.opcode;
    const bool mad = op == "mad" || op == "madc", subtract = op == "sub" || op == "subc";
    need(in, mad ? 4 : 3);
    if (!carry_) carry_ = entry_alloca(mc_.i1, "carry");
    llvm::Type* ty = mc_.int_type(t.bits);
    Value* x = src(in, in.operands[1], t);
    Value* y = src(in, in.operands[2], t);
    Value* left = x;
    Value* right = y;
    if (mad) {
        llvm::Type* wide = mc_.int_type(t.bits * 2);
        auto extend = [&](Value* v) { return t.is_signed() ? b_.CreateSExt(v, wide) : b_.CreateZExt(v, wide); };
        Value* product = b_.CreateMul(extend(x), extend(y));
        if (in.has("hi")) product = b_.CreateLShr(product, static_cast<uint64_t>(t.bits));
        left = b_.CreateTrunc(product, ty);
        right = src(in, in.operands[3], t);
    }
    const auto with_flag = subtract ? llvm::Intrinsic::usub_with_overflow : llvm::Intrinsic::uadd_with_overflow;
    Value* first = b_.CreateBinaryIntrinsic(with_flag, left, right);
    Value* result = b_.CreateExtractValue(first, 0);
    Value* flag = b_.CreateExtractValue(first, 1);
    if (op == "addc" || op == "subc" || op == "madc") {
        Value* second = b_.CreateBinaryIntrinsic(with_flag, result, b_.CreateZExt(b_.CreateLoad(mc_.i1, carry_), ty));
        result = b_.CreateExtractValue(second, 0);
        flag = b_.CreateOr(flag, b_.CreateExtractValue(second, 1));
    }
    if (in.has("cc")) b_.CreateStore(flag, carry_);
    set(in, in.operands[0], result);
}

// Packed half pairs (__hadd2, __hmul2, __hfma2, ...): a 32-bit register holds two halves, low
// and high, computed lane by lane as one <2 x float> and rounded back to half once, which gives
// the correctly rounded half result (float has more than twice half's precision, plus two bits;
// x86's code generator also cannot select every half vector operation). .sat clamps each to
// [0, 1] (NaN to 0).
void function_lowering::lower_half2(const instruction& in) {
    const std::string& op = in.opcode;
    auto* halves = llvm::FixedVectorType::get(llvm::Type::getHalfTy(mc_.ctx), 2);
    auto* floats = llvm::FixedVectorType::get(llvm::Type::getFloatTy(mc_.ctx), 2);
    const scalar_type b32{scalar_type::kind::bits, 32};
    auto a = [&](size_t i) {
        return b_.CreateFPExt(b_.CreateBitCast(src(in, in.operands.at(i), b32), halves), floats);
    };
    Value* r = nullptr;
    if (op == "add" || op == "sub" || op == "mul") {
        need(in, 3);
        r = op == "add"   ? b_.CreateFAdd(a(1), a(2))
            : op == "sub" ? b_.CreateFSub(a(1), a(2))
                          : b_.CreateFMul(a(1), a(2));
    } else if (op == "fma") {
        need(in, 4);
        r = fma_for_half(a(1), a(2), a(3));
    } else if (op == "neg" || op == "abs") {
        need(in, 2);
        r = op == "neg" ? b_.CreateFNeg(a(1)) : b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a(1));
    } else if (op == "min" || op == "max") {
        need(in, 3);
        auto raw = [&](size_t i) { return b_.CreateBitCast(src(in, in.operands.at(i), b32), halves); };
        Value* m = half_min_max(raw(1), raw(2), op == "min", in.has("NaN"));
        return set(in, in.operands[0], b_.CreateBitCast(m, mc_.i32));
    } else {
        refuse(in, "packed .f16x2 " + op + " is not supported");
    }
    if (in.has("sat")) {
        r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, r, llvm::ConstantFP::get(r->getType(), 0.0));
        r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, r, llvm::ConstantFP::get(r->getType(), 1.0));
    }
    r = relu(in, r);
    set(in, in.operands[0], b_.CreateBitCast(b_.CreateFPTrunc(r, halves), mc_.i32));
}

// x * y + z for halves held in floats (scalars or vectors), ready for one rounding to half: the
// product of two halves is exact in float, and the sum is rounded to float with round-to-odd
// (TwoSum's error says which way an inexact sum went), so rounding it to half is correct. Plain
// float rounding, then half rounding, missed 1 in 131072 random cases.
// min/max of halves (scalars or vectors) on their bit patterns, as integers: LLVM 15's x86 code
// generator crashes on vectors of half compares and selects that the optimizer would form from a
// float version. As CUDA: -0 is less than +0; a NaN operand yields the other one, or with .NaN a
// NaN.
Value* function_lowering::half_min_max(Value* x, Value* y, bool is_min, bool nan_result, uint16_t inf_bits) {
    llvm::Type* ht = x->getType();
    llvm::Type* it = ht->isVectorTy() ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(
                                            mc_.i16, llvm::cast<llvm::FixedVectorType>(ht)->getNumElements()))
                                      : mc_.i16;
    auto k = [&](uint16_t v) { return llvm::ConstantInt::get(it, v); };
    Value* xb = b_.CreateBitCast(x, it);
    Value* yb = b_.CreateBitCast(y, it);
    // Unsigned keys in the floats' order: negatives flipped, positives above them.
    auto key = [&](Value* v) {
        return b_.CreateSelect(b_.CreateICmpNE(b_.CreateAnd(v, k(0x8000)), k(0)), b_.CreateNot(v),
                               b_.CreateOr(v, k(0x8000)));
    };
    Value* x_first = is_min ? b_.CreateICmpULT(key(xb), key(yb)) : b_.CreateICmpUGT(key(xb), key(yb));
    Value* r = b_.CreateSelect(x_first, xb, yb);
    Value* x_nan = b_.CreateICmpUGT(b_.CreateAnd(xb, k(0x7FFF)), k(inf_bits));
    Value* y_nan = b_.CreateICmpUGT(b_.CreateAnd(yb, k(0x7FFF)), k(inf_bits));
    if (nan_result)
        r = b_.CreateSelect(b_.CreateOr(x_nan, y_nan), k(0x7FFF), r);
    else
        r = b_.CreateSelect(x_nan, yb, b_.CreateSelect(y_nan, xb, r));
    return b_.CreateBitCast(r, ht);
}

Value* function_lowering::fma_for_half(Value* x, Value* y, Value* z) {
    llvm::Type* ft = x->getType();
    llvm::Type* it = ft->isVectorTy() ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(
                                            mc_.i32, llvm::cast<llvm::FixedVectorType>(ft)->getNumElements()))
                                      : mc_.i32;
    Value* product = b_.CreateFMul(x, y);
    Value* sum = b_.CreateFAdd(product, z);
    Value* back = b_.CreateFSub(sum, product);
    Value* error = b_.CreateFAdd(b_.CreateFSub(product, b_.CreateFSub(sum, back)), b_.CreateFSub(z, back));
    Value* bits = b_.CreateBitCast(sum, it);
    Value* zero = llvm::ConstantFP::get(ft, 0.0);
    Value* one = llvm::ConstantInt::get(it, 1);
    Value* even = b_.CreateICmpEQ(b_.CreateAnd(bits, one), llvm::ConstantInt::get(it, 0));
    Value* inexact = b_.CreateFCmpONE(error, zero);
    Value* away = b_.CreateICmpEQ(b_.CreateFCmpOLT(error, zero), b_.CreateFCmpOLT(sum, zero));
    Value* odd = b_.CreateSelect(away, b_.CreateAdd(bits, one), b_.CreateSub(bits, one));
    return b_.CreateBitCast(b_.CreateSelect(b_.CreateAnd(inexact, even), odd, bits), ft);
}

void function_lowering::lower_int_arith(const instruction& in, scalar_type t) {
    const std::string& op = in.opcode;
    if (op == "addc" || op == "subc" || op == "madc" || in.has("cc")) return lower_carry(in, t);
    const operand& d = in.operands.empty() ? operand{} : in.operands[0];
    auto a = [&](size_t i, scalar_type ty) { return src(in, in.operands.at(i), ty); };
    llvm::Type* ty = mc_.llvm_type(t);
    const bool s = t.is_signed();
    auto wide = [&](Value* x) {
        return s ? b_.CreateSExt(x, mc_.int_type(t.bits * 2)) : b_.CreateZExt(x, mc_.int_type(t.bits * 2));
    };
    auto hi = [&](Value* x, Value* y) {
        Value* p = b_.CreateMul(wide(x), wide(y));
        return b_.CreateTrunc(b_.CreateLShr(p, static_cast<uint64_t>(t.bits)), ty);
    };
    if (op == "add" || op == "sub") {
        need(in, 3);
        Value* x = a(1, t);
        Value* y = a(2, t);
        if (in.has("sat"))
            return set(
                in, d,
                b_.CreateBinaryIntrinsic(op == "add" ? llvm::Intrinsic::sadd_sat : llvm::Intrinsic::ssub_sat, x, y));
        return set(in, d, op == "add" ? b_.CreateAdd(x, y) : b_.CreateSub(x, y));
    }
    if (op == "mul" || op == "mul24") {
        need(in, 3);
        Value* x = a(1, t);
        Value* y = a(2, t);
        if (op == "mul24") {  // the low 24 bits of each, as a 48-bit product
            Value* x24 = s ? b_.CreateAShr(b_.CreateShl(x, 8), 8) : b_.CreateAnd(x, 0xFFFFFF);
            Value* y24 = s ? b_.CreateAShr(b_.CreateShl(y, 8), 8) : b_.CreateAnd(y, 0xFFFFFF);
            if (in.has("hi"))
                return set(in, d, b_.CreateTrunc(b_.CreateLShr(b_.CreateMul(wide(x24), wide(y24)), 16), ty));
            return set(in, d, b_.CreateMul(x24, y24));
        }
        if (in.has("wide")) return set(in, d, b_.CreateMul(wide(x), wide(y)));
        if (in.has("hi")) return set(in, d, hi(x, y));
        return set(in, d, b_.CreateMul(x, y));
    }
    if (op == "mad" || op == "mad24") {
        need(in, 4);
        Value* x = a(1, t);
        Value* y = a(2, t);
        if (in.has("wide")) {
            Value* c = a(3, scalar_type{t.k, t.bits * 2});
            return set(in, d, b_.CreateAdd(b_.CreateMul(wide(x), wide(y)), c));
        }
        Value* c = a(3, t);
        if (op == "mad24") {
            Value* x24 = s ? b_.CreateAShr(b_.CreateShl(x, 8), 8) : b_.CreateAnd(x, 0xFFFFFF);
            Value* y24 = s ? b_.CreateAShr(b_.CreateShl(y, 8), 8) : b_.CreateAnd(y, 0xFFFFFF);
            return set(in, d, b_.CreateAdd(b_.CreateMul(x24, y24), c));
        }
        if (in.has("hi")) return set(in, d, b_.CreateAdd(hi(x, y), c));
        return set(in, d, b_.CreateAdd(b_.CreateMul(x, y), c));
    }
    if (op == "sad") {
        need(in, 4);
        Value* x = a(1, t);
        Value* y = a(2, t);
        Value* diff = b_.CreateSelect(s ? b_.CreateICmpSLT(x, y) : b_.CreateICmpULT(x, y), b_.CreateSub(y, x),
                                      b_.CreateSub(x, y));
        return set(in, d, b_.CreateAdd(diff, a(3, t)));
    }
    if (op == "div" || op == "rem") {
        need(in, 3);
        Value* x = a(1, t);
        Value* y = a(2, t);
        // PTX leaves division by zero unspecified; the host must not trap: divide by 1 instead and
        // give all ones, and keep INT_MIN / -1 from overflowing.
        Value* zero = b_.CreateICmpEQ(y, llvm::ConstantInt::get(ty, 0));
        Value* safe = b_.CreateSelect(zero, llvm::ConstantInt::get(ty, 1), y);
        if (s) {
            Value* minus_one = b_.CreateICmpEQ(safe, llvm::ConstantInt::get(ty, static_cast<uint64_t>(-1), true));
            safe = b_.CreateSelect(minus_one, llvm::ConstantInt::get(ty, 1), safe);
            Value* q = op == "div" ? b_.CreateSDiv(x, safe) : b_.CreateSRem(x, safe);
            Value* neg = op == "div" ? b_.CreateNeg(x) : llvm::ConstantInt::get(ty, 0);
            q = b_.CreateSelect(minus_one, neg, q);
            return set(in, d, b_.CreateSelect(zero, llvm::ConstantInt::get(ty, static_cast<uint64_t>(-1), true), q));
        }
        Value* q = op == "div" ? b_.CreateUDiv(x, safe) : b_.CreateURem(x, safe);
        return set(in, d, b_.CreateSelect(zero, llvm::ConstantInt::get(ty, static_cast<uint64_t>(-1), true), q));
    }
    if (op == "abs") return set(in, d, b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a(1, t), b_.getFalse()));
    if (op == "neg") return set(in, d, b_.CreateNeg(a(1, t)));
    if (op == "min" || op == "max") {
        need(in, 3);
        llvm::Intrinsic::ID id = op == "min" ? (s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin)
                                             : (s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax);
        Value* r = b_.CreateBinaryIntrinsic(id, a(1, t), a(2, t));
        // .relu (sm_90, __vimax_s32_relu): a negative result is 0.
        if (in.has("relu")) r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, r, llvm::ConstantInt::get(ty, 0));
        return set(in, d, r);
    }
    if (op == "set") {  // set.cmp.dtype.stype: all ones (or 1.0f) when true
        auto ts = types_of(in);
        const scalar_type st = ts.back(), dt = ts.front();
        Value* r = compare(in, in.mods[0], st, a(1, st), a(2, st));
        if (dt.is_float())
            return set(in, d,
                       b_.CreateSelect(r, llvm::ConstantFP::get(mc_.llvm_type(dt), 1.0),
                                       llvm::ConstantFP::get(mc_.llvm_type(dt), 0.0)));
        return set(in, d, b_.CreateSExt(r, mc_.llvm_type(dt)));
    }
    if (op == "slct") {
        auto ts = types_of(in);
        Value* c = a(3, ts.back());
        Value* ge = ts.back().is_float() ? b_.CreateFCmpOGE(c, llvm::ConstantFP::get(c->getType(), 0.0))
                                         : b_.CreateICmpSGE(c, llvm::ConstantInt::get(c->getType(), 0));
        return set(in, d, b_.CreateSelect(ge, a(1, ts.front()), a(2, ts.front())));
    }
    if (op == "isspacep") {
        Value* x = a(1, scalar_type{scalar_type::kind::uint, 64});
        Value* tag = b_.CreateAnd(x, b_.getInt64(window_mask));
        Value* r;
        if (in.has("shared"))
            r = b_.CreateICmpEQ(tag, b_.getInt64(shared_window));
        else if (in.has("local"))
            r = b_.CreateICmpEQ(tag, b_.getInt64(local_window));
        else if (in.has("const"))
            r = b_.CreateICmpEQ(tag, b_.getInt64(const_window));
        else if (in.has("param"))
            r = b_.CreateICmpEQ(tag, b_.getInt64(param_window));
        else  // global: VRAM, host memory and the module's variables
            r = b_.CreateOr(b_.CreateICmpULT(tag, b_.getInt64(param_window)),
                            b_.CreateICmpEQ(tag, b_.getInt64(module_globals_window)));
        return set(in, d, r);
    }
    if (op == "testp" || op == "copysign") return lower_float_arith(in, t);
    refuse(in, "not supported by the simulated GPU's PTX engine");
}

void function_lowering::lower_bits(const instruction& in, scalar_type t) {
    const std::string& op = in.opcode;
    const operand& d = in.operands.at(0);
    auto a = [&](size_t i, scalar_type ty) { return src(in, in.operands.at(i), ty); };
    const scalar_type u32{scalar_type::kind::uint, 32};
    llvm::Type* ty = mc_.llvm_type(t);
    const uint64_t w = static_cast<uint64_t>(t.bits);
    if (op == "and") return set(in, d, b_.CreateAnd(a(1, t), a(2, t)));
    if (op == "or") return set(in, d, b_.CreateOr(a(1, t), a(2, t)));
    if (op == "xor") return set(in, d, b_.CreateXor(a(1, t), a(2, t)));
    if (op == "not") return set(in, d, b_.CreateNot(a(1, t)));
    if (op == "cnot") return set(in, d, b_.CreateZExt(b_.CreateICmpEQ(a(1, t), llvm::ConstantInt::get(ty, 0)), ty));
    if (op == "shl" || op == "shr") {
        Value* x = a(1, t);
        Value* n = convert_bits(a(2, u32), ty);
        Value* big = b_.CreateICmpUGE(n, llvm::ConstantInt::get(ty, w));
        if (op == "shl") return set(in, d, b_.CreateSelect(big, llvm::ConstantInt::get(ty, 0), b_.CreateShl(x, n)));
        if (t.is_signed())
            return set(in, d, b_.CreateAShr(x, b_.CreateSelect(big, llvm::ConstantInt::get(ty, w - 1), n)));
        return set(in, d, b_.CreateSelect(big, llvm::ConstantInt::get(ty, 0), b_.CreateLShr(x, n)));
    }
    if (op == "popc")
        return set(in, d, convert_bits(b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, a(1, t)), mc_.i32));
    if (op == "clz")
        return set(in, d,
                   convert_bits(b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, a(1, t), b_.getFalse()), mc_.i32));
    if (op == "bfind") {
        // The most significant bit that is not a sign bit (of ~x for a negative signed x); with
        // .shiftamt, how far to shift it left to the top. 0xFFFFFFFF when there is none.
        Value* x = a(1, t);
        if (t.is_signed()) x = b_.CreateSelect(b_.CreateICmpSLT(x, llvm::ConstantInt::get(ty, 0)), b_.CreateNot(x), x);
        Value* zeros = convert_bits(b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b_.getFalse()), mc_.i32);
        Value* found = in.has("shiftamt") ? zeros : b_.CreateSub(b_.getInt32(static_cast<uint32_t>(w - 1)), zeros);
        Value* none = b_.CreateICmpEQ(x, llvm::ConstantInt::get(ty, 0));
        return set(in, d, b_.CreateSelect(none, b_.getInt32(0xFFFFFFFFu), found));
    }
    if (op == "brev") return set(in, d, b_.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, a(1, t)));
    if (op == "bfe") {
        Value* x = a(1, t);
        Value* pos = convert_bits(b_.CreateAnd(a(2, u32), 0xFF), ty);
        Value* len = convert_bits(b_.CreateAnd(a(3, u32), 0xFF), ty);
        Value* wm1 = llvm::ConstantInt::get(ty, w - 1);
        Value* top = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                              b_.CreateSub(b_.CreateAdd(pos, len), llvm::ConstantInt::get(ty, 1)), wm1);
        Value* up = b_.CreateSub(wm1, top);
        Value* p = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, pos, wm1);
        Value* r = t.is_signed() ? b_.CreateAShr(b_.CreateAShr(b_.CreateShl(x, up), up), p)
                                 : b_.CreateLShr(b_.CreateLShr(b_.CreateShl(x, up), up), p);
        if (!t.is_signed())
            r = b_.CreateSelect(b_.CreateICmpUGE(pos, llvm::ConstantInt::get(ty, w)), llvm::ConstantInt::get(ty, 0), r);
        return set(
            in, d,
            b_.CreateSelect(b_.CreateICmpEQ(len, llvm::ConstantInt::get(ty, 0)), llvm::ConstantInt::get(ty, 0), r));
    }
    if (op == "bfi") {
        Value* f = a(1, t);
        Value* base = a(2, t);
        Value* pos = convert_bits(b_.CreateAnd(a(3, u32), 0xFF), ty);
        Value* len = convert_bits(b_.CreateAnd(a(4, u32), 0xFF), ty);
        Value* wc = llvm::ConstantInt::get(ty, w);
        Value* ones = llvm::ConstantInt::get(ty, static_cast<uint64_t>(-1), true);
        Value* field = b_.CreateSelect(
            b_.CreateICmpUGE(len, wc), ones,
            b_.CreateSub(b_.CreateShl(llvm::ConstantInt::get(ty, 1), len), llvm::ConstantInt::get(ty, 1)));
        Value* mask = b_.CreateShl(field, pos);
        Value* r = b_.CreateOr(b_.CreateAnd(base, b_.CreateNot(mask)), b_.CreateAnd(b_.CreateShl(f, pos), mask));
        return set(in, d, b_.CreateSelect(b_.CreateICmpUGE(pos, wc), base, r));
    }
    if (op == "prmt") {
        Value* x = b_.CreateZExt(a(1, u32), mc_.i64);
        Value* y = b_.CreateZExt(a(2, u32), mc_.i64);
        Value* sel = a(3, u32);
        Value* both = b_.CreateOr(x, b_.CreateShl(y, 32));
        if (in.mods.size() > 1) return set(in, d, permute_mode(in, both, sel));
        Value* r = b_.getInt32(0);
        for (uint64_t i = 0; i < 4; ++i) {
            Value* s = b_.CreateAnd(b_.CreateLShr(sel, 4 * i), 0xF);
            Value* idx = b_.CreateZExt(b_.CreateAnd(s, 7), mc_.i64);
            Value* byte = b_.CreateTrunc(b_.CreateLShr(both, b_.CreateMul(idx, b_.getInt64(8))), mc_.i8);
            Value* sign = b_.CreateSExt(b_.CreateICmpSLT(byte, b_.getInt8(0)), mc_.i8);
            byte = b_.CreateSelect(b_.CreateICmpNE(b_.CreateAnd(s, 8), b_.getInt32(0)), sign, byte);
            r = b_.CreateOr(r, b_.CreateShl(b_.CreateZExt(byte, mc_.i32), 8 * i));
        }
        return set(in, d, r);
    }
    if (op == "lop3") {
        Value* x = a(1, t);
        Value* y = a(2, t);
        Value* z = a(3, t);
        if (in.operands.at(4).k != operand::kind::imm_int) refuse(in, "lop3 needs an immediate truth table");
        const uint64_t lut = static_cast<uint64_t>(in.operands[4].value) & 0xFF;
        Value* r = llvm::ConstantInt::get(ty, 0);
        for (int i = 0; i < 8; ++i) {
            if (!((lut >> i) & 1)) continue;
            Value* m = b_.CreateAnd(b_.CreateAnd(i & 4 ? x : b_.CreateNot(x), i & 2 ? y : b_.CreateNot(y)),
                                    i & 1 ? z : b_.CreateNot(z));
            r = b_.CreateOr(r, m);
        }
        return set(in, d, r);
    }
    if (op == "bmsk") {
        // bmsk.{clamp,wrap}.b32 d, a, b: b bits set from bit a. Both taken mod 32 (.wrap), or
        // with .clamp a >= 32 gives 0 and b >= 32 every bit from a up; a + b past 32 stops at 32.
        need(in, 3);
        Value* pos = a(1, u32);
        Value* len = a(2, u32);
        Value* p = b_.CreateAnd(pos, 31);
        Value* n = b_.CreateAnd(len, 31);
        Value* low = b_.CreateShl(b_.getInt32(0xFFFFFFFFu), p);
        Value* sum = b_.CreateAdd(p, n);
        Value* high = b_.CreateSelect(b_.CreateICmpUGE(sum, b_.getInt32(32)), b_.getInt32(0xFFFFFFFFu),
                                      b_.CreateNot(b_.CreateShl(b_.getInt32(0xFFFFFFFFu), sum)));
        Value* r = b_.CreateAnd(low, high);
        if (in.has("clamp")) {
            r = b_.CreateSelect(b_.CreateICmpUGE(len, b_.getInt32(32)), low, r);
            r = b_.CreateSelect(b_.CreateICmpUGE(pos, b_.getInt32(32)), b_.getInt32(0), r);
        }
        return set(in, d, r);
    }
    if (op == "szext") {
        // szext.{clamp,wrap}.{u32,s32} d, a, b: the low b bits of a, zero- or sign-extended; b taken
        // mod 32 (.wrap), or with .clamp b >= 32 keeps a whole. b = 0 gives 0.
        need(in, 3);
        Value* x = a(1, u32);
        Value* len = a(2, u32);
        Value* n = b_.CreateAnd(len, 31);
        Value* too_large = in.has("clamp") ? b_.CreateICmpUGE(len, b_.getInt32(32)) : b_.getFalse();
        Value* mask = b_.CreateSelect(too_large, b_.getInt32(0), b_.CreateShl(b_.getInt32(0xFFFFFFFFu), n));
        Value* r = b_.CreateAnd(x, b_.CreateNot(mask));
        if (t.is_signed()) {
            Value* sign_at = b_.CreateAnd(b_.CreateSub(n, b_.getInt32(1)), 31);
            Value* sign = b_.CreateTrunc(b_.CreateLShr(x, sign_at), mc_.i1);
            sign = b_.CreateAnd(sign, b_.CreateAnd(b_.CreateICmpNE(n, b_.getInt32(0)), b_.CreateNot(too_large)));
            r = b_.CreateSelect(sign, b_.CreateOr(r, mask), r);
        }
        return set(in, d, r);
    }
    if (op == "fns") {
        // fns.b32 d, mask, base, offset: the offset-th set bit of mask counting from bit base (up
        // for offset > 0, down for < 0, base itself for 0), or 0xFFFFFFFF. Found with popcounts:
        // up, the n-th set bit of mask >> base; down, of the bits at or below base, from the top.
        need(in, 4);
        const scalar_type s32{scalar_type::kind::sint, 32};
        Value* m = a(1, u32);
        Value* base = b_.CreateAnd(a(2, u32), 31);
        Value* offset = a(3, s32);
        Value* none = b_.getInt32(0xFFFFFFFFu);
        Value* one = b_.getInt64(1);
        Value* m64 = b_.CreateZExt(m, mc_.i64);
        Value* b64 = b_.CreateZExt(base, mc_.i64);
        Value* up_bits = b_.CreateLShr(m64, b64);
        Value* down_bits = b_.CreateAnd(m64, b_.CreateSub(b_.CreateShl(one, b_.CreateAdd(b64, one)), one));
        Value* k = b_.CreateZExt(
            b_.CreateSelect(b_.CreateICmpSLT(offset, b_.getInt32(0)), b_.CreateNeg(offset), offset), mc_.i64);
        auto nth_set = [&](Value* v, Value* n) {  // position of the n-th (from 1) set bit of v, or 64
            Value* pos = b_.getInt64(0);
            Value* left = n;
            for (uint64_t step = 32; step >= 1; step /= 2) {
                Value* low = b_.CreateAnd(b_.CreateLShr(v, pos), b_.getInt64((1ull << step) - 1));
                Value* count = b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, low);
                Value* skip = b_.CreateICmpULT(count, left);
                pos = b_.CreateSelect(skip, b_.CreateAdd(pos, b_.getInt64(step)), pos);
                left = b_.CreateSelect(skip, b_.CreateSub(left, count), left);
            }
            Value* found = b_.CreateICmpUGE(b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, v), n);
            return b_.CreateSelect(found, pos, b_.getInt64(64));
        };
        Value* up = nth_set(up_bits, k);
        Value* up_r =
            b_.CreateSelect(b_.CreateICmpEQ(up, b_.getInt64(64)), none, b_.CreateTrunc(b_.CreateAdd(up, b64), mc_.i32));
        // Down: the k-th set bit from the top of down_bits is the (popc - k + 1)-th from the bottom.
        Value* total = b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, down_bits);
        Value* enough = b_.CreateICmpUGE(total, k);
        Value* down = nth_set(down_bits, b_.CreateAdd(b_.CreateSub(total, k), one));
        Value* down_r = b_.CreateSelect(enough, b_.CreateTrunc(down, mc_.i32), none);
        Value* at_base = b_.CreateSelect(b_.CreateTrunc(b_.CreateLShr(m, base), mc_.i1), base, none);
        Value* r = b_.CreateSelect(b_.CreateICmpEQ(offset, b_.getInt32(0)), at_base,
                                   b_.CreateSelect(b_.CreateICmpSGT(offset, b_.getInt32(0)), up_r, down_r));
        return set(in, d, r);
    }
    if (op == "dp4a" || op == "dp2a") {
        // dp4a.atype.btype d, a, b, c: c plus the products of a's and b's bytes; dp2a.{lo,hi}: of
        // a's two halves and two bytes of b (bytes 0 and 1, or 2 and 3). Each signed or not as
        // its type says; the sum wraps at 32 bits.
        need(in, 4);
        const auto ts = types_of(in);
        if (ts.size() != 2) refuse(in, "expected the types of a and b");
        Value* x = a(1, u32);
        Value* y = a(2, u32);
        Value* r = a(3, u32);
        auto part = [&](Value* v, unsigned at, unsigned bits, bool is_signed) {
            Value* p = b_.CreateTrunc(b_.CreateLShr(v, at), mc_.int_type(static_cast<int>(bits)));
            return is_signed ? b_.CreateSExt(p, mc_.i32) : b_.CreateZExt(p, mc_.i32);
        };
        const bool sa = ts[0].is_signed(), sb = ts[1].is_signed();
        if (op == "dp4a") {
            for (unsigned i = 0; i < 4; ++i)
                r = b_.CreateAdd(r, b_.CreateMul(part(x, 8 * i, 8, sa), part(y, 8 * i, 8, sb)));
        } else {
            const unsigned first = in.has("hi") ? 2 : 0;
            for (unsigned i = 0; i < 2; ++i)
                r = b_.CreateAdd(r, b_.CreateMul(part(x, 16 * i, 16, sa), part(y, 8 * (first + i), 8, sb)));
        }
        return set(in, d, r);
    }
    refuse(in, "not supported by the simulated GPU's PTX engine");
}

// prmt.b32.{f4e,b4e,rc8,ecl,ecr,rc16}: the byte each result byte takes from {b, a} (bytes 7..0),
// by the mode and the low two bits of c (the ISA's table; rc16 reads one bit).
Value* function_lowering::permute_mode(const instruction& in, Value* both, Value* sel) {
    // Per mode, for selector 0..3, result bytes 0..3: nibble (4 * selector + byte).
    static const std::map<std::string, std::array<uint8_t, 16>> tables = {
        {"f4e", {0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6}},
        {"b4e", {0, 7, 6, 5, 1, 0, 7, 6, 2, 1, 0, 7, 3, 2, 1, 0}},
        {"rc8", {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}},
        {"ecl", {0, 1, 2, 3, 1, 1, 2, 3, 2, 2, 2, 3, 3, 3, 3, 3}},
        {"ecr", {0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 2, 2, 0, 1, 2, 3}},
        {"rc16", {0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3}}};
    const std::array<uint8_t, 16>* table = nullptr;
    for (const auto& m : in.mods)
        if (auto it = tables.find(m); it != tables.end()) table = &it->second;
    if (!table) refuse(in, "unknown prmt mode");
    uint64_t packed = 0;
    for (size_t i = 0; i < 16; ++i) packed |= uint64_t((*table)[i]) << (4 * i);
    Value* row = b_.CreateMul(b_.CreateZExt(b_.CreateAnd(sel, 3), mc_.i64), b_.getInt64(16));
    Value* r = b_.getInt32(0);
    for (uint64_t i = 0; i < 4; ++i) {
        Value* idx = b_.CreateAnd(b_.CreateLShr(b_.getInt64(packed), b_.CreateAdd(row, b_.getInt64(4 * i))), 7);
        Value* byte = b_.CreateTrunc(b_.CreateLShr(both, b_.CreateMul(idx, b_.getInt64(8))), mc_.i8);
        r = b_.CreateOr(r, b_.CreateShl(b_.CreateZExt(byte, mc_.i32), 8 * i));
    }
    return r;
}

// min/max of packed 16-bit integer pairs (.u16x2, .s16x2; sm_90's __vimax_s16x2 and friends),
// lane by lane; .relu makes a negative lane 0.
void function_lowering::lower_int16x2(const instruction& in) {
    const std::string& op = in.opcode;
    if (op != "min" && op != "max") refuse(in, "packed 16-bit integer " + op + " is not supported");
    need(in, 3);
    const bool is_signed = in.has("s16x2");
    const scalar_type b32{scalar_type::kind::bits, 32};
    auto* pair = llvm::FixedVectorType::get(mc_.i16, 2);
    Value* x = b_.CreateBitCast(src(in, in.operands[1], b32), pair);
    Value* y = b_.CreateBitCast(src(in, in.operands[2], b32), pair);
    const llvm::Intrinsic::ID id = op == "min" ? (is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin)
                                               : (is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax);
    Value* r = b_.CreateBinaryIntrinsic(id, x, y);
    if (in.has("relu")) r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, r, llvm::ConstantInt::get(pair, 0));
    set(in, in.operands[0], b_.CreateBitCast(r, mc_.i32));
}

// vadd4 ... vset4, vadd2 ... vset2 (simd_video.hpp): per lane, the selected elements of {b, a}
// extended to 32 bits, the operation, .sat's clamp; then the merge with c or the sum into c.
void function_lowering::lower_simd_video(const instruction& in) {
    simd_video_code code;
    std::string why;
    if (!simd_video_code_of(in, code, why)) refuse(in, why);
    using operation = simd_video_code::operation;
    using comparison = simd_video_code::comparison;
    const scalar_type b32{scalar_type::kind::bits, 32};
    const unsigned width = code.lanes == 4 ? 8 : 16;
    Value* both = b_.CreateOr(b_.CreateShl(b_.CreateZExt(src(in, code.b, b32), mc_.i64), 32),
                              b_.CreateZExt(src(in, code.a, b32), mc_.i64));
    Value* c = src(in, code.c, b32);
    auto element = [&](uint8_t index, bool is_signed) {
        Value* e = b_.CreateTrunc(b_.CreateLShr(both, uint64_t{index} * width), mc_.int_type(static_cast<int>(width)));
        return is_signed ? b_.CreateSExt(e, mc_.i32) : b_.CreateZExt(e, mc_.i32);
    };
    const int64_t lo = code.d_signed ? -(int64_t{1} << (width - 1)) : 0;
    const int64_t hi = code.d_signed ? (int64_t{1} << (width - 1)) - 1 : (int64_t{1} << width) - 1;
    Value* d = code.accumulate ? c : b_.getInt32(0);
    for (int i = 0; i < code.lanes; ++i) {
        // Lane values fit 17 bits with their sign: i32 arithmetic is exact.
        Value* x = element(code.a_select[static_cast<size_t>(i)], code.a_signed);
        Value* y = element(code.b_select[static_cast<size_t>(i)], code.b_signed);
        Value* t = nullptr;
        switch (code.op) {
        case operation::add:
            t = b_.CreateAdd(x, y);
            break;
        case operation::sub:
            t = b_.CreateSub(x, y);
            break;
        case operation::avrg: {
            Value* sum = b_.CreateAdd(x, y);
            Value* up = b_.CreateAShr(b_.CreateAdd(sum, b_.getInt32(1)), 1);
            t = b_.CreateSelect(b_.CreateICmpSGE(sum, b_.getInt32(0)), up, b_.CreateAShr(sum, 1));
            break;
        }
        case operation::absdiff:
            t = b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, b_.CreateSub(x, y), b_.getFalse());
            break;
        case operation::min:
            t = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y);
            break;
        case operation::max:
            t = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, y);
            break;
        case operation::set: {
            const llvm::CmpInst::Predicate p = code.cmp == comparison::eq   ? llvm::CmpInst::ICMP_EQ
                                               : code.cmp == comparison::ne ? llvm::CmpInst::ICMP_NE
                                               : code.cmp == comparison::lt ? llvm::CmpInst::ICMP_SLT
                                               : code.cmp == comparison::le ? llvm::CmpInst::ICMP_SLE
                                               : code.cmp == comparison::gt ? llvm::CmpInst::ICMP_SGT
                                                                            : llvm::CmpInst::ICMP_SGE;
            t = b_.CreateZExt(b_.CreateICmp(p, x, y), mc_.i32);
            break;
        }
        }
        if (code.saturate) {
            t = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, t, b_.getInt32(static_cast<uint32_t>(lo)));
            t = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, t, b_.getInt32(static_cast<uint32_t>(hi)));
        }
        if (!(code.mask & (1u << i))) {
            if (!code.accumulate) {
                const uint32_t field = ((width == 8 ? 0xFFu : 0xFFFFu) << (width * static_cast<unsigned>(i)));
                d = b_.CreateOr(d, b_.CreateAnd(c, b_.getInt32(field)));
            }
            continue;
        }
        if (code.accumulate) {
            d = b_.CreateAdd(d, t);
        } else {
            Value* low = b_.CreateAnd(t, b_.getInt32(width == 8 ? 0xFFu : 0xFFFFu));
            d = b_.CreateOr(d, b_.CreateShl(low, width * static_cast<unsigned>(i)));
        }
    }
    set(in, code.d, d);
}

void function_lowering::lower_float_arith(const instruction& in, scalar_type t) {
    const std::string& op = in.opcode;
    const operand& d = in.operands.at(0);
    // Halves are computed in float and rounded back once (correctly rounded: float has more than
    // twice half's precision, plus two bits; fma through fma_for_half). x86's code generator in
    // LLVM 15 cannot select every vector of halves the vectorizer would otherwise form.
    const bool half = t.bits == 16 && op != "testp";
    llvm::Type* ty = half ? llvm::Type::getFloatTy(mc_.ctx) : mc_.llvm_type(t);
    auto a = [&](size_t i) {
        Value* v = src(in, in.operands.at(i), t);
        return half ? b_.CreateFPExt(v, ty) : v;
    };
    auto set = [&](const instruction& i, const operand& o, Value* v) {
        if (half && v->getType()->isFloatTy()) v = b_.CreateFPTrunc(v, mc_.llvm_type(t));
        this->set(i, o, v);
    };
    auto saturate = [&](Value* v) -> Value* {
        if (half) v = relu(in, v);
        if (!in.has("sat")) return v;
        v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, v, llvm::ConstantFP::get(ty, 0.0));
        return b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, v, llvm::ConstantFP::get(ty, 1.0));
    };
    auto unary = [&](llvm::Intrinsic::ID id) { return set(in, d, saturate(b_.CreateUnaryIntrinsic(id, a(1)))); };
    if (in.has("rz") || in.has("rm") || in.has("rp")) {
        if (t.bits == 32 && (op == "add" || op == "sub" || op == "mul" || op == "fma" || op == "mad"))
            return set(in, d, saturate(directed_f32(in)));
        return set(in, d, saturate(directed_by_host(in, t)));
    }
    if (op == "add") return set(in, d, saturate(b_.CreateFAdd(a(1), a(2))));
    if (op == "sub") return set(in, d, saturate(b_.CreateFSub(a(1), a(2))));
    if (op == "mul") return set(in, d, saturate(b_.CreateFMul(a(1), a(2))));
    if (op == "fma" || op == "mad") {
        if (half) return set(in, d, saturate(fma_for_half(a(1), a(2), a(3))));
        return set(in, d, saturate(b_.CreateIntrinsic(llvm::Intrinsic::fma, {ty}, {a(1), a(2), a(3)})));
    }
    if (op == "div") return set(in, d, b_.CreateFDiv(a(1), a(2)));
    if (op == "rcp") return set(in, d, b_.CreateFDiv(llvm::ConstantFP::get(ty, 1.0), a(1)));
    if (op == "sqrt") return unary(llvm::Intrinsic::sqrt);
    if (op == "rsqrt")
        return set(in, d,
                   b_.CreateFDiv(llvm::ConstantFP::get(ty, 1.0), b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a(1))));
    if (op == "sin") return unary(llvm::Intrinsic::sin);
    if (op == "cos") return unary(llvm::Intrinsic::cos);
    if (op == "ex2") return unary(llvm::Intrinsic::exp2);
    if (op == "lg2") return unary(llvm::Intrinsic::log2);
    if (op == "tanh") {
        auto callee =
            mc_.mod.getOrInsertFunction(t.bits == 64 ? "tanh" : "tanhf", llvm::FunctionType::get(ty, {ty}, false));
        return set(in, d, b_.CreateCall(callee, {a(1)}));
    }
    if (op == "abs") return unary(llvm::Intrinsic::fabs);
    if (op == "neg") return set(in, d, b_.CreateFNeg(a(1)));
    if ((op == "min" || op == "max") && half) {
        Value* x = src(in, in.operands.at(1), t);
        Value* y = src(in, in.operands.at(2), t);
        return this->set(in, d, half_min_max(x, y, op == "min", in.has("NaN")));
    }
    if (op == "min" || op == "max") {
        // -0 is less than +0; without .NaN a NaN operand yields the other one, with it a NaN.
        // (LLVM 15's x86 back end cannot select llvm.minimum, so the order is spelled out: equal
        // operands differ at most in the sign of zero, which OR (min) or AND (max) of the bits
        // settles.)
        Value* x = a(1);
        Value* y = a(2);
        const bool is_min = op == "min";
        llvm::Type* it = mc_.int_type(t.bits);
        Value* xb = b_.CreateBitCast(x, it);
        Value* yb = b_.CreateBitCast(y, it);
        Value* tie = b_.CreateBitCast(is_min ? b_.CreateOr(xb, yb) : b_.CreateAnd(xb, yb), ty);
        Value* first = is_min ? b_.CreateFCmpOLT(x, y) : b_.CreateFCmpOGT(x, y);
        Value* second = is_min ? b_.CreateFCmpOLT(y, x) : b_.CreateFCmpOGT(y, x);
        Value* r = b_.CreateSelect(first, x, b_.CreateSelect(second, y, tie));
        Value* x_nan = b_.CreateFCmpUNO(x, x);
        Value* y_nan = b_.CreateFCmpUNO(y, y);
        if (in.has("NaN"))
            r = b_.CreateSelect(b_.CreateOr(x_nan, y_nan), llvm::ConstantFP::getNaN(ty), r);
        else
            r = b_.CreateSelect(x_nan, y, b_.CreateSelect(y_nan, x, r));
        return set(in, d, r);
    }
    if (op == "copysign") return set(in, d, b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, a(2), a(1)));
    if (op == "testp") {
        Value* x = a(1);
        Value* mag = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
        Value* inf = llvm::ConstantFP::getInfinity(ty);
        const llvm::fltSemantics& sem = ty->getFltSemantics();
        Value* smallest_normal = llvm::ConstantFP::get(ty, llvm::APFloat::getSmallestNormalized(sem));
        Value* r;
        if (in.has("finite"))
            r = b_.CreateFCmpOLT(mag, inf);
        else if (in.has("infinite"))
            r = b_.CreateFCmpOEQ(mag, inf);
        else if (in.has("number"))
            r = b_.CreateFCmpORD(x, x);
        else if (in.has("notanumber"))
            r = b_.CreateFCmpUNO(x, x);
        // The PTX ISA counts +0 and -0 as normal numbers.
        else if (in.has("normal"))
            r = b_.CreateOr(b_.CreateAnd(b_.CreateFCmpOGE(mag, smallest_normal), b_.CreateFCmpOLT(mag, inf)),
                            b_.CreateFCmpOEQ(mag, llvm::ConstantFP::get(ty, 0.0)));
        else if (in.has("subnormal"))
            r = b_.CreateAnd(b_.CreateFCmpOLT(mag, smallest_normal),
                             b_.CreateFCmpONE(mag, llvm::ConstantFP::get(ty, 0.0)));
        else
            refuse(in, "unknown testp property");
        return set(in, d, r);
    }
    if (op == "set" || op == "slct") return lower_int_arith(in, t);
    refuse(in, "not supported by the simulated GPU's PTX engine");
}

// f32 add/sub/mul/fma with .rz/.rm/.rp, exactly. In double a float product is exact, and a sum
// s = p + c rounds, but TwoSum gives its error e exactly, so the exact result is s + e. The
// nearest float to s lies on one side of it; when that is the wrong side (ties decided by the
// sign of e) the result is the float one step toward the wanted direction. An exact zero from
// operands of opposite signs is -0 when rounding down, +0 otherwise (IEEE 754 6.3).
Value* function_lowering::directed_f32(const instruction& in) {
    const scalar_type f32{scalar_type::kind::flt, 32};
    llvm::Type* dt = llvm::Type::getDoubleTy(mc_.ctx);
    llvm::Type* ft = llvm::Type::getFloatTy(mc_.ctx);
    auto a = [&](size_t i) { return b_.CreateFPExt(src(in, in.operands.at(i), f32), dt); };
    Value* zero = llvm::ConstantFP::get(dt, 0.0);
    Value* p;  // the exact first term, and the second (zero for mul)
    Value* c = zero;
    if (in.opcode == "mul")
        p = b_.CreateFMul(a(1), a(2));
    else if (in.opcode == "add")
        p = a(1), c = a(2);
    else if (in.opcode == "sub")
        p = a(1), c = b_.CreateFNeg(a(2));
    else
        p = b_.CreateFMul(a(1), a(2)), c = a(3);
    Value* x = in.opcode == "mul" ? p : b_.CreateFAdd(p, c);
    Value* e = zero;
    if (in.opcode != "mul") {  // TwoSum (Knuth): e = (p - (x - bb)) + (c - bb), bb = x - p
        Value* bb = b_.CreateFSub(x, p);
        e = b_.CreateFAdd(b_.CreateFSub(p, b_.CreateFSub(x, bb)), b_.CreateFSub(c, bb));
    }
    Value* r = b_.CreateFPTrunc(x, ft);
    Value* back = b_.CreateFPExt(r, dt);
    // back above / below the exact x + e
    Value* above =
        b_.CreateOr(b_.CreateFCmpOGT(back, x), b_.CreateAnd(b_.CreateFCmpOEQ(back, x), b_.CreateFCmpOLT(e, zero)));
    Value* below =
        b_.CreateOr(b_.CreateFCmpOLT(back, x), b_.CreateAnd(b_.CreateFCmpOEQ(back, x), b_.CreateFCmpOGT(e, zero)));
    auto next = mc_.mod.getOrInsertFunction("nextafterf", llvm::FunctionType::get(ft, {ft, ft}, false));
    Value* toward;
    Value* wrong;
    if (in.has("rm")) {
        toward = llvm::ConstantFP::getInfinity(ft, true), wrong = above;
    } else if (in.has("rp")) {
        toward = llvm::ConstantFP::getInfinity(ft, false), wrong = below;
    } else {
        toward = llvm::ConstantFP::get(ft, 0.0);
        wrong = b_.CreateSelect(b_.CreateFCmpOGT(x, zero), above, below);
    }
    Value* out = b_.CreateSelect(wrong, b_.CreateCall(next, {r, toward}), r);
    if (!in.has("rm") || in.opcode == "mul") return out;
    // Rounding down, an exact zero sum is -0 unless both terms are +0.
    Value* exact_zero = b_.CreateAnd(b_.CreateFCmpOEQ(x, zero), b_.CreateFCmpOEQ(e, zero));
    Value* both_plus_zero = b_.CreateAnd(b_.CreateAnd(b_.CreateFCmpOEQ(p, zero), b_.CreateFCmpOEQ(c, zero)),
                                         b_.CreateNot(b_.CreateOr(b_.CreateIsNeg(b_.CreateBitCast(p, mc_.i64)),
                                                                  b_.CreateIsNeg(b_.CreateBitCast(c, mc_.i64)))));
    Value* minus_zero = llvm::ConstantFP::get(ft, -0.0);
    return b_.CreateSelect(b_.CreateAnd(exact_zero, b_.CreateNot(both_plus_zero)), minus_zero, out);
}

// Directed rounding of f64 arithmetic and of f32 div, sqrt and rcp: the host's operation under
// the requested rounding mode (directed_rounding.cpp), exact for every input.
Value* function_lowering::directed_by_host(const instruction& in, scalar_type t) {
    static const std::map<std::string, uint32_t> ops = {
        {"add", rounded_add}, {"sub", rounded_sub}, {"mul", rounded_mul},   {"fma", rounded_fma},
        {"mad", rounded_fma}, {"div", rounded_div}, {"sqrt", rounded_sqrt}, {"rcp", rounded_rcp}};
    auto it = ops.find(in.opcode);
    if (it == ops.end() || (t.bits != 32 && t.bits != 64)) refuse(in, "directed rounding of this operation");
    const uint32_t mode = in.has("rz") ? round_toward_zero : in.has("rm") ? round_down : round_up;
    llvm::Type* ty = mc_.llvm_type(t);
    Value* args[3];
    const size_t inputs = it->second == rounded_fma                                   ? 3
                          : (it->second == rounded_sqrt || it->second == rounded_rcp) ? 1
                                                                                      : 2;
    need(in, inputs + 1);
    for (size_t i = 0; i < 3; ++i)
        args[i] = i < inputs ? src(in, in.operands[i + 1], t) : llvm::ConstantFP::get(ty, 0.0);
    return b_.CreateCall(t.bits == 32 ? mc_.rounded_f32 : mc_.rounded_f64,
                         {b_.getInt32(it->second), b_.getInt32(mode), args[0], args[1], args[2]});
}

// ---- 16-bit floats: .bf16, .bf16x2, packed compares and conversions, 16-bit atomics ----------

Value* function_lowering::narrow_to_float(Value* bits, bool bf) {
    llvm::Type* t = bits->getType();
    const bool pair = t->isVectorTy();
    auto of = [&](llvm::Type* scalar) -> llvm::Type* {
        return pair ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(scalar, 2)) : scalar;
    };
    if (!bf)
        return b_.CreateFPExt(b_.CreateBitCast(bits, of(llvm::Type::getHalfTy(mc_.ctx))),
                              of(llvm::Type::getFloatTy(mc_.ctx)));
    return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(bits, of(mc_.i32)), 16), of(llvm::Type::getFloatTy(mc_.ctx)));
}

// Round to nearest even: for halves fptrunc; for bf16 on the float's bits (ties to the even
// upper half; an overflow carries into the exponent and gives infinity, as it should).
Value* function_lowering::float_to_narrow(Value* f, bool bf) {
    llvm::Type* t = f->getType();
    const bool pair = t->isVectorTy();
    auto of = [&](llvm::Type* scalar) -> llvm::Type* {
        return pair ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(scalar, 2)) : scalar;
    };
    if (!bf) return b_.CreateBitCast(b_.CreateFPTrunc(f, of(llvm::Type::getHalfTy(mc_.ctx))), of(mc_.i16));
    auto k32 = [&](uint32_t v) { return llvm::ConstantInt::get(of(mc_.i32), v); };
    Value* bits = b_.CreateBitCast(f, of(mc_.i32));
    Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, k32(16)), k32(1));
    Value* r = b_.CreateTrunc(b_.CreateLShr(b_.CreateAdd(bits, b_.CreateAdd(k32(0x7FFF), lsb)), k32(16)), of(mc_.i16));
    return b_.CreateSelect(b_.CreateFCmpUNO(f, f), llvm::ConstantInt::get(of(mc_.i16), 0x7FFF), r);
}

// x * y + z for bf16 values held in floats, ready for one rounding to bf16: the product is exact
// in double (bf16 has float's exponent range, so not always in float), the sum's error exact by
// TwoSum, and the float nearest the sum becomes the odd neighbour when the exact value lies on
// either side of it (round to odd), so rounding that float to bf16 rounds the exact value.
Value* function_lowering::fma_for_bf16(Value* x, Value* y, Value* z) {
    llvm::Type* ft = x->getType();
    const bool pair = ft->isVectorTy();
    auto of = [&](llvm::Type* scalar) -> llvm::Type* {
        return pair ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(scalar, 2)) : scalar;
    };
    llvm::Type* dt = of(llvm::Type::getDoubleTy(mc_.ctx));
    Value* p = b_.CreateFMul(b_.CreateFPExt(x, dt), b_.CreateFPExt(y, dt));
    Value* c = b_.CreateFPExt(z, dt);
    Value* sum = b_.CreateFAdd(p, c);
    Value* back = b_.CreateFSub(sum, p);
    Value* error = b_.CreateFAdd(b_.CreateFSub(p, b_.CreateFSub(sum, back)), b_.CreateFSub(c, back));
    Value* f = b_.CreateFPTrunc(sum, ft);
    Value* rest = b_.CreateFAdd(b_.CreateFSub(sum, b_.CreateFPExt(f, dt)), error);  // its sign is exact
    Value* bits = b_.CreateBitCast(f, of(mc_.i32));
    auto k32 = [&](uint32_t v) { return llvm::ConstantInt::get(of(mc_.i32), v); };
    Value* zero = llvm::ConstantFP::get(dt, 0.0);
    Value* finite =
        b_.CreateFCmpOLT(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, f), llvm::ConstantFP::getInfinity(ft));
    Value* even = b_.CreateICmpEQ(b_.CreateAnd(bits, k32(1)), k32(0));
    Value* inexact = b_.CreateAnd(b_.CreateFCmpONE(rest, zero), finite);
    Value* negative = b_.CreateICmpNE(b_.CreateAnd(bits, k32(0x80000000u)), k32(0));
    Value* away = b_.CreateXor(b_.CreateFCmpOGT(rest, zero), negative);  // away from zero
    Value* odd = b_.CreateSelect(away, b_.CreateAdd(bits, k32(1)), b_.CreateSub(bits, k32(1)));
    return b_.CreateBitCast(b_.CreateSelect(b_.CreateAnd(inexact, even), odd, bits), ft);
}

// .bf16 and .bf16x2 arithmetic (sm_80 fma.rn.bf16, sm_90 add/sub/mul/min/max/neg/abs): computed in
// float and rounded once to bf16, which is the correctly rounded result for add, sub and mul
// (float has more than twice bf16's precision, plus two bits, in every binade); fma through
// fma_for_bf16. min/max order the bits (-0 below +0; a NaN loses, or with .NaN wins); neg and abs
// change the sign bit.
void function_lowering::lower_bf16(const instruction& in) {
    const std::string& op = in.opcode;
    const bool pair = in.has("bf16x2");
    llvm::Type* bits_type = pair ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(mc_.i16, 2)) : mc_.i16;
    const scalar_type raw{scalar_type::kind::bits, pair ? 32 : 16};
    auto bits = [&](size_t i) { return b_.CreateBitCast(src(in, in.operands.at(i), raw), bits_type); };
    auto value = [&](size_t i) { return narrow_to_float(bits(i), true); };
    auto put = [&](Value* r) { set(in, in.operands.at(0), b_.CreateBitCast(r, mc_.int_type(raw.bits))); };
    auto k = [&](uint16_t v) { return llvm::ConstantInt::get(bits_type, v); };
    if (in.has("rz") || in.has("rm") || in.has("rp") || in.has("sat"))
        refuse(in, "bf16 arithmetic other than rounded to nearest");
    Value* r = nullptr;
    if (op == "add" || op == "sub" || op == "mul") {
        need(in, 3);
        r = op == "add"   ? b_.CreateFAdd(value(1), value(2))
            : op == "sub" ? b_.CreateFSub(value(1), value(2))
                          : b_.CreateFMul(value(1), value(2));
    } else if (op == "fma") {
        need(in, 4);
        r = fma_for_bf16(value(1), value(2), value(3));
    } else if (op == "neg" || op == "abs") {
        need(in, 2);
        return put(op == "neg" ? b_.CreateXor(bits(1), k(0x8000)) : b_.CreateAnd(bits(1), k(0x7FFF)));
    } else if (op == "min" || op == "max") {
        need(in, 3);
        return put(half_min_max(bits(1), bits(2), op == "min", in.has("NaN"), 0x7F80));
    } else {
        refuse(in, "this .bf16 operation is not supported");
    }
    put(float_to_narrow(relu(in, r), true));
}

// setp.cmp.{f16x2,bf16,bf16x2} and set.cmp.dtype.{f16x2,bf16x2}: compared in float (exactly).
// setp of a pair writes two predicates, p|q, from the low and the high halves; set of a pair
// gives each half 0xFFFF or 0 (an integer dtype), or 1.0 or 0.0 (a .f16x2/.bf16x2 dtype).
void function_lowering::lower_narrow_compare(const instruction& in) {
    need(in, 3);
    const std::string cmp = in.mods.empty() ? "" : in.mods[0];
    const std::string& stype = in.mods.back();
    const bool pair = stype == "f16x2" || stype == "bf16x2", bf = stype == "bf16" || stype == "bf16x2";
    if (stype != "f16x2" && stype != "bf16" && stype != "bf16x2") refuse(in, "unexpected operand type");
    llvm::Type* bits_type = pair ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(mc_.i16, 2)) : mc_.i16;
    const scalar_type raw{scalar_type::kind::bits, pair ? 32 : 16};
    auto value = [&](size_t i) {
        return narrow_to_float(b_.CreateBitCast(src(in, in.operands.at(i), raw), bits_type), bf);
    };
    Value* t = compare(in, cmp, scalar_type{scalar_type::kind::flt, 32}, value(1), value(2));
    const operand& d = in.operands[0];
    if (in.opcode == "setp") {
        Value* c = nullptr;
        if (in.operands.size() > 3) c = src(in, in.operands[3], scalar_type{scalar_type::kind::pred, 1});
        auto combine = [&](Value* x) -> Value* {
            if (!c) return x;
            if (in.has("and")) return b_.CreateAnd(x, c);
            if (in.has("or")) return b_.CreateOr(x, c);
            if (in.has("xor")) return b_.CreateXor(x, c);
            refuse(in, "a fourth operand without .and, .or or .xor");
        };
        if (!pair) {
            if (d.k == operand::kind::vector) {
                set(in, d.elements.at(0), combine(t));
                return set(in, d.elements.at(1), combine(b_.CreateNot(t)));
            }
            return set(in, d, combine(t));
        }
        if (d.k != operand::kind::vector || d.elements.size() != 2) refuse(in, "a pair compare writes p|q");
        set(in, d.elements[0], combine(b_.CreateExtractElement(t, uint64_t(0))));
        set(in, d.elements[1], combine(b_.CreateExtractElement(t, uint64_t(1))));
        return;
    }
    const std::string& dtype = in.mods.at(in.mods.size() - 2);
    Value* r;
    if (dtype == "f16x2" || dtype == "bf16x2" || dtype == "f16" || dtype == "bf16")
        r = b_.CreateSelect(t, llvm::ConstantInt::get(bits_type, dtype[0] == 'b' ? 0x3F80 : 0x3C00),
                            llvm::ConstantInt::get(bits_type, 0));
    else
        r = b_.CreateSExt(t, bits_type);
    set(in, d, b_.CreateBitCast(r, mc_.int_type(raw.bits)));
}

// cvt.rn.bf16.f32, cvt.f32.bf16, cvt.rn.{f16x2,bf16x2}.f32 d, a, b (a into the high half, b the
// low), rounded to nearest even; .relu makes a negative result 0 (and a NaN the canonical NaN).
void function_lowering::lower_narrow_cvt(const instruction& in) {
    need(in, 2);
    const scalar_type f32{scalar_type::kind::flt, 32};
    std::string dtype, stype;
    for (const auto& m : in.mods)
        if (m == "bf16" || m == "bf16x2" || m == "f16x2" || type_from_word(m).valid())
            (dtype.empty() ? dtype : stype) = m;
    if (in.has("rz") || in.has("rm") || in.has("rp") || in.has("satfinite"))
        refuse(in, "conversions to 16-bit floats other than rounded to nearest");
    auto relu = [&](Value* f) { return this->relu(in, f); };
    if (dtype == "bf16" && (stype == "f32" || stype == "f64")) {
        Value* f = src(in, in.operands[1], type_from_word(stype));
        if (stype == "f64") refuse(in, "cvt to bf16 from f64");
        return set(in, in.operands[0], float_to_narrow(relu(f), true));
    }
    if (stype == "bf16" && type_from_word(dtype).is_float()) {
        Value* f = narrow_to_float(src(in, in.operands[1], scalar_type{scalar_type::kind::bits, 16}), true);
        llvm::Type* dty = mc_.llvm_type(type_from_word(dtype));
        if (dty != f->getType())
            f = type_from_word(dtype).bits > 32 ? b_.CreateFPExt(f, dty) : b_.CreateFPTrunc(f, dty);
        return set(in, in.operands[0], f);
    }
    if ((dtype == "f16x2" || dtype == "bf16x2") && stype == "f32") {
        need(in, 3);
        const bool bf = dtype == "bf16x2";
        Value* high = float_to_narrow(relu(src(in, in.operands[1], f32)), bf);
        Value* low = float_to_narrow(relu(src(in, in.operands[2], f32)), bf);
        Value* packed = b_.CreateOr(b_.CreateZExt(low, mc_.i32), b_.CreateShl(b_.CreateZExt(high, mc_.i32), 16));
        return set(in, in.operands[0], packed);
    }
    refuse(in, "this conversion is not supported");
}

// atom.add.noftz.{f16,bf16,f16x2,bf16x2}: a compare-and-swap loop whose new value is the old one
// plus the operand, each half rounded once (as add computes it).
void function_lowering::lower_atom_narrow_float(const instruction& in) {
    const bool red = in.opcode == "red";
    if (!in.has("add")) refuse(in, "atomics of 16-bit floats other than add are not supported");
    const bool pair = in.has("f16x2") || in.has("bf16x2"), bf = in.has("bf16") || in.has("bf16x2");
    const size_t addr_i = red ? 0 : 1;
    need(in, addr_i + 2);
    const uint32_t bytes = pair ? 4 : 2;
    llvm::Type* ity = pair ? mc_.i32 : mc_.i16;
    llvm::Type* lanes = pair ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(mc_.i16, 2)) : mc_.i16;
    Value* p = memory_pointer(in, in.operands[addr_i], space_of(in), bytes);
    Value* v = narrow_to_float(
        b_.CreateBitCast(src(in, in.operands[addr_i + 1], scalar_type{scalar_type::kind::bits, int(bytes * 8)}), lanes),
        bf);
    const llvm::MaybeAlign align(bytes);
    const auto order = llvm::AtomicOrdering::SequentiallyConsistent;
    BasicBlock* pre = b_.GetInsertBlock();
    auto* loop = BasicBlock::Create(mc_.ctx, "atom.loop", fn_);
    auto* out = BasicBlock::Create(mc_.ctx, "atom.done", fn_);
    Value* first = b_.CreateAlignedLoad(ity, p, align);
    b_.CreateBr(loop);
    b_.SetInsertPoint(loop);
    auto* cur = b_.CreatePHI(ity, 2);
    cur->addIncoming(first, pre);
    Value* sum = float_to_narrow(b_.CreateFAdd(narrow_to_float(b_.CreateBitCast(cur, lanes), bf), v), bf);
    Value* pair_result = b_.CreateAtomicCmpXchg(p, cur, b_.CreateBitCast(sum, ity), align, order, order);
    Value* seen = b_.CreateExtractValue(pair_result, 0);
    cur->addIncoming(seen, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateExtractValue(pair_result, 1), out, loop);
    b_.SetInsertPoint(out);
    if (!red) set(in, in.operands[0], seen);
}

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the 64-bit {b, a} shifted by c, high (l) or low (r) word.
void function_lowering::lower_funnel_shift(const instruction& in) {
    need(in, 4);
    const scalar_type b32{scalar_type::kind::bits, 32};
    Value* lo = src(in, in.operands[1], b32);
    Value* hi = src(in, in.operands[2], b32);
    Value* n = src(in, in.operands[3], b32);
    const bool left = in.has("l");
    Value* r = b_.CreateIntrinsic(left ? llvm::Intrinsic::fshl : llvm::Intrinsic::fshr, {mc_.i32}, {hi, lo, n});
    if (in.has("clamp")) {
        Value* all = b_.CreateICmpUGE(n, b_.getInt32(32));
        r = b_.CreateSelect(all, left ? lo : hi, r);
    }
    set(in, in.operands[0], r);
}

void function_lowering::lower_atom(const instruction& in) {
    if (in.has("bf16") || in.has("bf16x2") || in.has("f16x2") || (in.has("f16") && in.has("add")))
        return lower_atom_narrow_float(in);
    const bool red = in.opcode == "red";
    const scalar_type t = type1(in);
    const space sp = space_of(in);
    const size_t addr_i = red ? 0 : 1;
    need(in, addr_i + 2);
    const uint32_t bytes = static_cast<uint32_t>(t.bits / 8);
    if (t.bits != 32 && t.bits != 64 && !(t.bits == 16 && in.has("cas")))
        refuse(in, "atomics of " + std::to_string(t.bits) + " bits are not supported");
    // A system-scope atomic on host memory acts on the host's own bytes (abi.hpp).
    system_atomic_ = in.has("sys");
    Value* p = memory_pointer(in, in.operands[addr_i], sp, bytes);
    system_atomic_ = false;
    const auto order = llvm::AtomicOrdering::SequentiallyConsistent;
    const llvm::MaybeAlign align(bytes);
    Value* v = src(in, in.operands[addr_i + 1], t);
    Value* old = nullptr;
    llvm::Type* ity = mc_.int_type(t.bits);
    using Op = llvm::AtomicRMWInst::BinOp;
    auto rmw = [&](Op o, Value* x) { return b_.CreateAtomicRMW(o, p, x, align, order); };
    if (in.has("cas")) {
        Value* cmp = convert_bits(v, ity);
        Value* nv = convert_bits(src(in, in.operands.at(addr_i + 2), t), ity);
        old = b_.CreateExtractValue(b_.CreateAtomicCmpXchg(p, cmp, nv, align, order, order), 0);
    } else if (in.has("add")) {
        old = t.is_float() ? rmw(Op::FAdd, v) : rmw(Op::Add, v);
    } else if (in.has("min") || in.has("max")) {
        if (t.is_float()) refuse(in, "floating-point atomic min/max are not supported");
        const bool mn = in.has("min");
        old = rmw(t.is_signed() ? (mn ? Op::Min : Op::Max) : (mn ? Op::UMin : Op::UMax), v);
    } else if (in.has("exch")) {
        old = rmw(Op::Xchg, convert_bits(v, ity));
    } else if (in.has("and")) {
        old = rmw(Op::And, v);
    } else if (in.has("or")) {
        old = rmw(Op::Or, v);
    } else if (in.has("xor")) {
        old = rmw(Op::Xor, v);
    } else if (in.has("inc") || in.has("dec")) {
        // CUDA's wrapping increment and decrement: a compare-and-swap loop.
        const bool inc = in.has("inc");
        BasicBlock* pre = b_.GetInsertBlock();
        auto* loop = BasicBlock::Create(mc_.ctx, "atom.loop", fn_);
        auto* out = BasicBlock::Create(mc_.ctx, "atom.done", fn_);
        Value* first = b_.CreateAlignedLoad(ity, p, align);
        b_.CreateBr(loop);
        b_.SetInsertPoint(loop);
        auto* cur = b_.CreatePHI(ity, 2);
        cur->addIncoming(first, pre);
        Value* one = llvm::ConstantInt::get(ity, 1);
        Value* next =
            inc ? b_.CreateSelect(b_.CreateICmpUGE(cur, v), llvm::ConstantInt::get(ity, 0), b_.CreateAdd(cur, one))
                : b_.CreateSelect(
                      b_.CreateOr(b_.CreateICmpEQ(cur, llvm::ConstantInt::get(ity, 0)), b_.CreateICmpUGT(cur, v)), v,
                      b_.CreateSub(cur, one));
        Value* pair = b_.CreateAtomicCmpXchg(p, cur, next, align, order, order);
        Value* seen = b_.CreateExtractValue(pair, 0);
        cur->addIncoming(seen, b_.GetInsertBlock());
        b_.CreateCondBr(b_.CreateExtractValue(pair, 1), out, loop);
        b_.SetInsertPoint(out);
        old = seen;
    } else {
        refuse(in, "this atomic operation is not supported");
    }
    if (!red) set(in, in.operands[0], old);
}

// assert() failing in a kernel: __assertfail(message, file, line, function, char size) prints
// CUDA's line and fails the launch; the thread ends. Inside a called .func the thread's indices
// are not at hand: they print as "?".
void function_lowering::lower_assertfail(const instruction& in) {
    if (in.call_args.size() != 5) refuse(in, "__assertfail takes five parameters");
    auto arg = [&](size_t i, uint32_t bytes, llvm::Type* t) {
        const operand a = named(operand::kind::address, in.call_args[i].name);
        return b_.CreateLoad(t, param_pointer(in, a, bytes));
    };
    Value* tid[3];
    for (int a = 0; a < 3; ++a) tid[a] = !kernel_ ? b_.getInt32(0xFFFFFFFFu) : tidx_[a] ? tidx_[a] : thread_index(a);
    b_.CreateCall(mc_.assertfail, {env_, state_, arg(0, 8, mc_.i64), arg(1, 8, mc_.i64), arg(2, 4, mc_.i32),
                                   arg(3, 8, mc_.i64), tid[0], tid[1], tid[2]});
    b_.CreateBr(dead_);
    continue_in_new_block();
}

// malloc/new and free/delete (device_heap.hpp): a call of the engine's heap helpers with the
// argument from the call's .param buffer, and malloc's address into the return's.
void function_lowering::lower_heap_call(const instruction& in) {
    auto param = [&](const operand& o) { return param_pointer(in, named(operand::kind::address, o.name), 8); };
    Value* argument = b_.CreateLoad(mc_.i64, param(in.call_args.at(0)));
    if (heap_function(in.callee) == heap_call::allocate) {
        b_.CreateStore(b_.CreateCall(mc_.heap_malloc, {env_, argument}), param(in.call_returns.at(0)));
        return;
    }
    Value* faulted = b_.CreateCall(mc_.heap_free, {env_, argument});
    auto* ok = BasicBlock::Create(mc_.ctx, "free.ok", fn_);
    b_.CreateCondBr(b_.CreateICmpNE(faulted, b_.getInt32(0)), dead_, ok);
    b_.SetInsertPoint(ok);
}

// The device runtime (device_launch.hpp): its calls' .param buffers in, the result out.
void function_lowering::lower_device_runtime(const instruction& in) {
    auto arg = [&](size_t i, int64_t offset, uint32_t bytes) {
        operand a = named(operand::kind::address, in.call_args.at(i).name);
        a.value = offset;
        return b_.CreateLoad(mc_.int_type(static_cast<int>(bytes * 8)), param_pointer(in, a, bytes));
    };
    Value* result = b_.getInt32(cuda_success);
    switch (device_runtime_function(in.callee)) {
    case device_runtime_call::parameter_buffer:
        result = b_.CreateCall(mc_.parameter_buffer, {env_, arg(0, 0, 8), arg(1, 0, 4), arg(1, 4, 4), arg(1, 8, 4),
                                                      arg(2, 0, 4), arg(2, 4, 4), arg(2, 8, 4), arg(3, 0, 4)});
        break;
    case device_runtime_call::launch:
        result = b_.CreateCall(mc_.launch_device, {env_, arg(0, 0, 8), arg(1, 0, 8)});
        b_.CreateStore(result, state_field_ptr(offsetof(thread_state, device_error)));
        break;
    case device_runtime_call::memcpy:
        result = b_.CreateCall(mc_.memcpy_device, {env_, arg(0, 0, 8), arg(1, 0, 8), arg(2, 0, 8), arg(3, 0, 4)});
        b_.CreateStore(result, state_field_ptr(offsetof(thread_state, device_error)));
        break;
    case device_runtime_call::last_error:
    case device_runtime_call::peek_error:
        result = b_.CreateLoad(mc_.i32, state_field_ptr(offsetof(thread_state, device_error)));
        if (device_runtime_function(in.callee) == device_runtime_call::last_error)
            b_.CreateStore(b_.getInt32(cuda_success), state_field_ptr(offsetof(thread_state, device_error)));
        break;
    case device_runtime_call::stream_create:
        // Any stream is the grid's queue: a handle that is not NULL and not a special stream.
        b_.CreateStore(b_.getInt64(device_stream_handle), host_pointer(space::generic, arg(0, 0, 8), 8));
        break;
    case device_runtime_call::error_string:
        result = b_.CreateCall(mc_.error_string, {env_, arg(0, 0, 4)});
        break;
    case device_runtime_call::set_conditional:
        b_.CreateStore(arg(1, 0, 4), host_pointer(space::global, arg(0, 0, 8), 4));
        return;  // returns nothing
    default:     // stream destroy
        break;
    }
    const operand ret = named(operand::kind::address, in.call_returns.at(0).name);
    Value* out = param_pointer(in, ret, result->getType() == mc_.i64 ? 8 : 4);
    b_.CreateStore(result, out);
}

// A call in a recursive kernel: the callee's frame must end inside the thread's stack (its local
// memory, the launch's stack bytes), and the host's stack must not pass the executor's floor.
void function_lowering::check_stack(Value* callee_end) {
    Value* too_deep = b_.CreateICmpUGT(callee_end, env_field(offsetof(block_env, local_size), mc_.i64));
    Value* sp = b_.CreatePtrToInt(b_.CreateIntrinsic(llvm::Intrinsic::stacksave, {}, {}), mc_.i64);
    Value* host_out = b_.CreateICmpULT(sp, env_field(offsetof(block_env, stack_floor), mc_.i64));
    auto* overflow = BasicBlock::Create(mc_.ctx, "stack.overflow", fn_);
    auto* ok = BasicBlock::Create(mc_.ctx, "stack.ok", fn_);
    b_.CreateCondBr(b_.CreateOr(too_deep, host_out), overflow, ok);
    b_.SetInsertPoint(overflow);
    b_.CreateCall(mc_.stack_overflow, {env_, b_.CreateSelect(too_deep, callee_end, b_.getInt64(0))});
    b_.CreateBr(dead_);
    b_.SetInsertPoint(ok);
}

void function_lowering::lower_call(const instruction& in) {
    if (in.callee == "vprintf") {
        if (in.call_args.size() != 2) refuse(in, "vprintf takes two parameters");
        auto u64 = [&](const operand& o) {
            const operand a = named(operand::kind::address, o.name);
            return b_.CreateLoad(mc_.i64, param_pointer(in, a, 8));
        };
        Value* r = b_.CreateCall(mc_.vprintf, {env_, state_, u64(in.call_args[0]), u64(in.call_args[1])});
        if (!in.call_returns.empty()) {
            const operand ret = named(operand::kind::address, in.call_returns[0].name);
            b_.CreateStore(r, param_pointer(in, ret, 4));
        }
        return;
    }
    if (in.callee == "__assertfail") return lower_assertfail(in);
    if (device_runtime_function(in.callee) != device_runtime_call::none) return lower_device_runtime(in);
    if (heap_function(in.callee) != heap_call::none) return lower_heap_call(in);
    if (in.indirect_call()) return lower_indirect_call(in);
    call_function(in, *mc_.ptx.find_function(in.callee));
}

// call (r), %rd, (a), prototype: the function whose address %rd holds, among those the call's
// shape fits (call_targets); any other address faults, as a jump to one would on a GPU.
void function_lowering::lower_indirect_call(const instruction& in) {
    const scalar_type b64{scalar_type::kind::bits, 64};
    Value* address = src(in, named(operand::kind::reg, in.callee), b64);
    auto* done = BasicBlock::Create(mc_.ctx, "icall.done", fn_);
    auto* unknown = BasicBlock::Create(mc_.ctx, "icall.unknown", fn_);
    llvm::SwitchInst* pick = b_.CreateSwitch(address, unknown);
    // A function whose parameters are wider than the call's buffers cannot be the one meant.
    auto fits = [&](const std::vector<operand>& buffers, const std::vector<variable>& declared) {
        for (size_t i = 0; i < buffers.size(); ++i) {
            auto it = call_params_.find(buffers[i].name);
            if (it == call_params_.end()) return false;
            const auto bits = it->second->getAllocationSizeInBits(mc_.mod.getDataLayout());
            if (!bits || *bits < 8 * declared[i].size_bytes()) return false;
        }
        return true;
    };
    for (const function* target : call_targets(mc_.ptx, in)) {
        if (!fits(in.call_args, target->params) || !fits(in.call_returns, target->returns)) continue;
        const auto index = static_cast<size_t>(target - mc_.ptx.functions.data());
        auto* block = BasicBlock::Create(mc_.ctx, "icall." + target->name, fn_);
        pick->addCase(b_.getInt64(function_address(index)), block);
        b_.SetInsertPoint(block);
        call_function(in, *target);
        b_.CreateBr(done);
    }
    b_.SetInsertPoint(unknown);
    b_.CreateCall(mc_.fault, {env_, address, b_.getInt32(0)});
    b_.CreateBr(dead_);
    b_.SetInsertPoint(done);
}

// A call of `callee` with the call's .param buffers (its frame after the caller's).
void function_lowering::call_function(const instruction& in, const function& target_function) {
    const function* callee = &target_function;
    llvm::Function* target = mc_.funcs.at(kl_.name + "/" + callee->name);
    // In a recursive kernel each call also takes call_frame_bytes of stack (what a GPU's call
    // saves), so that recursion without local variables still meets the stack's end.
    const uint64_t overhead = kl_.recursive ? call_frame_bytes : 0;
    Value* callee_base = b_.CreateAdd(frame_base_, b_.getInt64(mc_.layout.own_frame.at(f_.name) + overhead));
    if (kl_.recursive) check_stack(b_.CreateAdd(callee_base, b_.getInt64(mc_.layout.own_frame.at(callee->name))));
    std::vector<Value*> args = {env_, state_, callee_base};
    auto buffer = [&](const operand& o) -> Value* {
        auto it = call_params_.find(o.name);
        if (it == call_params_.end()) refuse(in, "call argument " + o.name + " is not a .param of the call block");
        return it->second;
    };
    if (in.call_returns.size() != callee->returns.size() || in.call_args.size() != callee->params.size())
        refuse(in, "the call's parameters do not match " + callee->name + "'s declaration");
    for (const auto& r : in.call_returns) args.push_back(buffer(r));
    for (const auto& a : in.call_args) args.push_back(buffer(a));
    Value* faulted = b_.CreateCall(target, args);
    auto* ok = BasicBlock::Create(mc_.ctx, "call.ok", fn_);
    b_.CreateCondBr(faulted, dead_, ok);
    b_.SetInsertPoint(ok);
}

// Saves every register, marks the thread parked with `status`, resumes after a restore.
void function_lowering::park(uint32_t status, const std::function<void()>& save_operands) {
    const uint32_t point = ++resume_points_;
    save_operands();
    // Only the registers live after the parking instruction go through the record; the others
    // stay SSA values inside the stretch of code between two parks.
    const auto& live = kl_.live_after_park.at(current_index_);
    auto slot = [&](const std::string& name) {
        return state_field_ptr(thread_state_header + 8ull * kl_.save_slots.at(name));
    };
    for (const auto& name : live) {
        const reg_slot& r = regs_.at(name);
        b_.CreateStore(b_.CreateLoad(mc_.int_type(r.bits), r.slot), slot(name));
    }
    if (!kl_.region_barriers.empty()) {
        // Straight regions: every thread reaches this barrier; the next region's loop over the
        // threads starts from their records.
        b_.CreateBr(latch_);
        b_.SetInsertPoint(region_exit_);
        open_region();
        for (const auto& name : live) {
            const reg_slot& r = regs_.at(name);
            b_.CreateStore(b_.CreateLoad(mc_.int_type(r.bits), slot(name)), r.slot);
        }
        for (size_t index : kl_.recompute_after_park.at(current_index_)) lower_instruction(f_.body[index]);
        return;
    }
    b_.CreateStore(b_.getInt32(point), state_field_ptr(offsetof(thread_state, resume)));
    b_.CreateStore(b_.getInt32(status), state_field_ptr(offsetof(thread_state, status)));
    llvm::AllocaInst* counter = status == at_barrier ? parked_at_barrier_ : parked_at_warp_op_;
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(mc_.i32, counter), b_.getInt32(1)), counter);
    b_.CreateBr(latch_);
    auto* restore = BasicBlock::Create(mc_.ctx, "resume" + std::to_string(point), fn_);
    dispatch_->addCase(b_.getInt32(point), restore);
    b_.SetInsertPoint(restore);
    for (const auto& name : live) {
        const reg_slot& r = regs_.at(name);
        b_.CreateStore(b_.CreateLoad(mc_.int_type(r.bits), slot(name)), r.slot);
    }
    for (size_t index : kl_.recompute_after_park.at(current_index_)) lower_instruction(f_.body[index]);
}

void function_lowering::lower_park(const instruction& in) {
    const std::string& op = in.opcode;
    auto store64 = [&](size_t off, Value* v) { b_.CreateStore(convert_bits(v, mc_.i64), state_field_ptr(off)); };
    auto store32 = [&](size_t off, Value* v) { b_.CreateStore(convert_bits(v, mc_.i32), state_field_ptr(off)); };
    const scalar_type b32{scalar_type::kind::bits, 32};
    const scalar_type pred{scalar_type::kind::pred, 1};
    auto result = [&](const operand& d, scalar_type t) {
        Value* r = b_.CreateLoad(mc_.i64, state_field_ptr(offsetof(thread_state, warp_result)));
        set(in, d, convert_bits(r, mc_.llvm_type(t)));
    };
    auto result_pred = [&](const operand& d) {
        Value* r = b_.CreateLoad(mc_.i32, state_field_ptr(offsetof(thread_state, warp_pred)));
        set(in, d, b_.CreateICmpNE(r, b_.getInt32(0)));
    };
    // d or d|p: the lanes' result, and the predicate when one is asked for.
    auto result_and_pred = [&](const operand& d) {
        if (d.k != operand::kind::vector) return result(d, b32);
        result(d.elements.at(0), b32);
        result_pred(d.elements.at(1));
    };
    auto op_code = [&](uint32_t code) { store32(offsetof(thread_state, warp_op), b_.getInt32(code)); };
    if ((op == "bar" || op == "barrier") && in.has("red")) {
        // __syncthreads_count / _and / _or: the thread's predicate goes with it to the barrier;
        // on release the executor has counted the block's (block_env::barrier_true / _arrived).
        need(in, 3);
        park(at_barrier, [&] {
            store64(offsetof(thread_state, warp_a), b_.CreateZExt(src(in, in.operands.back(), pred), mc_.i64));
        });
        Value* yes = env_field(offsetof(block_env, barrier_true), mc_.i32);
        Value* all = env_field(offsetof(block_env, barrier_arrived), mc_.i32);
        if (in.has("popc")) return set(in, in.operands[0], yes);
        return set(in, in.operands[0],
                   in.has("and") ? b_.CreateICmpEQ(yes, all) : b_.CreateICmpNE(yes, b_.getInt32(0)));
    }
    if ((op == "bar" || op == "barrier") && !in.has("warp")) return park(at_barrier, [] {});
    if (op == "bar" && in.has("warp")) {
        return park(at_warp_op, [&] {
            op_code(warp_sync);
            store32(offsetof(thread_state, warp_mask), src(in, in.operands.at(0), b32));
        });
    }
    if (op == "shfl") {
        need(in, 5);
        uint32_t code = in.has("up") ? shfl_up : in.has("down") ? shfl_down : in.has("bfly") ? shfl_bfly : shfl_idx;
        park(at_warp_op, [&] {
            op_code(code);
            store64(offsetof(thread_state, warp_a), src(in, in.operands[1], b32));
            store64(offsetof(thread_state, warp_b), src(in, in.operands[2], b32));
            store64(offsetof(thread_state, warp_c), src(in, in.operands[3], b32));
            store32(offsetof(thread_state, warp_mask), src(in, in.operands[4], b32));
        });
        return result_and_pred(in.operands[0]);
    }
    if (op == "vote") {
        need(in, 3);
        uint32_t code = in.has("all") ? vote_all : in.has("any") ? vote_any : in.has("uni") ? vote_uni : vote_ballot;
        park(at_warp_op, [&] {
            op_code(code);
            store64(offsetof(thread_state, warp_a), b_.CreateZExt(src(in, in.operands[1], pred), mc_.i64));
            store32(offsetof(thread_state, warp_mask), src(in, in.operands[2], b32));
        });
        if (code == vote_ballot)
            result(in.operands[0], b32);
        else
            result_pred(in.operands[0]);
        return;
    }
    if (op == "activemask") {
        park(at_warp_op, [&] {
            op_code(active_mask);
            store32(offsetof(thread_state, warp_mask), b_.getInt32(0xFFFFFFFF));
        });
        return result(in.operands.at(0), b32);
    }
    if (op == "match") {
        need(in, 3);
        const scalar_type t = type1(in);
        const bool all = in.has("all");
        park(at_warp_op, [&] {
            op_code(all ? match_all : match_any);
            store64(offsetof(thread_state, warp_a), src(in, in.operands[1], t));
            store32(offsetof(thread_state, warp_mask), src(in, in.operands[2], b32));
        });
        return result_and_pred(in.operands[0]);
    }
    if (op == "redux") {
        need(in, 3);
        const scalar_type t = type1(in);
        uint32_t code;
        if (in.has("add"))
            code = redux_add;
        else if (in.has("min"))
            code = t.is_signed() ? redux_min : redux_umin;
        else if (in.has("max"))
            code = t.is_signed() ? redux_max : redux_umax;
        else if (in.has("and"))
            code = redux_and;
        else if (in.has("or"))
            code = redux_or;
        else if (in.has("xor"))
            code = redux_xor;
        else
            refuse(in, "unknown redux operation");
        park(at_warp_op, [&] {
            op_code(code);
            store64(offsetof(thread_state, warp_a), src(in, in.operands[1], t, t.is_signed()));
            store32(offsetof(thread_state, warp_mask), src(in, in.operands[2], b32));
        });
        return result(in.operands[0], t);
    }
    refuse(in, "not supported by the simulated GPU's PTX engine");
}

// ---- tensor cores (matrix.hpp) -------------------------------------------------------------

namespace {

bool matrix_element_of(const std::string& mod, matrix_element& e) {
    static const std::map<std::string, matrix_element> types = {
        {"f16", matrix_f16}, {"bf16", matrix_bf16}, {"tf32", matrix_tf32}, {"f32", matrix_f32},
        {"s32", matrix_s32}, {"s8", matrix_s8},     {"u8", matrix_u8},     {"f64", matrix_f64}};
    auto it = types.find(mod);
    if (it == types.end()) return false;
    e = it->second;
    return true;
}

// .m16n16k16 and the like.
bool matrix_shape_of(const instruction& in, uint32_t& m, uint32_t& n, uint32_t& k) {
    for (const auto& mod : in.mods) {
        unsigned a = 0, b = 0, c = 0;
        char tail = 0;
        if (std::sscanf(mod.c_str(), "m%un%uk%u%c", &a, &b, &c, &tail) == 3) {
            m = a, n = b, k = c;
            return true;
        }
    }
    return false;
}

std::vector<const operand*> registers_in(const operand& o) {
    std::vector<const operand*> r;
    if (o.k == operand::kind::vector)
        for (const auto& e : o.elements) r.push_back(&e);
    else
        r.push_back(&o);
    return r;
}

bool is_multiplicand(matrix_element e) { return e != matrix_f32 && e != matrix_s32; }

uint32_t bytes_in_memory(matrix_element e) { return e == matrix_tf32 ? 4 : element_bits(e) / 8; }

}  // namespace

void function_lowering::lower_matrix(const instruction& in) {
    if (in.opcode == "ldmatrix" || in.opcode == "stmatrix") return lower_ldmatrix(in);
    if (in.opcode == "movmatrix") {
        need(in, 2);
        if (!in.has("m8n8") || !in.has("trans") || !in.has("b16"))
            refuse(in, "movmatrix other than .m8n8.trans.b16 is not supported");
        const scalar_type u32{scalar_type::kind::uint, 32};
        park_for_matrix(matrix_move, 0,
                        [&] { b_.CreateStore(src(in, in.operands[1], u32), state_field_ptr(kl_.matrix_offset)); });
        return set(in, in.operands[0], b_.CreateLoad(mc_.i32, state_field_ptr(kl_.matrix_offset)));
    }
    uint32_t m = 0, n = 0, k = 0;
    if (!matrix_shape_of(in, m, n, k)) refuse(in, "a matrix instruction without a shape");
    std::vector<matrix_element> types;
    for (const auto& mod : in.mods) {
        matrix_element e;
        if (matrix_element_of(mod, e))
            types.push_back(e);
        else if (mod == "s4" || mod == "u4" || mod == "b1" || mod == "e4m3" || mod == "e5m2" ||
                 mod.rfind("kind", 0) == 0 || mod == "sp" || mod.rfind("block_scale", 0) == 0)
            refuse(in, "tensor-core operations on ." + mod + " are not supported");
    }
    if (in.opcode == "wmma") {
        // The engine's wmma shapes: f16, bf16, u8 and s8 multiplicands in m16n16k16, m8n32k16 and
        // m32n8k16, tf32 in m16n16k8, f64 in m8n8k4.
        const bool k16 = k == 16 && ((m == 16 && n == 16) || (m == 8 && n == 32) || (m == 32 && n == 8));
        const bool k8 = k == 8 && m == 16 && n == 16;
        const bool k4 = k == 4 && m == 8 && n == 8;
        if (!k16 && !k8 && !k4)
            refuse(in, "this wmma shape is not supported (m16n16k16, m8n32k16, m32n8k16, m16n16k8, m8n8k4)");
        if (in.has("load") || in.has("store")) return lower_wmma_memory(in, m, n, k, types);
        if (in.has("mma")) return lower_matrix_mma(in, m, n, k, types);
        refuse(in, "this wmma operation is not supported");
    }
    lower_matrix_mma(in, m, n, k, types);
}

// wmma.load and wmma.store: each lane moves its own elements (the engine's fragment mapping,
// matrix.hpp), so neither parks.
void function_lowering::lower_wmma_memory(const instruction& in, uint32_t m, uint32_t n, uint32_t k,
                                          const std::vector<matrix_element>& types) {
    const bool load = in.has("load");
    need(in, 2);
    const char role = in.has("a") ? 'a' : in.has("b") ? 'b' : in.has("c") ? 'c' : in.has("d") ? 'd' : 0;
    if (!role || (load && role == 'd') || (!load && role != 'd')) refuse(in, "wmma.load of a, b or c, wmma.store of d");
    if (types.size() != 1) refuse(in, "a wmma load or store names one element type");
    const matrix_element t = types[0];
    const bool multiplicand = role == 'a' || role == 'b';
    const bool fits =
        multiplicand
            ? is_multiplicand(t) && (t == matrix_tf32) == (k == 8) && (t == matrix_f64) == (k == 4)
            : ((t == matrix_f16 || t == matrix_f32 || t == matrix_s32) && k != 4 && (k == 16 || t == matrix_f32)) ||
                  (t == matrix_f64 && k == 4);
    if (!fits) refuse(in, "this element type does not go with this fragment or shape");
    const uint32_t rows = role == 'a' ? m : role == 'b' ? k : m, cols = role == 'a' ? k : n;
    const bool row_major = in.has("row");
    if (!row_major && !in.has("col")) refuse(in, "a wmma load or store needs .row or .col");
    const space sp = space_of(in);
    if (sp != space::global && sp != space::shared && sp != space::generic)
        refuse(in, "wmma loads and stores reach global, shared or generic addresses");
    const operand& fragment = in.operands[load ? 0 : 1];
    const operand& where = in.operands[load ? 1 : 0];
    const auto regs = registers_in(fragment);
    // f64 fragments are 64-bit registers, one element each; the others pack 32-bit ones.
    const uint32_t reg_bits = t == matrix_f64 ? 64 : 32;
    const scalar_type reg_type{scalar_type::kind::uint, static_cast<int>(reg_bits)};
    const uint32_t bits = element_bits(t), bytes = bytes_in_memory(t);
    const uint32_t per_lane = static_cast<uint32_t>(regs.size()) * reg_bits / bits, elements = rows * cols;
    if (per_lane * 32 < elements || (per_lane * 32) % elements)
        refuse(in, "the fragment's " + std::to_string(regs.size()) + " registers do not hold the matrix");
    const scalar_type u32{scalar_type::kind::uint, 32};
    Value* stride = in.operands.size() > 2 ? b_.CreateZExt(src(in, in.operands[2], u32), mc_.i64)
                                           : b_.getInt64(row_major ? cols : rows);
    Value* base = address_value(in, where, sp);
    Value* lane = b_.CreateAnd(linear_tid(in), 31);
    std::vector<Value*> words(regs.size());
    if (!load)
        for (size_t w = 0; w < regs.size(); ++w) words[w] = src(in, *regs[w], reg_type);
    llvm::Type* element_type = mc_.int_type(static_cast<int>(bytes * 8));
    llvm::Type* word_type = mc_.int_type(static_cast<int>(reg_bits));
    for (uint32_t slot = 0; slot < per_lane; ++slot) {
        // Element (lane * per_lane + slot) mod (rows * cols) of the matrix, row-major.
        Value* index = b_.CreateURem(b_.CreateAdd(b_.CreateMul(lane, b_.getInt32(per_lane)), b_.getInt32(slot)),
                                     b_.getInt32(elements));
        Value* r = b_.CreateZExt(b_.CreateUDiv(index, b_.getInt32(cols)), mc_.i64);
        Value* c = b_.CreateZExt(b_.CreateURem(index, b_.getInt32(cols)), mc_.i64);
        Value* offset = row_major ? b_.CreateAdd(b_.CreateMul(r, stride), c) : b_.CreateAdd(b_.CreateMul(c, stride), r);
        Value* p = host_pointer(sp, b_.CreateAdd(base, b_.CreateMul(offset, b_.getInt64(bytes))), bytes);
        const uint32_t word = slot * bits / reg_bits, shift = (slot * bits) % reg_bits;
        if (load) {
            Value* v = b_.CreateZExt(b_.CreateAlignedLoad(element_type, p, llvm::Align(1)), word_type);
            v = shift ? b_.CreateShl(v, shift) : v;
            words[word] = words[word] ? b_.CreateOr(words[word], v) : v;
        } else {
            Value* v = shift ? b_.CreateLShr(words[word], shift) : words[word];
            b_.CreateAlignedStore(b_.CreateTrunc(v, element_type), p, llvm::Align(1));
        }
    }
    if (load)
        for (size_t w = 0; w < regs.size(); ++w)
            set(in, *regs[w], words[w] ? words[w] : static_cast<Value*>(b_.getIntN(reg_bits, 0)));
}

// Parks the lane for the executor to perform a tensor-core instruction with the lanes of its
// warp: `save_operands` has put its registers in the matrix exchange area.
void function_lowering::park_for_matrix(uint32_t code, uint64_t what, const std::function<void()>& save_operands) {
    park(at_warp_op, [&] {
        b_.CreateStore(b_.getInt32(code), state_field_ptr(offsetof(thread_state, warp_op)));
        b_.CreateStore(b_.getInt64(what), state_field_ptr(offsetof(thread_state, warp_b)));
        b_.CreateStore(b_.getInt64(kl_.matrix_offset), state_field_ptr(offsetof(thread_state, warp_c)));
        save_operands();
    });
}

// wmma.mma (the engine's fragments) and mma.sync (the ISA's), performed by the executor.
void function_lowering::lower_matrix_mma(const instruction& in, uint32_t m, uint32_t n, uint32_t k,
                                         const std::vector<matrix_element>& types) {
    need(in, 4);
    matrix_op op;
    op.isa_layout = in.opcode == "mma";
    op.m = m, op.n = n, op.k = k;
    if (types.size() == 2) {  // wmma's f16 form: .dtype.ctype
        op.d = types[0], op.a = op.b = matrix_f16, op.c = types[1];
    } else if (types.size() == 4) {
        op.d = types[0], op.a = types[1], op.b = types[2], op.c = types[3];
    } else {
        refuse(in, "the matrix product's types are not .dtype.atype.btype.ctype");
    }
    const bool integer = op.a == matrix_s8 || op.a == matrix_u8;
    const bool f64 = op.a == matrix_f64;
    if (f64 && (in.has("rz") || in.has("rm") || in.has("rp")))
        refuse(in, "f64 matrix products rounded other than to nearest (.rn) are not supported");
    op.satfinite = in.has("satfinite");
    if (op.satfinite && !integer) refuse(in, ".satfinite of floating-point products is not supported");
    // f16 into f16 or f32; bf16 and tf32 into f32; s8 and u8 into s32.
    auto accumulator = [](matrix_element e) { return e == matrix_f16 || e == matrix_f32; };
    const bool valid = integer ? (op.b == matrix_s8 || op.b == matrix_u8) && op.c == matrix_s32 && op.d == matrix_s32
                       : f64   ? op.b == matrix_f64 && op.c == matrix_f64 && op.d == matrix_f64
                       : op.a == matrix_f16 ? op.b == matrix_f16 && accumulator(op.c) && accumulator(op.d)
                                            : (op.a == matrix_bf16 || op.a == matrix_tf32) && op.b == op.a &&
                                                  op.c == matrix_f32 && op.d == matrix_f32;
    if (!valid) refuse(in, "this combination of element types is not supported");
    if (op.isa_layout) {
        const bool f16ish = op.a == matrix_f16 || op.a == matrix_bf16;
        const bool known = (m == 16 && n == 8 &&
                            ((f16ish && (k == 16 || k == 8)) || (op.a == matrix_tf32 && (k == 8 || k == 4)) ||
                             (integer && (k == 16 || k == 32)))) ||
                           (m == 8 && n == 8 && k == 16 && integer) || (m == 8 && n == 8 && k == 4 && f64);
        if (!known)
            refuse(in,
                   "mma.sync shapes other than m16n8k16 and m16n8k8 of f16/bf16, m16n8k8 and m16n8k4 of "
                   "tf32, m8n8k16, m16n8k16 and m16n8k32 of s8/u8, m8n8k4 of f64 are not supported");
        if (!in.has("row") || !in.has("col")) refuse(in, "mma.sync of these shapes is .row.col");
    } else if ((op.a == matrix_tf32) != (k == 8) || f64 != (k == 4)) {
        refuse(in, "this element type does not go with this wmma shape");
    }
    const auto d = registers_in(in.operands[0]), a = registers_in(in.operands[1]);
    const auto b = registers_in(in.operands[2]), c = registers_in(in.operands[3]);
    // An f64 register is two words of the exchange area.
    const uint32_t wide = f64 ? 2 : 1;
    op.a_words = wide * static_cast<uint32_t>(a.size()), op.b_words = wide * static_cast<uint32_t>(b.size());
    op.c_words = wide * static_cast<uint32_t>(c.size()), op.d_words = wide * static_cast<uint32_t>(d.size());
    // Each fragment's registers hold the whole matrix: mma.sync's once (its layout), wmma's at
    // least once.
    auto fits = [&](uint32_t words, matrix_element t, uint32_t rows, uint32_t cols) {
        const uint32_t slots = words * 32 / element_bits(t) * 32, elements = rows * cols;
        return op.isa_layout ? slots == elements : slots >= elements && slots % elements == 0;
    };
    if (!fits(op.a_words, op.a, m, k) || !fits(op.b_words, op.b, k, n) || !fits(op.c_words, op.c, m, n) ||
        !fits(op.d_words, op.d, m, n) || op.a_words + op.b_words + op.c_words > matrix_area_bytes / 4)
        refuse(in, "the fragments' register counts do not match the shape and types");
    const scalar_type word{scalar_type::kind::uint, f64 ? 64 : 32};
    llvm::Type* word_type = mc_.int_type(f64 ? 64 : 32);
    park_for_matrix(matrix_mma, op.encode(), [&] {
        uint32_t w = 0;
        for (const auto* list : {&a, &b, &c})
            for (const operand* r : *list) {
                b_.CreateStore(src(in, *r, word), state_field_ptr(kl_.matrix_offset + 4 * w));
                w += wide;
            }
    });
    for (size_t i = 0; i < d.size(); ++i)
        set(in, *d[i], b_.CreateLoad(word_type, state_field_ptr(kl_.matrix_offset + 4 * wide * i)));
}

// ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 (and stmatrix, its inverse): lanes
// 0..8*count-1 give the rows' addresses (checked here, in the lane), the executor hands out the
// elements (or stores the lanes' registers' elements).
void function_lowering::lower_ldmatrix(const instruction& in) {
    need(in, 2);
    const bool store = in.opcode == "stmatrix";
    if (!in.has("m8n8") || !in.has("b16")) refuse(in, in.opcode + " other than .m8n8 of .b16 is not supported");
    const uint32_t count = in.has("x4") ? 4 : in.has("x2") ? 2 : 1;
    const space sp = space_of(in);
    if (sp != space::shared && sp != space::generic) refuse(in, in.opcode + " reaches shared memory only");
    const auto regs = registers_in(in.operands[store ? 1 : 0]);
    if (regs.size() != count)
        refuse(in, in.opcode + " ." +
                       std::string(count == 1   ? "x1"
                                   : count == 2 ? "x2"
                                                : "x4") +
                       " needs " + std::to_string(count) + " registers");
    const scalar_type u32{scalar_type::kind::uint, 32};
    b_.CreateStore(b_.getInt64(0), state_field_ptr(kl_.matrix_offset));
    Value* lane = b_.CreateAnd(linear_tid(in), 31);
    auto* gives = BasicBlock::Create(mc_.ctx, "matrix.row", fn_);
    auto* after = BasicBlock::Create(mc_.ctx, "matrix.rows", fn_);
    b_.CreateCondBr(b_.CreateICmpULT(lane, b_.getInt32(8 * count)), gives, after);
    b_.SetInsertPoint(gives);
    Value* row = memory_pointer(in, in.operands[store ? 0 : 1], sp, 16);
    b_.CreateStore(b_.CreatePtrToInt(row, mc_.i64), state_field_ptr(kl_.matrix_offset));
    b_.CreateBr(after);
    b_.SetInsertPoint(after);
    park_for_matrix(store ? matrix_store : matrix_load, count | (in.has("trans") ? 0x100u : 0u), [&] {
        if (store)
            for (size_t i = 0; i < regs.size(); ++i)
                b_.CreateStore(src(in, *regs[i], u32), state_field_ptr(kl_.matrix_offset + 8 + 4 * i));
    });
    if (!store)
        for (size_t i = 0; i < regs.size(); ++i)
            set(in, *regs[i], b_.CreateLoad(mc_.i32, state_field_ptr(kl_.matrix_offset + 4 * i)));
}

// cvt.{rna,rn,rz}.tf32.f32: the f32 rounded to tf32's 10 mantissa bits (the low 13 bits zero),
// ties away from zero (rna) or to even (rn), or truncated (rz); infinities stay, a NaN becomes the
// canonical one.
void function_lowering::lower_tf32_cvt(const instruction& in) {
    need(in, 2);
    Value* bits = src(in, in.operands[1], scalar_type{scalar_type::kind::bits, 32});
    Value* rounded = bits;
    if (in.has("rna")) {
        rounded = b_.CreateAdd(bits, b_.getInt32(0x1000));
    } else if (in.has("rn")) {
        Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 13), 1);
        rounded = b_.CreateAdd(bits, b_.CreateAdd(b_.getInt32(0xFFF), lsb));
    }
    rounded = b_.CreateAnd(rounded, b_.getInt32(static_cast<int32_t>(0xFFFFE000u)));
    Value* exponent_ones = b_.CreateICmpEQ(b_.CreateAnd(bits, 0x7F800000), b_.getInt32(0x7F800000));
    Value* nan = b_.CreateAnd(exponent_ones, b_.CreateICmpNE(b_.CreateAnd(bits, 0x7FFFFF), b_.getInt32(0)));
    Value* special = b_.CreateSelect(nan, b_.getInt32(0x7FFFFFFF), bits);
    set(in, in.operands[0], b_.CreateSelect(exponent_ones, special, rounded));
}

// ---- asynchronous copies and mbarriers ------------------------------------------------------

// cp.async copies at once: its data is in shared memory before any wait_group, wait_all or
// mbarrier wait could return, which is all the ISA promises. The zero-fill form (src-size below
// the copy's size, or the ignore-src predicate) reads only the bytes it copies.
void function_lowering::lower_cp_async(const instruction& in) {
    if (in.has("commit_group") || in.has("wait_group") || in.has("wait_all")) return;
    const scalar_type u32{scalar_type::kind::uint, 32};
    if (in.has("mbarrier")) {
        // cp.async.mbarrier.arrive: the arrive happens once the thread's copies are done (they
        // are). Without .noinc it adds one to the pending count first, so the count is unchanged.
        need(in, 1);
        if (in.has("noinc"))
            mbarrier_arrive(memory_pointer(in, in.operands[0], space_of(in), 8), b_.getInt32(1), false);
        return;
    }
    need(in, 3);
    if (in.operands[2].k != operand::kind::imm_int) refuse(in, "cp.async's size must be 4, 8 or 16");
    const auto size = static_cast<uint32_t>(in.operands[2].value);
    if (size != 4 && size != 8 && size != 16) refuse(in, "cp.async's size must be 4, 8 or 16");
    // [dst], [src], cp-size, then src-size or ignore-src, then a cache policy with .L2::cache_hint.
    const size_t plain = in.has("L2::cache_hint") ? 4 : 3;
    if (in.operands.size() > plain + 1) refuse(in, "too many operands for cp.async");
    Value* dst = memory_pointer(in, in.operands[0], space::shared, size);
    if (in.operands.size() == plain) {
        Value* from = memory_pointer(in, in.operands[1], space::global, size);
        b_.CreateMemCpy(dst, llvm::MaybeAlign(1), from, llvm::MaybeAlign(1), size);
        return;
    }
    const operand& extra = in.operands[3];
    Value* copied;
    if (extra.k == operand::kind::reg && reg(in, extra.name).bits == 1) {
        Value* ignore = src(in, extra, scalar_type{scalar_type::kind::pred, 1});
        copied = b_.CreateSelect(ignore, b_.getInt32(0), b_.getInt32(size));
    } else {
        Value* n = src(in, extra, u32);
        copied = b_.CreateSelect(b_.CreateICmpULT(n, b_.getInt32(size)), n, b_.getInt32(size));
    }
    Value* from = address_value(in, in.operands[1], space::global);
    for (uint32_t i = 0; i < size; ++i) {
        BasicBlock* before = b_.GetInsertBlock();
        auto* read = BasicBlock::Create(mc_.ctx, "cp.async.byte", fn_);
        auto* join = BasicBlock::Create(mc_.ctx, "cp.async.next", fn_);
        b_.CreateCondBr(b_.CreateICmpULT(b_.getInt32(i), copied), read, join);
        b_.SetInsertPoint(read);
        Value* byte = b_.CreateLoad(mc_.i8, host_pointer(space::global, b_.CreateAdd(from, b_.getInt64(i)), 1));
        BasicBlock* read_end = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
        auto* v = b_.CreatePHI(mc_.i8, 2);
        v->addIncoming(b_.getInt8(0), before);
        v->addIncoming(byte, read_end);
        b_.CreateStore(v, b_.CreateConstInBoundsGEP1_64(mc_.i8, dst, i));
    }
}

// An mbarrier object (8 bytes of shared memory), as the engine keeps it: the pending count in
// the low 32 bits, the expected count in bits 32..62, the phase's parity in bit 63. The state an
// arrive returns is the object before it. A block's threads run on one host thread, so plain
// loads and stores suffice.
Value* function_lowering::mbarrier_arrive(Value* object, Value* count, bool drop) {
    Value* old = b_.CreateAlignedLoad(mc_.i64, object, llvm::Align(1));
    Value* pending = b_.CreateTrunc(old, mc_.i32);
    Value* expected = b_.CreateAnd(b_.CreateTrunc(b_.CreateLShr(old, 32), mc_.i32), 0x7FFFFFFF);
    if (drop) expected = b_.CreateSub(expected, count);
    Value* left = b_.CreateSub(pending, count);
    Value* completes = b_.CreateICmpSLE(left, b_.getInt32(0));
    Value* phase = b_.CreateAnd(old, b_.getInt64(1ull << 63));
    Value* counts = b_.CreateShl(b_.CreateZExt(expected, mc_.i64), 32);
    Value* next_phase = b_.CreateOr(b_.CreateXor(phase, b_.getInt64(1ull << 63)),
                                    b_.CreateOr(counts, b_.CreateZExt(expected, mc_.i64)));
    Value* same_phase = b_.CreateOr(phase, b_.CreateOr(counts, b_.CreateZExt(left, mc_.i64)));
    b_.CreateAlignedStore(b_.CreateSelect(completes, next_phase, same_phase), object, llvm::Align(1));
    return old;
}

void function_lowering::lower_mbarrier(const instruction& in) {
    const scalar_type u32{scalar_type::kind::uint, 32}, u64{scalar_type::kind::uint, 64};
    const space sp = space_of(in);
    if (sp != space::shared && sp != space::generic) refuse(in, "an mbarrier lives in shared memory");
    if (in.has("init") || in.has("inval")) {
        need(in, in.has("init") ? 2 : 1);
        Value* object = memory_pointer(in, in.operands[0], sp, 8);
        Value* v = b_.getInt64(0);
        if (in.has("init")) {
            Value* count = b_.CreateZExt(b_.CreateAnd(src(in, in.operands[1], u32), 0x7FFFFFFF), mc_.i64);
            v = b_.CreateOr(b_.CreateShl(count, 32), count);
        }
        b_.CreateAlignedStore(v, object, llvm::Align(1));
        return;
    }
    if (in.has("pending_count")) {
        need(in, 2);
        return set(in, in.operands[0], b_.CreateAnd(b_.CreateTrunc(src(in, in.operands[1], u64), mc_.i32), 0x7FFFFFFF));
    }
    need(in, 2);
    Value* object = memory_pointer(in, in.operands[1], sp, 8);
    if (in.has("arrive") || in.has("arrive_drop")) {
        Value* count = in.operands.size() > 2 ? src(in, in.operands[2], u32) : b_.getInt32(1);
        Value* state = mbarrier_arrive(object, count, in.has("arrive_drop"));
        return set(in, in.operands[0], state);
    }
    if (!in.has("test_wait") && !in.has("try_wait")) refuse(in, "this mbarrier operation is not supported");
    need(in, 3);
    Value* phase = b_.CreateLShr(b_.CreateAlignedLoad(mc_.i64, object, llvm::Align(1)), 63);
    // The phase the state (or the parity) names has completed once the object's phase differs.
    Value* named = in.has("parity") ? b_.CreateAnd(b_.CreateZExt(src(in, in.operands[2], u32), mc_.i64), 1)
                                    : b_.CreateLShr(src(in, in.operands[2], u64), 63);
    Value* done = b_.CreateICmpNE(phase, named);
    set(in, in.operands[0], done);
    if (!kernel_) return;
    // Not yet: the threads it waits for run one after another, so this one parks until the
    // next pass and then reports "not yet"; the kernel's loop asks again.
    auto* wait = BasicBlock::Create(mc_.ctx, "mbarrier.wait", fn_);
    auto* after = BasicBlock::Create(mc_.ctx, "mbarrier.done", fn_);
    b_.CreateCondBr(done, after, wait);
    b_.SetInsertPoint(wait);
    park(at_warp_op,
         [&] { b_.CreateStore(b_.getInt32(thread_yield), state_field_ptr(offsetof(thread_state, warp_op))); });
    set(in, in.operands[0], b_.getInt1(false));
    b_.CreateBr(after);
    b_.SetInsertPoint(after);
}

}  // namespace

std::string block_function_name(size_t index) { return "cb_ptx_block_" + std::to_string(index); }

namespace {

// Kernel `k` and every .func, declared for it (shared offsets are the kernel's), then defined.
void lower_one_kernel(module_context& mc, size_t k) {
    const kernel_layout& kl = mc.layout.kernels[k];
    std::vector<std::pair<const function*, std::unique_ptr<function_lowering>>> funcs;
    // The functions the kernel calls (a function no kernel calls is never lowered: one inlined
    // everywhere, inline_calls.hpp, need not be lowerable as a function).
    for (const function* f : functions_called_by(mc.ptx, *kl.fn)) {
        if (f->is_extern) continue;
        auto fl = std::make_unique<function_lowering>(mc, *f, kl, false);
        mc.funcs[kl.name + "/" + f->name] = fl->declare(kl.name + "." + f->name);
        funcs.emplace_back(f, std::move(fl));
    }
    for (auto& [f, fl] : funcs) fl->lower(kl.name + "." + f->name);
    function_lowering(mc, *kl.fn, kl, true).lower(block_function_name(k));
}

// Lowers `kernels` into a new module and verifies it.
std::unique_ptr<llvm::Module> lower(llvm::LLVMContext& context, const module& m, const module_layout& layout,
                                    const block_shape* shape, std::string& error,
                                    llvm::function_ref<void(module_context&)> kernels) {
    auto mod = std::make_unique<llvm::Module>("ptx", context);
    module_context mc(context, *mod, m, layout);
    mc.shape = shape;
    try {
        kernels(mc);
    } catch (const lowering_error& e) {
        error = e.what();
        return nullptr;
    }
    std::string problems;
    llvm::raw_string_ostream os(problems);
    if (llvm::verifyModule(*mod, &os)) {
        error = "internal error: the lowered module does not verify: " + os.str().substr(0, 2000);
        return nullptr;
    }
    return mod;
}

}  // namespace

std::unique_ptr<llvm::Module> lower_module(llvm::LLVMContext& context, const module& m, const module_layout& layout,
                                           std::string& error) {
    return lower(context, m, layout, nullptr, error, [&](module_context& mc) {
        for (size_t k = 0; k < layout.kernels.size(); ++k) lower_one_kernel(mc, k);
    });
}

std::unique_ptr<llvm::Module> lower_kernel(llvm::LLVMContext& context, const module& m, const module_layout& layout,
                                           size_t only, const block_shape* shape, std::string& error) {
    return lower(context, m, layout, shape, error, [&](module_context& mc) { lower_one_kernel(mc, only); });
}

}  // namespace cudabridge::nv::ptx
