/* gen - generate with xlarun from a Hugging Face checkpoint folder.

     build/gen -m DIR -p "Once upon a time" -n 64
     build/gen -m DIR --chat -p "What is the capital of France?"
     build/gen -m DIR -i                       (interactive chat, one session for the whole talk)
     build/gen -m DIR --ids 128000,9906,1917 -n 48 --temp 0 --print-ids -t 2 -c 512

   Text streams to stdout as it is generated; load time, prefill and decode speed, memory and
   mapped bytes go to stderr. With --print-ids the generated ids (not the prompt) are printed,
   space-separated, on one stdout line instead. Every error is one line "xlarun: error: <message>"
   on stderr and exit status 1. */
#define _POSIX_C_SOURCE 200809L
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_WIN32)
#include <windows.h>
#include <shellapi.h>
#endif

static double now(void) {
#if defined(_WIN32)
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    return (double)c.QuadPart / (double)f.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

static int fail(const char *msg) {
    fprintf(stderr, "xlarun: error: %s\n", msg);
    return 1;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: gen -m DIR [-p PROMPT | -f FILE | --ids ID,...] [options]\n"
            "\n"
            "model and prompt:\n"
            "  -m, --model DIR          Hugging Face checkpoint folder (config.json, *.safetensors,\n"
            "                           tokenizer.json, tokenizer_config.json, generation_config.json)\n"
            "  -p, --prompt TEXT        prompt text\n"
            "  -f, --file FILE          read the prompt from a file\n"
            "      --ids LIST           prompt as comma-separated token ids (no tokenizer needed)\n"
            "      --no-special         special-token text in the prompt (\"<|eot_id|>\") stays text\n"
            "\n"
            "chat:\n"
            "      --chat               format -p as a user turn with the model's chat template\n"
            "  -i, --interactive        chat turn by turn, reading lines from stdin (end of input ends)\n"
            "      --system TEXT        system message (implies --chat)\n"
            "      --chat-template NAME use this format instead of the tokenizer's chat_template:\n"
            "                           llama3, llama3.1, llama3.2, llama2, zephyr, chatml, mistral,\n"
            "                           mistral-v3, mixtral, mistral-small, mistral-large, qwen3,\n"
            "                           gemma (Gemma 1/2: no system message), gemma3 (Gemma 3),\n"
            "                           phi3, phi3.5, phi3-medium, phi4-mini\n"
            "      --date DATE          the Llama 3.1/3.2 \"Today Date\" (e.g. \"26 Jul 2024\")\n"
            "      --no-think           Qwen3: enable_thinking=False (an empty <think> block opens the reply)\n"
            "\n"
            "generation (defaults: the model's generation_config.json, as transformers applies it):\n"
            "  -n, --n-predict N        tokens to generate (default: 128 for text, 32 for --ids;\n"
            "                           -1 = until end of text or the context is full)\n"
            "      --temp T             temperature; 0 = greedy\n"
            "      --top-k N            top-k sampling (0 = off)\n"
            "      --top-p P            top-p sampling (1.0 = off)\n"
            "      --min-p P            min-p sampling (0.0 = off)\n"
            "      --repeat-penalty R   repetition penalty over the whole context (1.0 = off)\n"
            "      --seed N             RNG seed (default: 0; the same seed gives the same text)\n"
            "      --stop STR           stop when STR appears (repeatable; STR is not printed)\n"
            "      --ignore-eos         keep generating past end-of-sequence tokens\n"
            "      --print-ids          print the generated token ids instead of text\n"
            "\n"
            "performance:\n"
            "  -t, --threads N          threads (default 1)\n"
            "  -c, --ctx-size N         context length in tokens (default: prompt + n for --ids,\n"
            "                           else min(4096, the model's max_position_embeddings))\n"
            "  -b, --batch-size N       prefill chunk in tokens (default 256)\n"
            "      --precision P        exact (default) or bf16: activations rounded to bf16 before\n"
            "                           products with bf16 weights (faster prefill, looser agreement)\n"
            "      --kv-type T          KV cache dtype: f32 (default), f16 or bf16 (half the memory)\n"
            "      --no-mmap            read the weights into memory instead of mapping the files\n"
            "  -h, --help               this text\n");
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

static int parse_double(const char *s, double *out) {
    char *end;
    double v;
    if (!s || !*s) return 0;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || v != v) return 0;
    *out = v;
    return 1;
}
static int parse_float(const char *s, float *out) {
    double v;
    if (!parse_double(s, &v)) return 0;
    *out = (float)v;
    return 1;
}

