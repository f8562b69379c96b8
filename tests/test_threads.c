/* test_threads.c - one model shared by two sessions used from two threads at once, each session
   with its own pool of n_threads 2, built with ThreadSanitizer by tests/run.sh (clang
   -fsanitize=thread): a data race anywhere (the shared model, the pools, the kernels) fails the
   run. The threaded results must also equal a serial run of the same sessions, bit for bit (the
   determinism contract), and a shared tokenizer encodes and decodes on both threads.
   Run from the repository root. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include "test.h"

#define FIX "tests/fixtures/"
#define N_PROMPT 12
#define N_GEN 16

typedef struct job {
    const xlarun_model *m;
    const xlarun_tokenizer *tok;
    uint32_t n_threads;
    int32_t first;             /* the prompt: first, first+7, ... */
    int32_t out[N_GEN];        /* greedy ids */
    float last[8];             /* the first logits after the last token */
    char text[256];            /* the decoded ids */
    size_t n_ids;
    xlarun_status st;
    char msg[1024];            /* xlarun_error.message */
} job;

static void *run_job(void *arg) {
    job *j = (job *)arg;
    xlarun_session_options so;
    xlarun_session *s = NULL;
    xlarun_error e;
    int32_t prompt[N_PROMPT], ids[64];
    size_t i, n = 0, len = 0;
    uint32_t v = xlarun_model_config(j->m)->vocab_size;
    memset(&so, 0, sizeof so);
    so.n_ctx = 64;
    so.n_batch = 5;            /* prefill in chunks of 5, 5, 2 */
    so.n_threads = j->n_threads;
    for (i = 0; i < N_PROMPT; i++) prompt[i] = (int32_t)((j->first + 7 * (int32_t)i) % (int32_t)v);
    j->st = xlarun_session_create(j->m, &so, &s, &e);
    if (j->st == XLARUN_OK) j->st = xlarun_session_prefill(s, prompt, N_PROMPT, &e);
    for (i = 0; j->st == XLARUN_OK && i < N_GEN; i++) {
        j->out[i] = xlarun_session_argmax(s);
        j->st = xlarun_session_decode(s, j->out[i], &e);
    }
    if (j->st == XLARUN_OK) memcpy(j->last, xlarun_session_logits(s), sizeof j->last);
    if (j->st == XLARUN_OK && j->tok) {
        j->st = xlarun_tokenizer_encode(j->tok, "Hello from a thread, 12345!", 27, 0, ids, 64, &n, NULL, 0, &e);
        j->n_ids = n;
        if (j->st == XLARUN_OK)
            j->st = xlarun_tokenizer_decode(j->tok, ids, n, 0, j->text, sizeof j->text, &len, &e);
    }
    if (j->st != XLARUN_OK) snprintf(j->msg, sizeof j->msg, "%s", e.message);
    xlarun_session_free(s);
    return NULL;
}

static void check_model(const char *dir, const xlarun_model_options *o, const xlarun_tokenizer *tok) {
    xlarun_model *m = NULL;
    xlarun_error e;
    job serial[2], par[2];
    pthread_t th[2];
    int k;
    if (xlarun_model_open(dir, o, &m, &e) != XLARUN_OK) { CHECKF(0, "%s: %s", dir, e.message); return; }
    memset(serial, 0, sizeof serial);
    for (k = 0; k < 2; k++) {
        serial[k].m = m;
        serial[k].tok = tok;
        serial[k].n_threads = 1;
        serial[k].first = 3 + 100 * k;
        par[k] = serial[k];
        par[k].n_threads = 2;
        run_job(&serial[k]);
        CHECKF(serial[k].st == XLARUN_OK, "%s serial %d: %s", dir, k, serial[k].msg);
    }
    for (k = 0; k < 2; k++) CHECK(pthread_create(&th[k], NULL, run_job, &par[k]) == 0);
    for (k = 0; k < 2; k++) pthread_join(th[k], NULL);
    for (k = 0; k < 2; k++) {
        CHECKF(par[k].st == XLARUN_OK, "%s thread %d: %s", dir, k, par[k].msg);
        CHECKF(!memcmp(par[k].out, serial[k].out, sizeof par[k].out), "%s thread %d: ids differ from the serial run", dir, k);
        CHECKF(!memcmp(par[k].last, serial[k].last, sizeof par[k].last), "%s thread %d: logits differ from the serial run", dir, k);
        if (tok) {
            CHECKF(par[k].n_ids == serial[k].n_ids && par[k].n_ids > 0, "%s thread %d: encode", dir, k);
            CHECK(!strcmp(par[k].text, "Hello from a thread, 12345!"));
        }
    }
    CHECK(memcmp(par[0].out, par[1].out, sizeof par[0].out) != 0 || par[0].first == par[1].first);
    xlarun_model_close(m);
}

int main(int argc, char **argv) {
    xlarun_model_options o;
    xlarun_tokenizer *tok = NULL;
    xlarun_error e;
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_init(argc, argv);
    memset(&o, 0, sizeof o);
    if (test_case("two threads demo")) { /* mapped bf16, with the tokenizer */
        if (xlarun_tokenizer_open(FIX "demo", NULL, &tok, &e) != XLARUN_OK) CHECKF(0, "%s", e.message);
        check_model(FIX "demo", &o, tok);
        xlarun_tokenizer_close(tok);
    }
    if (test_case("two threads llama32-f32")) check_model(FIX "llama32-f32", &o, NULL); /* mapped f32, tied embeddings */
    if (test_case("two threads odd-f16")) check_model(FIX "odd-f16", &o, NULL);         /* 3 KV heads on 2 threads: decode splits a head */
    o.no_mmap = 1;
    if (test_case("two threads llama2-f16 streamed")) check_model(FIX "llama2-f16", &o, NULL); /* streamed f16, untied */
    return test_report("threads");
}
