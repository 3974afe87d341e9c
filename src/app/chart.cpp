#include "app/chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

#include "ro/registry.h"

namespace ro::app {
namespace {

using Series = PlotSeries;

/// One axis: the range shown and how a value maps onto [0, 1].
struct Axis {
    double lo = 0.0, hi = 1.0;
    bool log = false;
    [[nodiscard]] bool shows(double v) const { return std::isfinite(v) && (!log || v > 0.0); }
    [[nodiscard]] double unit(double v) const {
        return log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    }
};

/// The range of the values an axis can show, widened so nothing sits on the frame.
Axis fitAxis(bool log, bool fromZero, double lo, double hi) {
    Axis axis{lo, hi, log};
    if (lo > hi) return {log ? 1.0 : 0.0, log ? 10.0 : 1.0, log};  // nothing to show
    if (log) {
        axis.lo = lo / 1.3, axis.hi = hi * 1.3;
    } else {
        if (fromZero) axis.lo = std::min(0.0, lo);
        const double span = axis.hi - axis.lo;
        const double pad = span > 0.0 ? 0.08 * span : std::max(std::abs(hi) * 0.5, 1.0);
        axis.hi += pad;
        if (!fromZero || axis.lo < 0.0) axis.lo -= pad;
    }
    return axis;
}

/// A tick label in a few characters: 1M, 250k, 12, 0.05 (G and T for 1e9 and 1e12).
std::string_view tickLabel(double v, char (&buffer)[24]) {
    const double a = std::abs(v);
    int n = 0;
    if (a >= 1e12) n = std::snprintf(buffer, sizeof buffer, "%gT", v / 1e12);
    else if (a >= 1e9) n = std::snprintf(buffer, sizeof buffer, "%gG", v / 1e9);
    else if (a >= 1e6) n = std::snprintf(buffer, sizeof buffer, "%gM", v / 1e6);
    else if (a >= 1e3) n = std::snprintf(buffer, sizeof buffer, "%gk", v / 1e3);
    else n = std::snprintf(buffer, sizeof buffer, "%.3g", v);
    return {buffer, static_cast<std::size_t>(std::clamp(n, 0, 23))};
}

/// Calls `tick(v)` for the tick values of an axis: decades (with 2 and 5 between them when the
/// range spans less than two) on a log axis, steps of 1, 2 or 5 times a power of ten otherwise.
/// A log axis narrower than the gaps between 1, 2 and 5 (a flat curve spans a factor of 1.7)
/// gets its two ends instead, so it is never left without a number.
template <typename Tick>
void forEachTick(const Axis& axis, Tick tick) {
    if (axis.log) {
        const auto inside = [&](double v) { return v >= axis.lo && v <= axis.hi; };
        bool any = false;
        for (int k = static_cast<int>(std::floor(std::log10(axis.lo))); k <= static_cast<int>(std::ceil(std::log10(axis.hi))); ++k)
            for (const double m : {1.0, 2.0, 5.0}) any |= inside(m * std::pow(10.0, k));
        if (!any) {
            // Two significant digits, inside the range.
            const auto rounded = [](double v, bool up) {
                const double unit = std::pow(10.0, std::floor(std::log10(v)) - 1.0);
                return (up ? std::ceil(v / unit) : std::floor(v / unit)) * unit;
            };
            tick(rounded(axis.lo, true));
            tick(rounded(axis.hi, false));
            return;
        }
        const int first = static_cast<int>(std::floor(std::log10(axis.lo)));
        const int last = static_cast<int>(std::ceil(std::log10(axis.hi)));
        const bool fine = last - first <= 2;
        for (int k = first; k <= last; ++k)
            for (const double m : {1.0, 2.0, 5.0}) {
                if (m != 1.0 && !fine) continue;
                const double v = m * std::pow(10.0, k);
                if (v >= axis.lo && v <= axis.hi) tick(v);
            }
        return;
    }
    const double raw = (axis.hi - axis.lo) / 4.0;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (const double m : {2.0, 5.0, 10.0})
        if (step < raw) step = m * power;
    for (double v = std::ceil(axis.lo / step) * step; v <= axis.hi; v += step) tick(std::abs(v) < step * 1e-9 ? 0.0 : v);
}

}  // namespace

/// A colour per registry row, so a technique keeps its colour in every plot: one for each of
/// the nine (with eight, auto's wrapped round to brute force's white).
ImU32 techniqueColor(std::string_view id) {
    constexpr ImU32 kColors[] = {IM_COL32(230, 230, 230, 255), IM_COL32(120, 160, 255, 255), IM_COL32(250, 150, 90, 255),
                                 IM_COL32(90, 220, 160, 255),  IM_COL32(240, 110, 200, 255), IM_COL32(240, 210, 90, 255),
                                 IM_COL32(150, 110, 250, 255), IM_COL32(110, 220, 240, 255), IM_COL32(235, 70, 70, 255)};
    const auto all = techniques();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].id == id) return kColors[i % std::size(kColors)];
    return IM_COL32(200, 200, 200, 255);
}

