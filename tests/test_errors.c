/* tests/test_errors.c - bad input: every rejection path of xlarun.h gets a case that checks the
   returned status AND what the message names (file, key or tensor, and what was expected).

   1. safetensors through the streaming API, over a memory-backed read callback
   2. model folders: a fixture copied to a temp dir with a tensor file broken (shapes, dtypes,
      names, biases, shards); each case goes through xlarun_model_open and xlarun_model_memory.
      config.json's keys, each architecture's included, are tested in tests/test_model.c
   3. API misuse: NULL arguments, exact memory sizes, sessions (ids, context, state after errors)
   4. loading through xlarun_io callbacks
   5. the rest of the API (safetensors accessors, tokenizer, sampling, stop strings, chat,
      generation_config.json, generators): NULL pointers, zero lengths, exact memory, freed objects

   Everything temporary lives under a mkdtemp("/tmp/xlarun-errors-XXXXXX") directory that is
   removed at the end. Run from the repository root (fixtures at tests/fixtures/). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdtemp, posix_memalign, ftruncate, lstat, opendir */
#endif
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "test_files.h"

#define FIX "tests/fixtures/"

/* status and message together: the returned status, err.status and a substring of err.message */
#define EXPECT(st, want, e, sub)                                                                \
    do {                                                                                        \
        xlarun_status st__ = (st);                                                              \
        CHECKF(st__ == (want) && (e).status == (want), "status %s (err.status %s), expected %s: %s", \
               xlarun_status_name(st__), xlarun_status_name((e).status), xlarun_status_name(want), \
               (e).message);                                                                    \
        CHECK_CONTAINS((e).message, (sub));                                                     \
    } while (0)

/* ======================================================================================== */
/* files                                                                                     */
/* the temporary folder, slurp, spit, mkdir_t, patch_bytes and EXPECT_MODEL: tests/test_files.h */

static void copy_file(const char *from, const char *to) {
    size_t n;
    unsigned char *b = slurp(from, &n);
    spit(to, b, n);
    free(b);
}

static void rm_rf(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char sub[1024];
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_rf(sub);
        }
        if (d) closedir(d);
        rmdir(path);
    } else
        unlink(path);
}

/* s with every occurrence of a replaced by b (malloc'd) */
static char *replace_all(const char *s, const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b), n = 0, cap;
    const char *p;
    char *out, *o;
    for (p = s; (p = strstr(p, a)) != NULL; p += la) n++;
    cap = strlen(s) + n * lb + 1;
    out = o = (char *)malloc(cap);
    for (p = s;;) {
        const char *q = strstr(p, a);
        if (!q) { strcpy(o, p); break; }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, b, lb);
        o += lb;
        p = q + la;
    }
    return out;
}

/* ======================================================================================== */
/* 1. safetensors streaming                                                                   */

typedef struct {
    const unsigned char *p;
    size_t n, pos;
    size_t chunk;     /* most bytes returned per call (0: no limit) */
    size_t fail_at;   /* return (size_t)-1 once pos reaches this (0: never) */
} memsrc;

static size_t mem_read(void *user, void *buf, size_t n) {
    memsrc *m = (memsrc *)user;
    size_t k = m->n - m->pos;
    if (m->fail_at && m->pos >= m->fail_at) return (size_t)-1;
    if (k > n) k = n;
    if (m->chunk && k > m->chunk) k = m->chunk;
    if (m->fail_at && m->pos + k > m->fail_at) k = m->fail_at - m->pos;
    memcpy(buf, m->p + m->pos, k);
    m->pos += k;
    return k;
}

/* a file: 8-byte little-endian header length, the header, data_len bytes of i & 255 */
static unsigned char *mk_st_len(const char *hdr, size_t hlen, uint64_t declared, size_t data_len, size_t *n) {
    unsigned char *b = (unsigned char *)malloc(8 + hlen + data_len + 1);
    size_t i;
    for (i = 0; i < 8; i++) b[i] = (unsigned char)(declared >> (8 * i));
    memcpy(b + 8, hdr, hlen);
    for (i = 0; i < data_len; i++) b[8 + hlen + i] = (unsigned char)(i & 255);
    *n = 8 + hlen + data_len;
    return b;
}
static unsigned char *mk_st(const char *hdr, size_t data_len, size_t *n) {
    return mk_st_len(hdr, strlen(hdr), strlen(hdr), data_len, n);
}

/* begin + read_header (+ with full: every tensor through st_next/st_read, then the end) */
static xlarun_status st_run_bytes(const unsigned char *b, size_t n, int size_known, int full, xlarun_error *e) {
    memsrc src;
    xlarun_st_reader r;
    xlarun_status st;
    void *mem;
    const xlarun_st_tensor *t;
    memset(&src, 0, sizeof src);
    src.p = b;
    src.n = n;
    src.chunk = 7;
    memset(e, 0, sizeof *e);
    st = xlarun_st_begin(&r, mem_read, &src, "t.safetensors", size_known ? n : 0, e);
    if (st != XLARUN_OK) return st;
    mem = malloc(xlarun_st_memory(&r));
    st = xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), e);
    while (st == XLARUN_OK && full) {
        unsigned char buf[5];
        size_t got;
        st = xlarun_st_next(&r, &t, e);
        if (st != XLARUN_OK || !t) break;
        do st = xlarun_st_read(&r, buf, sizeof buf, &got, e); while (st == XLARUN_OK && got);
    }
    free(mem);
    return st;
}

static xlarun_status st_run(const char *hdr, size_t data_len, int size_known, int full, xlarun_error *e) {
    size_t n;
    unsigned char *b = mk_st(hdr, data_len, &n);
    xlarun_status st = st_run_bytes(b, n, size_known, full, e);
    free(b);
    return st;
}

/* header with one tensor entry {"a": ENTRY} */
static xlarun_status st_entry(const char *entry, size_t data_len, xlarun_error *e) {
    char hdr[512];
    snprintf(hdr, sizeof hdr, "{\"a\":%s}", entry);
    return st_run(hdr, data_len, 1, 1, e);
}

#define T_F32_2(name, o0, o1) "\"" name "\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[" #o0 "," #o1 "]}"

static void test_st_begin(void) {
    xlarun_error e;
    xlarun_st_reader r;
    memsrc src;
    unsigned char b[16];
    memset(&src, 0, sizeof src);

    /* shorter than 8 bytes, empty */
    memset(b, 0, sizeof b);
    src.p = b; src.n = 5;
    EXPECT(xlarun_st_begin(&r, mem_read, &src, "short.safetensors", 5, &e), XLARUN_ERR_FORMAT, e,
           "short.safetensors: file is 5 bytes, too short for the 8-byte header length");
    src.pos = 0; src.n = 0;
    EXPECT(xlarun_st_begin(&r, mem_read, &src, "empty.safetensors", 0, &e), XLARUN_ERR_FORMAT, e,
           "empty.safetensors: file is 0 bytes");

    /* header length past the end: known size -> begin; unknown -> the stream ends in the header */
    {
        size_t n;
        unsigned char *f = mk_st_len("{}", 2, 1000, 0, &n);
        xlarun_status st;
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n;
        EXPECT(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e), XLARUN_ERR_FORMAT, e,
               "header length 1000 runs past the end of the file (10 bytes)");
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n;
        st = xlarun_st_begin(&r, mem_read, &src, "t.safetensors", 0, &e);
        CHECK(st == XLARUN_OK);
        if (st == XLARUN_OK) {
            void *mem = malloc(xlarun_st_memory(&r));
            EXPECT(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e), XLARUN_ERR_FORMAT, e,
                   "t.safetensors: the file ends inside its 1000-byte header");
            free(mem);
        }
        free(f);
    }

    /* header lengths over the limit: rejected by begin, before any memory is asked for */
    {
        static const uint64_t lens[2] = {UINT64_MAX, 100000001u};
        static const char *const want[2] = {"header length 18446744073709551615 is over the limit of 100000000 bytes",
                                            "header length 100000001 is over the limit of 100000000 bytes"};
        int i, k;
        for (i = 0; i < 2; i++)
            for (k = 0; k < 2; k++) { /* file size unknown, then known (small) */
                size_t n;
                unsigned char *f = mk_st_len("{}", 2, lens[i], 0, &n);
                memset(&src, 0, sizeof src);
                src.p = f; src.n = n;
                EXPECT(xlarun_st_begin(&r, mem_read, &src, "big.safetensors", k ? n : 0, &e), XLARUN_ERR_FORMAT, e, want[i]);
                CHECK(xlarun_st_memory(&r) == 0);
                EXPECT(xlarun_st_read_header(&r, b, sizeof b, &e), XLARUN_ERR_ARGUMENT, e, "call xlarun_st_begin first");
                CHECK(src.pos == 8); /* nothing read past the length */
                free(f);
            }
    }

    /* a header length exactly at the limit is not refused as over it: known size -> it runs past
       the end; unknown size -> begin is fine and the memory asked for is bounded by the length,
       and nothing is read (or allocated) until the caller gives that memory */
    {
        size_t n, need;
        unsigned char *f = mk_st_len("{}", 2, XLARUN_MAX_HEADER_BYTES, 0, &n);
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n;
        EXPECT(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e), XLARUN_ERR_FORMAT, e,
               "header length 100000000 runs past the end of the file (10 bytes)");
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n;
        CHECK(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", 0, &e) == XLARUN_OK);
        need = xlarun_st_memory(&r);
        CHECK(need > XLARUN_MAX_HEADER_BYTES && need < 4u * XLARUN_MAX_HEADER_BYTES);
        EXPECT(xlarun_st_read_header(&r, b, sizeof b, &e), XLARUN_ERR_MEMORY, e, "the header needs");
        CHECK_CONTAINS(e.message, "bytes of memory, 16 given");
        CHECK(src.pos == 8);
        free(f);
    }

    /* header too small to hold an object */
    {
        size_t n;
        unsigned char *f = mk_st_len("{", 1, 1, 0, &n);
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n;
        EXPECT(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e), XLARUN_ERR_FORMAT, e,
               "header length 1 cannot hold a JSON object");
        free(f);
    }

    /* NULL read function, read errors */
    EXPECT(xlarun_st_begin(&r, NULL, &src, "t.safetensors", 0, &e), XLARUN_ERR_ARGUMENT, e, "NULL reader or read function");
    EXPECT(xlarun_st_begin(NULL, mem_read, &src, "t.safetensors", 0, &e), XLARUN_ERR_ARGUMENT, e, "NULL reader or read function");
    {
        size_t n;
        unsigned char *f = mk_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, &n);
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n; src.fail_at = 4;
        EXPECT(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e), XLARUN_ERR_IO, e, "t.safetensors: read error");
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n; src.fail_at = 20;
        if (xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e) == XLARUN_OK) {
            void *mem = malloc(xlarun_st_memory(&r));
            EXPECT(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e), XLARUN_ERR_IO, e,
                   "t.safetensors: read error in the header");
            free(mem);
        } else CHECK(!"begin");
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n; src.fail_at = n - 3;
        if (xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e) == XLARUN_OK) {
            void *mem = malloc(xlarun_st_memory(&r));
            const xlarun_st_tensor *t;
            unsigned char buf[8];
            size_t got;
            CHECK(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e) == XLARUN_OK);
            CHECK(xlarun_st_next(&r, &t, &e) == XLARUN_OK && t);
            EXPECT(xlarun_st_read(&r, buf, 8, &got, &e), XLARUN_ERR_IO, e, "t.safetensors: read error at byte");
            free(mem);
        } else CHECK(!"begin");
        free(f);
    }
}

static void test_st_json(void) {
    xlarun_error e;
    static const struct { const char *hdr; const char *why; } bad[] = {
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},}", "expected a string key"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1,],\"data_offsets\":[0,4]}}", "unexpected character"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}", "unexpected end of input"},
        {"{\"abc", "unterminated string"},
        {"{\"a\\xb\":{}}", "invalid escape"},
        {"{\"a\\u12G4\":{}}", "invalid \\u escape"},
        {"{\"a\xff\":{}}", "invalid UTF-8 in a string"},
        {"{\"a\xc0\x80\":{}}", "invalid UTF-8 in a string"},        /* overlong */
        {"{\"a\xed\xa0\x80\":{}}", "invalid UTF-8 in a string"},    /* encoded surrogate */
        {"{\"a\xf4\x90\x80\x80\":{}}", "invalid UTF-8 in a string"}, /* > U+10FFFF */
        {"{\"a\\ud800\":{}}", "unpaired surrogate escape"},
        {"{\"a\\ud800\\u0041\":{}}", "unpaired surrogate escape"},
        {"{\"a\\udc00\":{}}", "unpaired surrogate escape"},
        {"{\"a\tb\":{}}", "control character in a string"},
        {"{\"a\":01}", "expected ',' or '}'"},
        {"{\"a\":1.}", "invalid number"},
        {"{\"a\":-}", "invalid number"},
        {"{\"a\":1e+}", "invalid number"},
        {"{\"a\":tru}", "unexpected character"},
        {"{\"a\" 1}", "expected ':'"},
        {"{} {}", "trailing characters after the value"},
        {"{\"a\":[1 2]}", "expected ',' or ']'"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT(st_run(bad[i].hdr, 0, 1, 0, &e), XLARUN_ERR_FORMAT, e, bad[i].why);
        CHECK_CONTAINS(e.message, "t.safetensors: invalid JSON at line 1 column");
    }
    /* the position: line and column of the offending byte */
    EXPECT(st_run("{\n  \"a\": x}", 0, 1, 0, &e), XLARUN_ERR_FORMAT, e, "invalid JSON at line 2 column 8: unexpected character");

    /* 100,000 nested '[': the depth limit, not a crash */
    {
        size_t n = 100000, fn;
        char *deep = (char *)malloc(n + 1);
        unsigned char *f;
        memset(deep, '[', n);
        deep[n] = 0;
        f = mk_st(deep, 0, &fn);
        EXPECT(st_run_bytes(f, fn, 1, 0, &e), XLARUN_ERR_FORMAT, e, "nesting deeper than 64");
        free(f);
        /* 64 deep is fine for the validator, 65 is not */
        memset(deep, '[', 64);
        memset(deep + 64, ']', 64);
        deep[128] = 0;
        CHECK(xlarun__json_validate(deep, 128, "doc", &e) == XLARUN_OK);
        memset(deep, '[', 65);
        memset(deep + 65, ']', 65);
        deep[130] = 0;
        EXPECT(xlarun__json_validate(deep, 130, "doc", &e), XLARUN_ERR_FORMAT, e, "doc: invalid JSON at line 1 column 65: nesting deeper than 64");
        free(deep);
    }
    EXPECT(xlarun__json_validate("", 0, "doc", &e), XLARUN_ERR_FORMAT, e, "unexpected end of input");
    EXPECT(xlarun__json_validate("  ", 2, "doc", &e), XLARUN_ERR_FORMAT, e, "unexpected end of input");
    EXPECT(xlarun__json_validate("[\"a\\", 4, "doc", &e), XLARUN_ERR_FORMAT, e, "unterminated string");
    EXPECT(xlarun__json_validate("\"\xe2\x82\"", 4, "doc", &e), XLARUN_ERR_FORMAT, e, "invalid UTF-8"); /* cut sequence */
    CHECK(xlarun__json_validate("{\"a\":[1,-0.5e+3,true,false,null,{}],\"b\":\"\\ud83d\\ude00\xc3\xa9\"}", 57, "doc", &e) == XLARUN_OK);
    {   /* skipping a string (a validated document): a '"' ends it after an even run of '\\' */
        static const char doc[] = "{\"a\\\"\": [\"\\\\\", \"x\\\\\\\"y\", {\"\\\\\\\\\": \"\\\"\"}, \"\\\\\\\\\\\\\\\"\\\\\"], \"b\": 7}";
        xlarun__json j;
        size_t it, v, n = 0, arr;
        j.s = doc;
        j.n = sizeof doc - 1;
        CHECK(xlarun__json_validate(doc, j.n, "doc", &e) == XLARUN_OK);
        arr = (size_t)(strchr(doc, '[') - doc);   /* the list's end, before walking it (a wrong skip can loop) */
        if (xlarun__json_skip(&j, arr) != (size_t)(strstr(doc, "], \"b\"") - doc) + 1) {
            CHECK(0);
            return;
        }
        v = xlarun__json_get(&j, 0, "b");
        CHECK(v != XLARUN__NONE && doc[v] == '7');
        arr = xlarun__json_get(&j, 0, "a\"");
        CHECK(arr != XLARUN__NONE && doc[arr] == '[');
        it = arr;
        while (arr != XLARUN__NONE && xlarun__json_next(&j, &it, NULL, &v)) n++;
        CHECK(n == 4);
    }
}

