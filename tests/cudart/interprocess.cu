// Device memory and events shared between processes (cudaIpc*). The parent fills a buffer on the
// device and shares it and an interprocess event; a child (this program again, spawned) opens
// both, transforms the buffer with a kernel and records the event, and then waits for the
// parent's word before it exits. The parent waits on the child's record through its own stream,
// reads the buffer and finds the child's values. Then the refusals: a handle this process made, a
// garbage handle, an event made without cudaEventInterprocess, and, in a second child, a handle to
// memory since freed.
#include "expect.cuh"

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

constexpr int n = 1 << 18;

__global__ void iota(int* p, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) p[i] = i;
}

__global__ void triple_plus_one(int* p, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) p[i] = 3 * p[i] + 1;
}

template <typename Handle>
std::string to_hex(const Handle& h) {
    std::string text;
    char two[3];
    for (unsigned char c : h.reserved) {
        std::snprintf(two, sizeof two, "%02x", c);
        text += two;
    }
    return text;
}

template <typename Handle>
Handle from_hex(const char* text) {
    Handle h{};
    for (size_t i = 0; i < sizeof h.reserved && text[2 * i] && text[2 * i + 1]; ++i) {
        const char two[3] = {text[2 * i], text[2 * i + 1], 0};
        h.reserved[i] = static_cast<char>(std::strtoul(two, nullptr, 16));
    }
    return h;
}

// The child that opens the parent's buffer and event.
int run_child(const char* mem_text, const char* event_text) {
    const auto mh = from_hex<cudaIpcMemHandle_t>(mem_text);
    const auto eh = from_hex<cudaIpcEventHandle_t>(event_text);
    int* shared = nullptr;
    int* again = nullptr;
    EXPECT(cudaIpcOpenMemHandle(reinterpret_cast<void**>(&shared), mh, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess);
    // Opening again gives the same pointer; each opening is closed.
    EXPECT(cudaIpcOpenMemHandle(reinterpret_cast<void**>(&again), mh, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess);
    EXPECT(again == shared);
    cudaEvent_t done = nullptr;
    EXPECT(cudaIpcOpenEventHandle(&done, eh) == cudaSuccess);
    cudaStream_t stream = nullptr;
    EXPECT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    EXPECT(cudaStreamWaitEvent(stream, done, 0) == cudaSuccess);  // the parent's fill, recorded before
    triple_plus_one<<<(n + 255) / 256, 256, 0, stream>>>(shared, n);
    EXPECT(cudaGetLastError() == cudaSuccess);
    EXPECT(cudaEventRecord(done, stream) == cudaSuccess);
    std::printf("recorded\n");
    std::fflush(stdout);
    char go = 0;
    EXPECT(read(STDIN_FILENO, &go, 1) == 1);  // the parent has waited on the record
    EXPECT(cudaStreamSynchronize(stream) == cudaSuccess);
    EXPECT(cudaIpcCloseMemHandle(again) == cudaSuccess);
    EXPECT(cudaIpcCloseMemHandle(shared) == cudaSuccess);
    EXPECT(cudaIpcCloseMemHandle(shared) == cudaErrorInvalidValue);  // closed as often as opened
    EXPECT(cudaEventDestroy(done) == cudaSuccess);
    EXPECT(cudaStreamDestroy(stream) == cudaSuccess);
    return failures ? 1 : 0;
}

// A child given a handle to memory since freed.
int run_stale_child(const char* mem_text) {
    void* p = nullptr;
    const cudaError_t e = cudaIpcOpenMemHandle(&p, from_hex<cudaIpcMemHandle_t>(mem_text), 0);
    std::printf("stale handle: %s\n", cudaGetErrorString(e));
    EXPECT(e == cudaErrorInvalidResourceHandle);
    EXPECT(p == nullptr);
    return failures ? 1 : 0;
}

struct child {
    pid_t pid = -1;
    int to = -1, from = -1;  // its stdin, its stdout
};

child spawn(std::vector<std::string> args) {
    int in[2], out[2];
    child c;
    if (pipe(in) != 0 || pipe(out) != 0) return c;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<char*> argv;
    args.insert(args.begin(), "/proc/self/exe");
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&c.pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ) != 0) c.pid = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    c.to = in[1];
    c.from = out[0];
    return c;
}

