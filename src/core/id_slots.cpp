#include "core/id_slots.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/buffers.h"

namespace ro {
namespace {

[[noreturn]] void throwRepeated(std::uint32_t id) {
    throw std::invalid_argument("entity id " + std::to_string(id) + " appears twice");
}

}  // namespace

std::uint32_t* IdSlots::adopt(std::uint32_t count, std::uint32_t slotLimit, std::uint32_t newIds) {
    if (!m_adopted) {
        *this = IdSlots{};  // the mapping's tables hold nothing while adopting
        m_adopted = true;
    }
    resizeWithHeadroom(m_slots, count);
    m_adoptedLimit = slotLimit;
    m_adoptedNewIds = newIds;
    return m_slots.data();
}

void IdSlots::stopAdopting() {
    if (!m_adopted) return;
    *this = IdSlots{};
}

void IdSlots::checkNotAdopted(const char* call) const {
    if (m_adopted) throw std::logic_error(std::string("IdSlots::") + call + ": the slots are adopted from an outer technique");
}

void IdSlots::update(const std::uint32_t* ids, std::uint32_t count) {
    if (count > 0 && ids == nullptr) throw std::invalid_argument("boxes need their entity ids");
    stopAdopting();
    const auto lastCount = static_cast<std::uint32_t>(m_ids.size());
    m_newIds.clear();
    if (count == lastCount && (count == 0 || std::equal(ids, ids + count, m_ids.begin()))) return;

    if (++m_stamp == 0) {  // wrapped: forget every claim once
        std::fill(m_claimed.begin(), m_claimed.end(), 0);
        m_stamp = 1;
    }
    // 1. Look up every id whose dense index changed and prove the ids unique, changing nothing
    //    but this update's claims, so a refused step leaves the mapping as it was.
    m_changed.clear();
    m_changedSlot.clear();
    m_newIds.clear();
    // Scratch sized by its bound, not by this step's churn: a step that changes more ids than
    // any before must not allocate.
    reserveWithHeadroom(m_changed, count);
    reserveWithHeadroom(m_changedSlot, count);
    reserveWithHeadroom(m_newIds, count);
    reserveWithHeadroom(m_freedNow, lastCount);
    // Under churn a step changes a few indices among many: blocks of unchanged ids cost a
    // compare of contiguous memory.
    const std::uint32_t common = std::min(count, lastCount);
    constexpr std::uint32_t kBlock = 256;
    for (std::uint32_t begin = 0; begin < common; begin += kBlock) {
        const std::uint32_t end = std::min(common, begin + kBlock);
        if (std::equal(ids + begin, ids + end, m_ids.begin() + begin)) continue;
        for (std::uint32_t i = begin; i < end; ++i)
            if (ids[i] != m_ids[i]) m_changed.push_back(i);
    }
    for (std::uint32_t i = common; i < count; ++i) m_changed.push_back(i);
    // The lookups land at random places in a table larger than the caches: fetched ahead.
    constexpr std::size_t kAhead = 8;
    for (std::size_t k = 0; k < std::min(kAhead, m_changed.size()); ++k) m_slotOfId.prefetch(ids[m_changed[k]]);
    for (std::size_t k = 0; k < m_changed.size(); ++k) {
        if (k + kAhead < m_changed.size()) m_slotOfId.prefetch(ids[m_changed[k + kAhead]]);
        const std::uint32_t i = m_changed[k];
        const std::uint32_t id = ids[i];
        const std::uint32_t slot = m_slotOfId.find(id);
        if (slot != IdMap::kAbsent) {
            // Taken already: by another changed index, or still at its old, unchanged index.
            const std::uint32_t old = m_denseOfSlot[slot];
            if (m_claimed[slot] == m_stamp || (old < count && old != i && ids[old] == id)) throwRepeated(id);
            m_claimed[slot] = m_stamp;
        } else {
            m_newIds.push_back(id);
        }
        m_changedSlot.push_back(slot);
    }
    if (m_newIds.size() > 1) {
        std::sort(m_newIds.begin(), m_newIds.end());
        const auto repeat = std::adjacent_find(m_newIds.begin(), m_newIds.end());
        if (repeat != m_newIds.end()) throwRepeated(*repeat);
    }

    // 2. Free the slots of the ids that vanished: they stood at a changed index, or past the
    //    new end, and no index of this step claimed them.
    m_freedNow.clear();
    const auto release = [&](std::uint32_t i) {
        const std::uint32_t slot = m_slots[i];
        if (m_claimed[slot] == m_stamp) return;  // moved to another index
        m_slotOfId.erase(m_ids[i]);
        m_freedNow.push_back(slot);
    };
    for (const std::uint32_t i : m_changed)
        if (i < lastCount) release(i);
    for (std::uint32_t i = count; i < lastCount; ++i) release(i);

    // 3. Give every changed index its slot, a new one where its id is new.
    resizeWithHeadroom(m_ids, count);
    resizeWithHeadroom(m_slots, count);
    for (std::size_t k = 0; k < m_changed.size(); ++k) {
        const std::uint32_t i = m_changed[k];
        std::uint32_t slot = m_changedSlot[k];
        if (slot == kNew) {
            slot = allocateSlot();
            m_slotOfId.set(ids[i], slot);
            m_claimed[slot] = m_stamp;
        }
        m_ids[i] = ids[i];
        m_slots[i] = slot;
        m_denseOfSlot[slot] = i;
    }
    reserveWithHeadroom(m_free, m_denseOfSlot.size());  // never more free slots than slots
    m_free.insert(m_free.end(), m_freedNow.begin(), m_freedNow.end());
}

std::uint32_t IdSlots::allocateSlot() {
    if (!m_free.empty()) {
        const std::uint32_t slot = m_free.back();
        m_free.pop_back();
        return slot;
    }
    const auto slot = static_cast<std::uint32_t>(m_denseOfSlot.size());
    if (slot == kNew) throw std::length_error("more live entities than slots");
    resizeWithHeadroom(m_denseOfSlot, std::size_t{slot} + 1);
    resizeWithHeadroom(m_claimed, std::size_t{slot} + 1);
    m_claimed[slot] = 0;
    return slot;
}

std::uint32_t IdSlots::insert(std::uint32_t id) {
    checkNotAdopted("insert");
    if (m_slotOfId.find(id) != IdMap::kAbsent)
        throw std::invalid_argument("entity " + std::to_string(id) + " is present already");
    const std::uint32_t slot = allocateSlot();
    m_slotOfId.set(id, slot);
    m_denseOfSlot[slot] = count();
    m_ids.push_back(id);
    m_slots.push_back(slot);
    return slot;
}

std::uint32_t IdSlots::remove(std::uint32_t id) {
    checkNotAdopted("remove");
    const std::uint32_t slot = m_slotOfId.find(id);
    if (slot == IdMap::kAbsent) throw std::invalid_argument("entity " + std::to_string(id) + " is not present");
    const std::uint32_t dense = m_denseOfSlot[slot];
    m_ids[dense] = m_ids.back();
    m_slots[dense] = m_slots.back();
    m_denseOfSlot[m_slots[dense]] = dense;
    m_ids.pop_back();
    m_slots.pop_back();
    m_slotOfId.erase(id);
    m_free.push_back(slot);
    return slot;
}

std::optional<std::uint32_t> IdSlots::slotOf(std::uint32_t id) const {
    checkNotAdopted("slotOf");
    const std::uint32_t slot = m_slotOfId.find(id);
    if (slot == IdMap::kAbsent) return std::nullopt;
    return slot;
}

std::uint64_t IdSlots::bytesHeld() const {
    return m_slotOfId.bytesHeld() + ro::bytesHeld(m_ids) + ro::bytesHeld(m_slots) + ro::bytesHeld(m_denseOfSlot) +
           ro::bytesHeld(m_claimed) + ro::bytesHeld(m_free) + ro::bytesHeld(m_freedNow) + ro::bytesHeld(m_changed) +
           ro::bytesHeld(m_changedSlot) + ro::bytesHeld(m_newIds);
}

}  // namespace ro
