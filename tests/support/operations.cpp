#include "support/operations.h"

#include <algorithm>
#include <array>
#include <exception>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include "broadphase/brute/brute.h"
#include "broadphase/coherent/coherent.h"
#include "broadphase/hash/hash.h"
#include "broadphase/hshg/hshg.h"
#include "broadphase/quadtree/quadtree.h"
#include "broadphase/tree/tree.h"
#include "ro/registry.h"
#include "ro/rng.h"

namespace ro::test {
namespace {

using Kind = Operation::Kind;

/// A move before which every box creeps a little (a quarter of them).
bool isCreep(const Operation& op) { return op.kind == Kind::Move && op.pick % 4 == 2; }

// ---- Generating ----------------------------------------------------------------------------

/// Choices from a seeded generator.
struct RngChoices {
    Rng rng;
    std::uint32_t below(std::uint32_t n) { return rng.below(n); }
};

/// Choices from fuzzer bytes: one byte each, zeros once the bytes run out.
struct ByteChoices {
    std::span<const std::uint8_t> bytes;
    std::size_t at = 0;
    std::uint32_t below(std::uint32_t n) { return at < bytes.size() ? bytes[at++] % n : 0; }
    [[nodiscard]] bool done() const { return at >= bytes.size(); }
};

/// The seeded generator never runs dry.
struct RngChoicesNeverDone : RngChoices {
    [[nodiscard]] static bool done() { return false; }
};

/// Where a sequence's lattice sits: x' = offset + x * scale, in float.
struct Frame {
    float scale = 1.0f;
    float offset = 0.0f;
    [[nodiscard]] float at(float x) const { return offset + x * scale; }
};

/// Draws operations for one sequence; knows the frame and the settings in use.
template <typename Choices>
struct Generator {
    Choices& c;
    Frame frame;
    Settings settings;

    float coordinate() { return frame.at(static_cast<float>(c.below(161)) * 0.5f - 8.0f); }  // -8 .. 72, scaled

    /// A point, sometimes exactly on a corner of the cells (the grid's, computed as it does).
    Vec2 point() {
        if (c.below(4) != 0) return {coordinate(), coordinate()};
        const Aabb& b = settings.bounds;
        const float cell = settings.real(kCellSizeParameter);
        const auto corners = static_cast<std::uint32_t>(64.0f * frame.scale / cell) + 1;
        const float i = static_cast<float>(c.below(std::min(corners, 4096u)));
        const float j = static_cast<float>(c.below(std::min(corners, 4096u)));
        return {b.minX + i * cell, b.minY + j * cell};
    }

    Aabb box() {
        const float x = coordinate();
        const float y = coordinate();
        auto side = [this] {
            const std::uint32_t k = c.below(20);
            if (k == 0) return 0.0f;     // a zero-size box: still overlaps what it touches
            if (k == 19) return 100.0f;  // larger than the grid
            return static_cast<float>(c.below(17)) * 0.5f;
        };
        return {x, y, x + side() * frame.scale, y + side() * frame.scale};
    }

    Settings randomSettings() {
        Settings s;
        s.bounds = {frame.at(0), frame.at(0), frame.at(64), frame.at(64)};
        // Values at the edges that broke techniques before, scaled with the frame where they are lengths.
        s.set(kCellSizeParameter.key, std::array{0.1, 0.7, 1.5, 3.0, 4.0, 16.0}[c.below(6)] * frame.scale);
        s.set(SpatialHash::kTableSizeParameter.key, std::array{0, 7, 101}[c.below(3)]);
        s.set(HierarchicalGrid::kFactorParameter.key, std::array{2.0, 3.0, 1.5}[c.below(3)]);
        s.set(DynamicTree::kMarginParameter.key, std::array{0.0, 1.0, 4.0}[c.below(3)] * frame.scale);
        s.set(Quadtree::kCapacityParameter.key, std::array{1, 2, 4, 8}[c.below(4)]);
        s.set(Quadtree::kDepthParameter.key, std::array{1, 3, 6}[c.below(3)]);
        // Set without a draw: these scenes are far below the parallel thresholds of the grid,
        // the HSHG and the tree (their own thread tests cover the threads), and a draw would
        // reshuffle every sequence.
        s.set(kThreadsParameter.key, kThreadsParameter.defaultValue);
        // The coherence layer off in a third of the sequences, read off a draw made above (a
        // draw of its own would reshuffle every sequence).
        s.set(kCoherentParameter.key, s.find(SpatialHash::kTableSizeParameter.key) == 7.0 ? 0.0 : 1.0);
        // Every other parameter (one added since): its default or an end of its offered range.
        for (const TechniqueInfo& t : techniques())
            for (const ParameterSpec& spec : t.parameters)
                if (!s.find(spec.key))
                    s.set(spec.key, spec.kind == ParameterKind::Choice
                                        ? static_cast<double>(c.below(static_cast<std::uint32_t>(spec.choices.size())))
                                        : std::array{spec.defaultValue, spec.offeredMin, spec.offeredMax}[c.below(3)]);
        return s;
    }

