// Text helpers for the policy's reasons: printf-style formatting, percentages, and copying into
// the fixed reason buffers of the ABI without cutting a UTF-8 character ("°C") in half.
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

// Copies text into out[size] (size > 0), NUL-terminated, cut at a character boundary.
void copy_text(std::string_view text, char* out, size_t size);

}  // namespace cudabridge::plugins::safety
