#pragma once
/// The Plots window: the compared techniques' history (time and memory per tick), a scaling
/// sweep over entity counts and a sweep of one parameter, drawn with ImGui's draw list (Debian
/// has no ImPlot). Each plot's data goes out as CSV and the window as PNG. What it changes in
/// the lab goes into the CommandQueue; what it asks of the window (a line in the HUD, the
/// window's image) into the WindowRequests.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/chart.h"
#include "app/lab.h"
#include "app/panel.h"
#include "app/sweeps.h"
#include "app/window_request.h"

namespace ro::app {

class PlotsWindow {
public:
    enum class Tab { History, Scaling, Parameter };

    [[nodiscard]] bool open() const { return m_open; }
    void setOpen(bool open) { m_open = open; }
    /// Opens the window on `tab` (selected at the next draw).
    void show(Tab tab);

    /// The largest count of the next scaling sweep (100 to 1,000,000; the Scaling tab's slider).
    void setScalingTop(std::uint32_t top) { m_scalingTop = top; }
    /// Starts a scaling sweep, or a sweep of the lab's technique's parameter `key` (false when
    /// it has no such numeric parameter). The world pauses while a sweep runs and resumes
    /// after it, if it was running; its scene is never touched (the sweep builds its own).
    /// While the last sweep's worker is still stopping, nothing starts (a line in the HUD says so).
    void startScaling(const Lab& lab, CommandQueue& commands, WindowRequests& requests);
    bool startParameter(const Lab& lab, CommandQueue& commands, WindowRequests& requests, std::string_view key);
    void cancelSweep();
    /// Takes the points the sweep's worker measured (once a frame); resumes the world when
    /// the sweep is over.
    void pollSweep(const Lab& lab, CommandQueue& commands, WindowRequests& requests);
    [[nodiscard]] const SweepJob& sweep() const { return m_sweep; }

    /// Builds the window in `area` (when open); a click on the parameter curve sets that value.
    /// Save CSV writes the file and says so; Save PNG asks for the window's image in the frame
    /// after the click's (that one drew the button pressed).
    void draw(const Lab& lab, CommandQueue& commands, WindowRequests& requests, UiRects& rects, const Rect& area);

private:
    void historyTab(const Lab& lab);
    void scalingTab(const Lab& lab, CommandQueue& commands, WindowRequests& requests);
    void parameterTab(const Lab& lab, CommandQueue& commands, WindowRequests& requests);
    void sweepControls();
    void exportButtons(std::string_view stem, bool hasData);
    [[nodiscard]] bool writeHistoryCsv(const Lab& lab, const std::string& path) const;
    void beginSweep(const Lab& lab, CommandQueue& commands);

    bool m_open = false;
    std::optional<Tab> m_select;  ///< a tab to bring to front at the next draw
    SweepJob m_sweep;
    bool m_resumeAfterSweep = false;
    std::size_t m_parameterChoice = 0;
    std::uint32_t m_scalingTop = SweepJob::kMaxScalingCount;
    bool m_csvRequested = false, m_pngRequested = false;
    bool m_pngThisFrame = false;  ///< Save PNG was clicked last frame: the image is this frame's
    std::string m_exportStem;
    Rect m_rect;
    // This frame's plots, reused (no allocation per frame once grown).
    std::vector<PlotPoint> m_scratch;
    std::vector<PlotSeries> m_series[3];
};

}  // namespace ro::app