static void test_st_header(void) {
    xlarun_error e;
    /* structure */
    EXPECT(st_run("[]", 0, 1, 0, &e), XLARUN_ERR_FORMAT, e, "t.safetensors: header is not a JSON object");
    EXPECT(st_run("  \"x\"", 0, 1, 0, &e), XLARUN_ERR_FORMAT, e, "header is not a JSON object");
    EXPECT(st_entry("[1]", 0, &e), XLARUN_ERR_FORMAT, e, "t.safetensors: tensor 'a': entry is not an object");
    EXPECT(st_entry("{\"shape\":[1],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e, "tensor 'a': missing \"dtype\"");
    /* a field twice is refused (the reference reader's serde does), whichever copy is valid */
    EXPECT(st_entry("{\"dtype\":\"F32\",\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': duplicate field \"dtype\"");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[1],\"shape\":[1],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': duplicate field \"shape\"");
    EXPECT(st_entry("{\"data_offsets\":[0,8],\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': duplicate field \"data_offsets\"");
    EXPECT(st_run("{\"__metadata__\":{},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"__metadata__\":{}}", 4, 1, 1, &e),
           XLARUN_ERR_FORMAT, e, "t.safetensors: duplicate key \"__metadata__\"");
    /* data that would end past byte 2^64: said so, not a wrapped byte number */
    /* (eight U8 tensors of 2^61-1 bytes each, the most one tensor's bit count allows) */
    EXPECT(st_run("{\"t0\":{\"dtype\":\"U8\",\"shape\":[2305843009213693951],\"data_offsets\":[0,2305843009213693951]},\"t1\":{\"dtype\":\"U8\",\"shape\":[2305843009213693951],\"data_offsets\":[2305843009213693951,4611686018427387902]},\"t2\":{\"dtype\":\"U8\",\"shape\":[2305843009213693951],\"data_offsets\":[4611686018427387902,6917529027641081853]},\"t3\":{\"dtype\":\"U8\",\"shape\":[2305843009213693951],\"data_offsets\":[6917529027641081853,9223372036854775804]},\"t4\":{\"dtype\":\"U8\",\"shape\":[2305843009213693951],\"data_offsets\":[9223372036854775804,11529215046068469755]},\"t5\":{\"dtype\":\"U8\",\"shape\":[2305843009213693951],\"data_offsets\":[11529215046068469755,13835058055282163706]},\"t6\":{\"dtype\":\"U8\",\"shape\":[2305843009213693951],\"data_offsets\":[13835058055282163706,16140901064495857657]},\"t7\":{\"dtype\":\"U8\",\"shape\":[2305843009213693951],\"data_offsets\":[16140901064495857657,18446744073709551608]}}", 4, 1, 1, &e),
           XLARUN_ERR_FORMAT, e, "the header describes 18446744073709551608 bytes of data, past byte 2^64, but the file has");
    /* a call that succeeds clears an earlier error */
    {
        xlarun_st_reader r;
        memsrc src;
        size_t n;
        unsigned char *b = mk_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, &n);
        void *mem;
        memset(&src, 0, sizeof src);
        src.p = b;
        src.n = n;
        src.chunk = 7;
        e.status = XLARUN_ERR_FORMAT;
        strcpy(e.message, "stale");
        EXPECT(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e), XLARUN_OK, e, "");
        CHECK(e.message[0] == 0);
        mem = malloc(xlarun_st_memory(&r));
        e.status = XLARUN_ERR_FORMAT;
        strcpy(e.message, "stale");
        EXPECT(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e), XLARUN_OK, e, "");
        CHECK(e.message[0] == 0);
        free(mem);
        free(b);
    }
    EXPECT(st_entry("{\"dtype\":\"F32\",\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e, "tensor 'a': missing \"shape\"");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[1]}", 4, &e), XLARUN_ERR_FORMAT, e, "tensor 'a': missing \"data_offsets\"");
    /* dtype */
    EXPECT(st_entry("{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e, "tensor 'a': unknown dtype F33");
    EXPECT(st_entry("{\"dtype\":\"f32\",\"shape\":[1],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e, "unknown dtype f32");
    EXPECT(st_entry("{\"dtype\":32,\"shape\":[1],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e, "unknown dtype (not a string)");
    /* shape */
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': shape entries must be non-negative integers");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': shape entries must be non-negative integers");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[1e0],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "shape entries must be non-negative integers");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[\"1\"],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "shape entries must be non-negative integers");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[18446744073709551616],\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "shape entries must be non-negative integers");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":4,\"data_offsets\":[0,4]}", 4, &e), XLARUN_ERR_FORMAT, e, "tensor 'a': shape is not an array");
    EXPECT(st_entry("{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}", 1, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': more than 8 dimensions");
    CHECK(st_entry("{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}", 1, &e) == XLARUN_OK); /* 8 is fine */
    /* data_offsets */
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': data_offsets must be two non-negative integers");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': data_offsets must be two non-negative integers");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,-4]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "data_offsets must be two non-negative integers");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":{\"a\":0}}", 4, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': data_offsets is not an array");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[4,0]}", 4, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': data_offsets [4,0] are reversed");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}", 8, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': data_offsets [0,8] hold 8 bytes, but F32 [3] needs 12");
    EXPECT(st_entry("{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[0,24]}", 24, &e), XLARUN_ERR_FORMAT, e,
           "hold 24 bytes, but BF16 [2,3] needs 12");
    /* sizes that overflow */
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[1099511627776,1099511627776],\"data_offsets\":[0,4]}", 4, &e),
           XLARUN_ERR_FORMAT, e, "tensor 'a': element count overflows");
    EXPECT(st_entry("{\"dtype\":\"F32\",\"shape\":[4611686018427387904],\"data_offsets\":[0,4]}", 4, &e),
           XLARUN_ERR_FORMAT, e, "tensor 'a': byte size overflows");
    EXPECT(st_entry("{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}", 2, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a': 3 elements of F4 are not a whole number of bytes");
    CHECK(st_entry("{\"dtype\":\"F4\",\"shape\":[4],\"data_offsets\":[0,2]}", 2, &e) == XLARUN_OK);
    CHECK(st_entry("{\"dtype\":\"F6_E2M3\",\"shape\":[4],\"data_offsets\":[0,3]}", 3, &e) == XLARUN_OK);

    /* layout of the data section */
    EXPECT(st_run("{" T_F32_2("a", 0, 8) "," T_F32_2("b", 12, 20) "}", 20, 1, 1, &e), XLARUN_ERR_FORMAT, e,
           "t.safetensors: tensor 'b' starts at byte 12, but 'a' ends at 8 (a gap)");
    EXPECT(st_run("{" T_F32_2("a", 0, 8) "," T_F32_2("b", 4, 12) "}", 12, 1, 1, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'b' starts at byte 4, but 'a' ends at 8 (they overlap)");
    EXPECT(st_run("{" T_F32_2("a", 0, 8) "," T_F32_2("b", 0, 8) "}", 8, 1, 1, &e), XLARUN_ERR_FORMAT, e,
           "they overlap");
    EXPECT(st_run("{" T_F32_2("a", 4, 12) "}", 12, 1, 1, &e), XLARUN_ERR_FORMAT, e,
           "tensor 'a' starts at byte 4 of the data; the first must start at 0");
    EXPECT(st_run("{" T_F32_2("a", 0, 8) "," T_F32_2("a", 8, 16) "}", 16, 1, 1, &e), XLARUN_ERR_FORMAT, e,
           "t.safetensors: duplicate tensor name 'a'");
    EXPECT(st_run("{" T_F32_2("a", 0, 8) "," T_F32_2("\\u0061", 8, 16) "}", 16, 1, 1, &e), XLARUN_ERR_FORMAT, e,
           "duplicate tensor name 'a'"); /* equal after decoding */
    EXPECT(st_run("{" T_F32_2("", 0, 8) "}", 8, 1, 1, &e), XLARUN_ERR_FORMAT, e, "t.safetensors: a tensor has an empty name");
    EXPECT(st_run("{" T_F32_2("a\\u0000b", 0, 8) "}", 8, 1, 1, &e), XLARUN_ERR_FORMAT, e, "a tensor name contains a NUL character");
    /* a zero-size tensor may share its offset with the next one: valid */
    CHECK(st_run("{" T_F32_2("b", 0, 8) ",\"z\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}}", 8, 1, 1, &e) == XLARUN_OK);
    CHECK(st_run("{\"z\":{\"dtype\":\"F32\",\"shape\":[2,0],\"data_offsets\":[8,8]}," T_F32_2("b", 0, 8) "}", 8, 1, 1, &e) == XLARUN_OK);
    CHECK(st_run("{\"z\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0, 1, 1, &e) == XLARUN_OK);
    CHECK(st_run("{}", 0, 1, 1, &e) == XLARUN_OK);
    /* ... between two tensors, sharing its offset with the next (and the previous one's end) */
    CHECK(st_run("{" T_F32_2("a", 0, 8) ",\"z\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,8]}," T_F32_2("b", 8, 16) "}",
                 16, 1, 1, &e) == XLARUN_OK);
    /* ... two zero-size tensors at one offset */
    CHECK(st_run("{\"z\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},\"y\":{\"dtype\":\"BF16\",\"shape\":[0,5],\"data_offsets\":[0,0]}}",
                 0, 1, 1, &e) == XLARUN_OK);
    /* but a zero-size tensor whose offset lies inside another tensor is an overlap (as the
       safetensors reader: sorted by offsets, each must start where the previous one ends) */
    EXPECT(st_run("{" T_F32_2("a", 0, 8) ",\"z\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[4,4]}}", 8, 1, 1, &e),
           XLARUN_ERR_FORMAT, e, "t.safetensors: tensor 'z' starts at byte 4, but 'a' ends at 8 (they overlap)");
    /* ... or past the end of the data (a gap) */
    EXPECT(st_run("{" T_F32_2("a", 0, 8) ",\"z\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[12,12]}}", 8, 1, 1, &e),
           XLARUN_ERR_FORMAT, e, "tensor 'z' starts at byte 12, but 'a' ends at 8 (a gap)");
    /* extra fields in an entry are ignored, as serde does */
    CHECK(st_run("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":[1]}}", 8, 1, 1, &e) == XLARUN_OK);

    /* absurd claimed sizes: a 2^60-byte tensor in a 105-byte file. Known size: refused by the
       header; unknown size: the stream ends inside it. Nothing of that size is allocated. */
    EXPECT(st_run("{\"a\":{\"dtype\":\"U8\",\"shape\":[1152921504606846976],\"data_offsets\":[0,1152921504606846976]}}", 8, 1, 1, &e),
           XLARUN_ERR_FORMAT, e, "t.safetensors: the header describes 1152921504606846976 bytes of data ending at byte 1152921504606847073, but the file has 105 bytes");
    EXPECT(st_run("{\"a\":{\"dtype\":\"U8\",\"shape\":[1152921504606846976],\"data_offsets\":[0,1152921504606846976]}}", 8, 0, 1, &e),
           XLARUN_ERR_FORMAT, e, "t.safetensors: truncated: the file ends at byte 105, inside tensor 'a'");
    /* eight contiguous tensors of 2^61-1 bytes: the data section ends at 2^64-8 */
    {
        char h[1024];
        size_t o = 0;
        int i;
        unsigned long long s = (1ull << 61) - 1;
        o += (size_t)sprintf(h + o, "{");
        for (i = 0; i < 8; i++)
            o += (size_t)sprintf(h + o, "%s\"t%d\":{\"dtype\":\"U8\",\"shape\":[%llu],\"data_offsets\":[%llu,%llu]}",
                                 i ? "," : "", i, s, s * (unsigned long long)i, s * (unsigned long long)(i + 1));
        sprintf(h + o, "}");
        EXPECT(st_run(h, 16, 1, 1, &e), XLARUN_ERR_FORMAT, e, "t.safetensors: the header describes 18446744073709551608 bytes of data");
        CHECK_CONTAINS(e.message, "but the file has 870 bytes");
        EXPECT(st_run(h, 16, 0, 1, &e), XLARUN_ERR_FORMAT, e, "t.safetensors: truncated: the file ends at byte 870, inside tensor 't0'");
    }

    /* tensor count: no limit of its own; the table is sized from the header length (the
       shortest entry bounds it), so the densest possible header works */
    {
        size_t cap = 5000 * 64 + 16, o = 0, n;
        char *h = (char *)malloc(cap);
        unsigned char *f;
        memsrc src;
        xlarun_st_reader r;
        void *mem;
        int i;
        h[o++] = '{';
        for (i = 0; i < 5000; i++)
            o += (size_t)sprintf(h + o, "%s\"%d\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[%d,%d]}", i ? "," : "", i, i, i + 1);
        h[o++] = '}';
        h[o] = 0;
        f = mk_st(h, 5000, &n);
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n;
        CHECK(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e) == XLARUN_OK);
        mem = malloc(xlarun_st_memory(&r));
        CHECK(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e) == XLARUN_OK);
        CHECK(xlarun_st_count(&r) == 5000);
        free(mem);
        free(f);
        free(h);
    }

    /* trailing bytes: known size -> read_header; unknown -> st_next at the end */
    EXPECT(st_run("{" T_F32_2("a", 0, 8) "}", 9, 1, 0, &e), XLARUN_ERR_FORMAT, e,
           "t.safetensors: the header describes 8 bytes of data ending at byte");
    CHECK_CONTAINS(e.message, "but the file has");
    EXPECT(st_run("{" T_F32_2("a", 0, 8) "}", 9, 0, 1, &e), XLARUN_ERR_FORMAT, e,
           "t.safetensors: trailing bytes after the last tensor");
    /* too little data, known size -> read_header */
    EXPECT(st_run("{" T_F32_2("a", 0, 8) "}", 7, 1, 0, &e), XLARUN_ERR_FORMAT, e, "the header describes 8 bytes of data");

    /* __metadata__ */
    EXPECT(st_run("{\"__metadata__\":{\"format\":1}," T_F32_2("a", 0, 8) "}", 8, 1, 1, &e), XLARUN_ERR_FORMAT, e,
           "t.safetensors: __metadata__ values must be strings");
    EXPECT(st_run("{\"__metadata__\":{\"format\":null}}", 0, 1, 1, &e), XLARUN_ERR_FORMAT, e, "__metadata__ values must be strings");
    EXPECT(st_run("{\"__metadata__\":[\"pt\"]}", 0, 1, 1, &e), XLARUN_ERR_FORMAT, e, "t.safetensors: __metadata__ is not an object");
    CHECK(st_run("{\"__metadata__\":{\"format\":\"pt\",\"x\":\"\"}," T_F32_2("a", 0, 8) "}", 8, 1, 1, &e) == XLARUN_OK);

    /* memory one byte short of xlarun_st_memory; NULL memory */
    {
        size_t n;
        unsigned char *f = mk_st("{" T_F32_2("a", 0, 8) "}", 8, &n);
        memsrc src;
        xlarun_st_reader r;
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n;
        if (xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e) == XLARUN_OK) {
            size_t need = xlarun_st_memory(&r);
            void *mem = malloc(need);
            char want[128];
            snprintf(want, sizeof want, "t.safetensors: the header needs %lu bytes of memory, %lu given",
                     (unsigned long)need, (unsigned long)(need - 1));
            CHECK(need > 0);
            EXPECT(xlarun_st_read_header(&r, mem, need - 1, &e), XLARUN_ERR_MEMORY, e, want);
            EXPECT(xlarun_st_read_header(&r, NULL, need, &e), XLARUN_ERR_MEMORY, e, "the header needs");
            CHECK(src.pos == 8); /* nothing consumed by the refusals */
            CHECK(xlarun_st_read_header(&r, mem, need, &e) == XLARUN_OK);
            EXPECT(xlarun_st_read_header(&r, mem, need, &e), XLARUN_ERR_ARGUMENT, e, "call xlarun_st_begin first");
            free(mem);
        } else CHECK(!"begin");
        free(f);
    }
}

/* data shorter than the header says, stream size unknown: st_read / st_next report truncation */
static void test_st_truncated(void) {
    xlarun_error e;
    size_t n, got;
    unsigned char *f = mk_st("{" T_F32_2("a", 0, 8) "," T_F32_2("b", 8, 16) "}", 16, &n);
    unsigned char buf[16];
    memsrc src;
    xlarun_st_reader r;
    const xlarun_st_tensor *t;
    void *mem;
    /* cut inside 'b', read it: st_read */
    memset(&src, 0, sizeof src);
    src.p = f; src.n = n - 3;
    CHECK(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", 0, &e) == XLARUN_OK);
    mem = malloc(xlarun_st_memory(&r));
    CHECK(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e) == XLARUN_OK);
    CHECK(xlarun_st_next(&r, &t, &e) == XLARUN_OK && t && !strcmp(t->name, "a"));
    CHECK(xlarun_st_next(&r, &t, &e) == XLARUN_OK && t && !strcmp(t->name, "b"));
    EXPECT(xlarun_st_read(&r, buf, 8, &got, &e), XLARUN_ERR_FORMAT, e, "t.safetensors: truncated: the file ends at byte");
    CHECK_CONTAINS(e.message, "inside tensor 'b'");
    CHECK(got == 5);
    free(mem);
    /* cut inside 'a', skip it: st_next */
    memset(&src, 0, sizeof src);
    src.p = f; src.n = n - 12;
    CHECK(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", 0, &e) == XLARUN_OK);
    mem = malloc(xlarun_st_memory(&r));
    CHECK(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e) == XLARUN_OK);
    CHECK(xlarun_st_next(&r, &t, &e) == XLARUN_OK && t);
    EXPECT(xlarun_st_next(&r, &t, &e), XLARUN_ERR_FORMAT, e, "inside tensor 'a'");
    free(mem);
    /* misuse: next / read before the header; read after the end */
    memset(&src, 0, sizeof src);
    src.p = f; src.n = n;
    CHECK(xlarun_st_begin(&r, mem_read, &src, "t.safetensors", n, &e) == XLARUN_OK);
    EXPECT(xlarun_st_next(&r, &t, &e), XLARUN_ERR_ARGUMENT, e, "call xlarun_st_read_header first");
    EXPECT(xlarun_st_read(&r, buf, 4, &got, &e), XLARUN_ERR_ARGUMENT, e, "no current tensor");
    mem = malloc(xlarun_st_memory(&r));
    CHECK(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e) == XLARUN_OK);
    EXPECT(xlarun_st_read(&r, NULL, 4, &got, &e), XLARUN_ERR_ARGUMENT, e, "NULL buffer");
    EXPECT(xlarun_st_next(&r, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_st_next");
    {
        xlarun_status st;
        while ((st = xlarun_st_next(&r, &t, &e)) == XLARUN_OK && t) {}
        CHECK(st == XLARUN_OK && t == NULL);
    }
    CHECK(xlarun_st_next(&r, &t, &e) == XLARUN_OK && t == NULL); /* stays at the end */
    EXPECT(xlarun_st_read(&r, buf, 4, &got, &e), XLARUN_ERR_ARGUMENT, e, "no current tensor");
    free(mem);
    free(f);
}

/* valid headers: padding, escaped names, file order, and a real fixture byte by byte */
static void test_st_valid(void) {
    xlarun_error e;
    memsrc src;
    xlarun_st_reader r;
    const xlarun_st_tensor *t;
    void *mem;
    size_t n;
    unsigned char *f;
    /* whitespace around and inside, escaped names, tensors listed out of offset order */
    f = mk_st(" \n{ \"a\\u00e9b\" : { \"dtype\" : \"U8\", \"shape\" : [ 2 ] , \"data_offsets\" : [ 3 , 5 ] } ,\r\n"
              "\t\"\\ud83d\\ude00\\n\\\"q\":{\"data_offsets\":[0,3],\"shape\":[3],\"dtype\":\"I8\"} }        ", 5, &n);
    memset(&src, 0, sizeof src);
    src.p = f; src.n = n; src.chunk = 1;
    CHECK(xlarun_st_begin(&r, mem_read, &src, "pad.safetensors", n, &e) == XLARUN_OK);
    mem = malloc(xlarun_st_memory(&r));
    CHECK(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e) == XLARUN_OK);
    CHECK(xlarun_st_count(&r) == 2);
    t = xlarun_st_tensor_at(&r, 0);
    CHECK(t && !strcmp(t->name, "\xf0\x9f\x98\x80\n\"q") && t->dtype == XLARUN_DTYPE_I8 && t->nbytes == 3);
    t = xlarun_st_tensor_at(&r, 1);
    CHECK(t && !strcmp(t->name, "a\xc3\xa9" "b") && t->dtype == XLARUN_DTYPE_U8 && t->ndim == 1 && t->shape[0] == 2);
    CHECK(t && t->offset == 8 + (n - 8 - 5) + 3);
    CHECK(xlarun_st_tensor_at(&r, 2) == NULL);
    free(mem);
    free(f);

    /* a fixture through a 1-byte read callback: same bytes as the file, in offset order */
    {
        size_t fn, i, count = 0, same = 1, ordered = 1;
        unsigned char *file = slurp(FIX "llama32-f32/model.safetensors", &fn);
        unsigned char *buf = (unsigned char *)malloc(1 << 17);
        uint64_t last = 0;
        memset(&src, 0, sizeof src);
        src.p = file; src.n = fn; src.chunk = 1;
        CHECK(xlarun_st_begin(&r, mem_read, &src, "model.safetensors", 0, &e) == XLARUN_OK);
        mem = malloc(xlarun_st_memory(&r));
        CHECK(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e) == XLARUN_OK);
        CHECK(xlarun_st_count(&r) == 20);
        for (;;) {
            size_t got = 0, total = 0, step = 1;
            xlarun_status st = xlarun_st_next(&r, &t, &e);
            CHECK(st == XLARUN_OK);
            if (st != XLARUN_OK || !t) break;
            if (t->offset < last) ordered = 0;
            last = t->offset;
            if (count == 3) { count++; continue; } /* one tensor left unread: st_next skips it */
            while (total < t->nbytes) { /* chunks of growing odd sizes */
                if (xlarun_st_read(&r, buf + total, step, &got, &e) != XLARUN_OK || got == 0) break;
                total += got;
                step = step * 3 + 1;
            }
            if (total != t->nbytes || t->offset + t->nbytes > fn || memcmp(buf, file + t->offset, total)) same = 0;
            CHECK(xlarun_st_read(&r, buf, 4, &got, &e) == XLARUN_OK && got == 0); /* end of the tensor */
            count++;
        }
        CHECK(count == 20);
        CHECK(same);
        CHECK(ordered);
        CHECK(src.pos == fn);
        for (i = 1; i < xlarun_st_count(&r); i++)
            if (xlarun_st_tensor_at(&r, i)->offset != xlarun_st_tensor_at(&r, i - 1)->offset + xlarun_st_tensor_at(&r, i - 1)->nbytes) ordered = 0;
        CHECK(ordered);
        CHECK(!strcmp(xlarun_st_tensor_at(&r, 0)->name, "model.embed_tokens.weight"));
        free(mem);
        free(buf);
        free(file);
    }
}

/* ======================================================================================== */
/* 2. model folders                                                                          */

/* the llama32 folder with its model.safetensors changed */
static void tensor_case(const unsigned char *file, size_t n, xlarun_status want, const char *sub, int line) {
    spit(tpath("m32/model.safetensors"), file, n);
    expect_model_opt(tpath("m32"), NULL, want, sub, line);
}

/* biases: a copy of a fixture folder with its model.safetensors changed */
static void bias_case(const char *fixture, const unsigned char *file, size_t n, const char *extra_cfg,
                      xlarun_status want, const char *sub, int line) {
    char from[1024];
    snprintf(from, sizeof from, FIX "%s/config.json", fixture);
    if (extra_cfg) {
        size_t cn;
        char *c = (char *)slurp(from, &cn), *close = strrchr(c, '}');
        char *txt = (char *)malloc(cn + strlen(extra_cfg) + 8);
        *close = 0;
        sprintf(txt, "%s, %s}\n", c, extra_cfg);
        spits(tpath("mb/config.json"), txt);
        free(txt);
        free(c);
    } else copy_file(from, tpath("mb/config.json"));
    spit(tpath("mb/model.safetensors"), file, n);
    expect_model_opt(tpath("mb"), NULL, want, sub, line);
}

static void test_model_biases(void) {
    size_t n, nb;
    unsigned char *q = slurp(FIX "qwen2-f32/model.safetensors", &n);
    unsigned char *b = slurp(FIX "biased-f32/model.safetensors", &nb);
    unsigned char *f = (unsigned char *)malloc((n > nb ? n : nb) + 16);
    mkdir_t("mb");
    bias_case("qwen2-f32", q, n, NULL, XLARUN_OK, "", __LINE__);
    memcpy(f, q, n); /* the k bias as 64 f16 values (same bytes): the q bias's length */
    CHECK(patch_bytes(f, n, "\"model.layers.0.self_attn.k_proj.bias\":{\"dtype\":\"F32\",\"shape\":[32]",
                      "\"model.layers.0.self_attn.k_proj.bias\":{\"dtype\":\"F16\",\"shape\":[64]"));
    bias_case("qwen2-f32", f, n, NULL, XLARUN_ERR_MODEL,
              "tensor 'model.layers.0.self_attn.k_proj.bias' has shape [64], but config.json implies [32]", __LINE__);
    memcpy(f, q, n);
    CHECK(patch_bytes(f, n, "\"model.layers.0.self_attn.q_proj.bias\":{\"dtype\":\"F32\"",
                      "\"model.layers.0.self_attn.q_proj.bias\":{\"dtype\":\"I32\""));
    bias_case("qwen2-f32", f, n, NULL, XLARUN_ERR_UNSUPPORTED,
              "tensor 'model.layers.0.self_attn.q_proj.bias' has dtype I32; xlarun reads F32, F16 and BF16", __LINE__);
    memcpy(f, q, n);
    CHECK(patch_bytes(f, n, "\"model.layers.1.self_attn.v_proj.bias\"", "\"model.layers.1.self_attn.v_proj.biax\""));
    bias_case("qwen2-f32", f, n, NULL, XLARUN_ERR_MODEL,
              "mb: missing tensor 'model.layers.1.self_attn.v_proj.bias' (Qwen2ForCausalLM has q, k and v biases)", __LINE__);
    memcpy(f, q, n); /* an o_proj bias in a Qwen2 file is not Qwen2's: ignored, as transformers does */
    CHECK(patch_bytes(f, n, "\"model.layers.1.self_attn.v_proj.bias\"", "\"model.layers.1.self_attn.o_proj.bias\""));
    bias_case("qwen2-f32", f, n, NULL, XLARUN_ERR_MODEL, "missing tensor 'model.layers.1.self_attn.v_proj.bias'", __LINE__);
    memcpy(f, q, n); /* a bias for a layer past num_hidden_layers */
    CHECK(patch_bytes(f, n, "\"model.layers.1.self_attn.v_proj.bias\"", "\"model.layers.7.self_attn.v_proj.bias\""));
    bias_case("qwen2-f32", f, n, NULL, XLARUN_ERR_MODEL, "tensor 'model.layers.7.self_attn.v_proj.bias' is past num_hidden_layers 2", __LINE__);
    /* Qwen3: the per-head norms are needed, [head_dim] each; head_dim defaults to Qwen3Config's 128 */
    {
        size_t n3;
        unsigned char *q3 = slurp(FIX "qwen3-f32/model.safetensors", &n3), *f3 = (unsigned char *)malloc(n3 + 16);
        bias_case("qwen3-f32", q3, n3, NULL, XLARUN_OK, "", __LINE__);
        memcpy(f3, q3, n3);
        CHECK(patch_bytes(f3, n3, "\"model.layers.1.self_attn.k_norm.weight\"", "\"model.layers.1.self_attn.k_norm.weighx\""));
        bias_case("qwen3-f32", f3, n3, NULL, XLARUN_ERR_MODEL,
                  "missing tensor 'model.layers.1.self_attn.k_norm.weight' (Qwen3ForCausalLM normalizes each head of q and k)", __LINE__);
        memcpy(f3, q3, n3); /* the q norm as 64 f16 values (same bytes) */
        CHECK(patch_bytes(f3, n3, "\"model.layers.1.self_attn.q_norm.weight\":{\"dtype\":\"F32\",\"shape\":[32]",
                          "\"model.layers.1.self_attn.q_norm.weight\":{\"dtype\":\"F16\",\"shape\":[64]"));
        bias_case("qwen3-f32", f3, n3, NULL, XLARUN_ERR_MODEL,
                  "tensor 'model.layers.1.self_attn.q_norm.weight' has shape [64], but config.json implies [32]", __LINE__);
        bias_case("qwen3-f32", q3, n3, "\"use_sliding_window\": true", XLARUN_ERR_UNSUPPORTED,
                  "config.json: use_sliding_window true (Qwen's window on the upper layers) is not supported", __LINE__);
        bias_case("qwen3-f32", q3, n3, "\"sliding_window\": 3", XLARUN_ERR_UNSUPPORTED,
                  "config.json: a sliding_window with Qwen3ForCausalLM is not supported (transformers versions disagree", __LINE__);
        bias_case("qwen3-f32", q3, n3, "\"attention_bias\": true", XLARUN_ERR_MODEL,
                  "missing tensor 'model.layers.0.self_attn.q_proj.bias' (config.json has attention_bias true)", __LINE__);
        free(f3);
        free(q3);
    }
    /* Llama with attention_bias and mlp_bias: each missing bias names its switch; with both
       switches false the biases are not read */
    bias_case("biased-f32", b, nb, NULL, XLARUN_OK, "", __LINE__);
    memcpy(f, b, nb);
    CHECK(patch_bytes(f, nb, "\"model.layers.1.self_attn.o_proj.bias\"", "\"model.layers.1.self_attn.o_proj.biax\""));
    bias_case("biased-f32", f, nb, NULL, XLARUN_ERR_MODEL,
              "missing tensor 'model.layers.1.self_attn.o_proj.bias' (config.json has attention_bias true)", __LINE__);
    memcpy(f, b, nb);
    CHECK(patch_bytes(f, nb, "\"model.layers.0.mlp.down_proj.bias\"", "\"model.layers.0.mlp.down_proj.biax\""));
    bias_case("biased-f32", f, nb, NULL, XLARUN_ERR_MODEL,
              "missing tensor 'model.layers.0.mlp.down_proj.bias' (config.json has mlp_bias true)", __LINE__);
    bias_case("biased-f32", f, nb, "\"mlp_bias\": false", XLARUN_OK, "", __LINE__);
    bias_case("biased-f32", f, nb, "\"mlp_bias\": false, \"attention_bias\": false", XLARUN_OK, "", __LINE__);
    free(f);
    free(b);
    free(q);
}

static void test_model_tensors(void) {
    size_t n;
    unsigned char *orig = slurp(FIX "llama32-f32/model.safetensors", &n);
    unsigned char *f = (unsigned char *)malloc(n + 16);
    char d[1024];
    xlarun_model_options nm;
    memset(&nm, 0, sizeof nm);
    nm.no_mmap = 1;
    snprintf(d, sizeof d, "%s", tpath("m32"));
    mkdir_t("m32");
    copy_file(FIX "llama32-f32/config.json", tpath("m32/config.json"));

    /* an I32 tensor of the right byte size */
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"model.norm.weight\":{\"dtype\":\"F32\"", "\"model.norm.weight\":{\"dtype\":\"I32\""));
    tensor_case(f, n, XLARUN_ERR_UNSUPPORTED, "tensor 'model.norm.weight' has dtype I32; xlarun reads F32, F16 and BF16", __LINE__);
    CHECK(patch_bytes(f, n, "\"model.norm.weight\":{\"dtype\":\"I32\"", "\"model.norm.weight\":{\"dtype\":\"U32\""));
    tensor_case(f, n, XLARUN_ERR_UNSUPPORTED, "tensor 'model.norm.weight' has dtype U32", __LINE__);
    /* q_proj's shape disagrees with num_attention_heads x head_dim (same bytes, transposed) */
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"model.layers.1.self_attn.q_proj.weight\":{\"dtype\":\"F32\",\"shape\":[128,64]",
                      "\"model.layers.1.self_attn.q_proj.weight\":{\"dtype\":\"F32\",\"shape\":[64,128]"));
    tensor_case(f, n, XLARUN_ERR_MODEL,
                "tensor 'model.layers.1.self_attn.q_proj.weight' has shape [64,128], but config.json implies [128,64]", __LINE__);
    /* a matrix stored flat (same bytes), a norm stored as a matrix */
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"model.embed_tokens.weight\":{\"dtype\":\"F32\",\"shape\":[512,64]",
                      "\"model.embed_tokens.weight\":{\"dtype\":\"F32\",\"shape\":[ 32768]"));
    tensor_case(f, n, XLARUN_ERR_MODEL, "tensor 'model.embed_tokens.weight' has shape [32768], but config.json implies [512,64]", __LINE__);
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"shape\":[64],\"data_offsets\":[476160,476416]}} ", "\"shape\":[8,8],\"data_offsets\":[476160,476416]}}"));
    tensor_case(f, n, XLARUN_ERR_MODEL, "tensor 'model.norm.weight' has shape [8,8], but config.json implies [64]", __LINE__);
    /* offsets that disagree with dtype x shape, reversed offsets, a repeated name: refused by the
       safetensors layer, with the shard's path */
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"shape\":[64],\"data_offsets\":[476160,476416]", "\"shape\":[65],\"data_offsets\":[476160,476416]"));
    tensor_case(f, n, XLARUN_ERR_FORMAT,
                "m32/model.safetensors: tensor 'model.norm.weight': data_offsets [476160,476416] hold 256 bytes, but F32 [65] needs 260", __LINE__);
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"data_offsets\":[476160,476416]", "\"data_offsets\":[476416,476160]"));
    tensor_case(f, n, XLARUN_ERR_FORMAT, "m32/model.safetensors: tensor 'model.norm.weight': data_offsets [476416,476160] are reversed", __LINE__);
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"model.layers.1.mlp.up_proj.weight\"", "\"model.layers.0.mlp.up_proj.weight\""));
    tensor_case(f, n, XLARUN_ERR_FORMAT, "m32/model.safetensors: duplicate tensor name 'model.layers.0.mlp.up_proj.weight'", __LINE__);
    /* a needed tensor absent (renamed; the unknown name is ignored) */
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"model.norm.weight\"", "\"model.norm.weighx\""));
    tensor_case(f, n, XLARUN_ERR_MODEL, "m32: missing tensor 'model.norm.weight'", __LINE__);
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"model.layers.0.mlp.up_proj.weight\"", "\"model.layers.0.mlp.up_proj.weighx\""));
    tensor_case(f, n, XLARUN_ERR_MODEL, "missing tensor 'model.layers.0.mlp.up_proj.weight' (config.json has num_hidden_layers 2)", __LINE__);
    /* a layer far past num_hidden_layers */
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "\"model.layers.1.mlp.up_proj.weight\"", "\"model.layers.9.mlp.up_proj.weight\""));
    tensor_case(f, n, XLARUN_ERR_MODEL, "tensor 'model.layers.9.mlp.up_proj.weight' is past num_hidden_layers 2", __LINE__);
    /* truncated file, trailing bytes, broken header */
    tensor_case(orig, n - 100, XLARUN_ERR_FORMAT, "m32/model.safetensors: the header describes 476416 bytes of data ending at byte 478480, but the file has 478380 bytes", __LINE__);
    memcpy(f, orig, n);
    memset(f + n, 0, 3);
    tensor_case(f, n + 3, XLARUN_ERR_FORMAT, "but the file has 478483 bytes", __LINE__);
    tensor_case(orig, 5, XLARUN_ERR_FORMAT, "model.safetensors: file is 5 bytes, too short", __LINE__);
    memcpy(f, orig, n);
    CHECK(patch_bytes(f, n, "{\"__metadata__\"", "[\"__metadata__\""));
    tensor_case(f, n, XLARUN_ERR_FORMAT, "m32/model.safetensors: invalid JSON at line 1 column", __LINE__);
    /* truncated, through the streaming loader (no_mmap): the size check comes first here too */
    spit(tpath("m32/model.safetensors"), orig, n - 100);
    expect_model_opt(d, &nm, XLARUN_ERR_FORMAT, "but the file has 478380 bytes", __LINE__);

    /* valid: the data section at an odd address (header length 2055, no alignment padding) */
    {
        uint64_t hl = 0;
        int i;
        xlarun_error e;
        xlarun_model *a = NULL, *b = NULL;
        for (i = 7; i >= 0; i--) hl = (hl << 8) | orig[i];
        CHECK(hl == 2056 && orig[8 + hl - 1] == ' ');
        for (i = 0; i < 8; i++) f[i] = (unsigned char)((hl - 1) >> (8 * i));
        memcpy(f + 8, orig + 8, (size_t)hl - 1);
        memcpy(f + 8 + hl - 1, orig + 8 + hl, n - 8 - (size_t)hl);
        spit(tpath("m32/model.safetensors"), f, n - 1);
        EXPECT(xlarun_model_open(d, NULL, &a, &e), XLARUN_OK, e, "");
        EXPECT(xlarun_model_open(FIX "llama32-f32", NULL, &b, &e), XLARUN_OK, e, "");
        if (a && b) {
            xlarun_session *sa = NULL, *sb = NULL;
            static const int32_t ids[5] = {509, 7, 300, 42, 5};
            xlarun_session_options so;
            memset(&so, 0, sizeof so);
            so.n_ctx = 16;
            CHECK(xlarun_session_create(a, &so, &sa, &e) == XLARUN_OK);
            CHECK(xlarun_session_create(b, &so, &sb, &e) == XLARUN_OK);
            CHECK(xlarun_session_prefill(sa, ids, 5, &e) == XLARUN_OK);
            CHECK(xlarun_session_prefill(sb, ids, 5, &e) == XLARUN_OK);
            CHECK(xlarun_session_logits(sa) && xlarun_session_logits(sb) &&
                  !memcmp(xlarun_session_logits(sa), xlarun_session_logits(sb), 512 * sizeof(float)));
            xlarun_session_free(sa);
            xlarun_session_free(sb);
        }
        xlarun_model_close(a);
        xlarun_model_close(b);
    }
    spit(tpath("m32/model.safetensors"), orig, n);
    free(f);
    free(orig);
}

