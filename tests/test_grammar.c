/* tests/test_grammar.c - GBNF grammars and the token matcher, held against an independent
   recognizer (tests/grammar_oracle.h: its own GBNF parser and an Earley recognizer over code
   points, written from the notation, not from the engine).

   mask agreement: for hand-written grammars that cover every GBNF feature and small
     vocabularies (every single byte 0x00-0xFF, pieces of sentences that split UTF-8 characters,
     an empty token, end ids, a duplicate), random and exhaustive token paths; at every state
     xlarun_matcher_allowed must equal, bit for bit, "accepted bytes + token bytes is a prefix of
     a sentence" by the oracle; complete, can_continue and accept_bytes likewise. The totals are
     printed ("mask agreement: ...").
   random generation: tokens sampled from the mask until the end id; every output is a sentence.
   random grammars: compiled by both; where both compile, a short walk compared as above.
   refusals, memory (exact bytes work, one less is XLARUN_ERR_MEMORY, no allocation after init),
   and the Llama 3.2 tokenizer: xlarun_tokenizer_token_bytes for every id against the byte-level
   alphabet, then a JSON grammar's mask over all 128,256 ids on sampled states. */
#define XLARUN_IMPLEMENTATION
#include <stdlib.h>
static size_t n_allocs;
static void *counting_malloc(size_t n) { n_allocs++; return malloc(n); }
#define XLARUN_MALLOC(sz, u) ((void)(u), counting_malloc(sz))
#define XLARUN_FREE(p, u) ((void)(u), free(p))
#include "../xlarun.h"
#include "test.h"
#include "grammar_oracle.h"

#include <stdint.h>

#define FIX "tests/fixtures/tokenizers/"

/* ---- helpers ------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}
static uint32_t rndn(uint32_t n) { return n ? rnd() % n : 0; }

/* the slow runners (valgrind, qemu) get fewer iterations */
static int slow(void) {
#if defined(__aarch64__)
    return 1;
#else
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "vgpreload") != NULL;
#endif
}

/* bytes as a C string literal, for messages */
static const char *esc(const void *data, size_t n) {
    static char buf[4][512];
    static int which;
    char *o = buf[which++ & 3];
    const unsigned char *s = (const unsigned char *)data;
    size_t i, k = 0;
    o[k++] = '"';
    for (i = 0; i < n && k < 500; i++) {
        if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\') o[k++] = (char)s[i];
        else k += (size_t)snprintf(o + k, 512 - k, "\\x%02x", s[i]);
    }
    if (i < n) k += (size_t)snprintf(o + k, 512 - k, "...");
    o[k++] = '"';
    o[k] = 0;
    return o;
}

/* a vocabulary: token bytes, their order (sorted by bytes, end ids and empty tokens left out)
   and each sorted token's common prefix with the one before it, for the oracle's walk */
typedef struct {
    uint32_t n;
    char **tok;
    size_t *len;
    int32_t end[4];
    size_t n_end;
    uint32_t *order, n_order;
    size_t *lcp;
} vocab;

static int is_end(const vocab *v, int32_t id) {
    size_t i;
    for (i = 0; i < v->n_end; i++)
        if (v->end[i] == id) return 1;
    return 0;
}

