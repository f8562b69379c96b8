/* xlarun_kernels.h - the numeric kernels of xlarun, on raw pointers.

   It knows nothing of models: dot products, GEMV/GEMM over f32/f16/bf16 weight rows, RMSNorm,
   RoPE, softmax, one attention head, SiLU*mul and GELU*mul, add, argmax and dtype conversions. xlarun.h
   includes it; it can also be used on its own (every function is static, there is nothing to
   define in one translation unit).

   HOW IT READS
     One section per operation: a comment with its contract, the scalar reference
     `xlarun_k_<op>_ref` (compiled in every build), the SIMD variant `xlarun_k_<op>_simd` (written
     once against the small per-ISA layer below, compiled for the selected ISA only), and the
     dispatcher `xlarun_k_<op>` with the same signature, which calls the best compiled variant.

   FUNCTIONS (each op also has _ref, and _simd in SIMD builds, with the same signature)
     xlarun_k_type_size, xlarun_k_bf16_to_f32, xlarun_k_f32_to_bf16, xlarun_k_f16_to_f32,
     xlarun_k_f32_to_f16                                                  scalar conversions
     xlarun_k_to_f32(t, src, dst, n)                                      a row of weights to f32
     xlarun_k_dot(t, w, x, n)                                             weight row . f32 vector
     xlarun_k_matmul(t, W, K, r0, r1, X, ldx, n, Y, ldy)                  GEMV (n == 1) / GEMM
     xlarun_k_gemv(t, W, K, r0, r1, x, y, streams)                        decode GEMV, runs of rows at once
     xlarun_k_rmsnorm(out, x, w, n, eps)
     xlarun_k_rope(x, n_heads, hd, cos_, sin_)                            HF rotate_half
     xlarun_k_attend(t, q, nq, kt, v, ring, j0, n_keys, hd, scale, cap, scores, lds, out)  a GQA group
     xlarun_k_attend_qk(t, q, nq, kt, ring, j0, ja, jb, hd, scale, scores, lds)   its scores, a key range
     xlarun_k_attend_pv(t, p, nq, lds, v, ring, j0, n_keys, hd, d0, d1, out)      its out, a dimension range
     xlarun_k_softcap(x, n, cap)                                          cap * tanh(x / cap)
     xlarun_k_kv_store(t, src, dst, n, stride)                          f32 into an f32/f16/bf16 cache
     xlarun_k_exp(x, n), xlarun_k_softmax(x, n), xlarun_k_silu_mul(g, u, n), xlarun_k_add(y, x, n)
     xlarun_k_gelu_mul(g, u, n)                                           GELU (tanh form) * mul
     xlarun_k_argmax(x, n)                                                first index of the max
     xlarun_k_f32_to_bf16_row, xlarun_k_dot_bf16_bf16                     opt-in, lower precision
     xlarun_k_matmul_bf16x(W, K, r0, r1, Xb, ldx, n, Y, ldy, tiles), xlarun_k_btiles_bytes(K, n)
                                                  its GEMV/GEMM; tiles: AMX-BF16 scratch or NULL
     xlarun_k_gemv_bf16x(W, K, r0, r1, Xb, y, streams)                   its decode GEMV, runs of rows at once
     xlarun_k_matmul_amx3(W, K, r0, r1, X, ldx, n, Y, ldy, tiles), xlarun_k_etiles_bytes(K, n)
                                                  bf16 weights x f32 activations on AMX-BF16 tiles
                                                  (three bf16 parts); tiles NULL: xlarun_k_matmul
     xlarun_k_bamx_pack(W, K, Xb, X, ldx, n, g0, g1, B), xlarun_k_matmul_bamx(W, K, r0, r1, B, parts,
       n, Y, ldy, work), xlarun_k_bamx_pack_bytes, _work_bytes, _window    the same two with the
                                                  activations packed once, by token groups, for all threads
     xlarun_k_quantize_row, xlarun_k_qdequant, xlarun_k_qact_bytes, xlarun_k_quantize_act,
     xlarun_k_qdot, xlarun_k_qmatmul, xlarun_k_qgemv  q8_0 / q4_0 weights (own section at the end)

   VARIANT SELECTION (compile time only, from predefined macros)
     XLARUN_SIMD_SCALAR defined            -> scalar
     __AVX512F__                           -> "avx512"  ("avx512-bf16" when __AVX512BF16__ too)
     __AVX2__ && __FMA__ && __F16C__       -> "avx2"
     __ARM_NEON && __aarch64__             -> "neon"    (baseline armv8-a is enough)
     otherwise                             -> scalar
     XLARUN_K_ISA is the chosen variant as a string literal.

   DETERMINISM CONTRACT
     Each ISA has one canonical reduction for "weight row . f32 vector" (see xlarun_k_dot). The
     dot, the multi-row GEMV (n == 1) and the register-tiled GEMM (n > 1) all compute every output
     element with exactly that sequence of operations, so in one build
       xlarun_k_matmul(...)[i*ldy + r]  ==  xlarun_k_dot(t, row r, X + i*ldx, K)   (bit for bit)
     whatever n, r0, r1, ldx, ldy are. Results are thus independent of how rows are split across
     threads, and a prefill (n > 1) gives the same bits as decoding the tokens one by one.
     SIMD variants differ from the _ref ones within tolerance only (they use FMA and lanes).

   BUILD REQUIREMENTS
     - Little-endian host (safetensors data is little-endian and is read in place).
     - No -ffast-math / -Ofast: it lets the compiler reassociate the reductions differently in
       different inlined copies, which would break the determinism contract (an #error says so;
       define XLARUN_K_ALLOW_FAST_MATH to override).
     - Any -ffp-contract setting is fine: RoPE, which must round each product as torch does, hides
       its products from the optimiser (XLARUN_K__KEEP), and the SIMD reductions use explicit FMA
       intrinsics, and the _ref sums round each product before adding it. The tests pass under -std=c99, -std=gnu99, C++11 and clang -ffp-contract=fast.
     - Weight pointers may have any alignment; f32 activation pointers must be float-aligned.
*/
#ifndef XLARUN_KERNELS_H
#define XLARUN_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#if defined(__FAST_MATH__) && !defined(XLARUN_K_ALLOW_FAST_MATH)
#error "xlarun_kernels.h: -ffast-math breaks the bit-exact determinism contract (define XLARUN_K_ALLOW_FAST_MATH to accept that)"
#endif

/* ======================================================================================
   Variant selection
   ====================================================================================== */
#if defined(XLARUN_SIMD_SCALAR)
#define XLARUN_K_ISA "scalar"
#elif defined(__AVX512F__)
#define XLARUN_K__AVX512 1
#if defined(__AVX512BF16__)
#define XLARUN_K_ISA "avx512-bf16"
#else
#define XLARUN_K_ISA "avx512"
#endif
#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define XLARUN_K__AVX2 1
#define XLARUN_K_ISA "avx2"
#elif defined(__ARM_NEON) && defined(__aarch64__)
#define XLARUN_K__NEON 1
#define XLARUN_K_ISA "neon"
#else
#define XLARUN_K_ISA "scalar"
#endif
#if defined(XLARUN_K__AVX512) || defined(XLARUN_K__AVX2) || defined(XLARUN_K__NEON)
#define XLARUN_K__SIMD 1
#endif
#if defined(XLARUN_K__AVX512) || defined(XLARUN_K__AVX2)
#include <immintrin.h>
#elif defined(XLARUN_K__NEON)
#include <arm_neon.h>
#endif

/* Every function is static; "unused" keeps -Wunused-function quiet in units that call only some.
   XLARUN_K__AI is for the small helpers that must inline so dtype switches fold away. */
#if defined(__GNUC__) || defined(__clang__)
#define XLARUN_K__FN static __attribute__((unused))
#define XLARUN_K__AI static inline __attribute__((always_inline, unused))
#elif defined(_MSC_VER)
#define XLARUN_K__FN static
#define XLARUN_K__AI static __forceinline
#else
#define XLARUN_K__FN static
#define XLARUN_K__AI static inline
#endif

/* GCC 12's x86 intrinsic headers trip -Wmaybe-uninitialized in C++ (GCC bug 105593); the
   suppression covers this header's functions, popped at the end. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__cplusplus)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

/* XLARUN_K__KEEP(v): an empty asm that makes v opaque, so the compiler cannot fuse the product
   that produced v into a following add (FMA contraction). GCC contracts by default in C++ and in
   GNU C modes; RoPE must round each product as torch does. */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__SSE2__))
#define XLARUN_K__KEEP(v) __asm__("" : "+x"(v))
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
#define XLARUN_K__KEEP(v) __asm__("" : "+w"(v))
#elif defined(__GNUC__) || defined(__clang__)
#define XLARUN_K__KEEP(v) __asm__("" : "+m"(v))
#else
#define XLARUN_K__KEEP(v) ((void)0)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================
   dtypes and scalar conversions
   ====================================================================================== */
typedef enum xlarun_k_type { XLARUN_K_F32 = 0, XLARUN_K_F16 = 1, XLARUN_K_BF16 = 2 } xlarun_k_type;

/* bytes per element: 4, 2, 2 */
XLARUN_K__AI size_t xlarun_k_type_size(xlarun_k_type t) { return t == XLARUN_K_F32 ? 4u : 2u; }

XLARUN_K__AI float xlarun_k__bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
XLARUN_K__AI uint32_t xlarun_k__f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* unaligned loads from weight memory */
XLARUN_K__AI float xlarun_k__ldf(const unsigned char *p) { float f; memcpy(&f, p, 4); return f; }
XLARUN_K__AI uint16_t xlarun_k__ldh(const unsigned char *p) { uint16_t h; memcpy(&h, p, 2); return h; }

/* bf16 is the top half of an f32: exact */
XLARUN_K__AI float xlarun_k_bf16_to_f32(uint16_t h) { return xlarun_k__bits_f32((uint32_t)h << 16); }

/* round to nearest even; NaN stays NaN (quieted, sign and top payload kept); overflow -> inf */
XLARUN_K__AI uint16_t xlarun_k_f32_to_bf16(float f) {
    uint32_t u = xlarun_k__f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* exact IEEE binary16 -> f32, subnormals, inf and NaN (payload kept) included; integer code only */
XLARUN_K__FN float xlarun_k_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return xlarun_k__bits_f32(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return xlarun_k__bits_f32(sign);
        uint32_t s = 0; /* normalise the subnormal m * 2^-24 = 1.f * 2^(-14 - s) */
        while (!(m & 0x400u)) { m <<= 1; s++; }
        m &= 0x3ffu;
        return xlarun_k__bits_f32(sign | ((113u - s) << 23) | (m << 13));
    }
    return xlarun_k__bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/* f32 -> binary16, round to nearest even, overflow -> inf, NaN -> quiet NaN (for tests/tools) */
XLARUN_K__FN uint16_t xlarun_k_f32_to_f16(float f) {
    uint32_t u = xlarun_k__f32_bits(f), sign = (u >> 16) & 0x8000u, r, rem, half;
    u &= 0x7fffffffu;
    if (u > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
    if (u >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to inf */
    if (u < 0x38800000u) {                                    /* below 2^-14: subnormal or zero */
        uint32_t e = u >> 23, mant = (u & 0x7fffffu) | 0x800000u, shift;
        if (u <= 0x33000000u) return (uint16_t)sign; /* <= 2^-25 rounds to zero (tie -> even) */
        shift = 126u - e;                            /* value * 2^24 = mant >> shift, 14..24 */
        r = mant >> shift;
        rem = mant & ((1u << shift) - 1u);
        half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    }
    r = (u - 0x38000000u) >> 13; /* rebias 127 -> 15 */
    rem = u & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) r++;
    return (uint16_t)(sign | r);
}

/* one weight element as f32 */
XLARUN_K__AI float xlarun_k__wval(xlarun_k_type t, const unsigned char *p) {
    if (t == XLARUN_K_BF16) return xlarun_k_bf16_to_f32(xlarun_k__ldh(p));
    if (t == XLARUN_K_F16) return xlarun_k_f16_to_f32(xlarun_k__ldh(p));
    return xlarun_k__ldf(p);
}

/* ======================================================================================
   The per-ISA layer: everything below the SIMD sections is written against these.
     xlarun_k__v  one vector of XK_VL f32 lanes
     XK_LOAD/XK_STORE (unaligned f32), XK_SET1, XK_ZERO, XK_ADD/SUB/MUL/DIV/MIN/MAX,
     XK_FMA(a,b,c) = a*b+c fused, XK_ROUND (to nearest even),
     xlarun_k__load_bf16 / _f16 (XK_VL elements at any alignment, widened to f32),
     xlarun_k__pow2i (2^n for integral n in [-126,127]), xlarun_k__hsum (fixed-order lane sum).
     XK_NT is the number of tokens in a GEMM register tile (4 rows x XK_NT tokens).
   ====================================================================================== */
#if defined(XLARUN_K__AVX512) || defined(XLARUN_K__AVX2)
XLARUN_K__AI float xlarun_k__hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
#endif

#if defined(XLARUN_K__AVX512)
typedef __m512 xlarun_k__v;
#define XK_VL 16
#define XK_NT 4
#define XK_GEMV_ROWS 1 /* decode: one row at a time, see xlarun_k__gemv1 */
#define XK_ZERO() _mm512_setzero_ps()
#define XK_SET1(a) _mm512_set1_ps(a)
#define XK_LOAD(p) _mm512_loadu_ps(p)
#define XK_STORE(p, v) _mm512_storeu_ps(p, v)
#define XK_ADD(a, b) _mm512_add_ps(a, b)
#define XK_SUB(a, b) _mm512_sub_ps(a, b)
#define XK_MUL(a, b) _mm512_mul_ps(a, b)
#define XK_DIV(a, b) _mm512_div_ps(a, b)
#define XK_MIN(a, b) _mm512_min_ps(a, b) /* x86: returns b when either is NaN */
#define XK_MAX(a, b) _mm512_max_ps(a, b)
#define XK_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define XK_ROUND(a) _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
XLARUN_K__AI xlarun_k__v xlarun_k__load_bf16(const unsigned char *p) {
    __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)p);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
XLARUN_K__AI xlarun_k__v xlarun_k__load_f16(const unsigned char *p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)p));
}
XLARUN_K__AI xlarun_k__v xlarun_k__pow2i(xlarun_k__v n) {
    __m512i i = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(i, 23));
}
XLARUN_K__AI float xlarun_k__hsum(xlarun_k__v v) {
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    return xlarun_k__hsum8(_mm256_add_ps(_mm512_castps512_ps256(v), hi));
}

#elif defined(XLARUN_K__AVX2)
typedef __m256 xlarun_k__v;
#define XK_VL 8
#define XK_NT 3 /* 16 registers: 12 accumulators + weight + activation */
#define XK_GEMV_ROWS 4 /* decode: four rows at once, see xlarun_k__gemv4 */
#define XK_ZERO() _mm256_setzero_ps()
#define XK_SET1(a) _mm256_set1_ps(a)
#define XK_LOAD(p) _mm256_loadu_ps(p)
#define XK_STORE(p, v) _mm256_storeu_ps(p, v)
#define XK_ADD(a, b) _mm256_add_ps(a, b)
#define XK_SUB(a, b) _mm256_sub_ps(a, b)
#define XK_MUL(a, b) _mm256_mul_ps(a, b)
#define XK_DIV(a, b) _mm256_div_ps(a, b)
#define XK_MIN(a, b) _mm256_min_ps(a, b) /* x86: returns b when either is NaN */
#define XK_MAX(a, b) _mm256_max_ps(a, b)
#define XK_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define XK_ROUND(a) _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
XLARUN_K__AI xlarun_k__v xlarun_k__load_bf16(const unsigned char *p) {
    __m128i h = _mm_loadu_si128((const __m128i *)(const void *)p);
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
XLARUN_K__AI xlarun_k__v xlarun_k__load_f16(const unsigned char *p) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
}
XLARUN_K__AI xlarun_k__v xlarun_k__pow2i(xlarun_k__v n) {
    __m256i i = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(i, 23));
}
XLARUN_K__AI float xlarun_k__hsum(xlarun_k__v v) { return xlarun_k__hsum8(v); }

#elif defined(XLARUN_K__NEON)
typedef float32x4_t xlarun_k__v;
#define XK_VL 4
#define XK_NT 4
#define XK_GEMV_ROWS 4
#define XK_ZERO() vdupq_n_f32(0.0f)
#define XK_SET1(a) vdupq_n_f32(a)
#define XK_LOAD(p) vld1q_f32(p)
#define XK_STORE(p, v) vst1q_f32(p, v)
#define XK_ADD(a, b) vaddq_f32(a, b)
#define XK_SUB(a, b) vsubq_f32(a, b)
#define XK_MUL(a, b) vmulq_f32(a, b)
#define XK_DIV(a, b) vdivq_f32(a, b)
#define XK_MIN(a, b) vminq_f32(a, b) /* NEON: NaN in, NaN out */
#define XK_MAX(a, b) vmaxq_f32(a, b)
#define XK_FMA(a, b, c) vfmaq_f32(c, a, b)
#define XK_ROUND(a) vrndnq_f32(a)
XLARUN_K__AI xlarun_k__v xlarun_k__load_bf16(const unsigned char *p) {
    return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16((const uint16_t *)(const void *)p), 16));
}
XLARUN_K__AI xlarun_k__v xlarun_k__load_f16(const unsigned char *p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)(const void *)p)));
}
XLARUN_K__AI xlarun_k__v xlarun_k__pow2i(xlarun_k__v n) {
    int32x4_t i = vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127));
    return vreinterpretq_f32_s32(vshlq_n_s32(i, 23));
}
XLARUN_K__AI float xlarun_k__hsum(xlarun_k__v v) { return vaddvq_f32(v); }
#endif

#if defined(XLARUN_K__SIMD)
/* XK_VL weight elements at p, widened to f32; t is a constant wherever this is inlined */
XLARUN_K__AI xlarun_k__v xlarun_k__wload(xlarun_k_type t, const unsigned char *p) {
    if (t == XLARUN_K_BF16) return xlarun_k__load_bf16(p);
    if (t == XLARUN_K_F16) return xlarun_k__load_f16(p);
    return XK_LOAD((const float *)(const void *)p);
}

/* e^x for each lane. Cephes-style: x = n*ln2 + r with |r| <= ln2/2 (ln2 split in two for
   exactness), degree-6 polynomial for e^r, then scaled by 2^n as two exact-range factors so the
   subnormal results round once. Clamped to [-104, 88.8]: below gives 0, above gives inf;
   NaN propagates. Max error measured by tests/test_kernels.c (about 1 ulp vs libm expf). */
XLARUN_K__AI xlarun_k__v xlarun_k__expv(xlarun_k__v x) {
    xlarun_k__v n, n1, r, z, p;
    x = XK_MIN(XK_SET1(88.8f), XK_MAX(XK_SET1(-104.0f), x)); /* operand order keeps NaN on x86 */
    n = XK_ROUND(XK_MUL(x, XK_SET1(1.44269504088896341f)));
    r = XK_FMA(n, XK_SET1(-0.693359375f), x);
    r = XK_FMA(n, XK_SET1(2.12194440e-4f), r);
    z = XK_MUL(r, r);
    p = XK_SET1(1.9875691500e-4f);
    p = XK_FMA(p, r, XK_SET1(1.3981999507e-3f));
    p = XK_FMA(p, r, XK_SET1(8.3334519073e-3f));
    p = XK_FMA(p, r, XK_SET1(4.1665795894e-2f));
    p = XK_FMA(p, r, XK_SET1(1.6666665459e-1f));
    p = XK_FMA(p, r, XK_SET1(5.0000001201e-1f));
    p = XK_ADD(XK_FMA(p, z, r), XK_SET1(1.0f));
    n1 = XK_ROUND(XK_MUL(n, XK_SET1(0.5f)));
    return XK_MUL(XK_MUL(p, xlarun_k__pow2i(n1)), xlarun_k__pow2i(XK_SUB(n, n1)));
}

/* a partial vector: the first m (< XK_VL) floats of src, the other lanes set to fill */
XLARUN_K__AI xlarun_k__v xlarun_k__load_part(const float *src, size_t m, float fill) {
    float buf[XK_VL];
    size_t i;
    for (i = 0; i < XK_VL; i++) buf[i] = i < m ? src[i] : fill;
    return XK_LOAD(buf);
}
/* the first m (< XK_VL) elements of dtype t at p, widened; the other lanes 0 */
XLARUN_K__AI xlarun_k__v xlarun_k__wload_part(xlarun_k_type t, const unsigned char *p, size_t m) {
    float buf[XK_VL];
    size_t i, es = xlarun_k_type_size(t);
    for (i = 0; i < XK_VL; i++) buf[i] = i < m ? xlarun_k__wval(t, p + i * es) : 0.0f;
    return XK_LOAD(buf);
}
XLARUN_K__AI void xlarun_k__store_part(float *dst, xlarun_k__v v, size_t m) {
    float buf[XK_VL];
    XK_STORE(buf, v);
    memcpy(dst, buf, m * sizeof(float));
}
#endif

/* ======================================================================================
   to_f32: dst[i] = src[i] as f32 (exact for every dtype); src may have any alignment
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_to_f32_ref(xlarun_k_type t, const void *src, float *dst, size_t n) {
    const unsigned char *p = (const unsigned char *)src;
    size_t i, es = xlarun_k_type_size(t);
    for (i = 0; i < n; i++) dst[i] = xlarun_k__wval(t, p + i * es);
}

#if defined(XLARUN_K__SIMD)
XLARUN_K__AI void xlarun_k__to_f32_t(xlarun_k_type t, const unsigned char *p, float *dst, size_t n) {
    size_t i, es = xlarun_k_type_size(t);
    for (i = 0; i + XK_VL <= n; i += XK_VL) XK_STORE(dst + i, xlarun_k__wload(t, p + i * es));
    for (; i < n; i++) dst[i] = xlarun_k__wval(t, p + i * es);
}
XLARUN_K__FN void xlarun_k_to_f32_simd(xlarun_k_type t, const void *src, float *dst, size_t n) {
    const unsigned char *p = (const unsigned char *)src;
    if (t == XLARUN_K_BF16) xlarun_k__to_f32_t(XLARUN_K_BF16, p, dst, n);
    else if (t == XLARUN_K_F16) xlarun_k__to_f32_t(XLARUN_K_F16, p, dst, n);
    else if (n) memcpy(dst, p, n * sizeof(float));
}
#endif

XLARUN_K__FN void xlarun_k_to_f32(xlarun_k_type t, const void *src, float *dst, size_t n) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_to_f32_simd(t, src, dst, n);
#else
    xlarun_k_to_f32_ref(t, src, dst, n);
#endif
}

/* ======================================================================================
   dot: sum over k < n of w[k] * x[k]; w is one weight row of dtype t at any alignment.

   Reference: one f32 accumulator, k = 0, 1, 2, ... (product rounded, then added).
   The canonical SIMD reduction (used by dot, GEMV and GEMM alike, per output element):
     acc = 0 (one XK_VL-lane vector: 16 lanes AVX-512, 8 AVX2, 4 NEON)
     for each full block of XK_VL elements, in order:  acc = fma(w[block], x[block], acc)
     if n is not a multiple of XK_VL: the tail of w and x copied into zero-filled blocks,
                                       then one more acc = fma(w, x, acc)
     result = xlarun_k__hsum(acc), a fixed lane tree (AVX-512: 8+8, then 4+4, 2+2, 1+1).
   ====================================================================================== */
XLARUN_K__FN float xlarun_k_dot_ref(xlarun_k_type t, const void *w, const float *x, size_t n) {
    const unsigned char *p = (const unsigned char *)w;
    float s = 0.0f;
    size_t k;
    /* XLARUN_K__KEEP: the product is rounded before the add whatever -ffp-contract says */
    if (t == XLARUN_K_BF16)
        for (k = 0; k < n; k++) {
            float pr = xlarun_k_bf16_to_f32(xlarun_k__ldh(p + 2 * k)) * x[k];
            XLARUN_K__KEEP(pr);
            s += pr;
        }
    else if (t == XLARUN_K_F16)
        for (k = 0; k < n; k++) {
            float pr = xlarun_k_f16_to_f32(xlarun_k__ldh(p + 2 * k)) * x[k];
            XLARUN_K__KEEP(pr);
            s += pr;
        }
    else
        for (k = 0; k < n; k++) {
            float pr = xlarun_k__ldf(p + 4 * k) * x[k];
            XLARUN_K__KEEP(pr);
            s += pr;
        }
    return s;
}

#if defined(XLARUN_K__SIMD)
/* the zero-filled tail blocks of the canonical reduction: m = remaining elements (< XK_VL) */
XLARUN_K__AI void xlarun_k__pad_w(unsigned char *dst, const unsigned char *w, size_t bytes) {
    memset(dst, 0, XK_VL * 4);
    memcpy(dst, w, bytes);
}
XLARUN_K__AI void xlarun_k__pad_x(float *dst, const float *x, size_t m) {
    memset(dst, 0, XK_VL * sizeof(float));
    memcpy(dst, x, m * sizeof(float));
}

/* Prefetches never fault; the address is formed as an integer. _L2: into L2 only (locality 2,
   prefetcht1), for the GEMVs' runs (XLARUN_K__RUN_PREFETCH). */
#if defined(__GNUC__)
#define XLARUN_K__PREFETCH(base, off) __builtin_prefetch((const void *)((uintptr_t)(base) + (off)))
#define XLARUN_K__PREFETCH_L2(base, off) __builtin_prefetch((const void *)((uintptr_t)(base) + (off)), 0, 2)
#else
#define XLARUN_K__PREFETCH(base, off) ((void)0)
#define XLARUN_K__PREFETCH_L2(base, off) ((void)0)
#endif
/* before a loop over the runs of a GEMV (at most XLARUN_K_MAX_STREAMS): unrolled, so that GCC
   keeps one accumulator per run in a register (rolled, GCC 12 -O2 kept four or eight on the
   stack, a store and a load in every step's chain) */
#if defined(__GNUC__) || defined(__clang__)
#define XLARUN_K__EACH_RUN(s, S) _Pragma("GCC unroll 8") for (s = 0; s < S; s++)
#else
#define XLARUN_K__EACH_RUN(s, S) for (s = 0; s < S; s++)
#endif

/* one row . one vector; ahead > 0: each step that starts a cache line also prefetches the line
   `ahead` bytes on (the decode GEMV, xlarun_k__gemv1). ahead == 0 compiles to the plain loop. */
XLARUN_K__AI float xlarun_k__dot1p(xlarun_k_type t, const unsigned char *w, const float *x, size_t K,
                                   size_t ahead) {
    size_t es = xlarun_k_type_size(t), k;
    xlarun_k__v a = XK_ZERO();
    for (k = 0; k + XK_VL <= K; k += XK_VL) {
        if (ahead && ((k * es) & 63) == 0) XLARUN_K__PREFETCH(w, ahead + k * es);
        a = XK_FMA(xlarun_k__wload(t, w + k * es), XK_LOAD(x + k), a);
    }
    if (k < K) {
        unsigned char wp[XK_VL * 4];
        float xp[XK_VL];
        xlarun_k__pad_w(wp, w + k * es, (K - k) * es);
        xlarun_k__pad_x(xp, x + k, K - k);
        a = XK_FMA(xlarun_k__wload(t, wp), XK_LOAD(xp), a);
    }
    return xlarun_k__hsum(a);
}
XLARUN_K__AI float xlarun_k__dot1(xlarun_k_type t, const unsigned char *w, const float *x, size_t K) {
    return xlarun_k__dot1p(t, w, x, K, 0);
}

XLARUN_K__FN float xlarun_k_dot_simd(xlarun_k_type t, const void *w, const float *x, size_t n) {
    const unsigned char *p = (const unsigned char *)w;
    if (t == XLARUN_K_BF16) return xlarun_k__dot1(XLARUN_K_BF16, p, x, n);
    if (t == XLARUN_K_F16) return xlarun_k__dot1(XLARUN_K_F16, p, x, n);
    return xlarun_k__dot1(XLARUN_K_F32, p, x, n);
}
#endif

XLARUN_K__FN float xlarun_k_dot(xlarun_k_type t, const void *w, const float *x, size_t n) {
#if defined(XLARUN_K__SIMD)
    return xlarun_k_dot_simd(t, w, x, n);
#else
    return xlarun_k_dot_ref(t, w, x, n);
#endif
}

