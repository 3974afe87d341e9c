#pragma once
/// The scenarios of ro_bench and the app's presets. A scene is fully defined by its scenario,
/// entity count, motion and seed: every technique and peer that replays it sees exactly the
/// same boxes every frame.
///
/// Default scale: boxes of side about 1 in a square world of side 4 * sqrt(N) (about 6% of
/// the area covered), moving about 0.05 per frame, reflected by the walls.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ro/broadphase.h"
#include "broadphase/swept_boxes.h"
#include "ro/rng.h"

namespace ro {

enum class ScenarioKind : std::uint8_t { Uniform, Clustered, Mixed, Static, OneCell, Orbit, Dense, Bullets, Rain, Layers };
/// Steady: every box keeps its velocity. Varied: a tenth of the boxes turn every frame.
/// Teleport: every box jumps to a random place every frame, the incoherent motion that
/// breaks temporal coherence (the single-axis sweep's insertion sort degrades to n^2 / 4).
/// Churn: steady, and every frame 1% of the boxes (at least one) are destroyed and as many
/// created with new ids anywhere in the world: bodies spawned and removed every step. A
/// destroyed box's slot takes the last box (a swap-remove, as a world does) and the new one is
/// appended; not for orbit or onecell, whose boxes keep to their rings or their square.
/// Bullets: steady, and 1% of the boxes (1 to 500, evenly spread) move 20 to 100 times as
/// fast: in one frame they cross several boxes' widths, which a discrete broad phase misses.
enum class Motion : std::uint8_t { Steady, Varied, Teleport, Churn, Bullets };

/// Whether `motion` applies to scenes of `kind` (churn and bullets do not to orbit and onecell).
[[nodiscard]] bool motionApplies(Motion motion, ScenarioKind kind);

/// One row of the scenario table: what --scenario accepts and what --list prints.
struct ScenarioInfo {
    ScenarioKind kind;
    std::string_view name;
    std::string_view description;
    std::uint32_t maxCount;  ///< larger counts are refused (onecell's pairs grow as n^2)
    // What the panel shows of the scene's make-up.
    std::string_view sizes;    ///< the distribution of box sides
    std::string_view spacing;  ///< where the boxes are
    float speed;               ///< typical speed of a moving box, world units per frame
    float movingFraction;      ///< share of the boxes that move
};

/// Every scenario, in --list order.
[[nodiscard]] std::span<const ScenarioInfo> scenarios();
[[nodiscard]] const ScenarioInfo* findScenario(std::string_view name);
[[nodiscard]] std::string_view motionName(Motion motion);
[[nodiscard]] std::optional<Motion> findMotion(std::string_view name);

/// A point of the mixed scenario's family (ro_bench --mixed): the share of big boxes, the
/// range of their sides (the small boxes have side 0.8-1.2), and how far apart the boxes are,
/// in units of their mean side. Without one, mixed is ro_bench's fixed mix: every tenth box of
/// side 10-40, in a world of side 4 * sqrt(n).
struct MixedShape {
    float bigFraction = 0.1f;  ///< 0 to 0.5
    float bigMinSide = 10.0f;  ///< 1 to 100, at most bigMaxSide
    float bigMaxSide = 40.0f;  ///< 1 to 100
    float spacing = 4.0f;      ///< 1.5 to 8: the world's side is spacing * mean side * sqrt(n)
    static constexpr float kMaxBigFraction = 0.5f, kMaxSide = 100.0f, kMinSpacing = 1.5f, kMaxSpacing = 8.0f;
    /// "0.2:10:100:3", as --mixed takes it.
    [[nodiscard]] std::string text() const;
    /// Reads FRACTION:MIN:MAX:SPACING; throws std::invalid_argument saying what is wrong.
    [[nodiscard]] static MixedShape parse(std::string_view text);
};

/// The boxes of one scene, as structure of arrays, and how they move from frame to frame.
class Scene {
public:
    /// `mixed` shapes a mixed scene (ignored for the other kinds).
    Scene(ScenarioKind kind, std::uint32_t count, Motion motion, std::uint64_t seed,
          const std::optional<MixedShape>& mixed = std::nullopt);

