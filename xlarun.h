/* xlarun.h - run Llama-family language models on the CPU, straight from a Hugging Face folder.
   Single-header C library (C99, also compiles as C++). No dependencies beyond libc, libm and,
   optionally, POSIX threads and mmap.

   USAGE
       Copy xlarun.h and xlarun_kernels.h into your project. In exactly ONE C or C++ file:
           #define XLARUN_IMPLEMENTATION
           #include "xlarun.h"
       Everywhere else just #include "xlarun.h".

   STEP BY STEP
       xlarun_error err;
       xlarun_model *model;
       if (xlarun_model_open("Llama-3.2-1B", NULL, &model, &err) != XLARUN_OK) {
           fprintf(stderr, "%s\n", err.message); return 1;
       }
       xlarun_session_options so = {0};        // zero means defaults
       so.n_ctx = 1024; so.n_threads = 2;
       xlarun_session *s;
       xlarun_session_create(model, &so, &s, &err);
       int32_t prompt[] = {128000, 9906, 1917};
       xlarun_session_prefill(s, prompt, 3, &err);           // logits of the last token
       int32_t next = xlarun_session_argmax(s);
       xlarun_session_decode(s, next, &err);                 // one more token
       ...
       xlarun_session_free(s);
       xlarun_model_close(model);

   CONFIGURATION (define before the #include that has XLARUN_IMPLEMENTATION)
       XLARUN_STATIC          every public function becomes static (private to one file)
       XLARUN_MALLOC(sz,u) / XLARUN_FREE(p,u)
                              allocator hooks (both or neither; u is the user pointer given in the
                              options structs). Only the convenience calls allocate; the *_in calls
                              use the memory you give and nothing else.
       XLARUN_ASSERT(x)       guards programmer errors only (never reached from input data)
       XLARUN_NO_THREADS      no pthreads: n_threads > 1 still gives the same results, run serially
       XLARUN_NO_MMAP         never map files; weights are streamed into the model's memory
       XLARUN_NO_STDIO        no file system calls at all: load through xlarun_io callbacks only
       XLARUN_SIMD_SCALAR     use the scalar reference kernels (see xlarun_kernels.h)

   ERROR REPORTING
       Every fallible call returns an xlarun_status and, when err is not NULL, fills err->message
       with one line naming the file, key or tensor, what was expected and what was found.
       Nothing in this library ends the process, or asserts on input data.

   MEMORY
       A model needs xlarun_model_memory() bytes (its tables and, without mmap, the weights); a
       session needs xlarun_session_memory() bytes (KV cache, activations, thread pool). Both are
       exact: pass that many bytes (64-byte aligned for best speed) to the *_open_in and *_create_in calls, or
       let the convenience calls allocate. After a session exists, prefill and decode allocate
       nothing. Mapped weights stay in the file's dtype (f32, f16 or bf16) and are never copied.

   THREADS
       A model is immutable once open and may be shared by sessions on any threads. A session is
       used by one thread at a time; it owns a pool of n_threads-1 workers. Each output element is
       computed by one thread in a fixed order, so results are bit-identical for any thread count,
       and prefill of a chunk is bit-identical to decoding its tokens one at a time.

   NUMERICS
       Activations and the KV cache are f32; weights are read in their stored dtype and widened
       exactly. The reference is Hugging Face transformers' LlamaForCausalLM in float32 with eager
       attention; see README.md for the measured agreement.

   API
       xlarun_status_name         xlarun_model_open          xlarun_model_memory
       xlarun_model_open_in       xlarun_model_close         xlarun_model_config
       xlarun_model_mapped_bytes  xlarun_session_memory      xlarun_session_create
       xlarun_session_create_in   xlarun_session_free        xlarun_session_reset
       xlarun_session_prefill     xlarun_session_decode      xlarun_session_logits
       xlarun_session_argmax      xlarun_session_position    xlarun_argmax
       xlarun_st_begin            xlarun_st_memory           xlarun_st_read_header
       xlarun_st_count            xlarun_st_tensor_at        xlarun_st_next
       xlarun_st_read             xlarun_dtype_name

   VERSION HISTORY
       0.1  first release: safetensors (streaming, sharded, mmap), Llama executor, greedy.

   LICENSE: MIT, see the end of this file.
*/
#ifndef XLARUN_H
#define XLARUN_H

#include <stddef.h>
#include <stdint.h>

#if defined(XLARUN_STATIC) && defined(__GNUC__)
#define XLARUN_API static __attribute__((unused))
#elif defined(XLARUN_STATIC)
#define XLARUN_API static
#else
#define XLARUN_API extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define XLARUN_VERSION "0.1"

/* ---- status ------------------------------------------------------------------------------ */

typedef enum xlarun_status {
    XLARUN_OK = 0,
    XLARUN_ERR_ARGUMENT,    /* a caller mistake: NULL pointer, zero size, token id out of range */
    XLARUN_ERR_IO,          /* a file could not be opened, read or mapped */
    XLARUN_ERR_FORMAT,      /* a file is malformed: JSON, safetensors header, offsets, limits */
    XLARUN_ERR_MODEL,       /* files that do not make one model: missing tensor, shape vs config */
    XLARUN_ERR_UNSUPPORTED, /* a valid model that xlarun does not run: architecture, rope type */
    XLARUN_ERR_MEMORY,      /* the memory given is too small, or the allocator failed */
    XLARUN_ERR_CONTEXT      /* the tokens do not fit the session's context */
} xlarun_status;

typedef struct xlarun_error {
    xlarun_status status;
    char message[512];
} xlarun_error;

XLARUN_API const char *xlarun_status_name(xlarun_status s);

/* ---- safetensors streaming reader --------------------------------------------------------- */

/* Read up to n bytes into buf; return the count (0 only at the end of the file), or (size_t)-1
   on a read error. Short reads are fine. */
typedef size_t (*xlarun_read_fn)(void *user, void *buf, size_t n);

typedef enum xlarun_dtype {
    XLARUN_DTYPE_BOOL, XLARUN_DTYPE_U8, XLARUN_DTYPE_I8, XLARUN_DTYPE_F8_E5M2,
    XLARUN_DTYPE_F8_E4M3, XLARUN_DTYPE_F8_E8M0, XLARUN_DTYPE_F8_E4M3FNUZ,
    XLARUN_DTYPE_F8_E5M2FNUZ, XLARUN_DTYPE_I16, XLARUN_DTYPE_U16, XLARUN_DTYPE_F16,
    XLARUN_DTYPE_BF16, XLARUN_DTYPE_I32, XLARUN_DTYPE_U32, XLARUN_DTYPE_F32, XLARUN_DTYPE_F64,
    XLARUN_DTYPE_I64, XLARUN_DTYPE_U64, XLARUN_DTYPE_C64, XLARUN_DTYPE_F4, XLARUN_DTYPE_F6_E2M3,
    XLARUN_DTYPE_F6_E3M2, XLARUN_DTYPE_COUNT
} xlarun_dtype;

XLARUN_API const char *xlarun_dtype_name(xlarun_dtype d);

#define XLARUN_MAX_DIMS 8
#define XLARUN_MAX_HEADER_BYTES 100000000u /* the safetensors limit on the JSON header */

typedef struct xlarun_st_tensor {
    const char *name;                 /* NUL-terminated, inside the reader's memory */
    xlarun_dtype dtype;
    uint32_t ndim;
    uint64_t shape[XLARUN_MAX_DIMS];
    uint64_t offset;                  /* from the start of the file */
    uint64_t nbytes;
} xlarun_st_tensor;

typedef struct xlarun_st_reader {     /* all fields private */
    xlarun_read_fn read;
    void *user;
    const char *file;                 /* for messages */
    uint64_t file_size;               /* 0 when unknown */
    uint64_t header_bytes;
    uint64_t pos;                     /* bytes consumed from the stream */
    char *text;
    xlarun_st_tensor *tensors;
    size_t n_tensors, next;
    uint64_t remaining;               /* unread bytes of the current tensor */
    int state;
} xlarun_st_reader;

/* Pull-style reading of one .safetensors stream, no seeking needed:
     xlarun_st_begin        reads the 8-byte header length and checks it (file_size 0 = unknown)
     xlarun_st_memory       the bytes xlarun_st_read_header needs
     xlarun_st_read_header  reads and validates the whole header: JSON, dtypes, shapes, offsets
                            (contiguous from 0, no gaps or overlaps), duplicate names, file size
     xlarun_st_count / xlarun_st_tensor_at   the tensors in file order
     xlarun_st_next         advances to the next tensor in file order (skipping unread bytes);
                            *t = NULL after the last one, once the end of the stream is confirmed
     xlarun_st_read         reads bytes of the current tensor, in chunks of any size */
XLARUN_API xlarun_status xlarun_st_begin(xlarun_st_reader *r, xlarun_read_fn read, void *user,
                                         const char *file_name, uint64_t file_size,
                                         xlarun_error *err);
XLARUN_API size_t xlarun_st_memory(const xlarun_st_reader *r);
XLARUN_API xlarun_status xlarun_st_read_header(xlarun_st_reader *r, void *mem, size_t bytes,
                                               xlarun_error *err);
XLARUN_API size_t xlarun_st_count(const xlarun_st_reader *r);
XLARUN_API const xlarun_st_tensor *xlarun_st_tensor_at(const xlarun_st_reader *r, size_t i);
XLARUN_API xlarun_status xlarun_st_next(xlarun_st_reader *r, const xlarun_st_tensor **t,
                                        xlarun_error *err);
XLARUN_API xlarun_status xlarun_st_read(xlarun_st_reader *r, void *buf, size_t n, size_t *got,
                                        xlarun_error *err);

/* ---- model ---------------------------------------------------------------------------------- */

typedef enum xlarun_rope_type {
    XLARUN_ROPE_DEFAULT = 0, XLARUN_ROPE_LINEAR, XLARUN_ROPE_LLAMA3
} xlarun_rope_type;

#define XLARUN_MAX_EOS 8

typedef struct xlarun_config {      /* config.json, checked; read-only */
    uint32_t vocab_size, hidden_size, intermediate_size, n_layers;
    uint32_t n_heads, n_kv_heads, head_dim, max_position_embeddings;
    float rms_norm_eps;
    float rope_theta;
    xlarun_rope_type rope_type;
    float rope_factor, rope_low_freq_factor, rope_high_freq_factor;
    uint32_t rope_original_max_position_embeddings;
    int tie_word_embeddings;
    int32_t bos_token_id;           /* -1 when absent */
    uint32_t n_eos;
    int32_t eos_token_ids[XLARUN_MAX_EOS];
} xlarun_config;

/* Loading from anything that is not a file system: open returns a handle or NULL when the file
   does not exist; read as xlarun_read_fn; close releases it. Files are named relative to the
   model folder ("config.json", "model.safetensors", ...). With io set, nothing is mapped. */
typedef struct xlarun_io {
    void *(*open)(void *user, const char *name);
    size_t (*read)(void *handle, void *buf, size_t n);
    void (*close)(void *handle);
    void *user;
} xlarun_io;

typedef struct xlarun_model_options { /* zero-initialised means defaults */
    int no_mmap;                    /* 1: stream the weights into the model's memory */
    const xlarun_io *io;            /* NULL: the file system */
    void *alloc_user;               /* passed to XLARUN_MALLOC/XLARUN_FREE */
} xlarun_model_options;

typedef struct xlarun_model xlarun_model;

XLARUN_API xlarun_status xlarun_model_memory(const char *dir, const xlarun_model_options *opt,
                                             size_t *bytes, xlarun_error *err);
XLARUN_API xlarun_status xlarun_model_open_in(const char *dir, const xlarun_model_options *opt,
                                              void *mem, size_t bytes, xlarun_model **out,
                                              xlarun_error *err);
XLARUN_API xlarun_status xlarun_model_open(const char *dir, const xlarun_model_options *opt,
                                           xlarun_model **out, xlarun_error *err);
XLARUN_API void xlarun_model_close(xlarun_model *m);
XLARUN_API const xlarun_config *xlarun_model_config(const xlarun_model *m);
XLARUN_API uint64_t xlarun_model_mapped_bytes(const xlarun_model *m);
XLARUN_API uint64_t xlarun_model_weight_bytes(const xlarun_model *m); /* bytes read per token */

/* ---- session ------------------------------------------------------------------------------- */

typedef struct xlarun_session_options { /* zero-initialised means defaults */
    uint32_t n_ctx;                 /* tokens the KV cache holds; 0: min(4096, max_position) */
    uint32_t n_batch;               /* prefill chunk in tokens; 0: 64 */
    uint32_t n_threads;             /* 0: 1 */
    void *alloc_user;
} xlarun_session_options;

typedef struct xlarun_session xlarun_session;

XLARUN_API xlarun_status xlarun_session_memory(const xlarun_model *m,
                                               const xlarun_session_options *opt,
                                               size_t *bytes, xlarun_error *err);
XLARUN_API xlarun_status xlarun_session_create_in(const xlarun_model *m,
                                                  const xlarun_session_options *opt, void *mem,
                                                  size_t bytes, xlarun_session **out,
                                                  xlarun_error *err);
XLARUN_API xlarun_status xlarun_session_create(const xlarun_model *m,
                                               const xlarun_session_options *opt,
                                               xlarun_session **out, xlarun_error *err);
XLARUN_API void xlarun_session_free(xlarun_session *s);
XLARUN_API void xlarun_session_reset(xlarun_session *s);           /* empty the context */
/* Run tokens through the model after those already in the context; on success the logits of
   the last one are ready. On any error the session is unchanged. */
XLARUN_API xlarun_status xlarun_session_prefill(xlarun_session *s, const int32_t *ids, size_t n,
                                                xlarun_error *err);
XLARUN_API xlarun_status xlarun_session_decode(xlarun_session *s, int32_t id, xlarun_error *err);
XLARUN_API const float *xlarun_session_logits(const xlarun_session *s); /* vocab_size, or NULL */
XLARUN_API int32_t xlarun_session_argmax(const xlarun_session *s);     /* -1 when no logits */
XLARUN_API size_t xlarun_session_position(const xlarun_session *s);    /* tokens in context */
XLARUN_API int32_t xlarun_argmax(const float *x, size_t n); /* first maximal index, as torch */

/* ---- tokenizer ------------------------------------------------------------------------------ */

/* ---- generation ----------------------------------------------------------------------------- */

#ifdef __cplusplus
}
#endif
#endif /* XLARUN_H */

/* ============================================================================================ */
/*                                      IMPLEMENTATION                                          */
/* ============================================================================================ */
#ifdef XLARUN_IMPLEMENTATION
#ifndef XLARUN_IMPLEMENTATION_INCLUDED
#define XLARUN_IMPLEMENTATION_INCLUDED

#include "xlarun_kernels.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(XLARUN_MALLOC) != defined(XLARUN_FREE)
#error "define both XLARUN_MALLOC and XLARUN_FREE, or neither"
#endif
#ifndef XLARUN_MALLOC
#include <stdlib.h>
#define XLARUN_MALLOC(sz, u) ((void)(u), malloc(sz))
#define XLARUN_FREE(p, u) ((void)(u), free(p))
#endif
#ifndef XLARUN_ASSERT
#include <assert.h>
#define XLARUN_ASSERT(x) assert(x)
#endif

