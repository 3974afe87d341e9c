/// DynamicTree's pair cache (the kept fat pairs and still pairs, in findPairs) and the movers' sweep.

#include "broadphase/tree/tree.h"

#include <algorithm>
#include <limits>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "broadphase/threads.h"
#include "core/box_helpers.h"
#include "core/insertion_sort.h"
#include "core/buffers.h"

namespace ro {

// As the grid's (grid.cpp): an arena of its own, so `threads` bounds this tree's work alone.
struct DynamicTree::Parallel {
    /// A thread's lists: the chunks it ran append to them, kept between steps, so their room
    /// follows the step's pairs, not how many chunks there are.
    struct Lists {
        std::vector<ProxyPair> pairs;      ///< the fat pairs its chunks found
        std::vector<Pair> hits;            ///< those whose boxes overlap
        std::vector<std::uint32_t> lanes;  ///< queryMany's stacks
    };
    struct Chunk {  ///< where a chunk's lists went
        std::uint32_t thread;
        std::size_t pairsBegin, pairsEnd, hitsBegin, hitsEnd;
        std::uint64_t tests, visited;
    };
    explicit Parallel(int threads) : threads(threads), arena(threads), lists(static_cast<std::size_t>(threads)) {}
    int threads;
    tbb::task_arena arena;
    std::vector<Lists> lists;  ///< by thread index in the arena
    std::vector<Chunk> chunks;
};

DynamicTree::DynamicTree() : Technique(kParameters) {}
DynamicTree::~DynamicTree() = default;

void DynamicTree::applyThreads(const Settings& settings) {
    fitParallel(m_parallel, settings);
}

std::uint64_t DynamicTree::queryMovers(std::vector<Pair>& out) {
    const auto queries = static_cast<std::uint32_t>(m_queryMovers.size());
    const std::uint32_t chunks = (queries + kQueriesPerChunk - 1) / kQueriesPerChunk;
    // Chunk c's queries: its movers (queryMany's k counts from the chunk's first) look up the
    // movers' tree, listing the new fat pairs in `pairs` and those that overlap in `hits`.
    // Reads the tree, the proxies and the flags; writes only its movers' neighbour counts.
    // `lanes`: queryMany's stacks, the tree's own when null (one thread).
    const auto queryChunk = [&](std::uint32_t c, std::vector<ProxyPair>& pairs, std::vector<Pair>& hits,
                                std::vector<std::uint32_t>* lanes, std::uint64_t& tests) {
        const std::uint32_t first = c * kQueriesPerChunk;
        const std::uint32_t count = std::min(kQueriesPerChunk, queries - first);
        const std::uint32_t* movers = m_queryMovers.data() + first;
        const auto fatBoxOf = [&](std::uint32_t k) { return m_fatBoxes[movers[k]]; };
        const auto onLeaf = [&](std::uint32_t k, std::uint32_t other) {
            const std::uint32_t proxy = movers[k];
            if (other == proxy) return;
            m_neighbours[proxy] += m_neighbours[proxy] < 255;
            // Two movers: only a filter can refuse them (the rule's arrays are not read without).
            if ((m_dirty[other] && other < proxy) || (m_filtersSeen && !mayPair(proxy, other))) return;
            pairs.push_back({proxy, other});
            ++tests;
            if (touches(m_proxies[proxy].box, m_proxies[other].box))
                hits.push_back(makePair(m_proxies[proxy].dense, m_proxies[other].dense));
        };
        const AabbTree& tree = m_trees[kMoving];
        return lanes ? tree.queryMany(count, fatBoxOf, onLeaf, *lanes) : m_trees[kMoving].queryMany(count, fatBoxOf, onLeaf);
    };
    std::uint64_t tests = 0;
    if (!m_parallel || queries < kMinParallelQueries) {
        // The movers' queries go together, so that their cache misses overlap.
        for (std::uint32_t c = 0; c < chunks; ++c)
            m_nodesVisited += queryChunk(c, m_pairs, out, nullptr, tests);
        return tests;
    }
    Parallel& par = *m_parallel;
    reserveWithHeadroom(par.chunks, chunks);
    par.chunks.resize(chunks);
    for (Parallel::Lists& lists : par.lists) {
        lists.pairs.clear();
        lists.hits.clear();
    }
    par.arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, chunks, 1), [&](const tbb::blocked_range<std::uint32_t>& r) {
            const auto thread = static_cast<std::uint32_t>(tbb::this_task_arena::current_thread_index());
            Parallel::Lists& lists = par.lists[thread];
            for (std::uint32_t c = r.begin(); c != r.end(); ++c) {
                Parallel::Chunk& chunk = par.chunks[c];
                chunk = {thread, lists.pairs.size(), 0, lists.hits.size(), 0, 0, 0};
                chunk.visited = queryChunk(c, lists.pairs, lists.hits, &lists.lanes, chunk.tests);
                chunk.pairsEnd = lists.pairs.size();
                chunk.hitsEnd = lists.hits.size();
            }
        });
    });
    // The chunks' lists in chunk order, whichever thread ran them: the serial order.
    std::size_t pairCount = 0, hitCount = 0;
    for (const Parallel::Lists& lists : par.lists) {
        pairCount += lists.pairs.size();
        hitCount += lists.hits.size();
    }
    reserveWithHeadroom(m_pairs, m_pairs.size() + pairCount);
    reserveWithHeadroom(out, out.size() + hitCount);
    for (const Parallel::Chunk& chunk : par.chunks) {
        const Parallel::Lists& lists = par.lists[chunk.thread];
        const auto at = [](const auto& v, std::size_t k) { return v.begin() + static_cast<std::ptrdiff_t>(k); };
        m_pairs.insert(m_pairs.end(), at(lists.pairs, chunk.pairsBegin), at(lists.pairs, chunk.pairsEnd));
        out.insert(out.end(), at(lists.hits, chunk.hitsBegin), at(lists.hits, chunk.hitsEnd));
        tests += chunk.tests;
        m_nodesVisited += chunk.visited;
    }
    // Each thread's lists keep room for half again the step's whole: however the chunks fall
    // to the threads next step, a step like this one allocates nothing.
    for (Parallel::Lists& lists : par.lists) {
        reserveWithHeadroom(lists.pairs, pairCount);
        reserveWithHeadroom(lists.hits, hitCount);
    }
    return tests;
}

