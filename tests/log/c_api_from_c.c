/* A C11 translation unit using cb_log.h as a C program would (built with -std=c11 -Wpedantic). */
#include "cb_log.h"

#if defined(__cplusplus) || !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "this file must be compiled as C11"
#endif

int cb_log_test_from_c(void);

/* The seed README's usage, without cb_log_init_default (the test attaches a callback instead).
 * Returns how many times the arguments of a DEBUG record were evaluated. */
int cb_log_test_from_c(void) {
    const char* gpu_name = "RTX 4090";
    const char* reason = "cable unplugged";
    double usage = 87.46;
    int evaluated = 0;
    cb_log_level level = CB_LOG_INFO; /* the level constant, not the macro */

    CB_LOG_INFO(CB_LOG_CAT_DRIVER, "GPU initialized: %s", gpu_name);
    CB_LOG_ERROR(CB_LOG_CAT_EGPU, "Connection lost: %s", reason);
    CB_LOG_WARN(CB_LOG_CAT_MEMORY, "High VRAM usage: %.1f%%", usage);
    CB_LOG_DEBUG(CB_LOG_CAT_EGPU, "filtered: %d", ++evaluated); /* below INFO: not evaluated */
    cb_log_set_category_level(CB_LOG_CAT_EGPU, CB_LOG_DEBUG);
    CB_LOG_DEBUG(CB_LOG_CAT_EGPU, "now shown: %d", ++evaluated);
    CB_LOG_TRACE(CB_LOG_CAT_EGPU, "still filtered");
    if (cb_log_is_enabled(CB_LOG_CAT_PCIE, level))
        cb_log_write(level, CB_LOG_CAT_PCIE, __FILE__, __LINE__, "direct %s", "write");
    CB_LOG_FATAL(CB_LOG_CAT_GENERAL, "no arguments");
    return evaluated;
}
