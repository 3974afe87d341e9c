#pragma once
/// The formatted and wrapped text the panel, the HUD and the Compare window share.

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <utility>

#include "app/layout.h"

namespace ro::app {

/// ImGui text formatted by fmt; the buffer lives on the stack, so a HUD line does not allocate.
template <typename... Args>
inline void text(fmt::format_string<Args...> format, Args&&... args) {
    fmt::memory_buffer buffer;
    fmt::format_to(std::back_inserter(buffer), format, std::forward<Args>(args)...);
    ImGui::TextUnformatted(buffer.data(), buffer.data() + buffer.size());
}

/// Formats into a stack buffer (no heap allocation for a line of a few hundred characters)
/// and hands the text to `show`: the panel is built every frame.
template <typename Show, typename... Args>
inline void withText(Show show, fmt::format_string<Args...> format, Args&&... args) {
    fmt::memory_buffer buffer;
    fmt::format_to(std::back_inserter(buffer), format, std::forward<Args>(args)...);
    show(std::string_view(buffer.data(), buffer.size()));
}

/// Greyed text, for hints.
inline void hint(std::string_view line) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextUnformatted(line.data(), line.data() + line.size());
    ImGui::PopStyleColor();
}

struct HumanBytes {
    double value;
    const char* unit;
};

inline HumanBytes humanBytes(std::uint64_t bytes) {
    constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 3) {
        value /= 1024.0;
        ++unit;
    }
    return {value, kUnits[unit]};
}

/// The width of the panel's longer texts (its natural width, set by its widest widgets): they
/// wrap there, so that opening a section of them does not widen the panel.
inline constexpr float kTextWidth = 330.0f;

/// Wrapped text in a colour, at most `width` pixels wide (and no wider than the window leaves).
inline void wrapped(std::string_view line, ImVec4 color, float width = kTextWidth) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::min(width, ImGui::GetContentRegionAvail().x));
    ImGui::TextUnformatted(line.data(), line.data() + line.size());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

/// A view's text with a terminating zero, for ImGui's labels (at most 63 characters).
struct CText {
    explicit CText(std::string_view text) {
        const std::size_t n = std::min(text.size(), sizeof buffer - 1);
        text.copy(buffer, n);
        buffer[n] = '\0';
    }
    char buffer[64];
};

/// The current window's rectangle.
inline Rect windowRect() {
    const ImVec2 pos = ImGui::GetWindowPos();
    const ImVec2 size = ImGui::GetWindowSize();
    return {pos.x, pos.y, size.x, size.y};
}

}  // namespace ro::app