[[gnu::hot]] void DynamicTree::findPairs(std::vector<Pair>& out) {
    out.clear();
    const bool stillsTouched = m_staticsChanged;  // else no static is dirty
    // A static that changed queries the movers' tree, and a listing afresh descends it.
    if (stillsTouched || m_pairsAnew) settleLeaving(Settle::Now);
    m_cellDenseValid &= !m_denseChanged;
    keepStaticCells();
    // Without statics no mover keeps a still reach (a pass less over every entity a step);
    // when the first statics come, every mover takes one.
    const bool anyStatics = m_trees[kStill].leafCount() > 0;
    if (anyStatics && !m_reachKept)
        for (std::uint32_t proxy = 0; proxy < m_proxies.size(); ++proxy)
            if (m_proxies[proxy].leaf != kNull && m_treeOf[proxy] == kMoving) reachStatics(proxy, {});
    m_reachKept = anyStatics;
    chooseMoverPairing();
    std::uint64_t tests = 0;
    const auto emit = [&](std::uint32_t p, std::uint32_t q) {
        ++tests;
        if (touches(m_proxies[p].box, m_proxies[q].box)) out.push_back(makePair(m_proxies[p].dense, m_proxies[q].dense));
    };
    // Lists a mover and a static whose box its still reach touches (stillDense: kNull when not
    // known without reading the static's record), and emits them if the boxes overlap.
    const auto pairWithStill = [&](std::uint32_t mover, std::uint32_t still, const Aabb& stillBox, std::uint32_t stillDense) __attribute__((hot)) {
        if (!touches(m_stillReach[mover], stillBox) || (m_filtersSeen && !mayPair(mover, still))) return;
        StillPair& pair = m_stillPairs.emplace_back(StillPair{mover, still, stillBox, stillDense});
        ++tests;
        if (!touches(m_proxies[mover].box, stillBox)) return;
        if (pair.stillDense == kNull) pair.stillDense = m_proxies[still].dense;
        out.push_back(makePair(m_proxies[mover].dense, pair.stillDense));
    };
    if (m_pairsAnew) {
        // After a bulk load or a rebuild: every pair from the trees descended against
        // themselves and each other (statics never pair with statics), not a query per leaf.
        m_pairsAnew = false;
        m_pairs.clear();
        m_stillPairs.clear();
        std::fill(m_neighbours.begin(), m_neighbours.end(), std::uint8_t{0});
        if (!m_sweepMovers) m_nodesVisited += m_trees[kMoving].selfPairs([&](std::uint32_t p, std::uint32_t q) {
            m_neighbours[p] += m_neighbours[p] < 255;
            m_neighbours[q] += m_neighbours[q] < 255;
            if (m_filtersSeen && !mayPair(p, q)) return;  // two movers: only a filter can refuse them
            m_pairs.push_back({p, q});
            emit(p, q);
        });
        m_nodesVisited += m_trees[kMoving].pairsWith(m_trees[kStill], [&](std::uint32_t mover, std::uint32_t still) {
            pairWithStill(mover, still, m_proxies[still].box, m_proxies[still].dense);
        });
    } else {
        // Pairs of untouched leaves still overlap by their fat boxes (neither fat box changed),
        // and a mover whose still reach did not change still reaches its statics.
        std::size_t kept = 0, hits = 0;
        const std::size_t pairCount = m_pairs.size();
        // As long as the pairs' room, never shrunk: it grows when they do, and fills no step.
        if (m_pairHits.size() < m_pairs.capacity()) m_pairHits.resize(m_pairs.capacity());
        for (std::size_t k = 0; k < pairCount; ++k) {
            // The two proxies of a pair some way ahead are fetched now: pairs name proxies
            // anywhere in the pool, and each read would otherwise wait on a miss.
            if (k + kPairLookahead < pairCount) {
                const ProxyPair ahead = m_pairs[k + kPairLookahead];
                __builtin_prefetch(&m_proxies[ahead.a]);
                __builtin_prefetch(&m_proxies[ahead.a].box.maxY);
                __builtin_prefetch(&m_proxies[ahead.b]);
                __builtin_prefetch(&m_proxies[ahead.b].box.maxY);
            }
            // Without a branch on the test (on mixed sizes half the fat pairs overlap, a coin
            // toss to the predictor): each pair's dense pair is written at the end of
            // m_pairHits, which advances if the boxes overlap.
            const ProxyPair pair = m_pairs[k];
            const Proxy& a = m_proxies[pair.a];
            const Proxy& b = m_proxies[pair.b];
            const bool stays = !(m_dirty[pair.a] | m_dirty[pair.b]);
            m_pairs[kept] = pair;
            m_pairHits[hits] = makePair(a.dense, b.dense);
            hits += stays & touches(a.box, b.box);
            kept += stays;
        }
        tests += kept;
        m_pairs.resize(kept);
        out.insert(out.end(), m_pairHits.begin(), m_pairHits.begin() + static_cast<std::ptrdiff_t>(hits));
        // Without branches on whether a pair stays and whether it overlaps (a tenth of the kept
        // pairs overlap, in no order the predictor can learn): each pair is written at the
        // kept end, which advances if it stays, and the overlapping ones are emitted after.
        kept = 0;
        hits = 0;
        const std::size_t stillCount = m_stillPairs.size();
        if (m_stillHits.size() < m_stillPairs.capacity()) m_stillHits.resize(m_stillPairs.capacity());
        for (std::size_t k = 0; k < stillCount; ++k) {
            StillPair pair = m_stillPairs[k];
            const bool stays = !(m_stillDirty[pair.mover] | (stillsTouched && m_dirty[pair.still]));
            if (m_denseChanged) pair.stillDense = kNull;
            m_stillPairs[kept] = pair;
            m_stillHits[hits] = static_cast<std::uint32_t>(kept);
            hits += stays & touches(m_proxies[pair.mover].box, pair.stillBox);
            kept += stays;
        }
        tests += kept;
        m_stillPairs.resize(kept);
        for (std::size_t h = 0; h < hits; ++h) {
            StillPair& pair = m_stillPairs[m_stillHits[h]];
            if (pair.stillDense == kNull) pair.stillDense = m_proxies[pair.still].dense;
            out.push_back(makePair(m_proxies[pair.mover].dense, pair.stillDense));
        }
        // Touched movers find their fat pairs among the movers (two touched ones pair from the
        // larger proxy); a touched static, the movers whose still reach it touches (but those
        // whose reach changed too, which find it below).
        m_queryMovers.clear();
        reserveWithHeadroom(m_queryMovers, m_proxies.size());  // a burst must not allocate
        for (const std::uint32_t proxy : m_dirtyList) {
            if (m_proxies[proxy].leaf == kNull) continue;  // removed
            if (m_isStatic[proxy]) {
                const Aabb& box = m_proxies[proxy].box;
                m_nodesVisited += m_trees[kMoving].query(box, [&](std::uint32_t mover) {
                    if (!m_stillDirty[mover]) pairWithStill(mover, proxy, box, m_proxies[proxy].dense);
                });
                continue;
            }
            if (m_sweepMovers) continue;  // the sweep below pairs the movers
            m_queryMovers.push_back(proxy);
            m_neighbours[proxy] = 0;
        }
        tests += queryMovers(out);
        // Movers whose still reach changed find their statics: in the grid of statics where
        // it stands (the static's record is then read only for a filter or an overlap), else
        // in the static tree.
        m_reachMovers.clear();
        m_reaches.clear();
        for (const std::uint32_t mover : m_stillDirtyList) {
            if (m_proxies[mover].leaf == kNull || m_isStatic[mover]) continue;
            if (m_staticCells.empty()) {
                m_nodesVisited += m_trees[kStill].query(m_stillReach[mover], [&](std::uint32_t still) {
                    pairWithStill(mover, still, m_proxies[still].box, m_proxies[still].dense);
                });
            } else {
                m_reachMovers.push_back(mover);
                m_reaches.push_back(m_stillReach[mover]);
            }
        }
        // The grid's queries go together, so that their cache misses overlap.
        m_nodesVisited += m_staticCells.queryAll(m_reaches, m_rowScans, [&](std::uint32_t k, const StaticCells::Static& still) {
            pairWithStill(m_reachMovers[k], still.value, still.box, m_cellDenseValid ? still.tag : kNull);
        });
    }
    if (m_sweepMovers) tests += sweepMovers(out);
    for (const std::uint32_t proxy : m_stillDirtyList) m_stillDirty[proxy] = 0;
    m_stillDirtyList.clear();
    for (const std::uint32_t proxy : m_dirtyList) m_dirty[proxy] = 0;
    m_dirtyList.clear();
    m_denseChanged = false;
    defragmentIfScattered(kMoving);
    defragmentIfScattered(kStill);

    m_counters.candidatePairs = out.size();
    m_counters.pairTests = tests;
    m_counters.elementsVisited = m_nodesVisited + m_trees[kMoving].nodesVisited() + m_trees[kStill].nodesVisited();
    m_counters.bytesHeld = m_trees[kMoving].bytesHeld() + m_trees[kStill].bytesHeld() + bytesHeld(m_treeOf) +
                           bytesHeld(m_proxies) + bytesHeld(m_fatBoxes) + bytesHeld(m_reinsertMotion) + bytesHeld(m_placedAt) +
                           bytesHeld(m_reachSteps) + bytesHeld(m_stillHits) + bytesHeld(m_pairHits) +
                           bytesHeld(m_neighbours) + bytesHeld(m_proxyId) + m_diff.bytesHeld() +
                           bytesHeld(m_isStatic) + bytesHeld(m_category) + bytesHeld(m_mask) + bytesHeld(m_dirty) +
                           bytesHeld(m_dirtyList) + bytesHeld(m_stillReach) + bytesHeld(m_stillDirty) +
                           bytesHeld(m_stillDirtyList) +
                           bytesHeld(m_freeProxies) + bytesHeld(m_proxyOfId) + bytesHeld(m_proxyOfDense) +
                           bytesHeld(m_pairs) + bytesHeld(m_stillPairs) + m_staticCells.bytesHeld() + bytesHeld(m_cellStatics) +
                           bytesHeld(m_leaving) + bytesHeld(m_leavingState) + bytesHeld(m_reachMovers) + bytesHeld(m_queryMovers) +
                           bytesHeld(m_reaches) + bytesHeld(m_sweep) + bytesHeld(m_sweepHits) +
                           bytesHeld(m_rowScans);
    if (m_parallel) {
        for (const Parallel::Lists& lists : m_parallel->lists)
            m_counters.bytesHeld += bytesHeld(lists.pairs) + bytesHeld(lists.hits) + bytesHeld(lists.lanes);
        m_counters.bytesHeld += bytesHeld(m_parallel->lists) + bytesHeld(m_parallel->chunks);
    }
}