#if !defined(XLARUN_NO_STDIO) && (defined(__unix__) || defined(__APPLE__))
#define XLARUN__POSIX_FILES 1
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if !defined(XLARUN_NO_MMAP)
#define XLARUN__MMAP 1
#include <sys/mman.h>
#endif
#endif
#if !defined(XLARUN_NO_THREADS)
#include <pthread.h>
#endif

#ifdef __cplusplus
#define XLARUN__CAST(T, x) static_cast<T>(x)
#define XLARUN__PUN(T, x) reinterpret_cast<T>(x)
#else
#define XLARUN__CAST(T, x) ((T)(x))
#define XLARUN__PUN(T, x) ((T)(x))
#endif

/* ============================== 1. BASE ======================================================= */
/* status text, error messages, the arena, platform shims (files, mmap, threads), strict JSON.  */

XLARUN_API const char *xlarun_status_name(xlarun_status s) {
    switch (s) {
    case XLARUN_OK: return "ok";
    case XLARUN_ERR_ARGUMENT: return "invalid argument";
    case XLARUN_ERR_IO: return "i/o error";
    case XLARUN_ERR_FORMAT: return "malformed file";
    case XLARUN_ERR_MODEL: return "inconsistent model";
    case XLARUN_ERR_UNSUPPORTED: return "unsupported model";
    case XLARUN_ERR_MEMORY: return "out of memory";
    case XLARUN_ERR_CONTEXT: return "context full";
    }
    return "unknown status";
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static xlarun_status xlarun__fail(xlarun_error *err, xlarun_status st, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = st;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return st;
}

#define XLARUN__TRY(x) do { xlarun_status st_ = (x); if (st_ != XLARUN_OK) return st_; } while (0)

static void xlarun__ok(xlarun_error *err) {
    if (err) { err->status = XLARUN_OK; err->message[0] = 0; }
}

/* overflow-checked size arithmetic on values that come from files */
static int xlarun__mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
    if (a != 0 && b > UINT64_MAX / a) return 0;
    *out = a * b;
    return 1;
}

/* ---- arena --------------------------------------------------------------------------------
   One block, two ends: lasting allocations grow up from the bottom, temporaries (JSON text,
   header tables) grow down from the top and are released in stack order. Offsets are multiples
   of 64 counted from the base, so the layout is the same for any base address and the size a
   measuring pass reports is exact.
   A measuring pass runs the same code with every non-bulk allocation served by XLARUN_MALLOC
   (and freed at the end), bulk allocations (weights, KV cache) only counted. */
#define XLARUN__ALIGN 64u

typedef struct xlarun__block { struct xlarun__block *prev; } xlarun__block;

typedef struct xlarun__arena {
    unsigned char *base;        /* NULL while measuring */
    size_t size;                /* usable bytes, a multiple of 64 */
    size_t given;               /* bytes the caller gave */
    size_t low, high;           /* bytes used at the bottom and at the top */
    size_t peak;                /* max low + high seen */
    xlarun__block *blocks;      /* measuring: the real allocations to free */
    void *alloc_user;
    int failed;                 /* a malloc failed while measuring */
} xlarun__arena;

static size_t xlarun__round64(size_t n) {
    return (n + (XLARUN__ALIGN - 1)) & ~XLARUN__CAST(size_t, XLARUN__ALIGN - 1);
}

static void xlarun__arena_init(xlarun__arena *a, void *mem, size_t size, void *alloc_user) {
    memset(a, 0, sizeof *a);
    a->base = XLARUN__CAST(unsigned char *, mem);
    a->size = mem ? (size & ~XLARUN__CAST(size_t, XLARUN__ALIGN - 1)) : SIZE_MAX;
    a->given = size;
    a->alloc_user = alloc_user;
}

static void *xlarun__measure_block(xlarun__arena *a, size_t n) {
    size_t hdr = xlarun__round64(sizeof(xlarun__block));
    xlarun__block *b;
    if (n > SIZE_MAX - hdr) { a->failed = 1; return NULL; }
    b = XLARUN__CAST(xlarun__block *, XLARUN_MALLOC(hdr + n, a->alloc_user));
    if (!b) { a->failed = 1; return NULL; }
    b->prev = a->blocks;
    a->blocks = b;
    return XLARUN__PUN(unsigned char *, b) + hdr;
}

static void xlarun__arena_release_blocks(xlarun__arena *a) {
    while (a->blocks) {
        xlarun__block *p = a->blocks->prev;
        XLARUN_FREE(a->blocks, a->alloc_user);
        a->blocks = p;
    }
}

/* bulk: only counted while measuring (returns NULL then, callers must not touch it) */
static void *xlarun__alloc_ex(xlarun__arena *a, size_t n, int top, int bulk) {
    size_t r;
    if (n > SIZE_MAX - XLARUN__ALIGN) return NULL;
    r = xlarun__round64(n ? n : 1);
    if (r > a->size - a->low - a->high) return NULL; /* cannot underflow: low+high <= size */
    if (top) a->high += r; else a->low += r;
    if (a->low + a->high > a->peak) a->peak = a->low + a->high;
    if (!a->base) {
        if (bulk) return NULL;
        return xlarun__measure_block(a, r);
    }
    return top ? a->base + a->size - a->high : a->base + a->low - r;
}

static int xlarun__measuring(const xlarun__arena *a) { return a->base == NULL; }

/* the arena ran out: name the size given and where the exact size comes from */
static xlarun_status xlarun__no_room(const xlarun__arena *a, const char *what, xlarun_error *err) {
    return xlarun__fail(err, XLARUN_ERR_MEMORY, "%lu bytes of %s memory are too few (xlarun_%s_memory gives the size)",
                        XLARUN__CAST(unsigned long, a->given), what, what);
}

/* ---- platform: files and maps ------------------------------------------------------------- */

typedef struct xlarun__file {
    const xlarun_io *io;
    void *handle;               /* io handle */
    int fd;                     /* POSIX */
    uint64_t size;              /* 0 when unknown (io) */
} xlarun__file;

static xlarun_status xlarun__file_open(xlarun__file *f, const xlarun_io *io, const char *dir,
                                       const char *name, char *path, size_t path_cap,
                                       xlarun_error *err) {
    int n = snprintf(path, path_cap, "%s%s%s", dir, (dir[0] && dir[strlen(dir) - 1] != '/') ? "/" : "", name);
    memset(f, 0, sizeof *f);
    f->fd = -1;
    if (n < 0 || XLARUN__CAST(size_t, n) >= path_cap)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "path too long: %s/%s", dir, name);
    f->io = io;
    if (io) {
        f->handle = io->open(io->user, name);
        if (!f->handle) return xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot open", path);
        return XLARUN_OK;
    }
#if defined(XLARUN__POSIX_FILES)
    {
        struct stat st;
        f->fd = open(path, O_RDONLY);
        if (f->fd < 0) return xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot open", path);
        if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(f->fd);
            f->fd = -1;
            return xlarun__fail(err, XLARUN_ERR_IO, "%s: not a regular file", path);
        }
        f->size = XLARUN__CAST(uint64_t, st.st_size);
        return XLARUN_OK;
    }
#else
    return xlarun__fail(err, XLARUN_ERR_ARGUMENT,
                        "%s: built without file access (XLARUN_NO_STDIO): pass xlarun_io", path);
#endif
}

static size_t xlarun__file_read(void *user, void *buf, size_t n) {
    xlarun__file *f = XLARUN__CAST(xlarun__file *, user);
    if (f->io) return f->io->read(f->handle, buf, n);
#if defined(XLARUN__POSIX_FILES)
    {
        ssize_t r;
        if (n > (1u << 30)) n = 1u << 30;
        do r = read(f->fd, buf, n); while (r < 0 && errno == EINTR);
        return r < 0 ? XLARUN__CAST(size_t, -1) : XLARUN__CAST(size_t, r);
    }
#else
    (void)buf; (void)n;
    return XLARUN__CAST(size_t, -1);
#endif
}

static void xlarun__file_close(xlarun__file *f) {
    if (f->io) {
        if (f->handle) f->io->close(f->handle);
        f->handle = NULL;
    }
#if defined(XLARUN__POSIX_FILES)
    if (f->fd >= 0) close(f->fd);
#endif
    f->fd = -1;
}

/* read a whole small file (config.json, index) into the arena's top, NUL-terminated */
static xlarun_status xlarun__read_small(xlarun__arena *a, const xlarun_io *io, const char *dir,
                                        const char *name, size_t limit, char **text,
                                        size_t *len, xlarun_error *err) {
    char path[4096];
    xlarun__file f;
    size_t cap, n = 0;
    char *buf;
    xlarun_status st = xlarun__file_open(&f, io, dir, name, path, sizeof path, err);
    if (st != XLARUN_OK) return st;
    if (f.size > limit) {
        xlarun__file_close(&f);
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: %llu bytes is over the limit of %llu",
                            path, XLARUN__CAST(unsigned long long, f.size),
                            XLARUN__CAST(unsigned long long, limit));
    }
    if (!f.size) { /* size unknown (io callbacks): count, then read again into an exact buffer */
        char chunk[4096];
        uint64_t total = 0;
        for (;;) {
            size_t r = xlarun__file_read(&f, chunk, sizeof chunk);
            if (r == XLARUN__CAST(size_t, -1)) {
                xlarun__file_close(&f);
                return xlarun__fail(err, XLARUN_ERR_IO, "%s: read error", path);
            }
            if (r == 0) break;
            total += r;
            if (total > limit) {
                xlarun__file_close(&f);
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: larger than the limit of %llu bytes", path,
                                    XLARUN__CAST(unsigned long long, limit));
            }
        }
        xlarun__file_close(&f);
        XLARUN__TRY(xlarun__file_open(&f, io, dir, name, path, sizeof path, err));
        f.size = total;
    }
    cap = XLARUN__CAST(size_t, f.size) + 1;
    buf = XLARUN__CAST(char *, xlarun__alloc_ex(a, cap, 1, 0));
    if (!buf) {
        xlarun__file_close(&f);
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "%s: no memory for %llu bytes", path,
                            XLARUN__CAST(unsigned long long, cap));
    }
    for (;;) {
        size_t r = xlarun__file_read(&f, buf + n, cap - n);
        if (r == XLARUN__CAST(size_t, -1)) {
            xlarun__file_close(&f);
            return xlarun__fail(err, XLARUN_ERR_IO, "%s: read error", path);
        }
        if (r == 0) break;
        n += r;
        if (n == cap) {
            xlarun__file_close(&f);
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: larger than the limit of %llu bytes",
                                path, XLARUN__CAST(unsigned long long, limit));
        }
    }
    xlarun__file_close(&f);
    buf[n] = 0;
    *text = buf;
    *len = n;
    return XLARUN_OK;
}

/* ---- strict JSON (RFC 8259) ------------------------------------------------------------------
   xlarun__json_validate checks a whole document once: grammar, UTF-8, escapes (surrogate pairs
   must pair up), nesting depth. After that the cursor functions walk the text in place with no
   allocation; they assume a validated document. */
#define XLARUN_JSON_MAX_DEPTH 64

/* length of the UTF-8 sequence at p (1..4), or 0 if it is not valid UTF-8 */
static size_t xlarun__utf8_len(const unsigned char *p, size_t n) {
    unsigned c = p[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return (n >= 2 && (p[1] & 0xC0) == 0x80) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;           /* overlong */
        if (c == 0xED && p[1] >= 0xA0) return 0;          /* surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;           /* overlong */
        if (c == 0xF4 && p[1] >= 0x90) return 0;          /* > U+10FFFF */
        return 4;
    }
    return 0;
}

