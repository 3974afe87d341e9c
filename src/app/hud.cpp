#include "app/hud.h"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>

#include "app/panel.h"
#include "app/ui_text.h"

namespace ro::app {

/// The HUD's rows closer than the panel's: two dozen of them share the column with Compare.
constexpr float kHudRowSpacing = 2.0f;

template <typename... Args>
void Hud::row(const char* label, fmt::format_string<Args...> format, Args&&... args) {
    if (m_count == m_rows.size()) m_rows.emplace_back();
    Row& r = m_rows[m_count++];
    r.label.clear();
    r.label.append(std::string_view(label));
    r.value.clear();
    fmt::format_to(std::back_inserter(r.value), format, std::forward<Args>(args)...);
    r.tooltip = nullptr;
}

float Hud::prepare(const FrameReport& r, float width) {
    m_count = 0;
    row("technique", "{}", r.technique);
    if (r.traceLabel.empty()) row("scene", "{}", r.scene);
    else row("scene", "{} frame {}/{}", r.traceLabel, r.traceFrame, r.traceFrames);
    row("entities", "{}", r.entities);
    row("candidate pairs", "{}", r.candidates);
    row("pair tests", "{}", r.tests);
    // With swept boxes the exact test is on the swept boxes: overlaps of the paths.
    row(r.sweptExtra ? "swept overlaps" : "true overlaps", "{}", r.overlaps);
    row("contacts", "{}", r.contacts);
    m_rows[m_count - 1].tooltip = "pairs whose shapes touch: a circle's AABB can overlap another's while the circle does not";
    if (r.statics > 0) row("static", "{} of {}", r.statics, r.entities);
    if (r.missed || r.missedTotal > 0)
        row("missed collisions", "{}   in all {}   counting {:.2f} ms", r.missed.value_or(0), r.missedTotal,
            r.msMissedCount);
    if (r.sweptExtra) row("swept extra pairs", "{}", *r.sweptExtra);
    if (r.impacts) row("impacts (TOI)", "{}", *r.impacts);
    row("false positives", "{:.1f} %", 100.0 * r.falsePositiveRatio());
    // The technique's own counters (cell size in use, sort swaps, ...), by their keys.
    for (const NamedCounter& c : r.extra.all()) {
        CText label(c.key);
        std::replace(std::begin(label.buffer), std::end(label.buffer), '_', ' ');
        if (c.value == std::floor(c.value)) row(label.buffer, "{:.0f}", c.value);
        else row(label.buffer, "{:.2f}", c.value);
    }
    // Last frame, then the median of the last second: a change shows at once, noise does not hide it.
    row("FPS", "{:.0f}   median {:.0f}", r.fps, r.median.fps);
    row("broad update", "{:.2f} ms   median {:.2f}", r.msBroad, r.median.msBroad);
    row("pair finding", "{:.2f} ms   median {:.2f}", r.msPairs, r.median.msPairs);
    row("narrow + resp.", "{:.2f} ms   median {:.2f}", r.msNarrow, r.median.msNarrow);
    row("integrate", "{:.2f} ms   median {:.2f}", r.msIntegrate, r.median.msIntegrate);
    row("drawing", "{:.2f} ms   median {:.2f}", r.msDraw, r.median.msDraw);
    const HumanBytes memory = humanBytes(r.bytes);
    row("technique mem.", "{:.1f} {}", memory.value, memory.unit);
    row("heap allocs/step", "{}", r.allocs);
    if (r.pointActive)
        row("point query", "hits {}, {} visited, {} tests", r.pointHits, r.pointCost.visited, r.pointCost.tests);
    if (!r.shape.empty())
        row(r.shape == "box" ? "box query" : "ray query", "hits {}, {} visited, {} tests", r.shapeHits,
            r.shapeCost.visited, r.shapeCost.tests);
    if (r.shape == "ray") {
        if (r.firstHit >= 0)
            row("first hit", "#{} at t={:.3f}, {} visited, {} tests", r.firstHit, r.firstHitT, r.firstHitCost.visited,
                r.firstHitCost.tests);
        else
            row("first hit", "none, {} visited, {} tests", r.firstHitCost.visited, r.firstHitCost.tests);
    }
    // What the overlays show of what there is: lines stop at a budget.
    const OverlayCounts& o = r.overlayCounts;
    if (o.pairs > 0) row("pair lines shown", "{} of {}", o.pairsShown, o.pairs);
    if (o.cells > 0) row("cells shown", "{} of {}", o.cellsShown, o.cells);
    if (o.lines > 0) row("outlines shown", "{} of {}", o.linesShown, o.lines);
    if (o.bounds > 0) row("AABBs shown", "{} of {}", o.boundsShown, o.bounds);
    if (r.drawn.offScreen > 0) row("off screen", "{} entities (zoom {:.2f}x)", r.drawn.offScreen, r.zoom);
    row("steps", "{}", r.steps);
    const bool slowed = !r.paused && r.simulationRate < 0.95;
    if (r.paused) row("state", "PAUSED");
    // The window keeps its frame rate; simulated time slows instead.
    else if (slowed) row("state", "slowed: {:.0f}% of real time", 100.0 * r.simulationRate);
    else row("state", "running");
    if (slowed) row("last ticks", "{:.0f} ms", r.msLastTicks);
    // Compare runs its techniques within each tick: when ticks are slow, the usual cause.
    if (slowed && r.compared > 0) row("each tick runs", "{} compared too", r.compared);
    m_message = r.message;

    // The height these rows take, reckoned before the window is built: ImGui's auto-fit would
    // size it from the frame before, and cut off a row that has just come (at a million
    // entities, a frame shows for half a second).
    const ImGuiStyle& style = ImGui::GetStyle();
    const float rowSpacing = kHudRowSpacing;
    m_labelWidth = 0.0f;
    for (std::size_t i = 0; i < m_count; ++i)
        m_labelWidth = std::max(m_labelWidth, ImGui::CalcTextSize(m_rows[i].label.data(),
                                                                  m_rows[i].label.data() + m_rows[i].label.size()).x);
    m_valueWidth = std::max(width - 2.0f * style.WindowPadding.x - m_labelWidth - style.ItemSpacing.x, 40.0f);
    const float line = ImGui::GetTextLineHeight();
    float content = 0.0f;
    for (std::size_t i = 0; i < m_count; ++i) {
        const fmt::memory_buffer& v = m_rows[i].value;
        content += std::max(line, ImGui::CalcTextSize(v.data(), v.data() + v.size(), false, m_valueWidth).y) + rowSpacing;
    }
    if (!m_message.empty()) {
        const float textWidth = std::max(width - 2.0f * style.WindowPadding.x, 40.0f);
        content += ImGui::CalcTextSize(m_message.data(), m_message.data() + m_message.size(), false, textWidth).y +
                   rowSpacing;
    }
    const float title = ImGui::GetFontSize() + 2.0f * style.FramePadding.y;
    return title + 2.0f * style.WindowPadding.y + content - rowSpacing;
}

bool Hud::draw(UiRects& rects, const Rect& area, bool collapsed) {
    placeWindow(area);
    ImGui::SetNextWindowCollapsed(collapsed, ImGuiCond_FirstUseEver);
    // Collapsing it (its title bar's arrow) folds the whole right column.
    constexpr ImGuiWindowFlags kFlags = kDockedFlags & ~ImGuiWindowFlags_NoCollapse;
    const bool open = ImGui::Begin("Counters", nullptr, kFlags | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    if (open) {
        ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, kHudRowSpacing));
        const float valueX = ImGui::GetStyle().WindowPadding.x + m_labelWidth + ImGui::GetStyle().ItemSpacing.x;
        for (std::size_t i = 0; i < m_count; ++i) {
            const Row& r = m_rows[i];
            ImGui::TextUnformatted(r.label.data(), r.label.data() + r.label.size());
            ImGui::SameLine(valueX);
            ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + m_valueWidth);
            ImGui::TextUnformatted(r.value.data(), r.value.data() + r.value.size());
            ImGui::PopTextWrapPos();
            if (r.tooltip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.tooltip);
        }
        if (!m_message.empty()) wrapped(m_message, ImVec4(1.0f, 0.8f, 0.4f, 1.0f), ImGui::GetContentRegionAvail().x);
        ImGui::PopStyleVar();
    }
    rects.hud = windowRect();
    ImGui::End();
    return open;
}

}  // namespace ro::app