/* ======================================================================================
   matmul: Y[i*ldy + r] = dot(W row r, X + i*ldx, K) for r in [r0, r1), i in [0, n).
   W rows have K elements of dtype t; row r starts at (char *)W + r*K*type_size (any alignment).
   Only those Y elements are written. Each element is bit-identical to xlarun_k_dot of the same
   build (see the canonical reduction above), however the caller splits rows or tokens.
     n == 1: GEMV, 4 rows at a time (4 independent accumulators, 4 weight streams in flight).
     n  > 1: GEMM, register tiles of 4 rows x XK_NT tokens; edge tiles repeat the last valid
             row/token pointer and drop the duplicate results.
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_matmul_ref(xlarun_k_type t, const void *W, size_t K, size_t r0, size_t r1,
                                      const float *X, size_t ldx, size_t n, float *Y, size_t ldy) {
    const unsigned char *Wb = (const unsigned char *)W;
    size_t rs = K * xlarun_k_type_size(t), i, r;
    for (i = 0; i < n; i++)
        for (r = r0; r < r1; r++) Y[i * ldy + r] = xlarun_k_dot_ref(t, Wb + r * rs, X + i * ldx, K);
}

#if defined(XLARUN_K__SIMD)
/* Decode, one row at a time (XK_GEMV_ROWS 1): the weights stream through memory in file order,
   and each step that starts a cache line prefetches the same line 8 rows on. On AVX-512 one
   row's FMA chain moves 64 B (f32) or 32 B (bf16) per FMA latency, which is faster than one
   core's share of memory, and the single sequential stream keeps the prefetchers on it: about
   30% more bandwidth than four rows at once (measured on Zen 5). The reduction is dot1's. */
XLARUN_K__AI float xlarun_k__gemv1(xlarun_k_type t, const unsigned char *w, const float *x, size_t K) {
    return xlarun_k__dot1p(t, w, x, K, 8 * K * xlarun_k_type_size(t));
}

/* Decode, four rows at once (XK_GEMV_ROWS 4: AVX2 and NEON, whose narrower FMA chain alone
   would not keep up): four independent accumulators, four weight streams in flight; each step
   that starts a cache line also prefetches the same line of the group two groups on (8 rows). */
XLARUN_K__AI void xlarun_k__gemv4(xlarun_k_type t, const unsigned char *w0, const unsigned char *w1,
                                  const unsigned char *w2, const unsigned char *w3, const float *x,
                                  size_t K, float *out) {
    size_t es = xlarun_k_type_size(t), k, ahead = 8 * K * es;
    xlarun_k__v a0 = XK_ZERO(), a1 = XK_ZERO(), a2 = XK_ZERO(), a3 = XK_ZERO(), xv;
    for (k = 0; k + XK_VL <= K; k += XK_VL) {
        xv = XK_LOAD(x + k);
        if (((k * es) & 63) == 0) {
            XLARUN_K__PREFETCH(w0, ahead + k * es);
            XLARUN_K__PREFETCH(w1, ahead + k * es);
            XLARUN_K__PREFETCH(w2, ahead + k * es);
            XLARUN_K__PREFETCH(w3, ahead + k * es);
        }
        a0 = XK_FMA(xlarun_k__wload(t, w0 + k * es), xv, a0);
        a1 = XK_FMA(xlarun_k__wload(t, w1 + k * es), xv, a1);
        a2 = XK_FMA(xlarun_k__wload(t, w2 + k * es), xv, a2);
        a3 = XK_FMA(xlarun_k__wload(t, w3 + k * es), xv, a3);
    }
    if (k < K) {
        unsigned char wp[4][XK_VL * 4];
        float xp[XK_VL];
        size_t b = (K - k) * es;
        xlarun_k__pad_w(wp[0], w0 + k * es, b);
        xlarun_k__pad_w(wp[1], w1 + k * es, b);
        xlarun_k__pad_w(wp[2], w2 + k * es, b);
        xlarun_k__pad_w(wp[3], w3 + k * es, b);
        xlarun_k__pad_x(xp, x + k, K - k);
        xv = XK_LOAD(xp);
        a0 = XK_FMA(xlarun_k__wload(t, wp[0]), xv, a0);
        a1 = XK_FMA(xlarun_k__wload(t, wp[1]), xv, a1);
        a2 = XK_FMA(xlarun_k__wload(t, wp[2]), xv, a2);
        a3 = XK_FMA(xlarun_k__wload(t, wp[3]), xv, a3);
    }
    out[0] = xlarun_k__hsum(a0);
    out[1] = xlarun_k__hsum(a1);
    out[2] = xlarun_k__hsum(a2);
    out[3] = xlarun_k__hsum(a3);
}

/* GEMM cache blocking, shared by every GEMM below (no bit depends on it): a block of rows whose
   weights stay in L2 (XLARUN_K__ROW_BLOCK bytes) crossed with a group of tokens whose
   activations stay in L1 (XLARUN_K__TOKEN_GROUP bytes, at least one tile), so the register tile
   streams its weights from L2 and its activations from L1. Against no blocking, on Zen 5 in a
   single-thread GEMM of 64 tokens: bf16 weights +12-27%, q8_0 +14% where K = 2048 (256 KB /
   16 KB measured best of 5 pairs).
   Where one tile's activations are more than tile_x bytes (XLARUN_K__TILE_X: f32 activations
   past K = 2048, as Llama 3.2 3B's 3072 and the 8192 of down projections), K is cut into chunks
   of kc_ elements, a multiple of kstep (the step of the canonical reduction), and the block's row
   quads go over one chunk of the tile's activations while it is in L1; the row block is then
   XLARUN_K__CHUNK_ROWS bytes (the whole rows stay in L2 for the next token tile) and at most
   XLARUN_K__MAX_QUADS quads. Between chunks a quad's 16 accumulator vectors wait in acc_ (its
   slice of a stack buffer): every output is the same chain of FMAs in the same order, so no bit
   changes. Single thread on Zen 5, 2048 rows x 256 tokens, alternating builds, fraction of the
   f32 FMA peak: bf16 K = 3072 0.74 -> 0.79, K = 4096 0.73 -> 0.81, K = 8192 0.75 -> 0.77
   (with 256 KB blocks: 0.72); whole Llama-3.2-3B-shaped prefill, 2 threads, +6% (61.0-61.6 ->
   61.6-65.6 tok/s). The bf16-activation and quantized GEMMs pass XLARUN_K__NO_CHUNKS: with
   chunks, q8_0 went 1.02 -> 0.94 of the peak at K = 8192, and the bf16-activation 3B prefill
   fell from 100-110 to 84-99 tok/s although its single-thread GEMM gained; their bodies always
   see one chunk (k0_ = 0, kn_ = K, both modes) and ignore acc_.
   The body runs once per tile and chunk: rr[4] are its rows and ii[NT] its tokens (an edge tile
   repeats the last valid one), k0_ and kn_ the chunk's first element and length, acc_ the
   quad's saved accumulators and mode_ XLARUN_K__FIRST (start from zero, else from acc_) and/or
   XLARUN_K__LAST (reduce into o, else save to acc_). After the last chunk the body has left the
   results token-major, in o[token * 4 + row]; the valid ones are stored to Y here. r, i, q and
   j are the caller's variables.
   Where pw is not null (the address of row 0), the next row block's lines (for q8_0 its codes,
   not the scales) are prefetched while this one is computed, the same number before each tile
   (at least one) so they end with the block or before. A block's first pass over its weights
   otherwise waits on memory: each 4 KB row is a new stream the hardware prefetcher has to find,
   and with few tokens there are few passes to hide it behind.
   On Zen 5, 2 threads, a 2048 x 2048 bf16 GEMM cycling through 1 GiB of such matrices (best of 5,
   3 alternations): 4 tokens 95-128 -> 134-139 GFLOP/s, 16 tokens 264-276 -> 316-328, 64 tokens
   360-369 -> 388-394, 256 tokens 386-397 -> 391-399; K = 8192, 16 tokens 249 -> 296. Whole
   Llama-3.2-1B-shaped bf16 prefill, 3 alternating rounds: 16-token prompts 101-111 -> 136-140
   tok/s, 64 tokens 174-177 -> 184-187, 256 tokens unchanged. The faster GEMMs gain only where a
   block has few tokens to pass over it, and lose a little above: whole 1B prefill, medians of 6
   to 8 ABBA pairs, q8_0 +10% at 16 tokens, +5% at 32, -1.5% at 64, -2% at 256; bf16
   activations +12% at 16, -2% at 64, -1% at 256; q4_0 level at 16 and -5% at 256. So q8_0 and
   the bf16-activation GEMM prefetch up to XLARUN_K__PF_TOKENS tokens, q4_0 never. */
#define XLARUN_K__PF_TOKENS 32
#define XLARUN_K__ROW_BLOCK (256 * 1024)
#define XLARUN_K__TOKEN_GROUP (16 * 1024)
#define XLARUN_K__TILE_X (32 * 1024)
#define XLARUN_K__NO_CHUNKS ((size_t)-1)
#define XLARUN_K__MAX_QUADS 8
#define XLARUN_K__CHUNK_ROWS (512 * 1024)
#define XLARUN_K__FIRST 1
#define XLARUN_K__LAST 2
#define XLARUN_K__BLOCKED(nrows, row_bytes, n, token_bytes, NT, K, kstep, tile_x, Y, ldy, o, pw, ...) \
    do {                                                                                       \
        size_t rbk_ = XLARUN_K__ROW_BLOCK / ((row_bytes) + 1) / 4 * 4, rb0_, ig_, k0_, kn_;      \
        size_t tg_ = XLARUN_K__TOKEN_GROUP / ((token_bytes) + 1) / (NT) * (NT), kc_ = (K);      \
        float accb_[XLARUN_K__MAX_QUADS * 16 * 16], *acc_;                                     \
        uintptr_t pf_, pfe_;                                                                   \
        size_t pfn_, pfc_, calls_;                                                             \
        int mode_;                                                                             \
        if ((NT) * (token_bytes) > (tile_x)) {                                                 \
            size_t bpe_ = (K) ? (token_bytes) / (K) : 1;                                       \
            kc_ = (tile_x) / ((NT) * (bpe_ ? bpe_ : 1)) / (kstep) * (kstep);                   \
            if (kc_ < (kstep)) kc_ = (kstep);                                                  \
            if (kc_ < (K)) {                                                                   \
                tg_ = (NT);                                                                    \
                rbk_ = XLARUN_K__CHUNK_ROWS / ((row_bytes) + 1) / 4 * 4;                       \
                if (rbk_ > 4 * XLARUN_K__MAX_QUADS) rbk_ = 4 * XLARUN_K__MAX_QUADS;            \
            }                                                                                  \
        }                                                                                      \
        if (rbk_ < 4) rbk_ = 4;                                                                \
        if (tg_ < (NT)) tg_ = (NT);                                                            \
        /* tile bodies per full row block: its quads x the token tiles x the K chunks */       \
        calls_ = (rbk_ / 4) * (((n) + (NT) - 1) / (NT)) * (kc_ < (K) ? ((K) + kc_ - 1) / kc_ : 1); \
        for (rb0_ = 0; rb0_ < (nrows); rb0_ += rbk_) {                                         \
            size_t nb0_ = rb0_ + rbk_ < (nrows) ? rb0_ + rbk_ : (nrows);                       \
            size_t nb1_ = nb0_ + rbk_ < (nrows) ? nb0_ + rbk_ : (nrows);                       \
            pf_ = ((uintptr_t)(pw) + nb0_ * (row_bytes)) & ~(uintptr_t)63;                      \
            pfe_ = (uintptr_t)(pw) + nb1_ * (row_bytes);                                       \
            pfn_ = (pw) && calls_ && nb1_ > nb0_ ? ((pfe_ - pf_ + 63) / 64 + calls_ - 1) / calls_ : 0; \
            for (ig_ = 0; ig_ < (n); ig_ += tg_)                                               \
                for (k0_ = 0;; k0_ += kn_) {                                                   \
                    kn_ = (K) - k0_ < kc_ ? (K) - k0_ : kc_;                                   \
                    mode_ = (k0_ == 0 ? XLARUN_K__FIRST : 0) | (k0_ + kn_ >= (K) ? XLARUN_K__LAST : 0); \
                    for (r = rb0_; r < (nrows) && r < rb0_ + rbk_; r += 4) {                   \
                        size_t nr = (nrows) - r < 4 ? (nrows) - r : 4, rr[4];                  \
                        acc_ = accb_ + (r - rb0_) / 4 % XLARUN_K__MAX_QUADS * 256;              \
                        (void)acc_;                                                            \
                        for (q = 0; q < 4; q++) rr[q] = r + (q < nr ? q : nr - 1);             \
                        for (i = ig_; i < (n) && i < ig_ + tg_; i += (NT)) {                   \
                            size_t nt = (n) - i < (NT) ? (n) - i : (NT), ii[NT];               \
                            for (j = 0; j < (NT); j++) ii[j] = i + (j < nt ? j : nt - 1);      \
                            for (pfc_ = 0; pfc_ < pfn_ && pf_ < pfe_; pfc_++, pf_ += 64)       \
                                XLARUN_K__PREFETCH(pf_, 0);                                    \
                            __VA_ARGS__                                                        \
                            for (j = 0; (mode_ & XLARUN_K__LAST) && j < nt; j++) {        \
                                if (nr == 4) memcpy((Y) + (i + j) * (ldy) + r, (o) + 4 * j, 4 * sizeof(float)); \
                                else for (q = 0; q < nr; q++) (Y)[(i + j) * (ldy) + r + q] = (o)[4 * j + q]; \
                            }                                                                  \
                        }                                                                      \
                    }                                                                          \
                    if (mode_ & XLARUN_K__LAST) break;                                         \
                }                                                                              \
        }                                                                                      \
    } while (0)

/* The end of a 4 x 4 tile: out[4*j + r] = xlarun_k__hsum(a<r><j>) for its 16 accumulators, bit
   for bit. AVX-512 runs the 16 lane trees side by side, each level one add over two shuffled
   vectors (45 instructions instead of 128, about a tenth of a 2048-long tile's time on Zen 5):
   every sum is the same lower + upper addition hsum makes, in the same order. */
#if defined(XLARUN_K__AVX512)
#define XLARUN_K__L1(a, b) _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x44), _mm512_shuffle_f32x4(a, b, 0xEE))
#define XLARUN_K__L2(a, b) _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x88), _mm512_shuffle_f32x4(a, b, 0xDD))
#define XLARUN_K__L3(a, b) _mm512_add_ps(_mm512_shuffle_ps(a, b, 0x44), _mm512_shuffle_ps(a, b, 0xEE))
#define XLARUN_K__L4(a, b) _mm512_add_ps(_mm512_shuffle_ps(a, b, 0x88), _mm512_shuffle_ps(a, b, 0xDD))
/* acc index 4r + j; level 1 halves pairs (16 -> 8 lanes each), level 2 keeps four accumulators a
   128-bit chunk each, level 3 two a chunk, level 4 leaves lane 4c + k = accumulator 4k + c, which
   is row k, token c: token-major */
XLARUN_K__AI void xlarun_k__hsum4x4(const __m512 *a, float *out) {
    __m512 p0 = XLARUN_K__L1(a[0], a[1]), p1 = XLARUN_K__L1(a[2], a[3]), p2 = XLARUN_K__L1(a[4], a[5]);
    __m512 p3 = XLARUN_K__L1(a[6], a[7]), p4 = XLARUN_K__L1(a[8], a[9]), p5 = XLARUN_K__L1(a[10], a[11]);
    __m512 p6 = XLARUN_K__L1(a[12], a[13]), p7 = XLARUN_K__L1(a[14], a[15]);
    __m512 q0 = XLARUN_K__L2(p0, p1), q1 = XLARUN_K__L2(p2, p3), q2 = XLARUN_K__L2(p4, p5), q3 = XLARUN_K__L2(p6, p7);
    _mm512_storeu_ps(out, XLARUN_K__L4(XLARUN_K__L3(q0, q1), XLARUN_K__L3(q2, q3)));
}
#define XLARUN_K__OUT4X4(out)                                                                  \
    do {                                                                                       \
        __m512 acc_[16] = {a00, a01, a02, a03, a10, a11, a12, a13,                             \
                           a20, a21, a22, a23, a30, a31, a32, a33};                            \
        xlarun_k__hsum4x4(acc_, out);                                                          \
    } while (0)
#endif

/* The GEMM register tile, 4 rows x XK_NT tokens, written out by macro over the token list:
   accumulator a<r><j> belongs to row r, token j. */
#if XK_NT == 4
#define XK_TOKENS(M, r) M(r, 0) M(r, 1) M(r, 2) M(r, 3)
#define XK_TOKENS1(M) M(0) M(1) M(2) M(3)
#else
#define XK_TOKENS(M, r) M(r, 0) M(r, 1) M(r, 2)
#define XK_TOKENS1(M) M(0) M(1) M(2)
#endif
#define XK_ROWS(M) XK_TOKENS(M, 0) XK_TOKENS(M, 1) XK_TOKENS(M, 2) XK_TOKENS(M, 3)
#define XK_T_DECL(r, j) xlarun_k__v a##r##j = (mode & XLARUN_K__FIRST) ? XK_ZERO() : XK_LOAD(acc + 16 * (4 * r + j));
#define XK_T_SAVE(r, j) XK_STORE(acc + 16 * (4 * r + j), a##r##j);
#define XK_T_XPTR(j) const float *x##j = xs[j];
/* Each token's activations are loaded once per step and kept in a register for the four
   rows: left alone, GCC folds the loads into every FMA (16 loads a step instead of 4), which
   makes the tile load-bound. The empty asm pins the vector in a register; it changes no bits. */
#if defined(__GNUC__) && (defined(XLARUN_K__AVX512) || defined(XLARUN_K__AVX2))
#define XK_PIN(v) __asm__("" : "+v"(v))
#elif defined(__GNUC__) && defined(XLARUN_K__NEON)
#define XK_PIN(v) __asm__("" : "+w"(v))
#else
#define XK_PIN(v) ((void)0)
#endif
#define XK_T_XLOAD(j) xlarun_k__v xv##j = XK_LOAD(x##j + k); XK_PIN(xv##j);
#define XK_T_FMA(r, j) a##r##j = XK_FMA(wv, xv##j, a##r##j);
#define XK_T_PADX(j) xlarun_k__pad_x(xp[j], x##j + k, K - k); x##j = xp[j];
#define XK_T_OUT(r, j) out[4 * j + r] = xlarun_k__hsum(a##r##j);
#define XK_T_STEP()                                                                            \
    do {                                                                                       \
        xlarun_k__v wv;                                                                        \
        XK_TOKENS1(XK_T_XLOAD)                                                                 \
        wv = xlarun_k__wload(t, w0 + k * es); XK_PIN(wv); XK_TOKENS(XK_T_FMA, 0)               \
        wv = xlarun_k__wload(t, w1 + k * es); XK_PIN(wv); XK_TOKENS(XK_T_FMA, 1)               \
        wv = xlarun_k__wload(t, w2 + k * es); XK_PIN(wv); XK_TOKENS(XK_T_FMA, 2)               \
        wv = xlarun_k__wload(t, w3 + k * es); XK_PIN(wv); XK_TOKENS(XK_T_FMA, 3)               \
    } while (0)

/* K elements of a 4-row tile (a chunk of the rows, see XLARUN_K__BLOCKED): the accumulators start
   from zero or from acc, and end reduced into out or saved to acc (mode) */
XLARUN_K__AI void xlarun_k__tile(xlarun_k_type t, const unsigned char *w0, const unsigned char *w1,
                                 const unsigned char *w2, const unsigned char *w3,
                                 const float *const *xs, size_t K, float *out, float *acc, int mode) {
    size_t es = xlarun_k_type_size(t), k;
    XK_TOKENS1(XK_T_XPTR)
    XK_ROWS(XK_T_DECL)
    for (k = 0; k + XK_VL <= K; k += XK_VL) XK_T_STEP();
    if (k < K) {
        unsigned char wp[4][XK_VL * 4];
        float xp[XK_NT][XK_VL];
        size_t b = (K - k) * es;
        xlarun_k__pad_w(wp[0], w0 + k * es, b);
        xlarun_k__pad_w(wp[1], w1 + k * es, b);
        xlarun_k__pad_w(wp[2], w2 + k * es, b);
        xlarun_k__pad_w(wp[3], w3 + k * es, b);
        w0 = wp[0]; w1 = wp[1]; w2 = wp[2]; w3 = wp[3];
        XK_TOKENS1(XK_T_PADX)
        k = 0;
        XK_T_STEP();
    }
    if (!(mode & XLARUN_K__LAST)) { XK_ROWS(XK_T_SAVE) return; }
#if defined(XLARUN_K__AVX512)
    XLARUN_K__OUT4X4(out);
#else
    XK_ROWS(XK_T_OUT)
#endif
}

XLARUN_K__AI void xlarun_k__matmul_t(xlarun_k_type t, const unsigned char *W, size_t K, size_t r0,
                                     size_t r1, const float *X, size_t ldx, size_t n, float *Y,
                                     size_t ldy) {
    size_t rs = K * xlarun_k_type_size(t), nrows = r1 > r0 ? r1 - r0 : 0, r, i, q, j;
    float o[4 * XK_NT];
    W += r0 * rs; /* from here on, row r means row r0 + r */
    Y += r0;
    if (n == 1 && XK_GEMV_ROWS == 1) {
        for (r = 0; r < nrows; r++) Y[r] = xlarun_k__gemv1(t, W + r * rs, X, K);
        return;
    }
    if (n == 1) {
        size_t nq = nrows / 4;
        for (q = 0; q < nq; q++) {
            const unsigned char *w = W + 4 * q * rs;
            xlarun_k__gemv4(t, w, w + rs, w + 2 * rs, w + 3 * rs, X, K, o);
            memcpy(Y + 4 * q, o, 4 * sizeof(float));
        }
        for (r = 4 * nq; r < nrows; r++) Y[r] = xlarun_k__dot1(t, W + r * rs, X, K);
        return;
    }
    XLARUN_K__BLOCKED(nrows, rs, n, K * sizeof(float), XK_NT, K, XK_VL, XLARUN_K__TILE_X, Y, ldy, o, W, {
        const float *xs[XK_NT];
        const unsigned char *wk = W + k0_ * xlarun_k_type_size(t);
        for (j = 0; j < XK_NT; j++) xs[j] = X + ii[j] * ldx + k0_;
        xlarun_k__tile(t, wk + rr[0] * rs, wk + rr[1] * rs, wk + rr[2] * rs, wk + rr[3] * rs, xs, kn_, o, acc_, mode_);
    });
}

XLARUN_K__FN void xlarun_k_matmul_simd(xlarun_k_type t, const void *W, size_t K, size_t r0, size_t r1,
                                       const float *X, size_t ldx, size_t n, float *Y, size_t ldy) {
    const unsigned char *Wb = (const unsigned char *)W;
    if (t == XLARUN_K_BF16) xlarun_k__matmul_t(XLARUN_K_BF16, Wb, K, r0, r1, X, ldx, n, Y, ldy);
    else if (t == XLARUN_K_F16) xlarun_k__matmul_t(XLARUN_K_F16, Wb, K, r0, r1, X, ldx, n, Y, ldy);
    else xlarun_k__matmul_t(XLARUN_K_F32, Wb, K, r0, r1, X, ldx, n, Y, ldy);
}
#endif

XLARUN_K__FN void xlarun_k_matmul(xlarun_k_type t, const void *W, size_t K, size_t r0, size_t r1,
                                  const float *X, size_t ldx, size_t n, float *Y, size_t ldy) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_matmul_simd(t, W, K, r0, r1, X, ldx, n, Y, ldy);
#else
    xlarun_k_matmul_ref(t, W, K, r0, r1, X, ldx, n, Y, ldy);
#endif
}

/* ======================================================================================
   gemv: y[r] = dot(W row r, x, K) for r in [r0, r1): the decode GEMV (xlarun_k_matmul with
   n == 1) reading `streams` places of the matrix at once. [r0, r1) is cut into `streams` runs
   of equal length (the few rows left at the end go one at a time) and row i of every run is
   computed in one loop, each row with its own accumulator and the canonical reduction, so y[r]
   is bit-identical to xlarun_k_dot and xlarun_k_matmul whatever streams is. streams: 1, 2, 4
   or 8 (others round down; twice as many where K > 4096 and the runs prefetch into L2: the
   comment above XLARUN_K_L2_PREFETCH_RUNS); 1 is exactly xlarun_k_matmul's n == 1 path. Only
   the AVX-512 variant reads several runs; AVX2 and NEON already read four adjacent rows at
   once (xlarun_k__gemv4) and ignore streams.
   Why: on a server core the misses one core keeps in flight bound its bandwidth. One
   sequential stream, prefetched in software, stays at about 10 GB/s on the 2-core Xeon
   (family 6 model 207), read-only loop over the mapped file; four to eight streams reach 13-15,
   because the L2 streamer runs ahead in each stream's 4 KB page on its own. With several runs
   the misses in flight come from the runs, and each run prefetches only a little ahead
   (xlarun_k__ahead), since a farther line would be evicted before use: two runs (the AMD Zen
   4's choice) 1 KB, four and eight (the Xeon's) one row up to 4 KB, which is what the Xeon was
   measured with at K 2048. One whole row was too far at the MLP's down matrix: at K 8192 each
   run put its next 16 KB in L1 over the activations. AMD EPYC family 25 model 17, 2 threads,
   2 runs, harness over 1 GiB in 2 MB pages, medians of 14 passes, GB/s of weights, one row /
   1 KB ahead: K 8192 bf16 activations 28.1 / 30.6, exact 27.5 / 29.5, q8_0 28.6 / 31.6, q4_0
   25.6 / 27.0; K 2048 the same within the noise or better (q8_0 28.9 / 30.6, q4_0 27.6 / 29.1);
   a plain read 33.5-34.5 (tools/README.md). One stream keeps its 8 rows ahead, which is what
   Zen 5 measured best (xlarun_k__gemv1); the caller picks streams per machine.
   ====================================================================================== */
#define XLARUN_K_MAX_STREAMS 8
/* bytes ahead that each of S > 1 runs of rows of rb bytes prefetches (above) */
XLARUN_K__AI size_t xlarun_k__ahead(size_t S, size_t rb) { return S == 2 ? 1024 : rb < 4096 ? rb : 4096; }
/* The prefetch of a run's line (XLARUN_K__RUN_PREFETCH). Two runs (Zen 4's setting) prefetch
   into L2 only (prefetcht1) `ahead` bytes on, and then, for q8_0's codes and the f32-activation
   GEMV with x over 16 KB, into L1 256 bytes on; more runs (the Xeon's, measured with
   prefetcht0) and one stream into L1. One reading: a prefetcht0 holds one of L1's few miss
   buffers for the whole trip to memory, a prefetcht1 one of L2's many, and the line brought to
   L1 shortly before use arrives from L2 in time.
   AMD EPYC family 25 model 17, 2 threads, 2 runs, 512 MB of rows in 2 MB pages, each pass
   between two passes of a plain read of the same memory, medians of the passes by the read's
   state (fast: the read above 50 GB/s), GEMV / read.
   - t0 -> t1, 1 KB ahead (2026-11-28, morning): q4_0 K 2048 fast 0.85-0.86 -> 0.93-0.95 (98
     and 100 passes), slow 0.96-0.98 -> 1.00-1.01, K 8192 fast 0.86-0.88 -> 0.88-0.92 (8 and
     6); q8_0 K 8192 fast 0.81 -> 0.85 (15), slow 0.97-0.98 -> 1.00, K 2048 slow 0.93-0.95 ->
     1.00-1.01; bf16 activations K 2048 fast 0.98 -> 1.04 (58), K 8192 0.87 -> 0.93 (25).
     prefetcht2 the same as t1, prefetchnta between; t1 2 or 4 KB ahead no better than 1 KB.
     t1 lifts four runs there too (q4_0 K 2048 slow 0.90 -> 0.99, K 8192 fast 0.53 -> 0.79;
     q8_0 K 2048 fast 0.63 -> 0.75, K 8192 0.52 -> 0.71), but two stay the best; the Xeon's four
     runs keep t0 until measured there (bench --gemv, built with and without
     -DXLARUN_K_L2_PREFETCH_RUNS=0x16).
   - then also into L1 256 B on (2026-11-28, later; passes each side): q8_0 K 8192 fast 0.85
     -> 0.95 (4 and 4), slow 0.97 -> 1.00, K 2048 fast 0.80 -> 0.99 (2 and 2), slow 0.94-0.98
     -> 0.98-1.00. bf16 activations: no change (K 8192 fast 0.933 / 0.932, 8 each); q4_0, whose
     step reads half the bytes for the same work, lost (K 8192 fast 0.95 -> 0.88, 6 and 5; K
     2048 slow 0.94 -> 0.84, 10 each; 128 or 512 B no better): both keep L2 only.
   - The f32-activation GEMV (xlarun_k__gemvs) reads a line of x for two of weights a step.
     While x (4K bytes) fits in half of L1 its runs prefetch 1 KB ahead into L1: t1 there lost
     in the fast state (bf16 K 2048, 4 KB into L2 and 256 B into L1: 0.92-0.94 -> 0.76-0.78).
     Over 16 KB (K > 4096) the lines prefetched into L1 pushed x out of it (fast 0.93, 0.81,
     0.61 at K 2048, 4096, 8192); there two runs go 4 KB ahead into L2 and 256 B into L1: bf16
     K 8192 slow 0.81 -> 0.94 (10 each), fast 0.62 -> 0.78 (5 and 5); K 5120 slow 0.85 -> 0.93,
     K 6144 0.82 -> 0.91, K 4096 even (0.96 / 0.95). And there the GEMV reads twice the runs it
     is asked for (2 -> 4; x is read once for twice the rows): medians of 10 passes a run, 2 /
     4 runs, K 8192 fast 0.74-0.79 / 0.84-0.85 (9 runs), slow 0.92-0.96 / 0.97-0.99 (9); K 5120
     fast 0.76-0.82 / 0.80-0.84 (5); K 14336 fast 0.78-0.80 / 0.84-0.85 (3), slow 0.93-0.96 /
     0.98-1.00 (3) (with prefetcht0 four runs had lost at K 4096). At K 8192, two runs: 1 KB
     into L2 slow 0.78-0.83, fast 0.56-0.57 (t0 0.72 / 0.50-0.59 beside it); 2 KB 0.89 /
     0.71-0.73; 3, 6 and 8 KB within 0.02-0.04 of 4 KB fast (8 KB 0.75 against 0.79 side by
     side); no line brought to L1 early 0.75 fast against 0.78, 128 or 512 B as 256; t0 2 or 4
     KB ahead no better than 1 KB (slow). K cut in parts, every row of a group of 8 a part at
     a time, keeps x in L1 but reads the rows in 4 KB pieces: 0.89 -> 0.74 (slow), 0.61 ->
     0.44 (fast); not kept. */
