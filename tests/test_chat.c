/* tests/test_chat.c - layer 7: the Jinja interpreter that runs chat templates, against
   transformers' apply_chat_template on real templates (tests/fixtures/jinja/cases.txt, written by
   tools/make_jinja_fixtures.py), the built-in templates against the older fixtures
   (tests/fixtures/chat/cases.txt), Python's semantics case by case, and bad input. */
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include "test.h"
#include <stdlib.h>

#define FIXED_NOW 1727358307 /* 2024-09-26 13:45:07 UTC: the oracle's strftime_now */

static char *unhex(const char *h, size_t *len) {
    size_t n = strspn(h, "0123456789abcdef") / 2, i;
    char *s = (char *)malloc(n + 1);
    for (i = 0; i < n; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        s[i] = (char)v;
    }
    s[n] = 0;
    if (len) *len = n;
    return s;
}

/* render with exact memory: the size query, then the caller's blocks (work and text exactly sized) */
static xlarun_status render(const xlarun_chat_template *t, const xlarun_chat_input *in, char **text, size_t *len,
                            xlarun_error *err) {
    size_t work = 0, n = 0, n2 = 0;
    void *mem;
    xlarun_status st;
    *text = NULL;
    st = xlarun_chat_render_memory(t, in, &work, &n, err);
    if (st != XLARUN_OK) return st;
    mem = malloc(work ? work : 1);
    *text = (char *)malloc(n + 1);
    st = xlarun_chat_render(t, in, mem, work, *text, n + 1, &n2, err);
    CHECKF(st != XLARUN_OK || n2 == n, "the size query said %lu bytes of text, the render wrote %lu", (unsigned long)n, (unsigned long)n2);
    if (st == XLARUN_OK && work > 64) { /* one byte less work memory than measured must fail cleanly */
        xlarun_error e2;
        size_t n3;
        char *t2 = (char *)malloc(n + 1);
        xlarun_status s2 = xlarun_chat_render(t, in, mem, work - 8, t2, n + 1, &n3, &e2);
        CHECKF(s2 == XLARUN_ERR_MEMORY, "%lu work bytes measured, %lu also rendered (%s)", (unsigned long)work,
               (unsigned long)(work - 8), xlarun_status_name(s2));
        free(t2);
    }
    free(mem);
    *len = n2;
    return st;
}

/* ---- real templates against transformers ------------------------------------------------------ */
static void test_fixtures(int verbose) {
    char *all = read_file("tests/fixtures/jinja/cases.txt", NULL), *pos = all, *line;
    char cur_name[128] = "";
    xlarun_chat_template *t = NULL;
    xlarun_error terr;
    xlarun_status tst = XLARUN_OK;
    int n_cases = 0, n_text = 0, n_err = 0, n_fail = 0, n_templates = 0;
    char name[128], conv[128], etype[64] = "";
    int n_own_words = 0;
    char *msgs = NULL, *tools = NULL, *vars = NULL, *text = NULL, *error = NULL;
    int gen = 1, on = 0;
    size_t text_len = 0;
    if (test_case("jinja cases.txt")) CHECKF(all != NULL, "tests/fixtures/jinja/cases.txt is missing (tools/make_jinja_fixtures.py)");
    if (!all) return;
    while ((line = pos) != NULL && *line) {
        char *nl = strchr(line, '\n');
        pos = nl ? nl + 1 : line + strlen(line);
        if (nl) *nl = 0;
        if (!strncmp(line, "case ", 5)) sscanf(line + 5, "%127s %127s", name, conv);
        else if (!strncmp(line, "messages ", 9)) msgs = unhex(line + 9, NULL);
        else if (!strncmp(line, "tools ", 6)) tools = line[6] == '-' ? NULL : unhex(line + 6, NULL);
        else if (!strncmp(line, "vars ", 5)) vars = unhex(line + 5, NULL);
        else if (!strncmp(line, "gen ", 4)) gen = line[4] == '1';
        else if (!strncmp(line, "text ", 5)) text = unhex(line + 5, &text_len);
        else if (!strncmp(line, "error ", 6)) {
            char *sp = strchr(line + 6, ' ');
            error = unhex(sp ? sp + 1 : line + 6, NULL);
            snprintf(etype, sizeof etype, "%.*s", (int)(sp ? sp - (line + 6) : 0), line + 6);
        }
        else if (!strcmp(line, "end")) {
            xlarun_chat_input in;
            xlarun_error err;
            char *out = NULL;
            size_t len = 0;
            xlarun_status st;
            int ok;
            if (strcmp(name, cur_name)) { /* a template's cases are one case here */
                char path[256];
                char *src;
                size_t slen = 0;
                xlarun_chat_template_free(t);
                t = NULL;
                snprintf(cur_name, sizeof cur_name, "%s", name);
                n_templates++;
                on = test_case("jinja template %s", name);
                if (on) {
                    snprintf(path, sizeof path, "tests/fixtures/jinja/templates/%s.jinja", name);
                    src = read_file(path, &slen);
                    CHECKF(src != NULL, "%s is missing", path);
                    tst = src ? xlarun_chat_template_create(src, slen, &t, &terr) : XLARUN_ERR_IO;
                    if (tst != XLARUN_OK && verbose) fprintf(stderr, "TEMPLATE %s: %s\n", name, terr.message);
                    free(src);
                }
            }
            n_cases++;
            if (on) {
                memset(&in, 0, sizeof in);
                in.messages_json = msgs;
                in.tools_json = tools;
                in.vars_json = vars;
                in.no_generation_prompt = !gen;
                in.now = FIXED_NOW;
                if (tst != XLARUN_OK) {
                    ok = 0;
                    if (verbose > 1) fprintf(stderr, "FAILCASE %s %s: template refused: %s\n", name, conv, terr.message);
                } else {
                    st = render(t, &in, &out, &len, &err);
                    if (text) ok = st == XLARUN_OK && len == text_len && !memcmp(out, text, len);
                    else {
                        /* the template's own exception (raise_exception): xlarun's message carries its words; for
                           Python's errors (TypeError, UndefinedError, ...) the status and a line are what is asked */
                        ok = st == XLARUN_ERR_ARGUMENT;
                        if (ok && !strcmp(etype, "TemplateError")) { ok = strstr(err.message, error) != NULL; n_own_words += ok; }
                    }
                    if (!ok && verbose > 1) {
                        fprintf(stderr, "FAILCASE %s %s: %s\n", name, conv, st == XLARUN_OK ? "different text" : err.message);
                        if (st == XLARUN_OK && text && verbose > 2) {
                            size_t k = 0;
                            while (k < len && k < text_len && out[k] == text[k]) k++;
                            fprintf(stderr, "  at byte %lu: got [%.80s]\n  want [%.80s]\n", (unsigned long)k, out + k, text + k);
                        }
                        if (!text) fprintf(stderr, "  (transformers raised: %s)\n", error);
                    }
                }
                if (ok) { if (text) n_text++; else n_err++; }
                else n_fail++;
                CHECKF(ok || verbose, "%s %s", name, conv);
            }
            free(out);
            free(msgs); free(tools); free(vars); free(text); free(error);
            msgs = tools = vars = text = error = NULL;
            gen = 1;
        }
    }
    xlarun_chat_template_free(t);
    free(all);
    if (n_text + n_err + n_fail)
        printf("jinja fixtures: %d templates, %d cases: %d rendered byte-identical, %d refused as transformers raised (%d with "
               "the template's own message), %d failed\n", n_templates, n_cases, n_text, n_err, n_own_words, n_fail);
    if (test_case("jinja coverage")) CHECKF(n_cases >= 2000 && n_templates >= 100, "only %d cases of %d templates", n_cases, n_templates);
}


/* ---- the built-in templates against the older fixtures (transformers 4.46.3) ------------------------ */
#define MAX_MSGS 8
typedef struct chat_case {
    char tmpl[64], conv[64], tokenizer[64];
    char *date, *bos, *eos, *text, *error, *roles[MAX_MSGS], *contents[MAX_MSGS];
    int n_msgs, nothink, nogen;
    int32_t *ids;
    size_t n_ids;
} chat_case;

static void free_case(chat_case *c) {
    int i;
    free(c->date); free(c->bos); free(c->eos); free(c->text); free(c->error); free(c->ids);
    for (i = 0; i < c->n_msgs; i++) { free(c->roles[i]); free(c->contents[i]); }
    memset(c, 0, sizeof *c);
}

