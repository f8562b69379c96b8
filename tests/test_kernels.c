/* tests/test_kernels.c - xlarun_kernels.h against independent computations.

   Every dispatching kernel is checked against its _ref and against a double-precision (or
   exactly-emulated) computation, on deterministic pseudo-random data with odd sizes and weight
   pointers offset by 1, 2 and 6 bytes. The determinism contract is checked bit for bit:
   every xlarun_k_matmul element equals xlarun_k_dot of the same row and token, for n == 1 and
   n > 1, for several row and token splits, for all three dtypes.

   Tolerances (u = 2^-24, the f32 unit roundoff):
     dot / matmul / dot_bf16_bf16:  |got - exact| <= (K + 4) * u * sum |w*x|   (the classical
                                    bound for a K-term f32 sum; lane-split sums are tighter)
     rmsnorm:                       3e-7 relative (r, x*r, w*xn: three roundings)
     rope:                          bit-exact vs per-operation rounded products and sums
     softmax / attend p:            2e-5 relative per probability (with and without soft capping)
     attend out:                    2e-5 * sum_j p_j |v_jd|
     silu_mul:                      1e-6 relative + 1e-36 absolute (subnormal results)
     gelu_mul:                      1e-6 relative + 2^-23 |x u| (torch's 1 + tanh cancels for
                                    x < 0: one ulp of tanh near -1, times x/2)
     exp (SIMD):                    max 2 ulp vs libm expf
   The maxima measured are printed at the end. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../xlarun_kernels.h"

/* ---- deterministic data ---- */
#define RNG_SEED 0x9E3779B97F4A7C15ull
static uint64_t rng_state; /* 0 until the first case: each case starts from RNG_SEED */
static uint32_t rnd32(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}
static float frand(void) { return (float)((double)(rnd32() >> 8) / 8388608.0 - 1.0); } /* [-1, 1) */

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* measured maxima, printed at the end */
static double max_dot_err, max_dot_ref_err, max_rms_err, max_soft_err, max_att_err, max_silu_err, max_bb_err, max_gelu_err;
static long max_exp_ulp;

/* ---- independent decoders (ldexp based) ---- */
static double f16_decode(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp((double)m, -24);
    return s * ldexp((double)(1024 + m), e - 25);
}
static double bf16_decode(uint16_t h) {
    int e = (h >> 7) & 255, m = h & 127;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 255) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp((double)m, -133);
    return s * ldexp((double)(128 + m), e - 134);
}

/* the nearest of two adjacent codes lo < hi (as magnitudes), ties to the even code */
static uint16_t pick_rne(double a, uint16_t lo, double vlo, uint16_t hi, double vhi) {
    double dl = a - vlo, dh = vhi - a;
    if (dl < dh) return lo;
    if (dh < dl) return hi;
    return (lo & 1) ? hi : lo;
}
/* expected f32 -> bf16 for finite or infinite non-NaN f */
static uint16_t bf16_expect(float f) {
    uint32_t u = fbits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000), lo = (uint16_t)((u >> 16) & 0x7fff), hi;
    double a = fabs((double)f), vhi;
    if (isinf(f)) return (uint16_t)(sign | 0x7f80);
    hi = (uint16_t)(lo + 1); /* candidates decoded by definition (bf16 = top half of an f32) */
    vhi = hi == 0x7f80 ? ldexp(1.0, 128) : (double)bitsf((uint32_t)hi << 16);
    return (uint16_t)(sign | pick_rne(a, lo, (double)bitsf((uint32_t)lo << 16), hi, vhi));
}
/* expected f32 -> f16 by double arithmetic: rint (ties to even) of the value in units of the
   target ulp; the code of a positive half is (exponent << 10) + mantissa, monotonic */
static uint16_t f16_expect(float f) {
    uint16_t sign = (uint16_t)((fbits(f) >> 16) & 0x8000);
    double a = fabs((double)f), q;
    int e;
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00);
    if (a < ldexp(1.0, -14)) return (uint16_t)(sign | (uint16_t)rint(ldexp(a, 24))); /* subnormal */
    frexp(a, &e);                                /* a = m * 2^e, m in [0.5, 1) */
    q = rint(ldexp(a, 11 - e));                  /* 1024 .. 2048 */
    return (uint16_t)(sign | (uint16_t)(((e + 14) << 10) + (int)q - 1024));
}

static void test_conversions(void) {
    long bad_f16 = 0, bad_f16_rt = 0, bad_bf16 = 0, bad_bf16_rt = 0, bad_rne = 0, bad_f16_rne = 0;
    uint32_t h, i;
    for (h = 0; h < 65536; h++) {
        uint16_t c = (uint16_t)h;
        float f = xlarun_k_f16_to_f32(c), g = xlarun_k_bf16_to_f32(c);
        double d = f16_decode(c), e = bf16_decode(c);
        if (isnan(d)) {
            uint32_t want = ((uint32_t)(c & 0x8000) << 16) | 0x7f800000u | ((uint32_t)(c & 0x3ff) << 13);
            uint16_t back = xlarun_k_f32_to_f16(f);
            if (fbits(f) != want) bad_f16++;
            if ((back & 0x7c00) != 0x7c00 || !(back & 0x200) || (back & 0x8000) != (c & 0x8000)) bad_f16_rt++;
        } else {
            if ((double)f != d || !signbit(f) != !signbit(d)) bad_f16++;
            if (xlarun_k_f32_to_f16(f) != c) bad_f16_rt++;
        }
        if (isnan(e)) {
            uint16_t back = xlarun_k_f32_to_bf16(g);
            if (!isnan(g) || fbits(g) != (h << 16)) bad_bf16++;
            if ((back & 0x7f80) != 0x7f80 || !(back & 0x40) || (back & 0x8000) != (c & 0x8000)) bad_bf16_rt++;
        } else {
            if ((double)g != e || !signbit(g) != !signbit(e)) bad_bf16++;
            if (xlarun_k_f32_to_bf16(g) != c) bad_bf16_rt++;
        }
    }
    CHECKF(bad_f16 == 0, "f16_to_f32 wrong for %ld codes", bad_f16);
    CHECKF(bad_f16_rt == 0, "f16 round trip wrong for %ld codes", bad_f16_rt);
    CHECKF(bad_bf16 == 0, "bf16_to_f32 wrong for %ld codes", bad_bf16);
    CHECKF(bad_bf16_rt == 0, "bf16 round trip wrong for %ld codes", bad_bf16_rt);

    /* f32 -> bf16: random bit patterns, exact ties, and near-ties */
    for (i = 0; i < 100000; i++) {
        uint32_t u = rnd32();
        float f;
        if (i % 4 == 1) u = (u & 0xffff0000u) | 0x8000u;        /* exact tie */
        if (i % 4 == 2) u = (u & 0xffff0000u) | 0x7fffu;        /* just below */
        if (i % 4 == 3) u = (u & 0xffff0000u) | 0x8001u;        /* just above */
        f = bitsf(u);
        if (isnan(f)) continue;
        if (xlarun_k_f32_to_bf16(f) != bf16_expect(f)) bad_rne++;
    }
    CHECKF(bad_rne == 0, "f32_to_bf16 RNE wrong for %ld values", bad_rne);
    CHECK(xlarun_k_f32_to_bf16(bitsf(0x3f808000u)) == 0x3f80); /* tie, lower even */
    CHECK(xlarun_k_f32_to_bf16(bitsf(0x3f818000u)) == 0x3f82); /* tie, upper even */
    CHECK(xlarun_k_f32_to_bf16(bitsf(0x3f808001u)) == 0x3f81);
    CHECK(xlarun_k_f32_to_bf16(bitsf(0x7f7fffffu)) == 0x7f80); /* FLT_MAX rounds to inf */
    CHECK(xlarun_k_f32_to_bf16(bitsf(0xff800000u)) == 0xff80);
    CHECK(xlarun_k_f32_to_bf16(bitsf(0x00008000u)) == 0x0000); /* subnormal tie to even zero */
    CHECK(xlarun_k_f32_to_bf16(bitsf(0x00018000u)) == 0x0002);
    {
        uint16_t s = xlarun_k_f32_to_bf16(bitsf(0x7f800001u)); /* signalling NaN, payload below bit 16 */
        uint16_t q = xlarun_k_f32_to_bf16(bitsf(0xffc00000u));
        CHECKF((s & 0x7f80) == 0x7f80 && (s & 0x7f) != 0 && (s & 0x40), "sNaN -> %04x", s);
        CHECKF(q == 0xffc0, "qNaN -> %04x", q);
    }

    /* f32 -> f16: all midpoints between neighbouring halves (ties), random magnitudes */
    for (h = 0; h < 0x7bff; h++) {
        double mid = (f16_decode((uint16_t)h) + f16_decode((uint16_t)(h + 1))) / 2;
        float f = (float)mid, fu = nextafterf(f, INFINITY), fd = nextafterf(f, 0.0f);
        if ((double)f != mid) bad_f16_rne++; /* midpoints are representable in f32 */
        if (xlarun_k_f32_to_f16(f) != f16_expect(f)) bad_f16_rne++;
        if (xlarun_k_f32_to_f16(fu) != f16_expect(fu)) bad_f16_rne++;
        if (xlarun_k_f32_to_f16(fd) != f16_expect(fd)) bad_f16_rne++;
        if (xlarun_k_f32_to_f16(-f) != f16_expect(-f)) bad_f16_rne++;
    }
    for (i = 0; i < 100000; i++) {
        float f = (float)ldexp(1.0 + (double)(rnd32() >> 8) / 16777216.0, (int)(rnd32() % 46) - 28);
        if (rnd32() & 1) f = -f;
        if (xlarun_k_f32_to_f16(f) != f16_expect(f)) bad_f16_rne++;
    }
    CHECKF(bad_f16_rne == 0, "f32_to_f16 RNE wrong for %ld values", bad_f16_rne);
    CHECK(xlarun_k_f32_to_f16(65504.0f) == 0x7bff);
    CHECK(xlarun_k_f32_to_f16(65519.996f) == 0x7bff);
    CHECK(xlarun_k_f32_to_f16(65520.0f) == 0x7c00);
    CHECK(xlarun_k_f32_to_f16(-1e9f) == 0xfc00);
    CHECK(xlarun_k_f32_to_f16(INFINITY) == 0x7c00);
    CHECK(xlarun_k_f32_to_f16((float)ldexp(1.0, -25)) == 0x0000); /* tie to even zero */
    CHECK(xlarun_k_f32_to_f16(nextafterf((float)ldexp(1.0, -25), 1.0f)) == 0x0001);
    CHECK(xlarun_k_f32_to_f16((float)ldexp(3.0, -25)) == 0x0002); /* 1.5 ulp tie -> 2 */
    CHECK(xlarun_k_f32_to_f16(-0.0f) == 0x8000);
    CHECK(xlarun_k_f32_to_f16(1e-30f) == 0x0000);
    CHECK(xlarun_k_f16_to_f32(0x0001) == (float)ldexp(1.0, -24));
    CHECK(xlarun_k_f16_to_f32(0x03ff) == (float)ldexp(1023.0, -24));
    CHECK(xlarun_k_f16_to_f32(0x0400) == (float)ldexp(1.0, -14));
    CHECK(isinf(xlarun_k_f16_to_f32(0xfc00)) && xlarun_k_f16_to_f32(0xfc00) < 0);
    CHECK(isnan(xlarun_k_f16_to_f32(0x7e00)));
    CHECK(xlarun_k_type_size(XLARUN_K_F32) == 4 && xlarun_k_type_size(XLARUN_K_F16) == 2 &&
          xlarun_k_type_size(XLARUN_K_BF16) == 2);
}

