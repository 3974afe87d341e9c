// Issue 14: the app's default scene stays statistically stationary, so that a measurement
// taken after two minutes describes the same scene as one taken in the first second. Over
// 7,200 ticks (two minutes at 60 Hz), every one-second mean of the overlap count stays within
// 25% of the first second's mean.
//
// PushApart is not run here: it is perfectly inelastic (see ContactResponse), the scene loses
// energy and packs into piles against the walls, and its overlaps grow 1.4 to 2.7 times in two
// minutes. That is why the default response is Bounce.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ro/registry.h"
#include "ro/rng.h"
#include "ro/world.h"

namespace ro {
namespace {

/// The responses whose default scene stays stationary.
constexpr ContactResponse kStationaryResponses[] = {ContactResponse::None, ContactResponse::Bounce};

const char* nameOf(ContactResponse response) {
    switch (response) {
        case ContactResponse::None: return "None";
        case ContactResponse::PushApart: return "PushApart";
        case ContactResponse::Bounce: return "Bounce";
    }
    return "?";
}

/// The app's default scene (src/app/lab.cpp with the defaults of src/app/options.h: 2,000
/// entities, seed 1, the grid with one cell per largest entity), with the given response.
World defaultScene(ContactResponse response) {
    constexpr std::uint32_t kCount = 2000;
    constexpr std::uint64_t kSeed = 1;
    WorldConfig config;
    config.response = response;
    World world(config);
    world.setBroadPhase(findTechnique("grid")->create());
    Rng rng(kSeed);
    resizePopulation(world, rng, kCount, defaultSizeRange(kCount, config.bounds));
    Settings settings = world.broadPhaseSettings();
    settings.set(kCellSizeParameter.key, 2.0f * world.largestHalfExtent());
    world.setBroadPhaseSettings(settings);
    return world;
}

class DefaultScene : public ::testing::TestWithParam<ContactResponse> {};

TEST_P(DefaultScene, StaysStationary) {
    constexpr int kTicks = 7200;
    constexpr double kTolerance = 0.25;
    World world = defaultScene(GetParam());
    const int ticksPerSecond = static_cast<int>(world.config().tickHz);
    ASSERT_EQ(kTicks % ticksPerSecond, 0);

    std::vector<double> means;  // overlaps per tick, averaged over each simulated second
    double sum = 0.0;
    for (int t = 1; t <= kTicks; ++t) {
        world.tick();
        sum += static_cast<double>(world.lastStats().overlaps);
        if (t % ticksPerSecond == 0) means.push_back(sum / ticksPerSecond), sum = 0.0;
    }
    const double first = means.front();
    ASSERT_GT(first, 0.0);
    const auto [lo, hi] = std::minmax_element(means.begin(), means.end());
    std::printf("[ %s ] first-second mean %.1f overlaps; per-second ratio min %.3f (second %d), max %.3f (second %d)\n",
                nameOf(GetParam()), first, *lo / first, static_cast<int>(lo - means.begin()) + 1, *hi / first,
                static_cast<int>(hi - means.begin()) + 1);
    for (std::size_t s = 0; s < means.size(); ++s) {
        const double ratio = means[s] / first;
        ASSERT_TRUE(ratio >= 1.0 - kTolerance && ratio <= 1.0 + kTolerance)
            << "second " << s + 1 << ": mean " << means[s] << " overlaps, " << ratio << " times the first second's "
            << first;
    }
}

INSTANTIATE_TEST_SUITE_P(Responses, DefaultScene, ::testing::ValuesIn(kStationaryResponses),
                         [](const ::testing::TestParamInfo<ContactResponse>& info) {
                             return std::string(nameOf(info.param));
                         });

TEST(DefaultSceneResponse, IsOneThatStaysStationary) {
    const ContactResponse response = WorldConfig{}.response;
    EXPECT_NE(std::find(std::begin(kStationaryResponses), std::end(kStationaryResponses), response),
              std::end(kStationaryResponses))
        << nameOf(response) << " is the default response, but its scene is not checked to stay stationary";
}

}  // namespace
}  // namespace ro
