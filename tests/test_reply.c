/* tests/test_reply.c - layer 7: xlarun_reply_parse and xlarun_tool_format_guess.

   Reads the round-trip fixtures (tests/fixtures/toolcalls/cases.txt, made by
   tools/make_toolcall_fixtures.py from the families' real chat templates) and checks every case:
   the calls, their arguments byte for byte, the content and the reasoning; then every prefix of
   every case's output (a reply cut anywhere must give a result or an error, never a crash), the
   output under every other format, the memory bound (one byte short fails, an odd address works).
   Then hand-written replies: each format's variants, and bad input that must fail with
   XLARUN_ERR_FORMAT and a message naming the byte.

   Run from the repository root; --cases FILE reads another cases file, other arguments select
   cases (tests/test.h).                                                                         */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

/* a check that prints its condition and a message (tests/test.h) */
#undef CHECK
#define CHECK(c, ...) TEST_CHECK((c), #c, __VA_ARGS__)

/* parse text (len bytes) with exactly xlarun_reply_memory(len) bytes at an odd address */
typedef struct {
    unsigned char *block;
    xlarun_reply r;
    xlarun_error e;
    xlarun_status st;
} parsed;

static char *fixture_tools;  /* the fixtures' tools line: the parser takes it while they run */
static size_t fixture_tools_len;

static void parse(parsed *p, xlarun_tool_format f, const char *text, size_t len) {
    size_t need = xlarun_reply_memory(len);
    p->block = (unsigned char *)malloc(need + 1);
    if (!p->block) { fprintf(stderr, "out of memory\n"); exit(2); }
    memset(&p->e, 0, sizeof p->e);
    p->st = xlarun_reply_parse(f, text, len, fixture_tools, fixture_tools_len, p->block + 1, need, &p->r, &p->e);
}
static void done(parsed *p) { free(p->block); p->block = NULL; }

/* a result must be whole: strings NUL-terminated and the message one line */
static void check_sane(const parsed *p, const char *label) {
    size_t i;
    if (p->st != XLARUN_OK) {
        CHECK(p->e.status == p->st && p->e.message[0] && !strchr(p->e.message, '\n'), "%s: bad message '%s'", label,
              p->e.message);
        CHECK(p->r.content == NULL && p->r.n_calls == 0, "%s: output not cleared on an error", label);
        CHECK(p->st == XLARUN_ERR_FORMAT, "%s: status %s (%s)", label, xlarun_status_name(p->st), p->e.message);
        return;
    }
    CHECK(p->r.content != NULL, "%s: NULL content", label);
    for (i = 0; i < p->r.n_calls; i++) {
        const xlarun_tool_call *c = &p->r.calls[i];
        CHECK(c->name && c->name[0] && c->arguments && c->arguments[0] == '{', "%s: call %lu incomplete", label,
              (unsigned long)i);
        if (c->arguments)
            CHECK(xlarun__json_validate(c->arguments, strlen(c->arguments), "args", NULL) == XLARUN_OK,
                  "%s: call %lu arguments not JSON: %s", label, (unsigned long)i, c->arguments);
    }
}

/* ---- the round-trip fixtures ----------------------------------------------------------------- */

#define MAXC 8
typedef struct {
    char name[128];
    xlarun_tool_format format;
    char *output;
    size_t output_len;
    char *call_name[MAXC], *call_args[MAXC];
    size_t n_calls;
    char *content, *reasoning; /* reasoning NULL: none expected */
    int has_reasoning_line;
} fixture;

static char *unhex(const char *h, size_t *len) {
    size_t n = strlen(h), i;
    char *out;
    while (n && (h[n - 1] == '\n' || h[n - 1] == '\r')) n--;
    out = (char *)malloc(n / 2 + 1);
    if (!out) exit(2);
    for (i = 0; i + 1 < n; i += 2) {
        unsigned v;
        if (sscanf(h + i, "%2x", &v) != 1) { fprintf(stderr, "bad hex\n"); exit(2); }
        out[i / 2] = (char)v;
    }
    out[n / 2] = 0;
    if (len) *len = n / 2;
    return out;
}

static xlarun_tool_format format_of(const char *s) {
    int f;
    for (f = 0; f <= (int)XLARUN_TOOLS_FUNCTIONARY_V3_2; f++)
        if (!strcmp(s, xlarun_tool_format_name((xlarun_tool_format)f))) return (xlarun_tool_format)f;
    fprintf(stderr, "unknown format %s\n", s);
    exit(2);
}

static void free_fixture(fixture *x) {
    size_t i;
    free(x->output);
    free(x->content);
    free(x->reasoning);
    for (i = 0; i < x->n_calls; i++) { free(x->call_name[i]); free(x->call_args[i]); }
    memset(x, 0, sizeof *x);
}

static void check_fixture(const fixture *x) {
    parsed p;
    size_t i, cut;
    int f;
    parse(&p, x->format, x->output, x->output_len);
    check_sane(&p, x->name);
    CHECK(p.st == XLARUN_OK, "%s: %s", x->name, p.e.message);
    if (p.st == XLARUN_OK) {
        CHECK(p.r.n_calls == x->n_calls, "%s: %lu calls, want %lu", x->name, (unsigned long)p.r.n_calls,
              (unsigned long)x->n_calls);
        for (i = 0; i < x->n_calls && i < p.r.n_calls; i++) {
            CHECK(!strcmp(p.r.calls[i].name, x->call_name[i]), "%s: call %lu name '%s', want '%s'", x->name,
                  (unsigned long)i, p.r.calls[i].name, x->call_name[i]);
            CHECK(!strcmp(p.r.calls[i].arguments, x->call_args[i]), "%s: call %lu arguments\n  got  %s\n  want %s",
                  x->name, (unsigned long)i, p.r.calls[i].arguments, x->call_args[i]);
        }
        CHECK(!strcmp(p.r.content, x->content), "%s: content '%s', want '%s'", x->name, p.r.content, x->content);
        if (x->has_reasoning_line) {
            if (x->reasoning)
                CHECK(p.r.reasoning && !strcmp(p.r.reasoning, x->reasoning), "%s: reasoning '%s', want '%s'", x->name,
                      p.r.reasoning ? p.r.reasoning : "(none)", x->reasoning);
            else
                CHECK(p.r.reasoning == NULL, "%s: reasoning '%s', want none", x->name, p.r.reasoning);
        }
    }
    done(&p);
    { /* one byte short of the bound: refused up front */
        size_t need = xlarun_reply_memory(x->output_len);
        void *m = malloc(need);
        xlarun_reply r;
        xlarun_error e;
        xlarun_status st = xlarun_reply_parse(x->format, x->output, x->output_len, fixture_tools, fixture_tools_len, m, need - 1, &r, &e);
        CHECK(st == XLARUN_ERR_MEMORY && strstr(e.message, "xlarun_reply_memory"), "%s: short memory: %s", x->name,
              e.message);
        free(m);
    }
    for (cut = 0; cut < x->output_len; cut++) { /* every prefix: a result or an error */
        char label[200];
        snprintf(label, sizeof label, "%s cut at %lu", x->name, (unsigned long)cut);
        parse(&p, x->format, x->output, cut);
        check_sane(&p, label);
        done(&p);
    }
    for (f = 0; f <= (int)XLARUN_TOOLS_FUNCTIONARY_V3_2; f++) { /* the other formats */
        char label[200];
        snprintf(label, sizeof label, "%s as %s", x->name, xlarun_tool_format_name((xlarun_tool_format)f));
        parse(&p, (xlarun_tool_format)f, x->output, x->output_len);
        check_sane(&p, label);
        done(&p);
    }
}

