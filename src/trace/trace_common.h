#pragma once
// What the trace writer and reader share: the binary layout's constants, byte order, and the
// checks every frame passes on its way out and in (docs/trace-format.md).

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ro/trace.h"

namespace ro::trace {

/// The binary file starts with these 8 bytes (a high first byte, as PNG's, so that a text
/// tool never takes the file for text).
inline constexpr std::array<unsigned char, 8> kMagic{0x89, 'R', 'O', 'T', 'R', 'A', 'C', 'E'};
/// Header flags: bit 0, the frames carry category and mask. Other bits are refused.
inline constexpr std::uint32_t kFlagFilters = 1u;
/// In place of a frame's count: the end of the trace, followed by the frame count (u64).
inline constexpr std::uint32_t kEndMarker = 0xFFFFFFFFu;

inline constexpr const char* kCsvHeader = "frame,id,min_x,min_y,max_x,max_y,static";
inline constexpr const char* kCsvFilterColumns = ",category,mask";

/// Bytes a box takes in a binary frame: id, four corners, static flag (and category, mask).
[[nodiscard]] inline std::uint64_t binaryBoxBytes(bool filters) { return 4 + 4 * 4 + 1 + (filters ? 8 : 0); }

/// Swaps 4-byte words between the host's order and the file's (little-endian): nothing to do
/// on a little-endian host.
inline void toLittleEndian(void* data, std::size_t words) {
    if constexpr (std::endian::native == std::endian::big) {
        auto* bytes = static_cast<unsigned char*>(data);
        for (std::size_t w = 0; w < words; ++w) std::reverse(bytes + 4 * w, bytes + 4 * w + 4);
    } else {
        (void)data, (void)words;
    }
}

/// The first box of `boxes` no reader takes, and why: a non-finite corner, min > max, or an
/// id that an earlier box has. `sorted` is scratch, reused between frames.
struct Problem {
    std::uint32_t box = 0;
    std::string what;
};
[[nodiscard]] std::optional<Problem> firstProblem(const BoxView& boxes, std::vector<std::uint32_t>& sorted);

/// "trace 'PATH': " followed by `what`.
[[nodiscard]] std::string message(const std::string& path, const std::string& what);

}  // namespace ro::trace
