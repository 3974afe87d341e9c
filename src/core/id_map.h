#pragma once
/// A map from 32-bit entity ids to 32-bit values whose memory follows the number of live
/// entries, not the largest id ever seen: a vector indexed by id would hold 16 GB for one
/// entity with id 4e9. Open addressing with linear probing and backward-shift deletion, so
/// there are no tombstones and a long churn of adds and removes keeps it compact.

#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/buffers.h"

namespace ro {

class IdMap {
public:
    static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

    /// The value stored for `id`, or kAbsent.
    [[nodiscard]] std::uint32_t find(std::uint32_t id) const {
        if (m_size == 0) return kAbsent;
        for (std::size_t s = home(id);; s = (s + 1) & m_mask) {
            const Entry& e = m_entries[s];
            if (e.value == kAbsent) return kAbsent;
            if (e.id == id) return e.value;
        }
    }
    /// Asks the cache for the place a find(id) starts, ahead of it.
    void prefetch(std::uint32_t id) const {
        if (m_size != 0) __builtin_prefetch(&m_entries[home(id)]);
    }
    /// Sets the value of `id` (kAbsent is not a storable value), inserting it if new.
    void set(std::uint32_t id, std::uint32_t value) {
        if (2 * (m_size + 1) > m_entries.size()) rehash(std::max<std::size_t>(16, 2 * m_entries.size()));
        for (std::size_t s = home(id);; s = (s + 1) & m_mask) {
            Entry& e = m_entries[s];
            if (e.value == kAbsent) {
                e = {id, value};
                ++m_size;
                return;
            }
            if (e.id == id) {
                e.value = value;
                return;
            }
        }
    }
    /// Removes `id`; false if it was not there.
    bool erase(std::uint32_t id) {
        if (m_size == 0) return false;
        std::size_t hole = home(id);
        for (;; hole = (hole + 1) & m_mask) {
            if (m_entries[hole].value == kAbsent) return false;
            if (m_entries[hole].id == id) break;
        }
        // Backward shift: pull later entries of the probe run into the hole when their home
        // does not lie cyclically in (hole, s].
        for (std::size_t s = (hole + 1) & m_mask; m_entries[s].value != kAbsent; s = (s + 1) & m_mask) {
            const std::size_t want = home(m_entries[s].id);
            const bool stays = hole < s ? (hole < want && want <= s) : (hole < want || want <= s);
            if (stays) continue;
            m_entries[hole] = m_entries[s];
            hole = s;
        }
        m_entries[hole].value = kAbsent;
        --m_size;
        // Shrink once mostly empty, so memory follows the live entries after a peak.
        if (m_entries.size() > 64 && 8 * m_size < m_entries.size()) rehash(m_entries.size() / 2);
        return true;
    }
    void clear() {
        m_entries.clear();
        m_entries.shrink_to_fit();
        m_mask = 0;
        m_size = 0;
    }
    [[nodiscard]] std::size_t size() const { return m_size; }
    [[nodiscard]] std::uint64_t bytesHeld() const { return ro::bytesHeld(m_entries); }

private:
    struct Entry {
        std::uint32_t id = 0;
        std::uint32_t value = kAbsent;
    };

    [[nodiscard]] std::size_t home(std::uint32_t id) const {
        // Fibonacci hashing: ids that are consecutive spread over the whole table.
        return static_cast<std::size_t>((static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> 32) & m_mask;
    }
    void rehash(std::size_t capacity) {
        std::vector<Entry> old;
        old.swap(m_entries);
        m_entries.assign(std::bit_ceil(capacity), Entry{});
        m_mask = m_entries.size() - 1;
        m_size = 0;
        for (const Entry& e : old)
            if (e.value != kAbsent) set(e.id, e.value);
    }

    std::vector<Entry> m_entries;
    std::size_t m_mask = 0;
    std::size_t m_size = 0;
};

}  // namespace ro
