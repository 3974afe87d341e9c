#pragma once
/// The dynamic AABB tree as a structure (as Box2D keeps b2DynamicTree apart from its broad
/// phase): a binary tree of boxes, changed one leaf at a time, that knows nothing of entity
/// ids, dense indices or pairs. Each leaf carries one number its owner gives it (the broad
/// phase in tree.h stores its proxy there).
///
/// - Insertion picks the sibling by the surface-area heuristic (in 2D the perimeter): a greedy
///   descent that stops when a lower bound says no deeper sibling can be cheaper (as Box2D v3).
///   A moved leaf is searched for below its nearest ancestor that holds its new box, not from
///   the root (as Bullet's btDbvt looks a few levels up): it has rarely gone far, and this
///   halves the cost of a move.
/// - On the way up each ancestor may swap a child with a grandchild: to cut the perimeter of the
///   node that changes (Box2D v3's rotations), and, where a node's children differ in height by
///   more than kMaxImbalance, to restore that bound (as v2.4's AVL-like balance). The bound
///   holds at every node (validate() checks it), so the height is at most ~1.8 log2 n even for
///   boxes inserted in sorted order, which SAH rotations alone do not promise.
/// - Nodes live in a pool addressed by index with a free list; nothing is allocated once the
///   pool has grown. defragment() renumbers the nodes in depth-first order, so queries walk
///   memory that is close together.

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/box_helpers.h"
#include "ro/broadphase.h"  // Segment, segmentEntry
#include "ro/aabb.h"
#include "core/buffers.h"

namespace ro {

class AabbTree {
public:
    static constexpr std::uint32_t kNull = 0xffffffffu;
    /// The largest height difference allowed between the two children of a node.
    static constexpr std::int32_t kMaxImbalance = 2;

    /// Adds a leaf with `box` carrying `value`; returns the leaf's node.
    std::uint32_t insert(const Aabb& box, std::uint32_t value);
    /// Adds a leaf that joins the hierarchy at the next rebuildTopDown(), which must come
    /// before any other call: many leaves at once cost one build, not an insertion each.
    std::uint32_t stage(const Aabb& box, std::uint32_t value);
    /// Gives a leaf a new box that takes effect at the next rebuildTopDown(), which must
    /// come before any other call: many leaves moved at once cost one build, not a move each.
    void restage(std::uint32_t leaf, const Aabb& box) { m_nodes[leaf].box = box; }
    /// Gives the leaf a new box where it stands, growing its ancestors' boxes to hold it (as
    /// Box2D v3 enlarges a moved proxy's ancestors): no search, no rotation, but the boxes
    /// above it are no longer tight. enlargedSinceBuild() counts these until the next
    /// rebuildTopDown(), which makes every box tight again.
    void enlarge(std::uint32_t leaf, const Aabb& box);
    [[nodiscard]] std::uint32_t enlargedSinceBuild() const { return m_enlarged; }
    /// Takes the leaf out of the tree and frees its node.
    void remove(std::uint32_t leaf);
    /// Gives the leaf a new box and moves it to where that box belongs.
    void move(std::uint32_t leaf, const Aabb& box);
    void clear();
    /// Rebuilds the inner nodes top down, each split at the median of its leaves' centres
    /// along its wider side: a balanced tree of tight boxes, for leaves that will not move (a
    /// static tree) or that came all at once (stage()). The nodes come out numbered depth
    /// first, as defragment() leaves them; calls onLeafMoved(value, newLeaf) for every leaf.
    template <typename OnLeafMoved>
    void rebuildTopDown(OnLeafMoved onLeafMoved);

