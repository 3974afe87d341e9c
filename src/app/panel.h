#pragma once

#include <imgui.h>

#include <string>
/// The ImGui panel (top-left: technique, settings, population, clock, overlays) and the HUD
/// (top-right, undecorated: the counters of the last step).

#include "app/compare_verdict.h"
#include "app/lab.h"
#include "app/options.h"
#include "app/report.h"

namespace ro::app {

/// Where the panel and the HUD were last drawn, in window pixels. ImGui 1.86 decides
/// io.WantCaptureMouse from where the pointer is when a frame starts, not where a button went
/// down, so a press on the panel followed by a quick move would otherwise reach the world.
struct UiRects {
    struct Rect {
        float x = 0, y = 0, w = 0, h = 0;
    };
    Rect panel, hud, compare, plots;

    [[nodiscard]] bool contains(float x, float y) const {
        auto inside = [&](const Rect& r) { return x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h; };
        return inside(panel) || inside(hud) || inside(compare) || inside(plots);
    }
};

/// The panel's scene and replay rows: the paths typed and the buttons pressed this frame (the
/// app saves and loads: the camera is the screen's; what came of it goes to the HUD's message).
struct SceneFileUi {
    char path[512] = "ro_scene.json";
    bool saveRequested = false;    ///< Save, or Replace in the question Save asks over a file
    std::string lastSaved;         ///< the path this run last saved to: saving there again asks nothing
    bool loadRequested = false;
    char replayPath[512] = "ro_replay.json";
    bool recordRequested = false;  ///< Record, or Stop while recording
    bool replayRequested = false;
    char tracePath[512] = "game.trace";
    bool traceRequested = false;   ///< Load trace
    std::string traceMessage;      ///< what the last Load trace did: shown under its row until the next
    bool traceFailed = false;      ///< the last Load trace was refused: its message stands out
    bool traceOpen = false;        ///< the Scene section shows the trace row (its "trace..." button)
};

/// The Compare window's verdict, ranked again about twice a second (a table that reorders
/// every frame cannot be read); no sentence and no pick before two frames are compared.
struct CompareUi {
    CompareVerdict verdict;
    double rankedAt = -1.0;  ///< ImGui time of the last ranking
    std::size_t rankedRows = 0;
};

/// The panel's Plots row: the window's checkbox, and the button that runs a scaling sweep of
/// the compared techniques (this frame).
struct PlotsUi {
    bool open = false;
    bool sweepRunning = false;      ///< the button is greyed out meanwhile
    bool scalingRequested = false;
};

/// True when the left button went down on the current window but on none of its items:
/// ImGui starts moving the window then, so a window pinned in place stops being pinned.
/// (IsAnyItemActive cannot tell: ImGui makes a moving window its active item.)
bool pressedOnWindowItself();
/// A press on a pinned window, and where the window was then.
struct WindowPress {
    bool down = false;
    ImVec2 at;
};
/// For a window pinned in place until the person moves it: a press on the window itself
/// unpins it at once (ImGui moves it from that frame, so a quick drag follows the mouse), and
/// a release with the window where it was (a mere click) pins it again.
void keepUnpinnedIfMoved(bool& moved, WindowPress& press);

/// Builds the panel; its widgets act on the lab and the overlay flags directly, and open or
/// close the Plots window.
void drawPanel(Lab& lab, OverlayFlags& overlays, UiRects& rects, SceneFileUi& sceneFile, PlotsUi& plots);

/// Builds the compare table (one row per compared technique) when any is picked.
/// Sorted by measured cost, with the scene's profile and the verdict; "Use this" makes the
/// verdict's pick the world's technique.
void drawCompare(Lab& lab, UiRects& rects, CompareUi& ui);

/// Builds the HUD from the figures of the last frame.
void drawHud(const FrameReport& report, UiRects& rects);

}  // namespace ro::app
