// Copying size-prefixed output records into the caller's memory. The caller's `struct_size` says
// how many bytes its record holds, which may be more (a newer host) or fewer (an older host) than
// the plugin's own sizeof. In an array it is also the stride between elements (see "Arrays of
// records" in sdk/docs/abi-stability.md): indexing the caller's array as the plugin's type would
// write every element after the first at the wrong place.
#ifndef CUDABRIDGE_CPP_RECORDS_HPP
#define CUDABRIDGE_CPP_RECORDS_HPP

#include <cudabridge/abi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cudabridge::sdk {

// The struct_size at the start of a caller's record, read without assuming its type's size.
inline uint32_t caller_size(const void* record) noexcept {
    uint32_t size = 0;
    std::memcpy(&size, record, sizeof size);
    return size;
}

// Writes the fields of `from` that a caller's record of `size` bytes holds, and keeps that size
// in its struct_size: the caller zero-filled the rest and reads only what it knows.
template <class Record>
void copy_record_sized(void* to, uint32_t size, const Record& from) noexcept {
    const size_t n = std::min<size_t>(size, sizeof(Record));
    std::memcpy(to, &from, n);
    if (n >= sizeof(uint32_t)) std::memcpy(to, &size, sizeof size);
}

// One output record: as much of `from` as `to->struct_size` covers.
template <class Record>
void copy_record(Record* to, const Record& from) noexcept {
    copy_record_sized(to, caller_size(to), from);
}

// An array of output records whose stride is `element_size` bytes. Copies min(capacity, count)
// records; CB_ERR_INVALID_ARGUMENT when the stride cannot hold even the struct_size field.
template <class Record>
cb_status copy_records_strided(void* to, size_t element_size, size_t capacity, const Record* from,
                               size_t count) noexcept {
    if (to == nullptr || element_size < sizeof(uint32_t) || element_size > UINT32_MAX)
        return capacity == 0 ? CB_OK : CB_ERR_INVALID_ARGUMENT;
    auto* out = static_cast<unsigned char*>(to);
    for (size_t i = 0; i < std::min(capacity, count); ++i)
        copy_record_sized(out + i * element_size, static_cast<uint32_t>(element_size), from[i]);
    return CB_OK;
}

// An array of output records whose stride is the caller's struct_size of its first element.
template <class Record>
cb_status copy_records(Record* to, size_t capacity, const Record* from, size_t count) noexcept {
    if (to == nullptr || capacity == 0) return capacity == 0 ? CB_OK : CB_ERR_INVALID_ARGUMENT;
    return copy_records_strided(to, caller_size(to), capacity, from, count);
}

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_RECORDS_HPP
