/* fuzz_schema: a JSON Schema converted to a grammar. The input is the schema text, as it is. The
   conversion must succeed or fail with XLARUN_ERR_GRAMMAR (never another status, never a crash);
   the message names the JSON path ("#...") or the JSON error. A success must measure and fill the
   same bytes, write a NUL after them, refuse one byte less with XLARUN_ERR_MEMORY, and give a
   grammar that the GBNF compiler accepts (or refuses only for its size limits), whose matcher
   takes the start of a sentence. An input that starts with '[' is also read as a tools array by
   xlarun_tool_grammar (the format from the input's length), with the same checks. */
#include "fuzz.h"

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
    } else xlarun_grammar_free(g);
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