#ifndef XLARUN_K_L2_PREFETCH_RUNS /* the run counts (bit S) that prefetch into L2; for A/B runs on
                                     other CPUs: -DXLARUN_K_L2_PREFETCH_RUNS=0x16 for 2, 4 and 8 */
#define XLARUN_K_L2_PREFETCH_RUNS 0x4
#endif
/* S runs prefetch into L2 (the runs of XLARUN_K_L2_PREFETCH_RUNS) */
XLARUN_K__AI int xlarun_k__l2(size_t S) { return (int)((XLARUN_K_L2_PREFETCH_RUNS >> S) & 1); }
/* a run's line `pos` bytes in, `ahead` bytes on: into L2 where l2, and then also into L1 `near`
   bytes on where near > 0; else into L1 */
#define XLARUN_K__RUN_PREFETCH(base, pos, ahead, l2, near)                                      \
    do {                                                                                       \
        if (l2) {                                                                              \
            XLARUN_K__PREFETCH_L2(base, (ahead) + (pos));                                      \
            if (near) XLARUN_K__PREFETCH(base, (near) + (pos));                                \
        } else XLARUN_K__PREFETCH(base, (ahead) + (pos));                                      \
    } while (0)
XLARUN_K__FN void xlarun_k_gemv_ref(xlarun_k_type t, const void *W, size_t K, size_t r0, size_t r1,
                                    const float *x, float *y, int streams) {
    (void)streams;
    xlarun_k_matmul_ref(t, W, K, r0, r1, x, K, 1, y, 0);
}

/* 1, 2, 4 or 8 */
XLARUN_K__AI int xlarun_k__streams(int streams) { return streams >= 8 ? 8 : streams >= 4 ? 4 : streams >= 2 ? 2 : 1; }

#if defined(XLARUN_K__AVX512)
/* row i of S runs `run` bytes apart (w: run 0's row), out[s * ldo], prefetching `ahead` bytes on
   (near > 0: into L2, and into L1 near bytes on); S a constant after inlining */
XLARUN_K__AI void xlarun_k__gemvs(xlarun_k_type t, const unsigned char *w, size_t run, const float *x, size_t K,
                                  size_t ahead, size_t near, const size_t S, float *out, size_t ldo) {
    size_t es = xlarun_k_type_size(t), k, s;
    xlarun_k__v a[XLARUN_K_MAX_STREAMS], xv;
    XLARUN_K__EACH_RUN(s, S) a[s] = XK_ZERO();
    for (k = 0; k + XK_VL <= K; k += XK_VL) {
        xv = XK_LOAD(x + k);
        if (((k * es) & 63) == 0)
            XLARUN_K__EACH_RUN(s, S) XLARUN_K__RUN_PREFETCH(w + s * run, k * es, ahead, near > 0, near);
        XLARUN_K__EACH_RUN(s, S) a[s] = XK_FMA(xlarun_k__wload(t, w + s * run + k * es), xv, a[s]);
    }
    if (k < K) { /* dot1's padded last step */
        unsigned char wp[XK_VL * 4];
        float xp[XK_VL];
        xlarun_k__pad_x(xp, x + k, K - k);
        xv = XK_LOAD(xp);
        XLARUN_K__EACH_RUN(s, S) {
            xlarun_k__pad_w(wp, w + s * run + k * es, (K - k) * es);
            a[s] = XK_FMA(xlarun_k__wload(t, wp), xv, a[s]);
        }
    }
    XLARUN_K__EACH_RUN(s, S) out[s * ldo] = xlarun_k__hsum(a[s]);
}

XLARUN_K__AI void xlarun_k__gemv_t(xlarun_k_type t, const unsigned char *W, size_t K, size_t r0, size_t r1,
                                   const float *x, float *y, int S) {
    size_t rs = K * xlarun_k_type_size(t), nrows = r1 > r0 ? r1 - r0 : 0, L, r;
    size_t near = K > 4096 && xlarun_k__l2((size_t)S) ? 256 : 0, ahead; /* x over 16 KB: XLARUN_K_L2_PREFETCH_RUNS */
    if (near && S < XLARUN_K_MAX_STREAMS) S *= 2; /* and twice the runs, there */
    ahead = near ? 4096 : xlarun_k__ahead((size_t)S, rs);
    L = nrows / (size_t)S;
    W += r0 * rs;
    y += r0;
    for (r = 0; S > 1 && r < L; r++) {
        if (S == 2) xlarun_k__gemvs(t, W + r * rs, L * rs, x, K, ahead, near, 2, y + r, L);
        else if (S == 4) xlarun_k__gemvs(t, W + r * rs, L * rs, x, K, ahead, near, 4, y + r, L);
        else xlarun_k__gemvs(t, W + r * rs, L * rs, x, K, ahead, near, 8, y + r, L);
    }
    for (r = S > 1 ? (size_t)S * L : 0; r < nrows; r++) y[r] = xlarun_k__gemv1(t, W + r * rs, x, K);
}
#endif

#if defined(XLARUN_K__SIMD)
XLARUN_K__FN void xlarun_k_gemv_simd(xlarun_k_type t, const void *W, size_t K, size_t r0, size_t r1,
                                     const float *x, float *y, int streams) {
#if defined(XLARUN_K__AVX512)
    const unsigned char *Wb = (const unsigned char *)W;
    int S = xlarun_k__streams(streams);
    if (t == XLARUN_K_BF16) xlarun_k__gemv_t(XLARUN_K_BF16, Wb, K, r0, r1, x, y, S);
    else if (t == XLARUN_K_F16) xlarun_k__gemv_t(XLARUN_K_F16, Wb, K, r0, r1, x, y, S);
    else xlarun_k__gemv_t(XLARUN_K_F32, Wb, K, r0, r1, x, y, S);
#else
    (void)streams;
    xlarun_k_matmul_simd(t, W, K, r0, r1, x, K, 1, y, 0);
#endif
}
#endif

XLARUN_K__FN void xlarun_k_gemv(xlarun_k_type t, const void *W, size_t K, size_t r0, size_t r1, const float *x,
                                float *y, int streams) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_gemv_simd(t, W, K, r0, r1, x, y, streams);
#else
    xlarun_k_gemv_ref(t, W, K, r0, r1, x, y, streams);
#endif
}

/* ======================================================================================
   rmsnorm: out[i] = w[i] * (x[i] * r), r = (float)(1 / sqrt(sum(x^2)/n + eps)) with the sum of
   squares accumulated in double (sequentially in both variants, so they agree bit for bit).
   out may equal x. w is f32 (norm weights are converted at load).
   ====================================================================================== */
XLARUN_K__AI float xlarun_k__rms_scale(const float *x, size_t n, float eps) {
    double ss = 0.0;
    size_t i;
    for (i = 0; i < n; i++) ss += (double)x[i] * (double)x[i];
    return (float)(1.0 / sqrt(ss / (double)(n ? n : 1) + (double)eps));
}

XLARUN_K__FN void xlarun_k_rmsnorm_ref(float *out, const float *x, const float *w, size_t n, float eps) {
    float r = xlarun_k__rms_scale(x, n, eps);
    size_t i;
    for (i = 0; i < n; i++) {
        float xn = x[i] * r;
        out[i] = w[i] * xn;
    }
}

#if defined(XLARUN_K__SIMD)
XLARUN_K__FN void xlarun_k_rmsnorm_simd(float *out, const float *x, const float *w, size_t n, float eps) {
    float r = xlarun_k__rms_scale(x, n, eps);
    xlarun_k__v rv = XK_SET1(r);
    size_t i;
    for (i = 0; i + XK_VL <= n; i += XK_VL) XK_STORE(out + i, XK_MUL(XK_LOAD(w + i), XK_MUL(XK_LOAD(x + i), rv)));
    for (; i < n; i++) {
        float xn = x[i] * r;
        out[i] = w[i] * xn;
    }
}
#endif

XLARUN_K__FN void xlarun_k_rmsnorm(float *out, const float *x, const float *w, size_t n, float eps) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_rmsnorm_simd(out, x, w, n, eps);
#else
    xlarun_k_rmsnorm_ref(out, x, w, n, eps);
#endif
}

/* ======================================================================================
   rope: Hugging Face rotate_half on n_heads vectors of hd floats (head h at x + h*hd); cos_ and
   sin_ hold hd/2 entries. For i < hd/2, a = x[i], b = x[i + hd/2]:
     x[i] = a*cos_[i] - b*sin_[i];   x[i + hd/2] = b*cos_[i] + a*sin_[i]
   each product rounded separately (no FMA, enforced with XLARUN_K__KEEP whatever the
   -ffp-contract setting), as torch does: both variants agree bit for bit.
   hd must be even.
   ====================================================================================== */
XLARUN_K__AI void xlarun_k__rope1(float *x, size_t i, size_t half, const float *cos_, const float *sin_) {
    float a = x[i], b = x[i + half];
    float ac = a * cos_[i], bs = b * sin_[i], bc = b * cos_[i], as = a * sin_[i];
    XLARUN_K__KEEP(ac); XLARUN_K__KEEP(bs); XLARUN_K__KEEP(bc); XLARUN_K__KEEP(as);
    x[i] = ac - bs;
    x[i + half] = bc + as;
}

XLARUN_K__FN void xlarun_k_rope_ref(float *x, size_t n_heads, size_t hd, const float *cos_, const float *sin_) {
    size_t h, i, half = hd / 2;
    for (h = 0; h < n_heads; h++)
        for (i = 0; i < half; i++) xlarun_k__rope1(x + h * hd, i, half, cos_, sin_);
}

#if defined(XLARUN_K__SIMD)
XLARUN_K__FN void xlarun_k_rope_simd(float *x, size_t n_heads, size_t hd, const float *cos_, const float *sin_) {
    size_t h, i, half = hd / 2;
    for (h = 0; h < n_heads; h++) {
        float *xh = x + h * hd;
        for (i = 0; i + XK_VL <= half; i += XK_VL) {
            xlarun_k__v a = XK_LOAD(xh + i), b = XK_LOAD(xh + half + i);
            xlarun_k__v c = XK_LOAD(cos_ + i), s = XK_LOAD(sin_ + i);
            xlarun_k__v ac = XK_MUL(a, c), bs = XK_MUL(b, s), bc = XK_MUL(b, c), as = XK_MUL(a, s);
            XLARUN_K__KEEP(ac); XLARUN_K__KEEP(bs); XLARUN_K__KEEP(bc); XLARUN_K__KEEP(as);
            XK_STORE(xh + i, XK_SUB(ac, bs));
            XK_STORE(xh + half + i, XK_ADD(bc, as));
        }
        for (; i < half; i++) xlarun_k__rope1(xh, i, half, cos_, sin_);
    }
}
#endif

XLARUN_K__FN void xlarun_k_rope(float *x, size_t n_heads, size_t hd, const float *cos_, const float *sin_) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_rope_simd(x, n_heads, hd, cos_, sin_);
#else
    xlarun_k_rope_ref(x, n_heads, hd, cos_, sin_);
#endif
}

/* ======================================================================================
   exp: x[i] = e^x[i] in place. Reference: libm expf. SIMD: xlarun_k__expv (about 1 ulp).
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_exp_ref(float *x, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) x[i] = expf(x[i]);
}

#if defined(XLARUN_K__SIMD)
XLARUN_K__FN void xlarun_k_exp_simd(float *x, size_t n) {
    size_t i;
    for (i = 0; i + XK_VL <= n; i += XK_VL) XK_STORE(x + i, xlarun_k__expv(XK_LOAD(x + i)));
    if (i < n) xlarun_k__store_part(x + i, xlarun_k__expv(xlarun_k__load_part(x + i, n - i, 0.0f)), n - i);
}
#endif

XLARUN_K__FN void xlarun_k_exp(float *x, size_t n) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_exp_simd(x, n);
#else
    xlarun_k_exp_ref(x, n);
#endif
}

/* ======================================================================================
   softmax in place: m = max x; x[i] = e^(x[i] - m); s = f32 sum; x[i] *= 1/s.
   -inf entries become 0 (as long as one entry is finite). n == 0 does nothing.
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_softmax_ref(float *x, size_t n) {
    float m, s = 0.0f, inv;
    size_t i;
    if (n == 0) return;
    m = x[0];
    for (i = 1; i < n; i++)
        if (x[i] > m) m = x[i];
    for (i = 0; i < n; i++) {
        x[i] = expf(x[i] - m);
        s += x[i];
    }
    inv = 1.0f / s;
    for (i = 0; i < n; i++) x[i] *= inv;
}

#if defined(XLARUN_K__SIMD)
XLARUN_K__FN void xlarun_k_softmax_simd(float *x, size_t n) {
    float m, inv;
    size_t i;
    xlarun_k__v vm, vs = XK_ZERO(), e;
    if (n == 0) return;
    vm = XK_SET1(x[0]);
    for (i = 0; i + XK_VL <= n; i += XK_VL) vm = XK_MAX(vm, XK_LOAD(x + i));
    if (i < n) vm = XK_MAX(vm, xlarun_k__load_part(x + i, n - i, x[0]));
    {   /* the max is exact in any order */
        float lanes[XK_VL];
        XK_STORE(lanes, vm);
        m = lanes[0];
        for (i = 1; i < XK_VL; i++) m = lanes[i] > m ? lanes[i] : m;
    }
    vm = XK_SET1(m);
    for (i = 0; i + XK_VL <= n; i += XK_VL) {
        e = xlarun_k__expv(XK_SUB(XK_LOAD(x + i), vm));
        XK_STORE(x + i, e);
        vs = XK_ADD(vs, e);
    }
    if (i < n) { /* padding lanes are -inf: they add e^-inf = 0 */
        e = xlarun_k__expv(XK_SUB(xlarun_k__load_part(x + i, n - i, -INFINITY), vm));
        xlarun_k__store_part(x + i, e, n - i);
        vs = XK_ADD(vs, e);
    }
    inv = 1.0f / xlarun_k__hsum(vs);
    vm = XK_SET1(inv);
    for (i = 0; i + XK_VL <= n; i += XK_VL) XK_STORE(x + i, XK_MUL(XK_LOAD(x + i), vm));
    for (; i < n; i++) x[i] *= inv;
}
#endif

XLARUN_K__FN void xlarun_k_softmax(float *x, size_t n) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_softmax_simd(x, n);
#else
    xlarun_k_softmax_ref(x, n);
#endif
}

/* ======================================================================================
   softcap: x[i] = cap * tanh(x[i] / cap), each step rounded to f32, the steps of torch's soft
   capping (x / cap, tanh, * cap); tanh is libm's tanhf, within 2 ulp of torch's (vectorized)
   tanh. Scalar in every variant: it runs once per score or logit, a few percent of a step.
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_softcap(float *x, size_t n, float cap) {
    size_t i;
    for (i = 0; i < n; i++) x[i] = tanhf(x[i] / cap) * cap;
}

/* ======================================================================================
   attend: nq queries that share one KV head (a GQA group: one token's heads), keys and values
   at positions j0..n_keys-1 (j0 > 0: a sliding window), both of dtype t (f32, or f16/bf16 for a
   half-size cache; any alignment), widened exactly to f32 as they are read. Position j is kept
   in slot j % ring of the cache (ring, a multiple of B = XLARUN_K_KEY_BLOCK: the cache of a
   sliding window keeps only its last ring positions), or slot j when ring is 0. Keys are stored
   in blocks of B slots (B = 32 on AVX-512, else 16: two vectors, four on NEON), each block
   transposed (its B keys side by side for every dimension); values by row:
     slot i's key, dim d at kt[(i/B)*B*hd + d*B + i%B]   (XLARUN_K_KEY_AT(i, d, hd))
     slot i's value, dim d at v[i*hd + d];   query g, dim d at q[g*hd + d]
   The score rows start at the block of j0: position j's at scores[g*lds + j - j0b], j0b = j0 - j0 % B.
     score(g, j) = (sum over d = 0, 1, 2, ... of q[g*hd+d] * key(j, d)) * scale
     then, when cap > 0 (Gemma 2's attn_logit_softcapping), xlarun_k_softcap of them
     p = softmax of the scores of j0..n_keys-1
     out[g*hd + d] = sum over j = j0, j0+1, ... of p(g, j) * value(j, d)   (one chain per element)
   A key block holds whole vectors of keys per dimension, so each score is a plain FMA chain
   over d with no horizontal sum, and the scores of a block read it as one forward stream. (One
   thread's decode scores at 4,000 keys, f32, measured on Zen 5: keys in rows of all n_ctx per
   dimension, 64 streams at once, 15 GB/s; blocks of 16 read two at a time, 18; one block of 32
   at a time, 34.) The values are read a row (up to 4 vectors, 2 on AVX2) at a time for every
   query of the group at once. The sums run over positions in order, wherever the ring puts them.
   Each query's bits do not depend on nq (a query alone or in its group gives the same out), so
   prefill equals token-by-token decode; nor on ring.
   attend is made of two halves, for a caller that splits one KV head across threads (decode of
   a model with fewer KV heads than threads):
     attend_qk(t, q, nq, kt, ring, j0, ja, jb, hd, scale, scores, lds): the scores (before the
       cap) of the keys ja..jb-1, j0 <= ja, into rows that start at j0's block. It may write the
       whole key blocks that hold them (from ja rounded down to a multiple of B to jb rounded up);
       the extra scores mean nothing.
     attend_pv(t, p, nq, lds, v, ring, j0, n_keys, hd, d0, d1, out): out[g*hd + d] for d0 <= d <
       d1 only, from the probabilities p (rows lds apart, starting at j0's block).
   attend = attend_qk(j0, j0, n_keys), softcap (cap > 0), softmax of each row from j0,
   attend_pv(0, hd). Every score and every out element is its own chain, so key ranges split at
   multiples of B and dimension ranges split anywhere give attend's bits exactly (with the
   softmax run once per row over the whole range, by the dispatcher of the same build).
   Key blocks are read whole: the last one past n_keys, the first from its start before j0
   (scores computed and never used, from whatever those slots hold). So kt holds ring * hd
   elements (ring 0: XLARUN_K_KEY_PAD(n_keys) * hd), and ring must be at least n_keys - j0.
   scores is caller scratch of nq rows of lds >= XLARUN_K_KEY_PAD(n_keys) - j0b floats (left
   holding the p). out must not overlap q, kt, v. Causal masking is the caller's choice of j0
   and n_keys; j0 >= n_keys (no keys) gives out = 0.

   kv_store writes n f32 values into a cache of dtype t, at dst + i*stride elements: f32 as is,
   bf16 and f16 rounded to nearest even, finite values past their range saturated to their
   largest finite value (f16 +-65504, bf16 +-3.3895e38): an inf in the cache would turn every
   later score of the head into NaN. inf and NaN stay what they are.
   Position j's key goes to stride XLARUN_K_KEY_BLOCK from XLARUN_K_KEY_AT(j % ring, 0, hd), its
   value to stride 1 from (j % ring) * hd.
   ====================================================================================== */
#if defined(XLARUN_K__AVX512)
#define XLARUN_K_KEY_BLOCK 32
#else
#define XLARUN_K_KEY_BLOCK 16
#endif
#define XLARUN_K_KEY_PAD(n) (((n) + XLARUN_K_KEY_BLOCK - 1) / XLARUN_K_KEY_BLOCK * XLARUN_K_KEY_BLOCK)
#define XLARUN_K_KEY_AT(j, d, hd) \
    (((j) / XLARUN_K_KEY_BLOCK) * XLARUN_K_KEY_BLOCK * (hd) + (d) * XLARUN_K_KEY_BLOCK + (j) % XLARUN_K_KEY_BLOCK)

XLARUN_K__FN void xlarun_k_kv_store(xlarun_k_type t, const float *src, void *dst, size_t n, size_t stride) {
    unsigned char *p = (unsigned char *)dst;
    size_t i, es = xlarun_k_type_size(t);
    /* the half type's inf and largest finite value, without the sign */
    const uint16_t inf = t == XLARUN_K_BF16 ? 0x7f80u : 0x7c00u, top = (uint16_t)(inf - 1u);
    for (i = 0; i < n; i++) {
        float f = src[i];
        uint16_t h;
        if (t == XLARUN_K_F32) { memcpy(p + i * stride * es, &f, 4); continue; }
        h = t == XLARUN_K_BF16 ? xlarun_k_f32_to_bf16(f) : xlarun_k_f32_to_f16(f);
        if ((h & 0x7fffu) == inf && (xlarun_k__f32_bits(f) & 0x7f800000u) != 0x7f800000u)
            h = (uint16_t)((h & 0x8000u) | top); /* a finite value rounded up to inf */
        memcpy(p + i * stride * es, &h, 2);
    }
}

XLARUN_K__FN void xlarun_k_attend_qk_ref(xlarun_k_type t, const float *q, size_t nq, const void *kt, size_t ring,
                                         size_t j0, size_t ja, size_t jb, size_t hd, float scale, float *scores,
                                         size_t lds) {
    const unsigned char *kp = (const unsigned char *)kt;
    size_t g, j, d, es = xlarun_k_type_size(t), j0b = j0 - j0 % XLARUN_K_KEY_BLOCK;
    for (g = 0; g < nq; g++)
        for (j = ja; j < jb; j++) {
            size_t slot = ring ? j % ring : j;
            float s = 0.0f;
            for (d = 0; d < hd; d++) {
                float qk = q[g * hd + d] * xlarun_k__wval(t, kp + XLARUN_K_KEY_AT(slot, d, hd) * es);
                XLARUN_K__KEEP(qk);
                s += qk;
            }
            scores[g * lds + j - j0b] = s * scale;
        }
}

XLARUN_K__FN void xlarun_k_attend_pv_ref(xlarun_k_type t, const float *p, size_t nq, size_t lds, const void *v,
                                         size_t ring, size_t j0, size_t n_keys, size_t hd, size_t d0, size_t d1,
                                         float *out) {
    const unsigned char *vp = (const unsigned char *)v;
    size_t g, j, d, es = xlarun_k_type_size(t), j0b = j0 - j0 % XLARUN_K_KEY_BLOCK;
    for (g = 0; g < nq; g++) {
        float *o = out + g * hd;
        for (d = d0; d < d1; d++) o[d] = 0.0f;
        for (j = j0; j < n_keys; j++) {
            size_t slot = ring ? j % ring : j;
            for (d = d0; d < d1; d++) {
                float pv = p[g * lds + j - j0b] * xlarun_k__wval(t, vp + (slot * hd + d) * es);
                XLARUN_K__KEEP(pv);
                o[d] += pv;
            }
        }
    }
}

#if defined(XLARUN_K__SIMD)
/* scores of NG queries for the key block at kd (into scores, rows lds apart): NG*KB independent FMA chains over d (KB =
   vectors per block), in registers (written out for g, b < 4; NG is a constant after inlining,
   so the guards fold away). All KB vectors are stored: lanes past n_keys go to the padding. */
