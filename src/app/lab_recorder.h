#pragma once
/// The lab's recorder: the commands of a recording as they come, with their ticks, and a
/// replay's place in the recording it plays. Lab owns one; the world's ticks and state are
/// the lab's, passed in.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "app/command.h"
#include "app/lab_state.h"
#include "ro/registry.h"

namespace ro::app {

class LabRecorder {
public:
    struct Replay {
        Recording recording;
        const TechniqueInfo* technique = nullptr;  ///< forced: recorded switches are skipped
        std::size_t next = 0;                       ///< the next input to apply
        bool finished = false;
        bool matched = false;
    };

    // ---- recording ------------------------------------------------------------------------------
    [[nodiscard]] bool recording() const { return m_recording.has_value(); }
    [[nodiscard]] std::size_t recordedInputs() const { return m_recording ? m_recording->inputs.size() : 0; }
    /// Records from `begun` (the state and camera now) at the world's tick `tick`.
    void start(Recording begun, std::uint64_t tick) {
        m_recording = std::move(begun);
        m_startTick = tick;
    }
    /// Notes `input` at the world's tick `tick`, while recording and not applying a replay.
    void note(Command input, std::uint64_t tick) {
        if (!m_recording || m_applying) return;
        input.tick = tick - m_startTick;
        m_recording->inputs.push_back(std::move(input));
    }
    /// Ends the recording at the world's tick `tick`, whose state has the fingerprint `hash`.
    Recording stop(std::uint64_t tick, std::uint64_t hash) {
        Recording recording = std::move(m_recording).value_or(Recording{});
        m_recording.reset();
        recording.endTick = tick - m_startTick;
        recording.endHash = hash;
        return recording;
    }

    // ---- replay ---------------------------------------------------------------------------------
    [[nodiscard]] Replay* replay() { return m_replay ? &*m_replay : nullptr; }
    [[nodiscard]] const Replay* replay() const { return m_replay ? &*m_replay : nullptr; }
    void startReplay(Replay replay) { m_replay = std::move(replay); }
    void stopReplay() { m_replay.reset(); }
    /// True while the replay's own inputs are applied (they are not the person's).
    [[nodiscard]] bool applyingReplay() const { return m_applying; }
    void setApplyingReplay(bool applying) { m_applying = applying; }
    /// The technique a replay runs with in place of the recorded switches, while it applies them.
    [[nodiscard]] const TechniqueInfo* forcedTechnique() const {
        return m_applying && m_replay ? m_replay->technique : nullptr;
    }
    /// True for a person's world-changing input during a replay: it is ignored. After the
    /// replay has finished such an input is taken, and the replay's status goes (the world is
    /// no longer the replayed one).
    [[nodiscard]] bool ignoresPersonsInput() {
        if (!m_replay || m_applying) return false;
        if (!m_replay->finished) return true;
        m_replay.reset();
        return false;
    }

private:
    std::optional<Recording> m_recording;
    std::uint64_t m_startTick = 0;
    std::optional<Replay> m_replay;
    bool m_applying = false;
};

}  // namespace ro::app
