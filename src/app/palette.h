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
/// Opaque (blending every pixel of a long line is slow in software) and dimmer: long lines are
/// far-apart candidates, typically hash collisions, and would otherwise cover the screen.
inline constexpr SDL_Color kLongCandidate{120, 108, 56, 255};
inline constexpr SDL_Color kOverlap{255, 64, 96, 255};     ///< candidate pair whose AABBs overlap
inline constexpr SDL_Color kBounds{140, 240, 150, 120};

/// Sets the renderer's draw colour from a palette entry.
inline void setDrawColor(SDL_Renderer* renderer, SDL_Color c) { SDL_SetRenderDrawColor(renderer, c.r, c.g, c.b, c.a); }

}  // namespace ro::app::palette
