#include "broadphase/entity_diff.h"

#include <algorithm>
#include <numeric>

#include "broadphase/threads.h"
#include "core/buffers.h"

namespace ro {

void EntityDiff::track(const BoxView& boxes, PassArena* passes) {
    m_added.clear();
    m_removed.clear();
    // Last step's answers go back to "stayed where it was" before this step's are written.
    for (const std::uint32_t old : m_patched) m_newIndexOfOld[old] = old;
    m_patched.clear();
    const auto previousCount = static_cast<std::uint32_t>(m_previousIds.size());
    const std::uint32_t common = std::min(boxes.count, previousCount);

    // 1. The indices whose id differs from last step's, found block by block: under churn a
    //    step changes a few indices among many, and the blocks that did not change cost a
    //    compare of contiguous memory.
    m_changed.clear();
    // Lists sized by their bounds, not by this step's churn: a step that changes more ids
    // than any before must not allocate.
    reserveWithHeadroom(m_changed, boxes.count);
    reserveWithHeadroom(m_added, boxes.count);
    reserveWithHeadroom(m_removed, previousCount);
    reserveWithHeadroom(m_patched, previousCount);
    // The same ids as last step (most steps): proved in parts on several threads.
    if (passes != nullptr && boxes.count == previousCount && boxes.count >= kMinParallelCount &&
        inEveryPart(passes, boxes.count, [&](std::uint32_t begin, std::uint32_t end) {
            return std::equal(boxes.ids + begin, boxes.ids + end, m_previousIds.begin() + begin);
        })) {
        m_unchanged = true;
        return;
    }
    constexpr std::uint32_t kBlock = 256;
    for (std::uint32_t begin = 0; begin < common; begin += kBlock) {
        const std::uint32_t end = std::min(common, begin + kBlock);
        if (std::equal(boxes.ids + begin, boxes.ids + end, m_previousIds.begin() + begin)) continue;
        for (std::uint32_t i = begin; i < end; ++i)
            if (boxes.ids[i] != m_previousIds[i]) m_changed.push_back(i);
    }
    m_unchanged = m_changed.empty() && boxes.count == previousCount;
    if (m_unchanged) return;  // m_denseOfId already holds these ids at these indices
    for (std::uint32_t i = common; i < boxes.count; ++i) m_changed.push_back(i);

    // Every index below the largest count seen stays where it was unless patched below.
    if (previousCount > m_newIndexOfOld.size()) {
        const auto identityUpTo = static_cast<std::uint32_t>(m_newIndexOfOld.size());
        resizeWithHeadroom(m_newIndexOfOld, previousCount);
        std::iota(m_newIndexOfOld.begin() + identityUpTo, m_newIndexOfOld.end(), identityUpTo);
    }

    // 2. A changed index holds an entity that moved there or a new one. An entry of
    //    m_denseOfId may be stale (its entity was removed, its index reused); it is believed
    //    only when the id at that index agrees, which ids being unique (update() checks)
    //    makes exact.
    for (const std::uint32_t i : m_changed) {
        const std::uint32_t id = boxes.ids[i];
        if (id >= m_denseOfId.size()) {
            const std::size_t size = std::size_t{id} + 1;
            if (size > m_denseOfId.capacity()) m_denseOfId.reserve(size + size / 2);
            m_denseOfId.resize(size, kGone);
        }
        const std::uint32_t old = m_denseOfId[id];
        if (!(old < previousCount && m_previousIds[old] == id)) m_added.push_back(i);
        m_denseOfId[id] = i;
    }
    // 3. Last step's entity at a changed index, or past the new end, moved or went.
    const auto follow = [&](std::uint32_t old) {
        const std::uint32_t id = m_previousIds[old];
        const std::uint32_t now = m_denseOfId[id];
        const bool stayed = now < boxes.count && boxes.ids[now] == id;
        m_newIndexOfOld[old] = stayed ? now : kGone;
        m_patched.push_back(old);
        if (!stayed) m_removed.push_back(id);
    };
    for (const std::uint32_t i : m_changed) {
        if (i >= previousCount) break;  // the rest are past last step's end
        follow(i);
    }
    for (std::uint32_t old = boxes.count; old < previousCount; ++old) follow(old);

    resizeWithHeadroom(m_previousIds, boxes.count);
    for (const std::uint32_t i : m_changed) m_previousIds[i] = boxes.ids[i];
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
           ro::bytesHeld(m_added) + ro::bytesHeld(m_removed) + ro::bytesHeld(m_changed) + ro::bytesHeld(m_patched);
}

}  // namespace ro
