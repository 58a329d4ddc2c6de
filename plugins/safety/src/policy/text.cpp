#include "policy/text.hpp"

#include <cstdarg>
#include <cstdio>

namespace cudabridge::plugins::safety {

std::string printf_text(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string text;
    if (n > 0) {
        text.resize(static_cast<size_t>(n) + 1);
        std::vsnprintf(text.data(), text.size(), format, again);
        text.resize(static_cast<size_t>(n));
    }
    va_end(again);
    return text;
}

std::string percent_text(double fraction) {
    const double percent = fraction * 100.0;
    // One decimal reads well from 1% up; below that keep two significant digits so 0.05% does
    // not print as 0.1%.
    if (percent >= 1.0 || percent == 0.0) return printf_text("%.1f%%", percent);
    return printf_text("%.2g%%", percent);
}

std::string count_text(unsigned long long n, const char* singular, const char* plural) {
    return printf_text("%llu %s", n, n == 1 ? singular : plural);
}

}  // namespace cudabridge::plugins::safety
