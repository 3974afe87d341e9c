#include "scenario/scenario.h"
#include "core/box_helpers.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>

namespace ro {
namespace {

constexpr float kSpeed = 0.05f;      // world units per frame
constexpr float kHalf = 0.5f;        // boxes of side about 1
constexpr float kHalfJitter = 0.1f;  // sides from 0.8 to 1.2
constexpr std::uint32_t kClusterSize = 500;
constexpr float kRingSpacing = 1.0f;  // adjacent counter-rotating rings just touch
constexpr float kOnRingSpacing = 2.0f;
constexpr float kDenseSpacing = 1.5f;

constexpr std::array kScenarios{
    ScenarioInfo{ScenarioKind::Uniform, "uniform", "boxes of side ~1 spread evenly, speed ~0.05", 10'000'000,
                 "side 0.8-1.2", "even, 6% of the area covered", kSpeed, 1.0f},
    ScenarioInfo{ScenarioKind::Clustered, "clustered", "clusters of 500 boxes, dense inside, empty between", 10'000'000,
                 "side 0.8-1.2", "clusters of 500, empty between", kSpeed, 1.0f},
    ScenarioInfo{ScenarioKind::Mixed, "mixed", "as uniform, but 10% of the boxes have side 10-40", 10'000'000,
                 "90% side 0.8-1.2, 10% side 10-40", "even", kSpeed, 1.0f},
    ScenarioInfo{ScenarioKind::Static, "static", "a static field; 1% of the boxes move, 10x faster", 10'000'000,
                 "side 0.8-1.2", "even, 6% of the area covered", 10.0f * kSpeed, 0.01f},
    ScenarioInfo{ScenarioKind::OneCell, "onecell", "every box jiggles in one 2 x 2 square: nearly every pair overlaps",
                 5'000, "side 0.8-1.2", "all in one 2 x 2 square", 0.1f * kSpeed, 1.0f},
    ScenarioInfo{ScenarioKind::Orbit, "orbit", "concentric rings turning in alternate directions", 10'000'000,
                 "side 1", "rings 1 apart, a box every 2 along", kSpeed, 1.0f},
    ScenarioInfo{ScenarioKind::Bullets, "bullets",
                 "uniform, and 1% of the boxes (up to 500) fly 20-100x faster: they cross boxes between frames",
                 10'000'000, "side 0.8-1.2", "even, 6% of the area covered", kSpeed, 1.0f},
    ScenarioInfo{ScenarioKind::Rain, "rain",
                 "drops falling across the world in ~100 frames; those that reach the bottom go, as many new ones "
                 "come at the top: ~1% of the bodies destroyed and created every frame",
                 10'000'000, "side 0.8-1.2", "even, 6% of the area covered", 0.0f, 1.0f},
    ScenarioInfo{ScenarioKind::Layers, "layers",
                 "uniform in collision layers (4 unless the app's Layers slider or ro_bench's --layers says "
                 "otherwise): layer 0 meets every layer, the others layer 0 and themselves",
                 10'000'000, "side 0.8-1.2", "even, 6% of the area covered", kSpeed, 1.0f},
    ScenarioInfo{ScenarioKind::Dense, "dense", "one box per 1.5 x 1.5 lattice cell, anywhere in it, speed ~0.05",
                 10'000'000, "side 0.8-1.2", "one per 1.5 x 1.5 cell", kSpeed, 1.0f},
};
}  // namespace

std::span<const ScenarioInfo> scenarios() { return kScenarios; }

const ScenarioInfo* findScenario(std::string_view name) {
    for (const ScenarioInfo& s : kScenarios)
        if (s.name == name) return &s;
    return nullptr;
}

std::string_view motionName(Motion motion) {
    switch (motion) {
        case Motion::Steady: return "steady";
        case Motion::Varied: return "varied";
        case Motion::Teleport: return "teleport";
        case Motion::Churn: return "churn";
        case Motion::Bullets: return "bullets";
    }
    return "steady";
}

std::optional<Motion> findMotion(std::string_view name) {
    for (const Motion m : {Motion::Steady, Motion::Varied, Motion::Teleport, Motion::Churn, Motion::Bullets})
        if (name == motionName(m)) return m;
    return std::nullopt;
}

bool motionApplies(Motion motion, ScenarioKind kind) {
    const bool keepsToItsPlaces = kind == ScenarioKind::Orbit || kind == ScenarioKind::OneCell || kind == ScenarioKind::Rain;
    return !(motion == Motion::Churn || motion == Motion::Bullets) || !keepsToItsPlaces;
}

namespace {

/// A number as a person writes it: 0.2, 10, 1e+06.
std::string number(double v) {
    char buffer[32];
    const int n = std::snprintf(buffer, sizeof buffer, "%g", v);
    return std::string(buffer, static_cast<std::size_t>(std::max(n, 0)));
}

}  // namespace

std::string MixedShape::text() const {
    return number(bigFraction) + ":" + number(bigMinSide) + ":" + number(bigMaxSide) + ":" + number(spacing);
}

MixedShape MixedShape::parse(std::string_view text) {
    const std::string form = "expects FRACTION:MIN:MAX:SPACING, four numbers, got '" + std::string(text) + "'";
    std::array<float, 4> v{};
    if (std::count(text.begin(), text.end(), ':') != 3) throw std::invalid_argument(form);
    std::string_view rest = text;
    for (float& value : v) {
        const std::size_t colon = rest.find(':');
        const std::string_view item = rest.substr(0, colon);
        const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (item.empty() || error != std::errc{} || end != item.data() + item.size() || !std::isfinite(value))
            throw std::invalid_argument(form);
        rest.remove_prefix(colon == std::string_view::npos ? rest.size() : colon + 1);
    }
    const MixedShape shape{v[0], v[1], v[2], v[3]};
    if (!(shape.bigFraction >= 0.0f && shape.bigFraction <= kMaxBigFraction))
        throw std::invalid_argument("the share of big boxes is 0 to " + number(kMaxBigFraction) + ", got " + number(v[0]));
    if (!(shape.bigMinSide >= 1.0f && shape.bigMinSide <= shape.bigMaxSide && shape.bigMaxSide <= kMaxSide))
        throw std::invalid_argument("the big boxes' sides are MIN:MAX with 1 <= MIN <= MAX <= " + number(kMaxSide) +
                                    ", got " + number(v[1]) + ":" + number(v[2]));
    if (!(shape.spacing >= kMinSpacing && shape.spacing <= kMaxSpacing))
        throw std::invalid_argument("the spacing is " + number(kMinSpacing) + " to " + number(kMaxSpacing) +
                                    " times the mean box side, got " + number(v[3]));
    return shape;
}

Scene::Scene(ScenarioKind kind, std::uint32_t count, Motion motion, std::uint64_t seed,
             const std::optional<MixedShape>& mixed)
    : m_kind(kind), m_motion(motion), m_count(count), m_rng(seed) {
    for (auto* v : {&m_x, &m_y, &m_half, &m_vx, &m_vy, &m_minX, &m_minY, &m_maxX, &m_maxY}) v->resize(count);
    m_ids.resize(count);
    for (std::uint32_t i = 0; i < count; ++i) m_ids[i] = i;
    m_nextId = count;

    float side = kind == ScenarioKind::Dense
                           ? kDenseSpacing * std::ceil(std::sqrt(static_cast<float>(count)))
                           : 4.0f * std::sqrt(static_cast<float>(std::max(count, 4u)));
    // Mixed sizes need room for their largest boxes (side 40) even when n is small.
    if (kind == ScenarioKind::Mixed) side = std::max(side, 100.0f);
    const bool shaped = kind == ScenarioKind::Mixed && mixed.has_value();
    if (shaped) {
        const float meanSide = (1.0f - mixed->bigFraction) + mixed->bigFraction * 0.5f * (mixed->bigMinSide + mixed->bigMaxSide);
        side = std::max(mixed->spacing * meanSide * std::sqrt(static_cast<float>(std::max(count, 4u))),
                        2.5f * mixed->bigMaxSide);
    }
    // A shaped mix's big boxes: evenly among the others, the given share of them.
    auto isBig = [&](std::uint32_t i) {
        if (!shaped) return i % 10 == 0;
        const double f = mixed->bigFraction;
        return std::floor((i + 1) * f) > std::floor(i * f);
    };
    m_bounds = {0.0f, 0.0f, side, side};
    const float centre = 0.5f * side;
    auto randomVelocity = [&](float speed) {
        const float angle = m_rng.range(0.0f, 2.0f * std::numbers::pi_v<float>);
        const float s = speed * m_rng.range(0.5f, 1.5f);
        return std::array{s * std::cos(angle), s * std::sin(angle)};
    };

    const std::uint32_t clusters = std::max(1u, count / kClusterSize);
    std::vector<std::array<float, 2>> clusterCentres(clusters);
    for (auto& c : clusterCentres) c = {m_rng.range(0.1f * side, 0.9f * side), m_rng.range(0.1f * side, 0.9f * side)};
    const std::uint32_t rowLength = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<float>(count))));
    float ringRadius = kRingSpacing;
    float ringAngle = 0.0f;

    for (std::uint32_t i = 0; i < count; ++i) {
        const float half = kHalf + m_rng.range(-kHalfJitter, kHalfJitter);
        auto [vx, vy] = randomVelocity(kSpeed);
        switch (kind) {
            case ScenarioKind::Uniform:
            case ScenarioKind::Bullets:
            case ScenarioKind::Rain:
            case ScenarioKind::Layers:
                place(i, m_rng.range(0, side), m_rng.range(0, side), half);
                break;
            case ScenarioKind::Clustered: {
                // A sum of two uniforms: dense in the middle of a cluster, thinning out.
                const auto& c = clusterCentres[m_rng.below(clusters)];
                const float spread = 0.6f * std::sqrt(static_cast<float>(kClusterSize));
                place(i, c[0] + spread * (m_rng.unit() + m_rng.unit() - 1.0f),
                      c[1] + spread * (m_rng.unit() + m_rng.unit() - 1.0f), half);
                break;
            }
            case ScenarioKind::Mixed: {
                const float bigLo = shaped ? 0.5f * mixed->bigMinSide : 5.0f;
                const float bigHi = shaped ? 0.5f * mixed->bigMaxSide : 20.0f;
                place(i, m_rng.range(0, side), m_rng.range(0, side), isBig(i) ? m_rng.range(bigLo, bigHi) : half);
                break;
            }
            case ScenarioKind::Static:
                place(i, m_rng.range(0, side), m_rng.range(0, side), half);
                vx *= 10.0f;  // setMovingFraction below stills all but 1%
                vy *= 10.0f;
                break;
            case ScenarioKind::OneCell:
                // Centres within 0.25 of the middle and sides >= 0.8: every pair overlaps.
                place(i, centre + m_rng.range(-0.25f, 0.25f), centre + m_rng.range(-0.25f, 0.25f), half);
                vx *= 0.1f;
                vy *= 0.1f;
                break;
            case ScenarioKind::Orbit: {
                // Boxes every kOnRingSpacing along rings kRingSpacing apart; vx holds the angle,
                // vy the angular speed (alternating direction ring by ring).
                const float step = kOnRingSpacing / ringRadius;
                if (ringAngle + step > 2.0f * std::numbers::pi_v<float>) {
                    ringRadius += kRingSpacing;
                    ringAngle = 0.0f;
                }
                const int ring = static_cast<int>(std::lround(ringRadius / kRingSpacing));
                vx = ringAngle;
                vy = (ring % 2 == 0 ? 1.0f : -1.0f) * kSpeed / ringRadius;
                place(i, centre + ringRadius * std::cos(ringAngle), centre + ringRadius * std::sin(ringAngle), kHalf);
                ringAngle += kOnRingSpacing / ringRadius;
                break;
            }
            case ScenarioKind::Dense: {
                // Anywhere in its lattice cell: the scene starts as mixed as its motion makes
                // it, so the pair count is steady from the first frame.
                const float jitter = 0.5f * kDenseSpacing;
                place(i, kDenseSpacing * (static_cast<float>(i % rowLength) + 0.5f) + m_rng.range(-jitter, jitter),
                      kDenseSpacing * (static_cast<float>(i / rowLength) + 0.5f) + m_rng.range(-jitter, jitter), half);
                break;
            }
        }
        m_vx[i] = vx;
        m_vy[i] = vy;
    }
    if (kind == ScenarioKind::Rain)
        for (std::uint32_t i = 0; i < count; ++i) {
            const auto [vx, vy] = dropVelocity();
            m_vx[i] = vx;
            m_vy[i] = vy;
        }
    if (motion == Motion::Bullets || kind == ScenarioKind::Bullets) {
        // Drawn from a generator of their own, so every other box is as in the steady scene.
        Rng bulletRng(seed ^ 0xB0111E75ull);
        const std::uint32_t bullets = std::clamp(count / 100, std::min(count, 1u), 500u);
        for (std::uint32_t k = 0; k < bullets; ++k) {
            const std::uint32_t i = static_cast<std::uint32_t>(static_cast<std::uint64_t>(k) * count / bullets);
            const float factor = bulletRng.range(20.0f, 100.0f);
            m_vx[i] *= factor;
            m_vy[i] *= factor;
        }
    }
    updateBoxes();
    if (kind == ScenarioKind::Layers) setLayers(4);
    if (kind == ScenarioKind::Static) {
        m_fastVx = m_vx;
        m_fastVy = m_vy;
        setMovingFraction(0.01f);
    }

    std::vector<float> sides(m_half.begin(), m_half.end());
    if (!sides.empty()) {
        m_largestSide = 2.0f * *std::max_element(sides.begin(), sides.end());
        std::nth_element(sides.begin(), sides.begin() + sides.size() / 2, sides.end());
        m_medianSide = 2.0f * sides[sides.size() / 2];
    }
}

