#include "broadphase/tree/aabb_tree.h"

#include <algorithm>
#include <array>
#include <limits>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "core/box_helpers.h"
#include "core/buffers.h"

namespace ro {
namespace {

/// Half the perimeter: the 2D surface-area heuristic, up to a factor that no comparison needs.
float halfPerimeter(const Aabb& b) { return b.width() + b.height(); }

float centreDistance(const Aabb& a, const Aabb& b) {
    return std::abs(a.minX + a.maxX - b.minX - b.maxX) + std::abs(a.minY + a.maxY - b.minY - b.maxY);
}

float median3(float x, float y, float z) { return std::max(std::min(x, y), std::min(std::max(x, y), z)); }

/// Moves the elements of [first, last) for which goesFirst holds before the others, without a
/// branch on it (a swap each, the bound advancing by the test's result); returns that bound.
template <typename T, typename GoesFirst>
T* partitionBranchFree(T* first, T* last, GoesFirst goesFirst) {
    T* bound = first;
    for (T* p = first; p != last; ++p) {
        const T value = *p;
        const bool goes = goesFirst(value);
        *p = *bound;
        *bound = value;
        bound += goes;
    }
    return bound;
}

/// std::nth_element by key(element), for buildRange's median splits. The library's
/// comparisons against a pivot mispredict half the time (a top-down build of 100,000 leaves
/// took 14 ms). Here each round is one or two branch-free partitions: by two keys of a sorted
/// sample that bracket the wanted rank (Floyd and Rivest's select), so that a round keeps
/// only the few elements between them, or by one pivot where the range is short or the
/// bracket failed to narrow it.
template <typename T, typename Key>
void selectMedian(T* first, T* nth, T* last, Key key) {
    const auto before = [&](const T& a, const T& b) { return key(a) < key(b); };
    constexpr std::ptrdiff_t kSorted = 4, kSampled = 1024;
    constexpr int kSample = 64, kSpread = 6;  // sample ranks either side of the wanted one
    bool bracket = true;
    for (int round = 0; last - first > kSorted; ++round) {
        if (round == 64) {  // a pathological order: the library's introselect bounds it
            std::nth_element(first, nth, last, before);
            return;
        }
        const std::ptrdiff_t n = last - first;
        float low = 0.0f, high = 0.0f;
        if (bracket && n >= kSampled) {
            std::array<float, kSample> sample{};
            const std::ptrdiff_t stride = n / kSample;
            for (int k = 0; k < kSample; ++k) sample[k] = key(first[k * stride + stride / 2]);
            std::sort(sample.begin(), sample.end());
            const auto rank = static_cast<int>(static_cast<std::int64_t>(nth - first) * kSample / n);
            low = sample[std::max(rank - kSpread, 0)];
            high = sample[std::min(rank + kSpread, kSample - 1)];
        } else {
            T* const middle = first + n / 2;
            low = high = median3(key(*first), key(*middle), key(last[-1]));
        }
        // Both keys are keys of the range: each partition below leaves an element out.
        T* const less = partitionBranchFree(first, last, [&](const T& v) { return key(v) < low; });
        if (nth < less) {
            last = less;
            continue;
        }
        T* const notGreater = partitionBranchFree(less, last, [&](const T& v) { return key(v) <= high; });
        if (nth >= notGreater) {
            first = notGreater;
            continue;
        }
        if (low == high) return;  // among the keys equal to the pivot
        bracket = less != first || notGreater != last;  // else every key lay between the two
        first = less;
        last = notGreater;
    }
    std::sort(first, last, before);
}

}  // namespace

// ---- leaves -----------------------------------------------------------------------------

std::uint32_t AabbTree::insert(const Aabb& box, std::uint32_t value) {
    const std::uint32_t leaf = allocateNode();
    m_nodes[leaf] = {box, kNull, kNull, value, 0};
    insertLeaf(leaf);
    ++m_leafCount;
    return leaf;
}

std::uint32_t AabbTree::stage(const Aabb& box, std::uint32_t value) {
    const std::uint32_t leaf = allocateNode();
    m_nodes[leaf] = {box, kNull, kNull, value, 0};
    ++m_leafCount;
    return leaf;
}

void AabbTree::remove(std::uint32_t leaf) {
    removeLeaf(leaf);
    freeNode(leaf);
    --m_leafCount;
}

void AabbTree::move(std::uint32_t leaf, const Aabb& box) {
    const std::uint32_t parent = m_nodes[leaf].parent;
    const std::uint32_t grandparent = parent == kNull ? kNull : m_nodes[parent].parent;
    removeLeaf(leaf);
    m_nodes[leaf].box = box;
    // A box that moved has usually not gone far: search for the sibling below the nearest
    // ancestor that holds the new box (as Bullet's btDbvt looks a few levels up), not from
    // the root. The search is a few levels long instead of the height; in the bench scenes
    // the tree's total perimeter stays within 10% of what searches from the root give.
    std::uint32_t start = grandparent;
    while (start != kNull && !containsBox(m_nodes[start].box, box)) start = m_nodes[start].parent;
    insertLeaf(leaf, start);
}

void AabbTree::enlarge(std::uint32_t leaf, const Aabb& box) {
    m_nodes[leaf].box = box;
    for (std::uint32_t node = m_nodes[leaf].parent; node != kNull; node = m_nodes[node].parent) {
        ++m_nodesVisited;
        Node& n = m_nodes[node];
        if (containsBox(n.box, box)) break;  // and so do its ancestors
        n.box = unite(n.box, box);
    }
    ++m_enlarged;
}

void AabbTree::clear() {
    m_enlarged = 0;
    m_nodes.clear();
    m_root = kNull;
    m_freeNode = kNull;
    m_leafCount = 0;
}

void AabbTree::buildTopDown() {
    m_buildLeaves.clear();
    reserveWithHeadroom(m_buildLeaves, m_leafCount);  // grown once, not leaf by leaf in a step
    for (std::uint32_t node = 0; node < m_nodes.size(); ++node) {
        const Node& n = m_nodes[node];
        if (n.height == 0) m_buildLeaves.push_back({n.box.minX + n.box.maxX, n.box.minY + n.box.maxY, node});
    }
    if (m_buildLeaves.empty()) {
        m_nodes.clear();
        m_root = m_freeNode = kNull;
        m_enlarged = 0;
        return;
    }
    // The links first, numbered depth first as defragment() would leave them (each subtree in
    // one stretch of memory). A leaf keeps its old node in child2 meanwhile.
    resizeWithHeadroom(m_nodeScratch, 2 * m_buildLeaves.size() - 1);
    // defragment()'s scratch grows with the tree here, so that its first use after a build
    // does not allocate in some later step.
    reserveWithHeadroom(m_nodeOrder, m_nodeScratch.size());
    reserveWithHeadroom(m_nodeRemap, m_nodeScratch.size());
    m_builtNodes = 0;
    buildRange(m_buildLeaves.data(), m_buildLeaves.data() + m_buildLeaves.size(), kNull);
    // Then the leaves' boxes and values, read from the old pool in independent loads rather
    // than one at a time down the recursion; then the unions, children before parents.
    for (Node& node : m_nodeScratch) {
        if (node.child1 != kNull) continue;
        const Node& old = m_nodes[node.child2];
        node.box = old.box;
        node.child2 = old.child2;
        node.height = 0;
    }
    for (std::size_t k = m_nodeScratch.size(); k-- > 0;) {
        Node& node = m_nodeScratch[k];
        if (node.child1 == kNull) continue;
        const Node& left = m_nodeScratch[node.child1];
        const Node& right = m_nodeScratch[node.child2];
        node.box = unite(left.box, right.box);
        node.height = 1 + std::max(left.height, right.height);
    }
    m_nodes.swap(m_nodeScratch);
    m_root = 0;
    m_freeNode = kNull;
    m_enlarged = 0;
    // The old pool is defragment()'s scratch now, and the stack of walks must reach the
    // heights insertions may bring (balance allows ~1.8 log2 n): both grow here, in the
    // build's step, rather than in some later one.
    reserveWithHeadroom(m_nodeScratch, m_nodes.size());
    reserveWithHeadroom(m_stack, 2 * (std::size_t{height()} + 2));
}

void AabbTree::buildRange(BuildLeaf* first, BuildLeaf* last, std::uint32_t parent) {
    const std::uint32_t node = m_builtNodes++;
    if (last - first == 1) {
        m_nodeScratch[node] = {{}, parent, kNull, first->leaf, 0};
        return;
    }
    float minX = std::numeric_limits<float>::infinity(), minY = minX, maxX = -minX, maxY = -minX;
    for (const BuildLeaf* p = first; p != last; ++p) {
        minX = std::min(minX, p->x);
        maxX = std::max(maxX, p->x);
        minY = std::min(minY, p->y);
        maxY = std::max(maxY, p->y);
    }
    BuildLeaf* mid = first + (last - first) / 2;
    if (maxX - minX >= maxY - minY)
        selectMedian(first, mid, last, [](const BuildLeaf& leaf) { return leaf.x; });
    else
        selectMedian(first, mid, last, [](const BuildLeaf& leaf) { return leaf.y; });
    const std::uint32_t left = m_builtNodes;
    buildRange(first, mid, node);
    const std::uint32_t right = m_builtNodes;
    buildRange(mid, last, node);
    m_nodeScratch[node] = {{}, parent, left, right, 1};
}

std::uint32_t AabbTree::height() const {
    return m_root == kNull ? 0u : static_cast<std::uint32_t>(m_nodes[m_root].height);
}

double AabbTree::innerPerimeterSum() const {
    double sum = 0.0;
    for (const Node& node : m_nodes)
        if (node.height > 0) sum += halfPerimeter(node.box);
    return sum;
}

// ---- the tree: pool, insertion by SAH, removal, rotations -------------------------------

std::uint32_t AabbTree::allocateNode() {
    if (m_freeNode == kNull) {
        m_nodes.push_back({{}, kNull, kNull, kNull, 0});
        return static_cast<std::uint32_t>(m_nodes.size() - 1);
    }
    const std::uint32_t node = m_freeNode;
    m_freeNode = m_nodes[node].parent;
    m_nodes[node] = {{}, kNull, kNull, kNull, 0};
    return node;
}

void AabbTree::freeNode(std::uint32_t node) {
    m_nodes[node] = {{}, m_freeNode, kNull, kNull, -1};
    m_freeNode = node;
}

std::uint32_t AabbTree::findBestSibling(const Aabb& box, std::uint32_t start) {
    // Greedy descent along one path (Box2D v3's idea). Pairing the leaf with node X costs the
    // new parent's perimeter, perimeter(X + box), plus the growth of every ancestor of X
    // ("inherited"). A subtree cannot offer less than inherited + growth of its root +
    // perimeter(box) (any new parent is at least as large as the box), so stop descending
    // once both children's bounds reach the best cost found.
    // Only nodes of height <= kMaxImbalance may become the sibling: the new parent must itself
    // be balanced, and each ancestor then grows by at most one level, which one rotation fixes.
    const float boxCost = halfPerimeter(box);
    std::uint32_t best = kNull;
    float bestCost = std::numeric_limits<float>::infinity();
    const auto consider = [&](std::uint32_t node, float cost) {
        if (m_nodes[node].height <= kMaxImbalance && cost < bestCost) {
            bestCost = cost;
            best = node;
        }
    };
    std::uint32_t index = start;
    float grown = halfPerimeter(unite(m_nodes[index].box, box));
    float inherited = 0.0f;
    while (!isLeaf(index)) {
        ++m_nodesVisited;
        const Node& node = m_nodes[index];
        consider(index, grown + inherited);
        inherited += grown - halfPerimeter(node.box);
        const std::uint32_t children[2] = {node.child1, node.child2};
        float childGrown[2];
        float lowerBound[2];
        for (int k = 0; k < 2; ++k) {
            const Node& child = m_nodes[children[k]];
            childGrown[k] = halfPerimeter(unite(child.box, box));
            if (child.child1 == kNull) {
                consider(children[k], childGrown[k] + inherited);
                lowerBound[k] = std::numeric_limits<float>::infinity();
            } else {
                lowerBound[k] = inherited + childGrown[k] + std::min(boxCost - halfPerimeter(child.box), 0.0f);
            }
        }
        if (best != kNull && !(lowerBound[0] < bestCost) && !(lowerBound[1] < bestCost)) break;
        int pick = lowerBound[0] < lowerBound[1] ? 0 : 1;
        if (lowerBound[0] == lowerBound[1])
            pick = centreDistance(m_nodes[children[0]].box, box) <= centreDistance(m_nodes[children[1]].box, box) ? 0 : 1;
        index = children[pick];
        grown = childGrown[pick];
    }
    return best != kNull ? best : index;  // index: a leaf, when every cost was NaN
}

void AabbTree::replaceChild(std::uint32_t parent, std::uint32_t oldChild, std::uint32_t newChild) {
    if (parent == kNull) {
        m_root = newChild;
    } else if (m_nodes[parent].child1 == oldChild) {
        m_nodes[parent].child1 = newChild;
    } else {
        m_nodes[parent].child2 = newChild;
    }
    m_nodes[newChild].parent = parent;
}

void AabbTree::insertLeaf(std::uint32_t leaf, std::uint32_t start) {
    if (m_root == kNull) {
        m_root = leaf;
        m_nodes[leaf].parent = kNull;
        return;
    }
    const std::uint32_t sibling = findBestSibling(m_nodes[leaf].box, start == kNull ? m_root : start);
    const std::uint32_t oldParent = m_nodes[sibling].parent;
    const std::uint32_t newParent = allocateNode();  // may grow m_nodes: no references held
    m_nodes[newParent] = {unite(m_nodes[sibling].box, m_nodes[leaf].box), kNull, sibling, leaf,
                          m_nodes[sibling].height + 1};
    replaceChild(oldParent, sibling, newParent);
    m_nodes[sibling].parent = newParent;
    m_nodes[leaf].parent = newParent;
    fixUpwards(oldParent);
}

void AabbTree::removeLeaf(std::uint32_t leaf) {
    if (leaf == m_root) {
        m_root = kNull;
        return;
    }
    const std::uint32_t parent = m_nodes[leaf].parent;
    const std::uint32_t grandparent = m_nodes[parent].parent;
    const std::uint32_t sibling = m_nodes[parent].child1 == leaf ? m_nodes[parent].child2 : m_nodes[parent].child1;
    replaceChild(grandparent, parent, sibling);
    freeNode(parent);
    m_nodes[leaf].parent = kNull;
    fixUpwards(grandparent);
}

void AabbTree::refit(std::uint32_t index) {
    Node& node = m_nodes[index];
    const Node& a = m_nodes[node.child1];
    const Node& b = m_nodes[node.child2];
    node.box = unite(a.box, b.box);
    node.height = 1 + std::max(a.height, b.height);
}

void AabbTree::fixUpwards(std::uint32_t index) {
    // Once a node keeps its box and height, every ancestor keeps theirs: stop there.
    while (index != kNull) {
        ++m_nodesVisited;
        if (!rebalance(index)) return;
        index = m_nodes[index].parent;
    }
}

bool AabbTree::rebalance(std::uint32_t a) {
    // Node a has children b and c. A rotation swaps one child (x) with a grandchild (y) from
    // under the other child (z): z keeps x and y's sibling w, a gets y. Up to four choices.
    const std::uint32_t b = m_nodes[a].child1;
    const std::uint32_t c = m_nodes[a].child2;
    const std::int32_t heightB = m_nodes[b].height;
    const std::int32_t heightC = m_nodes[c].height;
    const bool balanced = std::abs(heightB - heightC) <= kMaxImbalance;
    const std::int32_t heightA = 1 + std::max(heightB, heightC);

    struct Choice {
        std::uint32_t x = kNull, y = kNull, z = kNull, w = kNull;
        float cost = 0.0f;  // perimeter of z after the swap (balanced: its gain; else its size)
        std::int32_t imbalance = 0;
    } best;
    for (const auto& [x, z] : {std::pair{b, c}, std::pair{c, b}}) {
        const Node& zNode = m_nodes[z];
        if (zNode.child1 == kNull) continue;
        for (const auto& [y, w] : {std::pair{zNode.child1, zNode.child2}, std::pair{zNode.child2, zNode.child1}}) {
            const std::int32_t heightX = m_nodes[x].height;
            const std::int32_t heightW = m_nodes[w].height;
            const std::int32_t heightY = m_nodes[y].height;
            const std::int32_t heightZ = 1 + std::max(heightX, heightW);
            const std::int32_t imbalance = std::max(std::abs(heightX - heightW), std::abs(heightY - heightZ));
            const float size = halfPerimeter(unite(m_nodes[x].box, m_nodes[w].box));
            if (balanced) {
                // A perimeter rotation (Box2D v3): it must shrink z, keep the bound, and not
                // raise a, or an ancestor could end up two levels out of balance.
                const float gain = halfPerimeter(zNode.box) - size;
                const bool allowed = imbalance <= kMaxImbalance && 1 + std::max(heightY, heightZ) <= heightA;
                if (allowed && gain > 0.0f && (best.x == kNull || gain > best.cost)) best = {x, y, z, w, gain, imbalance};
            } else if (best.x == kNull || imbalance < best.imbalance ||
                       (imbalance == best.imbalance && size < best.cost)) {
                // Restore the bound; among the swaps that do, the smallest z.
                best = {x, y, z, w, size, imbalance};
            }
        }
    }
    if (best.x != kNull) {
        Node& zNode = m_nodes[best.z];
        if (zNode.child1 == best.y) {
            zNode.child1 = best.x;
        } else {
            zNode.child2 = best.x;
        }
        m_nodes[best.x].parent = best.z;
        Node& aNode = m_nodes[a];
        if (aNode.child1 == best.x) {
            aNode.child1 = best.y;
        } else {
            aNode.child2 = best.y;
        }
        m_nodes[best.y].parent = a;
        refit(best.z);
        ++m_rotations;
    }
    const Aabb oldBox = m_nodes[a].box;
    const std::int32_t oldHeight = m_nodes[a].height;
    refit(a);
    return best.x != kNull || m_nodes[a].height != oldHeight || !sameBox(m_nodes[a].box, oldBox);
}

void AabbTree::reserveStack() {
    // A depth-first walk holds at most one pending sibling per level, plus the root.
    resizeWithHeadroom(m_stack, std::size_t{height()} + 2);
}

void AabbTree::renumberDepthFirst() {
    if (m_root == kNull) {  // every node is free
        m_nodes.clear();
        m_freeNode = kNull;
        return;
    }
    resizeWithHeadroom(m_nodeRemap, m_nodes.size());
    m_nodeOrder.clear();
    reserveWithHeadroom(m_nodeOrder, m_nodes.size());
    reserveStack();
    std::size_t top = 0;
    m_stack[top++] = m_root;
    while (top > 0) {
        const std::uint32_t index = m_stack[--top];
        m_nodeRemap[index] = static_cast<std::uint32_t>(m_nodeOrder.size());
        m_nodeOrder.push_back(index);
        const Node& node = m_nodes[index];
        if (node.child1 != kNull) {
            m_stack[top++] = node.child2;
            m_stack[top++] = node.child1;
        }
    }
    resizeWithHeadroom(m_nodeScratch, m_nodeOrder.size());
    for (std::size_t k = 0; k < m_nodeOrder.size(); ++k) {
        Node node = m_nodes[m_nodeOrder[k]];
        node.parent = node.parent == kNull ? kNull : m_nodeRemap[node.parent];
        if (node.child1 != kNull) {
            node.child1 = m_nodeRemap[node.child1];
            node.child2 = m_nodeRemap[node.child2];
        }
        m_nodeScratch[k] = node;
    }
    m_nodes.swap(m_nodeScratch);
    m_root = 0;
    m_freeNode = kNull;
}

// ---- overlay and invariants -------------------------------------------------------------

void AabbTree::forEachNode(const std::function<void(const Aabb&, std::uint32_t, bool, std::uint32_t)>& visit) const {
    if (m_root == kNull) return;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{m_root, 0u}};  // (node, depth)
    while (!stack.empty()) {
        const auto [index, depth] = stack.back();
        stack.pop_back();
        const Node& node = m_nodes[index];
        if (node.child1 != kNull) {
            // child1 on top: taken next, it is the node that follows in memory once the tree
            // is renumbered depth first, so a walk of a million leaves streams through memory.
            stack.push_back({node.child2, depth + 1});
            stack.push_back({node.child1, depth + 1});
        }
        const bool leaf = node.child1 == kNull;
        visit(node.box, depth, leaf, leaf ? node.child2 : kNull);
    }
}

