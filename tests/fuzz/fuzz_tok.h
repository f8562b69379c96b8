/* tests/fuzz/fuzz_tok.h - tokenizer helpers for the tokenizer, encode and decode harnesses:
   the committed fixture tokenizers, and one round of encode -> decode -> streaming decode with
   the invariants the API promises. */
#ifndef XLARUN_FUZZ_TOK_H
#define XLARUN_FUZZ_TOK_H
#include "fuzz.h"

/* the fixture tokenizers, opened once (run from the repository root), closed at exit */
#define FUZZ_N_TOK 8
static xlarun_tokenizer *fuzz_toks[FUZZ_N_TOK];
static void fuzz_close_fixtures(void) {
    unsigned i;
    for (i = 0; i < FUZZ_N_TOK; i++) xlarun_tokenizer_close(fuzz_toks[i]);
}
FUZZ_UNUSED static xlarun_tokenizer *fuzz_fixture(unsigned k) {
    static const char *const dirs[FUZZ_N_TOK] = {"tests/fixtures/tokenizers/llama3", "tests/fixtures/tokenizers/gpt2",
                                                 "tests/fixtures/tokenizers/sp", "tests/fixtures/demo",
                                                 "tests/fixtures/tokenizers/ms", "tests/fixtures/tokenizers/ms2",
                                                 "tests/fixtures/tokenizers/qwen2", "tests/fixtures/tokenizers/gemma"};
    static int opened;
    if (!opened) {
        unsigned i;
        for (i = 0; i < FUZZ_N_TOK; i++) {
            xlarun_error e;
            if (xlarun_tokenizer_open(dirs[i], NULL, &fuzz_toks[i], &e) != XLARUN_OK) {
                fprintf(stderr, "fuzz: %s (run from the repository root)\n", e.message);
                abort();
            }
        }
        opened = 1;
        atexit(fuzz_close_fixtures);
    }
    return fuzz_toks[k % FUZZ_N_TOK];
}

/* decode ids whole and streamed; the two agree (byte-level tokenizers: exactly) */
FUZZ_UNUSED static void fuzz_decode(const xlarun_tokenizer *t, const int32_t *ids, size_t n, unsigned flags) {
    xlarun_error e;
    xlarun_status st;
    size_t len = 0, len2 = 0, i, plen, sl = 0, maxp = xlarun_tokenizer_max_piece(t);
    char *out, *piece, *streamed;
    xlarun_detok d;
    int bad_id = 0;
    for (i = 0; i < n; i++) bad_id |= ids[i] < 0 || (uint32_t)ids[i] >= xlarun_tokenizer_vocab_size(t);
    st = xlarun_tokenizer_decode(t, ids, n, flags, NULL, 0, &len, &e);
    fuzz_check_err(st, &e);
    FUZZ_CHECK((st == XLARUN_OK) == !bad_id);
    if (st != XLARUN_OK) return;
    out = (char *)malloc(len + 1);
    FUZZ_CHECK(out != NULL);
    if (len) {   /* one byte short */
        st = xlarun_tokenizer_decode(t, ids, n, flags, out, len, &len2, &e);
        FUZZ_CHECK(st == XLARUN_ERR_MEMORY);
    }
    st = xlarun_tokenizer_decode(t, ids, n, flags, out, len + 1, &len2, &e);
    FUZZ_CHECK(st == XLARUN_OK && len2 == len && out[len] == 0);
    FUZZ_CHECK(fuzz_utf8_ok(out, len));
    /* streamed */
    FUZZ_CHECK(maxp >= 10);
    piece = (char *)malloc(maxp);
    streamed = (char *)malloc(n * maxp + maxp + 1);
    FUZZ_CHECK(piece && streamed);
    xlarun_detok_init(&d, t, flags);
    for (i = 0; i < n; i++) {
        st = xlarun_detok_push(&d, ids[i], piece, maxp, &plen, &e);
        FUZZ_CHECK(st == XLARUN_OK && plen < maxp && piece[plen] == 0);
        FUZZ_CHECK(fuzz_utf8_ok(piece, plen));
        memcpy(streamed + sl, piece, plen);
        sl += plen;
    }
    plen = xlarun_detok_flush(&d, piece, maxp);
    FUZZ_CHECK(plen < maxp && fuzz_utf8_ok(piece, plen));
    memcpy(streamed + sl, piece, plen);
    sl += plen;
    /* the documented exception: the decoder's ByteFallback turns a whole invalid <0xHH> run into
       U+FFFD per byte, while the stream has already handed out the run's valid leading bytes
       (the model's byte_fallback flag does not decide it: crash-ca0674a7 has the decoder step
       without the model flag) */
    if (!t->dec_byte_fallback) FUZZ_CHECK(sl == len && !memcmp(streamed, out, len));
    free(streamed);
    free(piece);
    free(out);
}

/* encode text (counting first, then for real); every id is in the vocabulary; decode the ids */
FUZZ_UNUSED static void fuzz_encode(const xlarun_tokenizer *t, const char *text, size_t len, unsigned flags) {
    xlarun_error e;
    xlarun_status st;
    size_t n = 0, n2 = 0, i, sb = xlarun_tokenizer_scratch_bytes(t, len);
    int32_t *ids;
    void *scratch;
    FUZZ_CHECK(sb > 0);
    scratch = malloc(sb);
    FUZZ_CHECK(scratch != NULL);
    st = xlarun_tokenizer_encode(t, text, len, flags, NULL, 0, &n, scratch, sb, &e);
    fuzz_check_err(st, &e);
    if (st == XLARUN_ERR_ARGUMENT) { /* invalid UTF-8 only */
        FUZZ_CHECK(!(flags & XLARUN_ENCODE_REPLACE_INVALID) && !fuzz_utf8_ok(text, len));
        free(scratch);
        return;
    }
    FUZZ_CHECK(st == (n ? XLARUN_ERR_MEMORY : XLARUN_OK));
    ids = (int32_t *)malloc((n + 1) * sizeof *ids);
    FUZZ_CHECK(ids != NULL);
    st = xlarun_tokenizer_encode(t, text, len, flags, ids, n, &n2, scratch, sb, &e);
    FUZZ_CHECK(st == XLARUN_OK && n2 == n);
    for (i = 0; i < n; i++) FUZZ_CHECK(ids[i] >= 0 && (uint32_t)ids[i] < xlarun_tokenizer_vocab_size(t));
    if (len < 2000) { /* the stack scratch gives the same ids, or says it is too small */
        int32_t *ids2 = (int32_t *)malloc((n + 1) * sizeof *ids2);
        FUZZ_CHECK(ids2 != NULL);
        st = xlarun_tokenizer_encode(t, text, len, flags, ids2, n, &n2, NULL, 0, &e);
        FUZZ_CHECK((st == XLARUN_OK && n2 == n && (n == 0 || !memcmp(ids, ids2, n * sizeof *ids))) ||
                   (st == XLARUN_ERR_MEMORY && strstr(e.message, "(scratch NULL: the stack buffer)") &&
                    len * 31 > XLARUN_TOKENIZER_STACK_BYTES / 16));
        free(ids2);
    }
    fuzz_decode(t, ids, n, 0);
    fuzz_decode(t, ids, n, XLARUN_DECODE_SKIP_SPECIAL);
    free(ids);
    free(scratch);
}
#endif
