// The usb4 transport plugin library's entry point.
#include "plugin/usb4_transport.hpp"

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<cudabridge::usb4::usb4_transport>())