/* the next case from the fixture text; 0 at the end */
static int next_case(char **pos, chat_case *c) {
    char *line;
    memset(c, 0, sizeof *c);
    while ((line = *pos) != NULL && *line) {
        char *nl = strchr(line, '\n');
        *pos = nl ? nl + 1 : line + strlen(line);
        if (nl) *nl = 0;
        if (!strncmp(line, "case ", 5)) sscanf(line + 5, "%63s %63s", c->tmpl, c->conv);
        else if (!strncmp(line, "date ", 5)) c->date = line[5] == '-' ? NULL : unhex(line + 5, NULL);
        else if (!strncmp(line, "bos ", 4)) c->bos = line[4] == '-' ? NULL : unhex(line + 4, NULL);
        else if (!strncmp(line, "eos ", 4)) c->eos = line[4] == '-' ? NULL : unhex(line + 4, NULL);
        else if (!strncmp(line, "msg ", 4) && c->n_msgs < MAX_MSGS) {
            char role[32];
            sscanf(line + 4, "%31s", role);
            c->roles[c->n_msgs] = (char *)malloc(strlen(role) + 1);
            strcpy(c->roles[c->n_msgs], role);
            c->contents[c->n_msgs++] = unhex(line + 5 + strlen(role), NULL);
        } else if (!strncmp(line, "text ", 5)) c->text = unhex(line + 5, NULL);
        else if (!strncmp(line, "error ", 6)) c->error = unhex(line + 6, NULL);
        else if (!strcmp(line, "nothink")) c->nothink = 1;
        else if (!strcmp(line, "nogen")) c->nogen = 1;
        else if (!strncmp(line, "tokenizer ", 10)) sscanf(line + 10, "%63s", c->tokenizer);
        else if (!strncmp(line, "ids ", 4)) {
            char *p = line + 4, *e;
            size_t i;
            c->n_ids = strtoul(p, &e, 10);
            c->ids = (int32_t *)malloc((c->n_ids + 1) * sizeof(int32_t));
            for (i = 0, p = e; i < c->n_ids; i++, p = e) c->ids[i] = (int32_t)strtol(p, &e, 10);
        } else if (!strcmp(line, "end")) return 1;
    }
    return 0;
}

/* the fixture's template file -> the built-in template published with it (NULL: none; the file runs) */
static const char *builtin_for(const char *file) {
    static const char *const map[][2] = {
        {"llama3-instruct", "llama3"}, {"llama3.1-instruct", "llama3.1"}, {"llama3.2-instruct", "llama3.2"},
        {"llama2-chat", "llama2"}, {"tinyllama-chat", "zephyr"}, {"mistral-instruct", "mistral"},
        {"mixtral-8x22b", "mistral-v3"}, {"mixtral-8x7b", "mixtral"}, {"mistral-small", "mistral-small"},
        {"mistral-large", "mistral-large"}, {"qwen3", "qwen3"}, {"gemma2", "gemma"}, {"gemma3-270m", "gemma3"},
        {"phi3-mini", "phi3"}, {"phi3.5-mini", "phi3.5"}, {"phi3-medium", "phi3-medium"}, {"phi4-mini", "phi4-mini"},
        {"olmo2", "olmo2"}};
    size_t k;
    for (k = 0; k < sizeof map / sizeof map[0]; k++)
        if (!strcmp(map[k][0], file)) return map[k][1];
    return NULL;
}

static void test_old_fixtures(void) {
    char *all = read_file("tests/fixtures/chat/cases.txt", NULL), *pos = all;
    chat_case c;
    int n_cases = 0, n_ids = 0, n_errors = 0, n_builtin = 0, n_run = 0;
    if (test_case("chat cases.txt")) CHECKF(all != NULL, "tests/fixtures/chat/cases.txt is missing (tools/make_chat_fixtures.py)");
    if (!all) return;
    while (next_case(&pos, &c)) {
        char path[256], *file_text, *out = NULL, vars[512];
        const char *name = builtin_for(c.tmpl), *src;
        xlarun_chat_template *t = NULL;
        xlarun_chat_input in;
        xlarun_chat_message m[MAX_MSGS];
        xlarun_error err;
        size_t len = 0, flen = 0;
        int i;
        xlarun_status st;
        n_cases++;
        n_builtin += name != NULL;
        if (!test_case("chat fixture %s/%s%s%s%s%s", c.tmpl, c.conv, c.nothink ? " nothink" : "", c.nogen ? " nogen" : "",
                       c.date ? " date " : "", c.date ? c.date : "")) {
            free_case(&c);
            continue;
        }
        n_run++;
        snprintf(path, sizeof path, "tests/fixtures/chat/templates/%s.jinja", c.tmpl);
        file_text = read_file(path, &flen);
        CHECKF(file_text != NULL, "%s missing", path);
        src = name ? xlarun_chat_template_builtin(name) : file_text;
        if (name) /* a built-in is the published text itself */
            CHECKF(src && file_text && !strcmp(src, file_text), "built-in %s differs from %s", name, path);
        CHECKF(src && xlarun_chat_template_create(src, strlen(src), &t, &err) == XLARUN_OK, "%s: %s", c.tmpl, err.message);
        memset(&in, 0, sizeof in);
        in.bos_token = c.bos;
        in.eos_token = c.eos;
        in.no_generation_prompt = c.nogen;
        in.now = FIXED_NOW;
        vars[0] = 0;
        if (c.date || c.nothink) {
            char *dj = NULL;
            if (c.date) { /* a date is plain text: quote it for JSON */
                dj = (char *)malloc(strlen(c.date) + 3);
                sprintf(dj, "\"%s\"", c.date);
            }
            snprintf(vars, sizeof vars, "{%s%s%s%s}", dj ? "\"date_string\": " : "", dj ? dj : "", dj && c.nothink ? ", " : "",
                     c.nothink ? "\"enable_thinking\": false" : "");
            free(dj);
            in.vars_json = vars;
        }
        for (i = 0; i < c.n_msgs; i++) { m[i].role = c.roles[i]; m[i].content = c.contents[i]; }
        in.messages = m;
        in.n_messages = (size_t)c.n_msgs;
        st = t ? render(t, &in, &out, &len, &err) : XLARUN_ERR_FORMAT;
        if (c.error) { /* the template raised: xlarun refuses the conversation, with the template's words */
            CHECKF(st == XLARUN_ERR_ARGUMENT, "%s/%s: rendered a conversation the template refuses (%s)", c.tmpl, c.conv, c.error);
            if (strstr(c.error, "object has no attribute") == NULL && strstr(c.error, "str object") == NULL)
                CHECKF(strstr(err.message, c.error) != NULL, "%s/%s: '%s' for the template's '%s'", c.tmpl, c.conv, err.message, c.error);
            n_errors++;
        } else {
            CHECKF(st == XLARUN_OK, "%s/%s: %s", c.tmpl, c.conv, err.message);
            CHECKF(st == XLARUN_OK && len == strlen(c.text) && strcmp(out, c.text) == 0, "%s/%s:\n got  [%s]\n want [%s]", c.tmpl,
                   c.conv, out ? out : "", c.text);
        }
        if (c.ids && st == XLARUN_OK) { /* the ids transformers gives for the rendered text */
            xlarun_tokenizer *tok;
            snprintf(path, sizeof path, "tests/fixtures/tokenizers/%s", c.tokenizer);
            if (xlarun_tokenizer_open(path, NULL, &tok, &err) == XLARUN_OK) {
                int32_t ids[2048];
                size_t n = 0, k;
                int same;
                CHECKF(xlarun_tokenizer_encode(tok, out, len, XLARUN_ENCODE_NO_BOS, ids, 2048, &n, NULL, 0, &err) == XLARUN_OK,
                       "%s", err.message);
                same = n == c.n_ids;
                for (k = 0; same && k < n; k++) same = ids[k] == c.ids[k];
                CHECKF(same, "%s/%s with tokenizer %s: ids differ (%lu vs %lu)", c.tmpl, c.conv, c.tokenizer,
                       (unsigned long)n, (unsigned long)c.n_ids);
                n_ids++;
                xlarun_tokenizer_close(tok);
            } else CHECKF(0, "%s: %s", path, err.message);
        }
        free(out);
        xlarun_chat_template_free(t);
        free(file_text);
        free_case(&c);
    }
    if (test_case("chat coverage")) {
        CHECKF(n_cases >= 40, "only %d chat cases", n_cases);
        CHECKF(n_builtin >= 18 * 3, "only %d cases through built-in templates", n_builtin);
    }
    if (n_run)
        printf("older chat fixtures: %d of %d conversations rendered as transformers 4.46.3 does (%d through built-in templates, "
               "%d refused as the template does), %d also as ids\n", n_run, n_cases, n_builtin, n_errors, n_ids);
    free(all);
}

