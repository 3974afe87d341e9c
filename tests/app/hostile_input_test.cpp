// Hostile scene and replay files: each is refused at load with exit-2 kind of error (a
// SceneFileError) that names the field, quotes at most a short escaped piece of the value, and
// says the real reason; nothing a file holds reaches the lab unchecked.

#include <gtest/gtest.h>

#include <string>

#include "app/lab.h"
#include "app/scene_file.h"
#include "ro/registry.h"

namespace {

using ro::app::Command;
using ro::app::Lab;

/// A small recorded replay: a click, a count change, a technique switch.
std::string goodReplay() {
    Lab lab(*ro::findTechnique("grid"), 100, 3, {});
    EXPECT_TRUE(lab.startRecording());
    lab.update(1.0 / 60.0, false);
    lab.apply(Command::spawn({400.0f, 300.0f}));
    lab.update(1.0 / 60.0, false);
    lab.apply(Command::count(150));
    lab.apply(Command::useTechnique(*ro::findTechnique("sap")));
    lab.update(1.0 / 60.0, false);
    return ro::app::replayToJson(lab.stopRecording());
}

std::string goodScene() {
    Lab lab(*ro::findTechnique("hash"), 50, 3, {});
    return ro::app::sceneToJson({lab.capture(), {}});
}

/// `text` with its first `from` replaced by `to`.
std::string edited(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

/// The replay with one more input appended after its last one (at the last input's tick).
std::string withInput(const std::string& replay, const std::string& input) {
    return edited(replay, "\"inputs\": [", "\"inputs\": [\n  " + input + ",");
}

template <typename Parse>
std::string refusal(Parse parse, const std::string& text) {
    try {
        (void)parse(text);
    } catch (const ro::app::SceneFileError& e) {
        return e.what();
    }
    return "accepted";
}

std::string replayRefusal(const std::string& text) {
    return refusal([](const std::string& t) { return ro::app::replayFromJson(t); }, text);
}
std::string sceneRefusal(const std::string& text) {
    return refusal([](const std::string& t) { return ro::app::sceneFromJson(t); }, text);
}

#define EXPECT_CONTAINS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

// 1: a document nested deeper than any file of ours is refused before the parser recurses.
TEST(HostileInput, DeepNestingIsRefused) {
    const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
    EXPECT_CONTAINS(sceneRefusal("{\"junk\": " + deep + ", \"a\": 1}"), "nested too deep");
    EXPECT_CONTAINS(replayRefusal("{\"junk\": " + deep + ", \"a\": 1}"), "nested too deep");
}

// 8: a stop request (the app asks whether SIGINT or SIGTERM came) ends a load while it parses.
TEST(HostileInput, AStopRequestEndsALongLoad) {
    std::string text = "{\"entities\": [";  // 60,000 boxes: 300,000 values
    for (int i = 0; i < 60'000; ++i) text += "{\"x\": 0, \"y\": 0, \"w\": 1, \"h\": 1},";
    text.back() = ']';
    text += "}";
    EXPECT_NO_THROW((void)ro::app::sceneFromJson(text, [] { return false; }));
    int asked = 0;
    EXPECT_THROW((void)ro::app::sceneFromJson(text, [&] { return ++asked == 2; }), ro::app::LoadStopped);
    EXPECT_EQ(asked, 2);
}

// 2: the entity count is checked when it is read, and the columns after it are held to it as
// they are parsed (not after a column of millions is in memory).
TEST(HostileInput, ColumnsAreHeldToTheCountWhileParsed) {
    const std::string good = goodScene();
    EXPECT_CONTAINS(sceneRefusal(edited(good, "\"count\": 50", "\"count\": 3000000")), "at most 2000000 entities");
    std::string zeros;
    for (int i = 0; i < 1'000'000; ++i) zeros += "0,";
    EXPECT_CONTAINS(sceneRefusal(edited(good, "\"x\": [", "\"x\": [" + zeros)), "'entities.x' has more items than its 50");
    EXPECT_CONTAINS(replayRefusal(edited(goodReplay(), "\"y\": [", "\"y\": [" + zeros)), "'entities.y' has more items");
}

// 4: counts are capped as --entities is; a huge one is not converted to 32 bits.
TEST(HostileInput, ReplayCountsAreCappedAtLoad) {
    const std::string good = goodReplay();
    EXPECT_CONTAINS(replayRefusal(withInput(good, R"({"tick": 0, "input": "count", "value": 3000000})")),
                    "inputs[0].value");
    EXPECT_CONTAINS(replayRefusal(withInput(good, R"({"tick": 0, "input": "count", "value": 1000000000000000000})")),
                    "inputs[0].value");
    EXPECT_CONTAINS(replayRefusal(withInput(good, R"({"tick": 0, "input": "count", "value": 1e18})")), "inputs[0].value");
}

// 5: brute force's limit holds for a count reached before the switch to it.
TEST(HostileInput, ReplaySwitchToBruteOverItsLimitIsRefused) {
    const std::string good = goodReplay();
    const std::string text = edited(edited(good, "\"value\": 150", "\"value\": 200000"), "\"name\": \"sap\"",
                                    "\"name\": \"brute\"");
    const std::string why = replayRefusal(text);
    EXPECT_CONTAINS(why, "inputs[2]");
    EXPECT_CONTAINS(why, "'brute'");
    // Replayed under brute force (--technique brute), its switches ignored: refused as well.
    const ro::app::Recording raised = ro::app::replayFromJson(edited(good, "\"value\": 150", "\"value\": 200000"));
    EXPECT_THROW(ro::app::checkReplayCounts(raised, ro::findTechnique("brute")), ro::app::SceneFileError);
    EXPECT_NO_THROW(ro::app::checkReplayCounts(raised, ro::findTechnique("grid")));
}

// 6: every value is checked at load against the flags' limits, and names are known ones.
TEST(HostileInput, ReplayValuesAreCheckedAtLoad) {
    const std::string good = goodReplay();
    const struct {
        std::string input;
        const char* message;
    } cases[] = {
        {R"({"tick": 0, "input": "parameter", "name": "cell_size", "value": -5})", "cell_size"},
        {R"({"tick": 0, "input": "parameter", "name": "cell_size", "value": 1e-30})", "cell_size"},
        {R"({"tick": 0, "input": "parameter", "name": "hash_buckets", "value": 1e18})", "hash_buckets"},
        {R"({"tick": 0, "input": "parameter", "name": "warp", "value": 1})", "'warp'"},
        {R"({"tick": 0, "input": "technique", "name": "octree"})", "'octree'"},
        {R"({"tick": 0, "input": "preset", "name": "snow"})", "'snow'"},
        {R"({"tick": 0, "input": "sizes", "min_half": 1e30, "max_half": 1e30})", "inputs[0]"},
        {R"({"tick": 0, "input": "sizes", "min_half": 1e-30, "max_half": 1})", "inputs[0]"},
    };
    for (const auto& c : cases) {
        const std::string why = replayRefusal(withInput(good, c.input));
        EXPECT_CONTAINS(why, "inputs[0]");
        EXPECT_CONTAINS(why, c.message);
    }
    // A world input: the start's world with one value out of range.
    const std::size_t at = good.find("\"world\": {");
    ASSERT_NE(at, std::string::npos);
    const std::string world = good.substr(at, good.find('}', at) - at + 1);
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"tick_hz\": 60.0", "\"tick_hz\": 0"},
                                   {"\"bounds\": [", "\"bounds\": [-1e30, -1e30, 1e30, 1e30], \"old_bounds\": ["}}) {
        const std::string input = "{\"tick\": 0, \"input\": \"world\", " + edited(world, from, to) + "}";
        EXPECT_CONTAINS(replayRefusal(withInput(good, input)), "inputs[0]");
    }
}