static int xlarun__hex4(const char *s, unsigned *out) {
    unsigned v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= XLARUN__CAST(unsigned, c - '0');
        else if (c >= 'a' && c <= 'f') v |= XLARUN__CAST(unsigned, c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= XLARUN__CAST(unsigned, c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static size_t xlarun__json_ws(const char *s, size_t n, size_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* s[i] == '"'; returns the index after the closing quote, or 0 with *why set */
static size_t xlarun__json_scan_string(const char *s, size_t n, size_t i, const char **why) {
    const unsigned char *u = XLARUN__PUN(const unsigned char *, s);
    i++;
    while (i < n) {
        unsigned c = u[i];
        if (c == '"') return i + 1;
        if (c < 0x20) { *why = "control character in a string"; return 0; }
        if (c == '\\') {
            unsigned cp, lo;
            if (i + 1 >= n) break;
            c = u[i + 1];
            if (c != 'u') {
                if (!strchr("\"\\/bfnrt", XLARUN__CAST(int, c)) || c == 0) { *why = "invalid escape"; return 0; }
                i += 2;
                continue;
            }
            if (i + 6 > n || !xlarun__hex4(s + i + 2, &cp)) { *why = "invalid \\u escape"; return 0; }
            i += 6;
            if (cp >= 0xDC00 && cp <= 0xDFFF) { *why = "unpaired surrogate escape"; return 0; }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (i + 6 > n || s[i] != '\\' || s[i + 1] != 'u' || !xlarun__hex4(s + i + 2, &lo) ||
                    lo < 0xDC00 || lo > 0xDFFF) {
                    *why = "unpaired surrogate escape";
                    return 0;
                }
                i += 6;
            }
            continue;
        }
        if (c >= 0x80) {
            size_t l = xlarun__utf8_len(u + i, n - i);
            if (!l) { *why = "invalid UTF-8 in a string"; return 0; }
            i += l;
            continue;
        }
        i++;
    }
    *why = "unterminated string";
    return 0;
}

static size_t xlarun__json_scan_number(const char *s, size_t n, size_t i, const char **why) {
    size_t d;
    if (i < n && s[i] == '-') i++;
    if (i < n && s[i] == '0') i++;
    else if (i < n && s[i] >= '1' && s[i] <= '9') { while (i < n && s[i] >= '0' && s[i] <= '9') i++; }
    else { *why = "invalid number"; return 0; }
    if (i < n && s[i] == '.') {
        d = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        if (i == d) { *why = "invalid number"; return 0; }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        d = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        if (i == d) { *why = "invalid number"; return 0; }
    }
    return i;
}

/* line and column of byte i, for messages */
static void xlarun__line_col(const char *s, size_t i, size_t *line, size_t *col) {
    size_t k, l = 1, c = 1;
    for (k = 0; k < i; k++) {
        if (s[k] == '\n') { l++; c = 1; } else c++;
    }
    *line = l;
    *col = c;
}

static xlarun_status xlarun__json_validate(const char *s, size_t n, const char *what,
                                           xlarun_error *err) {
    unsigned char stack[XLARUN_JSON_MAX_DEPTH]; /* '{' or '[' */
    size_t depth = 0, i = 0, line, col;
    const char *why = "unexpected character";
    enum { VALUE, KEY, AFTER } state = VALUE;
    for (;;) {
        i = xlarun__json_ws(s, n, i);
        if (state == VALUE) {
            size_t j = 0;
            if (i >= n) { why = "unexpected end of input"; goto bad; }
            switch (s[i]) {
            case '{': case '[':
                if (depth == XLARUN_JSON_MAX_DEPTH) { why = "nesting deeper than 64"; goto bad; }
                stack[depth++] = XLARUN__CAST(unsigned char, s[i]);
                i = xlarun__json_ws(s, n, i + 1);
                if (i < n && s[i] == (stack[depth - 1] == '{' ? '}' : ']')) { depth--; i++; state = AFTER; }
                else state = stack[depth - 1] == '{' ? KEY : VALUE;
                continue;
            case '"': j = xlarun__json_scan_string(s, n, i, &why); break;
            case 't': j = (n - i >= 4 && !memcmp(s + i, "true", 4)) ? i + 4 : 0; break;
            case 'f': j = (n - i >= 5 && !memcmp(s + i, "false", 5)) ? i + 5 : 0; break;
            case 'n': j = (n - i >= 4 && !memcmp(s + i, "null", 4)) ? i + 4 : 0; break;
            default:
                if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) j = xlarun__json_scan_number(s, n, i, &why);
                else why = "unexpected character";
            }
            if (!j) goto bad;
            i = j;
            state = AFTER;
        } else if (state == KEY) {
            size_t j;
            if (i >= n || s[i] != '"') { why = "expected a string key"; goto bad; }
            j = xlarun__json_scan_string(s, n, i, &why);
            if (!j) goto bad;
            i = xlarun__json_ws(s, n, j);
            if (i >= n || s[i] != ':') { why = "expected ':'"; goto bad; }
            i++;
            state = VALUE;
        } else {
            if (depth == 0) {
                if (i != n) { why = "trailing characters after the value"; goto bad; }
                return XLARUN_OK;
            }
            if (i >= n) { why = "unexpected end of input"; goto bad; }
            if (s[i] == ',') { i++; state = stack[depth - 1] == '{' ? KEY : VALUE; continue; }
            if (s[i] == (stack[depth - 1] == '{' ? '}' : ']')) { depth--; i++; continue; }
            why = stack[depth - 1] == '{' ? "expected ',' or '}'" : "expected ',' or ']'";
            goto bad;
        }
    }
bad:
    if (i > n) i = n;
    xlarun__line_col(s, i, &line, &col);
    return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: invalid JSON at line %lu column %lu: %s", what,
                        XLARUN__CAST(unsigned long, line), XLARUN__CAST(unsigned long, col), why);
}

/* cursor over a validated document; values are byte offsets of their first character */
#define XLARUN__NONE (~XLARUN__CAST(size_t, 0))

typedef struct xlarun__json { const char *s; size_t n; } xlarun__json;

static size_t xlarun__json_skip(const xlarun__json *j, size_t i) {
    const char *why;
    size_t depth = 0;
    do {
        i = xlarun__json_ws(j->s, j->n, i);
        switch (j->s[i]) {
        case '{': case '[': depth++; i++; break;
        case '}': case ']': depth--; i++; break;
        case ',': case ':': i++; break;
        case '"': i = xlarun__json_scan_string(j->s, j->n, i, &why); break;
        case 't': case 'n': i += 4; break;
        case 'f': i += 5; break;
        default: i = xlarun__json_scan_number(j->s, j->n, i, &why);
        }
    } while (depth > 0);
    return i;
}

/* iterate an object (keys) or array (key stays NONE): *it starts at the '{' or '[' */
static int xlarun__json_next(const xlarun__json *j, size_t *it, size_t *key, size_t *val) {
    size_t i = xlarun__json_ws(j->s, j->n, *it);
    if (j->s[i] == '{' || j->s[i] == '[' || j->s[i] == ',') i = xlarun__json_ws(j->s, j->n, i + 1);
    if (j->s[i] == '}' || j->s[i] == ']') return 0;
    if (key) *key = XLARUN__NONE;
    if (j->s[i] == '"' && j->s[xlarun__json_ws(j->s, j->n, xlarun__json_skip(j, i))] == ':') {
        if (key) *key = i;
        i = xlarun__json_ws(j->s, j->n, xlarun__json_skip(j, i)) + 1;
        i = xlarun__json_ws(j->s, j->n, i);
    }
    *val = i;
    *it = xlarun__json_ws(j->s, j->n, xlarun__json_skip(j, i));
    return 1;
}

/* decode the string at i (a '"') into out (cap bytes incl. NUL); returns the length, or
   XLARUN__NONE if it does not fit. out may be NULL to measure. */
static size_t xlarun__json_str(const xlarun__json *j, size_t i, char *out, size_t cap) {
    const char *s = j->s;
    size_t n = 0;
    i++;
    while (s[i] != '"') {
        unsigned cp;
        char buf[4];
        size_t k, len = 1;
        if (s[i] != '\\') { buf[0] = s[i++]; }
        else {
            char e = s[i + 1];
            i += 2;
            switch (e) {
            case 'b': buf[0] = '\b'; break;
            case 'f': buf[0] = '\f'; break;
            case 'n': buf[0] = '\n'; break;
            case 'r': buf[0] = '\r'; break;
            case 't': buf[0] = '\t'; break;
            case 'u':
                xlarun__hex4(s + i, &cp);
                i += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned lo;
                    xlarun__hex4(s + i + 2, &lo);
                    i += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                if (cp < 0x80) buf[0] = XLARUN__CAST(char, cp);
                else if (cp < 0x800) {
                    buf[0] = XLARUN__CAST(char, 0xC0 | (cp >> 6));
                    buf[1] = XLARUN__CAST(char, 0x80 | (cp & 0x3F));
                    len = 2;
                } else if (cp < 0x10000) {
                    buf[0] = XLARUN__CAST(char, 0xE0 | (cp >> 12));
                    buf[1] = XLARUN__CAST(char, 0x80 | ((cp >> 6) & 0x3F));
                    buf[2] = XLARUN__CAST(char, 0x80 | (cp & 0x3F));
                    len = 3;
                } else {
                    buf[0] = XLARUN__CAST(char, 0xF0 | (cp >> 18));
                    buf[1] = XLARUN__CAST(char, 0x80 | ((cp >> 12) & 0x3F));
                    buf[2] = XLARUN__CAST(char, 0x80 | ((cp >> 6) & 0x3F));
                    buf[3] = XLARUN__CAST(char, 0x80 | (cp & 0x3F));
                    len = 4;
                }
                break;
            default: buf[0] = e; /* " \ / */
            }
        }
        for (k = 0; k < len; k++, n++)
            if (out) {
                if (n + 1 >= cap) return XLARUN__NONE;
                out[n] = buf[k];
            }
    }
    if (out) out[n] = 0;
    return n;
}

/* does the string at i decode to lit? */
static int xlarun__json_eq(const xlarun__json *j, size_t i, const char *lit) {
    char buf[128];
    size_t n = strlen(lit);
    if (n >= sizeof buf) return 0;
    if (xlarun__json_str(j, i, buf, n + 2) != n) return 0;
    return memcmp(buf, lit, n) == 0;
}

/* value of key in the object at obj (the last one if repeated, as Python's json); NONE if absent */
static size_t xlarun__json_get(const xlarun__json *j, size_t obj, const char *key) {
    size_t it = obj, k, v, found = XLARUN__NONE;
    if (obj == XLARUN__NONE || j->s[obj] != '{') return XLARUN__NONE;
    while (xlarun__json_next(j, &it, &k, &v))
        if (xlarun__json_eq(j, k, key)) found = v;
    return found;
}

static int xlarun__json_is_null(const xlarun__json *j, size_t v) {
    return v == XLARUN__NONE || j->s[v] == 'n';
}
static int xlarun__json_is_number(const xlarun__json *j, size_t v) {
    return v != XLARUN__NONE && (j->s[v] == '-' || (j->s[v] >= '0' && j->s[v] <= '9'));
}

/* parse a JSON number (validated syntax) to double, correctly rounded in the common cases */
static double xlarun__json_double(const xlarun__json *j, size_t i) {
    static const double p10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *s = j->s;
    uint64_t m = 0;
    long e = 0, ex = 0;
    int neg = 0, digits = 0, eneg = 0;
    double v;
    if (s[i] == '-') { neg = 1; i++; }
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        if (digits < 19) { m = m * 10 + XLARUN__CAST(uint64_t, s[i] - '0'); if (m) digits++; }
        else e++;
    }
    if (s[i] == '.')
        for (i++; s[i] >= '0' && s[i] <= '9'; i++)
            if (digits < 19) { m = m * 10 + XLARUN__CAST(uint64_t, s[i] - '0'); if (m) digits++; e--; }
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        if (s[i] == '+' || s[i] == '-') eneg = s[i++] == '-';
        for (; s[i] >= '0' && s[i] <= '9'; i++)
            if (ex < 100000) ex = ex * 10 + (s[i] - '0');
    }
    e += eneg ? -ex : ex;
    if (m == 0) v = 0.0;
    else if (m < (XLARUN__CAST(uint64_t, 1) << 53) && e >= -22 && e <= 22)
        v = e >= 0 ? XLARUN__CAST(double, m) * p10[e] : XLARUN__CAST(double, m) / p10[-e];
    else if (e > 400) v = HUGE_VAL;
    else if (e < -400) v = 0.0;
    else v = XLARUN__CAST(double, XLARUN__CAST(long double, m) * powl(10.0L, XLARUN__CAST(long double, e)));
    return neg ? -v : v;
}

/* a non-negative integer with no fraction or exponent, at most max */
static int xlarun__json_uint(const xlarun__json *j, size_t i, uint64_t max, uint64_t *out) {
    const char *s = j->s;
    uint64_t v = 0;
    if (!xlarun__json_is_number(j, i) || s[i] == '-') return 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        uint64_t d = XLARUN__CAST(uint64_t, s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    if (s[i] == '.' || s[i] == 'e' || s[i] == 'E' || v > max) return 0;
    *out = v;
    return 1;
}

/* ============================== 2. SAFETENSORS ================================================ */
/* A pull reader over a read callback: no seeking, no mapping. The header is validated whole
   before any tensor is handed out (SPEC.md section 1).                                         */

static const struct { const char *name; unsigned bits; } xlarun__dtypes[XLARUN_DTYPE_COUNT] = {
    {"BOOL", 8}, {"U8", 8}, {"I8", 8}, {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8},
    {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16}, {"U16", 16}, {"F16", 16}, {"BF16", 16},
    {"I32", 32}, {"U32", 32}, {"F32", 32}, {"F64", 64}, {"I64", 64}, {"U64", 64}, {"C64", 64},
    {"F4", 4}, {"F6_E2M3", 6}, {"F6_E3M2", 6}};

XLARUN_API const char *xlarun_dtype_name(xlarun_dtype d) {
    return XLARUN__CAST(unsigned, d) < XLARUN_DTYPE_COUNT ? xlarun__dtypes[d].name : "?";
}

/* the shortest tensor entry, "":{"dtype":"U8","shape":[],"data_offsets":[0,0]}, is 48 bytes
   with its comma: this bounds the table a header of N bytes can need */
#define XLARUN__ST_MIN_ENTRY 48u

enum { XLARUN__ST_NEW, XLARUN__ST_BEGUN, XLARUN__ST_READY, XLARUN__ST_DONE };

/* read exactly n bytes; 0 on success, 1 on a short stream, -1 on a read error */
static int xlarun__st_fill(xlarun_st_reader *r, void *buf, size_t n, size_t *got) {
    size_t done = 0;
    while (done < n) {
        size_t k = r->read(r->user, XLARUN__CAST(char *, buf) + done, n - done);
        if (k == XLARUN__CAST(size_t, -1)) { if (got) *got = done; return -1; }
        if (k == 0 || k > n - done) break;
        done += k;
    }
    r->pos += done;
    if (got) *got = done;
    return done == n ? 0 : 1;
}

XLARUN_API xlarun_status xlarun_st_begin(xlarun_st_reader *r, xlarun_read_fn read, void *user,
                                         const char *file_name, uint64_t file_size,
                                         xlarun_error *err) {
    unsigned char b[8];
    size_t got;
    int rc, i;
    if (!r || !read) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_st_begin: NULL reader or read function");
    memset(r, 0, sizeof *r);
    r->read = read;
    r->user = user;
    r->file = file_name ? file_name : "safetensors";
    r->file_size = file_size;
    rc = xlarun__st_fill(r, b, 8, &got);
    if (rc < 0) return xlarun__fail(err, XLARUN_ERR_IO, "%s: read error", r->file);
    if (rc > 0)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "%s: file is %lu bytes, too short for the 8-byte header length",
                            r->file, XLARUN__CAST(unsigned long, got));
    for (i = 7; i >= 0; i--) r->header_bytes = (r->header_bytes << 8) | b[i];
    if (r->header_bytes > XLARUN_MAX_HEADER_BYTES)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "%s: header length %llu is over the limit of %u bytes", r->file,
                            XLARUN__CAST(unsigned long long, r->header_bytes), XLARUN_MAX_HEADER_BYTES);
    if (file_size && 8 + r->header_bytes > file_size)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "%s: header length %llu runs past the end of the file (%llu bytes)",
                            r->file, XLARUN__CAST(unsigned long long, r->header_bytes),
                            XLARUN__CAST(unsigned long long, file_size));
    if (r->header_bytes < 2)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: header length %llu cannot hold a JSON object",
                            r->file, XLARUN__CAST(unsigned long long, r->header_bytes));
    r->state = XLARUN__ST_BEGUN;
    return XLARUN_OK;
}

static size_t xlarun__st_capacity(const xlarun_st_reader *r) {
    return XLARUN__CAST(size_t, r->header_bytes / XLARUN__ST_MIN_ENTRY) + 1;
}

XLARUN_API size_t xlarun_st_memory(const xlarun_st_reader *r) {
    if (!r || r->state != XLARUN__ST_BEGUN) return 0;
    /* text + NUL, alignment slack, the tensor table and a sort order for the duplicate check */
    return XLARUN__CAST(size_t, r->header_bytes) + 1 + 8 +
           xlarun__st_capacity(r) * (sizeof(xlarun_st_tensor) + sizeof(uint32_t));
}

/* heap sort of n items through a comparison, small and allocation-free */
typedef int (*xlarun__less_fn)(const void *ctx, size_t a, size_t b);
typedef void (*xlarun__swap_fn)(void *ctx, size_t a, size_t b);
static void xlarun__heapsort(void *ctx, size_t n, xlarun__less_fn less, xlarun__swap_fn swap) {
    size_t start = n / 2, end = n, root, child;
    while (end > 1) {
        if (start > 0) start--;
        else swap(ctx, 0, --end);
        root = start;
        while ((child = 2 * root + 1) < end) {
            if (child + 1 < end && less(ctx, child, child + 1)) child++;
            if (!less(ctx, root, child)) break;
            swap(ctx, root, child);
            root = child;
        }
    }
}

