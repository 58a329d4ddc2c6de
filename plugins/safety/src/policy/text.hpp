// Text helpers for the policy's reasons: printf-style formatting and percentages. Copying into
// the fixed reason buffers of the ABI is the SDK's copy_text (cudabridge/cpp/text_out.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cudabridge::plugins::safety {

std::string printf_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

// 0.021 -> "2.1%", 0.0005 -> "0.05%".
std::string percent_text(double fraction);

// "1 attempt", "2 attempts".
std::string count_text(unsigned long long n, const char* singular, const char* plural);

}  // namespace cudabridge::plugins::safety
