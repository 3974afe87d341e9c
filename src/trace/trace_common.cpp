#include "trace/trace_common.h"

#include <cctype>

namespace ro {

TraceEncoding traceEncodingOf(const std::string& path) {
    std::string extension = path.size() >= 4 ? path.substr(path.size() - 4) : std::string{};
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return extension == ".csv" ? TraceEncoding::Csv : TraceEncoding::Binary;
}

namespace trace {

std::optional<Problem> firstProblem(const BoxView& boxes, std::vector<std::uint32_t>& sorted) {
    const auto corner = [](float v) { return std::isfinite(v); };
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        const float x0 = boxes.minX[i], y0 = boxes.minY[i], x1 = boxes.maxX[i], y1 = boxes.maxY[i];
        if (!corner(x0) || !corner(y0) || !corner(x1) || !corner(y1))
            return Problem{i, "a corner is not a finite number (NaN or infinite)"};
        if (x0 > x1) return Problem{i, "min_x " + std::to_string(x0) + " > max_x " + std::to_string(x1)};
        if (y0 > y1) return Problem{i, "min_y " + std::to_string(y0) + " > max_y " + std::to_string(y1)};
    }
    // Duplicates by sorting a copy: O(n log n) on a buffer reused between frames.
    sorted.assign(boxes.ids, boxes.ids + boxes.count);
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice == sorted.end()) return std::nullopt;
    // Named at its second box, the one a reader stops at.
    bool seen = false;
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        if (boxes.ids[i] != *twice) continue;
        if (seen) return Problem{i, "id " + std::to_string(*twice) + " appears twice in the frame"};
        seen = true;
    }
    return std::nullopt;  // unreachable: the sorted copy holds the id twice
}

std::string message(const std::string& path, const std::string& what) { return "trace '" + path + "': " + what; }

}  // namespace trace
}  // namespace ro
