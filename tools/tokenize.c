/* tokenize - xlarun's tokenizer from the command line.

     build/tokenize -m DIR [--no-bos] [--no-special] [--replace-invalid] [-f FILE | TEXT]
     build/tokenize -m DIR --decode 1,2,3
     build/tokenize -m DIR --chat MSGS.json [--tools TOOLS.json] [--var KEY=JSON ...] [--text]

   Prints the ids of the text (with -f, the whole file as one text) space-separated on one stdout
   line, with the tokens the tokenizer's post-processor adds (BOS) unless --no-bos; --no-special
   encodes special-token text ("<|eot_id|>") as plain text. --decode prints the text of the ids as
   `tokenizers` decode(ids) gives it, then a newline. --chat renders a conversation (a JSON array
   of messages as transformers takes them) with the folder's chat template (or --chat-template
   NAME, --chat-template-file FILE) and prints its ids as apply_chat_template(tokenize=True) gives
   them: special tokens recognised, no BOS added (the template writes it); with --text, the
   rendered text itself, exactly its bytes. Every error is one line "xlarun: error: <message>" on
   stderr and exit status 1. */
#define _POSIX_C_SOURCE 200809L
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one line whatever the message holds (a template's raise_exception text may have newlines) */
static int fail(const char *msg) {
    fputs("xlarun: error: ", stderr);
    for (; *msg; msg++) fputc(*msg == '\n' || *msg == '\r' ? ' ' : *msg, stderr);
    fputc('\n', stderr);
    return 1;
}

static int failf(const char *fmt, const char *arg) {
    char msg[1200];
    snprintf(msg, sizeof msg, fmt, arg);
    return fail(msg);
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: tokenize -m DIR [--no-bos] [--no-special] [--replace-invalid] [-f FILE | TEXT]\n"
            "       tokenize -m DIR --decode ID,ID,...\n"
            "       tokenize -m DIR --chat MSGS.json [--tools TOOLS.json] [--var KEY=JSON ...] [--text]\n"
            "\n"
            "  -m, --model DIR      folder with tokenizer.json (tokenizer_config.json optional)\n"
            "  -f, --file FILE      tokenize the whole file as one text\n"
            "      --no-bos         no tokens from the post-processor (add_special_tokens=False)\n"
            "      --no-special     special-token text in the input stays text\n"
            "      --replace-invalid  invalid UTF-8 becomes U+FFFD (default: an error)\n"
            "      --decode LIST    print the text of comma-separated ids\n"
            "\n"
            "chat (as transformers' apply_chat_template; ids: special tokens recognised, no BOS added):\n"
            "      --chat FILE      a JSON array of messages ({\"role\": ..., \"content\": ...}, tool_calls, ...)\n"
            "      --tools FILE     a JSON array of tools (OpenAI function schemas)\n"
            "      --var KEY=JSON   a template variable (repeatable): --var enable_thinking=false,\n"
            "                       --var 'date_string=\"26 Jul 2024\"'\n"
            "      --no-generation-prompt  add_generation_prompt=False (default: True)\n"
            "      --chat-template NAME    a built-in template instead of the folder's:\n"
            "                       %s\n"
            "      --chat-template-file FILE  a Jinja template file instead of the folder's\n"
            "      --now SECONDS    strftime_now's time, seconds since 1970 UTC (default: the clock)\n"
            "      --text           print the rendered text (exactly its bytes) instead of its ids\n",
            xlarun_chat_template_names());
}

/* the whole file, NUL-terminated; NULL with errno set */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL, *p;
    size_t cap = 0, n = 0, r;
    if (!f) return NULL;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            p = (char *)realloc(buf, cap);
            if (!p) { free(buf); fclose(f); errno = ENOMEM; return NULL; }
            buf = p;
        }
        r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    if (ferror(f)) { free(buf); fclose(f); errno = EIO; return NULL; }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

/* a JSON file read whole for the chat input: a C string, so a NUL byte in it is refused */
static char *slurp_json(const char *path, char *msg, size_t cap) {
    size_t len = 0;
    char *buf = slurp(path, &len);
    if (!buf) snprintf(msg, cap, "%s: cannot read: %s", path, strerror(errno));
    else if (strlen(buf) != len) {
        snprintf(msg, cap, "%s: a NUL byte at offset %lu (JSON text has none)", path, (unsigned long)strlen(buf));
        free(buf);
        buf = NULL;
    }
    return buf;
}

