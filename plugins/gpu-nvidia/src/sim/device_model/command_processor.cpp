#include "sim/device_model/command_processor.hpp"

#include "sim/device_model/copy_engine.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace cudabridge::nv {
namespace {

constexpr uint32_t msi_vector = 0;
constexpr const char* log_category = "GPU";

uint64_t steady_ns(std::chrono::steady_clock::time_point at) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count());
}

uint64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since).count());
}

// A copy between host memory and VRAM (a, b, c: source, destination, bytes): it takes the link's
// time, and its bytes count in `moved` once it succeeded.
using link_copy = command_result (*)(const dma_port&, const vram&, uint64_t, uint64_t, uint64_t, const abort_check&);
command_result across_link(link_copy copy, const dma_port& dma, const vram& memory, const hw::command& cmd,
                           const abort_check& abort, uint64_t& moved, uint64_t& modeled_ns) {
    const link_stopwatch link_time(dma);
    command_result r = copy(dma, memory, cmd.a, cmd.b, cmd.c, abort);
    modeled_ns = link_time.elapsed_ns();
    if (r.ok()) moved = cmd.c;
    return r;
}

bool is_kernel(hw::opcode op) {
    return op == hw::opcode::launch || op == hw::opcode::host_kernel || op == hw::opcode::ptx_kernel;
}

}  // namespace

command_processor::command_processor(engine_state& state, vram& memory, compute_engine& compute,
                                     board_telemetry& telemetry, modeled_clock& clock, const roofline& ceilings,
                                     const sdk::host& host)
    : state_(state),
      memory_(memory),
      compute_(compute),
      telemetry_(telemetry),
      clock_(clock),
      ceilings_(ceilings),
      host_(host) {}

command_processor::~command_processor() { stop(); }

cb_status command_processor::start(const cb_endpoint_host_ops& ops) {
    if (thread_.joinable()) return CB_ERR_BUSY;
    dma_ = dma_port(ops);
    state_.start();
    thread_ = std::thread([this] { run(); });
    return CB_OK;
}

void command_processor::stop() {
    if (!thread_.joinable()) return;
    state_.stop();
    thread_.join();
    dma_ = dma_port();
}

void command_processor::raise_msi() {
    if (cb_status st = dma_.interrupt(msi_vector); st != CB_OK)
        host_.log(CB_LOG_DEBUG, log_category, "MSI not delivered (status " + std::to_string(st) + ")");
}

void command_processor::run() {
    ring_work work;
    bool send_msi = false;
    while (state_.wait_for_work(work, send_msi)) {
        if (send_msi) raise_msi();
        if (work.get != work.put) run_stretch(work);
    }
}

void command_processor::run_stretch(const ring_work& work) {
    const abort_check abort = [&] { return !state_.current(work.generation); };
    // The engines ask this before each kernel block and each piece of a copy: that is where a
    // command counts as moving, so a long kernel or a large copy that keeps going is never taken
    // for a hang, and one stuck inside a block or a piece is.
    const abort_check moving = [&] {
        state_.note_progress();
        return abort();
    };
    std::vector<hw::command> batch;
    uint32_t get = work.get;
    bool keep_going = true;
    while (keep_going && get != work.put) {
        // The contiguous run from GET, up to the wrap and the batch size.
        const uint32_t pending = (work.put - get) & (work.entries - 1);
        const uint32_t count = std::min({pending, work.entries - get, fetch_batch_commands});
        batch.resize(count);
        const uint64_t at = work.base + uint64_t{get} * sizeof(hw::command);
        if (cb_status st = dma_.read(at, batch.data(), count * sizeof(hw::command), abort); st != CB_OK) {
            if (abort()) break;
            host_.log(CB_LOG_WARN, log_category,
                      "command ring fetch failed (status " + std::to_string(st) + "); ring turned off");
            if (state_.fetch_failed(work, st)) raise_msi();
            break;
        }
        for (const hw::command& cmd : batch) {
            command_record record;
            uint64_t modeled_ns = 0;
            const auto started = std::chrono::steady_clock::now();
            if (is_kernel(cmd.op)) state_.kernel_started(steady_ns(started));
            command_result result = execute(cmd, moving, record, modeled_ns);
            state_.kernel_ended();
            record.busy_ns = elapsed_ns(started);
            // The part of the engines' time device memory was read or written: the command's
            // modeled memory traffic over its modeled duration (a link copy writes VRAM at the
            // link's pace, so little of its time).
            if (modeled_ns)
                record.memory_busy_ns = static_cast<uint64_t>(
                    static_cast<double>(record.busy_ns) *
                    std::min(1.0, static_cast<double>(record.memory_model_ns) / static_cast<double>(modeled_ns)));
            if (abort()) {
                keep_going = false;  // a reset or detach overtook it: nobody waits for it any more
                break;
            }
            // Before the fence: a host that sees the command done reads PTIMER past its end.
            clock_.advance(modeled_ns);
            if (is_kernel(cmd.op) && result.ok()) state_.add_kernel_time(modeled_ns);
            state_.note_progress();
            record.failed = !result.ok();
            record.xid = result.xid;
            telemetry_.record(record);
            get = (get + 1) & (work.entries - 1);
            if (!finish(work, cmd, get, std::move(result))) {
                keep_going = false;
                break;
            }
        }
    }
    state_.idle();
    state_.report_queued([this](uint32_t n) { telemetry_.set_queued(n); });
}

