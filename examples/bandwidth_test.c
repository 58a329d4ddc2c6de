/* bandwidth_test: copy bandwidth between this machine and the eGPU, by transfer size.
 * Usage: bandwidth_test [--max-mb N] [--quick]
 *   --max-mb N  largest transfer in MiB (default 64, at most 1024); sizes go 4 KiB, 16 KiB, ...
 *   --quick     a short run: up to 1 MiB, fewer repetitions (for tests)
 *
 * For pageable (malloc) and pinned (cbMallocHost) host memory it measures host-to-device and
 * device-to-host copies, then device-to-device copies. Each figure is N copies queued on one
 * stream, timed two ways over the same work:
 *   wall:   clock_gettime around the N copies and the synchronize, on this machine (measured);
 *   device: cbEventElapsedTime between events recorded around them: the GPU's timer on hardware
 *           (measured), the simulated GPU's clock on a simulated device (modeled).
 * One round trip per size (host -> device -> device -> host) is checked byte for byte.
 */
#define _POSIX_C_SOURCE 200809L

#include "example_check.h"

#include <cudabridge.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)

typedef struct options {
    size_t max_bytes;
    size_t bytes_per_figure; /* repetitions = this / size, within [min_reps, max_reps] */
    int min_reps, max_reps;
} options;

typedef struct buffers {
    unsigned char* host_src;
    unsigned char* host_dst;
    void* dev_a;
    void* dev_b;
} buffers;

/* One figure: GB/s (1e9 bytes per second) measured on the wall clock and from events. */
typedef struct rate {
    double wall_gbs;
    double device_gbs;
} rate;

static void usage(const char* program) {
    fprintf(stderr, "usage: %s [--max-mb N] [--quick]\n", program);
    exit(2);
}

static options parse_options(int argc, char** argv) {
    options o = {64 * MIB, 256 * MIB, 3, 100};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            o.max_bytes = MIB;
            o.bytes_per_figure = 8 * MIB;
            o.min_reps = 2;
            o.max_reps = 10;
        } else if (strcmp(argv[i], "--max-mb") == 0 && i + 1 < argc) {
            char* end = NULL;
            errno = 0;
            const unsigned long mb = strtoul(argv[++i], &end, 10);
            if (errno || *end || mb == 0 || mb > 1024 || argv[i][0] == '-') usage(argv[0]);
            o.max_bytes = (size_t)mb * MIB;
        } else {
            usage(argv[0]);
        }
    }
    return o;
}

static int repetitions(const options* o, size_t size) {
    const size_t r = o->bytes_per_figure / size;
    if (r < (size_t)o->min_reps) return o->min_reps;
    if (r > (size_t)o->max_reps) return o->max_reps;
    return (int)r;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void* checked_malloc(size_t bytes) {
    void* p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "error: out of host memory (%zu bytes)\n", bytes);
        cbShutdown();
        exit(EXIT_FAILURE);
    }
    return p;
}

static const char* size_text(size_t bytes, char* buf, size_t len) {
    if (bytes >= MIB)
        snprintf(buf, len, "%zu MiB", bytes / MIB);
    else
        snprintf(buf, len, "%zu KiB", bytes / KIB);
    return buf;
}

/* Copies `size` bytes `reps` times on `stream`, timed by the wall clock and by events. */
static rate time_copies(void* dst, const void* src, size_t size, cbMemcpyKind kind, int reps, cbStream_t stream,
                        cbEvent_t start, cbEvent_t stop) {
    /* One untimed copy first: first-touch and cache effects stay out of the figure. */
    CB_CHECK(cbMemcpyAsync(dst, src, size, kind, stream));
    CB_CHECK(cbStreamSynchronize(stream));
    const double t0 = now_seconds();
    CB_CHECK(cbEventRecord(start, stream));
    for (int r = 0; r < reps; ++r) CB_CHECK(cbMemcpyAsync(dst, src, size, kind, stream));
    CB_CHECK(cbEventRecord(stop, stream));
    CB_CHECK(cbStreamSynchronize(stream));
    const double wall = now_seconds() - t0;
    float ms = 0.0f;
    CB_CHECK(cbEventElapsedTime(&ms, start, stop));
    const double bytes = (double)size * reps;
    rate out;
    out.wall_gbs = wall > 0 ? bytes / wall / 1e9 : 0.0;
    out.device_gbs = ms > 0 ? bytes / ((double)ms * 1e-3) / 1e9 : 0.0;
    return out;
}

/* Host -> device -> device -> host, compared byte for byte; 1 when it matches. */
static int round_trip_ok(const buffers* b, size_t size, unsigned seed, cbStream_t stream) {
    for (size_t i = 0; i < size; ++i) b->host_src[i] = (unsigned char)((i * 2654435761u + seed) >> 13);
    memset(b->host_dst, 0, size);
    CB_CHECK(cbMemcpyAsync(b->dev_a, b->host_src, size, cbMemcpyHostToDevice, stream));
    CB_CHECK(cbMemcpyAsync(b->dev_b, b->dev_a, size, cbMemcpyDeviceToDevice, stream));
    CB_CHECK(cbMemcpyAsync(b->host_dst, b->dev_b, size, cbMemcpyDeviceToHost, stream));
    CB_CHECK(cbStreamSynchronize(stream));
    return memcmp(b->host_src, b->host_dst, size) == 0;
}

