#pragma once
/// The HUD: the counters of the last step, in the right column.

#include <fmt/format.h>

#include <cstddef>
#include <string_view>
#include <vector>

#include "app/layout.h"
#include "app/report.h"

namespace ro::app {

/// The HUD: the figures of the last frame, one row each, in a window exactly as tall as its
/// rows (prepare says how tall, before the layout places it).
class Hud {
public:
    /// Takes the rows of `report` for a window `width` pixels wide; returns the height they
    /// need, title bar and padding included.
    float prepare(const FrameReport& report, float width);
    /// Builds the window in `area`, folded the first time when `collapsed` (the layout's
    /// choice for a narrow window); false when it is collapsed.
    bool draw(UiRects& rects, const Rect& area, bool collapsed);

private:
    struct Row {
        fmt::memory_buffer label, value;
        const char* tooltip = nullptr;
    };
    template <typename... Args>
    void row(const char* label, fmt::format_string<Args...> format, Args&&... args);

    std::vector<Row> m_rows;  ///< reused: no allocation per frame once grown
    std::size_t m_count = 0;
    std::string_view m_message;
    float m_labelWidth = 0.0f;
    float m_valueWidth = 0.0f;
};

}  // namespace ro::app