static int xlarun__st_less_offset(const void *ctx, size_t a, size_t b) {
    const xlarun_st_tensor *t = XLARUN__CAST(const xlarun_st_tensor *, ctx);
    if (t[a].offset != t[b].offset) return t[a].offset < t[b].offset;
    return t[a].nbytes < t[b].nbytes;
}
static void xlarun__st_swap_tensor(void *ctx, size_t a, size_t b) {
    xlarun_st_tensor *t = XLARUN__CAST(xlarun_st_tensor *, ctx), tmp = t[a];
    t[a] = t[b];
    t[b] = tmp;
}
typedef struct { const xlarun_st_tensor *t; uint32_t *order; } xlarun__st_byname;
static int xlarun__st_less_name(const void *ctx, size_t a, size_t b) {
    const xlarun__st_byname *c = XLARUN__CAST(const xlarun__st_byname *, ctx);
    return strcmp(c->t[c->order[a]].name, c->t[c->order[b]].name) < 0;
}
static void xlarun__st_swap_order(void *ctx, size_t a, size_t b) {
    const xlarun__st_byname *c = XLARUN__CAST(const xlarun__st_byname *, ctx);
    uint32_t tmp = c->order[a];
    c->order[a] = c->order[b];
    c->order[b] = tmp;
}

static void xlarun__shape_str(const xlarun_st_tensor *t, char *buf, size_t cap) {
    size_t k, n = 0;
    n += XLARUN__CAST(size_t, snprintf(buf, cap, "["));
    for (k = 0; k < t->ndim && n < cap; k++)
        n += XLARUN__CAST(size_t, snprintf(buf + n, cap - n, "%s%llu", k ? "," : "",
                                           XLARUN__CAST(unsigned long long, t->shape[k])));
    if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* parse one tensor entry (the value at v) into t; the name is decoded later */
static xlarun_status xlarun__st_entry(xlarun_st_reader *r, const xlarun__json *j, size_t key,
                                      size_t v, xlarun_st_tensor *t, xlarun_error *err) {
    char name[160], dt[32];
    size_t dv, sv, ov, it, e, k;
    uint64_t numel = 1, bits, off[2];
    int d, n;
    if (xlarun__json_str(j, key, name, sizeof name) == XLARUN__NONE) strcpy(name + 140, "...");
    if (j->s[v] != '{')
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': entry is not an object", r->file, name);
    dv = xlarun__json_get(j, v, "dtype");
    sv = xlarun__json_get(j, v, "shape");
    ov = xlarun__json_get(j, v, "data_offsets");
    if (dv == XLARUN__NONE || sv == XLARUN__NONE || ov == XLARUN__NONE)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': missing \"%s\"", r->file, name,
                            dv == XLARUN__NONE ? "dtype" : sv == XLARUN__NONE ? "shape" : "data_offsets");
    if (j->s[dv] != '"' || xlarun__json_str(j, dv, dt, sizeof dt) == XLARUN__NONE) dt[0] = 0;
    for (d = 0; d < XLARUN_DTYPE_COUNT; d++)
        if (!strcmp(dt, xlarun__dtypes[d].name)) break;
    if (d == XLARUN_DTYPE_COUNT)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': unknown dtype %.*s", r->file,
                            name, 40, j->s[dv] == '"' ? dt : "(not a string)");
    t->dtype = XLARUN__CAST(xlarun_dtype, d);
    if (j->s[sv] != '[')
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': shape is not an array", r->file, name);
    it = sv;
    t->ndim = 0;
    while (xlarun__json_next(j, &it, NULL, &e)) {
        if (t->ndim == XLARUN_MAX_DIMS)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': more than %d dimensions",
                                r->file, name, XLARUN_MAX_DIMS);
        if (!xlarun__json_uint(j, e, UINT64_MAX, &t->shape[t->ndim]))
            return xlarun__fail(err, XLARUN_ERR_FORMAT,
                                "%s: tensor '%s': shape entries must be non-negative integers",
                                r->file, name);
        if (!xlarun__mul_u64(numel, t->shape[t->ndim], &numel))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': element count overflows",
                                r->file, name);
        t->ndim++;
    }
    if (j->s[ov] != '[')
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': data_offsets is not an array", r->file, name);
    it = ov;
    n = 0;
    while (xlarun__json_next(j, &it, NULL, &e)) {
        if (n == 2 || !xlarun__json_uint(j, e, UINT64_MAX, &off[n]))
            return xlarun__fail(err, XLARUN_ERR_FORMAT,
                                "%s: tensor '%s': data_offsets must be two non-negative integers",
                                r->file, name);
        n++;
    }
    if (n != 2)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "%s: tensor '%s': data_offsets must be two non-negative integers", r->file, name);
    if (off[1] < off[0])
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': data_offsets [%llu,%llu] are reversed",
                            r->file, name, XLARUN__CAST(unsigned long long, off[0]),
                            XLARUN__CAST(unsigned long long, off[1]));
    if (!xlarun__mul_u64(numel, xlarun__dtypes[d].bits, &bits))
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': byte size overflows", r->file, name);
    if (bits % 8)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': %llu elements of %s are not a whole number of bytes",
                            r->file, name, XLARUN__CAST(unsigned long long, numel), dt);
    t->nbytes = bits / 8;
    if (off[1] - off[0] != t->nbytes) {
        char shp[128];
        xlarun__shape_str(t, shp, sizeof shp);
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "%s: tensor '%s': data_offsets [%llu,%llu] hold %llu bytes, but %s %s needs %llu",
                            r->file, name, XLARUN__CAST(unsigned long long, off[0]),
                            XLARUN__CAST(unsigned long long, off[1]),
                            XLARUN__CAST(unsigned long long, off[1] - off[0]), dt, shp,
                            XLARUN__CAST(unsigned long long, t->nbytes));
    }
    t->offset = off[0]; /* relative to the data section until the table is complete */
    t->name = j->s + key;
    (void)k;
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_st_read_header(xlarun_st_reader *r, void *mem, size_t bytes,
                                               xlarun_error *err) {
    xlarun__json j;
    size_t it, key, v, i, n = 0, cap, need, textlen;
    uint64_t data_start, end = 0;
    uint32_t *order;
    xlarun__st_byname byname;
    xlarun_status st;
    int rc;
    if (!r || r->state != XLARUN__ST_BEGUN)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_st_read_header: call xlarun_st_begin first");
    need = xlarun_st_memory(r);
    if (!mem || bytes < need)
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "%s: the header needs %lu bytes of memory, %lu given",
                            r->file, XLARUN__CAST(unsigned long, need), XLARUN__CAST(unsigned long, bytes));
    textlen = XLARUN__CAST(size_t, r->header_bytes);
    r->text = XLARUN__CAST(char *, mem);
    cap = xlarun__st_capacity(r);
    {
        size_t pad = (8 - XLARUN__PUN(uintptr_t, r->text + textlen + 1) % 8) % 8;
        r->tensors = XLARUN__PUN(xlarun_st_tensor *, r->text + textlen + 1 + pad);
    }
    order = XLARUN__CAST(uint32_t *, XLARUN__CAST(void *, r->tensors + cap));
    rc = xlarun__st_fill(r, r->text, textlen, NULL);
    if (rc < 0) return xlarun__fail(err, XLARUN_ERR_IO, "%s: read error in the header", r->file);
    if (rc > 0)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: the file ends inside its %llu-byte header",
                            r->file, XLARUN__CAST(unsigned long long, r->header_bytes));
    r->text[textlen] = 0;
    st = xlarun__json_validate(r->text, textlen, r->file, err);
    if (st != XLARUN_OK) return st;
    j.s = r->text;
    j.n = textlen;
    it = xlarun__json_ws(j.s, j.n, 0);
    if (j.s[it] != '{') return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: header is not a JSON object", r->file);
    while (xlarun__json_next(&j, &it, &key, &v)) {
        if (xlarun__json_eq(&j, key, "__metadata__")) {
            size_t mi = v, mk, mv;
            if (j.s[v] != '{')
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: __metadata__ is not an object", r->file);
            while (xlarun__json_next(&j, &mi, &mk, &mv))
                if (j.s[mv] != '"')
                    return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: __metadata__ values must be strings", r->file);
            continue;
        }
        if (n == cap) return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: too many tensors", r->file);
        st = xlarun__st_entry(r, &j, key, v, &r->tensors[n], err);
        if (st != XLARUN_OK) return st;
        n++;
    }
    /* names: decode in place (escapes only shrink), now that the JSON walk is over */
    for (i = 0; i < n; i++) {
        size_t at = XLARUN__CAST(size_t, r->tensors[i].name - r->text);
        size_t len = xlarun__json_str(&j, at, r->text + at, textlen + 1 - at);
        r->tensors[i].name = r->text + at;
        if (len == 0) return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: a tensor has an empty name", r->file);
        if (strlen(r->tensors[i].name) != len)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: a tensor name contains a NUL character", r->file);
    }
    for (i = 0; i < n; i++) order[i] = XLARUN__CAST(uint32_t, i);
    byname.t = r->tensors;
    byname.order = order;
    xlarun__heapsort(&byname, n, xlarun__st_less_name, xlarun__st_swap_order);
    for (i = 1; i < n; i++)
        if (!strcmp(r->tensors[order[i]].name, r->tensors[order[i - 1]].name))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: duplicate tensor name '%s'", r->file,
                                r->tensors[order[i]].name);
    xlarun__heapsort(r->tensors, n, xlarun__st_less_offset, xlarun__st_swap_tensor);
    for (i = 0; i < n; i++) {
        const xlarun_st_tensor *t = &r->tensors[i];
        if (t->offset != end) {
            if (i == 0)
                return xlarun__fail(err, XLARUN_ERR_FORMAT,
                                    "%s: tensor '%s' starts at byte %llu of the data; the first must start at 0",
                                    r->file, t->name, XLARUN__CAST(unsigned long long, t->offset));
            return xlarun__fail(err, XLARUN_ERR_FORMAT,
                                "%s: tensor '%s' starts at byte %llu, but '%s' ends at %llu (%s)",
                                r->file, t->name, XLARUN__CAST(unsigned long long, t->offset),
                                r->tensors[i - 1].name, XLARUN__CAST(unsigned long long, end),
                                t->offset > end ? "a gap" : "they overlap");
        }
        end = t->offset + t->nbytes;
    }
    data_start = 8 + r->header_bytes;
    if (r->file_size && data_start + end != r->file_size)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "%s: the header describes %llu bytes of data ending at byte %llu, but the file has %llu bytes",
                            r->file, XLARUN__CAST(unsigned long long, end),
                            XLARUN__CAST(unsigned long long, data_start + end),
                            XLARUN__CAST(unsigned long long, r->file_size));
    for (i = 0; i < n; i++) r->tensors[i].offset += data_start;
    r->n_tensors = n;
    r->next = 0;
    r->remaining = 0;
    r->state = XLARUN__ST_READY;
    return XLARUN_OK;
}

XLARUN_API size_t xlarun_st_count(const xlarun_st_reader *r) {
    return r && r->state >= XLARUN__ST_READY ? r->n_tensors : 0;
}

XLARUN_API const xlarun_st_tensor *xlarun_st_tensor_at(const xlarun_st_reader *r, size_t i) {
    return r && r->state >= XLARUN__ST_READY && i < r->n_tensors ? &r->tensors[i] : NULL;
}

static xlarun_status xlarun__st_truncated(xlarun_st_reader *r, int rc, xlarun_error *err) {
    if (rc < 0) return xlarun__fail(err, XLARUN_ERR_IO, "%s: read error at byte %llu", r->file,
                                    XLARUN__CAST(unsigned long long, r->pos));
    return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: truncated: the file ends at byte %llu, inside tensor '%s'",
                        r->file, XLARUN__CAST(unsigned long long, r->pos), r->tensors[r->next - 1].name);
}

XLARUN_API xlarun_status xlarun_st_next(xlarun_st_reader *r, const xlarun_st_tensor **t,
                                        xlarun_error *err) {
    unsigned char buf[4096];
    if (!r || !t || r->state < XLARUN__ST_READY)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_st_next: call xlarun_st_read_header first");
    *t = NULL;
    if (r->state == XLARUN__ST_DONE) return XLARUN_OK;
    while (r->remaining) {
        size_t k = r->remaining < sizeof buf ? XLARUN__CAST(size_t, r->remaining) : sizeof buf;
        int rc = xlarun__st_fill(r, buf, k, NULL);
        if (rc) return xlarun__st_truncated(r, rc, err);
        r->remaining -= k;
    }
    if (r->next < r->n_tensors) {
        *t = &r->tensors[r->next++];
        r->remaining = (*t)->nbytes;
        return XLARUN_OK;
    }
    {
        size_t got;
        int rc = xlarun__st_fill(r, buf, 1, &got);
        if (rc < 0) return xlarun__fail(err, XLARUN_ERR_IO, "%s: read error at the end", r->file);
        if (got)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: trailing bytes after the last tensor (byte %llu)",
                                r->file, XLARUN__CAST(unsigned long long, r->pos - 1));
    }
    r->state = XLARUN__ST_DONE;
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_st_read(xlarun_st_reader *r, void *buf, size_t n, size_t *got,
                                        xlarun_error *err) {
    size_t k;
    int rc;
    if (got) *got = 0;
    if (!r || r->state != XLARUN__ST_READY || (!buf && n))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_st_read: no current tensor or NULL buffer");
    k = r->remaining < n ? XLARUN__CAST(size_t, r->remaining) : n;
    rc = xlarun__st_fill(r, buf, k, got);
    if (rc) return xlarun__st_truncated(r, rc, err);
    r->remaining -= k;
    return XLARUN_OK;
}

/* ============================== 3. WEIGHT STORE =============================================== */
/* Every shard is mapped whole (or streamed into the model's memory), each tensor the model
   needs gets a typed view; matrices stay in their stored dtype, norm weights become f32.       */

typedef struct xlarun__weight { const void *data; xlarun_k_type type; } xlarun__weight;

typedef struct xlarun__map { void *addr; uint64_t bytes; } xlarun__map;

/* the tensors a Llama model needs: 3 global slots, then 9 per layer */
enum { XLARUN__T_EMBED, XLARUN__T_NORM, XLARUN__T_LM_HEAD, XLARUN__T_GLOBAL };
enum { XLARUN__L_ATTN_NORM, XLARUN__L_Q, XLARUN__L_K, XLARUN__L_V, XLARUN__L_O,
       XLARUN__L_MLP_NORM, XLARUN__L_GATE, XLARUN__L_UP, XLARUN__L_DOWN, XLARUN__L_COUNT };
static const char *const xlarun__global_names[XLARUN__T_GLOBAL] = {
    "model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"};
static const char *const xlarun__layer_names[XLARUN__L_COUNT] = {
    "input_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight",
    "self_attn.v_proj.weight", "self_attn.o_proj.weight", "post_attention_layernorm.weight",
    "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"};

typedef struct xlarun__slot {
    const void *data;            /* mapped or streamed bytes (f32 copy for norms) */
    xlarun_dtype dtype;
    int found;
    int shard, index_shard;      /* where it was found, where the index says (-1: no index) */
} xlarun__slot;

/* ============================== 4. MODEL ====================================================== */

typedef struct xlarun__layer {
    const float *attn_norm, *mlp_norm;
    xlarun__weight q, k, v, o, gate, up, down;
} xlarun__layer;

#define XLARUN__MODEL_MAGIC 0x584C4D4Fu
#define XLARUN__MAX_SHARDS 4096u

