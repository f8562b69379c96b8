/* tests/test_generate.c - layer 7: sampling, generation_config.json, stop strings, and the token
   loop on the demo model: streaming, stop strings, multi-turn reuse of one session (chat
   templates: tests/test_chat.c). */
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include "test.h"

#include <stdlib.h>

/* ---- sampling -------------------------------------------------------------------------------- */

static void test_sampling_check(void) {
    xlarun_sampling p;
    xlarun_error err;
    xlarun_sampler *s = NULL;
    memset(&p, 0, sizeof p);
    CHECK(xlarun_sampling_check(&p, &err) == XLARUN_OK);
    p.temperature = -0.5f;
    CHECK(xlarun_sampling_check(&p, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "temperature must be >= 0");
    p.temperature = 0.7f;
    p.top_k = -3;
    CHECK(xlarun_sampling_check(&p, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "top_k must be >= 0");
    p.top_k = 40;
    p.top_p = 1.5f;
    CHECK(xlarun_sampling_check(&p, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "top_p must be in [0, 1]");
    p.top_p = 0.9f;
    p.min_p = -0.1f;
    CHECK(xlarun_sampling_check(&p, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "min_p must be in [0, 1]");
    p.min_p = 0.05f;
    p.repetition_penalty = -1.0f;
    CHECK(xlarun_sampling_check(&p, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "repetition_penalty");
    p.repetition_penalty = 1.1f;
    p.temperature = HUGE_VALF;
    CHECK(xlarun_sampling_check(&p, &err) == XLARUN_ERR_ARGUMENT);
    p.temperature = 0.0f / 0.0f;
    CHECK(xlarun_sampler_create(&p, 10, &s, &err) == XLARUN_ERR_ARGUMENT && s == NULL);
    CHECK_CONTAINS(err.message, "temperature");
    p.temperature = 1.0f;
    CHECK(xlarun_sampler_create(&p, 0, &s, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "n_vocab");
    {
        unsigned char small[64];
        CHECK(xlarun_sampler_init(&p, 10, small, sizeof small, &s, &err) == XLARUN_ERR_MEMORY);
        CHECK_CONTAINS(err.message, "xlarun_sampler_memory");
    }
}

static int count_draws(xlarun_sampler *s, const float *logits, int n, int draws, int *hist) {
    int i, bad = 0;
    for (i = 0; i < n; i++) hist[i] = 0;
    for (i = 0; i < draws; i++) {
        int32_t id = xlarun_sampler_sample(s, logits);
        if (id < 0 || id >= n) bad++;
        else hist[id]++;
    }
    return bad;
}

static void test_sampler(void) {
    xlarun_sampling p;
    xlarun_error err;
    xlarun_sampler *s;
    float logits[6] = {1.0f, 3.0f, 2.0f, 3.0f, -1.0f, 0.5f};
    int hist[6], i;
    void *mem = malloc(xlarun_sampler_memory(6));
    memset(&p, 0, sizeof p);
    /* greedy: the first maximal id, as torch.argmax */
    CHECK(xlarun_sampler_init(&p, 6, mem, xlarun_sampler_memory(6), &s, &err) == XLARUN_OK);
    CHECK(xlarun_sampler_sample(s, logits) == 1);
    /* repetition penalty on ids in the context: 3/2 = 1.5 < 2 */
    p.repetition_penalty = 2.0f;
    CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
    {
        int32_t ctx[3] = {1, 3, 3};
        xlarun_sampler_accept(s, ctx, 3);
    }
    CHECK(xlarun_sampler_sample(s, logits) == 2);
    /* negative logits are multiplied: -1 * 2 = -2, still below; a penalty < 1 favours */
    p.repetition_penalty = 0.1f;
    CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
    CHECK(xlarun_sampler_sample(s, logits) == 1); /* 30 vs 30: first */
    xlarun_sampler_reset(s);
    CHECK(xlarun_sampler_sample(s, logits) == 1);
    /* sampling: top_k = 1 keeps both tied maxima (ids 1 and 3), nothing else */
    p.repetition_penalty = 0.0f;
    p.temperature = 1.0f;
    p.top_k = 1;
    p.seed = 42;
    CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
    CHECK(count_draws(s, logits, 6, 2000, hist) == 0);
    CHECKF(hist[1] > 800 && hist[3] > 800 && hist[1] + hist[3] == 2000, "top_k ties: %d %d", hist[1], hist[3]);
    /* the distribution: p = 0.25 / 0.75 */
    {
        float two[6] = {0, 0, -HUGE_VALF, -HUGE_VALF, -HUGE_VALF, -HUGE_VALF};
        two[0] = logf(0.25f);
        two[1] = logf(0.75f);
        p.top_k = 0;
        CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
        CHECK(count_draws(s, two, 6, 20000, hist) == 0);
        CHECKF(hist[1] > 14700 && hist[1] < 15300, "p(1) = %d / 20000, expected about 15000", hist[1]);
        /* temperature 0.5 squares the odds: 0.9 */
        p.temperature = 0.5f;
        CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
        CHECK(count_draws(s, two, 6, 20000, hist) == 0);
        CHECKF(hist[1] > 17700 && hist[1] < 18300, "p(1) at T=0.5 = %d / 20000, expected about 18000", hist[1]);
    }
    /* top-p and min-p on p = 0.5, 0.3, 0.15, 0.05 */
    {
        float q[6] = {0, 0, 0, 0, -HUGE_VALF, -HUGE_VALF};
        q[0] = logf(0.5f); q[1] = logf(0.3f); q[2] = logf(0.15f); q[3] = logf(0.05f);
        p.temperature = 1.0f;
        p.top_p = 0.75f;     /* ascending cumsum 0.05, 0.2 <= 0.25 go; 0.5 stays */
        CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
        CHECK(count_draws(s, q, 6, 4000, hist) == 0);
        CHECKF(hist[0] > 0 && hist[1] > 0 && hist[2] == 0 && hist[3] == 0, "top_p: %d %d %d %d", hist[0], hist[1], hist[2], hist[3]);
        p.top_p = 0.01f;     /* only the top one */
        CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
        CHECK(count_draws(s, q, 6, 500, hist) == 0);
        CHECK(hist[0] == 500);
        p.top_p = 0.0f;
        p.min_p = 0.25f;     /* cut 0.125: 0.05 goes */
        CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
        CHECK(count_draws(s, q, 6, 4000, hist) == 0);
        CHECKF(hist[0] > 0 && hist[1] > 0 && hist[2] > 0 && hist[3] == 0, "min_p: %d %d %d %d", hist[0], hist[1], hist[2], hist[3]);
        p.min_p = 1.0f;      /* only the top */
        CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
        CHECK(count_draws(s, q, 6, 500, hist) == 0);
        CHECK(hist[0] == 500);
    }
    /* same seed, same draws; another seed, other draws */
    {
        int32_t a[64], b[64], c[64];
        float flat[6] = {0, 0, 0, 0, 0, 0};
        int same = 1, diff = 0;
        p.min_p = 0.0f;
        p.seed = 7;
        CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
        for (i = 0; i < 64; i++) a[i] = xlarun_sampler_sample(s, flat);
        xlarun_sampler_reset(s);
        for (i = 0; i < 64; i++) b[i] = xlarun_sampler_sample(s, flat);
        p.seed = 8;
        CHECK(xlarun_sampler_set(s, &p, &err) == XLARUN_OK);
        for (i = 0; i < 64; i++) c[i] = xlarun_sampler_sample(s, flat);
        for (i = 0; i < 64; i++) { same &= a[i] == b[i]; diff += a[i] != c[i]; }
        CHECK(same);
        CHECK(diff > 20);
    }
    CHECK(xlarun_sampler_sample(NULL, logits) == -1);
    CHECK(xlarun_sampler_sample(s, NULL) == -1);
    free(mem);
    /* the convenience create/free pair */
    CHECK(xlarun_sampler_create(NULL, 6, &s, &err) == XLARUN_OK);
    CHECK(xlarun_sampler_sample(s, logits) == 1);
    xlarun_sampler_free(s);
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* whether the sampler's filter (steps 1-5 of xlarun_sampler_sample) on these logits keeps the ids
   transformers kept (kept[0..nk)): equal as sets, except that among exactly tied logits at the
   top-p boundary torch's unstable sort picks which stay, so the kept values are compared */
static int same_kept(xlarun_sampler *s, const float *logits, const int *kept, int nk) {
    size_t m = xlarun__sampler_filter(s, logits), i;
    float *a, *b;
    int same = (int)m == nk;
    if (!same) {
        printf("  %lu ids kept, transformers kept %d\n", (unsigned long)m, nk);
        return 0;
    }
    a = (float *)malloc(2 * m * sizeof(float) + 1);
    if (!a) return 0;
    b = a + m;
    for (i = 0; i < m; i++) { a[i] = s->w[kept[i]]; b[i] = s->w[s->idx[i]]; }
    qsort(a, m, sizeof(float), cmp_float);
    qsort(b, m, sizeof(float), cmp_float);
    for (i = 0; i < m; i++) same &= a[i] == b[i];
    for (i = 1; i < m; i++) same &= s->idx[i - 1] < s->idx[i]; /* listed by id */
    free(a);
    return same;
}

/* the surviving ids against transformers' processors (tests/fixtures/chat/sampling.txt); uses
   the sampler's internal filter, steps 1-5 of xlarun_sampler_sample */
static void test_sampling_fixture(void) {
    char *all = read_file("tests/fixtures/chat/sampling.txt", NULL), *p;
    int cases = 0, agree = 0;
    CHECKF(all != NULL, "tests/fixtures/chat/sampling.txt is missing");
    if (!all) return;
    p = all;
    while ((p = strstr(p, "\nsample ")) != NULL) {
        xlarun_sampling sp;
        xlarun_sampler *s;
        xlarun_error err;
        double t, tp, mp, pen;
        int k, n, i, nk, kept[64], same;
        int32_t ctx[64];
        float logits[64];
        char *e;
        p += 8;
        sscanf(p, "%lf %d %lf %lf %lf", &t, &k, &tp, &mp, &pen);
        memset(&sp, 0, sizeof sp);
        sp.temperature = (float)t; sp.top_k = k; sp.top_p = tp; sp.min_p = (float)mp;
        sp.repetition_penalty = (float)pen;
        p = strstr(p, "context ") + 8;
        n = (int)strtol(p, &e, 10);
        for (i = 0; i < n; i++) ctx[i] = (int32_t)strtol(e, &e, 10);
        p = strstr(e, "logits ") + 7;
        n = (int)strtol(p, &e, 10);
        for (i = 0; i < n && i < 64; i++) logits[i] = strtof(e, &e);
        p = strstr(e, "kept ") + 5;
        nk = (int)strtol(p, &e, 10);
        for (i = 0; i < nk; i++) kept[i] = (int)strtol(e, &e, 10);
        p = e;
        if (xlarun_sampler_create(&sp, 64, &s, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); break; }
        xlarun_sampler_accept(s, ctx, 12);
        same = same_kept(s, logits, kept, nk);
        CHECKF(same, "sampling case %d (T %g k %d p %g min_p %g pen %g): transformers kept %d",
               cases, t, k, tp, mp, pen, nk);
        agree += same;
        cases++;
        xlarun_sampler_free(s);
    }
    CHECK(cases == 60);
    printf("sampling fixtures: %d of %d kept sets equal transformers'\n", agree, cases);
    free(all);
}

/* the selections on structured logits (a V shape over the ids, rising then falling, sorted, all
   equal), where fixed pivot positions go quadratic: xlarun__top_p_keep's boundary against a sorted
   walk over the same probabilities, and against its own sort fallback (max_work 0); the k-th
   largest (k > 1024) against a sorted copy and against its heap fallback */
static int cmp_desc(const void *a, const void *b) { return cmp_float(b, a); }
static const float *g_w;
static int cmp_wid(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return g_w[x] < g_w[y] ? -1 : g_w[x] > g_w[y] ? 1 : x < y ? -1 : x > y;
}
static void test_sampler_structured(void) {
    enum { V = 20000 };
    static float w[V], p[V], pid[V], tmp[V], srt[V];
    static int32_t idx[V], ord[V];
    static const double tops[] = {0.5, 0.9, 0.99};
    static const size_t ks[] = {1025, 5000, V - 1};
    int shape, bad = 0, cases = 0;
    for (shape = 0; shape < 7; shape++) {
        size_t i, t, k;
        uint64_t r = 12345;
        for (i = 0; i < V; i++) {
            double d = (double)i - V / 2.0;
            r ^= r << 13; r ^= r >> 7; r ^= r << 17;
            w[i] = shape == 0 ? (float)(fabs(d) * 1e-6) : shape == 1 ? (float)(fabs(d) * 1e-4)
                 : shape == 2 ? (float)((i < V / 2 ? (double)i : (double)(V - i)) * 1e-4)
                 : shape == 3 ? (float)i * 1e-3f : shape == 4 ? (float)(V - i) * 1e-3f
                 : shape == 5 ? 0.0f : (float)(r >> 40) * (1.0f / 16777216.0f) * 4.0f;
        }
        for (t = 0; t < sizeof tops / sizeof *tops; t++) {
            float limit = (float)(1.0 - tops[t]);
            double cum = 0;
            int32_t want = -1, got, got0;
            for (i = 0; i < V; i++) idx[i] = (int32_t)i;
            xlarun__softmax_ids(w, idx, V, p);
            for (i = 0; i < V; i++) { pid[i] = p[i]; ord[i] = (int32_t)i; }
            g_w = w;
            qsort(ord, V, sizeof *ord, cmp_wid);
            for (i = 0; i < V && want < 0; i++) {
                cum += pid[ord[i]];
                if (i == V - 1 || !((float)cum <= limit)) want = ord[i];
            }
            got = xlarun__top_p_keep(w, idx, p, V, limit, 8 * (size_t)V);
            for (i = 0; i < V; i++) { idx[i] = (int32_t)i; p[i] = pid[i]; }
            got0 = xlarun__top_p_keep(w, idx, p, V, limit, 0);
            bad += got != want || got0 != want;
            CHECKF(got == want && got0 == want, "structured logits %d, top_p %g: boundary %d (sort fallback %d), a sorted walk %d",
                   shape, tops[t], (int)got, (int)got0, (int)want);
            cases++;
        }
        for (i = 0; i < V; i++) { idx[i] = (int32_t)i; srt[i] = w[i]; }
        qsort(srt, V, sizeof *srt, cmp_desc);
        for (k = 0; k < sizeof ks / sizeof *ks; k++) {
            float a = xlarun__kth_largest(w, idx, V, ks[k], tmp, 8 * (size_t)V), b = xlarun__kth_largest(w, idx, V, ks[k], tmp, 0);
            bad += a != srt[ks[k] - 1] || b != srt[ks[k] - 1];
            CHECKF(a == srt[ks[k] - 1] && b == srt[ks[k] - 1], "structured logits %d: %lu-th largest %g (heap %g), sorted %g",
                   shape, (unsigned long)ks[k], (double)a, (double)b, (double)srt[ks[k] - 1]);
            cases++;
        }
    }
    /* equal logits over a power of two of ids: every probability and cumulative sum is exact, so
       the sum at id V/2 - 1 equals the limit 0.5 and that id goes too (cumsum <= 1 - top_p): the
       boundary is V/2, wherever the pivots fall */
    {
        static const size_t vs[] = {4, 8, 64, 1024, 16384};
        size_t v, i;
        for (v = 0; v < sizeof vs / sizeof *vs; v++) {
            int32_t got, got0;
            for (i = 0; i < vs[v]; i++) { w[i] = 0.0f; idx[i] = (int32_t)i; }
            xlarun__softmax_ids(w, idx, vs[v], p);
            got = xlarun__top_p_keep(w, idx, p, vs[v], 0.5f, 8 * vs[v]);
            for (i = 0; i < vs[v]; i++) { idx[i] = (int32_t)i; p[i] = 1.0f / (float)vs[v]; }
            got0 = xlarun__top_p_keep(w, idx, p, vs[v], 0.5f, 0);
            bad += got != (int32_t)(vs[v] / 2) || got0 != (int32_t)(vs[v] / 2);
            CHECKF(got == (int32_t)(vs[v] / 2) && got0 == (int32_t)(vs[v] / 2), "%lu equal logits, top_p 0.5: boundary %d (sort fallback %d), not %lu",
                   (unsigned long)vs[v], (int)got, (int)got0, (unsigned long)(vs[v] / 2));
            cases++;
        }
    }
    printf("structured logits: %d of %d selections equal a sort's\n", cases - bad, cases);
}

/* the same processors over whole vocabularies (tests/fixtures/chat/sampling_large.txt), where the
   filter selects without sorting; the logits are made here from integers as
   tools/make_chat_fixtures.py's synth_logits makes them */
static uint64_t synth_h(uint64_t seed, uint64_t k) {
    uint64_t z = (seed << 32) + k + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t synth_u(uint64_t seed, uint64_t k) { return (int64_t)(synth_h(seed, k) >> 40) - (1 << 23); }
static void synth_logits(const char *shape, uint64_t seed, size_t V, float *x) {
    size_t i;
    for (i = 0; i < V; i++) {
        if (!strcmp(shape, "flat")) x[i] = (float)synth_u(seed, i) * (1.0f / 1048576.0f);
        else if (!strcmp(shape, "ties")) x[i] = (float)(((synth_u(seed, i) + (1 << 23)) >> 21) - 4) * 0.25f;
        else {
            int64_t sum = synth_u(seed, 4 * i) + synth_u(seed, 4 * i + 1) + synth_u(seed, 4 * i + 2) + synth_u(seed, 4 * i + 3);
            x[i] = (float)sum * (!strcmp(shape, "narrow") ? 1.0f / 16777216.0f : 1.0f / 4194304.0f);
            if (!strcmp(shape, "peaked") && synth_h(seed, 4 * V + i) % 401 == 0) x[i] = x[i] + 16.0f;
        }
    }
}

static void test_sampling_large(void) {
    char *all = read_file("tests/fixtures/chat/sampling_large.txt", NULL), *p;
    int cases = 0, agree = 0;
    CHECKF(all != NULL, "tests/fixtures/chat/sampling_large.txt is missing");
    if (!all) return;
    p = all;
    while ((p = strstr(p, "\nlarge ")) != NULL) {
        xlarun_sampling sp;
        xlarun_sampler *s = NULL;
        xlarun_error err;
        char shape[16];
        unsigned long seed, V, j;
        double t, tp, mp;
        int k, nk = 0, same = 0, *kept;
        float *logits;
        p += 7;
        if (sscanf(p, "%15s %lu %lu %lf %d %lf %lf", shape, &seed, &V, &t, &k, &tp, &mp) != 7 || V > 50000) {
            CHECKF(0, "sampling_large.txt: bad case line");
            break;
        }
        p = strstr(p, "\nkept ");
        if (!p) break;
        p += 6;
        while (*p != ' ') p++;
        p++;
        logits = (float *)malloc(V * sizeof(float));
        kept = (int *)malloc(V * sizeof(int));
        if (!logits || !kept) { free(logits); free(kept); CHECK(0); break; }
        for (j = 0; j < V; j += 4) {
            int d = p[j / 4] <= '9' ? p[j / 4] - '0' : p[j / 4] - 'a' + 10, b;
            for (b = 0; b < 4; b++) if (d >> b & 1) kept[nk++] = (int)(j + (unsigned long)b);
        }
        synth_logits(shape, seed, V, logits);
        memset(&sp, 0, sizeof sp);
        sp.temperature = (float)t; sp.top_k = k; sp.top_p = tp; sp.min_p = (float)mp;
        if (xlarun_sampler_create(&sp, (uint32_t)V, &s, &err) == XLARUN_OK) {
            same = same_kept(s, logits, kept, nk);
            /* and a draw lands on a kept id */
            if (same) {
                int32_t id = xlarun_sampler_sample(s, logits);
                int in = 0, x;
                for (x = 0; x < nk; x++) in |= kept[x] == id;
                CHECKF(in, "large sampling case %d: drew %d, not kept", cases, (int)id);
            }
            xlarun_sampler_free(s);
        } else CHECKF(0, "%s", err.message);
        CHECKF(same, "large sampling case %d (%s V %lu T %g k %d p %g min_p %g): transformers kept %d",
               cases, shape, V, t, k, tp, mp, nk);
        agree += same;
        cases++;
        free(logits);
        free(kept);
    }
    CHECK(cases == 28);
    printf("whole-vocabulary sampling fixtures: %d of %d kept sets equal transformers'\n", agree, cases);
    free(all);
}

/* ---- generation_config.json ------------------------------------------------------------------ */

static void test_generation_config(void) {
    xlarun_generation_config g;
    xlarun_error err;
    const char *llama31 = "{\"bos_token_id\": 128000, \"do_sample\": true, \"eos_token_id\": [128001, 128008, 128009],"
                          " \"temperature\": 0.6, \"top_p\": 0.9, \"transformers_version\": \"4.45.0.dev0\"}";
    const char *greedy = "{\"eos_token_id\": 2, \"repetition_penalty\": 1.1, \"max_new_tokens\": 64}";
    CHECK(xlarun_generation_config_parse(NULL, llama31, strlen(llama31), &g, &err) == XLARUN_OK);
    CHECK(g.sampling.temperature == 0.6f && g.sampling.top_p == 0.9 && g.sampling.top_k == 50);
    CHECK(g.sampling.repetition_penalty == 1.0f && g.sampling.min_p == 0.0f);
    CHECK(g.n_eos == 3 && g.eos_token_ids[0] == 128001 && g.eos_token_ids[2] == 128009);
    CHECK(xlarun_generation_config_parse(NULL, greedy, strlen(greedy), &g, &err) == XLARUN_OK);
    CHECK(g.sampling.temperature == 0.0f && g.sampling.repetition_penalty == 1.1f && g.max_new_tokens == 64);
    CHECK(g.n_eos == 1 && g.eos_token_ids[0] == 2);
    CHECK(xlarun_generation_config_parse(NULL, "{\"do_sample\": true, \"temperature\": 0}", 37, &g, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "'temperature' must be > 0 when 'do_sample' is true");
    CHECK(xlarun_generation_config_parse(NULL, "{\"top_p\": \"x\"}", 14, &g, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "generation_config.json: 'top_p' must be a number in [0, 1], found \"x\"");
    CHECK(xlarun_generation_config_parse(NULL, "{\"eos_token_id\": [1, -2]}", 25, &g, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "'eos_token_id'");
    CHECK(xlarun_generation_config_parse(NULL, "{\"top_k\": 5,}", 13, &g, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "generation_config.json: invalid JSON");
    /* a folder without the file: defaults plus config.json's eos */
    CHECK(xlarun_generation_config_load(NULL, "tests/fixtures/llama32-f32", NULL, &g, &err) == XLARUN_OK);
    CHECK(g.sampling.temperature == 0.0f);
}

/* ---- stop strings ---------------------------------------------------------------------------- */

typedef struct sbuf { char s[1024]; size_t n; } sbuf;
static void sbuf_add(void *user, const char *text, size_t len) {
    sbuf *b = (sbuf *)user;
    if (b->n + len < sizeof b->s) { memcpy(b->s + b->n, text, len); b->n += len; b->s[b->n] = 0; }
}

static void count_bytes(void *user, const char *text, size_t len) {
    (void)text;
    *(size_t *)user += len;
}

static void test_stopper(void) {
    xlarun_stopper st;
    xlarun_error err;
    sbuf out;
    const char *stops[2] = {"</s>", "STOP"};
    const char *bad[1] = {""};
    CHECK(xlarun_stopper_init(&st, stops, 2, &err) == XLARUN_OK);
    memset(&out, 0, sizeof out);
    CHECK(xlarun_stopper_push(&st, "Hel", 3, sbuf_add, &out) == 0);
    CHECK(xlarun_stopper_push(&st, "lo S", 4, sbuf_add, &out) == 0);
    CHECK(strcmp(out.s, "Hello ") == 0);           /* "S" is held back */
    CHECK(xlarun_stopper_push(&st, "TO", 2, sbuf_add, &out) == 0);
    CHECK(strcmp(out.s, "Hello ") == 0);
    CHECK(xlarun_stopper_push(&st, "P and more", 10, sbuf_add, &out) == 1);
    CHECK(strcmp(out.s, "Hello ") == 0);
    CHECK(xlarun_stopper_push(&st, "x", 1, sbuf_add, &out) == 1);
    xlarun_stopper_flush(&st, sbuf_add, &out);
    CHECK(strcmp(out.s, "Hello ") == 0);
    /* a false start is released; the end flushes what is held */
    memset(&out, 0, sizeof out);
    CHECK(xlarun_stopper_push(&st, "a </", 4, sbuf_add, &out) == 0);
    CHECK(strcmp(out.s, "a ") == 0);
    CHECK(xlarun_stopper_push(&st, "b> ST", 5, sbuf_add, &out) == 0);
    CHECK(strcmp(out.s, "a </b> ") == 0);
    xlarun_stopper_flush(&st, sbuf_add, &out);
    CHECK(strcmp(out.s, "a </b> ST") == 0);
    /* a stop inside one long push, past the internal buffer: exactly the bytes before it */
    {
        static char big[3000];
        size_t count = 0;
        memset(big, 'x', sizeof big);
        memcpy(big + 2500, "</s>", 4);
        CHECK(xlarun_stopper_init(&st, stops, 2, &err) == XLARUN_OK);
        CHECK(xlarun_stopper_push(&st, big, sizeof big, count_bytes, &count) == 1);
        CHECKF(count == 2500, "emitted %lu bytes before the stop, expected 2500", (unsigned long)count);
    }
    /* no stop strings: everything passes through */
    CHECK(xlarun_stopper_init(&st, NULL, 0, &err) == XLARUN_OK);
    memset(&out, 0, sizeof out);
    CHECK(xlarun_stopper_push(&st, "</s>", 4, sbuf_add, &out) == 0 && strcmp(out.s, "</s>") == 0);
    CHECK(xlarun_stopper_init(&st, bad, 1, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "stop string 1 is empty");
}

/* ---- the token loop on the demo model --------------------------------------------------------- */

#define DEMO "tests/fixtures/demo"

typedef struct reply { char text[4096]; size_t n; int32_t ids[512]; size_t n_ids; int stop_after; } reply;

static int on_token(void *user, int32_t id, const char *text, size_t len) {
    reply *r = (reply *)user;
    if (id >= 0 && r->n_ids < 512) r->ids[r->n_ids++] = id;
    if (r->n + len < sizeof r->text) { memcpy(r->text + r->n, text, len); r->n += len; r->text[r->n] = 0; }
    return r->stop_after && (int)r->n_ids >= r->stop_after;
}

/* render msgs with the demo tokenizer's template and generate greedily */
static xlarun_status chat_turn(xlarun_generator *g, const xlarun_tokenizer *tok, const xlarun_chat_message *m,
                               size_t n, reply *r, xlarun_generate_result *res, xlarun_error *err) {
    xlarun_chat_template *t = NULL;
    xlarun_chat_input in;
    char *text = NULL;
    size_t len = 0;
    const char *src = xlarun_tokenizer_chat_template(tok);
    xlarun_status st;
    memset(&in, 0, sizeof in);
    memset(r, 0, sizeof *r);
    if (!src) return XLARUN_ERR_ARGUMENT;
    if (xlarun_chat_template_create(src, strlen(src), &t, err) != XLARUN_OK) return err->status;
    xlarun_chat_input_from_tokenizer(tok, &in);
    in.messages = m;
    in.n_messages = n;
    st = xlarun_chat_render_alloc(t, &in, &text, &len, err);
    xlarun_chat_template_free(t);
    if (st != XLARUN_OK) return st;
    st = xlarun_generate_text(g, text, len, XLARUN_ENCODE_NO_BOS, 64, on_token, r, res, err);
    xlarun_chat_text_free(text);
    return st;
}

static void test_generate_demo(void) {
    xlarun_model *model = NULL;
    xlarun_tokenizer *tok = NULL;
    xlarun_session *s1 = NULL, *s2 = NULL;
    xlarun_generator *g1 = NULL, *g2 = NULL;
    xlarun_session_options so;
    xlarun_generator_options go;
    xlarun_generation_config gc;
    xlarun_generate_result res;
    xlarun_error err;
    static reply r, r2;
    const char *users[3] = {"Hello!", "What is xlarun?", "Thanks"};
    static char replies[3][4096];
    xlarun_chat_message m[8];
    size_t n_msgs = 0, i;
    if (xlarun_model_open(DEMO, NULL, &model, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); return; }
    if (xlarun_tokenizer_open(DEMO, NULL, &tok, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); xlarun_model_close(model); return; }
    CHECK(xlarun_tokenizer_check_model(tok, model, &err) == XLARUN_OK);
    CHECK(xlarun_generation_config_load(model, DEMO, NULL, &gc, &err) == XLARUN_OK);
    CHECK(gc.n_eos == 1 && gc.eos_token_ids[0] == 2 && gc.sampling.temperature == 0.0f);
    memset(&so, 0, sizeof so);
    so.n_ctx = 512;
    CHECK(xlarun_session_create(model, &so, &s1, &err) == XLARUN_OK);
    CHECK(xlarun_session_create(model, &so, &s2, &err) == XLARUN_OK);
    memset(&go, 0, sizeof go);
    go.sampling = gc.sampling;
    go.eos_ids = gc.eos_token_ids;
    go.n_eos = gc.n_eos;
    {   /* the generator's memory is exact and caller-provided */
        size_t bytes = 0;
        void *mem;
        CHECK(xlarun_generator_memory(s1, tok, &go, &bytes, &err) == XLARUN_OK && bytes > 0);
        mem = malloc(bytes);
        CHECK(xlarun_generator_init(s1, tok, &go, mem, bytes - 65, &g1, &err) == XLARUN_ERR_MEMORY);
        CHECK_CONTAINS(err.message, "xlarun_generator_memory");
        free(mem);
    }
    CHECK(xlarun_generator_create(s1, tok, &go, &g1, &err) == XLARUN_OK);
    CHECK(xlarun_generator_create(s2, tok, &go, &g2, &err) == XLARUN_OK);
    if (!g1 || !g2) goto done;
    /* multi-turn on one session versus each conversation from scratch on another */
    for (i = 0; i < 3; i++) {
        size_t n1, n2, k;
        const int32_t *ids1, *ids2;
        int same;
        xlarun_generate_result res2;
        m[n_msgs].role = "user";
        m[n_msgs].content = users[i];
        n_msgs++;
        CHECKF(chat_turn(g1, tok, m, n_msgs, &r, &res, &err) == XLARUN_OK, "%s", err.message);
        xlarun_session_reset(s2); /* from scratch */
        CHECKF(chat_turn(g2, tok, m, n_msgs, &r2, &res2, &err) == XLARUN_OK, "%s", err.message);
        CHECKF(r.n_ids == r2.n_ids && !memcmp(r.ids, r2.ids, r.n_ids * sizeof(int32_t)), "turn %lu: ids differ", (unsigned long)i);
        CHECKF(strcmp(r.text, r2.text) == 0, "turn %lu: '%s' vs '%s'", (unsigned long)i, r.text, r2.text);
        CHECK(res.stop == XLARUN_STOP_EOS && res2.stop == XLARUN_STOP_EOS);
        CHECK(r.n > 0);
        ids1 = xlarun_generator_ids(g1, &n1);
        ids2 = xlarun_generator_ids(g2, &n2);
        same = n1 == n2;
        for (k = 0; same && k < n1; k++) same = ids1[k] == ids2[k];
        CHECKF(same, "turn %lu: the conversation ids differ (%lu vs %lu)", (unsigned long)i, (unsigned long)n1, (unsigned long)n2);
        CHECK(res2.n_reused == 0);
        if (i > 0) CHECKF(res.n_reused > 0 && res.n_prefilled < res2.n_prefilled,
                          "turn %lu: reused %lu, prefilled %lu of %lu", (unsigned long)i, (unsigned long)res.n_reused,
                          (unsigned long)res.n_prefilled, (unsigned long)res2.n_prefilled);
        printf("turn %lu: \"%s\" -> \"%s\" (reused %lu, prefilled %lu; from scratch %lu)\n", (unsigned long)i, users[i],
               r.text, (unsigned long)res.n_reused, (unsigned long)res.n_prefilled, (unsigned long)res2.n_prefilled);
        strcpy(replies[i], r.text);
        m[n_msgs].role = "assistant";
        m[n_msgs].content = replies[i];
        n_msgs++;
    }
    /* a stop string: nothing from it on is handed out */
    {
        const char *stops[1] = {"C lib"};
        xlarun_generator *g3 = NULL;
        go.stop_strings = stops;
        go.n_stop_strings = 1;
        CHECK(xlarun_generator_create(s2, tok, &go, &g3, &err) == XLARUN_OK);
        m[0].role = "user";
        m[0].content = "What is xlarun?";
        CHECK(chat_turn(g3, tok, m, 1, &r, &res, &err) == XLARUN_OK);
        CHECKF(res.stop == XLARUN_STOP_STRING && strcmp(r.text, "xlarun is a single-header ") == 0, "stop string: '%s' (%d)",
               r.text, (int)res.stop);
        xlarun_generator_free(g3);
        go.stop_strings = NULL;
        go.n_stop_strings = 0;
    }
    /* max_new, the callback, the same seed */
    {
        int32_t prompt[3] = {1, 100, 200};
        reply a, b;
        xlarun_sampling sp;
        memset(&r, 0, sizeof r);
        CHECK(xlarun_generate_ids(g1, prompt, 3, 5, on_token, &r, &res, &err) == XLARUN_OK);
        CHECK(res.stop == XLARUN_STOP_LENGTH || res.stop == XLARUN_STOP_EOS);
        CHECK(res.n_generated <= 5 && r.n_ids == res.n_generated);
        memset(&r, 0, sizeof r);
        r.stop_after = 2;
        CHECK(xlarun_generate_ids(g1, prompt, 3, 0, on_token, &r, &res, &err) == XLARUN_OK);
        CHECK(res.stop == XLARUN_STOP_CALLBACK || res.stop == XLARUN_STOP_EOS);
        memset(&sp, 0, sizeof sp);
        sp.temperature = 1.0f; sp.top_k = 40; sp.top_p = 0.95f; sp.seed = 1234;
        CHECK(xlarun_generator_set_sampling(g1, &sp, &err) == XLARUN_OK);
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        CHECK(xlarun_generate_ids(g1, prompt, 3, 20, on_token, &a, &res, &err) == XLARUN_OK);
        CHECK(xlarun_generate_ids(g1, prompt, 3, 20, on_token, &b, &res, &err) == XLARUN_OK);
        CHECK(a.n_ids == b.n_ids && !memcmp(a.ids, b.ids, a.n_ids * sizeof(int32_t)) && !strcmp(a.text, b.text));
        sp.top_p = 2.0f;
        CHECK(xlarun_generator_set_sampling(g1, &sp, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "top_p");
    }
    /* bad input: a prompt longer than the context, ids outside the vocabulary */
    {
        xlarun_session *small = NULL;
        xlarun_generator *gs = NULL;
        static char longtext[4000];
        int32_t bad[2] = {1, 400};
        memset(longtext, 'a', sizeof longtext - 1);
        so.n_ctx = 16;
        CHECK(xlarun_session_create(model, &so, &small, &err) == XLARUN_OK);
        CHECK(xlarun_generator_create(small, tok, &go, &gs, &err) == XLARUN_OK);
        CHECK(xlarun_generate_text(gs, longtext, strlen(longtext), 0, 4, NULL, NULL, &res, &err) == XLARUN_ERR_CONTEXT);
        CHECK_CONTAINS(err.message, "the prompt of 3999 bytes is longer than the 256 bytes");
        for (i = 0; i < 10; i++) memcpy(longtext + 16 * i, "What is xlarun? ", 16);
        longtext[160] = 0;
        CHECK(xlarun_generate_text(gs, longtext, strlen(longtext), 0, 4, NULL, NULL, &res, &err) == XLARUN_ERR_CONTEXT);
        CHECK_CONTAINS(err.message, "does not fit the context of 16 tokens");
        CHECK(xlarun_generate_ids(gs, bad, 2, 4, NULL, NULL, &res, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "outside the vocabulary");
        CHECK(xlarun_generate_ids(gs, bad, 0, 4, NULL, NULL, &res, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "empty prompt");
        {   /* generation that fills the context stops there */
            int32_t p16[15];
            for (i = 0; i < 15; i++) p16[i] = 100;
            CHECK(xlarun_generate_ids(gs, p16, 15, 0, NULL, NULL, &res, &err) == XLARUN_OK);
            CHECK(res.stop == XLARUN_STOP_CONTEXT || res.stop == XLARUN_STOP_EOS);
        }
        go.sampling.top_k = -1;
        {
            xlarun_generator *g4 = NULL;
            CHECK(xlarun_generator_create(small, tok, &go, &g4, &err) == XLARUN_ERR_ARGUMENT && g4 == NULL);
            CHECK_CONTAINS(err.message, "top_k");
        }
        go.sampling.top_k = 0;
        xlarun_generator_free(gs);
        xlarun_session_free(small);
    }
done:
    xlarun_generator_free(g1);
    xlarun_generator_free(g2);
    xlarun_session_free(s1);
    xlarun_session_free(s2);
    xlarun_tokenizer_close(tok);
    xlarun_model_close(model);
}

/* a sliding window's ring (tests/fixtures/gemma3-f32: window 20, and a ring of 32 slots with
   n_batch 8): a prompt whose shared prefix the ring no longer holds is prefilled from the start,
   with the ids of a fresh session; one that extends the last is continued */
static void test_generate_ring(void) {
    xlarun_model *m = NULL;
    xlarun_tokenizer *tok = NULL;
    xlarun_session *s[2] = {NULL, NULL};
    xlarun_generator *g[2] = {NULL, NULL};
    xlarun_session_options so;
    xlarun_generator_options go;
    xlarun_generate_result res, res2;
    xlarun_error err;
    int32_t a[70], b[70];
    const int32_t *ids;
    size_t i, n1, n2;
    int k;
    if (xlarun_model_open("tests/fixtures/gemma3-f32", NULL, &m, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); return; }
    if (xlarun_tokenizer_open(DEMO, NULL, &tok, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); goto out; }
    memset(&so, 0, sizeof so);
    so.n_ctx = 128;
    so.n_batch = 8;
    memset(&go, 0, sizeof go); /* greedy */
    for (k = 0; k < 2; k++) {
        CHECK(xlarun_session_create(m, &so, &s[k], &err) == XLARUN_OK);
        CHECK(s[k] && xlarun_generator_create(s[k], tok, &go, &g[k], &err) == XLARUN_OK);
    }
    if (!g[0] || !g[1]) goto out;
    for (i = 0; i < 70; i++) a[i] = b[i] = (int32_t)(7 + i * 13 % 300);
    for (i = 25; i < 70; i++) b[i] = (int32_t)(11 + i * 17 % 300);
    CHECK(xlarun_generate_ids(g[0], a, 60, 4, NULL, NULL, &res, &err) == XLARUN_OK);
    CHECK(xlarun_generate_ids(g[0], b, 60, 4, NULL, NULL, &res, &err) == XLARUN_OK);
    CHECKF(res.n_reused == 0 && res.n_prefilled == 60, "the ring no longer holds the prefix: reused %lu, prefilled %lu",
           (unsigned long)res.n_reused, (unsigned long)res.n_prefilled);
    CHECK(xlarun_generate_ids(g[1], b, 60, 4, NULL, NULL, &res2, &err) == XLARUN_OK);
    ids = xlarun_generator_ids(g[0], &n1);
    CHECK(ids && n1 == 60 + res.n_generated);
    if (ids) memcpy(a, ids, n1 * sizeof(int32_t));
    ids = xlarun_generator_ids(g[1], &n2);
    CHECKF(n1 == n2 && ids && !memcmp(a, ids, n1 * sizeof(int32_t)), "after a restart the ids differ from a fresh session's");
    {   /* back twice: 50 reused of 60 + 4 (positions 31..62 held), then 45 of those 51 + 4:
           although the session is at 54 and the ring holds 32, the window before 45 (26..44)
           lost 26..30 to positions 58..62, so from the start, with a fresh session's ids */
        memcpy(a, b, sizeof a);
        a[50] = 3;
        CHECK(xlarun_generate_ids(g[0], a, 51, 4, NULL, NULL, &res, &err) == XLARUN_OK);
        CHECKF(res.n_reused == 50, "back to 50: reused %lu", (unsigned long)res.n_reused);
        a[45] = 4;
        CHECK(xlarun_generate_ids(g[0], a, 46, 4, NULL, NULL, &res, &err) == XLARUN_OK);
        CHECKF(res.n_reused == 0, "back to 45: reused %lu", (unsigned long)res.n_reused);
        CHECK(xlarun_generate_ids(g[1], a, 46, 4, NULL, NULL, &res2, &err) == XLARUN_OK);
        ids = xlarun_generator_ids(g[0], &n1);
        if (ids) memcpy(b, ids, n1 * sizeof(int32_t));
        ids = xlarun_generator_ids(g[1], &n2);
        CHECKF(n1 == n2 && ids && !memcmp(b, ids, n1 * sizeof(int32_t)), "back twice: the ids differ from a fresh session's");
        ids = xlarun_generator_ids(g[0], &n1);
        if (ids) memcpy(a, ids, n1 * sizeof(int32_t));
    }
    if (n1 < 66) { /* the conversation goes on: everything the session holds is reused */
        a[n1] = 5;
        CHECK(xlarun_generate_ids(g[0], a, n1 + 1, 2, NULL, NULL, &res, &err) == XLARUN_OK);
        CHECKF(res.n_reused == n1 - 1 && res.n_prefilled == 2, "continued: reused %lu, prefilled %lu",
               (unsigned long)res.n_reused, (unsigned long)res.n_prefilled);
    }
out:
    for (k = 0; k < 2; k++) { xlarun_generator_free(g[k]); xlarun_session_free(s[k]); }
    xlarun_tokenizer_close(tok);
    xlarun_model_close(m);
}

/* longrope (tests/fixtures/phi3lr-f32, original max 128): a reply that crosses 128 gives the ids
   of the session's own greedy loop (which runs the held positions again with the long factors,
   as one forward over the sequence would have them); a prompt past 128 after a conversation held
   within it is prefilled from the start, reuse reported as none, with a fresh generator's ids;
   once past, a longer prompt reuses what is held */
static void test_generate_longrope(void) {
    xlarun_model *m = NULL;
    xlarun_tokenizer *tok = NULL;
    xlarun_session *s[2] = {NULL, NULL};
    xlarun_generator *g[2] = {NULL, NULL};
    xlarun_session_options so;
    xlarun_generator_options go;
    xlarun_generate_result res, res2;
    xlarun_error err;
    int32_t a[300], want[64];
    const int32_t *ids;
    size_t i, n1, n2;
    int k;
    if (xlarun_model_open("tests/fixtures/phi3lr-f32", NULL, &m, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); return; }
    if (xlarun_tokenizer_open(DEMO, NULL, &tok, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); goto out; }
    memset(&so, 0, sizeof so);
    so.n_ctx = 300;
    so.n_batch = 16;
    memset(&go, 0, sizeof go); /* greedy */
    go.ignore_eos = 1;
    for (k = 0; k < 2; k++) {
        CHECK(xlarun_session_create(m, &so, &s[k], &err) == XLARUN_OK);
        CHECK(s[k] && xlarun_generator_create(s[k], tok, &go, &g[k], &err) == XLARUN_OK);
    }
    if (!g[0] || !g[1]) goto out;
    for (i = 0; i < 300; i++) a[i] = (int32_t)(5 + (i * 29) % 310);
    /* the session's greedy loop from 110 tokens, 40 steps: past 128 at the 19th */
    CHECK(xlarun_session_prefill(s[1], a, 110, &err) == XLARUN_OK);
    for (i = 0; i < 40; i++) {
        want[i] = xlarun_session_argmax(s[1]);
        if (i + 1 < 40) CHECK(xlarun_session_decode(s[1], want[i], &err) == XLARUN_OK);
    }
    xlarun_session_reset(s[1]);
    CHECK(xlarun_generate_ids(g[0], a, 110, 40, NULL, NULL, &res, &err) == XLARUN_OK);
    ids = xlarun_generator_ids(g[0], &n1);
    CHECKF(ids && n1 == 150 && !memcmp(ids + 110, want, 40 * sizeof(int32_t)), "longrope: the generator's reply across 128 differs from the greedy loop");
    CHECKF(res.n_rerun == 128, "longrope: the step across 128 ran %lu positions again, not the 128 held", (unsigned long)res.n_rerun);
    /* a conversation held within 128, then a prompt past it: from the start */
    CHECK(xlarun_generate_ids(g[0], a, 100, 10, NULL, NULL, &res, &err) == XLARUN_OK);
    ids = xlarun_generator_ids(g[0], &n1);
    if (ids && n1 == 110) {
        memcpy(a, ids, 110 * sizeof(int32_t));
        CHECK(xlarun_generate_ids(g[0], a, 140, 8, NULL, NULL, &res, &err) == XLARUN_OK);
        CHECKF(res.n_reused == 0 && res.n_prefilled == 140 && res.n_rerun == 0,
               "longrope: past 128 after a conversation within it: reused %lu, prefilled %lu, run again %lu",
               (unsigned long)res.n_reused, (unsigned long)res.n_prefilled, (unsigned long)res.n_rerun);
        CHECK(xlarun_generate_ids(g[1], a, 140, 8, NULL, NULL, &res2, &err) == XLARUN_OK);
        ids = xlarun_generator_ids(g[0], &n1);
        if (ids) memcpy(a, ids, n1 * sizeof(int32_t));
        ids = xlarun_generator_ids(g[1], &n2);
        CHECKF(n1 == 148 && n2 == 148 && ids && !memcmp(a, ids, n1 * sizeof(int32_t)), "longrope: the ids differ from a fresh generator's");
        /* past 128 already: the next turn reuses it all */
        a[148] = 9;
        CHECK(xlarun_generate_ids(g[0], a, 149, 2, NULL, NULL, &res, &err) == XLARUN_OK);
        CHECKF(res.n_reused == 147 && res.n_prefilled == 2, "longrope: continued past 128: reused %lu, prefilled %lu",
               (unsigned long)res.n_reused, (unsigned long)res.n_prefilled);
    } else CHECK(0);
out:
    for (k = 0; k < 2; k++) { xlarun_generator_free(g[k]); xlarun_session_free(s[k]); }
    xlarun_tokenizer_close(tok);
    xlarun_model_close(m);
}

/* a generator without a tokenizer (ids only) samples exactly the ids of one with it; its
   callback sees every id with empty text; the eos ids then come from the options or config.json */
static int count_ids(void *user, int32_t id, const char *text, size_t len) {
    size_t *n = (size_t *)user;
    if (id >= 0) n[0]++;
    n[1] += len;
    (void)text;
    return 0;
}
static void test_generate_ids_only(void) {
    xlarun_model *m = NULL;
    xlarun_tokenizer *tok = NULL;
    xlarun_session *s[2] = {NULL, NULL};
    xlarun_generator *g[2] = {NULL, NULL};
    xlarun_generate_result res[2];
    xlarun_error err;
    const int32_t prompt[5] = {1, 40, 41, 42, 43};
    size_t k, n[2], counts[2][2] = {{0, 0}, {0, 0}};
    const int32_t *ids[2];
    if (xlarun_model_open(DEMO, NULL, &m, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); return; }
    if (xlarun_tokenizer_open(DEMO, NULL, &tok, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); xlarun_model_close(m); return; }
    for (k = 0; k < 2; k++) {
        CHECK(xlarun_session_create(m, NULL, &s[k], &err) == XLARUN_OK);
        CHECK(s[k] && xlarun_generator_create(s[k], k ? NULL : tok, NULL, &g[k], &err) == XLARUN_OK);
        if (!g[k]) goto out;
        CHECK(xlarun_generate_ids(g[k], prompt, 5, 40, count_ids, counts[k], &res[k], &err) == XLARUN_OK);
        ids[k] = xlarun_generator_ids(g[k], &n[k]);
    }
    CHECKF(n[0] == n[1] && n[0] > 5 && !memcmp(ids[0], ids[1], n[0] * sizeof(int32_t)), "ids only: %lu ids, with the tokenizer %lu",
           (unsigned long)n[1], (unsigned long)n[0]);
    CHECK(res[0].stop == res[1].stop && res[0].n_generated == res[1].n_generated);
    CHECK(counts[0][0] == counts[1][0] && counts[0][0] == res[0].n_generated);
    CHECKF(counts[0][1] > 0 && counts[1][1] == 0, "text bytes: %lu with the tokenizer, %lu without", (unsigned long)counts[0][1],
           (unsigned long)counts[1][1]);
out:
    for (k = 0; k < 2; k++) { xlarun_generator_free(g[k]); xlarun_session_free(s[k]); }
    xlarun_tokenizer_close(tok);
    xlarun_model_close(m);
}

/* ---- generation under a grammar ---- */

/* (yes|no) " because " [a-z ]{3,20} "." , checked by hand */
static int is_yes_no(const char *t) {
    size_t n;
    if (!strncmp(t, "yes because ", 12)) t += 12;
    else if (!strncmp(t, "no because ", 11)) t += 11;
    else return 0;
    for (n = 0; (t[n] >= 'a' && t[n] <= 'z') || t[n] == ' '; n++) {}
    return n >= 3 && n <= 20 && t[n] == '.' && t[n + 1] == 0;
}

/* [a-z]{1,8} (" " [a-z]{1,8}){2,5} "." , checked by hand */
static int is_words(const char *t) {
    int words = 0;
    for (;;) {
        size_t n = 0;
        while (t[n] >= 'a' && t[n] <= 'z') n++;
        if (!n || n > 8) return 0;
        words++;
        t += n;
        if (*t == '.') return words >= 3 && words <= 6 && t[1] == 0;
        if (*t++ != ' ') return 0;
    }
}

/* a generator under a grammar on the demo model with a tokenizer (the demo's, or another folder's:
   the model's ids index its vocabulary) */
static void grammar_run(const char *tok_dir, const char *gbnf, int32_t eos, int ignore_eos, float temp, uint64_t seed,
                        reply *r, xlarun_generate_result *res, xlarun_status *st, xlarun_error *err) {
    xlarun_model *m = NULL;
    xlarun_tokenizer *tok = NULL;
    xlarun_session *s = NULL;
    xlarun_generator *g = NULL;
    xlarun_grammar *gr = NULL;
    xlarun_generator_options go;
    memset(r, 0, sizeof *r);
    memset(res, 0, sizeof *res);
    *st = XLARUN_ERR_ARGUMENT;
    if (xlarun_model_open(DEMO, NULL, &m, err) != XLARUN_OK || xlarun_tokenizer_open(tok_dir, NULL, &tok, err) != XLARUN_OK ||
        xlarun_session_create(m, NULL, &s, err) != XLARUN_OK || xlarun_grammar_compile(gbnf, strlen(gbnf), &gr, err) != XLARUN_OK) {
        CHECKF(0, "%s", err->message);
        goto out;
    }
    memset(&go, 0, sizeof go);
    go.sampling.temperature = temp;
    go.sampling.seed = seed;
    go.eos_ids = &eos;
    go.n_eos = 1;
    go.ignore_eos = ignore_eos;
    go.grammar = gr;
    if ((*st = xlarun_generator_create(s, tok, &go, &g, err)) != XLARUN_OK) goto out;
    {   /* ids every tokenizer here has, below the model's 400 */
        static const int32_t prompt[4] = {1, 40, 41, 42};
        *st = xlarun_generate_ids(g, prompt, 4, 120, on_token, r, res, err);
    }
out:
    xlarun_generator_free(g);
    xlarun_grammar_free(gr);
    xlarun_session_free(s);
    xlarun_tokenizer_close(tok);
    xlarun_model_close(m);
}

static void test_generate_grammar(void) {
    static const char *yn = "root ::= (\"yes\" | \"no\") \" because \" [a-z ]{3,20} \".\"";
    static const char *words = "root ::= [a-z]{1,8} (\" \" [a-z]{1,8}){2,5} \".\"";
    static reply r;
    xlarun_generate_result res;
    xlarun_status st;
    xlarun_error err;
    uint64_t seed;
    int kinds[2] = {0, 0};
    /* byte-level BPE: sampled replies are sentences; the eos id is the only way on after "." */
    for (seed = 1; seed <= 12; seed++) {
        grammar_run(DEMO, yn, 2, 0, seed == 1 ? 0.0f : 1.3f, seed, &r, &res, &st, &err);
        CHECKF(st == XLARUN_OK && is_yes_no(r.text) && res.stop == XLARUN_STOP_EOS && r.ids[r.n_ids - 1] == 2,
               "seed %lu: status %d stop %d reply '%s' (%s)", (unsigned long)seed, (int)st, (int)res.stop, r.text, err.message);
        kinds[r.text[0] == 'y']++;
    }
    CHECKF(kinds[0] && kinds[1], "12 sampled replies all begin the same way (%d no, %d yes)", kinds[0], kinds[1]);
    /* ignore_eos: no end id, so a complete sentence that nothing may follow stops the loop */
    grammar_run(DEMO, yn, 2, 1, 1.3f, 5, &r, &res, &st, &err);
    CHECKF(st == XLARUN_OK && res.stop == XLARUN_STOP_GRAMMAR && is_yes_no(r.text), "ignore_eos: status %d stop %d reply '%s'",
           (int)st, (int)res.stop, r.text);
    /* SentencePiece (Replace, ByteFallback, Fuse, Strip): the first token's leading space is
       dropped, so the start is checked token by token; the text is what decode gives */
    for (seed = 1; seed <= 12; seed++) {
        xlarun_tokenizer *tok = NULL;
        char dec[4096];
        size_t dlen = 0, n = r.n_ids;
        grammar_run("tests/fixtures/tokenizers/sp", words, 2, 0, seed == 1 ? 0.0f : 1.5f, seed, &r, &res, &st, &err);
        n = r.n_ids;
        CHECKF(st == XLARUN_OK && is_words(r.text) && res.stop == XLARUN_STOP_EOS, "sp seed %lu: status %d stop %d reply '%s' (%s)",
               (unsigned long)seed, (int)st, (int)res.stop, r.text, err.message);
        if (xlarun_tokenizer_open("tests/fixtures/tokenizers/sp", NULL, &tok, &err) == XLARUN_OK) {
            CHECK(n > 1 && xlarun_tokenizer_decode(tok, r.ids, n - 1, 0, dec, sizeof dec, &dlen, &err) == XLARUN_OK && !strcmp(dec, r.text));
            xlarun_tokenizer_close(tok);
        }
    }
    /* a character no token of the model's ids can write: a status, not a loop */
    grammar_run("tests/fixtures/tokenizers/gemma", "root ::= \"\\U0001F600\"", 1, 0, 0.0f, 1, &r, &res, &st, &err);
    CHECK(st == XLARUN_ERR_GRAMMAR);
    CHECK_CONTAINS(err.message, "no token of the vocabulary continues the output");
    {   /* the generator's memory holds the matcher: exact; a grammar needs a tokenizer */
        xlarun_model *m = NULL;
        xlarun_tokenizer *tok = NULL;
        xlarun_session *s = NULL;
        xlarun_generator *g = NULL;
        xlarun_grammar *gr = NULL;
        xlarun_generator_options go;
        size_t with = 0, without = 0;
        void *mem;
        memset(&go, 0, sizeof go);
        if (xlarun_model_open(DEMO, NULL, &m, &err) == XLARUN_OK && xlarun_tokenizer_open(DEMO, NULL, &tok, &err) == XLARUN_OK &&
            xlarun_session_create(m, NULL, &s, &err) == XLARUN_OK && xlarun_grammar_compile(yn, strlen(yn), &gr, &err) == XLARUN_OK) {
            CHECK(xlarun_generator_memory(s, tok, &go, &without, &err) == XLARUN_OK);
            go.grammar = gr;
            CHECK(xlarun_generator_memory(s, tok, &go, &with, &err) == XLARUN_OK && with > without);
            mem = malloc(with);
            CHECK(mem && xlarun_generator_init(s, tok, &go, mem, with - 65, &g, &err) == XLARUN_ERR_MEMORY);
            CHECK(mem && xlarun_generator_init(s, tok, &go, mem, with, &g, &err) == XLARUN_OK);
            if (g) {
                CHECK(xlarun_generate_text(g, "Hi", 2, 0, 60, on_token, &r, &res, &err) == XLARUN_OK);
                xlarun_generator_free(g);
            }
            free(mem);
            CHECK(xlarun_generator_create(s, NULL, &go, &g, &err) == XLARUN_ERR_ARGUMENT);
            CHECK_CONTAINS(err.message, "a grammar needs a tokenizer");
            go.grammar_limits.max_nodes = 1u << 27;
            CHECK(xlarun_generator_create(s, tok, &go, &g, &err) == XLARUN_ERR_ARGUMENT);
            CHECK_CONTAINS(err.message, "grammar_limits: max_nodes is at most 2^26");
            go.grammar_limits.max_nodes = 0;
            {   /* the matcher's own argument checks */
                const char *t1 = "a";
                size_t l1 = 1;
                int32_t ends[65];
                xlarun_matcher_options mo;
                xlarun_matcher *mm = NULL;
                memset(&mo, 0, sizeof mo);
                memset(ends, 0, sizeof ends);
                mo.end_ids = ends;
                mo.n_end = 65;
                CHECK(xlarun_matcher_create(gr, &t1, &l1, 1, &mo, &mm, &err) == XLARUN_ERR_ARGUMENT);
                CHECK_CONTAINS(err.message, "n_end 65 (at most 64, with end_ids)");
                mo.n_end = 1;
                ends[0] = 5;
                CHECK(xlarun_matcher_create(gr, &t1, &l1, 1, &mo, &mm, &err) == XLARUN_ERR_ARGUMENT);
                CHECK_CONTAINS(err.message, "end id 5 is outside the vocabulary");
            }
        } else CHECKF(0, "%s", err.message);
        xlarun_grammar_free(gr);
        xlarun_session_free(s);
        xlarun_tokenizer_close(tok);
        xlarun_model_close(m);
    }
}

/* ---- tool calls under a grammar ---- */
static const char *TOOL_SET =
    "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\", \"properties\": "
    "{\"location\": {\"type\": \"string\", \"maxLength\": 12}, \"unit\": {\"type\": \"string\", \"enum\": [\"celsius\", \"fahrenheit\"]}},"
    " \"required\": [\"location\"]}}},"
    " {\"name\": \"add\", \"parameters\": {\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\", \"minimum\": -5, \"maximum\": 99},"
    " \"b\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 9}, \"tags\": {\"type\": \"array\", \"items\": {\"enum\": [\"x\", \"y\"]}, \"maxItems\": 2}},"
    " \"required\": [\"a\", \"b\"], \"additionalProperties\": false}},"
    " {\"type\": \"function\", \"function\": {\"name\": \"ping\"}}]";

static int code_offered; /* TOOL_SET with Functionary's {"type": "code_interpreter"} first */

/* the arguments of a parsed call against TOOL_SET, by hand */
static int tool_args_ok(const char *name, const char *a) {
    if (!strcmp(name, "ping")) return a[0] == '{';
    if (!strcmp(name, "python")) /* the code interpreter's call: {"code":"..."}, the code not empty */
        return code_offered && !strncmp(a, "{\"code\":\"", 9) && a[9] != '"' && strlen(a) > 11 && !strcmp(a + strlen(a) - 2, "\"}");
    if (!strcmp(name, "get_weather")) {
        size_t n;
        if (strncmp(a, "{\"location\":\"", 13)) return 0;
        for (a += 13, n = 0; *a && *a != '"'; a++, n++) if (*a == '\\') a++;
        if (*a++ != '"') return 0;
        return !strcmp(a, "}") || !strcmp(a, ",\"unit\":\"celsius\"}") || !strcmp(a, ",\"unit\":\"fahrenheit\"}");
    }
    if (!strcmp(name, "add")) {
        long x, y;
        char *e;
        if (strncmp(a, "{\"a\":", 5)) return 0;
        x = strtol(a + 5, &e, 10);
        if (x < -5 || x > 99 || strncmp(e, ",\"b\":", 5)) return 0;
        y = strtol(e + 5, &e, 10);
        if (y < 0 || y > 9) return 0;
        return !strcmp(e, "}") || !strcmp(e, ",\"tags\":[]}") || !strcmp(e, ",\"tags\":[\"x\"]}") || !strcmp(e, ",\"tags\":[\"y\"]}") ||
               !strncmp(e, ",\"tags\":[\"", 10);
    }
    return 0;
}

/* random sentences of each format's tool grammar that open a call (its marker fed first, or for
   Llama 3 a "{"), walked byte by byte: each parses with xlarun_reply_parse into calls of the
   tools, with arguments the schemas accept */
static void test_tool_grammar(void) {
    /* the last two: with the code interpreter offered, a reply that opens code */
    static const xlarun_tool_format fmts[11] = {XLARUN_TOOLS_LLAMA3, XLARUN_TOOLS_HERMES, XLARUN_TOOLS_MISTRAL,
                                                XLARUN_TOOLS_GRANITE, XLARUN_TOOLS_PHI4, XLARUN_TOOLS_DEEPSEEK_R1,
                                                XLARUN_TOOLS_QWEN3_CODER, XLARUN_TOOLS_FUNCTIONARY_V3_1,
                                                XLARUN_TOOLS_FUNCTIONARY_V3_2, XLARUN_TOOLS_FUNCTIONARY_V3_1,
                                                XLARUN_TOOLS_FUNCTIONARY_V3_2};
    static const char *open[11] = {"", "Sure.\n<tool_call>", "[TOOL_CALLS]", "<|tool_call|>", "<|tool_call|>",
                                   "\xEF\xBD\x9C", "Sure.\n<tool_call>", "Sure.<function=", "all\nSure.>>>",
                                   "Let me compute.<|python_tag|>", "python\n"}; /* DeepSeek's: below */
    static char text[8192], gbnf[65536], rmem[1 << 16], with_code[4096];
    const char *set;
    char *bytes[256];
    size_t lens[256], f, i, calls = 0, sentences = 0;
    uint64_t rng = 12345;
    xlarun_error err;
    for (i = 0; i < 256; i++) { bytes[i] = (char *)malloc(1); bytes[i][0] = (char)i; lens[i] = 1; }
    snprintf(with_code, sizeof with_code, "[{\"type\": \"code_interpreter\"}, %s", TOOL_SET + 1);
    for (f = 0; f < 11; f++) {
        xlarun_grammar *g = NULL;
        xlarun_matcher *m = NULL;
        size_t glen = 0, walk;
        code_offered = f >= 9;
        set = code_offered ? with_code : TOOL_SET;
        CHECKF(xlarun_tool_grammar(fmts[f], set, strlen(set), gbnf, sizeof gbnf, &glen, &err) == XLARUN_OK, "%s", err.message);
        if (xlarun_grammar_compile(gbnf, glen, &g, &err) != XLARUN_OK) { CHECKF(0, "%s: %s", xlarun_tool_format_name(fmts[f]), err.message); continue; }
        CHECK(xlarun_matcher_create(g, (const char *const *)bytes, lens, 256, NULL, &m, &err) == XLARUN_OK);
        for (walk = 0; m && walk < 40; walk++) {
            uint32_t mask[8];
            size_t n = 0, tries;
            const char *o = fmts[f] == XLARUN_TOOLS_DEEPSEEK_R1 ? "<\xEF\xBD\x9Ctool\xE2\x96\x81" "calls\xE2\x96\x81" "begin\xEF\xBD\x9C>" : open[f];
            xlarun_reply reply;
            /* every fourth walk after a <think> block (the markers in it are text), every fourth after
               the reasoning the prompt opened (not Functionary v3.2's, whose first line is a recipient) */
            const char *pre = walk % 4 == 1 ? "<think>\nA <tool_call> [TOOL_CALLS] <|tool_call|> <function= <|python_tag|> >>> {\n</think>\n\n"
                            : walk % 4 == 3 && fmts[f] != XLARUN_TOOLS_FUNCTIONARY_V3_2 ? "A</think>\n" : "";
            xlarun_matcher_reset(m);
            if (fmts[f] == XLARUN_TOOLS_LLAMA3) o = "{";
            CHECKF(xlarun_matcher_accept_bytes(m, pre, strlen(pre), &err) == XLARUN_OK, "%s: '%s'", xlarun_tool_format_name(fmts[f]), pre);
            CHECK(xlarun_matcher_accept_bytes(m, o, strlen(o), &err) == XLARUN_OK);
            memcpy(text, pre, strlen(pre));
            memcpy(text + strlen(pre), o, strlen(o));
            n = strlen(pre) + strlen(o);
            for (tries = 0; n < sizeof text - 1; tries++) {
                uint32_t pick, c = 0, k;
                if (xlarun_matcher_complete(m) && (!xlarun_matcher_can_continue(m) || (rng >> 60) < 3)) break;
                CHECK(xlarun_matcher_allowed(m, mask, &err) == XLARUN_OK);
                for (k = 0; k < 256; k++) c += mask[k >> 5] >> (k & 31) & 1;
                if (!c) break;
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                /* prefer printable ASCII, so strings and numbers end */
                pick = (uint32_t)(rng >> 33) % c;
                for (k = 0; k < 256; k++)
                    if ((mask[k >> 5] >> (k & 31) & 1) && pick-- == 0) break;
                if (k >= 0x80 && (rng >> 20) % 4) { /* mostly ASCII: take the first allowed ASCII byte */
                    uint32_t j;
                    for (j = 0x20; j < 0x7F; j++) if (mask[j >> 5] >> (j & 31) & 1) { k = j; break; }
                }
                if (k == '"' || k == '}' || k == ']' || ((rng >> 40) % 3 == 0)) {} /* take it */
                text[n++] = (char)k;
                CHECK(xlarun_matcher_accept_bytes(m, text + n - 1, 1, &err) == XLARUN_OK);
            }
            text[n] = 0;
            if (!xlarun_matcher_complete(m)) continue; /* ran long: not a sentence yet */
            sentences++;
            if (xlarun_reply_parse(fmts[f], text, n, set, strlen(set), rmem, sizeof rmem, &reply, &err) != XLARUN_OK) {
                CHECKF(0, "%s: '%s' does not parse: %s", xlarun_tool_format_name(fmts[f]), text, err.message);
                continue;
            }
            CHECKF(reply.n_calls >= 1, "%s: '%s' parsed to no call", xlarun_tool_format_name(fmts[f]), text);
            CHECKF(!pre[0] || (reply.reasoning && reply.reasoning[0] == 'A'), "%s: '%s': reasoning '%s'", xlarun_tool_format_name(fmts[f]), text,
                   reply.reasoning ? reply.reasoning : "(none)");
            for (i = 0; i < reply.n_calls; i++) {
                CHECKF(tool_args_ok(reply.calls[i].name, reply.calls[i].arguments), "%s: '%s': call %s(%s)",
                       xlarun_tool_format_name(fmts[f]), text, reply.calls[i].name, reply.calls[i].arguments);
                calls++;
            }
        }
        xlarun_matcher_free(m);
        xlarun_grammar_free(g);
    }
    CHECKF(sentences >= 100 && calls >= sentences, "%lu sentences with %lu calls", (unsigned long)sentences, (unsigned long)calls);
    if (test_verbose) printf("tool grammar: %lu sentences, %lu calls parsed\n", (unsigned long)sentences, (unsigned long)calls);
    for (i = 0; i < 256; i++) free(bytes[i]);
    /* refusals name the tool */
    {
        size_t glen = 0;
        CHECK(xlarun_tool_grammar(XLARUN_TOOLS_HERMES, "[{\"parameters\": {}}]", 20, NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
        CHECK_CONTAINS(err.message, "tools[0]: no \"name\" string");
        const char *bad = "[{\"name\": \"f\", \"parameters\": {\"type\": \"string\", \"pattern\": \"x\"}}]";
        CHECK(xlarun_tool_grammar(XLARUN_TOOLS_HERMES, bad, strlen(bad), NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
        CHECK_CONTAINS(err.message, "tool 'f': #: \"pattern\" is not supported");
        CHECK(xlarun_tool_grammar(XLARUN_TOOLS_NONE, "[]", 2, NULL, 0, &glen, &err) == XLARUN_ERR_ARGUMENT);
        CHECK(xlarun_tool_grammar(XLARUN_TOOLS_HERMES, "[]", 2, NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
        CHECK_CONTAINS(err.message, "the array holds no tool");
        CHECK(xlarun_tool_grammar(XLARUN_TOOLS_HERMES, "{}", 2, NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
        /* a tool's parameters are an object in every format (the reader takes no other arguments):
           a schema that allows none, or whose top is a combinator, is refused (fuzz_schema's
           sentences found "type": "number" written as the arguments); a schema without "type", or
           true, is any object (they were any value); a key the XML tag cannot hold */
        {
            static char gb[8192];
            xlarun_grammar *gr = NULL;
            const char *num = "[{\"name\": \"f\", \"parameters\": {\"type\": \"number\", \"properties\": {\"n\": {\"type\": \"integer\"}}}}]";
            const char *any = "[{\"name\": \"f\", \"parameters\": {\"anyOf\": [{\"type\": \"object\"}, {\"type\": \"number\"}]}}]";
            const char *gt = "[{\"name\": \"f\", \"parameters\": {\"properties\": {\"a>b\": {\"type\": \"string\"}}}}]";
            size_t fm2;
            for (fm2 = 1; fm2 <= (size_t)XLARUN_TOOLS_FUNCTIONARY_V3_2; fm2++) {
                CHECK(xlarun_tool_grammar((xlarun_tool_format)fm2, num, strlen(num), gb, sizeof gb, &glen, &err) == XLARUN_ERR_GRAMMAR);
                CHECK_CONTAINS(err.message, "tool 'f': #: a tool's parameters are an object, and \"type\" allows none");
                CHECK(xlarun_tool_grammar((xlarun_tool_format)fm2, any, strlen(any), gb, sizeof gb, &glen, &err) == XLARUN_ERR_GRAMMAR);
                CHECK_CONTAINS(err.message, "tool 'f': #: \"anyOf\" at the top of a tool's parameters is not supported");
            }
            CHECK(xlarun_tool_grammar(XLARUN_TOOLS_HERMES, "[{\"name\": \"f\", \"parameters\": {}}]", 33, gb, sizeof gb, &glen, &err) == XLARUN_OK);
            CHECKF(strstr(gb, "\"\\\", \\\"arguments\\\": \" s") && !strstr(gb, "::= value"), "grammar: %s", gb);
            CHECK(xlarun_tool_grammar(XLARUN_TOOLS_HERMES, "[{\"name\": \"f\", \"parameters\": true}]", 35, gb, sizeof gb, &glen, &err) == XLARUN_OK);
            CHECKF(!strstr(gb, "::= value"), "grammar: %s", gb);
            CHECKF(xlarun_grammar_compile(gb, glen, &gr, &err) == XLARUN_OK, "%s", err.message);
            xlarun_grammar_free(gr);
            CHECK(xlarun_tool_grammar(XLARUN_TOOLS_QWEN3_CODER, gt, strlen(gt), NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
            CHECK_CONTAINS(err.message, "tool 'f': the parameter name 'a>b' holds '>' or a line break");
            {   /* a JSON value in Qwen3-Coder's XML never holds "</parameter>" before its end: '<' in its
                   strings only as \u003c (read back as '<'), in enum literals too; an enum string of a
                   string parameter that holds it is refused; other formats keep '<' */
                const char *lt = "[{\"name\": \"f\", \"parameters\": {\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"array\", "
                                 "\"items\": {\"type\": \"string\"}}, \"b\": {\"enum\": [\"<b>\", 1]}}, \"required\": [\"a\"]}}]";
                const char *es = "[{\"name\": \"f\", \"parameters\": {\"properties\": {\"u\": {\"type\": \"string\", \"enum\": [\"x</parameter>\"]}}}}]";
                static const char head[] = "<tool_call>\n<function=f>\n<parameter=a>\n[\"x";
                static const char good[] = "\\u003c/parameter>\"]\n</parameter>\n<parameter=b>\n\"\\u003cb>\"\n</parameter>\n</function>\n</tool_call>";
                static char rb[4096], txt[512];
                xlarun_matcher *mt = NULL;
                xlarun_reply rr;
                const char *one = "x";
                size_t one_len = 1;
                CHECK(xlarun_tool_grammar(XLARUN_TOOLS_QWEN3_CODER, lt, strlen(lt), gb, sizeof gb, &glen, &err) == XLARUN_OK);
                CHECKF(strstr(gb, "[^\"\\\\<\\x00-\\x1F]") && strstr(gb, "\"\\\"\\\\u003cb>\\\"\""), "grammar: %s", gb);
                CHECKF(xlarun_grammar_compile(gb, glen, &gr, &err) == XLARUN_OK, "%s", err.message);
                CHECK(xlarun_matcher_create(gr, &one, &one_len, 1, NULL, &mt, &err) == XLARUN_OK);
                CHECK(xlarun_matcher_accept_bytes(mt, head, strlen(head), &err) == XLARUN_OK);
                CHECK(xlarun_matcher_accept_bytes(mt, "<", 1, &err) != XLARUN_OK);
                xlarun_matcher_reset(mt);
                snprintf(txt, sizeof txt, "%s%s", head, good);
                CHECKF(xlarun_matcher_accept_bytes(mt, txt, strlen(txt), &err) == XLARUN_OK && xlarun_matcher_complete(mt), "%s", err.message);
                CHECK(xlarun_reply_parse(XLARUN_TOOLS_QWEN3_CODER, txt, strlen(txt), lt, strlen(lt), rb, sizeof rb, &rr, &err) == XLARUN_OK &&
                      rr.n_calls == 1 && !strcmp(rr.calls[0].arguments, "{\"a\":[\"x</parameter>\"],\"b\":\"<b>\"}"));
                xlarun_matcher_free(mt);
                xlarun_grammar_free(gr);
                gr = NULL;
                CHECK(xlarun_tool_grammar(XLARUN_TOOLS_QWEN3_CODER, es, strlen(es), NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
                CHECK_CONTAINS(err.message, "tool 'f': an enum string of 'u' holds \"</parameter>\"");
                CHECK(xlarun_tool_grammar(XLARUN_TOOLS_HERMES, lt, strlen(lt), gb, sizeof gb, &glen, &err) == XLARUN_OK);
                CHECKF(strstr(gb, "[^\"\\\\\\x00-\\x1F]") && strstr(gb, "\\\"<b>\\\""), "grammar: %s", gb);
            }
            {   /* free text never holds what the reader would take for a call or refuse: Llama 3's white
                   space before "{" or its <|python_tag|> (built-in calls, no tool here), a NUL byte in any
                   format; without function tools Functionary v3.1's code never holds "<function=". A
                   code_interpreter entry has a call form in Functionary's formats only. */
                static const struct { xlarun_tool_format f; const char *tools, *ok, *refused; } ft[] = {
                    {XLARUN_TOOLS_LLAMA3, "[{\"name\": \"f\"}]", " \n{", "}"}, /* white space then a call, no other "{" */
                    /* the markers the reader also opens calls at (found in review: replies that did not parse) */
                    {XLARUN_TOOLS_PHI4, "[{\"name\": \"f\"}]", "I use functools", "["},
                    {XLARUN_TOOLS_DEEPSEEK_R1, "[{\"name\": \"f\"}]", "I saw <\xEF\xBD\x9Ctool\xE2\x96\x81" "calls", "\xEF\xBD\x9C>"},
                    {XLARUN_TOOLS_DEEPSEEK_R1, "[{\"name\": \"f\"}]", "Okay.</think>\n<\xEF\xBD\x9Ctool calls begin", "\xEF\xBD\x9C>"},
                    {XLARUN_TOOLS_LLAMA3, "[{\"name\": \"f\"}]", "ok <|python_tag|", ">"},
                    {XLARUN_TOOLS_LLAMA3, "[{\"name\": \"f\"}]", "<|python_tag|", ">"},
                    {XLARUN_TOOLS_HERMES, "[{\"name\": \"f\"}]", "a", "\0"},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "[{\"name\": \"f\"}]", "ok <|python_tag|", ">"},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "[{\"type\": \"code_interpreter\"}]", "ok <|python_tag|>x <function", "="},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "[{\"type\": \"code_interpreter\"}]", "<|python_tag|>", " "},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "[{\"type\": \"code_interpreter\"}]", "python\n", "{"},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "[{\"name\": \"f\"}]", "", "python"}};
                const char *one = "x";
                size_t one_len = 1, q;
                for (q = 0; q < sizeof ft / sizeof ft[0]; q++) {
                    xlarun_matcher *mt = NULL;
                    CHECK(xlarun_tool_grammar(ft[q].f, ft[q].tools, strlen(ft[q].tools), gbnf, sizeof gbnf, &glen, &err) == XLARUN_OK);
                    CHECKF(xlarun_grammar_compile(gbnf, glen, &gr, &err) == XLARUN_OK, "%s", err.message);
                    CHECKF(xlarun_matcher_create(gr, &one, &one_len, 1, NULL, &mt, &err) == XLARUN_OK, "case %lu: %s", (unsigned long)q, err.message);
                    CHECKF(xlarun_matcher_accept_bytes(mt, ft[q].ok, strlen(ft[q].ok), &err) == XLARUN_OK, "case %lu: '%s'", (unsigned long)q, ft[q].ok);
                    CHECKF(xlarun_matcher_accept_bytes(mt, ft[q].refused, ft[q].refused[0] ? strlen(ft[q].refused) : 1, &err) != XLARUN_OK,
                           "case %lu: '%s' then '%s' accepted", (unsigned long)q, ft[q].ok, ft[q].refused);
                    xlarun_matcher_free(mt);
                    xlarun_grammar_free(gr);
                    gr = NULL;
                }
                CHECK(xlarun_tool_grammar(XLARUN_TOOLS_HERMES, "[{\"name\": \"f\"}, {\"type\": \"code_interpreter\"}]", 45, NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
                CHECK_CONTAINS(err.message, "tools[1]: a code_interpreter tool has no call form in the hermes format");
                CHECK(xlarun_tool_grammar(XLARUN_TOOLS_FUNCTIONARY_V3_2, "[]", 2, NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
                CHECK_CONTAINS(err.message, "tools: the array holds no tool");
            }
            {   /* tool names that <function=NAME> or a recipient line cannot carry */
                static const struct { xlarun_tool_format f; const char *tools, *msg; } nb[] = {
                    {XLARUN_TOOLS_QWEN3_CODER, "[{\"name\": \"a>b\"}]", "tools[0]: the name 'a>b' holds '>' or starts or ends with a space"},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "[{\"name\": \"f\"}, {\"name\": \" g\"}]", "tools[1]: the name ' g' holds '>' or starts or ends"},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "[{\"name\": \"get weather\"}]", "the name 'get weather' holds a character other than letters"},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "[{\"name\": \"all\"}]", "tools[0]: the name 'all' is the recipient of the content"},
                    /* found by fuzz_schema's sentences: Mistral's NAME ends at '[', DeepSeek's name line is trimmed */
                    {XLARUN_TOOLS_MISTRAL, "[{\"name\": \"a[b\"}]", "the name 'a[b' holds '[' or starts or ends with a space, which NAME[ARGS] cannot carry"},
                    {XLARUN_TOOLS_DEEPSEEK_R1, "[{\"name\": \"a \"}]", "the name 'a ' starts or ends with a space, which DeepSeek's NAME line"}};
                size_t q;
                for (q = 0; q < sizeof nb / sizeof nb[0]; q++) {
                    CHECK(xlarun_tool_grammar(nb[q].f, nb[q].tools, strlen(nb[q].tools), NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
                    CHECKF(strstr(err.message, nb[q].msg) != NULL, "%s: %s", nb[q].tools, err.message);
                }
                CHECK(xlarun_tool_grammar(XLARUN_TOOLS_HERMES, "[{\"name\": \"a>b all\"}]", 21, NULL, 0, &glen, &err) == XLARUN_OK);
            }
            {   /* reasoning, as xlarun_reply_parse reads it: a reply that opens with <think> is reasoning up to
                   </think> (a marker inside it is text: no call is forced there, none is lost), the text
                   before a first </think> and no call is the reasoning the prompt opened, then the reply's
                   body (for Llama 3 a call too); a <think> later on is text. Each reply is a whole
                   sentence of the grammar and reads back with its calls; then replies it refuses. */
                static const struct { xlarun_tool_format f; const char *text, *reasoning; size_t calls; } rs[] = {
                    {XLARUN_TOOLS_HERMES, "<think>\nI will write <tool_call> next.\n</think>\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
                     "I will write <tool_call> next.", 1},
                    {XLARUN_TOOLS_HERMES, "<think>cut short: <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>", "cut short: <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>", 0},
                    {XLARUN_TOOLS_HERMES, "The prompt opened it.</think>\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>", "The prompt opened it.", 1},
                    {XLARUN_TOOLS_HERMES, "Say <think> or </think> to me. <think>", "Say <think> or", 0},
                    {XLARUN_TOOLS_HERMES, "Hi <think>", NULL, 0},
                    {XLARUN_TOOLS_PHI4, "\t <think>a <|tool_call|>", "a <|tool_call|>", 0},
                    {XLARUN_TOOLS_LLAMA3, "Thought.</think>\n\n{\"name\": \"f\", \"parameters\": {}}", "Thought.", 1},
                    {XLARUN_TOOLS_LLAMA3, " \n<think>{\"name\": \"f\", \"parameters\": {}}</think>{\"name\": \"f\", \"parameters\": {}}", "{\"name\": \"f\", \"parameters\": {}}", 1},
                    {XLARUN_TOOLS_LLAMA3, "<thought>", NULL, 0},
                    {XLARUN_TOOLS_LLAMA3, "\nOkay.\n</think>\n\n{\"name\": \"f\", \"parameters\": {}}", "Okay.", 1},
                    {XLARUN_TOOLS_LLAMA3, " \n{\"name\": \"f\", \"parameters\": {}}", NULL, 1},
                    {XLARUN_TOOLS_DEEPSEEK_R1, "Okay.\n</think>\n\n<\xEF\xBD\x9Ctool\xE2\x96\x81" "calls\xE2\x96\x81" "begin\xEF\xBD\x9C><\xEF\xBD\x9Ctool\xE2\x96\x81" "call\xE2\x96\x81"
                     "begin\xEF\xBD\x9C>function<\xEF\xBD\x9Ctool\xE2\x96\x81" "sep\xEF\xBD\x9C>f\n```json\n{}\n```<\xEF\xBD\x9Ctool\xE2\x96\x81" "call\xE2\x96\x81" "end\xEF\xBD\x9C>", "Okay.", 1},
                    {XLARUN_TOOLS_QWEN3_CODER, "<think>\n<tool_call> is how.\n</think>\n\n<tool_call>\n<function=f>\n</function>\n</tool_call>", "<tool_call> is how.", 1},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<think>ok</think><function=f>{}</function>", "ok", 1},
                    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "<think>ok</think>f\n{}", "ok", 1}};
                static const struct { xlarun_tool_format f; const char *ok, *refused; } rr[] = {
                    {XLARUN_TOOLS_HERMES, "a</think>\n<tool_call>", "x"}, /* a call after the reasoning */
                    {XLARUN_TOOLS_LLAMA3, "a</think> ", "{}"},            /* not a call */
                    {XLARUN_TOOLS_LLAMA3, "a</think>b<|python_tag|", ">"}};
                const char *one = "x";
                size_t one_len = 1, q, c;
                for (q = 0; q < sizeof rs / sizeof rs[0] + sizeof rr / sizeof rr[0]; q++) {
                    int sentence = q < sizeof rs / sizeof rs[0];
                    xlarun_tool_format fq = sentence ? rs[q].f : rr[q - sizeof rs / sizeof rs[0]].f;
                    const char *text = sentence ? rs[q].text : rr[q - sizeof rs / sizeof rs[0]].ok;
                    xlarun_matcher *mt = NULL;
                    xlarun_reply rp;
                    CHECK(xlarun_tool_grammar(fq, "[{\"name\": \"f\"}]", 15, gbnf, sizeof gbnf, &glen, &err) == XLARUN_OK);
                    CHECKF(xlarun_grammar_compile(gbnf, glen, &gr, &err) == XLARUN_OK, "%s", err.message);
                    CHECKF(xlarun_matcher_create(gr, &one, &one_len, 1, NULL, &mt, &err) == XLARUN_OK, "%s", err.message);
                    CHECKF(xlarun_matcher_accept_bytes(mt, text, strlen(text), &err) == XLARUN_OK, "reasoning case %lu: '%s' refused", (unsigned long)q, text);
                    if (sentence) {
                        CHECKF(xlarun_matcher_complete(mt), "reasoning case %lu: '%s' is not a whole reply", (unsigned long)q, text);
                        CHECK(xlarun_reply_parse(fq, text, strlen(text), "[{\"name\": \"f\"}]", 15, rmem, sizeof rmem, &rp, &err) == XLARUN_OK);
                        CHECKF(rp.n_calls == rs[q].calls, "reasoning case %lu: %lu calls", (unsigned long)q, (unsigned long)rp.n_calls);
                        for (c = 0; c < rp.n_calls; c++) CHECK(!strcmp(rp.calls[c].name, "f") && !strcmp(rp.calls[c].arguments, "{}"));
                        CHECKF(rs[q].reasoning ? rp.reasoning && !strcmp(rp.reasoning, rs[q].reasoning) : !rp.reasoning,
                               "reasoning case %lu: reasoning '%s'", (unsigned long)q, rp.reasoning ? rp.reasoning : "(none)");
                    } else {
                        const char *no = rr[q - sizeof rs / sizeof rs[0]].refused;
                        CHECKF(xlarun_matcher_accept_bytes(mt, no, strlen(no), &err) != XLARUN_OK, "reasoning case %lu: '%s' then '%s' accepted", (unsigned long)q, text, no);
                    }
                    xlarun_matcher_free(mt);
                    xlarun_grammar_free(gr);
                    gr = NULL;
                }
            }
            /* control characters: in a name no reply can carry them (refused, every format); in a key or
               an enum string they are written as \xHH (found by fuzz_schema: a raw \r ended the rule) */
            {
                const char *cn = "[{\"name\": \"f\\r\"}]";
                const char *ck = "[{\"name\": \"f\", \"parameters\": {\"properties\": {\"a\\tb\": {\"type\": \"string\", \"enum\": [\"x\\ry\"]}}}}]";
                size_t fm;
                for (fm = 1; fm <= (size_t)XLARUN_TOOLS_FUNCTIONARY_V3_2; fm++) {
                    CHECK(xlarun_tool_grammar((xlarun_tool_format)fm, cn, strlen(cn), NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
                    CHECK_CONTAINS(err.message, "tools[0]: the name holds a control character");
                }
                CHECK(xlarun_tool_grammar(XLARUN_TOOLS_QWEN3_CODER, ck, strlen(ck), gb, sizeof gb, &glen, &err) == XLARUN_OK);
                CHECKF(strstr(gb, "\"<parameter=a\\x09b>\\n\" (\"x\\x0Dy\")") != NULL, "grammar: %.300s", gb);
                CHECKF(xlarun_grammar_compile(gb, glen, &gr, &err) == XLARUN_OK, "%s", err.message);
                xlarun_grammar_free(gr);
            }
            {   /* a parameter name, or an enum string, over 1023 bytes */
                static char big[4096];
                char a[1101];
                memset(a, 'a', 1100);
                a[1100] = 0;
                snprintf(big, sizeof big, "[{\"name\": \"f\", \"parameters\": {\"properties\": {\"%s\": {\"type\": \"string\"}}}}]", a);
                CHECK(xlarun_tool_grammar(XLARUN_TOOLS_QWEN3_CODER, big, strlen(big), NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
                CHECK_CONTAINS(err.message, "tool 'f': a parameter name is empty or over 1023 bytes");
                snprintf(big, sizeof big, "[{\"name\": \"f\", \"parameters\": {\"properties\": {\"u\": {\"type\": \"string\", \"enum\": [\"%s\"]}}}}]", a);
                CHECK(xlarun_tool_grammar(XLARUN_TOOLS_QWEN3_CODER, big, strlen(big), NULL, 0, &glen, &err) == XLARUN_ERR_GRAMMAR);
                CHECK_CONTAINS(err.message, "tool 'f': an enum string of 'u' is over 1023 bytes");
            }
        }
    }
}

/* the tool-call replies that real chat templates rendered (tests/fixtures/toolcalls, by
   transformers 5.24.0) are sentences of their format's tool grammar for the fixture's tools (with
   Functionary's code interpreter for its formats); the ones that call a tool not offered (Llama
   3's built-in brave_search) are not */
static const char *FIXTURE_TOOLS =
    "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\", \"properties\": {"
    "\"location\": {\"type\": \"string\"}, \"unit\": {\"type\": \"string\", \"enum\": [\"celsius\", \"fahrenheit\"]}}, \"required\": [\"location\"]}}},"
    " {\"type\": \"function\", \"function\": {\"name\": \"get_time\", \"parameters\": {\"type\": \"object\", \"properties\": {"
    "\"timezone\": {\"type\": \"string\"}}, \"required\": [\"timezone\"]}}},"
    " {\"type\": \"function\", \"function\": {\"name\": \"search\", \"parameters\": {\"type\": \"object\", \"properties\": {"
    "\"query\": {\"type\": \"string\"}, \"limit\": {\"type\": \"integer\"}, \"ratio\": {\"type\": \"number\"}, \"flags\": {\"type\": \"array\"},"
    " \"opts\": {\"type\": \"object\"}}, \"required\": [\"query\"]}}}]";

static int hexval(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

static void test_tool_grammar_fixtures(void) {
    char *all = read_file("tests/fixtures/toolcalls/cases.txt", NULL), *p, *line, fmt[32] = "";
    static char gbnf[65536], text[16384], tools[4096];
    int accepted = 0, refused = 0;
    const char *one = "x";
    size_t one_len = 1;
    xlarun_error err;
    CHECKF(all != NULL, "tests/fixtures/toolcalls/cases.txt is missing");
    if (!all) return;
    for (p = all; (line = p) != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t n = 0, k, f;
        xlarun_grammar *g = NULL;
        xlarun_matcher *m = NULL;
        int ok, builtin;
        const size_t n_fmt = (size_t)XLARUN_TOOLS_FUNCTIONARY_V3_2 + 1;
        if (!strncmp(line, "format ", 7)) { sscanf(line + 7, "%31s", fmt); continue; }
        if (strncmp(line, "output ", 7)) continue;
        for (k = 7; hexval(line[k]) >= 0 && hexval(line[k + 1]) >= 0 && n < sizeof text; k += 2)
            text[n++] = (char)(hexval(line[k]) * 16 + hexval(line[k + 1]));
        for (f = 1; f < n_fmt && strcmp(fmt, xlarun_tool_format_name((xlarun_tool_format)f)); f++) {}
        if (f == n_fmt) { CHECKF(0, "unknown format '%s'", fmt); continue; }
        if (f == (size_t)XLARUN_TOOLS_FUNCTIONARY_V3_1 || f == (size_t)XLARUN_TOOLS_FUNCTIONARY_V3_2) /* with the code interpreter */
            snprintf(tools, sizeof tools, "[{\"type\": \"code_interpreter\"}, %s", FIXTURE_TOOLS + 1);
        else
            snprintf(tools, sizeof tools, "%s", FIXTURE_TOOLS);
        CHECK(xlarun_tool_grammar((xlarun_tool_format)f, tools, strlen(tools), gbnf, sizeof gbnf, &k, &err) == XLARUN_OK);
        if (xlarun_grammar_compile(gbnf, k, &g, &err) != XLARUN_OK ||
            xlarun_matcher_create(g, &one, &one_len, 1, NULL, &m, &err) != XLARUN_OK) {
            CHECKF(0, "%s: %s", fmt, err.message);
            xlarun_grammar_free(g);
            continue;
        }
        ok = xlarun_matcher_accept_bytes(m, text, n, &err) == XLARUN_OK && xlarun_matcher_complete(m);
        /* Llama 3's built-in brave_search, no tool of the grammar's: 3.2's JSON call of it and 3.1's
           <|python_tag|>brave_search.call(..) (free text never holds <|python_tag|>) */
        builtin = strstr(text, "brave_search") != NULL;
        CHECKF(ok != builtin, "%s: the rendered reply '%.*s' is %s the grammar", fmt, (int)n, text, ok ? "a sentence of" : "refused by");
        if (ok) accepted++; else refused++;
        xlarun_matcher_free(m);
        xlarun_grammar_free(g);
    }
    CHECKF(accepted == 75 && refused == 2, "%d rendered replies accepted, %d refused", accepted, refused);
    free(all);
}

int main(int argc, char **argv) {
    static const struct { const char *name; void (*run)(void); } cases[] = {
        {"sampling check", test_sampling_check}, {"sampler", test_sampler}, {"sampling fixture", test_sampling_fixture},
        {"sampling large", test_sampling_large}, {"sampler structured", test_sampler_structured},
        {"generation_config", test_generation_config}, {"stopper", test_stopper}, {"generate demo", test_generate_demo},
        {"generate ring", test_generate_ring}, {"generate longrope", test_generate_longrope},
        {"generate ids only", test_generate_ids_only}, {"generate grammar", test_generate_grammar},
        {"tool grammar", test_tool_grammar}, {"tool grammar fixtures", test_tool_grammar_fixtures}};
    size_t i;
    test_init(argc, argv);
    for (i = 0; i < sizeof cases / sizeof *cases; i++)
        if (test_case("%s", cases[i].name)) cases[i].run();
    return test_report("generate");
}
