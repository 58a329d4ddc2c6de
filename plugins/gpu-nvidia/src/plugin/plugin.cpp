// The nvidia GPU family plugin library's entry point.
#include "plugin/nvidia_family.hpp"

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<cudabridge::nv::nvidia_family>())
