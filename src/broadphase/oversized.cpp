#include "broadphase/oversized.h"

namespace ro {

std::uint64_t pairOversized(const BoxView& boxes, std::span<const std::uint32_t> oversized,
                            std::span<const std::uint8_t> isOversized, std::vector<Pair>& out) {
    std::uint64_t tests = 0;
    for (const std::uint32_t big : oversized) {
        const Aabb box = boxes.box(big);
        for (std::uint32_t j = 0; j < boxes.count; ++j) {
            // Two oversized entities pair once, from the smaller index.
            if (j == big || (isOversized[j] && j < big)) continue;
            ++tests;
            if (overlaps(box, boxes.box(j))) out.push_back(makePair(big, j));
        }
    }
    return tests;
}

}  // namespace ro
