// The process-wide log front end behind the C API (cb_log.h).
//
// This is the one global of the logging subsystem. It is created on first use with default
// options and never destroyed (so it stays valid during static destruction); an atexit handler
// registered on creation calls shutdown(), which drains the queue and flushes the sinks.
// Whoever attaches sink plugins to it must remove_sink() (or shutdown()) before unloading them.
#pragma once

#include <cudabridge/core/log.hpp>

namespace cudabridge::core::log {

front_end& process_front_end();

}  // namespace cudabridge::core::log
