// userspace_device: construction, probe, init, reset, close, and the checks every call shares.
#include "userspace/driver/userspace_device.hpp"

#include "userspace/driver/device_identity.hpp"
#include "userspace/driver/device_objects.hpp"
#include "userspace/driver/device_word.hpp"
#include "userspace/driver/status_text.hpp"

#include "common/hw/registers.hpp"

#include <algorithm>

namespace cudabridge::nv {

userspace_device::userspace_device(const cb_transport_table* transport, void* transport_instance, cb_link* link,
                                   userspace_options options, std::shared_ptr<module_registry> modules)
    : port_(transport, transport_instance, link),
      regs_(port_),
      options_(options),
      tracker_(regs_, loss_, options_),
      ring_(port_, regs_, tracker_, loss_),
      stamps_(port_),
      registry_(std::move(modules)) {
    port_.on_loss([this](const std::string& reason, cb_status cause) { mark_lost(reason, cause); });
}

userspace_device::~userspace_device() {
    std::string ignored;
    close(ignored);
}

void userspace_device::mark_lost(const std::string& reason, cb_status cause) {
    loss_.mark(reason, cause);
    tracker_.wake_all();
}

cb_status userspace_device::lost_status(std::string& error) const {
    error = loss_.reason();
    return loss_.status();
}

cb_status userspace_device::usable(std::string& error) const {
    if (phase_ == phase::closed) {
        error = "the device is closed";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (loss_.lost()) return lost_status(error);
    if (phase_ != phase::ready) {
        error = "the device is not initialized (call init first)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    return CB_OK;
}

// ---- probe -------------------------------------------------------------------------------------

cb_status userspace_device::probe(std::string& error) {
    std::unique_lock lock(lifecycle_);
    if (phase_ == phase::closed) {
        error = "the device is closed";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (loss_.lost()) return lost_status(error);
    return probe_locked(error);
}

cb_status userspace_device::probe_locked(std::string& error) {
    device_identity id;
    if (cb_status st = identify_device(port_, regs_, id, error); st != CB_OK) return st;
    // The allocator covers the VRAM the device reports; a re-probe keeps live allocations when
    // the range did not change.
    if (!vram_ || id.vram_base != vram_base_ || id.vram_size != vram_size_)
        vram_ = std::make_unique<vram_allocator>(id.vram_base, id.vram_size);
    vram_base_ = id.vram_base;
    vram_size_ = id.vram_size;
    profile_ = id.profile;
    properties_ = properties_of(id);
    if (phase_ == phase::created) phase_ = phase::probed;
    return CB_OK;
}

cb_status userspace_device::get_properties(cb_gpu_properties& out, std::string& error) const {
    std::shared_lock lock(lifecycle_);
    if (phase_ == phase::created || phase_ == phase::closed) {
        error = phase_ == phase::closed ? "the device is closed" : "the device is not probed (call probe first)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    out = properties_;
    return CB_OK;
}

const gpu_profile* userspace_device::profile() const {
    std::shared_lock lock(lifecycle_);
    return profile_;
}

// ---- init --------------------------------------------------------------------------------------

cb_status userspace_device::init(std::string& error) {
    std::unique_lock lock(lifecycle_);
    if (phase_ == phase::closed) {
        error = "the device is closed";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (loss_.lost()) return lost_status(error);
    if (phase_ == phase::ready) return CB_OK;
    if (phase_ == phase::created)
        if (cb_status st = probe_locked(error); st != CB_OK) return st;
    cb_status st = init_locked(error);
    if (st != CB_OK) release_dma_locked();
    return st;
}

cb_status userspace_device::init_locked(std::string& error) {
    cb_dma_limits limits{};
    if (cb_status st = port_.dma_limits(limits); st != CB_OK && st != CB_ERR_UNSUPPORTED) {
        error = "reading the IOMMU's limits failed: " + status_name(st);
        return st;
    }
    page_size_ = limits.page_size >= 64 && (limits.page_size & (limits.page_size - 1)) == 0 ? limits.page_size : 4096;
    stamps_.set_page_size(page_size_);
    // A known state first: ring off, GET/PUT and fences cleared.
    if (cb_status st = regs_.write(hw::reg::reset, hw::reset_soft, error); st != CB_OK) return st;
    fence_word_ = host_buffer(sizeof(uint64_t), page_size_);
    if (fence_word_.empty()) {
        error = "cannot allocate the fence word";
        return CB_ERR_OUT_OF_MEMORY;
    }
    if (cb_status st = dma_mapping::map(port_, fence_word_.data(), sizeof(uint64_t), CB_DMA_FROM_DEVICE,
                                        "the fence word", fence_mapping_, error);
        st != CB_OK)
        return st;
    if (cb_status st = ring_.create(options_.ring_entries, page_size_, error); st != CB_OK) return st;
    const uint64_t arena_bytes =
        (std::max<uint64_t>(options_.launch_arena_bytes, 1) + page_size_ - 1) / page_size_ * page_size_;
    if (cb_status st = arena_.create(port_, arena_bytes, page_size_, error); st != CB_OK) return st;
    launch_blocks_mapped_.fetch_add(1);
    if (cb_status st = configure_locked(error); st != CB_OK) return st;
    phase_ = phase::ready;
    return CB_OK;
}

// Engines on, fence word, interrupts, ring: what init and every reset program.
cb_status userspace_device::configure_locked(std::string& error) {
    if (cb_status st = regs_.write(hw::pmc_enable, 1, error); st != CB_OK) return st;
    uint32_t status = 0;
    if (cb_status st = regs_.read_sane(hw::reg::status, status, error); st != CB_OK) return st;
    if ((status & hw::status_ready) == 0) {
        error = "the device did not come out of reset (status " + hex(status, 8) + " after PMC_ENABLE)";
        return CB_ERR_INTERNAL;
    }
    clear_device_word(reinterpret_cast<uint64_t*>(fence_word_.data()));
    if (cb_status st = regs_.write64(hw::reg::fence_addr_lo, hw::reg::fence_addr_hi, fence_mapping_.iova(), error);
        st != CB_OK)
        return st;
    tracker_.set_fence_word(reinterpret_cast<uint64_t*>(fence_word_.data()));
    const uint32_t all_interrupts = hw::intr_fence | hw::intr_error;
    if (cb_status st = regs_.write(hw::reg::intr_status, all_interrupts, error); st != CB_OK) return st;
    interrupts_on_ = false;
    if (options_.use_interrupts) {
        // A transport without interrupts leaves the driver polling.
        interrupts_on_ = port_.set_interrupt_handler(&fence_tracker::interrupt_handler, &tracker_) == CB_OK;
    }
    tracker_.set_interrupts(interrupts_on_);
    if (cb_status st = regs_.write(hw::reg::intr_enable, interrupts_on_ ? all_interrupts : 0, error); st != CB_OK)
        return st;
    return ring_.start(error);
}

void userspace_device::release_dma_locked() {
    if (interrupts_on_) port_.set_interrupt_handler(nullptr, nullptr);
    interrupts_on_ = false;
    tracker_.set_interrupts(false);
    tracker_.set_fence_word(nullptr);
    tracker_.release_all();
    ring_.release();
    arena_.release();
    fence_mapping_.release();
    fence_word_ = host_buffer();
    {
        std::lock_guard objects(objects_mutex_);
        events_.clear();
        streams_.clear();
    }
    release_modules_locked();
    release_pinned_locked();
    stamps_.release_all();
}

// ---- reset -------------------------------------------------------------------------------------

// A soft or hard reset is written, and every queued command abandoned, under the shared lock
// only: waits hold that lock, and so end at once (a wait on hung work would otherwise run out its
// whole timeout before the reset could start). A reset through the link (FLR, hot reset) changes
// what every MMIO access sees, so it waits for the exclusive lock. Bringing the device back up is
// done exclusively, once the waits have let go.
cb_status userspace_device::reset(cb_reset_kind kind, std::string& error) {
    const char* name = reset_name(kind);
    if (!name) {
        error = "unknown reset kind " + std::to_string(kind);
        return CB_ERR_INVALID_ARGUMENT;
    }
    const bool by_register = kind == CB_RESET_SOFT || kind == CB_RESET_HARD;
    if (by_register) {
        std::shared_lock lock(lifecycle_);
        if (cb_status st = start_reset(kind, name, error); st != CB_OK) return st;
    }
    std::unique_lock lock(lifecycle_);
    if (!by_register) {
        if (cb_status st = start_reset(kind, name, error); st != CB_OK || kind == CB_RESET_LINK_RETRAIN) return st;
    } else if (phase_ == phase::closed) {
        error = "the device was closed during the " + std::string(name);
        return CB_ERR_INVALID_ARGUMENT;
    }
    // A device that answers again is back.
    uint32_t magic = 0;
    std::string why;
    if (regs_.read(hw::reg::magic, magic, why) != CB_OK || magic != hw::cb_magic_value) {
        if (!loss_.lost()) mark_lost("it does not answer after a " + std::string(name));
        return lost_status(error);
    }
    loss_.clear();
    if (cb_status st = ring_.wait_until_idle(name, error); st != CB_OK) return st;
    if (kind != CB_RESET_SOFT) {  // VRAM was released with everything in it
        forget_shared_locked();
        vram_ = std::make_unique<vram_allocator>(vram_base_, vram_size_);
        replace_module_symbols_locked();
    }
    if (phase_ == phase::ready) return configure_locked(error);
    return CB_OK;
}

const char* userspace_device::reset_name(cb_reset_kind kind) {
    switch (kind) {
    case CB_RESET_SOFT:
        return "soft reset";
    case CB_RESET_HARD:
        return "hard reset";
    case CB_RESET_FUNCTION:
        return "function-level reset";
    case CB_RESET_HOT:
        return "hot reset";
    case CB_RESET_LINK_RETRAIN:
        return "link retrain";
    default:
        return nullptr;
    }
}

cb_status userspace_device::start_reset(cb_reset_kind kind, const char* name, std::string& error) {
    if (phase_ == phase::closed || phase_ == phase::created) {
        error = phase_ == phase::closed ? "the device is closed" : "the device is not probed (call probe first)";
        return CB_ERR_INVALID_ARGUMENT;
    }
    cb_status st = CB_OK;
    if (kind == CB_RESET_SOFT || kind == CB_RESET_HARD) {
        st = regs_.write(hw::reg::reset, kind == CB_RESET_SOFT ? hw::reset_soft : hw::reset_hard, error);
    } else {
        st = port_.reset_link(kind);
        if (st != CB_OK) error = std::string("the link's ") + name + " failed: " + status_name(st);
    }
    if (st != CB_OK || kind == CB_RESET_LINK_RETRAIN) return st;
    // Whatever was queued will not run: its owners hear of it now, waits included.
    tracker_.abandon_through(tracker_.submitted(), CB_ERR_INTERNAL,
                             std::string("the work was abandoned by a ") + name + " before it completed");
    return CB_OK;
}

// ---- close -------------------------------------------------------------------------------------

cb_status userspace_device::close(std::string& /*error*/) {
    std::unique_lock lock(lifecycle_);
    if (phase_ == phase::closed) return CB_OK;
    if (phase_ == phase::ready && !loss_.lost()) {
        // Closing ends this process's use of the device, as CUDA's context teardown at exit does:
        // work still queued is cancelled (a running kernel stops at its next poll) instead of
        // keeping the program from exiting, as a kernel that never ends would.
        std::string why;
        if (tracker_.refresh(why) == CB_OK && tracker_.completed() < tracker_.submitted()) {
            regs_.write(hw::reg::reset, hw::reset_soft, why);
            tracker_.abandon_through(tracker_.submitted(), CB_ERR_DEVICE_LOST,
                                     "cancelled: the device was closed with this work still queued");
        }
        ring_.stop(why);
        regs_.write(hw::reg::intr_enable, 0, why);
        ring_.wait_until_idle("close", why);
    }
    release_dma_locked();
    forget_shared_locked();
    phase_ = phase::closed;
    return CB_OK;
}

}  // namespace cudabridge::nv