#define XA_KB (XLARUN_K_KEY_BLOCK / XK_VL)
#define XA_G(M, b) M(0, b) M(1, b) M(2, b) M(3, b)
#define XA_ALL(M) XA_G(M, 0) XA_G(M, 1) XA_G(M, 2) XA_G(M, 3)
#define XA_DECL(g, b) xlarun_k__v a##g##b = XK_ZERO();
#define XA_FMA(g, b) if (NG > g && XA_KB > b) a##g##b = XK_FMA(q##g, k##b, a##g##b);
#define XA_KLOAD(b) if (XA_KB > b) { k##b = xlarun_k__wload(t, kd + (size_t)b * XK_VL * es); XK_PIN(k##b); }
#define XA_QSET(g) if (NG > g) q##g = XK_SET1(q[(size_t)g * hd + d]);
#define XA_OUT(g, b) if (NG > g && XA_KB > b) \
    XK_STORE(scores + (size_t)g * lds + (size_t)b * XK_VL, XK_MUL(a##g##b, XK_SET1(scale)));
XLARUN_K__AI void xlarun_k__qk(xlarun_k_type t, const float *q, size_t hd, const unsigned char *kd, float scale,
                               float *scores, size_t lds, int NG) {
    xlarun_k__v k0, k1, k2, k3, q0 = XK_ZERO(), q1 = q0, q2 = q0, q3 = q0; /* k0..k(KB-1) loaded before use */
    size_t d, es = xlarun_k_type_size(t);
    XA_ALL(XA_DECL)
    for (d = 0; d < hd; d++, kd += XLARUN_K_KEY_BLOCK * es) {
        XA_KLOAD(0) XA_KLOAD(1) XA_KLOAD(2) XA_KLOAD(3)
        XA_QSET(0) XA_QSET(1) XA_QSET(2) XA_QSET(3)
        XA_ALL(XA_FMA)
    }
    XA_ALL(XA_OUT)
}
#undef XA_KB
#undef XA_DECL
#undef XA_FMA
#undef XA_KLOAD
#undef XA_QSET
#undef XA_OUT

/* out of NG queries for DB vectors of dimensions from d0 (m lanes in the last, m <= XK_VL, the
   others whole): NG*DB chains over the keys, one per output vector; each key's DB value vectors
   are loaded once for the group. XA_DB is the most per pass (16 registers on AVX2). */
#if defined(XLARUN_K__AVX2)
#define XA_DB 2
#else
#define XA_DB 4
#endif
#define XA_PDECL(g, b) xlarun_k__v c##g##b = XK_ZERO();
#define XA_VLD(b)                                                                              \
    if (DB > b) {                                                                              \
        v##b = (b + 1 < DB || m == XK_VL) ? xlarun_k__wload(t, vj + (size_t)b * XK_VL * es)    \
                                          : xlarun_k__wload_part(t, vj + (size_t)b * XK_VL * es, m); \
        XK_PIN(v##b); /* one load for the group: GCC would fold it into every query's FMA */   \
    }
#define XA_PSET(g) if (NG > g) p##g = XK_SET1(p[(size_t)g * lds + j]);
#define XA_PFMA(g, b) if (NG > g && DB > b) c##g##b = XK_FMA(p##g, v##b, c##g##b);
#define XA_PST(g, b)                                                                           \
    if (NG > g && DB > b) {                                                                    \
        float *o_ = out + (size_t)g * hd + d0 + (size_t)b * XK_VL;                             \
        if (b + 1 < DB || m == XK_VL) XK_STORE(o_, c##g##b);                                   \
        else xlarun_k__store_part(o_, c##g##b, m);                                             \
    }
XLARUN_K__AI void xlarun_k__pv(xlarun_k_type t, const float *p, size_t lds, const unsigned char *v, size_t hd,
                               size_t ring, size_t j0, size_t n_keys, size_t d0, size_t m, float *out, int NG, int DB) {
    xlarun_k__v v0 = XK_ZERO(), v1 = v0, v2 = v0, v3 = v0, p0 = v0, p1 = v0, p2 = v0, p3 = v0;
    size_t j, es = xlarun_k_type_size(t), slot = ring ? j0 % ring : j0, count = n_keys > j0 ? n_keys - j0 : 0;
    XA_ALL(XA_PDECL)
    p += j0 % XLARUN_K_KEY_BLOCK;
    for (j = 0; j < count; j++, slot = slot + 1 == ring ? 0 : slot + 1) {
        const unsigned char *vj = v + (slot * hd + d0) * es;
        XA_VLD(0) XA_VLD(1) XA_VLD(2) XA_VLD(3)
        XA_PSET(0) XA_PSET(1) XA_PSET(2) XA_PSET(3)
        XA_ALL(XA_PFMA)
    }
    XA_ALL(XA_PST)
}
#undef XA_G
#undef XA_ALL
#undef XA_PDECL
#undef XA_VLD
#undef XA_PSET
#undef XA_PFMA
#undef XA_PST

/* the scores of every block from ja's to jb's, 4 queries at a time, then the 1-3 left; t is a
   constant in each copy */
XLARUN_K__AI void xlarun_k__qk_t(xlarun_k_type t, const float *q, size_t nq, const unsigned char *kt, size_t ring,
                                 size_t j0, size_t ja, size_t jb, size_t hd, float scale, float *scores, size_t lds) {
    size_t g, j, es = xlarun_k_type_size(t), j0b = j0 - j0 % XLARUN_K_KEY_BLOCK;
    if (ja >= jb) return;
    for (g = 0; g < nq; g += 4)
        for (j = ja - ja % XLARUN_K_KEY_BLOCK; j < jb; j += XLARUN_K_KEY_BLOCK) {
            const unsigned char *kd = kt + XLARUN_K_KEY_AT(ring ? j % ring : j, 0, hd) * es;
            float *sr = scores + g * lds + (j - j0b);
            if (nq - g >= 4) xlarun_k__qk(t, q + g * hd, hd, kd, scale, sr, lds, 4);
            else if (nq - g == 3) xlarun_k__qk(t, q + g * hd, hd, kd, scale, sr, lds, 3);
            else if (nq - g == 2) xlarun_k__qk(t, q + g * hd, hd, kd, scale, sr, lds, 2);
            else xlarun_k__qk(t, q + g * hd, hd, kd, scale, sr, lds, 1);
        }
}

XLARUN_K__FN void xlarun_k_attend_qk_simd(xlarun_k_type t, const float *q, size_t nq, const void *kt, size_t ring,
                                          size_t j0, size_t ja, size_t jb, size_t hd, float scale, float *scores,
                                          size_t lds) {
    const unsigned char *kp = (const unsigned char *)kt;
    if (t == XLARUN_K_BF16) xlarun_k__qk_t(XLARUN_K_BF16, q, nq, kp, ring, j0, ja, jb, hd, scale, scores, lds);
    else if (t == XLARUN_K_F16) xlarun_k__qk_t(XLARUN_K_F16, q, nq, kp, ring, j0, ja, jb, hd, scale, scores, lds);
    else xlarun_k__qk_t(XLARUN_K_F32, q, nq, kp, ring, j0, ja, jb, hd, scale, scores, lds);
}

/* out of NG (1..4) queries for dimensions d0..d1-1: passes of XA_DB whole vectors, then one of
   the vectors left (m lanes in the last) */
XLARUN_K__AI void xlarun_k__pv_g(xlarun_k_type t, const float *p, size_t lds, const unsigned char *v, size_t hd,
                                 size_t ring, size_t j0, size_t n_keys, size_t d0, size_t d1, float *out, int NG) {
    size_t rest;
    for (; d0 + XA_DB * XK_VL <= d1; d0 += XA_DB * XK_VL)
        xlarun_k__pv(t, p, lds, v, hd, ring, j0, n_keys, d0, XK_VL, out, NG, XA_DB);
    rest = d1 - d0; /* fewer than XA_DB vectors: nb of them, m lanes in the last */
    if (rest) {
        size_t nb = (rest + XK_VL - 1) / XK_VL, m = rest - (nb - 1) * XK_VL;
#if XA_DB > 2
        if (nb == 4) xlarun_k__pv(t, p, lds, v, hd, ring, j0, n_keys, d0, m, out, NG, 4);
        else if (nb == 3) xlarun_k__pv(t, p, lds, v, hd, ring, j0, n_keys, d0, m, out, NG, 3);
        else
#endif
        if (nb == 2) xlarun_k__pv(t, p, lds, v, hd, ring, j0, n_keys, d0, m, out, NG, 2);
        else xlarun_k__pv(t, p, lds, v, hd, ring, j0, n_keys, d0, m, out, NG, 1);
    }
}
#undef XA_DB

XLARUN_K__AI void xlarun_k__pv_t(xlarun_k_type t, const float *p, size_t nq, size_t lds, const unsigned char *v,
                                 size_t ring, size_t j0, size_t n_keys, size_t hd, size_t d0, size_t d1, float *out) {
    size_t g;
    for (g = 0; g < nq; g += 4) {
        const float *pg = p + g * lds;
        float *og = out + g * hd;
        if (nq - g >= 4) xlarun_k__pv_g(t, pg, lds, v, hd, ring, j0, n_keys, d0, d1, og, 4);
        else if (nq - g == 3) xlarun_k__pv_g(t, pg, lds, v, hd, ring, j0, n_keys, d0, d1, og, 3);
        else if (nq - g == 2) xlarun_k__pv_g(t, pg, lds, v, hd, ring, j0, n_keys, d0, d1, og, 2);
        else xlarun_k__pv_g(t, pg, lds, v, hd, ring, j0, n_keys, d0, d1, og, 1);
    }
}

XLARUN_K__FN void xlarun_k_attend_pv_simd(xlarun_k_type t, const float *p, size_t nq, size_t lds, const void *v,
                                          size_t ring, size_t j0, size_t n_keys, size_t hd, size_t d0, size_t d1,
                                          float *out) {
    const unsigned char *vp = (const unsigned char *)v;
    if (t == XLARUN_K_BF16) xlarun_k__pv_t(XLARUN_K_BF16, p, nq, lds, vp, ring, j0, n_keys, hd, d0, d1, out);
    else if (t == XLARUN_K_F16) xlarun_k__pv_t(XLARUN_K_F16, p, nq, lds, vp, ring, j0, n_keys, hd, d0, d1, out);
    else xlarun_k__pv_t(XLARUN_K_F32, p, nq, lds, vp, ring, j0, n_keys, hd, d0, d1, out);
}
#endif

XLARUN_K__FN void xlarun_k_attend_qk(xlarun_k_type t, const float *q, size_t nq, const void *kt, size_t ring, size_t j0,
                                     size_t ja, size_t jb, size_t hd, float scale, float *scores, size_t lds) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_attend_qk_simd(t, q, nq, kt, ring, j0, ja, jb, hd, scale, scores, lds);
#else
    xlarun_k_attend_qk_ref(t, q, nq, kt, ring, j0, ja, jb, hd, scale, scores, lds);
#endif
}

XLARUN_K__FN void xlarun_k_attend_pv(xlarun_k_type t, const float *p, size_t nq, size_t lds, const void *v, size_t ring,
                                     size_t j0, size_t n_keys, size_t hd, size_t d0, size_t d1, float *out) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_attend_pv_simd(t, p, nq, lds, v, ring, j0, n_keys, hd, d0, d1, out);
#else
    xlarun_k_attend_pv_ref(t, p, nq, lds, v, ring, j0, n_keys, hd, d0, d1, out);
#endif
}

/* attend from its halves: simd selects the variant of each (qk, softmax, pv) */
XLARUN_K__AI void xlarun_k__attend(int simd, xlarun_k_type t, const float *q, size_t nq, const void *kt, const void *v,
                                   size_t ring, size_t j0, size_t n_keys, size_t hd, float scale, float cap,
                                   float *scores, size_t lds, float *out) {
    size_t g, o = j0 % XLARUN_K_KEY_BLOCK; /* the row's first probability */
    (void)simd; /* scalar builds have only the _ref halves */
    if (j0 >= n_keys) {
        for (g = 0; g < nq * hd; g++) out[g] = 0.0f;
        return;
    }
#if defined(XLARUN_K__SIMD)
    if (simd) xlarun_k_attend_qk_simd(t, q, nq, kt, ring, j0, j0, n_keys, hd, scale, scores, lds);
    else
#endif
    xlarun_k_attend_qk_ref(t, q, nq, kt, ring, j0, j0, n_keys, hd, scale, scores, lds);
    for (g = 0; g < nq; g++) {
        if (cap > 0.0f) xlarun_k_softcap(scores + g * lds + o, n_keys - j0, cap);
#if defined(XLARUN_K__SIMD)
        if (simd) xlarun_k_softmax_simd(scores + g * lds + o, n_keys - j0);
        else
#endif
        xlarun_k_softmax_ref(scores + g * lds + o, n_keys - j0);
    }
#if defined(XLARUN_K__SIMD)
    if (simd) xlarun_k_attend_pv_simd(t, scores, nq, lds, v, ring, j0, n_keys, hd, 0, hd, out);
    else
#endif
    xlarun_k_attend_pv_ref(t, scores, nq, lds, v, ring, j0, n_keys, hd, 0, hd, out);
}

XLARUN_K__FN void xlarun_k_attend_ref(xlarun_k_type t, const float *q, size_t nq, const void *kt, const void *v,
                                      size_t ring, size_t j0, size_t n_keys, size_t hd, float scale, float cap,
                                      float *scores, size_t lds, float *out) {
    xlarun_k__attend(0, t, q, nq, kt, v, ring, j0, n_keys, hd, scale, cap, scores, lds, out);
}

#if defined(XLARUN_K__SIMD)
XLARUN_K__FN void xlarun_k_attend_simd(xlarun_k_type t, const float *q, size_t nq, const void *kt, const void *v,
                                       size_t ring, size_t j0, size_t n_keys, size_t hd, float scale, float cap,
                                       float *scores, size_t lds, float *out) {
    xlarun_k__attend(1, t, q, nq, kt, v, ring, j0, n_keys, hd, scale, cap, scores, lds, out);
}
#endif

XLARUN_K__FN void xlarun_k_attend(xlarun_k_type t, const float *q, size_t nq, const void *kt, const void *v, size_t ring,
                                  size_t j0, size_t n_keys, size_t hd, float scale, float cap, float *scores, size_t lds,
                                  float *out) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_attend_simd(t, q, nq, kt, v, ring, j0, n_keys, hd, scale, cap, scores, lds, out);
#else
    xlarun_k_attend_ref(t, q, nq, kt, v, ring, j0, n_keys, hd, scale, cap, scores, lds, out);
#endif
}

/* ======================================================================================
   silu_mul: g[i] = g[i] / (1 + e^-g[i]) * u[i]   (torch's silu, then the product)
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_silu_mul_ref(float *g, const float *u, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        float s = g[i] / (1.0f + expf(-g[i]));
        g[i] = s * u[i];
    }
}

#if defined(XLARUN_K__SIMD)
XLARUN_K__AI xlarun_k__v xlarun_k__silu_mulv(xlarun_k__v g, xlarun_k__v u) {
    xlarun_k__v e = xlarun_k__expv(XK_SUB(XK_ZERO(), g));
    return XK_MUL(XK_DIV(g, XK_ADD(XK_SET1(1.0f), e)), u);
}
XLARUN_K__FN void xlarun_k_silu_mul_simd(float *g, const float *u, size_t n) {
    size_t i;
    for (i = 0; i + XK_VL <= n; i += XK_VL) XK_STORE(g + i, xlarun_k__silu_mulv(XK_LOAD(g + i), XK_LOAD(u + i)));
    if (i < n) {
        xlarun_k__v r = xlarun_k__silu_mulv(xlarun_k__load_part(g + i, n - i, 0.0f),
                                            xlarun_k__load_part(u + i, n - i, 0.0f));
        xlarun_k__store_part(g + i, r, n - i);
    }
}
#endif

XLARUN_K__FN void xlarun_k_silu_mul(float *g, const float *u, size_t n) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_silu_mul_simd(g, u, n);
#else
    xlarun_k_silu_mul_ref(g, u, n);
#endif
}

/* ======================================================================================
   gelu_mul: g[i] = gelu_tanh(g[i]) * u[i], GELU in its tanh form (torch's approximate="tanh",
   transformers' gelu_pytorch_tanh):  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
   Reference: that formula with libm tanhf, as torch writes it. SIMD: the same function as
   x / (1 + e^(-2 inner)) (0.5 (1 + tanh y) = 1 / (1 + e^-2y)) on xlarun_k__expv.
   ====================================================================================== */
#define XLARUN_K__GELU_BETA 0.7978845608028654f   /* sqrt(2/pi) */
#define XLARUN_K__GELU_KAPPA 0.044715f
XLARUN_K__FN void xlarun_k_gelu_mul_ref(float *g, const float *u, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        float x = g[i], inner = XLARUN_K__GELU_BETA * (x + XLARUN_K__GELU_KAPPA * (x * x * x));
        g[i] = 0.5f * x * (1.0f + tanhf(inner)) * u[i];
    }
}

#if defined(XLARUN_K__SIMD)
XLARUN_K__AI xlarun_k__v xlarun_k__gelu_mulv(xlarun_k__v x, xlarun_k__v u) {
    xlarun_k__v x3 = XK_MUL(XK_MUL(x, x), x);
    xlarun_k__v inner = XK_MUL(XK_SET1(XLARUN_K__GELU_BETA), XK_ADD(x, XK_MUL(XK_SET1(XLARUN_K__GELU_KAPPA), x3)));
    xlarun_k__v e = xlarun_k__expv(XK_MUL(XK_SET1(-2.0f), inner));
    return XK_MUL(XK_DIV(x, XK_ADD(XK_SET1(1.0f), e)), u);
}
XLARUN_K__FN void xlarun_k_gelu_mul_simd(float *g, const float *u, size_t n) {
    size_t i;
    for (i = 0; i + XK_VL <= n; i += XK_VL) XK_STORE(g + i, xlarun_k__gelu_mulv(XK_LOAD(g + i), XK_LOAD(u + i)));
    if (i < n) {
        xlarun_k__v r = xlarun_k__gelu_mulv(xlarun_k__load_part(g + i, n - i, 0.0f),
                                            xlarun_k__load_part(u + i, n - i, 0.0f));
        xlarun_k__store_part(g + i, r, n - i);
    }
}
#endif

XLARUN_K__FN void xlarun_k_gelu_mul(float *g, const float *u, size_t n) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_gelu_mul_simd(g, u, n);
#else
    xlarun_k_gelu_mul_ref(g, u, n);
#endif
}

/* ======================================================================================
   add: y[i] += x[i] (exact same bits in every variant)
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_add_ref(float *y, const float *x, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) y[i] += x[i];
}

#if defined(XLARUN_K__SIMD)
XLARUN_K__FN void xlarun_k_add_simd(float *y, const float *x, size_t n) {
    size_t i;
    for (i = 0; i + XK_VL <= n; i += XK_VL) XK_STORE(y + i, XK_ADD(XK_LOAD(y + i), XK_LOAD(x + i)));
    for (; i < n; i++) y[i] += x[i];
}
#endif

XLARUN_K__FN void xlarun_k_add(float *y, const float *x, size_t n) {
#if defined(XLARUN_K__SIMD)
    xlarun_k_add_simd(y, x, n);
#else
    xlarun_k_add_ref(y, x, n);
#endif
}

/* ======================================================================================
   argmax: the FIRST index of the maximum, as torch.argmax (a NaN counts as the maximum: the
   first NaN's index is returned). n must be > 0 (n == 0 returns 0). Scalar in every build.
   ====================================================================================== */
XLARUN_K__FN size_t xlarun_k_argmax_ref(const float *x, size_t n) {
    size_t i, best = 0;
    if (n == 0) return 0;
    if (x[0] != x[0]) return 0;
    for (i = 1; i < n; i++) {
        if (x[i] != x[i]) return i;
        if (x[i] > x[best]) best = i;
    }
    return best;
}

XLARUN_K__FN size_t xlarun_k_argmax(const float *x, size_t n) { return xlarun_k_argmax_ref(x, n); }

/* ======================================================================================
   OPT-IN LOWER PRECISION (the default executor does not use these): rounding f32 activations
   to bf16 so that a bf16 dot instruction can be used: AVX512-BF16 vdpbf16ps, or the Arm BF16
   extension's BFDOT. This loses about 3 significant digits of each activation; results differ
   from the f32-activation path.
     f32_to_bf16_row: dst[i] = bf16(x[i]), round to nearest even. The __AVX512BF16__ path uses
       vcvtneps2bf16, which treats subnormal inputs as zero (the other paths keep them).
     dot_bf16_bf16: sum of bf16(w[k]) * bf16(x[k]). Reference: f32, sequential. With a bf16 dot
       instruction (XLARUN_K_HAS_BF16_DOT): XB_VL pairs per step into one vector accumulator
       (vdpbf16ps: 32 pairs, 16 lanes; BFDOT: 8 pairs, 4 lanes; each instruction sums its pairs
       with its own rounding and flushes subnormals), zero-padded tail, xlarun_k__hsum. Other
       SIMD: both widened, the canonical dot reduction.
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_f32_to_bf16_row_ref(const float *x, uint16_t *dst, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) dst[i] = xlarun_k_f32_to_bf16(x[i]);
}

#if defined(XLARUN_K__AVX512) && defined(__AVX512BF16__)
XLARUN_K__FN void xlarun_k_f32_to_bf16_row_simd(const float *x, uint16_t *dst, size_t n) {
    size_t i;
    for (i = 0; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(x + i)));
    for (; i < n; i++) dst[i] = xlarun_k_f32_to_bf16(x[i]);
}
#endif

XLARUN_K__FN void xlarun_k_f32_to_bf16_row(const float *x, uint16_t *dst, size_t n) {
#if defined(XLARUN_K__AVX512) && defined(__AVX512BF16__)
    xlarun_k_f32_to_bf16_row_simd(x, dst, n);
#else
    xlarun_k_f32_to_bf16_row_ref(x, dst, n);
#endif
}

XLARUN_K__FN float xlarun_k_dot_bf16_bf16_ref(const uint16_t *w, const uint16_t *x, size_t n) {
    const unsigned char *p = (const unsigned char *)w, *q = (const unsigned char *)x;
    float s = 0.0f;
    size_t k;
    for (k = 0; k < n; k++) {
        float pr = xlarun_k_bf16_to_f32(xlarun_k__ldh(p + 2 * k)) * xlarun_k_bf16_to_f32(xlarun_k__ldh(q + 2 * k));
        XLARUN_K__KEEP(pr);
        s += pr;
    }
    return s;
}

/* the bf16 dot instruction, one vector step: XB_VL bf16 pairs into the lanes of an f32 vector */
#if defined(XLARUN_K__AVX512) && defined(__AVX512BF16__)
#define XLARUN_K_HAS_BF16_DOT 1
#define XB_VL 32
typedef __m512i xlarun_k__bvec;
#define XB_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define XB_DOT(acc, w, x) _mm512_dpbf16_ps(acc, (__m512bh)(w), (__m512bh)(x))
#elif defined(XLARUN_K__NEON) && defined(__ARM_FEATURE_BF16_VECTOR_ARITHMETIC)
#define XLARUN_K_HAS_BF16_DOT 1
#define XB_VL 8
typedef bfloat16x8_t xlarun_k__bvec;
#define XB_LOAD(p) vreinterpretq_bf16_u16(vld1q_u16(p))
#define XB_DOT(acc, w, x) vbfdotq_f32(acc, w, x)
#endif

#if defined(XLARUN_K_HAS_BF16_DOT)
/* XB_VL values from p + k, zero-padded past n */
XLARUN_K__AI xlarun_k__bvec xlarun_k__bf16_block(const uint16_t *p, size_t k, size_t n) {
    uint16_t b[XB_VL];
    if (k + XB_VL <= n) return XB_LOAD(p + k);
    memset(b, 0, sizeof b);
    memcpy(b, p + k, (n - k) * 2);
    return XB_LOAD(b);
}

/* a step's values: a plain load, or (tail) the padded block; no ?: (clang refuses it on Arm's
   bf16 vector type) */
XLARUN_K__AI xlarun_k__bvec xlarun_k__bget(const uint16_t *p, size_t k, size_t n, int tail) {
    if (tail) return xlarun_k__bf16_block(p, k, n);
    return XB_LOAD(p + k);
}

/* one row: the canonical reduction; ahead > 0 prefetches w that many bytes on, once a line */
XLARUN_K__AI float xlarun_k__bdot1(const uint16_t *w, const uint16_t *x, size_t n, size_t ahead) {
    xlarun_k__v a = XK_ZERO();
    size_t k;
    for (k = 0; k < n; k += XB_VL) {
        if (ahead && ((k * 2) & 63) == 0) XLARUN_K__PREFETCH(w, ahead + k * 2);
        a = XB_DOT(a, xlarun_k__bf16_block(w, k, n), xlarun_k__bf16_block(x, k, n));
    }
    return xlarun_k__hsum(a);
}

XLARUN_K__FN float xlarun_k_dot_bf16_bf16_simd(const uint16_t *w, const uint16_t *x, size_t n) {
    return xlarun_k__bdot1(w, x, n, 0);
}
#elif defined(XLARUN_K__SIMD)
XLARUN_K__FN float xlarun_k_dot_bf16_bf16_simd(const uint16_t *w, const uint16_t *x, size_t n) {
    const unsigned char *p = (const unsigned char *)w, *q = (const unsigned char *)x;
    xlarun_k__v a = XK_ZERO();
    size_t k;
    for (k = 0; k + XK_VL <= n; k += XK_VL)
        a = XK_FMA(xlarun_k__load_bf16(p + 2 * k), xlarun_k__load_bf16(q + 2 * k), a);
    if (k < n) {
        unsigned char wp[XK_VL * 4], xp[XK_VL * 4];
        xlarun_k__pad_w(wp, p + 2 * k, (n - k) * 2);
        xlarun_k__pad_w(xp, q + 2 * k, (n - k) * 2);
        a = XK_FMA(xlarun_k__load_bf16(wp), xlarun_k__load_bf16(xp), a);
    }
    return xlarun_k__hsum(a);
}
#endif

XLARUN_K__FN float xlarun_k_dot_bf16_bf16(const uint16_t *w, const uint16_t *x, size_t n) {
#if defined(XLARUN_K__SIMD)
    return xlarun_k_dot_bf16_bf16_simd(w, x, n);
#else
    return xlarun_k_dot_bf16_bf16_ref(w, x, n);
#endif
}

/* ======================================================================================
   matmul_bf16x (opt-in, lower precision): Y[i*ldy + r] = dot_bf16_bf16(W row r, Xb row i, K)
   for r in [r0, r1), i < n. W: bf16 rows of K elements (any alignment); Xb: activations already
   rounded to bf16 (xlarun_k_f32_to_bf16_row), row stride ldx elements. Every element is
   bit-identical to xlarun_k_dot_bf16_bf16 of the same build, however rows and tokens are split.
   XLARUN_K_HAS_BF16_DOT says whether this build has a bf16 dot instruction (AVX512_BF16
   vdpbf16ps, Arm BF16 BFDOT); without one the path is correct but no faster than the exact one.
   tiles: NULL, or (XLARUN_K_BAMX builds, once the OS granted the tile state) this thread's
   xlarun_k_btiles_bytes(K, n) bytes of scratch: then every n runs on AMX-BF16 tiles, in the
   tiles' order (below), with bits of its own that are again the same however rows and tokens
   are split. xlarun_k_btiles_bytes is 0 where XLARUN_K_BAMX is not defined.
   ====================================================================================== */
#if defined(XLARUN_K_HAS_BF16_DOT)
/* 4 rows x 4 tokens, accumulator a<r><j> for row r, token j; each token's step is loaded once and
   pinned in a register; T: the step may be the zero-padded tail */
#define XB_TOK(M, r) M(r, 0) M(r, 1) M(r, 2) M(r, 3)
#define XB_ALL(M) XB_TOK(M, 0) XB_TOK(M, 1) XB_TOK(M, 2) XB_TOK(M, 3)
#define XB_DECL(r, j) xlarun_k__v a##r##j = XK_ZERO();
#define XB_OUT(r, j) out[4 * j + r] = xlarun_k__hsum(a##r##j);
#define XB_GET(p, T) xlarun_k__bget(p, k, K, T)
#define XB_X(j, T) xlarun_k__bvec x##j = XB_GET(xs[j], T); XK_PIN(x##j);
#define XB_PAIR(r, j) a##r##j = XB_DOT(a##r##j, wv, x##j);
#define XB_ROW(r, T) wv = XB_GET(w##r, T); XB_TOK(XB_PAIR, r)
#define XB_STEP(T)                                                                             \
    do {                                                                                       \
        xlarun_k__bvec wv;                                                                     \
        XB_X(0, T) XB_X(1, T) XB_X(2, T) XB_X(3, T)                                            \
        XB_ROW(0, T) XB_ROW(1, T) XB_ROW(2, T) XB_ROW(3, T)                                    \
    } while (0)
XLARUN_K__AI void xlarun_k__bx_tile(const uint16_t *w0, const uint16_t *w1, const uint16_t *w2,
                                    const uint16_t *w3, const uint16_t *const *xs, size_t K, float *out) {
    size_t k;
    XB_ALL(XB_DECL)
    for (k = 0; k + XB_VL <= K; k += XB_VL) XB_STEP(0);
    if (k < K) XB_STEP(1);
#if defined(XLARUN_K__AVX512)
    XLARUN_K__OUT4X4(out);
#else
    XB_ALL(XB_OUT)
#endif
}
#undef XB_TOK
#undef XB_ALL
#undef XB_DECL
#undef XB_OUT
#undef XB_GET
#undef XB_X
#undef XB_PAIR
#undef XB_ROW
#undef XB_STEP

/* row i of S runs `run` bytes apart (w: run 0's row) into out[s * ldo], each run's row with its
   own accumulator and xlarun_k__bdot1's steps, prefetching `ahead` bytes on; S a constant after
   inlining */
XLARUN_K__AI void xlarun_k__bdots(const unsigned char *w, size_t run, const uint16_t *x, size_t K, size_t ahead,
                                  const size_t S, float *out, size_t ldo) {
    xlarun_k__v a[XLARUN_K_MAX_STREAMS];
    size_t k, s;
    XLARUN_K__EACH_RUN(s, S) a[s] = XK_ZERO();
    for (k = 0; k + XB_VL <= K; k += XB_VL) { /* whole steps, then the last: a tail test in the loop
                                                 kept GCC from holding a[] in registers (half the rate) */
        xlarun_k__bvec xv = xlarun_k__bget(x, k, K, 0);
        if (((k * 2) & 63) == 0)
            XLARUN_K__EACH_RUN(s, S) XLARUN_K__RUN_PREFETCH(w + s * run, k * 2, ahead, xlarun_k__l2(S), 0);
        XLARUN_K__EACH_RUN(s, S) a[s] = XB_DOT(a[s], xlarun_k__bget((const uint16_t *)(const void *)(w + s * run), k, K, 0), xv);
    }
    if (k < K) {
        xlarun_k__bvec xv = xlarun_k__bget(x, k, K, 1);
        XLARUN_K__EACH_RUN(s, S) a[s] = XB_DOT(a[s], xlarun_k__bget((const uint16_t *)(const void *)(w + s * run), k, K, 1), xv);
    }
    XLARUN_K__EACH_RUN(s, S) out[s * ldo] = xlarun_k__hsum(a[s]);
}
#endif