/* ---- typed weight buffers at an odd offset ---- */
static const xlarun_k_type types[3] = {XLARUN_K_F32, XLARUN_K_F16, XLARUN_K_BF16};
static const char *type_name[3] = {"f32", "f16", "bf16"};
static const size_t offsets[4] = {0, 1, 2, 6};

/* raw: count elements of dtype t stored at raw (any alignment); val gets the exact values */
static void fill_weights(xlarun_k_type t, unsigned char *raw, float *val, size_t count, float scale) {
    size_t i;
    for (i = 0; i < count; i++) {
        float f = frand() * scale;
        if (t == XLARUN_K_F32) {
            memcpy(raw + 4 * i, &f, 4);
        } else {
            uint16_t h = t == XLARUN_K_F16 ? xlarun_k_f32_to_f16(f) : xlarun_k_f32_to_bf16(f);
            memcpy(raw + 2 * i, &h, 2);
            f = t == XLARUN_K_F16 ? xlarun_k_f16_to_f32(h) : xlarun_k_bf16_to_f32(h);
        }
        val[i] = f;
    }
}

static void test_to_f32(void) {
    static const size_t sizes[] = {0, 1, 3, 15, 16, 17, 31, 33, 100};
    unsigned char raw[100 * 4 + 8];
    float val[100], a[100], b[100];
    size_t ti, si, oi;
    for (ti = 0; ti < 3; ti++)
        for (oi = 0; oi < 4; oi++)
            for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                size_t n = sizes[si];
                fill_weights(types[ti], raw + offsets[oi], val, n, 2.0f);
                memset(a, 0xAB, sizeof a);
                memset(b, 0xAB, sizeof b);
                xlarun_k_to_f32(types[ti], raw + offsets[oi], a, n);
                xlarun_k_to_f32_ref(types[ti], raw + offsets[oi], b, n);
                CHECKF(memcmp(a, b, sizeof a) == 0 && memcmp(a, val, n * 4) == 0, "to_f32 %s n=%zu off=%zu",
                       type_name[ti], n, offsets[oi]);
            }
}

static const size_t Ks[] = {1, 3, 15, 16, 17, 31, 64, 100, 257, 1000};
#define NK (sizeof Ks / sizeof Ks[0])
#define MAXK 1000

static double dot_tol(size_t K) { return (double)(K + 4) * ldexp(1.0, -24); }

static void test_dot(void) {
    unsigned char *raw = (unsigned char *)malloc(MAXK * 4 + 8);
    float *val = (float *)malloc(MAXK * sizeof(float)), *x = (float *)malloc(MAXK * sizeof(float));
    size_t ti, ki, oi, k;
    for (ti = 0; ti < 3; ti++)
        for (ki = 0; ki < NK; ki++)
            for (oi = 0; oi < 4; oi++) {
                size_t K = Ks[ki];
                double exact = 0, abssum = 0, e1, e2;
                float got, ref;
                fill_weights(types[ti], raw + offsets[oi], val, K, 1.0f);
                for (k = 0; k < K; k++) x[k] = frand() * 4.0f;
                for (k = 0; k < K; k++) {
                    exact += (double)val[k] * x[k];
                    abssum += fabs((double)val[k] * x[k]);
                }
                got = xlarun_k_dot(types[ti], raw + offsets[oi], x, K);
                ref = xlarun_k_dot_ref(types[ti], raw + offsets[oi], x, K);
                e1 = fabs(got - exact) / abssum;
                e2 = fabs(ref - exact) / abssum;
                if (e1 > max_dot_err) max_dot_err = e1;
                if (e2 > max_dot_ref_err) max_dot_ref_err = e2;
                CHECKF(e1 <= dot_tol(K), "dot %s K=%zu off=%zu: %g vs %g (rel %g)", type_name[ti], K,
                       offsets[oi], got, exact, e1);
                CHECKF(e2 <= dot_tol(K), "dot_ref %s K=%zu off=%zu: %g vs %g (rel %g)", type_name[ti], K,
                       offsets[oi], ref, exact, e2);
            }
    CHECK(xlarun_k_dot(XLARUN_K_F32, raw, x, 0) == 0.0f);
    free(raw);
    free(val);
    free(x);
}

/* The determinism contract: every matmul element has the bits of xlarun_k_dot. */
static void test_matmul(void) {
    static const size_t Rs_small[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 37};
    static const size_t ns_small[] = {1, 2, 3, 4, 5, 9};
    static const size_t Rs_big[] = {3, 13, 37};
    static const size_t ns_big[] = {1, 5, 9};
    const uint32_t sentinel = 0x7fc0dead;
    size_t maxR = 37, maxn = 9, ldxmax = MAXK + 3, ldymax = 37 + 3;
    unsigned char *raw = (unsigned char *)malloc(maxR * MAXK * 4 + 8);
    float *val = (float *)malloc(maxR * MAXK * sizeof(float));
    float *X = (float *)malloc(maxn * ldxmax * sizeof(float));
    float *Y = (float *)malloc(maxn * ldymax * sizeof(float));
    float *D = (float *)malloc(maxn * maxR * sizeof(float));
    size_t ti, ki, ri, ni, oi = 0;
    long bad_bits = 0, bad_guard = 0, bad_tol = 0, cases = 0;
    for (ti = 0; ti < 3; ti++)
        for (ki = 0; ki < NK; ki++) {
            size_t K = Ks[ki], big = K > 100;
            size_t nR = big ? 3 : 10, nn = big ? 3 : 6;
            for (ri = 0; ri < nR; ri++)
                for (ni = 0; ni < nn; ni++) {
                    size_t R = big ? Rs_big[ri] : Rs_small[ri], n = big ? ns_big[ni] : ns_small[ni];
                    size_t ldx = K + (ri + ni) % 3, ldy = R + 1 + ni % 3, es = xlarun_k_type_size(types[ti]);
                    size_t off = offsets[oi++ % 4], i, r, k, split;
                    const unsigned char *W = raw + off;
                    fill_weights(types[ti], raw + off, val, R * K, 1.0f);
                    for (i = 0; i < n * ldx; i++) X[i] = frand() * 3.0f;
                    for (i = 0; i < n; i++)
                        for (r = 0; r < R; r++) {
                            double exact = 0, abssum = 0;
                            D[i * R + r] = xlarun_k_dot(types[ti], W + r * K * es, X + i * ldx, K);
                            for (k = 0; k < K; k++) {
                                exact += (double)val[r * K + k] * X[i * ldx + k];
                                abssum += fabs((double)val[r * K + k] * X[i * ldx + k]);
                            }
                            if (fabs(D[i * R + r] - exact) > dot_tol(K) * abssum) bad_tol++;
                        }
                    /* splits: 0 whole; 1 first row apart; 2 thirds; 3 row by row; 4 token by token;
                       5 tokens in two uneven halves with rows split at 5; 6, 7 token by token
                       through the decode GEMV, 1..9 streams, whole and in two uneven parts */
                    for (split = 0; split < 8; split++) {
                        for (i = 0; i < n * ldy; i++) memcpy(&Y[i], &sentinel, 4);
                        if (split == 0) xlarun_k_matmul(types[ti], W, K, 0, R, X, ldx, n, Y, ldy);
                        if (split == 1) {
                            xlarun_k_matmul(types[ti], W, K, 1, R, X, ldx, n, Y, ldy);
                            xlarun_k_matmul(types[ti], W, K, 0, 1, X, ldx, n, Y, ldy);
                        }
                        if (split == 2) {
                            xlarun_k_matmul(types[ti], W, K, 0, R / 3, X, ldx, n, Y, ldy);
                            xlarun_k_matmul(types[ti], W, K, R / 3, 2 * R / 3, X, ldx, n, Y, ldy);
                            xlarun_k_matmul(types[ti], W, K, 2 * R / 3, R, X, ldx, n, Y, ldy);
                        }
                        if (split == 3)
                            for (r = 0; r < R; r++) xlarun_k_matmul(types[ti], W, K, r, r + 1, X, ldx, n, Y, ldy);
                        if (split == 4)
                            for (i = 0; i < n; i++)
                                xlarun_k_matmul(types[ti], W, K, 0, R, X + i * ldx, ldx, 1, Y + i * ldy, ldy);
                        if (split == 5) {
                            size_t h = n / 3, rs = R < 5 ? R : 5;
                            xlarun_k_matmul(types[ti], W, K, 0, rs, X, ldx, h, Y, ldy);
                            xlarun_k_matmul(types[ti], W, K, rs, R, X, ldx, h, Y, ldy);
                            xlarun_k_matmul(types[ti], W, K, 0, rs, X + h * ldx, ldx, n - h, Y + h * ldy, ldy);
                            xlarun_k_matmul(types[ti], W, K, rs, R, X + h * ldx, ldx, n - h, Y + h * ldy, ldy);
                        }
                        if (split == 6)
                            for (i = 0; i < n; i++)
                                xlarun_k_gemv(types[ti], W, K, 0, R, X + i * ldx, Y + i * ldy, (int)(1 + (i + ri) % 9));
                        if (split == 7)
                            for (i = 0; i < n; i++) {
                                size_t h = R / 3;
                                xlarun_k_gemv(types[ti], W, K, 0, h, X + i * ldx, Y + i * ldy, (int)(1 + (i + ni) % 9));
                                xlarun_k_gemv(types[ti], W, K, h, R, X + i * ldx, Y + i * ldy, (int)(8 - (i + ri) % 8));
                            }
                        for (i = 0; i < n; i++) {
                            for (r = 0; r < R; r++)
                                if (fbits(Y[i * ldy + r]) != fbits(D[i * R + r])) bad_bits++;
                            for (r = R; r < ldy; r++)
                                if (fbits(Y[i * ldy + r]) != sentinel) bad_guard++;
                        }
                        cases++;
                    }
                    /* the reference GEMM: bits of dot_ref */
                    if (big) continue;
                    xlarun_k_matmul_ref(types[ti], W, K, 0, R, X, ldx, n, Y, ldy);
                    for (i = 0; i < n; i++)
                        for (r = 0; r < R; r++)
                            if (fbits(Y[i * ldy + r]) !=
                                fbits(xlarun_k_dot_ref(types[ti], W + r * K * es, X + i * ldx, K)))
                                bad_bits++;
                }
        }
    CHECKF(bad_bits == 0, "matmul: %ld elements differ in bits from dot (%ld cases)", bad_bits, cases);
    CHECKF(bad_guard == 0, "matmul: %ld elements written outside [r0, r1)", bad_guard);
    CHECKF(bad_tol == 0, "matmul/dot: %ld elements outside tolerance", bad_tol);
    free(raw);
    free(val);
    free(X);
    free(Y);
    free(D);
}

