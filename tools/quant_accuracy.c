/* tools/quant_accuracy.c - build/quant_accuracy MODEL_A MODEL_B [--oracle FILE]... [-t N]

   How far a quantized model is from its source: both models are run teacher-forced along the
   same token sequences (each oracle's prompt followed by its greedy ids, as in
   tests/fixtures/<name>/oracle.safetensors), and at every position the next-token
   distributions P_a, P_b are compared. Prints, per sequence and overall:
     top-1 agreement  the fraction of positions where both models' argmax ids agree
     mean KL          the mean over positions of KL(P_a || P_b) in nats (double precision)
     max KL           the worst position
   Sequences: each --oracle FILE; without any, MODEL_A/oracle.safetensors when it exists, else
   the four bf16 fixture oracles under tests/fixtures (run from the repository root). Ids at or
   past either model's vocabulary are dropped. On error: `xlarun: error: <message>`, exit 1. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#define MAX_SEQ 1024

static size_t file_read(void *user, void *buf, size_t n) {
    size_t r = fread(buf, 1, n, (FILE *)user);
    return r == 0 && ferror((FILE *)user) ? (size_t)-1 : r;
}

static int fail(const char *msg) {
    fprintf(stderr, "xlarun: error: %s\n", msg);
    return 1;
}

/* prompt + greedy[0..n-2] of an oracle file: the inputs of a teacher-forced run */
static int load_seq(const char *path, int32_t *ids, size_t *n, xlarun_error *err) {
    FILE *f = fopen(path, "rb");
    xlarun_st_reader r;
    const xlarun_st_tensor *t;
    void *mem = NULL;
    int32_t greedy[MAX_SEQ];
    size_t np = 0, ng = 0, got;
    xlarun_status st;
    *n = 0;
    if (!f) { snprintf(err->message, sizeof err->message, "%s: cannot open", path); return 0; }
    st = xlarun_st_begin(&r, file_read, f, path, 0, err);
    if (st == XLARUN_OK && !(mem = malloc(xlarun_st_memory(&r)))) st = XLARUN_ERR_MEMORY;
    if (st == XLARUN_OK) st = xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), err);
    while (st == XLARUN_OK && (st = xlarun_st_next(&r, &t, err)) == XLARUN_OK && t) {
        if (t->dtype != XLARUN_DTYPE_I32 || t->ndim != 1 || t->shape[0] > MAX_SEQ / 2) continue;
        if (!strcmp(t->name, "prompt")) { np = (size_t)t->shape[0]; st = xlarun_st_read(&r, ids, (size_t)t->nbytes, &got, err); }
        if (!strcmp(t->name, "greedy")) { ng = (size_t)t->shape[0]; st = xlarun_st_read(&r, greedy, (size_t)t->nbytes, &got, err); }
    }
    free(mem);
    fclose(f);
    if (st != XLARUN_OK) return 0;
    if (!np) { snprintf(err->message, sizeof err->message, "%s: no I32 'prompt' tensor", path); return 0; }
    if (ng) memcpy(ids + np, greedy, (ng - 1) * sizeof(int32_t));
    *n = np + (ng ? ng - 1 : 0);
    return 1;
}

typedef struct runner { xlarun_model *m; xlarun_session *s; size_t V; } runner;

static int open_runner(const char *dir, uint32_t threads, runner *r, xlarun_error *err) {
    xlarun_session_options so;
    memset(r, 0, sizeof *r);
    memset(&so, 0, sizeof so);
    so.n_threads = threads;
    if (xlarun_model_open(dir, NULL, &r->m, err) != XLARUN_OK) return 0;
    so.n_ctx = MAX_SEQ;
    if (xlarun_session_create(r->m, &so, &r->s, err) != XLARUN_OK) return 0;
    r->V = xlarun_model_config(r->m)->vocab_size;
    return 1;
}

/* log-softmax in double */
static void log_probs(const float *x, size_t V, double *out) {
    double m = x[0], z = 0.0;
    size_t k;
    for (k = 1; k < V; k++) if (x[k] > m) m = x[k];
    for (k = 0; k < V; k++) z += exp((double)x[k] - m);
    z = log(z);
    for (k = 0; k < V; k++) out[k] = (double)x[k] - m - z;
}