void Scene::place(std::uint32_t i, float x, float y, float half) {
    m_x[i] = std::clamp(x, m_bounds.minX + half, m_bounds.maxX - half);
    m_y[i] = std::clamp(y, m_bounds.minY + half, m_bounds.maxY - half);
    m_half[i] = half;
}

void Scene::setMovingFraction(float fraction) {
    if (m_kind != ScenarioKind::Static) return;
    if (!(fraction >= 0.0f && fraction <= 1.0f))
        throw std::invalid_argument("the moving fraction is 0 to 1, got " + std::to_string(fraction));
    // The first ceil(fraction * count) boxes move: as anywhere as the rest (every box is placed
    // at random), and side by side in the arrays, as a world keeps its awake bodies (Box2D's
    // awake set) apart from its statics.
    const auto moves = [&](std::uint32_t i) {
        return static_cast<double>(i) < std::ceil(static_cast<double>(m_count) * fraction);
    };
    // Only under steady motion are the others declared static: varied, teleport and churn move them.
    const bool declare = m_motion == Motion::Steady;
    m_isStatic.assign(declare ? m_count : 0, 0);
    m_movers.clear();
    for (std::uint32_t i = 0; i < m_count; ++i) {
        const bool moving = moves(i);
        m_vx[i] = moving ? m_fastVx[i] : 0.0f;
        m_vy[i] = moving ? m_fastVy[i] : 0.0f;
        if (!declare) continue;
        m_isStatic[i] = moving ? 0 : 1;
        if (moving) m_movers.push_back(i);
    }
}

