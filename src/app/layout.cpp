#include "app/layout.h"

#include <algorithm>

namespace ro::app {

Layout computeLayout(float width, float height, const LayoutInputs& in) {
    Layout layout;
    width = std::max(width, 1.0f);
    height = std::max(height, 1.0f);
    if (in.uiHidden) {
        layout.world = {0.0f, 0.0f, width, height};
        return layout;
    }
    // Below 1280 the columns take a share of the width, so that some world is left.
    const float panelWidth = std::min(Layout::kPanelWidth, 0.4f * width);
    const float columnWidth =
        in.columnCollapsed ? std::min(Layout::kCollapsedWidth, 0.2f * width) : std::min(Layout::kColumnWidth, 0.28f * width);
    const float columnX = width - columnWidth;
    layout.panel = {0.0f, 0.0f, panelWidth, height};

    // The right column: the HUD as tall as its rows, the legend, Compare.
    if (in.columnCollapsed) {
        layout.hud = {columnX, 0.0f, columnWidth, std::min(in.titleHeight, height)};
    } else {
        // Compare at the bottom, its height a share of the window's: its top (and its Use
        // button) stays put while the HUD's rows and notices come and go; a HUD taller than
        // what is left scrolls. The legend takes what is between, and keeps some room where
        // the column has it: its colours are what the overlays mean.
        const float compareTop = in.compareOpen ? height - Layout::kCompareShare * height : height;
        const float legendRoom = compareTop - in.titleHeight >= 3.0f * Layout::kLegendRoom ? Layout::kLegendRoom : 0.0f;
        const float hud = std::clamp(in.hudHeight, in.titleHeight, std::max(compareTop - legendRoom, in.titleHeight));
        layout.hud = {columnX, 0.0f, columnWidth, hud};
        if (in.compareOpen) layout.compare = {columnX, compareTop, columnWidth, height - compareTop};
        if (compareTop - hud >= Layout::kMinLegend) layout.legend = {columnX, hud, columnWidth, compareTop - hud};
    }

    // The Plots strip spans the world's width, at the bottom.
    const float middle = std::max(columnX - panelWidth, 0.0f);
    float worldHeight = height;
    if (in.plotsOpen) {
        const float plots = std::clamp(in.plotsHeight, in.titleHeight, Layout::kMaxPlotsShare * height);
        layout.plots = {panelWidth, height - plots, middle, plots};
        worldHeight -= plots;
    }
    layout.world = {panelWidth, 0.0f, middle, std::max(worldHeight, 0.0f)};
    return layout;
}

}  // namespace ro::app
