/* gen - generate with xlarun from a Hugging Face checkpoint folder.

     build/gen -m DIR -p "Once upon a time" -n 64
     build/gen -m DIR --chat -p "What is the capital of France?"
     build/gen -m DIR -i                       (interactive chat, one session for the whole talk)
     build/gen -m DIR --chat --tools tools.json --var enable_thinking=false -p "Weather in Paris?"
     build/gen -m DIR --ids 128000,9906,1917 -n 48 --temp 0 --print-ids -t 2 -c 512

   Text streams to stdout as it is generated; the thread count (the machine's physical cores unless
   -t says), load time, prefill and decode speed, memory and mapped bytes go to stderr. With --print-ids the generated ids (not the prompt) are printed,
   space-separated, on one stdout line instead. Chat runs the model's own Jinja chat template (or a
   built-in one by name, or any template file) over the whole conversation at every turn: messages
   as JSON, as transformers' apply_chat_template takes them. Every error is one line
   "xlarun: error: <message>" on stderr and exit status 1. */
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

/* one line whatever the message holds (a template's raise_exception text may have newlines) */
static int fail(const char *msg) {
    fputs("xlarun: error: ", stderr);
    for (; *msg; msg++) fputc(*msg == '\n' || *msg == '\r' ? ' ' : *msg, stderr);
    fputc('\n', stderr);
    return 1;
}