[[gnu::hot]] void DynamicTree::chooseMoverPairing() {
    const std::uint64_t movers = m_trees[kMoving].leafCount(), statics = m_trees[kStill].leafCount();
    // Entered and left at different counts, so that a scene at the threshold does not
    // switch (and relist every pair) each step.
    const bool enter = movers > 0 && movers <= kSweptMoversMax && movers * kStaticsPerSweptMover <= statics;
    const bool leave = movers > kSweptMoversMax + kSweptMoversMax / 2 || movers * kStaticsPerSweptMoverToStay > statics;
    const bool sweep = m_sweepMovers ? !leave : enter;
    if (sweep == m_sweepMovers) return;
    m_sweepMovers = sweep;
    m_moverOrderStale = true;
    // No leaf waits: each is given its fat box below, or waited only while the movers swept.
    for (const Leaving& leaving : m_leaving) m_leavingState[leaving.proxy] = kUnlisted;
    m_leaving.clear();
    if (sweep) {
        m_pairs.clear();
        // No fat pairs, no neighbours: a steady mover takes the long reach.
        std::fill(m_neighbours.begin(), m_neighbours.end(), std::uint8_t{0});
        return;
    }
    // Back to kept fat pairs: the movers' fat boxes shrink to the usual margin (their tree is
    // built anew around them), their still reaches stay inside them, and every pair is listed
    // afresh.
    for (std::uint32_t proxy = 0; proxy < m_proxies.size(); ++proxy) {
        if (m_proxies[proxy].leaf == kNull || m_treeOf[proxy] != kMoving) continue;
        m_fatBoxes[proxy] = fatten(proxy, m_proxies[proxy].box, {});
        m_trees[kMoving].restage(m_proxies[proxy].leaf, m_fatBoxes[proxy]);
        if (m_reachKept) reachStatics(proxy, {});
    }
    renumber(kMoving, Rebuild::TopDown);
    m_pairsAnew = true;
}

