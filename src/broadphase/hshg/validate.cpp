// HierarchicalGrid::validate: every invariant of the structure the last update built.

#include <algorithm>
#include <cstring>
#include <string>

#include "broadphase/hshg/hshg.h"
#include "broadphase/hshg/lookups.h"

namespace ro {

std::string HierarchicalGrid::validate() const {
    const std::uint32_t count = m_boxes.count;
    if (m_placed + m_oversized.size() != count) return "placed and oversized entities do not add up to the count";
    if (m_placed > 0 && (m_keys.size() < m_placed + kWindow ||
                         std::any_of(m_keys.begin() + m_placed, m_keys.end(), [](auto k) { return k != kEndKey; })))
        return "the sorted keys lack their sentinels";
    const auto at = [](std::uint32_t s) { return " (slot " + std::to_string(s) + ")"; };
    std::vector<std::uint8_t> seen(count, 0);
    for (std::uint32_t s = 0; s < m_placed; ++s) {
        const std::uint64_t key = m_keys[s];
        if (s > 0 && key < m_keys[s - 1]) return "keys out of order" + at(s);
        const std::uint32_t level = levelOfKey(key);
        if (level >= kMaxLevels) return "a key names no level" + at(s);
        const Level& lv = m_levels[level];
        if (s < lv.begin || s >= lv.end) return "a slot lies outside its level's range" + at(s);
        const Aabb box = m_slotBoxes[s].box();
        if (!fitsLevels(box) || levelFor(sideOf(box)) != level)
            return "an entity is on level " + std::to_string(level) + ", not the one its size picks" + at(s);
        if (cellOf(box.minX, lv.inverse) != columnOfKey(key) || cellOf(box.minY, lv.inverse) != rowOfKey(key))
            return "an entity is not in the cell of its min corner" + at(s);
        const std::uint32_t id = m_ids[s];
        if (id >= m_state.size()) return "a slot names an unknown id" + at(s);
        const IdState& st = m_state[id];
        if (st.key != key || st.dense != m_slotDense[s] || st.dense >= count || m_boxes.ids[st.dense] != id ||
            std::memcmp(&st.box, &box, sizeof(Aabb)) != 0)
            return "the record of id " + std::to_string(id) + " disagrees with its slot" + at(s);
        const std::uint32_t i = m_slotDense[s];
        if (i >= count) return "a dense index is out of range" + at(s);
        if (seen[i]++) return "entity " + std::to_string(i) + " is in two cells";
    }
    for (const std::uint32_t i : m_oversized) {
        if (i >= count || seen[i]++) return "an oversized entity is out of range or also in a cell";
        if (fitsLevels(m_boxes.box(i))) return "entity " + std::to_string(i) + " fits the levels but skips them";
    }
    for (std::uint32_t i = 0; i < count; ++i)
        if (!seen[i]) return "entity " + std::to_string(i) + " is in no cell";

    for (std::uint32_t level = 0; level < kMaxLevels; ++level) {
        const Level& lv = m_levels[level];
        if (lv.begin != (level == 0 ? 0 : m_levels[level - 1].end) || lv.end < lv.begin)
            return "level ranges are not contiguous at level " + std::to_string(level);
        if (((m_populated >> level) & 1u) != (lv.end > lv.begin ? 1u : 0u)) return "the populated levels are wrong";
        if (level > 0 && !(lv.size >= m_levels[level - 1].size * m_factor * (1.0 - 1.0e-12)))
            return "level sizes do not grow by the factor at level " + std::to_string(level);
        for (std::uint32_t other = 0; other < level; ++other) {
            const bool up = (m_levels[other].targets >> level) & 1u;
            const bool down = (lv.targets >> other) & 1u;
            const bool both = ((m_populated >> other) & (m_populated >> level) & 1u) != 0;
            if (both ? up == down : up || down)
                return "levels " + std::to_string(other) + " and " + std::to_string(level) +
                       " are not searched in exactly one direction";
        }
        if (!lv.hasTable) continue;
        const std::uint32_t* table = m_table.data() + lv.tableBegin;
        const std::uint64_t blocks = std::uint64_t{lv.rowBlocks} * lv.height;
        for (std::uint64_t block = 0; block <= blocks; ++block) {
            std::uint32_t first = lv.end;
            if (block < blocks) {
                const auto x = static_cast<std::int32_t>(lv.x0 + static_cast<std::int64_t>((block % lv.rowBlocks) << lv.blockShift));
                const auto y = static_cast<std::int32_t>(lv.y0 + static_cast<std::int64_t>(block / lv.rowBlocks));
                first = static_cast<std::uint32_t>(
                    std::lower_bound(m_keys.begin() + lv.begin, m_keys.begin() + lv.end, packKey(level, x, y)) -
                    m_keys.begin());
            }
            if (table[block] != first) return "the cell table of level " + std::to_string(level) + " is wrong";
        }
        if (table[0] != lv.begin) return "the cell table of level " + std::to_string(level) + " misses entities";
    }
    if (m_levels[kMaxLevels - 1].size < m_levels[kMaxLevels - 2].size) return "the top level is smaller than the one below";
    return {};
}

}  // namespace ro
