/* test_tokenizer.c - the tokenizer layer against the `tokenizers` oracle (tests/fixtures/tokenizers,
   made by tools/make_tokenizer_fixtures.py): encode, encode with special-token text as text, BOS,
   invalid UTF-8 replaced as Python does, decode, skip_special decode, streaming detokenization,
   round trips; the NFC normalizer against Unicode 9.0's (nfc.txt, from Python's unicodedata);
   then lookups, exact memory, no allocation after loading, scratch and output sizes, and the
   bad-input catalogue (served from memory through xlarun_io). Run from the repository root. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t n_allocs;
static void *counting_malloc(size_t n) { n_allocs++; return malloc(n); }
#define XLARUN_MALLOC(sz, u) ((void)(u), counting_malloc(sz))
#define XLARUN_FREE(p, u) ((void)(u), free(p))
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include "test.h"

#define FIX "tests/fixtures/tokenizers/"

/* ---- small helpers -------------------------------------------------------------------------- */

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}
static size_t unhex(const char *s, size_t n, unsigned char *out) {
    size_t i;
    for (i = 0; i + 1 < n + 1 && i / 2 < n / 2; i += 2) out[i / 2] = (unsigned char)(hexval(s[i]) * 16 + hexval(s[i + 1]));
    return n / 2;
}

typedef struct bytes { unsigned char *p; size_t n; } bytes;

static bytes *corpus;
static size_t n_corpus, n_main;   /* corpus.txt's cases, then corpus_nfc.txt's (the qwen2 family's) */
static size_t n_nfc_end;          /* then corpus_gemma.txt's (the gemma family's), from here */
static size_t n_gemma_end;        /* then corpus_case.txt's (the o200k and tekken families'), from here */

/* 1 if the file was read */
static int load_corpus(const char *path) {
    size_t len, cap = 16384;
    char *text = read_file(path, &len), *line, *next;
    if (!corpus) corpus = (bytes *)calloc(cap, sizeof *corpus);
    if (!text) return 0;
    for (line = text; *line; line = next) {
        size_t n;
        next = strchr(line, '\n');
        n = next ? (size_t)(next - line) : strlen(line);
        next = next ? next + 1 : line + n;
        if (line[0] == '#') continue;
        if (n_corpus == cap) break;
        corpus[n_corpus].p = (unsigned char *)malloc(n / 2 + 1);
        corpus[n_corpus].n = unhex(line, n, corpus[n_corpus].p);
        n_corpus++;
    }
    free(text);
    return 1;
}

/* the text Python gives tokenizers for a case: invalid UTF-8 replaced by U+FFFD */
static bytes replaced(bytes b) {
    bytes r;
    size_t i = 0, l;
    r.p = (unsigned char *)malloc(3 * b.n + 1);
    r.n = 0;
    while (i < b.n) {
        l = xlarun__utf8_len(b.p + i, b.n - i);
        if (l) { memcpy(r.p + r.n, b.p + i, l); r.n += l; i += l; continue; }
        i += xlarun__utf8_bad_len(b.p + i, b.n - i);
        memcpy(r.p + r.n, "\xEF\xBF\xBD", 3);
        r.n += 3;
    }
    return r;
}

static size_t parse_ids(const char *s, int32_t *ids, size_t cap, char sep) {
    size_t n = 0;
    while (*s && *s != '\n') {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s) break;
        if (n < cap) ids[n] = (int32_t)v;
        n++;
        s = end;
        if (*s == sep) s++;
        else break;
    }
    return n;
}

static int same_ids(const int32_t *a, size_t na, const int32_t *b, size_t nb) {
    return na == nb && (na == 0 || !memcmp(a, b, na * sizeof *a));
}

static void print_ids(const char *what, const int32_t *ids, size_t n) {
    size_t i;
    fprintf(stderr, "  %s:", what);
    for (i = 0; i < n && i < 60; i++) fprintf(stderr, " %d", ids[i]);
    fprintf(stderr, "%s\n", n > 60 ? " ..." : "");
}

static unsigned char *scratch;
static size_t scratch_bytes;

static xlarun_status enc(const xlarun_tokenizer *t, bytes b, unsigned flags, int32_t *ids, size_t cap,
                         size_t *n, xlarun_error *err) {
    size_t need = xlarun_tokenizer_scratch_bytes(t, b.n);
    if (need > scratch_bytes) {
        free(scratch);
        scratch = (unsigned char *)malloc(need);
        scratch_bytes = need;
    }
    return xlarun_tokenizer_encode(t, (const char *)b.p, b.n, flags, ids, cap, n, scratch, scratch_bytes, err);
}

/* streaming: push every id, concatenate, flush */
static size_t stream(const xlarun_tokenizer *t, const int32_t *ids, size_t n, unsigned flags, char *out, size_t cap) {
    xlarun_detok d;
    size_t i, len = 0, got;
    char *piece = (char *)malloc(xlarun_tokenizer_max_piece(t));
    xlarun_error err;
    xlarun_detok_init(&d, t, flags);
    for (i = 0; i < n; i++) {
        if (xlarun_detok_push(&d, ids[i], piece, xlarun_tokenizer_max_piece(t), &got, &err) != XLARUN_OK) {
            CHECKF(0, "detok_push: %s", err.message);
            break;
        }
        CHECKF(xlarun__utf8_check((const unsigned char *)piece, got) == got, "detok piece is not valid UTF-8");
        CHECKF(strlen(piece) == got || memchr(piece, 0, got), "detok piece not NUL-terminated");
        if (len + got <= cap) memcpy(out + len, piece, got);
        len += got;
    }
    got = xlarun_detok_flush(&d, piece, xlarun_tokenizer_max_piece(t));
    if (len + got <= cap) memcpy(out + len, piece, got);
    len += got;
    free(piece);
    return len;
}

/* ---- the oracle ----------------------------------------------------------------------------- */

/* whether the lines of case i that follow its n line (b, s, d, k) include one of this kind */
static int case_has(const char *p, char kind, size_t i) {
    while (*p && strchr("bsdk", p[0]) && p[1] == ' ' && (size_t)strtoul(p + 2, NULL, 10) == i) {
        if (p[0] == kind) return 1;
        p = strchr(p, '\n');
        if (!p) break;
        p++;
    }
    return 0;
}

typedef struct family_stats { size_t cases, agree, special_agree, bos_agree, decode_agree, skip_agree, stream_agree,
                              roundtrip, valid, invalid_agree, invalid, random_agree, randoms; } family_stats;

/* a family's expected.txt against the first n_cases cases of the corpus; case numbers from
   n_main on are those of an extra corpus loaded at extra (the family's own cases) */
