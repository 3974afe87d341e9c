#include "broadphase/auto/auto.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

namespace ro {
namespace {

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void AutoPick::applySettings(const Settings& settings) {
    m_settings = settings;
    startTrial();
}

void AutoPick::startTrial() {
    m_pick = Pick::Trial;
    m_trialStep = 0;
    m_trialMs = {};
    m_stepTrialMs = {};
    m_bestStepMs = {};
    m_fallback = kHshg;
    m_treeFirstReinserted = -1.0;
    m_treeTimedReinserted = 0.0;
    m_timedSteps = 0;
    m_watchedMs = 0.0;
    m_watchedSteps = 0;
    m_recentMs = {};
    m_calmSteps = 0;
    m_probeStepsLeft = 0;
    if (!m_techniques[kHshg]) m_techniques[kHshg] = std::make_unique<Coherent<WithStatics<HierarchicalGrid>>>();
    if (!m_techniques[kTree]) m_techniques[kTree] = std::make_unique<DynamicTree>();
    if (!m_techniques[kSap]) m_techniques[kSap] = std::make_unique<Coherent<WithStatics<SweepAndPrune>>>();
    for (const auto& technique : m_techniques) technique->configure(m_settings);
}

TechniqueBase& AutoPick::answering() const {
    return *m_techniques[m_pick == Pick::Tree ? kTree : m_pick == Pick::Sap ? kSap : kHshg];
}

template <typename Step>
void AutoPick::onEach(Step&& step, bool timed) {
    for (std::size_t k = 0; k < m_techniques.size(); ++k) {
        if (!m_techniques[k]) continue;
        const auto start = std::chrono::steady_clock::now();
        step(*m_techniques[k], k);
        if (timed) m_stepTrialMs[k] += msSince(start);
    }
}

bool AutoPick::exploitsMovedLists() const { return m_pick == Pick::Tree; }

void AutoPick::doUpdate(const BoxView& boxes) {
    // The boxes are checked and keyed by slots already; each technique adopts these slots as
    // its own (updateChecked). Most ids new at once: a new scene.
    m_boxes = withoutCoordinates(boxes);  // the caller's: not read after this update
    m_updated = true;
    m_count = boxes.count;
    const bool newScene = boxes.count >= kMinTrialCount && 2 * idSlots().newIdCount() > boxes.count;
    if (m_pick != Pick::Trial && newScene) startTrial();
    if (m_pick == Pick::Trial) {
        m_statics = 0;
        if (boxes.isStatic)
            for (std::uint32_t i = 0; i < boxes.count; ++i) m_statics += boxes.isStatic[i] != 0 ? 1u : 0u;
    }
    const auto start = std::chrono::steady_clock::now();
    onEach([&](TechniqueBase& technique, std::size_t) { updateChecked(technique, boxes); }, timesEach());
    m_stepMs = msSince(start);
}

void AutoPick::doUpdateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) {
    const auto start = std::chrono::steady_clock::now();
    onEach([&](TechniqueBase& technique, std::size_t) { updateMovedChecked(technique, boxes, moved); }, timesEach());
    m_stepMs = msSince(start);
}

void AutoPick::watchKept(double stepMs) {
    m_watchedMs += stepMs;
    m_recentMs[m_watchedSteps % kWatchSteps] = stepMs;
    ++m_watchedSteps;
    const double fallbackMs = m_fallbackMsPerEntity * m_count;
    if (m_watchedSteps >= 2 * kWatchSteps) {
        double recentMs = 0.0;
        for (const double ms : m_recentMs) recentMs += ms;
        if (recentMs / kWatchSteps > (kGiveUp + kDoubt) * fallbackMs) {
            handOverTo(m_fallback == kSap ? Pick::Sap : Pick::Hshg);
            return;
        }
    }
    if (m_watchedSteps % kWatchSteps != 0) return;
    const double doubt = kDoubt * kWatchSteps / m_watchedSteps;
    if (m_watchedMs / m_watchedSteps > (kGiveUp + doubt) * fallbackMs) {
        handOverTo(m_fallback == kSap ? Pick::Sap : Pick::Hshg);
        return;
    }
    if (m_watchedSteps >= kMemorySteps) {
        m_watchedMs /= 2.0;
        m_watchedSteps /= 2;
    }
}

void AutoPick::probeFallback() {
    const auto start = std::chrono::steady_clock::now();
    m_techniques[m_fallback]->findPairs(m_otherPairs);
    const double fallbackMs = m_stepTrialMs[m_fallback] + msSince(start);
    m_stepTrialMs = {};
    m_fallbackMsPerEntity = std::min(m_fallbackMsPerEntity, fallbackMs / std::max(1u, m_count));
    if (--m_probeStepsLeft > 0) return;
    m_techniques[m_fallback].reset();
    m_otherPairs = {};
}

void AutoPick::handOverTo(Pick pick) {
    if (pick != Pick::Hshg && pick != Pick::Sap)
        throw std::invalid_argument("AutoPick::handOverTo: only the HSHG or sweep and prune can take over");
    if (m_pick == pick) return;
    const std::size_t to = pick == Pick::Sap ? kSap : kHshg;
    // The new one builds on the last update's boxes, as the kept technique holds them (the
    // caller's arrays are theirs again once update() returns), so queries before the next
    // update find what the kept one would have found. A one-off copy, at the hand-over.
    if (!m_techniques[to]) {
        // Built passing through: the kept one was given up in a busy scene, where listing the
        // fat pairs at once would cost about ten of the new one's steps.
        const auto make = [&]<typename Layered>() {
            auto made = std::make_unique<Layered>();
            made->configure(m_settings);
            made->startPassingThrough();
            return made;
        };
        if (to == kSap) m_techniques[to] = make.template operator()<Coherent<WithStatics<SweepAndPrune>>>();
        else m_techniques[to] = make.template operator()<Coherent<WithStatics<HierarchicalGrid>>>();
        // From a kept tree, or from a kept sweep and prune to the HSHG.
        const std::size_t from = m_techniques[kTree] ? kTree : kSap;
        if (m_updated && from != to && m_techniques[from]) {
            const auto boxOf = [&](std::uint32_t i) {
                if (from == kTree) return static_cast<const DynamicTree&>(*m_techniques[kTree]).boxOf(i);
                const auto& sap = static_cast<const Coherent<WithStatics<SweepAndPrune>>&>(*m_techniques[kSap]);
                return sap.keptBoxOf(i).value_or(sap.inner().boxOf(i));
            };
            std::vector<float> minX(m_count), minY(m_count), maxX(m_count), maxY(m_count);
            for (std::uint32_t i = 0; i < m_count; ++i) {
                const Aabb box = boxOf(i);
                minX[i] = box.minX, minY[i] = box.minY, maxX[i] = box.maxX, maxY[i] = box.maxY;
            }
            updateChecked(*m_techniques[to], m_boxes.withCoordinates(minX.data(), minY.data(), maxX.data(), maxY.data()));
        }
    }
    m_pick = pick;
    m_probeStepsLeft = 0;
    for (std::size_t k = 0; k < m_techniques.size(); ++k)
        if (k != to) m_techniques[k].reset();
    m_otherPairs = {};
}

void AutoPick::noteTreeTrialStep(bool timed) {
    const auto reinserted = static_cast<double>(static_cast<const DynamicTree&>(*m_techniques[kTree]).stepStats().reinserted);
    if (m_trialStep == 1 && m_treeFirstReinserted < 0.0) m_treeFirstReinserted = reinserted;
    if (timed) m_treeTimedReinserted += reinserted;
}

bool AutoPick::treeLostInItsFirstWave() const {
    if (m_timedSteps == 0) return false;
    const double timedPerStep = m_treeTimedReinserted / m_timedSteps;
    return timedPerStep >= kWaveShare * m_count && m_treeFirstReinserted < kCalmStart * timedPerStep;
}

void AutoPick::findPairs(std::vector<Pair>& out) {
    if (!m_updated) {
        // Before its first update (or after only refused ones) there is nothing to pair, and the
        // techniques the settings make do not exist yet; nor is this a step of the trial.
        out.clear();
        m_counters = {};
        return;
    }
    std::optional<Counters> answered;
    if (m_pick == Pick::Trial) {
        // All find their pairs (the tree's pair list must follow every step); the HSHG's answer.
        onEach([&](TechniqueBase& technique, std::size_t k) { technique.findPairs(k == kHshg ? out : m_otherPairs); },
               m_trialStep > 0);
        // Under the coherence layer a scene's first steps cost the HSHG and SAP almost nothing
        // (no box has left its fat box yet), and the tree too: on a static field the HSHG won
        // such a trial, then rebuilt from every box each step, 20x the tree. So the timed
        // steps wait for the HSHG's first re-find (a box left its fat box), at most
        // kMaxCalmSteps steps: a resting scene stays calm, and is timed calm.
        bool timed = m_trialStep > 0;
        if (timed && m_calmSteps < kMaxCalmSteps) {
            const Counters hshg = m_techniques[kHshg]->counters();
            const bool calm = hshg.extra.find("refound").value_or(1.0) == 0.0 && hshg.extra.find("pass_through").value_or(1.0) == 0.0;
            if (calm) ++m_calmSteps, timed = false;
            else m_calmSteps = kMaxCalmSteps;  // moving now: every step from here is timed
        }
        if (timed) {
            // The fallback's fastest timed step is the estimate the watch holds a kept one to:
            // the HSHG's steps cost the same every step, and the slower ones met cold caches.
            ++m_timedSteps;
            for (std::size_t k = 0; k < m_techniques.size(); ++k) {
                m_bestStepMs[k] = m_trialStep == 1 ? m_stepTrialMs[k] : std::min(m_bestStepMs[k], m_stepTrialMs[k]);
                m_trialMs[k] += m_stepTrialMs[k];
            }
        }
        if (m_trialStep > 0) noteTreeTrialStep(timed);
        m_stepTrialMs = {};
        const bool advance = m_trialStep == 0 || timed;
        if (advance && ++m_trialStep == kTrialSteps) {
            std::size_t fastest = static_cast<std::size_t>(
                std::min_element(m_trialMs.begin(), m_trialMs.end()) - m_trialMs.begin());
            // The tree's statics move to their grid, and its movers' pairs with them to their
            // still reach, a few steps into a scene (tree.h): after the trial. With most
            // entities declared static, a tree close behind is kept (static field at 100,000:
            // 0.8 ms a trial step, 0.1 after; the HSHG over its statics layer 0.75, then 0.27).
            if (2 * m_statics >= m_count && m_trialMs[kTree] <= kStaticTreeSlack * m_trialMs[fastest]) fastest = kTree;
            // A kept tree or sweep and prune is watched against the HSHG; a tree on probation
            // (it lost in its first wave) against the trial's fastest.
            // The fallback of a tree on probation runs on beside it for a few steps, so that
            // the watch's bar is a warm step of it.
            const bool onProbation = fastest != kTree && treeLostInItsFirstWave();
            m_fallback = onProbation ? fastest : kHshg;
            if (onProbation) fastest = kTree;
            m_pick = fastest == kTree ? Pick::Tree : fastest == kSap ? Pick::Sap : Pick::Hshg;
            m_fallbackMsPerEntity = m_bestStepMs[m_fallback] / std::max(1u, m_count);
            m_probeStepsLeft = onProbation ? kProbeSteps : 0;
            for (std::size_t k = 0; k < m_techniques.size(); ++k)
                if (k != fastest && !(onProbation && k == m_fallback)) m_techniques[k].reset();
            if (!onProbation) m_otherPairs = {};
        }
    } else if (m_pick == Pick::Tree || m_pick == Pick::Sap) {
        const auto start = std::chrono::steady_clock::now();
        answering().findPairs(out);
        const double updateMs = m_probeStepsLeft > 0 ? m_stepTrialMs[m_pick == Pick::Tree ? kTree : kSap] : m_stepMs;
        const double keptMs = updateMs + msSince(start);
        // Read before the watch: giving the kept technique up hands over to an HSHG that
        // has not found pairs yet (its counters would say none).
        answered = answering().counters();
        if (m_probeStepsLeft > 0) probeFallback();
        watchKept(keptMs);
    } else {
        answering().findPairs(out);
    }
    // The counters of the technique that answered this step, and the memory of all.
    m_counters = answered ? *answered : answering().counters();
    m_counters.bytesHeld = bytesHeld(m_otherPairs);
    for (const auto& technique : m_techniques)
        if (technique) m_counters.bytesHeld += technique->counters().bytesHeld;
    m_counters.extra.set("uses_tree", m_pick == Pick::Tree ? 1.0 : 0.0);
    m_counters.extra.set("uses_sap", m_pick == Pick::Sap ? 1.0 : 0.0);
    m_counters.extra.set("trial_steps_left", m_pick == Pick::Trial ? kTrialSteps - m_trialStep : 0.0);
}

void AutoPick::forEachElement(const std::function<void(const StructureElement&)>& visit) const {
    if (m_techniques[kHshg] || m_techniques[kTree] || m_techniques[kSap]) answering().forEachElement(visit);
}

std::string AutoPick::validate() const {
    for (const auto& technique : m_techniques)
        if (technique)
            if (std::string broken = technique->validate(); !broken.empty()) return broken;
    return {};
}

QueryCost AutoPick::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    if (!m_techniques[kHshg] && !m_techniques[kTree] && !m_techniques[kSap]) return {};
    return answering().queryBox(box, out);
}

QueryCost AutoPick::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    if (!m_techniques[kHshg] && !m_techniques[kTree] && !m_techniques[kSap]) return {};
    return answering().queryRay(segment, out);
}

QueryCost AutoPick::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    if (!m_techniques[kHshg] && !m_techniques[kTree] && !m_techniques[kSap]) return {};
    return answering().raycastFirst(segment, hit);
}

}  // namespace ro
