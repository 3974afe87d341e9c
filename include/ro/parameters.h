#pragma once
/// A technique's parameters as data. Each technique lists its own (key, label, kind, ranges,
/// default, unit, a line of help) in its folder; its registry row carries the list. The panel,
/// ro_demo's `--param KEY=VALUE`, ro_bench and checkSettings loop over the lists, so adding a
/// parameter to a technique touches only that technique's folder.
///
/// Settings are the values a person chose, by key, plus the region the entities live in. One
/// Settings can hold values for several techniques (the world keeps it across a switch of
/// technique, so a cell size chosen for the grid carries to the hash): each technique reads
/// the keys it declares and ignores the rest.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ro/aabb.h"

namespace ro {

enum class ParameterKind : std::uint8_t {
    Real,     ///< any value in the range
    Integer,  ///< a whole number in the range
    Choice,   ///< a whole number 0..choices.size()-1, shown by its name
};

/// One parameter of a technique.
struct ParameterSpec {
    std::string_view key;    ///< on the command line and in scene files: "cell_size"
    std::string_view label;  ///< in the panel: "Cell size"
    ParameterKind kind = ParameterKind::Real;
    double min = 0.0;  ///< the range the library accepts (checkSettings), closed
    double max = 0.0;
    double offeredMin = 0.0;  ///< the range the panel, ro_demo and ro_bench offer, inside [min, max]
    double offeredMax = 0.0;
    double defaultValue = 0.0;
    std::string_view unit;  ///< "world units", "buckets", or empty
    std::string_view help;  ///< one line: what it changes, and what 0 means where 0 is special
    std::span<const std::string_view> choices = {};  ///< Choice: the name of each value
    bool logarithmic = false;                         ///< the panel's slider moves in ratios
    bool zeroIsAuto = false;                          ///< 0 asks the technique to pick (the panel shows "auto")
};

/// Parameter values by key, and the region the entities live in.
class Settings {
public:
    /// The region the entities live in: a bounded technique (grid, quadtree) covers it, and
    /// clamps what lies outside to its edge. Not a knob: the world hands its own extent.
    Aabb bounds{0, 0, 1600, 1000};

    Settings() = default;
    Settings(const Aabb& region, std::initializer_list<std::pair<std::string_view, double>> values) : bounds(region) {
        for (const auto& [key, value] : values) set(key, value);
    }

    /// Sets one value (added, or replacing the one with that key).
    void set(std::string_view key, double value) {
        for (auto& [k, v] : m_values)
            if (k == key) {
                v = value;
                return;
            }
        m_values.emplace_back(key, value);
    }
    /// The value set for `key`, if any.
    [[nodiscard]] std::optional<double> find(std::string_view key) const {
        for (const auto& [k, v] : m_values)
            if (k == key) return v;
        return std::nullopt;
    }
    /// The value set for `spec`, or its default.
    [[nodiscard]] double value(const ParameterSpec& spec) const { return find(spec.key).value_or(spec.defaultValue); }
    [[nodiscard]] float real(const ParameterSpec& spec) const { return static_cast<float>(value(spec)); }
    [[nodiscard]] std::uint32_t integer(const ParameterSpec& spec) const {
        return static_cast<std::uint32_t>(value(spec));  // checkSettings proved it whole and in range
    }
    /// Every value set, in the order first set.
    [[nodiscard]] std::span<const std::pair<std::string, double>> values() const { return m_values; }

