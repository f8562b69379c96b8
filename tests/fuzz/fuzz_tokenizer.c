/* fuzz_tokenizer: loading tokenizer.json (and the optional files beside it) from fuzzer bytes,
   served from memory through xlarun_io. The input is parts cut at FUZZ_SEP lines:
   tokenizer.json, tokenizer_config.json, generation_config.json, config.json, chat_template.jinja
   (those present).
   A tokenizer that opens is opened again in exactly xlarun_tokenizer_memory bytes, then encodes
   a fixed text with every flag and decodes the ids; its chat template goes to the detector. */
#include "fuzz_tok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const names[5] = {"tokenizer.json", "tokenizer_config.json", "generation_config.json", "config.json",
                                         "chat_template.jinja"};
    static const char text[] = "Hello world! <|eot_id|> 123 4567 \xe2\x96\x81x  \n\n\t<s>[INST] caf\xc3\xa9 \xf0\x9f\x98\x80 it's";
    fuzz_part parts[FUZZ_MAX_PARTS];
    int np = fuzz_split_n(data, size, parts, 5), i;
    fuzz_fs fs;
    xlarun_io io;
    xlarun_tokenizer_options o;
    xlarun_tokenizer *t = NULL;
    xlarun_error e;
    xlarun_status st;
    size_t bytes = 0;
    memset(&fs, 0, sizeof fs);
    for (i = 0; i < np; i++) fuzz_fs_add(&fs, names[i], parts[i]);
    io = fuzz_io_of(&fs);
    memset(&o, 0, sizeof o);
    o.io = &io;
    st = xlarun_tokenizer_memory("fuzz", &o, &bytes, &e);
    fuzz_check_err(st, &e);
    FUZZ_CHECK(fs.opens == fs.closes);
    if (st != XLARUN_OK) return 0;
    {
        void *mem = malloc(bytes);
        unsigned flags;
        xlarun_chat_template *ct = NULL;
        xlarun_chat_input ci;
        char *chat = NULL;
        const char *tmpl;
        int32_t all[64] = {0};
        uint32_t k, v;
        FUZZ_CHECK(mem != NULL);
        st = xlarun_tokenizer_open_in("fuzz", &o, mem, bytes, &t, &e);
        fuzz_check_err(st, &e);
        FUZZ_CHECK(st == XLARUN_OK);
        FUZZ_CHECK(fs.opens == fs.closes);
        for (flags = 0; flags < 8; flags++) fuzz_encode(t, text, sizeof text - 1, flags);
        fuzz_encode(t, "\xff\xfe" "abc\xc3", 6, XLARUN_ENCODE_REPLACE_INVALID);
        v = xlarun_tokenizer_vocab_size(t);
        for (k = 0; k < 64 && k < v; k++) all[k] = (int32_t)(v - 1 - k * 7919 % v);
        fuzz_decode(t, all, k, 0);
        fuzz_decode(t, all, k, XLARUN_DECODE_SKIP_SPECIAL);
        tmpl = xlarun_tokenizer_chat_template(t);
        /* the folder's template compiled and run on a short conversation with the folder's special tokens */
        memset(&ci, 0, sizeof ci);
        xlarun_chat_input_from_tokenizer(t, &ci);
        ci.messages_json = "[{\"role\": \"system\", \"content\": \"s\"}, {\"role\": \"user\", \"content\": \"hi\"}]";
        ci.max_steps = 100000;
        if (tmpl) {
            st = xlarun_chat_template_create(tmpl, strlen(tmpl), &ct, &e);
            fuzz_check_err(st, &e);
            if (st == XLARUN_OK) {
                fuzz_check_err(xlarun_chat_render_alloc(ct, &ci, &chat, NULL, &e), &e);
                xlarun_chat_text_free(chat);
                xlarun_chat_template_free(ct);
            }
        }
        xlarun_tokenizer_close(t);
        free(mem);
    }
    return 0;
}
