#include "ro/parameters.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "ro/broadphase.h"

namespace ro {
namespace {

/// "a, b, c" (appended piece by piece: gcc 12's -Wrestrict misfires on "" + std::string chains).
template <typename Range, typename Name>
std::string joined(const Range& items, Name name) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out.append(", ");
        out.append(name(item));
    }
    return out;
}

/// Whole numbers in full (67108864, not 6.71089e+07), others with 6 significant digits.
std::string number(double v) {
    std::ostringstream out;
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        out << static_cast<long long>(v);
    else
        out << v;
    return out.str();
}

}  // namespace

std::string formatValue(const ParameterSpec& spec, double value) {
    if (spec.kind == ParameterKind::Choice && value >= 0.0 && value < static_cast<double>(spec.choices.size()) &&
        value == std::floor(value))
        return std::string(spec.choices[static_cast<std::size_t>(value)]);
    return number(value);
}

std::string describeRange(const ParameterSpec& spec, bool offered) {
    if (spec.kind == ParameterKind::Choice) {
        return "one of " + joined(spec.choices, [](std::string_view name) { return name; });
    }
    const double lo = offered ? spec.offeredMin : spec.min;
    const double hi = offered ? spec.offeredMax : spec.max;
    return "between " + number(lo) + " and " + number(hi);
}

std::string checkValue(const ParameterSpec& spec, double value, bool offered) {
    const double lo = spec.kind == ParameterKind::Choice ? 0.0 : (offered ? spec.offeredMin : spec.min);
    const double hi = spec.kind == ParameterKind::Choice ? static_cast<double>(spec.choices.size()) - 1.0
                                                         : (offered ? spec.offeredMax : spec.max);
    const bool whole = spec.kind != ParameterKind::Real;
    if (std::isfinite(value) && value >= lo && value <= hi && (!whole || value == std::floor(value))) return {};
    std::string why(spec.label);
    why.append(" (").append(spec.key).append(") must be ");
    if (spec.kind == ParameterKind::Integer) why.append("a whole number ");
    why.append(describeRange(spec, offered));
    if (!spec.unit.empty() && spec.kind != ParameterKind::Choice) why.append(" ").append(spec.unit);
    return why.append(", got ").append(number(value));
}

void checkSettings(std::span<const ParameterSpec> parameters, const Settings& settings) {
    if (!settings.bounds.hasFiniteArea()) throw std::invalid_argument("bounds must be finite with max > min");
    for (const ParameterSpec& spec : parameters)
        if (std::string why = checkValue(spec, settings.value(spec)); !why.empty()) throw std::invalid_argument(why);
}

const ParameterSpec* findParameter(std::span<const ParameterSpec> parameters, std::string_view key) {
    for (const ParameterSpec& spec : parameters)
        if (spec.key == key) return &spec;
    return nullptr;
}

std::string unknownParameter(std::span<const ParameterSpec> parameters, std::string_view key) {
    const std::string keys = joined(parameters, [](const ParameterSpec& p) { return p.key; });
    return "no parameter '" + std::string(key) + "' here; " + (keys.empty() ? "this technique has none" : "its parameters: " + keys);
}

std::string setFromText(std::span<const ParameterSpec> parameters, std::string_view text, Settings& settings) {
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) return "expected KEY=VALUE, got '" + std::string(text) + "'";
    const std::string_view key = text.substr(0, equals);
    const std::string_view valueText = text.substr(equals + 1);
    const ParameterSpec* spec = findParameter(parameters, key);
    if (!spec) return unknownParameter(parameters, key);
    double value = 0.0;
    bool parsed = false;
    for (std::size_t i = 0; i < spec->choices.size(); ++i)
        if (spec->choices[i] == valueText) value = static_cast<double>(i), parsed = true;
    if (!parsed) {
        const auto [end, error] = std::from_chars(valueText.data(), valueText.data() + valueText.size(), value);
        parsed = error == std::errc{} && end == valueText.data() + valueText.size() && !valueText.empty();
    }
    if (!parsed) return std::string(spec->key) + " must be a number" +
                        (spec->choices.empty() ? "" : " or a name (" + describeRange(*spec, true) + ")") + ", got '" +
                        std::string(valueText) + "'";
    if (std::string why = checkValue(*spec, value, /*offered=*/true); !why.empty()) return why;
    settings.set(spec->key, value);
    return {};
}

float autoCellSize(const BoxView& boxes) {
    if (boxes.count == 0) return autoCellSize(0.0f, 0.0f);
    std::vector<float> sides(boxes.count);
    for (std::uint32_t i = 0; i < boxes.count; ++i)
        sides[i] = std::max(boxes.maxX[i] - boxes.minX[i], boxes.maxY[i] - boxes.minY[i]);
    const float largest = *std::max_element(sides.begin(), sides.end());
    const auto middle = sides.begin() + static_cast<std::ptrdiff_t>(sides.size() / 2);
    std::nth_element(sides.begin(), middle, sides.end());
    return autoCellSize(largest, *middle);
}

}  // namespace ro
