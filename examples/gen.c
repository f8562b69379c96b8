/* gen - generate with xlarun from a Hugging Face checkpoint folder.

     build/gen -m DIR -p "Once upon a time" -n 64
     build/gen -m DIR --chat -p "What is the capital of France?"
     build/gen -m DIR -i                       (interactive chat, one session for the whole talk)
     build/gen -m DIR --chat --tools tools.json --var enable_thinking=false -p "Weather in Paris?"
     build/gen -m DIR --ids 128000,9906,1917 -n 48 --temp 0 --print-ids -t 2 -c 512

   Text streams to stdout as it is generated; load time, prefill and decode speed, memory and
   mapped bytes go to stderr. With --print-ids the generated ids (not the prompt) are printed,
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
            "performance:\n"
            "  -t, --threads N          threads (default 1)\n"
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

/* s as a JSON string, quotes included (bytes from 0x80 on pass as they are: UTF-8) */
static int sb_json_string(strbuf *b, const char *s, size_t n) {
    size_t i;
    if (!sb_put(b, "\"", 1)) return 0;
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
    return sb_put(b, "\"", 1);
}

/* one "KEY": JSON member more in the object vars (opened with '{', closed before use) */
static int vars_add(strbuf *vars, const char *key, size_t klen, const char *json, size_t jlen) {
    return (vars->n || sb_put(vars, "{", 1)) && (vars->n == 1 || sb_put(vars, ",", 1)) && sb_json_string(vars, key, klen) &&
           sb_put(vars, ":", 1) && sb_put(vars, json, jlen);
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

static int conv_add(strbuf *msgs, const char *role, const char *content, size_t len) {
    return (msgs->n || sb_put(msgs, "[", 1)) && (msgs->n == 1 || sb_put(msgs, ",", 1)) && sb_put(msgs, "{\"role\":", 8) &&
           sb_json_string(msgs, role, strlen(role)) && sb_put(msgs, ",\"content\":", 11) && sb_json_string(msgs, content, len) &&
           sb_put(msgs, "}", 1);
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
    const char *tmpl_name = NULL, *tmpl_file = NULL, *tools_arg = NULL;
    const char *stops[XLARUN_MAX_STOP_STRINGS];
    size_t n_stops = 0;
    unsigned long threads = 1, ctx = 0, batch = 0, v;
    long n_predict = -2; /* -2: the default; 0: no limit */
    int print_ids = 0, ignore_eos = 0, no_mmap = 0, chat = 0, interactive = 0, no_special = 0, i;
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
    xlarun_chat_template *tmpl = NULL;
    xlarun_chat_input ci;       /* the template's input: messages, tools, variables, special tokens */
    xlarun_tool_format tool_format = XLARUN_TOOLS_NONE;
    char *tmpl_text = NULL, *tools_text = NULL;
    size_t tmpl_len = 0, tools_len = 0;
    strbuf vars, msgs;          /* the --var object; the conversation as a JSON array */
    xlarun_error err;
    out_state out;
    double t0, t1, t2 = 0, t3;
    char msg[2400];
    int rc = 1;

    memset(&vars, 0, sizeof vars);
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
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!val) { snprintf(msg, sizeof msg, "%s needs a value", a); goto fail_msg; } i++; } while (0)
#define BAD_VALUE() do { snprintf(msg, sizeof msg, "invalid value for %s: '%s'", a, val); goto fail_msg; } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); rc = 0; goto done; }
        else if (!strcmp(a, "-m") || !strcmp(a, "--model")) { NEED_VALUE(); dir = val; }
        else if (!strcmp(a, "--ids")) { NEED_VALUE(); ids_arg = val; }
        else if (!strcmp(a, "-p") || !strcmp(a, "--prompt")) { NEED_VALUE(); prompt_arg = val; }
        else if (!strcmp(a, "-f") || !strcmp(a, "--file")) { NEED_VALUE(); file_arg = val; }
        else if (!strcmp(a, "--system")) { NEED_VALUE(); system_arg = val; chat = 1; }
        else if (!strcmp(a, "--chat-template")) { NEED_VALUE(); tmpl_name = val; chat = 1; }
        else if (!strcmp(a, "--chat-template-file")) { NEED_VALUE(); tmpl_file = val; chat = 1; }
        else if (!strcmp(a, "--tools")) { NEED_VALUE(); tools_arg = val; chat = 1; }
        else if (!strcmp(a, "--var")) { NEED_VALUE(); if (!add_var(&vars, val, msg, sizeof msg)) goto fail_msg; chat = 1; }
        else if (!strcmp(a, "--date")) {
            strbuf d;
            int ok;
            NEED_VALUE();
            memset(&d, 0, sizeof d);
            ok = sb_json_string(&d, val, strlen(val)) && vars_add(&vars, "date_string", 11, d.p, d.n);
            free(d.p);
            if (!ok) { strcpy(msg, "out of memory"); goto fail_msg; }
            chat = 1;
        }
        else if (!strcmp(a, "--no-think")) {
            if (!vars_add(&vars, "enable_thinking", 15, "false", 5)) { strcpy(msg, "out of memory"); goto fail_msg; }
            chat = 1;
        }
        else if (!strcmp(a, "--stop")) {
            NEED_VALUE();
            if (n_stops == XLARUN_MAX_STOP_STRINGS) { snprintf(msg, sizeof msg, "at most %d --stop strings", XLARUN_MAX_STOP_STRINGS); goto fail_msg; }
            stops[n_stops++] = val;
        }
        else if (!strcmp(a, "-n") || !strcmp(a, "--n-predict")) {
            NEED_VALUE();
            if (!strcmp(val, "-1")) n_predict = 0; /* no limit, as 0 */
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
            goto fail_msg;
        }
    }
