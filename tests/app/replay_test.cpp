// Record and replay: a session of clicks, removes, slider moves and technique switches, replayed
// from its file under two other techniques, arrives at the same state bit for bit.

#include <gtest/gtest.h>

#include "app/lab.h"
#include "app/scene_file.h"
#include "ro/registry.h"
#include "scenario/scenario.h"

namespace {

using ro::app::Command;
using ro::app::Lab;
using ro::app::Recording;

/// A session as a person would make it: inputs between frames of one to three ticks.
Recording recordSession(Lab& lab) {
    EXPECT_TRUE(lab.startRecording());
    auto frames = [&](int n) {
        for (int i = 0; i < n; ++i) lab.update(1.0 / 60.0 * (1 + i % 3), false);
    };
    frames(10);
    lab.apply(Command::spawn({400.0f, 300.0f}));
    lab.apply(Command::spawn({410.0f, 305.0f}));
    frames(5);
    lab.apply(Command::remove({400.0f, 300.0f}));
    lab.apply(Command::useTechnique(*ro::findTechnique("sap")));
    frames(12);
    lab.apply(Command::count(900));
    lab.apply(Command::parameter(ro::kCellSizeParameter, 30.0));
    frames(7);
    ro::WorldConfig config = lab.world().config();
    config.subSteps = 2;
    config.gravity = true;
    lab.apply(Command::worldConfig(config));
    lab.apply(Command::stepTechnique(+1));
    frames(9);
    lab.apply(Command::preset(ro::findScenario("dense")));
    frames(6);
    lab.apply(Command::spawn({5.0f, 5.0f}));
    lab.apply(Command::autoCellSize());
    frames(8);
    return lab.stopRecording();
}

TEST(Replay, ARecordedSessionReplaysToTheSameStateUnderOtherTechniques) {
    Lab lab(*ro::findTechnique("grid"), 700, 11, {});
    const Recording recording = recordSession(lab);
    EXPECT_EQ(recording.inputs.size(), 11u);
    EXPECT_GT(recording.endTick, 60u);
    EXPECT_EQ(recording.endHash, lab.stateHash());
    const auto end = lab.capture();

    // Through the file, as ro_demo --replay reads it.
    const Recording loaded = ro::app::replayFromJson(ro::app::replayToJson(recording));
    EXPECT_EQ(ro::app::replayToJson(loaded), ro::app::replayToJson(recording));

    for (const char* technique : {"", "hash", "tree"}) {
        Lab replay(*ro::findTechnique("quadtree"), 50, 99, {});
        replay.startReplay(loaded, *technique ? ro::findTechnique(technique) : nullptr);
        // The person's own clicks are ignored while it replays.
        replay.apply(Command::spawn({300.0f, 300.0f}));
        for (int frame = 0; frame < 1000 && !replay.replayStatus()->finished; ++frame) replay.update(1.0 / 60.0, false);
        const auto status = replay.replayStatus();
        ASSERT_TRUE(status->finished) << technique;
        EXPECT_TRUE(status->matched) << technique;
        EXPECT_EQ(status->tick, recording.endTick);
        EXPECT_TRUE(replay.paused());
        EXPECT_EQ(replay.stateHash(), lab.stateHash()) << technique;
        EXPECT_EQ(replay.world().size(), lab.world().size());
        EXPECT_EQ(std::string(replay.session().technique().id), *technique ? technique : end.technique);
        EXPECT_EQ(replay.session().sceneName(), "dense");
    }
}

TEST(Replay, AfterAReplayHasFinishedThePersonsInputsChangeTheWorldAgain) {
    // A walk-through found every click, preset and respawn ignored after a finished replay,
    // with nothing on screen saying so.
    Lab lab(*ro::findTechnique("grid"), 300, 5, {});
    const Recording recording = recordSession(lab);
    Lab replay(*ro::findTechnique("grid"), 10, 5, {});
    replay.startReplay(recording);
    const std::size_t during = replay.world().size();
    replay.apply(Command::spawn({300.0f, 300.0f}));
    EXPECT_EQ(replay.world().size(), during) << "a click while the replay runs is ignored";
    EXPECT_FALSE(replay.startRecording()) << "no recording while a replay runs";
    for (int frame = 0; frame < 1000 && !replay.replayStatus()->finished; ++frame) replay.update(1.0 / 60.0, false);
    ASSERT_TRUE(replay.replayStatus()->finished);
    ASSERT_TRUE(replay.replayStatus()->matched);

    const std::size_t done = replay.world().size();
    replay.apply(Command::spawn({300.0f, 300.0f}));
    EXPECT_EQ(replay.world().size(), done + 1);
    EXPECT_FALSE(replay.replayStatus()) << "the replay's status is no longer about this world";
    replay.apply(Command::preset(ro::findScenario("uniform")));
    EXPECT_EQ(replay.session().sceneName(), "uniform");
    EXPECT_TRUE(replay.startRecording());
}

TEST(Replay, AChangedStartDoesNotMatch) {
    Lab lab(*ro::findTechnique("hshg"), 400, 2, {});
    Recording recording = recordSession(lab);
    // Not the run that was recorded: the last click lands elsewhere.
    ASSERT_EQ(recording.inputs[9].kind, ro::app::Command::Kind::Spawn);
    recording.inputs[9].point.x += 3.0f;
    Lab replay(*ro::findTechnique("hshg"), 10, 2, {});
    replay.startReplay(recording);
    for (int frame = 0; frame < 1000 && !replay.replayStatus()->finished; ++frame) replay.update(1.0 / 60.0, false);
    ASSERT_TRUE(replay.replayStatus()->finished);
    EXPECT_FALSE(replay.replayStatus()->matched);
}

TEST(Replay, BadReplayFilesAreRefused) {
    Lab lab(*ro::findTechnique("grid"), 100, 2, {});
    const std::string good = ro::app::replayToJson(recordSession(lab));
    auto refused = [](const std::string& text, const char* message) {
        try {
            (void)ro::app::replayFromJson(text);
            ADD_FAILURE() << "accepted; expected: " << message;
        } catch (const ro::app::SceneFileError& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what() << "; expected: " << message;
        }
    };
    auto edited = [&](const std::string& from, const std::string& to) {
        std::string text = good;
        const std::size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) text.replace(at, from.size(), to);
        return text;
    };
    refused("[]", "top level must be an object");
    refused(edited("ro-broadphase-lab replay", "ro-broadphase-lab scene"), "not a replay file");
    refused(edited("\"version\": 3", "\"version\": 2"), "replay format version 2 is not supported (this build reads version 3)");
    refused(edited("\"input\": \"spawn\"", "\"input\": \"teleport\""), "is not an input: 'teleport'");
    refused(edited("\"end_tick\"", "\"end_tick\": 1, \"was_end_tick\""), "after the end tick 1");
    refused(edited("\"end_hash\"", "\"end_hush\""), "missing field 'end_hash'");
    refused(edited("\"format\": \"ro-broadphase-lab scene\"", "\"format\": \"x\""), "in 'start': not a scene file");
}

}  // namespace
