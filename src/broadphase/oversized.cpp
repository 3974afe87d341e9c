#include "broadphase/oversized.h"

#include <algorithm>

#include "core/buffers.h"

namespace ro {
namespace {

/// Up to this many, scanning everyone (n tests each) beats sorting everyone.
constexpr std::size_t kScanLimit = 64;

std::uint64_t scan(const BoxView& boxes, std::span<const std::uint32_t> oversized,
                   std::span<const std::uint8_t> isOversized, std::vector<Pair>& out) {
    std::uint64_t tests = 0;
    const PairRule rule(boxes);
    for (const std::uint32_t big : oversized) {
        const Aabb box = boxes.box(big);
        for (std::uint32_t j = 0; j < boxes.count; ++j) {
            // Two oversized entities pair once, from the smaller index.
            if (j == big || (isOversized[j] && j < big)) continue;
            ++tests;
            if (overlaps(box, boxes.box(j)) && (!rule.active() || rule.accepts(big, j))) out.push_back(makePair(big, j));
        }
    }
    return tests;
}

}  // namespace

std::uint64_t pairOversized(const BoxView& boxes, std::span<const std::uint32_t> oversized,
                            std::span<const std::uint8_t> isOversized, std::vector<Pair>& out,
                            OversizedScratch& scratch) {
    if (oversized.size() <= kScanLimit) return scan(boxes, oversized, isOversized, out);

    // Sweep along x: each entity, as its interval opens, is tested against the open ones that
    // can pair with it: every open entity if it skips the cells, else the open skippers.
    auto& order = scratch.order;
    resizeWithHeadroom(order, boxes.count);
    for (std::uint32_t i = 0; i < boxes.count; ++i) order[i] = {boxes.minX[i], i};
    std::sort(order.begin(), order.end());
    scratch.openAll.clear();
    scratch.openSkippers.clear();
    reserveWithHeadroom(scratch.openAll, boxes.count);
    reserveWithHeadroom(scratch.openSkippers, oversized.size());
    std::uint64_t tests = 0;
    const PairRule rule(boxes);
    // Tests `entity` against `open`, dropping those whose interval closed before `x`.
    const auto sweep = [&](std::vector<std::uint32_t>& open, std::uint32_t entity, float x) {
        std::size_t kept = 0;
        for (const std::uint32_t other : open) {
            if (boxes.maxX[other] < x) continue;  // closed for good: later entities start further right
            open[kept++] = other;
            ++tests;
            if (boxes.minY[entity] <= boxes.maxY[other] && boxes.minY[other] <= boxes.maxY[entity] &&
                (!rule.active() || rule.accepts(entity, other)))
                out.push_back(makePair(entity, other));
        }
        open.resize(kept);
    };
    for (const auto& [x, entity] : order) {
        const bool skipper = isOversized[entity] != 0;
        sweep(skipper ? scratch.openAll : scratch.openSkippers, entity, x);
        scratch.openAll.push_back(entity);
        if (skipper) scratch.openSkippers.push_back(entity);
    }
    return tests;
}

std::uint64_t OversizedScratch::bytesHeld() const {
    return ro::bytesHeld(order) + ro::bytesHeld(openAll) + ro::bytesHeld(openSkippers);
}

}  // namespace ro
