#pragma once
/// Following entities from one step to the next by their ids: which are new, which went, and
/// where each of last step's entities stands now. The techniques that keep state across
/// steps (the sweeps, the tree, the HSHG) use it on the slots the base class hands them, so its tables
/// follow the live entities, not the ids ever issued.

#include <cstdint>
#include <vector>

#include "ro/broadphase.h"

namespace ro {

class PassArena;

/// Maps last step's dense indices to this step's, through the stable ids, and lists the
/// entities that are new and the ids that went. A compare of the id arrays per step, and work
/// in proportion to the indices whose id changed.
class EntityDiff {
public:
    static constexpr std::uint32_t kGone = 0xFFFFFFFFu;

    /// Compares the ids of `boxes` (unique, as update() checks) with the last call's; with
    /// `passes`, the compare of unchanged ids runs in parts on its threads.
    void track(const BoxView& boxes, PassArena* passes = nullptr);
    /// Forgets the last step: at the next track() every entity is new.
    void forget() { m_previousIds.clear(); }
    /// This step's index of the entity that had `oldIndex` last step, or kGone if it was removed.
    [[nodiscard]] std::uint32_t newIndex(std::uint32_t oldIndex) const {
        return m_unchanged ? oldIndex : m_newIndexOfOld[oldIndex];
    }
    /// Dense indices (ascending) of the entities the last step did not have.
    [[nodiscard]] const std::vector<std::uint32_t>& added() const { return m_added; }
    /// Ids (ascending by last step's dense index) of the entities this step no longer has.
    [[nodiscard]] const std::vector<std::uint32_t>& removed() const { return m_removed; }
    /// The same ids in the same order as last step: nothing to remap.
    [[nodiscard]] bool unchanged() const { return m_unchanged; }
    [[nodiscard]] std::uint64_t bytesHeld() const;

    // Edits between steps, for a technique that takes entities one at a time: the next
    // track() compares with the step as edited.
    /// `id` joins as the next dense index.
    void append(std::uint32_t id);
    /// The entity at `dense` leaves; the last dense index takes its place.
    void swapRemove(std::uint32_t dense);

private:
    std::vector<std::uint32_t> m_previousIds;    ///< by last step's dense index
    std::vector<std::uint32_t> m_denseOfId;      ///< by id: dense index when last seen (maybe stale)
    std::vector<std::uint32_t> m_newIndexOfOld;  ///< by last step's dense index: itself unless patched
    std::vector<std::uint32_t> m_patched;        ///< the indices of m_newIndexOfOld this step wrote
    std::vector<std::uint32_t> m_changed;        ///< this step's indices whose id is not last step's
    std::vector<std::uint32_t> m_added;
    std::vector<std::uint32_t> m_removed;
    bool m_unchanged = false;
};

}  // namespace ro