/* a growing string; p stays NUL-terminated */
typedef struct strbuf { char *p; size_t n, cap; } strbuf;

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

/* --var KEY=JSON, appended as "KEY": JSON to the object in vars (vars->p starts with '{').
   KEY is a template variable name; JSON must be one JSON value, which the library's own JSON
   reader judges: the value goes in as the variables of a render of an empty template, where text
   that is not JSON fails with XLARUN_ERR_FORMAT and its line and column (a valid value that is not
   an object fails otherwise, and is fine here). */
static int add_var(strbuf *vars, const char *arg, char *msg, size_t cap) {
    const char *eq = strchr(arg, '='), *value, *why;
    size_t k, klen;
    xlarun_chat_template *empty;
    xlarun_chat_input in;
    xlarun_error e;
    xlarun_status st;
    char *text;
    klen = eq ? (size_t)(eq - arg) : 0;
    for (k = 0; k < klen; k++) {
        char c = arg[k];
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (k && c >= '0' && c <= '9'))) break;
    }
    if (!klen || k < klen) {
        snprintf(msg, cap, "invalid --var '%s': expected KEY=JSON with KEY a variable name (enable_thinking=false)", arg);
        return 0;
    }
    value = eq + 1;
    if (xlarun_chat_template_create("", 0, &empty, &e) != XLARUN_OK) { snprintf(msg, cap, "%s", e.message); return 0; }
    memset(&in, 0, sizeof in);
    in.vars_json = value;
    st = xlarun_chat_render_alloc(empty, &in, &text, &k, &e);
    if (st == XLARUN_OK) xlarun_chat_text_free(text);
    xlarun_chat_template_free(empty);
    if (st == XLARUN_ERR_FORMAT) {
        why = strncmp(e.message, "chat variables: ", 16) ? e.message : e.message + 16;
        snprintf(msg, cap, "--var %.*s: the value is not JSON (strings need quotes: '%.*s=\"text\"'): %s", (int)klen, arg,
                 (int)klen, arg, why);
        return 0;
    }
    if (!sb_put(vars, vars->n > 1 ? ",\"" : "\"", vars->n > 1 ? 2 : 1) || !sb_put(vars, arg, klen) ||
        !sb_put(vars, "\":", 2) || !sb_put(vars, value, strlen(value))) {
        snprintf(msg, cap, "out of memory");
        return 0;
    }
    return 1;
}

/* ids of text, space-separated on one line */
static int print_ids(xlarun_tokenizer *t, const char *text, size_t len, unsigned flags, const char *file) {
    size_t n = 0, k, cap = len + 16, sb = xlarun_tokenizer_scratch_bytes(t, len);
    int32_t *ids = (int32_t *)malloc(cap * sizeof *ids);
    void *scratch = malloc(sb);
    xlarun_error err;
    int rc = 0;
    if (!ids || !scratch) rc = fail("out of memory");
    else if (xlarun_tokenizer_encode(t, text, len, flags, ids, cap, &n, scratch, sb, &err) != XLARUN_OK) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s%s%s", file ? file : "", file ? ": " : "", err.message);
        rc = fail(msg);
    } else {
        for (k = 0; k < n; k++) printf(k ? " %d" : "%d", ids[k]);
        printf("\n");
    }
    free(scratch);
    free(ids);
    return rc;
}

/* the chat path: render the conversation, print the text or its ids */
typedef struct chat_args {
    const char *messages, *tools, *tmpl_name, *tmpl_file;
    const char *vars;   /* a JSON object, or NULL */
    int no_gen, text;
    long long now;
} chat_args;