void Scene::setLayers(std::uint32_t k) {
    if (k > 32) throw std::invalid_argument("at most 32 layers (a 32-bit category), got " + std::to_string(k));
    m_layers = k;
    m_category.assign(k == 0 ? 0 : m_count, 0);
    m_mask.assign(k == 0 ? 0 : m_count, 0);
    for (std::uint32_t i = 0; i < m_category.size(); ++i) {
        const std::uint32_t layer = i % k;
        m_category[i] = 1u << layer;
        m_mask[i] = layer == 0 ? ~0u : (1u | (1u << layer));
    }
}

Aabb Scene::walls() const {
    if (m_kind != ScenarioKind::OneCell) return m_bounds;
    const float cx = 0.5f * (m_bounds.minX + m_bounds.maxX), cy = 0.5f * (m_bounds.minY + m_bounds.maxY);
    return {cx - 1.0f, cy - 1.0f, cx + 1.0f, cy + 1.0f};
}

void Scene::advance() {
    m_advanced = true;
    if (m_motion == Motion::Teleport) {
        // Every box anywhere in its walls (one-cell boxes stay in their square): no frame
        // resembles the last, so nothing a technique kept from it is still in order.
        const Aabb area = walls();
        for (std::uint32_t i = 0; i < m_count; ++i) {
            m_x[i] = m_rng.range(area.minX + m_half[i], area.maxX - m_half[i]);
            m_y[i] = m_rng.range(area.minY + m_half[i], area.maxY - m_half[i]);
        }
        updateBoxes();
        return;
    }
    if (m_motion == Motion::Varied) {
        // Incoherent motion: every frame a tenth of the boxes take a new random velocity.
        for (std::uint32_t k = 0; k < m_count / 10; ++k) {
            const std::uint32_t i = m_rng.below(m_count);
            if (m_kind == ScenarioKind::Orbit) {
                m_vy[i] = -m_vy[i];
            } else {
                const float angle = m_rng.range(0.0f, 2.0f * std::numbers::pi_v<float>);
                const float speed = m_rng.range(0.0f, 2.0f * kSpeed);
                m_vx[i] = speed * std::cos(angle);
                m_vy[i] = speed * std::sin(angle);
            }
        }
    }
    if (m_kind == ScenarioKind::Orbit) {
        const float cx = 0.5f * (m_bounds.minX + m_bounds.maxX);
        const float cy = 0.5f * (m_bounds.minY + m_bounds.maxY);
        for (std::uint32_t i = 0; i < m_count; ++i) {
            const float radius = std::hypot(m_x[i] - cx, m_y[i] - cy);
            m_vx[i] += m_vy[i];
            m_x[i] = cx + radius * std::cos(m_vx[i]);
            m_y[i] = cy + radius * std::sin(m_vx[i]);
        }
    } else {
        // One-cell boxes bounce inside their 2 x 2 square, the rest off the world's walls.
        const Aabb area = walls();
        auto reflect = [](float& p, float& v, float half, float lo, float hi) {
            p += v;
            if (p - half < lo) {
                p = lo + half;
                v = std::abs(v);
            } else if (p + half > hi) {
                p = hi - half;
                v = -std::abs(v);
            }
        };
        const auto move = [&](std::uint32_t i) {
            reflect(m_x[i], m_vx[i], m_half[i], area.minX, area.maxX);
            reflect(m_y[i], m_vy[i], m_half[i], area.minY, area.maxY);
        };
        // A world does not integrate its statics: a scene that declares them moves only the
        // others (and leaves every contestant the caches a real step would).
        if (declaresStatics()) {
            for (const std::uint32_t i : m_movers) {
                move(i);
                updateBox(i);
            }
            return;
        }
        for (std::uint32_t i = 0; i < m_count; ++i) move(i);
    }
    if (m_motion == Motion::Churn && motionApplies(m_motion, m_kind)) churn();
    if (m_kind == ScenarioKind::Rain) rain();
    updateBoxes();
}

