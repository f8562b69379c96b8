/* amx_bf16.c - prototype (tools/amx; not part of the library or the tests): AMX TDPBF16PS for xlarun's bf16-activation
   mode (bf16 weights x activations rounded to bf16), against xlarun_k_matmul_bf16x (the
   AVX512_BF16 vdpbf16ps path), single thread.

   Build:  gcc -std=gnu99 -O2 -march=native -Wall -Wextra amx_bf16.c -o amx_bf16 -lm
   Run:    ./amx_bf16 [reps]

   Kernel: C tile = 16 tokens x 16 weight rows (f32), K step = 32 bf16 (one TDPBF16PS, A = 16
   token rows x 64 bytes read straight from the bf16 activation rows, B = the weights of 16 rows
   repacked into pairs: B row kk = elements 2kk, 2kk+1 of each row, a 16 x 16 dword transpose).
   No per-block scale here, so C accumulates over the whole K and is stored once, straight into Y.
   Register blocking 2 x 2: tokens g, g+16 x rows r, r+16 in tmm0-3, A in tmm4/5, B in tmm6/7.
   Rounding: each output is ONE f32 accumulator over K in pair order (the SDM's TDPBF16PS: per
   pair, the two bf16 products (exact in f32) added to the accumulator with round-to-nearest-even,
   DAZ/FTZ); the vdpbf16ps path keeps 16 lane accumulators (pairs k = lane mod 16) and adds them
   with xlarun_k__hsum at the end. Both are compared here with an f64 sum of the same products.
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

#if !defined(__AMX_TILE__) || !defined(__AMX_BF16__) || !defined(__AVX512BF16__)
#error "build with -march=native on an AMX machine"
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: the machine is shared */
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static uint64_t rng = 88172645463325252ull;
static double urand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (double)(rng >> 11) / 9007199254740992.0; }
static float grand(void) { double u = urand() + 1e-12, v = urand(); return (float)(sqrt(-2 * log(u)) * cos(6.283185307179586 * v)); }
static void *amalloc(size_t n) { void *p = aligned_alloc(64, (n + 63) / 64 * 64); if (!p) { perror("alloc"); exit(1); } memset(p, 0, (n + 63) / 64 * 64); return p; }

typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} __attribute__((packed, aligned(64))) tilecfg;
static void tile_config(void) {
    tilecfg c;
    int t;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (t = 0; t < 8; t++) { c.colsb[t] = 64; c.rows[t] = 16; }
    __asm__ volatile("" : : "m"(c)); /* GCC 12 drops the stores into c otherwise (ldtilecfg then faults) */
    _tile_loadconfig(&c);
}

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

/* 16 rows from r: WB[K/32][16][16][2] (K a multiple of 32 here) */
static void pack_panel(const uint16_t *W, size_t K, size_t r, uint16_t *WB) {
    size_t ks, n, j;
    __m512i in[16], out[16];
    for (ks = 0; ks < K / 32; ks++) {
        for (n = 0; n < 16; n++) in[n] = _mm512_loadu_si512((const void *)(W + (r + n) * K + 32 * ks));
        tr16(in, out);
        for (j = 0; j < 16; j++) _mm512_store_si512((void *)(WB + ks * 512 + j * 32), out[j]);
    }
}

/* Y[m*ldy + n] for tokens [0, M) x rows [0, N), M and N multiples of 32; prepacked: WBall, else
   two panels at a time are packed into wbuf (2 x 16 x K bf16: the per-thread scratch) */
static void amx_bf16_gemm(const uint16_t *W, size_t K, size_t N, const uint16_t *Xb, size_t M, float *Y, size_t ldy,
                          const uint16_t *WBall, uint16_t *wbuf) {
    size_t r, g, ks, nks = K / 32;
    tile_config();
    for (r = 0; r < N; r += 32) {
        const uint16_t *b0, *b1;
        if (WBall) { b0 = WBall + r * K; b1 = WBall + (r + 16) * K; }
        else { pack_panel(W, K, r, wbuf); pack_panel(W, K, r + 16, wbuf + 16 * K); b0 = wbuf; b1 = wbuf + 16 * K; }
        for (g = 0; g < M; g += 32) {
            const uint16_t *x0 = Xb + g * K, *x1 = Xb + (g + 16) * K;
            _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
            for (ks = 0; ks < nks; ks++) {
                _tile_loadd(4, x0 + 32 * ks, K * 2);
                _tile_loadd(6, b0 + 512 * ks, 64);
                _tile_loadd(7, b1 + 512 * ks, 64);
                _tile_dpbf16ps(0, 4, 6);
                _tile_dpbf16ps(1, 4, 7);
                _tile_loadd(5, x1 + 32 * ks, K * 2);
                _tile_dpbf16ps(2, 5, 6);
                _tile_dpbf16ps(3, 5, 7);
            }
            _tile_stored(0, Y + g * ldy + r, ldy * 4);
            _tile_stored(1, Y + g * ldy + r + 16, ldy * 4);
            _tile_stored(2, Y + (g + 16) * ldy + r, ldy * 4);
            _tile_stored(3, Y + (g + 16) * ldy + r + 16, ldy * 4);
        }
    }
    _tile_release();
}

