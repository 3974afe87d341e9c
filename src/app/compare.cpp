#include "app/compare.h"

#include <algorithm>
#include <chrono>

#include "core/pair_sort.h"
#include "ro/aabb.h"
#include "core/alloc_counter.h"

namespace ro::app {
namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

/// The first pair in which two sorted lists differ, and whether `reference` is the one that has it.
std::optional<std::pair<Pair, bool>> firstDifference(const std::vector<Pair>& reference, const std::vector<Pair>& found) {
    std::size_t i = 0, j = 0;
    while (i < reference.size() && j < found.size()) {
        if (reference[i] == found[j]) {
            ++i, ++j;
        } else if (reference[i] < found[j]) {
            return std::pair{reference[i], true};
        } else {
            return std::pair{found[j], false};
        }
    }
    if (i < reference.size()) return std::pair{reference[i], true};
    if (j < found.size()) return std::pair{found[j], false};
    return std::nullopt;
}

/// Registry order, then any technique that is not a registry row (a test's).
std::size_t registryRank(const TechniqueInfo* technique) {
    const auto all = techniques();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (&all[i] == technique) return i;
    return all.size();
}

}  // namespace

void Compare::setPicked(const TechniqueInfo& technique, bool picked) {
    const auto at = std::find_if(m_rows.begin(), m_rows.end(), [&](const Row& r) { return r.technique == &technique; });
    if (!picked) {
        if (at != m_rows.end()) m_rows.erase(at);
        return;
    }
    if (at != m_rows.end()) return;
    Row row;
    row.technique = &technique;
    row.instance = technique.create();
    if (m_configured) row.instance->configure(m_settings);
    // In registry order, whatever order they were picked in.
    const auto before = std::find_if(m_rows.begin(), m_rows.end(), [&](const Row& r) {
        return registryRank(r.technique) > registryRank(&technique);
    });
    m_rows.insert(before, std::move(row));
}

bool Compare::picked(const TechniqueInfo& technique) const {
    return std::any_of(m_rows.begin(), m_rows.end(), [&](const Row& r) { return r.technique == &technique; });
}

void Compare::resetHistory() {
    for (Row& row : m_rows) {
        row.msUpdate = {};
        row.msPairs = {};
        row.history = {};
        row.ticks = row.mismatchTicks = 0;
        row.firstMismatch.reset();
        row.lastMismatch.reset();
    }
    m_referenceDisagreements = 0;
}

void Compare::configureAll(const Settings& settings) {
    if (m_configured && settings == m_settings) return;
    m_settings = settings;
    m_configured = true;
    for (Row& row : m_rows) row.instance->configure(settings);
    for (auto* reference : {&m_brute, &m_hshg, &m_grid})
        if (*reference) (*reference)->configure(settings);
}

void Compare::overlapsOf(BroadPhase& technique, const BoxView& boxes, std::vector<Pair>& candidates,
                         std::vector<Pair>& out, Row* row) {
    const std::uint64_t allocsBefore = heapAllocationCount();
    const auto t0 = Clock::now();
    technique.update(boxes);
    const auto t1 = Clock::now();
    technique.findPairs(candidates);
    // The exact test every caller ends with (the world's too), unless the pairs are exact.
    out.clear();
    if (technique.pairsAreExact()) {
        out.assign(candidates.begin(), candidates.end());
    } else {
        for (const Pair& p : candidates)
            if (overlaps(boxes.box(p.a), boxes.box(p.b))) out.push_back(p);
    }
    const auto t2 = Clock::now();
    technique.setHeapAllocations(heapAllocationCount() - allocsBefore);
    if (row) {
        row->msUpdate.add(msBetween(t0, t1));
        row->msPairs.add(msBetween(t1, t2));
        row->lastMs = msBetween(t0, t2);
    }
    sortPairsCanonical(out, boxes.count, m_sortScratch, m_sortOffsets);
}

std::span<const std::pair<const Compare::Row*, Mismatch>> Compare::run(const BoxView& boxes, const Settings& settings,
                                                                       std::uint64_t tick) {
    m_tickMismatches.clear();
    if (m_rows.empty()) return m_tickMismatches;
    configureAll(settings);
    auto reference = [&](std::unique_ptr<BroadPhase>& slot, std::string_view id) -> BroadPhase& {
        if (!slot) {
            slot = findTechnique(id)->create();
            slot->configure(m_settings);
        }
        return *slot;
    };
    if (boxes.count <= kBruteReferenceLimit) {
        m_referenceName = "brute";
        overlapsOf(reference(m_brute, "brute"), boxes, m_scratchCandidates, m_reference, nullptr);
    } else {
        // Two techniques that share no code: where they agree, both are right or both wrong alike.
        m_referenceName = "hshg+grid";
        overlapsOf(reference(m_hshg, "hshg"), boxes, m_scratchCandidates, m_reference, nullptr);
        overlapsOf(reference(m_grid, "grid"), boxes, m_scratchCandidates, m_crossCheck, nullptr);
        if (m_reference != m_crossCheck) ++m_referenceDisagreements;
    }

    const std::size_t count = m_rows.size();
    m_firstToRun = m_firstToRun % count;
    for (std::size_t k = 0; k < count; ++k) {
        Row& row = m_rows[(m_firstToRun + k) % count];
        row.skipped = row.technique->maxEntities != 0 && boxes.count > row.technique->maxEntities;
        if (row.skipped) continue;
        overlapsOf(*row.instance, boxes, row.candidates, row.found, &row);
        row.counters = row.instance->counters();
        row.overlaps = row.found.size();
        row.history.add(tick, static_cast<float>(row.lastMs), static_cast<float>(row.counters.bytesHeld));
        ++row.ticks;
        if (const auto difference = firstDifference(m_reference, row.found)) {
            const Mismatch mismatch{tick, difference->first, difference->second};
            ++row.mismatchTicks;
            if (!row.firstMismatch) row.firstMismatch = mismatch;
            row.lastMismatch = mismatch;
            m_tickMismatches.emplace_back(&row, mismatch);
        }
    }
    ++m_firstToRun;
    return m_tickMismatches;
}

}  // namespace ro::app
