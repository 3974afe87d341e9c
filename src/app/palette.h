#pragma once
/// The app's colours in one place: a dark theme where entities, cells and pair lines stay
/// distinguishable when drawn on top of each other.

#include <SDL.h>

namespace ro::app::palette {

inline constexpr SDL_Color kBackground{12, 13, 17, 255};
inline constexpr SDL_Color kWorldFloor{22, 25, 32, 255};
inline constexpr SDL_Color kBox{86, 182, 214, 255};
inline constexpr SDL_Color kBoxOverlap{40, 92, 112, 255};  ///< overlapping entities are drawn darker
inline constexpr SDL_Color kCircle{236, 162, 92, 255};
inline constexpr SDL_Color kCircleOverlap{122, 80, 44, 255};
inline constexpr SDL_Color kCell{120, 140, 255, 0};         ///< alpha grows with the cell's count
inline constexpr SDL_Color kCandidate{250, 222, 110, 170};  ///< candidate pair that does not overlap
/// A candidate whose boxes are further apart than their size: typically two cells sharing a
/// hash bucket. Opaque (blending every pixel of a long line is slow in software) and dimmer,
/// so that such lines do not cover the screen.
inline constexpr SDL_Color kLongCandidate{120, 108, 56, 255};
inline constexpr SDL_Color kOverlap{255, 64, 96, 255};     ///< candidate pair whose AABBs overlap
inline constexpr SDL_Color kBounds{140, 240, 150, 210};
/// Levels of a hierarchical structure (HSHG levels, tree depths), cycling; alpha set per use.
inline constexpr SDL_Color kLevels[] = {{120, 140, 255, 0}, {90, 220, 160, 0}, {240, 200, 90, 0}, {240, 120, 200, 0},
                                        {150, 110, 250, 0}, {100, 210, 240, 0}, {250, 150, 100, 0}, {200, 230, 120, 0}};
/// Collision layers 0-3 (the layers preset): entities take their layer's colour.
inline constexpr SDL_Color kLayers[] = {{86, 182, 214, 255}, {236, 162, 92, 255}, {140, 220, 120, 255}, {220, 120, 220, 255}};
inline constexpr SDL_Color kFatBox{220, 120, 255, 110};
inline constexpr SDL_Color kStripBackground{8, 9, 12, 220};
inline constexpr SDL_Color kStripDepth{120, 140, 255, 200};
inline constexpr SDL_Color kVoidMark{255, 255, 255, 255};  ///< a delimiter that touches void
inline constexpr SDL_Color kPointHit{255, 235, 80, 255};
inline constexpr SDL_Color kQueryShape{120, 255, 240, 230};
inline constexpr SDL_Color kQueryHit{255, 150, 60, 255};
inline constexpr SDL_Color kFirstHit{255, 255, 255, 255};
inline constexpr SDL_Color kMismatch{255, 60, 255, 255};  ///< a pair a compared technique got wrong

/// Sets the renderer's draw colour from a palette entry.
inline void setDrawColor(SDL_Renderer* renderer, SDL_Color c) { SDL_SetRenderDrawColor(renderer, c.r, c.g, c.b, c.a); }

}  // namespace ro::app::palette
