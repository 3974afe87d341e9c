// Drives a broad phase directly with your own boxes: pick a technique from the registry,
// hand it the boxes each step, read the candidate pairs and run a box query.
// Built against the installed package: find_package(ro CONFIG REQUIRED), ro::ro.
#include <ro/broadphase.h>
#include <ro/registry.h>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    // Four boxes as structure-of-arrays: 0, 1 and 2 overlap or touch each other (touching counts:
    // closed intervals), 3 is alone.
    std::vector<float> minX{0, 5, 10, 50}, minY{0, 5, 5, 50}, maxX{10, 10, 20, 60}, maxY{10, 15, 15, 60};
    std::vector<std::uint32_t> ids{100, 101, 102, 103};

    const ro::TechniqueInfo* info = ro::findTechnique("tree");
    if (!info) return 1;
    std::unique_ptr<ro::BroadPhase> tree = info->create();
    // Each technique lists its own parameters (key, range, default, help); set any by key.
    for (const ro::ParameterSpec& p : info->parameters)
        std::printf("%.*s = %g (%.*s)\n", static_cast<int>(p.key.size()), p.key.data(), p.defaultValue,
                    static_cast<int>(p.help.size()), p.help.data());
    tree->configure(ro::Settings{ro::Aabb{0, 0, 100, 100}, {{"fat_margin", 2.0}}});
    for (int step = 0; step < 3; ++step) {
        for (float& x : minX) x += 1.0f;  // everything moves right
        for (float& x : maxX) x += 1.0f;
        tree->update({minX.data(), minY.data(), maxX.data(), maxY.data(), ids.data(),
                      static_cast<std::uint32_t>(ids.size())});
        std::vector<ro::Pair> pairs;
        tree->findPairs(pairs);  // candidates, each once, a < b (dense indices)
        std::printf("step %d:", step);
        int overlapping = 0;
        for (const ro::Pair& p : pairs) {
            // A candidate may be a near miss unless the technique says its pairs are exact.
            const ro::Aabb a{minX[p.a], minY[p.a], maxX[p.a], maxY[p.a]};
            const ro::Aabb b{minX[p.b], minY[p.b], maxX[p.b], maxY[p.b]};
            if (!tree->pairsAreExact() && !ro::overlaps(a, b)) continue;
            std::printf(" (%u, %u)", ids[p.a], ids[p.b]);
            ++overlapping;
        }
        std::printf("\n");
        if (overlapping != 3) return 1;
    }
    std::vector<std::uint32_t> hits;
    const ro::QueryCost cost = tree->queryBox({45, 45, 70, 70}, hits);
    std::printf("box query: %zu hit(s), %llu visited, %llu tests\n", hits.size(),
                static_cast<unsigned long long>(cost.visited), static_cast<unsigned long long>(cost.tests));
    return hits.size() == 1 && ids[hits[0]] == 103 ? 0 : 1;
}
