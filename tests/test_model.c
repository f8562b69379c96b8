/* test_model.c - the model layer: config.json read into xlarun_config (every key, each
   architecture's defaults, each refusal by name), xlarun against the transformers oracle
   (tests/fixtures), and the executor's guarantees: prefill == token-by-token decode, any thread
   count, mmap == streamed, exact memory sizes, no allocation after a session exists.
   Run from the repository root; arguments select cases (tests/test.h). */
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
#include "test_files.h"

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

/* ======================================================================================== */
/* config.json: a fixture's weights in a temporary folder beside a config.json changed from the
   fixture's; each case goes through xlarun_model_open and xlarun_model_memory, and checks the
   status and what the message names (the key, the value, what was expected), or the config read.
   m32 holds llama32-f32's weights; mg those of the fixture a case copies in. */
#if defined(_WIN32)
#include <direct.h>
#include <io.h>
#include <process.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

static void rmdir_t(const char *rel) {
#if defined(_WIN32)
    _rmdir(tpath(rel));
#else
    rmdir(tpath(rel));
#endif
}

/* the file's size set to n bytes (sparse where the file system allows); 1 if done */
static int set_size(FILE *f, long n) {
#if defined(_WIN32)
    return _chsize(_fileno(f), n) == 0;
#else
    return ftruncate(fileno(f), (off_t)n) == 0;
#endif
}

static char *cfg32;     /* llama32-f32 config.json */
static size_t cfg32_n;

/* the config with one top-level line removed (del, may be NULL) and keys appended (extra, may be
   NULL): appended keys override earlier ones (the last one wins, as in Python's json) */
static void write_cfg(const char *dir, const char *del, const char *extra) {
    char *out = (char *)malloc(cfg32_n + (extra ? strlen(extra) : 0) + 16), *o = out;
    const char *p = cfg32, *end;
    char key[80];
    if (del) snprintf(key, sizeof key, "\n  \"%s\":", del);
    end = strrchr(cfg32, '}');
    while (p < end) {
        const char *nl = (const char *)memchr(p + 1, '\n', (size_t)(end - p - 1));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (!(del && !strncmp(p, key, strlen(key)))) { memcpy(o, p, len); o += len; }
        p += len;
    }
    while (o > out && (o[-1] == '\n' || o[-1] == ' ' || o[-1] == ',')) o--;
    if (extra) o += sprintf(o, ",\n  %s", extra);
    strcpy(o, "\n}\n");
    {
        char path[1024];
        snprintf(path, sizeof path, "%s/config.json", dir);
        spits(path, out);
    }
    free(out);
}

static void cfg_case(const char *del, const char *extra, xlarun_status want, const char *sub, int line) {
    write_cfg(tpath("m32"), del, extra);
    expect_model_opt(tpath("m32"), NULL, want, sub, line);
}
#define CFG(del, extra, want, sub) cfg_case((del), (extra), (want), (sub), __LINE__)
#define V5 "\"transformers_version\": \"5.24.0\", " /* a key transformers 5 writes: rope_parameters */

/* config.json itself (in m32, with llama32-f32's model.safetensors) */
static void config_file(void) {
    char d[1024];
    snprintf(d, sizeof d, "%s", tpath("m32"));
    write_cfg(d, NULL, NULL);
    EXPECT_MODEL(d, XLARUN_OK, ""); /* the rewritten config is still the fixture */
    remove(tpath("m32/config.json"));
    EXPECT_MODEL(d, XLARUN_ERR_IO, "m32/config.json: cannot open");
    spits(tpath("m32/config.json"), "{\"vocab_size\": 512,}");
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "config.json: invalid JSON at line 1 column 20: expected a string key");
    spits(tpath("m32/config.json"), "");
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "config.json: invalid JSON at line 1 column 1: unexpected end of input");
    spits(tpath("m32/config.json"), "[{\"model_type\": \"llama\"}]");
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "config.json: not a JSON object");
    remove(tpath("m32/config.json"));
    mkdir_t("m32/config.json");
#if defined(_WIN32)
    EXPECT_MODEL(d, XLARUN_ERR_IO, "config.json: cannot open"); /* CreateFileW refuses a folder */
#else
    EXPECT_MODEL(d, XLARUN_ERR_IO, "config.json: not a regular file");
#endif
    rmdir_t("m32/config.json");
    { /* over the 16 MiB limit: a sparse file, refused by its size */
        FILE *f = fopen(tpath("m32/config.json"), "wb");
        CHECK(f && set_size(f, (16L << 20) + 1));
        if (f) fclose(f);
        EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "config.json: 16777217 bytes is over the limit of 16777216");
    }
    { /* nested 100,000 deep: the depth limit, not a stack overflow */
        size_t n = 100000;
        char *deep = (char *)malloc(n + 16);
        memcpy(deep, "{\"a\":", 5);
        memset(deep + 5, '[', n);
        deep[n + 5] = 0;
        spits(tpath("m32/config.json"), deep);
        EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "config.json: invalid JSON at line 1 column 69: nesting deeper than 64");
        free(deep);
    }
    { /* a 4 MB string where a short name belongs: a bounded message that still names the key */
        size_t n = 4u << 20;
        char *big = (char *)malloc(n + 64);
        int k = sprintf(big, "{\"model_type\": \"");
        memset(big + k, 'q', n);
        strcpy(big + k + n, "\"}");
        spits(tpath("m32/config.json"), big);
        EXPECT_MODEL(d, XLARUN_ERR_UNSUPPORTED, "config.json: model_type '");
        free(big);
    }
}

/* what kind of model */
static void config_architectures(void) {
    CFG(NULL, "\"architectures\": [\"PhiForCausalLM\"]", XLARUN_ERR_UNSUPPORTED,
        "config.json: architecture 'PhiForCausalLM' is not supported (supported: LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Gemma3ForCausalLM, Gemma2ForCausalLM, GemmaForCausalLM, Phi3ForCausalLM, SmolLM3ForCausalLM, GraniteForCausalLM, Olmo2ForCausalLM, MixtralForCausalLM, Qwen3MoeForCausalLM, OlmoeForCausalLM, Qwen2MoeForCausalLM)");
    CFG(NULL, "\"architectures\": [\"Qwen2ForCausalLM\"]", XLARUN_ERR_FORMAT,
        "config.json: model_type 'llama' and 'architectures' name different models");
    CFG(NULL, "\"architectures\": [\"LlamaForCausalLM\", \"MistralForCausalLM\"]", XLARUN_ERR_FORMAT,
        "config.json: 'architectures' names two different models");
    CFG(NULL, "\"architectures\": [], \"model_type\": null", XLARUN_ERR_FORMAT,
        "neither 'architectures' nor 'model_type' says what model this is");
}

/* Mistral: the two names agree, no RoPE scaling, a window of at least one position */
static void config_mistral(void) {
#define MISTRAL "\"model_type\": \"mistral\", \"architectures\": null, \"rope_scaling\": null"
    CFG(NULL, "\"architectures\": [\"MistralForCausalLM\"]", XLARUN_ERR_FORMAT,
        "config.json: model_type 'llama' and 'architectures' name different models");
    CFG(NULL, "\"model_type\": \"mistral\"", XLARUN_ERR_FORMAT,
        "config.json: model_type 'mistral' and 'architectures' name different models");
    CFG(NULL, "\"model_type\": \"mistral\", \"architectures\": [\"MistralForCausalLM\"]", XLARUN_ERR_UNSUPPORTED,
        "config.json: rope type 'llama3' with MistralForCausalLM is not supported (it takes no RoPE scaling)");
    CFG(NULL, "\"model_type\": \"mistral\", \"architectures\": [\"MistralForCausalLM\"], \"rope_scaling\": null, "
              "\"sliding_window\": 0", XLARUN_ERR_FORMAT, "config.json: 'sliding_window' must be an integer in 1..16777216, found 0");
    CFG(NULL, "\"model_type\": \"mistral\", \"architectures\": [\"MistralForCausalLM\"], \"rope_scaling\": null, "
              "\"sliding_window\": \"4096\"", XLARUN_ERR_FORMAT, "config.json: 'sliding_window' must be an integer in 1..16777216, found \"4096\"");
    CFG(NULL, MISTRAL ", \"sliding_window\": 4096", XLARUN_OK, "");
    CFG(NULL, "\"architectures\": [\"MistralForCausalLM\"], \"model_type\": null, \"rope_scaling\": null, \"sliding_window\": null",
        XLARUN_OK, "");
    CFG(NULL, "\"model_type\": \"mistral\", \"architectures\": null, \"rope_scaling\": {\"rope_type\": \"dynamic\", \"factor\": 2}",
        XLARUN_ERR_UNSUPPORTED, "config.json: rope type 'dynamic' with MistralForCausalLM is not supported");
    CFG("transformers_version", V5 MISTRAL ", "
              "\"rope_parameters\": {\"rope_theta\": 1e6, \"rope_type\": \"linear\", \"factor\": 2}",
        XLARUN_ERR_UNSUPPORTED, "config.json: rope type 'linear' with MistralForCausalLM is not supported");
    CFG("transformers_version", V5 MISTRAL ", "
              "\"rope_parameters\": {\"rope_theta\": 1e6, \"rope_type\": \"default\"}", XLARUN_OK, "");
    CFG(NULL, MISTRAL ", \"sliding_window\": -1",
        XLARUN_ERR_FORMAT, "config.json: 'sliding_window' must be an integer in 1..16777216, found -1");
    CFG(NULL, MISTRAL ", \"sliding_window\": 16777217",
        XLARUN_ERR_FORMAT, "config.json: 'sliding_window' must be an integer in 1..16777216, found 16777217");
    {   /* what the accepted ones read: the window given, none for null, MistralConfig's 4096 when
           the key is missing; a Llama config's window is not read (LlamaForCausalLM has none) */
        static const struct { const char *extra; xlarun_arch arch; uint32_t window; } rd[] = {
            {MISTRAL ", \"sliding_window\": 20", XLARUN_ARCH_MISTRAL, 20},
            {MISTRAL ", \"sliding_window\": null", XLARUN_ARCH_MISTRAL, 0},
            {MISTRAL, XLARUN_ARCH_MISTRAL, 4096},
            {"\"sliding_window\": 20", XLARUN_ARCH_LLAMA, 0}};
        size_t k;
        for (k = 0; k < sizeof rd / sizeof rd[0]; k++) {
            xlarun_model *mm = NULL;
            xlarun_error e2;
            write_cfg(tpath("m32"), NULL, rd[k].extra);
            CHECKF(xlarun_model_open(tpath("m32"), NULL, &mm, &e2) == XLARUN_OK, "case %lu: %s", (unsigned long)k, e2.message);
            if (mm) {
                CHECKF(xlarun_model_config(mm)->arch == rd[k].arch && xlarun_model_config(mm)->sliding_window == rd[k].window,
                       "case %lu: arch %d window %u", (unsigned long)k, (int)xlarun_model_config(mm)->arch,
                       xlarun_model_config(mm)->sliding_window);
                xlarun_model_close(mm);
            }
        }
    }
#undef MISTRAL
}

/* unsupported names, and the form of the keys that name the model */
static void config_names(void) {
    CFG(NULL, "\"architectures\": [\"LlamaForCausalLM\", \"LlamaForSequenceClassification\"]", XLARUN_ERR_UNSUPPORTED,
        "architecture 'LlamaForSequenceClassification' is not supported");
    CFG(NULL, "\"architectures\": \"LlamaForCausalLM\"", XLARUN_ERR_FORMAT, "config.json: 'architectures' must be a list");
    CFG(NULL, "\"model_type\": \"phi\"", XLARUN_ERR_UNSUPPORTED, "config.json: model_type 'phi' is not supported (supported: llama, mistral, qwen2, qwen3, gemma3_text, gemma2, gemma, phi3, smollm3, granite, olmo2, mixtral, qwen3_moe, olmoe, qwen2_moe)");
}

/* Qwen2: names that agree, head_dim as transformers 4.46 derives it, no per-layer window,
   Qwen2Config's 32 KV heads when the key is missing (MistralConfig's 8 for Mistral) */
static void config_qwen2(void) {
#define QWEN2 "\"model_type\": \"qwen2\", \"architectures\": [\"Qwen2ForCausalLM\"]"
    CFG(NULL, "\"model_type\": \"qwen2\"", XLARUN_ERR_FORMAT, "config.json: model_type 'qwen2' and 'architectures' name different models");
    CFG(NULL, QWEN2, XLARUN_ERR_UNSUPPORTED,
        "config.json: head_dim 32 with Qwen2ForCausalLM is not supported (it must be hidden_size / num_attention_heads, 16)");
    CFG("head_dim", QWEN2 ", \"use_sliding_window\": true", XLARUN_ERR_UNSUPPORTED,
        "config.json: use_sliding_window true (Qwen's window on the upper layers) is not supported");
    CFG("head_dim", QWEN2 ", \"use_sliding_window\": 1", XLARUN_ERR_FORMAT, "config.json: 'use_sliding_window' must be true or false");
    CFG("num_key_value_heads", QWEN2, XLARUN_ERR_FORMAT,
        "config.json: num_attention_heads 4 is not a multiple of num_key_value_heads 32");
    CFG("num_key_value_heads", "\"model_type\": \"mistral\", \"architectures\": null, \"rope_scaling\": null", XLARUN_ERR_FORMAT,
        "config.json: num_attention_heads 4 is not a multiple of num_key_value_heads 8");
    CFG("num_key_value_heads", "\"model_type\": \"mistral\", \"architectures\": null, \"rope_scaling\": null, \"num_key_value_heads\": null",
        XLARUN_ERR_MODEL, "tensor 'model.layers.0.self_attn.k_proj.weight' has shape [64,64], but config.json implies [128,64]"); /* null: 4 heads */
    CFG("head_dim", "\"model_type\": \"qwen3\", \"architectures\": null, \"rope_scaling\": null", XLARUN_ERR_MODEL,
        "tensor 'model.layers.0.self_attn.k_proj.weight' has shape [64,64], but config.json implies [256,64]"); /* 2 x 128 */
#undef QWEN2
}

