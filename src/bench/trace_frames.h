#pragma once
/// ro_bench --trace: a recorded trace's frames, stepped through as a scenario's scene is, and
/// what the bench needs to know of a trace before its run (read once in full, so that a bad
/// file is refused before anything runs).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/contestant.h"
#include "ro/trace.h"
#include "scenario/tiled_trace.h"

namespace ro::bench {

/// A whole trace, read once before its run: every frame checked, and the figures the
/// contestants are set up from.
struct TraceFacts {
    std::string path;
    std::string name;                 ///< the file's name without its folder and extension: the rows' scene
    std::uint64_t frames = 0;
    std::uint32_t maxCount = 0;       ///< the most boxes in a frame (table sizes, the reference's limit)
    Aabb bounds;                      ///< every box of every frame
    float largestSide = 0.0f;         ///< the largest side of any box
    float medianSide = 0.0f;          ///< the median side (the larger of width and height) in the largest frame
    std::uint32_t maxId = 0;          ///< the largest id (how many copies a sweep can tile)
    /// The cell size the grid, the hash and Chipmunk's hash get: as Scene::fittedCellSize,
    /// the largest box unless a few are far larger than the median.
    [[nodiscard]] float fittedCellSize() const;
    /// What a sweep tiles the trace by.
    [[nodiscard]] TraceExtent extent() const { return {bounds, maxCount, maxId, fittedCellSize()}; }
};

/// Reads the trace at `path` in full; throws TraceError naming the file, frame and row.
[[nodiscard]] TraceFacts scanTrace(const std::string& path);

/// A trace's frames one at a time, with the moved lists an engine would give: when a frame
/// declares statics and holds the same bodies as the last (ids in the same order, the same
/// static flags and filters), the dense indices of the boxes whose corners changed; otherwise
/// nothing, as every box may have moved or bodies came and went.
class TraceFrames {
public:
    /// Opens the trace at its first frame.
    explicit TraceFrames(const std::string& path);
    /// To the next frame; throws std::runtime_error past the last.
    void advance();
    [[nodiscard]] BoxView boxes() const { return m_reader.frame(); }
    [[nodiscard]] MovedList moved() const;

private:
    /// Keeps this frame's boxes to compare the next with.
    void remember();
    void findMoved();

    TraceReader m_reader;
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
    std::vector<std::uint32_t> m_ids, m_category, m_mask, m_moved;
    std::vector<std::uint8_t> m_static;
    bool m_hadStatics = false, m_hadFilters = false;
    bool m_sameBodies = false;
};

}  // namespace ro::bench
