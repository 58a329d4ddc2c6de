/* The no_entry variant: a valid shared library that exports something, but not
 * cb_plugin_entry. The host must refuse it with a clear reason and carry on. */
#include <cudabridge/abi.h>

CB_PLUGIN_EXPORT int cb_test_not_an_entry_point(void);

CB_PLUGIN_EXPORT int cb_test_not_an_entry_point(void) {
    return 42;
}