[[gnu::hot]] std::uint64_t DynamicTree::sweepMovers(std::vector<Pair>& out) {
    constexpr float kPastAll = std::numeric_limits<float>::infinity();
    if (m_moverOrderStale) {
        m_moverOrderStale = false;
        m_sweep.clear();
        reserveWithHeadroom(m_sweep, m_trees[kMoving].leafCount() + kSweepWindow);
        Aabb spread{kPastAll, kPastAll, -kPastAll, -kPastAll};
        for (std::uint32_t proxy = 0; proxy < m_proxies.size(); ++proxy) {
            if (m_proxies[proxy].leaf == kNull || m_treeOf[proxy] != kMoving) continue;
            m_sweep.push_back({0.0f, 0.0f, 0.0f, 0.0f, proxy});
            spread = unite(spread, m_proxies[proxy].box);
        }
        // Along the axis they spread over more: movers in a column must not all overlap in x.
        m_sweepAlongY = spread.height() > spread.width();
        // Past the movers, kSweepWindow entries that nothing reaches, so the window needs no bound.
        m_sweep.insert(m_sweep.end(), kSweepWindow, SweptMover{kPastAll, kPastAll, kPastAll, kPastAll, kNull});
    }
    const std::size_t count = m_sweep.size() - kSweepWindow;
    // The movers' boxes of this step, in last step's order (their records are side by side).
    for (std::size_t k = 0; k < count; ++k) {
        SweptMover& mover = m_sweep[k];
        const Aabb& box = m_proxies[mover.proxy].box;
        mover = m_sweepAlongY ? SweptMover{box.minY, box.maxY, box.minX, box.maxX, mover.proxy}
                              : SweptMover{box.minX, box.maxX, box.minY, box.maxY, mover.proxy};
    }
    // Sorted again by insertion: they moved a little, so few shifts. Past kSweepShiftsPerMover
    // a mover (a jump), a full sort is cheaper.
    const auto byLow = [](const SweptMover& a, const SweptMover& b) { return a.low < b.low; };
    const std::uint64_t shiftLimit = kSweepShiftsPerMover * static_cast<std::uint64_t>(count);
    if (insertionSort(m_sweep.data(), count, byLow, shiftLimit) > shiftLimit)
        std::sort(m_sweep.begin(), m_sweep.begin() + static_cast<std::ptrdiff_t>(count), byLow);
    // Each mover against the next kSweepWindow without a branch per test (the outcome is a coin
    // toss to the predictor): a pair is written at the end of the hits, which advances if the
    // boxes overlap. The rare mover whose reach goes past the window goes on with a loop.
    // Room for every window; a reach past the window makes more below.
    if (m_sweepHits.size() < kSweepWindow * count) m_sweepHits.resize(kSweepWindow * count);
    std::size_t hits = 0;
    std::uint64_t tests = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const SweptMover& a = m_sweep[i];
        for (std::size_t w = 1; w <= kSweepWindow; ++w) {
            const SweptMover& b = m_sweep[i + w];
            const bool along = b.low <= a.high;
            tests += along;
            m_sweepHits[hits] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + w)};
            hits += along & (b.otherLow <= a.otherHigh) & (a.otherLow <= b.otherHigh);
        }
        for (std::size_t j = i + kSweepWindow + 1; j < count && m_sweep[j].low <= a.high; ++j) {
            ++tests;
            const SweptMover& b = m_sweep[j];
            if ((b.otherLow <= a.otherHigh) & (a.otherLow <= b.otherHigh)) {
                // Room for this hit and for the windows of the movers after this one.
                const std::size_t room = hits + 1 + kSweepWindow * (count - i - 1);
                if (room > m_sweepHits.size()) m_sweepHits.resize(2 * room);
                m_sweepHits[hits++] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)};
            }
        }
    }
    for (std::size_t h = 0; h < hits; ++h) {
        const std::uint32_t p = m_sweep[m_sweepHits[h].a].proxy, q = m_sweep[m_sweepHits[h].b].proxy;
        if (m_filtersSeen && !mayPair(p, q)) continue;
        out.push_back(makePair(m_proxies[p].dense, m_proxies[q].dense));
    }
    return tests;
}

}  // namespace ro