/// Draws one plot; returns the x of the measured point nearest to a click on it, if any.
std::optional<double> plot(const PlotSpec& spec, std::span<const Series> series) {
    // Ranges from every point the axes can show (and the marks, on x).
    double xLo = std::numeric_limits<double>::max(), xHi = std::numeric_limits<double>::lowest();
    double yLo = xLo, yHi = xHi;
    const Axis xProbe{0, 1, spec.logX}, yProbe{0, 1, spec.logY};
    for (const Series& s : series)
        for (const PlotPoint& p : s.points) {
            if (!xProbe.shows(p.x) || !yProbe.shows(p.y)) continue;
            xLo = std::min(xLo, p.x), xHi = std::max(xHi, p.x);
            yLo = std::min(yLo, p.y), yHi = std::max(yHi, p.y);
        }
    const bool empty = xLo > xHi;
    for (const Mark& m : spec.marks)
        if (!empty && xProbe.shows(m.x)) xLo = std::min(xLo, m.x), xHi = std::max(xHi, m.x);
    const Axis xAxis = fitAxis(spec.logX, false, xLo, xHi);
    const Axis yAxis = fitAxis(spec.logY, true, yLo, yHi);

    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 size(kPlotWidth, spec.height);
    ImGui::InvisibleButton(spec.id, size);
    const bool hovered = ImGui::IsItemHovered();
    const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float lineHeight = ImGui::GetTextLineHeight();
    const ImVec2 lo(at.x + 46.0f, at.y + 4.0f);
    const ImVec2 hi(at.x + size.x - 4.0f, at.y + size.y - lineHeight - 2.0f);
    draw->AddRectFilled(lo, hi, IM_COL32(0, 0, 0, 90));
    draw->AddRect(lo, hi, kAxisColor);
    auto screenX = [&](double x) { return lo.x + static_cast<float>(xAxis.unit(x)) * (hi.x - lo.x); };
    auto screenY = [&](double y) { return hi.y - static_cast<float>(yAxis.unit(y)) * (hi.y - lo.y); };

    char label[24];
    if (!empty) {
        forEachTick(xAxis, [&](double v) {
            const float x = screenX(v);
            draw->AddLine(ImVec2(x, lo.y), ImVec2(x, hi.y), kAxisColor);
            const std::string_view t = tickLabel(v, label);
            const float w = ImGui::CalcTextSize(t.data(), t.data() + t.size()).x;
            draw->AddText(ImVec2(x - 0.5f * w, hi.y + 1.0f), kLabelColor, t.data(), t.data() + t.size());
        });
        forEachTick(yAxis, [&](double v) {
            const float y = screenY(v);
            draw->AddLine(ImVec2(lo.x, y), ImVec2(hi.x, y), kAxisColor);
            const std::string_view t = tickLabel(v, label);
            const float w = ImGui::CalcTextSize(t.data(), t.data() + t.size()).x;
            // Beside its line, but never past the frame (into the plot above or below).
            const float top = std::clamp(y - 0.5f * lineHeight, lo.y, hi.y - lineHeight);
            draw->AddText(ImVec2(lo.x - w - 4.0f, top), kLabelColor, t.data(), t.data() + t.size());
        });
    }
    // What y and x are, over the curves (on a dark patch, so a curve does not cross them).
    auto caption = [&](const char* text, ImVec2 where) {
        const ImVec2 size = ImGui::CalcTextSize(text);
        draw->AddRectFilled(ImVec2(where.x - 2.0f, where.y), ImVec2(where.x + size.x + 2.0f, where.y + size.y),
                            IM_COL32(0, 0, 0, 170));
        draw->AddText(where, kLabelColor, text);
    };
    const ImVec2 titleAt(lo.x + 6.0f, lo.y + 2.0f);
    const ImVec2 xLabelAt(hi.x - ImGui::CalcTextSize(spec.xLabel).x - 6.0f, hi.y - lineHeight - 2.0f);
    if (empty) {
        caption(spec.title, titleAt);
        caption(spec.xLabel, xLabelAt);
        const char* none = "no data yet";
        const ImVec2 w = ImGui::CalcTextSize(none);
        draw->AddText(ImVec2(0.5f * (lo.x + hi.x - w.x), 0.5f * (lo.y + hi.y - w.y)), kLabelColor, none);
        return std::nullopt;
    }

    draw->PushClipRect(lo, hi, true);
    float labelY = lo.y + lineHeight + 2.0f;  // one under the other: marks can share an x
    for (const Mark& m : spec.marks) {
        if (!xAxis.shows(m.x)) continue;
        const float x = screenX(m.x);
        draw->AddLine(ImVec2(x, lo.y), ImVec2(x, hi.y), m.color, 1.5f);
        const float w = ImGui::CalcTextSize(m.label).x;
        draw->AddText(ImVec2(x + 3.0f + w > hi.x ? x - w - 3.0f : x + 3.0f, labelY), m.color, m.label);
        labelY += lineHeight;
    }
    // Each series as a polyline through its points (a point an axis cannot show breaks it).
    for (const Series& s : series) {
        for (const PlotPoint& p : s.points) {
            if (!xAxis.shows(p.x) || !yAxis.shows(p.y)) {
                draw->PathStroke(s.color, 0, 1.5f);
                continue;
            }
            draw->PathLineTo(ImVec2(screenX(p.x), screenY(p.y)));
        }
        draw->PathStroke(s.color, 0, 1.5f);
        if (s.markers)
            for (const PlotPoint& p : s.points)
                if (xAxis.shows(p.x) && yAxis.shows(p.y)) draw->AddCircleFilled(ImVec2(screenX(p.x), screenY(p.y)), 2.5f, s.color);
    }
    if (spec.ring && xAxis.shows(spec.ring->x) && yAxis.shows(spec.ring->y))
        draw->AddCircle(ImVec2(screenX(spec.ring->x), screenY(spec.ring->y)), 6.0f, kBestColor, 0, 2.0f);
    draw->PopClipRect();
    caption(spec.title, titleAt);
    caption(spec.xLabel, xLabelAt);

    if (!hovered && !clicked) return std::nullopt;
    // The measured point nearest to the pointer: its values as a tooltip, its x on a click.
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const Series* nearestSeries = nullptr;
    const PlotPoint* nearest = nullptr;
    float best = std::numeric_limits<float>::max();
    for (const Series& s : series) {
        if (!s.measured) continue;
        for (const PlotPoint& p : s.points) {
            if (!xAxis.shows(p.x) || !yAxis.shows(p.y)) continue;
            const float dx = screenX(p.x) - mouse.x, dy = screenY(p.y) - mouse.y;
            const float d = dx * dx + 0.05f * dy * dy;  // mostly along x: a column of points is one value
            if (d < best) best = d, nearest = &p, nearestSeries = &s;
        }
    }
    if (!nearest) return std::nullopt;
    draw->AddCircle(ImVec2(screenX(nearest->x), screenY(nearest->y)), 5.0f, kNowColor);
    ImGui::SetTooltip("%.*s\n%s: %.4g\n%s: %.4g", static_cast<int>(nearestSeries->name.size()), nearestSeries->name.data(),
                      spec.xLabel, nearest->x, spec.title, nearest->y);
    if (clicked) return nearest->x;
    return std::nullopt;
}

/// Rows of colour swatches and names, as wide as the plots (nine techniques made one row 566 px).
void legend(std::span<const Series> series) {
    bool first = true;
    const float left = ImGui::GetCursorPosX();
    const float side = ImGui::GetTextLineHeight();
    float right = left;  // where the row's last entry ends
    for (const Series& s : series) {
        const float width = side + 4.0f + ImGui::CalcTextSize(s.name.data(), s.name.data() + s.name.size()).x;
        if (!first && right + 14.0f + width <= left + kPlotWidth) {
            ImGui::SameLine(0.0f, 14.0f);
            right += 14.0f + width;
        } else {
            right = left + width;
        }
        first = false;
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + 0.3f * side), ImVec2(at.x + side, at.y + 0.7f * side),
                                                  s.color);
        ImGui::Dummy(ImVec2(side, side));
        ImGui::SameLine(0.0f, 4.0f);
        ImGui::TextUnformatted(s.name.data(), s.name.data() + s.name.size());
    }
    if (first) ImGui::NewLine();
}

}  // namespace ro::app
