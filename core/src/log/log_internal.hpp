// Private to core/src/log/: shared between the registry and the front end.
#pragma once

namespace cudabridge::core::log::detail {

// GENERAL .. PYTHON: the C API's CB_LOG_CAT_* ids 0..8.
constexpr int builtin_category_count = 9;

// How many category ids are registered now (lock-free; only ever grows).
int registered_category_count() noexcept;

}  // namespace cudabridge::core::log::detail