static void test_model_sharded(void) {
    static const char *const files[4] = {"config.json", "model-00001-of-00002.safetensors",
                                         "model-00002-of-00002.safetensors", "model.safetensors.index.json"};
    char d[1024];
    size_t n;
    char *index, *t;
    int i;
    snprintf(d, sizeof d, "%s", tpath("m2"));
    mkdir_t("m2");
    for (i = 0; i < 4; i++) {
        char from[256], to[64];
        snprintf(from, sizeof from, FIX "llama2-f32/%s", files[i]);
        snprintf(to, sizeof to, "m2/%s", files[i]);
        copy_file(from, tpath(to));
    }
    index = (char *)slurp(FIX "llama2-f32/model.safetensors.index.json", &n);
    EXPECT_MODEL(d, XLARUN_OK, "");

    /* no model.safetensors and no index */
    unlink(tpath("m2/model.safetensors.index.json"));
    EXPECT_MODEL(d, XLARUN_ERR_IO, "no model.safetensors or model.safetensors.index.json");
    /* the index names a shard that is not there */
    t = replace_all(index, "model-00002-of-00002", "model-00009-of-00002");
    spits(tpath("m2/model.safetensors.index.json"), t);
    free(t);
    EXPECT_MODEL(d, XLARUN_ERR_IO, "m2/model-00009-of-00002.safetensors: cannot open");
    /* shard names that are not plain file names */
    t = replace_all(index, "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"", "\"model.norm.weight\": \"../x.safetensors\"");
    spits(tpath("m2/model.safetensors.index.json"), t);
    free(t);
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "model.safetensors.index.json: a weight_map value is not a plain file name");
    t = replace_all(index, "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"", "\"model.norm.weight\": \"..\"");
    spits(tpath("m2/model.safetensors.index.json"), t);
    free(t);
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "a weight_map value is not a plain file name");
    t = replace_all(index, "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"", "\"model.norm.weight\": 2");
    spits(tpath("m2/model.safetensors.index.json"), t);
    free(t);
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "a weight_map value is not a plain file name");
    /* a tensor named twice in weight_map: the last entry wins, as in Python's json */
    t = replace_all(index, "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"",
                    "\"model.norm.weight\": \"model-00001-of-00002.safetensors\", \"model.norm.weight\": \"model-00002-of-00002.safetensors\"");
    spits(tpath("m2/model.safetensors.index.json"), t);
    free(t);
    EXPECT_MODEL(d, XLARUN_OK, "");
    t = replace_all(index, "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"",
                    "\"model.norm.weight\": \"model-00002-of-00002.safetensors\", \"model.norm.weight\": \"model-00001-of-00002.safetensors\"");
    spits(tpath("m2/model.safetensors.index.json"), t);
    free(t);
    EXPECT_MODEL(d, XLARUN_ERR_MODEL,
                 "tensor 'model.norm.weight' is in model-00002-of-00002.safetensors, but model.safetensors.index.json says model-00001-of-00002.safetensors");
    { /* the shard limit: 4,097 distinct files named, refused before any is opened */
        size_t cap = 4097 * 64 + 64, o = 0;
        char *big = (char *)malloc(cap);
        int i;
        o += (size_t)sprintf(big, "{\"weight_map\": {");
        for (i = 0; i < 4097; i++) o += (size_t)sprintf(big + o, "%s\"t%d\": \"s%d.safetensors\"", i ? ", " : "", i, i);
        strcpy(big + o, "}}");
        spits(tpath("m2/model.safetensors.index.json"), big);
        EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "model.safetensors.index.json: more than 4096 shards");
        free(big);
    }
    { /* over the 64 MiB limit: a sparse file, refused by its size */
        FILE *f = fopen(tpath("m2/model.safetensors.index.json"), "wb");
        CHECK(f && ftruncate(fileno(f), (64 << 20) + 1) == 0);
        if (f) fclose(f);
        EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "model.safetensors.index.json: 67108865 bytes is over the limit of 67108864");
    }
    /* no weight_map, an empty one, invalid JSON */
    spits(tpath("m2/model.safetensors.index.json"), "{\"metadata\": {\"total_size\": 308160}}");
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "model.safetensors.index.json: missing the \"weight_map\" object");
    spits(tpath("m2/model.safetensors.index.json"), "{\"weight_map\": [\"model-00001-of-00002.safetensors\"]}");
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "missing the \"weight_map\" object");
    spits(tpath("m2/model.safetensors.index.json"), "{\"weight_map\": {}}");
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "model.safetensors.index.json: weight_map names no shards");
    spits(tpath("m2/model.safetensors.index.json"), "{\"weight_map\": {\"a\": \"b\"");
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "model.safetensors.index.json: invalid JSON at line 1 column 25: unexpected end of input");
    /* the index puts a tensor in the wrong shard */
    t = replace_all(index, "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"",
                    "\"model.norm.weight\": \"model-00001-of-00002.safetensors\"");
    spits(tpath("m2/model.safetensors.index.json"), t);
    free(t);
    EXPECT_MODEL(d, XLARUN_ERR_MODEL,
                 "tensor 'model.norm.weight' is in model-00002-of-00002.safetensors, but model.safetensors.index.json says model-00001-of-00002.safetensors");
    /* a shard that repeats another shard's tensors */
    copy_file(FIX "llama2-f32/model-00001-of-00002.safetensors", tpath("m2/dup.safetensors"));
    t = replace_all(index, "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"",
                    "\"model.norm.weight\": \"model-00002-of-00002.safetensors\",\n    \"extra\": \"dup.safetensors\"");
    spits(tpath("m2/model.safetensors.index.json"), t);
    free(t);
    EXPECT_MODEL(d, XLARUN_ERR_MODEL, "m2/dup.safetensors: tensor 'model.embed_tokens.weight' is also in an earlier shard");
    /* a shard that is broken */
    spits(tpath("m2/model.safetensors.index.json"), index);
    spits(tpath("m2/model-00002-of-00002.safetensors"), "1234567");
    EXPECT_MODEL(d, XLARUN_ERR_FORMAT, "m2/model-00002-of-00002.safetensors: file is 7 bytes, too short for the 8-byte header length");
    /* untied config with lm_head in no shard */
    copy_file(FIX "llama2-f32/model-00001-of-00002.safetensors", tpath("m2/model-00002-of-00002.safetensors"));
    spits(tpath("m2/model.safetensors.index.json"), "{\"weight_map\": {\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\"}}");
    EXPECT_MODEL(d, XLARUN_ERR_MODEL, "m2: missing tensor 'model.norm.weight'"); /* shard 2 is not listed */
    free(index);
}

