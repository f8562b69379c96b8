/* amx_emu.h - Intel AMX tiles in plain C, for testing the AMX kernels on a CPU without them.

   tests/run.sh builds the AVX-512 variant of test_kernels, test_quant and test_model with
   `-include tests/amx_emu.h` (and no -mamx-* flag) where the CPU has AVX512_BF16 but no AMX: the
   kernels' AMX paths (XLARUN_K_QAMX, XLARUN_K_BAMX) are then compiled against the functions
   below and run, so their packing, tiling and indexing are checked on every machine, not only
   where a session is lent one with AMX. XLARUN_AMX_EMULATED makes the tile-state request answer
   yes (xlarun.h's xlarun__amx_request, the tests' own). Test-only: slow, and the bits of
   TDPBF16PS are a model of the unit's (below), not the unit's.

   What is emulated (Intel SDM, AMX): palette 1, eight tiles of up to 16 rows of 64 bytes, each
   with the rows and bytes a row of the loaded configuration; tileloadd / tilestored move those
   rows (the rest of a tile reads as zero); TDPBSSD adds the signed int8 dot of each 4-byte group
   exactly, in int32 wrapping as the unit does; TDPBF16PS adds to each f32 of C the sum of the
   step's bf16 products: subnormal inputs read as zero, the products (each exact in f32) summed in
   double (exactly unless their exponents lie far apart), rounded once to f32,
   then one rounded add to C, subnormal results flushed to zero. That is the model
   xlarun_kernels.h measured closest to the unit on the Xeon family 6 model 207, and it gives
   exactly round(C + round(p0 + p1)) when one pair of a step is nonzero (the semantics test).
   Where the CPU would fault (#GP: a configuration past 16 rows or 64 bytes a row, or with one of
   rows and bytes 0; #UD: a tile used unconfigured, a dot product whose shapes do not fit, or
   with a tile twice), this aborts with what was wrong, so the test fails as it would there. */
#ifndef XLARUN_AMX_EMU_H
#define XLARUN_AMX_EMU_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* what the tests ask for; included first, this header fixes it */
#endif
#include <immintrin.h> /* first, so that its own _tile_* definitions are the ones replaced below */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__AMX_TILE__)
#error "amx_emu.h: the compiler targets AMX already; build without -mamx-* to emulate"
#endif
#define __AMX_TILE__ 1
#define __AMX_INT8__ 1
#define __AMX_BF16__ 1
#define XLARUN_AMX_EMULATED 1

typedef struct xlarun_emu_tiles {
    int configured;
    uint8_t rows[8];
    uint16_t colsb[8];
    unsigned char t[8][16][64];
} xlarun_emu_tiles;
static __thread xlarun_emu_tiles xlarun_emu_state; /* the tile state is a thread's, as on the CPU */

static void xlarun_emu_fault(const char *what, int t) {
    fprintf(stderr, "amx_emu: %s (tile %d): the CPU would fault here\n", what, t);
    abort();
}

static void xlarun_emu_need(int t) {
    if (t < 0 || t > 7 || !xlarun_emu_state.configured || !xlarun_emu_state.rows[t] || !xlarun_emu_state.colsb[t])
        xlarun_emu_fault("a tile used while not configured", t);
}

/* C += A . B: C rows == A rows, A bytes / 4 == B rows, C bytes == B bytes, three tiles */
static void xlarun_emu_need3(int c, int a, int b) {
    xlarun_emu_need(c);
    xlarun_emu_need(a);
    xlarun_emu_need(b);
    if (c == a || c == b || a == b) xlarun_emu_fault("a dot product naming a tile twice", c);
    if (xlarun_emu_state.rows[c] != xlarun_emu_state.rows[a] || xlarun_emu_state.colsb[a] / 4 != xlarun_emu_state.rows[b] ||
        xlarun_emu_state.colsb[c] != xlarun_emu_state.colsb[b] || xlarun_emu_state.colsb[a] % 4 || xlarun_emu_state.colsb[c] % 4)
        xlarun_emu_fault("a dot product whose tile shapes do not fit", c);
}

static void xlarun_emu_loadconfig(const void *cfg) {
    const unsigned char *c = (const unsigned char *)cfg;
    int i;
    memset(&xlarun_emu_state, 0, sizeof xlarun_emu_state);
    if (c[0] != 1) return; /* palette 0 releases; the kernels load palette 1 */
    for (i = 0; i < 8; i++) {
        uint16_t cb;
        memcpy(&cb, c + 16 + 2 * i, 2);
        if (cb > 64 || c[48 + i] > 16 || !cb != !c[48 + i]) xlarun_emu_fault("a tile configuration past 16 x 64 bytes, or half empty", i);
        xlarun_emu_state.colsb[i] = cb;
        xlarun_emu_state.rows[i] = c[48 + i];
    }
    xlarun_emu_state.configured = 1;
}