static int chat(xlarun_tokenizer *t, const char *dir, const chat_args *a, unsigned flags) {
    char msg[1200], *messages = NULL, *tools = NULL, *file_text = NULL, *text = NULL;
    const char *src = NULL, *what = dir;
    size_t src_len = 0, len = 0;
    xlarun_chat_template *tmpl = NULL;
    xlarun_chat_input in;
    xlarun_error err;
    int rc = 1;
    if (a->tmpl_file) {
        if (!(file_text = slurp(a->tmpl_file, &src_len))) {
            snprintf(msg, sizeof msg, "%s: cannot read: %s", a->tmpl_file, strerror(errno));
            return fail(msg);
        }
        src = file_text;
        what = a->tmpl_file;
    } else if (a->tmpl_name) {
        if (!(src = xlarun_chat_template_builtin(a->tmpl_name))) {
            snprintf(msg, sizeof msg, "unknown chat template name '%s'; the names are: %s", a->tmpl_name, xlarun_chat_template_names());
            return fail(msg);
        }
        src_len = strlen(src);
        what = a->tmpl_name;
    } else {
        if (!(src = xlarun_tokenizer_chat_template(t))) {
            snprintf(msg, sizeof msg, "%s has no chat template (chat_template.jinja or tokenizer_config.json chat_template): give --chat-template NAME or --chat-template-file FILE", dir);
            return fail(msg);
        }
        src_len = strlen(src);
    }
    if (xlarun_chat_template_create(src, src_len, &tmpl, &err) != XLARUN_OK) {
        snprintf(msg, sizeof msg, "%s: %s", what, err.message);
        fail(msg);
        goto done;
    }
    if (!(messages = slurp_json(a->messages, msg, sizeof msg)) || (a->tools && !(tools = slurp_json(a->tools, msg, sizeof msg)))) {
        fail(msg);
        goto done;
    }
    memset(&in, 0, sizeof in);
    xlarun_chat_input_from_tokenizer(t, &in);
    in.messages_json = messages;
    in.tools_json = tools;
    in.vars_json = a->vars;
    in.no_generation_prompt = a->no_gen;
    in.now = (int64_t)a->now;
    if (xlarun_chat_render_alloc(tmpl, &in, &text, &len, &err) != XLARUN_OK) {
        fail(err.message);
        goto done;
    }
    if (a->text) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) { fail("cannot write to stdout"); goto done; }
        rc = 0;
    } else
        rc = print_ids(t, text, len, flags | XLARUN_ENCODE_NO_BOS, NULL);
done:
    xlarun_chat_text_free(text);
    xlarun_chat_template_free(tmpl);
    free(messages);
    free(tools);
    free(file_text);
    return rc;
}