/* ======================================================================================
   gemv_bf16x: the decode GEMV of matmul_bf16x (n == 1, no tiles), y[r] = dot_bf16_bf16(W row
   r, Xb, K) for r in [r0, r1), reading `streams` runs of rows at once as xlarun_k_gemv does
   (1, 2, 4 or 8; the same bits whatever it is). One stream reads a row at a time, prefetching
   8 rows on; several prefetch a little ahead each (xlarun_k__ahead). Without a bf16 dot
   instruction streams is ignored.
   Why: on the AMD EPYC family 25 model 17 (Zen 4, 2 threads) one stream read 30 GB/s of a
   decode where the exact path's two streams read 44-48 (tools/README.md).
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_gemv_bf16x(const void *W, size_t K, size_t r0, size_t r1, const uint16_t *Xb, float *y,
                                      int streams) {
    const unsigned char *Wb = (const unsigned char *)W;
    size_t rs = K * 2, r = 0;
#if defined(XLARUN_K_HAS_BF16_DOT)
    size_t nrows = r1 > r0 ? r1 - r0 : 0, S = (size_t)xlarun_k__streams(streams), L = nrows / S;
    Wb += r0 * rs;
    y += r0;
    for (; S > 1 && r < L; r++) {
        if (S == 2) xlarun_k__bdots(Wb + r * rs, L * rs, Xb, K, xlarun_k__ahead(2, rs), 2, y + r, L);
        else if (S == 4) xlarun_k__bdots(Wb + r * rs, L * rs, Xb, K, xlarun_k__ahead(4, rs), 4, y + r, L);
        else xlarun_k__bdots(Wb + r * rs, L * rs, Xb, K, xlarun_k__ahead(8, rs), 8, y + r, L);
    }
    for (r = S > 1 ? S * L : 0; r < nrows; r++) y[r] = xlarun_k__bdot1((const uint16_t *)(const void *)(Wb + r * rs), Xb, K, 8 * rs);
#else
    (void)streams;
    for (r = r0; r < r1; r++) y[r] = xlarun_k_dot_bf16_bf16((const uint16_t *)(const void *)(Wb + r * rs), Xb, K);
#endif
}

/* ---- AMX helpers shared by the bf16 and int8 tile kernels: the tile configuration (palette 1)
   and a 16 x 16 dword transpose ---- */
#if defined(XLARUN_K__AVX512) && defined(__AMX_TILE__)
typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} xlarun_k__tilecfg;

/* 16 x 16 dword transpose: o[j] lane i = r[i] lane j */
XLARUN_K__AI void xlarun_k__tr16(const __m512i *r, __m512i *o) {
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
        o[j] = _mm512_shuffle_i32x4(v, w, 0x88);
        o[8 + j] = _mm512_shuffle_i32x4(v, w, 0xDD);
        o[4 + j] = _mm512_shuffle_i32x4(v1, w1, 0x88);
        o[12 + j] = _mm512_shuffle_i32x4(v1, w1, 0xDD);
    }
}

#endif

/* ---- AMX: Intel AMX-BF16 tiles for matmul_bf16x and matmul_amx3 (every n, decode included) ----
   Built where the compiler targets AMX-TILE and AMX-BF16 on top of the AVX512_BF16 variant
   (XLARUN_K_BAMX), and used only when the caller passes per-thread scratch
   (xlarun_k_btiles_bytes, xlarun_k_etiles_bytes), i.e. after the kernel granted this process
   the tile state.
   Layout: C^T = W X^T. A tile: 16 weight rows x 32 bf16 of K, loaded straight from W (stride
   K * 2 bytes); B tile: 16 pairs of K x 16 columns x 2 bf16, a column a token (matmul_bf16x)
   or one of a token's three parts (matmul_amx3: 5 tokens a group), the activations repacked
   (16 x 16 dword transposes) either by the call into its own scratch or, with
   xlarun_k_bamx_pack and xlarun_k_matmul_bamx, once for all threads, each packing some token
   groups (16 threads repacking a chunk each took about 30% of the prefill: tools/README.md,
   "Sixteen cores"); C tile: 16 rows x 16 columns in
   f32, transposed into Y at the end. Register tiles 2 x 2 (tmm0-3 C, tmm4/5 A, tmm6/7 B); one
   token group (decode) runs one A tile at a time with B and C narrowed to its columns. K is
   cut into blocks whose B fits in about 1 MB of L2 (XBA_B_L2); when there are several, the C tiles of XBA_RB rows go through scratch between blocks (exact f32 stores).
   ORDER (what the bits are): per output, C = 0, then for each step s of 32 elements of K in
   order (the last zero-padded): C = TDPBF16PS(C, W row[32s..32s+31], x[32s..32s+31]); where
   W's rows all start d elements past a 64-byte line, the steps are the windows
   [32s - d, 32s - d + 32), zero outside the row (WINDOWS, in xlarun_k_matmul_bamx). Measured
   on the Xeon family 6 model 207 (tools/amx/README.md, "bf16 rounding"): one pair gives
   C + round(p0 + p1), but a step's 32 products are summed by the tile unit in an order of its
   own before one rounded add to C (of simple f32 models, round(C + round(exact sum)) comes
   closest and still differs in 1.6% of 4-product sums); subnormal inputs read as zero, subnormal
   results flush to zero. That sum cannot be reproduced cheaply with vdpbf16ps, so where tiles
   are granted decode (n = 1) runs these same tiles: every output element depends only on its
   row, its token and the step sequence, so any n, r0, r1 give the same bits (threads, prefill ==
   decode). Without tiles the vdpbf16ps order above holds, with its own bits. */
#if defined(XLARUN_K__AVX512) && defined(__AVX512BF16__) && defined(__AMX_TILE__) && defined(__AMX_BF16__)
#define XLARUN_K_BAMX 1 /* the AMX-BF16 GEMM is built (used when the caller passes tile scratch) */
#define XBA_RB 128                  /* rows whose C tiles wait in scratch between K blocks */
#define XBA_B_L2 ((size_t)1 << 20)  /* bytes of repacked activations one K block holds */

/* scratch, 64-byte aligned: the work area (tile config 64 | C staging 4 x 1 KB | A staging 2 KB
   | C between K blocks XBA_RB / 16 x G x 1 KB), then, where the call packs its own activations,
   B: G groups x ceil(K/32) + 1 steps x 1 KB (+ 1: a shifted window's extra step), where a group
   is 16 tokens of bf16 activations or 5 of f32 ones in three parts (xlarun_k_matmul_amx3) */
XLARUN_K__AI size_t xlarun_k__bamx_groups(size_t n, int parts) { return parts == 3 ? (n + 4) / 5 : (n + 15) / 16; }
XLARUN_K__AI size_t xlarun_k__bamx_work(size_t g) { return 64 + 64 + 4096 + 2048 + XBA_RB / 16 * g * 1024; }
XLARUN_K__FN size_t xlarun_k_bamx_pack_bytes(size_t K, size_t n, int parts) {
    return xlarun_k__bamx_groups(n, parts) * ((K + 31) / 32 + 1) * 1024;
}
XLARUN_K__FN size_t xlarun_k_bamx_work_bytes(size_t n, int parts) { return xlarun_k__bamx_work(xlarun_k__bamx_groups(n, parts)); }
XLARUN_K__FN size_t xlarun_k_btiles_bytes(size_t K, size_t n) { return xlarun_k_bamx_work_bytes(n, 1) + xlarun_k_bamx_pack_bytes(K, n, 1); }
XLARUN_K__FN size_t xlarun_k_etiles_bytes(size_t K, size_t n) { return xlarun_k_bamx_work_bytes(n, 3) + xlarun_k_bamx_pack_bytes(K, n, 3); }
/* the window offset of W's steps (WINDOWS, in xlarun_k_matmul_bamx): activations packed for one
   matrix serve every matrix with the same K and the same offset */
XLARUN_K__FN size_t xlarun_k_bamx_window(const void *W, size_t K) {
    return (K % 32 == 0 && !((uintptr_t)W & 1)) ? ((uintptr_t)W & 63) / 2 : 0;
}

/* Step s of a row of K elements is the window [32s - d, 32s - d + 32), d < 32 (see WINDOWS below):
   its mask of elements inside the row, and its address (formed as an integer: for s = 0 it is
   below the row, where the masked-out elements are never read) */
XLARUN_K__AI __mmask32 xlarun_k__bamx_mask(size_t K, size_t d, size_t s) {
    size_t lo = 32 * s < d ? d - 32 * s : 0, hi = K + d - 32 * s; /* elements [lo, hi) of the window */
    __mmask32 m = hi >= 32 ? ~(__mmask32)0 : (__mmask32)((1u << hi) - 1u);
    return (__mmask32)(m & ~(__mmask32)((1u << lo) - 1u));
}
XLARUN_K__AI const void *xlarun_k__bamx_at(const uint16_t *row, size_t d, size_t s) {
    return (const void *)((uintptr_t)row + 64 * s - 2 * d);
}
/* one step of B, transposed: 16 rows of cb bytes from dst (cb = 64, or the columns in use when
   there is one group, so that a decode step's B is one line or a few, not 1 KB) */
XLARUN_K__AI void xlarun_k__bamx_put(const __m512i *out, unsigned char *dst, size_t cb) {
    size_t j;
    for (j = 0; j < 16; j++)
        if (cb == 64) _mm512_storeu_si512((void *)(dst + 64 * j), out[j]); /* B may sit anywhere */
        else _mm512_mask_storeu_epi32((void *)(dst + cb * j), (__mmask16)((1u << (cb / 4)) - 1u), out[j]);
}
/* B: group g, step s at xb + (g * S + s) * 16 cb: row kk holds, for tokens 16g .. 16g + 15, the
   pair 2kk, 2kk + 1 of the step's window (elements 32s - d + 2kk, + 1; tokens past n and
   elements outside the row: 0) */
XLARUN_K__AI void xlarun_k__bamx_pack(const uint16_t *Xb, size_t ldx, size_t n, size_t K, size_t d, size_t cb, size_t g0,
                                      size_t g1, unsigned char *xb) {
    size_t S = (K + d + 31) / 32, g, s, j;
    __m512i in[16], out[16];
    for (g = g0; g < g1; g++)
        for (s = 0; s < S; s++) {
            __mmask32 mk = xlarun_k__bamx_mask(K, d, s);
            for (j = 0; j < 16; j++)
                in[j] = 16 * g + j < n ? _mm512_maskz_loadu_epi16(mk, xlarun_k__bamx_at(Xb + (16 * g + j) * ldx, d, s))
                                       : _mm512_setzero_si512();
            xlarun_k__tr16(in, out);
            xlarun_k__bamx_put(out, xb + (g * S + s) * 16 * cb, cb);
        }
}

/* The f32 activations as three bf16 parts, packed like xlarun_k__bamx_pack's bf16 ones but with
   five tokens a group: column 3j + q of group g is part q of token 5g + j (column 15 and tokens
   past n: 0), so every part has a C column of its own and one TDPBF16PS serves all three (decode
   costs what the bf16-activation decode costs). Of 32 elements: hi = RNE(x), mid = RNE(x - hi),
   lo = RNE(x - hi - mid) (vcvtne2ps2bf16). Each difference is exact in f32 and a part takes 8 of
   x's 24 significant bits, so hi + mid + lo == x for every normal x; what vcvtne2ps2bf16 reads
   as zero (subnormal f32, below 1.2e-38) is lost, as the tiles lose subnormal bf16 inputs. */
XLARUN_K__AI void xlarun_k__bamx_pack3(const float *X, size_t ldx, size_t n, size_t K, size_t d, size_t cb, size_t g0,
                                       size_t g1, unsigned char *xb) {
    size_t S = (K + d + 31) / 32, g, s, j, q;
    __m512i in[16], out[16];
    for (g = g0; g < g1; g++)
        for (s = 0; s < S; s++) {
            __mmask32 mk = xlarun_k__bamx_mask(K, d, s);
            for (j = 0; j < 5; j++) {
                __m512 a = _mm512_setzero_ps(), b = _mm512_setzero_ps();
                if (5 * g + j < n) { /* the window's address as 2-byte elements, at 4 bytes each */
                    const float *x = (const float *)(const void *)((uintptr_t)(X + (5 * g + j) * ldx) + 128 * s - 4 * d);
                    a = _mm512_maskz_loadu_ps((__mmask16)mk, x);
                    b = _mm512_maskz_loadu_ps((__mmask16)(mk >> 16), x + 16);
                }
                for (q = 0; q < 3; q++) {
                    __m512i h = (__m512i)_mm512_cvtne2ps_pbh(b, a); /* a's 16 in the low half */
                    in[3 * j + q] = h;
                    a = _mm512_sub_ps(a, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(h)), 16)));
                    b = _mm512_sub_ps(b, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(h, 1)), 16)));
                }
            }
            in[15] = _mm512_setzero_si512();
            xlarun_k__tr16(in, out);
            xlarun_k__bamx_put(out, xb + (g * S + s) * 16 * cb, cb);
        }
}

/* A staging: rows pr .. pr + 31 of step s into ab (64 bytes a row), rows from nrows on and
   elements outside the row zero (an edge step, or a matrix of fewer than 16 rows) */
XLARUN_K__AI void xlarun_k__bamx_copy_a(const uint16_t *Wb, size_t K, size_t d, size_t pr, size_t nrows, size_t s, unsigned char *ab) {
    size_t m;
    __mmask32 mk = xlarun_k__bamx_mask(K, d, s);
    for (m = 0; m < 32; m++)
        _mm512_store_si512((void *)(ab + 64 * m), m < nrows ? _mm512_maskz_loadu_epi16(mk, xlarun_k__bamx_at(Wb + (pr + m) * K, d, s))
                                                            : _mm512_setzero_si512());
}

/* steps of na A tiles (a, a + 16 lda; a moves 64 bytes a step) by ng B tiles (b, b + bg, rows
   of cb bytes; b moves 16 cb a step) into C tile 2i + j */
XLARUN_K__AI void xlarun_k__bamx_steps(int na, int ng, const unsigned char *a, size_t lda, const unsigned char *b, size_t bg,
                                       size_t cb, size_t steps) {
    size_t s;
    const unsigned char *a1 = a + 16 * lda;
    if (na == 2 && ng == 2)
        for (s = 0; s < steps; s++, a += 64, a1 += 64, b += 16 * cb) {
            _tile_loadd(4, a, (long)lda);
            _tile_loadd(6, b, (long)cb);
            _tile_dpbf16ps(0, 4, 6);
            _tile_loadd(7, b + bg, (long)cb);
            _tile_dpbf16ps(1, 4, 7);
            _tile_loadd(5, a1, (long)lda);
            _tile_dpbf16ps(2, 5, 6);
            _tile_dpbf16ps(3, 5, 7);
        }
    else if (na == 2)
        for (s = 0; s < steps; s++, a += 64, a1 += 64, b += 16 * cb) {
            _tile_loadd(6, b, (long)cb);
            _tile_loadd(4, a, (long)lda);
            _tile_dpbf16ps(0, 4, 6);
            _tile_loadd(5, a1, (long)lda);
            _tile_dpbf16ps(2, 5, 6);
        }
    else if (ng == 2)
        for (s = 0; s < steps; s++, a += 64, b += 16 * cb) {
            _tile_loadd(4, a, (long)lda);
            _tile_loadd(6, b, (long)cb);
            _tile_dpbf16ps(0, 4, 6);
            _tile_loadd(7, b + bg, (long)cb);
            _tile_dpbf16ps(1, 4, 7);
        }
    else
        for (s = 0; s < steps; s++, a += 64, b += 16 * cb) {
            _tile_loadd(4, a, (long)lda);
            _tile_loadd(6, b, (long)cb);
            _tile_dpbf16ps(0, 4, 6);
        }
}

/* C tiles: zeroed (c == NULL) or loaded from c (tile 2i + j at c + (i * G + j) * 1024); stored
   to c in the same layout */
XLARUN_K__AI void xlarun_k__bamx_cload(int na, int ng, const unsigned char *c, size_t G) {
    if (!c) {
        _tile_zero(0);
        if (ng == 2) _tile_zero(1);
        if (na == 2) _tile_zero(2);
        if (na == 2 && ng == 2) _tile_zero(3);
        return;
    }
    _tile_loadd(0, c, 64);
    if (ng == 2) _tile_loadd(1, c + 1024, 64);
    if (na == 2) _tile_loadd(2, c + G * 1024, 64);
    if (na == 2 && ng == 2) _tile_loadd(3, c + G * 1024 + 1024, 64);
}
XLARUN_K__AI void xlarun_k__bamx_cstore(int na, int ng, unsigned char *c, size_t G) {
    _tile_stored(0, c, 64);
    if (ng == 2) _tile_stored(1, c + 1024, 64);
    if (na == 2) _tile_stored(2, c + G * 1024, 64);
    if (na == 2 && ng == 2) _tile_stored(3, c + G * 1024 + 1024, 64);
}

/* a staged C tile (16 rows x 16 columns) into Y: tokens t0 .. t0 + nt - 1, rows pr + [mlo, mhi);
   parts 1: a column a token; 3 (xlarun_k__bamx_pack3): token j's output is
   (part 0 + part 1) + part 2 of columns 3j .. 3j + 2 */
XLARUN_K__AI void xlarun_k__bamx_out(const unsigned char *c, size_t parts, size_t nt, size_t mlo, size_t mhi, float *Y, size_t ldy,
                                     size_t pr, size_t t0) {
    __m512i in[16], out[16];
    __mmask16 mk = (__mmask16)(((1u << mhi) - 1u) & ~((1u << mlo) - 1u));
    size_t m;
    for (m = 0; m < 16; m++) in[m] = _mm512_load_si512((const void *)(c + 64 * m));
    xlarun_k__tr16(in, out);
    for (m = 0; m < nt; m++) {
        __m512 y = _mm512_castsi512_ps(out[parts * m]);
        if (parts == 3)
            y = _mm512_add_ps(_mm512_add_ps(y, _mm512_castsi512_ps(out[3 * m + 1])), _mm512_castsi512_ps(out[3 * m + 2]));
        _mm512_mask_storeu_ps(Y + (t0 + m) * ldy + pr, mk, y);
    }
}

/* cb: bytes of a B and C tile row. One group (decode, short prompts) uses only the columns it
   fills: a decode step's B is then 64 bytes (12 for three parts), not 1 KB, and its A tiles go
   one at a time; both give the same bits (TDPBF16PS works element by element) and, on the Xeon
   family 6 model 207, took the tiles' decode from 0.88-0.96 to 1.00 of the exact GEMV
   (tools/README.md) */
XLARUN_K__AI size_t xlarun_k__bamx_cb(size_t n, int parts) { return xlarun_k__bamx_groups(n, parts) == 1 ? 4 * (size_t)parts * n : 64; }

/* B (xlarun_k_bamx_pack_bytes, any alignment: a session's memory is the caller's, 64-byte
   aligned for speed only) for token groups g0 .. g1 - 1 of n: Xb bf16
   activations (16 tokens a group), else X f32 ones in three parts (5 a group); for the matrices
   whose window offset is W's. Groups are independent, so threads can pack a shared B side by side. */
XLARUN_K__FN void xlarun_k_bamx_pack(const void *W, size_t K, const uint16_t *Xb, const float *X, size_t ldx, size_t n, size_t g0,
                                     size_t g1, void *B) {
    int parts = Xb ? 1 : 3;
    size_t G = xlarun_k__bamx_groups(n, parts), d = xlarun_k_bamx_window(W, K), cb = xlarun_k__bamx_cb(n, parts);
    if (g1 > G) g1 = G;
    if (g0 >= g1) return;
    if (Xb) xlarun_k__bamx_pack(Xb, ldx, n, K, d, cb, g0, g1, (unsigned char *)B);
    else xlarun_k__bamx_pack3(X, ldx, n, K, d, cb, g0, g1, (unsigned char *)B);
}

/* the GEMM on activations packed by xlarun_k_bamx_pack for W's window offset (B; parts 1: bf16
   ones, 3: f32 ones in three parts), with this thread's work area (xlarun_k_bamx_work_bytes(n,
   parts)): the same bits as the calls that pack their own (xlarun_k_matmul_bf16x, parts 1;
   xlarun_k_matmul_amx3, parts 3) */
XLARUN_K__FN void xlarun_k_matmul_bamx(const void *W, size_t K, size_t r0, size_t r1, const void *B, int parts, size_t n, float *Y,
                                       size_t ldy, void *work) {
    const uint16_t *Wb = (const uint16_t *)W;
    const unsigned char *xb = (const unsigned char *)B;
    /* WINDOWS. A safetensors file puts its data after a header of any length that is a multiple
       of 8 bytes, so in a mapped file the rows of a tensor usually start off 64-byte lines, and
       a tile row of 64 bytes then spans two. Where every row starts the same d elements past a
       line (K a multiple of 32, W at an even address), step s is the window
       [32s - d, 32s - d + 32) of the row: the middle steps load whole lines, the first and last
       are staged with the elements outside the row zeroed (the activations' windows likewise),
       so no byte outside the row enters a product. On the Xeon family 6 model 207, 40 bytes off
       as in bench's file, against the unshifted steps: decode 0.86-0.88 -> 1.00-1.04 of the
       exact GEMV, a 256-token GEMM over the 1B's cold matrices 1.12-1.15x (tools/README.md).
       The windows are the steps of the ORDER below: they depend only on W and K, so every n,
       r0, r1 still gives the same bits. */
    size_t d = xlarun_k_bamx_window(W, K);
    size_t tpg = parts == 3 ? 5 : 16, G = xlarun_k__bamx_groups(n, parts), S = (K + d + 31) / 32, s0 = d ? 1 : 0, Sf = (K + d) / 32;
    size_t cb = xlarun_k__bamx_cb(n, parts), Sc = XBA_B_L2 / 1024 / (G ? G : 1), rb, kb, p, g, j;
    unsigned char *base = (unsigned char *)(((uintptr_t)work + 63) & ~(uintptr_t)63);
    xlarun_k__tilecfg *cfg = (xlarun_k__tilecfg *)(void *)base;
    unsigned char *cst = base + 64, *ab = cst + 4096, *cacc = ab + 2048;
    if (r1 <= r0 || n == 0) return;
    if (Sc < 1) Sc = 1;
    memset(cfg, 0, sizeof *cfg);
    cfg->palette = 1;
    for (j = 0; j < 8; j++) { cfg->colsb[j] = (uint16_t)(j == 4 || j == 5 ? 64 : cb); cfg->rows[j] = 16; } /* tmm4/5: A */
    /* GCC 12 drops the stores above at -O2 unless it sees that ldtilecfg reads them */
    __asm__ __volatile__("" : : "r"(cfg) : "memory");
    _tile_loadconfig(cfg);
    for (rb = r0; rb < r1; rb += XBA_RB) {
        size_t re = r1 - rb < XBA_RB ? r1 : rb + XBA_RB;
        for (kb = 0; kb < S; kb += Sc) {
            /* steps kb .. ke - 1; loaded straight from W: fb .. fe - 1 (whole windows in the row) */
            size_t ke = S - kb < Sc ? S : kb + Sc, fe = ke < Sf ? ke : Sf, fb = kb > s0 ? kb : s0;
            for (p = rb; p < re;) {
                /* the panel: na tiles from row pr, rows [mlo, mhi) of each written; copy: every
                   step staged (fewer than 16 rows in the whole matrix) */
                size_t left = re - p, pr = p, mlo = 0, mhi = 16, nrows = left >= 32 && G > 1 ? 32 : 16;
                int na = left >= 32 && G > 1 ? 2 : 1, copy = 0;
                if (left < 16 && re >= 16) { pr = re - 16; mlo = 16 - left; }
                else if (left < 16) { copy = 1; mhi = left; nrows = left; }
                for (g = 0; g < G; g += 2) {
                    int ng = G - g >= 2 ? 2 : 1, i;
                    unsigned char *cs = cacc + ((p - rb) / 16 * G + g) * 1024;
                    xlarun_k__bamx_cload(na, ng, kb ? cs : NULL, G);
                    for (j = kb; j < ke; j++) {
                        if (!copy && j >= fb && j < fe) { /* the whole windows at once */
                            xlarun_k__bamx_steps(na, ng, (const unsigned char *)xlarun_k__bamx_at(Wb + pr * K, d, j), K * 2,
                                                 xb + (g * S + j) * 16 * cb, S * 16 * cb, cb, fe - j);
                            j = fe - 1;
                            continue;
                        }
                        /* staged: an edge window, or every step of a tiny matrix */
                        xlarun_k__bamx_copy_a(Wb, K, d, pr, nrows, j, ab);
                        xlarun_k__bamx_steps(na, ng, ab, 64, xb + (g * S + j) * 16 * cb, S * 16 * cb, cb, 1);
                    }
                    if (ke < S) { xlarun_k__bamx_cstore(na, ng, cs, G); continue; }
                    xlarun_k__bamx_cstore(na, ng, cst, 2); /* staging: tile 2i + j at cst + (2i + j) KB */
                    for (i = 0; i < na; i++)
                        for (j = 0; j < (size_t)ng; j++) {
                            size_t t0 = tpg * (g + j), nt = n - t0 < tpg ? n - t0 : tpg;
                            xlarun_k__bamx_out(cst + (2 * (size_t)i + j) * 1024, (size_t)parts, nt, mlo, mhi, Y, ldy, pr + 16 * (size_t)i, t0);
                        }
                }
                p += na == 2 ? 32 : left < 16 ? left : 16;
            }
        }
    }
    _tile_release();
}

/* Xb (bf16 activations, one part) or Xf (f32 activations, three parts), packed into scratch
   after the work area */
XLARUN_K__AI void xlarun_k__bamx(const void *W, size_t K, size_t r0, size_t r1, const uint16_t *Xb, const float *Xf, size_t ldx,
                                 size_t n, float *Y, size_t ldy, void *scratch) {
    int parts = Xf ? 3 : 1;
    unsigned char *xb = (unsigned char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63) + xlarun_k_bamx_work_bytes(n, parts) - 64;
    if (r1 <= r0 || n == 0) return;
    xlarun_k_bamx_pack(W, K, Xb, Xf, ldx, n, 0, xlarun_k__bamx_groups(n, parts), xb);
    xlarun_k_matmul_bamx(W, K, r0, r1, xb, parts, n, Y, ldy, scratch);
}
XLARUN_K__FN void xlarun_k_matmul_bf16x_amx(const void *W, size_t K, size_t r0, size_t r1, const uint16_t *Xb, size_t ldx,
                                            size_t n, float *Y, size_t ldy, void *scratch) {
    xlarun_k__bamx(W, K, r0, r1, Xb, NULL, ldx, n, Y, ldy, scratch);
}
#undef XBA_RB
#undef XBA_B_L2
#else
XLARUN_K__FN size_t xlarun_k_btiles_bytes(size_t K, size_t n) { (void)K; (void)n; return 0; }
XLARUN_K__FN size_t xlarun_k_etiles_bytes(size_t K, size_t n) { (void)K; (void)n; return 0; }
XLARUN_K__FN size_t xlarun_k_bamx_pack_bytes(size_t K, size_t n, int parts) { (void)K; (void)n; (void)parts; return 0; }
XLARUN_K__FN size_t xlarun_k_bamx_work_bytes(size_t n, int parts) { (void)n; (void)parts; return 0; }
#endif

XLARUN_K__FN void xlarun_k_matmul_bf16x(const void *W, size_t K, size_t r0, size_t r1, const uint16_t *Xb,
                                        size_t ldx, size_t n, float *Y, size_t ldy, void *tiles) {
    const uint16_t *Wb = (const uint16_t *)W;
    size_t i, r;
#if defined(XLARUN_K_HAS_BF16_DOT)
    float o[16];
    size_t q, j, nrows = r1 > r0 ? r1 - r0 : 0;
#endif
#if defined(XLARUN_K_BAMX)
    if (tiles) {
        xlarun_k_matmul_bf16x_amx(W, K, r0, r1, Xb, ldx, n, Y, ldy, tiles);
        return;
    }
#endif
    (void)tiles;
    if (n == 1) { /* decode: one stream */
        xlarun_k_gemv_bf16x(W, K, r0, r1, Xb, Y, 1);
        return;
    }
#if defined(XLARUN_K_HAS_BF16_DOT)
    Wb += r0 * K; /* from here on, row r means row r0 + r */
    Y += r0;
    XLARUN_K__BLOCKED(nrows, K * 2, n, K * 2, 4, K, XB_VL, XLARUN_K__NO_CHUNKS, Y, ldy, o,
                      n > XLARUN_K__PF_TOKENS ? NULL : Wb, {
        const uint16_t *xs[4];
        for (j = 0; j < 4; j++) xs[j] = Xb + ii[j] * ldx;
        xlarun_k__bx_tile(Wb + rr[0] * K, Wb + rr[1] * K, Wb + rr[2] * K, Wb + rr[3] * K, xs, K, o);
    });
#else /* no bf16 dot instruction: each element its dot */
    for (i = 0; i < n; i++)
        for (r = r0; r < r1; r++) Y[i * ldy + r] = xlarun_k_dot_bf16_bf16(Wb + r * K, Xb + i * ldx, K);
#endif
}

