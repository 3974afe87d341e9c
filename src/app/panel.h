#pragma once
/// The ImGui panel (top-left: technique, settings, population, clock, overlays) and the HUD
/// (top-right, undecorated: the counters of the last step).

#include "app/lab.h"
#include "app/options.h"
#include "app/report.h"

namespace ro::app {

/// Builds the panel; its widgets act on the lab and the overlay flags directly.
void drawPanel(Lab& lab, OverlayFlags& overlays);

/// Builds the HUD from the figures of the last frame.
void drawHud(const FrameReport& report);

}  // namespace ro::app
