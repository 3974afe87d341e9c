// Writes a small trace for the tests of ro_bench --trace, and prints the mean number of
// overlapping pairs a frame over the frames ro_bench measures, counted here the plain way
// (every pair tested, two statics and filtered pairs left out), for ro_bench's to be compared with.
// usage: make_trace PATH FRAMES BODIES WARMUP [statics] [filters]
// Bodies drift; a fifth are static (with "statics"); on every third frame a tenth of the
// moving bodies are destroyed and others created with new ids (churn), so the frame's count
// changes; on the other frames the same bodies move, and with statics ro_bench gives moved lists.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ro/rng.h"
#include "ro/trace.h"

namespace {

struct Body {
    std::uint32_t id;
    float x, y, vx, vy, half;
    bool isStatic;
    std::uint32_t category, mask;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: make_trace PATH FRAMES BODIES WARMUP [statics] [filters]\n");
        return 2;
    }
    const std::string path = argv[1];
    const int frames = std::atoi(argv[2]);
    const auto bodies = static_cast<std::uint32_t>(std::atoi(argv[3]));
    const int warmup = std::atoi(argv[4]);
    bool statics = false, filters = false;
    for (int k = 5; k < argc; ++k) {
        statics = statics || std::string(argv[k]) == "statics";
        filters = filters || std::string(argv[k]) == "filters";
    }
    const float side = 3.0f * std::sqrt(static_cast<float>(bodies));
    ro::Rng rng(11);
    std::uint32_t nextId = 1000;
    const auto make = [&](bool isStatic) {
        const std::uint32_t layer = rng.below(3);
        return Body{nextId++ * 7919u, rng.range(0, side), rng.range(0, side), isStatic ? 0 : rng.range(-0.2f, 0.2f),
                    isStatic ? 0 : rng.range(-0.2f, 0.2f), rng.range(0.3f, 1.5f), isStatic,
                    1u << layer, layer == 0 ? ~0u : (1u | (1u << layer))};
    };
    std::vector<Body> world;
    for (std::uint32_t i = 0; i < bodies; ++i) world.push_back(make(statics && i % 5 == 0));

    ro::TraceWriter writer(path);
    std::vector<float> minX, minY, maxX, maxY;
    std::vector<std::uint32_t> ids, category, mask;
    std::vector<std::uint8_t> isStatic;
    std::uint64_t measuredOverlaps = 0;
    for (int f = 0; f < frames; ++f) {
        if (f > 0) {
            for (Body& b : world) b.x += b.vx, b.y += b.vy;
            if (f % 3 == 0) {
                std::vector<Body> kept;
                for (const Body& b : world)
                    if (b.isStatic || rng.unit() > 0.1f) kept.push_back(b);
                const std::uint32_t born = bodies / 20 + rng.below(bodies / 10 + 1);
                for (std::uint32_t k = 0; k < born; ++k) kept.push_back(make(false));
                world = kept;
            }
        }
        minX.clear(), minY.clear(), maxX.clear(), maxY.clear(), ids.clear(), category.clear(), mask.clear();
        isStatic.clear();
        for (const Body& b : world) {
            minX.push_back(b.x - b.half), minY.push_back(b.y - b.half);
            maxX.push_back(b.x + b.half), maxY.push_back(b.y + b.half);
            ids.push_back(b.id), isStatic.push_back(b.isStatic ? 1 : 0);
            category.push_back(b.category), mask.push_back(b.mask);
        }
        ro::BoxView view{minX.data(), minY.data(), maxX.data(), maxY.data(), ids.data(),
                         static_cast<std::uint32_t>(ids.size())};
        view.isStatic = isStatic.data();
        if (filters) view.category = category.data(), view.mask = mask.data();
        writer.frame(view);
        if (f <= warmup) continue;
        for (std::size_t i = 0; i < world.size(); ++i)
            for (std::size_t j = i + 1; j < world.size(); ++j) {
                if (world[i].isStatic && world[j].isStatic) continue;
                if (filters && ((world[i].category & world[j].mask) == 0 || (world[j].category & world[i].mask) == 0))
                    continue;
                if (minX[i] <= maxX[j] && minX[j] <= maxX[i] && minY[i] <= maxY[j] && minY[j] <= maxY[i])
                    ++measuredOverlaps;
            }
    }
    writer.close();
    std::printf("%lld\n", std::llround(static_cast<double>(measuredOverlaps) / (frames - 1 - warmup)));
    return 0;
}
