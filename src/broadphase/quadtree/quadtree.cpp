#include "broadphase/quadtree/quadtree.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/box_helpers.h"
#include "core/buffers.h"

namespace ro {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr Aabb kEmpty{kInf, kInf, -kInf, -kInf};  // overlaps nothing; the identity of unite

}  // namespace

void Quadtree::applySettings(const Settings& settings) {
    m_bounds = settings.bounds;
    m_capacity = settings.integer(kCapacityParameter);
    m_maxDepth = settings.integer(kDepthParameter);
    const double cells = static_cast<double>(1u << m_maxDepth);
    m_scaleX = static_cast<float>(cells / m_bounds.width());
    m_scaleY = static_cast<float>(cells / m_bounds.height());
}

Quadtree::CellBox Quadtree::cellsOf(const Aabb& box) const {
    const std::uint32_t last = (1u << m_maxDepth) - 1;
    return {clampedCell(box.minX, m_bounds.minX, m_scaleX, last), clampedCell(box.minY, m_bounds.minY, m_scaleY, last),
            clampedCell(box.maxX, m_bounds.minX, m_scaleX, last), clampedCell(box.maxY, m_bounds.minY, m_scaleY, last)};
}

std::uint32_t Quadtree::homeLevel(const CellBox& c) const {
    // The levels whose node holds both corners are those above the highest differing bit.
    // (min > max boxes compare like any other corners: the rule only needs one node.)
    const std::uint32_t differing = (c.x0 ^ c.x1) | (c.y0 ^ c.y1);
    return m_maxDepth - static_cast<std::uint32_t>(std::bit_width(differing));
}

Aabb Quadtree::regionOf(const Node& node) const {
    const std::uint32_t shift = m_maxDepth - node.level;
    const auto edge = [&](std::uint32_t cell, float origin, float scale) {
        return static_cast<float>(origin + static_cast<double>(std::uint64_t{cell} << shift) / scale);
    };
    return {edge(node.cellX, m_bounds.minX, m_scaleX), edge(node.cellY, m_bounds.minY, m_scaleY),
            edge(node.cellX + 1, m_bounds.minX, m_scaleX), edge(node.cellY + 1, m_bounds.minY, m_scaleY)};
}

std::uint32_t Quadtree::deepestLevel() const {
    std::uint32_t deepest = 0;
    for (const Node& node : m_nodes) deepest = std::max(deepest, node.level);
    return deepest;
}

void Quadtree::doUpdate(const BoxView& boxes) {
    m_counters = {};
    m_nodesVisited = 0;
    const std::uint32_t n = boxes.count;
    for (auto& buffer : m_items) resizeWithHeadroom(buffer, n);
    resizeWithHeadroom(m_groups, n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const CellBox cells = cellsOf(boxes.box(i));
        // Across its home's vertical line when x differs at the home's bit, which the xor of
        // y then cannot exceed unless y differs there too (across both: either run will do).
        const auto acrossX = static_cast<std::uint16_t>((cells.x0 ^ cells.x1) >= (cells.y0 ^ cells.y1));
        m_items[0][i] = {i, cells.x0, cells.y0, static_cast<std::uint16_t>(homeLevel(cells)), acrossX};
    }
    m_nodes.clear();
    m_nodes.push_back({kNone, 0, 0, 0, 0, 0, 0, 0, 0});
    build(0, 0, n, 0);
    m_nodesVisited += m_nodes.size();

    // Boxes into tree order, so the pair scans read them in sequence.
    resizeWithHeadroom(m_boxes, n);
    resizeWithHeadroom(m_entities, n);
    for (const Node& node : m_nodes) {
        const Item* items = m_items[node.buffer].data();
        for (std::uint32_t p = node.begin; p < node.ownEnd; ++p) {
            m_entities[p] = items[p].entity;
            m_boxes[p] = boxes.box(items[p].entity);
        }
    }
    // Children come after their parent in the pool, so one backward pass fills the bounds.
    resizeWithHeadroom(m_nodeBounds, m_nodes.size());
    resizeWithHeadroom(m_runBounds, m_nodes.size());
    for (std::size_t k = m_nodes.size(); k-- > 0;) {
        const Node& node = m_nodes[k];
        Aabb bounds = kEmpty;
        for (std::uint32_t p = node.begin; p < node.ownSplit; ++p) bounds = unite(bounds, m_boxes[p]);
        if (node.firstChild != kNone) {  // a leaf's one run has the node's bounds
            Aabb along = kEmpty;
            for (std::uint32_t p = node.ownSplit; p < node.ownEnd; ++p) along = unite(along, m_boxes[p]);
            m_runBounds[k] = {bounds, along};
            bounds = unite(bounds, along);
            for (std::uint32_t c = 0; c < 4; ++c) bounds = unite(bounds, m_nodeBounds[node.firstChild + c]);
        }
        m_nodeBounds[k] = bounds;
    }
}

