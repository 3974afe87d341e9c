#pragma once
/// Small helpers for the reusable buffers that keep steady-state steps free of heap allocation.

#include <cstdint>
#include <vector>

namespace ro {

/// Resizes, reserving half again when it must grow, so a step slightly larger than any
/// before does not allocate.
template <typename T, typename Allocator>
void resizeWithHeadroom(std::vector<T, Allocator>& v, std::size_t size) {
    if (size > v.capacity()) v.reserve(size + size / 2);
    v.resize(size);
}

/// Reserves room for `size` elements, half again more when it must grow.
template <typename T, typename Allocator>
void reserveWithHeadroom(std::vector<T, Allocator>& v, std::size_t size) {
    if (size > v.capacity()) v.reserve(size + size / 2);
}

/// Heap bytes a buffer holds (its capacity, not its size).
template <typename T, typename Allocator>
[[nodiscard]] std::uint64_t bytesHeld(const std::vector<T, Allocator>& v) {
    return v.capacity() * sizeof(T);
}

}  // namespace ro
