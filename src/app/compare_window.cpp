#include "app/compare_window.h"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <iterator>
#include <string_view>

#include "app/panel.h"
#include "app/ui_text.h"

namespace ro::app {

void drawCompare(const Lab& lab, CommandQueue& commands, UiRects& rects, CompareUi& ui, const Rect& area) {
    const Compare& compare = lab.compare();
    if (compare.empty()) {
        rects.compare = {};
        ui = {};
        return;
    }
    // Ranked again twice a second, and at once when a row comes or goes.
    const double now = ImGui::GetTime();
    if (ui.rankedAt < 0.0 || now - ui.rankedAt >= 0.5 || ui.rankedRows != compare.rows().size()) {
        const SceneProfile profile = lab.comparedSceneProfile();
        ui.verdict = compareVerdict(compare, profile);
        // One frame says nothing of motion or churn ("nothing moves"): no verdict before two.
        if (profile.frames < 2) {
            ui.verdict.sentence.clear();
            ui.verdict.winner = nullptr;
        }
        ui.rankedAt = now;
        ui.rankedRows = compare.rows().size();
    }
    const CompareVerdict& verdict = ui.verdict;
    if (area.empty()) {  // the column is folded: ranked all the same, for the counters line
        rects.compare = {};
        return;
    }
    // Under the HUD in the right column; its table scrolls sideways there.
    placeWindow(area);
    ImGui::Begin("Compare", nullptr, kDockedFlags | ImGuiWindowFlags_NoFocusOnAppearing);
    const float textWidth = ImGui::GetContentRegionAvail().x;
    // The verdict's button first, at the top right, where it stays whatever the texts below
    // say (the window scrolls when they are long).
    {
        const bool inUse = verdict.winner == &lab.session().technique();
        fmt::memory_buffer label;
        if (verdict.winner)
            fmt::format_to(std::back_inserter(label), "{} {}###use-this", inUse ? "In use:" : "Use", verdict.winner->id);
        else
            fmt::format_to(std::back_inserter(label), "Use (no verdict yet)###use-this");
        label.push_back('\0');
        constexpr float kWidth = 180.0f;
        ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - kWidth));
        ImGui::BeginDisabled(inUse || !verdict.winner);
        if (ImGui::Button(label.data(), ImVec2(kWidth, 0.0f))) commands.push(Command::useTechnique(*verdict.winner));
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("Make the verdict's pick the world's technique");
    }
    if (const auto& alarm = lab.compareAlarm()) {
        const Mismatch& m = alarm->mismatch;
        withText([&](std::string_view t) { wrapped(t, ImVec4(1.0f, 0.35f, 1.0f, 1.0f), textWidth); },
                 "PAUSED at tick {}: {} {} the pair ({}, {}) {} (marked in the world). Esc resumes.", m.tick,
                 alarm->technique, m.missing ? "missed" : "reported", m.pair.a, m.pair.b,
                 m.missing ? "the reference found" : "that the reference did not (a false or repeated pair)");
    }
    // The verdict above the table it comes from; its sentence ends with the scene's profile
    // ("Why: ...").
    if (verdict.sentence.empty())
        wrapped("the verdict comes once two frames are compared (Resume, or Step while paused)",
                ImGui::GetStyle().Colors[ImGuiCol_TextDisabled], textWidth);
    if (!verdict.sentence.empty()) wrapped(verdict.sentence, ImVec4(0.55f, 0.95f, 0.75f, 1.0f), textWidth);
    const auto find = [&](std::string_view id) -> const Compare::Row* {
        for (const Compare::Row& row : compare.rows())
            if (row.technique->id == id) return &row;
        return nullptr;
    };
    // Wider than the column: it scrolls sideways under its technique names, as tall as its rows.
    constexpr ImGuiTableFlags kTable =
        ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollX;
    const float rowHeight = ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y;
    const float tableHeight =
        static_cast<float>(compare.rows().size() + 1) * rowHeight + ImGui::GetStyle().ScrollbarSize + 2.0f;
    if (ImGui::BeginTable("compare", 11, kTable, ImVec2(0.0f, tableHeight))) {
        ImGui::TableSetupScrollFreeze(1, 0);
        for (const char* heading : {"technique", "ms/tick", "x fastest", "", "update p50 p95", "pairs p50 p95",
                                    "candidates", "memory", "worst ms", "false +", "wrong"})
            ImGui::TableSetupColumn(heading);
        ImGui::TableHeadersRow();
        // Ranked rows first, fastest first; a technique over its limit last.
        for (std::size_t k = 0; k < verdict.ranking.size(); ++k) {
            const Ranked& ranked = verdict.ranking[k];
            const Compare::Row* row = find(ranked.name);
            if (!row) continue;  // taken out since it was ranked
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            text("{}{}", ranked.name, k == 0 ? " *" : "");
            if (k == 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("fastest: least mean update + pair finding");
            ImGui::TableNextColumn();
            text("{:.3f}", ranked.meanMs);
            ImGui::TableNextColumn();
            if (k == 0) text("1.0");
            else if (ranked.tiedWithFastest) text("tie");
            else text("{:.1f}x", ranked.ratioToFastest);
            if (k > 0 && ranked.tiedWithFastest && ImGui::IsItemHovered())
                ImGui::SetTooltip("within twice the standard error of the fastest: the measurements cannot tell them apart");
            ImGui::TableNextColumn();
            // Each bar is the fastest's cost over the row's: the fastest fills it, one twice as
            // slow fills half, whatever the slowest (brute force) costs.
            const ImVec2 at = ImGui::GetCursorScreenPos();
            const float width = 60.0f, height = ImGui::GetTextLineHeight();
            const float filled = ranked.ratioToFastest > 0.0 ? width / static_cast<float>(ranked.ratioToFastest) : width;
            ImDrawList* draw = ImGui::GetWindowDrawList();
            draw->AddRectFilled(at, ImVec2(at.x + width, at.y + height), IM_COL32(255, 255, 255, 20));
            draw->AddRectFilled(at, ImVec2(at.x + std::max(filled, 1.0f), at.y + height),
                                ranked.tiedWithFastest ? IM_COL32(90, 220, 160, 255) : IM_COL32(120, 140, 255, 200));
            ImGui::Dummy(ImVec2(width, height));
            ImGui::TableNextColumn();
            text("{:.3f} {:.3f}", row->msUpdate.median(), row->msUpdate.quantile(0.95));
            ImGui::TableNextColumn();
            text("{:.3f} {:.3f}", row->msPairs.median(), row->msPairs.quantile(0.95));
            ImGui::TableNextColumn();
            text("{}", row->counters.candidatePairs);
            ImGui::TableNextColumn();
            const HumanBytes memory = humanBytes(row->counters.bytesHeld);
            text("{:.1f} {}", memory.value, memory.unit);
            ImGui::TableNextColumn();
            text("{:.3f}", ranked.worstMs);
            ImGui::TableNextColumn();
            const std::uint64_t candidates = row->counters.candidatePairs;
            text("{:.1f} %", candidates == 0 ? 0.0 : 100.0 * static_cast<double>(candidates - row->overlaps) /
                                                         static_cast<double>(candidates));
            ImGui::TableNextColumn();
            if (row->mismatchTicks == 0) {
                text("0 / {}", row->ticks);
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("ticks with a pair that differs from the reference's, of all ticks run");
            } else {
                const Mismatch& m = *row->lastMismatch;
                withText([](std::string_view t) { wrapped(t, ImVec4(1.0f, 0.35f, 1.0f, 1.0f), 260.0f); },
                         "{} ticks; tick {}: ({}, {}) {}", row->mismatchTicks, m.tick, m.pair.a, m.pair.b,
                         m.missing ? "missed" : "extra");
            }
        }
        for (const Compare::Row& row : compare.rows()) {
            const bool ranked = std::any_of(verdict.ranking.begin(), verdict.ranking.end(),
                                            [&](const Ranked& r) { return r.name == row.technique->id; });
            if (ranked) continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            text("{}", row.technique->id);
            ImGui::TableNextColumn();
            hint(row.skipped ? "skipped: too many entities" : "not measured yet");
        }
        ImGui::EndTable();
    }
    const ImVec4 grey = ImGui::GetStyle().Colors[ImGuiCol_TextDisabled];
    withText([&](std::string_view t) { wrapped(t, grey, textWidth); },
             "reference: {}; ms/tick is the mean of the last {} ticks at most, update + pair finding; a tie: within "
             "twice the standard error of the fastest. The order they run in turns every tick.",
             compare.referenceName(), Compare::kHistory);
    if (compare.referenceDisagreements() > 0)
        withText([&](std::string_view t) { wrapped(t, ImVec4(1.0f, 0.35f, 1.0f, 1.0f), textWidth); },
                 "the HSHG and the grid disagreed at {} ticks", compare.referenceDisagreements());
    rects.compare = windowRect();
    ImGui::End();
}

}  // namespace ro::app