/* ======================================================================================
   matmul_amx3: Y[i*ldy + r] = W row r (bf16) . X row i (f32) for r in [r0, r1), i < n, the
   exact precision's products on AMX-BF16 tiles. tiles: NULL, or (XLARUN_K_BAMX builds, once the
   OS granted the tile state) this thread's xlarun_k_etiles_bytes(K, n) bytes of scratch.
   NULL: exactly xlarun_k_matmul(XLARUN_K_BF16, ...), the canonical reduction. Tiles: each
   activation is split into three bf16 parts whose sum is the activation (xlarun_k__bamx_pack3),
   which are columns of the B tile (5 tokens x 3 parts a group), so each 32-element step is one
   TDPBF16PS for all three and the output is (part 0 + part 1) + part 2. The products of bf16
   weights and bf16 parts are exact and the sums are the tile unit's, so the results agree with
   the exact path to f32 rounding (test_kernels: worst 2.1e-7 of the sum of |products| against
   an f64 reference, where the FMA dot gives 1.2e-7) but with bits of their own. Those bits
   depend only on row, token and the step sequence, as matmul_bf16x's on tiles do: any n, r0,
   r1 and any thread count give the same, so a session runs decode on the tiles too (one
   group: tiles narrowed to its columns, level with the exact GEMV). Subnormal weights and
   activation parts read as zero (below 1.2e-38 in f32: no effect at f32 precision).
   Xeon family 6 model 207, the whole 1B in bench, 2 threads, against --no-amx in alternating
   rounds: see tools/README.md, "Using AMX for the exact mode".
   ====================================================================================== */
XLARUN_K__FN void xlarun_k_matmul_amx3(const void *W, size_t K, size_t r0, size_t r1, const float *X, size_t ldx, size_t n,
                                       float *Y, size_t ldy, void *tiles) {
#if defined(XLARUN_K_BAMX)
    if (tiles) {
        xlarun_k__bamx(W, K, r0, r1, NULL, X, ldx, n, Y, ldy, tiles);
        return;
    }
#endif
    (void)tiles;
    xlarun_k_matmul(XLARUN_K_BF16, W, K, r0, r1, X, ldx, n, Y, ldy);
}

/* ======================================================================================
   QUANTIZED WEIGHTS: q8_0 and q4_0, blocks of 32 along K, one f16 scale per block.
   (This section is separate from the f32/f16/bf16 kernels above and uses none of their
   per-ISA macros: each ISA's code below is written with its own intrinsics.)

   WEIGHTS, one row of K weights (K a multiple of 32; block b holds elements 32b .. 32b+31):
     q8_0  K bytes, int8 q[k] (any value -128..127 is read correctly; the quantizer writes
           -127..127).                                                 w[k] = d[b] * q[k]
     q4_0  K/2 bytes; block b is 16 bytes, its byte j (0..15) holds element 32b+j in the LOW
           nibble and element 32b+j+16 in the HIGH nibble, each stored as q+8 (q in -8..7).
                                                                       w[k] = d[b] * q[k]
     scales: K/32 IEEE binary16 d[b] per row, a separate array (row r at S + r*(K/32)*2).
   The split layout (codes in one array, scales in another) keeps every 64-byte code load
   aligned with the file's rows and lets one vector load carry two whole q8 blocks.

   QUANTIZING WEIGHTS (xlarun_k_quantize_row; tool-time, the same scalar code in every build):
     q8_0  d = f16(amax / 127);  q = clamp(rint(w * (1/d)), -127, 127)      (q = 0 if d == 0)
     q4_0  m = the element of largest |w| (the first such, sign kept); d = f16(m / -8);
           q = clamp(rint(w * (1/d)), -8, 7)   (m maps to -8 exactly; d may be negative)
     rint rounds to nearest, ties to even. Non-finite weights, or a scale past the f16 range
     (amax > 8.3e6), are refused (return value), never written.

   ACTIVATIONS (this is the precision of quantized weights, like llama.cpp's q8_0 x q8_0 dot):
     each activation row is quantized on its own, per block of 32:
       a = max |x|,  dx = a / 127,  qx = rint(x * (127 / a))  (0 when a == 0), int8 -127..127,
     with the same bits in every build (one IEEE division and one product per value).
     xlarun_k_quantize_act writes one row into xlarun_k_qact_bytes(K) bytes whose layout is
     private to the build (the scalar one: per block 32 int8 then the f32 dx; AVX-512 adds the
     lane-broadcast scales and the zero-point corrections its VNNI dot needs).
     Non-finite activations give unspecified (but memory-safe) results.

   DOT: the block sums isum_b = sum q*qx are exact integers in every build; a row's result is
     an f32 sum of isum * (d * dx). Canonical reductions, per output element:
       scalar   acc = 0; for b: acc += (float)isum_b * (d_b * dx_b)       (each op rounded)
       AVX-512  per step of 512 elements (16 blocks; the last may hold 1..15, zero-padded): 16
                int32 lanes, lane l = the exact sum of the 32 elements of block 4(l%4) + l/4
                of the step (the order one AMX tile product per block gives: xlarun_k_qmatmul's
                AMX path, where built and allowed, returns the same bits);
                acc = fma(float(lanes), d lanes * dx lanes, acc); result = xlarun_k__hsum(acc)
                (a lane past the last block adds fma(0, 0, acc), i.e. +0)
                VNNI: eight vpdpbusd on (q + 128 as u8) x qx, the lane starting at the
                precomputed -128*sum(qx) (the q4_0 GEMV: the stored nibble q + 8, from
                -8*sum(qx)); without VNNI: vpmaddubsw sign trick.
       AVX2     per block: 8 lanes of 4 elements (vpmaddubsw sign trick);
                acc = fma(float(lanes), set1(d * dx), acc); result = xlarun_k__hsum8(acc)
       NEON     per block: 4 lanes of 8 elements (sdot with __ARM_FEATURE_DOTPROD, else
                vmull/vpadd); acc = fma(float(lanes), dup(d * dx), acc); result = vaddvq_f32
   DETERMINISM CONTRACT (as for the float kernels): in one build
       xlarun_k_qmatmul(...)[i*ldy + r] == xlarun_k_qdot(qt, row r, scales r, XQ row i, K)
   bit for bit, whatever n, r0, r1, so results do not depend on threads, and a prefill equals
   token-by-token decode (each token's activation row is quantized on its own).

   FUNCTIONS
     xlarun_k_qrow_bytes(qt, K)                            bytes of one row of codes
     xlarun_k_quantize_row(qt, src, K, codes, scales)      f32 row -> codes + f16 scales
     xlarun_k_qdequant(qt, codes, scales, dst, K)          a row back to f32 (embedding lookup;
                                                           scalar in every build: one row/token)
     xlarun_k_qact_bytes(K), xlarun_k_quantize_act(x, K, xq)
     xlarun_k_qdot(qt, w, s, xq, K)
     xlarun_k_qmatmul(qt, W, S, K, r0, r1, XQ, n, Y, ldy, tiles)
                                                           XQ: n rows of qact_bytes(K) each;
                                                           tiles: NULL, or this thread's
                                                           qtiles_bytes(K, n) bytes of scratch
                                                           when the process may use AMX tiles
     xlarun_k_qtiles_bytes(K, n)                           0 where XLARUN_K_QAMX is not defined
     xlarun_k_qamx_pack(XQ, K, n, g0, g1, P), xlarun_k_qmatmul_qamx(qt, W, S, K, r0, r1, P, n, Y,
       ldy, work), xlarun_k_qamx_pack_bytes(K, n), _work_bytes(K)   the same GEMM with the
                                                           activations packed once, by groups of
                                                           16 tokens, for all threads (n >= 16)
     xlarun_k_qgemv(qt, W, S, K, r0, r1, XQ, Y, streams)   the decode GEMV over runs of rows
                                                           (as xlarun_k_gemv), Y[r0..r1)
   XLARUN_K_QAMX is defined where the AMX-INT8 GEMM is built (the AVX-512 variant compiled for
   AMX-TILE and AMX-INT8); it runs for n >= XLARUN_K_QAMX_MIN (16) tokens when tiles is not
   NULL, with the bits of the AVX-512 path. The caller asks the OS for the tile state first (Linux: arch_prctl
   ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) and passes NULL when refused.
   XLARUN_K_QISA names the variant: "avx512-vnni", "avx512", "avx2", "neon-dotprod", "neon",
   "scalar".
   ====================================================================================== */
typedef enum xlarun_k_qtype { XLARUN_K_Q8_0 = 0, XLARUN_K_Q4_0 = 1 } xlarun_k_qtype;
#define XLARUN_K_QBLOCK 32

#if defined(XLARUN_K__AVX512) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define XLARUN_K__Q512 1
#if defined(__AVX512VNNI__)
#define XLARUN_K_QISA "avx512-vnni"
#else
#define XLARUN_K_QISA "avx512"
#endif
#if defined(__AMX_TILE__) && defined(__AMX_INT8__)
#define XLARUN_K_QAMX 1 /* the AMX-INT8 GEMM is built (used when the caller passes tile scratch) */
#endif
#elif (defined(XLARUN_K__AVX512) || defined(XLARUN_K__AVX2)) && defined(__AVX2__)
#define XLARUN_K__Q256 1
#define XLARUN_K_QISA "avx2"
#elif defined(XLARUN_K__NEON)
#define XLARUN_K__QNEON 1
#if defined(__ARM_FEATURE_DOTPROD)
#define XLARUN_K_QISA "neon-dotprod"
#else
#define XLARUN_K_QISA "neon"
#endif
#else
#define XLARUN_K_QISA "scalar"
#endif

XLARUN_K__AI size_t xlarun_k_qrow_bytes(xlarun_k_qtype qt, size_t K) { return qt == XLARUN_K_Q4_0 ? K / 2 : K; }

/* the q of element k (0..31) of a block */
XLARUN_K__AI int xlarun_k__qget(xlarun_k_qtype qt, const unsigned char *blk, size_t k) {
    if (qt == XLARUN_K_Q8_0) return (int)(signed char)blk[k];
    return k < 16 ? (int)(blk[k] & 15u) - 8 : (int)(blk[k - 16] >> 4) - 8;
}

/* round to nearest even and clamp to [lo, hi]; NaN gives 0 */
XLARUN_K__AI int xlarun_k__qround(float v, int lo, int hi) {
    float r;
    if (!(v == v)) return 0;
    r = rintf(v);
    if (r < (float)lo) return lo;
    if (r > (float)hi) return hi;
    return (int)r;
}

/* returns 0, or 1 when a value is not finite, or 2 when a scale does not fit f16 */
XLARUN_K__FN int xlarun_k_quantize_row(xlarun_k_qtype qt, const float *src, size_t K, void *codes, void *scales) {
    unsigned char *w = (unsigned char *)codes, *s = (unsigned char *)scales;
    size_t b, k;
    for (b = 0; b < K / 32; b++) {
        const float *x = src + 32 * b;
        float m = 0.0f, a = 0.0f, d, dr, id;
        uint16_t h;
        int q[32];
        for (k = 0; k < 32; k++) {
            float v = fabsf(x[k]);
            if (!(v <= 3.4028235e38f)) return 1;
            if (v > a) { a = v; m = x[k]; }
        }
        d = qt == XLARUN_K_Q8_0 ? a / 127.0f : m / -8.0f;
        h = xlarun_k_f32_to_f16(d);
        if ((h & 0x7c00u) == 0x7c00u) return 2;
        dr = xlarun_k_f16_to_f32(h);
        id = dr != 0.0f ? 1.0f / dr : 0.0f;
        for (k = 0; k < 32; k++)
            q[k] = qt == XLARUN_K_Q8_0 ? xlarun_k__qround(x[k] * id, -127, 127) : xlarun_k__qround(x[k] * id, -8, 7);
        if (qt == XLARUN_K_Q8_0)
            for (k = 0; k < 32; k++) w[32 * b + k] = (unsigned char)(q[k] & 255);
        else
            for (k = 0; k < 16; k++) w[16 * b + k] = (unsigned char)((q[k] + 8) | ((q[k + 16] + 8) << 4));
        memcpy(s + 2 * b, &h, 2);
    }
    return 0;
}

XLARUN_K__FN void xlarun_k_qdequant_ref(xlarun_k_qtype qt, const void *codes, const void *scales, float *dst, size_t K) {
    const unsigned char *w = (const unsigned char *)codes, *s = (const unsigned char *)scales;
    size_t b, k, bb = qt == XLARUN_K_Q8_0 ? 32 : 16;
    for (b = 0; b < K / 32; b++) {
        float d = xlarun_k_f16_to_f32(xlarun_k__ldh(s + 2 * b));
        for (k = 0; k < 32; k++) dst[32 * b + k] = d * (float)xlarun_k__qget(qt, w + bb * b, k);
    }
}

XLARUN_K__FN void xlarun_k_qdequant(xlarun_k_qtype qt, const void *codes, const void *scales, float *dst, size_t K) {
    xlarun_k_qdequant_ref(qt, codes, scales, dst, K);
}

/* ---- scalar reference: activation records of 36 bytes per block (32 int8, f32 dx) ---- */
XLARUN_K__FN size_t xlarun_k_qact_bytes_ref(size_t K) { return K / 32 * 36; }

XLARUN_K__AI float xlarun_k__qact_block(const float *x, signed char *q) {
    float a = 0.0f, d, id;
    size_t k;
    for (k = 0; k < 32; k++) {
        float v = fabsf(x[k]);
        if (v > a) a = v;
    }
    d = a / 127.0f;
    id = a != 0.0f ? 127.0f / a : 0.0f;
    for (k = 0; k < 32; k++) q[k] = (signed char)xlarun_k__qround(x[k] * id, -127, 127);
    return d;
}

XLARUN_K__FN void xlarun_k_quantize_act_ref(const float *x, size_t K, void *xq) {
    unsigned char *o = (unsigned char *)xq;
    size_t b;
    for (b = 0; b < K / 32; b++) {
        float d = xlarun_k__qact_block(x + 32 * b, (signed char *)(void *)(o + 36 * b));
        memcpy(o + 36 * b + 32, &d, 4);
    }
}

XLARUN_K__FN float xlarun_k_qdot_ref(xlarun_k_qtype qt, const void *w, const void *s, const void *xq, size_t K) {
    const unsigned char *wb = (const unsigned char *)w, *sb = (const unsigned char *)s, *xb = (const unsigned char *)xq;
    size_t b, k, bb = qt == XLARUN_K_Q8_0 ? 32 : 16;
    float acc = 0.0f;
    for (b = 0; b < K / 32; b++) {
        const unsigned char *rec = xb + 36 * b;
        int32_t isum = 0;
        float dx, sc, pr;
        for (k = 0; k < 32; k++) isum += xlarun_k__qget(qt, wb + bb * b, k) * (int32_t)(signed char)rec[k];
        memcpy(&dx, rec + 32, 4);
        sc = xlarun_k_f16_to_f32(xlarun_k__ldh(sb + 2 * b)) * dx;
        XLARUN_K__KEEP(sc);
        pr = (float)isum * sc;
        XLARUN_K__KEEP(pr);
        acc += pr;
    }
    return acc;
}

XLARUN_K__FN void xlarun_k_qmatmul_ref(xlarun_k_qtype qt, const void *W, const void *S, size_t K, size_t r0,
                                       size_t r1, const void *XQ, size_t n, float *Y, size_t ldy) {
    const unsigned char *Wb = (const unsigned char *)W, *Sb = (const unsigned char *)S, *Xb = (const unsigned char *)XQ;
    size_t rb = xlarun_k_qrow_bytes(qt, K), sb = K / 16, xb = xlarun_k_qact_bytes_ref(K), i, r;
    for (i = 0; i < n; i++)
        for (r = r0; r < r1; r++) Y[i * ldy + r] = xlarun_k_qdot_ref(qt, Wb + r * rb, Sb + r * sb, Xb + i * xb, K);
}

/* ---- the per-ISA step: XQ_STEP elements, XQ_REC activation bytes per step ----
     xlarun_k__qw(q4, row, st, full)    the codes of step st, ready for the pair product
     xlarun_k__qd(srow, st, full)       the weight scales of step st, in lanes
     xlarun_k__qpair(q4, w, d, rec, acc) acc += float(integer lanes of w . x) * (d * dx)
   full: the blocks of the step (XQ_NB, or XQ_TAIL for a last partial one; AVX-512 reads no
   byte past them). */
#if defined(XLARUN_K__Q512)
#define XQ_STEP 512
#define XQ_REC 640 /* int8 X[8][64], f32 dx lanes[16], int32 zero-point lanes[16] */
#define XQ_NT 8 /* tokens per GEMM tile (xlarun_k__qtile8) */
/* A step is 16 blocks. Every vector of a step has lane l on block
   4(l%4) + l/4 of the step (an involution), and vector i (0..7) holds elements 4i..4i+3 of
   that block: eight dot products into one int32 accumulator give each lane its block's whole
   sum. This is the order an AMX tile product (TDPBSSD, one block) reproduces bit for bit.
   The weights reach that layout by in-register transposes (xlarun_k__qw: 24 shuffles a step
   for q8, 8 for q4, shared by the tile's eight tokens); the activation records are written in it. */
typedef struct { __m512i v0, v1, v2, v3, v4, v5, v6, v7; } xlarun_k__qwv;
typedef __m512 xlarun_k__qf;
#define XQ_ZERO() _mm512_setzero_ps()
#define XQ_HSUM(a) xlarun_k__hsum(a)
#define XQ_PERM _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0)
#define XQ_EACH8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define XQ_EACH4(M) M(0) M(1) M(2) M(3)
/* GCC sees that every row of a tile reads the same activation vectors, loads them once and
   spills them (8 per token); reading them again per row, as memory operands, is faster */
#if defined(__GNUC__)
#define XQ_OPAQUE(p) __asm__ __volatile__("" : "+r"(p))
#endif

/* a0..a3: 128-bit lane j of a<k> holds 16 bytes of block 4k + j; o<u> lane 4j + k: dword u of
   them (the 4 x 4 dword transpose in each 128-bit lane) */
#define XQ_TR4(a0, a1, a2, a3, o0, o1, o2, o3)                                                 \
    do {                                                                                       \
        __m512i t0_ = _mm512_unpacklo_epi32(a0, a1), t1_ = _mm512_unpackhi_epi32(a0, a1);      \
        __m512i t2_ = _mm512_unpacklo_epi32(a2, a3), t3_ = _mm512_unpackhi_epi32(a2, a3);      \
        o0 = _mm512_unpacklo_epi64(t0_, t2_);                                                  \
        o1 = _mm512_unpackhi_epi64(t0_, t2_);                                                  \
        o2 = _mm512_unpacklo_epi64(t1_, t3_);                                                  \
        o3 = _mm512_unpackhi_epi64(t1_, t3_);                                                  \
    } while (0)

/* 16 q8 blocks in file order (512 bytes at p; nb < 16: only the first nb are read, the rest 0)
   to the step layout, codes as stored (int8) */
XLARUN_K__AI xlarun_k__qwv xlarun_k__qt8(const unsigned char *p, int nb) {
    xlarun_k__qwv r;
#define XQ_L8(i)                                                                               \
    __m512i l##i = nb >= 16 ? _mm512_loadu_si512((const void *)(p + 64 * i))                   \
                 : _mm512_maskz_loadu_epi8(nb >= 2 * i + 2 ? ~(__mmask64)0 : nb == 2 * i + 1 ? (__mmask64)0xFFFFFFFFull : 0, \
                                           (const void *)(p + 64 * i));
    XQ_EACH8(XQ_L8)
#undef XQ_L8
    /* first: the first 16 bytes of blocks 4k..4k+3 (one per 128-bit lane), then their last 16 */
    XQ_TR4(_mm512_shuffle_i64x2(l0, l1, 0x88), _mm512_shuffle_i64x2(l2, l3, 0x88), _mm512_shuffle_i64x2(l4, l5, 0x88),
           _mm512_shuffle_i64x2(l6, l7, 0x88), r.v0, r.v1, r.v2, r.v3);
    XQ_TR4(_mm512_shuffle_i64x2(l0, l1, 0xDD), _mm512_shuffle_i64x2(l2, l3, 0xDD), _mm512_shuffle_i64x2(l4, l5, 0xDD),
           _mm512_shuffle_i64x2(l6, l7, 0xDD), r.v4, r.v5, r.v6, r.v7);
    return r;
}

/* the codes of step st (nb: its blocks, 16 or 1..15 for the last), as the dot product reads them.
   q4 == 2 (VNNI): the nibbles as stored (q + 8 as u8), for xlarun_k__qint's q4 == 2; the GEMV
   uses it (one AND a vector instead of a table lookup or AND and add). The high nibbles stay in
   place, 16 (q + 8), so they need no shift (one shift of their chain's sum instead: AMD EPYC
   family 25 model 17, 2 threads, L2-resident rows, medians of 10 alternations, two runs 78.0 ->
   81.8 GB/s at K 2048 and 88.9 -> 96.6 at K 8192, one run 83.8 -> 92.3, four 86.4 -> 100.6).
   One of the GEMM's weight steps serves 8 tokens, and each would need its own zero point, so the
   GEMM keeps q + 128. */
XLARUN_K__AI xlarun_k__qwv xlarun_k__qw(int q4, const unsigned char *w, size_t st, int nb) {
    xlarun_k__qwv r;
    if (!q4) {
        r = xlarun_k__qt8(w + 512 * st, nb);
#if defined(__AVX512VNNI__)
#define XQ_X80(i) r.v##i = _mm512_xor_si512(r.v##i, _mm512_set1_epi8((char)0x80)); /* q + 128 as u8 */
        XQ_EACH8(XQ_X80)
#undef XQ_X80
#endif
    } else {
        const unsigned char *p = w + 256 * st;
        __m512i t0, t1, t2, t3;
#if defined(__AVX512VNNI__) && defined(__AVX512VBMI__)
        /* q + 128 as u8 straight from the nibble (the table reads the index's low 6 bits) */
        const __m512i lut = _mm512_set_epi8(
            -121, -122, -123, -124, -125, -126, -127, -128, 127, 126, 125, 124, 123, 122, 121, 120,
            -121, -122, -123, -124, -125, -126, -127, -128, 127, 126, 125, 124, 123, 122, 121, 120,
            -121, -122, -123, -124, -125, -126, -127, -128, 127, 126, 125, 124, 123, 122, 121, 120,
            -121, -122, -123, -124, -125, -126, -127, -128, 127, 126, 125, 124, 123, 122, 121, 120);
#define XQ_NIB(v) _mm512_permutexvar_epi8(v, lut)
#elif defined(__AVX512VNNI__)
#define XQ_NIB(v) _mm512_add_epi8(_mm512_and_si512(v, _mm512_set1_epi8(15)), _mm512_set1_epi8(120))
#else
#define XQ_NIB(v) _mm512_sub_epi8(_mm512_and_si512(v, _mm512_set1_epi8(15)), _mm512_set1_epi8(8))
#endif
#define XQ_L4(i)                                                                               \
        __m512i l##i = nb >= 16 ? _mm512_loadu_si512((const void *)(p + 64 * i))               \
                     : _mm512_maskz_loadu_epi8(nb >= 4 * i + 4 ? ~(__mmask64)0                 \
                                               : nb > 4 * i ? ((__mmask64)1 << (16 * (nb - 4 * i))) - 1 : 0, \
                                               (const void *)(p + 64 * i));
        XQ_EACH4(XQ_L4)
#undef XQ_L4
        XQ_TR4(l0, l1, l2, l3, t0, t1, t2, t3); /* t<u>: bytes 4u.. = elements 4u.. (low) and 16+4u.. (high) */
#if defined(__AVX512VNNI__)
        if (q4 == 2) { /* the high nibbles left in place (16 n): no shifts, one for the sum's chain */
            const __m512i lo = _mm512_set1_epi8(15), hi = _mm512_set1_epi8((char)0xF0);
            r.v0 = _mm512_and_si512(t0, lo); r.v4 = _mm512_and_si512(t0, hi);
            r.v1 = _mm512_and_si512(t1, lo); r.v5 = _mm512_and_si512(t1, hi);
            r.v2 = _mm512_and_si512(t2, lo); r.v6 = _mm512_and_si512(t2, hi);
            r.v3 = _mm512_and_si512(t3, lo); r.v7 = _mm512_and_si512(t3, hi);
            return r;
        }
#endif
        r.v0 = XQ_NIB(t0); r.v4 = XQ_NIB(_mm512_srli_epi16(t0, 4));
        r.v1 = XQ_NIB(t1); r.v5 = XQ_NIB(_mm512_srli_epi16(t1, 4));
        r.v2 = XQ_NIB(t2); r.v6 = XQ_NIB(_mm512_srli_epi16(t2, 4));
        r.v3 = XQ_NIB(t3); r.v7 = XQ_NIB(_mm512_srli_epi16(t3, 4));
#undef XQ_NIB
    }
    return r;
}

/* the weight scales of step st in the lane order (0 past the last block) */
XLARUN_K__AI xlarun_k__qf xlarun_k__qd(const unsigned char *s, size_t st, int nb) {
    __m256i h = nb >= 16 ? _mm256_loadu_si256((const __m256i *)(const void *)(s + 32 * st))
                         : _mm256_maskz_loadu_epi16((__mmask16)((1u << nb) - 1), (const void *)(s + 32 * st));
    return _mm512_permutexvar_ps(XQ_PERM, _mm512_cvtph_ps(h));
}

