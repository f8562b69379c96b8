/* fuzz_grammar: GBNF text compiled, and a matcher run over a tiny vocabulary. The input is the
   grammar text, optionally followed by a FUZZ_SEP line and bytes that drive the matcher (each
   byte picks a token; 0xFF tries the next 3 bytes with accept_bytes). Invariants:
   - xlarun_grammar_compile and xlarun_grammar_memory agree; a refusal is XLARUN_ERR_GRAMMAR (or
     XLARUN_ERR_MEMORY for grammars past what this harness allows) with a one-line message that
     names the line and column; compile_in with exactly the measured bytes works, one less is
     XLARUN_ERR_MEMORY;
   - the matcher: every mask bit equals whether accepting that token succeeds (tried on a second
     matcher on the same path); complete/can_continue are consistent with the mask of the
     single-byte tokens; a refused accept changes nothing;
   - where the independent recognizer (tests/grammar_oracle.h) also compiles the grammar (and it
     holds no repetition of a nullable item, which it does not judge), every mask bit equals its
     prefix check, and complete agrees. */
#include "fuzz.h"
#include "../grammar_oracle.h"

#define NV 16
static const char *const toks[NV] = {"a", "b", "\"", "{", "}", " ", "0", "\xc3", "\xa9", "\xc3\xa9", "ab",
                                     "", "\xf0\x9f\x98", "\x80", "\n", "x"};
static const size_t lens[NV] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 0, 3, 1, 1, 1};
#define END_ID 11