    Operation operation() {
        Operation op;
        op.pick = c.below(256);
        const std::uint32_t k = c.below(100);
        if (k < 30) op.kind = Kind::Insert;
        else if (k < 40) op.kind = Kind::Remove;
        else if (k < 64) op.kind = Kind::Move;
        else if (k < 68) op.kind = Kind::FindPairs;
        else if (k < 76) op.kind = Kind::QueryPoint;
        else if (k < 84) op.kind = Kind::QueryBox;
        else if (k < 92) op.kind = Kind::QueryRay;
        else if (k < 99) op.kind = Kind::RaycastFirst;
        else op.kind = Kind::Configure;
        op.box = box();
        if (op.kind == Kind::QueryPoint) {
            const Vec2 p = point();
            op.box = {p.x, p.y, p.x, p.y};
        }
        if (op.kind == Kind::QueryRay || op.kind == Kind::RaycastFirst) {
            const Vec2 from = point();
            Vec2 to = point();  // a segment may run in any direction, or be a point
            if (c.below(4) == 0) to.y = from.y;  // often along a row
            op.box = {from.x, from.y, to.x, to.y};
        }
        if (op.kind == Kind::Configure) op.settings = settings = randomSettings();
        return op;
    }
};

/// A frame: unscaled at the origin, scaled by a non-power of two, or far from the origin.
template <typename Choices>
Frame randomFrame(Choices& c) {
    return std::array{Frame{1.0f, 0.0f}, Frame{0.37f, 0.0f}, Frame{3.1f, 1.0e5f}, Frame{1.0f, -3.0e6f}}[c.below(4)];
}

template <typename Choices>
Sequence generate(Choices& c, std::string_view technique, std::size_t length, bool untilDone) {
    Generator<Choices> g{c, randomFrame(c), {}};
    g.settings = g.randomSettings();
    Sequence sequence{technique, g.settings, {}};
    while (sequence.operations.size() < length && (!untilDone || !c.done())) sequence.operations.push_back(g.operation());
    sequence.withRules = c.below(2) == 0;  // drawn last: the operations are those of the same seed before rules
    return sequence;
}

// ---- Running -------------------------------------------------------------------------------

/// The boxes of a sequence, held as the World holds them: stable ids, swap-remove.
struct Population {
    std::vector<float> minX, minY, maxX, maxY;
    std::vector<std::uint32_t> ids;
    std::vector<std::uint8_t> isStatic;
    std::vector<std::uint32_t> category, mask;
    std::uint32_t nextId = 0;
    bool withRules = false;