static void test_rmsnorm(void) {
    static const size_t ns[] = {1, 3, 16, 17, 100, 1000, 2048};
    float *x = (float *)malloc(2048 * sizeof(float)), *w = (float *)malloc(2048 * sizeof(float));
    float *o1 = (float *)malloc(2048 * sizeof(float)), *o2 = (float *)malloc(2048 * sizeof(float));
    size_t ni, i;
    long bad = 0, badbits = 0;
    for (ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        size_t n = ns[ni];
        double ss = 0, r;
        float eps = ni & 1 ? 1e-5f : 1e-6f;
        for (i = 0; i < n; i++) {
            x[i] = frand() * (ni == 2 ? 1e-3f : 3.0f);
            w[i] = frand() + 0.5f;
            ss += (double)x[i] * x[i];
        }
        r = 1.0 / sqrt(ss / (double)n + (double)eps);
        xlarun_k_rmsnorm(o1, x, w, n, eps);
        xlarun_k_rmsnorm_ref(o2, x, w, n, eps);
        for (i = 0; i < n; i++) {
            double want = (double)w[i] * x[i] * r, e = fabs(o1[i] - want) / (fabs(want) + 1e-300);
            if (e > max_rms_err) max_rms_err = e;
            if (e > 3e-7) bad++;
            if (fbits(o1[i]) != fbits(o2[i])) badbits++;
        }
        xlarun_k_rmsnorm(x, x, w, n, eps); /* in place */
        for (i = 0; i < n; i++)
            if (fbits(x[i]) != fbits(o1[i])) badbits++;
    }
    CHECKF(bad == 0, "rmsnorm: %ld outside 3e-7 relative", bad);
    CHECKF(badbits == 0, "rmsnorm: %ld differ from _ref or in-place", badbits);
    free(x);
    free(w);
    free(o1);
    free(o2);
}

/* the f32 product and sum/difference, each rounded on its own: volatile keeps the compiler from
   fusing them into an FMA even in builds that contract (C++, GNU C modes) */
static float round_mul(float a, float b) { volatile float p = a * b; return p; }
static float round_add(float a, float b) { volatile float p = a + b; return p; }

static void test_rope(void) {
    static const size_t hds[] = {2, 4, 6, 8, 16, 18, 34, 64, 128};
    float x[4 * 128], y[4 * 128], z[4 * 128], c[64], s[64];
    size_t hi, nh, i, h;
    long bad = 0;
    for (hi = 0; hi < sizeof hds / sizeof hds[0]; hi++)
        for (nh = 1; nh <= 4; nh++) {
            size_t hd = hds[hi], half = hd / 2;
            for (i = 0; i < half; i++) {
                float ang = (float)(nh * 7 + hi) * powf(10000.0f, -(float)(2 * i) / (float)hd);
                c[i] = cosf(ang);
                s[i] = sinf(ang);
            }
            for (i = 0; i < nh * hd; i++) x[i] = y[i] = z[i] = frand() * 5.0f;
            xlarun_k_rope(y, nh, hd, c, s);
            xlarun_k_rope_ref(z, nh, hd, c, s);
            for (h = 0; h < nh; h++)
                for (i = 0; i < half; i++) {
                    float a = x[h * hd + i], b = x[h * hd + i + half];
                    float w0 = round_add(round_mul(a, c[i]), -round_mul(b, s[i]));
                    float w1 = round_add(round_mul(b, c[i]), round_mul(a, s[i]));
                    if (fbits(y[h * hd + i]) != fbits(w0) || fbits(y[h * hd + i + half]) != fbits(w1)) bad++;
                    if (fbits(z[h * hd + i]) != fbits(w0) || fbits(z[h * hd + i + half]) != fbits(w1)) bad++;
                }
        }
    CHECKF(bad == 0, "rope: %ld pairs differ from separately rounded products", bad);
}

static void check_softmax_case(const float *in, size_t n, const char *what) {
    float *a = (float *)malloc((n + 1) * sizeof(float)), *b = (float *)malloc((n + 1) * sizeof(float));
    double m = -INFINITY, sum = 0;
    size_t i;
    long bad = 0;
    memcpy(a, in, n * sizeof(float));
    memcpy(b, in, n * sizeof(float));
    xlarun_k_softmax(a, n);
    xlarun_k_softmax_ref(b, n);
    for (i = 0; i < n; i++)
        if (in[i] > m) m = in[i];
    for (i = 0; i < n; i++) sum += exp((double)in[i] - m);
    for (i = 0; i < n; i++) {
        double want = exp((double)in[i] - m) / sum;
        double ea = fabs(a[i] - want) / want, eb = fabs(b[i] - want) / want;
        if (want == 0) ea = eb = (a[i] == 0 && b[i] == 0) ? 0 : 1;
        if (ea > max_soft_err) max_soft_err = ea;
        if (ea > 2e-5 || eb > 2e-5) bad++;
    }
    CHECKF(bad == 0, "softmax %s n=%zu: %ld outside 2e-5 relative", what, n, bad);
    free(a);
    free(b);
}

static void test_softmax(void) {
    static const size_t ns[] = {1, 2, 3, 15, 16, 17, 100, 1000};
    float v[1000], one = 3.0f;
    size_t ni, i;
    for (ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        for (i = 0; i < ns[ni]; i++) v[i] = frand() * 20.0f;
        check_softmax_case(v, ns[ni], "random");
    }
    for (i = 0; i < 37; i++) v[i] = i % 3 == 0 ? -INFINITY : (i % 5 == 0 ? -FLT_MAX : frand() * 8.0f);
    check_softmax_case(v, 37, "masked");
    xlarun_k_softmax(v, 37);
    CHECK(v[0] == 0.0f && v[3] == 0.0f && v[36] == 0.0f);
    for (i = 0; i < 21; i++) v[i] = -7.25f;
    xlarun_k_softmax(v, 21);
    for (i = 0; i < 21; i++) CHECKF(fabsf(v[i] - 1.0f / 21) <= 1e-7f, "all equal: %g", v[i]);
    xlarun_k_softmax(&one, 1);
    CHECK(one == 1.0f);
    xlarun_k_softmax(NULL, 0); /* nothing to do, nothing touched */
}

/* a GQA group of nq queries against keys stored in transposed blocks (the last block padded
   past n_keys as the kernel's contract asks, the padding filled with junk that must not leak
   into the results), values by row, in each cache dtype (written by kv_store, a key at a time
   with stride XLARUN_K_KEY_BLOCK as the session writes them; the double-precision reference
   uses the stored values widened back), score rows lds apart. Each query's results must not
   depend on its group: query g computed alone (nq = 1) gives the same bits; nor on a split into
   attend_qk over two key ranges (cut at a block), softmax, attend_pv over three dimension ranges;
   nor on keeping the positions in a ring of slots. */
static float stored(xlarun_k_type t, const unsigned char *p, size_t j) { /* element j, widened */
    float f;
    xlarun_k_to_f32_ref(t, p + j * xlarun_k_type_size(t), &f, 1);
    return f;
}