// 10: a value is quoted short and escaped; the reason is the real one.
TEST(HostileInput, MessagesQuoteShortEscapedValues) {
    const std::string good = goodScene();
    const std::string longName = edited(good, "\"technique\": \"hash\"", "\"technique\": \"" + std::string(1'000'000, 'w') + "\"");
    Lab lab(*ro::findTechnique("grid"), 10, 1, {});
    // The technique is checked where the file is read, not only by the lab.
    const std::string why = sceneRefusal(longName);
    EXPECT_LT(why.size(), 300u) << why.substr(0, 300);
    const std::string control = sceneRefusal(edited(good, "\"technique\": \"hash\"", "\"technique\": \"a\\u001b[31mb\""));
    EXPECT_EQ(control.find('\x1b'), std::string::npos) << control;
    EXPECT_CONTAINS(control, "'a\\x1B[31mb'");
    // Half a UTF-8 character is not JSON; the parser's message quotes it escaped.
    const std::string half = sceneRefusal(edited(good, "\"technique\": \"hash\"", "\"technique\": \"ab\xC3\""));
    EXPECT_EQ(half.find('\xC3'), std::string::npos) << half;
    EXPECT_CONTAINS(half, "\\xC3");
    const std::string seedArray = edited(good, "\"seed\": 3", "\"seed\": [" + std::string(200'000, '1') + "]");
    EXPECT_LT(sceneRefusal(seedArray).size(), 300u);
    EXPECT_CONTAINS(sceneRefusal(edited(good, "\"speed\": 1.0", "\"speed\": 3.5e38")), "out of float range");
    EXPECT_CONTAINS(sceneRefusal(edited(good, "\"centre\": null", "\"centre\": [-3.5e38, 0]")), "out of float range");
}

// 12: a duplicated key, and camera or cell values the flags refuse.
TEST(HostileInput, SceneDuplicatesAndOutOfRangeValuesAreRefused) {
    const std::string good = goodScene();
    EXPECT_CONTAINS(sceneRefusal(edited(good, "\"technique\": \"hash\"", "\"technique\": \"warp\", \"technique\": \"grid\"")),
                    "'technique'");
    EXPECT_CONTAINS(sceneRefusal(edited(good, "\"zoom\": 1.0", "\"zoom\": 1e-30")), "camera.zoom");
    EXPECT_CONTAINS(sceneRefusal(edited(good, "\"zoom\": 1.0", "\"zoom\": 3e38")), "camera.zoom");
    EXPECT_CONTAINS(sceneRefusal(edited(good, "\"centre\": null", "\"centre\": [3e38, -3e38]")), "camera.centre");
    EXPECT_CONTAINS(sceneRefusal(edited(good, "\"parameters\": {", "\"parameters\": {\"cell_size\": 1e-30,")), "cell_size");
    // A duplicated key in a replay's input too.
    EXPECT_CONTAINS(replayRefusal(withInput(goodReplay(), R"({"tick": 0, "tick": 0, "input": "respawn"})")), "'tick'");
}

}  // namespace
