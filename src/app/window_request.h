#pragma once
/// What the keys and the windows ask of the window itself rather than of the lab: a line in the
/// HUD, a screenshot, an image of one window, a scaling sweep. They go into one list that the
/// main loop carries out once a frame, after the frame is drawn (an image shows the frame as
/// the person saw it); what changes the lab goes into the CommandQueue (command.h) instead.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "app/layout.h"

namespace ro::app {

struct WindowRequest {
    enum class Kind : std::uint8_t {
        Say,           ///< `text` in the HUD's message line for `seconds`
        Screenshot,    ///< F12: the whole window to a timestamped PNG in the working directory
        SaveImage,     ///< the part `area` of the window to the PNG file `text` (the Plots' Save PNG)
        StartScaling,  ///< the Plots window's scaling sweep (the panel's button)
    };

    Kind kind = Kind::Say;
    std::string text{};
    Rect area{};
    int seconds = 8;

    static WindowRequest say(std::string line, int seconds = 8) {
        return {.kind = Kind::Say, .text = std::move(line), .seconds = seconds};
    }
    static WindowRequest screenshot() { return {.kind = Kind::Screenshot}; }
    static WindowRequest saveImage(std::string path, const Rect& area) {
        return {.kind = Kind::SaveImage, .text = std::move(path), .area = area};
    }
    static WindowRequest startScaling() { return {.kind = Kind::StartScaling}; }
};

/// The requests made in a frame, oldest first.
class WindowRequests {
public:
    void push(WindowRequest request) { m_requests.push_back(std::move(request)); }
    [[nodiscard]] bool empty() const { return m_requests.empty(); }
    /// The requests pushed so far, in order; the list is left empty.
    [[nodiscard]] std::vector<WindowRequest> take() { return std::exchange(m_requests, {}); }

private:
    std::vector<WindowRequest> m_requests;
};

}  // namespace ro::app