static const vocab *cmp_v;
static int cmp_tok(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    size_t lx = cmp_v->len[x], ly = cmp_v->len[y], m = lx < ly ? lx : ly;
    int c = memcmp(cmp_v->tok[x], cmp_v->tok[y], m);
    if (c) return c;
    if (lx != ly) return lx < ly ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void vocab_index(vocab *v) {
    uint32_t i;
    v->order = (uint32_t *)malloc(sizeof(uint32_t) * (v->n + 1));
    v->lcp = (size_t *)malloc(sizeof(size_t) * (v->n + 1));
    v->n_order = 0;
    for (i = 0; i < v->n; i++)
        if (v->len[i] && !is_end(v, (int32_t)i)) v->order[v->n_order++] = i;
    cmp_v = v;
    qsort(v->order, v->n_order, sizeof(uint32_t), cmp_tok);
    for (i = 0; i < v->n_order; i++) {
        size_t k = 0;
        if (i) {
            uint32_t a = v->order[i - 1], b = v->order[i];
            while (k < v->len[a] && k < v->len[b] && v->tok[a][k] == v->tok[b][k]) k++;
        }
        v->lcp[i] = k;
    }
}

static void vocab_free(vocab *v) {
    uint32_t i;
    for (i = 0; i < v->n; i++) free(v->tok[i]);
    free(v->tok);
    free(v->len);
    free(v->order);
    free(v->lcp);
    memset(v, 0, sizeof *v);
}

static void vocab_add(vocab *v, const void *bytes, size_t n, uint32_t *cap) {
    if (v->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        v->tok = (char **)realloc(v->tok, sizeof(char *) * *cap);
        v->len = (size_t *)realloc(v->len, sizeof(size_t) * *cap);
    }
    v->tok[v->n] = (char *)malloc(n + 1);
    if (n) memcpy(v->tok[v->n], bytes, n);
    v->tok[v->n][n] = 0;
    v->len[v->n] = n;
    v->n++;
}

/* the oracle's mask: bit id set iff the bytes taken so far plus the token's are a prefix (end
   ids: iff a sentence is complete; empty tokens never). One walk over the sorted tokens, each
   shared prefix pushed once; the recognizer is left as it was. */
static void oracle_mask(go_rec *r, const vocab *v, uint32_t *mask) {
    size_t base = go_rec_len(r), depth = 0, fail_len = (size_t)-1;
    uint32_t i;
    int complete = go_complete(r);
    memset(mask, 0, sizeof(uint32_t) * ((v->n + 31) / 32));
    for (i = 0; i < v->n_end; i++)
        if (complete && v->end[i] >= 0 && (uint32_t)v->end[i] < v->n) mask[v->end[i] / 32] |= 1u << (v->end[i] % 32);
    for (i = 0; i < v->n_order; i++) {
        uint32_t id = v->order[i];
        const unsigned char *t = (const unsigned char *)v->tok[id];
        size_t l = v->lcp[i], keep;
        if (fail_len <= l) continue; /* shares the prefix that already failed */
        fail_len = (size_t)-1;
        keep = l < depth ? l : depth;
        go_pop_to(r, base + keep);
        depth = keep;
        while (depth < v->len[id]) {
            if (!go_push(r, t[depth])) { fail_len = depth + 1; break; }
            depth++;
        }
        if (depth == v->len[id]) mask[id / 32] |= 1u << (id % 32);
    }
    go_pop_to(r, base);
}

/* the same, one token at a time (checks the walk above) */
static void oracle_mask_naive(go_rec *r, const vocab *v, uint32_t *mask) {
    uint32_t id;
    int complete = go_complete(r);
    size_t base = go_rec_len(r);
    memset(mask, 0, sizeof(uint32_t) * ((v->n + 31) / 32));
    for (id = 0; id < v->n; id++) {
        int ok;
        if (is_end(v, (int32_t)id)) ok = complete;
        else if (!v->len[id]) ok = 0;
        else {
            ok = go_push_bytes(r, v->tok[id], v->len[id]);
            go_pop_to(r, base);
        }
        if (ok) mask[id / 32] |= 1u << (id % 32);
    }
}

/* counters for the report */
static unsigned long long n_mask_bits, n_mask_states, n_accept_cmp, n_state_cmp, n_outputs, n_random_grammars;
static unsigned long long n_limit_hits, n_lr_dead;
static int n_disagree_printed;
static int allow_limits; /* random grammars: the parse may outgrow max_stacks / max_nodes */

/* compare the engine's mask with the oracle's at the current state; 1 if they agree */
static int compare_state(const char *what, xlarun_matcher *m, go_rec *r, const vocab *v, uint32_t *em, uint32_t *om) {
    xlarun_error err;
    xlarun_status st = xlarun_matcher_allowed(m, em, &err);
    uint32_t w, words = (v->n + 31) / 32;
    int ok = 1, ec, oc, ek, ok2;
    if (allow_limits && st == XLARUN_ERR_GRAMMAR && strstr(err.message, "max_")) { n_limit_hits++; return 0; }
    CHECKF(st == XLARUN_OK, "%s: allowed: %s", what, err.message);
    if (st != XLARUN_OK) return 0;
    oracle_mask(r, v, om);
    n_mask_states++;
    n_mask_bits += v->n;
    for (w = 0; w < words; w++) {
        uint32_t d = em[w] ^ om[w];
        if (v->n % 32 && w == words - 1) d &= (1u << (v->n % 32)) - 1;
        while (d) {
            int b = 0;
            uint32_t id;
            while (!(d >> b & 1)) b++;
            d &= ~(1u << b);
            id = w * 32 + (uint32_t)b;
            ok = 0;
            if (n_disagree_printed++ < 12)
                CHECKF(0, "%s: after %s token %u %s: engine %s, oracle %s", what, esc(go_rec_bytes(r), go_rec_len(r)), id,
                       esc(v->tok[id], v->len[id]), em[w] >> b & 1 ? "allows" : "refuses", om[w] >> b & 1 ? "allows" : "refuses");
        }
    }
    if (!ok && n_disagree_printed > 12) CHECKF(0, "%s: masks differ (more)", what);
    ec = xlarun_matcher_complete(m);
    oc = go_complete(r);
    ek = xlarun_matcher_can_continue(m);
    ok2 = go_can_continue(r);
    n_state_cmp += 2;
    CHECKF(!ec == !oc, "%s: after %s complete: engine %d, oracle %d", what, esc(go_rec_bytes(r), go_rec_len(r)), ec, oc);
    CHECKF(!ek == !ok2, "%s: after %s can_continue: engine %d, oracle %d", what, esc(go_rec_bytes(r), go_rec_len(r)), ek, ok2);
    return ok && !ec == !oc && !ek == !ok2;
}

/* the allowed ids of a mask (not end ids unless ends) */
static uint32_t mask_ids(const vocab *v, const uint32_t *mask, uint32_t *ids, int ends) {
    uint32_t id, n = 0;
    for (id = 0; id < v->n; id++)
        if (mask[id / 32] >> (id % 32) & 1 && (ends || !is_end(v, (int32_t)id))) ids[n++] = id;
    return n;
}

/* ---- the grammars --------------------------------------------------------------------------- */

typedef struct { const char *name, *text; } gram;

static const gram grammars[] = {
    {"header-example",
     "root   ::= \"{\" ws pair (\",\" ws pair)* \"}\"      # the rule named root is the start\n"
     "pair   ::= [a-z]+ \":\" ws ( [0-9]+ | \"\\\"\" [^\"\\\\]* \"\\\"\" )\n"
     "ws     ::= [ \\t\\n]{0,4}\n"},
    {"alternation-groups", "root ::= (\"ab\" | \"a\" \"c\"? | [x-z]) (\",\" (\"ab\" | \"b\" | (\"c\" (\"d\" | \"e\"))))*\n"},
    {"star-plus-opt", "root ::= \"a\"* \"b\"+ \"c\"? \"d\"\n"},
    {"counted", "root ::= [0-9]{3} \"-\" [a-f]{2,} \".\" [xy]{1,3} \":\" \"z\"{,2} \"!\"\n"},
    {"counted-zero", "root ::= \"a\"{0} \"b\" \"c\"{0,} \"d\"{0,1} \"e\"{,0} \"f\"\n"},
    {"class-escapes",
     "root ::= [^\\n\"]+ \"\\n\" [\\x20-\\x2f\\-\\]\\\\]* [\\t\\r\\n] [\\[\\]]? \"\\\"\\'\\\\\\[\\]\\-\"\n"},
    {"utf8-literals", "root ::= (\"é\" | \"日本語\" | \"😀😁\" | \"a\\u00e9\\U0001F600\" | \"\\xe9\")+\n"},
    {"utf8-classes", "root ::= [é-ÿ]+ [ぁ-ゖ]* [\\U0001F600-\\U0001F64F]? [^a-z]\n"},
    {"dot", "root ::= \"<\" . .? \">\" (. \"|\")*\n"},
    {"comments",
     "# a comment line\n"
     "root ::= a # after a rule\n"
     "  # an indented comment\n"
     "a ::= ( \"x\" # inside a group\n"
     "      | \"y\" ) # after it\n"
     "\n"
     "# the end\n"},
    {"arith",
     "root ::= expr\n"
     "expr ::= term ([-+*/] term)*\n"
     "term ::= [0-9]+ | \"(\" space expr \")\" space\n"
     "space ::= \" \"?\n"},
    {"nullable",
     "root ::= a b c \"!\"\n"
     "a ::= \"x\"?\n"
     "b ::= a a | \"\"\n"
     "c ::= \"y\" | a\n"},
    {"nested-repeat", "root ::= ((\"ab\")+ \"c\"?){2,3} \".\"\n"},
    {"recursive-list",
     "root ::= \"[\" list? \"]\"\n"
     "list ::= item (\",\" list)?\n"
     "item ::= [a-c] | root\n"},
    {"multiline",
     "root ::= \"a\" |\n"
     "         \"b\" (\n"
     "   \"c\"\n"
     "   | \"d\"\n"
     " ) |\n"
     "\n"
     "  \"e\"\n"},
    {"negated-non-ascii", "root ::= [^\\x00-\\x7F]+ \".\"\n"},
    {"encoding-boundaries", "root ::= ([\\x7F-\\x80] | [\\u07FF-\\u0800] | [\\uFFFF] | [\\U00010000] | [\\U0010FFFE-\\U0010FFFF])+\n"},
    {"around-surrogates", "root ::= [\\uD7FE-\\uE001]+ \";\"\n"},
    {"negated-any", "root ::= \"'\" [^']* \"'\"\n"},
    {"json",
     "root ::= value\n"
     "value ::= object | array | string | number | (\"true\" | \"false\" | \"null\")\n"
     "object ::= \"{\" ws ( string ws \":\" ws value ws ( \",\" ws string ws \":\" ws value ws )* )? \"}\"\n"
     "array ::= \"[\" ws ( value ws ( \",\" ws value ws )* )? \"]\"\n"
     "string ::= \"\\\"\" ( [^\"\\\\\\x00-\\x1f] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4} ) )* \"\\\"\"\n"
     "number ::= \"-\"? ( \"0\" | [1-9] [0-9]* ) ( \".\" [0-9]+ )? ( [eE] [-+]? [0-9]+ )?\n"
     "ws ::= [ \\t\\n]{0,3}\n"},
    {"ambiguous", "root ::= (\"a\" | \"aa\")* \"b\" | \"a\"+ \"c\" | \"a\" \"a\"* \"b\"\n"},
    {"nullable-root", "root ::= (\"x\" root \"y\")?\n"},
    {"rule-names", "root ::= my-rule2\nmy-rule2 ::= \"q\" X-Y 3d\nX-Y ::= \"r\"\n3d ::= \"s\"\n"},
    {"unused-rule", "root ::= \"ok\"\nother ::= \"never\" other\n"},
    {"dead-alternative", "root ::= \"a\" | \"b\" dead\ndead ::= \"c\" dead\n"},
    {"spaces-before-ops", "root ::= \"a\" * \"b\" + [c] ?\n"},
    {"long-literal", "root ::= \"the quick brown fox jumps over the lazy dog\" | \"the quick red\"\n"},
    {"four-byte-runs", "root ::= [\\U0001F300-\\U0001F5FF\\U00020000-\\U0002A6DF]{1,3} \"|\" \"𝄞\"\n"},
};
#define N_GRAMMARS (sizeof grammars / sizeof grammars[0])

/* random bytes that the oracle takes: a walk over single bytes, ending at a sentence or stuck */
static size_t oracle_sample(go_rec *r, unsigned char *out, size_t cap) {
    size_t n = 0;
    go_pop_to(r, 0);
    while (n < cap) {
        unsigned char perm[256];
        int k;
        if (go_complete(r) && rndn(8) == 0) break;
        for (k = 0; k < 256; k++) perm[k] = (unsigned char)k;
        for (k = 0; k < 256; k++) { /* a random order; the first byte that fits is uniform among those that do */
            uint32_t j = (uint32_t)k + rndn((uint32_t)(256 - k));
            unsigned char t = perm[k];
            perm[k] = perm[j];
            perm[j] = t;
            if (go_push(r, perm[k])) break;
        }
        if (k == 256) break;
        out[n++] = perm[k];
    }
    go_pop_to(r, 0);
    return n;
}

/* a vocabulary for a grammar: id 0 the empty token, id 1 the end id (no bytes), 2..257 every
   single byte, then pieces of sampled sentences (they split UTF-8 characters), a few sentences
   whole, a duplicate, and a few junk tokens */
static void make_vocab(vocab *v, go_rec *r, int n_pieces) {
    uint32_t cap = 0;
    int i;
    unsigned char buf[40];
    memset(v, 0, sizeof *v);
    vocab_add(v, "", 0, &cap);
    vocab_add(v, "", 0, &cap);
    v->end[0] = 1;
    v->n_end = 1;
    for (i = 0; i < 256; i++) {
        unsigned char b = (unsigned char)i;
        vocab_add(v, &b, 1, &cap);
    }
    for (i = 0; i < n_pieces; i++) {
        size_t n = oracle_sample(r, buf, sizeof buf), a, l;
        if (n < 2) continue;
        if (i % 8 == 0 && n <= 24) { vocab_add(v, buf, n, &cap); continue; }
        a = rndn((uint32_t)(n - 1));
        l = 2 + rndn((uint32_t)(n - a < 8 ? n - a - 1 : 7));
        vocab_add(v, buf + a, l, &cap);
    }
    vocab_add(v, v->tok[v->n - 1], v->len[v->n - 1], &cap); /* the same bytes under two ids */
    vocab_add(v, "\xff\xfe", 2, &cap);
    vocab_add(v, "\xc3", 1, &cap); /* a second single-byte token for a lead byte */
    vocab_add(v, "\x80\x80", 2, &cap);
    vocab_index(v);
}

static xlarun_matcher *new_matcher(const xlarun_grammar *g, const vocab *v) {
    xlarun_matcher_options o;
    xlarun_matcher *m = NULL;
    xlarun_error err;
    memset(&o, 0, sizeof o);
    o.end_ids = v->end;
    o.n_end = v->n_end;
    if (xlarun_matcher_create(g, (const char *const *)v->tok, v->len, v->n, &o, &m, &err) != XLARUN_OK) {
        CHECKF(0, "matcher_create: %s", err.message);
        return NULL;
    }
    return m;
}

/* random token paths with accept_bytes probes in between; returns the states compared */
static void random_walks(const char *name, xlarun_matcher *m, go_rec *r, const vocab *v, int walks, int steps) {
    uint32_t *em = (uint32_t *)malloc(4 * ((v->n + 31) / 32)), *om = (uint32_t *)malloc(4 * ((v->n + 31) / 32));
    uint32_t *ids = (uint32_t *)malloc(4 * v->n);
    int w, s;
    xlarun_error err;
    for (w = 0; w < walks; w++) {
        xlarun_matcher_reset(m);
        go_pop_to(r, 0);
        for (s = 0; s < steps; s++) {
            uint32_t n;
            if (!compare_state(name, m, r, v, em, om)) break;
            if (rndn(5) == 0) {
                /* accept_bytes with bytes that may or may not fit */
                unsigned char junk[6];
                const void *p;
                size_t len, k, at = go_rec_len(r);
                int ok, ek;
                if (rndn(2)) {
                    uint32_t id = rndn(v->n);
                    p = v->tok[id];
                    len = v->len[id];
                } else {
                    len = 1 + rndn(4);
                    for (k = 0; k < len; k++) junk[k] = (unsigned char)(rndn(3) ? (uint32_t)(unsigned char)v->tok[2 + rndn(256)][0] : rnd());
                    if (rndn(2) && at) junk[0] = go_rec_bytes(r)[rndn((uint32_t)at)];
                    p = junk;
                }
                ok = go_push_bytes(r, p, len);
                ek = xlarun_matcher_accept_bytes(m, (const char *)p, len, &err) == XLARUN_OK;
                n_accept_cmp++;
                CHECKF(ek == ok, "%s: after %s accept_bytes %s: engine %s, oracle %s", name, esc(go_rec_bytes(r), at),
                       esc(p, len), ek ? "takes" : "refuses", ok ? "takes" : "refuses");
                if (ek != ok) break;
                if (!ek) CHECK(err.status == XLARUN_ERR_GRAMMAR);
                continue;
            }
            n = mask_ids(v, om, ids, 0);
            if (!n) break;
            {
                uint32_t id = ids[rndn(n)];
                xlarun_status st = xlarun_matcher_accept_token(m, (int32_t)id, &err);
                CHECKF(st == XLARUN_OK, "%s: accept_token %u: %s", name, id, err.message);
                if (st != XLARUN_OK) break;
                CHECK(go_push_bytes(r, v->tok[id], v->len[id]));
            }
            /* now and then a token that is not allowed: refused, nothing changes */
            if (rndn(4) == 0) {
                uint32_t id = rndn(v->n);
                int allowed_o;
                if (is_end(v, (int32_t)id)) allowed_o = go_complete(r);
                else if (!v->len[id]) allowed_o = 0;
                else { allowed_o = go_push_bytes(r, v->tok[id], v->len[id]); if (allowed_o) go_pop_to(r, go_rec_len(r) - v->len[id]); }
                if (!allowed_o) {
                    xlarun_status st = xlarun_matcher_accept_token(m, (int32_t)id, &err);
                    n_accept_cmp++;
                    CHECKF(st == XLARUN_ERR_GRAMMAR, "%s: after %s accept_token %u %s not allowed: %s", name,
                           esc(go_rec_bytes(r), go_rec_len(r)), id, esc(v->tok[id], v->len[id]), xlarun_status_name(st));
                    if (st == XLARUN_OK && !is_end(v, (int32_t)id)) break;
                }
            }
        }
    }
    free(em);
    free(om);
    free(ids);
}

/* every path of allowed tokens up to depth (over the vocabulary's multi-byte tokens and a few
   single bytes) */
static void exhaustive(const char *name, xlarun_matcher *m, go_rec *r, const vocab *v, uint32_t *em, uint32_t *om,
                       const int32_t *path, int n_path, int depth, const uint32_t *pool, uint32_t n_pool) {
    uint32_t i;
    xlarun_error err;
    int k;
    /* replay the path from the start (the matcher has no undo) */
    xlarun_matcher_reset(m);
    go_pop_to(r, 0);
    for (k = 0; k < n_path; k++) {
        if (xlarun_matcher_accept_token(m, path[k], &err) != XLARUN_OK) { CHECKF(0, "%s: replay: %s", name, err.message); return; }
        go_push_bytes(r, v->tok[path[k]], v->len[path[k]]);
    }
    if (!compare_state(name, m, r, v, em, om) || depth == 0) return;
    {
        uint32_t *next = (uint32_t *)malloc(4 * n_pool), n = 0;
        int32_t *p2 = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n_path + 1));
        for (i = 0; i < n_pool; i++)
            if (om[pool[i] / 32] >> (pool[i] % 32) & 1) next[n++] = pool[i];
        if (n_path) memcpy(p2, path, sizeof(int32_t) * (size_t)n_path);
        for (i = 0; i < n; i++) {
            p2[n_path] = (int32_t)next[i];
            exhaustive(name, m, r, v, em, om, p2, n_path + 1, depth - 1, pool, n_pool);
        }
        free(next);
        free(p2);
    }
}