/* a ", "-separated list wrapped under an indent */
static void print_names(FILE *f, const char *indent, const char *names) {
    size_t col = 0;
    while (*names) {
        size_t k = strcspn(names, ",");
        if (col && col + k + 2 > 96) { fputs(",\n", f); col = 0; }
        else if (col) { fputs(", ", f); col += 2; }
        if (!col) { fputs(indent, f); col = strlen(indent); }
        fwrite(names, 1, k, f);
        col += k;
        names += k;
        while (*names == ',' || *names == ' ') names++;
    }
    if (col) fputs("\n", f);
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
            "chat (the model's Jinja chat template, run as transformers' apply_chat_template runs it;\n"
            "      each option below implies --chat):\n"
            "      --chat               format -p as a user turn with the model's chat template\n"
            "  -i, --interactive        chat turn by turn, reading lines from stdin (end of input ends)\n"
            "      --system TEXT        system message\n"
            "      --chat-template NAME a built-in template instead of the folder's chat template:\n");
    print_names(f, "                           ", xlarun_chat_template_names());
    fprintf(f,
            "      --chat-template-file FILE  run this Jinja template file instead\n"
            "      --var KEY=JSON       a template variable (repeatable; later ones win), the value as\n"
            "                           JSON: --var enable_thinking=false, --var 'date_string=\"26 Jul 2024\"'\n"
            "      --tools FILE         a JSON array of tools (OpenAI function schemas) for the template; each tool\n"
            "                           call in the reply is printed after it as one JSON line\n"
            "      --date DATE          date_string, the \"Today Date\" of Llama 3.1/3.2 (\"26 Jul 2024\")\n"
            "      --no-think           enable_thinking=false (Qwen3, SmolLM3 and other templates that read\n"
            "                           it: no thinking; an empty <think> block may open the reply)\n"
            "\n"
            "generation (defaults: the model's generation_config.json, as transformers applies it):\n"
            "  -n, --n-predict N        tokens to generate (default: 128 for text, 32 for --ids;\n"
            "                           0 or -1: until end of text or the context is full)\n"
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
            "output that parses (one of these; every reply is a sentence of the grammar):\n"
            "      --grammar TEXT       a GBNF grammar (llama.cpp's notation; the rule root starts)\n"
            "      --grammar-file F     the grammar in a file\n"
            "      --json-schema F      a JSON Schema (a file): the reply is compact JSON it accepts\n"
            "      --json               the reply is one JSON value\n"
            "      --no-tool-grammar    with --tools, do not constrain the calls (by default a call the model\n"
            "                           opens follows its format, naming a tool, arguments per its schema)\n"
            "\n"
            "performance:\n"
            "  -t, --threads N          threads (default: the machine's physical cores)\n"
            "  -c, --ctx-size N         context length in tokens (default: prompt + n for --ids with\n"
            "                           n > 0, else min(4096, the model's max_position_embeddings))\n"
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

/* --ids LIST: comma-separated token ids, none empty */
static int parse_ids(const char *arg, int32_t **ids, size_t *n, char *msg, size_t cap) {
    const char *p = arg;
    size_t room = 1;
    unsigned long v;
    for (; *p; p++) room += *p == ',';
    if (!(*ids = (int32_t *)malloc(room * sizeof **ids))) { snprintf(msg, cap, "out of memory"); return 0; }
    *n = 0;
    for (p = arg; *p;) {
        char tk[32];
        size_t k = strcspn(p, ",");
        if (k == 0 || k >= sizeof tk) { snprintf(msg, cap, "invalid --ids list '%s'", arg); return 0; }
        memcpy(tk, p, k);
        tk[k] = 0;
        if (!parse_uint(tk, 0x7fffffff, &v)) { snprintf(msg, cap, "invalid token id '%s' in --ids", tk); return 0; }
        (*ids)[(*n)++] = (int32_t)v;
        p += k;
        if (*p == ',' && !*++p) { snprintf(msg, cap, "invalid --ids list '%s'", arg); return 0; }
    }
    if (*n == 0) { snprintf(msg, cap, "--ids is empty"); return 0; }
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
    int ids;       /* --print-ids: the ids, space-separated, instead of the text */
} out_state;

static int on_token(void *user, int32_t id, const char *text, size_t len) {
    out_state *o = (out_state *)user;
    if (id >= 0) {
        if (o->n_tokens == 0) o->t_first = now();
        o->n_tokens++;
        if (o->ids) {
            printf(o->n_tokens > 1 ? " %d" : "%d", (int)id);
            fflush(stdout);
        }
    }
    if (len) { /* the reply is kept in either mode: its tool calls are read from it */
        if (!o->ids) {
            fwrite(text, 1, len, stdout);
            fflush(stdout);
        }
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

/* a growing string; p stays NUL-terminated */
typedef struct strbuf {
    char *p;
    size_t n, cap;
} strbuf;

static int sb_put(strbuf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *p = (char *)realloc(b->p, cap);
        if (!p) return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
    return 1;
}
/* a string literal, its length counted by the compiler */
#define SB_LIT(b, lit) sb_put((b), (lit), sizeof(lit) - 1)

/* s as a JSON string, quotes included (bytes from 0x80 on pass as they are: UTF-8) */
static int sb_json_string(strbuf *b, const char *s, size_t n) {
    size_t i;
    if (!SB_LIT(b, "\"")) return 0;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') { esc[0] = '\\'; esc[1] = (char)c; esc[2] = 0; }
        else if (c == '\n') strcpy(esc, "\\n");
        else if (c == '\r') strcpy(esc, "\\r");
        else if (c == '\t') strcpy(esc, "\\t");
        else if (c < 0x20) snprintf(esc, sizeof esc, "\\u%04x", c);
        else { if (!sb_put(b, s + i, 1)) return 0; continue; }
        if (!sb_put(b, esc, strlen(esc))) return 0;
    }
    return SB_LIT(b, "\"");
}

/* one "KEY": JSON member more in the object vars (opened with '{', closed before use) */
static int vars_add(strbuf *vars, const char *key, size_t klen, const char *json, size_t jlen) {
    return (vars->n || SB_LIT(vars, "{")) && (vars->n == 1 || SB_LIT(vars, ",")) && sb_json_string(vars, key, klen) &&
           SB_LIT(vars, ":") && sb_put(vars, json, jlen);
}

/* --var KEY=JSON. KEY is a template variable name; the value must be one JSON value, and the
   library's own JSON reader judges it: the value goes in as the variables of a render of an empty
   template, where text that is not JSON fails with XLARUN_ERR_FORMAT and its line and column (a
   valid value that is not an object fails otherwise, which is fine here). */
static int add_var(strbuf *vars, const char *arg, char *msg, size_t cap) {
    const char *eq = strchr(arg, '='), *why;
    size_t k, klen = eq ? (size_t)(eq - arg) : 0;
    xlarun_chat_template *empty;
    xlarun_chat_input in;
    xlarun_error e;
    xlarun_status st;
    char *text;
    for (k = 0; k < klen; k++) {
        char c = arg[k];
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (k && c >= '0' && c <= '9'))) break;
    }
    if (!klen || k < klen) {
        snprintf(msg, cap, "invalid --var '%s': expected KEY=JSON with KEY a variable name (enable_thinking=false)", arg);
        return 0;
    }
    if (xlarun_chat_template_create("", 0, &empty, &e) != XLARUN_OK) { snprintf(msg, cap, "%s", e.message); return 0; }
    memset(&in, 0, sizeof in);
    in.vars_json = eq + 1;
    st = xlarun_chat_render_alloc(empty, &in, &text, &k, &e);
    if (st == XLARUN_OK) xlarun_chat_text_free(text);
    xlarun_chat_template_free(empty);
    if (st == XLARUN_ERR_FORMAT) {
        why = strncmp(e.message, "chat variables: ", 16) ? e.message : e.message + 16;
        snprintf(msg, cap, "--var %.*s: the value is not JSON (strings need quotes: '%.*s=\"text\"'): %s", (int)klen, arg,
                 (int)klen, arg, why);
        return 0;
    }
    if (!vars_add(vars, arg, klen, eq + 1, strlen(eq + 1))) { snprintf(msg, cap, "out of memory"); return 0; }
    return 1;
}

