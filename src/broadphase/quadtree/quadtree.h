#pragma once
/// Quadtree (Petersen; Lembcke and Korth name it among spatial partitions and indexes): a region quadtree
/// over Settings::bounds, rebuilt every step. A leaf splits into four when it holds more
/// than "leaf_capacity" entities, down to "max_depth" levels. O(n log n) to
/// build, O(n log n + k) for the pairs when boxes are small against the bounds.
///
/// Why a region quadtree whose entities sit at the smallest node that contains them (a box
/// that crosses or touches a node's split lines stays in that node), rather than a loose one:
/// each entity is stored exactly once, so no pair and no query result can come out twice and
/// no stamp is needed; and two entities can overlap only where one's node is an ancestor of,
/// or the same as, the other's, so each pair is tested exactly once, by walking down from the
/// higher entity. A loose tree also stores once, but its loose bounds overlap across sibling
/// subtrees, so each entity must query outside its own subtree as well.
///
/// Nodes are defined on integer cells: boxes are quantized to a 2^depth x 2^depth lattice over
/// the bounds, clamped at the edges, so an entity outside the bounds lands in an edge node
/// (edge nodes reach to infinity) and the placement rule is exact integer arithmetic.
/// Quantizing is monotonic, so disjoint cell ranges mean disjoint boxes. Each node also keeps
/// the union of the boxes below it, which is what queries and pair walks prune with.
///
/// A node's own entities are two runs, each with its bounds: those across its vertical split
/// line, then those across only its horizontal one. Each run's bounds are a thin strip along
/// its line, so a query or a pair walk that passes away from a node's lines skips its own
/// entities and only descends. Without the runs a query tests every entity the nodes above
/// it hold: on a field of 99,000 statics, the root holds those across its two lines, about
/// 160, and each query tested about 300 boxes; with them it tests a few.
///
/// Why rebuild: every box moves every step; a top-down rebuild is a stable six-way counting
/// partition per level (the node's two runs, then the four children) into preallocated
/// arrays, so each subtree ends up contiguous and the pair scans stream through memory, with
/// none of the merge and split bookkeeping an incremental update needs.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broadphase/technique_base.h"

namespace ro {

class Quadtree final : public Technique<Quadtree> {
    friend class Technique<Quadtree>;  // calls the hooks below

public:
    static constexpr TechniqueGuide kGuide{
        .how = "The world's bounds split into four, recursively, until a leaf holds few boxes; a box "
               "straddling a split stays in the node above.",
        .complexity = "O(n log n + k) when boxes are small against the bounds",
        .cost = "O(n log n + k) when boxes are small against the bounds; large boxes pile up high.",
        .suits = "Clustered scenes of small boxes in known bounds.",
        .source = "Scott Lembcke and Andy Korth, \"Collision Detection and Spatial Indexes\" (2012)",
    };
    static constexpr ParameterSpec kCapacityParameter{
        .key = "leaf_capacity",
        .label = "Leaf capacity",
        .kind = ParameterKind::Integer,
        .min = 1,
        .max = 4096,
        .offeredMin = 1,
        .offeredMax = 64,
        .defaultValue = 8,
        .unit = "entities",
        .help = "entities a leaf holds before it splits into four",
    };
    static constexpr ParameterSpec kDepthParameter{
        .key = "max_depth",
        .label = "Max depth",
        .kind = ParameterKind::Integer,
        .min = 1,
        .max = 20,
        .offeredMin = 1,
        .offeredMax = 20,
        .defaultValue = 10,
        .unit = "levels",
        .help = "levels below the root at most; a leaf this deep holds any number",
    };
    static constexpr ParameterSpec kParameters[] = {kCapacityParameter, kDepthParameter};
    Quadtree() : Technique(kParameters) {}