    [[nodiscard]] const Aabb& box(std::uint32_t node) const { return m_nodes[node].box; }
    /// The number a leaf carries.
    [[nodiscard]] std::uint32_t value(std::uint32_t leaf) const { return m_nodes[leaf].child2; }
    [[nodiscard]] std::uint32_t leafCount() const { return m_leafCount; }
    /// Asks the caches for every node, a line at a time. Before a burst of edits on a small
    /// tree that other work has evicted, the prefetchers stream its nodes in at once instead
    /// of a cache miss at each level of each edit's descent and climb.
    void prefetchNodes() const {
        constexpr std::size_t kNodesPerLine = 64 / sizeof(Node);
        for (std::size_t i = 0; i < m_nodes.size(); i += kNodesPerLine) __builtin_prefetch(m_nodes.data() + i);
    }
    /// Nodes in the pool, live or free.
    [[nodiscard]] std::size_t nodeCount() const { return m_nodes.size(); }
    /// Height of the root (0 for a single leaf or an empty tree).
    [[nodiscard]] std::uint32_t height() const;
    /// Sum of the inner nodes' half perimeters: the quantity the SAH keeps small.
    [[nodiscard]] double innerPerimeterSum() const;
    /// Nodes read and child-grandchild swaps made since resetWork().
    [[nodiscard]] std::uint64_t nodesVisited() const { return m_nodesVisited; }
    [[nodiscard]] std::uint64_t rotations() const { return m_rotations; }
    void resetWork() { m_nodesVisited = m_rotations = 0; }

    /// Calls onLeaf(value) for each leaf whose box touches `box`; returns the nodes visited.
    template <typename OnLeaf>
    std::uint64_t query(const Aabb& box, OnLeaf onLeaf);
    /// query() of `count` boxes, boxOf(k) for k below count, calling onLeaf(k, value) for
    /// each leaf that box k touches. The descents take turns a node at a time, each node's
    /// children fetched when they are pushed: with the tree larger than the caches, the
    /// misses of kQueryLanes descents overlap instead of following each other level by
    /// level. The leaves come in another order than from one query() after another.
    template <typename BoxOf, typename OnLeaf>
    std::uint64_t queryMany(std::uint32_t count, BoxOf boxOf, OnLeaf onLeaf) {
        return queryMany(count, boxOf, onLeaf, m_laneStacks);
    }
    /// queryMany() with the lanes' stacks in `laneStacks`: several threads may query at once,
    /// each with stacks of its own.
    template <typename BoxOf, typename OnLeaf>
    std::uint64_t queryMany(std::uint32_t count, BoxOf boxOf, OnLeaf onLeaf, std::vector<std::uint32_t>& laneStacks) const;
    static constexpr std::uint32_t kQueryLanes = 16;
    /// Calls onPair(value, value) once for each two leaves whose boxes touch, by descending
    /// the tree against itself: after a bulk load, far fewer node visits than a query per
    /// leaf. Returns the node pairs visited.
    template <typename OnPair>
    std::uint64_t selfPairs(OnPair onPair);
    /// Calls onPair(this leaf's value, other's leaf's value) for each two leaves, one in each
    /// tree, whose boxes touch. Returns the node pairs visited.
    template <typename OnPair>
    std::uint64_t pairsWith(const AabbTree& other, OnPair onPair);
    /// Calls onLeaf(value) for each leaf whose box the segment enters; returns the nodes visited.
    template <typename OnLeaf>
    std::uint64_t raycast(const Segment& segment, OnLeaf onLeaf);
    /// Visits the leaves the segment enters, nearest entry first, skipping every subtree
    /// entered after the best t so far: testLeaf(value) tests the leaf's own content and
    /// returns the best t found yet (infinity while none). Returns the nodes visited.
    template <typename TestLeaf>
    std::uint64_t raycastFirst(const Segment& segment, TestLeaf testLeaf);

    /// Renumbers the nodes in depth-first order, dropping the free ones: a subtree then sits
    /// in one stretch of memory. Calls onLeafMoved(value, newLeaf) for every leaf.
    template <typename OnLeafMoved>
    void defragment(OnLeafMoved onLeafMoved);
    /// Frees the scratch that rebuildTopDown() and defragment() keep so that they do not
    /// allocate again: as large as the tree, and not worth keeping for one seldom rebuilt.
    void releaseScratch();
    /// Grows every pool and scratch a step may use (nodes, a build's, a renumbering's, the
    /// walks' stack) to what `leaves` leaves need, so that no later step of that many allocates.
    void reserveFor(std::uint32_t leaves);

