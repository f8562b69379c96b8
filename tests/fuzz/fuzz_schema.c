/* fuzz_schema: a JSON Schema converted to a grammar. The input is the schema text, as it is. The
   conversion must succeed or fail with XLARUN_ERR_GRAMMAR (never another status, never a crash);
   the message names the JSON path ("#...") or the JSON error. A success must measure and fill the
   same bytes, write a NUL after them, refuse one byte less with XLARUN_ERR_MEMORY, and give a
   grammar that the GBNF compiler accepts (or refuses only for its size limits), whose matcher
   takes the start of a sentence. An input that starts with '[' is also read as a tools array by
   xlarun_tool_grammar (the format from the input's length), with the same checks, and a sentence
   of that grammar, walked byte by byte from a seed (the input's hash), often after the format's
   opening marker (and sometimes after reasoning, whose markers are text), must read back with xlarun_reply_parse (with a call where the marker opened
   one): the grammar writes nothing the reader refuses. */
#include "fuzz.h"

/* a walk through the tool grammar g of format f for tools s */
static void fuzz_tools_sentence(xlarun_grammar *g, xlarun_tool_format f, const char *s, size_t size) {
    static const char *const open[10] = {"", "{", "<tool_call>", "[TOOL_CALLS]", "<|tool_call|>", "<|tool_call|>",
                                         "<\xEF\xBD\x9Ctool\xE2\x96\x81" "calls\xE2\x96\x81" "begin\xEF\xBD\x9C>",
                                         "<tool_call>", "<function=", ""};
    static const char *const pre[2] = {"<think>\nA <tool_call> [TOOL_CALLS] <|tool_call|> <function= <|python_tag|> >>>\n{\"name\": \"x\"}\n"
                                       "<\xEF\xBD\x9Ctool\xE2\x96\x81" "calls\xE2\x96\x81" "begin\xEF\xBD\x9C>\n</think>\n\n", "A</think>\n\n"};
    static char bytes[256];
    static const char *toks[256];
    static size_t lens[256];
    char text[600];
    size_t n = 0, i, step;
    uint64_t h = 1469598103934665603ull;
    xlarun_matcher *m = NULL;
    xlarun_error e;
    int opened = 0, reasoned = 0;
    for (i = 0; i < 256; i++) { bytes[i] = (char)i; toks[i] = &bytes[i]; lens[i] = 1; }
    for (i = 0; i < size; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    if (xlarun_matcher_create(g, toks, lens, 256, NULL, &m, &e) != XLARUN_OK) return;
    /* sometimes after reasoning: a <think> block holding every format's markers (text there), or
       the text before a </think> the prompt opened */
    if (((h >> 2) & 3) < 2) {
        const char *p = pre[(h >> 2) & 3];
        if (xlarun_matcher_accept_bytes(m, p, strlen(p), &e) == XLARUN_OK) {
            n = strlen(p);
            memcpy(text, p, n);
            reasoned = 1;
        } else
            xlarun_matcher_reset(m);
    }
    if ((h & 3) != 0 && open[f][0] && xlarun_matcher_accept_bytes(m, open[f], strlen(open[f]), &e) == XLARUN_OK) {
        memcpy(text + n, open[f], strlen(open[f]));
        n += strlen(open[f]);
        opened = 1;
    } else {
        xlarun_matcher_reset(m);
        if (n) FUZZ_CHECK(xlarun_matcher_accept_bytes(m, text, n, &e) == XLARUN_OK); /* the reasoning, taken before */
    }
    for (step = 0; step < 500 && n < sizeof text; step++) {
        uint32_t mask[8];
        unsigned c = 0, k, pick;
        h = h * 6364136223846793005ull + 1442695040888963407ull;
        if (xlarun_matcher_complete(m) && (h >> 61) == 0) break;
        if (xlarun_matcher_allowed(m, mask, &e) != XLARUN_OK) break;
        for (k = 0; k < 256; k++) c += mask[k >> 5] >> (k & 31) & 1;
        if (!c) break;
        pick = (unsigned)(h >> 33) % c;
        for (k = 0; k < 256; k++)
            if ((mask[k >> 5] >> (k & 31) & 1) && pick-- == 0) break;
        if (k >= 0x80 && (h >> 20) % 4) { /* mostly ASCII, so strings and numbers end */
            unsigned j;
            for (j = 0x20; j < 0x7F; j++) if (mask[j >> 5] >> (j & 31) & 1) { k = j; break; }
        }
        text[n++] = (char)k;
        FUZZ_CHECK(xlarun_matcher_accept_bytes(m, text + n - 1, 1, &e) == XLARUN_OK);
    }
    if (xlarun_matcher_complete(m)) {
        size_t need = xlarun_reply_memory(n);
        void *mem = malloc(need);
        xlarun_reply r;
        xlarun_status st;
        FUZZ_CHECK(mem != NULL);
        st = xlarun_reply_parse(f, text, n, s, size, mem, need, &r, &e);
        if (st != XLARUN_OK) fprintf(stderr, "sentence '%.*s' of the %s grammar: %s\n", (int)n, text, xlarun_tool_format_name(f), e.message);
        FUZZ_CHECK(st == XLARUN_OK);
        FUZZ_CHECK(!opened || r.n_calls >= 1);
        FUZZ_CHECK(!reasoned || (r.reasoning && r.reasoning[0] == 'A'));
        free(mem);
    }
    xlarun_matcher_free(m);
}

static void fuzz_tools(const char *s, size_t size) {
    xlarun_tool_format f = (xlarun_tool_format)(1 + size % 9); /* llama3 .. functionary-v3.2 */
    size_t len = 0, len2 = 0;
    xlarun_error e;
    xlarun_grammar *g = NULL;
    char *out;
    xlarun_status st = xlarun_tool_grammar(f, s, size, NULL, 0, &len, &e);
    fuzz_check_err(st, &e);
    FUZZ_CHECK(st == XLARUN_OK || st == XLARUN_ERR_GRAMMAR);
    if (st != XLARUN_OK) {
        FUZZ_CHECK(len == 0);
        FUZZ_CHECK(!strncmp(e.message, "tool", 4) || !strncmp(e.message, "JSON Schema:", 12));
        return;
    }
    out = (char *)malloc(len + 1);
    FUZZ_CHECK(out != NULL);
    st = xlarun_tool_grammar(f, s, size, out, len, &len2, &e);
    FUZZ_CHECK(st == XLARUN_ERR_MEMORY && len2 == len);
    st = xlarun_tool_grammar(f, s, size, out, len + 1, &len2, &e);
    FUZZ_CHECK(st == XLARUN_OK && len2 == len && out[len] == 0 && strlen(out) == len);
    st = xlarun_grammar_compile(out, len, &g, &e);
    fuzz_check_err(st, &e);
    if (st != XLARUN_OK) {
        FUZZ_CHECK(st == XLARUN_ERR_GRAMMAR);
        FUZZ_CHECK(strstr(e.message, "limit") || strstr(e.message, "more than") || strstr(e.message, "matches no"));
    } else {
        fuzz_tools_sentence(g, f, s, size);
        xlarun_grammar_free(g);
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *s = (const char *)data;
    size_t len = 0, len2 = 0;
    char *out;
    xlarun_error e;
    xlarun_status st;
    xlarun_grammar *g = NULL;
    if (size && s[0] == '[') fuzz_tools(s, size);
    st = xlarun_json_schema_to_grammar(s, size, NULL, 0, &len, &e);
    fuzz_check_err(st, &e);
    FUZZ_CHECK(st == XLARUN_OK || st == XLARUN_ERR_GRAMMAR);
    if (st != XLARUN_OK) {
        FUZZ_CHECK(len == 0);
        FUZZ_CHECK(e.message[0] == '#' || !strncmp(e.message, "JSON Schema:", 12));
        return 0;
    }
    out = (char *)malloc(len + 1);
    FUZZ_CHECK(out != NULL);
    if (len) {
        st = xlarun_json_schema_to_grammar(s, size, out, len, &len2, &e);
        FUZZ_CHECK(st == XLARUN_ERR_MEMORY && len2 == len);
    }
    st = xlarun_json_schema_to_grammar(s, size, out, len + 1, &len2, &e);
    FUZZ_CHECK(st == XLARUN_OK && len2 == len && out[len] == 0 && strlen(out) == len);
    FUZZ_CHECK(!strncmp(out, "root ::= ", 9));
    st = xlarun_grammar_compile(out, len, &g, &e);
    fuzz_check_err(st, &e);
    /* the converter refuses what it cannot express; the compiler may still refuse a grammar past
       its size limits, or one whose language is empty (a required property that recurses forever) */
    if (st != XLARUN_OK) {
        FUZZ_CHECK(st == XLARUN_ERR_GRAMMAR);
        FUZZ_CHECK(strstr(e.message, "limit") || strstr(e.message, "more than") || strstr(e.message, "empty") ||
                   strstr(e.message, "matches no"));
    } else {
        static const char *toks[3] = {"{", "[", "\""};
        static const size_t lens[3] = {1, 1, 1};
        xlarun_matcher *m = NULL;
        if (xlarun_matcher_create(g, toks, lens, 3, NULL, &m, &e) == XLARUN_OK) {
            uint32_t mask[1];
            xlarun_status sa = xlarun_matcher_allowed(m, mask, &e);
            FUZZ_CHECK(sa == XLARUN_OK || sa == XLARUN_ERR_GRAMMAR);
            xlarun_matcher_free(m);
        }
        xlarun_grammar_free(g);
    }
    free(out);
    return 0;
}