struct xlarun_model {
    uint32_t magic;
    xlarun_config cfg;
    xlarun__weight embed, lm_head;
    const float *final_norm;
    xlarun__layer *layers;
    float *inv_freq;             /* head_dim/2 RoPE frequencies, f32 as transformers makes them */
    xlarun__map *maps;
    uint32_t n_maps;
    uint64_t mapped_bytes, weight_bytes;
    void *own;                   /* memory to free in close (convenience open) */
    void *alloc_user;
};

/* limits on config.json values */
#define XLARUN_MAX_VOCAB (1u << 24)
#define XLARUN_MAX_HIDDEN (1u << 16)
#define XLARUN_MAX_INTERMEDIATE (1u << 20)
#define XLARUN_MAX_LAYERS 1024u
#define XLARUN_MAX_HEADS 1024u
#define XLARUN_MAX_HEAD_DIM 1024u
#define XLARUN_MAX_POSITIONS (1u << 24)
#define XLARUN_MAX_CONFIG_BYTES (16u << 20)
#define XLARUN_MAX_INDEX_BYTES (64u << 20)

static void xlarun__token(const xlarun__json *j, size_t v, char *buf, size_t cap) {
    size_t e = xlarun__json_skip(j, v), n = e - v;
    if (n >= cap) n = cap - 4;
    memcpy(buf, j->s + v, n);
    strcpy(buf + n, e - v > n ? "..." : "");
}

static xlarun_status xlarun__cfg_uint(const xlarun__json *j, size_t root, const char *key, int required,
                                      uint32_t lo, uint32_t hi, uint32_t def, uint32_t *out,
                                      xlarun_error *err) {
    size_t v = xlarun__json_get(j, root, key);
    uint64_t x;
    char tok[48];
    if (xlarun__json_is_null(j, v)) {
        if (required) return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: missing key '%s'", key);
        *out = def;
        return XLARUN_OK;
    }
    if (!xlarun__json_uint(j, v, hi, &x) || x < lo) {
        xlarun__token(j, v, tok, sizeof tok);
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' must be an integer in %u..%u, found %s",
                            key, lo, hi, tok);
    }
    *out = XLARUN__CAST(uint32_t, x);
    return XLARUN_OK;
}

/* a finite number > lo and < hi (exclusive) */
static xlarun_status xlarun__cfg_float(const xlarun__json *j, size_t obj, const char *where,
                                       const char *key, int required, double lo, double hi,
                                       double def, double *out, xlarun_error *err) {
    size_t v = xlarun__json_get(j, obj, key);
    char tok[48];
    if (xlarun__json_is_null(j, v)) {
        if (required) return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: missing key '%s%s'", where, key);
        *out = def;
        return XLARUN_OK;
    }
    if (xlarun__json_is_number(j, v)) *out = xlarun__json_double(j, v);
    if (!xlarun__json_is_number(j, v) || !(*out > lo && *out < hi)) {
        xlarun__token(j, v, tok, sizeof tok);
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s%s' must be a number in (%g, %g), found %s",
                            where, key, lo, hi, tok);
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__cfg_bool(const xlarun__json *j, size_t root, const char *key, int def,
                                      int *out, xlarun_error *err) {
    size_t v = xlarun__json_get(j, root, key);
    if (xlarun__json_is_null(j, v)) { *out = def; return XLARUN_OK; }
    if (j->s[v] != 't' && j->s[v] != 'f')
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' must be true or false", key);
    *out = j->s[v] == 't';
    return XLARUN_OK;
}

/* token id keys: an integer, a list of integers, or null */
static xlarun_status xlarun__cfg_ids(const xlarun__json *j, size_t root, const char *key,
                                     int32_t *ids, uint32_t cap, uint32_t *n, xlarun_error *err) {
    size_t v = xlarun__json_get(j, root, key), it, e;
    uint64_t x;
    *n = 0;
    if (xlarun__json_is_null(j, v)) return XLARUN_OK;
    if (j->s[v] != '[') {
        if (!xlarun__json_uint(j, v, INT32_MAX, &x))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' must be a token id or a list of them", key);
        ids[(*n)++] = XLARUN__CAST(int32_t, x);
        return XLARUN_OK;
    }
    it = v;
    while (xlarun__json_next(j, &it, NULL, &e)) {
        if (!xlarun__json_uint(j, e, INT32_MAX, &x))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' must be a token id or a list of them", key);
        if (*n == cap)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' lists more than %u ids", key, cap);
        ids[(*n)++] = XLARUN__CAST(int32_t, x);
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__parse_config(const char *text, size_t len, xlarun_config *c,
                                          xlarun_error *err) {
    xlarun__json j;
    size_t root, v, it, e, rope;
    double d;
    uint32_t nbos;
    int32_t bos[XLARUN_MAX_EOS];
    char buf[64];
    int b;
    XLARUN__TRY(xlarun__json_validate(text, len, "config.json", err));
    j.s = text;
    j.n = len;
    root = xlarun__json_ws(text, len, 0);
    if (text[root] != '{') return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: not a JSON object");
    memset(c, 0, sizeof *c);

    /* what kind of model: refuse anything that is not Llama by name */
    v = xlarun__json_get(&j, root, "architectures");
    if (!xlarun__json_is_null(&j, v)) {
        if (text[v] != '[') return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'architectures' must be a list");
        it = v;
        while (xlarun__json_next(&j, &it, NULL, &e)) {
            if (text[e] != '"' || xlarun__json_str(&j, e, buf, sizeof buf) == XLARUN__NONE) strcpy(buf, "?");
            if (strcmp(buf, "LlamaForCausalLM"))
                return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                                    "config.json: architecture '%s' is not supported (supported: LlamaForCausalLM)", buf);
        }
    }
    v = xlarun__json_get(&j, root, "model_type");
    if (!xlarun__json_is_null(&j, v)) {
        if (text[v] != '"' || xlarun__json_str(&j, v, buf, sizeof buf) == XLARUN__NONE) strcpy(buf, "?");
        if (strcmp(buf, "llama"))
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: model_type '%s' is not supported (supported: llama)", buf);
    } else if (xlarun__json_is_null(&j, xlarun__json_get(&j, root, "architectures")))
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: neither 'architectures' nor 'model_type' says what model this is");
    v = xlarun__json_get(&j, root, "hidden_act");
    if (!xlarun__json_is_null(&j, v)) {
        if (text[v] != '"' || xlarun__json_str(&j, v, buf, sizeof buf) == XLARUN__NONE) strcpy(buf, "?");
        if (strcmp(buf, "silu"))
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: hidden_act '%s' is not supported (supported: silu)", buf);
    }
    XLARUN__TRY(xlarun__cfg_bool(&j, root, "attention_bias", 0, &b, err));
    if (b) return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: attention_bias true is not supported");
    XLARUN__TRY(xlarun__cfg_bool(&j, root, "mlp_bias", 0, &b, err));
    if (b) return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: mlp_bias true is not supported");

    /* shapes */
    XLARUN__TRY(xlarun__cfg_uint(&j, root, "vocab_size", 1, 1, XLARUN_MAX_VOCAB, 0, &c->vocab_size, err));
    XLARUN__TRY(xlarun__cfg_uint(&j, root, "hidden_size", 1, 1, XLARUN_MAX_HIDDEN, 0, &c->hidden_size, err));
    XLARUN__TRY(xlarun__cfg_uint(&j, root, "intermediate_size", 1, 1, XLARUN_MAX_INTERMEDIATE, 0, &c->intermediate_size, err));
    XLARUN__TRY(xlarun__cfg_uint(&j, root, "num_hidden_layers", 1, 1, XLARUN_MAX_LAYERS, 0, &c->n_layers, err));
    XLARUN__TRY(xlarun__cfg_uint(&j, root, "num_attention_heads", 1, 1, XLARUN_MAX_HEADS, 0, &c->n_heads, err));
    XLARUN__TRY(xlarun__cfg_uint(&j, root, "num_key_value_heads", 0, 1, XLARUN_MAX_HEADS, c->n_heads, &c->n_kv_heads, err));
    if (xlarun__json_is_null(&j, xlarun__json_get(&j, root, "head_dim")) && c->hidden_size % c->n_heads)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "config.json: hidden_size %u is not divisible by num_attention_heads %u (and no head_dim is given)",
                            c->hidden_size, c->n_heads);
    XLARUN__TRY(xlarun__cfg_uint(&j, root, "head_dim", 0, 2, XLARUN_MAX_HEAD_DIM, c->hidden_size / c->n_heads, &c->head_dim, err));
    if (c->head_dim % 2 || c->head_dim == 0)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: head_dim %u must be even for RoPE", c->head_dim);
    if (c->n_heads % c->n_kv_heads)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "config.json: num_attention_heads %u is not a multiple of num_key_value_heads %u",
                            c->n_heads, c->n_kv_heads);
    if (XLARUN__CAST(uint64_t, c->n_heads) * c->head_dim > (1u << 20))
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: num_attention_heads x head_dim is over %u", 1u << 20);
    XLARUN__TRY(xlarun__cfg_uint(&j, root, "max_position_embeddings", 0, 1, XLARUN_MAX_POSITIONS, 2048,
                                 &c->max_position_embeddings, err));
    XLARUN__TRY(xlarun__cfg_float(&j, root, "", "rms_norm_eps", 0, 0.0, 1.0, 1e-6, &d, err));
    c->rms_norm_eps = XLARUN__CAST(float, d);
    XLARUN__TRY(xlarun__cfg_bool(&j, root, "tie_word_embeddings", 0, &c->tie_word_embeddings, err));

    /* RoPE: v4 keys rope_theta + rope_scaling, v5 folds them into rope_parameters */
    rope = xlarun__json_get(&j, root, "rope_parameters");
    if (!xlarun__json_is_null(&j, rope) && text[rope] != '{')
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'rope_parameters' must be an object");
    if (xlarun__json_is_null(&j, rope)) {
        XLARUN__TRY(xlarun__cfg_float(&j, root, "", "rope_theta", 0, 0.0, 1e30, 10000.0, &d, err));
        rope = xlarun__json_get(&j, root, "rope_scaling");
        if (!xlarun__json_is_null(&j, rope) && text[rope] != '{')
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'rope_scaling' must be an object or null");
    } else
        XLARUN__TRY(xlarun__cfg_float(&j, rope, "rope_parameters.", "rope_theta", 0, 0.0, 1e30, 10000.0, &d, err));
    c->rope_theta = XLARUN__CAST(float, d);
    c->rope_type = XLARUN_ROPE_DEFAULT;
    c->rope_factor = 1.0f;
    if (!xlarun__json_is_null(&j, rope)) {
        const char *where = xlarun__json_get(&j, root, "rope_parameters") == rope ? "rope_parameters." : "rope_scaling.";
        v = xlarun__json_get(&j, rope, "rope_type");
        if (xlarun__json_is_null(&j, v)) v = xlarun__json_get(&j, rope, "type");
        if (xlarun__json_is_null(&j, v)) strcpy(buf, "default");
        else if (text[v] != '"' || xlarun__json_str(&j, v, buf, sizeof buf) == XLARUN__NONE) strcpy(buf, "?");
        if (!strcmp(buf, "linear")) {
            c->rope_type = XLARUN_ROPE_LINEAR;
            XLARUN__TRY(xlarun__cfg_float(&j, rope, where, "factor", 1, 0.0, 1e9, 1.0, &d, err));
            c->rope_factor = XLARUN__CAST(float, d);
        } else if (!strcmp(buf, "llama3")) {
            uint64_t om;
            c->rope_type = XLARUN_ROPE_LLAMA3;
            XLARUN__TRY(xlarun__cfg_float(&j, rope, where, "factor", 1, 0.0, 1e9, 1.0, &d, err));
            c->rope_factor = XLARUN__CAST(float, d);
            XLARUN__TRY(xlarun__cfg_float(&j, rope, where, "low_freq_factor", 1, 0.0, 1e9, 1.0, &d, err));
            c->rope_low_freq_factor = XLARUN__CAST(float, d);
            XLARUN__TRY(xlarun__cfg_float(&j, rope, where, "high_freq_factor", 1, 0.0, 1e9, 1.0, &d, err));
            c->rope_high_freq_factor = XLARUN__CAST(float, d);
            v = xlarun__json_get(&j, rope, "original_max_position_embeddings");
            if (!xlarun__json_uint(&j, v == XLARUN__NONE ? 0 : v, XLARUN_MAX_POSITIONS, &om) || om == 0)
                return xlarun__fail(err, XLARUN_ERR_FORMAT,
                                    "config.json: '%soriginal_max_position_embeddings' must be a positive integer", where);
            c->rope_original_max_position_embeddings = XLARUN__CAST(uint32_t, om);
            if (!(c->rope_high_freq_factor > c->rope_low_freq_factor))
                return xlarun__fail(err, XLARUN_ERR_FORMAT,
                                    "config.json: %shigh_freq_factor must be larger than low_freq_factor", where);
        } else if (strcmp(buf, "default"))
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                                "config.json: rope type '%s' is not supported (supported: default, linear, llama3)", buf);
    }
    XLARUN__TRY(xlarun__cfg_ids(&j, root, "bos_token_id", bos, XLARUN_MAX_EOS, &nbos, err));
    c->bos_token_id = nbos ? bos[0] : -1;
    XLARUN__TRY(xlarun__cfg_ids(&j, root, "eos_token_id", c->eos_token_ids, XLARUN_MAX_EOS, &c->n_eos, err));
    return XLARUN_OK;
}

/* transformers' inv_freq, step by step in f32 (SPEC.md section 2) */
static void xlarun__rope_freqs(const xlarun_config *c, float *inv) {
    uint32_t j, half = c->head_dim / 2;
    for (j = 0; j < half; j++) {
        float e = XLARUN__CAST(float, 2 * j) / XLARUN__CAST(float, c->head_dim);
        inv[j] = 1.0f / powf(c->rope_theta, e);
    }
    if (c->rope_type == XLARUN_ROPE_LINEAR)
        for (j = 0; j < half; j++) inv[j] = inv[j] / c->rope_factor;
    if (c->rope_type == XLARUN_ROPE_LLAMA3) {
        double L = c->rope_original_max_position_embeddings;
        float low_wl = XLARUN__CAST(float, L / c->rope_low_freq_factor);
        float high_wl = XLARUN__CAST(float, L / c->rope_high_freq_factor);
        float two_pi = XLARUN__CAST(float, 2.0 * 3.14159265358979323846);
        float lf = c->rope_low_freq_factor, hf = c->rope_high_freq_factor;
        float span = XLARUN__CAST(float, XLARUN__CAST(double, hf) - XLARUN__CAST(double, lf));
        for (j = 0; j < half; j++) {
            float wl = (1.0f / inv[j]) * two_pi;
            float llama = wl > low_wl ? inv[j] / c->rope_factor : inv[j];
            if (!(wl < high_wl) && !(wl > low_wl)) {
                float smooth = ((1.0f / wl) * XLARUN__CAST(float, L) - lf) / span;
                llama = (1.0f - smooth) * llama / c->rope_factor + smooth * llama;
            }
            inv[j] = llama;
        }
    }
}

static int xlarun__is_matrix_slot(int slot) {
    int k = slot < XLARUN__T_GLOBAL ? -1 : (slot - XLARUN__T_GLOBAL) % XLARUN__L_COUNT;
    if (slot < XLARUN__T_GLOBAL) return slot != XLARUN__T_NORM;
    return k != XLARUN__L_ATTN_NORM && k != XLARUN__L_MLP_NORM;
}

