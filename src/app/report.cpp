#include "app/report.h"

#include <SDL.h>
#include <fmt/core.h>

#include <cstdio>

namespace ro::app {

FrameReport makeReport(const Lab& lab, const QueryTool& queries, std::string_view renderer, double msDraw, float fps,
                       std::uint64_t frame) {
    const World& world = lab.world();
    const Counters& counters = world.lastStats().broadPhase;  // the tick's, not a query's sync
    const StepStats& stats = world.lastStats();
    const char* driver = SDL_GetCurrentVideoDriver();
    FrameReport r;
    r.technique = lab.technique().id;
    r.entities = world.size();
    r.steps = world.tickCount();
    r.candidates = stats.candidates;
    r.tests = counters.pairTests;
    r.overlaps = stats.overlaps;
    r.contacts = stats.contacts;
    r.hashFalsePositives = counters.hashFalsePositives;
    r.sortSwaps = counters.sortSwaps;
    r.sorts = (lab.technique().parameters & kUsesSweepAxis) != 0;
    r.cellSize = counters.cellSize;
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

void printReport(const FrameReport& r) {
    fmt::print(
        "frame={} technique={} entities={} steps={} candidates={} tests={} overlaps={} contacts={} hash_fp={} swaps={} "
        "cell={:.3f} ms_broad={:.3f} ms_pairs={:.3f} ms_narrow={:.3f} ms_integrate={:.3f} ms_draw={:.3f} bytes={} "
        "allocs={} fps={:.1f} video_driver={} renderer={} paused={}",
        r.frame, r.technique, r.entities, r.steps, r.candidates, r.tests, r.overlaps, r.contacts, r.hashFalsePositives,
        r.sortSwaps, r.cellSize, r.msBroad, r.msPairs, r.msNarrow, r.msIntegrate, r.msDraw, r.bytes, r.allocs, r.fps, r.videoDriver,
        r.renderer, r.paused ? 1 : 0);
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

}  // namespace ro::app
