/* Safety-policy plugins: decide whether a device may be used on a link, and what to do when its
 * health changes. A policy holds no device state of its own; the host passes the history.
 *
 * Threading: check_compatibility runs on the connecting thread; evaluate runs on the safety
 * supervisor's thread of each device. Both must return quickly and never block.
 */
#ifndef CUDABRIDGE_SAFETY_H
#define CUDABRIDGE_SAFETY_H

#include "abi.h"
#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the host knows of a device before it connects. */
typedef struct cb_device_facts {
    uint32_t struct_size;
    uint16_t pci_vendor_id;
    uint16_t pci_device_id;
    uint32_t pci_class_code;
    cb_link_generation link_generation;
    uint32_t link_lanes;
    double link_bandwidth_gbs;     /* the tunnel's nominal PCIe bandwidth, GB/s (capped by the USB4
                                    * lanes), as the profile's minimum is stated */
    double enclosure_power_w;      /* what the enclosure can deliver to the card; 0 = unknown */
    double board_power_w;          /* the model profile's default board power */
    double min_link_bandwidth_gbs; /* the model profile's minimum; 0 = none */
    cb_security_level security_level;
    cb_bool iommu_dma_protection;
    const char* name;
} cb_device_facts;

typedef struct cb_verdict {
    uint32_t struct_size;
    cb_bool compatible;
    char reason[256];
} cb_verdict;

/* One sample the supervisor takes every heartbeat interval. */
typedef struct cb_health_sample {
    uint32_t struct_size;
    cb_bool link_up;
    uint64_t time_ns;          /* monotonic */
    uint64_t heartbeat_age_ms; /* since the last successful heartbeat */
    double temperature_c;
    double power_w;
    double power_limit_w;
    uint64_t packets;       /* since connect */
    uint64_t packet_errors; /* CRC failures and replays since connect */
    double error_rate;      /* errors / packets over the last interval */
    uint64_t ecc_uncorrected;
    uint32_t last_xid;
    cb_bool integrity_failure; /* a data-integrity check failed in the interval */

    /* ABI 1.3 */
    uint64_t oldest_pending_ms; /* age of the oldest unfinished work item; 0 when idle */
    cb_bool device_lost;        /* the device stopped answering (reads all ones, gone) */
    uint32_t reserved0;

    /* ABI 1.13 */
    uint64_t stalled_ms;       /* how long work has been pending with no progress on the device (no
                          * command retired, no kernel block reached); 0 when idle or moving.
                          * A deep queue that keeps retiring work is not stalled, however old
                          * its oldest item. UINT64_MAX: the family cannot tell progress */
    uint64_t dma_map_refusals; /* DMA mappings the IOMMU refused in the interval: no room to map
                                * (Apple Silicon's DART exhausted), work failing for it */

    /* ABI 1.16 */
    uint64_t kernel_running_ms; /* how long the kernel now running has run; 0 when none runs.
                                 * UINT64_MAX: the family cannot tell */
} cb_health_sample;

typedef struct cb_health_history {
    uint32_t struct_size;
    uint32_t recovery_attempts;      /* consecutive, reset after a healthy interval */
    const cb_health_sample* samples; /* oldest first, the current one last */
    size_t sample_count;
    uint64_t last_recovery_ns;

    /* ABI 1.3 */
    cb_bool emergency_stopped; /* an emergency stop is in force */
    cb_bool failed;            /* marked failed: only a manual reset brings it back */
} cb_health_history;

typedef int32_t cb_safety_action;
enum {
    CB_ACTION_NONE = 0,
    CB_ACTION_WARN = 1,
    CB_ACTION_THROTTLE = 2,
    CB_ACTION_SOFT_RESET = 3,
    CB_ACTION_HARD_RESET = 4,
    CB_ACTION_RECONNECT = 5,
    CB_ACTION_EMERGENCY_STOP = 6,
    /* ABI 1.3 */
    CB_ACTION_MARK_FAILED = 7, /* give up: recovery attempts are spent */
    CB_ACTION_RESUME = 8       /* lift an emergency stop (the cause has cleared) */
};

typedef struct cb_safety_decision {
    uint32_t struct_size;
    cb_safety_action action;
    uint32_t delay_ms; /* wait before acting (retry_delay_ms) */
    uint32_t reserved0;
    char reason[256];
} cb_safety_decision;

typedef struct cb_safety_table {
    uint32_t struct_size;

    /* ABI 1.0 */
    cb_status (*check_compatibility)(void* instance, const cb_device_facts* facts, cb_verdict* out);
    cb_status (*evaluate)(void* instance, const cb_health_history* history, cb_safety_decision* out);
} cb_safety_table;
/* ABI 1.0 size, frozen: the smallest struct_size a reader accepts. */
#define CB_SAFETY_TABLE_SIZE_1_0 CB_SIZE_THROUGH(cb_safety_table, evaluate)

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_SAFETY_H */
