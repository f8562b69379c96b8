/* tests/test.h - the whole test harness: named cases, checks that count, failures that say where.

   A suite's main starts with test_init(argc, argv) and ends with `return test_report("name");`.
   Every check runs inside a named case:

       if (test_case("oracle %s-%s", name, dtype)) { ... CHECK(x == y); ... }

   test_case (printf-style) names the case that follows and returns whether it runs. With no
   arguments every case runs; otherwise each argument is a pattern, a substring of a case's name,
   or with * or ? a glob matched against the whole name, and the cases that any pattern matches
   run (build/avx2/test_model gemma). --list prints the names (those the patterns match) instead
   of running them; -v prints each case's name as it starts (a suite may print more: test_verbose).
   A failed check prints "FAIL [case] file:line: why" on stderr. test_report prints the number of
   cases run, then the closing line "name: N passed, M failed" (tests/run.sh reads it), and returns
   non-zero when a check failed, a pattern matched no case, two cases share a name or a check ran
   outside a running case (before the first case, or after one that was not selected). */
#ifndef XLARUN_TEST_H
#define XLARUN_TEST_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__MINGW_PRINTF_FORMAT)
#define TEST_PRINTF_(f, a) __attribute__((format(__MINGW_PRINTF_FORMAT, f, a)))
#elif defined(__GNUC__)
#define TEST_PRINTF_(f, a) __attribute__((format(printf, f, a)))
#else
#define TEST_PRINTF_(f, a)
#endif
#if defined(__GNUC__)
#define TEST_UNUSED_ __attribute__((unused))
#else
#define TEST_UNUSED_
#endif

#define TEST_MAX_PATTERNS 64
static int test_passed_, test_failed_, test_verbose;
static int test_on_;            /* the current case runs */
static char test_name_[256];    /* the current case's name */
static struct {
    const char *pat[TEST_MAX_PATTERNS];
    int hits[TEST_MAX_PATTERNS], n_pat, list, n_cases, n_run, case_failed, n_failed_cases, errors;
    char failed[4][256];        /* the first failed cases' names, repeated before the closing line */
    unsigned long long *seen;   /* the names' hashes: a name given twice is an error */
} test_;

/* a check: cond must hold; a failure prints the case, file:line, what (if not NULL) and the message */
#define TEST_CHECK(cond, what, ...)                                              \
    do {                                                                         \
        if ((cond) && test_on_) test_passed_++;                                  \
        else test_fail_(__FILE__, __LINE__, (what), __VA_ARGS__);                \
    } while (0)
#define CHECK(cond) TEST_CHECK((cond), NULL, "%s", #cond)
#define CHECKF(cond, ...) TEST_CHECK((cond), NULL, __VA_ARGS__)
/* a substring check for error messages */
#define CHECK_CONTAINS(hay, needle)                                              \
    CHECKF((hay) != NULL && strstr((hay), (needle)) != NULL,                     \
           "expected \"%s\" in \"%s\"", (needle), (hay) ? (hay) : "(null)")

