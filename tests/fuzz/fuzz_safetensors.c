/* fuzz_safetensors: the streaming safetensors reader. The input is one .safetensors file, read
   through a callback that hands out short reads; the last byte of the input chooses whether the
   file size is known (as from the file system) or not (as from a pipe), and the chunk size of
   xlarun_st_read. Every tensor is pulled in file order and its bytes read to the end. */
#include "fuzz.h"

typedef struct { const uint8_t *p; size_t n, pos, step; } rd;

static size_t rd_read(void *user, void *buf, size_t n) {
    rd *r = (rd *)user;
    size_t k = r->n - r->pos;
    if (k > n) k = n;
    if (k > r->step) k = r->step;
    if (k) memcpy(buf, r->p + r->pos, k);
    r->pos += k;
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    xlarun_st_reader r;
    xlarun_error e;
    xlarun_status st;
    rd src;
    unsigned mode = size ? data[size - 1] : 0;
    size_t need, i, chunk = 1 + (mode >> 2) * 37;
    void *mem;
    const xlarun_st_tensor *t;
    unsigned char buf[4096];
    char meta[64];
    src.p = data;
    src.n = size;
    src.pos = 0;
    src.step = (mode & 2) ? 7 : 65536;
    st = xlarun_st_begin(&r, rd_read, &src, "fuzz.safetensors", (mode & 1) ? 0 : size, &e);
    fuzz_check_err(st, &e);
    if (st != XLARUN_OK) return 0;
    need = xlarun_st_memory(&r);
    FUZZ_CHECK(need > r.header_bytes);
    if (need > (64u << 20)) return 0; /* an unknown size claims a header the input cannot hold */
    mem = malloc(need);
    FUZZ_CHECK(mem != NULL);
    /* one byte too few is refused first */
    st = xlarun_st_read_header(&r, mem, need - 1, &e);
    FUZZ_CHECK(st == XLARUN_ERR_MEMORY);
    st = xlarun_st_read_header(&r, mem, need, &e);
    fuzz_check_err(st, &e);
    if (st == XLARUN_OK) {
        uint64_t end = 8 + r.header_bytes;
        for (i = 0; i < xlarun_st_count(&r); i++) {
            const xlarun_st_tensor *u = xlarun_st_tensor_at(&r, i);
            FUZZ_CHECK(u && u->name && u->name[0] && u->offset == end && u->ndim <= XLARUN_MAX_DIMS);
            FUZZ_CHECK((unsigned)u->dtype < XLARUN_DTYPE_COUNT);
            end += u->nbytes;
        }
        FUZZ_CHECK(xlarun_st_tensor_at(&r, i) == NULL);
        if (!(mode & 1)) FUZZ_CHECK(end == size);
        xlarun_st_metadata(&r, "format", meta, sizeof meta);
        xlarun_st_metadata(&r, "xlarun.quant", meta, 3);
        for (;;) {
            st = xlarun_st_next(&r, &t, &e);
            fuzz_check_err(st, &e);
            if (st != XLARUN_OK || !t) break;
            if (mode & 4) continue; /* skip the bytes: xlarun_st_next discards them */
            for (;;) {
                size_t got = 0;
                st = xlarun_st_read(&r, buf, chunk < sizeof buf ? chunk : sizeof buf, &got, &e);
                fuzz_check_err(st, &e);
                if (st != XLARUN_OK || got == 0) break;
            }
            if (st != XLARUN_OK) break;
        }
        if (st == XLARUN_OK) FUZZ_CHECK(src.pos == size); /* the end was confirmed */
    }
    free(mem);
    return 0;
}
