/* The seed README's logging example, as a C program: cb_log_init_default attaches the console
 * and rotating-file sink plugins to the process-wide front end. */
#include "cb_log.h"

int main(void) {
    const char* gpu_name = "NVIDIA GeForce RTX 5090";
    const char* reason = "link down";
    double usage = 93.5;

    if (cb_log_init_default() != 0) return 1;
    CB_LOG_INFO(CB_LOG_CAT_DRIVER, "GPU initialized: %s", gpu_name);
    CB_LOG_ERROR(CB_LOG_CAT_EGPU, "Connection lost: %s", reason);
    CB_LOG_WARN(CB_LOG_CAT_MEMORY, "High VRAM usage: %.1f%%", usage);
    CB_LOG_DEBUG(CB_LOG_CAT_EGPU, "hidden: EGPU is at INFO until the next line");
    cb_log_set_category_level(CB_LOG_CAT_EGPU, CB_LOG_DEBUG);
    CB_LOG_DEBUG(CB_LOG_CAT_EGPU, "shown: EGPU now at DEBUG");
    cb_log_shutdown();
    return 0;
}