void Scene::churn() {
    if (m_count == 0) return;
    const std::uint32_t last = m_count - 1;
    for (std::uint32_t k = 0; k < std::max(1u, m_count / 100); ++k) {
        // Destroyed: the last box moves into its slot.
        const std::uint32_t i = m_rng.below(m_count);
        for (auto* v : {&m_x, &m_y, &m_half, &m_vx, &m_vy}) (*v)[i] = (*v)[last];
        m_ids[i] = m_ids[last];
        // Created: a new id, anywhere, in the last slot (the count stays).
        const float half = kHalf + m_rng.range(-kHalfJitter, kHalfJitter);
        const float angle = m_rng.range(0.0f, 2.0f * std::numbers::pi_v<float>);
        const float speed = kSpeed * m_rng.range(0.5f, 1.5f);
        place(last, m_rng.range(m_bounds.minX, m_bounds.maxX), m_rng.range(m_bounds.minY, m_bounds.maxY), half);
        m_vx[last] = speed * std::cos(angle);
        m_vy[last] = speed * std::sin(angle);
        m_ids[last] = m_nextId++;
    }
}

std::array<float, 2> Scene::dropVelocity() {
    const float fall = 0.01f * (m_bounds.maxY - m_bounds.minY);
    return {fall * m_rng.range(-0.05f, 0.05f), fall * m_rng.range(0.8f, 1.2f)};
}

