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

using ro::app::Command;
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
        lab.apply(Command::spawn({10.0f, 10.0f}));
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
        other.apply(Command::useTechnique(*ro::findTechnique("tree")));
        for (int frame = 0; frame < 40; ++frame) {
            lab.update(1.0 / 60.0, true);
            other.update(1.0 / 60.0, true);
        }
        lab.apply(Command::spawn({20.0f, 20.0f}));  // from the restored generator: the same random entity
        other.apply(Command::spawn({20.0f, 20.0f}));
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
        {"a misspelt field", replaced(good, "\"technique\"", "\"techniqe\""), "'techniqe' is not a scene field"},
        {"a string for a number", replaced(good, "\"tick_hz\": 60.0", "\"tick_hz\": \"fast\""), "'world.tick_hz' must be a number"},
        {"an infinite number", replaced(good, "\"speed\": 1.0", "\"speed\": 1e999"), "number overflow parsing '1e999'"},
        {"a negative size", replaced(good, "\"half_w\": [", "\"half_w\": [-3.0,"), "'entities.half_w' has more items than its 50 entities"},
        {"too many entities", bigCount, "at most 2000000 entities"},
        {"an unknown response", replaced(good, "\"bounce\"", "\"sticky\""), "'world.response' must be none"},
        {"an unknown parameter", replaced(good, "\"parameters\": {", "\"parameters\": {\n  \"warp\": 2,"), "'parameters.warp' is not a parameter"},
        {"a misspelt column", replaced(good, "\"previous_x\"", "\"prev_x\""), "'entities.prev_x' is not an entity column"},
        {"a misspelt world setting", replaced(good, "\"tick_hz\"", "\"tick\""), "'world.tick' is not a world setting"},
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

TEST(SceneFile, AMinimalSceneNeedsOnlyTheBoxes) {
    // Centre and full size; every other field has its documented default (docs/app.md).
    const SceneFile scene = ro::app::sceneFromJson(R"({"entities": [
        {"x": 10, "y": 20, "w": 2, "h": 2},
        {"x": 11, "y": 20, "w": 3, "h": 5, "vx": 60, "vy": -120, "shape": "circle", "category": 2, "mask": 3},
        {"x": 40, "y": 20, "w": 4, "h": 4, "static": true}]})");
    const LabState& s = scene.lab;
    EXPECT_EQ(s.technique, "auto");
    EXPECT_TRUE(s.autoCellSize);
    EXPECT_EQ(s.preset, "random");
    ASSERT_EQ(s.entities.size(), 3u);
    const ro::app::SavedEntity& a = s.entities[0];
    EXPECT_EQ(a.shape, ro::Shape::Box);
    EXPECT_EQ(a.position.x, 10.0f);
    EXPECT_EQ(a.halfExtents.x, 1.0f);
    EXPECT_EQ(a.previous.x, a.position.x);  // no velocity: at rest
    EXPECT_FALSE(a.isStatic);
    EXPECT_EQ(a.category, ro::app::SavedEntity{}.category);
    const ro::app::SavedEntity& b = s.entities[1];
    EXPECT_EQ(b.shape, ro::Shape::Circle);
    EXPECT_EQ(b.halfExtents.x, 1.5f);
    EXPECT_EQ(b.halfExtents.y, 2.5f);
    EXPECT_EQ(b.previous.x, 10.0f);  // 60 units a second at 60 ticks a second: one unit back
    EXPECT_EQ(b.previous.y, 22.0f);
    EXPECT_FALSE(b.isStatic);
    EXPECT_TRUE(s.entities[2].isStatic);
    EXPECT_EQ(b.category, 2u);
    EXPECT_EQ(b.mask, 3u);
    EXPECT_EQ(s.world.bounds.maxX, ro::WorldConfig{}.bounds.maxX);  // the default world holds them
    EXPECT_EQ(s.sizes.minHalf, 1.0f);
    EXPECT_EQ(s.sizes.maxHalf, 2.5f);

    // The lab takes it, and its pairs are the boxes' (the two overlap).
    Lab lab(*ro::findTechnique("grid"), 10, 1, {});
    lab.restore(s);
    EXPECT_EQ(lab.world().size(), 3u);
    lab.world().refreshPairs();
    EXPECT_EQ(lab.world().overlapPairs().size(), 1u);

    // Boxes outside the default world get walls around them.
    const SceneFile far = ro::app::sceneFromJson(R"({"entities": [{"x": -5000, "y": 0, "w": 10, "h": 10},
                                                                   {"x": 5000, "y": 300, "w": 10, "h": 10}]})");
    const ro::Aabb walls = far.lab.world.bounds;
    EXPECT_LT(walls.minX, -5005.0f);
    EXPECT_GT(walls.maxX, 5005.0f);
    EXPECT_LT(walls.minY, -5.0f);
    EXPECT_GT(walls.maxY, 305.0f);
    Lab farLab(*ro::findTechnique("grid"), 10, 1, {});
    farLab.restore(far.lab);
    EXPECT_EQ(farLab.world().size(), 2u);

    // The columns the lab writes may leave out all but x, y and the half sizes.
    const SceneFile columns = ro::app::sceneFromJson(
        R"({"technique": "sap", "entities": {"count": 2, "x": [1, 5], "y": [1, 1], "half_w": [1, 1], "half_h": [2, 2]}})");
    EXPECT_EQ(columns.lab.technique, "sap");
    ASSERT_EQ(columns.lab.entities.size(), 2u);
    EXPECT_EQ(columns.lab.entities[1].previous.x, 5.0f);
    EXPECT_EQ(columns.lab.entities[1].shape, ro::Shape::Box);
}

