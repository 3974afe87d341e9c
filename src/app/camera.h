#pragma once
/// Where the window looks: what a scene file keeps of the view.

#include <optional>

#include "ro/aabb.h"

namespace ro::app {

struct Camera {
    /// The zoom a camera may have (--zoom's range; a scene file's outside it is refused).
    static constexpr float kMinZoom = 0.25f;
    static constexpr float kMaxZoom = 10000.0f;
    float zoom = 1.0f;             ///< over the scale that fits the whole world in the window
    std::optional<Vec2> centre;    ///< the world point at the window's centre; unset: the world's centre
};

}  // namespace ro::app