/* the conversation as a JSON array of messages, kept open ("[{...},{...}") between turns */
/* xlarun_tool_format_guess asks whether a marker is one token of the vocabulary */
static int has_token(void *user, const char *text) {
    return xlarun_tokenizer_token_id((const xlarun_tokenizer *)user, text, strlen(text)) >= 0;
}

/* room for one more message: the array opened, or a comma after the last one */
static int conv_next(strbuf *msgs) {
    return (msgs->n || SB_LIT(msgs, "[")) && (msgs->n == 1 || SB_LIT(msgs, ","));
}

static int conv_add(strbuf *msgs, const char *role, const char *content, size_t len) {
    return conv_next(msgs) && SB_LIT(msgs, "{\"role\":") &&
           sb_json_string(msgs, role, strlen(role)) && SB_LIT(msgs, ",\"content\":") && sb_json_string(msgs, content, len) &&
           SB_LIT(msgs, "}");
}

/* the reply as the assistant's message; with tools (their JSON, which types the values of the
   XML formats), its calls are read in the model family's format, printed as one JSON line each
   and kept as the message's tool_calls, their arguments an object or (args_string: the template
   takes only that) its JSON text as a string */
static xlarun_status conv_add_reply(strbuf *msgs, xlarun_tool_format format, int args_string, const char *tools, size_t tools_len,
                                    const char *reply, size_t n, xlarun_error *err) {
    size_t rbytes, k;
    void *rmem;
    xlarun_reply rp;
    int ok;
    if (!tools) {
        if (conv_add(msgs, "assistant", reply, n)) return XLARUN_OK;
        strcpy(err->message, "out of memory");
        return XLARUN_ERR_MEMORY;
    }
    rbytes = xlarun_reply_memory(n);
    if (!(rmem = malloc(rbytes))) { strcpy(err->message, "out of memory"); return XLARUN_ERR_MEMORY; }
    if (xlarun_reply_parse(format, reply, n, tools, tools_len, rmem, rbytes, &rp, err) != XLARUN_OK) { free(rmem); return err->status; }
    ok = conv_next(msgs) && SB_LIT(msgs, "{\"role\":\"assistant\",\"content\":") && sb_json_string(msgs, rp.content, strlen(rp.content));
    if (ok && rp.n_calls) ok = SB_LIT(msgs, ",\"tool_calls\":[");
    for (k = 0; ok && k < rp.n_calls; k++) {
        strbuf line = {NULL, 0, 0};
        const xlarun_tool_call *c = &rp.calls[k];
        ok = SB_LIT(&line, "{\"name\": ") && sb_json_string(&line, c->name, strlen(c->name)) &&
             SB_LIT(&line, ", \"arguments\": ") && sb_put(&line, c->arguments, strlen(c->arguments)) && SB_LIT(&line, "}");
        if (ok) printf("%s\n", line.p);
        free(line.p);
        ok = ok && (k == 0 || SB_LIT(msgs, ",")) && SB_LIT(msgs, "{\"type\":\"function\",") &&
             (!c->id || (SB_LIT(msgs, "\"id\":") && sb_json_string(msgs, c->id, strlen(c->id)) && SB_LIT(msgs, ","))) &&
             SB_LIT(msgs, "\"function\":{\"name\":") && sb_json_string(msgs, c->name, strlen(c->name)) &&
             SB_LIT(msgs, ",\"arguments\":") &&
             (args_string ? sb_json_string(msgs, c->arguments, strlen(c->arguments)) : sb_put(msgs, c->arguments, strlen(c->arguments))) &&
             SB_LIT(msgs, "}}");
    }
    if (ok && rp.n_calls) ok = SB_LIT(msgs, "]");
    ok = ok && SB_LIT(msgs, "}");
    fflush(stdout);
    free(rmem);
    if (!ok) { strcpy(err->message, "out of memory"); return XLARUN_ERR_MEMORY; }
    return XLARUN_OK;
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

/* the command line */
typedef struct args {
    const char *dir, *ids_arg, *prompt_arg, *file_arg, *system_arg, *tmpl_name, *tmpl_file, *tools_arg;
    const char *grammar_arg, *grammar_file, *schema_file; /* and json: the reply is constrained */
    const char *stops[XLARUN_MAX_STOP_STRINGS];
    size_t n_stops;
    unsigned long threads, ctx, batch, top_k, seed;
    long n_predict; /* 0: no limit */
    int print_ids, ignore_eos, no_mmap, chat, interactive, no_special, json, no_tool_grammar;
    xlarun_precision precision;
    xlarun_kv_type kv_type;
    int set_temp, set_topk, set_topp, set_minp, set_rep, set_seed;
    float temp, min_p, rep;
    double top_p; /* a double, as xlarun_sampling's: 1 - top_p is taken from the decimal */
    strbuf vars;  /* the --var object */
} args;

/* argv into *A, checked; 1: run, 2: --help was printed, 0: the message is in msg */
static int parse_args(int argc, char **argv, args *A, char *msg, size_t cap) {
    unsigned long v;
    int i;
    memset(A, 0, sizeof *A);
    A->threads = xlarun_physical_cores();
    A->n_predict = -2; /* the default, below */
    A->precision = XLARUN_PRECISION_EXACT;
    A->kv_type = XLARUN_KV_F32;
    A->rep = 1;
    A->top_p = 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!val) { snprintf(msg, cap, "%s needs a value", a); return 0; } i++; } while (0)
