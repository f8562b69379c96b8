/* tests/grammar_oracle.h - an independent GBNF recognizer, the second opinion that tests/test_grammar.c
   and tests/fuzz/fuzz_grammar.c hold xlarun's grammar engine against. Written from the notation
   (xlarun.h's "Grammars" comment, llama.cpp's GBNF), not from the engine; simple over fast.

   go_compile parses GBNF text into a plain context-free grammar over Unicode scalar values:
   every group and repetition becomes a helper rule (x* -> R ::= x R | empty, x+ -> x x*,
   x? -> x | empty, x{m,n} -> m copies of x then n-m nested optionals, x{m,} -> m copies then
   x*), every string a sequence of one-character terminals, every class (and .) one terminal
   holding its set of code points as sorted ranges, surrogates removed. Checked like the
   contract says: syntax (line and column), undefined rule, rule defined twice, no root, left
   recursion among the named rules (through nullable prefixes), root matching nothing.
   Productions that cannot derive any string are then dropped, so that every Earley item left
   can still be completed: a non-empty Earley set means "a prefix of some sentence".

   go_rec is an Earley recognizer (with the Aycock-Horspool fix for nullable rules) driven one
   byte at a time, with a stack of states so that tokens can be tried and taken back:
   go_push(r, byte) returns 1 and advances if the bytes so far are still a prefix of a sentence,
   else 0 and leaves r as it was; go_pop_to(r, n) goes back to the state after n bytes. A byte
   string that ends inside a UTF-8 sequence is a prefix if and only if a code point whose
   encoding starts with those bytes could be scanned next (strict UTF-8: no overlong forms, no
   surrogates, nothing past U+10FFFF; anything else is not a prefix).

   C99, test-only, no global state; every allocation is freed by go_free / go_rec_free. */
#ifndef XLARUN_GRAMMAR_ORACLE_H
#define XLARUN_GRAMMAR_ORACLE_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define GO_UNUSED_ __attribute__((unused))
#else
#define GO_UNUSED_
#endif

#define GO_MAX_CP 0x10FFFFu
#define GO_MAX_PRODS 200000 /* the oracle's own size limit: grammars past it are "too big" */

typedef struct { uint32_t lo, hi; } go_range;
typedef struct { go_range *r; int n; } go_term; /* a set of code points: sorted, disjoint ranges */

/* symbols: s >= 0 a rule (nonterminal), s < 0 the terminal -s - 1 */
typedef struct { int lhs, n, *sym; } go_prod;

typedef struct go_grammar {
    int n_rules, cap_rules;
    char **name;            /* NULL for helper rules */
    int *defined;           /* the named rule's definition was seen */
    int *ref_line, *ref_col;/* where a named rule was first referenced */
    int n_prods, cap_prods;
    go_prod *prods;
    int n_terms, cap_terms;
    go_term *terms;
    int root, start;        /* start: the rule $start ::= root */
    int *first, *count, *by_lhs;  /* the productions of each rule: by_lhs[first[r] .. + count[r]) */
    unsigned char *nullable;
    int nullable_repeat;    /* a repetition of something that matches the empty string appeared */
    /* parsing */
    const char *src;
    size_t len, pos;
    int line, col;          /* of pos: 1-based; col counts bytes */
    int failed;
    char err[256];
} go_grammar;

static void go_fail_at(go_grammar *g, int line, int col, const char *fmt, ...) {
    va_list ap;
    int k;
    if (g->failed) return;
    g->failed = 1;
    k = snprintf(g->err, sizeof g->err, "line %d column %d: ", line, col);
    if (k < 0) k = 0;
    va_start(ap, fmt);
    vsnprintf(g->err + k, sizeof g->err - (size_t)k, fmt, ap);
    va_end(ap);
}
#define GO_FAIL(g, ...) go_fail_at((g), (g)->line, (g)->col, __VA_ARGS__)

static void *go_grow(void *p, int *cap, int need, size_t elem) {
    if (need <= *cap) return p;
    {
        int nc = *cap ? *cap * 2 : 16;
        void *q;
        while (nc < need) nc *= 2;
        q = realloc(p, (size_t)nc * elem);
        if (!q) { fprintf(stderr, "grammar_oracle: out of memory\n"); exit(2); }
        *cap = nc;
        return q;
    }
}

static int go_new_rule(go_grammar *g, const char *name, size_t nlen) {
    int r = g->n_rules, c = g->cap_rules;
    g->name = (char **)go_grow(g->name, &c, r + 1, sizeof *g->name);
    c = g->cap_rules;
    g->defined = (int *)go_grow(g->defined, &c, r + 1, sizeof *g->defined);
    c = g->cap_rules;
    g->ref_line = (int *)go_grow(g->ref_line, &c, r + 1, sizeof *g->ref_line);
    c = g->cap_rules;
    g->ref_col = (int *)go_grow(g->ref_col, &c, r + 1, sizeof *g->ref_col);
    g->cap_rules = c;
    g->name[r] = NULL;
    if (name) {
        g->name[r] = (char *)malloc(nlen + 1);
        if (!g->name[r]) exit(2);
        memcpy(g->name[r], name, nlen);
        g->name[r][nlen] = 0;
    }
    g->defined[r] = 0;
    g->ref_line[r] = g->ref_col[r] = 0;
    g->n_rules++;
    return r;
}

