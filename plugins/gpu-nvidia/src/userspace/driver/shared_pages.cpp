#include "userspace/driver/shared_pages.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <random>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>
#include <vector>

namespace cudabridge::nv {

namespace {

constexpr char record_magic[8] = {'C', 'B', 'V', 'R', 'A', 'M', '1', '\0'};

uint64_t page_bytes() { return static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); }

std::string file_name(uint64_t token) {
    char text[48];
    std::snprintf(text, sizeof text, "cudabridge-vram-%016llx", static_cast<unsigned long long>(token));
    return text;
}

std::string errno_text() { return std::strerror(errno); }

uint64_t new_token() {
    std::random_device random;
    return (uint64_t{random()} << 32) ^ random();
}

// Private, lazily zeroed pages again, as lazy_memory reserves them.
void map_private(uint8_t* at, uint64_t length) {
    mmap(at, length, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

}  // namespace

cb_status share_pages(uint8_t* host, uint64_t bytes, shared_pages& out, std::string& error) {
    const uint64_t page = page_bytes();
    const auto first = reinterpret_cast<uintptr_t>(host) / page * page;
    const auto end = (reinterpret_cast<uintptr_t>(host) + bytes + page - 1) / page * page;
    shared_pages p;
    p.start = reinterpret_cast<uint8_t*>(first);
    p.length = end - first;
    p.token = new_token();
    p.fd = memfd_create(file_name(p.token).c_str(), MFD_CLOEXEC);
    if (p.fd < 0) {
        error = "mem_share: cannot create a memory file: " + errno_text();
        return CB_ERR_OUT_OF_MEMORY;
    }
    // The bytes go into the file before the file takes the pages' place.
    bool written = ftruncate(p.fd, static_cast<off_t>(p.length)) == 0;
    for (uint64_t done = 0; written && done < p.length;) {
        const ssize_t n = pwrite(p.fd, p.start + done, p.length - done, static_cast<off_t>(done));
        written = n > 0;
        if (written) done += static_cast<uint64_t>(n);
    }
    if (!written || mmap(p.start, p.length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p.fd, 0) == MAP_FAILED) {
        error = "mem_share: cannot move " + std::to_string(p.length) +
                " bytes of device memory into a memory file: " + errno_text();
        close(p.fd);
        return CB_ERR_OUT_OF_MEMORY;
    }
    out = p;
    return CB_OK;
}

cb_status map_shared_pages(const share_record& r, uint8_t* at, shared_pages& out, std::string& error) {
    const std::string fd_path = "/proc/" + std::to_string(r.pid) + "/fd/" + std::to_string(r.fd);
    // The token in the file's name tells the memory shared from whatever holds the number now.
    std::array<char, 256> target{};
    const ssize_t n = readlink(fd_path.c_str(), target.data(), target.size() - 1);
    const std::string expected = "/memfd:" + file_name(r.token);
    if (n < 0 && errno == EACCES) {
        error = "mem_open_shared: process " + std::to_string(r.pid) +
                " that shared the memory belongs to another user (its descriptors cannot be read)";
        return CB_ERR_PERMISSION;
    }
    if (n < 0 || std::string(target.data()).rfind(expected, 0) != 0) {
        error = "mem_open_shared: the memory is no longer shared: process " + std::to_string(r.pid) +
                " has freed it or exited";
        return CB_ERR_NOT_FOUND;
    }
    const int fd = open(fd_path.c_str(), O_RDWR | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) != r.file_bytes) {
        error = "mem_open_shared: cannot open the memory process " + std::to_string(r.pid) + " shared: " + errno_text();
        if (fd >= 0) close(fd);
        return fd < 0 && errno == EACCES ? CB_ERR_PERMISSION : CB_ERR_NOT_FOUND;
    }
    if (mmap(at, r.file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        error = "mem_open_shared: cannot map " + std::to_string(r.file_bytes) + " shared bytes: " + errno_text();
        close(fd);
        return CB_ERR_OUT_OF_MEMORY;
    }
    out = shared_pages{at, r.file_bytes, fd, r.token};
    return CB_OK;
}

void unshare_pages(shared_pages& pages, bool keep_edges) noexcept {
    if (!pages.start) return;
    const uint64_t page = page_bytes();
    std::vector<uint8_t> head, tail;
    if (keep_edges) {
        head.assign(pages.start, pages.start + page);
        tail.assign(pages.start + pages.length - page, pages.start + pages.length);
    }
    map_private(pages.start, pages.length);
    if (keep_edges) {
        std::memcpy(pages.start, head.data(), page);
        std::memcpy(pages.start + pages.length - page, tail.data(), page);
    }
    close(pages.fd);
    pages = shared_pages{};
}

share_record make_share_record(const shared_pages& pages, uint64_t first_byte, uint64_t offset, uint64_t alloc_bytes) {
    share_record r{};
    std::memcpy(r.magic, record_magic, sizeof r.magic);
    r.pid = static_cast<int32_t>(getpid());
    r.fd = pages.fd;
    r.token = pages.token;
    r.file_bytes = pages.length;
    r.first_byte = first_byte;
    r.offset = offset;
    r.alloc_bytes = alloc_bytes;
    return r;
}

bool read_share_record(const void* handle, share_record& out) {
    std::memcpy(&out, handle, sizeof out);
    const uint64_t page = page_bytes();
    return std::memcmp(out.magic, record_magic, sizeof out.magic) == 0 && out.pid > 0 && out.fd >= 0 &&
           out.file_bytes > 0 && out.file_bytes % page == 0 && out.first_byte < page &&
           out.alloc_bytes <= out.file_bytes - out.first_byte && out.offset < out.alloc_bytes;
}

}  // namespace cudabridge::nv