/* the switches: activation, biases, tied embeddings */
static void config_switches(void) {
    CFG(NULL, "\"architectures\": null, \"model_type\": null", XLARUN_ERR_FORMAT,
        "neither 'architectures' nor 'model_type' says what model this is");
    CFG(NULL, "\"hidden_act\": \"gelu\"", XLARUN_ERR_UNSUPPORTED, "config.json: hidden_act 'gelu' is not supported (supported: silu)");
    CFG(NULL, "\"attention_bias\": true", XLARUN_ERR_MODEL,
        "missing tensor 'model.layers.0.self_attn.q_proj.bias' (config.json has attention_bias true)");
    CFG(NULL, "\"attention_bias\": \"no\"", XLARUN_ERR_FORMAT, "config.json: 'attention_bias' must be true or false");
    CFG(NULL, "\"mlp_bias\": true", XLARUN_ERR_MODEL,
        "missing tensor 'model.layers.0.mlp.gate_proj.bias' (config.json has mlp_bias true)");
    CFG(NULL, "\"model_type\": \"mistral\", \"architectures\": null, \"rope_scaling\": null, \"attention_bias\": true, \"mlp_bias\": true",
        XLARUN_OK, ""); /* MistralConfig has no bias switches */
    CFG(NULL, "\"tie_word_embeddings\": 1", XLARUN_ERR_FORMAT, "config.json: 'tie_word_embeddings' must be true or false");
}

/* sizes */
static void config_sizes(void) {
    CFG("hidden_size", NULL, XLARUN_ERR_FORMAT, "config.json: missing key 'hidden_size'");
    CFG(NULL, "\"hidden_size\": null", XLARUN_ERR_FORMAT, "config.json: missing key 'hidden_size'");
    CFG(NULL, "\"hidden_size\": -5", XLARUN_ERR_FORMAT, "config.json: 'hidden_size' must be an integer in 1..65536, found -5");
    CFG(NULL, "\"hidden_size\": 0", XLARUN_ERR_FORMAT, "'hidden_size' must be an integer in 1..65536, found 0");
    CFG(NULL, "\"hidden_size\": 1.5", XLARUN_ERR_FORMAT, "'hidden_size' must be an integer in 1..65536, found 1.5");
    CFG(NULL, "\"hidden_size\": \"64\"", XLARUN_ERR_FORMAT, "'hidden_size' must be an integer in 1..65536, found \"64\"");
    CFG(NULL, "\"hidden_size\": 1e9", XLARUN_ERR_FORMAT, "'hidden_size' must be an integer in 1..65536, found 1e9");
    CFG(NULL, "\"hidden_size\": 64.0", XLARUN_ERR_FORMAT, "'hidden_size' must be an integer in 1..65536, found 64.0");
    CFG(NULL, "\"vocab_size\": 16777217", XLARUN_ERR_FORMAT, "'vocab_size' must be an integer in 1..16777216, found 16777217");
    CFG("vocab_size", NULL, XLARUN_ERR_FORMAT, "config.json: missing key 'vocab_size'");
    CFG(NULL, "\"num_hidden_layers\": 0", XLARUN_ERR_FORMAT, "'num_hidden_layers' must be an integer in 1..1024, found 0");
    CFG(NULL, "\"intermediate_size\": [96]", XLARUN_ERR_FORMAT, "'intermediate_size' must be an integer in 1..1048576, found [96]");
    CFG("head_dim", "\"num_attention_heads\": 5, \"num_key_value_heads\": 5", XLARUN_ERR_FORMAT,
        "config.json: hidden_size 64 is not divisible by num_attention_heads 5 (and no head_dim is given)");
    CFG(NULL, "\"num_key_value_heads\": 3", XLARUN_ERR_FORMAT,
        "config.json: num_attention_heads 4 is not a multiple of num_key_value_heads 3");
    CFG(NULL, "\"num_key_value_heads\": 8", XLARUN_ERR_FORMAT, "num_attention_heads 4 is not a multiple of num_key_value_heads 8");
    CFG(NULL, "\"num_key_value_heads\": 0", XLARUN_ERR_FORMAT, "'num_key_value_heads' must be an integer in 1..1024, found 0");
    CFG(NULL, "\"head_dim\": 0", XLARUN_ERR_FORMAT, "'head_dim' must be an integer in 2..1024, found 0");
    CFG(NULL, "\"head_dim\": 33", XLARUN_ERR_FORMAT, "config.json: head_dim 33 must be even for RoPE");
    CFG(NULL, "\"max_position_embeddings\": 0", XLARUN_ERR_FORMAT, "'max_position_embeddings' must be an integer in 1..16777216, found 0");
    /* a context of 2^40 in config.json, and one past the documented limit */
    CFG(NULL, "\"max_position_embeddings\": 1099511627776", XLARUN_ERR_FORMAT,
        "config.json: 'max_position_embeddings' must be an integer in 1..16777216, found 1099511627776");
    CFG(NULL, "\"max_position_embeddings\": 16777217", XLARUN_ERR_FORMAT, "'max_position_embeddings' must be an integer in 1..16777216, found 16777217");
    CFG(NULL, "\"max_position_embeddings\": -1", XLARUN_ERR_FORMAT, "'max_position_embeddings' must be an integer in 1..16777216, found -1");
    /* each documented limit, one past it */
    CFG(NULL, "\"hidden_size\": 65537", XLARUN_ERR_FORMAT, "'hidden_size' must be an integer in 1..65536, found 65537");
    CFG(NULL, "\"intermediate_size\": 1048577", XLARUN_ERR_FORMAT, "'intermediate_size' must be an integer in 1..1048576, found 1048577");
    CFG(NULL, "\"num_hidden_layers\": 1025", XLARUN_ERR_FORMAT, "'num_hidden_layers' must be an integer in 1..1024, found 1025");
    CFG(NULL, "\"num_attention_heads\": 1025", XLARUN_ERR_FORMAT, "'num_attention_heads' must be an integer in 1..1024, found 1025");
    CFG(NULL, "\"num_key_value_heads\": 1025", XLARUN_ERR_FORMAT, "'num_key_value_heads' must be an integer in 1..1024, found 1025");
    CFG(NULL, "\"head_dim\": 1026", XLARUN_ERR_FORMAT, "'head_dim' must be an integer in 2..1024, found 1026");
    /* more negative values */
    CFG(NULL, "\"vocab_size\": -512", XLARUN_ERR_FORMAT, "'vocab_size' must be an integer in 1..16777216, found -512");
    CFG(NULL, "\"num_attention_heads\": -4", XLARUN_ERR_FORMAT, "'num_attention_heads' must be an integer in 1..1024, found -4");
    CFG(NULL, "\"rope_theta\": -Infinity", XLARUN_ERR_FORMAT, "config.json: invalid JSON at line");
    CFG(NULL, "\"vocab_size\": NaN", XLARUN_ERR_FORMAT, "config.json: invalid JSON at line");
    /* duplicate keys: the last one wins, as in Python's json (the config above already repeats
       each key it appends); an earlier bad value is not looked at */
    CFG(NULL, "\"vocab_size\": -1, \"vocab_size\": 512", XLARUN_OK, "");
    CFG(NULL, "\"vocab_size\": 512, \"vocab_size\": 0", XLARUN_ERR_FORMAT, "'vocab_size' must be an integer in 1..16777216, found 0");
    CFG(NULL, "\"rms_norm_eps\": -1e-05", XLARUN_ERR_FORMAT, "config.json: 'rms_norm_eps' must be a number in (0, 1), found -1e-05");
    CFG(NULL, "\"rms_norm_eps\": 0", XLARUN_ERR_FORMAT, "'rms_norm_eps' must be a number in (0, 1), found 0");
    CFG(NULL, "\"rms_norm_eps\": \"1e-5\"", XLARUN_ERR_FORMAT, "'rms_norm_eps' must be a number in (0, 1), found \"1e-5\"");
    /* what Python's json.dump writes for non-finite floats is not JSON; a huge exponent is */
    CFG(NULL, "\"rms_norm_eps\": NaN", XLARUN_ERR_FORMAT, "config.json: invalid JSON at line");
    CFG(NULL, "\"rope_theta\": Infinity", XLARUN_ERR_FORMAT, "config.json: invalid JSON at line");
    CFG(NULL, "\"rope_theta\": 1e400", XLARUN_ERR_FORMAT, "'rope_theta' must be a number in (0, 1e+30), found 1e400");
    CFG(NULL, "\"rms_norm_eps\": -0.0", XLARUN_ERR_FORMAT, "'rms_norm_eps' must be a number in (0, 1), found -0.0");
    CFG(NULL, "\"bos_token_id\": \"<s>\"", XLARUN_ERR_FORMAT, "config.json: 'bos_token_id' must be a token id or a list of them");
    CFG(NULL, "\"eos_token_id\": [1, -2]", XLARUN_ERR_FORMAT, "config.json: 'eos_token_id' must be a token id or a list of them");
    CFG(NULL, "\"eos_token_id\": [1,2,3,4,5,6,7,8,9]", XLARUN_ERR_FORMAT, "config.json: 'eos_token_id' lists more than 8 ids");
}

/* RoPE */
static void same_logits(const char *a, const char *b, const char *label);

static void config_rope(void) {
    CFG(NULL, "\"rope_theta\": 0", XLARUN_ERR_FORMAT, "config.json: 'rope_theta' must be a number in (0, 1e+30), found 0");
    CFG(NULL, "\"rope_theta\": -10000.0", XLARUN_ERR_FORMAT, "'rope_theta' must be a number in (0, 1e+30), found -10000.0");
    CFG(NULL, "\"rope_scaling\": {\"rope_type\": \"dynamic\", \"factor\": 2}", XLARUN_ERR_UNSUPPORTED,
        "config.json: rope type 'dynamic' is not supported (supported: default, linear, llama3)");
    CFG(NULL, "\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 2}", XLARUN_ERR_UNSUPPORTED, "rope type 'yarn' is not supported");
    CFG(NULL, "\"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0}",
        XLARUN_ERR_FORMAT, "config.json: 'rope_scaling.original_max_position_embeddings' must be a positive integer");
    CFG(NULL, "\"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 4.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 32}",
        XLARUN_ERR_FORMAT, "config.json: rope_scaling.high_freq_factor must be larger than low_freq_factor");
    CFG(NULL, "\"rope_scaling\": {\"rope_type\": \"llama3\", \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 32}",
        XLARUN_ERR_FORMAT, "config.json: missing key 'rope_scaling.factor'");
    CFG(NULL, "\"rope_scaling\": {\"rope_type\": \"linear\"}", XLARUN_ERR_FORMAT, "config.json: missing key 'rope_scaling.factor'");
    CFG(NULL, "\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 0}", XLARUN_ERR_FORMAT,
        "'rope_scaling.factor' must be a number in (0, 1e+09), found 0");
    CFG(NULL, "\"rope_scaling\": \"llama3\"", XLARUN_ERR_FORMAT, "config.json: 'rope_scaling' must be an object or null");
    CFG("transformers_version", V5 "\"rope_parameters\": 5", XLARUN_ERR_FORMAT, "config.json: 'rope_parameters' must be an object");
    CFG("transformers_version", "\"transformers_version\": 5", XLARUN_ERR_FORMAT,
        "config.json: 'transformers_version' must be a version string of at most 23 bytes");
    CFG("transformers_version", V5 "\"rope_scaling\": null, \"rope_parameters\": {\"rope_type\": \"longrope\", \"rope_theta\": 10000.0}", XLARUN_ERR_UNSUPPORTED,
        "rope type 'longrope' is not supported");
    CFG("transformers_version", V5 "\"rope_scaling\": null, \"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 0}", XLARUN_ERR_FORMAT,
        "'rope_parameters.rope_theta' must be a number");
    /* llama3's original_max_position_embeddings: transformers 4 needs it in rope_scaling; 5 takes the
       top-level key over rope_parameters', and max_position_embeddings when neither is there */
    {
        static const struct { const char *extra; uint32_t want; } om[] = {
            {V5 "\"rope_scaling\": null, \"original_max_position_embeddings\": 32, \"rope_parameters\": "
                "{\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"rope_theta\": 500000.0, \"original_max_position_embeddings\": 64}", 32},
            {V5 "\"rope_scaling\": null, \"rope_parameters\": "
                "{\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"rope_theta\": 500000.0, \"original_max_position_embeddings\": 64}", 64},
            {V5 "\"rope_scaling\": null, \"rope_parameters\": "
                "{\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"rope_theta\": 500000.0}", 256}};
        size_t k;
        for (k = 0; k < sizeof om / sizeof *om; k++) {
            xlarun_model *m = NULL;
            xlarun_error e;
            write_cfg(tpath("m32"), "transformers_version", om[k].extra);
            CHECKF(xlarun_model_open(tpath("m32"), NULL, &m, &e) == XLARUN_OK, "%s", e.message);
            if (m) CHECKF(m->cfg.rope_original_max_position_embeddings == om[k].want && m->cfg.rope_type == XLARUN_ROPE_LLAMA3,
                          "case %lu: original_max_position_embeddings %u, want %u", (unsigned long)k,
                          m->cfg.rope_original_max_position_embeddings, om[k].want);
            xlarun_model_close(m);
        }
        /* the first one is the fixture's config in transformers 5's words: the same logits */
        write_cfg(tpath("m32"), "transformers_version", om[0].extra);
        same_logits(FIX "llama32-f32", tpath("m32"), "llama32, rope_parameters");
    }
    /* transformers 4 does not read rope_parameters; 5 reads rope_scaling in its place when both are there */
    CFG(NULL, "\"rope_parameters\": {\"rope_type\": \"linear\", \"factor\": 2.0, \"rope_theta\": 10.0}", XLARUN_OK, "");
    CFG("transformers_version", V5 "\"rope_parameters\": {\"rope_type\": \"linear\", \"factor\": 2.0, \"rope_theta\": 10.0}", XLARUN_OK, "");
    write_cfg(tpath("m32"), "transformers_version", V5 "\"rope_parameters\": {\"rope_type\": \"linear\", \"factor\": 2.0, \"rope_theta\": 10.0}");
    same_logits(FIX "llama32-f32", tpath("m32"), "llama32, rope_scaling over rope_parameters");
}

