/* tests/test_schema.c - layer 7: xlarun_json_schema_to_grammar.

   1. Hand-checked grammars for small schemas (the text, byte for byte), and the size query.
   2. The oracle fixtures (tests/fixtures/schema/cases.txt, made by tools/make_schema_fixtures.py
      with Python's jsonschema): each schema converted and compiled; a matcher over a byte
      vocabulary accepts exactly the candidates jsonschema calls valid ("strict" ones, valid but
      out of the grammar's order or compact form, are refused); then sentences made by walking the
      matcher with random allowed bytes, each complete and valid JSON in compact form.
      --samples FILE writes them ("NAME<TAB>text" lines) for
      `python3 tools/make_schema_fixtures.py --check FILE`, which validates them with jsonschema.
   3. Refusals: every one XLARUN_ERR_GRAMMAR with the keyword and the JSON path in the message.

   Run from the repository root; other arguments select cases (tests/test.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"

static FILE *samples_out;

/* the grammar of a schema, malloc'd (NULL on an error, with e set) */
static char *convert(const char *schema, xlarun_error *e) {
    size_t len = 0, len2 = 0;
    char *out;
    if (xlarun_json_schema_to_grammar(schema, strlen(schema), NULL, 0, &len, e) != XLARUN_OK) return NULL;
    out = (char *)malloc(len + 1);
    if (!out) exit(2);
    if (xlarun_json_schema_to_grammar(schema, strlen(schema), out, len + 1, &len2, e) != XLARUN_OK || len2 != len) {
        free(out);
        return NULL;
    }
    return out;
}

/* ---- 1. hand-checked grammars ------------------------------------------------------------ */

static void expect(const char *name, const char *schema, const char *grammar) {
    if (test_case("expect %s", name)) {
        xlarun_error e;
        char *g = convert(schema, &e);
        CHECKF(g != NULL, "%s", e.message);
        if (g) CHECKF(!strcmp(g, grammar), "got:\n%s\nexpected:\n%s", g, grammar);
        free(g);
    }
}

