/* tests/fuzz/fuzz.h - shared by the fuzz harnesses in tests/fuzz/fuzz_*.c.

   Each harness defines LLVMFuzzerTestOneInput. Built with -DXLARUN_FUZZ_LIBFUZZER and
   clang -fsanitize=fuzzer (make fuzz), libFuzzer drives it. Built without (make test), this file
   gives it a main() that replays corpora: every argument is a file, or a directory whose files
   are each run once (sorted by name), so a plain gcc build under ASan/UBSan or valgrind runs the
   committed corpus and every kept crash input. The harness may abort() on a broken invariant;
   the library never may.

   Helpers: fuzz_split cuts an input at a separator line into parts (config.json, a safetensors
   file, ...); fuzz_io serves named parts from memory through xlarun_io. */
#ifndef XLARUN_FUZZ_H
#define XLARUN_FUZZ_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define XLARUN_IMPLEMENTATION
#include "../../xlarun.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(__GNUC__)
#define FUZZ_UNUSED __attribute__((unused))
#else
#define FUZZ_UNUSED
#endif

#define FUZZ_CHECK(c)                                                                      \
    do {                                                                                   \
        if (!(c)) {                                                                        \
            fprintf(stderr, "fuzz invariant failed %s:%d: %s\n", __FILE__, __LINE__, #c);  \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* the separator between the parts of one input: a line of its own */
#define FUZZ_SEP "\n--xlarun-part--\n"
#define FUZZ_MAX_PARTS 5

typedef struct { const uint8_t *p; size_t n; } fuzz_part;

/* cut data at each FUZZ_SEP; returns the number of parts (at least 1, at most maxn <=
   FUZZ_MAX_PARTS; the last part keeps any further separators) */
FUZZ_UNUSED static int fuzz_split_n(const uint8_t *data, size_t size, fuzz_part *parts, int maxn) {
    size_t sl = strlen(FUZZ_SEP), i = 0, start = 0;
    int n = 0;
    while (n < maxn - 1 && size >= sl && i + sl <= size) {
        if (!memcmp(data + i, FUZZ_SEP, sl)) {
            parts[n].p = data + start;
            parts[n].n = i - start;
            n++;
            i += sl;
            start = i;
        } else
            i++;
    }
    parts[n].p = data + start;
    parts[n].n = size - start;
    return n + 1;
}
/* at most four parts (the model harness's layout) */
FUZZ_UNUSED static int fuzz_split(const uint8_t *data, size_t size, fuzz_part *parts) {
    return fuzz_split_n(data, size, parts, 4);
}

/* files served from memory through xlarun_io */
#define FUZZ_MAX_FILES 8
typedef struct {
    const char *names[FUZZ_MAX_FILES];
    fuzz_part files[FUZZ_MAX_FILES];
    int n, opens, closes;
} fuzz_fs;
typedef struct { fuzz_part f; size_t pos; fuzz_fs *fs; } fuzz_handle;

FUZZ_UNUSED static void *fuzz_open(void *user, const char *name) {
    fuzz_fs *fs = (fuzz_fs *)user;
    int i;
    for (i = 0; i < fs->n; i++)
        if (!strcmp(fs->names[i], name)) {
            fuzz_handle *h = (fuzz_handle *)malloc(sizeof *h);
            if (!h) return NULL;
            h->f = fs->files[i];
            h->pos = 0;
            h->fs = fs;
            fs->opens++;
            return h;
        }
    return NULL;
}
/* short reads on purpose: at most 1000 bytes at a time, to exercise the refill paths */
FUZZ_UNUSED static size_t fuzz_read(void *handle, void *buf, size_t n) {
    fuzz_handle *h = (fuzz_handle *)handle;
    size_t k = h->f.n - h->pos;
    if (k > n) k = n;
    if (k > 1000) k = 1000;
    if (k) memcpy(buf, h->f.p + h->pos, k);
    h->pos += k;
    return k;
}
FUZZ_UNUSED static void fuzz_close(void *handle) {
    fuzz_handle *h = (fuzz_handle *)handle;
    h->fs->closes++;
    free(h);
}
FUZZ_UNUSED static void fuzz_fs_add(fuzz_fs *fs, const char *name, fuzz_part f) {
    if (fs->n < FUZZ_MAX_FILES) { fs->names[fs->n] = name; fs->files[fs->n] = f; fs->n++; }
}
FUZZ_UNUSED static xlarun_io fuzz_io_of(fuzz_fs *fs) {
    xlarun_io io;
    io.open = fuzz_open;
    io.read = fuzz_read;
    io.close = fuzz_close;
    io.user = fs;
    return io;
}

/* text is valid UTF-8 */
FUZZ_UNUSED static int fuzz_utf8_ok(const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t l = xlarun__utf8_len((const unsigned char *)s + i, n - i);
        if (!l) return 0;
        i += l;
    }
    return 1;
}

/* a message must be one non-empty line */
FUZZ_UNUSED static void fuzz_check_err(xlarun_status st, const xlarun_error *e) {
    if (st == XLARUN_OK) return;
    FUZZ_CHECK(e->status == st);
    FUZZ_CHECK(e->message[0] != 0);
    FUZZ_CHECK(memchr(e->message, 0, sizeof e->message) != NULL);
}

#ifndef XLARUN_FUZZ_LIBFUZZER
#include <dirent.h>
#include <sys/stat.h>

static int fuzz_run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    uint8_t *b;
    long sz;
    if (!f) { fprintf(stderr, "cannot open %s\n", path); return 1; }
    if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        fprintf(stderr, "cannot size %s\n", path);
        return 1;
    }
    b = (uint8_t *)malloc((size_t)sz + 1); /* exactly sz bytes are handed to the harness */
    if (!b || (sz && fread(b, 1, (size_t)sz, f) != (size_t)sz)) {
        fclose(f);
        free(b);
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(b, (size_t)sz);
    free(b);
    return 0;
}

static int fuzz_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    int i, bad = 0, runs = 0;
    for (i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) { fprintf(stderr, "cannot stat %s\n", argv[i]); bad++; continue; }
        if (S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            char **names = NULL;
            size_t n = 0, cap = 0, k;
            while (d && (e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.') continue;
                if (n == cap) {
                    cap = cap ? 2 * cap : 64;
                    names = (char **)realloc(names, cap * sizeof *names);
                    if (!names) return 2;
                }
                names[n] = (char *)malloc(strlen(argv[i]) + strlen(e->d_name) + 2);
                if (!names[n]) return 2;
                sprintf(names[n], "%s/%s", argv[i], e->d_name);
                n++;
            }
            if (d) closedir(d);
            if (n) qsort(names, n, sizeof *names, fuzz_cmp);
            for (k = 0; k < n; k++) {
                bad += fuzz_run_file(names[k]);
                runs++;
                free(names[k]);
            }
            free(names);
        } else {
            bad += fuzz_run_file(argv[i]);
            runs++;
        }
    }
    printf("replay: %d passed, %d failed\n", runs - bad, bad);
    return bad != 0;
}
#endif
#endif
