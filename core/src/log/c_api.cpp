// The C API of cb_log.h over the process-wide front end. No exception leaves this file.
// cb_log_init_default and cb_log_shutdown live in core/src/context/default_log.cpp: they own the
// sink plugins attached to the process front end (shutdown detaches and closes them, then calls
// process_front_end().shutdown()).
#include <cb_log.h>

#include <cudabridge/core/process_log.hpp>

#include <cstdarg>
#include <cstdio>
#include <string>

namespace lg = cudabridge::core::log;

namespace {
// Messages up to this size are formatted on the stack; longer ones take one heap allocation.
constexpr size_t stack_message_bytes = 512;
}  // namespace

extern "C" {

void cb_log_flush(void) {
    try {
        lg::process_front_end().flush();
    } catch (...) {
    }
}

void cb_log_set_category_level(int category, cb_log_level level) {
    try {
        lg::process_front_end().set_level(category, level);
    } catch (...) {
    }
}

void cb_log_set_level(cb_log_level level) {
    try {
        lg::process_front_end().set_all_levels(level);
    } catch (...) {
    }
}

cb_log_level cb_log_get_category_level(int category) {
    try {
        return lg::process_front_end().level(category);
    } catch (...) {
        return CB_LOG_OFF;
    }
}

int cb_log_is_enabled(int category, cb_log_level level) {
    try {
        return lg::process_front_end().enabled(category, level) ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

void cb_log_write(cb_log_level level, int category, const char* file, int line, const char* fmt, ...) {
    (void)file;  // the ABI record has no call-site fields (yet)
    (void)line;
    if (fmt == nullptr) return;
    try {
        lg::front_end& fe = lg::process_front_end();
        if (!fe.enabled(category, level)) return;
        char buf[stack_message_bytes];
        va_list ap;
        va_start(ap, fmt);
        int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (static_cast<size_t>(n) < sizeof buf) {
            fe.log(level, category, std::string_view(buf, static_cast<size_t>(n)));
        } else {
            std::string big(static_cast<size_t>(n) + 1, '\0');
            va_start(ap, fmt);
            std::vsnprintf(big.data(), big.size(), fmt, ap);
            va_end(ap);
            big.resize(static_cast<size_t>(n));
            fe.log(level, category, big);
        }
        if (level >= CB_LOG_FATAL) fe.flush();
    } catch (...) {
    }
}

int cb_log_register_category(const char* name) {
    if (name == nullptr) return -1;
    try {
        return lg::category_id(name);
    } catch (...) {
        return -1;
    }
}

const char* cb_log_category_name(int category) { return lg::category_c_name(category); }

int cb_log_add_callback(cb_log_callback cb, void* user_data) {
    if (cb == nullptr) return -1;
    try {
        return lg::process_front_end().add_callback([cb, user_data](const lg::record& r) {
            const char* name = lg::category_c_name(r.category);
            cb(r.level, r.category, name ? name : "GENERAL", r.message.c_str(), user_data);
        });
    } catch (...) {
        return -1;
    }
}

void cb_log_remove_callback(int id) {
    try {
        lg::process_front_end().remove_callback(id);
    } catch (...) {
    }
}

}  // extern "C"
