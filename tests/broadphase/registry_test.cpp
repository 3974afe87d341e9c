// The registry and what every technique shares: unique ids with brute force first, and new
// settings that take effect at the next update.

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "ro/registry.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

TEST(Registry, IdsAreUniqueAndBruteForceComesFirst) {
    std::set<std::string_view> ids;
    for (const TechniqueInfo& t : techniques()) {
        EXPECT_TRUE(ids.insert(t.id).second) << t.id;
        EXPECT_FALSE(t.label.empty());
        EXPECT_FALSE(t.guide.how.empty()) << t.id;
        EXPECT_FALSE(t.guide.complexity.empty()) << t.id;
        EXPECT_FALSE(t.guide.cost.empty()) << t.id;
        EXPECT_FALSE(t.guide.suits.empty()) << t.id;
        EXPECT_FALSE(t.guide.source.empty()) << t.id;
        EXPECT_NE(t.create(), nullptr);
        EXPECT_EQ(findTechnique(t.id), &t);
    }
    EXPECT_EQ(techniques().front().id, "brute");
    EXPECT_EQ(findTechnique("no-such-technique"), nullptr);
}

TEST(Registry, CreateTechniqueMakesTheNamedOneAndRefusesAnUnknownNameByListingTheIds) {
    for (const TechniqueInfo& t : techniques()) {
        const auto made = createTechnique(t.id);
        const auto expected = t.create();
        ASSERT_NE(made, nullptr) << t.id;
        const BroadPhase& madeRef = *made;
        const BroadPhase& expectedRef = *expected;
        EXPECT_EQ(typeid(madeRef), typeid(expectedRef)) << t.id;
    }
    for (const std::string_view typo : {"GRID", "grid ", "", "nope"}) {
        try {
            (void)createTechnique(typo);
            ADD_FAILURE() << "'" << typo << "' was accepted";
        } catch (const std::invalid_argument& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("no technique '" + std::string(typo) + "'"), std::string::npos) << message;
            for (const TechniqueInfo& t : techniques()) EXPECT_NE(message.find(t.id), std::string::npos) << message;
        }
    }
}

TEST(Techniques, NewSettingsTakeEffectAtTheNextUpdate) {
    // The overlay may be drawn between configure() and the next step: it must still describe
    // the structure that was built, at the cell size it was built with.
    test::BoxSet boxes;
    boxes.add({1, 1, 2, 2});
    boxes.add({12, 1, 18, 2});
    for (std::string_view id : {"grid", "hash"}) {
        SCOPED_TRACE(id);
        auto technique = findTechnique(id)->create();
        technique->configure(test::withCell(10.0f, Aabb{0, 0, 100, 100}));
        (void)test::techniqueOverlaps(*technique, boxes.view());
        auto cellSides = [&] {
            std::set<float> sides;
            technique->forEachElement([&](const StructureElement& c) { sides.insert(c.bounds.width()); });
            return sides;
        };
        EXPECT_EQ(cellSides(), std::set<float>{10.0f});
        technique->configure(test::withCell(5.0f, Aabb{0, 0, 100, 100}));
        EXPECT_EQ(cellSides(), std::set<float>{10.0f}) << "changed before the structure was rebuilt";
        (void)test::techniqueOverlaps(*technique, boxes.view());
        EXPECT_EQ(cellSides(), std::set<float>{5.0f});
    }
}

}  // namespace
}  // namespace ro