/* config.json against the tensors */
static void config_tensors(void) {
    CFG(NULL, "\"vocab_size\": 500", XLARUN_ERR_MODEL,
        "tensor 'model.embed_tokens.weight' has shape [512,64], but config.json implies [500,64]");
    CFG(NULL, "\"num_hidden_layers\": 3", XLARUN_ERR_MODEL,
        "missing tensor 'model.layers.2.input_layernorm.weight' (config.json has num_hidden_layers 3)");
    CFG(NULL, "\"num_hidden_layers\": 1", XLARUN_ERR_MODEL,
        "tensor 'model.layers.1.input_layernorm.weight' is past num_hidden_layers 1 in config.json");
    CFG(NULL, "\"tie_word_embeddings\": false", XLARUN_ERR_MODEL,
        "missing tensor 'lm_head.weight' (config.json has tie_word_embeddings false)");
    CFG(NULL, "\"num_attention_heads\": 2", XLARUN_ERR_MODEL,
        "tensor 'model.layers.0.self_attn.o_proj.weight' has shape [64,128], but config.json implies [64,64]");
    CFG(NULL, "\"head_dim\": 16", XLARUN_ERR_MODEL,
        "tensor 'model.layers.0.self_attn.k_proj.weight' has shape [64,64], but config.json implies [32,64]");
    CFG(NULL, "\"intermediate_size\": 95", XLARUN_ERR_MODEL,
        "tensor 'model.layers.0.mlp.down_proj.weight' has shape [64,96], but config.json implies [64,95]");
    CFG(NULL, "\"hidden_size\": 32, \"head_dim\": 32", XLARUN_ERR_MODEL,
        "tensor 'model.embed_tokens.weight' has shape [512,64], but config.json implies [512,32]");
}

/* a fixture's config.json with one piece of text replaced (the piece must be there) */
static char *gem_cfg(const char *base, const char *old, const char *new_) {
    const char *at = old ? strstr(base, old) : NULL;
    size_t nb = strlen(base), no = old ? strlen(old) : 0, nn = new_ ? strlen(new_) : 0;
    char *t = (char *)malloc(nb + nn + 1);
    CHECKF(!old || at != NULL, "config.json: no \"%s\"", old);
    if (!at) { memcpy(t, base, nb + 1); return t; }
    memcpy(t, base, (size_t)(at - base));
    memcpy(t + (at - base), new_, nn);
    memcpy(t + (at - base) + nn, at + no, nb - (size_t)(at - base) - no + 1);
    return t;
}

/* base with its transformers_version set to v (the version decides how some keys read) */
static char *with_version(const char *base, const char *v) {
    const char *at = strstr(base, "\"transformers_version\": \""), *e;
    char old[64], new_[64];
    CHECKF(at != NULL, "config.json: no transformers_version");
    if (!at) return gem_cfg(base, NULL, NULL);
    e = strchr(at + 25, '"');
    snprintf(old, sizeof old, "%.*s", (int)(e + 1 - at), at);
    snprintf(new_, sizeof new_, "\"transformers_version\": \"%s\"", v);
    return gem_cfg(base, old, new_);
}

static void gem_case(const char *base, const char *old, const char *new_, xlarun_status want, const char *sub, int line) {
    char *t = gem_cfg(base, old, new_);
    spits(tpath("mg/config.json"), t);
    free(t);
    expect_model_opt(tpath("mg"), NULL, want, sub, line);
}

/* the config xlarun reads from the fixture's config.json with old replaced by new_ */
/* what a config.json reads to: the public config and the executor's plan */
typedef struct cfgplan { xlarun_config c; xlarun__plan p; } cfgplan;

static int gem_config(const char *base, const char *old, const char *new_, cfgplan *out) {
    xlarun_model *m = NULL;
    xlarun_error e;
    char *t = gem_cfg(base, old, new_);
    spits(tpath("mg/config.json"), t);
    free(t);
    if (xlarun_model_open(tpath("mg"), NULL, &m, &e) != XLARUN_OK) { CHECKF(0, "config.json: %s", e.message); return 0; }
    out->c = m->cfg;
    out->p = m->plan;
    xlarun_model_close(m);
    return 1;
}

/* a tensor name in the first 64 KB of a safetensors file (its header), or NULL */
static char *find_name(unsigned char *w, size_t n, const char *name) {
    size_t i, len = strlen(name);
    for (i = 0; i + len < n && i < 65536; i++)
        if (!memcmp(w + i, name, len)) return (char *)w + i;
    return NULL;
}

/* the model file w with character pos of tensor name `name` (in its header) set to ch, written to
   mg/ and opened with the fixture's config: want and sub; then w and mg/ as they were */
static void renamed_case(unsigned char *w, size_t n, const char *base, const char *name, size_t pos, char ch,
                         xlarun_status want, const char *sub, int line) {
    char *at = find_name(w, n, name), old;
    CHECKF(at != NULL, "line %d: no '%s' in the header", line, name);
    if (!at) return;
    old = at[pos];
    at[pos] = ch;
    spit(tpath("mg/model.safetensors"), w, n);
    gem_case(base, NULL, NULL, want, sub, line);
    at[pos] = old;
    spit(tpath("mg/model.safetensors"), w, n);
}

#define GEM_ROPE_V4 "  \"rope_local_base_freq\": 10000.0,\n  \"rope_scaling\": {\n    \"factor\": 8.0,\n    \"rope_type\": \"linear\"\n  },\n  \"rope_theta\": 1000000.0,\n"
#define GEM_TYPES "  \"layer_types\": [\n    \"sliding_attention\",\n    \"sliding_attention\",\n    \"full_attention\",\n    \"sliding_attention\"\n  ],\n"

/* Gemma 3: each key of its own, each refusal by name; transformers 5's per-layer-type
   rope_parameters and a config without layer_types read to the same config as the fixture's */