static void test_fail_(const char *file, int line, const char *what, const char *fmt, ...) TEST_PRINTF_(4, 5);
static void test_fail_(const char *file, int line, const char *what, const char *fmt, ...) {
    va_list ap;
    if (!test_on_) { /* the suite's mistake, not the library's */
        fprintf(stderr, "FAIL %s:%d: a check outside a running case (after \"%s\")\n", file, line, test_name_);
        test_.errors++;
        return;
    }
    test_failed_++;
    if (!test_.case_failed) {
        test_.case_failed = 1;
        if (test_.n_failed_cases < 4) memcpy(test_.failed[test_.n_failed_cases], test_name_, sizeof test_name_);
        test_.n_failed_cases++;
    }
    fprintf(stderr, "FAIL [%s] %s:%d: ", test_name_, file, line);
    if (what) fprintf(stderr, "%s: ", what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* s matches the glob p (* any run of characters, ? one) */
static int test_glob_(const char *p, const char *s) {
    for (; *p; p++, s++) {
        if (*p == '*') {
            for (p++;; s++) {
                if (test_glob_(p, s)) return 1;
                if (!*s) return 0;
            }
        }
        if (!*s || (*p != '?' && *p != *s)) return 0;
    }
    return !*s;
}

static void test_init(int argc, char **argv) {
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--list")) test_.list = 1;
        else if (a[0] == '-' && a[1] == 'v' && strspn(a + 1, "v") == strlen(a + 1)) test_verbose += (int)strlen(a + 1);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: %s [--list] [-v] [PATTERN...]\n"
                   "runs the cases whose names contain a PATTERN (or match it whole, with * and ?); all without one\n", argv[0]);
            exit(0);
        } else if (a[0] == '-' || test_.n_pat == TEST_MAX_PATTERNS) {
            fprintf(stderr, "%s: %s: unknown option or too many patterns (--help)\n", argv[0], a);
            exit(2);
        } else test_.pat[test_.n_pat++] = a;
    }
}

/* starts the case named by fmt; 1 if it runs */
static int test_case(const char *fmt, ...) TEST_PRINTF_(1, 2);
static int test_case(const char *fmt, ...) {
    va_list ap;
    unsigned long long h = 14695981039346656037ull;
    const char *c;
    int i, on = test_.n_pat == 0;
    va_start(ap, fmt);
    vsnprintf(test_name_, sizeof test_name_, fmt, ap);
    va_end(ap);
    for (c = test_name_; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (i = 0; i < test_.n_cases; i++)
        if (test_.seen[i] == h) {
            fprintf(stderr, "FAIL: two cases are named \"%s\"\n", test_name_);
            test_.errors++;
            break;
        }
    if ((test_.n_cases & (test_.n_cases - 1)) == 0) { /* room for 1, 2, 4, 8, ... */
        void *p = realloc(test_.seen, 2 * ((size_t)test_.n_cases + 1) * sizeof h);
        if (!p) { fprintf(stderr, "test.h: out of memory\n"); exit(2); }
        test_.seen = (unsigned long long *)p;
    }
    test_.seen[test_.n_cases++] = h;
    for (i = 0; i < test_.n_pat; i++)
        if (strchr(test_.pat[i], '*') || strchr(test_.pat[i], '?') ? test_glob_(test_.pat[i], test_name_)
                                                                   : strstr(test_name_, test_.pat[i]) != NULL) {
            test_.hits[i]++;
            on = 1;
        }
    if (test_.list && on) printf("%s\n", test_name_);
    test_on_ = on && !test_.list;
    test_.case_failed = 0;
    test_.n_run += test_on_;
    if (test_on_ && test_verbose) fprintf(stderr, "case %s\n", test_name_);
    return test_on_;
}

/* a whole file, NUL-terminated (*len its length, where len is not NULL); NULL if it cannot be read */
TEST_UNUSED_ static char *read_file(const char *path, size_t *len) {
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
    int i, bad = test_failed_ != 0 || test_.errors != 0;
    free(test_.seen);
    test_.seen = NULL;
    for (i = 0; i < test_.n_pat; i++)
        if (!test_.hits[i]) {
            fprintf(stderr, "%s: no case matches \"%s\" (--list prints the names)\n", name, test_.pat[i]);
            bad = 1;
        }
    if (test_.list) return bad;
    for (i = 0; i < test_.n_failed_cases && i < 4; i++) printf("%s: failed case: %s\n", name, test_.failed[i]);
    if (test_.n_failed_cases > 4) printf("%s: ... and %d more failed cases\n", name, test_.n_failed_cases - 4);
    if (test_.n_run < test_.n_cases) printf("%s: %d of %d cases\n", name, test_.n_run, test_.n_cases);
    else printf("%s: %d case%s\n", name, test_.n_run, test_.n_run == 1 ? "" : "s");
    printf("%s: %d passed, %d failed\n", name, test_passed_, test_failed_);
    return bad;
}
#endif
