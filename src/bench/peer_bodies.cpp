#include "bench/peer_bodies.h"

#include <algorithm>

namespace ro::bench {

PeerBodies::Kind PeerBodies::kindOf(const BoxView& boxes, std::uint32_t i) {
    Kind kind;
    kind.isStatic = boxes.isStatic != nullptr && boxes.isStatic[i] != 0 ? 1 : 0;
    if (boxes.category != nullptr) kind.category = boxes.category[i], kind.mask = boxes.mask[i];
    return kind;
}

void PeerBodies::update(const BoxView& boxes) {
    const std::uint32_t n = boxes.count;
    m_created.clear();
    m_destroyed.clear();
    m_same = !m_slotOf.empty() && n == m_ids.size() && std::equal(boxes.ids, boxes.ids + n, m_ids.begin());
    if (m_same)
        for (std::uint32_t i = 0; i < n && m_same; ++i) m_same = kindOf(boxes, i) == m_kinds[i];
    if (m_same) {
        std::fill(m_isCreated.begin(), m_isCreated.end(), 0);
        return;
    }

    // Bodies still alive keep their slots; the others' slots are freed before new bodies take any.
    std::fill(m_seen.begin(), m_seen.end(), 0);
    m_slotOf.assign(n, 0);
    m_isCreated.assign(n, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto found = m_slotById.find(boxes.ids[i]);
        if (found != m_slotById.end() && m_kinds[m_indexOf[found->second]] == kindOf(boxes, i)) {
            m_slotOf[i] = found->second;
            m_seen[found->second] = 1;
        } else {
            m_isCreated[i] = 1;
            m_created.push_back(i);
        }
    }
    for (const std::uint32_t id : m_ids) {
        const std::uint32_t slot = m_slotById.at(id);
        if (m_seen[slot] != 0) continue;
        m_destroyed.push_back(slot);
        m_freeSlots.push_back(slot);
        m_slotById.erase(id);
    }
    for (const std::uint32_t i : m_created) {
        std::uint32_t slot = 0;
        if (!m_freeSlots.empty()) {
            slot = m_freeSlots.back();
            m_freeSlots.pop_back();
        } else {
            slot = static_cast<std::uint32_t>(m_indexOf.size());
            m_indexOf.push_back(0);
            m_seen.push_back(0);
        }
        m_slotOf[i] = slot;
        m_slotById[boxes.ids[i]] = slot;
    }
    m_identity = m_indexOf.size() == n;
    for (std::uint32_t i = 0; i < n; ++i) {
        m_indexOf[m_slotOf[i]] = i;
        m_identity = m_identity && m_slotOf[i] == i;
    }
    m_ids.assign(boxes.ids, boxes.ids + n);
    m_kinds.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) m_kinds[i] = kindOf(boxes, i);
}

}  // namespace ro::bench
