#include <cudabridge/core/context.hpp>

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/parameters.hpp>
#include <cudabridge/core/paths.hpp>

#include <algorithm>
#include <sstream>

namespace cudabridge::core {

namespace {

std::vector<sink_spec> sinks_from_setting(store& s) {
    std::vector<sink_spec> out;
    std::stringstream ss(effective_value(s, "log.sinks").value_or("console,file,sqlite"));
    std::string name;
    while (std::getline(ss, name, ','))
        if (!name.empty()) out.push_back({name, {}});
    return out;
}

log::options front_end_options(store& s) {
    log::options o;
    if (auto cap = effective_value(s, "log.queue_capacity")) {
        try {
            o.queue_capacity = static_cast<size_t>(std::stoull(*cap));
        } catch (const std::exception&) {
        }
    }
    if (auto p = effective_value(s, "log.overflow_policy"))
        o.overflow = log::parse_overflow_policy(*p).value_or(log::overflow_policy::block);
    return o;
}

}  // namespace

context::context(context_options options) : options_(std::move(options)) {
    store_ = std::make_unique<store>(options_.database.value_or(default_database_path()));
    declare_core_parameters(*store_);
    apply_retention(*store_);
    if (options_.external_log) {
        log_ = options_.external_log;
    } else {
        own_log_ = std::make_unique<log::front_end>(front_end_options(*store_));
        log_ = own_log_.get();
    }
    apply_log_settings();
    registry_ = std::make_unique<registry>(*store_, options_.search, log_);
    registry_->scan();
    if (options_.start_logging) start_sinks(options_.log_sinks.value_or(sinks_from_setting(*store_)));
}

context::~context() {
    if (own_log_) {
        own_log_->shutdown();  // every queued record reaches the sinks before they close
    } else if (log_) {
        log_->flush();
    }
    if (log_)
        for (const auto& inst : sinks_) log_->remove_sink(inst->info().name);
    sinks_.clear();
    registry_.reset();
}

void context::apply_log_settings() {
    auto level = log::parse_level(effective_value(*store_, "log.level").value_or("INFO")).value_or(CB_LOG_INFO);
    if (options_.level) level = *options_.level;
    log_->set_all_levels(level);
    if (!options_.level) {
        for (const auto& cat : log::category_names()) {
            auto v = get_setting(*store_, "global", "log.level." + cat);
            if (v && !v->empty())
                if (auto l = log::parse_level(*v)) log_->set_level(log::category_id(cat), *l);
        }
    }
    if (auto p = effective_value(*store_, "log.overflow_policy"))
        if (auto policy = log::parse_overflow_policy(*p)) log_->set_overflow_policy(*policy);
}

void context::start_sinks(const std::vector<sink_spec>& sinks) {
    for (const auto& spec : sinks) {
        config_entries config = spec.config;
        if (options_.no_color && spec.name == "console") config.emplace_back("color", "never");
        const bool level_given =
            std::any_of(config.begin(), config.end(), [](const auto& e) { return e.first == "level"; });
        if (options_.console_level && spec.name == "console" && !level_given)
            config.emplace_back("level", log::level_name(*options_.console_level));
        try {
            auto inst = registry_->create(CB_KIND_LOGSINK, spec.name, config);
            log_->add_sink(spec.name, inst->logsink(), inst->handle());
            sinks_.push_back(std::move(inst));
        } catch (const std::exception& e) {
            // A sink that cannot start never stops the program; say why and go on.
            sink_failures_.push_back(spec.name + ": " + e.what());
        }
    }
}

std::vector<std::string> context::active_sinks() const { return log_->sink_names(); }

}  // namespace cudabridge::core
