// Far from the origin: a scene translated far away gives every technique the same overlap
// pairs and the same point and box query hits as at the origin, as long as the translation
// itself is exact. The scene is a pattern of whole-numbered boxes scaled by the spacing of
// floats at the offset, so every coordinate is a float there and at the origin: from a million
// (spacing 1/16, the boxes of side 1 of issue 17) to about 1.3e30. What can go wrong is the
// technique's own arithmetic on large coordinates (cell indices, hashes, sorting keys), with
// cells that scale with the scene and with the default cell size alike.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "ro/registry.h"
#include "ro/rng.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

class FarOffset : public ::testing::TestWithParam<std::string_view> {
protected:
    std::unique_ptr<BroadPhase> create() const { return findTechnique(GetParam())->create(); }
};

/// Whole-numbered boxes (corners in units), some overlapping, some touching, most apart.
struct Pattern {
    struct Box {
        int x, y, w, h;
    };
    std::vector<Box> boxes;
    static constexpr std::uint32_t kSide = 4096;

    Pattern() {
        Rng rng(2026);
        for (int i = 0; i < 600; ++i) {
            const int w = 8 + static_cast<int>(rng.below(17));  // 8 to 24 units
            const int h = 8 + static_cast<int>(rng.below(17));
            boxes.push_back({static_cast<int>(rng.below(kSide / 4u)), static_cast<int>(rng.below(kSide / 4u)), w, h});
        }
        boxes.push_back({100, 100, 16, 16});
        boxes.push_back({116, 100, 16, 16});  // touches the one before along x = 116
    }

    /// The pattern with `unit` per unit, moved by `offset` in both axes.
    [[nodiscard]] test::BoxSet place(double offset, double unit) const {
        test::BoxSet set;
        for (const Box& b : boxes) {
            auto at = [&](int k) {
                const double v = offset + k * unit;
                const auto f = static_cast<float>(v);
                EXPECT_EQ(static_cast<double>(f), v) << "not a float: the translation would round";
                return f;
            };
            set.add({at(b.x), at(b.y), at(b.x + b.w), at(b.y + b.h)});
        }
        return set;
    }
};

struct Offset {
    const char* name;
    double offset;  ///< added to both coordinates
    double unit;    ///< the spacing of floats there: offset + k * unit is a float for k < 2^23
};

/// A million (the case: 1e6 lies in [2^19, 2^20), where floats are 1/16 apart), 2^40
/// (about 1.1e12) and 2^100 (about 1.3e30).
constexpr Offset kOffsets[] = {
    {"1e6", 1'000'000.0, 1.0 / 16.0},
    {"2^40", 1099511627776.0, 131072.0},                                     // 2^40, unit 2^17
    {"2^100", 1267650600228229401496703205376.0, 151115727451828646838272.0},  // 2^100, unit 2^77
};

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

TEST_P(FarOffset, PairsAndQueriesEqualThoseAtTheOrigin) {
    const Pattern pattern;
    for (const Offset& o : kOffsets) {
        SCOPED_TRACE(o.name);
        const test::BoxSet near = pattern.place(0.0, o.unit);
        const test::BoxSet far = pattern.place(o.offset, o.unit);
        const std::set<Pair> expected = test::referenceOverlaps(near.view());
        ASSERT_FALSE(expected.empty());
        ASSERT_EQ(test::referenceOverlaps(far.view()), expected) << "the reference itself moved";

        const auto region = [&](double offset) {
            const auto lo = static_cast<float>(offset);
            const auto hi = static_cast<float>(offset + Pattern::kSide * o.unit);
            return Aabb{lo, lo, hi, hi};
        };
        // Cells that scale with the scene (8 units), then the technique's defaults.
        for (const bool scaledCell : {true, false}) {
            SCOPED_TRACE(scaledCell ? "cell of 8 units" : "default settings");
            auto settingsAt = [&](double offset) {
                Settings s = scaledCell ? test::withCell(static_cast<float>(8.0 * o.unit)) : Settings{};
                s.bounds = region(offset);
                return s;
            };
            auto atOrigin = create();
            atOrigin->configure(settingsAt(0.0));
            auto farAway = create();
            farAway->configure(settingsAt(o.offset));
            EXPECT_EQ(test::techniqueOverlaps(*atOrigin, near.view()), expected);
            EXPECT_EQ(test::techniqueOverlaps(*farAway, far.view()), expected);
            EXPECT_EQ(farAway->validate(), "");

            // Point queries on corners and box queries with whole-numbered corners, both places.
            Rng rng(7);
            std::vector<std::uint32_t> hitsNear, hitsFar;
            for (int q = 0; q < 200; ++q) {
                const Pattern::Box& b = pattern.boxes[rng.below(static_cast<std::uint32_t>(pattern.boxes.size()))];
                const int px = b.x + (rng.below(2) ? b.w : 0), py = b.y + (rng.below(2) ? b.h : 0);
                auto point = [&](double offset) {
                    return Vec2{static_cast<float>(offset + px * o.unit), static_cast<float>(offset + py * o.unit)};
                };
                atOrigin->queryPoint(point(0.0), hitsNear);
                farAway->queryPoint(point(o.offset), hitsFar);
                ASSERT_EQ(sorted(hitsFar), sorted(hitsNear)) << "point query at unit (" << px << ", " << py << ")";

                const int w = static_cast<int>(rng.below(64)), h = static_cast<int>(rng.below(64));
                auto box = [&](double offset) {
                    return Aabb{static_cast<float>(offset + px * o.unit), static_cast<float>(offset + py * o.unit),
                                static_cast<float>(offset + (px + w) * o.unit),
                                static_cast<float>(offset + (py + h) * o.unit)};
                };
                atOrigin->queryBox(box(0.0), hitsNear);
                farAway->queryBox(box(o.offset), hitsFar);
                ASSERT_EQ(sorted(hitsFar), sorted(hitsNear)) << "box query at unit (" << px << ", " << py << ")";
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllTechniques, FarOffset, ::testing::ValuesIn(test::allTechniqueIds()),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ro
