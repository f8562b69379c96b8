/* amx_q8.c - prototype (tools/amx; not part of the library or the tests): Intel AMX int8 GEMM for xlarun's q8_0 / q4_0
   prefill, checked bit for bit against xlarun_k_qmatmul (the AVX-512 VNNI path) and timed
   against it, single thread.

   Build:  gcc -std=gnu99 -O2 -march=native -Wall -Wextra amx_q8.c -o amx_q8 -lm
   Run:    ./amx_q8 [reps] [which]   which: any of 8 (q8_0 shapes), 4 (q4_0), d (decode); default all
   Times are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the machine is shared.

   Two AMX kernels, one pipelined tile stream (see "The AMX stream" below):
     EXACT  reproduces the current canonical AVX-512 reduction of xlarun_kernels.h bit for bit:
            per 128-element step, 16 f32 lanes per output, lane l = 4j + q holding the integer
            sum of elements 4q..4q+3 and 16+4q..16+4q+3 (8 elements) of block 4st + j,
            acc_l = fma(float(lane), d*dx, acc_l), then xlarun_k__hsum's tree (8+8, 4+4, 2+2,
            1+1). Each lane's 8-element sum is one TDPBSSD with K = 8 bytes (A: 16 tokens x 8
            bytes, B: 2 rows x 16 weight rows x 4 bytes); C is stored after every one.
     BLOCK  a proposed NEW canonical reduction (per-block integer sums, 16 f32 lanes):
            super-step s = 16 blocks (512 elements), lane l holds the whole 32-element sum of
            block 16s + 4(l%4) + l/4, acc_l = fma(float(isum_b), d_b*dx_b, acc_l), missing
            blocks (K % 512) add +0 (what a zero-padded fma does), then the same hsum tree.
            AMX: one TDPBSSD per block with K = 32 bytes. A VNNI GEMM and a VNNI decode dot for
            the same order (vb_*) are included: what xlarun's VNNI kernels would become. Per
            step the same two vpdpbusd as today; every 4 steps an exact integer 4x4
            transpose-add (unpack lo/hi 32, then 64) replaces 3 of the 4 cvt/mul/fma.
   C tile rows = 16 tokens, C columns = 16 weight rows (xlarun splits rows across threads in
   units of 16 already); the weights are repacked into the AMX B layout either once
   ("prepacked") or per call, one 16-row panel at a time into a small buffer (per-thread scratch)
   that every 16-token group of the call then reuses. N and M multiples of 16 here.
*/
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <immintrin.h>
#include "../../xlarun_kernels.h"

#if !defined(__AMX_TILE__) || !defined(__AMX_INT8__) || !defined(__AVX512VNNI__)
#error "build with -march=native on an AMX machine (or -mamx-tile -mamx-int8 -mamx-bf16 ...)"
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time of this thread: the machine is shared, descheduled time is not counted */
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- AMX permission and tile configuration ------------------------------------------------ */
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18
static int amx_request(void) { return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0; }

typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} __attribute__((packed, aligned(64))) tilecfg;

/* tmm0-3: C (16 x 16 int32), used in rotation; tmm4, tmm5: A (16 tokens x kb bytes); tmm6, tmm7: B (kb/4 rows x 64) */
static void tile_config(int kb) {
    tilecfg c;
    int t;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (t = 0; t < 4; t++) { c.colsb[t] = 64; c.rows[t] = 16; }
    for (t = 4; t < 6; t++) { c.colsb[t] = (uint16_t)kb; c.rows[t] = 16; }
    for (t = 6; t < 8; t++) { c.colsb[t] = 64; c.rows[t] = (uint8_t)(kb / 4); }
    /* GCC 12 does not see that ldtilecfg reads c: without this the stores above are dropped as
       dead at -O2 and ldtilecfg faults (SIGSEGV) on an all-zero config */
    __asm__ volatile("" : : "m"(c));
    _tile_loadconfig(&c);
}

/* ---- helpers -------------------------------------------------------------------------------- */
static uint64_t rng = 88172645463325252ull;
static double urand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (double)(rng >> 11) / 9007199254740992.0; }
static float grand(void) { double u = urand() + 1e-12, v = urand(); return (float)(sqrt(-2 * log(u)) * cos(6.283185307179586 * v)); }
static void *amalloc(size_t n) { void *p = aligned_alloc(64, (n + 63) / 64 * 64); if (!p) { perror("alloc"); exit(1); } memset(p, 0, (n + 63) / 64 * 64); return p; }

/* q of element e (0..31) of block b of a row */
static inline int qget(int q4, const unsigned char *row, size_t b, int e) {
    if (!q4) return (signed char)row[32 * b + e];
    return e < 16 ? (int)(row[16 * b + e] & 15) - 8 : (int)(row[16 * b + e - 16] >> 4) - 8;
}

/* the activation record of xlarun's AVX-512 build: per step of 4 blocks 256 bytes:
   A[64] = elements 0..15 of each block, B[64] = 16..31, f32 dx lanes[16] (block l/4), int32 zp[16] */
#define REC 256

/* the hsum tree of xlarun_k__hsum, across 16 lane arrays, 16 outputs at a time */
static inline __m512 tree16(const float *a /* [16 lanes][ld] */, size_t ld) {
    __m512 s[8], t[4], u[2];
    int i;
    for (i = 0; i < 8; i++) s[i] = _mm512_add_ps(_mm512_load_ps(a + i * ld), _mm512_load_ps(a + (i + 8) * ld));
    for (i = 0; i < 4; i++) t[i] = _mm512_add_ps(s[i], s[i + 4]);
    for (i = 0; i < 2; i++) u[i] = _mm512_add_ps(t[i], t[i + 2]);
    return _mm512_add_ps(u[0], u[1]);
}

