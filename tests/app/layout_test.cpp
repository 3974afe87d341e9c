// The window's layout: the world's rectangle and the windows' never overlap, whatever the
// window's size and whatever is open, and the world keeps the room the windows leave.

#include <gtest/gtest.h>

#include <array>

#include "app/layout.h"

namespace {

using ro::app::computeLayout;
using ro::app::Layout;
using ro::app::LayoutInputs;
using ro::app::Rect;

std::array<const Rect*, 6> all(const Layout& l) { return {&l.world, &l.panel, &l.hud, &l.compare, &l.legend, &l.plots}; }

void expectApartAndInside(const Layout& l, float width, float height) {
    const auto rects = all(l);
    for (std::size_t i = 0; i < rects.size(); ++i) {
        const Rect& r = *rects[i];
        if (r.empty()) continue;
        EXPECT_GE(r.x, 0.0f);
        EXPECT_GE(r.y, 0.0f);
        EXPECT_LE(r.right(), width + 0.01f);
        EXPECT_LE(r.bottom(), height + 0.01f);
        for (std::size_t j = i + 1; j < rects.size(); ++j) EXPECT_FALSE(r.overlaps(*rects[j])) << i << " and " << j;
    }
}

TEST(Layout, AtTheTestsSizeThePanelLeftTheHudAndLegendRightTheWorldBetween) {
    LayoutInputs in;
    in.hudHeight = 400.0f;
    const Layout l = computeLayout(1280.0f, 800.0f, in);
    EXPECT_EQ(l.panel.x, 0.0f);
    EXPECT_EQ(l.panel.h, 800.0f);
    EXPECT_EQ(l.world.x, l.panel.right());
    EXPECT_EQ(l.world.right(), l.hud.x);
    EXPECT_EQ(l.world.h, 800.0f);
    EXPECT_EQ(l.hud.right(), 1280.0f);
    EXPECT_EQ(l.hud.h, 400.0f);
    EXPECT_EQ(l.legend.y, 400.0f);
    EXPECT_EQ(l.legend.bottom(), 800.0f);
    EXPECT_TRUE(l.compare.empty());
    EXPECT_TRUE(l.plots.empty());
    expectApartAndInside(l, 1280.0f, 800.0f);
}

TEST(Layout, PlotsTakeTheBottomOfTheWorldsColumnAndAtMostTheirShare) {
    LayoutInputs in;
    in.plotsOpen = true;
    in.plotsHeight = 2000.0f;
    const Layout l = computeLayout(1280.0f, 800.0f, in);
    EXPECT_EQ(l.plots.x, l.world.x);
    EXPECT_EQ(l.plots.w, l.world.w);
    EXPECT_EQ(l.plots.y, l.world.bottom());
    EXPECT_EQ(l.plots.bottom(), 800.0f);
    EXPECT_FLOAT_EQ(l.plots.h, Layout::kMaxPlotsShare * 800.0f);
    expectApartAndInside(l, 1280.0f, 800.0f);
}

TEST(Layout, CompareSitsAtTheBottomWhereTheHudsRowsDoNotMoveIt) {
    LayoutInputs in;
    in.compareOpen = true;
    in.hudHeight = 350.0f;
    const Layout l = computeLayout(1280.0f, 800.0f, in);
    EXPECT_EQ(l.compare.bottom(), 800.0f);
    EXPECT_FLOAT_EQ(l.compare.h, Layout::kCompareShare * 800.0f);
    EXPECT_EQ(l.legend.y, l.hud.bottom());
    EXPECT_EQ(l.legend.bottom(), l.compare.y);
    in.hudHeight = 380.0f;
    EXPECT_EQ(computeLayout(1280.0f, 800.0f, in).compare.y, l.compare.y);
    expectApartAndInside(l, 1280.0f, 800.0f);
    // A HUD too tall for all three (a slowed world's notices): Compare stays where it was,
    // the legend keeps its room above it, and the HUD ends there (and scrolls).
    in.hudHeight = 700.0f;
    const Layout tall = computeLayout(1280.0f, 800.0f, in);
    EXPECT_EQ(tall.compare.y, l.compare.y);
    EXPECT_EQ(tall.legend.bottom(), l.compare.y);
    EXPECT_FLOAT_EQ(tall.legend.h, Layout::kLegendRoom);
    EXPECT_EQ(tall.hud.bottom(), tall.legend.y);
    expectApartAndInside(tall, 1280.0f, 800.0f);
    // A window too short to keep that room: the HUD ends at Compare, and the legend is not shown.
    const Layout shortWindow = computeLayout(1280.0f, 500.0f, in);
    EXPECT_EQ(shortWindow.hud.bottom(), shortWindow.compare.y);
    EXPECT_TRUE(shortWindow.legend.empty());
    expectApartAndInside(shortWindow, 1280.0f, 500.0f);
}

TEST(Layout, AFoldedColumnGivesTheWorldItsWidth) {
    LayoutInputs in;
    in.hudHeight = 400.0f;
    const Layout open = computeLayout(1280.0f, 800.0f, in);
    in.columnCollapsed = true;
    in.compareOpen = true;
    const Layout folded = computeLayout(1280.0f, 800.0f, in);
    EXPECT_GT(folded.world.w, open.world.w);
    EXPECT_EQ(folded.hud.h, in.titleHeight);
    EXPECT_TRUE(folded.compare.empty());
    EXPECT_TRUE(folded.legend.empty());
    expectApartAndInside(folded, 1280.0f, 800.0f);
}

TEST(Layout, HiddenUiLeavesTheWholeWindowToTheWorld) {
    LayoutInputs in;
    in.uiHidden = true;
    in.plotsOpen = true;
    const Layout l = computeLayout(1024.0f, 600.0f, in);
    EXPECT_EQ(l.world.w, 1024.0f);
    EXPECT_EQ(l.world.h, 600.0f);
    EXPECT_TRUE(l.panel.empty());
    EXPECT_TRUE(l.plots.empty());
}

TEST(Layout, EverySizeAndStateKeepsTheWindowsApartAndTheWorldSomeRoom) {
    for (const float width : {320.0f, 640.0f, 800.0f, 1024.0f, 1280.0f, 1920.0f})
        for (const float height : {240.0f, 480.0f, 600.0f, 800.0f, 1080.0f})
            for (int state = 0; state < 16; ++state) {
                LayoutInputs in;
                in.columnCollapsed = (state & 1) != 0;
                in.compareOpen = (state & 2) != 0;
                in.plotsOpen = (state & 4) != 0;
                in.hudHeight = (state & 8) != 0 ? 2000.0f : 300.0f;
                in.plotsHeight = 500.0f;
                const Layout l = computeLayout(width, height, in);
                SCOPED_TRACE(testing::Message() << width << "x" << height << " state " << state);
                expectApartAndInside(l, width, height);
                EXPECT_GE(l.world.w, 0.3f * width);
                EXPECT_GE(l.world.h, 0.3f * height);
            }
}

}  // namespace