static xlarun_grammar *compile_ok(const char *name, const char *text) {
    xlarun_grammar *g = NULL;
    xlarun_error err;
    xlarun_status st = xlarun_grammar_compile(text, strlen(text), &g, &err);
    CHECKF(st == XLARUN_OK, "%s: compile: %s", name, st == XLARUN_OK ? "" : err.message);
    return st == XLARUN_OK ? g : NULL;
}

static void test_oracle_self(void) {
    /* the oracle itself on facts worked out by hand */
    char e[256];
    go_grammar *g = go_compile(grammars[0].text, strlen(grammars[0].text), e, sizeof e);
    CHECKF(g != NULL, "%s", e);
    if (!g) return;
    CHECK(go_is_sentence(g, "{a:1}", 5));
    CHECK(go_is_sentence(g, "{ ab:\"x\",    c:\"\"}", 18));
    CHECK(!go_is_sentence(g, "{     a:1}", 10));
    CHECK(go_is_prefix(g, "{ab", 3) && !go_is_sentence(g, "{ab", 3) && !go_is_prefix(g, "{1", 2));
    CHECK(go_is_prefix(g, "{a:\"\xc3", 5) && !go_is_prefix(g, "{a:\"\xc0", 5) && !go_is_prefix(g, "{a:\"\xc1\xbf", 6));
    CHECK(go_is_prefix(g, "{a:\"\xed\x9f", 6) && !go_is_prefix(g, "{a:\"\xed\xa0", 6));
    CHECK(go_is_prefix(g, "{a:\"\xf4\x8f\xbf", 7) && !go_is_prefix(g, "{a:\"\xf4\x90", 6) && !go_is_prefix(g, "{a:\"\xf5", 5));
    CHECK(!go_is_prefix(g, "{a:\"\xe0\x80", 6) && go_is_prefix(g, "{a:\"\xe0\xa0", 6) && !go_is_prefix(g, "{a:\"\xf0\x8f", 6));
    CHECK(go_is_sentence(g, "{a:\"\xf0\x9f\x98\x80\"}", 10) && !go_is_prefix(g, "{a:\"\xff", 5) && !go_is_prefix(g, "{a:\"\x80", 5));
    go_free(g);
    g = go_compile("root ::= [\\uD7FE-\\uE001]+", 25, e, sizeof e);
    CHECKF(g != NULL, "%s", e);
    if (g) {
        CHECK(go_is_sentence(g, "\xed\x9f\xbf\xee\x80\x80", 6) && !go_is_prefix(g, "\xed\xa0", 2) && go_is_prefix(g, "\xed", 1));
        CHECK(!go_is_prefix(g, "\xee\x80\x82", 3) && go_is_prefix(g, "\xee\x80", 2) && !go_is_prefix(g, "\xee\x81", 2));
        go_free(g);
    }
    {
        static const struct { const char *text, *why; } bad[] = {
            {"root ::= \"a", "line 1"}, {"root ::= x", "undefined rule x"},
            {"root ::= \"a\"\nroot ::= \"b\"", "line 2 column 1: rule defined twice"}, {"a ::= \"x\"", "no root"},
            {"root ::= root \"a\" | \"b\"", "left recursion"}, {"root ::= a\na ::= b \"x\" | \"z\"\nb ::= \"y\"? root", "left recursion"},
            {"root ::= \"a\" root", "matches no text"}, {"root ::= [b-a]", "order"}, {"root ::= \"a\"{3,2}", "below"},
            {"root ::= * \"a\"", "nothing before"}, {"root ::= (\"a\"", "expected )"}, {"root ::= \"\\q\"", "escape"},
            {"root ::= \"a\" )", "unexpected"}, {"root ::= \"a\"\n  \"b\"", "line 2"}, {"root ::= [\\uD800-\\uDFFF]", "no text"},
        };
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            g = go_compile(bad[i].text, strlen(bad[i].text), e, sizeof e);
            CHECKF(g == NULL && strstr(e, bad[i].why), "oracle on %s: %s", esc(bad[i].text, strlen(bad[i].text)), g ? "compiled" : e);
            go_free(g);
        }
    }
    /* the walk over sorted tokens == one token at a time */
    {
        size_t i;
        for (i = 0; i < N_GRAMMARS; i++) {
            go_grammar *og = go_compile(grammars[i].text, strlen(grammars[i].text), e, sizeof e);
            go_rec *r;
            vocab v;
            uint32_t *a, *b;
            int s;
            unsigned char buf[64];
            CHECKF(og != NULL, "%s: %s", grammars[i].name, e);
            if (!og) continue;
            r = go_rec_new(og);
            make_vocab(&v, r, 24);
            a = (uint32_t *)malloc(4 * ((v.n + 31) / 32));
            b = (uint32_t *)malloc(4 * ((v.n + 31) / 32));
            for (s = 0; s < 4; s++) {
                size_t n = oracle_sample(r, buf, sizeof buf), cut = n ? rndn((uint32_t)n + 1) : 0;
                go_push_bytes(r, buf, cut);
                oracle_mask(r, &v, a);
                oracle_mask_naive(r, &v, b);
                CHECKF(!memcmp(a, b, 4 * ((v.n + 31) / 32)), "%s: oracle walk != naive after %s", grammars[i].name, esc(buf, cut));
                go_pop_to(r, 0);
            }
            free(a);
            free(b);
            vocab_free(&v);
            go_rec_free(r);
            go_free(og);
        }
    }
}