/* =============================================================================================
   The AMX stream shared by both kernels. One (16-row panel, 16-token group) tile is a list of
   block products, lane-major (all of lane l's products in K order, then lane l + 1); each is one
   TDPBSSD into a zeroed C tile whose 16 x 16 int32 go out through memory to the vector unit:
     acc[m] = fma(float(C[m][0..15]), dW[b][0..15] * dx[m][b], acc[m])      (16 tokens m)
   exactly the cvt / mul / fma of the VNNI kernels, with the 16 weight rows in the lanes instead
   of the 16 (partial) sums of one row. At a lane's end its 16 vectors go to accb[lane]; after the
   last lane, xlarun_k__hsum's tree runs across the 16 lane arrays (vertically, 16 outputs a time).
   Software pipeline, step i: store the C of product i - 2 (tile (i - 2) % 4, its TDPBSSD long
   issued) to cb[(i - 2) % 4], scale product i - 3 from cb, then load, zero and multiply product
   i in tile i % 4 (tmm0-3: C, tmm4/5: A, tmm6/7: B, alternating). The stream does not drain
   between lanes.
   ============================================================================================= */
/* micro-benchmark switches (micro.c): drop the tile work or the scaling */
#ifndef NO_TILE
#define NO_TILE 0
#endif
#ifndef NO_POST
#define NO_POST 0
#endif
#define MAXITEMS (16 * 256) /* K up to 32768 */

typedef struct {
    uint32_t a[MAXITEMS], b[MAXITEMS], blk[MAXITEMS]; /* A, B byte offsets; the block of the scales */
    uint8_t fl[MAXITEMS];  /* 1: a lane's first product, 2: its last, 4: the lane misses a padded block, lane << 3 */
    uint32_t cnt;
    uint16_t empty;        /* lanes with no product at all (bit l) */
} items;

#define TDO(t, a_, lda, w_)                                                                      \
    do {                                                                                         \
        if ((t) == 0) { _tile_loadd(4, a_, lda); _tile_loadd(6, w_, 64); _tile_zero(0); _tile_dpbssd(0, 4, 6); } \
        if ((t) == 1) { _tile_loadd(5, a_, lda); _tile_loadd(7, w_, 64); _tile_zero(1); _tile_dpbssd(1, 5, 7); } \
        if ((t) == 2) { _tile_loadd(4, a_, lda); _tile_loadd(6, w_, 64); _tile_zero(2); _tile_dpbssd(2, 4, 6); } \
        if ((t) == 3) { _tile_loadd(5, a_, lda); _tile_loadd(7, w_, 64); _tile_zero(3); _tile_dpbssd(3, 5, 7); } \
    } while (0)
#define TST(t, c_)                                                                               \
    do {                                                                                         \
        if ((t) == 0) _tile_stored(0, c_, 64);                                                   \
        if ((t) == 1) _tile_stored(1, c_, 64);                                                   \
        if ((t) == 2) _tile_stored(2, c_, 64);                                                   \
        if ((t) == 3) _tile_stored(3, c_, 64);                                                   \
    } while (0)
/* product p_: its scaling, with its lane's start and end */
#define POST(p_)                                                                                 \
    do {                                                                                         \
        const int32_t *c_ = cb + ((p_) & 3) * 256;                                             \
        uint8_t f_ = it->fl[p_];                                                                 \
        size_t b_ = it->blk[p_];                                                                 \
        __m512 dv_ = _mm512_loadu_ps(dW + 16 * b_);                                              \
        const float *dx_ = dxg + 16 * b_;                                                        \
        if (f_ & 1) { _Pragma("GCC unroll 16") for (m = 0; m < 16; m++) acc[m] = _mm512_setzero_ps(); } \
        _Pragma("GCC unroll 16")                                                                 \
        for (m = 0; m < 16; m++)                                                                 \
            acc[m] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_load_si512((const void *)(c_ + 16 * m))), \
                                     _mm512_mul_ps(dv_, _mm512_set1_ps(dx_[m])), acc[m]);        \
        if (f_ & 2) {                                                                            \
            if (f_ & 4) { _Pragma("GCC unroll 16") for (m = 0; m < 16; m++) acc[m] = _mm512_add_ps(acc[m], _mm512_setzero_ps()); } \
            _Pragma("GCC unroll 16") for (m = 0; m < 16; m++) _mm512_store_ps(accb + (f_ >> 3) * 256 + 16 * m, acc[m]); \
        }                                                                                        \
    } while (0)
#define STEP(t)                                                                                  \
    do {                                                                                         \
        size_t i_ = i + (t);                                                                     \
        if (i_ >= 2 && i_ - 2 < cnt && !NO_TILE) TST(((t) + 2) & 3, cb + ((i_ - 2) & 3) * 256);  \
        if (i_ >= 3 && i_ - 3 < cnt && !NO_POST) POST(i_ - 3);                                   \
        if (i_ < cnt && !NO_TILE) TDO(t, xg + it->a[i_], LDA, wb + it->b[i_]);                   \
    } while (0)

/* the tile: xg = this token group's activations, dxg = its dx [b][16], wb/dW = the panel */
#define TILE_FN(name, LDA_)                                                                      \
static void name(const items *it, const int8_t *xg, const float *dxg, const int8_t *wb, const float *dW, \
                 float *accb, int32_t *cb, float *out, size_t ldy) {                             \
    const size_t LDA = (LDA_), cnt = it->cnt;                                                    \
    size_t i, m, l;                                                                              \
    __m512 acc[16];                                                                              \
    for (m = 0; m < 16; m++) acc[m] = _mm512_setzero_ps();                                       \
    for (l = 0; l < 16; l++)                                                                     \
        if (it->empty >> l & 1) /* no block at all (K < 512): fma(0, 0, +0) leaves +0 */         \
            for (m = 0; m < 16; m++) _mm512_store_ps(accb + l * 256 + 16 * m, _mm512_setzero_ps()); \
    for (i = 0; i < cnt + 3; i += 4) { STEP(0); STEP(1); STEP(2); STEP(3); }                     \
    for (m = 0; m < 16; m++) _mm512_storeu_ps(out + m * ldy, tree16(accb + 16 * m, 256));       \
}
TILE_FN(exact_tile, 8)
TILE_FN(block_tile, 32)
#undef STEP
#undef POST
#undef TILE_FN

/* mark lane starts and ends; c0 = the lane's first item, n_need = products the lane would have
   without padding (nst or nss) */
static void lane_done(items *it, uint32_t c0, size_t l, size_t n_need) {
    if (it->cnt == c0) { it->empty |= (uint16_t)(1u << l); return; }
    it->fl[c0] |= 1;
    it->fl[it->cnt - 1] |= (uint8_t)(2 | (it->cnt - c0 < n_need ? 4 : 0));
}
static void item_add(items *it, size_t a, size_t b, size_t blk, size_t l) {
    it->a[it->cnt] = (uint32_t)a; it->b[it->cnt] = (uint32_t)b; it->blk[it->cnt] = (uint32_t)blk;
    it->fl[it->cnt++] = (uint8_t)(l << 3);
}