#define BAD_VALUE() do { snprintf(msg, cap, "invalid value for %s: '%s'", a, val); return 0; } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 2; }
        else if (!strcmp(a, "-m") || !strcmp(a, "--model")) { NEED_VALUE(); A->dir = val; }
        else if (!strcmp(a, "--ids")) { NEED_VALUE(); A->ids_arg = val; }
        else if (!strcmp(a, "-p") || !strcmp(a, "--prompt")) { NEED_VALUE(); A->prompt_arg = val; }
        else if (!strcmp(a, "-f") || !strcmp(a, "--file")) { NEED_VALUE(); A->file_arg = val; }
        else if (!strcmp(a, "--system")) { NEED_VALUE(); A->system_arg = val; A->chat = 1; }
        else if (!strcmp(a, "--chat-template")) { NEED_VALUE(); A->tmpl_name = val; A->chat = 1; }
        else if (!strcmp(a, "--chat-template-file")) { NEED_VALUE(); A->tmpl_file = val; A->chat = 1; }
        else if (!strcmp(a, "--tools")) { NEED_VALUE(); A->tools_arg = val; A->chat = 1; }
        else if (!strcmp(a, "--var")) { NEED_VALUE(); if (!add_var(&A->vars, val, msg, cap)) return 0; A->chat = 1; }
        else if (!strcmp(a, "--date")) {
            strbuf d;
            int ok;
            NEED_VALUE();
            memset(&d, 0, sizeof d);
            ok = sb_json_string(&d, val, strlen(val)) && vars_add(&A->vars, "date_string", 11, d.p, d.n);
            free(d.p);
            if (!ok) { snprintf(msg, cap, "out of memory"); return 0; }
            A->chat = 1;
        }
        else if (!strcmp(a, "--no-think")) {
            if (!vars_add(&A->vars, "enable_thinking", 15, "false", 5)) { snprintf(msg, cap, "out of memory"); return 0; }
            A->chat = 1;
        }
        else if (!strcmp(a, "--stop")) {
            NEED_VALUE();
            if (A->n_stops == XLARUN_MAX_STOP_STRINGS) { snprintf(msg, cap, "at most %d --stop strings", XLARUN_MAX_STOP_STRINGS); return 0; }
            A->stops[A->n_stops++] = val;
        }
        else if (!strcmp(a, "-n") || !strcmp(a, "--n-predict")) {
            NEED_VALUE();
            if (!strcmp(val, "-1")) A->n_predict = 0; /* no limit, as 0 */
            else if (!parse_uint(val, 1u << 24, &v)) BAD_VALUE();
            else A->n_predict = (long)v;
        }
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) { NEED_VALUE(); if (!parse_uint(val, 512, &A->threads) || !A->threads) BAD_VALUE(); }
        else if (!strcmp(a, "-c") || !strcmp(a, "--ctx-size")) { NEED_VALUE(); if (!parse_uint(val, 1u << 24, &A->ctx)) BAD_VALUE(); }
        else if (!strcmp(a, "-b") || !strcmp(a, "--batch-size")) { NEED_VALUE(); if (!parse_uint(val, 65536, &A->batch) || !A->batch) BAD_VALUE(); }
        else if (!strcmp(a, "--precision")) {
            NEED_VALUE();
            if (!strcmp(val, "exact")) A->precision = XLARUN_PRECISION_EXACT;
            else if (!strcmp(val, "bf16")) A->precision = XLARUN_PRECISION_BF16_ACTIVATIONS;
            else BAD_VALUE();
        }
        else if (!strcmp(a, "--kv-type")) {
            NEED_VALUE();
            if (!strcmp(val, "f32")) A->kv_type = XLARUN_KV_F32;
            else if (!strcmp(val, "f16")) A->kv_type = XLARUN_KV_F16;
            else if (!strcmp(val, "bf16")) A->kv_type = XLARUN_KV_BF16;
            else BAD_VALUE();
        }
        else if (!strcmp(a, "--temp")) { NEED_VALUE(); if (!parse_float(val, &A->temp)) BAD_VALUE(); A->set_temp = 1; }
        else if (!strcmp(a, "--top-k")) { NEED_VALUE(); if (!parse_uint(val, 0x7fffffff, &A->top_k)) BAD_VALUE(); A->set_topk = 1; }
        else if (!strcmp(a, "--top-p")) { NEED_VALUE(); if (!parse_double(val, &A->top_p)) BAD_VALUE(); A->set_topp = 1; }
        else if (!strcmp(a, "--min-p")) { NEED_VALUE(); if (!parse_float(val, &A->min_p)) BAD_VALUE(); A->set_minp = 1; }
        else if (!strcmp(a, "--repeat-penalty")) { NEED_VALUE(); if (!parse_float(val, &A->rep)) BAD_VALUE(); A->set_rep = 1; }
        else if (!strcmp(a, "--seed")) { NEED_VALUE(); if (!parse_uint(val, 0xffffffffUL, &A->seed)) BAD_VALUE(); A->set_seed = 1; }
        else if (!strcmp(a, "--chat")) A->chat = 1;
        else if (!strcmp(a, "-i") || !strcmp(a, "--interactive")) A->interactive = 1;
        else if (!strcmp(a, "--no-special")) A->no_special = 1;
        else if (!strcmp(a, "--print-ids")) A->print_ids = 1;
        else if (!strcmp(a, "--grammar")) { NEED_VALUE(); A->grammar_arg = val; }
        else if (!strcmp(a, "--grammar-file")) { NEED_VALUE(); A->grammar_file = val; }
        else if (!strcmp(a, "--json-schema")) { NEED_VALUE(); A->schema_file = val; }
        else if (!strcmp(a, "--json")) A->json = 1;
        else if (!strcmp(a, "--no-tool-grammar")) A->no_tool_grammar = 1;
        else if (!strcmp(a, "--ignore-eos")) A->ignore_eos = 1;
        else if (!strcmp(a, "--no-mmap")) A->no_mmap = 1;
        else {
            snprintf(msg, cap, "unknown option '%s' (see --help)", a);
            return 0;
        }
    }