/* ---- mask agreement on the hand-written grammars ------------------------------------------- */

static void test_mask_agreement(const gram *gr) {
    char e[256];
    go_grammar *og = go_compile(gr->text, strlen(gr->text), e, sizeof e);
    xlarun_grammar *g;
    xlarun_matcher *m;
    go_rec *r;
    vocab v;
    int sl = slow();
    CHECKF(og != NULL, "oracle: %s", e);
    if (!og) return;
    g = compile_ok(gr->name, gr->text);
    if (!g) { go_free(og); return; }
    r = go_rec_new(og);
    make_vocab(&v, r, 48);
    m = new_matcher(g, &v);
    if (m) {
        uint32_t *em = (uint32_t *)malloc(4 * ((v.n + 31) / 32)), *om = (uint32_t *)malloc(4 * ((v.n + 31) / 32));
        uint32_t pool[64], n_pool = 0, id;
        random_walks(gr->name, m, r, &v, sl ? 3 : 10, sl ? 12 : 30);
        /* exhaustive: some multi-byte tokens and a few single bytes, depth 3 (2 when slow) */
        for (id = 258; id < v.n && n_pool < (sl ? 8u : 10u); id += 3) pool[n_pool++] = id;
        for (id = 0; id < 4; id++) pool[n_pool++] = 2 + (uint32_t)(unsigned char)"a\"\xc3 "[id];
        pool[n_pool++] = 1;
        exhaustive(gr->name, m, r, &v, em, om, NULL, 0, sl ? 2 : 3, pool, n_pool);
        free(em);
        free(om);
        xlarun_matcher_free(m);
    }
    vocab_free(&v);
    go_rec_free(r);
    go_free(og);
    xlarun_grammar_free(g);
}

/* ---- random generation ---------------------------------------------------------------------- */