static void config_gemma3(void) {
    size_t n, nc;
    unsigned char *w = slurp(FIX "gemma3-f32/model.safetensors", &n), *f = (unsigned char *)malloc(n + 16);
    char *base = (char *)slurp(FIX "gemma3-f32/config.json", &nc), *base5;
    cfgplan ref, ref5, c;
    spit(tpath("mg/model.safetensors"), w, n);
    if (!gem_config(base, NULL, NULL, &ref)) { free(w); free(f); free(base); return; }
    base5 = gem_cfg(base, "\"transformers_version\": \"4.57.1\"", "\"transformers_version\": \"5.24.0\""); /* rope_parameters: a 5.x key */
    ref5 = ref;
    strcpy(ref5.c.transformers_version, "5.24.0");
    CHECK(ref.c.arch == XLARUN_ARCH_GEMMA3 && ref.p.act == XLARUN__ACT_GELU_TANH && ref.p.norm_plus_one && (ref.p.norms == XLARUN__NORMS_SANDWICH) && ref.p.qk);
    CHECK(ref.c.sliding_window == 20 && ref.p.sliding_pattern == 3 && ref.c.rope_local_theta == 10000.0f && ref.c.rope_theta == 1e6f);
    CHECK(ref.c.rope_type == XLARUN_ROPE_LINEAR && ref.c.rope_factor == 8.0f && ref.c.tie_word_embeddings);
    CHECK(ref.p.attn_scale == (float)pow(24.0, -0.5) && ref.p.embed_scale == (float)sqrt(96.0));
    /* transformers 5 writes one RoPE object per layer type */
    CHECK(gem_config(base5, GEM_ROPE_V4, "  \"rope_parameters\": {\"sliding_attention\": {\"rope_type\": \"default\", \"rope_theta\": 10000.0}, "
                     "\"full_attention\": {\"rope_type\": \"linear\", \"factor\": 8.0, \"rope_theta\": 1000000.0}},\n", &c) &&
          !memcmp(&c, &ref5, sizeof c));
    gem_case(base5, GEM_ROPE_V4, "  \"rope_parameters\": {\"sliding_attention\": {\"rope_type\": \"linear\", \"factor\": 2.0, \"rope_theta\": 10000.0}, "
             "\"full_attention\": {\"rope_theta\": 1000000.0}},\n", XLARUN_ERR_UNSUPPORTED,
             "config.json: rope type 'linear' in rope_parameters.sliding_attention is not supported (supported: default)", __LINE__);
    gem_case(base5, GEM_ROPE_V4, "  \"rope_parameters\": {\"sliding_attention\": {\"rope_theta\": 10000.0}},\n", XLARUN_ERR_UNSUPPORTED,
             "config.json: rope_parameters with Gemma3ForCausalLM must hold the objects full_attention and sliding_attention", __LINE__);
    gem_case(base5, GEM_ROPE_V4, "  \"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 5000.0},\n", XLARUN_ERR_UNSUPPORTED,
             "config.json: rope_parameters with Gemma3ForCausalLM must hold the objects full_attention and sliding_attention", __LINE__);
    gem_case(base5, "  \"rope_theta\": 1000000.0,\n", "  \"rope_parameters\": {\"sliding_attention\": {}, \"full_attention\": {}},\n",
             XLARUN_ERR_UNSUPPORTED, "config.json: rope_scaling next to rope_parameters is not supported", __LINE__);
    /* a theta the per-type object lacks: the top-level key, then Gemma3TextConfig's (1e6 global, 1e4 local) */
    CHECK(gem_config(base5, GEM_ROPE_V4, "  \"rope_parameters\": {\"sliding_attention\": {}, \"full_attention\": {\"rope_type\": \"linear\", \"factor\": 8.0}},\n", &c) &&
          !memcmp(&c, &ref5, sizeof c));
    CHECK(gem_config(base5, GEM_ROPE_V4, "  \"rope_local_base_freq\": 20000.0, \"rope_theta\": 123.0, \"rope_parameters\": {\"sliding_attention\": {}, \"full_attention\": {}},\n", &c) &&
          c.c.rope_theta == 123.0f && c.c.rope_local_theta == 20000.0f && c.c.rope_type == XLARUN_ROPE_DEFAULT);
    CHECK(gem_config(base, "  \"rope_theta\": 1000000.0,\n", "", &c) && !memcmp(&c, &ref, sizeof c)); /* missing: 1e6 */
    /* which layers are local: layer_types, else sliding_window_pattern (6 when missing) */
    CHECK(gem_config(base, GEM_TYPES, "", &c) && !memcmp(&c, &ref, sizeof c));
    {
        char *t = gem_cfg(base, GEM_TYPES, "");
        CHECK(gem_config(t, "\"sliding_window_pattern\": 3", "\"sliding_window_pattern\": 2", &c) && c.p.sliding_pattern == 2);
        CHECK(gem_config(t, "  \"sliding_window_pattern\": 3,\n", "", &c) && c.p.sliding_pattern == 6);
        free(t);
    }
    CHECK(gem_config(base, "    \"full_attention\",\n", "    \"sliding_attention\",\n", &c) && c.p.sliding_pattern == 0);
    gem_case(base, "    \"sliding_attention\",\n    \"full_attention\"", "    \"full_attention\",\n    \"full_attention\"", XLARUN_ERR_UNSUPPORTED,
             "config.json: layer_types is not supported: xlarun runs a full_attention layer every P layers (P = 2 here), and layer 2 is full_attention", __LINE__);
    gem_case(base, "    \"full_attention\",\n", "", XLARUN_ERR_FORMAT, "config.json: 'layer_types' lists 3 layers, num_hidden_layers is 4", __LINE__);
    gem_case(base, "    \"sliding_attention\"\n  ]", "    \"sliding_attention\",\n    \"sliding_attention\"\n  ]", XLARUN_ERR_FORMAT,
             "config.json: 'layer_types' lists more than num_hidden_layers 4 layers", __LINE__);
    gem_case(base, "    \"sliding_attention\",\n", "    \"local\",\n", XLARUN_ERR_FORMAT,
             "config.json: layer_types[0] is 'local' (expected sliding_attention or full_attention)", __LINE__);
    gem_case(base, GEM_TYPES, "  \"layer_types\": 3,\n", XLARUN_ERR_FORMAT, "config.json: 'layer_types' must be a list", __LINE__);
    /* Gemma3Attention keeps attn_logit_softcapping but applies it nowhere: read past */
    CHECK(gem_config(base, "\"attn_logit_softcapping\": null", "\"attn_logit_softcapping\": 50.0", &c) && !memcmp(&c, &ref, sizeof c));
    CHECK(gem_config(base, "\"final_logit_softcapping\": null", "\"final_logit_softcapping\": 30.0", &c) && c.p.final_softcap == 30.0f &&
          c.p.attn_softcap == 0.0f); /* applied by Gemma3ForCausalLM as by Gemma 2's (the gemma2 fixture checks it) */
    /* refused by name */
    gem_case(base, "\"use_bidirectional_attention\": false", "\"use_bidirectional_attention\": true", XLARUN_ERR_UNSUPPORTED,
             "config.json: use_bidirectional_attention true (an embedding model) is not supported", __LINE__);
    /* nulls transformers cannot run */
    gem_case(base, "\"sliding_window\": 20", "\"sliding_window\": null", XLARUN_ERR_FORMAT,
             "config.json: 'sliding_window' is null (expected a number)", __LINE__);
    gem_case(base, "\"query_pre_attn_scalar\": 24", "\"query_pre_attn_scalar\": null", XLARUN_ERR_FORMAT,
             "config.json: 'query_pre_attn_scalar' is null (expected a number)", __LINE__);
    gem_case(base, "\"hidden_activation\": \"gelu_pytorch_tanh\"", "\"hidden_activation\": null", XLARUN_ERR_FORMAT,
             "config.json: 'hidden_activation' is null (expected \"gelu_pytorch_tanh\")", __LINE__);
    CHECK(gem_config(base, "\"sliding_window_pattern\": 3", "\"sliding_window_pattern\": null", &c) && !memcmp(&c, &ref, sizeof c));
    {
        char *t = gem_cfg(base, GEM_TYPES, "");
        gem_case(t, "\"sliding_window_pattern\": 3", "\"sliding_window_pattern\": null", XLARUN_ERR_FORMAT,
                 "config.json: 'sliding_window_pattern' is null and there is no 'layer_types'", __LINE__);
        free(t);
    }
    gem_case(base, "\"hidden_activation\": \"gelu_pytorch_tanh\"", "\"hidden_activation\": \"gelu\"", XLARUN_ERR_UNSUPPORTED,
             "config.json: hidden_activation 'gelu' is not supported (supported: gelu_pytorch_tanh)", __LINE__);
    gem_case(base, "\"model_type\": \"gemma3_text\"", "\"model_type\": \"gemma3\"", XLARUN_ERR_UNSUPPORTED,
             "config.json: model_type 'gemma3' is not supported (supported: llama, mistral, qwen2, qwen3, gemma3_text, gemma2, gemma, phi3, smollm3, granite, olmo2, mixtral, qwen3_moe, olmoe, qwen2_moe)", __LINE__);
    gem_case(base, "\"query_pre_attn_scalar\": 24", "\"query_pre_attn_scalar\": 0", XLARUN_ERR_FORMAT,
             "config.json: 'query_pre_attn_scalar' must be a number in (0, 1e+30), found 0", __LINE__);
    gem_case(base, "\"final_logit_softcapping\": null", "\"final_logit_softcapping\": 0", XLARUN_ERR_FORMAT,
             "config.json: 'final_logit_softcapping' must be a number in (0, 1e+30), found 0", __LINE__);
    {   /* sliding_window_pattern is read only without layer_types */
        char *t = gem_cfg(base, GEM_TYPES, "");
        gem_case(t, "\"sliding_window_pattern\": 3", "\"sliding_window_pattern\": 0", XLARUN_ERR_FORMAT,
                 "config.json: 'sliding_window_pattern' must be an integer in 1..1025, found 0", __LINE__);
        free(t);
    }
    gem_case(base, "\"use_bidirectional_attention\": false", "\"use_bidirectional_attention\": 1", XLARUN_ERR_FORMAT,
             "config.json: 'use_bidirectional_attention' must be true or false", __LINE__);
    gem_case(base5, GEM_ROPE_V4, "  \"rope_parameters\": {\"sliding_attention\": {\"rope_theta\": -1}, \"full_attention\": {}},\n",
             XLARUN_ERR_FORMAT, "config.json: 'rope_parameters.sliding_attention.rope_theta' must be a number in (0, 1e+30), found -1", __LINE__);
    /* the norms around the MLP are needed */
    {
        char *t = gem_cfg(base, NULL, NULL);
        spits(tpath("mg/config.json"), t);
        free(t);
    }
    memcpy(f, w, n);
    CHECK(patch_bytes(f, n, "\"model.layers.1.pre_feedforward_layernorm.weight\"", "\"model.layers.1.pre_feedforward_layernorm.weighx\""));
    spit(tpath("mg/model.safetensors"), f, n);
    EXPECT_MODEL(tpath("mg"), XLARUN_ERR_MODEL,
                 "mg: missing tensor 'model.layers.1.pre_feedforward_layernorm.weight' (Gemma3ForCausalLM normalizes the MLP's input and output)");
    memcpy(f, w, n);
    CHECK(patch_bytes(f, n, "\"model.layers.3.self_attn.q_norm.weight\"", "\"model.layers.3.self_attn.q_norm.weighx\""));
    spit(tpath("mg/model.safetensors"), f, n);
    EXPECT_MODEL(tpath("mg"), XLARUN_ERR_MODEL,
                 "mg: missing tensor 'model.layers.3.self_attn.q_norm.weight' (Gemma3ForCausalLM normalizes each head of q and k)");
    free(w);
    free(f);
    free(base);
    free(base5);
}

/* Gemma 2: soft caps (missing: Gemma2Config's 50 and 30; null: none), every other layer local
   when there is no layer_types, no head norms, no local RoPE base */
static void config_gemma2(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    w = slurp(FIX "gemma2-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "gemma2-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_GEMMA2 && ref.p.attn_softcap == 5.0f && ref.p.final_softcap == 10.0f && ref.p.sliding_pattern == 2);
        CHECK(!ref.p.qk && ref.c.rope_local_theta == 0.0f && (ref.p.norms == XLARUN__NORMS_SANDWICH) && ref.p.norm_plus_one && ref.p.act == XLARUN__ACT_GELU_TANH);
        CHECK(gem_config(base, "  \"layer_types\": [\n    \"sliding_attention\",\n    \"full_attention\",\n    \"sliding_attention\",\n    \"full_attention\"\n  ],\n", "", &c) &&
              !memcmp(&c, &ref, sizeof c));
        CHECK(gem_config(base, "  \"attn_logit_softcapping\": 5.0,\n", "", &c) && c.p.attn_softcap == 50.0f);
        CHECK(gem_config(base, "  \"final_logit_softcapping\": 10.0,\n", "", &c) && c.p.final_softcap == 30.0f);
        CHECK(gem_config(base, "\"attn_logit_softcapping\": 5.0", "\"attn_logit_softcapping\": null", &c) && c.p.attn_softcap == 0.0f);
        CHECK(gem_config(base, "\"final_logit_softcapping\": 10.0", "\"final_logit_softcapping\": null", &c) && c.p.final_softcap == 0.0f);
        /* a theta rope_parameters lacks is the top-level rope_theta's (transformers 5) */
        CHECK(gem_config(base, "\"rope_theta\": 10000.0", "\"rope_theta\": 5000.0, \"rope_parameters\": {\"rope_type\": \"default\"}", &c) &&
              c.c.rope_theta == 5000.0f);
        {
            char *b5 = with_version(base, "5.24.0");
            CHECK(gem_config(b5, "\"rope_theta\": 10000.0", "\"rope_theta\": 5000.0, \"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 7.0}", &c) &&
                  c.c.rope_theta == 7.0f);
            free(b5);
        }
        /* transformers 4 does not read rope_parameters */
        CHECK(gem_config(base, "\"rope_theta\": 10000.0", "\"rope_theta\": 5000.0, \"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 7.0}", &c) &&
              c.c.rope_theta == 5000.0f);
        /* Gemma2Config's query_pre_attn_scalar was 224 before 4.51, 256 since */
        {
            char *b = with_version(base, "4.46.3");
            CHECK(gem_config(b, "  \"query_pre_attn_scalar\": 24,\n", "", &c) && c.p.attn_scale == (float)pow(224.0, -0.5));
            free(b);
            b = with_version(base, "4.51.3");
            CHECK(gem_config(b, "  \"query_pre_attn_scalar\": 24,\n", "", &c) && c.p.attn_scale == (float)pow(256.0, -0.5));
            free(b);
        }
        gem_case(base, "\"attn_logit_softcapping\": 5.0", "\"attn_logit_softcapping\": -1", XLARUN_ERR_FORMAT,
                 "config.json: 'attn_logit_softcapping' must be a number in (0, 1e+30), found -1", __LINE__);
    }
    free(w);
    free(base);
}

/* Gemma 1: the tanh GELU for hidden_act gelu_pytorch_tanh (GemmaConfig's default) and for the
   hub's "gelu" (transformers 5 rewrites it so; 4.51-4.57 ran the exact form), hidden_activation
   ignored; GemmaConfig's 16 KV heads, head_dim 256 and tied embeddings when the keys are
   missing; none of Gemma 2's or 3's keys read; RoPE scaling refused (4.46.3 ignored it) */
static void config_gemma(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    w = slurp(FIX "gemma-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "gemma-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_GEMMA && ref.p.act == XLARUN__ACT_GELU_TANH && ref.p.norm_plus_one && !(ref.p.norms == XLARUN__NORMS_SANDWICH) && !ref.p.qk);
        CHECK(ref.p.embed_scale == (float)sqrt(96.0) && ref.p.attn_scale == (float)(1.0 / sqrt(32.0)) && ref.c.sliding_window == 0);
        CHECK(ref.p.attn_softcap == 0.0f && ref.p.final_softcap == 0.0f && ref.c.rope_theta == 10000.0f && ref.c.tie_word_embeddings);
        CHECK(gem_config(base, "  \"hidden_act\": \"gelu_pytorch_tanh\",\n", "", &c) && !memcmp(&c, &ref, sizeof c));
        CHECK(gem_config(base, "\"hidden_activation\": null", "\"hidden_activation\": \"silu\"", &c) && !memcmp(&c, &ref, sizeof c));
        /* "gelu" as the folder's transformers version runs it: the exact GELU from 4.51 to 4.57
           (refused), the tanh form in 5.x; before 4.51 hidden_activation decides */
        gem_case(base, "\"hidden_act\": \"gelu_pytorch_tanh\"", "\"hidden_act\": \"gelu\"", XLARUN_ERR_UNSUPPORTED,
                 "config.json: hidden_act 'gelu' with GemmaForCausalLM written by transformers 4.57.1 is the exact GELU there", __LINE__);
        {
            char *b = with_version(base, "5.24.0");
            cfgplan r5;
            CHECK(gem_config(b, NULL, NULL, &r5) && gem_config(b, "\"hidden_act\": \"gelu_pytorch_tanh\"", "\"hidden_act\": \"gelu\"", &c) && !memcmp(&c, &r5, sizeof c));
            free(b);
            b = with_version(base, "4.46.3");
            CHECK(gem_config(b, NULL, NULL, &r5) && gem_config(b, "\"hidden_act\": \"gelu_pytorch_tanh\"", "\"hidden_act\": \"gelu\"", &c) && !memcmp(&c, &r5, sizeof c));
            CHECK(gem_config(b, "\"hidden_activation\": null", "\"hidden_activation\": \"gelu_pytorch_tanh\"", &c) && !memcmp(&c, &r5, sizeof c));
            gem_case(b, "\"hidden_activation\": null", "\"hidden_activation\": \"gelu\"", XLARUN_ERR_UNSUPPORTED,
                     "config.json: hidden_activation 'gelu' (what transformers 4.46.3 runs in place of hidden_act) is not supported", __LINE__);
            free(b);
        }
        CHECK(gem_config(base, "  \"rope_theta\": 10000.0,\n", "  \"sliding_window\": 4, \"final_logit_softcapping\": 3.0, \"query_pre_attn_scalar\": 5,\n", &c) &&
              c.c.sliding_window == 0 && c.p.final_softcap == 0.0f && c.p.attn_scale == ref.p.attn_scale && c.c.rope_theta == 10000.0f);
        gem_case(base, "\"hidden_act\": \"gelu_pytorch_tanh\"", "\"hidden_act\": \"gelu_new\"", XLARUN_ERR_UNSUPPORTED,
                 "config.json: hidden_act 'gelu_new' is not supported (supported: gelu, gelu_pytorch_tanh)", __LINE__);
        gem_case(base, "\"hidden_act\": \"gelu_pytorch_tanh\"", "\"hidden_act\": null", XLARUN_ERR_FORMAT,
                 "config.json: 'hidden_act' is null (expected \"gelu_pytorch_tanh\")", __LINE__);
        gem_case(base, "\"hidden_act\": \"gelu_pytorch_tanh\"", "\"hidden_act\": \"silu\"", XLARUN_ERR_UNSUPPORTED,
                 "config.json: hidden_act 'silu' is not supported (supported: gelu, gelu_pytorch_tanh)", __LINE__);
        gem_case(base, "\"rope_theta\": 10000.0", "\"rope_theta\": 10000.0, \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2}", XLARUN_ERR_UNSUPPORTED,
                 "config.json: rope type 'linear' with GemmaForCausalLM is not supported (transformers versions disagree on applying it)", __LINE__);
        /* the class defaults: 16 KV heads, head_dim 256 (this file has 1 KV head of 32) */
        gem_case(base, "  \"num_key_value_heads\": 1,\n", "", XLARUN_ERR_FORMAT,
                 "config.json: num_attention_heads 4 is not a multiple of num_key_value_heads 16", __LINE__);
        gem_case(base, "  \"head_dim\": 32,\n", "", XLARUN_ERR_MODEL,
                 "tensor 'model.layers.0.self_attn.k_proj.weight' has shape [32,96], but config.json implies [256,96]", __LINE__);
    }
    free(w);
    free(base);
}

