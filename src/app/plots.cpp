#include "app/plots.h"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <limits>
#include <span>

namespace ro::app {
namespace {

using Series = PlotSeries;

/// Greyed, wrapped text.
template <typename... Args>
void note(fmt::format_string<Args...> format, Args&&... args) {
    fmt::memory_buffer buffer;
    fmt::format_to(std::back_inserter(buffer), format, std::forward<Args>(args)...);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + kPlotWidth);
    ImGui::TextUnformatted(buffer.data(), buffer.data() + buffer.size());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

/// `n` with its thousands grouped ("2,004"), appended without allocating past the buffer's own.
void appendGrouped(fmt::memory_buffer& out, std::uint64_t n) {
    char digits[24];
    const int length = std::snprintf(digits, sizeof digits, "%llu", static_cast<unsigned long long>(n));
    for (int i = 0; i < length; ++i) {
        if (i > 0 && (length - i) % 3 == 0) out.push_back(',');
        out.push_back(digits[i]);
    }
}

/// What the next sweep runs on, in words: "uniform", "your trace tumbler, 2,004 boxes a copy",
/// "the loaded scene, 4 boxes a copy".
void nextSourceWords(const Lab& lab, fmt::memory_buffer& out) {
    const SweepJob::Source source = SweepJob::sourceOf(lab);
    if (source.kind == SweepJob::Source::Kind::Preset) {
        out.append(source.name);
        return;
    }
    if (source.kind == SweepJob::Source::Kind::Trace)
        fmt::format_to(std::back_inserter(out), "your trace {}", source.name);
    else
        out.append(std::string_view(lab.session().sceneOrigin() == LabSession::SceneOrigin::Loaded ? "the loaded scene" : "your edited scene"));
    out.append(std::string_view(", "));
    appendGrouped(out, source.perCopy);
    out.append(std::string_view(source.perCopy == 1 ? " box a copy" : " boxes a copy"));
}

/// What a sweep ran on, for the note under its plots: copies side by side (a scaling sweep) or
/// one as it is (a parameter sweep).
void sweptWords(const SweepJob& sweep, bool tiled, fmt::memory_buffer& out) {
    const auto boxes = [&] {
        out.append(std::string_view(" ("));
        appendGrouped(out, sweep.perCopy());
        out.append(std::string_view(" boxes)"));
    };
    switch (sweep.sourceKind()) {
        case SweepJob::Source::Kind::Preset:
            fmt::format_to(std::back_inserter(out), "ro_bench's {} scene (seed 1)", sweep.sceneName());
            return;
        case SweepJob::Source::Kind::Trace:
            fmt::format_to(std::back_inserter(out), "the trace {}", sweep.sceneName());
            boxes();
            out.append(std::string_view(tiled ? ", copies side by side" : " as recorded"));
            return;
        case SweepJob::Source::Kind::Snapshot:
            out.append(std::string_view("a snapshot of the scene"));
            boxes();
            out.append(std::string_view(tiled ? " taken as the sweep started, copies side by side, each box going on at "
                                                "its velocity"
                                              : " taken as the sweep started, each box going on at its velocity"));
            return;
    }
}

/// The swept techniques' series: one per run of consecutive points of the same technique,
/// with y from `value`. Points are appended to `scratch`, which must not grow meanwhile.
template <typename Value>
void sweepSeries(std::span<const SweepPoint> points, Value value, std::vector<PlotPoint>& scratch,
                 std::vector<Series>& out) {
    std::size_t begin = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        scratch.push_back({points[i].value, value(points[i])});
        const bool last = i + 1 == points.size() || points[i + 1].technique != points[i].technique;
        if (!last) continue;
        const std::span<const PlotPoint> all(scratch);
        out.push_back({points[i].technique, techniqueColor(points[i].technique),
                       all.subspan(scratch.size() - (i + 1 - begin), i + 1 - begin)});
        begin = i + 1;
    }
}

/// Numeric parameters of a technique (the ones a sweep can walk).
struct NumericParameters {
    std::array<const ParameterSpec*, 16> specs{};
    std::size_t count = 0;
    explicit NumericParameters(const TechniqueInfo& technique) {
        for (const ParameterSpec& spec : technique.parameters)
            if (spec.kind != ParameterKind::Choice && spec.offeredMax > spec.offeredMin && labOffers(technique, spec) &&
                count < specs.size())
                specs[count++] = &spec;
    }
    [[nodiscard]] auto begin() const { return specs.begin(); }
    [[nodiscard]] auto end() const { return specs.begin() + static_cast<std::ptrdiff_t>(count); }
    [[nodiscard]] bool empty() const { return count == 0; }
    [[nodiscard]] std::size_t size() const { return count; }
    const ParameterSpec* operator[](std::size_t i) const { return specs[i]; }
};

std::string absolutePath(const std::string& path) {
    std::error_code error;
    return std::filesystem::absolute(path, error).string();
}

}  // namespace

