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
    float cellSize = 1.0f;      ///< the cell the grid and the hash are fitted to, for one copy (autoCellSize)
};

/// Where the copies of a tiled scene go: copy c sits c columns and rows of a near-square
/// arrangement away from the first, a gap of a twentieth of the larger side between copies,
/// so that no box of one copy meets a box of another.
struct TileLayout {
    TileLayout(const Aabb& one, std::uint32_t copies);
    [[nodiscard]] float offsetX(std::uint32_t copy) const { return stepX * static_cast<float>(copy % columns); }
    [[nodiscard]] float offsetY(std::uint32_t copy) const { return stepY * static_cast<float>(copy / columns); }
    std::uint32_t columns;
    float stepX, stepY;  ///< from one copy to the next column and row
    Aabb bounds;         ///< every copy's region
};

/// The copies of a trace that come nearest to `n` entities (at least one).
[[nodiscard]] std::uint32_t tileCopies(std::uint32_t n, const TraceExtent& extent);
/// The most copies whose ids stay distinct in 32 bits.
[[nodiscard]] std::uint32_t mostTileCopies(const TraceExtent& extent);

/// A trace's frames, each box in `copies` places (TileLayout), with the id id * copies + c. The trace starts over when it ends.
class TiledTrace final : public SweepScene {
public:
    /// Opens the trace at its first frame; throws TraceError as TraceReader does, or when
    /// `copies` is 0 or more than mostTileCopies.
    TiledTrace(const std::string& path, const TraceExtent& extent, std::uint32_t copies);
    void advance() override;
    [[nodiscard]] BoxView boxes() const override;
    [[nodiscard]] Aabb bounds() const override { return m_layout.bounds; }
    [[nodiscard]] float fittedCellSize() const override { return m_extent.cellSize; }

private:
    void tile();

    std::string m_path;
    TraceExtent m_extent;
    std::uint32_t m_copies;
    TileLayout m_layout;
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
