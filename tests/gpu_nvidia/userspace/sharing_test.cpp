// Device memory shared between processes (mem_share, mem_open_shared): another process (forked
// before either board exists, so that it starts single-threaded) opens the allocation, sees the
// bytes this process wrote, and what it writes is seen here. A handle this process made, garbage
// and a handle to memory since freed are refused; neighbouring allocations keep their bytes.
#include "sim_bench.hpp"
#include "test_pattern.hpp"

#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

namespace cudabridge::test {
namespace {

constexpr size_t shared_bytes = 3 * 4096 + 100;  // pages shared whole, the allocation not page-sized

struct pipes {
    int to_child[2] = {-1, -1}, to_parent[2] = {-1, -1};
};

// The parent's side of the pipes, and the child's end: closing the parent's write end ends a child
// still waiting (a failed check returns early), which is then reaped.
struct child_guard {
    pipes& p;
    pid_t pid;
    int status = -1;
    void finish() {
        if (p.to_child[1] >= 0) close(p.to_child[1]);
        p.to_child[1] = -1;
        if (pid > 0) waitpid(pid, &status, 0);
        pid = -1;
    }
    ~child_guard() { finish(); }
};

bool send(int fd, const void* data, size_t n) { return write(fd, data, n) == static_cast<ssize_t>(n); }
bool receive(int fd, void* data, size_t n) { return read(fd, data, n) == static_cast<ssize_t>(n); }

// The other process: opens the handle, checks and rewrites the bytes, closes; after the parent
// frees the memory, tries the handle again. Its exit code says what failed (0: nothing).
int other_process(const pipes& p) {
    char handle[CB_GPU_SHARE_HANDLE_SIZE];
    if (!receive(p.to_child[0], handle, sizeof handle)) return 10;
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    uint64_t ptr = 0, bytes = 0, again = 0;
    if (gpu.mem_open_shared(handle, ptr, bytes, error) != CB_OK) return 11;
    if (bytes != shared_bytes) return 12;
    if (gpu.mem_open_shared(handle, again, bytes, error) != CB_OK || again != ptr) return 13;
    std::vector<uint8_t> seen(shared_bytes);
    if (gpu.memcpy_d2h(seen.data(), ptr, seen.size(), nullptr, error) != CB_OK) return 14;
    if (seen != pattern(shared_bytes, 1)) return 15;
    const std::vector<uint8_t> mine = pattern(shared_bytes, 2);
    if (gpu.memcpy_h2d(ptr, mine.data(), mine.size(), nullptr, error) != CB_OK) return 16;
    if (gpu.mem_free(again, error) != CB_OK || gpu.mem_free(ptr, error) != CB_OK) return 17;
    const char done = 'd';
    if (!send(p.to_parent[1], &done, 1)) return 18;
    char freed = 0;
    if (!receive(p.to_child[0], &freed, 1)) return 19;
    if (gpu.mem_open_shared(handle, ptr, bytes, error) != CB_ERR_NOT_FOUND) return 20;
    return 0;
}

TEST(UserspaceSharing, AnotherProcessReadsAndWritesTheSameBytesUntilTheyAreFreed) {
    pipes p;
    ASSERT_EQ(pipe(p.to_child), 0);
    ASSERT_EQ(pipe(p.to_parent), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        close(p.to_child[1]);
        close(p.to_parent[0]);
        _exit(other_process(p));
    }
    close(p.to_child[0]);
    close(p.to_parent[1]);
    child_guard guard{p, child};

    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    uint64_t before = 0, ptr = 0, after = 0;
    ASSERT_EQ(gpu.mem_alloc(1000, before, error), CB_OK) << error;
    ASSERT_EQ(gpu.mem_alloc(shared_bytes, ptr, error), CB_OK) << error;
    ASSERT_EQ(gpu.mem_alloc(1000, after, error), CB_OK) << error;
    const auto mine = pattern(shared_bytes, 1), left = pattern(1000, 3), right = pattern(1000, 4);
    ASSERT_EQ(gpu.memcpy_h2d(ptr, mine.data(), mine.size(), nullptr, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_h2d(before, left.data(), left.size(), nullptr, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_h2d(after, right.data(), right.size(), nullptr, error), CB_OK) << error;

    char handle[CB_GPU_SHARE_HANDLE_SIZE], same[CB_GPU_SHARE_HANDLE_SIZE];
    ASSERT_EQ(gpu.mem_share(ptr, handle, error), CB_OK) << error;
    ASSERT_EQ(gpu.mem_share(ptr, same, error), CB_OK) << error;
    EXPECT_EQ(std::memcmp(handle, same, sizeof handle), 0);  // shared once, the same handle
    uint64_t opened = 0, bytes = 0;
    EXPECT_EQ(gpu.mem_open_shared(handle, opened, bytes, error), CB_ERR_INVALID_ARGUMENT);  // made here
    char garbage[CB_GPU_SHARE_HANDLE_SIZE];
    std::memset(garbage, 0x5a, sizeof garbage);
    EXPECT_EQ(gpu.mem_open_shared(garbage, opened, bytes, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.mem_share(0x10, same, error), CB_ERR_INVALID_ARGUMENT) << "no allocation there";

    ASSERT_TRUE(send(p.to_child[1], handle, sizeof handle));
    char done = 0;
    ASSERT_TRUE(receive(p.to_parent[0], &done, 1)) << "the other process failed before writing";
    std::vector<uint8_t> seen(shared_bytes);
    ASSERT_EQ(gpu.memcpy_d2h(seen.data(), ptr, seen.size(), nullptr, error), CB_OK) << error;
    EXPECT_EQ(seen, pattern(shared_bytes, 2)) << "the other process's bytes";

    ASSERT_EQ(gpu.mem_free(ptr, error), CB_OK) << error;
    std::vector<uint8_t> l(1000), r(1000);
    ASSERT_EQ(gpu.memcpy_d2h(l.data(), before, l.size(), nullptr, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(r.data(), after, r.size(), nullptr, error), CB_OK) << error;
    EXPECT_EQ(l, left) << "the allocation before the shared one kept its bytes";
    EXPECT_EQ(r, right) << "the allocation after the shared one kept its bytes";
    const char freed = 'f';
    ASSERT_TRUE(send(p.to_child[1], &freed, 1));
    guard.finish();
    ASSERT_TRUE(WIFEXITED(guard.status));
    EXPECT_EQ(WEXITSTATUS(guard.status), 0) << "the other process's check that failed (other_process)";
}

}  // namespace
}  // namespace cudabridge::test