static int go_add_prod(go_grammar *g, int lhs, const int *sym, int n) {
    go_prod *p;
    if (g->n_prods >= GO_MAX_PRODS) { GO_FAIL(g, "grammar too big for the oracle"); return -1; }
    g->prods = (go_prod *)go_grow(g->prods, &g->cap_prods, g->n_prods + 1, sizeof *g->prods);
    p = &g->prods[g->n_prods];
    p->lhs = lhs;
    p->n = n;
    p->sym = (int *)malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!p->sym) exit(2);
    if (n) memcpy(p->sym, sym, (size_t)n * sizeof(int));
    return g->n_prods++;
}

/* a terminal from ranges (any order, may overlap, may hold surrogates); negate: the complement in
   [0, U+10FFFF]. Surrogates are never in the result. Returns its symbol. */
static int go_add_term(go_grammar *g, const go_range *in, int n, int negate) {
    go_range *a = (go_range *)malloc(sizeof(go_range) * (size_t)(n + 3)), *out;
    int i, j, m = 0, k = 0;
    if (!a) exit(2);
    if (n) memcpy(a, in, sizeof(go_range) * (size_t)n);
    /* sort (insertion: classes are small) and merge */
    for (i = 1; i < n; i++) {
        go_range t = a[i];
        for (j = i; j > 0 && a[j - 1].lo > t.lo; j--) a[j] = a[j - 1];
        a[j] = t;
    }
    for (i = 0; i < n; i++) {
        if (m && a[i].lo <= a[m - 1].hi + 1) { if (a[i].hi > a[m - 1].hi) a[m - 1].hi = a[i].hi; }
        else a[m++] = a[i];
    }
    if (negate) {
        go_range *c = (go_range *)malloc(sizeof(go_range) * (size_t)(m + 1));
        uint32_t next = 0;
        int cm = 0;
        if (!c) exit(2);
        for (i = 0; i < m; i++) {
            if (a[i].lo > next) { c[cm].lo = next; c[cm].hi = a[i].lo - 1; cm++; }
            next = a[i].hi + 1;
        }
        if (next <= GO_MAX_CP) { c[cm].lo = next; c[cm].hi = GO_MAX_CP; cm++; }
        free(a);
        a = c;
        m = cm;
    }
    /* remove the surrogates D800-DFFF (a range may split in two) */
    out = (go_range *)malloc(sizeof(go_range) * (size_t)(2 * m + 1));
    if (!out) exit(2);
    for (i = 0; i < m; i++) {
        uint32_t lo = a[i].lo, hi = a[i].hi;
        if (hi > GO_MAX_CP) hi = GO_MAX_CP;
        if (lo > hi) continue;
        if (hi < 0xD800 || lo > 0xDFFF) { out[k].lo = lo; out[k].hi = hi; k++; continue; }
        if (lo < 0xD800) { out[k].lo = lo; out[k].hi = 0xD7FF; k++; }
        if (hi > 0xDFFF) { out[k].lo = 0xE000; out[k].hi = hi; k++; }
    }
    free(a);
    g->terms = (go_term *)go_grow(g->terms, &g->cap_terms, g->n_terms + 1, sizeof *g->terms);
    g->terms[g->n_terms].r = out;
    g->terms[g->n_terms].n = k;
    return -(g->n_terms++) - 1;
}

static int go_term_has(const go_term *t, uint32_t c) {
    int lo = 0, hi = t->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c < t->r[mid].lo) hi = mid - 1;
        else if (c > t->r[mid].hi) lo = mid + 1;
        else return 1;
    }
    return 0;
}
static int go_term_meets(const go_term *t, uint32_t lo, uint32_t hi) {
    int i;
    for (i = 0; i < t->n; i++)
        if (t->r[i].lo <= hi && t->r[i].hi >= lo) return 1;
    return 0;
}

/* ---- the GBNF parser ------------------------------------------------------------------------ */

static int go_peek(const go_grammar *g, size_t ahead) {
    return g->pos + ahead < g->len ? (unsigned char)g->src[g->pos + ahead] : -1;
}
static void go_adv(go_grammar *g) {
    if (g->pos >= g->len) return;
    if (g->src[g->pos] == '\n') { g->line++; g->col = 1; }
    else g->col++;
    g->pos++;
}
static int go_is_name_char(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}
/* spaces, tabs and comments; new lines (and \r) too when nl */
static void go_space(go_grammar *g, int nl) {
    for (;;) {
        int c = go_peek(g, 0);
        if (c == ' ' || c == '\t') go_adv(g);
        else if (nl && (c == '\n' || c == '\r')) go_adv(g);
        else if (c == '#') { while (go_peek(g, 0) != -1 && go_peek(g, 0) != '\n') go_adv(g); }
        else return;
    }
}

