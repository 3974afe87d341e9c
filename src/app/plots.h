#pragma once
/// The Plots window: the compared techniques' history (time and memory per tick), a scaling
/// sweep over entity counts and a sweep of one parameter, drawn with ImGui's draw list (Debian
/// has no ImPlot). Each plot's data goes out as CSV and the window as PNG.

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
    /// While the last sweep's worker is still stopping, nothing starts (the message says so).
    void startScaling(const Lab& lab, CommandQueue& commands);
    bool startParameter(const Lab& lab, CommandQueue& commands, std::string_view key);
    void cancelSweep();
    /// Takes the points the sweep's worker measured (once a frame); resumes the world when
    /// the sweep is over.
    void pollSweep(const Lab& lab, CommandQueue& commands);
    [[nodiscard]] const SweepJob& sweep() const { return m_sweep; }

    /// Builds the window in `area` (when open); a click on the parameter curve sets that value.
    void draw(const Lab& lab, CommandQueue& commands, UiRects& rects, const Rect& area);

    /// What the last export did, for the HUD's message line (empty when there is nothing new).
    [[nodiscard]] std::string takeMessage() { return std::exchange(m_message, {}); }
    /// A PNG of the window, drawn opaque this frame: where to write it and the window's rectangle.
    struct PngRequest {
        std::string path;
        Rect area;
    };
    [[nodiscard]] std::optional<PngRequest> takePngRequest() { return std::exchange(m_png, std::nullopt); }

private:
    void historyTab(const Lab& lab);
    void scalingTab(const Lab& lab, CommandQueue& commands);
    void parameterTab(const Lab& lab, CommandQueue& commands);
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
    std::string m_message;
    std::optional<PngRequest> m_png;
    bool m_csvRequested = false, m_pngRequested = false;
    bool m_pngThisFrame = false;  ///< Save PNG was clicked last frame: the image is this frame's
    std::string m_exportStem;
    Rect m_rect;
    // This frame's plots, reused (no allocation per frame once grown).
    std::vector<PlotPoint> m_scratch;
    std::vector<PlotSeries> m_series[3];
};

}  // namespace ro::app