/* ---- semantics one template at a time (tests/fixtures/jinja/units.txt, jinja2 as transformers sets it up) -- */
static void test_units(int verbose) {
    char *all = read_file("tests/fixtures/jinja/units.txt", NULL), *pos = all, *line;
    char *tmpl = NULL, *vars = NULL, *text = NULL, *error = NULL, etype[64] = "";
    size_t tlen = 0, text_len = 0;
    int n = 0, n_err = 0, unit = -1;
    CHECKF(all != NULL, "tests/fixtures/jinja/units.txt is missing (tools/make_jinja_unit_fixtures.py)");
    if (!all) return;
    while ((line = pos) != NULL && *line) {
        char *nl = strchr(line, '\n');
        pos = nl ? nl + 1 : line + strlen(line);
        if (nl) *nl = 0;
        if (!strncmp(line, "unit ", 5)) unit = atoi(line + 5);
        else if (!strncmp(line, "template ", 9)) tmpl = unhex(line + 9, &tlen);
        else if (!strncmp(line, "vars ", 5)) vars = unhex(line + 5, NULL);
        else if (!strncmp(line, "text ", 5)) text = unhex(line + 5, &text_len);
        else if (!strncmp(line, "error ", 6)) {
            char *sp = strchr(line + 6, ' ');
            error = unhex(sp ? sp + 1 : line + 6, NULL);
            snprintf(etype, sizeof etype, "%.*s", (int)(sp ? sp - (line + 6) : 0), line + 6);
        } else if (!strcmp(line, "end")) {
            xlarun_chat_template *t = NULL;
            xlarun_error err;
            xlarun_status st = xlarun_chat_template_create(tmpl, tlen, &t, &err);
            char *out = NULL;
            size_t len = 0;
            n++;
            if (text) {
                xlarun_chat_input in;
                CHECKF(st == XLARUN_OK, "unit %d: %s\n  %s", unit, err.message, tmpl);
                memset(&in, 0, sizeof in);
                in.vars_json = vars;
                in.now = FIXED_NOW;
                in.messages_json = "[]";
                if (st == XLARUN_OK) {
                    st = render(t, &in, &out, &len, &err);
                    CHECKF(st == XLARUN_OK, "unit %d: %s\n  %s", unit, err.message, tmpl);
                    CHECKF(st != XLARUN_OK || (len == text_len && !memcmp(out, text, len)), "unit %d: %s\n  got  [%s]\n  want [%s]", unit,
                           tmpl, out ? out : "", text);
                }
            } else if (!strcmp(etype, "TemplateSyntaxError") || !strcmp(etype, "TemplateAssertionError")) {
                /* jinja2 refuses it when compiling: so does xlarun, with a line and column */
                CHECKF(st == XLARUN_ERR_FORMAT, "unit %d: compiled a template jinja2 refuses (%s): %s", unit, error, tmpl);
                if (st == XLARUN_ERR_FORMAT) CHECK_CONTAINS(err.message, "column");
                if (verbose) fprintf(stderr, "unit %d: jinja2 '%s', xlarun '%s'\n", unit, error, err.message);
                n_err++;
            } else {
                xlarun_chat_input in;
                memset(&in, 0, sizeof in);
                in.vars_json = vars;
                in.now = FIXED_NOW;
                in.messages_json = "[]";
                if (st == XLARUN_OK) st = render(t, &in, &out, &len, &err);
                CHECKF(st != XLARUN_OK, "unit %d: rendered what jinja2 refuses (%s %s): [%s]", unit, etype, error, out ? out : "");
                if (!strcmp(etype, "TemplateError")) CHECK_CONTAINS(err.message, error);
                if (verbose) fprintf(stderr, "unit %d: jinja2 %s '%s', xlarun '%s'\n", unit, etype, error, err.message);
                n_err++;
            }
            free(out);
            xlarun_chat_template_free(t);
            free(tmpl); free(vars); free(text); free(error);
            tmpl = vars = text = error = NULL;
            etype[0] = 0;
        }
    }
    free(all);
    printf("jinja units: %d templates, %d rendered as transformers' environment does, %d refused as it refuses them\n", n, n - n_err, n_err);
}

/* ---- tool calls both ways, in C: a family's real template renders an assistant message with
   tool_calls (xlarun's interpreter), the text the model would have written is what follows the
   generation prompt, and xlarun_reply_parse reads the same calls back ---------------------------- */
static void test_roundtrip(void) {
    static const struct { const char *tmpl; xlarun_tool_format f; const char *end; int args_string, no_content, two; } fam[] = {
        {"llama3.1-instruct", XLARUN_TOOLS_LLAMA3, "<|eot_id|>", 0, 0, 0},
        {"llama3.2-instruct", XLARUN_TOOLS_LLAMA3, "<|eot_id|>", 0, 0, 0},
        {"hermes-2-pro", XLARUN_TOOLS_HERMES, "<|im_end|>\n", 0, 0, 1},
        {"qwen2.5-instruct", XLARUN_TOOLS_HERMES, "<|im_end|>\n", 0, 0, 1},
        {"qwen3", XLARUN_TOOLS_HERMES, "<|im_end|>\n", 0, 0, 1},
        {"qwq-32b", XLARUN_TOOLS_HERMES, "<|im_end|>\n", 0, 0, 1},
        {"mistral-7b-v0.3", XLARUN_TOOLS_MISTRAL, "</s>", 0, 0, 1},
        {"mistral-nemo", XLARUN_TOOLS_MISTRAL, "</s>", 0, 0, 1},
        {"mistral-small-3.2", XLARUN_TOOLS_MISTRAL, "</s>", 0, 0, 1},
        {"devstral", XLARUN_TOOLS_MISTRAL, "</s>", 0, 0, 1},
        {"granite-4", XLARUN_TOOLS_GRANITE, "<|end_of_text|>\n", 0, 0, 1},
        {"granite-4", XLARUN_TOOLS_HERMES, "<|end_of_text|>\n", 1, 0, 0},
        {"qwen3-coder", XLARUN_TOOLS_QWEN3_CODER, "<|im_end|>\n", 0, 0, 1},
        {"qwen3.5", XLARUN_TOOLS_QWEN3_CODER, "<|im_end|>\n", 0, 0, 1},
        {"nemotron-3-nano", XLARUN_TOOLS_QWEN3_CODER, "<|im_end|>\n", 0, 0, 1},
        {"functionary-v3.1", XLARUN_TOOLS_FUNCTIONARY_V3_1, "<|eom_id|>", 1, 0, 1},
        {"functionary", XLARUN_TOOLS_FUNCTIONARY_V3_2, "<|eot_id|>", 1, 0, 1}};
    /* the DeepSeek-R1 distills' templates write tool calls only for an assistant message whose content is
       None, and apply_chat_template drops None-valued keys first (so does xlarun): they raise instead.
       tests/test_reply.c reads their format from renderings that kept the None. */
    static const char *const args[2] = {"{\"city\":\"Paris\",\"unit\":\"celsius\",\"days\":3}", "{\"city\":\"Bern\",\"note\":\"a \\\"q\\\" \xc3\xa9\\n\"}"};
    static const char *const names[2] = {"get_weather", "get_time"};
    size_t k;
    int n_ok = 0;
    for (k = 0; k < sizeof fam / sizeof fam[0]; k++) {
        int two;
        for (two = 0; two <= fam[k].two; two++) {
            char path[256], msgs[4096], prefix_msgs[1024], calls[1024], *src;
            char *full = NULL, *pre = NULL;
            size_t slen = 0, flen = 0, plen = 0, common = 0, olen, i, bytes;
            xlarun_chat_template *t = NULL;
            xlarun_chat_input in;
            xlarun_error err;
            xlarun_reply r;
            void *mem;
            int c;
            snprintf(path, sizeof path, "tests/fixtures/jinja/templates/%s.jinja", fam[k].tmpl);
            src = read_file(path, &slen);
            CHECKF(src && xlarun_chat_template_create(src, slen, &t, &err) == XLARUN_OK, "%s", path);
            free(src);
            if (!t) continue;
            calls[0] = 0;
            for (c = 0; c <= two; c++) { /* arguments as an object, or as its JSON text in a string */
                char a[256], *q = a;
                const char *p0 = args[c];
                if (fam[k].args_string) {
                    *q++ = '"';
                    for (; *p0; p0++) { if (*p0 == '"' || *p0 == '\\') *q++ = '\\'; *q++ = *p0; }
                    *q++ = '"';
                    *q = 0;
                } else snprintf(a, sizeof a, "%s", args[c]);
                snprintf(calls + strlen(calls), sizeof calls - strlen(calls),
                         "%s{\"id\": \"Wx7pQ2nZ%d\", \"type\": \"function\", \"function\": {\"name\": \"%s\", \"arguments\": %s}}", c ? ", " : "",
                         c + 1, names[c], a);
            }
            snprintf(prefix_msgs, sizeof prefix_msgs, "[{\"role\": \"system\", \"content\": \"You can call tools.\"}, "
                                                      "{\"role\": \"user\", \"content\": \"Weather in Paris, time in Bern?\"}");
            snprintf(msgs, sizeof msgs, "%s, {\"role\": \"assistant\", %s\"tool_calls\": [%s]}]", prefix_msgs,
                     fam[k].no_content ? "" : "\"content\": \"\", ", calls);
            strcat(prefix_msgs, "]");
            memset(&in, 0, sizeof in);
            in.bos_token = "<s>";
            in.eos_token = fam[k].end;
            in.now = FIXED_NOW;
            in.messages_json = msgs;
            in.tools_json = "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Weather\", "
                            "\"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}}}]";
            in.no_generation_prompt = 1;
            CHECKF(xlarun_chat_render_alloc(t, &in, &full, &flen, &err) == XLARUN_OK, "%s: %s", fam[k].tmpl, err.message);
            in.messages_json = prefix_msgs;
            in.no_generation_prompt = 0;
            CHECKF(xlarun_chat_render_alloc(t, &in, &pre, &plen, &err) == XLARUN_OK, "%s: %s", fam[k].tmpl, err.message);
            xlarun_chat_template_free(t);
            if (!full || !pre) { xlarun_chat_text_free(full); xlarun_chat_text_free(pre); continue; }
            /* the model writes what follows its prompt; where the prompt opened a block the full text does not
               have (QwQ's "<think>\n"), from where the two part */
            while (common < plen && common < flen && pre[common] == full[common]) common++;
            if (common < plen) while (common > 0 && full[common - 1] != '\n') common--; /* back to the line the two share */
            olen = flen - common;
            if (olen >= strlen(fam[k].end) && !memcmp(full + flen - strlen(fam[k].end), fam[k].end, strlen(fam[k].end)))
                olen -= strlen(fam[k].end);
            while (olen && (full[common + olen - 1] == ' ' || full[common + olen - 1] == '\n')) olen--;
            bytes = xlarun_reply_memory(olen);
            CHECK(bytes < ((size_t)1 << 24)); /* a few KB of reply (SIZE_MAX only for lengths past SIZE_MAX / 16) */
            mem = malloc(bytes < ((size_t)1 << 24) ? bytes : 1);
            CHECKF(xlarun_reply_parse(fam[k].f, full + common, olen, NULL, 0, mem, bytes, &r, &err) == XLARUN_OK, "%s: %s\n  [%.*s]", fam[k].tmpl,
                   err.message, (int)olen, full + common);
            CHECKF(r.n_calls == (size_t)(two + 1), "%s: %lu calls read back from [%.*s]", fam[k].tmpl, (unsigned long)r.n_calls, (int)olen,
                   full + common);
            for (i = 0; i < r.n_calls && i < 2; i++) {
                CHECKF(!strcmp(r.calls[i].name, names[i]), "%s: call %lu named %s", fam[k].tmpl, (unsigned long)i, r.calls[i].name);
                CHECKF(!strcmp(r.calls[i].arguments, args[i]), "%s: call %lu arguments %s, want %s", fam[k].tmpl, (unsigned long)i,
                       r.calls[i].arguments, args[i]);
                if (!strcmp(r.calls[i].name, names[i]) && !strcmp(r.calls[i].arguments, args[i])) n_ok++;
            }
            free(mem);
            xlarun_chat_text_free(full);
            xlarun_chat_text_free(pre);
        }
    }
    printf("tool calls both ways: %d calls rendered by %lu families' templates and read back the same\n", n_ok,
           (unsigned long)(sizeof fam / sizeof fam[0]));
    CHECKF(n_ok >= 30, "only %d calls round-tripped", n_ok);
}

