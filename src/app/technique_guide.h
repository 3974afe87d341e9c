#pragma once
/// What the panel says about each technique: how it works, what it costs, when to pick it, and
/// the article it comes from (docs/references.md lists them in full).

#include <string_view>

namespace ro::app {

struct TechniqueGuide {
    std::string_view how;
    std::string_view cost;
    std::string_view when;
    std::string_view source;  ///< author and title of the article it comes from
};

/// The guide for a registry id; a row with empty texts for an unknown id.
[[nodiscard]] const TechniqueGuide& techniqueGuide(std::string_view id);

}  // namespace ro::app
