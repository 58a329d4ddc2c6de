// Where the test plugin variants are built, and what they do on purpose.
//
// tests/plugins/CMakeLists.txt builds one small log sink ("testsink") into several libraries, each
// in its own folder, so a test can point a plugin path at exactly one of them:
//
//     ${CMAKE_BINARY_DIR}/test-plugins/<variant>/lib<variant>.so
//
// Link the target CudaBridge::test_plugins to get this header and a build dependency on every
// variant. CB_TEST_BUILD_DIR comes from cudabridge_test().
//
// Variants (kind logsink, plugin "testsink" v1.0.0, ABI CB_ABI_MAJOR.CB_ABI_MINOR unless noted):
//   good           a working sink; see "What a working variant does" below.
//   older_minor    ABI x.0; logsink table struct_size = offsetof(cb_logsink_table, write_batch),
//                  as an ABI 1.0 plugin has it. The bytes past struct_size still hold a
//                  write_batch pointer that appends cb_test_abi_violation_line and returns
//                  CB_ERR_ABI_MISMATCH, so a host that calls past struct_size is caught.
//   newer_minor    ABI CB_ABI_MINOR + 1; its table is cb_logsink_table plus one more function
//                  pointer, struct_size = that larger size. Works.
//   wrong_major    ABI CB_ABI_MAJOR + 1; otherwise like good.
//   small_struct   descriptor struct_size = offsetof(cb_plugin_descriptor, create).
//   missing_entry  logsink table with write == NULL (required entry missing).
//   create_fails   create returns CB_ERR_INVALID_ARGUMENT after set_last_error(
//                  cb_test_create_refused_message).
//   create_throws  C++ helper plugin whose constructor throws std::runtime_error(
//                  cb_test_constructor_threw_message); the SDK firewall turns it into
//                  CB_ERR_INTERNAL with "unexpected exception: <message>" as last error.
//   no_entry       a valid shared library that does not export cb_plugin_entry.
//   not_a_library  a text file named libnot_a_library.so.
//   dup_v1         plugin "dupsink" v1.0.0, working.
//   dup_v2         plugin "dupsink" v2.0.0, working.
//   dup_both       a folder holding libdup_v1.so and libdup_v2.so (no library of its own).
//   multi          one library with two working plugins, "multi_a" and "multi_b".
//
// What a working variant does: create declares the string parameter "path" (with help text)
// through the host services. The file is the config entry "path" if the instance has one, else
// the parameter's value; with neither, records are accepted and dropped. write appends one line
// per record, "LEVEL CATEGORY message\n" (LEVEL as in cb_test_level_name, CATEGORY "-" when
// NULL), and write_batch appends all lines of the batch in one write. Every call reaches the
// file before it returns; flush is a no-op, close closes the file.
#ifndef CUDABRIDGE_TESTS_PLUGINS_TEST_PLUGINS_HPP
#define CUDABRIDGE_TESTS_PLUGINS_TEST_PLUGINS_HPP

#include <cudabridge/abi.h>

#include <array>
#include <string>
#include <string_view>

#ifndef CB_TEST_BUILD_DIR
#error "CB_TEST_BUILD_DIR must name the build folder (cudabridge_test() defines it)"
#endif

// The folder of one variant: CB_TEST_BUILD_DIR "/test-plugins/<variant>".
inline std::string cb_test_plugin_dir(std::string_view variant) {
    return std::string(CB_TEST_BUILD_DIR "/test-plugins/") + std::string(variant);
}

// The library of one variant: <dir>/lib<variant>.so (not for dup_both, which only holds copies).
inline std::string cb_test_plugin_file(std::string_view variant) {
    return cb_test_plugin_dir(variant) + "/lib" + std::string(variant) + ".so";
}

// Every variant that has a library of its own.
inline constexpr std::array<std::string_view, 13> cb_test_plugin_variants = {
    "good",          "older_minor", "newer_minor",   "wrong_major", "small_struct", "missing_entry", "create_fails",
    "create_throws", "no_entry",    "not_a_library", "dup_v1",      "dup_v2",       "multi"};

inline constexpr std::string_view cb_test_plugin_name = "testsink";
inline constexpr std::string_view cb_test_create_refused_message = "create refused on purpose";
inline constexpr std::string_view cb_test_constructor_threw_message = "constructor threw on purpose";
inline constexpr std::string_view cb_test_abi_violation_line = "ABI-VIOLATION write_batch called past struct_size\n";

// The LEVEL word a working variant writes for each cb_log_level.
inline constexpr std::string_view cb_test_level_name(cb_log_level level) {
    switch (level) {
    case CB_LOG_TRACE:
        return "TRACE";
    case CB_LOG_DEBUG:
        return "DEBUG";
    case CB_LOG_INFO:
        return "INFO";
    case CB_LOG_WARN:
        return "WARN";
    case CB_LOG_ERROR:
        return "ERROR";
    case CB_LOG_FATAL:
        return "FATAL";
    default:
        return "LEVEL?";
    }
}

#endif  // CUDABRIDGE_TESTS_PLUGINS_TEST_PLUGINS_HPP
