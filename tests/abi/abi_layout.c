/* The layout pins, checked by a C11 compiler (_Static_assert + offsetof). */
#include "abi_layout_lp64.h"

/* A named object keeps the translation unit non-empty for -pedantic. */
const int cb_abi_layout_checked_in_c = 1;
