// The host's own settings (session.*), declared in the store with their help text.
#pragma once

namespace cudabridge::core {
class store;
}

namespace cudabridge::host {

void declare_host_parameters(core::store& db);

}  // namespace cudabridge::host