void PlotsWindow::show(Tab tab) {
    m_open = true;
    m_select = tab;
}

void PlotsWindow::beginSweep(const Lab& lab, CommandQueue& commands) {
    // The sweep gets the machine to itself: the world waits, its scene untouched.
    m_resumeAfterSweep = !lab.paused();
    commands.push(Command::pause(true));
}

void PlotsWindow::startScaling(const Lab& lab, CommandQueue& commands, WindowRequests& requests) {
    show(Tab::Scaling);
    if (m_sweep.running()) {
        requests.push(WindowRequest::say("the last sweep is still stopping: try again in a moment"));
        return;
    }
    beginSweep(lab, commands);
    m_sweep.startScaling(lab, m_scalingTop);
}

bool PlotsWindow::startParameter(const Lab& lab, CommandQueue& commands, WindowRequests& requests,
                                 std::string_view key) {
    const NumericParameters numeric(lab.session().technique());
    const auto it = std::find_if(numeric.begin(), numeric.end(), [&](const ParameterSpec* s) { return s->key == key; });
    if (it == numeric.end()) return false;
    m_parameterChoice = static_cast<std::size_t>(it - numeric.begin());
    show(Tab::Parameter);
    if (m_sweep.running()) {
        requests.push(WindowRequest::say("the last sweep is still stopping: try again in a moment"));
        return true;
    }
    beginSweep(lab, commands);
    m_sweep.startParameter(lab, **it);
    return true;
}

void PlotsWindow::cancelSweep() { m_sweep.cancel(); }

void PlotsWindow::pollSweep(const Lab& lab, CommandQueue& commands, WindowRequests& requests) {
    if (!m_sweep.running() || m_sweep.poll()) return;
    // Over: the world goes on as it was (unless the person resumed it meanwhile).
    // A mismatch found meanwhile keeps the world paused on it.
    if (m_resumeAfterSweep && lab.paused() && !lab.compareAlarm()) commands.push(Command::pause(false));
    m_resumeAfterSweep = false;
    if (!m_sweep.error().empty())
        requests.push(WindowRequest::say(fmt::format("the sweep stopped: {}", m_sweep.error())));
}

void PlotsWindow::sweepControls() {
    if (!m_sweep.running()) return;
    char overlay[64];
    if (m_sweep.cancelling())
        std::snprintf(overlay, sizeof overlay, "stopping after the call it is in");
    else
        std::snprintf(overlay, sizeof overlay, "%zu of %zu points", m_sweep.points().size(), m_sweep.planned());
    ImGui::ProgressBar(static_cast<float>(m_sweep.progress()), ImVec2(kPlotWidth - 80.0f, 0.0f), overlay);
    ImGui::SameLine();
    ImGui::BeginDisabled(m_sweep.cancelling());
    if (ImGui::Button("Cancel")) cancelSweep();
    ImGui::EndDisabled();
}

void PlotsWindow::exportButtons(std::string_view stem, bool hasData) {
    // Nothing to save before there is data: an image of empty axes is no more use than an empty CSV.
    ImGui::BeginDisabled(!hasData);
    if (ImGui::Button("Save CSV")) m_csvRequested = true, m_exportStem = stem;
    ImGui::SameLine();
    if (ImGui::Button("Save PNG")) m_pngRequested = true, m_exportStem = stem;
    ImGui::EndDisabled();
    ImGui::SameLine();
    note("to ro_{}.csv / .png here", stem);
}