/* the slot of a tensor name, -1 if the model does not use it, -2 for a layer past n_layers */
static int xlarun__slot_of(const xlarun_config *c, const char *name) {
    int k;
    const char *p;
    unsigned long layer = 0;
    for (k = 0; k < XLARUN__T_GLOBAL; k++)
        if (!strcmp(name, xlarun__global_names[k])) return k;
    if (strncmp(name, "model.layers.", 13)) return -1;
    p = name + 13;
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] != '.')) return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        layer = layer * 10 + XLARUN__CAST(unsigned long, *p - '0');
        if (layer > 1000000) return -2;
    }
    if (*p++ != '.') return -1;
    for (k = 0; k < XLARUN__L_COUNT; k++)
        if (!strcmp(p, xlarun__layer_names[k]))
            return layer < c->n_layers ? XLARUN__CAST(int, XLARUN__T_GLOBAL + layer * XLARUN__L_COUNT) + k : -2;
    return -1;
}

static void xlarun__slot_name(int slot, char *buf, size_t cap) {
    if (slot < XLARUN__T_GLOBAL) snprintf(buf, cap, "%s", xlarun__global_names[slot]);
    else
        snprintf(buf, cap, "model.layers.%d.%s", (slot - XLARUN__T_GLOBAL) / XLARUN__L_COUNT,
                 xlarun__layer_names[(slot - XLARUN__T_GLOBAL) % XLARUN__L_COUNT]);
}

/* the shape config.json implies for a slot: [rows, cols] or [rows] for norms */
static int xlarun__slot_shape(const xlarun_config *c, int slot, uint64_t shape[2]) {
    uint64_t H = c->hidden_size, I = c->intermediate_size, V = c->vocab_size;
    uint64_t Q = XLARUN__CAST(uint64_t, c->n_heads) * c->head_dim, KV = XLARUN__CAST(uint64_t, c->n_kv_heads) * c->head_dim;
    int k = slot < XLARUN__T_GLOBAL ? -1 : (slot - XLARUN__T_GLOBAL) % XLARUN__L_COUNT;
    shape[1] = H;
    if (slot == XLARUN__T_EMBED || slot == XLARUN__T_LM_HEAD) { shape[0] = V; return 2; }
    if (slot == XLARUN__T_NORM || k == XLARUN__L_ATTN_NORM || k == XLARUN__L_MLP_NORM) { shape[0] = H; return 1; }
    switch (k) {
    case XLARUN__L_Q: shape[0] = Q; break;
    case XLARUN__L_K: case XLARUN__L_V: shape[0] = KV; break;
    case XLARUN__L_O: shape[0] = H; shape[1] = Q; break;
    case XLARUN__L_GATE: case XLARUN__L_UP: shape[0] = I; break;
    default: shape[0] = H; shape[1] = I; break;
    }
    return 2;
}

static xlarun_k_type xlarun__ktype(xlarun_dtype d) {
    return d == XLARUN_DTYPE_F32 ? XLARUN_K_F32 : d == XLARUN_DTYPE_F16 ? XLARUN_K_F16 : XLARUN_K_BF16;
}

/* check a tensor the model needs against config.json before any of its bytes are used */
static xlarun_status xlarun__check_tensor(const xlarun_config *c, int slot, const xlarun_st_tensor *t,
                                          const char *file, xlarun_error *err) {
    uint64_t want[2];
    int nd = xlarun__slot_shape(c, slot, want);
    char got[160], exp[64];
    if (t->dtype != XLARUN_DTYPE_F32 && t->dtype != XLARUN_DTYPE_F16 && t->dtype != XLARUN_DTYPE_BF16)
        return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: tensor '%s' has dtype %s; xlarun reads F32, F16 and BF16",
                            file, t->name, xlarun_dtype_name(t->dtype));
    if (t->ndim != XLARUN__CAST(uint32_t, nd) || t->shape[0] != want[0] || (nd == 2 && t->shape[1] != want[1])) {
        xlarun__shape_str(t, got, sizeof got);
        if (nd == 2) snprintf(exp, sizeof exp, "[%llu,%llu]", XLARUN__CAST(unsigned long long, want[0]), XLARUN__CAST(unsigned long long, want[1]));
        else snprintf(exp, sizeof exp, "[%llu]", XLARUN__CAST(unsigned long long, want[0]));
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' has shape %s, but config.json implies %s",
                            file, t->name, got, exp);
    }
    return XLARUN_OK;
}

typedef struct xlarun__loader {
    xlarun__arena *a;
    const xlarun_model_options *opt;
    const char *dir;
    xlarun_model *m;
    xlarun__slot *slots;
    int n_slots;
} xlarun__loader;

/* record a tensor the model needs: check it, then keep a view (matrices) or an f32 copy (norms) */
static xlarun_status xlarun__take(xlarun__loader *L, int shard, const xlarun_st_tensor *t,
                                  const void *bytes, int slot, const char *path, xlarun_error *err) {
    xlarun__slot *s = &L->slots[slot];
    if (s->found) {
        char name[160];
        xlarun__slot_name(slot, name, sizeof name);
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is also in an earlier shard", path, name);
    }
    s->found = 1;
    s->shard = shard;
    s->dtype = t->dtype;
    s->data = bytes;
    if (!xlarun__is_matrix_slot(slot)) {
        size_t n = XLARUN__CAST(size_t, t->shape[0]);
        float *f = XLARUN__CAST(float *, xlarun__alloc_ex(L->a, n * sizeof(float), 0, 0));
        if (!f) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small for the norm weights");
        if (bytes) xlarun_k_to_f32(xlarun__ktype(t->dtype), bytes, f, n);
        s->data = f;
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__load_shard(xlarun__loader *L, const char *name, int shard, xlarun_error *err) {
    char path[4096];
    xlarun__file f;
    xlarun_st_reader r;
    size_t mark = L->a->high, i;
    void *hdr;
    xlarun_status st;
#if defined(XLARUN__MMAP)
    int stream = L->opt->no_mmap || L->opt->io != NULL;
#endif
    XLARUN__TRY(xlarun__file_open(&f, L->opt->io, L->dir, name, path, sizeof path, err));
    st = xlarun_st_begin(&r, xlarun__file_read, &f, path, f.size, err);
    if (st == XLARUN_OK) {
        hdr = xlarun__alloc_ex(L->a, xlarun_st_memory(&r), 1, 0);
        st = hdr ? xlarun_st_read_header(&r, hdr, xlarun_st_memory(&r), err)
                 : xlarun__fail(err, XLARUN_ERR_MEMORY, "%s: no memory for the %llu-byte header", path,
                                XLARUN__CAST(unsigned long long, r.header_bytes));
    }
    if (st != XLARUN_OK) { xlarun__file_close(&f); return st; }
    /* check every tensor the model needs before reading any data */
    for (i = 0; i < r.n_tensors; i++) {
        const xlarun_st_tensor *t = &r.tensors[i];
        int slot = xlarun__slot_of(&L->m->cfg, t->name);
        if (slot == -2) {
            xlarun__file_close(&f);
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is past num_hidden_layers %u in config.json",
                                path, t->name, L->m->cfg.n_layers);
        }
        if (slot >= 0 && (st = xlarun__check_tensor(&L->m->cfg, slot, t, path, err)) != XLARUN_OK) {
            xlarun__file_close(&f);
            return st;
        }
    }
#if defined(XLARUN__MMAP)
    if (!stream) {
        unsigned char *base = NULL;
        if (!xlarun__measuring(L->a)) {
            xlarun__map *mp = &L->m->maps[shard];
            void *p = mmap(NULL, XLARUN__CAST(size_t, f.size), PROT_READ, MAP_PRIVATE, f.fd, 0);
            if (p == MAP_FAILED) {
                xlarun__file_close(&f);
                return xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot map %llu bytes", path, XLARUN__CAST(unsigned long long, f.size));
            }
            mp->addr = p;
            mp->bytes = f.size;
            L->m->mapped_bytes += f.size;
            base = XLARUN__CAST(unsigned char *, p);
        }
        xlarun__file_close(&f);
        for (i = 0; i < r.n_tensors && st == XLARUN_OK; i++) {
            const xlarun_st_tensor *t = &r.tensors[i];
            int slot = xlarun__slot_of(&L->m->cfg, t->name);
            if (slot >= 0) st = xlarun__take(L, shard, t, base ? base + t->offset : NULL, slot, path, err);
        }
        L->a->high = mark;
        return st;
    }
#endif
    /* streaming: tensors in file order into the model's memory; a measuring pass stops here */
    for (i = 0; i < r.n_tensors && st == XLARUN_OK; i++) {
        const xlarun_st_tensor *t = &r.tensors[i];
        int slot = xlarun__slot_of(&L->m->cfg, t->name);
        void *dst = NULL;
        size_t got, tmark = L->a->high;
        if (slot < 0) continue;
        if (t->nbytes > SIZE_MAX / 2 ||
            !(dst = xlarun__alloc_ex(L->a, XLARUN__CAST(size_t, t->nbytes), !xlarun__is_matrix_slot(slot), 1))) {
            if (!xlarun__measuring(L->a))
                st = xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small for tensor '%s'", t->name);
            else if (t->nbytes > SIZE_MAX / 2)
                st = xlarun__fail(err, XLARUN_ERR_MEMORY, "tensor '%s' is too large", t->name);
        }
        if (st == XLARUN_OK && dst) {
            const xlarun_st_tensor *cur = NULL;
            while (st == XLARUN_OK && cur != t) st = xlarun_st_next(&r, &cur, err);
            if (st == XLARUN_OK) st = xlarun_st_read(&r, dst, XLARUN__CAST(size_t, t->nbytes), &got, err);
        }
        if (st == XLARUN_OK) st = xlarun__take(L, shard, t, dst, slot, path, err);
        if (!xlarun__is_matrix_slot(slot)) L->a->high = tmark; /* the raw norm bytes were temporary */
    }
    if (st == XLARUN_OK && !xlarun__measuring(L->a)) {
        const xlarun_st_tensor *cur = &r.tensors[0];
        while (st == XLARUN_OK && cur) st = xlarun_st_next(&r, &cur, err); /* confirms the end */
    }
    xlarun__file_close(&f);
    L->a->high = mark;
    return st;
}

static int xlarun__plain_file_name(const char *s) {
    size_t n = strlen(s);
    return n > 0 && n < 256 && !strchr(s, '/') && !strchr(s, '\\') && strcmp(s, ".") && strcmp(s, "..");
}

/* model.safetensors.index.json: the distinct shard files in weight_map, and which one the
   index names for each tensor the model needs */
static xlarun_status xlarun__read_index(xlarun__loader *L, const char *text, size_t len,
                                        const char **names, uint32_t *n_names, xlarun_error *err) {
    static const char *what = "model.safetensors.index.json";
    xlarun__json j;
    size_t root, wm, it, k, v, pool_used = 0;
    char *pool, tname[512], fname[260];
    uint32_t i, n = 0;
    XLARUN__TRY(xlarun__json_validate(text, len, what, err));
    j.s = text;
    j.n = len;
    root = xlarun__json_ws(text, len, 0);
    wm = xlarun__json_get(&j, root, "weight_map");
    if (wm == XLARUN__NONE || text[wm] != '{')
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: missing the \"weight_map\" object", what);
    pool = XLARUN__CAST(char *, xlarun__alloc_ex(L->a, len + 1, 1, 0));
    if (!pool) return xlarun__fail(err, XLARUN_ERR_MEMORY, "%s: no memory", what);
    it = wm;
    while (xlarun__json_next(&j, &it, &k, &v)) {
        int slot;
        if (text[v] != '"' || xlarun__json_str(&j, v, fname, sizeof fname) == XLARUN__NONE || !xlarun__plain_file_name(fname))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: a weight_map value is not a plain file name", what);
        for (i = 0; i < n; i++)
            if (!strcmp(names[i], fname)) break;
        if (i == n) {
            if (n == XLARUN__MAX_SHARDS)
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: more than %u shards", what, XLARUN__MAX_SHARDS);
            strcpy(pool + pool_used, fname);
            names[n] = pool + pool_used;
            pool_used += strlen(fname) + 1;
            n++;
        }
        if (xlarun__json_str(&j, k, tname, sizeof tname) == XLARUN__NONE) continue;
        slot = xlarun__slot_of(&L->m->cfg, tname);
        if (slot >= 0) L->slots[slot].index_shard = XLARUN__CAST(int, i);
    }
    if (n == 0) return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: weight_map names no shards", what);
    *n_names = n;
    return XLARUN_OK;
}