static void oracle_family(const char *name, size_t n_cases, size_t extra) {
    char dir[256], path[300];
    size_t len, bytes_needed = 0;
    char *text, *line, *next;
    xlarun_tokenizer *t = NULL;
    xlarun_error err;
    family_stats st;
    int32_t *ids = (int32_t *)malloc(sizeof(int32_t) * 65536), *want = (int32_t *)malloc(sizeof(int32_t) * 65536);
    int32_t *nids = (int32_t *)malloc(sizeof(int32_t) * 65536);
    size_t n_nids = 0, cur = (size_t)-1;
    char *out = (char *)malloc(1 << 20), *out2 = (char *)malloc(1 << 20);
    unsigned char *hex = (unsigned char *)malloc(1 << 20);
    size_t allocs;
    memset(&st, 0, sizeof st);
    snprintf(dir, sizeof dir, FIX "%s", name);
    snprintf(path, sizeof path, "%s/expected.txt", dir);
    CHECKF(xlarun_tokenizer_memory(dir, NULL, &bytes_needed, &err) == XLARUN_OK, "%s: %s", name, err.message);
    CHECKF(xlarun_tokenizer_open(dir, NULL, &t, &err) == XLARUN_OK, "%s: %s", name, err.message);
    text = read_file(path, &len);
    CHECKF(text != NULL, "cannot read %s", path);
    if (!t || !text) { free(text); return; }
    allocs = n_allocs;
    for (line = text; *line; line = next) {
        char kind = line[0];
        size_t i, n, nw;
        bytes b, r;
        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        if (kind == '#') continue;
        if (kind == 'r') {   /* r ids hex: decode of a random sequence */
            char *sp = strchr(line + 2, ' ');
            size_t hn = (size_t)(next - 1 - (sp + 1));
            nw = parse_ids(line + 2, want, 65536, ',');
            unhex(sp + 1, hn, hex);
            xlarun_tokenizer_decode(t, want, nw, 0, out, 1 << 20, &n, &err);
            st.randoms++;
            if (n == hn / 2 && !memcmp(out, hex, n)) st.random_agree++;
            else CHECKF(0, "%s: decode of random ids %.60s: got \"%.*s\", tokenizers \"%.*s\"", name, line + 2,
                        (int)n, out, (int)(hn / 2), (const char *)hex);
            n = stream(t, want, nw, 0, out2, 1 << 20);
            if (t->dec == XLARUN__DEC_BYTELEVEL || t->dec == XLARUN__DEC_NONE)
                CHECKF(n == hn / 2 && !memcmp(out2, hex, n), "%s: streamed decode of random ids %.60s differs", name, line + 2);
            continue;
        }
        i = (size_t)strtoul(line + 2, NULL, 10);
        if (i >= n_cases) { CHECKF(0, "%s: case %lu outside the corpus", name, (unsigned long)i); continue; }
        b = corpus[i < n_main ? i : extra + (i - n_main)];
        r = replaced(b);
        {
            const char *s = strchr(line + 2, ' ');
            s = s && s < next ? s + 1 : next - 1;
            if (kind == 'd' || kind == 'k') {
                size_t hn = (size_t)(next - 1 - s);
                if (s[hn] != '\n') hn = strlen(s);
                unhex(s, hn, hex);
                nw = hn / 2;
            } else nw = parse_ids(s, want, 65536, ' ');
        }
        if (kind == 'n') {
            int valid = r.n == b.n && !memcmp(r.p, b.p, b.n);
            xlarun_status s1 = enc(t, b, XLARUN_ENCODE_NO_BOS | XLARUN_ENCODE_REPLACE_INVALID, ids, 65536, &n, &err);
            st.cases++;
            memcpy(nids, want, nw * sizeof *want);
            n_nids = nw;
            cur = i;
            if (s1 == XLARUN_OK && same_ids(ids, n, want, nw)) st.agree++;
            else {
                CHECKF(0, "%s case %lu: ids differ from tokenizers (%s)", name, (unsigned long)i, s1 ? err.message : "");
                fprintf(stderr, "  text: \"%.*s\"\n", (int)r.n, (const char *)r.p);
                print_ids("xlarun", ids, n);
                print_ids("tokenizers", want, nw);
            }
            if (!valid) {   /* without the flag: an error naming the first bad byte */
                char msg[64];
                st.invalid++;
                snprintf(msg, sizeof msg, "invalid UTF-8 at byte offset %lu", (unsigned long)xlarun__utf8_check(b.p, b.n));
                if (enc(t, b, XLARUN_ENCODE_NO_BOS, ids, 65536, &n, &err) == XLARUN_ERR_ARGUMENT && strstr(err.message, msg))
                    st.invalid_agree++;
                else CHECKF(0, "%s case %lu: invalid UTF-8 not refused with \"%s\": %s", name, (unsigned long)i, msg, err.message);
            } else st.valid++;
            /* special-token text as text: equal to n unless an s line follows */
            if (!case_has(next, 's', i)) {
                enc(t, b, XLARUN_ENCODE_NO_BOS | XLARUN_ENCODE_REPLACE_INVALID | XLARUN_ENCODE_SPECIAL_AS_TEXT, ids, 65536, &n, &err);
                if (same_ids(ids, n, want, nw)) st.special_agree++;
                else CHECKF(0, "%s case %lu: special-as-text ids differ", name, (unsigned long)i);
            }
            /* decode: equal to the text unless a d line follows; streamed equal to decoded */
            xlarun_tokenizer_decode(t, want, nw, 0, out, 1 << 20, &n, &err);
            if (!case_has(next, 'd', i)) {
                if (n == r.n && !memcmp(out, r.p, n)) { st.decode_agree++; if (valid) st.roundtrip++; }
                else CHECKF(0, "%s case %lu: decode gives \"%.*s\", expected the text \"%.*s\"", name, (unsigned long)i,
                            (int)n, out, (int)r.n, (const char *)r.p);
            }
            len = stream(t, want, nw, 0, out2, 1 << 20);
            if (len == n && !memcmp(out, out2, n)) st.stream_agree++;
            else CHECKF(0, "%s case %lu: streamed \"%.*s\", decoded \"%.*s\"", name, (unsigned long)i, (int)len, out2, (int)n, out);
        } else if (kind == 'b') {
            enc(t, b, XLARUN_ENCODE_REPLACE_INVALID, ids, 65536, &n, &err);
            if (same_ids(ids, n, want, nw)) st.bos_agree++;
            else CHECKF(0, "%s case %lu: ids with BOS differ", name, (unsigned long)i);
        } else if (kind == 's') {
            enc(t, b, XLARUN_ENCODE_NO_BOS | XLARUN_ENCODE_REPLACE_INVALID | XLARUN_ENCODE_SPECIAL_AS_TEXT, ids, 65536, &n, &err);
            if (same_ids(ids, n, want, nw)) st.special_agree++;
            else {
                CHECKF(0, "%s case %lu: special-as-text ids differ", name, (unsigned long)i);
                print_ids("xlarun", ids, n);
                print_ids("tokenizers", want, nw);
            }
        } else if (kind == 'd' && cur == i) {
            xlarun_tokenizer_decode(t, nids, n_nids, 0, out, 1 << 20, &n, &err);
            if (n == nw && !memcmp(out, hex, n)) st.decode_agree++;
            else CHECKF(0, "%s case %lu: decode gives \"%.*s\", tokenizers \"%.*s\"", name, (unsigned long)i, (int)n, out,
                        (int)nw, (const char *)hex);
        } else if (kind == 'k' && cur == i) {
            xlarun_tokenizer_decode(t, nids, n_nids, XLARUN_DECODE_SKIP_SPECIAL, out, 1 << 20, &n, &err);
            st.skip_agree += n == nw && !memcmp(out, hex, n);
            CHECKF(n == nw && !memcmp(out, hex, n), "%s case %lu: skip-special decode gives \"%.*s\", tokenizers \"%.*s\"",
                   name, (unsigned long)i, (int)n, out, (int)nw, (const char *)hex);
        }
        free(r.p);
    }
    CHECKF(n_allocs == allocs, "%s: encoding and decoding allocated %lu times", name, (unsigned long)(n_allocs - allocs));
    printf("%-7s %lu cases: ids agree %lu, special-as-text %lu, with BOS %lu/200, invalid UTF-8 refused %lu/%lu; "
           "decode agrees %lu (+%lu skip_special), streamed %lu, round trip %lu/%lu valid; random decodes %lu/%lu; "
           "%lu bytes\n", name, (unsigned long)st.cases, (unsigned long)st.agree, (unsigned long)st.special_agree,
           (unsigned long)st.bos_agree, (unsigned long)st.invalid_agree, (unsigned long)st.invalid,
           (unsigned long)st.decode_agree, (unsigned long)st.skip_agree, (unsigned long)st.stream_agree,
           (unsigned long)st.roundtrip, (unsigned long)st.valid, (unsigned long)st.random_agree,
           (unsigned long)st.randoms, (unsigned long)bytes_needed);
    CHECKF(st.cases == n_cases && st.agree == st.cases, "%s: %lu of %lu cases agree (%lu expected)", name,
           (unsigned long)st.agree, (unsigned long)st.cases, (unsigned long)n_cases);
    xlarun_tokenizer_close(t);
    free(text);
    free(ids); free(want); free(nids); free(out); free(out2); free(hex);
}

/* ---- NFC against Unicode 9.0's ---------------------------------------------------------------- */

/* "61.323.302" -> UTF-8; returns the bytes */
static size_t cps_utf8(const char *s, const char *end, unsigned char *out) {
    size_t n = 0;
    while (s < end) {
        char *e;
        unsigned long cp = strtoul(s, &e, 16);
        if (e == s) break;
        n += xlarun__tk_put_cp(out + n, (uint32_t)cp);
        s = *e == '.' ? e + 1 : e;
    }
    return n;
}

/* nfc.txt: the NFC of strings around every code point with a combining class or a canonical
   decomposition, from Python's unicodedata (Unicode 9.0.0, tokenizers' version); xlarun__nfc
   directly, and the growth bound and the quick check it relies on */
static void test_nfc(void) {
    size_t len, cases = 0, agree = 0, changed = 0, longest = 0;
    char *text = read_file(FIX "nfc.txt", &len), *line, *next;
    unsigned char in[256], want[256], out[3 * 256];
    uint32_t cps[3 * 256];
    CHECKF(text != NULL, "cannot read " FIX "nfc.txt");
    if (!text) return;
    for (line = text; *line; line = next) {
        const char *sp, *eol;
        size_t n, m, w;
        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        if (line[0] == '#') continue;
        eol = next[-1] == '\n' ? next - 1 : next;
        sp = (const char *)memchr(line, ' ', (size_t)(eol - line));
        if (!sp || eol - line > 120) { CHECKF(0, "nfc.txt: bad line %.40s", line); continue; }
        n = cps_utf8(line, sp, in);
        w = sp[1] == '=' ? (memcpy(want, in, n), n) : cps_utf8(sp + 1, eol, want);
        m = xlarun__nfc(in, n, out, cps);
        cases++;
        changed += w != n || memcmp(want, in, n) != 0;
        if (m > longest) longest = m;
        if (m == w && !memcmp(out, want, m)) agree++;
        else CHECKF(0, "nfc.txt: NFC of %.*s is %.*s in xlarun", (int)(sp - line), line, (int)(eol - sp - 1), sp + 1);
        CHECKF(m <= XLARUN__NFC_GROWTH * n, "nfc.txt: %.*s grows past the bound", (int)(sp - line), line);
        if (xlarun__nfc_quick(in, n)) CHECKF(m == n && !memcmp(out, in, n), "nfc.txt: quick check wrong on %.*s", (int)(sp - line), line);
    }
    printf("nfc     %lu strings: xlarun's NFC equals Unicode 9.0's on %lu (%lu of them changed by it)\n",
           (unsigned long)cases, (unsigned long)agree, (unsigned long)changed);
    CHECKF(cases > 18000 && agree == cases, "nfc.txt: %lu of %lu agree", (unsigned long)agree, (unsigned long)cases);
    {   /* the worst case of the bound: U+1D160 (4 bytes) is 3 code points (12 bytes) in NFC */
        static const unsigned char worst[8] = {0xF0, 0x9D, 0x85, 0xA0, 0xF0, 0x9D, 0x85, 0xA0};
        CHECK(xlarun__nfc(worst, 8, out, cps) == XLARUN__NFC_GROWTH * 8);
    }
    free(text);
}

/* ---- lookups, memory, sizes ----------------------------------------------------------------- */

