#include "text.hpp"

#include <cstdarg>
#include <cstdio>

namespace conservative {

std::string format_text(const char* format, ...) {
    char text[256];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    return text;
}

void copy_reason(const std::string& text, char (&field)[256]) {
    std::snprintf(field, sizeof field, "%s", text.c_str());
}

}  // namespace conservative