static xlarun_matcher *mk(const xlarun_grammar *g) {
    xlarun_matcher_options o;
    xlarun_matcher *m = NULL;
    xlarun_error e;
    int32_t end = END_ID;
    xlarun_status st;
    memset(&o, 0, sizeof o);
    o.end_ids = &end;
    o.n_end = 1;
    o.max_nodes = 1u << 12;
    o.max_stacks = 64;
    st = xlarun_matcher_create(g, toks, lens, NV, &o, &m, &e);
    fuzz_check_err(st, &e);
    /* the start state itself may outgrow this harness's small limits ("a"{4096}: 4096 frames) */
    FUZZ_CHECK(st == XLARUN_OK || st == XLARUN_ERR_MEMORY || (st == XLARUN_ERR_GRAMMAR && strstr(e.message, "max_")));
    return st == XLARUN_OK ? m : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_part parts[2];
    int np = fuzz_split_n(data, size, parts, 2);
    const char *text = (const char *)parts[0].p;
    size_t len = parts[0].n, bytes = 0;
    xlarun_grammar *g = NULL, *g2 = NULL;
    xlarun_error e;
    xlarun_status st, st2;
    unsigned char *mem;
    go_grammar *og = NULL;
    go_rec *r = NULL;
    if (len > 4096) return 0;
    st = xlarun_grammar_compile(text, len, &g, &e);
    fuzz_check_err(st, &e);
    FUZZ_CHECK(st == XLARUN_OK || st == XLARUN_ERR_GRAMMAR || st == XLARUN_ERR_MEMORY);
    if (st == XLARUN_ERR_GRAMMAR) FUZZ_CHECK(strstr(e.message, "line ") && strstr(e.message, "column "));
    st2 = xlarun_grammar_memory(text, len, &bytes, &e);
    FUZZ_CHECK(st2 == st || (st == XLARUN_ERR_MEMORY && st2 == XLARUN_OK));
    if (st != XLARUN_OK) return 0;
    FUZZ_CHECK(g != NULL);
    mem = (unsigned char *)malloc(bytes + 1);
    FUZZ_CHECK(mem != NULL);
    FUZZ_CHECK(xlarun_grammar_compile_in(text, len, mem, bytes - 1, &g2, &e) == XLARUN_ERR_MEMORY);
    FUZZ_CHECK(xlarun_grammar_compile_in(text, len, mem, bytes, &g2, &e) == XLARUN_OK && g2 != NULL);
    if (len <= 1024 && g->n_elems <= 2048) { /* the oracle's Earley closure is slow on long runs of
                                                empty items (""{4096}): such grammars go unchecked */
        og = go_compile(text, len, NULL, 0);
        if (og && og->nullable_repeat) { go_free(og); og = NULL; }
        if (og) r = go_rec_new(og);
    }
    {
        xlarun_matcher *m = mk(g2), *probe = mk(g2);
        int32_t path[32];
        int n_path = 0, step;
        const uint8_t *drive = np > 1 ? parts[1].p : (const uint8_t *)"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09";
        size_t n_drive = np > 1 ? parts[1].n : 10, di = 0;
        if (m && probe) {
            for (step = 0; step < 24 && n_path < 32; step++) {
                uint32_t mask[1], om[1] = {0};
                int32_t id, k;
                int c = xlarun_matcher_complete(m), single = 0, limit = 0;
                st = xlarun_matcher_allowed(m, mask, &e);
                fuzz_check_err(st, &e);
                if (st != XLARUN_OK) { FUZZ_CHECK(st == XLARUN_ERR_GRAMMAR); break; } /* the limits */
                FUZZ_CHECK((mask[0] >> END_ID & 1) == (uint32_t)(c != 0));
                for (id = 0; id < NV && !limit; id++) {
                    xlarun_status sp;
                    int ok;
                    xlarun_matcher_reset(probe);
                    for (k = 0; k < n_path; k++) FUZZ_CHECK(xlarun_matcher_accept_token(probe, path[k], &e) == XLARUN_OK);
                    sp = xlarun_matcher_accept_token(probe, id, &e);
                    fuzz_check_err(sp, &e);
                    FUZZ_CHECK(sp == XLARUN_OK || sp == XLARUN_ERR_GRAMMAR);
                    if (sp != XLARUN_OK && strstr(e.message, "max_")) { limit = 1; break; }
                    ok = sp == XLARUN_OK;
                    FUZZ_CHECK(ok == (int)(mask[0] >> id & 1));
                    if (ok && lens[id] == 1) single = 1;
                }
                if (limit) break;
                /* some byte may follow when a one-byte token is allowed */
                if (single) FUZZ_CHECK(xlarun_matcher_can_continue(m));
                if (!xlarun_matcher_can_continue(m)) FUZZ_CHECK((mask[0] & ~(1u << END_ID)) == 0);
                if (r) {
                    size_t base = go_rec_len(r);
                    for (id = 0; id < NV; id++) {
                        int ok = id == END_ID ? go_complete(r) : lens[id] && go_push_bytes(r, toks[id], lens[id]);
                        go_pop_to(r, base);
                        if (ok) om[0] |= 1u << id;
                    }
                    if (om[0] != mask[0] || !go_complete(r) != !c) {
                        fprintf(stderr, "oracle disagrees after %lu bytes: engine mask %#x complete %d, oracle mask %#x complete %d\n",
                                (unsigned long)base, mask[0], c, om[0], go_complete(r));
                        FUZZ_CHECK(0);
                    }
                }
                if (di >= n_drive) break;
                if (drive[di] == 0xFF && di + 3 < n_drive) { /* raw bytes */
                    int ok_o = r ? go_push_bytes(r, drive + di + 1, 3) : -1;
                    st = xlarun_matcher_accept_bytes(m, (const char *)drive + di + 1, 3, &e);
                    fuzz_check_err(st, &e);
                    if (st != XLARUN_OK && strstr(e.message, "max_")) break;
                    if (ok_o >= 0) FUZZ_CHECK(ok_o == (st == XLARUN_OK));
                    if (st == XLARUN_OK) { /* the probe replays tokens: stop here */
                        di = n_drive;
                        break;
                    }
                    FUZZ_CHECK(xlarun_matcher_complete(m) == c); /* unchanged */
                    di += 4;
                    continue;
                }
                id = (int32_t)(drive[di++] % NV);
                if (!(mask[0] >> id & 1)) {
                    FUZZ_CHECK(xlarun_matcher_accept_token(m, id, &e) == XLARUN_ERR_GRAMMAR);
                    FUZZ_CHECK(xlarun_matcher_complete(m) == c);
                    continue;
                }
                FUZZ_CHECK(xlarun_matcher_accept_token(m, id, &e) == XLARUN_OK);
                if (id != END_ID) {
                    path[n_path++] = id;
                    if (r) FUZZ_CHECK(go_push_bytes(r, toks[id], lens[id]));
                }
            }
        }
        xlarun_matcher_free(m);
        xlarun_matcher_free(probe);
    }
    go_rec_free(r);
    go_free(og);
    free(mem);
    xlarun_grammar_free(g);
    return 0;
}
