#pragma once
/// Debug overlays drawn over the world: the technique's occupied cells, candidate pairs and
/// AABBs. Each overlay is one batched SDL call, so they stay usable at 100k entities.

#include <SDL.h>

#include <vector>

#include "app/batch.h"
#include "app/screen.h"
#include "broadphase/broadphase.h"
#include "world/world.h"

namespace ro::app {

class OverlayRenderer {
public:
    /// Occupied cells (BroadPhase::forEachCell), shaded by how many entities each holds.
    void drawCells(SDL_Renderer* renderer, const ViewTransform& view, const BroadPhase& technique);
    /// A line between the centres of each candidate pair of the last tick; true overlaps in another colour.
    void drawPairs(SDL_Renderer* renderer, const ViewTransform& view, const World& world);
    /// Every entity's AABB outline.
    void drawBounds(SDL_Renderer* renderer, const ViewTransform& view, const World& world);

private:
    /// Queues one line per pair: short ones as quads in m_lines, long ones in m_longLines.
    void addPairLines(const ViewTransform& view, const World& world, const std::vector<Pair>& pairs, float width,
                      SDL_Color color, SDL_Color longColor);

    static constexpr float kCandidateWidth = 1.25f;
    static constexpr float kOverlapWidth = 2.0f;  ///< overlap lines join close centres: thicker to stay visible

    GeometryBatch m_cells;
    GeometryBatch m_lines;
    struct LongLine {
        SDL_FPoint from;
        SDL_FPoint to;
        SDL_Color color;
    };
    std::vector<LongLine> m_longLines;  ///< pair lines too long to draw as quads
    std::vector<SDL_FRect> m_rects;
};

}  // namespace ro::app
