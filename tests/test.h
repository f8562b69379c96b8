/* tests/test.h - the whole test harness: checks count, failures print where and why.
   Each test program ends with `return test_report("name");`, which prints the closing
   line "N passed, N failed" and returns non-zero when anything failed. */
#ifndef XLARUN_TEST_H
#define XLARUN_TEST_H
#include <stdio.h>
#include <stdlib.h>
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

/* a whole file, NUL-terminated (*len its length, where len is not NULL); NULL if it cannot be read */
#if defined(__GNUC__)
__attribute__((unused))
#endif
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = (char *)malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
        else { buf[n] = 0; if (len) *len = (size_t)n; }
    }
    fclose(f);
    return buf;
}

static int test_report(const char *name) {
    printf("%s: %d passed, %d failed\n", name, test_passed_, test_failed_);
    return test_failed_ != 0;
}
#endif
