/* fuzz_chat: chat formatting of arbitrary messages. The first byte picks the format (low 3 bits:
   0-5 the formats up to ChatML; 6: detect it from the rest of the input taken as a chat_template;
   7: MISTRAL + (bits 4-7) % 6, the Mistral formats, Qwen3 and Gemma, spaced = no_thinking = bit 6,
   gemma_system = bit 3 + bit 6) and the options
   (bit 3: no generation prompt, bit 4: a date, bit 5: bos/eos texts, bit 6: llama3.2's today).
   The rest is NUL-separated strings: the date, bos, eos, then role/content pairs. The rendered
   text must measure and fill the same, and is then encoded by a fixture tokenizer as
   generation encodes it (no BOS added). */
#include "fuzz_tok.h"

#define MAXS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *buf, *s[MAXS], *out;
    size_t ns = 0, i, len = 0, len2 = 0, nm;
    unsigned mode;
    xlarun_chat_template t;
    xlarun_chat_options o;
    xlarun_chat_message msgs[MAXS / 2];
    xlarun_error e;
    xlarun_status st;
    if (size < 1) return 0;
    mode = data[0];
    buf = (char *)malloc(size + 1);
    FUZZ_CHECK(buf != NULL);
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = 0;
    memset(&t, 0, sizeof t);
    if ((mode & 7) == 6) {
        st = xlarun_chat_template_detect(buf, &t, &e);
        fuzz_check_err(st, &e);
        if (st != XLARUN_OK) { free(buf); return 0; }
        FUZZ_CHECK(memchr(t.default_system, 0, sizeof t.default_system) != NULL);
    } else if ((mode & 7) == 7) {
        t.format = (xlarun_chat_format)(XLARUN_CHAT_MISTRAL + (mode >> 4) % 6);
        t.spaced = (mode >> 6) & 1;
        t.gemma_system = (int)((mode >> 3) & 1) + (int)((mode >> 6) & 1);
    } else {
        t.format = (xlarun_chat_format)(mode & 7);
        t.date_today = (mode >> 6) & 1;
        strcpy(t.default_system, "You are a helpful AI assistant.");
    }
    for (i = 0; i < size - 1 && ns < MAXS;) { /* NUL-separated strings */
        s[ns++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    memset(&o, 0, sizeof o);
    o.no_generation_prompt = (mode >> 3) & 1;
    o.no_thinking = (mode >> 6) & 1;
    if ((mode & 16) && ns > 0) o.date = s[0];
    if ((mode & 32) && ns > 2) { o.bos_token = s[1]; o.eos_token = s[2]; }
    nm = ns > 3 ? (ns - 3) / 2 : 0;
    for (i = 0; i < nm; i++) { msgs[i].role = s[3 + 2 * i]; msgs[i].content = s[4 + 2 * i]; }
    st = xlarun_chat_apply(&t, &o, msgs, nm, NULL, 0, &len, &e);
    fuzz_check_err(st, &e);
    if (st == XLARUN_OK) {
        out = (char *)malloc(len + 1);
        FUZZ_CHECK(out != NULL);
        st = xlarun_chat_apply(&t, &o, msgs, nm, out, len, &len2, &e); /* one byte short */
        FUZZ_CHECK(st == XLARUN_ERR_MEMORY);
        st = xlarun_chat_apply(&t, &o, msgs, nm, out, len + 1, &len2, &e);
        FUZZ_CHECK(st == XLARUN_OK && len2 == len && out[len] == 0);
        if (len < 4096) fuzz_encode(fuzz_fixture(mode >> 6 | (mode & 1) << 1), out, len, XLARUN_ENCODE_NO_BOS);
        free(out);
    }
    free(buf);
    return 0;
}
