#include "core/overlap_count.h"

#include <algorithm>
#include <vector>

namespace ro {
namespace {

/// Counts of values at ranks, with prefix sums in O(log n) (a Fenwick tree).
class RankCounts {
public:
    explicit RankCounts(std::size_t ranks) : m_tree(ranks + 1, 0) {}
    void add(std::size_t rank, std::int64_t delta) {
        for (std::size_t i = rank + 1; i < m_tree.size(); i += i & (~i + 1)) m_tree[i] += delta;
    }
    /// The count at ranks below `rank`.
    [[nodiscard]] std::int64_t below(std::size_t rank) const {
        std::int64_t sum = 0;
        for (std::size_t i = rank; i > 0; i -= i & (~i + 1)) sum += m_tree[i];
        return sum;
    }

private:
    std::vector<std::int64_t> m_tree;
};

/// Pairs among the boxes `which` selects whose x and y intervals both overlap. A sweep along x:
/// a box that starts meets every open box whose y interval meets its own, which is every open
/// box but those that end below it or start above it.
template <typename Which>
std::uint64_t countPairs(const BoxView& boxes, Which which) {
    std::vector<float> ys;
    struct Event {
        float x;
        bool isEnd;  // at one x, starts come first: boxes that touch overlap
        std::uint32_t box;
    };
    std::vector<Event> events;
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        if (!which(i)) continue;
        ys.push_back(boxes.minY[i]);
        ys.push_back(boxes.maxY[i]);
        events.push_back({boxes.minX[i], false, i});
        events.push_back({boxes.maxX[i], true, i});
    }
    std::sort(ys.begin(), ys.end());
    ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        return a.x < b.x || (a.x == b.x && !a.isEnd && b.isEnd);
    });
    const auto rankOf = [&](float y) {
        return static_cast<std::size_t>(std::lower_bound(ys.begin(), ys.end(), y) - ys.begin());
    };
    RankCounts openMins(ys.size());
    RankCounts openMaxes(ys.size());
    std::int64_t open = 0;
    std::uint64_t pairs = 0;
    for (const Event& e : events) {
        const std::size_t lo = rankOf(boxes.minY[e.box]);
        const std::size_t hi = rankOf(boxes.maxY[e.box]);
        if (e.isEnd) {
            openMins.add(lo, -1);
            openMaxes.add(hi, -1);
            --open;
            continue;
        }
        const std::int64_t endBelow = openMaxes.below(lo);
        const std::int64_t startAbove = open - openMins.below(hi + 1);
        pairs += static_cast<std::uint64_t>(open - endBelow - startAbove);
        openMins.add(lo, +1);
        openMaxes.add(hi, +1);
        ++open;
    }
    return pairs;
}

}  // namespace

std::uint64_t countOverlappingPairs(const BoxView& boxes) {
    const std::uint64_t all = countPairs(boxes, [](std::uint32_t) { return true; });
    if (!boxes.isStatic) return all;
    return all - countPairs(boxes, [&](std::uint32_t i) { return boxes.isStatic[i] != 0; });
}

}  // namespace ro
