#include "app/panel.h"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <iterator>
#include <string_view>

namespace ro::app {
namespace {

constexpr float kMargin = 10.0f;
constexpr int kMaxPanelEntities = 200'000;
constexpr float kMaxHalfExtent = 100.0f;

/// ImGui text formatted by fmt; the buffer lives on the stack, so a HUD line does not allocate.
template <typename... Args>
void text(fmt::format_string<Args...> format, Args&&... args) {
    fmt::memory_buffer buffer;
    fmt::format_to(std::back_inserter(buffer), format, std::forward<Args>(args)...);
    ImGui::TextUnformatted(buffer.data(), buffer.data() + buffer.size());
}

/// One label/value row of the HUD table.
template <typename... Args>
void row(const char* label, fmt::format_string<Args...> format, Args&&... args) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(label);
    ImGui::TableNextColumn();
    text(format, std::forward<Args>(args)...);
}

/// Greyed text, for hints.
void hint(std::string_view line) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextUnformatted(line.data(), line.data() + line.size());
    ImGui::PopStyleColor();
}

/// A titled section of the panel.
void section(const char* title) {
    ImGui::Spacing();
    ImGui::TextUnformatted(title);
    ImGui::Separator();
}

/// ImGui wants NUL-terminated labels; the registry holds string_views.
struct Label {
    explicit Label(std::string_view s) {
        const std::size_t n = std::min(s.size(), sizeof(text) - 1);
        std::copy_n(s.data(), n, text);
        text[n] = '\0';
    }
    char text[64];
};

struct HumanBytes {
    double value;
    const char* unit;
};

HumanBytes humanBytes(std::uint64_t bytes) {
    constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 3) {
        value /= 1024.0;
        ++unit;
    }
    return {value, kUnits[unit]};
}