static void test_generation(const gram *gr) {
    char e[256];
    go_grammar *og = go_compile(gr->text, strlen(gr->text), e, sizeof e);
    xlarun_grammar *g;
    xlarun_matcher *m;
    go_rec *r;
    vocab v;
    int outs, o;
    if (!og) { CHECKF(0, "oracle: %s", e); return; }
    g = compile_ok(gr->name, gr->text);
    if (!g) { go_free(og); return; }
    r = go_rec_new(og);
    make_vocab(&v, r, 48);
    m = new_matcher(g, &v);
    outs = slow() ? 2 : 8;
    if (m) {
        uint32_t *em = (uint32_t *)malloc(4 * ((v.n + 31) / 32)), *ids = (uint32_t *)malloc(4 * v.n);
        unsigned char *out = (unsigned char *)malloc(4096);
        xlarun_error err;
        for (o = 0; o < outs; o++) {
            size_t len = 0;
            int step, ended = 0;
            xlarun_matcher_reset(m);
            go_pop_to(r, 0);
            for (step = 0; step < 120; step++) {
                uint32_t n, id;
                if (xlarun_matcher_allowed(m, em, &err) != XLARUN_OK) { CHECKF(0, "%s: %s", gr->name, err.message); break; }
                n = mask_ids(&v, em, ids, 1);
                CHECKF(n > 0, "%s: no token allowed after %s", gr->name, esc(out, len));
                if (!n) break;
                if (em[0] & 2u && (rndn(4) == 0 || step > 20 || n == 1)) { /* the end id */
                    CHECK(xlarun_matcher_accept_token(m, 1, &err) == XLARUN_OK);
                    ended = 1;
                    break;
                }
                id = ids[rndn(n)];
                if (id == 1) continue;
                if (step > 20) { /* prefer a token after which a sentence is complete (a few tries) */
                    uint32_t k;
                    for (k = 0; k < 48; k++) {
                        uint32_t c = ids[rndn(n)];
                        int done;
                        if (c == 1 || !go_push_bytes(r, v.tok[c], v.len[c])) continue;
                        done = go_complete(r);
                        go_pop_to(r, len);
                        if (done) { id = c; break; }
                    }
                }
                CHECK(xlarun_matcher_accept_token(m, (int32_t)id, &err) == XLARUN_OK);
                if (len + v.len[id] > 4096) break;
                CHECKF(go_push_bytes(r, v.tok[id], v.len[id]), "%s: the engine allowed %s after %s", gr->name,
                       esc(v.tok[id], v.len[id]), esc(out, len));
                memcpy(out + len, v.tok[id], v.len[id]);
                len += v.len[id];
            }
            if (ended) {
                n_outputs++;
                CHECKF(go_is_sentence(og, out, len), "%s: output %s is not a sentence", gr->name, esc(out, len));
            } else CHECKF(go_is_prefix(og, out, len), "%s: unfinished output %s is not a prefix", gr->name, esc(out, len));
        }
        free(em);
        free(ids);
        free(out);
        xlarun_matcher_free(m);
    }
    vocab_free(&v);
    go_rec_free(r);
    go_free(og);
    xlarun_grammar_free(g);
}

/* ---- end ids -------------------------------------------------------------------------------- */

static void test_end_ids(void) {
    /* end ids are allowed exactly where a sentence is complete, whatever their bytes; accepting
       one changes nothing; an empty token that is not an end id never is */
    static const char *toks[] = {"a", "b", "", "</s>", "", "ab"};
    static const size_t lens[] = {1, 1, 0, 4, 0, 2};
    int32_t ends[2] = {3, 4};
    xlarun_matcher_options o;
    xlarun_grammar *g = compile_ok("end", "root ::= \"a\" \"b\"? \"<\"?\n");
    xlarun_matcher *m = NULL;
    xlarun_error err;
    uint32_t mask[1];
    if (!g) return;
    memset(&o, 0, sizeof o);
    o.end_ids = ends;
    o.n_end = 2;
    CHECKF(xlarun_matcher_create(g, toks, lens, 6, &o, &m, &err) == XLARUN_OK, "%s", err.message);
    if (!m) { xlarun_grammar_free(g); return; }
    CHECK(xlarun_matcher_allowed(m, mask, &err) == XLARUN_OK);
    CHECKF(mask[0] == ((1u << 0) | (1u << 5)), "empty output: mask %#x", mask[0]);
    CHECK(!xlarun_matcher_complete(m) && xlarun_matcher_can_continue(m));
    CHECK(xlarun_matcher_accept_token(m, 3, &err) == XLARUN_ERR_GRAMMAR);
    CHECK(xlarun_matcher_accept_token(m, 2, &err) == XLARUN_ERR_GRAMMAR);
    CHECK(xlarun_matcher_accept_token(m, 0, &err) == XLARUN_OK);
    CHECK(xlarun_matcher_allowed(m, mask, &err) == XLARUN_OK);
    CHECKF(mask[0] == ((1u << 1) | (1u << 3) | (1u << 4)), "after a: mask %#x (end id 3 has bytes \"</s>\")", mask[0]);
    CHECK(xlarun_matcher_complete(m) && xlarun_matcher_can_continue(m));
    CHECK(xlarun_matcher_accept_token(m, 4, &err) == XLARUN_OK);
    CHECK(xlarun_matcher_accept_token(m, 3, &err) == XLARUN_OK);
    CHECK(xlarun_matcher_allowed(m, mask, &err) == XLARUN_OK && mask[0] == ((1u << 1) | (1u << 3) | (1u << 4)));
    CHECK(xlarun_matcher_accept_bytes(m, "b<", 2, &err) == XLARUN_OK);
    CHECK(xlarun_matcher_complete(m) && !xlarun_matcher_can_continue(m));
    CHECK(xlarun_matcher_allowed(m, mask, &err) == XLARUN_OK && mask[0] == ((1u << 3) | (1u << 4)));
    CHECK(xlarun_matcher_accept_bytes(m, "", 0, &err) == XLARUN_OK);
    CHECK(xlarun_matcher_accept_token(m, 6, &err) != XLARUN_OK);
    CHECK(xlarun_matcher_accept_token(m, -1, &err) != XLARUN_OK);
    xlarun_matcher_reset(m);
    CHECK(!xlarun_matcher_complete(m));
    CHECK(xlarun_matcher_allowed(m, mask, &err) == XLARUN_OK && mask[0] == ((1u << 0) | (1u << 5)));
    xlarun_matcher_free(m);
    xlarun_grammar_free(g);
    /* an end id whose bytes would continue the output: still only where a sentence is complete
       (Llama 3's "<|eot_id|>" inside a JSON string) */
    g = compile_ok("end bytes", "root ::= \"<\" [a-z/]* \">\"\n");
    if (!g) return;
    {
        static const char *t2[] = {"<", "</s>", "a>", ">"};
        static const size_t l2[] = {1, 4, 2, 1};
        int32_t e2 = 1;
        o.end_ids = &e2;
        o.n_end = 1;
        m = NULL;
        CHECKF(xlarun_matcher_create(g, t2, l2, 4, &o, &m, &err) == XLARUN_OK, "%s", err.message);
        if (m) {
            CHECK(xlarun_matcher_allowed(m, mask, &err) == XLARUN_OK);
            CHECKF(mask[0] == 1u, "empty output: mask %#x (the end id \"</s>\" is no prefix's continuation)", mask[0]);
            CHECK(xlarun_matcher_accept_token(m, 1, &err) == XLARUN_ERR_GRAMMAR);
            CHECK(xlarun_matcher_accept_token(m, 0, &err) == XLARUN_OK);
            CHECK(xlarun_matcher_allowed(m, mask, &err) == XLARUN_OK);
            CHECKF(mask[0] == ((1u << 2) | (1u << 3)), "after <: mask %#x", mask[0]);
            CHECK(xlarun_matcher_accept_bytes(m, "a>", 2, &err) == XLARUN_OK);
            CHECK(xlarun_matcher_allowed(m, mask, &err) == XLARUN_OK && mask[0] == (1u << 1));
            xlarun_matcher_free(m);
        }
    }
    xlarun_grammar_free(g);
}

/* ---- random grammars ------------------------------------------------------------------------ */