int main(int argc, char **argv) {
    const char *dir = NULL, *file = NULL, *text = NULL, *decode = NULL, *chat_only = NULL;
    unsigned flags = 0;
    int i, rc = 0;
    xlarun_tokenizer *t;
    xlarun_error err;
    chat_args ca;
    strbuf vars;
    char msg[1200];
    memset(&ca, 0, sizeof ca);
    memset(&vars, 0, sizeof vars);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int takes = !strcmp(a, "-m") || !strcmp(a, "--model") || !strcmp(a, "-f") || !strcmp(a, "--file") ||
                    !strcmp(a, "--decode") || !strcmp(a, "--chat") || !strcmp(a, "--tools") || !strcmp(a, "--var") ||
                    !strcmp(a, "--chat-template") || !strcmp(a, "--chat-template-file") || !strcmp(a, "--now");
        if (takes && i + 1 >= argc) { free(vars.p); return failf("%s needs a value", a); }
        if (!strcmp(a, "-m") || !strcmp(a, "--model")) dir = argv[++i];
        else if (!strcmp(a, "-f") || !strcmp(a, "--file")) file = argv[++i];
        else if (!strcmp(a, "--decode")) decode = argv[++i];
        else if (!strcmp(a, "--chat")) ca.messages = argv[++i];
        else if (!strcmp(a, "--tools")) { ca.tools = argv[++i]; chat_only = a; }
        else if (!strcmp(a, "--chat-template")) { ca.tmpl_name = argv[++i]; chat_only = a; }
        else if (!strcmp(a, "--chat-template-file")) { ca.tmpl_file = argv[++i]; chat_only = a; }
        else if (!strcmp(a, "--var")) {
            if (!vars.n && !sb_put(&vars, "{", 1)) return fail("out of memory");
            if (!add_var(&vars, argv[++i], msg, sizeof msg)) { free(vars.p); return fail(msg); }
            chat_only = a;
        }
        else if (!strcmp(a, "--now")) {
            const char *v = argv[++i];
            char *end;
            errno = 0;
            ca.now = strtoll(v, &end, 10);
            if (*v < '0' || *v > '9' || *end || errno || ca.now <= 0) { free(vars.p); return failf("invalid value for --now: '%s' (seconds since 1970, > 0)", v); }
            chat_only = a;
        }
        else if (!strcmp(a, "--no-generation-prompt")) { ca.no_gen = 1; chat_only = a; }
        else if (!strcmp(a, "--text")) { ca.text = 1; chat_only = a; }
        else if (!strcmp(a, "--no-bos")) flags |= XLARUN_ENCODE_NO_BOS;
        else if (!strcmp(a, "--no-special")) flags |= XLARUN_ENCODE_SPECIAL_AS_TEXT;
        else if (!strcmp(a, "--replace-invalid")) flags |= XLARUN_ENCODE_REPLACE_INVALID;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); free(vars.p); return 0; }
        else if (a[0] == '-' && a[1] != 0) { free(vars.p); return failf("unknown option %s (see --help)", a); }
        else if (text) { free(vars.p); return fail("more than one TEXT argument: quote the text, or use -f FILE"); }
        else text = a;
    }
    if (vars.n && !sb_put(&vars, "}", 1)) { free(vars.p); return fail("out of memory"); }
    ca.vars = vars.p;
    if (!dir) rc = fail("no tokenizer folder: pass -m DIR");
    else if (ca.messages && (decode || text || file)) rc = fail("--chat takes a messages file, not TEXT, -f or --decode");
    else if (ca.messages && (flags & XLARUN_ENCODE_SPECIAL_AS_TEXT)) rc = fail("--no-special cannot be combined with --chat (the template's special tokens must stay special)");
    else if (!ca.messages && chat_only) rc = failf("%s needs --chat MSGS.json", chat_only);
    else if (ca.tmpl_name && ca.tmpl_file) rc = fail("give --chat-template NAME or --chat-template-file FILE, not both");
    else if (decode && (text || file)) rc = fail("--decode takes ids, not TEXT or -f");
    else if (!decode && text && file) rc = fail("give TEXT or -f FILE, not both");
    else if (!decode && !ca.messages && !text && !file) rc = fail("no text: give TEXT, -f FILE, --decode IDS or --chat MSGS.json");
    if (rc) { free(vars.p); return rc; }
    if (xlarun_tokenizer_open(dir, NULL, &t, &err) != XLARUN_OK) { free(vars.p); return fail(err.message); }
    if (ca.messages) rc = chat(t, dir, &ca, flags);
    else if (decode) {
        size_t n = 0, cap = strlen(decode) / 2 + 1, len;
        int32_t *ids = (int32_t *)malloc(cap * sizeof *ids);
        const char *p = decode;
        char *out;
        while (*p) {
            char *end;
            long v;
            errno = 0;
            v = strtol(p, &end, 10);
            if (end == p || errno || v < 0 || v > INT32_MAX || (*end && *end != ',') || (*end == ',' && !end[1])) {
                free(ids);
                xlarun_tokenizer_close(t);
                return failf("invalid --decode list '%s': expected ids like 1,2,3", decode);
            }
            ids[n++] = (int32_t)v;
            p = *end ? end + 1 : end;
        }
        if (xlarun_tokenizer_decode(t, ids, n, 0, NULL, 0, &len, &err) != XLARUN_OK) {
            free(ids);
            xlarun_tokenizer_close(t);
            return fail(err.message);
        }
        out = (char *)malloc(len + 1);
        if (xlarun_tokenizer_decode(t, ids, n, 0, out, len + 1, &len, &err) != XLARUN_OK) rc = fail(err.message);
        else {
            fwrite(out, 1, len, stdout);
            fputc('\n', stdout);
        }
        free(out);
        free(ids);
    } else {
        size_t len = 0;
        char *buf = NULL;
        if (file) {
            if (!(buf = slurp(file, &len))) {
                snprintf(msg, sizeof msg, "%s: cannot read: %s", file, strerror(errno));
                xlarun_tokenizer_close(t);
                return fail(msg);
            }
            text = buf;
        } else len = strlen(text);
        rc = print_ids(t, text, len, flags, file);
        free(buf);
    }
    xlarun_tokenizer_close(t);
    free(vars.p);
    return rc;
}