/* Phi-3: the fused matrices by their own names and shapes, the window (none when missing or
   null), Phi3Config's eps; longrope, a partial rotary factor and a head_dim that is not
   hidden / heads (transformers versions differ on reading it) refused by name */
static void config_phi3(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    w = slurp(FIX "phi3-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "phi3-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_PHI3 && ref.p.fused && ref.c.sliding_window == 20 && ref.c.rms_norm_eps == 1e-5f && !ref.c.tie_word_embeddings);
        CHECK(!ref.p.norm_plus_one && ref.p.embed_scale == 1.0f && ref.p.act == XLARUN__ACT_SILU && !ref.p.qkv_bias && ref.c.n_kv_heads == 2);
        CHECK(gem_config(base, "  \"sliding_window\": 20,\n", "", &c) && c.c.sliding_window == 0);
        CHECK(gem_config(base, "\"sliding_window\": 20", "\"sliding_window\": null", &c) && c.c.sliding_window == 0);
        CHECK(gem_config(base, "  \"rms_norm_eps\": 1e-05,\n", "", &c) && c.c.rms_norm_eps == 1e-5f);
        CHECK(gem_config(base, "\"partial_rotary_factor\": 1.0", "\"attention_bias\": true, \"mlp_bias\": true", &c) && !c.p.qkv_bias && !c.p.mlp_bias);
#define LR(s, l) "\"rope_scaling\": {\"type\": \"longrope\", \"short_factor\": [" s "], \"long_factor\": [" l "]}"
        /* longrope: the short and long factors, one per rotated frequency; the attention factor from
           max_position_embeddings over original_max_position_embeddings (none at 256 / 256) */
        CHECK(gem_config(base, "\"rope_scaling\": null", LR("1, 1.5, 2, 3, 4, 5, 6, 7", "2, 2, 2, 2, 2, 2, 2, 2"), &c) &&
              c.c.rope_type == XLARUN_ROPE_LONGROPE && c.p.rope_ext[1] == 1.5f && c.p.rope_ext[7] == 7.0f && c.p.rope_attn_factor == 1.0f &&
              c.p.rope_ext_long[0] == 2.0f && c.c.rope_original_max_position_embeddings == 256 && c.c.rope_dim == 16);
        CHECK(gem_config(base, "\"rope_scaling\": null", LR("1, 1, 1, 1, 1, 1, 1, 1", "2, 2, 2, 2, 2, 2, 2, 0.1"), &c) &&
              c.p.rope_ext_long[6] == 2.0f && c.p.rope_ext_long[7] == 0.1f);
        CHECK(gem_config(base, "\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"su\", \"short_factor\": [1, 1, 1, 1, 1, 1, 1, 1], \"long_factor\": [2, 2, 2, 2, 2, 2, 2, 2]}", &c) &&
              c.c.rope_type == XLARUN_ROPE_LONGROPE);
        CHECK(gem_config(base, "\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"yarn\", \"short_factor\": [1, 1, 1, 1, 1, 1, 1, 1], \"long_factor\": [2, 2, 2, 2, 2, 2, 2, 2]}", &c) &&
              c.c.rope_type == XLARUN_ROPE_LONGROPE);
        /* transformers 5's form: partial_rotary_factor from rope_parameters over the top-level
           key; original_max_position_embeddings only from the top level */
        {
            char *b5 = with_version(base, "5.24.0"), *t = gem_cfg(b5, "\"rope_scaling\": null", "\"rope_parameters\": {\"rope_type\": \"longrope\", \"rope_theta\": 500.0, \"partial_rotary_factor\": 0.5, "
                                                             "\"original_max_position_embeddings\": 64, \"short_factor\": [1, 2, 3, 4], \"long_factor\": [1, 1, 1, 1]}");
            free(b5);
            CHECK(gem_config(t, NULL, NULL, &c) && c.c.rope_dim == 8 && c.c.rope_theta == 500.0f && c.c.rope_original_max_position_embeddings == 256 &&
                  c.p.rope_ext[3] == 4.0f && c.p.rope_ext_long[3] == 1.0f);
            free(t);
        }
        {
            char *t = gem_cfg(base, "\"max_position_embeddings\": 256", "\"max_position_embeddings\": 1024");
            CHECK(gem_config(t, "\"rope_scaling\": null", LR("1, 1, 1, 1, 1, 1, 1, 1", "2, 2, 2, 2, 2, 2, 2, 2"), &c) &&
                  c.p.rope_attn_factor == (float)sqrt(1.0 + log(4.0) / log(256.0)));
            free(t);
        }
        CHECK(gem_config(base, "\"partial_rotary_factor\": 1.0", "\"partial_rotary_factor\": 0.75", &c) && c.c.rope_dim == 12);
        CHECK(gem_config(base, "\"partial_rotary_factor\": 1.0", "\"partial_rotary_factor\": 0.3", &c) && c.c.rope_dim == 4);
        gem_case(base, "\"rope_scaling\": null", LR("1, 1, 1", "2, 2, 2"), XLARUN_ERR_FORMAT,
                 "config.json: 'rope_scaling.short_factor' has 3 numbers, expected 8 (one per rotated frequency)", __LINE__);
        gem_case(base, "\"rope_scaling\": null", LR("1, 1, 1, 1, 1, 1, 1, 1", "2, 2, 2, 2, 2, 2, 2, 2, 2"), XLARUN_ERR_FORMAT,
                 "config.json: 'rope_scaling.long_factor' must be a list of 8 positive numbers", __LINE__);
        gem_case(base, "\"rope_scaling\": null", LR("1, 1, 1, 0, 1, 1, 1, 1", "2, 2, 2, 2, 2, 2, 2, 2"), XLARUN_ERR_FORMAT,
                 "config.json: 'rope_scaling.short_factor' must be a list of 8 positive numbers", __LINE__);
        gem_case(base, "\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"longrope\", \"long_factor\": [1, 1, 1, 1, 1, 1, 1, 1]}", XLARUN_ERR_FORMAT,
                 "config.json: 'rope_scaling.short_factor' must be a list of 8 numbers", __LINE__);
        gem_case(base, "\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"longrope\", \"factor\": 4, \"short_factor\": [1, 1, 1, 1, 1, 1, 1, 1], \"long_factor\": [2, 2, 2, 2, 2, 2, 2, 2]}",
                 XLARUN_ERR_UNSUPPORTED, "config.json: a longrope 'factor' or 'attention_factor' is not supported", __LINE__);
        gem_case(base, "\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2}", XLARUN_ERR_UNSUPPORTED,
                 "config.json: rope type 'dynamic' with Phi3ForCausalLM is not supported (supported: default, longrope)", __LINE__);
        gem_case(base, "\"partial_rotary_factor\": 1.0", "\"partial_rotary_factor\": 0.1", XLARUN_ERR_FORMAT,
                 "config.json: partial_rotary_factor 0.1 leaves 1 rotated dimensions of head_dim 16 (expected an even number > 0)", __LINE__);
        gem_case(base, "\"partial_rotary_factor\": 1.0", "\"partial_rotary_factor\": 0.5625", XLARUN_ERR_FORMAT,
                 "config.json: partial_rotary_factor 0.5625 leaves 9 rotated dimensions of head_dim 16", __LINE__);
        gem_case(base, "\"partial_rotary_factor\": 1.0", "\"partial_rotary_factor\": 1.5", XLARUN_ERR_FORMAT,
                 "config.json: 'partial_rotary_factor' must be a number in (0, 1)", __LINE__);
        gem_case(base, "\"original_max_position_embeddings\": 256", "\"original_max_position_embeddings\": 1", XLARUN_ERR_FORMAT,
                 "config.json: 'original_max_position_embeddings' must be an integer of at least 2", __LINE__);
#undef LR
        gem_case(base, "\"partial_rotary_factor\": 1.0", "\"head_dim\": 32", XLARUN_ERR_UNSUPPORTED,
                 "config.json: head_dim 32 with Phi3ForCausalLM is not supported (it must be hidden_size / num_attention_heads, 16)", __LINE__);
        gem_case(base, "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 4", XLARUN_ERR_MODEL,
                 "tensor 'model.layers.0.self_attn.qkv_proj.weight' has shape [128,64], but config.json implies [192,64]", __LINE__);
        gem_case(base, "\"intermediate_size\": 112", "\"intermediate_size\": 56", XLARUN_ERR_MODEL,
                 "tensor 'model.layers.0.mlp.down_proj.weight' has shape [64,112], but config.json implies [64,56]", __LINE__);
        /* layer 0's gate_up_proj under another name (same length, so the offsets hold): missing, by name */
        renamed_case(w, n, base, "layers.0.mlp.gate_up_proj.weight", 24, 'X', XLARUN_ERR_MODEL, /* gate_up_proX */
                     "missing tensor 'model.layers.0.mlp.gate_up_proj.weight' (Phi3ForCausalLM keeps gate and up in one matrix; separate ones are not read)", __LINE__);
    }
    free(w);
    free(base);
}

/* SmolLM3: no_rope_layers (1: RoPE), else every no_rope_layer_interval-th layer (default 4)
   without; SmolLM3Config's defaults (4 KV heads, tied, theta 2e6); its window refused */