/* lane l: the exact integer sum of block 4(l%4) + l/4 of the step */
XLARUN_K__AI __m512i xlarun_k__qint(int q4, xlarun_k__qwv w, const unsigned char *rec) {
#if defined(__AVX512VNNI__)
    __m512i acc = _mm512_loadu_si512((const void *)(rec + 576)); /* -128 * the block's sum of qx */
#define XQ_DP(a, i) a = _mm512_dpbusd_epi32(a, w.v##i, _mm512_loadu_si512((const void *)(rec + 64 * i)));
    if (q4 == 2) { /* raw nibbles n = q + 8, the high ones as 16 n: that chain starts at -128 * the
                      sum and is a multiple of 16, so >> 4 is exact (-8 * the sum plus the high
                      nibbles' products). The GEMV has only a row or two in flight: two chains
                      of four, not one of eight dependent vpdpbusd */
        __m512i b = _mm512_setzero_si512();
        XQ_DP(b, 0) XQ_DP(acc, 4) XQ_DP(b, 1) XQ_DP(acc, 5) XQ_DP(b, 2) XQ_DP(acc, 6) XQ_DP(b, 3) XQ_DP(acc, 7)
        return _mm512_add_epi32(b, _mm512_srai_epi32(acc, 4));
    }
    XQ_DP(acc, 0) XQ_DP(acc, 1) XQ_DP(acc, 2) XQ_DP(acc, 3) XQ_DP(acc, 4) XQ_DP(acc, 5) XQ_DP(acc, 6) XQ_DP(acc, 7)
#undef XQ_DP
    return acc;
#else
    const __m512i one = _mm512_set1_epi16(1);
    __m512i acc = _mm512_setzero_si512();
#define XQ_DP(i)                                                                               \
    {                                                                                          \
        __m512i x_ = _mm512_loadu_si512((const void *)(rec + 64 * i));                         \
        __m512i sx_ = _mm512_mask_sub_epi8(x_, _mm512_movepi8_mask(w.v##i), _mm512_setzero_si512(), x_); \
        acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_abs_epi8(w.v##i), sx_), one)); \
    }
    (void)q4;
    XQ_EACH8(XQ_DP)
#undef XQ_DP
    return acc;
#endif
}

XLARUN_K__AI xlarun_k__qf xlarun_k__qpair(int q4, xlarun_k__qwv w, xlarun_k__qf d, const unsigned char *rec,
                                          xlarun_k__qf acc) {
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(xlarun_k__qint(q4, w, rec)),
                           _mm512_mul_ps(d, _mm512_loadu_ps((const float *)(const void *)(rec + 512))), acc);
}

#if defined(__AVX512VNNI__)
/* Decode's q8_0 integer sums without the transposes. An integer sum does not depend on its
   order, so a step's 16 block sums may come from the codes as stored: each 64-byte load (two
   blocks) times the activations in the same order (xn, the records' bytes put back in element
   order once per GEMV call, xlarun_k__qnat_x) gives 8 partial sums per block, and a tree of adds
   leaves lane l with block 4(l%4) + l/4's sum: the same integers as xlarun_k__qint, so the same
   bits. The tree: two rounds of unpacks within the 128-bit lanes, one of two 128-bit lane
   shuffles, one permute into the lane order (15 shuffles, against the 24 of xlarun_k__qt8).
   One core of the Xeon (family 6 model 207), a q8_0 GEMV over L2-resident rows of K = 2048,
   three alternations: 21.5 -> 28.2-28.7 GB/s (one stream), 19.1-19.6 -> 23.6-24.5 (four); the
   whole 1B-shaped q8_0 decode (bench -p 8 -n 32 -r 3, three ABAB rounds) 9.5-11.3 -> 11.4-13.1
   tok/s on one thread, 17.2-17.8 -> 18.0-18.7 on two (run_bandwidth_ratio 0.84-0.86 -> 0.91-0.92).
   That was with three rounds of 14 two-source permutes (vpermt2d); the unpacks within lanes
   replaced them: AMD EPYC family 25 model 17, 2 threads, L2-resident, medians of 10
   alternations, 93.0 -> 103.5 GB/s (one stream), 95.5 -> 112.3 (two), 100.2 -> 118.7 (four);
   the Xeon not measured (there both kinds issue on one port). */
#define XLARUN_K__QNAT_MAX 16384 /* K up to which the GEMV keeps xn on its stack (else the transposes) */
XLARUN_K__AI void xlarun_k__qnat_x(const unsigned char *X, size_t K, signed char *xn) {
    size_t nst = (K + XQ_STEP - 1) / XQ_STEP, st, i, l;
    for (st = 0; st < nst; st++)
        for (i = 0; i < 8; i++)
            for (l = 0; l < 16; l++) memcpy(xn + st * XQ_STEP + 32 * (4 * (l % 4) + l / 4) + 4 * i, X + st * XQ_REC + 64 * i + 4 * l, 4);
}
/* a whole step (the GEMV's last, partial step keeps the transposes) */
XLARUN_K__AI __m512i xlarun_k__qint_nat(const unsigned char *p, const signed char *xn, const unsigned char *rec) {
    const __m512i back = _mm512_set_epi32(15, 13, 7, 5, 11, 9, 3, 1, 14, 12, 6, 4, 10, 8, 2, 0);
    __m512i t0, t1, t2, t3, r0, r1;
#define XQ_N8(i)                                                                               \
    __m512i v##i = _mm512_dpbusd_epi32(_mm512_setzero_si512(),                                 \
        _mm512_xor_si512(_mm512_loadu_si512((const void *)(p + 64 * i)), _mm512_set1_epi8((char)0x80)), \
        _mm512_loadu_si512((const void *)(xn + 64 * i)));
    XQ_EACH8(XQ_N8)
#undef XQ_N8
    /* v<i>, 128-bit lane j: the 4 partials of half j%2 of block 2i + j/2. Within the lanes:
       t<k> pairs two v's partials, r<k> sums a half of each of four blocks (lane j of r0: half
       j%2 of blocks j/2, 2 + j/2, 4 + j/2, 6 + j/2; r1: blocks 8 on) */
    t0 = _mm512_add_epi32(_mm512_unpacklo_epi32(v0, v1), _mm512_unpackhi_epi32(v0, v1));
    t1 = _mm512_add_epi32(_mm512_unpacklo_epi32(v2, v3), _mm512_unpackhi_epi32(v2, v3));
    t2 = _mm512_add_epi32(_mm512_unpacklo_epi32(v4, v5), _mm512_unpackhi_epi32(v4, v5));
    t3 = _mm512_add_epi32(_mm512_unpacklo_epi32(v6, v7), _mm512_unpackhi_epi32(v6, v7));
    r0 = _mm512_add_epi32(_mm512_unpacklo_epi64(t0, t1), _mm512_unpackhi_epi64(t0, t1));
    r1 = _mm512_add_epi32(_mm512_unpacklo_epi64(t2, t3), _mm512_unpackhi_epi64(t2, t3));
    /* the halves added across lanes: blocks 0 2 4 6 | 1 3 5 7 | 8 10 12 14 | 9 11 13 15, then the lane order */
    r0 = _mm512_add_epi32(_mm512_shuffle_i32x4(r0, r1, 0x88), _mm512_shuffle_i32x4(r0, r1, 0xDD));
    return _mm512_add_epi32(_mm512_permutexvar_epi32(back, r0),
                            _mm512_loadu_si512((const void *)(rec + 576))); /* -128 * the block's sum of qx */
}
#endif

XLARUN_K__FN size_t xlarun_k_qact_bytes_simd(size_t K) { return (K + 511) / 512 * XQ_REC; }

XLARUN_K__FN void xlarun_k_quantize_act_simd(const float *x, size_t K, void *xq) {
    unsigned char *o = (unsigned char *)xq;
    size_t nb = K / 32, st, h;
    for (st = 0; 16 * st < nb; st++) {
        unsigned char *rec = o + st * XQ_REC;
        __m512i natv[8]; /* the step's qx in block order */
        unsigned char *nat = (unsigned char *)(void *)natv;
        float dl[16];
        xlarun_k__qwv v;
        __m512i s = _mm512_setzero_si512();
        for (h = 0; h < 16; h++) {
            size_t b = 16 * st + h;
            float a = 0.0f, d = 0.0f, id;
            if (b < nb) {
                __m512 x0 = _mm512_loadu_ps(x + 32 * b), x1 = _mm512_loadu_ps(x + 32 * b + 16), iv;
                a = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(x0), _mm512_abs_ps(x1)));
                d = a / 127.0f;
                id = a != 0.0f ? 127.0f / a : 0.0f;
                iv = _mm512_set1_ps(id);
                _mm_storeu_si128((__m128i *)(void *)(nat + 32 * h), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(x0, iv))));
                _mm_storeu_si128((__m128i *)(void *)(nat + 32 * h + 16), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(x1, iv))));
            } else memset(nat + 32 * h, 0, 32);
            dl[h] = d;
        }
        v = xlarun_k__qt8(nat, 16);
#define XQ_ST(i)                                                                                       _mm512_storeu_si512((void *)(rec + 64 * i), v.v##i);                                           s = _mm512_add_epi32(s, _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_set1_epi8(1), v.v##i), _mm512_set1_epi16(1)));
        XQ_EACH8(XQ_ST)
#undef XQ_ST
        _mm512_storeu_ps((float *)(void *)(rec + 512), _mm512_permutexvar_ps(XQ_PERM, _mm512_loadu_ps(dl)));
        _mm512_storeu_si512((void *)(rec + 576), _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(s, 7)));
    }
}

#elif defined(XLARUN_K__Q256)
#define XQ_STEP 32
#define XQ_REC 36
#define XQ_NT 2
typedef __m256i xlarun_k__qwv;
typedef __m256 xlarun_k__qf;
#define XQ_ZERO() _mm256_setzero_ps()
#define XQ_HSUM(a) xlarun_k__hsum8(a)

XLARUN_K__AI xlarun_k__qwv xlarun_k__qw(int q4, const unsigned char *w, size_t st, int full) {
    (void)full;
    if (!q4) return _mm256_loadu_si256((const __m256i *)(const void *)(w + 32 * st));
    {
        __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(w + 16 * st)), m = _mm_set1_epi8(15);
        __m128i lo = _mm_and_si128(h, m), hi = _mm_and_si128(_mm_srli_epi16(h, 4), m);
        return _mm256_sub_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1), _mm256_set1_epi8(8));
    }
}

XLARUN_K__AI xlarun_k__qf xlarun_k__qd(const unsigned char *s, size_t st, int full) {
    (void)full;
    return _mm256_set1_ps(_cvtsh_ss(xlarun_k__ldh(s + 2 * st)));
}

XLARUN_K__AI xlarun_k__qf xlarun_k__qpair(int q4, xlarun_k__qwv w, xlarun_k__qf d, const unsigned char *rec,
                                          xlarun_k__qf acc) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)rec);
    __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(x, w));
    __m256i i = _mm256_madd_epi16(p, _mm256_set1_epi16(1));
    float dx;
    (void)q4;
    memcpy(&dx, rec + 32, 4);
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(i), _mm256_mul_ps(d, _mm256_set1_ps(dx)), acc);
}

XLARUN_K__FN size_t xlarun_k_qact_bytes_simd(size_t K) { return K / 32 * XQ_REC; }

XLARUN_K__FN void xlarun_k_quantize_act_simd(const float *x, size_t K, void *xq) {
    unsigned char *o = (unsigned char *)xq;
    size_t b;
    const __m256 sgn = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    for (b = 0; b < K / 32; b++) {
        __m256 v0 = _mm256_loadu_ps(x + 32 * b), v1 = _mm256_loadu_ps(x + 32 * b + 8);
        __m256 v2 = _mm256_loadu_ps(x + 32 * b + 16), v3 = _mm256_loadu_ps(x + 32 * b + 24), iv;
        __m256 m = _mm256_max_ps(_mm256_max_ps(_mm256_and_ps(v0, sgn), _mm256_and_ps(v1, sgn)),
                                 _mm256_max_ps(_mm256_and_ps(v2, sgn), _mm256_and_ps(v3, sgn)));
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        __m256i i0, i1, i2, i3, p;
        float a, d, id;
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
        a = _mm_cvtss_f32(m4);
        d = a / 127.0f;
        id = a != 0.0f ? 127.0f / a : 0.0f;
        iv = _mm256_set1_ps(id);
        i0 = _mm256_cvtps_epi32(_mm256_mul_ps(v0, iv));
        i1 = _mm256_cvtps_epi32(_mm256_mul_ps(v1, iv));
        i2 = _mm256_cvtps_epi32(_mm256_mul_ps(v2, iv));
        i3 = _mm256_cvtps_epi32(_mm256_mul_ps(v3, iv));
        /* packs work within 128-bit lanes: restore the element order with one permute */
        p = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
        p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i *)(void *)(o + 36 * b), p);
        memcpy(o + 36 * b + 32, &d, 4);
    }
}

#elif defined(XLARUN_K__QNEON)
#define XQ_STEP 32
#define XQ_REC 36
#define XQ_NT 4
typedef struct { int8x16_t lo, hi; } xlarun_k__qwv;
typedef float32x4_t xlarun_k__qf;
#define XQ_ZERO() vdupq_n_f32(0.0f)
#define XQ_HSUM(a) vaddvq_f32(a)

XLARUN_K__AI xlarun_k__qwv xlarun_k__qw(int q4, const unsigned char *w, size_t st, int full) {
    xlarun_k__qwv v;
    (void)full;
    if (!q4) {
        v.lo = vld1q_s8((const int8_t *)(const void *)(w + 32 * st));
        v.hi = vld1q_s8((const int8_t *)(const void *)(w + 32 * st + 16));
    } else {
        uint8x16_t h = vld1q_u8(w + 16 * st);
        v.lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(h, vdupq_n_u8(15))), vdupq_n_s8(8));
        v.hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(h, 4)), vdupq_n_s8(8));
    }
    return v;
}

XLARUN_K__AI xlarun_k__qf xlarun_k__qd(const unsigned char *s, size_t st, int full) {
    (void)full;
    return vdupq_n_f32(vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(xlarun_k__ldh(s + 2 * st)))), 0));
}

XLARUN_K__AI xlarun_k__qf xlarun_k__qpair(int q4, xlarun_k__qwv w, xlarun_k__qf d, const unsigned char *rec,
                                          xlarun_k__qf acc) {
    int8x16_t x0 = vld1q_s8((const int8_t *)(const void *)rec), x1 = vld1q_s8((const int8_t *)(const void *)(rec + 16));
    int32x4_t i;
    float dx;
    (void)q4;
#if defined(__ARM_FEATURE_DOTPROD)
    i = vdotq_s32(vdotq_s32(vdupq_n_s32(0), w.lo, x0), w.hi, x1);
#else
    {
        int16x8_t p0 = vpaddq_s16(vmull_s8(vget_low_s8(w.lo), vget_low_s8(x0)), vmull_high_s8(w.lo, x0));
        int16x8_t p1 = vpaddq_s16(vmull_s8(vget_low_s8(w.hi), vget_low_s8(x1)), vmull_high_s8(w.hi, x1));
        i = vaddq_s32(vpaddlq_s16(p0), vpaddlq_s16(p1));
    }
#endif
    memcpy(&dx, rec + 32, 4);
    return vfmaq_f32(acc, vcvtq_f32_s32(i), vmulq_f32(d, vdupq_n_f32(dx)));
}

XLARUN_K__FN size_t xlarun_k_qact_bytes_simd(size_t K) { return K / 32 * XQ_REC; }

XLARUN_K__FN void xlarun_k_quantize_act_simd(const float *x, size_t K, void *xq) {
    unsigned char *o = (unsigned char *)xq;
    size_t b, k;
    for (b = 0; b < K / 32; b++) {
        float32x4_t v[8], m = vdupq_n_f32(0.0f), iv;
        int16x8_t h[4];
        float a, d, id;
        for (k = 0; k < 8; k++) {
            v[k] = vld1q_f32(x + 32 * b + 4 * k);
            m = vmaxq_f32(m, vabsq_f32(v[k]));
        }
        a = vmaxvq_f32(m);
        d = a / 127.0f;
        id = a != 0.0f ? 127.0f / a : 0.0f;
        iv = vdupq_n_f32(id);
        for (k = 0; k < 4; k++) /* vcvtnq: round to nearest, ties to even */
            h[k] = vcombine_s16(vqmovn_s32(vcvtnq_s32_f32(vmulq_f32(v[2 * k], iv))),
                                vqmovn_s32(vcvtnq_s32_f32(vmulq_f32(v[2 * k + 1], iv))));
        vst1q_s8((int8_t *)(void *)(o + 36 * b), vcombine_s8(vqmovn_s16(h[0]), vqmovn_s16(h[1])));
        vst1q_s8((int8_t *)(void *)(o + 36 * b + 16), vcombine_s8(vqmovn_s16(h[2]), vqmovn_s16(h[3])));
        memcpy(o + 36 * b + 32, &d, 4);
    }
}
#endif

#if defined(XLARUN_K__Q512) || defined(XLARUN_K__Q256) || defined(XLARUN_K__QNEON)
#define XLARUN_K__QSIMD 1
#if !defined(XQ_OPAQUE)
#define XQ_OPAQUE(p) ((void)0)
#endif

/* blocks in a full step, and in the last (partial) one */
#define XQ_NB (XQ_STEP / 32)
#define XQ_TAIL ((int)((K % XQ_STEP) / 32))

/* one row . one activation row: the canonical reduction. wa > 0 (the decode GEMV): each step
   also prefetches the codes wa bytes on (each 64-byte line once) and, once a line, the scales
   sa bytes on; wa == 0 compiles to the plain loop. */
XLARUN_K__AI float xlarun_k__qdot1p(int q4, const unsigned char *w, const unsigned char *s, const unsigned char *x,
                                    size_t K, size_t wa, size_t sa) {
    size_t full = K / XQ_STEP, st, sz = (size_t)(XQ_STEP / (q4 ? 2 : 1)), ss = XQ_STEP / 16;
    xlarun_k__qf acc = XQ_ZERO();
    for (st = 0; st < full; st++) {
        if (wa) { /* the lines that start in this step's codes, and its scales' line */
            size_t c;
            for (c = (64 - ((st * sz) & 63)) & 63; c < sz; c += 64) XLARUN_K__PREFETCH(w, wa + st * sz + c);
            if (((st * ss) & 63) == 0) XLARUN_K__PREFETCH(s, sa + st * ss);
        }
        acc = xlarun_k__qpair(q4, xlarun_k__qw(q4, w, st, XQ_NB), xlarun_k__qd(s, st, XQ_NB), x + st * XQ_REC, acc);
    }
    if (full * XQ_STEP < K)
        acc = xlarun_k__qpair(q4, xlarun_k__qw(q4, w, st, XQ_TAIL), xlarun_k__qd(s, st, XQ_TAIL), x + st * XQ_REC, acc);
    return XQ_HSUM(acc);
}
XLARUN_K__AI float xlarun_k__qdot1(int q4, const unsigned char *w, const unsigned char *s, const unsigned char *x,
                                   size_t K) {
    return xlarun_k__qdot1p(q4, w, s, x, K, 0, 0);
}

/* 4 rows x XQ_NT tokens (XQ_NT == 1 for the GEMV), accumulator a<r><j>: row r, token j */
#if XQ_NT == 4
#define XQ_TOK(M, r) M(r, 0) M(r, 1) M(r, 2) M(r, 3)
#define XQ_TOK1(M) M(0) M(1) M(2) M(3)
#else
#define XQ_TOK(M, r) M(r, 0) M(r, 1)
#define XQ_TOK1(M) M(0) M(1)
#endif
#define XQ_ROWS(T, M) T(M, 0) T(M, 1) T(M, 2) T(M, 3)
#define XQ_ONE(M, r) M(r, 0)
#define XQ_DECL(r, j) xlarun_k__qf a##r##j = XQ_ZERO();
#define XQ_XPTR(j) const unsigned char *x##j = xs[j];
#define XQ_PAIR(r, j)                                                                          \
    {                                                                                          \
        const unsigned char *xr_ = x##j + st * XQ_REC;                                         \
        XQ_OPAQUE(xr_);                                                                        \
        a##r##j = xlarun_k__qpair(q4, wv, dv, xr_, a##r##j);                                   \
    }
#define XQ_OUT(r, j) out[4 * j + r] = XQ_HSUM(a##r##j);
#define XQ_OUT1(r, j) out[r] = XQ_HSUM(a##r##j);
#define XQ_ROW(T, r, f) wv = xlarun_k__qw(q4, w##r, st, f); dv = xlarun_k__qd(s##r, st, f); T(XQ_PAIR, r)
#define XQ_STEP_ALL(T, f) do { xlarun_k__qwv wv; xlarun_k__qf dv; XQ_ROW(T, 0, f) XQ_ROW(T, 1, f) XQ_ROW(T, 2, f) XQ_ROW(T, 3, f) } while (0)

XLARUN_K__AI void xlarun_k__qgemv4(int q4, const unsigned char *w0, const unsigned char *w1, const unsigned char *w2,
                                   const unsigned char *w3, const unsigned char *s0, const unsigned char *s1,
                                   const unsigned char *s2, const unsigned char *s3, const unsigned char *x0,
                                   size_t K, float *out) {
    /* decode streams the codes once from memory: each step also prefetches the same bytes of
       the rows two groups on (8 rows), which keeps enough misses in flight (about twice the
       bandwidth of the hardware prefetcher alone on Zen 5). The address is an integer: a
       prefetch past the end of the matrix never faults. */
    size_t full = K / XQ_STEP, st, sz = (size_t)(XQ_STEP / (q4 ? 2 : 1)), ahead = 8 * (q4 ? K / 2 : K);
    XQ_ROWS(XQ_ONE, XQ_DECL)
    for (st = 0; st < full; st++) {
#if defined(__GNUC__)
        __builtin_prefetch((const void *)((uintptr_t)w0 + ahead + st * sz));
        __builtin_prefetch((const void *)((uintptr_t)w1 + ahead + st * sz));
        __builtin_prefetch((const void *)((uintptr_t)w2 + ahead + st * sz));
        __builtin_prefetch((const void *)((uintptr_t)w3 + ahead + st * sz));
#endif
        XQ_STEP_ALL(XQ_ONE, XQ_NB);
    }
    (void)sz; (void)ahead;
    if (full * XQ_STEP < K) XQ_STEP_ALL(XQ_ONE, XQ_TAIL);
    XQ_ROWS(XQ_ONE, XQ_OUT1)
}

#if !defined(XLARUN_K__Q512)
XLARUN_K__AI void xlarun_k__qtile(int q4, const unsigned char *w0, const unsigned char *w1, const unsigned char *w2,
                                  const unsigned char *w3, const unsigned char *s0, const unsigned char *s1,
                                  const unsigned char *s2, const unsigned char *s3,
                                  const unsigned char *const *xs, size_t K, float *out) {
    size_t full = K / XQ_STEP, st;
    XQ_TOK1(XQ_XPTR)
    XQ_ROWS(XQ_TOK, XQ_DECL)
    for (st = 0; st < full; st++) XQ_STEP_ALL(XQ_TOK, XQ_NB);
    if (full * XQ_STEP < K) XQ_STEP_ALL(XQ_TOK, XQ_TAIL);
    XQ_ROWS(XQ_TOK, XQ_OUT)
}
#endif

#if defined(XLARUN_K__Q512)
/* AVX-512: 4 rows x 8 tokens as two passes of 2 rows x 8 tokens (16 accumulators), so each row's
   codes are transposed once per 8 tokens instead of once per 4: the transposes are a third of
   a 4 x 4 tile's instructions for q8_0. Pass accumulator b<r><j> is tile row 2h + r, token j. */
#define XQ8_TOK(M, r) M(r, 0) M(r, 1) M(r, 2) M(r, 3) M(r, 4) M(r, 5) M(r, 6) M(r, 7)
#define XQ8_XPTR(j) const unsigned char *x##j = xs[j];
#define XQ8_DECL(r, j) __m512 b##r##j = _mm512_setzero_ps();
#define XQ8_PAIR(r, j)                                                                         \
    {                                                                                          \
        const unsigned char *xr_ = x##j + st * XQ_REC;                                         \
        XQ_OPAQUE(xr_);                                                                        \
        b##r##j = xlarun_k__qpair(q4, wv, dv, xr_, b##r##j);                                   \
    }
#define XQ8_ROW(r, f) wv = xlarun_k__qw(q4, w##r, st, f); dv = xlarun_k__qd(s##r, st, f); XQ8_TOK(XQ8_PAIR, r)
#define XQ8_STEP(f) do { xlarun_k__qwv wv; __m512 dv; XQ8_ROW(0, f) XQ8_ROW(1, f) } while (0)
XLARUN_K__AI void xlarun_k__qpass(int q4, const unsigned char *w0, const unsigned char *w1, const unsigned char *s0,
                                  const unsigned char *s1, const unsigned char *const *xs, size_t K, float *out, int h) {
    size_t full = K / XQ_STEP, st, j;
    float t[16];
    XQ8_TOK(XQ8_DECL, 0) XQ8_TOK(XQ8_DECL, 1)
    XQ8_XPTR(0) XQ8_XPTR(1) XQ8_XPTR(2) XQ8_XPTR(3) XQ8_XPTR(4) XQ8_XPTR(5) XQ8_XPTR(6) XQ8_XPTR(7)
    for (st = 0; st < full; st++) XQ8_STEP(XQ_NB);
    if (full * XQ_STEP < K) XQ8_STEP(XQ_TAIL);
    { /* xlarun_k__hsum of each, 16 trees side by side: t[4j + r] = a<r><j> */
        __m512 a00 = b00, a01 = b01, a02 = b02, a03 = b03, a10 = b10, a11 = b11, a12 = b12, a13 = b13;
        __m512 a20 = b04, a21 = b05, a22 = b06, a23 = b07, a30 = b14, a31 = b15, a32 = b16, a33 = b17;
        XLARUN_K__OUT4X4(t);
    }
    for (j = 0; j < 4; j++) {
        size_t o = 4 * j + 2 * (size_t)h;
        out[o] = t[4 * j];
        out[o + 1] = t[4 * j + 1];
        out[o + 16] = t[4 * j + 2];
        out[o + 17] = t[4 * j + 3];
    }
}
#undef XQ8_TOK
#undef XQ8_XPTR
#undef XQ8_DECL
#undef XQ8_PAIR
#undef XQ8_ROW
#undef XQ8_STEP
XLARUN_K__AI void xlarun_k__qtile8(int q4, const unsigned char *w0, const unsigned char *w1, const unsigned char *w2,
                                   const unsigned char *w3, const unsigned char *s0, const unsigned char *s1,
                                   const unsigned char *s2, const unsigned char *s3,
                                   const unsigned char *const *xs, size_t K, float *out) {
    xlarun_k__qpass(q4, w0, w1, s0, s1, xs, K, out, 0);
    xlarun_k__qpass(q4, w2, w3, s2, s3, xs, K, out, 1);
}
#define XQ_GEMM_TILE xlarun_k__qtile8
#else
#define XQ_GEMM_TILE xlarun_k__qtile
#endif

XLARUN_K__AI void xlarun_k__qmatmul_t(int q4, const unsigned char *W, const unsigned char *S, size_t K, size_t r0,
                                      size_t r1, const unsigned char *X, size_t n, float *Y, size_t ldy) {
    size_t rb = q4 ? K / 2 : K, sb = K / 16, xb = xlarun_k_qact_bytes_simd(K);
    size_t nrows = r1 > r0 ? r1 - r0 : 0, r, i, q, j;
    float o[4 * XQ_NT];
    W += r0 * rb; /* from here on, row r means row r0 + r */
    S += r0 * sb;
    Y += r0;
#if defined(XLARUN_K__AVX512)
    if (n == 1) { /* decode: one row at a time, codes and scales prefetched 8 rows ahead (as
                      xlarun_k__gemv1). On Zen 5, 2 threads, against four rows at once (below):
                      q8 23 -> 29 GB/s on one core; q4 whole-model decode +12-18% in A/B runs at
                      both of the machine's bandwidth states (probe 52 and 85 GB/s). Prefetching
                      a line per step instead of a row's lines in one burst at its start, with
                      every line of the scales, in two sets of 8 alternating whole-model decodes
                      (medians of the rounds in the slow state; the fast rounds' range): q8_0
                      31.0 -> 33.3 and 31.9 -> 32.4 tok/s, fast 40-43 either way; q4_0 49.8 ->
                      52.0 and 49.0 -> 55.5, fast 77-85 -> 88.6-92.6. */
        for (r = 0; r < nrows; r++) Y[r] = xlarun_k__qdot1p(q4, W + r * rb, S + r * sb, X, K, 8 * rb, 8 * sb);
        return;
    }
#endif
    if (n == 1) {
        size_t nq = nrows / 4;
        for (q = 0; q < nq; q++) {
            const unsigned char *w = W + 4 * q * rb, *s = S + 4 * q * sb;
            xlarun_k__qgemv4(q4, w, w + rb, w + 2 * rb, w + 3 * rb, s, s + sb, s + 2 * sb, s + 3 * sb, X, K, o);
            memcpy(Y + 4 * q, o, 4 * sizeof(float));
        }
        for (r = 4 * nq; r < nrows; r++) Y[r] = xlarun_k__qdot1(q4, W + r * rb, S + r * sb, X, K);
        return;
    }
    XLARUN_K__BLOCKED(nrows, rb, n, xb, XQ_NT, K, XQ_STEP, XLARUN_K__NO_CHUNKS, Y, ldy, o,
                      q4 || n > XLARUN_K__PF_TOKENS ? NULL : W, {
        const unsigned char *xs[XQ_NT];
        for (j = 0; j < XQ_NT; j++) xs[j] = X + ii[j] * xb;
        XQ_GEMM_TILE(q4, W + rr[0] * rb, W + rr[1] * rb, W + rr[2] * rb, W + rr[3] * rb, S + rr[0] * sb,
                     S + rr[1] * sb, S + rr[2] * sb, S + rr[3] * sb, xs, K, o);
    });
}

XLARUN_K__FN float xlarun_k_qdot_simd(xlarun_k_qtype qt, const void *w, const void *s, const void *xq, size_t K) {
    const unsigned char *wb = (const unsigned char *)w, *sb = (const unsigned char *)s, *xb = (const unsigned char *)xq;
    return qt == XLARUN_K_Q4_0 ? xlarun_k__qdot1(1, wb, sb, xb, K) : xlarun_k__qdot1(0, wb, sb, xb, K);
}

XLARUN_K__FN void xlarun_k_qmatmul_simd(xlarun_k_qtype qt, const void *W, const void *S, size_t K, size_t r0,
                                        size_t r1, const void *XQ, size_t n, float *Y, size_t ldy) {
    const unsigned char *Wb = (const unsigned char *)W, *Sb = (const unsigned char *)S, *Xb = (const unsigned char *)XQ;
    if (qt == XLARUN_K_Q4_0) xlarun_k__qmatmul_t(1, Wb, Sb, K, r0, r1, Xb, n, Y, ldy);
    else xlarun_k__qmatmul_t(0, Wb, Sb, K, r0, r1, Xb, n, Y, ldy);
}

#if defined(XLARUN_K__Q512)
/* the decode GEMV over S runs (see xlarun_k_qgemv): row i of S runs, codes wrun and scales srun
   bytes apart, each row with qdot1's reduction and its own lines prefetched wa / sa bytes on
   (XLARUN_K__RUN_PREFETCH: into L2 where l2, the codes then into L1 near bytes on) */