static void test_attend(void) {
    static const size_t nks[] = {1, 2, 3, 7, 16, 33, 64, 100, 129};
    /* head sizes: every count of whole and partial vectors per value pass on every ISA (AVX-512
       passes of 4 vectors of 16: 40, 48, 56 leave 3, 3 and 4 in the last pass; NEON's of 4 x 4:
       14, 30) */
    static const size_t hds[] = {1, 3, 8, 14, 16, 17, 30, 40, 48, 56, 64, 120, 128};
    static const size_t nqs[] = {1, 3, 4, 6, 8};
    static const xlarun_k_type types[] = {XLARUN_K_F32, XLARUN_K_F16, XLARUN_K_BF16};
    size_t ti, ki, hi, qi, j, d, g;
    long bad = 0, bad_ref = 0, bad_alone = 0, bad_split = 0, bad_ring = 0;
    for (ti = 0; ti < 3; ti++)
    for (ki = 0; ki < sizeof nks / sizeof nks[0]; ki++)
        for (hi = 0; hi < sizeof hds / sizeof hds[0]; hi++)
            for (qi = 0; qi < sizeof nqs / sizeof nqs[0]; qi++) {
                xlarun_k_type t = types[ti];
                size_t nk = nks[ki], hd = hds[hi], nq = nqs[qi], ldk = XLARUN_K_KEY_PAD(nk), lds = ldk + 16 * (ki & 1);
                /* a sliding window from j0 in most cases: inside a key block, at a block edge (16 or
                   32), the last key alone; none in the rest */
                size_t j0 = qi % 2 ? nk * 2 / 5 : qi == 2 ? (nk > 16 ? 16 : 0) : qi == 4 ? (nk > 32 ? 32 : nk - 1) : 0;
                size_t es = xlarun_k_type_size(t), o = j0 % XLARUN_K_KEY_BLOCK; /* the rows' first p */
                float *q = (float *)malloc(nq * hd * sizeof(float)), *kf = (float *)malloc(hd * ldk * sizeof(float));
                float *vf = (float *)malloc(nk * hd * sizeof(float)), *sc = (float *)malloc(nq * lds * sizeof(float));
                unsigned char *kt = (unsigned char *)malloc(hd * ldk * es), *vv = (unsigned char *)malloc(nk * hd * es);
                float *sc2 = (float *)malloc(nq * lds * sizeof(float)), *out = (float *)malloc(nq * hd * sizeof(float));
                float *out2 = (float *)malloc(nq * hd * sizeof(float)), *out1 = (float *)malloc(hd * sizeof(float));
                double *p = (double *)malloc(nk * sizeof(double));
                float scale = 1.0f / sqrtf((float)hd), cap = hi % 2 ? 2.0f : 0.0f; /* soft capping on half the sizes */
                for (j = 0; j < nq * hd; j++) q[j] = frand() * 3.0f;
                for (j = 0; j < ldk; j++) /* kf: key j's dimensions in a row, padding past nk */
                    for (d = 0; d < hd; d++) kf[j * hd + d] = j < nk ? frand() : (j & 1 ? NAN : 1e30f);
                for (j = 0; j < nk * hd; j++) vf[j] = frand() * 2.0f;
                for (j = 0; j < ldk; j++) xlarun_k_kv_store(t, kf + j * hd, kt + XLARUN_K_KEY_AT(j, 0, hd) * es, hd, XLARUN_K_KEY_BLOCK);
                xlarun_k_kv_store(t, vf, vv, nk * hd, 1);
                for (j = 0; j < ldk; j++) /* what the cache holds */
                    for (d = 0; d < hd; d++) kf[j * hd + d] = stored(t, kt, XLARUN_K_KEY_AT(j, d, hd));
                for (j = 0; j < nk * hd; j++) vf[j] = stored(t, vv, j);
                xlarun_k_attend(t, q, nq, kt, vv, 0, j0, nk, hd, scale, cap, sc, lds, out);
                xlarun_k_attend_ref(t, q, nq, kt, vv, 0, j0, nk, hd, scale, cap, sc2, lds, out2);
                for (j = 0; j < 2; j++) { /* the halves, keys and dimensions split as a caller splits them
                                             across threads (j = 1: the _ref ones) give attend's bits */
                    size_t nb = (nk - j0 % XLARUN_K_KEY_BLOCK + XLARUN_K_KEY_BLOCK - 1) / XLARUN_K_KEY_BLOCK, r;
                    size_t cut = j0 - j0 % XLARUN_K_KEY_BLOCK + nb / 2 * XLARUN_K_KEY_BLOCK, dcut[4];
                    float *ps = (float *)malloc(nq * lds * sizeof(float)), *os = (float *)malloc(nq * hd * sizeof(float));
                    dcut[0] = 0; dcut[1] = hd / 3; dcut[2] = (hd * 3 + 1) / 4; dcut[3] = hd; /* off the vectors */
                    if (cut < j0) cut = j0;
                    if (cut > nk) cut = nk;
                    (j ? xlarun_k_attend_qk_ref : xlarun_k_attend_qk)(t, q, nq, kt, 0, j0, cut, nk, hd, scale, ps, lds);
                    (j ? xlarun_k_attend_qk_ref : xlarun_k_attend_qk)(t, q, nq, kt, 0, j0, j0, cut, hd, scale, ps, lds);
                    for (g = 0; g < nq; g++) {
                        if (cap > 0.0f) xlarun_k_softcap(ps + g * lds + o, nk - j0, cap);
                        (j ? xlarun_k_softmax_ref : xlarun_k_softmax)(ps + g * lds + o, nk - j0);
                    }
                    for (r = 0; r < 3; r++) { /* the middle range, then the first, then the last: a range
                                                 that writes outside itself, either way, shows */
                        size_t rr = r == 0 ? 1 : r == 1 ? 0 : 2;
                        (j ? xlarun_k_attend_pv_ref : xlarun_k_attend_pv)(t, ps, nq, lds, vv, 0, j0, nk, hd, dcut[rr], dcut[rr + 1], os);
                    }
                    for (g = 0; g < nq; g++)
                        if (memcmp(os + g * hd, (j ? out2 : out) + g * hd, hd * sizeof(float)) ||
                            memcmp(ps + g * lds + o, (j ? sc2 : sc) + g * lds + o, (nk - j0) * sizeof(float)))
                            bad_split++;
                    free(ps); free(os);
                }
                { /* the same positions kept in a ring of slots (a sliding window's cache): written in
                     order from position 0, so each slot holds its last position; the slots never
                     written hold junk. Both variants must give the bits they give without a ring. */
                    size_t R = XLARUN_K_KEY_PAD(nk - j0) + XLARUN_K_KEY_BLOCK * (hi % 2), r;
                    unsigned char *kr = (unsigned char *)malloc(R * hd * es), *vr = (unsigned char *)malloc(R * hd * es);
                    float *sr = (float *)malloc(nq * lds * sizeof(float)), *orr = (float *)malloc(nq * hd * sizeof(float));
                    float junk[128];
                    for (d = 0; d < hd; d++) junk[d] = d & 1 ? NAN : -1e30f;
                    for (j = 0; j < R; j++) {
                        xlarun_k_kv_store(t, junk, kr + XLARUN_K_KEY_AT(j, 0, hd) * es, hd, XLARUN_K_KEY_BLOCK);
                        xlarun_k_kv_store(t, junk, vr + j * hd * es, hd, 1);
                    }
                    for (j = 0; j < nk; j++) {
                        xlarun_k_kv_store(t, kf + j * hd, kr + XLARUN_K_KEY_AT(j % R, 0, hd) * es, hd, XLARUN_K_KEY_BLOCK);
                        xlarun_k_kv_store(t, vf + j * hd, vr + (j % R) * hd * es, hd, 1);
                    }
                    for (r = 0; r < 2; r++) {
                        (r ? xlarun_k_attend_ref : xlarun_k_attend)(t, q, nq, kr, vr, R, j0, nk, hd, scale, cap, sr, lds, orr);
                        if (memcmp(orr, r ? out2 : out, nq * hd * sizeof(float))) bad_ring++;
                        for (g = 0; g < nq; g++)
                            if (memcmp(sr + g * lds + o, (r ? sc2 : sc) + g * lds + o, (nk - j0) * sizeof(float))) bad_ring++;
                    }
                    free(kr); free(vr); free(sr); free(orr);
                }
                for (g = 0; g < nq; g++) {
                    double m = -INFINITY, sum = 0;
                    xlarun_k_attend(t, q + g * hd, 1, kt, vv, 0, j0, nk, hd, scale, cap, sc2, lds, out1);
                    if (memcmp(out1, out + g * hd, hd * sizeof(float))) bad_alone++;
                    xlarun_k_attend(t, q, nq, kt, vv, 0, j0, nk, hd, scale, cap, sc, lds, out); /* sc holds p again */
                    for (j = j0; j < nk; j++) {
                        double s = 0;
                        for (d = 0; d < hd; d++) s += (double)q[g * hd + d] * kf[j * hd + d];
                        p[j] = s * scale;
                        if (cap > 0.0f) p[j] = tanh(p[j] / cap) * cap;
                        if (p[j] > m) m = p[j];
                    }
                    for (j = j0; j < nk; j++) sum += (p[j] = exp(p[j] - m));
                    for (j = j0; j < nk; j++) {
                        double e = fabs(sc[g * lds + j - j0 + o] - p[j] / sum) / (p[j] / sum);
                        if (e > max_soft_err) max_soft_err = e;
                        if (e > 2e-5) bad++;
                    }
                    for (d = 0; d < hd; d++) {
                        double want = 0, mag = 0, e;
                        for (j = j0; j < nk; j++) {
                            want += p[j] / sum * vf[j * hd + d];
                            mag += p[j] / sum * fabs(vf[j * hd + d]);
                        }
                        e = fabs(out[g * hd + d] - want) / mag;
                        if (e > max_att_err) max_att_err = e;
                        if (e > 2e-5) bad++;
                        if (fabs(out2[g * hd + d] - want) / mag > 2e-5) bad_ref++;
                    }
                }
                free(q); free(kf); free(vf); free(kt); free(vv); free(sc); free(sc2); free(out); free(out2); free(out1); free(p);
            }
    CHECKF(bad == 0, "attend: %ld values outside tolerance", bad);
    CHECKF(bad_ref == 0, "attend_ref: %ld values outside tolerance", bad_ref);
    CHECKF(bad_alone == 0, "attend: %ld queries differ when computed outside their group", bad_alone);
    CHECKF(bad_split == 0, "attend_qk/attend_pv: %ld queries differ from attend when split", bad_split);
    CHECKF(bad_ring == 0, "attend: %ld results differ when the positions are kept in a ring", bad_ring);
    {   /* no keys: out = 0, also for an empty window */
        float q0[4] = {1, 2, 3, 4}, o0[4] = {9, 9, 9, 9}, kt0[32] = {0}, sc0[32] = {0};
        xlarun_k_attend(XLARUN_K_F32, q0, 1, kt0, kt0, 0, 0, 0, 4, 0.5f, 0.0f, sc0, 32, o0);
        CHECK(o0[0] == 0.0f && o0[3] == 0.0f);
        o0[0] = o0[3] = 9;
        xlarun_k_attend(XLARUN_K_F32, q0, 1, kt0, kt0, 0, 5, 5, 4, 0.5f, 0.0f, sc0, 32, o0);
        CHECK(o0[0] == 0.0f && o0[3] == 0.0f);
        o0[0] = o0[3] = 9;
        xlarun_k_attend_ref(XLARUN_K_F32, q0, 1, kt0, kt0, 0, 5, 5, 4, 0.5f, 0.0f, sc0, 32, o0);
        CHECK(o0[0] == 0.0f && o0[3] == 0.0f);
        o0[0] = o0[1] = o0[3] = 9; /* attend_pv alone: its dimensions 0 when there are no keys */
        xlarun_k_attend_pv(XLARUN_K_F32, sc0, 1, 32, kt0, 0, 7, 5, 4, 0, 2, o0);
        CHECK(o0[0] == 0.0f && o0[1] == 0.0f && o0[3] == 9.0f);
        o0[0] = o0[1] = 9;
        xlarun_k_attend_pv_ref(XLARUN_K_F32, sc0, 1, 32, kt0, 0, 7, 5, 4, 0, 2, o0);
        CHECK(o0[0] == 0.0f && o0[1] == 0.0f && o0[3] == 9.0f);
    }
}

