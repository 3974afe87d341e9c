#pragma once
/// The figures of one frame, as the HUD shows them and as the counters line prints them.

#include <cstdint>
#include <string_view>

#include "app/lab.h"
#include "app/queries.h"

namespace ro::app {

struct FrameReport {
    std::string_view technique;
    std::uint32_t entities = 0;
    std::uint64_t steps = 0;
    std::uint64_t candidates = 0;
    std::uint64_t tests = 0;
    std::uint64_t overlaps = 0;
    std::uint64_t contacts = 0;
    std::uint64_t hashFalsePositives = 0;
    std::uint64_t sortSwaps = 0;  ///< the sweeps' insertion-sort swaps in the last step
    bool sorts = false;           ///< the technique keeps a sorted order (show sortSwaps)
    float cellSize = 0.0f;  ///< the technique's effective cell size (0 without cells)
    double msBroad = 0.0;
    double msPairs = 0.0;
    double msNarrow = 0.0;
    double msIntegrate = 0.0;
    double msDraw = 0.0;  ///< measured by the app around all drawing of the frame
    std::uint64_t bytes = 0;
    std::uint64_t allocs = 0;  ///< heap allocations of the last simulation update
    float fps = 0.0f;
    std::string_view videoDriver;
    std::string_view renderer;  ///< SDL render driver in use, e.g. "software", "opengl"
    bool paused = false;
    std::uint64_t frame = 0;

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

/// Gathers the figures of the frame just simulated and drawn.
[[nodiscard]] FrameReport makeReport(const Lab& lab, const QueryTool& queries, std::string_view renderer,
                                     double msDraw, float fps, std::uint64_t frame);

/// Prints the report as one line of key=value pairs on stdout and flushes it (tests read it live).
void printReport(const FrameReport& report);

}  // namespace ro::app