/* =============================================================================================
   EXACT: bit-identical to the current VNNI canonical reduction (lane l = 4j + q of step st: the
   8 elements 4q..4q+3, 16+4q..16+4q+3 of block 4st + j; one TDPBSSD with K = 8 bytes)
   ============================================================================================= */
static void exact_items(items *it, size_t K) {
    size_t nst = (K + 127) / 128, nb = K / 32, st, l;
    it->cnt = 0; it->empty = 0;
    for (l = 0; l < 16; l++) {
        uint32_t c0 = it->cnt;
        for (st = 0; st < nst; st++)
            if (4 * st + l / 4 < nb) item_add(it, (st * 16 + l) * 128, (st * 16 + l) * 128, 4 * st + l / 4, l);
        lane_done(it, c0, l, nst);
    }
}

/* activations: XA1[group of 16][st][l][16][8] (dword l and dword 16 + l of token m's step st),
   dxT[group][b][16] */
static void exact_pack_act(const unsigned char *XQ, size_t xb, size_t M, size_t K, int8_t *XA1, float *dxT) {
    size_t nst = (K + 127) / 128, nb = K / 32, st, m, l;
    for (m = 0; m < M; m++)
        for (st = 0; st < nst; st++) {
            const unsigned char *rec = XQ + m * xb + st * REC;
            for (l = 0; l < 16; l++) {
                int8_t *d = XA1 + ((((m / 16) * nst + st) * 16 + l) * 16 + m % 16) * 8;
                memcpy(d, rec + 4 * l, 4);
                memcpy(d + 4, rec + 64 + 4 * l, 4);
            }
            for (l = 0; l < 4; l++)
                if (4 * st + l < nb) memcpy(dxT + ((m / 16) * nb + 4 * st + l) * 16 + m % 16, rec + 128 + 16 * l, 4);
        }
}

/* one 16-row panel of weights: WB1[st][l][2][16][4]; dW[b][16] f32 (scalar: this kernel loses anyway) */
static void exact_pack_w(int q4, const unsigned char *W, const unsigned char *S, size_t K, size_t r, int8_t *WB1, float *dW) {
    size_t rb = q4 ? K / 2 : K, sb = K / 16, nst = (K + 127) / 128, nb = K / 32, st, l, n, e;
    for (st = 0; st < nst; st++)
        for (l = 0; l < 16; l++) {
            size_t b = 4 * st + l / 4, q = l % 4;
            int8_t *d = WB1 + (st * 16 + l) * 128;
            if (b >= nb) { memset(d, 0, 128); continue; }
            for (n = 0; n < 16; n++) {
                const unsigned char *row = W + (r + n) * rb;
                for (e = 0; e < 4; e++) {
                    d[4 * n + e] = (int8_t)qget(q4, row, b, (int)(4 * q + e));
                    d[64 + 4 * n + e] = (int8_t)qget(q4, row, b, (int)(16 + 4 * q + e));
                }
            }
        }
    for (l = 0; l < nb; l++)
        for (n = 0; n < 16; n++) dW[l * 16 + n] = xlarun_k_f16_to_f32(xlarun_k__ldh(S + (r + n) * sb + 2 * l));
}

/* whole GEMM rows [0, N) x tokens [0, M) (N, M multiples of 16); prepacked: WB1all/dWall hold
   every panel, else each panel is packed into wbuf/dbuf (the per-thread scratch) when reached */
static void exact_gemm(int q4, const unsigned char *W, const unsigned char *S, size_t K, size_t N, const unsigned char *XQ,
                       size_t M, float *Y, size_t ldy, const int8_t *WB1all, const float *dWall, int8_t *XA1, float *dxT,
                       int8_t *wbuf, float *dbuf, items *it, float *accb, int32_t *cb) {
    size_t xb = xlarun_k_qact_bytes(K), nst = (K + 127) / 128, nb = K / 32, r, g;
    exact_pack_act(XQ, xb, M, K, XA1, dxT);
    exact_items(it, K);
    tile_config(8);
    for (r = 0; r < N; r += 16) {
        const int8_t *wb;
        const float *dw;
        if (WB1all) { wb = WB1all + (r / 16) * nst * 16 * 128; dw = dWall + (r / 16) * nb * 16; }
        else { exact_pack_w(q4, W, S, K, r, wbuf, dbuf); wb = wbuf; dw = dbuf; }
        for (g = 0; g < M; g += 16)
            exact_tile(it, XA1 + (g / 16) * nst * 16 * 128, dxT + (g / 16) * nb * 16, wb, dw, accb, cb, Y + g * ldy + r, ldy);
    }
    _tile_release();
}

/* =============================================================================================
   BLOCK: the proposed per-block canonical order (AMX + a matching VNNI GEMM for reference)
   ============================================================================================= */
/* lane l of super-step s holds block 16s + 4(l%4) + l/4 */
static inline size_t blk_of(size_t s, size_t l) { return 16 * s + 4 * (l % 4) + l / 4; }

/* the A and B tiles are stored in the order the stream visits them (lane-major), so both are read
   sequentially and the hardware prefetcher follows: pos(b) = the item index of block b */
#ifndef BLOCK_ORDER_LAYOUT
#define BLOCK_ORDER_LAYOUT 0 /* 1: tiles stored in block order instead (the stream then jumps) */
#endif
static size_t blk_pos(size_t b, size_t nb) {
    if (BLOCK_ORDER_LAYOUT) return b;
    size_t off = b % 16, l = 4 * (off % 4) + off / 4, lp, pos = b / 16;
    for (lp = 0; lp < l; lp++) {
        size_t o = 4 * (lp % 4) + lp / 4;
        pos += nb > o ? (nb - o + 15) / 16 : 0;
    }
    return pos;
}