static void config_smollm3(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    w = slurp(FIX "smollm3-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "smollm3-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_SMOLLM3 && !ref.p.no_rope[0] && ref.p.no_rope[1] && !ref.p.no_rope[2] && ref.c.tie_word_embeddings);
        CHECK(ref.c.n_kv_heads == 2 && ref.c.rope_theta == 10000.0f && ref.c.sliding_window == 0 && !ref.p.qkv_bias && !ref.p.mlp_bias);
        CHECK(gem_config(base, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": null", &c) &&
              !c.p.no_rope[0] && !c.p.no_rope[1] && !c.p.no_rope[2]); /* every 4th: none of 3 */
        CHECK(gem_config(base, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": null, \"no_rope_layer_interval\": 1", &c) &&
              c.p.no_rope[0] && c.p.no_rope[1] && c.p.no_rope[2]);
        {
            char *t = gem_cfg(base, "\"no_rope_layer_interval\": 4", "\"no_rope_layer_interval\": 2");
            CHECK(gem_config(t, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": null", &c) &&
                  !c.p.no_rope[0] && c.p.no_rope[1] && !c.p.no_rope[2]);
            free(t);
        }
        CHECK(gem_config(base, "  \"rope_theta\": 10000.0,\n", "", &c) && c.c.rope_theta == 2e6f);
        CHECK(gem_config(base, "\"use_sliding_window\": false", "\"use_sliding_window\": true", &c) && c.c.sliding_window == 0); /* no window given */
        gem_case(base, "\"use_sliding_window\": false", "\"use_sliding_window\": false, \"tie_word_embeddings\": false", XLARUN_ERR_MODEL,
                 "missing tensor 'lm_head.weight'", __LINE__);
        gem_case(base, "\"num_key_value_heads\": 2", "\"num_key_value_heads\": null", XLARUN_ERR_MODEL,
                 "tensor 'model.layers.0.self_attn.k_proj.weight' has shape [32,64], but config.json implies [64,64]", __LINE__);
        gem_case(base, "  \"num_key_value_heads\": 2,\n", "", XLARUN_ERR_MODEL, /* SmolLM3Config's 4 */
                 "tensor 'model.layers.0.self_attn.k_proj.weight' has shape [32,64], but config.json implies [64,64]", __LINE__);
        CHECK(gem_config(base, "\"sliding_window\": null", "\"sliding_window\": 16", &c) && c.c.sliding_window == 0); /* without use_sliding_window: none */
        {   /* the window: on the layers layer_types calls sliding_attention (this file's are all full,
               so use_sliding_window changes nothing, as in transformers); without layer_types, on
               those without RoPE when use_sliding_window and a window are set: refused */
            char *t = gem_cfg(base, "\"sliding_window\": null", "\"sliding_window\": 16"), *t2 = gem_cfg(t, "\"use_sliding_window\": false", "\"use_sliding_window\": true");
            char *t3 = gem_cfg(t2, "\"layer_types\": [\n    \"full_attention\",\n    \"full_attention\",\n    \"full_attention\"\n  ]", "\"layer_types\": null");
            CHECK(gem_config(t2, NULL, NULL, &c) && c.c.sliding_window == 0);
            gem_case(t3, NULL, NULL, XLARUN_ERR_UNSUPPORTED,
                     "config.json: SmolLM3's sliding window (1 layers sliding_attention, with use_sliding_window or layer_types) is not supported", __LINE__);
            gem_case(t, "\"full_attention\",\n    \"full_attention\"\n", "\"full_attention\",\n    \"sliding_attention\"\n", XLARUN_ERR_UNSUPPORTED,
                     "config.json: SmolLM3's sliding window (1 layers sliding_attention", __LINE__);
            gem_case(base, "\"full_attention\",\n    \"full_attention\"\n", "\"full_attention\",\n    \"sliding_attention\"\n", XLARUN_ERR_FORMAT,
                     "config.json: layer_types has sliding_attention layers but sliding_window is null", __LINE__);
            gem_case(base, "\"full_attention\",\n    \"full_attention\"\n", "\"full_attention\",\n    \"chunked_attention\"\n", XLARUN_ERR_UNSUPPORTED,
                     "config.json: layer_types entry 2 is not supported (expected \"full_attention\" or \"sliding_attention\")", __LINE__);
            gem_case(base, "\"layer_types\": [\n    \"full_attention\",\n    \"full_attention\",\n    \"full_attention\"\n  ]", "\"layer_types\": [\"full_attention\"]", XLARUN_ERR_FORMAT,
                     "config.json: 'layer_types' has 1 entries, expected 3 (one per layer)", __LINE__);
            gem_case(base, "\"layer_types\": [\n    \"full_attention\",\n    \"full_attention\",\n    \"full_attention\"\n  ]", "\"layer_types\": \"full_attention\"", XLARUN_ERR_FORMAT,
                     "config.json: 'layer_types' must be a list of 3 strings", __LINE__);
            free(t);
            free(t2);
            free(t3);
        }
        gem_case(base, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": [1, 0]", XLARUN_ERR_FORMAT,
                 "config.json: 'no_rope_layers' has 2 entries, expected 3 (one per layer)", __LINE__);
        CHECK(gem_config(base, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": [1, 0, 1, 0]", &c) &&
              !c.p.no_rope[0] && c.p.no_rope[1] && !c.p.no_rope[2] && !c.p.no_rope[3]); /* entries past the layers unread */
        CHECK(gem_config(base, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": [2, 0, 7]", &c) &&
              !c.p.no_rope[0] && c.p.no_rope[1] && !c.p.no_rope[2]); /* Python's truth: RoPE */
        gem_case(base, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": [1, 1.0, 1]", XLARUN_ERR_FORMAT,
                 "config.json: 'no_rope_layers' must be a list of 3 numbers 0 or 1 (one per layer; 1: RoPE)", __LINE__);
        gem_case(base, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": [1, true, 1]", XLARUN_ERR_FORMAT,
                 "config.json: 'no_rope_layers' must be a list of 3 numbers 0 or 1 (one per layer; 1: RoPE)", __LINE__);
        gem_case(base, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": 1", XLARUN_ERR_FORMAT,
                 "config.json: 'no_rope_layers' must be a list of 3 numbers 0 or 1", __LINE__);
        {
            char *t = gem_cfg(base, "\"no_rope_layers\": [\n    1,\n    0,\n    1\n  ]", "\"no_rope_layers\": null");
            gem_case(t, "\"no_rope_layer_interval\": 4", "\"no_rope_layer_interval\": 0", XLARUN_ERR_FORMAT, "no_rope_layer_interval", __LINE__);
            free(t);
        }
    }
    free(w);
    free(base);
}

/* Granite: its four multipliers (1 when missing, positive), untied by default, head_dim only
   hidden / heads */
static void config_granite(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    w = slurp(FIX "granite-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "granite-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_GRANITE && ref.p.embed_scale == 3.0f && ref.p.attn_scale == 0.3f && ref.p.residual_scale == 0.7f &&
              ref.p.logit_scale == 1.5f && !ref.c.tie_word_embeddings && ref.c.n_kv_heads == 2);
        CHECK(gem_config(base, "  \"attention_multiplier\": 0.3,\n", "", &c) && c.p.attn_scale == 1.0f);
        CHECK(gem_config(base, "  \"embedding_multiplier\": 3.0,\n", "", &c) && c.p.embed_scale == 1.0f);
        CHECK(gem_config(base, "  \"logits_scaling\": 1.5,\n", "", &c) && c.p.logit_scale == 1.0f);
        CHECK(gem_config(base, "  \"residual_multiplier\": 0.7,\n", "", &c) && c.p.residual_scale == 1.0f);
        gem_case(base, "\"residual_multiplier\": 0.7", "\"residual_multiplier\": 0", XLARUN_ERR_FORMAT,
                 "config.json: 'residual_multiplier' must be a number in (0, 1e+30), found 0", __LINE__);
        gem_case(base, "\"logits_scaling\": 1.5", "\"logits_scaling\": -2", XLARUN_ERR_FORMAT, "logits_scaling", __LINE__);
        gem_case(base, "\"embedding_multiplier\": 3.0", "\"embedding_multiplier\": null", XLARUN_ERR_FORMAT, /* transformers fails on it */
                 "config.json: 'embedding_multiplier' is null (expected a positive number)", __LINE__);
        gem_case(base, "\"attention_multiplier\": 0.3", "\"attention_multiplier\": \"x\"", XLARUN_ERR_FORMAT, "attention_multiplier", __LINE__);
        gem_case(base, "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 2, \"head_dim\": 8", XLARUN_ERR_UNSUPPORTED,
                 "config.json: head_dim 8 with GraniteForCausalLM is not supported (it must be hidden_size / num_attention_heads, 16)", __LINE__);
        CHECK(gem_config(base, "  \"tie_word_embeddings\": false,\n", "", &c) && !c.c.tie_word_embeddings); /* GraniteConfig's default */
    }
    free(w);
    free(base);
}

/* OLMo 2: the whole-vector q/k norms by shape, the norms after by name, its defaults */
static void config_olmo2(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    w = slurp(FIX "olmo2-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "olmo2-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_OLMO2 && ref.p.qk == XLARUN__QK_WHOLE && (ref.p.norms == XLARUN__NORMS_POST) && !(ref.p.norms == XLARUN__NORMS_SANDWICH) && !ref.c.tie_word_embeddings);
        CHECK(gem_config(base, "  \"rms_norm_eps\": 1e-06,\n", "", &c) && c.c.rms_norm_eps == 1e-5f); /* Olmo2Config's */
        gem_case(base, "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 4", XLARUN_ERR_MODEL,
                 "tensor 'model.layers.0.self_attn.k_norm.weight' has shape [32], but config.json implies [64]", __LINE__);
        /* layer 0's q_norm, layer 1's post_feedforward_layernorm under other names (same length): missing, by name */
        renamed_case(w, n, base, "layers.0.self_attn.q_norm.", 19, 'x', XLARUN_ERR_MODEL, /* x_norm */
                     "missing tensor 'model.layers.0.self_attn.q_norm.weight' (Olmo2ForCausalLM normalizes the whole of q and k)", __LINE__);
        renamed_case(w, n, base, "layers.1.post_feedforward_layernorm.", 9, 'q', XLARUN_ERR_MODEL, /* qost_feedforward_layernorm */
                     "missing tensor 'model.layers.1.post_feedforward_layernorm.weight' (Olmo2ForCausalLM normalizes the MLP's output)", __LINE__);
    }
    free(w);
    free(base);
}

/* the last logits after ids[0..n) fed in chunks of `chunk` (1: token by token), or NULL */
static float *moe_logits(const char *dir, const int32_t *ids, size_t n, uint32_t nb, uint32_t nt, size_t chunk,
                         xlarun_precision prec, size_t *V) {
    xlarun_model *m = NULL;
    xlarun_session *s = NULL;
    xlarun_session_options so;
    xlarun_error e;
    float *out = NULL;
    size_t i;
    memset(&so, 0, sizeof so);
    so.n_ctx = 64;
    so.n_batch = nb;
    so.n_threads = nt;
    so.precision = prec;
    if (xlarun_model_open(dir, NULL, &m, &e) != XLARUN_OK || xlarun_session_create(m, &so, &s, &e) != XLARUN_OK) {
        CHECKF(0, "%s: %s", dir, e.message);
    } else {
        for (i = 0; i < n; i += chunk)
            if (xlarun_session_prefill(s, ids + i, n - i < chunk ? n - i : chunk, &e) != XLARUN_OK) { CHECKF(0, "%s", e.message); break; }
        *V = xlarun_model_config(m)->vocab_size;
        if (i >= n && (out = (float *)malloc(*V * sizeof(float))) != NULL) memcpy(out, xlarun_session_logits(s), *V * sizeof(float));
    }
    xlarun_session_free(s);
    xlarun_model_close(m);
    return out;
}

/* the mixtures of experts: their keys and defaults, each refusal by name, missing and misshapen
   experts and routers by name */
/* the model in mg: token-by-token decode on the batched-experts path (n_batch >= 8, 1 and 2
   threads) and on the per-expert path (n_batch 1), and prefills, give the same bits, exact and
   with bf16 activations */
static void moe_bits(const char *label) {
    int32_t ids[21];
    size_t k, V = 0, p;
    static const struct { uint32_t nb, nt; size_t chunk; } runs[] = {{8, 1, 1}, {8, 2, 1}, {32, 3, 1}, {32, 2, 21}, {8, 1, 5}};
    for (k = 0; k < 21; k++) ids[k] = (int32_t)(5 + 13 * k);
    for (p = 0; p < 2; p++) {
        xlarun_precision prec = p ? XLARUN_PRECISION_BF16_ACTIVATIONS : XLARUN_PRECISION_EXACT;
        float *ref = moe_logits(tpath("mg"), ids, 21, 1, 1, 1, prec, &V);
        for (k = 0; ref && k < sizeof runs / sizeof *runs; k++) {
            float *got = moe_logits(tpath("mg"), ids, 21, runs[k].nb, runs[k].nt, runs[k].chunk, prec, &V);
            CHECKF(got && !memcmp(got, ref, V * sizeof(float)), "%s: n_batch %u, %u threads, chunks of %lu differ (%s)",
                   label, runs[k].nb, runs[k].nt, (unsigned long)runs[k].chunk, p ? "bf16 activations" : "exact");
            free(got);
        }
        CHECKF(ref != NULL, "%s: no reference logits", label);
        free(ref);
    }
}

/* two folders of one model (the same weights, config.json written two ways) give bit-identical
   logits for a prompt and a decode step */
static void same_logits(const char *a, const char *b, const char *label) {
    xlarun_model *m[2] = {NULL, NULL};
    xlarun_session *s[2] = {NULL, NULL};
    xlarun_error e;
    int32_t ids[7] = {3, 17, 42, 5, 99, 23, 8};
    size_t k, V;
    for (k = 0; k < 2; k++) {
        if (xlarun_model_open(k ? b : a, NULL, &m[k], &e) != XLARUN_OK || xlarun_session_create(m[k], NULL, &s[k], &e) != XLARUN_OK ||
            xlarun_session_prefill(s[k], ids, 7, &e) != XLARUN_OK || xlarun_session_decode(s[k], 11, &e) != XLARUN_OK) {
            CHECKF(0, "%s: %s", label, e.message);
            goto out;
        }
    }
    V = xlarun_model_config(m[0])->vocab_size;
    CHECKF(V == xlarun_model_config(m[1])->vocab_size && !memcmp(xlarun_session_logits(s[0]), xlarun_session_logits(s[1]), V * sizeof(float)),
           "%s: the logits differ", label);
out:
    for (k = 0; k < 2; k++) { xlarun_session_free(s[k]); xlarun_model_close(m[k]); }
}