static void hand_cases(void) {
    expect("integer range", "{\"type\":\"integer\",\"minimum\":-5,\"maximum\":130}",
           "root ::= ((\"-\" (([1-5])) | (([0-9]) | ([1-9] [0-9]) | \"1\" ([0-2] [0-9] | \"3\" \"0\"))))\n");
    expect("integer lower bound", "{\"type\":\"integer\",\"minimum\":95}",
           "root ::= (((\"9\" ([5-9]) | [1-9] [0-9]{2,})))\n");
    expect("integer upper bound", "{\"type\":\"integer\",\"maximum\":-10}",
           "root ::= ((\"-\" (([1-9] [0-9]) | [1-9] [0-9]{2,})))\n");
    expect("integer exclusive fractions", "{\"type\":\"integer\",\"exclusiveMinimum\":0.5,\"maximum\":1000}",
           "root ::= (((([1-9]) | ([1-9] [0-9]) | ([1-9] [0-9]{2}) | \"1\" \"0\" \"0\" \"0\")))\n");
    expect("optional properties",
           "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"null\"}},\"required\":[\"b\"]}",
           "root ::= (\"{\" (\"\\\"a\\\":\" s35 \",\" \"\\\"b\\\":\" s58 | \"\\\"b\\\":\" s58) \"}\")\n"
           "s35 ::= (integer)\n"
           "s58 ::= (\"null\")\n"
           "integer ::= \"-\"? (\"0\" | [1-9] [0-9]*)\n");
    expect("all optional and extra",
           "{\"properties\":{\"a\":true},\"additionalProperties\":{\"type\":\"boolean\"}}",
           "root ::= (\"{\" (\"\\\"a\\\":\" s19 (\",\" string \":\" s48)* | string \":\" s48 (\",\" string \":\" s48)*)? \"}\")\n"
           "s19 ::= value\n"
           "s48 ::= (\"true\" | \"false\")\n"
           "value ::= object | array | string | number | \"true\" | \"false\" | \"null\"\n"
           "object ::= \"{\" (string \":\" value (\",\" string \":\" value)*)? \"}\"\n"
           "array ::= \"[\" (value (\",\" value)*)? \"]\"\n"
           "string ::= \"\\\"\" char* \"\\\"\"\n"
           "char ::= [^\"\\\\\\x00-\\x1F] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" ([0-9a-cA-Ce-fE-F] hex hex hex | [dD] [0-7] hex hex"
           " | [dD] [89abAB] hex hex \"\\\\u\" [dD] [c-fC-F] hex hex))\n"
           "hex ::= [0-9a-fA-F]\n"
           "number ::= integer (\".\" [0-9]+)? ([eE] [-+]? [0-9]+)?\n"
           "integer ::= \"-\"? (\"0\" | [1-9] [0-9]*)\n");
    expect("enum compact", "{\"enum\":[\"a\\u00e9\\/\\n\", [1, {\"k\" : null}], 2.50]}",
           "root ::= (\"\\\"aé/\\\\n\\\"\" | \"[1,{\\\"k\\\":null}]\" | \"2.50\")\n");
    expect("string lengths", "{\"type\":[\"string\",\"null\"],\"minLength\":1,\"maxLength\":3}",
           "root ::= (\"null\" | \"\\\"\" char{1,3} \"\\\"\")\n"
           "char ::= [^\"\\\\\\x00-\\x1F] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" ([0-9a-cA-Ce-fE-F] hex hex hex | [dD] [0-7] hex hex"
           " | [dD] [89abAB] hex hex \"\\\\u\" [dD] [c-fC-F] hex hex))\n"
           "hex ::= [0-9a-fA-F]\n");
    expect("prefix items and items",
           "{\"prefixItems\":[{\"type\":\"null\"},{\"type\":\"null\"}],\"minItems\":1,\"items\":{\"type\":\"boolean\"},\"maxItems\":4}",
           "root ::= (\"[\" s16 (\",\" s32 (\",\" s70){0,2} )? \"]\")\n"
           "s16 ::= (\"null\")\n"
           "s32 ::= (\"null\")\n"
           "s70 ::= (\"true\" | \"false\")\n");
    expect("recursive ref",
           "{\"$defs\":{\"n\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/n\"}}},\"$ref\":\"#/$defs/n\"}",
           "root ::= s14\n"
           "s14 ::= (\"[\" (s38 (\",\" s38)*)? \"]\")\n"
           "s38 ::= s14\n");
    expect("array counts", "{\"type\":\"array\",\"items\":{\"const\":0},\"minItems\":2,\"maxItems\":2}",
           "root ::= (\"[\" s24 (\",\" s24) \"]\")\n"
           "s24 ::= (\"0\")\n");

    if (test_case("size query and buffer")) {
        const char *s = "{\"type\":\"boolean\"}";
        char buf[64];
        size_t len = 0, len2 = 0;
        xlarun_error e;
        CHECK(xlarun_json_schema_to_grammar(s, strlen(s), NULL, 0, &len, &e) == XLARUN_OK);
        CHECK(len == strlen("root ::= (\"true\" | \"false\")\n"));
        CHECK(xlarun_json_schema_to_grammar(s, strlen(s), buf, len, &len2, &e) == XLARUN_ERR_MEMORY);
        CHECK(len2 == len);
        CHECK_CONTAINS(e.message, "needs");
        memset(buf, 'x', sizeof buf);
        CHECK(xlarun_json_schema_to_grammar(s, strlen(s), buf, len + 1, &len2, &e) == XLARUN_OK);
        CHECK(len2 == len && buf[len] == 0 && e.status == XLARUN_OK && e.message[0] == 0);
        CHECK(!strcmp(buf, "root ::= (\"true\" | \"false\")\n"));
        CHECK(xlarun_json_schema_to_grammar(NULL, 0, NULL, 0, &len, &e) == XLARUN_ERR_ARGUMENT);
        CHECK(xlarun_json_schema_to_grammar(s, strlen(s), NULL, 0, NULL, &e) == XLARUN_ERR_ARGUMENT);
        CHECK(xlarun_json_schema_to_grammar(s, strlen(s), NULL, 0, &len, NULL) == XLARUN_OK);
    }
}

/* ---- 2. the oracle fixtures ---------------------------------------------------------------- */

typedef struct { xlarun_grammar *g; xlarun_matcher *m; } gm;

static const char *byte_tok[257];
static size_t byte_len[257];
static char bytes_[256];

static int make_matcher(const char *grammar, gm *x, xlarun_error *e) {
    static const int32_t end = 256;
    xlarun_matcher_options o;
    memset(&o, 0, sizeof o);
    o.end_ids = &end;
    o.n_end = 1;
    x->g = NULL;
    x->m = NULL;
    if (xlarun_grammar_compile(grammar, strlen(grammar), &x->g, e) != XLARUN_OK) return 0;
    if (xlarun_matcher_create(x->g, byte_tok, byte_len, 257, &o, &x->m, e) != XLARUN_OK) return 0;
    return 1;
}
static void free_gm(gm *x) {
    xlarun_matcher_free(x->m);
    xlarun_grammar_free(x->g);
}

static int accepts(xlarun_matcher *m, const char *text) {
    xlarun_matcher_reset(m);
    if (xlarun_matcher_accept_bytes(m, text, strlen(text), NULL) != XLARUN_OK) return 0;
    return xlarun_matcher_complete(m);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}

/* no white space outside strings */
static int compact(const char *s) {
    int in = 0;
    for (; *s; s++) {
        if (in && *s == '\\') { s++; continue; }
        if (*s == '"') in = !in;
        else if (!in && (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')) return 0;
    }
    return 1;
}

/* A random sentence: allowed bytes chosen at random, the end taken with probability 1/2 where
   allowed; past 48 bytes closing bytes are preferred; 0 when 400 bytes are not enough. */
static int walk(xlarun_matcher *m, char *out, size_t cap) {
    uint32_t mask[9];
    size_t n = 0;
    xlarun_matcher_reset(m);
    while (n + 1 < cap) {
        int cand[257], nc = 0, i, close[8], ncl = 0, pick;
        if (xlarun_matcher_allowed(m, mask, NULL) != XLARUN_OK) return 0;
        if (mask[8] & 1u) { /* the end id */
            if (n > 0 && (rnd() & 1)) { out[n] = 0; return 1; }
        }
        for (i = 0; i < 256; i++)
            if (mask[i / 32] >> (i % 32) & 1u) {
                cand[nc++] = i;
                if ((i == '}' || i == ']' || i == '"') && ncl < 8) close[ncl++] = i;
            }
        if (nc == 0) {
            if (mask[8] & 1u) { out[n] = 0; return 1; }
            return 0;
        }
        pick = n > 48 && ncl && (rnd() % 4) ? close[rnd() % (uint32_t)ncl] : cand[rnd() % (uint32_t)nc];
        out[n++] = (char)pick;
        if (xlarun_matcher_accept_token(m, pick, NULL) != XLARUN_OK) return 0;
    }
    return 0;
}

static char *dup_line(const char *s, size_t n) {
    char *p = (char *)malloc(n + 1);
    if (!p) exit(2);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static void fixture_case(const char *name, const char *schema, char **kind, char **text, size_t n) {
    xlarun_error e;
    char *grammar;
    gm x;
    size_t i;
    int acc_valid = 0, rej = 0, made = 0, tries;
    if (!test_case("fixture %s", name)) return;
    grammar = convert(schema, &e);
    CHECKF(grammar != NULL, "%s", e.message);
    if (!grammar) return;
    if (!make_matcher(grammar, &x, &e)) {
        CHECKF(0, "compile: %s\n%s", e.message, grammar);
        free_gm(&x);
        free(grammar);
        return;
    }
    for (i = 0; i < n; i++) {
        int want = !strcmp(kind[i], "valid"), got = accepts(x.m, text[i]);
        CHECKF(got == want, "%s %s: the grammar %s it", kind[i], text[i], got ? "accepts" : "refuses");
        if (want) acc_valid++;
        else rej++;
    }
    for (tries = 0; tries < 60 && made < 20; tries++) {
        char buf[512];
        if (!walk(x.m, buf, sizeof buf)) continue;
        made++;
        CHECKF(xlarun__json_validate(buf, strlen(buf), "sample", &e) == XLARUN_OK, "%s: %s", buf, e.message);
        CHECKF(compact(buf), "not compact: %s", buf);
        CHECKF(accepts(x.m, buf), "the sample is not accepted again: %s", buf);
        if (samples_out) fprintf(samples_out, "%s\t%s\n", name, buf);
    }
    CHECKF(made >= 5, "only %d of %d random walks ended within 511 bytes", made, tries);
    if (test_verbose) fprintf(stderr, "  %s: %d valid accepted, %d refused, %d samples\n", name, acc_valid, rej, made);
    free_gm(&x);
    free(grammar);
}

static int run_fixtures(const char *path) {
    size_t flen, i, nl = 0, k;
    char *all = read_file(path, &flen), *p, **lines;
    int schemas = 0;
    if (!all) { fprintf(stderr, "cannot read %s (run from the repository root)\n", path); exit(2); }
    for (i = 0; i < flen; i++) nl += all[i] == '\n';
    lines = (char **)calloc(nl + 1, sizeof *lines);
    if (!lines) exit(2);
    for (p = all, k = 0; k < nl; k++) {
        char *q = strchr(p, '\n');
        *q = 0;
        lines[k] = p;
        p = q + 1;
    }
    for (k = 0; k < nl;) {
        if (strncmp(lines[k], "schema ", 7)) { k++; continue; }
        {
            const char *name = lines[k] + 7, *schema = lines[k + 1];
            char *kind[256], *text[256];
            size_t n = 0, j;
            for (k += 2; k < nl && strncmp(lines[k], "schema ", 7) && n < 256; k++) {
                char *sp = strchr(lines[k], ' ');
                if (!sp) continue;
                kind[n] = dup_line(lines[k], (size_t)(sp - lines[k]));
                if (!strcmp(kind[n], "strict")) sp = strchr(sp + 1, ' ');
                text[n] = dup_line(sp + 1, strlen(sp + 1));
                n++;
            }
            fixture_case(name, schema, kind, text, n);
            for (j = 0; j < n; j++) { free(kind[j]); free(text[j]); }
            schemas++;
        }
    }
    free(lines);
    free(all);
    return schemas;
}

/* ---- 3. refusals ----------------------------------------------------------------------------- */

static void refuse(const char *name, const char *schema, const char *msg1, const char *msg2) {
    if (test_case("refuse %s", name)) {
        xlarun_error e;
        size_t len = 7;
        char buf[256];
        xlarun_status st = xlarun_json_schema_to_grammar(schema, strlen(schema), NULL, 0, &len, &e);
        CHECKF(st == XLARUN_ERR_GRAMMAR, "status %d (%s) for %s", (int)st, e.message, schema);
        CHECK(e.status == XLARUN_ERR_GRAMMAR);
        CHECK(len == 0);
        CHECK_CONTAINS(e.message, msg1);
        if (msg2) CHECK_CONTAINS(e.message, msg2);
        CHECK(xlarun_json_schema_to_grammar(schema, strlen(schema), buf, sizeof buf, &len, &e) == XLARUN_ERR_GRAMMAR);
    }
}

static void refusals(void) {
    int i;
    refuse("pattern", "{\"type\":\"object\",\"properties\":{\"a\":{\"items\":{\"type\":\"string\",\"pattern\":\"x\"}}}}",
           "#/properties/a/items: \"pattern\" is not supported", NULL);
    refuse("format", "{\"type\":\"string\",\"format\":\"date-time\"}", "#: \"format\" is not supported", NULL);
    refuse("number minimum", "{\"type\":\"number\",\"minimum\":0}", "#: \"minimum\"", "\"integer\" only");
    refuse("uniqueItems", "{\"type\":\"array\",\"uniqueItems\":true}", "#: \"uniqueItems\"", NULL);
    refuse("minProperties", "{\"anyOf\":[{\"minProperties\":1}]}", "#/anyOf/0: \"minProperties\" is not supported", NULL);
    refuse("nested $id", "{\"items\":{\"$id\":\"x\"}}", "#/items: \"$id\" is not supported", NULL);
    refuse("unknown type", "{\"type\":\"float\"}", "#: \"type\" \"float\" is not a JSON Schema type", NULL);
    refuse("type empty", "{\"type\":[]}", "#: \"type\" is an empty list", NULL);
    refuse("type not string", "{\"type\":3}", "#: \"type\" must be", NULL);
    refuse("false schema", "false", "#: the schema false", NULL);
    refuse("false in allOf", "{\"allOf\":[false]}", "#: \"allOf\" holds the schema false", NULL);
    refuse("false def", "{\"$defs\":{\"no\":false},\"properties\":{\"x\":{\"$ref\":\"#/$defs/no\"}}}",
           "#/$defs/no: the schema false", NULL);
    refuse("not a schema", "{\"properties\":{\"a\":3}}", "#/properties/a: a schema must be an object or a boolean", NULL);
    refuse("ref missing", "{\"$ref\":\"#/$defs/x\"}", "#: \"$ref\" \"#/$defs/x\" does not resolve", NULL);
    refuse("ref remote", "{\"$ref\":\"https://example.com/s.json\"}", "does not resolve", "only references inside");
    refuse("ref elsewhere", "{\"properties\":{\"a\":{}},\"items\":{\"$ref\":\"#/properties/a\"}}",
           "#/items: \"$ref\" \"#/properties/a\" is not supported", NULL);
    refuse("ref not string", "{\"$ref\":1}", "#: \"$ref\" must be a string", NULL);
    refuse("ref beside", "{\"$defs\":{\"a\":{}},\"$ref\":\"#/$defs/a\",\"type\":\"object\"}",
           "#: \"type\" beside \"$ref\" is not supported", NULL);
    refuse("ref cycle", "{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"anyOf\":[{\"type\":\"null\"},{\"$ref\":\"#/$defs/a\"}]}},\"$ref\":\"#/$defs/a\"}",
           "\"$ref\" cycle that reads no text", NULL);
    refuse("root cycle", "{\"anyOf\":[{\"$ref\":\"#\"},{\"type\":\"null\"}]}", "#/anyOf/0: \"$ref\" cycle", NULL);
    refuse("minimum > maximum", "{\"type\":\"integer\",\"minimum\":5,\"maximum\":4}", "#: no integer lies between", NULL);
    refuse("exclusive empty", "{\"type\":\"integer\",\"exclusiveMinimum\":4,\"exclusiveMaximum\":5}", "no integer lies", NULL);
    refuse("minimum exponent", "{\"type\":\"integer\",\"minimum\":1e3}", "#: \"minimum\" must be a number without an exponent", NULL);
    refuse("maximum too big", "{\"type\":\"integer\",\"maximum\":18446744073709551616}", "within 64 bits", NULL);
    refuse("minimum not number", "{\"type\":\"integer\",\"minimum\":\"1\"}", "#: \"minimum\" must be a number", NULL);
    refuse("minItems > maxItems", "{\"type\":\"array\",\"minItems\":3,\"maxItems\":2}", "\"minItems\" is more than \"maxItems\"", NULL);
    refuse("minItems past tuple", "{\"prefixItems\":[{}],\"items\":false,\"minItems\":2}", "more than the items the schema allows", NULL);
    refuse("minLength > maxLength", "{\"type\":\"string\",\"minLength\":3,\"maxLength\":2}", "\"minLength\" is more than \"maxLength\"", NULL);
    refuse("maxLength negative", "{\"type\":\"string\",\"maxLength\":-1}", "\"maxLength\" must be a non-negative integer", NULL);
    refuse("maxLength huge", "{\"type\":\"string\",\"maxLength\":100000}", "\"maxLength\" 100000 is over the limit 4096", NULL);
    refuse("items list", "{\"items\":[{}]}", "\"items\" as a list is not supported", NULL);
    refuse("required undeclared", "{\"properties\":{\"a\":{}},\"required\":[\"b\"]}", "\"required\" names \"b\"", NULL);
    refuse("required false", "{\"properties\":{\"a\":false},\"required\":[\"a\"]}", "\"required\" names \"a\"", NULL);
    refuse("required not strings", "{\"properties\":{\"a\":{}},\"required\":[1]}", "\"required\" must be a list of strings", NULL);
    refuse("additionalProperties bad", "{\"additionalProperties\":1}", "\"additionalProperties\" must be", NULL);
    refuse("enum empty", "{\"enum\":[]}", "#: \"enum\" allows no value", NULL);
    refuse("enum typed empty", "{\"type\":\"integer\",\"enum\":[\"a\",1.5]}", "\"enum\" allows no value", NULL);
    refuse("enum beside", "{\"enum\":[1],\"minimum\":0}", "\"minimum\" beside \"enum\"", NULL);
    refuse("const beside enum", "{\"enum\":[1],\"const\":1}", "\"enum\" beside \"const\"", NULL);
    refuse("anyOf empty", "{\"anyOf\":[]}", "\"anyOf\" allows no value", NULL);
    refuse("anyOf false", "{\"oneOf\":[false,false]}", "\"oneOf\" allows no value", NULL);
    refuse("anyOf beside type", "{\"type\":\"object\",\"anyOf\":[{}]}", "\"type\" beside \"anyOf\"", NULL);
    refuse("allOf two", "{\"allOf\":[{},{}]}", "\"allOf\" with 2 schemas is not supported", NULL);
    refuse("malformed", "{\"type\":", "JSON Schema: invalid JSON at line 1 column 9", NULL);
    refuse("malformed string", "{\"type\":\"a\\q\"}", "invalid escape", NULL);
    refuse("control key", "{\"a\\nb\":1}", "#: \"a\\nb\" is not supported", NULL);
    /* 70 nested schemas: past the JSON reader's depth limit */
    {
        char s[1200];
        size_t n = 0;
        for (i = 0; i < 70; i++) { memcpy(s + n, "{\"items\":", 9); n += 9; }
        s[n++] = '{';
        for (i = 0; i <= 70; i++) s[n++] = '}';
        s[n] = 0;
        refuse("depth limit", s, "nesting deeper than 64", NULL);
    }
    {   /* 300 distinct $ref targets */
        static char s[20000];
        size_t n = 0;
        n += (size_t)sprintf(s + n, "{\"$defs\":{");
        for (i = 0; i < 300; i++) n += (size_t)sprintf(s + n, "%s\"d%d\":{\"type\":\"null\"}", i ? "," : "", i);
        n += (size_t)sprintf(s + n, "},\"prefixItems\":[");
        for (i = 0; i < 300; i++) n += (size_t)sprintf(s + n, "%s{\"$ref\":\"#/$defs/d%d\"}", i ? "," : "", i);
        sprintf(s + n, "]}");
        refuse("too many refs", s, "more than 256 distinct \"$ref\" targets", NULL);
    }
    if (test_case("accepted edge cases")) {
        static const char *ok[] = {
            "{\"$defs\":{\"a/b~c\":{\"type\":\"null\"}},\"$ref\":\"#/$defs/a~1b~0c\"}",
            "{\"$defs\":{\"a b\":{\"type\":\"null\"}},\"$ref\":\"#/$defs/a%20b\"}",
            "{\"$id\":\"https://x\",\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"title\":\"t\","
            "\"description\":\"d\",\"default\":1,\"examples\":[1],\"$comment\":\"c\",\"type\":\"integer\","
            "\"deprecated\":false,\"readOnly\":true,\"writeOnly\":false}",
            "{\"type\":\"array\",\"uniqueItems\":false}",
            "{\"type\":\"string\",\"minimum\":3}",            /* applies to numbers only: ignored */
            "{\"properties\":{\"a\":{}},\"properties\":{\"b\":{}},\"required\":[\"b\"]}", /* the last wins */
            "{\"properties\":{\"a\":{\"type\":\"null\"},\"a\":{\"type\":\"boolean\"}},\"required\":[\"a\"]}",
            "{\"type\":\"string\",\"maxLength\":0}",
            "{\"type\":\"array\",\"maxItems\":0}",
            "{\"type\":\"integer\",\"minimum\":-9223372036854775808,\"maximum\":-9223372036854775808}",
            "{\"type\":\"integer\",\"minimum\":0,\"maximum\":0}"};
        size_t k;
        for (k = 0; k < sizeof ok / sizeof ok[0]; k++) {
            xlarun_error e;
            char *g = convert(ok[k], &e);
            gm x;
            CHECKF(g != NULL, "%s: %s", ok[k], e.message);
            if (!g) continue;
            CHECKF(make_matcher(g, &x, &e), "%s: %s\n%s", ok[k], e.message, g);
            free_gm(&x);
            free(g);
        }
    }
}

int main(int argc, char **argv) {
    int i, k = 0;
    char **rest = (char **)calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) return 2;
    rest[k++] = argv[0];
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--samples") && i + 1 < argc) {
            samples_out = fopen(argv[++i], "wb");
            if (!samples_out) { fprintf(stderr, "cannot write %s\n", argv[i]); return 2; }
        } else rest[k++] = argv[i];
    }
    for (i = 0; i < 256; i++) { bytes_[i] = (char)i; byte_tok[i] = bytes_ + i; byte_len[i] = 1; }
    byte_tok[256] = "";
    byte_len[256] = 0;
    test_init(k, rest);
    hand_cases();
    run_fixtures("tests/fixtures/schema/cases.txt");
    refusals();
    if (samples_out) fclose(samples_out);
    free(rest);
    return test_report("schema");
}
