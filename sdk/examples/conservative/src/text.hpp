// Reason texts: printf-style formatting into the 256 bytes an ABI reason field holds.
#pragma once

#include <string>

namespace conservative {

// At most 255 bytes; the ABI records cannot hold more.
std::string format_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Copies text into a reason field, always terminated.
void copy_reason(const std::string& text, char (&field)[256]);

}  // namespace conservative
