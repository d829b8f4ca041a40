// Shows a pull's events to a person or a program: a progress bar redrawn in
// place on a terminal (bytes, rate, ETA), plain lines when the output is not
// a terminal (a log), or one JSON object per line (`trit pull --json`).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "store/pull_event.h"

namespace trit::store {

enum class ProgressStyle { kBar, kLines, kJson };

// kBar when `stream` is a terminal, kLines otherwise.
ProgressStyle DefaultProgressStyle(std::FILE* stream);

// An observer writing to `stream` (not owned; must outlive the observer).
// Progress events are thinned out (the bar at most 10 times a second,
// lines every 10% or 10 s, JSON 4 times a second); the others all show.
PullObserver MakeProgressPrinter(ProgressStyle style, std::FILE* stream);

}  // namespace trit::store