static void block_items(items *it, size_t K) {
    size_t nb = K / 32, nss = (nb + 15) / 16, s, l;
    it->cnt = 0; it->empty = 0;
    for (l = 0; l < 16; l++) {
        uint32_t c0 = it->cnt;
        for (s = 0; s < nss; s++)
            if (blk_of(s, l) < nb) item_add(it, blk_pos(blk_of(s, l), nb) * 512, blk_pos(blk_of(s, l), nb) * 512, blk_of(s, l), l);
        lane_done(it, c0, l, nss);
    }
}

/* activations: XA2[group of 16][pos(b)][16][32] in element order (a group contiguous), dxT[group][b][16] */
static void block_pack_act(const unsigned char *XQ, size_t xb, size_t M, size_t K, int8_t *XA2, float *dxT) {
    size_t nb = K / 32, b, m, pos[1024];
    for (b = 0; b < nb; b++) pos[b] = blk_pos(b, nb);
    for (m = 0; m < M; m++)
        for (b = 0; b < nb; b++) {
            const unsigned char *rec = XQ + m * xb + (b / 4) * REC;
            int8_t *d = XA2 + (((m / 16) * nb + pos[b]) * 16 + m % 16) * 32; /* [group][pos(b)][16][32] */
            memcpy(d, rec + 16 * (b % 4), 16);
            memcpy(d + 16, rec + 64 + 16 * (b % 4), 16);
            memcpy(dxT + ((m / 16) * nb + b) * 16 + m % 16, rec + 128 + 16 * (b % 4), 4);
        }
}

/* 16 x 16 dword transpose: out[j] lane i = r[i] lane j (64 shuffles) */
static inline void tr16(const __m512i *r, __m512i *out) {
    __m512i t[16], u[16];
    int i, j;
    for (i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (i = 0; i < 4; i++) {
        u[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    for (j = 0; j < 4; j++) {
        __m512i v = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x88), v1 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xDD);
        __m512i w = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x88), w1 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xDD);
        out[j] = _mm512_shuffle_i32x4(v, w, 0x88);
        out[8 + j] = _mm512_shuffle_i32x4(v, w, 0xDD);
        out[4 + j] = _mm512_shuffle_i32x4(v1, w1, 0x88);
        out[12 + j] = _mm512_shuffle_i32x4(v1, w1, 0xDD);
    }
}

/* one 16-row panel: WB2[pos(b)][8][16][4] (row k of the B tile: elements 4k..4k+3 of 16 rows), dW[b][16].
   Two blocks of 16 rows at a time are one 16 x 16 dword transpose (q4: nibbles unpacked first);
   the scales, 16 blocks of 16 rows, another one. */
static void block_pack_w(int q4, const unsigned char *W, const unsigned char *S, size_t K, size_t r, int8_t *WB2, float *dW) {
    size_t rb = q4 ? K / 2 : K, sb = K / 16, nb = K / 32, p, n, j;
    __m512i in[16], out[16];
    for (p = 0; 2 * p < nb; p++) {
        int two = 2 * p + 1 < nb;
        for (n = 0; n < 16; n++) {
            const unsigned char *row = W + (r + n) * rb;
            if (!q4) in[n] = two ? _mm512_loadu_si512((const void *)(row + 64 * p))
                                 : _mm512_maskz_loadu_epi8((__mmask64)0xFFFFFFFFull, (const void *)(row + 64 * p));
            else {
                __m256i v = two ? _mm256_loadu_si256((const __m256i *)(const void *)(row + 32 * p))
                                : _mm256_maskz_loadu_epi8((__mmask32)0xFFFF, (const void *)(row + 32 * p));
                __m256i lo = _mm256_and_si256(v, _mm256_set1_epi8(15)), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(15));
                __m512i z = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); /* lo0 lo1 hi0 hi1 */
                in[n] = _mm512_sub_epi8(_mm512_shuffle_i32x4(z, z, _MM_SHUFFLE(3, 1, 2, 0)), _mm512_set1_epi8(8));
            }
        }
        tr16(in, out);
        for (j = 0; j < 8; j++) _mm512_store_si512((void *)(WB2 + blk_pos(2 * p, nb) * 512 + j * 64), out[j]);
        for (j = 8; two && j < 16; j++) _mm512_store_si512((void *)(WB2 + blk_pos(2 * p + 1, nb) * 512 + (j - 8) * 64), out[j]);
    }
    for (p = 0; 16 * p < nb; p++) {
        size_t have = nb - 16 * p < 16 ? nb - 16 * p : 16;
        for (n = 0; n < 16; n++)
            in[n] = _mm512_castps_si512(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16((__mmask16)((1u << have) - 1),
                                                                                (const void *)(S + (r + n) * sb + 32 * p))));
        tr16(in, out);
        for (j = 0; j < have; j++) _mm512_storeu_si512((void *)(dW + (16 * p + j) * 16), out[j]);
    }
}

static void block_gemm(int q4, const unsigned char *W, const unsigned char *S, size_t K, size_t N, const unsigned char *XQ,
                       size_t M, float *Y, size_t ldy, const int8_t *WB2all, const float *dWall, int8_t *XA2, float *dxT,
                       int8_t *wbuf, float *dbuf, items *it, float *accb, int32_t *cb) {
    size_t xb = xlarun_k_qact_bytes(K), nb = K / 32, r, g;
    block_pack_act(XQ, xb, M, K, XA2, dxT);
    block_items(it, K);
    tile_config(32);
    for (r = 0; r < N; r += 16) {
        const int8_t *wb;
        const float *dw;
        if (WB2all) { wb = WB2all + (r / 16) * nb * 512; dw = dWall + (r / 16) * nb * 16; }
        else { block_pack_w(q4, W, S, K, r, wbuf, dbuf); wb = wbuf; dw = dbuf; }
        for (g = 0; g < M; g += 16)
            block_tile(it, XA2 + (g / 16) * nb * 512, dxT + (g / 16) * nb * 16, wb, dw, accb, cb, Y + g * ldy + r, ldy);
    }
    _tile_release();
}

/* ---- VNNI for the BLOCK order: what xlarun's AVX-512 VNNI kernels would become ------------------
   per step: the same dpbusd pair as xlarun_k__qint (lanes 4j+q = quarter q of block j), 4 steps
   reduced exactly in integers to lane 4j + i = block 4i + j of the super-step; the weight scales
   for the 16 blocks permuted to that order, dx the same (here from a [m][b] table). */