/* ---- the tool format a template writes, by running it (xlarun_chat_tool_format): the format of each
   family as tools/make_toolcall_fixtures.py assigns it, where apply_chat_template renders its calls;
   templates that render none (written 0), and ones that write a format xlarun does not read (written 1, or 2
   where the template takes the arguments only as a JSON string) */
static void test_tool_format_probe(void) {
    static const struct { const char *tmpl; xlarun_tool_format f; int written; } want[] = {
        {"llama3.1-instruct", XLARUN_TOOLS_LLAMA3, 1}, {"llama3.2-instruct", XLARUN_TOOLS_LLAMA3, 1},
        {"hermes-2-pro", XLARUN_TOOLS_HERMES, 1}, {"qwen2.5-instruct", XLARUN_TOOLS_HERMES, 1}, {"qwen3", XLARUN_TOOLS_HERMES, 1},
        {"qwq-32b", XLARUN_TOOLS_HERMES, 1}, {"mistral-7b-v0.3", XLARUN_TOOLS_MISTRAL, 1}, {"mistral-nemo", XLARUN_TOOLS_MISTRAL, 1},
        {"mistral-small-3.2", XLARUN_TOOLS_MISTRAL, 1}, {"devstral", XLARUN_TOOLS_MISTRAL, 1},
        {"granite-4", XLARUN_TOOLS_HERMES, 1}, /* <tool_call>{..}</tool_call>: Hermes and Granite read it alike, Hermes first */
        {"deepseek-r1", XLARUN_TOOLS_DEEPSEEK_R1, 2}, {"qwen3-coder", XLARUN_TOOLS_QWEN3_CODER, 1},
        {"qwen3.5", XLARUN_TOOLS_QWEN3_CODER, 1}, {"nemotron-3-nano", XLARUN_TOOLS_QWEN3_CODER, 1},
        /* 2: the arguments only as a JSON string (these templates concatenate them) */
        {"functionary-v3.1", XLARUN_TOOLS_FUNCTIONARY_V3_1, 2}, {"functionary", XLARUN_TOOLS_FUNCTIONARY_V3_2, 2},
        {"functionary-v2.2", XLARUN_TOOLS_NONE, 2}, /* <|from|>assistant\n<|recipient|>NAME\n<|content|>{..}: not read */
        {"deepseek-r1-distill-llama", XLARUN_TOOLS_NONE, 0}, /* content None only, and apply_chat_template drops it */
        {"smollm3", XLARUN_TOOLS_NONE, 0}, {"hermes-3", XLARUN_TOOLS_NONE, 0}, {"granite-3.3", XLARUN_TOOLS_NONE, 0},
        {"glm-4.6", XLARUN_TOOLS_NONE, 1}, {"kimi-k2", XLARUN_TOOLS_NONE, 1}, {"gpt-oss", XLARUN_TOOLS_NONE, 1}};
    size_t k;
    for (k = 0; k < sizeof want / sizeof want[0]; k++) {
        char path[256], *src;
        size_t slen = 0;
        xlarun_chat_template *t = NULL;
        xlarun_chat_input in;
        xlarun_error err;
        xlarun_tool_format f;
        int written = -1;
        snprintf(path, sizeof path, "tests/fixtures/jinja/templates/%s.jinja", want[k].tmpl);
        src = read_file(path, &slen);
        CHECKF(src && xlarun_chat_template_create(src, slen, &t, &err) == XLARUN_OK, "%s", path);
        free(src);
        if (!t) continue;
        memset(&in, 0, sizeof in);
        in.bos_token = "<s>";
        in.eos_token = "</s>";
        in.now = FIXED_NOW;
        in.messages_json = "[not even JSON"; /* the probe's own messages and tools replace these */
        in.tools_json = "{";
        f = xlarun_chat_tool_format(t, &in, &written);
        CHECKF(f == want[k].f && written == want[k].written, "%s: %s (written %d), want %s (%d)", want[k].tmpl,
               xlarun_tool_format_name(f), written, xlarun_tool_format_name(want[k].f), want[k].written);
        CHECKF(xlarun_chat_tool_format(t, &in, NULL) == f, "%s: without written", want[k].tmpl);
        xlarun_chat_template_free(t);
    }
    CHECK(xlarun_chat_tool_format(NULL, NULL, NULL) == XLARUN_TOOLS_NONE);
    printf("tool format probe: %lu templates\n", (unsigned long)(sizeof want / sizeof want[0]));
}

/* ---- bad input: a status and a message naming the line and column or the key; never a crash or a hang -- */
static xlarun_status render_src(const char *src, const xlarun_chat_input *in0, char *out, size_t cap, xlarun_error *err) {
    xlarun_chat_template *t = NULL;
    xlarun_chat_input in;
    size_t len;
    char work[1 << 16];
    xlarun_status st = xlarun_chat_template_create(src, strlen(src), &t, err);
    if (st != XLARUN_OK) return st;
    if (in0) in = *in0;
    else { memset(&in, 0, sizeof in); in.messages_json = "[]"; }
    st = xlarun_chat_render(t, &in, work, sizeof work, out, cap, &len, err);
    xlarun_chat_template_free(t);
    return st;
}