std::uint32_t Quadtree::newChildren(std::uint32_t index) {
    const Node parent = m_nodes[index];  // a copy: push_back may move the pool
    const auto first = static_cast<std::uint32_t>(m_nodes.size());
    for (std::uint32_t k = 0; k < 4; ++k)
        m_nodes.push_back({kNone, 0, 0, 0, 0, 2 * parent.cellX + (k & 1), 2 * parent.cellY + (k >> 1), parent.level + 1, 0});
    return first;
}

void Quadtree::build(std::uint32_t index, std::uint32_t begin, std::uint32_t end, std::uint32_t from) {
    m_nodes[index].begin = begin;
    m_nodes[index].end = end;
    m_nodes[index].buffer = from;
    const std::uint32_t level = m_nodes[index].level;
    if (end - begin <= m_capacity || level == m_maxDepth) {
        m_nodes[index].ownSplit = end;
        m_nodes[index].ownEnd = end;
        return;
    }
    // Stable six-way partition from one buffer into the other: the entities that cross this
    // node's split lines stay (those across the vertical one first), the rest go to the child
    // holding their min corner (their whole box, as their home is deeper). The children
    // partition back, so nothing is copied twice.
    const std::uint32_t shift = m_maxDepth - level - 1;
    const auto group = [&](const Item& item) {
        if (item.home == level) return item.acrossX != 0 ? 0u : 1u;
        return 2u + (((item.cellX >> shift) & 1u) | (((item.cellY >> shift) & 1u) << 1));
    };
    const Item* const source = m_items[from].data();
    Item* const target = m_items[from ^ 1].data();
    std::uint8_t* const groups = m_groups.data();
    std::array<std::uint32_t, 6> start{};  // counts first, then each group's first position
    for (std::uint32_t p = begin; p < end; ++p) ++start[groups[p] = static_cast<std::uint8_t>(group(source[p]))];
    std::uint32_t position = begin;
    for (std::uint32_t& s : start) position += std::exchange(s, position);
    std::array<std::uint32_t, 6> cursor = start;
    for (std::uint32_t p = begin; p < end; ++p) target[cursor[groups[p]]++] = source[p];
    m_nodes[index].buffer = from ^ 1;  // where its own entities now are

    const std::uint32_t firstChild = newChildren(index);
    m_nodes[index].firstChild = firstChild;
    m_nodes[index].ownSplit = start[1];
    m_nodes[index].ownEnd = start[2];
    for (std::uint32_t k = 0; k < 4; ++k) build(firstChild + k, start[k + 2], k < 3 ? start[k + 3] : end, from ^ 1);
}

