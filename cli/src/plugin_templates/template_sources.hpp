// The source file `plugins new` writes for each kind: C++ text with @NAME@ (the plugin's name)
// and @CLASS@ (its class) still to fill in. Each compiles against the installed SDK alone and
// does something small but real, so a fresh project builds, verifies and loads.
#pragma once

namespace cudabridge::cli::templates {

const char* logsink_source();    // appends "time level category message" lines to a file or stderr
const char* safety_source();     // thermal emergency stop, link-down failure, display-class check
const char* transport_source();  // an empty fabric: one domain, nothing plugged in
const char* gpu_source();        // claims one vendor's display controllers and identifies them

}  // namespace cudabridge::cli::templates
