/* gen - generate with xlarun from a Hugging Face checkpoint folder.

     build/gen -m DIR --ids 128000,9906,1917 -n 48 --temp 0 --print-ids -t 2 -c 512

   Prints the generated ids (not the prompt), space-separated, on one stdout line; load time,
   prefill and decode speed, memory and mapped bytes go to stderr. Every error is one line
   "xlarun: error: <message>" on stderr and exit status 1. */
#define _POSIX_C_SOURCE 199309L
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *msg) {
    fprintf(stderr, "xlarun: error: %s\n", msg);
    return 1;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: gen -m DIR --ids ID,ID,... [options]\n"
            "\n"
            "  -m, --model DIR      Hugging Face checkpoint folder (config.json + *.safetensors)\n"
            "      --ids LIST       prompt as comma-separated token ids\n"
            "  -n, --n-predict N    tokens to generate (default 32)\n"
            "      --temp T         sampling temperature; 0 = greedy (this version: greedy only)\n"
            "      --print-ids      print the generated token ids (the output of this version)\n"
            "      --ignore-eos     keep generating past end-of-sequence tokens\n"
            "  -t, --threads N      threads (default 1)\n"
            "  -c, --ctx-size N     context length in tokens (default: prompt + n)\n"
            "  -b, --batch-size N   prefill chunk in tokens (default 64)\n"
            "      --no-mmap        read the weights into memory instead of mapping the files\n"
            "  -h, --help           this text\n");
}

/* a whole non-negative decimal number, at most max */
static int parse_uint(const char *s, unsigned long max, unsigned long *out) {
    char *end;
    unsigned long v;
    if (!s || *s < '0' || *s > '9') return 0;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || *end || v > max) return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv) {
    const char *dir = NULL, *ids_arg = NULL;
    unsigned long n_predict = 32, threads = 1, ctx = 0, batch = 0, v;
    int print_ids = 0, ignore_eos = 0, no_mmap = 0, i;
    double temp = 0.0;
    int32_t *prompt = NULL;
    size_t n_prompt = 0, n_gen = 0, model_bytes = 0, session_bytes = 0;
    xlarun_model_options mo;
    xlarun_session_options so;
    xlarun_model *model = NULL;
    xlarun_session *sess = NULL;
    xlarun_error err;
    double t0, t1, t2, t3;
    char msg[600];
    int rc = 1;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!val) { snprintf(msg, sizeof msg, "%s needs a value", a); return fail(msg); } i++; } while (0)