std::string AabbTree::validate(const std::function<std::string(std::uint32_t leaf)>& checkLeaf) const {
    const auto at = [](const char* what, std::uint32_t index) { return std::string(what) + " " + std::to_string(index); };
    const std::size_t nodeCount = m_nodes.size();
    std::vector<std::uint8_t> reached(nodeCount, 0);
    std::uint32_t leaves = 0;
    if (m_root != kNull) {
        if (m_root >= nodeCount) return "root out of range";
        if (m_nodes[m_root].parent != kNull) return "root has a parent";
        std::vector<std::uint32_t> stack{m_root};
        while (!stack.empty()) {
            const std::uint32_t index = stack.back();
            stack.pop_back();
            if (reached[index]) return at("node reached twice:", index);
            reached[index] = 1;
            const Node& node = m_nodes[index];
            if (node.height < 0) return at("free node in the tree:", index);
            if (node.child1 == kNull) {
                if (node.height != 0) return at("leaf with a height:", index);
                if (std::string broken = checkLeaf(index); !broken.empty()) return broken;
                ++leaves;
                continue;
            }
            if (node.child1 >= nodeCount || node.child2 >= nodeCount || node.child1 == node.child2)
                return at("bad children at node", index);
            const Node& a = m_nodes[node.child1];
            const Node& b = m_nodes[node.child2];
            if (a.parent != index || b.parent != index) return at("child's parent link broken under", index);
            // Tight: the union of the children; after enlarge(), at least that.
            const Aabb children = unite(a.box, b.box);
            if (m_enlarged == 0 ? !sameBox(node.box, children) : !containsBox(node.box, children))
                return at(m_enlarged == 0 ? "box is not the union of its children at" : "box misses its children at", index);
            if (node.height != 1 + std::max(a.height, b.height)) return at("wrong height at", index);
            if (std::abs(a.height - b.height) > kMaxImbalance) return at("children out of balance at", index);
            stack.push_back(node.child1);
            stack.push_back(node.child2);
        }
    }
    std::size_t freeNodes = 0;
    for (std::uint32_t f = m_freeNode; f != kNull; f = m_nodes[f].parent) {
        if (f >= nodeCount || reached[f] || m_nodes[f].height != -1) return at("free list holds a live node:", f);
        reached[f] = 2;
        if (++freeNodes > nodeCount) return "free list loops";
    }
    for (std::size_t i = 0; i < nodeCount; ++i)
        if (!reached[i]) return at("node neither in the tree nor free:", static_cast<std::uint32_t>(i));
    if (leaves != m_leafCount) return "leaves reached " + std::to_string(leaves) + " != leaf count " + std::to_string(m_leafCount);
    return {};
}