/* ======================================================================================== */
/* 3. API misuse                                                                             */

static void *amalloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 1) != 0) return NULL;
    return p;
}

static void test_api_session(xlarun_model *m, int pass);

static void test_api_model(void) {
    xlarun_error e;
    xlarun_model *m = (xlarun_model *)&e;
    size_t bytes = 1;
    char big[5000];
    int pass;
    const char *d = FIX "llama32-f32";
    EXPECT(xlarun_model_open(NULL, NULL, &m, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_model_open: NULL argument");
    CHECK(m == NULL);
    EXPECT(xlarun_model_open(d, NULL, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_model_open: NULL argument");
    EXPECT(xlarun_model_memory(NULL, NULL, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_model_memory: NULL argument");
    EXPECT(xlarun_model_memory(d, NULL, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_model_memory: NULL argument");
    EXPECT(xlarun_model_open_in(NULL, NULL, &e, sizeof e, &m, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_model_open_in: NULL argument");
    EXPECT(xlarun_model_open_in(d, NULL, NULL, 1 << 20, &m, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_model_open_in: NULL argument");
    EXPECT(xlarun_model_open_in(d, NULL, &e, sizeof e, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_model_open_in: NULL argument");
    /* NULL err is fine */
    CHECK(xlarun_model_open(NULL, NULL, &m, NULL) == XLARUN_ERR_ARGUMENT);
    CHECK(xlarun_model_open(FIX "no-such-model", NULL, &m, NULL) == XLARUN_ERR_IO);
    EXPECT(xlarun_model_open(FIX "no-such-model", NULL, &m, &e), XLARUN_ERR_IO, e, "tests/fixtures/no-such-model/config.json: cannot open");
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    EXPECT(xlarun_model_open(big, NULL, &m, &e), XLARUN_ERR_ARGUMENT, e, "path too long");
    EXPECT(xlarun_model_open("", NULL, &m, &e), XLARUN_ERR_IO, e, "config.json: cannot open"); /* "": the current folder */
    CHECK(m == NULL);
    xlarun_model_close(NULL); /* no-op */

    /* exact model memory, with the mapped and with the streamed weights */
    for (pass = 0; pass < 2; pass++) {
        xlarun_model_options o;
        void *mem;
        char want[160];
        memset(&o, 0, sizeof o);
        o.no_mmap = pass;
        if (xlarun_model_memory(d, &o, &bytes, &e) != XLARUN_OK) { CHECK(!"xlarun_model_memory"); continue; }
        CHECK(bytes > 0 && e.status == XLARUN_OK && e.message[0] == 0);
        if (pass) CHECK(bytes > 476416); /* the weights live in it */
        mem = amalloc(bytes);
        snprintf(want, sizeof want, "llama32-f32: %lu bytes of model memory are too few", (unsigned long)(bytes - 1));
        EXPECT(xlarun_model_open_in(d, &o, mem, bytes - 1, &m, &e), XLARUN_ERR_MEMORY, e, want);
        CHECK(m == NULL);
        EXPECT(xlarun_model_open_in(d, &o, mem, 64, &m, &e), XLARUN_ERR_MEMORY, e, "bytes of model memory are too few");
        EXPECT(xlarun_model_open_in(d, &o, mem, 0, &m, &e), XLARUN_ERR_MEMORY, e, "bytes of model memory are too few");
        EXPECT(xlarun_model_open_in(d, &o, mem, bytes, &m, &e), XLARUN_OK, e, "");
        if (m) {
            const xlarun_config *c = xlarun_model_config(m);
            CHECK(c->vocab_size == 512 && c->n_layers == 2 && c->head_dim == 32);
#if defined(XLARUN_NO_MMAP)
            CHECK(xlarun_model_mapped_bytes(m) == 0);
#else
            CHECK(pass ? xlarun_model_mapped_bytes(m) == 0 : xlarun_model_mapped_bytes(m) == 478480);
#endif
            test_api_session(m, pass);
            { /* a session outliving its model (the model memory is ours, so this is defined) */
                xlarun_session *s = NULL;
                static const int32_t one = 1;
                size_t sb = 7;
                CHECK(xlarun_session_create(m, NULL, &s, &e) == XLARUN_OK);
                xlarun_model_close(m);
                EXPECT(xlarun_session_prefill(s, &one, 1, &e), XLARUN_ERR_ARGUMENT, e, "its model was closed");
                EXPECT(xlarun_session_memory(m, NULL, &sb, &e), XLARUN_ERR_ARGUMENT, e, "NULL or closed model");
                EXPECT(xlarun_session_decode(s, 1, &e), XLARUN_ERR_ARGUMENT, e, "its model was closed");
                EXPECT(xlarun_session_truncate(s, 0, &e), XLARUN_ERR_ARGUMENT, e, "its model was closed");
                {
                    xlarun_session *s2 = (xlarun_session *)&e;
                    EXPECT(xlarun_session_create(m, NULL, &s2, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_session_create: NULL or closed model");
                    CHECK(s2 == NULL);
                }
                xlarun_session_free(s);
            }
            xlarun_model_close(m); /* twice: no-op (the memory is ours, still valid) */
        }
        free(mem);
    }
    CHECK(xlarun_model_config(NULL) == NULL && xlarun_model_mapped_bytes(NULL) == 0);
}

static void test_api_session(xlarun_model *m, int pass) {
    xlarun_error e;
    xlarun_session *s = (xlarun_session *)&e;
    xlarun_session_options so;
    size_t bytes = 1, i;
    void *mem;
    int32_t ids[17];
    char want[160];
    const float *l;
    float first[512] = {0};
    for (i = 0; i < 17; i++) ids[i] = (int32_t)(i * 37 % 512);
    memset(&so, 0, sizeof so);
    so.n_ctx = 16;
    so.n_batch = 5;
    so.n_threads = pass ? 2 : 1;

    EXPECT(xlarun_session_memory(NULL, &so, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_session_memory: NULL or closed model");
    CHECK(bytes == 1);
    EXPECT(xlarun_session_memory(m, &so, NULL, &e), XLARUN_ERR_ARGUMENT, e, "NULL bytes");
    EXPECT(xlarun_session_create(NULL, &so, &s, &e), XLARUN_ERR_ARGUMENT, e, "NULL or closed model");
    CHECK(s == NULL);
    EXPECT(xlarun_session_create(m, &so, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_session_create: NULL out");
    EXPECT(xlarun_session_create_in(NULL, &so, &e, sizeof e, &s, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_session_create_in: NULL or closed model");
    EXPECT(xlarun_session_create_in(m, &so, NULL, 1 << 20, &s, &e), XLARUN_ERR_ARGUMENT, e, "NULL memory");
    EXPECT(xlarun_session_create_in(m, &so, &e, sizeof e, NULL, &e), XLARUN_ERR_ARGUMENT, e, "NULL out");
    so.n_threads = 513;
    EXPECT(xlarun_session_memory(m, &so, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "n_threads 513 is over the limit of 512");
    EXPECT(xlarun_session_create(m, &so, &s, &e), XLARUN_ERR_ARGUMENT, e, "n_threads 513 is over the limit of 512");
    so.n_threads = pass ? 2 : 1;
    so.n_ctx = (1u << 24) + 1;
    EXPECT(xlarun_session_memory(m, &so, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "n_ctx 16777217 is over the limit of 16777216 tokens");
    so.n_ctx = UINT32_MAX; /* the largest context the options can say (2^40 is not a uint32_t) */
    EXPECT(xlarun_session_memory(m, &so, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "n_ctx 4294967295 is over the limit of 16777216 tokens");
    EXPECT(xlarun_session_create(m, &so, &s, &e), XLARUN_ERR_ARGUMENT, e, "n_ctx 4294967295 is over the limit of 16777216 tokens");
    CHECK(s == NULL);
    /* at the limit: measured (about 17 GB of KV cache for this model), not refused, nothing allocated */
    so.n_ctx = 1u << 24;
    bytes = 0;
    EXPECT(xlarun_session_memory(m, &so, &bytes, &e), XLARUN_OK, e, "");
    CHECK(bytes > (size_t)2 * 2 * (1u << 24) * 64 * sizeof(float));
    so.n_ctx = 16;
    so.precision = (xlarun_precision)7;
    EXPECT(xlarun_session_memory(m, &so, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "unknown precision 7");
    EXPECT(xlarun_session_create(m, &so, &s, &e), XLARUN_ERR_ARGUMENT, e, "unknown precision 7");
    so.precision = XLARUN_PRECISION_EXACT;
    so.kv_type = (xlarun_kv_type)3;
    EXPECT(xlarun_session_memory(m, &so, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "unknown kv_type 3 (XLARUN_KV_F32, _F16 or _BF16)");
    EXPECT(xlarun_session_create(m, &so, &s, &e), XLARUN_ERR_ARGUMENT, e, "unknown kv_type 3");
    CHECK(s == NULL);
    so.kv_type = (xlarun_kv_type)-1;
    EXPECT(xlarun_session_create(m, &so, &s, &e), XLARUN_ERR_ARGUMENT, e, "unknown kv_type -1");
    so.kv_type = XLARUN_KV_F32;
    /* a context of 0 means the default, min(4096, max_position_embeddings) = 256 here */
    {
        xlarun_session_options z;
        xlarun_session *s0 = NULL;
        int32_t many[257];
        memset(&z, 0, sizeof z);
        for (i = 0; i < 257; i++) many[i] = (int32_t)(i % 512);
        EXPECT(xlarun_session_create(m, &z, &s0, &e), XLARUN_OK, e, "");
        EXPECT(xlarun_session_prefill(s0, many, 257, &e), XLARUN_ERR_CONTEXT, e, "257 tokens do not fit: the context holds 256 and 0 are used");
        CHECK(xlarun_session_position(s0) == 0);
        xlarun_session_free(s0);
    }

    /* NULL session: errors or no-ops */
    EXPECT(xlarun_session_prefill(NULL, ids, 1, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_session_prefill: NULL or freed session");
    EXPECT(xlarun_session_decode(NULL, 1, &e), XLARUN_ERR_ARGUMENT, e, "NULL or freed session");
    CHECK(xlarun_session_logits(NULL) == NULL);
    CHECK(xlarun_session_argmax(NULL) == -1);
    CHECK(xlarun_session_position(NULL) == 0);
    xlarun_session_reset(NULL);
    xlarun_session_free(NULL);
    CHECK(xlarun_argmax(NULL, 3) == -1 && xlarun_argmax(first, 0) == -1);

    /* exact session memory */
    if (xlarun_session_memory(m, &so, &bytes, &e) != XLARUN_OK) { CHECK(!"xlarun_session_memory"); return; }
    CHECK(bytes > 0 && e.status == XLARUN_OK);
    mem = amalloc(bytes);
    snprintf(want, sizeof want, "%lu bytes of session memory are too few", (unsigned long)(bytes - 1));
    EXPECT(xlarun_session_create_in(m, &so, mem, bytes - 1, &s, &e), XLARUN_ERR_MEMORY, e, want);
    CHECK(s == NULL);
    EXPECT(xlarun_session_create_in(m, &so, mem, 0, &s, &e), XLARUN_ERR_MEMORY, e, "bytes of session memory are too few");
    EXPECT(xlarun_session_create_in(m, &so, mem, bytes, &s, &e), XLARUN_OK, e, "");
    if (!s) { free(mem); return; }

    /* no logits yet */
    CHECK(xlarun_session_logits(s) == NULL && xlarun_session_argmax(s) == -1 && xlarun_session_position(s) == 0);
    /* bad prefills leave the session as it was */
    EXPECT(xlarun_session_prefill(s, NULL, 3, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_session_prefill: no tokens given");
    EXPECT(xlarun_session_prefill(s, ids, 0, &e), XLARUN_ERR_ARGUMENT, e, "no tokens given");
    ids[0] = 512;
    EXPECT(xlarun_session_prefill(s, ids, 3, &e), XLARUN_ERR_ARGUMENT, e,
           "token id 512 at position 0 is outside the vocabulary (vocab_size 512)");
    ids[0] = -1;
    EXPECT(xlarun_session_decode(s, -1, &e), XLARUN_ERR_ARGUMENT, e, "token id -1 at position 0 is outside the vocabulary (vocab_size 512)");
    ids[0] = 0;
    ids[2] = INT32_MIN;
    EXPECT(xlarun_session_prefill(s, ids, 3, &e), XLARUN_ERR_ARGUMENT, e, "token id -2147483648 at position 2 is outside the vocabulary");
    ids[2] = 74;
    EXPECT(xlarun_session_prefill(s, ids, 17, &e), XLARUN_ERR_CONTEXT, e, "17 tokens do not fit: the context holds 16 and 0 are used");
    CHECK(xlarun_session_position(s) == 0 && xlarun_session_logits(s) == NULL);
    /* a valid prefill works after the failures */
    EXPECT(xlarun_session_prefill(s, ids, 4, &e), XLARUN_OK, e, "");
    CHECK(xlarun_session_position(s) == 4);
    l = xlarun_session_logits(s);
    CHECK(l != NULL);
    if (l) memcpy(first, l, sizeof first);
    /* failures after some context: position and logits unchanged */
    EXPECT(xlarun_session_prefill(s, ids, 13, &e), XLARUN_ERR_CONTEXT, e, "13 tokens do not fit: the context holds 16 and 4 are used");
    EXPECT(xlarun_session_decode(s, 600, &e), XLARUN_ERR_ARGUMENT, e, "token id 600 at position 0 is outside the vocabulary (vocab_size 512)");
    EXPECT(xlarun_session_truncate(s, 5, &e), XLARUN_ERR_ARGUMENT, e, "cannot keep 5 tokens: the context holds 4");
    EXPECT(xlarun_session_truncate(s, (size_t)1 << 40, &e), XLARUN_ERR_ARGUMENT, e, "cannot keep 1099511627776 tokens: the context holds 4");
    EXPECT(xlarun_session_truncate(NULL, 0, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_session_truncate: NULL or freed session");
    CHECK(xlarun_session_position(s) == 4);
    l = xlarun_session_logits(s);
    CHECK(l && !memcmp(l, first, sizeof first));
    /* fill the context, then one more */
    EXPECT(xlarun_session_prefill(s, ids + 4, 12, &e), XLARUN_OK, e, "");
    CHECK(xlarun_session_position(s) == 16);
    EXPECT(xlarun_session_decode(s, 5, &e), XLARUN_ERR_CONTEXT, e, "1 tokens do not fit: the context holds 16 and 16 are used");
    CHECK(xlarun_session_position(s) == 16);
    /* reset: no logits, and the same prompt gives the same logits */
    xlarun_session_reset(s);
    CHECK(xlarun_session_logits(s) == NULL && xlarun_session_position(s) == 0 && xlarun_session_argmax(s) == -1);
    EXPECT(xlarun_session_prefill(s, ids, 4, &e), XLARUN_OK, e, "");
    l = xlarun_session_logits(s);
    CHECK(l && !memcmp(l, first, sizeof first));
    CHECK(xlarun_session_argmax(s) == xlarun_argmax(first, 512));
    xlarun_session_free(s);
    xlarun_session_free(s); /* twice: no-op (the memory is ours) */
    CHECK(xlarun_session_logits(s) == NULL);
    EXPECT(xlarun_session_prefill(s, ids, 1, &e), XLARUN_ERR_ARGUMENT, e, "NULL or freed session");
    free(mem);
}

/* ======================================================================================== */
/* 4. xlarun_io                                                                              */

typedef struct {
    const char *dir;
    const char *fail_open;  /* this name cannot be opened ... */
    int fail_open_skip;     /* ... after this many successful opens of it */
    const char *fail_read;  /* reads of this name fail */
    int opens, closes;
} io_ctx;
typedef struct { FILE *f; io_ctx *c; int fail_read; } io_handle;

static void *io_open(void *user, const char *name) {
    io_ctx *c = (io_ctx *)user;
    io_handle *h;
    FILE *f;
    char path[1024];
    if (c->fail_open && !strcmp(name, c->fail_open) && c->fail_open_skip-- <= 0) return NULL;
    snprintf(path, sizeof path, "%s/%s", c->dir, name);
    f = fopen(path, "rb");
    if (!f) return NULL;
    h = (io_handle *)malloc(sizeof *h);
    h->f = f;
    h->c = c;
    h->fail_read = c->fail_read && !strcmp(name, c->fail_read);
    c->opens++;
    return h;
}
static size_t io_read(void *handle, void *buf, size_t n) {
    io_handle *h = (io_handle *)handle;
    size_t k;
    if (h->fail_read) return (size_t)-1;
    k = fread(buf, 1, n, h->f);
    return k == 0 && ferror(h->f) ? (size_t)-1 : k;
}
static void io_close(void *handle) {
    io_handle *h = (io_handle *)handle;
    fclose(h->f);
    h->c->closes++;
    free(h);
}

static void io_setup(io_ctx *c, xlarun_io *io, xlarun_model_options *o, const char *dir) {
    memset(c, 0, sizeof *c);
    c->dir = dir;
    io->open = io_open;
    io->read = io_read;
    io->close = io_close;
    io->user = c;
    memset(o, 0, sizeof *o);
    o->io = io;
}

/* logits after a short prompt, or 0 */
static int logits_of(xlarun_model *m, float *out, size_t v) {
    xlarun_error e;
    xlarun_session *s = NULL;
    xlarun_session_options so;
    static const int32_t ids[6] = {1, 17, 99, 3, 250, 42};
    int ok;
    memset(&so, 0, sizeof so);
    so.n_ctx = 8;
    if (!m || xlarun_session_create(m, &so, &s, &e) != XLARUN_OK) return 0;
    ok = xlarun_session_prefill(s, ids, 6, &e) == XLARUN_OK && xlarun_session_logits(s);
    if (ok) memcpy(out, xlarun_session_logits(s), v * sizeof(float));
    xlarun_session_free(s);
    return ok;
}

static void io_case(io_ctx *c, const xlarun_model_options *o, int open_only, xlarun_status want, const char *sub, int line) {
    xlarun_error e;
    xlarun_model *m = NULL;
    size_t bytes;
    xlarun_status st = xlarun_model_open(c->dir, o, &m, &e);
    CHECKF(st == want && e.status == want, "line %d: io open: status %s, expected %s: %s", line, xlarun_status_name(st),
           xlarun_status_name(want), e.message);
    CHECKF(strstr(e.message, sub) != NULL, "line %d: io open: expected \"%s\" in \"%s\"", line, sub, e.message);
    if (m) xlarun_model_close(m);
    if (!open_only) {
        st = xlarun_model_memory(c->dir, o, &bytes, &e);
        CHECKF(st == want && strstr(e.message, sub) != NULL, "line %d: io memory: status %s, expected %s: \"%s\" in \"%s\"",
               line, xlarun_status_name(st), xlarun_status_name(want), sub, e.message);
    }
    CHECKF(c->opens == c->closes, "line %d: io handles: %d opened, %d closed", line, c->opens, c->closes);
}
#define IO_CASE(c, o, open_only, want, sub) io_case((c), (o), (open_only), (want), (sub), __LINE__)

static void test_io(void) {
    xlarun_error e;
    io_ctx c;
    xlarun_io io;
    xlarun_model_options o;
    static const char *const names[2] = {"llama32-f32", "llama2-f32"};
    static const size_t vocab[2] = {512, 320};
    int k;

    /* io loads give the same logits as the mmap loads, single file and sharded */
    for (k = 0; k < 2; k++) {
        char dir[256];
        xlarun_model *a = NULL, *b = NULL;
        float la[512], lb[512];
        snprintf(dir, sizeof dir, FIX "%s", names[k]);
        io_setup(&c, &io, &o, dir);
        EXPECT(xlarun_model_open(dir, &o, &a, &e), XLARUN_OK, e, "");
        EXPECT(xlarun_model_open(dir, NULL, &b, &e), XLARUN_OK, e, "");
        CHECK(c.opens > 0 && c.opens == c.closes);
        CHECK(a && xlarun_model_mapped_bytes(a) == 0);
#if !defined(XLARUN_NO_MMAP)
        CHECK(b && xlarun_model_mapped_bytes(b) > 0);
#endif
        CHECK(logits_of(a, la, vocab[k]) && logits_of(b, lb, vocab[k]) && !memcmp(la, lb, vocab[k] * sizeof(float)));
        xlarun_model_close(a);
        xlarun_model_close(b);
        { /* streaming through io needs about what streaming from the file system needs */
            size_t bio = 0, bfs = 0;
            xlarun_model_options nm;
            memset(&nm, 0, sizeof nm);
            nm.no_mmap = 1;
            CHECK(xlarun_model_memory(dir, &o, &bio, &e) == XLARUN_OK);
            CHECK(xlarun_model_memory(dir, &nm, &bfs, &e) == XLARUN_OK);
            CHECKF(bio <= bfs + 65536, "%s: xlarun_model_memory is %lu bytes through io, %lu with no_mmap from files",
                   names[k], (unsigned long)bio, (unsigned long)bfs);
        }
    }

    /* an xlarun_io with a NULL callback: refused, never called through */
    io_setup(&c, &io, &o, FIX "llama32-f32");
    io.open = NULL;
    IO_CASE(&c, &o, 0, XLARUN_ERR_ARGUMENT, "config.json: the xlarun_io has a NULL open callback");
    io_setup(&c, &io, &o, FIX "llama32-f32");
    io.read = NULL;
    IO_CASE(&c, &o, 0, XLARUN_ERR_ARGUMENT, "config.json: the xlarun_io has a NULL read callback");
    io_setup(&c, &io, &o, FIX "llama32-f32");
    io.close = NULL;
    IO_CASE(&c, &o, 0, XLARUN_ERR_ARGUMENT, "config.json: the xlarun_io has a NULL close callback");
    {
        xlarun_tokenizer_options to;
        xlarun_tokenizer *tk = NULL;
        io_setup(&c, &io, &o, FIX "demo");
        io.read = NULL;
        memset(&to, 0, sizeof to);
        to.io = &io;
        EXPECT(xlarun_tokenizer_open(FIX "demo", &to, &tk, &e), XLARUN_ERR_ARGUMENT, e, "the xlarun_io has a NULL read callback");
        CHECK(tk == NULL && c.opens == 0);
    }

    /* the safetensors file cannot be opened: at the probe, or only when it is loaded */
    io_setup(&c, &io, &o, FIX "llama32-f32");
    c.fail_open = "model.safetensors";
    IO_CASE(&c, &o, 1, XLARUN_ERR_IO, "llama32-f32: no model.safetensors or model.safetensors.index.json");
    io_setup(&c, &io, &o, FIX "llama32-f32");
    c.fail_open = "model.safetensors";
    c.fail_open_skip = 1; /* the probe in xlarun_model_memory opens it */
    IO_CASE(&c, &o, 1, XLARUN_ERR_IO, "llama32-f32/model.safetensors: cannot open");
    io_setup(&c, &io, &o, FIX "llama2-f32");
    c.fail_open = "model-00002-of-00002.safetensors";
    IO_CASE(&c, &o, 0, XLARUN_ERR_IO, "llama2-f32/model-00002-of-00002.safetensors: cannot open");
    io_setup(&c, &io, &o, FIX "llama32-f32");
    c.fail_open = "config.json";
    IO_CASE(&c, &o, 0, XLARUN_ERR_IO, "llama32-f32/config.json: cannot open");
    /* read errors */
    io_setup(&c, &io, &o, FIX "llama32-f32");
    c.fail_read = "config.json";
    IO_CASE(&c, &o, 0, XLARUN_ERR_IO, "llama32-f32/config.json: read error");
    io_setup(&c, &io, &o, FIX "llama32-f32");
    c.fail_read = "model.safetensors";
    IO_CASE(&c, &o, 0, XLARUN_ERR_IO, "llama32-f32/model.safetensors: read error");
    io_setup(&c, &io, &o, FIX "llama2-f32");
    c.fail_read = "model.safetensors.index.json";
    IO_CASE(&c, &o, 0, XLARUN_ERR_IO, "model.safetensors.index.json: read error");

    /* size unknown through io: truncation and trailing bytes show when the data is read
       (xlarun_model_memory reads only the header, so only the open sees them) */
    {
        size_t n;
        unsigned char *orig = slurp(FIX "llama32-f32/model.safetensors", &n);
        unsigned char *f = (unsigned char *)malloc(n + 4);
        mkdir_t("io");
        copy_file(FIX "llama32-f32/config.json", tpath("io/config.json"));
        spit(tpath("io/model.safetensors"), orig, n - 100);
        io_setup(&c, &io, &o, tpath("io"));
        IO_CASE(&c, &o, 1, XLARUN_ERR_FORMAT, "io/model.safetensors: truncated: the file ends at byte 478380, inside tensor 'model.norm.weight'");
        memcpy(f, orig, n);
        memcpy(f + n, "abcd", 4);
        spit(tpath("io/model.safetensors"), f, n + 4);
        io_setup(&c, &io, &o, tpath("io"));
        IO_CASE(&c, &o, 1, XLARUN_ERR_FORMAT, "io/model.safetensors: trailing bytes after the last tensor (byte 478480)");
        spit(tpath("io/model.safetensors"), orig, 3000);
        o.no_mmap = 1;
        io_setup(&c, &io, &o, tpath("io"));
        IO_CASE(&c, &o, 1, XLARUN_ERR_FORMAT, "truncated: the file ends at byte 3000, inside tensor 'model.embed_tokens.weight'");
        /* the same files from the file system with no_mmap (size known) */
        memset(&o, 0, sizeof o);
        o.no_mmap = 1;
        expect_model_opt(tpath("io"), &o, XLARUN_ERR_FORMAT, "but the file has 3000 bytes", __LINE__);
        free(f);
        free(orig);
    }
}

/* ======================================================================================== */
/* 5. the rest of the API: NULL pointers, zero lengths, exact memory, freed objects           */

#define DEMO FIX "demo"

static void emit_none(void *user, const char *text, size_t len) { (void)user; (void)text; (void)len; }

/* safetensors reader and model accessors with NULL; names of out-of-range enums */
static void test_api_small(void) {
    xlarun_error e;
    xlarun_st_reader r;
    char out[16];
    const xlarun_st_tensor *t = (const xlarun_st_tensor *)&e;
    size_t got = 7;
    memset(&r, 0, sizeof r);
    CHECK(xlarun_st_memory(NULL) == 0 && xlarun_st_memory(&r) == 0);
    CHECK(xlarun_st_count(NULL) == 0 && xlarun_st_tensor_at(NULL, 0) == NULL);
    CHECK(xlarun_st_metadata(NULL, "format", out, sizeof out) == 0);
    EXPECT(xlarun_st_read_header(NULL, out, sizeof out, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_st_read_header: call xlarun_st_begin first");
    EXPECT(xlarun_st_next(NULL, &t, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_st_next: call xlarun_st_read_header first");
    EXPECT(xlarun_st_read(NULL, out, 4, &got, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_st_read: no current tensor");
    CHECK(got == 0);
    { /* a NULL file name, a zero-length read, metadata lookups with NULL */
        size_t n;
        unsigned char *f = mk_st("{\"__metadata__\":{\"format\":\"pt\"}," T_F32_2("a", 0, 8) "}", 8, &n);
        memsrc src;
        void *mem;
        memset(&src, 0, sizeof src);
        src.p = f; src.n = n;
        CHECK(xlarun_st_begin(&r, mem_read, &src, NULL, n, &e) == XLARUN_OK);
        mem = malloc(xlarun_st_memory(&r));
        CHECK(xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &e) == XLARUN_OK);
        CHECK(xlarun_st_metadata(&r, NULL, out, sizeof out) == 0);
        CHECK(xlarun_st_metadata(&r, "format", NULL, 0) == 1);     /* presence only */
        CHECK(xlarun_st_metadata(&r, "format", out, 2) == 1 && out[0] == 0); /* does not fit: "" */
        CHECK(xlarun_st_next(&r, &t, &e) == XLARUN_OK && t);
        CHECK(xlarun_st_read(&r, NULL, 0, &got, &e) == XLARUN_OK && got == 0);
        CHECK(xlarun_st_read(&r, out, 8, NULL, &e) == XLARUN_OK);  /* got may be NULL */
        free(mem);
        free(f);
    }
    CHECK(xlarun_model_weight_bytes(NULL) == 0 && xlarun_model_mapped_bytes(NULL) == 0);
    CHECK(xlarun_model_dtype(NULL) != NULL && !strcmp(xlarun_model_dtype(NULL), "?"));
    CHECK(xlarun_status_name((xlarun_status)99) != NULL && xlarun_status_name((xlarun_status)-1) != NULL);
    CHECK(!strcmp(xlarun_dtype_name((xlarun_dtype)99), "?") && !strcmp(xlarun_dtype_name((xlarun_dtype)-1), "?"));
    EXPECT(xlarun_quantize(NULL, tpath("q"), NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_quantize: NULL folder");
    EXPECT(xlarun_quantize(DEMO, NULL, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_quantize: NULL folder");
}

/* the tokenizer: every call with NULL and zero sizes; exact memory; a closed tokenizer; files
   over the limits */
/* chat_template.jinja beside tokenizer.json: it wins over tokenizer_config.json's template, as
   in transformers 4.47 on, read as Python's text mode reads it (CRLF and CR become LF); a file
   that is not UTF-8 is refused by name */
static void test_chat_template_file(void) {
    static const char *const files[3] = {"tokenizer.json", "tokenizer_config.json", "config.json"};
    static const char jinja[] = "{{ bos_token }}{% for m in messages %}\r\n[INST] {{ m['content'] }}\r[/INST]{% endfor %}\n";
    static const char want[] = "{{ bos_token }}{% for m in messages %}\n[INST] {{ m['content'] }}\n[/INST]{% endfor %}\n";
    xlarun_error e;
    xlarun_tokenizer *t = NULL;
    size_t i, bytes = 0;
    char dir[128];
    mkdir_t("jinja");
    snprintf(dir, sizeof dir, "%s", tpath("jinja"));
    for (i = 0; i < 3; i++) {
        char from[256], to[256];
        snprintf(from, sizeof from, FIX "demo/%s", files[i]);
        snprintf(to, sizeof to, "%s/%s", dir, files[i]);
        copy_file(from, to);
    }
    /* without the file: tokenizer_config.json's template (SmolLM2's ChatML) */
    EXPECT(xlarun_tokenizer_open(dir, NULL, &t, &e), XLARUN_OK, e, "");
    CHECK(t && xlarun_tokenizer_chat_template(t) && strstr(xlarun_tokenizer_chat_template(t), "<|im_start|>"));
    xlarun_tokenizer_close(t);
    t = NULL;
    /* with it: the file, newlines as Python reads them; the exact size query agrees */
    spits(tpath("jinja/chat_template.jinja"), jinja);
    EXPECT(xlarun_tokenizer_open(dir, NULL, &t, &e), XLARUN_OK, e, "");
    CHECKF(t && xlarun_tokenizer_chat_template(t) && !strcmp(xlarun_tokenizer_chat_template(t), want),
           "chat template: \"%s\"", t && xlarun_tokenizer_chat_template(t) ? xlarun_tokenizer_chat_template(t) : "(none)");
    xlarun_tokenizer_close(t);
    t = NULL;
    EXPECT(xlarun_tokenizer_memory(dir, NULL, &bytes, &e), XLARUN_OK, e, "");
    {
        void *mem = amalloc(bytes);
        EXPECT(xlarun_tokenizer_open_in(dir, NULL, mem, bytes, &t, &e), XLARUN_OK, e, "");
        CHECK(t && !strcmp(xlarun_tokenizer_chat_template(t), want));
        xlarun_tokenizer_close(t);
        t = NULL;
        EXPECT(xlarun_tokenizer_open_in(dir, NULL, mem, bytes - 1, &t, &e), XLARUN_ERR_MEMORY, e, "");
        free(mem);
    }
    /* not UTF-8 */
    spits(tpath("jinja/chat_template.jinja"), "{{ \xff }}");
    EXPECT(xlarun_tokenizer_open(dir, NULL, &t, &e), XLARUN_ERR_FORMAT, e, "jinja/chat_template.jinja: invalid UTF-8");
    CHECK(t == NULL);
}

static void test_api_tokenizer(xlarun_model *m) {
    xlarun_error e;
    xlarun_tokenizer *t = (xlarun_tokenizer *)&e;
    xlarun_detok d;
    size_t bytes = 1, n = 7, len = 7;
    int32_t ids[8];
    char out[64];
    const int32_t *eos = (const int32_t *)&e;
    void *mem;

    EXPECT(xlarun_tokenizer_memory(NULL, NULL, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_memory: NULL argument");
    CHECK(bytes == 0);
    EXPECT(xlarun_tokenizer_memory(DEMO, NULL, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_memory: NULL argument");
    EXPECT(xlarun_tokenizer_open(NULL, NULL, &t, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_open: NULL argument");
    CHECK(t == NULL);
    EXPECT(xlarun_tokenizer_open(DEMO, NULL, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_open: NULL argument");
    EXPECT(xlarun_tokenizer_open_in(DEMO, NULL, NULL, 1 << 20, &t, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_open_in: NULL argument");
    EXPECT(xlarun_tokenizer_open_in(NULL, NULL, &e, sizeof e, &t, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_open_in: NULL argument");
    EXPECT(xlarun_tokenizer_open_in(DEMO, NULL, &e, sizeof e, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_open_in: NULL argument");
    EXPECT(xlarun_tokenizer_open(FIX "no-such-model", NULL, &t, &e), XLARUN_ERR_IO, e, "no-such-model/tokenizer.json: cannot open");
    CHECK(t == NULL);
    EXPECT(xlarun_tokenizer_open("", NULL, &t, &e), XLARUN_ERR_IO, e, "tokenizer.json: cannot open"); /* "": the current folder */
    xlarun_tokenizer_close(NULL);
    /* NULL tokenizer: lookups answer "none" */
    CHECK(xlarun_tokenizer_scratch_bytes(NULL, 10) == 0 && xlarun_tokenizer_max_piece(NULL) == 0);
    CHECK(xlarun_tokenizer_vocab_size(NULL) == 0 && xlarun_tokenizer_token_id(NULL, "a", 1) == -1);
    CHECK(xlarun_tokenizer_token_text(NULL, 0, &len) == NULL && len == 0);
    CHECK(xlarun_tokenizer_is_special(NULL, 0) == 0 && xlarun_tokenizer_bos_id(NULL) == -1 && xlarun_tokenizer_adds_bos(NULL) == 0);
    CHECK(xlarun_tokenizer_eos_ids(NULL, &eos) == 0 && eos == NULL);
    CHECK(xlarun_tokenizer_chat_template(NULL) == NULL);
    EXPECT(xlarun_tokenizer_encode(NULL, "a", 1, 0, ids, 8, &n, NULL, 0, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_encode: NULL or closed argument");
    CHECK(n == 0);
    EXPECT(xlarun_tokenizer_decode(NULL, ids, 0, 0, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_decode: NULL or closed argument");
    EXPECT(xlarun_tokenizer_check_model(NULL, m, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_check_model: NULL or closed argument");
    xlarun_detok_init(NULL, NULL, 0); /* no-op */
    xlarun_detok_init(&d, NULL, 0);
    EXPECT(xlarun_detok_push(&d, 3, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_detok_push: NULL argument or uninitialised state");
    EXPECT(xlarun_detok_push(NULL, 3, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_detok_push: NULL argument");
    CHECK(xlarun_detok_flush(NULL, out, sizeof out) == 0 && xlarun_detok_flush(&d, out, sizeof out) == 0);

    /* exact memory: the size works, one byte less and none do not */
    if (xlarun_tokenizer_memory(DEMO, NULL, &bytes, &e) != XLARUN_OK) { CHECKF(0, "%s", e.message); return; }
    mem = amalloc(bytes);
    {
        char want[160];
        snprintf(want, sizeof want, "%lu bytes of tokenizer memory are too few", (unsigned long)(bytes - 1));
        EXPECT(xlarun_tokenizer_open_in(DEMO, NULL, mem, bytes - 1, &t, &e), XLARUN_ERR_MEMORY, e, want);
        CHECK(t == NULL);
        EXPECT(xlarun_tokenizer_open_in(DEMO, NULL, mem, 0, &t, &e), XLARUN_ERR_MEMORY, e, "bytes of tokenizer memory are too few");
    }
    EXPECT(xlarun_tokenizer_open_in(DEMO, NULL, mem, bytes, &t, &e), XLARUN_OK, e, "");
    if (!t) { free(mem); return; }
    CHECK(xlarun_tokenizer_vocab_size(t) == 400);
    /* encode: NULL text (with and without length), NULL output, NULL count, zero-length text */
    EXPECT(xlarun_tokenizer_encode(t, NULL, 3, 0, ids, 8, &n, NULL, 0, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_encode: NULL or closed argument");
    EXPECT(xlarun_tokenizer_encode(t, "ab", 2, 0, NULL, 8, &n, NULL, 0, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_encode: NULL or closed argument");
    EXPECT(xlarun_tokenizer_encode(t, "ab", 2, 0, ids, 8, NULL, NULL, 0, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_encode: NULL or closed argument");
    EXPECT(xlarun_tokenizer_encode(t, NULL, 0, 0, NULL, 0, &n, NULL, 0, &e), XLARUN_OK, e, "");
    CHECK(n == 0); /* no post-processor in this tokenizer: nothing for an empty text */
    EXPECT(xlarun_tokenizer_encode(t, "", 0, 0, ids, 8, &n, NULL, 0, &e), XLARUN_OK, e, "");
    CHECK(n == 0);
    EXPECT(xlarun_tokenizer_encode(t, "ab", 2, 0, NULL, 0, &n, NULL, 0, &e), XLARUN_ERR_MEMORY, e, "the output holds 0");
    CHECK(n > 0); /* the count needed */
    /* decode: NULL ids with a count, NULL length, no room for the NUL, an id at the vocabulary */
    ids[0] = 3;
    EXPECT(xlarun_tokenizer_decode(t, NULL, 2, 0, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_decode: NULL or closed argument");
    EXPECT(xlarun_tokenizer_decode(t, ids, 1, 0, out, sizeof out, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_decode: NULL or closed argument");
    EXPECT(xlarun_tokenizer_decode(t, NULL, 0, 0, out, sizeof out, &len, &e), XLARUN_OK, e, "");
    CHECK(len == 0 && out[0] == 0);
    EXPECT(xlarun_tokenizer_decode(t, ids, 1, 0, out, 0, &len, &e), XLARUN_ERR_MEMORY, e,
           "xlarun_tokenizer_decode: the text is 1 bytes and a NUL, the buffer holds 0");
    EXPECT(xlarun_tokenizer_decode(t, ids, 1, 0, out, 1, &len, &e), XLARUN_ERR_MEMORY, e, "the text is 1 bytes and a NUL, the buffer holds 1");
    ids[1] = 400;
    EXPECT(xlarun_tokenizer_decode(t, ids, 2, 0, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e,
           "xlarun_tokenizer_decode: ids[1] = 400 is outside the vocabulary (0..399)");
    ids[1] = INT32_MIN;
    EXPECT(xlarun_tokenizer_decode(t, ids, 2, 0, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e, "ids[1] = -2147483648 is outside the vocabulary");
    /* lookups with bad ids and NULL text */
    CHECK(xlarun_tokenizer_token_id(t, NULL, 3) == -1 && xlarun_tokenizer_token_id(t, NULL, 0) == -1);
    CHECK(xlarun_tokenizer_token_text(t, 400, &len) == NULL && len == 0 && xlarun_tokenizer_token_text(t, -1, NULL) == NULL);
    CHECK(xlarun_tokenizer_is_special(t, 400) == 0 && xlarun_tokenizer_is_special(t, INT32_MIN) == 0);
    CHECK(xlarun_tokenizer_eos_ids(t, NULL) == 1);
    /* streaming: NULL output, NULL length, no room, ids at and past the vocabulary */
    xlarun_detok_init(&d, t, 0);
    EXPECT(xlarun_detok_push(&d, 3, NULL, 16, &len, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_detok_push: NULL argument");
    EXPECT(xlarun_detok_push(&d, 3, out, sizeof out, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_detok_push: NULL argument");
    EXPECT(xlarun_detok_push(&d, 3, out, 0, &len, &e), XLARUN_ERR_MEMORY, e, "xlarun_detok_push: the piece needs 1 bytes and a NUL, 0 given");
    EXPECT(xlarun_detok_push(&d, 400, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_detok_push: token id 400 is outside the vocabulary (0..399)");
    EXPECT(xlarun_detok_push(&d, -1, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e, "token id -1 is outside the vocabulary");
    CHECK(xlarun_detok_flush(&d, NULL, 64) == 0 && xlarun_detok_flush(&d, out, 0) == 0);
    EXPECT(xlarun_detok_push(&d, 3, out, sizeof out, &len, &e), XLARUN_OK, e, "");
    CHECK(len == 1 && !strcmp(out, "!")); /* the failures left the state as it was */
    EXPECT(xlarun_tokenizer_check_model(t, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_check_model: NULL or closed argument");
    EXPECT(xlarun_tokenizer_check_model(t, m, &e), XLARUN_OK, e, "");
    { /* the chat input from NULL: no-ops */
        xlarun_chat_input ci;
        memset(&ci, 0, sizeof ci);
        xlarun_chat_input_from_tokenizer(NULL, &ci);
        xlarun_chat_input_from_tokenizer(t, NULL);
        CHECK(ci.bos_token == NULL && ci.eos_token == NULL);
    }
    /* closed (its memory is ours, still readable): refused, not used */
    xlarun_tokenizer_close(t);
    EXPECT(xlarun_tokenizer_encode(t, "ab", 2, 0, ids, 8, &n, NULL, 0, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_encode: NULL or closed argument");
    EXPECT(xlarun_tokenizer_decode(t, ids, 1, 0, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_decode: NULL or closed argument");
    EXPECT(xlarun_detok_push(&d, 3, out, sizeof out, &len, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_detok_push: NULL argument or uninitialised state");
    EXPECT(xlarun_tokenizer_check_model(t, m, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_tokenizer_check_model: NULL or closed argument");
    CHECK(xlarun_tokenizer_vocab_size(t) == 0 && xlarun_tokenizer_token_id(t, "!", 1) == -1 && xlarun_tokenizer_scratch_bytes(t, 4) == 0);
    xlarun_tokenizer_close(t); /* twice: no-op */
    free(mem);

    /* tokenizer.json: over the 256 MiB limit (sparse), nested 100,000 deep, an added token id past
       the vocabulary limit */
    mkdir_t("tok");
    {
        FILE *f = fopen(tpath("tok/tokenizer.json"), "wb");
        CHECK(f && ftruncate(fileno(f), (256 << 20) + 1) == 0);
        if (f) fclose(f);
        EXPECT(xlarun_tokenizer_open(tpath("tok"), NULL, &t, &e), XLARUN_ERR_FORMAT, e, "tok/tokenizer.json: 268435457 bytes is over the limit of 268435456");
        EXPECT(xlarun_tokenizer_memory(tpath("tok"), NULL, &bytes, &e), XLARUN_ERR_FORMAT, e, "268435457 bytes is over the limit of 268435456");
    }
    {
        size_t k = 100000;
        char *deep = (char *)malloc(k + 16);
        memcpy(deep, "{\"model\":", 9);
        memset(deep + 9, '[', k);
        deep[k + 9] = 0;
        spits(tpath("tok/tokenizer.json"), deep);
        EXPECT(xlarun_tokenizer_open(tpath("tok"), NULL, &t, &e), XLARUN_ERR_FORMAT, e,
               "tok/tokenizer.json: invalid JSON at line 1 column 73: nesting deeper than 64");
        free(deep);
    }
    {
        size_t tn;
        char *tj = (char *)slurp(DEMO "/tokenizer.json", &tn), *bad;
        bad = replace_all(tj, "\"id\": 2,", "\"id\": 16777216,");
        spits(tpath("tok/tokenizer.json"), bad);
        free(bad);
        EXPECT(xlarun_tokenizer_open(tpath("tok"), NULL, &t, &e), XLARUN_ERR_FORMAT, e,
               "tok/tokenizer.json: added_tokens: expected an object with an integer id 0..16777215, found 16777216");
        CHECK(t == NULL);
        /* the eos list limit (XLARUN_MAX_EOS), and an eos id at the vocabulary size */
        spits(tpath("tok/tokenizer.json"), tj);
        spits(tpath("tok/generation_config.json"), "{\"eos_token_id\": [2, 2, 2, 2, 2, 2, 2, 2, 2]}");
        EXPECT(xlarun_tokenizer_open(tpath("tok"), NULL, &t, &e), XLARUN_ERR_FORMAT, e, "generation_config.json: eos_token_id lists more than 8 ids");
        spits(tpath("tok/generation_config.json"), "{\"eos_token_id\": 400}");
        EXPECT(xlarun_tokenizer_open(tpath("tok"), NULL, &t, &e), XLARUN_ERR_FORMAT, e,
               "generation_config.json: eos_token_id must be token ids below the vocabulary size 400");
        free(tj);
    }
}

/* sampling parameters, samplers, stop strings, chat templates, generation_config.json */
static void test_api_sampling(void) {
    xlarun_error e;
    xlarun_sampling p;
    xlarun_sampler *s = (xlarun_sampler *)&e;
    xlarun_stopper st;
    xlarun_chat_template *ct = NULL;
    xlarun_generation_config gc;
    size_t need, len = 7;
    void *mem;
    float logits[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const int32_t ids[3] = {9, -1, 10};
    memset(&p, 0, sizeof p);

    /* parameters: NULL, NaN, infinities, negative values */
    EXPECT(xlarun_sampling_check(NULL, &e), XLARUN_ERR_ARGUMENT, e, "sampling: no parameters given");
    p.temperature = (float)NAN;
    EXPECT(xlarun_sampling_check(&p, &e), XLARUN_ERR_ARGUMENT, e, "sampling: temperature must be >= 0");
    p.temperature = (float)INFINITY;
    EXPECT(xlarun_sampling_check(&p, &e), XLARUN_ERR_ARGUMENT, e, "sampling: temperature must be >= 0");
    p.temperature = -1.0f;
    EXPECT(xlarun_sampling_check(&p, &e), XLARUN_ERR_ARGUMENT, e, "sampling: temperature must be >= 0");
    p.temperature = 0.5f;
    p.top_p = (float)NAN;
    EXPECT(xlarun_sampling_check(&p, &e), XLARUN_ERR_ARGUMENT, e, "top_p must be in [0, 1]");
    p.top_p = 0.0f;
    p.min_p = -0.25f;
    EXPECT(xlarun_sampling_check(&p, &e), XLARUN_ERR_ARGUMENT, e, "min_p");
    p.min_p = 0.0f;
    p.repetition_penalty = -(float)INFINITY;
    EXPECT(xlarun_sampling_check(&p, &e), XLARUN_ERR_ARGUMENT, e, "repetition_penalty");
    p.repetition_penalty = 0.0f;
    p.top_k = INT32_MIN;
    EXPECT(xlarun_sampling_check(&p, &e), XLARUN_ERR_ARGUMENT, e, "top_k must be >= 0");
    p.top_k = 0;
    CHECK(xlarun_sampling_check(&p, &e) == XLARUN_OK);

    /* samplers: NULL out, a vocabulary of 0 and past the limit, memory one byte short, NULL memory */
    EXPECT(xlarun_sampler_init(&p, 10, &e, sizeof e, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_sampler_init: out is NULL");
    EXPECT(xlarun_sampler_create(&p, 10, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_sampler_create: out is NULL");
    EXPECT(xlarun_sampler_create(&p, 0, &s, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_sampler_create: n_vocab 0 is not in 1..16777216");
    CHECK(s == NULL);
    EXPECT(xlarun_sampler_create(NULL, 16777217, &s, &e), XLARUN_ERR_ARGUMENT, e, "n_vocab 16777217 is not in 1..16777216");
    CHECK(xlarun_sampler_memory(0) > 0); /* a size query: no error to give */
    need = xlarun_sampler_memory(10);
    mem = amalloc(need);
    EXPECT(xlarun_sampler_init(NULL, 0, mem, need, &s, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_sampler_init: n_vocab 0 is not in 1..16777216");
    {
        char want[128];
        snprintf(want, sizeof want, "%lu bytes of sampler memory are too few (xlarun_sampler_memory gives %lu)",
                 (unsigned long)(need - 1), (unsigned long)need);
        EXPECT(xlarun_sampler_init(&p, 10, mem, need - 1, &s, &e), XLARUN_ERR_MEMORY, e, want);
        CHECK(s == NULL);
    }
    EXPECT(xlarun_sampler_init(&p, 10, NULL, need, &s, &e), XLARUN_ERR_MEMORY, e, "bytes of sampler memory are too few");
    p.temperature = (float)NAN;
    EXPECT(xlarun_sampler_init(&p, 10, mem, need, &s, &e), XLARUN_ERR_ARGUMENT, e, "sampling: temperature must be >= 0");
    p.temperature = 0.0f;
    EXPECT(xlarun_sampler_init(NULL, 10, mem, need, &s, &e), XLARUN_OK, e, ""); /* NULL parameters: greedy */
    if (s) {
        EXPECT(xlarun_sampler_set(s, NULL, &e), XLARUN_ERR_ARGUMENT, e, "sampling: no parameters given");
        EXPECT(xlarun_sampler_set(NULL, &p, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_sampler_set: NULL or freed sampler");
        xlarun_sampler_accept(NULL, ids, 3);
        xlarun_sampler_accept(s, NULL, 3);
        xlarun_sampler_accept(s, ids, 0);
        xlarun_sampler_accept(s, ids, 3); /* -1 and 10 are outside: ignored */
        xlarun_sampler_reset(NULL);
        CHECK(xlarun_sampler_sample(s, NULL) == -1 && xlarun_sampler_sample(NULL, logits) == -1);
        CHECK(xlarun_sampler_sample(s, logits) == 9);
        xlarun_sampler_free(s); /* memory of xlarun_sampler_init: marks it freed, frees nothing */
        CHECK(xlarun_sampler_sample(s, logits) == -1);
        EXPECT(xlarun_sampler_set(s, &p, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_sampler_set: NULL or freed sampler");
    }
    xlarun_sampler_free(NULL);
    free(mem);

    /* stop strings: NULL stopper, NULL list, NULL and empty strings, too many, too long */
    {
        static const char *const one[1] = {"x"};
        const char *bad[17];
        char longs[257];
        int k;
        for (k = 0; k < 17; k++) bad[k] = "s";
        EXPECT(xlarun_stopper_init(NULL, one, 1, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_stopper_init: NULL stopper");
        EXPECT(xlarun_stopper_init(&st, NULL, 1, &e), XLARUN_ERR_ARGUMENT, e, "stop strings: NULL list");
        EXPECT(xlarun_stopper_init(&st, bad, 17, &e), XLARUN_ERR_ARGUMENT, e, "stop strings: 17 given, at most 16");
        bad[3] = NULL;
        EXPECT(xlarun_stopper_init(&st, bad, 16, &e), XLARUN_ERR_ARGUMENT, e, "stop string 4 is empty");
        bad[3] = "";
        EXPECT(xlarun_stopper_init(&st, bad, 16, &e), XLARUN_ERR_ARGUMENT, e, "stop string 4 is empty");
        memset(longs, 'a', 256);
        longs[256] = 0;
        bad[3] = longs;
        EXPECT(xlarun_stopper_init(&st, bad, 16, &e), XLARUN_ERR_ARGUMENT, e, "stop string 4 is 256 bytes, at most 255");
        longs[255] = 0;
        EXPECT(xlarun_stopper_init(&st, bad, 16, &e), XLARUN_OK, e, "");
        EXPECT(xlarun_stopper_init(&st, NULL, 0, &e), XLARUN_OK, e, "");
        EXPECT(xlarun_stopper_init(&st, one, 1, &e), XLARUN_OK, e, "");
        CHECK(xlarun_stopper_push(NULL, "x", 1, emit_none, NULL) == 0);
        CHECK(xlarun_stopper_push(&st, NULL, 5, emit_none, NULL) == 0); /* NULL text: nothing pushed */
        CHECK(xlarun_stopper_push(&st, "ab", 0, emit_none, NULL) == 0);
        CHECK(xlarun_stopper_push(&st, "abx", 3, NULL, NULL) == 1);     /* NULL emit: the text is dropped */
        xlarun_stopper_flush(NULL, emit_none, NULL);
        xlarun_stopper_flush(&st, NULL, NULL);
    }

    /* chat templates: NULL template text, NULL out, NULL messages, NULL lengths (tests/test_chat.c has the rest) */
    EXPECT(xlarun_chat_template_create(NULL, 0, &ct, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_chat_template_memory: NULL text");
    EXPECT(xlarun_chat_template_create("{{ x }}", 7, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_chat_template_create: out is NULL");
    EXPECT(xlarun_chat_template_init("{{ x }}", 7, NULL, 64, &ct, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_chat_template_init: NULL mem");
    EXPECT(xlarun_chat_render_memory(NULL, NULL, &need, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_chat_render_memory: NULL argument");
    CHECK(xlarun_chat_template_builtin("llama4") == NULL && xlarun_chat_template_builtin(NULL) == NULL);
    EXPECT(xlarun_chat_template_create(xlarun_chat_template_builtin("chatml"), strlen(xlarun_chat_template_builtin("chatml")), &ct, &e),
           XLARUN_OK, e, "");
    {
        xlarun_chat_message msg[2];
        xlarun_chat_input in;
        char out[256], *text = NULL;
        memset(&in, 0, sizeof in);
        msg[0].role = "user"; msg[0].content = "hi";
        msg[1].role = "assistant"; msg[1].content = NULL;
        in.messages = msg;
        in.n_messages = 2;
        EXPECT(xlarun_chat_render_alloc(ct, &in, &text, &len, &e), XLARUN_ERR_ARGUMENT, e, "chat messages: message 1 has a NULL role or content");
        CHECK(text == NULL);
        in.n_messages = 1;
        EXPECT(xlarun_chat_render_memory(ct, &in, &need, &len, &e), XLARUN_OK, e, ""); /* measure */
        CHECK(len > 0);
        mem = malloc(need);
        EXPECT(xlarun_chat_render(ct, &in, mem, need, out, len, NULL, &e), XLARUN_ERR_MEMORY, e, "chat: the rendered conversation needs");
        EXPECT(xlarun_chat_render(ct, &in, mem, need, out, len + 1, NULL, &e), XLARUN_OK, e, ""); /* NULL len is fine */
        EXPECT(xlarun_chat_render(ct, &in, NULL, need, out, len + 1, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_chat_render: NULL argument");
        free(mem);
        EXPECT(xlarun_chat_render_alloc(ct, &in, NULL, &len, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_chat_render_alloc: text is NULL");
        xlarun_chat_text_free(NULL);
    }
    xlarun_chat_template_free(ct);
    xlarun_chat_template_free(NULL);

    /* generation_config.json: NULL out, NULL text, NaN, infinity, negative and huge numbers */
    EXPECT(xlarun_generation_config_parse(NULL, "{}", 2, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generation_config_parse: out is NULL");
    EXPECT(xlarun_generation_config_parse(NULL, NULL, 0, &gc, &e), XLARUN_OK, e, ""); /* no file: the defaults */
    CHECK(gc.n_eos == 0 && gc.sampling.temperature == 0.0f);
    EXPECT(xlarun_generation_config_parse(NULL, "", 0, &gc, &e), XLARUN_ERR_FORMAT, e, "generation_config.json: invalid JSON at line 1 column 1: unexpected end of input");
    EXPECT(xlarun_generation_config_parse(NULL, "{\"temperature\": NaN}", 20, &gc, &e), XLARUN_ERR_FORMAT, e, "generation_config.json: invalid JSON");
    EXPECT(xlarun_generation_config_parse(NULL, "{\"temperature\": 1e999}", 22, &gc, &e), XLARUN_ERR_FORMAT, e,
           "generation_config.json: 'temperature' must be a number in [0, 1e+30], found 1e999");
    EXPECT(xlarun_generation_config_parse(NULL, "{\"top_p\": -0.5}", 15, &gc, &e), XLARUN_ERR_FORMAT, e, "'top_p' must be a number in [0, 1], found -0.5");
    EXPECT(xlarun_generation_config_parse(NULL, "{\"max_new_tokens\": 1099511627776}", 33, &gc, &e), XLARUN_ERR_FORMAT, e,
           "'max_new_tokens' must be a number in [0, 4.29497e+09], found 1099511627776");
    EXPECT(xlarun_generation_config_parse(NULL, "{\"repetition_penalty\": 0}", 25, &gc, &e), XLARUN_ERR_FORMAT, e, "'repetition_penalty' must be > 0, found 0");
    EXPECT(xlarun_generation_config_load(NULL, NULL, NULL, &gc, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generation_config_load: dir or out is NULL");
    EXPECT(xlarun_generation_config_load(NULL, DEMO, NULL, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generation_config_load: dir or out is NULL");
    { /* over its 16 KiB limit */
        FILE *f;
        mkdir_t("gc");
        f = fopen(tpath("gc/generation_config.json"), "wb");
        CHECK(f && ftruncate(fileno(f), 16385) == 0);
        if (f) fclose(f);
        EXPECT(xlarun_generation_config_load(NULL, tpath("gc"), NULL, &gc, &e), XLARUN_ERR_FORMAT, e,
               "gc/generation_config.json: 16385 bytes is over the limit of 16384");
    }
}

/* generators: NULL session, tokenizer and out; bad options; exact memory; prompts of 0 and 2^40
   tokens, ids past the vocabulary; a freed session under a generator */
static void test_api_generator(xlarun_model *m, xlarun_tokenizer *t) {
    xlarun_error e;
    xlarun_session *s = NULL;
    xlarun_session_options so;
    xlarun_generator_options go;
    xlarun_generator *g = (xlarun_generator *)&e;
    xlarun_generate_result res;
    size_t bytes = 1, sbytes, n = 9;
    void *mem, *smem;
    int32_t ids[4] = {1, 3, 4, 5};
    memset(&so, 0, sizeof so);
    so.n_ctx = 32;
    memset(&go, 0, sizeof go);
    if (xlarun_session_memory(m, &so, &sbytes, &e) != XLARUN_OK) { CHECKF(0, "%s", e.message); return; }
    smem = amalloc(sbytes);
    if (xlarun_session_create_in(m, &so, smem, sbytes, &s, &e) != XLARUN_OK) { CHECKF(0, "%s", e.message); free(smem); return; }

    EXPECT(xlarun_generator_memory(NULL, t, NULL, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "generator: NULL or freed session");
    {   /* no tokenizer: ids only, so no stop strings */
        const char *stop = "x";
        go.stop_strings = &stop;
        go.n_stop_strings = 1;
        EXPECT(xlarun_generator_memory(s, NULL, &go, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "stop strings need a tokenizer");
        memset(&go, 0, sizeof go);
        EXPECT(xlarun_generator_memory(s, NULL, NULL, &bytes, &e), XLARUN_OK, e, "");
    }
    EXPECT(xlarun_generator_memory(s, t, NULL, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generator_memory: bytes is NULL");
    EXPECT(xlarun_generator_create(s, t, NULL, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generator_create: out is NULL");
    EXPECT(xlarun_generator_create(NULL, t, NULL, &g, &e), XLARUN_ERR_ARGUMENT, e, "generator: NULL or freed session");
    CHECK(g == NULL);
    EXPECT(xlarun_generator_init(s, t, NULL, &e, sizeof e, NULL, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generator_init: out is NULL");
    go.n_eos = 65;
    go.eos_ids = ids;
    EXPECT(xlarun_generator_memory(s, t, &go, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "generator: 65 eos ids, at most 64");
    go.n_eos = 1;
    go.eos_ids = NULL;
    EXPECT(xlarun_generator_memory(s, t, &go, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "generator: n_eos given with NULL eos_ids");
    go.n_eos = 0;
    go.sampling.top_p = (float)NAN;
    EXPECT(xlarun_generator_memory(s, t, &go, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "top_p must be in [0, 1]");
    go.sampling.top_p = 0.0f;
    go.n_stop_strings = 1;
    EXPECT(xlarun_generator_create(s, t, &go, &g, &e), XLARUN_ERR_ARGUMENT, e, "stop strings: NULL list");
    CHECK(g == NULL);
    go.n_stop_strings = 0;

    /* exact memory */
    EXPECT(xlarun_generator_memory(s, t, NULL, &bytes, &e), XLARUN_OK, e, "");
    mem = amalloc(bytes);
    {
        char want[160];
        snprintf(want, sizeof want, "%lu bytes of generator memory are too few (xlarun_generator_memory gives %lu)",
                 (unsigned long)(bytes - 1), (unsigned long)bytes);
        EXPECT(xlarun_generator_init(s, t, NULL, mem, bytes - 1, &g, &e), XLARUN_ERR_MEMORY, e, want);
        CHECK(g == NULL);
        EXPECT(xlarun_generator_init(s, t, NULL, NULL, bytes, &g, &e), XLARUN_ERR_MEMORY, e, "bytes of generator memory are too few");
    }
    EXPECT(xlarun_generator_init(s, t, NULL, mem, bytes, &g, &e), XLARUN_OK, e, "");
    if (g) {
        static const int32_t bad[3] = {1, 400, 3};
        /* NULL generator, NULL and empty prompts */
        EXPECT(xlarun_generate_ids(NULL, ids, 2, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generate: NULL or freed generator");
        EXPECT(xlarun_generate_text(NULL, "a", 1, 0, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generate: NULL or freed generator");
        EXPECT(xlarun_generate_ids(g, NULL, 2, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generate: empty prompt");
        EXPECT(xlarun_generate_ids(g, ids, 0, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generate: empty prompt");
        EXPECT(xlarun_generate_text(g, NULL, 3, 0, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generate_text: text is NULL");
        EXPECT(xlarun_generate_text(g, "", 0, 0, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generate_text: the prompt has no tokens");
        /* a prompt of 2^40 tokens or bytes: refused by its length, before any of it is read */
        EXPECT(xlarun_generate_ids(g, ids, (size_t)1 << 40, 1, NULL, NULL, &res, &e), XLARUN_ERR_CONTEXT, e,
               "the prompt of 1099511627776 tokens does not fit the context of 32 tokens");
        EXPECT(xlarun_generate_text(g, "a", (size_t)1 << 40, 0, 1, NULL, NULL, &res, &e), XLARUN_ERR_CONTEXT, e,
               "the prompt of 1099511627776 bytes is longer than the 512 bytes the generator takes (max_prompt_bytes)");
        /* ids at the vocabulary, negative */
        EXPECT(xlarun_generate_ids(g, bad, 3, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e,
               "prompt token 1: id 400 is outside the vocabulary of 400");
        ids[2] = -7;
        EXPECT(xlarun_generate_ids(g, ids, 4, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "prompt token 2: id -7 is outside the vocabulary");
        ids[2] = 4;
        CHECK(xlarun_session_position(s) == 0);
        /* sampling parameters */
        EXPECT(xlarun_generator_set_sampling(NULL, &go.sampling, &e), XLARUN_ERR_ARGUMENT, e, "xlarun_generator_set_sampling: NULL or freed generator");
        EXPECT(xlarun_generator_set_sampling(g, NULL, &e), XLARUN_ERR_ARGUMENT, e, "sampling: no parameters given");
        go.sampling.temperature = -(float)INFINITY;
        EXPECT(xlarun_generator_set_sampling(g, &go.sampling, &e), XLARUN_ERR_ARGUMENT, e, "sampling: temperature must be >= 0");
        go.sampling.temperature = 0.0f;
        CHECK(xlarun_generator_ids(NULL, &n) == NULL && n == 0);
        CHECK(xlarun_generator_ids(g, NULL) != NULL);
        /* it still works after all that, with NULL callback and result */
        EXPECT(xlarun_generate_ids(g, ids, 4, 2, NULL, NULL, NULL, &e), XLARUN_OK, e, "");
        CHECK(xlarun_generator_ids(g, &n) != NULL && n >= 5 && n <= 6);
        /* its session freed (the session's memory is ours, so this is defined): refused */
        xlarun_session_free(s);
        EXPECT(xlarun_generate_ids(g, ids, 4, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "or its session was freed");
        EXPECT(xlarun_generate_text(g, "ab", 2, 0, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "or its session was freed");
        EXPECT(xlarun_generator_memory(s, t, NULL, &bytes, &e), XLARUN_ERR_ARGUMENT, e, "generator: NULL or freed session");
        xlarun_generator_free(g); /* memory of xlarun_generator_init: marks it freed */
        EXPECT(xlarun_generate_ids(g, ids, 4, 1, NULL, NULL, &res, &e), XLARUN_ERR_ARGUMENT, e, "NULL or freed generator");
        EXPECT(xlarun_generator_set_sampling(g, &go.sampling, &e), XLARUN_ERR_ARGUMENT, e, "NULL or freed generator");
    }
    xlarun_generator_free(NULL);
    xlarun_session_free(s);
    free(mem);
    free(smem);
}

/* the bugs a review found, each fixed: kept as regressions */
static void test_api_regressions(xlarun_model *m, xlarun_tokenizer *t) {
    xlarun_error e;
    xlarun_session *s = NULL;
    xlarun_session_options so;
    xlarun_generator *g = NULL;
    xlarun_generation_config gc;
    int32_t ids[4] = {1, 3, 4, 5};
    memset(&so, 0, sizeof so);
    so.n_ctx = 16;
    EXPECT(xlarun_session_create(m, &so, &s, &e), XLARUN_OK, e, "");
    if (!s) return;
    /* a length past the context is refused before any id is read (ids has 4 entries) */
    EXPECT(xlarun_session_prefill(s, ids, (size_t)1 << 40, &e), XLARUN_ERR_CONTEXT, e,
           "1099511627776 tokens do not fit: the context holds 16 and 0 are used");
    /* a heap generator freed after its heap session: xlarun_generator_free reads nothing of the
       session (ASan and valgrind watch this) */
    EXPECT(xlarun_generator_create(s, t, NULL, &g, &e), XLARUN_OK, e, "");
    xlarun_session_free(s);
    xlarun_generator_free(g);
    /* generation_config: NULL text with a length */
    EXPECT(xlarun_generation_config_parse(m, NULL, 5, &gc, &e), XLARUN_ERR_ARGUMENT, e,
           "xlarun_generation_config_parse: json is NULL but len is 5");
    EXPECT(xlarun_generation_config_parse(m, NULL, 0, &gc, &e), XLARUN_OK, e, "");
    /* sampling_check clears an earlier error when it passes */
    {
        xlarun_sampling p;
        memset(&p, 0, sizeof p);
        e.status = XLARUN_ERR_FORMAT;
        strcpy(e.message, "stale");
        EXPECT(xlarun_sampling_check(&p, &e), XLARUN_OK, e, "");
        CHECK(e.message[0] == 0);
    }
}

/* a closed tokenizer or model is refused where it is passed in */
static void test_api_closed(void) {
    xlarun_error e;
    xlarun_model *m = NULL, *m2 = NULL;
    xlarun_tokenizer *t = NULL;
    xlarun_session *s = NULL;
    xlarun_generator *g = NULL;
    size_t bytes;
    if (xlarun_model_open(DEMO, NULL, &m, &e) != XLARUN_OK) { CHECKF(0, "%s", e.message); return; }
    if (xlarun_tokenizer_open(DEMO, NULL, &t, &e) != XLARUN_OK) { CHECKF(0, "%s", e.message); xlarun_model_close(m); return; }
    EXPECT(xlarun_session_create(m, NULL, &s, &e), XLARUN_OK, e, "");
    EXPECT(xlarun_tokenizer_check_model(t, m, &e), XLARUN_OK, e, "");
    xlarun_tokenizer_close(t); /* heap tokenizer: freed; the generator must not be given it */
    t = NULL;
    /* without a tokenizer the generator works on ids only: text is refused with a message */
    EXPECT(xlarun_generator_create(s, t, NULL, &g, &e), XLARUN_OK, e, "");
    EXPECT(xlarun_generate_text(g, "hi", 2, 0, 1, NULL, NULL, NULL, &e), XLARUN_ERR_ARGUMENT, e, "without a tokenizer");
    xlarun_generator_free(g);
    g = NULL;
    xlarun_session_free(s);
    /* a model in caller memory stays readable after close: its config is no longer handed out */
    {
        xlarun_status st;
        void *mem;
        if (xlarun_model_memory(DEMO, NULL, &bytes, &e) != XLARUN_OK) { CHECKF(0, "%s", e.message); xlarun_model_close(m); return; }
        mem = amalloc(bytes);
        st = xlarun_model_open_in(DEMO, NULL, mem, bytes, &m2, &e);
        CHECKF(st == XLARUN_OK, "%s", e.message);
        if (st == XLARUN_OK) {
            xlarun_tokenizer *t2 = NULL;
            CHECK(xlarun_model_config(m2) != NULL);
            xlarun_model_close(m2);
            CHECK(xlarun_model_config(m2) == NULL && xlarun_model_weight_bytes(m2) == 0);
            if (xlarun_tokenizer_open(DEMO, NULL, &t2, &e) == XLARUN_OK) {
                EXPECT(xlarun_tokenizer_check_model(t2, m2, &e), XLARUN_ERR_ARGUMENT, e,
                       "xlarun_tokenizer_check_model: NULL or closed argument");
                xlarun_tokenizer_close(t2);
            }
        }
        free(mem);
    }
    xlarun_model_close(m);
}

/* the demo's model (and tokenizer) opened for one case: 1, or 0 after a failed check */
static int open_demo(xlarun_model **m, xlarun_tokenizer **t) {
    xlarun_error e;
    if (xlarun_model_open(DEMO, NULL, m, &e) != XLARUN_OK) { CHECKF(0, "%s", e.message); return 0; }
    if (t && xlarun_tokenizer_open(DEMO, NULL, t, &e) != XLARUN_OK) { CHECKF(0, "%s", e.message); xlarun_model_close(*m); return 0; }
    return 1;
}

static void test_api_rest(void) {
    xlarun_model *m = NULL;
    xlarun_tokenizer *t = NULL;
    if (test_case("api small")) test_api_small();
    if (test_case("api sampling")) test_api_sampling();
    if (test_case("api tokenizer") && open_demo(&m, NULL)) {
        test_api_tokenizer(m);
        xlarun_model_close(m);
    }
    if (test_case("api generator") && open_demo(&m, &t)) {
        test_api_generator(m, t);
        xlarun_tokenizer_close(t);
        xlarun_model_close(m);
    }
    if (test_case("api regressions") && open_demo(&m, &t)) {
        test_api_regressions(m, t);
        xlarun_tokenizer_close(t);
        xlarun_model_close(m);
    }
    if (test_case("api closed")) test_api_closed();
    if (test_case("chat_template.jinja")) test_chat_template_file();
}

/* the default thread count of the tools: 1..512; 1 where the library has no threads */
static void test_physical_cores(void) {
    uint32_t n = xlarun_physical_cores();
    CHECKF(n >= 1 && n <= 512, "xlarun_physical_cores() = %u", n);
#if defined(XLARUN_NO_THREADS)
    CHECK(n == 1);
#endif
    CHECK(xlarun_physical_cores() == n);
}

int main(int argc, char **argv) {
    static const struct { const char *name; void (*run)(void); } cases[] = {
        {"safetensors begin", test_st_begin}, {"safetensors json", test_st_json}, {"safetensors header", test_st_header},
        {"safetensors truncated", test_st_truncated}, {"safetensors valid", test_st_valid}, {"model tensors", test_model_tensors},
        {"model biases", test_model_biases}, {"model sharded", test_model_sharded}, {"api model and session", test_api_model},
        {"io", test_io}, {"physical cores", test_physical_cores}};
    size_t i;
    test_init(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* the final line survives a sanitizer's exit */
    strcpy(root, "/tmp/xlarun-errors-XXXXXX");
    if (!mkdtemp(root)) { fprintf(stderr, "mkdtemp failed\n"); return 2; }
    for (i = 0; i < sizeof cases / sizeof *cases; i++)
        if (test_case("%s", cases[i].name)) cases[i].run();
    test_api_rest();
    rm_rf(root);
    return test_report("errors");
}
