#include "broadphase/tree/tree.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "core/buffers.h"

namespace ro {
namespace {

/// Half the perimeter: the 2D surface-area heuristic, up to a factor that no comparison needs.
float halfPerimeter(const Aabb& b) { return b.width() + b.height(); }

float centreDistance(const Aabb& a, const Aabb& b) {
    return std::abs(a.minX + a.maxX - b.minX - b.maxX) + std::abs(a.minY + a.maxY - b.minY - b.maxY);
}

}  // namespace

void DynamicTree::applySettings(const Settings& settings) {
    // Fat boxes of another margin would need a pass over every leaf anyway: rebuild.
    if (settings.real(kMarginParameter) != m_margin) {
        m_margin = settings.real(kMarginParameter);
        clear();
    }
}

void DynamicTree::clear() {
    m_nodes.clear();
    m_root = kNull;
    m_freeNode = kNull;
    m_proxies.clear();
    m_fatBoxes.clear();
    m_proxyId.clear();
    m_seenStamp.clear();
    m_dirty.clear();
    m_dirtyList.clear();
    m_freeProxies.clear();
    std::fill(m_proxyOfId.begin(), m_proxyOfId.end(), kNull);
    m_proxyOfDense.clear();
    m_pairs.clear();
    m_relocated = 0;
}

Aabb DynamicTree::fatten(const Aabb& box) const {
    // Rounding of x - m (m >= 0) never exceeds x, so the fat box always contains the box.
    return {box.minX - m_margin, box.minY - m_margin, box.maxX + m_margin, box.maxY + m_margin};
}

std::uint32_t DynamicTree::height() const {
    return m_root == kNull ? 0u : static_cast<std::uint32_t>(m_nodes[m_root].height);
}

double DynamicTree::innerPerimeterSum() const {
    double sum = 0.0;
    for (const Node& node : m_nodes)
        if (node.height > 0) sum += halfPerimeter(node.box);
    return sum;
}

// ---- entities: proxies, the dense order, and the per-step diff ---------------------------

void DynamicTree::markDirty(std::uint32_t proxy) {
    if (m_dirty[proxy]) return;
    m_dirty[proxy] = 1;
    m_dirtyList.push_back(proxy);
}

std::uint32_t DynamicTree::createProxy(std::uint32_t id, const Aabb& box) {
    std::uint32_t proxy;
    if (!m_freeProxies.empty()) {
        proxy = m_freeProxies.back();
        m_freeProxies.pop_back();
    } else {
        proxy = static_cast<std::uint32_t>(m_proxies.size());
        m_proxies.push_back({});
        m_fatBoxes.push_back({});
        m_proxyId.push_back(0);
        m_seenStamp.push_back(0);
        m_dirty.push_back(0);
    }
    const std::uint32_t leaf = allocateNode();
    m_nodes[leaf] = {fatten(box), kNull, kNull, proxy, 0};
    m_fatBoxes[proxy] = m_nodes[leaf].box;
    m_proxies[proxy] = {box, 0, leaf};
    m_proxyId[proxy] = id;
    m_seenStamp[proxy] = m_stamp;
    m_proxyOfId[id] = proxy;
    insertLeaf(leaf);
    markDirty(proxy);
    ++m_stats.inserted;
    ++m_relocated;
    return proxy;
}

void DynamicTree::destroyProxy(std::uint32_t proxy) {
    const std::uint32_t leaf = m_proxies[proxy].node;
    removeLeaf(leaf);
    freeNode(leaf);
    m_proxies[proxy].node = kNull;
    m_proxyOfId[m_proxyId[proxy]] = kNull;
    m_freeProxies.push_back(proxy);
    markDirty(proxy);  // its pairs go at the next findPairs, even if the slot is reused by then
    ++m_stats.removed;
}

void DynamicTree::reinsert(std::uint32_t proxy) {
    const std::uint32_t leaf = m_proxies[proxy].node;
    const std::uint32_t parent = m_nodes[leaf].parent;
    const std::uint32_t grandparent = parent == kNull ? kNull : m_nodes[parent].parent;
    removeLeaf(leaf);
    const Aabb fat = fatten(m_proxies[proxy].box);
    m_nodes[leaf].box = fat;
    m_fatBoxes[proxy] = fat;
    // A box that left its fat box has usually not gone far: search for the sibling below the
    // nearest ancestor that holds the new fat box (as Bullet's btDbvt looks a few levels up),
    // not from the root. The search is a few levels long instead of the height; in the bench
    // scenes the tree's total perimeter stays within 10% of what searches from the root give.
    std::uint32_t start = grandparent;
    while (start != kNull && !containsBox(m_nodes[start].box, fat)) start = m_nodes[start].parent;
    insertLeaf(leaf, start);
    markDirty(proxy);
    ++m_stats.reinserted;
    ++m_relocated;
}

void DynamicTree::removeDense(std::uint32_t dense) {
    const std::uint32_t last = m_proxyOfDense.back();
    m_proxyOfDense[dense] = last;
    m_proxies[last].dense = dense;
    m_proxyOfDense.pop_back();
}

void DynamicTree::growIdMap(std::uint32_t largestId) {
    if (largestId < m_proxyOfId.size()) return;
    const std::size_t old = m_proxyOfId.size();
    resizeWithHeadroom(m_proxyOfId, std::size_t{largestId} + 1);
    std::fill(m_proxyOfId.begin() + static_cast<std::ptrdiff_t>(old), m_proxyOfId.end(), kNull);
}

void DynamicTree::checkBox(const Aabb& box) {
    if (!box.isFinite() || box.minX > box.maxX || box.minY > box.maxY)
        throw std::invalid_argument("tree boxes must be finite with min <= max");
}

// The edits go through the same id slots as update(), so the two can be mixed.
void DynamicTree::insert(std::uint32_t id, const Aabb& box) {
    checkBox(box);
    const std::uint32_t slot = idSlots().insert(id);
    growIdMap(slot);
    const std::uint32_t proxy = createProxy(slot, box);
    m_proxies[proxy].dense = leafCount();
    m_proxyOfDense.push_back(proxy);
}

void DynamicTree::remove(std::uint32_t id) {
    const std::uint32_t proxy = m_proxyOfId[idSlots().remove(id)];
    const std::uint32_t dense = m_proxies[proxy].dense;
    destroyProxy(proxy);
    removeDense(dense);
}

bool DynamicTree::move(std::uint32_t id, const Aabb& box) {
    checkBox(box);
    const auto slot = idSlots().slotOf(id);
    if (!slot) throw std::invalid_argument("entity " + std::to_string(id) + " is not in the tree");
    const std::uint32_t proxy = m_proxyOfId[*slot];
    m_proxies[proxy].box = box;
    if (containsBox(m_fatBoxes[proxy], box)) return false;
    reinsert(proxy);
    return true;
}

void DynamicTree::doUpdate(const BoxView& boxes) {
    m_counters = {};
    m_stats = {};
    m_nodesVisited = 0;
    if (++m_stamp == 0) {
        std::fill(m_seenStamp.begin(), m_seenStamp.end(), 0);
        m_stamp = 1;
    }
    // 1. Mark the ids still present; note the new ones. Nothing changes shape yet, so a
    //    repeated id can be refused with the tree as it was.
    std::uint32_t largestId = 0;
    for (std::uint32_t i = 0; i < boxes.count; ++i) largestId = std::max(largestId, boxes.ids[i]);
    if (boxes.count > 0) growIdMap(largestId);
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        std::uint32_t& slot = m_proxyOfId[boxes.ids[i]];
        const bool repeated = slot == kPendingNew || (slot != kNull && m_seenStamp[slot] == m_stamp);
        if (repeated) {
            for (std::uint32_t k = 0; k < i; ++k)
                if (m_proxyOfId[boxes.ids[k]] == kPendingNew) m_proxyOfId[boxes.ids[k]] = kNull;
            throw std::invalid_argument("entity id " + std::to_string(boxes.ids[i]) + " appears twice");
        }
        if (slot == kNull) {
            slot = kPendingNew;
        } else {
            m_seenStamp[slot] = m_stamp;
        }
    }
    // 2. Remove the ids that vanished. Backwards, so the entry swapped in was already seen.
    for (std::size_t k = m_proxyOfDense.size(); k-- > 0;) {
        const std::uint32_t proxy = m_proxyOfDense[k];
        if (m_seenStamp[proxy] == m_stamp) continue;
        destroyProxy(proxy);
        removeDense(static_cast<std::uint32_t>(k));
    }
    // 3. Insert the new ids; reinsert a leaf only when its box left its fat box.
    resizeWithHeadroom(m_proxyOfDense, boxes.count);
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        const Aabb box = boxes.box(i);
        std::uint32_t proxy = m_proxyOfId[boxes.ids[i]];
        if (proxy == kPendingNew) {
            proxy = createProxy(boxes.ids[i], box);
        } else {
            m_proxies[proxy].box = box;
            if (!containsBox(m_fatBoxes[proxy], box)) reinsert(proxy);
        }
        m_proxies[proxy].dense = i;
        m_proxyOfDense[i] = proxy;
    }
}

