// The lab's record and replay: every input that changes the world is noted with its tick, and
// a replay applies the same inputs before the same ticks. The world is deterministic (pairs are
// resolved in canonical order whatever the technique), so it arrives at the same state.

#include <fmt/core.h>

#include <cstring>
#include <stdexcept>

#include "app/lab.h"

namespace ro::app {

bool Lab::ignoredDuringReplay() { return m_recorder.ignoresPersonsInput(); }

bool Lab::startRecording(const Camera& camera) {
    if (m_recorder.replay() && !m_recorder.replay()->finished) return false;
    if (m_session.trace()) return false;  // a trace's frames are no inputs a replay could repeat
    m_recorder.stopReplay();
    m_recorder.start(Recording{capture(), camera, {}, 0, 0}, m_world.tickCount());
    return true;
}

Recording Lab::stopRecording() {
    return m_recorder.stop(m_world.tickCount(), stateHash());
}

void Lab::record(Command input) {
    m_recorder.note(std::move(input), m_world.tickCount());
}

void Lab::startReplay(const Recording& recording, const TechniqueInfo* technique) {
    if (m_recorder.recording()) throw std::invalid_argument("stop recording before replaying");
    for (const Command& input : recording.inputs)
        if (input.tick > recording.endTick)
            throw std::invalid_argument(fmt::format("an input at tick {} comes after the end tick {}", input.tick,
                                                    recording.endTick));
    restore(recording.start);  // throws, leaving the lab as it was, for a start it refuses
    if (technique) setTechnique(*technique);
    m_recorder.startReplay({recording, technique, 0, false, false});
    m_paused = false;
    applyDueInputs();
}

std::optional<Lab::ReplayStatus> Lab::replayStatus() const {
    const LabRecorder::Replay* replay = m_recorder.replay();
    if (!replay) return std::nullopt;
    return ReplayStatus{m_world.tickCount(), replay->recording.endTick, replay->finished, replay->matched};
}

void Lab::applyDueInputs() {
    LabRecorder::Replay& replay = *m_recorder.replay();
    const std::vector<Command>& inputs = replay.recording.inputs;
    m_recorder.setApplyingReplay(true);
    while (replay.next < inputs.size() && inputs[replay.next].tick <= m_world.tickCount()) apply(inputs[replay.next++]);
    m_recorder.setApplyingReplay(false);
    if (m_world.tickCount() >= replay.recording.endTick && !replay.finished) {
        replay.finished = true;
        replay.matched = stateHash() == replay.recording.endHash;
        m_paused = true;
        m_refreshPending = true;
    }
}

std::uint64_t Lab::stateHash() const {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    auto mix = [&](const void* data, std::size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 0x100000001b3ull;
    };
    const std::uint32_t count = m_world.size();
    mix(&count, sizeof count);
    for (const auto column : {m_world.posX(), m_world.posY(), m_world.prevX(), m_world.prevY(), m_world.accX(),
                              m_world.accY(), m_world.halfW(), m_world.halfH()})
        mix(column.data(), column.size_bytes());
    mix(m_world.shapes().data(), m_world.shapes().size_bytes());
    return hash;
}

}  // namespace ro::app
