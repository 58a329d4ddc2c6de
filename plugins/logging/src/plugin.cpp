// The logging plugin library: five log sinks behind one cb_plugin_entry.
#include "sinks/console_sink.hpp"
#include "sinks/file_sink.hpp"
#include "sinks/jsonl_sink.hpp"
#include "sinks/sqlite_sink.hpp"
#include "sinks/syslog_sink.hpp"

#include <cudabridge/cpp/plugin.hpp>

namespace lg = cudabridge::plugins::logging;
using cudabridge::sdk::descriptor_of;

CB_PLUGIN_DEFINE(descriptor_of<lg::console_sink>(), descriptor_of<lg::file_sink>(), descriptor_of<lg::sqlite_sink>(),
                 descriptor_of<lg::jsonl_sink>(), descriptor_of<lg::syslog_sink>())