    /// Nodes in the tree of the last update.
    [[nodiscard]] std::uint32_t nodeCount() const { return static_cast<std::uint32_t>(m_nodes.size()); }
    /// The deepest level reached by the last update (0: the root alone).
    [[nodiscard]] std::uint32_t deepestLevel() const;

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    void doUpdate(const BoxView& boxes) override;
    void findPairs(std::vector<Pair>& out) override;
    [[nodiscard]] bool pairsAreExact() const override { return true; }
    void forEachElement(const std::function<void(const StructureElement&)>& visit) const override;
    [[nodiscard]] std::string validate() const override;

protected:
    void applySettings(const Settings& settings) override;
    QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) override;
    QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) override;
    QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) override;

private:
    static constexpr std::uint32_t kNone = 0xffffffffu;

    struct CellBox {
        std::uint32_t x0, y0, x1, y1;  ///< lattice cells of a box's corners
    };
    struct Item {
        std::uint32_t entity;
        std::uint32_t cellX, cellY;  ///< lattice cell of the box's min corner
        std::uint16_t home;          ///< the deepest level whose node contains the whole box
        std::uint16_t acrossX;       ///< 1: it crosses that node's vertical split line; 0: its horizontal one
    };
    struct Node {
        std::uint32_t firstChild;  ///< kNone for a leaf; children firstChild + (x bit | y bit << 1)
        std::uint32_t begin;       ///< its own entities are [begin, ownEnd) in tree order,
        std::uint32_t ownSplit;    ///< [begin, ownSplit) across its vertical line (a leaf's all)
        std::uint32_t ownEnd;      ///< its subtree's are [begin, end)
        std::uint32_t end;
        std::uint32_t cellX, cellY;  ///< the node's coordinates among the 2^level x 2^level of its level
        std::uint32_t level;
        std::uint32_t buffer;  ///< which of m_items holds its own entities after the build
    };
    struct PendingNode {  ///< a node a first-hit ray query has yet to open, and its entry t
        std::uint32_t node;
        float t;
    };

    [[nodiscard]] CellBox cellsOf(const Aabb& box) const;
    [[nodiscard]] std::uint32_t homeLevel(const CellBox& cells) const;
    [[nodiscard]] Aabb regionOf(const Node& node) const;
    /// Builds the subtree of `node` from the items [begin, end) of m_items[from].
    void build(std::uint32_t node, std::uint32_t begin, std::uint32_t end, std::uint32_t from);
    /// Appends the four children of node `index`; returns the first.
    std::uint32_t newChildren(std::uint32_t index);
    /// Calls onEntity(position) for the entities of the runs whose bounds overlap `box`, in
    /// the nodes whose bounds overlap it, from `node` down; returns the nodes visited.
    template <typename OnEntity>
    std::uint64_t descend(std::uint32_t node, const Aabb& box, OnEntity onEntity);

    Aabb m_bounds = Settings{}.bounds;
    std::uint32_t m_capacity = static_cast<std::uint32_t>(kCapacityParameter.defaultValue);
    std::uint32_t m_maxDepth = static_cast<std::uint32_t>(kDepthParameter.defaultValue);
    float m_scaleX = 1.0f;  ///< lattice cells per world unit
    float m_scaleY = 1.0f;

    std::vector<Node> m_nodes;
    std::vector<Aabb> m_nodeBounds;  ///< by node: union of the boxes in its subtree
    std::vector<std::array<Aabb, 2>> m_runBounds;  ///< by split node: unions of its two runs of own entities
    std::array<std::vector<Item>, 2> m_items;  ///< the build partitions from one into the other
    std::vector<std::uint8_t> m_groups;        ///< partition scratch: each item's group
    std::vector<Aabb> m_boxes;              ///< boxes in tree order
    std::vector<std::uint32_t> m_entities;  ///< dense index by tree order position
    std::vector<std::uint32_t> m_stack;
    std::vector<PendingNode> m_rayStack;
    std::uint64_t m_nodesVisited = 0;
};

}  // namespace ro
