#pragma once
/// The peers' bodies kept in step with the frames' ids, as a game keeps its engine's: a body
/// is created when its id first appears, destroyed when it is gone, and keeps its proxy while
/// it lives, whatever its place in the frame's arrays. Each body has a small stable slot (a
/// freed slot is reused by a later body) that a peer keys its proxies by and hands its engine
/// as user data; a pair of slots is turned back into a pair of this frame's dense indices.
///
/// A body whose static flag, category or mask changed is destroyed and created again: engines
/// take those at creation (Bullet's proxy group and mask, Chipmunk's static index).

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "ro/broadphase.h"

namespace ro::bench {

class PeerBodies {
public:
    /// Takes this frame's boxes: afterwards destroyed() and created() say what changed since
    /// the last frame (on the first, every box is created). O(1) extra work when the ids are
    /// those of the last frame, in the same order (a comparison of the arrays).
    void update(const BoxView& boxes);
    /// True when the frame holds the last frame's bodies in the same places.
    [[nodiscard]] bool sameBodies() const { return m_same; }
    /// Slots whose bodies are gone: destroy their proxies first (a slot may be reused below).
    [[nodiscard]] std::span<const std::uint32_t> destroyed() const { return m_destroyed; }
    /// Dense indices of the boxes whose bodies are new: create their proxies at slotOf(i).
    [[nodiscard]] std::span<const std::uint32_t> created() const { return m_created; }
    [[nodiscard]] bool isCreated(std::uint32_t index) const { return m_isCreated[index] != 0; }
    [[nodiscard]] std::uint32_t slotOf(std::uint32_t index) const { return m_slotOf[index]; }
    [[nodiscard]] std::uint32_t indexOf(std::uint32_t slot) const { return m_indexOf[slot]; }
    /// One more than the largest slot in use: the size a peer's arrays by slot need.
    /// True while every box's slot is its dense index (no body has come or gone out of order):
    /// a peer's pairs of slots are then pairs of indices already.
    [[nodiscard]] bool slotsAreIndices() const { return m_identity; }
    [[nodiscard]] std::uint32_t slotCount() const { return static_cast<std::uint32_t>(m_indexOf.size()); }

private:
    /// What makes a body the same body from frame to frame.
    struct Kind {
        std::uint8_t isStatic = 0;
        std::uint32_t category = 0, mask = 0;
        friend bool operator==(const Kind&, const Kind&) = default;
    };
    static Kind kindOf(const BoxView& boxes, std::uint32_t i);

    std::vector<std::uint32_t> m_ids;      ///< the last frame's ids, by dense index
    std::vector<Kind> m_kinds;             ///< the last frame's kinds, by dense index
    std::unordered_map<std::uint32_t, std::uint32_t> m_slotById;
    std::vector<std::uint32_t> m_slotOf, m_indexOf, m_freeSlots, m_created, m_destroyed;
    std::vector<std::uint8_t> m_isCreated, m_seen;  ///< by dense index; by slot
    bool m_same = false;
    bool m_identity = true;
};

}  // namespace ro::bench