/* kv_store: each dtype's rounding, f16's saturation, the stride */
static void test_kv_store(void) {
    static const float edge[] = {65504.0f, 65519.0f, 65520.0f, 70000.0f, 1e30f, -65520.0f, -1e38f, 3.4028235e38f,
                                 INFINITY, -INFINITY, 6.1e-5f, 5.96e-8f, 2.9e-8f, -0.0f, 1e38f, 1.0f + 1.0f / 256};
    static const uint16_t want16[] = {0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff, 0xfbff, 0xfbff, 0x7bff,
                                      0x7c00, 0xfc00, 0x03ff, 0x0001, 0x0000, 0x8000, 0x7bff, 0x3c04};
    float src[64], back[64];
    uint16_t h[64 * 3];
    float f[64 * 3];
    size_t i, n = sizeof edge / sizeof *edge;
    long bad = 0;
    xlarun_k_kv_store(XLARUN_K_F16, edge, h, n, 1);
    for (i = 0; i < n; i++)
        if (h[i] != want16[i]) { bad++; printf("  kv_store f16 %g: %04x, want %04x\n", edge[i], h[i], want16[i]); }
    src[0] = NAN;
    xlarun_k_kv_store(XLARUN_K_F16, src, h, 1, 1);
    CHECK((h[0] & 0x7c00) == 0x7c00 && (h[0] & 0x3ff) != 0);
    xlarun_k_kv_store(XLARUN_K_BF16, src, h, 1, 1);
    CHECK((h[0] & 0x7f80) == 0x7f80 && (h[0] & 0x7f) != 0);
    xlarun_k_kv_store(XLARUN_K_BF16, edge, h, n, 1);
    for (i = 0; i < n; i++) /* as the scalar conversion, below the saturation checked next */
        if (fabsf(edge[i]) < 3e38f) bad += h[i] != xlarun_k_f32_to_bf16(edge[i]);
    {   /* bf16: finite values that round to inf saturate; inf stays inf */
        static const float big[] = {3.3895314e38f, 3.39e38f, 3.4028235e38f, -3.4028235e38f, INFINITY, -INFINITY};
        static const uint16_t want[] = {0x7f7f, 0x7f7f, 0x7f7f, 0xff7f, 0x7f80, 0xff80};
        xlarun_k_kv_store(XLARUN_K_BF16, big, h, 6, 1);
        for (i = 0; i < 6; i++)
            if (h[i] != want[i]) { bad++; printf("  kv_store bf16 %g: %04x, want %04x\n", big[i], h[i], want[i]); }
    }
    for (i = 0; i < 64; i++) src[i] = frand() * 100.0f;
    /* stride 3: every third element written, the others untouched */
    memset(h, 0xee, sizeof h);
    xlarun_k_kv_store(XLARUN_K_F16, src, h, 64, 3);
    for (i = 0; i < 64 * 3; i++)
        bad += i % 3 ? h[i] != 0xeeee : h[i] != xlarun_k_f32_to_f16(src[i / 3]);
    memset(h, 0xee, sizeof h);
    xlarun_k_kv_store(XLARUN_K_BF16, src, h, 64, 3);
    for (i = 0; i < 64 * 3; i++)
        bad += i % 3 ? h[i] != 0xeeee : h[i] != xlarun_k_f32_to_bf16(src[i / 3]);
    memset(f, 0, sizeof f);
    xlarun_k_kv_store(XLARUN_K_F32, src, f, 64, 3);
    for (i = 0; i < 64; i++) back[i] = f[3 * i];
    bad += memcmp(back, src, sizeof src) != 0;
    CHECKF(bad == 0, "kv_store: %ld values wrong", bad);
}

/* Long rows and many tokens: the GEMMs take their tokens in blocks that fit in L2 (a few
   dozen tokens at this K), so this crosses block edges with partial row and token tiles and a
   K tail; every element must still have the bits of the matching dot. */
static void test_matmul_blocked(void) {
    enum { R = 37, N = 37, K = 8209 };
    unsigned char *raw = (unsigned char *)malloc((size_t)R * K * 4);
    float *val = (float *)malloc((size_t)R * K * sizeof(float)), *X = (float *)malloc((size_t)N * K * sizeof(float));
    float *Y = (float *)malloc((size_t)N * R * sizeof(float));
    uint16_t *Xb = (uint16_t *)malloc((size_t)N * K * 2);
    size_t ti, i, r;
    long bad = 0, badx = 0;
    for (i = 0; i < (size_t)N * K; i++) X[i] = frand() * 3.0f;
    for (i = 0; i < N; i++) xlarun_k_f32_to_bf16_row(X + i * K, Xb + i * K, K);
    for (ti = 0; ti < 3; ti++) {
        size_t es = xlarun_k_type_size(types[ti]);
        fill_weights(types[ti], raw, val, (size_t)R * K, 1.0f);
        xlarun_k_matmul(types[ti], raw, K, 1, R, X, K, N, Y, R);
        for (i = 0; i < N; i++)
            for (r = 1; r < R; r++) {
                float d = xlarun_k_dot(types[ti], raw + r * K * es, X + i * K, K);
                if (fbits(d) != fbits(Y[i * R + r])) bad++;
            }
        for (i = 0; i < 10; i++) { /* the decode GEMV: 1 to 9 streams over rows split in two at 1 + i % 8,
                                      then 2 streams over rows 1.. */
            float y1[R];
            size_t h = 1 + i % 8;
            memset(y1, 0, sizeof y1);
            if (i < 9) {
                xlarun_k_gemv(types[ti], raw, K, 1, h, X + i * K, y1, (int)(1 + i));
                xlarun_k_gemv(types[ti], raw, K, h, R, X + i * K, y1, (int)(9 - i));
            } else
                xlarun_k_gemv(types[ti], raw, K, 1, R, X + i * K, y1, 2);
            for (r = 1; r < R; r++) bad += fbits(y1[r]) != fbits(Y[i * R + r]);
            bad += fbits(y1[0]) != 0; /* row 0 is outside the calls */
        }
        if (types[ti] == XLARUN_K_BF16) {
            xlarun_k_matmul_bf16x(raw, K, 1, R, Xb, K, N, Y, R, NULL);
            for (i = 0; i < N; i++)
                for (r = 1; r < R; r++) {
                    float d = xlarun_k_dot_bf16_bf16((const uint16_t *)(const void *)(raw + r * K * 2), Xb + i * K, K);
                    if (fbits(d) != fbits(Y[i * R + r])) badx++;
                }
            for (i = 0; i < 4; i++) { /* one token (decode), rows from 1, 2 or 3 */
                float y1[R];
                xlarun_k_matmul_bf16x(raw, K, 1 + i % 3, R, Xb + i * K, K, 1, y1, R, NULL);
                for (r = 1 + i % 3; r < R; r++) badx += fbits(y1[r]) != fbits(Y[i * R + r]);
            }
            for (i = 0; i < 9; i++) { /* the decode GEMV, 1 to 9 streams over rows split in two at 1 + i % 8 */
                float y1[R];
                size_t h = 1 + i % 8;
                memset(y1, 0, sizeof y1);
                xlarun_k_gemv_bf16x(raw, K, 1, h, Xb + i * K, y1, (int)(1 + i));
                xlarun_k_gemv_bf16x(raw, K, h, R, Xb + i * K, y1, (int)(9 - i));
                for (r = 1; r < R; r++) badx += fbits(y1[r]) != fbits(Y[i * R + r]);
                badx += fbits(y1[0]) != 0; /* row 0 is outside both calls */
            }
        }
    }
    CHECKF(bad == 0, "matmul and gemv, long rows: %ld elements differ in bits from dot", bad);
    CHECKF(badx == 0, "matmul_bf16x, long rows: %ld elements differ in bits from dot_bf16_bf16", badx);
    free(raw); free(val); free(X); free(Y); free(Xb);
}

