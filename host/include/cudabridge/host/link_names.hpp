// Names people read for a link's generation and a Thunderbolt domain's security level, shared by
// the connection's log lines and the applications (the CLI prints the same words).
#pragma once

#include <cudabridge/transport.h>

namespace cudabridge::host {

const char* security_name(cb_security_level level) noexcept;          // "none", "user", "secure", ...
const char* generation_name(cb_link_generation generation) noexcept;  // "Thunderbolt 4", ...

}  // namespace cudabridge::host