/* Mixtral: every layer sparse, always renormalized, its names */
static void config_mixtral(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    char *at;
    w = slurp(FIX "mixtral-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "mixtral-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_MIXTRAL && ref.c.n_experts == 4 && ref.c.n_experts_used == 2 && ref.p.moe_norm_topk &&
              ref.c.moe_intermediate_size == 96 && ref.p.moe[0] && ref.p.moe[1] && ref.c.sliding_window == 20 && !ref.p.qk);
        CHECK(gem_config(base, "  \"num_local_experts\": 4,\n", "  \"num_local_experts\": 4,\n  \"norm_topk_prob\": false,\n", &c) &&
              c.p.moe_norm_topk); /* Mixtral has no such key: always renormalized */
        /* MixtralConfig's attribute_map: num_experts names num_local_experts */
        CHECK(gem_config(base, "\"num_local_experts\": 4", "\"num_experts\": 4", &c) && c.c.n_experts == 4);
        same_logits(FIX "mixtral-f32", tpath("mg"), "mixtral, num_experts");
        gem_case(base, "\"num_experts_per_tok\": 2", "\"num_experts_per_tok\": 5", XLARUN_ERR_FORMAT,
                 "config.json: num_experts_per_tok 5 is more than num_local_experts 4", __LINE__);
        gem_case(base, "\"num_experts_per_tok\": 2", "\"num_experts_per_tok\": 0", XLARUN_ERR_FORMAT,
                 "config.json: 'num_experts_per_tok' must be an integer in 1..1024, found 0", __LINE__);
        gem_case(base, "\"num_local_experts\": 4", "\"num_local_experts\": 2000", XLARUN_ERR_FORMAT,
                 "config.json: 'num_local_experts' must be an integer in 1..1024, found 2000", __LINE__);
        gem_case(base, "\"num_local_experts\": 4", "\"num_local_experts\": 5", XLARUN_ERR_MODEL, /* the router's rows first */
                 "tensor 'model.layers.0.block_sparse_moe.gate.weight' has shape [4,64], but config.json implies [5,64]", __LINE__);
        gem_case(base, "\"num_local_experts\": 4", "\"num_local_experts\": 3", XLARUN_ERR_MODEL,
                 "tensor 'model.layers.0.block_sparse_moe.gate.weight' has shape [4,64], but config.json implies [3,64]", __LINE__);
        gem_case(base, "\"intermediate_size\": 96", "\"intermediate_size\": 64", XLARUN_ERR_MODEL,
                 "tensor 'model.layers.0.block_sparse_moe.experts.0.w1.weight' has shape [96,64], but config.json implies [64,64]", __LINE__);
        gem_case(base, "\"rope_theta\": 10000.0", "\"rope_theta\": 10000.0, \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2.0}",
                 XLARUN_ERR_UNSUPPORTED, "config.json: rope type 'linear' with MixtralForCausalLM is not supported", __LINE__);
        CHECK(gem_config(base, "  \"sliding_window\": 20,\n", "", &c) && c.c.sliding_window == 0); /* MixtralConfig's none */
        CHECK(gem_config(base, "  \"rope_theta\": 10000.0,\n", "", &c) && c.c.rope_theta == 1e6f);
        renamed_case(w, n, base, "layers.1.block_sparse_moe.experts.3.w2.", 35, 'x', XLARUN_ERR_MODEL, /* experts.3xw2: not read */
                     "missing tensor 'model.layers.1.block_sparse_moe.experts.3.w2.weight' (layer 1 is a mixture of 4 experts)", __LINE__);
        renamed_case(w, n, base, "layers.0.block_sparse_moe.gate.weight", 26, 'q', XLARUN_ERR_MODEL, /* qate */
                     "missing tensor 'model.layers.0.block_sparse_moe.gate.weight' (layer 0 is a mixture of 4 experts; this is its router)", __LINE__);
        /* a router weight of +inf: every probability NaN. Each token must still choose distinct
           experts (as many rows as the buffers hold: a prefill of a whole n_batch), run and
           report; the logits are NaN, as transformers' */
        if ((at = find_name(w, n, "model.layers.0.block_sparse_moe.gate.weight")) != NULL && (at = strstr(at, "\"data_offsets\":[")) != NULL) {
            unsigned long long hl = 0, off = strtoull(at + 16, NULL, 10);
            float inf = HUGE_VALF;
            int k;
            xlarun_model *m = NULL;
            xlarun_session *s = NULL;
            xlarun_session_options so;
            xlarun_error e;
            int32_t ids[32];
            for (k = 7; k >= 0; k--) hl = hl * 256 + w[k];
            memcpy(w + 8 + hl + off, &inf, 4);
            spit(tpath("mg/model.safetensors"), w, n);
            spits(tpath("mg/config.json"), base);
            memset(&so, 0, sizeof so);
            so.n_ctx = 64;
            so.n_batch = 32;
            so.n_threads = 2;
            for (k = 0; k < 32; k++) ids[k] = (int32_t)(3 + 7 * k);
            if (xlarun_model_open(tpath("mg"), NULL, &m, &e) == XLARUN_OK && xlarun_session_create(m, &so, &s, &e) == XLARUN_OK) {
                CHECK(xlarun_session_prefill(s, ids, 32, &e) == XLARUN_OK);
                CHECK(xlarun_session_logits(s)[0] != xlarun_session_logits(s)[0]);
                CHECK(xlarun_session_prefill(s, ids, 1, &e) == XLARUN_OK); /* one token: the batched experts */
                CHECK(xlarun_session_logits(s)[0] != xlarun_session_logits(s)[0]);
            } else CHECKF(0, "inf router: %s", e.message);
            xlarun_session_free(s);
            xlarun_model_close(m);
        } else CHECK(0);
        free(w);
        w = slurp(FIX "mixtral-f32/model.safetensors", &n);
        spit(tpath("mg/model.safetensors"), w, n);
    }
    free(w);
    free(base);
}

/* Qwen3-MoE: sparse and dense layers by decoder_sparse_step and mlp_only_layers */
static void config_qwen3moe(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    w = slurp(FIX "qwen3moe-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "qwen3moe-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_QWEN3_MOE && ref.c.n_experts == 8 && ref.c.n_experts_used == 3 && ref.p.moe_norm_topk &&
              ref.c.moe_intermediate_size == 48 && ref.c.intermediate_size == 128 && ref.p.moe[0] && !ref.p.moe[1] && ref.p.moe[2] &&
              ref.p.qk == XLARUN__QK_HEAD && ref.c.head_dim == 32);
        CHECK(gem_config(base, "\"mlp_only_layers\": [\n    1\n  ]", "\"mlp_only_layers\": [1, 7, 4000000000]", &c) && !c.p.moe[1] && c.p.moe[2]);
        gem_case(base, "\"mlp_only_layers\": [\n    1\n  ]", "\"mlp_only_layers\": []", XLARUN_ERR_MODEL,
                 "missing tensor 'model.layers.1.mlp.gate.weight' (layer 1 is a mixture of 8 experts; this is its router)", __LINE__);
        gem_case(base, "\"mlp_only_layers\": [\n    1\n  ]", "\"mlp_only_layers\": [0, 1]", XLARUN_ERR_MODEL,
                 "missing tensor 'model.layers.0.mlp.gate_proj.weight' (layer 0 has a dense MLP: mlp_only_layers, decoder_sparse_step)", __LINE__);
        gem_case(base, "\"mlp_only_layers\": [\n    1\n  ]", "\"mlp_only_layers\": [1.5]", XLARUN_ERR_FORMAT,
                 "config.json: 'mlp_only_layers' must be a list of layer numbers", __LINE__);
        gem_case(base, "\"mlp_only_layers\": [\n    1\n  ]", "\"mlp_only_layers\": 1", XLARUN_ERR_FORMAT,
                 "config.json: 'mlp_only_layers' must be a list of layer numbers", __LINE__);
        gem_case(base, "\"num_experts_per_tok\": 3", "\"num_experts_per_tok\": 9", XLARUN_ERR_FORMAT,
                 "config.json: num_experts_per_tok 9 is more than num_experts 8", __LINE__);
        gem_case(base, "\"decoder_sparse_step\": 1", "\"decoder_sparse_step\": 0", XLARUN_ERR_FORMAT,
                 "config.json: 'decoder_sparse_step' must be an integer in 1..1024, found 0", __LINE__);
        gem_case(base, "\"decoder_sparse_step\": 1", "\"decoder_sparse_step\": 2", XLARUN_ERR_MODEL, /* layer 0 dense then */
                 "missing tensor 'model.layers.0.mlp.gate_proj.weight' (layer 0 has a dense MLP", __LINE__);
        gem_case(base, "\"num_experts\": 8", "\"num_experts\": 0", XLARUN_ERR_MODEL, /* every layer dense */
                 "missing tensor 'model.layers.0.mlp.gate_proj.weight'", __LINE__);
        gem_case(base, "\"moe_intermediate_size\": 48", "\"moe_intermediate_size\": 32", XLARUN_ERR_MODEL,
                 "tensor 'model.layers.0.mlp.experts.0.down_proj.weight' has shape [64,48], but config.json implies [64,32]", __LINE__);
        gem_case(base, "\"use_sliding_window\": false", "\"use_sliding_window\": true", XLARUN_ERR_UNSUPPORTED,
                 "config.json: use_sliding_window true (Qwen's window on the upper layers) is not supported", __LINE__);
        CHECK(gem_config(base, "\"sliding_window\": null", "\"sliding_window\": 4096", &c) && c.c.sliding_window == 0); /* unused without use_sliding_window */
        CHECK(gem_config(base, "  \"norm_topk_prob\": true,\n", "", &c) && !c.p.moe_norm_topk); /* Qwen3MoeConfig's default */
        /* transformers 5's Qwen3MoeConfig saves the expert count as num_local_experts (attribute_map):
           the same model, the same logits as the folder transformers 4 wrote (its oracle's) */
        CHECK(gem_config(base, "\"num_experts\": 8", "\"num_local_experts\": 8", &c) && c.c.n_experts == 8);
        same_logits(FIX "qwen3moe-f32", tpath("mg"), "qwen3moe, num_local_experts");
        CHECK(gem_config(base, "\"num_experts\": 8", "\"num_experts\": 8, \"num_local_experts\": 8", &c) && c.c.n_experts == 8);
        gem_case(base, "\"num_experts\": 8", "\"num_experts\": 8, \"num_local_experts\": 5", XLARUN_ERR_FORMAT,
                 "config.json: 'num_experts' 8 and 'num_local_experts' 5 name one value (the expert count) and differ", __LINE__);
        {   /* all 8 experts per token (16 gate/up products in one decode step) */
            char *t = gem_cfg(base, "\"num_experts_per_tok\": 3", "\"num_experts_per_tok\": 8");
            spits(tpath("mg/config.json"), t);
            free(t);
            moe_bits("qwen3moe, 8 experts a token");
        }
        renamed_case(w, n, base, "layers.2.mlp.experts.7.up_proj.", 23, 'q', XLARUN_ERR_MODEL, /* qp_proj */
                     "missing tensor 'model.layers.2.mlp.experts.7.up_proj.weight' (layer 2 is a mixture of 8 experts)", __LINE__);
        renamed_case(w, n, base, "layers.2.mlp.experts.7.up_proj.", 7, '5', XLARUN_ERR_MODEL, /* an expert of a layer past the last */
                     "tensor 'model.layers.5.mlp.experts.7.up_proj.weight' is past num_hidden_layers 3 in config.json", __LINE__);
    }
    free(w);
    free(base);
}

/* OLMoE: whole-vector q/k norms with the usual norms, no renormalization by default */
static void config_olmoe(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    w = slurp(FIX "olmoe-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "olmoe-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_OLMOE && ref.c.n_experts == 6 && ref.c.n_experts_used == 2 && !ref.p.moe_norm_topk &&
              ref.p.qk == XLARUN__QK_WHOLE && !(ref.p.norms == XLARUN__NORMS_POST) && ref.p.moe[0] && ref.p.moe[1]);
        gem_case(base, "\"clip_qkv\": null", "\"clip_qkv\": 8.0", XLARUN_ERR_UNSUPPORTED,
                 "config.json: clip_qkv (OLMoE's clamp of q, k and v) is not supported; null means none", __LINE__);
        gem_case(base, "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 2, \"head_dim\": 8", XLARUN_ERR_UNSUPPORTED,
                 "config.json: head_dim 8 with OlmoeForCausalLM is not supported (it must be hidden_size / num_attention_heads, 16)", __LINE__);
        CHECK(gem_config(base, "  \"num_experts_per_tok\": 2,\n", "  \"num_experts_per_tok\": 6,\n", &c) && c.c.n_experts_used == 6);
        /* OlmoeConfig's attribute_map: num_local_experts names num_experts */
        CHECK(gem_config(base, "\"num_experts\": 6", "\"num_local_experts\": 6", &c) && c.c.n_experts == 6);
        same_logits(FIX "olmoe-f32", tpath("mg"), "olmoe, num_local_experts");
        gem_case(base, "  \"num_experts\": 6,\n", "", XLARUN_ERR_MODEL, /* OlmoeConfig's 64 */
                 "tensor 'model.layers.0.mlp.gate.weight' has shape [6,64], but config.json implies [64,64]", __LINE__);
    }
    free(w);
    free(base);
}

