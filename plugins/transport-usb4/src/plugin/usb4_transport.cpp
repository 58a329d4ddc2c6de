#include "plugin/usb4_transport.hpp"

#include "plugin/control_json.hpp"
#include "plugin/linux_backend.hpp"

#include <cudabridge/cpp/records.hpp>
#include <cudabridge/cpp/text_out.hpp>

#include <cstdlib>
#include <cstring>
#include <ctime>

namespace cudabridge::usb4 {

namespace {

constexpr const char* scope = "plugin:usb4";
constexpr const char* layout_key = "fabric";

std::filesystem::path sysfs_root_from(const sdk::host& h) {
    std::string root = h.param_or("sysfs_root", "");
    if (root.empty())
        if (const char* env = secure_getenv("CUDABRIDGE_SYSFS_ROOT"); env && *env) root = env;
    return root.empty() ? std::filesystem::path("/") : std::filesystem::path(root);
}

}  // namespace

usb4_transport::usb4_transport(const sdk::host& h, const sdk::config&) : transport(h) {
    h.declare_choice(CB_PARAM_STRING, "backend", "auto",
                     "auto (Linux sysfs when a Thunderbolt/USB4 domain exists, else the simulator), sim, or linux",
                     "auto,sim,linux");
    h.declare(CB_PARAM_STRING, "sysfs_root", "",
              "root of the sysfs tree to read (tests use fixture trees); empty: $CUDABRIDGE_SYSFS_ROOT or /");
    h.declare_range(CB_PARAM_BOOL, "pace", "0", "simulator: sleep so wall time follows the modeled link time", false, 0,
                    0);
    h.declare_range(CB_PARAM_INT, "seed", "1", "simulator: seed of the fault-injection stream", true, 0, 9.2e18);
    h.declare_range(CB_PARAM_DOUBLE, "bit_error_rate", "0", "simulator: bit errors per bit on every packet", true, 0,
                    1);
    h.declare_checked(CB_PARAM_INT, "max_payload", "256", "simulator: PCIe Max Payload Size (128, 256 or 512)", true,
                      128, 512, "128,256,512", 0);
    h.declare_checked(CB_PARAM_INT, "max_read_request", "512",
                      "simulator: PCIe Max Read Request (a power of two, 128..4096)", true, 128, 4096,
                      "128,256,512,1024,2048,4096", 0);
    h.declare_range(CB_PARAM_INT, "poll_ms", "1000", "Linux backend: how often sysfs is read for hot-plug events", true,
                    50, 60000);
    sysfs_root_ = sysfs_root_from(h);
    poll_period_ = std::chrono::milliseconds(h.param_int("poll_ms", 1000));
    backend_ = choose_backend(h.param_or("backend", "auto"), sysfs_root_);
    options_.pace = h.param_bool("pace", false);
    options_.seed = static_cast<uint64_t>(h.param_int("seed", 1));
    options_.bit_error_rate = h.param_double("bit_error_rate", 0);
    options_.max_payload = static_cast<uint32_t>(h.param_int("max_payload", 256));
    options_.max_read_request = static_cast<uint32_t>(h.param_int("max_read_request", 512));
    h.log(CB_LOG_INFO, "USB4",
          std::string(backend_.simulated ? "simulated fabric: " : "Linux backend: ") + backend_.reason);
    if (backend_.simulated) {
        layout_storage storage;
        sdk::host services = h;
        storage.load = [services] { return services.setting(scope, layout_key); };
        storage.save = [services](const std::string& json) {
            if (services.set_setting(scope, layout_key, json) != CB_OK)
                throw sdk::status_error(CB_ERR_INTERNAL, "cannot store the simulated fabric layout");
        };
        fabric_ = std::make_unique<fabric>(std::move(storage));
    }
}

usb4_transport::~usb4_transport() {
    poller_.reset();
    std::lock_guard lock(links_mutex_);
    links_.clear();
}

fabric& usb4_transport::sim_fabric() {
    if (!fabric_)
        throw sdk::status_error(
            CB_ERR_UNSUPPORTED,
            "this operation needs the simulated fabric; the Linux backend runs (" + backend_.reason + ")");
    return *fabric_;
}

sim_link& usb4_transport::link_of(cb_link* link) {
    std::lock_guard lock(links_mutex_);
    auto it = links_.find(link);
    if (it == links_.end()) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "not an open link of this transport");
    return *it->second;
}