#undef NEED_VALUE
#undef BAD_VALUE
    if (!dir) { strcpy(msg, "no model folder: give -m DIR (see --help)"); goto fail_msg; }
    if ((ids_arg != NULL) + (prompt_arg != NULL) + (file_arg != NULL) > 1) { strcpy(msg, "give one prompt: -p TEXT, -f FILE or --ids LIST"); goto fail_msg; }
    if (!ids_arg && !prompt_arg && !file_arg && !interactive) { strcpy(msg, "no prompt: give -p TEXT, -f FILE, --ids LIST or -i (see --help)"); goto fail_msg; }
    if (ids_arg && (chat || interactive)) { strcpy(msg, "--ids cannot be combined with --chat, -i or the chat options (they need text)"); goto fail_msg; }
    if (print_ids && interactive) { strcpy(msg, "--print-ids cannot be combined with -i"); goto fail_msg; }
    if (n_stops && print_ids) { strcpy(msg, "--stop works on text; it cannot be combined with --print-ids"); goto fail_msg; }
    if (tmpl_name && tmpl_file) { strcpy(msg, "give --chat-template NAME or --chat-template-file FILE, not both"); goto fail_msg; }
    if (interactive) chat = 1;
    /* a chat prompt is template text with special tokens around the messages; keeping the
       messages' own special-token text literal needs them encoded apart, not done yet */
    if (no_special && chat) { strcpy(msg, "--no-special works on plain prompts (-p, -f); it cannot be combined with --chat, -i or the chat options yet"); goto fail_msg; }
    if (n_predict == -2) n_predict = ids_arg ? 32 : 128;
    if (vars.n && !sb_put(&vars, "}", 1)) { strcpy(msg, "out of memory"); goto fail_msg; }

    /* the chat template and tools that need no model: a built-in by name, or a file */
    if (tmpl_name) {
        const char *t = xlarun_chat_template_builtin(tmpl_name);
        if (!t) {
            snprintf(msg, sizeof msg, "unknown chat template name '%s'; the names are: %s", tmpl_name, xlarun_chat_template_names());
            goto fail_msg;
        }
        if (xlarun_chat_template_create(t, strlen(t), &tmpl, &err) != XLARUN_OK) goto error;
    } else if (tmpl_file) {
        if (!(tmpl_text = read_text_file(tmpl_file, &tmpl_len))) {
            snprintf(msg, sizeof msg, "%s: cannot read the chat template file", tmpl_file);
            goto fail_msg;
        }
        if (xlarun_chat_template_create(tmpl_text, tmpl_len, &tmpl, &err) != XLARUN_OK) {
            snprintf(msg, sizeof msg, "%s: %s", tmpl_file, err.message);
            goto fail_msg;
        }
    }
    if (tools_arg) {
        if (!(tools_text = read_text_file(tools_arg, &tools_len))) {
            snprintf(msg, sizeof msg, "%s: cannot read the tools file", tools_arg);
            goto fail_msg;
        }
        if (strlen(tools_text) != tools_len) {
            snprintf(msg, sizeof msg, "%s: a NUL byte at offset %lu (JSON text has none)", tools_arg, (unsigned long)strlen(tools_text));
            goto fail_msg;
        }
    }

    /* the prompt ids */
    if (ids_arg) {
        const char *p = ids_arg;
        size_t cap = 1;
        for (; *p; p++) cap += *p == ',';
        prompt = (int32_t *)malloc(cap * sizeof *prompt);
        if (!prompt) { strcpy(msg, "out of memory"); goto fail_msg; }
        p = ids_arg;
        while (*p) {
            char tk[32];
            size_t k = strcspn(p, ",");
            if (k == 0 || k >= sizeof tk) { snprintf(msg, sizeof msg, "invalid --ids list '%s'", ids_arg); goto fail_msg; }
            memcpy(tk, p, k);
            tk[k] = 0;
            if (!parse_uint(tk, 0x7fffffff, &v)) { snprintf(msg, sizeof msg, "invalid token id '%s' in --ids", tk); goto fail_msg; }
            prompt[n_prompt++] = (int32_t)v;
            p += k;
            if (*p == ',') { p++; if (!*p) { snprintf(msg, sizeof msg, "invalid --ids list '%s'", ids_arg); goto fail_msg; } }
        }
        if (n_prompt == 0) { strcpy(msg, "--ids is empty"); goto fail_msg; }
    } else if (file_arg) {
        prompt_text = read_text_file(file_arg, &prompt_len);
        if (!prompt_text) { snprintf(msg, sizeof msg, "%s: cannot read the prompt file", file_arg); goto fail_msg; }
    } else if (prompt_arg) {
        prompt_len = strlen(prompt_arg);
        prompt_text = (char *)malloc(prompt_len + 1);
        if (!prompt_text) { strcpy(msg, "out of memory"); goto fail_msg; }
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
    /* the context: as given; for ids and a limit, just room for both; else the library's default */
    so.n_ctx = (uint32_t)(ctx ? ctx : ids_arg && n_predict > 0 ? n_prompt + (size_t)n_predict : 0);
    so.n_batch = (uint32_t)batch;
    so.n_threads = (uint32_t)threads;
    so.precision = precision;
    so.kv_type = kv_type;
    if (xlarun_session_memory(model, &so, &session_bytes, &err) != XLARUN_OK) goto error;
    if (xlarun_session_create(model, &so, &sess, &err) != XLARUN_OK) goto error;
    t1 = now();

    {   /* one token loop for every mode: the generator streams the text (or the ids) through the callback */
        xlarun_generator_options go;
        xlarun_generate_result res;
        unsigned enc_flags = no_special ? XLARUN_ENCODE_SPECIAL_AS_TEXT : 0u;
        out.ids = print_ids;
        memset(&go, 0, sizeof go);
        go.sampling = gc.sampling;
        go.eos_ids = gc.eos_token_ids;
        go.n_eos = gc.n_eos;
        go.ignore_eos = ignore_eos;
        go.stop_strings = stops;
        go.n_stop_strings = n_stops;
        {   /* room for the prompt, tools and system texts besides 16 bytes per context token for the conversation */
            const xlarun_config *c = xlarun_model_config(model);
            size_t n_ctx = so.n_ctx ? so.n_ctx : (c->max_position_embeddings < 4096 ? c->max_position_embeddings : 4096);
            go.max_prompt_bytes = prompt_len + tools_len + (system_arg ? strlen(system_arg) : 0) + 16 * n_ctx;
        }
        if (xlarun_generator_create(sess, tok, &go, &gen, &err) != XLARUN_OK) goto error; /* tok NULL: ids only */
        if (chat) {
            if (!tmpl) { /* the folder's own template */
                const char *t = xlarun_tokenizer_chat_template(tok);
                if (!t) {
                    snprintf(err.message, sizeof err.message, "%s has no chat template (chat_template.jinja or tokenizer_config.json chat_template): "
                             "give --chat-template NAME or --chat-template-file FILE", dir);
                    goto error;
                }
                if (xlarun_chat_template_create(t, strlen(t), &tmpl, &err) != XLARUN_OK) {
                    snprintf(msg, sizeof msg, "%s: %s (--chat-template NAME or --chat-template-file FILE runs another)", dir, err.message);
                    goto fail_msg;
                }
            }
            xlarun_chat_input_from_tokenizer(tok, &ci);  /* the special tokens' texts */
            ci.vars_json = vars.n ? vars.p : NULL;
            ci.tools_json = tools_text;
            tool_format = xlarun_tool_format_guess(has_token, tok); /* how the reply's calls are read */
            enc_flags = XLARUN_ENCODE_NO_BOS; /* the template has the BOS */
            if (system_arg && !conv_add(&msgs, "system", system_arg, strlen(system_arg))) { strcpy(err.message, "out of memory"); goto error; }
        }
        if (ids_arg) {
            if (xlarun_generate_ids(gen, prompt, n_prompt, (uint32_t)n_predict, on_token, &out, &res, &err) != XLARUN_OK) {
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
                if (chat) {
                    if (turn == 0 && prompt_text) { user_text = prompt_text; user_len = prompt_len; }
                    else if (interactive) {
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
                    if (!conv_add(&msgs, "user", user_text, user_len) || !sb_put(&msgs, "]", 1)) { strcpy(err.message, "out of memory"); goto error; }
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
                st = xlarun_generate_text(gen, text, len, enc_flags, (uint32_t)n_predict, on_token, &out, &res, &err);
                xlarun_chat_text_free(chat_text);
                if (st != XLARUN_OK) { printf("\n"); goto error; }
                printf("\n");
                fflush(stdout);
                if (turn == 0) { t2 = out.t_first ? out.t_first : now(); n_prompt = res.n_prefilled; }
                n_rerun += res.n_rerun;
                if (chat && tools_text) { /* the reply's tool calls: one JSON line each, and into the conversation */
                    size_t rbytes = xlarun_reply_memory(out.n), k;
                    void *rmem = malloc(rbytes);
                    xlarun_reply rp;
                    int ok;
                    if (!rmem) { strcpy(err.message, "out of memory"); goto error; }
                    if (xlarun_reply_parse(tool_format, out.reply ? out.reply : "", out.n, rmem, rbytes, &rp,
                                           &err) != XLARUN_OK) { free(rmem); goto error; }
                    ok = (msgs.n || sb_put(&msgs, "[", 1)) && (msgs.n == 1 || sb_put(&msgs, ",", 1)) &&
                         sb_put(&msgs, "{\"role\":\"assistant\",\"content\":", 32) && sb_json_string(&msgs, rp.content, strlen(rp.content));
                    if (ok && rp.n_calls) ok = sb_put(&msgs, ",\"tool_calls\":[", 15);
                    for (k = 0; ok && k < rp.n_calls; k++) {
                        strbuf line = {NULL, 0, 0};
                        const xlarun_tool_call *c = &rp.calls[k];
                        ok = sb_put(&line, "{\"name\": ", 9) && sb_json_string(&line, c->name, strlen(c->name)) &&
                             sb_put(&line, ", \"arguments\": ", 15) && sb_put(&line, c->arguments, strlen(c->arguments)) && sb_put(&line, "}", 1);
                        if (ok) printf("%s\n", line.p);
                        free(line.p);
                        ok = ok && (k == 0 || sb_put(&msgs, ",", 1)) && sb_put(&msgs, "{\"type\":\"function\",", 20) &&
                             (!c->id || (sb_put(&msgs, "\"id\":", 5) && sb_json_string(&msgs, c->id, strlen(c->id)) && sb_put(&msgs, ",", 1))) &&
                             sb_put(&msgs, "\"function\":{\"name\":", 19) && sb_json_string(&msgs, c->name, strlen(c->name)) &&
                             sb_put(&msgs, ",\"arguments\":", 13) && sb_put(&msgs, c->arguments, strlen(c->arguments)) && sb_put(&msgs, "}}", 2);
                    }
                    if (ok && rp.n_calls) ok = sb_put(&msgs, "]", 1);
                    ok = ok && sb_put(&msgs, "}", 1);
                    fflush(stdout);
                    free(rmem);
                    if (!ok) { strcpy(err.message, "out of memory"); goto error; }
                } else if (chat && !conv_add(&msgs, "assistant", out.reply ? out.reply : "", out.n)) { strcpy(err.message, "out of memory"); goto error; }
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
    free(tmpl_text);
    free(tools_text);
    free(vars.p);
    free(msgs.p);
    free(out.reply);
    free(prompt);
    free(prompt_text);
    return rc;
}