static double probe_fma(void) {
    __m512 m = _mm512_set1_ps(0.999999f), k = _mm512_set1_ps(1e-7f);
#define CH12(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11)
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
}

static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static void show(const char *name, double *v, int n, double peak) {
    qsort(v, (size_t)n, sizeof(double), cmpd);
    printf("  %-36s GFLOPS best %7.1f  median %7.1f  worst %7.1f   x FMA peak: best %.2f median %.2f\n", name, v[n - 1], v[n / 2], v[0],
           v[n - 1] / peak, v[n / 2] / peak);
}

static void run_case(size_t N, size_t K, size_t M, int reps, double peak) {
    uint16_t *W = amalloc(N * K * 2), *Xb = amalloc(M * K * 2), *WBall = amalloc(N * K * 2), *wbuf = amalloc(32 * K * 2);
    float *X = amalloc(M * K * 4), *Yr = amalloc(M * N * 4), *Ya = amalloc(M * N * 4), *Yp = amalloc(M * N * 4);
    double v0[64], v1[64], v2[64], fl = 2.0 * (double)M * (double)N * (double)K, t;
    size_t i, r;
    int rep;
    for (i = 0; i < N * K; i++) W[i] = xlarun_k_f32_to_bf16(grand() * 0.02f);
    for (i = 0; i < M * K; i++) X[i] = grand();
    for (i = 0; i < M; i++) xlarun_k_f32_to_bf16_row(X + i * K, Xb + i * K, K);
    for (r = 0; r < N; r += 16) pack_panel(W, K, r, WBall + r * K);
    for (rep = 0; rep < reps; rep++) {
        t = now(); xlarun_k_matmul_bf16x(W, K, 0, N, Xb, K, M, Yr, N); v0[rep] = fl / (now() - t) * 1e-9;
        t = now(); amx_bf16_gemm(W, K, N, Xb, M, Ya, N, NULL, wbuf); v1[rep] = fl / (now() - t) * 1e-9;
        t = now(); amx_bf16_gemm(W, K, N, Xb, M, Yp, N, WBall, wbuf); v2[rep] = fl / (now() - t) * 1e-9;
    }
    printf("bf16 x bf16  N=%zu K=%zu M=%zu\n", N, K, M);
    show("vdpbf16ps xlarun_k_matmul_bf16x", v0, reps, peak);
    show("AMX TDPBF16PS, repack per call", v1, reps, peak);
    show("AMX TDPBF16PS, prepacked", v2, reps, peak);
    {   /* rounding against f64 sums of the same (exact) products, on a sample of outputs */
        double e0 = 0, e1 = 0, s0 = 0, s1 = 0, scale = 0;
        size_t cnt = 0, m, n, k, d0 = 0;
        for (m = 0; m < M; m += 7)
            for (n = 0; n < N; n += 13) {
                double ex = 0, ab = 0;
                for (k = 0; k < K; k++) {
                    double p = (double)xlarun_k_bf16_to_f32(W[n * K + k]) * (double)xlarun_k_bf16_to_f32(Xb[m * K + k]);
                    ex += p;
                    ab += fabs(p);
                }
                e0 = fmax(e0, fabs(Yr[m * N + n] - ex) / ab);
                e1 = fmax(e1, fabs(Ya[m * N + n] - ex) / ab);
                s0 += fabs(Yr[m * N + n] - ex) / ab;
                s1 += fabs(Ya[m * N + n] - ex) / ab;
                scale += ab;
                cnt++;
                d0 += Yr[m * N + n] != Ya[m * N + n];
            }
        printf("  error / sum|products| vs f64, %zu outputs: vdpbf16ps max %.2e mean %.2e;  AMX max %.2e mean %.2e;  "
               "outputs differing vdpbf16ps vs AMX: %.0f%%;  AMX repacked per call == prepacked: %s\n",
               cnt, e0, s0 / (double)cnt, e1, s1 / (double)cnt, 100.0 * (double)d0 / (double)cnt,
               memcmp(Ya, Yp, M * N * 4) ? "NO" : "yes");
    }
    free(W); free(Xb); free(WBall); free(wbuf); free(X); free(Yr); free(Ya); free(Yp);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 5, i;
    double peak = 0, f;
    if (reps > 64) reps = 64;
    for (i = 0; i < 3; i++) if ((f = probe_fma()) > peak) peak = f;
    printf("xlarun ISA %s; f32 FMA peak %.1f GFLOP/s (12 register-resident FMA chains, best of 3)\n", XLARUN_K_ISA, peak);
    if (syscall(SYS_arch_prctl, 0x1023, 18)) { puts("AMX tile permission REFUSED: the vdpbf16ps path only"); return 0; }
    run_case(2048, 2048, 256, reps, peak);
    run_case(8192, 2048, 256, reps, peak);
    run_case(2048, 8192, 256, reps, peak);
    run_case(2048, 2048, 64, reps, peak);
    run_case(2048, 2048, 32, reps, peak);
    return 0;
}