// A kernel command of any kind: the engine's `launch` runs the block at cmd.a (cmd.c bytes), and
// the roofline model turns what it asked of the GPU into modeled time.
command_result command_processor::run_kernel(kernel_launcher launch, const hw::command& cmd, const abort_check& abort,
                                             command_record& record, uint64_t& modeled_ns) {
    record.kernel = true;
    work_amount work;
    auto r = (compute_.*launch)(dma_, memory_, cmd.a, cmd.c, abort, work);
    modeled_ns = modeled_duration_ns(ceilings_, work);
    record.memory_model_ns = memory_ns(work.bytes);
    return r;
}

command_result command_processor::execute(const hw::command& cmd, const abort_check& abort, command_record& record,
                                          uint64_t& modeled_ns) {
    modeled_ns = 0;
    switch (cmd.op) {
    case hw::opcode::nop:
        return command_result::success();
    case hw::opcode::copy_h2d: {
        auto r = across_link(copy_h2d, dma_, memory_, cmd, abort, record.bytes_h2d, modeled_ns);
        record.memory_model_ns = memory_ns(static_cast<double>(record.bytes_h2d));
        return r;
    }
    case hw::opcode::copy_d2h: {
        auto r = across_link(copy_d2h, dma_, memory_, cmd, abort, record.bytes_d2h, modeled_ns);
        record.memory_model_ns = memory_ns(static_cast<double>(record.bytes_d2h));
        return r;
    }
    case hw::opcode::copy_d2d:
        modeled_ns = modeled_duration_ns(ceilings_, copy_d2d_work(cmd.c));
        record.memory_model_ns = memory_ns(copy_d2d_work(cmd.c).bytes);
        return copy_d2d(memory_, cmd.a, cmd.b, cmd.c, abort);
    case hw::opcode::memset8:
        modeled_ns = modeled_duration_ns(ceilings_, memset_work(cmd.c));
        record.memory_model_ns = memory_ns(memset_work(cmd.c).bytes);
        return fill_bytes(memory_, cmd.a, static_cast<uint8_t>(cmd.b), cmd.c, abort);
    case hw::opcode::launch:
        return run_kernel(&compute_engine::launch, cmd, abort, record, modeled_ns);
    case hw::opcode::host_kernel:
        return run_kernel(&compute_engine::launch_host_kernel, cmd, abort, record, modeled_ns);
    case hw::opcode::ptx_kernel:
        return run_kernel(&compute_engine::launch_ptx_kernel, cmd, abort, record, modeled_ns);
    case hw::opcode::timestamp: {
        // The modeled clock: frozen while the engines are busy, so this is when the work before
        // it finished in modeled time.
        const uint64_t now = clock_.now();
        if (cb_status st = dma_.write(cmd.a, &now, sizeof now); st != CB_OK)
            return command_result::failure(st, 0, "timestamp: host DMA failed (status " + std::to_string(st) + ")");
        return command_result::success();
    }
    }
    return command_result::failure(CB_ERR_UNSUPPORTED, xid_graphics_engine_exception,
                                   "unknown opcode " + std::to_string(static_cast<uint32_t>(cmd.op)));
}

bool command_processor::finish(const ring_work& work, const hw::command& cmd, uint32_t next_get,
                               command_result result) {
    completion done;
    done.next_get = next_get;
    done.fence = (cmd.flags & hw::flag_fence) != 0;
    done.interrupt = (cmd.flags & hw::flag_interrupt) != 0;
    done.fence_value = cmd.fence;
    const uint64_t fence_address = state_.retired(work, next_get);
    // The fence word first, so a waiter that sees fence_done finds the memory updated too.
    if (done.fence && fence_address != 0) {
        if (cb_status st = dma_.write(fence_address, &cmd.fence, sizeof cmd.fence); st != CB_OK && result.ok())
            result = command_result::failure(st, 0, "fence write failed (status " + std::to_string(st) + ")");
    }
    if (!result.ok()) {
        host_.log(CB_LOG_WARN, log_category,
                  "command with fence " + std::to_string(cmd.fence) + " failed (status " +
                      std::to_string(result.status) + (result.xid ? ", Xid " + std::to_string(result.xid) : "") +
                      "): " + result.message);
    }
    done.status = result.status;
    done.detail = result.detail;
    done.text = result.message;
    bool keep_going = false;
    if (state_.complete(work, done, keep_going)) raise_msi();
    return keep_going;
}

}  // namespace cudabridge::nv
