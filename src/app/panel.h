#pragma once
/// The panel (left column: technique, settings, population, clock, overlays, compare) and the
/// legend, each where the layout puts it (layout.h), and what the docked windows share (the
/// HUD is in hud.h, the Compare table in compare_window.h).

#include <string_view>
#include <imgui.h>

#include <string>

#include "app/lab.h"
#include "app/layout.h"
#include "app/options.h"
#include "app/window_request.h"

namespace ro::app {

/// The panel's scene and replay rows: the paths typed, and what the last file requests did (the
/// buttons push file commands; the app runs them, and what came of them goes to the HUD).
struct SceneFileUi {
    char path[512] = "ro_scene.json";
    std::string lastSaved;         ///< the path this run last saved to: saving there again asks nothing
    char replayPath[512] = "ro_replay.json";
    char tracePath[512] = "game.trace";
    std::string traceMessage;      ///< what the last Load trace did: shown under its row until the next
    bool traceFailed = false;      ///< the last Load trace was refused: its message stands out
    bool traceOpen = false;        ///< the Scene section shows the trace row (its "trace..." button)
};

/// The panel's Plots row: the window's checkbox, and the button that asks for a scaling sweep
/// of the compared techniques (a WindowRequest).
struct PlotsUi {
    bool open = false;
    bool sweepRunning = false;  ///< the button is greyed out meanwhile
};

/// The windows of the layout stay where it puts them: the person cannot move or resize them.
inline constexpr ImGuiWindowFlags kDockedFlags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings;
/// Places the next window on `area`, opaque.
void placeWindow(const Rect& area);

/// What ImGui knows of a window from the frames before, for the layout of this one.
struct WindowFit {
    bool known = false;      ///< the window was built before
    bool collapsed = false;  ///< folded by its title bar's arrow (a click made last frame counts)
    float height = 0.0f;     ///< what its content asked for, title bar and padding included
};
[[nodiscard]] WindowFit windowFit(const char* name);

/// Builds the panel in `area`; its widgets push commands for the lab and requests for the
/// window (a scaling sweep), set the overlay flags, and open or close the Plots window.
void drawPanel(const Lab& lab, CommandQueue& commands, WindowRequests& requests, OverlayFlags& overlays,
               UiRects& rects, SceneFileUi& sceneFile, PlotsUi& plots, const Rect& area);

/// What the frame on screen can show, for the legend to list those colours alone.
struct LegendView {
    bool structure = false;   ///< the structure overlay (G) is on
    bool pairs = false;       ///< the pairs overlay (P)
    bool bounds = false;      ///< the AABB overlay (B)
    std::string_view technique;  ///< the world's technique (its structure has colours of its own)
    bool fastMovers = false;  ///< misses counted or swept boxes on: fast movers and misses are marked
    bool query = false;       ///< a point, box or ray query is shown
    bool compare = false;     ///< techniques run beside the world's (their wrong pairs are marked)
    bool layers = false;      ///< the layers preset (colours by layer)
    bool density = false;     ///< the density view
};

/// Builds the legend of colours and keys in `area` (nothing when it is empty): the colours of
/// what `view` can show, or all of them when the person ticks "every colour".
void drawLegend(UiRects& rects, const Rect& area, const LegendView& view, bool& everyColour);

}  // namespace ro::app
