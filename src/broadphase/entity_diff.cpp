#include "broadphase/entity_diff.h"

#include <algorithm>

#include "core/buffers.h"

namespace ro {

void EntityDiff::track(const BoxView& boxes) {
    m_added.clear();
    m_removed.clear();
    const auto previousCount = static_cast<std::uint32_t>(m_previousIds.size());
    m_unchanged = boxes.count == previousCount && std::equal(boxes.ids, boxes.ids + boxes.count, m_previousIds.begin());
    if (m_unchanged) return;  // m_denseOfId already holds these ids at these indices

    std::uint32_t maxId = 0;
    for (std::uint32_t i = 0; i < boxes.count; ++i) maxId = std::max(maxId, boxes.ids[i]);
    if (boxes.count > 0 && maxId >= m_denseOfId.size()) {
        const std::size_t size = static_cast<std::size_t>(maxId) + 1;
        if (size > m_denseOfId.capacity()) m_denseOfId.reserve(size + size / 2);
        m_denseOfId.resize(size, kGone);
    }
    // An entry of m_denseOfId may be stale (its entity was removed, its index reused); it is
    // believed only when the id at that index agrees, which ids being unique (update() checks) makes exact.
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        const std::uint32_t id = boxes.ids[i];
        const std::uint32_t old = m_denseOfId[id];
        if (!(old < previousCount && m_previousIds[old] == id)) m_added.push_back(i);
        m_denseOfId[id] = i;
    }
    resizeWithHeadroom(m_newIndexOfOld, previousCount);
    for (std::uint32_t old = 0; old < previousCount; ++old) {
        const std::uint32_t now = m_denseOfId[m_previousIds[old]];
        m_newIndexOfOld[old] = now < boxes.count && boxes.ids[now] == m_previousIds[old] ? now : kGone;
        if (m_newIndexOfOld[old] == kGone) m_removed.push_back(m_previousIds[old]);
    }
    resizeWithHeadroom(m_previousIds, boxes.count);
    std::copy(boxes.ids, boxes.ids + boxes.count, m_previousIds.begin());
}

void EntityDiff::append(std::uint32_t id) {
    if (id >= m_denseOfId.size()) resizeWithHeadroom(m_denseOfId, std::size_t{id} + 1);
    m_denseOfId[id] = static_cast<std::uint32_t>(m_previousIds.size());
    m_previousIds.push_back(id);
}

void EntityDiff::swapRemove(std::uint32_t dense) {
    m_previousIds[dense] = m_previousIds.back();
    m_denseOfId[m_previousIds[dense]] = dense;
    m_previousIds.pop_back();
}

std::uint64_t EntityDiff::bytesHeld() const {
    return ro::bytesHeld(m_previousIds) + ro::bytesHeld(m_denseOfId) + ro::bytesHeld(m_newIndexOfOld) +
           ro::bytesHeld(m_added) + ro::bytesHeld(m_removed);
}

}  // namespace ro
