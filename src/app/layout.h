#pragma once
/// Where the app's windows go and the rectangle they leave to the world, computed in one place
/// from the window's size and what is open: the panel a column on the left, the HUD, Compare
/// and the legend a column on the right, the Plots a strip along the bottom between them. The
/// world is drawn, fitted and clicked only inside the rectangle that is left.
///
/// At 1280 x 800 the world's rectangle is 616 x 800 (the world, 1600 x 1000, fills its
/// width); the HUD's arrow folds the right column and gives the world 190 pixels more.

namespace ro::app {

/// A rectangle in window pixels.
struct Rect {
    float x = 0.0f, y = 0.0f, w = 0.0f, h = 0.0f;

    [[nodiscard]] bool empty() const { return w <= 0.0f || h <= 0.0f; }
    [[nodiscard]] float right() const { return x + w; }
    [[nodiscard]] float bottom() const { return y + h; }
    [[nodiscard]] bool contains(float px, float py) const { return px >= x && px < x + w && py >= y && py < y + h; }
    [[nodiscard]] bool overlaps(const Rect& o) const {
        return !empty() && !o.empty() && x < o.right() && o.x < right() && y < o.bottom() && o.y < bottom();
    }
};

/// Where the windows were last drawn, in window pixels, as ImGui placed them (empty: not
/// shown). ImGui 1.86 decides io.WantCaptureMouse from where the pointer is when a frame
/// starts, not where a button went down, so a press on the panel followed by a quick move
/// would otherwise reach the world.
struct UiRects {
    Rect panel, hud, compare, legend, plots;

    [[nodiscard]] bool contains(float x, float y) const {
        return panel.contains(x, y) || hud.contains(x, y) || compare.contains(x, y) || legend.contains(x, y) ||
               plots.contains(x, y);
    }
};

/// What the layout depends on besides the window's size.
struct LayoutInputs {
    bool uiHidden = false;         ///< H: no window, the world takes the whole window
    bool columnCollapsed = false;  ///< the right column folded to the HUD's title bar
    bool compareOpen = false;      ///< a technique is compared: the Compare window shows
    bool plotsOpen = false;
    float titleHeight = 19.0f;     ///< an ImGui title bar (a collapsed window)
    float hudHeight = 0.0f;        ///< what the HUD's rows need, title bar and padding included
    float plotsHeight = 0.0f;      ///< what the Plots window's content asked for
};

struct Layout {
    /// Widths at a window of 1280 or more; narrower windows get a share of their width.
    static constexpr float kPanelWidth = 364.0f;  // its texts (330) and a scrollbar
    static constexpr float kColumnWidth = 300.0f;
    static constexpr float kCollapsedWidth = 110.0f;  ///< the column folded: the HUD's title bar
    /// Compare, when open, takes this share of the column's height, at its bottom.
    static constexpr float kCompareShare = 0.4f;
    /// Less room than this between the HUD and Compare, and the legend is not shown.
    static constexpr float kMinLegend = 40.0f;
    /// Where the column holds three times this above Compare (or the bottom), the legend keeps
    /// this much (its header and a few rows, scrolling) and a taller HUD scrolls instead.
    static constexpr float kLegendRoom = 120.0f;
    /// A window narrower than this opens with the right column folded: the world keeps room.
    static constexpr float kFoldBelow = 1100.0f;
    /// The Plots strip takes at most this share of the window's height.
    static constexpr float kMaxPlotsShare = 0.6f;

    Rect panel, hud, compare, legend, plots;
    Rect world;  ///< what the windows leave free: the world is fitted, drawn and clicked here
};

/// The layout of a window `width` x `height` pixels. Windows that are not shown get empty
/// rectangles. Windows never overlap each other or the world.
[[nodiscard]] Layout computeLayout(float width, float height, const LayoutInputs& in);

}  // namespace ro::app
