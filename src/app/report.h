#pragma once
/// The figures of one frame, as the HUD shows them and as the counters line prints them.

#include <cstdint>
#include <optional>
#include <string_view>

#include "app/lab.h"
#include "app/layout.h"
#include "app/overlays.h"
#include "app/queries.h"
#include "app/rolling.h"

namespace ro::app {

/// Medians over about the last second of frames (see FrameHistory).
struct FrameMedians {
    double fps = 0.0, msBroad = 0.0, msPairs = 0.0, msNarrow = 0.0, msIntegrate = 0.0, msDraw = 0.0;
};

struct FrameReport {
    std::string_view technique;
    std::string_view scene;  ///< the preset: a scenario's name, "random" or "trace"
    std::string_view traceLabel;  ///< "trace NAME" while a trace plays, else empty
    std::uint64_t traceFrame = 0, traceFrames = 0;  ///< the frame shown (from 1) and how many there are
    std::string_view verdictPick;  ///< the technique Compare's verdict picks, empty with none
    std::size_t compared = 0;  ///< techniques run beside the world's (compare rows)
    std::uint32_t entities = 0;
    std::uint64_t steps = 0;
    std::uint64_t candidates = 0;
    std::uint64_t tests = 0;
    std::uint64_t overlaps = 0;
    std::uint64_t contacts = 0;
    std::uint32_t statics = 0;                ///< static entities
    std::optional<std::uint64_t> missed;      ///< with the world's missed count on
    std::uint64_t missedTotal = 0;            ///< since the scene was made (Lab::missedTotal)
    double msMissedCount = 0.0;               ///< what counting them cost
    std::optional<std::uint64_t> sweptExtra;  ///< with swept boxes on
    std::optional<std::uint64_t> impacts;     ///< with time of impact on
    ExtraCounters extra;  ///< the technique's own counters (cell size in use, sort swaps, ...)
    double msBroad = 0.0;
    double msPairs = 0.0;
    double msNarrow = 0.0;
    double msIntegrate = 0.0;
    double msDraw = 0.0;  ///< measured by the app around the world's drawing (entities, overlays)
    DrawnEntities drawn;          ///< how the entities were drawn (raster, geometry, off screen)
    OverlayCounts overlayCounts;  ///< what the overlays showed of what there was
    FrameMedians median;          ///< set by FrameHistory::add
    double simulationRate = 1.0;  ///< simulated over real time (Lab::simulationRate)
    double msLastTicks = 0.0;     ///< wall time of the last frame that ran ticks
    float zoom = 1.0f;
    ViewTransform view;           ///< world to window pixels this frame (the camera)
    Rect worldView;               ///< the window's rectangle the world is drawn in (the layout's)
    UiRects ui;                   ///< the ImGui windows as drawn this frame (empty: not shown)
    float speed = 1.0f;           ///< the world's speed setting
    std::string_view message;     ///< a line for the person (where a screenshot went)
    std::uint64_t bytes = 0;
    std::uint64_t allocs = 0;  ///< heap allocations of the last simulation update
    float fps = 0.0f;
    std::string_view videoDriver;
    std::string_view renderer;  ///< SDL render driver in use, e.g. "software", "opengl"
    bool paused = false;
    std::uint64_t frame = 0;
    std::size_t sweepPoints = 0, sweepPlanned = 0;  ///< the Plots window's sweep: measured, planned
    bool sweepRunning = false;

    // The query tools (see QueryTool): what each found and what it cost the technique.
    bool pointActive = false;
    std::uint64_t pointHits = 0;
    QueryCost pointCost;
    std::string_view shape;  ///< "box", "ray" or "" when no box or ray is set
    std::uint64_t shapeHits = 0;
    QueryCost shapeCost;
    std::int64_t firstHit = -1;  ///< the ray's first hit (dense index), -1 for none
    float firstHitT = 0.0f;
    QueryCost firstHitCost;

    /// (candidates - overlaps) / candidates: the share of candidates the exact test rejects.
    [[nodiscard]] double falsePositiveRatio() const {
        return candidates == 0 ? 0.0 : static_cast<double>(candidates - overlaps) / static_cast<double>(candidates);
    }
};

/// The last second of frames, for the medians the HUD shows beside the last values.
class FrameHistory {
public:
    /// Adds the report's figures and writes the medians into it. Starts over when the
    /// technique, the preset or the count differs from the last report's: the medians
    /// describe the scene on screen, not the one before.
    void add(FrameReport& report);

private:
    RollingMedian<> m_fps, m_broad, m_pairs, m_narrow, m_integrate, m_draw;
    std::string_view m_technique, m_scene;  ///< the last report's (registry and preset names: static strings)
    std::uint32_t m_entities = 0;
};

/// Gathers the figures of the frame just simulated and drawn.
[[nodiscard]] FrameReport makeReport(const Lab& lab, const QueryTool& queries, std::string_view renderer,
                                     double msDraw, float fps, std::uint64_t frame);

/// Prints one key=value line per compared technique (compare= its id): medians and 95th
/// percentiles of the last second, the last tick's counters, the mismatches and the first one.
/// Returns true when any technique had a mismatch or the reference's two halves disagreed.
bool printCompare(const Compare& compare);

/// Prints the report as one line of key=value pairs on stdout and flushes it (tests read it live).
void printReport(const FrameReport& report);

}  // namespace ro::app
