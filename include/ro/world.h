#pragma once
/// The Verlet world: entities (boxes and circles), a fixed-step clock, a broad phase of your
/// choice, overlap pairs and contacts every tick; random scenes for it (resizePopulation).
#include "ro/world/scene.h"
#include "ro/world/world.h"
