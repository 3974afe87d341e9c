#pragma once
/// A scene as it stood at one moment (the lab's own boxes), made larger for the sweeps: its
/// boxes tiled side by side as TiledTrace tiles a trace, each moving on at the velocity it had,
/// so a scaling sweep asks how a technique grows on a scene of *yours*.

#include <cstdint>
#include <memory>
#include <vector>

#include "scenario/tiled_trace.h"  // TileLayout

namespace ro {

/// The boxes of a scene at one moment, and the walls they bounce off.
struct Snapshot {
    struct Box {
        float centreX = 0, centreY = 0, halfW = 0, halfH = 0;
        float velocityX = 0, velocityY = 0;  ///< per tick; statics keep 0
        bool isStatic = false;
        std::uint32_t category = 1, mask = ~0u;
    };
    std::vector<Box> boxes;
    Aabb walls;            ///< one copy's region; every box lies inside it
    float cellSize = 1.0f; ///< the cell the grid and the hash are fitted to
};

/// The snapshot in `copies` places (TileLayout); box i of copy c has the id c * count + i. Each
/// tick every moving box goes on by its velocity and turns back at its copy's walls, so the
/// copies move alike and never meet.
class SnapshotScene final : public SweepScene {
public:
    /// `copies` from 1 to mostSnapshotCopies; the snapshot is only read (a sweep's points share it).
    SnapshotScene(std::shared_ptr<const Snapshot> snapshot, std::uint32_t copies);
    void advance() override;
    [[nodiscard]] BoxView boxes() const override;
    [[nodiscard]] Aabb bounds() const override { return m_layout.bounds; }
    [[nodiscard]] float fittedCellSize() const override { return m_snapshot->cellSize; }

private:
    void tile();

    std::shared_ptr<const Snapshot> m_snapshot;
    std::uint32_t m_copies;
    TileLayout m_layout;
    std::vector<Snapshot::Box> m_moving;  ///< the first copy as it moves
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
    std::vector<std::uint32_t> m_ids, m_category, m_mask;
    std::vector<std::uint8_t> m_static;
    bool m_hasStatics = false, m_hasFilters = false;
};

/// The most copies of `boxes` boxes whose ids stay distinct in 32 bits.
[[nodiscard]] std::uint32_t mostSnapshotCopies(std::uint32_t boxes);
/// A sweep's scenes on the snapshot: a point of n entities gets the whole copies nearest to n
/// (at least one).
[[nodiscard]] SweepSceneMaker snapshotScenes(std::shared_ptr<const Snapshot> snapshot);

}  // namespace ro
