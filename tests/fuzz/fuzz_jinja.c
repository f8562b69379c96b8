/* fuzz_jinja: the Jinja interpreter on an arbitrary template and conversation. The input is up to
   four parts (FUZZ_SEP): the template, the messages JSON, the tools JSON, the variables JSON; the
   first byte of the template part is flags (bit 0: no generation prompt, bit 1: tools given,
   bit 2: variables given, bit 3: messages as role/content pairs from the messages part's lines,
   bit 4: xlarun_chat_tool_format's probe too, which must name a format only for a call written).
   Invariants: compiling in exactly the measured memory works and in 8 bytes less fails with
   XLARUN_ERR_MEMORY; rendering in the measured work memory gives the measured length, in 8 bytes
   less fails with XLARUN_ERR_MEMORY, and into a one-byte-short buffer fails the same way; every
   error names a line or a key. Steps and output are capped so each input runs quickly. */
#include "fuzz.h"

static char *fuzz_dup(const fuzz_part *p) {
    char *s = (char *)malloc(p->n + 1);
    FUZZ_CHECK(s != NULL);
    memcpy(s, p->p, p->n);
    s[p->n] = 0;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_part parts[FUZZ_MAX_PARTS];
    int np = fuzz_split_n(data, size, parts, 4);
    unsigned flags;
    char *tmpl, *msgs = NULL, *tools = NULL, *vars = NULL;
    size_t tbytes = 0, wbytes = 0, tlen = 0, len = 0, i;
    void *tmem;
    xlarun_chat_template *t = NULL;
    xlarun_chat_input in;
    xlarun_chat_message pairs[16];
    char *lines[32];
    xlarun_error e;
    xlarun_status st;
    if (size < 1 || parts[0].n < 1) return 0;
    flags = parts[0].p[0];
    parts[0].p++;
    parts[0].n--;
    tmpl = fuzz_dup(&parts[0]);
    st = xlarun_chat_template_memory(tmpl, parts[0].n, &tbytes, &e);
    FUZZ_CHECK(st == XLARUN_OK || (st == XLARUN_ERR_FORMAT && strstr(e.message, "line ") != NULL));
    if (st != XLARUN_OK) { free(tmpl); return 0; }
    tmem = malloc(tbytes);
    FUZZ_CHECK(tmem != NULL);
    if (tbytes > 8) FUZZ_CHECK(xlarun_chat_template_init(tmpl, parts[0].n, tmem, tbytes - 8, &t, &e) == XLARUN_ERR_MEMORY && !t);
    FUZZ_CHECK(xlarun_chat_template_init(tmpl, parts[0].n, tmem, tbytes, &t, &e) == XLARUN_OK && t);
    memset(tmpl, 0x5A, parts[0].n); /* the template keeps no pointer into its text */
    memset(&in, 0, sizeof in);
    in.no_generation_prompt = flags & 1;
    in.now = 1727358307;
    in.max_steps = 200000;
    in.max_output = 1 << 20;
    msgs = np > 1 ? fuzz_dup(&parts[1]) : fuzz_dup(&parts[0]);
    if (flags & 8) { /* role/content pairs: lines of the messages part */
        size_t nl = 0;
        char *p = msgs;
        while (nl < 32) {
            lines[nl++] = p;
            p = strchr(p, '\n');
            if (!p) break;
            *p++ = 0;
        }
        for (i = 0; i + 1 < nl && i / 2 < 16; i += 2) { pairs[i / 2].role = lines[i]; pairs[i / 2].content = lines[i + 1]; }
        in.messages = pairs;
        in.n_messages = i / 2;
    } else in.messages_json = msgs;
    if ((flags & 2) && np > 2) in.tools_json = tools = fuzz_dup(&parts[2]);
    if ((flags & 4) && np > 3) in.vars_json = vars = fuzz_dup(&parts[3]);
    in.bos_token = "<s>";
    in.eos_token = "</s>";
    st = xlarun_chat_render_memory(t, &in, &wbytes, &tlen, &e);
    FUZZ_CHECK(st == XLARUN_OK || st == XLARUN_ERR_ARGUMENT || st == XLARUN_ERR_FORMAT);
    if (st != XLARUN_OK) FUZZ_CHECK(e.message[0] != 0);
    if (st == XLARUN_OK) {
        void *work = malloc(wbytes ? wbytes : 1);
        char *out = (char *)malloc(tlen + 1);
        FUZZ_CHECK(work && out);
        st = xlarun_chat_render(t, &in, work, wbytes, out, tlen + 1, &len, &e);
        FUZZ_CHECK(st == XLARUN_OK && len == tlen && out[len] == 0);
        if (tlen) {
            st = xlarun_chat_render(t, &in, work, wbytes, out, tlen, &len, &e);
            FUZZ_CHECK(st == XLARUN_ERR_MEMORY && len == tlen);
        }
        if (wbytes > 8) {
            st = xlarun_chat_render(t, &in, work, wbytes - 8, out, tlen + 1, &len, &e);
            FUZZ_CHECK(st == XLARUN_ERR_MEMORY);
        }
        free(work);
        free(out);
    }
    if (flags & 16) {
        int w = -1;
        xlarun_tool_format f = xlarun_chat_tool_format(t, &in, &w);
        FUZZ_CHECK((unsigned)f <= (unsigned)XLARUN_TOOLS_FUNCTIONARY_V3_2 && (w >= 0 && w <= 2) && (f == XLARUN_TOOLS_NONE || w != 0));
    }
    xlarun_chat_template_free(t); /* init'd: nothing to free, but must be harmless */
    free(tmem);
    free(tmpl);
    free(msgs);
    free(tools);
    free(vars);
    return 0;
}
