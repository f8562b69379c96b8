/* fuzz_reply: a generated reply split into reasoning, content and tool calls. The first byte picks
   the tool format (its low 7 bits mod 10: none, llama3, hermes, mistral, granite, phi4,
   deepseek-r1, qwen3-coder, functionary-v3.1, functionary-v3.2) and, with its top bit, tools whose
   schemas type the XML values; the rest is the reply text, NUL bytes and all. With exactly xlarun_reply_memory(len) bytes at
   an odd address the parse must succeed or fail with XLARUN_ERR_FORMAT (never MEMORY: that would
   break the documented bound); a success must hold NUL-terminated strings inside that memory,
   calls with a name and a valid JSON object as arguments, and parse again to the same result;
   one byte less memory is refused up front. */
#include "fuzz.h"

/* s is a NUL-terminated string inside [lo, hi) */
static void check_str(const char *s, const unsigned char *lo, const unsigned char *hi) {
    const unsigned char *p = (const unsigned char *)s;
    FUZZ_CHECK(p >= lo && p < hi);
    FUZZ_CHECK(memchr(p, 0, (size_t)(hi - p)) != NULL);
}

static const char tools[] =
    "[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {\"type\": \"object\", "
    "\"properties\": {\"s\": {\"type\": \"string\"}, \"n\": {\"type\": \"integer\"}, \"u\": {\"type\": [\"null\", \"string\"]}}}}},"
    " {\"name\": \"g\", \"parameters\": {\"properties\": {\"a\": {\"type\": \"array\"}}}}]";

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    xlarun_tool_format f;
    const char *text;
    size_t len, need, i;
    unsigned char *block, *mem, *block2;
    xlarun_reply r, r2;
    xlarun_error e;
    xlarun_status st;
    const char *tj;
    size_t tl;
    if (size < 1) return 0;
    f = (xlarun_tool_format)((data[0] & 0x7F) % 10);
    tj = data[0] & 0x80 ? tools : NULL;
    tl = tj ? sizeof tools - 1 : 0;
    text = (const char *)data + 1;
    len = size - 1;
    need = xlarun_reply_memory(len);
    block = (unsigned char *)malloc(need + 1);
    FUZZ_CHECK(block != NULL);
    mem = block + 1;
    st = xlarun_reply_parse(f, text, len, tj, tl, mem, need, &r, &e);
    fuzz_check_err(st, &e);
    FUZZ_CHECK(st == XLARUN_OK || st == XLARUN_ERR_FORMAT);
    if (st != XLARUN_OK) {
        FUZZ_CHECK(r.content == NULL && r.reasoning == NULL && r.calls == NULL && r.n_calls == 0);
        FUZZ_CHECK(strncmp(e.message, xlarun_tool_format_name(f), strlen(xlarun_tool_format_name(f))) == 0);
    } else {
        check_str(r.content, mem, mem + need);
        FUZZ_CHECK(strlen(r.content) <= len);
        if (r.reasoning) {
            check_str(r.reasoning, mem, mem + need);
            FUZZ_CHECK(strlen(r.reasoning) + strlen(r.content) <= len);
        }
        FUZZ_CHECK((r.n_calls == 0) == (r.calls == NULL));
        FUZZ_CHECK(r.n_calls <= (f == XLARUN_TOOLS_FUNCTIONARY_V3_2 ? (len + 3) / 7 : len / 12));
        if (r.n_calls) {
            FUZZ_CHECK((const unsigned char *)r.calls >= mem &&
                       (const unsigned char *)(r.calls + r.n_calls) <= mem + need);
            FUZZ_CHECK(f != XLARUN_TOOLS_NONE);
        }
        for (i = 0; i < r.n_calls; i++) {
            const xlarun_tool_call *c = &r.calls[i];
            size_t k;
            check_str(c->name, mem, mem + need);
            check_str(c->arguments, mem, mem + need);
            if (c->id) check_str(c->id, mem, mem + need);
            FUZZ_CHECK(c->name[0] != 0);
            for (k = 0; c->name[k]; k++) FUZZ_CHECK((unsigned char)c->name[k] >= 0x20);
            FUZZ_CHECK(c->arguments[0] == '{');
            FUZZ_CHECK(xlarun__json_validate(c->arguments, strlen(c->arguments), "arguments", NULL) == XLARUN_OK);
            FUZZ_CHECK(!strchr(c->arguments, '\n')); /* compact: a new line only ever appears escaped */
        }
        /* the same text into other memory: the same result */
        block2 = (unsigned char *)malloc(need);
        FUZZ_CHECK(block2 != NULL);
        st = xlarun_reply_parse(f, text, len, tj, tl, block2, need, &r2, &e);
        FUZZ_CHECK(st == XLARUN_OK && r2.n_calls == r.n_calls && same(r2.content, r.content) &&
                   same(r2.reasoning, r.reasoning));
        for (i = 0; i < r.n_calls; i++)
            FUZZ_CHECK(same(r2.calls[i].name, r.calls[i].name) && same(r2.calls[i].arguments, r.calls[i].arguments) &&
                       same(r2.calls[i].id, r.calls[i].id));
        free(block2);
    }
    st = xlarun_reply_parse(f, text, len, tj, tl, mem, need - 1, &r2, &e);
    FUZZ_CHECK(st == XLARUN_ERR_MEMORY);
    free(block);
    return 0;
}