static inline __m512i red4(__m512i v0, __m512i v1, __m512i v2, __m512i v3) {
    __m512i t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(v0, v1), _mm512_unpackhi_epi32(v0, v1));
    __m512i t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(v2, v3), _mm512_unpackhi_epi32(v2, v3));
    return _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
}
/* lane l <- element 4(l%4) + l/4 of 16 (the block order above) */
#define PERM16 _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0)
/* dx for the BLOCK order: dxp[m][s][16] f32, permuted, padded with 0 */
static void vb_pack_dx(const unsigned char *XQ, size_t xb, size_t M, size_t K, float *dxp) {
    size_t nb = K / 32, nss = (nb + 15) / 16, m, s, l;
    for (m = 0; m < M; m++)
        for (s = 0; s < nss; s++)
            for (l = 0; l < 16; l++) {
                size_t b = blk_of(s, l);
                float d = 0.0f;
                if (b < nb) memcpy(&d, XQ + m * xb + (b / 4) * REC + 128 + 16 * (b % 4), 4);
                dxp[(m * nss + s) * 16 + l] = d;
            }
}
/* weights of step st, for the dpbusd pair (q8: q + 128 as u8, as xlarun_k__qw) */
static inline __attribute__((always_inline)) void vb_w(int q4, const unsigned char *w, size_t st, size_t nbk, __m512i *a, __m512i *b) {
    if (!q4) {
        const unsigned char *p = w + 128 * st;
        __m512i v0, v1;
        if (nbk >= 4) { v0 = _mm512_loadu_si512((const void *)p); v1 = _mm512_loadu_si512((const void *)(p + 64)); }
        else if (nbk == 0) { v0 = v1 = _mm512_setzero_si512(); }
        else {
            v0 = _mm512_maskz_loadu_epi8(nbk >= 2 ? ~(__mmask64)0 : (__mmask64)0xFFFFFFFFull, (const void *)p);
            v1 = _mm512_maskz_loadu_epi8(nbk == 3 ? (__mmask64)0xFFFFFFFFull : (__mmask64)0, (const void *)(p + 64));
        }
        *a = _mm512_xor_si512(_mm512_shuffle_i64x2(v0, v1, 0x88), _mm512_set1_epi8((char)0x80));
        *b = _mm512_xor_si512(_mm512_shuffle_i64x2(v0, v1, 0xDD), _mm512_set1_epi8((char)0x80));
    } else {
        const unsigned char *p = w + 64 * st;
        __m512i v = nbk >= 4 ? _mm512_loadu_si512((const void *)p)
                             : _mm512_maskz_loadu_epi8(nbk ? ((__mmask64)1 << (16 * nbk)) - 1 : 0, (const void *)p);
        __m512i h = _mm512_srli_epi16(v, 4);
        const __m512i lut = _mm512_set_epi8(
            -121, -122, -123, -124, -125, -126, -127, -128, 127, 126, 125, 124, 123, 122, 121, 120,
            -121, -122, -123, -124, -125, -126, -127, -128, 127, 126, 125, 124, 123, 122, 121, 120,
            -121, -122, -123, -124, -125, -126, -127, -128, 127, 126, 125, 124, 123, 122, 121, 120,
            -121, -122, -123, -124, -125, -126, -127, -128, 127, 126, 125, 124, 123, 122, 121, 120);
        *a = _mm512_permutexvar_epi8(v, lut);
        *b = _mm512_permutexvar_epi8(h, lut);
    }
}
/* the 16 weight scales of super-step s, permuted (zero past the last block) */
static inline __m512 vb_d(const unsigned char *srow, size_t s, size_t nb) {
    __m256i h;
    size_t have = nb - 16 * s < 16 ? nb - 16 * s : 16;
    if (have == 16) h = _mm256_loadu_si256((const __m256i *)(const void *)(srow + 32 * s));
    else h = _mm256_maskz_loadu_epi16((__mmask16)((1u << have) - 1), (const void *)(srow + 32 * s));
    return _mm512_permutexvar_ps(PERM16, _mm512_cvtph_ps(h));
}
/* one row . one token (the decode dot of the BLOCK order); ahead > 0: prefetch the codes that many
   bytes on, a line per step, as xlarun_k__qdot1p does for decode */
static inline __attribute__((always_inline)) float vb_dot_p(int q4, const unsigned char *w, const unsigned char *srow,
                                                           const unsigned char *x, const float *dxp, size_t K, size_t ahead);
