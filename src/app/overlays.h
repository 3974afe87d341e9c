#pragma once
/// Debug overlays drawn over the world: the technique's structure (cells, tree nodes, fat
/// boxes, the sweep's delimiters), candidate pairs, AABBs and the query tools' results.
/// Each overlay is one batched SDL call over what is on screen, and lines and outlines stop at
/// a fixed budget (the HUD says how many were shown of how many): legible and bounded at a
/// million entities.

#include <SDL.h>

#include <vector>

#include "app/batch.h"
#include "app/lab.h"
#include "app/options.h"
#include "app/queries.h"
#include "app/screen.h"
#include "ro/broadphase.h"
#include "ro/world.h"

namespace ro::app {

/// What the overlays drew last frame, of how much there was: the HUD's "shown X of Y".
struct OverlayCounts {
    std::uint64_t cellsShown = 0, cells = 0;    ///< structure cells on screen and in all
    std::uint64_t linesShown = 0, lines = 0;    ///< structure outlines (tree nodes, fat boxes)
    std::uint64_t pairsShown = 0, pairs = 0;    ///< pair lines: overlaps first, then candidates
    std::uint64_t boundsShown = 0, bounds = 0;  ///< AABB outlines
    std::uint64_t fastShown = 0, fast = 0;      ///< fast movers marked, of those there are
    std::uint64_t missMarks = 0;                ///< missed pairs marked where they passed
};

class OverlayRenderer {
public:
    /// At most this many pair lines, AABB outlines and structure outlines each per frame.
    static constexpr std::uint64_t kLineBudget = 20'000;

    /// The technique's structure, part one, drawn under the entities: cells shaded per cell by
    /// how many entities each holds and coloured by level (into the screen's raster when it is
    /// in use). Collects the rest for drawStructureLines. Levels whose bit is set in
    /// `flags.hiddenLevels` are skipped; `flags.levelsSeen` is set to the levels present.
    void drawStructureCells(Screen& screen, const BroadPhase& technique, OverlayFlags& flags);
    /// Part two, over the entities: tree nodes outlined in a colour per depth (shallowest first
    /// within the budget) and fat boxes.
    ///
    /// This and the other line overlays go into the screen's raster in a raster frame (call
    /// them before Screen::drawEntities, which draws the raster; begin that frame with
    /// linesOver, so that no entity is drawn as geometry over them) and are drawn as geometry
    /// otherwise (call them after it).
    void drawStructureLines(Screen& screen);
    /// Part three, along the window's edge: a sweep's delimiters as a strip, per pixel column
    /// the depth of open intervals, with a mark where one touches void. Call after the entities.
    void drawSweepStrip(SDL_Renderer* renderer, const ViewTransform& view, const Rect& area);
    /// The query tools' shapes and hits: point hits outlined, the box and its hits, the ray,
    /// its hits and its first hit with the entry point.
    void drawQueries(SDL_Renderer* renderer, const ViewTransform& view, const World& world, const QueryTool& queries);
    /// Fast movers, once the lab's fast-mover tools are on (missed count or swept boxes): each
    /// one marked in its own colour (at least a few pixels across), its swept box outlined with
    /// swept boxes on, and a mark where a missed pair passed, full for a third of its life, then
    /// fading. Over the entities, as geometry; at most kLineBudget movers, counted.
    void drawFastMovers(SDL_Renderer* renderer, const ViewTransform& view, const Lab& lab);
    /// Whether entity i moves a quarter of its smaller side or more per tick: it can cross a box
    /// of its size between two ticks of a discrete broad phase.
    [[nodiscard]] static bool isFastMover(const World& world, std::uint32_t i);
    /// The pair a compared technique got wrong: both entities outlined and marked, joined by a line.
    void drawMismatch(SDL_Renderer* renderer, const ViewTransform& view, const World& world, Pair pair);
    /// A line between the centres of each candidate pair of the last tick, red over the
    /// others where the AABBs overlap; within the budget, overlapping pairs come first.
    void drawPairs(Screen& screen, const World& world);
    /// Every entity's AABB outline on screen, within the budget.
    void drawBounds(Screen& screen, const World& world);

    /// What was drawn this frame; call resetCounts when a frame starts.
    [[nodiscard]] const OverlayCounts& counts() const { return m_counts; }
    void resetCounts() { m_counts = {}; }

private:
    void addOutline(const ViewTransform& view, const Aabb& box, float width, SDL_Color color);
    void addEntityOutline(const ViewTransform& view, const World& world, std::uint32_t i, float width, SDL_Color color);

    /// Queues a line for each candidate pair on screen whose AABBs overlap (or, with
    /// `overlapping` false, do not), sampled evenly within what is left of the budget: into
    /// the raster, or as quads (m_lines, m_overlapLines) and native lines (m_longLines).
    void addPairLines(Screen& screen, const World& world, const std::vector<Pair>& candidates, bool overlapping);
    void readOutputSize(SDL_Renderer* renderer);

    static constexpr float kCandidateWidth = 1.25f;
    static constexpr float kOverlapWidth = 2.0f;  ///< overlap lines join close centres: thicker to stay visible

    struct Outline {
        Aabb box;
        std::uint32_t level;
        SDL_Color color;
    };

    OverlayCounts m_counts;
    GeometryBatch m_cells;
    GeometryBatch m_outlines;
    GeometryBatch m_strip;
    std::vector<Outline> m_structureLines;  ///< collected by drawStructureCells
    /// The deepest level whose outlines drawStructureCells keeps: over the budget the
    /// shallowest levels win, so deeper ones are counted, not stored. Set from the last frame's
    /// outlines on screen per level, one level deeper than they needed, for a view that moved.
    std::uint32_t m_deepestLineLevel = ~0u;
    std::vector<StructureElement> m_delimiters;
    struct Column {
        int depth = 0;
        bool touchesVoid = false;
    };
    std::vector<Column> m_columns;  ///< the sweep strip, per pixel along its edge
    GeometryBatch m_lines;         ///< candidate pair lines, and the query tools' ray
    GeometryBatch m_overlapLines;  ///< overlap pair lines, drawn over the candidates
    float m_pairFade = 1.0f;       ///< pair lines' share of their colour: many lines fade
    float m_width = 0.0f;          ///< output size in pixels, read at each draw call
    float m_height = 0.0f;
    struct LongLine {
        SDL_FPoint from;
        SDL_FPoint to;
        SDL_Color color;
    };
    std::vector<LongLine> m_longLines;  ///< pair lines too long to draw as quads
    std::vector<SDL_FRect> m_rects;
};

}  // namespace ro::app