int main(int argc, char **argv) {
    const char *a = NULL, *b = NULL, *oracles[64];
    static const char *defaults[4] = {"tests/fixtures/llama32-bf16/oracle.safetensors", "tests/fixtures/llama2-bf16/oracle.safetensors",
                                      "tests/fixtures/mqa-bf16/oracle.safetensors", "tests/fixtures/odd-bf16/oracle.safetensors"};
    char own[4200];
    int n_or = 0, i;
    uint32_t threads = 2;
    runner ra, rb;
    xlarun_error err;
    double *la, *lb, tot_kl = 0.0, worst = 0.0;
    size_t tot_pos = 0, tot_agree = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--oracle") && i + 1 < argc) { if (n_or < 64) oracles[n_or++] = argv[++i]; }
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) threads = (uint32_t)atoi(argv[++i]);
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: quant_accuracy MODEL_A MODEL_B [--oracle FILE]... [-t THREADS]\n");
            return 1;
        } else if (!a) a = argv[i];
        else if (!b) b = argv[i];
    }
    if (!a || !b) { fprintf(stderr, "usage: quant_accuracy MODEL_A MODEL_B [--oracle FILE]... [-t THREADS]\n"); return 1; }
    if (!n_or) {
        snprintf(own, sizeof own, "%s/oracle.safetensors", a);
        if (access(own, R_OK) == 0) oracles[n_or++] = own;
        else for (i = 0; i < 4; i++) oracles[n_or++] = defaults[i];
    }
    if (!open_runner(a, threads, &ra, &err) || !open_runner(b, threads, &rb, &err)) return fail(err.message);
    if (ra.V != rb.V) return fail("the two models have different vocabulary sizes");
    la = (double *)malloc(ra.V * sizeof(double));
    lb = (double *)malloc(ra.V * sizeof(double));
    printf("A: %s\nB: %s\n", a, b);
    for (i = 0; i < n_or; i++) {
        int32_t ids[MAX_SEQ];
        size_t n, j, k, m = 0, agree = 0;
        double kl = 0.0, wkl = 0.0;
        if (!load_seq(oracles[i], ids, &n, &err)) return fail(err.message);
        for (j = 0; j < n; j++) /* drop ids outside the vocabulary */
            if (ids[j] >= 0 && (size_t)ids[j] < ra.V) ids[m++] = ids[j];
        xlarun_session_reset(ra.s);
        xlarun_session_reset(rb.s);
        for (j = 0; j < m; j++) {
            const float *xa, *xb;
            double d = 0.0;
            if (xlarun_session_decode(ra.s, ids[j], &err) != XLARUN_OK || xlarun_session_decode(rb.s, ids[j], &err) != XLARUN_OK)
                return fail(err.message);
            xa = xlarun_session_logits(ra.s);
            xb = xlarun_session_logits(rb.s);
            log_probs(xa, ra.V, la);
            log_probs(xb, ra.V, lb);
            for (k = 0; k < ra.V; k++) d += exp(la[k]) * (la[k] - lb[k]);
            kl += d;
            if (d > wkl) wkl = d;
            agree += xlarun_argmax(xa, ra.V) == xlarun_argmax(xb, ra.V);
        }
        printf("  %-56s %4lu positions  top-1 %6.2f%%  mean KL %.3e  max KL %.3e\n", oracles[i], (unsigned long)m,
               m ? 100.0 * (double)agree / (double)m : 0.0, m ? kl / (double)m : 0.0, wkl);
        tot_pos += m;
        tot_agree += agree;
        tot_kl += kl;
        if (wkl > worst) worst = wkl;
    }
    printf("all: %lu positions  top-1 agreement %.2f%%  mean KL(P_A || P_B) %.3e nats  max %.3e\n", (unsigned long)tot_pos,
           tot_pos ? 100.0 * (double)tot_agree / (double)tot_pos : 0.0, tot_pos ? tot_kl / (double)tot_pos : 0.0, worst);
    free(la);
    free(lb);
    xlarun_session_free(ra.s);
    xlarun_session_free(rb.s);
    xlarun_model_close(ra.m);
    xlarun_model_close(rb.m);
    return 0;
}
