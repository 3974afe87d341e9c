#include "support/hostile.h"

#include <array>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <set>
#include <stdexcept>
#include <vector>

#include "broadphase/hshg/hshg.h"
#include "broadphase/quadtree/quadtree.h"
#include "ro/registry.h"
#include "broadphase/tree/tree.h"
#include "ro/world.h"

namespace ro::test {
namespace {

/// Values that sit on or past an edge somewhere, or none at all.
constexpr std::array kSpecial{0.0f,    -0.0f,  1e-30f, 1e-3f,  0.5f,   1.0f,   16.0f,  1e5f,
                              1e20f,   3e38f,  -3e38f, 1e7f,   -1e7f,  2e10f,  -2e10f, 1e6f,
                              std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()};

/// Reads choices from the bytes; zeros once they run out.
struct Reader {
    std::span<const std::uint8_t> bytes;
    std::size_t at = 0;
    std::uint8_t u8() { return at < bytes.size() ? bytes[at++] : 0; }
    std::uint32_t u32() {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v = v << 8 | u8();
        return v;
    }
    /// Half the time a special value, a quarter a small one, a quarter any 32 bits.
    float number() {
        const std::uint8_t pick = u8();
        if (pick < 128) return kSpecial[pick % kSpecial.size()];
        if (pick < 192) return static_cast<float>(static_cast<int>(u8()) - 128) * 0.5f;
        const std::uint32_t bits = u32();
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }
    /// Mostly a value in [lo, hi]; one time in eight, number().
    float mostly(float lo, float hi) {
        const std::uint8_t pick = u8();
        if (pick < 32) return number();
        return lo + (hi - lo) * static_cast<float>(u8()) / 255.0f;
    }
    [[nodiscard]] bool done() const { return at >= bytes.size(); }
};

std::set<Pair> bruteOverlaps(const BoxView& boxes) {
    std::set<Pair> pairs;
    for (std::uint32_t i = 0; i < boxes.count; ++i)
        for (std::uint32_t j = i + 1; j < boxes.count; ++j)
            if (overlaps(boxes.box(i), boxes.box(j))) pairs.insert({i, j});
    return pairs;
}

std::set<Pair> exactOf(const std::vector<Pair>& candidates, const BoxView& boxes) {
    std::set<Pair> out;
    for (const Pair& p : candidates)
        if (p.a < boxes.count && p.b < boxes.count && overlaps(boxes.box(p.a), boxes.box(p.b))) out.insert(p);
    return out;
}

const TechniqueInfo& pickTechnique(Reader& in) {
    const auto all = techniques();
    return all[in.u8() % all.size()];
}

}  // namespace

std::string runWorldProgram(std::span<const std::uint8_t> bytes) {
    Reader in{bytes};
    World world;
    world.setBroadPhase(pickTechnique(in).create());
    for (int op = 0; op < 200 && !in.done(); ++op) {
        const std::string where = "world op " + std::to_string(op) + ": ";
        const std::uint32_t sizeBefore = world.size();
        switch (in.u8() % 7) {
        case 0:
        case 1: {  // add
            if (world.size() >= 48) break;
            EntityDesc d;
            d.position = {in.mostly(0, 1600), in.mostly(0, 1000)};
            d.velocity = {in.mostly(-20, 20), in.mostly(-20, 20)};
            d.halfExtents = {in.mostly(0.001f, 60), in.mostly(0.001f, 60)};
            d.shape = in.u8() % 2 ? Shape::Circle : Shape::Box;
            try {
                world.add(d);
            } catch (const std::invalid_argument&) {
                if (world.size() != sizeBefore) return where + "a refused add changed the world";
            }
            break;
        }
        case 2:  // remove a live entity, or an id that may never have existed
            if (world.size() > 0 && in.u8() % 4 != 0) {
                if (!world.remove(world.ids()[in.u8() % world.size()])) return where + "a live id was not removed";
            } else {
                (void)world.remove(in.u32());
            }
            break;
        case 3: {  // ticks
            const int ticks = 1 + in.u8() % 4;
            for (int t = 0; t < ticks; ++t) {
                world.tick();
                for (std::uint32_t i = 0; i < world.size(); ++i)
                    if (!std::isfinite(world.posX()[i]) || !std::isfinite(world.posY()[i]))
                        return where + "a step made a non-finite position";
            }
            world.refreshPairs();
            const std::set<Pair> found(world.overlapPairs().begin(), world.overlapPairs().end());
            if (found != bruteOverlaps(world.boxes())) return where + "overlaps differ from brute force";
            if (const std::string broken = world.broadPhase().validate(); !broken.empty()) return where + broken;
            break;
        }
        case 4: {  // clock and physics settings
            WorldConfig config = world.config();
            config.tickHz = in.mostly(1, 240);
            config.speed = in.mostly(0, 4);
            config.subSteps = static_cast<int>(in.u8() % 6);
            config.gravity = in.u8() % 2;
            config.gravityAccel = in.mostly(-1000, 1000);
            config.response = static_cast<ContactResponse>(in.u8() % 3);
            const WorldConfig before = world.config();
            try {
                world.setConfig(config);
            } catch (const std::invalid_argument&) {
                const WorldConfig& now = world.config();
                if (now.tickHz != before.tickHz || now.speed != before.speed || now.subSteps != before.subSteps ||
                    now.gravityAccel != before.gravityAccel || now.response != before.response)
                    return where + "a refused config changed the world's";
            }
            break;
        }
        case 5:  // technique switch
            world.setBroadPhase(pickTechnique(in).create());
            break;
        case 6: {  // technique settings
            Settings s = world.broadPhaseSettings();
            // Any value, in range or not: a refused one must leave the world as it was.
            s.set(kCellSizeParameter.key, in.mostly(0.5f, 128));
            s.set(HierarchicalGrid::kFactorParameter.key, in.mostly(1.5f, 16));
            s.set(DynamicTree::kMarginParameter.key, in.mostly(0, 10));
            s.set(Quadtree::kCapacityParameter.key, in.u8());
            s.set(Quadtree::kDepthParameter.key, in.u8() % 24);
            try {
                world.setBroadPhaseSettings(s);
            } catch (const std::invalid_argument&) {
            }
            break;
        }
        }
    }
    return {};
}

std::string runRawFrames(std::span<const std::uint8_t> bytes) {
    Reader in{bytes};
    auto technique = pickTechnique(in).create();
    std::vector<float> minX, minY, maxX, maxY;
    std::vector<std::uint32_t> ids;
    std::vector<Pair> candidates;
    for (int frame = 0; frame < 8 && !in.done(); ++frame) {
        const std::string where = "frame " + std::to_string(frame) + ": ";
        // Edit the last frame: change some boxes, add or drop some, reuse or spoil ids.
        const int edits = 1 + in.u8() % 8;
        for (int e = 0; e < edits; ++e) {
            const std::uint8_t kind = in.u8() % 4;
            if (kind == 0 || ids.empty()) {
                if (ids.size() >= 40) continue;
                // Near the origin or far from it (2e10, where cells clamp), sizes to 64.
                const float offset = in.u8() < 64 ? in.number() : 0.0f;
                const float x = offset + in.mostly(-50, 150), y = in.mostly(-50, 150);
                const float w = in.mostly(0, 64), h = in.mostly(0, 64);
                minX.push_back(x), minY.push_back(y), maxX.push_back(x + w), maxY.push_back(y + h);
                ids.push_back(in.u8() < 128 ? static_cast<std::uint32_t>(ids.size()) : in.u32());
            } else if (kind == 1) {
                const std::size_t i = in.u8() % ids.size();
                minX[i] = minX.back(), minY[i] = minY.back(), maxX[i] = maxX.back(), maxY[i] = maxY.back();
                ids[i] = ids.back();
                minX.pop_back(), minY.pop_back(), maxX.pop_back(), maxY.pop_back(), ids.pop_back();
            } else if (kind == 2) {
                const std::size_t i = in.u8() % ids.size();
                const float dx = in.mostly(-8, 8), dy = in.mostly(-8, 8);
                minX[i] += dx, maxX[i] += dx, minY[i] += dy, maxY[i] += dy;
            } else {
                ids[in.u8() % ids.size()] = in.u8() < 128 ? ids[in.u8() % ids.size()] : in.u32();
            }
        }
        const BoxView view{minX.data(), minY.data(), maxX.data(), maxY.data(), ids.data(),
                           static_cast<std::uint32_t>(ids.size())};
        bool valid = std::set<std::uint32_t>(ids.begin(), ids.end()).size() == ids.size();
        for (std::uint32_t i = 0; i < view.count; ++i) {
            const Aabb b = view.box(i);
            valid = valid && b.isFinite() && b.minX <= b.maxX && b.minY <= b.maxY;
        }
        try {
            technique->update(view);
        } catch (const std::invalid_argument& e) {
            // (The last good step's arrays were edited since, so it cannot be asked about.)
            if (valid) return where + "a valid frame was refused: " + e.what();
            continue;
        } catch (const std::length_error&) {
            continue;  // too many cells or entities for the technique: refused, never silent
        }
        if (!valid) return where + "a bad frame was taken";
        technique->findPairs(candidates);
        const std::set<Pair> found = exactOf(candidates, view);
        if (found != bruteOverlaps(view)) return where + "pairs differ from brute force";
        if (const std::string broken = technique->validate(); !broken.empty()) return where + broken;
    }
    return {};
}

}  // namespace ro::test