static void test_bad_input(void) {
    xlarun_error err;
    char out[4096], deep[4096];
    xlarun_chat_input in;
    xlarun_chat_template *t = NULL;
    size_t bytes = 0, len = 0, k;
    /* syntax: line and column */
    CHECK(render_src("ok\n{% if x %}\n{{ x + }}\n{% endif %}", NULL, out, sizeof out, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "chat template line 3 column 8: expected an expression, found '}}'");
    CHECK(render_src("{% for m in messages %}", NULL, out, sizeof out, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "unexpected end of template, expected");
    CHECK(render_src("{{ 'unterminated }}", NULL, out, sizeof out, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "line 1 column 4: unterminated string");
    CHECK(render_src("{{ x | nosuch }}", NULL, out, sizeof out, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "line 1 column 8: no filter named 'nosuch'");
    CHECK(render_src("{% if false %}{{ 1 is nosuch }}{% endif %}", NULL, out, sizeof out, &err) == XLARUN_OK); /* inside an if: only if it runs */
    CHECK(render_src("{% if true %}{{ 1 is nosuch }}{% endif %}", NULL, out, sizeof out, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "no test named 'nosuch'");
    {   /* more refusals, each with its status and message (the parser's at load, the rest as they run) */
        static const struct { const char *src; xlarun_status st; const char *msg; } bad[] = {
            {"{{ '\\N{BULLET}' }}", XLARUN_ERR_FORMAT, "line 1 column 4: \\N{...} escapes are not supported"},
            {"{{ x | a.b }}", XLARUN_ERR_FORMAT, "dotted filter names are not supported"},
            {"{{ range(stop=3, 1) }}", XLARUN_ERR_FORMAT, "a positional argument follows a keyword argument"},
            {"{{ range(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17) }}", XLARUN_ERR_ARGUMENT, "more than 16 arguments"},
            {"{{ {[1]: 2} }}", XLARUN_ERR_ARGUMENT, "unhashable type: 'list'"},
            {"{% set x = 1 %}{% set x.a = 2 %}", XLARUN_ERR_ARGUMENT, "cannot assign attribute on non-namespace object"},
            {"{{ dict(**[1]) }}", XLARUN_ERR_ARGUMENT, "argument after ** must be a mapping, not list"},
            {"{% set ns = namespace() %}{% set ns._x = 1 %}", XLARUN_ERR_ARGUMENT, "cannot store underscore-prefixed attributes on a namespace"},
            /* what Python prints with a memory address, and what has no value in xlarun: refused, not made up */
            {"ok\n{{ [1]|map('string') }}", XLARUN_ERR_ARGUMENT, "line 2 column 8: Python prints a generator object with its memory address"},
            {"{{ range }}", XLARUN_ERR_ARGUMENT, "line 1 column 4: Python prints a function object with its memory address"},
            {"{{ 'a' ~ 'b'.upper }}", XLARUN_ERR_ARGUMENT, "Python prints a function object"},
            {"{{ [cycler(1)] }}", XLARUN_ERR_ARGUMENT, "Python prints a Cycler object"},
            {"{{ 'x' ~ (range(2)|reverse) }}", XLARUN_ERR_ARGUMENT, "Python prints a range_iterator object"},
            {"{{ '%s'|format(joiner()) }}", XLARUN_ERR_ARGUMENT, "Python prints a Joiner object"},
            {"{{ (-8) ** 0.5 }}", XLARUN_ERR_ARGUMENT, "line 1 column 9: a negative number to a fractional power is complex in Python"},
            {"{% filter list %}ab{% endfilter %}", XLARUN_ERR_ARGUMENT, "sequence item 0: expected str instance, list found"},
            /* what Python computes with integers beyond 64 bits, digits beyond ASCII, the time zone */
            {"{{ '\xd9\xa1'|int }}", XLARUN_ERR_ARGUMENT, "line 1 column 8: xlarun reads numbers written in ASCII digits only"},
            {"{{ 1e100|int }}", XLARUN_ERR_ARGUMENT, "integer overflow (xlarun's integers are 64-bit)"},
            {"{{ '99999999999999999999'|int }}", XLARUN_ERR_ARGUMENT, "integer overflow"},
            {"{{ (-3) ** 41 }}", XLARUN_ERR_ARGUMENT, "integer overflow"},
            {"{{ '{:>5}'.format(1) }}", XLARUN_ERR_ARGUMENT, "line 1 column 18: str.format: xlarun takes fields {}, {N} and {name} with !s or !r, not attributes, indexes or a format spec"},
            {"{{ '{0:d}'.format(1) }}", XLARUN_ERR_ARGUMENT, "not attributes, indexes or a format spec"},
            {"{{ '{0.real}'.format(1) }}", XLARUN_ERR_ARGUMENT, "not attributes, indexes or a format spec"},
            {"{{ '{0[0]}'.format([1]) }}", XLARUN_ERR_ARGUMENT, "not attributes, indexes or a format spec"},
            {"{{ '{!a}'.format('\xc3\xa9') }}", XLARUN_ERR_ARGUMENT, "str.format: xlarun takes the conversions !s and !r only"},
            {"{{ '{!rx}'.format(1) }}", XLARUN_ERR_ARGUMENT, "str.format: xlarun takes the conversions !s and !r only"},
            {"{{ {range(2): 1} }}", XLARUN_ERR_ARGUMENT, "line 1 column 5: xlarun takes str, int, float, bool, None and tuple keys in a dict, not a range"},
            {"{{ 3037000500 * 3037000500 }}", XLARUN_ERR_ARGUMENT, "line 1 column 15: integer overflow (xlarun's integers are 64-bit)"},
            {"{{ -4294967296 * 2147483649 }}", XLARUN_ERR_ARGUMENT, "integer overflow"},
            {"{{ 2 ** 63 }}", XLARUN_ERR_ARGUMENT, "integer overflow"},
            {"{{ (-2) ** 64 }}", XLARUN_ERR_ARGUMENT, "integer overflow"},
            {"{{ 4294967296 ** 2 }}", XLARUN_ERR_ARGUMENT, "integer overflow"},
            {"{{ 2 ** 9223372036854775807 }}", XLARUN_ERR_ARGUMENT, "integer overflow"},
            {"{{ 3 / 9007199254740993 }}", XLARUN_ERR_ARGUMENT, "xlarun divides integers beyond 2**53 as floats"},
            {"{{ strftime_now('%s') }}", XLARUN_ERR_ARGUMENT, "strftime_now: %s and %f need the time zone"},
            {"{{ lipsum }}", XLARUN_ERR_ARGUMENT, "Python prints a function object"},
            {"{{ self() }}", XLARUN_ERR_ARGUMENT, "'TemplateReference' object is not callable"},
            {"{{ ('a'|e).split() }}", XLARUN_ERR_ARGUMENT, "the string methods of a Markup value (|safe, |e) are not supported"},
            {"{{ ''[1]|reverse }}", XLARUN_ERR_ARGUMENT, "Python prints a reversed object"},
            {"{% macro m() %}x{% endmacro %}{% call m() %}y{% endcall %}", XLARUN_ERR_ARGUMENT,
             "macro 'm' was invoked with two values for the special caller argument. This is most likely a bug."},
            {"{% macro m(caller) %}{{ caller() }}{% endmacro %}", XLARUN_ERR_FORMAT,
             "line 1 column 4: When defining macros or call blocks the special \"caller\" argument must be omitted or be given a default."},
            {"{% macro m() %}{{ caller() }}{% endmacro %}{{ m() }}", XLARUN_ERR_ARGUMENT, "line 1 column 25: No caller defined"},
            {"{% macro m(a) %}{{ varargs }}{% endmacro %}{{ m(1, b=2) }}", XLARUN_ERR_ARGUMENT, "macro 'm' takes no keyword argument 'b'"},
            {"{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}", XLARUN_ERR_ARGUMENT, "macro 'm' takes not more than 1 argument(s)"},
            {"{% set a | replace('x', unknown) %}x{% endset %}", XLARUN_ERR_FORMAT,
             "line 1 column 25: Tried to resolve a name to a reference that was unknown to the frame ('unknown')"},
            {"{% for x in [1] %}{{ range(2) }}{% endfor %}{% set range = 1 %}", XLARUN_ERR_ARGUMENT, "'range' is undefined"},
            {"{{ 1.7e308|round(1, 'floor') }}", XLARUN_ERR_ARGUMENT, "cannot convert float infinity to integer"},
            {"{{ 1.7976931348623157e308|round(-308) }}", XLARUN_ERR_ARGUMENT, "rounded value too large to represent"},
            {"{{ 2.5e-300|round(310, 'floor') }}", XLARUN_ERR_ARGUMENT, "int too large to convert to float"},
            {"{{ 1.5|round(-330, 'floor') }}", XLARUN_ERR_ARGUMENT, "float division by zero"},
            {"{{ 'abcdef'|truncate(2) }}", XLARUN_ERR_ARGUMENT, "line 1 column 13: expected length >= 3, got 2"},
            {"{{ 'abc'|truncate(5, leeway=-1) }}", XLARUN_ERR_ARGUMENT, "expected leeway >= 0, got -1"},
            {"{{ '%s %s' % 1 }}", XLARUN_ERR_ARGUMENT, "not enough arguments for format string"},
            {"{{ 'abc'|format(1) }}", XLARUN_ERR_ARGUMENT, "not all arguments converted during string formatting"},
            {"{{ '%y'|format(1) }}", XLARUN_ERR_ARGUMENT, "unsupported format character 'y' (0x79) at index 1"},
            {"{{ '%(a)s'|format(1) }}", XLARUN_ERR_ARGUMENT, "format requires a mapping"},
            {"{{ '%(a'|format(a=1) }}", XLARUN_ERR_ARGUMENT, "incomplete format key"},
            {"{{ '%'|format }}", XLARUN_ERR_ARGUMENT, "incomplete format"},
            {"{{ '%*d'|format('a', 3) }}", XLARUN_ERR_ARGUMENT, "* wants int"},
            {"{{ '%c'|format(1114112) }}", XLARUN_ERR_ARGUMENT, "%c arg not in range(0x110000)"},
            {"{{ '%c'|format(1.5) }}", XLARUN_ERR_ARGUMENT, "%c requires int or char"},
            {"{{ '%d'|format('x') }}", XLARUN_ERR_ARGUMENT, "%d format: a real number is required, not str"},
            {"{{ '%x'|format(1.5) }}", XLARUN_ERR_ARGUMENT, "%x format: an integer is required, not float"},
            {"{{ '%f'|format('x') }}", XLARUN_ERR_ARGUMENT, "must be real number, not str"},
            {"{{ '%s'|format(1, a=2) }}", XLARUN_ERR_ARGUMENT, "can't handle positional and keyword arguments at the same time"},
            {"{{ [1]|urlencode }}", XLARUN_ERR_ARGUMENT, "cannot unpack non-iterable int object"},
            {"{{ ['abc']|urlencode }}", XLARUN_ERR_ARGUMENT, "too many values to unpack (expected 2)"},
            {"{{ [[1]]|urlencode }}", XLARUN_ERR_ARGUMENT, "not enough values to unpack (expected 2, got 1)"},
            {"{{ [1]|slice(0)|list }}", XLARUN_ERR_ARGUMENT, "integer division or modulo by zero"},
            {"{{ [1]|tojson(indent=2.0) }}", XLARUN_ERR_ARGUMENT, "can't multiply sequence by non-int of type 'float'"},
            {"{% for i in [1] %}{{ loop([2]) }}{% endfor %}", XLARUN_ERR_ARGUMENT, "The loop must have the 'recursive' marker to be called recursively."},
            {"{% for i in [1] %}{{ loop.changed(a=1) }}{% endfor %}", XLARUN_ERR_ARGUMENT, "LoopContext.changed() got an unexpected keyword argument 'a'"},
            {"{{ 'a'.center(3, 'xy') }}", XLARUN_ERR_ARGUMENT, "The fill character must be exactly one character long"},
            {"{{ 'a'.partition('') }}", XLARUN_ERR_ARGUMENT, "empty separator"},
            {"{{ 'a'.rindex('b') }}", XLARUN_ERR_ARGUMENT, "substring not found"},
            {"{% set nan = range(2)|length * 1e308 * 0 %}{{ [nan] == [nan] }}", XLARUN_ERR_ARGUMENT, "comparing NaNs inside a list, tuple or dict"},
            {"{% set nan = range(2)|length * 1e308 * 0 %}{{ nan in [nan] }}", XLARUN_ERR_ARGUMENT, "comparing NaNs inside a list, tuple or dict"},
            {"{% set nan = range(2)|length * 1e308 * 0 %}{{ [1, nan, 0]|sort }}", XLARUN_ERR_ARGUMENT, "sorting a NaN"},
            {"{% set v = [1e308 / 5e-3] %}", XLARUN_ERR_ARGUMENT, "line 1 column 12: name 'inf' is not defined"},
            {"{% for x in [1] %}{% macro m() %}{% continue %}{% endmacro %}{% endfor %}", XLARUN_ERR_FORMAT, "'continue' not properly in loop"},
            {"{{ [09] }}", XLARUN_ERR_FORMAT, "line 1 column 5: expected token 'end of print statement', got 'integer'"},
            {"{{ 'ffffffffffffffffff'|int(0, 16) }}", XLARUN_ERR_ARGUMENT, "integer overflow (xlarun's integers are 64-bit)"},
            {"{{ '%d'|format(1e38) }}", XLARUN_ERR_ARGUMENT, "format: %d of 1e+38 is past xlarun's 64-bit integers"},
            /* what jinja2 raises, with Python's words */
            {"{{ [1] in {1: 2} }}", XLARUN_ERR_ARGUMENT, "unhashable type: 'list'"},
            {"{{ 0 ** -1 }}", XLARUN_ERR_ARGUMENT, "0.0 cannot be raised to a negative power"},
            {"{{ 10.0 ** 400 }}", XLARUN_ERR_ARGUMENT, "(34, 'Numerical result out of range')"},
            {"{{ '}'.format() }}", XLARUN_ERR_ARGUMENT, "Single '}' encountered in format string"},
            {"{{ (range(2)|length * 1e308)|int }}", XLARUN_ERR_ARGUMENT, "cannot convert float infinity to integer"},
            {"{{ 1 in namespace() }}", XLARUN_ERR_ARGUMENT, "argument of type 'Namespace' is not iterable"},
            {"{{ namespace()|length }}", XLARUN_ERR_ARGUMENT, "object of type 'Namespace' has no len()"},
            {"{{ [1]|indent }}", XLARUN_ERR_ARGUMENT, "unsupported operand type(s) for +=: 'list' and 'str'"},
            {"{{ 'ab'[:x] }}", XLARUN_ERR_ARGUMENT, "slice indices must be integers or None or have an __index__ method"},
            {"{% break %}", XLARUN_ERR_FORMAT, "line 1 column 4: 'break' outside loop"},
            {"{{ range(2) + [1] }}", XLARUN_ERR_ARGUMENT, "unsupported operand type(s) for +: 'range' and 'list'"},
            {"{{ range(2)|tojson }}", XLARUN_ERR_ARGUMENT, "Object of type range is not JSON serializable"},
            {"{{ range(2) < range(3) }}", XLARUN_ERR_ARGUMENT, "'<' not supported between instances of 'range' and 'range'"},
            {"{{ [1, 'a']|sort }}", XLARUN_ERR_ARGUMENT, "'<' not supported between instances of 'str' and 'int'"},
            {"{{ x|round }}", XLARUN_ERR_ARGUMENT, "type Undefined doesn't define __round__ method"},
            {"{{ x|float }}", XLARUN_ERR_ARGUMENT, "'x' is undefined"},
            {"{{ [[1]]|unique|list }}", XLARUN_ERR_ARGUMENT, "unhashable type: 'list'"},
            {"{% filter length %}ab{% endfilter %}", XLARUN_ERR_ARGUMENT, "sequence item 0: expected str instance, int found"},
            {"{{ ('<a'|safe)|trim('<') }}", XLARUN_ERR_ARGUMENT, "trim of a Markup value escapes its characters first"},
            /* a generator read in step with another (Python's laziness), or inside a loop over it */
            {"{% set g = [1]|map('string') %}{% set h = g|select %}{{ g|list }}", XLARUN_ERR_ARGUMENT,
             "line 1 column 59: a generator read after another generator was made from it"},
            {"{% set g = [1, 2]|map('string') %}{% for x in g %}{{ '1' in g }}{% endfor %}", XLARUN_ERR_ARGUMENT,
             "a generator read inside a for loop over it"},
            {"{% set g = [1, 2]|reverse %}{% for x in g %}{{ g|first }}{% endfor %}", XLARUN_ERR_ARGUMENT,
             "a list_reverseiterator read inside a for loop over it"},
            /* nesting past XLARUN_JINJA_MAX_NEST: refused, not a C stack overflow (Python: RecursionError near 1,000) */
            {"{% set ns = namespace(x=1, y=1) %}{% for i in range(300) %}{% set ns.x = [ns.x] %}{% set ns.y = [ns.y] %}{% endfor %}\n"
             "{{ ns.x == ns.y }}", XLARUN_ERR_ARGUMENT, "line 2 column 12: a value nested more than 200 deep was compared"},
            {"{% set ns = namespace(x=1, y=1) %}{% for i in range(250) %}{% set ns.x = [ns.x] %}{% set ns.y = [ns.y] %}{% endfor %}"
             "{{ ns.x < ns.y }}", XLARUN_ERR_ARGUMENT, "a value nested more than 200 deep was compared"},
            {"{% set ns = namespace(x=1) %}{% for i in range(250) %}{% set ns.x = {'k': ns.x} %}{% endfor %}{{ ns.x }}",
             XLARUN_ERR_ARGUMENT, "a value nested more than 200 deep was printed"},
            {"{% set ns = namespace(x=1) %}{% for i in range(250) %}{% set ns.x = [ns.x, 1.5] %}{% endfor %}{{ ns.x in [ns.x] }}",
             XLARUN_ERR_ARGUMENT, "a value nested more than 200 deep was compared"},
            {"{% set ns = namespace(x=1) %}{% for i in range(250) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x|tojson }}",
             XLARUN_ERR_ARGUMENT, "tojson: the value is nested too deeply"}};
        for (k = 0; k < sizeof bad / sizeof *bad; k++) {
            xlarun_status st = render_src(bad[k].src, NULL, out, sizeof out, &err);
            CHECKF(st == bad[k].st && strstr(err.message, bad[k].msg), "%s: status %d, '%s'; expected %d, '%s'", bad[k].src, (int)st,
                   err.message, (int)bad[k].st, bad[k].msg);
        }
    }
    {   /* a sort counts a step a comparison: a long one stops at the budget, not after hours */
        xlarun_chat_input sin;
        memset(&sin, 0, sizeof sin);
        sin.messages_json = "[]";
        sin.max_steps = 1000;
        CHECK(render_src("{{ (range(100)|reverse|list|sort)[:3] }}", &sin, out, sizeof out, &err) == XLARUN_OK && !strcmp(out, "[0, 1, 2]"));
        CHECK(render_src("{{ (range(300)|reverse|list|sort)[:3] }}", &sin, out, sizeof out, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "the rendering took more than 1000 steps");
        CHECK(render_src("{{ (range(30)|unique|list)[:2] }}", &sin, out, sizeof out, &err) == XLARUN_OK && !strcmp(out, "[0, 1]"));
        CHECK(render_src("{{ (range(100)|unique|list)[:2] }}", &sin, out, sizeof out, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "the rendering took more than 1000 steps");
        {   /* a map's keys are searched one by one: a huge one costs its searches */
            static char big[8000];
            size_t o = 0, q;
            o += (size_t)snprintf(big + o, sizeof big - o, "{");
            for (q = 0; q < 250; q++) o += (size_t)snprintf(big + o, sizeof big - o, "%s\"k%u\": 1", q ? ", " : "", (unsigned)q);
            snprintf(big + o, sizeof big - o, "}");
            sin.vars_json = big;
            sin.max_steps = 300;
            CHECK(render_src("{{ k7 }}", &sin, out, sizeof out, &err) == XLARUN_ERR_ARGUMENT);
            CHECK_CONTAINS(err.message, "the rendering took more than 300 steps (a map of");
            sin.max_steps = 0;
            CHECK(render_src("{{ k7 }}", &sin, out, sizeof out, &err) == XLARUN_OK && !strcmp(out, "1"));
            sin.vars_json = NULL;
        }
    }
    {   /* the vars' integers: 64 bits, both ends */
        xlarun_chat_input vin;
        memset(&vin, 0, sizeof vin);
        vin.messages_json = "[]";
        vin.vars_json = "{\"n\": -9223372036854775808, \"m\": 9223372036854775807}";
        CHECK(render_src("{{ n }} {{ m }}", &vin, out, sizeof out, &err) == XLARUN_OK && !strcmp(out, "-9223372036854775808 9223372036854775807"));
        vin.vars_json = "{\"n\": -9223372036854775809}";
        CHECK(render_src("{{ n }}", &vin, out, sizeof out, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "the integer -9223372036854775809 is out of the 64-bit range");
    }
    CHECK(render_src("{{ '\xe4\xbd\xa0'|upper }}", NULL, out, sizeof out, &err) == XLARUN_OK && !strcmp(out, "\xe4\xbd\xa0"));
    CHECK(render_src("{{ x|striptags }}", NULL, out, sizeof out, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "xlarun does not run the filter 'striptags'");
    CHECK(render_src("{{ 'a b'|wordwrap(1.5) }}", NULL, out, sizeof out, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "line 1 column 10: wordwrap: xlarun takes an integer width");
    CHECK(render_src("{% include 'x.jinja' %}", NULL, out, sizeof out, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "templates that load other templates are not supported");
    CHECK(render_src("{% for x in [1] recursive %}{{ loop([x]) }}{% endfor %}", NULL, out, sizeof out, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "more than 64 macro calls in progress");
    CHECK(render_src("a\xff", NULL, out, sizeof out, &err) == XLARUN_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "invalid UTF-8");
    CHECK(xlarun_chat_template_create("a\0b", 3, &t, &err) == XLARUN_ERR_FORMAT && t == NULL);
    CHECK_CONTAINS(err.message, "a NUL byte");
    /* deep nesting: parentheses and blocks stop at the limit, with a message */
    for (k = 0; k < 300; k++) deep[k] = '(';
    strcpy(deep + 300, "1");
    for (k = 0; k < 300; k++) strcat(deep, ")");
    {
        char src[4400]; /* 200 "{% if 1 %}" (10 bytes) and 200 "{% endif %}" (11) and a NUL */
        snprintf(src, sizeof src, "{{ %s }}", deep);
        CHECK(render_src(src, NULL, out, sizeof out, &err) == XLARUN_ERR_FORMAT);
        CHECK_CONTAINS(err.message, "nested too deeply");
        src[0] = 0;
        for (k = 0; k < 200; k++) strcat(src, "{% if 1 %}");
        for (k = 0; k < 200; k++) strcat(src, "{% endif %}");
        CHECK(render_src(src, NULL, out, sizeof out, &err) == XLARUN_ERR_FORMAT);
        CHECK_CONTAINS(err.message, "nested too deeply");
    }
    /* a loop that would run for ever (for practical purposes) stops at the step limit */
    memset(&in, 0, sizeof in);
    in.messages_json = "[]";
    in.max_steps = 100000;
    {
        const char *forever = "{% for i in range(250) %}{% for j in range(100000) %}{{ j }}{% endfor %}{% endfor %}";
        char *text = NULL;
        CHECK(xlarun_chat_template_create(forever, strlen(forever), &t, &err) == XLARUN_OK);
        CHECK(xlarun_chat_render_alloc(t, &in, &text, &len, &err) == XLARUN_ERR_ARGUMENT && text == NULL);
        CHECK_CONTAINS(err.message, "the rendering took more than 100000 steps");
        in.max_steps = 0;
        in.max_work = 1 << 20; /* the default steps, but a cap on the work memory: that stops it first */
        CHECK(xlarun_chat_render_alloc(t, &in, &text, &len, &err) == XLARUN_ERR_MEMORY && text == NULL);
        CHECK_CONTAINS(err.message, "work memory");
        in.max_work = 0;
        xlarun_chat_template_free(t);
        t = NULL;
    }
    /* recursion through macros stops at the call depth */
    CHECK(render_src("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", NULL, out, sizeof out, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "more than 64 macro calls in progress");
    /* output: larger than the caller's buffer (the length still told), larger than max_output */
    CHECK(render_src("{{ 'x' * 100 }}", NULL, out, 50, &err) == XLARUN_ERR_MEMORY);
    CHECK_CONTAINS(err.message, "needs 101 bytes, 50 given");
    in.max_steps = 0;
    in.max_output = 1000;
    CHECK(render_src("{% for i in range(100) %}{{ '0123456789abcdef' }}{% endfor %}", &in, out, sizeof out, &err) == XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "the output is larger than 1000 bytes");
    CHECK(render_src("{% set s %}{% for i in range(100) %}{{ '0123456789abcdef' }}{% endfor %}{% endset %}", &in, out, sizeof out, &err) ==
          XLARUN_ERR_ARGUMENT);
    CHECK_CONTAINS(err.message, "larger than 1000 bytes");
    /* work memory too small: the exact size is asked for */
    {
        xlarun_chat_template *tt = NULL;
        char small[64];
        memset(&in, 0, sizeof in);
        in.messages_json = "[{\"role\": \"user\", \"content\": \"hello\"}]";
        const char *src20 = "{% for m in messages %}{{ m.content * 20 }}{% endfor %}";
        CHECK(xlarun_chat_template_create(src20, strlen(src20), &tt, &err) == XLARUN_OK);
        CHECK(xlarun_chat_render(tt, &in, small, sizeof small, out, sizeof out, &len, &err) == XLARUN_ERR_MEMORY);
        CHECK_CONTAINS(err.message, "needs more than the 64 bytes of work memory given");
        CHECK(xlarun_chat_render_memory(tt, &in, &bytes, &len, &err) == XLARUN_OK && len == 100);
        /* the conversation as JSON: what is not an array of objects is refused, naming it */
        in.messages_json = "{\"role\": \"user\"}";
        CHECK(xlarun_chat_render_memory(tt, &in, &bytes, &len, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "chat messages: expected a JSON array at the top level");
        in.messages_json = "[{\"role\": \"user\"}, 3]";
        CHECK(xlarun_chat_render_memory(tt, &in, &bytes, &len, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "chat messages: message 1 is not a JSON object");
        in.messages_json = "[{\"role\": \"user\",]";
        CHECK(xlarun_chat_render_memory(tt, &in, &bytes, &len, &err) == XLARUN_ERR_FORMAT);
        CHECK_CONTAINS(err.message, "chat messages: invalid JSON at line 1 column");
        in.messages_json = "[{\"n\": 123456789012345678901234567890}]";
        CHECK(xlarun_chat_render_memory(tt, &in, &bytes, &len, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "out of the 64-bit range");
        in.messages_json = "[]";
        in.tools_json = "[1]";
        CHECK(xlarun_chat_render_memory(tt, &in, &bytes, &len, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "chat tools: tool 0 is not a JSON object");
        in.tools_json = NULL;
        in.vars_json = "[1]";
        CHECK(xlarun_chat_render_memory(tt, &in, &bytes, &len, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "chat variables: expected a JSON object");
        in.vars_json = NULL;
        in.messages = NULL;
        in.messages_json = NULL;
        in.n_messages = 2;
        CHECK(xlarun_chat_render_memory(tt, &in, &bytes, &len, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "message 0 has a NULL role or content");
        CHECK(xlarun_chat_render_memory(NULL, &in, &bytes, &len, &err) == XLARUN_ERR_ARGUMENT);
        CHECK(xlarun_chat_render(tt, &in, small + 1, sizeof small - 1, out, sizeof out, &len, &err) == XLARUN_ERR_ARGUMENT);
        CHECK_CONTAINS(err.message, "8-byte aligned");
        xlarun_chat_template_free(tt);
    }
    /* the template's memory: exact size, and too little */
    {
        const char *src = "{{ bos_token }}{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}";
        void *mem;
        xlarun_chat_template *tt = NULL;
        CHECK(xlarun_chat_template_memory(src, strlen(src), &bytes, &err) == XLARUN_OK && bytes > 0);
        mem = malloc(bytes);
        CHECK(xlarun_chat_template_init(src, strlen(src), mem, bytes - 8, &tt, &err) == XLARUN_ERR_MEMORY && tt == NULL);
        CHECK_CONTAINS(err.message, "bytes of chat template memory are too few (xlarun_chat_template_memory gives the size)");
        CHECK(xlarun_chat_template_init(src, strlen(src), mem, bytes, &tt, &err) == XLARUN_OK && tt != NULL);
        xlarun_chat_template_free(tt); /* made in the caller's memory: nothing to free */
        free(mem);
        CHECK(xlarun_chat_template_memory(NULL, 0, &bytes, &err) == XLARUN_ERR_ARGUMENT);
        CHECK(xlarun_chat_template_create(src, strlen(src), NULL, &err) == XLARUN_ERR_ARGUMENT);
    }
    CHECK(xlarun_chat_template_builtin("no-such-format") == NULL);
    CHECK(xlarun_chat_template_builtin(NULL) == NULL);
    CHECK_CONTAINS(xlarun_chat_template_names(), "llama3.1");
    printf("bad input: refused with the line and column or the key\n");
}

/* ---- the special tokens as transformers passes them: tokenizer_config.json's strings ------------------- */
static void test_special_tokens(void) {
    xlarun_tokenizer *tok = NULL;
    xlarun_chat_input in;
    xlarun_error err;
    memset(&in, 0, sizeof in);
    CHECKF(xlarun_tokenizer_open("tests/fixtures/demo", NULL, &tok, &err) == XLARUN_OK, "%s", err.message);
    xlarun_chat_input_from_tokenizer(tok, &in);
    CHECK(in.bos_token && !strcmp(in.bos_token, "<|im_start|>"));
    CHECK(in.eos_token && !strcmp(in.eos_token, "<|im_end|>"));
    CHECK(in.unk_token && !strcmp(in.unk_token, "<|endoftext|>"));
    CHECK(in.pad_token && !strcmp(in.pad_token, "<|im_end|>"));
    CHECK(in.sep_token == NULL && in.cls_token == NULL && in.mask_token == NULL); /* not in its tokenizer_config.json */
    {
        xlarun_chat_template *t = NULL;
        char *text = NULL;
        size_t len = 0;
        const char *src = "{{ bos_token }}|{{ eos_token }}|{{ unk_token }}|{{ pad_token }}|{{ sep_token is defined }}";
        in.messages_json = "[]";
        CHECK(xlarun_chat_template_create(src, strlen(src), &t, &err) == XLARUN_OK);
        CHECK(xlarun_chat_render_alloc(t, &in, &text, &len, &err) == XLARUN_OK);
        CHECK(text && !strcmp(text, "<|im_start|>|<|im_end|>|<|endoftext|>|<|im_end|>|False"));
        xlarun_chat_text_free(text);
        in.vars_json = "{\"eos_token\": \"E\"}"; /* extra variables win over the special tokens, as in transformers */
        CHECK(xlarun_chat_render_alloc(t, &in, &text, &len, &err) == XLARUN_OK);
        CHECK(text && !strcmp(text, "<|im_start|>|E|<|endoftext|>|<|im_end|>|False"));
        xlarun_chat_text_free(text);
        xlarun_chat_template_free(t);
    }
    xlarun_tokenizer_close(tok);
}

/* ---- case: Python's str methods on every code point (tests/fixtures/jinja/case.txt) ------------- */
static void test_case_mapping(void) {
    static const char tpl[] =
        "{% for c in cs %}"
        "{% for m in [c.upper(), c.lower(), c.title(), c.casefold(), c.swapcase()] %}{{ '=' if m == c else m }}\t{% endfor %}"
        "{% for f in [c.isupper(), c.islower(), c.istitle(), (c ~ 'a').title()[-1] == 'a', ('A' ~ c ~ '\xce\xa3').lower()[-1] == '\xcf\x82',"
        " ('A\xce\xa3' ~ c).lower()[1] == '\xcf\x82'] %}{{ 1 if f else 0 }}{% endfor %}{{ '\\n' }}{% endfor %}";
    size_t len = 0, n = 0, i, cap, vn = 0, tn = 0, agree = 0;
    char *all = read_file("tests/fixtures/jinja/case.txt", &len), *vars, *text = NULL, *pos, *eol, *got;
    unsigned *cps, c, prev = 0, trivial = 0, bad = 0;
    xlarun_chat_template *t = NULL;
    xlarun_chat_input in;
    xlarun_error err;
    CHECKF(all != NULL, "tests/fixtures/jinja/case.txt is missing (tools/make_case_fixtures.py)");
    if (!all) return;
    cps = (unsigned *)malloc(sizeof(unsigned) * (len / 8 + 1));
    vars = (char *)malloc(len + 16);
    cap = len + 16;
    vn = (size_t)sprintf(vars, "{\"cs\": [");
    for (pos = strchr(all, '\n') + 1; *pos; pos = eol + 1) { /* the listed code points, as a JSON array of one-character strings */
        char e[4];
        size_t k, l;
        eol = strchr(pos, '\n');
        if (!eol) break;
        c = (unsigned)strtoul(pos, NULL, 16);
        if (n && c <= cps[n - 1]) CHECKF(0, "case.txt: U+%04X out of order", c);
        l = xlarun__jenc(c, e);
        if (vn + 16 > cap) break;
        if (n) vars[vn++] = ',';
        vars[vn++] = '"';
        for (k = 0; k < l; k++) vars[vn++] = e[k];
        vars[vn++] = '"';
        cps[n++] = c;
    }
    vn += (size_t)sprintf(vars + vn, "]}");
    CHECK(xlarun_chat_template_create(tpl, strlen(tpl), &t, &err) == XLARUN_OK);
    memset(&in, 0, sizeof in);
    in.messages_json = "[]";
    in.vars_json = vars;
    CHECKF(t && render(t, &in, &text, &tn, &err) == XLARUN_OK, "the case template: %s", err.message);
    got = text;
    for (pos = strchr(all, '\n') + 1, i = 0; text && i < n; i++, pos = eol + 1) { /* line by line */
        char *tab = strchr(pos, '\t'), *gl = strchr(got, '\n');
        eol = strchr(pos, '\n');
        if (!gl || !tab) break;
        if ((size_t)(gl - got) == (size_t)(eol - tab - 1) && !memcmp(got, tab + 1, (size_t)(gl - got))) agree++;
        else if (bad++ < 10) CHECKF(0, "case.txt U+%04X: Python gives '%.*s', xlarun '%.*s'", cps[i], (int)(eol - tab - 1), tab + 1, (int)(gl - got), got);
        got = gl + 1;
    }
    CHECKF(agree == n && n > 6000, "case.txt: %lu of %lu code points agree", (unsigned long)agree, (unsigned long)n);
    for (c = 0, i = 0; c < 0x110000; c++) { /* every other code point: itself in all four mappings, uncased, not case-ignorable */
        unsigned o[3];
        int k, ok = 1;
        if (i < n && cps[i] == c) { i++; continue; }
        if (c >= 0xD800 && c < 0xE000) continue;
        for (k = 0; k < 4; k++) ok &= xlarun__case_map(c, k, o) == 1 && o[0] == c;
        ok &= !xlarun__case_kind(c) && !xlarun__case_ignorable(c);
        if (ok) trivial++;
        else if (bad++ < 20) CHECKF(0, "U+%04X: not in case.txt, so Python maps it to itself, but xlarun does not", c);
        prev = c;
    }
    CHECKF(trivial + n == 0x110000 - 0x800, "%u trivial and %lu listed code points of %u", trivial, (unsigned long)n, 0x110000 - 0x800);
    printf("case: %lu code points as Python 3.11's str methods give them (upper, lower, title, casefold, swapcase, isupper, islower,\n"
           "      istitle, cased, the final sigma), %u more map to themselves\n", (unsigned long)agree, trivial);
    (void)prev;
    free(text);
    xlarun_chat_template_free(t);
    free(vars);
    free(cps);
    free(all);
}

int main(int argc, char **argv) {
    test_init(argc, argv); /* -v, -vv, -vvv: the failing fixtures' details (and they are not counted as failures) */
    if (test_case("jinja units")) test_units(test_verbose);
    if (test_case("case mapping")) test_case_mapping();
    test_fixtures(test_verbose);
    test_old_fixtures();
    if (test_case("tool calls round trip")) test_roundtrip();
    if (test_case("tool format probe")) test_tool_format_probe();
    if (test_case("bad input")) test_bad_input();
    if (test_case("special tokens")) test_special_tokens();
    return test_report("chat");
}