template <typename OnEntity>
std::uint64_t Quadtree::descend(std::uint32_t from, const Aabb& box, OnEntity onEntity) {
    std::uint64_t visited = 0;
    std::size_t top = 0;
    m_stack[top++] = from;
    while (top > 0) {
        const std::uint32_t index = m_stack[--top];
        ++visited;
        if (!touches(m_nodeBounds[index], box)) continue;
        const Node& node = m_nodes[index];
        if (node.firstChild == kNone) {  // a leaf's one run has the node's bounds
            for (std::uint32_t p = node.begin; p < node.ownEnd; ++p) onEntity(p);
            continue;
        }
        if (touches(m_runBounds[index][0], box))
            for (std::uint32_t p = node.begin; p < node.ownSplit; ++p) onEntity(p);
        if (touches(m_runBounds[index][1], box))
            for (std::uint32_t p = node.ownSplit; p < node.ownEnd; ++p) onEntity(p);
        for (std::uint32_t c = 0; c < 4; ++c) m_stack[top++] = node.firstChild + c;
    }
    return visited;
}

void Quadtree::findPairs(std::vector<Pair>& out) {
    out.clear();
    std::uint64_t tests = 0;
    // A depth-first walk holds at most three pending siblings per level, plus the root.
    resizeWithHeadroom(m_stack, 3 * std::size_t{m_maxDepth} + 2);
    const Aabb* const boxes = m_boxes.data();
    const std::uint32_t* const entities = m_entities.data();
    const PairRule& rule = pairRule();
    const bool ruled = rule.active();
    for (const Node& node : m_nodes) {
        // Entities of one node, each pair once (each run keeps index order, the two runs do not).
        for (std::uint32_t p = node.begin; p < node.ownEnd; ++p) {
            const Aabb box = boxes[p];
            for (std::uint32_t q = p + 1; q < node.ownEnd; ++q)
                if (touches(box, boxes[q]) && (!ruled || rule.accepts(entities[p], entities[q])))
                    out.push_back(makePair(entities[p], entities[q]));
        }
        const std::uint64_t own = node.ownEnd - node.begin;
        tests += own > 1 ? own * (own - 1) / 2 : 0;
        if (node.firstChild == kNone) continue;
        // An entity that stayed here meets the ones below it; no one else can overlap it.
        for (std::uint32_t p = node.begin; p < node.ownEnd; ++p) {
            const Aabb box = boxes[p];
            for (std::uint32_t c = 0; c < 4; ++c) {
                m_nodesVisited += descend(node.firstChild + c, box, [&](std::uint32_t q) {
                    ++tests;
                    if (touches(box, boxes[q]) && (!ruled || rule.accepts(entities[p], entities[q])))
                        out.push_back(makePair(entities[p], entities[q]));
                });
            }
        }
    }
    m_counters.candidatePairs = out.size();
    m_counters.pairTests = tests;
    m_counters.elementsVisited = m_nodesVisited;
    m_counters.bytesHeld = bytesHeld(m_nodes) + bytesHeld(m_nodeBounds) + bytesHeld(m_runBounds) + bytesHeld(m_items[0]) +
                           bytesHeld(m_items[1]) +
                           bytesHeld(m_groups) +
                           bytesHeld(m_boxes) + bytesHeld(m_entities) + bytesHeld(m_stack);
}

void Quadtree::forEachElement(const std::function<void(const StructureElement&)>& visit) const {
    for (const Node& node : m_nodes) {
        StructureElement view;
        view.bounds = regionOf(node);
        view.level = node.level;
        view.count = node.ownEnd - node.begin;
        view.kind = node.firstChild == kNone ? StructureElement::Kind::Cell : StructureElement::Kind::Node;
        visit(view);
    }
}