TEST(SceneFile, ABadMinimalSceneSaysWhichEntityAndField) {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {R"({"entities": [{"x": 1, "y": 1, "w": 1}]})", "missing field 'entities[0].h'"},
        {R"({"entities": [{"x": 1, "y": 1, "w": 1, "h": 1}, {"x": 1, "y": 1, "w": 0, "h": 1}]})",
         "'entities[1]' has a size of 0 x 1"},
        {R"({"entities": [{"x": 1, "y": 1, "w": 1, "h": 1, "z": 4}]})", "'entities[0].z' is not an entity field"},
        {R"({"entities": [{"x": 1, "y": 1, "w": 1, "h": 1, "shape": "star"}]})", "'entities[0].shape' must be box or circle"},
        {R"({"entities": [{"x": 1, "y": "one", "w": 1, "h": 1}]})", "'entities[0].y' must be a number"},
        {R"({"entities": [{"x": 1, "y": 1, "w": 1, "h": 1, "mask": 4294967296}]})", "'entities[0].mask' must be a whole number"},
        {R"({"entities": [{"x": 1e39, "y": 1, "w": 1, "h": 1}]})", "'entities[0].x' is out of float range"},
        {R"({"entities": [3]})", "'entities[0]' must be an object"},
        {R"({"entities": 3})", "'entities' must be an array"},
        {R"({"entites": []})", "'entites' is not a scene field"},
        {R"({"technique": "warp", "entities": []})", "unknown technique 'warp'"},
        {R"({"entities": [{"x": 1, "y": 1, "w": 1, "h": 1, "static": true, "vx": 2}]})",
         "'entities[0]' is static: it cannot have a velocity"},
        {R"({"format": "a shopping list", "entities": []})", "not a scene file"},
        {R"({"world": {"tick_hz": 0}, "entities": [{"x": 1, "y": 1, "w": 1, "h": 1}]})", "'world.tick_hz' must be greater than 0"},
        {R"({"entities": {"count": 1, "x": [1], "y": [1], "half_w": [1]}})", "missing field 'entities.half_h'"},
    };
    for (const auto& [text, message] : cases) {
        try {
            (void)ro::app::sceneFromJson(text);
            ADD_FAILURE() << text << ": accepted";
        } catch (const ro::app::SceneFileError& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << text << ": " << e.what();
        }
    }
}

}  // namespace
