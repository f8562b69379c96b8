/* tokenize - xlarun's tokenizer from the command line.

     build/tokenize -m DIR [--no-bos] [--no-special] [--replace-invalid] [-f FILE | TEXT]
     build/tokenize -m DIR --decode 1,2,3

   Prints the ids of the text (with -f, the whole file as one text) space-separated on one stdout
   line, with the tokens the tokenizer's post-processor adds (BOS) unless --no-bos; --no-special
   encodes special-token text ("<|eot_id|>") as plain text. --decode prints the text of the ids as
   `tokenizers` decode(ids) gives it, then a newline. Every error is one line
   "xlarun: error: <message>" on stderr and exit status 1. */
#define _POSIX_C_SOURCE 200809L
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *msg) {
    fprintf(stderr, "xlarun: error: %s\n", msg);
    return 1;
}

static int failf(const char *fmt, const char *arg) {
    char msg[600];
    snprintf(msg, sizeof msg, fmt, arg);
    return fail(msg);
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: tokenize -m DIR [--no-bos] [--no-special] [--replace-invalid] [-f FILE | TEXT]\n"
            "       tokenize -m DIR --decode ID,ID,...\n"
            "\n"
            "  -m, --model DIR      folder with tokenizer.json (tokenizer_config.json optional)\n"
            "  -f, --file FILE      tokenize the whole file as one text\n"
            "      --no-bos         no tokens from the post-processor (add_special_tokens=False)\n"
            "      --no-special     special-token text in the input stays text\n"
            "      --replace-invalid  invalid UTF-8 becomes U+FFFD (default: an error)\n"
            "      --decode LIST    print the text of comma-separated ids\n");
}

/* the whole file, NUL-terminated; NULL with errno set */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL, *p;
    size_t cap = 0, n = 0, r;
    if (!f) return NULL;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            p = (char *)realloc(buf, cap);
            if (!p) { free(buf); fclose(f); errno = ENOMEM; return NULL; }
            buf = p;
        }
        r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    if (ferror(f)) { free(buf); fclose(f); errno = EIO; return NULL; }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    const char *dir = NULL, *file = NULL, *text = NULL, *decode = NULL;
    unsigned flags = 0;
    int i, rc = 0;
    xlarun_tokenizer *t;
    xlarun_error err;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int takes = !strcmp(a, "-m") || !strcmp(a, "--model") || !strcmp(a, "-f") || !strcmp(a, "--file") ||
                    !strcmp(a, "--decode");
        if (takes && i + 1 >= argc) return failf("%s needs a value", a);
        if (!strcmp(a, "-m") || !strcmp(a, "--model")) dir = argv[++i];
        else if (!strcmp(a, "-f") || !strcmp(a, "--file")) file = argv[++i];
        else if (!strcmp(a, "--decode")) decode = argv[++i];
        else if (!strcmp(a, "--no-bos")) flags |= XLARUN_ENCODE_NO_BOS;
        else if (!strcmp(a, "--no-special")) flags |= XLARUN_ENCODE_SPECIAL_AS_TEXT;
        else if (!strcmp(a, "--replace-invalid")) flags |= XLARUN_ENCODE_REPLACE_INVALID;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (a[0] == '-' && a[1] != 0) return failf("unknown option %s (see --help)", a);
        else if (text) return fail("more than one TEXT argument: quote the text, or use -f FILE");
        else text = a;
    }
    if (!dir) return fail("no tokenizer folder: pass -m DIR");
    if (decode && (text || file)) return fail("--decode takes ids, not TEXT or -f");
    if (!decode && text && file) return fail("give TEXT or -f FILE, not both");
    if (!decode && !text && !file) return fail("no text: give TEXT, -f FILE or --decode IDS");
    if (xlarun_tokenizer_open(dir, NULL, &t, &err) != XLARUN_OK) return fail(err.message);
    if (decode) {
        size_t n = 0, cap = strlen(decode) / 2 + 1, len;
        int32_t *ids = (int32_t *)malloc(cap * sizeof *ids);
        const char *p = decode;
        char *out;
        while (*p) {
            char *end;
            long v;
            errno = 0;
            v = strtol(p, &end, 10);
            if (end == p || errno || v < 0 || v > INT32_MAX || (*end && *end != ',') || (*end == ',' && !end[1])) {
                free(ids);
                xlarun_tokenizer_close(t);
                return failf("invalid --decode list '%s': expected ids like 1,2,3", decode);
            }
            ids[n++] = (int32_t)v;
            p = *end ? end + 1 : end;
        }
        if (xlarun_tokenizer_decode(t, ids, n, 0, NULL, 0, &len, &err) != XLARUN_OK) {
            free(ids);
            xlarun_tokenizer_close(t);
            return fail(err.message);
        }
        out = (char *)malloc(len + 1);
        if (xlarun_tokenizer_decode(t, ids, n, 0, out, len + 1, &len, &err) != XLARUN_OK) rc = fail(err.message);
        else {
            fwrite(out, 1, len, stdout);
            fputc('\n', stdout);
        }
        free(out);
        free(ids);
    } else {
        size_t len = 0, n = 0, k, cap;
        char *buf = NULL;
        int32_t *ids;
        void *scratch;
        if (file) {
            if (!(buf = slurp(file, &len))) {
                char msg[600];
                snprintf(msg, sizeof msg, "%s: cannot read: %s", file, strerror(errno));
                xlarun_tokenizer_close(t);
                return fail(msg);
            }
            text = buf;
        } else len = strlen(text);
        cap = len + 16;
        ids = (int32_t *)malloc(cap * sizeof *ids);
        scratch = malloc(xlarun_tokenizer_scratch_bytes(t, len));
        if (!ids || !scratch) rc = fail("out of memory");
        else if (xlarun_tokenizer_encode(t, text, len, flags, ids, cap, &n, scratch, xlarun_tokenizer_scratch_bytes(t, len),
                                         &err) != XLARUN_OK) {
            fprintf(stderr, "xlarun: error: %s%s%s\n", file ? file : "", file ? ": " : "", err.message);
            rc = 1;
        } else {
            for (k = 0; k < n; k++) printf(k ? " %d" : "%d", ids[k]);
            printf("\n");
        }
        free(scratch);
        free(ids);
        free(buf);
    }
    xlarun_tokenizer_close(t);
    return rc;
}