void PlotsWindow::historyTab(const Lab& lab) {
    const Compare& compare = lab.compare();
    if (compare.empty()) {
        note("Tick techniques under Compare in the panel: each one's time and memory per tick is drawn here, "
             "over the last {} ticks.",
             Compare::kHistory);
        exportButtons("history", false);  // greyed out, where every tab has them
        return;
    }
    std::size_t total = 0;
    for (const Compare::Row& row : compare.rows()) total += 2 * row.history.count;
    m_scratch.clear();
    m_scratch.reserve(total);  // the series point into it
    std::vector<Series>& ms = m_series[0];
    std::vector<Series>& memory = m_series[1];
    ms.clear(), memory.clear();
    std::uint64_t now = 0;
    for (const Compare::Row& row : compare.rows()) {
        const Compare::History& h = row.history;
        const std::size_t start = m_scratch.size();
        for (std::size_t i = 0; i < h.count; ++i)
            m_scratch.push_back({static_cast<double>(h.tick[h.at(i)]), static_cast<double>(h.ms[h.at(i)])});
        for (std::size_t i = 0; i < h.count; ++i)
            m_scratch.push_back({static_cast<double>(h.tick[h.at(i)]), h.bytes[h.at(i)] / (1024.0 * 1024.0)});
        const std::span<const PlotPoint> all(m_scratch);
        ms.push_back({row.technique->id, techniqueColor(row.technique->id), all.subspan(start, h.count), false});
        memory.push_back({row.technique->id, techniqueColor(row.technique->id), all.subspan(start + h.count, h.count), false});
        if (h.count > 0) now = std::max(now, h.tick[h.at(h.count - 1)]);
    }
    legend(ms);
    char nowLabel[32];
    std::snprintf(nowLabel, sizeof nowLabel, "tick %llu", static_cast<unsigned long long>(now));
    const Mark marks[] = {{static_cast<double>(now), kNowColor, nowLabel}};
    plot({.id = "##history-ms", .title = "ms per tick (update + pairs)", .xLabel = "tick", .logY = true, .marks = marks}, ms);
    plot({.id = "##history-memory", .title = "memory held (MiB)", .xLabel = "tick", .marks = marks}, memory);
    note("the last {} ticks of each compared technique; the line marks the current tick.", Compare::kHistory);
    exportButtons("history", total > 0);
}