static float vb_dot(int q4, const unsigned char *w, const unsigned char *srow, const unsigned char *x, const float *dxp, size_t K) {
    return vb_dot_p(q4, w, srow, x, dxp, K, 0);
}
static inline __attribute__((always_inline)) float vb_dot_p(int q4, const unsigned char *w, const unsigned char *srow,
                                                           const unsigned char *x, const float *dxp, size_t K, size_t ahead) {
    size_t nb = K / 32, nst = (K + 127) / 128, nss = (nb + 15) / 16, s, i;
    __m512 acc = _mm512_setzero_ps();
    for (s = 0; s < nss; s++) {
        __m512i v[4];
        for (i = 0; i < 4; i++) {
            size_t st = 4 * s + i;
            if (st < nst) {
                __m512i a, b;
                size_t nbk = nb - 4 * st < 4 ? nb - 4 * st : 4, sz = q4 ? 64 : 128;
                if (ahead) {
                    __builtin_prefetch((const void *)((uintptr_t)w + ahead + st * sz));
                    if (sz > 64) __builtin_prefetch((const void *)((uintptr_t)w + ahead + st * sz + 64));
                }
                vb_w(q4, w, st, nbk, &a, &b);
                v[i] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_loadu_si512((const void *)(x + st * REC + 192)), a,
                                                               _mm512_loadu_si512((const void *)(x + st * REC))),
                                           b, _mm512_loadu_si512((const void *)(x + st * REC + 64)));
            } else v[i] = _mm512_setzero_si512();
        }
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(red4(v[0], v[1], v[2], v[3])),
                              _mm512_mul_ps(vb_d(srow, s, nb), _mm512_loadu_ps(dxp + 16 * s)), acc);
    }
    return xlarun_k__hsum(acc);
}
/* 4 rows x 4 tokens tile (full super-steps only; K a multiple of 512 here) */
static inline __attribute__((always_inline)) void vb_tile(int q4, const unsigned char *W, const unsigned char *S, size_t rb, size_t sbytes, size_t r,
                    const unsigned char *XQ, size_t xb, const float *dxp, size_t nss, size_t t0, size_t K, float *out) {
    __m512 acc[4][4];
    size_t s, i, rr, t, nb = K / 32;
    _Pragma("GCC unroll 4") for (rr = 0; rr < 4; rr++) _Pragma("GCC unroll 4") for (t = 0; t < 4; t++) acc[rr][t] = _mm512_setzero_ps();
    for (s = 0; s < nss; s++) {
        _Pragma("GCC unroll 4") for (rr = 0; rr < 4; rr++) {
            const unsigned char *w = W + (r + rr) * rb;
            __m512i wa[4], wbv[4];
            __m512 dv = vb_d(S + (r + rr) * sbytes, s, nb);
            _Pragma("GCC unroll 4") for (i = 0; i < 4; i++) vb_w(q4, w, 4 * s + i, 4, &wa[i], &wbv[i]);
            _Pragma("GCC unroll 4") for (t = 0; t < 4; t++) {
                const unsigned char *x = XQ + (t0 + t) * xb + 4 * s * REC;
                __m512i v[4];
                _Pragma("GCC unroll 4") for (i = 0; i < 4; i++)
                    v[i] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_loadu_si512((const void *)(x + i * REC + 192)), wa[i],
                                                                   _mm512_loadu_si512((const void *)(x + i * REC))),
                                               wbv[i], _mm512_loadu_si512((const void *)(x + i * REC + 64)));
                acc[rr][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(red4(v[0], v[1], v[2], v[3])),
                                             _mm512_mul_ps(dv, _mm512_loadu_ps(dxp + ((t0 + t) * nss + s) * 16)), acc[rr][t]);
            }
        }
    }
    for (rr = 0; rr < 4; rr++) for (t = 0; t < 4; t++) out[4 * t + rr] = xlarun_k__hsum(acc[rr][t]);
}
/* GEMM in the BLOCK order with VNNI, blocked like XLARUN_K__BLOCKED (row block 256 KB, token group 16 KB) */
static void vb_gemm(int q4, const unsigned char *W, const unsigned char *S, size_t K, size_t N, const unsigned char *XQ,
                    size_t M, float *Y, size_t ldy, float *dxp) {
    size_t xb = xlarun_k_qact_bytes(K), rb = q4 ? K / 2 : K, sbytes = K / 16, nb = K / 32, nss = (nb + 15) / 16;
    size_t rbk = (256 * 1024) / (rb + 1) / 4 * 4, tg = (16 * 1024) / (xb + 1) / 4 * 4, r0, i0, r, t, j;
    float o[16];
    if (rbk < 4) rbk = 4;
    if (tg < 4) tg = 4;
    vb_pack_dx(XQ, xb, M, K, dxp);
    for (r0 = 0; r0 < N; r0 += rbk)
        for (i0 = 0; i0 < M; i0 += tg)
            for (r = r0; r < N && r < r0 + rbk; r += 4)
                for (t = i0; t < M && t < i0 + tg; t += 4) {
                    if (q4) vb_tile(1, W, S, rb, sbytes, r, XQ, xb, dxp, nss, t, K, o);
                    else vb_tile(0, W, S, rb, sbytes, r, XQ, xb, dxp, nss, t, K, o);
                    for (j = 0; j < 4; j++) memcpy(Y + (t + j) * ldy + r, o + 4 * j, 16);
                }
}

/* =============================================================================================
   machine probes: core clock (dependent adds), f32 FMA peak, vpdpbusd peak
   ============================================================================================= */
static double probe_ghz(void) { /* a dependent imul chain: 3 cycles each (Golden Cove folds add-immediate chains at rename) */
    long n = 100000000, i;
    uint64_t x = 3;
    double t0 = now();
    for (i = 0; i < n; i++) __asm__ volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0" : "+r"(x));
    return 12.0 * (double)n / (now() - t0) * 1e-9;
}
#define CH12(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11)
static double probe_fma(void) {
    __m512 m = _mm512_set1_ps(0.999999f), k = _mm512_set1_ps(1e-7f);
#define D(q) __m512 x##q = _mm512_set1_ps((float)(q + 1));
#define F(q) x##q = _mm512_fmadd_ps(x##q, m, k);
#define S(q) s += _mm512_cvtss_f32(x##q);
    CH12(D)
    long it, n = 50000000;
    double t0;
    float s = 0;
    t0 = now();
    for (it = 0; it < n; it++) { CH12(F) }
    t0 = now() - t0;
    CH12(S)
    if (s == 12345.0f) puts("");
    return 12.0 * 16 * 2 * (double)n / t0 * 1e-9;
#undef D
#undef F
#undef S
}
static double probe_vnni(void) {
    __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(5);
#define D(q) __m512i x##q = _mm512_set1_epi32(q);
#define F(q) x##q = _mm512_dpbusd_epi32(x##q, a, b);
#define S(q) s += _mm_cvtsi128_si32(_mm512_castsi512_si128(x##q));
    CH12(D)
    long it, n = 50000000;
    double t0;
    int s = 0;
    t0 = now();
    for (it = 0; it < n; it++) { CH12(F) }
    t0 = now() - t0;
    CH12(S)
    if (s == 12345) puts("");
    return 12.0 * 64 * 2 * (double)n / t0 * 1e-9; /* int8 ops (mul + add) per second */
#undef D
#undef F
#undef S
}

/* ============================================================================================= */
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

typedef struct { double v[64]; int n; } samples;
static void add(samples *s, double x) { if (s->n < 64) s->v[s->n++] = x; }
static void show(const char *name, samples *s, double peak) {
    double v[64];
    memcpy(v, s->v, sizeof(double) * (size_t)s->n);
    qsort(v, (size_t)s->n, sizeof(double), cmpd);
    printf("  %-34s GOPS best %7.1f  median %7.1f  worst %7.1f   x FMA peak: best %.2f median %.2f\n", name, v[s->n - 1],
           v[s->n / 2], v[0], v[s->n - 1] / peak, v[s->n / 2] / peak);
}

