#pragma once
/// The ImGui windows, each where the layout puts it (layout.h): the panel (left column:
/// technique, settings, population, clock, overlays, compare), the HUD (the counters of the
/// last step), the Compare table and the legend (right column).

#include <fmt/format.h>
#include <imgui.h>

#include <string>
#include <string_view>
#include <vector>

#include "app/compare_verdict.h"
#include "app/lab.h"
#include "app/layout.h"
#include "app/options.h"
#include "app/report.h"

namespace ro::app {

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

/// Builds the panel in `area`; its widgets push commands for the lab, set the overlay flags,
/// and open or close the Plots window.
void drawPanel(const Lab& lab, CommandQueue& commands, OverlayFlags& overlays, UiRects& rects, SceneFileUi& sceneFile,
               PlotsUi& plots, const Rect& area);

/// Ranks the compared techniques and, when `area` is not empty, builds the compare table
/// there (one row per compared technique). Sorted by measured cost, with the scene's profile
/// and the verdict; "Use this" makes the verdict's pick the world's technique.
void drawCompare(const Lab& lab, CommandQueue& commands, UiRects& rects, CompareUi& ui, const Rect& area);

/// Builds the legend of colours and keys in `area` (nothing when it is empty).
void drawLegend(UiRects& rects, const Rect& area);

/// The HUD: the figures of the last frame, one row each, in a window exactly as tall as its
/// rows (prepare says how tall, before the layout places it).
class Hud {
public:
    /// Takes the rows of `report` for a window `width` pixels wide; returns the height they
    /// need, title bar and padding included.
    float prepare(const FrameReport& report, float width);
    /// Builds the window in `area`, folded the first time when `collapsed` (the layout's
    /// choice for a narrow window); false when it is collapsed.
    bool draw(UiRects& rects, const Rect& area, bool collapsed);

private:
    struct Row {
        fmt::memory_buffer label, value;
        const char* tooltip = nullptr;
    };
    template <typename... Args>
    void row(const char* label, fmt::format_string<Args...> format, Args&&... args);

    std::vector<Row> m_rows;  ///< reused: no allocation per frame once grown
    std::size_t m_count = 0;
    std::string_view m_message;
    float m_labelWidth = 0.0f;
    float m_valueWidth = 0.0f;
};

}  // namespace ro::app
