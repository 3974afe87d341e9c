#pragma once
/// Command-line options of ro_demo.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ro/broadphase.h"
#include "ro/world.h"

namespace ro::app {

/// Which debug overlays are drawn on top of the world.
struct OverlayFlags {
    bool grid = false;    ///< the technique's structure: cells, nodes, fat boxes, delimiters
    bool pairs = false;   ///< a line per candidate pair; true overlaps in another colour
    bool bounds = false;  ///< every entity's AABB
    std::uint32_t hiddenLevels = 0;  ///< bit L set: the structure's level (or depth) L is not drawn
    std::uint32_t levelsSeen = 0;    ///< levels in the structure last drawn (set by the overlay)
};

/// How entities are drawn: small ones rasterized and large ones as geometry (Auto), or every
/// one by one path (the draw-time table and the test that both paths light the same pixels).
enum class DrawPath : std::uint8_t { Auto, Raster, Geometry };

/// Everything the command line can set.
struct Options {
    std::string technique = "grid";
    bool techniqueGiven = false;    ///< --technique was on the command line (it overrides a --load file's)
    std::string scenario;           ///< a library scenario's name (--scenario), empty for the random mix
    std::vector<std::string> compare;  ///< technique ids run beside the world's (--compare), registry order
    std::uint32_t entities = 2000;
    std::uint64_t seed = 1;
    Settings parameters;            ///< --param values (and --cell-size); no cell size: fit the largest entity
    std::optional<int> frames;      ///< set: run this many frames on a virtual clock, report, exit
    std::string screenshot;         ///< PNG of the last frame, written before exit (empty: none)
    std::string plotsScreenshot;    ///< PNG of the last frame's Plots window alone (empty: none)
    std::string load;               ///< a scene file to start from (--load), empty for none
    std::string save;               ///< where the scene is written on exit (--save), empty for nowhere
    std::string record;             ///< where the inputs are written on exit (--record), empty for nowhere
    std::string replay;             ///< a replay file to run (--replay), empty for none
    std::string trace;              ///< a trace to play (--trace), empty for none
    std::string recordTrace;        ///< where each tick's boxes are written as a trace (--record-trace), empty for nowhere
    /// The Plots window at start: "history", "scaling" (and its sweep runs) or "parameter"
    /// with `plotParameter` (that parameter is swept); empty for closed. With --frames, the run
    /// lasts until the sweep is done.
    std::string plots;
    std::string plotParameter;
    std::uint32_t sweepMax = 1'000'000;  ///< the scaling sweep's largest count (--sweep-max)
    OverlayFlags overlays;
    int reportEvery = 0;            ///< print the counters line every K frames (0: never)
    int width = 1280;
    int height = 800;
    bool listTechniques = false;
    bool listScenarios = false;
    bool listParameters = false;
    std::optional<Vec2> queryPoint;  ///< a fixed point query (as if hovering there), world units
    std::optional<Aabb> queryBox;    ///< a box query set at start (as if shift-dragged)
    std::optional<Segment> queryRay; ///< a ray query set at start (as if ctrl-dragged)
    std::optional<SizeRange> sizes;  ///< entities' half-extent range (unset: fit the count)
    bool paused = false;             ///< start paused (with --frames: the first frame's state stays)
    // Fast movers (WorldConfig's switches), as the panel's checkboxes set them.
    bool sweptBoxes = false;
    bool timeOfImpact = false;
    bool countMisses = false;
    DrawPath drawPath = DrawPath::Auto;
    float zoom = 1.0f;               ///< camera zoom at start, around the world's centre
};

/// The parsed options, or the exit code to leave with at once (0 after --help and
/// --list-techniques, 2 after a bad flag, with one message already printed to stderr).
struct ParseResult {
    Options options;
    std::optional<int> exitCode;
};

/// Parses argv; never throws and never exits the process itself.
[[nodiscard]] ParseResult parseOptions(int argc, char** argv);

}  // namespace ro::app
