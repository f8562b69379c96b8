/* test_model.c - xlarun against the transformers oracle (tests/fixtures), and the executor's
   guarantees: prefill == token-by-token decode, any thread count, mmap == streamed, exact
   memory sizes, no allocation after a session exists. Run from the repository root. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
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

#define FIX "tests/fixtures/"
#define N_GEN 48
/* logits agree within 1e-4 of the row's largest |logit| (transformers f32 vs xlarun f32:
   summation order only); measured figures are printed */
#define LOGIT_TOL 1e-4

typedef struct oracle {
    int32_t prompt[256];
    size_t n_prompt, vocab;
    int32_t greedy[N_GEN];
    float *logits; /* [N_GEN][vocab] */
} oracle;

static size_t file_read(void *user, void *buf, size_t n) {
    size_t r = fread(buf, 1, n, (FILE *)user);
    return r == 0 && ferror((FILE *)user) ? (size_t)-1 : r;
}

/* oracle.safetensors through xlarun's own streaming reader */
static int load_oracle(const char *dir, oracle *o) {
    char path[512];
    FILE *f;
    xlarun_st_reader r;
    xlarun_error err;
    const xlarun_st_tensor *t;
    void *mem;
    int ok = 1;
    memset(o, 0, sizeof *o);
    snprintf(path, sizeof path, "%s/oracle.safetensors", dir);
    if (!(f = fopen(path, "rb"))) { CHECKF(0, "cannot open %s", path); return 0; }
    if (xlarun_st_begin(&r, file_read, f, path, 0, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); fclose(f); return 0; }
    mem = malloc(xlarun_st_memory(&r));
    if (xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); ok = 0; }
    while (ok && xlarun_st_next(&r, &t, &err) == XLARUN_OK && t) {
        size_t got;
        if (!strcmp(t->name, "prompt") && t->dtype == XLARUN_DTYPE_I32 && t->shape[0] <= 256) {
            o->n_prompt = (size_t)t->shape[0];
            xlarun_st_read(&r, o->prompt, (size_t)t->nbytes, &got, &err);
        } else if (!strcmp(t->name, "greedy") && t->dtype == XLARUN_DTYPE_I32 && t->shape[0] == N_GEN) {
            xlarun_st_read(&r, o->greedy, (size_t)t->nbytes, &got, &err);
        } else if (!strcmp(t->name, "logits") && t->dtype == XLARUN_DTYPE_F32 && t->ndim == 2 && t->shape[0] == N_GEN) {
            o->vocab = (size_t)t->shape[1];
            o->logits = (float *)malloc((size_t)t->nbytes);
            xlarun_st_read(&r, o->logits, (size_t)t->nbytes, &got, &err);
        }
    }
    free(mem);
    fclose(f);
    CHECKF(ok && o->n_prompt && o->logits, "%s: incomplete oracle", path);
    return ok && o->n_prompt && o->logits;
}

static double row_error(const float *got, const float *want, size_t n, double *scale) {
    double e = 0, s = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (d > e || d != d) e = d;
        if (fabs(want[i]) > s) s = fabs(want[i]);
    }
    *scale = s;
    return e;
}

