/* tools.c - a complete tool loop: offer tools to the model, run the calls it makes in C, hand the
   results back, print its answer.

     build/tools -m tests/fixtures/tooldemo -p "What is the weather in Paris?" -t 2

   Each turn renders the whole conversation with the folder's own chat template (the tools go in
   as OpenAI function schemas, as transformers' apply_chat_template takes them), generates a reply
   greedily, and splits it into content and tool calls with xlarun_reply_parse in the format the
   template writes (xlarun_chat_tool_format runs it on a probe call: Hermes for the tooldemo's
   ChatML template), else the one the vocabulary points to (xlarun_tool_format_guess). Each call
   is printed as one JSON line {"name": ..., "arguments": {...}} and run by a C function returning
   a JSON result; the assistant's tool_calls message (the arguments an object, or a JSON string
   where the template takes only that: Functionary's, DeepSeek-R1's) and one "tool" message per
   result join the conversation, and the next turn renders it again. A reply without calls is the answer: it is
   printed and the program ends. -v prints each rendered prompt, reply and result on stderr.
   Every error is one line "xlarun: error: <message>" on stderr and exit status 1. */
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 4     /* tool rounds before the program gives up on an answer */
#define MAX_NEW 256      /* tokens per reply */

/* the tools, as OpenAI function schemas (the tooldemo model was trained on exactly this text) */
static const char TOOLS_JSON[] =
    "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Get the weather in a city.\", "
    "\"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}}, "
    "{\"type\": \"function\", \"function\": {\"name\": \"get_time\", \"description\": \"Get the local time in a city.\", "
    "\"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}}]";

/* ---- a growing string (p stays NUL-terminated) ---------------------------------------------- */

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

static int sb_str(strbuf *b, const char *s) { return sb_put(b, s, strlen(s)); }

/* s as a JSON string, quotes included (UTF-8 passes as it is) */
static int sb_json(strbuf *b, const char *s) {
    if (!sb_put(b, "\"", 1)) return 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') { esc[0] = '\\'; esc[1] = (char)c; esc[2] = 0; }
        else if (c == '\n') strcpy(esc, "\\n");
        else if (c == '\t') strcpy(esc, "\\t");
        else if (c < 0x20) snprintf(esc, sizeof esc, "\\u%04x", c);
        else { if (!sb_put(b, s, 1)) return 0; continue; }
        if (!sb_str(b, esc)) return 0;
    }
    return sb_put(b, "\"", 1);
}

/* ---- the tools -------------------------------------------------------------------------------- */

/* The string member KEY of a call's arguments: xlarun_reply_parse writes them as a compact JSON
   object ({"city":"Paris"}: no white space outside strings), so a short scan reads it. Copies the
   unescaped value into out (cap bytes); 0 when the object has no such string member. */
static int arg_string(const char *args, const char *key, char *out, size_t cap) {
    const char *p = args;
    size_t klen = strlen(key);
    int depth = 0;
    for (; *p; p++) {
        if (*p == '{' || *p == '[') depth++;
        else if (*p == '}' || *p == ']') depth--;
        else if (*p == '"') {
            const char *s = ++p;   /* a string: a key if ':' follows and we are in the top object */
            size_t n = 0;
            for (; *p && *p != '"'; p++) if (*p == '\\' && p[1]) p++;
            if (!*p) return 0;
            if (depth != 1 || p[1] != ':' || (size_t)(p - s) != klen || memcmp(s, key, klen)) continue;
            p += 2;
            if (*p != '"') return 0;          /* the value is not a string */
            for (p++; *p && *p != '"'; p++) {
                char c = *p;
                if (c == '\\') {
                    c = *++p;
                    if (c == 'n') c = '\n';
                    else if (c == 't') c = '\t';
                    else if (c == 'u' || !c) return 0; /* \uXXXX: not in a city name here */
                }
                if (n + 1 >= cap) return 0;
                out[n++] = c;
            }
            out[n] = 0;
            return *p == '"';
        }
    }
    return 0;
}