// ---- the tree: pool, insertion by SAH, removal, rotations -------------------------------

std::uint32_t DynamicTree::allocateNode() {
    if (m_freeNode == kNull) {
        m_nodes.push_back({{}, kNull, kNull, kNull, 0});
        return static_cast<std::uint32_t>(m_nodes.size() - 1);
    }
    const std::uint32_t node = m_freeNode;
    m_freeNode = m_nodes[node].parent;
    m_nodes[node] = {{}, kNull, kNull, kNull, 0};
    return node;
}

void DynamicTree::freeNode(std::uint32_t node) {
    m_nodes[node] = {{}, m_freeNode, kNull, kNull, -1};
    m_freeNode = node;
}

std::uint32_t DynamicTree::findBestSibling(const Aabb& box, std::uint32_t start) {
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

void DynamicTree::replaceChild(std::uint32_t parent, std::uint32_t oldChild, std::uint32_t newChild) {
    if (parent == kNull) {
        m_root = newChild;
    } else if (m_nodes[parent].child1 == oldChild) {
        m_nodes[parent].child1 = newChild;
    } else {
        m_nodes[parent].child2 = newChild;
    }
    m_nodes[newChild].parent = parent;
}

void DynamicTree::insertLeaf(std::uint32_t leaf, std::uint32_t start) {
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

void DynamicTree::removeLeaf(std::uint32_t leaf) {
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

void DynamicTree::refit(std::uint32_t index) {
    Node& node = m_nodes[index];
    const Node& a = m_nodes[node.child1];
    const Node& b = m_nodes[node.child2];
    node.box = unite(a.box, b.box);
    node.height = 1 + std::max(a.height, b.height);
}

void DynamicTree::fixUpwards(std::uint32_t index) {
    // Once a node keeps its box and height, every ancestor keeps theirs: stop there.
    while (index != kNull) {
        ++m_nodesVisited;
        if (!rebalance(index)) return;
        index = m_nodes[index].parent;
    }
}

bool DynamicTree::rebalance(std::uint32_t a) {
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
        ++m_stats.rotations;
    }
    const Aabb oldBox = m_nodes[a].box;
    const std::int32_t oldHeight = m_nodes[a].height;
    refit(a);
    return best.x != kNull || m_nodes[a].height != oldHeight || !sameBox(m_nodes[a].box, oldBox);
}

// ---- pairs ------------------------------------------------------------------------------

void DynamicTree::reserveStack() {
    // A depth-first walk holds at most one pending sibling per level, plus the root.
    resizeWithHeadroom(m_stack, std::size_t{height()} + 2);
}

template <typename OnLeaf>
std::uint64_t DynamicTree::queryTree(const Aabb& box, OnLeaf onLeaf) {
    if (m_root == kNull) return 0;
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

void DynamicTree::findPairs(std::vector<Pair>& out) {
    out.clear();
    std::uint64_t tests = 0;
    const auto emit = [&](std::uint32_t p, std::uint32_t q) {
        ++tests;
        if (touches(m_proxies[p].box, m_proxies[q].box)) out.push_back(makePair(m_proxies[p].dense, m_proxies[q].dense));
    };
    // Pairs of untouched leaves still overlap by their fat boxes (neither fat box changed).
    std::size_t kept = 0;
    for (const ProxyPair pair : m_pairs) {
        if (m_dirty[pair.a] | m_dirty[pair.b]) continue;
        m_pairs[kept++] = pair;
        emit(pair.a, pair.b);
    }
    m_pairs.resize(kept);
    // Touched leaves find their fat pairs anew; two touched leaves pair from the larger proxy.
    reserveStack();
    for (const std::uint32_t proxy : m_dirtyList) {
        const std::uint32_t leaf = m_proxies[proxy].node;
        if (leaf == kNull) continue;  // removed
        m_nodesVisited += queryTree(m_nodes[leaf].box, [&](std::uint32_t other) {
            if (other == proxy || (m_dirty[other] && other < proxy)) return;
            m_pairs.push_back({proxy, other});
            emit(proxy, other);
        });
    }
    for (const std::uint32_t proxy : m_dirtyList) m_dirty[proxy] = 0;
    m_dirtyList.clear();
    // Reinsertions scatter nodes over the pool; renumber once they add up to half the tree.
    if (2 * m_relocated > leafCount()) defragment();

    m_counters.candidatePairs = out.size();
    m_counters.pairTests = tests;
    m_counters.cellsTouched = m_nodesVisited;
    m_counters.bytesHeld = bytesHeld(m_nodes) + bytesHeld(m_proxies) + bytesHeld(m_fatBoxes) + bytesHeld(m_proxyId) +
                           bytesHeld(m_seenStamp) + bytesHeld(m_dirty) + bytesHeld(m_dirtyList) +
                           bytesHeld(m_freeProxies) + bytesHeld(m_proxyOfId) + bytesHeld(m_proxyOfDense) +
                           bytesHeld(m_pairs) + bytesHeld(m_stack) + bytesHeld(m_rayStack) + bytesHeld(m_nodeOrder) +
                           bytesHeld(m_nodeRemap) + bytesHeld(m_nodeScratch);
}

void DynamicTree::defragment() {
    // Renumber the nodes in depth-first order, dropping the free ones: a subtree then sits in
    // one stretch of memory, and a query walks it with far fewer cache misses. (Proxies keep
    // their numbers: update() reads them in entity order.)
    m_relocated = 0;
    if (m_root == kNull) return;
    resizeWithHeadroom(m_nodeRemap, m_nodes.size());
    m_nodeOrder.clear();
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
        if (node.child1 == kNull) {
            m_proxies[node.child2].node = static_cast<std::uint32_t>(k);
        } else {
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

void DynamicTree::forEachCell(const std::function<void(const CellView&)>& visit) const {
    if (m_root == kNull) return;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{m_root, 0u}};  // (node, depth)
    while (!stack.empty()) {
        const auto [index, depth] = stack.back();
        stack.pop_back();
        const Node& node = m_nodes[index];
        CellView view;
        view.bounds = node.box;
        view.level = depth;
        if (node.child1 == kNull) {
            view.kind = CellView::Kind::FatBox;
            view.count = 1;
        } else {
            view.kind = CellView::Kind::Node;
            stack.push_back({node.child1, depth + 1});
            stack.push_back({node.child2, depth + 1});
        }
        visit(view);
    }
}

std::string DynamicTree::validate() const {
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
                const std::uint32_t proxy = node.child2;
                if (proxy >= m_proxies.size() || m_proxies[proxy].node != index)
                    return at("leaf and proxy disagree at", index);
                if (node.height != 0) return at("leaf with a height:", index);
                if (!containsBox(node.box, m_proxies[proxy].box)) return at("fat box misses its box at leaf", index);
                if (!sameBox(node.box, m_fatBoxes[proxy])) return at("proxy's copy of the fat box is stale at leaf", index);
                ++leaves;
                continue;
            }
            if (node.child1 >= nodeCount || node.child2 >= nodeCount || node.child1 == node.child2)
                return at("bad children at node", index);
            const Node& a = m_nodes[node.child1];
            const Node& b = m_nodes[node.child2];
            if (a.parent != index || b.parent != index) return at("child's parent link broken under", index);
            if (!sameBox(node.box, unite(a.box, b.box))) return at("box is not the union of its children at", index);
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

    if (leaves != leafCount()) return "leaf count " + std::to_string(leaves) + " != entities " + std::to_string(leafCount());
    for (std::uint32_t i = 0; i < leafCount(); ++i) {
        const std::uint32_t proxy = m_proxyOfDense[i];
        if (proxy >= m_proxies.size() || m_proxies[proxy].node == kNull) return at("dense index without a leaf:", i);
        if (m_proxies[proxy].dense != i) return at("proxy disagrees on dense index", i);
        const std::uint32_t id = m_proxyId[proxy];
        if (id >= m_proxyOfId.size() || m_proxyOfId[id] != proxy) return at("id map disagrees at dense index", i);
    }
    std::vector<std::uint8_t> isFree(m_proxies.size(), 0);
    for (const std::uint32_t proxy : m_freeProxies) {
        if (proxy >= m_proxies.size() || m_proxies[proxy].node != kNull || isFree[proxy])
            return at("free proxy list broken at", proxy);
        isFree[proxy] = 1;
    }
    if (m_freeProxies.size() + leafCount() != m_proxies.size()) return "proxies neither live nor free";
    std::size_t dirty = 0;
    for (const std::uint8_t d : m_dirty) dirty += d;
    if (dirty != m_dirtyList.size()) return "dirty list and flags disagree";

    // The pair list: exactly the pairs of untouched leaves whose fat boxes overlap, once each.
    const auto live = [&](std::uint32_t p) { return p < m_proxies.size() && m_proxies[p].node != kNull; };
    const auto fat = [&](std::uint32_t p) { return m_nodes[m_proxies[p].node].box; };
    std::vector<std::pair<std::uint32_t, std::uint32_t>> kept;
    for (const ProxyPair& pair : m_pairs) {
        if (pair.a >= m_dirty.size() || pair.b >= m_dirty.size()) return "pair names no proxy";
        if (m_dirty[pair.a] || m_dirty[pair.b]) continue;
        if (!live(pair.a) || !live(pair.b) || pair.a == pair.b) return "pair of a dead proxy or a proxy with itself";
        if (!overlaps(fat(pair.a), fat(pair.b))) return "pair whose fat boxes do not overlap";
        kept.push_back(std::minmax(pair.a, pair.b));
    }
    std::sort(kept.begin(), kept.end());
    if (std::adjacent_find(kept.begin(), kept.end()) != kept.end()) return "pair listed twice";
    std::size_t expected = 0;
    for (std::uint32_t p = 0; p < m_proxies.size(); ++p) {
        if (!live(p) || m_dirty[p]) continue;
        for (std::uint32_t q = p + 1; q < m_proxies.size(); ++q) {
            if (!live(q) || m_dirty[q] || !overlaps(fat(p), fat(q))) continue;
            ++expected;
            if (!std::binary_search(kept.begin(), kept.end(), std::pair{p, q})) return at("fat pair missing for proxy", p);
        }
    }
    if (expected != kept.size()) return "pair count differs";
    return {};
}

}  // namespace ro

// Queries descend the fat boxes and test the exact box at the leaves; a leaf is met once.

namespace ro {

QueryCost DynamicTree::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    QueryCost cost;
    reserveStack();
    cost.visited = queryTree(box, [&](std::uint32_t proxy) {
        ++cost.tests;
        if (overlaps(m_proxies[proxy].box, box)) out.push_back(m_proxies[proxy].dense);
    });
    return cost;
}

QueryCost DynamicTree::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    QueryCost cost;
    if (m_root == kNull) return cost;
    reserveStack();
    std::size_t top = 0;
    m_stack[top++] = m_root;
    while (top > 0) {
        const Node& node = m_nodes[m_stack[--top]];
        ++cost.visited;
        // segmentEntry is monotonic in the box, so a node it misses holds no box it hits.
        if (!segmentEntry(node.box, segment)) continue;
        if (node.child1 != kNull) {
            m_stack[top++] = node.child1;
            m_stack[top++] = node.child2;
            continue;
        }
        const Proxy& proxy = m_proxies[node.child2];
        ++cost.tests;
        if (const auto t = segmentEntry(proxy.box, segment)) out.push_back({proxy.dense, *t});
    }
    return cost;
}

QueryCost DynamicTree::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    QueryCost cost;
    if (m_root == kNull) return cost;
    reserveStack();
    // Entry t of a node never exceeds that of a box below it: prune by the best t so far, and
    // visit the nearer child first so the best t drops early.
    const auto enter = [&](std::uint32_t index) { return segmentEntry(m_nodes[index].box, segment); };
    std::vector<PendingNode>& stack = m_rayStack;
    resizeWithHeadroom(stack, m_stack.size());
    std::size_t top = 0;
    if (const auto t = enter(m_root)) stack[top++] = {m_root, *t};
    ++cost.visited;
    while (top > 0) {
        const PendingNode pending = stack[--top];
        if (hit && pending.t > hit->t) continue;
        const Node& node = m_nodes[pending.node];
        if (node.child1 == kNull) {
            const Proxy& proxy = m_proxies[node.child2];
            ++cost.tests;
            const auto t = segmentEntry(proxy.box, segment);
            if (t) keepNearest(hit, {proxy.dense, *t});
            continue;
        }
        cost.visited += 2;
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
    return cost;
}

}  // namespace ro
