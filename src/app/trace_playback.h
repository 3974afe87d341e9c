#pragma once
/// A trace played in the world: each frame's boxes become the world's entities (a body keeps
/// its entity while its trace id lives), so the world's technique, the overlays, the queries
/// and Compare all run on the recorded frames. No SDL or ImGui here.
///
/// The file is streamed, never held: opening reads it through once to check every frame (a
/// bad trace is refused before the running scene is touched) and to learn its length and
/// extent; playing reads one frame per step; going backward reopens it and skips forward.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ro/trace.h"
#include "ro/world.h"
#include "scenario/tiled_trace.h"

namespace ro::app {

class TracePlayback {
public:
    /// Reads `path` through once and checks it: the reader's own checks (truncation, magic,
    /// NaN, inverted boxes, duplicated ids, too many boxes), an empty trace, and boxes the
    /// world cannot hold (a side under twice WorldLimits::kMinHalfExtent, a coordinate past
    /// kMaxCoordinate). Throws TraceError naming the file, the frame and the box.
    explicit TracePlayback(std::string path);

    [[nodiscard]] const std::string& path() const { return m_path; }
    /// "trace NAME": the file's name, for the HUD and as the lab's scene name.
    [[nodiscard]] const std::string& label() const { return m_label; }
    /// The file's name without its folder and extension (ro_bench's scene name for a trace).
    [[nodiscard]] const std::string& name() const { return m_name; }
    [[nodiscard]] std::uint64_t frames() const { return m_frames; }
    /// The most boxes any frame holds.
    [[nodiscard]] std::uint32_t mostBoxes() const { return m_mostBoxes; }
    /// The frame the world holds, from 0.
    [[nodiscard]] std::uint64_t frame() const { return m_shown; }
    /// Every box of every frame lies inside it, with a margin: the world's walls.
    [[nodiscard]] const Aabb& extent() const { return m_extent; }
    /// What a sweep tiles the trace by (its boxes' own bounds, without the walls' margin).
    [[nodiscard]] const TraceExtent& tiling() const { return m_tiling; }

    /// Makes `world`'s entities frame `index` (clamped to the last): bodies gone from the trace
    /// are removed, new ones added, the others moved and resized (a box that turns changes
    /// size); a body whose static flag or filter changed is made anew. Throws TraceError if the
    /// file changed since it was checked.
    void show(World& world, std::uint64_t index);

    /// A body of the frame shown: its trace id and the world entity that stands for it.
    struct Body {
        std::uint32_t traceId = 0;
        EntityId entity = 0;
        float halfW = 0, halfH = 0;
        std::uint8_t isStatic = 0;
        std::uint32_t category = 1, mask = ~0u;
    };
    /// Sorted by trace id.
    [[nodiscard]] std::span<const Body> bodies() const { return m_live; }

    // Playing: frames per step (0.25 to 4), whether the end goes back to the start, and the
    // fraction of a frame owed to the next steps.
    static constexpr float kMinSpeed = 0.25f, kMaxSpeed = 4.0f;
    float speed = 1.0f;
    bool loop = true;
    double owed = 0.0;

private:
    /// Positions the reader on frame `index` (reopening to go back); its frame() is that frame.
    void seek(std::uint64_t index);

    std::string m_path, m_label, m_name;
    std::uint64_t m_frames = 0;
    std::uint32_t m_mostBoxes = 0;
    std::uint64_t m_shown = 0;
    Aabb m_extent;
    TraceExtent m_tiling;
    std::unique_ptr<TraceReader> m_reader;
    std::uint64_t m_readerAt = 0;  ///< the frame the reader holds, when m_reader is set

    // Reused from frame to frame: no allocation once they have grown to the largest frame.
    std::vector<Body> m_live, m_next;
    std::vector<std::uint32_t> m_order;      ///< the frame's boxes, by trace id
    std::vector<EntityId> m_gone, m_newIds;
    std::vector<EntityDesc> m_added;
    std::vector<std::uint32_t> m_addedSlots;  ///< where each added body goes in m_next
};

}  // namespace ro::app
