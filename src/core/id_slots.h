#pragma once
/// Small, stable numbers for the entity ids a broad phase is handed, so that the techniques
/// that keep state from step to step (the HSHG, the sweeps, the tree) index their tables by
/// slot, and hold memory in proportion to the live entities, whatever ids the caller uses.
///
/// A slot is stable while its id stays in the steps; a slot freed in one update is handed
/// out again only from a later one, so a technique sees it vanish before it is reused.
/// Each update costs one pass comparing the ids with the last step's at the same dense
/// index, plus a hash look-up only where they differ: in a world that swap-removes and
/// appends, work in proportion to what changed. The same pass proves the ids unique.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/id_map.h"

namespace ro {

class IdSlots {
public:
    /// Maps this step's ids (dense indices 0..count-1) to slots. Throws std::invalid_argument
    /// naming the id when one appears twice, with the last step's mapping left as it was.
    void update(const std::uint32_t* ids, std::uint32_t count);
    /// Appends `id` as the next dense index (for callers that edit one entity at a time);
    /// returns its slot. Throws std::invalid_argument if it is present.
    std::uint32_t insert(std::uint32_t id);
    /// Removes `id`; the last dense index takes its place, as a world swap-removes. Returns
    /// the freed slot. Throws std::invalid_argument if it is absent.
    std::uint32_t remove(std::uint32_t id);
    /// For a technique inside another (a layer, auto): the ids it is handed are the outer
    /// technique's slots already (unique, below `slotLimit`, a freed one reused only from a
    /// later update), so they are its slots as they are: copied, not mapped. Returns the array
    /// of `count` slots for the caller to copy them into (in parts, on several threads).
    /// `newIds` is the outer's newIdCount(). Forgets any mapping of update(); the next
    /// update() starts afresh, and insert(), remove() and slotOf() throw std::logic_error until then.
    [[nodiscard]] std::uint32_t* adopt(std::uint32_t count, std::uint32_t slotLimit, std::uint32_t newIds);
    /// Whether ids[begin, end) are the last update's ids at the same indices (the caller
    /// checks the count): for a caller that compares in parts, on several threads.
    [[nodiscard]] bool sameIds(const std::uint32_t* ids, std::uint32_t begin, std::uint32_t end) const {
        if (m_adopted || end > m_ids.size()) return false;
        return std::equal(ids + begin, ids + end, m_ids.begin() + begin);
    }
    /// update() for ids that sameIds() found to be the last update's, every one.
    void keepIds() { m_newIds.clear(); }

    /// How many ids the last update() met for the first time (0 after an edit).
    [[nodiscard]] std::uint32_t newIdCount() const {
        return m_adopted ? m_adoptedNewIds : static_cast<std::uint32_t>(m_newIds.size());
    }
    /// Slots by dense index, after the last update (or edit).
    [[nodiscard]] const std::uint32_t* slots() const { return m_slots.data(); }
    [[nodiscard]] std::uint32_t count() const { return static_cast<std::uint32_t>(m_slots.size()); }
    /// Every slot handed out is below this: the size of a table indexed by slot.
    [[nodiscard]] std::uint32_t slotLimit() const {
        return m_adopted ? m_adoptedLimit : static_cast<std::uint32_t>(m_denseOfSlot.size());
    }
    [[nodiscard]] std::optional<std::uint32_t> slotOf(std::uint32_t id) const;
    [[nodiscard]] std::uint64_t bytesHeld() const;

private:
    std::uint32_t allocateSlot();
    /// Leaves adopted slots for a mapping of its own, from scratch.
    void stopAdopting();
    void checkNotAdopted(const char* call) const;

    static constexpr std::uint32_t kNew = IdMap::kAbsent;

    IdMap m_slotOfId;
    std::vector<std::uint32_t> m_ids;          ///< by dense index: the ids of the last update
    std::vector<std::uint32_t> m_slots;        ///< by dense index
    std::vector<std::uint32_t> m_denseOfSlot;  ///< by slot: its dense index
    std::vector<std::uint32_t> m_claimed;      ///< by slot: the update whose ids hold it
    std::vector<std::uint32_t> m_free;         ///< slots to hand out again
    std::vector<std::uint32_t> m_freedNow;     ///< slots freed by this update (free from the next)
    std::vector<std::uint32_t> m_changed;      ///< dense indices whose id differs from the last step's
    std::vector<std::uint32_t> m_changedSlot;  ///< their slots, or kNew
    std::vector<std::uint32_t> m_newIds;       ///< scratch: the ids seen for the first time
    std::uint32_t m_stamp = 0;
    bool m_adopted = false;  ///< the slots are an outer technique's (adopt)
    std::uint32_t m_adoptedLimit = 0, m_adoptedNewIds = 0;
};

}  // namespace ro