static int run_fixtures(const char *path) {
    FILE *fp = fopen(path, "r");
    static char line[1 << 16];
    fixture x;
    int n = 0;
    if (!fp) { fprintf(stderr, "cannot open %s\n", path); return -1; }
    memset(&x, 0, sizeof x);
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (!strncmp(line, "case ", 5)) {
            free_fixture(&x);
            line[strcspn(line, "\n")] = 0;
            if (strlen(line + 5) >= sizeof x.name) { fprintf(stderr, "case name too long\n"); exit(2); }
            memcpy(x.name, line + 5, strlen(line + 5) + 1);
        } else if (!strncmp(line, "tools ", 6)) {
            free(fixture_tools);
            line[strcspn(line, "\n")] = 0;
            fixture_tools = unhex(line + 6, &fixture_tools_len);
        } else if (!strncmp(line, "format ", 7)) {
            line[strcspn(line, "\n")] = 0;
            x.format = format_of(line + 7);
        } else if (!strncmp(line, "output ", 7)) x.output = unhex(line + 7, &x.output_len);
        else if (!strncmp(line, "call ", 5) && x.n_calls < MAXC) {
            char *a = strchr(line + 5, ' ');
            if (!a) { fprintf(stderr, "bad call line\n"); exit(2); }
            *a = 0;
            x.call_name[x.n_calls] = unhex(line + 5, NULL);
            x.call_args[x.n_calls] = unhex(a + 1, NULL);
            x.n_calls++;
        } else if (!strncmp(line, "content ", 8)) x.content = unhex(line + 8, NULL);
        else if (!strncmp(line, "reasoning ", 10)) {
            x.has_reasoning_line = 1;
            x.reasoning = line[10] == '-' ? NULL : unhex(line + 10, NULL);
        } else if (!strncmp(line, "end", 3)) {
            if (!x.output || !x.content) { fprintf(stderr, "%s: incomplete case\n", x.name); exit(2); }
            if (test_case("fixture %s", x.name)) {
                check_fixture(&x);
                n++;
            }
        } else {
            fprintf(stderr, "%s: unknown line '%.20s'\n", path, line);
            exit(2);
        }
    }
    free_fixture(&x);
    fclose(fp);
    free(fixture_tools);
    fixture_tools = NULL;
    fixture_tools_len = 0;
    return n;
}

/* ---- hand-written replies ----------------------------------------------------------------------- */

#define DS_CALLS_BEGIN "<\xEF\xBD\x9Ctool\xE2\x96\x81" "calls\xE2\x96\x81" "begin\xEF\xBD\x9C>"
#define DS_CALLS_END "<\xEF\xBD\x9Ctool\xE2\x96\x81" "calls\xE2\x96\x81" "end\xEF\xBD\x9C>"
#define DS_CALL_BEGIN "<\xEF\xBD\x9Ctool\xE2\x96\x81" "call\xE2\x96\x81" "begin\xEF\xBD\x9C>"
#define DS_CALL_END "<\xEF\xBD\x9Ctool\xE2\x96\x81" "call\xE2\x96\x81" "end\xEF\xBD\x9C>"
#define DS_SEP "<\xEF\xBD\x9Ctool\xE2\x96\x81sep\xEF\xBD\x9C>"

typedef struct {
    xlarun_tool_format f;
    const char *text;
    const char *content;
    const char *reasoning;   /* NULL: none */
    const char *calls[3][3]; /* name, arguments, id (NULL: none) */
} good_case;