static void test_lookups(void) {
    xlarun_tokenizer *t;
    xlarun_error err;
    const int32_t *eos;
    size_t n, len, bytes;
    int32_t eot;
    void *mem;
    if (xlarun_tokenizer_open(FIX "llama3", NULL, &t, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); return; }
    CHECK(xlarun_tokenizer_vocab_size(t) == 1469);
    eot = xlarun_tokenizer_token_id(t, "<|eot_id|>", 10);
    CHECK(eot == 1449);
    CHECK(xlarun_tokenizer_is_special(t, eot) == 1);
    CHECK(xlarun_tokenizer_is_special(t, 5) == 0);
    CHECK(xlarun_tokenizer_token_id(t, "<|eot_id", 8) == -1);
    CHECK(xlarun_tokenizer_token_id(t, "\xC4\xA0", 2) == 220);   /* "Ġ": the space */
    CHECK(xlarun_tokenizer_bos_id(t) == 1440 && xlarun_tokenizer_adds_bos(t));
    n = xlarun_tokenizer_eos_ids(t, &eos);
    CHECKF(n == 3 && eos[0] == 1441 && eos[1] == 1448 && eos[2] == 1449, "llama3 eos from generation_config.json: %lu", (unsigned long)n);
    CHECK(xlarun_tokenizer_chat_template(t) && strstr(xlarun_tokenizer_chat_template(t), "<|start_header_id|>"));
    CHECK(!strcmp(xlarun_tokenizer_token_text(t, eot, &len), "<|eot_id|>") && len == 10);
    CHECK(xlarun_tokenizer_token_text(t, 1469, &len) == NULL && len == 0);
    CHECK(xlarun_tokenizer_max_piece(t) >= 3 * 10);
    {   /* output too small: the count needed; scratch too small: the size to pass */
        int32_t ids[4];
        unsigned char small[10];
        const char *s = "Hello world, this is a test of the output size.";
        CHECK(xlarun_tokenizer_encode(t, s, strlen(s), 0, ids, 4, &n, NULL, 0, &err) == XLARUN_ERR_MEMORY && n > 4);
        CHECK_CONTAINS(err.message, "tokens, the output holds 4");
        CHECK(xlarun_tokenizer_encode(t, s, strlen(s), 0, NULL, 0, &n, NULL, 0, &err) == XLARUN_ERR_MEMORY && n > 4);
        CHECK(xlarun_tokenizer_encode(t, s, strlen(s), 0, ids, 4, &n, small, sizeof small, &err) == XLARUN_ERR_MEMORY);
        CHECK_CONTAINS(err.message, "bytes of scratch (xlarun_tokenizer_scratch_bytes");
        CHECK(xlarun_tokenizer_encode(t, "", 0, 0, ids, 4, &n, NULL, 0, &err) == XLARUN_OK && n == 1 && ids[0] == 1440);
        CHECK(xlarun_tokenizer_encode(t, "", 0, XLARUN_ENCODE_NO_BOS, ids, 4, &n, NULL, 0, &err) == XLARUN_OK && n == 0);
    }
    {   /* a long text with the stack scratch: refused with the size; with scratch: fine */
        size_t big = 200000, i;
        char *s = (char *)malloc(big);
        int32_t *ids = (int32_t *)malloc(sizeof(int32_t) * big);
        for (i = 0; i < big; i++) s[i] = "ab cd\n"[i % 6];
        CHECK(xlarun_tokenizer_encode(t, s, big, 0, ids, big, &n, NULL, 0, &err) == XLARUN_ERR_MEMORY);
        CHECK_CONTAINS(err.message, "scratch NULL");
        mem = malloc(xlarun_tokenizer_scratch_bytes(t, big));
        CHECKF(xlarun_tokenizer_encode(t, s, big, 0, ids, big, &n, mem, xlarun_tokenizer_scratch_bytes(t, big), &err) == XLARUN_OK,
               "%s", err.message);
        free(mem);
        free(s);
        free(ids);
    }
    {   /* decode sizes, ids out of range */
        int32_t ids[3] = {1440, 9, 1449};
        char out[64];
        CHECK(xlarun_tokenizer_decode(t, ids, 3, 0, NULL, 0, &len, &err) == XLARUN_OK && len == 17 + 1 + 10);
        CHECK(xlarun_tokenizer_decode(t, ids, 3, 0, out, len, &n, &err) == XLARUN_ERR_MEMORY);
        CHECK(xlarun_tokenizer_decode(t, ids, 3, 0, out, len + 1, &n, &err) == XLARUN_OK && !strcmp(out, "<|begin_of_text|>*<|eot_id|>"));
        CHECK(xlarun_tokenizer_decode(t, ids, 3, XLARUN_DECODE_SKIP_SPECIAL, out, sizeof out, &n, &err) == XLARUN_OK && !strcmp(out, "*"));
        ids[1] = 1469;
        CHECK(xlarun_tokenizer_decode(t, ids, 3, 0, out, sizeof out, &n, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "ids[1] = 1469 is outside the vocabulary (0..1468)");
        ids[1] = -1;
        CHECK(xlarun_tokenizer_decode(t, ids, 3, 0, out, sizeof out, &n, &err) == XLARUN_ERR_ARGUMENT);
    }
    {   /* streaming: a 4-byte emoji split over byte tokens comes out whole, once */
        xlarun_detok d;
        char piece[256];
        int32_t id[4];
        const unsigned char emoji[4] = {0xF0, 0x9F, 0x98, 0x80};
        int k;
        size_t got, total = 0;
        for (k = 0; k < 4; k++) {   /* the byte-level alphabet's character for each byte */
            unsigned char ch[4];
            size_t l = xlarun__tk_put_cp(ch, xlarun__bl_cp(emoji[k]));
            id[k] = xlarun_tokenizer_token_id(t, (const char *)ch, l);
        }
        CHECK(id[0] >= 0 && id[1] >= 0 && id[2] >= 0 && id[3] >= 0);
        xlarun_detok_init(&d, t, 0);
        for (k = 0; k < 4; k++) {
            CHECK(xlarun_detok_push(&d, id[k], piece, sizeof piece, &got, &err) == XLARUN_OK);
            CHECK(k == 3 ? got == 4 && !memcmp(piece, "\xF0\x9F\x98\x80", 4) : got == 0);
            total += got;
        }
        CHECK(xlarun_detok_flush(&d, piece, sizeof piece) == 0);
        /* an unfinished character at the end becomes U+FFFD at the flush */
        CHECK(xlarun_detok_push(&d, id[0], piece, sizeof piece, &got, &err) == XLARUN_OK && got == 0);
        CHECK(xlarun_detok_flush(&d, piece, sizeof piece) == 3 && !strcmp(piece, "\xEF\xBF\xBD"));
        CHECK(xlarun_detok_push(&d, 1469, piece, sizeof piece, &got, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "outside the vocabulary");
        CHECK(xlarun_detok_push(&d, 1440, piece, 5, &got, &err) == XLARUN_ERR_MEMORY);
        (void)total;
    }
    xlarun_tokenizer_close(t);

    /* exact memory: the size works, one 64-byte step less does not */
    CHECK(xlarun_tokenizer_memory(FIX "sp", NULL, &bytes, &err) == XLARUN_OK);
    mem = malloc(bytes);
    CHECKF(xlarun_tokenizer_open_in(FIX "sp", NULL, mem, bytes, &t, &err) == XLARUN_OK, "%s", err.message);
    if (t) {
        CHECK(xlarun_tokenizer_bos_id(t) == 1 && xlarun_tokenizer_adds_bos(t));
        n = xlarun_tokenizer_eos_ids(t, &eos);
        CHECK(n == 1 && eos[0] == 2);   /* tokenizer_config.json eos_token */
        CHECK(xlarun_tokenizer_chat_template(t) && !strncmp(xlarun_tokenizer_chat_template(t), "{% for m in", 11));
        CHECK(xlarun_tokenizer_is_special(t, 0) && xlarun_tokenizer_is_special(t, 2));
        {   /* the leading space is stripped only at the start of the text */
            int32_t ids[16];
            char out[64];
            size_t got;
            xlarun_detok d;
            CHECK(xlarun_tokenizer_encode(t, "a b", 3, XLARUN_ENCODE_NO_BOS, ids, 16, &n, NULL, 0, &err) == XLARUN_OK);
            xlarun_detok_init(&d, t, 0);
            len = 0;
            for (got = 0; got < n; got++) {
                size_t g;
                xlarun_detok_push(&d, ids[got], out + len, sizeof out - len, &g, &err);
                len += g;
            }
            CHECK(len == 3 && !memcmp(out, "a b", 3));
        }
        xlarun_tokenizer_close(t);
    }
    CHECK(xlarun_tokenizer_open_in(FIX "sp", NULL, mem, bytes - 64, &t, &err) == XLARUN_ERR_MEMORY);
    CHECK_CONTAINS(err.message, "bytes of tokenizer memory are too few (xlarun_tokenizer_memory gives the size)");
    free(mem);

    if (xlarun_tokenizer_open(FIX "gpt2", NULL, &t, &err) == XLARUN_OK) {
        CHECK(xlarun_tokenizer_bos_id(t) == 1 && !xlarun_tokenizer_adds_bos(t));   /* named, not added */
        n = xlarun_tokenizer_eos_ids(t, &eos);
        CHECK(n == 1 && eos[0] == 2);
        xlarun_tokenizer_close(t);
    } else CHECKF(0, "%s", err.message);
}

/* the Qwen2 fixture: its lookups, one digit per piece, NFC before everything but the raw added
   tokens, the scratch NFC needs, exact memory */
static size_t enc_ids(const xlarun_tokenizer *t, const char *text, int32_t *ids, size_t cap) {
    size_t n = 0;
    xlarun_error err;
    CHECKF(xlarun_tokenizer_encode(t, text, strlen(text), XLARUN_ENCODE_NO_BOS, ids, cap, &n, NULL, 0, &err) == XLARUN_OK,
           "qwen2: \"%s\": %s", text, err.message);
    return n;
}

static void test_qwen2(void) {
    xlarun_tokenizer *t;
    xlarun_error err;
    const int32_t *eos;
    int32_t ids[64], ids2[64], eot, im_end;
    size_t n, i, bytes;
    void *mem;
    if (xlarun_tokenizer_open(FIX "qwen2", NULL, &t, &err) != XLARUN_OK) { CHECKF(0, "qwen2: %s", err.message); return; }
    CHECK(xlarun_tokenizer_vocab_size(t) == 1634);
    eot = xlarun_tokenizer_token_id(t, "<|endoftext|>", 13);
    im_end = xlarun_tokenizer_token_id(t, "<|im_end|>", 10);
    CHECK(eot == 1620 && im_end == 1622 && xlarun_tokenizer_is_special(t, eot));
    CHECK(!xlarun_tokenizer_is_special(t, xlarun_tokenizer_token_id(t, "<tool_call>", 11)));
    CHECK(xlarun_tokenizer_bos_id(t) == -1 && !xlarun_tokenizer_adds_bos(t));   /* no BOS: bos_token null */
    n = xlarun_tokenizer_eos_ids(t, &eos);
    CHECK(n == 2 && eos[0] == im_end && eos[1] == eot);
    CHECK(xlarun_tokenizer_chat_template(t) && strstr(xlarun_tokenizer_chat_template(t), "You are Qwen"));
    /* one digit per piece */
    n = enc_ids(t, "12345", ids, 64);
    CHECK(n == 5);
    for (i = 0; i < n && i < 5; i++) CHECK(ids[i] == xlarun_tokenizer_token_id(t, "12345" + i, 1));
    /* NFC first: e + U+0301 is U+00E9, U+212B is U+00C5, a jamo pair is its syllable */
    n = enc_ids(t, "cafe\xCC\x81", ids, 64);
    CHECK(n == enc_ids(t, "caf\xC3\xA9", ids2, 64) && !memcmp(ids, ids2, n * sizeof *ids));
    n = enc_ids(t, "\xE2\x84\xAB", ids, 64);
    CHECK(n == enc_ids(t, "\xC3\x85", ids2, 64) && !memcmp(ids, ids2, n * sizeof *ids));
    n = enc_ids(t, "\xE1\x84\x80\xE1\x85\xA1", ids, 64);
    CHECK(n == enc_ids(t, "\xEA\xB0\x80", ids2, 64) && !memcmp(ids, ids2, n * sizeof *ids));
    /* a normalized added token matches its NFC, written either way; a raw one only its own bytes */
    n = enc_ids(t, "<|ha\xCC\x81|>", ids, 64);
    CHECK(n == 1 && ids[0] == xlarun_tokenizer_token_id(t, "<|ha\xCC\x81|>", 8));
    CHECK(enc_ids(t, "<|h\xC3\xA1|>", ids2, 64) == 1 && ids2[0] == ids[0]);
    n = enc_ids(t, "<|e\xCC\x81|>", ids, 64);
    CHECK(n == 1 && ids[0] == xlarun_tokenizer_token_id(t, "<|e\xCC\x81|>", 7));
    CHECK(enc_ids(t, "<|\xC3\xA9|>", ids2, 64) > 1);
    /* a mark after a special token stays apart: each segment is normalized alone */
    n = enc_ids(t, "e<|im_end|>\xCC\x81", ids, 64);
    CHECK(n >= 3 && ids[1] == im_end);
    {   /* scratch: scratch_bytes(len) is exactly enough for the worst text (every byte invalid:
           U+FFFD, 3 bytes each, which NFC keeps); U+1D160 (NFC triples it) fits too; text below
           U+0300 needs no NFC room, so the stack buffer holds 1,000 bytes of it, not of U+1EBF */
        size_t len = 999, sb = xlarun_tokenizer_scratch_bytes(t, len), got;
        char *text = (char *)malloc(len);
        int32_t *big = (int32_t *)malloc(sizeof(int32_t) * 4 * len);
        mem = malloc(sb);
        memset(text, 0xFF, len);
        CHECKF(xlarun_tokenizer_encode(t, text, len, XLARUN_ENCODE_REPLACE_INVALID, big, 4 * len, &got, mem, sb, &err) == XLARUN_OK,
               "%s", err.message);
        CHECK(xlarun_tokenizer_encode(t, text, len, XLARUN_ENCODE_REPLACE_INVALID, big, 4 * len, &got, mem, sb - 1, &err) ==
              XLARUN_ERR_MEMORY);
        for (i = 0; i + 4 <= len; i += 4) memcpy(text + i, "\xF0\x9D\x85\xA0", 4);
        CHECKF(xlarun_tokenizer_encode(t, text, i, 0, big, 4 * len, &got, mem, sb, &err) == XLARUN_OK, "%s", err.message);
        for (i = 0; i < len; i++) text[i] = "ab cd\n"[i % 6];
        CHECKF(xlarun_tokenizer_encode(t, text, len, 0, big, 4 * len, &got, NULL, 0, &err) == XLARUN_OK, "%s", err.message);
        for (i = 0; i + 3 <= len; i += 3) memcpy(text + i, "\xE1\xBA\xBF", 3);
        CHECK(xlarun_tokenizer_encode(t, text, i, 0, big, 4 * len, &got, NULL, 0, &err) == XLARUN_ERR_MEMORY);
        CHECK_CONTAINS(err.message, "(scratch NULL: the stack buffer)");
        free(mem);
        free(text);
        free(big);
    }
    xlarun_tokenizer_close(t);
    /* exact memory (the normalized added token is normalized at load, in temporary memory) */
    CHECK(xlarun_tokenizer_memory(FIX "qwen2", NULL, &bytes, &err) == XLARUN_OK);
    mem = malloc(bytes);
    CHECKF(xlarun_tokenizer_open_in(FIX "qwen2", NULL, mem, bytes, &t, &err) == XLARUN_OK, "%s", err.message);
    if (t) {
        CHECK(enc_ids(t, "<|h\xC3\xA1|>", ids, 64) == 1);
        xlarun_tokenizer_close(t);
    }
    CHECK(xlarun_tokenizer_open_in(FIX "qwen2", NULL, mem, bytes - 64, &t, &err) == XLARUN_ERR_MEMORY);
    free(mem);
}

/* the Gemma fixture: its lookups among 2,711 added tokens (the sorted table), BOS, eos from
   generation_config.json, "\t" where <0x09> was, exact memory */
static void test_gemma(void) {
    xlarun_tokenizer *t;
    xlarun_error err;
    const int32_t *eos;
    int32_t ids[64], sot, eot;
    size_t n, bytes, len, added = 0, found = 0;
    uint32_t id;
    void *mem;
    if (xlarun_tokenizer_open(FIX "gemma", NULL, &t, &err) != XLARUN_OK) { CHECKF(0, "gemma: %s", err.message); return; }
    CHECK(t->pre == XLARUN__PRE_SPACE && t->rep_from && !t->prepend && !t->dec_strip);
    sot = xlarun_tokenizer_token_id(t, "<start_of_turn>", 15);
    eot = xlarun_tokenizer_token_id(t, "<end_of_turn>", 13);
    CHECK(sot > 0 && eot > 0 && xlarun_tokenizer_is_special(t, sot) && xlarun_tokenizer_is_special(t, eot));
    CHECK(!xlarun_tokenizer_is_special(t, xlarun_tokenizer_token_id(t, "<table>", 7)));
    CHECK(xlarun_tokenizer_bos_id(t) == xlarun_tokenizer_token_id(t, "<bos>", 5) && xlarun_tokenizer_adds_bos(t));
    n = xlarun_tokenizer_eos_ids(t, &eos);
    CHECK(n == 2 && eos[0] == xlarun_tokenizer_token_id(t, "<eos>", 5) && eos[1] == eot);
    CHECK(xlarun_tokenizer_chat_template(t) && strstr(xlarun_tokenizer_chat_template(t), "first_user_prefix"));
    CHECK(xlarun_tokenizer_token_id(t, "\t", 1) >= 0 && xlarun_tokenizer_token_id(t, "<0x09>", 6) == -1 &&
          xlarun_tokenizer_token_id(t, "<0x0A>", 6) >= 0);
    /* every added token found by its text, prefixes and extensions of them not */
    for (id = 0; id < xlarun_tokenizer_vocab_size(t); id++) {
        const char *p = xlarun_tokenizer_token_text(t, (int32_t)id, &len);
        if (!(t->flags[id] & XLARUN__TF_ADDED)) continue;
        added++;
        found += xlarun_tokenizer_token_id(t, p, len) == (int32_t)id;
    }
    CHECKF(added > 2700 && found == added, "gemma: %lu of %lu added tokens found by their text", (unsigned long)found,
           (unsigned long)added);
    CHECK(xlarun_tokenizer_token_id(t, "<unused12", 9) == -1 && xlarun_tokenizer_token_id(t, "<unused12>x", 11) == -1 &&
          xlarun_tokenizer_token_id(t, "", 0) == -1);
    /* an added token among thousands with its first byte, longest first */
    CHECK(xlarun_tokenizer_encode(t, "<unused1000><unused100><unused10>", 33, XLARUN_ENCODE_NO_BOS, ids, 64, &n, NULL, 0, &err) ==
              XLARUN_OK && n == 3 && ids[0] == xlarun_tokenizer_token_id(t, "<unused1000>", 12) &&
          ids[1] == xlarun_tokenizer_token_id(t, "<unused100>", 11) && ids[2] == xlarun_tokenizer_token_id(t, "<unused10>", 10));
    xlarun_tokenizer_close(t);
    CHECK(xlarun_tokenizer_memory(FIX "gemma", NULL, &bytes, &err) == XLARUN_OK);
    mem = malloc(bytes);
    CHECKF(xlarun_tokenizer_open_in(FIX "gemma", NULL, mem, bytes, &t, &err) == XLARUN_OK, "%s", err.message);
    if (t) {
        CHECK(xlarun_tokenizer_token_id(t, "<start_of_turn>", 15) == sot);
        xlarun_tokenizer_close(t);
    }
    CHECK(xlarun_tokenizer_open_in(FIX "gemma", NULL, mem, bytes - 64, &t, &err) == XLARUN_ERR_MEMORY);
    free(mem);
}

/* ---- bad input, served from memory ---------------------------------------------------------- */

typedef struct memfile { const char *name; const char *data; } memfile;
typedef struct memfs { memfile files[4]; } memfs;
typedef struct memhandle { const char *p; size_t left; int used; } memhandle;
static memhandle handles[8];

static void *mf_open(void *user, const char *name) {
    memfs *fs = (memfs *)user;
    int i, h;
    for (i = 0; i < 4; i++)
        if (fs->files[i].name && !strcmp(fs->files[i].name, name)) {
            for (h = 0; h < 8 && handles[h].used; h++) {}
            if (h == 8) return NULL;
            handles[h].used = 1;
            handles[h].p = fs->files[i].data;
            handles[h].left = strlen(fs->files[i].data);
            return &handles[h];
        }
    return NULL;
}
static size_t mf_read(void *handle, void *buf, size_t n) {
    memhandle *h = (memhandle *)handle;
    if (n > h->left) n = h->left;
    memcpy(buf, h->p, n);
    h->p += n;
    h->left -= n;
    return n;
}
static void mf_close(void *handle) { ((memhandle *)handle)->used = 0; }

static const char *SMALL =
    "{\"version\": \"1.0\", \"added_tokens\": [{\"id\": 9, \"content\": \"<s>\", \"single_word\": false, \"lstrip\": false,"
    " \"rstrip\": false, \"normalized\": false, \"special\": true}], \"normalizer\": null,"
    " \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": true},"
    " \"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": \"<s>\", \"type_id\": 0}},"
    " {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], \"special_tokens\": {\"<s>\": {\"id\": \"<s>\", \"ids\": [9], \"tokens\": [\"<s>\"]}}},"
    " \"decoder\": {\"type\": \"ByteLevel\"},"
    " \"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": null, \"fuse_unk\": false, \"byte_fallback\": false,"
    " \"ignore_merges\": false, \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2, \"\\u0120\": 3, \"\\u0120ab\": 4, \"c\": 5,"
    " \"abc\": 6, \"<s>\": 9}, \"merges\": [\"a b\", \"ab c\", [\"\\u0120\", \"ab\"]]}}";

/* SMALL with one substring replaced */
static char *variant(const char *from, const char *to) {
    const char *at = strstr(SMALL, from);
    char *s;
    if (!at) { fprintf(stderr, "test bug: '%s' not in SMALL\n", from); exit(2); }
    s = (char *)malloc(strlen(SMALL) + strlen(to) + 1);
    memcpy(s, SMALL, (size_t)(at - SMALL));
    strcpy(s + (at - SMALL), to);
    strcat(s, at + strlen(from));
    return s;
}

static xlarun_status open_mem(const char *json, const char *cfg_name, const char *cfg, xlarun_tokenizer **t,
                              xlarun_error *err) {
    memfs fs;
    xlarun_io io;
    xlarun_tokenizer_options o;
    memset(&fs, 0, sizeof fs);
    fs.files[0].name = "tokenizer.json";
    fs.files[0].data = json;
    fs.files[1].name = cfg_name;
    fs.files[1].data = cfg;
    io.open = mf_open;
    io.read = mf_read;
    io.close = mf_close;
    io.user = &fs;
    memset(&o, 0, sizeof o);
    o.io = &io;
    *t = NULL;
    return xlarun_tokenizer_open("mem", &o, t, err);
}

static void expect_bad(const char *json, xlarun_status want, const char *msg) {
    xlarun_tokenizer *t;
    xlarun_error err;
    xlarun_status st = open_mem(json, NULL, NULL, &t, &err);
    CHECKF(st == want, "expected %s, got %s: %s", xlarun_status_name(want), xlarun_status_name(st), st ? err.message : "ok");
    if (st) CHECK_CONTAINS(err.message, msg);
    else xlarun_tokenizer_close(t);
}

static void expect_bad_variant(const char *from, const char *to, xlarun_status want, const char *msg) {
    char *s = variant(from, to);
    expect_bad(s, want, msg);
    free(s);
}

/* xlarun_tokenizer_open builds twice (measuring, then in one block) and the second build copies
   the first's tables when tokenizer.json's bytes are the same: a file that changes between the
   two reads (here: "c" and "abc" swap ids, the same size) must give the second file's tokenizer */
static int changing_opens, changing_at;   /* the second file from this open of tokenizer.json on */
static void *mf_open_changing(void *user, const char *name) {
    memfs *fs = (memfs *)user;
    if (!strcmp(name, "tokenizer.json") && changing_opens++ == changing_at) fs->files[0].data = fs->files[1].data;
    return mf_open(user, name);
}
static void test_open_twice(void) {
    memfs fs;
    xlarun_io io;
    xlarun_tokenizer_options o;
    xlarun_tokenizer *t;
    xlarun_error err;
    int32_t ids[8];
    size_t n;
    char *swapped = variant("\"c\": 5, \"abc\": 6", "\"c\": 6, \"abc\": 5");
    memset(&fs, 0, sizeof fs);
    fs.files[0].name = "tokenizer.json";
    fs.files[0].data = SMALL;
    fs.files[1].name = "not read";
    fs.files[1].data = swapped;
    io.open = mf_open_changing;
    io.read = mf_read;
    io.close = mf_close;
    io.user = &fs;
    memset(&o, 0, sizeof o);
    o.io = &io;
    changing_opens = 0;   /* how often the two builds open it (each measures, then reads) */
    changing_at = -1;
    CHECKF(xlarun_tokenizer_open("mem", &o, &t, &err) == XLARUN_OK, "%s", err.message);
    xlarun_tokenizer_close(t);
    CHECKF(changing_opens >= 2 && changing_opens % 2 == 0, "tokenizer.json opened %d times", changing_opens);
    changing_at = changing_opens / 2;
    changing_opens = 0;
    CHECKF(xlarun_tokenizer_open("mem", &o, &t, &err) == XLARUN_OK, "%s", err.message);
    if (t) {
        CHECK(xlarun_tokenizer_encode(t, "abc ab", 6, 0, ids, 8, &n, NULL, 0, &err) == XLARUN_OK && n == 3 &&
              ids[0] == 9 && ids[1] == 5 && ids[2] == 4);
        CHECK(xlarun_tokenizer_token_id(t, "abc", 3) == 5 && xlarun_tokenizer_token_id(t, "c", 1) == 6);
        xlarun_tokenizer_close(t);
    }
    /* the same bytes twice: the copied tables give SMALL's ids */
    fs.files[0].data = SMALL;
    fs.files[1].data = SMALL;
    changing_at = -1;
    CHECKF(xlarun_tokenizer_open("mem", &o, &t, &err) == XLARUN_OK, "%s", err.message);
    if (t) {
        CHECK(xlarun_tokenizer_encode(t, "abc ab", 6, 0, ids, 8, &n, NULL, 0, &err) == XLARUN_OK && n == 3 &&
              ids[0] == 9 && ids[1] == 6 && ids[2] == 4);
        xlarun_tokenizer_close(t);
    }
    free(swapped);
}

static void test_bad_input(void) {
    xlarun_tokenizer *t;
    xlarun_error err;
    int32_t ids[64];
    size_t n, i;
    char out[64];
    /* the small tokenizer itself works: "abc ab" -> <s> abc Ġab */
    if (open_mem(SMALL, NULL, NULL, &t, &err) == XLARUN_OK) {
        CHECK(xlarun_tokenizer_encode(t, "abc ab", 6, 0, ids, 64, &n, NULL, 0, &err) == XLARUN_OK && n == 3 &&
              ids[0] == 9 && ids[1] == 6 && ids[2] == 4);
        CHECK(xlarun_tokenizer_vocab_size(t) == 10);
        CHECK(xlarun_tokenizer_decode(t, ids, n, 0, out, sizeof out, &n, &err) == XLARUN_OK && !strcmp(out, "<s>abc ab"));
        /* a hole in the ids decodes to nothing, as tokenizers */
        ids[0] = 7;
        CHECK(xlarun_tokenizer_decode(t, ids, 1, 0, out, sizeof out, &n, &err) == XLARUN_OK && n == 0);
        /* invalid UTF-8 in a prompt: an error naming the offset, or U+FFFD on request */
        CHECK(xlarun_tokenizer_encode(t, "ab\xC3(", 4, 0, ids, 64, &n, NULL, 0, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "invalid UTF-8 at byte offset 2 (byte 0xC3)");
        CHECK(xlarun_tokenizer_encode(t, "ab\xC3(", 4, XLARUN_ENCODE_REPLACE_INVALID, ids, 64, &n, NULL, 0, &err) == XLARUN_OK);
        CHECK(xlarun_tokenizer_encode(NULL, "a", 1, 0, ids, 64, &n, NULL, 0, &err) == XLARUN_ERR_ARGUMENT);
        {   /* vocabulary against a model: 10 ids fit a 512-token model; the llama3 fixture does not */
            xlarun_model *m;
            if (xlarun_model_open("tests/fixtures/llama32-f32", NULL, &m, &err) == XLARUN_OK) {
                xlarun_tokenizer *big;
                CHECKF(xlarun_tokenizer_check_model(t, m, &err) == XLARUN_OK, "%s", err.message);
                if (xlarun_tokenizer_open(FIX "llama3", NULL, &big, &err) == XLARUN_OK) {
                    CHECK(xlarun_tokenizer_check_model(big, m, &err) == XLARUN_ERR_MODEL);
                    CHECK_CONTAINS(err.message, "the tokenizer has token id 1468 (\"<|reserved_special_token_20|>\"), but the model's vocab_size is 512");
                    xlarun_tokenizer_close(big);
                }
                xlarun_model_close(m);
            } else CHECKF(0, "%s", err.message);
        }
        xlarun_tokenizer_close(t);
    } else CHECKF(0, "small tokenizer: %s", err.message);

    expect_bad("{\"model\": {", XLARUN_ERR_FORMAT, "mem/tokenizer.json: invalid JSON at line 1 column 12: expected a string key");
    expect_bad("[1, 2]", XLARUN_ERR_FORMAT, "the document: expected an object");
    expect_bad("{}", XLARUN_ERR_FORMAT, "mem/tokenizer.json: model: expected an object, found nothing");
    /* a repeated key counts once, the last (as Python's json): the root's "model" and model's "merges" */
    expect_bad_variant("\"ab\"]]}}", "\"ab\"]]}, \"model\": 5}", XLARUN_ERR_FORMAT, "model: expected an object, found 5");
    expect_bad_variant("\"decoder\":", "\"model\": [], \"decoder\":", XLARUN_OK, "");
    expect_bad_variant("\"merges\": [", "\"merges\": 7, \"merges\": [", XLARUN_OK, "");
    expect_bad_variant("\"ab\"]]}}", "\"ab\"]], \"merges\": 7}}", XLARUN_ERR_FORMAT, "model.merges: expected a list of merges, found 7");
    expect_bad_variant("\"a b\", \"ab c\"", "\"a b\", \"ab x\"", XLARUN_ERR_FORMAT,
                       "model.merges[1] \"ab x\" names a second token that is not in model.vocab");
    expect_bad_variant("\"a b\", \"ab c\"", "\"a b\", \"q c\"", XLARUN_ERR_FORMAT,
                       "model.merges[1] \"q c\" names a first token that is not in model.vocab");
    expect_bad_variant("\"a b\", \"ab c\"", "\"a b\", \"b c\"", XLARUN_ERR_FORMAT,
                       "model.merges[1] \"b c\" makes \"bc\", which is not in model.vocab");
    expect_bad_variant("\"a b\", \"ab c\"", "\"a b c\"", XLARUN_ERR_FORMAT,
                       "model.merges[0] is \"a b c\"; expected two tokens separated by one space");
    {   /* the merges are looked up in batches: the first bad merge is named, in a later batch too,
           and before a later merge that is malformed */
        char many[1024] = "", msg[128];
        int k;
        for (k = 0; k < 70; k++) strcat(many, "\"a b\", ");
        strcat(many, "\"ab c\"");
        expect_bad_variant("\"a b\", \"ab c\"", many, XLARUN_OK, "");
        strcat(many, ", \"q c\"");
        expect_bad_variant("\"a b\", \"ab c\"", many, XLARUN_ERR_FORMAT,
                           "model.merges[71] \"q c\" names a first token that is not in model.vocab");
        for (k = 30; k < 35; k++) {
            int r;
            many[0] = 0;
            for (r = 0; r < k; r++) strcat(many, "\"a b\", ");
            strcat(many, "\"ab d\", \"a b c\"");
            snprintf(msg, sizeof msg, "model.merges[%d] \"ab d\" names a second token that is not in model.vocab", k);
            expect_bad_variant("\"a b\", \"ab c\"", many, XLARUN_ERR_FORMAT, msg);
        }
    }
    expect_bad_variant("[\"\\u0120\", \"ab\"]", "[\"\\u0120\"]", XLARUN_ERR_FORMAT, "model.merges: expected a pair of token strings");
    expect_bad_variant("[\"\\u0120\", \"ab\"]", "7", XLARUN_ERR_FORMAT, "model.merges: expected \"a b\" strings");
    expect_bad_variant("\"c\": 5", "\"c\": 2", XLARUN_ERR_FORMAT, "model.vocab: duplicate id 2, given to both \"ab\" and \"c\"");
    expect_bad_variant("\"c\": 5", "\"a\": 5", XLARUN_ERR_FORMAT, "model.vocab: duplicate token \"a\" (ids 0 and 5)");
    expect_bad_variant("\"c\": 5", "\"c\": -5", XLARUN_ERR_FORMAT, "model.vocab: token \"c\" has id -5; expected an integer 0..16777215");
    expect_bad_variant("\"c\": 5", "\"c\": 16777216", XLARUN_ERR_FORMAT, "has id 16777216");
    expect_bad_variant("\"c\": 5", "\"c\": \"5\"", XLARUN_ERR_FORMAT, "has id \"5\"");
    expect_bad_variant("{\"id\": 9, \"content\": \"<s>\"", "{\"id\": 5, \"content\": \"<s>\"", XLARUN_ERR_FORMAT,
                       "added_tokens: duplicate id 5, given to both \"c\" and \"<s>\"");
    expect_bad_variant("{\"id\": 9, \"content\": \"<s>\"", "{\"id\": 9.5, \"content\": \"<s>\"", XLARUN_ERR_FORMAT,
                       "added_tokens: expected an object with an integer id");
    expect_bad_variant("\"special\": true", "\"special\": 1", XLARUN_ERR_FORMAT, "added_tokens: 'special': expected true or false, found 1");
    expect_bad_variant("\"type\": \"BPE\"", "\"type\": \"WordPiece\"", XLARUN_ERR_UNSUPPORTED,
                       "model.type 'WordPiece' is not supported (xlarun runs BPE tokenizers)");
    expect_bad_variant("\"dropout\": null", "\"dropout\": 0.1", XLARUN_ERR_UNSUPPORTED, "model.dropout");
    expect_bad_variant("\"unk_token\": null", "\"unk_token\": \"<unk>\"", XLARUN_ERR_FORMAT,
                       "model.unk_token: expected a token of model.vocab, found \"<unk>\"");
    expect_bad_variant("\"byte_fallback\": false", "\"byte_fallback\": \"no\"", XLARUN_ERR_FORMAT, "model.byte_fallback: expected true or false");
    expect_bad_variant("\"vocab\": {", "\"vocab\": [], \"x\": {", XLARUN_ERR_FORMAT, "model.vocab: expected an object of token: id, found []");
    expect_bad_variant("\"normalizer\": null", "\"normalizer\": {\"type\": \"NFKC\"}", XLARUN_ERR_UNSUPPORTED,
                       "normalizer 'NFKC' is not supported (xlarun knows null, Prepend, Replace with a String pattern, a Sequence of them, and NFC alone)");
    {   /* normalizers: NFC alone (or a Sequence of it alone); the other Unicode forms, and NFC with
           another step, refused by name */
        static const char *const knows = "(xlarun knows null, Prepend, Replace with a String pattern, a Sequence of them, and NFC alone)";
        static const char *const nfc_bad[][2] = {
            {"{\"type\": \"NFD\"}", "normalizer 'NFD' is not supported"},
            {"{\"type\": \"NFKD\"}", "normalizer 'NFKD' is not supported"},
            {"{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFKC\"}]}", "normalizer 'NFKC' is not supported"},
            {"{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFC\"}, {\"type\": \"Prepend\", \"prepend\": \"_\"}]}",
             "normalizer 'NFC in a Sequence with another step' is not supported"},
            {"{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"_\"}, "
             "{\"type\": \"NFC\"}]}", "normalizer 'NFC in a Sequence with another step' is not supported"},
            {"{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFC\"}, {\"type\": \"NFC\"}]}",
             "normalizer 'NFC in a Sequence with another step' is not supported"},
            {"{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFC\"}, {\"type\": \"Lowercase\"}]}",
             "normalizer 'NFC in a Sequence with another step' is not supported"}};
        static const char *const nfc_ok[2] = {"{\"type\": \"NFC\"}", "{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFC\"}]}"};
        size_t b;
        for (b = 0; b < sizeof nfc_bad / sizeof nfc_bad[0]; b++) {
            char *v = (char *)malloc(strlen(nfc_bad[b][0]) + 16), *j;
            sprintf(v, "\"normalizer\": %s", nfc_bad[b][0]);
            j = variant("\"normalizer\": null", v);
            expect_bad(j, XLARUN_ERR_UNSUPPORTED, nfc_bad[b][1]);
            expect_bad(j, XLARUN_ERR_UNSUPPORTED, knows);
            free(j);
            free(v);
        }
        for (b = 0; b < 2; b++) {   /* the small tokenizer under NFC: "abc ab" as before */
            char v[128], *j;
            snprintf(v, sizeof v, "\"normalizer\": %s", nfc_ok[b]);
            j = variant("\"normalizer\": null", v);
            if (open_mem(j, NULL, NULL, &t, &err) == XLARUN_OK) {
                CHECK(xlarun_tokenizer_encode(t, "abc ab", 6, 0, ids, 64, &n, NULL, 0, &err) == XLARUN_OK && n == 3 &&
                      ids[0] == 9 && ids[1] == 6 && ids[2] == 4);
                CHECK(t->nfc == 1);
                xlarun_tokenizer_close(t);
            } else CHECKF(0, "NFC normalizer %s: %s", nfc_ok[b], err.message);
            free(j);
        }
    }
    {   /* Metaspace, read as tokenizers reads it; what it refuses is refused */
        static const char *const bad[][3] = {
            {"\"type\": \"Metaspace\", \"add_prefix_space\": true", "F", "pre_tokenizer Metaspace.replacement: expected a string of one character, found nothing"},
            {"\"type\": \"Metaspace\", \"replacement\": \"ab\"", "F", "pre_tokenizer Metaspace.replacement: expected a string of one character, found \"ab\""},
            {"\"type\": \"Metaspace\", \"replacement\": \"\\u0000\"", "F", "pre_tokenizer Metaspace.replacement: expected a string of one character"},
            {"\"type\": \"Metaspace\", \"replacement\": 7", "F", "pre_tokenizer Metaspace.replacement: expected a string of one character, found 7"},
            {"\"type\": \"Metaspace\", \"replacement\": \"\\u2581\", \"add_prefix_space\": false", "F", "pre_tokenizer Metaspace.add_prefix_space: expected true"},
            {"\"type\": \"Metaspace\", \"replacement\": \"\\u2581\", \"prepend_scheme\": \"sometimes\"", "F", "pre_tokenizer Metaspace.prepend_scheme: expected \"first\", \"always\" or \"never\", found \"sometimes\""},
            {"\"type\": \"Metaspace\", \"replacement\": \"\\u2581\", \"split\": 1", "F", "pre_tokenizer Metaspace.split: expected true or false, found 1"},
            {"\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Digits\", \"individual_digits\": true}, {\"type\": \"Metaspace\", \"replacement\": \"_\"}]", "U", "pre_tokenizer 'Metaspace after another step' is not supported"},
            {"\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Metaspace\", \"replacement\": \"_\"}, {\"type\": \"ByteLevel\"}]", "U", "pre_tokenizer 'a step after Metaspace' is not supported"}};
        size_t b;
        for (b = 0; b < sizeof bad / sizeof bad[0]; b++)
            expect_bad_variant("\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": true", bad[b][0], bad[b][1][0] == 'F' ? XLARUN_ERR_FORMAT : XLARUN_ERR_UNSUPPORTED, bad[b][2]);
        expect_bad_variant("\"decoder\": {\"type\": \"ByteLevel\"}", "\"decoder\": {\"type\": \"Metaspace\", \"replacement\": \"\", \"prepend_scheme\": \"first\"}",
                           XLARUN_ERR_FORMAT, "decoder Metaspace.replacement: expected a string of one character, found \"\"");
        expect_bad_variant("\"decoder\": {\"type\": \"ByteLevel\"}", "\"decoder\": {\"type\": \"Sequence\", \"decoders\": [{\"type\": \"ByteFallback\"}, "
                           "{\"type\": \"Fuse\"}, {\"type\": \"Metaspace\", \"replacement\": \"_\"}]}", XLARUN_ERR_UNSUPPORTED,
                           "decoder 'Metaspace' is not supported");
        expect_bad_variant("\"decoder\": {\"type\": \"ByteLevel\"}", "\"decoder\": {\"type\": \"Sequence\", \"decoders\": [{\"type\": \"ByteFallback\"}, "
                           "{\"type\": \"Metaspace\", \"replacement\": \"_\", \"prepend_scheme\": \"last\"}]}", XLARUN_ERR_FORMAT,
                           "decoder Metaspace.prepend_scheme: expected \"first\", \"always\" or \"never\", found \"last\"");
    }
    expect_bad_variant("\"add_prefix_space\": false", "\"add_prefix_space\": true", XLARUN_ERR_UNSUPPORTED,
                       "pre_tokenizer ByteLevel 'add_prefix_space true' is not supported");
    expect_bad_variant("\"pre_tokenizer\": {", "\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\s+\"}, "
                       "\"behavior\": \"Isolated\", \"invert\": false}, \"x\": {", XLARUN_ERR_UNSUPPORTED,
                       "pre_tokenizer Split 'with this pattern' is not supported (xlarun knows the Llama 3, Qwen2, o200k and Tekken patterns");
    {   /* Split(" ", MergedWithPrevious), Gemma's, alone: each space ends its piece; the ids are
           what tokenizers 0.20.3 gives for this file (with the merges in one format) */
        static const char *const split_space = "{\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": \"MergedWithPrevious\", \"invert\": false}";
        static const struct { const char *text; int32_t ids[6]; size_t n; } want[] = {
            {"ab c", {9, 2, 5}, 3}, {"abc ab", {9, 6, 2}, 3}, {" ab  c ", {9, 2, 5}, 3}, {"a b c", {9, 0, 1, 5}, 4},
            {"ab c<s>ab c", {9, 2, 5, 9, 2, 5}, 6}};
        static const char *const bad[][3] = {
            {"{\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": \"Isolated\", \"invert\": false}", "F",
             "pre_tokenizer Split(\" \") 'with this behavior or invert' is not supported (xlarun knows MergedWithPrevious, invert false)"},
            {"{\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": \"MergedWithPrevious\", \"invert\": true}", "F",
             "pre_tokenizer Split(\" \") 'with this behavior or invert' is not supported"},
            {"{\"type\": \"Split\", \"pattern\": {\"String\": \"\\n\"}, \"behavior\": \"MergedWithPrevious\", \"invert\": false}", "F",
             "pre_tokenizer Split 'with this pattern' is not supported (xlarun knows the Llama 3, Qwen2, o200k and Tekken patterns, and the string \" \" as Gemma's)"},
            {"{\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": "
             "\"MergedWithPrevious\", \"invert\": false}, {\"type\": \"ByteLevel\", \"add_prefix_space\": false}]}", "S",
             "pre_tokenizer 'a step after Split(\" \")' is not supported"},
            {"{\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Digits\", \"individual_digits\": true}, {\"type\": \"Split\", "
             "\"pattern\": {\"String\": \" \"}, \"behavior\": \"MergedWithPrevious\", \"invert\": false}]}", "S",
             "pre_tokenizer 'Split(\" \") after another step' is not supported (xlarun knows null, Metaspace, ByteLevel, Digits then "
             "ByteLevel, Split(Llama 3, Qwen2, o200k or Tekken pattern) then ByteLevel, and Split(\" \", MergedWithPrevious) alone)"}};
        static const char *const from = "\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": true}";
        size_t b, k;
        for (b = 0; b < 2; b++) {   /* alone, and alone in a Sequence */
            char v[512], *j;
            if (b) snprintf(v, sizeof v, "\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [%s]}", split_space);
            else snprintf(v, sizeof v, "\"pre_tokenizer\": %s", split_space);
            j = variant(from, v);
            if (open_mem(j, NULL, NULL, &t, &err) == XLARUN_OK) {
                CHECK(t->pre == XLARUN__PRE_SPACE);
                for (k = 0; k < sizeof want / sizeof *want; k++)
                    CHECKF(xlarun_tokenizer_encode(t, want[k].text, strlen(want[k].text), 0, ids, 64, &n, NULL, 0, &err) == XLARUN_OK &&
                           same_ids(ids, n, want[k].ids, want[k].n), "Split(\" \"): \"%s\"", want[k].text);
                xlarun_tokenizer_close(t);
            } else CHECKF(0, "Split(\" \"): %s", err.message);
            free(j);
        }
        for (b = 0; b < sizeof bad / sizeof *bad; b++) {
            char v[512], *j;
            snprintf(v, sizeof v, "\"pre_tokenizer\": %s", bad[b][0]);
            j = variant(from, v);
            expect_bad(j, XLARUN_ERR_UNSUPPORTED, bad[b][2]);
            free(j);
        }
    }
    {   /* added tokens, as tokenizers' AddedVocabulary (ids from tokenizers 0.20.3 for the gemma
           fixture with these two tokens appended, ids 4167 and 4168): an lstrip match is not
           trimmed into the last match, and dropped when that match's rstrip took it all; two
           normalized tokens with the same normalized text: the special one wins, as tokenizers
           lists special tokens first */
        static const char *const add[2] = {
            "{\"id\": 4167, \"content\": \"<X>\", \"single_word\": false, \"lstrip\": false, \"rstrip\": true, \"normalized\": false, \"special\": false}, "
            "{\"id\": 4168, \"content\": \" \", \"single_word\": false, \"lstrip\": true, \"rstrip\": true, \"normalized\": false, \"special\": false}, ",
            "{\"id\": 4167, \"content\": \"Zq \", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, \"normalized\": true, \"special\": false}, "
            "{\"id\": 4168, \"content\": \"Zq\u2581\", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, \"normalized\": true, \"special\": true}, "};
        static const struct { int file; const char *text; int32_t ids[6]; size_t n; } want[] = {
            {0, "<X> a", {4167, 4097}, 2}, {0, "<X>   a", {4167, 4097}, 2}, {0, "   ", {4168}, 1},
            {0, "a <X> b  <X>", {4097, 4168, 4167, 4114, 4168, 4167}, 6},
            {1, "Zq ", {4168}, 1}, {1, "aZq b", {4097, 4168, 4114}, 3}, {1, "Zq\xe2\x96\x81Zq ", {4168, 4168}, 2}};
        size_t len, f, k;
        char *g = read_file("tests/fixtures/tokenizers/gemma/tokenizer.json", &len), *at = g ? strstr(g, "\"added_tokens\": [") : NULL;
        CHECK(at != NULL);
        for (f = 0; f < 2 && at; f++) {
            size_t pre = (size_t)(at - g) + strlen("\"added_tokens\": ["), na = strlen(add[f]);
            char *j = (char *)malloc(len + na + 1);
            memcpy(j, g, pre);
            memcpy(j + pre, add[f], na);
            memcpy(j + pre + na, g + pre, len - pre + 1);
            if (open_mem(j, NULL, NULL, &t, &err) == XLARUN_OK) {
                for (k = 0; k < sizeof want / sizeof *want; k++)
                    if (want[k].file == (int)f)
                        CHECKF(xlarun_tokenizer_encode(t, want[k].text, strlen(want[k].text), XLARUN_ENCODE_NO_BOS, ids, 64, &n, NULL, 0, &err) == XLARUN_OK &&
                               same_ids(ids, n, want[k].ids, want[k].n), "added tokens: \"%s\": %lu ids, first %d", want[k].text, (unsigned long)n, n ? (int)ids[0] : -1);
                xlarun_tokenizer_close(t);
            } else CHECKF(0, "added tokens: %s", err.message);
            free(j);
        }
        free(g);
    }
    {   /* the Split patterns: Llama 3's and Qwen2's are known; a near miss of either is refused */
        static const char *const split[][2] = {
            {"\\\\p{N}{1,3}", "3"}, {"\\\\p{N}", "1"}, {"\\\\p{N}{1,2}", NULL}, {"\\\\p{N}+", NULL}, {"\\\\p{N}{1}", NULL}};
        size_t b;
        for (b = 0; b < sizeof split / sizeof split[0]; b++) {
            char v[600], *j;
            snprintf(v, sizeof v, "\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", "
                     "\"pattern\": {\"Regex\": \"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|%s| "
                     "?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"}, "
                     "\"behavior\": \"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", \"add_prefix_space\": false, "
                     "\"trim_offsets\": false, \"use_regex\": false}]}, \"x\": {", split[b][0]);
            j = variant("\"pre_tokenizer\": {", v);
            if (split[b][1]) {
                if (open_mem(j, NULL, NULL, &t, &err) == XLARUN_OK) {
                    CHECK(t->pre == XLARUN__PRE_LLAMA3 && t->split_digits == split[b][1][0] - '0');
                    CHECK(xlarun_tokenizer_encode(t, "abc ab", 6, 0, ids, 64, &n, NULL, 0, &err) == XLARUN_OK && n == 3);
                    xlarun_tokenizer_close(t);
                } else CHECKF(0, "Split with %s: %s", split[b][0], err.message);
            } else expect_bad(j, XLARUN_ERR_UNSUPPORTED, "pre_tokenizer Split 'with this pattern' is not supported");
            free(j);
        }
    }
    {   /* the Split's behavior: Isolated, or Removed inverted (the same for these patterns); no other */
        static const char *const beh[][3] = {{"Isolated", "false", "ok"}, {"Removed", "true", "ok"}, {"Removed", "false", NULL},
                                             {"Isolated", "true", NULL}, {"MergedWithNext", "false", NULL}, {"Contiguous", "false", NULL},
                                             {"MergedWithPrevious", "false", NULL}};
        size_t b;
        for (b = 0; b < sizeof beh / sizeof beh[0]; b++) {
            char v[700], *j;
            snprintf(v, sizeof v, "\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", "
                     "\"pattern\": {\"Regex\": \"%s\"}, \"behavior\": \"%s\", \"invert\": %s}, {\"type\": \"ByteLevel\", "
                     "\"add_prefix_space\": false, \"trim_offsets\": false, \"use_regex\": false}]}, \"x\": {",
                     "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}{1,3}| "
                     "?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+", beh[b][0], beh[b][1]);
            j = variant("\"pre_tokenizer\": {", v);
            if (beh[b][2]) {
                if (open_mem(j, NULL, NULL, &t, &err) == XLARUN_OK) {
                    CHECK(t->pre == XLARUN__PRE_LLAMA3 && t->split_digits == 3);
                    xlarun_tokenizer_close(t);
                } else CHECKF(0, "Split %s invert %s: %s", beh[b][0], beh[b][1], err.message);
            } else expect_bad(j, XLARUN_ERR_UNSUPPORTED, "pre_tokenizer Split 'with this behavior or invert' is not supported "
                                                         "(xlarun knows Isolated with invert false, or Removed with invert true)");
            free(j);
        }
    }
    expect_bad_variant("\"decoder\": {\"type\": \"ByteLevel\"}", "\"decoder\": {\"type\": \"WordPiece\"}", XLARUN_ERR_UNSUPPORTED,
                       "decoder 'WordPiece' is not supported");
    expect_bad_variant("\"ids\": [9]", "\"ids\": [99]", XLARUN_ERR_FORMAT,
                       "post_processor TemplateProcessing: a special token id: expected an id in the vocabulary, found 99");
    expect_bad_variant("\"special_tokens\": {\"<s>\"", "\"special_tokens\": {\"<t>\"", XLARUN_ERR_FORMAT,
                       "the ids of special token: expected an entry in special_tokens, found \"<s>\"");
    expect_bad_variant("\"post_processor\": {\"type\": \"TemplateProcessing\"", "\"post_processor\": {\"type\": \"BertProcessing\"",
                       XLARUN_ERR_UNSUPPORTED, "post_processor 'BertProcessing' is not supported");
    {   /* a missing file; generation_config.json with an eos outside the vocabulary */
        xlarun_tokenizer_options o;
        memset(&o, 0, sizeof o);
        CHECK(xlarun_tokenizer_open("/nonexistent", &o, &t, &err) == XLARUN_ERR_IO);
        CHECK_CONTAINS(err.message, "/nonexistent/tokenizer.json: cannot open");
        CHECK(open_mem(SMALL, "generation_config.json", "{\"eos_token_id\": [1, 10]}", &t, &err) == XLARUN_ERR_FORMAT);
        CHECK_CONTAINS(err.message, "generation_config.json: eos_token_id must be token ids below the vocabulary size 10");
        CHECK(open_mem(SMALL, "generation_config.json", "{\"eos_token_id\": [1, 2", &t, &err) == XLARUN_ERR_FORMAT);
        CHECK_CONTAINS(err.message, "generation_config.json: invalid JSON");
        CHECK(open_mem(SMALL, "tokenizer_config.json", "{\"eos_token\": {\"content\": \"<s>\"}, \"chat_template\": 5}", &t, &err) == XLARUN_OK);
        if (t) {
            const int32_t *eos;
            CHECK(xlarun_tokenizer_eos_ids(t, &eos) == 1 && eos[0] == 9 && !xlarun_tokenizer_chat_template(t));
            xlarun_tokenizer_close(t);
        }
    }
    /* every truncation and some byte flips of a valid file: a status, never a crash */
    for (i = 0; i < strlen(SMALL); i += 7) {
        char *s = (char *)malloc(i + 1);
        memcpy(s, SMALL, i);
        s[i] = 0;
        CHECK(open_mem(s, NULL, NULL, &t, &err) != XLARUN_OK);
        free(s);
    }
    for (i = 0; i < 300; i++) {
        char *s = (char *)malloc(strlen(SMALL) + 1);
        size_t k = (i * 2654435761u) % strlen(SMALL);
        strcpy(s, SMALL);
        s[k] = "{}[]\":,0a\\ -9"[i % 13];
        if (open_mem(s, NULL, NULL, &t, &err) == XLARUN_OK) {
            CHECK(xlarun_tokenizer_encode(t, "abc ab <s>", 10, 0, ids, 64, &n, NULL, 0, &err) == XLARUN_OK);
            xlarun_tokenizer_close(t);
        } else CHECK(err.message[0] != 0);
        free(s);
    }
}

/* a family's tokenizer.json with its Split as (Removed, invert true), which tokenizers reads as
   Isolated for these patterns (make_tokenizer_fixtures.py checks the ids on every case): the
   same ids as expected.txt's */
static void test_removed_inverted(const char *name, size_t n_cases, size_t extra) {
    char path[300], *json, *text, *line, *next, *at, *ed;
    static const char *from = "\"behavior\": \"Isolated\",\n    \"invert\": false", *to = "\"behavior\": \"Removed\",\n    \"invert\": true";
    size_t len, agree = 0, cases = 0;
    xlarun_tokenizer *t = NULL;
    xlarun_error err;
    int32_t *ids = (int32_t *)malloc(sizeof(int32_t) * 65536), *want = (int32_t *)malloc(sizeof(int32_t) * 65536);
    snprintf(path, sizeof path, FIX "%s/tokenizer.json", name);
    json = read_file(path, &len);
    snprintf(path, sizeof path, FIX "%s/expected.txt", name);
    text = read_file(path, NULL);
    at = json ? strstr(json, from) : NULL;
    CHECKF(at != NULL && text != NULL, "%s: no Split(Isolated, invert false) in tokenizer.json", name);
    if (!at || !text) { free(json); free(text); free(ids); free(want); return; }
    ed = (char *)malloc(len + 16);
    memcpy(ed, json, (size_t)(at - json));
    strcpy(ed + (at - json), to);
    strcat(ed, at + strlen(from));
    CHECKF(open_mem(ed, NULL, NULL, &t, &err) == XLARUN_OK, "%s Removed/invert: %s", name, err.message);
    for (line = text; t && *line; line = next) {
        size_t i, n = 0, nw;
        bytes r;
        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        if (line[0] != 'n') continue;
        i = (size_t)strtoul(line + 2, &at, 10);
        nw = *at == ' ' ? parse_ids(at + 1, want, 65536, ' ') : 0;
        if (i >= n_cases) continue;
        r = corpus[i < n_main ? i : extra + (i - n_main)];
        cases++;
        if (xlarun_tokenizer_encode(t, (const char *)r.p, r.n, XLARUN_ENCODE_NO_BOS | XLARUN_ENCODE_REPLACE_INVALID, ids, 65536, &n,
                                    NULL, 0, &err) == XLARUN_OK && same_ids(ids, n, want, nw)) agree++;
        else CHECKF(0, "%s Removed/invert: case %lu differs", name, (unsigned long)i);
    }
    printf("%-7s Split(Removed, invert true): ids agree on %lu of the %lu cases\n", name, (unsigned long)agree, (unsigned long)cases);
    CHECKF(agree == cases && cases >= 2000, "%s Removed/invert: %lu of %lu", name, (unsigned long)agree, (unsigned long)cases);
    xlarun_tokenizer_close(t);
    free(ed);
    free(json);
    free(text);
    free(ids);
    free(want);
}

/* the o200k / Tekken Split alone against tokenizers' pieces of each case (pieces.txt): BPE ids
   can hide a wrong boundary where no merge crosses it */
static void test_pieces(const char *name, int digits, int contr) {
    char path[300], *text, *line, *next;
    size_t len, cases = 0, agree = 0;
    snprintf(path, sizeof path, FIX "%s/pieces.txt", name);
    text = read_file(path, &len);
    CHECKF(text != NULL, "cannot read %s", path);
    if (!text) return;
    for (line = text; *line; line = next) {
        size_t idx, i, j, k, n, want[4096], ok = 1;
        char *end;
        bytes r;
        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        if (line[0] == '#') continue;
        idx = (size_t)strtoul(line, &end, 10);
        for (n = 0; n < 4096 && *end == ' '; n++) want[n] = (size_t)strtoul(end + 1, &end, 10);
        if (idx >= n_main + (n_corpus - n_gemma_end)) { CHECKF(0, "%s: case %lu out of range", name, (unsigned long)idx); break; }
        r = replaced(corpus[idx < n_main ? idx : n_gemma_end + (idx - n_main)]);
        for (i = 0, k = 0; i < r.n; i = j, k++) {
            j = xlarun__split_o200k(r.p, r.n, i, digits, contr);
            if (j <= i || k >= n || j - i != want[k]) { ok = 0; break; }
        }
        if (ok && k != n) ok = 0;
        cases++;
        if (ok) agree++;
        else CHECKF(0, "%s: case %lu: piece %lu differs from tokenizers'", name, (unsigned long)idx, (unsigned long)k);
        free(r.p);
    }
    printf("%-7s %lu cases: the Split's pieces agree on %lu\n", name, (unsigned long)cases, (unsigned long)agree);
    CHECKF(cases >= 4000, "%s: %lu cases in pieces.txt", name, (unsigned long)cases);
    free(text);
}

int main(int argc, char **argv) {
    static const struct { const char *name; void (*run)(void); } cases[] = {
        {"nfc", test_nfc}, {"lookups", test_lookups}, {"qwen2 tokenizer", test_qwen2}, {"gemma tokenizer", test_gemma},
        {"bad input", test_bad_input}, {"open twice", test_open_twice}};
    size_t i;
    test_init(argc, argv);
    static const char *const files[4] = {FIX "corpus.txt", FIX "corpus_nfc.txt", FIX "corpus_gemma.txt", FIX "corpus_case.txt"};
    int read[4];
    read[0] = load_corpus(files[0]);
    n_main = n_corpus;
    read[1] = load_corpus(files[1]);
    n_nfc_end = n_corpus;
    read[2] = load_corpus(files[2]);
    n_gemma_end = n_corpus;
    read[3] = load_corpus(files[3]);
    if (test_case("corpus")) {
        for (i = 0; i < 4; i++) CHECKF(read[i], "cannot read %s", files[i]);
        CHECKF(n_main >= 2000 && n_nfc_end >= n_main + 2500 && n_gemma_end >= n_nfc_end + 800 && n_corpus >= n_gemma_end + 1500,
               "corpus has %lu + %lu + %lu + %lu cases", (unsigned long)n_main, (unsigned long)(n_nfc_end - n_main),
               (unsigned long)(n_gemma_end - n_nfc_end), (unsigned long)(n_corpus - n_gemma_end));
    }
    if (test_case("oracle llama3")) oracle_family("llama3", n_main, 0);
    if (test_case("oracle sp")) oracle_family("sp", n_main, 0);
    if (test_case("oracle gpt2")) oracle_family("gpt2", n_main, 0);
    if (test_case("oracle ms")) oracle_family("ms", n_main, 0);
    if (test_case("oracle ms2")) oracle_family("ms2", n_main, 0);
    if (test_case("oracle v5sp")) oracle_family("v5sp", n_main, 0);
    if (test_case("oracle qwen2")) oracle_family("qwen2", n_nfc_end, n_main);
    if (test_case("oracle gemma")) oracle_family("gemma", n_main + (n_gemma_end - n_nfc_end), n_nfc_end);
    if (test_case("oracle o200k")) oracle_family("o200k", n_main + (n_corpus - n_gemma_end), n_gemma_end);
    if (test_case("oracle tekken")) oracle_family("tekken", n_main + (n_corpus - n_gemma_end), n_gemma_end);
    if (test_case("removed and inverted llama3")) test_removed_inverted("llama3", n_main, 0);
    if (test_case("removed and inverted o200k")) test_removed_inverted("o200k", n_main + (n_corpus - n_gemma_end), n_gemma_end);
    if (test_case("pieces o200k")) test_pieces("o200k", 3, 1);
    if (test_case("pieces tekken")) test_pieces("tekken", 1, 0);
    for (i = 0; i < sizeof cases / sizeof *cases; i++)
        if (test_case("%s", cases[i].name)) cases[i].run();
    for (i = 0; i < n_corpus; i++) free(corpus[i].p);
    free(corpus);
    free(scratch);
    return test_report("tokenizer");
}