void PlotsWindow::scalingTab(const Lab& lab, CommandQueue& commands, WindowRequests& requests) {
    const bool parameterSweep = m_sweep.kind() == SweepJob::Kind::Parameter;
    const bool mine = !parameterSweep && m_sweep.planned() > 0;
    ImGui::BeginDisabled(m_sweep.running());
    if (ImGui::Button("Run scaling sweep")) startScaling(lab, commands, requests);
    ImGui::SameLine();
    int top = static_cast<int>(m_scalingTop);
    ImGui::SetNextItemWidth(120.0f);
    if (ImGui::SliderInt("up to n", &top, static_cast<int>(SweepJob::kMinScalingCount) * 10,
                         static_cast<int>(SweepJob::kMaxScalingCount), "%d",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        m_scalingTop = static_cast<std::uint32_t>(top);
    ImGui::EndDisabled();
    const std::size_t techniquesSwept = lab.compare().empty() ? 1 : lab.compare().rows().size();
    fmt::memory_buffer next;
    nextSourceWords(lab, next);
    const bool preset = SweepJob::sourceOf(lab).kind == SweepJob::Source::Kind::Preset;
    note("next: {}, {}, {} technique{}", std::string_view(next.data(), next.size()),
         preset ? "10 log steps" : "whole copies", techniquesSwept, techniquesSwept == 1 ? "" : "s");
    if (mine) sweepControls();
    const std::span<const SweepPoint> points = mine ? m_sweep.points() : std::span<const SweepPoint>{};
    m_scratch.clear();
    m_scratch.reserve(2 * points.size() + 2);
    std::vector<Series>& ms = m_series[0];
    std::vector<Series>& tests = m_series[1];
    ms.clear(), tests.clear();
    sweepSeries(points, [](const SweepPoint& p) { return p.msMedian; }, m_scratch, ms);
    sweepSeries(points, [](const SweepPoint& p) { return static_cast<double>(p.pairTests); }, m_scratch, tests);
    // Brute force's n(n-1)/2, for scale: the article's "checks against entities" figure.
    if (!points.empty()) {
        const std::size_t start = m_scratch.size();
        for (const double n : {points.front().value, static_cast<double>(m_sweep.count())})
            m_scratch.push_back({n, 0.5 * n * (n - 1.0)});
        tests.push_back({"n(n-1)/2", kGuideColor, std::span<const PlotPoint>(m_scratch).subspan(start, 2), false, false});
    }
    legend(ms);
    plot({.id = "##scaling-ms", .title = "ms per frame (median)", .xLabel = "entities", .logX = true, .logY = true}, ms);
    plot({.id = "##scaling-tests", .title = "pair tests per frame (grey: brute force's n(n-1)/2)", .xLabel = "entities",
          .logX = true, .logY = true},
         tests);
    if (mine) {
        fmt::memory_buffer swept;
        sweptWords(m_sweep, true, swept);
        note("{}, the median of up to {} frames per point, measured on a worker thread; the world waits meanwhile, "
             "its scene untouched. Compare picks the techniques (none: the world's own).",
             std::string_view(swept.data(), swept.size()), kSweepFrames);
    } else {
        note("The button sweeps the compared techniques (none picked: the world's own) on ro_bench's scene of this "
             "preset, or on a trace or your own scene tiled side by side; the world waits meanwhile and its scene is "
             "left as it is.");
    }
    exportButtons("scaling", !points.empty());
}

void PlotsWindow::parameterTab(const Lab& lab, CommandQueue& commands, WindowRequests& requests) {
    const TechniqueInfo& technique = lab.session().technique();
    const NumericParameters numeric(technique);
    if (numeric.empty()) {
        note("{} has no numeric parameter to sweep: pick another technique in the panel.", technique.label);
        return;
    }
    m_parameterChoice = std::min(m_parameterChoice, numeric.size() - 1);
    const ParameterSpec& chosen = *numeric[m_parameterChoice];
    char label[64];
    std::snprintf(label, sizeof label, "%.*s", static_cast<int>(chosen.label.size()), chosen.label.data());
    ImGui::SetNextItemWidth(170.0f);
    if (ImGui::BeginCombo("##parameter", label)) {
        for (std::size_t i = 0; i < numeric.size(); ++i) {
            std::snprintf(label, sizeof label, "%.*s", static_cast<int>(numeric[i]->label.size()), numeric[i]->label.data());
            if (ImGui::Selectable(label, i == m_parameterChoice)) m_parameterChoice = i;
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(m_sweep.running());
    if (ImGui::Button("Sweep it")) startParameter(lab, commands, requests, chosen.key);
    ImGui::EndDisabled();
    ImGui::SameLine();
    note("{} .. {} for {}", chosen.offeredMin, chosen.offeredMax, technique.id);

    const bool mine = m_sweep.kind() == SweepJob::Kind::Parameter && m_sweep.planned() > 0;
    if (mine) sweepControls();
    const std::span<const SweepPoint> points = mine ? m_sweep.points() : std::span<const SweepPoint>{};
    m_scratch.clear();
    m_scratch.reserve(3 * points.size());
    std::vector<Series>& ms = m_series[0];
    std::vector<Series>& candidates = m_series[1];
    std::vector<Series>& tests = m_series[2];
    ms.clear(), candidates.clear(), tests.clear();
    sweepSeries(points, [](const SweepPoint& p) { return p.msMedian; }, m_scratch, ms);
    sweepSeries(points, [](const SweepPoint& p) { return static_cast<double>(p.candidates); }, m_scratch, candidates);
    sweepSeries(points, [](const SweepPoint& p) { return static_cast<double>(p.pairTests); }, m_scratch, tests);

    // The current value, Auto's (cell size) and the best measured, when the sweep is of the
    // technique in use: a click on a curve then sets that value.
    const ParameterSpec* swept = mine ? m_sweep.parameter() : nullptr;
    const bool live = swept && m_sweep.technique() == &technique;
    std::array<Mark, 3> markList{};
    std::size_t markCount = 0;
    const SweepPoint* best = m_sweep.best();
    if (live) markList[markCount++] = {lab.world().broadPhaseSettings().value(*swept), kNowColor, "now"};
    if (live && m_sweep.autoValue()) markList[markCount++] = {*m_sweep.autoValue(), kAutoColor, "Auto"};
    if (best) markList[markCount++] = {best->value, kBestColor, "best"};
    const std::span<const Mark> marks(markList.data(), markCount);
    const std::optional<PlotPoint> ring = best ? std::optional<PlotPoint>({best->value, best->msMedian}) : std::nullopt;
    const bool logX = swept ? swept->logarithmic : chosen.logarithmic;
    char xLabel[64];
    const std::string_view name = swept ? swept->label : chosen.label;
    std::snprintf(xLabel, sizeof xLabel, "%.*s", static_cast<int>(name.size()), name.data());
    std::optional<double> clicked;
    clicked = plot({.id = "##param-ms", .title = "ms per frame (median)", .xLabel = xLabel, .logX = logX, .logY = true, .height = 130.0f,
                    .marks = marks, .ring = ring},
                   ms);
    if (auto c = plot({.id = "##param-candidates", .title = "candidate pairs", .xLabel = xLabel, .logX = logX, .logY = true,
                       .height = 110.0f, .marks = marks},
                      candidates))
        clicked = c;
    if (auto c = plot({.id = "##param-tests", .title = "pair tests", .xLabel = xLabel, .logX = logX, .logY = true, .height = 110.0f,
                       .marks = marks},
                      tests))
        clicked = c;
    if (clicked && live) {
        commands.push(Command::parameter(*swept, *clicked));
        requests.push(WindowRequest::say(fmt::format("{} set to {:.4g} (clicked on the sweep)", swept->label, *clicked)));
    }
    if (mine) {
        fmt::memory_buffer words;
        sweptWords(m_sweep, false, words);
        note("{} at n = {} ({}) on {}; {}", swept->label, m_sweep.count(),
             m_sweep.sourceKind() == SweepJob::Source::Kind::Preset ? "the world's count, at most 20,000" : "one copy",
             std::string_view(words.data(), words.size()),
             live ? "a click on a curve sets that value." : "switch back to that technique to set a value by a click.");
    } else {
        note("Sweeps the parameter over the range the panel offers, 12 steps, at the world's count (at most "
             "20,000), on ro_bench's scene of this preset, or on one copy of a trace or your own scene; the world "
             "waits meanwhile.");
    }
    exportButtons("parameter", !points.empty());
}

void PlotsWindow::draw(const Lab& lab, CommandQueue& commands, WindowRequests& requests, UiRects& rects,
                       const Rect& area) {
    if (!m_open) {
        rects.plots = {};
        m_pngThisFrame = false;  // closed before its image was taken
        return;
    }
    // The strip along the bottom, under the world; it scrolls when its tab is taller.
    placeWindow(area);
    if (!ImGui::Begin("Plots", &m_open, kDockedFlags | ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoFocusOnAppearing)) {
        rects.plots = {};
        ImGui::End();
        return;
    }

    if (ImGui::BeginTabBar("plots")) {
        auto tab = [&](const char* name, Tab which) {
            return ImGui::BeginTabItem(name, nullptr, m_select == which ? ImGuiTabItemFlags_SetSelected : 0);
        };
        if (tab("History", Tab::History)) {
            historyTab(lab);
            ImGui::EndTabItem();
        }
        if (tab("Scaling", Tab::Scaling)) {
            scalingTab(lab, commands, requests);
            ImGui::EndTabItem();
        }
        if (tab("Parameter", Tab::Parameter)) {
            parameterTab(lab, commands, requests);
            ImGui::EndTabItem();
        }
        m_select.reset();
        ImGui::EndTabBar();
    }
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    m_rect = {pos.x, pos.y, size.x, size.y};
    rects.plots = m_rect;
    ImGui::End();

    if (m_csvRequested) {
        m_csvRequested = false;
        const std::string path = fmt::format("ro_{}.csv", m_exportStem);
        const bool written = m_exportStem == "history" ? writeHistoryCsv(lab, path) : m_sweep.writeCsv(path);
        requests.push(WindowRequest::say(written ? fmt::format("plot data: {}", absolutePath(path))
                                                 : fmt::format("could not write {}", absolutePath(path))));
    }
    // The click's frame drew the button pressed: the image is the next one's.
    if (m_pngThisFrame) {
        m_pngThisFrame = false;
        requests.push(WindowRequest::saveImage(fmt::format("ro_{}.png", m_exportStem), m_rect));
    }
    if (m_pngRequested) {
        m_pngRequested = false;
        m_pngThisFrame = true;
    }
}

bool PlotsWindow::writeHistoryCsv(const Lab& lab, const std::string& path) const {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (!file) return false;
    bool ok = std::fprintf(file, "technique,tick,ms,bytes\n") >= 0;
    for (const Compare::Row& row : lab.compare().rows()) {
        const Compare::History& h = row.history;
        for (std::size_t i = 0; i < h.count && ok; ++i)
            ok = std::fprintf(file, "%.*s,%llu,%.6f,%.0f\n", static_cast<int>(row.technique->id.size()),
                              row.technique->id.data(), static_cast<unsigned long long>(h.tick[h.at(i)]),
                              static_cast<double>(h.ms[h.at(i)]), static_cast<double>(h.bytes[h.at(i)])) >= 0;
    }
    return std::fclose(file) == 0 && ok;
}

}  // namespace ro::app
