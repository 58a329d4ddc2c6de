/* The no_entry variant: a valid shared library that exports something, but not
 * cb_plugin_entry. The host must refuse it with a clear reason and carry on, without loading it:
 * its constructor writes the file $CB_TEST_CONSTRUCTOR_MARKER names, which proves a dlopen. */
#include <cudabridge/abi.h>

#include <stdio.h>
#include <stdlib.h>

CB_PLUGIN_EXPORT int cb_test_not_an_entry_point(void);

CB_PLUGIN_EXPORT int cb_test_not_an_entry_point(void) { return 42; }

__attribute__((constructor)) static void cb_test_mark_loaded(void) {
    const char* marker = getenv("CB_TEST_CONSTRUCTOR_MARKER");
    if (marker == NULL) return;
    FILE* f = fopen(marker, "w");
    if (f != NULL) fclose(f);
}
