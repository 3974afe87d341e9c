#pragma once
/// Log-log line plots drawn with ImGui's draw list (Debian has no ImPlot): axes with ticks,
/// named series, marks and a legend. The Plots window draws its tabs with them.

#include <imgui.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ro::app {

/// A point of a plot, in the plot's units.
struct PlotPoint {
    double x, y;
};

/// A named, coloured polyline of a plot.
struct PlotSeries {
    std::string_view name;
    std::uint32_t color;  ///< ImU32
    std::span<const PlotPoint> points;
    bool markers = true;   ///< a dot at each point
    bool measured = true;  ///< false for a guide line: no tooltip, no click
};

/// The width of every plot, in pixels (their legends wrap there too).
inline constexpr float kPlotWidth = 500.0f;

/// A colour per registry row, so a technique keeps its colour in every plot: one for each of
/// the nine (with eight, auto's wrapped round to brute force's white).
ImU32 techniqueColor(std::string_view id);

inline constexpr ImU32 kAxisColor = IM_COL32(255, 255, 255, 60);
inline constexpr ImU32 kLabelColor = IM_COL32(200, 200, 210, 255);
inline constexpr ImU32 kNowColor = IM_COL32(255, 255, 255, 200);
inline constexpr ImU32 kAutoColor = IM_COL32(250, 210, 90, 230);
inline constexpr ImU32 kBestColor = IM_COL32(90, 240, 140, 255);
inline constexpr ImU32 kGuideColor = IM_COL32(255, 255, 255, 90);

/// A vertical line across the plot at `x`, labelled at its top.
struct Mark {
    double x;
    ImU32 color;
    const char* label;
};

struct PlotSpec {
    const char* id;
    const char* title;   ///< what y is, drawn in the top-left corner
    const char* xLabel;  ///< what x is, drawn in the bottom-right corner
    bool logX = false, logY = false;
    float height = 150.0f;
    std::span<const Mark> marks = {};
    std::optional<PlotPoint> ring = {};  ///< a point circled (the best measured)
};

/// Draws one plot; returns the x of the measured point nearest to a click on it, if any.
std::optional<double> plot(const PlotSpec& spec, std::span<const PlotSeries> series);

/// Rows of colour swatches and names, as wide as the plots (nine techniques made one row 566 px).
void legend(std::span<const PlotSeries> series);

}  // namespace ro::app