static char *read_text_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) return NULL;
    for (;;) {
        size_t r;
        if (n + 4096 + 1 > cap) {
            char *nb;
            cap = cap ? cap * 2 : 8192;
            nb = (char *)realloc(buf, cap);
            if (!nb) { free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        r = fread(buf + n, 1, 4096, f);
        n += r;
        if (r == 0) break;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

/* the streaming output: text to stdout as it comes, and the reply kept for the conversation */
typedef struct out_state {
    char *reply;
    size_t n, cap;
    size_t n_tokens;
    double t_first;
} out_state;

static int on_token(void *user, int32_t id, const char *text, size_t len) {
    out_state *o = (out_state *)user;
    if (id >= 0) {
        if (o->n_tokens == 0) o->t_first = now();
        o->n_tokens++;
    }
    if (len) {
        fwrite(text, 1, len, stdout);
        fflush(stdout);
        if (o->n + len + 1 > o->cap) {
            size_t cap = (o->n + len + 1) * 2;
            char *nb = (char *)realloc(o->reply, cap);
            if (!nb) return 1;
            o->reply = nb;
            o->cap = cap;
        }
        memcpy(o->reply + o->n, text, len);
        o->n += len;
        o->reply[o->n] = 0;
    }
    return 0;
}

typedef struct conversation {
    xlarun_chat_message *m;
    char **owned;
    size_t n, cap;
} conversation;

static int conv_add(conversation *c, const char *role, const char *content) {
    char *copy;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        xlarun_chat_message *m = (xlarun_chat_message *)realloc(c->m, cap * sizeof *m);
        char **o;
        if (!m) return 0;
        c->m = m;
        o = (char **)realloc(c->owned, cap * sizeof *o);
        if (!o) return 0;
        c->owned = o;
        c->cap = cap;
    }
    copy = (char *)malloc(strlen(content) + 1);
    if (!copy) return 0;
    strcpy(copy, content);
    c->m[c->n].role = role;
    c->m[c->n].content = copy;
    c->owned[c->n] = copy;
    c->n++;
    return 1;
}

static void conv_free(conversation *c) {
    size_t i;
    for (i = 0; i < c->n; i++) free(c->owned[i]);
    free(c->m);
    free(c->owned);
}

#if defined(_WIN32)
/* Windows gives main its arguments in the ANSI code page; the library reads UTF-8 (paths,
   prompts). Take the wide command line instead; the strings live as long as the process. */
static char **utf8_argv(int *argc) {
    int n = 0, i;
    LPWSTR *w = CommandLineToArgvW(GetCommandLineW(), &n);
    char **a = w ? (char **)calloc((size_t)n + 1, sizeof(char *)) : NULL;
    for (i = 0; a && i < n; i++) {
        int len = WideCharToMultiByte(CP_UTF8, 0, w[i], -1, NULL, 0, NULL, NULL);
        a[i] = len > 0 ? (char *)malloc((size_t)len) : NULL;
        if (!a[i] || WideCharToMultiByte(CP_UTF8, 0, w[i], -1, a[i], len, NULL, NULL) != len) a = NULL; /* keep argv */
    }
    if (w) LocalFree(w);
    if (a) *argc = n;
    return a;
}
#endif

int main(int argc, char **argv) {
    const char *dir = NULL, *ids_arg = NULL, *prompt_arg = NULL, *file_arg = NULL, *system_arg = NULL;
    const char *tmpl_name = NULL, *date_arg = NULL;
    const char *stops[XLARUN_MAX_STOP_STRINGS];
    size_t n_stops = 0;
    unsigned long threads = 1, ctx = 0, batch = 0, v;
    long n_predict = -2; /* -2: the default */
    int print_ids = 0, ignore_eos = 0, no_mmap = 0, chat = 0, interactive = 0, no_special = 0, no_think = 0, i;
    xlarun_precision precision = XLARUN_PRECISION_EXACT;
    xlarun_kv_type kv_type = XLARUN_KV_F32;
    int set_temp = 0, set_topk = 0, set_topp = 0, set_minp = 0, set_rep = 0, set_seed = 0;
    float temp = 0, min_p = 0, rep = 1;
    double top_p = 1; /* a double, as xlarun_sampling's: 1 - top_p is taken from the decimal */
    unsigned long top_k = 0, seed = 0;
    int32_t *prompt = NULL;
    char *prompt_text = NULL;
    size_t n_prompt = 0, n_gen = 0, n_rerun = 0, model_bytes = 0, session_bytes = 0, prompt_len = 0;
    xlarun_model_options mo;
    xlarun_session_options so;
    xlarun_generation_config gc;
    xlarun_model *model = NULL;
    xlarun_session *sess = NULL;
    xlarun_tokenizer *tok = NULL;
    xlarun_generator *gen = NULL;
    xlarun_sampler *smp = NULL;
    xlarun_error err;
    conversation conv;
    out_state out;
    double t0, t1, t2 = 0, t3;
    char msg[700];
    int rc = 1;

    memset(&conv, 0, sizeof conv);
    memset(&out, 0, sizeof out);
#if defined(_WIN32)
    {
        char **u = utf8_argv(&argc);
        if (u) argv = u;
        SetConsoleOutputCP(CP_UTF8); /* the replies are UTF-8 */
    }
#endif
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!val) { snprintf(msg, sizeof msg, "%s needs a value", a); return fail(msg); } i++; } while (0)
#define BAD_VALUE() do { snprintf(msg, sizeof msg, "invalid value for %s: '%s'", a, val); return fail(msg); } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "-m") || !strcmp(a, "--model")) { NEED_VALUE(); dir = val; }
        else if (!strcmp(a, "--ids")) { NEED_VALUE(); ids_arg = val; }
        else if (!strcmp(a, "-p") || !strcmp(a, "--prompt")) { NEED_VALUE(); prompt_arg = val; }
        else if (!strcmp(a, "-f") || !strcmp(a, "--file")) { NEED_VALUE(); file_arg = val; }
        else if (!strcmp(a, "--system")) { NEED_VALUE(); system_arg = val; chat = 1; }
        else if (!strcmp(a, "--chat-template")) { NEED_VALUE(); tmpl_name = val; }
        else if (!strcmp(a, "--date")) { NEED_VALUE(); date_arg = val; }
        else if (!strcmp(a, "--no-think")) { no_think = 1; chat = 1; }
        else if (!strcmp(a, "--stop")) {
            NEED_VALUE();
            if (n_stops == XLARUN_MAX_STOP_STRINGS) { snprintf(msg, sizeof msg, "at most %d --stop strings", XLARUN_MAX_STOP_STRINGS); return fail(msg); }
            stops[n_stops++] = val;
        }
        else if (!strcmp(a, "-n") || !strcmp(a, "--n-predict")) {
            NEED_VALUE();
            if (!strcmp(val, "-1")) n_predict = -1;
            else if (!parse_uint(val, 1u << 24, &v)) BAD_VALUE();
            else n_predict = (long)v;
        }
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) { NEED_VALUE(); if (!parse_uint(val, 512, &threads) || !threads) BAD_VALUE(); }
        else if (!strcmp(a, "-c") || !strcmp(a, "--ctx-size")) { NEED_VALUE(); if (!parse_uint(val, 1u << 24, &ctx)) BAD_VALUE(); }
        else if (!strcmp(a, "-b") || !strcmp(a, "--batch-size")) { NEED_VALUE(); if (!parse_uint(val, 65536, &batch) || !batch) BAD_VALUE(); }
        else if (!strcmp(a, "--precision")) {
            NEED_VALUE();
            if (!strcmp(val, "exact")) precision = XLARUN_PRECISION_EXACT;
            else if (!strcmp(val, "bf16")) precision = XLARUN_PRECISION_BF16_ACTIVATIONS;
            else BAD_VALUE();
        }
        else if (!strcmp(a, "--kv-type")) {
            NEED_VALUE();
            if (!strcmp(val, "f32")) kv_type = XLARUN_KV_F32;
            else if (!strcmp(val, "f16")) kv_type = XLARUN_KV_F16;
            else if (!strcmp(val, "bf16")) kv_type = XLARUN_KV_BF16;
            else BAD_VALUE();
        }
        else if (!strcmp(a, "--temp")) { NEED_VALUE(); if (!parse_float(val, &temp)) BAD_VALUE(); set_temp = 1; }
        else if (!strcmp(a, "--top-k")) { NEED_VALUE(); if (!parse_uint(val, 0x7fffffff, &top_k)) BAD_VALUE(); set_topk = 1; }
        else if (!strcmp(a, "--top-p")) { NEED_VALUE(); if (!parse_double(val, &top_p)) BAD_VALUE(); set_topp = 1; }
        else if (!strcmp(a, "--min-p")) { NEED_VALUE(); if (!parse_float(val, &min_p)) BAD_VALUE(); set_minp = 1; }
        else if (!strcmp(a, "--repeat-penalty")) { NEED_VALUE(); if (!parse_float(val, &rep)) BAD_VALUE(); set_rep = 1; }
        else if (!strcmp(a, "--seed")) { NEED_VALUE(); if (!parse_uint(val, 0xffffffffUL, &seed)) BAD_VALUE(); set_seed = 1; }
        else if (!strcmp(a, "--chat")) chat = 1;
        else if (!strcmp(a, "-i") || !strcmp(a, "--interactive")) interactive = 1;
        else if (!strcmp(a, "--no-special")) no_special = 1;
        else if (!strcmp(a, "--print-ids")) print_ids = 1;
        else if (!strcmp(a, "--ignore-eos")) ignore_eos = 1;
        else if (!strcmp(a, "--no-mmap")) no_mmap = 1;
        else {
            snprintf(msg, sizeof msg, "unknown option '%s' (see --help)", a);
            return fail(msg);
        }
    }
    if (!dir) return fail("no model folder: give -m DIR (see --help)");
    if ((ids_arg != NULL) + (prompt_arg != NULL) + (file_arg != NULL) > 1)
        return fail("give one prompt: -p TEXT, -f FILE or --ids LIST");
    if (!ids_arg && !prompt_arg && !file_arg && !interactive)
        return fail("no prompt: give -p TEXT, -f FILE, --ids LIST or -i (see --help)");
    if (ids_arg && (chat || interactive)) return fail("--ids cannot be combined with --chat, --system or -i (they need text)");
    if (print_ids && interactive) return fail("--print-ids cannot be combined with -i");
    if (n_stops && print_ids) return fail("--stop works on text; it cannot be combined with --print-ids");
    if (interactive) chat = 1;
    /* a chat prompt is template text with special tokens around the messages; keeping the
       messages' own special-token text literal needs them encoded apart, not done yet */
    if (no_special && chat) return fail("--no-special works on plain prompts (-p, -f); it cannot be combined with --chat, --system or -i yet");
    if (n_predict == -2) n_predict = ids_arg ? 32 : 128;

    /* the prompt ids */
    if (ids_arg) {
        const char *p = ids_arg;
        size_t cap = 1;
        for (; *p; p++) cap += *p == ',';
        prompt = (int32_t *)malloc(cap * sizeof *prompt);
        if (!prompt) return fail("out of memory");
        p = ids_arg;
        while (*p) {
            char tk[32];
            size_t k = strcspn(p, ",");
            if (k == 0 || k >= sizeof tk) { free(prompt); snprintf(msg, sizeof msg, "invalid --ids list '%s'", ids_arg); return fail(msg); }
            memcpy(tk, p, k);
            tk[k] = 0;
            if (!parse_uint(tk, 0x7fffffff, &v)) { free(prompt); snprintf(msg, sizeof msg, "invalid token id '%s' in --ids", tk); return fail(msg); }
            prompt[n_prompt++] = (int32_t)v;
            p += k;
            if (*p == ',') { p++; if (!*p) { free(prompt); snprintf(msg, sizeof msg, "invalid --ids list '%s'", ids_arg); return fail(msg); } }
        }
        if (n_prompt == 0) { free(prompt); return fail("--ids is empty"); }
    } else if (file_arg) {
        prompt_text = read_text_file(file_arg, &prompt_len);
        if (!prompt_text) { snprintf(msg, sizeof msg, "%s: cannot read the prompt file", file_arg); return fail(msg); }
    } else if (prompt_arg) {
        prompt_len = strlen(prompt_arg);
        prompt_text = (char *)malloc(prompt_len + 1);
        if (!prompt_text) return fail("out of memory");
        memcpy(prompt_text, prompt_arg, prompt_len + 1);
    }

    t0 = now();
    memset(&mo, 0, sizeof mo);
    mo.no_mmap = no_mmap;
    if (xlarun_model_open(dir, &mo, &model, &err) != XLARUN_OK) goto error;
    if (xlarun_model_memory(dir, &mo, &model_bytes, &err) != XLARUN_OK) goto error;
    /* sampling: generation_config.json, then the flags */
    if (xlarun_generation_config_load(model, dir, NULL, &gc, &err) != XLARUN_OK) goto error;
    if (set_temp) gc.sampling.temperature = temp;
    if (set_topk) gc.sampling.top_k = (int32_t)top_k;
    if (set_topp) gc.sampling.top_p = top_p;
    if (set_minp) gc.sampling.min_p = min_p;
    if (set_rep) gc.sampling.repetition_penalty = rep;
    if (set_seed) gc.sampling.seed = seed;
    if (xlarun_sampling_check(&gc.sampling, &err) != XLARUN_OK) goto error;
    /* the tokenizer, unless ids go in and ids come out */
    if (!(ids_arg && print_ids)) {
        xlarun_status st = xlarun_tokenizer_open(dir, NULL, &tok, &err);
        if (st == XLARUN_ERR_IO && ids_arg && !n_stops) print_ids = 1; /* no tokenizer: ids out, as before */
        else if (st != XLARUN_OK) goto error;
        else if (xlarun_tokenizer_check_model(tok, model, &err) != XLARUN_OK) goto error;
    }
    memset(&so, 0, sizeof so);
    so.n_ctx = (uint32_t)(ctx ? ctx : ids_arg ? n_prompt + (size_t)(n_predict > 0 ? n_predict : 0) : 0);
    so.n_batch = (uint32_t)batch;
    so.n_threads = (uint32_t)threads;
    so.precision = precision;
    so.kv_type = kv_type;
    if (xlarun_session_memory(model, &so, &session_bytes, &err) != XLARUN_OK) goto error;
    if (xlarun_session_create(model, &so, &sess, &err) != XLARUN_OK) goto error;
    t1 = now();

    if (print_ids) {
        /* ids out: the sampler on the session's logits */
        const xlarun_config *c = xlarun_model_config(model);
        if (!ids_arg) { /* a text prompt: as tokenizers' encode(text), BOS included */
            size_t cap = prompt_len + 8, n = 0;
            xlarun_status st;
            prompt = (int32_t *)malloc(cap * sizeof *prompt);
            if (!prompt) { strcpy(err.message, "out of memory"); goto error; }
            st = xlarun_tokenizer_encode(tok, prompt_text, prompt_len, no_special ? XLARUN_ENCODE_SPECIAL_AS_TEXT : 0u,
                                         prompt, cap, &n, NULL, 0, &err);
            if (st != XLARUN_OK) goto error;
            n_prompt = n;
        }
        (void)c;
        if (xlarun_sampler_create(&gc.sampling, c->vocab_size, &smp, &err) != XLARUN_OK) goto error;
        xlarun_sampler_accept(smp, prompt, n_prompt);
        if (xlarun_session_prefill(sess, prompt, n_prompt, &err) != XLARUN_OK) goto error;
        t2 = now();
        while (n_predict < 0 || n_gen < (size_t)n_predict) {
            int32_t next = xlarun_sampler_sample(smp, xlarun_session_logits(sess));
            uint32_t e;
            int eos = 0;
            printf(n_gen ? " %d" : "%d", (int)next);
            fflush(stdout);
            n_gen++;
            xlarun_sampler_accept(smp, &next, 1);
            for (e = 0; e < gc.n_eos; e++) eos |= next == gc.eos_token_ids[e];
            if ((eos && !ignore_eos) || n_gen == (size_t)n_predict) break;
            if (xlarun_session_position(sess) >= so.n_ctx && so.n_ctx) break;
            if (xlarun_session_decode(sess, next, &err) != XLARUN_OK) { printf("\n"); goto error; }
        }
        printf("\n");
    } else {
        /* text out: the generator streams detokenized text through the callback */
        xlarun_generator_options go;
        xlarun_generate_result res;
        xlarun_chat_template tmpl;
        xlarun_chat_options co;
        unsigned enc_flags = no_special ? XLARUN_ENCODE_SPECIAL_AS_TEXT : 0u;
        memset(&go, 0, sizeof go);
        go.sampling = gc.sampling;
        go.eos_ids = gc.eos_token_ids;
        go.n_eos = gc.n_eos;
        go.ignore_eos = ignore_eos;
        go.stop_strings = stops;
        go.n_stop_strings = n_stops;
        {   /* room for the prompt text besides 16 bytes per context token for the conversation */
            const xlarun_config *c = xlarun_model_config(model);
            size_t n_ctx = so.n_ctx ? so.n_ctx : (c->max_position_embeddings < 4096 ? c->max_position_embeddings : 4096);
            go.max_prompt_bytes = prompt_len + 16 * n_ctx;
        }
        if (xlarun_generator_create(sess, tok, &go, &gen, &err) != XLARUN_OK) goto error;
        memset(&co, 0, sizeof co);
        if (chat) {
            if (tmpl_name) {
                if (xlarun_chat_template_named(tmpl_name, &tmpl, &err) != XLARUN_OK) goto error;
            } else if (xlarun_chat_template_detect(xlarun_tokenizer_chat_template(tok), &tmpl, &err) != XLARUN_OK) {
                char m2[sizeof err.message + 32];
                snprintf(m2, sizeof m2, "%s (--chat-template NAME)", err.message);
                memcpy(err.message, m2, sizeof err.message - 1); /* the end cut if it is that long */
                err.message[sizeof err.message - 1] = 0;
                goto error;
            }
            xlarun_chat_options_from_tokenizer(tok, &co);
            co.date = date_arg;
            co.no_thinking = no_think;
            if (no_think && tmpl.format != XLARUN_CHAT_QWEN3) {
                strcpy(err.message, "--no-think is for the Qwen3 chat format (--chat-template qwen3), not this model's");
                goto error;
            }
            enc_flags = XLARUN_ENCODE_NO_BOS; /* the template has the BOS */
            if (system_arg && !conv_add(&conv, "system", system_arg)) { strcpy(err.message, "out of memory"); goto error; }
        }
        if (ids_arg) {
            if (xlarun_generate_ids(gen, prompt, n_prompt, (uint32_t)(n_predict > 0 ? n_predict : 0), on_token, &out, &res, &err) != XLARUN_OK)
                goto error;
            n_prompt = res.n_prefilled;
            n_rerun = res.n_rerun;
            printf("\n");
        } else {
            size_t turn = 0;
            char line[65536];
            for (;;) {
                const char *user_text = NULL;
                char *text = NULL;
                size_t len = 0;
                xlarun_status st;
                if (chat) {
                    if (turn == 0 && prompt_text) user_text = prompt_text;
                    else if (interactive) {
                        size_t l;
                        printf("> ");
                        fflush(stdout);
                        if (!fgets(line, sizeof line, stdin)) { printf("\n"); break; }
                        l = strlen(line);
                        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
                        if (!l) continue;
                        user_text = line;
                    } else break;
                    if (!conv_add(&conv, "user", user_text)) { strcpy(err.message, "out of memory"); goto error; }
                    if (xlarun_chat_apply(&tmpl, &co, conv.m, conv.n, NULL, 0, &len, &err) != XLARUN_OK) goto error;
                    text = (char *)malloc(len + 1);
                    if (!text) { strcpy(err.message, "out of memory"); goto error; }
                    if (xlarun_chat_apply(&tmpl, &co, conv.m, conv.n, text, len + 1, &len, &err) != XLARUN_OK) { free(text); goto error; }
                } else {
                    if (turn > 0) break;
                    text = prompt_text;
                    len = prompt_len;
                }
                out.n = 0;
                if (out.reply) out.reply[0] = 0;
                st = xlarun_generate_text(gen, text, len, enc_flags, (uint32_t)(n_predict > 0 ? n_predict : 0), on_token, &out, &res, &err);
                if (text != prompt_text) free(text);
                if (st != XLARUN_OK) { printf("\n"); goto error; }
                printf("\n");
                fflush(stdout);
                if (turn == 0) { t2 = out.t_first ? out.t_first : now(); n_prompt = res.n_prefilled; }
                n_rerun += res.n_rerun;
                if (chat && !conv_add(&conv, "assistant", out.reply ? out.reply : "")) { strcpy(err.message, "out of memory"); goto error; }
                turn++;
                if (!interactive) break;
            }
        }
        if (!t2) t2 = out.t_first ? out.t_first : now();
        n_gen = out.n_tokens;
    }
    t3 = now();
    fflush(stdout); /* the generated text before the stats, also when both go to one pipe */
    fprintf(stderr, "load: %.3f s\n", t1 - t0);
    fprintf(stderr, "prefill: %lu tokens, %.3f s, %.2f tok/s\n", (unsigned long)n_prompt, t2 - t1,
            t2 > t1 ? (double)n_prompt / (t2 - t1) : 0.0);
    fprintf(stderr, "decode: %lu tokens, %.3f s, %.2f tok/s", (unsigned long)(n_gen ? n_gen - 1 : 0), t3 - t2,
            n_gen > 1 && t3 > t2 ? (double)(n_gen - 1) / (t3 - t2) : 0.0);
    if (n_rerun) fprintf(stderr, " (a step ran %lu positions again at the longrope crossing)", (unsigned long)n_rerun);
    fprintf(stderr, "\n");
    fprintf(stderr, "arena: %lu bytes (model %lu, session %lu)\n", (unsigned long)(model_bytes + session_bytes),
            (unsigned long)model_bytes, (unsigned long)session_bytes);
    fprintf(stderr, "mapped: %llu bytes\n", (unsigned long long)xlarun_model_mapped_bytes(model));
    rc = 0;
    goto done;
error:
    fflush(stdout);
    rc = fail(err.message);
done:
    xlarun_generator_free(gen);
    xlarun_sampler_free(smp);
    xlarun_session_free(sess);
    xlarun_tokenizer_close(tok);
    xlarun_model_close(model);
    conv_free(&conv);
    free(out.reply);
    free(prompt);
    free(prompt_text);
    return rc;
}