void usb4_transport::for_links_of(const std::string& enclosure_id, bool removed) {
    std::lock_guard lock(links_mutex_);
    for (auto& [handle, link] : links_)
        if (link->enclosure_id() == enclosure_id) removed ? link->device_removed() : link->device_returned();
}

cb_status usb4_transport::enumerate(cb_endpoint_info* out, size_t capacity, size_t& count) {
    std::vector<cb_endpoint_info> all = backend_.simulated ? sim_fabric().enumerate() : linux_enumerate(sysfs_root_);
    count = all.size();
    // The caller's record size is the stride: an older host's records are shorter, a newer one's longer.
    return sdk::copy_records(out, capacity, all.data(), all.size());
}

cb_status usb4_transport::authorize(const char* id, cb_auth_state level, const uint8_t* key, size_t key_len) {
    if (id == nullptr) return CB_ERR_INVALID_ARGUMENT;
    std::string message;
    cb_status st = backend_.simulated ? sim_fabric().authorize(id, level, key, key_len, message)
                                      : linux_authorize(sysfs_root_, id, level, key, key_len, message);
    if (st != CB_OK) throw sdk::status_error(st, message);
    host_.log(CB_LOG_INFO, "USB4", message);
    return CB_OK;
}

cb_status usb4_transport::deauthorize(const char* id) {
    if (id == nullptr) return CB_ERR_INVALID_ARGUMENT;
    std::string message;
    cb_status st =
        backend_.simulated ? sim_fabric().deauthorize(id, message) : linux_deauthorize(sysfs_root_, id, message);
    if (st != CB_OK) throw sdk::status_error(st, message);
    if (backend_.simulated) for_links_of(id, true);  // the tunnel is gone
    host_.log(CB_LOG_INFO, "USB4", message);
    return CB_OK;
}

cb_status usb4_transport::set_event_handler(cb_transport_event_handler handler, void* user) {
    if (backend_.simulated) {
        sim_fabric().set_event_handler(handler, user);
        return CB_OK;
    }
    poller_.reset();  // the old handler is not called after this
    if (handler != nullptr) {
        const std::filesystem::path root = sysfs_root_;
        poller_ =
            std::make_unique<hotplug_poller>([root] { return linux_enumerate(root); }, poll_period_, handler, user);
    }
    return CB_OK;
}

cb_status usb4_transport::open_link(const char* pci_function_id, cb_link** out) {
    if (pci_function_id == nullptr || out == nullptr) return CB_ERR_INVALID_ARGUMENT;
    if (!backend_.simulated)
        throw sdk::status_error(CB_ERR_UNSUPPORTED,
                                "on Linux the kernel's PCI driver owns the tunnelled function; use the GPU family's "
                                "kernel-driver backend instead of a transport link");
    auto target = sim_fabric().find_function(pci_function_id);
    if (!target) throw sdk::status_error(CB_ERR_NOT_FOUND, std::string("no PCI function ") + pci_function_id);
    auto link = std::make_unique<sim_link>(*target, options_);
    link->share_counters(shared_counters(target->enclosure.id));
    apply_standing_fault(*link, target->enclosure);
    auto* handle = reinterpret_cast<cb_link*>(link.get());
    std::lock_guard lock(links_mutex_);
    links_[handle] = std::move(link);
    *out = handle;
    return CB_OK;
}

std::shared_ptr<shared_link_counters> usb4_transport::shared_counters(const std::string& enclosure_id) {
    std::lock_guard lock(links_mutex_);
    if (auto it = shared_counters_.find(enclosure_id); it != shared_counters_.end()) return it->second;
    const std::optional<std::string> dir = host_.path(CB_PATH_STATE_DIR);
    if (!dir || dir->empty()) return nullptr;
    try {
        auto counters = std::make_shared<shared_link_counters>(link_counters_path(*dir, enclosure_id));
        shared_counters_[enclosure_id] = counters;
        return counters;
    } catch (const std::exception& e) {
        host_.log(CB_LOG_WARN, "USB4", std::string("link counters not shared with other processes: ") + e.what());
        return nullptr;
    }
}

cb_status usb4_transport::close_link(cb_link* link) {
    std::unique_ptr<sim_link> closing;
    {
        std::lock_guard lock(links_mutex_);
        auto it = links_.find(link);
        if (it == links_.end()) return CB_ERR_INVALID_ARGUMENT;
        closing = std::move(it->second);
        links_.erase(it);
    }
    return CB_OK;  // destroyed outside the lock: it detaches the model
}