static int run_case(int q4, size_t N, size_t K, size_t M, int reps, double peak, int amx_ok) {
    size_t rb = q4 ? K / 2 : K, sb = K / 16, xb = xlarun_k_qact_bytes(K), nb = K / 32, nst = (K + 127) / 128, i, r;
    unsigned char *W = amalloc(N * rb), *S = amalloc(N * sb), *XQ = amalloc(M * xb);
    float *row = amalloc(K * 4), *X = amalloc(M * K * 4);
    float *Yref = amalloc(N * M * 4), *Y1 = amalloc(N * M * 4), *Y2 = amalloc(N * M * 4), *Y3 = amalloc(N * M * 4), *Y4 = amalloc(N * M * 4);
    int8_t *WB1all = amalloc(N * nst * 128), *WB2all = amalloc(N * nb * 32), *XA = amalloc(M * (nst * 128 > nb * 32 ? nst * 128 : nb * 32) / 1);
    float *dWall = amalloc(N * nb * 4), *dxT = amalloc(nb * M * 4), *dxp = amalloc(M * ((nb + 15) / 16) * 64);
    int8_t *wbuf = amalloc(16 * nst * 128 > 16 * nb * 32 ? 16 * nst * 128 : 16 * nb * 32);
    float *dbuf = amalloc(16 * nb * 4), *accb = amalloc(16 * 256 * 4);
    items *it = amalloc(sizeof(items));
    int32_t *cb = amalloc(8 * 256 * 4);
    double flops = 2.0 * (double)M * (double)N * (double)K, t;
    samples s_ref = {{0}, 0}, s_e = {{0}, 0}, s_ep = {{0}, 0}, s_b = {{0}, 0}, s_bp = {{0}, 0}, s_vb = {{0}, 0}, s_pw = {{0}, 0};
    int rep, ok_e, ok_b, ok_vb, ok_dot = 1;
    const char *qn = q4 ? "q4_0" : "q8_0";

    for (r = 0; r < N; r++) {
        for (i = 0; i < K; i++) row[i] = grand() * 0.02f * (i % 97 == 0 ? 20.0f : 1.0f);
        if (xlarun_k_quantize_row(q4 ? XLARUN_K_Q4_0 : XLARUN_K_Q8_0, row, K, W + r * rb, S + r * sb)) { puts("quantize"); return 1; }
    }
    if (!q4) for (i = 0; i < 64 && i < N * rb; i++) W[i * 131 % (N * rb)] = 0x80; /* -128 codes are legal in a file */
    for (i = 0; i < M * K; i++) X[i] = grand() * (i % 61 == 0 ? 30.0f : 1.0f);
    for (i = 0; i < M; i++) xlarun_k_quantize_act(X + i * K, K, XQ + i * xb);
    for (r = 0; r < N; r += 16) {
        exact_pack_w(q4, W, S, K, r, WB1all + (r / 16) * nst * 16 * 128, dWall + (r / 16) * nb * 16);
        block_pack_w(q4, W, S, K, r, WB2all + (r / 16) * nb * 512, dWall + (r / 16) * nb * 16);
    }

    printf("%s  N=%zu K=%zu M=%zu  (weights %.1f MB)\n", qn, N, K, M, (double)(N * rb) / 1e6);
    for (rep = 0; rep < reps; rep++) {
        t = now(); xlarun_k_qmatmul(q4 ? XLARUN_K_Q4_0 : XLARUN_K_Q8_0, W, S, K, 0, N, XQ, M, Yref, N, NULL); add(&s_ref, flops / (now() - t) * 1e-9);
        if (amx_ok) {
            t = now(); exact_gemm(q4, W, S, K, N, XQ, M, Y1, N, NULL, NULL, XA, dxT, wbuf, dbuf, it, accb, cb); add(&s_e, flops / (now() - t) * 1e-9);
            t = now(); exact_gemm(q4, W, S, K, N, XQ, M, Y1, N, WB1all, dWall, XA, dxT, wbuf, dbuf, it, accb, cb); add(&s_ep, flops / (now() - t) * 1e-9);
            t = now(); block_gemm(q4, W, S, K, N, XQ, M, Y2, N, NULL, NULL, XA, dxT, wbuf, dbuf, it, accb, cb); add(&s_b, flops / (now() - t) * 1e-9);
            t = now(); block_gemm(q4, W, S, K, N, XQ, M, Y2, N, WB2all, dWall, XA, dxT, wbuf, dbuf, it, accb, cb); add(&s_bp, flops / (now() - t) * 1e-9);
        }
        if (K % 512 == 0) { t = now(); vb_gemm(q4, W, S, K, N, XQ, M, Y3, N, dxp); add(&s_vb, flops / (now() - t) * 1e-9); }
        /* the per-call repack alone: every panel of B, BLOCK layout (GB/s of weights read) */
        t = now();
        for (r = 0; r < N; r += 16) block_pack_w(q4, W, S, K, r, wbuf, dbuf);
        add(&s_pw, (double)(N * rb) / (now() - t) * 1e-9);
    }
    show("VNNI xlarun_k_qmatmul (reference)", &s_ref, peak);
    if (amx_ok) {
        show("AMX EXACT, repack per call", &s_e, peak);
        show("AMX EXACT, prepacked", &s_ep, peak);
        show("AMX BLOCK, repack per call", &s_b, peak);
        show("AMX BLOCK, prepacked", &s_bp, peak);
    }
    if (s_vb.n) show("VNNI in the BLOCK order", &s_vb, peak);
    {
        double v[64];
        memcpy(v, s_pw.v, sizeof(double) * (size_t)s_pw.n);
        qsort(v, (size_t)s_pw.n, sizeof(double), cmpd);
        printf("  BLOCK repack alone: %.1f GB/s of codes (best), i.e. %.2f ms per call for this matrix\n", v[s_pw.n - 1],
               (double)(N * rb) / v[s_pw.n - 1] * 1e-6);
    }
    ok_e = amx_ok ? memcmp(Yref, Y1, N * M * 4) == 0 : -1;
    /* BLOCK-order VNNI vs BLOCK-order AMX, and both against the scalar dot for sanity */
    for (i = 0; i < M && i < 64; i++)
        for (r = 0; r < N; r += 7) {
            float d;
            vb_pack_dx(XQ + i * xb, xb, 1, K, dxp);
            d = vb_dot(q4, W + r * rb, S + r * sb, XQ + i * xb, dxp, K);
            if (memcmp(&d, Y2 + i * N + r, 4) && amx_ok) ok_dot = 0;
        }
    ok_b = amx_ok ? 1 : -1;
    ok_vb = s_vb.n ? memcmp(Y3, Y2, N * M * 4) == 0 : -1;
    {
        double md = 0, mr = 0;
        for (i = 0; i < N * M; i++) {
            double e = fabs((double)Y2[i] - (double)Yref[i]);
            if (e > md) md = e;
            if (fabs(Yref[i]) > mr) mr = fabs(Yref[i]);
        }
        printf("  bit-identical: AMX EXACT == VNNI reference: %s;  AMX BLOCK == VNNI-BLOCK GEMM: %s;  AMX BLOCK == VNNI-BLOCK dot (decode) on sampled outputs: %s\n",
               ok_e < 0 ? "n/a" : ok_e ? "YES" : "NO", ok_vb < 0 ? "n/a" : ok_vb ? "YES" : "NO", amx_ok ? (ok_dot ? "YES" : "NO") : "n/a");
        printf("  BLOCK vs current order: max |diff| %.3g (max |y| %.3g)\n", md, mr);
        (void)ok_b;
    }
    free(W); free(S); free(XQ); free(row); free(X); free(Yref); free(Y1); free(Y2); free(Y3); free(Y4);
    free(WB1all); free(WB2all); free(XA); free(dWall); free(dxT); free(dxp); free(wbuf); free(dbuf); free(it); free(accb); free(cb);
    return 0;
}