/* Qwen2-MoE: Qwen2's biases, the shared expert and its gate */
static void config_qwen2moe(void) {
    size_t n, nc;
    unsigned char *w;
    char *base;
    cfgplan ref, c;
    w = slurp(FIX "qwen2moe-f32/model.safetensors", &n);
    base = (char *)slurp(FIX "qwen2moe-f32/config.json", &nc);
    spit(tpath("mg/model.safetensors"), w, n);
    if (gem_config(base, NULL, NULL, &ref)) {
        CHECK(ref.c.arch == XLARUN_ARCH_QWEN2_MOE && ref.c.n_experts == 8 && ref.c.n_experts_used == 2 && !ref.p.moe_norm_topk &&
              ref.c.moe_intermediate_size == 32 && ref.c.moe_shared_size == 96 && ref.c.intermediate_size == 128 &&
              ref.p.moe[0] && !ref.p.moe[1] && ref.p.moe[2] && ref.p.qkv_bias && !ref.p.o_bias && !ref.p.qk);
        CHECK(gem_config(base, "  \"qkv_bias\": true,\n", "", &c) && c.p.qkv_bias); /* Qwen2MoeConfig's default */
        CHECK(gem_config(base, "\"qkv_bias\": true", "\"qkv_bias\": false", &c) && !c.p.qkv_bias); /* the bias tensors unread */
        gem_case(base, "\"shared_expert_intermediate_size\": 96", "\"shared_expert_intermediate_size\": 64", XLARUN_ERR_MODEL,
                 "tensor 'model.layers.0.mlp.shared_expert.down_proj.weight' has shape [64,96], but config.json implies [64,64]", __LINE__);
        gem_case(base, "  \"shared_expert_intermediate_size\": 96,\n", "", XLARUN_ERR_MODEL, /* Qwen2MoeConfig's 5632 */
                 "tensor 'model.layers.0.mlp.shared_expert.down_proj.weight' has shape [64,96], but config.json implies [64,5632]", __LINE__);
        gem_case(base, "\"shared_expert_intermediate_size\": 96", "\"shared_expert_intermediate_size\": 0", XLARUN_ERR_FORMAT,
                 "config.json: 'shared_expert_intermediate_size' must be an integer in 1..", __LINE__);
        gem_case(base, "\"use_sliding_window\": false", "\"use_sliding_window\": true", XLARUN_ERR_UNSUPPORTED,
                 "config.json: use_sliding_window true (Qwen's window on the upper layers) is not supported", __LINE__);
        gem_case(base, "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 2, \"head_dim\": 8", XLARUN_ERR_UNSUPPORTED,
                 "config.json: head_dim 8 with Qwen2MoeForCausalLM is not supported (it must be hidden_size / num_attention_heads, 16)", __LINE__);
        gem_case(base, "\"num_experts\": 8", "\"num_local_experts\": 8", XLARUN_ERR_MODEL, /* no alias in Qwen2MoeConfig: its 60 */
                 "tensor 'model.layers.0.mlp.gate.weight' has shape [8,64], but config.json implies [60,64]", __LINE__);
        gem_case(base, "\"num_experts\": 8", "\"num_experts\": 0", XLARUN_ERR_MODEL, /* every layer dense, no shared expert */
                 "missing tensor 'model.layers.0.mlp.gate_proj.weight'", __LINE__);
        spits(tpath("mg/config.json"), base);
        moe_bits("qwen2moe, the shared expert");
        renamed_case(w, n, base, "layers.2.mlp.shared_expert_gate.weight", 27, 'q', XLARUN_ERR_MODEL, /* shared_expert_qate */
                     "missing tensor 'model.layers.2.mlp.shared_expert_gate.weight' (layer 2 is a mixture of 8 experts and a shared expert)", __LINE__);
        renamed_case(w, n, base, "layers.0.mlp.shared_expert.down_proj.", 27, 'x', XLARUN_ERR_MODEL, /* xown_proj */
                     "missing tensor 'model.layers.0.mlp.shared_expert.down_proj.weight' (layer 0 is a mixture of 8 experts and a shared expert)", __LINE__);
        renamed_case(w, n, base, "layers.0.mlp.shared_expert.down_proj.", 7, '4', XLARUN_ERR_MODEL, /* past the last layer */
                     "tensor 'model.layers.4.mlp.shared_expert.down_proj.weight' is past num_hidden_layers 3 in config.json", __LINE__);
        renamed_case(w, n, base, "layers.2.mlp.experts.7.up_proj.", 23, 'q', XLARUN_ERR_MODEL,
                     "missing tensor 'model.layers.2.mlp.experts.7.up_proj.weight' (layer 2 is a mixture of 8 experts)", __LINE__);
    }
    free(w);
    free(base);
}

/* the temporary folder with m32 and mg, made by the first config.json case */
static void config_folders(void) {
    size_t n;
    unsigned char *w;
    if (root[0]) return;
#if defined(_WIN32)
    snprintf(root, sizeof root, "build/xlarun-model-%d", _getpid());
    if (_mkdir(root) != 0) { fprintf(stderr, "cannot mkdir %s\n", root); exit(2); }
#else
    strcpy(root, "/tmp/xlarun-model-XXXXXX");
    if (!mkdtemp(root)) { fprintf(stderr, "mkdtemp failed\n"); exit(2); }
#endif
    mkdir_t("m32");
    mkdir_t("mg");
    w = slurp(FIX "llama32-f32/model.safetensors", &n);
    spit(tpath("m32/model.safetensors"), w, n);
    free(w);
    cfg32 = (char *)slurp(FIX "llama32-f32/config.json", &cfg32_n);
}

static void config_cleanup(void) {
    static const char *const files[4] = {"m32/config.json", "m32/model.safetensors", "mg/config.json", "mg/model.safetensors"};
    size_t i;
    if (!root[0]) return;
    for (i = 0; i < 4; i++) remove(tpath(files[i]));
    rmdir_t("m32");
    rmdir_t("mg");
#if defined(_WIN32)
    _rmdir(root);
#else
    rmdir(root);
#endif
    free(cfg32);
}

/* the invariants under the options run_logits uses (label names them) */
static void invariants_case(const char *name, xlarun_precision prec, xlarun_kv_type kv, const char *label) {
    run_precision = prec;
    run_kv = kv;
    if (test_case("invariants %s%s", name, label)) test_invariants(name);
    run_precision = XLARUN_PRECISION_EXACT;
    run_kv = XLARUN_KV_F32;
}

int main(int argc, char **argv) {
    static const char *names[] = {"llama32", "llama2", "mqa", "odd", "mistral", "qwen2", "biased", "qwen3", "gemma3", "gemma2", "gemma", "phi3", "phi3lr", "phi3mix", "phi3long", "smollm3", "granite", "olmo2",
                                  "mixtral", "qwen3moe", "olmoe", "qwen2moe"};
    static const char *dtypes[] = {"f32", "bf16", "f16"};
    /* the same families saved by transformers 5.24 (tools/make_fixtures.py --generation 5: its own
       config.json keys, rope_parameters, num_local_experts, ...), bf16 only, plus qwen3moe5 */
    static const char *names_v5[] = {"llama32", "llama2", "mqa", "odd", "mistral", "qwen2", "biased", "qwen3", "gemma3", "gemma2", "gemma", "phi3", "phi3lr", "phi3mix", "phi3long", "smollm3", "granite", "olmo2",
                                     "mixtral", "qwen3moe", "olmoe", "qwen2moe", "qwen3moe5"};
    static const char *inv[] = {
        "llama32-bf16",
        "odd-f16",
        "llama2-f32",    /* sharded */
        "mistral-bf16",  /* chunks and decode across the sliding window */
        "qwen2-f16",     /* biases split by rows like their matrices */
        "biased-bf16",
        "qwen3-f32",     /* the head norms */
        "gemma3-bf16",   /* local and global layers, chunks across the window */
        "gemma2-f16",    /* soft caps */
        "gemma-bf16"};   /* the exact GELU */
    static const struct { const char *name; size_t n_local; } rings[] = {
        {"mistral-f32", 2}, /* both layers local */
        {"gemma3-f32", 3},  /* layers 0, 1 and 3 of 4 */
        {"gemma2-f32", 2},  /* every other layer */
        {"phi3-f32", 2}};   /* both layers, k and v views into qkv_proj */
    static const char *inv2[] = {
        "phi3long-bf16", /* token by token crosses the original max, one prefill does not */
        "phi3lr-bf16",   /* partial rotary, longrope's attention factor */
        "phi3-f16",      /* the fused matrices split by rows across threads */
        "smollm3-f16",   /* a layer without RoPE */
        "granite-bf16",  /* the multipliers */
        "olmo2-f16",     /* norms after, none before; the matrices read x itself */
        "mixtral-bf16",  /* experts: gathered rows in a prefill, one row decoding */
        "qwen3moe-f16",  /* sparse and dense layers, experts narrower than the dense MLP */
        "olmoe-f32",     /* unnormalized expert weights, whole-vector q/k norms */
        "qwen2moe-bf16"}; /* the shared expert, wider than the others, on every row */
    static const struct { const char *name; xlarun_kv_type kv; const char *label; } mem[] = {
        {"mqa-f32", XLARUN_KV_F32, ""},
        {"qwen2-bf16", XLARUN_KV_F32, ""},    /* f32 copies of the biases in the model's memory */
        {"gemma3-f16", XLARUN_KV_F32, ""},    /* local RoPE tables, sandwich norms */
        {"llama2-f32", XLARUN_KV_F32, ""},
        {"llama32-bf16", XLARUN_KV_F16, " f16 KV cache"},
        {"qwen3moe-bf16", XLARUN_KV_F32, ""}, /* the routing buffers, expert weight tables */
        {"qwen2moe-f16", XLARUN_KV_F32, ""}}; /* and the shared expert's */
    static const struct { const char *name; void (*run)(void); } configs[] = {
        {"file", config_file}, {"architectures", config_architectures}, {"mistral", config_mistral}, {"names", config_names},
        {"qwen2", config_qwen2}, {"switches", config_switches}, {"sizes", config_sizes}, {"rope", config_rope},
        {"vs tensors", config_tensors}, {"gemma3", config_gemma3}, {"gemma2", config_gemma2}, {"gemma", config_gemma},
        {"phi3", config_phi3}, {"smollm3", config_smollm3}, {"granite", config_granite}, {"olmo2", config_olmo2},
        {"mixtral", config_mixtral}, {"qwen3moe", config_qwen3moe}, {"olmoe", config_olmoe}, {"qwen2moe", config_qwen2moe}};
    double worst = 0;
    size_t i, j;
    int n_run = 0;
    test_init(argc, argv);
    for (i = 0; i < sizeof configs / sizeof *configs; i++)
        if (test_case("config.json %s", configs[i].name)) {
            config_folders();
            configs[i].run();
        }
    for (i = 0; i < sizeof names / sizeof *names; i++)
        for (j = 0; j < 3; j++)
            if (test_case("oracle %s-%s", names[i], dtypes[j])) {
                if (!n_run++) printf("oracle (kernels: %s):\n", XLARUN_K_ISA);
                test_oracle(names[i], dtypes[j], &worst);
            }
    for (i = 0; i < sizeof names_v5 / sizeof *names_v5; i++)
        if (test_case("oracle %s-v5-bf16", names_v5[i])) {
            if (!n_run++) printf("oracle (kernels: %s):\n", XLARUN_K_ISA);
            test_oracle(names_v5[i], "v5-bf16", &worst);
        }
    if (n_run) printf("  worst relative logit error %.2e (tolerance %.0e)\n", worst, LOGIT_TOL);
    for (i = 0; i < sizeof inv / sizeof *inv; i++) invariants_case(inv[i], XLARUN_PRECISION_EXACT, XLARUN_KV_F32, "");
    for (i = 0; i < sizeof rings / sizeof *rings; i++)
        if (test_case("ring %s", rings[i].name)) test_ring(rings[i].name, rings[i].n_local);
    if (test_case("longrope switch phi3lr-f32")) test_longrope_switch();
    for (i = 0; i < sizeof inv2 / sizeof *inv2; i++) invariants_case(inv2[i], XLARUN_PRECISION_EXACT, XLARUN_KV_F32, "");
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
            for (i = 0; i < sizeof bf / sizeof *bf; i++)
                if (test_case("%s %s", modes[j].label, bf[i])) test_fast_mode(bf[i], modes[j].prec, modes[j].kv, modes[j].label, &agree, &steps, &fworst);
            if (steps)
                printf("  %s overall: top-1 %lu/%lu, worst relative logit error %.2e\n", modes[j].label,
                       (unsigned long)agree, (unsigned long)steps, fworst);
        }
        invariants_case("llama32-bf16", XLARUN_PRECISION_BF16_ACTIVATIONS, XLARUN_KV_F32, " bf16-activations");
        invariants_case("qwen3moe-bf16", XLARUN_PRECISION_BF16_ACTIVATIONS, XLARUN_KV_F32, " bf16-activations"); /* each expert's input rows rounded once, either path */
        invariants_case("llama32-bf16", XLARUN_PRECISION_EXACT, XLARUN_KV_F16, " f16 KV cache");
        invariants_case("odd-f16", XLARUN_PRECISION_EXACT, XLARUN_KV_BF16, " bf16 KV cache");
    }
#if defined(_WIN32) && !defined(XLARUN_NO_STDIO)
    if (test_case("win32 files")) test_win32_files();
#endif
    for (i = 0; i < sizeof mem / sizeof *mem; i++)
        if (test_case("memory %s%s", mem[i].name, mem[i].label)) test_memory(mem[i].name, mem[i].kv);
    config_cleanup();
    return test_report("model");
}