XLARUN_K__AI void xlarun_k__qgemvs(int q4, const unsigned char *w, size_t wrun, const unsigned char *s, size_t srun,
                                   const unsigned char *x, const signed char *xn, size_t K, size_t wa, size_t sa,
                                   const size_t S, float *out, size_t ldo) {
    size_t full = K / XQ_STEP, st, c, sz = (size_t)(XQ_STEP / (q4 ? 2 : 1)), ss = XQ_STEP / 16, j;
    int l2 = S == 1 ? !q4 : xlarun_k__l2(S); /* one stream: q8_0 two levels (xlarun_k__qgemv_t) */
    size_t near = l2 && !q4 ? 256 : 0; /* q8_0's codes two levels, q4_0's L2 only: XLARUN_K_L2_PREFETCH_RUNS */
    xlarun_k__qf acc[XLARUN_K_MAX_STREAMS];
    (void)xn; /* the transposes' path where the build has no VNNI */
    for (j = 0; j < S; j++) acc[j] = XQ_ZERO();
    for (st = 0; st < full; st++) {
        for (j = 0; j < S; j++) {
            for (c = (64 - ((st * sz) & 63)) & 63; c < sz; c += 64) XLARUN_K__RUN_PREFETCH(w + j * wrun, st * sz + c, wa, l2, near);
            if (((st * ss) & 63) == 0) XLARUN_K__RUN_PREFETCH(s + j * srun, st * ss, sa, l2, 0);
        }
#if defined(__AVX512VNNI__)
        if (xn) {
            const unsigned char *rec = x + st * XQ_REC;
            __m512 dx = _mm512_loadu_ps((const float *)(const void *)(rec + 512));
            for (j = 0; j < S; j++)
                acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(xlarun_k__qint_nat(w + j * wrun + st * XQ_STEP, xn + st * XQ_STEP, rec)),
                                         _mm512_mul_ps(xlarun_k__qd(s + j * srun, st, XQ_NB), dx), acc[j]);
            continue;
        }
#endif
        for (j = 0; j < S; j++)
            acc[j] = xlarun_k__qpair(q4, xlarun_k__qw(q4, w + j * wrun, st, XQ_NB), xlarun_k__qd(s + j * srun, st, XQ_NB),
                                     x + st * XQ_REC, acc[j]);
    }
    if (full * XQ_STEP < K)
        for (j = 0; j < S; j++)
            acc[j] = xlarun_k__qpair(q4, xlarun_k__qw(q4, w + j * wrun, st, XQ_TAIL), xlarun_k__qd(s + j * srun, st, XQ_TAIL),
                                     x + st * XQ_REC, acc[j]);
    for (j = 0; j < S; j++) out[j * ldo] = XQ_HSUM(acc[j]);
}

XLARUN_K__AI void xlarun_k__qgemv_t(int q4, const unsigned char *W, const unsigned char *S, size_t K, size_t r0,
                                    size_t r1, const unsigned char *X, float *Y, int ns) {
    size_t rb = q4 ? K / 2 : K, sb = K / 16, nrows = r1 > r0 ? r1 - r0 : 0, L = nrows / (size_t)ns, r;
    size_t wa = xlarun_k__ahead((size_t)ns, rb), sa = wa / (rb / sb); /* the scales as far on, in rows */
    const signed char *xn = NULL;
#if defined(__AVX512VNNI__)
    signed char xnb[XLARUN_K__QNAT_MAX];
    if (!q4 && K <= XLARUN_K__QNAT_MAX && nrows) {
        xlarun_k__qnat_x(X, K, xnb);
        xn = xnb;
    }
#endif
    W += r0 * rb;
    S += r0 * sb;
    Y += r0;
    for (r = 0; ns > 1 && r < L; r++) {
        if (ns == 2) xlarun_k__qgemvs(q4, W + r * rb, L * rb, S + r * sb, L * sb, X, xn, K, wa, sa, 2, Y + r, L);
        else if (ns == 4) xlarun_k__qgemvs(q4, W + r * rb, L * rb, S + r * sb, L * sb, X, xn, K, wa, sa, 4, Y + r, L);
        else xlarun_k__qgemvs(q4, W + r * rb, L * rb, S + r * sb, L * sb, X, xn, K, wa, sa, 8, Y + r, L);
    }
    /* one stream (Zen 5's setting, and the rows left over): q4_0 as xlarun_k__qmatmul_t's n == 1,
       8 rows ahead into L1; q8_0 4 KB ahead into L2 and 256 B into L1, as two runs do. AMD EPYC
       family 26 model 2 (Zen 5), 2 threads, whole decode (bench -p 8 -n 48 -r 1), 10 pairs
       alternating with 8 rows ahead: the host's slow state (probe 50-63 GB/s) 33.0-36.0 ->
       36.8-37.7 tok/s (run_bandwidth_ratio 0.75-0.90 -> 0.77-0.94), its fast state (78-84)
       44.1-49.1 -> 46.8-50.9 tok/s. In bench --gemv passes (a build choosing the prefetch at run
       time, K 8192, slow state) 8 rows ahead read 0.81-0.88 of a plain read, this 0.98-1.02;
       q4_0 read less with it (fast, 0.81 -> 0.74), and with each other distance and level tried
       (1-16 KB, L1 or L2). */
    for (r = ns > 1 ? (size_t)ns * L : 0; r < nrows; r++)
        xlarun_k__qgemvs(q4, W + r * rb, 0, S + r * sb, 0, X, xn, K, q4 ? 8 * rb : 4096, q4 ? 8 * sb : 256, 1, Y + r, 1);
}
#endif

XLARUN_K__FN void xlarun_k_qgemv_simd(xlarun_k_qtype qt, const void *W, const void *S, size_t K, size_t r0,
                                      size_t r1, const void *XQ, float *Y, int streams) {
#if defined(XLARUN_K__Q512)
    const unsigned char *Wb = (const unsigned char *)W, *Sb = (const unsigned char *)S, *Xb = (const unsigned char *)XQ;
    int ns = xlarun_k__streams(streams);
    if (qt == XLARUN_K_Q4_0) xlarun_k__qgemv_t(2, Wb, Sb, K, r0, r1, Xb, Y, ns);
    else xlarun_k__qgemv_t(0, Wb, Sb, K, r0, r1, Xb, Y, ns);
#else
    (void)streams;
    xlarun_k_qmatmul_simd(qt, W, S, K, r0, r1, XQ, 1, Y, 0);
#endif
}
#endif

/* ---- AMX: Intel AMX-INT8 tiles for the GEMM (n >= XLARUN_K_QAMX_MIN tokens) ----
   Built where the compiler targets AMX (__AMX_TILE__, __AMX_INT8__) on top of the AVX-512
   variant, and used only when the caller passes per-thread scratch (xlarun_k_qtiles_bytes),
   i.e. after the kernel granted this process the tile state (Linux: arch_prctl
   ARCH_REQ_XCOMP_PERM; the caller asks, these kernels make no system call). Same bits as
   xlarun_k__qmatmul_t: one TDPBSSD (16 tokens x 16 rows x one block of 32) gives the exact block
   sums, then per token acc = fma(float(isum), d * dx, acc) with the 16 weight rows in the
   vector lanes and one such chain per AVX-512 lane of the canonical order, then the same
   hsum tree across the 16 lane chains.
   The activations are repacked for the A tiles (16 tokens x 32 bytes of a block: per token a
   4-byte gather from the 640-byte records), by the call into its own scratch or, with
   xlarun_k_qamx_pack and xlarun_k_qmatmul_qamx, once for all threads, each packing some groups
   of 16 tokens (as the bf16 tiles' xlarun_k_bamx_pack: 16 threads each repacking a chunk of its
   own cost the bf16 prefill about 30%); per call and thread each 16-row panel of weights for the
   B tiles (8 x 64 bytes a block: 16 x 16 dword transposes), every block in the order the
   stream visits it (lane by lane, a lane's blocks in K order), so all reads are sequential.
   One thread of the 2-core Xeon (family 6 model 207), 256 tokens: q8_0 2.0-2.1x the f32 FMA
   peak at K = 2048, 1.2-1.4x at K = 8192; the AVX-512 GEMM about 0.7-0.8x (tools/amx/README.md). */
#define XLARUN_K_QAMX_MIN 16 /* tokens from which xlarun_k_qmatmul runs on the tiles */
#if defined(XLARUN_K_QAMX)

/* the lane of block b%16 (the canonical order's map is its own inverse) */
#define XQA_LANE(b) (4 * ((b) % 4) + (b) % 16 / 4)

/* work, 64-byte aligned: tile config 64 | C tiles 4 x 1 KB | lane sums 16 KB | B panel nb x 512
   | its scales nb x 64 | flags nb; the packing: per group of 16 tokens, A nb x 512 then its dx
   nb x 64; the self-packing call's scratch is its work (whole lines), then the packing */
XLARUN_K__FN size_t xlarun_k_qamx_work_bytes(size_t K) {
    size_t nb = K / 32;
    return 64 + 64 + 4096 + 16384 + nb * 576 + (nb + 63) / 64 * 64;
}
XLARUN_K__FN size_t xlarun_k_qamx_pack_bytes(size_t K, size_t n) { return (n + 15) / 16 * (K / 32) * 576; }
XLARUN_K__FN size_t xlarun_k_qtiles_bytes(size_t K, size_t n) { return xlarun_k_qamx_work_bytes(K) + xlarun_k_qamx_pack_bytes(K, n); }

/* the stream: lane l holds the blocks 16s + lane(l) < nb, from position lstart[l]; lstart[16] = nb */
XLARUN_K__AI void xlarun_k__qalanes(size_t nb, size_t *lstart) {
    size_t l, bl;
    lstart[0] = 0;
    for (l = 0; l < 16; l++) {
        bl = XQA_LANE(l);
        lstart[l + 1] = lstart[l] + (nb > bl ? (nb - bl + 15) / 16 : 0);
    }
}

/* the stream position of each block: lanes in order, a lane's blocks (b = 16s + lane(l)) in K order */
XLARUN_K__AI size_t xlarun_k__qapos(const size_t *lstart, size_t b) { return lstart[XQA_LANE(b)] + b / 16; }

/* the B panel: rows r .. r + nr - 1 (nr <= 16; the rest 0), wb[pos][k][n*4..] = elements 4k..4k+3
   of the block for row n; dw[pos][n] its scale as f32 */
XLARUN_K__AI void xlarun_k__qapack_w(int q4, const unsigned char *W, const unsigned char *S, size_t K, size_t nr,
                                     const size_t *lstart, signed char *wb, float *dw) {
    size_t rb = q4 ? K / 2 : K, sb = K / 16, nb = K / 32, p, n, j;
    __m512i in[16], out[16];
    for (p = 0; 2 * p < nb; p++) {
        int two = 2 * p + 1 < nb;
        for (n = 0; n < 16; n++) {
            const unsigned char *row = W + n * rb;
            if (n >= nr) in[n] = _mm512_setzero_si512();
            else if (!q4) in[n] = _mm512_maskz_loadu_epi8(two ? ~(__mmask64)0 : (__mmask64)0xFFFFFFFFull, (const void *)(row + 64 * p));
            else {
                __m256i v = _mm256_maskz_loadu_epi8(two ? ~(__mmask32)0 : (__mmask32)0xFFFF, (const void *)(row + 32 * p));
                __m256i lo = _mm256_and_si256(v, _mm256_set1_epi8(15)), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(15));
                __m512i z = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); /* lo0 lo1 hi0 hi1 */
                in[n] = _mm512_sub_epi8(_mm512_shuffle_i32x4(z, z, 0xD8), _mm512_set1_epi8(8));
            }
        }
        xlarun_k__tr16(in, out);
        for (j = 0; j < 8; j++) _mm512_storeu_si512((void *)(wb + xlarun_k__qapos(lstart, 2 * p) * 512 + j * 64), out[j]);
        for (j = 8; two && j < 16; j++) _mm512_storeu_si512((void *)(wb + xlarun_k__qapos(lstart, 2 * p + 1) * 512 + (j - 8) * 64), out[j]);
    }
    for (p = 0; 16 * p < nb; p++) {
        size_t have = nb - 16 * p < 16 ? nb - 16 * p : 16;
        for (n = 0; n < 16; n++)
            in[n] = n >= nr ? _mm512_setzero_si512()
                    : _mm512_castps_si512(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16((__mmask16)((1u << have) - 1),
                                                                                  (const void *)(S + n * sb + 32 * p))));
        xlarun_k__tr16(in, out);
        for (j = 0; j < have; j++) _mm512_storeu_si512((void *)(dw + xlarun_k__qapos(lstart, 16 * p + j) * 16), out[j]);
    }
}

/* The stream of one (16-row panel, 16-token group) pair: item i is the block at stream position
   i, one TDPBSSD into C tile i%4 whose 16 x 16 int32 go through memory to the vector unit. Step i
   stores the C of item i-2, scales item i-3, then loads and multiplies item i (tmm0-3: C,
   tmm4/5: A, tmm6/7: B), so the tile unit and the vector unit overlap. The _tile_* intrinsics
   want literal tile numbers, hence the four-way unrolled steps. */
#define XQA_DO(t, a_, w_)                                                                      \
    do {                                                                                       \
        if ((t) == 0) { _tile_loadd(4, a_, 32); _tile_loadd(6, w_, 64); _tile_zero(0); _tile_dpbssd(0, 4, 6); } \
        if ((t) == 1) { _tile_loadd(5, a_, 32); _tile_loadd(7, w_, 64); _tile_zero(1); _tile_dpbssd(1, 5, 7); } \
        if ((t) == 2) { _tile_loadd(4, a_, 32); _tile_loadd(6, w_, 64); _tile_zero(2); _tile_dpbssd(2, 4, 6); } \
        if ((t) == 3) { _tile_loadd(5, a_, 32); _tile_loadd(7, w_, 64); _tile_zero(3); _tile_dpbssd(3, 5, 7); } \
    } while (0)
#define XQA_ST(t, c_)                                                                          \
    do {                                                                                       \
        if ((t) == 0) _tile_stored(0, c_, 64);                                                 \
        if ((t) == 1) _tile_stored(1, c_, 64);                                                 \
        if ((t) == 2) _tile_stored(2, c_, 64);                                                 \
        if ((t) == 3) _tile_stored(3, c_, 64);                                                 \
    } while (0)
/* the loops over the 16 tokens of a tile, unrolled so that GCC keeps the 16 accumulators in
   registers across the stream (rolled, GCC 12 -O2 kept acc[] on the stack: a load, an FMA and
   a store per token per block; unrolled, no vector stack traffic in xlarun_k__qatile) */
#define XQA_EACH_M _Pragma("GCC unroll 16") for (m = 0; m < 16; m++)
/* flags of item p: 1 its lane's first, 2 its lane's last, 4 the lane misses a padded block;
   the lane above bit 3 */
#define XQA_POST(p_)                                                                           \
    do {                                                                                       \
        const int32_t *c_ = cb + ((p_) & 3) * 256;                                             \
        unsigned f_ = fl[p_];                                                                  \
        __m512 dv_ = _mm512_loadu_ps(dw + 16 * (p_));                                          \
        const float *dx_ = dxg + 16 * (p_);                                                    \
        if (f_ & 1)                                                                            \
            XQA_EACH_M acc[m] = _mm512_setzero_ps();                                           \
        XQA_EACH_M                                                                             \
            acc[m] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_loadu_si512((const void *)(c_ + 16 * m))), \
                                     _mm512_mul_ps(dv_, _mm512_set1_ps(dx_[m])), acc[m]);      \
        if (f_ & 2) {                                                                          \
            if (f_ & 4)                                                                        \
                XQA_EACH_M acc[m] = _mm512_add_ps(acc[m], _mm512_setzero_ps());                \
            XQA_EACH_M _mm512_storeu_ps(accb + (f_ >> 3) * 256 + 16 * m, acc[m]);              \
        }                                                                                      \
    } while (0)
#define XQA_STEP(t)                                                                            \
    do {                                                                                       \
        size_t i_ = i + (t);                                                                   \
        if (i_ >= 2 && i_ - 2 < cnt) XQA_ST(((t) + 2) & 3, cb + ((i_ - 2) & 3) * 256);         \
        if (i_ >= 3 && i_ - 3 < cnt) XQA_POST(i_ - 3);                                         \
        if (i_ < cnt) XQA_DO(t, xg + 512 * i_, wb + 512 * i_);                                 \
    } while (0)

/* out[m][n] = the result for token m, row n of the pair */
XLARUN_K__AI void xlarun_k__qatile(const signed char *xg, const float *dxg, const signed char *wb, const float *dw,
                                   const unsigned char *fl, size_t cnt, float *accb, int32_t *cb, float *out) {
    size_t i, m;
    __m512 acc[16];
    XQA_EACH_M acc[m] = _mm512_setzero_ps();
    for (i = 0; i < cnt + 3; i += 4) { XQA_STEP(0); XQA_STEP(1); XQA_STEP(2); XQA_STEP(3); }
    for (m = 0; m < 16; m++) { /* xlarun_k__hsum's tree across the 16 lane sums */
        const float *a = accb + 16 * m;
        __m512 s0 = _mm512_add_ps(_mm512_loadu_ps(a), _mm512_loadu_ps(a + 8 * 256));
        __m512 s1 = _mm512_add_ps(_mm512_loadu_ps(a + 256), _mm512_loadu_ps(a + 9 * 256));
        __m512 s2 = _mm512_add_ps(_mm512_loadu_ps(a + 2 * 256), _mm512_loadu_ps(a + 10 * 256));
        __m512 s3 = _mm512_add_ps(_mm512_loadu_ps(a + 3 * 256), _mm512_loadu_ps(a + 11 * 256));
        __m512 s4 = _mm512_add_ps(_mm512_loadu_ps(a + 4 * 256), _mm512_loadu_ps(a + 12 * 256));
        __m512 s5 = _mm512_add_ps(_mm512_loadu_ps(a + 5 * 256), _mm512_loadu_ps(a + 13 * 256));
        __m512 s6 = _mm512_add_ps(_mm512_loadu_ps(a + 6 * 256), _mm512_loadu_ps(a + 14 * 256));
        __m512 s7 = _mm512_add_ps(_mm512_loadu_ps(a + 7 * 256), _mm512_loadu_ps(a + 15 * 256));
        __m512 t0 = _mm512_add_ps(s0, s4), t1 = _mm512_add_ps(s1, s5), t2 = _mm512_add_ps(s2, s6), t3 = _mm512_add_ps(s3, s7);
        _mm512_storeu_ps(out + 16 * m, _mm512_add_ps(_mm512_add_ps(t0, t2), _mm512_add_ps(t1, t3)));
    }
}
#undef XQA_DO
#undef XQA_ST
#undef XQA_POST
#undef XQA_EACH_M
#undef XQA_STEP

/* token groups g0 .. g1 - 1 of the n rows of XQ (qact records) packed for the A tiles into P
   (xlarun_k_qamx_pack_bytes(K, n) bytes): per group xa[pos][token][32], then dx[pos][token];
   tokens past n are 0. Groups packed by separate calls (threads) make the packing of one call. */
XLARUN_K__FN void xlarun_k_qamx_pack(const void *XQ, size_t K, size_t n, size_t g0, size_t g1, void *P) {
    const unsigned char *Xb = (const unsigned char *)XQ;
    size_t xb = xlarun_k_qact_bytes_simd(K), nb = K / 32, lstart[17], m, b;
    const __m256i idx = _mm256_set_epi32(448, 384, 320, 256, 192, 128, 64, 0);
    xlarun_k__qalanes(nb, lstart);
    for (m = 16 * g0; m < 16 * g1; m++) {
        unsigned char *grp = (unsigned char *)P + (m / 16) * nb * 576;
        signed char *ga = (signed char *)grp + (m % 16) * 32;
        float *gd = (float *)(void *)(grp + nb * 512) + m % 16;
        const unsigned char *x = Xb + m * xb;
        for (b = 0; b < nb; b++) {
            size_t p = xlarun_k__qapos(lstart, b);
            if (m < n) {
                const unsigned char *rec = x + (b / 16) * XQ_REC + 4 * XQA_LANE(b);
                _mm256_storeu_si256((__m256i *)(void *)(ga + p * 512), _mm256_i32gather_epi32((const int *)(const void *)rec, idx, 1));
                memcpy(gd + p * 16, rec + 512, 4); /* dx lanes sit in the same lane order */
            } else {
                memset(ga + p * 512, 0, 32);
                gd[p * 16] = 0.0f;
            }
        }
    }
}

/* the GEMM on a packing P of all ceil(n / 16) groups; work: xlarun_k_qamx_work_bytes(K), this
   thread's */
XLARUN_K__FN void xlarun_k_qmatmul_qamx(xlarun_k_qtype qt, const void *W, const void *S, size_t K, size_t r0, size_t r1,
                                        const void *P, size_t n, float *Y, size_t ldy, void *work) {
    const unsigned char *Wb = (const unsigned char *)W, *Sb = (const unsigned char *)S, *Pb = (const unsigned char *)P;
    int q4 = qt == XLARUN_K_Q4_0;
    size_t rb = q4 ? K / 2 : K, sb = K / 16, nb = K / 32, nss = (nb + 15) / 16;
    size_t g = (n + 15) / 16, lstart[17], l, b, m, r, gi, j;
    unsigned char *base = (unsigned char *)(((uintptr_t)work + 63) & ~(uintptr_t)63);
    xlarun_k__tilecfg *cfg = (xlarun_k__tilecfg *)(void *)base;
    int32_t *cb = (int32_t *)(void *)(base + 64);
    float *accb = (float *)(void *)(base + 64 + 4096), *dw, out[256];
    signed char *wb;
    unsigned char *fl;
    wb = (signed char *)(base + 64 + 4096 + 16384);
    dw = (float *)(void *)(base + 64 + 4096 + 16384 + nb * 512);
    fl = base + 64 + 4096 + 16384 + nb * 576;
    xlarun_k__qalanes(nb, lstart);
    for (l = 0; l < 16; l++) {
        size_t c = lstart[l + 1] - lstart[l];
        for (b = 0; b < c; b++) fl[lstart[l] + b] = (unsigned char)(l << 3);
        if (c) {
            fl[lstart[l]] |= 1;
            fl[lstart[l] + c - 1] |= (unsigned char)(2 | (c < nss ? 4 : 0));
        } else /* no block at all (K < 512): the lane's chain is +0 throughout */
            for (m = 0; m < 256; m++) accb[l * 256 + m] = 0.0f;
    }
    memset(cfg, 0, sizeof *cfg);
    cfg->palette = 1;
    for (j = 0; j < 4; j++) { cfg->colsb[j] = 64; cfg->rows[j] = 16; }
    for (j = 4; j < 6; j++) { cfg->colsb[j] = 32; cfg->rows[j] = 16; }
    for (j = 6; j < 8; j++) { cfg->colsb[j] = 64; cfg->rows[j] = 8; }
    /* GCC 12 does not see that ldtilecfg reads the config: without this the stores above are
       dropped at -O2 and ldtilecfg loads zeros (then tileloadd faults) */
    __asm__ __volatile__("" : : "r"(cfg) : "memory");
    _tile_loadconfig(cfg);
    for (r = r0; r < r1; r += 16) {
        size_t nr = r1 - r < 16 ? r1 - r : 16;
        xlarun_k__qapack_w(q4, Wb + r * rb, Sb + r * sb, K, nr, lstart, wb, dw);
        for (gi = 0; gi < g; gi++) {
            size_t nt = n - 16 * gi < 16 ? n - 16 * gi : 16;
            const unsigned char *grp = Pb + gi * nb * 576;
            xlarun_k__qatile((const signed char *)grp, (const float *)(const void *)(grp + nb * 512), wb, dw, fl, nb, accb, cb, out);
            for (m = 0; m < nt; m++) memcpy(Y + (16 * gi + m) * ldy + r, out + 16 * m, nr * sizeof(float));
        }
    }
    _tile_release();
}

/* the self-packing call: its scratch holds its work, then the whole packing */
XLARUN_K__FN void xlarun_k_qmatmul_amx(xlarun_k_qtype qt, const void *W, const void *S, size_t K, size_t r0, size_t r1,
                                       const void *XQ, size_t n, float *Y, size_t ldy, void *scratch) {
    unsigned char *P = (unsigned char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63) + xlarun_k_qamx_work_bytes(K) - 64;
    if (r1 <= r0 || n == 0) return;
    xlarun_k_qamx_pack(XQ, K, n, 0, (n + 15) / 16, P);
    xlarun_k_qmatmul_qamx(qt, W, S, K, r0, r1, P, n, Y, ldy, scratch);
}
#undef XQA_LANE
#endif

#if !defined(XLARUN_K_QAMX)
XLARUN_K__FN size_t xlarun_k_qtiles_bytes(size_t K, size_t n) { (void)K; (void)n; return 0; }
XLARUN_K__FN size_t xlarun_k_qamx_work_bytes(size_t K) { (void)K; return 0; }
XLARUN_K__FN size_t xlarun_k_qamx_pack_bytes(size_t K, size_t n) { (void)K; (void)n; return 0; }
#endif

XLARUN_K__FN size_t xlarun_k_qact_bytes(size_t K) {
#if defined(XLARUN_K__QSIMD)
    return xlarun_k_qact_bytes_simd(K);
#else
    return xlarun_k_qact_bytes_ref(K);
#endif
}

XLARUN_K__FN void xlarun_k_quantize_act(const float *x, size_t K, void *xq) {
#if defined(XLARUN_K__QSIMD)
    xlarun_k_quantize_act_simd(x, K, xq);
#else
    xlarun_k_quantize_act_ref(x, K, xq);
#endif
}

XLARUN_K__FN float xlarun_k_qdot(xlarun_k_qtype qt, const void *w, const void *s, const void *xq, size_t K) {
#if defined(XLARUN_K__QSIMD)
    return xlarun_k_qdot_simd(qt, w, s, xq, K);
#else
    return xlarun_k_qdot_ref(qt, w, s, xq, K);
#endif
}

XLARUN_K__FN void xlarun_k_qmatmul(xlarun_k_qtype qt, const void *W, const void *S, size_t K, size_t r0, size_t r1,
                                   const void *XQ, size_t n, float *Y, size_t ldy, void *tiles) {
#if defined(XLARUN_K_QAMX)
    if (tiles && n >= XLARUN_K_QAMX_MIN) {
        xlarun_k_qmatmul_amx(qt, W, S, K, r0, r1, XQ, n, Y, ldy, tiles);
        return;
    }
#endif
    (void)tiles;
#if defined(XLARUN_K__QSIMD)
    xlarun_k_qmatmul_simd(qt, W, S, K, r0, r1, XQ, n, Y, ldy);
#else
    xlarun_k_qmatmul_ref(qt, W, S, K, r0, r1, XQ, n, Y, ldy);
#endif
}

/* the decode GEMV over `streams` runs of rows, as xlarun_k_gemv (the same bits as
   xlarun_k_qmatmul with n == 1 and as xlarun_k_qdot); XQ: one activation row */
XLARUN_K__FN void xlarun_k_qgemv(xlarun_k_qtype qt, const void *W, const void *S, size_t K, size_t r0, size_t r1,
                                 const void *XQ, float *Y, int streams) {
#if defined(XLARUN_K__QSIMD)
    xlarun_k_qgemv_simd(qt, W, S, K, r0, r1, XQ, Y, streams);
#else
    (void)streams;
    xlarun_k_qmatmul_ref(qt, W, S, K, r0, r1, XQ, 1, Y, 0);
#endif
}

#undef XQ_STEP
#undef XQ_REC
#undef XQ_NT
#undef XQ_ZERO
#undef XQ_HSUM
#undef XQ_TOK
#undef XQ_TOK1
#undef XQ_ROWS
#undef XQ_ONE
#undef XQ_DECL
#undef XQ_XPTR
#undef XQ_PAIR
#undef XQ_OUT
#undef XQ_OUT1
#undef XQ_ROW
#undef XQ_STEP_ALL
#undef XQ_NB
#undef XQ_GEMM_TILE
#undef XQ_PERM
#undef XQ_OPAQUE
#undef XQ_EACH8
#undef XQ_EACH4
#undef XQ_TR4
#undef XQ_TAIL

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__cplusplus)
#pragma GCC diagnostic pop
#endif

/* the per-ISA layer's macros are used only above: keep them out of the includer's namespace */
#undef XK_VL
#undef XK_NT
#undef XK_ZERO
#undef XK_SET1
#undef XK_LOAD
#undef XK_STORE
#undef XK_ADD
#undef XK_SUB
#undef XK_MUL
#undef XK_DIV
#undef XK_MIN
#undef XK_MAX
#undef XK_FMA
#undef XK_ROUND
#undef XK_TOKENS
#undef XK_TOKENS1
#undef XK_ROWS
#undef XK_T_DECL
#undef XK_T_SAVE
#undef XK_T_XPTR
#undef XK_T_FMA
#undef XK_T_PADX
#undef XK_T_OUT
#undef XK_T_STEP
#undef XB_VL
#undef XB_LOAD
#undef XB_DOT
#undef XLARUN_K__BLOCKED
#undef XLARUN_K__L1
#undef XLARUN_K__L2
#undef XLARUN_K__L3
#undef XLARUN_K__L4
#undef XLARUN_K__OUT4X4
#undef XLARUN_K__ROW_BLOCK
#undef XLARUN_K__TOKEN_GROUP
#undef XLARUN_K__TILE_X
#undef XLARUN_K__MAX_QUADS
#undef XLARUN_K__FIRST
#undef XLARUN_K__LAST

#endif /* XLARUN_KERNELS_H */
