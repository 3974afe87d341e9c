#pragma once
// Fixed-seed box scenes for the conformance suite, and the independent reference it checks against.

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ro/broadphase.h"

namespace ro::test {

/// Boxes owned as structure of arrays, viewable as a BoxView.
struct BoxSet {
    std::vector<float> minX, minY, maxX, maxY;
    std::vector<std::uint32_t> ids;

    void add(const Aabb& b);
    [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(ids.size()); }
    [[nodiscard]] BoxView view() const;
};

/// A square box of half-extent `half` centred on (x, y).
inline Aabb boxAt(float x, float y, float half) { return {x - half, y - half, x + half, y + half}; }

/// Boxes that can move, vanish (swap-removed, as the world does) and appear, with fresh ids
/// or ids of the test's choosing: a technique's input as the world would hand it over.
struct Population {
    BoxSet boxes;
    std::uint32_t nextId = 0;

    void add(const Aabb& b) { add(nextId++, b); }
    void add(std::uint32_t id, const Aabb& b) {
        boxes.add(b);
        boxes.ids.back() = id;
    }
    void removeAt(std::size_t i) {
        for (auto* v : {&boxes.minX, &boxes.minY, &boxes.maxX, &boxes.maxY}) {
            (*v)[i] = v->back();
            v->pop_back();
        }
        boxes.ids[i] = boxes.ids.back();
        boxes.ids.pop_back();
    }
    void set(std::size_t i, const Aabb& b) {
        boxes.minX[i] = b.minX;
        boxes.minY[i] = b.minY;
        boxes.maxX[i] = b.maxX;
        boxes.maxY[i] = b.maxY;
    }
    [[nodiscard]] std::uint32_t size() const { return boxes.size(); }
};

/// A named scene with the grid bounds and cell sizes it is checked with.
struct Scene {
    std::string name;
    BoxSet boxes;
    Aabb gridBounds;
    std::vector<float> cellSizes;
};

/// The id of every registered technique, for parameterized tests.
[[nodiscard]] std::vector<std::string_view> allTechniqueIds();

/// The fixed scenes of the conformance suite.
[[nodiscard]] std::vector<Scene> conformanceScenes();

/// `count` boxes of half-extent `half`, centred on a lattice `spacing` apart, 50 to a row from
/// the origin: apart when 2 * half < spacing, overlapping their neighbours when larger.
[[nodiscard]] BoxSet spreadBoxes(std::uint32_t count, float spacing, float half);

/// Overlapping pairs by a plain double loop over closed intervals: the reference of the reference.
[[nodiscard]] std::set<Pair> referenceOverlaps(const BoxView& boxes);

/// Runs one technique step and returns its overlap pairs as a set; fails the current test if
/// a candidate is malformed (a >= b, out of range) or reported twice.
[[nodiscard]] std::set<Pair> techniqueOverlaps(BroadPhase& technique, const BoxView& boxes);

}  // namespace ro::test
