/* amx_bf16_order.c - prototype (tools/amx; not part of the library or the tests): what one
   TDPBF16PS computes per output on this CPU, against scalar models of the order.

   Build:  gcc -std=gnu99 -O1 -march=native -ffp-contract=off amx_bf16_order.c -o amx_bf16_order -lm
   Run:    ./amx_bf16_order        (AMX-BF16 CPU, Linux)

   One tile product, C (16 x 16 f32) += A (16 x 32 bf16) . B (16 pair rows x 16 columns x 2),
   random bf16 with exponents in [-4, 4] and random C; only the first NZ elements of each A row
   nonzero, so the number of products a step sums is NZ. Models (f32 ops round to nearest even;
   the products of two bf16 are exact in f32):
     sdm     for each pair: C = C + p0, C = C + p1 (the SDM's pseudocode, FMA per element)
     fused   for each pair: C = round(C + p0 + p1)
     pairs   C = round(C + round(p0 + p1)) pair by pair
     sum     C = round(C + round(p0 + p1 + ... exact))
     psum    C = round(C + (round(p0 + p1) + round(p2 + p3) + ... in order))
   Measured on the Xeon (family 6 model 207): NZ = 1, 2: pairs and sum match every output; NZ = 4
   and more: none matches (sum is closest), so the tile unit sums a step's products in an order of
   its own before one rounded add to C. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <immintrin.h>

typedef struct { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } __attribute__((aligned(64))) cfg_t;
static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static float bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bf(uint16_t h) { return bits((uint32_t)h << 16); }
static uint16_t rbf(int emin, int emax) {
    int e = emin + (int)(rnd() % (uint64_t)(emax - emin + 1));
    return (uint16_t)(((uint32_t)(rnd() & 1) << 15) | ((uint32_t)(e + 127) << 7) | (uint32_t)(rnd() & 0x7f));
}

int main(void) {
    static uint16_t A[16][32], B[16][32];
    static float C0[16][16], C[16][16];
    static const int nzs[] = {1, 2, 4, 8, 32};
    cfg_t c;
    int t, zi;
    if (syscall(SYS_arch_prctl, 0x1023, 18)) { puts("AMX tile permission refused"); return 1; }
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (t = 0; t < 8; t++) { c.colsb[t] = 64; c.rows[t] = 16; }
    __asm__ volatile("" : : "m"(c));
    _tile_loadconfig(&c);
    for (zi = 0; zi < 5; zi++) {
        long bad[5] = {0}, tot = 0;
        int nz = nzs[zi], it, i, j, m, n, k;
        for (it = 0; it < 500; it++) {
            for (i = 0; i < 16; i++)
                for (k = 0; k < 32; k++) { A[i][k] = k < nz ? rbf(-4, 4) : 0; B[i][k] = rbf(-4, 4); }
            for (i = 0; i < 16; i++)
                for (j = 0; j < 16; j++) C0[i][j] = bf(rbf(-8, 8)) * (1.0f + (float)(rnd() % 1000) / 1000.0f);
            _tile_loadd(0, C0, 64); _tile_loadd(4, A, 64); _tile_loadd(6, B, 64);
            _tile_dpbf16ps(0, 4, 6);
            _tile_stored(0, C, 64);
            for (m = 0; m < 16; m++)
                for (n = 0; n < 16; n++) {
                    float p[32], r[5], s, q;
                    double e = 0;
                    for (k = 0; k < 32; k++) { p[k] = bf(A[m][k]) * bf(B[k / 2][2 * n + k % 2]); e += p[k]; } /* e exact here */
                    s = C0[m][n]; for (k = 0; k < 32; k++) s += p[k]; r[0] = s;
                    s = C0[m][n]; for (k = 0; k < 16; k++) s = (float)((double)s + p[2 * k] + p[2 * k + 1]); r[1] = s;
                    s = C0[m][n]; for (k = 0; k < 16; k++) { q = p[2 * k] + p[2 * k + 1]; s += q; } r[2] = s;
                    r[3] = C0[m][n] + (float)e;
                    s = 0; for (k = 0; k < 16; k++) { q = p[2 * k] + p[2 * k + 1]; s += q; } r[4] = C0[m][n] + s;
                    for (k = 0; k < 5; k++) bad[k] += fbits(C[m][n]) != fbits(r[k]);
                    tot++;
                }
        }
        printf("NZ %2d, %ld outputs, mismatches: sdm %ld, fused %ld, pairs %ld, sum %ld, psum %ld\n", nz, tot, bad[0], bad[1], bad[2],
               bad[3], bad[4]);
    }
    _tile_release();
    return 0;
}