    /// Moves every box by one frame (deterministic for the seed).
    void advance();
    /// The boxes, with the static flags when the scene declares them and the layers' filters
    /// when it has layers.
    [[nodiscard]] BoxView boxes() const;
    /// Whether the scene marks its still boxes static: the static scene with steady motion
    /// (varied, teleport and churn would move them).
    [[nodiscard]] bool declaresStatics() const { return !m_isStatic.empty(); }
    /// After an advance of a scene that declares statics: the dense indices of the boxes
    /// that moved (the same ones every frame); otherwise nothing, as every box may have.
    [[nodiscard]] std::optional<std::span<const std::uint32_t>> moved() const {
        if (!declaresStatics() || !m_advanced) return std::nullopt;
        return std::span<const std::uint32_t>(m_movers);
    }
    /// Puts box i in layer i % k (1 to 32 layers): layer 0 collides with every layer, any
    /// other layer with layer 0 and itself (terrain, and teams that meet only their own).
    void setLayers(std::uint32_t k);
    [[nodiscard]] std::uint32_t layers() const { return m_layers; }
    /// The static scene only: the share of boxes that move (0 to 1; 0.01 by default), each at
    /// its own fast velocity: the first boxes, which lie anywhere in the field. Throws
    /// std::invalid_argument outside [0, 1].
    void setMovingFraction(float fraction);
    /// Whether box i is declared static (declaresStatics()).
    [[nodiscard]] bool isStatic(std::uint32_t i) const { return !m_isStatic.empty() && m_isStatic[i] != 0; }
    /// Each box joined with where it will be after the next advance (its velocity, ignoring
    /// the walls): the swept boxes a broad phase needs to see fast movers' paths.
    [[nodiscard]] BoxView sweptBoxes();
    /// Whether boxes i and j, moving by their velocities, pass through each other during the
    /// next advance: their paths meet (the exact swept test: b's centre against a's box grown
    /// by b's, the Minkowski sum) but they are apart both now and after it, so no frame shows
    /// them overlapping (tunnelling). Walls ignored, as sweptBoxes() does.
    [[nodiscard]] bool passBeforeNextFrame(std::uint32_t i, std::uint32_t j) const;
    /// Box i's centre, half side and velocity (world units per frame; an orbiting box's is
    /// its tangent, the straight line a world that integrates velocities can follow).
    [[nodiscard]] Vec2 centre(std::uint32_t i) const { return {m_x[i], m_y[i]}; }
    [[nodiscard]] float halfSide(std::uint32_t i) const { return m_half[i]; }
    [[nodiscard]] Vec2 velocity(std::uint32_t i) const;
    [[nodiscard]] std::uint32_t size() const { return m_count; }
    [[nodiscard]] const Aabb& bounds() const { return m_bounds; }
    /// The walls its boxes bounce off: onecell's 2 x 2 square in the middle of bounds(), else
    /// bounds(). A world that integrates the scene needs these walls to keep it the same scene.
    [[nodiscard]] Aabb walls() const;
    /// The largest box side: the cell size a grid needs to hold every box in 2 x 2 cells.
    [[nodiscard]] float largestSide() const { return m_largestSide; }
    /// The median box side, a cell size for scenes whose few large boxes should not set it.
    [[nodiscard]] float medianSide() const { return m_medianSide; }
    /// The cell size ro_bench gives the grid and the hash: Auto's (autoCellSize).
    [[nodiscard]] float fittedCellSize() const { return autoCellSize(m_largestSide, m_medianSide); }

private:
    void place(std::uint32_t i, float x, float y, float half);
    void updateBox(std::uint32_t i);
    void updateBoxes();
    /// Churn: destroys 1% of the boxes and creates as many (see Motion).
    void churn();
    /// Rain: the drops that reached the bottom wall are destroyed, and as many new ones
    /// created at the top.
    void rain();
    /// A new drop's velocity: straight down, crossing the world in about 100 frames.
    [[nodiscard]] std::array<float, 2> dropVelocity();

    ScenarioKind m_kind;
    Motion m_motion;
    std::uint32_t m_count;
    Rng m_rng;
    Aabb m_bounds;
    float m_largestSide = 0.0f;
    float m_medianSide = 0.0f;
    std::vector<float> m_x, m_y, m_half, m_vx, m_vy;  ///< centres, half-extents, velocities
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
    SweptBoxes m_swept;  ///< by sweptBoxes()
    std::vector<std::uint32_t> m_ids;
    std::uint32_t m_nextId = 0;  ///< the id of the next box created (churn)
    std::vector<std::uint8_t> m_isStatic;   ///< by box, when the scene declares statics
    std::vector<float> m_fastVx, m_fastVy;  ///< the static scene: each box's velocity when it moves
    std::vector<std::uint32_t> m_movers;    ///< the boxes that are not static
    bool m_advanced = false;
    std::uint32_t m_layers = 0;             ///< 0: no filters
    std::vector<std::uint32_t> m_category, m_mask;
};

}  // namespace ro
