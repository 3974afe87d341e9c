#pragma once
/// Compare: several techniques beside the world's own, fed the same boxes every tick, each
/// one's overlap pairs checked as a set against a reference. No SDL or ImGui here: the panel
/// shows the rows, and `ro_demo --compare` prints them.

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "app/rolling.h"
#include "ro/registry.h"

namespace ro::app {

/// A pair one technique got wrong at one tick: the reference has it and the technique does not
/// (missing), or the other way round (extra, which includes a pair reported twice).
struct Mismatch {
    std::uint64_t tick = 0;
    Pair pair;  ///< dense indices of that tick's boxes
    bool missing = false;
};

class Compare {
public:
    /// Up to this many entities the reference is brute force (4.5 million tests, a few ms);
    /// above, it is the HSHG, cross-checked against the grid every tick.
    static constexpr std::uint32_t kBruteReferenceLimit = 3000;

    /// Ticks of history kept per row: 10 seconds at 60 Hz.
    static constexpr std::size_t kHistory = 600;

    /// The last kHistory ticks of one row, oldest first once full (a ring, no allocation per tick).
    struct History {
        std::array<float, kHistory> ms{};     ///< update + pair finding
        std::array<float, kHistory> bytes{};  ///< memory held
        std::array<std::uint64_t, kHistory> tick{};
        std::size_t next = 0, count = 0;
        void add(std::uint64_t t, float msValue, float bytesValue) {
            tick[next] = t;
            ms[next] = msValue;
            bytes[next] = bytesValue;
            next = (next + 1) % kHistory;
            count = std::min(count + 1, kHistory);
        }
        /// The i-th sample, oldest first.
        [[nodiscard]] std::size_t at(std::size_t i) const { return (next + kHistory - count + i) % kHistory; }
    };

    struct Row {
        const TechniqueInfo* technique = nullptr;
        std::unique_ptr<BroadPhase> instance;
        bool skipped = false;  ///< the population is over the technique's limit (brute force)
        RollingMedian<> msUpdate, msPairs;  ///< the last 60 ticks: a second at 60 Hz
        Counters counters;
        std::uint64_t overlaps = 0;
        std::uint64_t ticks = 0;
        std::uint64_t mismatchTicks = 0;  ///< ticks with at least one wrong pair
        std::optional<Mismatch> firstMismatch, lastMismatch;
        History history;
        double lastMs = 0.0;  ///< update + pair finding of the last run
        std::vector<Pair> candidates, found;  ///< reused every tick
    };

    /// Adds a technique to the comparison (again is a no-op), or takes it out.
    void setPicked(const TechniqueInfo& technique, bool picked);
    [[nodiscard]] bool picked(const TechniqueInfo& technique) const;
    [[nodiscard]] bool empty() const { return m_rows.empty(); }
    [[nodiscard]] std::span<const Row> rows() const { return m_rows; }

    /// Feeds `boxes` (the world's, as its own technique gets them) to every picked technique,
    /// in an order that turns by one every call so none always runs first (caches, clocks), and
    /// compares each one's overlaps with the reference's. Returns the mismatches of this tick
    /// (empty when every technique agreed). Settings are applied when they change.
    std::span<const std::pair<const Row*, Mismatch>> run(const BoxView& boxes, const Settings& settings,
                                                         std::uint64_t tick);
    /// "brute" or "hshg+grid": what the last run checked against.
    [[nodiscard]] std::string_view referenceName() const { return m_referenceName; }
    /// Ticks at which the HSHG and the grid disagreed (both cannot be right).
    [[nodiscard]] std::uint64_t referenceDisagreements() const { return m_referenceDisagreements; }
    /// Forgets every row's history (after a new scene or count): the medians describe the scene shown.
    void resetHistory();

private:
    /// One technique's overlap pairs, sorted, into `out`; its times into `row` when given.
    void overlapsOf(BroadPhase& technique, const BoxView& boxes, std::vector<Pair>& candidates, std::vector<Pair>& out,
                    Row* row);
    void configureAll(const Settings& settings);

    std::vector<Row> m_rows;
    std::size_t m_firstToRun = 0;
    Settings m_settings;
    bool m_configured = false;
    std::unique_ptr<BroadPhase> m_brute, m_hshg, m_grid;
    std::vector<Pair> m_reference, m_crossCheck, m_scratchCandidates, m_sortScratch;
    std::vector<std::uint32_t> m_sortOffsets;
    std::vector<std::pair<const Row*, Mismatch>> m_tickMismatches;
    std::string_view m_referenceName = "brute";
    std::uint64_t m_referenceDisagreements = 0;
};

}  // namespace ro::app