/* free-running greedy generation against the oracle: ids must agree at every step */
static void test_oracle(const char *name, const char *dtype, double *worst) {
    char dir[256];
    oracle o;
    xlarun_model *m;
    xlarun_session *s;
    xlarun_session_options so;
    xlarun_error err;
    size_t i, agree = 0;
    double max_abs = 0, max_rel = 0;
    snprintf(dir, sizeof dir, FIX "%s-%s", name, dtype);
    if (!load_oracle(dir, &o)) return;
    if (xlarun_model_open(dir, NULL, &m, &err) != XLARUN_OK) { CHECKF(0, "%s: %s", dir, err.message); free(o.logits); return; }
    CHECKF(xlarun_model_config(m)->vocab_size == o.vocab, "%s: vocab", dir);
    memset(&so, 0, sizeof so);
    so.n_ctx = (uint32_t)(o.n_prompt + N_GEN);
    so.n_batch = 16; /* the longer prompts are prefilled in several chunks */
    if (xlarun_session_create(m, &so, &s, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); xlarun_model_close(m); free(o.logits); return; }
    CHECK(xlarun_session_prefill(s, o.prompt, o.n_prompt, &err) == XLARUN_OK);
    for (i = 0; i < N_GEN; i++) {
        double scale, e = row_error(xlarun_session_logits(s), o.logits + i * o.vocab, o.vocab, &scale);
        int32_t next = xlarun_session_argmax(s);
        if (e > max_abs) max_abs = e;
        if (e / scale > max_rel) max_rel = e / scale;
        if (next != o.greedy[i]) break;
        agree++;
        if (i + 1 < N_GEN && xlarun_session_decode(s, next, &err) != XLARUN_OK) break;
    }
    CHECKF(agree == N_GEN, "%s: greedy ids agree for %lu of %d steps", dir, (unsigned long)agree, N_GEN);
    CHECKF(max_rel <= LOGIT_TOL, "%s: logit error %.3g relative exceeds %.0e", dir, max_rel, LOGIT_TOL);
    printf("  %-14s greedy %2lu/%d  max |logit error| %.2e  relative %.2e\n", dir + strlen(FIX),
           (unsigned long)agree, N_GEN, max_abs, max_rel);
    if (max_rel > *worst) *worst = max_rel;
    xlarun_session_free(s);
    xlarun_model_close(m);
    free(o.logits);
}

/* a lower-precision option (XLARUN_PRECISION_BF16_ACTIVATIONS, a half-size KV cache) against the
   oracle, teacher-forced along the oracle's ids: its agreement is reported (README), and only a
   gross failure (< 90% top-1) fails the test */
static void test_fast_mode(const char *name, xlarun_precision prec, xlarun_kv_type kv, const char *label,
                           size_t *agree_all, size_t *steps_all, double *worst) {
    char dir[256];
    oracle o;
    xlarun_model *m;
    xlarun_session *s;
    xlarun_session_options so;
    xlarun_error err;
    size_t i, agree = 0;
    double max_rel = 0;
    snprintf(dir, sizeof dir, FIX "%s", name);
    if (!load_oracle(dir, &o)) return;
    if (xlarun_model_open(dir, NULL, &m, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); free(o.logits); return; }
    memset(&so, 0, sizeof so);
    so.n_ctx = (uint32_t)(o.n_prompt + N_GEN);
    so.n_batch = 16;
    so.precision = prec;
    so.kv_type = kv;
    if (xlarun_session_create(m, &so, &s, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); xlarun_model_close(m); free(o.logits); return; }
    CHECK(xlarun_session_prefill(s, o.prompt, o.n_prompt, &err) == XLARUN_OK);
    for (i = 0; i < N_GEN; i++) {
        double scale, e = row_error(xlarun_session_logits(s), o.logits + i * o.vocab, o.vocab, &scale);
        if (e / scale > max_rel) max_rel = e / scale;
        agree += xlarun_session_argmax(s) == o.greedy[i];
        if (i + 1 < N_GEN && xlarun_session_decode(s, o.greedy[i], &err) != XLARUN_OK) break;
    }
    CHECKF(agree * 10 >= N_GEN * 9, "%s: %s agrees on only %lu of %d", dir, label, (unsigned long)agree, N_GEN);
    printf("  %-14s %s: top-1 %2lu/%d  max relative logit error %.2e\n", dir + strlen(FIX), label,
           (unsigned long)agree, N_GEN, max_rel);
    *agree_all += agree;
    *steps_all += N_GEN;
    if (max_rel > *worst) *worst = max_rel;
    xlarun_session_free(s);
    xlarun_model_close(m);
    free(o.logits);
}

