#pragma once
/// What a scene is made of, measured from its frames: the properties that decide which
/// technique suits it (how many boxes, how many static, how many move and by how much
/// against their size, how their sizes spread, how crowded they are, how many come and go).
/// The verdict's "why" is built from them.

#include <cstdint>
#include <vector>

#include "ro/broadphase.h"

namespace ro {

struct SceneProfile {
    std::uint64_t frames = 0;
    double meanBoxes = 0;        ///< boxes alive in a frame, on average
    double staticShare = 0;      ///< of the boxes, flagged static (0 to 1)
    double movedShare = 0;       ///< of the boxes present in two frames in a row, those that moved (0 to 1)
    double motionPerSize = 0;    ///< the median moved box's displacement over its larger side
    double sideP50 = 0, sideP99 = 0;  ///< the larger side of a box: median and 99th percentile
    double overlapsPerBox = 0;   ///< overlapping pairs (closed, not two statics) per box
    double churnPerFrame = 0;    ///< ids created plus ids destroyed, per frame after the first
};

/// Takes a scene's frames one by one (any ids, any count per frame) and measures them. Sizes
/// and overlaps are measured on frames 1, 2, 4, 8, ...: their cost stays O(n log n) on a few
/// frames, motion and churn on every one (O(n log n) a frame, by sorting ids).
class SceneProfiler {
public:
    void addFrame(const BoxView& boxes);
    [[nodiscard]] SceneProfile profile() const;

private:
    struct Centre {
        std::uint32_t id;
        float x, y, side;
    };
    std::vector<Centre> m_previous, m_current;  ///< sorted by id
    std::vector<double> m_motions;              ///< displacement over side, one per moved box (sampled)
    std::vector<float> m_sides;                 ///< of the sampled frames
    std::uint64_t m_frames = 0, m_boxes = 0, m_statics = 0;
    std::uint64_t m_present = 0, m_moved = 0, m_churn = 0;
    std::uint64_t m_overlaps = 0, m_sampledBoxes = 0;
};

}  // namespace ro
