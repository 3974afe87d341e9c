#pragma once
/// ro's public interface to a broad phase: BroadPhase (update, findPairs, queries, counters),
/// its parameters and Settings (ro/broadphase/parameters.h), and the small value types it takes and gives (Aabb, BoxView,
/// Pair, QueryCost, RayHit). Pick a technique through <ro/registry.h>.
#include "ro/broadphase/broadphase.h"