static void xlarun_emu_zero(int t) {
    xlarun_emu_need(t);
    memset(xlarun_emu_state.t[t], 0, sizeof xlarun_emu_state.t[t]);
}

static void xlarun_emu_loadd(int t, const void *base, long stride) {
    int r;
    xlarun_emu_zero(t);
    for (r = 0; r < xlarun_emu_state.rows[t]; r++) /* ASan sees each row's read */
        memcpy(xlarun_emu_state.t[t][r], (const unsigned char *)base + (long)r * stride, xlarun_emu_state.colsb[t]);
}

static void xlarun_emu_stored(int t, void *base, long stride) {
    int r;
    xlarun_emu_need(t);
    for (r = 0; r < xlarun_emu_state.rows[t]; r++)
        memcpy((unsigned char *)base + (long)r * stride, xlarun_emu_state.t[t][r], xlarun_emu_state.colsb[t]);
}

/* C[m][n] += sum over k of the 4 products A[m][4k + i] * B[k][4n + i] */
static void xlarun_emu_dpbssd(int c, int a, int b) {
    int m, n, k, i, M = xlarun_emu_state.rows[c], N = xlarun_emu_state.colsb[c] / 4, Kg = xlarun_emu_state.colsb[a] / 4;
    xlarun_emu_need3(c, a, b);
    for (m = 0; m < M; m++)
        for (n = 0; n < N; n++) {
            int32_t acc;
            uint32_t sum;
            memcpy(&acc, &xlarun_emu_state.t[c][m][4 * n], 4);
            sum = (uint32_t)acc;
            for (k = 0; k < Kg; k++)
                for (i = 0; i < 4; i++)
                    sum += (uint32_t)((int32_t)(signed char)xlarun_emu_state.t[a][m][4 * k + i] *
                                      (int32_t)(signed char)xlarun_emu_state.t[b][k][4 * n + i]);
            acc = (int32_t)sum;
            memcpy(&xlarun_emu_state.t[c][m][4 * n], &acc, 4);
        }
}

static float xlarun_emu_bf16(const unsigned char *p) { /* subnormals read as zero */
    uint32_t u = (uint32_t)(p[0] | (p[1] << 8)) << 16;
    float f;
    if ((u & 0x7f800000u) == 0) u &= 0x80000000u;
    memcpy(&f, &u, 4);
    return f;
}

static void xlarun_emu_dpbf16ps(int c, int a, int b) {
    int m, n, k, i, M = xlarun_emu_state.rows[c], N = xlarun_emu_state.colsb[c] / 4, Kg = xlarun_emu_state.colsb[a] / 4;
    xlarun_emu_need3(c, a, b);
    for (m = 0; m < M; m++)
        for (n = 0; n < N; n++) {
            float acc, step;
            double sum = 0.0;
            uint32_t u;
            memcpy(&acc, &xlarun_emu_state.t[c][m][4 * n], 4);
            for (k = 0; k < Kg; k++)
                for (i = 0; i < 2; i++)
                    sum += (double)(xlarun_emu_bf16(&xlarun_emu_state.t[a][m][4 * k + 2 * i]) *
                                    xlarun_emu_bf16(&xlarun_emu_state.t[b][k][4 * n + 2 * i]));
            step = (float)sum;
            acc = acc + step;
            memcpy(&u, &acc, 4);
            if ((u & 0x7f800000u) == 0) u &= 0x80000000u; /* subnormal results flush to zero */
            memcpy(&xlarun_emu_state.t[c][m][4 * n], &u, 4);
        }
}

#undef _tile_loadconfig
#undef _tile_release
#undef _tile_zero
#undef _tile_loadd
#undef _tile_stored
#undef _tile_dpbssd
#undef _tile_dpbf16ps
#define _tile_loadconfig(cfg) xlarun_emu_loadconfig(cfg)
#define _tile_release() memset(&xlarun_emu_state, 0, sizeof xlarun_emu_state)
#define _tile_zero(t) xlarun_emu_zero(t)
#define _tile_loadd(t, base, stride) xlarun_emu_loadd((t), (base), (long)(stride))
#define _tile_stored(t, base, stride) xlarun_emu_stored((t), (base), (long)(stride))
#define _tile_dpbssd(c, a, b) xlarun_emu_dpbssd((c), (a), (b))
#define _tile_dpbf16ps(c, a, b) xlarun_emu_dpbf16ps((c), (a), (b))
#endif