cb_status usb4_transport::config_read(cb_link* l, uint32_t offset, void* data, uint32_t size) {
    return link_of(l).config_read(offset, data, size);
}
cb_status usb4_transport::config_write(cb_link* l, uint32_t offset, const void* data, uint32_t size) {
    return link_of(l).config_write(offset, data, size);
}
cb_status usb4_transport::bar_info(cb_link* l, uint32_t bar, cb_bar_info& out) { return link_of(l).bar_info(bar, out); }
cb_status usb4_transport::mmio_read32(cb_link* l, uint32_t bar, uint64_t offset, uint32_t& out) {
    return link_of(l).mmio_read(bar, offset, &out, sizeof out);
}
cb_status usb4_transport::mmio_write32(cb_link* l, uint32_t bar, uint64_t offset, uint32_t value) {
    return link_of(l).mmio_write(bar, offset, &value, sizeof value, CB_MMIO_DEVICE_NGNRNE);
}
cb_status usb4_transport::mmio_read64(cb_link* l, uint32_t bar, uint64_t offset, uint64_t& out) {
    return link_of(l).mmio_read(bar, offset, &out, sizeof out);
}
cb_status usb4_transport::mmio_write64(cb_link* l, uint32_t bar, uint64_t offset, uint64_t value) {
    return link_of(l).mmio_write(bar, offset, &value, sizeof value, CB_MMIO_DEVICE_NGNRNE);
}
cb_status usb4_transport::mmio_write_block(cb_link* l, uint32_t bar, uint64_t offset, const void* data, size_t size,
                                           cb_mmio_mapping mapping) {
    if (size > UINT32_MAX) return CB_ERR_INVALID_ARGUMENT;
    return link_of(l).mmio_write(bar, offset, data, static_cast<uint32_t>(size), mapping);
}
cb_status usb4_transport::mmio_read_block(cb_link* l, uint32_t bar, uint64_t offset, void* data, size_t size) {
    if (size > UINT32_MAX) return CB_ERR_INVALID_ARGUMENT;
    return link_of(l).mmio_read(bar, offset, data, static_cast<uint32_t>(size));
}
cb_status usb4_transport::bar_map(cb_link* l, uint32_t bar, uint64_t offset, uint64_t size, void*& host) {
    return link_of(l).bar_map(bar, offset, size, host);
}
cb_status usb4_transport::dma_map(cb_link* l, void* host, size_t size, cb_dma_direction dir, uint64_t& iova) {
    return link_of(l).dma_map(host, size, dir, iova);
}
cb_status usb4_transport::dma_unmap(cb_link* l, uint64_t iova, size_t size) { return link_of(l).dma_unmap(iova, size); }
cb_status usb4_transport::dma_limits(cb_link* l, cb_dma_limits& out) { return link_of(l).dma_limits(out); }
cb_status usb4_transport::set_interrupt_handler(cb_link* l, cb_interrupt_handler handler, void* user) {
    return link_of(l).set_interrupt_handler(handler, user);
}
void usb4_transport::apply_standing_fault(sim_link& link, const enclosure_layout& enclosure) {
    const std::string& fault_json = enclosure.fault_json;
    if (fault_json.empty()) return;
    // A posted fault's conditions (bit errors, an exhausted DART, a stuck device) hold for links
    // opened later too, and so does an unplug after N bytes until it has happened once (`sim
    // fault unplug-after N` before the program that connects), and a link drop for what is left
    // of it; an unplug now was for the links open then.
    const Poco::JSON::Object::Ptr posted = parse_request(fault_json);
    fault_request f = fault_from(posted);
    keep_what_is_left_of_the_drop(posted, f);
    f.unplug_now.reset();
    if (enclosure.fault_event_spent_seq >= enclosure.fault_seq) f.unplug_after_bytes.reset();
    const bool any = (f.bit_error_rate && *f.bit_error_rate > 0) || f.dart_exhausted.value_or(false) ||
                     f.stuck.value_or(false) || f.unplug_after_bytes.has_value() || f.link_drop_ns.has_value();
    if (!any) return;
    link.inject(f);
    host_.log(CB_LOG_WARN, "USB4", "the link to " + link.enclosure_id() + " opens with the posted fault " + fault_json);
}