static long ulp_diff(float a, float b) {
    int32_t ia, ib;
    uint32_t ua = fbits(a), ub = fbits(b);
    ia = (ua & 0x80000000u) ? -(int32_t)(ua & 0x7fffffffu) : (int32_t)ua;
    ib = (ub & 0x80000000u) ? -(int32_t)(ub & 0x7fffffffu) : (int32_t)ub;
    return ia > ib ? (long)ia - ib : (long)ib - ia;
}

static void test_exp(void) {
    enum { N = 60000 };
    float *v = (float *)malloc(N * sizeof(float)), *w = (float *)malloc(N * sizeof(float));
    float sp[9] = {-INFINITY, INFINITY, NAN, 0.0f, 88.72f, 88.73f, -103.9f, -110.0f, -87.5f};
    size_t i;
    long bad = 0;
    for (i = 0; i < N; i++) v[i] = w[i] = -104.0f + 192.8f * (float)i / N + frand() * 1e-3f;
    xlarun_k_exp(v, N);
    for (i = 0; i < N; i++) {
        long u = ulp_diff(v[i], expf(w[i]));
        if (u > max_exp_ulp) max_exp_ulp = u;
        if (u > 2) bad++;
    }
    CHECKF(bad == 0, "exp: %ld values more than 2 ulp from expf (max %ld)", bad, max_exp_ulp);
    memcpy(v, sp, sizeof sp);
    xlarun_k_exp(v, 9);
    CHECK(v[0] == 0.0f && isinf(v[1]) && isnan(v[2]) && v[3] == 1.0f);
    CHECK(isfinite(v[4]) && isinf(v[5]) && v[7] == 0.0f);
    CHECKF(ulp_diff(v[6], expf(-103.9f)) <= 1 && ulp_diff(v[8], expf(-87.5f)) <= 2, "exp subnormal %g %g", v[6], v[8]);
    free(v);
    free(w);
}

static void test_silu_add_argmax(void) {
    static const size_t ns[] = {1, 3, 8, 15, 16, 17, 100, 1001};
    float g[1001], g2[1001], g0[1001], u[1001], y[1001], y0[1001];
    size_t ni, i;
    long bad = 0, badadd = 0, badgelu = 0;
    for (ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        size_t n = ns[ni];
        for (i = 0; i < n; i++) {
            g0[i] = g[i] = g2[i] = frand() * 12.0f;
            u[i] = frand() * 2.0f;
            y0[i] = y[i] = frand();
        }
        if (n > 8) { g0[3] = g[3] = g2[3] = -100.0f; g0[4] = g[4] = g2[4] = 100.0f; g0[5] = g[5] = g2[5] = 0.0f; }
        xlarun_k_silu_mul(g, u, n);
        xlarun_k_silu_mul_ref(g2, u, n);
        for (i = 0; i < n; i++) {
            double want = (double)g0[i] / (1.0 + exp(-(double)g0[i])) * u[i];
            double e1 = fabs(g[i] - want), e2 = fabs(g2[i] - want), tol = 1e-6 * fabs(want) + 1e-36;
            if (e1 / (fabs(want) + 1e-30) > max_silu_err && fabs(want) > 1e-30) max_silu_err = e1 / fabs(want);
            if (e1 > tol || e2 > tol) bad++;
        }
        for (i = 0; i < n; i++) g[i] = g2[i] = g0[i] * 0.5f; /* GELU on half the SiLU inputs: +-6, +-50, 0 */
        xlarun_k_gelu_mul(g, u, n);
        xlarun_k_gelu_mul_ref(g2, u, n);
        for (i = 0; i < n; i++) {
            double x = (double)g0[i] * 0.5, want = 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))) * u[i];
            double e1 = fabs(g[i] - want), e2 = fabs(g2[i] - want), tol = 1e-6 * fabs(want) + ldexp(fabs(x * u[i]), -23) + 1e-36;
            if (e1 / (fabs(want) + 1e-30) > max_gelu_err && fabs(want) > 1e-6) max_gelu_err = e1 / fabs(want);
            if (e1 > tol || e2 > tol) badgelu++;
        }
        xlarun_k_add(y, u, n);
        for (i = 0; i < n; i++)
            if (fbits(y[i]) != fbits(y0[i] + u[i])) badadd++;
    }
    CHECKF(bad == 0, "silu_mul: %ld outside tolerance", bad);
    CHECKF(badgelu == 0, "gelu_mul: %ld outside tolerance", badgelu);
    {   /* torch's formula at the edges, both variants: NaN stays NaN, +inf is +inf, -inf gives NaN
           (-inf * 0), a huge x is x, a huge -x is 0 (either sign); a 17-wide row takes the tail path */
        float in[17], uu[17], a[17], b[17];
        int v;
        for (i = 0; i < 17; i++) { in[i] = (float)i * 0.25f - 2.0f; uu[i] = 1.0f; }
        in[1] = NAN; in[2] = INFINITY; in[3] = -INFINITY; in[4] = 1e30f; in[5] = -1e30f; in[16] = 7e12f;
        memcpy(a, in, sizeof a);
        memcpy(b, in, sizeof b);
        xlarun_k_gelu_mul(a, uu, 17);
        xlarun_k_gelu_mul_ref(b, uu, 17);
        for (v = 0; v < 2; v++) {
            const float *r = v ? b : a;
            CHECKF(isnan(r[1]) && r[2] == INFINITY && isnan(r[3]) && r[4] == 1e30f && r[5] == 0.0f && r[16] == 7e12f,
                   "gelu_mul %s edges: %g %g %g %g %g %g", v ? "ref" : "dispatch", r[1], r[2], r[3], r[4], r[5], r[16]);
        }
    }
    CHECKF(badadd == 0, "add: %ld differ", badadd);

    {
        float a[7] = {1, 5, 2, 5, -1, 5, 0}, b[5] = {-3, -3, -3, -3, -3}, c[4] = {-9, -2, -2.5f, -2};
        float d[3] = {1, NAN, 2}, e[1] = {-1e30f};
        float f[300];
        for (i = 0; i < 300; i++) f[i] = (float)(i % 17) - 100.0f;
        f[250] = f[299] = 1.0f;
        CHECK(xlarun_k_argmax(a, 7) == 1);
        CHECK(xlarun_k_argmax(b, 5) == 0);
        CHECK(xlarun_k_argmax(c, 4) == 1);
        CHECK(xlarun_k_argmax(d, 3) == 1);
        CHECK(xlarun_k_argmax(e, 1) == 0);
        CHECK(xlarun_k_argmax(f, 300) == 250);
        CHECK(xlarun_k_argmax(f, 250) == 16);
    }
}

static void test_bf16_opt_in(void) {
    static const size_t ns[] = {1, 3, 16, 31, 32, 33, 100, 1000};
    uint16_t *w = (uint16_t *)malloc(1001 * 2), *x = (uint16_t *)malloc(1001 * 2), *r1 = (uint16_t *)malloc(1001 * 2);
    float *f = (float *)malloc(1001 * sizeof(float));
    float sp[8] = {1.0f, -0.0f, INFINITY, -INFINITY, FLT_MAX, bitsf(0x3f808000u), bitsf(0x3f818000u), 1e-20f};
    size_t ni, i;
    long badrow = 0, bad = 0;
    for (ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        size_t n = ns[ni], off = ni & 1; /* odd element offset as well */
        double exact = 0, abssum = 0, e;
        float got, ref;
        for (i = 0; i < n; i++) f[i] = frand() * 3.0f;
        if (n >= 8) memcpy(f, sp, sizeof sp);
        xlarun_k_f32_to_bf16_row(f, r1 + off, n);
        for (i = 0; i < n; i++)
            if (r1[off + i] != xlarun_k_f32_to_bf16(f[i])) badrow++;
        for (i = 0; i < n; i++) {
            w[off + i] = xlarun_k_f32_to_bf16(frand());
            x[off + i] = xlarun_k_f32_to_bf16(frand() * 4.0f);
            exact += (double)xlarun_k_bf16_to_f32(w[off + i]) * xlarun_k_bf16_to_f32(x[off + i]);
            abssum += fabs((double)xlarun_k_bf16_to_f32(w[off + i]) * xlarun_k_bf16_to_f32(x[off + i]));
        }
        got = xlarun_k_dot_bf16_bf16(w + off, x + off, n);
        ref = xlarun_k_dot_bf16_bf16_ref(w + off, x + off, n);
        e = fabs(got - exact) / abssum;
        if (e > max_bb_err) max_bb_err = e;
        if (e > dot_tol(n) || fabs(ref - exact) / abssum > dot_tol(n)) bad++;
    }
    {
        float nanv = NAN, sub[17];
        uint16_t o[17];
        xlarun_k_f32_to_bf16_row(&nanv, o, 1);
        CHECK((o[0] & 0x7f80) == 0x7f80 && (o[0] & 0x7f));
        /* subnormal inputs: RNE, or a signed zero where vcvtneps2bf16 flushes them (documented) */
        for (i = 0; i < 17; i++) sub[i] = bitsf((uint32_t)(0x00018000u + 0x3000u * i) | (i & 1 ? 0x80000000u : 0));
        xlarun_k_f32_to_bf16_row(sub, o, 17);
        for (i = 0; i < 17; i++)
            CHECKF(o[i] == xlarun_k_f32_to_bf16(sub[i]) || o[i] == (fbits(sub[i]) >> 16 & 0x8000),
                   "subnormal %08x -> %04x", fbits(sub[i]), o[i]);
    }
    CHECKF(badrow == 0, "f32_to_bf16_row: %ld differ from f32_to_bf16", badrow);
    CHECKF(bad == 0, "dot_bf16_bf16: %ld outside tolerance", bad);
    free(w);
    free(x);
    free(r1);
    free(f);
}

