#include "app/panel.h"

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <cmath>
#include <iterator>
#include <span>
#include <string_view>

#include "app/palette.h"
#include "app/ui_text.h"

namespace ro::app {
namespace {

/// The slider's top: the count the window draws within its frame budget (README, draw table).
constexpr int kMaxPanelEntities = 1'000'000;
constexpr int kMinPanelEntities = 10;
constexpr float kMaxHalfExtent = 100.0f;

/// One label/value row of the HUD table.
template <typename... Args>
void row(const char* label, fmt::format_string<Args...> format, Args&&... args) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(label);
    ImGui::TableNextColumn();
    text(format, std::forward<Args>(args)...);
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

/// True when the technique cannot step `count` entities in reasonable time (its registry limit).
bool overLimit(const TechniqueInfo& technique, std::uint32_t count) {
    return technique.maxEntities != 0 && count > technique.maxEntities;
}

/// One widget for one parameter, by its kind, clamped to the range it offers.
void parameterWidget(const Lab& lab, CommandQueue& commands, const ParameterSpec& spec) {
    const CText label(spec.label);
    const double current = lab.world().broadPhaseSettings().value(spec);
    switch (spec.kind) {
    case ParameterKind::Real: {
        float value = static_cast<float>(current);
        const ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp | (spec.logarithmic ? ImGuiSliderFlags_Logarithmic : 0);
        // 0 where it asks the technique to pick reads as what it is, not as a length of 0.
        const char* format = spec.zeroIsAuto && value == 0.0f ? "auto" : value < 10.0f ? "%.2f" : "%.1f";
        if (ImGui::SliderFloat(label.buffer, &value, static_cast<float>(spec.offeredMin),
                               static_cast<float>(spec.offeredMax), format, flags))
            commands.push(Command::parameter(spec, value));
        break;
    }
    case ParameterKind::Integer: {
        const int lo = static_cast<int>(spec.offeredMin);
        const int hi = static_cast<int>(spec.offeredMax);
        int value = static_cast<int>(current);
        if (hi - lo <= 4096) {
            if (ImGui::SliderInt(label.buffer, &value, lo, hi, "%d", ImGuiSliderFlags_AlwaysClamp))
                commands.push(Command::parameter(spec, value));
        } else if (ImGui::InputInt(label.buffer, &value, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue)) {
            // A wide range is typed, and applied on Enter.
            commands.push(Command::parameter(spec, std::clamp(value, lo, hi)));
        }
        if (spec.zeroIsAuto && value == 0 && !ImGui::IsItemActive()) {
            ImGui::SameLine(0.0f, 4.0f);
            ImGui::TextDisabled("(auto)");
        }
        break;
    }
    case ParameterKind::Choice: {
        const auto chosen = static_cast<std::size_t>(current);
        if (ImGui::BeginCombo(label.buffer, CText(spec.choices[chosen]).buffer)) {
            for (std::size_t i = 0; i < spec.choices.size(); ++i)
                if (ImGui::Selectable(CText(spec.choices[i]).buffer, i == chosen))
                    commands.push(Command::parameter(spec, static_cast<double>(i)));
            ImGui::EndCombo();
        }
        break;
    }
    }
}

void techniqueSection(const Lab& lab, CommandQueue& commands) {
    const std::uint32_t count = lab.world().size();
    // Wide enough for the longest label, measured in the current font, so none is cut off.
    float widest = 0.0f;
    for (const TechniqueInfo& t : techniques()) widest = std::max(widest, ImGui::CalcTextSize(Label(t.label).text).x);
    ImGui::SetNextItemWidth(widest + 2.0f * ImGui::GetStyle().FramePadding.x + ImGui::GetFrameHeight());
    if (ImGui::BeginCombo("Technique", Label(lab.session().technique().label).text, ImGuiComboFlags_HeightLargest)) {
        // Keyboard navigation is off, so ImGui would leave the list open on Esc.
        if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
        const auto all = techniques();
        for (std::size_t i = 0; i < all.size(); ++i) {
            const bool selected = i == lab.session().techniqueIndex();
            const bool tooMany = overLimit(all[i], count);
            ImGui::PushID(static_cast<int>(i));
            ImGui::BeginDisabled(tooMany);
            if (ImGui::Selectable(Label(all[i].label).text, selected)) commands.push(Command::useTechnique(all[i]));
            ImGui::EndDisabled();
            if (tooMany && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                ImGui::SetTooltip("Greyed out: %u entities would take too long a step (at most %u; %s)", count,
                                  all[i].maxEntities, Label(all[i].guide.complexity).text);
            ImGui::PopID();
        }
        ImGui::EndCombo();
    }
    // The guide and the parameters sit in a block as tall as the tallest technique's: switching
    // technique never moves a row below it (a click meant for Stop once hit Save).
    const float spacing = ImGui::GetStyle().ItemSpacing.y;
    const float wrapWidth = std::min(kTextWidth, ImGui::GetContentRegionAvail().x);
    float complexityHeight = 0.0f;
    std::size_t mostParameters = 0;
    for (const TechniqueInfo& t : techniques()) {
        const std::string_view c = t.guide.complexity;
        complexityHeight = std::max(complexityHeight, ImGui::CalcTextSize(c.data(), c.data() + c.size(), false, wrapWidth).y);
        mostParameters = std::max<std::size_t>(mostParameters, static_cast<std::size_t>(std::count_if(
            t.parameters.begin(), t.parameters.end(), [&](const ParameterSpec& spec) { return labOffers(t, spec); })));
    }
    const TechniqueGuide& guide = lab.session().technique().guide;
    if (ImGui::TreeNode("How it works, what it costs, when to pick it")) {
        // In a frame of fixed height that scrolls: the guides differ in length.
        ImGui::BeginChild("guide", ImVec2(0.0f, 8.0f * ImGui::GetTextLineHeightWithSpacing()), true);
        const ImVec4 plain = ImGui::GetStyle().Colors[ImGuiCol_Text];
        const ImVec4 grey = ImGui::GetStyle().Colors[ImGuiCol_TextDisabled];
        wrapped(guide.how, plain);
        withText([&](std::string_view t) { wrapped(t, plain); }, "Cost: {}", guide.cost);
        withText([&](std::string_view t) { wrapped(t, plain); }, "Pick it for: {}", guide.suits);
        withText([&](std::string_view t) { wrapped(t, grey); }, "From: {}", guide.source);
        ImGui::EndChild();
        ImGui::TreePop();
    } else {
        const float top = ImGui::GetCursorPosY();
        wrapped(guide.complexity, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        ImGui::SetCursorPosY(std::max(ImGui::GetCursorPosY(), top + complexityHeight + spacing));
    }

    // The technique's parameters, as its folder declares them (registry row), each clamped to
    // the range it offers; the help line is the tooltip.
    const float parametersTop = ImGui::GetCursorPosY();
    for (const ParameterSpec& spec : lab.session().technique().parameters) {
        if (!labOffers(lab.session().technique(), spec)) continue;
        parameterWidget(lab, commands, spec);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%.*s (%.*s)", static_cast<int>(spec.help.size()), spec.help.data(),
                                                      static_cast<int>(spec.key.size()), spec.key.data());
        if (spec.key == kCellSizeParameter.key) {
            ImGui::SameLine();
            if (ImGui::Button(lab.session().autoCellSize() ? "Auto*" : "Auto")) commands.push(Command::autoCellSize());
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("Cell = the largest entity's side, at most 4 median sides (follows the population; "
                                  "the plots' Auto marker is the same)");
        }
    }
    const float parametersEnd =
        parametersTop + static_cast<float>(mostParameters) * (ImGui::GetFrameHeight() + spacing);
    if (ImGui::GetCursorPosY() < parametersEnd) ImGui::Dummy(ImVec2(0.0f, parametersEnd - ImGui::GetCursorPosY() - spacing));
}

void populationSection(const Lab& lab, CommandQueue& commands) {
    // A technique with a limit (brute force) or a scenario with one (onecell) caps the slider,
    // and says why.
    const std::uint32_t limit = lab.session().technique().maxEntities;
    std::uint32_t top = kMaxPanelEntities;
    if (limit != 0) top = std::min(top, limit);
    if (lab.session().scenarioLimit() != 0) top = std::min(top, lab.session().scenarioLimit());
    // Applied on release, or on Return after Ctrl+click and typing: each count is a new
    // population, and one per keystroke or per step of a drag made 10, 100, ... 100,000
    // entities on the way to 1,000,000. The dragged or typed value waits in ImGui's storage.
    ImGuiStorage& storage = *ImGui::GetStateStorage();
    const ImGuiID key = ImGui::GetID("entities-dragged");
    int count = storage.GetInt(key, -1);
    if (count < 0) count = static_cast<int>(lab.world().size());
    // A limit shows in the slider itself and its reason on hover, not on a line of its own: a
    // line that came and went with the technique or preset moved every button below it.
    const bool capped = top < kMaxPanelEntities;
    // --entities goes to 2,000,000, the slider to a million: say so rather than show a full bar.
    const bool overTop = !capped && static_cast<std::uint32_t>(count) > top;
    char cappedFormat[48] = "";
    if (capped) *fmt::format_to_n(cappedFormat, sizeof cappedFormat - 1, "%d (at most {})", top).out = '\0';
    const char* format = capped ? cappedFormat : overTop ? "%d (over max)" : "%d";
    if (ImGui::SliderInt("Entities", &count, kMinPanelEntities, static_cast<int>(top), format,
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        storage.SetInt(key, count);
    if (ImGui::IsItemDeactivatedAfterEdit()) commands.push(Command::count(static_cast<std::uint32_t>(count)));
    if (!ImGui::IsItemActive()) storage.SetInt(key, -1);  // also if an edit ended unseen
    if (overTop && ImGui::IsItemHovered())
        ImGui::SetTooltip("started above the slider's top (%u) with --entities", top);
    if (capped && ImGui::IsItemHovered()) {
        const auto tooltip = [](std::string_view t) { ImGui::SetTooltip("%.*s", static_cast<int>(t.size()), t.data()); };
        if (lab.session().scenarioLimit() == top)
            withText(tooltip, "at most {} in {}: nearly every pair overlaps", top, lab.session().sceneName());
        else
            withText(tooltip, "at most {} for {}: its step grows as n^2 (0.4 s at 20,000)", top, lab.session().technique().id);
    }
    if (lab.session().scenario()) {
        // A scenario's sizes are its own; a new seed makes another scene of the same kind. The
        // line stands where the random mix's sizes do, so that the preset buttons below stay
        // where they were when one is clicked.
        ImGui::AlignTextToFramePadding();
        ImGui::TextDisabled("sizes: the preset's own (below)");
        if (ImGui::Button("New seed")) commands.push(Command::respawn());
        return;
    }

    SizeRange sizes = lab.session().sizeRange();
    if (ImGui::DragFloatRange2("Half-extent", &sizes.minHalf, &sizes.maxHalf, 0.05f, 0.1f, kMaxHalfExtent, "%.2f",
                               "%.2f", ImGuiSliderFlags_AlwaysClamp))
        commands.push(Command::sizeRange(sizes));
    if (ImGui::Button("Respawn all")) commands.push(Command::respawn());
    ImGui::SameLine();
    if (ImGui::Button("Sizes for count")) commands.push(Command::fitSizes());
    // Undo takes back the technique, its settings and the count: a row that never moves.
    ImGui::SameLine();
    ImGui::BeginDisabled(lab.session().undoDepth() == 0);
    if (ImGui::Button("Undo (Ctrl+Z)")) commands.push(Command::undo());
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(lab.session().undoDepth() == 0 ? "Nothing to undo"
                                               : "The settings before the last change: technique, parameters, the "
                                                 "cell's Auto, entity count");
}

/// A trace's frames in place of the scene: its path and Load, then, while one plays, where it
/// is and the controls that move through it.
void traceSection(const Lab& lab, CommandQueue& commands, SceneFileUi& ui) {
    ImGui::SetNextItemWidth(170.0f);
    // Enter in the field loads it too.
    const bool entered =
        ImGui::InputText("##trace-file", ui.tracePath, sizeof ui.tracePath, ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("A trace of your game's frames: binary (ro::TraceWriter) or .csv (docs/trace-format.md)");
    ImGui::SameLine();
    if (ImGui::Button("Load trace") || entered) commands.push(Command::file(Command::Kind::LoadTrace, ui.tracePath));
    if (!ui.traceMessage.empty())
        wrapped(ui.traceMessage, ui.traceFailed ? ImVec4(1.0f, 0.45f, 0.45f, 1.0f) : ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    const TracePlayback* trace = lab.session().trace();
    if (!trace) {
        hint("plays its frames in place of the scene");
        return;
    }
    if (ImGui::Button(lab.paused() ? "Play###trace-play" : "Pause###trace-play", ImVec2(60.0f, 0.0f)))
        commands.push(Command::togglePause());
    ImGui::SameLine();
    ImGui::BeginDisabled(!lab.paused());
    if (ImGui::Button("Step##trace")) commands.push(Command::step());
    ImGui::EndDisabled();
    ImGui::SameLine();
    bool loop = trace->loop;
    if (ImGui::Checkbox("Loop", &loop)) commands.push(Command::traceLoop(loop));
    ImGui::SameLine();
    if (ImGui::Button("End##trace")) commands.push(Command::traceEnd());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Keep this frame as the scene, and stop reading the trace");
    // The slider counts from 1, as the line above does. Dragging it backward rereads the file
    // from its start: a large trace is never held in memory.
    int frame = static_cast<int>(trace->frame()) + 1;
    const int last = static_cast<int>(std::min<std::uint64_t>(trace->frames(), 10'000'000));
    char format[32];
    std::snprintf(format, sizeof format, "%%d / %d", last);
    if (ImGui::SliderInt("Frame##trace", &frame, 1, last, format, ImGuiSliderFlags_AlwaysClamp))
        commands.push(Command::traceSeek(static_cast<std::uint64_t>(frame - 1)));
    float speed = trace->speed;
    if (ImGui::SliderFloat("Frames/tick", &speed, TracePlayback::kMinSpeed, TracePlayback::kMaxSpeed, "%.2fx",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        commands.push(Command::traceSpeed(speed));
}

/// One click per preset: the lab's random mix and each library scenario; the one in use is
/// highlighted, and its make-up is listed below.
void sceneSection(const Lab& lab, CommandQueue& commands, SceneFileUi& files) {
    const ImVec4 active = ImGui::GetStyle().Colors[ImGuiCol_ButtonActive];
    // A trace playing, or its row open to load one: no preset is current.
    const bool traceShown = lab.session().trace() || files.traceOpen;
    auto presetButton = [&](std::string_view name, const ScenarioInfo* scenario) {
        const bool current = !traceShown && lab.session().scenario() == scenario;
        if (current) ImGui::PushStyleColor(ImGuiCol_Button, active);
        if (ImGui::Button(CText(name).buffer)) {
            files.traceOpen = false;
            if (!current) commands.push(Command::preset(scenario));
        }
        if (current) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered())
            withText([](std::string_view t) { ImGui::SetTooltip("%.*s", static_cast<int>(t.size()), t.data()); }, "{}",
                     scenario ? scenario->description : "boxes and circles of mixed sizes, bouncing off each other");
    };
    // Eleven presets in two rows of six: narrower buttons, closer together.
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(3.0f, ImGui::GetStyle().FramePadding.y));
    presetButton("random", nullptr);
    int inRow = 1;
    for (const ScenarioInfo& s : scenarios()) {
        if (inRow++ % 6 != 0) ImGui::SameLine(0.0f, 4.0f);  // six to a row, close: two rows
        presetButton(s.name, &s);
    }
    // Last, the frames of your own game: its controls take the place of a preset's make-up.
    ImGui::SameLine(0.0f, 4.0f);
    if (traceShown) ImGui::PushStyleColor(ImGuiCol_Button, active);
    if (ImGui::Button("trace...")) files.traceOpen = true;
    if (traceShown) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Play the frames of your own game, recorded as a trace");
    ImGui::PopStyleVar();
    if (traceShown) {
        traceSection(lab, commands, files);
        return;
    }
    const ScenarioInfo* s = lab.session().scenario();
    if (!s) {
        hint("the lab's own scene: sizes and count below");
        return;
    }
    if (ImGui::BeginTable("scenario", 2, ImGuiTableFlags_SizingFixedFit)) {
        row("sizes", "{}", s->sizes);
        row("spacing", "{}", s->spacing);
        if (s->speed > 0.0f) row("speed", "{:.3g} per tick", s->speed);
        if (s->kind == ScenarioKind::Rain) row("speed", "{}", "across the world in ~100 ticks");
        if (s->kind != ScenarioKind::Static) row("moving", "{:.0f} %", 100.0 * s->movingFraction);
        // What makes these two what they are, besides the rows above.
        if (s->kind == ScenarioKind::Bullets) row("fast", "{}", "1% (up to 500) at 20-100x");
        if (s->kind == ScenarioKind::Rain) row("churn", "{}", "~1% replaced a tick");
        ImGui::EndTable();
    }
    if (s->kind == ScenarioKind::Layers) {
        // Applied on release (a new scene each time). While it is dragged, the dragged value
        // is kept in ImGui's storage: the lab's, which the slider shows otherwise, changes
        // only then.
        ImGuiStorage& storage = *ImGui::GetStateStorage();
        const ImGuiID key = ImGui::GetID("layers-dragged");
        int layers = storage.GetInt(key, -1);
        if (layers < 0) layers = static_cast<int>(lab.session().layers());
        if (ImGui::SliderInt("Layers", &layers, 1, 4, "%d", ImGuiSliderFlags_AlwaysClamp)) storage.SetInt(key, layers);
        if (ImGui::IsItemDeactivatedAfterEdit()) commands.push(Command::layers(static_cast<std::uint32_t>(layers)));
        if (!ImGui::IsItemActive()) storage.SetInt(key, -1);  // also if a drag ended unseen
        wrapped("layer 0 (cyan) meets every layer; the others only layer 0 and themselves",
                ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    }
    if (s->kind == ScenarioKind::Static) {
        // The rest are static entities: the technique is handed the movers alone each tick.
        // Applied on release, as the layers are.
        ImGuiStorage& storage = *ImGui::GetStateStorage();
        const ImGuiID key = ImGui::GetID("moving-dragged");
        float percent = storage.GetFloat(key, -1.0f);
        if (percent < 0.0f) percent = 100.0f * lab.session().movingFraction();
        if (ImGui::SliderFloat("Moving", &percent, 0.0f, 100.0f, "%.1f %%", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
            storage.SetFloat(key, percent);
        if (ImGui::IsItemDeactivatedAfterEdit()) commands.push(Command::movingFraction(percent / 100.0f));
        if (!ImGui::IsItemActive()) storage.SetFloat(key, -1.0f);
        wrapped("share of boxes that move; the others are static (never paired with each other)",
                ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    }
    hint("ro_bench's scene for this seed and count (its frame 0)");
}

/// Save or load the whole lab (JSON), record a session and replay one: paths, buttons, and what
/// the last one did.
void sceneFileRow(const Lab& lab, CommandQueue& commands, SceneFileUi& ui) {
    const auto request = [&](Command::Kind kind, const char* path) { commands.push(Command::file(kind, path)); };
    ImGui::SetNextItemWidth(170.0f);
    ImGui::InputText("##scene-file", ui.path, sizeof ui.path);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Scene file: entities, technique and parameters, world settings, camera");
    ImGui::SameLine();
    if (ImGui::Button("Save")) {
        // A file this run did not write is asked about first: a click meant for a button
        // nearby must never replace someone's scene without a word.
        std::error_code error;
        if (ui.path != ui.lastSaved && std::filesystem::exists(ui.path, error)) ImGui::OpenPopup("Replace the file?");
        else request(Command::Kind::SaveScene, ui.path);
    }
    if (ImGui::BeginPopupModal("Replace the file?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        text("{} exists.", ui.path);
        text("Replace it with the scene on screen?");
        if (ImGui::Button("Replace")) {
            request(Command::Kind::SaveScene, ui.path);
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Load")) request(Command::Kind::LoadScene, ui.path);
    ImGui::SetNextItemWidth(170.0f);
    ImGui::InputText("##replay-file", ui.replayPath, sizeof ui.replayPath);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Replay file: a start scene and every input with its tick");
    ImGui::SameLine();
    if (ImGui::Button(lab.recording() ? "Stop##record" : "Record")) request(Command::Kind::Record, ui.replayPath);
    ImGui::SameLine();
    if (ImGui::Button("Replay")) request(Command::Kind::Replay, ui.replayPath);
    // Always one line, so the rows below stay where they are.
    const auto replay = lab.replayStatus();
    if (lab.recording()) {
        withText(hint, "recording: {} inputs (Stop saves them)", lab.recordedInputs());
    } else if (replay && !replay->finished) {
        withText(hint, "replaying: tick {} of {} (clicks ignored)", replay->tick, replay->endTick);
    } else if (replay && replay->matched) {
        withText(hint, "replay done (tick {}): recorded state, bit for bit", replay->endTick);
    } else if (replay) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.45f, 1.0f));
        text("replay done (tick {}): NOT the recorded state", replay->endTick);
        ImGui::PopStyleColor();
    } else {
        hint("Record notes every input with its tick");
    }
}

void clockSection(const Lab& lab, CommandQueue& commands) {
    WorldConfig config = lab.world().config();
    // A trace moves its bodies itself: the world's own motion stays off while it plays.
    ImGui::BeginDisabled(lab.session().trace() != nullptr);
    bool changed = ImGui::SliderFloat("Speed", &config.speed, 0.05f, 4.0f, "%.2fx", ImGuiSliderFlags_AlwaysClamp);
    changed |= ImGui::SliderInt("Sub-steps", &config.subSteps, 1, 8, "%d", ImGuiSliderFlags_AlwaysClamp);
    changed |= ImGui::Checkbox("Gravity", &config.gravity);
    // Fast movers: what a discrete broad phase misses, and the two cures (beside Gravity and
    // the Pause buttons, so the panel's rows stay where they were).
    ImGui::SameLine();
    changed |= ImGui::Checkbox("Swept boxes", &config.sweptBoxes);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The broad phase gets each box joined with where it will be after this tick:\n"
                          "no pair whose paths meet is missed, at the cost of extra candidates (HUD: swept extra pairs).");
    ImGui::SameLine();
    changed |= ImGui::Checkbox("Time of impact", &config.timeOfImpact);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Pairs that meet within the tick move to their first contact and respond there\n"
                          "(needs swept boxes to see them, and a response other than none to stop them).");
    constexpr const char* kResponses[] = {"none (pass through)", "push apart (inelastic)", "bounce (elastic)"};
    int response = static_cast<int>(config.response);
    if (ImGui::Combo("Response", &response, kResponses, 3)) {
        config.response = static_cast<ContactResponse>(response);
        changed = true;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("What overlapping entities do. None is ro_bench's workload; bounce keeps the scene's\n"
                          "energy, so the overlap count stays steady over time; push apart lets entities pile up.");
    ImGui::EndDisabled();
    // As wide as its longer label, under one id: Step and Count misses stay where they were
    // when it toggles, and a press and release span a toggle without being lost.
    const float pauseWidth = ImGui::CalcTextSize("Resume (Esc)").x + 2.0f * ImGui::GetStyle().FramePadding.x;
    if (ImGui::Button(lab.paused() ? "Resume (Esc)###pause" : "Pause (Esc)###pause", ImVec2(pauseWidth, 0.0f)))
        commands.push(Command::togglePause());
    ImGui::SameLine();
    ImGui::BeginDisabled(!lab.paused());
    if (ImGui::Button("Step (Space)")) commands.push(Command::step());
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(lab.session().trace() != nullptr);
    changed |= ImGui::Checkbox("Count misses", &config.countMissed);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Missed collisions in the HUD: pairs that passed through each other within the tick\n"
                          "(their paths met, their boxes are apart at both ends of it, so no tick shows them) that the\n"
                          "broad phase did not report (a second broad phase on swept boxes, then the exact swept tests).");
    if (changed) commands.push(Command::worldConfig(config));
}

void overlaySection(OverlayFlags& overlays) {
    ImGui::Checkbox("Structure (G)", &overlays.grid);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Cells, tree nodes, fat boxes or the sweep's delimiters");
    ImGui::SameLine();
    ImGui::Checkbox("Pairs (P)", &overlays.pairs);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Candidate pairs as lines");
    ImGui::SameLine();
    ImGui::Checkbox("AABBs (B)", &overlays.bounds);
}

/// One toggle per level (HSHG levels, tree depths), in that level's colour. Last in the panel:
/// how many there are depends on the technique, and no row below may move when it changes.
void levelsSection(OverlayFlags& overlays) {
    if (!overlays.grid || overlays.levelsSeen <= 1) return;
    section("Structure levels");
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

/// A checkbox per registry row: the techniques run beside the world's own on its boxes; and
/// the Plots window, which draws them.
void compareSection(const Lab& lab, CommandQueue& commands, WindowRequests& requests, PlotsUi& plots) {
    const std::uint32_t count = lab.world().size();
    const auto all = techniques();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (i % 4 != 0) ImGui::SameLine();
        bool picked = lab.compare().picked(all[i]);
        const bool tooMany = overLimit(all[i], count) && !picked;
        ImGui::BeginDisabled(tooMany);
        fmt::memory_buffer label;
        fmt::format_to(std::back_inserter(label), "{}##compare", all[i].id);
        label.push_back('\0');
        if (ImGui::Checkbox(label.data(), &picked)) commands.push(Command::compared(all[i], picked));
        ImGui::EndDisabled();
        // At the ends of the two rows: every technique the count allows, or none.
        if (i == std::min<std::size_t>(3, all.size() - 1)) {
            ImGui::SameLine();
            if (ImGui::SmallButton("all##compare"))
                for (const TechniqueInfo& t : all)
                    if (!overLimit(t, count)) commands.push(Command::compared(t, true));
        }
        if (i + 1 == all.size()) {
            ImGui::SameLine();
            if (ImGui::SmallButton("none##compare"))
                for (const TechniqueInfo& t : all) commands.push(Command::compared(t, false));
        }
    }
    wrapped(lab.compare().empty() ? "tick techniques to run them on the world's boxes every tick"
                                  : "each one's pairs are checked against a reference every tick",
            ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::Checkbox("Plots", &plots.open);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("History, scaling and parameter sweeps of the compared techniques");
    ImGui::SameLine();
    ImGui::BeginDisabled(plots.sweepRunning);
    if (ImGui::SmallButton("Run scaling sweep")) requests.push(WindowRequest::startScaling());
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("Measures the compared techniques (none: the world's own) on this preset's scene\n"
                          "from 100 entities up to the Scaling tab's 'up to n', and plots ms and pair tests\n"
                          "against n%s",
                          plots.sweepRunning ? " (a sweep is running)" : "");
}

/// A row of colour swatches (one per level or layer, in order) and what they mean.
void swatches(std::span<const SDL_Color> colours, std::string_view meaning) {
    const float side = ImGui::GetTextLineHeight();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::min(kTextWidth, ImGui::GetContentRegionAvail().x));
    for (const SDL_Color c : colours) {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + side, at.y + side), IM_COL32(c.r, c.g, c.b, 255));
        ImGui::Dummy(ImVec2(side, side));
        ImGui::SameLine(0.0f, 2.0f);
    }
    ImGui::SameLine();
    ImGui::TextUnformatted(meaning.data(), meaning.data() + meaning.size());
    ImGui::PopTextWrapPos();
}

/// A colour swatch and what it means.
void swatch(SDL_Color c, std::string_view meaning) { swatches(std::span(&c, 1), meaning); }

void legendSection(const LegendView& view, bool& everyColour) {
    if (!ImGui::CollapsingHeader("Legend and keys", ImGuiTreeNodeFlags_DefaultOpen)) return;
    ImGui::Checkbox("every colour", &everyColour);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Off: only the colours of what is on screen now");
    const bool all = everyColour;
    const bool tree = view.technique == "tree" || view.technique == "auto";
    const bool sweeps = view.technique == "sap" || view.technique == "sweep" || view.technique == "auto";
    // One colour, one meaning: entities first, then each overlay's own.
    if (all || !view.layers) {
        swatch(palette::kBox, "box");
        swatch(palette::kBoxOverlap, "box whose AABB overlaps another's");
        swatch(palette::kCircle, "circle");
        swatch(palette::kCircleOverlap, "circle whose AABB overlaps another's");
    }
    if (all || view.layers) swatches(palette::kLayers, "layers 0-3: the layers preset colours by layer, not shape");
    if (all || view.fastMovers) {
        swatch(palette::kFastMover, "fast mover (a quarter of its size a tick or more), with Count misses or "
                                    "swept boxes on; with swept boxes, its swept box outlined");
        swatch(palette::kMissMark, "a missed pair, where it passed through (fades within a second)");
    }
    if (all || view.pairs) {
        swatch(palette::kCandidate, "candidate pair (P) that does not overlap");
        if (all || view.technique == "hash") swatch(palette::kLongCandidate, "far candidate pair (hash collision)");
        swatch(palette::kOverlap, "candidate pair whose AABBs overlap");
        wrapped("Running, a tick finds its pairs before its response moves the entities: a line can "
                "join two that no longer overlap on screen. Paused, they agree. Many lines fade.",
                ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    }
    if (all || view.structure) {
        swatches(palette::kLevels, "structure (G): cells per level, brighter holds more; tree nodes per depth");
        if (all || tree) swatch(palette::kFatBox, "fat box of the AABB tree (G)");
        if (all || sweeps) {
            swatch(palette::kStripDepth, "sweep strip: intervals open along the axis");
            swatch(palette::kVoidMark, "strip mark: a delimiter that touches void");
        }
    }
    if (all || view.bounds) swatch(palette::kBounds, "entity AABB (B)");
    if (all || view.query)
        swatch(palette::kQuery, "query: hover point, Shift / Ctrl + drag box or ray, and what it hit "
                                "(the ray's first hit thicker)");
    if (all || view.compare) swatch(palette::kMismatch, "a pair a compared technique got wrong");
    if (all || !view.density)
        wrapped("Shapes view: a pixel that several entities share is lighter. An entity over 4 times the "
                "median side is outlined over a faint fill; its pairs are the darker entities inside, not lines.",
                ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    if (all || view.density) {
        const SDL_Color ramp[] = {palette::kDensityLow,
                                  palette::lerpColour(palette::kDensityLow, palette::kDensityHigh, 0.33f),
                                  palette::lerpColour(palette::kDensityLow, palette::kDensityHigh, 0.66f),
                                  palette::kDensityHigh};
        swatches(ramp, "density view, where most entities are under 2 pixels (100k and more): entities per "
                       "pixel, from one in a square of a few pixels to 8+ a pixel; entities 4 pixels across or "
                       "more outlined in their shape's colour (counters line: view=density)");
    }
    ImGui::Spacing();
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_None, ImVec2(std::min(kTextWidth, ImGui::GetContentRegionAvail().x), 0.0f))) {
        ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
        auto key = [](const char* k, const char* what) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(k);
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", what);
        };
        key("left click / drag", "add an entity / spray");
        key("right click", "remove the entity there");
        key("right or middle drag", "pan");
        key("wheel", "zoom around the cursor");
        key("Shift / Ctrl + drag", "box / ray query");
        key("Esc", "pause / resume");
        key("Space, N", "one step while paused");
        key("Tab, Shift+Tab", "next / previous technique");
        key("G  P  B", "structure / pairs / AABB overlays");
        key("F or Home", "fit the world in the window");
        key("H", "hide or show all UI");
        key("C", "clear the box or ray query");
        key("F12", "screenshot (PNG, working dir.)");
        key("Q", "quit");
        ImGui::EndTable();
    }
    wrapped("Keys work anywhere but in a text field.", ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
}

/// The question a held change asks: what it is, its predicted tick, Apply or Cancel. The modal
/// is built while it is open, and closes once the lab holds nothing (applied or dropped).
void slowChangeModal(const Lab& lab, CommandQueue& commands) {
    constexpr const char* kTitle = "A slow change";
    if (lab.held() && !ImGui::IsPopupOpen(kTitle)) ImGui::OpenPopup(kTitle);
    if (!ImGui::BeginPopupModal(kTitle, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
        return;
    if (const auto& held = lab.held()) {
        const Command& c = held->command;
        const auto ask = [&](std::string_view t) { wrapped(t, ImVec4(1.0f, 0.8f, 0.4f, 1.0f)); };
        switch (c.kind) {
            case Command::Kind::Technique:
                withText(ask, "{} at {} entities: predicted ~{:.1f} s a tick.", c.name, lab.world().size(), held->seconds);
                break;
            case Command::Kind::Count:
                withText(ask, "{:.0f} entities under {}: predicted ~{:.1f} s a tick.", c.value, lab.session().technique().id,
                         held->seconds);
                break;
            default:
                withText(ask, "{} {:.3g} at {} entities: predicted ~{:.1f} s a tick.", c.name, c.value,
                         lab.world().size(), held->seconds);
                break;
        }
        hint("The window stays responsive; the simulation slows down.");
        if (ImGui::Button("Apply")) {
            Command confirmed = c;
            confirmed.confirmed = true;
            commands.push(std::move(confirmed));
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) {
            commands.push(Command::dropHeld());
            ImGui::CloseCurrentPopup();
        }
    } else {
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

}  // namespace

void placeWindow(const Rect& area) {
    ImGui::SetNextWindowPos(ImVec2(area.x, area.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(area.w, area.h), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(1.0f);
}

WindowFit windowFit(const char* name) {
    const ImGuiWindow* window = ImGui::FindWindowByName(name);
    if (!window) return {};
    const ImGuiStyle& style = ImGui::GetStyle();
    // A click on the collapse arrow is applied at the window's next Begin: read it now, so
    // that the layout of this frame already has it.
    const bool collapsed = window->Collapsed != window->WantCollapseToggle;
    const float scrollbar = window->ScrollbarX ? style.ScrollbarSize : 0.0f;
    return {true, collapsed, window->ContentSizeIdeal.y + 2.0f * style.WindowPadding.y + window->TitleBarHeight() + scrollbar};
}

void drawPanel(const Lab& lab, CommandQueue& commands, WindowRequests& requests, OverlayFlags& overlays,
               UiRects& rects, SceneFileUi& sceneFile, PlotsUi& plots, const Rect& area) {
    // A column of the layout: fixed, full height; it scrolls inside when the window is short.
    placeWindow(area);
    ImGui::Begin("Ro Broadphase Lab", nullptr, kDockedFlags);
    ImGui::PushItemWidth(170.0f);
    section("Broad phase");
    techniqueSection(lab, commands);
    section("Population");
    populationSection(lab, commands);
    section("Scene");
    sceneSection(lab, commands, sceneFile);
    // Files fold away (the panel fits the window at every count); open while a recording or a
    // replay runs, so its status shows.
    const auto replay = lab.replayStatus();
    if (lab.recording() || (replay && !replay->finished)) ImGui::SetNextItemOpen(true);
    if (ImGui::TreeNode("Scene file, record, replay")) {
        sceneFileRow(lab, commands, sceneFile);
        ImGui::TreePop();
    }
    section("Clock");
    clockSection(lab, commands);
    section("Overlays");
    overlaySection(overlays);
    section("Compare");
    compareSection(lab, commands, requests, plots);
    levelsSection(overlays);
    slowChangeModal(lab, commands);
    ImGui::PopItemWidth();
    rects.panel = windowRect();
    ImGui::End();
}

void drawLegend(UiRects& rects, const Rect& area, const LegendView& view, bool& everyColour) {
    if (area.empty()) {
        rects.legend = {};
        return;
    }
    placeWindow(area);
    ImGui::Begin("Legend", nullptr, kDockedFlags | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoFocusOnAppearing);
    legendSection(view, everyColour);
    rects.legend = windowRect();
    ImGui::End();
}


}  // namespace ro::app