std::string Quadtree::validate() const {
    const auto at = [](const char* what, std::size_t index) { return std::string(what) + " " + std::to_string(index); };
    if (m_nodes.empty()) return {};
    const auto n = static_cast<std::uint32_t>(m_entities.size());
    const Node& root = m_nodes[0];
    if (root.level != 0 || root.cellX != 0 || root.cellY != 0 || root.begin != 0 || root.end != n)
        return "root does not cover every entity";
    std::vector<std::uint8_t> reached(m_nodes.size(), 0);
    std::vector<std::uint32_t> stack{0};
    std::size_t count = 0;
    while (!stack.empty()) {
        const std::uint32_t index = stack.back();
        stack.pop_back();
        if (reached[index]) return at("node reached twice:", index);
        reached[index] = 1;
        ++count;
        const Node& node = m_nodes[index];
        if (node.level > m_maxDepth) return at("node below the depth limit:", index);
        if (!(node.begin <= node.ownSplit && node.ownSplit <= node.ownEnd && node.ownEnd <= node.end && node.end <= n))
            return at("bad ranges at node", index);
        const std::uint32_t entities = node.end - node.begin;
        if (node.firstChild == kNone) {
            if (node.ownEnd != node.end || node.ownSplit != node.end) return at("leaf does not own its range in one run:", index);
            if (entities > m_capacity && node.level < m_maxDepth)
                return at("leaf over capacity above the depth limit:", index);
        } else {
            if (entities <= m_capacity) return at("node split without exceeding the capacity:", index);
            if (node.firstChild + 3 >= m_nodes.size() || node.firstChild <= index) return at("bad children of node", index);
            // The four children tile the parent: the quadrants of its cells, and of its region.
            const Aabb region = regionOf(node);
            std::uint32_t next = node.ownEnd;
            for (std::uint32_t k = 0; k < 4; ++k) {
                const Node& child = m_nodes[node.firstChild + k];
                if (child.level != node.level + 1 || child.cellX != 2 * node.cellX + (k & 1) ||
                    child.cellY != 2 * node.cellY + (k >> 1))
                    return at("child is not its quadrant, under node", index);
                const Aabb c = regionOf(child);
                const float midX = (k & 1) ? c.minX : c.maxX;
                const float midY = (k >> 1) ? c.minY : c.maxY;
                const bool tiles = ((k & 1) ? c.maxX == region.maxX : c.minX == region.minX) &&
                                   ((k >> 1) ? c.maxY == region.maxY : c.minY == region.minY) &&
                                   midX > region.minX && midX < region.maxX && midY > region.minY && midY < region.maxY;
                if (!tiles) return at("children's regions do not tile node", index);
                if (child.begin != next) return at("children's ranges do not follow on under node", index);
                next = child.end;
                stack.push_back(node.firstChild + k);
            }
            if (next != node.end) return at("children's ranges do not end with node", index);
            const Aabb c0 = regionOf(m_nodes[node.firstChild]);
            const Aabb c3 = regionOf(m_nodes[node.firstChild + 3]);
            if (c0.maxX != c3.minX || c0.maxY != c3.minY) return at("children's regions overlap or gap under node", index);
        }
        // Every entity sits where the rule says: in this node's cells, and in an inner node
        // only if no child holds its whole box.
        Aabb bounds = kEmpty;
        const std::uint32_t shift = m_maxDepth - node.level;
        for (std::uint32_t p = node.begin; p < node.end; ++p) bounds = unite(bounds, m_boxes[p]);
        for (std::uint32_t p = node.begin; p < node.ownEnd; ++p) {
            const CellBox cells = cellsOf(m_boxes[p]);
            if (cells.x0 >> shift != node.cellX || cells.x1 >> shift != node.cellX || cells.y0 >> shift != node.cellY ||
                cells.y1 >> shift != node.cellY)
                return at("entity outside its node's cells at position", p);
            if (node.firstChild != kNone && homeLevel(cells) != node.level)
                return at("entity fits a child but stayed in its parent at position", p);
            // In a split node the first run crosses the vertical line, the second the horizontal one.
            if (node.firstChild != kNone) {
                const bool acrossX = (cells.x0 >> (shift - 1) & 1u) != (cells.x1 >> (shift - 1) & 1u);
                const bool acrossY = (cells.y0 >> (shift - 1) & 1u) != (cells.y1 >> (shift - 1) & 1u);
                if (!(p < node.ownSplit ? acrossX : acrossY)) return at("entity in the wrong run of its node at position", p);
            }
        }
        if (!sameBox(bounds, m_nodeBounds[index]))
            return at("bounds are not the union of the subtree's boxes at node", index);
        Aabb across = kEmpty, along = kEmpty;
        for (std::uint32_t p = node.begin; p < node.ownSplit; ++p) across = unite(across, m_boxes[p]);
        for (std::uint32_t p = node.ownSplit; p < node.ownEnd; ++p) along = unite(along, m_boxes[p]);
        if (node.firstChild != kNone && (!sameBox(across, m_runBounds[index][0]) || !sameBox(along, m_runBounds[index][1])))
            return at("run bounds are not the union of the runs' boxes at node", index);
    }
    if (count != m_nodes.size()) return "nodes unreachable from the root";
    std::vector<std::uint8_t> seen(n, 0);
    for (const std::uint32_t e : m_entities) {
        if (e >= n || seen[e]) return at("entity stored twice or out of range:", e);
        seen[e] = 1;
    }
    return {};
}

}  // namespace ro

