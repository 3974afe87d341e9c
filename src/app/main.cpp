// ro_demo: the Ro Broadphase Lab. One window, one world, a broad-phase technique you can swap
// live, and overlays that show what it does. Run with --help for flags, keys and mouse.

#include <SDL.h>
#include <fmt/core.h>
#include <imgui.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "app/compare_window.h"
#include "app/gui.h"
#include "app/hud.h"
#include "app/input.h"
#include "app/lab.h"
#include "app/layout.h"
#include "app/options.h"
#include "app/overlays.h"
#include "app/panel.h"
#include "app/plots.h"
#include "app/queries.h"
#include "app/report.h"
#include "app/scene_file.h"
#include "app/screen.h"
#include "app/stop_signal.h"
#include "app/window_request.h"
#include "ro/trace.h"

namespace {

constexpr const char* kTitle = "Ro Broadphase Lab";

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// F12: the frame as drawn, to a timestamped PNG in the working directory; returns the line
/// the HUD shows.
std::string shotMessage(const ro::app::Screen& screen) {
    const std::time_t now = std::time(nullptr);
    char stamp[32] = "ro_lab";
    std::strftime(stamp, sizeof stamp, "ro_lab_%Y%m%d_%H%M%S", std::localtime(&now));
    const std::string path = fmt::format("{}.png", stamp);
    std::error_code error;
    const std::filesystem::path where = std::filesystem::absolute(path, error);
    if (!screen.saveScreenshot(path)) return fmt::format("screenshot failed: cannot write {}", where.string());
    return fmt::format("screenshot: {}", where.string());
}

/// The Plots window's Save PNG: the part `r` of the frame as drawn, to `path`; returns the line
/// the HUD shows.
std::string imageMessage(const ro::app::Screen& screen, const std::string& path, const ro::app::Rect& r) {
    const SDL_Rect area{static_cast<int>(r.x), static_cast<int>(r.y), static_cast<int>(r.w), static_cast<int>(r.h)};
    std::error_code error;
    const std::string where = std::filesystem::absolute(path, error).string();
    return screen.saveScreenshot(path, &area) ? fmt::format("plot image: {}", where)
                                              : fmt::format("could not write {}", where);
}

/// What came of a file request: the line the HUD shows, and whether it did what was asked.
struct FileResult {
    ro::app::Command request;
    std::string said;
    bool done = false;
};

/// Runs one file request of the queue (save, load, record, replay, trace) on the lab; the
/// camera is the screen's (saved with a scene, brought back by a load or a replay). A file it
/// cannot use leaves the scene as it was, and the line says why.
FileResult runFileRequest(ro::app::Command request, ro::app::Lab& lab, ro::app::Screen& screen) {
    using namespace ro::app;
    using Kind = Command::Kind;
    std::error_code error;
    auto where = [&](const std::string& path) { return std::filesystem::absolute(path, error).string(); };
    const std::string path = request.name;
    FileResult result{std::move(request), {}, false};
    const Kind kind = result.request.kind;
    try {
        if (kind == Kind::SaveScene) {
            saveSceneFile(path, {lab.capture(), screen.camera()});
            result.said = fmt::format("saved {} entities to {}", lab.world().size(), where(path));
        } else if (kind == Kind::Record && !lab.recording()) {
            result.done = lab.startRecording(screen.camera());
            result.said = result.done ? "recording every input from this tick" : "not recording: a replay or a trace is playing";
            return result;
        } else if (kind == Kind::Record) {
            const Recording recording = lab.stopRecording();
            saveReplayFile(path, recording);
            result.said = fmt::format("recorded {} input{} over {} ticks to {}", recording.inputs.size(),
                                      recording.inputs.size() == 1 ? "" : "s", recording.endTick, where(path));
        } else if (kind == Kind::Replay) {
            const BusyScope busy;
            const Recording recording = loadReplayFile(path);
            lab.startReplay(recording);
            screen.setCamera(recording.camera, lab.world().config().bounds);
            result.said = fmt::format("replaying {} inputs over {} ticks", recording.inputs.size(), recording.endTick);
        } else if (kind == Kind::LoadScene) {
            const BusyScope busy;
            Camera camera = screen.camera();
            if (const std::string why = loadInto(path, lab, camera); !why.empty()) {
                result.said = fmt::format("not loaded, the scene is unchanged: {}", why);
                return result;
            }
            screen.setCamera(camera, lab.world().config().bounds);
            result.said = fmt::format("loaded {} entities from {}", lab.world().size(), where(path));
        } else if (kind == Kind::LoadTrace) {
            try {
                const BusyScope busy;
                lab.loadTrace(path);
                result.said = fmt::format("playing {}: {} frames", lab.session().trace()->label(), lab.session().trace()->frames());
            } catch (const std::exception& e) {  // TraceError names the file, the frame and the box
                result.said = fmt::format("not loaded, the scene is unchanged: {}", e.what());
                return result;
            }
        }
        result.done = true;
    } catch (const SceneFileError& e) {
        result.said = fmt::format("failed, the scene is unchanged: {}", e.what());
    } catch (const std::invalid_argument& e) {
        result.said = fmt::format("not replayed, the scene is unchanged: {}: {}", path, e.what());
    }
    return result;
}

int run(const ro::app::Options& options) {
    using namespace ro::app;

    //--------------------------------------------------------------------------------------------
    // Initialization
    //--------------------------------------------------------------------------------------------
    // 2. The world, its technique and its population (a million entities take a while: busy),
    //    or the scene file's; a bad file ends the run here, before any window.
    //    A stop signal ends a long load as it ends a step, with its status.
    const StopCheck stopRequested = [] { return stopSignal() != 0; };
    std::optional<SceneFile> loaded;
    std::optional<Recording> replay;
    try {
        if (!options.load.empty()) loaded = loadSceneFile(options.load, stopRequested);
        if (!options.replay.empty()) replay = loadReplayFile(options.replay, stopRequested);
        // Under another technique a replay's inputs for techniques are ignored: its limit holds throughout.
        if (replay && options.techniqueGiven) checkReplayCounts(*replay, ro::findTechnique(options.technique));
    } catch (const SceneFileError& e) {  // --load and --replay are never given together
        fmt::print(stderr, "ro_demo: {} {}\n", options.load.empty() ? "--replay" : "--load", e.what());
        return 2;
    } catch (const LoadStopped& e) {
        fmt::print(stderr, "ro_demo: {}: {}\n", options.load.empty() ? options.replay : options.load, e.what());
        return 128 + stopSignal();
    }
    Lab lab = [&] {
        const BusyScope busy;
        return Lab(*ro::findTechnique(options.technique), loaded || replay || !options.trace.empty() ? 0 : options.entities, options.seed,
                   options.parameters, options.sizes,
                   options.scenario.empty() ? nullptr : ro::findScenario(options.scenario));
    }();
    if (loaded) {
        try {
            const BusyScope busy;
            lab.restore(loaded->lab);
            // The command line's technique and parameters win over the file's.
            if (options.techniqueGiven) {
                const ro::TechniqueInfo& technique = *ro::findTechnique(options.technique);
                if (technique.maxEntities != 0 && lab.world().size() > technique.maxEntities)
                    throw std::invalid_argument(fmt::format("its {} entities are too many for --technique {} (at most {})",
                                                            lab.world().size(), technique.id, technique.maxEntities));
                lab.apply(Command::useTechnique(technique));
            }
            for (const auto& [key, value] : options.parameters.values())
                for (const ro::ParameterSpec& spec : lab.session().technique().parameters)
                    if (spec.key == key) lab.apply(Command::parameter(spec, value));
        } catch (const std::invalid_argument& e) {
            fmt::print(stderr, "ro_demo: --load {}: {}\n", options.load, e.what());
            return 2;
        }
    }
    if (replay) {
        try {
            const BusyScope busy;
            lab.startReplay(*replay, options.techniqueGiven ? ro::findTechnique(options.technique) : nullptr);
        } catch (const std::invalid_argument& e) {
            fmt::print(stderr, "ro_demo: --replay {}: {}\n", options.replay, e.what());
            return 2;
        }
    }
    if (!options.trace.empty()) {
        try {
            const BusyScope busy;
            lab.loadTrace(options.trace);
        } catch (const std::exception& e) {  // TraceError names the file, the frame and the box
            fmt::print(stderr, "ro_demo: --trace: {}\n", e.what());
            return 2;
        }
    }
    for (const std::string& id : options.compare) lab.apply(Command::compared(*ro::findTechnique(id), true));
    // 3. Window and renderer (SDL video).
    Screen screen(kTitle, options.width, options.height);
    screen.setDrawPath(options.drawPath);
    {
        // The world's rectangle before ImGui has drawn a window: the zoom given and the overdraw
        // limit below are reckoned for it, not for the whole window.
        LayoutInputs first;
        first.columnCollapsed = static_cast<float>(options.width) < Layout::kFoldBelow;
        first.compareOpen = !options.compare.empty();
        screen.setWorldView(computeLayout(static_cast<float>(options.width), static_cast<float>(options.height), first).world);
    }
    if (loaded) screen.setCamera(loaded->camera, lab.world().config().bounds);
    if (replay) screen.setCamera(replay->camera, lab.world().config().bounds);
    if (options.zoom != 1.0f) {
        screen.fitView(lab.world().config().bounds);
        const Rect& area = screen.worldView();
        screen.zoomAt(area.x + 0.5f * area.w, area.y + 0.5f * area.h, options.zoom);
    }
    // A camera given at start is kept; else a scene whose boxes would cover the window many
    // times over opens zoomed out. A recording starts from the camera the run starts with.
    if (options.zoom == 1.0f && !loaded && !replay) screen.limitOverdraw(lab.world());
    if (!options.record.empty()) lab.startRecording(screen.camera());
    // --record-trace: the world's boxes as each tick begins, and once more at exit. A write
    // that fails ends the recording; the exit says why.
    std::optional<ro::TraceWriter> traceOut;
    std::string traceError;
    if (!options.recordTrace.empty()) {
        try {
            traceOut.emplace(options.recordTrace);
        } catch (const ro::TraceError& e) {
            fmt::print(stderr, "ro_demo: --record-trace: {}\n", e.what());
            return 2;
        }
        lab.setTickListener([&traceOut, &traceError](const ro::World& world) {
            if (!traceError.empty()) return;
            try {
                traceOut->frame(world.boxes());
            } catch (const ro::TraceError& e) {
                traceError = e.what();
            }
        });
    }
    // 4. Dear ImGui on top of them.
    Gui gui(screen);
    // 5. What the person can toggle and do.
    OverlayFlags overlays = options.overlays;
    OverlayRenderer overlayRenderer;
    Input input;
    UiRects uiRects;
    SceneFileUi sceneFileUi;
    CompareUi compareUi;
    // The panel's file fields start with the files the command line named, so that its Save,
    // Load, Stop and Replay use them: Stop after --record FILE wrote ro_replay.json instead.
    const auto startWith = [](char (&field)[sizeof SceneFileUi::path], const std::string& file) {
        if (!file.empty() && file.size() < sizeof field) std::snprintf(field, sizeof field, "%s", file.c_str());
    };
    startWith(sceneFileUi.path, options.load);
    startWith(sceneFileUi.path, options.save);
    startWith(sceneFileUi.replayPath, options.replay);
    startWith(sceneFileUi.replayPath, options.record);
    startWith(sceneFileUi.tracePath, options.trace);
    QueryTool queries;
    PlotsWindow plots;
    // What the keys, the mouse and the windows ask of the lab, applied once a frame, and what
    // they ask of the window (a line in the HUD, an image, a sweep), carried out once it is drawn.
    CommandQueue commands;
    WindowRequests requests;
    Hud hud;
    // While the pointer is in the right column, the HUD keeps the tallest height its rows
    // needed since it came there: a row that goes (the hovered point's query, as the pointer
    // leaves the world) does not move the legend under the pointer on its way to it.
    // Elsewhere the HUD is as tall as its rows, and the legend has the rest.
    float hudHeightHeld = 0.0f;
    float hudHeldWidth = 0.0f;
    bool legendEveryColour = false;  // the legend's "every colour" box: off lists what is on screen
    // What the layout depends on, read afresh each time it is computed (the window's size, what
    // is open or folded, what the windows' contents asked for the frame before).
    LayoutInputs layoutInputs;
    const auto layoutFor = [&](const LayoutInputs& inputs) {
        int width = 0, height = 0;
        SDL_GetWindowSize(screen.window(), &width, &height);
        return computeLayout(static_cast<float>(width), static_cast<float>(height), inputs);
    };
    const auto layoutNow = [&] {
        const ImGuiStyle& style = ImGui::GetStyle();
        layoutInputs.uiHidden = input.uiHidden();
        int width = 0, height = 0;
        SDL_GetWindowSize(screen.window(), &width, &height);
        const WindowFit hudFit = windowFit("Counters");
        layoutInputs.columnCollapsed = hudFit.known ? hudFit.collapsed : static_cast<float>(width) < Layout::kFoldBelow;
        layoutInputs.compareOpen = !lab.compare().empty();
        layoutInputs.plotsOpen = plots.open();
        layoutInputs.titleHeight = ImGui::GetFontSize() + 2.0f * style.FramePadding.y;
        layoutInputs.plotsHeight = windowFit("Plots").height;
        return layoutFor(layoutInputs);
    };
    if (options.queryPoint) queries.pinPoint(*options.queryPoint);
    if (options.queryBox) {
        const ro::Aabb& b = *options.queryBox;
        queries.set(QueryTool::Shape::Box, {b.minX, b.minY}, {b.maxX, b.maxY});
    }
    if (options.queryRay) queries.set(QueryTool::Shape::Ray, options.queryRay->from, options.queryRay->to);
    if (options.paused) lab.apply(Command::pause(true));
    if (options.sweptBoxes || options.timeOfImpact || options.countMisses) {
        ro::WorldConfig config = lab.world().config();
        config.sweptBoxes |= options.sweptBoxes;
        config.timeOfImpact |= options.timeOfImpact;
        config.countMissed |= options.countMisses;
        lab.apply(Command::worldConfig(config));
    }
    // After --paused: a sweep pauses the world, and resumes it afterwards only if it ran.
    plots.setScalingTop(options.sweepMax);
    if (options.plots == "history") plots.show(PlotsWindow::Tab::History);
    if (options.plots == "scaling") plots.startScaling(lab, commands, requests);
    if (options.plots == "parameter" && !plots.startParameter(lab, commands, requests, options.plotParameter)) {
        fmt::print(stderr, "ro_demo: --plots parameter={}: '{}' has no such numeric parameter\n", options.plotParameter,
                   lab.session().technique().id);
        return 2;
    }

    // With --frames the clock is virtual (one tick per frame), so headless runs are deterministic.
    const bool virtualClock = options.frames.has_value();
    int exitCode = 0;
    double msDraw = 0.0;
    FrameReport report;
    FrameHistory history;
    // The count the camera was last chosen for: a count grown by more than a tenth may cover
    // the view too many times over (a click or two must not undo the person's zoom).
    std::uint32_t shownCount = lab.world().size();
    // The camera and the overlays start where the options put them; a notice of the start
    // (a trace too large for the technique asked for) is said in the first frames.
    std::vector<std::string> startNotices = lab.takeEvents().notices;
    // A line for the HUD, shown for some seconds and in at least kMessageFrames frames: the
    // first tick of a million entities under Compare can take longer than the seconds.
    std::string message;
    auto messageUntil = std::chrono::steady_clock::now();
    constexpr int kMessageFrames = 3;
    int messageFrames = 0;
    const auto say = [&](std::string line, int seconds) {
        message = std::move(line);
        messageUntil = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        messageFrames = kMessageFrames;
    };
    for (std::string& notice : startNotices) {
        fmt::print("notice: {}\n", notice);
        std::fflush(stdout);
        say(std::move(notice), 8);
    }

    for (std::uint64_t frame = 1;; ++frame) {
        // SIGINT or SIGTERM between two steps: a clean exit with the shell's status.
        if (const int signal = stopSignal()) {
            exitCode = 128 + signal;
            break;
        }
        //----------------------------------------------------------------------------------------
        // Update: poll, the commands the keys, the mouse and the windows made, the step. The lab
        // changes only through Lab::apply (the scene and replay files still act on it here);
        // what they ask of the window itself waits in `requests` until the frame is drawn.
        //----------------------------------------------------------------------------------------
        input.poll();
        gui.beginFrame(input.pointer());
        // The world's rectangle as the frame the person clicked on had it.
        Layout layout = layoutNow();
        screen.setWorldView(layout.world);
        screen.fitView(lab.world().config().bounds);
        input.apply(lab, commands, requests, overlays, queries, screen, uiRects);  // after beginFrame: clicks on the UI are known
        // A headless replay ends with the replay, or after --frames, whichever comes first; a
        // sweep started from the command line runs to its end.
        const bool replayDone = replay && lab.replayStatus() && lab.replayStatus()->finished;
        const bool lastFrame =
            input.quitRequested() || (virtualClock && (frame >= static_cast<std::uint64_t>(*options.frames) || replayDone) &&
                                      !plots.sweep().running());

        {
            // A step can take long (brute force near its limit): a stop signal ends it at once.
            const BusyScope busy;
            // The windows show the lab as the last frame left it, and push what is asked of it.
            PlotsUi plotsUi{.open = plots.open(), .sweepRunning = plots.sweep().running()};
            if (input.uiHidden()) uiRects = {};
            else drawPanel(lab, commands, requests, overlays, uiRects, sceneFileUi, plotsUi, layout.panel);
            plots.setOpen(plotsUi.open);
            // The panel may have opened the Plots or picked a technique to compare: this frame's
            // world keeps clear of the windows it draws.
            layout = layoutNow();
            screen.setWorldView(layout.world);
            screen.fitView(lab.world().config().bounds);
            if (!input.uiHidden()) plots.draw(lab, commands, requests, uiRects, layout.plots);
            // The commands, in the order they were made: the one way the lab changes. A file
            // request is run here, in its place in the queue; what came of it is said below.
            std::vector<FileResult> fileResults;
            for (Command& command : commands.take()) {
                if (command.fileRequest()) fileResults.push_back(runFileRequest(std::move(command), lab, screen));
                else lab.apply(std::move(command));
            }
            // The step.
            lab.update(ImGui::GetIO().DeltaTime, virtualClock);
            for (FileResult& result : fileResults) {
                if (result.request.kind == Command::Kind::SaveScene && result.done) sceneFileUi.lastSaved = result.request.name;
                if (result.request.kind == Command::Kind::LoadTrace) {
                    // Shown under the trace's row until the next; in the log a walk reads.
                    sceneFileUi.traceMessage = result.said;
                    sceneFileUi.traceFailed = !result.done;
                    fmt::print("{}\n", result.said);
                    std::fflush(stdout);
                }
                say(std::move(result.said), 8);
            }
            lab.refreshIfChanged();
            // What changed in the lab this frame: the window's own state follows it.
            LabEvents events = lab.takeEvents();
            for (std::string& notice : events.notices) {  // sizes fitted to a new count: say so in the HUD
                fmt::print("notice: {}\n", notice);  // for the log a walk reads
                std::fflush(stdout);
                say(std::move(notice), 8);
            }
            // Hidden levels belong to a technique: a new one shows all of its own.
            if (events.technique) overlays.hiddenLevels = 0;
            if (events.restored) shownCount = lab.world().size();  // a scene file or a replay brings its camera
            if (events.scene) {  // other walls
                screen.resetCamera();
                shownCount = 0;
            }
            if (events.scene || events.count) {
                if (const std::uint32_t count = lab.world().size(); count < shownCount) {
                    shownCount = count;
                } else if (count > shownCount + shownCount / 10) {
                    shownCount = count;
                    screen.limitOverdraw(lab.world());
                }
            }
            queries.run(lab.world(), lab.session().technique());
            // A sweep runs on a worker: the window takes what it measured.
            plots.pollSweep(lab, commands, requests);
        }

        //----------------------------------------------------------------------------------------
        // Draw (timed apart from the simulation: the renderer's cost is not the broad phase's).
        // The world is drawn before the HUD is built, so the HUD reports this frame's drawing.
        //----------------------------------------------------------------------------------------
        const auto drawStart = std::chrono::steady_clock::now();
        overlayRenderer.resetCounts();
        screen.beginFrame(lab.world(), overlays.grid || overlays.pairs || overlays.bounds);
        if (overlays.grid) overlayRenderer.drawStructureCells(screen, lab.world().broadPhase(), overlays);
        // Line overlays go into the raster (under its copy) or over the geometry (after it).
        const auto drawLineOverlays = [&] {
            if (overlays.grid) overlayRenderer.drawStructureLines(screen);
            if (overlays.bounds) overlayRenderer.drawBounds(screen, lab.world());
            if (overlays.pairs) overlayRenderer.drawPairs(screen, lab.world());
        };
        const bool rasterFrame = screen.rasterFrame();
        if (rasterFrame) drawLineOverlays();
        screen.drawEntities(lab.world());
        if (!rasterFrame) drawLineOverlays();
        if (overlays.grid) overlayRenderer.drawSweepStrip(screen.renderer(), screen.view(), screen.worldView());
        overlayRenderer.drawFastMovers(screen.renderer(), screen.view(), lab);
        overlayRenderer.drawQueries(screen.renderer(), screen.view(), lab.world(), queries);
        if (const auto& alarm = lab.compareAlarm())
            overlayRenderer.drawMismatch(screen.renderer(), screen.view(), lab.world(), alarm->mismatch.pair);
        screen.endWorld();
        // SDL queues draw calls; flushing makes the timing include the rasterisation itself.
        SDL_RenderFlush(screen.renderer());
        msDraw = msSince(drawStart);

        report = makeReport(lab, queries, screen.rendererName(), msDraw, ImGui::GetIO().Framerate, frame);
        report.drawn = screen.drawn();
        report.overlayCounts = overlayRenderer.counts();
        report.msLastTicks = 1000.0 * lab.lastTicksSeconds();
        report.zoom = screen.zoom();
        report.view = screen.view();
        report.worldView = screen.worldView();
        report.sweepPoints = plots.sweep().points().size();
        report.sweepPlanned = plots.sweep().planned();
        report.sweepRunning = plots.sweep().running();
        if (const TracePlayback* trace = lab.session().trace()) {
            report.traceLabel = trace->label();
            report.traceFrame = trace->frame() + 1;
            report.traceFrames = trace->frames();
        }
        // The verdict as last ranked (twice a second): the Compare window is built after the HUD.
        if (!lab.compare().empty() && compareUi.verdict.winner) report.verdictPick = compareUi.verdict.winner->id;
        history.add(report);
        if (std::chrono::steady_clock::now() < messageUntil || messageFrames > 0) {
            report.message = message;
            messageFrames = std::max(messageFrames - 1, 0);
        }
        if (!input.uiHidden()) {
            // The HUD as tall as this frame's rows; Compare and the legend below it.
            const float hudNeeds = hud.prepare(report, layout.hud.w);
            const PointerState& pointer = input.pointer();
            const bool pointerInColumn = pointer.inWindow && layout.hud.w > 0.0f && pointer.x >= layout.hud.x &&
                                         pointer.x < layout.hud.right();
            if (!pointerInColumn || layout.hud.w != hudHeldWidth) hudHeightHeld = 0.0f;
            hudHeldWidth = layout.hud.w;
            hudHeightHeld = std::max(hudHeightHeld, hudNeeds);
            layoutInputs.hudHeight = hudHeightHeld;
            layout = layoutFor(layoutInputs);
            hud.draw(uiRects, layout.hud, layoutInputs.columnCollapsed);
            drawCompare(lab, commands, uiRects, compareUi, layout.compare);
            const LegendView legendView{.structure = overlays.grid,
                                        .pairs = overlays.pairs,
                                        .bounds = overlays.bounds,
                                        .technique = report.technique,
                                        .fastMovers = report.missed.has_value() || report.sweptExtra.has_value(),
                                        .query = report.pointActive || !report.shape.empty(),
                                        .compare = report.compared > 0,
                                        .layers = report.scene == "layers",
                                        .density = report.drawn.density};
            drawLegend(uiRects, layout.legend, legendView, legendEveryColour);
        }
        report.ui = uiRects;
        Gui::render();
        // What the keys and the windows asked of the window this frame, in order, now that the
        // frame is drawn: F12 and Save PNG take it as the person sees it (H first for the world
        // alone). A sweep started here pauses the lab by the first command of the next frame,
        // before that frame's step, so no tick runs beside it.
        for (WindowRequest& request : requests.take()) {
            switch (request.kind) {
                case WindowRequest::Kind::Say: say(std::move(request.text), request.seconds); break;
                case WindowRequest::Kind::Screenshot: say(shotMessage(screen), 5); break;
                case WindowRequest::Kind::SaveImage: say(imageMessage(screen, request.text, request.area), 8); break;
                case WindowRequest::Kind::StartScaling: plots.startScaling(lab, commands, requests); break;
            }
        }
        // The back buffer is only readable before it is presented.
        if (lastFrame && !options.screenshot.empty() && !screen.saveScreenshot(options.screenshot)) {
            fmt::print(stderr, "ro_demo: could not write screenshot '{}'\n", options.screenshot);
            exitCode = 1;
        }
        if (lastFrame && !options.plotsScreenshot.empty()) {
            const Rect& r = uiRects.plots;
            const SDL_Rect area{static_cast<int>(r.x), static_cast<int>(r.y), static_cast<int>(r.w), static_cast<int>(r.h)};
            if (r.w <= 0.0f || !screen.saveScreenshot(options.plotsScreenshot, &area)) {
                fmt::print(stderr, "ro_demo: could not write the Plots window to '{}'\n", options.plotsScreenshot);
                exitCode = 1;
            }
        }
        screen.present();
        // With --frames the last frame's line is always printed, once.
        const auto reportEvery = static_cast<std::uint64_t>(options.reportEvery);
        const bool periodic = reportEvery > 0 && frame % reportEvery == 0;
        if (periodic || (lastFrame && virtualClock)) printReport(report);
        // A compared technique that disagreed with the reference fails the run.
        if (lastFrame && virtualClock && !lab.compare().empty() && printCompare(lab.compare()) && exitCode == 0)
            exitCode = 1;
        if (lastFrame && virtualClock && !lab.compare().empty())
            if (const CompareVerdict verdict = compareVerdict(lab.compare(), lab.comparedSceneProfile());
                !verdict.sentence.empty())
                fmt::print("verdict: {}\n", verdict.sentence);
        if (lastFrame) break;
        // Headless frames are not paced by vsync: while they only wait for a sweep, they leave
        // the worker its core.
        if (virtualClock && plots.sweep().running()) SDL_Delay(5);
    }

    if (options.frames && replay) {
        const auto status = lab.replayStatus().value_or(Lab::ReplayStatus{});
        // Compared only at the end tick: a run that stopped before it says '-', not a mismatch.
        const char* matched = !status.finished ? "-" : status.matched ? "1" : "0";
        fmt::print("replay={} technique={} tick={} end_tick={} finished={} matched={}\n", options.replay,
                   lab.session().technique().id, status.tick, status.endTick, status.finished ? 1 : 0, matched);
        if (status.finished && !status.matched && exitCode == 0) exitCode = 1;
    }
    if (lab.recording()) {
        const Recording recording = lab.stopRecording();
        try {
            saveReplayFile(options.record, recording);
        } catch (const SceneFileError& e) {
            fmt::print(stderr, "ro_demo: --record: {}\n", e.what());
            if (exitCode == 0) exitCode = 1;
        }
    }
    if (traceOut) {
        lab.setTickListener({});
        try {
            if (traceError.empty()) traceOut->frame(lab.world().boxes());
            traceOut->close();
        } catch (const ro::TraceError& e) {
            if (traceError.empty()) traceError = e.what();
        }
        if (!traceError.empty()) {
            fmt::print(stderr, "ro_demo: --record-trace: {}\n", traceError);
            if (exitCode == 0) exitCode = 1;
        }
    }
    if (!options.save.empty()) {
        try {
            saveSceneFile(options.save, {lab.capture(), screen.camera()});
        } catch (const SceneFileError& e) {
            fmt::print(stderr, "ro_demo: --save: {}\n", e.what());
            if (exitCode == 0) exitCode = 1;
        }
    }

    //--------------------------------------------------------------------------------------------
    // De-Initialization: the destructors run in reverse order of setup (lab, gui, screen)
    //--------------------------------------------------------------------------------------------
    return exitCode;
}

}  // namespace

int main(int argc, char** argv) {
    // 1. Command line: --help, --list-techniques and bad flags end here, before any window.
    const ro::app::ParseResult parsed = ro::app::parseOptions(argc, argv);
    if (parsed.exitCode) return *parsed.exitCode;
    ro::app::installStopSignals();  // before SDL_Init, which is told to leave the signals alone
    int exitCode = 1;
    try {
        exitCode = run(parsed.options);
    } catch (const std::exception& e) {
        fmt::print(stderr, "ro_demo: {}\n", e.what());
    }
    // A sweep's worker can be inside a call of seconds (a tree of a million boxes): the
    // process ends without waiting for it, and without destroying what it might still touch.
    if (ro::app::SweepJob::workersRunning() > 0) {
        std::fflush(stdout);
        std::fflush(stderr);
        std::_Exit(exitCode);
    }
    return exitCode;
}