    friend bool operator==(const Settings& a, const Settings& b) {
        if (!(a.bounds == b.bounds) || a.m_values.size() != b.m_values.size()) return false;
        for (const auto& [key, value] : a.m_values)
            if (b.find(key) != value) return false;
        return true;
    }

private:
    std::vector<std::pair<std::string, double>> m_values;
};

/// The cell side of the techniques with uniform cells (grid, hash). Far outside the offered
/// range the grid and the hash still answer exactly, through their paths for crowded cells.
/// Auto's cell size, the one rule the app's panel, its plots, ro_bench and the sweeps share: the
/// largest box's side, but at most four median sides, so that a few big boxes (which the grid
/// and the hash list apart) do not make every cell big; the largest side, at least 1, when most
/// boxes are points. It follows the scene's scale, not the world's units.
[[nodiscard]] inline float autoCellSize(float largestSide, float medianSide) {
    const float fitted = std::min(largestSide, 4.0f * medianSide);
    return fitted > 0.0f ? fitted : std::max(largestSide, 1.0f);
}

inline constexpr ParameterSpec kCellSizeParameter{
    .key = "cell_size",
    .label = "Cell size",
    .kind = ParameterKind::Real,
    .min = std::numeric_limits<float>::min(),
    .max = std::numeric_limits<float>::max(),
    .offeredMin = 0.05,
    .offeredMax = 10'000.0,
    .defaultValue = 16.0,
    .unit = "world units",
    .help = "side of a cell; Auto: the largest box's side, at most 4 median sides",
    .logarithmic = true,
};

/// Whether a technique keeps its pairs across steps under the coherence layer (src/broadphase/coherent/):
/// the grid, the hash, the HSHG, both sweeps and the quadtree take it.
inline constexpr ParameterSpec kCoherentParameter{
    .key = "coherent",
    .label = "Coherent",
    .kind = ParameterKind::Integer,
    .min = 0.0,
    .max = 1.0,
    .offeredMin = 0.0,
    .offeredMax = 1.0,
    .defaultValue = 1.0,
    .unit = "",
    .help = "1 (the default): keep fat boxes and their pairs across steps, re-querying only boxes that left theirs; "
            "0: rebuild from every box every step",
};

/// Threads a technique may use for its update and pair finding (the grid, the HSHG, the tree's
/// movers' queries). Any value gives the same pair array in the same order; 1 runs the serial path.
inline constexpr ParameterSpec kThreadsParameter{
    .key = "threads",
    .label = "Threads",
    .kind = ParameterKind::Integer,
    .min = 0.0,
    .max = 1024.0,
    .offeredMin = 0.0,
    .offeredMax = 64.0,
    // The hardware's by default: at 1,000,000 boxes two threads took about two thirds of one's
    // time (docs/performance.md), and below the techniques' grains a step stays serial anyway.
    .defaultValue = 0.0,
    .unit = "threads",
    .help = "threads for the update and pair finding; 0 (the default) the hardware's concurrency, 1 the serial path",
    .zeroIsAuto = true,
};

/// "between 1.5 and 16", "> 0", or for a choice "one of auto, x, y".
[[nodiscard]] std::string describeRange(const ParameterSpec& spec, bool offered);

/// A value as a person reads it: a choice by its name, a whole number in full.
[[nodiscard]] std::string formatValue(const ParameterSpec& spec, double value);

/// Why `value` is not acceptable for `spec` (not finite, not whole, outside the range: the
/// library's range, or with `offered` the one the app and the bench offer), or empty.
[[nodiscard]] std::string checkValue(const ParameterSpec& spec, double value, bool offered = false);

/// Throws std::invalid_argument unless the bounds have a finite, non-empty area and the value
/// of every parameter in `parameters` (set or default) is acceptable. Keys that no parameter
/// in the list has are someone else's and are ignored.
void checkSettings(std::span<const ParameterSpec> parameters, const Settings& settings);

/// Parses "KEY=VALUE" (a choice by its name or its number) against `parameters` and sets it in
/// `settings`. Returns why it cannot (unknown key, with the keys there are; bad value, with the
/// offered range), or empty.
[[nodiscard]] std::string setFromText(std::span<const ParameterSpec> parameters, std::string_view text,
                                      Settings& settings);

/// The spec with this key in the list, or nullptr.
[[nodiscard]] const ParameterSpec* findParameter(std::span<const ParameterSpec> parameters, std::string_view key);

/// Why `key` is refused where `parameters` are the keys: "no parameter 'KEY' here; its
/// parameters: a, b" (or "this technique has none").
[[nodiscard]] std::string unknownParameter(std::span<const ParameterSpec> parameters, std::string_view key);

}  // namespace ro