/* The AMX-INT8 GEMM (built where the compiler targets AMX) against the AVX-512 path bit for bit:
   odd row counts and row ranges, token counts around the 16-token tiles, K from under one
   512-element step to several (partial steps and lanes with no block), q8_0 codes of -128,
   zero activation blocks, q4_0. Not built: nothing to check; refused by the OS: said so. */
#if (defined(XLARUN_K_QAMX) || defined(XLARUN_K_BAMX)) && defined(__linux__) && defined(__x86_64__)
static int amx_granted(void) {
    long r;
#if defined(XLARUN_AMX_EMULATED) /* tests/amx_emu.h: the tiles are plain C */
    return 1;
#endif
    __asm__ __volatile__("syscall" : "=a"(r) : "0"(158L), "D"(0x1023L), "S"(18L) : "rcx", "r11", "memory");
    return r == 0;
}
#endif
static void test_qmatmul_amx(void) {
#if defined(XLARUN_K_QAMX) && defined(__linux__) && defined(__x86_64__)
    static const size_t Ks[] = {96, 544, 1120, 2048}, Ns[] = {5, 37, 64}, ns[] = {16, 17, 33, 50};
    size_t ki, ni, ti, q, i, r, bad = 0, checked = 0;
    if (!amx_granted()) {
        printf("kernels: AMX built, but the OS refused the tile state: not checked\n");
        return;
    }
    for (q = 0; q < 2; q++)
        for (ki = 0; ki < sizeof Ks / sizeof *Ks; ki++)
            for (ni = 0; ni < sizeof Ns / sizeof *Ns; ni++) {
                xlarun_k_qtype qt = q ? XLARUN_K_Q4_0 : XLARUN_K_Q8_0;
                size_t K = Ks[ki], N = Ns[ni], rb = xlarun_k_qrow_bytes(qt, K), sb = K / 16, xb = xlarun_k_qact_bytes(K);
                size_t nmax = 50;
                unsigned char *W = (unsigned char *)malloc(N * rb), *S = (unsigned char *)malloc(N * sb);
                unsigned char *X = (unsigned char *)malloc(nmax * xb), *T = (unsigned char *)malloc(xlarun_k_qtiles_bytes(K, nmax));
                float *row = (float *)malloc(K * sizeof(float)), *Ya = (float *)malloc(nmax * N * sizeof(float));
                float *Yv = (float *)malloc(nmax * N * sizeof(float)), *Yp = (float *)malloc(nmax * N * sizeof(float));
                unsigned char *Pm = (unsigned char *)malloc(xlarun_k_qamx_pack_bytes(K, nmax) + 64), *Wk = (unsigned char *)malloc(xlarun_k_qamx_work_bytes(K));
                unsigned char *P = Pm ? (unsigned char *)(((uintptr_t)Pm + 63) & ~(uintptr_t)63) : NULL;
                if (!W || !S || !X || !T || !row || !Ya || !Yv || !Yp || !P || !Wk) { CHECK(0); return; }
                for (r = 0; r < N; r++) {
                    for (i = 0; i < K; i++) row[i] = frand() * (i % 29 == 0 ? 8.0f : 1.0f);
                    CHECK(xlarun_k_quantize_row(qt, row, K, W + r * rb, S + r * sb) == 0);
                }
                if (!q) for (i = 0; i < N * rb; i += 53) W[i] = 0x80; /* -128: legal in a file */
                for (i = 0; i < nmax; i++) {
                    size_t k;
                    for (k = 0; k < K; k++) row[k] = (i % 7 == 3 && k < 64) ? 0.0f : frand() * 4.0f;
                    xlarun_k_quantize_act(row, K, X + i * xb);
                }
                for (ti = 0; ti < sizeof ns / sizeof *ns; ti++) {
                    size_t n = ns[ti], r0 = N > 16 ? 3 : 0, r1 = N > 16 ? N - 1 : N, g = (n + 15) / 16;
                    memset(Ya, 0xAB, nmax * N * sizeof(float));
                    memset(Yv, 0xAB, nmax * N * sizeof(float));
                    memset(Yp, 0xAB, nmax * N * sizeof(float));
                    xlarun_k_qmatmul(qt, W, S, K, r0, r1, X, n, Ya, N, T);
                    xlarun_k_qmatmul(qt, W, S, K, r0, r1, X, n, Yv, N, NULL);
                    /* the packing shared by threads: its groups packed by two calls, last ones first */
                    xlarun_k_qamx_pack(X, K, n, g / 2, g, P);
                    xlarun_k_qamx_pack(X, K, n, 0, g / 2, P);
                    xlarun_k_qmatmul_qamx(qt, W, S, K, r0, r1, P, n, Yp, N, Wk);
                    for (i = 0; i < n; i++)
                        for (r = 0; r < N; r++) {
                            float d = xlarun_k_qdot(qt, W + r * rb, S + r * sb, X + i * xb, K);
                            int in = r >= r0 && r < r1;
                            checked++;
                            if (memcmp(Ya + i * N + r, Yv + i * N + r, 4) || memcmp(Yp + i * N + r, Yv + i * N + r, 4) ||
                                (in && memcmp(Ya + i * N + r, &d, 4))) {
                                if (bad++ < 5)
                                    CHECKF(0, "%s K=%zu N=%zu n=%zu [%zu][%zu]: amx %.9g shared packing %.9g vnni %.9g dot %.9g",
                                           q ? "q4_0" : "q8_0", K, N, n, i, r, (double)Ya[i * N + r], (double)Yp[i * N + r],
                                           (double)Yv[i * N + r], (double)d);
                            }
                        }
                }
                free(W); free(S); free(X); free(T); free(row); free(Ya); free(Yv); free(Yp); free(Pm); free(Wk);
            }
    CHECKF(bad == 0, "AMX (self-packing or on a shared packing) != AVX-512 in %zu of %zu outputs", bad, checked);
    printf("kernels: AMX int8 GEMM, self-packing and on a shared packing, == AVX-512 GEMM == qdot on %zu outputs\n", checked);
#endif
}


/* The AMX-BF16 GEMMs (built where the compiler targets AMX-BF16), in both precisions: bf16
   activations (xlarun_k_matmul_bf16x) and f32 ones as three bf16 parts (xlarun_k_matmul_amx3,
   the exact precision on tiles). Each has its own order and the same bits for any n, r0, r1 (a
   decode step is one token and any row), checked at odd shapes: fewer than 16 rows in the matrix
   (staged A tiles), partial row tiles, K tails, 1..50 tokens (one token group, its B and C tiles
   narrowed to the columns in use, and several), and 300 tokens at K = 2065 (two K blocks: C
   tiles through scratch); W on a line or 2, 40 or 62 bytes past one (shifted windows where K is
   a multiple of 32); agreement with the f64 sum of the same products (subnormal weights read as
   0). amx3 without tiles is exactly xlarun_k_matmul. Then the documented semantics: where each
   32-element step has one nonzero pair, C = C + round(p0 + p1) step by step. */