/* the logits after running ids through a fresh session with these options */
static xlarun_precision run_precision; /* the precision and KV dtype run_logits uses */
static xlarun_kv_type run_kv;
static int run_logits(const xlarun_model *m, const int32_t *ids, size_t n, uint32_t batch,
                      uint32_t threads, size_t split, float *out) {
    xlarun_session_options so;
    xlarun_session *s;
    xlarun_error err;
    size_t i, vocab = xlarun_model_config(m)->vocab_size;
    int ok = 1;
    memset(&so, 0, sizeof so);
    so.n_ctx = (uint32_t)n + 4;
    so.n_batch = batch;
    so.n_threads = threads;
    so.precision = run_precision;
    so.kv_type = run_kv;
    if (xlarun_session_create(m, &so, &s, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); return 0; }
    if (split == 0) { /* token by token */
        for (i = 0; i < n && ok; i++) ok = xlarun_session_decode(s, ids[i], &err) == XLARUN_OK;
    } else {
        ok = xlarun_session_prefill(s, ids, split, &err) == XLARUN_OK;
        if (ok && split < n) ok = xlarun_session_prefill(s, ids + split, n - split, &err) == XLARUN_OK;
    }
    CHECKF(ok, "run: %s", err.message);
    if (ok) memcpy(out, xlarun_session_logits(s), vocab * sizeof(float));
    xlarun_session_free(s);
    return ok;
}

static void test_invariants(const char *name) {
    char dir[256];
    oracle o;
    xlarun_model *m, *ms;
    xlarun_model_options mo;
    xlarun_error err;
    int32_t ids[256 + N_GEN];
    size_t n, V;
    float *ref, *got;
    static const uint32_t batches[] = {1, 3, 7, 16, 64}, threads[] = {2, 3};
    size_t k;
    snprintf(dir, sizeof dir, FIX "%s", name);
    if (!load_oracle(dir, &o)) return;
    memcpy(ids, o.prompt, o.n_prompt * sizeof(int32_t));
    memcpy(ids + o.n_prompt, o.greedy, N_GEN * sizeof(int32_t));
    n = o.n_prompt + 20;
    V = o.vocab;
    ref = (float *)malloc(V * sizeof(float));
    got = (float *)malloc(V * sizeof(float));
    if (xlarun_model_open(dir, NULL, &m, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); goto out0; }
#if !defined(XLARUN_NO_MMAP) && (defined(__unix__) || defined(__APPLE__) || defined(_WIN32))
    CHECKF(xlarun_model_mapped_bytes(m) > 0, "%s: the default open did not map the weights", dir);
#endif
    run_logits(m, ids, n, 1, 1, 0, ref);
    for (k = 0; k < sizeof batches / sizeof *batches; k++) {
        run_logits(m, ids, n, batches[k], 1, n, got);
        CHECKF(!memcmp(ref, got, V * sizeof(float)), "%s: prefill with batch %u differs from token-by-token decode", dir, batches[k]);
    }
    run_logits(m, ids, n, 16, 1, 10, got);
    CHECKF(!memcmp(ref, got, V * sizeof(float)), "%s: prefill continued from position 10 differs", dir);
    for (k = 0; k < sizeof threads / sizeof *threads; k++) {
        run_logits(m, ids, n, 16, threads[k], n, got);
        CHECKF(!memcmp(ref, got, V * sizeof(float)), "%s: %u threads differ from 1", dir, threads[k]);
        /* decode: a KV head split across threads when they do not divide the heads */
        run_logits(m, ids, n, 16, threads[k], 0, got);
        CHECKF(!memcmp(ref, got, V * sizeof(float)), "%s: decode on %u threads differs from 1", dir, threads[k]);
    }
    memset(&mo, 0, sizeof mo);
    mo.no_mmap = 1;
    if (xlarun_model_open(dir, &mo, &ms, &err) != XLARUN_OK) CHECKF(0, "%s: streamed: %s", dir, err.message);
    else {
        CHECK(xlarun_model_mapped_bytes(ms) == 0);
        run_logits(ms, ids, n, 16, 2, n, got);
        CHECKF(!memcmp(ref, got, V * sizeof(float)), "%s: streamed load differs from mmap", dir);
        xlarun_model_close(ms);
    }
    xlarun_model_close(m);
out0:
    free(ref);
    free(got);
    free(o.logits);
}

