/* include/trit/trit.h is C99: this file compiles it with -std=c99
 * -pedantic-errors (tests/api/CMakeLists.txt), and checks the sizes the
 * ABI fixes (a change in them is an ABI break: bump TRIT_ABI_VERSION). */
#include <trit/trit.h>

#define TRIT_STATIC_ASSERT(cond, name) typedef char trit_static_assert_##name[(cond) ? 1 : -1]

#if defined(__x86_64__) || defined(__aarch64__)
TRIT_STATIC_ASSERT(sizeof(trit_model_options) == 40, model_options);
TRIT_STATIC_ASSERT(sizeof(trit_generate_options) == 64, generate_options);
TRIT_STATIC_ASSERT(sizeof(trit_generate_result) == 40, generate_result);
TRIT_STATIC_ASSERT(sizeof(trit_chat_message) == 16, chat_message);
#endif

int trit_header_c99_check(void) { return (int)TRIT_ABI_VERSION; }

/* A C caller may hand the library any int as a status; errors_test.cpp
 * checks through this that an unknown one gets its own string. */
const char* trit_status_string_of_int_from_c(int status);
const char* trit_status_string_of_int_from_c(int status) { return trit_status_string((trit_status)status); }
