/* tests/test.h - the whole test harness: checks count, failures print where and why.
   Each test program ends with `return test_report("name");`, which prints the closing
   line "N passed, N failed" and returns non-zero when anything failed. */
#ifndef XLARUN_TEST_H
#define XLARUN_TEST_H
#include <stdio.h>
#include <string.h>

static int test_passed_, test_failed_;

#define CHECK(cond) CHECKF((cond), "%s", #cond)
#define CHECKF(cond, ...)                                                        \
    do {                                                                         \
        if (cond) test_passed_++;                                                \
        else {                                                                   \
            test_failed_++;                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                 \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)
/* a substring check for error messages */
#define CHECK_CONTAINS(hay, needle)                                              \
    CHECKF((hay) != NULL && strstr((hay), (needle)) != NULL,                     \
           "expected \"%s\" in \"%s\"", (needle), (hay) ? (hay) : "(null)")

static int test_report(const char *name) {
    printf("%s: %d passed, %d failed\n", name, test_passed_, test_failed_);
    return test_failed_ != 0;
}
#endif