void techniqueSection(Lab& lab) {
    if (ImGui::BeginCombo("Technique", Label(lab.technique().label).text)) {
        const auto all = techniques();
        for (std::size_t i = 0; i < all.size(); ++i) {
            const bool selected = i == lab.techniqueIndex();
            ImGui::PushID(static_cast<int>(i));
            if (ImGui::Selectable(Label(all[i].label).text, selected)) lab.setTechnique(i);
            ImGui::PopID();
        }
        ImGui::EndCombo();
    }
    hint(lab.technique().cost);

    // Only the parameters this technique reads (its registry row says which).
    const std::uint32_t uses = lab.technique().parameters;
    if (uses & kUsesCellSize) {
        float cellSize = lab.world().broadPhaseSettings().cellSize;
        if (ImGui::SliderFloat("Cell size", &cellSize, Lab::kMinAutoCellSize, 400.0f, "%.1f",
                               ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
            lab.setCellSize(cellSize);
        ImGui::SameLine();
        if (ImGui::Button(lab.autoCellSize() ? "Auto*" : "Auto")) lab.useAutoCellSize();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Cell = the largest entity's size (follows the population)");
    }
    if (uses & kUsesHashTableSize) {
        int buckets = static_cast<int>(lab.world().broadPhaseSettings().hashTableSize);
        if (ImGui::InputInt("Buckets", &buckets, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue))
            lab.setHashTableSize(static_cast<std::uint32_t>(std::clamp(buckets, 0, 1 << 26)));
        hint("hash table size, 0 = auto (Enter applies)");
    }

    using L = SettingsLimits;
    Settings s = lab.world().broadPhaseSettings();
    bool changed = false;
    if (uses & kUsesHshgFactor)
        changed |= ImGui::SliderFloat("Level factor", &s.hshgFactor, L::kMinHshgFactor, 8.0f, "%.2f",
                                      ImGuiSliderFlags_AlwaysClamp);
    if (uses & kUsesTreeMargin)
        changed |= ImGui::SliderFloat("Fat margin", &s.treeMargin, 0.0f, 50.0f, "%.1f", ImGuiSliderFlags_AlwaysClamp);
    if (uses & kUsesQuadTree) {
        int capacity = static_cast<int>(s.quadCapacity);
        int depth = static_cast<int>(s.quadMaxDepth);
        changed |= ImGui::SliderInt("Leaf capacity", &capacity, 1, 64, "%d", ImGuiSliderFlags_AlwaysClamp);
        changed |= ImGui::SliderInt("Max depth", &depth, 1, static_cast<int>(L::kMaxQuadDepth), "%d",
                                    ImGuiSliderFlags_AlwaysClamp);
        s.quadCapacity = static_cast<std::uint32_t>(capacity);
        s.quadMaxDepth = static_cast<std::uint32_t>(depth);
    }
    if (uses & kUsesSweepAxis) {
        constexpr const char* kAxes[] = {"auto (most spread)", "x", "y"};
        int axis = static_cast<int>(s.sweepAxis);
        if (ImGui::Combo("Sweep axis", &axis, kAxes, 3)) {
            s.sweepAxis = static_cast<SweepAxis>(axis);
            changed = true;
        }
    }
    if (changed) lab.setSettings(s);
}

void populationSection(Lab& lab) {
    int count = static_cast<int>(lab.world().size());
    if (ImGui::SliderInt("Entities", &count, 0, kMaxPanelEntities, "%d",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        lab.setEntityCount(static_cast<std::uint32_t>(count));

    SizeRange sizes = lab.sizeRange();
    if (ImGui::DragFloatRange2("Half-extent", &sizes.minHalf, &sizes.maxHalf, 0.05f, 0.1f, kMaxHalfExtent, "%.2f",
                               "%.2f", ImGuiSliderFlags_AlwaysClamp))
        lab.setSizeRange(sizes);
    if (ImGui::Button("Respawn all")) lab.respawn();
    ImGui::SameLine();
    if (ImGui::Button("Sizes for count")) lab.fitSizesToCount();
}

void clockSection(Lab& lab) {
    WorldConfig config = lab.world().config();
    bool changed = ImGui::SliderFloat("Speed", &config.speed, 0.05f, 4.0f, "%.2fx", ImGuiSliderFlags_AlwaysClamp);
    changed |= ImGui::SliderInt("Sub-steps", &config.subSteps, 1, 8, "%d", ImGuiSliderFlags_AlwaysClamp);
    changed |= ImGui::Checkbox("Gravity", &config.gravity);
    if (changed) lab.world().setConfig(config);
    if (ImGui::Button(lab.paused() ? "Resume (Esc)" : "Pause (Esc)")) lab.togglePause();
    ImGui::SameLine();
    ImGui::BeginDisabled(!lab.paused());
    if (ImGui::Button("Step (Space)")) lab.requestStep();
    ImGui::EndDisabled();
}

void overlaySection(OverlayFlags& overlays) {
    ImGui::Checkbox("Structure (G)", &overlays.grid);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Cells, tree nodes, fat boxes or the sweep's delimiters");
    if (overlays.grid && overlays.levelsSeen > 1) {
        // One toggle per level (HSHG levels, tree depths), in that level's colour.
        for (std::uint32_t level = 0; level < overlays.levelsSeen; ++level) {
            if (level % 8 != 0) ImGui::SameLine();
            bool shown = (overlays.hiddenLevels >> level & 1u) == 0;
            fmt::memory_buffer label;
            fmt::format_to(std::back_inserter(label), "{}##level{}", level, level);
            label.push_back('\0');
            if (ImGui::Checkbox(label.data(), &shown)) overlays.hiddenLevels ^= 1u << level;
        }
        hint("levels (HSHG) or depths (trees) shown");
    }
    ImGui::Checkbox("Candidate pairs (P)", &overlays.pairs);
    ImGui::Checkbox("AABBs (B)", &overlays.bounds);
}

/// The current window's rectangle.
UiRects::Rect windowRect() {
    const ImVec2 pos = ImGui::GetWindowPos();
    const ImVec2 size = ImGui::GetWindowSize();
    return {pos.x, pos.y, size.x, size.y};
}

}  // namespace

void drawPanel(Lab& lab, OverlayFlags& overlays, UiRects& rects) {
    ImGui::SetNextWindowPos(ImVec2(kMargin, kMargin), ImGuiCond_Always);
    ImGui::Begin("Ro Broadphase Lab", nullptr,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse);
    ImGui::PushItemWidth(170.0f);
    section("Broad phase");
    techniqueSection(lab);
    section("Population");
    populationSection(lab);
    section("Clock");
    clockSection(lab);
    section("Overlays");
    overlaySection(overlays);
    ImGui::PopItemWidth();
    ImGui::Separator();
    hint("Click: add, drag: spray, right click: remove");
    hint("Hover: point query, Shift-drag: box query,");
    hint("Ctrl-drag: ray query, C: clear the query");
    hint("Tab: next technique, Q: quit");
    rects.panel = windowRect();
    ImGui::End();
}

void drawHud(const FrameReport& r, UiRects& rects) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - kMargin, kMargin), ImGuiCond_Always, ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.8f);
    constexpr ImGuiWindowFlags kFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                        ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                        ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
    ImGui::Begin("HUD", nullptr, kFlags);
    if (ImGui::BeginTable("counters", 2, ImGuiTableFlags_SizingFixedFit)) {
        row("technique", "{}", r.technique);
        row("entities", "{}", r.entities);
        if (r.cellSize > 0.0f) row("cell size", "{:.2f}", r.cellSize);
        else row("cell size", "none");
        row("candidate pairs", "{}", r.candidates);
        row("pair tests", "{}", r.tests);
        row("true overlaps", "{}", r.overlaps);
        row("contacts", "{}", r.contacts);
        row("false positives", "{:.1f} %", 100.0 * r.falsePositiveRatio());
        if (r.technique == "hash") row("hash false pos.", "{}", r.hashFalsePositives);
        if (r.sorts) row("sort swaps", "{}", r.sortSwaps);
        row("FPS", "{:.0f}", r.fps);
        row("broad update", "{:.2f} ms", r.msBroad);
        row("pair finding", "{:.2f} ms", r.msPairs);
        row("narrow + resp.", "{:.2f} ms", r.msNarrow);
        row("integrate", "{:.2f} ms", r.msIntegrate);
        row("drawing", "{:.2f} ms", r.msDraw);
        const HumanBytes memory = humanBytes(r.bytes);
        row("technique mem.", "{:.1f} {}", memory.value, memory.unit);
        row("heap allocs/step", "{}", r.allocs);
        if (r.pointActive)
            row("point query", "{} hits, {} visited, {} tests", r.pointHits, r.pointCost.visited, r.pointCost.tests);
        if (!r.shape.empty())
            row(r.shape == "box" ? "box query" : "ray query", "{} hits, {} visited, {} tests", r.shapeHits,
                r.shapeCost.visited, r.shapeCost.tests);
        if (r.shape == "ray") {
            if (r.firstHit >= 0)
                row("first hit", "#{} at t={:.3f}, {} visited, {} tests", r.firstHit, r.firstHitT,
                    r.firstHitCost.visited, r.firstHitCost.tests);
            else
                row("first hit", "none, {} visited, {} tests", r.firstHitCost.visited, r.firstHitCost.tests);
        }
        row("steps", "{}", r.steps);
        row("state", "{}", r.paused ? "PAUSED" : "running");
        ImGui::EndTable();
    }
    rects.hud = windowRect();
    ImGui::End();
}

}  // namespace ro::app
