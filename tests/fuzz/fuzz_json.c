/* fuzz_json: the strict JSON reader. Any bytes go to xlarun__json_validate; a document it accepts
   is walked whole with the cursor functions (which trust a validated document), every string
   decoded and every number converted; then the same bytes are parsed as config.json and as
   generation_config.json. */
#include "fuzz.h"

static void walk(const xlarun__json *j, size_t v, int depth) {
    char buf[64];
    const char *why = NULL;
    size_t it, k, e, n;
    uint64_t u;
    FUZZ_CHECK(depth <= XLARUN_JSON_MAX_DEPTH + 1);
    FUZZ_CHECK(v < j->n);
    switch (j->s[v]) {
    case '{': case '[':
        it = v;
        while (xlarun__json_next(j, &it, &k, &e)) {
            if (j->s[v] == '{') {
                FUZZ_CHECK(k != XLARUN__NONE && j->s[k] == '"');
                FUZZ_CHECK(xlarun__json_skip(j, k) == xlarun__json_scan_string(j->s, j->n, k, &why));
                xlarun__json_eq(j, k, "key");
                xlarun__json_get(j, v, "dtype");
            }
            walk(j, e, depth + 1);
        }
        FUZZ_CHECK(xlarun__json_skip(j, v) <= j->n);
        break;
    case '"': {
        char *full;
        /* the skip (memchr to a quote after an even run of backslashes) ends where the validator's scan does */
        FUZZ_CHECK(xlarun__json_skip(j, v) == xlarun__json_scan_string(j->s, j->n, v, &why));
        n = xlarun__json_str(j, v, NULL, 0);
        full = (char *)malloc(n + 1);
        FUZZ_CHECK(full != NULL);
        FUZZ_CHECK(xlarun__json_str(j, v, full, n + 1) == n);
        FUZZ_CHECK(full[n] == 0);
        FUZZ_CHECK(fuzz_utf8_ok(full, n)); /* validated JSON decodes to valid UTF-8 */
        free(full);
        xlarun__json_str(j, v, buf, sizeof buf); /* NONE when it does not fit: fine */
        break;
    }
    default:
        if (xlarun__json_is_number(j, v)) {
            double d = xlarun__json_double(j, v);
            (void)d;
            xlarun__json_uint(j, v, UINT64_MAX, &u);
            xlarun__json_uint(j, v, 1000, &u);
        } else
            FUZZ_CHECK(j->s[v] == 't' || j->s[v] == 'f' || j->s[v] == 'n');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = (char *)malloc(size + 1);
    xlarun_error e;
    xlarun_status st;
    FUZZ_CHECK(s != NULL);
    if (size) memcpy(s, data, size);
    s[size] = 0; /* the library's readers NUL-terminate what they read */
    st = xlarun__json_validate(s, size, "fuzz.json", &e);
    fuzz_check_err(st, &e);
    if (st == XLARUN_OK) {
        xlarun__json j;
        xlarun_config c;
        static xlarun__plan p;      /* ~7 KB: not on the stack */
        static xlarun__cfglog keys; /* the keys read under an alias or defaulted, as inspect asks */
        xlarun_generation_config g;
        j.s = s;
        j.n = size;
        walk(&j, xlarun__json_ws(s, size, 0), 0);
        st = xlarun__parse_config(s, size, &c, &p, &keys, &e);
        fuzz_check_err(st, &e);
        st = xlarun_generation_config_parse(NULL, s, size, &g, &e);
        fuzz_check_err(st, &e);
        if (st == XLARUN_OK) fuzz_check_err(xlarun_sampling_check(&g.sampling, &e), &e);
    }
    free(s);
    return 0;
}
