#include "app/stop_signal.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace ro::app {
namespace {

// Read and written by the handler: lock-free atomics are async-signal-safe, a mutex is not.
std::atomic<int> g_stopSignal{0};
std::atomic<bool> g_busy{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

extern "C" void onStopSignal(int signal) {
    if (g_busy.load()) _exit(128 + signal);  // async-signal-safe; the step cannot be left otherwise
    g_stopSignal.store(signal);
}

}  // namespace

void installStopSignals() {
    struct sigaction action {};
    action.sa_handler = &onStopSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

int stopSignal() { return g_stopSignal.load(); }

BusyScope::BusyScope() {
    g_busy.store(true);
    // A signal that came just before the step would otherwise wait for the whole step.
    if (const int signal = g_stopSignal.load()) _exit(128 + signal);
}

BusyScope::~BusyScope() { g_busy.store(false); }

}  // namespace ro::app
