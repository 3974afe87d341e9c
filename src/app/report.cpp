#include "app/report.h"

#include <SDL.h>
#include <fmt/core.h>

#include <cmath>
#include <cstdio>

namespace ro::app {

FrameReport makeReport(const Lab& lab, const QueryTool& queries, std::string_view renderer, double msDraw, float fps,
                       std::uint64_t frame) {
    const World& world = lab.world();
    const Counters& counters = world.lastStats().broadPhase;  // the tick's, not a query's sync
    const StepStats& stats = world.lastStats();
    const char* driver = SDL_GetCurrentVideoDriver();
    FrameReport r;
    r.technique = lab.session().technique().id;
    r.scene = lab.session().sceneName();
    r.compared = lab.compare().rows().size();
    r.entities = world.size();
    r.steps = world.tickCount();
    r.candidates = stats.candidates;
    r.tests = counters.pairTests;
    r.overlaps = stats.overlaps;
    r.contacts = stats.contacts;
    r.statics = world.staticCount();
    if (world.config().countMissed) r.missed = stats.missed;
    r.missedTotal = lab.missedTotal();
    r.msMissedCount = stats.msMissedCount;
    if (world.config().sweptBoxes) r.sweptExtra = stats.sweptExtra;
    if (world.config().timeOfImpact) r.impacts = stats.impacts;
    r.extra = counters.extra;
    r.msBroad = stats.msBroadUpdate;
    r.msPairs = stats.msPairFind;
    r.msNarrow = stats.msNarrow;
    r.msIntegrate = stats.msIntegrate;
    r.msDraw = msDraw;
    r.bytes = counters.bytesHeld;
    r.allocs = lab.lastStepAllocations();
    r.fps = fps;
    r.videoDriver = driver ? driver : "none";
    r.renderer = renderer;
    r.paused = lab.paused();
    r.simulationRate = lab.simulationRate();
    r.speed = world.config().speed;
    r.frame = frame;
    r.pointActive = queries.hoverPoint().has_value();
    r.pointHits = queries.pointHits().size();
    r.pointCost = queries.pointCost();
    if (queries.shape() == QueryTool::Shape::Box) {
        r.shape = "box";
        r.shapeHits = queries.boxHits().size();
    } else if (queries.shape() == QueryTool::Shape::Ray) {
        r.shape = "ray";
        r.shapeHits = queries.rayHits().size();
        if (const auto& first = queries.firstHit()) r.firstHit = first->index, r.firstHitT = first->t;
        r.firstHitCost = queries.firstHitCost();
    }
    r.shapeCost = queries.shapeCost();
    return r;
}

void FrameHistory::add(FrameReport& r) {
    if (r.technique != m_technique || r.scene != m_scene || r.entities != m_entities) {
        *this = FrameHistory{};
        m_technique = r.technique;
        m_scene = r.scene;
        m_entities = r.entities;
    }
    m_fps.add(r.fps);
    m_broad.add(r.msBroad);
    m_pairs.add(r.msPairs);
    m_narrow.add(r.msNarrow);
    m_integrate.add(r.msIntegrate);
    m_draw.add(r.msDraw);
    r.median = {m_fps.median(), m_broad.median(), m_pairs.median(), m_narrow.median(), m_integrate.median(),
                m_draw.median()};
}

void printReport(const FrameReport& r) {
    fmt::print(
        "frame={} technique={} scene={} compared={} entities={} steps={} candidates={} tests={} overlaps={} contacts={} ms_broad={:.3f} ms_pairs={:.3f} ms_narrow={:.3f} ms_integrate={:.3f} ms_draw={:.3f} bytes={} "
        "allocs={} fps={:.1f} video_driver={} renderer={} paused={}",
        r.frame, r.technique, r.scene, r.compared, r.entities, r.steps, r.candidates, r.tests, r.overlaps, r.contacts, r.msBroad, r.msPairs, r.msNarrow, r.msIntegrate, r.msDraw, r.bytes, r.allocs, r.fps, r.videoDriver,
        r.renderer, r.paused ? 1 : 0);
    if (r.statics > 0) fmt::print(" static={}", r.statics);
    if (!r.traceLabel.empty()) fmt::print(" trace_frame={} trace_frames={}", r.traceFrame, r.traceFrames);
    if (!r.verdictPick.empty()) fmt::print(" verdict={}", r.verdictPick);
    if (r.missed || r.missedTotal > 0) fmt::print(" missed={} missed_total={}", r.missed.value_or(0), r.missedTotal);
    if (r.sweptExtra) fmt::print(" swept_extra={}", *r.sweptExtra);
    if (r.impacts) fmt::print(" impacts={}", *r.impacts);
    // The technique's own counters, by key: cell_size=, sort_swaps=, hash_false_positives=.
    for (const NamedCounter& c : r.extra.all()) {
        if (c.value == std::floor(c.value)) fmt::print(" {}={:.0f}", c.key, c.value);
        else fmt::print(" {}={:.3f}", c.key, c.value);
    }
    if (r.sweepPlanned > 0)
        fmt::print(" sweep_points={} sweep_planned={} sweep_running={}", r.sweepPoints, r.sweepPlanned, r.sweepRunning ? 1 : 0);
    fmt::print(" ms_draw_median={:.3f} sim_rate={:.3f} speed={:.3f} zoom={:.4f} view_scale={:.6f} view_x={:.3f} view_y={:.3f}",
               r.median.msDraw, r.simulationRate, r.speed, r.zoom, r.view.scale, r.view.offsetX, r.view.offsetY);
    fmt::print(" view={}", r.drawn.density ? "density" : "shapes");
    fmt::print(" drawn_raster={} drawn_geometry={} off_screen={} cells_shown={} cells={} lines_shown={} lines={} "
               "pairs_shown={} pairs={} bounds_shown={} bounds={}",
               r.drawn.rasterized, r.drawn.geometry, r.drawn.offScreen, r.overlayCounts.cellsShown, r.overlayCounts.cells,
               r.overlayCounts.linesShown, r.overlayCounts.lines, r.overlayCounts.pairsShown, r.overlayCounts.pairs,
               r.overlayCounts.boundsShown, r.overlayCounts.bounds);
    if (r.overlayCounts.fast > 0 || r.overlayCounts.missMarks > 0)
        fmt::print(" fast_shown={} fast={} miss_marks={}", r.overlayCounts.fastShown, r.overlayCounts.fast,
                   r.overlayCounts.missMarks);
    // Where the world and the windows are, so that a test can check that none covers another.
    const auto rect = [](const Rect& a) { return fmt::format("{:.0f},{:.0f},{:.0f},{:.0f}", a.x, a.y, a.w, a.h); };
    fmt::print(" world_view={} ui_rects=", rect(r.worldView));
    bool first = true;
    for (const auto& [windowName, area] : {std::pair{"panel", &r.ui.panel}, {"hud", &r.ui.hud}, {"compare", &r.ui.compare},
                                           {"legend", &r.ui.legend}, {"plots", &r.ui.plots}}) {
        if (area->empty()) continue;
        fmt::print("{}{}:{}", first ? "" : ";", windowName, rect(*area));
        first = false;
    }
    if (first) fmt::print("none");
    if (r.pointActive)
        fmt::print(" point_hits={} point_visited={} point_tests={}", r.pointHits, r.pointCost.visited, r.pointCost.tests);
    if (!r.shape.empty())
        fmt::print(" query={} query_hits={} query_visited={} query_tests={}", r.shape, r.shapeHits,
                   r.shapeCost.visited, r.shapeCost.tests);
    if (r.shape == "ray")
        fmt::print(" first_hit={} first_t={:.4f} first_visited={} first_tests={}", r.firstHit, r.firstHitT,
                   r.firstHitCost.visited, r.firstHitCost.tests);
    fmt::print("\n");
    std::fflush(stdout);
}

bool printCompare(const Compare& compare) {
    bool wrong = compare.referenceDisagreements() > 0;
    for (const Compare::Row& row : compare.rows()) {
        const Counters& c = row.counters;
        fmt::print("compare={} reference={} skipped={} ticks={} ms_update_median={:.4f} ms_update_p95={:.4f} "
                   "ms_pairs_median={:.4f} ms_pairs_p95={:.4f} candidates={} tests={} overlaps={} bytes={} allocs={} "
                   "mismatch_ticks={} reference_disagreements={}",
                   row.technique->id, compare.referenceName(), row.skipped ? 1 : 0, row.ticks, row.msUpdate.median(),
                   row.msUpdate.quantile(0.95), row.msPairs.median(), row.msPairs.quantile(0.95), c.candidatePairs,
                   c.pairTests, row.overlaps, c.bytesHeld, c.heapAllocations, row.mismatchTicks,
                   compare.referenceDisagreements());
        if (const auto& m = row.firstMismatch)
            fmt::print(" first_mismatch_tick={} first_mismatch_pair={},{} first_mismatch_kind={}", m->tick, m->pair.a,
                       m->pair.b, m->missing ? "missing" : "extra");
        fmt::print("\n");
        wrong |= row.mismatchTicks > 0;
    }
    std::fflush(stdout);
    return wrong;
}

}  // namespace ro::app
