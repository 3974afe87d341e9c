#pragma once
/// A recorded trace made larger: its frames tiled side by side, k copies of every box, each
/// copy moving as the original (as Broadmark's splitter grows a recorded scene). The sweeps
/// run on it, so a scaling sweep asks how a technique grows on *your* scene.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ro/trace.h"
#include "scenario/sweeps.h"

namespace ro {

/// What tiling needs to know of a trace, from one read of it in full.
struct TraceExtent {
    Aabb bounds;                ///< every box of every frame
    std::uint32_t maxCount = 0; ///< the most boxes in a frame
    std::uint32_t maxId = 0;    ///< the largest id
    float cellSize = 1.0f;      ///< the cell the grid and the hash are fitted to, for one copy
};

/// The copies of a trace that come nearest to `n` entities (at least one).
[[nodiscard]] std::uint32_t tileCopies(std::uint32_t n, const TraceExtent& extent);
/// The most copies whose ids stay distinct in 32 bits.
[[nodiscard]] std::uint32_t mostTileCopies(const TraceExtent& extent);

/// A trace's frames, each box in `copies` places: copy c sits c columns and rows of a near-square
/// arrangement away, a gap of a twentieth of the trace's larger side between copies, with the id
/// id * copies + c. The trace starts over when it ends.
class TiledTrace final : public SweepScene {
public:
    /// Opens the trace at its first frame; throws TraceError as TraceReader does, or when
    /// `copies` is 0 or more than mostTileCopies.
    TiledTrace(const std::string& path, const TraceExtent& extent, std::uint32_t copies);
    void advance() override;
    [[nodiscard]] BoxView boxes() const override;
    [[nodiscard]] Aabb bounds() const override { return m_bounds; }
    [[nodiscard]] float fittedCellSize() const override { return m_extent.cellSize; }

private:
    void tile();

    std::string m_path;
    TraceExtent m_extent;
    std::uint32_t m_copies;
    std::uint32_t m_columns;
    float m_stepX, m_stepY;  ///< from one copy to the next column and row
    Aabb m_bounds;
    std::optional<TraceReader> m_reader;  ///< reopened when the trace ends
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
    std::vector<std::uint32_t> m_ids, m_category, m_mask;
    std::vector<std::uint8_t> m_static;
    bool m_hasStatics = false, m_hasFilters = false;
};

/// A sweep's scenes on the trace at `path`: a point of n entities gets n / extent.maxCount
/// copies (the caller gives n as a multiple).
[[nodiscard]] SweepSceneMaker tiledTraceScenes(std::string path, const TraceExtent& extent);

}  // namespace ro
