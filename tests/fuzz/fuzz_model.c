/* fuzz_model: opening a model folder whose files come from the fuzzer, served from memory
   through xlarun_io (so the weights are streamed, never mapped). The input is parts cut at
   FUZZ_SEP lines: config.json, then model.safetensors; or, with four parts, config.json,
   model.safetensors.index.json and two shards named a.safetensors and b.safetensors. A model
   that opens is opened again in exactly xlarun_model_memory bytes (and refused in fewer), and
   runs two tokens of prefill and one of decode when it is small. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_part parts[FUZZ_MAX_PARTS];
    int np = fuzz_split(data, size, parts);
    fuzz_fs fs;
    xlarun_io io;
    xlarun_model_options o;
    xlarun_model *m = NULL;
    xlarun_error e;
    xlarun_status st;
    size_t bytes = 0;
    memset(&fs, 0, sizeof fs);
    fuzz_fs_add(&fs, "config.json", parts[0]);
    if (np == 4) {
        fuzz_fs_add(&fs, "model.safetensors.index.json", parts[1]);
        fuzz_fs_add(&fs, "a.safetensors", parts[2]);
        fuzz_fs_add(&fs, "b.safetensors", parts[3]);
    } else if (np >= 2)
        fuzz_fs_add(&fs, "model.safetensors", parts[1]);
    io = fuzz_io_of(&fs);
    memset(&o, 0, sizeof o);
    o.io = &io;
    st = xlarun_model_memory("fuzz", &o, &bytes, &e);
    fuzz_check_err(st, &e);
    FUZZ_CHECK(fs.opens == fs.closes);
    if (st != XLARUN_OK) return 0;
    {
        void *mem = malloc(bytes + 64), *mem2;
        xlarun_model *m2 = NULL;
        FUZZ_CHECK(mem != NULL);
        st = xlarun_model_open_in("fuzz", &o, mem, bytes, &m, &e);
        fuzz_check_err(st, &e);
        /* the size measured is enough; only what the measuring pass does not read (the end of a
           stream of unknown size: truncated data, trailing bytes) may still be refused */
        FUZZ_CHECK(st == XLARUN_OK || (st == XLARUN_ERR_FORMAT && (strstr(e.message, "trailing bytes") ||
                                                                   strstr(e.message, "truncated"))));
        FUZZ_CHECK(fs.opens == fs.closes);
        if (st != XLARUN_OK) { free(mem); return 0; }
        if (bytes > 64) { /* and exact */
            mem2 = malloc(bytes - 64);
            FUZZ_CHECK(mem2 != NULL);
            st = xlarun_model_open_in("fuzz", &o, mem2, bytes - 64, &m2, &e);
            FUZZ_CHECK(st == XLARUN_ERR_MEMORY && m2 == NULL);
            FUZZ_CHECK(fs.opens == fs.closes);
            free(mem2);
        }
        if (xlarun_model_weight_bytes(m) < (4u << 20)) {
            const xlarun_config *c = xlarun_model_config(m);
            xlarun_session_options so;
            xlarun_session *s = NULL;
            int32_t ids[2];
            memset(&so, 0, sizeof so);
            so.n_ctx = 4;
            so.n_batch = 2;
            so.kv_type = (xlarun_kv_type)(c->vocab_size % 3); /* every cache dtype, by the input */
            st = xlarun_session_create(m, &so, &s, &e);
            fuzz_check_err(st, &e);
            if (st == XLARUN_OK) {
                ids[0] = 0;
                ids[1] = (int32_t)(c->vocab_size - 1);
                st = xlarun_session_prefill(s, ids, 2, &e);
                FUZZ_CHECK(st == XLARUN_OK);
                FUZZ_CHECK(xlarun_session_argmax(s) >= 0 && (uint32_t)xlarun_session_argmax(s) < c->vocab_size);
                st = xlarun_session_decode(s, xlarun_session_argmax(s), &e);
                FUZZ_CHECK(st == XLARUN_OK);
                xlarun_session_free(s);
            }
        }
        xlarun_model_close(m);
        free(mem);
    }
    return 0;
}
