// Scene files: saving, loading and saving again gives the same text; loading restores the lab
// bit for bit (and it then runs on exactly as the original); a bad file is refused with a
// message that names what is wrong, and the lab it was loaded into is left as it was.

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "app/lab.h"
#include "app/scene_file.h"
#include "ro/registry.h"
#include "scenario/scenario.h"

namespace {

using ro::app::Lab;
using ro::app::LabState;
using ro::app::SceneFile;

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Every entity's every float, bit for bit, and the rest of the state.
void expectSameState(const LabState& a, const LabState& b) {
    EXPECT_EQ(a.technique, b.technique);
    EXPECT_EQ(a.parameters, b.parameters);
    EXPECT_EQ(a.preset, b.preset);
    EXPECT_EQ(a.sceneSeed, b.sceneSeed);
    EXPECT_EQ(a.rngState, b.rngState);
    ASSERT_EQ(a.entities.size(), b.entities.size());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < a.entities.size(); ++i) {
        const auto& p = a.entities[i];
        const auto& q = b.entities[i];
        const bool same = p.shape == q.shape && sameBits(p.position.x, q.position.x) && sameBits(p.position.y, q.position.y) &&
                          sameBits(p.previous.x, q.previous.x) && sameBits(p.previous.y, q.previous.y) &&
                          sameBits(p.acceleration.x, q.acceleration.x) && sameBits(p.acceleration.y, q.acceleration.y) &&
                          sameBits(p.halfExtents.x, q.halfExtents.x) && sameBits(p.halfExtents.y, q.halfExtents.y) &&
                          p.isStatic == q.isStatic && p.category == q.category && p.mask == q.mask;
        differing += same ? 0 : 1;
    }
    EXPECT_EQ(differing, 0u);
}

TEST(SceneFile, SaveLoadSaveGivesTheSameFileAndTheSameState) {
    // Layers and static: their entities carry collision filters and static flags, which decide
    // the pairs; the filters, flags and pairs compared below catch a lab that dropped them.
    for (const char* preset : {"random", "mixed", "orbit", "layers", "static"}) {
        const ro::ScenarioInfo* scenario = ro::findScenario(preset);
        Lab lab(*ro::findTechnique("hshg"), 1200, 4, {}, std::nullopt, scenario);
        for (int frame = 0; frame < 40; ++frame) lab.update(1.0 / 60.0, true);
        lab.spawnAt({10.0f, 10.0f});
        const SceneFile saved{lab.capture(), {2.5f, ro::Vec2{3.25f, 7.0f}}};
        const std::string first = ro::app::sceneToJson(saved);
        const SceneFile loaded = ro::app::sceneFromJson(first);
        EXPECT_EQ(ro::app::sceneToJson(loaded), first) << preset;
        EXPECT_EQ(loaded.camera.zoom, 2.5f);
        ASSERT_TRUE(loaded.camera.centre);
        EXPECT_EQ(loaded.camera.centre->x, 3.25f);

        // Restored into another lab (another technique even), it is the same lab, and it goes on
        // the same way: the world is deterministic whatever the technique.
        Lab other(*ro::findTechnique("sap"), 10, 99, {});
        other.restore(loaded.lab);
        expectSameState(other.capture(), lab.capture());
        EXPECT_EQ(other.world().hasFilters(), std::string(preset) == "layers") << preset;
        lab.world().refreshPairs();  // both on the positions on screen
        EXPECT_EQ(other.world().overlapPairs(), lab.world().overlapPairs()) << preset;
        other.setTechnique(*ro::findTechnique("tree"));
        for (int frame = 0; frame < 40; ++frame) {
            lab.update(1.0 / 60.0, true);
            other.update(1.0 / 60.0, true);
        }
        lab.spawnAt({20.0f, 20.0f});  // from the restored generator: the same random entity
        other.spawnAt({20.0f, 20.0f});
        LabState a = lab.capture(), b = other.capture();
        b.technique = a.technique;
        expectSameState(a, b);
    }
}

