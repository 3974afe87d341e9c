#pragma once
/// SIGINT and SIGTERM, honoured at once whatever the app is doing.
///
/// SDL's own handlers only queue an SDL_QUIT event, read between frames: a step that takes
/// minutes (brute force at a million entities) kept a `timeout` or a Ctrl-C waiting for it.
/// Here, between steps a signal sets a flag the frame loop checks (a clean exit); during a
/// step, which may not return for long, it ends the process at once with `_exit`. Either way
/// the status is the shell's convention, 128 + the signal: 130 for SIGINT, 143 for SIGTERM.
/// SDL must be told to leave the signals alone (SDL_HINT_NO_SIGNAL_HANDLERS, see screen.cpp).

namespace ro::app {

/// Installs the handlers for SIGINT and SIGTERM; call once, early in main.
void installStopSignals();

/// The signal that asked the app to stop, or 0.
[[nodiscard]] int stopSignal();

/// While one lives, a stop signal ends the process at once with status 128 + signal; one
/// that came before it does so when it starts. Not nested.
class BusyScope {
public:
    BusyScope();
    ~BusyScope();
    BusyScope(const BusyScope&) = delete;
    BusyScope& operator=(const BusyScope&) = delete;
};

}  // namespace ro::app
