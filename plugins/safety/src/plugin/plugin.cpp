// The safety plugin library: the "standard" and "strict" policies behind one cb_plugin_entry.
#include "plugin/policy_instance.hpp"

#include <cudabridge/cpp/plugin.hpp>

namespace sf = cudabridge::plugins::safety;
using cudabridge::sdk::descriptor_of;

CB_PLUGIN_DEFINE(descriptor_of<sf::standard_policy>(), descriptor_of<sf::strict_policy>())