/* what the C side knows: a fixed table, so the demo gives the same answer every time */
static const struct city {
    const char *name;
    int temperature;
    const char *condition, *time;
} CITIES[] = {
    {"Paris", 18, "sunny", "14:05"},  {"London", 12, "rainy", "13:05"}, {"Tokyo", 24, "cloudy", "22:05"},
    {"Berlin", 9, "windy", "14:05"},  {"Madrid", 27, "sunny", "14:05"}, {"Rome", 21, "cloudy", "14:05"},
    {"Cairo", 33, "sunny", "15:05"},  {"Sydney", 16, "rainy", "23:05"}, {"Oslo", 3, "snowy", "14:05"},
    {"Lima", 19, "foggy", "08:05"},   {"Delhi", 31, "cloudy", "17:35"}, {"Toronto", 7, "snowy", "08:05"},
};

/* Runs one call: the result as a JSON object in out. A call the tools cannot serve (an unknown
   tool or city, a missing argument) gets an {"error": ...} result for the model, as a tool
   server would answer; only running out of memory fails. */
static int run_tool(const char *name, const char *args, strbuf *out) {
    char city[128];
    char num[16];
    size_t i;
    int weather = !strcmp(name, "get_weather");
    out->n = 0;
    if (!weather && strcmp(name, "get_time"))
        return sb_str(out, "{\"error\": ") && sb_json(out, "unknown tool") && sb_str(out, "}");
    if (!arg_string(args, "city", city, sizeof city))
        return sb_str(out, "{\"error\": ") && sb_json(out, "the argument city (a string) is missing") && sb_str(out, "}");
    for (i = 0; i < sizeof CITIES / sizeof CITIES[0] && strcmp(CITIES[i].name, city); i++) {}
    if (i == sizeof CITIES / sizeof CITIES[0])
        return sb_str(out, "{\"city\": ") && sb_json(out, city) && sb_str(out, ", \"error\": ") && sb_json(out, "unknown city") &&
               sb_str(out, "}");
    if (!weather)
        return sb_str(out, "{\"city\": ") && sb_json(out, city) && sb_str(out, ", \"time\": ") && sb_json(out, CITIES[i].time) &&
               sb_str(out, "}");
    snprintf(num, sizeof num, "%d", CITIES[i].temperature);
    return sb_str(out, "{\"city\": ") && sb_json(out, city) && sb_str(out, ", \"temperature\": ") && sb_str(out, num) &&
           sb_str(out, ", \"condition\": ") && sb_json(out, CITIES[i].condition) && sb_str(out, "}");
}

/* ---- the loop --------------------------------------------------------------------------------- */

/* xlarun_tool_format_guess asks whether a marker is one token of the vocabulary */
static int has_token(void *user, const char *text) {
    return xlarun_tokenizer_token_id((const xlarun_tokenizer *)user, text, strlen(text)) >= 0;
}

/* the reply as generated, special tokens kept (the decode flags are 0: <tool_call> stays text) */
static int collect(void *user, int32_t id, const char *text, size_t len) {
    (void)id;
    return len && !sb_put((strbuf *)user, text, len); /* non-zero (out of memory) stops */
}

/* one line whatever the message holds (a template's raise_exception text may have newlines) */
static int fail(const char *msg) {
    fputs("xlarun: error: ", stderr);
    for (; *msg; msg++) fputc(*msg == '\n' || *msg == '\r' ? ' ' : *msg, stderr);
    fputc('\n', stderr);
    return 1;
}

static void usage(FILE *f) {
    fprintf(f, "usage: tools -m DIR [-p PROMPT] [-t THREADS] [-v]\n"
               "  -m DIR      a Hugging Face checkpoint folder with a chat template (tests/fixtures/tooldemo)\n"
               "  -p PROMPT   the user's question (default: \"What is the weather in Paris?\")\n"
               "  -t N        threads (default 1)\n"
               "  -v          each rendered prompt, reply and tool result on stderr\n"
               "Offers get_weather(city) and get_time(city), prints each tool call as one JSON line,\n"
               "then the model's answer.\n");
}