static void print_header(const cbDeviceProp* prop, const char* title, int with_d2h) {
    const char* device_column = prop->isSimulated ? "modeled" : "measured on the GPU";
    printf("\n%s\n", title);
    if (with_d2h)
        printf("%10s  %12s %12s  %12s %12s  %5s  %s\n", "size", "H2D wall", "H2D device", "D2H wall", "D2H device",
               "reps", "check");
    else
        printf("%10s  %12s %12s  %5s  %s\n", "size", "D2D wall", "D2D device", "reps", "check");
    if (with_d2h)
        printf("%10s  %12s %12s  %12s %12s\n", "", "(measured)", device_column, "(measured)", device_column);
    else
        printf("%10s  %12s %12s\n", "", "(measured)", device_column);
}

/* The host-device table for one kind of host memory; returns the number of failed checks. */
static int sweep_host(const cbDeviceProp* prop, const options* o, const char* title, buffers* b, cbStream_t stream,
                      cbEvent_t start, cbEvent_t stop) {
    int failures = 0;
    char buf[32];
    print_header(prop, title, 1);
    for (size_t size = 4 * KIB; size <= o->max_bytes; size *= 4) {
        const int reps = repetitions(o, size);
        const rate h2d = time_copies(b->dev_a, b->host_src, size, cbMemcpyHostToDevice, reps, stream, start, stop);
        const rate d2h = time_copies(b->host_dst, b->dev_a, size, cbMemcpyDeviceToHost, reps, stream, start, stop);
        const int ok = round_trip_ok(b, size, (unsigned)size, stream);
        failures += !ok;
        printf("%10s  %12.2f %12.2f  %12.2f %12.2f  %5d  %s\n", size_text(size, buf, sizeof buf), h2d.wall_gbs,
               h2d.device_gbs, d2h.wall_gbs, d2h.device_gbs, reps, ok ? "ok" : "MISMATCH");
    }
    return failures;
}

static int sweep_device(const cbDeviceProp* prop, const options* o, buffers* b, cbStream_t stream, cbEvent_t start,
                        cbEvent_t stop) {
    int failures = 0;
    char buf[32];
    print_header(prop, "Device to device", 0);
    for (size_t size = 4 * KIB; size <= o->max_bytes; size *= 4) {
        const int reps = repetitions(o, size);
        const rate d2d = time_copies(b->dev_b, b->dev_a, size, cbMemcpyDeviceToDevice, reps, stream, start, stop);
        const int ok = round_trip_ok(b, size, (unsigned)size + 7u, stream);
        failures += !ok;
        printf("%10s  %12.2f %12.2f  %5d  %s\n", size_text(size, buf, sizeof buf), d2d.wall_gbs, d2d.device_gbs, reps,
               ok ? "ok" : "MISMATCH");
    }
    return failures;
}

int main(int argc, char** argv) {
    const options o = parse_options(argc, argv);
    cbDeviceProp prop;
    CB_CHECK(cbInit());
    CB_CHECK(cbSetDevice(0));
    CB_CHECK(cbGetDeviceProperties(&prop, 0));

    printf("Device 0: %s over %s (%.2f GB/s usable, PCIe Gen%d x%d)\n", prop.name, prop.linkName, prop.linkBandwidthGBs,
           prop.pcieLinkGen, prop.pcieLinkWidth);
    printf("GB/s = 1e9 bytes per second. Columns:\n");
    printf("  wall:   measured on this machine (clock_gettime around the copies and the synchronize)\n");
    if (prop.isSimulated)
        printf(
            "  device: modeled: cbEvent time from the simulated GPU's clock (a simulated device: not a hardware figure)\n");
    else
        printf("  device: measured on the GPU: cbEvent time from its timer (hardware)\n");

    cbStream_t stream;
    cbEvent_t start, stop;
    CB_CHECK(cbStreamCreate(&stream));
    CB_CHECK(cbEventCreate(&start));
    CB_CHECK(cbEventCreate(&stop));

    buffers dev = {NULL, NULL, NULL, NULL};
    CB_CHECK(cbMalloc(&dev.dev_a, o.max_bytes));
    CB_CHECK(cbMalloc(&dev.dev_b, o.max_bytes));

    buffers pageable = dev;
    pageable.host_src = checked_malloc(o.max_bytes);
    pageable.host_dst = checked_malloc(o.max_bytes);
    buffers pinned = dev;
    CB_CHECK(cbMallocHost((void**)&pinned.host_src, o.max_bytes));
    CB_CHECK(cbMallocHost((void**)&pinned.host_dst, o.max_bytes));
    /* Touch the pages once so first-use faults are not timed. */
    memset(pageable.host_src, 1, o.max_bytes);
    memset(pageable.host_dst, 0, o.max_bytes);
    memset(pinned.host_src, 1, o.max_bytes);
    memset(pinned.host_dst, 0, o.max_bytes);

    int failures = 0;
    failures += sweep_host(&prop, &o, "Pageable host memory (malloc)", &pageable, stream, start, stop);
    failures += sweep_host(&prop, &o, "Pinned host memory (cbMallocHost)", &pinned, stream, start, stop);
    failures += sweep_device(&prop, &o, &pinned, stream, start, stop);

    CB_CHECK(cbFreeHost(pinned.host_src));
    CB_CHECK(cbFreeHost(pinned.host_dst));
    free(pageable.host_src);
    free(pageable.host_dst);
    CB_CHECK(cbFree(dev.dev_a));
    CB_CHECK(cbFree(dev.dev_b));
    CB_CHECK(cbEventDestroy(start));
    CB_CHECK(cbEventDestroy(stop));
    CB_CHECK(cbStreamDestroy(stream));
    CB_CHECK(cbShutdown());

    if (failures) {
        printf("\nFAIL: %d round trip%s did not bring the data back intact\n", failures, failures == 1 ? "" : "s");
        return 1;
    }
    printf("\nPASS: every round trip brought the data back intact\n");
    return 0;
}
