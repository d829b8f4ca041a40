// Forwarding header: the machine-memory probes live in system/machine_memory.h
// (trit::system). bench_command.cpp and tests/cli/bench_stats_test.cpp still
// include this name; they are being moved with the bench runner, which will
// include system/machine_memory.h directly and delete this file.
#pragma once

#include "system/machine_memory.h"

namespace trit::cli {

using system::BandwidthOptions;
using system::DefaultBandwidthBufferBytes;
using system::MeasureReadBandwidth;
using system::PeakRssBytes;

}  // namespace trit::cli