void usb4_transport::sync_with_stored_fabric(sim_link& link) {
    // At most every 100 ms: link_status is asked by every heartbeat and telemetry read.
    constexpr uint64_t period_ns = 100'000'000;
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const uint64_t now = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
    if (!link.sync_due(now, period_ns)) return;
    const fabric_layout layout = sim_fabric().layout();
    const enclosure_layout* enc = nullptr;
    for (const auto& e : layout.enclosures)
        if (e.id == link.enclosure_id()) enc = &e;
    if ((enc == nullptr || !enc->plugged) && !link.removed()) {
        // Unplugged (or taken out of the layout) by another process: the tunnel is gone here too.
        link.device_removed();
        host_.log(CB_LOG_WARN, "USB4", "device " + link.enclosure_id() + " was unplugged from the fabric");
        return;
    }
    if (enc == nullptr || enc->fault_seq <= link.seen_fault_seq()) return;
    link.set_seen_fault_seq(enc->fault_seq);
    try {
        // A link open when the fault was posted takes all of it, however late its sync: its
        // process must see the drop (a link opened later takes what is left of it).
        link.inject(fault_from(parse_request(enc->fault_json)));
        host_.log(CB_LOG_WARN, "USB4",
                  "posted fault applied to the link to " + link.enclosure_id() + ": " + enc->fault_json);
    } catch (const std::exception& e) {
        host_.log(CB_LOG_ERROR, "USB4", std::string("posted fault not applied: ") + e.what());
    }
}

cb_status usb4_transport::link_status(cb_link* l, cb_link_status& out) {
    sim_link& link = link_of(l);
    sync_with_stored_fabric(link);
    if (link.take_surprise_cut()) {
        // A surprise removal mid-transfer pulls the enclosure out of the fabric for every
        // process, as the kernel's hot-plug handler would report it gone.
        std::string message;
        sim_fabric().mark_fault_event_spent(link.enclosure_id());
        if (sim_fabric().set_plugged(link.enclosure_id(), false, message) == CB_OK) {
            for_links_of(link.enclosure_id(), true);
            host_.log(CB_LOG_WARN, "USB4", "surprise removal: " + message);
        }
    }
    return link.status(out);
}
cb_status usb4_transport::reset_link(cb_link* l, cb_reset_kind reset_kind) {
    sim_link& link = link_of(l);
    const cb_status st = link.reset(reset_kind);
    if (reset_kind != CB_RESET_LINK_RETRAIN && fabric_) lift_posted_stuck(link.enclosure_id());
    return st;
}

// A reset is how a hung function comes back, for every process and for links opened later: the
// posted fault's "stuck" becomes false. Its other lasting conditions stay; its one-time events
// (a link drop, an unplug now, an unplug already spent) are not posted again.
void usb4_transport::lift_posted_stuck(const std::string& enclosure_id) {
    for (const auto& e : sim_fabric().layout().enclosures) {
        if (e.id != enclosure_id || e.fault_json.empty()) continue;
        Poco::JSON::Object::Ptr r = parse_request(e.fault_json);
        if (!bool_field(r, "stuck").value_or(false)) return;
        r->set("stuck", false);
        r->remove("link_drop_ms");
        r->remove("unplug_now");
        if (e.fault_event_spent_seq >= e.fault_seq) r->remove("unplug_after_bytes");
        size_t posted = 0;
        std::string message;
        if (sim_fabric().post_fault(enclosure_id, stringify(r), posted, message) == CB_OK)
            host_.log(CB_LOG_INFO, "USB4", "the reset of " + enclosure_id + " ended its posted hang");
        return;
    }
}

cb_status usb4_transport::attach_endpoint_model(const char* enclosure_id, const cb_endpoint_model_table* table,
                                                void* model) {
    if (enclosure_id == nullptr) return CB_ERR_INVALID_ARGUMENT;
    return sim_fabric().attach_model(enclosure_id, {table, model});
}

cb_status usb4_transport::detach_endpoint_model(const char* enclosure_id) {
    if (enclosure_id == nullptr) return CB_ERR_INVALID_ARGUMENT;
    {
        std::lock_guard lock(links_mutex_);
        for (const auto& [handle, link] : links_)
            if (link->enclosure_id() == enclosure_id)
                throw sdk::status_error(
                    CB_ERR_BUSY, std::string("close the links to ") + enclosure_id + " before detaching its model");
    }
    return sim_fabric().detach_model(enclosure_id);
}

cb_status usb4_transport::control(const char* request, char* reply, size_t reply_size, size_t* needed) {
    return sdk::copy_text_out(handle_control(request), reply, reply_size, needed);
}

}  // namespace cudabridge::usb4