int main(int argc, char **argv) {
    const char *dir = NULL, *prompt = "What is the weather in Paris?", *src;
    unsigned long threads = 1;
    int verbose = 0, i, turn, rc = 1, done = 0;
    xlarun_model *model = NULL;
    xlarun_tokenizer *tok = NULL;
    xlarun_session *sess = NULL;
    xlarun_generator *gen = NULL;
    xlarun_chat_template *tmpl = NULL;
    xlarun_session_options so;
    xlarun_chat_input in;
    xlarun_tool_format format;
    int args_string = 0;
    xlarun_error err;
    strbuf msgs = {NULL, 0, 0}, reply = {NULL, 0, 0}, result = {NULL, 0, 0};
    char *text = NULL;
    void *rmem = NULL;
    char msg[1200];

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        if (!strcmp(a, "-v")) { verbose = 1; continue; }
        if (strcmp(a, "-m") && strcmp(a, "-p") && strcmp(a, "-t")) {
            snprintf(msg, sizeof msg, "unknown option '%s' (tools --help lists them)", a);
            return fail(msg);
        }
        if (i + 1 >= argc) { snprintf(msg, sizeof msg, "%s needs a value", a); return fail(msg); }
        if (!strcmp(a, "-m")) dir = argv[++i];
        else if (!strcmp(a, "-p")) prompt = argv[++i];
        else {
            char *end;
            const char *v = argv[++i];
            threads = strtoul(v, &end, 10);
            if (*v < '0' || *v > '9' || *end || threads < 1 || threads > 256) {
                snprintf(msg, sizeof msg, "invalid value for -t: '%s' (1 to 256)", v);
                return fail(msg);
            }
        }
    }
    if (!dir) return fail("no model folder: give -m DIR");

    memset(&so, 0, sizeof so);
    so.n_threads = (uint32_t)threads;
    if (xlarun_model_open(dir, NULL, &model, &err) != XLARUN_OK || xlarun_tokenizer_open(dir, NULL, &tok, &err) != XLARUN_OK ||
        xlarun_tokenizer_check_model(tok, model, &err) != XLARUN_OK || xlarun_session_create(model, &so, &sess, &err) != XLARUN_OK ||
        xlarun_generator_create(sess, tok, NULL, &gen, &err) != XLARUN_OK) /* NULL: greedy, eos ids from the folder */
        goto error;
    if (!(src = xlarun_tokenizer_chat_template(tok))) {
        snprintf(msg, sizeof msg, "%s has no chat template (chat_template.jinja or tokenizer_config.json chat_template)", dir);
        goto fail_msg;
    }
    if (xlarun_chat_template_create(src, strlen(src), &tmpl, &err) != XLARUN_OK) goto error;
    memset(&in, 0, sizeof in);
    xlarun_chat_input_from_tokenizer(tok, &in);   /* bos_token, eos_token */
    {
        int written = 0;
        format = xlarun_chat_tool_format(tmpl, &in, &written);
        args_string = written == 2; /* the template concatenates the arguments: pass them as a string */
        if (format == XLARUN_TOOLS_NONE && !written) format = xlarun_tool_format_guess(has_token, tok);
        if (format == XLARUN_TOOLS_NONE) {
            snprintf(msg, sizeof msg, written ? "%s: the chat template writes tool calls in a format xlarun does not read"
                                              : "%s: the chat template writes no tool calls and the vocabulary has no tool-call marker as "
                                                "one token (<tool_call>, <|python_tag|>, [TOOL_CALLS], ...), so its replies cannot be read as tool calls",
                     dir);
            goto fail_msg;
        }
    }
    if (verbose) fprintf(stderr, "tool format: %s\n", xlarun_tool_format_name(format));

    /* the conversation as a JSON array of messages, kept open ("[{...},{...}") between rounds */
    if (!sb_str(&msgs, "[{\"role\":\"user\",\"content\":") || !sb_json(&msgs, prompt) || !sb_str(&msgs, "}")) goto oom;
    in.tools_json = TOOLS_JSON;
    for (turn = 0; turn <= MAX_ROUNDS && !done; turn++) {
        xlarun_reply rp;
        size_t len, k, rbytes;
        xlarun_status st;
        if (!sb_str(&msgs, "]")) goto oom;
        in.messages_json = msgs.p;
        st = xlarun_chat_render_alloc(tmpl, &in, &text, &len, &err);
        msgs.p[--msgs.n] = 0;                     /* open again for the reply */
        if (st != XLARUN_OK) goto error;
        if (verbose) fprintf(stderr, "---- prompt %d\n%s\n----\n", turn + 1, text);
        /* the whole conversation each turn: the generator keeps the ids the session already
           holds and prefills only the new turns */
        reply.n = 0;
        if (!sb_put(&reply, "", 0)) goto oom;
        st = xlarun_generate_text(gen, text, len, XLARUN_ENCODE_NO_BOS, MAX_NEW, collect, &reply, NULL, &err);
        xlarun_chat_text_free(text);
        text = NULL;
        if (st != XLARUN_OK) goto error;
        rbytes = xlarun_reply_memory(reply.n);
        free(rmem);
        if (rbytes == (size_t)-1 || !(rmem = malloc(rbytes))) goto oom;
        if (verbose) fprintf(stderr, "---- reply %d\n%s\n----\n", turn + 1, reply.p);
        if (xlarun_reply_parse(format, reply.p, reply.n, TOOLS_JSON, sizeof TOOLS_JSON - 1, rmem, rbytes, &rp, &err) != XLARUN_OK) {
            snprintf(msg, sizeof msg, "the model's reply is not a well-formed tool call: %s", err.message);
            goto fail_msg;
        }
        if (!rp.n_calls) {                        /* no calls: this is the answer */
            printf("%s\n", rp.content);
            done = 1;
            break;
        }
        if (turn == MAX_ROUNDS) break;
        /* the assistant's turn with its calls, then one "tool" message per result */
        if (!sb_str(&msgs, ",{\"role\":\"assistant\",\"content\":") || !sb_json(&msgs, rp.content) || !sb_str(&msgs, ",\"tool_calls\":["))
            goto oom;
        for (k = 0; k < rp.n_calls; k++) {
            const xlarun_tool_call *c = &rp.calls[k];
            result.n = 0;                         /* one JSON line per call, arguments as parsed */
            if (!sb_str(&result, "{\"name\": ") || !sb_json(&result, c->name) || !sb_str(&result, ", \"arguments\": ") ||
                !sb_str(&result, c->arguments) || !sb_str(&result, "}"))
                goto oom;
            printf("%s\n", result.p);
            fflush(stdout);
            if ((k && !sb_str(&msgs, ",")) || !sb_str(&msgs, "{\"type\":\"function\",") ||
                (c->id && (!sb_str(&msgs, "\"id\":") || !sb_json(&msgs, c->id) || !sb_str(&msgs, ","))) ||
                !sb_str(&msgs, "\"function\":{\"name\":") || !sb_json(&msgs, c->name) || !sb_str(&msgs, ",\"arguments\":") ||
                !(args_string ? sb_json(&msgs, c->arguments) : sb_str(&msgs, c->arguments)) || !sb_str(&msgs, "}}"))
                goto oom;
        }
        if (!sb_str(&msgs, "]}")) goto oom;
        for (k = 0; k < rp.n_calls; k++) {
            const xlarun_tool_call *c = &rp.calls[k];
            if (!run_tool(c->name, c->arguments, &result)) goto oom;
            if (verbose) fprintf(stderr, "result of %s: %s\n", c->name, result.p);
            if (!sb_str(&msgs, ",{\"role\":\"tool\",") ||
                (c->id && (!sb_str(&msgs, "\"tool_call_id\":") || !sb_json(&msgs, c->id) || !sb_str(&msgs, ","))) ||
                !sb_str(&msgs, "\"name\":") || !sb_json(&msgs, c->name) || !sb_str(&msgs, ",\"content\":") || !sb_json(&msgs, result.p) ||
                !sb_str(&msgs, "}"))
                goto oom;
        }
    }
    if (!done) {
        snprintf(msg, sizeof msg, "no answer after %d rounds of tool calls", MAX_ROUNDS);
        goto fail_msg;
    }
    rc = 0;
    goto done;
oom:
    strcpy(msg, "out of memory");
fail_msg:
    fflush(stdout);
    rc = fail(msg);
    goto done;
error:
    fflush(stdout);
    rc = fail(err.message);
done:
    xlarun_chat_text_free(text);
    free(rmem);
    free(msgs.p);
    free(reply.p);
    free(result.p);
    xlarun_chat_template_free(tmpl);
    xlarun_generator_free(gen);
    xlarun_session_free(sess);
    xlarun_tokenizer_close(tok);
    xlarun_model_close(model);
    return rc;
}