/// The text of a valid small scene, to break one field at a time.
std::string validScene() {
    Lab lab(*ro::findTechnique("grid"), 50, 1, {});
    return ro::app::sceneToJson({lab.capture(), {}});
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

TEST(SceneFile, BadFilesAreRefusedWithAMessageAndTheLabIsUntouched) {
    const std::string good = validScene();
    const std::string bigCount = replaced(good, "\"count\": 50", "\"count\": 2000001");
    struct Case {
        const char* name;
        std::string text;
        const char* message;
    };
    const std::vector<Case> cases = {
        {"not JSON", "{ this is not json", "not JSON"},
        {"empty", "", "not JSON"},
        {"an array", "[1, 2]", "top level must be an object"},
        {"another format", replaced(good, "ro-broadphase-lab scene", "something else"), "not a scene file"},
        {"a later version", replaced(good, "\"version\": 1", "\"version\": 2"), "version 2 is not supported"},
        {"no technique", replaced(good, "\"technique\"", "\"techniqe\""), "missing field 'technique'"},
        {"a string for a number", replaced(good, "\"tick_hz\": 60.0", "\"tick_hz\": \"fast\""), "'world.tick_hz' must be a number"},
        {"an infinite number", replaced(good, "\"speed\": 1.0", "\"speed\": 1e999"), "number overflow parsing '1e999'"},
        {"a negative size", replaced(good, "\"half_w\": [", "\"half_w\": [-3.0,"), "'entities.half_w' has more items than its 50 entities"},
        {"too many entities", bigCount, "at most 2000000 entities"},
        {"an unknown response", replaced(good, "\"bounce\"", "\"sticky\""), "'world.response' must be none"},
        {"an unknown parameter", replaced(good, "\"parameters\": {", "\"parameters\": {\n  \"warp\": 2,"), "'parameters.warp' is not a parameter"},
        {"a missing column", replaced(good, "\"previous_x\"", "\"prev_x\""), "missing field 'entities.previous_x'"},
        {"a short filter column", replaced(good, "\"half_h\": [", "\"category\": [1],\n  \"half_h\": ["),
         "'entities.category' must be an array of 50 whole numbers"},
        {"a bad shape letter", replaced(good, "\"shape\": \"", "\"shape\": \"x"), "'entities.shape' must have 50 letters"},
    };
    for (const Case& c : cases) {
        try {
            (void)ro::app::sceneFromJson(c.text);
            ADD_FAILURE() << c.name << ": accepted";
        } catch (const ro::app::SceneFileError& e) {
            EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << c.name << ": " << e.what();
        }
    }

    // A negative half-extent in place of a positive one.
    const ro::app::SceneFile parsed = ro::app::sceneFromJson(good);
    LabState negative = parsed.lab;
    negative.entities[7].halfExtents.x = -2.0f;
    try {
        (void)ro::app::sceneFromJson(ro::app::sceneToJson({negative, {}}));
        ADD_FAILURE() << "a negative size was accepted";
    } catch (const ro::app::SceneFileError& e) {
        EXPECT_NE(std::string(e.what()).find("entity 7 has a size of -2"), std::string::npos) << e.what();
    }

    // What the file format allows but the lab refuses leaves the lab as it was.
    Lab lab(*ro::findTechnique("sweep"), 300, 2, {});
    const LabState before = lab.capture();
    LabState tooMany = parsed.lab;
    tooMany.technique = "brute";
    tooMany.entities.resize(20'001, tooMany.entities[0]);
    EXPECT_THROW(lab.restore(tooMany), std::invalid_argument);
    LabState far = parsed.lab;
    far.entities[3].position.x = 1e9f;  // beyond the world's coordinates
    EXPECT_THROW(lab.restore(far), std::invalid_argument);
    LabState unknown = parsed.lab;
    unknown.preset = "snow";
    EXPECT_THROW(lab.restore(unknown), std::invalid_argument);
    expectSameState(lab.capture(), before);
    EXPECT_EQ(lab.world().size(), 300u);
}

}  // namespace
