#pragma once
/// The query tools: hovering runs a point query under the cursor, shift-drag a box query and
/// ctrl-drag a segment (ray) query from the press point to the cursor. The last box or ray
/// stays and is re-run every frame, so entities can be watched passing through it; C clears it.
/// Queries go to a twin of the technique in use (same registry row, same settings), updated
/// with the boxes as they are now: a tick moves the entities after its broad phase, so the
/// world's own instance holds last tick's boxes, and updating it between ticks would move
/// its sorting and reinsertion work out of the tick the HUD times. The twin's cost (cells,
/// nodes or delimiters visited, box tests) is that technique's, shown in the HUD.

#include <cstdint>
#include <optional>
#include <vector>

#include <memory>

#include "ro/broadphase.h"
#include "ro/registry.h"
#include "ro/world.h"

namespace ro::app {

class QueryTool {
public:
    enum class Shape : std::uint8_t { None, Box, Ray };

    /// The cursor is over the world at `p` (nothing: it left the world or is over the UI).
    /// Ignored once the point is pinned.
    void hover(std::optional<Vec2> p) {
        if (!m_pinned) m_hover = p;
    }
    /// Fixes the point query at `p`; the cursor no longer moves it (--query-point).
    void pinPoint(Vec2 p) {
        m_hover = p;
        m_pinned = true;
    }
    /// A box or ray drag starts at `p`; drag() follows the cursor until the button is released.
    void beginDrag(Shape shape, Vec2 p);
    void drag(Vec2 p);
    void endDrag() { m_dragging = false; }
    [[nodiscard]] bool dragging() const { return m_dragging; }
    /// Sets a finished box or ray (the --query-box and --query-ray flags).
    void set(Shape shape, Vec2 from, Vec2 to);
    void clear() { m_shape = Shape::None; }

    /// Runs the queries on the world's current boxes with a twin of `technique` (call after
    /// the world ticks and the panel acted): while a query is active, one more technique
    /// update in a frame whose boxes changed (World::boxesVersion), none otherwise.
    void run(const World& world, const TechniqueInfo& technique);
    /// How many times the twin was brought up to the world's boxes.
    [[nodiscard]] std::uint64_t twinUpdates() const { return m_twinUpdates; }

    [[nodiscard]] Shape shape() const { return m_shape; }
    [[nodiscard]] Vec2 from() const { return m_from; }
    [[nodiscard]] Vec2 to() const { return m_to; }
    [[nodiscard]] Aabb box() const;
    [[nodiscard]] const std::optional<Vec2>& hoverPoint() const { return m_hover; }
    [[nodiscard]] const std::vector<std::uint32_t>& pointHits() const { return m_pointHits; }
    [[nodiscard]] const std::vector<std::uint32_t>& boxHits() const { return m_boxHits; }
    [[nodiscard]] const std::vector<RayHit>& rayHits() const { return m_rayHits; }
    [[nodiscard]] const std::optional<RayHit>& firstHit() const { return m_firstHit; }
    [[nodiscard]] const QueryCost& pointCost() const { return m_pointCost; }
    /// The box query's cost, or the ray's (all hits) and first hit's.
    [[nodiscard]] const QueryCost& shapeCost() const { return m_shapeCost; }
    [[nodiscard]] const QueryCost& firstHitCost() const { return m_firstCost; }

private:
    std::unique_ptr<BroadPhase> m_twin;
    const TechniqueInfo* m_twinOf = nullptr;
    Settings m_twinSettings;
    std::optional<std::uint64_t> m_twinVersion;  ///< World::boxesVersion() of its last update
    std::uint64_t m_twinUpdates = 0;
    std::optional<Vec2> m_hover;
    bool m_pinned = false;
    Shape m_shape = Shape::None;
    bool m_dragging = false;
    Vec2 m_from, m_to;
    std::vector<std::uint32_t> m_pointHits, m_boxHits;
    std::vector<RayHit> m_rayHits;
    std::optional<RayHit> m_firstHit;
    QueryCost m_pointCost, m_shapeCost, m_firstCost;
};

}  // namespace ro::app