static void rand_expr(char *o, size_t *k, size_t cap, int depth, int n_rules, int self);
static void rand_atom(char *o, size_t *k, size_t cap, int depth, int n_rules, int self) {
    static const char *atoms[] = {"\"a\"", "\"b\"", "\"ab\"", "\"\"", "[a-c]", "[^a]", "\"é\"", "[é-ë]", ".", "\"\\xe9\"",
                                  "\"😀\"", "[😀-😂a]", "[^\\x00-\\x7f]", "\"\\n\"", "[\\x61]"};
    int c = (int)rndn(10);
    if (*k + 64 > cap) { *k += (size_t)snprintf(o + *k, cap - *k, "\"z\""); return; }
    if (c < 7 || depth > 3) *k += (size_t)snprintf(o + *k, cap - *k, "%s", atoms[rndn(sizeof atoms / sizeof atoms[0])]);
    else if (c < 9) {
        int r = (int)rndn((uint32_t)n_rules);
        if (r == self && self == 0) r = n_rules - 1;
        *k += (size_t)snprintf(o + *k, cap - *k, "r%d", r);
    } else {
        o[(*k)++] = '(';
        rand_expr(o, k, cap, depth + 1, n_rules, self);
        o[(*k)++] = ')';
    }
    switch (rndn(12)) {
    case 0: o[(*k)++] = '*'; break;
    case 1: o[(*k)++] = '+'; break;
    case 2: o[(*k)++] = '?'; break;
    case 3: *k += (size_t)snprintf(o + *k, cap - *k, "{%u}", rndn(3)); break;
    case 4: *k += (size_t)snprintf(o + *k, cap - *k, "{%u,}", rndn(3)); break;
    case 5: { uint32_t a = rndn(3); *k += (size_t)snprintf(o + *k, cap - *k, "{%u,%u}", a, a + rndn(3)); } break;
    case 6: *k += (size_t)snprintf(o + *k, cap - *k, "{,%u}", rndn(3)); break;
    default: break;
    }
    o[*k] = 0;
}
static void rand_expr(char *o, size_t *k, size_t cap, int depth, int n_rules, int self) {
    int alts = 1 + (int)rndn(3), a;
    for (a = 0; a < alts; a++) {
        int items = 1 + (int)rndn(3), i;
        if (a) { o[(*k)++] = ' '; o[(*k)++] = '|'; o[(*k)++] = ' '; }
        for (i = 0; i < items; i++) {
            if (i) o[(*k)++] = ' ';
            rand_atom(o, k, cap, depth, n_rules, self);
        }
    }
    o[*k] = 0;
}

static void test_random_grammars(void) {
    int t, n = slow() ? 60 : 1500, both = 0, engine_only = 0, oracle_only = 0, skipped = 0;
    char text[2048], e[256];
    for (t = 0; t < n; t++) {
        int n_rules = 1 + (int)rndn(3), i;
        size_t k = 0;
        go_grammar *og;
        xlarun_grammar *g = NULL;
        xlarun_error err;
        xlarun_status st;
        for (i = 0; i < n_rules; i++) {
            k += (size_t)snprintf(text + k, sizeof text - k, i ? "r%d ::= " : "root ::= ", i);
            rand_expr(text, &k, sizeof text - 200, 0, n_rules, i);
            text[k++] = '\n';
            text[k] = 0;
        }
        /* r0 is root */
        for (i = 0; text[i]; i++)
            if (text[i] == 'r' && text[i + 1] == '0' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '(')) {
                memmove(text + i + 4, text + i + 2, k - (size_t)i - 1);
                memcpy(text + i, "root", 4);
                k += 2;
            }
        og = go_compile(text, k, e, sizeof e);
        st = xlarun_grammar_compile(text, k, &g, &err);
        if (og && og->nullable_repeat) { /* a repetition of something that can be empty: no verdict */
            skipped++;
            go_free(og);
            xlarun_grammar_free(g);
            continue;
        }
        if (!og && st == XLARUN_OK && strstr(e, "only through productions that match nothing")) {
            /* left recursion in productions that can never match: refused by the oracle (the
               contract refuses left recursion), compiled by the engine (it drops those
               productions first). Counted and reported, not failed. */
            n_lr_dead++;
            xlarun_grammar_free(g);
            continue;
        }
        if (og && st == XLARUN_OK) both++;
        else if (st == XLARUN_OK) engine_only++;
        else if (og) oracle_only++;
        CHECKF(!og == (st != XLARUN_OK), "grammar %s: oracle %s, engine %s", esc(text, k), og ? "compiles" : e,
               st == XLARUN_OK ? "compiles" : err.message);
        if (st != XLARUN_OK) CHECKF(st == XLARUN_ERR_GRAMMAR, "%s", xlarun_status_name(st));
        if (og && g) {
            go_rec *r = go_rec_new(og);
            vocab v;
            xlarun_matcher *m;
            make_vocab(&v, r, 10);
            m = new_matcher(g, &v);
            if (m) {
                allow_limits = 1;
                random_walks("random grammar", m, r, &v, 2, 8);
                allow_limits = 0;
                xlarun_matcher_free(m);
            }
            vocab_free(&v);
            go_rec_free(r);
        }
        n_random_grammars++;
        go_free(og);
        xlarun_grammar_free(g);
    }
    printf("random grammars: %d compiled by both, %d refused by both, %d left-recursive only in productions that match nothing "
           "(engine compiles, oracle refuses), %d with a repetition of a nullable item (not compared); %d walks stopped at the parse limits\n",
           both, n - both - (int)n_lr_dead - engine_only - oracle_only - skipped, (int)n_lr_dead, skipped, (int)n_limit_hits);
}

/* ---- refusals ------------------------------------------------------------------------------- */

typedef struct { const char *text, *want1, *want2; } refusal;

static void check_refusal(const char *t, size_t len, const char *want1, const char *want2, int oracle_too) {
    xlarun_grammar *g = NULL;
    xlarun_error err;
    size_t bytes = 0;
    char e[256];
    xlarun_status st;
    if (oracle_too) {
        go_grammar *og = go_compile(t, len, e, sizeof e);
        CHECKF(og == NULL, "the oracle compiles %s", esc(t, len));
        go_free(og);
    }
    st = xlarun_grammar_compile(t, len, &g, &err);
    CHECKF(st == XLARUN_ERR_GRAMMAR && g == NULL, "%s: %s", esc(t, len), st == XLARUN_OK ? "compiled" : xlarun_status_name(st));
    if (st == XLARUN_OK) { xlarun_grammar_free(g); return; }
    if (test_verbose) printf("refused %s: %s\n", esc(t, len), err.message);
    if (want1) CHECK_CONTAINS(err.message, want1);
    if (want2) CHECK_CONTAINS(err.message, want2);
    CHECK(xlarun_grammar_memory(t, len, &bytes, &err) == XLARUN_ERR_GRAMMAR);
    if (want1) CHECK_CONTAINS(err.message, want1);
}

