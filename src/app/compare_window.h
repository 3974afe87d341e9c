#pragma once
/// The Compare window: the compared techniques ranked, the verdict and its "Use" button.

#include "app/compare_verdict.h"
#include "app/lab.h"
#include "app/layout.h"

namespace ro::app {

/// The Compare window's verdict, ranked again about twice a second (a table that reorders
/// every frame cannot be read); no sentence and no pick before two frames are compared.
struct CompareUi {
    CompareVerdict verdict;
    double rankedAt = -1.0;  ///< ImGui time of the last ranking
    std::size_t rankedRows = 0;
};

/// Ranks the compared techniques and, when `area` is not empty, builds the compare table
/// there (one row per compared technique). Sorted by measured cost, with the scene's profile
/// and the verdict; "Use this" makes the verdict's pick the world's technique.
void drawCompare(const Lab& lab, CommandQueue& commands, UiRects& rects, CompareUi& ui, const Rect& area);

}  // namespace ro::app
