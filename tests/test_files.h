/* tests/test_files.h - a suite's temporary folder and files, and a model folder's case: the helpers
   tests/test_model.c (config.json) and tests/test_errors.c (model folders) share.

   Include it after xlarun.h (with XLARUN_IMPLEMENTATION) and test.h; on POSIX define
   _POSIX_C_SOURCE 200809L before the first system header. The suite makes the folder and names it
   in root (mkdtemp under /tmp; on Windows _mkdir under build/) and removes it at the end; tpath
   names a path inside it. Anything that cannot be read or written ends the suite (exit 2): a
   fixture that is missing is the setup's mistake, not a failed check. */
#ifndef XLARUN_TEST_FILES_H
#define XLARUN_TEST_FILES_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <direct.h>
#else
#include <sys/stat.h>
#endif

static char root[64]; /* the temporary folder, "" until the suite makes it */

/* root/rel, in one of a few rotating buffers */
TEST_UNUSED_ static const char *tpath(const char *rel) {
    static char buf[8][1024];
    static int k;
    char *p = buf[k++ & 7];
    snprintf(p, sizeof buf[0], "%s/%s", root, rel);
    return p;
}

/* a whole file (malloc'd, NUL-terminated, *n its length) */
TEST_UNUSED_ static unsigned char *slurp(const char *path, size_t *n) {
    unsigned char *b = (unsigned char *)read_file(path, n);
    if (!b) { fprintf(stderr, "cannot read %s (run from the repository root)\n", path); exit(2); }
    return b;
}

TEST_UNUSED_ static void spit(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}
TEST_UNUSED_ static void spits(const char *path, const char *text) { spit(path, text, strlen(text)); }

/* the folder root/rel */
TEST_UNUSED_ static void mkdir_t(const char *rel) {
#if defined(_WIN32)
    if (_mkdir(tpath(rel)) != 0) { fprintf(stderr, "cannot mkdir %s\n", tpath(rel)); exit(2); }
#else
    if (mkdir(tpath(rel), 0700) != 0) { fprintf(stderr, "cannot mkdir %s\n", tpath(rel)); exit(2); }
#endif
}

/* replace the first occurrence of a by b (same length) in a byte buffer; 1 if found */
TEST_UNUSED_ static int patch_bytes(unsigned char *buf, size_t n, const char *a, const char *b) {
    size_t la = strlen(a), i;
    if (strlen(b) != la) return 0;
    for (i = 0; i + la <= n; i++)
        if (!memcmp(buf + i, a, la)) { memcpy(buf + i, b, la); return 1; }
    return 0;
}

/* a case: the folder dir through xlarun_model_open and xlarun_model_memory (o: NULL for the
   defaults), each with status want and sub in its message; line is the caller's */
TEST_UNUSED_ static void expect_model_opt(const char *dir, const xlarun_model_options *o, xlarun_status want, const char *sub, int line) {
    xlarun_error e;
    xlarun_model *m = (xlarun_model *)&e; /* must be set to NULL on failure */
    size_t bytes = 123;
    xlarun_status st = xlarun_model_open(dir, o, &m, &e);
    CHECKF(st == want && e.status == want, "line %d: xlarun_model_open: status %s, expected %s: %s", line,
           xlarun_status_name(st), xlarun_status_name(want), e.message);
    CHECKF(strstr(e.message, sub) != NULL, "line %d: xlarun_model_open: expected \"%s\" in \"%s\"", line, sub, e.message);
    CHECKF(st == XLARUN_OK || m == NULL, "line %d: *out not NULL after a failed open", line);
    if (st == XLARUN_OK) xlarun_model_close(m);
    st = xlarun_model_memory(dir, o, &bytes, &e);
    CHECKF(st == want && e.status == want, "line %d: xlarun_model_memory: status %s, expected %s: %s", line,
           xlarun_status_name(st), xlarun_status_name(want), e.message);
    CHECKF(strstr(e.message, sub) != NULL, "line %d: xlarun_model_memory: expected \"%s\" in \"%s\"", line, sub, e.message);
    CHECKF(st == XLARUN_OK || bytes == 0, "line %d: bytes not 0 after a failed xlarun_model_memory", line);
}
#define EXPECT_MODEL(dir, want, sub) expect_model_opt((dir), NULL, (want), (sub), __LINE__)
#endif
