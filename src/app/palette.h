#pragma once
/// The app's colours in one place: a dark theme where entities, cells and pair lines stay
/// distinguishable when drawn on top of each other.

#include <SDL.h>

namespace ro::app::palette {

// Every colour the legend lists means one thing: an overlay's colour is never an entity's,
// and no two overlays share one.
inline constexpr SDL_Color kBackground{12, 13, 17, 255};
inline constexpr SDL_Color kWorldFloor{22, 25, 32, 255};
inline constexpr SDL_Color kBox{86, 182, 214, 255};
inline constexpr SDL_Color kBoxOverlap{40, 92, 112, 255};  ///< overlapping entities are drawn darker
inline constexpr SDL_Color kCircle{236, 162, 92, 255};
inline constexpr SDL_Color kCircleOverlap{122, 80, 44, 255};
/// A fast mover (moves a quarter of its size or more per tick: the bullets preset's bullets),
/// and the outline of its swept box when swept boxes are on.
inline constexpr SDL_Color kFastMover{190, 255, 60, 255};
inline constexpr SDL_Color kSweptBox{190, 255, 60, 150};
/// Where a missed pair passed through each other; alpha fades with the mark's age.
inline constexpr SDL_Color kMissMark{255, 60, 255, 255};
inline constexpr SDL_Color kCandidate{250, 222, 110, 170};  ///< candidate pair that does not overlap
/// A candidate whose boxes are further apart than their size: typically two cells sharing a
/// hash bucket. Opaque (blending every pixel of a long line is slow in software) and dimmer,
/// so that such lines do not cover the screen.
inline constexpr SDL_Color kLongCandidate{120, 108, 56, 255};
inline constexpr SDL_Color kOverlap{255, 64, 96, 255};     ///< candidate pair whose AABBs overlap
inline constexpr SDL_Color kBounds{165, 165, 180, 200};    ///< entity AABBs: grey, under every colour that means more
/// Levels of a hierarchical structure (HSHG levels, tree depths), cycling; alpha set per use.
/// Blues and violets only: the structure's colours are its own.
inline constexpr SDL_Color kLevels[] = {{120, 140, 255, 0}, {175, 110, 250, 0}, {70, 85, 200, 0}, {150, 195, 255, 0}};
/// Collision layers 0-3 (the layers preset colours its boxes by layer, not shape: layer 0 is
/// the box colour).
inline constexpr SDL_Color kLayers[] = {{86, 182, 214, 255}, {200, 180, 130, 255}, {220, 110, 150, 255}, {120, 160, 110, 255}};
inline constexpr SDL_Color kFatBox{60, 205, 150, 130};
inline constexpr SDL_Color kStripBackground{8, 9, 12, 220};
inline constexpr SDL_Color kStripDepth{120, 130, 170, 210};
inline constexpr SDL_Color kVoidMark{255, 190, 60, 255};  ///< a delimiter that touches void
/// The query tools: the box or ray drawn, and every entity a query returned (point, box, ray);
/// the ray's first hit outlined thicker, with its entry point.
inline constexpr SDL_Color kQuery{245, 245, 245, 235};
inline constexpr SDL_Color kMismatch{0, 255, 255, 255};  ///< a pair a compared technique got wrong
/// The density view (entities under a pixel): entities per pixel, averaged over a few pixels,
/// from one (dark) to kDensityTop or more (pale), in the box's hue.
inline constexpr SDL_Color kDensityLow{24, 70, 92, 255};
inline constexpr SDL_Color kDensityHigh{205, 245, 255, 255};  ///< tinted: white is the query tool's

/// `a` moved toward `b` by `t` in [0, 1] (a colour ramp's steps).
constexpr SDL_Color lerpColour(SDL_Color a, SDL_Color b, float t) {
    const auto mix = [t](Uint8 x, Uint8 y) {
        return static_cast<Uint8>(static_cast<float>(x) + (static_cast<float>(y) - static_cast<float>(x)) * t);
    };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b), mix(a.a, b.a)};
}

/// Sets the renderer's draw colour from a palette entry.
inline void setDrawColor(SDL_Renderer* renderer, SDL_Color c) { SDL_SetRenderDrawColor(renderer, c.r, c.g, c.b, c.a); }

}  // namespace ro::app::palette
