#pragma once
/// Debug overlays drawn over the world: the technique's structure (cells, tree nodes, fat
/// boxes, the sweep's delimiters), candidate pairs, AABBs and the query tools' results.
/// Each overlay is one batched SDL call, so they stay usable at 100k entities.

#include <SDL.h>

#include <vector>

#include "app/batch.h"
#include "app/options.h"
#include "app/queries.h"
#include "app/screen.h"
#include "broadphase/broadphase.h"
#include "world/world.h"

namespace ro::app {

class OverlayRenderer {
public:
    /// The technique's structure (BroadPhase::forEachCell): cells shaded by how many entities
    /// each holds and coloured by level, tree nodes outlined in a colour per depth, fat boxes,
    /// and a sweep's delimiters as a strip along the window's edge: the depth of open intervals
    /// along the axis, with a mark on each delimiter that touches void. Levels whose bit is set
    /// in `flags.hiddenLevels` are skipped; `flags.levelsSeen` is set to the levels present.
    void drawStructure(SDL_Renderer* renderer, const ViewTransform& view, const BroadPhase& technique,
                       OverlayFlags& flags);
    /// The query tools' shapes and hits: point hits outlined, the box and its hits, the ray,
    /// its hits and its first hit with the entry point.
    void drawQueries(SDL_Renderer* renderer, const ViewTransform& view, const World& world, const QueryTool& queries);
    /// A line between the centres of each candidate pair of the last tick; true overlaps in another colour.
    void drawPairs(SDL_Renderer* renderer, const ViewTransform& view, const World& world);
    /// Every entity's AABB outline.
    void drawBounds(SDL_Renderer* renderer, const ViewTransform& view, const World& world);

private:
    void addOutline(const ViewTransform& view, const Aabb& box, float width, SDL_Color color);
    void addEntityOutline(const ViewTransform& view, const World& world, std::uint32_t i, float width, SDL_Color color);
    /// The sweep strip, from the delimiters collected in m_delimiters.
    void addSweepStrip(SDL_Renderer* renderer, const ViewTransform& view);

    /// Queues one line per pair: short ones as quads in m_lines, long ones in m_longLines.
    void addPairLines(const ViewTransform& view, const World& world, const std::vector<Pair>& pairs, float width,
                      SDL_Color color, SDL_Color longColor);

    static constexpr float kCandidateWidth = 1.25f;
    static constexpr float kOverlapWidth = 2.0f;  ///< overlap lines join close centres: thicker to stay visible

    GeometryBatch m_cells;
    GeometryBatch m_outlines;
    GeometryBatch m_strip;
    std::vector<CellView> m_delimiters;
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