    /// Every node, parents first: its box, depth, whether it is a leaf, and a leaf's value
    /// (kNull for an inner node).
    void forEachNode(const std::function<void(const Aabb&, std::uint32_t depth, bool leaf, std::uint32_t value)>& visit) const;
    /// The structure's invariants (links, unions, heights, balance, the free list), and
    /// checkLeaf(leaf) for each leaf; the first broken one, or empty.
    [[nodiscard]] std::string validate(const std::function<std::string(std::uint32_t leaf)>& checkLeaf) const;
    [[nodiscard]] std::uint64_t bytesHeld() const;

private:
    struct Node {
        Aabb box;              // 16: a leaf's own box, or the union of the children
        std::uint32_t parent;  // 4: kNull at the root; the next free node while free
        std::uint32_t child1;  // 4: kNull for a leaf
        std::uint32_t child2;  // 4: for a leaf, the value its owner gave
        std::int32_t height;   // 4: 0 for a leaf, -1 while free
    };
    struct PendingNode {  ///< a node a first-hit ray query has yet to open, and its entry t
        std::uint32_t node;
        float t;
    };

    [[nodiscard]] bool isLeaf(std::uint32_t node) const { return m_nodes[node].child1 == kNull; }
    std::uint32_t allocateNode();
    void freeNode(std::uint32_t node);
    /// Inserts below `start` (kNull: the root), which must be in the tree.
    void insertLeaf(std::uint32_t leaf, std::uint32_t start = kNull);
    void removeLeaf(std::uint32_t leaf);
    [[nodiscard]] std::uint32_t findBestSibling(const Aabb& box, std::uint32_t start);
    void replaceChild(std::uint32_t parent, std::uint32_t oldChild, std::uint32_t newChild);
    void refit(std::uint32_t node);
    /// Refits `node` after a change below, rotating if that helps; false if nothing changed.
    bool rebalance(std::uint32_t node);
    void fixUpwards(std::uint32_t node);
    /// Sizes the traversal stack to the height.
    void reserveStack();
    void renumberDepthFirst();