static xlarun_status xlarun__model_build(xlarun__arena *a, const char *dir,
                                         const xlarun_model_options *opt, xlarun_model **out,
                                         xlarun_error *err) {
    xlarun__loader L;
    xlarun_model *m;
    char *text, path[4096];
    const char **names;
    size_t len, mark, l;
    uint32_t n_shards = 1, s;
    int i, single;
    xlarun__file probe;
    xlarun_error perr;
    memset(&L, 0, sizeof L);
    L.a = a;
    L.opt = opt;
    L.dir = dir;
    m = XLARUN__CAST(xlarun_model *, xlarun__alloc_ex(a, sizeof *m, 0, 0));
    if (!m) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small");
    memset(m, 0, sizeof *m);
    L.m = m;
    *out = m;
    mark = a->high;
    XLARUN__TRY(xlarun__read_small(a, opt->io, dir, "config.json", XLARUN_MAX_CONFIG_BYTES, &text, &len, err));
    XLARUN__TRY(xlarun__parse_config(text, len, &m->cfg, err));
    a->high = mark;

    L.n_slots = XLARUN__T_GLOBAL + XLARUN__CAST(int, m->cfg.n_layers) * XLARUN__L_COUNT;
    L.slots = XLARUN__CAST(xlarun__slot *, xlarun__alloc_ex(a, sizeof(xlarun__slot) * XLARUN__CAST(size_t, L.n_slots), 1, 0));
    names = XLARUN__CAST(const char **, xlarun__alloc_ex(a, sizeof(char *) * XLARUN__MAX_SHARDS, 1, 0));
    if (!L.slots || !names) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small");
    memset(L.slots, 0, sizeof(xlarun__slot) * XLARUN__CAST(size_t, L.n_slots));
    for (i = 0; i < L.n_slots; i++) L.slots[i].index_shard = -1;

    /* one model.safetensors, or the shards an index names (transformers prefers the former) */
    single = xlarun__file_open(&probe, opt->io, dir, "model.safetensors", path, sizeof path, &perr) == XLARUN_OK;
    if (single) {
        xlarun__file_close(&probe);
        names[0] = "model.safetensors";
    } else {
        if (xlarun__file_open(&probe, opt->io, dir, "model.safetensors.index.json", path, sizeof path, &perr) != XLARUN_OK)
            return xlarun__fail(err, XLARUN_ERR_IO, "%s: no model.safetensors or model.safetensors.index.json", dir);
        xlarun__file_close(&probe);
        XLARUN__TRY(xlarun__read_small(a, opt->io, dir, "model.safetensors.index.json", XLARUN_MAX_INDEX_BYTES,
                                       &text, &len, err));
        XLARUN__TRY(xlarun__read_index(&L, text, len, names, &n_shards, err));
    }
    m->maps = XLARUN__CAST(xlarun__map *, xlarun__alloc_ex(a, sizeof(xlarun__map) * n_shards, 0, 0));
    if (!m->maps) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small");
    memset(m->maps, 0, sizeof(xlarun__map) * n_shards);
    m->n_maps = n_shards;
    for (s = 0; s < n_shards; s++) XLARUN__TRY(xlarun__load_shard(&L, names[s], XLARUN__CAST(int, s), err));

    /* every tensor present, and where the index says */
    for (i = 0; i < L.n_slots; i++) {
        char name[160];
        xlarun__slot *sl = &L.slots[i];
        if (i == XLARUN__T_LM_HEAD && m->cfg.tie_word_embeddings) continue;
        xlarun__slot_name(i, name, sizeof name);
        if (!sl->found) {
            if (i >= XLARUN__T_GLOBAL)
                return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (config.json has num_hidden_layers %u)",
                                    dir, name, m->cfg.n_layers);
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s'%s", dir, name,
                                i == XLARUN__T_LM_HEAD ? " (config.json has tie_word_embeddings false)" : "");
        }
        if (sl->index_shard >= 0 && sl->index_shard != sl->shard)
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is in %s, but model.safetensors.index.json says %s",
                                dir, name, names[sl->shard], names[sl->index_shard]);
    }
    a->high = mark;

    /* typed views */
    m->layers = XLARUN__CAST(xlarun__layer *, xlarun__alloc_ex(a, sizeof(xlarun__layer) * m->cfg.n_layers, 0, 0));
    m->inv_freq = XLARUN__CAST(float *, xlarun__alloc_ex(a, sizeof(float) * (m->cfg.head_dim / 2), 0, 0));
    if (!m->layers || !m->inv_freq) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small");
    m->embed.data = L.slots[XLARUN__T_EMBED].data;
    m->embed.type = xlarun__ktype(L.slots[XLARUN__T_EMBED].dtype);
    i = m->cfg.tie_word_embeddings ? XLARUN__T_EMBED : XLARUN__T_LM_HEAD;
    m->lm_head.data = L.slots[i].data;
    m->lm_head.type = xlarun__ktype(L.slots[i].dtype);
    m->weight_bytes = XLARUN__CAST(uint64_t, m->cfg.vocab_size) * m->cfg.hidden_size * xlarun_k_type_size(m->lm_head.type);
    m->final_norm = XLARUN__CAST(const float *, L.slots[XLARUN__T_NORM].data);
    for (l = 0; l < m->cfg.n_layers; l++) {
        xlarun__slot *sl = &L.slots[XLARUN__T_GLOBAL + l * XLARUN__L_COUNT];
        xlarun__layer *ly = &m->layers[l];
        xlarun__weight *w[XLARUN__L_COUNT];
        int k;
        w[XLARUN__L_Q] = &ly->q; w[XLARUN__L_K] = &ly->k; w[XLARUN__L_V] = &ly->v; w[XLARUN__L_O] = &ly->o;
        w[XLARUN__L_GATE] = &ly->gate; w[XLARUN__L_UP] = &ly->up; w[XLARUN__L_DOWN] = &ly->down;
        ly->attn_norm = XLARUN__CAST(const float *, sl[XLARUN__L_ATTN_NORM].data);
        ly->mlp_norm = XLARUN__CAST(const float *, sl[XLARUN__L_MLP_NORM].data);
        for (k = 0; k < XLARUN__L_COUNT; k++) {
            uint64_t shape[2];
            if (k == XLARUN__L_ATTN_NORM || k == XLARUN__L_MLP_NORM) continue;
            w[k]->data = sl[k].data;
            w[k]->type = xlarun__ktype(sl[k].dtype);
            xlarun__slot_shape(&m->cfg, XLARUN__T_GLOBAL + XLARUN__CAST(int, l) * XLARUN__L_COUNT + k, shape);
            m->weight_bytes += shape[0] * shape[1] * xlarun_k_type_size(w[k]->type);
        }
    }
    xlarun__rope_freqs(&m->cfg, m->inv_freq);
    m->magic = XLARUN__MODEL_MAGIC;
    return XLARUN_OK;
}

static void xlarun__model_unmap(xlarun_model *m) {
#if defined(XLARUN__MMAP)
    uint32_t i;
    for (i = 0; m->maps && i < m->n_maps; i++)
        if (m->maps[i].addr) munmap(m->maps[i].addr, XLARUN__CAST(size_t, m->maps[i].bytes));
#else
    (void)m;
#endif
}

static const xlarun_model_options *xlarun__model_opts(const xlarun_model_options *opt) {
    static const xlarun_model_options defaults = {0, NULL, NULL};
    return opt ? opt : &defaults;
}

XLARUN_API xlarun_status xlarun_model_memory(const char *dir, const xlarun_model_options *opt,
                                             size_t *bytes, xlarun_error *err) {
    xlarun__arena a;
    xlarun_model *m = NULL;
    xlarun_status st;
    if (!dir || !bytes) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_model_memory: NULL argument");
    opt = xlarun__model_opts(opt);
    xlarun__arena_init(&a, NULL, 0, opt->alloc_user);
    st = xlarun__model_build(&a, dir, opt, &m, err);
    if (a.failed && st != XLARUN_OK) st = xlarun__fail(err, XLARUN_ERR_MEMORY, "out of memory while reading %s", dir);
    xlarun__arena_release_blocks(&a);
    *bytes = st == XLARUN_OK ? a.peak : 0;
    if (st == XLARUN_OK) xlarun__ok(err);
    return st;
}

XLARUN_API xlarun_status xlarun_model_open_in(const char *dir, const xlarun_model_options *opt,
                                              void *mem, size_t bytes, xlarun_model **out,
                                              xlarun_error *err) {
    xlarun__arena a;
    xlarun_model *m = NULL;
    xlarun_status st;
    if (out) *out = NULL;
    if (!dir || !mem || !out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_model_open_in: NULL argument");
    opt = xlarun__model_opts(opt);
    xlarun__arena_init(&a, mem, bytes, opt->alloc_user);
    st = xlarun__model_build(&a, dir, opt, &m, err);
    if (st != XLARUN_OK) {
        if (st == XLARUN_ERR_MEMORY)
            xlarun__fail(err, st, "%s: %lu bytes of model memory are too few (xlarun_model_memory gives the size)",
                         dir, XLARUN__CAST(unsigned long, bytes));
        if (m) xlarun__model_unmap(m);
        return st;
    }
    m->alloc_user = opt->alloc_user;
    *out = m;
    xlarun__ok(err);
    return XLARUN_OK;
}

static void *xlarun__align_up(void *p) {
    size_t pad = (XLARUN__ALIGN - XLARUN__PUN(uintptr_t, p) % XLARUN__ALIGN) % XLARUN__ALIGN;
    return XLARUN__CAST(unsigned char *, p) + pad;
}

XLARUN_API xlarun_status xlarun_model_open(const char *dir, const xlarun_model_options *opt,
                                           xlarun_model **out, xlarun_error *err) {
    size_t bytes = 0;
    void *mem;
    xlarun_status st;
    if (out) *out = NULL;
    if (!dir || !out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_model_open: NULL argument");
    opt = xlarun__model_opts(opt);
    XLARUN__TRY(xlarun_model_memory(dir, opt, &bytes, err));
    if (bytes > SIZE_MAX - XLARUN__ALIGN || !(mem = XLARUN_MALLOC(bytes + XLARUN__ALIGN, opt->alloc_user)))
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "%s: cannot allocate %lu bytes of model memory", dir,
                            XLARUN__CAST(unsigned long, bytes));
    st = xlarun_model_open_in(dir, opt, xlarun__align_up(mem), bytes, out, err);
    if (st != XLARUN_OK) { XLARUN_FREE(mem, opt->alloc_user); return st; }
    (*out)->own = mem;
    return XLARUN_OK;
}

XLARUN_API void xlarun_model_close(xlarun_model *m) {
    void *own;
    if (!m || m->magic != XLARUN__MODEL_MAGIC) return;
    xlarun__model_unmap(m);
    m->magic = 0;
    own = m->own;
    if (own) XLARUN_FREE(own, m->alloc_user);
}

XLARUN_API const xlarun_config *xlarun_model_config(const xlarun_model *m) { return m ? &m->cfg : NULL; }
XLARUN_API uint64_t xlarun_model_mapped_bytes(const xlarun_model *m) { return m ? m->mapped_bytes : 0; }
XLARUN_API uint64_t xlarun_model_weight_bytes(const xlarun_model *m) { return m ? m->weight_bytes : 0; }

/* ============================== 5. EXECUTOR =================================================== */
/* A session: KV cache, activation scratch and a thread pool in one block of memory. The graph
   is fixed and reads top to bottom in xlarun__forward.                                         */

typedef void (*xlarun__task_fn)(void *ctx, uint32_t t, uint32_t nt);

typedef struct xlarun__pool {
    uint32_t n;                          /* threads, the caller included */
#if !defined(XLARUN_NO_THREADS)
    uint32_t started;
    pthread_t *threads;
    struct xlarun__worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    uint64_t gen;
    uint32_t pending;
    int quit;
    xlarun__task_fn fn;
    void *ctx;
#endif
} xlarun__pool;

#if !defined(XLARUN_NO_THREADS)
typedef struct xlarun__worker { xlarun__pool *pool; uint32_t index; } xlarun__worker;

static void *xlarun__worker_main(void *arg) {
    xlarun__worker *w = XLARUN__CAST(xlarun__worker *, arg);
    xlarun__pool *p = w->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        xlarun__task_fn fn;
        void *ctx;
        while (p->gen == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        fn = p->fn;
        ctx = p->ctx;
        pthread_mutex_unlock(&p->mu);
        fn(ctx, w->index, p->n);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}
#endif

/* run fn on every thread index; the caller is thread 0 */
static void xlarun__pool_run(xlarun__pool *p, xlarun__task_fn fn, void *ctx) {
#if !defined(XLARUN_NO_THREADS)
    if (p->n > 1) {
        pthread_mutex_lock(&p->mu);
        p->fn = fn;
        p->ctx = ctx;
        p->pending = p->n - 1;
        p->gen++;
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->mu);
        fn(ctx, 0, p->n);
        pthread_mutex_lock(&p->mu);
        while (p->pending) pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
        return;
    }
#endif
    {
        uint32_t t;
        for (t = 0; t < p->n; t++) fn(ctx, t, p->n); /* same split, same results, one thread */
    }
}

static void xlarun__pool_stop(xlarun__pool *p) {
#if !defined(XLARUN_NO_THREADS)
    uint32_t i;
    if (!p->threads) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (i = 0; i < p->started; i++) pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    p->threads = NULL;
    p->started = 0;
#else
    (void)p;
#endif
}

static xlarun_status xlarun__pool_start(xlarun__pool *p, xlarun_error *err) {
#if !defined(XLARUN_NO_THREADS)
    uint32_t i;
    if (p->n <= 1) { p->threads = NULL; return XLARUN_OK; }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    p->gen = 0;
    p->quit = 0;
    p->started = 0;
    for (i = 0; i + 1 < p->n; i++) {
        p->workers[i].pool = p;
        p->workers[i].index = i + 1;
        if (pthread_create(&p->threads[i], NULL, xlarun__worker_main, &p->workers[i]) != 0) {
            xlarun__pool_stop(p);
            return xlarun__fail(err, XLARUN_ERR_MEMORY, "cannot start worker thread %u of %u", i + 1, p->n - 1);
        }
        p->started++;
    }
#else
    (void)p; (void)err;
#endif
    return XLARUN_OK;
}

#define XLARUN__SESSION_MAGIC 0x584C5345u

struct xlarun_session {
    uint32_t magic;
    const xlarun_model *m;
    uint32_t n_ctx, n_batch;
    size_t pos;                          /* tokens in the KV cache */
    int has_logits;
    float *kc, *vc;                      /* [n_layers][n_ctx][n_kv_heads * head_dim] */
    float *x, *xb, *q, *k, *v, *att, *tmp, *gate, *up; /* n_batch rows each */
    float *rope_cos, *rope_sin;          /* [n_batch][head_dim / 2] */
    float *scores;                       /* [n_threads][n_ctx] */
    float *logits;                       /* [vocab_size] */
    xlarun__pool pool;
    void *own, *alloc_user;
};

/* rows [r0, r1) of m that thread t of nt computes: contiguous blocks of 16 rows */
static void xlarun__split(size_t m, uint32_t t, uint32_t nt, size_t *r0, size_t *r1) {
    size_t units = (m + 15) / 16, u0 = units * t / nt, u1 = units * (t + 1) / nt;
    *r0 = u0 * 16 < m ? u0 * 16 : m;
    *r1 = u1 * 16 < m ? u1 * 16 : m;
}

/* up to three matrix products over the same input, each split by rows across the threads;
   silu_mul: after the first two (gate, up), gate = silu(gate) * up on the same rows */
typedef struct xlarun__mm {
    const xlarun__weight *w[3];
    float *y[3];
    size_t rows[3];
    int count, silu_mul;
    size_t K, n, ldy;
    const float *x;
} xlarun__mm;

static void xlarun__mm_task(void *ctx, uint32_t t, uint32_t nt) {
    const xlarun__mm *c = XLARUN__CAST(const xlarun__mm *, ctx);
    int i;
    for (i = 0; i < c->count; i++) {
        size_t r0, r1, ldy = c->ldy ? c->ldy : c->rows[i];
        xlarun__split(c->rows[i], t, nt, &r0, &r1);
        if (r0 < r1) xlarun_k_matmul(c->w[i]->type, c->w[i]->data, c->K, r0, r1, c->x, c->K, c->n, c->y[i], ldy);
    }
    if (c->silu_mul) {
        size_t r0, r1, i2;
        xlarun__split(c->rows[0], t, nt, &r0, &r1);
        for (i2 = 0; i2 < c->n && r0 < r1; i2++)
            xlarun_k_silu_mul(c->y[0] + i2 * c->rows[0] + r0, c->y[1] + i2 * c->rows[1] + r0, r1 - r0);
    }
}

static void xlarun__matmul(xlarun_session *s, const xlarun__weight *w, size_t rows, size_t K,
                           const float *x, size_t n, float *y) {
    xlarun__mm c;
    memset(&c, 0, sizeof c);
    c.w[0] = w; c.y[0] = y; c.rows[0] = rows; c.count = 1;
    c.K = K; c.n = n; c.x = x;
    xlarun__pool_run(&s->pool, xlarun__mm_task, &c);
}

typedef struct xlarun__attn {
    const xlarun_session *s;
    size_t layer, n;                     /* tokens of this chunk, at positions pos.. */
} xlarun__attn;

/* causal GQA attention: the (token, head) pairs split across threads */
static void xlarun__attn_task(void *ctx, uint32_t t, uint32_t nt) {
    const xlarun__attn *c = XLARUN__CAST(const xlarun__attn *, ctx);
    const xlarun_session *s = c->s;
    const xlarun_config *cf = &s->m->cfg;
    size_t hd = cf->head_dim, nh = cf->n_heads, group = nh / cf->n_kv_heads;
    size_t kvd = XLARUN__CAST(size_t, cf->n_kv_heads) * hd, qd = nh * hd;
    size_t total = c->n * nh, a0 = total * t / nt, a1 = total * (t + 1) / nt, w;
    const float *kc = s->kc + c->layer * s->n_ctx * kvd, *vc = s->vc + c->layer * s->n_ctx * kvd;
    float scale = XLARUN__CAST(float, 1.0 / sqrt(XLARUN__CAST(double, hd)));
    for (w = a0; w < a1; w++) {
        size_t i = w / nh, h = w % nh, kvh = h / group;
        xlarun_k_attend(s->q + i * qd + h * hd, kc + kvh * hd, vc + kvh * hd, kvd, s->pos + i + 1, hd, scale,
                        s->scores + XLARUN__CAST(size_t, t) * s->n_ctx, s->att + i * qd + h * hd);
    }
}

/* n tokens (n <= n_batch) at positions pos..pos+n-1; logits of the last one */
static void xlarun__forward(xlarun_session *s, const int32_t *ids, size_t n) {
    const xlarun_model *m = s->m;
    const xlarun_config *c = &m->cfg;
    size_t H = c->hidden_size, I = c->intermediate_size, hd = c->head_dim, half = hd / 2;
    size_t qd = XLARUN__CAST(size_t, c->n_heads) * hd, kvd = XLARUN__CAST(size_t, c->n_kv_heads) * hd;
    size_t esz = xlarun_k_type_size(m->embed.type), i, j, l;
    for (i = 0; i < n; i++)
        xlarun_k_to_f32(m->embed.type, XLARUN__CAST(const char *, m->embed.data) + XLARUN__CAST(size_t, ids[i]) * H * esz,
                        s->x + i * H, H);
    for (i = 0; i < n; i++) /* angle = f32(pos) * inv_freq, one f32 product as in transformers */
        for (j = 0; j < half; j++) {
            float ang = XLARUN__CAST(float, s->pos + i) * m->inv_freq[j];
            s->rope_cos[i * half + j] = cosf(ang);
            s->rope_sin[i * half + j] = sinf(ang);
        }
    for (l = 0; l < c->n_layers; l++) {
        const xlarun__layer *L = &m->layers[l];
        xlarun__mm mm;
        xlarun__attn at;
        /* attention block */
        for (i = 0; i < n; i++) xlarun_k_rmsnorm(s->xb + i * H, s->x + i * H, L->attn_norm, H, c->rms_norm_eps);
        memset(&mm, 0, sizeof mm);
        mm.w[0] = &L->q; mm.y[0] = s->q; mm.rows[0] = qd;
        mm.w[1] = &L->k; mm.y[1] = s->k; mm.rows[1] = kvd;
        mm.w[2] = &L->v; mm.y[2] = s->v; mm.rows[2] = kvd;
        mm.count = 3; mm.K = H; mm.n = n; mm.x = s->xb;
        xlarun__pool_run(&s->pool, xlarun__mm_task, &mm);
        for (i = 0; i < n; i++) {
            size_t at_pos = (l * s->n_ctx + s->pos + i) * kvd;
            xlarun_k_rope(s->q + i * qd, c->n_heads, hd, s->rope_cos + i * half, s->rope_sin + i * half);
            xlarun_k_rope(s->k + i * kvd, c->n_kv_heads, hd, s->rope_cos + i * half, s->rope_sin + i * half);
            memcpy(s->kc + at_pos, s->k + i * kvd, kvd * sizeof(float));
            memcpy(s->vc + at_pos, s->v + i * kvd, kvd * sizeof(float));
        }
        at.s = s; at.layer = l; at.n = n;
        xlarun__pool_run(&s->pool, xlarun__attn_task, &at);
        xlarun__matmul(s, &L->o, H, qd, s->att, n, s->tmp);
        xlarun_k_add(s->x, s->tmp, n * H);
        /* MLP block: down(silu(gate(x)) * up(x)) */
        for (i = 0; i < n; i++) xlarun_k_rmsnorm(s->xb + i * H, s->x + i * H, L->mlp_norm, H, c->rms_norm_eps);
        memset(&mm, 0, sizeof mm);
        mm.w[0] = &L->gate; mm.y[0] = s->gate; mm.rows[0] = I;
        mm.w[1] = &L->up; mm.y[1] = s->up; mm.rows[1] = I;
        mm.count = 2; mm.silu_mul = 1; mm.K = H; mm.n = n; mm.x = s->xb;
        xlarun__pool_run(&s->pool, xlarun__mm_task, &mm);
        xlarun__matmul(s, &L->down, H, I, s->gate, n, s->tmp);
        xlarun_k_add(s->x, s->tmp, n * H);
    }
    xlarun_k_rmsnorm(s->xb, s->x + (n - 1) * H, m->final_norm, H, c->rms_norm_eps);
    xlarun__matmul(s, &m->lm_head, c->vocab_size, H, s->xb, 1, s->logits);
    s->pos += n;
    s->has_logits = 1;
}

static xlarun_status xlarun__session_build(xlarun__arena *a, const xlarun_model *m,
                                           const xlarun_session_options *o, xlarun_session **out,
                                           xlarun_error *err) {
    const xlarun_config *c = &m->cfg;
    xlarun_session *s;
    uint32_t n_ctx = o->n_ctx ? o->n_ctx : (c->max_position_embeddings < 4096 ? c->max_position_embeddings : 4096);
    uint32_t nb = o->n_batch ? o->n_batch : 64, nt = o->n_threads ? o->n_threads : 1;
    uint64_t kvd = XLARUN__CAST(uint64_t, c->n_kv_heads) * c->head_dim, qd = XLARUN__CAST(uint64_t, c->n_heads) * c->head_dim;
    uint64_t width = c->hidden_size, cache;
    float **bufs[9];
    uint64_t cols[9];
    int i;
    if (n_ctx > XLARUN_MAX_POSITIONS)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "n_ctx %u is over the limit of %u tokens", n_ctx, XLARUN_MAX_POSITIONS);
    if (nt > 512) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "n_threads %u is over the limit of 512", nt);
    if (nb > n_ctx) nb = n_ctx;
    if (nb > 65536) nb = 65536;
    s = XLARUN__CAST(xlarun_session *, xlarun__alloc_ex(a, sizeof *s, 0, 0));
    if (!s) return xlarun__no_room(a, "session", err);
    memset(s, 0, sizeof *s);
    s->m = m;
    s->n_ctx = n_ctx;
    s->n_batch = nb;
    s->pool.n = nt;
    *out = s;
    /* sizes: all products of values bounded above, checked anyway */
    if (!xlarun__mul_u64(XLARUN__CAST(uint64_t, c->n_layers) * n_ctx, kvd * sizeof(float), &cache) || cache > SIZE_MAX / 4)
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "a KV cache of %u tokens is too large for this machine", n_ctx);
    s->kc = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, cache), 0, 1));
    s->vc = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, cache), 0, 1));
    bufs[0] = &s->x; cols[0] = width;
    bufs[1] = &s->xb; cols[1] = width;
    bufs[2] = &s->q; cols[2] = qd;
    bufs[3] = &s->k; cols[3] = kvd;
    bufs[4] = &s->v; cols[4] = kvd;
    bufs[5] = &s->att; cols[5] = qd;
    bufs[6] = &s->tmp; cols[6] = width;
    bufs[7] = &s->gate; cols[7] = c->intermediate_size;
    bufs[8] = &s->up; cols[8] = c->intermediate_size;
    for (i = 0; i < 9; i++) {
        *bufs[i] = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb * cols[i] * sizeof(float)), 0, 1));
        if (!*bufs[i] && !xlarun__measuring(a)) return xlarun__no_room(a, "session", err);
    }
    s->rope_cos = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * (c->head_dim / 2) * sizeof(float), 0, 1));
    s->rope_sin = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * (c->head_dim / 2) * sizeof(float), 0, 1));
    s->scores = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nt) * n_ctx * sizeof(float), 0, 1));
    s->logits = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, c->vocab_size) * sizeof(float), 0, 1));
    if (!xlarun__measuring(a) && (!s->kc || !s->vc || !s->rope_cos || !s->rope_sin || !s->scores || !s->logits))
        return xlarun__no_room(a, "session", err);
