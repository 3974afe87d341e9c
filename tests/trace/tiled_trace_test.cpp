// A trace tiled for the sweeps: k copies of every box, each copy the original moved by a
// whole tile, ids distinct, and no pair across copies, so the tiled scene's pairs are the
// original's k times over. The trace starts over when it ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ro/rng.h"
#include "ro/trace.h"
#include "scenario/tiled_trace.h"

namespace ro {
namespace {

using IdPairs = std::set<std::pair<std::uint32_t, std::uint32_t>>;

/// Every overlapping pair of the frame by ids (closed intervals), the plain way.
IdPairs overlaps(const BoxView& v) {
    IdPairs out;
    for (std::uint32_t i = 0; i < v.count; ++i)
        for (std::uint32_t j = i + 1; j < v.count; ++j)
            if (v.minX[i] <= v.maxX[j] && v.minX[j] <= v.maxX[i] && v.minY[i] <= v.maxY[j] && v.minY[j] <= v.maxY[i])
                out.insert(std::minmax(v.ids[i], v.ids[j]));
    return out;
}

struct Written {
    std::string path;
    TraceExtent extent;
    std::vector<IdPairs> pairs;  ///< of each frame
};

/// A few frames of drifting boxes, dense enough to overlap, some near the edges of the region.
Written writeTrace(const std::string& name) {
    Written w{(std::filesystem::path(testing::TempDir()) / ("ro_tiled_" + name)).string(), {}, {}};
    Rng rng(3);
    std::vector<float> x0(60), y0(60), x1(60), y1(60);
    std::vector<std::uint32_t> ids(60);
    for (std::uint32_t i = 0; i < 60; ++i) {
        ids[i] = 5 + 3 * i;  // not dense: the tiling must not assume it
        x0[i] = rng.range(0.0f, 90.0f), y0[i] = rng.range(0.0f, 40.0f);
        x1[i] = x0[i] + rng.range(1.0f, 10.0f), y1[i] = y0[i] + rng.range(1.0f, 10.0f);
    }
    TraceWriter writer(w.path);
    bool first = true;
    for (int f = 0; f < 4; ++f) {
        for (std::uint32_t i = 0; i < 60; ++i) x0[i] += 0.5f, x1[i] += 0.5f;
        const BoxView view{x0.data(), y0.data(), x1.data(), y1.data(), ids.data(), 60};
        writer.frame(view);
        w.pairs.push_back(overlaps(view));
        for (std::uint32_t i = 0; i < 60; ++i) {
            const Aabb box = view.box(i);
            w.extent.bounds = first ? box
                                    : Aabb{std::min(w.extent.bounds.minX, box.minX), std::min(w.extent.bounds.minY, box.minY),
                                           std::max(w.extent.bounds.maxX, box.maxX), std::max(w.extent.bounds.maxY, box.maxY)};
            first = false;
        }
    }
    writer.close();
    w.extent.maxCount = 60;
    w.extent.maxId = ids.back();
    return w;
}

TEST(TiledTrace, CopiesArePlacedApartWithDistinctIdsAndTheOriginalsPairs) {
    const Written trace = writeTrace("copies.trace");
    for (const std::uint32_t copies : {1u, 4u, 7u}) {
        TiledTrace tiled(trace.path, trace.extent, copies);
        for (std::size_t f = 0; f < 6; ++f) {  // past the end: frames 0-3, then 0 and 1 again
            const BoxView v = tiled.boxes();
            ASSERT_EQ(v.count, 60 * copies);
            std::set<std::uint32_t> ids(v.ids, v.ids + v.count);
            EXPECT_EQ(ids.size(), v.count) << "ids repeat at " << copies << " copies";
            // Every box lies in the tiled region.
            for (std::uint32_t i = 0; i < v.count; ++i) {
                const Aabb b = tiled.bounds();
                EXPECT_TRUE(v.minX[i] >= b.minX && v.maxX[i] <= b.maxX && v.minY[i] >= b.minY && v.maxY[i] <= b.maxY) << i;
            }
            // The pairs: each copy's are the original's under the copy's ids, and none across.
            IdPairs want;
            for (const auto& [a, b] : trace.pairs[f % 4])
                for (std::uint32_t c = 0; c < copies; ++c) want.insert({a * copies + c, b * copies + c});
            EXPECT_EQ(overlaps(v), want) << copies << " copies, frame " << f;
            tiled.advance();
        }
    }
}

TEST(TiledTrace, CountsRoundToWholeCopiesAndIdsLimitThem) {
    TraceExtent extent;
    extent.maxCount = 1000;
    extent.maxId = 999;
    EXPECT_EQ(tileCopies(100, extent), 1u);
    EXPECT_EQ(tileCopies(1400, extent), 1u);
    EXPECT_EQ(tileCopies(1600, extent), 2u);
    EXPECT_EQ(tileCopies(1'000'000, extent), 1000u);
    extent.maxId = 0x7fffffffu;  // ids up to 2^31: two copies at most
    EXPECT_EQ(mostTileCopies(extent), 2u);
    EXPECT_EQ(tileCopies(1'000'000, extent), 2u);

    const Written trace = writeTrace("limit.trace");
    TraceExtent wide = trace.extent;
    wide.maxId = 0x7fffffffu;
    try {
        TiledTrace tiled(trace.path, wide, 3);
        ADD_FAILURE() << "3 copies of ids up to 2^31 were tiled";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("at most 2"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace ro