    std::vector<Node> m_nodes;
    std::uint32_t m_root = kNull;
    std::uint32_t m_freeNode = kNull;
    std::uint32_t m_leafCount = 0;
    std::vector<std::uint32_t> m_stack;  ///< traversal stack, sized to the height
    std::vector<std::uint32_t> m_laneStacks;  ///< queryMany's: kQueryLanes stacks
    std::vector<PendingNode> m_rayStack;
    /// Node pairs (one of this tree, one of the other) a tree-against-tree descent has yet to open.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_pairStack;
    template <typename OnPair>
    std::uint64_t descendPairs(const AabbTree& other, OnPair onPair);
    // Scratch of defragment(), kept so that it does not allocate once grown.
    std::vector<std::uint32_t> m_nodeOrder, m_nodeRemap;
    /// rebuildTopDown's scratch: each leaf with its box's centre (doubled), kept beside it so
    /// the median splits read contiguous memory, not the node pool.
    struct BuildLeaf {
        float x, y;
        std::uint32_t leaf;
    };
    std::vector<BuildLeaf> m_buildLeaves;
    /// rebuildTopDown() but for telling the leaves' owner.
    void buildTopDown();
    /// Links the nodes of the leaves [first, last) below `parent`, in m_nodeScratch from
    /// m_builtNodes on; their boxes come after (see buildTopDown).
    void buildRange(BuildLeaf* first, BuildLeaf* last, std::uint32_t parent);
    std::uint32_t m_builtNodes = 0;
    std::vector<Node> m_nodeScratch;
    std::uint64_t m_nodesVisited = 0;
    std::uint64_t m_rotations = 0;
    std::uint32_t m_enlarged = 0;  ///< enlarge() calls since the last rebuildTopDown() or clear()
};

template <typename OnLeaf>
std::uint64_t AabbTree::query(const Aabb& box, OnLeaf onLeaf) {
    if (m_root == kNull) return 0;
    reserveStack();
    std::uint64_t visited = 0;
    std::uint32_t* const stack = m_stack.data();
    std::size_t top = 0;
    stack[top++] = m_root;
    while (top > 0) {
        const Node& node = m_nodes[stack[--top]];
        ++visited;
        if (!touches(node.box, box)) continue;
        if (node.child1 == kNull) {
            onLeaf(node.child2);
        } else {
            stack[top++] = node.child1;
            stack[top++] = node.child2;
        }
    }
    return visited;
}

template <typename BoxOf, typename OnLeaf>
std::uint64_t AabbTree::queryMany(std::uint32_t count, BoxOf boxOf, OnLeaf onLeaf,
                                  std::vector<std::uint32_t>& laneStacks) const {
    if (m_root == kNull || count == 0) return 0;
    // A lane's stack holds at most one pending sibling per level, plus the root.
    const std::size_t depth = std::size_t{height()} + 2;
    resizeWithHeadroom(laneStacks, depth * kQueryLanes);
    struct Lane {
        Aabb box;
        std::uint32_t query, top;
        std::uint32_t* stack;
    };
    Lane lanes[kQueryLanes];
    std::uint32_t next = 0, active = 0;
    for (; active < kQueryLanes && next < count; ++active, ++next)
        lanes[active] = {boxOf(next), next, 1, laneStacks.data() + active * depth};
    for (std::uint32_t l = 0; l < active; ++l) lanes[l].stack[0] = m_root;
    std::uint64_t visited = 0;
    while (active > 0) {
        for (std::uint32_t l = 0; l < active;) {
            Lane& lane = lanes[l];
            const Node& node = m_nodes[lane.stack[--lane.top]];
            ++visited;
            if (touches(node.box, lane.box)) {
                if (node.child1 == kNull) {
                    onLeaf(lane.query, node.child2);
                } else {
                    __builtin_prefetch(m_nodes.data() + node.child1);
                    __builtin_prefetch(m_nodes.data() + node.child2);
                    lane.stack[lane.top++] = node.child1;
                    lane.stack[lane.top++] = node.child2;
                }
            }
            if (lane.top > 0) {
                ++l;
            } else if (next < count) {  // the lane takes the next box
                lane.box = boxOf(next);
                lane.query = next++;
                lane.stack[lane.top++] = m_root;
                ++l;
            } else {  // the last lane takes this one's place (its stack goes with it)
                lane = lanes[--active];
            }
        }
    }
    return visited;
}

template <typename OnPair>
std::uint64_t AabbTree::selfPairs(OnPair onPair) {
    if (m_root == kNull) return 0;
    m_pairStack.clear();
    m_pairStack.push_back({m_root, m_root});
    return descendPairs(*this, onPair);
}

template <typename OnPair>
std::uint64_t AabbTree::pairsWith(const AabbTree& other, OnPair onPair) {
    if (m_root == kNull || other.m_root == kNull) return 0;
    m_pairStack.clear();
    m_pairStack.push_back({m_root, other.m_root});
    return descendPairs(other, onPair);
}

template <typename OnPair>
std::uint64_t AabbTree::descendPairs(const AabbTree& other, OnPair onPair) {
    // (a, b): a node of this tree and one of `other`. Against itself a node pairs with itself
    // as its children's three pairs, so each two leaves meet once.
    const bool self = &other == this;
    std::uint64_t visited = 0;
    while (!m_pairStack.empty()) {
        const auto [a, b] = m_pairStack.back();
        m_pairStack.pop_back();
        ++visited;
        const Node& nodeA = m_nodes[a];
        const Node& nodeB = other.m_nodes[b];
        if (self && a == b) {
            if (nodeA.child1 == kNull) continue;
            m_pairStack.push_back({nodeA.child1, nodeA.child1});
            m_pairStack.push_back({nodeA.child2, nodeA.child2});
            m_pairStack.push_back({nodeA.child1, nodeA.child2});
            continue;
        }
        if (!touches(nodeA.box, nodeB.box)) continue;
        const bool leafA = nodeA.child1 == kNull, leafB = nodeB.child1 == kNull;
        if (leafA && leafB) {
            onPair(nodeA.child2, nodeB.child2);
        } else if (leafB || (!leafA && nodeA.height >= nodeB.height)) {
            const std::uint32_t c1 = nodeA.child1, c2 = nodeA.child2;
            m_pairStack.push_back({c1, b});
            m_pairStack.push_back({c2, b});
        } else {
            const std::uint32_t c1 = nodeB.child1, c2 = nodeB.child2;
            m_pairStack.push_back({a, c1});
            m_pairStack.push_back({a, c2});
        }
    }
    return visited;
}

template <typename OnLeaf>
std::uint64_t AabbTree::raycast(const Segment& segment, OnLeaf onLeaf) {
    if (m_root == kNull) return 0;
    reserveStack();
    std::uint64_t visited = 0;
    std::size_t top = 0;
    m_stack[top++] = m_root;
    while (top > 0) {
        const Node& node = m_nodes[m_stack[--top]];
        ++visited;
        // segmentEntry is monotonic in the box, so a node it misses holds no box it hits.
        if (!segmentEntry(node.box, segment)) continue;
        if (node.child1 == kNull) {
            onLeaf(node.child2);
        } else {
            m_stack[top++] = node.child1;
            m_stack[top++] = node.child2;
        }
    }
    return visited;
}

template <typename TestLeaf>
std::uint64_t AabbTree::raycastFirst(const Segment& segment, TestLeaf testLeaf) {
    if (m_root == kNull) return 0;
    reserveStack();
    // Entry t of a node never exceeds that of a box below it: prune by the best t so far, and
    // visit the nearer child first so the best t drops early.
    const auto enter = [&](std::uint32_t index) { return segmentEntry(m_nodes[index].box, segment); };
    resizeWithHeadroom(m_rayStack, m_stack.size());
    PendingNode* const stack = m_rayStack.data();
    std::uint64_t visited = 1;
    float best = std::numeric_limits<float>::infinity();
    std::size_t top = 0;
    if (const auto t = enter(m_root)) stack[top++] = {m_root, *t};
    while (top > 0) {
        const PendingNode pending = stack[--top];
        if (pending.t > best) continue;
        const Node& node = m_nodes[pending.node];
        if (node.child1 == kNull) {
            best = testLeaf(node.child2);
            continue;
        }
        visited += 2;
        const auto t1 = enter(node.child1);
        const auto t2 = enter(node.child2);
        const bool firstNearer = t1 && (!t2 || *t1 <= *t2);
        // Push the farther child first, so the nearer one comes off the stack next.
        if (firstNearer) {
            if (t2) stack[top++] = {node.child2, *t2};
            stack[top++] = {node.child1, *t1};
        } else {
            if (t1) stack[top++] = {node.child1, *t1};
            if (t2) stack[top++] = {node.child2, *t2};
        }
    }
    return visited;
}

template <typename OnLeafMoved>
void AabbTree::rebuildTopDown(OnLeafMoved onLeafMoved) {
    buildTopDown();
    for (std::uint32_t k = 0; k < m_nodes.size(); ++k)
        if (isLeaf(k)) onLeafMoved(m_nodes[k].child2, k);
}

template <typename OnLeafMoved>
void AabbTree::defragment(OnLeafMoved onLeafMoved) {
    renumberDepthFirst();
    for (std::uint32_t k = 0; k < m_nodes.size(); ++k)
        if (isLeaf(k)) onLeafMoved(m_nodes[k].child2, k);
}

}  // namespace ro