/* memory: exact sizes, caller memory only, nothing allocated by prefill or decode, reset */
static void test_memory(const char *name, xlarun_kv_type kv) {
    char dir[256];
    size_t mb, sb, i;
    void *mmem, *smem;
    xlarun_model *m;
    xlarun_session *s;
    xlarun_session_options so;
    xlarun_model_options mo;
    xlarun_error err;
    float *first;
    int32_t ids[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9};
    const size_t n = sizeof ids / sizeof *ids;
    int mode;
    for (mode = 0; mode < 2; mode++) {
        snprintf(dir, sizeof dir, FIX "%s", name);
        memset(&mo, 0, sizeof mo);
        mo.no_mmap = mode;
        if (xlarun_model_memory(dir, &mo, &mb, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); return; }
        mmem = malloc(mb);
        n_allocs = 0;
        if (xlarun_model_open_in(dir, &mo, mmem, mb, &m, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); free(mmem); return; }
        CHECKF(n_allocs == 0, "model_open_in allocated %lu times", (unsigned long)n_allocs);
        memset(&so, 0, sizeof so);
        so.n_ctx = 64;
        so.n_batch = 8;
        so.n_threads = 2;
        if (kv != XLARUN_KV_F32) { /* a half-size cache: 64 positions of 2-byte keys and values
                                      fewer, give or take the 64-byte alignment of two blocks */
            const xlarun_config *c = xlarun_model_config(m);
            size_t full;
            CHECK(xlarun_session_memory(m, &so, &full, &err) == XLARUN_OK);
            so.kv_type = kv;
            CHECK(xlarun_session_memory(m, &so, &sb, &err) == XLARUN_OK);
            CHECKF(full - sb + 128 >= (size_t)c->n_layers * c->n_kv_heads * c->head_dim * 2 * 64 * 2 && full - sb <= full / 2,
                   "%s: a half-size KV cache saves only %lu bytes", name, (unsigned long)(full - sb));
        }
        CHECK(xlarun_session_memory(m, &so, &sb, &err) == XLARUN_OK);
        smem = malloc(sb);
        CHECK(xlarun_session_create_in(m, &so, smem, sb - 1, &s, &err) == XLARUN_ERR_MEMORY);
        CHECK(xlarun_session_create_in(m, &so, smem, sb, &s, &err) == XLARUN_OK);
        n_allocs = 0;
        CHECK(xlarun_session_prefill(s, ids, n, &err) == XLARUN_OK);
        for (i = 0; i < 10; i++) CHECK(xlarun_session_decode(s, xlarun_session_argmax(s), &err) == XLARUN_OK);
        CHECKF(n_allocs == 0, "prefill/decode allocated %lu times", (unsigned long)n_allocs);
        /* reset, then the same prompt gives the same logits */
        first = (float *)malloc(xlarun_model_config(m)->vocab_size * sizeof(float));
        xlarun_session_reset(s);
        CHECK(xlarun_session_logits(s) == NULL && xlarun_session_position(s) == 0);
        CHECK(xlarun_session_prefill(s, ids, n, &err) == XLARUN_OK);
        memcpy(first, xlarun_session_logits(s), xlarun_model_config(m)->vocab_size * sizeof(float));
        xlarun_session_reset(s);
        CHECK(xlarun_session_prefill(s, ids, n, &err) == XLARUN_OK);
        CHECK(!memcmp(first, xlarun_session_logits(s), xlarun_model_config(m)->vocab_size * sizeof(float)));
        CHECK(xlarun_session_position(s) == n);
        /* truncate to a prefix, then the rest again: the same logits */
        CHECK(xlarun_session_truncate(s, n + 1, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "cannot keep");
        CHECK(xlarun_session_truncate(s, n, &err) == XLARUN_OK && xlarun_session_logits(s) != NULL);
        CHECK(xlarun_session_truncate(s, 6, &err) == XLARUN_OK);
        CHECK(xlarun_session_position(s) == 6 && xlarun_session_logits(s) == NULL);
        CHECK(xlarun_session_prefill(s, ids + 6, n - 6, &err) == XLARUN_OK);
        CHECK(!memcmp(first, xlarun_session_logits(s), xlarun_model_config(m)->vocab_size * sizeof(float)));
        CHECK(xlarun_session_truncate(NULL, 0, &err) == XLARUN_ERR_ARGUMENT);
        free(first);
        xlarun_session_free(s);
        free(smem);
        xlarun_model_close(m);
        CHECK(xlarun_model_open_in(dir, &mo, mmem, mb - 1, &m, &err) == XLARUN_ERR_MEMORY);
        CHECK_CONTAINS(err.message, "too few");
        free(mmem);
    }
}

#if defined(_WIN32) && !defined(XLARUN_NO_STDIO)
#include <direct.h>
/* the Win32 file layer's refusals: a path that is not UTF-8, and a shard that is not a disk file
   (the NUL device, named by an index); both with their status and message */
static void test_win32_files(void) {
    static const char *dir = "build/win-nul-model";
    char path[256];
    FILE *f;
    xlarun_model *m = NULL;
    xlarun_error err;
    CHECK(xlarun_model_open("tests/fixtures/bad\xff", NULL, &m, &err) == XLARUN_ERR_IO && m == NULL);
    CHECK_CONTAINS(err.message, "cannot open (not a UTF-8 path)");
    _mkdir(dir);
    snprintf(path, sizeof path, "%s/config.json", dir);
    {   /* the fixture's config.json, and an index whose one shard is the NUL device */
        FILE *in = fopen(FIX "mqa-f32/config.json", "rb");
        char buf[4096];
        size_t n = in ? fread(buf, 1, sizeof buf, in) : 0;
        if (in) fclose(in);
        f = fopen(path, "wb");
        CHECK(f != NULL && n > 0);
        if (f) { fwrite(buf, 1, n, f); fclose(f); }
    }
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) { fputs("{\"weight_map\": {\"model.norm.weight\": \"NUL\"}}", f); fclose(f); }
    CHECK(xlarun_model_open(dir, NULL, &m, &err) == XLARUN_ERR_IO && m == NULL);
    CHECK_CONTAINS(err.message, "NUL: not a regular file");
}
#endif

