#pragma once
/// A world made from one of ro_bench's scenes (the app's presets and the tests).

#include "ro/world.h"
#include "scenario/scenario.h"

namespace ro {

/// Replaces the world's entities by the scene's boxes as they are now, in the scene's order
/// (dense index i is box i, with the same corners bit for bit), and its walls by the scene's
/// (Scene::walls: onecell's square); the boxes the scene declares static are static entities.
/// The other world settings stay.
void loadScene(World& world, const Scene& scene);

}  // namespace ro