void AabbTree::reserveFor(std::uint32_t leaves) {
    const std::size_t nodes = 2 * std::size_t{leaves} + 1;
    reserveWithHeadroom(m_nodes, nodes);
    reserveWithHeadroom(m_nodeScratch, nodes);
    reserveWithHeadroom(m_nodeOrder, nodes);
    reserveWithHeadroom(m_nodeRemap, nodes);
    reserveWithHeadroom(m_buildLeaves, leaves);
    // Balance holds heights near 1.8 log2 n: 128 levels is far beyond any pool that fits memory.
    reserveWithHeadroom(m_stack, 2 * 128);
    reserveWithHeadroom(m_laneStacks, 2 * 128 * kQueryLanes);
}

void AabbTree::releaseScratch() {
    std::vector<std::uint32_t>().swap(m_nodeOrder);
    std::vector<std::uint32_t>().swap(m_nodeRemap);
    std::vector<BuildLeaf>().swap(m_buildLeaves);
    std::vector<Node>().swap(m_nodeScratch);
}

std::uint64_t AabbTree::bytesHeld() const {
    return ro::bytesHeld(m_nodes) + ro::bytesHeld(m_stack) + ro::bytesHeld(m_laneStacks) + ro::bytesHeld(m_rayStack) +
           ro::bytesHeld(m_nodeOrder) + ro::bytesHeld(m_nodeRemap) + ro::bytesHeld(m_nodeScratch) +
           ro::bytesHeld(m_buildLeaves) + ro::bytesHeld(m_pairStack);
}

}  // namespace ro