// The child's output up to its "recorded" line (or its end).
std::string read_until_recorded(int fd) {
    std::string text;
    char c;
    while (text.find("recorded\n") == std::string::npos && read(fd, &c, 1) == 1) text += c;
    return text;
}

int finish(child& c) {
    char c1;
    std::string rest;
    while (read(c.from, &c1, 1) == 1) rest += c1;
    std::printf("%s", rest.c_str());
    close(c.from);
    close(c.to);
    int status = 0;
    waitpid(c.pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "child") == 0) return run_child(argv[2], argv[3]);
    if (argc == 3 && std::strcmp(argv[1], "stale") == 0) return run_stale_child(argv[2]);

    int* buffer = nullptr;
    EXPECT(cudaMalloc(&buffer, n * sizeof(int)) == cudaSuccess);
    cudaStream_t stream = nullptr;
    EXPECT(cudaStreamCreate(&stream) == cudaSuccess);
    iota<<<(n + 255) / 256, 256, 0, stream>>>(buffer, n);
    cudaEvent_t done = nullptr;
    EXPECT(cudaEventCreateWithFlags(&done, cudaEventInterprocess) == cudaErrorInvalidValue);  // timing on
    EXPECT(cudaEventCreateWithFlags(&done, cudaEventDisableTiming | cudaEventInterprocess) == cudaSuccess);
    EXPECT(cudaEventRecord(done, stream) == cudaSuccess);

    cudaIpcMemHandle_t mh{};
    cudaIpcEventHandle_t eh{};
    EXPECT(cudaIpcGetMemHandle(&mh, buffer) == cudaSuccess);
    EXPECT(cudaIpcGetEventHandle(&eh, done) == cudaSuccess);

    // Refusals in this process.
    void* mine = nullptr;
    EXPECT(cudaIpcOpenMemHandle(&mine, mh, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess);  // its own handle
    cudaIpcMemHandle_t garbage{};
    std::memset(garbage.reserved, 0x5a, sizeof garbage.reserved);
    EXPECT(cudaIpcOpenMemHandle(&mine, garbage, 0) == cudaErrorInvalidValue);
    cudaEvent_t plain = nullptr;
    cudaIpcEventHandle_t plain_handle{};
    EXPECT(cudaEventCreate(&plain) == cudaSuccess);
    EXPECT(cudaIpcGetEventHandle(&plain_handle, plain) == cudaErrorInvalidResourceHandle);
    EXPECT(cudaEventDestroy(plain) == cudaSuccess);
    EXPECT(cudaIpcCloseMemHandle(buffer) == cudaErrorInvalidValue);  // not opened from a handle
    cudaGetLastError();

    child c = spawn({"child", to_hex(mh), to_hex(eh)});
    EXPECT(c.pid > 0);
    std::printf("%s", read_until_recorded(c.from).c_str());
    // The child's record is the latest: the stream waits for the child's kernel.
    std::vector<int> back(n, -1);
    EXPECT(cudaStreamWaitEvent(stream, done, 0) == cudaSuccess);
    EXPECT(cudaMemcpyAsync(back.data(), buffer, n * sizeof(int), cudaMemcpyDeviceToHost, stream) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(stream) == cudaSuccess);
    EXPECT(cudaEventQuery(done) == cudaSuccess);
    EXPECT(write(c.to, "g", 1) == 1);
    EXPECT(finish(c) == 0);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += back[i] != 3 * i + 1;
    if (wrong) std::printf("%d of %d values are not the child's (back[1] = %d)\n", wrong, n, back[1]);
    EXPECT(wrong == 0);
    // The parent's own record again: the event is back in this process's hands.
    EXPECT(cudaEventRecord(done, stream) == cudaSuccess);
    EXPECT(cudaEventSynchronize(done) == cudaSuccess);

    // Memory freed: its handle opens nothing.
    EXPECT(cudaFree(buffer) == cudaSuccess);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    child stale = spawn({"stale", to_hex(mh)});
    EXPECT(finish(stale) == 0);

    EXPECT(cudaEventDestroy(done) == cudaSuccess);
    EXPECT(cudaStreamDestroy(stream) == cudaSuccess);
    return verdict("interprocess");
}