static void test_bf16x_amx(void) {
#if defined(XLARUN_K_BAMX) && defined(__linux__) && defined(__x86_64__)
    static const size_t Ks[] = {7, 32, 40, 96, 2065}, Ns[] = {5, 37, 70}, ns[] = {1, 3, 5, 16, 17, 33, 50};
    static const char *mode_name[2] = {"bf16 activations", "exact (three parts)"};
    size_t ki, ni, ti, i, r, k, nmax = 300, mode;
    if (!amx_granted()) {
        printf("kernels: AMX-BF16 built, but the OS refused the tile state: not checked\n");
        return;
    }
    for (mode = 0; mode < 2; mode++) {
        size_t bad = 0, checked = 0, tol_bad = 0, nul_bad = 0, pk_bad = 0, pk_checked = 0;
        double worst = 0;
        for (ki = 0; ki < sizeof Ks / sizeof *Ks; ki++)
            for (ni = 0; ni < sizeof Ns / sizeof *Ns; ni++) {
                static const size_t wofs[4] = {0, 1, 20, 31}; /* elements past a 64-byte line */
                size_t K = Ks[ki], N = Ns[ni], ldx = K + 3;
                uint16_t *Wm = (uint16_t *)malloc(N * K * 2 + 128), *Xb = (uint16_t *)malloc(nmax * ldx * 2), *W;
                unsigned char *T = (unsigned char *)malloc(mode ? xlarun_k_etiles_bytes(K, nmax) : xlarun_k_btiles_bytes(K, nmax));
                float *X = (float *)malloc(nmax * ldx * sizeof(float)), *Y = (float *)malloc(nmax * N * sizeof(float));
                float *Y0 = (float *)malloc(nmax * N * sizeof(float)), *yr = (float *)malloc(N * sizeof(float)), one = 0;
                float *Yp = (float *)malloc(nmax * N * sizeof(float));
                size_t pkb = (xlarun_k_bamx_pack_bytes(K, nmax, mode ? 3 : 1) + 63) / 64 * 64;
                unsigned char *Pm = (unsigned char *)malloc(pkb + 64), *P = (unsigned char *)(((uintptr_t)Pm + 63) & ~(uintptr_t)63), *Wk = (unsigned char *)malloc(xlarun_k_bamx_work_bytes(nmax, mode ? 3 : 1));
                if (!Wm || !Xb || !T || !X || !Y || !Y0 || !yr || !Yp || !Pm || !Wk) { CHECK(0); return; }
                W = (uint16_t *)(void *)(((uintptr_t)Wm + 63) & ~(uintptr_t)63) + wofs[(ki + ni + mode) % 4];
                for (i = 0; i < N * K; i++) W[i] = xlarun_k_f32_to_bf16(frand() * (i % 31 == 0 ? 8.0f : 1.0f));
                for (i = 0; i < N * K; i += 97) W[i] = (uint16_t)(0x0040 | (i & 0x8000)); /* subnormal: read as 0 */
                for (i = 0; i < nmax; i++) { /* exact: full f32 mantissas over a wide range of exponents */
                    for (k = 0; k < ldx; k++)
                        X[i * ldx + k] = (i % 7 == 3 && k < 40) ? 0.0f : frand() * (mode ? ldexpf(1.0f, (int)(rnd32() % 16) - 6) : 4.0f);
                    xlarun_k_f32_to_bf16_row(X + i * ldx, Xb + i * ldx, ldx);
                    if (!mode) for (k = 0; k < ldx; k++) X[i * ldx + k] = xlarun_k_bf16_to_f32(Xb[i * ldx + k]);
                }
                for (ti = 0; ti <= sizeof ns / sizeof *ns; ti++) {
                    size_t n = ti < sizeof ns / sizeof *ns ? ns[ti] : nmax, r0 = N > 16 ? 3 : 1, r1 = N > 16 ? N - 2 : N;
                    if (n == nmax && (K != 2065 || N != 37)) continue;
                    memset(Y, 0xAB, nmax * N * sizeof(float));
                    memset(Y0, 0xAB, nmax * N * sizeof(float));
                    if (mode) {
                        xlarun_k_matmul_amx3(W, K, r0, r1, X, ldx, n, Y, N, T);
                        xlarun_k_matmul_amx3(W, K, r0, r1, X, ldx, n, Y0, N, NULL);
                    } else xlarun_k_matmul_bf16x(W, K, r0, r1, Xb, ldx, n, Y, N, T);
                    {   /* packed once by token groups, as threads share it (two halves, the second
                           first), then the GEMM on the packing: the same bits, the same rows */
                        size_t G = mode ? (n + 4) / 5 : (n + 15) / 16;
                        memset(Yp, 0xAB, nmax * N * sizeof(float));
                        memset(P, 0x5A, pkb);
                        xlarun_k_bamx_pack(W, K, mode ? NULL : Xb, mode ? X : NULL, ldx, n, G / 2, G + 3, P);
                        xlarun_k_bamx_pack(W, K, mode ? NULL : Xb, mode ? X : NULL, ldx, n, 0, G / 2, P);
                        xlarun_k_matmul_bamx(W, K, r0, r1, P, mode ? 3 : 1, n, Yp, N, Wk);
                        for (i = 0; i < n * N; i++, pk_checked++)
                            if (fbits(Yp[i]) != fbits(Y[i]) && pk_bad++ < 5)
                                CHECKF(0, "AMX-BF16 %s K=%zu N=%zu n=%zu [%zu][%zu]: packed once %.9g, packing its own %.9g", mode_name[mode],
                                       K, N, n, i / N, i % N, (double)Yp[i], (double)Y[i]);
                    }
                    for (i = 0; i < n; i++)
                        for (r = 0; r < N; r++) {
                            int in = r >= r0 && r < r1;
                            uint32_t want = 0xABABABABu;
                            double ex = 0, ab = 0;
                            if (in) { /* one token, one row: a decode step of one row */
                                if (mode) {
                                    xlarun_k_matmul_amx3(W, K, r, r + 1, X + i * ldx, ldx, 1, yr, N, T);
                                    nul_bad += fbits(xlarun_k_dot(XLARUN_K_BF16, W + r * K, X + i * ldx, K)) != fbits(Y0[i * N + r]);
                                } else xlarun_k_matmul_bf16x(W, K, r, r + 1, Xb + i * ldx, ldx, 1, yr, N, T);
                                one = yr[r];
                                want = fbits(one);
                                for (k = 0; k < K; k++) {
                                    double w = (W[r * K + k] & 0x7f80) ? (double)xlarun_k_bf16_to_f32(W[r * K + k]) : 0.0;
                                    double pr = w * (double)X[i * ldx + k];
                                    ex += pr;
                                    ab += fabs(pr);
                                }
                                /* three parts: three times the steps' roundings */
                                if (fabs((double)Y[i * N + r] - ex) > (double)((mode ? 3 : 1) * K / 32 + 8) * 1.2e-7 * ab + 1e-30) tol_bad++;
                                if (ab > 0 && fabs((double)Y[i * N + r] - ex) / ab > worst) worst = fabs((double)Y[i * N + r] - ex) / ab;
                            } else if (mode) nul_bad += fbits(Y0[i * N + r]) != want;
                            checked++;
                            if (fbits(Y[i * N + r]) != want && bad++ < 5)
                                CHECKF(0, "AMX-BF16 %s K=%zu N=%zu n=%zu [%zu][%zu]: gemm %.9g, one row one token %.9g", mode_name[mode],
                                       K, N, n, i, r, (double)Y[i * N + r], (double)one);
                        }
                }
                free(Wm); free(Xb); free(T); free(X); free(Y); free(Y0); free(yr); free(Yp); free(Pm); free(Wk);
            }
        CHECKF(bad == 0, "AMX-BF16 %s GEMM != its one-row one-token product in %zu of %zu outputs", mode_name[mode], bad, checked);
        CHECKF(pk_bad == 0, "AMX-BF16 %s GEMM on a shared packing != packing its own in %zu of %zu outputs", mode_name[mode], pk_bad, pk_checked);
        CHECKF(tol_bad == 0, "AMX-BF16 %s GEMM outside tolerance of the f64 sum in %zu outputs", mode_name[mode], tol_bad);
        CHECKF(nul_bad == 0, "amx3 without tiles != xlarun_k_matmul (or wrote outside its rows) in %zu outputs", nul_bad);
        printf("kernels: AMX-BF16 %s GEMM == one row one token on %zu outputs, == on a shared packing on %zu; worst error %.2e of sum|products|\n",
               mode_name[mode], checked, pk_checked, worst);
    }
    {   /* the semantics stated in xlarun_kernels.h: one pair a step, sequential, DAZ */
        enum { K = 320, R = 16 };
        uint16_t Wbuf[R * K + 32], X[K];
        uint16_t *W = (uint16_t *)(void *)(((uintptr_t)Wbuf + 63) & ~(uintptr_t)63); /* on a line: unshifted steps */
        unsigned char *T = (unsigned char *)malloc(xlarun_k_btiles_bytes(K, 1));
        float y[R];
        size_t sbad = 0;
        if (!T) { CHECK(0); return; }
        memset(W, 0, sizeof(uint16_t) * R * K);
        for (k = 0; k < K; k++) X[k] = xlarun_k_f32_to_bf16(frand() * 2.0f);
        for (r = 0; r < R; r++)
            for (k = 0; k < K; k += 32) { /* a wide range of exponents, so that roundings happen */
                W[r * K + k] = xlarun_k_f32_to_bf16(frand() * ldexpf(1.0f, (int)(rnd32() % 24) - 12));
                W[r * K + k + 1] = xlarun_k_f32_to_bf16(frand() * ldexpf(1.0f, (int)(rnd32() % 24) - 12));
                if (k == 64) W[r * K + k + 1] = 0x0011; /* subnormal */
            }
        xlarun_k_matmul_bf16x(W, K, 0, R, X, K, 1, y, R, T);
        for (r = 0; r < R; r++) {
            float acc = 0.0f;
            for (k = 0; k < K; k += 32) {
                float w0 = xlarun_k_bf16_to_f32(W[r * K + k]), w1 = (W[r * K + k + 1] & 0x7f80) ? xlarun_k_bf16_to_f32(W[r * K + k + 1]) : 0.0f;
                float p0 = w0 * xlarun_k_bf16_to_f32(X[k]), p1 = w1 * xlarun_k_bf16_to_f32(X[k + 1]), ps;
                XLARUN_K__KEEP(p0);
                XLARUN_K__KEEP(p1);
                ps = p0 + p1;
                XLARUN_K__KEEP(ps);
                acc += ps;
            }
            sbad += fbits(acc) != fbits(y[r]);
        }
        CHECKF(sbad == 0, "AMX-BF16: one pair a step is not C + round(p0 + p1) in %zu of 16 rows", sbad);
        free(T);
    }
#endif
}

int main(int argc, char **argv) {
    static const struct { const char *name; void (*run)(void); } cases[] = {
        {"conversions", test_conversions}, {"to_f32", test_to_f32}, {"dot", test_dot}, {"matmul", test_matmul},
        {"matmul blocked", test_matmul_blocked}, {"rmsnorm", test_rmsnorm}, {"rope", test_rope}, {"softmax", test_softmax},
        {"attend", test_attend}, {"kv store", test_kv_store}, {"exp", test_exp}, {"silu add argmax", test_silu_add_argmax},
        {"bf16 opt-in", test_bf16_opt_in}, {"qmatmul amx", test_qmatmul_amx}, {"bf16x amx", test_bf16x_amx}};
    size_t i;
    test_init(argc, argv);
    for (i = 0; i < sizeof cases / sizeof *cases; i++)
        if (test_case("%s", cases[i].name)) {
            if (!rng_state) printf("kernels: testing ISA %s\n", XLARUN_K_ISA);
            rng_state = RNG_SEED; /* each case's data, whichever cases run */
            cases[i].run();
        }
    if (rng_state)
        printf("kernels: max error / sum|w*x|: dot %.3g (ref %.3g), bf16 dot %.3g; rmsnorm %.3g rel; "
               "softmax %.3g rel; attend %.3g; silu_mul %.3g rel; gelu_mul %.3g rel (|want| > 1e-6); exp %ld ulp\n",
               max_dot_err, max_dot_ref_err, max_bb_err, max_rms_err, max_soft_err, max_att_err, max_silu_err,
               max_gelu_err, max_exp_ulp);
    return test_report("kernels");
}
