#pragma once
/// The lab's clock: how the ticks of a frame share the wall clock with the UI, and how fast
/// simulated time goes against real time. Lab owns one; it steps nothing itself.

#include <algorithm>
#include <cmath>

namespace ro::app {

class LabClock {
public:
    /// The clock that times the ticks of an update, in seconds: the steady clock, or one a
    /// test drives so that pacing is checked without depending on how fast the machine is.
    using WallClock = double (*)();
    /// Ticks stop after this much of a frame (World::advance's budget).
    static constexpr double kTickBudgetSeconds = 0.025;

    explicit LabClock(WallClock clock) : m_wallClock(clock) {}
    void setWallClock(WallClock clock) { m_wallClock = clock; }
    [[nodiscard]] double now() const { return m_wallClock(); }

    /// Starts a frame `realSeconds` long: the pace decays with a time constant of about a
    /// second. Returns the part of the frame that was the UI's: the frame that ran the last
    /// ticks lasted them too.
    double beginFrame(double realSeconds) {
        const double keep = std::exp(-std::clamp(realSeconds, 0.0, 10.0));
        m_recentReal *= keep;
        m_recentSimulated *= keep;
        const double uiSeconds = std::max(0.0, realSeconds - m_lastUpdateTicksSeconds);
        m_lastUpdateTicksSeconds = 0.0;
        return uiSeconds;
    }
    /// Frames without ticks are still owed to the UI after a slow tick.
    [[nodiscard]] bool uiTurn() const { return m_uiTurnSeconds > 0.0; }
    /// A frame of `uiSeconds` given to the UI: its time is dropped.
    void takeUiTurn(double uiSeconds) { m_uiTurnSeconds -= uiSeconds; }
    /// A pause, a resume or an alarm: nothing is owed any more.
    void cancelUiTurn() { m_uiTurnSeconds = 0.0; }
    /// The ticks of this frame took `seconds`: when more than the budget, as long again goes to the UI.
    void ticksRan(double seconds) {
        m_lastTicksSeconds = m_lastUpdateTicksSeconds = seconds;
        if (m_lastTicksSeconds > kTickBudgetSeconds) m_uiTurnSeconds = m_lastTicksSeconds;
    }
    /// Wall time of the ticks of the last frame that ran any, in seconds.
    [[nodiscard]] double lastTicksSeconds() const { return m_lastTicksSeconds; }

    /// A running frame: `real` seconds (times the speed setting) went by, `simulated` were stepped.
    void addPace(double real, double simulated) {
        m_recentReal += real;
        m_recentSimulated += simulated;
    }
    /// Simulated time over real time across about the last second (1 when it keeps up).
    [[nodiscard]] double rate() const {
        return m_recentReal > 0.0 ? std::min(1.0, m_recentSimulated / m_recentReal) : 1.0;
    }
    /// The "slowed: 83% of real time" of a scene or technique that is gone (onecell's ticks,
    /// then 0 ms ones) would show for a second after a change: the pace starts over.
    void forgetPace() { m_recentReal = m_recentSimulated = 0.0; }

private:
    WallClock m_wallClock;
    double m_uiTurnSeconds = 0.0;   ///< frames without ticks still owed to the UI after a slow tick
    double m_lastTicksSeconds = 0.0;
    double m_lastUpdateTicksSeconds = 0.0;  ///< wall time of the last update's ticks, 0 if it ran none
    double m_recentReal = 0.0;      ///< decaying sums of real and simulated seconds (about 1 s)
    double m_recentSimulated = 0.0;
};

}  // namespace ro::app