#if !defined(XLARUN_NO_THREADS)
    if (nt > 1) {
        s->pool.threads = XLARUN__CAST(pthread_t *, xlarun__alloc_ex(a, sizeof(pthread_t) * (nt - 1), 0, 0));
        s->pool.workers = XLARUN__CAST(xlarun__worker *, xlarun__alloc_ex(a, sizeof(xlarun__worker) * (nt - 1), 0, 0));
        if (!s->pool.threads || !s->pool.workers) return xlarun__no_room(a, "session", err);
    }
#endif
    if (!xlarun__measuring(a)) XLARUN__TRY(xlarun__pool_start(&s->pool, err));
    s->magic = XLARUN__SESSION_MAGIC;
    return XLARUN_OK;
}

static const xlarun_session_options *xlarun__session_opts(const xlarun_session_options *o) {
    static const xlarun_session_options defaults = {0, 0, 0, NULL};
    return o ? o : &defaults;
}

static int xlarun__model_ok(const xlarun_model *m) { return m && m->magic == XLARUN__MODEL_MAGIC; }
static int xlarun__session_ok(const xlarun_session *s) {
    return s && s->magic == XLARUN__SESSION_MAGIC && xlarun__model_ok(s->m);
}

XLARUN_API xlarun_status xlarun_session_memory(const xlarun_model *m, const xlarun_session_options *opt,
                                               size_t *bytes, xlarun_error *err) {
    xlarun__arena a;
    xlarun_session *s;
    xlarun_status st;
    if (!xlarun__model_ok(m) || !bytes)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_memory: NULL or closed model, or NULL bytes");
    opt = xlarun__session_opts(opt);
    xlarun__arena_init(&a, NULL, 0, opt->alloc_user);
    st = xlarun__session_build(&a, m, opt, &s, err);
    if (st == XLARUN_OK && a.failed) st = xlarun__fail(err, XLARUN_ERR_MEMORY, "out of memory while sizing the session");
    xlarun__arena_release_blocks(&a);
    *bytes = st == XLARUN_OK ? a.peak : 0;
    if (st == XLARUN_OK) xlarun__ok(err);
    return st;
}

XLARUN_API xlarun_status xlarun_session_create_in(const xlarun_model *m, const xlarun_session_options *opt,
                                                  void *mem, size_t bytes, xlarun_session **out,
                                                  xlarun_error *err) {
    xlarun__arena a;
    xlarun_session *s = NULL;
    xlarun_status st;
    if (out) *out = NULL;
    if (!xlarun__model_ok(m) || !mem || !out)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_create_in: NULL or closed model, NULL memory or NULL out");
    opt = xlarun__session_opts(opt);
    xlarun__arena_init(&a, mem, bytes, opt->alloc_user);
    st = xlarun__session_build(&a, m, opt, &s, err);
    if (st != XLARUN_OK) return st;
    s->alloc_user = opt->alloc_user;
    *out = s;
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_session_create(const xlarun_model *m, const xlarun_session_options *opt,
                                               xlarun_session **out, xlarun_error *err) {
    size_t bytes = 0;
    void *mem;
    xlarun_status st;
    if (out) *out = NULL;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_create: NULL out");
    opt = xlarun__session_opts(opt);
    XLARUN__TRY(xlarun_session_memory(m, opt, &bytes, err));
    if (bytes > SIZE_MAX - XLARUN__ALIGN || !(mem = XLARUN_MALLOC(bytes + XLARUN__ALIGN, opt->alloc_user)))
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "cannot allocate %lu bytes of session memory",
                            XLARUN__CAST(unsigned long, bytes));
    st = xlarun_session_create_in(m, opt, xlarun__align_up(mem), bytes, out, err);
    if (st != XLARUN_OK) { XLARUN_FREE(mem, opt->alloc_user); return st; }
    (*out)->own = mem;
    return XLARUN_OK;
}

XLARUN_API void xlarun_session_free(xlarun_session *s) {
    void *own;
    if (!s || s->magic != XLARUN__SESSION_MAGIC) return;
    xlarun__pool_stop(&s->pool);
    s->magic = 0;
    own = s->own;
    if (own) XLARUN_FREE(own, s->alloc_user);
}

XLARUN_API void xlarun_session_reset(xlarun_session *s) {
    if (!s || s->magic != XLARUN__SESSION_MAGIC) return;
    s->pos = 0;
    s->has_logits = 0;
}

XLARUN_API xlarun_status xlarun_session_prefill(xlarun_session *s, const int32_t *ids, size_t n,
                                                xlarun_error *err) {
    size_t i;
    if (!xlarun__session_ok(s))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_prefill: NULL or freed session, or its model was closed");
    if (!ids || n == 0) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_prefill: no tokens given");
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || XLARUN__CAST(uint32_t, ids[i]) >= s->m->cfg.vocab_size)
            return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "token id %ld at position %lu is outside the vocabulary (vocab_size %u)",
                                XLARUN__CAST(long, ids[i]), XLARUN__CAST(unsigned long, i), s->m->cfg.vocab_size);
    if (n > s->n_ctx - s->pos)
        return xlarun__fail(err, XLARUN_ERR_CONTEXT, "%lu tokens do not fit: the context holds %u and %lu are used",
                            XLARUN__CAST(unsigned long, n), s->n_ctx, XLARUN__CAST(unsigned long, s->pos));
    for (i = 0; i < n; i += s->n_batch)
        xlarun__forward(s, ids + i, n - i < s->n_batch ? n - i : s->n_batch);
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_session_decode(xlarun_session *s, int32_t id, xlarun_error *err) {
    return xlarun_session_prefill(s, &id, 1, err);
}

XLARUN_API const float *xlarun_session_logits(const xlarun_session *s) {
    return s && s->magic == XLARUN__SESSION_MAGIC && s->has_logits ? s->logits : NULL;
}

XLARUN_API int32_t xlarun_argmax(const float *x, size_t n) {
    return x && n ? XLARUN__CAST(int32_t, xlarun_k_argmax(x, n)) : -1;
}

XLARUN_API int32_t xlarun_session_argmax(const xlarun_session *s) {
    const float *l = xlarun_session_logits(s);
    return l ? xlarun_argmax(l, s->m->cfg.vocab_size) : -1;
}

XLARUN_API size_t xlarun_session_position(const xlarun_session *s) {
    return s && s->magic == XLARUN__SESSION_MAGIC ? s->pos : 0;
}

/* ============================== 6. TOKENIZER ================================================== */
/* tokenizer.json: BPE (byte-level as Llama 3 / GPT-2, SentencePiece-style with byte fallback as
   Llama 2), added and special tokens, decoding and streaming detokenization.                    */

/* ============================== 7. GENERATION ================================================= */
/* samplers, stop tokens and stop strings, chat formatting, the token loop.                        */

#endif /* XLARUN_IMPLEMENTATION_INCLUDED */
#endif /* XLARUN_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the xlarun authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT
OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
