// Parameters as data: every technique's declared parameters are what configure() checks, what
// the registry row carries, and what a KEY=VALUE text sets, for every row of the registry.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "ro/registry.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Values no spec may accept: outside the range, not finite, and (for whole kinds) fractional.
std::vector<double> badValues(const ParameterSpec& spec) {
    const double hi = spec.kind == ParameterKind::Choice ? static_cast<double>(spec.choices.size()) - 1.0 : spec.max;
    const double lo = spec.kind == ParameterKind::Choice ? 0.0 : spec.min;
    std::vector<double> bad{kNaN, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    bad.push_back(lo > 0.0 ? 0.0 : lo - 1.0);
    bad.push_back(std::isfinite(hi * 2.0) ? hi * 2.0 + 1.0 : std::numeric_limits<double>::max());
    if (spec.kind != ParameterKind::Real) bad.push_back(lo + 0.5);
    return bad;
}

class Parameters : public ::testing::TestWithParam<std::string_view> {
protected:
    [[nodiscard]] const TechniqueInfo& row() const { return *findTechnique(GetParam()); }
};

TEST_P(Parameters, TheRowCarriesWhatTheTechniqueChecks) {
    const auto technique = row().create();
    ASSERT_EQ(technique->parameters().size(), row().parameters.size());
    std::set<std::string_view> keys;
    for (std::size_t i = 0; i < row().parameters.size(); ++i) {
        const ParameterSpec& spec = row().parameters[i];
        EXPECT_EQ(technique->parameters()[i].key, spec.key);
        EXPECT_TRUE(keys.insert(spec.key).second) << "key " << spec.key << " twice";
        EXPECT_FALSE(spec.label.empty()) << spec.key;
        EXPECT_FALSE(spec.help.empty()) << spec.key;
        if (spec.kind == ParameterKind::Choice) {
            EXPECT_GE(spec.choices.size(), 2u) << spec.key;
        } else {
            EXPECT_LE(spec.min, spec.offeredMin) << spec.key;
            EXPECT_LT(spec.offeredMin, spec.offeredMax) << spec.key;
            EXPECT_LE(spec.offeredMax, spec.max) << spec.key;
            EXPECT_TRUE(spec.defaultValue >= spec.offeredMin && spec.defaultValue <= spec.offeredMax) << spec.key;
        }
    }
}

TEST_P(Parameters, ConfigureRefusesEachBadValueNamingTheKey) {
    for (const ParameterSpec& spec : row().parameters) {
        for (const double value : badValues(spec)) {
            auto technique = row().create();
            Settings settings;
            settings.set(spec.key, value);
            try {
                technique->configure(settings);
                ADD_FAILURE() << spec.key << "=" << value << " was accepted";
            } catch (const std::invalid_argument& e) {
                EXPECT_NE(std::string(e.what()).find(spec.key), std::string::npos) << e.what();
            }
        }
    }
}

TEST_P(Parameters, EveryOfferedValueGivesTheReferenceAnswer) {
    // The ends of each offered range, the default, and for a choice every name: the pairs
    // stay brute force's (the parameters tune the cost, never the answer).
    test::Scene scene;
    for (test::Scene& s : test::conformanceScenes())
        if (s.boxes.size() > scene.boxes.size()) scene = std::move(s);
    ASSERT_GT(scene.boxes.size(), 100u);
    const std::set<Pair> expected = test::referenceOverlaps(scene.boxes.view());
    ASSERT_FALSE(expected.empty());
    for (const ParameterSpec& spec : row().parameters) {
        std::vector<double> values{spec.offeredMin, spec.defaultValue, spec.offeredMax};
        if (spec.kind == ParameterKind::Choice) values = {0.0, 1.0, 2.0};
        for (const double value : values) {
            if (spec.key == "hash_buckets" && value > 1e6) continue;  // 2^26 buckets: 512 MiB for 1 check
            if (spec.key == "max_depth" && value > 12) continue;      // a leaf per cell at 2^20 a side: slow, not wrong
            Settings settings(scene.gridBounds, {{spec.key, value}});
            auto technique = row().create();
            EXPECT_NO_THROW(technique->configure(settings)) << spec.key << "=" << value;
            EXPECT_EQ(test::techniqueOverlaps(*technique, scene.boxes.view()), expected) << spec.key << "=" << value;
        }
    }
}

TEST_P(Parameters, KeysOfOtherTechniquesAreIgnoredAndKeysOfNoneRefused) {
    // One Settings serves every technique (the app's, Auto's): another's key passes unchecked.
    for (const TechniqueInfo& other : techniques()) {
        for (const ParameterSpec& spec : other.parameters) {
            if (findParameter(row().parameters, spec.key) != nullptr) continue;
            auto technique = row().create();
            Settings settings;
            settings.set(spec.key, kNaN);
            EXPECT_NO_THROW(technique->configure(settings)) << spec.key << " of " << other.id;
        }
    }
    // A key no technique has is a misspelling: refused by name, with this technique's keys.
    auto technique = row().create();
    for (const std::string_view misspelt : {"cel_size", "no_such_parameter", ""}) {
        Settings settings;
        settings.set(misspelt, 1.0);
        try {
            technique->configure(settings);
            ADD_FAILURE() << "'" << misspelt << "' was accepted";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("'" + std::string(misspelt) + "'"), std::string::npos) << what;
            for (const ParameterSpec& spec : row().parameters) EXPECT_NE(what.find(spec.key), std::string::npos) << what;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryTechnique, Parameters, ::testing::ValuesIn(test::allTechniqueIds()),
                         [](const auto& info) { return std::string(info.param); });

TEST(ParameterText, SetsAKnownKeyAndExplainsEveryRefusal) {
    const auto parameters = findTechnique("quadtree")->parameters;
    Settings settings;
    EXPECT_EQ(setFromText(parameters, "leaf_capacity=3", settings), "");
    EXPECT_EQ(settings.find("leaf_capacity"), 3.0);

    const auto refusal = [&](std::string_view text) { return setFromText(parameters, text, settings); };
    EXPECT_NE(refusal("cell_size=4").find("its parameters: leaf_capacity, max_depth"), std::string::npos);
    EXPECT_NE(refusal("leaf_capacity=2.5").find("whole number"), std::string::npos);
    EXPECT_NE(refusal("leaf_capacity=65").find("between 1 and 64"), std::string::npos);  // the offered range
    EXPECT_NE(refusal("leaf_capacity=").find("must be a number"), std::string::npos);
    EXPECT_NE(refusal("leaf_capacity=nan").find("must be"), std::string::npos);
    EXPECT_NE(refusal("leaf_capacity").find("KEY=VALUE"), std::string::npos);
    EXPECT_EQ(settings.find("leaf_capacity"), 3.0) << "a refused text changes nothing";
}

TEST(ParameterText, TakesAChoiceByNameOrNumber) {
    const auto parameters = findTechnique("sap")->parameters;
    Settings settings;
    EXPECT_EQ(setFromText(parameters, "sweep_axis=y", settings), "");
    EXPECT_EQ(settings.find("sweep_axis"), 2.0);
    EXPECT_EQ(setFromText(parameters, "sweep_axis=1", settings), "");
    EXPECT_EQ(settings.find("sweep_axis"), 1.0);
    EXPECT_NE(setFromText(parameters, "sweep_axis=z", settings).find("one of auto, x, y"), std::string::npos);
}

TEST(ParameterSettings, CompareByValueWhateverTheOrderSet) {
    Settings a;
    a.set("cell_size", 4.0);
    a.set("hash_buckets", 7.0);
    Settings b;
    b.set("hash_buckets", 7.0);
    b.set("cell_size", 4.0);
    EXPECT_EQ(a, b);
    b.set("cell_size", 5.0);
    EXPECT_NE(a, b);
    EXPECT_EQ(b.value(kCellSizeParameter), 5.0);
    EXPECT_EQ(Settings{}.value(kCellSizeParameter), kCellSizeParameter.defaultValue);
}

}  // namespace
}  // namespace ro