/* a sliding window's layers keep only the positions they attend (a ring of key blocks): the
   memory is smaller by exactly their other slots, the logits are those of a full cache (kv_full)
   bit for bit through prefill chunks and decode, and truncate keeps what the ring still holds and
   refuses the rest with a message, the session unchanged */
static void test_ring(const char *name, size_t n_local) {
    char dir[256];
    oracle o;
    xlarun_model *m;
    xlarun_session *s[2] = {NULL, NULL};
    xlarun_session_options so;
    xlarun_error err;
    int32_t ids[256 + N_GEN];
    size_t bytes[2], n, i, k, V, ring, lds, kvd, w;
    float *want = NULL;
    snprintf(dir, sizeof dir, FIX "%s", name);
    if (!load_oracle(dir, &o)) return;
    memcpy(ids, o.prompt, o.n_prompt * sizeof(int32_t));
    memcpy(ids + o.n_prompt, o.greedy, N_GEN * sizeof(int32_t));
    n = o.n_prompt + 30;
    V = o.vocab;
    if (xlarun_model_open(dir, NULL, &m, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); free(o.logits); return; }
    w = xlarun_model_config(m)->sliding_window;
    kvd = (size_t)xlarun_model_config(m)->n_kv_heads * xlarun_model_config(m)->head_dim;
    memset(&so, 0, sizeof so);
    so.n_ctx = (uint32_t)n + 40;
    so.n_batch = 8;
    so.n_threads = 2;
    ring = XLARUN_K_KEY_PAD(w + so.n_batch - 1);
    lds = XLARUN_K_KEY_PAD(so.n_ctx);
    CHECKF(ring < lds && n > ring + 8, "%s: the test needs a ring shorter than the context", dir);
    for (k = 0; k < 2; k++) {
        so.kv_full = (int)k;
        CHECK(xlarun_session_memory(m, &so, &bytes[k], &err) == XLARUN_OK);
        CHECK(xlarun_session_create(m, &so, &s[k], &err) == XLARUN_OK);
    }
    CHECKF(bytes[1] - bytes[0] == n_local * (lds - ring) * kvd * 4 * 2, "%s: the ring saves %lu bytes, not %lu", dir,
           (unsigned long)(bytes[1] - bytes[0]), (unsigned long)(n_local * (lds - ring) * kvd * 4 * 2));
    if (!s[0] || !s[1]) goto out;
    want = (float *)malloc(V * sizeof(float));
    for (k = 0; k < 2; k++) { /* a prompt in chunks, then decode */
        CHECK(xlarun_session_prefill(s[k], ids, 21, &err) == XLARUN_OK);
        for (i = 21; i < n; i++) CHECK(xlarun_session_decode(s[k], ids[i], &err) == XLARUN_OK);
    }
    CHECKF(!memcmp(xlarun_session_logits(s[0]), xlarun_session_logits(s[1]), V * sizeof(float)), "%s: the ring's logits differ", dir);
    memcpy(want, xlarun_session_logits(s[1]), V * sizeof(float));
    /* the ring holds positions n - ring .. n - 1: keeping k needs k - w + 1 .. k - 1 */
    k = n - ring + w - 1;
    CHECK(xlarun_session_truncate(s[0], k - 1, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "sliding-window layers keep only the last");
    CHECK(xlarun_session_position(s[0]) == n && xlarun_session_logits(s[0]) != NULL);
    CHECK(xlarun_session_truncate(s[0], k, &err) == XLARUN_OK);
    CHECK(xlarun_session_prefill(s[0], ids + k, n - k, &err) == XLARUN_OK);
    CHECKF(!memcmp(xlarun_session_logits(s[0]), want, V * sizeof(float)), "%s: truncated to %lu and run again, the logits differ", dir, (unsigned long)k);
    CHECK(xlarun_session_truncate(s[1], 5, &err) == XLARUN_OK); /* a full cache goes back anywhere */
    CHECK(xlarun_session_prefill(s[1], ids + 5, n - 5, &err) == XLARUN_OK);
    CHECKF(!memcmp(xlarun_session_logits(s[1]), want, V * sizeof(float)), "%s: kv_full truncated to 5, the logits differ", dir);
    CHECK(xlarun_session_truncate(s[0], 0, &err) == XLARUN_OK); /* nothing kept: always possible */
    CHECK(xlarun_session_prefill(s[0], ids, n, &err) == XLARUN_OK);
    CHECKF(!memcmp(xlarun_session_logits(s[0]), want, V * sizeof(float)), "%s: from 0 again, the logits differ", dir);
    /* truncating twice: what a later position overwrote stays lost, whatever the position is
       now (positions n - ring .. n - 1 are held; from n - 10 the window is there, from k - 1
       it is not, although n - 10 - ring would allow it) */
    CHECK(xlarun_session_truncate(s[0], n - 10, &err) == XLARUN_OK);
    CHECK(xlarun_session_truncate(s[0], k - 1, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "sliding-window layers keep only the last");
    CHECK(xlarun_session_position(s[0]) == n - 10);
    CHECK(xlarun_session_truncate(s[0], k, &err) == XLARUN_OK);
    CHECK(xlarun_session_prefill(s[0], ids + k, n - k, &err) == XLARUN_OK);
    CHECKF(!memcmp(xlarun_session_logits(s[0]), want, V * sizeof(float)), "%s: truncated twice, the logits differ", dir);
    /* nor does a context shorter than the ring hold everything once a longer one overwrote it:
       ring + 8 positions, back to ring - 5 (the window from ring - 5 - w + 1 >= 8 is held), then
       to 5 (positions 0..4 were overwritten by ring..ring + 4) */
    xlarun_session_reset(s[0]);
    CHECK(xlarun_session_prefill(s[0], ids, ring + 8, &err) == XLARUN_OK);
    CHECK(xlarun_session_truncate(s[0], ring - 5, &err) == XLARUN_OK);
    CHECK(xlarun_session_truncate(s[0], 5, &err) == XLARUN_ERR_ARGUMENT);
out:
    for (k = 0; k < 2; k++) xlarun_session_free(s[k]);
    xlarun_model_close(m);
    free(want);
    free(o.logits);
}

/* longrope (original_max_position_embeddings 128): every logit is that of one forward over the
   whole sequence, with the long factors once it is longer than 128, the short ones within it.
   The session runs what it holds again when a call crosses 128 either way (up by prefill or
   decode, down after a truncate); that must give the bits of a fresh session's one prefill. */
static void test_longrope_switch(void) {
    xlarun_model *m;
    xlarun_session *s = NULL;
    xlarun_session_options so;
    xlarun_error err;
    int32_t ids[200];
    float *ref, *got;
    size_t i, V;
    if (xlarun_model_open(FIX "phi3lr-f32", NULL, &m, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); return; }
    V = xlarun_model_config(m)->vocab_size;
    ref = (float *)malloc(V * sizeof(float));
    got = (float *)malloc(V * sizeof(float));
    for (i = 0; i < 200; i++) ids[i] = (int32_t)((i * 37 + 11) % V);
    memset(&so, 0, sizeof so);
    so.n_batch = 16;
    CHECK(xlarun_session_create(m, &so, &s, &err) == XLARUN_OK); /* default n_ctx: max_position_embeddings 512, past 128 */
    if (s && ref && got) {
        /* up by decode: 128 short positions, then the 129th */
        CHECK(xlarun_session_prefill(s, ids, 128, &err) == XLARUN_OK);
        memcpy(got, xlarun_session_logits(s), V * sizeof(float));
        CHECK(run_logits(m, ids, 128, 64, 1, 128, ref) && !memcmp(ref, got, V * sizeof(float)));
        CHECK(xlarun_session_decode(s, ids[128], &err) == XLARUN_OK);
        memcpy(got, xlarun_session_logits(s), V * sizeof(float));
        CHECK(run_logits(m, ids, 129, 64, 1, 129, ref));
        CHECKF(!memcmp(ref, got, V * sizeof(float)), "longrope: decoding past the original max differs from one prefill");
        /* up by one prefill from inside, then further decode steps */
        xlarun_session_reset(s);
        CHECK(xlarun_session_prefill(s, ids, 100, &err) == XLARUN_OK);
        CHECK(xlarun_session_prefill(s, ids + 100, 50, &err) == XLARUN_OK);
        for (i = 150; i < 160; i++) CHECK(xlarun_session_decode(s, ids[i], &err) == XLARUN_OK);
        CHECK(run_logits(m, ids, 160, 16, 1, 160, ref));
        CHECKF(!memcmp(ref, xlarun_session_logits(s), V * sizeof(float)), "longrope: a prefill across the original max differs");
        /* down: truncate to 120 (the cache holds long keys), then 5 more: all short again */
        CHECK(xlarun_session_truncate(s, 120, &err) == XLARUN_OK);
        CHECK(xlarun_session_prefill(s, ids + 120, 5, &err) == XLARUN_OK);
        CHECK(run_logits(m, ids, 125, 7, 1, 125, ref));
        CHECKF(!memcmp(ref, xlarun_session_logits(s), V * sizeof(float)), "longrope: back within the original max differs");
        /* and up again, two threads */
        CHECK(xlarun_session_prefill(s, ids + 125, 75, &err) == XLARUN_OK);
        CHECK(run_logits(m, ids, 200, 16, 2, 200, ref));
        CHECKF(!memcmp(ref, xlarun_session_logits(s), V * sizeof(float)), "longrope: across again differs");
    }
    xlarun_session_free(s);
    free(ref);
    free(got);
    xlarun_model_close(m);
}

int main(void) {
    static const char *names[] = {"llama32", "llama2", "mqa", "odd", "mistral", "qwen2", "biased", "qwen3", "gemma3", "gemma2", "gemma", "phi3", "phi3lr", "phi3mix", "phi3long", "smollm3", "granite", "olmo2",
                                  "mixtral", "qwen3moe", "olmoe", "qwen2moe"};
    static const char *dtypes[] = {"f32", "bf16", "f16"};
    double worst = 0;
    size_t i, j;
    printf("oracle (kernels: %s):\n", XLARUN_K_ISA);
    for (i = 0; i < sizeof names / sizeof *names; i++)
        for (j = 0; j < 3; j++) test_oracle(names[i], dtypes[j], &worst);
    printf("  worst relative logit error %.2e (tolerance %.0e)\n", worst, LOGIT_TOL);
    test_invariants("llama32-bf16");
    test_invariants("odd-f16");
    test_invariants("llama2-f32"); /* sharded */
    test_invariants("mistral-bf16"); /* chunks and decode across the sliding window */
    test_invariants("qwen2-f16");    /* biases split by rows like their matrices */
    test_invariants("biased-bf16");
    test_invariants("qwen3-f32");    /* the head norms */
    test_invariants("gemma3-bf16");  /* local and global layers, chunks across the window */
    test_invariants("gemma2-f16");   /* soft caps */
    test_invariants("gemma-bf16");   /* the exact GELU */
    test_ring("mistral-f32", 2);     /* both layers local */
    test_ring("gemma3-f32", 3);      /* layers 0, 1 and 3 of 4 */
    test_ring("gemma2-f32", 2);      /* every other layer */
    test_ring("phi3-f32", 2);        /* both layers, k and v views into qkv_proj */
    test_longrope_switch();
    test_invariants("phi3long-bf16"); /* token by token crosses the original max, one prefill does not */
    test_invariants("phi3lr-bf16");  /* partial rotary, longrope's attention factor */
    test_invariants("phi3-f16");     /* the fused matrices split by rows across threads */
    test_invariants("smollm3-f16");  /* a layer without RoPE */
    test_invariants("granite-bf16"); /* the multipliers */
    test_invariants("olmo2-f16");    /* norms after, none before; the matrices read x itself */
    test_invariants("mixtral-bf16"); /* experts: gathered rows in a prefill, one row decoding */
    test_invariants("qwen3moe-f16"); /* sparse and dense layers, experts narrower than the dense MLP */
    test_invariants("olmoe-f32");    /* unnormalized expert weights, whole-vector q/k norms */
    test_invariants("qwen2moe-bf16"); /* the shared expert, wider than the others, on every row */
    {   /* the lower-precision options: measured agreement, and the same bitwise invariants */
        static const char *bf[] = {"llama32-bf16", "llama2-bf16", "mqa-bf16", "odd-bf16", "mistral-bf16", "qwen2-bf16", "biased-bf16",
                                   "qwen3-bf16", "gemma3-bf16", "gemma2-bf16", "gemma-bf16", "phi3-bf16", "phi3lr-bf16", "phi3mix-bf16", "phi3long-bf16", "smollm3-bf16", "granite-bf16", "olmo2-bf16",
                                   "mixtral-bf16", "qwen3moe-bf16", "olmoe-bf16", "qwen2moe-bf16"};
        static const struct { xlarun_precision prec; xlarun_kv_type kv; const char *label; } modes[] = {
            {XLARUN_PRECISION_BF16_ACTIVATIONS, XLARUN_KV_F32, "bf16-activations"},
            {XLARUN_PRECISION_EXACT, XLARUN_KV_F16, "f16 KV cache"},
            {XLARUN_PRECISION_EXACT, XLARUN_KV_BF16, "bf16 KV cache"}};
        for (j = 0; j < 3; j++) {
            size_t agree = 0, steps = 0;
            double fworst = 0;
            for (i = 0; i < sizeof bf / sizeof *bf; i++) test_fast_mode(bf[i], modes[j].prec, modes[j].kv, modes[j].label, &agree, &steps, &fworst);
            printf("  %s overall: top-1 %lu/%lu, worst relative logit error %.2e\n", modes[j].label,
                   (unsigned long)agree, (unsigned long)steps, fworst);
        }
        run_precision = XLARUN_PRECISION_BF16_ACTIVATIONS;
        test_invariants("llama32-bf16");
        test_invariants("qwen3moe-bf16"); /* each expert's input rows rounded once, either path */
        run_precision = XLARUN_PRECISION_EXACT;
        run_kv = XLARUN_KV_F16;
        test_invariants("llama32-bf16");
        run_kv = XLARUN_KV_BF16;
        test_invariants("odd-f16");
        run_kv = XLARUN_KV_F32;
    }
#if defined(_WIN32) && !defined(XLARUN_NO_STDIO)
    test_win32_files();
#endif
    test_memory("mqa-f32", XLARUN_KV_F32);
    test_memory("qwen2-bf16", XLARUN_KV_F32); /* f32 copies of the biases in the model's memory */
    test_memory("gemma3-f16", XLARUN_KV_F32); /* local RoPE tables, sandwich norms */
    test_memory("llama2-f32", XLARUN_KV_F32);
    test_memory("llama32-bf16", XLARUN_KV_F16);
    test_memory("qwen3moe-bf16", XLARUN_KV_F32); /* the routing buffers, expert weight tables */
    test_memory("qwen2moe-f16", XLARUN_KV_F32);  /* and the shared expert's */
    return test_report("model");
}