/* one UTF-8 character of the grammar text (strict) */
static int go_utf8(go_grammar *g, uint32_t *cp) {
    int c = go_peek(g, 0), n, i;
    uint32_t v, min;
    if (c < 0x80) { *cp = (uint32_t)c; go_adv(g); return 1; }
    if (c >= 0xC2 && c <= 0xDF) { n = 1; v = (uint32_t)c & 0x1F; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 2; v = (uint32_t)c & 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 3; v = (uint32_t)c & 0x07; min = 0x10000; }
    else { GO_FAIL(g, "invalid UTF-8"); return 0; }
    for (i = 1; i <= n; i++) {
        int d = go_peek(g, (size_t)i);
        if (d < 0 || (d & 0xC0) != 0x80) { GO_FAIL(g, "invalid UTF-8"); return 0; }
        v = (v << 6) | ((uint32_t)d & 0x3F);
    }
    if (v < min || v > GO_MAX_CP || (v >= 0xD800 && v <= 0xDFFF)) { GO_FAIL(g, "invalid UTF-8"); return 0; }
    for (i = 0; i <= n; i++) go_adv(g);
    *cp = v;
    return 1;
}

static int go_hex(go_grammar *g, int digits, uint32_t *out) {
    uint32_t v = 0;
    int i;
    for (i = 0; i < digits; i++) {
        int c = go_peek(g, 0);
        if (c >= '0' && c <= '9') v = v * 16 + (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v = v * 16 + (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v = v * 16 + (uint32_t)(c - 'A' + 10);
        else { GO_FAIL(g, "bad hex escape"); return 0; }
        go_adv(g);
    }
    if (v > GO_MAX_CP) { GO_FAIL(g, "code point past U+10FFFF"); return 0; }
    *out = v;
    return 1;
}

/* a character inside "..." or [...]: an escape or one UTF-8 character */
static int go_char(go_grammar *g, uint32_t *cp) {
    int c = go_peek(g, 0);
    if (c < 0) { GO_FAIL(g, "unexpected end of input"); return 0; }
    if (c == '\n' || c == '\r') { GO_FAIL(g, "new line inside a string or class"); return 0; }
    if (c != '\\') return go_utf8(g, cp);
    go_adv(g);
    c = go_peek(g, 0);
    switch (c) {
    case 'n': *cp = '\n'; break;
    case 'r': *cp = '\r'; break;
    case 't': *cp = '\t'; break;
    case '\\': case '"': case '\'': case '[': case ']': case '-': *cp = (uint32_t)c; break;
    case 'x': go_adv(g); return go_hex(g, 2, cp);
    case 'u': go_adv(g); return go_hex(g, 4, cp);
    case 'U': go_adv(g); return go_hex(g, 8, cp);
    default: GO_FAIL(g, "unknown escape"); return 0;
    }
    go_adv(g);
    return 1;
}

static int go_alternatives(go_grammar *g, int lhs, int depth);

static int go_helper(go_grammar *g) { return go_new_rule(g, NULL, 0); }

/* R ::= s R | empty */
static int go_star(go_grammar *g, int s) {
    int r = go_helper(g), two[2];
    two[0] = s;
    two[1] = r;
    go_add_prod(g, r, two, 2);
    go_add_prod(g, r, NULL, 0);
    return r;
}

static int go_int(go_grammar *g, long *v) {
    long x = 0;
    int any = 0;
    while (go_peek(g, 0) >= '0' && go_peek(g, 0) <= '9') {
        x = x * 10 + (go_peek(g, 0) - '0');
        if (x > 1000000) { GO_FAIL(g, "number too big"); return 0; }
        go_adv(g);
        any = 1;
    }
    *v = any ? x : -1;
    return 1;
}

/* s{m,n} (n < 0: no upper bound) */
static int go_repeat(go_grammar *g, int s, long m, long n) {
    int r = go_helper(g), *seq, k = 0;
    long i;
    if ((n >= 0 ? n : m) + 2 > GO_MAX_PRODS) { GO_FAIL(g, "repetition too big for the oracle"); return r; }
    seq = (int *)malloc(sizeof(int) * (size_t)(m + 1));
    if (!seq) exit(2);
    for (i = 0; i < m; i++) seq[k++] = s;
    if (n < 0) seq[k++] = go_star(g, s);
    else if (n > m) {
        /* T_j ::= empty | s T_{j-1}, T_1 ::= empty | s */
        int t = go_helper(g), j;
        int one[1];
        one[0] = s;
        go_add_prod(g, t, NULL, 0);
        go_add_prod(g, t, one, 1);
        for (j = 2; j <= n - m && !g->failed; j++) {
            int u = go_helper(g), two[2];
            two[0] = s;
            two[1] = t;
            go_add_prod(g, u, NULL, 0);
            go_add_prod(g, u, two, 2);
            t = u;
        }
        seq[k++] = t;
    }
    go_add_prod(g, r, seq, k);
    free(seq);
    return r;
}

/* a sequence: items until | ) or the end of the rule; the symbols go to *out */
static int go_sequence(go_grammar *g, int depth, int **out, int *n_out) {
    int *seq = NULL, n = 0, cap = 0;
    int last = -1;       /* index in seq of the last item (postfix operators apply to it) */
    for (;;) {
        int c;
        go_space(g, depth > 0);
        if (g->failed) break;
        c = go_peek(g, 0);
        if (c == -1 || c == '\n' || c == '\r' || c == '|' || c == ')') break;
        if (c == '*' || c == '+' || c == '?' || c == '{') {
            int s;
            if (last < 0) { GO_FAIL(g, "repetition operator with nothing before it"); break; }
            s = seq[last];
            if (c == '*' || c == '+' || c == '?') go_adv(g);
            if (c == '*') seq[last] = go_star(g, s);
            else if (c == '+') seq[last] = go_repeat(g, s, 1, -1);
            else if (c == '?') {
                int r = go_helper(g), one[1];
                one[0] = s;
                go_add_prod(g, r, one, 1);
                go_add_prod(g, r, NULL, 0);
                seq[last] = r;
            } else {
                long m, mx;
                go_adv(g);
                go_space(g, 0);
                if (!go_int(g, &m)) break;
                go_space(g, 0);
                if (go_peek(g, 0) == '}') {
                    if (m < 0) { GO_FAIL(g, "empty repetition count"); break; }
                    mx = m;
                } else if (go_peek(g, 0) == ',') {
                    go_adv(g);
                    go_space(g, 0);
                    if (!go_int(g, &mx)) break;
                    go_space(g, 0);
                    if (m < 0) m = 0;
                    if (go_peek(g, 0) != '}') { GO_FAIL(g, "expected }"); break; }
                    if (mx >= 0 && mx < m) { GO_FAIL(g, "repetition maximum below its minimum"); break; }
                } else { GO_FAIL(g, "expected , or }"); break; }
                go_adv(g);
                seq[last] = go_repeat(g, s, m, mx);
            }
            continue;
        }
        cap = cap > n ? cap : (cap ? cap * 2 : 8);
        seq = (int *)realloc(seq, sizeof(int) * (size_t)cap);
        if (!seq) exit(2);
        if (c == '"') {
            int r = go_helper(g), *chars = NULL, nc = 0, cc = 0;
            go_adv(g);
            while (!g->failed && go_peek(g, 0) != '"') {
                uint32_t cp;
                go_range one;
                if (!go_char(g, &cp)) break;
                one.lo = one.hi = cp;
                chars = (int *)go_grow(chars, &cc, nc + 1, sizeof(int));
                chars[nc++] = go_add_term(g, &one, 1, 0);
            }
            if (!g->failed) go_adv(g);
            go_add_prod(g, r, chars, nc);
            free(chars);
            seq[n] = r;
        } else if (c == '[') {
            go_range *rs = NULL;
            int nr = 0, rc = 0, neg = 0;
            go_adv(g);
            if (go_peek(g, 0) == '^') { neg = 1; go_adv(g); }
            while (!g->failed && go_peek(g, 0) != ']') {
                uint32_t lo, hi;
                if (!go_char(g, &lo)) break;
                hi = lo;
                if (go_peek(g, 0) == '-' && go_peek(g, 1) != ']' && go_peek(g, 1) != -1) {
                    go_adv(g);
                    if (!go_char(g, &hi)) break;
                    if (hi < lo) { GO_FAIL(g, "class range out of order"); break; }
                }
                rs = (go_range *)go_grow(rs, &rc, nr + 1, sizeof *rs);
                rs[nr].lo = lo;
                rs[nr].hi = hi;
                nr++;
            }
            if (!g->failed) go_adv(g);
            seq[n] = go_add_term(g, rs, nr, neg);
            free(rs);
        } else if (c == '.') {
            go_range all;
            all.lo = 0;
            all.hi = GO_MAX_CP;
            go_adv(g);
            seq[n] = go_add_term(g, &all, 1, 0);
        } else if (c == '(') {
            int r = go_helper(g);
            go_adv(g);
            go_alternatives(g, r, depth + 1);
            if (!g->failed) {
                go_space(g, 1);
                if (go_peek(g, 0) != ')') GO_FAIL(g, "expected )");
                else go_adv(g);
            }
            seq[n] = r;
        } else if (go_is_name_char(c)) {
            size_t start = g->pos;
            int line = g->line, col = g->col, r, i;
            while (go_is_name_char(go_peek(g, 0))) go_adv(g);
            r = -1;
            for (i = 0; i < g->n_rules; i++)
                if (g->name[i] && strlen(g->name[i]) == g->pos - start && !memcmp(g->name[i], g->src + start, g->pos - start)) r = i;
            if (r < 0) r = go_new_rule(g, g->src + start, g->pos - start);
            if (!g->ref_line[r]) { g->ref_line[r] = line; g->ref_col[r] = col; }
            seq[n] = r;
        } else {
            GO_FAIL(g, "unexpected character");
            break;
        }
        if (g->failed) break;
        last = n++;
    }
    *out = seq;
    *n_out = n;
    return !g->failed;
}

/* alternatives into rule lhs */
static int go_alternatives(go_grammar *g, int lhs, int depth) {
    for (;;) {
        int *seq, n;
        go_sequence(g, depth, &seq, &n);
        if (!g->failed) go_add_prod(g, lhs, seq, n);
        free(seq);
        if (g->failed) return 0;
        go_space(g, depth > 0);
        if (go_peek(g, 0) != '|') return 1;
        go_adv(g);
        go_space(g, 1); /* a line that ends with | goes on */
    }
}

static void go_rule(go_grammar *g) {
    size_t start = g->pos;
    int line = g->line, col = g->col, r = -1, i;
    while (go_is_name_char(go_peek(g, 0))) go_adv(g);
    if (g->pos == start) { GO_FAIL(g, "expected a rule name"); return; }
    for (i = 0; i < g->n_rules; i++)
        if (g->name[i] && strlen(g->name[i]) == g->pos - start && !memcmp(g->name[i], g->src + start, g->pos - start)) r = i;
    if (r >= 0 && g->defined[r]) { go_fail_at(g, line, col, "rule defined twice"); return; }
    if (r < 0) r = go_new_rule(g, g->src + start, g->pos - start);
    g->defined[r] = 1;
    go_space(g, 0);
    if (go_peek(g, 0) != ':' || go_peek(g, 1) != ':' || go_peek(g, 2) != '=') { GO_FAIL(g, "expected ::="); return; }
    go_adv(g);
    go_adv(g);
    go_adv(g);
    go_alternatives(g, r, 0);
    if (g->failed) return;
    go_space(g, 0);
    {
        int c = go_peek(g, 0);
        if (c != -1 && c != '\n' && c != '\r') GO_FAIL(g, "unexpected character");
    }
}

/* the left-recursion check: can rule a reach a named rule target (or itself) leftmost? */
static int go_left_reaches(const go_grammar *g, int from, int target, unsigned char *seen) {
    int k;
    if (seen[from]) return 0;
    seen[from] = 1;
    for (k = 0; k < g->count[from]; k++) {
        const go_prod *p = &g->prods[g->by_lhs[g->first[from] + k]];
        int i;
        for (i = 0; i < p->n; i++) {
            int s = p->sym[i];
            if (s < 0) break;
            if (s == target || go_left_reaches(g, s, target, seen)) return 1;
            if (!g->nullable[s]) break;
        }
    }
    return 0;
}

static void go_index(go_grammar *g);
/* a named rule that reaches itself leftmost, or -1 */
static int go_find_left_rec(go_grammar *g) {
    unsigned char *seen = (unsigned char *)malloc((size_t)g->n_rules + 1);
    int i, found = -1;
    if (!seen) exit(2);
    for (i = 0; i < g->n_rules && found < 0; i++) {
        if (!g->name[i]) continue;
        memset(seen, 0, (size_t)g->n_rules + 1);
        if (go_left_reaches(g, i, i, seen)) found = i;
    }
    free(seen);
    return found;
}

static void go_index(go_grammar *g) {
    int i, *fill;
    free(g->first);
    free(g->count);
    free(g->by_lhs);
    g->first = (int *)calloc((size_t)g->n_rules + 1, sizeof(int));
    g->count = (int *)calloc((size_t)g->n_rules + 1, sizeof(int));
    g->by_lhs = (int *)malloc(sizeof(int) * (size_t)(g->n_prods + 1));
    fill = (int *)calloc((size_t)g->n_rules + 1, sizeof(int));
    if (!g->first || !g->count || !g->by_lhs || !fill) exit(2);
    for (i = 0; i < g->n_prods; i++) g->count[g->prods[i].lhs]++;
    for (i = 1; i < g->n_rules; i++) g->first[i] = g->first[i - 1] + g->count[i - 1];
    for (i = 0; i < g->n_prods; i++) {
        int l = g->prods[i].lhs;
        g->by_lhs[g->first[l] + fill[l]++] = i;
    }
    free(fill);
}

static void go_free(go_grammar *g) {
    int i;
    if (!g) return;
    for (i = 0; i < g->n_rules; i++) free(g->name[i]);
    for (i = 0; i < g->n_prods; i++) free(g->prods[i].sym);
    for (i = 0; i < g->n_terms; i++) free(g->terms[i].r);
    free(g->name);
    free(g->defined);
    free(g->ref_line);
    free(g->ref_col);
    free(g->prods);
    free(g->terms);
    free(g->first);
    free(g->count);
    free(g->by_lhs);
    free(g->nullable);
    free(g);
}

/* GBNF text -> grammar; NULL with the reason in err (which may be NULL) on any refusal */
GO_UNUSED_ static go_grammar *go_compile(const char *text, size_t len, char *err, size_t errcap) {
    go_grammar *g = (go_grammar *)calloc(1, sizeof *g);
    int i, changed, *keep_p, root = -1, left_rec;
    unsigned char *productive;
    if (!g) exit(2);
    g->src = text;
    g->len = len;
    g->line = g->col = 1;
    for (;;) {
        go_space(g, 1);
        if (go_peek(g, 0) == -1) break;
        go_rule(g);
        if (g->failed) break;
    }
    for (i = 0; !g->failed && i < g->n_rules; i++)
        if (g->name[i] && !g->defined[i]) go_fail_at(g, g->ref_line[i], g->ref_col[i], "undefined rule %s", g->name[i]);
    for (i = 0; !g->failed && i < g->n_rules; i++)
        if (g->name[i] && !strcmp(g->name[i], "root")) root = i;
    if (!g->failed && root < 0) go_fail_at(g, g->line, g->col, "no root rule");
    if (!g->failed) {
        int one[1];
        one[0] = root;
        g->root = root;
        g->start = go_helper(g);
        go_add_prod(g, g->start, one, 1);
    }
    if (g->failed) goto bad;
    go_index(g);
    /* nullable */
    g->nullable = (unsigned char *)calloc((size_t)g->n_rules + 1, 1);
    if (!g->nullable) exit(2);
    do {
        changed = 0;
        for (i = 0; i < g->n_prods; i++) {
            const go_prod *p = &g->prods[i];
            int k;
            if (g->nullable[p->lhs]) continue;
            for (k = 0; k < p->n && p->sym[k] >= 0 && g->nullable[p->sym[k]]; k++) {}
            if (k == p->n) { g->nullable[p->lhs] = 1; changed = 1; }
        }
    } while (changed);
    /* a repetition helper R ::= s R whose s is nullable (legal; noted for the tests) */
    for (i = 0; i < g->n_prods; i++) {
        const go_prod *p = &g->prods[i];
        if (!g->name[p->lhs] && p->n == 2 && p->sym[1] == p->lhs && p->sym[0] >= 0 && g->nullable[p->sym[0]])
            g->nullable_repeat = 1;
    }
    left_rec = go_find_left_rec(g);
    /* productive rules; productions with an unproductive symbol are dropped */
    productive = (unsigned char *)calloc((size_t)g->n_rules + 1, 1);
    keep_p = (int *)malloc(sizeof(int) * (size_t)(g->n_prods + 1));
    if (!productive || !keep_p) exit(2);
    do {
        changed = 0;
        for (i = 0; i < g->n_prods; i++) {
            const go_prod *p = &g->prods[i];
            int k;
            if (productive[p->lhs]) continue;
            for (k = 0; k < p->n; k++) {
                int s = p->sym[k];
                if (s >= 0 ? !productive[s] : g->terms[-s - 1].n == 0) break;
            }
            if (k == p->n) { productive[p->lhs] = 1; changed = 1; }
        }
    } while (changed);
    if (!productive[root]) {
        free(productive);
        free(keep_p);
        go_fail_at(g, 0, 0, "the root rule matches no text");
        goto bad;
    }
    {
        int n = 0;
        for (i = 0; i < g->n_prods; i++) {
            go_prod *p = &g->prods[i];
            int k, ok = 1;
            for (k = 0; k < p->n && ok; k++) {
                int s = p->sym[k];
                ok = s >= 0 ? productive[s] : g->terms[-s - 1].n != 0;
            }
            if (ok) g->prods[n++] = *p;
            else free(p->sym);
        }
        g->n_prods = n;
    }
    free(productive);
    free(keep_p);
    go_index(g);
    if (left_rec >= 0) {
        /* refused either way; the reason tells whether the left recursion survives dropping the
           productions that match nothing */
        if (go_find_left_rec(g) >= 0) go_fail_at(g, 0, 0, "left recursion in rule %s", g->name[left_rec]);
        else go_fail_at(g, 0, 0, "left recursion in rule %s (only through productions that match nothing)", g->name[left_rec]);
        goto bad;
    }
    g->src = NULL;
    return g;
bad:
    if (err && errcap) snprintf(err, errcap, "%s", g->err);
    go_free(g);
    return NULL;
}

/* ---- the Earley recognizer, byte by byte ---------------------------------------------------- */

typedef struct { int prod, dot, origin; } go_item;
typedef struct { int n_sets, n_items; unsigned char pend[4]; int n_pend; } go_frame;

typedef struct go_rec {
    const go_grammar *g;
    go_item *items;
    int n_items, cap_items;
    int *set_start;         /* set k: items [set_start[k], set_start[k + 1] or n_items) */
    int n_sets, cap_sets;
    go_frame *frames;       /* frames[i]: the state after i bytes */
    int n_frames, cap_frames;
    unsigned char *bytes;   /* the bytes taken so far */
    int cap_bytes;
} go_rec;

static int go_rec_add(go_rec *r, int prod, int dot, int origin) {
    int i, s = r->set_start[r->n_sets - 1];
    for (i = s; i < r->n_items; i++)
        if (r->items[i].prod == prod && r->items[i].dot == dot && r->items[i].origin == origin) return 0;
    r->items = (go_item *)go_grow(r->items, &r->cap_items, r->n_items + 1, sizeof *r->items);
    r->items[r->n_items].prod = prod;
    r->items[r->n_items].dot = dot;
    r->items[r->n_items].origin = origin;
    r->n_items++;
    return 1;
}

/* predict and complete in the last set until nothing new appears */
static void go_rec_closure(go_rec *r) {
    const go_grammar *g = r->g;
    int k = r->n_sets - 1, i;
    for (i = r->set_start[k]; i < r->n_items; i++) {
        go_item it = r->items[i];
        const go_prod *p = &g->prods[it.prod];
        if (it.dot < p->n) {
            int s = p->sym[it.dot];
            if (s >= 0) {
                int q;
                for (q = 0; q < g->count[s]; q++) go_rec_add(r, g->by_lhs[g->first[s] + q], 0, k);
                if (g->nullable[s]) go_rec_add(r, it.prod, it.dot + 1, it.origin);
            }
        } else {
            int j, lhs = p->lhs, end = it.origin == k ? r->n_items : r->set_start[it.origin + 1];
            for (j = r->set_start[it.origin]; j < end; j++) {
                go_item a = r->items[j];
                const go_prod *pa = &g->prods[a.prod];
                if (a.dot < pa->n && pa->sym[a.dot] == lhs) go_rec_add(r, a.prod, a.dot + 1, a.origin);
            }
        }
    }
}

static void go_rec_new_set(go_rec *r) {
    r->set_start = (int *)go_grow(r->set_start, &r->cap_sets, r->n_sets + 2, sizeof(int));
    r->set_start[r->n_sets++] = r->n_items;
}

static void go_rec_free(go_rec *r) {
    if (!r) return;
    free(r->items);
    free(r->set_start);
    free(r->frames);
    free(r->bytes);
    free(r);
}

/* a recognizer at the empty output; g must outlive it */
GO_UNUSED_ static go_rec *go_rec_new(const go_grammar *g) {
    go_rec *r = (go_rec *)calloc(1, sizeof *r);
    if (!r) exit(2);
    r->g = g;
    go_rec_new_set(r);
    go_rec_add(r, g->by_lhs[g->first[g->start]], 0, 0);
    go_rec_closure(r);
    r->frames = (go_frame *)go_grow(r->frames, &r->cap_frames, 1, sizeof *r->frames);
    memset(&r->frames[0], 0, sizeof r->frames[0]);
    r->frames[0].n_sets = r->n_sets;
    r->frames[0].n_items = r->n_items;
    r->n_frames = 1;
    return r;
}

GO_UNUSED_ static size_t go_rec_len(const go_rec *r) { return (size_t)(r->n_frames - 1); }
GO_UNUSED_ static const unsigned char *go_rec_bytes(const go_rec *r) { return r->bytes; }

/* scan code point c from the last set; 1 if the new set is not empty (else nothing changes) */
static int go_rec_scan(go_rec *r, uint32_t c) {
    const go_grammar *g = r->g;
    int k = r->n_sets - 1, i, end = r->n_items, n0 = r->n_items;
    go_rec_new_set(r);
    for (i = r->set_start[k]; i < end; i++) {
        go_item it = r->items[i];
        const go_prod *p = &g->prods[it.prod];
        if (it.dot < p->n && p->sym[it.dot] < 0 && go_term_has(&g->terms[-p->sym[it.dot] - 1], c))
            go_rec_add(r, it.prod, it.dot + 1, it.origin);
    }
    if (r->n_items == n0) { r->n_sets--; return 0; }
    go_rec_closure(r);
    return 1;
}

/* the code points whose UTF-8 encoding starts with these n (1..3) bytes of an unfinished
   sequence: [*lo, *hi]; 0 if none (the bytes are not the start of a valid sequence) */
static int go_utf8_partial(const unsigned char *b, int n, uint32_t *lo, uint32_t *hi) {
    int len, i, rest;
    uint32_t v, min;
    if (b[0] >= 0xC0 && b[0] <= 0xDF) { len = 2; v = b[0] & 0x1Fu; min = 0x80; }
    else if (b[0] >= 0xE0 && b[0] <= 0xEF) { len = 3; v = b[0] & 0x0Fu; min = 0x800; }
    else if (b[0] >= 0xF0 && b[0] <= 0xF7) { len = 4; v = b[0] & 0x07u; min = 0x10000; }
    else return 0;
    if (n >= len) return 0;
    for (i = 1; i < n; i++) {
        if ((b[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (b[i] & 0x3Fu);
    }
    rest = len - n;
    *lo = v << (6 * rest);
    *hi = (v << (6 * rest)) | ((1u << (6 * rest)) - 1);
    if (*lo < min) *lo = min;
    if (*hi > GO_MAX_CP) *hi = GO_MAX_CP;
    if (*lo > *hi) return 0;
    /* all surrogates? (a range inside D800-DFFF has no scalar value) */
    if (*lo >= 0xD800 && *hi <= 0xDFFF) return 0;
    return 1;
}

static int go_utf8_len(unsigned char b0) {
    return b0 < 0xC0 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
}

/* one byte more: 1 and taken if the bytes stay a prefix of a sentence, else 0 and nothing changes */
GO_UNUSED_ static int go_push(go_rec *r, unsigned char b) {
    go_frame f = r->frames[r->n_frames - 1];
    const go_grammar *g = r->g;
    int ok = 0;
    if (f.n_pend == 0 && b < 0x80) ok = go_rec_scan(r, b);
    else if (f.n_pend > 0 && (b & 0xC0) != 0x80) ok = 0;
    else if (f.n_pend == 0 && b < 0xC0) ok = 0; /* a continuation byte with no lead */
    else {
        f.pend[f.n_pend++] = b;
        if (f.n_pend == go_utf8_len(f.pend[0])) {
            uint32_t lo, hi, v;
            int i;
            /* the value; valid if the sequence without its last byte was a valid start and the
               last byte is a continuation byte (checked above) and v is in range */
            if (!go_utf8_partial(f.pend, f.n_pend - 1, &lo, &hi)) ok = 0;
            else {
                v = f.n_pend == 2 ? (f.pend[0] & 0x1Fu) : f.n_pend == 3 ? (f.pend[0] & 0x0Fu) : (f.pend[0] & 0x07u);
                for (i = 1; i < f.n_pend; i++) v = (v << 6) | (f.pend[i] & 0x3Fu);
                if (v < lo || v > hi || (v >= 0xD800 && v <= 0xDFFF)) ok = 0;
                else ok = go_rec_scan(r, v);
            }
            f.n_pend = 0;
        } else {
            uint32_t lo, hi;
            ok = 0;
            if (go_utf8_partial(f.pend, f.n_pend, &lo, &hi)) {
                int k = r->n_sets - 1, i;
                for (i = r->set_start[k]; i < r->n_items && !ok; i++) {
                    go_item it = r->items[i];
                    const go_prod *p = &g->prods[it.prod];
                    if (it.dot < p->n && p->sym[it.dot] < 0 && go_term_meets(&g->terms[-p->sym[it.dot] - 1], lo, hi)) ok = 1;
                }
            }
        }
    }
    if (!ok) return 0;
    f.n_sets = r->n_sets;
    f.n_items = r->n_items;
    r->frames = (go_frame *)go_grow(r->frames, &r->cap_frames, r->n_frames + 1, sizeof *r->frames);
    r->frames[r->n_frames++] = f;
    r->bytes = (unsigned char *)go_grow(r->bytes, &r->cap_bytes, r->n_frames, 1);
    r->bytes[r->n_frames - 2] = b;
    return 1;
}

/* back to the state after n bytes (n <= go_rec_len) */
GO_UNUSED_ static void go_pop_to(go_rec *r, size_t n) {
    if ((int)n + 1 >= r->n_frames) return;
    r->n_frames = (int)n + 1;
    r->n_sets = r->frames[n].n_sets;
    r->n_items = r->frames[n].n_items;
}

/* all n bytes or none: 1 if they were taken */
GO_UNUSED_ static int go_push_bytes(go_rec *r, const void *bytes, size_t n) {
    size_t at = go_rec_len(r), i;
    for (i = 0; i < n; i++)
        if (!go_push(r, ((const unsigned char *)bytes)[i])) { go_pop_to(r, at); return 0; }
    return 1;
}

/* the bytes so far are a sentence */
GO_UNUSED_ static int go_complete(const go_rec *r) {
    int k = r->n_sets - 1, i;
    if (r->frames[r->n_frames - 1].n_pend) return 0;
    for (i = r->set_start[k]; i < r->n_items; i++) {
        const go_item *it = &r->items[i];
        if (it->origin == 0 && r->g->prods[it->prod].lhs == r->g->start && it->dot == 1) return 1;
    }
    return 0;
}

/* some byte may follow */
GO_UNUSED_ static int go_can_continue(go_rec *r) {
    int b;
    for (b = 0; b < 256; b++)
        if (go_push(r, (unsigned char)b)) { go_pop_to(r, go_rec_len(r) - 1); return 1; }
    return 0;
}

/* whole-string questions */
GO_UNUSED_ static int go_is_prefix(const go_grammar *g, const void *s, size_t n) {
    go_rec *r = go_rec_new(g);
    int ok = go_push_bytes(r, s, n);
    go_rec_free(r);
    return ok;
}
GO_UNUSED_ static int go_is_sentence(const go_grammar *g, const void *s, size_t n) {
    go_rec *r = go_rec_new(g);
    int ok = go_push_bytes(r, s, n) && go_complete(r);
    go_rec_free(r);
    return ok;
}
#endif