// Queries descend the nodes whose subtree bounds meet the query; each entity is stored once.

namespace ro {

QueryCost Quadtree::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    QueryCost cost;
    if (m_nodes.empty()) return cost;
    resizeWithHeadroom(m_stack, 3 * std::size_t{m_maxDepth} + 2);
    cost.visited = descend(0, box, [&](std::uint32_t p) {
        ++cost.tests;
        if (overlaps(m_boxes[p], box)) out.push_back(m_entities[p]);
    });
    return cost;
}

QueryCost Quadtree::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    QueryCost cost;
    if (m_nodes.empty()) return cost;
    resizeWithHeadroom(m_stack, 3 * std::size_t{m_maxDepth} + 2);
    std::size_t top = 0;
    m_stack[top++] = 0;
    while (top > 0) {
        const std::uint32_t index = m_stack[--top];
        const Node& node = m_nodes[index];
        ++cost.visited;
        // segmentEntry is monotonic in the box: bounds it misses hold no box it hits.
        if (node.begin == node.end || !segmentEntry(m_nodeBounds[index], segment)) continue;
        for (std::uint32_t p = node.begin; p < node.ownEnd; ++p) {
            ++cost.tests;
            if (const auto t = segmentEntry(m_boxes[p], segment)) out.push_back({m_entities[p], *t});
        }
        if (node.firstChild != kNone)
            for (std::uint32_t c = 0; c < 4; ++c) m_stack[top++] = node.firstChild + c;
    }
    return cost;
}

QueryCost Quadtree::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    QueryCost cost;
    if (m_nodes.empty()) return cost;
    resizeWithHeadroom(m_rayStack, 3 * std::size_t{m_maxDepth} + 2);
    // A node's entry t never exceeds that of a box below it: prune by the best t so far, and
    // push children farthest first so the nearest opens next.
    const auto enter = [&](std::uint32_t index) -> std::optional<float> {
        if (m_nodes[index].begin == m_nodes[index].end) return std::nullopt;
        return segmentEntry(m_nodeBounds[index], segment);
    };
    std::size_t top = 0;
    ++cost.visited;
    if (const auto t = enter(0)) m_rayStack[top++] = {0, *t};
    while (top > 0) {
        const PendingNode pending = m_rayStack[--top];
        if (hit && pending.t > hit->t) continue;
        const Node& node = m_nodes[pending.node];
        for (std::uint32_t p = node.begin; p < node.ownEnd; ++p) {
            ++cost.tests;
            const auto t = segmentEntry(m_boxes[p], segment);
            if (t) keepNearest(hit, {m_entities[p], *t});
        }
        if (node.firstChild == kNone) continue;
        std::array<PendingNode, 4> children;
        std::size_t opened = 0;
        for (std::uint32_t c = 0; c < 4; ++c) {
            ++cost.visited;
            if (const auto t = enter(node.firstChild + c)) children[opened++] = {node.firstChild + c, *t};
        }
        for (std::size_t i = 1; i < opened; ++i)  // farthest first: an insertion sort of four
            for (std::size_t j = i; j > 0 && children[j - 1].t < children[j].t; --j) std::swap(children[j - 1], children[j]);
        for (std::size_t c = 0; c < opened; ++c) m_rayStack[top++] = children[c];
    }
    return cost;
}

}  // namespace ro