static void test_refusals(void) {
    static const refusal bad[] = {
        /* syntax errors, with the line and column (1-based, in bytes) */
        {"root ::= \"abc", "line 1 column 10:", "string is not closed"},
        {"root ::= \"a\"\nx ::= [abc", "line 2 column 7:", "class is not closed"},
        {"root ::= (\"a\" | \"b\"", "line 1 column 20:", "opened on line 1 column 10"},
        {"root ::= \"a\" )", "line 1 column 14:", "closes no group"},
        {"root := \"a\"", "line 1 column 6:", "'::='"},
        {"root ::= \"a\"\n\n  ::= \"b\"", "line 3 column 3:", "rule name"},
        {"root ::= * \"a\"", "line 1 column 10:", "'*' follows nothing"},
        {"root ::= \"a\"{2,1}", "line 1 column 13:", "below"},
        {"root ::= \"a\"{x}", "line 1 column 13:", "count"},
        {"root ::= [z-a]", "line 1 column 12:", "backwards"},
        {"root ::= \"\\q\"", "line 1 column 11:", "unknown escape \\q"},
        {"root ::= \"\\x4\"", "line 1 column 11:", "2 hexadecimal digits"},
        {"root ::= \"\\U00110000\"", "line 1 column 11:", "past U+10FFFF"},
        {"root ::= \"\xff\"", "line 1 column 11:", "invalid UTF-8"},
        {"root ::= \"\xc3\xa9\xed\xa0\x80\"", "line 1 column 12:", "invalid UTF-8"}, /* columns count characters */
        {"root ::= \"\xc3\xa9\xf0\x9f\x98\x80\" @", "line 1 column 15:", "end of the line"},
        {"root ::= \"a\" @", "line 1 column 14:", "end of the line"},
        {"root ::= \"a\"\n\"b\"", "line 2 column 1:", "rule name"},
        {"root ::= \"a\"\r\n  x\r\n", "line 2", NULL},
        /* rules */
        {"root ::= value", "line 1 column 10:", "'value' is not defined"},
        {"root ::= \"a\"\n# c\nroot ::= \"b\"", "line 3 column 1:", "'root' is defined twice (first on line 1)"},
        {"rot ::= \"a\"", "root", NULL},
        {"", "root", NULL},
        {"# only a comment\n", "root", NULL},
        /* left recursion: direct, indirect, through rules that can match nothing */
        {"root ::= root \"a\" | \"b\"", "line 1 column 1:", "left recursion: 'root'"},
        {"root ::= a\na ::= b \"x\" | \"y\"\nb ::= a \"z\"", "line 2 column 1:", "left recursion: 'a'"},
        {"root ::= e? root \"x\" | \"y\"\ne ::= \"q\"", "line 1 column 1:", "left recursion: 'root'"},
        {"root ::= a\na ::= n a \"x\" | \"y\"\nn ::= \"m\"*", "line 2 column 1:", "left recursion: 'a'"},
        {"root ::= a \"!\"\na ::= (\"p\"? (\"q\"{0,2}) a) \"x\" | \"y\"", "line 2 column 1:", "left recursion: 'a'"},
        {"root ::= x\nx ::= y{0,3} z \"!\"\ny ::= \"y\"\nz ::= (\"\" | \"k\"*) root | \"z\"", "left recursion", NULL},
        /* empty language */
        {"root ::= \"a\" root", "line 1 column 1:", "matches no text"},
        {"root ::= a\na ::= \"x\" b\nb ::= \"y\" a", "line 1 column 1:", "matches no text"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_refusal(bad[i].text, strlen(bad[i].text), bad[i].want1, bad[i].want2, 1);
    /* over the size limits (the engine's: repetition counts 4096, nesting 64, 512 ranges in a
       class, 2^22 elements); the oracle has its own limits, so only the engine is asked */
    {
        char *t = (char *)malloc(8192);
        size_t k = 0;
        int j;
        check_refusal("root ::= \"a\"{4097}", 18, "line 1", "above 4096", 0);
        check_refusal("root ::= \"a\"{1,4097}", 20, "line 1", "above 4096", 0);
        k = (size_t)sprintf(t, "root ::= ");
        for (j = 0; j < 65; j++) t[k++] = '(';
        t[k++] = '"', t[k++] = 'a', t[k++] = '"';
        for (j = 0; j < 65; j++) t[k++] = ')';
        check_refusal(t, k, "line 1", "nested more than 64", 0);
        k = (size_t)sprintf(t, "root ::= [");
        for (j = 0; j < 513; j++) k += (size_t)sprintf(t + k, "\\u%04x", 0x100 + 2 * j);
        t[k++] = ']';
        check_refusal(t, k, "line 1", "more than 512 ranges", 0);
        {
            /* 1100 repetitions of 4096 copies each: past 2^22 elements */
            char *big = (char *)malloc(16 * 1100 + 16);
            size_t bk = (size_t)sprintf(big, "root ::=");
            for (j = 0; j < 1100; j++) bk += (size_t)sprintf(big + bk, " \"%c\"{4096}", 'a' + j % 26);
            check_refusal(big, bk, "line 1", "too large", 0);
            free(big);
        }
        free(t);
    }
    /* and just inside them: compiled */
    {
        xlarun_grammar *g = NULL;
        xlarun_error err;
        CHECKF(xlarun_grammar_compile("root ::= \"a\"{4096}", 18, &g, &err) == XLARUN_OK, "%s", err.message);
        xlarun_grammar_free(g);
        g = NULL; /* nested counts share their inner rule: no blow-up */
        CHECKF(xlarun_grammar_compile("root ::= ((\"ab\"{4096}){4096}){4096}", 35, &g, &err) == XLARUN_OK, "%s", err.message);
        xlarun_grammar_free(g);
    }
}

/* ---- memory --------------------------------------------------------------------------------- */

static void test_memory(void) {
    size_t i;
    for (i = 0; i < N_GRAMMARS; i += 3) {
        const char *t = grammars[i].text;
        size_t gb = 0, mb = 0;
        xlarun_error err;
        xlarun_grammar *g = NULL;
        unsigned char *gm, *mm;
        CHECKF(xlarun_grammar_memory(t, strlen(t), &gb, &err) == XLARUN_OK, "%s: %s", grammars[i].name, err.message);
        gm = (unsigned char *)malloc(gb + 1);
        CHECK(xlarun_grammar_compile_in(t, strlen(t), gm, gb - 1, &g, &err) == XLARUN_ERR_MEMORY);
        n_allocs = 0;
        CHECKF(xlarun_grammar_compile_in(t, strlen(t), gm, gb, &g, &err) == XLARUN_OK, "%s: %s", grammars[i].name, err.message);
        CHECKF(n_allocs == 0, "compile_in allocated %lu times", (unsigned long)n_allocs);
        if (g) {
            static const char *toks[] = {"{", "a", ":", "1", "}", "", "\xc3", "\xa9", "ab", "\"", " "};
            static const size_t lens[] = {1, 1, 1, 1, 1, 0, 1, 1, 2, 1, 1};
            int32_t end = 5;
            xlarun_matcher_options o;
            xlarun_matcher *m = NULL;
            memset(&o, 0, sizeof o);
            o.end_ids = &end;
            o.n_end = 1;
            CHECK(xlarun_matcher_memory(g, toks, lens, 11, &o, &mb, &err) == XLARUN_OK);
            mm = (unsigned char *)malloc(mb + 1);
            CHECK(xlarun_matcher_init(g, toks, lens, 11, &o, mm, mb - 1, &m, &err) == XLARUN_ERR_MEMORY);
            n_allocs = 0;
            CHECKF(xlarun_matcher_init(g, toks, lens, 11, &o, mm, mb, &m, &err) == XLARUN_OK, "%s", err.message);
            if (m) {
                uint32_t mask[1];
                int k;
                for (k = 0; k < 20; k++) {
                    int32_t id;
                    if (xlarun_matcher_allowed(m, mask, &err) != XLARUN_OK) break;
                    for (id = 0; id < 11; id++)
                        if (mask[0] >> id & 1 && id != 5) break;
                    if (id == 11) break;
                    xlarun_matcher_accept_token(m, id, &err);
                }
                xlarun_matcher_accept_bytes(m, "zz", 2, &err);
                xlarun_matcher_reset(m);
                CHECKF(n_allocs == 0, "%s: the matcher allocated %lu times", grammars[i].name, (unsigned long)n_allocs);
            }
            free(mm);
            /* also at an odd address: compile_in into gm + 1 */
        }
        free(gm);
    }
}

/* ---- the Llama 3.2 tokenizer and a JSON grammar ----------------------------------------------- */

/* GPT-2's byte-level alphabet: byte b is written as code point cp[b] */
static void byte_alphabet(uint32_t *cp) {
    int b, n = 0;
    for (b = 0; b < 256; b++) {
        if ((b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)) cp[b] = (uint32_t)b;
        else cp[b] = 256u + (uint32_t)n++;
    }
}

static void test_llama3(void) {
    xlarun_tokenizer *t = NULL;
    xlarun_error err;
    uint32_t cp[256], n, id;
    vocab v;
    size_t maxp;
    char *buf;
    int bad = 0;
    const int32_t *eos;
    size_t n_eos;
    if (xlarun_tokenizer_open(FIX "llama3", NULL, &t, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); return; }
    byte_alphabet(cp);
    n = xlarun_tokenizer_vocab_size(t);
    maxp = xlarun_tokenizer_max_piece(t);
    buf = (char *)malloc(maxp + 1);
    memset(&v, 0, sizeof v);
    v.n = n;
    v.tok = (char **)calloc(n, sizeof(char *));
    v.len = (size_t *)calloc(n, sizeof(size_t));
    for (id = 0; id < n; id++) {
        size_t len, tl, k = 0, o = 0;
        const char *text = xlarun_tokenizer_token_text(t, (int32_t)id, &tl);
        char want[256];
        len = xlarun_tokenizer_token_bytes(t, (int32_t)id, 0, NULL, 0);
        if (len > maxp) { CHECKF(0, "token %u: %lu bytes > max_piece", id, (unsigned long)len); len = maxp; }
        CHECK(xlarun_tokenizer_token_bytes(t, (int32_t)id, 0, buf, maxp) == len);
        v.tok[id] = (char *)malloc(len + 1);
        memcpy(v.tok[id], buf, len);
        v.len[id] = len;
        /* independently: the token's text mapped back through the byte-level alphabet */
        if (!text) { bad++; continue; }
        if (xlarun_tokenizer_is_special(t, (int32_t)id)) {
            if (len != tl || memcmp(buf, text, tl)) bad++;
            if (xlarun_tokenizer_token_bytes(t, (int32_t)id, XLARUN_DECODE_SKIP_SPECIAL, buf, maxp) != 0) bad++;
            continue;
        }
        while (k < tl && o < sizeof want) {
            uint32_t c;
            int b;
            unsigned char c0 = (unsigned char)text[k];
            if (c0 < 0x80) { c = c0; k++; }
            else if (c0 < 0xE0) { c = ((c0 & 0x1Fu) << 6) | (text[k + 1] & 0x3Fu); k += 2; }
            else { c = ((c0 & 0x0Fu) << 12) | ((text[k + 1] & 0x3Fu) << 6) | (text[k + 2] & 0x3Fu); k += 3; }
            for (b = 0; b < 256 && cp[b] != c; b++) {}
            if (b == 256) { o = sizeof want + 1; break; }
            want[o++] = (char)b;
        }
        if (o != len || memcmp(want, v.tok[id], len)) {
            if (bad < 5) CHECKF(0, "token %u %s: bytes %s, want %s", id, esc(text, tl), esc(v.tok[id], len), esc(want, o < sizeof want ? o : 0));
            bad++;
        }
    }
    CHECKF(bad == 0, "%d tokens with other bytes than their text", bad);
    CHECK(xlarun_tokenizer_token_bytes(t, (int32_t)n, 0, buf, maxp) == 0);
    CHECK(xlarun_tokenizer_token_bytes(t, -1, 0, buf, maxp) == 0);
    /* the ids of a text give back the text */
    {
        static const char text[] = "{\"name\": \"Zoë\", \"emoji\": \"😀🎉\", \"n\": [1, 2.5e-3, null]}";
        int32_t ids[128];
        size_t nid = 0, k, o = 0;
        char out[256];
        void *scratch = malloc(xlarun_tokenizer_scratch_bytes(t, sizeof text));
        CHECK(xlarun_tokenizer_encode(t, text, sizeof text - 1, XLARUN_ENCODE_NO_BOS, ids, 128, &nid, scratch, xlarun_tokenizer_scratch_bytes(t, sizeof text), &err) == XLARUN_OK);
        for (k = 0; k < nid; k++) { memcpy(out + o, v.tok[ids[k]], v.len[ids[k]]); o += v.len[ids[k]]; }
        CHECK(o == sizeof text - 1 && !memcmp(out, text, o));
        free(scratch);
    }
    n_eos = xlarun_tokenizer_eos_ids(t, &eos);
    v.n_end = n_eos < 4 ? n_eos : 4;
    memcpy(v.end, eos, sizeof(int32_t) * v.n_end);
    vocab_index(&v);
    {
        const gram *json = NULL;
        size_t i;
        char e[256];
        go_grammar *og;
        xlarun_grammar *g;
        for (i = 0; i < N_GRAMMARS; i++)
            if (!strcmp(grammars[i].name, "json")) json = &grammars[i];
        og = go_compile(json->text, strlen(json->text), e, sizeof e);
        g = compile_ok("json", json->text);
        if (og && g) {
            go_rec *r = go_rec_new(og);
            xlarun_matcher *m = new_matcher(g, &v);
            if (m) {
                uint32_t *em = (uint32_t *)malloc(4 * ((n + 31) / 32)), *om = (uint32_t *)malloc(4 * ((n + 31) / 32));
                uint32_t *ids = (uint32_t *)malloc(4 * n);
                int states = 0, max_states = slow() ? 12 : 300, w;
                for (w = 0; states < max_states; w++) {
                    int s, len = 2 + (int)rndn(24);
                    xlarun_matcher_reset(m);
                    go_pop_to(r, 0);
                    for (s = 0; s < len && states < max_states; s++) {
                        uint32_t k, id, j, n1 = 0;
                        if (test_verbose > 1) printf("state %s\n", esc(go_rec_bytes(r), go_rec_len(r)));
                        if (!compare_state("llama3 json", m, r, &v, em, om)) break;
                        states++;
                        k = mask_ids(&v, om, ids, 0);
                        if (!k) break;
                        /* half the time a one-byte token (the structure), else any allowed token */
                        for (j = 0; j < k; j++)
                            if (v.len[ids[j]] == 1) ids[n1++] = ids[j];
                        id = rndn(2) && n1 ? ids[rndn(n1)] : (mask_ids(&v, om, ids, 0), ids[rndn(k)]);
                        if (xlarun_matcher_accept_token(m, (int32_t)id, &err) != XLARUN_OK) { CHECKF(0, "%s", err.message); break; }
                        go_push_bytes(r, v.tok[id], v.len[id]);
                    }
                }
                if (test_verbose) printf("llama3 json: %d states x %u ids\n", states, n);
                free(em);
                free(om);
                free(ids);
                xlarun_matcher_free(m);
            }
            go_rec_free(r);
        }
        go_free(og);
        xlarun_grammar_free(g);
    }
    vocab_free(&v);
    free(buf);
    xlarun_tokenizer_close(t);
}

int main(int argc, char **argv) {
    size_t i;
    test_init(argc, argv);
    if (test_case("oracle self-check")) test_oracle_self();
    for (i = 0; i < N_GRAMMARS; i++)
        if (test_case("mask %s", grammars[i].name)) test_mask_agreement(&grammars[i]);
    for (i = 0; i < N_GRAMMARS; i++)
        if (test_case("generate %s", grammars[i].name)) test_generation(&grammars[i]);
    if (test_case("end ids")) test_end_ids();
    if (test_case("random grammars")) test_random_grammars();
    if (test_case("refusals")) test_refusals();
    if (test_case("memory")) test_memory();
    if (test_case("llama3 json")) test_llama3();
    printf("mask agreement: %llu states, %llu token bits compared, %llu accept_bytes/accept_token results, "
           "%llu complete/can_continue; %llu outputs generated, all sentences; %llu random grammars\n",
           n_mask_states, n_mask_bits, n_accept_cmp, n_state_cmp, n_outputs, n_random_grammars);
    return test_report("grammar");
}