/* decode: one token over N rows, the current VNNI GEMV against the BLOCK-order dot (both
   prefetching 8 rows ahead). The matrix (16.8 MB for 8192 x 2048) stays in this machine's large
   L3 between runs, so this is the harsher case for the extra integer work of the BLOCK order. */
static void decode_case(int q4, size_t N, size_t K, int reps) {
    size_t rb = q4 ? K / 2 : K, sb = K / 16, xb = xlarun_k_qact_bytes(K), nb = K / 32, i, r;
    unsigned char *W = amalloc(N * rb), *S = amalloc(N * sb), *XQ = amalloc(xb);
    float *row = amalloc(K * 4), *Y0 = amalloc(N * 4), *Y1 = amalloc(N * 4), *dxp = amalloc(((nb + 15) / 16) * 64);
    double b0 = 0, b1 = 0, t, bytes = (double)(N * (rb + sb));
    int rep;
    for (i = 0; i < N * rb; i++) W[i] = (unsigned char)(urand() * 256);
    for (r = 0; r < N; r++) for (i = 0; i < nb; i++) { uint16_t h = xlarun_k_f32_to_f16(0.01f + 0.001f * (float)(i % 7)); memcpy(S + r * sb + 2 * i, &h, 2); }
    for (i = 0; i < K; i++) row[i] = grand();
    xlarun_k_quantize_act(row, K, XQ);
    vb_pack_dx(XQ, xb, 1, K, dxp);
    for (rep = 0; rep < reps; rep++) {
        t = now(); xlarun_k_qmatmul(q4 ? XLARUN_K_Q4_0 : XLARUN_K_Q8_0, W, S, K, 0, N, XQ, 1, Y0, N, NULL); t = now() - t;
        if (bytes / t * 1e-9 > b0) b0 = bytes / t * 1e-9;
        t = now();
        if (q4) for (r = 0; r < N; r++) Y1[r] = vb_dot_p(1, W + r * rb, S + r * sb, XQ, dxp, K, 8 * rb);
        else for (r = 0; r < N; r++) Y1[r] = vb_dot_p(0, W + r * rb, S + r * sb, XQ, dxp, K, 8 * rb);
        t = now() - t;
        if (bytes / t * 1e-9 > b1) b1 = bytes / t * 1e-9;
    }
    printf("decode %s N=%zu K=%zu (one token, L3-resident): current VNNI GEMV %.1f GB/s, BLOCK-order dot %.1f GB/s (best of %d)\n",
           q4 ? "q4_0" : "q8_0", N, K, b0, b1, reps);
    free(W); free(S); free(XQ); free(row); free(Y0); free(Y1); free(dxp);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 5, amx_ok, i;
    double ghz = 0, fma = 0, vnni = 0, g, f, v;
    const char *only = argc > 2 ? argv[2] : "";
    for (i = 0; i < 3; i++) {
        g = probe_ghz(); f = probe_fma(); v = probe_vnni();
        if (g > ghz) ghz = g;
        if (f > fma) fma = f;
        if (v > vnni) vnni = v;
    }
    printf("xlarun QISA %s; core clock ~%.2f GHz (dependent adds); f32 FMA peak %.1f GFLOP/s (= %.1f flop/cycle); "
           "vpdpbusd peak %.1f GOPS int8 (%.2f x FMA peak)\n", XLARUN_K_QISA, ghz, fma, fma / ghz, vnni, vnni / fma);
    amx_ok = amx_request();
    printf("AMX tile permission (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): %s\n", amx_ok ? "granted" : "REFUSED: AVX-512 only");
    if (!*only || strchr(only, '8')) {
        run_case(0, 2048, 2048, 256, reps, fma, amx_ok);
        run_case(0, 8192, 2048, 256, reps, fma, amx_ok);
        run_case(0, 2048, 8192, 256, reps, fma, amx_ok);
        run_case(0, 2048, 2048, 16, reps, fma, amx_ok);
        run_case(0, 2048, 2048, 64, reps, fma, amx_ok);
        run_case(0, 896, 896, 64, reps, fma, amx_ok); /* K % 512 != 0 (Qwen2.5-0.5B): tails */
        run_case(0, 64, 1120, 32, reps, fma, amx_ok); /* K % 128 != 0 too: partial steps */
    }
    if (!*only || strchr(only, 'd')) {
        decode_case(0, 8192, 2048, reps * 3);
        decode_case(1, 8192, 2048, reps * 3);
    }
    if (!*only || strchr(only, '4')) {
        run_case(1, 2048, 2048, 256, reps, fma, amx_ok);
        run_case(1, 8192, 2048, 256, reps, fma, amx_ok);
        run_case(1, 64, 1120, 32, reps, fma, amx_ok);
    }
    return 0;
}