void Scene::rain() {
    // A drop the bottom wall turned back (moving up now) is gone; a new one falls from the top.
    for (std::uint32_t i = 0; i < m_count; ++i) {
        if (m_vy[i] >= 0.0f) continue;
        const float half = m_half[i];
        place(i, m_rng.range(m_bounds.minX, m_bounds.maxX), m_bounds.minY + half, half);
        const auto [vx, vy] = dropVelocity();
        m_vx[i] = vx;
        m_vy[i] = vy;
        m_ids[i] = m_nextId++;
    }
}

void Scene::updateBox(std::uint32_t i) {
    m_minX[i] = m_x[i] - m_half[i];
    m_maxX[i] = m_x[i] + m_half[i];
    m_minY[i] = m_y[i] - m_half[i];
    m_maxY[i] = m_y[i] + m_half[i];
}

void Scene::updateBoxes() {
    for (std::uint32_t i = 0; i < m_count; ++i) updateBox(i);
}

Vec2 Scene::velocity(std::uint32_t i) const {
    if (m_kind != ScenarioKind::Orbit) return {m_vx[i], m_vy[i]};
    // An orbit keeps its angle in vx and its angular speed in vy.
    const float radius = std::hypot(m_x[i] - 0.5f * (m_bounds.minX + m_bounds.maxX), m_y[i] - 0.5f * (m_bounds.minY + m_bounds.maxY));
    return {-m_vy[i] * radius * std::sin(m_vx[i]), m_vy[i] * radius * std::cos(m_vx[i])};
}