#undef NEED_VALUE
#undef BAD_VALUE
    if (!A->dir) { snprintf(msg, cap, "no model folder: give -m DIR (see --help)"); return 0; }
    if ((A->ids_arg != NULL) + (A->prompt_arg != NULL) + (A->file_arg != NULL) > 1) { snprintf(msg, cap, "give one prompt: -p TEXT, -f FILE or --ids LIST"); return 0; }
    if (!A->ids_arg && !A->prompt_arg && !A->file_arg && !A->interactive) { snprintf(msg, cap, "no prompt: give -p TEXT, -f FILE, --ids LIST or -i (see --help)"); return 0; }
    if (A->ids_arg && (A->chat || A->interactive)) { snprintf(msg, cap, "--ids cannot be combined with --chat, -i or the chat options (they need text)"); return 0; }
    if (A->print_ids && A->interactive) { snprintf(msg, cap, "--print-ids cannot be combined with -i"); return 0; }
    if (A->n_stops && A->print_ids) { snprintf(msg, cap, "--stop works on text; it cannot be combined with --print-ids"); return 0; }
    if ((A->grammar_arg != NULL) + (A->grammar_file != NULL) + (A->schema_file != NULL) + A->json > 1) { snprintf(msg, cap, "give one of --grammar, --grammar-file, --json-schema and --json"); return 0; }
    if (A->tmpl_name && A->tmpl_file) { snprintf(msg, cap, "give --chat-template NAME or --chat-template-file FILE, not both"); return 0; }
    if (A->interactive) A->chat = 1;
    /* a chat prompt is template text with special tokens around the messages; keeping the
       messages' own special-token text literal needs them encoded apart, not done yet */
    if (A->no_special && A->chat) { snprintf(msg, cap, "--no-special works on plain prompts (-p, -f); it cannot be combined with --chat, -i or the chat options yet"); return 0; }
    if (A->n_predict == -2) A->n_predict = A->ids_arg ? 32 : 128;
    if (A->vars.n && !SB_LIT(&A->vars, "}")) { snprintf(msg, cap, "out of memory"); return 0; }
    return 1;
}