#define BAD_VALUE() do { snprintf(msg, sizeof msg, "invalid value for %s: '%s'", a, val); return fail(msg); } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "-m") || !strcmp(a, "--model")) { NEED_VALUE(); dir = val; }
        else if (!strcmp(a, "--ids")) { NEED_VALUE(); ids_arg = val; }
        else if (!strcmp(a, "-n") || !strcmp(a, "--n-predict")) { NEED_VALUE(); if (!parse_uint(val, 1u << 24, &n_predict)) BAD_VALUE(); }
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) { NEED_VALUE(); if (!parse_uint(val, 512, &threads) || !threads) BAD_VALUE(); }
        else if (!strcmp(a, "-c") || !strcmp(a, "--ctx-size")) { NEED_VALUE(); if (!parse_uint(val, 1u << 24, &ctx)) BAD_VALUE(); }
        else if (!strcmp(a, "-b") || !strcmp(a, "--batch-size")) { NEED_VALUE(); if (!parse_uint(val, 65536, &batch) || !batch) BAD_VALUE(); }
        else if (!strcmp(a, "--temp")) {
            char *end;
            NEED_VALUE();
            temp = strtod(val, &end);
            if (*end || end == val || temp != temp) BAD_VALUE();
        }
        else if (!strcmp(a, "--print-ids")) print_ids = 1;
        else if (!strcmp(a, "--ignore-eos")) ignore_eos = 1;
        else if (!strcmp(a, "--no-mmap")) no_mmap = 1;
        else {
            snprintf(msg, sizeof msg, "unknown option '%s' (see --help)", a);
            return fail(msg);
        }
    }
    if (!dir) return fail("no model folder: give -m DIR (see --help)");
    if (!ids_arg) return fail("no prompt: give --ids ID,ID,... (text prompts need the tokenizer, not in this version)");
    if (temp != 0.0) return fail("only --temp 0 (greedy) is available in this version");
    (void)print_ids; /* ids are this version's only output */

    /* the prompt ids */
    {
        const char *p = ids_arg;
        size_t cap = 1;
        for (; *p; p++) cap += *p == ',';
        prompt = (int32_t *)malloc(cap * sizeof *prompt);
        if (!prompt) return fail("out of memory");
        p = ids_arg;
        while (*p) {
            char tok[32];
            size_t k = strcspn(p, ",");
            if (k == 0 || k >= sizeof tok) { free(prompt); snprintf(msg, sizeof msg, "invalid --ids list '%s'", ids_arg); return fail(msg); }
            memcpy(tok, p, k);
            tok[k] = 0;
            if (!parse_uint(tok, 0x7fffffff, &v)) { free(prompt); snprintf(msg, sizeof msg, "invalid token id '%s' in --ids", tok); return fail(msg); }
            prompt[n_prompt++] = (int32_t)v;
            p += k;
            if (*p == ',') { p++; if (!*p) { free(prompt); snprintf(msg, sizeof msg, "invalid --ids list '%s'", ids_arg); return fail(msg); } }
        }
        if (n_prompt == 0) { free(prompt); return fail("--ids is empty"); }
    }

    t0 = now();
    memset(&mo, 0, sizeof mo);
    mo.no_mmap = no_mmap;
    if (xlarun_model_open(dir, &mo, &model, &err) != XLARUN_OK) goto error;
    if (xlarun_model_memory(dir, &mo, &model_bytes, &err) != XLARUN_OK) goto error;
    memset(&so, 0, sizeof so);
    so.n_ctx = (uint32_t)(ctx ? ctx : n_prompt + n_predict);
    so.n_batch = (uint32_t)batch;
    so.n_threads = (uint32_t)threads;
    if (xlarun_session_memory(model, &so, &session_bytes, &err) != XLARUN_OK) goto error;
    if (xlarun_session_create(model, &so, &sess, &err) != XLARUN_OK) goto error;
    t1 = now();
    if (xlarun_session_prefill(sess, prompt, n_prompt, &err) != XLARUN_OK) goto error;
    t2 = now();
    while (n_gen < n_predict) {
        int32_t next = xlarun_session_argmax(sess);
        const xlarun_config *c = xlarun_model_config(model);
        uint32_t e;
        int eos = 0;
        printf(n_gen ? " %d" : "%d", (int)next);
        fflush(stdout);
        n_gen++;
        for (e = 0; e < c->n_eos; e++) eos |= next == c->eos_token_ids[e];
        if ((eos && !ignore_eos) || n_gen == n_predict) break;
        if (xlarun_session_decode(sess, next, &err) != XLARUN_OK) { printf("\n"); goto error; }
    }
    printf("\n");
    t3 = now();
    fprintf(stderr, "load: %.3f s\n", t1 - t0);
    fprintf(stderr, "prefill: %lu tokens, %.3f s, %.2f tok/s\n", (unsigned long)n_prompt, t2 - t1,
            (double)n_prompt / (t2 - t1));
    fprintf(stderr, "decode: %lu tokens, %.3f s, %.2f tok/s\n", (unsigned long)(n_gen ? n_gen - 1 : 0), t3 - t2,
            n_gen > 1 ? (double)(n_gen - 1) / (t3 - t2) : 0.0);
    fprintf(stderr, "arena: %lu bytes (model %lu, session %lu)\n", (unsigned long)(model_bytes + session_bytes),
            (unsigned long)model_bytes, (unsigned long)session_bytes);
    fprintf(stderr, "mapped: %llu bytes\n", (unsigned long long)xlarun_model_mapped_bytes(model));
    rc = 0;
    goto done;
error:
    rc = fail(err.message);
done:
    xlarun_session_free(sess);
    xlarun_model_close(model);
    free(prompt);
    return rc;
}