BoxView Scene::sweptBoxes() {
    return m_swept.sweep(boxes(), [&](std::uint32_t i) { return velocity(i); });
}

bool Scene::passBeforeNextFrame(std::uint32_t i, std::uint32_t j) const {
    const Vec2 vi = velocity(i);
    const Vec2 vj = velocity(j);
    const Aabb grown{m_x[i] - m_half[i] - m_half[j], m_y[i] - m_half[i] - m_half[j], m_x[i] + m_half[i] + m_half[j],
                     m_y[i] + m_half[i] + m_half[j]};
    const Segment path{{m_x[j], m_y[j]}, {m_x[j] + vj.x - vi.x, m_y[j] + vj.y - vi.y}};
    const auto touching = [&](Vec2 centre) { return containsBox(grown, Aabb{centre.x, centre.y, centre.x, centre.y}); };
    return !touching(path.from) && !touching(path.to) && segmentEntry(grown, path).has_value();
}

BoxView Scene::boxes() const {
    BoxView view{m_minX.data(), m_minY.data(), m_maxX.data(), m_maxY.data(), m_ids.data(), m_count};
    if (declaresStatics()) view.isStatic = m_isStatic.data();
    if (m_layers > 0) {
        view.category = m_category.data();
        view.mask = m_mask.data();
    }
    return view;
}

}  // namespace ro
