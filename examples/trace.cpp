// Records a game's boxes as a trace, with the three lines a game adds, then reads the trace
// back and checks it. `ro_bench --trace game.trace --peers` then measures every technique on
// these frames (docs/trace-format.md). Built against the installed package: find_package(ro).
#include <ro/trace.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

/// A stand-in for a game: a static floor and bodies falling onto it; one more body every frame.
struct Game {
    std::vector<float> minX{0}, minY{0}, maxX{100}, maxY{1};  // the floor
    std::vector<std::uint32_t> ids{1};
    std::vector<std::uint8_t> isStatic{1};

    void step(int frame) {
        for (std::size_t i = 1; i < ids.size(); ++i)
            if (minY[i] > 1.0f) minY[i] -= 0.5f, maxY[i] -= 0.5f;
        const float x = static_cast<float>(frame % 10) * 10.0f;
        minX.push_back(x), minY.push_back(8.0f), maxX.push_back(x + 2.0f), maxY.push_back(10.0f);
        ids.push_back(100 + static_cast<std::uint32_t>(frame));
        isStatic.push_back(0);
    }
    [[nodiscard]] ro::BoxView boxes() const {
        ro::BoxView view{minX.data(), minY.data(), maxX.data(), maxY.data(), ids.data(),
                         static_cast<std::uint32_t>(ids.size())};
        view.isStatic = isStatic.data();
        return view;
    }
};

}  // namespace

int main() {
    const std::string path = "example.trace";
    try {
        // Initialization ---------------------------------------------------------------------
        Game game;
        ro::TraceWriter trace(path);  // 1: once ("example.csv" would write CSV)

        // Update -----------------------------------------------------------------------------
        for (int frame = 0; frame < 30; ++frame) {
            game.step(frame);
            trace.frame(game.boxes());  // 2: each step
        }
        trace.close();  // 3: at the end; a failed write throws ro::TraceError here or above

        // Read back --------------------------------------------------------------------------
        ro::TraceReader reader(path);
        std::uint32_t frames = 0, lastCount = 0;
        while (reader.next()) {
            const ro::BoxView& boxes = reader.frame();  // the same arrays a broad phase takes
            if (boxes.isStatic == nullptr || boxes.isStatic[0] != 1) return 1;
            lastCount = boxes.count;
            ++frames;
        }
        std::printf("%s: %u frames, %u boxes in the last\n", path.c_str(), frames, lastCount);
        std::remove(path.c_str());
        return frames == 30 && lastCount == 31 ? 0 : 1;
    } catch (const ro::TraceError& e) {  // names the file, the frame and the box
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