static const good_case goods[] = {
    /* content only, every format */
    {XLARUN_TOOLS_NONE, "  Hello there.\n", "Hello there.", NULL, {{0}}},
    {XLARUN_TOOLS_HERMES, "Plain answer with no markers.", "Plain answer with no markers.", NULL, {{0}}},
    {XLARUN_TOOLS_NONE, "<tool_call>{bad</tool_call>", "<tool_call>{bad</tool_call>", NULL, {{0}}},
    {XLARUN_TOOLS_HERMES, "", "", NULL, {{0}}},
    {XLARUN_TOOLS_HERMES, "<tool_c", "<tool_c", NULL, {{0}}},
    /* reasoning */
    {XLARUN_TOOLS_NONE, "\n<think>\nstep 1\nstep 2\n</think>\n\nThe answer.", "The answer.", "step 1\nstep 2", {{0}}},
    {XLARUN_TOOLS_NONE, "Okay, so the user asks.\n</think>\n\nFinal.", "Final.", "Okay, so the user asks.", {{0}}},
    {XLARUN_TOOLS_NONE, "<think>\n\n</think>\n\nNo thinking.", "No thinking.", "", {{0}}},
    {XLARUN_TOOLS_NONE, "<think>cut off mid-thought", "", "cut off mid-thought", {{0}}},
    {XLARUN_TOOLS_NONE, "</think>", "", "", {{0}}},
    {XLARUN_TOOLS_HERMES, "I think.\n</think>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>", "",
     "I think.", {{"f", "{}", NULL}}},
    /* Hermes / Qwen */
    {XLARUN_TOOLS_HERMES, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", "",
     NULL, {{"get_weather", "{\"city\":\"Paris\"}", NULL}}},
    {XLARUN_TOOLS_HERMES, "Sure.\n<tool_call>{\"arguments\": \"{\\\"a\\\": [1, 2.5e3, {\\\"b\\\": null}]}\", \"name\": \"f\", \"id\": \"c1\"}</tool_call>\nDone.",
     "Sure.\n\nDone.", NULL, {{"f", "{\"a\":[1,2.5e3,{\"b\":null}]}", "c1"}}},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"f\", \"arguments\": \"\"}</tool_call>", "", NULL, {{"f", "{}", NULL}}},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"f\", \"arguments\": null}</tool_call>", "", NULL, {{"f", "{}", NULL}}},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"f\"}</tool_call>", "", NULL, {{"f", "{}", NULL}}},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"f\", \"parameters\": {\"x\": true}}</tool_call>", "", NULL,
     {{"f", "{\"x\":true}", NULL}}},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": {\"x\": 1}}, \"id\": \"call_9\"}</tool_call>",
     "", NULL, {{"f", "{\"x\":1}", "call_9"}}},
    {XLARUN_TOOLS_HERMES, "<tool_call>[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {}}]</tool_call>", "",
     NULL, {{"a", "{}", NULL}, {"b", "{}", NULL}}},
    /* strings re-escaped as json.dumps(ensure_ascii=False): \u escapes decoded, \/ unescaped,
       control characters as \n or \u00XX, a quote written \u0022 as \" */
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"f\", \"arguments\": {\"s\": \"\\u00e9\\/\\u0001\\u001f\\u0022\\ud83d\\ude00\\b\\f\\n\\r\\t\\\\\"}}</tool_call>",
     "", NULL, {{"f", "{\"s\":\"\xC3\xA9/\\u0001\\u001f\\\"\xF0\x9F\x98\x80\\b\\f\\n\\r\\t\\\\\"}", NULL}}},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"na\\u00efve\", \"arguments\": {\"k \\\"q\\\"\": -0.0e-0}}</tool_call>", "",
     NULL, {{"na\xC3\xAFve", "{\"k \\\"q\\\"\":-0.0e-0}", NULL}}},
    /* Llama 3 */
    {XLARUN_TOOLS_LLAMA3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|eot_id|>", "", NULL,
     {{"get_weather", "{\"city\":\"Paris\"}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "  {\"type\": \"function\", \"name\": \"a\", \"arguments\": {}} ;\n{\"name\": \"b\", \"parameters\": {\"x\": [1]}}\n",
     "", NULL, {{"a", "{}", NULL}, {"b", "{\"x\":[1]}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "{\"name\": \"a\"}", "{\"name\": \"a\"}", NULL, {{0}}},
    {XLARUN_TOOLS_LLAMA3, "{\"name\": \"a\", \"parameters\": {}} and more", "{\"name\": \"a\", \"parameters\": {}} and more",
     NULL, {{0}}},
    {XLARUN_TOOLS_LLAMA3, "{\"name\": \"a\", \"parameters\": {}", "{\"name\": \"a\", \"parameters\": {}", NULL, {{0}}},
    {XLARUN_TOOLS_LLAMA3, "{\"nam\": \"a\", \"parameters\": {}}", "{\"nam\": \"a\", \"parameters\": {}}", NULL, {{0}}},
    {XLARUN_TOOLS_LLAMA3, "{\"name\": \"\", \"parameters\": {}}", "{\"name\": \"\", \"parameters\": {}}", NULL, {{0}}},
    {XLARUN_TOOLS_LLAMA3, "Hello!<|eot_id|>\n", "Hello!", NULL, {{0}}},
    /* an end-of-message token inside the reply is text: a call whose argument holds one (found by
       fuzz_schema's sentence check, in a tool name); only trailing ones end the reply */
    {XLARUN_TOOLS_LLAMA3, "{\"name\": \"f\", \"parameters\": {\"s\": \"a<|eot_id|>b\"}}<|eot_id|>", "", NULL,
     {{"f", "{\"s\":\"a<|eot_id|>b\"}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "Hello!<|eot_id|>more", "Hello!<|eot_id|>more", NULL, {{0}}},
    /* a <|python_tag|> in the strings of calls that fill the reply is text (found in review: the
       reply was split at it); one after them opens the built-in calls */
    {XLARUN_TOOLS_LLAMA3, "{\"name\": \"f\", \"parameters\": {\"s\": \"<|python_tag|>x\"}}", "", NULL, {{"f", "{\"s\":\"<|python_tag|>x\"}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "Thought.</think>\n{\"name\": \"f\", \"parameters\": {\"s\": \"<|python_tag|>\"}}", "", "Thought.", {{"f", "{\"s\":\"<|python_tag|>\"}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "{\"name\": \"f\", \"parameters\": {}}<|python_tag|>g.call()", "{\"name\": \"f\", \"parameters\": {}}", NULL, {{"g", "{}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "f\n{\"s\": \"<|eom_id|>\"}<|eom_id|><|eot_id|> ", "", NULL, {{"f", "{\"s\":\"<|eom_id|>\"}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>brave_search.call(query=\"weather in Paris\")<|eom_id|>", "", NULL,
     {{"brave_search", "{\"query\":\"weather in Paris\"}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>wolfram_alpha . call ( query = \"2+2\" , n = 3, ok=true, o={\"a\": [1]} )", "", NULL,
     {{"wolfram_alpha", "{\"query\":\"2+2\",\"n\":3,\"ok\":true,\"o\":{\"a\":[1]}}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call()", "", NULL, {{"f", "{}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "Let me search.<|python_tag|>{\"name\": \"s\", \"parameters\": {\"q\": \"x\"}}; {\"name\": \"t\", \"parameters\": {}}",
     "Let me search.", NULL, {{"s", "{\"q\":\"x\"}", NULL}, {"t", "{}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>import math\nprint(\"\\t\", math.pi)\x01\n<|eom_id|>", "", NULL,
     {{"python", "{\"code\":\"import math\\nprint(\\\"\\\\t\\\", math.pi)\\u0001\"}", NULL}}},
    /* Mistral */
    {XLARUN_TOOLS_MISTRAL, " [TOOL_CALLS] [{\"name\": \"a\", \"arguments\": {\"x\": 1}, \"id\": \"abcDEF123\"}, {\"name\": \"b\", \"arguments\": \"{}\", \"id\": \"xyz789QRS\"}]",
     "", NULL, {{"a", "{\"x\":1}", "abcDEF123"}, {"b", "{}", "xyz789QRS"}}},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]{\"name\": \"a\", \"arguments\": {}}", "", NULL, {{"a", "{}", NULL}}},
    {XLARUN_TOOLS_MISTRAL, "Checking.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]t[CALL_ID]id7[ARGS] {}",
     "Checking.", NULL, {{"get_weather", "{\"city\":\"Paris\"}", NULL}, {"t", "{}", "id7"}}},
    /* Granite: 3.x's <|tool_call|>[...], 4's <tool_call>, a <response> wrapper */
    {XLARUN_TOOLS_GRANITE, "<|tool_call|>[{\"name\": \"a\", \"arguments\": {\"q\": 1}}, {\"name\": \"b\", \"arguments\": {}}]", "",
     NULL, {{"a", "{\"q\":1}", NULL}, {"b", "{}", NULL}}},
    {XLARUN_TOOLS_GRANITE, "<think>hm</think><response>Calling.</response><|tool_call|>[{\"name\": \"a\", \"arguments\": {}}]",
     "Calling.", "hm", {{"a", "{}", NULL}}},
    {XLARUN_TOOLS_GRANITE, "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>", "", NULL, {{"a", "{}", NULL}}},
    /* Phi-4-mini */
    {XLARUN_TOOLS_PHI4, "<|tool_call|>[{\"name\": \"a\", \"arguments\": {\"q\": 1}}]<|/tool_call|>", "", NULL, {{"a", "{\"q\":1}", NULL}}},
    {XLARUN_TOOLS_PHI4, "<|tool_call|>{\"name\": \"a\", \"arguments\": {}}<|/tool_call|><|tool_call|>{\"name\": \"b\", \"arguments\": {}}",
     "", NULL, {{"a", "{}", NULL}, {"b", "{}", NULL}}},
    {XLARUN_TOOLS_PHI4, "functools[{\"name\": \"a\", \"arguments\": {}}]", "", NULL, {{"a", "{}", NULL}}},
    {XLARUN_TOOLS_PHI4, "Use functools.partial here.", "Use functools.partial here.", NULL, {{0}}},
    /* DeepSeek-R1 */
    {XLARUN_TOOLS_DEEPSEEK_R1, "Okay.\n</think>\n\n" DS_CALLS_BEGIN DS_CALL_BEGIN "function" DS_SEP "get_weather\n```json\n{\"city\": \"Paris\"}\n```" DS_CALL_END "\n" DS_CALL_BEGIN "function" DS_SEP "t\n```json\n{}\n```" DS_CALL_END DS_CALLS_END,
     "", "Okay.", {{"get_weather", "{\"city\":\"Paris\"}", NULL}, {"t", "{}", NULL}}},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN DS_CALL_BEGIN "function" DS_SEP "a\n```json\n{}\n```" DS_CALL_END, "", NULL,
     {{"a", "{}", NULL}}},
    {XLARUN_TOOLS_DEEPSEEK_R1, "Calling." DS_CALLS_BEGIN "function" DS_SEP "a\n{\"x\": 2}" DS_CALL_END DS_CALLS_END " Done.",
     "Calling. Done.", NULL, {{"a", "{\"x\":2}", NULL}}},
    {XLARUN_TOOLS_DEEPSEEK_R1, "<\xEF\xBD\x9Ctool_calls_begin\xEF\xBD\x9C>function" DS_SEP "a\n```json\n{}\n```" DS_CALL_END DS_CALLS_END,
     "", NULL, {{"a", "{}", NULL}}},
    /* Qwen3-Coder's XML (no tools given: a value is the JSON it holds, else its text) */
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis, France\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>",
     "", NULL, {{"get_weather", "{\"location\":\"Paris, France\",\"unit\":\"celsius\"}", NULL}}},
    {XLARUN_TOOLS_QWEN3_CODER, "Checking.\n\n<tool_call>\n<function=a>\n</function>\n</tool_call>\n<tool_call>\n<function=b>\n<parameter=n>\n42\n</parameter>\n<parameter=t>\nTrue\n</parameter>\n<parameter=z>\nNone\n</parameter>\n<parameter=l>\n[1, {\"k\": false}]\n</parameter>\n</function>\n</tool_call>",
     "Checking.", NULL, {{"a", "{}", NULL}, {"b", "{\"n\":42,\"t\":true,\"z\":null,\"l\":[1,{\"k\":false}]}", NULL}}},
    {XLARUN_TOOLS_QWEN3_CODER, "<think>Code.</think><tool_call><function=w><parameter=code>x = \"a\\b\"\n\n\tif x < 1: </para\n</parameter></function></tool_call> ok",
     "ok", "Code.", {{"w", "{\"code\":\"x = \\\"a\\\\b\\\"\\n\\n\\tif x < 1: </para\"}", NULL}}},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call>\n<function=f>\n<parameter=s>\n\n  two lines\nhere \n\n</parameter>\n<parameter=e>\n\n</parameter>\n</function>\n</tool_call>",
     "", NULL, {{"f", "{\"s\":\"\\n  two lines\\nhere \\n\",\"e\":\"\"}", NULL}}},
    /* a bare </think> after the first call is the call's text, not the end of reasoning */
    {XLARUN_TOOLS_HERMES, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"s\": \"</think>\"}}\n</tool_call>", "", NULL,
     {{"f", "{\"s\":\"</think>\"}", NULL}}},
    {XLARUN_TOOLS_HERMES, "Plan.</think>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"s\": \"</think>\"}}\n</tool_call>", "", "Plan.",
     {{"f", "{\"s\":\"</think>\"}", NULL}}},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call>\n<function=f>\n<parameter=code>\nif \"</think>\" in s: pass\n</parameter>\n</function>\n</tool_call>",
     "", NULL, {{"f", "{\"code\":\"if \\\"</think>\\\" in s: pass\"}", NULL}}},
    {XLARUN_TOOLS_LLAMA3, "{\"name\": \"f\", \"parameters\": {\"s\": \"</think>\"}}", "", NULL, {{"f", "{\"s\":\"</think>\"}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "f\n{\"s\": \"</think>\"}", "", NULL, {{"f", "{\"s\":\"</think>\"}", NULL}}},
    {XLARUN_TOOLS_GRANITE, "Hm.</think><response>Calling.</response><|tool_call|>[{\"name\": \"a\", \"arguments\": {}}]",
     "Calling.", "Hm.", {{"a", "{}", NULL}}},
    /* Functionary v3.1 */
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "Sure.<function=get_weather>{\"location\": \"Paris\"}</function><function=t>{}</function><|eom_id|>",
     "Sure.", NULL, {{"get_weather", "{\"location\":\"Paris\"}", NULL}, {"t", "{}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<function=a> { \"x\" : [1, 2] } </function>\nDone.", "Done.", NULL, {{"a", "{\"x\":[1,2]}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<|python_tag|>print(\"<b>\")\n<function=b>{}</function>", "", NULL,
     {{"python", "{\"code\":\"print(\\\"<b>\\\")\"}", NULL}, {"b", "{}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<|python_tag|>{\"name\": \"a\"}<function=a>{}</function>", "", NULL,
     {{"python", "{\"code\":\"{\\\"name\\\": \\\"a\\\"}\"}", NULL}, {"a", "{}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "I use <function> tags in HTML.<|eot_id|>", "I use <function> tags in HTML.", NULL, {{0}}},
    /* Functionary v3.2 (the prompt ends with ">>>") */
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "get_weather\n{\"location\": \"Paris\"}>>>t\n{}", "", NULL,
     {{"get_weather", "{\"location\":\"Paris\"}", NULL}, {"t", "{}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "all\nHello.\n>>> print(1) stays text>>>a\n {\"k\": \"v>>>x\\n\"}\n", "Hello.\n>>> print(1) stays text",
     NULL, {{"a", "{\"k\":\"v>>>x\\n\"}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "python\nimport os\nprint(os.sep)\n>>>all\nDone.", "Done.", NULL,
     {{"python", "{\"code\":\"import os\\nprint(os.sep)\"}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "Just text, no recipient line.", "Just text, no recipient line.", NULL, {{0}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "Text first.>>>f.x-1\n{}<|eot_id|>", "Text first.", NULL, {{"f.x-1", "{}", NULL}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, ">>>all\nHi<|eot_id|>", "Hi", NULL, {{0}}},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "<think>r</think>\nall\nx", "x", "r", {{0}}},
};

typedef struct {
    xlarun_tool_format f;
    const char *text;
    const char *message; /* a part of the message */
} bad_case;

static const bad_case bads[] = {
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<function=f>", "functionary-v3.1 reply: the arguments after <function=NAME> at byte 12 is not a JSON object"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<function=f>{\"a\": 1}", "the <function= at byte 0 is not closed by </function> (byte 20)"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<function=f\n>{}</function>", "the <function= at byte 0 has no NAME> on its line"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<function=>{}</function>", "the tool name at byte 10 is empty"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<function=f>[1]</function>", "the arguments after <function=NAME> at byte 12 is not a JSON object"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_1, "<|python_tag|><function=f>{}</function>", "<|python_tag|> at byte 0 is followed by nothing"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "get_weather\nParis", "functionary-v3.2 reply: the recipient at byte 0 is not followed by a JSON object (byte 12)"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "f\n{\"a\": 1} trailing", "expected >>>RECIPIENT or the reply's end after the arguments of f at byte 11"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "f\n{\"a\": 1", "the arguments after the recipient line at byte 2 is not closed before the reply ends"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "python\n  \n>>>all\nx", "the recipient python at byte 0 is followed by nothing"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "python\nprint(\"\xC3\")", "invalid UTF-8 at byte 14 in the code after the recipient python"},
    {XLARUN_TOOLS_FUNCTIONARY_V3_2, "all\nx>>>f\n[1]", "the recipient at byte 8 is not followed by a JSON object (byte 10)"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
     "qwen3-coder reply: the <tool_call> at byte 0 is not followed by <function=NAME> (byte 12)"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call><function=f\n>", "the <function= at byte 11 has no NAME> on its line"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call><function= >", "the tool name at byte 21 is empty"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call><function=f>", "expected <parameter=KEY> or </function> at byte 23"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call><function=f><param=a>1</param></function></tool_call>", "expected <parameter=KEY> or </function> at byte 23"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call><function=f><parameter=>1</parameter></function></tool_call>", "the <parameter= at byte 23 has no KEY> on its line"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call><function=f><parameter=a>\n1\n</function></tool_call>", "the <parameter=a> at byte 23 is not closed by </parameter>"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call><function=f></function>", "the <tool_call> at byte 0 is not closed by </tool_call> (byte 34)"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call><function=f><parameter=a>\xff</parameter></function></tool_call>", "invalid UTF-8 at byte 36 in a parameter's value"},
    {XLARUN_TOOLS_QWEN3_CODER, "<tool_call><function=f><parameter=\xc3>1</parameter></function></tool_call>", "invalid UTF-8 at byte 34 in a parameter's name"},
    {XLARUN_TOOLS_HERMES, "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}", "hermes reply: the <tool_call> at byte 0 is not closed by </tool_call> (byte 42)"},
    {XLARUN_TOOLS_HERMES, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1,}}\n</tool_call>",
     "hermes reply: invalid JSON in the tool call after <tool_call> at byte 47 (it starts at byte 12): expected a string key"},
    {XLARUN_TOOLS_HERMES, "<tool_call>\n{\"name\": \"f\", \"arguments\": {", "the tool call after <tool_call> at byte 12 is not closed before the reply ends"},
    {XLARUN_TOOLS_HERMES, "<tool_call>", "<tool_call> at byte 0 is not followed by a JSON object or array (byte 11)"},
    {XLARUN_TOOLS_HERMES, "<tool_call>get_weather(city='Paris')</tool_call>", "<tool_call> at byte 0 is not followed by a JSON object or array (byte 11)"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"arguments\": {}}</tool_call>", "a tool call has no \"name\" string (after <tool_call>, at byte 11)"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": 5}</tool_call>", "a tool call has no \"name\" string"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"\"}</tool_call>", "a tool call's name is empty"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\\nb\"}</tool_call>", "a tool call's name holds a control character"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\\u0000\"}</tool_call>", "a tool call's name holds a control character"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\", \"id\": \"x\\ty\"}</tool_call>", "a tool call's id holds a control character"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\", \"arguments\": [1]}</tool_call>", "a tool call's arguments are not a JSON object"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\", \"arguments\": \"[1]\"}</tool_call>", "arguments string does not hold a JSON object"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\", \"arguments\": \"{\\\"x\\\": }\"}</tool_call>", "arguments string does not hold a JSON object"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\", \"arguments\": \"{\\u0000}\"}</tool_call>", "arguments string does not hold a JSON object"},
    {XLARUN_TOOLS_HERMES, "<tool_call>[{\"name\": \"a\"}, 3]</tool_call>", "a tool call is not a JSON object (after <tool_call>, at byte 27)"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\", \"arguments\": {\"s\": \"\xff\"}}</tool_call>", "invalid UTF-8 in a string"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\", \"arguments\": {\"s\": \"\\ud800\"}}</tool_call>", "unpaired surrogate"},
    {XLARUN_TOOLS_HERMES, "<tool_call>{\"name\": \"a\"} {\"name\": \"b\"}</tool_call>", "is not closed by </tool_call>"},
    {XLARUN_TOOLS_GRANITE, "<|tool_call|>[{\"name\": \"a\", \"arguments\": {}}", "the tool call after <|tool_call|> at byte 13 is not closed before the reply ends"},
    {XLARUN_TOOLS_GRANITE, "<|tool_call|>", "granite reply: <|tool_call|> at byte 0 is not followed by a JSON object or array (byte 13)"},
    {XLARUN_TOOLS_PHI4, "functools[{\"name\": \"a\", \"arguments\": {}}", "phi4 reply: the tool call after functools[ at byte 9 is not closed"},
    {XLARUN_TOOLS_PHI4, "<|tool_call|>[{\"name\": \"a\" \"arguments\": {}}]", "expected ',' or '}'"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]", "mistral reply: [TOOL_CALLS] at byte 0 is followed by neither JSON nor NAME[ARGS]"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]get_weather", "[TOOL_CALLS] at byte 0 is followed by neither JSON nor NAME[ARGS]"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]I cannot\n help [with that]", "[TOOL_CALLS] at byte 0 is followed by neither JSON nor NAME[ARGS]"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]get_weather[ARG]{}", "mistral reply: expected [ARGS] at byte 23"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]get_weather[ARGS]", "the arguments after [ARGS] at byte 29 is not a JSON object"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"", "the arguments after [ARGS] at byte 29 is not closed before the reply ends"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]   [ARGS]{}", "the tool name after [TOOL_CALLS] at byte 15 is empty"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]a\x01[ARGS]{}", "the tool name after [TOOL_CALLS] at byte 12 holds a control character"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS]a[CALL_ID][ARGS]{}", "the call id after [CALL_ID] at byte 22 is empty"},
    {XLARUN_TOOLS_MISTRAL, "[TOOL_CALLS] [{\"name\": \"a\", \"arguments\": {}]", "mistral reply: invalid JSON in the tool call after [TOOL_CALLS] at byte 43 (it starts at byte 13): expected ',' or '}'"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>", "llama3 reply: <|python_tag|> at byte 0 is followed by nothing"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>  \n<|eom_id|>", "<|python_tag|> at byte 0 is followed by nothing"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>{\"name\": \"a\"}", "a tool call has no \"parameters\" or \"arguments\" (after <|python_tag|>, at byte 14)"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>{\"name\": \"a\", \"parameters\": {}", "the tool call after <|python_tag|> at byte 14 is not closed"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call(query=\"x\"", "expected ',' or ')' at byte 30"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call(query=)", "an argument's value at byte 27 is not a JSON value"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call(query='x')", "an argument's value at byte 27 is not a JSON value"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call(query=\"x)", "an argument's value at byte 27 is not closed before the reply ends"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call(query=tru)", "invalid JSON in an argument's value at byte 27"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call(a=", "an argument's value at byte 23 is missing: the reply ends there"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call(1=2)", "expected an argument name at byte 21"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call(a 2)", "expected '=' at byte 23"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>f.call(a=1,)", "expected an argument name at byte 25"},
    {XLARUN_TOOLS_LLAMA3, "<|python_tag|>print(\"\xC3\")", "invalid UTF-8 at byte 21 in the code after <|python_tag|>"},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN, "deepseek-r1 reply: the tool calls at byte 0 end before their first call"},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN DS_CALL_BEGIN "function", "expected TYPE"},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN DS_CALL_BEGIN "function" DS_SEP "get_weather", "the tool name at byte 81 is not followed by a new line"},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN DS_CALL_BEGIN "function" DS_SEP "get_weather\n```json\n{\"a\": 1}\n", "expected ``` at byte 110"},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN DS_CALL_BEGIN "function" DS_SEP "get_weather\n```json\n{\"a\": 1}\n```", "expected <"},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN DS_CALL_BEGIN "function" DS_SEP "get_weather\n```json\n{\"a\": 1\n```", "is not closed before the reply ends"},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN DS_CALL_BEGIN "function" DS_SEP "\n```json\n{}\n```" DS_CALL_END, "the tool name at byte 81 is empty"},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN DS_CALL_BEGIN "function" DS_SEP "a\n```json\n[1]\n```" DS_CALL_END, "the tool call's arguments at byte 91 is not a JSON object"},
    {XLARUN_TOOLS_DEEPSEEK_R1, DS_CALLS_BEGIN "hello", "expected TYPE"},
};

static int run_goods(void) {
    size_t k, i;
    int n_run = 0;
    for (k = 0; k < sizeof goods / sizeof goods[0]; k++) {
        const good_case *g = &goods[k];
        parsed p;
        size_t n = 0;
        char label[64];
        snprintf(label, sizeof label, "good case %lu (%s)", (unsigned long)k, xlarun_tool_format_name(g->f));
        if (!test_case("%s", label)) continue;
        n_run++;
        while (n < 3 && g->calls[n][0]) n++;
        parse(&p, g->f, g->text, strlen(g->text));
        check_sane(&p, label);
        CHECK(p.st == XLARUN_OK, "%s: %s", label, p.e.message);
        if (p.st == XLARUN_OK) {
            CHECK(!strcmp(p.r.content, g->content), "%s: content '%s', want '%s'", label, p.r.content, g->content);
            if (g->reasoning)
                CHECK(p.r.reasoning && !strcmp(p.r.reasoning, g->reasoning), "%s: reasoning '%s', want '%s'", label,
                      p.r.reasoning ? p.r.reasoning : "(none)", g->reasoning);
            else
                CHECK(!p.r.reasoning, "%s: reasoning '%s', want none", label, p.r.reasoning);
            CHECK(p.r.n_calls == n, "%s: %lu calls, want %lu", label, (unsigned long)p.r.n_calls, (unsigned long)n);
            for (i = 0; i < n && i < p.r.n_calls; i++) {
                const xlarun_tool_call *c = &p.r.calls[i];
                CHECK(!strcmp(c->name, g->calls[i][0]), "%s: call %lu name '%s'", label, (unsigned long)i, c->name);
                CHECK(!strcmp(c->arguments, g->calls[i][1]), "%s: call %lu arguments\n  got  %s\n  want %s", label,
                      (unsigned long)i, c->arguments, g->calls[i][1]);
                if (g->calls[i][2])
                    CHECK(c->id && !strcmp(c->id, g->calls[i][2]), "%s: call %lu id '%s'", label, (unsigned long)i,
                          c->id ? c->id : "(none)");
                else
                    CHECK(!c->id, "%s: call %lu id '%s', want none", label, (unsigned long)i, c->id);
            }
        }
        done(&p);
        for (i = 0; i < strlen(g->text); i++) { /* every prefix */
            parse(&p, g->f, g->text, i);
            check_sane(&p, label);
            done(&p);
        }
    }
    return n_run;
}

static int run_bads(void) {
    size_t k;
    int n_run = 0;
    for (k = 0; k < sizeof bads / sizeof bads[0]; k++) {
        const bad_case *b = &bads[k];
        parsed p;
        char label[64];
        snprintf(label, sizeof label, "bad case %lu (%s)", (unsigned long)k, xlarun_tool_format_name(b->f));
        if (!test_case("%s", label)) continue;
        n_run++;
        parse(&p, b->f, b->text, strlen(b->text));
        check_sane(&p, label);
        CHECK(p.st == XLARUN_ERR_FORMAT && strstr(p.e.message, b->message), "%s: status %s, message '%s', want '%s'",
              label, xlarun_status_name(p.st), p.e.message, b->message);
        done(&p);
    }
    return n_run;
}

/* ---- NUL bytes, nesting, size, arguments, the guess ---------------------------------------- */

static void run_special(void) {
    parsed p;
    xlarun_reply r;
    xlarun_error e;
    xlarun_status st;
    char buf[256];
    size_t n, i;
    int f;
    /* a NUL byte anywhere is refused with its offset, in every format */
    for (f = 0; f <= (int)XLARUN_TOOLS_DEEPSEEK_R1; f++) {
        static const char t[] = "Hello\0<tool_call>{\"name\": \"a\"}</tool_call>";
        parse(&p, (xlarun_tool_format)f, t, sizeof t - 1);
        CHECK(p.st == XLARUN_ERR_FORMAT && strstr(p.e.message, "a NUL byte at byte 5"), "NUL: %s", p.e.message);
        CHECK(!strncmp(p.e.message, xlarun_tool_format_name((xlarun_tool_format)f), 3), "NUL: no format in '%s'", p.e.message);
        done(&p);
    }
    { /* nesting: the call object, its arguments and k arrays; 64 levels are read, 65 refused */
        static char t[400000];
        size_t k;
        for (k = 62; k <= 63; k++) {
            n = (size_t)sprintf(t, "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": ");
            for (i = 0; i < k; i++) t[n++] = '[';
            for (i = 0; i < k; i++) t[n++] = ']';
            n += (size_t)sprintf(t + n, "}}</tool_call>");
            parse(&p, XLARUN_TOOLS_HERMES, t, n);
            if (k == 62) CHECK(p.st == XLARUN_OK && p.r.n_calls == 1, "depth 64: %s", p.e.message);
            else CHECK(p.st == XLARUN_ERR_FORMAT && strstr(p.e.message, "at byte 106 (it starts at byte 11): nesting deeper than 64"),
                       "depth 65: %s", p.e.message);
            done(&p);
        }
        /* 100000 levels, open or closed: refused at once, no recursion */
        n = (size_t)sprintf(t, "<tool_call>{\"name\": \"a\", \"arguments\": ");
        for (i = 0; i < 100000; i++) t[n++] = '[';
        parse(&p, XLARUN_TOOLS_HERMES, t, n);
        CHECK(p.st == XLARUN_ERR_FORMAT && strstr(p.e.message, "nesting deeper than 64"), "deep open: %s", p.e.message);
        done(&p);
        for (i = 0; i < 100000; i++) t[n++] = ']';
        n += (size_t)sprintf(t + n, "}</tool_call>");
        parse(&p, XLARUN_TOOLS_HERMES, t, n);
        CHECK(p.st == XLARUN_ERR_FORMAT && strstr(p.e.message, "nesting deeper than 64"), "deep closed: %s", p.e.message);
        done(&p);
        /* the same as a whole Llama 3 reply has no marker: content, no error */
        parse(&p, XLARUN_TOOLS_LLAMA3, t + 11, n - 11 - 12);
        CHECK(p.st == XLARUN_OK && p.r.n_calls == 0 && strlen(p.r.content) == n - 11 - 12, "llama3 deep: %s", p.e.message);
        done(&p);
        /* a bracket that closes the wrong kind is named where it is */
        n = (size_t)sprintf(t, "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": [1}}}</tool_call>");
        parse(&p, XLARUN_TOOLS_HERMES, t, n);
        CHECK(p.st == XLARUN_ERR_FORMAT && strstr(p.e.message, "at byte 46 (it starts at byte 11): expected ',' or ']'"),
              "mismatch: %s", p.e.message);
        done(&p);
    }
    { /* many calls: the bound holds for the densest replies */
        static char t[600000];
        static const char *const dense[] = {"{\"name\":\"a\"},", "[TOOL_CALLS]a[ARGS]{}", "<|python_tag|>a.call(b=1,c=2,d=3,e=4,f=5,g=6)",
                                            "<|python_tag|>\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"};
        static const xlarun_tool_format df[] = {XLARUN_TOOLS_PHI4, XLARUN_TOOLS_MISTRAL, XLARUN_TOOLS_LLAMA3, XLARUN_TOOLS_LLAMA3};
        size_t d;
        for (d = 0; d < 4; d++) {
            size_t want = d == 0 ? 10000 : d == 3 ? 1 : 5000;
            n = 0;
            if (d == 0) n = (size_t)sprintf(t, "<|tool_call|>[");
            for (i = 0; i < want; i++) n += (size_t)sprintf(t + n, "%s", dense[d]);
            if (d == 0) t[n - 1] = ']';
            if (d == 3) {
                memset(t + n, 1, 100000);
                n += 100000;
            }
            parse(&p, df[d], t, n);
            CHECK(p.st == XLARUN_OK && p.r.n_calls == want, "dense %lu: %lu calls, %s", (unsigned long)d,
                  (unsigned long)p.r.n_calls, p.e.message);
            done(&p);
        }
        /* Llama's python tag: one call per tag, and text between */
        n = 0;
        for (i = 0; i < 1000; i++) n += (size_t)sprintf(t + n, "x<|python_tag|>f.call(a=\"\\u00e9\")");
        parse(&p, XLARUN_TOOLS_LLAMA3, t, n);
        CHECK(p.st == XLARUN_OK && p.r.n_calls == 1000 && strlen(p.r.content) == 1000 &&
                  !strcmp(p.r.calls[999].arguments, "{\"a\":\"\xC3\xA9\"}"),
              "python tags: %lu calls, %s", (unsigned long)p.r.n_calls, p.e.message);
        done(&p);
    }
    /* arguments */
    st = xlarun_reply_parse(XLARUN_TOOLS_HERMES, "x", 1, NULL, 0, buf, sizeof buf, NULL, &e);
    CHECK(st == XLARUN_ERR_ARGUMENT && strstr(e.message, "the output is NULL"), "%s", e.message);
    st = xlarun_reply_parse(XLARUN_TOOLS_HERMES, NULL, 1, NULL, 0, buf, sizeof buf, &r, &e);
    CHECK(st == XLARUN_ERR_ARGUMENT && strstr(e.message, "the text is NULL") && !r.content, "%s", e.message);
    st = xlarun_reply_parse(XLARUN_TOOLS_HERMES, NULL, 0, NULL, 0, buf, sizeof buf, &r, &e);
    CHECK(st == XLARUN_OK && r.content && !r.content[0], "empty: %s", e.message);
    st = xlarun_reply_parse((xlarun_tool_format)10, "x", 1, NULL, 0, buf, sizeof buf, &r, &e);
    CHECK(st == XLARUN_ERR_ARGUMENT && strstr(e.message, "unknown tool format 10"), "%s", e.message);
    st = xlarun_reply_parse(XLARUN_TOOLS_HERMES, "x", 1, NULL, 0, NULL, 1000, &r, &e);
    CHECK(st == XLARUN_ERR_MEMORY && strstr(e.message, "0 bytes of reply memory are too few"), "%s", e.message);
    st = xlarun_reply_parse(XLARUN_TOOLS_HERMES, "x", 1, NULL, 0, buf, 10, &r, &e);
    CHECK(st == XLARUN_ERR_MEMORY && strstr(e.message, "10 bytes of reply memory are too few, 95 needed"), "%s", e.message);
    st = xlarun_reply_parse(XLARUN_TOOLS_HERMES, "x", SIZE_MAX / 8, NULL, 0, buf, sizeof buf, &r, &e);
    CHECK(st == XLARUN_ERR_ARGUMENT && strstr(e.message, "over the limit"), "%s", e.message);
    st = xlarun_reply_parse(XLARUN_TOOLS_HERMES, "x", 1, NULL, 0, buf, sizeof buf, &r, NULL); /* no error struct */
    CHECK(st == XLARUN_OK && !strcmp(r.content, "x"), "no err");
    {   /* Qwen3-Coder's values typed by the tools' schemas: a string parameter keeps its text */
        static const char tools[] =
            "[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {\"type\": \"object\", \"properties\": {"
            "\"s\": {\"type\": \"string\"}, \"n\": {\"type\": \"integer\"}, \"u\": {\"type\": [\"null\", \"string\"]}, \"b\": {\"type\": \"boolean\"}}}}},"
            " {\"name\": \"g\", \"parameters\": {\"properties\": {\"s\": {\"type\": \"number\"}}}}]";
        static const char reply[] =
            "<tool_call>\n<function=f>\n<parameter=s>\n42\n</parameter>\n<parameter=n>\n42\n</parameter>\n<parameter=u>\nTrue\n</parameter>\n"
            "<parameter=b>\nFalse\n</parameter>\n<parameter=x>\n[1]\n</parameter>\n<parameter=n2>\nnot json\n</parameter>\n</function>\n</tool_call>"
            "<tool_call>\n<function=g>\n<parameter=s>\n42\n</parameter>\n</function>\n</tool_call>";
        size_t need = xlarun_reply_memory(sizeof reply - 1);
        unsigned char *m = (unsigned char *)malloc(need);
        CHECK(m != NULL, "memory");
        st = xlarun_reply_parse(XLARUN_TOOLS_QWEN3_CODER, reply, sizeof reply - 1, tools, sizeof tools - 1, m, need, &r, &e);
        CHECK(st == XLARUN_OK && r.n_calls == 2 &&
              !strcmp(r.calls[0].arguments, "{\"s\":\"42\",\"n\":42,\"u\":\"True\",\"b\":false,\"x\":[1],\"n2\":\"not json\"}") &&
              !strcmp(r.calls[1].arguments, "{\"s\":42}"), "typed: %s %s", e.message, r.n_calls ? r.calls[0].arguments : "");
        st = xlarun_reply_parse(XLARUN_TOOLS_QWEN3_CODER, reply, sizeof reply - 1, NULL, 0, m, need, &r, &e);
        CHECK(st == XLARUN_OK && r.n_calls == 2 && !strncmp(r.calls[0].arguments, "{\"s\":42,\"n\":42,\"u\":true,", 24),
              "untyped: %s", r.n_calls ? r.calls[0].arguments : e.message);
        st = xlarun_reply_parse(XLARUN_TOOLS_QWEN3_CODER, reply, sizeof reply - 1, "[{\"name\": ", 10, m, need, &r, &e);
        CHECK(st == XLARUN_ERR_ARGUMENT && strstr(e.message, "reply: tools_json") && !r.content, "%s", e.message);
        free(m);
    }
    CHECK(xlarun_reply_memory(0) == 64 + sizeof(xlarun_tool_call), "memory(0)");
    CHECK(xlarun_reply_memory(120) == 64 + 31 * sizeof(xlarun_tool_call) + 840, "memory(120)");
    CHECK(xlarun_reply_memory(SIZE_MAX / 16 + 1) == SIZE_MAX, "memory(huge)");
    CHECK(!strcmp(xlarun_tool_format_name((xlarun_tool_format)10), "?") && !strcmp(xlarun_tool_format_name(XLARUN_TOOLS_QWEN3_CODER), "qwen3-coder") &&
          !strcmp(xlarun_tool_format_name(XLARUN_TOOLS_FUNCTIONARY_V3_1), "functionary-v3.1") &&
          !strcmp(xlarun_tool_format_name(XLARUN_TOOLS_FUNCTIONARY_V3_2), "functionary-v3.2"), "name(10)");
    /* the strings stay inside the memory given */
    {
        const char *t = "<think>r</think>c<tool_call>{\"name\": \"n\", \"arguments\": {\"k\": 1}, \"id\": \"i\"}</tool_call>";
        size_t need = xlarun_reply_memory(strlen(t));
        char *m = (char *)malloc(need);
        const char *ptrs[5];
        st = xlarun_reply_parse(XLARUN_TOOLS_HERMES, t, strlen(t), NULL, 0, m, need, &r, &e);
        CHECK(st == XLARUN_OK && r.n_calls == 1, "inside: %s", e.message);
        if (st == XLARUN_OK && r.n_calls == 1) {
            ptrs[0] = r.content; ptrs[1] = r.reasoning; ptrs[2] = r.calls[0].name; ptrs[3] = r.calls[0].arguments;
            ptrs[4] = r.calls[0].id;
            for (i = 0; i < 5; i++)
                CHECK(ptrs[i] >= m && ptrs[i] + strlen(ptrs[i]) < m + need, "string %lu outside", (unsigned long)i);
            CHECK((const char *)r.calls >= m && (const char *)(r.calls + 1) <= m + need, "calls outside");
        }
        free(m);
    }
}

typedef struct { const char *const *tokens; } vocab;
static int has_token(void *user, const char *text) {
    const vocab *v = (const vocab *)user;
    size_t i;
    for (i = 0; v->tokens[i]; i++)
        if (!strcmp(v->tokens[i], text)) return 1;
    return 0;
}

static void run_guess(void) {
    static const char *const llama[] = {"<|begin_of_text|>", "<|python_tag|>", "<|eom_id|>", NULL};
    static const char *const hermes3[] = {"<|python_tag|>", "<tool_call>", "</tool_call>", NULL};
    static const char *const qwen[] = {"<|im_start|>", "<tool_call>", "</tool_call>", "<think>", NULL};
    static const char *const mistral[] = {"[INST]", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", NULL};
    static const char *const granite[] = {"<|start_of_role|>", "<|tool_call|>", NULL};
    static const char *const phi4[] = {"<|tool_call|>", "<|/tool_call|>", "<|tool|>", NULL};
    static const char *const ds[] = {"<tool_call>", DS_CALLS_BEGIN, DS_CALL_BEGIN, NULL};
    static const char *const none[] = {"<s>", "</s>", NULL};
    vocab v;
    v.tokens = llama; CHECK(xlarun_tool_format_guess(has_token, &v) == XLARUN_TOOLS_LLAMA3, "llama");
    v.tokens = hermes3; CHECK(xlarun_tool_format_guess(has_token, &v) == XLARUN_TOOLS_HERMES, "hermes 3");
    v.tokens = qwen; CHECK(xlarun_tool_format_guess(has_token, &v) == XLARUN_TOOLS_HERMES, "qwen");
    v.tokens = mistral; CHECK(xlarun_tool_format_guess(has_token, &v) == XLARUN_TOOLS_MISTRAL, "mistral");
    v.tokens = granite; CHECK(xlarun_tool_format_guess(has_token, &v) == XLARUN_TOOLS_GRANITE, "granite");
    v.tokens = phi4; CHECK(xlarun_tool_format_guess(has_token, &v) == XLARUN_TOOLS_PHI4, "phi4");
    v.tokens = ds; CHECK(xlarun_tool_format_guess(has_token, &v) == XLARUN_TOOLS_DEEPSEEK_R1, "deepseek");
    v.tokens = none; CHECK(xlarun_tool_format_guess(has_token, &v) == XLARUN_TOOLS_NONE, "none");
    CHECK(xlarun_tool_format_guess(NULL, NULL) == XLARUN_TOOLS_NONE, "NULL callback");
}

int main(int argc, char **argv) {
    const char *path = "tests/fixtures/toolcalls/cases.txt";
    int n, n_good, n_bad;
    if (argc > 2 && !strcmp(argv[1], "--cases")) { /* the options test_init does not know come first */
        path = argv[2];
        argv[2] = argv[0];
        argv += 2;
        argc -= 2;
    }
    test_init(argc, argv);
    n = run_fixtures(path);
    if (n < 0) return 1;
    n_good = run_goods();
    n_bad = run_bads();
    if (test_case("special replies")) run_special();
    if (test_case("format guess")) run_guess();
    if (n + n_good + n_bad)
        printf("reply fixtures: %d round-trip cases from the families' templates, %d good and %d bad hand-written replies\n", n,
               n_good, n_bad);
    return test_report("reply");
}