int main(int argc, char **argv) {
    args A;
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
    xlarun_chat_template *tmpl = NULL;
    xlarun_grammar *grammar = NULL;
    char *grammar_text = NULL;
    xlarun_chat_input ci;       /* the template's input: messages, tools, variables, special tokens */
    xlarun_tool_format tool_format = XLARUN_TOOLS_NONE;
    int args_string = 0; /* the template takes a call's arguments only as a JSON string */
    char *tmpl_text = NULL, *tools_text = NULL;
    size_t tmpl_len = 0, tools_len = 0;
    strbuf msgs;                /* the conversation as a JSON array */
    xlarun_error err;
    out_state out;
    double t0, t1, t2 = 0, t3;
    char msg[2400];
    int rc = 1;

    memset(&A, 0, sizeof A);
    memset(&msgs, 0, sizeof msgs);
    memset(&ci, 0, sizeof ci);
    memset(&out, 0, sizeof out);
#if defined(_WIN32)
    {
        char **u = utf8_argv(&argc);
        if (u) argv = u;
        SetConsoleOutputCP(CP_UTF8); /* the replies are UTF-8 */
    }
#endif
    switch (parse_args(argc, argv, &A, msg, sizeof msg)) {
    case 0: goto fail_msg;
    case 2: rc = 0; goto done;
    default: break;
    }

    /* the chat template and tools that need no model: a built-in by name, or a file */
    if (A.tmpl_name) {
        const char *t = xlarun_chat_template_builtin(A.tmpl_name);
        if (!t) {
            snprintf(msg, sizeof msg, "unknown chat template name '%s'; the names are: %s", A.tmpl_name, xlarun_chat_template_names());
            goto fail_msg;
        }
        if (xlarun_chat_template_create(t, strlen(t), &tmpl, &err) != XLARUN_OK) goto error;
    } else if (A.tmpl_file) {
        if (!(tmpl_text = read_text_file(A.tmpl_file, &tmpl_len))) {
            snprintf(msg, sizeof msg, "%s: cannot read the chat template file", A.tmpl_file);
            goto fail_msg;
        }
        if (xlarun_chat_template_create(tmpl_text, tmpl_len, &tmpl, &err) != XLARUN_OK) {
            snprintf(msg, sizeof msg, "%s: %s", A.tmpl_file, err.message);
            goto fail_msg;
        }
    }
    if (A.tools_arg) {
        if (!(tools_text = read_text_file(A.tools_arg, &tools_len))) {
            snprintf(msg, sizeof msg, "%s: cannot read the tools file", A.tools_arg);
            goto fail_msg;
        }
        if (strlen(tools_text) != tools_len) {
            snprintf(msg, sizeof msg, "%s: a NUL byte at offset %lu (JSON text has none)", A.tools_arg, (unsigned long)strlen(tools_text));
            goto fail_msg;
        }
    }

    /* the grammar: GBNF as given, or made from a JSON Schema ({} for --json: any JSON value) */
    if (A.grammar_arg || A.grammar_file || A.schema_file || A.json) {
        const char *src = A.grammar_file ? A.grammar_file : A.schema_file ? A.schema_file : "--grammar";
        size_t glen = 0;
        if (A.grammar_arg) {
            glen = strlen(A.grammar_arg);
            if (!(grammar_text = (char *)malloc(glen + 1))) { strcpy(msg, "out of memory"); goto fail_msg; }
            memcpy(grammar_text, A.grammar_arg, glen + 1);
        } else if (A.grammar_file && !(grammar_text = read_text_file(A.grammar_file, &glen))) {
            snprintf(msg, sizeof msg, "%s: cannot read the grammar file", A.grammar_file);
            goto fail_msg;
        }
        if (A.schema_file || A.json) {
            size_t slen = 2, need = 0;
            char *schema = A.json ? NULL : read_text_file(A.schema_file, &slen);
            xlarun_status st;
            if (A.schema_file && !schema) { snprintf(msg, sizeof msg, "%s: cannot read the JSON Schema file", A.schema_file); goto fail_msg; }
            st = xlarun_json_schema_to_grammar(schema ? schema : "{}", slen, NULL, 0, &need, &err);
            if (st == XLARUN_OK && !(grammar_text = (char *)malloc(need + 1))) st = XLARUN_ERR_MEMORY;
            if (st == XLARUN_OK) st = xlarun_json_schema_to_grammar(schema ? schema : "{}", slen, grammar_text, need + 1, &glen, &err);
            free(schema);
            if (st != XLARUN_OK) { snprintf(msg, sizeof msg, "%s: %s", A.json ? "--json" : src, err.message); goto fail_msg; }
        }
        if (xlarun_grammar_compile(grammar_text, glen, &grammar, &err) != XLARUN_OK) {
            snprintf(msg, sizeof msg, "%s: %s", src, err.message);
            goto fail_msg;
        }
    }

    /* the prompt ids */
    if (A.ids_arg) {
        if (!parse_ids(A.ids_arg, &prompt, &n_prompt, msg, sizeof msg)) goto fail_msg;
    } else if (A.file_arg) {
        prompt_text = read_text_file(A.file_arg, &prompt_len);
        if (!prompt_text) { snprintf(msg, sizeof msg, "%s: cannot read the prompt file", A.file_arg); goto fail_msg; }
    } else if (A.prompt_arg) {
        prompt_len = strlen(A.prompt_arg);
        prompt_text = (char *)malloc(prompt_len + 1);
        if (!prompt_text) { strcpy(msg, "out of memory"); goto fail_msg; }
        memcpy(prompt_text, A.prompt_arg, prompt_len + 1);
    }

    t0 = now();
    memset(&mo, 0, sizeof mo);
    mo.no_mmap = A.no_mmap;
    if (xlarun_model_open(A.dir, &mo, &model, &err) != XLARUN_OK) goto error;
    if (xlarun_model_memory(A.dir, &mo, &model_bytes, &err) != XLARUN_OK) goto error;
    /* sampling: generation_config.json, then the flags */
    if (xlarun_generation_config_load(model, A.dir, NULL, &gc, &err) != XLARUN_OK) goto error;
    if (A.set_temp) gc.sampling.temperature = A.temp;
    if (A.set_topk) gc.sampling.top_k = (int32_t)A.top_k;
    if (A.set_topp) gc.sampling.top_p = A.top_p;
    if (A.set_minp) gc.sampling.min_p = A.min_p;
    if (A.set_rep) gc.sampling.repetition_penalty = A.rep;
    if (A.set_seed) gc.sampling.seed = A.seed;
    if (xlarun_sampling_check(&gc.sampling, &err) != XLARUN_OK) goto error;
    /* the tokenizer, unless ids go in and ids come out */
    if (!(A.ids_arg && A.print_ids) || grammar) {
        xlarun_status st = xlarun_tokenizer_open(A.dir, NULL, &tok, &err);
        if (st == XLARUN_ERR_IO && A.ids_arg && !A.n_stops) A.print_ids = 1; /* no tokenizer: ids out, as before */
        else if (st != XLARUN_OK) goto error;
        else if (xlarun_tokenizer_check_model(tok, model, &err) != XLARUN_OK) goto error;
    }
    memset(&so, 0, sizeof so);
    /* the context: as given; for ids and a limit, just room for both; else the library's default */
    so.n_ctx = (uint32_t)(A.ctx ? A.ctx : A.ids_arg && A.n_predict > 0 ? n_prompt + (size_t)A.n_predict : 0);
    so.n_batch = (uint32_t)A.batch;
    so.n_threads = (uint32_t)A.threads;
    so.precision = A.precision;
    so.kv_type = A.kv_type;
    if (xlarun_session_memory(model, &so, &session_bytes, &err) != XLARUN_OK) goto error;
    if (xlarun_session_create(model, &so, &sess, &err) != XLARUN_OK) goto error;
    t1 = now();

    {   /* one token loop for every mode: the generator streams the text (or the ids) through the callback */
        xlarun_generator_options go;
        xlarun_generate_result res;
        unsigned enc_flags = A.no_special ? XLARUN_ENCODE_SPECIAL_AS_TEXT : 0u;
        out.ids = A.print_ids;
        memset(&go, 0, sizeof go);
        go.sampling = gc.sampling;
        go.eos_ids = gc.eos_token_ids;
        go.n_eos = gc.n_eos;
        go.ignore_eos = A.ignore_eos;
        go.stop_strings = A.stops;
        go.n_stop_strings = A.n_stops;
        if (A.chat) {
            if (!tmpl) { /* the folder's own template */
                const char *t = tok ? xlarun_tokenizer_chat_template(tok) : NULL;
                if (!t) {
                    snprintf(err.message, sizeof err.message, "%s has no chat template (chat_template.jinja or tokenizer_config.json chat_template): "
                             "give --chat-template NAME or --chat-template-file FILE", A.dir);
                    goto error;
                }
                if (xlarun_chat_template_create(t, strlen(t), &tmpl, &err) != XLARUN_OK) {
                    snprintf(msg, sizeof msg, "%s: %s (--chat-template NAME or --chat-template-file FILE runs another)", A.dir, err.message);
                    goto fail_msg;
                }
            }
            if (tok) xlarun_chat_input_from_tokenizer(tok, &ci);  /* the special tokens' texts */
            ci.vars_json = A.vars.n ? A.vars.p : NULL;
            if (A.tools_arg) { /* how the model writes its calls: what its template writes, else what its vocabulary points to */
                int written = 0;
                tool_format = xlarun_chat_tool_format(tmpl, &ci, &written);
                args_string = written == 2;
                if (tool_format == XLARUN_TOOLS_NONE && !written && tok) tool_format = xlarun_tool_format_guess(has_token, tok);
                if (tool_format == XLARUN_TOOLS_NONE && written)
                    fprintf(stderr, "note: the chat template writes tool calls in a format xlarun does not read; replies are printed as text\n");
            }
        }
        if (A.tools_arg && !grammar && !A.no_tool_grammar && tok && tool_format != XLARUN_TOOLS_NONE) {
            /* the calls the model writes follow its format and the tools' schemas */
            size_t need = 0;
            if (xlarun_tool_grammar(tool_format, tools_text, tools_len, NULL, 0, &need, &err) != XLARUN_OK) goto error;
            if (!(grammar_text = (char *)malloc(need + 1))) { strcpy(err.message, "out of memory"); goto error; }
            if (xlarun_tool_grammar(tool_format, tools_text, tools_len, grammar_text, need + 1, &need, &err) != XLARUN_OK ||
                xlarun_grammar_compile(grammar_text, need, &grammar, &err) != XLARUN_OK)
                goto error;
        }
        go.grammar = grammar;
        {   /* room for the prompt, tools and system texts besides 16 bytes per context token for the conversation */
            const xlarun_config *c = xlarun_model_config(model);
            size_t n_ctx = so.n_ctx ? so.n_ctx : (c->max_position_embeddings < 4096 ? c->max_position_embeddings : 4096);
            go.max_prompt_bytes = prompt_len + tools_len + (A.system_arg ? strlen(A.system_arg) : 0) + 16 * n_ctx;
        }
        if (xlarun_generator_create(sess, tok, &go, &gen, &err) != XLARUN_OK) goto error; /* tok NULL: ids only */
        if (A.chat) {
            ci.tools_json = tools_text;
            enc_flags = XLARUN_ENCODE_NO_BOS; /* the template has the BOS */
            if (A.system_arg && !conv_add(&msgs, "system", A.system_arg, strlen(A.system_arg))) { strcpy(err.message, "out of memory"); goto error; }
        }
        if (A.ids_arg) {
            if (xlarun_generate_ids(gen, prompt, n_prompt, (uint32_t)A.n_predict, on_token, &out, &res, &err) != XLARUN_OK) {
                printf("\n");
                goto error;
            }
            n_prompt = res.n_prefilled;
            n_rerun = res.n_rerun;
            printf("\n");
        } else {
            size_t turn = 0;
            char line[65536];
            for (;;) {
                const char *user_text = NULL, *text = NULL;
                char *chat_text = NULL;
                size_t len = 0, user_len = 0;
                xlarun_status st;
                if (A.chat) {
                    if (turn == 0 && prompt_text) { user_text = prompt_text; user_len = prompt_len; }
                    else if (A.interactive) {
                        size_t l;
                        printf("> ");
                        fflush(stdout);
                        if (!fgets(line, sizeof line, stdin)) { printf("\n"); break; }
                        l = strlen(line);
                        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
                        if (!l) continue;
                        user_text = line;
                        user_len = l;
                    } else break;
                    /* the whole conversation each turn: the generator keeps the ids the session
                       already holds and prefills only the rest */
                    if (!conv_add(&msgs, "user", user_text, user_len) || !SB_LIT(&msgs, "]")) { strcpy(err.message, "out of memory"); goto error; }
                    ci.messages_json = msgs.p;
                    st = xlarun_chat_render_alloc(tmpl, &ci, &chat_text, &len, &err);
                    msgs.p[--msgs.n] = 0; /* open again for the reply */
                    if (st != XLARUN_OK) goto error;
                    text = chat_text;
                } else {
                    if (turn > 0) break;
                    text = prompt_text;
                    len = prompt_len;
                }
                out.n = 0;
                if (out.reply) out.reply[0] = 0;
                st = xlarun_generate_text(gen, text, len, enc_flags, (uint32_t)A.n_predict, on_token, &out, &res, &err);
                xlarun_chat_text_free(chat_text);
                if (st != XLARUN_OK) { printf("\n"); goto error; }
                printf("\n");
                fflush(stdout);
                if (turn == 0) { t2 = out.t_first ? out.t_first : now(); n_prompt = res.n_prefilled; }
                n_rerun += res.n_rerun;
                if (A.chat && conv_add_reply(&msgs, tool_format, args_string, tools_text, tools_len,
                                           out.reply ? out.reply : "", out.n, &err) != XLARUN_OK)
                    goto error;
                turn++;
                if (!A.interactive) break;
            }
        }
        if (!t2) t2 = out.t_first ? out.t_first : now();
        n_gen = out.n_tokens;
    }
    t3 = now();
    fflush(stdout); /* the generated text before the stats, also when both go to one pipe */
    fprintf(stderr, "threads: %lu\n", (unsigned long)so.n_threads);
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
fail_msg: /* the message is in msg */
    fflush(stdout);
    rc = fail(msg);
    goto done;
error:
    fflush(stdout);
    rc = fail(err.message);
done:
    xlarun_generator_free(gen);
    xlarun_session_free(sess);
    xlarun_tokenizer_close(tok);
    xlarun_model_close(model);
    xlarun_chat_template_free(tmpl);
    xlarun_grammar_free(grammar);
    free(grammar_text);
    free(tmpl_text);
    free(tools_text);
    free(A.vars.p);
    free(msgs.p);
    free(out.reply);
    free(prompt);
    free(prompt_text);
    return rc;
}
