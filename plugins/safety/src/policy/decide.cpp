#include "policy/decide.hpp"

#include "policy/classify.hpp"
#include "policy/ladder.hpp"
#include "policy/text.hpp"

#include <vector>

namespace cudabridge::plugins::safety {

namespace {

std::string attempts_text(uint32_t n) { return count_text(n, "recovery attempt", "recovery attempts"); }

decision after_emergency_stop(const cb_health_sample& s, const parameters& p) {
    const double restart = restart_temperature(p);
    if (!(s.temperature_c < restart))
        return {
            CB_ACTION_NONE, 0,
            printf_text("cooling after an emergency stop: %.1f °C, restart below %g °C.", s.temperature_c, restart)};
    if (p.enable_auto_recovery)
        return {
            CB_ACTION_RESUME, 0,
            printf_text("cooled to %.1f °C, below the %g °C restart point: resuming work.", s.temperature_c, restart)};
    return {CB_ACTION_WARN, 0,
            printf_text("cooled to %.1f °C, below the %g °C restart point; auto recovery is off, "
                        "so restart the device manually.",
                        s.temperature_c, restart)};
}

decision recover(const std::vector<fault>& faults, uint32_t attempts, const parameters& p) {
    const fault& primary = faults.front();
    std::string what = primary.what;
    if (faults.size() > 1) what += ", with " + count_text(faults.size() - 1, "other fault", "other faults");
    const bool spent = attempts >= p.max_retry_count;
    const cb_safety_action next = climb(primary.entry, attempts);

    if (!p.enable_auto_recovery) {
        const std::string would =
            spent ? std::string("marked the device failed") : std::string("started a ") + action_phrase(next);
        return {CB_ACTION_WARN, 0, what + ": auto recovery is off; it would have " + would + "."};
    }
    if (spent)
        return {CB_ACTION_MARK_FAILED, 0,
                printf_text("%s: marked failed after %s (max_retry_count %u); needs a manual "
                            "reset.",
                            what.c_str(), attempts_text(attempts).c_str(), p.max_retry_count)};

    std::string reason =
        printf_text("%s: %s (attempt %u of %u", what.c_str(), action_phrase(next), attempts + 1, p.max_retry_count);
    if (next != primary.entry)
        reason += printf_text(", escalated from %s after %s", action_phrase(primary.entry),
                              count_text(attempts, "failed attempt", "failed attempts").c_str());
    reason += ").";
    return {next, attempts > 0 ? p.retry_delay_ms : 0, reason};
}

decision watch(const health_input& in, const parameters& p) {
    const cb_health_sample& s = in.current;
    const double restart = restart_temperature(p);
    if (s.temperature_c >= restart)
        return {CB_ACTION_WARN, 0,
                printf_text("temperature %.1f °C is approaching the %g °C thermal limit "
                            "(warnings from %g °C).",
                            s.temperature_c, p.thermal_limit_c, restart)};
    if (s.error_rate > p.error_rate_threshold / 2)
        return {CB_ACTION_WARN, 0,
                printf_text("error rate %s is over half the %s threshold.", percent_text(s.error_rate).c_str(),
                            percent_text(p.error_rate_threshold).c_str())};
    if (const uint32_t xid = new_xid(in); xid != 0)
        return {CB_ACTION_WARN, 0,
                printf_text("the GPU reported Xid %u, which no recovery rule covers; watching it.", xid)};
    return {CB_ACTION_NONE, 0,
            printf_text("healthy: %.1f °C, error rate %s, last heartbeat %llu ms ago.", s.temperature_c,
                        percent_text(s.error_rate).c_str(), static_cast<unsigned long long>(s.heartbeat_age_ms))};
}

}  // namespace

double restart_temperature(const parameters& p) { return p.thermal_limit_c - p.thermal_hysteresis_c; }

decision decide(const health_input& in, const parameters& p) {
    const cb_health_sample& s = in.current;
    if (in.failed)
        return {
            CB_ACTION_MARK_FAILED, 0,
            printf_text("marked failed after %s; needs a manual reset.", attempts_text(in.recovery_attempts).c_str())};
    if (s.temperature_c >= p.thermal_limit_c)
        return {CB_ACTION_EMERGENCY_STOP, 0,
                printf_text("temperature %.1f °C is at or over the %g °C thermal limit: emergency "
                            "stop.",
                            s.temperature_c, p.thermal_limit_c)};
    if (in.emergency_stopped) return after_emergency_stop(s, p);
    const std::vector<fault> faults = classify(in, p);
    if (!faults.empty()) return recover(faults, in.recovery_attempts, p);
    return watch(in, p);
}

}  // namespace cudabridge::plugins::safety
