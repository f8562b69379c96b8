/* tools/jinja_diff.c - the xlarun side of tools/jinja_diff.py, a differential fuzzer of the Jinja
   interpreter against jinja2 as transformers sets it up. Developer-time only; not built by make.

   gcc -std=gnu99 -O1 -g -fsanitize=address,undefined -I. tools/jinja_diff.c -o /tmp/jinja_diff -lm -lpthread

   stdin: one case a line, "TEMPLATE_HEX VARS_HEX [MESSAGES_HEX [TOOLS_HEX]]" (UTF-8 hex; messages
   default "[]", tools default none).
   stdout: one line a case, flushed: "OK OUTPUT_HEX" or "ERR STATUS MESSAGE_HEX". A case renders as
   tests/test_chat.c's render helper does: xlarun_chat_template_create, the size query
   (xlarun_chat_render_memory), then xlarun_chat_render into exactly sized blocks, with now fixed at
   2024-09-26 13:45:07 and the generation prompt on. Where the size query and the render disagree
   (length, status) the line is "ERR MISMATCH ..." - a finding of its own. */
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXED_NOW 1727358307 /* 2024-09-26 13:45:07 UTC: the oracle's strftime_now */

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* decodes the hex run at *p (stops at a space or the end), advances *p past it and one space */
static char *unhex(char **p, size_t *len) {
    char *s = *p, *out;
    size_t n = 0, i;
    while (s[n] && s[n] != ' ' && s[n] != '\n' && s[n] != '\r') n++;
    out = (char *)malloc(n / 2 + 1);
    for (i = 0; i + 1 < n; i += 2) {
        int a = hexval(s[i]), b = hexval(s[i + 1]);
        out[i / 2] = (char)((a < 0 ? 0 : a) * 16 + (b < 0 ? 0 : b));
    }
    out[n / 2] = 0;
    if (len) *len = n / 2;
    *p = s + n + (s[n] == ' ');
    return out;
}

static void puthex(const char *s, size_t n) {
    static const char d[] = "0123456789abcdef";
    size_t i;
    for (i = 0; i < n; i++) {
        putchar(d[(unsigned char)s[i] >> 4]);
        putchar(d[(unsigned char)s[i] & 15]);
    }
}

static void report_err(const char *status, const char *msg) {
    const char *c;
    printf("ERR ");
    for (c = status; *c; c++) putchar(*c == ' ' ? '_' : *c); /* "malformed file" -> malformed_file */
    putchar(' ');
    puthex(msg, strlen(msg));
    putchar('\n');
}

static void run_case(char *line) {
    char *p = line, *tmpl, *vars, *msgs = NULL, *tools = NULL;
    size_t tlen, vlen, mlen = 0, tolen = 0;
    xlarun_chat_template *t = NULL;
    xlarun_error err;
    xlarun_status st;
    tmpl = unhex(&p, &tlen);
    vars = unhex(&p, &vlen);
    if (*p && *p != '\n' && *p != '\r') msgs = unhex(&p, &mlen);
    if (*p && *p != '\n' && *p != '\r') tools = unhex(&p, &tolen);
    memset(&err, 0, sizeof err);
    st = xlarun_chat_template_create(tmpl, tlen, &t, &err);
    if (st != XLARUN_OK) {
        report_err(xlarun_status_name(st), err.message);
    } else {
        xlarun_chat_input in;
        size_t work = 0, n = 0, n2 = 0;
        memset(&in, 0, sizeof in);
        in.vars_json = vars;
        in.messages_json = msgs ? msgs : "[]";
        in.tools_json = tools;
        in.now = FIXED_NOW;
        st = xlarun_chat_render_memory(t, &in, &work, &n, &err);
        if (st != XLARUN_OK) {
            report_err(xlarun_status_name(st), err.message);
        } else {
            void *mem = malloc(work ? work : 1);
            char *text = (char *)malloc(n + 1);
            xlarun_error e2;
            memset(&e2, 0, sizeof e2);
            st = xlarun_chat_render(t, &in, mem, work, text, n + 1, &n2, &e2);
            if (st != XLARUN_OK) {
                char m[1200];
                snprintf(m, sizeof m, "size query succeeded (%lu work bytes, %lu text bytes) but the render failed: %s %s",
                         (unsigned long)work, (unsigned long)n, xlarun_status_name(st), e2.message);
                report_err("MISMATCH", m);
            } else if (n2 != n || text[n] != 0) {
                char m[200];
                snprintf(m, sizeof m, "size query said %lu text bytes, the render wrote %lu", (unsigned long)n, (unsigned long)n2);
                report_err("MISMATCH", m);
            } else {
                printf("OK ");
                puthex(text, n);
                putchar('\n');
            }
            free(text);
            free(mem);
        }
    }
    fflush(stdout);
    xlarun_chat_template_free(t);
    free(tmpl);
    free(vars);
    free(msgs);
    free(tools);
}

int main(void) {
    size_t cap = 1 << 16, n;
    char *line = (char *)malloc(cap);
    int c;
    for (;;) {
        n = 0;
        while ((c = getchar()) != EOF && c != '\n') {
            if (n + 2 > cap) line = (char *)realloc(line, cap *= 2);
            line[n++] = (char)c;
        }
        if (c == EOF && n == 0) break;
        line[n] = 0;
        if (n) run_case(line);
        else {
            printf("ERR EMPTY \n");
            fflush(stdout);
        }
        if (c == EOF) break;
    }
    free(line);
    return 0;
}
