// ro_demo: the Ro Broadphase Lab. One window, one world, a broad-phase technique you can swap
// live, and overlays that show what it does. Run with --help for flags, keys and mouse.

#include <SDL.h>
#include <fmt/core.h>
#include <imgui.h>

#include <chrono>
#include <cstdint>
#include <exception>

#include "app/gui.h"
#include "app/input.h"
#include "app/lab.h"
#include "app/options.h"
#include "app/overlays.h"
#include "app/panel.h"
#include "app/queries.h"
#include "app/report.h"
#include "app/screen.h"
#include "app/stop_signal.h"

namespace {

constexpr const char* kTitle = "Ro Broadphase Lab";

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

int run(const ro::app::Options& options) {
    using namespace ro::app;

    //--------------------------------------------------------------------------------------------
    // Initialization
    //--------------------------------------------------------------------------------------------
    // 2. Window and renderer (SDL video).
    Screen screen(kTitle, options.width, options.height);
    // 3. Dear ImGui on top of them.
    Gui gui(screen);
    // 4. The world, its technique and its population (a million entities take a while: busy).
    Lab lab = [&] {
        const BusyScope busy;
        return Lab(*ro::findTechnique(options.technique), options.entities, options.seed, options.cellSize,
                   options.sizes);
    }();
    // 5. What the person can toggle and do.
    OverlayFlags overlays = options.overlays;
    OverlayRenderer overlayRenderer;
    Input input;
    UiRects uiRects;
    QueryTool queries;
    if (options.queryPoint) queries.pinPoint(*options.queryPoint);
    if (options.queryBox) {
        const ro::Aabb& b = *options.queryBox;
        queries.set(QueryTool::Shape::Box, {b.minX, b.minY}, {b.maxX, b.maxY});
    }
    if (options.queryRay) queries.set(QueryTool::Shape::Ray, options.queryRay->from, options.queryRay->to);
    if (options.paused) lab.togglePause();

    // With --frames the clock is virtual (one tick per frame), so headless runs are deterministic.
    const bool virtualClock = options.frames.has_value();
    int exitCode = 0;
    double msDraw = 0.0;
    FrameReport report;

    for (std::uint64_t frame = 1;; ++frame) {
        // SIGINT or SIGTERM between two steps: a clean exit with the shell's status.
        if (const int signal = stopSignal()) {
            exitCode = 128 + signal;
            break;
        }
        //----------------------------------------------------------------------------------------
        // Update
        //----------------------------------------------------------------------------------------
        screen.fitView(lab.world().config().bounds);
        input.poll();
        gui.beginFrame();
        input.apply(lab, overlays, queries, screen.view(), uiRects);  // after beginFrame: clicks on the UI are known
        const bool lastFrame =
            input.quitRequested() || (virtualClock && frame >= static_cast<std::uint64_t>(*options.frames));

        {
            // A step can take long (brute force near its limit): a stop signal ends it at once.
            const BusyScope busy;
            lab.update(ImGui::GetIO().DeltaTime, virtualClock);
            drawPanel(lab, overlays, uiRects);  // may respawn or switch technique: queries run after it
            queries.run(lab.world(), lab.technique());
        }
        report = makeReport(lab, queries, screen.rendererName(), msDraw, ImGui::GetIO().Framerate, frame);
        drawHud(report, uiRects);

        //----------------------------------------------------------------------------------------
        // Draw (timed apart from the simulation: the renderer's cost is not the broad phase's)
        //----------------------------------------------------------------------------------------
        const auto drawStart = std::chrono::steady_clock::now();
        screen.beginFrame();
        if (overlays.grid) overlayRenderer.drawStructure(screen.renderer(), screen.view(), lab.world().broadPhase(), overlays);
        screen.drawEntities(lab.world());
        if (overlays.bounds) overlayRenderer.drawBounds(screen.renderer(), screen.view(), lab.world());
        if (overlays.pairs) overlayRenderer.drawPairs(screen.renderer(), screen.view(), lab.world());
        overlayRenderer.drawQueries(screen.renderer(), screen.view(), lab.world(), queries);
        Gui::render();
        // SDL queues draw calls; flushing makes the timing include the rasterisation itself.
        SDL_RenderFlush(screen.renderer());
        msDraw = msSince(drawStart);
        report.msDraw = msDraw;

        // The back buffer is only readable before it is presented.
        if (lastFrame && !options.screenshot.empty() && !screen.saveScreenshot(options.screenshot)) {
            fmt::print(stderr, "ro_demo: could not write screenshot '{}'\n", options.screenshot);
            exitCode = 1;
        }
        screen.present();
        // With --frames the last frame's line is always printed, once.
        const auto reportEvery = static_cast<std::uint64_t>(options.reportEvery);
        const bool periodic = reportEvery > 0 && frame % reportEvery == 0;
        if (periodic || (lastFrame && virtualClock)) printReport(report);
        if (lastFrame) break;
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
    try {
        return run(parsed.options);
    } catch (const std::exception& e) {
        fmt::print(stderr, "ro_demo: {}\n", e.what());
        return 1;
    }
}
