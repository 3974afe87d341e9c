#include "core/pair_sort.h"

#include <algorithm>

namespace ro {

void sortPairsCanonical(std::vector<Pair>& pairs, std::uint32_t entityCount, std::vector<Pair>& scratch,
                        std::vector<std::uint32_t>& offsets) {
    if (pairs.size() < 2) return;
    offsets.assign(static_cast<std::size_t>(entityCount) + 1, 0);
    for (const Pair& p : pairs) ++offsets[p.a + 1];
    for (std::uint32_t i = 0; i < entityCount; ++i) offsets[i + 1] += offsets[i];
    if (pairs.size() > scratch.capacity()) scratch.reserve(pairs.size() + pairs.size() / 2);
    scratch.resize(pairs.size());
    for (const Pair& p : pairs) scratch[offsets[p.a]++] = p;
    // After the scatter offsets[a] is the end of run a; runs are short, so insertion sort wins.
    std::uint32_t begin = 0;
    for (std::uint32_t a = 0; a < entityCount; ++a) {
        const std::uint32_t end = offsets[a];
        for (std::uint32_t i = begin + 1; i < end; ++i) {
            const Pair key = scratch[i];
            std::uint32_t j = i;
            while (j > begin && scratch[j - 1].b > key.b) {
                scratch[j] = scratch[j - 1];
                --j;
            }
            scratch[j] = key;
        }
        begin = end;
    }
    pairs.swap(scratch);
}

}  // namespace ro