    [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(ids.size()); }
    void insert(const Aabb& b) {
        minX.push_back(b.minX), minY.push_back(b.minY), maxX.push_back(b.maxX), maxY.push_back(b.maxY);
        // The rule of an entity, from its id: a quarter static, one of four layers, a random mask.
        Rng rule(nextId * 0x9E3779B97F4A7C15ull + 7);
        isStatic.push_back(rule.below(4) == 0 ? 1 : 0);
        category.push_back(1u << rule.below(4));
        mask.push_back(rule.below(16));
        ids.push_back(nextId++);
    }
    void remove(std::uint32_t i) {
        for (auto* v : {&minX, &minY, &maxX, &maxY}) {
            (*v)[i] = v->back();
            v->pop_back();
        }
        for (auto* v : {&ids, &category, &mask}) {
            (*v)[i] = v->back();
            v->pop_back();
        }
        isStatic[i] = isStatic.back();
        isStatic.pop_back();
    }
    void move(std::uint32_t i, const Aabb& b) { minX[i] = b.minX, minY[i] = b.minY, maxX[i] = b.maxX, maxY[i] = b.maxY; }
    /// Every box creeps by a 4096th of the way from box `from` to b's corner, one way, the
    /// other or not at all by its index: as bodies resting in a pile do, most stay inside a
    /// fat box. Box `from` is then moved to b, as a plain move.
    void creepAll(std::uint32_t from, const Aabb& b) {
        const float dx = (b.minX - minX[from]) / 4096.0f, dy = (b.minY - minY[from]) / 4096.0f;
        for (std::uint32_t i = 0; i < size(); ++i) {
            const auto way = static_cast<float>(static_cast<int>(i % 3) - 1);
            minX[i] += way * dx, maxX[i] += way * dx, minY[i] += way * dy, maxY[i] += way * dy;
        }
    }
    [[nodiscard]] BoxView view() const {
        BoxView v{minX.data(), minY.data(), maxX.data(), maxY.data(), ids.data(), size()};
        if (withRules) {
            v.isStatic = isStatic.data();
            v.category = category.data();
            v.mask = mask.data();
        }
        return v;
    }
};

std::string str(const std::vector<std::uint32_t>& v) {
    std::ostringstream s;
    s << "{";
    for (std::size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
    return s.str() + "}";
}

std::string str(const std::vector<RayHit>& v) {
    std::ostringstream s;
    s << "{";
    for (std::size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i].index << "@" << v[i].t;
    return s.str() + "}";
}

std::string str(const std::optional<RayHit>& h) { return h ? str(std::vector<RayHit>{*h}) : "none"; }

/// Sorted, or a message if an index repeats.
std::string sortUnique(std::vector<std::uint32_t>& v) {
    std::sort(v.begin(), v.end());
    if (std::adjacent_find(v.begin(), v.end()) != v.end()) return "reported an entity twice: " + str(v);
    return {};
}

/// The technique's exact overlap pairs, or a message about malformed candidates.
std::string overlapPairs(BroadPhase& technique, const BoxView& boxes, std::vector<Pair>& scratch, std::set<Pair>& out) {
    technique.findPairs(scratch);
    out.clear();
    std::set<Pair> seen;
    for (const Pair& p : scratch) {
        if (p.a >= p.b || p.b >= boxes.count)
            return "malformed pair (" + std::to_string(p.a) + ", " + std::to_string(p.b) + ")";
        if (!seen.insert(p).second) return "pair (" + std::to_string(p.a) + ", " + std::to_string(p.b) + ") twice";
        if (!overlaps(boxes.box(p.a), boxes.box(p.b))) continue;
        if (PairRule rule(boxes); rule.active() && !rule.accepts(p))
            return "pair (" + std::to_string(p.a) + ", " + std::to_string(p.b) + ") that the rule refuses";
        out.insert(p);
    }
    return {};
}

std::string comparePairs(BroadPhase& technique, BruteForce& reference, const BoxView& boxes) {
    std::vector<Pair> scratch;
    std::set<Pair> got, expected;
    if (std::string e = overlapPairs(technique, boxes, scratch, got); !e.empty()) return e;
    (void)overlapPairs(reference, boxes, scratch, expected);
    for (const Pair& p : expected)
        if (!got.contains(p)) return "missed pair (" + std::to_string(p.a) + ", " + std::to_string(p.b) + ")";
    return {};  // extra pairs cannot survive the exact filter, so the sets are equal
}

/// Runs the operation's query on both and compares.
std::string compareQuery(const Operation& op, BroadPhase& technique, BroadPhase& reference) {
    const Vec2 from{op.box.minX, op.box.minY};
    const Segment segment{from, {op.box.maxX, op.box.maxY}};
    switch (op.kind) {
        case Kind::QueryPoint:
        case Kind::QueryBox: {
            std::vector<std::uint32_t> got, expected;
            if (op.kind == Kind::QueryPoint) {
                (void)technique.queryPoint(from, got);
                (void)reference.queryPoint(from, expected);
            } else {
                (void)technique.queryBox(op.box, got);
                (void)reference.queryBox(op.box, expected);
            }
            if (std::string e = sortUnique(got); !e.empty()) return e;
            (void)sortUnique(expected);
            if (got != expected) return "query found " + str(got) + ", brute force " + str(expected);
            return {};
        }
        case Kind::QueryRay: {
            std::vector<RayHit> got, expected;
            (void)technique.queryRay(segment, got);
            (void)reference.queryRay(segment, expected);
            if (got != expected) return "ray found " + str(got) + ", brute force " + str(expected);
            return {};
        }
        case Kind::RaycastFirst: {
            std::optional<RayHit> got, expected;
            (void)technique.raycastFirst(segment, got);
            (void)reference.raycastFirst(segment, expected);
            if (got != expected) return "first hit " + str(got) + ", brute force " + str(expected);
            return {};
        }
        default:
            return {};
    }
}

std::string runChecked(const Sequence& sequence, const TechniqueFactory& create) {
    std::unique_ptr<BroadPhase> technique;
    if (create) {
        technique = create();
    } else {
        const TechniqueInfo* info = findTechnique(sequence.technique);
        if (info == nullptr) return "no technique " + std::string(sequence.technique);
        technique = info->create();
    }
    BruteForce reference;
    technique->configure(sequence.settings);
    reference.configure(sequence.settings);
    Population population;
    population.withRules = sequence.withRules;
    bool sameEntities = false;  // the technique's last update saw these entities, in this order
    std::vector<std::uint32_t> everyIndex;
    for (std::size_t k = 0; k < sequence.operations.size(); ++k) {
        const Operation& op = sequence.operations[k];
        const std::uint32_t n = population.size();
        if (op.kind == Kind::Insert) population.insert(op.box);
        if (op.kind == Kind::Remove && n > 0) population.remove(op.pick % n);
        // With rules, in a quarter of the moves every box creeps first (isCreep): coherent
        // motion, as a physics engine's frames. (Without, boxes stay on the lattice, where
        // edges touch often.)
        const bool creeps = sequence.withRules && isCreep(op) && n > 0;
        if (creeps) population.creepAll(op.pick % n, op.box);
        if (op.kind == Kind::Move && n > 0) population.move(op.pick % n, op.box);
        if (op.kind == Kind::Configure) technique->configure(op.settings);

        const BoxView view = population.view();
        const bool entitiesChanged = op.kind == Kind::Insert || (op.kind == Kind::Remove && n > 0);
        if (sequence.withRules && sameEntities && !entitiesChanged) {
            // Only the moved box changed: the moved list says so (empty when nothing moved).
            const std::uint32_t moved[] = {n > 0 ? op.pick % n : 0};
            if (creeps) {
                everyIndex.resize(n);
                std::iota(everyIndex.begin(), everyIndex.end(), 0u);
                technique->updateMoved(view, everyIndex);
            } else {
                technique->updateMoved(view, std::span(moved, op.kind == Kind::Move && n > 0 ? 1 : 0));
            }
        } else {
            technique->update(view);
        }
        sameEntities = true;
        reference.update(view);
        const std::string where = "after operation " + std::to_string(k) + " (" + describe(op) + "): ";
        if (std::string e = technique->validate(); !e.empty()) return where + "validate: " + e;
        // The query runs before findPairs and again after it: techniques may build lazily.
        if (std::string e = compareQuery(op, *technique, reference); !e.empty()) return where + e;
        // After a third of the moves the pairs are not asked for: two updates in a row must work.
        if (op.kind == Kind::Move && op.pick % 3 == 0) continue;
        if (std::string e = comparePairs(*technique, reference, view); !e.empty()) return where + e;
        if (std::string e = compareQuery(op, *technique, reference); !e.empty()) return where + "after findPairs: " + e;
        if (std::string e = technique->validate(); !e.empty()) return where + "validate after findPairs: " + e;
    }
    return {};
}

}  // namespace

std::string describe(const Operation& op) {
    std::ostringstream s;
    s.precision(9);
    const Aabb& b = op.box;
    switch (op.kind) {
        case Kind::Insert: s << "insert [" << b.minX << ", " << b.minY << ", " << b.maxX << ", " << b.maxY << "]"; break;
        case Kind::Remove: s << "remove #" << op.pick; break;
        case Kind::Move:
            s << (isCreep(op) ? "(with rules: creep all) move #" : "move #") << op.pick << " to [" << b.minX << ", " << b.minY << ", "
              << b.maxX << ", " << b.maxY << "]";
            break;
        case Kind::FindPairs: s << "find-pairs"; break;
        case Kind::QueryPoint: s << "query-point (" << b.minX << ", " << b.minY << ")"; break;
        case Kind::QueryBox: s << "query-box [" << b.minX << ", " << b.minY << ", " << b.maxX << ", " << b.maxY << "]"; break;
        case Kind::QueryRay: s << "query-ray (" << b.minX << ", " << b.minY << ") -> (" << b.maxX << ", " << b.maxY << ")"; break;
        case Kind::RaycastFirst: s << "raycast-first (" << b.minX << ", " << b.minY << ") -> (" << b.maxX << ", " << b.maxY << ")"; break;
        case Kind::Configure:
            s << "configure";
            for (const auto& [key, value] : op.settings.values()) s << " " << key << "=" << value;
            break;
    }
    return s.str();
}

std::string describe(const Sequence& sequence) {
    const Settings& s = sequence.settings;
    std::ostringstream out;
    out.precision(9);  // enough digits to replay every float
    out << sequence.technique << " with bounds [" << s.bounds.minX << ", " << s.bounds.minY << ", " << s.bounds.maxX
        << ", " << s.bounds.maxY << "]";
    for (const auto& [key, value] : s.values()) out << ", " << key << "=" << value;
    out << (sequence.withRules ? " (with statics, filters and moved lists)" : "") << ":\n";
    for (std::size_t k = 0; k < sequence.operations.size(); ++k)
        out << "  " << k << ": " << describe(sequence.operations[k]) << "\n";
    return out.str();
}

Sequence randomSequence(std::string_view technique, std::uint64_t seed, std::size_t length) {
    RngChoicesNeverDone choices{{Rng(seed)}};
    return generate(choices, technique, length, false);
}

Sequence sequenceFromBytes(std::span<const std::uint8_t> bytes) {
    ByteChoices choices{bytes};
    const auto all = techniques();
    const std::string_view technique = all[choices.below(static_cast<std::uint32_t>(all.size()))].id;
    Sequence sequence = generate(choices, technique, 200, true);
    sequence.withRules = !bytes.empty() && (bytes[0] & 0x80) != 0;  // the first byte's top bit (it ran dry by the end)
    return sequence;
}

std::string runSequence(const Sequence& sequence) { return runSequence(sequence, {}); }

std::string runSequence(const Sequence& sequence, const TechniqueFactory& create) {
    try {
        return runChecked(sequence, create);
    } catch (const std::exception& e) {
        return std::string("threw: ") + e.what();
    }
}

Sequence shrink(Sequence failing, const TechniqueFactory& create) {
    for (bool smaller = true; smaller;) {
        smaller = false;
        for (std::size_t k = failing.operations.size(); k-- > 0;) {
            Sequence candidate = failing;
            candidate.operations.erase(candidate.operations.begin() + static_cast<std::ptrdiff_t>(k));
            if (!runSequence(candidate, create).empty()) {
                failing = std::move(candidate);
                smaller = true;
            }
        }
    }
    return failing;
}

}  // namespace ro::test
