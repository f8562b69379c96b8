/* xlarun.h - run Hugging Face language models on the CPU, straight from the checkpoint folder:
   Llama 2/3.x, Mistral, Qwen2/2.5, Qwen3, Gemma 1/2/3, Phi-3/3.5/4-mini, SmolLM3, Granite 3,
   OLMo 2 and the mixtures of experts Mixtral, Qwen3-MoE, OLMoE and Qwen2-MoE (safetensors in
   f32/f16/bf16 or xlarun's q8_0/q4_0, tokenizer.json, the folder's Jinja chat template).
   Single-header C library (C99, also compiles as C++). No dependencies beyond libc, libm and,
   optionally, threads and file maps (POSIX or Win32). This comment is the API reference; each
   declaration below carries its own contract.

   MAP OF THE FILE (search for the quoted text)
       the public declarations, in layer order:
       "---- status"  "---- safetensors streaming reader"  "---- model"  "---- session"
       "---- quantization"  "---- tokenizer"  "---- generation" (sampling, chat templates, tool
       calls, the generator); then "IMPLEMENTATION", in the same order:
       "== 1. BASE"                  errors, the arena, objects in one block, files and maps, JSON
       "== 2. SAFETENSORS"           the streaming header reader and its validation
       "== 3. WEIGHT STORE"          tensors by name across shards, mapped or read
       "== 4. MODEL"                 config.json per architecture, tensor checks, RoPE tables
       "== 5. EXECUTOR"              sessions: thread pool, KV cache, prefill and decode over the
                                     kernels of xlarun_kernels.h
       "== 6. TOKENIZER"             tokenizer.json: normalizers, pre-tokenizers, BPE, decoding
       "== 7. GENERATION"            sampling, stop strings, the Jinja interpreter ("---- chat
                                     templates"), built-in templates, tool-call parsing, the token
                                     loop ("---- the token loop")
       "== 8. QUANTIZE"              checkpoint -> q8_0/q4_0 checkpoint
       The kernels (matrix products, attention, norms per instruction set) are the table in
       xlarun_kernels.h. README.md, tests/README.md and tools/README.md hold the measurements.

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
       XLARUN_NO_THREADS      no threads (pthreads; Win32 threads on Windows): n_threads > 1 still
                              gives the same results, run serially
       XLARUN_NO_MMAP         never map files; weights are streamed into the model's memory
       XLARUN_NO_STDIO        no file system calls at all: load through xlarun_io callbacks only
       XLARUN_SIMD_SCALAR     use the scalar reference kernels (see xlarun_kernels.h)

   WINDOWS
       Paths are UTF-8 (opened with CreateFileW). The file with XLARUN_IMPLEMENTATION includes
       <windows.h> (with WIN32_LEAN_AND_MEAN and NOMINMAX) and needs _WIN32_WINNT >= 0x0600.
       xlarun_quantize needs POSIX and answers XLARUN_ERR_UNSUPPORTED there. Tested with
       mingw-w64 under Wine; MSVC is not tested.

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
       Tokenizers, samplers and generators follow the same pattern (*_memory, then *_open_in /
       *_init with your memory, or the allocating *_open / *_create).

   THREADS
       A model is immutable once open and may be shared by sessions on any threads. A session is
       used by one thread at a time; it owns a pool of n_threads-1 workers. Each output element is
       computed by one thread in a fixed order, so results are bit-identical for any thread count,
       and prefill of a chunk is bit-identical to decoding its tokens one at a time. The workers
       take the matrices' rows in chunks as each finishes its last, so a core busy elsewhere (your
       app's own threads, more threads than cores, a host preempting a vCPU) holds up less.
       xlarun_physical_cores() counts the machine's cores (SMT siblings once): the examples' and
       tools' default n_threads.
       Free a generator before its session, and sessions before closing their model and
       tokenizer (xlarun_generator_free itself reads nothing of the session, so either order
       frees). A session whose model was closed answers XLARUN_ERR_ARGUMENT while the model's
       memory is still readable (memory you passed to xlarun_model_open_in); after
       xlarun_model_close of a model from xlarun_model_open that memory is freed, and using the
       session is undefined. The same holds for a generator whose session was freed.

   NUMERICS
       Activations are f32, and so is the KV cache by default; weights are read in their stored
       dtype and widened exactly (on AMX-BF16 tiles, where built and granted, each activation as
       three bf16 parts that sum to it). The reference is Hugging Face transformers'
       LlamaForCausalLM (MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Gemma3ForCausalLM,
       Gemma2ForCausalLM, GemmaForCausalLM, Phi3ForCausalLM, SmolLM3ForCausalLM, GraniteForCausalLM,
       Olmo2ForCausalLM, MixtralForCausalLM, Qwen3MoeForCausalLM, OlmoeForCausalLM,
       Qwen2MoeForCausalLM) in float32 with eager attention; the per-head q/k norms of Qwen3 and
       Gemma 3 use the RMSNorm kernel of the layer norms (Gemma's norm weights are stored once as
       1 + w, in f32); biases (Qwen2's q, k, v; Llama's attention_bias and mlp_bias) are added in f32
       after the product, and stay float in quantized checkpoints, like the norms. See README.md for
       the measured agreement. The session option precision = XLARUN_PRECISION_BF16_ACTIVATIONS
       rounds activation rows to bf16 before products with bf16 weights (AVX512_BF16 vdpbf16ps,
       AMX-BF16 tiles where built and granted, Arm BF16 BFDOT): faster prefill, looser agreement
       (README states both). The session option
       kv_type = XLARUN_KV_F16 or XLARUN_KV_BF16 stores keys and values at half size (half the
       cache memory and the attention reads of long contexts), also at a looser agreement that
       README.md states.

   CONFIG.JSON
       Each architecture is one row of a table (xlarun__archs): its transformers class and
       model_type, its config class's defaults, the keys it reads under two names (attribute_map:
       num_local_experts / num_experts), its layer as enums and its tensors as tables. Folders
       written by transformers 4.x and 5.x (rope_parameters) both load; where versions read a key
       differently, the folder's transformers_version decides (xlarun_config.transformers_version;
       tests/README.md lists the cases). xlarun_config says what the model is; how the executor
       runs it is private.

   QUANTIZED WEIGHTS (q8_0, q4_0)
       xlarun_quantize (build/quantize) writes a checkpoint whose matrices are I8 [rows,K] (q8_0)
       or U8 [rows,K/2] (q4_0, byte j of a 32-weight block: element j in the low nibble, j+16 in
       the high one, each as q+8), each with "<name>_scale" F16 [rows,K/32]: w = scale * q,
       symmetric, one scale per 32 weights along K (q8: max|w|/127; q4: the largest-magnitude
       weight maps to -8). Norms stay float; __metadata__ "xlarun.quant" = q8_0|q4_0 and
       "xlarun.block" = 32 mark the file. It is mapped in place like any other (no repacked
       copy). Precision: a quantized matrix reads its input quantized too, each activation row
       on its own, per block of 32, to int8 (scale max|x|/127) and uses integer dot products
       (AVX-512 VNNI vpdpbusd, AVX2 vpmaddubsw, NEON sdot); the f32/f16/bf16 path is unchanged.
       The determinism contract holds as for float weights. Details: xlarun_kernels.h.

   TOKENIZER
       tokenizer.json (plus tokenizer_config.json, generation_config.json, config.json when there)
       gives the ids Hugging Face `tokenizers` 0.20.3 gives, checked on a 2,591-case corpus for
       ten tokenizers (tests/fixtures/tokenizers; one as transformers 5.23.0 saves it): byte-level
       BPE as Llama 3 (its Split pattern hand-coded, ignore_merges), as Qwen2 / Qwen2.5 (the NFC
       normalizer, the same Split with one digit per piece; 2,835 more cases of NFC), with the
       case-aware o200k Split (Phi-4-mini, gpt-oss) and Tekken's (Mistral Nemo; 1,582 more cases
       of letter case and marks, also piece by piece against the Split alone) and GPT-2 /
       SmolLM2 (ByteLevel regex, Digits), and SentencePiece-style BPE as Llama 2 / TinyLlama /
       Mistral, both as the hub files have it (Prepend + Replace normalizer) and as transformers v5
       and older exports write it (the Metaspace pre-tokenizer and decoder: prepend_scheme first,
       always or never, split or not), and as Gemma 1/2/3's (Replace alone, no dummy prefix, a
       Split(" ", MergedWithPrevious) pre-tokenizer, no Strip in the decoder; 835 more cases of
       white-space runs, chat turns and thousands of added tokens), with byte_fallback and unk.
       Added tokens are matched leftmost-longest with their single_word, lstrip, rstrip and
       normalized flags, by binary searches in a table sorted by text (so thousands of them, as
       Gemma 3's 6,000, cost a few comparisons per byte matched); the post-processor's template
       adds BOS. Anything else (other models, normalizers such as NFKC or NFC with another step,
       other pre-tokenizers, regexes and Split strings) is refused by name at load.
       Unicode classes come from a table of Unicode 14.0 (Oniguruma's in tokenizers 0.20.3), NFC
       from tables of Unicode 9.0 (the unicode-normalization-alignments 0.1.12 in tokenizers
       0.20.3; 99 code points that later versions gave a class or a decomposition, such as U+0898
       or U+1DF6, are left as they are), both made by tools/make_unicode.py.
           xlarun_tokenizer *tok;
           xlarun_tokenizer_open("Llama-3.2-1B", NULL, &tok, &err);
           size_t sb = xlarun_tokenizer_scratch_bytes(tok, len), n;   // enough for any flags
           xlarun_tokenizer_encode(tok, text, len, 0, ids, cap, &n, scratch, sb, &err);
           xlarun_detok d; xlarun_detok_init(&d, tok, 0);          // per generated id:
           xlarun_detok_push(&d, id, piece, xlarun_tokenizer_max_piece(tok), &plen, &err);
       Input text must be UTF-8: invalid bytes are XLARUN_ERR_ARGUMENT naming the offset, or with
       XLARUN_ENCODE_REPLACE_INVALID each maximal invalid subpart becomes U+FFFD, exactly what
       Python's bytes.decode("utf-8", errors="replace") hands to `tokenizers`. Special-token text
       in the input is matched as tokenizers does; XLARUN_ENCODE_SPECIAL_AS_TEXT (untrusted input)
       encodes it as plain text, as encode_special_tokens=True. Decoding is tokenizers' decode()
       with the tokenizer's decoder, without transformers' clean_up_tokenization_spaces. A
       tokenizer is immutable (share it between threads); encode and decode allocate nothing.

   GENERATION
       A Jinja interpreter runs the model's chat template as transformers' apply_chat_template
       does (messages and tools as JSON, any template variable), in memory the caller gives:
           xlarun_chat_template_create(src, strlen(src), &tmpl, &err);   // refused with line:col
           xlarun_chat_render_alloc(tmpl, &input, &text, &len, &err);    // or _memory + _render
       xlarun_reply_parse splits a reply into reasoning, content and tool calls per model family.
       A generator (session + tokenizer + sampler + stop strings) runs the token loop with a
       per-token callback, keeps what the session already holds of the conversation and prefills
       only the new part:
           xlarun_generator_create(session, tok, NULL, &gen, &err);    // NULL options: greedy
           xlarun_generate_text(gen, text, len, XLARUN_ENCODE_NO_BOS, 128, on_piece, user, &res, &err);

   API
       xlarun_status_name         xlarun_model_open          xlarun_model_memory
       xlarun_model_open_in       xlarun_model_close         xlarun_model_config
       xlarun_model_mapped_bytes  xlarun_session_memory      xlarun_session_create
       xlarun_session_create_in   xlarun_session_free        xlarun_session_reset
       xlarun_session_prefill     xlarun_session_decode      xlarun_session_logits
       xlarun_session_argmax      xlarun_session_position    xlarun_argmax
       xlarun_session_truncate    xlarun_model_dtype         xlarun_model_weight_bytes
       xlarun_arch_name           xlarun_physical_cores
       xlarun_st_begin            xlarun_st_memory           xlarun_st_read_header
       xlarun_st_count            xlarun_st_tensor_at        xlarun_st_next
       xlarun_st_read             xlarun_dtype_name          xlarun_st_metadata
       xlarun_quantize
       xlarun_tokenizer_memory    xlarun_tokenizer_open_in   xlarun_tokenizer_open
       xlarun_tokenizer_close     xlarun_tokenizer_encode    xlarun_tokenizer_scratch_bytes
       xlarun_tokenizer_decode    xlarun_detok_init          xlarun_detok_push
       xlarun_detok_flush         xlarun_tokenizer_max_piece xlarun_tokenizer_vocab_size
       xlarun_tokenizer_token_id  xlarun_tokenizer_token_text xlarun_tokenizer_is_special
       xlarun_tokenizer_bos_id    xlarun_tokenizer_adds_bos  xlarun_tokenizer_eos_ids
       xlarun_tokenizer_chat_template                        xlarun_tokenizer_check_model
       xlarun_sampling_check      xlarun_sampler_memory      xlarun_sampler_init
       xlarun_sampler_create      xlarun_sampler_free        xlarun_sampler_set
       xlarun_sampler_reset       xlarun_sampler_accept      xlarun_sampler_sample
       xlarun_stopper_init        xlarun_stopper_push        xlarun_stopper_flush
       xlarun_chat_template_memory xlarun_chat_template_init xlarun_chat_template_create
       xlarun_chat_template_free  xlarun_chat_template_builtin xlarun_chat_template_names
       xlarun_chat_input_from_tokenizer                      xlarun_chat_render_memory
       xlarun_chat_render         xlarun_chat_render_alloc   xlarun_chat_text_free
       xlarun_reply_memory        xlarun_reply_parse         xlarun_tool_format_guess
       xlarun_tool_format_name                               xlarun_generation_config_load
       xlarun_generation_config_parse                        xlarun_generator_memory
       xlarun_generator_init      xlarun_generator_create    xlarun_generator_free
       xlarun_generator_set_sampling                         xlarun_generate_ids
       xlarun_generate_text       xlarun_generator_ids

   VERSION HISTORY
       0.1  first release: safetensors (streaming, sharded, mmap), the Llama-family executor
            (15 architectures, mixtures of experts included); tokenizer.json (byte-level and
            SentencePiece-style BPE); chat formats; samplers, stop strings, the generation loop;
            q8_0/q4_0 weights; the bf16-activation and half-size KV cache options.
       0.2  chat templates run by a Jinja interpreter (the formats recognised by their text are
            gone: a named format is a built-in template text); tool calls read back from
            replies; a generator may have no tokenizer (ids only).
       0.3  GBNF grammars, JSON Schema and tool-call grammars for the generator; AMX-INT8 and
            AMX-BF16 tiles (bf16 weights: prefill and decode, either precision); config.json through
            one row per architecture, read as the folder's transformers version (4.x or 5.x) reads
            it. xlarun_config keeps what the model is (it gained transformers_version); the
            executor's switches (biases, norm placement, multipliers, per-layer flags) and
            xlarun_act left it.

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

#define XLARUN_VERSION "0.2"

/* ---- status ------------------------------------------------------------------------------ */

typedef enum xlarun_status {
    XLARUN_OK = 0,
    XLARUN_ERR_ARGUMENT,    /* a caller mistake: NULL pointer, zero size, token id out of range */
    XLARUN_ERR_IO,          /* a file could not be opened, read or mapped */
    XLARUN_ERR_FORMAT,      /* a file is malformed: JSON, safetensors header, offsets, limits */
    XLARUN_ERR_MODEL,       /* files that do not make one model: missing tensor, shape vs config */
    XLARUN_ERR_UNSUPPORTED, /* a valid model that xlarun does not run: architecture, rope type */
    XLARUN_ERR_MEMORY,      /* the memory given is too small, or the allocator failed */
    XLARUN_ERR_CONTEXT,     /* the tokens do not fit the session's context */
    XLARUN_ERR_GRAMMAR      /* a grammar or JSON Schema that is malformed or unsupported, text that
                               a grammar does not allow, or output that no token can continue */
} xlarun_status;

typedef struct xlarun_error {
    xlarun_status status;
    char message[1024];     /* one line, NUL-terminated; names the file, tensor or key */
} xlarun_error;

XLARUN_API const char *xlarun_status_name(xlarun_status s);

/* The machine's physical cores, each counted once whatever its SMT threads: the default thread
   count of the examples and tools. Linux: the CPU topology in /sys (thread_siblings_list),
   else the online processors; Windows: GetLogicalProcessorInformation; other POSIX systems: the
   online processors. 1 with XLARUN_NO_THREADS (sessions then run serially); with
   XLARUN_NO_STDIO, the online processors (no files are read). At most 512, at least 1. */
XLARUN_API uint32_t xlarun_physical_cores(void);

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
    size_t meta;                      /* 1 + where __metadata__'s object starts in text; 0: none */
} xlarun_st_reader;

/* Pull-style reading of one .safetensors stream, no seeking needed:
     xlarun_st_begin        reads the 8-byte header length and checks it (file_size 0 = unknown)
     xlarun_st_memory       the bytes xlarun_st_read_header needs
     xlarun_st_read_header  reads and validates the whole header: JSON, dtypes, shapes, offsets
                            (contiguous from 0, no gaps or overlaps), duplicate names, file size
     xlarun_st_count / xlarun_st_tensor_at   the tensors in file order
     xlarun_st_next         advances to the next tensor in file order (skipping unread bytes);
                            *t = NULL after the last one, once the end of the stream is confirmed
     xlarun_st_read         reads bytes of the current tensor, in chunks of any size
     xlarun_st_metadata     a "__metadata__" string by key (the last if repeated): 1 and the
                            NUL-terminated value in out (an empty string when it does not fit
                            in cap bytes), or 0 when absent */
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
XLARUN_API int xlarun_st_metadata(const xlarun_st_reader *r, const char *key, char *out, size_t cap);

/* ---- model ---------------------------------------------------------------------------------- */

#define XLARUN_MAX_ROPE_FACTORS 512 /* head_dim / 2 at most */
#define XLARUN_MAX_LAYERS 1024u     /* num_hidden_layers at most */
#define XLARUN_MAX_EXPERTS 1024u    /* experts of a mixture-of-experts layer at most */
typedef enum xlarun_rope_type {
    XLARUN_ROPE_DEFAULT = 0, XLARUN_ROPE_LINEAR, XLARUN_ROPE_LLAMA3,
    XLARUN_ROPE_LONGROPE            /* Phi-3's: per-frequency factors, the short ones, or the long
                                       ones for a prefill or decode call that reaches past
                                       original_max_position_embeddings (as transformers) */
} xlarun_rope_type;

#define XLARUN_MAX_EOS 8

typedef enum xlarun_arch {          /* config.json's architectures / model_type */
    XLARUN_ARCH_LLAMA = 0,          /* LlamaForCausalLM, llama */
    XLARUN_ARCH_MISTRAL,            /* MistralForCausalLM, mistral: Llama with a sliding window */
    XLARUN_ARCH_QWEN2,              /* Qwen2ForCausalLM, qwen2: Llama with q, k and v biases */
    XLARUN_ARCH_QWEN3,              /* Qwen3ForCausalLM, qwen3: Llama with an RMSNorm over each head
                                       of q and k before RoPE (q_norm, k_norm) */
    XLARUN_ARCH_GEMMA3,             /* Gemma3ForCausalLM, gemma3_text: Qwen3's head norms, norms
                                       after attention and MLP too, GELU, local and global layers */
    XLARUN_ARCH_GEMMA2,             /* Gemma2ForCausalLM, gemma2: Gemma 3 without the head norms and the
                                       local RoPE base, with soft caps on the scores and the logits */
    XLARUN_ARCH_GEMMA,              /* GemmaForCausalLM, gemma: Llama with norms of 1 + w, the
                                       embedding scaled by sqrt(hidden_size), GELU (hidden_act) */
    XLARUN_ARCH_PHI3,               /* Phi3ForCausalLM, phi3: Mistral with q, k and v in one matrix
                                       (qkv_proj) and gate and up in one (gate_up_proj) */
    XLARUN_ARCH_SMOLLM3,            /* SmolLM3ForCausalLM, smollm3: Llama with no RoPE on some layers
                                       (no_rope_layers; every 4th in SmolLM3-3B) */
    XLARUN_ARCH_GRANITE,            /* GraniteForCausalLM, granite: Llama with multipliers on the
                                       embedding, the scores, the residual branches and the logits */
    XLARUN_ARCH_OLMO2,              /* Olmo2ForCausalLM, olmo2: Llama with its norms after attention
                                       and MLP instead of before, and q and k RMS-normalized whole */
    XLARUN_ARCH_MIXTRAL,            /* MixtralForCausalLM, mixtral: Mistral whose MLP is a mixture of
                                       experts (block_sparse_moe: a router and experts w1, w3, w2) */
    XLARUN_ARCH_QWEN3_MOE,          /* Qwen3MoeForCausalLM, qwen3_moe: Qwen3 whose MLP is a mixture of
                                       experts on the layers decoder_sparse_step and mlp_only_layers give */
    XLARUN_ARCH_OLMOE,              /* OlmoeForCausalLM, olmoe: Llama with q and k RMS-normalized whole
                                       (as OLMo 2) and a mixture-of-experts MLP */
    XLARUN_ARCH_QWEN2_MOE           /* Qwen2MoeForCausalLM, qwen2_moe: Qwen2 (q, k, v biases) whose MLP is
                                       a mixture of experts plus a shared expert behind a sigmoid gate */
} xlarun_arch;

typedef struct xlarun_config {      /* what config.json says the model is, checked; read-only. How
                                       the executor runs it (norm placement, biases, multipliers,
                                       per-layer switches) is the model's private plan. */
    xlarun_arch arch;
    uint32_t vocab_size, hidden_size, intermediate_size, n_layers;
    uint32_t n_heads, n_kv_heads, head_dim, max_position_embeddings;
    float rms_norm_eps;
    float rope_theta;
    xlarun_rope_type rope_type;
    float rope_factor, rope_low_freq_factor, rope_high_freq_factor;
    uint32_t rope_original_max_position_embeddings;
    uint32_t rope_dim;              /* the rotated dimensions of a head: head_dim, or Phi-3's
                                       int(head_dim * partial_rotary_factor) (the first ones) */
    float rope_local_theta;         /* Gemma 3: the sliding layers' RoPE base (rope_local_base_freq,
                                       never scaled); 0: every layer uses rope_theta */
    int tie_word_embeddings;
    uint32_t sliding_window;        /* position i attends to i-W+1..i (on the sliding layers); 0: none */
    uint32_t n_experts;             /* mixture of experts: the experts of a sparse layer; 0: a dense model */
    uint32_t n_experts_used;        /* num_experts_per_tok: each token runs the experts with the
                                       largest router probabilities */
    uint32_t moe_intermediate_size; /* an expert's intermediate size (Mixtral: intermediate_size) */
    uint32_t moe_shared_size;       /* Qwen2-MoE: the shared expert's intermediate size; 0: none */
    int32_t bos_token_id;           /* -1 when absent */
    uint32_t n_eos;
    int32_t eos_token_ids[XLARUN_MAX_EOS];
    char transformers_version[24];  /* as config.json gives it ("4.46.3"); "" when absent. Where
                                       transformers versions read a key differently, this one
                                       decides (none: as the latest 4.x) */
} xlarun_config;

XLARUN_API const char *xlarun_arch_name(xlarun_arch a); /* "LlamaForCausalLM", ...; "?" if unknown */

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
XLARUN_API const char *xlarun_model_dtype(const xlarun_model *m); /* layer matrices (not the MoE gates):
                                                                     "bf16", "q8_0"... or "mixed" */

/* ---- session ------------------------------------------------------------------------------- */

/* How matrix products treat activations. EXACT (the default) multiplies f32 activations by the
   exactly widened weights: the results track transformers' float32 reference (see README).
   Where the build targets AMX-BF16 and the OS grants the tiles, EXACT runs bf16 weights on the
   tiles with each activation split into three bf16 parts that sum to it exactly: f32-level
   agreement again, in the tiles' own summation order (xlarun_k_matmul_amx3).
   BF16_ACTIVATIONS rounds each activation row to bf16 before products with bf16 weights and
   uses the CPU's bf16 dot product (AVX512_BF16 vdpbf16ps, Arm BF16 BFDOT) where the build has
   one: about twice the prefill speed, at the cost of the agreement README.md states; other
   weights stay exact. */
typedef enum xlarun_precision {
    XLARUN_PRECISION_EXACT = 0,
    XLARUN_PRECISION_BF16_ACTIVATIONS = 1
} xlarun_precision;

/* The dtype of the KV cache. F32 (the default) keeps keys and values as computed. F16 and BF16
   halve the cache: each key and value is rounded to nearest even as it is stored (f16 keeps 11
   significant bits and the range +-65504, bf16 keeps 8 and nearly the f32 range; finite values
   past the range saturate to it), and attention reads them back widened exactly. Prefill still
   equals token-by-token decode and any thread count gives the same bits. */
typedef enum xlarun_kv_type {
    XLARUN_KV_F32 = 0,
    XLARUN_KV_F16 = 1,
    XLARUN_KV_BF16 = 2
} xlarun_kv_type;

typedef struct xlarun_session_options { /* zero-initialised means defaults */
    uint32_t n_ctx;                 /* tokens the KV cache holds; 0: min(4096, max_position) */
    uint32_t n_batch;               /* prefill chunk in tokens; 0: 256 */
    uint32_t n_threads;             /* 0: 1 */
    void *alloc_user;
    xlarun_precision precision;     /* 0: exact */
    xlarun_kv_type kv_type;         /* 0: f32 */
    int kv_full;                    /* 1: the sliding-window layers (Mistral, Gemma 2/3) keep all n_ctx
                                       positions, so that truncate can go back any distance; 0: they
                                       keep the last W + n_batch - 1 (in whole key blocks), which is
                                       all they attend */
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
/* keep the first n_keep tokens of the context and forget the rest (to continue from a shared
   prefix); the logits stay available only when nothing is dropped. With a sliding window and
   without kv_full, the window's layers keep only their last positions: n_keep must be 0, or
   recent enough that the W - 1 before it are still kept (XLARUN_ERR_ARGUMENT otherwise). */
XLARUN_API xlarun_status xlarun_session_truncate(xlarun_session *s, size_t n_keep, xlarun_error *err);
/* Run tokens through the model after those already in the context; on success the logits of
   the last one are ready. On any error the session is unchanged. Longrope (Phi-3's 128k models):
   the call that takes the context past original_max_position_embeddings, or back within it
   after a truncate, first runs the tokens held again with the other factors (once, as long as a
   prefill of them), so the logits are those of one forward over the whole context. */
XLARUN_API xlarun_status xlarun_session_prefill(xlarun_session *s, const int32_t *ids, size_t n,
                                                xlarun_error *err);
XLARUN_API xlarun_status xlarun_session_decode(xlarun_session *s, int32_t id, xlarun_error *err);
XLARUN_API const float *xlarun_session_logits(const xlarun_session *s); /* vocab_size, or NULL */
XLARUN_API int32_t xlarun_session_argmax(const xlarun_session *s);     /* -1 when no logits */
XLARUN_API size_t xlarun_session_position(const xlarun_session *s);    /* tokens in context */
/* Which AMX tiles the session's products run on: "int8" (q8_0/q4_0 prefill), "bf16" (bf16
   weights, prefill and decode: rounded activations under XLARUN_PRECISION_BF16_ACTIVATIONS,
   activations in three bf16 parts under EXACT) or "int8+bf16";
   "refused" when built for them but the OS said no (the AVX-512 kernels run instead: the same
   bits for int8, the vdpbf16ps order or the exact path for bf16), "unused" when nothing in the
   model and options uses them, "not built" when the compiler did not target AMX-INT8 or AMX-BF16 */
XLARUN_API const char *xlarun_session_amx(const xlarun_session *s);
XLARUN_API int32_t xlarun_argmax(const float *x, size_t n); /* first maximal index, as torch */

/* ---- quantization ------------------------------------------------------------------------- */

/* xlarun_quantize converts the checkpoint in src (config.json and model.safetensors, or shards
   with model.safetensors.index.json; F32/F16/BF16) into dst/model.safetensors, one file that
   xlarun_model_open maps in place like any other, and copies config.json,
   generation_config.json and the tokenizer files. Every matrix becomes q8_0 (I8 [rows,K]) or
   q4_0 (U8 [rows,K/2]) plus "<name>_scale" (F16 [rows,K/32]); norm weights, the routers of a
   mixture of experts (and Qwen2-MoE's shared-expert gates), any matrix whose K is not a multiple of 32, and (keep_embeddings)
   embed_tokens/lm_head stay as they are, as do
   tensors the model does not use. __metadata__: "xlarun.quant" q8_0|q4_0, "xlarun.block" 32,
   "xlarun.scale_dtype" F16, "xlarun.source_dtype", "xlarun.unquantized". It streams: memory is a
   few row blocks whatever the model's size. Then it verifies: reads the file back against
   hashes taken while writing, opens it and runs a token. On error dst/model.safetensors is
   removed. Needs a POSIX file system. */
typedef enum xlarun_quant { XLARUN_QUANT_Q8_0 = 1, XLARUN_QUANT_Q4_0 = 2 } xlarun_quant;
typedef struct xlarun_quantize_options { /* zero-initialised means defaults */
    xlarun_quant type;              /* 0: q8_0 */
    int keep_embeddings;            /* 1: embed_tokens and lm_head keep their dtype */
    /* called after each block of rows; tensor = NULL once, when verifying starts */
    void (*progress)(void *user, const char *tensor, uint64_t bytes_done, uint64_t bytes_total);
    void *user;
    void *alloc_user;
    int no_verify;                  /* 1: skip the verification */
} xlarun_quantize_options;

XLARUN_API xlarun_status xlarun_quantize(const char *src_dir, const char *dst_dir,
                                         const xlarun_quantize_options *opt, xlarun_error *err);

/* ---- tokenizer ------------------------------------------------------------------------------ */

/* A tokenizer.json tokenizer (plus tokenizer_config.json and generation_config.json when present)
   that gives the ids Hugging Face `tokenizers` gives: byte-level BPE (Llama 3, Qwen2 with its NFC
   normalizer, GPT-2 / SmolLM2) and SentencePiece-style BPE with byte fallback (Llama 2,
   TinyLlama, Mistral, Gemma). Immutable once open: share it between threads freely. Encoding and
   decoding allocate nothing. */
typedef struct xlarun_tokenizer xlarun_tokenizer;

typedef struct xlarun_tokenizer_options { /* zero-initialised means defaults */
    const xlarun_io *io;            /* NULL: the file system */
    void *alloc_user;               /* passed to XLARUN_MALLOC/XLARUN_FREE */
} xlarun_tokenizer_options;

/* Same pattern as the model: the exact bytes, an open in your memory, or a convenience open. */
XLARUN_API xlarun_status xlarun_tokenizer_memory(const char *dir, const xlarun_tokenizer_options *opt,
                                                 size_t *bytes, xlarun_error *err);
XLARUN_API xlarun_status xlarun_tokenizer_open_in(const char *dir, const xlarun_tokenizer_options *opt,
                                                  void *mem, size_t bytes, xlarun_tokenizer **out,
                                                  xlarun_error *err);
XLARUN_API xlarun_status xlarun_tokenizer_open(const char *dir, const xlarun_tokenizer_options *opt,
                                               xlarun_tokenizer **out, xlarun_error *err);
XLARUN_API void xlarun_tokenizer_close(xlarun_tokenizer *t);

/* flags for xlarun_tokenizer_encode; 0 = as `tokenizers` encode(text) with its defaults */
#define XLARUN_ENCODE_NO_BOS          1u /* add no post-processor tokens (BOS): as
                                            add_special_tokens=False, for chat-rendered text */
#define XLARUN_ENCODE_SPECIAL_AS_TEXT 2u /* special-token text in the input ("<|eot_id|>") is
                                            plain text, never a special id (untrusted input) */
#define XLARUN_ENCODE_REPLACE_INVALID 4u /* invalid UTF-8 becomes U+FFFD, one per maximal invalid
                                            subpart, as Python's bytes.decode(errors="replace");
                                            without it invalid UTF-8 is an error naming the offset */

/* Encode len bytes of UTF-8 text into at most cap ids; *n_ids = the count. If the ids do not fit,
   XLARUN_ERR_MEMORY and *n_ids = the count needed (ids may be NULL with cap 0 to count).
   Scratch: BPE needs working memory in proportion to the text (about 31 bytes per byte for
   byte-level tokenizers, 90 for SentencePiece-style ones, whose words are whole segments, and 93
   for an NFC tokenizer once the text has a code point from U+0300 on, as NFC may make 3 bytes of
   one); xlarun_tokenizer_scratch_bytes(t, len) is enough for any text of len bytes with any
   flags (any alignment). scratch = NULL uses a XLARUN_TOKENIZER_STACK_BYTES buffer on the stack,
   about 1,000 bytes of byte-level text or 350 of SentencePiece text or of NFC text past U+02FF; a
   text that needs more is XLARUN_ERR_MEMORY naming the size. */
#define XLARUN_TOKENIZER_STACK_BYTES 32768u
XLARUN_API size_t xlarun_tokenizer_scratch_bytes(const xlarun_tokenizer *t, size_t len);
XLARUN_API xlarun_status xlarun_tokenizer_encode(const xlarun_tokenizer *t, const char *text,
                                                 size_t len, unsigned flags, int32_t *ids,
                                                 size_t cap, size_t *n_ids, void *scratch,
                                                 size_t scratch_bytes, xlarun_error *err);

/* flags for decoding */
#define XLARUN_DECODE_SKIP_SPECIAL 1u /* leave out special tokens (skip_special_tokens=True) */

/* ids -> UTF-8 text exactly as `tokenizers` decode(ids, skip_special_tokens=False) with the
   tokenizer's decoder (no transformers clean_up_tokenization_spaces). *len = bytes of text (not
   counting the NUL written after it). out = NULL measures; a cap below *len + 1 is
   XLARUN_ERR_MEMORY. An id outside the vocabulary is XLARUN_ERR_ARGUMENT. */
XLARUN_API xlarun_status xlarun_tokenizer_decode(const xlarun_tokenizer *t, const int32_t *ids,
                                                 size_t n, unsigned flags, char *out, size_t cap,
                                                 size_t *len, xlarun_error *err);

/* Streaming detokenizer for generation: push one id at a time, get the text that is complete.
   It never emits part of a UTF-8 sequence (bytes wait for the rest of their character), strips
   the SentencePiece leading space only at the start of the text, and the pieces concatenated
   equal xlarun_tokenizer_decode of all the ids (except that a byte-fallback run that is invalid
   UTF-8 as a whole keeps the characters already emitted; its bad bytes still become U+FFFD).
   out needs xlarun_tokenizer_max_piece(t) bytes; a NUL follows the piece. flush() emits what is
   held back at the end (an incomplete character becomes U+FFFD). The struct is plain data: copy
   it to save a state; one per stream. */
typedef struct xlarun_detok {       /* all fields private */
    const xlarun_tokenizer *tok;
    unsigned flags;
    int strip_left;                 /* leading characters the decoder's Strip still removes */
    int started;                    /* a token was emitted (decoder null: spaces between tokens) */
    int first, in_run;              /* decoder Metaspace: in the first token; in a <0xHH> run */
    unsigned char held[4];          /* bytes of an incomplete UTF-8 character */
    unsigned n_held;
} xlarun_detok;

XLARUN_API size_t xlarun_tokenizer_max_piece(const xlarun_tokenizer *t);
XLARUN_API void xlarun_detok_init(xlarun_detok *d, const xlarun_tokenizer *t, unsigned flags);
XLARUN_API xlarun_status xlarun_detok_push(xlarun_detok *d, int32_t id, char *out, size_t cap,
                                           size_t *len, xlarun_error *err);
XLARUN_API size_t xlarun_detok_flush(xlarun_detok *d, char *out, size_t cap);

/* Lookups. Ids run from 0 to vocab_size-1 (the model's vocabulary and the added tokens). */
XLARUN_API uint32_t xlarun_tokenizer_vocab_size(const xlarun_tokenizer *t);
/* the id of a token by its exact text as tokenizer.json spells it ("<|eot_id|>", "Ġthe"), -1 */
XLARUN_API int32_t xlarun_tokenizer_token_id(const xlarun_tokenizer *t, const char *text, size_t len);
/* the token's text as tokenizer.json spells it (NUL-terminated, *len bytes); NULL if none */
XLARUN_API const char *xlarun_tokenizer_token_text(const xlarun_tokenizer *t, int32_t id, size_t *len);
XLARUN_API int xlarun_tokenizer_is_special(const xlarun_tokenizer *t, int32_t id); /* 1 or 0 */
/* BOS: the id (the post-processor's first token, else tokenizer_config.json bos_token; -1 when
   none) and whether encode adds it (the post-processor does, unless XLARUN_ENCODE_NO_BOS) */
XLARUN_API int32_t xlarun_tokenizer_bos_id(const xlarun_tokenizer *t);
XLARUN_API int xlarun_tokenizer_adds_bos(const xlarun_tokenizer *t);
/* EOS ids: generation_config.json eos_token_id, else config.json eos_token_id, else
   tokenizer_config.json eos_token; returns the count (at most XLARUN_MAX_EOS), *ids points in */
XLARUN_API size_t xlarun_tokenizer_eos_ids(const xlarun_tokenizer *t, const int32_t **ids);
/* the raw Jinja chat template: chat_template.jinja if the folder has one (as transformers),
   else tokenizer_config.json's chat_template; NULL if none */
XLARUN_API const char *xlarun_tokenizer_chat_template(const xlarun_tokenizer *t);
/* XLARUN_ERR_MODEL if any token id is >= the model's vocab_size (the embedding's rows) */
XLARUN_API xlarun_status xlarun_tokenizer_check_model(const xlarun_tokenizer *t,
                                                      const xlarun_model *m, xlarun_error *err);

/* ---- generation ----------------------------------------------------------------------------- */

/* Sampling as transformers' generate() applies its logits processors, in this order:
   repetition penalty (applied also when greedy), then, only when sampling, temperature, top-k,
   top-p, min-p; then one draw from the softmax with the sampler's own seeded RNG (xoshiro256**;
   the same seed gives the same draws, but not torch's draws). A zero-initialised struct means
   greedy with every processor off. */
typedef struct xlarun_sampling {
    float temperature;        /* 0: greedy (argmax, the first maximal id as torch); > 0: sample */
    int32_t top_k;            /* 0: off; keeps every id whose logit is >= the k-th largest */
    double top_p;             /* 0 or 1: off; in (0,1): drops ids while the ascending cumulative
                                 probability stays <= 1 - top_p (so the kept mass is > top_p); a
                                 double, as transformers computes 1 - top_p from the decimal */
    float min_p;              /* 0: off; in (0,1]: drops ids with p < min_p * (largest p) */
    float repetition_penalty; /* 0 or 1: off; > 0: each id in the context: logit / penalty when
                                 the logit is > 0, logit * penalty otherwise (once per id) */
    uint64_t seed;
} xlarun_sampling;

/* generation_config.json as transformers applies it (do_sample false: temperature 0 here; with
   do_sample true, absent keys take transformers' defaults: temperature 1, top_k 50, top_p 1). */
typedef struct xlarun_generation_config {
    xlarun_sampling sampling;
    uint32_t max_new_tokens;  /* 0 when the file does not set it */
    uint32_t n_eos;           /* every eos id of generation_config.json and config.json */
    int32_t eos_token_ids[2 * XLARUN_MAX_EOS];
} xlarun_generation_config;

/* Reads DIR/generation_config.json (a missing file means transformers' defaults) and adds the eos
   ids of m's config.json (m may be NULL). io as in xlarun_model_options (NULL: the file system).
   Allocates nothing: the file is read into a 16 KiB stack buffer (larger files are refused). */
XLARUN_API xlarun_status xlarun_generation_config_load(const xlarun_model *m, const char *dir,
                                                       const xlarun_io *io,
                                                       xlarun_generation_config *out,
                                                       xlarun_error *err);
XLARUN_API xlarun_status xlarun_generation_config_parse(const xlarun_model *m, const char *json,
                                                        size_t len, xlarun_generation_config *out,
                                                        xlarun_error *err);
/* XLARUN_ERR_ARGUMENT naming the field when a value is out of range (temperature < 0, top_k < 0,
   top_p or min_p outside [0,1], repetition_penalty < 0, or any of them not finite) */
XLARUN_API xlarun_status xlarun_sampling_check(const xlarun_sampling *p, xlarun_error *err);

/* A sampler: parameters, the RNG and the set of ids in the context (for the repetition penalty),
   with working arrays for n_vocab logits, all in memory the caller can give. */
typedef struct xlarun_sampler xlarun_sampler;
XLARUN_API size_t xlarun_sampler_memory(uint32_t n_vocab);
XLARUN_API xlarun_status xlarun_sampler_init(const xlarun_sampling *p, uint32_t n_vocab, void *mem,
                                             size_t bytes, xlarun_sampler **out, xlarun_error *err);
XLARUN_API xlarun_status xlarun_sampler_create(const xlarun_sampling *p, uint32_t n_vocab,
                                               xlarun_sampler **out, xlarun_error *err);
XLARUN_API void xlarun_sampler_free(xlarun_sampler *s); /* memory of xlarun_sampler_create only */
/* new parameters; reseeds the RNG; keeps the context ids */
XLARUN_API xlarun_status xlarun_sampler_set(xlarun_sampler *s, const xlarun_sampling *p,
                                            xlarun_error *err);
XLARUN_API void xlarun_sampler_reset(xlarun_sampler *s);  /* forget the context ids, reseed */
/* ids that are now in the context (prompt and generated); ids outside the vocabulary are ignored */
XLARUN_API void xlarun_sampler_accept(xlarun_sampler *s, const int32_t *ids, size_t n);
/* the next id for these logits (n_vocab of them, not modified); -1 for a NULL argument */
XLARUN_API int32_t xlarun_sampler_sample(xlarun_sampler *s, const float *logits);

/* Stop strings on streamed text. Text is pushed as it is generated; what may be the start of a
   stop string is held back until it is known not to be, so nothing at or past a stop string is
   ever handed out. */
#define XLARUN_MAX_STOP_STRINGS 16
#define XLARUN_MAX_STOP_BYTES 256
typedef struct xlarun_stopper {       /* fields private */
    char stops[XLARUN_MAX_STOP_STRINGS][XLARUN_MAX_STOP_BYTES];
    size_t lens[XLARUN_MAX_STOP_STRINGS];
    size_t n_stops, held, max_len;
    char buf[2 * XLARUN_MAX_STOP_BYTES]; /* held-back text, then room for the output */
    int stopped;
} xlarun_stopper;
/* up to 16 non-empty strings of at most 255 bytes each */
XLARUN_API xlarun_status xlarun_stopper_init(xlarun_stopper *s, const char *const *stops, size_t n,
                                             xlarun_error *err);
/* Pushes text; calls emit(user, text, len) for what is now safe to hand out (possibly several
   times). Returns 1 once a stop string has been seen (the text before it has been emitted, and
   everything after it, now and later, is dropped), else 0. */
typedef void (*xlarun_text_fn)(void *user, const char *text, size_t len);
XLARUN_API int xlarun_stopper_push(xlarun_stopper *s, const char *text, size_t len,
                                   xlarun_text_fn emit, void *user);
/* the end of the text: emit what was held back (nothing after a stop) and start over */
XLARUN_API void xlarun_stopper_flush(xlarun_stopper *s, xlarun_text_fn emit, void *user);

/* Chat templates: the model's Jinja chat template run by an interpreter, as transformers'
   apply_chat_template runs it (jinja2's sandbox with trim_blocks and lstrip_blocks, loop controls,
   raise_exception, strftime_now, transformers' tojson and {% generation %}). Compile a template
   once; render it against a conversation (messages and tools as the JSON transformers takes) in
   work memory the caller gives. Tokenize the text with special tokens recognised and no BOS added:
   the text has it. */
typedef struct xlarun_chat_template xlarun_chat_template;

typedef struct xlarun_chat_message {  /* the plain path: role and content strings */
    const char *role;
    const char *content;
} xlarun_chat_message;

typedef struct xlarun_chat_input {    /* zero-initialised means defaults */
    const char *messages_json;  /* a JSON array of message objects as transformers takes them
                                   (role; content as a string or a list of parts; tool_calls,
                                   tool_call_id, name, reasoning_content, any other key) */
    const xlarun_chat_message *messages; /* or, when messages_json is NULL, n role/content pairs */
    size_t n_messages;
    const char *tools_json;     /* a JSON array of tools (OpenAI function schemas); NULL: none */
    const char *vars_json;      /* a JSON object of extra template variables (enable_thinking,
                                   date_string, ...); they win over the special tokens below */
    const char *bos_token, *eos_token, *unk_token, *sep_token, *pad_token, *cls_token, *mask_token;
                                /* special token texts the template sees (NULL: not defined);
                                   xlarun_chat_input_from_tokenizer fills them */
    int no_generation_prompt;   /* 1: add_generation_prompt=False */
    int64_t now;                /* strftime_now's time, seconds since 1970 (UTC); 0: the clock */
    uint64_t max_steps;         /* evaluation steps before the render stops; 0: 20,000,000 */
    size_t max_output;          /* the most bytes a render (or any string in it) may have; 0: 64 MiB */
    size_t max_work;            /* the most work memory xlarun_chat_render_memory lets a render use
                                   (it stops with XLARUN_ERR_MEMORY past it); 0: 256 MiB */
} xlarun_chat_input;

/* Compiles a template (len bytes of UTF-8). Errors: XLARUN_ERR_FORMAT naming the line and column
   and what was not understood (syntax, an unknown filter or test, a tag xlarun does not run). The
   template keeps no pointer into text. _memory gives the exact bytes _init needs (mem 8-byte
   aligned); _create allocates with XLARUN_MALLOC and _free releases it. */
XLARUN_API xlarun_status xlarun_chat_template_memory(const char *text, size_t len, size_t *bytes, xlarun_error *err);
XLARUN_API xlarun_status xlarun_chat_template_init(const char *text, size_t len, void *mem, size_t bytes,
                                                   xlarun_chat_template **out, xlarun_error *err);
XLARUN_API xlarun_status xlarun_chat_template_create(const char *text, size_t len, xlarun_chat_template **out,
                                                     xlarun_error *err);
XLARUN_API void xlarun_chat_template_free(xlarun_chat_template *t);
/* the text of a built-in template by name ("llama3", "llama3.1", "llama3.2", "llama2", "zephyr",
   "chatml", "mistral", "mistral-v3", "mixtral", "mistral-small", "mistral-large", "qwen3", "gemma",
   "gemma3", "phi3", "phi3.5", "phi3-medium", "phi4-mini", "olmo2": each the template published
   with that model), or NULL; xlarun_chat_template_names lists them */
XLARUN_API const char *xlarun_chat_template_builtin(const char *name);
XLARUN_API const char *xlarun_chat_template_names(void);
/* the special tokens of a tokenizer as transformers passes them: tokenizer_config.json's
   bos_token, eos_token, unk_token, sep_token, pad_token, cls_token and mask_token (pointers into
   t; fields left as they are where it has none) */
XLARUN_API void xlarun_chat_input_from_tokenizer(const xlarun_tokenizer *t, xlarun_chat_input *in);
/* Renders by running the template: _memory gives the exact work bytes (and the text length) by
   rendering once with XLARUN_MALLOC; _render writes the text (NUL-terminated, *len its length)
   into out using only work (8-byte aligned). Errors: XLARUN_ERR_ARGUMENT where the template
   raises (the message carries the template's own text, e.g. from raise_exception) or fails as
   Python would (a TypeError, an undefined value used), with its line and column; JSON that is
   not an array of objects (messages, tools) or an object (vars); the step or output limit;
   XLARUN_ERR_MEMORY when work or out is too small (*len still gets the length for out). */
XLARUN_API xlarun_status xlarun_chat_render_memory(const xlarun_chat_template *t, const xlarun_chat_input *in,
                                                   size_t *work_bytes, size_t *text_len, xlarun_error *err);
XLARUN_API xlarun_status xlarun_chat_render(const xlarun_chat_template *t, const xlarun_chat_input *in, void *work,
                                            size_t work_bytes, char *out, size_t cap, size_t *len, xlarun_error *err);
/* both steps with XLARUN_MALLOC: *text (free it with xlarun_chat_text_free) */
XLARUN_API xlarun_status xlarun_chat_render_alloc(const xlarun_chat_template *t, const xlarun_chat_input *in, char **text,
                                                  size_t *len, xlarun_error *err);
XLARUN_API void xlarun_chat_text_free(char *text);

/* Tool calls as each family writes them (every format also takes the reasoning block below).
   Markers are matched as text, so a reply must be detokenized with its special tokens kept. */
typedef enum xlarun_tool_format {
    XLARUN_TOOLS_NONE = 0,    /* no tool calls: reasoning and content only */
    XLARUN_TOOLS_LLAMA3,      /* Llama 3.1-3.3: the whole reply one or more JSON objects
                                 {"name":..,"parameters":{..}} ("arguments" too) separated by ';'
                                 or white space, else it is content; <|python_tag|> then
                                 NAME.call(key=VALUE, ...) (a JSON value each), JSON objects as
                                 before, or raw code (a call "python" with {"code":..}); the reply
                                 ends at <|eom_id|> or <|eot_id|> */
    XLARUN_TOOLS_HERMES,      /* Hermes 2 Pro / 3, Qwen2.5, Qwen3, QwQ, SmolLM3, Granite 4:
                                 <tool_call>{"name":..,"arguments":{..}}</tool_call>, any number */
    XLARUN_TOOLS_MISTRAL,     /* [TOOL_CALLS] then a JSON array [{"name":..,"arguments":{..},
                                 "id":".."}, ...] (7B v0.3, Nemo), or NAME[ARGS]{..} or
                                 NAME[CALL_ID]ID[ARGS]{..} (Small 3.2, Devstral), repeated */
    XLARUN_TOOLS_GRANITE,     /* Granite 3.x: <|tool_call|>[{"name":..,"arguments":{..}}, ...];
                                 Granite 4: <tool_call>{..}</tool_call>; a <response>...</response>
                                 wrapper around the content is dropped */
    XLARUN_TOOLS_PHI4,        /* Phi-4-mini: <|tool_call|>[{..}, ...] or {..}, an optional
                                 <|/tool_call|> after it; also functools[{..}, ...] */
    XLARUN_TOOLS_DEEPSEEK_R1  /* DeepSeek-R1 and its distills: <｜tool▁calls▁begin｜> then per call
                                 <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{..}\n```
                                 <｜tool▁call▁end｜>, then <｜tool▁calls▁end｜> (or the reply's end:
                                 the distills' template writes none after a single call) */
} xlarun_tool_format;

typedef struct xlarun_tool_call {
    const char *name;         /* NUL-terminated, in the caller's memory */
    const char *arguments;    /* a JSON object, compact (no white space outside strings), keys in
                                 the order written, strings re-escaped as Python's json.dumps(...,
                                 ensure_ascii=False) escapes them, numbers as written */
    const char *id;           /* the call id where the format carries one ("id", [CALL_ID]), or NULL */
} xlarun_tool_call;

typedef struct xlarun_reply {
    const char *content;      /* the text outside reasoning and tool calls, white space trimmed at
                                 both ends (never NULL after a success) */
    const char *reasoning;    /* a leading <think>...</think> block's text, trimmed; also the text
                                 before a first </think> when the prompt opened the block; the rest
                                 of the reply after an unclosed <think>; NULL when there is none */
    xlarun_tool_call *calls;  /* n_calls of them, in the order written (NULL when none) */
    size_t n_calls;
} xlarun_reply;

/* "none", "llama3", "hermes", "mistral", "granite", "phi4", "deepseek-r1" ("?" out of range) */
XLARUN_API const char *xlarun_tool_format_name(xlarun_tool_format f);
/* The memory xlarun_reply_parse needs for a reply of len bytes, whatever it holds:
   64 + (len / 12 + 1) * sizeof(xlarun_tool_call) + 7 * len bytes (a call takes at least 12 bytes
   of text; the strings take at most len + 2 bytes for reasoning and content and 6 bytes per byte
   of a call, the worst being control characters in raw <|python_tag|> code, escaped as \u00XX).
   SIZE_MAX when len is over SIZE_MAX / 16. */
XLARUN_API size_t xlarun_reply_memory(size_t len);
/* Splits len bytes of text (a reply as generated, special tokens kept as text) into reasoning,
   content and tool calls; every string lands in mem, which must hold xlarun_reply_memory(len)
   bytes (any alignment), and stays valid while mem does. Errors: XLARUN_ERR_ARGUMENT (NULL out or
   text, unknown format), XLARUN_ERR_MEMORY (bytes too few), XLARUN_ERR_FORMAT with the format and
   the byte offset: a NUL byte in the text, a tool-call marker not followed by what the format
   puts there (JSON that is not valid or not closed, no name, arguments that are not an object,
   a marker left open). Text without markers is content, never an error. On an error *out is
   cleared (content NULL). */
XLARUN_API xlarun_status xlarun_reply_parse(xlarun_tool_format format, const char *text, size_t len,
                                            void *mem, size_t bytes, xlarun_reply *out,
                                            xlarun_error *err);
/* The tool format a vocabulary points to, from which of these are single added tokens:
   <｜tool▁calls▁begin｜> DEEPSEEK_R1, [TOOL_CALLS] MISTRAL, <|tool_call|> with <|/tool_call|> PHI4,
   <|tool_call|> alone GRANITE, <tool_call> HERMES, <|python_tag|> LLAMA3 (checked in this order;
   Hermes 3 on Llama 3.1 has both <tool_call> and <|python_tag|>); NONE if none is.
   has_token(user, text) returns nonzero when text is one token of the vocabulary. */
XLARUN_API xlarun_tool_format xlarun_tool_format_guess(int (*has_token)(void *user, const char *text),
                                                       void *user);
/* A grammar (GBNF, for xlarun_grammar_compile and the generator's grammar option) for a reply
   that may call tools: free text, and from the moment the text opens a call (the format's
   marker: <tool_call>, [TOOL_CALLS], <|tool_call|>, DeepSeek-R1's calls-begin token; for Llama 3
   a reply that starts with "{") calls in the format's syntax as its chat templates write them,
   each naming one of the tools, with arguments that the tool's "parameters" schema accepts
   (compact JSON, as xlarun_json_schema_to_grammar writes it), until the reply ends. Before the
   marker the text never contains it. xlarun_reply_parse reads the calls back. tools_json: the
   tools as transformers takes them, a JSON array of {"type": "function", "function": {"name":
   .., "parameters": {..}}} or of {"name": .., "parameters": {..}} (no parameters: any object).
   out = NULL measures; *len gets the bytes, not counting the NUL written after them.
   XLARUN_ERR_GRAMMAR names the tool: no name, a name that is not a string, a schema the
   converter refuses; XLARUN_ERR_ARGUMENT for XLARUN_TOOLS_NONE or an unknown format. */
XLARUN_API xlarun_status xlarun_tool_grammar(xlarun_tool_format format, const char *tools_json, size_t tools_len,
                                             char *out, size_t cap, size_t *len, xlarun_error *err);

/* Grammars: output that always parses. A grammar in GBNF, the notation of llama.cpp's grammars:
       root   ::= "{" ws pair ("," ws pair)* "}"      # the rule named root is the start
       pair   ::= [a-z]+ ":" ws ( [0-9]+ | "\"" [^"\\]* "\"" )
       ws     ::= [ \t\n]{0,4}
   rules (name ::= alternatives, names of letters, digits and -), alternation |, sequences,
   groups ( ), repetition * + ? {m} {m,} {m,n} {,n}, strings "..." and character classes [...]
   with ranges a-z and negation [^...], the escapes \n \r \t \\ \" \' \[ \] \- \^ \xHH \uHHHH
   \UHHHHHHHH (code points), any character ., UTF-8 in strings and classes, # comments. A rule ends at the end
   of its line unless a group is open or the line ends with |. The grammar matches UTF-8 text
   (Unicode scalar values; a negated class never matches a surrogate). Refused, with
   XLARUN_ERR_GRAMMAR and the line and column (in characters): syntax errors, a reference to a rule that is not
   defined, a rule defined twice, no root rule, left recursion (also through rules that can match
   the empty string), a grammar whose root matches no text at all, and grammars past the size
   limits (2^22 compiled elements, counts of {m,n} up to 4,096, 512 ranges in a class, groups
   nested 64 deep). The compiled grammar is immutable and may be shared by any number of
   matchers. */
typedef struct xlarun_grammar xlarun_grammar;
XLARUN_API xlarun_status xlarun_grammar_memory(const char *gbnf, size_t len, size_t *bytes,
                                               xlarun_error *err);
XLARUN_API xlarun_status xlarun_grammar_compile_in(const char *gbnf, size_t len, void *mem,
                                                   size_t bytes, xlarun_grammar **out,
                                                   xlarun_error *err);
XLARUN_API xlarun_status xlarun_grammar_compile(const char *gbnf, size_t len, xlarun_grammar **out,
                                                xlarun_error *err);
XLARUN_API void xlarun_grammar_free(xlarun_grammar *g); /* xlarun_grammar_compile's only */

/* JSON Schema -> GBNF text (root rule "root"), for xlarun_grammar_compile. Supported: type
   (one or a list), properties, required, additionalProperties (false, true or a schema), enum,
   const, items, prefixItems, minItems/maxItems, minLength/maxLength (code points; at most 4096),
   integer minimum/maximum/exclusiveMinimum/exclusiveMaximum (exact ranges for any bounds within
   64 bits, fractions rounded inwards), anyOf/oneOf, allOf of one schema, local $ref (#, and
   #/$defs/NAME or #/definitions/NAME steps, ~0 ~1 %XX decoded), uniqueItems false, and the empty
   schema {} or true as any JSON value. Whitespace as a compact serializer writes it: none.
   Keywords that only annotate (title, description, $schema, $id at the root, default, examples,
   $comment, deprecated, readOnly, writeOnly) are ignored; any other keyword is refused by name
   with XLARUN_ERR_GRAMMAR and its JSON path ("#/properties/a/items: "pattern" is not
   supported"), as are a $ref that does not resolve, a $ref cycle that reads no text, the schema
   false, an empty enum/anyOf, minimum above maximum (and minItems, minLength likewise), a
   "required" name that "properties" does not allow, number (not integer) bounds, $ref, allOf,
   anyOf, oneOf, enum or const beside other validating keywords (type may go with enum and const:
   it filters the values), and malformed JSON (also XLARUN_ERR_GRAMMAR, with line and column).
   The language is a subset of what the schema validates, stricter by design: properties in the
   schema's order; no properties but the declared ones when additionalProperties is absent and
   properties are given (absent with no properties: any); no items past prefixItems when items is
   absent; enum and const values in their compact form only (1.0 stays 1.0; strings as Python's
   json.dumps with ensure_ascii off writes them); integers with no fraction or exponent, -0 only
   where no bounds are given; no lone surrogate escapes. Not exact: oneOf is read as anyOf (a value
   that fits two branches passes); extra keys (additionalProperties true or a schema) follow the
   declared ones and may repeat a declared name, which a validator then reads as the last value;
   a schema whose every value recurses forever (a required property through $ref back to itself)
   converts, and xlarun_grammar_compile refuses it as a grammar that matches no text.
   out = NULL (or cap too small: XLARUN_ERR_MEMORY) measures; *len gets the bytes of the text, not
   counting the NUL written after it. Allocates nothing; recursion is bounded by the JSON reader's
   depth limit (64) and at most 256 distinct $ref targets. */
XLARUN_API xlarun_status xlarun_json_schema_to_grammar(const char *schema, size_t schema_len,
                                                       char *out, size_t cap, size_t *len,
                                                       xlarun_error *err);

/* A matcher: the state of one output against a grammar, over a vocabulary given as the bytes of
   each token (xlarun_tokenizer_token_bytes gives them for a tokenizer). A token is allowed if
   and only if its bytes, appended to the bytes accepted so far, leave a prefix of a sentence of
   the grammar (a token may end inside a UTF-8 character, or start inside one, when the bytes
   before it left one open); a token with no bytes never is, but for the end ids, which are
   allowed exactly where a sentence is complete. The mask comes from the grammar's parse stacks
   walked over a trie of the vocabulary (tokens sharing a prefix are walked once), with caches of
   the states already seen. Memory: xlarun_matcher_memory gives the exact bytes; the matcher
   allocates nothing after that. Creating one is XLARUN_ERR_GRAMMAR when the grammar's start
   alone outgrows max_nodes or max_stacks. */
typedef struct xlarun_matcher xlarun_matcher;
typedef struct xlarun_matcher_options {  /* zero-initialised means defaults */
    const int32_t *end_ids;   /* ids allowed where a sentence is complete (eos ids) */
    size_t n_end;             /*   at most 64 */
    uint32_t max_nodes;       /* parse-stack frames kept at once; 0: 1 << 17 */
    uint32_t max_stacks;      /* parse stacks alive at once (the ambiguity allowed); 0: 4096 */
} xlarun_matcher_options;
XLARUN_API xlarun_status xlarun_matcher_memory(const xlarun_grammar *g, const char *const *tokens,
                                               const size_t *lens, uint32_t n_vocab,
                                               const xlarun_matcher_options *opt, size_t *bytes,
                                               xlarun_error *err);
XLARUN_API xlarun_status xlarun_matcher_init(const xlarun_grammar *g, const char *const *tokens,
                                             const size_t *lens, uint32_t n_vocab,
                                             const xlarun_matcher_options *opt, void *mem,
                                             size_t bytes, xlarun_matcher **out, xlarun_error *err);
XLARUN_API xlarun_status xlarun_matcher_create(const xlarun_grammar *g, const char *const *tokens,
                                               const size_t *lens, uint32_t n_vocab,
                                               const xlarun_matcher_options *opt,
                                               xlarun_matcher **out, xlarun_error *err);
XLARUN_API void xlarun_matcher_free(xlarun_matcher *m); /* xlarun_matcher_create's only */
XLARUN_API void xlarun_matcher_reset(xlarun_matcher *m);  /* back to the empty output */
/* Appends bytes to the output. XLARUN_ERR_GRAMMAR (state unchanged) when they do not leave a
   prefix of a sentence, or when the parse outgrows max_nodes or max_stacks. */
XLARUN_API xlarun_status xlarun_matcher_accept_bytes(xlarun_matcher *m, const char *bytes,
                                                     size_t n, xlarun_error *err);
/* the token's bytes (an end id: allowed where a sentence is complete; it changes nothing) */
XLARUN_API xlarun_status xlarun_matcher_accept_token(xlarun_matcher *m, int32_t id,
                                                     xlarun_error *err);
/* mask[(n_vocab + 31) / 32]: bit (id % 32) of word id / 32 is set if and only if the token is
   allowed now. XLARUN_ERR_GRAMMAR when the parse outgrows the limits. */
XLARUN_API xlarun_status xlarun_matcher_allowed(xlarun_matcher *m, uint32_t *mask, xlarun_error *err);
XLARUN_API int xlarun_matcher_complete(const xlarun_matcher *m);     /* a sentence ends here */
XLARUN_API int xlarun_matcher_can_continue(const xlarun_matcher *m); /* some byte may follow */
/* the bytes a token adds to generated text in its middle (its text as the tokenizer's decoder
   writes it, a byte-fallback or byte-level token as its one raw byte, no leading space dropped),
   with these XLARUN_DECODE_* flags (a skipped special token adds none). out = NULL measures
   (xlarun_tokenizer_max_piece bytes are always enough). Returns the count; 0 for a bad id. */
XLARUN_API size_t xlarun_tokenizer_token_bytes(const xlarun_tokenizer *t, int32_t id, unsigned flags,
                                               char *out, size_t cap);

/* The token loop: a session, a tokenizer, a sampler, eos ids and stop strings. The generator
   remembers which ids the session holds, so each call takes the whole conversation so far: the
   ids that the session already holds are kept and only the rest is prefilled (a conversation
   continued on one session gives exactly the ids of running it from scratch). The tokenizer may
   be NULL: the generator then works on ids only (xlarun_generate_ids; the callback's text is
   always empty; no stop strings; eos ids from the options or else the model's config.json). */
typedef struct xlarun_generator xlarun_generator;

typedef struct xlarun_generator_options {  /* zero-initialised means defaults */
    xlarun_sampling sampling;
    const int32_t *eos_ids;   /* ids that end the reply; NULL: the tokenizer's eos ids and those */
    size_t n_eos;             /*   of the model's config.json (xlarun_generation_config has both) */
    int ignore_eos;           /* 1: eos ids do not stop generation */
    const char *const *stop_strings; /* up to XLARUN_MAX_STOP_STRINGS */
    size_t n_stop_strings;
    unsigned decode_flags;    /* XLARUN_DECODE_*: how generated ids become text */
    size_t max_prompt_bytes;  /* the longest text xlarun_generate_text takes; 0: 16 x n_ctx */
    const xlarun_grammar *grammar; /* NULL: free text; else the reply's text is a sentence of it:
                                 only tokens that keep it a prefix are sampled, and the eos ids only
                                 where a sentence is complete (needs a tokenizer; the grammar must
                                 outlive the generator) */
    xlarun_matcher_options grammar_limits; /* max_nodes, max_stacks (end_ids: the eos ids) */
} xlarun_generator_options;

typedef enum xlarun_stop_reason {
    XLARUN_STOP_NONE = 0,
    XLARUN_STOP_EOS,          /* an eos id was generated (it is the last id; it has no text) */
    XLARUN_STOP_STRING,       /* a stop string appeared; no text from it on was handed out */
    XLARUN_STOP_LENGTH,       /* max_new tokens were generated */
    XLARUN_STOP_CONTEXT,      /* the session's context is full */
    XLARUN_STOP_CALLBACK,     /* the callback returned non-zero */
    XLARUN_STOP_GRAMMAR       /* the grammar's sentence is complete, nothing may follow it, and
                                 there is no eos id to end it with */
} xlarun_stop_reason;

typedef struct xlarun_generate_result {
    xlarun_stop_reason stop;
    size_t n_reused;          /* prompt ids the session already held (not prefilled again) */
    size_t n_prefilled;       /* prompt ids run through the model */
    size_t n_generated;       /* ids sampled (including a final eos) */
    size_t n_rerun;           /* positions run again by a decode step that crossed longrope's
                                 original_max_position_embeddings (Phi-3's 128k models): that step
                                 took as long as a prefill of them */
} xlarun_generate_result;

/* Called once per generated id with the text that became final with it (len may be 0: bytes of
   an unfinished character, or text that may start a stop string, are held back; an eos id has no
   text), and once more at the end with id -1 if text was still held. Return non-zero to stop. */
typedef int (*xlarun_token_fn)(void *user, int32_t id, const char *text, size_t len);

XLARUN_API xlarun_status xlarun_generator_memory(const xlarun_session *s, const xlarun_tokenizer *t,
                                                 const xlarun_generator_options *opt,
                                                 size_t *bytes, xlarun_error *err);
XLARUN_API xlarun_status xlarun_generator_init(xlarun_session *s, const xlarun_tokenizer *t,
                                               const xlarun_generator_options *opt, void *mem,
                                               size_t bytes, xlarun_generator **out,
                                               xlarun_error *err);
XLARUN_API xlarun_status xlarun_generator_create(xlarun_session *s, const xlarun_tokenizer *t,
                                                 const xlarun_generator_options *opt,
                                                 xlarun_generator **out, xlarun_error *err);
/* xlarun_generator_create only. Free a generator before its session and tokenizer: it uses both
   until then (this call itself touches neither). */
XLARUN_API void xlarun_generator_free(xlarun_generator *g);
/* new sampling parameters (validated as xlarun_sampling_check) */
XLARUN_API xlarun_status xlarun_generator_set_sampling(xlarun_generator *g, const xlarun_sampling *p,
                                                       xlarun_error *err);
/* ids: the whole sequence so far (prompt, or the conversation rendered by xlarun_chat_render and
   encoded); then generates up to max_new ids (0: until a stop or the context is full). The
   sampler's RNG restarts from its seed at each call. XLARUN_ERR_CONTEXT when the ids do not fit
   the session's context. */
XLARUN_API xlarun_status xlarun_generate_ids(xlarun_generator *g, const int32_t *ids, size_t n,
                                             uint32_t max_new, xlarun_token_fn fn, void *user,
                                             xlarun_generate_result *res, xlarun_error *err);
/* the same for text, encoded with flags (XLARUN_ENCODE_*; chat text: XLARUN_ENCODE_NO_BOS) */
XLARUN_API xlarun_status xlarun_generate_text(xlarun_generator *g, const char *text, size_t len,
                                              unsigned encode_flags, uint32_t max_new,
                                              xlarun_token_fn fn, void *user,
                                              xlarun_generate_result *res, xlarun_error *err);
/* the ids the session holds plus the last one generated: the prompt and the reply */
XLARUN_API const int32_t *xlarun_generator_ids(const xlarun_generator *g, size_t *n);

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

#if defined(_WIN32) && (!defined(XLARUN_NO_STDIO) || !defined(XLARUN_NO_THREADS))
#if defined(_WIN32_WINNT) && _WIN32_WINNT < 0x0600
#error "xlarun needs Windows Vista's API (SRW locks, condition variables): _WIN32_WINNT >= 0x0600"
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
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
#elif !defined(XLARUN_NO_STDIO) && defined(_WIN32)
#define XLARUN__WIN32_FILES 1 /* CreateFileW on the UTF-8 path, ReadFile, MapViewOfFile */
#if !defined(XLARUN_NO_MMAP)
#define XLARUN__MMAP 1
#endif
#endif
#if !defined(XLARUN_NO_THREADS) && !defined(_WIN32)
#include <pthread.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>                   /* sysconf, for xlarun_physical_cores */
#endif
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
    case XLARUN_ERR_GRAMMAR: return "grammar";
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
#ifdef __clang_analyzer__ /* the analyzer does not inline variadic calls: show it what xlarun__fail returns */
#define xlarun__fail(err, st, ...) (xlarun__fail(err, st, __VA_ARGS__), (st))
#endif

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
    int exhausted;              /* a request did not fit the block */
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
    if (r > a->size - a->low - a->high) { a->exhausted = 1; return NULL; } /* low+high <= size */
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

static void *xlarun__align_up(void *p) {
    size_t pad = (XLARUN__ALIGN - XLARUN__PUN(uintptr_t, p) % XLARUN__ALIGN) % XLARUN__ALIGN;
    return XLARUN__CAST(unsigned char *, p) + pad;
}

/* ---- objects in one block ---------------------------------------------------------------------
   A model, a session and a tokenizer each live in one block of memory made by a build function
   that runs twice: measuring (the exact size), then in the caller's block. These three helpers
   run it for every such object: xlarun__measure, xlarun__build_in, and xlarun__build_alloc, which
   does both with XLARUN_MALLOC for the convenience calls. */
typedef struct xlarun__builder {
    xlarun_status (*build)(xlarun__arena *a, const void *args, void **obj, xlarun_error *err);
    void (*undo)(void *obj);    /* release what a failed build holds outside the block, or NULL */
    const char *what;           /* "model": in messages, and xlarun_<what>_memory */
} xlarun__builder;

/* keep: NULL, or an arena that takes over the measuring build's allocations, for a second build
   to read (the caller releases them) */
static xlarun_status xlarun__measure_keep(const xlarun__builder *b, const void *args, void *alloc_user,
                                          size_t *bytes, xlarun__arena *keep, xlarun_error *err) {
    xlarun__arena a;
    void *obj = NULL;
    xlarun_status st;
    xlarun__arena_init(&a, NULL, 0, alloc_user);
    st = b->build(&a, args, &obj, err);
    if (a.failed) st = xlarun__fail(err, XLARUN_ERR_MEMORY, "out of memory while sizing the %s", b->what);
    if (keep && st == XLARUN_OK) *keep = a;
    else xlarun__arena_release_blocks(&a);
    *bytes = st == XLARUN_OK ? a.peak : 0;
    if (st == XLARUN_OK) xlarun__ok(err);
    return st;
}
static xlarun_status xlarun__measure(const xlarun__builder *b, const void *args, void *alloc_user,
                                     size_t *bytes, xlarun_error *err) {
    return xlarun__measure_keep(b, args, alloc_user, bytes, NULL, err);
}

/* label (a folder, or NULL) goes in front of the message when the block is too small */
static xlarun_status xlarun__build_in(const xlarun__builder *b, const void *args, void *alloc_user,
                                      void *mem, size_t bytes, const char *label, void **obj,
                                      xlarun_error *err) {
    xlarun__arena a;
    xlarun_status st;
    *obj = NULL;
    xlarun__arena_init(&a, mem, bytes, alloc_user);
    st = b->build(&a, args, obj, err);
    if (st == XLARUN_OK) { xlarun__ok(err); return st; }
    if (a.exhausted) {
        if (label) xlarun__fail(err, XLARUN_ERR_MEMORY, "%s: %lu bytes of %s memory are too few (xlarun_%s_memory gives the size)",
                                label, XLARUN__CAST(unsigned long, bytes), b->what, b->what);
        else xlarun__no_room(&a, b->what, err);
        st = XLARUN_ERR_MEMORY;
    }
    if (*obj && b->undo) b->undo(*obj);
    *obj = NULL;
    return st;
}

/* keep: the second build may read what the measuring build made (both see the same args) */
static xlarun_status xlarun__build_alloc_ex(const xlarun__builder *b, const void *args, void *alloc_user,
                                            const char *label, int keep, void **obj, void **own, xlarun_error *err) {
    xlarun__arena kept;
    size_t bytes = 0;
    void *mem;
    xlarun_status st;
    *obj = NULL;
    memset(&kept, 0, sizeof kept);
    XLARUN__TRY(xlarun__measure_keep(b, args, alloc_user, &bytes, keep ? &kept : NULL, err));
    if (bytes > SIZE_MAX - XLARUN__ALIGN || !(mem = XLARUN_MALLOC(bytes + XLARUN__ALIGN, alloc_user))) {
        xlarun__arena_release_blocks(&kept);
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "%s%scannot allocate %lu bytes of %s memory", label ? label : "",
                            label ? ": " : "", XLARUN__CAST(unsigned long, bytes), b->what);
    }
    st = xlarun__build_in(b, args, alloc_user, xlarun__align_up(mem), bytes, label, obj, err);
    xlarun__arena_release_blocks(&kept);
    if (st != XLARUN_OK) { XLARUN_FREE(mem, alloc_user); return st; }
    *own = mem;
    return XLARUN_OK;
}
static xlarun_status xlarun__build_alloc(const xlarun__builder *b, const void *args, void *alloc_user,
                                         const char *label, void **obj, void **own, xlarun_error *err) {
    return xlarun__build_alloc_ex(b, args, alloc_user, label, 0, obj, own, err);
}

/* ---- platform: files and maps ------------------------------------------------------------- */

typedef struct xlarun__file {
    const xlarun_io *io;
    void *handle;               /* io handle, or the Win32 file HANDLE */
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
        if (!io->open || !io->read || !io->close)
            return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "%s: the xlarun_io has a NULL %s callback", path,
                                !io->open ? "open" : !io->read ? "read" : "close");
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
#elif defined(XLARUN__WIN32_FILES)
    {
        wchar_t wpath[4096];
        LARGE_INTEGER sz;
        HANDLE h;
        if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wpath, 4096))
            return xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot open (not a UTF-8 path)", path);
        h = CreateFileW(wpath, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                        FILE_ATTRIBUTE_NORMAL, NULL); /* shared as POSIX files are */
        if (h == INVALID_HANDLE_VALUE) return xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot open", path);
        if (GetFileType(h) != FILE_TYPE_DISK || !GetFileSizeEx(h, &sz)) {
            CloseHandle(h);
            return xlarun__fail(err, XLARUN_ERR_IO, "%s: not a regular file", path);
        }
        f->handle = h;
        f->size = XLARUN__CAST(uint64_t, sz.QuadPart);
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
#elif defined(XLARUN__WIN32_FILES)
    {
        DWORD got = 0;
        if (n > (1u << 30)) n = 1u << 30;
        if (!ReadFile(XLARUN__CAST(HANDLE, f->handle), buf, XLARUN__CAST(DWORD, n), &got, NULL)) return XLARUN__CAST(size_t, -1);
        return XLARUN__CAST(size_t, got);
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
#if defined(XLARUN__WIN32_FILES)
    else if (f->handle) {
        CloseHandle(XLARUN__CAST(HANDLE, f->handle));
        f->handle = NULL;
    }
#endif
#if defined(XLARUN__POSIX_FILES)
    if (f->fd >= 0) close(f->fd);
#endif
    f->fd = -1;
}

#if defined(XLARUN__MMAP)
/* an open file mapped whole, read-only and private; NULL when it cannot be */
static void *xlarun__map_file(const xlarun__file *f) {
#if defined(XLARUN__WIN32_FILES)
    HANDLE m = CreateFileMappingW(XLARUN__CAST(HANDLE, f->handle), NULL, PAGE_READONLY, 0, 0, NULL);
    void *p;
    if (!m) return NULL;
    p = MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0);
    CloseHandle(m); /* the view keeps the mapping */
    return p;
#else
    void *p = mmap(NULL, XLARUN__CAST(size_t, f->size), PROT_READ, MAP_PRIVATE, f->fd, 0);
    return p == MAP_FAILED ? NULL : p;
#endif
}

/* Advice that [p, p + bytes) will be read whole, from end to end, every decode step: Linux
   transparent huge pages for the 2 MB pages inside it (MADV_HUGEPAGE; "madvise" is the common
   THP setting, and the weights of no_mmap memory otherwise sit in 4 KB pages, one TLB entry per
   4 KB of a stream). On a mapped file it makes the kernel read pages not yet cached in 2 MB
   folios and map them whole (Linux 6.18, ext4, a q4_0 1B file read after dropping the caches:
   640 of 663 MB mapped in 2 MB pages, against 113 MB without). Advice only: where the kernel
   refuses it, nothing changes. */
#if defined(XLARUN__POSIX_FILES) && defined(__linux__) && !defined(MADV_HUGEPAGE) && !defined(__cplusplus)
extern int madvise(void *, size_t, int); /* hidden by strict C99 (glibc: _DEFAULT_SOURCE), always in Linux */
#define MADV_HUGEPAGE 14
#endif
static void xlarun__advise_huge(void *p, uint64_t bytes) {
#if defined(XLARUN__POSIX_FILES) && defined(MADV_HUGEPAGE)
    uintptr_t a = XLARUN__PUN(uintptr_t, p), lo = (a + 0x1fffffu) & ~XLARUN__CAST(uintptr_t, 0x1fffff);
    uintptr_t hi = (a + XLARUN__CAST(uintptr_t, bytes)) & ~XLARUN__CAST(uintptr_t, 0x1fffff);
    if (bytes < 0x200000u || hi <= lo) return;
    (void)madvise(XLARUN__PUN(void *, lo), XLARUN__CAST(size_t, hi - lo), MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

static void xlarun__unmap(void *addr, uint64_t bytes) {
#if defined(XLARUN__WIN32_FILES)
    (void)bytes;
    UnmapViewOfFile(addr);
#else
    munmap(addr, XLARUN__CAST(size_t, bytes));
#endif
}
#endif

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

/* ---- platform: the machine's cores ---------------------------------------------------------- */

#if defined(XLARUN__POSIX_FILES) && !defined(XLARUN_NO_THREADS) && defined(__linux__) && defined(_SC_NPROCESSORS_CONF)
/* the first number of /sys/devices/system/cpu/cpuN/topology/thread_siblings_list, -1 */
static long xlarun__first_sibling(long cpu) {
    char path[96], buf[64];
    ssize_t n;
    long v = 0;
    int fd, k;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/topology/thread_siblings_list", cpu);
    fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0 || buf[0] < '0' || buf[0] > '9') return -1;
    for (k = 0; k < n && buf[k] >= '0' && buf[k] <= '9' && v < 1000000; k++) v = v * 10 + (buf[k] - '0');
    return v;
}
#endif

XLARUN_API uint32_t xlarun_physical_cores(void) {
    long n = 1;
#if defined(XLARUN_NO_THREADS)
    n = 1;
#elif defined(_WIN32)
    DWORD bytes = 0;
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    n = XLARUN__CAST(long, si.dwNumberOfProcessors);
    if (!GetLogicalProcessorInformation(NULL, &bytes) && GetLastError() == ERROR_INSUFFICIENT_BUFFER && bytes) {
        SYSTEM_LOGICAL_PROCESSOR_INFORMATION *info =
            XLARUN__CAST(SYSTEM_LOGICAL_PROCESSOR_INFORMATION *, XLARUN_MALLOC(bytes, NULL));
        if (info && GetLogicalProcessorInformation(info, &bytes)) {
            size_t i, cores = 0;
            for (i = 0; i < bytes / sizeof *info; i++)
                if (info[i].Relationship == RelationProcessorCore) cores++;
            if (cores) n = XLARUN__CAST(long, cores);
        }
        if (info) XLARUN_FREE(info, NULL);
    }
#elif (defined(__unix__) || defined(__APPLE__)) && defined(_SC_NPROCESSORS_ONLN)
    n = sysconf(_SC_NPROCESSORS_ONLN);
#if defined(XLARUN__POSIX_FILES) && defined(__linux__) && defined(_SC_NPROCESSORS_CONF)
    {   /* a core counts once: at the CPU that comes first in its siblings list */
        long conf = sysconf(_SC_NPROCESSORS_CONF), cpu, cores = 0;
        if (conf < n) conf = n;
        for (cpu = 0; cpu < conf && cpu < 8192; cpu++)
            if (xlarun__first_sibling(cpu) == cpu) cores++;
        if (cores > 0 && cores <= n) n = cores;
    }
#endif
#endif
    if (n < 1) n = 1;
    if (n > 512) n = 512;
    return XLARUN__CAST(uint32_t, n);
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
    if (i < n && XLARUN__CAST(unsigned char, s[i]) > ' ') return i;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* s[i] == '"'; returns the index after the closing quote, or 0 with *why set */
static size_t xlarun__json_scan_string(const char *s, size_t n, size_t i, const char **why) {
    const unsigned char *u = XLARUN__PUN(const unsigned char *, s);
    i++;
    while (i < n) {
        unsigned c = u[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') { i++; continue; }   /* most bytes: one test */
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

/* past the value at i. The document is valid, so a string ends at the first '"' that is not
   escaped (no UTF-8 or escape checks again) and a number at the first byte that cannot be in one:
   skipping is what makes looking a key up in a 9 MB tokenizer.json cheap. */
static size_t xlarun__json_skip_container(const char *s, size_t i) {   /* s[i] is '{' or '[' */
    size_t depth = 0;
    for (;; i++) {   /* only brackets and strings matter */
        char c = s[i];
        if (c == '"') {
            for (i++; s[i] != '"'; i++)
                if (s[i] == '\\') i++;
        } else if (c == '{' || c == '[') depth++;
        else if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    }
}
static size_t xlarun__json_skip(const xlarun__json *j, size_t i) {
    const char *s = j->s;
    i = xlarun__json_ws(s, j->n, i);
    switch (s[i]) {
    case '"':
        for (i++; s[i] != '"'; i++)
            if (s[i] == '\\') i++;
        return i + 1;
    case '{': case '[': return xlarun__json_skip_container(s, i);
    case 't': case 'n': return i + 4;
    case 'f': return i + 5;
    case ',': case ':': return i + 1;
    default:
        while (i < j->n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == 'e' ||
                            s[i] == 'E')) i++;
        return i;
    }
}

/* iterate an object (keys) or array (key stays NONE): *it starts at the '{' or '[' */
static int xlarun__json_next(const xlarun__json *j, size_t *it, size_t *key, size_t *val) {
    size_t i = xlarun__json_ws(j->s, j->n, *it), e;
    if (j->s[i] == '{' || j->s[i] == '[' || j->s[i] == ',') i = xlarun__json_ws(j->s, j->n, i + 1);
    if (j->s[i] == '}' || j->s[i] == ']') return 0;
    if (key) *key = XLARUN__NONE;
    if (j->s[i] == '"' && j->s[e = xlarun__json_ws(j->s, j->n, xlarun__json_skip(j, i))] == ':') {
        if (key) *key = i;
        i = xlarun__json_ws(j->s, j->n, e + 1);
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
        unsigned cp = 0;
        char buf[4];
        size_t k, len = 1;
        if (s[i] != '\\') {   /* a run with no escape: copied whole */
            size_t r = i;
            while (s[r] != '"' && s[r] != '\\') r++;
            if (out) {
                if (n + (r - i) >= cap) return XLARUN__NONE;
                memmove(out + n, s + i, r - i); /* out may be the text itself (decoded in place) */
            }
            n += r - i;
            i = r;
            continue;
        } else {
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
                    unsigned lo = 0;
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
    char buf[384]; /* the longest literal: the o200k pattern, 274 bytes */
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

/* the values of n keys of the object at obj, each as xlarun__json_get gives it, in one pass:
   a lookup skips every member before it, and tokenizer.json's model holds 9 MB of them.
   Returns the offset past the object (obj itself if it is none). */
static size_t xlarun__json_get_n(const xlarun__json *j, size_t obj, const char *const *keys, size_t n, size_t *vals) {
    size_t it = obj, k, v, q;
    for (q = 0; q < n; q++) vals[q] = XLARUN__NONE;
    if (obj == XLARUN__NONE || j->s[obj] != '{') return obj;
    while (xlarun__json_next(j, &it, &k, &v))
        for (q = 0; q < n; q++)
            if (xlarun__json_eq(j, k, keys[q])) vals[q] = v;
    it = xlarun__json_ws(j->s, j->n, it);
    if (j->s[it] == '{') it = xlarun__json_ws(j->s, j->n, it + 1);
    return it + 1;   /* past the '}' */
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
   before any tensor is handed out (the safetensors format: an 8-byte little-endian header length,
   a JSON header of dtype, shape and data_offsets per tensor, then the data).                   */

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
    xlarun__ok(err);
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
    { /* a field given twice is refused, as the reference reader (serde) does: no last-one-wins */
        static const char *const fields[3] = {"dtype", "shape", "data_offsets"};
        size_t fk, fv;
        int seen[3] = {0, 0, 0}, f;
        it = v;
        while (xlarun__json_next(j, &it, &fk, &fv))
            for (f = 0; f < 3; f++)
                if (xlarun__json_eq(j, fk, fields[f]) && seen[f]++)
                    return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s': duplicate field \"%s\"",
                                        r->file, name, fields[f]);
    }
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
            if (r->meta) return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: duplicate key \"__metadata__\"", r->file);
            if (j.s[v] != '{')
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: __metadata__ is not an object", r->file);
            while (xlarun__json_next(&j, &mi, &mk, &mv))
                if (j.s[mv] != '"')
                    return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: __metadata__ values must be strings", r->file);
            r->meta = v + 1; /* name decoding below leaves this object as it is */
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
    if (r->file_size && end > UINT64_MAX - data_start) /* (a file holds its header: no wrap to file_size) */
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "%s: the header describes %llu bytes of data, past byte 2^64, but the file has %llu bytes",
                            r->file, XLARUN__CAST(unsigned long long, end),
                            XLARUN__CAST(unsigned long long, r->file_size));
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
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API size_t xlarun_st_count(const xlarun_st_reader *r) {
    return r && r->state >= XLARUN__ST_READY ? r->n_tensors : 0;
}

XLARUN_API const xlarun_st_tensor *xlarun_st_tensor_at(const xlarun_st_reader *r, size_t i) {
    return r && r->state >= XLARUN__ST_READY && i < r->n_tensors ? &r->tensors[i] : NULL;
}

XLARUN_API int xlarun_st_metadata(const xlarun_st_reader *r, const char *key, char *out, size_t cap) {
    xlarun__json j;
    size_t v;
    if (!r || r->state < XLARUN__ST_READY || !r->meta || !key) return 0;
    j.s = r->text;
    j.n = XLARUN__CAST(size_t, r->header_bytes);
    v = xlarun__json_get(&j, r->meta - 1, key);
    if (v == XLARUN__NONE) return 0;
    if (out && cap && xlarun__json_str(&j, v, out, cap) == XLARUN__NONE) out[0] = 0;
    return 1;
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

/* a matrix as stored: float rows of `type`, or (scale != NULL) quantized codes of `qtype` with
   their f16 block scales, see the quantized section of xlarun_kernels.h */
typedef struct xlarun__weight {
    const void *data;
    xlarun_k_type type;
    const void *scale;
    xlarun_k_qtype qtype;
} xlarun__weight;

typedef struct xlarun__map { void *addr; uint64_t bytes; } xlarun__map;

typedef struct xlarun__slot {
    const void *data;            /* mapped or streamed bytes (f32 copy for norms) */
    xlarun_dtype dtype;
    int found;
    int shard, index_shard;      /* where it was found, where the index says (-1: no index) */
    const void *scale;           /* a quantized matrix's "<name>_scale" tensor */
    int scale_found;
} xlarun__slot;

/* ============================== 4. MODEL ====================================================== */
/* config.json is read through one row per architecture (xlarun__archs): the row names the
   transformers class and model_type, its config class's defaults, the keys it reads under two
   names, how its layer is built (as enums) and its tensors (as tables of kind, name, shape and
   when it is needed). The parser turns the row and config.json into the public xlarun_config
   (what the model is) and a private plan (how the executor runs it); the loader, inspect,
   quantize and bench find every tensor through the same tables. Adding an architecture is adding
   a row, and a step in the forward pass where its maths is new.                               */

/* ---- the parts of an architecture ----------------------------------------------------------- */

typedef enum xlarun__act { XLARUN__ACT_SILU = 0, XLARUN__ACT_GELU_TANH } xlarun__act; /* the MLP's
                                   down(act(gate(x)) * up(x)): "silu", "gelu_pytorch_tanh" */
typedef enum xlarun__norms {
    XLARUN__NORMS_PRE = 0,      /* Llama: input_layernorm before attention, post_attention_layernorm before the MLP */
    XLARUN__NORMS_SANDWICH,     /* Gemma 2 and 3: input_layernorm before attention, post_attention_layernorm on its
                                   output, pre_ and post_feedforward_layernorm on the MLP's input and output */
    XLARUN__NORMS_POST          /* OLMo 2: none before; post_attention_layernorm and post_feedforward_layernorm on
                                   the attention's and the MLP's outputs, before the residual add */
} xlarun__norms;
typedef enum xlarun__qk {
    XLARUN__QK_NONE = 0,
    XLARUN__QK_HEAD,            /* q_norm, k_norm [head_dim]: each head RMS-normalized before RoPE (Qwen3, Gemma 3) */
    XLARUN__QK_WHOLE            /* q_norm [heads * head_dim], k_norm [kv_heads * head_dim]: all heads as one vector */
} xlarun__qk;
typedef enum xlarun__bias {     /* which attention matrices add a bias */
    XLARUN__BIAS_NONE = 0,
    XLARUN__BIAS_QKV,           /* q, k and v always (Qwen2) */
    XLARUN__BIAS_ATTENTION,     /* q, k, v and o when attention_bias is true */
    XLARUN__BIAS_QKV_KEY        /* q, k and v when qkv_bias is true, as it is when missing (Qwen2-MoE) */
} xlarun__bias;
typedef enum xlarun__window {
    XLARUN__WIN_NONE = 0,       /* no window (its keys unread) */
    XLARUN__WIN_ALL,            /* sliding_window on every layer; null: none, missing: the row's default */
    XLARUN__WIN_LAYERS          /* local and global layers (Gemma 2 and 3: layer_types, a pattern) */
} xlarun__window;
typedef enum xlarun__scale {
    XLARUN__SCALE_NONE = 0,
    XLARUN__SCALE_GEMMA,        /* every RMSNorm multiplies by 1 + w, the embedding by f32(sqrt(hidden_size)) */
    XLARUN__SCALE_GRANITE       /* embedding_multiplier, attention_multiplier, residual_multiplier, logits_scaling */
} xlarun__scale;
typedef enum xlarun__sparse {
    XLARUN__SPARSE_ALL = 0,     /* every layer's MLP is the mixture (Mixtral, OLMoE) */
    XLARUN__SPARSE_QWEN         /* those with (l + 1) % decoder_sparse_step == 0 and not in mlp_only_layers */
} xlarun__sparse;

/* what a tensor is to the executor */
enum {
    XLARUN__W_EMBED, XLARUN__W_FINAL_NORM, XLARUN__W_LM_HEAD,
    XLARUN__W_ATTN_NORM, XLARUN__W_Q, XLARUN__W_K, XLARUN__W_V, XLARUN__W_QKV, XLARUN__W_O,
    XLARUN__W_Q_BIAS, XLARUN__W_K_BIAS, XLARUN__W_V_BIAS, XLARUN__W_O_BIAS, XLARUN__W_Q_NORM, XLARUN__W_K_NORM,
    XLARUN__W_MLP_NORM, XLARUN__W_PRE_FFN_NORM, XLARUN__W_POST_FFN_NORM,
    XLARUN__W_GATE, XLARUN__W_UP, XLARUN__W_GATE_UP, XLARUN__W_DOWN, XLARUN__W_GATE_BIAS, XLARUN__W_UP_BIAS, XLARUN__W_DOWN_BIAS,
    XLARUN__W_ROUTER, XLARUN__W_EXPERT_GATE, XLARUN__W_EXPERT_UP, XLARUN__W_EXPERT_DOWN,
    XLARUN__W_SHARED_GATE, XLARUN__W_SHARED_UP, XLARUN__W_SHARED_DOWN, XLARUN__W_SHARED_ROUTER
};
enum { XLARUN__C_MATRIX, XLARUN__C_ROUTER, XLARUN__C_NORM, XLARUN__C_BIAS }; /* a router: a matrix kept float by quantize */
enum { /* a dimension from the config */
    XLARUN__D_NONE, XLARUN__D_1, XLARUN__D_H, XLARUN__D_V, XLARUN__D_Q, XLARUN__D_KV, XLARUN__D_QKV, XLARUN__D_I,
    XLARUN__D_2I, XLARUN__D_QN, XLARUN__D_KN, XLARUN__D_E, XLARUN__D_EI, XLARUN__D_SI
};
enum { /* when a layer reads a tensor */
    XLARUN__N_ALWAYS, XLARUN__N_UNTIED, XLARUN__N_NORM_BEFORE, XLARUN__N_QKV_BIAS, XLARUN__N_O_BIAS, XLARUN__N_MLP_BIAS,
    XLARUN__N_QK_NORM, XLARUN__N_SANDWICH, XLARUN__N_NORM_AFTER, XLARUN__N_DENSE, XLARUN__N_SPARSE, XLARUN__N_SHARED
};

/* a tensor: its name after "model.layers.N." ("%e": an expert's number; a global one whole),
   [rows, cols] (cols XLARUN__D_NONE: [rows]) */
typedef struct xlarun__tdesc {
    unsigned char kind, cls, rows, cols, need;
    const char *name;
} xlarun__tdesc;
#define XLARUN__TEND {0, 0, 0, 0, 0, NULL}

static const xlarun__tdesc xlarun__t_global[] = {
    {XLARUN__W_EMBED, XLARUN__C_MATRIX, XLARUN__D_V, XLARUN__D_H, XLARUN__N_ALWAYS, "model.embed_tokens.weight"},
    {XLARUN__W_FINAL_NORM, XLARUN__C_NORM, XLARUN__D_H, XLARUN__D_NONE, XLARUN__N_ALWAYS, "model.norm.weight"},
    {XLARUN__W_LM_HEAD, XLARUN__C_MATRIX, XLARUN__D_V, XLARUN__D_H, XLARUN__N_UNTIED, "lm_head.weight"}};
#define XLARUN__N_GLOBAL 3
static const xlarun__tdesc xlarun__t_attention[] = { /* and the norms around the block */
    {XLARUN__W_ATTN_NORM, XLARUN__C_NORM, XLARUN__D_H, XLARUN__D_NONE, XLARUN__N_NORM_BEFORE, "input_layernorm.weight"},
    {XLARUN__W_Q, XLARUN__C_MATRIX, XLARUN__D_Q, XLARUN__D_H, XLARUN__N_ALWAYS, "self_attn.q_proj.weight"},
    {XLARUN__W_K, XLARUN__C_MATRIX, XLARUN__D_KV, XLARUN__D_H, XLARUN__N_ALWAYS, "self_attn.k_proj.weight"},
    {XLARUN__W_V, XLARUN__C_MATRIX, XLARUN__D_KV, XLARUN__D_H, XLARUN__N_ALWAYS, "self_attn.v_proj.weight"},
    {XLARUN__W_O, XLARUN__C_MATRIX, XLARUN__D_H, XLARUN__D_Q, XLARUN__N_ALWAYS, "self_attn.o_proj.weight"},
    {XLARUN__W_Q_BIAS, XLARUN__C_BIAS, XLARUN__D_Q, XLARUN__D_NONE, XLARUN__N_QKV_BIAS, "self_attn.q_proj.bias"},
    {XLARUN__W_K_BIAS, XLARUN__C_BIAS, XLARUN__D_KV, XLARUN__D_NONE, XLARUN__N_QKV_BIAS, "self_attn.k_proj.bias"},
    {XLARUN__W_V_BIAS, XLARUN__C_BIAS, XLARUN__D_KV, XLARUN__D_NONE, XLARUN__N_QKV_BIAS, "self_attn.v_proj.bias"},
    {XLARUN__W_O_BIAS, XLARUN__C_BIAS, XLARUN__D_H, XLARUN__D_NONE, XLARUN__N_O_BIAS, "self_attn.o_proj.bias"},
    {XLARUN__W_Q_NORM, XLARUN__C_NORM, XLARUN__D_QN, XLARUN__D_NONE, XLARUN__N_QK_NORM, "self_attn.q_norm.weight"},
    {XLARUN__W_K_NORM, XLARUN__C_NORM, XLARUN__D_KN, XLARUN__D_NONE, XLARUN__N_QK_NORM, "self_attn.k_norm.weight"},
    {XLARUN__W_MLP_NORM, XLARUN__C_NORM, XLARUN__D_H, XLARUN__D_NONE, XLARUN__N_ALWAYS, "post_attention_layernorm.weight"},
    {XLARUN__W_PRE_FFN_NORM, XLARUN__C_NORM, XLARUN__D_H, XLARUN__D_NONE, XLARUN__N_SANDWICH, "pre_feedforward_layernorm.weight"},
    {XLARUN__W_POST_FFN_NORM, XLARUN__C_NORM, XLARUN__D_H, XLARUN__D_NONE, XLARUN__N_NORM_AFTER, "post_feedforward_layernorm.weight"},
    XLARUN__TEND};
static const xlarun__tdesc xlarun__t_mlp[] = {
    {XLARUN__W_GATE, XLARUN__C_MATRIX, XLARUN__D_I, XLARUN__D_H, XLARUN__N_DENSE, "mlp.gate_proj.weight"},
    {XLARUN__W_UP, XLARUN__C_MATRIX, XLARUN__D_I, XLARUN__D_H, XLARUN__N_DENSE, "mlp.up_proj.weight"},
    {XLARUN__W_DOWN, XLARUN__C_MATRIX, XLARUN__D_H, XLARUN__D_I, XLARUN__N_DENSE, "mlp.down_proj.weight"},
    {XLARUN__W_GATE_BIAS, XLARUN__C_BIAS, XLARUN__D_I, XLARUN__D_NONE, XLARUN__N_MLP_BIAS, "mlp.gate_proj.bias"},
    {XLARUN__W_UP_BIAS, XLARUN__C_BIAS, XLARUN__D_I, XLARUN__D_NONE, XLARUN__N_MLP_BIAS, "mlp.up_proj.bias"},
    {XLARUN__W_DOWN_BIAS, XLARUN__C_BIAS, XLARUN__D_H, XLARUN__D_NONE, XLARUN__N_MLP_BIAS, "mlp.down_proj.bias"},
    XLARUN__TEND};
static const xlarun__tdesc xlarun__t_phi3[] = { /* q, k, v as the rows of one matrix, gate and up of another */
    {XLARUN__W_ATTN_NORM, XLARUN__C_NORM, XLARUN__D_H, XLARUN__D_NONE, XLARUN__N_ALWAYS, "input_layernorm.weight"},
    {XLARUN__W_QKV, XLARUN__C_MATRIX, XLARUN__D_QKV, XLARUN__D_H, XLARUN__N_ALWAYS, "self_attn.qkv_proj.weight"},
    {XLARUN__W_O, XLARUN__C_MATRIX, XLARUN__D_H, XLARUN__D_Q, XLARUN__N_ALWAYS, "self_attn.o_proj.weight"},
    {XLARUN__W_MLP_NORM, XLARUN__C_NORM, XLARUN__D_H, XLARUN__D_NONE, XLARUN__N_ALWAYS, "post_attention_layernorm.weight"},
    {XLARUN__W_GATE_UP, XLARUN__C_MATRIX, XLARUN__D_2I, XLARUN__D_H, XLARUN__N_ALWAYS, "mlp.gate_up_proj.weight"},
    {XLARUN__W_DOWN, XLARUN__C_MATRIX, XLARUN__D_H, XLARUN__D_I, XLARUN__N_ALWAYS, "mlp.down_proj.weight"},
    XLARUN__TEND};
static const xlarun__tdesc xlarun__t_mixtral[] = {
    {XLARUN__W_ROUTER, XLARUN__C_ROUTER, XLARUN__D_E, XLARUN__D_H, XLARUN__N_SPARSE, "block_sparse_moe.gate.weight"},
    {XLARUN__W_EXPERT_GATE, XLARUN__C_MATRIX, XLARUN__D_EI, XLARUN__D_H, XLARUN__N_SPARSE, "block_sparse_moe.experts.%e.w1.weight"},
    {XLARUN__W_EXPERT_UP, XLARUN__C_MATRIX, XLARUN__D_EI, XLARUN__D_H, XLARUN__N_SPARSE, "block_sparse_moe.experts.%e.w3.weight"},
    {XLARUN__W_EXPERT_DOWN, XLARUN__C_MATRIX, XLARUN__D_H, XLARUN__D_EI, XLARUN__N_SPARSE, "block_sparse_moe.experts.%e.w2.weight"},
    XLARUN__TEND};
static const xlarun__tdesc xlarun__t_experts[] = { /* Qwen-MoE's, OLMoE's; Qwen2-MoE's shared expert when it has one */
    {XLARUN__W_ROUTER, XLARUN__C_ROUTER, XLARUN__D_E, XLARUN__D_H, XLARUN__N_SPARSE, "mlp.gate.weight"},
    {XLARUN__W_EXPERT_GATE, XLARUN__C_MATRIX, XLARUN__D_EI, XLARUN__D_H, XLARUN__N_SPARSE, "mlp.experts.%e.gate_proj.weight"},
    {XLARUN__W_EXPERT_UP, XLARUN__C_MATRIX, XLARUN__D_EI, XLARUN__D_H, XLARUN__N_SPARSE, "mlp.experts.%e.up_proj.weight"},
    {XLARUN__W_EXPERT_DOWN, XLARUN__C_MATRIX, XLARUN__D_H, XLARUN__D_EI, XLARUN__N_SPARSE, "mlp.experts.%e.down_proj.weight"},
    {XLARUN__W_SHARED_GATE, XLARUN__C_MATRIX, XLARUN__D_SI, XLARUN__D_H, XLARUN__N_SHARED, "mlp.shared_expert.gate_proj.weight"},
    {XLARUN__W_SHARED_UP, XLARUN__C_MATRIX, XLARUN__D_SI, XLARUN__D_H, XLARUN__N_SHARED, "mlp.shared_expert.up_proj.weight"},
    {XLARUN__W_SHARED_DOWN, XLARUN__C_MATRIX, XLARUN__D_H, XLARUN__D_SI, XLARUN__N_SHARED, "mlp.shared_expert.down_proj.weight"},
    {XLARUN__W_SHARED_ROUTER, XLARUN__C_ROUTER, XLARUN__D_1, XLARUN__D_H, XLARUN__N_SHARED, "mlp.shared_expert_gate.weight"},
    XLARUN__TEND};

/* a mixture-of-experts MLP: its config class's defaults (size 0: intermediate_size; shared 0:
   no shared expert) */
typedef struct xlarun__moe_desc {
    xlarun__sparse sparse;
    const char *count_key;          /* the expert count's key as the 4.x class names it */
    uint32_t experts, used, size, shared;
    uint32_t min_experts;           /* Qwen's classes allow 0: a dense model */
    int norm_topk;                  /* -1: always renormalized (Mixtral); else norm_topk_prob's default */
    const xlarun__tdesc *tensors;
} xlarun__moe_desc;

/* a key that the transformers classes name two ways (attribute_map): a folder may use either,
   and when it has both they must agree */
typedef struct xlarun__alias { const char *key, *alias, *what; } xlarun__alias;

/* a key whose value xlarun does not run: refused when set (not null) or true */
enum { XLARUN__REFUSE_SET, XLARUN__REFUSE_TRUE, XLARUN__REFUSE_NULL };
typedef struct xlarun__refusal { const char *key; int when; const char *why; } xlarun__refusal;

/* Gemma 2 and 3's local and global layers */
typedef struct xlarun__local_desc {
    double final_cap;               /* final_logit_softcapping when the key is missing (null: none) */
    double attn_cap;                /* attn_logit_softcapping's, the same way; < 0: the key is not applied */
    const char *pattern_key;        /* sliding_window_pattern, read when there is no layer_types; NULL: none */
    uint32_t pattern;               /* the pattern when neither is there */
    int local_theta;                /* reads rope_local_base_freq (and the local object of rope_parameters) */
} xlarun__local_desc;

/* a default that a config class had before a transformers version: a folder written by an
   earlier one (its transformers_version) that lacks the key reads it */
typedef struct xlarun__vdefault { const char *key; int before; double value; } xlarun__vdefault;

typedef struct xlarun__plan xlarun__plan;
typedef struct xlarun__cfgrd xlarun__cfgrd;
typedef struct xlarun__arch_desc xlarun__arch_desc;

struct xlarun__arch_desc {
    const char *cls, *type;
    xlarun_arch arch;
    /* the config class's defaults: num_key_value_heads (0: num_attention_heads), max_position_embeddings,
       head_dim (0: hidden_size / num_attention_heads), tie_word_embeddings; then rms_norm_eps, rope_theta */
    uint32_t kv_heads, max_pos, head_dim;
    int tie;
    int head_dim_free;              /* head_dim may differ from hidden_size / num_attention_heads */
    double eps, theta;
    const char *act_key;            /* hidden_act, or Gemma 2 and 3's hidden_activation */
    const char *act_names;          /* the names read as act ("gelu" too for Gemma 1, as transformers 5) */
    xlarun__act act;
    xlarun__bias bias;
    int mlp_bias;                   /* reads mlp_bias */
    xlarun__qk qk;
    xlarun__norms norms;
    xlarun__scale scale;
    xlarun__window window;
    uint32_t window_def;            /* XLARUN__WIN_ALL: sliding_window when the key is missing */
    unsigned rope_types;            /* 1 << xlarun_rope_type of each type it takes */
    const xlarun__local_desc *local;/* XLARUN__WIN_LAYERS: how its layers are local */
    const char *rope_why;           /* why another rope type is refused; NULL: the list of those it takes */
    const xlarun__tdesc *layer, *mlp;   /* its tensors besides the mixture's (mlp NULL: in layer) */
    const xlarun__moe_desc *moe;    /* NULL: a dense model */
    const xlarun__alias *aliases;
    const xlarun__refusal *refusals;
    xlarun_status (*own)(xlarun__cfgrd *r, xlarun_config *c, xlarun__plan *p, xlarun_error *err); /* its own keys */
    const xlarun__vdefault *vdefaults; /* defaults that earlier transformers versions had */
};

/* how the executor runs the model: from its row and config.json */
#define XLARUN__MAX_LT 32 /* tensor kinds of a layer */
struct xlarun__plan {
    const xlarun__arch_desc *a;
    xlarun__act act;
    xlarun__norms norms;
    xlarun__qk qk;
    int qkv_bias, o_bias, mlp_bias; /* which matrices add a bias */
    int norm_plus_one;              /* RMSNorm multiplies by 1 + weight */
    int fused;                      /* q, k, v are the rows of qkv_proj, gate and up of gate_up_proj */
    float embed_scale;              /* embedding rows times it: 1, Gemma's f32(sqrt(hidden_size)), Granite's multiplier */
    float attn_scale;               /* q.k times it: 1/sqrt(head_dim), Gemma's query_pre_attn_scalar^-0.5, Granite's
                                       attention_multiplier */
    float residual_scale;           /* each attention and MLP output times it before the add (Granite); 1 */
    float logit_scale;              /* logits divided by it (Granite's logits_scaling); 1 */
    float attn_softcap;             /* scores = cap * tanh(scores / cap) before the softmax (Gemma 2); 0: none */
    float final_softcap;            /* logits = cap * tanh(logits / cap) (Gemma 2 and 3); 0: none */
    float rope_attn_factor;         /* cos and sin times it: 1, longrope's sqrt(1 + ln(max / original) / ln(original)) */
    uint32_t sliding_pattern;       /* which layers slide: 0 all; P: all but those with (l + 1) % P == 0 */
    int moe_norm_topk;              /* the chosen experts' probabilities divided by their sum */
    int n_lt, stride;               /* a layer's tensor kinds (lt) and its slots (an expert kind has one per expert) */
    const xlarun__tdesc *lt[XLARUN__MAX_LT];
    int lt_slot[XLARUN__MAX_LT];    /* the first slot of each within a layer */
    unsigned char no_rope[XLARUN_MAX_LAYERS]; /* 1: layer l applies no RoPE (SmolLM3's no_rope_layers 0) */
    unsigned char moe[XLARUN_MAX_LAYERS];     /* 1: layer l's MLP is the mixture of experts */
    float rope_ext[XLARUN_MAX_ROPE_FACTORS], rope_ext_long[XLARUN_MAX_ROPE_FACTORS]; /* longrope's short and long factors */
};

typedef struct xlarun__layer {
    const float *attn_norm, *mlp_norm;
    xlarun__weight q, k, v, o, gate, up, down;
    const float *q_bias, *k_bias, *v_bias, *o_bias, *gate_bias, *up_bias, *down_bias; /* f32, or NULL */
    const float *q_norm, *k_norm;        /* per-head [head_dim] or whole [heads * head_dim] norm weights, or NULL */
    const float *pre_ffn_norm, *post_ffn_norm; /* sandwich and post norms (mlp_norm is then the post-attention one) */
    uint32_t window;                     /* the sliding window of this layer; 0: none */
    int local_rope;                      /* RoPE with the model's inv_freq_local */
    int no_rope;                         /* no RoPE on q and k (SmolLM3) */
    xlarun__weight router;               /* a sparse layer's: router logits [n_experts] of x */
    xlarun__weight *experts;             /* a sparse layer's gate, up, down of each expert ([3 * e + 0, 1, 2]),
                                            then the shared expert's gate, up, down and gate logit; NULL: dense */
} xlarun__layer;

#define XLARUN__MODEL_MAGIC 0x584C4D4Fu
#define XLARUN__MAX_SHARDS 4096u

struct xlarun_model {
    uint32_t magic;
    xlarun_config cfg;
    xlarun__plan plan;
    xlarun__weight embed, lm_head;
    const float *final_norm;
    xlarun__layer *layers;
    float *inv_freq;             /* head_dim/2 RoPE frequencies, f32 as transformers makes them */
    float *inv_freq_local;       /* Gemma 3's local layers' (rope_local_base_freq), or NULL */
    float *inv_freq_long;        /* longrope's with the long factors, or NULL */
    xlarun__map *maps;
    uint32_t n_maps;
    uint64_t mapped_bytes, weight_bytes;
    int quantized;               /* some matrix is q8_0/q4_0: sessions get an int8 input buffer */
    void *own;                   /* memory to free in close (convenience open) */
    void *alloc_user;
};

/* limits on config.json values */
#define XLARUN_MAX_VOCAB (1u << 24)
#define XLARUN_MAX_HIDDEN (1u << 16)
#define XLARUN_MAX_INTERMEDIATE (1u << 20)
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

/* ---- reading config.json: a key under its name or alias, its default, and a log of both -------- */

#define XLARUN__CFGLOG_MAX 64
typedef struct xlarun__cfglog {     /* the keys read under their alias, taken as a default or ignored as the
                                       folder's transformers version does (inspect prints it) */
    uint32_t n;
    struct { const char *where, *key, *via; char value[40]; } e[XLARUN__CFGLOG_MAX]; /* via NULL: a default
                                       (value); via "": ignored (value: why); else the alias read */
} xlarun__cfglog;

/* "4.46.3" as 4046, "5.24.0" as 5024; 0 when it does not start with two numbers */
static int xlarun__tf_version(const char *v) {
    int major = 0, minor = 0, n = 0;
    while (*v >= '0' && *v <= '9' && major < 1000) major = major * 10 + (*v++ - '0'), n++;
    if (!n || *v++ != '.' || *v < '0' || *v > '9') return 0;
    while (*v >= '0' && *v <= '9' && minor < 1000) minor = minor * 10 + (*v++ - '0');
    return major >= 1000 || minor >= 1000 ? 0 : major * 1000 + minor;
}

struct xlarun__cfgrd {              /* config.json being read for one row */
    xlarun__json j;
    size_t root;
    const xlarun__arch_desc *a;
    int version;                    /* transformers_version as major * 1000 + minor (4046, 5024); 0 when absent */
    size_t rope;                    /* the RoPE object (rope_parameters or rope_scaling) or XLARUN__NONE */
    const char *where;              /* its name and a dot, for messages */
    xlarun__cfglog *log;            /* NULL, or where the aliases and defaults used are noted */
};

static void xlarun__cfg_note(xlarun__cfgrd *r, const char *where, const char *key, const char *via, const char *value) {
    uint32_t i;
    if (!r->log) return;
    for (i = 0; i < r->log->n; i++)
        if (!strcmp(r->log->e[i].key, key) && !strcmp(r->log->e[i].where, where)) return;
    if (r->log->n == XLARUN__CFGLOG_MAX) return;
    r->log->e[r->log->n].where = where;
    r->log->e[r->log->n].key = key;
    r->log->e[r->log->n].via = via;
    snprintf(r->log->e[r->log->n].value, sizeof r->log->e[0].value, "%s", value);
    r->log->n++;
}
static void xlarun__cfg_note_num(xlarun__cfgrd *r, const char *where, const char *key, double d) {
    char b[40];
    snprintf(b, sizeof b, "%.9g", d);
    xlarun__cfg_note(r, where, key, NULL, b);
}

/* key's value in obj, XLARUN__NONE when missing; a top-level key missing under its name is read
   under its alias */
static size_t xlarun__cfg_get(xlarun__cfgrd *r, size_t obj, const char *key) {
    size_t v = xlarun__json_get(&r->j, obj, key);
    const xlarun__alias *al;
    if (v != XLARUN__NONE || obj != r->root) return v;
    for (al = r->a ? r->a->aliases : NULL; al && al->key; al++)
        if (!strcmp(al->key, key) && (v = xlarun__json_get(&r->j, obj, al->alias)) != XLARUN__NONE) {
            xlarun__cfg_note(r, "", key, al->alias, "");
            return v;
        }
    return XLARUN__NONE;
}
static int xlarun__cfg_set(xlarun__cfgrd *r, size_t obj, const char *key) { /* present and not null */
    return !xlarun__json_is_null(&r->j, xlarun__cfg_get(r, obj, key));
}

/* a missing top-level key's default: the row's for the folder's transformers version, else def */
static double xlarun__cfg_default(const xlarun__cfgrd *r, size_t obj, const char *key, double def) {
    const xlarun__vdefault *vd;
    for (vd = r->a && obj == r->root ? r->a->vdefaults : NULL; vd && vd->key; vd++)
        if (!strcmp(vd->key, key) && r->version && r->version < vd->before) return vd->value;
    return def;
}

static xlarun_status xlarun__cfg_uint(xlarun__cfgrd *r, const char *key, int required, uint32_t lo, uint32_t hi,
                                      uint32_t def, uint32_t *out, xlarun_error *err) {
    size_t v = xlarun__cfg_get(r, r->root, key);
    uint64_t x;
    char tok[48];
    *out = def;
    if (xlarun__json_is_null(&r->j, v)) {
        if (required) return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: missing key '%s'", key);
        *out = def = XLARUN__CAST(uint32_t, xlarun__cfg_default(r, r->root, key, def));
        xlarun__cfg_note_num(r, "", key, def);
        return XLARUN_OK;
    }
    if (!xlarun__json_uint(&r->j, v, hi, &x) || x < lo) {
        xlarun__token(&r->j, v, tok, sizeof tok);
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' must be an integer in %u..%u, found %s",
                            key, lo, hi, tok);
    }
    *out = XLARUN__CAST(uint32_t, x);
    return XLARUN_OK;
}

/* a finite number > lo and < hi (exclusive) in obj (where: its name and a dot, "" at the top) */
static xlarun_status xlarun__cfg_float(xlarun__cfgrd *r, size_t obj, const char *where, const char *key, int required,
                                       double lo, double hi, double def, double *out, xlarun_error *err) {
    size_t v = xlarun__cfg_get(r, obj, key);
    char tok[48];
    *out = def; /* set on every path (GCC -O3 cannot see that the failures return non-zero) */
    if (xlarun__json_is_null(&r->j, v)) {
        if (required) return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: missing key '%s%s'", where, key);
        *out = def = xlarun__cfg_default(r, obj, key, def);
        xlarun__cfg_note_num(r, where, key, def);
        return XLARUN_OK;
    }
    if (xlarun__json_is_number(&r->j, v)) *out = xlarun__json_double(&r->j, v);
    if (!xlarun__json_is_number(&r->j, v) || !(*out > lo && *out < hi)) {
        xlarun__token(&r->j, v, tok, sizeof tok);
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s%s' must be a number in (%g, %g), found %s",
                            where, key, lo, hi, tok);
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__cfg_bool(xlarun__cfgrd *r, const char *key, int def, int *out, xlarun_error *err) {
    size_t v = xlarun__cfg_get(r, r->root, key);
    *out = def;
    if (xlarun__json_is_null(&r->j, v)) {
        xlarun__cfg_note(r, "", key, NULL, def ? "true" : "false");
        return XLARUN_OK;
    }
    if (r->j.s[v] != 't' && r->j.s[v] != 'f')
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' must be true or false", key);
    *out = r->j.s[v] == 't';
    return XLARUN_OK;
}

/* token id keys: an integer, a list of integers, or null */
static xlarun_status xlarun__cfg_ids(xlarun__cfgrd *r, const char *key, int32_t *ids, uint32_t cap, uint32_t *n,
                                     xlarun_error *err) {
    size_t v = xlarun__cfg_get(r, r->root, key), it, e;
    uint64_t x;
    *n = 0;
    if (xlarun__json_is_null(&r->j, v)) return XLARUN_OK;
    if (r->j.s[v] != '[') {
        if (!xlarun__json_uint(&r->j, v, INT32_MAX, &x))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' must be a token id or a list of them", key);
        ids[(*n)++] = XLARUN__CAST(int32_t, x);
        return XLARUN_OK;
    }
    it = v;
    while (xlarun__json_next(&r->j, &it, NULL, &e)) {
        if (!xlarun__json_uint(&r->j, e, INT32_MAX, &x))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' must be a token id or a list of them", key);
        if (*n == cap)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' lists more than %u ids", key, cap);
        ids[(*n)++] = XLARUN__CAST(int32_t, x);
    }
    return XLARUN_OK;
}

/* a string key into buf: "" when missing or null, "?" when not a string (or too long) */
static void xlarun__cfg_str(xlarun__cfgrd *r, size_t obj, const char *key, char *buf, size_t cap) {
    size_t v = xlarun__cfg_get(r, obj, key);
    buf[0] = 0;
    if (!xlarun__json_is_null(&r->j, v) && (r->j.s[v] != '"' || xlarun__json_str(&r->j, v, buf, cap) == XLARUN__NONE))
        strcpy(buf, "?");
}

/* a RoPE object's rope_type (or its older name, type): "default" when absent, "?" when not a string */
static void xlarun__rope_type(xlarun__cfgrd *r, size_t obj, char *buf, size_t cap) {
    xlarun__cfg_str(r, obj, "rope_type", buf, cap);
    if (!buf[0]) xlarun__cfg_str(r, obj, "type", buf, cap);
    if (!buf[0]) strcpy(buf, "default");
}

/* ---- each family's own keys ------------------------------------------------------------------ */

/* Gemma 2 and 3's (as transformers' Gemma2Config and Gemma3TextConfig read them): the attention
   scale, the soft caps, the local / global layers and, for Gemma 3, the local RoPE base; where
   the two differ, the row's xlarun__local_desc says how */
static xlarun_status xlarun__parse_gemma(xlarun__cfgrd *r, xlarun_config *c, xlarun__plan *p, xlarun_error *err) {
    const xlarun__local_desc *ld = r->a->local;
    size_t v, it, e;
    double d;
    char buf[32];
    uint32_t l, first_full = 0;
    XLARUN__TRY(xlarun__cfg_float(r, r->root, "", "query_pre_attn_scalar", 0, 0.0, 1e30, 256.0, &d, err));
    p->attn_scale = XLARUN__CAST(float, pow(d, -0.5));
    /* soft caps: null is none, a missing key the class's default */
    XLARUN__TRY(xlarun__cfg_float(r, r->root, "", "final_logit_softcapping", 0, 0.0, 1e30,
                                  xlarun__cfg_get(r, r->root, "final_logit_softcapping") == XLARUN__NONE ? ld->final_cap : 0.0, &d, err));
    p->final_softcap = XLARUN__CAST(float, d);
    if (ld->attn_cap >= 0.0) {
        XLARUN__TRY(xlarun__cfg_float(r, r->root, "", "attn_logit_softcapping", 0, 0.0, 1e30,
                                      xlarun__cfg_get(r, r->root, "attn_logit_softcapping") == XLARUN__NONE ? ld->attn_cap : 0.0, &d, err));
        p->attn_softcap = XLARUN__CAST(float, d);
    }
    if (ld->local_theta && c->rope_local_theta == 0.0f) { /* unless rope_parameters gave it */
        XLARUN__TRY(xlarun__cfg_float(r, r->root, "", "rope_local_base_freq", 0, 0.0, 1e30, 10000.0, &d, err));
        c->rope_local_theta = XLARUN__CAST(float, d);
    }
    XLARUN__TRY(xlarun__cfg_uint(r, "sliding_window", 0, 1, XLARUN_MAX_POSITIONS, 4096, &c->sliding_window, err));
    /* which layers are local: layer_types when given (transformers >= 4.53 writes it), else the
       pattern: layer l is local unless (l + 1) % pattern == 0. xlarun keeps the pattern, so a
       layer_types list must be one. */
    v = xlarun__cfg_get(r, r->root, "layer_types");
    if (xlarun__json_is_null(&r->j, v) && !ld->pattern_key) {
        p->sliding_pattern = ld->pattern;
        return XLARUN_OK;
    }
    if (xlarun__json_is_null(&r->j, v)) {
        if ((v = xlarun__cfg_get(r, r->root, ld->pattern_key)) != XLARUN__NONE && xlarun__json_is_null(&r->j, v))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' is null and there is no 'layer_types'", ld->pattern_key);
        return xlarun__cfg_uint(r, ld->pattern_key, 0, 1, XLARUN_MAX_LAYERS + 1, ld->pattern, &p->sliding_pattern, err);
    }
    if (r->j.s[v] != '[') return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'layer_types' must be a list");
    for (l = 0, it = v; xlarun__json_next(&r->j, &it, NULL, &e); l++) {
        int full;
        if (r->j.s[e] != '"' || xlarun__json_str(&r->j, e, buf, sizeof buf) == XLARUN__NONE) strcpy(buf, "?");
        if (l >= c->n_layers)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'layer_types' lists more than num_hidden_layers %u layers", c->n_layers);
        full = !strcmp(buf, "full_attention");
        if (!full && strcmp(buf, "sliding_attention"))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: layer_types[%u] is '%s' (expected sliding_attention or full_attention)", l, buf);
        if (full && !first_full) first_full = l + 1;
        if (full != (first_full && (l + 1) % first_full == 0))
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                                "config.json: layer_types is not supported: xlarun runs a full_attention layer every P layers (P = %u here), and layer %u is %s",
                                first_full ? first_full : l + 1, l, buf);
    }
    if (l != c->n_layers)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'layer_types' lists %u layers, num_hidden_layers is %u", l, c->n_layers);
    p->sliding_pattern = first_full; /* 0 when none is full: every layer local */
    return XLARUN_OK;
}

/* Phi-3's: the rotated part of each head (partial_rotary_factor: rope_parameters' when it has one,
   as transformers 5 reads it, else the top-level key, as 4.x), and longrope's short and long
   factors and attention factor. Its attention_bias and mlp_bias (Phi-4-mini's config has them)
   are never read by transformers, nor here. */
static xlarun_status xlarun__parse_phi3(xlarun__cfgrd *r, xlarun_config *c, xlarun__plan *p, xlarun_error *err) {
    double d, rd;
    size_t v, it, e, rope = r->rope, obj = r->root;
    uint32_t n = 0, k;
    uint64_t om;
    const char *where = r->where;
    if (!xlarun__json_is_null(&r->j, rope) && xlarun__cfg_set(r, rope, "partial_rotary_factor")) obj = rope;
    XLARUN__TRY(xlarun__cfg_float(r, obj, obj == r->root ? "" : where, "partial_rotary_factor", 0, 0.0, 1.0 + 1e-9, 1.0, &d, err));
    rd = floor(XLARUN__CAST(double, c->head_dim) * d); /* Python's int(head_dim * factor) */
    if (rd < 2.0 || XLARUN__CAST(uint32_t, rd) % 2)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: partial_rotary_factor %g leaves %g rotated dimensions of head_dim %u (expected an even number > 0)",
                            d, rd, c->head_dim);
    c->rope_dim = XLARUN__CAST(uint32_t, rd);
    /* original_max_position_embeddings: the top-level key (transformers 5 writes it there too, and
       its top-level default of 4096 wins over a copy in rope_parameters) */
    v = xlarun__cfg_get(r, r->root, "original_max_position_embeddings");
    if (xlarun__json_is_null(&r->j, v)) {
        om = 4096;
        xlarun__cfg_note_num(r, "", "original_max_position_embeddings", 4096.0);
    } else if (!xlarun__json_uint(&r->j, v, XLARUN_MAX_POSITIONS, &om) || om < 2)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'original_max_position_embeddings' must be an integer of at least 2");
    c->rope_original_max_position_embeddings = XLARUN__CAST(uint32_t, om);
    if (c->rope_type != XLARUN_ROPE_LONGROPE) return XLARUN_OK;
    if (xlarun__cfg_set(r, rope, "factor") || xlarun__cfg_set(r, rope, "attention_factor"))
        return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                            "config.json: a longrope 'factor' or 'attention_factor' is not supported (transformers 4 refuses them, 5 reads them)");
    for (k = 0; k < 2; k++) { /* short_factor, long_factor */
        const char *key = k ? "long_factor" : "short_factor";
        v = xlarun__cfg_get(r, rope, key);
        if (xlarun__json_is_null(&r->j, v) || r->j.s[v] != '[')
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s%s' must be a list of %u numbers", where, key, c->rope_dim / 2);
        for (n = 0, it = v; xlarun__json_next(&r->j, &it, NULL, &e); n++) {
            double f = xlarun__json_is_number(&r->j, e) ? xlarun__json_double(&r->j, e) : -1.0;
            if (!(f > 0.0 && f < 1e30) || n >= c->rope_dim / 2)
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s%s' must be a list of %u positive numbers", where, key, c->rope_dim / 2);
            (k ? p->rope_ext_long : p->rope_ext)[n] = XLARUN__CAST(float, f); /* torch.tensor(.., float32) */
        }
        if (n != c->rope_dim / 2)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s%s' has %u numbers, expected %u (one per rotated frequency)", where, key, n, c->rope_dim / 2);
    }
    /* the attention factor, from max_position_embeddings over the original */
    d = XLARUN__CAST(double, c->max_position_embeddings) / XLARUN__CAST(double, om);
    p->rope_attn_factor = d <= 1.0 ? 1.0f : XLARUN__CAST(float, sqrt(1.0 + log(d) / log(XLARUN__CAST(double, om))));
    return XLARUN_OK;
}

/* SmolLM3's: the layers without RoPE (no_rope_layers, a number per layer, 0: none, as Python's
   truth; entries past the layers unread; else every no_rope_layer_interval-th layer, default 4,
   has none), and its window: on the layers layer_types calls sliding_attention (without the key,
   those without RoPE when use_sliding_window and a sliding_window are set), which is refused */
static xlarun_status xlarun__parse_smollm3(xlarun__cfgrd *r, xlarun_config *c, xlarun__plan *p, xlarun_error *err) {
    size_t v = xlarun__cfg_get(r, r->root, "no_rope_layers"), it, e;
    uint32_t l = 0, n, slide = 0;
    int b = 0, win = xlarun__cfg_set(r, r->root, "sliding_window");
    if (xlarun__json_is_null(&r->j, v)) {
        XLARUN__TRY(xlarun__cfg_uint(r, "no_rope_layer_interval", 0, 1, 0xFFFFFFFFu, 4, &n, err));
        for (l = 0; l < c->n_layers; l++) p->no_rope[l] = (l + 1) % n == 0;
    } else {
        if (r->j.s[v] != '[')
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'no_rope_layers' must be a list of %u numbers 0 or 1", c->n_layers);
        for (it = v; xlarun__json_next(&r->j, &it, NULL, &e); l++) {
            uint64_t x;
            if (!xlarun__json_uint(&r->j, e, 0xFFFFFFFFu, &x)) /* transformers 4 and 5 disagree on true and 1.0 */
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'no_rope_layers' must be a list of %u numbers 0 or 1 (one per layer; 1: RoPE)", c->n_layers);
            if (l < c->n_layers) p->no_rope[l] = x == 0;
        }
        if (l < c->n_layers)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'no_rope_layers' has %u entries, expected %u (one per layer)", l, c->n_layers);
    }
    XLARUN__TRY(xlarun__cfg_bool(r, "use_sliding_window", 0, &b, err));
    v = xlarun__cfg_get(r, r->root, "layer_types");
    if (xlarun__json_is_null(&r->j, v)) {
        for (l = 0; l < c->n_layers; l++) slide += b && win && p->no_rope[l];
    } else {
        if (r->j.s[v] != '[')
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'layer_types' must be a list of %u strings", c->n_layers);
        for (l = 0, it = v; xlarun__json_next(&r->j, &it, NULL, &e); l++) {
            if (r->j.s[e] == '"' && xlarun__json_eq(&r->j, e, "sliding_attention")) slide++;
            else if (!(r->j.s[e] == '"' && xlarun__json_eq(&r->j, e, "full_attention")))
                return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                                    "config.json: layer_types entry %u is not supported (expected \"full_attention\" or \"sliding_attention\")", l);
        }
        if (l != c->n_layers)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'layer_types' has %u entries, expected %u (one per layer)", l, c->n_layers);
        if (slide && !win) /* transformers fails on it */
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: layer_types has sliding_attention layers but sliding_window is null");
    }
    if (slide)
        return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                            "config.json: SmolLM3's sliding window (%u layers sliding_attention, with use_sliding_window or layer_types) is not supported", slide);
    return XLARUN_OK;
}

/* Gemma 1's activation as the folder's transformers version reads it: before 4.51 (4.46.3) its
   MLP runs hidden_activation (the tanh form when null) and ignores hidden_act; 4.51 to 4.57 run
   hidden_act as written, so "gelu" is the exact (erf) GELU there, which xlarun does not run; 5.x
   reads "gelu" as gelu_pytorch_tanh, as xlarun does without a version */
static xlarun_status xlarun__parse_gemma_act(xlarun__cfgrd *r, xlarun_config *c, xlarun__plan *p, xlarun_error *err) {
    char buf[32];
    (void)p;
    if (r->version && r->version < 4051) {
        xlarun__cfg_str(r, r->root, "hidden_activation", buf, sizeof buf);
        if (buf[0] && strcmp(buf, "gelu_pytorch_tanh"))
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: hidden_activation '%s' (what transformers %s runs in place of hidden_act) is not supported (supported: gelu_pytorch_tanh)",
                                buf, c->transformers_version);
        return XLARUN_OK;
    }
    xlarun__cfg_str(r, r->root, "hidden_act", buf, sizeof buf);
    if (r->version && r->version < 5000 && !strcmp(buf, "gelu"))
        return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                            "config.json: hidden_act 'gelu' with %s written by transformers %s is the exact GELU there (4.51 to 4.57 run it as written), which xlarun does not run; gelu_pytorch_tanh (what transformers 5 reads 'gelu' as) is",
                            r->a->cls, c->transformers_version);
    return XLARUN_OK;
}

/* the mixture of experts, from the row's xlarun__moe_desc: how many experts, how many a token runs,
   their size, whether the chosen probabilities are renormalized, which layers are sparse, and a
   shared expert */
static xlarun_status xlarun__parse_moe(xlarun__cfgrd *r, xlarun_config *c, xlarun__plan *p, xlarun_error *err) {
    const xlarun__moe_desc *md = r->a->moe;
    int qwen = md->sparse == XLARUN__SPARSE_QWEN;
    uint32_t step = 1, l;
    size_t v, it, e;
    uint64_t x;
    XLARUN__TRY(xlarun__cfg_uint(r, md->count_key, 0, md->min_experts, XLARUN_MAX_EXPERTS, md->experts, &c->n_experts, err));
    XLARUN__TRY(xlarun__cfg_uint(r, "num_experts_per_tok", 0, 1, XLARUN_MAX_EXPERTS, md->used, &c->n_experts_used, err));
    if (c->n_experts && c->n_experts_used > c->n_experts)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: num_experts_per_tok %u is more than %s %u",
                            c->n_experts_used, md->count_key, c->n_experts);
    c->moe_intermediate_size = c->intermediate_size;
    p->moe_norm_topk = 1;
    if (md->norm_topk >= 0) XLARUN__TRY(xlarun__cfg_bool(r, "norm_topk_prob", md->norm_topk, &p->moe_norm_topk, err));
    if (md->size) XLARUN__TRY(xlarun__cfg_uint(r, "moe_intermediate_size", 0, 1, XLARUN_MAX_INTERMEDIATE, md->size, &c->moe_intermediate_size, err));
    if (qwen) XLARUN__TRY(xlarun__cfg_uint(r, "decoder_sparse_step", 0, 1, XLARUN_MAX_LAYERS, 1, &step, err));
    for (l = 0; l < c->n_layers; l++) p->moe[l] = c->n_experts > 0 && (l + 1) % step == 0;
    v = qwen ? xlarun__cfg_get(r, r->root, "mlp_only_layers") : XLARUN__NONE;
    if (!xlarun__json_is_null(&r->j, v)) { /* dense layers; numbers past the layers name none */
        if (r->j.s[v] != '[') return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'mlp_only_layers' must be a list of layer numbers");
        it = v;
        while (xlarun__json_next(&r->j, &it, NULL, &e)) {
            if (!xlarun__json_uint(&r->j, e, UINT32_MAX, &x))
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'mlp_only_layers' must be a list of layer numbers");
            if (x < c->n_layers) p->moe[x] = 0;
        }
    }
    if (md->shared) /* the shared expert: always there in its block */
        XLARUN__TRY(xlarun__cfg_uint(r, "shared_expert_intermediate_size", 0, 1, XLARUN_MAX_INTERMEDIATE, md->shared, &c->moe_shared_size, err));
    if (c->n_experts == 0) c->n_experts_used = 0, c->moe_shared_size = 0;
    return XLARUN_OK;
}

/* ---- the architectures ------------------------------------------------------------------------ */

#define XLARUN__R(t) (1u << XLARUN_ROPE_##t)
static const xlarun__local_desc xlarun__gemma2_local = {30.0, 50.0, NULL, 2, 0};
/* Gemma 3: attn_logit_softcapping is kept but never applied by its attention (4.57, 5.23): ignored */
static const xlarun__local_desc xlarun__gemma3_local = {0.0, -1.0, "sliding_window_pattern", 6, 1};
static const xlarun__moe_desc xlarun__moe_mixtral = {XLARUN__SPARSE_ALL, "num_local_experts", 8, 2, 0, 0, 1, -1, xlarun__t_mixtral};
static const xlarun__moe_desc xlarun__moe_qwen3 = {XLARUN__SPARSE_QWEN, "num_experts", 128, 8, 768, 0, 0, 0, xlarun__t_experts};
static const xlarun__moe_desc xlarun__moe_olmoe = {XLARUN__SPARSE_ALL, "num_experts", 64, 8, 0, 0, 1, 0, xlarun__t_experts};
static const xlarun__moe_desc xlarun__moe_qwen2 = {XLARUN__SPARSE_QWEN, "num_experts", 60, 4, 1408, 5632, 0, 0, xlarun__t_experts};
/* transformers 5's attribute_map: Mixtral's num_experts, Qwen3-MoE's and OLMoE's num_local_experts
   (what Qwen3MoeConfig saves) */
static const xlarun__alias xlarun__alias_local_experts[] = {{"num_local_experts", "num_experts", "the expert count"}, {NULL, NULL, NULL}};
static const xlarun__alias xlarun__alias_experts[] = {{"num_experts", "num_local_experts", "the expert count"}, {NULL, NULL, NULL}};
static const xlarun__refusal xlarun__no_qwen_window[] = { /* a window on layers max_window_layers.. only; transformers' own paths disagree on it */
    {"use_sliding_window", XLARUN__REFUSE_TRUE, "use_sliding_window true (Qwen's window on the upper layers) is not supported"}, {NULL, 0, NULL}};
static const xlarun__refusal xlarun__no_qwen3_window[] = {
    {"use_sliding_window", XLARUN__REFUSE_TRUE, "use_sliding_window true (Qwen's window on the upper layers) is not supported"},
    {"sliding_window", XLARUN__REFUSE_SET, /* 4.51 masks every layer with it, later ones none */
     "a sliding_window with Qwen3ForCausalLM is not supported (transformers versions disagree on whether it applies); null means none"},
    {NULL, 0, NULL}};
static const xlarun__refusal xlarun__no_olmoe_clip[] = {
    {"clip_qkv", XLARUN__REFUSE_SET, "clip_qkv (OLMoE's clamp of q, k and v) is not supported; null means none"}, {NULL, 0, NULL}};
static const xlarun__refusal xlarun__no_gemma_nulls[] = { /* keys whose null transformers cannot run (the window: its mask) */
    {"hidden_activation", XLARUN__REFUSE_NULL, "'hidden_activation' is null (expected \"gelu_pytorch_tanh\")"},
    {"query_pre_attn_scalar", XLARUN__REFUSE_NULL, "'query_pre_attn_scalar' is null (expected a number)"},
    {"sliding_window", XLARUN__REFUSE_NULL, "'sliding_window' is null (expected a number)"},
    {"use_bidirectional_attention", XLARUN__REFUSE_TRUE, "use_bidirectional_attention true (an embedding model) is not supported"},
    {NULL, 0, NULL}};
static const xlarun__refusal xlarun__no_gemma1_null[] = {
    {"hidden_act", XLARUN__REFUSE_NULL, "'hidden_act' is null (expected \"gelu_pytorch_tanh\")"}, {NULL, 0, NULL}};
static const xlarun__refusal xlarun__no_granite_nulls[] = { /* transformers fails on them */
    {"embedding_multiplier", XLARUN__REFUSE_NULL, "'embedding_multiplier' is null (expected a positive number)"},
    {"attention_multiplier", XLARUN__REFUSE_NULL, "'attention_multiplier' is null (expected a positive number)"},
    {"residual_multiplier", XLARUN__REFUSE_NULL, "'residual_multiplier' is null (expected a positive number)"},
    {"logits_scaling", XLARUN__REFUSE_NULL, "'logits_scaling' is null (expected a positive number)"},
    {NULL, 0, NULL}};

/* Gemma2Config before 4.51 (4.46.3) */
static const xlarun__vdefault xlarun__gemma2_vdefaults[] = {{"query_pre_attn_scalar", 4051, 224.0}, {NULL, 0, 0.0}};

/* Gemma 1's hub configs say hidden_act "gelu", meant as the tanh form: transformers 5's GemmaConfig
   rewrites it to gelu_pytorch_tanh (calling the exact form a bug), 4.46.3 read hidden_activation
   (tanh when null); only 4.51 to 4.57 ran the exact GELU. xlarun runs the tanh form for both. */
static const xlarun__arch_desc xlarun__archs[] = {
    /* cls, model_type, arch,
       kv_heads, max_pos, head_dim, tie, head_dim_free, eps, theta,
       act_key, act_names, act, bias, mlp_bias, qk, norms, scale, window, window_def,
       rope_types, local, rope_why,
       layer, mlp, moe, aliases, refusals, own, vdefaults */
    {"LlamaForCausalLM", "llama", XLARUN_ARCH_LLAMA,
     0, 2048, 0, 0, 1, 1e-6, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_ATTENTION, 1, XLARUN__QK_NONE, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), NULL, NULL,
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, NULL, NULL, NULL},
    {"MistralForCausalLM", "mistral", XLARUN_ARCH_MISTRAL,
     8, 4096 * 32, 0, 0, 1, 1e-6, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_NONE, 0, XLARUN__QK_NONE, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_ALL, 4096,
     XLARUN__R(DEFAULT), NULL, "it takes no RoPE scaling",
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, NULL, NULL, NULL},
    {"Qwen2ForCausalLM", "qwen2", XLARUN_ARCH_QWEN2,
     32, 32768, 0, 0, 0, 1e-6, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_QKV, 0, XLARUN__QK_NONE, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), NULL, NULL,
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, xlarun__no_qwen_window, NULL, NULL},
    {"Qwen3ForCausalLM", "qwen3", XLARUN_ARCH_QWEN3,
     32, 32768, 128, 0, 1, 1e-6, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_ATTENTION, 0, XLARUN__QK_HEAD, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), NULL, NULL,
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, xlarun__no_qwen3_window, NULL, NULL},
    {"Gemma3ForCausalLM", "gemma3_text", XLARUN_ARCH_GEMMA3,
     4, 131072, 256, 1, 1, 1e-6, 1e6,
     "hidden_activation", "gelu_pytorch_tanh", XLARUN__ACT_GELU_TANH, XLARUN__BIAS_ATTENTION, 0, XLARUN__QK_HEAD, XLARUN__NORMS_SANDWICH, XLARUN__SCALE_GEMMA, XLARUN__WIN_LAYERS, 4096,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), &xlarun__gemma3_local, NULL,
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, xlarun__no_gemma_nulls, xlarun__parse_gemma, NULL},
    {"Gemma2ForCausalLM", "gemma2", XLARUN_ARCH_GEMMA2,
     4, 8192, 256, 1, 1, 1e-6, 10000.0,
     "hidden_activation", "gelu_pytorch_tanh", XLARUN__ACT_GELU_TANH, XLARUN__BIAS_ATTENTION, 0, XLARUN__QK_NONE, XLARUN__NORMS_SANDWICH, XLARUN__SCALE_GEMMA, XLARUN__WIN_LAYERS, 4096,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), &xlarun__gemma2_local, NULL,
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, xlarun__no_gemma_nulls, xlarun__parse_gemma, xlarun__gemma2_vdefaults},
    {"GemmaForCausalLM", "gemma", XLARUN_ARCH_GEMMA, /* 4.46.3's Gemma ignores rope_scaling, later ones apply it */
     16, 8192, 256, 1, 1, 1e-6, 10000.0,
     "hidden_act", "gelu, gelu_pytorch_tanh", XLARUN__ACT_GELU_TANH, XLARUN__BIAS_ATTENTION, 0, XLARUN__QK_NONE, XLARUN__NORMS_PRE, XLARUN__SCALE_GEMMA, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT), NULL, "transformers versions disagree on applying it",
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, xlarun__no_gemma1_null, xlarun__parse_gemma_act, NULL},
    {"Phi3ForCausalLM", "phi3", XLARUN_ARCH_PHI3, /* longrope also under its older names su and yarn */
     0, 4096, 0, 0, 0, 1e-5, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_NONE, 0, XLARUN__QK_NONE, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_ALL, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LONGROPE), NULL, "supported: default, longrope",
     xlarun__t_phi3, NULL, NULL, NULL, NULL, xlarun__parse_phi3, NULL},
    {"SmolLM3ForCausalLM", "smollm3", XLARUN_ARCH_SMOLLM3,
     4, 32768, 0, 1, 1, 1e-6, 2e6,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_ATTENTION, 1, XLARUN__QK_NONE, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), NULL, NULL,
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, NULL, xlarun__parse_smollm3, NULL},
    {"GraniteForCausalLM", "granite", XLARUN_ARCH_GRANITE,
     0, 2048, 0, 0, 0, 1e-6, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_ATTENTION, 1, XLARUN__QK_NONE, XLARUN__NORMS_PRE, XLARUN__SCALE_GRANITE, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), NULL, NULL,
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, xlarun__no_granite_nulls, NULL, NULL},
    {"Olmo2ForCausalLM", "olmo2", XLARUN_ARCH_OLMO2,
     0, 2048, 0, 0, 1, 1e-5, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_ATTENTION, 0, XLARUN__QK_WHOLE, XLARUN__NORMS_POST, XLARUN__SCALE_NONE, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), NULL, NULL,
     xlarun__t_attention, xlarun__t_mlp, NULL, NULL, NULL, NULL, NULL},
    {"MixtralForCausalLM", "mixtral", XLARUN_ARCH_MIXTRAL,
     8, 4096 * 32, 0, 0, 1, 1e-5, 1e6,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_NONE, 0, XLARUN__QK_NONE, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_ALL, 0,
     XLARUN__R(DEFAULT), NULL, "transformers versions disagree on applying it",
     xlarun__t_attention, NULL, &xlarun__moe_mixtral, xlarun__alias_local_experts, NULL, NULL, NULL},
    {"Qwen3MoeForCausalLM", "qwen3_moe", XLARUN_ARCH_QWEN3_MOE,
     4, 32768, 0, 0, 1, 1e-6, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_ATTENTION, 0, XLARUN__QK_HEAD, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), NULL, NULL,
     xlarun__t_attention, xlarun__t_mlp, &xlarun__moe_qwen3, xlarun__alias_experts, xlarun__no_qwen_window, NULL, NULL},
    {"OlmoeForCausalLM", "olmoe", XLARUN_ARCH_OLMOE,
     0, 4096, 0, 0, 0, 1e-5, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_ATTENTION, 0, XLARUN__QK_WHOLE, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), NULL, NULL,
     xlarun__t_attention, NULL, &xlarun__moe_olmoe, xlarun__alias_experts, xlarun__no_olmoe_clip, NULL, NULL},
    {"Qwen2MoeForCausalLM", "qwen2_moe", XLARUN_ARCH_QWEN2_MOE,
     16, 32768, 0, 0, 0, 1e-6, 10000.0,
     "hidden_act", "silu", XLARUN__ACT_SILU, XLARUN__BIAS_QKV_KEY, 0, XLARUN__QK_NONE, XLARUN__NORMS_PRE, XLARUN__SCALE_NONE, XLARUN__WIN_NONE, 0,
     XLARUN__R(DEFAULT) | XLARUN__R(LINEAR) | XLARUN__R(LLAMA3), NULL, NULL,
     xlarun__t_attention, xlarun__t_mlp, &xlarun__moe_qwen2, NULL, xlarun__no_qwen_window, NULL, NULL},
};

#define XLARUN__N_ARCH XLARUN__CAST(int, sizeof xlarun__archs / sizeof *xlarun__archs)
static const char *const xlarun__rope_names[] = {"default", "linear", "llama3", "longrope"}; /* by xlarun_rope_type */

XLARUN_API const char *xlarun_arch_name(xlarun_arch a) {
    int k;
    for (k = 0; k < XLARUN__N_ARCH; k++)
        if (xlarun__archs[k].arch == a) return xlarun__archs[k].cls;
    return "?";
}

/* the row of a class name (by_type 0) or a model_type (1); NULL if unknown */
static const xlarun__arch_desc *xlarun__arch_find(const char *name, int by_type) {
    int k;
    for (k = 0; k < XLARUN__N_ARCH; k++)
        if (!strcmp(name, by_type ? xlarun__archs[k].type : xlarun__archs[k].cls)) return &xlarun__archs[k];
    return NULL;
}

/* the supported classes (by_type 0) or model_types (1), ", " between them */
static const char *xlarun__arch_list(int by_type, char *buf, size_t cap) {
    int k;
    size_t used = 0;
    buf[0] = 0;
    for (k = 0; k < XLARUN__N_ARCH && used + 1 < cap; k++)
        used += XLARUN__CAST(size_t, snprintf(buf + used, cap - used, "%s%s", k ? ", " : "",
                                              by_type ? xlarun__archs[k].type : xlarun__archs[k].cls));
    return buf;
}

/* ---- the tensors: slots laid out by the row's tables -------------------------------------------
   Slots 0..2 are the global tensors (xlarun__t_global); then each layer has plan.stride slots, one
   per tensor kind of its row's tables in order, an expert's kind ("%e") one per expert. Whether a
   layer reads a slot is its kind's need (xlarun__tensor_used). */

static int xlarun__per_expert(const xlarun__tdesc *d) { return strstr(d->name, "%e") != NULL; }

/* the plan's layer tables: the row's layer, MLP and mixture tensors */
static void xlarun__plan_tensors(const xlarun_config *c, xlarun__plan *p) {
    const xlarun__tdesc *tabs[3], *d;
    int t, n = 0, slot = 0;
    tabs[0] = p->a->layer;
    tabs[1] = p->a->mlp;
    tabs[2] = p->a->moe ? p->a->moe->tensors : NULL;
    for (t = 0; t < 3; t++)
        for (d = tabs[t]; d && d->name; d++) {
            XLARUN_ASSERT(n < XLARUN__MAX_LT);
            p->lt[n] = d;
            p->lt_slot[n++] = slot;
            slot += xlarun__per_expert(d) ? XLARUN__CAST(int, c->n_experts) : 1;
            if (d->kind == XLARUN__W_QKV) p->fused = 1;
        }
    p->n_lt = n;
    p->stride = slot;
}

static int xlarun__n_slots(const xlarun_model *m) {
    return XLARUN__N_GLOBAL + XLARUN__CAST(int, m->cfg.n_layers) * m->plan.stride;
}

/* a slot's tensor kind, its layer and (an expert's kind) its expert */
static const xlarun__tdesc *xlarun__slot_desc(const xlarun_model *m, int slot, uint32_t *layer, uint32_t *expert) {
    const xlarun__plan *p = &m->plan;
    int off, i;
    *layer = *expert = 0;
    if (slot < XLARUN__N_GLOBAL) return &xlarun__t_global[slot];
    off = (slot - XLARUN__N_GLOBAL) % p->stride;
    *layer = XLARUN__CAST(uint32_t, (slot - XLARUN__N_GLOBAL) / p->stride);
    for (i = p->n_lt - 1; i > 0 && p->lt_slot[i] > off; i--) {}
    *expert = XLARUN__CAST(uint32_t, off - p->lt_slot[i]);
    return p->lt[i];
}

/* whether layer l reads tensor kind d (a global one: always, but a tied lm_head) */
static int xlarun__tensor_used(const xlarun_model *m, uint32_t l, const xlarun__tdesc *d) {
    const xlarun__plan *p = &m->plan;
    int moe = l < m->cfg.n_layers && p->moe[l];
    switch (d->need) {
    case XLARUN__N_ALWAYS: return 1;
    case XLARUN__N_UNTIED: return !m->cfg.tie_word_embeddings;
    case XLARUN__N_NORM_BEFORE: return p->norms != XLARUN__NORMS_POST;
    case XLARUN__N_QKV_BIAS: return p->qkv_bias;
    case XLARUN__N_O_BIAS: return p->o_bias;
    case XLARUN__N_MLP_BIAS: return p->mlp_bias && !moe;
    case XLARUN__N_QK_NORM: return p->qk != XLARUN__QK_NONE;
    case XLARUN__N_SANDWICH: return p->norms == XLARUN__NORMS_SANDWICH;
    case XLARUN__N_NORM_AFTER: return p->norms != XLARUN__NORMS_PRE;
    case XLARUN__N_DENSE: return !moe;
    case XLARUN__N_SPARSE: return moe;
    default: return moe && m->cfg.moe_shared_size; /* XLARUN__N_SHARED */
    }
}

static int xlarun__slot_cls(const xlarun_model *m, int slot) {
    uint32_t l, e;
    return xlarun__slot_desc(m, slot, &l, &e)->cls;
}
static int xlarun__is_matrix_slot(const xlarun_model *m, int slot) {
    int cls = xlarun__slot_cls(m, slot);
    return cls == XLARUN__C_MATRIX || cls == XLARUN__C_ROUTER;
}

/* a dimension of the config */
static uint64_t xlarun__dim(const xlarun_model *m, int dim) {
    const xlarun_config *c = &m->cfg;
    uint64_t Q = XLARUN__CAST(uint64_t, c->n_heads) * c->head_dim, KV = XLARUN__CAST(uint64_t, c->n_kv_heads) * c->head_dim;
    int whole = m->plan.qk == XLARUN__QK_WHOLE;
    switch (dim) {
    case XLARUN__D_1: return 1;
    case XLARUN__D_H: return c->hidden_size;
    case XLARUN__D_V: return c->vocab_size;
    case XLARUN__D_Q: return Q;
    case XLARUN__D_KV: return KV;
    case XLARUN__D_QKV: return Q + 2 * KV;
    case XLARUN__D_I: return c->intermediate_size;
    case XLARUN__D_2I: return 2 * XLARUN__CAST(uint64_t, c->intermediate_size);
    case XLARUN__D_QN: return whole ? Q : c->head_dim;
    case XLARUN__D_KN: return whole ? KV : c->head_dim;
    case XLARUN__D_E: return c->n_experts;
    case XLARUN__D_EI: return c->moe_intermediate_size;
    case XLARUN__D_SI: return c->moe_shared_size;
    default: return 0;
    }
}

/* the shape config.json implies for a slot: [rows, cols] (2), or [rows] for norms and biases (1) */
static int xlarun__slot_shape(const xlarun_model *m, int slot, uint64_t shape[2]) {
    uint32_t l, e;
    const xlarun__tdesc *d = xlarun__slot_desc(m, slot, &l, &e);
    shape[0] = xlarun__dim(m, d->rows);
    shape[1] = xlarun__dim(m, d->cols);
    return d->cols != XLARUN__D_NONE ? 2 : 1;
}

/* whether s is pattern's name, an expert's number below n for "%e" (*e) */
static int xlarun__name_match(const char *pattern, const char *s, uint32_t n, uint32_t *e) {
    const char *at = strstr(pattern, "%e");
    size_t pre;
    uint64_t x = 0;
    *e = 0;
    if (!at) return !strcmp(pattern, s);
    pre = XLARUN__CAST(size_t, at - pattern);
    if (strncmp(pattern, s, pre)) return 0;
    s += pre;
    if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9')) return 0;
    for (; *s >= '0' && *s <= '9' && x < n; s++) x = x * 10 + XLARUN__CAST(uint64_t, *s - '0');
    if (x >= n || strcmp(s, at + 2)) return 0;
    *e = XLARUN__CAST(uint32_t, x);
    return 1;
}

/* the slot of a tensor name, -1 if the model does not use it, -2 for a layer past n_layers */
static int xlarun__slot_of(const xlarun_model *m, const char *name) {
    const xlarun__plan *p = &m->plan;
    const char *q;
    unsigned long layer = 0;
    uint32_t e, l;
    int i;
    for (i = 0; i < XLARUN__N_GLOBAL; i++)
        if (!strcmp(name, xlarun__t_global[i].name)) return i;
    if (strncmp(name, "model.layers.", 13)) return -1;
    q = name + 13;
    if (*q < '0' || *q > '9' || (q[0] == '0' && q[1] != '.')) return -1;
    for (; *q >= '0' && *q <= '9'; q++) {
        layer = layer * 10 + XLARUN__CAST(unsigned long, *q - '0');
        if (layer > 1000000) return -2;
    }
    if (*q++ != '.') return -1;
    for (i = 0; i < p->n_lt; i++) {
        if (!xlarun__name_match(p->lt[i]->name, q, m->cfg.n_experts, &e)) continue;
        if (layer >= m->cfg.n_layers) { /* -2 when some layer reads this kind */
            for (l = 0; l < m->cfg.n_layers; l++)
                if (xlarun__tensor_used(m, l, p->lt[i])) return -2;
            return -1;
        }
        if (!xlarun__tensor_used(m, XLARUN__CAST(uint32_t, layer), p->lt[i])) return -1;
        return XLARUN__N_GLOBAL + XLARUN__CAST(int, layer) * p->stride + p->lt_slot[i] + XLARUN__CAST(int, e);
    }
    return -1;
}

static void xlarun__slot_name(const xlarun_model *m, int slot, char *buf, size_t cap) {
    uint32_t l, e;
    const xlarun__tdesc *d = xlarun__slot_desc(m, slot, &l, &e);
    const char *at = strstr(d->name, "%e");
    if (slot < XLARUN__N_GLOBAL) snprintf(buf, cap, "%s", d->name);
    else if (!at) snprintf(buf, cap, "model.layers.%u.%s", l, d->name);
    else snprintf(buf, cap, "model.layers.%u.%.*s%u%s", l, XLARUN__CAST(int, at - d->name), d->name, e, at + 2);
}

/* the widest MLP a layer has (a dense layer's intermediate_size or an expert's), and the widest
   input row of any matrix (that, hidden_size, or the attention's n_heads * head_dim) */
static size_t xlarun__mlp_width(const xlarun_model *m) {
    const xlarun_config *c = &m->cfg;
    size_t w = 0;
    uint32_t l;
    for (l = 0; l < c->n_layers; l++) {
        size_t x = m->plan.moe[l] ? c->moe_intermediate_size : c->intermediate_size;
        if (m->plan.moe[l] && c->moe_shared_size > x) x = c->moe_shared_size;
        if (x > w) w = x;
    }
    return w;
}
static size_t xlarun__widest_input(const xlarun_model *m) {
    size_t w = xlarun__mlp_width(m), q = XLARUN__CAST(size_t, m->cfg.n_heads) * m->cfg.head_dim;
    if (q > w) w = q;
    return m->cfg.hidden_size > w ? m->cfg.hidden_size : w;
}

/* ---- config.json ------------------------------------------------------------------------------- */

/* config.json into the public config and the executor's plan, through the architecture's row;
   log (may be NULL) notes each key read under an alias or taken as a default */
static xlarun_status xlarun__parse_config(const char *text, size_t len, xlarun_config *c, xlarun__plan *p,
                                          xlarun__cfglog *log, xlarun_error *err) {
    xlarun__cfgrd rd, *r = &rd;
    const xlarun__arch_desc *a = NULL, *k;
    const xlarun__alias *al;
    const xlarun__refusal *rf;
    size_t root, v, it, e, rope;
    double d, local_theta = 0.0;
    uint32_t nbos, i;
    int32_t bos[XLARUN_MAX_EOS];
    char buf[64], list[512];
    const char *where;
    int b;
    XLARUN__TRY(xlarun__json_validate(text, len, "config.json", err));
    memset(r, 0, sizeof *r);
    r->j.s = text;
    r->j.n = len;
    r->log = log;
    root = r->root = xlarun__json_ws(text, len, 0);
    if (text[root] != '{') return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: not a JSON object");
    memset(c, 0, sizeof *c);
    memset(p, 0, sizeof *p);
    if (log) log->n = 0;

    /* what kind of model: 'architectures' and 'model_type' name one of the rows (when both are
       there, the same one); anything else is refused by name */
    v = xlarun__json_get(&r->j, root, "architectures");
    if (!xlarun__json_is_null(&r->j, v)) {
        if (text[v] != '[') return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'architectures' must be a list");
        it = v;
        while (xlarun__json_next(&r->j, &it, NULL, &e)) {
            if (text[e] != '"' || xlarun__json_str(&r->j, e, buf, sizeof buf) == XLARUN__NONE) strcpy(buf, "?");
            if (!(k = xlarun__arch_find(buf, 0)))
                return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: architecture '%s' is not supported (supported: %s)",
                                    buf, xlarun__arch_list(0, list, sizeof list));
            if (a && a != k) return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'architectures' names two different models");
            a = k;
        }
    }
    xlarun__cfg_str(r, root, "model_type", buf, sizeof buf);
    if (buf[0]) {
        if (!(k = xlarun__arch_find(buf, 1)))
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: model_type '%s' is not supported (supported: %s)",
                                buf, xlarun__arch_list(1, list, sizeof list));
        if (a && a != k)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: model_type '%s' and 'architectures' name different models", buf);
        a = k;
    }
    if (!a) /* no name (or an empty list) */
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: neither 'architectures' nor 'model_type' says what model this is");
    r->a = p->a = a;
    c->arch = a->arch;
    /* the transformers version that wrote the folder, where versions read a key differently */
    v = xlarun__json_get(&r->j, root, "transformers_version");
    if (!xlarun__json_is_null(&r->j, v)) {
        if (text[v] != '"' || xlarun__json_str(&r->j, v, c->transformers_version, sizeof c->transformers_version) == XLARUN__NONE)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'transformers_version' must be a version string of at most %u bytes",
                                XLARUN__CAST(unsigned, sizeof c->transformers_version - 1));
        r->version = xlarun__tf_version(c->transformers_version);
    }
    for (al = a->aliases; al && al->key; al++) { /* a key under both its names: one value */
        size_t x = xlarun__json_get(&r->j, root, al->key), y = xlarun__json_get(&r->j, root, al->alias);
        char tx[48], ty[48];
        if (x == XLARUN__NONE || y == XLARUN__NONE) continue;
        xlarun__token(&r->j, x, tx, sizeof tx);
        xlarun__token(&r->j, y, ty, sizeof ty);
        if (strcmp(tx, ty))
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: '%s' %s and '%s' %s name one value (%s) and differ", al->key, tx, al->alias, ty, al->what);
    }
    for (rf = a->refusals; rf && rf->key; rf++) { /* values xlarun does not run (not read: not logged) */
        v = xlarun__json_get(&r->j, root, rf->key);
        r->log = NULL;
        if (rf->when == XLARUN__REFUSE_TRUE) XLARUN__TRY(xlarun__cfg_bool(r, rf->key, 0, &b, err));
        else b = rf->when == XLARUN__REFUSE_SET ? !xlarun__json_is_null(&r->j, v) : v != XLARUN__NONE && xlarun__json_is_null(&r->j, v);
        r->log = log;
        if (b) return xlarun__fail(err, rf->when == XLARUN__REFUSE_NULL ? XLARUN_ERR_FORMAT : XLARUN_ERR_UNSUPPORTED, "config.json: %s", rf->why);
    }

    /* the layer: activation, biases, norms, multipliers, as the row says */
    p->act = a->act;
    xlarun__cfg_str(r, root, a->act_key, buf, sizeof buf);
    if (buf[0]) {
        const char *n = a->act_names;
        size_t bl = strlen(buf);
        while (n && (strncmp(n, buf, bl) || (n[bl] && n[bl] != ','))) n = strchr(n, ',') ? strchr(n, ',') + 2 : NULL;
        if (!n) return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: %s '%s' is not supported (supported: %s)", a->act_key, buf, a->act_names);
    }
    if (a->bias == XLARUN__BIAS_ATTENTION) {
        XLARUN__TRY(xlarun__cfg_bool(r, "attention_bias", 0, &p->qkv_bias, err));
        p->o_bias = p->qkv_bias;
    } else if (a->bias == XLARUN__BIAS_QKV)
        p->qkv_bias = 1;
    else if (a->bias == XLARUN__BIAS_QKV_KEY) /* Qwen2MoeConfig's qkv_bias (true when missing, as earlier versions had always) */
        XLARUN__TRY(xlarun__cfg_bool(r, "qkv_bias", 1, &p->qkv_bias, err));
    if (a->mlp_bias) XLARUN__TRY(xlarun__cfg_bool(r, "mlp_bias", 0, &p->mlp_bias, err));
    p->qk = a->qk;
    p->norms = a->norms;
    p->norm_plus_one = a->scale == XLARUN__SCALE_GEMMA;

    /* shapes */
    XLARUN__TRY(xlarun__cfg_uint(r, "vocab_size", 1, 1, XLARUN_MAX_VOCAB, 0, &c->vocab_size, err));
    XLARUN__TRY(xlarun__cfg_uint(r, "hidden_size", 1, 1, XLARUN_MAX_HIDDEN, 0, &c->hidden_size, err));
    XLARUN__TRY(xlarun__cfg_uint(r, "intermediate_size", 1, 1, XLARUN_MAX_INTERMEDIATE, 0, &c->intermediate_size, err));
    XLARUN__TRY(xlarun__cfg_uint(r, "num_hidden_layers", 1, 1, XLARUN_MAX_LAYERS, 0, &c->n_layers, err));
    XLARUN__TRY(xlarun__cfg_uint(r, "num_attention_heads", 1, 1, XLARUN_MAX_HEADS, 0, &c->n_heads, err));
    XLARUN__TRY(xlarun__cfg_uint(r, "num_key_value_heads", 0, 1, XLARUN_MAX_HEADS, /* null: the heads */
                                 xlarun__cfg_get(r, root, "num_key_value_heads") == XLARUN__NONE && a->kv_heads ? a->kv_heads : c->n_heads,
                                 &c->n_kv_heads, err));
    if (!xlarun__cfg_set(r, root, "head_dim") && c->hidden_size % c->n_heads && !a->head_dim)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "config.json: hidden_size %u is not divisible by num_attention_heads %u (and no head_dim is given)",
                            c->hidden_size, c->n_heads);
    XLARUN__TRY(xlarun__cfg_uint(r, "head_dim", 0, 2, XLARUN_MAX_HEAD_DIM, a->head_dim ? a->head_dim : c->hidden_size / c->n_heads,
                                 &c->head_dim, err));
    if (c->head_dim % 2 || c->head_dim == 0)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: head_dim %u must be even for RoPE", c->head_dim);
    if (c->n_heads % c->n_kv_heads)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "config.json: num_attention_heads %u is not a multiple of num_key_value_heads %u",
                            c->n_heads, c->n_kv_heads);
    if (!a->head_dim_free && c->head_dim * c->n_heads != c->hidden_size) /* transformers versions differ */
        return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                            "config.json: head_dim %u with %s is not supported (it must be hidden_size / num_attention_heads, %u)",
                            c->head_dim, a->cls, c->hidden_size / c->n_heads);
    if (XLARUN__CAST(uint64_t, c->n_heads) * c->head_dim > (1u << 20))
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: num_attention_heads x head_dim is over %u", 1u << 20);
    XLARUN__TRY(xlarun__cfg_uint(r, "max_position_embeddings", 0, 1, XLARUN_MAX_POSITIONS, a->max_pos, &c->max_position_embeddings, err));
    XLARUN__TRY(xlarun__cfg_float(r, root, "", "rms_norm_eps", 0, 0.0, 1.0, a->eps, &d, err));
    c->rms_norm_eps = XLARUN__CAST(float, d);
    XLARUN__TRY(xlarun__cfg_bool(r, "tie_word_embeddings", a->tie, &c->tie_word_embeddings, err));
    p->embed_scale = a->scale == XLARUN__SCALE_GEMMA /* a float32 tensor of hidden_size ** 0.5 */
                         ? XLARUN__CAST(float, sqrt(XLARUN__CAST(double, c->hidden_size))) : 1.0f;
    p->attn_scale = XLARUN__CAST(float, 1.0 / sqrt(XLARUN__CAST(double, c->head_dim)));
    p->residual_scale = p->logit_scale = 1.0f;
    c->rope_dim = c->head_dim;
    p->rope_attn_factor = 1.0f;

    /* RoPE: v4 keys rope_theta + rope_scaling, v5 folds them into rope_parameters. transformers 4
       never reads rope_parameters, and 5 reads rope_scaling in its place when a folder has both */
    rope = xlarun__cfg_get(r, root, "rope_parameters");
    if (!xlarun__json_is_null(&r->j, rope) && text[rope] != '{')
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'rope_parameters' must be an object");
    if (!xlarun__json_is_null(&r->j, rope) && r->version && r->version < 5000) {
        xlarun__cfg_note(r, "", "rope_parameters", "", "transformers 4 does not read it");
        rope = XLARUN__NONE;
    } else if (!xlarun__json_is_null(&r->j, rope) && xlarun__cfg_set(r, root, "rope_scaling") && !(a->local && a->local->local_theta)) {
        xlarun__cfg_note(r, "", "rope_parameters", "", "rope_scaling is read in its place");
        rope = XLARUN__NONE;
    }
    where = "rope_parameters.";
    if (a->local && a->local->local_theta && !xlarun__json_is_null(&r->j, rope)) {
        /* transformers 5's Gemma 3: one object per layer type, the local one unscaled; a theta
           either lacks comes from the top-level key (rope_theta, rope_local_base_freq), then
           the class default. 4.x ignores rope_parameters and 5.x reads only this form. */
        size_t loc = xlarun__cfg_get(r, rope, "sliding_attention");
        double local_def;
        rope = xlarun__cfg_get(r, rope, "full_attention");
        if (xlarun__json_is_null(&r->j, rope) || text[rope] != '{' || xlarun__json_is_null(&r->j, loc) || text[loc] != '{')
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                                "config.json: rope_parameters with %s must hold the objects full_attention and sliding_attention (transformers 5's form)", a->cls);
        if (xlarun__cfg_set(r, root, "rope_scaling"))
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: rope_scaling next to rope_parameters is not supported");
        xlarun__rope_type(r, loc, buf, sizeof buf);
        if (strcmp(buf, "default"))
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED,
                                "config.json: rope type '%s' in rope_parameters.sliding_attention is not supported (supported: default)", buf);
        if (xlarun__cfg_set(r, loc, "rope_theta")) local_def = 0.0;
        else XLARUN__TRY(xlarun__cfg_float(r, root, "", "rope_local_base_freq", 0, 0.0, 1e30, 10000.0, &local_def, err));
        XLARUN__TRY(xlarun__cfg_float(r, loc, "rope_parameters.sliding_attention.", "rope_theta", 0, 0.0, 1e30, local_def, &local_theta, err));
        c->rope_local_theta = XLARUN__CAST(float, local_theta);
        where = "rope_parameters.full_attention.";
    }
    /* the top-level rope_theta: v4's, and the default of a theta rope_parameters lacks (as transformers 5 reads it) */
    if (!xlarun__json_is_null(&r->j, rope) && xlarun__cfg_set(r, rope, "rope_theta")) d = 0.0;
    else XLARUN__TRY(xlarun__cfg_float(r, root, "", "rope_theta", 0, 0.0, 1e30, a->theta, &d, err));
    if (xlarun__json_is_null(&r->j, rope)) {
        where = "rope_scaling.";
        rope = xlarun__cfg_get(r, root, "rope_scaling");
        if (!xlarun__json_is_null(&r->j, rope) && text[rope] != '{')
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "config.json: 'rope_scaling' must be an object or null");
    } else
        XLARUN__TRY(xlarun__cfg_float(r, rope, where, "rope_theta", 0, 0.0, 1e30, d, &d, err));
    c->rope_theta = XLARUN__CAST(float, d);
    c->rope_type = XLARUN_ROPE_DEFAULT;
    c->rope_factor = 1.0f;
    r->rope = rope;
    r->where = where;
    if (!xlarun__json_is_null(&r->j, rope)) {
        unsigned t;
        xlarun__rope_type(r, rope, buf, sizeof buf);
        for (t = 0; t < 4 && strcmp(buf, xlarun__rope_names[t]); t++) {}
        if (!strcmp(buf, "su") || !strcmp(buf, "yarn")) t = XLARUN_ROPE_LONGROPE; /* longrope's names before transformers renamed it */
        if (t == 4 || !(a->rope_types & 1u << t)) {
            if (a->rope_why) /* versions differ */
                return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: rope type '%s' with %s is not supported (%s)", buf, a->cls, a->rope_why);
            for (i = 0, list[0] = 0; i < 4; i++)
                if (a->rope_types & 1u << i)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", xlarun__rope_names[i]);
            return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "config.json: rope type '%s' is not supported (supported: %s)", buf, list);
        }
        c->rope_type = XLARUN__CAST(xlarun_rope_type, t);
        if (t == XLARUN_ROPE_LINEAR || t == XLARUN_ROPE_LLAMA3) {
            XLARUN__TRY(xlarun__cfg_float(r, rope, where, "factor", 1, 0.0, 1e9, 1.0, &d, err));
            c->rope_factor = XLARUN__CAST(float, d);
        }
        if (t == XLARUN_ROPE_LLAMA3) {
            uint64_t om;
            XLARUN__TRY(xlarun__cfg_float(r, rope, where, "low_freq_factor", 1, 0.0, 1e9, 1.0, &d, err));
            c->rope_low_freq_factor = XLARUN__CAST(float, d);
            XLARUN__TRY(xlarun__cfg_float(r, rope, where, "high_freq_factor", 1, 0.0, 1e9, 1.0, &d, err));
            c->rope_high_freq_factor = XLARUN__CAST(float, d);
            v = xlarun__cfg_get(r, rope, "original_max_position_embeddings");
            if (r->version >= 5000) { /* transformers 5: the top-level key wins, max_position_embeddings when neither is there */
                size_t top = xlarun__cfg_get(r, root, "original_max_position_embeddings");
                if (!xlarun__json_is_null(&r->j, top)) v = top, where = "";
                else if (xlarun__json_is_null(&r->j, v)) {
                    xlarun__cfg_note_num(r, r->where, "original_max_position_embeddings", c->max_position_embeddings);
                    v = XLARUN__NONE, om = c->max_position_embeddings;
                }
            }
            if (v != XLARUN__NONE || r->version < 5000)
                if (!xlarun__json_uint(&r->j, v == XLARUN__NONE ? 0 : v, XLARUN_MAX_POSITIONS, &om) || om == 0)
                    return xlarun__fail(err, XLARUN_ERR_FORMAT,
                                        "config.json: '%soriginal_max_position_embeddings' must be a positive integer", where);
            where = r->where;
            c->rope_original_max_position_embeddings = XLARUN__CAST(uint32_t, om);
            if (!(c->rope_high_freq_factor > c->rope_low_freq_factor))
                return xlarun__fail(err, XLARUN_ERR_FORMAT,
                                    "config.json: %shigh_freq_factor must be larger than low_freq_factor", where);
        }
    }

    /* the window, the multipliers, the mixture, and the family's own keys */
    if (a->window == XLARUN__WIN_ALL) /* null is none; a missing key the class's default */
        XLARUN__TRY(xlarun__cfg_uint(r, "sliding_window", 0, 1, XLARUN_MAX_POSITIONS,
                                     xlarun__cfg_get(r, root, "sliding_window") == XLARUN__NONE ? a->window_def : 0, &c->sliding_window, err));
    if (a->scale == XLARUN__SCALE_GRANITE) { /* each 1 when missing; applied in f32 as Python floats are on f32 tensors */
        static const char *const keys[4] = {"embedding_multiplier", "attention_multiplier", "residual_multiplier", "logits_scaling"};
        float *at[4];
        at[0] = &p->embed_scale; at[1] = &p->attn_scale; at[2] = &p->residual_scale; at[3] = &p->logit_scale;
        for (i = 0; i < 4; i++) {
            XLARUN__TRY(xlarun__cfg_float(r, root, "", keys[i], 0, 0.0, 1e30, 1.0, &d, err));
            *at[i] = XLARUN__CAST(float, d);
        }
    }
    if (a->moe) XLARUN__TRY(xlarun__parse_moe(r, c, p, err));
    if (a->own) XLARUN__TRY(a->own(r, c, p, err));
    XLARUN__TRY(xlarun__cfg_ids(r, "bos_token_id", bos, XLARUN_MAX_EOS, &nbos, err));
    c->bos_token_id = nbos ? bos[0] : -1;
    XLARUN__TRY(xlarun__cfg_ids(r, "eos_token_id", c->eos_token_ids, XLARUN_MAX_EOS, &c->n_eos, err));
    xlarun__plan_tensors(c, p);
    return XLARUN_OK;
}

/* transformers' inv_freq (its _compute_default_rope_parameters), step by step in f32; longrope's with its long
   factors when lng */
static void xlarun__rope_freqs(const xlarun_config *c, const xlarun__plan *p, float *inv, int lng) {
    uint32_t j, half = c->rope_dim / 2;
    const float *ext = lng ? p->rope_ext_long : p->rope_ext;
    for (j = 0; j < half; j++) {
        float e = XLARUN__CAST(float, 2 * j) / XLARUN__CAST(float, c->rope_dim);
        inv[j] = 1.0f / (c->rope_type == XLARUN_ROPE_LONGROPE ? ext[j] * powf(c->rope_theta, e) : powf(c->rope_theta, e));
    }
    if (c->rope_type == XLARUN_ROPE_LINEAR)
        for (j = 0; j < half; j++) inv[j] = inv[j] / c->rope_factor;
    if (c->rope_type == XLARUN_ROPE_LLAMA3) {
        double L = c->rope_original_max_position_embeddings;
        float low_wl = XLARUN__CAST(float, L / XLARUN__CAST(double, c->rope_low_freq_factor));
        float high_wl = XLARUN__CAST(float, L / XLARUN__CAST(double, c->rope_high_freq_factor));
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

static xlarun_k_type xlarun__ktype(xlarun_dtype d) {
    return d == XLARUN_DTYPE_F32 ? XLARUN_K_F32 : d == XLARUN_DTYPE_F16 ? XLARUN_K_F16 : XLARUN_K_BF16;
}

/* check a tensor the model needs against config.json before any of its bytes are used */
static xlarun_status xlarun__check_tensor(const xlarun_model *m, int slot, const xlarun_st_tensor *t,
                                          const char *file, xlarun_error *err) {
    uint64_t want[2];
    int nd = xlarun__slot_shape(m, slot, want);
    char got[160], exp[64];
    if (t->dtype == XLARUN_DTYPE_I8 || t->dtype == XLARUN_DTYPE_U8) { /* q8_0 codes [rows,K], q4_0 [rows,K/2] */
        if (nd != 2)
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is quantized (%s); norms and biases must be F32, F16 or BF16",
                                file, t->name, xlarun_dtype_name(t->dtype));
        if (want[1] % XLARUN_K_QBLOCK)
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is quantized, but its rows of %llu weights are not a multiple of the %d-weight block",
                                file, t->name, XLARUN__CAST(unsigned long long, want[1]), XLARUN_K_QBLOCK);
        if (t->dtype == XLARUN_DTYPE_U8) want[1] /= 2;
    } else if (t->dtype != XLARUN_DTYPE_F32 && t->dtype != XLARUN_DTYPE_F16 && t->dtype != XLARUN_DTYPE_BF16)
        return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: tensor '%s' has dtype %s; xlarun reads F32, F16 and BF16 (and I8/U8 quantized matrices)",
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

/* "<matrix name>_scale": the slot of that matrix, -2 for a layer past n_layers, else -1 */
static int xlarun__scale_slot(const xlarun_model *m, const char *name) {
    char base[160];
    size_t n = strlen(name);
    int slot;
    if (n < 7 || n - 6 >= sizeof base || strcmp(name + n - 6, "_scale")) return -1;
    memcpy(base, name, n - 6);
    base[n - 6] = 0;
    slot = xlarun__slot_of(m, base);
    return slot == -2 || (slot >= 0 && xlarun__is_matrix_slot(m, slot)) ? slot : -1;
}

/* the f16 block scales of a quantized matrix: [rows, K/32] */
static xlarun_status xlarun__check_scale(const xlarun_model *m, int slot, const xlarun_st_tensor *t,
                                         const char *file, xlarun_error *err) {
    uint64_t want[2];
    char got[160];
    xlarun__slot_shape(m, slot, want);
    if (t->dtype != XLARUN_DTYPE_F16)
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' has dtype %s; quantization scales are F16",
                            file, t->name, xlarun_dtype_name(t->dtype));
    if (t->ndim != 2 || t->shape[0] != want[0] || t->shape[1] != want[1] / XLARUN_K_QBLOCK || want[1] % XLARUN_K_QBLOCK) {
        xlarun__shape_str(t, got, sizeof got);
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' has shape %s, but config.json implies [%llu,%llu] (one scale per %d weights)",
                            file, t->name, got, XLARUN__CAST(unsigned long long, want[0]),
                            XLARUN__CAST(unsigned long long, want[1] / XLARUN_K_QBLOCK), XLARUN_K_QBLOCK);
    }
    return XLARUN_OK;
}

/* a shard with quantized matrices says so in __metadata__: "xlarun.quant" q8_0 or q4_0 (the
   tensors' own dtypes decide each one's type), "xlarun.block" 32 when present */
static xlarun_status xlarun__check_quant_meta(const xlarun_model *m, const xlarun_st_reader *r, const char *file,
                                              xlarun_error *err) {
    char q[64], blk[64];
    int has = xlarun_st_metadata(r, "xlarun.quant", q, sizeof q);
    size_t i;
    if (has && strcmp(q, "q8_0") && strcmp(q, "q4_0"))
        return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: __metadata__ \"xlarun.quant\" is \"%s\"; xlarun reads q8_0 and q4_0",
                            file, q);
    if (xlarun_st_metadata(r, "xlarun.block", blk, sizeof blk) && strcmp(blk, "32"))
        return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: __metadata__ \"xlarun.block\" is \"%s\"; xlarun reads blocks of 32",
                            file, blk);
    for (i = 0; i < r->n_tensors && !has; i++) {
        const xlarun_st_tensor *t = &r->tensors[i];
        if ((t->dtype == XLARUN_DTYPE_I8 || t->dtype == XLARUN_DTYPE_U8) && xlarun__slot_of(m, t->name) >= 0)
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is %s, but the file has no \"xlarun.quant\" in __metadata__",
                                file, t->name, xlarun_dtype_name(t->dtype));
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
/* the slot a tensor fills (*scale = 1 for a matrix's "_scale" tensor), -1: unused, -2: past n_layers */
static int xlarun__tensor_slot(const xlarun_model *m, const char *name, int *scale) {
    int slot = xlarun__slot_of(m, name);
    *scale = 0;
    if (slot == -1 && (slot = xlarun__scale_slot(m, name)) != -1) *scale = 1;
    return slot;
}

/* check one tensor of a shard against config.json by its name (names the model does not use pass) */
static xlarun_status xlarun__check_named(const xlarun_model *m, const xlarun_st_tensor *t, const char *path,
                                         xlarun_error *err) {
    int sc, slot = xlarun__tensor_slot(m, t->name, &sc);
    if (slot == -2)
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is past num_hidden_layers %u in config.json",
                            path, t->name, m->cfg.n_layers);
    if (slot >= 0) return (sc ? xlarun__check_scale : xlarun__check_tensor)(m, slot, t, path, err);
    return XLARUN_OK;
}

static xlarun_status xlarun__take(xlarun__loader *L, int shard, const xlarun_st_tensor *t,
                                  const void *bytes, int slot, int scale, const char *path, xlarun_error *err) {
    xlarun__slot *s = &L->slots[slot];
    if (scale) {
        if (s->scale_found)
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is also in an earlier shard", path, t->name);
        s->scale_found = 1;
        s->scale = bytes;
        return XLARUN_OK;
    }
    if (s->found) {
        char name[160];
        xlarun__slot_name(L->m, slot, name, sizeof name);
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is also in an earlier shard", path, name);
    }
    s->found = 1;
    s->shard = shard;
    s->dtype = t->dtype;
    s->data = bytes;
    if (!xlarun__is_matrix_slot(L->m, slot)) {
        size_t n = XLARUN__CAST(size_t, t->shape[0]);
        float *f = XLARUN__CAST(float *, xlarun__alloc_ex(L->a, n * sizeof(float), 0, 0));
        if (!f) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small for the norm and bias weights");
        if (bytes) xlarun_k_to_f32(xlarun__ktype(t->dtype), bytes, f, n);
        if (bytes && L->m->plan.norm_plus_one && xlarun__slot_cls(L->m, slot) == XLARUN__C_NORM) { /* Gemma: x * (1 + w), 1 + w in f32 */
            size_t i;
            for (i = 0; i < n; i++) f[i] = 1.0f + f[i];
        }
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
    for (i = 0; i < r.n_tensors; i++)
        if ((st = xlarun__check_named(L->m, &r.tensors[i], path, err)) != XLARUN_OK) {
            xlarun__file_close(&f);
            return st;
        }
    if ((st = xlarun__check_quant_meta(L->m, &r, path, err)) != XLARUN_OK) {
        xlarun__file_close(&f);
        return st;
    }
#if defined(XLARUN__MMAP)
    if (!stream) {
        unsigned char *base = NULL;
        if (!xlarun__measuring(L->a)) {
            xlarun__map *mp = &L->m->maps[shard];
            void *p = xlarun__map_file(&f);
            if (!p) {
                xlarun__file_close(&f);
                return xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot map %llu bytes", path, XLARUN__CAST(unsigned long long, f.size));
            }
            mp->addr = p;
            mp->bytes = f.size;
            L->m->mapped_bytes += f.size;
            xlarun__advise_huge(p, f.size); /* pages not yet cached are read in as 2 MB folios */
            base = XLARUN__CAST(unsigned char *, p);
        }
        xlarun__file_close(&f);
        for (i = 0; i < r.n_tensors && st == XLARUN_OK; i++) {
            const xlarun_st_tensor *t = &r.tensors[i];
            int sc, slot = xlarun__tensor_slot(L->m, t->name, &sc);
            if (slot >= 0) st = xlarun__take(L, shard, t, base ? base + t->offset : NULL, slot, sc, path, err);
        }
        L->a->high = mark;
        return st;
    }
#endif
    /* streaming: tensors in file order into the model's memory; a measuring pass stops here */
#if defined(XLARUN__MMAP)
    if (!xlarun__measuring(L->a)) /* the free middle of the arena, where the weights go */
        xlarun__advise_huge(L->a->base + L->a->low, L->a->size - L->a->low - L->a->high);
#endif
    for (i = 0; i < r.n_tensors && st == XLARUN_OK; i++) {
        const xlarun_st_tensor *t = &r.tensors[i];
        int sc, slot = xlarun__tensor_slot(L->m, t->name, &sc), temp;
        void *dst = NULL;
        size_t got, tmark = L->a->high;
        if (slot < 0) continue;
        temp = !sc && !xlarun__is_matrix_slot(L->m, slot);
        /* + XLARUN__ALIGN: each tensor keeps its file offset's place in a 64-byte line, as a mapped
           file has it, so that the AMX-BF16 tiles' steps (xlarun_k__bamx's WINDOWS)
           and with them every bit are the same however the weights were loaded */
        if (t->nbytes > SIZE_MAX / 2 ||
            !(dst = xlarun__alloc_ex(L->a, XLARUN__CAST(size_t, t->nbytes) + XLARUN__ALIGN, temp, 1))) {
            if (!xlarun__measuring(L->a))
                st = xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small for tensor '%s'", t->name);
            else if (t->nbytes > SIZE_MAX / 2)
                st = xlarun__fail(err, XLARUN_ERR_MEMORY, "tensor '%s' is too large", t->name);
        }
        if (dst) dst = XLARUN__CAST(unsigned char *, dst) + XLARUN__CAST(size_t, t->offset % XLARUN__ALIGN);
        if (st == XLARUN_OK && dst) {
            const xlarun_st_tensor *cur = NULL;
            while (st == XLARUN_OK && cur != t) st = xlarun_st_next(&r, &cur, err);
            if (st == XLARUN_OK) st = xlarun_st_read(&r, dst, XLARUN__CAST(size_t, t->nbytes), &got, err);
        }
        if (st == XLARUN_OK) st = xlarun__take(L, shard, t, dst, slot, sc, path, err);
        if (temp) L->a->high = tmark; /* the raw norm bytes were temporary */
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
        slot = xlarun__slot_of(L->m, tname);
        if (slot >= 0) L->slots[slot].index_shard = XLARUN__CAST(int, i);
    }
    if (n == 0) return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: weight_map names no shards", what);
    *n_names = n;
    return XLARUN_OK;
}

/* the typed view of a checked matrix slot; returns the bytes one token reads from it */
static uint64_t xlarun__view(xlarun_model *m, const xlarun__slot *sl, int slot, xlarun__weight *w) {
    uint64_t shape[2];
    xlarun__slot_shape(m, slot, shape);
    w->data = sl->data;
    w->type = xlarun__ktype(sl->dtype);
    w->scale = NULL;
    w->qtype = XLARUN_K_Q8_0;
    if (sl->dtype == XLARUN_DTYPE_I8 || sl->dtype == XLARUN_DTYPE_U8) {
        w->scale = sl->scale;
        w->qtype = sl->dtype == XLARUN_DTYPE_I8 ? XLARUN_K_Q8_0 : XLARUN_K_Q4_0;
        m->quantized = 1;
        return shape[0] * (xlarun_k_qrow_bytes(w->qtype, XLARUN__CAST(size_t, shape[1])) + shape[1] / XLARUN_K_QBLOCK * 2);
    }
    return shape[0] * shape[1] * xlarun_k_type_size(w->type);
}

/* the view of w from row r0 on (rows of K weights): *out shares w's storage */
static void xlarun__rows(const xlarun__weight *w, size_t r0, size_t K, xlarun__weight *out) {
    *out = *w;
    if (w->scale) {
        out->data = XLARUN__CAST(const char *, w->data) + r0 * xlarun_k_qrow_bytes(w->qtype, K);
        out->scale = XLARUN__CAST(const char *, w->scale) + r0 * (K / XLARUN_K_QBLOCK) * 2;
    } else
        out->data = XLARUN__CAST(const char *, w->data) + r0 * K * xlarun_k_type_size(w->type);
}

/* after every shard: slot i was found (unless a tied lm_head), in the shard the index names,
   with its block scales exactly when it is quantized */
static xlarun_status xlarun__check_slot(const xlarun__loader *L, int i, const char *const *names, xlarun_error *err) {
    char name[160];
    const xlarun__slot *sl = &L->slots[i];
    const xlarun_model *m = L->m;
    const xlarun_config *c = &m->cfg;
    const xlarun__arch_desc *a = m->plan.a;
    uint32_t l, e;
    const xlarun__tdesc *d = xlarun__slot_desc(m, i, &l, &e);
    if (!xlarun__tensor_used(m, l, d)) return XLARUN_OK;
    xlarun__slot_name(m, i, name, sizeof name);
    if (!sl->found) { /* why the model needs it, by its need */
        switch (d->need) {
        case XLARUN__N_SPARSE: case XLARUN__N_SHARED:
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (layer %u is a mixture of %u experts%s)",
                                L->dir, name, l, c->n_experts, d->kind == XLARUN__W_ROUTER ? "; this is its router"
                                                               : d->need == XLARUN__N_SHARED ? " and a shared expert" : "");
        case XLARUN__N_SANDWICH: case XLARUN__N_NORM_AFTER:
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (%s normalizes the MLP's %s)",
                                L->dir, name, a->cls, m->plan.norms == XLARUN__NORMS_POST ? "output" : "input and output");
        case XLARUN__N_QK_NORM:
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (%s normalizes %s of q and k)",
                                L->dir, name, a->cls, m->plan.qk == XLARUN__QK_WHOLE ? "the whole" : "each head");
        case XLARUN__N_QKV_BIAS: case XLARUN__N_O_BIAS: case XLARUN__N_MLP_BIAS:
            if (a->bias == XLARUN__BIAS_QKV && d->need == XLARUN__N_QKV_BIAS)
                return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (%s has q, k and v biases)", L->dir, name, a->cls);
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (config.json has %s true)", L->dir, name,
                                d->need == XLARUN__N_MLP_BIAS ? "mlp_bias" : a->bias == XLARUN__BIAS_QKV_KEY ? "qkv_bias" : "attention_bias");
        case XLARUN__N_DENSE:
            if (c->n_experts)
                return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (layer %u has a dense MLP: mlp_only_layers, decoder_sparse_step)",
                                    L->dir, name, l);
            break;
        case XLARUN__N_UNTIED:
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (config.json has tie_word_embeddings false)", L->dir, name);
        default: break;
        }
        if (d->kind == XLARUN__W_QKV || d->kind == XLARUN__W_GATE_UP)
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (%s keeps %s in one matrix; separate ones are not read)",
                                L->dir, name, a->cls, d->kind == XLARUN__W_QKV ? "q, k and v" : "gate and up");
        if (i >= XLARUN__N_GLOBAL)
            return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s' (config.json has num_hidden_layers %u)",
                                L->dir, name, c->n_layers);
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s'", L->dir, name);
    }
    if (sl->index_shard >= 0 && sl->index_shard != sl->shard)
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is in %s, but model.safetensors.index.json says %s",
                            L->dir, name, names[sl->shard], names[sl->index_shard]);
    if ((sl->dtype == XLARUN_DTYPE_I8 || sl->dtype == XLARUN_DTYPE_U8) && !sl->scale_found)
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: missing tensor '%s_scale' (the block scales of the quantized '%s')",
                            L->dir, name, name);
    if (sl->scale_found && sl->dtype != XLARUN_DTYPE_I8 && sl->dtype != XLARUN_DTYPE_U8)
        return xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s_scale' is present, but '%s' is %s, not quantized",
                            L->dir, name, name, xlarun_dtype_name(sl->dtype));
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
    XLARUN__TRY(xlarun__parse_config(text, len, &m->cfg, &m->plan, NULL, err));
    a->high = mark;

    L.n_slots = xlarun__n_slots(m);
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
    for (i = 0; i < L.n_slots; i++) XLARUN__TRY(xlarun__check_slot(&L, i, names, err));
    a->high = mark;

    /* typed views */
    m->layers = XLARUN__CAST(xlarun__layer *, xlarun__alloc_ex(a, sizeof(xlarun__layer) * m->cfg.n_layers, 0, 0));
    m->inv_freq = XLARUN__CAST(float *, xlarun__alloc_ex(a, sizeof(float) * (m->cfg.head_dim / 2), 0, 0));
    if (!m->layers || !m->inv_freq) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small");
    if (m->cfg.rope_local_theta > 0.0f && m->plan.sliding_pattern != 1) {
        m->inv_freq_local = XLARUN__CAST(float *, xlarun__alloc_ex(a, sizeof(float) * (m->cfg.head_dim / 2), 0, 0));
        if (!m->inv_freq_local) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small");
    }
    if (m->cfg.rope_type == XLARUN_ROPE_LONGROPE) {
        m->inv_freq_long = XLARUN__CAST(float *, xlarun__alloc_ex(a, sizeof(float) * (m->cfg.head_dim / 2), 0, 0));
        if (!m->inv_freq_long) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small");
    }
    xlarun__view(m, &L.slots[XLARUN__W_EMBED], XLARUN__W_EMBED, &m->embed);
    i = m->cfg.tie_word_embeddings ? XLARUN__W_EMBED : XLARUN__W_LM_HEAD;
    m->weight_bytes = xlarun__view(m, &L.slots[i], i, &m->lm_head);
    m->final_norm = XLARUN__CAST(const float *, L.slots[XLARUN__W_FINAL_NORM].data);
    for (l = 0; l < m->cfg.n_layers; l++) {
        const xlarun__plan *p = &m->plan;
        int base = XLARUN__N_GLOBAL + XLARUN__CAST(int, l) * p->stride, t, E = XLARUN__CAST(int, m->cfg.n_experts);
        xlarun__layer *ly = &m->layers[l];
        uint64_t experts = 0;
        memset(ly, 0, sizeof *ly);
        ly->window = p->sliding_pattern && (l + 1) % p->sliding_pattern == 0 ? 0 : m->cfg.sliding_window;
        ly->local_rope = ly->window && m->cfg.rope_local_theta > 0.0f;
        ly->no_rope = p->no_rope[l];
        if (p->moe[l]) {
            ly->experts = XLARUN__CAST(xlarun__weight *, xlarun__alloc_ex(a, sizeof(xlarun__weight) * XLARUN__CAST(size_t, 3 * E + 4), 0, 0));
            if (!ly->experts) return xlarun__fail(err, XLARUN_ERR_MEMORY, "model memory too small");
        }
        for (t = 0; t < p->n_lt; t++) { /* each tensor kind the layer reads, to its place */
            const xlarun__tdesc *d = p->lt[t];
            int s0 = base + p->lt_slot[t], n = xlarun__per_expert(d) ? E : 1, e;
            const float *f = XLARUN__CAST(const float *, L.slots[s0].data);
            xlarun__weight *w = NULL;
            if (!xlarun__tensor_used(m, XLARUN__CAST(uint32_t, l), d)) continue;
            switch (d->kind) {
            case XLARUN__W_ATTN_NORM: ly->attn_norm = f; break;
            case XLARUN__W_MLP_NORM: ly->mlp_norm = f; break;
            case XLARUN__W_Q_NORM: ly->q_norm = f; break;
            case XLARUN__W_K_NORM: ly->k_norm = f; break;
            case XLARUN__W_PRE_FFN_NORM: ly->pre_ffn_norm = f; break;
            case XLARUN__W_POST_FFN_NORM: ly->post_ffn_norm = f; break;
            case XLARUN__W_Q_BIAS: ly->q_bias = f; break;
            case XLARUN__W_K_BIAS: ly->k_bias = f; break;
            case XLARUN__W_V_BIAS: ly->v_bias = f; break;
            case XLARUN__W_O_BIAS: ly->o_bias = f; break;
            case XLARUN__W_GATE_BIAS: ly->gate_bias = f; break;
            case XLARUN__W_UP_BIAS: ly->up_bias = f; break;
            case XLARUN__W_DOWN_BIAS: ly->down_bias = f; break;
            case XLARUN__W_Q: case XLARUN__W_QKV: w = &ly->q; break; /* Phi-3: k and v are views into it, below */
            case XLARUN__W_K: w = &ly->k; break;
            case XLARUN__W_V: w = &ly->v; break;
            case XLARUN__W_O: w = &ly->o; break;
            case XLARUN__W_GATE: case XLARUN__W_GATE_UP: w = &ly->gate; break;
            case XLARUN__W_UP: w = &ly->up; break;
            case XLARUN__W_DOWN: w = &ly->down; break;
            case XLARUN__W_ROUTER: w = &ly->router; break;
            case XLARUN__W_SHARED_GATE: case XLARUN__W_SHARED_UP: case XLARUN__W_SHARED_DOWN: case XLARUN__W_SHARED_ROUTER:
                w = &ly->experts[3 * E + d->kind - XLARUN__W_SHARED_GATE];
                break;
            default: /* an expert's gate, up or down: experts[3 * e + 0, 1, 2]; a token reads n_experts_used
                        of them, on average that share of all */
                for (e = 0; e < n; e++)
                    experts += xlarun__view(m, &L.slots[s0 + e], s0 + e, &ly->experts[3 * e + d->kind - XLARUN__W_EXPERT_GATE]);
                break;
            }
            if (w) m->weight_bytes += xlarun__view(m, &L.slots[s0], s0, w);
        }
        if (E) m->weight_bytes += experts / m->cfg.n_experts * m->cfg.n_experts_used;
        if (p->fused) { /* Phi-3: k and v are rows of qkv_proj after q's, up rows of gate_up_proj after gate's */
            size_t qd = XLARUN__CAST(size_t, m->cfg.n_heads) * m->cfg.head_dim, kvd = XLARUN__CAST(size_t, m->cfg.n_kv_heads) * m->cfg.head_dim;
            xlarun__rows(&ly->q, qd, m->cfg.hidden_size, &ly->k);
            xlarun__rows(&ly->q, qd + kvd, m->cfg.hidden_size, &ly->v);
            xlarun__rows(&ly->gate, m->cfg.intermediate_size, m->cfg.hidden_size, &ly->up);
        }
    }
    xlarun__rope_freqs(&m->cfg, &m->plan, m->inv_freq, 0);
    if (m->inv_freq_long) xlarun__rope_freqs(&m->cfg, &m->plan, m->inv_freq_long, 1);
    if (m->inv_freq_local) { /* Gemma 3's local layers: rope_local_base_freq, default RoPE */
        xlarun_config lc = m->cfg;
        lc.rope_theta = m->cfg.rope_local_theta;
        lc.rope_type = XLARUN_ROPE_DEFAULT;
        xlarun__rope_freqs(&lc, &m->plan, m->inv_freq_local, 0);
    }
    m->magic = XLARUN__MODEL_MAGIC;
    return XLARUN_OK;
}

static void xlarun__model_unmap(xlarun_model *m) {
#if defined(XLARUN__MMAP)
    uint32_t i;
    for (i = 0; m->maps && i < m->n_maps; i++)
        if (m->maps[i].addr) xlarun__unmap(m->maps[i].addr, m->maps[i].bytes);
#else
    (void)m;
#endif
}

static const xlarun_model_options *xlarun__model_opts(const xlarun_model_options *opt) {
    static const xlarun_model_options defaults = {0, NULL, NULL};
    return opt ? opt : &defaults;
}

typedef struct xlarun__model_args { const char *dir; const xlarun_model_options *opt; } xlarun__model_args;

static xlarun_status xlarun__model_build_cb(xlarun__arena *a, const void *args, void **obj, xlarun_error *err) {
    const xlarun__model_args *x = XLARUN__CAST(const xlarun__model_args *, args);
    xlarun_model *o = NULL;
    xlarun_status st = xlarun__model_build(a, x->dir, x->opt, &o, err);
    *obj = o;
    return st;
}
static void xlarun__model_undo(void *m) { xlarun__model_unmap(XLARUN__CAST(xlarun_model *, m)); }
static const xlarun__builder xlarun__model_builder = {xlarun__model_build_cb, xlarun__model_undo, "model"};

XLARUN_API xlarun_status xlarun_model_memory(const char *dir, const xlarun_model_options *opt,
                                             size_t *bytes, xlarun_error *err) {
    xlarun__model_args x;
    if (bytes) *bytes = 0;
    if (!dir || !bytes) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_model_memory: NULL argument");
    x.dir = dir;
    x.opt = xlarun__model_opts(opt);
    return xlarun__measure(&xlarun__model_builder, &x, x.opt->alloc_user, bytes, err);
}

XLARUN_API xlarun_status xlarun_model_open_in(const char *dir, const xlarun_model_options *opt,
                                              void *mem, size_t bytes, xlarun_model **out,
                                              xlarun_error *err) {
    xlarun__model_args x;
    void *obj;
    if (out) *out = NULL;
    if (!dir || !mem || !out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_model_open_in: NULL argument");
    x.dir = dir;
    x.opt = xlarun__model_opts(opt);
    XLARUN__TRY(xlarun__build_in(&xlarun__model_builder, &x, x.opt->alloc_user, mem, bytes, dir, &obj, err));
    *out = XLARUN__CAST(xlarun_model *, obj);
    (*out)->alloc_user = x.opt->alloc_user;
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_model_open(const char *dir, const xlarun_model_options *opt,
                                           xlarun_model **out, xlarun_error *err) {
    xlarun__model_args x;
    void *obj = NULL, *own = NULL;
    if (out) *out = NULL;
    if (!dir || !out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_model_open: NULL argument");
    x.dir = dir;
    x.opt = xlarun__model_opts(opt);
    XLARUN__TRY(xlarun__build_alloc(&xlarun__model_builder, &x, x.opt->alloc_user, dir, &obj, &own, err));
    *out = XLARUN__CAST(xlarun_model *, obj);
    (*out)->alloc_user = x.opt->alloc_user;
    (*out)->own = own;
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

/* an open model; a closed one answers NULL / 0 below, as a NULL one */
static int xlarun__model_ok(const xlarun_model *m) { return m && m->magic == XLARUN__MODEL_MAGIC; }
XLARUN_API const xlarun_config *xlarun_model_config(const xlarun_model *m) { return xlarun__model_ok(m) ? &m->cfg : NULL; }
XLARUN_API uint64_t xlarun_model_mapped_bytes(const xlarun_model *m) { return xlarun__model_ok(m) ? m->mapped_bytes : 0; }
XLARUN_API uint64_t xlarun_model_weight_bytes(const xlarun_model *m) { return xlarun__model_ok(m) ? m->weight_bytes : 0; }

/* one name for how a matrix is stored: its float dtype, or its quantization */
static const char *xlarun__weight_kind(const xlarun__weight *w) {
    static const char *const floats[] = {"f32", "f16", "bf16"};
    if (w->scale) return w->qtype == XLARUN_K_Q8_0 ? "q8_0" : "q4_0";
    return XLARUN__CAST(unsigned, w->type) < sizeof floats / sizeof *floats ? floats[w->type] : "?";
}

XLARUN_API const char *xlarun_model_dtype(const xlarun_model *m) {
    const char *kind;
    uint32_t l;
    if (!m || m->magic != XLARUN__MODEL_MAGIC) return "?";
    kind = xlarun__weight_kind(&m->layers[0].q);
    for (l = 0; l < m->cfg.n_layers; l++) {
        const xlarun__layer *ly = &m->layers[l];
        const xlarun__weight *w[7];
        int k, n = ly->experts ? 4 : 7; /* the experts' matrices in place of gate, up, down */
        w[0] = &ly->q; w[1] = &ly->k; w[2] = &ly->v; w[3] = &ly->o; w[4] = &ly->gate; w[5] = &ly->up; w[6] = &ly->down;
        for (k = 0; k < n; k++)
            if (strcmp(xlarun__weight_kind(w[k]), kind)) return "mixed";
        n = 3 * XLARUN__CAST(int, m->cfg.n_experts) + (m->cfg.moe_shared_size ? 3 : 0); /* not the shared expert's gate (kept float) */
        for (k = 0; ly->experts && k < n; k++)
            if (strcmp(xlarun__weight_kind(&ly->experts[k]), kind)) return "mixed";
    }
    return kind;
}

/* ============================== 5. EXECUTOR =================================================== */
/* A session: KV cache, activation scratch and a thread pool in one block of memory. The graph
   is fixed and reads top to bottom in xlarun__forward.                                         */

typedef void (*xlarun__task_fn)(void *ctx, uint32_t t, uint32_t nt);

#if !defined(XLARUN_NO_THREADS) /* the few thread primitives the pool needs: pthreads, or Win32's */
#if defined(_WIN32)
typedef HANDLE xlarun__thread;
typedef SRWLOCK xlarun__mutex;
typedef CONDITION_VARIABLE xlarun__cond;
#define xlarun__mutex_init(m) InitializeSRWLock(m)
#define xlarun__mutex_destroy(m) ((void)(m))
#define xlarun__lock(m) AcquireSRWLockExclusive(m)
#define xlarun__unlock(m) ReleaseSRWLockExclusive(m)
#define xlarun__cond_init(c) InitializeConditionVariable(c)
#define xlarun__cond_destroy(c) ((void)(c))
#define xlarun__cond_wait(c, m) SleepConditionVariableSRW((c), (m), INFINITE, 0)
#define xlarun__cond_signal(c) WakeConditionVariable(c)
#define xlarun__cond_broadcast(c) WakeAllConditionVariable(c)
#else
typedef pthread_t xlarun__thread;
typedef pthread_mutex_t xlarun__mutex;
typedef pthread_cond_t xlarun__cond;
#define xlarun__mutex_init(m) pthread_mutex_init((m), NULL)
#define xlarun__mutex_destroy(m) pthread_mutex_destroy(m)
#define xlarun__lock(m) pthread_mutex_lock(m)
#define xlarun__unlock(m) pthread_mutex_unlock(m)
#define xlarun__cond_init(c) pthread_cond_init((c), NULL)
#define xlarun__cond_destroy(c) pthread_cond_destroy(c)
#define xlarun__cond_wait(c, m) pthread_cond_wait((c), (m))
#define xlarun__cond_signal(c) pthread_cond_signal(c)
#define xlarun__cond_broadcast(c) pthread_cond_broadcast(c)
#endif
#endif

typedef struct xlarun__pool {
    uint32_t n;                          /* threads, the caller included */
#if !defined(XLARUN_NO_THREADS)
    uint32_t started;
    xlarun__thread *threads;
    struct xlarun__worker *workers;
    xlarun__mutex mu;
    xlarun__cond go, done;
    uint64_t gen;                        /* bumped (under mu) for each task */
    uint32_t pending;                    /* workers still running the task */
    uint64_t waits;                      /* (under mu) how often a thread slept: a worker for a task,
                                            the caller for the workers (bench's pool_waits_*) */
    int quit;
    xlarun__task_fn fn;
    void *ctx;
#endif
} xlarun__pool;

#if !defined(XLARUN_NO_THREADS)
/* Workers spin a little on the task counter before they sleep: decode hands out some 80 small
   tasks per token, and a futex wake for each would cost more than the work between them. The
   counter is written under the mutex, so a worker that gives up spinning cannot miss a task; one
   that sees it move while spinning takes the task without the mutex, so 15 workers do not queue
   on it for every task on 16 cores. */
#if defined(__GNUC__)
#define XLARUN__LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define XLARUN__STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define XLARUN__DEC(x) __atomic_sub_fetch(&(x), 1, __ATOMIC_ACQ_REL)
#define XLARUN__SPIN 2000 /* pauses, some 30 us: longer than the gaps between tasks */
#if defined(__x86_64__) || defined(__i386__)
#define XLARUN__RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define XLARUN__RELAX() __asm__ __volatile__("yield")
#else
#define XLARUN__RELAX() ((void)0)
#endif
#else /* no atomics known: take the mutex for every look, never spin */
#define XLARUN__SPIN 0
#define XLARUN__STORE(x, v) ((x) = (v))
#define XLARUN__RELAX() ((void)0)
#endif

typedef struct xlarun__worker { xlarun__pool *pool; uint32_t index; } xlarun__worker;

static void *xlarun__worker_main(void *arg) {
    xlarun__worker *w = XLARUN__CAST(xlarun__worker *, arg);
    xlarun__pool *p = w->pool;
    uint64_t seen = 0;
    for (;;) {
        xlarun__task_fn fn;
        void *ctx;
        int spin = 0, last;
#if XLARUN__SPIN
        uint64_t g;
        while ((g = XLARUN__LOAD(p->gen)) == seen && spin < XLARUN__SPIN) { XLARUN__RELAX(); spin++; }
        if (g != seen) { /* seen while spinning: no lock (fn and ctx were written before gen's
                            release store and stay until every worker has finished the task) */
            seen = g;
            fn = p->fn;
            ctx = p->ctx;
        } else
#else
        (void)spin;
#endif
        {
            xlarun__lock(&p->mu);
            while (p->gen == seen && !p->quit) { p->waits++; xlarun__cond_wait(&p->go, &p->mu); }
            if (p->quit) { xlarun__unlock(&p->mu); break; }
            seen = p->gen;
            fn = p->fn;
            ctx = p->ctx;
            xlarun__unlock(&p->mu);
        }
        fn(ctx, w->index, p->n);
#if XLARUN__SPIN
        last = XLARUN__DEC(p->pending) == 0;
        if (last) { xlarun__lock(&p->mu); xlarun__cond_signal(&p->done); xlarun__unlock(&p->mu); }
#else
        xlarun__lock(&p->mu);
        last = --p->pending == 0;
        if (last) xlarun__cond_signal(&p->done);
        xlarun__unlock(&p->mu);
#endif
    }
    return NULL;
}

#if defined(_WIN32)
static DWORD WINAPI xlarun__worker_entry(LPVOID arg) { xlarun__worker_main(arg); return 0; }
static int xlarun__thread_start(xlarun__thread *t, void *arg) {
    *t = CreateThread(NULL, 0, xlarun__worker_entry, arg, 0, NULL);
    return *t != NULL;
}
static void xlarun__thread_join(xlarun__thread t) { WaitForSingleObject(t, INFINITE); CloseHandle(t); }
#else
static int xlarun__thread_start(xlarun__thread *t, void *arg) { return pthread_create(t, NULL, xlarun__worker_main, arg) == 0; }
static void xlarun__thread_join(xlarun__thread t) { pthread_join(t, NULL); }
#endif
#endif

/* run fn on every thread index; the caller is thread 0 */
static void xlarun__pool_run(xlarun__pool *p, xlarun__task_fn fn, void *ctx) {
#if !defined(XLARUN_NO_THREADS)
    if (p->n > 1) {
        int spin = 0;
        xlarun__lock(&p->mu);
        p->fn = fn;
        p->ctx = ctx;
        p->pending = p->n - 1;
        XLARUN__STORE(p->gen, p->gen + 1);
        xlarun__cond_broadcast(&p->go);
        xlarun__unlock(&p->mu);
        fn(ctx, 0, p->n);
#if XLARUN__SPIN
        while (XLARUN__LOAD(p->pending) && spin < XLARUN__SPIN) { XLARUN__RELAX(); spin++; }
        if (XLARUN__LOAD(p->pending)) {
            xlarun__lock(&p->mu);
            while (XLARUN__LOAD(p->pending)) { p->waits++; xlarun__cond_wait(&p->done, &p->mu); }
            xlarun__unlock(&p->mu);
        }
#else
        (void)spin;
        xlarun__lock(&p->mu);
        while (p->pending) { p->waits++; xlarun__cond_wait(&p->done, &p->mu); }
        xlarun__unlock(&p->mu);
#endif
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
    xlarun__lock(&p->mu);
    p->quit = 1;
    xlarun__cond_broadcast(&p->go);
    xlarun__unlock(&p->mu);
    for (i = 0; i < p->started; i++) xlarun__thread_join(p->threads[i]);
    xlarun__cond_destroy(&p->go);
    xlarun__cond_destroy(&p->done);
    xlarun__mutex_destroy(&p->mu);
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
    xlarun__mutex_init(&p->mu);
    xlarun__cond_init(&p->go);
    xlarun__cond_init(&p->done);
    p->gen = 0;
    p->waits = 0;
    p->quit = 0;
    p->started = 0;
    for (i = 0; i + 1 < p->n; i++) {
        p->workers[i].pool = p;
        p->workers[i].index = i + 1;
        if (!xlarun__thread_start(&p->threads[i], &p->workers[i])) {
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
    unsigned char *kc, *vc;              /* keys [n_layers][n_kv_heads][slots * head_dim] (blocks of
                                            XLARUN_K_KEY_BLOCK keys, see xlarun_k_attend), values
                                            [n_layers][n_kv_heads][rows][head_dim]; position p in
                                            slot p % slots (a layer's slots: xlarun__slots; its
                                            value rows n_ctx on a full layer, else as many) */
    size_t *kv_at;                       /* [2][n_layers]: where a layer's keys, then values, start (elements) */
    size_t ring;                         /* the slots of a sliding-window layer: lds, or fewer when
                                            it keeps only what it attends (a ring) */
    size_t ring_lo;                      /* with a ring: its layers hold every position from this
                                            one to pos (each write of p loses p - ring) */
    int32_t *hist;                       /* longrope: the n_ctx ids of the positions held, to run
                                            them again with the other factors; else NULL */
    size_t n_rerun;                      /* longrope: positions run again so far */
    int rope_long;                       /* longrope: the cache's keys have the long factors */
    xlarun_k_type kvt;                   /* their dtype: f32, f16 or bf16 */
    size_t kvsz;                         /* bytes per element of kvt */
    size_t lds;                          /* XLARUN_K_KEY_PAD(n_ctx): a full layer's slots, a score row */
    float *x, *xb, *q, *k, *v, *att, *tmp, *gate, *up; /* n_batch rows each */
    float *rope_cos, *rope_sin;          /* [n_batch][head_dim / 2] */
    float *rope_cos_local, *rope_sin_local; /* the same with the local layers' frequencies, or NULL */
    float *scores;                       /* [max(n_threads, n_kv_heads)][n_heads / n_kv_heads][lds]: a
                                            thread's group, or (xlarun__attn_split_task) a KV head's */
    float *logits;                       /* [vocab_size] */
    unsigned char *xq;                   /* quantized models: n_batch int8 input rows */
    unsigned char *qtiles;               /* quantized models, AMX build: qtiles_bytes per thread */
    size_t qtiles_bytes;
    unsigned char *qpack;                /* the same, prefill: a chunk's int8 activations packed once for
                                            all threads (xlarun_k_qamx_pack), or NULL */
    unsigned char *btiles;               /* bf16 weights, AMX-BF16 build: btiles_bytes per thread (xb16:
                                            bf16 activations; else exact, xlarun_k_matmul_amx3) */
    size_t btiles_bytes;
    unsigned char *bpack;                /* the same, prefill: a chunk's activations packed once for all
                                            threads (xlarun_k_bamx_pack), bpack_bytes for each offset in bwin */
    size_t bpack_bytes;
    unsigned char bwin[32];              /* the window offsets of the model's bf16 matrices (xlarun__bwindows) */
    int n_bwin;
    int gemv_streams;                    /* runs of rows one decode GEMV reads at once (xlarun__gemv_streams) */
    int amx;                             /* AMX tiles (int8 for qtiles, bf16 for btiles): 1 granted,
                                            0 refused by the OS, -1 not built (or nothing to use them) */
    float *router;                       /* mixture of experts: [n_batch][n_experts] router probabilities */
    uint32_t *moe_e;                     /* [n_batch][n_experts_used]: the experts each token runs,
                                            in index order */
    float *moe_w;                        /* [n_batch][n_experts_used]: their weights */
    uint32_t *moe_rows;                  /* [n_batch]: the tokens of one expert */
    float *moe_rw;                       /* [n_batch]: their weights */
    float *moe_x, *moe_y;                /* [n_batch][hidden]: those tokens' inputs, the expert's outputs
                                            (one decode step: each of its experts' output) */
    uint16_t *xb16;                      /* BF16_ACTIVATIONS: n_batch bf16 input rows */
    xlarun__pool pool;
    void *own, *alloc_user;
};

/* the window offsets (xlarun_k_bamx_window) of the model's bf16 matrices, each once, into win
   (at most 32); 0 where the AMX-BF16 GEMM is not built */
static void xlarun__bwin_add(const xlarun__weight *w, size_t K, unsigned char *win, int *n) {
#if defined(XLARUN_K_BAMX)
    int i;
    size_t d;
    if (!w->data || w->scale || w->type != XLARUN_K_BF16) return;
    d = xlarun_k_bamx_window(w->data, K);
    for (i = 0; i < *n && win[i] != d; i++) {}
    if (i == *n && *n < 32) win[(*n)++] = XLARUN__CAST(unsigned char, d);
#else
    (void)w; (void)K; (void)win; (void)n;
#endif
}
static int xlarun__bwindows(const xlarun_model *m, unsigned char *win) {
    const xlarun_config *c = &m->cfg;
    size_t H = c->hidden_size, qd = XLARUN__CAST(size_t, c->n_heads) * c->head_dim, E = c->n_experts, l, e;
    int n = 0;
    for (l = 0; l < c->n_layers; l++) {
        const xlarun__layer *L = &m->layers[l];
        xlarun__bwin_add(&L->q, H, win, &n); xlarun__bwin_add(&L->k, H, win, &n);
        xlarun__bwin_add(&L->v, H, win, &n); xlarun__bwin_add(&L->o, qd, win, &n);
        if (!L->experts) {
            xlarun__bwin_add(&L->gate, H, win, &n); xlarun__bwin_add(&L->up, H, win, &n);
            xlarun__bwin_add(&L->down, c->intermediate_size, win, &n);
            continue;
        }
        xlarun__bwin_add(&L->router, H, win, &n);
        for (e = 0; e < E; e++) {
            xlarun__bwin_add(&L->experts[3 * e], H, win, &n); xlarun__bwin_add(&L->experts[3 * e + 1], H, win, &n);
            xlarun__bwin_add(&L->experts[3 * e + 2], c->moe_intermediate_size, win, &n);
        }
        if (c->moe_shared_size) {
            xlarun__bwin_add(&L->experts[3 * E], H, win, &n); xlarun__bwin_add(&L->experts[3 * E + 1], H, win, &n);
            xlarun__bwin_add(&L->experts[3 * E + 2], c->moe_shared_size, win, &n);
            xlarun__bwin_add(&L->experts[3 * E + 3], H, win, &n);
        }
    }
    xlarun__bwin_add(&m->lm_head, H, win, &n);
    return n;
}

/* AMX tiles (q8_0/q4_0 prefill, bf16 products): Linux hands a process the tile state only on
   request. Asked at every session creation (the answer is the process's, and asking again is harmless), so no
   flag outlives a session: 1 granted, 0 refused or not Linux, -1 not built. */
static int xlarun__amx_request(void) {
#if defined(XLARUN_AMX_EMULATED) && (defined(XLARUN_K_QAMX) || defined(XLARUN_K_BAMX))
    return 1; /* the tests' build with the tiles emulated in C (tests/amx_emu.h) */
#elif (defined(XLARUN_K_QAMX) || defined(XLARUN_K_BAMX)) && defined(__linux__) && defined(__x86_64__)
    /* arch_prctl (syscall 158) ARCH_REQ_XCOMP_PERM (0x1023), XFEATURE_XTILEDATA (18); made
       directly: strict C99 has no syscall() declaration */
    long r;
    __asm__ __volatile__("syscall" : "=a"(r) : "0"(158L), "D"(0x1023L), "S"(18L) : "rcx", "r11", "memory");
    return r == 0;
#elif defined(XLARUN_K_QAMX) || defined(XLARUN_K_BAMX)
    return 0;
#else
    return -1;
#endif
}

/* How many places of a matrix one thread's decode GEMV reads at once (xlarun_k_gemv). On Intel
   server cores one core's misses in flight bound its bandwidth, and each extra stream brings
   the L2 streamer's own prefetches: on the 2-core Xeon (family 6 model 207, load 2.4-4 from
   other work), one thread, bench's run_bandwidth_ratio in two interleaved rounds, one run
   against four: bf16 0.70, 0.71 -> 0.99, 0.99 (4.2, 3.9 -> 5.4, 5.0 tok/s); q8_0 0.82, 0.90 ->
   1.05, 0.86; q4_0 0.54, 0.82 -> 1.10, 1.10 (bench's probe is one stream per thread, so
   above 1 is possible). Zen 4 (AMD family 0x19; its AVX-512 runs as two 256-bit halves) takes
   two: 1 GiB of 2 MB pages, 2 threads, 14-16 interleaved passes in one process, 2 runs against
   1: bf16 44-48 against 35-36 GB/s while the host's memory was in its fast state (level in the
   slow one), q8_0 +7-10%, q4_0 +3-7%; four were slower (tools/README.md, "AMD Zen 4").
   Elsewhere one stream, 8 rows prefetched ahead: the setting measured best on Zen 5, where the
   hardware prefetcher alone gives a core its share. No bit depends on it (each row keeps its
   reduction). */
#if defined(_MSC_VER) && !defined(__clang__) && (defined(_M_X64) || defined(_M_IX86))
#include <intrin.h>
#endif
#if ((defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))) || \
    (defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86)))
static int xlarun__streams_for(unsigned b, unsigned c, unsigned d, unsigned eax1) {
    unsigned family = (eax1 >> 8) & 15u;
    if (family == 15u) family += (eax1 >> 20) & 255u;
    if (b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu) return 4; /* "GenuineIntel" */
    if (b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u && family == 0x19u) return 2; /* "AuthenticAMD" Zen 3/4 */
    return 1;
}
#endif
static int xlarun__gemv_streams(void) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    unsigned a = 0, b, c, d, a1 = 1, b1, c1, d1;
    __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
    __asm__ __volatile__("cpuid" : "+a"(a1), "=b"(b1), "=c"(c1), "=d"(d1));
    (void)b1; (void)c1; (void)d1;
    return xlarun__streams_for(b, c, d, a1);
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    int r[4], r1[4];
    __cpuid(r, 0);
    __cpuid(r1, 1);
    return xlarun__streams_for((unsigned)r[1], (unsigned)r[2], (unsigned)r[3], (unsigned)r1[0]);
#else
    return 1;
#endif
}

/* rows [r0, r1) of m that thread t of nt computes: contiguous blocks of 16 rows */
static void xlarun__split(size_t m, uint32_t t, uint32_t nt, size_t *r0, size_t *r1) {
    size_t units = (m + 15) / 16, u0 = units * t / nt, u1 = units * (t + 1) / nt;
    *r0 = u0 * 16 < m ? u0 * 16 : m;
    *r1 = u1 * 16 < m ? u1 * 16 : m;
}

/* up to XLARUN__MM_MAX matrix products over the same input, each cut into chunks of rows that
   the threads take (xlarun__mm_task), each chunk followed by its bias where there is one; act:
   for each pair (gate, up) of products 2j, 2j + 1, gate = act(gate) * up on the chunk's rows
   (act 1 + xlarun__act: SiLU or GELU; 0 none). per_row: product i reads only row i of the
   input (n is 1), as one decode step runs the down matrices of several experts on their own
   inputs. */
#define XLARUN__MM_MAX 32
typedef struct xlarun__mm {
    const xlarun__weight *w[XLARUN__MM_MAX];
    const float *b[XLARUN__MM_MAX];      /* biases, or NULL */
    float *y[XLARUN__MM_MAX];
    size_t rows[XLARUN__MM_MAX];
    int count, act, per_row;
    size_t K, n, ldy;
    int streams;                         /* n == 1: the session's gemv_streams */
    const float *x;
    unsigned char *xq;                   /* x as int8 blocks, for q8_0/q4_0 weights */
    uint16_t *xb16;                      /* x rounded to bf16, for bf16 weights (BF16_ACTIVATIONS) */
    unsigned char *tiles;                /* AMX-INT8 work, tiles_bytes per thread, with qpack, or NULL */
    size_t tiles_bytes;
    unsigned char *qpack;                /* n >= XLARUN_K_QAMX_MIN on those tiles: the session's qpack */
    unsigned char *btiles;               /* AMX-BF16 scratch, btiles_bytes per thread, or NULL: for xb16,
                                            or (xb16 NULL) for x in the exact precision */
    size_t btiles_bytes;
    unsigned char *bpack;                /* n > 1 on those tiles: the session's bpack, or NULL */
    size_t bpack_bytes;
    unsigned char pw[XLARUN__MM_MAX];    /* product i's area of bpack (its window offset's) */
    unsigned char pfirst[XLARUN__MM_MAX]; /* product i is the first with that area: xlarun__mm_prep packs it */
    size_t next_chunk;                   /* xlarun__mm_task's: the next chunk to take */
} xlarun__mm;

/* the index in s->bwin of W's window offset (every bf16 matrix's is there; -1 would be a bug) */
static int xlarun__bwin_index(const xlarun_session *s, const void *W, size_t K) {
    int i = 0;
#if defined(XLARUN_K_BAMX)
    size_t d = xlarun_k_bamx_window(W, K);
    while (i < s->n_bwin && s->bwin[i] != d) i++;
#else
    (void)W; (void)K;
#endif
    XLARUN_ASSERT(i < s->n_bwin);
    return i < s->n_bwin ? i : -1;
}

/* product i over rows [r0, r1) of its output, and its bias there */
static void xlarun__mm_rows(const xlarun__mm *c, int i, size_t r0, size_t r1, uint32_t t) {
    size_t ldy = c->ldy ? c->ldy : c->rows[i], at = c->per_row ? XLARUN__CAST(size_t, i) : 0, i2;
    const float *x = c->x + at * c->K;
    if (r0 >= r1) return;
    if (c->w[i]->scale && c->n == 1)
        xlarun_k_qgemv(c->w[i]->qtype, c->w[i]->data, c->w[i]->scale, c->K, r0, r1,
                       XLARUN__CAST(const unsigned char *, c->xq) + at * xlarun_k_qact_bytes(c->K), c->y[i], c->streams);
#if defined(XLARUN_K_QAMX)
    else if (c->w[i]->scale && c->qpack) /* prefill on tiles, activations packed */
        xlarun_k_qmatmul_qamx(c->w[i]->qtype, c->w[i]->data, c->w[i]->scale, c->K, r0, r1, c->qpack, c->n, c->y[i], ldy,
                              c->tiles + t * c->tiles_bytes);
#endif
    else if (c->w[i]->scale)
        xlarun_k_qmatmul(c->w[i]->qtype, c->w[i]->data, c->w[i]->scale, c->K, r0, r1,
                         XLARUN__CAST(const unsigned char *, c->xq) + at * xlarun_k_qact_bytes(c->K), c->n, c->y[i], ldy, NULL);
#if defined(XLARUN_K_BAMX)
    else if (c->bpack && c->w[i]->type == XLARUN_K_BF16) /* prefill on tiles, activations packed */
        xlarun_k_matmul_bamx(c->w[i]->data, c->K, r0, r1, c->bpack + c->pw[i] * c->bpack_bytes, c->xb16 ? 1 : 3, c->n, c->y[i],
                             ldy, c->btiles + t * c->btiles_bytes);
#endif
    else if (c->xb16 && c->w[i]->type == XLARUN_K_BF16 && c->n == 1 && !c->btiles)
        xlarun_k_gemv_bf16x(c->w[i]->data, c->K, r0, r1, c->xb16 + at * c->K, c->y[i], c->streams);
    else if (c->xb16 && c->w[i]->type == XLARUN_K_BF16)
        xlarun_k_matmul_bf16x(c->w[i]->data, c->K, r0, r1, c->xb16 + at * c->K, c->K, c->n, c->y[i], ldy,
                              c->btiles ? c->btiles + t * c->btiles_bytes : NULL);
    else if (c->btiles && c->w[i]->type == XLARUN_K_BF16) /* exact on tiles, decode too */
        xlarun_k_matmul_amx3(c->w[i]->data, c->K, r0, r1, x, c->K, c->n, c->y[i], ldy, c->btiles + t * c->btiles_bytes);
    else if (c->n == 1) xlarun_k_gemv(c->w[i]->type, c->w[i]->data, c->K, r0, r1, x, c->y[i], c->streams);
    else xlarun_k_matmul(c->w[i]->type, c->w[i]->data, c->K, r0, r1, x, c->K, c->n, c->y[i], ldy);
    for (i2 = 0; c->b[i] && i2 < c->n; i2++) xlarun_k_add(c->y[i] + i2 * ldy + r0, c->b[i] + r0, r1 - r0);
}

/* The products in chunks of rows that each thread takes when it has finished its last one (an
   atomic counter), so a thread that runs late (a busy or slower core, a vCPU the host
   preempted) does fewer of them instead of holding up the rest. A chunk: some 16-row blocks of
   one product, or of both products of a (gate, up) pair and then act on those rows; about 4
   chunks a thread a product. Every row is computed whole by one kernel call, so the bits do not
   depend on who took it. Without GCC-style atomics, thread t takes chunks t, t + nt, ... */

/* group g's rows per chunk (*crows) and its chunk count */
static size_t xlarun__mm_chunks(const xlarun__mm *c, int g, int gs, uint32_t nt, size_t *crows) {
    size_t rows = c->rows[g * gs], units = (rows + 15) / 16;
    *crows = 16 * ((units + 4 * (size_t)nt - 1) / (4 * (size_t)nt));
    return *crows ? (rows + *crows - 1) / *crows : 0;
}

static void xlarun__mm_task(void *ctx, uint32_t t, uint32_t nt) {
    xlarun__mm *c = XLARUN__CAST(xlarun__mm *, ctx);
    int gs = c->act ? 2 : 1, ng = (c->count + gs - 1) / gs, g = 0, i;
    size_t k, n, first = 0, crows = 0, nch = ng ? xlarun__mm_chunks(c, 0, gs, nt, &crows) : 0, r0, r1, i2;
    for (n = 0;; n++) {
#if defined(__GNUC__) && !defined(XLARUN_NO_THREADS)
        k = __atomic_fetch_add(&c->next_chunk, 1, __ATOMIC_RELAXED);
#else
        k = t + n * nt;
#endif
        while (g < ng && k - first >= nch) { /* the group of chunk k (k only grows) */
            first += nch;
            nch = ++g < ng ? xlarun__mm_chunks(c, g, gs, nt, &crows) : 0;
        }
        if (g >= ng) break;
        r0 = (k - first) * crows;
        r1 = r0 + crows < c->rows[g * gs] ? r0 + crows : c->rows[g * gs];
        for (i = g * gs; i < g * gs + gs && i < c->count; i++) xlarun__mm_rows(c, i, r0, r1 < c->rows[i] ? r1 : c->rows[i], t);
        for (i = g * gs, i2 = 0; c->act && i + 1 < c->count && i2 < c->n; i2++)
            (c->act == 1 + XLARUN__ACT_GELU_TANH ? xlarun_k_gelu_mul : xlarun_k_silu_mul)(
                c->y[i] + i2 * c->rows[i] + r0, c->y[i + 1] + i2 * c->rows[i + 1] + r0, r1 - r0);
    }
}

/* input rows j0 .. j1 - 1 of c as its products read them: rounded to bf16 (BF16_ACTIVATIONS)
   and as int8 blocks (quantized weights), each row on its own, so a prefill chunk equals
   token-by-token decode */
static void xlarun__mm_inputs(const xlarun__mm *c, size_t j0, size_t j1) {
    size_t j, b = xlarun_k_qact_bytes(c->K);
    for (j = j0; c->xb16 && j < j1; j++) xlarun_k_f32_to_bf16_row(c->x + j * c->K, c->xb16 + j * c->K, c->K);
    for (j = j0; c->xq && j < j1; j++) xlarun_k_quantize_act(c->x + j * c->K, c->K, c->xq + j * b);
}

/* n > 1: thread t's share of the input rows, whole token groups of the AMX packings where there
   are some (16 tokens for int8 and bf16 activations, 5 for the exact three parts; 80 for both
   kinds), and those groups packed: once for the int8 products, once for each window offset the
   bf16 products need, so that the threads prepare the chunk once, side by side (each packing
   its own on the 16-core Xeon family 6 model 207 took about 30% of a 16-thread bf16 prefill:
   tools/README.md) */
static void xlarun__mm_prep(void *ctx, uint32_t t, uint32_t nt) {
    const xlarun__mm *c = XLARUN__CAST(const xlarun__mm *, ctx);
    size_t unit = c->qpack ? (c->bpack && !c->xb16 ? 80 : 16) : !c->bpack ? 1 : c->xb16 ? 16 : 5;
    size_t units = (c->n + unit - 1) / unit, u0 = units * t / nt, u1 = units * (t + 1) / nt;
    size_t j1 = u1 * unit < c->n ? u1 * unit : c->n, bg = c->xb16 ? 16 : 5; /* tokens of a bf16 packing's group */
    int i;
    xlarun__mm_inputs(c, u0 * unit, j1);
#if defined(XLARUN_K_QAMX)
    if (c->qpack && u0 < u1) xlarun_k_qamx_pack(c->xq, c->K, c->n, u0 * unit / 16, (j1 + 15) / 16, c->qpack);
#endif
#if defined(XLARUN_K_BAMX)
    for (i = 0; c->bpack && i < c->count; i++)
        if (c->pfirst[i])
            xlarun_k_bamx_pack(c->w[i]->data, c->K, c->xb16, c->xb16 ? NULL : c->x, c->K, c->n, u0 * unit / bg,
                               u1 * unit / bg, c->bpack + c->pw[i] * c->bpack_bytes); /* its groups (clamped to n's) */
#else
    (void)i;
    (void)bg;
#endif
}

/* run the products of c on the pool, after their inputs are prepared: by the threads for a
   chunk of n > 1 tokens (xlarun__mm_prep), here for one (per_row: the count rows) */
static void xlarun__mm_run(xlarun_session *s, xlarun__mm *c) {
    int i, i2, q = 0, bf = 0;
    c->streams = s->gemv_streams;
    for (i = 0; i < c->count; i++) {
        q |= c->w[i]->scale != NULL;
        bf |= !c->w[i]->scale && c->w[i]->type == XLARUN_K_BF16;
    }
    if (bf) c->xb16 = s->xb16; /* BF16_ACTIVATIONS (else NULL): each input row rounded once */
    if (s->amx == 1 && s->btiles) { c->btiles = s->btiles; c->btiles_bytes = s->btiles_bytes; } /* decode too: one order */
    if (q) {
        c->xq = s->xq;
        if (s->amx == 1 && s->qpack && c->n >= XLARUN_K_QAMX_MIN) {
            c->qpack = s->qpack;
            c->tiles = s->qtiles;
            c->tiles_bytes = s->qtiles_bytes;
        }
    }
    if (c->n > 1) {
        if (bf && c->btiles && s->bpack) {
            c->bpack = s->bpack;
            c->bpack_bytes = s->bpack_bytes;
            for (i = 0; c->bpack && i < c->count; i++) {
                int at;
                if (c->w[i]->scale || c->w[i]->type != XLARUN_K_BF16) continue;
                at = xlarun__bwin_index(s, c->w[i]->data, c->K);
                if (at < 0) { c->bpack = NULL; c->btiles = NULL; break; } /* never: then off the tiles, not out of bounds */
                c->pw[i] = XLARUN__CAST(unsigned char, at);
                c->pfirst[i] = 1;
                for (i2 = 0; i2 < i; i2++)
                    if (c->pfirst[i2] && c->pw[i2] == c->pw[i]) c->pfirst[i] = 0;
            }
        }
        if (c->xb16 || c->xq || c->bpack) xlarun__pool_run(&s->pool, xlarun__mm_prep, c); /* qpack: xq too */
    } else
        xlarun__mm_inputs(c, 0, c->per_row ? XLARUN__CAST(size_t, c->count) : 1);
    c->next_chunk = 0;
    xlarun__pool_run(&s->pool, xlarun__mm_task, c);
}

static void xlarun__matmul(xlarun_session *s, const xlarun__weight *w, const float *bias, size_t rows, size_t K,
                           const float *x, size_t n, float *y) {
    xlarun__mm c;
    memset(&c, 0, sizeof c);
    c.w[0] = w; c.b[0] = bias; c.y[0] = y; c.rows[0] = rows; c.count = 1;
    c.K = K; c.n = n; c.x = x;
    xlarun__mm_run(s, &c);
}

typedef struct xlarun__attn {
    const xlarun_session *s;
    size_t layer, n;                     /* tokens of this chunk, at positions pos.. */
    int phase;                           /* xlarun__attn_split_task's step: 1 scores, 2 softmax, 3 values */
} xlarun__attn;

/* layer l's KV cache slots, and where head kvh's keys and values start */
static size_t xlarun__slots(const xlarun_session *s, size_t l) { return s->m->layers[l].window ? s->ring : s->lds; }
static size_t xlarun__vrows(const xlarun_session *s, size_t l) { return s->m->layers[l].window ? s->ring : s->n_ctx; }
static unsigned char *xlarun__kc(const xlarun_session *s, size_t l, size_t kvh) {
    return s->kc + (s->kv_at[l] + kvh * xlarun__slots(s, l) * s->m->cfg.head_dim) * s->kvsz;
}
static unsigned char *xlarun__vc(const xlarun_session *s, size_t l, size_t kvh) {
    return s->vc + (s->kv_at[s->m->cfg.n_layers + l] + kvh * xlarun__vrows(s, l) * s->m->cfg.head_dim) * s->kvsz;
}

/* the keys token i of the chunk attends in the layer: j0..n_keys-1 (j0 > 0: a sliding window) */
static size_t xlarun__attn_keys(const xlarun__attn *c, size_t i, size_t *j0) {
    size_t n_keys = c->s->pos + i + 1, win = c->s->m->layers[c->layer].window;
    *j0 = win && n_keys > win ? n_keys - win : 0;
    return n_keys;
}

/* causal GQA attention: the (KV head, token) pairs split across threads, KV head first, so a
   thread keeps one head's keys and values in cache; each pair is that token's group of heads.
   A pair costs its keys plus a few for its fixed work, and each thread takes a contiguous run of
   equal cost (the pairs whose middle falls in its share): in a causal chunk the last token reads
   more keys than the first (with one KV head and a chunk at position 0, an even count of pairs
   would give the second of two threads three quarters of the work). */
#define XLARUN__PAIR_COST 16
static void xlarun__attn_task(void *ctx, uint32_t t, uint32_t nt) {
    const xlarun__attn *c = XLARUN__CAST(const xlarun__attn *, ctx);
    const xlarun_session *s = c->s;
    const xlarun_config *cf = &s->m->cfg;
    size_t hd = cf->head_dim, nkv = cf->n_kv_heads, group = cf->n_heads / nkv, qd = cf->n_heads * hd;
    size_t w, i, j0, lds = s->lds;
    uint64_t total = 0, at = 0, lo, hi;
    for (i = 0; i < c->n; i++) total += xlarun__attn_keys(c, i, &j0) - j0 + XLARUN__PAIR_COST;
    total *= nkv;
    lo = total * t / nt;
    hi = total * (t + 1) / nt;
    for (w = 0; w < c->n * nkv; w++) {
        size_t kvh = w / c->n, n_keys, cost;
        i = w % c->n;
        n_keys = xlarun__attn_keys(c, i, &j0);
        cost = n_keys - j0 + XLARUN__PAIR_COST;
        at += cost;
        if (2 * at - cost < 2 * lo || 2 * at - cost >= 2 * hi) continue; /* its middle, doubled */
        xlarun_k_attend(s->kvt, s->q + i * qd + kvh * group * hd, group, xlarun__kc(s, c->layer, kvh),
                        xlarun__vc(s, c->layer, kvh), xlarun__slots(s, c->layer), j0, n_keys, hd, s->m->plan.attn_scale,
                        s->m->plan.attn_softcap, s->scores + XLARUN__CAST(size_t, t) * group * lds, lds,
                        s->att + i * qd + kvh * group * hd);
    }
}

/* one token's attention with fewer KV heads than threads, or a count they do not divide (Gemma
   3 1B has one, SmolLM2-135M three): xlarun_k_attend in its halves, each split finer than a
   head, one pool run per step: 1, every head's scores by key blocks; 2, the capped softmax of
   each query's row; 3, the values by runs of 16 dimensions. The bits are attend's (its contract);
   each head's score rows are its own, in s->scores. */
static void xlarun__attn_split_task(void *ctx, uint32_t t, uint32_t nt) {
    const xlarun__attn *c = XLARUN__CAST(const xlarun__attn *, ctx);
    const xlarun_session *s = c->s;
    const xlarun_config *cf = &s->m->cfg;
    size_t hd = cf->head_dim, nkv = cf->n_kv_heads, group = cf->n_heads / nkv, lds = s->lds, j0;
    size_t n_keys = xlarun__attn_keys(c, 0, &j0), B = XLARUN_K_KEY_BLOCK, b0 = j0 / B;
    size_t per = c->phase == 1 ? (n_keys + B - 1) / B - b0 : c->phase == 2 ? group : (hd + 15) / 16;
    size_t a0 = nkv * per * t / nt, a1 = nkv * per * (t + 1) / nt, a, kvh, ring = xlarun__slots(s, c->layer);
    for (a = a0; a < a1; a = (kvh + 1) * per) { /* a..e: items of KV head kvh */
        size_t e, u0, u1;
        kvh = a / per;
        e = (kvh + 1) * per < a1 ? (kvh + 1) * per : a1;
        u0 = a - kvh * per;
        u1 = e - kvh * per;
        if (c->phase == 1) {
            size_t ja = (b0 + u0) * B, jb = (b0 + u1) * B;
            xlarun_k_attend_qk(s->kvt, s->q + kvh * group * hd, group, xlarun__kc(s, c->layer, kvh), ring, j0,
                               ja > j0 ? ja : j0, jb < n_keys ? jb : n_keys, hd, s->m->plan.attn_scale,
                               s->scores + kvh * group * lds, lds);
        } else if (c->phase == 2) {
            size_t g;
            for (g = u0; g < u1; g++) {
                float *p = s->scores + (kvh * group + g) * lds + j0 % B; /* the row from j0's block */
                if (s->m->plan.attn_softcap > 0.0f) xlarun_k_softcap(p, n_keys - j0, s->m->plan.attn_softcap);
                xlarun_k_softmax(p, n_keys - j0);
            }
        } else
            xlarun_k_attend_pv(s->kvt, s->scores + kvh * group * lds, group, lds, xlarun__vc(s, c->layer, kvh), ring,
                               j0, n_keys, hd, u0 * 16, u1 * 16 < hd ? u1 * 16 : hd, s->att + kvh * group * hd);
    }
}

/* the attention of the chunk's n tokens, whose q, keys and values are in place */
static void xlarun__attention(xlarun_session *s, size_t layer, size_t n) {
    xlarun__attn at;
    at.s = s;
    at.layer = layer;
    at.n = n;
    at.phase = 0;
    if (n == 1 && s->pool.n > 1 && s->m->cfg.n_kv_heads % s->pool.n)
        for (at.phase = 1; at.phase <= 3; at.phase++) xlarun__pool_run(&s->pool, xlarun__attn_split_task, &at);
    else
        xlarun__pool_run(&s->pool, xlarun__attn_task, &at);
}

/* A sparse layer's MLP of the n rows of xin, into s->tmp, as transformers computes it: each
   token's router logits, their softmax, the n_experts_used most probable experts with those
   probabilities as weights (divided by their sum when moe_norm_topk), then from zero each
   expert's output times its weight added, expert by expert in index order (index_add_). Equal
   probabilities go to the lower index (torch.topk's order among ties is its own), a NaN one
   first (as torch ranks NaN); the choices are distinct whatever the values, so no expert gets
   more rows than the buffers hold. Each expert runs once, over the rows that chose it in token
   order, so a prefill and token-by-token decoding give the same bits. Qwen2-MoE then adds its
   shared expert's output on every row, times the sigmoid of its gate's logit (in f32). */
static void xlarun__add_weighted(float *out, const float *y, float w, size_t n) {
    size_t d;
    for (d = 0; d < n; d++) {
        float t = y[d] * w; /* rounded, then added: index_add_ of the product */
        out[d] += t;
    }
}

static void xlarun__moe(xlarun_session *s, const xlarun__layer *L, const float *xin, size_t n) {
    const xlarun_config *c = &s->m->cfg;
    const xlarun__plan *pl = &s->m->plan;
    size_t H = c->hidden_size, I = c->moe_intermediate_size, E = c->n_experts, K = c->n_experts_used;
    size_t i, j, e;
    xlarun__mm mm;
    xlarun__matmul(s, &L->router, NULL, E, H, xin, n, s->router);
    for (i = 0; i < n; i++) {
        float *p = s->router + i * E, sum = 0.0f;
        uint32_t *te = s->moe_e + i * K;
        float *tw = s->moe_w + i * K;
        xlarun_k_softmax(p, E);
        for (j = 0; j < K; j++) { /* the largest left; taken ones are marked -2 (probabilities are >= 0 or NaN) */
            size_t best = E;
            for (e = 0; e < E; e++)
                if (p[e] != -2.0f && (best == E || p[e] > p[best] || (p[e] != p[e] && p[best] == p[best]))) best = e;
            te[j] = XLARUN__CAST(uint32_t, best);
            tw[j] = p[best];
            p[best] = -2.0f;
            sum += tw[j];
        }
        if (pl->moe_norm_topk) /* the sum in the order picked, as torch's */
            for (j = 0; j < K; j++) tw[j] /= sum;
        for (j = 1; j < K; j++) { /* then the experts in index order, their weights with them */
            size_t k2 = j;
            while (k2 > 0 && te[k2 - 1] > te[k2]) {
                uint32_t ue = te[k2]; float uw = tw[k2];
                te[k2] = te[k2 - 1]; tw[k2] = tw[k2 - 1];
                te[k2 - 1] = ue; tw[k2 - 1] = uw;
                k2--;
            }
        }
    }
    memset(s->tmp, 0, n * H * sizeof(float));
    if (n == 1 && 2 * K <= XLARUN__MM_MAX && K <= s->n_batch) {
        /* one token: its experts' gate and up in one pool run, their downs in another, each
           expert's rows j of s->gate, s->up and s->moe_y (the same kernels on the same rows as
           one expert at a time, so the same bits), then added in expert order */
        const uint32_t *te = s->moe_e;
        memset(&mm, 0, sizeof mm);
        for (j = 0; j < K; j++) {
            mm.w[2 * j] = &L->experts[3 * te[j]]; mm.y[2 * j] = s->gate + j * I; mm.rows[2 * j] = I;
            mm.w[2 * j + 1] = &L->experts[3 * te[j] + 1]; mm.y[2 * j + 1] = s->up + j * I; mm.rows[2 * j + 1] = I;
        }
        mm.count = XLARUN__CAST(int, 2 * K); mm.act = 1 + XLARUN__CAST(int, pl->act); mm.K = H; mm.n = 1; mm.x = xin;
        xlarun__mm_run(s, &mm);
        memset(&mm, 0, sizeof mm);
        for (j = 0; j < K; j++) { mm.w[j] = &L->experts[3 * te[j] + 2]; mm.y[j] = s->moe_y + j * H; mm.rows[j] = H; }
        mm.count = XLARUN__CAST(int, K); mm.per_row = 1; mm.K = I; mm.n = 1; mm.x = s->gate;
        xlarun__mm_run(s, &mm);
        for (j = 0; j < K; j++) xlarun__add_weighted(s->tmp, s->moe_y + j * H, s->moe_w[j], H);
    } else for (e = 0; e < E; e++) {
        const float *xe = xin;
        size_t cnt = 0, r;
        for (i = 0; i < n; i++)
            for (j = 0; j < K; j++)
                if (s->moe_e[i * K + j] == e) {
                    s->moe_rows[cnt] = XLARUN__CAST(uint32_t, i);
                    s->moe_rw[cnt++] = s->moe_w[i * K + j];
                }
        if (!cnt) continue;
        if (n > 1) { /* gather the rows */
            for (r = 0; r < cnt; r++) memcpy(s->moe_x + r * H, xin + XLARUN__CAST(size_t, s->moe_rows[r]) * H, H * sizeof(float));
            xe = s->moe_x;
        }
        memset(&mm, 0, sizeof mm);
        mm.w[0] = &L->experts[3 * e]; mm.y[0] = s->gate; mm.rows[0] = I;
        mm.w[1] = &L->experts[3 * e + 1]; mm.y[1] = s->up; mm.rows[1] = I;
        mm.count = 2; mm.act = 1 + XLARUN__CAST(int, pl->act); mm.K = H; mm.n = cnt; mm.x = xe;
        xlarun__mm_run(s, &mm);
        xlarun__matmul(s, &L->experts[3 * e + 2], NULL, H, I, s->gate, cnt, s->moe_y);
        for (r = 0; r < cnt; r++)
            xlarun__add_weighted(s->tmp + XLARUN__CAST(size_t, s->moe_rows[r]) * H, s->moe_y + r * H, s->moe_rw[r], H);
    }
    if (c->moe_shared_size) { /* Qwen2-MoE: + sigmoid(shared_expert_gate . x) * shared_expert(x), every row */
        const xlarun__weight *sh = L->experts + 3 * E;
        size_t Is = c->moe_shared_size;
        memset(&mm, 0, sizeof mm);
        mm.w[0] = &sh[0]; mm.y[0] = s->gate; mm.rows[0] = Is;
        mm.w[1] = &sh[1]; mm.y[1] = s->up; mm.rows[1] = Is;
        mm.count = 2; mm.act = 1 + XLARUN__CAST(int, pl->act); mm.K = H; mm.n = n; mm.x = xin;
        xlarun__mm_run(s, &mm);
        xlarun__matmul(s, &sh[2], NULL, H, Is, s->gate, n, s->moe_y);
        xlarun__matmul(s, &sh[3], NULL, 1, H, xin, n, s->router); /* the routing is done with s->router */
        for (i = 0; i < n; i++) /* torch's vectorized sigmoid (prefills) can differ by an ulp or two */
            xlarun__add_weighted(s->tmp + i * H, s->moe_y + i * H, 1.0f / (1.0f + expf(-s->router[i])), H);
    }
}

/* n tokens (n <= n_batch) at positions pos..pos+n-1; logits of the last one. lng: longrope's
   long factors (the call reaches past the original max) */
/* The steps of a forward pass that take each token on its own: the input rows and their RoPE
   angles, the norms, RoPE, the cache writes and the residual adds between the products of layer
   l. xlarun__tokens runs one of them over a chunk's tokens, contiguous ranges side by side on the
   pool (one token: inline); each element is computed as it would be alone, so the split changes
   no bits. */
enum { XLARUN__STEP_INPUT, XLARUN__STEP_ATTN_IN, XLARUN__STEP_QK, XLARUN__STEP_ATTN_OUT, XLARUN__STEP_MLP_OUT };
typedef struct xlarun__steps {
    xlarun_session *s;
    const int32_t *ids;                  /* STEP_INPUT: the chunk's tokens */
    const float *inv;                    /* STEP_INPUT: the RoPE frequencies (long or short) */
    size_t l, n;
    int step;
} xlarun__steps;

static void xlarun__token_steps(const xlarun__steps *c, size_t i0, size_t i1) {
    xlarun_session *s = c->s;
    const xlarun_model *m = s->m;
    const xlarun_config *cf = &m->cfg;
    const xlarun__plan *pl = &m->plan;
    const xlarun__layer *L = m->layers + c->l; /* STEP_INPUT: not read */
    size_t H = cf->hidden_size, hd = cf->head_dim, half = cf->rope_dim / 2, i, j, h;
    size_t qd = XLARUN__CAST(size_t, cf->n_heads) * hd, kvd = XLARUN__CAST(size_t, cf->n_kv_heads) * hd;
    size_t esz = xlarun_k_type_size(m->embed.type);
    float eps = cf->rms_norm_eps;
    if (c->step == XLARUN__STEP_INPUT)
        for (i = i0; i < i1; i++) {
            const int32_t id = c->ids[i];
            if (m->embed.scale) /* a quantized embedding: dequantize the row */
                xlarun_k_qdequant(m->embed.qtype, XLARUN__CAST(const char *, m->embed.data) + XLARUN__CAST(size_t, id) * xlarun_k_qrow_bytes(m->embed.qtype, H),
                                  XLARUN__CAST(const char *, m->embed.scale) + XLARUN__CAST(size_t, id) * (H / XLARUN_K_QBLOCK) * 2, s->x + i * H, H);
            else
                xlarun_k_to_f32(m->embed.type, XLARUN__CAST(const char *, m->embed.data) + XLARUN__CAST(size_t, id) * H * esz,
                                s->x + i * H, H);
            if (pl->embed_scale != 1.0f) /* Gemma: the row times f32(sqrt(hidden_size)); Granite's embedding_multiplier */
                for (j = 0; j < H; j++) s->x[i * H + j] *= pl->embed_scale;
            for (j = 0; j < half; j++) { /* angle = f32(pos) * inv_freq, one f32 product as in transformers */
                float ang = XLARUN__CAST(float, s->pos + i) * c->inv[j];
                s->rope_cos[i * half + j] = cosf(ang) * pl->rope_attn_factor; /* longrope's factor: both, in f32 */
                s->rope_sin[i * half + j] = sinf(ang) * pl->rope_attn_factor;
                if (m->inv_freq_local) {
                    ang = XLARUN__CAST(float, s->pos + i) * m->inv_freq_local[j];
                    s->rope_cos_local[i * half + j] = cosf(ang);
                    s->rope_sin_local[i * half + j] = sinf(ang);
                }
            }
        }
    else if (c->step == XLARUN__STEP_ATTN_IN) /* the attention's input normalized (OLMo 2: x itself) */
        for (i = i0; L->attn_norm && i < i1; i++) xlarun_k_rmsnorm(s->xb + i * H, s->x + i * H, L->attn_norm, H, eps);
    else if (c->step == XLARUN__STEP_QK)
        for (i = i0; i < i1; i++) {
            size_t p = s->pos + i, slot = p % xlarun__slots(s, c->l);
            const float *rc = L->local_rope ? s->rope_cos_local : s->rope_cos, *rs = L->local_rope ? s->rope_sin_local : s->rope_sin;
            if (L->q_norm && pl->qk == XLARUN__QK_WHOLE) { /* OLMo 2: q and k each RMS-normalized whole */
                xlarun_k_rmsnorm(s->q + i * qd, s->q + i * qd, L->q_norm, qd, eps);
                xlarun_k_rmsnorm(s->k + i * kvd, s->k + i * kvd, L->k_norm, kvd, eps);
            } else if (L->q_norm) /* Qwen3, Gemma 3: each head of q and k RMS-normalized before RoPE */
                for (h = 0; h < cf->n_heads + cf->n_kv_heads; h++) {
                    float *v = h < cf->n_heads ? s->q + i * qd + h * hd : s->k + i * kvd + (h - cf->n_heads) * hd;
                    xlarun_k_rmsnorm(v, v, h < cf->n_heads ? L->q_norm : L->k_norm, hd, eps);
                }
            if (L->no_rope) { /* SmolLM3: this layer's q and k as they are */
            } else if (cf->rope_dim == hd) {
                xlarun_k_rope(s->q + i * qd, cf->n_heads, hd, rc + i * half, rs + i * half);
                xlarun_k_rope(s->k + i * kvd, cf->n_kv_heads, hd, rc + i * half, rs + i * half);
            } else /* Phi-3's partial rotary: the first rope_dim of each head, paired i, i + rope_dim / 2 */
                for (h = 0; h < cf->n_heads + cf->n_kv_heads; h++)
                    xlarun_k_rope(h < cf->n_heads ? s->q + i * qd + h * hd : s->k + i * kvd + (h - cf->n_heads) * hd, 1,
                                  cf->rope_dim, rc + i * half, rs + i * half);
            for (h = 0; h < cf->n_kv_heads; h++) { /* the key down its block's column, the value a row */
                xlarun_k_kv_store(s->kvt, s->k + i * kvd + h * hd, xlarun__kc(s, c->l, h) + XLARUN_K_KEY_AT(slot, 0, hd) * s->kvsz, hd, XLARUN_K_KEY_BLOCK);
                xlarun_k_kv_store(s->kvt, s->v + i * kvd + h * hd, xlarun__vc(s, c->l, h) + slot * hd * s->kvsz, hd, 1);
            }
        }
    else { /* the branch's output in s->tmp: normalized where the model says, scaled, added to x */
        const float *post = c->step == XLARUN__STEP_MLP_OUT ? L->post_ffn_norm
                          : L->pre_ffn_norm || pl->norms == XLARUN__NORMS_POST ? L->mlp_norm : NULL; /* Gemma 3, OLMo 2 */
        for (i = i0; i < i1; i++) {
            if (post) xlarun_k_rmsnorm(s->tmp + i * H, s->tmp + i * H, post, H, eps);
            if (pl->residual_scale != 1.0f) /* Granite: the branch times residual_multiplier, then added */
                for (j = 0; j < H; j++) s->tmp[i * H + j] *= pl->residual_scale;
            xlarun_k_add(s->x + i * H, s->tmp + i * H, H);
            if (c->step == XLARUN__STEP_ATTN_OUT && pl->norms != XLARUN__NORMS_POST) /* the MLP's input (OLMo 2: x itself) */
                xlarun_k_rmsnorm(s->xb + i * H, s->x + i * H, L->pre_ffn_norm ? L->pre_ffn_norm : L->mlp_norm, H, eps);
        }
    }
}

static void xlarun__steps_task(void *ctx, uint32_t t, uint32_t nt) {
    const xlarun__steps *c = XLARUN__CAST(const xlarun__steps *, ctx);
    size_t i0, i1;
    xlarun__split(c->n, t, nt, &i0, &i1);
    if (i0 < i1) xlarun__token_steps(c, i0, i1);
}

static void xlarun__tokens(xlarun__steps *c, int step) {
    c->step = step;
    if (c->n == 1) xlarun__token_steps(c, 0, 1);
    else xlarun__pool_run(&c->s->pool, xlarun__steps_task, c);
}

static void xlarun__forward(xlarun_session *s, const int32_t *ids, size_t n, int lng) {
    const xlarun_model *m = s->m;
    const xlarun_config *c = &m->cfg;
    const xlarun__plan *pl = &m->plan;
    size_t H = c->hidden_size, I = c->intermediate_size, hd = c->head_dim;
    size_t qd = XLARUN__CAST(size_t, c->n_heads) * hd, kvd = XLARUN__CAST(size_t, c->n_kv_heads) * hd, i, l;
    xlarun__steps st;
    memset(&st, 0, sizeof st);
    st.s = s; st.ids = ids; st.n = n; st.inv = lng ? m->inv_freq_long : m->inv_freq;
    xlarun__tokens(&st, XLARUN__STEP_INPUT); /* the embedding rows, the RoPE angles */
    for (l = 0; l < c->n_layers; l++) {
        const xlarun__layer *L = &m->layers[l];
        xlarun__mm mm;
        st.l = l;
        /* attention block: q, k, v of the normalized input, RoPE, cache, attention, o, residual */
        xlarun__tokens(&st, XLARUN__STEP_ATTN_IN);
        memset(&mm, 0, sizeof mm);
        mm.w[0] = &L->q; mm.b[0] = L->q_bias; mm.y[0] = s->q; mm.rows[0] = qd;
        mm.w[1] = &L->k; mm.b[1] = L->k_bias; mm.y[1] = s->k; mm.rows[1] = kvd;
        mm.w[2] = &L->v; mm.b[2] = L->v_bias; mm.y[2] = s->v; mm.rows[2] = kvd;
        mm.count = 3; mm.K = H; mm.n = n; mm.x = L->attn_norm ? s->xb : s->x;
        xlarun__mm_run(s, &mm);
        xlarun__tokens(&st, XLARUN__STEP_QK);
        xlarun__attention(s, l, n);
        xlarun__matmul(s, &L->o, L->o_bias, H, qd, s->att, n, s->tmp);
        xlarun__tokens(&st, XLARUN__STEP_ATTN_OUT); /* and the MLP's input normalized */
        /* MLP block: down(act(gate(x)) * up(x)), or the mixture of experts, then the residual */
        if (L->experts) /* Mixtral, Qwen3-MoE, OLMoE */
            xlarun__moe(s, L, pl->norms == XLARUN__NORMS_POST ? s->x : s->xb, n);
        else {
            memset(&mm, 0, sizeof mm);
            mm.w[0] = &L->gate; mm.b[0] = L->gate_bias; mm.y[0] = s->gate; mm.rows[0] = I;
            mm.w[1] = &L->up; mm.b[1] = L->up_bias; mm.y[1] = s->up; mm.rows[1] = I;
            mm.count = 2; mm.act = 1 + XLARUN__CAST(int, pl->act); mm.K = H; mm.n = n; mm.x = pl->norms == XLARUN__NORMS_POST ? s->x : s->xb;
            xlarun__mm_run(s, &mm);
            xlarun__matmul(s, &L->down, L->down_bias, H, I, s->gate, n, s->tmp);
        }
        xlarun__tokens(&st, XLARUN__STEP_MLP_OUT);
    }
    xlarun_k_rmsnorm(s->xb, s->x + (n - 1) * H, m->final_norm, H, c->rms_norm_eps);
    xlarun__matmul(s, &m->lm_head, NULL, c->vocab_size, H, s->xb, 1, s->logits);
    if (pl->logit_scale != 1.0f) /* Granite: logits / logits_scaling, a true division as torch's */
        for (i = 0; i < c->vocab_size; i++) s->logits[i] /= pl->logit_scale;
    if (pl->final_softcap > 0.0f) xlarun_k_softcap(s->logits, c->vocab_size, pl->final_softcap); /* Gemma */
    if (s->ring < s->lds && s->pos + n > s->ring + s->ring_lo) s->ring_lo = s->pos + n - s->ring; /* overwritten */
    s->pos += n;
    s->has_logits = 1;
}

static xlarun_status xlarun__session_build(xlarun__arena *a, const xlarun_model *m,
                                           const xlarun_session_options *o, xlarun_session **out,
                                           xlarun_error *err) {
    const xlarun_config *c = &m->cfg;
    xlarun_session *s;
    uint32_t n_ctx = o->n_ctx ? o->n_ctx : (c->max_position_embeddings < 4096 ? c->max_position_embeddings : 4096);
    uint32_t nb = o->n_batch ? o->n_batch : 256, nt = o->n_threads ? o->n_threads : 1;
    uint64_t kvd = XLARUN__CAST(uint64_t, c->n_kv_heads) * c->head_dim, qd = XLARUN__CAST(uint64_t, c->n_heads) * c->head_dim;
    uint64_t width = c->hidden_size, cache = 0, key_bytes = 0, per_pos;
    size_t imax = xlarun__mlp_width(m), kmax = xlarun__widest_input(m);
    float **bufs[9];
    uint64_t cols[9];
    int i, k;
    if (n_ctx > XLARUN_MAX_POSITIONS)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "n_ctx %u is over the limit of %u tokens", n_ctx, XLARUN_MAX_POSITIONS);
    if (nt > 512) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "n_threads %u is over the limit of 512", nt);
    if (nb > n_ctx) nb = n_ctx;
    if (nb > 65536) nb = 65536;
    s = XLARUN__CAST(xlarun_session *, xlarun__alloc_ex(a, sizeof *s, 0, 0));
    if (!s) return xlarun__no_room(a, "session", err);
    memset(s, 0, sizeof *s);
    s->amx = -1;
    s->gemv_streams = xlarun__gemv_streams();
    s->m = m;
    s->n_ctx = n_ctx;
    s->n_batch = nb;
    s->pool.n = nt;
    *out = s;
    if (o->kv_type == XLARUN_KV_F32) s->kvt = XLARUN_K_F32;
    else if (o->kv_type == XLARUN_KV_F16) s->kvt = XLARUN_K_F16;
    else if (o->kv_type == XLARUN_KV_BF16) s->kvt = XLARUN_K_BF16;
    else
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "unknown kv_type %d (XLARUN_KV_F32, _F16 or _BF16)",
                            XLARUN__CAST(int, o->kv_type));
    s->kvsz = xlarun_k_type_size(s->kvt);
    s->lds = XLARUN_K_KEY_PAD(XLARUN__CAST(size_t, n_ctx)); /* keys in whole blocks */
    /* a sliding-window layer keeps the positions a chunk attends: the chunk's n_batch and the
       W - 1 before it (xlarun__forward stores the chunk's keys, then attends) */
    s->ring = s->lds;
    for (i = 0; i < XLARUN__CAST(int, c->n_layers); i++)
        if (m->layers[i].window && !o->kv_full && XLARUN_K_KEY_PAD(XLARUN__CAST(size_t, m->layers[i].window) + nb - 1) < s->lds)
            s->ring = XLARUN_K_KEY_PAD(XLARUN__CAST(size_t, m->layers[i].window) + nb - 1);
    s->kv_at = XLARUN__CAST(size_t *, xlarun__alloc_ex(a, 2 * c->n_layers * sizeof(size_t), 0, 0));
    /* sizes: all products of values bounded above, checked anyway. A slot of every head of a
       layer is per_pos bytes; cache: the bytes of the keys (k = 0), then of the values */
    per_pos = kvd * s->kvsz;
    for (k = 0; k < 2; k++)
        for (key_bytes = cache, cache = 0, i = 0; i < XLARUN__CAST(int, c->n_layers); i++) {
            uint64_t bytes;
            size_t l = XLARUN__CAST(size_t, i);
            if (s->kv_at) s->kv_at[XLARUN__CAST(size_t, k) * c->n_layers + l] = XLARUN__CAST(size_t, cache / s->kvsz);
            if (!xlarun__mul_u64(per_pos, k ? xlarun__vrows(s, l) : xlarun__slots(s, l), &bytes) || (cache += bytes) > SIZE_MAX / 4)
                return xlarun__fail(err, XLARUN_ERR_MEMORY, "a KV cache of %u tokens is too large for this machine", n_ctx);
        }
    s->kc = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, key_bytes), 0, 1));
    s->vc = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, cache), 0, 1));
    bufs[0] = &s->x; cols[0] = width;
    bufs[1] = &s->xb; cols[1] = width;
    bufs[2] = &s->q; cols[2] = qd;
    bufs[3] = &s->k; cols[3] = kvd;
    bufs[4] = &s->v; cols[4] = kvd;
    bufs[5] = &s->att; cols[5] = qd;
    bufs[6] = &s->tmp; cols[6] = width;
    bufs[7] = &s->gate; cols[7] = imax;
    bufs[8] = &s->up; cols[8] = imax;
    for (i = 0; i < 9; i++) {
        *bufs[i] = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb * cols[i] * sizeof(float)), 0, 1));
        if (!*bufs[i] && !xlarun__measuring(a)) return xlarun__no_room(a, "session", err);
    }
    s->rope_cos = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * (c->head_dim / 2) * sizeof(float), 0, 1));
    s->rope_sin = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * (c->head_dim / 2) * sizeof(float), 0, 1));
    if (m->inv_freq_local) {
        s->rope_cos_local = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * (c->head_dim / 2) * sizeof(float), 0, 1));
        s->rope_sin_local = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * (c->head_dim / 2) * sizeof(float), 0, 1));
        if (!xlarun__measuring(a) && (!s->rope_cos_local || !s->rope_sin_local)) return xlarun__no_room(a, "session", err);
    }
    if (m->inv_freq_long && n_ctx > c->rope_original_max_position_embeddings) { /* else it never crosses */
        s->hist = XLARUN__CAST(int32_t *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, n_ctx) * sizeof(int32_t), 0, 1));
        if (!s->hist && !xlarun__measuring(a)) return xlarun__no_room(a, "session", err);
    }
    /* a thread's group, or every KV head's when xlarun__attention splits one across threads */
    s->scores = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nt > 1 && c->n_kv_heads % nt && c->n_kv_heads > nt ? c->n_kv_heads : nt) *
                                                          (c->n_heads / c->n_kv_heads) * s->lds * sizeof(float), 0, 1));
    s->logits = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, c->vocab_size) * sizeof(float), 0, 1));
    if (c->n_experts) { /* the routing, one expert's tokens (or one token's experts) */
        size_t E = c->n_experts, K = c->n_experts_used;
        s->router = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * E * sizeof(float), 0, 1));
        s->moe_e = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * K * sizeof(uint32_t), 0, 1));
        s->moe_w = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * K * sizeof(float), 0, 1));
        s->moe_rows = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * sizeof(uint32_t), 0, 1));
        s->moe_rw = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * sizeof(float), 0, 1));
        s->moe_x = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb * width * sizeof(float)), 0, 1));
        s->moe_y = XLARUN__CAST(float *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb * width * sizeof(float)), 0, 1));
        if (!xlarun__measuring(a) && (!s->router || !s->moe_e || !s->moe_w || !s->moe_rows || !s->moe_rw || !s->moe_x || !s->moe_y))
            return xlarun__no_room(a, "session", err);
    }
    if (m->quantized) { /* int8 input rows for the widest K */
        s->xq = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * xlarun_k_qact_bytes(kmax), 0, 1));
        if (!s->xq && !xlarun__measuring(a)) return xlarun__no_room(a, "session", err);
        s->qtiles_bytes = xlarun_k_qamx_work_bytes(kmax);
        if (s->qtiles_bytes) { /* counted whether or not the OS grants the tiles: the size query is exact */
            s->qtiles = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(a, s->qtiles_bytes * nt, 0, 1));
            if (!s->qtiles && !xlarun__measuring(a)) return xlarun__no_room(a, "session", err);
            if (nb >= XLARUN_K_QAMX_MIN) { /* the tiles run for prefill chunks from XLARUN_K_QAMX_MIN tokens */
                s->qpack = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(a, xlarun_k_qamx_pack_bytes(kmax, nb), 0, 1));
                if (!s->qpack && !xlarun__measuring(a)) return xlarun__no_room(a, "session", err);
            }
            s->amx = xlarun__measuring(a) ? 0 : xlarun__amx_request();
        }
    }
    if (o->precision != XLARUN_PRECISION_EXACT && o->precision != XLARUN_PRECISION_BF16_ACTIVATIONS)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "unknown precision %d (XLARUN_PRECISION_EXACT or _BF16_ACTIVATIONS)",
                            XLARUN__CAST(int, o->precision));
    if (o->precision == XLARUN_PRECISION_BF16_ACTIVATIONS) { /* bf16 input rows, widest K */
        s->xb16 = XLARUN__CAST(uint16_t *, xlarun__alloc_ex(a, XLARUN__CAST(size_t, nb) * kmax * sizeof(uint16_t), 0, 1));
        if (!s->xb16 && !xlarun__measuring(a)) return xlarun__no_room(a, "session", err);
    }
    /* the AMX-BF16 build, bf16 layer matrices: the tiles' scratch for either precision (exact: the
       activations in three bf16 parts, xlarun_k_matmul_amx3), counted whether or not the OS grants
       the tiles: a thread's work area and one token's packing (decode), and a chunk's packing
       shared by the threads, one for each window offset (prefill) */
    s->n_bwin = xlarun__bwindows(m, s->bwin);
    if (s->n_bwin && (!strcmp(xlarun_model_dtype(m), "bf16") || !strcmp(xlarun_model_dtype(m), "mixed"))) {
        int parts = s->xb16 ? 1 : 3;
        size_t one = s->xb16 ? xlarun_k_btiles_bytes(kmax, 1) : xlarun_k_etiles_bytes(kmax, 1);
        s->btiles_bytes = xlarun_k_bamx_work_bytes(nb, parts);
        if (s->btiles_bytes < one) s->btiles_bytes = one;
        s->btiles = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(a, s->btiles_bytes * nt, 0, 1));
        if (!s->btiles && !xlarun__measuring(a)) return xlarun__no_room(a, "session", err);
        if (nb > 1) {
            s->bpack_bytes = xlarun_k_bamx_pack_bytes(kmax, nb, parts);
            s->bpack = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(a, s->bpack_bytes * XLARUN__CAST(size_t, s->n_bwin), 0, 1));
            if (!s->bpack && !xlarun__measuring(a)) return xlarun__no_room(a, "session", err);
        }
        s->amx = xlarun__measuring(a) ? 0 : xlarun__amx_request();
    }
    if (!xlarun__measuring(a) && (!s->kc || !s->vc || !s->kv_at || !s->rope_cos || !s->rope_sin || !s->scores || !s->logits))
        return xlarun__no_room(a, "session", err);
#if !defined(XLARUN_NO_THREADS)
    if (nt > 1) {
        s->pool.threads = XLARUN__CAST(xlarun__thread *, xlarun__alloc_ex(a, sizeof(xlarun__thread) * (nt - 1), 0, 0));
        s->pool.workers = XLARUN__CAST(xlarun__worker *, xlarun__alloc_ex(a, sizeof(xlarun__worker) * (nt - 1), 0, 0));
        if (!s->pool.threads || !s->pool.workers) return xlarun__no_room(a, "session", err);
    }
#endif
    if (!xlarun__measuring(a)) XLARUN__TRY(xlarun__pool_start(&s->pool, err));
    s->magic = XLARUN__SESSION_MAGIC;
    return XLARUN_OK;
}

static const xlarun_session_options *xlarun__session_opts(const xlarun_session_options *o) {
    static const xlarun_session_options defaults = {0, 0, 0, NULL, XLARUN_PRECISION_EXACT, XLARUN_KV_F32, 0};
    return o ? o : &defaults;
}

static int xlarun__session_ok(const xlarun_session *s) {
    return s && s->magic == XLARUN__SESSION_MAGIC && xlarun__model_ok(s->m);
}

typedef struct xlarun__session_args { const xlarun_model *m; const xlarun_session_options *opt; } xlarun__session_args;

static xlarun_status xlarun__session_build_cb(xlarun__arena *a, const void *args, void **obj, xlarun_error *err) {
    const xlarun__session_args *x = XLARUN__CAST(const xlarun__session_args *, args);
    xlarun_session *o = NULL;
    xlarun_status st = xlarun__session_build(a, x->m, x->opt, &o, err);
    *obj = o;
    return st;
}
static const xlarun__builder xlarun__session_builder = {xlarun__session_build_cb, NULL, "session"};

XLARUN_API xlarun_status xlarun_session_memory(const xlarun_model *m, const xlarun_session_options *opt,
                                               size_t *bytes, xlarun_error *err) {
    xlarun__session_args x;
    if (!xlarun__model_ok(m) || !bytes)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_memory: NULL or closed model, or NULL bytes");
    x.m = m;
    x.opt = xlarun__session_opts(opt);
    return xlarun__measure(&xlarun__session_builder, &x, x.opt->alloc_user, bytes, err);
}

XLARUN_API xlarun_status xlarun_session_create_in(const xlarun_model *m, const xlarun_session_options *opt,
                                                  void *mem, size_t bytes, xlarun_session **out,
                                                  xlarun_error *err) {
    xlarun__session_args x;
    void *obj;
    if (out) *out = NULL;
    if (!xlarun__model_ok(m) || !mem || !out)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_create_in: NULL or closed model, NULL memory or NULL out");
    x.m = m;
    x.opt = xlarun__session_opts(opt);
    XLARUN__TRY(xlarun__build_in(&xlarun__session_builder, &x, x.opt->alloc_user, mem, bytes, NULL, &obj, err));
    *out = XLARUN__CAST(xlarun_session *, obj);
    (*out)->alloc_user = x.opt->alloc_user;
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_session_create(const xlarun_model *m, const xlarun_session_options *opt,
                                               xlarun_session **out, xlarun_error *err) {
    xlarun__session_args x;
    void *obj = NULL, *own = NULL;
    if (out) *out = NULL;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_create: NULL out");
    if (!xlarun__model_ok(m)) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_create: NULL or closed model");
    x.m = m;
    x.opt = xlarun__session_opts(opt);
    XLARUN__TRY(xlarun__build_alloc(&xlarun__session_builder, &x, x.opt->alloc_user, NULL, &obj, &own, err));
    *out = XLARUN__CAST(xlarun_session *, obj);
    (*out)->alloc_user = x.opt->alloc_user;
    (*out)->own = own;
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
    s->ring_lo = 0;
    s->has_logits = 0;
}

/* the W - 1 positions before n_keep (n_keep <= pos), which the next token attends on a sliding-
   window layer, are all still in its ring (from ring_lo: truncating does not bring back what a
   later position overwrote, so it is a property of the writes, not of pos) */
static int xlarun__can_keep(const xlarun_session *s, size_t n_keep) {
    size_t l, w = 0;
    if (s->ring == s->lds || n_keep == s->pos || n_keep == 0) return 1;
    for (l = 0; l < s->m->cfg.n_layers; l++)
        if (s->m->layers[l].window > w) w = s->m->layers[l].window;
    return (n_keep + 1 > w ? n_keep + 1 - w : 0) >= s->ring_lo;
}

XLARUN_API xlarun_status xlarun_session_truncate(xlarun_session *s, size_t n_keep, xlarun_error *err) {
    if (!xlarun__session_ok(s))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_truncate: NULL or freed session, or its model was closed");
    if (n_keep > s->pos)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "cannot keep %lu tokens: the context holds %lu",
                            XLARUN__CAST(unsigned long, n_keep), XLARUN__CAST(unsigned long, s->pos));
    if (n_keep && !xlarun__can_keep(s, n_keep))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT,
                            "cannot keep %lu tokens: the sliding-window layers keep only the last %lu of the %lu positions, "
                            "not the window before token %lu (keep 0, or create the session with kv_full)",
                            XLARUN__CAST(unsigned long, n_keep), XLARUN__CAST(unsigned long, s->ring),
                            XLARUN__CAST(unsigned long, s->pos), XLARUN__CAST(unsigned long, n_keep));
    if (n_keep < s->pos) s->has_logits = 0; /* the KV entries past n_keep are overwritten later */
    s->pos = n_keep;
    if (n_keep == 0) s->ring_lo = 0; /* nothing is kept, nothing can be missing */
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_session_prefill(xlarun_session *s, const int32_t *ids, size_t n,
                                                xlarun_error *err) {
    size_t i;
    if (!xlarun__session_ok(s))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_prefill: NULL or freed session, or its model was closed");
    if (!ids || n == 0) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_session_prefill: no tokens given");
    if (n > s->n_ctx - s->pos) /* first: a wrong n must not make us read ids[] past the caller's array */
        return xlarun__fail(err, XLARUN_ERR_CONTEXT, "%lu tokens do not fit: the context holds %u and %lu are used",
                            XLARUN__CAST(unsigned long, n), s->n_ctx, XLARUN__CAST(unsigned long, s->pos));
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || XLARUN__CAST(uint32_t, ids[i]) >= s->m->cfg.vocab_size)
            return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "token id %ld at position %lu is outside the vocabulary (vocab_size %u)",
                                XLARUN__CAST(long, ids[i]), XLARUN__CAST(unsigned long, i), s->m->cfg.vocab_size);
    /* longrope: the long factors when the sequence reaches past the original max, the short ones
       within it, for every position, as one forward over the whole sequence (transformers'
       generate() drops its cache at the crossing to run it again): the positions held are run
       again with the other factors first */
    if (s->hist) {
        int lng = s->pos + n > s->m->cfg.rope_original_max_position_embeddings;
        size_t held = s->pos;
        memcpy(s->hist + held, ids, n * sizeof *ids);
        if (lng != s->rope_long && held) {
            s->pos = 0;
            s->ring_lo = 0;
            ids = s->hist;
            n += held;
            s->n_rerun += held;
        }
        s->rope_long = lng;
    }
    for (i = 0; i < n; i += s->n_batch)
        xlarun__forward(s, ids + i, n - i < s->n_batch ? n - i : s->n_batch, s->rope_long);
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

XLARUN_API const char *xlarun_session_amx(const xlarun_session *s) {
#if defined(XLARUN_K_QAMX) || defined(XLARUN_K_BAMX)
    if (s && s->amx == 1) return s->qtiles && s->btiles ? "int8+bf16" : s->btiles ? "bf16" : "int8";
    return s && s->amx == 0 ? "refused" : "unused"; /* unused: nothing the built kinds apply to */
#else
    (void)s;
    return "not built";
#endif
}

XLARUN_API size_t xlarun_session_position(const xlarun_session *s) {
    return s && s->magic == XLARUN__SESSION_MAGIC ? s->pos : 0;
}

/* ============================== 6. TOKENIZER ================================================== */
/* tokenizer.json: BPE (byte-level as Llama 3 / Qwen2 / GPT-2, SentencePiece-style with byte
   fallback as Llama 2), added and special tokens, decoding and streaming detokenization.       */
/* Pipeline (tokenizers 0.20.3's, checked against it): split out added tokens
   (leftmost-longest), normalize each remaining segment (SentencePiece: Prepend + Replace; Qwen2:
   NFC), split out normalized added tokens, pre-tokenize (the Llama 3 / Qwen2 Split pattern or
   the GPT-2 ByteLevel pattern, hand-coded below, after Digits when present), map bytes to the
   byte-level alphabet, BPE each word (ignore_merges, byte_fallback, unk), then the
   post-processor's template.
   Everything is validated at load; encoding and decoding touch only the caller's memory. */

/* ---- Unicode classes ------------------------------------------------------------------------ */
/* letters in three classes for the o200k pattern's upper set [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
   and lower set [\p{Ll}\p{Lm}\p{Lo}\p{M}]: LU (Lu, Lt), LL (Ll), LO (Lm, Lo); \p{L} is all three */
enum { XLARUN__U_OTHER, XLARUN__U_LU, XLARUN__U_ND, XLARUN__U_NL, XLARUN__U_NO, XLARUN__U_WS,
       XLARUN__U_M, XLARUN__U_W, XLARUN__U_LL, XLARUN__U_LO };

/* unicode table begin */
/* generated by tools/make_unicode.py from Unicode 14.0.0: 3115 ranges, (start << 4) | class */
static const uint32_t xlarun__uni_ranges[3115] = {
    0x0, 0x95, 0xe0, 0x205, 0x210, 0x302, 0x3a0, 0x411, 0x5b0, 0x5f7, 0x600, 0x618, 0x7b0, 0x855,
    0x860, 0xa05, 0xa10, 0xaa9, 0xab0, 0xb24, 0xb40, 0xb58, 0xb60, 0xb94, 0xba9, 0xbb0, 0xbc4,
    0xbf0, 0xc01, 0xd70, 0xd81, 0xdf8, 0xf70, 0xf88, 0x1001, 0x1018, 0x1021, 0x1038, 0x1041, 0x1058,
    0x1061, 0x1078, 0x1081, 0x1098, 0x10a1, 0x10b8, 0x10c1, 0x10d8, 0x10e1, 0x10f8, 0x1101, 0x1118,
    0x1121, 0x1138, 0x1141, 0x1158, 0x1161, 0x1178, 0x1181, 0x1198, 0x11a1, 0x11b8, 0x11c1, 0x11d8,
    0x11e1, 0x11f8, 0x1201, 0x1218, 0x1221, 0x1238, 0x1241, 0x1258, 0x1261, 0x1278, 0x1281, 0x1298,
    0x12a1, 0x12b8, 0x12c1, 0x12d8, 0x12e1, 0x12f8, 0x1301, 0x1318, 0x1321, 0x1338, 0x1341, 0x1358,
    0x1361, 0x1378, 0x1391, 0x13a8, 0x13b1, 0x13c8, 0x13d1, 0x13e8, 0x13f1, 0x1408, 0x1411, 0x1428,
    0x1431, 0x1448, 0x1451, 0x1468, 0x1471, 0x1488, 0x14a1, 0x14b8, 0x14c1, 0x14d8, 0x14e1, 0x14f8,
    0x1501, 0x1518, 0x1521, 0x1538, 0x1541, 0x1558, 0x1561, 0x1578, 0x1581, 0x1598, 0x15a1, 0x15b8,
    0x15c1, 0x15d8, 0x15e1, 0x15f8, 0x1601, 0x1618, 0x1621, 0x1638, 0x1641, 0x1658, 0x1661, 0x1678,
    0x1681, 0x1698, 0x16a1, 0x16b8, 0x16c1, 0x16d8, 0x16e1, 0x16f8, 0x1701, 0x1718, 0x1721, 0x1738,
    0x1741, 0x1758, 0x1761, 0x1778, 0x1781, 0x17a8, 0x17b1, 0x17c8, 0x17d1, 0x17e8, 0x1811, 0x1838,
    0x1841, 0x1858, 0x1861, 0x1888, 0x1891, 0x18c8, 0x18e1, 0x1928, 0x1931, 0x1958, 0x1961, 0x1998,
    0x19c1, 0x19e8, 0x19f1, 0x1a18, 0x1a21, 0x1a38, 0x1a41, 0x1a58, 0x1a61, 0x1a88, 0x1a91, 0x1aa8,
    0x1ac1, 0x1ad8, 0x1ae1, 0x1b08, 0x1b11, 0x1b48, 0x1b51, 0x1b68, 0x1b71, 0x1b98, 0x1bb9, 0x1bc1,
    0x1bd8, 0x1c09, 0x1c41, 0x1c68, 0x1c71, 0x1c98, 0x1ca1, 0x1cc8, 0x1cd1, 0x1ce8, 0x1cf1, 0x1d08,
    0x1d11, 0x1d28, 0x1d31, 0x1d48, 0x1d51, 0x1d68, 0x1d71, 0x1d88, 0x1d91, 0x1da8, 0x1db1, 0x1dc8,
    0x1de1, 0x1df8, 0x1e01, 0x1e18, 0x1e21, 0x1e38, 0x1e41, 0x1e58, 0x1e61, 0x1e78, 0x1e81, 0x1e98,
    0x1ea1, 0x1eb8, 0x1ec1, 0x1ed8, 0x1ee1, 0x1ef8, 0x1f11, 0x1f38, 0x1f41, 0x1f58, 0x1f61, 0x1f98,
    0x1fa1, 0x1fb8, 0x1fc1, 0x1fd8, 0x1fe1, 0x1ff8, 0x2001, 0x2018, 0x2021, 0x2038, 0x2041, 0x2058,
    0x2061, 0x2078, 0x2081, 0x2098, 0x20a1, 0x20b8, 0x20c1, 0x20d8, 0x20e1, 0x20f8, 0x2101, 0x2118,
    0x2121, 0x2138, 0x2141, 0x2158, 0x2161, 0x2178, 0x2181, 0x2198, 0x21a1, 0x21b8, 0x21c1, 0x21d8,
    0x21e1, 0x21f8, 0x2201, 0x2218, 0x2221, 0x2238, 0x2241, 0x2258, 0x2261, 0x2278, 0x2281, 0x2298,
    0x22a1, 0x22b8, 0x22c1, 0x22d8, 0x22e1, 0x22f8, 0x2301, 0x2318, 0x2321, 0x2338, 0x23a1, 0x23c8,
    0x23d1, 0x23f8, 0x2411, 0x2428, 0x2431, 0x2478, 0x2481, 0x2498, 0x24a1, 0x24b8, 0x24c1, 0x24d8,
    0x24e1, 0x24f8, 0x2949, 0x2958, 0x2b09, 0x2c20, 0x2c69, 0x2d20, 0x2e09, 0x2e50, 0x2ec9, 0x2ed0,
    0x2ee9, 0x2ef0, 0x3006, 0x3701, 0x3718, 0x3721, 0x3738, 0x3749, 0x3750, 0x3761, 0x3778, 0x3780,
    0x37a9, 0x37b8, 0x37e0, 0x37f1, 0x3800, 0x3861, 0x3870, 0x3881, 0x38b0, 0x38c1, 0x38d0, 0x38e1,
    0x3908, 0x3911, 0x3a20, 0x3a31, 0x3ac8, 0x3cf1, 0x3d08, 0x3d21, 0x3d58, 0x3d81, 0x3d98, 0x3da1,
    0x3db8, 0x3dc1, 0x3dd8, 0x3de1, 0x3df8, 0x3e01, 0x3e18, 0x3e21, 0x3e38, 0x3e41, 0x3e58, 0x3e61,
    0x3e78, 0x3e81, 0x3e98, 0x3ea1, 0x3eb8, 0x3ec1, 0x3ed8, 0x3ee1, 0x3ef8, 0x3f41, 0x3f58, 0x3f60,
    0x3f71, 0x3f88, 0x3f91, 0x3fb8, 0x3fd1, 0x4308, 0x4601, 0x4618, 0x4621, 0x4638, 0x4641, 0x4658,
    0x4661, 0x4678, 0x4681, 0x4698, 0x46a1, 0x46b8, 0x46c1, 0x46d8, 0x46e1, 0x46f8, 0x4701, 0x4718,
    0x4721, 0x4738, 0x4741, 0x4758, 0x4761, 0x4778, 0x4781, 0x4798, 0x47a1, 0x47b8, 0x47c1, 0x47d8,
    0x47e1, 0x47f8, 0x4801, 0x4818, 0x4820, 0x4836, 0x48a1, 0x48b8, 0x48c1, 0x48d8, 0x48e1, 0x48f8,
    0x4901, 0x4918, 0x4921, 0x4938, 0x4941, 0x4958, 0x4961, 0x4978, 0x4981, 0x4998, 0x49a1, 0x49b8,
    0x49c1, 0x49d8, 0x49e1, 0x49f8, 0x4a01, 0x4a18, 0x4a21, 0x4a38, 0x4a41, 0x4a58, 0x4a61, 0x4a78,
    0x4a81, 0x4a98, 0x4aa1, 0x4ab8, 0x4ac1, 0x4ad8, 0x4ae1, 0x4af8, 0x4b01, 0x4b18, 0x4b21, 0x4b38,
    0x4b41, 0x4b58, 0x4b61, 0x4b78, 0x4b81, 0x4b98, 0x4ba1, 0x4bb8, 0x4bc1, 0x4bd8, 0x4be1, 0x4bf8,
    0x4c01, 0x4c28, 0x4c31, 0x4c48, 0x4c51, 0x4c68, 0x4c71, 0x4c88, 0x4c91, 0x4ca8, 0x4cb1, 0x4cc8,
    0x4cd1, 0x4ce8, 0x4d01, 0x4d18, 0x4d21, 0x4d38, 0x4d41, 0x4d58, 0x4d61, 0x4d78, 0x4d81, 0x4d98,
    0x4da1, 0x4db8, 0x4dc1, 0x4dd8, 0x4de1, 0x4df8, 0x4e01, 0x4e18, 0x4e21, 0x4e38, 0x4e41, 0x4e58,
    0x4e61, 0x4e78, 0x4e81, 0x4e98, 0x4ea1, 0x4eb8, 0x4ec1, 0x4ed8, 0x4ee1, 0x4ef8, 0x4f01, 0x4f18,
    0x4f21, 0x4f38, 0x4f41, 0x4f58, 0x4f61, 0x4f78, 0x4f81, 0x4f98, 0x4fa1, 0x4fb8, 0x4fc1, 0x4fd8,
    0x4fe1, 0x4ff8, 0x5001, 0x5018, 0x5021, 0x5038, 0x5041, 0x5058, 0x5061, 0x5078, 0x5081, 0x5098,
    0x50a1, 0x50b8, 0x50c1, 0x50d8, 0x50e1, 0x50f8, 0x5101, 0x5118, 0x5121, 0x5138, 0x5141, 0x5158,
    0x5161, 0x5178, 0x5181, 0x5198, 0x51a1, 0x51b8, 0x51c1, 0x51d8, 0x51e1, 0x51f8, 0x5201, 0x5218,
    0x5221, 0x5238, 0x5241, 0x5258, 0x5261, 0x5278, 0x5281, 0x5298, 0x52a1, 0x52b8, 0x52c1, 0x52d8,
    0x52e1, 0x52f8, 0x5300, 0x5311, 0x5570, 0x5599, 0x55a0, 0x5608, 0x5890, 0x5916, 0x5be0, 0x5bf6,
    0x5c00, 0x5c16, 0x5c30, 0x5c46, 0x5c60, 0x5c76, 0x5c80, 0x5d09, 0x5eb0, 0x5ef9, 0x5f30, 0x6106,
    0x61b0, 0x6209, 0x64b6, 0x6602, 0x66a0, 0x66e9, 0x6706, 0x6719, 0x6d40, 0x6d59, 0x6d66, 0x6dd0,
    0x6df6, 0x6e59, 0x6e76, 0x6e90, 0x6ea6, 0x6ee9, 0x6f02, 0x6fa9, 0x6fd0, 0x6ff9, 0x7000, 0x7109,
    0x7116, 0x7129, 0x7306, 0x74b0, 0x74d9, 0x7a66, 0x7b19, 0x7b20, 0x7c02, 0x7ca9, 0x7eb6, 0x7f49,
    0x7f60, 0x7fa9, 0x7fb0, 0x7fd6, 0x7fe0, 0x8009, 0x8166, 0x81a9, 0x81b6, 0x8249, 0x8256, 0x8289,
    0x8296, 0x82e0, 0x8409, 0x8596, 0x85c0, 0x8609, 0x86b0, 0x8709, 0x8880, 0x8899, 0x88f0, 0x8986,
    0x8a09, 0x8ca6, 0x8e20, 0x8e36, 0x9049, 0x93a6, 0x93d9, 0x93e6, 0x9509, 0x9516, 0x9589, 0x9626,
    0x9640, 0x9662, 0x9700, 0x9719, 0x9816, 0x9840, 0x9859, 0x98d0, 0x98f9, 0x9910, 0x9939, 0x9a90,
    0x9aa9, 0x9b10, 0x9b29, 0x9b30, 0x9b69, 0x9ba0, 0x9bc6, 0x9bd9, 0x9be6, 0x9c50, 0x9c76, 0x9c90,
    0x9cb6, 0x9ce9, 0x9cf0, 0x9d76, 0x9d80, 0x9dc9, 0x9de0, 0x9df9, 0x9e26, 0x9e40, 0x9e62, 0x9f09,
    0x9f20, 0x9f44, 0x9fa0, 0x9fc9, 0x9fd0, 0x9fe6, 0x9ff0, 0xa016, 0xa040, 0xa059, 0xa0b0, 0xa0f9,
    0xa110, 0xa139, 0xa290, 0xa2a9, 0xa310, 0xa329, 0xa340, 0xa359, 0xa370, 0xa389, 0xa3a0, 0xa3c6,
    0xa3d0, 0xa3e6, 0xa430, 0xa476, 0xa490, 0xa4b6, 0xa4e0, 0xa516, 0xa520, 0xa599, 0xa5d0, 0xa5e9,
    0xa5f0, 0xa662, 0xa706, 0xa729, 0xa756, 0xa760, 0xa816, 0xa840, 0xa859, 0xa8e0, 0xa8f9, 0xa920,
    0xa939, 0xaa90, 0xaaa9, 0xab10, 0xab29, 0xab40, 0xab59, 0xaba0, 0xabc6, 0xabd9, 0xabe6, 0xac60,
    0xac76, 0xaca0, 0xacb6, 0xace0, 0xad09, 0xad10, 0xae09, 0xae26, 0xae40, 0xae62, 0xaf00, 0xaf99,
    0xafa6, 0xb000, 0xb016, 0xb040, 0xb059, 0xb0d0, 0xb0f9, 0xb110, 0xb139, 0xb290, 0xb2a9, 0xb310,
    0xb329, 0xb340, 0xb359, 0xb3a0, 0xb3c6, 0xb3d9, 0xb3e6, 0xb450, 0xb476, 0xb490, 0xb4b6, 0xb4e0,
    0xb556, 0xb580, 0xb5c9, 0xb5e0, 0xb5f9, 0xb626, 0xb640, 0xb662, 0xb700, 0xb719, 0xb724, 0xb780,
    0xb826, 0xb839, 0xb840, 0xb859, 0xb8b0, 0xb8e9, 0xb910, 0xb929, 0xb960, 0xb999, 0xb9b0, 0xb9c9,
    0xb9d0, 0xb9e9, 0xba00, 0xba39, 0xba50, 0xba89, 0xbab0, 0xbae9, 0xbba0, 0xbbe6, 0xbc30, 0xbc66,
    0xbc90, 0xbca6, 0xbce0, 0xbd09, 0xbd10, 0xbd76, 0xbd80, 0xbe62, 0xbf04, 0xbf30, 0xc006, 0xc059,
    0xc0d0, 0xc0e9, 0xc110, 0xc129, 0xc290, 0xc2a9, 0xc3a0, 0xc3c6, 0xc3d9, 0xc3e6, 0xc450, 0xc466,
    0xc490, 0xc4a6, 0xc4e0, 0xc556, 0xc570, 0xc589, 0xc5b0, 0xc5d9, 0xc5e0, 0xc609, 0xc626, 0xc640,
    0xc662, 0xc700, 0xc784, 0xc7f0, 0xc809, 0xc816, 0xc840, 0xc859, 0xc8d0, 0xc8e9, 0xc910, 0xc929,
    0xca90, 0xcaa9, 0xcb40, 0xcb59, 0xcba0, 0xcbc6, 0xcbd9, 0xcbe6, 0xcc50, 0xcc66, 0xcc90, 0xcca6,
    0xcce0, 0xcd56, 0xcd70, 0xcdd9, 0xcdf0, 0xce09, 0xce26, 0xce40, 0xce62, 0xcf00, 0xcf19, 0xcf30,
    0xd006, 0xd049, 0xd0d0, 0xd0e9, 0xd110, 0xd129, 0xd3b6, 0xd3d9, 0xd3e6, 0xd450, 0xd466, 0xd490,
    0xd4a6, 0xd4e9, 0xd4f0, 0xd549, 0xd576, 0xd584, 0xd5f9, 0xd626, 0xd640, 0xd662, 0xd704, 0xd790,
    0xd7a9, 0xd800, 0xd816, 0xd840, 0xd859, 0xd970, 0xd9a9, 0xdb20, 0xdb39, 0xdbc0, 0xdbd9, 0xdbe0,
    0xdc09, 0xdc70, 0xdca6, 0xdcb0, 0xdcf6, 0xdd50, 0xdd66, 0xdd70, 0xdd86, 0xde00, 0xde62, 0xdf00,
    0xdf26, 0xdf40, 0xe019, 0xe316, 0xe329, 0xe346, 0xe3b0, 0xe409, 0xe476, 0xe4f0, 0xe502, 0xe5a0,
    0xe819, 0xe830, 0xe849, 0xe850, 0xe869, 0xe8b0, 0xe8c9, 0xea40, 0xea59, 0xea60, 0xea79, 0xeb16,
    0xeb29, 0xeb46, 0xebd9, 0xebe0, 0xec09, 0xec50, 0xec69, 0xec70, 0xec86, 0xece0, 0xed02, 0xeda0,
    0xedc9, 0xee00, 0xf009, 0xf010, 0xf186, 0xf1a0, 0xf202, 0xf2a4, 0xf340, 0xf356, 0xf360, 0xf376,
    0xf380, 0xf396, 0xf3a0, 0xf3e6, 0xf409, 0xf480, 0xf499, 0xf6d0, 0xf716, 0xf850, 0xf866, 0xf889,
    0xf8d6, 0xf980, 0xf996, 0xfbd0, 0xfc66, 0xfc70, 0x10009, 0x102b6, 0x103f9, 0x10402, 0x104a0,
    0x10509, 0x10566, 0x105a9, 0x105e6, 0x10619, 0x10626, 0x10659, 0x10676, 0x106e9, 0x10716,
    0x10759, 0x10826, 0x108e9, 0x108f6, 0x10902, 0x109a6, 0x109e0, 0x10a01, 0x10c60, 0x10c71,
    0x10c80, 0x10cd1, 0x10ce0, 0x10d08, 0x10fb0, 0x10fc9, 0x10fd8, 0x11009, 0x12490, 0x124a9,
    0x124e0, 0x12509, 0x12570, 0x12589, 0x12590, 0x125a9, 0x125e0, 0x12609, 0x12890, 0x128a9,
    0x128e0, 0x12909, 0x12b10, 0x12b29, 0x12b60, 0x12b89, 0x12bf0, 0x12c09, 0x12c10, 0x12c29,
    0x12c60, 0x12c89, 0x12d70, 0x12d89, 0x13110, 0x13129, 0x13160, 0x13189, 0x135b0, 0x135d6,
    0x13600, 0x13694, 0x137d0, 0x13809, 0x13900, 0x13a01, 0x13f60, 0x13f88, 0x13fe0, 0x14019,
    0x166d0, 0x166f9, 0x16805, 0x16819, 0x169b0, 0x16a09, 0x16eb0, 0x16ee3, 0x16f19, 0x16f90,
    0x17009, 0x17126, 0x17160, 0x171f9, 0x17326, 0x17350, 0x17409, 0x17526, 0x17540, 0x17609,
    0x176d0, 0x176e9, 0x17710, 0x17726, 0x17740, 0x17809, 0x17b46, 0x17d40, 0x17d79, 0x17d80,
    0x17dc9, 0x17dd6, 0x17de0, 0x17e02, 0x17ea0, 0x17f04, 0x17fa0, 0x180b6, 0x180e0, 0x180f6,
    0x18102, 0x181a0, 0x18209, 0x18790, 0x18809, 0x18856, 0x18879, 0x18a96, 0x18aa9, 0x18ab0,
    0x18b09, 0x18f60, 0x19009, 0x191f0, 0x19206, 0x192c0, 0x19306, 0x193c0, 0x19462, 0x19509,
    0x196e0, 0x19709, 0x19750, 0x19809, 0x19ac0, 0x19b09, 0x19ca0, 0x19d02, 0x19da4, 0x19db0,
    0x1a009, 0x1a176, 0x1a1c0, 0x1a209, 0x1a556, 0x1a5f0, 0x1a606, 0x1a7d0, 0x1a7f6, 0x1a802,
    0x1a8a0, 0x1a902, 0x1a9a0, 0x1aa79, 0x1aa80, 0x1ab06, 0x1acf0, 0x1b006, 0x1b059, 0x1b346,
    0x1b459, 0x1b4d0, 0x1b502, 0x1b5a0, 0x1b6b6, 0x1b740, 0x1b806, 0x1b839, 0x1ba16, 0x1bae9,
    0x1bb02, 0x1bba9, 0x1be66, 0x1bf40, 0x1c009, 0x1c246, 0x1c380, 0x1c402, 0x1c4a0, 0x1c4d9,
    0x1c502, 0x1c5a9, 0x1c7e0, 0x1c808, 0x1c890, 0x1c901, 0x1cbb0, 0x1cbd1, 0x1cc00, 0x1cd06,
    0x1cd30, 0x1cd46, 0x1ce99, 0x1ced6, 0x1cee9, 0x1cf46, 0x1cf59, 0x1cf76, 0x1cfa9, 0x1cfb0,
    0x1d008, 0x1d2c9, 0x1d6b8, 0x1d789, 0x1d798, 0x1d9b9, 0x1dc06, 0x1e001, 0x1e018, 0x1e021,
    0x1e038, 0x1e041, 0x1e058, 0x1e061, 0x1e078, 0x1e081, 0x1e098, 0x1e0a1, 0x1e0b8, 0x1e0c1,
    0x1e0d8, 0x1e0e1, 0x1e0f8, 0x1e101, 0x1e118, 0x1e121, 0x1e138, 0x1e141, 0x1e158, 0x1e161,
    0x1e178, 0x1e181, 0x1e198, 0x1e1a1, 0x1e1b8, 0x1e1c1, 0x1e1d8, 0x1e1e1, 0x1e1f8, 0x1e201,
    0x1e218, 0x1e221, 0x1e238, 0x1e241, 0x1e258, 0x1e261, 0x1e278, 0x1e281, 0x1e298, 0x1e2a1,
    0x1e2b8, 0x1e2c1, 0x1e2d8, 0x1e2e1, 0x1e2f8, 0x1e301, 0x1e318, 0x1e321, 0x1e338, 0x1e341,
    0x1e358, 0x1e361, 0x1e378, 0x1e381, 0x1e398, 0x1e3a1, 0x1e3b8, 0x1e3c1, 0x1e3d8, 0x1e3e1,
    0x1e3f8, 0x1e401, 0x1e418, 0x1e421, 0x1e438, 0x1e441, 0x1e458, 0x1e461, 0x1e478, 0x1e481,
    0x1e498, 0x1e4a1, 0x1e4b8, 0x1e4c1, 0x1e4d8, 0x1e4e1, 0x1e4f8, 0x1e501, 0x1e518, 0x1e521,
    0x1e538, 0x1e541, 0x1e558, 0x1e561, 0x1e578, 0x1e581, 0x1e598, 0x1e5a1, 0x1e5b8, 0x1e5c1,
    0x1e5d8, 0x1e5e1, 0x1e5f8, 0x1e601, 0x1e618, 0x1e621, 0x1e638, 0x1e641, 0x1e658, 0x1e661,
    0x1e678, 0x1e681, 0x1e698, 0x1e6a1, 0x1e6b8, 0x1e6c1, 0x1e6d8, 0x1e6e1, 0x1e6f8, 0x1e701,
    0x1e718, 0x1e721, 0x1e738, 0x1e741, 0x1e758, 0x1e761, 0x1e778, 0x1e781, 0x1e798, 0x1e7a1,
    0x1e7b8, 0x1e7c1, 0x1e7d8, 0x1e7e1, 0x1e7f8, 0x1e801, 0x1e818, 0x1e821, 0x1e838, 0x1e841,
    0x1e858, 0x1e861, 0x1e878, 0x1e881, 0x1e898, 0x1e8a1, 0x1e8b8, 0x1e8c1, 0x1e8d8, 0x1e8e1,
    0x1e8f8, 0x1e901, 0x1e918, 0x1e921, 0x1e938, 0x1e941, 0x1e958, 0x1e9e1, 0x1e9f8, 0x1ea01,
    0x1ea18, 0x1ea21, 0x1ea38, 0x1ea41, 0x1ea58, 0x1ea61, 0x1ea78, 0x1ea81, 0x1ea98, 0x1eaa1,
    0x1eab8, 0x1eac1, 0x1ead8, 0x1eae1, 0x1eaf8, 0x1eb01, 0x1eb18, 0x1eb21, 0x1eb38, 0x1eb41,
    0x1eb58, 0x1eb61, 0x1eb78, 0x1eb81, 0x1eb98, 0x1eba1, 0x1ebb8, 0x1ebc1, 0x1ebd8, 0x1ebe1,
    0x1ebf8, 0x1ec01, 0x1ec18, 0x1ec21, 0x1ec38, 0x1ec41, 0x1ec58, 0x1ec61, 0x1ec78, 0x1ec81,
    0x1ec98, 0x1eca1, 0x1ecb8, 0x1ecc1, 0x1ecd8, 0x1ece1, 0x1ecf8, 0x1ed01, 0x1ed18, 0x1ed21,
    0x1ed38, 0x1ed41, 0x1ed58, 0x1ed61, 0x1ed78, 0x1ed81, 0x1ed98, 0x1eda1, 0x1edb8, 0x1edc1,
    0x1edd8, 0x1ede1, 0x1edf8, 0x1ee01, 0x1ee18, 0x1ee21, 0x1ee38, 0x1ee41, 0x1ee58, 0x1ee61,
    0x1ee78, 0x1ee81, 0x1ee98, 0x1eea1, 0x1eeb8, 0x1eec1, 0x1eed8, 0x1eee1, 0x1eef8, 0x1ef01,
    0x1ef18, 0x1ef21, 0x1ef38, 0x1ef41, 0x1ef58, 0x1ef61, 0x1ef78, 0x1ef81, 0x1ef98, 0x1efa1,
    0x1efb8, 0x1efc1, 0x1efd8, 0x1efe1, 0x1eff8, 0x1f081, 0x1f108, 0x1f160, 0x1f181, 0x1f1e0,
    0x1f208, 0x1f281, 0x1f308, 0x1f381, 0x1f408, 0x1f460, 0x1f481, 0x1f4e0, 0x1f508, 0x1f580,
    0x1f591, 0x1f5a0, 0x1f5b1, 0x1f5c0, 0x1f5d1, 0x1f5e0, 0x1f5f1, 0x1f608, 0x1f681, 0x1f708,
    0x1f7e0, 0x1f808, 0x1f881, 0x1f908, 0x1f981, 0x1fa08, 0x1fa81, 0x1fb08, 0x1fb50, 0x1fb68,
    0x1fb81, 0x1fbd0, 0x1fbe8, 0x1fbf0, 0x1fc28, 0x1fc50, 0x1fc68, 0x1fc81, 0x1fcd0, 0x1fd08,
    0x1fd40, 0x1fd68, 0x1fd81, 0x1fdc0, 0x1fe08, 0x1fe81, 0x1fed0, 0x1ff28, 0x1ff50, 0x1ff68,
    0x1ff81, 0x1ffd0, 0x20005, 0x200b0, 0x200c7, 0x200e0, 0x20285, 0x202a0, 0x202f5, 0x20300,
    0x203f7, 0x20410, 0x20547, 0x20550, 0x205f5, 0x20600, 0x20704, 0x20719, 0x20720, 0x20744,
    0x207a0, 0x207f9, 0x20804, 0x208a0, 0x20909, 0x209d0, 0x20d06, 0x20f10, 0x21021, 0x21030,
    0x21071, 0x21080, 0x210a8, 0x210b1, 0x210e8, 0x21101, 0x21138, 0x21140, 0x21151, 0x21160,
    0x21191, 0x211e0, 0x21241, 0x21250, 0x21261, 0x21270, 0x21281, 0x21290, 0x212a1, 0x212e0,
    0x212f8, 0x21301, 0x21348, 0x21359, 0x21398, 0x213a0, 0x213c8, 0x213e1, 0x21400, 0x21451,
    0x21468, 0x214a0, 0x214e8, 0x214f0, 0x21504, 0x21603, 0x21831, 0x21848, 0x21853, 0x21894,
    0x218a0, 0x24604, 0x249c0, 0x24b67, 0x24ea4, 0x25000, 0x27764, 0x27940, 0x2c001, 0x2c308,
    0x2c601, 0x2c618, 0x2c621, 0x2c658, 0x2c671, 0x2c688, 0x2c691, 0x2c6a8, 0x2c6b1, 0x2c6c8,
    0x2c6d1, 0x2c718, 0x2c721, 0x2c738, 0x2c751, 0x2c768, 0x2c7c9, 0x2c7e1, 0x2c818, 0x2c821,
    0x2c838, 0x2c841, 0x2c858, 0x2c861, 0x2c878, 0x2c881, 0x2c898, 0x2c8a1, 0x2c8b8, 0x2c8c1,
    0x2c8d8, 0x2c8e1, 0x2c8f8, 0x2c901, 0x2c918, 0x2c921, 0x2c938, 0x2c941, 0x2c958, 0x2c961,
    0x2c978, 0x2c981, 0x2c998, 0x2c9a1, 0x2c9b8, 0x2c9c1, 0x2c9d8, 0x2c9e1, 0x2c9f8, 0x2ca01,
    0x2ca18, 0x2ca21, 0x2ca38, 0x2ca41, 0x2ca58, 0x2ca61, 0x2ca78, 0x2ca81, 0x2ca98, 0x2caa1,
    0x2cab8, 0x2cac1, 0x2cad8, 0x2cae1, 0x2caf8, 0x2cb01, 0x2cb18, 0x2cb21, 0x2cb38, 0x2cb41,
    0x2cb58, 0x2cb61, 0x2cb78, 0x2cb81, 0x2cb98, 0x2cba1, 0x2cbb8, 0x2cbc1, 0x2cbd8, 0x2cbe1,
    0x2cbf8, 0x2cc01, 0x2cc18, 0x2cc21, 0x2cc38, 0x2cc41, 0x2cc58, 0x2cc61, 0x2cc78, 0x2cc81,
    0x2cc98, 0x2cca1, 0x2ccb8, 0x2ccc1, 0x2ccd8, 0x2cce1, 0x2ccf8, 0x2cd01, 0x2cd18, 0x2cd21,
    0x2cd38, 0x2cd41, 0x2cd58, 0x2cd61, 0x2cd78, 0x2cd81, 0x2cd98, 0x2cda1, 0x2cdb8, 0x2cdc1,
    0x2cdd8, 0x2cde1, 0x2cdf8, 0x2ce01, 0x2ce18, 0x2ce21, 0x2ce38, 0x2ce50, 0x2ceb1, 0x2cec8,
    0x2ced1, 0x2cee8, 0x2cef6, 0x2cf21, 0x2cf38, 0x2cf40, 0x2cfd4, 0x2cfe0, 0x2d008, 0x2d260,
    0x2d278, 0x2d280, 0x2d2d8, 0x2d2e0, 0x2d309, 0x2d680, 0x2d6f9, 0x2d700, 0x2d7f6, 0x2d809,
    0x2d970, 0x2da09, 0x2da70, 0x2da89, 0x2daf0, 0x2db09, 0x2db70, 0x2db89, 0x2dbf0, 0x2dc09,
    0x2dc70, 0x2dc89, 0x2dcf0, 0x2dd09, 0x2dd70, 0x2dd89, 0x2ddf0, 0x2de06, 0x2e000, 0x2e2f9,
    0x2e300, 0x30005, 0x30010, 0x30059, 0x30073, 0x30080, 0x30213, 0x302a6, 0x30300, 0x30319,
    0x30360, 0x30383, 0x303b9, 0x303d0, 0x30419, 0x30970, 0x30996, 0x309b0, 0x309d9, 0x30a00,
    0x30a19, 0x30fb0, 0x30fc9, 0x31000, 0x31059, 0x31300, 0x31319, 0x318f0, 0x31924, 0x31960,
    0x31a09, 0x31c00, 0x31f09, 0x32000, 0x32204, 0x322a0, 0x32484, 0x32500, 0x32514, 0x32600,
    0x32804, 0x328a0, 0x32b14, 0x32c00, 0x34009, 0x4dc00, 0x4e009, 0xa48d0, 0xa4d09, 0xa4fe0,
    0xa5009, 0xa60d0, 0xa6109, 0xa6202, 0xa62a9, 0xa62c0, 0xa6401, 0xa6418, 0xa6421, 0xa6438,
    0xa6441, 0xa6458, 0xa6461, 0xa6478, 0xa6481, 0xa6498, 0xa64a1, 0xa64b8, 0xa64c1, 0xa64d8,
    0xa64e1, 0xa64f8, 0xa6501, 0xa6518, 0xa6521, 0xa6538, 0xa6541, 0xa6558, 0xa6561, 0xa6578,
    0xa6581, 0xa6598, 0xa65a1, 0xa65b8, 0xa65c1, 0xa65d8, 0xa65e1, 0xa65f8, 0xa6601, 0xa6618,
    0xa6621, 0xa6638, 0xa6641, 0xa6658, 0xa6661, 0xa6678, 0xa6681, 0xa6698, 0xa66a1, 0xa66b8,
    0xa66c1, 0xa66d8, 0xa66e9, 0xa66f6, 0xa6730, 0xa6746, 0xa67e0, 0xa67f9, 0xa6801, 0xa6818,
    0xa6821, 0xa6838, 0xa6841, 0xa6858, 0xa6861, 0xa6878, 0xa6881, 0xa6898, 0xa68a1, 0xa68b8,
    0xa68c1, 0xa68d8, 0xa68e1, 0xa68f8, 0xa6901, 0xa6918, 0xa6921, 0xa6938, 0xa6941, 0xa6958,
    0xa6961, 0xa6978, 0xa6981, 0xa6998, 0xa69a1, 0xa69b8, 0xa69c9, 0xa69e6, 0xa6a09, 0xa6e63,
    0xa6f06, 0xa6f20, 0xa7179, 0xa7200, 0xa7221, 0xa7238, 0xa7241, 0xa7258, 0xa7261, 0xa7278,
    0xa7281, 0xa7298, 0xa72a1, 0xa72b8, 0xa72c1, 0xa72d8, 0xa72e1, 0xa72f8, 0xa7321, 0xa7338,
    0xa7341, 0xa7358, 0xa7361, 0xa7378, 0xa7381, 0xa7398, 0xa73a1, 0xa73b8, 0xa73c1, 0xa73d8,
    0xa73e1, 0xa73f8, 0xa7401, 0xa7418, 0xa7421, 0xa7438, 0xa7441, 0xa7458, 0xa7461, 0xa7478,
    0xa7481, 0xa7498, 0xa74a1, 0xa74b8, 0xa74c1, 0xa74d8, 0xa74e1, 0xa74f8, 0xa7501, 0xa7518,
    0xa7521, 0xa7538, 0xa7541, 0xa7558, 0xa7561, 0xa7578, 0xa7581, 0xa7598, 0xa75a1, 0xa75b8,
    0xa75c1, 0xa75d8, 0xa75e1, 0xa75f8, 0xa7601, 0xa7618, 0xa7621, 0xa7638, 0xa7641, 0xa7658,
    0xa7661, 0xa7678, 0xa7681, 0xa7698, 0xa76a1, 0xa76b8, 0xa76c1, 0xa76d8, 0xa76e1, 0xa76f8,
    0xa7709, 0xa7718, 0xa7791, 0xa77a8, 0xa77b1, 0xa77c8, 0xa77d1, 0xa77f8, 0xa7801, 0xa7818,
    0xa7821, 0xa7838, 0xa7841, 0xa7858, 0xa7861, 0xa7878, 0xa7889, 0xa7890, 0xa78b1, 0xa78c8,
    0xa78d1, 0xa78e8, 0xa78f9, 0xa7901, 0xa7918, 0xa7921, 0xa7938, 0xa7961, 0xa7978, 0xa7981,
    0xa7998, 0xa79a1, 0xa79b8, 0xa79c1, 0xa79d8, 0xa79e1, 0xa79f8, 0xa7a01, 0xa7a18, 0xa7a21,
    0xa7a38, 0xa7a41, 0xa7a58, 0xa7a61, 0xa7a78, 0xa7a81, 0xa7a98, 0xa7aa1, 0xa7af8, 0xa7b01,
    0xa7b58, 0xa7b61, 0xa7b78, 0xa7b81, 0xa7b98, 0xa7ba1, 0xa7bb8, 0xa7bc1, 0xa7bd8, 0xa7be1,
    0xa7bf8, 0xa7c01, 0xa7c18, 0xa7c21, 0xa7c38, 0xa7c41, 0xa7c88, 0xa7c91, 0xa7ca8, 0xa7cb0,
    0xa7d01, 0xa7d18, 0xa7d20, 0xa7d38, 0xa7d40, 0xa7d58, 0xa7d61, 0xa7d78, 0xa7d81, 0xa7d98,
    0xa7da0, 0xa7f29, 0xa7f51, 0xa7f68, 0xa7f79, 0xa7fa8, 0xa7fb9, 0xa8026, 0xa8039, 0xa8066,
    0xa8079, 0xa80b6, 0xa80c9, 0xa8236, 0xa8280, 0xa82c6, 0xa82d0, 0xa8304, 0xa8360, 0xa8409,
    0xa8740, 0xa8806, 0xa8829, 0xa8b46, 0xa8c60, 0xa8d02, 0xa8da0, 0xa8e06, 0xa8f29, 0xa8f80,
    0xa8fb9, 0xa8fc0, 0xa8fd9, 0xa8ff6, 0xa9002, 0xa90a9, 0xa9266, 0xa92e0, 0xa9309, 0xa9476,
    0xa9540, 0xa9609, 0xa97d0, 0xa9806, 0xa9849, 0xa9b36, 0xa9c10, 0xa9cf9, 0xa9d02, 0xa9da0,
    0xa9e09, 0xa9e56, 0xa9e69, 0xa9f02, 0xa9fa9, 0xa9ff0, 0xaa009, 0xaa296, 0xaa370, 0xaa409,
    0xaa436, 0xaa449, 0xaa4c6, 0xaa4e0, 0xaa502, 0xaa5a0, 0xaa609, 0xaa770, 0xaa7a9, 0xaa7b6,
    0xaa7e9, 0xaab06, 0xaab19, 0xaab26, 0xaab59, 0xaab76, 0xaab99, 0xaabe6, 0xaac09, 0xaac16,
    0xaac29, 0xaac30, 0xaadb9, 0xaade0, 0xaae09, 0xaaeb6, 0xaaf00, 0xaaf29, 0xaaf56, 0xaaf70,
    0xab019, 0xab070, 0xab099, 0xab0f0, 0xab119, 0xab170, 0xab209, 0xab270, 0xab289, 0xab2f0,
    0xab308, 0xab5b0, 0xab5c9, 0xab608, 0xab699, 0xab6a0, 0xab708, 0xabc09, 0xabe36, 0xabeb0,
    0xabec6, 0xabee0, 0xabf02, 0xabfa0, 0xac009, 0xd7a40, 0xd7b09, 0xd7c70, 0xd7cb9, 0xd7fc0,
    0xf9009, 0xfa6e0, 0xfa709, 0xfada0, 0xfb008, 0xfb070, 0xfb138, 0xfb180, 0xfb1d9, 0xfb1e6,
    0xfb1f9, 0xfb290, 0xfb2a9, 0xfb370, 0xfb389, 0xfb3d0, 0xfb3e9, 0xfb3f0, 0xfb409, 0xfb420,
    0xfb439, 0xfb450, 0xfb469, 0xfbb20, 0xfbd39, 0xfd3e0, 0xfd509, 0xfd900, 0xfd929, 0xfdc80,
    0xfdf09, 0xfdfc0, 0xfe006, 0xfe100, 0xfe206, 0xfe300, 0xfe337, 0xfe350, 0xfe4d7, 0xfe500,
    0xfe709, 0xfe750, 0xfe769, 0xfefd0, 0xff102, 0xff1a0, 0xff211, 0xff3b0, 0xff3f7, 0xff400,
    0xff418, 0xff5b0, 0xff669, 0xffbf0, 0xffc29, 0xffc80, 0xffca9, 0xffd00, 0xffd29, 0xffd80,
    0xffda9, 0xffdd0, 0x100009, 0x1000c0, 0x1000d9, 0x100270, 0x100289, 0x1003b0, 0x1003c9,
    0x1003e0, 0x1003f9, 0x1004e0, 0x100509, 0x1005e0, 0x100809, 0x100fb0, 0x101074, 0x101340,
    0x101403, 0x101754, 0x101790, 0x1018a4, 0x1018c0, 0x101fd6, 0x101fe0, 0x102809, 0x1029d0,
    0x102a09, 0x102d10, 0x102e06, 0x102e14, 0x102fc0, 0x103009, 0x103204, 0x103240, 0x1032d9,
    0x103413, 0x103429, 0x1034a3, 0x1034b0, 0x103509, 0x103766, 0x1037b0, 0x103809, 0x1039e0,
    0x103a09, 0x103c40, 0x103c89, 0x103d00, 0x103d13, 0x103d60, 0x104001, 0x104288, 0x104509,
    0x1049e0, 0x104a02, 0x104aa0, 0x104b01, 0x104d40, 0x104d88, 0x104fc0, 0x105009, 0x105280,
    0x105309, 0x105640, 0x105701, 0x1057b0, 0x1057c1, 0x1058b0, 0x1058c1, 0x105930, 0x105941,
    0x105960, 0x105978, 0x105a20, 0x105a38, 0x105b20, 0x105b38, 0x105ba0, 0x105bb8, 0x105bd0,
    0x106009, 0x107370, 0x107409, 0x107560, 0x107609, 0x107680, 0x107809, 0x107860, 0x107879,
    0x107b10, 0x107b29, 0x107bb0, 0x108009, 0x108060, 0x108089, 0x108090, 0x1080a9, 0x108360,
    0x108379, 0x108390, 0x1083c9, 0x1083d0, 0x1083f9, 0x108560, 0x108584, 0x108609, 0x108770,
    0x108794, 0x108809, 0x1089f0, 0x108a74, 0x108b00, 0x108e09, 0x108f30, 0x108f49, 0x108f60,
    0x108fb4, 0x109009, 0x109164, 0x1091c0, 0x109209, 0x1093a0, 0x109809, 0x109b80, 0x109bc4,
    0x109be9, 0x109c04, 0x109d00, 0x109d24, 0x10a009, 0x10a016, 0x10a040, 0x10a056, 0x10a070,
    0x10a0c6, 0x10a109, 0x10a140, 0x10a159, 0x10a180, 0x10a199, 0x10a360, 0x10a386, 0x10a3b0,
    0x10a3f6, 0x10a404, 0x10a490, 0x10a609, 0x10a7d4, 0x10a7f0, 0x10a809, 0x10a9d4, 0x10aa00,
    0x10ac09, 0x10ac80, 0x10ac99, 0x10ae56, 0x10ae70, 0x10aeb4, 0x10af00, 0x10b009, 0x10b360,
    0x10b409, 0x10b560, 0x10b584, 0x10b609, 0x10b730, 0x10b784, 0x10b809, 0x10b920, 0x10ba94,
    0x10bb00, 0x10c009, 0x10c490, 0x10c801, 0x10cb30, 0x10cc08, 0x10cf30, 0x10cfa4, 0x10d009,
    0x10d246, 0x10d280, 0x10d302, 0x10d3a0, 0x10e604, 0x10e7f0, 0x10e809, 0x10eaa0, 0x10eab6,
    0x10ead0, 0x10eb09, 0x10eb20, 0x10f009, 0x10f1d4, 0x10f279, 0x10f280, 0x10f309, 0x10f466,
    0x10f514, 0x10f550, 0x10f709, 0x10f826, 0x10f860, 0x10fb09, 0x10fc54, 0x10fcc0, 0x10fe09,
    0x10ff70, 0x110006, 0x110039, 0x110386, 0x110470, 0x110524, 0x110662, 0x110706, 0x110719,
    0x110736, 0x110759, 0x110760, 0x1107f6, 0x110839, 0x110b06, 0x110bb0, 0x110c26, 0x110c30,
    0x110d09, 0x110e90, 0x110f02, 0x110fa0, 0x111006, 0x111039, 0x111276, 0x111350, 0x111362,
    0x111400, 0x111449, 0x111456, 0x111479, 0x111480, 0x111509, 0x111736, 0x111740, 0x111769,
    0x111770, 0x111806, 0x111839, 0x111b36, 0x111c19, 0x111c50, 0x111c96, 0x111cd0, 0x111ce6,
    0x111d02, 0x111da9, 0x111db0, 0x111dc9, 0x111dd0, 0x111e14, 0x111f50, 0x112009, 0x112120,
    0x112139, 0x1122c6, 0x112380, 0x1123e6, 0x1123f0, 0x112809, 0x112870, 0x112889, 0x112890,
    0x1128a9, 0x1128e0, 0x1128f9, 0x1129e0, 0x1129f9, 0x112a90, 0x112b09, 0x112df6, 0x112eb0,
    0x112f02, 0x112fa0, 0x113006, 0x113040, 0x113059, 0x1130d0, 0x1130f9, 0x113110, 0x113139,
    0x113290, 0x1132a9, 0x113310, 0x113329, 0x113340, 0x113359, 0x1133a0, 0x1133b6, 0x1133d9,
    0x1133e6, 0x113450, 0x113476, 0x113490, 0x1134b6, 0x1134e0, 0x113509, 0x113510, 0x113576,
    0x113580, 0x1135d9, 0x113626, 0x113640, 0x113666, 0x1136d0, 0x113706, 0x113750, 0x114009,
    0x114356, 0x114479, 0x1144b0, 0x114502, 0x1145a0, 0x1145e6, 0x1145f9, 0x114620, 0x114809,
    0x114b06, 0x114c49, 0x114c60, 0x114c79, 0x114c80, 0x114d02, 0x114da0, 0x115809, 0x115af6,
    0x115b60, 0x115b86, 0x115c10, 0x115d89, 0x115dc6, 0x115de0, 0x116009, 0x116306, 0x116410,
    0x116449, 0x116450, 0x116502, 0x1165a0, 0x116809, 0x116ab6, 0x116b89, 0x116b90, 0x116c02,
    0x116ca0, 0x117009, 0x1171b0, 0x1171d6, 0x1172c0, 0x117302, 0x1173a4, 0x1173c0, 0x117409,
    0x117470, 0x118009, 0x1182c6, 0x1183b0, 0x118a01, 0x118c08, 0x118e02, 0x118ea4, 0x118f30,
    0x118ff9, 0x119070, 0x119099, 0x1190a0, 0x1190c9, 0x119140, 0x119159, 0x119170, 0x119189,
    0x119306, 0x119360, 0x119376, 0x119390, 0x1193b6, 0x1193f9, 0x119406, 0x119419, 0x119426,
    0x119440, 0x119502, 0x1195a0, 0x119a09, 0x119a80, 0x119aa9, 0x119d16, 0x119d80, 0x119da6,
    0x119e19, 0x119e20, 0x119e39, 0x119e46, 0x119e50, 0x11a009, 0x11a016, 0x11a0b9, 0x11a336,
    0x11a3a9, 0x11a3b6, 0x11a3f0, 0x11a476, 0x11a480, 0x11a509, 0x11a516, 0x11a5c9, 0x11a8a6,
    0x11a9a0, 0x11a9d9, 0x11a9e0, 0x11ab09, 0x11af90, 0x11c009, 0x11c090, 0x11c0a9, 0x11c2f6,
    0x11c370, 0x11c386, 0x11c409, 0x11c410, 0x11c502, 0x11c5a4, 0x11c6d0, 0x11c729, 0x11c900,
    0x11c926, 0x11ca80, 0x11ca96, 0x11cb70, 0x11d009, 0x11d070, 0x11d089, 0x11d0a0, 0x11d0b9,
    0x11d316, 0x11d370, 0x11d3a6, 0x11d3b0, 0x11d3c6, 0x11d3e0, 0x11d3f6, 0x11d469, 0x11d476,
    0x11d480, 0x11d502, 0x11d5a0, 0x11d609, 0x11d660, 0x11d679, 0x11d690, 0x11d6a9, 0x11d8a6,
    0x11d8f0, 0x11d906, 0x11d920, 0x11d936, 0x11d989, 0x11d990, 0x11da02, 0x11daa0, 0x11ee09,
    0x11ef36, 0x11ef70, 0x11fb09, 0x11fb10, 0x11fc04, 0x11fd50, 0x120009, 0x1239a0, 0x124003,
    0x1246f0, 0x124809, 0x125440, 0x12f909, 0x12ff10, 0x130009, 0x1342f0, 0x144009, 0x146470,
    0x168009, 0x16a390, 0x16a409, 0x16a5f0, 0x16a602, 0x16a6a0, 0x16a709, 0x16abf0, 0x16ac02,
    0x16aca0, 0x16ad09, 0x16aee0, 0x16af06, 0x16af50, 0x16b009, 0x16b306, 0x16b370, 0x16b409,
    0x16b440, 0x16b502, 0x16b5a0, 0x16b5b4, 0x16b620, 0x16b639, 0x16b780, 0x16b7d9, 0x16b900,
    0x16e401, 0x16e608, 0x16e804, 0x16e970, 0x16f009, 0x16f4b0, 0x16f4f6, 0x16f509, 0x16f516,
    0x16f880, 0x16f8f6, 0x16f939, 0x16fa00, 0x16fe09, 0x16fe20, 0x16fe39, 0x16fe46, 0x16fe50,
    0x16ff06, 0x16ff20, 0x170009, 0x187f80, 0x188009, 0x18cd60, 0x18d009, 0x18d090, 0x1aff09,
    0x1aff40, 0x1aff59, 0x1affc0, 0x1affd9, 0x1afff0, 0x1b0009, 0x1b1230, 0x1b1509, 0x1b1530,
    0x1b1649, 0x1b1680, 0x1b1709, 0x1b2fc0, 0x1bc009, 0x1bc6b0, 0x1bc709, 0x1bc7d0, 0x1bc809,
    0x1bc890, 0x1bc909, 0x1bc9a0, 0x1bc9d6, 0x1bc9f0, 0x1cf006, 0x1cf2e0, 0x1cf306, 0x1cf470,
    0x1d1656, 0x1d16a0, 0x1d16d6, 0x1d1730, 0x1d17b6, 0x1d1830, 0x1d1856, 0x1d18c0, 0x1d1aa6,
    0x1d1ae0, 0x1d2426, 0x1d2450, 0x1d2e04, 0x1d2f40, 0x1d3604, 0x1d3790, 0x1d4001, 0x1d41a8,
    0x1d4341, 0x1d44e8, 0x1d4550, 0x1d4568, 0x1d4681, 0x1d4828, 0x1d49c1, 0x1d49d0, 0x1d49e1,
    0x1d4a00, 0x1d4a21, 0x1d4a30, 0x1d4a51, 0x1d4a70, 0x1d4a91, 0x1d4ad0, 0x1d4ae1, 0x1d4b68,
    0x1d4ba0, 0x1d4bb8, 0x1d4bc0, 0x1d4bd8, 0x1d4c40, 0x1d4c58, 0x1d4d01, 0x1d4ea8, 0x1d5041,
    0x1d5060, 0x1d5071, 0x1d50b0, 0x1d50d1, 0x1d5150, 0x1d5161, 0x1d51d0, 0x1d51e8, 0x1d5381,
    0x1d53a0, 0x1d53b1, 0x1d53f0, 0x1d5401, 0x1d5450, 0x1d5461, 0x1d5470, 0x1d54a1, 0x1d5510,
    0x1d5528, 0x1d56c1, 0x1d5868, 0x1d5a01, 0x1d5ba8, 0x1d5d41, 0x1d5ee8, 0x1d6081, 0x1d6228,
    0x1d63c1, 0x1d6568, 0x1d6701, 0x1d68a8, 0x1d6a60, 0x1d6a81, 0x1d6c10, 0x1d6c28, 0x1d6db0,
    0x1d6dc8, 0x1d6e21, 0x1d6fb0, 0x1d6fc8, 0x1d7150, 0x1d7168, 0x1d71c1, 0x1d7350, 0x1d7368,
    0x1d74f0, 0x1d7508, 0x1d7561, 0x1d76f0, 0x1d7708, 0x1d7890, 0x1d78a8, 0x1d7901, 0x1d7a90,
    0x1d7aa8, 0x1d7c30, 0x1d7c48, 0x1d7ca1, 0x1d7cb8, 0x1d7cc0, 0x1d7ce2, 0x1d8000, 0x1da006,
    0x1da370, 0x1da3b6, 0x1da6d0, 0x1da756, 0x1da760, 0x1da846, 0x1da850, 0x1da9b6, 0x1daa00,
    0x1daa16, 0x1dab00, 0x1df008, 0x1df0a9, 0x1df0b8, 0x1df1f0, 0x1e0006, 0x1e0070, 0x1e0086,
    0x1e0190, 0x1e01b6, 0x1e0220, 0x1e0236, 0x1e0250, 0x1e0266, 0x1e02b0, 0x1e1009, 0x1e12d0,
    0x1e1306, 0x1e1379, 0x1e13e0, 0x1e1402, 0x1e14a0, 0x1e14e9, 0x1e14f0, 0x1e2909, 0x1e2ae6,
    0x1e2af0, 0x1e2c09, 0x1e2ec6, 0x1e2f02, 0x1e2fa0, 0x1e7e09, 0x1e7e70, 0x1e7e89, 0x1e7ec0,
    0x1e7ed9, 0x1e7ef0, 0x1e7f09, 0x1e7ff0, 0x1e8009, 0x1e8c50, 0x1e8c74, 0x1e8d06, 0x1e8d70,
    0x1e9001, 0x1e9228, 0x1e9446, 0x1e94b9, 0x1e94c0, 0x1e9502, 0x1e95a0, 0x1ec714, 0x1ecac0,
    0x1ecad4, 0x1ecb00, 0x1ecb14, 0x1ecb50, 0x1ed014, 0x1ed2e0, 0x1ed2f4, 0x1ed3e0, 0x1ee009,
    0x1ee040, 0x1ee059, 0x1ee200, 0x1ee219, 0x1ee230, 0x1ee249, 0x1ee250, 0x1ee279, 0x1ee280,
    0x1ee299, 0x1ee330, 0x1ee349, 0x1ee380, 0x1ee399, 0x1ee3a0, 0x1ee3b9, 0x1ee3c0, 0x1ee429,
    0x1ee430, 0x1ee479, 0x1ee480, 0x1ee499, 0x1ee4a0, 0x1ee4b9, 0x1ee4c0, 0x1ee4d9, 0x1ee500,
    0x1ee519, 0x1ee530, 0x1ee549, 0x1ee550, 0x1ee579, 0x1ee580, 0x1ee599, 0x1ee5a0, 0x1ee5b9,
    0x1ee5c0, 0x1ee5d9, 0x1ee5e0, 0x1ee5f9, 0x1ee600, 0x1ee619, 0x1ee630, 0x1ee649, 0x1ee650,
    0x1ee679, 0x1ee6b0, 0x1ee6c9, 0x1ee730, 0x1ee749, 0x1ee780, 0x1ee799, 0x1ee7d0, 0x1ee7e9,
    0x1ee7f0, 0x1ee809, 0x1ee8a0, 0x1ee8b9, 0x1ee9c0, 0x1eea19, 0x1eea40, 0x1eea59, 0x1eeaa0,
    0x1eeab9, 0x1eebc0, 0x1f1004, 0x1f10d0, 0x1f1307, 0x1f14a0, 0x1f1507, 0x1f16a0, 0x1f1707,
    0x1f18a0, 0x1fbf02, 0x1fbfa0, 0x200009, 0x2a6e00, 0x2a7009, 0x2b7390, 0x2b7409, 0x2b81e0,
    0x2b8209, 0x2cea20, 0x2ceb09, 0x2ebe10, 0x2f8009, 0x2fa1e0, 0x300009, 0x3134b0, 0xe01006,
    0xe01f00,
};
/* unicode table end */
static int xlarun__uclass(uint32_t cp) {
    size_t lo = 0, hi = sizeof xlarun__uni_ranges / sizeof xlarun__uni_ranges[0];
    if (cp < 0x80) {
        if (cp >= 'a' && cp <= 'z') return XLARUN__U_LL;
        if (cp >= 'A' && cp <= 'Z') return XLARUN__U_LU;
        if (cp >= '0' && cp <= '9') return XLARUN__U_ND;
        if (cp == ' ' || (cp >= 9 && cp <= 13)) return XLARUN__U_WS;
        return cp == '_' ? XLARUN__U_W : XLARUN__U_OTHER;
    }
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if ((xlarun__uni_ranges[mid] >> 4) <= cp) lo = mid; else hi = mid;
    }
    return XLARUN__CAST(int, xlarun__uni_ranges[lo] & 15u);
}
static int xlarun__u_isl(int k) { return k == XLARUN__U_LU || k == XLARUN__U_LL || k == XLARUN__U_LO; }
static int xlarun__u_isn(int k) { return k == XLARUN__U_ND || k == XLARUN__U_NL || k == XLARUN__U_NO; }
/* Rust regex \w: Alphabetic, marks, Nd, Pc, Join_Control */
static int xlarun__u_isword(int k) { return xlarun__u_isl(k) || k == XLARUN__U_ND || k == XLARUN__U_NL || k == XLARUN__U_M || k == XLARUN__U_W; }

/* code point of the valid UTF-8 character at s[i]; *l its length */
static uint32_t xlarun__cp_at(const unsigned char *s, size_t i, size_t *l) {
    uint32_t c = s[i];
    if (c < 0x80) { *l = 1; return c; }
    if (c < 0xE0) { *l = 2; return ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu); }
    if (c < 0xF0) { *l = 3; return ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu); }
    *l = 4;
    return ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);
}
static int xlarun__class_at(const unsigned char *s, size_t i, size_t *l) {
    return xlarun__uclass(xlarun__cp_at(s, i, l));
}
/* first invalid byte offset of a UTF-8 text, or n */
static size_t xlarun__utf8_check(const unsigned char *s, size_t n) {
    size_t i = 0, l;
    while (i < n) {
        if (s[i] < 0x80) { i++; continue; }
        l = xlarun__utf8_len(s + i, n - i);
        if (!l) return i;
        i += l;
    }
    return n;
}
/* length of the maximal subpart of an ill-formed sequence at s[i] (Unicode 3.9, "U+FFFD
   substitution of maximal subparts", as Python's errors="replace" and Rust's from_utf8_lossy) */
static size_t xlarun__utf8_bad_len(const unsigned char *s, size_t n) {
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    size_t need, k;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c >= 0xE0 && c <= 0xEF) { need = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { need = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
    else return 1;
    for (k = 1; k <= need && k < n; k++) {
        if (s[k] < lo || s[k] > hi) return k;
        lo = 0x80; hi = 0xBF;
    }
    return k;
}

/* ---- the tokenizer -------------------------------------------------------------------------- */
#define XLARUN__TOK_MAGIC 0x584C544Bu
#define XLARUN_MAX_TOKENIZER_BYTES (256u << 20)

/* per-id flags */
#define XLARUN__TF_SPECIAL 1u
#define XLARUN__TF_ADDED 2u
#define XLARUN__TF_VOCAB 4u
#define XLARUN__TF_BL_RAW 8u    /* byte-level decode: a char outside the alphabet, use the raw bytes */
#define XLARUN__TF_BYTE 16u     /* a <0xHH> token (ByteFallback decoder) */
/* added-token flags */
#define XLARUN__AT_SINGLE 1u
#define XLARUN__AT_LSTRIP 2u
#define XLARUN__AT_RSTRIP 4u
#define XLARUN__AT_NORM 8u
#define XLARUN__AT_SPECIAL 16u  /* sorts first among equal texts: tokenizers lists special tokens first */
enum { XLARUN__PRE_NONE, XLARUN__PRE_LLAMA3, XLARUN__PRE_GPT2, XLARUN__PRE_SPACE, XLARUN__PRE_O200K };
enum { XLARUN__DEC_NONE, XLARUN__DEC_BYTELEVEL, XLARUN__DEC_SP };
enum { XLARUN__MS_NEVER, XLARUN__MS_FIRST, XLARUN__MS_ALWAYS };
#define XLARUN__MAX_TEMPLATE 8

typedef struct xlarun__added {
    int32_t id;
    unsigned flags;
    const unsigned char *text;      /* what is matched: the content, normalized when AT_NORM */
    uint32_t len;
} xlarun__added;

typedef struct xlarun__merge { int32_t a, b, rank, id; } xlarun__merge;

struct xlarun_tokenizer {
    uint32_t magic;
    uint32_t n_ids;                 /* vocab_size */
    uint32_t n_vocab;               /* model.vocab entries */
    const char *pieces;             /* every token's text, in id order, NUL after each */
    const uint32_t *off;            /* n_ids + 1 offsets; a hole has length 0 and no TF_ flags */
    const unsigned char *flags;
    const uint32_t *vhash;          /* model.vocab: id + 1 per slot, 0 = empty */
    uint32_t vmask;
    const xlarun__merge *mhash;     /* (a, b) -> rank, id; a = -1 empty */
    uint32_t mmask;
    const int32_t *char_id;         /* model.vocab id of each one-character token below U+0800 */
    int32_t byte_id[256];           /* <0xHH> ids for byte_fallback, -1 */
    int32_t unk_id;                 /* -1: none */
    int byte_level, ignore_merges, byte_fallback, fuse_unk;
    int pre;                        /* XLARUN__PRE_*; SPACE: Split(" ", MergedWithPrevious) */
    int split_digits;               /* XLARUN__PRE_LLAMA3: digits per piece, 3 (Llama 3) or 1 (Qwen2);
                                       XLARUN__PRE_O200K: 3 (o200k) or 1 (Tekken) */
    int split_contr;                /* XLARUN__PRE_O200K: contractions after words (o200k), 0 (Tekken) */
    int digits;                     /* 0 none, 1 individual, 2 contiguous runs */
    int nfc;                        /* normalizer NFC */
    const char *prepend;            /* normalizer Prepend, NULL = none */
    const char *rep_from, *rep_to;  /* normalizer Replace, NULL = none */
    int prepend_first;              /* Prepend runs before Replace */
    const char *ms_rep;             /* pre_tokenizer Metaspace: its replacement character, NULL = none */
    int ms_prepend, ms_split;       /* XLARUN__MS_NEVER/FIRST/ALWAYS; split on the replacement */
    const xlarun__added *added;     /* sorted: non-normalized first, each set by text (bytes) */
    uint32_t n_added, n_added_raw;
    uint32_t bucket[2][257];        /* [normalized][first byte] ranges into added */
    int dec;                        /* XLARUN__DEC_* */
    const char *dec_from, *dec_to;  /* decoder Replace */
    int dec_byte_fallback, dec_fuse, dec_strip;  /* dec_strip: leading ' ' chars to strip */
    int dec_ms;                     /* decoder Metaspace (dec_from = its character, dec_to = " "):
                                       1 replaces, 2 also drops it from the first token */
    int dec_ms_bytes;               /* ByteFallback comes first: characters of <0xHH> runs too */
    uint32_t dec_strip_char;
    int32_t prefix[XLARUN__MAX_TEMPLATE], suffix[XLARUN__MAX_TEMPLATE];
    uint32_t n_prefix, n_suffix;
    int32_t bos_id;
    int32_t eos[XLARUN_MAX_EOS];
    uint32_t n_eos;
    const char *chat_template;
    const char *special_texts[7]; /* tokenizer_config.json's bos/eos/unk/sep/pad/cls/mask_token, or NULL */
    size_t max_piece, max_token_len;
    void *own;
    void *alloc_user;
};

/* byte-level alphabet: byte -> code point, and code point (< 0x144) -> byte + 1 */
static uint32_t xlarun__bl_cp(unsigned b) {   /* the 68 others: 00-20, 7F-A0, AD */
    if (b <= 0x20) return 0x100 + b;
    if (b >= 0x7F && b <= 0xA0) return 0x100 + 33 + (b - 0x7F);
    if (b == 0xAD) return 0x100 + 67;
    return b;
}
static int xlarun__bl_byte(uint32_t cp) {
    if ((cp >= 0x21 && cp <= 0x7E) || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE && cp <= 0xFF))
        return XLARUN__CAST(int, cp);
    if (cp >= 0x100 && cp < 0x100 + 33) return XLARUN__CAST(int, cp - 0x100);
    if (cp >= 0x100 + 33 && cp < 0x100 + 67) return XLARUN__CAST(int, cp - 0x100 - 33 + 0x7F);
    return cp == 0x100 + 67 ? 0xAD : -1;
}
static size_t xlarun__tk_put_cp(unsigned char *o, uint32_t cp) {
    if (cp < 0x80) { o[0] = XLARUN__CAST(unsigned char, cp); return 1; }
    if (cp < 0x800) {
        o[0] = XLARUN__CAST(unsigned char, 0xC0 | (cp >> 6));
        o[1] = XLARUN__CAST(unsigned char, 0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = XLARUN__CAST(unsigned char, 0xE0 | (cp >> 12));
        o[1] = XLARUN__CAST(unsigned char, 0x80 | ((cp >> 6) & 0x3F));
        o[2] = XLARUN__CAST(unsigned char, 0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = XLARUN__CAST(unsigned char, 0xF0 | (cp >> 18));
    o[1] = XLARUN__CAST(unsigned char, 0x80 | ((cp >> 12) & 0x3F));
    o[2] = XLARUN__CAST(unsigned char, 0x80 | ((cp >> 6) & 0x3F));
    o[3] = XLARUN__CAST(unsigned char, 0x80 | (cp & 0x3F));
    return 4;
}

static uint64_t xlarun__tk_hash(const void *p, size_t n) {
    const unsigned char *s = XLARUN__CAST(const unsigned char *, p);
    uint64_t h = 0xcbf29ce484222325u;
    size_t i;
    for (i = 0; i < n; i++) { h ^= s[i]; h *= 0x100000001b3u; }
    return h ^ (h >> 29);
}
static uint32_t xlarun__pair_hash(int32_t a, int32_t b) {
    uint64_t h = (XLARUN__CAST(uint64_t, XLARUN__CAST(uint32_t, a)) << 32 | XLARUN__CAST(uint32_t, b)) * 0x9E3779B97F4A7C15u;
    return XLARUN__CAST(uint32_t, h >> 32);
}
static size_t xlarun__piece_len(const xlarun_tokenizer *t, int32_t id) {
    return t->off[id + 1] - t->off[id] - 1;
}
/* model.vocab id of the string, -1 */
static int32_t xlarun__vocab_find(const xlarun_tokenizer *t, const void *s, size_t n) {
    uint32_t i = XLARUN__CAST(uint32_t, xlarun__tk_hash(s, n)) & t->vmask;
    for (;; i = (i + 1) & t->vmask) {
        uint32_t v = t->vhash[i];
        int32_t id;
        if (!v) return -1;
        id = XLARUN__CAST(int32_t, v - 1);
        if (xlarun__piece_len(t, id) == n && !memcmp(t->pieces + t->off[id], s, n)) return id;
    }
}
static const xlarun__merge *xlarun__merge_find(const xlarun_tokenizer *t, int32_t a, int32_t b) {
    uint32_t i = xlarun__pair_hash(a, b) & t->mmask;
    if (!t->mhash) return NULL;
    for (;; i = (i + 1) & t->mmask) {
        const xlarun__merge *m = &t->mhash[i];
        if (m->a < 0) return NULL;
        if (m->a == a && m->b == b) return m;
    }
}

/* ---- normalizers: Prepend, Replace, NFC ----------------------------------------------------
   NFC is Unicode canonical composition (UAX #15) as tokenizers 0.20.3 computes it, with Unicode
   9.0's data: its crate unicode-normalization-alignments 0.1.12 has Unicode 9.0.0 tables. The 99
   code points that Unicode 10.0-14.0 gave a combining class or a canonical decomposition (U+0898,
   U+1DF6, U+11938, ...; tools/make_unicode.py lists them) are unassigned there: class 0, nothing
   to decompose or compose, so text with them can differ from a newer NFC (Python 3.11's). A
   segment is decomposed into code points (each with its class above bit 21), each run of
   non-starters is put in order of class (stably), then each code point composes with the last
   starter unless a code point between blocks it (Hangul by arithmetic, Unicode 3.12). */

/* nfc tables begin */
/* generated by tools/make_unicode.py: canonical normalization of Unicode 9.0.0 (as tokenizers 0.20.3),
   Python's Unicode 14.0.0 data without the 99 code points assigned since 9.0 that have a class or
   a decomposition. 496 class ranges, 2060 decompositions, 940 composites */
#define XLARUN__NFC_GROWTH 3 /* UTF-8 bytes of output per byte of input, at most (U+1D160) */
static const uint32_t xlarun__ccc_ranges[496] = {
    0x0, 0x300e6, 0x315e8, 0x316dc, 0x31ae8, 0x31bd8, 0x31cdc, 0x321ca, 0x323dc, 0x327ca, 0x329dc,
    0x33401, 0x339dc, 0x33de6, 0x345f0, 0x346e6, 0x347dc, 0x34ae6, 0x34ddc, 0x34f00, 0x350e6,
    0x353dc, 0x357e6, 0x358e8, 0x359dc, 0x35be6, 0x35ce9, 0x35dea, 0x35fe9, 0x360ea, 0x362e9,
    0x363e6, 0x37000, 0x483e6, 0x48800, 0x591dc, 0x592e6, 0x596dc, 0x597e6, 0x59ade, 0x59bdc,
    0x59ce6, 0x5a2dc, 0x5a8e6, 0x5aadc, 0x5abe6, 0x5adde, 0x5aee4, 0x5afe6, 0x5b00a, 0x5b10b,
    0x5b20c, 0x5b30d, 0x5b40e, 0x5b50f, 0x5b610, 0x5b711, 0x5b812, 0x5b913, 0x5bb14, 0x5bc15,
    0x5bd16, 0x5be00, 0x5bf17, 0x5c000, 0x5c118, 0x5c219, 0x5c300, 0x5c4e6, 0x5c5dc, 0x5c600,
    0x5c712, 0x5c800, 0x610e6, 0x6181e, 0x6191f, 0x61a20, 0x61b00, 0x64b1b, 0x64c1c, 0x64d1d,
    0x64e1e, 0x64f1f, 0x65020, 0x65121, 0x65222, 0x653e6, 0x655dc, 0x657e6, 0x65cdc, 0x65de6,
    0x65fdc, 0x66000, 0x67023, 0x67100, 0x6d6e6, 0x6dd00, 0x6dfe6, 0x6e3dc, 0x6e4e6, 0x6e500,
    0x6e7e6, 0x6e900, 0x6eadc, 0x6ebe6, 0x6eddc, 0x6ee00, 0x71124, 0x71200, 0x730e6, 0x731dc,
    0x732e6, 0x734dc, 0x735e6, 0x737dc, 0x73ae6, 0x73bdc, 0x73de6, 0x73edc, 0x73fe6, 0x742dc,
    0x743e6, 0x744dc, 0x745e6, 0x746dc, 0x747e6, 0x748dc, 0x749e6, 0x74b00, 0x7ebe6, 0x7f2dc,
    0x7f3e6, 0x7f400, 0x816e6, 0x81a00, 0x81be6, 0x82400, 0x825e6, 0x82800, 0x829e6, 0x82e00,
    0x859dc, 0x85c00, 0x8d4e6, 0x8e200, 0x8e3dc, 0x8e4e6, 0x8e6dc, 0x8e7e6, 0x8e9dc, 0x8eae6,
    0x8eddc, 0x8f01b, 0x8f11c, 0x8f21d, 0x8f3e6, 0x8f6dc, 0x8f7e6, 0x8f9dc, 0x8fbe6, 0x90000,
    0x93c07, 0x93d00, 0x94d09, 0x94e00, 0x951e6, 0x952dc, 0x953e6, 0x95500, 0x9bc07, 0x9bd00,
    0x9cd09, 0x9ce00, 0xa3c07, 0xa3d00, 0xa4d09, 0xa4e00, 0xabc07, 0xabd00, 0xacd09, 0xace00,
    0xb3c07, 0xb3d00, 0xb4d09, 0xb4e00, 0xbcd09, 0xbce00, 0xc4d09, 0xc4e00, 0xc5554, 0xc565b,
    0xc5700, 0xcbc07, 0xcbd00, 0xccd09, 0xcce00, 0xd4d09, 0xd4e00, 0xdca09, 0xdcb00, 0xe3867,
    0xe3a09, 0xe3b00, 0xe486b, 0xe4c00, 0xeb876, 0xeba00, 0xec87a, 0xecc00, 0xf18dc, 0xf1a00,
    0xf35dc, 0xf3600, 0xf37dc, 0xf3800, 0xf39d8, 0xf3a00, 0xf7181, 0xf7282, 0xf7300, 0xf7484,
    0xf7500, 0xf7a82, 0xf7e00, 0xf8082, 0xf8100, 0xf82e6, 0xf8409, 0xf8500, 0xf86e6, 0xf8800,
    0xfc6dc, 0xfc700, 0x103707, 0x103800, 0x103909, 0x103b00, 0x108ddc, 0x108e00, 0x135de6,
    0x136000, 0x171409, 0x171500, 0x173409, 0x173500, 0x17d209, 0x17d300, 0x17dde6, 0x17de00,
    0x18a9e4, 0x18aa00, 0x1939de, 0x193ae6, 0x193bdc, 0x193c00, 0x1a17e6, 0x1a18dc, 0x1a1900,
    0x1a6009, 0x1a6100, 0x1a75e6, 0x1a7d00, 0x1a7fdc, 0x1a8000, 0x1ab0e6, 0x1ab5dc, 0x1abbe6,
    0x1abddc, 0x1abe00, 0x1b3407, 0x1b3500, 0x1b4409, 0x1b4500, 0x1b6be6, 0x1b6cdc, 0x1b6de6,
    0x1b7400, 0x1baa09, 0x1bac00, 0x1be607, 0x1be700, 0x1bf209, 0x1bf400, 0x1c3707, 0x1c3800,
    0x1cd0e6, 0x1cd300, 0x1cd401, 0x1cd5dc, 0x1cdae6, 0x1cdcdc, 0x1ce0e6, 0x1ce100, 0x1ce201,
    0x1ce900, 0x1ceddc, 0x1cee00, 0x1cf4e6, 0x1cf500, 0x1cf8e6, 0x1cfa00, 0x1dc0e6, 0x1dc2dc,
    0x1dc3e6, 0x1dcadc, 0x1dcbe6, 0x1dcdea, 0x1dced6, 0x1dcfdc, 0x1dd0ca, 0x1dd1e6, 0x1df600,
    0x1dfbe6, 0x1dfce9, 0x1dfddc, 0x1dfee6, 0x1dffdc, 0x1e0000, 0x20d0e6, 0x20d201, 0x20d4e6,
    0x20d801, 0x20dbe6, 0x20dd00, 0x20e1e6, 0x20e200, 0x20e501, 0x20e7e6, 0x20e8dc, 0x20e9e6,
    0x20ea01, 0x20ecdc, 0x20f0e6, 0x20f100, 0x2cefe6, 0x2cf200, 0x2d7f09, 0x2d8000, 0x2de0e6,
    0x2e0000, 0x302ada, 0x302be4, 0x302ce8, 0x302dde, 0x302ee0, 0x303000, 0x309908, 0x309b00,
    0xa66fe6, 0xa67000, 0xa674e6, 0xa67e00, 0xa69ee6, 0xa6a000, 0xa6f0e6, 0xa6f200, 0xa80609,
    0xa80700, 0xa8c409, 0xa8c500, 0xa8e0e6, 0xa8f200, 0xa92bdc, 0xa92e00, 0xa95309, 0xa95400,
    0xa9b307, 0xa9b400, 0xa9c009, 0xa9c100, 0xaab0e6, 0xaab100, 0xaab2e6, 0xaab4dc, 0xaab500,
    0xaab7e6, 0xaab900, 0xaabee6, 0xaac000, 0xaac1e6, 0xaac200, 0xaaf609, 0xaaf700, 0xabed09,
    0xabee00, 0xfb1e1a, 0xfb1f00, 0xfe20e6, 0xfe27dc, 0xfe2ee6, 0xfe3000, 0x101fddc, 0x101fe00,
    0x102e0dc, 0x102e100, 0x10376e6, 0x1037b00, 0x10a0ddc, 0x10a0e00, 0x10a0fe6, 0x10a1000,
    0x10a38e6, 0x10a3901, 0x10a3adc, 0x10a3b00, 0x10a3f09, 0x10a4000, 0x10ae5e6, 0x10ae6dc,
    0x10ae700, 0x1104609, 0x1104700, 0x1107f09, 0x1108000, 0x110b909, 0x110ba07, 0x110bb00,
    0x11100e6, 0x1110300, 0x1113309, 0x1113500, 0x1117307, 0x1117400, 0x111c009, 0x111c100,
    0x111ca07, 0x111cb00, 0x1123509, 0x1123607, 0x1123700, 0x112e907, 0x112ea09, 0x112eb00,
    0x1133c07, 0x1133d00, 0x1134d09, 0x1134e00, 0x11366e6, 0x1136d00, 0x11370e6, 0x1137500,
    0x1144209, 0x1144300, 0x1144607, 0x1144700, 0x114c209, 0x114c307, 0x114c400, 0x115bf09,
    0x115c007, 0x115c100, 0x1163f09, 0x1164000, 0x116b609, 0x116b707, 0x116b800, 0x1172b09,
    0x1172c00, 0x11c3f09, 0x11c4000, 0x16af001, 0x16af500, 0x16b30e6, 0x16b3700, 0x1bc9e01,
    0x1bc9f00, 0x1d165d8, 0x1d16701, 0x1d16a00, 0x1d16de2, 0x1d16ed8, 0x1d17300, 0x1d17bdc,
    0x1d18300, 0x1d185e6, 0x1d18adc, 0x1d18c00, 0x1d1aae6, 0x1d1ae00, 0x1d242e6, 0x1d24500,
    0x1e000e6, 0x1e00700, 0x1e008e6, 0x1e01900, 0x1e01be6, 0x1e02200, 0x1e023e6, 0x1e02500,
    0x1e026e6, 0x1e02b00, 0x1e8d0dc, 0x1e8d700, 0x1e944e6, 0x1e94a07, 0x1e94b00,
};
static const uint64_t xlarun__decomp[2060] = {
    0x3000008200300, 0x3040008200301, 0x3080008200302, 0x30c0008200303, 0x3100008200308,
    0x314000820030a, 0x31c0008600327, 0x3200008a00300, 0x3240008a00301, 0x3280008a00302,
    0x32c0008a00308, 0x3300009200300, 0x3340009200301, 0x3380009200302, 0x33c0009200308,
    0x3440009c00303, 0x3480009e00300, 0x34c0009e00301, 0x3500009e00302, 0x3540009e00303,
    0x3580009e00308, 0x364000aa00300, 0x368000aa00301, 0x36c000aa00302, 0x370000aa00308,
    0x374000b200301, 0x380000c200300, 0x384000c200301, 0x388000c200302, 0x38c000c200303,
    0x390000c200308, 0x394000c20030a, 0x39c000c600327, 0x3a0000ca00300, 0x3a4000ca00301,
    0x3a8000ca00302, 0x3ac000ca00308, 0x3b0000d200300, 0x3b4000d200301, 0x3b8000d200302,
    0x3bc000d200308, 0x3c4000dc00303, 0x3c8000de00300, 0x3cc000de00301, 0x3d0000de00302,
    0x3d4000de00303, 0x3d8000de00308, 0x3e4000ea00300, 0x3e8000ea00301, 0x3ec000ea00302,
    0x3f0000ea00308, 0x3f4000f200301, 0x3fc000f200308, 0x4000008200304, 0x404000c200304,
    0x4080008200306, 0x40c000c200306, 0x4100008200328, 0x414000c200328, 0x4180008600301,
    0x41c000c600301, 0x4200008600302, 0x424000c600302, 0x4280008600307, 0x42c000c600307,
    0x430000860030c, 0x434000c60030c, 0x438000880030c, 0x43c000c80030c, 0x4480008a00304,
    0x44c000ca00304, 0x4500008a00306, 0x454000ca00306, 0x4580008a00307, 0x45c000ca00307,
    0x4600008a00328, 0x464000ca00328, 0x4680008a0030c, 0x46c000ca0030c, 0x4700008e00302,
    0x474000ce00302, 0x4780008e00306, 0x47c000ce00306, 0x4800008e00307, 0x484000ce00307,
    0x4880008e00327, 0x48c000ce00327, 0x4900009000302, 0x494000d000302, 0x4a00009200303,
    0x4a4000d200303, 0x4a80009200304, 0x4ac000d200304, 0x4b00009200306, 0x4b4000d200306,
    0x4b80009200328, 0x4bc000d200328, 0x4c00009200307, 0x4d00009400302, 0x4d4000d400302,
    0x4d80009600327, 0x4dc000d600327, 0x4e40009800301, 0x4e8000d800301, 0x4ec0009800327,
    0x4f0000d800327, 0x4f4000980030c, 0x4f8000d80030c, 0x50c0009c00301, 0x510000dc00301,
    0x5140009c00327, 0x518000dc00327, 0x51c0009c0030c, 0x520000dc0030c, 0x5300009e00304,
    0x534000de00304, 0x5380009e00306, 0x53c000de00306, 0x5400009e0030b, 0x544000de0030b,
    0x550000a400301, 0x554000e400301, 0x558000a400327, 0x55c000e400327, 0x560000a40030c,
    0x564000e40030c, 0x568000a600301, 0x56c000e600301, 0x570000a600302, 0x574000e600302,
    0x578000a600327, 0x57c000e600327, 0x580000a60030c, 0x584000e60030c, 0x588000a800327,
    0x58c000e800327, 0x590000a80030c, 0x594000e80030c, 0x5a0000aa00303, 0x5a4000ea00303,
    0x5a8000aa00304, 0x5ac000ea00304, 0x5b0000aa00306, 0x5b4000ea00306, 0x5b8000aa0030a,
    0x5bc000ea0030a, 0x5c0000aa0030b, 0x5c4000ea0030b, 0x5c8000aa00328, 0x5cc000ea00328,
    0x5d0000ae00302, 0x5d4000ee00302, 0x5d8000b200302, 0x5dc000f200302, 0x5e0000b200308,
    0x5e4000b400301, 0x5e8000f400301, 0x5ec000b400307, 0x5f0000f400307, 0x5f4000b40030c,
    0x5f8000f40030c, 0x6800009e0031b, 0x684000de0031b, 0x6bc000aa0031b, 0x6c0000ea0031b,
    0x734000820030c, 0x738000c20030c, 0x73c000920030c, 0x740000d20030c, 0x7440009e0030c,
    0x748000de0030c, 0x74c000aa0030c, 0x750000ea0030c, 0x754001b800304, 0x758001f800304,
    0x75c001b800301, 0x760001f800301, 0x764001b80030c, 0x768001f80030c, 0x76c001b800300,
    0x770001f800300, 0x7780018800304, 0x77c001c800304, 0x7800044c00304, 0x7840044e00304,
    0x7880018c00304, 0x78c001cc00304, 0x7980008e0030c, 0x79c000ce0030c, 0x7a0000960030c,
    0x7a4000d60030c, 0x7a80009e00328, 0x7ac000de00328, 0x7b0003d400304, 0x7b4003d600304,
    0x7b80036e0030c, 0x7bc005240030c, 0x7c0000d40030c, 0x7d00008e00301, 0x7d4000ce00301,
    0x7e00009c00300, 0x7e4000dc00300, 0x7e80018a00301, 0x7ec001ca00301, 0x7f00018c00301,
    0x7f4001cc00301, 0x7f8001b000301, 0x7fc001f000301, 0x800000820030f, 0x804000c20030f,
    0x8080008200311, 0x80c000c200311, 0x8100008a0030f, 0x814000ca0030f, 0x8180008a00311,
    0x81c000ca00311, 0x820000920030f, 0x824000d20030f, 0x8280009200311, 0x82c000d200311,
    0x8300009e0030f, 0x834000de0030f, 0x8380009e00311, 0x83c000de00311, 0x840000a40030f,
    0x844000e40030f, 0x848000a400311, 0x84c000e400311, 0x850000aa0030f, 0x854000ea0030f,
    0x858000aa00311, 0x85c000ea00311, 0x860000a600326, 0x864000e600326, 0x868000a800326,
    0x86c000e800326, 0x878000900030c, 0x87c000d00030c, 0x8980008200307, 0x89c000c200307,
    0x8a00008a00327, 0x8a4000ca00327, 0x8a8001ac00304, 0x8ac001ec00304, 0x8b0001aa00304,
    0x8b4001ea00304, 0x8b80009e00307, 0x8bc000de00307, 0x8c00045c00304, 0x8c40045e00304,
    0x8c8000b200304, 0x8cc000f200304, 0xd000060000000, 0xd040060200000, 0xd0c0062600000,
    0xd100061000301, 0xdd00057200000, 0xdf80007600000, 0xe140015000301, 0xe180072200301,
    0xe1c0016e00000, 0xe200072a00301, 0xe240072e00301, 0xe280073200301, 0xe300073e00301,
    0xe380074a00301, 0xe3c0075200301, 0xe400079400301, 0xea80073200308, 0xeac0074a00308,
    0xeb00076200301, 0xeb40076a00301, 0xeb80076e00301, 0xebc0077200301, 0xec00079600301,
    0xf280077200308, 0xf2c0078a00308, 0xf300077e00301, 0xf340078a00301, 0xf380079200301,
    0xf4c007a400301, 0xf50007a400308, 0x10000082a00300, 0x10040082a00308, 0x100c0082600301,
    0x101c0080c00308, 0x10300083400301, 0x10340083000300, 0x10380084600306, 0x10640083000306,
    0x10e40087000306, 0x11400086a00300, 0x11440086a00308, 0x114c0086600301, 0x115c008ac00308,
    0x11700087400301, 0x11740087000300, 0x11780088600306, 0x11d8008e80030f, 0x11dc008ea0030f,
    0x13040082c00306, 0x13080086c00306, 0x13400082000306, 0x13440086000306, 0x13480082000308,
    0x134c0086000308, 0x13580082a00306, 0x135c0086a00306, 0x1368009b000308, 0x136c009b200308,
    0x13700082c00308, 0x13740086c00308, 0x13780082e00308, 0x137c0086e00308, 0x13880083000304,
    0x138c0087000304, 0x13900083000308, 0x13940087000308, 0x13980083c00308, 0x139c0087c00308,
    0x13a8009d000308, 0x13ac009d200308, 0x13b00085a00308, 0x13b40089a00308, 0x13b80084600304,
    0x13bc0088600304, 0x13c00084600308, 0x13c40088600308, 0x13c8008460030b, 0x13cc008860030b,
    0x13d00084e00308, 0x13d40088e00308, 0x13e00085600308, 0x13e40089600308, 0x188800c4e00653,
    0x188c00c4e00654, 0x189000c9000654, 0x189400c4e00655, 0x189800c9400654, 0x1b0000daa00654,
    0x1b0800d8200654, 0x1b4c00da400654, 0x24a4012500093c, 0x24c4012600093c, 0x24d0012660093c,
    0x25600122a0093c, 0x25640122c0093c, 0x25680122e0093c, 0x256c012380093c, 0x2570012420093c,
    0x2574012440093c, 0x2578012560093c, 0x257c0125e0093c, 0x272c0138e009be, 0x27300138e009d7,
    0x277001342009bc, 0x277401344009bc, 0x277c0135e009bc, 0x28cc0146400a3c, 0x28d80147000a3c,
    0x29640142c00a3c, 0x29680142e00a3c, 0x296c0143800a3c, 0x29780145600a3c, 0x2d200168e00b56,
    0x2d2c0168e00b3e, 0x2d300168e00b57, 0x2d700164200b3c, 0x2d740164400b3c, 0x2e500172400bd7,
    0x2f280178c00bbe, 0x2f2c0178e00bbe, 0x2f300178c00bd7, 0x31200188c00c56, 0x33000197e00cd5,
    0x331c0198c00cd5, 0x33200198c00cd6, 0x33280198c00cc2, 0x332c0199400cd5, 0x352801a8c00d3e,
    0x352c01a8e00d3e, 0x353001a8c00d57, 0x376801bb200dca, 0x377001bb200dcf, 0x377401bb800dca,
    0x377801bb200ddf, 0x3d0c01e8400fb7, 0x3d3401e9800fb7, 0x3d4801ea200fb7, 0x3d5c01eac00fb7,
    0x3d7001eb600fb7, 0x3da401e8000fb5, 0x3dcc01ee200f72, 0x3dd401ee200f74, 0x3dd801f6400f80,
    0x3de001f6600f80, 0x3e0401ee200f80, 0x3e4c01f2400fb7, 0x3e7401f3800fb7, 0x3e8801f4200fb7,
    0x3e9c01f4c00fb7, 0x3eb001f5600fb7, 0x3ee401f2000fb5, 0x40980204a0102e, 0x6c180360a01b35,
    0x6c200360e01b35, 0x6c280361201b35, 0x6c300361601b35, 0x6c380361a01b35, 0x6c480362201b35,
    0x6cec0367401b35, 0x6cf40367801b35, 0x6d000367c01b35, 0x6d040367e01b35, 0x6d0c0368401b35,
    0x78000008200325, 0x7804000c200325, 0x78080008400307, 0x780c000c400307, 0x78100008400323,
    0x7814000c400323, 0x78180008400331, 0x781c000c400331, 0x78200018e00301, 0x7824001ce00301,
    0x78280008800307, 0x782c000c800307, 0x78300008800323, 0x7834000c800323, 0x78380008800331,
    0x783c000c800331, 0x78400008800327, 0x7844000c800327, 0x7848000880032d, 0x784c000c80032d,
    0x78500022400300, 0x78540022600300, 0x78580022400301, 0x785c0022600301, 0x78600008a0032d,
    0x7864000ca0032d, 0x78680008a00330, 0x786c000ca00330, 0x78700045000306, 0x78740045200306,
    0x78780008c00307, 0x787c000cc00307, 0x78800008e00304, 0x7884000ce00304, 0x78880009000307,
    0x788c000d000307, 0x78900009000323, 0x7894000d000323, 0x78980009000308, 0x789c000d000308,
    0x78a00009000327, 0x78a4000d000327, 0x78a8000900032e, 0x78ac000d00032e, 0x78b00009200330,
    0x78b4000d200330, 0x78b80019e00301, 0x78bc001de00301, 0x78c00009600301, 0x78c4000d600301,
    0x78c80009600323, 0x78cc000d600323, 0x78d00009600331, 0x78d4000d600331, 0x78d80009800323,
    0x78dc000d800323, 0x78e003c6c00304, 0x78e403c6e00304, 0x78e80009800331, 0x78ec000d800331,
    0x78f0000980032d, 0x78f4000d80032d, 0x78f80009a00301, 0x78fc000da00301, 0x79000009a00307,
    0x7904000da00307, 0x79080009a00323, 0x790c000da00323, 0x79100009c00307, 0x7914000dc00307,
    0x79180009c00323, 0x791c000dc00323, 0x79200009c00331, 0x7924000dc00331, 0x79280009c0032d,
    0x792c000dc0032d, 0x7930001aa00301, 0x7934001ea00301, 0x7938001aa00308, 0x793c001ea00308,
    0x79400029800300, 0x79440029a00300, 0x79480029800301, 0x794c0029a00301, 0x7950000a000301,
    0x7954000e000301, 0x7958000a000307, 0x795c000e000307, 0x7960000a400307, 0x7964000e400307,
    0x7968000a400323, 0x796c000e400323, 0x797003cb400304, 0x797403cb600304, 0x7978000a400331,
    0x797c000e400331, 0x7980000a600307, 0x7984000e600307, 0x7988000a600323, 0x798c000e600323,
    0x7990002b400307, 0x7994002b600307, 0x7998002c000307, 0x799c002c200307, 0x79a003cc400307,
    0x79a403cc600307, 0x79a8000a800307, 0x79ac000e800307, 0x79b0000a800323, 0x79b4000e800323,
    0x79b8000a800331, 0x79bc000e800331, 0x79c0000a80032d, 0x79c4000e80032d, 0x79c8000aa00324,
    0x79cc000ea00324, 0x79d0000aa00330, 0x79d4000ea00330, 0x79d8000aa0032d, 0x79dc000ea0032d,
    0x79e0002d000301, 0x79e4002d200301, 0x79e8002d400308, 0x79ec002d600308, 0x79f0000ac00303,
    0x79f4000ec00303, 0x79f8000ac00323, 0x79fc000ec00323, 0x7a00000ae00300, 0x7a04000ee00300,
    0x7a08000ae00301, 0x7a0c000ee00301, 0x7a10000ae00308, 0x7a14000ee00308, 0x7a18000ae00307,
    0x7a1c000ee00307, 0x7a20000ae00323, 0x7a24000ee00323, 0x7a28000b000307, 0x7a2c000f000307,
    0x7a30000b000308, 0x7a34000f000308, 0x7a38000b200307, 0x7a3c000f200307, 0x7a40000b400302,
    0x7a44000f400302, 0x7a48000b400323, 0x7a4c000f400323, 0x7a50000b400331, 0x7a54000f400331,
    0x7a58000d000331, 0x7a5c000e800308, 0x7a60000ee0030a, 0x7a64000f20030a, 0x7a6c002fe00307,
    0x7a800008200323, 0x7a84000c200323, 0x7a880008200309, 0x7a8c000c200309, 0x7a900018400301,
    0x7a94001c400301, 0x7a980018400300, 0x7a9c001c400300, 0x7aa00018400309, 0x7aa4001c400309,
    0x7aa80018400303, 0x7aac001c400303, 0x7ab003d4000302, 0x7ab403d4200302, 0x7ab80020400301,
    0x7abc0020600301, 0x7ac00020400300, 0x7ac40020600300, 0x7ac80020400309, 0x7acc0020600309,
    0x7ad00020400303, 0x7ad40020600303, 0x7ad803d4000306, 0x7adc03d4200306, 0x7ae00008a00323,
    0x7ae4000ca00323, 0x7ae80008a00309, 0x7aec000ca00309, 0x7af00008a00303, 0x7af4000ca00303,
    0x7af80019400301, 0x7afc001d400301, 0x7b000019400300, 0x7b04001d400300, 0x7b080019400309,
    0x7b0c001d400309, 0x7b100019400303, 0x7b14001d400303, 0x7b1803d7000302, 0x7b1c03d7200302,
    0x7b200009200309, 0x7b24000d200309, 0x7b280009200323, 0x7b2c000d200323, 0x7b300009e00323,
    0x7b34000de00323, 0x7b380009e00309, 0x7b3c000de00309, 0x7b40001a800301, 0x7b44001e800301,
    0x7b48001a800300, 0x7b4c001e800300, 0x7b50001a800309, 0x7b54001e800309, 0x7b58001a800303,
    0x7b5c001e800303, 0x7b6003d9800302, 0x7b6403d9a00302, 0x7b680034000301, 0x7b6c0034200301,
    0x7b700034000300, 0x7b740034200300, 0x7b780034000309, 0x7b7c0034200309, 0x7b800034000303,
    0x7b840034200303, 0x7b880034000323, 0x7b8c0034200323, 0x7b90000aa00323, 0x7b94000ea00323,
    0x7b98000aa00309, 0x7b9c000ea00309, 0x7ba00035e00301, 0x7ba40036000301, 0x7ba80035e00300,
    0x7bac0036000300, 0x7bb00035e00309, 0x7bb40036000309, 0x7bb80035e00303, 0x7bbc0036000303,
    0x7bc00035e00323, 0x7bc40036000323, 0x7bc8000b200300, 0x7bcc000f200300, 0x7bd0000b200323,
    0x7bd4000f200323, 0x7bd8000b200309, 0x7bdc000f200309, 0x7be0000b200303, 0x7be4000f200303,
    0x7c000076200313, 0x7c040076200314, 0x7c0803e0000300, 0x7c0c03e0200300, 0x7c1003e0000301,
    0x7c1403e0200301, 0x7c1803e0000342, 0x7c1c03e0200342, 0x7c200072200313, 0x7c240072200314,
    0x7c2803e1000300, 0x7c2c03e1200300, 0x7c3003e1000301, 0x7c3403e1200301, 0x7c3803e1000342,
    0x7c3c03e1200342, 0x7c400076a00313, 0x7c440076a00314, 0x7c4803e2000300, 0x7c4c03e2200300,
    0x7c5003e2000301, 0x7c5403e2200301, 0x7c600072a00313, 0x7c640072a00314, 0x7c6803e3000300,
    0x7c6c03e3200300, 0x7c7003e3000301, 0x7c7403e3200301, 0x7c800076e00313, 0x7c840076e00314,
    0x7c8803e4000300, 0x7c8c03e4200300, 0x7c9003e4000301, 0x7c9403e4200301, 0x7c9803e4000342,
    0x7c9c03e4200342, 0x7ca00072e00313, 0x7ca40072e00314, 0x7ca803e5000300, 0x7cac03e5200300,
    0x7cb003e5000301, 0x7cb403e5200301, 0x7cb803e5000342, 0x7cbc03e5200342, 0x7cc00077200313,
    0x7cc40077200314, 0x7cc803e6000300, 0x7ccc03e6200300, 0x7cd003e6000301, 0x7cd403e6200301,
    0x7cd803e6000342, 0x7cdc03e6200342, 0x7ce00073200313, 0x7ce40073200314, 0x7ce803e7000300,
    0x7cec03e7200300, 0x7cf003e7000301, 0x7cf403e7200301, 0x7cf803e7000342, 0x7cfc03e7200342,
    0x7d000077e00313, 0x7d040077e00314, 0x7d0803e8000300, 0x7d0c03e8200300, 0x7d1003e8000301,
    0x7d1403e8200301, 0x7d200073e00313, 0x7d240073e00314, 0x7d2803e9000300, 0x7d2c03e9200300,
    0x7d3003e9000301, 0x7d3403e9200301, 0x7d400078a00313, 0x7d440078a00314, 0x7d4803ea000300,
    0x7d4c03ea200300, 0x7d5003ea000301, 0x7d5403ea200301, 0x7d5803ea000342, 0x7d5c03ea200342,
    0x7d640074a00314, 0x7d6c03eb200300, 0x7d7403eb200301, 0x7d7c03eb200342, 0x7d800079200313,
    0x7d840079200314, 0x7d8803ec000300, 0x7d8c03ec200300, 0x7d9003ec000301, 0x7d9403ec200301,
    0x7d9803ec000342, 0x7d9c03ec200342, 0x7da00075200313, 0x7da40075200314, 0x7da803ed000300,
    0x7dac03ed200300, 0x7db003ed000301, 0x7db403ed200301, 0x7db803ed000342, 0x7dbc03ed200342,
    0x7dc00076200300, 0x7dc40075800000, 0x7dc80076a00300, 0x7dcc0075a00000, 0x7dd00076e00300,
    0x7dd40075c00000, 0x7dd80077200300, 0x7ddc0075e00000, 0x7de00077e00300, 0x7de40079800000,
    0x7de80078a00300, 0x7dec0079a00000, 0x7df00079200300, 0x7df40079c00000, 0x7e0003e0000345,
    0x7e0403e0200345, 0x7e0803e0400345, 0x7e0c03e0600345, 0x7e1003e0800345, 0x7e1403e0a00345,
    0x7e1803e0c00345, 0x7e1c03e0e00345, 0x7e2003e1000345, 0x7e2403e1200345, 0x7e2803e1400345,
    0x7e2c03e1600345, 0x7e3003e1800345, 0x7e3403e1a00345, 0x7e3803e1c00345, 0x7e3c03e1e00345,
    0x7e4003e4000345, 0x7e4403e4200345, 0x7e4803e4400345, 0x7e4c03e4600345, 0x7e5003e4800345,
    0x7e5403e4a00345, 0x7e5803e4c00345, 0x7e5c03e4e00345, 0x7e6003e5000345, 0x7e6403e5200345,
    0x7e6803e5400345, 0x7e6c03e5600345, 0x7e7003e5800345, 0x7e7403e5a00345, 0x7e7803e5c00345,
    0x7e7c03e5e00345, 0x7e8003ec000345, 0x7e8403ec200345, 0x7e8803ec400345, 0x7e8c03ec600345,
    0x7e9003ec800345, 0x7e9403eca00345, 0x7e9803ecc00345, 0x7e9c03ece00345, 0x7ea003ed000345,
    0x7ea403ed200345, 0x7ea803ed400345, 0x7eac03ed600345, 0x7eb003ed800345, 0x7eb403eda00345,
    0x7eb803edc00345, 0x7ebc03ede00345, 0x7ec00076200306, 0x7ec40076200304, 0x7ec803ee000345,
    0x7ecc0076200345, 0x7ed00075800345, 0x7ed80076200342, 0x7edc03f6c00345, 0x7ee00072200306,
    0x7ee40072200304, 0x7ee80072200300, 0x7eec0070c00000, 0x7ef00072200345, 0x7ef80077200000,
    0x7f040015000342, 0x7f0803ee800345, 0x7f0c0076e00345, 0x7f100075c00345, 0x7f180076e00342,
    0x7f1c03f8c00345, 0x7f200072a00300, 0x7f240071000000, 0x7f280072e00300, 0x7f2c0071200000,
    0x7f300072e00345, 0x7f3403f7e00300, 0x7f3803f7e00301, 0x7f3c03f7e00342, 0x7f400077200306,
    0x7f440077200304, 0x7f480079400300, 0x7f4c0072000000, 0x7f580077200342, 0x7f5c0079400342,
    0x7f600073200306, 0x7f640073200304, 0x7f680073200300, 0x7f6c0071400000, 0x7f7403ffc00300,
    0x7f7803ffc00301, 0x7f7c03ffc00342, 0x7f800078a00306, 0x7f840078a00304, 0x7f880079600300,
    0x7f8c0076000000, 0x7f900078200313, 0x7f940078200314, 0x7f980078a00342, 0x7f9c0079600342,
    0x7fa00074a00306, 0x7fa40074a00304, 0x7fa80074a00300, 0x7fac0071c00000, 0x7fb00074200314,
    0x7fb40015000300, 0x7fb80070a00000, 0x7fbc000c000000, 0x7fc803ef800345, 0x7fcc0079200345,
    0x7fd00079c00345, 0x7fd80079200342, 0x7fdc03fec00345, 0x7fe00073e00300, 0x7fe40071800000,
    0x7fe80075200300, 0x7fec0071e00000, 0x7ff00075200345, 0x7ff40016800000, 0x80000400400000,
    0x80040400600000, 0x84980075200000, 0x84a80009600000, 0x84ac0018a00000, 0x86680432000338,
    0x866c0432400338, 0x86b80432800338, 0x8734043a000338, 0x8738043a800338, 0x873c043a400338,
    0x88100440600338, 0x88240441000338, 0x88300441600338, 0x88900444600338, 0x88980444a00338,
    0x89040447800338, 0x89100448600338, 0x891c0448a00338, 0x89240449000338, 0x89800007a00338,
    0x8988044c200338, 0x89b40449a00338, 0x89b80007800338, 0x89bc0007c00338, 0x89c0044c800338,
    0x89c4044ca00338, 0x89d0044e400338, 0x89d4044e600338, 0x89e0044ec00338, 0x89e4044ee00338,
    0x8a00044f400338, 0x8a04044f600338, 0x8a100450400338, 0x8a140450600338, 0x8a200450c00338,
    0x8a240450e00338, 0x8ab00454400338, 0x8ab40455000338, 0x8ab80455200338, 0x8abc0455600338,
    0x8b80044f800338, 0x8b84044fa00338, 0x8b880452200338, 0x8b8c0452400338, 0x8ba80456400338,
    0x8bac0456600338, 0x8bb00456800338, 0x8bb40456a00338, 0x8ca40601000000, 0x8ca80601200000,
    0xab70055ba00338, 0xc1300609603099, 0xc1380609a03099, 0xc1400609e03099, 0xc148060a203099,
    0xc150060a603099, 0xc158060aa03099, 0xc160060ae03099, 0xc168060b203099, 0xc170060b603099,
    0xc178060ba03099, 0xc180060be03099, 0xc188060c203099, 0xc194060c803099, 0xc19c060cc03099,
    0xc1a4060d003099, 0xc1c0060de03099, 0xc1c4060de0309a, 0xc1cc060e403099, 0xc1d0060e40309a,
    0xc1d8060ea03099, 0xc1dc060ea0309a, 0xc1e4060f003099, 0xc1e8060f00309a, 0xc1f0060f603099,
    0xc1f4060f60309a, 0xc2500608c03099, 0xc2780613a03099, 0xc2b00615603099, 0xc2b80615a03099,
    0xc2c00615e03099, 0xc2c80616203099, 0xc2d00616603099, 0xc2d80616a03099, 0xc2e00616e03099,
    0xc2e80617203099, 0xc2f00617603099, 0xc2f80617a03099, 0xc3000617e03099, 0xc3080618203099,
    0xc3140618803099, 0xc31c0618c03099, 0xc3240619003099, 0xc3400619e03099, 0xc3440619e0309a,
    0xc34c061a403099, 0xc350061a40309a, 0xc358061aa03099, 0xc35c061aa0309a, 0xc364061b003099,
    0xc368061b00309a, 0xc370061b603099, 0xc374061b60309a, 0xc3d00614c03099, 0xc3dc061de03099,
    0xc3e0061e003099, 0xc3e4061e203099, 0xc3e8061e403099, 0xc3f8061fa03099, 0x3e4001189000000,
    0x3e4040cde800000, 0x3e40811d9400000, 0x3e40c1199000000, 0x3e4100dda200000, 0x3e41409c6400000,
    0x3e4180a7ca00000, 0x3e41c13f3800000, 0x3e42013f3800000, 0x3e4240b2a200000, 0x3e428123a200000,
    0x3e42c0ab0e00000, 0x3e4300b29000000, 0x3e4340c3ec00000, 0x3e4380ecd200000, 0x3e43c0ff0a00000,
    0x3e44010c7e00000, 0x3e44410f7400000, 0x3e448111f000000, 0x3e44c1211e00000, 0x3e4500d40400000,
    0x3e4540da3600000, 0x3e4580e1b200000, 0x3e45c0e7bc00000, 0x3e4601087a00000, 0x3e464122d400000,
    0x3e468133e200000, 0x3e46c09d0400000, 0x3e4700a6ea00000, 0x3e4740d60800000, 0x3e4780e43600000,
    0x3e47c10c5a00000, 0x3e48013c3c00000, 0x3e4840baa000000, 0x3e4880dfd600000, 0x3e48c10b9a00000,
    0x3e490112c800000, 0x3e4940c59200000, 0x3e498103b000000, 0x3e49c1103e00000, 0x3e4a00bd9400000,
    0x3e4a40ce2e00000, 0x3e4a80dad400000, 0x3e4ac0e5f800000, 0x3e4b01219c00000, 0x3e4b409f0c00000,
    0x3e4b80a36e00000, 0x3e4bc0a5bc00000, 0x3e4c00c98800000, 0x3e4c40d5a600000, 0x3e4c80e42000000,
    0x3e4cc0edce00000, 0x3e4d01000200000, 0x3e4d410c0c00000, 0x3e4d810cb800000, 0x3e4dc11bde00000,
    0x3e4e012e6400000, 0x3e4e4136de00000, 0x3e4e813bf400000, 0x3e4ec0f11800000, 0x3e4f00f2fe00000,
    0x3e4f40fb4000000, 0x3e4f81079200000, 0x3e4fc1260800000, 0x3e50013cfe00000, 0x3e504115ac00000,
    0x3e5080b1be00000, 0x3e50c0be0800000, 0x3e5100f8c000000, 0x3e514100fc00000, 0x3e5180e4c400000,
    0x3e51c0f19400000, 0x3e5201198400000, 0x3e52412dee00000, 0x3e5280b1b000000, 0x3e52c0b8c400000,
    0x3e5300d42600000, 0x3e5340dbb400000, 0x3e5380de1e00000, 0x3e53c0fa5e00000, 0x3e5400fc6e00000,
    0x3e54412c9600000, 0x3e5480a5a400000, 0x3e54c1011600000, 0x3e5500a3b800000, 0x3e5540a39800000,
    0x3e5580f43800000, 0x3e55c0fb7c00000, 0x3e560107e200000, 0x3e56412cea00000, 0x3e5681170000000,
    0x3e56c0c59e00000, 0x3e5700d40400000, 0x3e574115fc00000, 0x3e57809c7200000, 0x3e57c0b7ce00000,
    0x3e5800c02400000, 0x3e5840e70e00000, 0x3e5880eae000000, 0x3e58c0a62e00000, 0x3e5900f1f600000,
    0x3e59409f7e00000, 0x3e5980bf5200000, 0x3e59c09c1a00000, 0x3e5a00d99800000, 0x3e5a40caf000000,
    0x3e5a80fa4400000, 0x3e5ac0a78600000, 0x3e5b00b0bc00000, 0x3e5b40ee0200000, 0x3e5b81089200000,
    0x3e5bc1155400000, 0x3e5c00d77400000, 0x3e5c411f6000000, 0x3e5c80d91000000, 0x3e5cc0c5fc00000,
    0x3e5d0105ca00000, 0x3e5d40c74000000, 0x3e5d80eaca00000, 0x3e5dc09d5c00000, 0x3e5e00a2d200000,
    0x3e5e40a39200000, 0x3e5e80d10200000, 0x3e5ec0f9ce00000, 0x3e5f0104de00000, 0x3e5f4115a400000,
    0x3e5f81239e00000, 0x3e5fc0a5ea00000, 0x3e6000a88400000, 0x3e6040b2e600000, 0x3e6080bdd800000,
    0x3e60c0cb8a00000, 0x3e6100dffc00000, 0x3e6140f25400000, 0x3e61812b5a00000, 0x3e61c134d400000,
    0x3e62013d2e00000, 0x3e62413d9c00000, 0x3e6280a53600000, 0x3e62c0cd8c00000, 0x3e6300d6ee00000,
    0x3e63411ec400000, 0x3e6380bce800000, 0x3e63c0c32000000, 0x3e6400c40000000, 0x3e6440c93400000,
    0x3e6480de4600000, 0x3e64c0e29200000, 0x3e6500e91200000, 0x3e6540f39400000, 0x3e6580fbe800000,
    0x3e65c100de00000, 0x3e66011e4c00000, 0x3e664109dc00000, 0x3e6681204600000, 0x3e66c1269400000,
    0x3e6700a42e00000, 0x3e6740a54600000, 0x3e6780a97a00000, 0x3e67c0e19000000, 0x3e6801118400000,
    0x3e6841155400000, 0x3e6880bd9200000, 0x3e68c0bfea00000, 0x3e6900c6f600000, 0x3e6940d75c00000,
    0x3e6980f87c00000, 0x3e69c0e6ea00000, 0x3e6a009dc800000, 0x3e6a40adf200000, 0x3e6a80b7ce00000,
    0x3e6ac0bb7400000, 0x3e6b00c03800000, 0x3e6b40e76400000, 0x3e6b80e8d200000, 0x3e6bc0ff3400000,
    0x3e6c01008c00000, 0x3e6c41246800000, 0x3e6c812dec00000, 0x3e6cc12e9000000, 0x3e6d01303000000,
    0x3e6d409f1600000, 0x3e6d80f35c00000, 0x3e6dc1236800000, 0x3e6e012d7000000, 0x3e6e40c1c200000,
    0x3e6e809d0c00000, 0x3e6ec0a1b400000, 0x3e6f00b7dc00000, 0x3e6f40b87e00000, 0x3e6f80cb3200000,
    0x3e6fc0d40400000, 0x3e7000e39c00000, 0x3e7040ec8400000, 0x3e708109f800000, 0x3e70c120f800000,
    0x3e71013f1a00000, 0x3e7140cd1000000, 0x3e71812c5c00000, 0x3e71c0a51200000, 0x3e7200cef600000,
    0x3e7240cfe600000, 0x3e7280da8200000, 0x3e72c0dd3800000, 0x3e7300e81200000, 0x3e7340eab200000,
    0x3e7380f0d600000, 0x3e73c0fa2000000, 0x3e740130bc00000, 0x3e7440a2da00000, 0x3e7480c45c00000,
    0x3e74c12cf000000, 0x3e7500a05600000, 0x3e7540ba3200000, 0x3e7580dbd400000, 0x3e75c11e5400000,
    0x3e7600bf1600000, 0x3e7640c28800000, 0x3e7680d02e00000, 0x3e76c0e70e00000, 0x3e77012d0c00000,
    0x3e7740a45200000, 0x3e7780a81e00000, 0x3e77c0b8ca00000, 0x3e7800cc2600000, 0x3e7840ce9c00000,
    0x3e7880d15000000, 0x3e78c0d9ca00000, 0x3e7900e80c00000, 0x3e7940ebc400000, 0x3e7980fef200000,
    0x3e79c1119e00000, 0x3e7a0111c200000, 0x3e7a41239800000, 0x3e7a812dc400000, 0x3e7ac0a67e00000,
    0x3e7b00dd7400000, 0x3e7b40a83a00000, 0x3e7b80e3a000000, 0x3e7bc0e93000000, 0x3e7c010bf400000,
    0x3e7c412d4600000, 0x3e7c8138ae00000, 0x3e7cc13d3e00000, 0x3e7d00cf2e00000, 0x3e7d40db9600000,
    0x3e7d8103d000000, 0x3e7dc0f59600000, 0x3e7e00f64000000, 0x3e7e40f92400000, 0x3e7e80e58000000,
    0x3e7ec0e13200000, 0x3e7f0116b000000, 0x3e7f409d8000000, 0x3e7f81066c00000, 0x3e7fc0a47400000,
    0x3e8000a40e00000, 0x3e8040bd4c00000, 0x3e8080c5a600000, 0x3e80c0f9ac00000, 0x3e8100b70a00000,
    0x3e8140da3c00000, 0x3e8180cd6800000, 0x3e81c11e7600000, 0x3e8201109800000, 0x3e82412c9a00000,
    0x3e8281131600000, 0x3e82c0bda600000, 0x3e8300a28000000, 0x3e8340ab8000000, 0x3e8400b0b400000,
    0x3e8480cce800000, 0x3e8540a3bc00000, 0x3e8580e65400000, 0x3e85c0ed9400000, 0x3e8600f27800000,
    0x3e8640f2bc00000, 0x3e8680f2ca00000, 0x3e86c0f31e00000, 0x3e87012eac00000, 0x3e8740f97c00000,
    0x3e8780ff7a00000, 0x3e88010c2400000, 0x3e888115f000000, 0x3e8941207000000, 0x3e898121fa00000,
    0x3e8a8131de00000, 0x3e8ac131f800000, 0x3e8b01325000000, 0x3e8b413b6800000, 0x3e8b8121bc00000,
    0x3e8bc12d6e00000, 0x3e8c009f5c00000, 0x3e8c40a1ce00000, 0x3e8c80a29a00000, 0x3e8cc0a59200000,
    0x3e8d00a5c800000, 0x3e8d40a6a200000, 0x3e8d80ab3a00000, 0x3e8dc0ac0c00000, 0x3e8e00acd000000,
    0x3e8e40b08000000, 0x3e8e80b15000000, 0x3e8ec0b8c800000, 0x3e8f00b8dc00000, 0x3e8f40c12800000,
    0x3e8f80c2d000000, 0x3e8fc0c31c00000, 0x3e9000c3e400000, 0x3e9040ca9e00000, 0x3e9080cbc400000,
    0x3e90c0cd2200000, 0x3e9100d10a00000, 0x3e9140daee00000, 0x3e9180dc3400000, 0x3e91c0de4400000,
    0x3e9200e2dc00000, 0x3e9240e45600000, 0x3e9280e84400000, 0x3e92c0f12200000, 0x3e9300f27c00000,
    0x3e9340f29200000, 0x3e9380f29000000, 0x3e93c0f2a000000, 0x3e9400f2ac00000, 0x3e9440f2ba00000,
    0x3e9480f31a00000, 0x3e94c0f31c00000, 0x3e9500f48000000, 0x3e9540f50200000, 0x3e9580f78000000,
    0x3e95c0fbe800000, 0x3e9600fc1200000, 0x3e9640fc8200000, 0x3e9680fee400000, 0x3e96c1000a00000,
    0x3e970103da00000, 0x3e974104f200000, 0x3e978104f200000, 0x3e97c108ae00000, 0x3e9801122000000,
    0x3e9841132c00000, 0x3e9881160200000, 0x3e98c1167200000, 0x3e990119a600000, 0x3e99411a1000000,
    0x3e99811f6c00000, 0x3e99c1207000000, 0x3e9a012dc600000, 0x3e9a412ffe00000, 0x3e9a81307600000,
    0x3e9ac0c0ea00000, 0x3e9b0485dc00000, 0x3e9b41043000000, 0x3e9c009c4c00000, 0x3e9c40a36a00000,
    0x3e9c80a2d000000, 0x3e9cc09f0000000, 0x3e9d00a28a00000, 0x3e9d40a30000000, 0x3e9d80a58e00000,
    0x3e9dc0a5f400000, 0x3e9e00ab3a00000, 0x3e9e40aaaa00000, 0x3e9e80ab3200000, 0x3e9ec0abc400000,
    0x3e9f00b0b400000, 0x3e9f40b16600000, 0x3e9f80b28800000, 0x3e9fc0b2a800000, 0x3ea000b4c400000,
    0x3ea040b65000000, 0x3ea080bda400000, 0x3ea0c0bdb200000, 0x3ea100bed200000, 0x3ea140bf5a00000,
    0x3ea180c1b000000, 0x3ea1c0c29c00000, 0x3ea200c21000000, 0x3ea240c31c00000, 0x3ea280c2c000000,
    0x3ea2c0c3e400000, 0x3ea300c46800000, 0x3ea340c78800000, 0x3ea380c83800000, 0x3ea3c0c8a400000,
    0x3ea400caac00000, 0x3ea440cce800000, 0x3ea480ce2e00000, 0x3ea4c0ce3600000, 0x3ea500ceac00000,
    0x3ea540d6f200000, 0x3ea580d77400000, 0x3ea5c0da8200000, 0x3ea600ddb600000, 0x3ea640dd9600000,
    0x3ea680de4400000, 0x3ea6c0e03c00000, 0x3ea700e2dc00000, 0x3ea740ef4e00000, 0x3ea780e46a00000,
    0x3ea7c0e55e00000, 0x3ea800e65400000, 0x3ea840e8e200000, 0x3ea880ea0c00000, 0x3ea8c0ea7600000,
    0x3ea900ec3a00000, 0x3ea940ec3e00000, 0x3ea980ed9400000, 0x3ea9c0edb600000, 0x3eaa00ede800000,
    0x3eaa40ee9400000, 0x3eaa80ee8000000, 0x3eaac0f19800000, 0x3eab00f56200000, 0x3eab40f78000000,
    0x3eab80f8f600000, 0x3eabc0fab600000, 0x3eac00fbe800000, 0x3eac40fe7c00000, 0x3eac81000a00000,
    0x3eacc106a400000, 0x3ead0107de00000, 0x3ead410ef200000, 0x3ead81128200000, 0x3eadc1130c00000,
    0x3eae01132c00000, 0x3eae41157e00000, 0x3eae8115f000000, 0x3eaec1159600000, 0x3eaf01160200000,
    0x3eaf4115fc00000, 0x3eaf8115da00000, 0x3eafc1167200000, 0x3eb001171400000, 0x3eb0411a1000000,
    0x3eb0811e7000000, 0x3eb0c120e400000, 0x3eb101233200000, 0x3eb14124ec00000, 0x3eb1812cf800000,
    0x3eb1c12dc600000, 0x3eb2012eac00000, 0x3eb2412fb600000, 0x3eb2812ffe00000, 0x3eb2c1301600000,
    0x3eb301307600000, 0x3eb341362400000, 0x3eb3813f3800000, 0x3eb3c4509400000, 0x3eb404508800000,
    0x3eb44467aa00000, 0x3eb480773a00000, 0x3eb4c0803000000, 0x3eb500807200000, 0x3eb544a49200000,
    0x3eb584b9a000000, 0x3eb5c4fda600000, 0x3eb6013e8600000, 0x3eb6413f1c00000, 0x3ec7400bb2005b4,
    0x3ec7c00be4005b7, 0x3eca800bd2005c1, 0x3ecac00bd2005c2, 0x3ecb01f692005c1, 0x3ecb41f692005c2,
    0x3ecb800ba0005b7, 0x3ecbc00ba0005b8, 0x3ecc000ba0005bc, 0x3ecc400ba2005bc, 0x3ecc800ba4005bc,
    0x3eccc00ba6005bc, 0x3ecd000ba8005bc, 0x3ecd400baa005bc, 0x3ecd800bac005bc, 0x3ece000bb0005bc,
    0x3ece400bb2005bc, 0x3ece800bb4005bc, 0x3ecec00bb6005bc, 0x3ecf000bb8005bc, 0x3ecf800bbc005bc,
    0x3ed0000bc0005bc, 0x3ed0400bc2005bc, 0x3ed0c00bc6005bc, 0x3ed1000bc8005bc, 0x3ed1800bcc005bc,
    0x3ed1c00bce005bc, 0x3ed2000bd0005bc, 0x3ed2400bd2005bc, 0x3ed2800bd4005bc, 0x3ed2c00baa005b9,
    0x3ed3000ba2005bf, 0x3ed3400bb6005bf, 0x3ed3800bc8005bf, 0x4426822132110ba, 0x4427022136110ba,
    0x442ac2214a110ba, 0x444b82226211127, 0x444bc2226411127, 0x44d2c2268e1133e, 0x44d302268e11357,
    0x452ec22972114ba, 0x452f022972114b0, 0x452f822972114bd, 0x456e822b70115af, 0x456ec22b72115af,
    0x745783a2ae1d165, 0x7457c3a2b01d165, 0x745803a2be1d16e, 0x745843a2be1d16f, 0x745883a2be1d170,
    0x7458c3a2be1d171, 0x745903a2be1d172, 0x746ec3a3721d165, 0x746f03a3741d165, 0x746f43a3761d16e,
    0x746f83a3781d16e, 0x746fc3a3761d16f, 0x747003a3781d16f, 0xbe00009c7a00000, 0xbe00409c7000000,
    0xbe00809c8200000, 0xbe00c4024400000, 0xbe01009ec000000, 0xbe01409f5c00000, 0xbe01809f7600000,
    0xbe01c0a00400000, 0xbe0200a0f400000, 0xbe0240a13200000, 0xbe0280a1ce00000, 0xbe02c0a19e00000,
    0xbe0300693c00000, 0xbe03440c7400000, 0xbe0380a29a00000, 0xbe03c0a2a800000, 0xbe0400a2c800000,
    0xbe0440a2ee00000, 0xbe04840a3800000, 0xbe04c0697200000, 0xbe0500a2ce00000, 0xbe0540a31a00000,
    0xbe05840a9600000, 0xbe05c0a32e00000, 0xbe0600a34800000, 0xbe06409d9800000, 0xbe0680a35800000,
    0xbe06c0a36a00000, 0xbe070523be00000, 0xbe0740a3ea00000, 0xbe0780a40600000, 0xbe07c069be00000,
    0xbe0800a47600000, 0xbe0840a48c00000, 0xbe0880a4e400000, 0xbe08c0a4ee00000, 0xbe09006a2a00000,
    0xbe0940a58e00000, 0xbe0980a59200000, 0xbe09c0a5c800000, 0xbe0a00a5f400000, 0xbe0a40a60a00000,
    0xbe0a80a60c00000, 0xbe0ac0a62e00000, 0xbe0b00a69200000, 0xbe0b40a6a200000, 0xbe0b80a6b400000,
    0xbe0bc0a6e600000, 0xbe0c00a6fa00000, 0xbe0c40a6fe00000, 0xbe0c80a6fe00000, 0xbe0cc0a6fe00000,
    0xbe0d04145800000, 0xbe0d40e0e000000, 0xbe0d80a79400000, 0xbe0dc0a7be00000, 0xbe0e0416c600000,
    0xbe0e40a7d600000, 0xbe0e80a7e200000, 0xbe0ec0a80c00000, 0xbe0f00a93c00000, 0xbe0f40a87000000,
    0xbe0f80a89000000, 0xbe0fc0a8d000000, 0xbe1000a94400000, 0xbe1040a9ec00000, 0xbe1080aa2000000,
    0xbe10c0aaa600000, 0xbe1100aac600000, 0xbe1140ab0800000, 0xbe1180ab0800000, 0xbe11c0ab3200000,
    0xbe1200ab5600000, 0xbe1240ab6600000, 0xbe1280ab8400000, 0xbe12c0ae2c00000, 0xbe1300ac0c00000,
    0xbe1340ae2e00000, 0xbe1380aca200000, 0xbe13c0ace800000, 0xbe1400a40e00000, 0xbe1440b1dc00000,
    0xbe1480af9c00000, 0xbe14c0afe800000, 0xbe1500b01a00000, 0xbe1540af1600000, 0xbe1580b06400000,
    0xbe15c0b06200000, 0xbe1600b15800000, 0xbe164429c800000, 0xbe1680b1e400000, 0xbe16c0b1ee00000,
    0xbe1700b20c00000, 0xbe1740b23400000, 0xbe1780b24400000, 0xbe17c0b2c400000, 0xbe18042d5000000,
    0xbe18442dd400000, 0xbe1880b3d800000, 0xbe18c0b43600000, 0xbe1900b44e00000, 0xbe1940b3b000000,
    0xbe1980b4cc00000, 0xbe19c06ddc00000, 0xbe1a006df800000, 0xbe1a40b61000000, 0xbe1a80b67c00000,
    0xbe1ac0b67c00000, 0xbe1b04339000000, 0xbe1b40b78600000, 0xbe1b80b7b000000, 0xbe1bc0b7ce00000,
    0xbe1c00b7e600000, 0xbe1c44363000000, 0xbe1c80b7fe00000, 0xbe1cc0b80c00000, 0xbe1d00bea600000,
    0xbe1d40b84400000, 0xbe1d806f0200000, 0xbe1dc0b8c000000, 0xbe1e00b8dc00000, 0xbe1e40b98000000,
    0xbe1e80b91a00000, 0xbe1ec43bc800000, 0xbe1f00ba8600000, 0xbe1f443bcc00000, 0xbe1f80badc00000,
    0xbe1fc0bad600000, 0xbe2000baf800000, 0xbe2040bbc200000, 0xbe2080bbc400000, 0xbe20c0705e00000,
    0xbe2100bbfa00000, 0xbe2140bc5000000, 0xbe2180bc7a00000, 0xbe21c0bcd200000, 0xbe220070c400000,
    0xbe2244430600000, 0xbe228070f800000, 0xbe22c0bd6000000, 0xbe2300bd6600000, 0xbe2340bd6c00000,
    0xbe2380bd9400000, 0xbe23c5472400000, 0xbe2400bdfc00000, 0xbe2444466200000, 0xbe2484466200000,
    0xbe24c1040200000, 0xbe2500be4400000, 0xbe2540be4400000, 0xbe2580718e00000, 0xbe25c4657000000,
    0xbe2604c3b400000, 0xbe2640bec400000, 0xbe2680bed600000, 0xbe26c071c600000, 0xbe2700bf3400000,
    0xbe2740bf9a00000, 0xbe2780bfae00000, 0xbe27c0bff200000, 0xbe2800c10200000, 0xbe2840727400000,
    0xbe2880723800000, 0xbe28c0c12800000, 0xbe29044da800000, 0xbe2940c18e00000, 0xbe2980c29000000,
    0xbe29c0c29800000, 0xbe2a00c29c00000, 0xbe2a40c29800000, 0xbe2a80c2f400000, 0xbe2ac0c31c00000,
    0xbe2b00c36400000, 0xbe2b40c34800000, 0xbe2b80c35e00000, 0xbe2bc0c3bc00000, 0xbe2c00c3e400000,
    0xbe2c40c3ec00000, 0xbe2c80c42000000, 0xbe2cc0c43600000, 0xbe2d00c4ba00000, 0xbe2d40c56200000,
    0xbe2d80c5a800000, 0xbe2dc0c6a000000, 0xbe2e04561800000, 0xbe2e40c67a00000, 0xbe2e80c5f800000,
    0xbe2ec0c6d000000, 0xbe2f00c70600000, 0xbe2f40c7c800000, 0xbe2f8457e200000, 0xbe2fc0c84400000,
    0xbe3000c78a00000, 0xbe3040c75200000, 0xbe3080745c00000, 0xbe30c0c8d200000, 0xbe3100c8fc00000,
    0xbe3140c93a00000, 0xbe3180c8ee00000, 0xbe31c074d800000, 0xbe3200ca9e00000, 0xbe3240cad800000,
    0xbe3284601400000, 0xbe32c0cbc600000, 0xbe3300cdf000000, 0xbe3340cc9200000, 0xbe3380763200000,
    0xbe33c0cd2200000, 0xbe3400761000000, 0xbe344075c800000, 0xbe3480a32400000, 0xbe34c0a32a00000,
    0xbe3500ce0000000, 0xbe3540cd3800000, 0xbe3581015a00000, 0xbe35c087b200000, 0xbe3600ce2e00000,
    0xbe3640ce3600000, 0xbe3680ce4200000, 0xbe36c0cebc00000, 0xbe3700cea600000, 0xbe3744678600000,
    0xbe3780769200000, 0xbe37c0cff400000, 0xbe3800cf0a00000, 0xbe3840d0a400000, 0xbe3880d10a00000,
    0xbe38c468da00000, 0xbe3900d11c00000, 0xbe3940d03e00000, 0xbe3980d22800000, 0xbe39c0773a00000,
    0xbe3a00d28400000, 0xbe3a40d34600000, 0xbe3a80d3d400000, 0xbe3ac0d55000000, 0xbe3b046d4600000,
    0xbe3b40d5b600000, 0xbe3b80783000000, 0xbe3bc0d64200000, 0xbe3c04714e00000, 0xbe3c40d6a800000,
    0xbe3c80789c00000, 0xbe3cc0d6e400000, 0xbe3d00d73e00000, 0xbe3d40d77400000, 0xbe3d80d77600000,
    0xbe3dc4751a00000, 0xbe3e043a1600000, 0xbe3e4475f400000, 0xbe3e80d89c00000, 0xbe3ec4797800000,
    0xbe3f00d97e00000, 0xbe3f40d99a00000, 0xbe3f80d8ce00000, 0xbe3fc0da2c00000, 0xbe4000da7c00000,
    0xbe4040daee00000, 0xbe4080da8200000, 0xbe40c0dad200000, 0xbe4100daf000000, 0xbe4140db0a00000,
    0xbe41847a3c00000, 0xbe41c0da6800000, 0xbe4200dc5e00000, 0xbe4240dcdc00000, 0xbe42807a6600000,
    0xbe42c0dd9600000, 0xbe4300dd8e00000, 0xbe43447da200000, 0xbe4380dbf200000, 0xbe43c0dedc00000,
    0xbe44047ebc00000, 0xbe44447f1c00000, 0xbe4480df8c00000, 0xbe44c0e07200000, 0xbe4500e03c00000,
    0xbe4540e03600000, 0xbe45807b2c00000, 0xbe45c0e09400000, 0xbe4600e0fa00000, 0xbe4640e0ee00000,
    0xbe4680e15a00000, 0xbe46c40a4a00000, 0xbe4700e28a00000, 0xbe474484c600000, 0xbe4780e33800000,
    0xbe47c4875600000, 0xbe4800e45000000, 0xbe4840e46a00000, 0xbe4880e4a000000, 0xbe48c48c1000000,
    0xbe4900e50000000, 0xbe4940e52a00000, 0xbe49848e6a00000, 0xbe49c4902800000, 0xbe4a00e6f400000,
    0xbe4a40e71600000, 0xbe4a807d5800000, 0xbe4ac0e74a00000, 0xbe4b007d7000000, 0xbe4b407d7000000,
    0xbe4b80e88e00000, 0xbe4bc0e8b800000, 0xbe4c00e8e200000, 0xbe4c40e90a00000, 0xbe4c80e99400000,
    0xbe4cc07e3600000, 0xbe4d00ea4800000, 0xbe4d44986c00000, 0xbe4d80ea7c00000, 0xbe4dc4992400000,
    0xbe4e00eae000000, 0xbe4e44433e00000, 0xbe4e80ec2000000, 0xbe4ec49f4200000, 0xbe4f049f7000000,
    0xbe4f44a08800000, 0xbe4f807ff800000, 0xbe4fc0801000000, 0xbe5000ede800000, 0xbe5044a1e600000,
    0xbe5084a1e400000, 0xbe50c4a23200000, 0xbe5104a26600000, 0xbe5140ee3c00000, 0xbe5180ee3e00000,
    0xbe51c0ee3e00000, 0xbe5200ee9400000, 0xbe5240807200000, 0xbe5280ef1600000, 0xbe52c0808c00000,
    0xbe5300812c00000, 0xbe5344a83a00000, 0xbe5380f09c00000, 0xbe53c0f11800000, 0xbe5400f19800000,
    0xbe544081c600000, 0xbe5484ac4c00000, 0xbe54c0f2ac00000, 0xbe5504ad3400000, 0xbe5544ad8a00000,
    0xbe5580f31e00000, 0xbe55c0f3d600000, 0xbe5600825e00000, 0xbe5640f48000000, 0xbe5680f49400000,
    0xbe56c0f49e00000, 0xbe5704b2f800000, 0xbe5744b54e00000, 0xbe5784b54e00000, 0xbe57c0f5dc00000,
    0xbe5800840400000, 0xbe5844b75600000, 0xbe5880f78c00000, 0xbe58c0f79200000, 0xbe5900844e00000,
    0xbe5944b90000000, 0xbe5980f9a400000, 0xbe59c0854000000, 0xbe5a00f9d000000, 0xbe5a40f9c600000,
    0xbe5a80fa0000000, 0xbe5ac4bf0c00000, 0xbe5b00fac600000, 0xbe5b40860200000, 0xbe5b80fb8e00000,
    0xbe5bc0fc0400000, 0xbe5c00fc8a00000, 0xbe5c40866800000, 0xbe5c84c45000000, 0xbe5cc4c48e00000,
    0xbe5d0086b200000, 0xbe5d44c5b200000, 0xbe5d80fef400000, 0xbe5dc4c67c00000, 0xbe5e00ff2a00000,
    0xbe5e40fff400000, 0xbe5e81000a00000, 0xbe5ec4c9b400000, 0xbe5f04ca4600000, 0xbe5f4100c000000,
    0xbe5f84cb5000000, 0xbe5fc100e000000, 0xbe600466be00000, 0xbe604087aa00000, 0xbe6081016400000,
    0xbe60c1020600000, 0xbe6100881600000, 0xbe6141027c00000, 0xbe6180b56a00000, 0xbe61c4cf4e00000,
    0xbe6204cf6a00000, 0xbe6244672600000, 0xbe6284673800000, 0xbe62c1040200000, 0xbe6301040800000,
    0xbe63411f3c00000, 0xbe638088d600000, 0xbe63c1052200000, 0xbe6401051600000, 0xbe6441053a00000,
    0xbe6480a56600000, 0xbe64c1056200000, 0xbe6501056600000, 0xbe6541057a00000, 0xbe658105cc00000,
    0xbe65c4d67800000, 0xbe660105ca00000, 0xbe6641063a00000, 0xbe668106c600000, 0xbe66c1075a00000,
    0xbe6701064600000, 0xbe6741077a00000, 0xbe678107ce00000, 0xbe67c108ae00000, 0xbe680106a600000,
    0xbe6841079400000, 0xbe6881079800000, 0xbe68c107b800000, 0xbe6904d86c00000, 0xbe6944dad600000,
    0xbe6984d9aa00000, 0xbe69c08a5600000, 0xbe6a0109e200000, 0xbe6a4109e600000, 0xbe6a810a2c00000,
    0xbe6ac4e79400000, 0xbe6b010ac800000, 0xbe6b44de5800000, 0xbe6b808aba00000, 0xbe6bc08ac200000,
    0xbe6c04df6200000, 0xbe6c44e1a400000, 0xbe6c808ad600000, 0xbe6cc10ca000000, 0xbe6d010cb800000,
    0xbe6d410cce00000, 0xbe6d810cd200000, 0xbe6dc10d5200000, 0xbe6e010d1000000, 0xbe6e410e1c00000,
    0xbe6e810dc400000, 0xbe6ec10ef200000, 0xbe6f010e5000000, 0xbe6f410ed600000, 0xbe6f810f0c00000,
    0xbe6fc08bae00000, 0xbe70010fc200000, 0xbe7041100200000, 0xbe70808bf200000, 0xbe70c110c000000,
    0xbe710110c600000, 0xbe7144ecce00000, 0xbe718111ae00000, 0xbe71c111bc00000, 0xbe72008c6a00000,
    0xbe724111f400000, 0xbe7280697600000, 0xbe72c4f15c00000, 0xbe7304f2cc00000, 0xbe73408d7c00000,
    0xbe73808d8e00000, 0xbe73c1154000000, 0xbe740115da00000, 0xbe7441171400000, 0xbe748118aa00000,
    0xbe74c4f95000000, 0xbe7501195600000, 0xbe7541198200000, 0xbe75811a3600000, 0xbe75c11aee00000,
    0xbe7604fe5e00000, 0xbe7644100800000, 0xbe76811b9600000, 0xbe76c11b7800000, 0xbe77011be000000,
    0xbe774411bc00000, 0xbe77811da800000, 0xbe77c11e7000000, 0xbe78050ba400000, 0xbe78450bda00000,
    0xbe7881212800000, 0xbe78c121e200000, 0xbe7901222200000, 0xbe79450e5c00000, 0xbe7981223600000,
    0xbe79c1247000000, 0xbe7a0125ae00000, 0xbe7a4125b000000, 0xbe7a8124f800000, 0xbe7ac127f200000,
    0xbe7b01282a00000, 0xbe7b4517f400000, 0xbe7b812b1600000, 0xbe7bc0932a00000, 0xbe7c012b6e00000,
    0xbe7c451aee00000, 0xbe7c8093cc00000, 0xbe7cc12d8600000, 0xbe7d00bb6400000, 0xbe7d412e4600000,
    0xbe7d85228a00000, 0xbe7dc5243400000, 0xbe7e0094dc00000, 0xbe7e4094ec00000, 0xbe7e812fc000000,
    0xbe7ec5281400000, 0xbe7f00956400000, 0xbe7f45292c00000, 0xbe7f81301600000, 0xbe7fc1301600000,
    0xbe8001305200000, 0xbe80452b6c00000, 0xbe808131c400000, 0xbe80c0966600000, 0xbe8101325200000,
    0xbe8141334e00000, 0xbe8181338400000, 0xbe81c133fc00000, 0xbe8200979c00000, 0xbe8245366000000,
    0xbe8281362400000, 0xbe82c1388000000, 0xbe830139fa00000, 0xbe8340999c00000, 0xbe838099da00000,
    0xbe83c13ace00000, 0xbe8405419c00000, 0xbe844099f000000, 0xbe8485420a00000, 0xbe84c5441c00000,
    0xbe8505452200000, 0xbe85413d7600000, 0xbe85809aac00000, 0xbe85c13df200000, 0xbe86013dfc00000,
    0xbe86413e0a00000, 0xbe86813e1e00000, 0xbe86c13e2c00000, 0xbe87013e7600000, 0xbe87454c0000000,
};
static const uint16_t xlarun__comp[940] = {
    912, 909, 913, 0, 1, 2, 3, 53, 55, 238, 4, 572, 5, 165, 208, 210, 570, 415, 57, 417, 419, 421,
    59, 61, 63, 65, 6, 425, 67, 427, 431, 433, 429, 7, 8, 9, 598, 69, 71, 73, 10, 596, 77, 212, 214,
    594, 240, 75, 439, 441, 445, 198, 79, 447, 81, 83, 187, 85, 87, 449, 453, 236, 451, 455, 457,
    11, 12, 13, 89, 91, 93, 97, 14, 610, 167, 216, 218, 612, 95, 459, 98, 463, 189, 465, 100, 467,
    102, 106, 469, 104, 475, 473, 477, 479, 481, 200, 108, 15, 483, 112, 485, 110, 489, 487, 16, 17,
    18, 19, 114, 116, 246, 20, 616, 118, 169, 220, 222, 161, 614, 191, 499, 501, 120, 503, 124, 224,
    226, 505, 122, 509, 126, 128, 511, 132, 513, 232, 130, 521, 136, 523, 234, 134, 527, 525, 21,
    22, 23, 138, 140, 142, 24, 640, 144, 146, 171, 228, 230, 163, 638, 529, 148, 533, 531, 539, 541,
    543, 545, 150, 549, 547, 551, 553, 555, 652, 25, 152, 658, 250, 557, 154, 656, 654, 155, 559,
    157, 159, 561, 563, 26, 27, 28, 29, 54, 56, 239, 30, 573, 31, 166, 209, 211, 571, 416, 58, 418,
    420, 422, 60, 62, 64, 66, 32, 426, 68, 428, 432, 434, 430, 33, 34, 35, 599, 70, 72, 74, 36, 597,
    78, 213, 215, 595, 241, 76, 440, 442, 446, 199, 80, 448, 82, 84, 188, 86, 88, 450, 454, 237,
    452, 456, 458, 565, 37, 38, 39, 90, 92, 94, 40, 611, 168, 217, 219, 613, 96, 460, 99, 197, 464,
    190, 466, 101, 468, 103, 107, 470, 105, 476, 474, 478, 480, 482, 201, 109, 41, 484, 113, 486,
    111, 490, 488, 42, 43, 44, 45, 115, 117, 247, 46, 617, 119, 170, 221, 223, 162, 615, 192, 500,
    502, 121, 504, 125, 225, 227, 506, 123, 510, 127, 129, 512, 133, 514, 233, 131, 522, 566, 137,
    524, 235, 135, 528, 526, 47, 48, 49, 139, 141, 143, 50, 641, 145, 147, 172, 229, 231, 164, 639,
    530, 149, 534, 532, 540, 542, 544, 546, 151, 550, 548, 567, 552, 554, 556, 653, 51, 153, 659,
    251, 558, 52, 657, 568, 655, 156, 560, 158, 160, 562, 564, 875, 258, 835, 576, 574, 580, 578,
    181, 202, 204, 185, 423, 602, 600, 606, 604, 461, 620, 618, 624, 622, 491, 244, 493, 242, 206,
    179, 175, 173, 177, 577, 575, 581, 579, 182, 203, 205, 186, 424, 603, 601, 607, 605, 462, 621,
    619, 625, 623, 492, 245, 494, 243, 207, 180, 176, 174, 178, 586, 584, 590, 588, 587, 585, 591,
    589, 435, 437, 436, 438, 495, 497, 496, 498, 515, 516, 517, 518, 535, 536, 537, 538, 569, 630,
    628, 634, 632, 636, 631, 629, 635, 633, 637, 644, 642, 648, 646, 650, 645, 643, 649, 647, 651,
    195, 193, 194, 183, 184, 443, 444, 248, 249, 196, 831, 259, 830, 829, 668, 669, 833, 841, 261,
    682, 683, 843, 262, 696, 697, 845, 857, 263, 856, 855, 268, 712, 713, 883, 264, 726, 727, 874,
    872, 265, 871, 870, 269, 740, 885, 266, 752, 753, 887, 826, 838, 760, 270, 823, 822, 660, 661,
    827, 825, 762, 271, 676, 677, 764, 272, 688, 689, 839, 837, 766, 273, 850, 849, 275, 704, 705,
    853, 768, 277, 720, 721, 866, 867, 770, 278, 863, 862, 276, 732, 733, 868, 772, 279, 744, 745,
    881, 879, 851, 267, 854, 864, 274, 869, 880, 280, 281, 285, 302, 304, 284, 282, 306, 283, 300,
    310, 312, 287, 314, 289, 316, 286, 318, 324, 288, 326, 328, 330, 332, 322, 303, 305, 293, 291,
    307, 292, 301, 311, 313, 296, 315, 290, 317, 295, 319, 325, 297, 327, 329, 331, 333, 323, 294,
    298, 299, 308, 309, 320, 321, 334, 335, 337, 336, 338, 340, 341, 339, 342, 343, 344, 353, 354,
    365, 364, 366, 369, 370, 372, 371, 373, 374, 377, 375, 376, 378, 379, 381, 380, 382, 383, 385,
    384, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 471, 472, 507, 508, 519, 520,
    582, 592, 583, 593, 608, 609, 626, 627, 662, 664, 666, 774, 663, 665, 667, 775, 776, 777, 778,
    779, 780, 781, 670, 672, 674, 782, 671, 673, 675, 783, 784, 785, 786, 787, 788, 789, 678, 680,
    679, 681, 684, 686, 685, 687, 690, 692, 694, 790, 691, 693, 695, 791, 792, 793, 794, 795, 796,
    797, 698, 700, 702, 798, 699, 701, 703, 799, 800, 801, 802, 803, 804, 805, 706, 708, 710, 707,
    709, 711, 714, 716, 718, 715, 717, 719, 722, 724, 723, 725, 728, 730, 729, 731, 734, 736, 738,
    735, 737, 739, 741, 742, 743, 746, 748, 750, 806, 747, 749, 751, 807, 808, 809, 810, 811, 812,
    813, 754, 756, 758, 814, 755, 757, 759, 815, 816, 817, 818, 819, 820, 821, 824, 836, 878, 828,
    846, 847, 848, 840, 882, 859, 860, 861, 894, 895, 896, 897, 899, 898, 900, 901, 902, 903, 904,
    905, 906, 907, 908, 911, 910, 914, 915, 916, 917, 918, 919, 920, 921, 930, 931, 922, 923, 924,
    925, 932, 933, 926, 927, 928, 929, 934, 935, 936, 937, 966, 941, 942, 943, 944, 945, 946, 947,
    948, 949, 950, 951, 952, 953, 954, 955, 956, 957, 958, 959, 960, 961, 962, 963, 964, 965, 967,
    993, 968, 969, 970, 971, 972, 973, 974, 975, 976, 977, 978, 979, 980, 981, 982, 983, 984, 985,
    986, 987, 988, 989, 990, 991, 992, 994, 995, 996, 997, 998, 1493, 1494, 1495, 1496, 1497, 1498,
    1499, 1501, 1500, 1502, 1503, 1504,
};
/* nfc tables end */
#define XLARUN__CP_BITS 21   /* a code point in the low 21 bits, its combining class above */
#define XLARUN__CP_MASK 0x1FFFFFu
enum { XLARUN__HANGUL_BASE = 0xAC00, XLARUN__JAMO_L = 0x1100, XLARUN__JAMO_V = 0x1161, XLARUN__JAMO_T = 0x11A7,
       XLARUN__JAMO_NL = 19, XLARUN__JAMO_NV = 21, XLARUN__JAMO_NT = 28, XLARUN__HANGUL_N = 19 * 21 * 28 };

static unsigned xlarun__ccc(uint32_t cp) {
    size_t lo = 0, hi = sizeof xlarun__ccc_ranges / sizeof xlarun__ccc_ranges[0];
    if (cp < 0x300) return 0;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if ((xlarun__ccc_ranges[mid] >> 8) <= cp) lo = mid; else hi = mid;
    }
    return xlarun__ccc_ranges[lo] & 0xFFu;
}
/* the decomposition entry of cp (see the table), 0 if it has none */
static uint64_t xlarun__decomp_of(uint32_t cp) {
    size_t lo = 0, hi = sizeof xlarun__decomp / sizeof xlarun__decomp[0];
    if (cp < 0xC0) return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t k = XLARUN__CAST(uint32_t, xlarun__decomp[mid] >> 42);
        if (k == cp) return xlarun__decomp[mid];
        if (k < cp) lo = mid + 1; else hi = mid;
    }
    return 0;
}
/* the primary composite of starter a and b, 0 if none */
static uint32_t xlarun__compose(uint32_t a, uint32_t b) {
    uint64_t key = XLARUN__CAST(uint64_t, a) << XLARUN__CP_BITS | b;
    size_t lo = 0, hi = sizeof xlarun__comp / sizeof xlarun__comp[0];
    if (a - XLARUN__JAMO_L < XLARUN__JAMO_NL && b - XLARUN__JAMO_V < XLARUN__JAMO_NV)
        return XLARUN__HANGUL_BASE + ((a - XLARUN__JAMO_L) * XLARUN__JAMO_NV + b - XLARUN__JAMO_V) * XLARUN__JAMO_NT;
    if (a - XLARUN__HANGUL_BASE < XLARUN__HANGUL_N && (a - XLARUN__HANGUL_BASE) % XLARUN__JAMO_NT == 0 &&
        b - XLARUN__JAMO_T - 1 < XLARUN__JAMO_NT - 1)
        return a + b - XLARUN__JAMO_T;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t d = xlarun__decomp[xlarun__comp[mid]], k = d & ((XLARUN__CAST(uint64_t, 1) << 42) - 1);
        if (k == key) return XLARUN__CAST(uint32_t, d >> 42);
        if (k < key) lo = mid + 1; else hi = mid;
    }
    return 0;
}
/* the full canonical decomposition of cp, each code point with its class; returns the count (at
   most 4). A second code point never decomposes further, so only the first is followed. */
static size_t xlarun__nfd_cp(uint32_t cp, uint32_t *out) {
    uint32_t tail[4];
    uint64_t d;
    size_t n = 0, nt = 0, step;
    if (cp - XLARUN__HANGUL_BASE < XLARUN__HANGUL_N) {   /* Hangul: L V, or L V T (all class 0) */
        uint32_t s = cp - XLARUN__HANGUL_BASE;
        out[n++] = XLARUN__JAMO_L + s / (XLARUN__JAMO_NV * XLARUN__JAMO_NT);
        out[n++] = XLARUN__JAMO_V + s % (XLARUN__JAMO_NV * XLARUN__JAMO_NT) / XLARUN__JAMO_NT;
        if (s % XLARUN__JAMO_NT) out[n++] = XLARUN__JAMO_T + s % XLARUN__JAMO_NT;
        return n;
    }
    for (step = 0; step < 4 && (d = xlarun__decomp_of(cp)) != 0; step++) {
        if (d & XLARUN__CP_MASK) tail[nt++] = XLARUN__CAST(uint32_t, d & XLARUN__CP_MASK);
        cp = XLARUN__CAST(uint32_t, d >> XLARUN__CP_BITS) & XLARUN__CP_MASK;
    }
    out[n++] = cp | xlarun__ccc(cp) << XLARUN__CP_BITS;
    while (nt) {
        uint32_t c = tail[--nt];
        out[n++] = c | xlarun__ccc(c) << XLARUN__CP_BITS;
    }
    return n;
}
/* k > 1 non-starters in order of class, equal classes in their order: insertion for a short run,
   a counting sort through tmp for a long one (a run of marks may be as long as the text) */
static void xlarun__nfc_order(uint32_t *c, size_t k, uint32_t *tmp) {
    size_t i, j, at[256];
    if (k <= 32) {
        for (i = 1; i < k; i++) {
            uint32_t x = c[i];
            for (j = i; j > 0 && c[j - 1] >> XLARUN__CP_BITS > x >> XLARUN__CP_BITS; j--) c[j] = c[j - 1];
            c[j] = x;
        }
        return;
    }
    memset(at, 0, sizeof at);
    for (i = 0; i < k; i++) at[c[i] >> XLARUN__CP_BITS]++;
    for (i = 0, j = 0; i < 256; i++) {
        size_t count = at[i];
        at[i] = j;
        j += count;
    }
    for (i = 0; i < k; i++) tmp[at[c[i] >> XLARUN__CP_BITS]++] = c[i];
    memcpy(c, tmp, k * sizeof *c);
}
/* 1 if NFC leaves s[0, n) as it is because every code point is below U+0300 (no byte from 0xCC) */
static int xlarun__nfc_quick(const unsigned char *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] >= 0xCC) return 0;
    return 1;
}
/* NFC of the valid UTF-8 s[0, n) into out (at most XLARUN__NFC_GROWTH * n bytes); cps has room
   for 3 * n code points (the text decomposes into at most 1.5 per byte, and the sort needs as
   many again). Returns the length. */
static size_t xlarun__nfc(const unsigned char *s, size_t n, unsigned char *out, uint32_t *cps) {
    uint32_t *tmp = cps + n + n / 2;
    size_t m = 0, i, l, r, w, starter = SIZE_MAX;
    unsigned last = 0;
    for (i = 0; i < n; i += l) m += xlarun__nfd_cp(xlarun__cp_at(s, i, &l), cps + m);
    for (i = 0; i < m; i = r + 1) {   /* canonical order: each run of non-starters by class */
        for (r = i; r < m && cps[r] >> XLARUN__CP_BITS; r++) {}
        if (r - i > 1) xlarun__nfc_order(cps + i, r - i, tmp);
    }
    for (r = 0, w = 0; r < m; r++) {  /* composition, in place */
        uint32_t c = cps[r];
        unsigned cc = c >> XLARUN__CP_BITS;
        if (starter != SIZE_MAX && (w == starter + 1 || (last && last < cc))) {   /* not blocked */
            uint32_t k = xlarun__compose(cps[starter], c & XLARUN__CP_MASK);
            if (k) { cps[starter] = k; continue; }
        }
        if (!cc) starter = w;
        last = cc;
        cps[w++] = c;
    }
    for (i = 0, r = 0; r < w; r++) i += xlarun__tk_put_cp(out + i, cps[r] & XLARUN__CP_MASK);
    return i;
}

/* the most bytes the normalizer makes of n bytes; 0 when there is no normalizer */
static size_t xlarun__norm_bound(const xlarun_tokenizer *t, size_t n) {
    size_t pl, tl;
    if (t->nfc) return XLARUN__NFC_GROWTH * n;
    if (!t->prepend && !t->rep_from) return 0;
    pl = t->prepend ? strlen(t->prepend) : 0;
    tl = t->rep_to ? strlen(t->rep_to) : 0;
    return (pl + n) * (tl > 1 ? tl : 1);
}
/* the normalizer on the valid UTF-8 s[0, n) into out (xlarun__norm_bound bytes): NFC (cps as
   xlarun__nfc needs), or Prepend and Replace in the file's order. Returns the length. */
static size_t xlarun__tk_normalize(const xlarun_tokenizer *t, const unsigned char *s, size_t n, unsigned char *out,
                                   uint32_t *cps) {
    size_t m = 0, i, pl, fl, tl;
    if (t->nfc) return xlarun__nfc(s, n, out, cps);
    pl = t->prepend ? strlen(t->prepend) : 0;
    fl = t->rep_from ? strlen(t->rep_from) : 0;
    tl = t->rep_to ? strlen(t->rep_to) : 0;
    for (i = 0; i < pl; i++) {   /* Prepend before Replace: the replacement applies to it too */
        if (fl && t->prepend_first && i + fl <= pl && !memcmp(t->prepend + i, t->rep_from, fl)) {
            if (tl) memcpy(out + m, t->rep_to, tl); /* no NULL rep_to to memcpy */
            m += tl;
            i += fl - 1;
        } else out[m++] = XLARUN__CAST(unsigned char, t->prepend[i]);
    }
    for (i = 0; i < n; i++) {
        if (fl && i + fl <= n && !memcmp(s + i, t->rep_from, fl)) {
            if (tl) memcpy(out + m, t->rep_to, tl); /* no NULL rep_to to memcpy */
            m += tl;
            i += fl - 1;
        } else out[m++] = s[i];
    }
    return m;
}

/* ---- pre-tokenizers: the Split regexes of the supported tokenizer.json files, as code -------- */

/* after an apostrophe at s[i-1]: length of s|t|re|ve|m|ll|d (in that order), 0 if none.
   Case-insensitive as Oniguruma's (?i): ſ (U+017F) folds to s. */
static size_t xlarun__tk_contraction(const unsigned char *s, size_t n, size_t i, int fold) {
    static const char *const alts[7] = {"s", "t", "re", "ve", "m", "ll", "d"};
    int a;
    for (a = 0; a < 7; a++) {
        const char *p = alts[a];
        size_t j = i;
        for (; *p; p++) {
            if (j >= n) break;
            if (s[j] == XLARUN__CAST(unsigned char, *p) || (fold && s[j] == XLARUN__CAST(unsigned char, *p - 32))) j++;
            else if (fold && *p == 's' && j + 1 < n && s[j] == 0xC5 && s[j + 1] == 0xBF) j += 2;
            else break;
        }
        if (!*p) return j - i;
    }
    return 0;
}

/* end of the run of characters from i whose class satisfies want(k) */
static size_t xlarun__tk_run(const unsigned char *s, size_t n, size_t i, int (*want)(int)) {
    size_t l;
    while (i < n && want(xlarun__class_at(s, i, &l))) i += l;
    return i;
}
static int xlarun__tk_want_l(int k) { return xlarun__u_isl(k); }
static int xlarun__tk_want_n(int k) { return xlarun__u_isn(k); }
static int xlarun__tk_want_other(int k) { return !xlarun__u_isl(k) && k != XLARUN__U_WS && !xlarun__u_isn(k); }

/* whitespace at i: \s*[\r\n]+ (when allowed), then \s+(?!\S), then \s+ */
static size_t xlarun__split_space(const unsigned char *s, size_t n, size_t i, int newline_alt) {
    size_t j = i, l = 0, last = i, nl = 0, count = 0;
    while (j < n && xlarun__class_at(s, j, &l) == XLARUN__U_WS) {
        if (s[j] == '\r' || s[j] == '\n') nl = j + 1;
        last = j;
        j += l;
        count++;
    }
    if (newline_alt && nl) return nl;
    if (j == n || count < 2) return j;
    return last;
}

/* Llama 3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
            ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+       -> end of the piece at i
   Qwen2's pattern is the same with \p{N} for \p{N}{1,3}: digits = 1 instead of 3 */
static size_t xlarun__split_llama3(const unsigned char *s, size_t n, size_t i, int digits) {
    size_t l, l2, j, m;
    int k = xlarun__class_at(s, i, &l), c = s[i];
    if (c == '\'' && (m = xlarun__tk_contraction(s, n, i + 1, 1)) != 0) return i + 1 + m;
    if (xlarun__u_isl(k)) return xlarun__tk_run(s, n, i, xlarun__tk_want_l);
    if (c != '\r' && c != '\n' && !xlarun__u_isn(k) && i + l < n && xlarun__u_isl(xlarun__class_at(s, i + l, &l2)))
        return xlarun__tk_run(s, n, i + l, xlarun__tk_want_l);
    if (xlarun__u_isn(k)) {
        int d;
        for (j = i, d = 0; d < digits && j < n && xlarun__u_isn(xlarun__class_at(s, j, &l2)); d++) j += l2;
        return j;
    }
    j = c == ' ' ? i + 1 : i;
    if (j < n && xlarun__tk_want_other(xlarun__class_at(s, j, &l2))) {
        j = xlarun__tk_run(s, n, j, xlarun__tk_want_other);
        while (j < n && (s[j] == '\r' || s[j] == '\n')) j++;
        return j;
    }
    return xlarun__split_space(s, n, i, 1);
}

/* o200k (Phi-4-mini, gpt-oss), an alternative of its word part at j, without the optional first
   character: 1 [UP]*[LO]+ or 2 [UP]+[LO]*, UP = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], LO =
   [\p{Ll}\p{Lm}\p{Lo}\p{M}]. The end, or j when it does not match. [UP]* takes the longest run
   and gives characters back until [LO]+ matches: at once when an Ll follows the run; else
   [LO]+ is the run's last character in both sets (LO, M), which the U characters after it end */
static int xlarun__tk_want_up(int k) { return k == XLARUN__U_LU || k == XLARUN__U_LO || k == XLARUN__U_M; }
static int xlarun__tk_want_lo(int k) { return k == XLARUN__U_LL || k == XLARUN__U_LO || k == XLARUN__U_M; }
static size_t xlarun__o200k_word(const unsigned char *s, size_t n, size_t j, int alt) {
    size_t k = j, l, both = n, bl = 0;
    int c;
    while (k < n && xlarun__tk_want_up(c = xlarun__class_at(s, k, &l))) {
        if (c != XLARUN__U_LU) { both = k; bl = l; }
        k += l;
    }
    if (alt == 2) return k > j ? xlarun__tk_run(s, n, k, xlarun__tk_want_lo) : j;
    if (k < n && xlarun__class_at(s, k, &l) == XLARUN__U_LL) return xlarun__tk_run(s, n, k, xlarun__tk_want_lo);
    return both < n ? both + bl : j;
}

/* o200k: [^\r\n\p{L}\p{N}]?UP*LO+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?UP+LO*(?i:...)?|
          \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
   Tekken (Mistral Nemo, Mistral Small 3): the same without the contractions and with \p{N}
   (contr 0, digits 1). Each word alternative is tried with the first character, then without
   it (a mark is both that character and a letter of UP and LO) */
static size_t xlarun__split_o200k(const unsigned char *s, size_t n, size_t i, int digits, int contr) {
    size_t l, l2, j, e = i, m;
    int k = xlarun__class_at(s, i, &l), c = s[i], alt;
    int first = c != '\r' && c != '\n' && !xlarun__u_isl(k) && !xlarun__u_isn(k);
    for (alt = 1; alt <= 2 && e == i; alt++) {
        if (first && (e = xlarun__o200k_word(s, n, i + l, alt)) == i + l) e = i;
        if (e == i) e = xlarun__o200k_word(s, n, i, alt);
    }
    if (e > i) {
        if (contr && e < n && s[e] == '\'' && (m = xlarun__tk_contraction(s, n, e + 1, 1)) != 0) e += 1 + m;
        return e;
    }
    if (xlarun__u_isn(k)) {
        int d;
        for (j = i, d = 0; d < digits && j < n && xlarun__u_isn(xlarun__class_at(s, j, &l2)); d++) j += l2;
        return j;
    }
    j = c == ' ' ? i + 1 : i;
    if (j < n && xlarun__tk_want_other(xlarun__class_at(s, j, &l2))) {
        j = xlarun__tk_run(s, n, j, xlarun__tk_want_other);
        while (j < n && (s[j] == '\r' || s[j] == '\n' || s[j] == '/')) j++;
        return j;
    }
    return xlarun__split_space(s, n, i, 1);
}

/* GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static size_t xlarun__split_gpt2(const unsigned char *s, size_t n, size_t i) {
    size_t l, j, m;
    int k;
    if (s[i] == '\'' && (m = xlarun__tk_contraction(s, n, i + 1, 0)) != 0) return i + 1 + m;
    j = s[i] == ' ' ? i + 1 : i;
    if (j < n) {
        k = xlarun__class_at(s, j, &l);
        if (xlarun__u_isl(k)) return xlarun__tk_run(s, n, j, xlarun__tk_want_l);
        if (xlarun__u_isn(k)) return xlarun__tk_run(s, n, j, xlarun__tk_want_n);
        if (xlarun__tk_want_other(k)) return xlarun__tk_run(s, n, j, xlarun__tk_want_other);
    }
    return xlarun__split_space(s, n, i, 0);
}

/* ---- encoding ------------------------------------------------------------------------------- */

typedef struct xlarun__enc {
    const xlarun_tokenizer *t;
    unsigned flags;
    int32_t *ids;
    size_t cap, n;
    unsigned char *norm, *word;     /* scratch: a normalized segment, a byte-level word */
    unsigned char *ms;              /* scratch: a piece after Metaspace */
    int32_t *sym;                   /* scratch: 7 arrays of max_sym entries */
    size_t max_sym;
    int at0;                        /* the next piece starts the text (Metaspace "first") */
    int nfc;                        /* NFC may change the text: norm has room for its output */
} xlarun__enc;

static void xlarun__tk_emit(xlarun__enc *e, int32_t id) {
    if (e->n < e->cap) e->ids[e->n] = id;
    e->n++;
}

/* the indexed heap of BPE pair positions, ordered by (rank, position) as tokenizers' queue */
typedef struct xlarun__bpe {
    int32_t *id, *nx, *pv, *rk, *nw, *heap, *hpos;
    int32_t hn;
} xlarun__bpe;

static int xlarun__heap_less(const xlarun__bpe *b, int32_t x, int32_t y) {
    int32_t rx = b->rk[x], ry = b->rk[y];
    return rx < ry || (rx == ry && x < y); /* equal ranks: the leftmost position first */
}
static void xlarun__heap_swap(xlarun__bpe *b, int32_t i, int32_t j) {
    int32_t t = b->heap[i];
    b->heap[i] = b->heap[j];
    b->heap[j] = t;
    b->hpos[b->heap[i]] = i;
    b->hpos[b->heap[j]] = j;
}
static void xlarun__heap_fix(xlarun__bpe *b, int32_t i) {
    while (i > 0 && xlarun__heap_less(b, b->heap[i], b->heap[(i - 1) / 2])) {
        xlarun__heap_swap(b, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < b->hn && xlarun__heap_less(b, b->heap[l], b->heap[m])) m = l;
        if (r < b->hn && xlarun__heap_less(b, b->heap[r], b->heap[m])) m = r;
        if (m == i) return;
        xlarun__heap_swap(b, i, m);
        i = m;
    }
}
static void xlarun__heap_remove(xlarun__bpe *b, int32_t p) {
    int32_t i = b->hpos[p];
    if (i < 0) return;
    b->hn--;
    if (i != b->hn) {
        xlarun__heap_swap(b, i, b->hn);
        b->hpos[p] = -1;
        xlarun__heap_fix(b, i);
    } else b->hpos[p] = -1;
}
/* recompute the pair at p (p and its next) and put it in or out of the heap */
static void xlarun__bpe_pair(const xlarun_tokenizer *t, xlarun__bpe *b, int32_t p) {
    const xlarun__merge *m = b->nx[p] >= 0 ? xlarun__merge_find(t, b->id[p], b->id[b->nx[p]]) : NULL;
    if (!m) { xlarun__heap_remove(b, p); return; }
    b->rk[p] = m->rank;
    b->nw[p] = m->id;
    if (b->hpos[p] < 0) {
        b->heap[b->hn] = p;
        b->hpos[p] = b->hn++;
    }
    xlarun__heap_fix(b, b->hpos[p]);
}

/* one pre-token (a word, in the model's alphabet) through the BPE model */
static void xlarun__bpe_word(xlarun__enc *e, const unsigned char *w, size_t wl) {
    const xlarun_tokenizer *t = e->t;
    xlarun__bpe b;
    size_t i, l, k;
    int32_t n = 0, p, unk = -1;
    if (!wl) return;
    if (t->ignore_merges) {
        int32_t id = xlarun__vocab_find(t, w, wl);
        if (id >= 0) { xlarun__tk_emit(e, id); return; }
    }
    b.id = e->sym;
    b.nx = b.id + e->max_sym; b.pv = b.nx + e->max_sym; b.rk = b.pv + e->max_sym;
    b.nw = b.rk + e->max_sym; b.heap = b.nw + e->max_sym; b.hpos = b.heap + e->max_sym;
    b.hn = 0;
    for (i = 0; i < wl; i += l) {
        uint32_t cp = xlarun__cp_at(w, i, &l);
        int32_t id = cp < 0x800 ? t->char_id[cp] : xlarun__vocab_find(t, w + i, l);
        if (id >= 0) {
            if (unk >= 0) { b.id[n++] = unk; unk = -1; }
            b.id[n++] = id;
            continue;
        }
        if (t->byte_fallback) {   /* as tokenizers: the bytes go before a pending unk */
            for (k = 0; k < l && t->byte_id[w[i + k]] >= 0; k++) {}
            if (k == l) {
                for (k = 0; k < l; k++) b.id[n++] = t->byte_id[w[i + k]];
                continue;
            }
        }
        if (t->unk_id >= 0) {
            if (unk >= 0 && !t->fuse_unk) b.id[n++] = unk;
            unk = t->unk_id;
        }
    }
    if (unk >= 0) b.id[n++] = unk;
    for (p = 0; p < n; p++) {
        b.nx[p] = p + 1 < n ? p + 1 : -1;
        b.pv[p] = p - 1;
        b.hpos[p] = -1;
    }
    for (p = 0; p + 1 < n; p++) xlarun__bpe_pair(t, &b, p);
    while (b.hn > 0) {
        int32_t q;
        p = b.heap[0];
        q = b.nx[p];
        b.id[p] = b.nw[p];
        xlarun__heap_remove(&b, q);
        b.nx[p] = b.nx[q];
        if (b.nx[q] >= 0) b.pv[b.nx[q]] = p;
        b.id[q] = -1;
        xlarun__bpe_pair(t, &b, p);
        if (b.pv[p] >= 0) xlarun__bpe_pair(t, &b, b.pv[p]);
    }
    for (p = n > 0 ? 0 : -1; p >= 0; p = b.nx[p]) xlarun__tk_emit(e, b.id[p]);
}

/* a pre-token of the (normalized) text: byte-level tokenizers map it into the alphabet first */
static void xlarun__tk_word(xlarun__enc *e, const unsigned char *s, size_t n) {
    size_t i, m = 0;
    if (!e->t->byte_level) { xlarun__bpe_word(e, s, n); return; }
    for (i = 0; i < n; i++) m += xlarun__tk_put_cp(e->word + m, xlarun__bl_cp(s[i]));
    xlarun__bpe_word(e, e->word, m);
}

/* pre_tokenizer Metaspace: spaces become the replacement character, which is prepended (unless
   the piece already starts with it) always, or only to the piece at the start of the text, or
   never; with split, each replacement character starts a new word (MergedWithNext) */
static void xlarun__tk_metaspace(xlarun__enc *e, const unsigned char *s, size_t n, int at0) {
    const xlarun_tokenizer *t = e->t;
    const char *r = t->ms_rep;
    size_t rl = strlen(r), m = 0, i, a;
    int pre = t->ms_prepend == XLARUN__MS_ALWAYS || (t->ms_prepend == XLARUN__MS_FIRST && at0);
    if (pre && !((n && s[0] == ' ') || (n >= rl && !memcmp(s, r, rl)))) {
        memcpy(e->ms, r, rl);
        m = rl;
    }
    for (i = 0; i < n; i++) {
        if (s[i] == ' ') { memcpy(e->ms + m, r, rl); m += rl; }
        else e->ms[m++] = s[i];
    }
    if (!t->ms_split) { xlarun__tk_word(e, e->ms, m); return; }
    for (a = 0, i = 1; i + rl <= m; i++)
        if (!memcmp(e->ms + i, r, rl)) {
            xlarun__tk_word(e, e->ms + a, i - a);
            a = i;
            i += rl - 1;
        }
    if (m > a) xlarun__tk_word(e, e->ms + a, m - a);
}

/* pre-tokenize a normalized piece into words */
static void xlarun__tk_pretok_piece(xlarun__enc *e, const unsigned char *s, size_t n) {
    const xlarun_tokenizer *t = e->t;
    size_t i = 0, j, l;
    int at0 = e->at0;
    e->at0 = 0;
    if (t->ms_rep) { xlarun__tk_metaspace(e, s, n, at0); return; }
    if (t->digits) {   /* Digits first: numeric characters isolated (or in runs), then the rest */
        while (i < n) {
            j = i;
            while (j < n && !xlarun__u_isn(xlarun__class_at(s, j, &l))) j += l;
            if (j > i) {
                size_t a = i;
                while (a < j) {
                    size_t b = t->pre == XLARUN__PRE_GPT2 ? xlarun__split_gpt2(s, j, a) : j;
                    xlarun__tk_word(e, s + a, b - a);
                    a = b;
                }
            }
            if (j == n) break;
            i = j;
            if (t->digits == 1) {
                xlarun__cp_at(s, j, &l);
                j += l;
            } else j = xlarun__tk_run(s, n, j, xlarun__tk_want_n);
            xlarun__tk_word(e, s + i, j - i);
            i = j;
        }
        return;
    }
    if (t->pre == XLARUN__PRE_NONE) { xlarun__tk_word(e, s, n); return; }
    if (t->pre == XLARUN__PRE_SPACE) {   /* each space ends its piece (one right after a space is a piece) */
        for (j = 0; i < n; i++)
            if (s[i] == ' ') {
                xlarun__tk_word(e, s + j, i + 1 - j);
                j = i + 1;
            }
        if (j < n) xlarun__tk_word(e, s + j, n - j);
        return;
    }
    while (i < n) {
        j = t->pre == XLARUN__PRE_LLAMA3 ? xlarun__split_llama3(s, n, i, t->split_digits)
            : t->pre == XLARUN__PRE_O200K ? xlarun__split_o200k(s, n, i, t->split_digits, t->split_contr)
                                          : xlarun__split_gpt2(s, n, i);
        xlarun__tk_word(e, s + i, j - i);
        i = j;
    }
}

/* the longest added token of the sorted range [lo, hi) that s[0, n) starts with, NULL if none.
   Every entry of the range starts with s[0, d): one of length d is the first there (a text sorts
   before its extensions); the rest are in order of their byte d, so the range for s[0, d + 1) is
   found by two binary searches. Thousands of added tokens sharing a first byte (Gemma's
   <unusedN>) cost a few comparisons per byte matched. */
static int xlarun__added_key(const xlarun__added *x, size_t d) { return x->len > d ? x->text[d] : -1; }
static const xlarun__added *xlarun__added_longest(const xlarun_tokenizer *t, uint32_t lo, uint32_t hi,
                                                  const unsigned char *s, size_t n) {
    const xlarun__added *best = NULL;
    size_t d = 1;
    while (lo < hi) {
        uint32_t l, h, m;
        int c;
        if (t->added[lo].len == d) best = &t->added[lo];
        if (d == n) break;
        c = s[d];
        for (l = lo, h = hi; l < h;) {
            m = l + (h - l) / 2;
            if (xlarun__added_key(&t->added[m], d) < c) l = m + 1;
            else h = m;
        }
        lo = l;
        for (h = hi; l < h;) {
            m = l + (h - l) / 2;
            if (xlarun__added_key(&t->added[m], d) <= c) l = m + 1;
            else h = m;
        }
        hi = l;
        d++;
    }
    return best;
}

/* the next added-token match in s[from, n) as tokenizers' find_matches (leftmost-longest, single
   word, lstrip/rstrip, special tokens skipped on request); seg = start of the sentence. Returns
   the added token or NULL; *ms, *me = the split, *resume = where to search next */
static const xlarun__added *xlarun__added_next(const xlarun__enc *e, int norm, const unsigned char *s,
                                               size_t seg, size_t n, size_t from, size_t floor,
                                               size_t *ms, size_t *me, size_t *resume) {
    const xlarun_tokenizer *t = e->t;
    size_t p, l;
    for (p = from; p < n; p++) {
        const xlarun__added *best = xlarun__added_longest(t, t->bucket[norm][s[p]], t->bucket[norm][s[p] + 1], s + p, n - p);
        if (!best) continue;
        *resume = p + best->len;
        if ((e->flags & XLARUN_ENCODE_SPECIAL_AS_TEXT) && (t->flags[best->id] & XLARUN__TF_SPECIAL)) {
            p = *resume - 1;
            continue;
        }
        if (best->flags & XLARUN__AT_SINGLE) {
            size_t q = p, r = p + best->len;
            int before = 0, after = 0;
            if (q > seg) {
                q--;
                while (q > seg && (s[q] & 0xC0) == 0x80) q--;
                before = xlarun__u_isword(xlarun__class_at(s, q, &l));
            }
            if (r < n) after = xlarun__u_isword(xlarun__class_at(s, r, &l));
            if (before || after) { p = *resume - 1; continue; }
        }
        *ms = p;
        *me = p + best->len;
        if (best->flags & XLARUN__AT_LSTRIP) { /* back over white space, not into the last match */
            size_t q = p;
            while (q > floor) {
                size_t c = q - 1;
                while (c > floor && (s[c] & 0xC0) == 0x80) c--;
                if (xlarun__class_at(s, c, &l) != XLARUN__U_WS) break;
                q = c;
            }
            *ms = q > floor ? q : floor;
        }
        if (best->flags & XLARUN__AT_RSTRIP)
            while (*me < n && xlarun__class_at(s, *me, &l) == XLARUN__U_WS) *me += l;
        if ((best->flags & XLARUN__AT_LSTRIP) && *ms >= *me) { /* the last match's rstrip took it all */
            p = *resume - 1;
            continue;
        }
        return best;
    }
    return NULL;
}

/* a normalized piece: split out the normalized added tokens, pre-tokenize the rest */
static void xlarun__normalized_piece(xlarun__enc *e, const unsigned char *s, size_t n) {
    size_t from = 0, start = 0, ms, me, resume;
    const xlarun__added *a;
    if (e->t->n_added == e->t->n_added_raw) { xlarun__tk_pretok_piece(e, s, n); return; }
    while ((a = xlarun__added_next(e, 1, s, 0, n, from, start, &ms, &me, &resume)) != NULL) {
        if (ms > start) xlarun__tk_pretok_piece(e, s + start, ms - start);
        xlarun__tk_emit(e, a->id);
        e->at0 = 0;
        start = me;
        from = resume;
    }
    if (start < n) xlarun__tk_pretok_piece(e, s + start, n - start);
}

/* a segment of the input between non-normalized added tokens: normalize, then on. The BPE
   symbol arrays are free while a segment is normalized: NFC keeps its code points there. */
static void xlarun__tk_segment(xlarun__enc *e, const unsigned char *s, size_t n) {
    const xlarun_tokenizer *t = e->t;
    if (!n) return;
    if (t->nfc ? !e->nfc || xlarun__nfc_quick(s, n) : !t->prepend && !t->rep_from) {
        xlarun__normalized_piece(e, s, n);
        return;
    }
    xlarun__normalized_piece(e, e->norm, xlarun__tk_normalize(t, s, n, e->norm, XLARUN__PUN(uint32_t *, e->sym)));
}

/* scratch for a valid text of len bytes: a normalized segment, a piece after Metaspace, a
   byte-level word and 7 int32 arrays of BPE symbols; 0 if len is absurd. nfc: for an NFC
   tokenizer, the most bytes NFC makes of the text, 0 when it leaves it as it is. NFC's code
   points (3 per byte of a segment) fit in the symbol arrays: 7 * (nfc + 1) >= 3 * len, as nfc is
   3 bytes per byte of the text given to encode and len at most 3 (U+FFFD for a bad byte). */
static size_t xlarun__scratch_layout(const xlarun_tokenizer *t, size_t len, size_t nfc, size_t *norm, size_t *ms,
                                     size_t *word, size_t *max_sym) {
    size_t piece;
    if (len > SIZE_MAX / 1024) return 0;
    *norm = t->nfc ? nfc : xlarun__norm_bound(t, len);
    piece = *norm ? *norm : len;
    *ms = 0;
    if (t->ms_rep) piece = *ms = (piece + 1) * strlen(t->ms_rep);   /* each space may grow */
    *word = t->byte_level ? 2 * piece : 0;
    *max_sym = (t->byte_level && t->byte_fallback ? 2 * piece : piece) + 1;
    return *norm + *ms + *word + 7 * sizeof(int32_t) * *max_sym + 8;
}

XLARUN_API size_t xlarun_tokenizer_scratch_bytes(const xlarun_tokenizer *t, size_t len) {
    size_t norm, ms, word, max_sym, n;
    if (!t || t->magic != XLARUN__TOK_MAGIC || len > SIZE_MAX / 1024) return 0;
    /* U+FFFD: 3 bytes per bad byte; NFC: at most XLARUN__NFC_GROWTH bytes per byte, bad or not */
    n = xlarun__scratch_layout(t, 3 * len, XLARUN__NFC_GROWTH * len, &norm, &ms, &word, &max_sym);
    return n ? n + 3 * len : 0;
}

XLARUN_API xlarun_status xlarun_tokenizer_encode(const xlarun_tokenizer *t, const char *text,
                                                 size_t len, unsigned flags, int32_t *ids,
                                                 size_t cap, size_t *n_ids, void *scratch,
                                                 size_t scratch_bytes, xlarun_error *err) {
    unsigned char stack[XLARUN_TOKENIZER_STACK_BYTES];
    const unsigned char *s = XLARUN__PUN(const unsigned char *, text);
    unsigned char *mem;
    size_t need, bad, i, from = 0, start = 0, ms, me, resume, fixed, norm, msb, word;
    xlarun__enc e;
    const xlarun__added *a;
    memset(&e, 0, sizeof e);
    if (n_ids) *n_ids = 0;
    if (!t || t->magic != XLARUN__TOK_MAGIC || (!text && len) || (!ids && cap) || !n_ids)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tokenizer_encode: NULL or closed argument");
    bad = xlarun__utf8_check(s, len);
    if (bad < len && !(flags & XLARUN_ENCODE_REPLACE_INVALID))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "text: invalid UTF-8 at byte offset %lu (byte 0x%02X); "
                            "XLARUN_ENCODE_REPLACE_INVALID replaces it by U+FFFD", XLARUN__CAST(unsigned long, bad), s[bad]);
    fixed = len;
    if (bad < len)   /* the length after replacing each maximal invalid subpart by U+FFFD */
        for (i = bad, fixed = bad; i < len;) {
            size_t l = s[i] < 0x80 ? 1 : xlarun__utf8_len(s + i, len - i);
            if (l) { fixed += l; i += l; } else { fixed += 3; i += xlarun__utf8_bad_len(s + i, len - i); }
        }
    e.nfc = t->nfc && (bad < len || !xlarun__nfc_quick(s, len));   /* U+FFFD is past U+02FF too */
    need = xlarun__scratch_layout(t, fixed, e.nfc ? XLARUN__NFC_GROWTH * len : 0, &norm, &msb, &word, &e.max_sym);
    if (!need) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tokenizer_encode: a text of %lu bytes is too long",
                                   XLARUN__CAST(unsigned long, len));
    if (bad < len) need += fixed;
    if (!scratch) { scratch = stack; scratch_bytes = sizeof stack; }
    if (scratch_bytes < need)
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "xlarun_tokenizer_encode: a text of %lu bytes needs %lu bytes of scratch "
                            "(xlarun_tokenizer_scratch_bytes gives enough), %lu given%s", XLARUN__CAST(unsigned long, len),
                            XLARUN__CAST(unsigned long, need), XLARUN__CAST(unsigned long, scratch_bytes),
                            scratch == stack ? " (scratch NULL: the stack buffer)" : "");
    mem = XLARUN__CAST(unsigned char *, scratch);
    e.t = t;
    e.flags = flags;
    e.ids = ids;
    e.cap = cap;
    if (bad < len) {   /* replace each maximal invalid subpart by U+FFFD, as Python does */
        size_t m = 0;
        for (i = 0; i < len;) {
            size_t l = s[i] < 0x80 ? 1 : xlarun__utf8_len(s + i, len - i);
            if (l) { memcpy(mem + m, s + i, l); m += l; i += l; continue; }
            i += xlarun__utf8_bad_len(s + i, len - i);
            m += xlarun__tk_put_cp(mem + m, 0xFFFD);
        }
        s = mem;
        len = m;
        mem += m;
    }
    e.norm = mem;
    mem += norm;
    e.ms = mem;
    mem += msb;
    e.word = mem;
    mem += word;
    e.sym = XLARUN__PUN(int32_t *, mem + (4 - XLARUN__PUN(uintptr_t, mem) % 4) % 4);
    if (!(flags & XLARUN_ENCODE_NO_BOS))
        for (i = 0; i < t->n_prefix; i++) xlarun__tk_emit(&e, t->prefix[i]);
    e.at0 = 1;
    while (t->n_added_raw && (a = xlarun__added_next(&e, 0, s, 0, len, from, start, &ms, &me, &resume)) != NULL) {
        if (ms > start) xlarun__tk_segment(&e, s + start, ms - start);
        xlarun__tk_emit(&e, a->id);
        e.at0 = 0;
        start = me;
        from = resume;
    }
    if (start < len) xlarun__tk_segment(&e, s + start, len - start);
    if (!(flags & XLARUN_ENCODE_NO_BOS))
        for (i = 0; i < t->n_suffix; i++) xlarun__tk_emit(&e, t->suffix[i]);
    *n_ids = e.n;
    if (e.n > cap)
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "xlarun_tokenizer_encode: the text is %lu tokens, the output holds %lu",
                            XLARUN__CAST(unsigned long, e.n), XLARUN__CAST(unsigned long, cap));
    xlarun__ok(err);
    return XLARUN_OK;
}

/* ---- decoding ------------------------------------------------------------------------------- */

typedef struct xlarun__sink { unsigned char *o; size_t cap, n, bad; } xlarun__sink;

static void xlarun__sink_put(xlarun__sink *k, const void *p, size_t n) {
    if (k->o && n <= k->cap && k->n <= k->cap - n) memcpy(k->o + k->n, p, n);
    k->n += n;
}
static void xlarun__sink_fffd(xlarun__sink *k, size_t times) {
    static const unsigned char r[3] = {0xEF, 0xBF, 0xBD};
    k->bad += times;
    while (times--) xlarun__sink_put(k, r, 3);
}

/* text after the decoder's Strip: the first dec_strip characters equal to the strip character
   of the whole text are dropped (d->strip_left counts down) */
static void xlarun__sink_text(xlarun_detok *d, xlarun__sink *k, const unsigned char *p, size_t n) {
    while (n && d->strip_left > 0) {
        if (p[0] != d->tok->dec_strip_char) { d->strip_left = 0; break; }
        d->strip_left--;
        p++;
        n--;
    }
    if (n) d->strip_left = 0;
    xlarun__sink_put(k, p, n);
}

/* a complete character of a <0xHH> run: the decoder's Metaspace, where it comes after
   ByteFallback, turns its replacement character into a space, or drops it in the first token */
static void xlarun__sink_char(xlarun_detok *d, xlarun__sink *k, const unsigned char *p, size_t n) {
    const xlarun_tokenizer *t = d->tok;
    if (t->dec_ms_bytes && n == strlen(t->dec_from) && !memcmp(p, t->dec_from, n)) {
        if (!(t->dec_ms == 2 && d->first)) xlarun__sink_text(d, k, XLARUN__PUN(const unsigned char *, " "), 1);
        return;
    }
    if (n == 1) { xlarun__sink_text(d, k, p, 1); return; }
    d->strip_left = 0;
    xlarun__sink_put(k, p, n);
}

/* incremental UTF-8 validation: a character is emitted once complete; a byte that cannot continue
   the held ones ends them as U+FFFD: one per maximal subpart (String::from_utf8_lossy, the
   ByteLevel decoder) or one per byte (per_byte: the ByteFallback decoder) */
static void xlarun__utf8_push(xlarun_detok *d, xlarun__sink *k, unsigned b, int per_byte) {
    for (;;) {
        if (!d->n_held) {
            if (b < 0x80) { unsigned char c = XLARUN__CAST(unsigned char, b); xlarun__sink_char(d, k, &c, 1); }
            else if (b >= 0xC2 && b <= 0xF4) d->held[d->n_held++] = XLARUN__CAST(unsigned char, b);
            else { d->strip_left = 0; xlarun__sink_fffd(k, 1); }
            return;
        } else {
            unsigned c0 = d->held[0], lo = 0x80, hi = 0xBF, need = c0 < 0xE0 ? 2u : c0 < 0xF0 ? 3u : 4u;
            if (d->n_held == 1) {
                if (c0 == 0xE0) lo = 0xA0;
                if (c0 == 0xED) hi = 0x9F;
                if (c0 == 0xF0) lo = 0x90;
                if (c0 == 0xF4) hi = 0x8F;
            }
            if (b >= lo && b <= hi) {
                d->held[d->n_held++] = XLARUN__CAST(unsigned char, b);
                if (d->n_held == need) {
                    xlarun__sink_char(d, k, d->held, need);
                    d->n_held = 0;
                }
                return;
            }
            d->strip_left = 0;
            xlarun__sink_fffd(k, per_byte ? d->n_held : 1);
            d->n_held = 0;
        }
    }
}
static void xlarun__utf8_end(xlarun_detok *d, xlarun__sink *k, int per_byte) {
    if (d->n_held) {
        d->strip_left = 0;
        xlarun__sink_fffd(k, per_byte ? d->n_held : 1);
    }
    d->n_held = 0;
}

/* the byte of a <0xHH> token, as the ByteFallback decoder reads it (u8::from_str_radix) */
static int xlarun__byte_token(const char *p, size_t n) {
    unsigned v = 0, i;
    if (n != 6 || memcmp(p, "<0x", 3) || p[5] != '>') return -1;
    for (i = 3; i < 5; i++) {
        char c = p[i];
        if (i == 3 && c == '+') continue;
        v <<= 4;
        if (c >= '0' && c <= '9') v |= XLARUN__CAST(unsigned, c - '0');
        else if (c >= 'a' && c <= 'f') v |= XLARUN__CAST(unsigned, c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= XLARUN__CAST(unsigned, c - 'A' + 10);
        else return -1;
    }
    return XLARUN__CAST(int, v);
}

/* one token through the decoder (everything but ByteFallback's look at the whole run) */
static void xlarun__decode_token(xlarun_detok *d, xlarun__sink *k, int32_t id) {
    const xlarun_tokenizer *t = d->tok;
    const unsigned char *p = XLARUN__PUN(const unsigned char *, t->pieces + t->off[id]);
    size_t n = xlarun__piece_len(t, id), i, l;
    if (!t->flags[id]) return;   /* a hole in the ids: tokenizers skips it */
    if (t->dec == XLARUN__DEC_BYTELEVEL) {
        if (t->flags[id] & XLARUN__TF_BL_RAW)
            for (i = 0; i < n; i++) xlarun__utf8_push(d, k, p[i], 0);
        else
            for (i = 0; i < n; i += l) xlarun__utf8_push(d, k, XLARUN__CAST(unsigned, xlarun__bl_byte(xlarun__cp_at(p, i, &l))), 0);
        return;
    }
    if (t->dec == XLARUN__DEC_NONE) {   /* no decoder: the tokens joined by spaces */
        if (d->started) xlarun__sink_put(k, " ", 1);
        d->started = 1;
        xlarun__sink_put(k, p, n);
        return;
    }
    if (t->dec_byte_fallback && (t->flags[id] & XLARUN__TF_BYTE)) {
        d->in_run = 1;
        xlarun__utf8_push(d, k, XLARUN__CAST(unsigned, xlarun__byte_token(XLARUN__PUN(const char *, p), n)), 1);
        return;
    }
    xlarun__utf8_end(d, k, 1);
    if (d->in_run) d->first = d->in_run = 0;   /* the run was a token of its own */
    if (t->dec_from) {   /* Replace or Metaspace; Metaspace drops its character in the first token */
        size_t fl = strlen(t->dec_from), tl = t->dec_ms == 2 && d->first ? 0 : strlen(t->dec_to), s = 0;
        for (i = 0; i + fl <= n;) {
            if (!memcmp(p + i, t->dec_from, fl)) {
                xlarun__sink_text(d, k, p + s, i - s);
                xlarun__sink_text(d, k, XLARUN__PUN(const unsigned char *, t->dec_to), tl);
                i += fl;
                s = i;
            } else i++;
        }
        xlarun__sink_text(d, k, p + s, n - s);
    } else xlarun__sink_text(d, k, p, n);
    d->first = 0;
}

XLARUN_API size_t xlarun_tokenizer_max_piece(const xlarun_tokenizer *t) {
    return t && t->magic == XLARUN__TOK_MAGIC ? t->max_piece : 0;
}

XLARUN_API void xlarun_detok_init(xlarun_detok *d, const xlarun_tokenizer *t, unsigned flags) {
    if (!d) return;
    memset(d, 0, sizeof *d);
    d->tok = t && t->magic == XLARUN__TOK_MAGIC ? t : NULL;
    d->flags = flags;
    d->strip_left = d->tok ? d->tok->dec_strip : 0;
    d->first = 1;
}

static int xlarun__skip_id(const xlarun_tokenizer *t, unsigned flags, int32_t id) {
    return (flags & XLARUN_DECODE_SKIP_SPECIAL) && (t->flags[id] & XLARUN__TF_SPECIAL);
}

XLARUN_API xlarun_status xlarun_detok_push(xlarun_detok *d, int32_t id, char *out, size_t cap,
                                           size_t *len, xlarun_error *err) {
    xlarun_detok save;
    xlarun__sink k;
    if (len) *len = 0;
    if (!d || !d->tok || d->tok->magic != XLARUN__TOK_MAGIC || !out || !len)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_detok_push: NULL argument or uninitialised state");
    if (id < 0 || XLARUN__CAST(uint32_t, id) >= d->tok->n_ids)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_detok_push: token id %ld is outside the vocabulary (0..%lu)",
                            XLARUN__CAST(long, id), XLARUN__CAST(unsigned long, d->tok->n_ids - 1));
    save = *d;
    k.o = XLARUN__PUN(unsigned char *, out);
    k.cap = cap ? cap - 1 : 0;
    k.n = 0;
    k.bad = 0;
    if (!xlarun__skip_id(d->tok, d->flags, id)) xlarun__decode_token(d, &k, id);
    if (k.n > k.cap) {
        *d = save;
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "xlarun_detok_push: the piece needs %lu bytes and a NUL, %lu given "
                            "(xlarun_tokenizer_max_piece is always enough)", XLARUN__CAST(unsigned long, k.n),
                            XLARUN__CAST(unsigned long, cap));
    }
    out[k.n] = 0;
    *len = k.n;
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API size_t xlarun_detok_flush(xlarun_detok *d, char *out, size_t cap) {
    xlarun__sink k;
    if (!d || !d->tok || !out || cap < 10) return 0;
    k.o = XLARUN__PUN(unsigned char *, out);
    k.cap = cap - 1;
    k.n = 0;
    k.bad = 0;
    xlarun__utf8_end(d, &k, d->tok->dec != XLARUN__DEC_BYTELEVEL);
    out[k.n] = 0;
    return k.n;
}

XLARUN_API xlarun_status xlarun_tokenizer_decode(const xlarun_tokenizer *t, const int32_t *ids,
                                                 size_t n, unsigned flags, char *out, size_t cap,
                                                 size_t *len, xlarun_error *err) {
    xlarun_detok d;
    xlarun__sink k;
    size_t i;
    if (len) *len = 0;
    if (!t || t->magic != XLARUN__TOK_MAGIC || (!ids && n) || !len)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tokenizer_decode: NULL or closed argument");
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || XLARUN__CAST(uint32_t, ids[i]) >= t->n_ids)
            return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tokenizer_decode: ids[%lu] = %ld is outside the vocabulary (0..%lu)",
                                XLARUN__CAST(unsigned long, i), XLARUN__CAST(long, ids[i]),
                                XLARUN__CAST(unsigned long, t->n_ids - 1));
    xlarun_detok_init(&d, t, flags);
    k.o = XLARUN__PUN(unsigned char *, out);
    k.cap = out && cap ? cap - 1 : 0;
    k.n = 0;
    k.bad = 0;
    for (i = 0; i < n; i++) {
        size_t j, m, b;
        if (xlarun__skip_id(t, flags, ids[i])) continue;
        if (!(t->dec == XLARUN__DEC_SP && t->dec_byte_fallback && (t->flags[ids[i]] & XLARUN__TF_BYTE))) {
            xlarun__decode_token(&d, &k, ids[i]);
            continue;
        }
        /* ByteFallback: a run of <0xHH> tokens is its text if it is valid UTF-8 as a whole, else
           one U+FFFD per byte; skipped special tokens do not end a run */
        {
            xlarun_detok v;
            xlarun__sink none;
            memset(&v, 0, sizeof v);
            v.tok = t;
            none.o = NULL; none.cap = 0; none.n = 0; none.bad = 0;
            for (j = i, m = 0; j < n; j++) {   /* validate: any U+FFFD written means invalid */
                if (xlarun__skip_id(t, flags, ids[j])) continue;
                if (!(t->flags[ids[j]] & XLARUN__TF_BYTE)) break;
                xlarun__utf8_push(&v, &none, XLARUN__CAST(unsigned, xlarun__byte_token(t->pieces + t->off[ids[j]], 6)), 1);
                m++;
            }
            xlarun__utf8_end(&v, &none, 1);
            b = none.bad;
            d.in_run = 1;
            for (j = i; j < n; j++) {
                if (xlarun__skip_id(t, flags, ids[j])) continue;
                if (!(t->flags[ids[j]] & XLARUN__TF_BYTE)) break;
                if (!b) xlarun__utf8_push(&d, &k, XLARUN__CAST(unsigned, xlarun__byte_token(t->pieces + t->off[ids[j]], 6)), 1);
            }
            if (b) { d.strip_left = 0; xlarun__sink_fffd(&k, m); }
        }
        i = j - 1;
    }
    xlarun__utf8_end(&d, &k, t->dec != XLARUN__DEC_BYTELEVEL);
    *len = k.n;
    if (!out) { xlarun__ok(err); return XLARUN_OK; }
    if (k.n + 1 > cap)
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "xlarun_tokenizer_decode: the text is %lu bytes and a NUL, the buffer holds %lu",
                            XLARUN__CAST(unsigned long, k.n), XLARUN__CAST(unsigned long, cap));
    out[k.n] = 0;
    xlarun__ok(err);
    return XLARUN_OK;
}

/* ---- loading -------------------------------------------------------------------------------- */

/* the Split regexes xlarun runs (xlarun__split_llama3): Llama 3's, and Qwen2's with one digit per piece */
#define XLARUN__SPLIT_PATTERN(digits) "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}" digits \
                                      "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define XLARUN__LLAMA3_PATTERN XLARUN__SPLIT_PATTERN("{1,3}")
#define XLARUN__QWEN2_PATTERN XLARUN__SPLIT_PATTERN("")
/* and o200k's (xlarun__split_o200k), and Tekken's without the contractions and with one digit */
#define XLARUN__O200K_UP "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]"
#define XLARUN__O200K_LO "[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]"
#define XLARUN__O200K_PATTERN(contr, digits) XLARUN__O200K_UP "*" XLARUN__O200K_LO "+" contr "|" XLARUN__O200K_UP "+" \
                                             XLARUN__O200K_LO "*" contr "|\\p{N}" digits \
                                             "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define XLARUN__O200K XLARUN__O200K_PATTERN("(?i:'s|'t|'re|'ve|'m|'ll|'d)?", "{1,3}")
#define XLARUN__TEKKEN XLARUN__O200K_PATTERN("", "")

/* xlarun_tokenizer_open builds twice, measuring and then in one block: the measuring build
   leaves its text and tokenizer here, and the second build, given the same bytes, copies the
   vocabulary hash and the merge table instead of recomputing them (most of the time of a large
   tokenizer.json goes to the merges' lookups) */
typedef struct xlarun__tok_reuse {
    const char *text;
    size_t len;
    const xlarun_tokenizer *t;
    size_t rv[6], mv[10];           /* the root's and model's members (offsets into the text) */
    size_t n_merges;
} xlarun__tok_reuse;

typedef struct xlarun__tload {
    xlarun__arena *a;
    xlarun_tokenizer *t;
    xlarun__json j;
    const char *file;               /* "DIR/tokenizer.json", for messages */
    size_t *pos;                    /* JSON offset of each id's text (temporary) */
    unsigned char *src;             /* 1 model.vocab, 2 added_tokens, 4 special (temporary) */
    unsigned char *flags;           /* the tokenizer's flags, writable while loading */
    size_t vocab, merges;           /* model.vocab and model.merges */
    const xlarun_tokenizer *same;   /* built from the same bytes already: its tables are copied */
    size_t *n_merges;               /* the measuring build's count, or NULL */
} xlarun__tload;


static int xlarun__tk_str(const xlarun__json *j, size_t v) { return v != XLARUN__NONE && j->s[v] == '"'; }
static int xlarun__tk_is(const xlarun__json *j, size_t v, const char *lit) {
    return xlarun__tk_str(j, v) && xlarun__json_eq(j, v, lit);
}
/* the "type" of a JSON object into buf ("" if none) */
static void xlarun__tk_type(const xlarun__json *j, size_t obj, char *buf, size_t cap) {
    size_t v = obj != XLARUN__NONE && j->s[obj] == '{' ? xlarun__json_get(j, obj, "type") : XLARUN__NONE;
    buf[0] = 0;
    if (xlarun__tk_str(j, v) && xlarun__json_str(j, v, buf, cap) == XLARUN__NONE) strcpy(buf, "?");
}
/* a bool value: def when absent or null, -1 when not a bool */
static int xlarun__tk_bool_v(const xlarun__json *j, size_t v, int def) {
    if (xlarun__json_is_null(j, v)) return def;
    if (j->s[v] == 't') return 1;
    if (j->s[v] == 'f') return 0;
    return -1;
}
/* a bool member: def when absent or null, -1 when not a bool */
static int xlarun__tk_bool(const xlarun__json *j, size_t obj, const char *key, int def) {
    return xlarun__tk_bool_v(j, xlarun__json_get(j, obj, key), def);
}
/* a JSON string copied into the lasting part of the arena */
static xlarun_status xlarun__tk_dup(xlarun__tload *L, size_t v, const char **out, size_t *len, xlarun_error *err) {
    size_t n = xlarun__json_str(&L->j, v, NULL, 0);
    char *p = XLARUN__CAST(char *, xlarun__alloc_ex(L->a, n + 1, 0, 0));
    if (!p) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
    xlarun__json_str(&L->j, v, p, n + 1);
    *out = p;
    if (len) *len = n;
    return XLARUN_OK;
}
static xlarun_status xlarun__tk_bad(xlarun__tload *L, xlarun_status st, const char *what, size_t v,
                                    const char *expected, xlarun_error *err) {
    char tok[64];
    if (v == XLARUN__NONE) strcpy(tok, "nothing");
    else xlarun__token(&L->j, v, tok, sizeof tok);
    return xlarun__fail(err, st, "%s: %s: expected %s, found %s", L->file, what, expected, tok);
}

/* the root's members (rkeys) and, read on the way past it, the model's (mkeys): one walk over
   the text where looking each object up would walk the model twice */
static void xlarun__tk_members(const xlarun__json *j, size_t root, const char *const *rkeys, size_t *rv,
                               const char *const *mkeys, size_t *mv) {
    size_t i = xlarun__json_ws(j->s, j->n, root + 1), q, v, end;
    for (q = 0; q < 6; q++) rv[q] = XLARUN__NONE;
    for (q = 0; q < 10; q++) mv[q] = XLARUN__NONE;
    while (j->s[i] == '"') {   /* root is an object of a validated document */
        size_t k = i;
        int model = 0;
        v = xlarun__json_ws(j->s, j->n, xlarun__json_ws(j->s, j->n, xlarun__json_skip(j, k)) + 1);
        for (q = 0; q < 6; q++)
            if (xlarun__json_eq(j, k, rkeys[q])) { rv[q] = v; model = q == 0; }
        end = model && j->s[v] == '{' ? xlarun__json_get_n(j, v, mkeys, 10, mv) : xlarun__json_skip(j, v);
        i = xlarun__json_ws(j->s, j->n, end);
        if (j->s[i] == ',') i = xlarun__json_ws(j->s, j->n, i + 1);
    }
}

/* xlarun__tk_vocab when the same bytes were built already: the tables copied, the id sources
   (model.vocab, added_tokens) read back from the flags, whose TF_VOCAB and TF_ADDED only it sets */
static xlarun_status xlarun__tk_vocab_copy(xlarun__tload *L, xlarun_error *err) {
    const xlarun_tokenizer *p = L->same;
    xlarun_tokenizer *t = L->t;
    uint32_t id, cap = p->vmask + 1;
    char *pieces;
    uint32_t *off, *vh;
    unsigned char *flags;
    int32_t *cid;
    t->n_vocab = p->n_vocab;
    t->n_ids = p->n_ids;
    t->max_token_len = p->max_token_len;
    L->src = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(L->a, t->n_ids, 1, 0));
    off = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(L->a, sizeof(uint32_t) * (t->n_ids + XLARUN__CAST(size_t, 1)), 0, 0));
    pieces = XLARUN__CAST(char *, xlarun__alloc_ex(L->a, p->off[p->n_ids], 0, 0));
    flags = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(L->a, t->n_ids, 0, 0));
    vh = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(L->a, sizeof(uint32_t) * cap, 0, 0));
    cid = XLARUN__CAST(int32_t *, xlarun__alloc_ex(L->a, sizeof(int32_t) * 0x800, 0, 0));
    if (!L->src || !off || !pieces || !flags || !vh || !cid) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
    for (id = 0; id < t->n_ids; id++) {
        L->src[id] = XLARUN__CAST(unsigned char, (p->flags[id] & XLARUN__TF_VOCAB ? 1 : 0) | (p->flags[id] & XLARUN__TF_ADDED ? 2 : 0));
        flags[id] = XLARUN__CAST(unsigned char, p->flags[id] & (XLARUN__TF_VOCAB | XLARUN__TF_ADDED));
    }
    memcpy(off, p->off, sizeof(uint32_t) * (t->n_ids + XLARUN__CAST(size_t, 1)));
    memcpy(pieces, p->pieces, p->off[p->n_ids]);
    memcpy(vh, p->vhash, sizeof(uint32_t) * cap);
    memcpy(cid, p->char_id, sizeof(int32_t) * 0x800);
    t->pieces = pieces;
    t->off = off;
    t->flags = flags;
    L->flags = flags;
    t->vhash = vh;
    t->vmask = cap - 1;
    t->char_id = cid;
    return XLARUN_OK;
}

/* the strings of model.vocab and added_tokens, in id order */
static xlarun_status xlarun__tk_vocab(xlarun__tload *L, size_t added, xlarun_error *err) {
    xlarun_tokenizer *t = L->t;
    xlarun__json *j = &L->j;
    size_t vocab = L->vocab, it, k, v, total = 0;
    uint64_t x, max_id = 0;
    uint32_t id, cap;
    int any = 0;
    char *pieces;
    uint32_t *off, *vh;
    unsigned char *flags;
    int32_t *cid;
    if (L->same) return xlarun__tk_vocab_copy(L, err);
    if (vocab == XLARUN__NONE || j->s[vocab] != '{')
        return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "model.vocab", vocab, "an object of token: id", err);
    it = vocab;
    while (xlarun__json_next(j, &it, &k, &v)) {
        if (!xlarun__json_uint(j, v, XLARUN_MAX_VOCAB - 1, &x)) {
            char name[64], val[64];
            xlarun__token(j, k, name, sizeof name);
            xlarun__token(j, v, val, sizeof val);
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: model.vocab: token %s has id %s; expected an integer 0..16777215",
                                L->file, name, val);
        }
        if (x > max_id) max_id = x;
        any = 1;
        t->n_vocab++;
    }
    if (added != XLARUN__NONE) {
        it = added;
        while (xlarun__json_next(j, &it, NULL, &v)) {
            size_t iv = xlarun__json_get(j, v, "id"), cv = xlarun__json_get(j, v, "content");
            if (j->s[v] != '{' || !xlarun__json_uint(j, iv == XLARUN__NONE ? v : iv, XLARUN_MAX_VOCAB - 1, &x) || iv == XLARUN__NONE)
                return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "added_tokens", j->s[v] == '{' ? iv : v, "an object with an integer id 0..16777215", err);
            if (!xlarun__tk_str(j, cv))
                return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "added_tokens: 'content'", cv, "a string", err);
            if (x > max_id) max_id = x;
            any = 1;
        }
    }
    if (!any) return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: model.vocab is empty", L->file);
    t->n_ids = XLARUN__CAST(uint32_t, max_id + 1);
    L->pos = XLARUN__CAST(size_t *, xlarun__alloc_ex(L->a, sizeof(size_t) * t->n_ids, 1, 0));
    L->src = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(L->a, t->n_ids, 1, 0));
    if (!L->pos || !L->src) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
    memset(L->src, 0, t->n_ids);
    it = vocab;
    while (xlarun__json_next(j, &it, &k, &v)) {
        xlarun__json_uint(j, v, XLARUN_MAX_VOCAB, &x);
        id = XLARUN__CAST(uint32_t, x);
        if (L->src[id]) {
            char a[64], b[64];
            xlarun__token(j, L->pos[id], a, sizeof a);
            xlarun__token(j, k, b, sizeof b);
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: model.vocab: duplicate id %u, given to both %s and %s",
                                L->file, id, a, b);
        }
        L->src[id] = 1;
        L->pos[id] = k;
    }
    if (added != XLARUN__NONE) {
        it = added;
        while (xlarun__json_next(j, &it, NULL, &v)) {
            size_t cv = xlarun__json_get(j, v, "content");
            xlarun__json_uint(j, xlarun__json_get(j, v, "id"), XLARUN_MAX_VOCAB, &x);
            id = XLARUN__CAST(uint32_t, x);
            if (L->src[id]) {   /* in model.vocab too: it must be the same token */
                char a[64], b[64];
                size_t la = xlarun__json_str(j, L->pos[id], NULL, 0), lb = xlarun__json_str(j, cv, NULL, 0);
                size_t mark = L->a->high;
                char *ba = XLARUN__CAST(char *, xlarun__alloc_ex(L->a, la + lb + 2, 1, 0));
                int same = la == lb;
                if (!ba) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
                if (same) {
                    xlarun__json_str(j, L->pos[id], ba, la + 1);
                    xlarun__json_str(j, cv, ba + la + 1, lb + 1);
                    same = !memcmp(ba, ba + la + 1, la);
                }
                L->a->high = mark;
                if (L->src[id] & 2 || !same) {
                    xlarun__token(j, L->pos[id], a, sizeof a);
                    xlarun__token(j, cv, b, sizeof b);
                    return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: added_tokens: duplicate id %u, given to both %s and %s",
                                        L->file, id, a, b);
                }
            }
            L->src[id] |= 2;
            L->pos[id] = cv;
        }
    }
    for (id = 0; id < t->n_ids; id++) {
        size_t n = L->src[id] ? xlarun__json_str(j, L->pos[id], NULL, 0) : 0;
        if (n > t->max_token_len) t->max_token_len = n;
        total += n + 1;
    }
    if (total > UINT32_MAX) return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: the tokens are over 4 GiB", L->file);
    off = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(L->a, sizeof(uint32_t) * (t->n_ids + XLARUN__CAST(size_t, 1)), 0, 0));
    pieces = XLARUN__CAST(char *, xlarun__alloc_ex(L->a, total, 0, 0));
    flags = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(L->a, t->n_ids, 0, 0));
    for (cap = 16; cap < 2 * t->n_vocab; cap *= 2) {}
    vh = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(L->a, sizeof(uint32_t) * cap, 0, 0));
    cid = XLARUN__CAST(int32_t *, xlarun__alloc_ex(L->a, sizeof(int32_t) * 0x800, 0, 0));
    if (!off || !pieces || !flags || !vh || !cid) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
    total = 0;
    for (id = 0; id < t->n_ids; id++) {
        size_t n = 0;
        off[id] = XLARUN__CAST(uint32_t, total);
        if (L->src[id]) n = xlarun__json_str(j, L->pos[id], pieces + total, SIZE_MAX);
        pieces[total + n] = 0;
        total += n + 1;
        flags[id] = XLARUN__CAST(unsigned char, (L->src[id] & 1 ? XLARUN__TF_VOCAB : 0) | (L->src[id] & 2 ? XLARUN__TF_ADDED : 0));
    }
    off[t->n_ids] = XLARUN__CAST(uint32_t, total);
    t->pieces = pieces;
    t->off = off;
    t->flags = flags;
    L->flags = flags;
    memset(vh, 0, sizeof(uint32_t) * cap);
    t->vhash = vh;
    t->vmask = cap - 1;
    for (k = 0; k < 0x800; k++) cid[k] = -1;
    t->char_id = cid;
    for (id = 0; id < t->n_ids; id++) {
        const char *p = pieces + off[id];
        size_t n = xlarun__piece_len(t, XLARUN__CAST(int32_t, id)), l;
        uint32_t h;
        if (!(L->src[id] & 1)) continue;
        h = XLARUN__CAST(uint32_t, xlarun__tk_hash(p, n)) & t->vmask;
        for (;; h = (h + 1) & t->vmask) {
            uint32_t o = vh[h];
            if (!o) { vh[h] = id + 1; break; }
            if (xlarun__piece_len(t, XLARUN__CAST(int32_t, o - 1)) == n && !memcmp(pieces + off[o - 1], p, n))
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: model.vocab: duplicate token \"%.60s\" (ids %u and %u)",
                                    L->file, p, o - 1, id);
        }
        if (n && n == (p[0] & 0x80 ? xlarun__utf8_len(XLARUN__PUN(const unsigned char *, p), n) : 1)) {
            uint32_t cp = xlarun__cp_at(XLARUN__PUN(const unsigned char *, p), 0, &l);
            if (cp < 0x800) cid[cp] = XLARUN__CAST(int32_t, id);
        }
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__tk_merges(xlarun__tload *L, xlarun_error *err) {
    xlarun_tokenizer *t = L->t;
    xlarun__json *j = &L->j;
    size_t merges = L->merges, it, v, cap, count = 0, bufcap;
    int32_t rank = 0;
    char *buf;
    xlarun__merge *mh;
    if (merges == XLARUN__NONE || j->s[merges] != '[')
        return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "model.merges", merges, "a list of merges", err);
    it = merges;
    if (L->same) count = *L->n_merges;
    else
        while (xlarun__json_next(j, &it, NULL, &v)) count++;
    if (L->n_merges) *L->n_merges = count;
    if (count > INT32_MAX / 2) return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: model.merges: too many merges", L->file);
    for (cap = 16; cap < count + count / 3 + 1; cap *= 2) {}
    bufcap = 2 * t->max_token_len + 8;
    mh = XLARUN__CAST(xlarun__merge *, xlarun__alloc_ex(L->a, sizeof(xlarun__merge) * cap, 0, 0));
    buf = XLARUN__CAST(char *, xlarun__alloc_ex(L->a, 2 * bufcap, 1, 0));
    if (!mh || !buf) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
    t->mhash = mh;
    t->mmask = XLARUN__CAST(uint32_t, cap - 1);
    if (L->same) {
        memcpy(mh, L->same->mhash, sizeof(xlarun__merge) * cap);
        return XLARUN_OK;
    }
    memset(mh, 0xFF, sizeof(xlarun__merge) * cap);
    it = merges;
    count = 0;
    while (xlarun__json_next(j, &it, NULL, &v)) {
        char *a = buf, *b = NULL;
        size_t la = 0, lb = 0, e1, e2, n;
        int32_t ia, ib, in;
        uint32_t h;
        char tok[64];
        if (xlarun__tk_str(j, v)) {   /* legacy "a b" */
            n = xlarun__json_str(j, v, buf, bufcap);
            if (n != XLARUN__NONE && n >= 8 && !memcmp(buf, "#version", 8)) { count++; continue; }
            if (n != XLARUN__NONE) {
                char *sp = XLARUN__CAST(char *, memchr(buf, ' ', n));
                if (!sp || memchr(sp + 1, ' ', n - XLARUN__CAST(size_t, sp + 1 - buf))) {
                    xlarun__token(j, v, tok, sizeof tok);
                    return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: model.merges[%lu] is %s; expected two tokens separated by one space",
                                        L->file, XLARUN__CAST(unsigned long, count), tok);
                }
                la = XLARUN__CAST(size_t, sp - buf);
                b = sp + 1;
                lb = n - la - 1;
            }
        } else if (j->s[v] == '[') {  /* ["a", "b"] */
            size_t it2 = v;
            if (!xlarun__json_next(j, &it2, NULL, &e1) || !xlarun__json_next(j, &it2, NULL, &e2) ||
                xlarun__json_next(j, &it2, NULL, &n) || !xlarun__tk_str(j, e1) || !xlarun__tk_str(j, e2))
                return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "model.merges", v, "a pair of token strings", err);
            la = xlarun__json_str(j, e1, buf, bufcap);
            if (la != XLARUN__NONE) {
                b = buf + la + 1;
                lb = xlarun__json_str(j, e2, b, bufcap);
            }
            if (lb == XLARUN__NONE) b = NULL;
        } else return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "model.merges", v, "\"a b\" strings or [\"a\", \"b\"] pairs", err);
        ia = b ? xlarun__vocab_find(t, a, la) : -1;
        ib = b && ia >= 0 ? xlarun__vocab_find(t, b, lb) : -1;
        if (ia < 0 || ib < 0) {
            xlarun__token(j, v, tok, sizeof tok);
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: model.merges[%lu] %s names %s token that is not in model.vocab",
                                L->file, XLARUN__CAST(unsigned long, count), tok, ia < 0 ? "a first" : "a second");
        }
        memmove(buf + la, b, lb);
        in = xlarun__vocab_find(t, buf, la + lb);
        if (in < 0) {
            xlarun__token(j, v, tok, sizeof tok);
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: model.merges[%lu] %s makes \"%.*s\", which is not in model.vocab",
                                L->file, XLARUN__CAST(unsigned long, count), tok, XLARUN__CAST(int, la + lb > 60 ? 60 : la + lb), buf);
        }
        for (h = xlarun__pair_hash(ia, ib) & t->mmask;; h = (h + 1) & t->mmask)
            if (mh[h].a < 0 || (mh[h].a == ia && mh[h].b == ib)) break;
        mh[h].a = ia;   /* a repeated pair keeps the later rank, as tokenizers' HashMap */
        mh[h].b = ib;
        mh[h].rank = rank++;
        mh[h].id = in;
        count++;
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__tk_unsupported(xlarun__tload *L, const char *what, const char *type,
                                            const char *knows, xlarun_error *err) {
    return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: %s '%s' is not supported (xlarun knows %s)", L->file, what,
                        type, knows);
}

static xlarun_status xlarun__tk_normalizer(xlarun__tload *L, size_t v, xlarun_error *err) {
    xlarun_tokenizer *t = L->t;
    xlarun__json *j = &L->j;
    size_t list = XLARUN__NONE, it = 0, e;
    char type[48];
    int seq;
    static const char *const knows = "null, Prepend, Replace with a String pattern, a Sequence of them, and NFC alone";
    if (xlarun__json_is_null(j, v)) return XLARUN_OK;
    xlarun__tk_type(j, v, type, sizeof type);
    seq = !strcmp(type, "Sequence");
    if (seq) {
        list = xlarun__json_get(j, v, "normalizers");
        if (list == XLARUN__NONE || j->s[list] != '[')
            return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "normalizer.normalizers", list, "a list", err);
        it = list;
    }
    while (seq ? xlarun__json_next(j, &it, NULL, &e) : (it++ == 0 && (e = v, 1))) {
        xlarun__tk_type(j, e, type, sizeof type);
        if (t->nfc || (!strcmp(type, "NFC") && (t->prepend || t->rep_from)))
            return xlarun__tk_unsupported(L, "normalizer", "NFC in a Sequence with another step", knows, err);
        if (!strcmp(type, "NFC")) {
            t->nfc = 1;
        } else if (!strcmp(type, "Prepend") && !t->prepend) {
            size_t p = xlarun__json_get(j, e, "prepend");
            if (!xlarun__tk_str(j, p)) return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "normalizer Prepend.prepend", p, "a string", err);
            XLARUN__TRY(xlarun__tk_dup(L, p, &t->prepend, NULL, err));
            t->prepend_first = !t->rep_from;
            if (strlen(t->prepend) > 64)
                return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: normalizer Prepend: over 64 bytes", L->file);
        } else if (!strcmp(type, "Replace") && !t->rep_from) {
            size_t pat = xlarun__json_get(j, e, "pattern"), s = xlarun__json_get(j, pat, "String"), c = xlarun__json_get(j, e, "content");
            size_t n;
            if (!xlarun__tk_str(j, s) || !xlarun__tk_str(j, c) || !xlarun__json_str(j, s, NULL, 0))
                return xlarun__tk_unsupported(L, "normalizer", "Replace with a Regex or empty pattern", knows, err);
            XLARUN__TRY(xlarun__tk_dup(L, s, &t->rep_from, NULL, err));
            XLARUN__TRY(xlarun__tk_dup(L, c, &t->rep_to, &n, err));
            if (n > 16) return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: normalizer Replace: content over 16 bytes", L->file);
        } else return xlarun__tk_unsupported(L, "normalizer", type[0] ? type : "?", knows, err);
    }
    return XLARUN_OK;
}

/* a Metaspace pre_tokenizer or decoder, read as tokenizers does: "replacement" one character;
   "prepend_scheme" first, always or never (absent: always); the older "add_prefix_space" may
   only be true; "split" true or false (absent: true) */
static xlarun_status xlarun__tk_ms(xlarun__tload *L, size_t e, const char *what, const char **rep, int *prepend,
                                   int *split, xlarun_error *err) {
    xlarun__json *j = &L->j;
    size_t r = xlarun__json_get(j, e, "replacement"), ps = xlarun__json_get(j, e, "prepend_scheme"), n;
    char key[64];
    int aps = xlarun__tk_bool(j, e, "add_prefix_space", 1);
    snprintf(key, sizeof key, "%s Metaspace.replacement", what);
    if (!xlarun__tk_str(j, r)) return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, key, r, "a string of one character", err);
    XLARUN__TRY(xlarun__tk_dup(L, r, rep, &n, err));
    if (!n || !(*rep)[0] || xlarun__utf8_len(XLARUN__PUN(const unsigned char *, *rep), n) != n)
        return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, key, r, "a string of one character", err);
    snprintf(key, sizeof key, "%s Metaspace.add_prefix_space", what);
    if (aps != 1) return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, key, xlarun__json_get(j, e, "add_prefix_space"),
                                        "true (or absent; prepend_scheme says \"never\")", err);
    *prepend = XLARUN__MS_ALWAYS;
    if (!xlarun__json_is_null(j, ps)) {
        snprintf(key, sizeof key, "%s Metaspace.prepend_scheme", what);
        if (xlarun__tk_is(j, ps, "first")) *prepend = XLARUN__MS_FIRST;
        else if (xlarun__tk_is(j, ps, "never")) *prepend = XLARUN__MS_NEVER;
        else if (!xlarun__tk_is(j, ps, "always"))
            return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, key, ps, "\"first\", \"always\" or \"never\"", err);
    }
    *split = xlarun__tk_bool(j, e, "split", 1);
    snprintf(key, sizeof key, "%s Metaspace.split", what);
    if (*split < 0) return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, key, xlarun__json_get(j, e, "split"), "true or false", err);
    return XLARUN_OK;
}

static xlarun_status xlarun__tk_pretok(xlarun__tload *L, size_t v, xlarun_error *err) {
    xlarun_tokenizer *t = L->t;
    xlarun__json *j = &L->j;
    size_t it = 0, e;
    char type[48];
    int seq, split = 0, bl = 0, space = 0;
    static const char *const knows = "null, Metaspace, ByteLevel, Digits then ByteLevel, Split(Llama 3, Qwen2, o200k or Tekken pattern) then "
                                     "ByteLevel, and Split(\" \", MergedWithPrevious) alone";
    if (xlarun__json_is_null(j, v)) return XLARUN_OK;
    xlarun__tk_type(j, v, type, sizeof type);
    seq = !strcmp(type, "Sequence");
    if (seq) {
        size_t list = xlarun__json_get(j, v, "pretokenizers");
        if (list == XLARUN__NONE || j->s[list] != '[')
            return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "pre_tokenizer.pretokenizers", list, "a list", err);
        it = list;
    }
    while (seq ? xlarun__json_next(j, &it, NULL, &e) : (it++ == 0 && (e = v, 1))) {
        xlarun__tk_type(j, e, type, sizeof type);
        if (bl) return xlarun__tk_unsupported(L, "pre_tokenizer", "a step after ByteLevel", knows, err);
        if (t->ms_rep) return xlarun__tk_unsupported(L, "pre_tokenizer", "a step after Metaspace", knows, err);
        if (space) return xlarun__tk_unsupported(L, "pre_tokenizer", "a step after Split(\" \")", knows, err);
        if (!strcmp(type, "Metaspace")) {
            if (split || t->digits) return xlarun__tk_unsupported(L, "pre_tokenizer", "Metaspace after another step", knows, err);
            XLARUN__TRY(xlarun__tk_ms(L, e, "pre_tokenizer", &t->ms_rep, &t->ms_prepend, &t->ms_split, err));
            continue;
        }
        if (!strcmp(type, "Split") && xlarun__tk_is(j, xlarun__json_get(j, xlarun__json_get(j, e, "pattern"), "String"), " ")) {
            /* Gemma's: a no-op after its normalizer, which replaces every space; where a space is
               left, the split tokenizers makes */
            if (split || t->digits) return xlarun__tk_unsupported(L, "pre_tokenizer", "Split(\" \") after another step", knows, err);
            if (!xlarun__tk_is(j, xlarun__json_get(j, e, "behavior"), "MergedWithPrevious") || xlarun__tk_bool(j, e, "invert", 0) != 0)
                return xlarun__tk_unsupported(L, "pre_tokenizer Split(\" \")", "with this behavior or invert",
                                              "MergedWithPrevious, invert false", err);
            space = 1;
            continue;
        }
        if (!strcmp(type, "Split") && !split && !t->digits) {
            size_t pat = xlarun__json_get(j, e, "pattern"), r = xlarun__json_get(j, pat, "Regex");
            split = XLARUN__PRE_LLAMA3;
            if (xlarun__tk_is(j, r, XLARUN__LLAMA3_PATTERN)) t->split_digits = 3;
            else if (xlarun__tk_is(j, r, XLARUN__QWEN2_PATTERN)) t->split_digits = 1;
            else if (xlarun__tk_is(j, r, XLARUN__O200K)) { split = XLARUN__PRE_O200K; t->split_digits = 3; t->split_contr = 1; }
            else if (xlarun__tk_is(j, r, XLARUN__TEKKEN)) { split = XLARUN__PRE_O200K; t->split_digits = 1; }
            else return xlarun__tk_unsupported(L, "pre_tokenizer Split", "with this pattern",
                                                "the Llama 3, Qwen2, o200k and Tekken patterns, and the string \" \" as Gemma's", err);
            /* each of these patterns matches every character, so keeping the matches and removing
               what is between them (Removed, inverted, as some hub files write it) is Isolated */
            if (!(xlarun__tk_is(j, xlarun__json_get(j, e, "behavior"), "Isolated") && xlarun__tk_bool(j, e, "invert", 0) == 0) &&
                !(xlarun__tk_is(j, xlarun__json_get(j, e, "behavior"), "Removed") && xlarun__tk_bool(j, e, "invert", 0) == 1))
                return xlarun__tk_unsupported(L, "pre_tokenizer Split", "with this behavior or invert",
                                              "Isolated with invert false, or Removed with invert true", err);
        } else if (!strcmp(type, "Digits") && !split && !t->digits) {
            int ind = xlarun__tk_bool(j, e, "individual_digits", 0);
            if (ind < 0) return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "pre_tokenizer Digits.individual_digits", xlarun__json_get(j, e, "individual_digits"), "true or false", err);
            t->digits = ind ? 1 : 2;
        } else if (!strcmp(type, "ByteLevel")) {
            int aps = xlarun__tk_bool(j, e, "add_prefix_space", 1), re = xlarun__tk_bool(j, e, "use_regex", 1);
            if (aps != 0) return xlarun__tk_unsupported(L, "pre_tokenizer ByteLevel", "add_prefix_space true", "add_prefix_space false", err);
            if (re < 0) return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "pre_tokenizer ByteLevel.use_regex", xlarun__json_get(j, e, "use_regex"), "true or false", err);
            if (re && split) return xlarun__tk_unsupported(L, "pre_tokenizer", "Split then ByteLevel with use_regex true", knows, err);
            bl = 1;
            t->byte_level = 1;
            t->pre = re ? XLARUN__PRE_GPT2 : XLARUN__PRE_NONE;
        } else return xlarun__tk_unsupported(L, "pre_tokenizer", type[0] ? type : "?", knows, err);
    }
    if (split) t->pre = split;
    if (space) t->pre = XLARUN__PRE_SPACE;
    return XLARUN_OK;
}

static xlarun_status xlarun__tk_template(xlarun__tload *L, size_t v, xlarun_error *err) {
    xlarun_tokenizer *t = L->t;
    xlarun__json *j = &L->j;
    size_t single = xlarun__json_get(j, v, "single"), specials = xlarun__json_get(j, v, "special_tokens"), it, e;
    int seen_a = 0;
    if (single == XLARUN__NONE || j->s[single] != '[')
        return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "post_processor TemplateProcessing.single", single, "a list", err);
    it = single;
    while (xlarun__json_next(j, &it, NULL, &e)) {
        size_t st = xlarun__json_get(j, e, "SpecialToken"), sq = xlarun__json_get(j, e, "Sequence"), name, ids, it2, x;
        if (sq != XLARUN__NONE) { seen_a = 1; continue; }
        name = xlarun__json_get(j, st, "id");
        if (!xlarun__tk_str(j, name))
            return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "post_processor TemplateProcessing.single", e, "SpecialToken or Sequence items", err);
        ids = XLARUN__NONE;
        if (specials != XLARUN__NONE && j->s[specials] == '{') {
            size_t it3 = specials, k, sv;
            while (xlarun__json_next(j, &it3, &k, &sv))
                if (xlarun__json_skip(j, k) - k == xlarun__json_skip(j, name) - name &&
                    !memcmp(j->s + k, j->s + name, xlarun__json_skip(j, k) - k)) ids = xlarun__json_get(j, sv, "ids");
        }
        if (ids == XLARUN__NONE || j->s[ids] != '[')
            return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "post_processor TemplateProcessing: the ids of special token", name, "an entry in special_tokens", err);
        it2 = ids;
        while (xlarun__json_next(j, &it2, NULL, &x)) {
            uint64_t id;
            uint32_t *n = seen_a ? &t->n_suffix : &t->n_prefix;
            if (!xlarun__json_uint(j, x, UINT32_MAX, &id) || id >= t->n_ids)
                return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "post_processor TemplateProcessing: a special token id", x, "an id in the vocabulary", err);
            if (*n == XLARUN__MAX_TEMPLATE)
                return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: post_processor TemplateProcessing adds more than %d tokens", L->file, XLARUN__MAX_TEMPLATE);
            (seen_a ? t->suffix : t->prefix)[(*n)++] = XLARUN__CAST(int32_t, id);
        }
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__tk_post(xlarun__tload *L, size_t v, xlarun_error *err) {
    xlarun__json *j = &L->j;
    size_t it = 0, e;
    char type[48];
    int seq;
    if (xlarun__json_is_null(j, v)) return XLARUN_OK;
    xlarun__tk_type(j, v, type, sizeof type);
    seq = !strcmp(type, "Sequence");
    if (seq) {
        size_t list = xlarun__json_get(j, v, "processors");
        if (list == XLARUN__NONE || j->s[list] != '[')
            return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "post_processor.processors", list, "a list", err);
        it = list;
    }
    while (seq ? xlarun__json_next(j, &it, NULL, &e) : (it++ == 0 && (e = v, 1))) {
        xlarun__tk_type(j, e, type, sizeof type);
        if (!strcmp(type, "ByteLevel")) continue;   /* offsets only */
        if (!strcmp(type, "TemplateProcessing") && !L->t->n_prefix && !L->t->n_suffix) {
            XLARUN__TRY(xlarun__tk_template(L, e, err));
            continue;
        }
        return xlarun__tk_unsupported(L, "post_processor", type[0] ? type : "?", "null, ByteLevel, TemplateProcessing and a Sequence of them", err);
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__tk_decoder(xlarun__tload *L, size_t v, xlarun_error *err) {
    xlarun_tokenizer *t = L->t;
    xlarun__json *j = &L->j;
    size_t it = 0, e;
    char type[48];
    int stage = 0, seq;   /* stage: 0 Replace, 1 ByteFallback, 2 Fuse, 3 Strip, 4 done */
    static const char *const knows = "ByteLevel, Metaspace, Sequence[Replace, ByteFallback, Fuse, Strip] as Llama 2's, "
                                     "and Sequence[ByteFallback, Metaspace] as transformers v5 converts one";
    t->dec = XLARUN__DEC_NONE;
    if (xlarun__json_is_null(j, v)) return XLARUN_OK;
    xlarun__tk_type(j, v, type, sizeof type);
    if (!strcmp(type, "ByteLevel")) { t->dec = XLARUN__DEC_BYTELEVEL; return XLARUN_OK; }
    seq = !strcmp(type, "Sequence");
    if (!seq && strcmp(type, "Metaspace")) return xlarun__tk_unsupported(L, "decoder", type[0] ? type : "?", knows, err);
    if (seq) {   /* a lone Metaspace goes through the loop as a sequence of one */
        it = xlarun__json_get(j, v, "decoders");
        if (it == XLARUN__NONE || j->s[it] != '[')
            return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "decoder.decoders", it, "a list", err);
    }
    t->dec = XLARUN__DEC_SP;
    while (seq ? xlarun__json_next(j, &it, NULL, &e) : (it++ == 0 && (e = v, 1))) {
        xlarun__tk_type(j, e, type, sizeof type);
        if (!strcmp(type, "Replace") && stage == 0) {
            size_t pat = xlarun__json_get(j, e, "pattern"), s = xlarun__json_get(j, pat, "String"), c = xlarun__json_get(j, e, "content");
            size_t n;
            if (!xlarun__tk_str(j, s) || !xlarun__tk_str(j, c) || !xlarun__json_str(j, s, NULL, 0))
                return xlarun__tk_unsupported(L, "decoder", "Replace with a Regex or empty pattern", knows, err);
            XLARUN__TRY(xlarun__tk_dup(L, s, &t->dec_from, NULL, err));
            XLARUN__TRY(xlarun__tk_dup(L, c, &t->dec_to, &n, err));
            if (n > 16) return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: decoder Replace: content over 16 bytes", L->file);
            stage = 1;
        } else if (!strcmp(type, "Metaspace") && (stage == 0 || stage == 2) && !t->dec_from) {
            /* its character becomes a space (dropped in the first token); after ByteFallback it
               also applies to the characters that <0xHH> runs make */
            int prepend, split;
            XLARUN__TRY(xlarun__tk_ms(L, e, "decoder", &t->dec_from, &prepend, &split, err));
            t->dec_to = " ";
            t->dec_ms = prepend == XLARUN__MS_NEVER ? 1 : 2;
            t->dec_ms_bytes = stage == 2;
            if (stage == 0) stage = 1;
        } else if (!strcmp(type, "ByteFallback") && stage <= 1) {
            t->dec_byte_fallback = 1;
            stage = 2;
        } else if (!strcmp(type, "Fuse") && stage <= 2) {
            stage = 3;
        } else if (!strcmp(type, "Strip") && stage == 3) {
            size_t c = xlarun__json_get(j, e, "content");
            uint64_t start, stop;
            char ch[8];
            if (!xlarun__tk_str(j, c) || xlarun__json_str(j, c, ch, sizeof ch) != 1 ||
                !xlarun__json_uint(j, xlarun__json_get(j, e, "start"), 1000, &start) ||
                !xlarun__json_uint(j, xlarun__json_get(j, e, "stop"), 1000, &stop) || stop != 0)
                return xlarun__tk_unsupported(L, "decoder", "Strip other than of an ASCII character at the start", knows, err);
            t->dec_strip = XLARUN__CAST(int, start);
            t->dec_strip_char = XLARUN__CAST(unsigned char, ch[0]);
            stage = 4;
        } else if (!strcmp(type, "ByteLevel") && stage == 0 && !t->dec_from) {
            t->dec = XLARUN__DEC_BYTELEVEL;
            stage = 5;
        } else return xlarun__tk_unsupported(L, "decoder", type[0] ? type : "?", knows, err);
    }
    return XLARUN_OK;
}

/* added tokens in order of their text's bytes (a text before its extensions) */
static int xlarun__added_less(const xlarun__added *x, const xlarun__added *y) {
    uint32_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, n);
    if (c == 0 && x->len == y->len) /* the same text: a special token first, as tokenizers' pattern list */
        return (x->flags & XLARUN__AT_SPECIAL) && !(y->flags & XLARUN__AT_SPECIAL);
    return c < 0 || (c == 0 && x->len < y->len);
}
/* a stable merge sort of a[0, n) (tmp: n entries), so equal texts keep the file's order (special
   tokens first) */
static void xlarun__added_sort(xlarun__added *a, xlarun__added *tmp, size_t n) {
    size_t w, i, l, r, k, lend, rend;
    for (w = 1; w < n; w *= 2) {
        for (i = 0; i < n; i += 2 * w) {
            l = i;
            lend = r = i + w < n ? i + w : n;
            rend = i + 2 * w < n ? i + 2 * w : n;
            for (k = i; k < rend; k++) tmp[k] = r < rend && (l == lend || xlarun__added_less(&a[r], &a[l])) ? a[r++] : a[l++];
        }
        memcpy(a, tmp, sizeof *a * n);
    }
}

/* added_tokens: matching tables, non-normalized first, each set bucketed by first byte and in
   order of text (xlarun__added_longest) */
static xlarun_status xlarun__tk_added(xlarun__tload *L, size_t added, xlarun_error *err) {
    xlarun_tokenizer *t = L->t;
    xlarun__json *j = &L->j;
    size_t it, v, n = 0, k = 0, q;
    xlarun__added *tab, *tmp;
    uint32_t count[2][256], fill[2][256], s = 0;
    int c, nn;
    if (added == XLARUN__NONE) return XLARUN_OK;
    if (j->s[added] != '[') return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, "added_tokens", added, "a list", err);
    it = added;
    while (xlarun__json_next(j, &it, NULL, &v)) n++;
    tab = XLARUN__CAST(xlarun__added *, xlarun__alloc_ex(L->a, sizeof(xlarun__added) * (n ? n : 1), 0, 0));
    tmp = XLARUN__CAST(xlarun__added *, xlarun__alloc_ex(L->a, sizeof(xlarun__added) * (n ? n : 1), 1, 0));
    if (!tab || !tmp) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
    memset(count, 0, sizeof count);
    it = added;
    while (xlarun__json_next(j, &it, NULL, &v)) {
        static const char *const keys[5] = {"single_word", "lstrip", "rstrip", "normalized", "special"};
        static const int defs[5] = {0, 0, 0, 1, 0};
        int f[5], b;
        uint64_t id;
        xlarun__added x;
        xlarun__json_uint(j, xlarun__json_get(j, v, "id"), XLARUN_MAX_VOCAB, &id);
        for (b = 0; b < 5; b++) {
            f[b] = xlarun__tk_bool(j, v, keys[b], defs[b]);
            if (f[b] < 0) {
                char what[64];
                snprintf(what, sizeof what, "added_tokens: '%s'", keys[b]);
                return xlarun__tk_bad(L, XLARUN_ERR_FORMAT, what, xlarun__json_get(j, v, keys[b]), "true or false", err);
            }
        }
        memset(&x, 0, sizeof x);
        x.id = XLARUN__CAST(int32_t, id);
        x.flags = (f[0] ? XLARUN__AT_SINGLE : 0u) | (f[1] ? XLARUN__AT_LSTRIP : 0u) | (f[2] ? XLARUN__AT_RSTRIP : 0u) |
                  (f[3] ? XLARUN__AT_NORM : 0u) | (f[4] ? XLARUN__AT_SPECIAL : 0u);
        if (f[4]) L->src[x.id] |= 4;
        x.text = XLARUN__PUN(const unsigned char *, t->pieces + t->off[x.id]);
        x.len = XLARUN__CAST(uint32_t, xlarun__piece_len(t, x.id));
        if (f[3] && x.len && xlarun__norm_bound(t, x.len)) {   /* it matches its normalized content */
            size_t mark = L->a->high, m;
            unsigned char *o = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(L->a, xlarun__norm_bound(t, x.len) + 1, 0, 0));
            uint32_t *cps = t->nfc ? XLARUN__CAST(uint32_t *, xlarun__alloc_ex(L->a, sizeof(uint32_t) * 3 * x.len, 1, 0)) : NULL;
            if (!o || (t->nfc && !cps)) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
            m = xlarun__tk_normalize(t, x.text, x.len, o, cps);
            L->a->high = mark;
            x.text = o;
            x.len = XLARUN__CAST(uint32_t, m);
        }
        if (!x.len) continue;     /* tokenizers ignores empty added tokens */
        count[f[3] ? 1 : 0][x.text[0]]++;
        tmp[k++] = x;
    }
    for (nn = 0; nn < 2; nn++) {   /* buckets: the non-normalized set, then the normalized one */
        for (c = 0; c < 256; c++) {
            t->bucket[nn][c] = fill[nn][c] = s;
            s += count[nn][c];
        }
        t->bucket[nn][256] = s;
        if (nn == 0) t->n_added_raw = s;
    }
    t->n_added = s;
    for (q = 0; q < k; q++) tab[fill[tmp[q].flags & XLARUN__AT_NORM ? 1 : 0][tmp[q].text[0]]++] = tmp[q];
    for (nn = 0; nn < 2; nn++)
        xlarun__added_sort(tab + t->bucket[nn][0], tmp, t->bucket[nn][256] - t->bucket[nn][0]);
    t->added = tab;
    return XLARUN_OK;
}

/* an optional file: XLARUN_OK with *text NULL when it does not exist */
/* a file that may be absent: *text NULL when it cannot be opened, else its bytes (NUL-ended);
   path[4096] receives its path */
static xlarun_status xlarun__tk_read_optional(xlarun__arena *a, const xlarun_io *io, const char *dir,
                                              const char *name, char *path, char **text, size_t *len,
                                              xlarun_error *err) {
    xlarun__file probe;
    xlarun_error perr;
    *text = NULL;
    *len = 0;
    if (xlarun__file_open(&probe, io, dir, name, path, 4096, &perr) != XLARUN_OK) return XLARUN_OK;
    xlarun__file_close(&probe);
    return xlarun__read_small(a, io, dir, name, XLARUN_MAX_CONFIG_BYTES, text, len, err);
}

/* an optional JSON file, validated */
static xlarun_status xlarun__tk_optional(xlarun__arena *a, const xlarun_io *io, const char *dir, const char *name,
                                         char **text, size_t *len, xlarun_error *err) {
    char path[4096];
    XLARUN__TRY(xlarun__tk_read_optional(a, io, dir, name, path, text, len, err));
    return *text ? xlarun__json_validate(*text, *len, name, err) : XLARUN_OK;
}

/* a token's id by its text: added tokens first, as tokenizers' token_to_id; -1. The
   non-normalized ones are matched by their text, so found by it; normalized ones by content. */
static int32_t xlarun__token_find(const xlarun_tokenizer *t, const char *text, size_t len) {
    const unsigned char *u = XLARUN__PUN(const unsigned char *, text);
    const xlarun__added *x = len ? xlarun__added_longest(t, t->bucket[0][u[0]], t->bucket[0][u[0] + 1], u, len) : NULL;
    uint32_t i;
    if (x && x->len == len) return x->id;
    for (i = t->n_added_raw; i < t->n_added; i++) {
        int32_t id = t->added[i].id;
        if (xlarun__piece_len(t, id) == len && !memcmp(t->pieces + t->off[id], text, len)) return id;
    }
    return xlarun__vocab_find(t, text, len);
}

/* "<s>" or {"content": "<s>", ...} -> id, -1 when absent or unknown */
/* the special tokens transformers passes to chat templates (its special_tokens_map), in this order */
static const char *const xlarun__special_names[7] = {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token",
                                                     "cls_token", "mask_token"};

static int32_t xlarun__tk_named(const xlarun_tokenizer *t, const xlarun__json *j, size_t v) {
    char buf[256];
    size_t n;
    if (v != XLARUN__NONE && j->s[v] == '{') v = xlarun__json_get(j, v, "content");
    if (!xlarun__tk_str(j, v) || (n = xlarun__json_str(j, v, buf, sizeof buf)) == XLARUN__NONE) return -1;
    return xlarun__token_find(t, buf, n);
}

/* eos_token_id: an id or a list of ids, each in the vocabulary */
static xlarun_status xlarun__tk_eos(xlarun_tokenizer *t, const xlarun__json *j, size_t root, const char *file,
                                    xlarun_error *err) {
    size_t v = xlarun__json_get(j, root, "eos_token_id"), it, e;
    uint64_t x;
    if (xlarun__json_is_null(j, v)) return XLARUN_OK;
    it = v;
    while (j->s[v] == '[' ? xlarun__json_next(j, &it, NULL, &e) : (it == v && (e = v, it = XLARUN__NONE, 1))) {
        if (!xlarun__json_uint(j, e, UINT32_MAX, &x) || x >= t->n_ids)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: eos_token_id must be token ids below the vocabulary size %u",
                                file, t->n_ids);
        if (t->n_eos == XLARUN_MAX_EOS)
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: eos_token_id lists more than %d ids", file, XLARUN_MAX_EOS);
        t->eos[t->n_eos++] = XLARUN__CAST(int32_t, x);
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__tok_build(xlarun__arena *a, const char *dir, const xlarun_tokenizer_options *opt,
                                       xlarun__tok_reuse *reuse, xlarun_tokenizer **out, xlarun_error *err) {
    xlarun__tload L;
    xlarun_tokenizer *t;
    char *text, file[4200];
    size_t len, mark, root, model, v, rv[6], mv[10];
    uint32_t id;
    int b;
    char type[48];
    static const char *const rkeys[6] = {"model", "added_tokens", "normalizer", "pre_tokenizer", "post_processor", "decoder"};
    static const char *const mkeys[10] = {"byte_fallback", "fuse_unk", "ignore_merges", "dropout", "continuing_subword_prefix",
                                          "end_of_word_suffix", "type", "vocab", "merges", "unk_token"};
    memset(&L, 0, sizeof L);
    t = XLARUN__CAST(xlarun_tokenizer *, xlarun__alloc_ex(a, sizeof *t, 0, 0));
    if (!t) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
    memset(t, 0, sizeof *t);
    *out = t;
    L.a = a;
    L.t = t;
    snprintf(file, sizeof file, "%s%stokenizer.json", dir, (dir[0] && dir[strlen(dir) - 1] != '/') ? "/" : "");
    L.file = file;
    t->unk_id = -1;
    t->bos_id = -1;
    for (b = 0; b < 256; b++) t->byte_id[b] = -1;
    mark = a->high;
    XLARUN__TRY(xlarun__read_small(a, opt->io, dir, "tokenizer.json", XLARUN_MAX_TOKENIZER_BYTES, &text, &len, err));
    if (reuse && xlarun__measuring(a)) {   /* the text stays allocated until the measuring arena goes */
        reuse->text = text;
        reuse->len = len;
    } else if (reuse && reuse->t && reuse->len == len && !memcmp(reuse->text, text, len)) L.same = reuse->t;
    if (reuse) L.n_merges = &reuse->n_merges;
    if (!L.same) XLARUN__TRY(xlarun__json_validate(text, len, file, err));
    L.j.s = text;
    L.j.n = len;
    root = xlarun__json_ws(text, len, 0);
    if (text[root] != '{') return xlarun__tk_bad(&L, XLARUN_ERR_FORMAT, "the document", root, "an object", err);
    if (L.same) {
        memcpy(rv, reuse->rv, sizeof rv);
        memcpy(mv, reuse->mv, sizeof mv);
    } else xlarun__tk_members(&L.j, root, rkeys, rv, mkeys, mv);
    if (reuse) {
        memcpy(reuse->rv, rv, sizeof rv);
        memcpy(reuse->mv, mv, sizeof mv);
    }
    model = rv[0];
    if (model == XLARUN__NONE || text[model] != '{') return xlarun__tk_bad(&L, XLARUN_ERR_FORMAT, "model", model, "an object", err);
    L.vocab = mv[7];
    L.merges = mv[8];
    type[0] = 0;
    if (xlarun__tk_str(&L.j, mv[6]) && xlarun__json_str(&L.j, mv[6], type, sizeof type) == XLARUN__NONE) strcpy(type, "?");
    if (type[0] && strcmp(type, "BPE"))
        return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: model.type '%s' is not supported (xlarun runs BPE tokenizers)", file, type);
    v = mv[3];
    if (!xlarun__json_is_null(&L.j, v) && !(xlarun__json_is_number(&L.j, v) && xlarun__json_double(&L.j, v) == 0.0))
        return xlarun__tk_unsupported(&L, "model.dropout", "other than null", "null", err);
    v = mv[4];
    if (!xlarun__json_is_null(&L.j, v) && !xlarun__tk_is(&L.j, v, ""))
        return xlarun__tk_unsupported(&L, "model.continuing_subword_prefix", "other than null", "null", err);
    v = mv[5];
    if (!xlarun__json_is_null(&L.j, v) && !xlarun__tk_is(&L.j, v, ""))
        return xlarun__tk_unsupported(&L, "model.end_of_word_suffix", "other than null", "null", err);
    {
        static const char *const keys[3] = {"byte_fallback", "fuse_unk", "ignore_merges"};
        int *dst[3];
        int q;
        dst[0] = &t->byte_fallback; dst[1] = &t->fuse_unk; dst[2] = &t->ignore_merges;
        for (q = 0; q < 3; q++) {
            *dst[q] = xlarun__tk_bool_v(&L.j, mv[q], 0);
            if (*dst[q] < 0) {
                char what[48];
                snprintf(what, sizeof what, "model.%s", keys[q]);
                return xlarun__tk_bad(&L, XLARUN_ERR_FORMAT, what, mv[q], "true or false", err);
            }
        }
    }
    v = rv[1];
    if (xlarun__json_is_null(&L.j, v)) v = XLARUN__NONE;
    else if (text[v] != '[') return xlarun__tk_bad(&L, XLARUN_ERR_FORMAT, "added_tokens", v, "a list", err);
    XLARUN__TRY(xlarun__tk_vocab(&L, v, err));
    XLARUN__TRY(xlarun__tk_normalizer(&L, rv[2], err));
    XLARUN__TRY(xlarun__tk_added(&L, v, err));
    XLARUN__TRY(xlarun__tk_merges(&L, err));
    XLARUN__TRY(xlarun__tk_pretok(&L, rv[3], err));
    XLARUN__TRY(xlarun__tk_post(&L, rv[4], err));
    XLARUN__TRY(xlarun__tk_decoder(&L, rv[5], err));
    v = mv[9];
    if (!xlarun__json_is_null(&L.j, v)) {
        char buf[256];
        size_t n;
        if (!xlarun__tk_str(&L.j, v) || (n = xlarun__json_str(&L.j, v, buf, sizeof buf)) == XLARUN__NONE ||
            (t->unk_id = xlarun__vocab_find(t, buf, n)) < 0)
            return xlarun__tk_bad(&L, XLARUN_ERR_FORMAT, "model.unk_token", v, "a token of model.vocab", err);
    }
    if (t->byte_fallback)
        for (b = 0; b < 256; b++) {
            char name[8];
            snprintf(name, sizeof name, "<0x%02X>", b);
            t->byte_id[b] = xlarun__vocab_find(t, name, 6);
        }
    for (id = 0; id < t->n_ids; id++) {
        unsigned char *fl = L.flags;
        const unsigned char *p = XLARUN__PUN(const unsigned char *, t->pieces + t->off[id]);
        size_t n = xlarun__piece_len(t, XLARUN__CAST(int32_t, id)), i, l;
        if (!fl[id]) continue;
        if (L.src[id] & 4) fl[id] |= XLARUN__TF_SPECIAL;
        if (xlarun__byte_token(XLARUN__PUN(const char *, p), n) >= 0) fl[id] |= XLARUN__TF_BYTE;
        for (i = 0; i < n; i += l)
            if (xlarun__bl_byte(xlarun__cp_at(p, i, &l)) < 0) { fl[id] |= XLARUN__TF_BL_RAW; break; }
    }
    a->high = mark;

    /* tokenizer_config.json: BOS/EOS names and the chat template; generation_config.json and
       config.json: EOS ids */
    if (t->n_prefix) t->bos_id = t->prefix[0];
    XLARUN__TRY(xlarun__tk_optional(a, opt->io, dir, "generation_config.json", &text, &len, err));
    if (text) {
        L.j.s = text; L.j.n = len;
        XLARUN__TRY(xlarun__tk_eos(t, &L.j, xlarun__json_ws(text, len, 0), "generation_config.json", err));
        a->high = mark;
    }
    if (!t->n_eos) {
        XLARUN__TRY(xlarun__tk_optional(a, opt->io, dir, "config.json", &text, &len, err));
        if (text) {
            L.j.s = text; L.j.n = len;
            XLARUN__TRY(xlarun__tk_eos(t, &L.j, xlarun__json_ws(text, len, 0), "config.json", err));
            a->high = mark;
        }
    }
    { /* chat_template.jinja beside the tokenizer: transformers (4.47 on) reads it as Python's text
         mode does (CRLF and CR become LF) and lets it win over tokenizer_config.json's */
        char path[4096];
        XLARUN__TRY(xlarun__tk_read_optional(a, opt->io, dir, "chat_template.jinja", path, &text, &len, err));
        if (text) {
            char *p;
            size_t i, m = 0;
            if (xlarun__utf8_check(XLARUN__PUN(const unsigned char *, text), len) != len)
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: invalid UTF-8", path);
            for (i = 0; i < len; i++) {
                if (text[i] == '\r') {
                    text[m++] = '\n';
                    if (i + 1 < len && text[i + 1] == '\n') i++;
                } else text[m++] = text[i];
            }
            text[m] = 0;
            a->high = mark;   /* the text is still there: copy it down */
            p = XLARUN__CAST(char *, xlarun__alloc_ex(a, m + 1, 0, 0));
            if (!p) return xlarun__fail(err, XLARUN_ERR_MEMORY, "tokenizer memory too small");
            memmove(p, text, m + 1);
            t->chat_template = p;
        }
    }
    XLARUN__TRY(xlarun__tk_optional(a, opt->io, dir, "tokenizer_config.json", &text, &len, err));
    if (text) {
        size_t cfg = xlarun__json_ws(text, len, 0), ct;
        L.j.s = text; L.j.n = len;
        L.file = "tokenizer_config.json";
        if (t->bos_id < 0) t->bos_id = xlarun__tk_named(t, &L.j, xlarun__json_get(&L.j, cfg, "bos_token"));
        if (!t->n_eos) {
            int32_t e = xlarun__tk_named(t, &L.j, xlarun__json_get(&L.j, cfg, "eos_token"));
            if (e >= 0) t->eos[t->n_eos++] = e;
        }
        ct = xlarun__json_get(&L.j, cfg, "chat_template");
        if (ct != XLARUN__NONE && text[ct] == '[') {   /* named templates: "default", else the first */
            size_t it = ct, e, first = XLARUN__NONE;
            ct = XLARUN__NONE;
            while (xlarun__json_next(&L.j, &it, NULL, &e)) {
                size_t tv = xlarun__json_get(&L.j, e, "template");
                if (!xlarun__tk_str(&L.j, tv)) continue;
                if (first == XLARUN__NONE) first = tv;
                if (xlarun__tk_is(&L.j, xlarun__json_get(&L.j, e, "name"), "default")) ct = tv;
            }
            if (ct == XLARUN__NONE) ct = first;
        }
        if (!t->chat_template && xlarun__tk_str(&L.j, ct)) XLARUN__TRY(xlarun__tk_dup(&L, ct, &t->chat_template, NULL, err));
        { /* the special tokens' texts, as transformers hands them to chat templates */
            size_t k;
            for (k = 0; k < 7; k++) {
                size_t sv = xlarun__json_get(&L.j, cfg, xlarun__special_names[k]);
                if (sv != XLARUN__NONE && text[sv] == '{') sv = xlarun__json_get(&L.j, sv, "content"); /* an AddedToken */
                if (xlarun__tk_str(&L.j, sv)) XLARUN__TRY(xlarun__tk_dup(&L, sv, &t->special_texts[k], NULL, err));
            }
        }
        a->high = mark;
    }
    a->high = mark;
    {
        size_t tl = t->dec_to ? strlen(t->dec_to) : 0;
        t->max_piece = (t->max_token_len + 4) * (tl > 3 ? tl : 3) + 16;
    }
    t->magic = XLARUN__TOK_MAGIC;
    if (reuse && xlarun__measuring(a)) reuse->t = t;
    return XLARUN_OK;
}

/* ---- the tokenizer API ---------------------------------------------------------------------- */

static const xlarun_tokenizer_options *xlarun__tok_opts(const xlarun_tokenizer_options *opt) {
    static const xlarun_tokenizer_options defaults = {NULL, NULL};
    return opt ? opt : &defaults;
}

typedef struct xlarun__tok_args {
    const char *dir;
    const xlarun_tokenizer_options *opt;
    xlarun__tok_reuse *reuse;       /* xlarun_tokenizer_open's two builds; NULL */
} xlarun__tok_args;

static xlarun_status xlarun__tok_build_cb(xlarun__arena *a, const void *args, void **obj, xlarun_error *err) {
    const xlarun__tok_args *x = XLARUN__CAST(const xlarun__tok_args *, args);
    xlarun_tokenizer *o = NULL;
    xlarun_status st = xlarun__tok_build(a, x->dir, x->opt, x->reuse, &o, err);
    *obj = o;
    return st;
}
static void xlarun__tok_undo(void *t) { XLARUN__CAST(xlarun_tokenizer *, t)->magic = 0; }
static const xlarun__builder xlarun__tok_builder = {xlarun__tok_build_cb, xlarun__tok_undo, "tokenizer"};

XLARUN_API xlarun_status xlarun_tokenizer_memory(const char *dir, const xlarun_tokenizer_options *opt,
                                                 size_t *bytes, xlarun_error *err) {
    xlarun__tok_args x;
    if (bytes) *bytes = 0;
    if (!dir || !bytes) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tokenizer_memory: NULL argument");
    x.dir = dir;
    x.opt = xlarun__tok_opts(opt);
    x.reuse = NULL;
    return xlarun__measure(&xlarun__tok_builder, &x, x.opt->alloc_user, bytes, err);
}

XLARUN_API xlarun_status xlarun_tokenizer_open_in(const char *dir, const xlarun_tokenizer_options *opt,
                                                  void *mem, size_t bytes, xlarun_tokenizer **out,
                                                  xlarun_error *err) {
    xlarun__tok_args x;
    void *obj;
    if (out) *out = NULL;
    if (!dir || !mem || !out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tokenizer_open_in: NULL argument");
    x.dir = dir;
    x.opt = xlarun__tok_opts(opt);
    x.reuse = NULL;
    XLARUN__TRY(xlarun__build_in(&xlarun__tok_builder, &x, x.opt->alloc_user, mem, bytes, dir, &obj, err));
    *out = XLARUN__CAST(xlarun_tokenizer *, obj);
    (*out)->alloc_user = x.opt->alloc_user;
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_tokenizer_open(const char *dir, const xlarun_tokenizer_options *opt,
                                               xlarun_tokenizer **out, xlarun_error *err) {
    xlarun__tok_args x;
    xlarun__tok_reuse reuse;
    void *obj = NULL, *own = NULL;
    if (out) *out = NULL;
    if (!dir || !out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tokenizer_open: NULL argument");
    memset(&reuse, 0, sizeof reuse);
    x.dir = dir;
    x.opt = xlarun__tok_opts(opt);
    x.reuse = &reuse;
    XLARUN__TRY(xlarun__build_alloc_ex(&xlarun__tok_builder, &x, x.opt->alloc_user, dir, 1, &obj, &own, err));
    *out = XLARUN__CAST(xlarun_tokenizer *, obj);
    (*out)->alloc_user = x.opt->alloc_user;
    (*out)->own = own;
    return XLARUN_OK;
}

XLARUN_API void xlarun_tokenizer_close(xlarun_tokenizer *t) {
    void *own;
    if (!t || t->magic != XLARUN__TOK_MAGIC) return;
    t->magic = 0;
    own = t->own;
    if (own) XLARUN_FREE(own, t->alloc_user);
}

static int xlarun__tok_ok(const xlarun_tokenizer *t) { return t && t->magic == XLARUN__TOK_MAGIC; }

XLARUN_API uint32_t xlarun_tokenizer_vocab_size(const xlarun_tokenizer *t) { return xlarun__tok_ok(t) ? t->n_ids : 0; }

XLARUN_API int32_t xlarun_tokenizer_token_id(const xlarun_tokenizer *t, const char *text, size_t len) {
    if (!xlarun__tok_ok(t) || (!text && len)) return -1;
    return xlarun__token_find(t, text ? text : "", len); /* no NULL to memcmp, even for 0 bytes */
}

XLARUN_API const char *xlarun_tokenizer_token_text(const xlarun_tokenizer *t, int32_t id, size_t *len) {
    if (len) *len = 0;
    if (!xlarun__tok_ok(t) || id < 0 || XLARUN__CAST(uint32_t, id) >= t->n_ids || !t->flags[id]) return NULL;
    if (len) *len = xlarun__piece_len(t, id);
    return t->pieces + t->off[id];
}

XLARUN_API int xlarun_tokenizer_is_special(const xlarun_tokenizer *t, int32_t id) {
    if (!xlarun__tok_ok(t) || id < 0 || XLARUN__CAST(uint32_t, id) >= t->n_ids) return 0;
    return (t->flags[id] & XLARUN__TF_SPECIAL) != 0;
}

XLARUN_API int32_t xlarun_tokenizer_bos_id(const xlarun_tokenizer *t) { return xlarun__tok_ok(t) ? t->bos_id : -1; }
XLARUN_API int xlarun_tokenizer_adds_bos(const xlarun_tokenizer *t) { return xlarun__tok_ok(t) && t->n_prefix > 0; }

XLARUN_API size_t xlarun_tokenizer_eos_ids(const xlarun_tokenizer *t, const int32_t **ids) {
    if (ids) *ids = xlarun__tok_ok(t) ? t->eos : NULL;
    return xlarun__tok_ok(t) ? t->n_eos : 0;
}

XLARUN_API const char *xlarun_tokenizer_chat_template(const xlarun_tokenizer *t) {
    return xlarun__tok_ok(t) ? t->chat_template : NULL;
}

XLARUN_API xlarun_status xlarun_tokenizer_check_model(const xlarun_tokenizer *t, const xlarun_model *m,
                                                      xlarun_error *err) {
    const xlarun_config *c = xlarun_model_config(m);
    uint32_t i, top = 0;
    if (!xlarun__tok_ok(t) || !c) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tokenizer_check_model: NULL or closed argument");
    for (i = 0; i < t->n_ids; i++)
        if (t->flags[i]) top = i;
    if (top >= c->vocab_size)
        return xlarun__fail(err, XLARUN_ERR_MODEL, "the tokenizer has token id %u (\"%.40s\"), but the model's vocab_size is %u "
                            "(embedding rows): tokenizer.json and config.json are from different models",
                            top, t->pieces + t->off[top], c->vocab_size);
    xlarun__ok(err);
    return XLARUN_OK;
}

/* ============================== 7. GENERATION ================================================= */
/* samplers, stop tokens and stop strings, chat formatting, the token loop.                        */

#include <time.h>

/* ---- sampling parameters and generation_config.json ---------------------------------------- */

static int xlarun__finite(float x) { return x == x && x - x == 0.0f; }

XLARUN_API xlarun_status xlarun_sampling_check(const xlarun_sampling *p, xlarun_error *err) {
    if (!p) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "sampling: no parameters given");
    if (!xlarun__finite(p->temperature) || p->temperature < 0.0f)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "sampling: temperature must be >= 0 (0 = greedy), found %g",
                            XLARUN__CAST(double, p->temperature));
    if (p->top_k < 0)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "sampling: top_k must be >= 0 (0 = off), found %ld",
                            XLARUN__CAST(long, p->top_k));
    if (!(p->top_p >= 0.0 && p->top_p <= 1.0)) /* NaN too */
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "sampling: top_p must be in [0, 1] (0 or 1 = off), found %g", p->top_p);
    if (!xlarun__finite(p->min_p) || p->min_p < 0.0f || p->min_p > 1.0f)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "sampling: min_p must be in [0, 1] (0 = off), found %g",
                            XLARUN__CAST(double, p->min_p));
    if (!xlarun__finite(p->repetition_penalty) || p->repetition_penalty < 0.0f)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "sampling: repetition_penalty must be > 0 (0 or 1 = off), found %g",
                            XLARUN__CAST(double, p->repetition_penalty));
    xlarun__ok(err);
    return XLARUN_OK;
}

static void xlarun__add_eos(xlarun_generation_config *g, int32_t id) {
    uint32_t i;
    for (i = 0; i < g->n_eos; i++) if (g->eos_token_ids[i] == id) return;
    if (g->n_eos < 2 * XLARUN_MAX_EOS) g->eos_token_ids[g->n_eos++] = id;
}

/* a number key of generation_config.json: absent or null keeps *out */
static xlarun_status xlarun__gc_num(const xlarun__json *j, size_t root, const char *key, double lo,
                                    double hi, double *out, xlarun_error *err) {
    size_t v = xlarun__json_get(j, root, key);
    char tok[48];
    if (xlarun__json_is_null(j, v)) return XLARUN_OK;
    if (xlarun__json_is_number(j, v)) {
        double d = xlarun__json_double(j, v);
        if (d >= lo && d <= hi) { *out = d; return XLARUN_OK; }
    }
    xlarun__token(j, v, tok, sizeof tok);
    return xlarun__fail(err, XLARUN_ERR_FORMAT, "generation_config.json: '%s' must be a number in [%g, %g], found %s",
                        key, lo, hi, tok);
}

XLARUN_API xlarun_status xlarun_generation_config_parse(const xlarun_model *m, const char *json,
                                                        size_t len, xlarun_generation_config *out,
                                                        xlarun_error *err) {
    xlarun__json j;
    size_t root, v, it, e;
    double temperature = 1.0, top_k = 50, top_p = 1.0, min_p = 0.0, rep = 1.0, max_new = 0;
    int do_sample = 0;
    uint32_t i;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generation_config_parse: out is NULL");
    memset(out, 0, sizeof *out);
    if (m) {
        const xlarun_config *c = xlarun_model_config(m);
        if (c) for (i = 0; i < c->n_eos; i++) xlarun__add_eos(out, c->eos_token_ids[i]);
    }
    if (!json) {
        if (len) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generation_config_parse: json is NULL but len is %lu",
                                     XLARUN__CAST(unsigned long, len));
        xlarun__ok(err);
        return XLARUN_OK;
    }
    XLARUN__TRY(xlarun__json_validate(json, len, "generation_config.json", err));
    j.s = json;
    j.n = len;
    root = xlarun__json_ws(json, len, 0);
    if (json[root] != '{') return xlarun__fail(err, XLARUN_ERR_FORMAT, "generation_config.json: expected an object");
    v = xlarun__json_get(&j, root, "do_sample");
    if (!xlarun__json_is_null(&j, v)) {
        if (json[v] != 't' && json[v] != 'f')
            return xlarun__fail(err, XLARUN_ERR_FORMAT, "generation_config.json: 'do_sample' must be true or false");
        do_sample = json[v] == 't';
    }
    XLARUN__TRY(xlarun__gc_num(&j, root, "temperature", 0.0, 1e30, &temperature, err));
    XLARUN__TRY(xlarun__gc_num(&j, root, "top_k", 0.0, 2147483647.0, &top_k, err));
    XLARUN__TRY(xlarun__gc_num(&j, root, "top_p", 0.0, 1.0, &top_p, err));
    XLARUN__TRY(xlarun__gc_num(&j, root, "min_p", 0.0, 1.0, &min_p, err));
    XLARUN__TRY(xlarun__gc_num(&j, root, "repetition_penalty", 0.0, 1e30, &rep, err));
    XLARUN__TRY(xlarun__gc_num(&j, root, "max_new_tokens", 0.0, 4294967295.0, &max_new, err));
    if (rep <= 0.0)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "generation_config.json: 'repetition_penalty' must be > 0, found %g", rep);
    if (do_sample && temperature <= 0.0)
        return xlarun__fail(err, XLARUN_ERR_FORMAT,
                            "generation_config.json: 'temperature' must be > 0 when 'do_sample' is true, found %g", temperature);
    out->sampling.temperature = do_sample ? XLARUN__CAST(float, temperature) : 0.0f;
    out->sampling.top_k = XLARUN__CAST(int32_t, top_k);
    out->sampling.top_p = top_p;
    out->sampling.min_p = XLARUN__CAST(float, min_p);
    out->sampling.repetition_penalty = XLARUN__CAST(float, rep);
    out->max_new_tokens = XLARUN__CAST(uint32_t, max_new);
    v = xlarun__json_get(&j, root, "eos_token_id");
    if (!xlarun__json_is_null(&j, v)) {
        uint64_t x;
        if (json[v] == '[') {
            it = v;
            while (xlarun__json_next(&j, &it, NULL, &e)) {
                if (!xlarun__json_uint(&j, e, INT32_MAX, &x))
                    return xlarun__fail(err, XLARUN_ERR_FORMAT, "generation_config.json: 'eos_token_id' must be a token id or a list of them");
                xlarun__add_eos(out, XLARUN__CAST(int32_t, x));
            }
        } else {
            if (!xlarun__json_uint(&j, v, INT32_MAX, &x))
                return xlarun__fail(err, XLARUN_ERR_FORMAT, "generation_config.json: 'eos_token_id' must be a token id or a list of them");
            xlarun__add_eos(out, XLARUN__CAST(int32_t, x));
        }
    }
    xlarun__ok(err);
    return XLARUN_OK;
}

#define XLARUN__GENCONFIG_MAX 16384u

XLARUN_API xlarun_status xlarun_generation_config_load(const xlarun_model *m, const char *dir,
                                                       const xlarun_io *io,
                                                       xlarun_generation_config *out,
                                                       xlarun_error *err) {
    union { unsigned char b[XLARUN__GENCONFIG_MAX + XLARUN__ALIGN]; double align; } mem;
    xlarun__arena a;
    char *text = NULL, path[4096];
    size_t len = 0;
    xlarun__file f;
    xlarun_status st;
    if (!dir || !out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generation_config_load: dir or out is NULL");
    /* a missing file is the defaults; any other failure is reported */
    st = xlarun__file_open(&f, io, dir, "generation_config.json", path, sizeof path, err);
    if (st == XLARUN_ERR_IO) return xlarun_generation_config_parse(m, NULL, 0, out, err);
    if (st != XLARUN_OK) return st;
    xlarun__file_close(&f);
    xlarun__arena_init(&a, mem.b, sizeof mem.b, NULL);
    XLARUN__TRY(xlarun__read_small(&a, io, dir, "generation_config.json", XLARUN__GENCONFIG_MAX, &text, &len, err));
    return xlarun_generation_config_parse(m, text, len, out, err);
}

/* ---- the sampler ----------------------------------------------------------------------------- */

#define XLARUN__SAMPLER_MAGIC 0x58534d50u

struct xlarun_sampler {
    uint32_t magic, n_vocab;
    xlarun_sampling p;
    uint64_t rng[4];                  /* xoshiro256** */
    float *w;                         /* n_vocab: the processed logits */
    float *tmp;                       /* n_vocab: selection and probabilities */
    int32_t *idx;                     /* n_vocab: candidate ids */
    unsigned char *seen;              /* (n_vocab + 7) / 8: ids in the context */
    void *own;
};

static uint64_t xlarun__splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t xlarun__rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t xlarun__rng_next(uint64_t *s) {
    uint64_t r = xlarun__rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = xlarun__rotl(s[3], 45);
    return r;
}

static void xlarun__rng_seed(uint64_t *s, uint64_t seed) {
    int i;
    for (i = 0; i < 4; i++) s[i] = xlarun__splitmix64(&seed);
}

static size_t xlarun__sampler_layout(uint32_t n_vocab, size_t *o_w, size_t *o_tmp, size_t *o_idx,
                                     size_t *o_seen) {
    size_t n = xlarun__round64(sizeof(struct xlarun_sampler));
    *o_w = n; n += xlarun__round64(sizeof(float) * n_vocab);
    *o_tmp = n; n += xlarun__round64(sizeof(float) * n_vocab);
    *o_idx = n; n += xlarun__round64(sizeof(int32_t) * n_vocab);
    *o_seen = n; n += xlarun__round64((n_vocab + 7u) / 8u);
    return n + XLARUN__ALIGN; /* room to align the base */
}

XLARUN_API size_t xlarun_sampler_memory(uint32_t n_vocab) {
    size_t a, b, c, d;
    return xlarun__sampler_layout(n_vocab, &a, &b, &c, &d);
}

XLARUN_API xlarun_status xlarun_sampler_init(const xlarun_sampling *p, uint32_t n_vocab, void *mem,
                                             size_t bytes, xlarun_sampler **out, xlarun_error *err) {
    size_t o_w, o_tmp, o_idx, o_seen, need;
    unsigned char *base;
    xlarun_sampler *s;
    xlarun_sampling zero;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_sampler_init: out is NULL");
    *out = NULL;
    memset(&zero, 0, sizeof zero);
    if (!p) p = &zero;
    XLARUN__TRY(xlarun_sampling_check(p, err));
    if (n_vocab == 0 || n_vocab > XLARUN_MAX_VOCAB)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_sampler_init: n_vocab %lu is not in 1..%lu",
                            XLARUN__CAST(unsigned long, n_vocab), XLARUN__CAST(unsigned long, XLARUN_MAX_VOCAB));
    need = xlarun__sampler_layout(n_vocab, &o_w, &o_tmp, &o_idx, &o_seen);
    if (!mem || bytes < need)
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "%lu bytes of sampler memory are too few (xlarun_sampler_memory gives %lu)",
                            XLARUN__CAST(unsigned long, bytes), XLARUN__CAST(unsigned long, need));
    base = XLARUN__CAST(unsigned char *, mem);
    base += (XLARUN__ALIGN - XLARUN__PUN(uintptr_t, base) % XLARUN__ALIGN) % XLARUN__ALIGN;
    s = XLARUN__PUN(xlarun_sampler *, base);
    memset(s, 0, sizeof *s);
    s->magic = XLARUN__SAMPLER_MAGIC;
    s->n_vocab = n_vocab;
    s->w = XLARUN__CAST(float *, XLARUN__CAST(void *, base + o_w)); /* offsets are 64-aligned */
    s->tmp = XLARUN__CAST(float *, XLARUN__CAST(void *, base + o_tmp));
    s->idx = XLARUN__PUN(int32_t *, base + o_idx);
    s->seen = base + o_seen;
    s->p = *p;
    xlarun_sampler_reset(s);
    *out = s;
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_sampler_create(const xlarun_sampling *p, uint32_t n_vocab,
                                               xlarun_sampler **out, xlarun_error *err) {
    size_t bytes = xlarun_sampler_memory(n_vocab);
    void *mem;
    xlarun_status st;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_sampler_create: out is NULL");
    *out = NULL;
    if (p) XLARUN__TRY(xlarun_sampling_check(p, err));
    if (n_vocab == 0 || n_vocab > XLARUN_MAX_VOCAB)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_sampler_create: n_vocab %lu is not in 1..%lu",
                            XLARUN__CAST(unsigned long, n_vocab), XLARUN__CAST(unsigned long, XLARUN_MAX_VOCAB));
    mem = XLARUN_MALLOC(bytes, NULL);
    if (!mem) return xlarun__fail(err, XLARUN_ERR_MEMORY, "sampler: cannot allocate %lu bytes", XLARUN__CAST(unsigned long, bytes));
    st = xlarun_sampler_init(p, n_vocab, mem, bytes, out, err);
    if (st != XLARUN_OK) { XLARUN_FREE(mem, NULL); return st; }
    (*out)->own = mem;
    return XLARUN_OK;
}

XLARUN_API void xlarun_sampler_free(xlarun_sampler *s) {
    void *own;
    if (!s || s->magic != XLARUN__SAMPLER_MAGIC) return;
    own = s->own;
    s->magic = 0;
    if (own) XLARUN_FREE(own, NULL);
}

XLARUN_API xlarun_status xlarun_sampler_set(xlarun_sampler *s, const xlarun_sampling *p,
                                            xlarun_error *err) {
    if (!s || s->magic != XLARUN__SAMPLER_MAGIC) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_sampler_set: NULL or freed sampler");
    XLARUN__TRY(xlarun_sampling_check(p, err));
    s->p = *p;
    xlarun__rng_seed(s->rng, p->seed);
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API void xlarun_sampler_reset(xlarun_sampler *s) {
    if (!s || s->magic != XLARUN__SAMPLER_MAGIC) return;
    memset(s->seen, 0, (s->n_vocab + 7u) / 8u);
    xlarun__rng_seed(s->rng, s->p.seed);
}

XLARUN_API void xlarun_sampler_accept(xlarun_sampler *s, const int32_t *ids, size_t n) {
    size_t i;
    if (!s || s->magic != XLARUN__SAMPLER_MAGIC || !ids) return;
    for (i = 0; i < n; i++)
        if (ids[i] >= 0 && XLARUN__CAST(uint32_t, ids[i]) < s->n_vocab)
            s->seen[ids[i] >> 3] = XLARUN__CAST(unsigned char, s->seen[ids[i] >> 3] | (1u << (ids[i] & 7)));
}

/* a pseudo-random pivot position in [lo, hi) for the selections below (xorshift64, its own state,
   so the sampler's draws do not depend on it): structured logits (a V shape over the ids, runs
   rising and falling) make fixed pivot positions quadratic */
static size_t xlarun__pick(uint64_t *r, size_t lo, size_t hi) {
    *r ^= *r << 13;
    *r ^= *r >> 7;
    *r ^= *r << 17;
    return lo + XLARUN__CAST(size_t, *r % XLARUN__CAST(uint64_t, hi - lo));
}

/* The k-th largest (1 <= k < n) of the candidates' logits w[idx[0..n)], counting equal values,
   with tmp (n floats) for work. For k up to 1024, a min-heap of the k largest so far in tmp: after
   the first k, most logits only meet one predictable comparison with its top (0.1 ms for 128k ids
   in random order, where the quickselect's unpredictable branches took 1 ms; logits rising with
   the id make each one an insertion, 10 ms for 262,144 at k = 1,024). Above that, a quickselect
   over a copy in tmp with random pivots, which falls back to the heap (O(n log k)) once it has
   scanned more than max_work values (8n from the filter) without finishing. */
static void xlarun__heap_down(float *h, size_t k, size_t i) {
    for (;;) {
        size_t c = 2 * i + 1;
        float t;
        if (c >= k) return;
        if (c + 1 < k && h[c + 1] < h[c]) c++;
        if (!(h[c] < h[i])) return;
        t = h[i]; h[i] = h[c]; h[c] = t;
        i = c;
    }
}

static float xlarun__kth_largest(const float *w, const int32_t *idx, size_t n, size_t k, float *tmp, size_t max_work) {
    size_t i;
    if (k > 1024) {
        size_t lo = 0, hi = n - 1, want = k - 1, work = 0;
        uint64_t r = 0x9E3779B97F4A7C15ull ^ n;
        for (i = 0; i < n; i++) tmp[i] = w[idx[i]];
        while (lo < hi && work <= max_work) { /* Hoare partition around a random element of [lo, hi] */
            float pivot = tmp[xlarun__pick(&r, lo, hi + 1)], t;
            size_t a = lo, b = hi;
            work += hi - lo + 1;
            while (a <= b) {
                while (tmp[a] > pivot) a++;
                while (tmp[b] < pivot) b--;
                if (a <= b) {
                    t = tmp[a]; tmp[a] = tmp[b]; tmp[b] = t;
                    a++;
                    if (b == 0) break;
                    b--;
                }
            }
            if (want <= b) hi = b;
            else if (want >= a) lo = a;
            else return tmp[want];
        }
        if (lo >= hi) return tmp[want];
    }
    for (i = 0; i < k; i++) tmp[i] = w[idx[i]];
    for (i = k / 2; i-- > 0;) xlarun__heap_down(tmp, k, i);
    for (i = k; i < n; i++)
        if (w[idx[i]] > tmp[0]) { tmp[0] = w[idx[i]]; xlarun__heap_down(tmp, k, 0); }
    return tmp[0];
}

/* probabilities of the candidates idx[0..n) into p[0..n), in the same order; returns the largest.
   As torch: e^(w - max) (the kernels' exp), then times 1 / sum, with the sum in double (four
   partial sums). The largest is e^0 / sum. About 2.5 ns an id where a pass of libm expf and
   double divisions took 5. */
static float xlarun__softmax_ids(const float *w, const int32_t *idx, size_t n, float *p) {
    float mx = -HUGE_VALF, inv;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        p[i] = w[idx[i]];
        if (p[i] > mx) mx = p[i];
    }
    for (i = 0; i < n; i++) p[i] -= mx;
    xlarun_k_exp(p, n);
    for (i = 0; i + 4 <= n; i += 4) {
        s0 += XLARUN__CAST(double, p[i]);
        s1 += XLARUN__CAST(double, p[i + 1]);
        s2 += XLARUN__CAST(double, p[i + 2]);
        s3 += XLARUN__CAST(double, p[i + 3]);
    }
    for (; i < n; i++) s0 += XLARUN__CAST(double, p[i]);
    inv = XLARUN__CAST(float, 1.0 / ((s0 + s1) + (s2 + s3)));
    for (i = 0; i < n; i++) p[i] *= inv;
    return inv;
}

/* (w[a], a) before (w[b], b): transformers' ascending sort, ties in id order (torch's sort is not
   stable beyond 16 elements, so which of exactly tied logits at the top-p boundary stay can
   differ from transformers; the kept values are the same) */
static int xlarun__below(const float *w, int32_t a, int32_t b) {
    float wa = w[a], wb = w[b];
    return wa < wb || (wa == wb && a < b);
}

#define XLARUN__SWAP2(idx, p, a, b)                                                            \
    do {                                                                                       \
        int32_t ti_ = (idx)[a]; float tp_ = (p)[a];                                            \
        (idx)[a] = (idx)[b]; (p)[a] = (p)[b]; (idx)[b] = ti_; (p)[b] = tp_;                    \
    } while (0)

/* sort idx[0..n) with their p[] ascending by (w[id], id): heapsort, the top-p selection's fallback */
static void xlarun__sift2(const float *w, int32_t *idx, float *p, size_t i, size_t n) {
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && xlarun__below(w, idx[c], idx[c + 1])) c++;
        if (!xlarun__below(w, idx[i], idx[c])) return;
        XLARUN__SWAP2(idx, p, i, c);
        i = c;
    }
}
static void xlarun__sort2(const float *w, int32_t *idx, float *p, size_t n) {
    size_t i;
    if (n < 2) return;
    for (i = n / 2; i-- > 0;) xlarun__sift2(w, idx, p, i, n);
    for (i = n - 1; i > 0; i--) {
        XLARUN__SWAP2(idx, p, 0, i);
        xlarun__sift2(w, idx, p, 0, i);
    }
}

/* Top-p without sorting. transformers sorts the candidates ascending and drops each while the
   cumulative probability (including it) is <= limit, always keeping the largest: the dropped
   ones are the smallest d. Ids whose probability is below limit / n are among them (together
   they weigh less than limit) and go first; a quickselect over the rest, its pivot the median of
   three random elements, then decides each partition's side by its mass (expected O(n), where
   sorting 128k ids took 16 ms a token). Once it has scanned more than max_work ids (8n from the
   filter) without finishing, what is left is sorted and walked (O(n log n)). The cumulative sums
   are in double, compared as floats, as torch's cumsum. idx[0..n) and their probabilities
   p[0..n) are reordered; returns the smallest kept id in (w, id) order. */
static int32_t xlarun__top_p_keep(const float *w, int32_t *idx, float *p, size_t n, float limit, size_t max_work) {
    double base = 0.0, low;
    float cut = XLARUN__CAST(float, (double)limit / (double)n * 0.999);
    size_t lo = 0, hi = n, j, m, work = 0;
    uint64_t r = 0x9E3779B97F4A7C15ull ^ n;
    int32_t keep = -1;
    for (j = 0; j < n; j++)
        if (p[j] < cut) { base += XLARUN__CAST(double, p[j]); XLARUN__SWAP2(idx, p, j, lo); lo++; }
    if (lo == n) { lo = 0; base = 0.0; } /* all below the cut (limit rounded to 1): the largest stays */
    while (lo < hi) {
        size_t c = hi - 1;
        if (work > max_work) { /* the fallback: sort what is left and walk it */
            xlarun__sort2(w, idx + lo, p + lo, hi - lo);
            for (m = lo; m < hi; m++) {
                if (m == n - 1 || !(XLARUN__CAST(float, base + XLARUN__CAST(double, p[m])) <= limit)) return idx[m];
                base += XLARUN__CAST(double, p[m]);
            }
            return keep; /* [lo, hi) all dropped: the pivot that set hi stays */
        }
        work += hi - lo;
        if (hi - lo >= 3) { /* the median of three random elements as the pivot, at hi - 1 */
            size_t a = xlarun__pick(&r, lo, hi), b = xlarun__pick(&r, lo, hi), med;
            int ab = xlarun__below(w, idx[a], idx[b]), bc = xlarun__below(w, idx[b], idx[c]);
            int ac = xlarun__below(w, idx[a], idx[c]);
            med = ab == bc ? b : (ab == ac ? c : a);
            if (med != c) XLARUN__SWAP2(idx, p, med, c);
        }
        low = 0.0;
        m = lo;
        for (j = lo; j < c; j++)
            if (xlarun__below(w, idx[j], idx[c])) { low += XLARUN__CAST(double, p[j]); XLARUN__SWAP2(idx, p, j, m); m++; }
        if (m != c) XLARUN__SWAP2(idx, p, m, c); /* the pivot at m: [lo, m) below it, (m, hi) above */
        if (!(XLARUN__CAST(float, base + low) <= limit)) { hi = m; keep = idx[m]; continue; } /* below */
        base += low;
        if (m == n - 1 || !(XLARUN__CAST(float, base + XLARUN__CAST(double, p[m])) <= limit)) { keep = idx[m]; break; } /* stays */
        base += XLARUN__CAST(double, p[m]);
        lo = m + 1;
    }
    /* the loop ends at a pivot that stays, or with lo == hi, where the pivot that set hi is the
       smallest kept; NaN cumulative sums keep, as torch's "cumsum <= limit" is false for them */
    return keep;
}

/* steps 1-5: the processed logits in s->w and the surviving ids in s->idx, in ascending id
   order; returns their count. Greedy: the one argmax id. */
static size_t xlarun__sampler_filter(xlarun_sampler *s, const float *logits) {
    const xlarun_sampling *p = &s->p;
    float *w = s->w, *tmp = s->tmp, pen;
    int32_t *idx = s->idx;
    size_t n, i, V = s->n_vocab, keep;
    memcpy(w, logits, V * sizeof *w);
    /* 1. repetition penalty (RepetitionPenaltyLogitsProcessor: once per distinct id) */
    pen = p->repetition_penalty;
    if (pen != 0.0f && pen != 1.0f)
        for (i = 0; i < V; i++)
            if (s->seen[i >> 3] & (1u << (i & 7))) w[i] = w[i] < 0.0f ? w[i] * pen : w[i] / pen;
    if (p->temperature == 0.0f) {
        idx[0] = xlarun_argmax(w, V);
        return 1;
    }
    /* 2. temperature */
    if (p->temperature != 1.0f)
        for (i = 0; i < V; i++) w[i] = w[i] / p->temperature;
    /* candidates: every id, then narrowed; removed ids count as -inf */
    n = 0;
    for (i = 0; i < V; i++)
        if (w[i] > -HUGE_VALF) idx[n++] = XLARUN__CAST(int32_t, i);
    if (n == 0) { /* every logit is -inf (or NaN): fall back to the first maximal raw logit */
        idx[0] = xlarun_argmax(logits, V);
        return 1;
    }
    /* 3. top-k: keep logits >= the k-th largest (ties stay, as torch's scores < kth) */
    if (p->top_k > 0 && XLARUN__CAST(size_t, p->top_k) < n) {
        float kth = xlarun__kth_largest(w, idx, n, XLARUN__CAST(size_t, p->top_k), tmp, 8 * n);
        keep = 0;
        for (i = 0; i < n; i++) if (!(w[idx[i]] < kth)) idx[keep++] = idx[i];
        n = keep;
    }
    /* 4. top-p: in ascending order, drop while the cumulative probability is <= 1 - top_p; the
          largest always stays. The kept ones are those at or after the boundary id in (w, id)
          order, every one a candidate (their logits are >= a candidate's); listed again by id. */
    if (p->top_p > 0.0 && p->top_p < 1.0 && n > 1) {
        int32_t b;
        xlarun__softmax_ids(w, idx, n, tmp);
        b = xlarun__top_p_keep(w, idx, tmp, n, XLARUN__CAST(float, 1.0 - p->top_p), 8 * n); /* 1 - top_p in double, as torch */
        if (b >= 0) {
            float wb = w[b];
            n = 0;
            for (i = 0; i < V; i++)
                if (w[i] > wb || (w[i] == wb && XLARUN__CAST(int32_t, i) >= b)) idx[n++] = XLARUN__CAST(int32_t, i);
        }
    }
    /* 5. min-p: drop p < min_p * max p, computed over the remaining candidates */
    if (p->min_p > 0.0f && n > 1) {
        float top = xlarun__softmax_ids(w, idx, n, tmp), cut = p->min_p * top;
        keep = 0;
        for (i = 0; i < n; i++) if (!(tmp[i] < cut)) idx[keep++] = idx[i];
        n = keep; /* >= 1: the largest has p = top >= cut */
    }
    return n;
}

XLARUN_API int32_t xlarun_sampler_sample(xlarun_sampler *s, const float *logits) {
    size_t n, i;
    double u, acc;
    if (!s || s->magic != XLARUN__SAMPLER_MAGIC || !logits) return -1;
    n = xlarun__sampler_filter(s, logits);
    if (s->p.temperature == 0.0f || n == 1) return s->idx[0];
    /* 6. one draw: u in [0,1) against the cumulative probabilities in candidate order */
    xlarun__softmax_ids(s->w, s->idx, n, s->tmp);
    u = XLARUN__CAST(double, xlarun__rng_next(s->rng) >> 11) * (1.0 / 9007199254740992.0);
    acc = 0.0;
    for (i = 0; i + 1 < n; i++) {
        acc += XLARUN__CAST(double, s->tmp[i]);
        if (u < acc) return s->idx[i];
    }
    return s->idx[n - 1];
}

/* ---- stop strings ------------------------------------------------------------------------------ */

XLARUN_API xlarun_status xlarun_stopper_init(xlarun_stopper *s, const char *const *stops, size_t n,
                                             xlarun_error *err) {
    size_t i;
    if (!s) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_stopper_init: NULL stopper");
    memset(s, 0, sizeof *s);
    if (n > XLARUN_MAX_STOP_STRINGS)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "stop strings: %lu given, at most %d",
                            XLARUN__CAST(unsigned long, n), XLARUN_MAX_STOP_STRINGS);
    if (n && !stops) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "stop strings: NULL list");
    for (i = 0; i < n; i++) {
        size_t l = stops[i] ? strlen(stops[i]) : 0;
        if (l == 0) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "stop string %lu is empty", XLARUN__CAST(unsigned long, i + 1));
        if (l >= XLARUN_MAX_STOP_BYTES)
            return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "stop string %lu is %lu bytes, at most %d",
                                XLARUN__CAST(unsigned long, i + 1), XLARUN__CAST(unsigned long, l), XLARUN_MAX_STOP_BYTES - 1);
        memcpy(s->stops[i], stops[i], l + 1);
        s->lens[i] = l;
        if (l > s->max_len) s->max_len = l;
    }
    s->n_stops = n;
    xlarun__ok(err);
    return XLARUN_OK;
}

/* the longest suffix of b[0..n) that is a proper prefix of some stop string */
static size_t xlarun__stop_partial(const xlarun_stopper *s, const char *b, size_t n) {
    size_t i, best = 0;
    for (i = 0; i < s->n_stops; i++) {
        size_t k = s->lens[i] - 1 < n ? s->lens[i] - 1 : n;
        for (; k > best; k--)
            if (!memcmp(b + n - k, s->stops[i], k)) { best = k; break; }
    }
    return best;
}

XLARUN_API int xlarun_stopper_push(xlarun_stopper *s, const char *text, size_t len,
                                   xlarun_text_fn emit, void *user) {
    if (!s) return 0;
    if (s->stopped) return 1;
    if (!text) len = 0;
    if (s->n_stops == 0) {
        if (len && emit) emit(user, text, len);
        return 0;
    }
    /* the held text (< max_len bytes) plus the new text, in pieces that fit the buffer: a stop
       string can start in the held part and end up to max_len - 1 bytes into the new text */
    while (len > 0) {
        size_t room = sizeof s->buf - s->held, take = len < room ? len : room, n, i, at = XLARUN__NONE, keep;
        memcpy(s->buf + s->held, text, take);
        text += take;
        len -= take;
        n = s->held + take;
        for (i = 0; i < s->n_stops; i++) {
            size_t k;
            if (s->lens[i] > n) continue;
            for (k = 0; k + s->lens[i] <= n && k < at; k++)
                if (!memcmp(s->buf + k, s->stops[i], s->lens[i])) { at = k; break; }
        }
        if (at != XLARUN__NONE) {
            if (at && emit) emit(user, s->buf, at);
            s->held = 0;
            s->stopped = 1;
            return 1;
        }
        keep = xlarun__stop_partial(s, s->buf, n);
        if (n - keep && emit) emit(user, s->buf, n - keep);
        memmove(s->buf, s->buf + (n - keep), keep);
        s->held = keep;
    }
    return 0;
}

XLARUN_API void xlarun_stopper_flush(xlarun_stopper *s, xlarun_text_fn emit, void *user) {
    if (!s) return;
    if (!s->stopped && s->held && emit) emit(user, s->buf, s->held);
    s->held = 0;
    s->stopped = 0;
}

/* ---- chat templates: a Jinja interpreter ------------------------------------------------------
   A chat template is a Jinja program; transformers renders it with jinja2's
   ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) plus loop controls, its own
   tojson, raise_exception, strftime_now and the {% generation %} block. This interpreter lexes and
   parses the template once into a tree (in the template's memory) and renders the tree against
   values built from the conversation (in the caller's work memory), with Python's semantics for
   the values: None, bool, int, float, str (UTF-8, indexed by code point), list, tuple, dict in
   insertion order, jinja2's Undefined. Nothing here allocates outside the memory it is given;
   every loop, call and output is bounded (steps, depth, bytes). */

#define XLARUN_JINJA_MAX_DEPTH 96           /* nesting of expressions and blocks while parsing */
#define XLARUN_JINJA_MAX_CALLS 64           /* macro calls in progress (a recursion stops here) */
#define XLARUN_JINJA_DEFAULT_STEPS 20000000u /* evaluation steps of one render by default */
#define XLARUN_JINJA_DEFAULT_OUTPUT (64u << 20) /* bytes of one rendering by default */
#define XLARUN_JINJA_DEFAULT_WORK (256u << 20) /* work memory a measured render may use by default */

/* ---- memory: a bump allocator over the caller's block ----------------------------------------
   Measuring runs the same code on chunks from XLARUN_MALLOC while counting the bytes the caller's
   block would use, so the size it reports is exact. The last allocation may grow in place (the
   string builders append that way); while measuring, growing past a chunk copies to a new chunk,
   counted as in place. */
typedef struct xlarun__jchunk { struct xlarun__jchunk *prev; size_t cap, used; } xlarun__jchunk;

typedef struct xlarun__jmem {
    unsigned char *base;        /* the caller's block; NULL while measuring */
    size_t cap, used, peak;     /* bytes (logical, the same in both modes) */
    size_t last_off;            /* logical offset of the last allocation (SIZE_MAX: none) */
    unsigned char *last;        /* and where it is */
    xlarun__jchunk *chunks;     /* measuring */
    void *alloc_user;
    int failed;                 /* out of room (or the allocator failed while measuring) */
} xlarun__jmem;

static void xlarun__jmem_init(xlarun__jmem *m, void *mem, size_t bytes, void *alloc_user) {
    memset(m, 0, sizeof *m);
    m->base = XLARUN__CAST(unsigned char *, mem);
    m->cap = mem ? bytes : SIZE_MAX / 2;
    m->last_off = SIZE_MAX;
    m->alloc_user = alloc_user;
}

static void xlarun__jmem_release(xlarun__jmem *m) {
    while (m->chunks) {
        xlarun__jchunk *p = m->chunks->prev;
        XLARUN_FREE(m->chunks, m->alloc_user);
        m->chunks = p;
    }
}

static size_t xlarun__round8(size_t n) { return (n + 7) & ~XLARUN__CAST(size_t, 7); }

/* physical room for n more bytes while measuring: in the newest chunk, or a new one */
static unsigned char *xlarun__jmem_chunk(xlarun__jmem *m, size_t n) {
    size_t hdr = xlarun__round8(sizeof(xlarun__jchunk)), cap = n > (1u << 20) ? n : (1u << 20);
    xlarun__jchunk *c = m->chunks;
    if (c && c->cap - c->used >= n) {
        c->used += n;
        return XLARUN__PUN(unsigned char *, c) + hdr + c->used - n;
    }
    c = XLARUN__CAST(xlarun__jchunk *, XLARUN_MALLOC(hdr + cap, m->alloc_user));
    if (!c) return NULL;
    c->prev = m->chunks;
    c->cap = cap;
    c->used = n;
    m->chunks = c;
    return XLARUN__PUN(unsigned char *, c) + hdr;
}

static void *xlarun__jalloc(xlarun__jmem *m, size_t n) {
    unsigned char *p;
    n = xlarun__round8(n ? n : 1);
    if (m->failed || n > m->cap - m->used) { m->failed = 1; return NULL; }
    if (m->base) p = m->base + m->used;
    else if (!(p = xlarun__jmem_chunk(m, n))) { m->failed = 1; return NULL; }
    m->last_off = m->used;
    m->last = p;
    m->used += n;
    if (m->used > m->peak) m->peak = m->used;
    return p;
}

/* grow the allocation p (old bytes, now n): in place if it is the last one, else a copy */
static void *xlarun__jgrow(xlarun__jmem *m, void *p, size_t old, size_t n) {
    unsigned char *q;
    size_t r = xlarun__round8(old ? old : 1), nr = xlarun__round8(n ? n : 1);
    if (p && p == m->last && m->last_off + r == m->used) {
        if (m->failed || nr - r > m->cap - m->used) { m->failed = 1; return NULL; }
        if (!m->base) {
            xlarun__jchunk *c = m->chunks;
            size_t hdr = xlarun__round8(sizeof(xlarun__jchunk));
            if (c && XLARUN__PUN(unsigned char *, c) + hdr + c->used == XLARUN__CAST(unsigned char *, p) + r && c->cap - c->used >= nr - r) {
                c->used += nr - r;
            } else {
                if (!(q = xlarun__jmem_chunk(m, nr))) { m->failed = 1; return NULL; }
                memcpy(q, p, old);
                m->last = q;
                p = q;
            }
        }
        m->used += nr - r;
        if (m->used > m->peak) m->peak = m->used;
        return p;
    }
    if (!(q = XLARUN__CAST(unsigned char *, xlarun__jalloc(m, n)))) return NULL;
    if (old && p) memcpy(q, p, old);
    return q;
}

/* ---- values ------------------------------------------------------------------------------------ */
typedef enum xlarun__jt {
    XJ_UNDEF = 0, XJ_NONE, XJ_BOOL, XJ_INT, XJ_FLOAT, XJ_STR, XJ_LIST, XJ_TUPLE, XJ_DICT, XJ_NS,
    XJ_MACRO, XJ_FUNC, XJ_METHOD, XJ_LOOP, XJ_CYCLER, XJ_JOINER
} xlarun__jt;

/* XJ_LIST flags: what Python would have instead of a list */
#define XJ_GEN 1   /* a generator (map, select, ...): no len(), no index, always true */
#define XJ_VIEW 2  /* dict.items()/keys()/values(): len() but no index */
#define XJ_MARKUP 1 /* XJ_STR: markupsafe's Markup (|safe, |e): what is added to it is escaped */

struct xlarun__jseq;
struct xlarun__jmap;
struct xlarun__jnode;

typedef struct xlarun__jv {
    int t;
    int aux;                    /* XJ_LIST flags; XJ_FUNC/XJ_METHOD: which; XJ_UNDEF: 1 if the hint is an attribute */
    union {
        int64_t i;              /* XJ_BOOL, XJ_INT */
        double f;
        struct { const char *p; size_t n; } s; /* XJ_STR; XJ_UNDEF: the name, for messages */
        struct xlarun__jseq *l;
        struct xlarun__jmap *d;
        struct xlarun__jclosure *m;
        struct xlarun__jv *self;   /* XJ_METHOD: the receiver */
        struct xlarun__jloop *loop;
        struct xlarun__jcyc *cyc;
    } u;
} xlarun__jv;

typedef struct xlarun__jseq { size_t n; xlarun__jv *v; } xlarun__jseq;
typedef struct xlarun__jmap { size_t n, cap; xlarun__jv *k, *v; } xlarun__jmap;
typedef struct xlarun__jloop { size_t i, n; const xlarun__jv *items; size_t depth; } xlarun__jloop;
typedef struct xlarun__jcyc { size_t i; xlarun__jseq items; int used; } xlarun__jcyc;

static xlarun__jv xlarun__jundef(const char *name, size_t n, int attr) {
    xlarun__jv v;
    memset(&v, 0, sizeof v);
    v.t = XJ_UNDEF; v.aux = attr; v.u.s.p = name; v.u.s.n = n;
    return v;
}
static xlarun__jv xlarun__jmk(int t) { xlarun__jv v; memset(&v, 0, sizeof v); v.t = t; return v; }
static xlarun__jv xlarun__jbool(int b) { xlarun__jv v = xlarun__jmk(XJ_BOOL); v.u.i = b != 0; return v; }
static xlarun__jv xlarun__jint(int64_t i) { xlarun__jv v = xlarun__jmk(XJ_INT); v.u.i = i; return v; }
static xlarun__jv xlarun__jfloat(double f) { xlarun__jv v = xlarun__jmk(XJ_FLOAT); v.u.f = f; return v; }
static xlarun__jv xlarun__jstr(const char *p, size_t n) {
    xlarun__jv v = xlarun__jmk(XJ_STR);
    v.u.s.p = p; v.u.s.n = n;
    return v;
}
static int xlarun__jis_seq(const xlarun__jv *v) { return v->t == XJ_LIST || v->t == XJ_TUPLE; }
static int xlarun__jis_num(const xlarun__jv *v) { return v->t == XJ_BOOL || v->t == XJ_INT || v->t == XJ_FLOAT; }
static double xlarun__jnum(const xlarun__jv *v) { return v->t == XJ_FLOAT ? v->u.f : XLARUN__CAST(double, v->u.i); }
static int xlarun__jstreq(const xlarun__jv *v, const char *lit) {
    size_t n = strlen(lit);
    return v->t == XJ_STR && v->u.s.n == n && !memcmp(v->u.s.p, lit, n);
}

/* ---- text builders ------------------------------------------------------------------------------
   A growing string in the work memory. The output of a rendering goes to the caller's buffer
   instead (cap bytes; the length is counted past it). */
typedef struct xlarun__jbuf {
    char *p;
    size_t n, cap;
    xlarun__jmem *mem;          /* NULL: the caller's output buffer */
    size_t total;               /* the caller's buffer: bytes written, counted past cap */
    size_t limit;               /* the most bytes allowed (0: no limit) */
    int over;                   /* limit passed */
} xlarun__jbuf;

static void xlarun__jbuf_init(xlarun__jbuf *b, xlarun__jmem *m) {
    memset(b, 0, sizeof *b);
    b->mem = m;
}

static void xlarun__jput(xlarun__jbuf *b, const char *s, size_t n) {
    if (!n) return;
    if (!b->mem) {
        size_t room = b->total < b->cap ? b->cap - b->total : 0;
        if (b->limit && n > b->limit - b->total) { b->over = 1; n = b->limit - b->total; }
        if (room) memcpy(b->p + b->total, s, n < room ? n : room);
        b->total += n;
        return;
    }
    if (b->limit && n > b->limit - b->n) { b->over = 1; return; }
    if (n > b->cap - b->n) {
        size_t nc = b->cap * 2 > b->n + n ? b->cap * 2 : b->n + n + 32;
        char *q = XLARUN__CAST(char *, xlarun__jgrow(b->mem, b->p, b->cap, nc));
        if (!q) { b->over = 1; return; }
        b->p = q;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void xlarun__jputs(xlarun__jbuf *b, const char *s) { xlarun__jput(b, s, strlen(s)); }
static void xlarun__jputc(xlarun__jbuf *b, char c) { xlarun__jput(b, &c, 1); }

/* ---- UTF-8 and Python's str ------------------------------------------------------------------- */
/* the code point at s[*i] (valid UTF-8 assumed; a stray byte is taken as itself), advancing *i */
static unsigned xlarun__jcp(const char *s, size_t n, size_t *i) {
    const unsigned char *u = XLARUN__PUN(const unsigned char *, s);
    unsigned c = u[*i];
    size_t l = xlarun__utf8_len(u + *i, n - *i);
    if (l <= 1) { (*i)++; return c; }
    if (l == 2) c = ((c & 0x1Fu) << 6) | (u[*i + 1] & 0x3Fu);
    else if (l == 3) c = ((c & 0x0Fu) << 12) | ((u[*i + 1] & 0x3Fu) << 6) | (u[*i + 2] & 0x3Fu);
    else c = ((c & 0x07u) << 18) | ((u[*i + 1] & 0x3Fu) << 12) | ((u[*i + 2] & 0x3Fu) << 6) | (u[*i + 3] & 0x3Fu);
    *i += l;
    return c;
}

static size_t xlarun__jenc(unsigned cp, char *o) {
    if (cp < 0x80) { o[0] = XLARUN__CAST(char, cp); return 1; }
    if (cp < 0x800) { o[0] = XLARUN__CAST(char, 0xC0 | (cp >> 6)); o[1] = XLARUN__CAST(char, 0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = XLARUN__CAST(char, 0xE0 | (cp >> 12)); o[1] = XLARUN__CAST(char, 0x80 | ((cp >> 6) & 0x3F));
        o[2] = XLARUN__CAST(char, 0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = XLARUN__CAST(char, 0xF0 | (cp >> 18)); o[1] = XLARUN__CAST(char, 0x80 | ((cp >> 12) & 0x3F));
    o[2] = XLARUN__CAST(char, 0x80 | ((cp >> 6) & 0x3F)); o[3] = XLARUN__CAST(char, 0x80 | (cp & 0x3F));
    return 4;
}

/* Python's str.isspace() */
static int xlarun__jspace(unsigned c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* code points in s */
static size_t xlarun__jlen(const char *s, size_t n) {
    size_t i = 0, k = 0;
    while (i < n) { xlarun__jcp(s, n, &i); k++; }
    return k;
}

/* byte offset of code point k (k <= length) */
static size_t xlarun__joff(const char *s, size_t n, size_t k) {
    size_t i = 0;
    while (k-- && i < n) xlarun__jcp(s, n, &i);
    return i;
}

/* Python's str.isprintable() for repr(): the categories Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs but space
   are not printable; this covers the ones text meets (controls, format characters, the spaces) */
static int xlarun__jprintable(unsigned c) {
    if (c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD) return 0;
    if (c == 0x1680 || (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x2064) ||
        (c >= 0x2066 && c <= 0x206F) || c == 0x3000 || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) ||
        (c >= 0xD800 && c <= 0xF8FF) || c == 0x61C || c == 0x180E || c >= 0xF0000 || (c >= 0xE0000 && c <= 0xE007F))
        return 0;
    return 1;
}

/* ---- numbers as Python writes them ------------------------------------------------------------
   repr(float): the shortest digits that read back to the same double, in fixed notation when the
   decimal exponent is in [-4, 16), else d.ddde+XX. snprintf and strtod may use the locale's
   decimal point; it is swapped for '.' both ways. */
static char xlarun__jpoint(void) {
    char b[8];
    snprintf(b, sizeof b, "%.1f", 0.5);
    return b[1];
}

/* strtod over n bytes, the locale's point swapped in; *all: whether it read every byte */
static double xlarun__jstrtod_n(const char *s, size_t n, int *all) {
    char b[512], pt = xlarun__jpoint(), *end;
    size_t k;
    double d;
    size_t m = 0;
    if (n >= sizeof b) n = sizeof b - 1;
    for (k = 0; k < n; k++) /* Python's digit separators dropped */
        if (s[k] != '_') b[m++] = s[k] == '.' ? pt : s[k];
    b[m] = 0;
    d = strtod(b, &end);
    if (all) *all = *end == 0;
    return d;
}
static double xlarun__jstrtod(const char *s, size_t n) { return xlarun__jstrtod_n(s, n, NULL); }
/* is every '_' in s[0..n) between two digits, as Python's float() wants its separators? */
static int xlarun__jseps_ok(const char *s, size_t n) {
    size_t k;
    for (k = 0; k < n; k++)
        if (s[k] == '_' && (k == 0 || k + 1 == n || s[k - 1] < '0' || s[k - 1] > '9' || s[k + 1] < '0' || s[k + 1] > '9')) return 0;
    return 1;
}
/* does s[0..n) hold any of the characters of set? */
static int xlarun__jany_of(const char *s, size_t n, const char *set) {
    for (; *set; set++)
        if (memchr(s, *set, n)) return 1;
    return 0;
}

static void xlarun__jfmt_float(xlarun__jbuf *b, double x, int json) {
    char e[40], digs[24] = {0}, out[64];
    int p, ex, nd = 0, k, o = 0;
    const char *q;
    if (x != x) { xlarun__jputs(b, json ? "NaN" : "nan"); return; }
    if (x == HUGE_VAL) { xlarun__jputs(b, json ? "Infinity" : "inf"); return; }
    if (x == -HUGE_VAL) { xlarun__jputs(b, json ? "-Infinity" : "-inf"); return; }
    for (p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, x);
        if (xlarun__jstrtod(e, strlen(e)) == x) break;
    }
    /* e: [-]d[.ddd]e[+-]XX */
    q = e;
    if (*q == '-') { out[o++] = '-'; q++; }
    for (; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9') digs[nd++] = *q;
    ex = XLARUN__CAST(int, strtol(q + 1, NULL, 10));
    while (nd > 1 && digs[nd - 1] == '0') nd--;
    if (ex >= -4 && ex < 16) {
        if (ex < 0) {
            out[o++] = '0'; out[o++] = '.';
            for (k = 0; k < -ex - 1; k++) out[o++] = '0';
            for (k = 0; k < nd; k++) out[o++] = digs[k];
        } else {
            for (k = 0; k <= ex; k++) out[o++] = k < nd ? digs[k] : '0';
            out[o++] = '.';
            if (nd > ex + 1) for (k = ex + 1; k < nd; k++) out[o++] = digs[k];
            else out[o++] = '0';
        }
    } else {
        out[o++] = digs[0];
        if (nd > 1) { out[o++] = '.'; for (k = 1; k < nd; k++) out[o++] = digs[k]; }
        o += snprintf(out + o, sizeof out - XLARUN__CAST(size_t, o), "e%c%02d", ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
    }
    xlarun__jput(b, out, XLARUN__CAST(size_t, o));
}

static void xlarun__jfmt_int(xlarun__jbuf *b, int64_t i) {
    char t[32];
    snprintf(t, sizeof t, "%lld", XLARUN__CAST(long long, i));
    xlarun__jputs(b, t);
}

/* repr(str): single quotes unless the text has ' and no " */
static void xlarun__jrepr_str(xlarun__jbuf *b, const char *s, size_t n) {
    size_t i = 0;
    char q = '\'';
    if (memchr(s, '\'', n) && !memchr(s, '"', n)) q = '"';
    xlarun__jputc(b, q);
    while (i < n) {
        size_t st = i;
        unsigned c = xlarun__jcp(s, n, &i);
        char t[16];
        if (c == XLARUN__CAST(unsigned, q) || c == '\\') { xlarun__jputc(b, '\\'); xlarun__jputc(b, XLARUN__CAST(char, c)); }
        else if (c == '\n') xlarun__jputs(b, "\\n");
        else if (c == '\r') xlarun__jputs(b, "\\r");
        else if (c == '\t') xlarun__jputs(b, "\\t");
        else if (!xlarun__jprintable(c)) {
            if (c < 0x100) snprintf(t, sizeof t, "\\x%02x", c);
            else if (c < 0x10000) snprintf(t, sizeof t, "\\u%04x", c);
            else snprintf(t, sizeof t, "\\U%08x", c);
            xlarun__jputs(b, t);
        } else xlarun__jput(b, s + st, i - st);
    }
    xlarun__jputc(b, q);
}

/* json.dumps of a str (ensure_ascii as asked) */
static void xlarun__jjson_str(xlarun__jbuf *b, const char *s, size_t n, int ascii) {
    size_t i = 0;
    xlarun__jputc(b, '"');
    while (i < n) {
        size_t st = i;
        unsigned c = xlarun__jcp(s, n, &i);
        char t[16];
        if (c == '"') xlarun__jputs(b, "\\\"");
        else if (c == '\\') xlarun__jputs(b, "\\\\");
        else if (c == '\n') xlarun__jputs(b, "\\n");
        else if (c == '\r') xlarun__jputs(b, "\\r");
        else if (c == '\t') xlarun__jputs(b, "\\t");
        else if (c == '\b') xlarun__jputs(b, "\\b");
        else if (c == '\f') xlarun__jputs(b, "\\f");
        else if (c < 0x20 || (ascii && c > 0x7F)) {
            if (c >= 0x10000) {
                snprintf(t, sizeof t, "\\u%04x\\u%04x", 0xD800 + ((c - 0x10000) >> 10), 0xDC00 + ((c - 0x10000) & 0x3FF));
            } else snprintf(t, sizeof t, "\\u%04x", c);
            xlarun__jputs(b, t);
        } else xlarun__jput(b, s + st, i - st);
    }
    xlarun__jputc(b, '"');
}

/* ---- the lexer -------------------------------------------------------------------------------
   jinja2's rules with trim_blocks and lstrip_blocks: a block or comment tag takes the newline
   right after it; spaces between a line's start and a block or comment tag go; '-' on a tag's
   side strips all whitespace on that side, '+' keeps it. Newlines are \n (the source's \r\n and
   \r become \n) and one trailing newline of the template is dropped, as jinja2 does. */
enum { JK_EOF, JK_DATA, JK_VAR, JK_VAR_END, JK_BLOCK, JK_BLOCK_END, JK_NAME, JK_STR, JK_INT, JK_FLOAT, JK_OP };
enum {
    JO_ADD = 1, JO_SUB, JO_DIV, JO_FLOORDIV, JO_MUL, JO_MOD, JO_POW, JO_TILDE, JO_LBRACKET, JO_RBRACKET,
    JO_LPAREN, JO_RPAREN, JO_LBRACE, JO_RBRACE, JO_EQ, JO_NE, JO_GT, JO_GE, JO_LT, JO_LE, JO_ASSIGN,
    JO_DOT, JO_COLON, JO_PIPE, JO_COMMA, JO_SEMICOLON, JO_IN, JO_NOTIN
};
static const char *const xlarun__jops[] = {"", "+", "-", "/", "//", "*", "%", "**", "~", "[", "]", "(", ")", "{", "}",
                                           "==", "!=", ">", ">=", "<", "<=", "=", ".", ":", "|", ",", ";", "in", "not in"};

typedef struct xlarun__jtok {
    int kind, op;
    const char *p;
    size_t n;
    uint32_t line, col;
} xlarun__jtok;

typedef struct xlarun__jlex {
    const char *s;
    size_t n;
    xlarun__jtok *toks;
    size_t n_toks, cap_toks;
    xlarun__jmem *mem;
    xlarun_error *err;
} xlarun__jlex;

static void xlarun__jpos(const char *s, const char *p, uint32_t *line, uint32_t *col) {
    size_t l = 1, c = 1;
    const char *q;
    for (q = s; q < p; q++) {
        if (*q == '\n') { l++; c = 1; }
        else if ((*q & 0xC0) != 0x80) c++;
    }
    *line = XLARUN__CAST(uint32_t, l > 0xFFFFFFFFu ? 0xFFFFFFFFu : l);
    *col = XLARUN__CAST(uint32_t, c > 0xFFFFFFFFu ? 0xFFFFFFFFu : c);
}

static xlarun_status xlarun__jsyntax(xlarun_error *err, const char *s, const char *at, const char *fmt, const char *what) {
    uint32_t line, col;
    xlarun__jpos(s, at, &line, &col);
    return xlarun__fail(err, XLARUN_ERR_FORMAT, "chat template line %u column %u: %s%s", XLARUN__CAST(unsigned, line),
                        XLARUN__CAST(unsigned, col), fmt, what ? what : "");
}

static xlarun_status xlarun__jemit(xlarun__jlex *L, int kind, int op, const char *p, size_t n) {
    xlarun__jtok *t;
    if (L->n_toks == L->cap_toks) {
        size_t nc = L->cap_toks ? L->cap_toks * 2 : 256;
        xlarun__jtok *q = XLARUN__CAST(xlarun__jtok *, xlarun__jgrow(L->mem, L->toks, L->cap_toks * sizeof *q, nc * sizeof *q));
        if (!q) return xlarun__fail(L->err, XLARUN_ERR_MEMORY, "chat template: out of memory");
        L->toks = q;
        L->cap_toks = nc;
    }
    t = &L->toks[L->n_toks++];
    t->kind = kind; t->op = op; t->p = p; t->n = n;
    t->line = 0; t->col = 0;
    return XLARUN_OK;
}

/* Unicode whitespace before s+n, back to at least s: the start of the run */
static size_t xlarun__jrstrip(const char *s, size_t n) {
    while (n > 0) {
        size_t k = n - 1, i;
        while (k > 0 && (XLARUN__CAST(unsigned char, s[k]) & 0xC0) == 0x80) k--;
        i = k;
        if (!xlarun__jspace(xlarun__jcp(s, n, &i))) break;
        n = k;
    }
    return n;
}
static size_t xlarun__jlstrip(const char *s, size_t n, size_t i) {
    while (i < n) {
        size_t k = i;
        if (!xlarun__jspace(xlarun__jcp(s, n, &k))) break;
        i = k;
    }
    return i;
}

/* the data before a tag, with the tag's whitespace control applied; sign is '-', '+' or 0 */
static xlarun_status xlarun__jdata(xlarun__jlex *L, size_t from, size_t to, int sign, int lstrip, int line_starting) {
    const char *t = L->s + from;
    size_t n = to - from;
    if (sign == '-') n = xlarun__jrstrip(t, n);
    else if (sign != '+' && lstrip) {
        size_t l = n;
        while (l > 0 && t[l - 1] != '\n') l--;
        if ((l > 0 || line_starting) && l < n && xlarun__jlstrip(t, n, l) == n) n = l;
    }
    return n ? xlarun__jemit(L, JK_DATA, 0, t, n) : XLARUN_OK;
}

/* the end of a block or comment tag at i ("+%}", "-%}" then whitespace, "%}" then one newline) */
static size_t xlarun__jtag_end(const xlarun__jlex *L, size_t i, char close) {
    const char *s = L->s;
    if (s[i] == '+') return i + 3;
    if (s[i] == '-') return xlarun__jlstrip(s, L->n, i + 3);
    i += 2;
    if (close != '}' && i < L->n && s[i] == '\n') i++;
    return i;
}

static int xlarun__jat_end(const xlarun__jlex *L, size_t i, char close) {
    const char *s = L->s;
    size_t n = L->n;
    if (i + 1 < n && s[i] == close && s[i + 1] == '}') return 1;
    if (i + 2 < n && (s[i] == '-' || (s[i] == '+' && close == '%')) && s[i + 1] == close && s[i + 2] == '}') return 1;
    return 0;
}

static int xlarun__jname_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int xlarun__jdigit(char c) { return c >= '0' && c <= '9'; }

/* digits with single underscores between them, from i; returns the end (== i if none) */
static size_t xlarun__jdigits(const char *s, size_t n, size_t i) {
    size_t j = i;
    if (j >= n || !xlarun__jdigit(s[j])) return i;
    while (j < n && xlarun__jdigit(s[j])) {
        j++;
        if (j + 1 < n && s[j] == '_' && xlarun__jdigit(s[j + 1])) j++;
    }
    return j;
}

/* the tokens inside {{ }} or {% %} from i; returns the index after the tag's end */
static xlarun_status xlarun__jlex_tag(xlarun__jlex *L, size_t i, char close, size_t *end, int *ended_nl) {
    const char *s = L->s;
    size_t n = L->n, depth = 0;
    while (1) {
        size_t j;
        if (i >= n) return xlarun__jsyntax(L->err, s, s + n, "unexpected end of template, expected the end of the tag", NULL);
        if (!depth && xlarun__jat_end(L, i, close)) {
            size_t e = xlarun__jtag_end(L, i, close);
            XLARUN__TRY(xlarun__jemit(L, close == '}' ? JK_VAR_END : JK_BLOCK_END, 0, s + i, e - i));
            *ended_nl = e > 0 && s[e - 1] == '\n';
            *end = e;
            return XLARUN_OK;
        }
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v') { i++; continue; }
        j = xlarun__jdigits(s, n, i);
        if (j > i) { /* a number: float (digits '.' digits, or an exponent) or int */
            size_t k = j;
            int is_float = 0;
            if (k + 1 < n && s[k] == '.' && xlarun__jdigit(s[k + 1])) { k = xlarun__jdigits(s, n, k + 1); is_float = 1; }
            if (k < n && (s[k] == 'e' || s[k] == 'E')) {
                size_t m = k + 1, e2;
                if (m < n && (s[m] == '+' || s[m] == '-')) m++;
                e2 = xlarun__jdigits(s, n, m);
                if (e2 > m) { k = e2; is_float = 1; }
            }
            XLARUN__TRY(xlarun__jemit(L, is_float ? JK_FLOAT : JK_INT, 0, s + i, k - i));
            i = k;
            continue;
        }
        if (xlarun__jname_start(s[i])) {
            j = i;
            while (j < n && (xlarun__jname_start(s[j]) || xlarun__jdigit(s[j]))) j++;
            XLARUN__TRY(xlarun__jemit(L, JK_NAME, 0, s + i, j - i));
            i = j;
            continue;
        }
        if (s[i] == '\'' || s[i] == '"') {
            char q = s[i];
            j = i + 1;
            while (j < n && s[j] != q) j += s[j] == '\\' && j + 1 < n ? 2 : 1;
            if (j >= n) return xlarun__jsyntax(L->err, s, s + i, "unterminated string", NULL);
            XLARUN__TRY(xlarun__jemit(L, JK_STR, 0, s + i, j + 1 - i));
            i = j + 1;
            continue;
        }
        { /* operators, the longest first */
            static const int order[] = {JO_FLOORDIV, JO_POW, JO_EQ, JO_NE, JO_GE, JO_LE, JO_ADD, JO_SUB, JO_DIV, JO_MUL, JO_MOD,
                                        JO_TILDE, JO_LBRACKET, JO_RBRACKET, JO_LPAREN, JO_RPAREN, JO_LBRACE, JO_RBRACE,
                                        JO_GT, JO_LT, JO_ASSIGN, JO_DOT, JO_COLON, JO_PIPE, JO_COMMA, JO_SEMICOLON};
            size_t k, len = 0;
            int op = 0;
            for (k = 0; k < sizeof order / sizeof order[0]; k++) {
                const char *o = xlarun__jops[order[k]];
                size_t ol = strlen(o);
                if (i + ol <= n && !memcmp(s + i, o, ol)) { op = order[k]; len = ol; break; }
            }
            if (!op) {
                char what[8];
                snprintf(what, sizeof what, "'%c'", s[i]);
                return xlarun__jsyntax(L->err, s, s + i, "unexpected character ", what);
            }
            if (op == JO_LPAREN || op == JO_LBRACKET || op == JO_LBRACE) depth++;
            if (op == JO_RPAREN || op == JO_RBRACKET || op == JO_RBRACE) {
                if (!depth) return xlarun__jsyntax(L->err, s, s + i, "unexpected ", xlarun__jops[op]);
                depth--;
            }
            XLARUN__TRY(xlarun__jemit(L, JK_OP, op, s + i, len));
            i += len;
        }
    }
}

/* "{% raw %}" (with its whitespace control) at i? its end */
static size_t xlarun__jraw_begin(const xlarun__jlex *L, size_t i, const char *word) {
    const char *s = L->s;
    size_t n = L->n, wl = strlen(word);
    i += 2;
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    if (i + wl > n || memcmp(s + i, word, wl)) return 0;
    i += wl;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    if (i + 2 < n && s[i] == '-' && s[i + 1] == '%' && s[i + 2] == '}') return xlarun__jlstrip(s, n, i + 3);
    if (i + 1 < n && s[i] == '%' && s[i + 1] == '}') return i + 2;
    if (word[0] == 'e' && i + 2 < n && s[i] == '+' && s[i + 1] == '%' && s[i + 2] == '}') return i + 3;
    return 0;
}

static xlarun_status xlarun__jlex_all(xlarun__jlex *L) {
    const char *s = L->s;
    size_t n = L->n, i = 0;
    int line_starting = 1;
    while (i < n) {
        size_t t = i, e;
        char kind, sign;
        while (t + 1 < n && !(s[t] == '{' && (s[t + 1] == '{' || s[t + 1] == '%' || s[t + 1] == '#'))) t++;
        if (t + 1 >= n) { XLARUN__TRY(xlarun__jemit(L, JK_DATA, 0, s + i, n - i)); break; }
        kind = s[t + 1];
        sign = t + 2 < n && (s[t + 2] == '-' || s[t + 2] == '+') ? s[t + 2] : 0;
        if (kind == '%' && (e = xlarun__jraw_begin(L, t, "raw")) != 0) {
            size_t k = e, f = 0;
            XLARUN__TRY(xlarun__jdata(L, i, t, sign, 1, line_starting));
            for (; k + 1 < n; k++)
                if (s[k] == '{' && s[k + 1] == '%' && (f = xlarun__jraw_begin(L, k, "endraw")) != 0) break;
            if (!f) return xlarun__jsyntax(L->err, s, s + t, "missing end of raw directive", NULL);
            if (s[f - 1] == '}' && s[f - 3] != '-' && s[f - 3] != '+' && f < n && s[f] == '\n') f++; /* trim_blocks */
            XLARUN__TRY(xlarun__jdata(L, e, k, k + 2 < n && (s[k + 2] == '-' || s[k + 2] == '+') ? s[k + 2] : 0, 1, 0));
            line_starting = s[f - 1] == '\n';
            i = f;
            continue;
        }
        XLARUN__TRY(xlarun__jdata(L, i, t, sign, kind != '{', line_starting));
        if (kind == '#') {
            size_t k = t + 2;
            for (; k + 1 < n; k++) {
                if ((s[k] == '+' || s[k] == '-') && k + 2 < n && s[k + 1] == '#' && s[k + 2] == '}') break;
                if (s[k] == '#' && s[k + 1] == '}') break;
            }
            if (k + 1 >= n) return xlarun__jsyntax(L->err, s, s + t, "missing end of comment tag", NULL);
            e = xlarun__jtag_end(L, k, '#');
            line_starting = s[e - 1] == '\n';
            i = e;
            continue;
        }
        XLARUN__TRY(xlarun__jemit(L, kind == '{' ? JK_VAR : JK_BLOCK, 0, s + t, sign ? 3 : 2));
        {
            int nl = 0;
            XLARUN__TRY(xlarun__jlex_tag(L, t + (sign ? 3 : 2), kind == '{' ? '}' : '%', &e, &nl));
            line_starting = nl;
        }
        i = e;
    }
    XLARUN__TRY(xlarun__jemit(L, JK_EOF, 0, s + n, 0));
    { /* line and column of every token, in one pass */
        size_t k;
        uint32_t line = 1, col = 1;
        const char *q = s;
        for (k = 0; k < L->n_toks; k++) {
            for (; q < L->toks[k].p; q++) {
                if (*q == '\n') { line++; col = 1; }
                else if ((*q & 0xC0) != 0x80) col++;
            }
            L->toks[k].line = line;
            L->toks[k].col = col;
        }
    }
    return XLARUN_OK;
}

/* ---- the parser: jinja2's grammar into a tree ------------------------------------------------- */
enum {
    /* statements */
    JN_DATA = 1, JN_OUT, JN_IF, JN_FOR, JN_SET, JN_SETBLOCK, JN_MACRO, JN_CALLBLOCK, JN_FILTERBLOCK,
    JN_BREAK, JN_CONTINUE, JN_BODY, JN_WITH,
    /* expressions */
    JN_LIT, JN_NAME, JN_ATTR, JN_ITEM, JN_SLICE, JN_CALL, JN_FILTER, JN_TEST, JN_BIN, JN_NEG, JN_POS,
    JN_NOT, JN_AND, JN_OR, JN_CMP, JN_COND, JN_LIST, JN_TUPLE, JN_DICT, JN_PAIR, JN_KWARG, JN_CONCAT, JN_PARAM,
    JN_STAR
};

typedef struct xlarun__jnode {
    int kind, op;               /* JN_BIN, JN_PAIR in a JN_CMP: the operator; JN_TEST: 1 if negated */
    uint32_t line, col;
    struct xlarun__jnode *a, *b, *c, *d, *e, *next;
    const char *s;              /* names, data, decoded string literals */
    size_t n;
    xlarun__jv lit;
} xlarun__jnode;

typedef struct xlarun__jparse {
    const xlarun__jtok *t;      /* the current token */
    const char *src;
    xlarun__jmem *mem;
    xlarun_error *err;
    size_t depth;
} xlarun__jparse;

/* the filters and tests xlarun runs; the rest of jinja2's are refused at load. A name jinja2 does not
   know either is refused at load too, except inside an if or a conditional expression, where jinja2
   fails only if it runs (so does xlarun). */
static const char *const xlarun__jfilter_names[] = {
    "abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e", "escape", "first", "float",
    "forceescape", "format", "indent", "int", "items", "join", "last", "length", "list", "lower", "map", "max", "min",
    "reject", "rejectattr", "replace", "reverse", "round", "safe", "select", "selectattr", "sort", "string", "sum", "title",
    "tojson", "trim", "truncate", "unique", "upper", "wordcount", NULL};
static const char *const xlarun__jfilter_jinja_only[] = {
    "filesizeformat", "groupby", "pprint", "random", "slice", "striptags", "urlencode", "urlize", "wordwrap",
    "xmlattr", NULL};
static const char *const xlarun__jtest_names[] = {
    "boolean", "callable", "defined", "divisibleby", "eq", "equalto", "escaped", "even", "false", "float", "ge",
    "greaterthan", "gt", "in", "integer", "iterable", "le", "lessthan", "lower", "lt", "mapping", "ne", "none", "number",
    "odd", "sameas", "sequence", "string", "true", "undefined", "upper", NULL};
static const char *const xlarun__jtest_jinja_only[] = {"filter", "test", NULL};

static int xlarun__jname_in(const char *s, size_t n, const char *const *names);

/* a filter or test name at t: known, or refused as jinja2 would (see above) */
static xlarun_status xlarun__jcheck_name(struct xlarun__jparse *P, const xlarun__jtok *t, int filter);

static xlarun_status xlarun__jperr(xlarun__jparse *P, const xlarun__jtok *t, const char *msg, const char *what) {
    return xlarun__fail(P->err, XLARUN_ERR_FORMAT, "chat template line %u column %u: %s%s", XLARUN__CAST(unsigned, t->line),
                        XLARUN__CAST(unsigned, t->col), msg, what ? what : "");
}

static xlarun_status xlarun__jcheck_name(xlarun__jparse *P, const xlarun__jtok *t, int filter) {
    char what[80];
    if (xlarun__jname_in(t->p, t->n, filter ? xlarun__jfilter_names : xlarun__jtest_names)) return XLARUN_OK;
    snprintf(what, sizeof what, "'%.*s'", XLARUN__CAST(int, t->n > 60 ? 60 : t->n), t->p);
    if (xlarun__jname_in(t->p, t->n, filter ? xlarun__jfilter_jinja_only : xlarun__jtest_jinja_only))
        return xlarun__jperr(P, t, filter ? "xlarun does not run the filter " : "xlarun does not run the test ", what);
    return XLARUN_OK; /* unknown to jinja2 as well: xlarun__jcheck_tree decides */
}

/* after parsing: a filter or test jinja2 does not know fails the template, unless it sits inside an
   if or a conditional expression (where jinja2 fails only when it runs) */
static xlarun_status xlarun__jcheck_tree(xlarun__jparse *P, const struct xlarun__jnode *x, int soft);

static xlarun_status xlarun__jnew(xlarun__jparse *P, int kind, const xlarun__jtok *at, xlarun__jnode **out) {
    xlarun__jnode *x = XLARUN__CAST(xlarun__jnode *, xlarun__jalloc(P->mem, sizeof *x));
    if (!x) return xlarun__fail(P->err, XLARUN_ERR_MEMORY, "chat template: out of memory");
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->line = at->line;
    x->col = at->col;
    *out = x;
    return XLARUN_OK;
}

static int xlarun__jis_op(const xlarun__jparse *P, int op) { return P->t->kind == JK_OP && P->t->op == op; }
static int xlarun__jis_name(const xlarun__jparse *P, const char *w) {
    size_t n = strlen(w);
    return P->t->kind == JK_NAME && P->t->n == n && !memcmp(P->t->p, w, n);
}
static int xlarun__jtok_is(const xlarun__jtok *t, const char *w) {
    size_t n = strlen(w);
    return t->kind == JK_NAME && t->n == n && !memcmp(t->p, w, n);
}

static const char *xlarun__jdescribe(const xlarun__jtok *t, char *buf, size_t cap) {
    switch (t->kind) {
    case JK_EOF: return "the end of the template";
    case JK_DATA: return "text";
    case JK_VAR: return "'{{'";
    case JK_VAR_END: return "'}}'";
    case JK_BLOCK: return "'{%'";
    case JK_BLOCK_END: return "'%}'";
    default:
        snprintf(buf, cap, "'%.*s'", XLARUN__CAST(int, t->n > 40 ? 40 : t->n), t->p);
        return buf;
    }
}

static xlarun_status xlarun__jexpect_op(xlarun__jparse *P, int op) {
    char b[64], m[96];
    if (xlarun__jis_op(P, op)) { P->t++; return XLARUN_OK; }
    snprintf(m, sizeof m, "expected '%s', found ", xlarun__jops[op]);
    return xlarun__jperr(P, P->t, m, xlarun__jdescribe(P->t, b, sizeof b));
}

static xlarun_status xlarun__jexpect_name(xlarun__jparse *P, const xlarun__jtok **name) {
    char b[64];
    if (P->t->kind != JK_NAME) return xlarun__jperr(P, P->t, "expected a name, found ", xlarun__jdescribe(P->t, b, sizeof b));
    *name = P->t++;
    return XLARUN_OK;
}

/* a string literal as jinja2 reads it: Python's backslash escapes (unicode-escape) */
static xlarun_status xlarun__jstring_lit(xlarun__jparse *P, const xlarun__jtok *t, const char **out, size_t *len) {
    const char *s = t->p + 1;
    size_t n = t->n - 2, i = 0, o = 0;
    char *d = XLARUN__CAST(char *, xlarun__jalloc(P->mem, n + 1));
    if (!d) return xlarun__fail(P->err, XLARUN_ERR_MEMORY, "chat template: out of memory");
    while (i < n) {
        unsigned cp;
        char c = s[i];
        if (c != '\\' || i + 1 >= n) { d[o++] = c; i++; continue; }
        c = s[i + 1];
        i += 2;
        switch (c) {
        case 'n': d[o++] = '\n'; break;
        case 't': d[o++] = '\t'; break;
        case 'r': d[o++] = '\r'; break;
        case '\\': d[o++] = '\\'; break;
        case '\'': d[o++] = '\''; break;
        case '"': d[o++] = '"'; break;
        case 'a': d[o++] = '\a'; break;
        case 'b': d[o++] = '\b'; break;
        case 'f': d[o++] = '\f'; break;
        case 'v': d[o++] = '\v'; break;
        case '\n': break; /* a line continuation */
        case 'x': case 'u': case 'U': {
            size_t k, w = c == 'x' ? 2 : c == 'u' ? 4 : 8;
            cp = 0;
            for (k = 0; k < w; k++) {
                char h = i + k < n ? s[i + k] : 0;
                int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (v < 0) return xlarun__jperr(P, t, "bad escape in a string literal", NULL);
                cp = cp * 16 + XLARUN__CAST(unsigned, v);
            }
            i += w;
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                return xlarun__jperr(P, t, "a string literal escape that is not a Unicode scalar value", NULL);
            o += xlarun__jenc(cp, d + o); /* at most 4 bytes from 4+ source bytes */
            break;
        }
        default:
            if (c >= '0' && c <= '7') { /* octal, up to three digits */
                cp = XLARUN__CAST(unsigned, c - '0');
                if (i < n && s[i] >= '0' && s[i] <= '7') { cp = cp * 8 + XLARUN__CAST(unsigned, s[i++] - '0');
                    if (i < n && s[i] >= '0' && s[i] <= '7') cp = cp * 8 + XLARUN__CAST(unsigned, s[i++] - '0'); }
                o += xlarun__jenc(cp, d + o);
            } else if (c == 'N') return xlarun__jperr(P, t, "\\N{...} escapes are not supported", NULL);
            else { d[o++] = '\\'; d[o++] = c; } /* unknown escapes stay as written */
        }
    }
    d[o] = 0;
    *out = d;
    *len = o;
    return XLARUN_OK;
}

static xlarun_status xlarun__jexpr(xlarun__jparse *P, xlarun__jnode **out);
static xlarun_status xlarun__jor(xlarun__jparse *P, xlarun__jnode **out);
static xlarun_status xlarun__junary(xlarun__jparse *P, int with_filter, xlarun__jnode **out);
static xlarun_status xlarun__jpostfix(xlarun__jparse *P, xlarun__jnode **x);

static xlarun_status xlarun__jdeeper(xlarun__jparse *P) {
    if (++P->depth > XLARUN_JINJA_MAX_DEPTH)
        return xlarun__jperr(P, P->t, "nested too deeply (the limit is " "96" " levels)", NULL);
    return XLARUN_OK;
}

/* call arguments after '(' up to ')': positional ones, then name=value */
static xlarun_status xlarun__jargs(xlarun__jparse *P, xlarun__jnode **first) {
    xlarun__jnode **tail = first;
    *first = NULL;
    while (!xlarun__jis_op(P, JO_RPAREN)) {
        xlarun__jnode *x = NULL;
        if (*first) XLARUN__TRY(xlarun__jexpect_op(P, JO_COMMA));
        if (xlarun__jis_op(P, JO_RPAREN)) break;
        if (xlarun__jis_op(P, JO_MUL) || xlarun__jis_op(P, JO_POW)) { /* *seq, **mapping */
            int op = P->t->op;
            XLARUN__TRY(xlarun__jnew(P, JN_STAR, P->t, &x));
            x->op = op;
            P->t++;
            XLARUN__TRY(xlarun__jexpr(P, &x->a));
        } else if (P->t->kind == JK_NAME && P->t[1].kind == JK_OP && P->t[1].op == JO_ASSIGN) {
            XLARUN__TRY(xlarun__jnew(P, JN_KWARG, P->t, &x));
            x->s = P->t->p; x->n = P->t->n;
            P->t += 2;
            XLARUN__TRY(xlarun__jexpr(P, &x->a));
        } else {
            const xlarun__jnode *k;
            for (k = *first; k; k = k->next)
                if (k->kind == JN_KWARG || (k->kind == JN_STAR && k->op == JO_POW)) return xlarun__jperr(P, P->t, "a positional argument follows a keyword argument", NULL);
            XLARUN__TRY(xlarun__jexpr(P, &x));
        }
        if (!x) return xlarun__jperr(P, P->t, "expected an expression", NULL);
        *tail = x;
        tail = &x->next;
    }
    P->t++;
    return XLARUN_OK;
}

/* a tuple of expressions with optional parentheses: 'a, b' (for targets and set), or one value */
static xlarun_status xlarun__jtuple(xlarun__jparse *P, int simple, int allow_cond, xlarun__jnode **out) {
    xlarun__jnode *first = NULL, **tail = &first, *x = NULL;
    const xlarun__jtok *at = P->t;
    int comma = 0;
    while (1) {
        if (first) {
            if (!xlarun__jis_op(P, JO_COMMA)) break;
            P->t++;
            comma = 1;
            if (P->t->kind == JK_BLOCK_END || P->t->kind == JK_VAR_END || xlarun__jis_op(P, JO_ASSIGN) ||
                xlarun__jis_name(P, "in") || xlarun__jis_op(P, JO_RPAREN))
                break;
        }
        if (simple) {
            const xlarun__jtok *nm = NULL;
            XLARUN__TRY(xlarun__jexpect_name(P, &nm));
            XLARUN__TRY(xlarun__jnew(P, JN_NAME, nm, &x));
            x->s = nm->p; x->n = nm->n;
            if (xlarun__jis_op(P, JO_DOT)) { /* ns.attr as a set target */
                xlarun__jnode *y = NULL;
                const xlarun__jtok *an = NULL;
                P->t++;
                XLARUN__TRY(xlarun__jexpect_name(P, &an));
                XLARUN__TRY(xlarun__jnew(P, JN_ATTR, an, &y));
                y->a = x; y->s = an->p; y->n = an->n;
                x = y;
            }
        } else if (allow_cond) XLARUN__TRY(xlarun__jexpr(P, &x));
        else XLARUN__TRY(xlarun__jor(P, &x));
        if (!x) return xlarun__jperr(P, P->t, "expected an expression", NULL);
        *tail = x;
        tail = &x->next;
    }
    if (!comma) { *out = first; return XLARUN_OK; }
    XLARUN__TRY(xlarun__jnew(P, JN_TUPLE, at, &x));
    x->a = first;
    *out = x;
    return XLARUN_OK;
}

static xlarun_status xlarun__jprimary(xlarun__jparse *P, xlarun__jnode **out) {
    const xlarun__jtok *t = P->t;
    xlarun__jnode *x = NULL;
    char b[64];
    if (t->kind == JK_NAME) {
        P->t++;
        if (xlarun__jtok_is(t, "true") || xlarun__jtok_is(t, "True") || xlarun__jtok_is(t, "false") || xlarun__jtok_is(t, "False")) {
            XLARUN__TRY(xlarun__jnew(P, JN_LIT, t, &x));
            x->lit = xlarun__jbool(t->p[0] == 't' || t->p[0] == 'T');
        } else if (xlarun__jtok_is(t, "none") || xlarun__jtok_is(t, "None")) {
            XLARUN__TRY(xlarun__jnew(P, JN_LIT, t, &x));
            x->lit = xlarun__jmk(XJ_NONE);
        } else {
            XLARUN__TRY(xlarun__jnew(P, JN_NAME, t, &x));
            x->s = t->p; x->n = t->n;
        }
    } else if (t->kind == JK_STR) {
        /* adjacent string literals are joined, as in Python */
        const char *s;
        size_t n;
        XLARUN__TRY(xlarun__jnew(P, JN_LIT, t, &x));
        XLARUN__TRY(xlarun__jstring_lit(P, t, &s, &n));
        P->t++;
        while (P->t->kind == JK_STR) {
            const char *s2;
            size_t n2;
            char *j;
            XLARUN__TRY(xlarun__jstring_lit(P, P->t, &s2, &n2));
            if (!(j = XLARUN__CAST(char *, xlarun__jalloc(P->mem, n + n2 + 1))))
                return xlarun__fail(P->err, XLARUN_ERR_MEMORY, "chat template: out of memory");
            memcpy(j, s, n); memcpy(j + n, s2, n2); j[n + n2] = 0;
            s = j; n += n2;
            P->t++;
        }
        x->lit = xlarun__jstr(s, n);
    } else if (t->kind == JK_INT || t->kind == JK_FLOAT) {
        XLARUN__TRY(xlarun__jnew(P, JN_LIT, t, &x));
        P->t++;
        if (t->kind == JK_FLOAT) x->lit = xlarun__jfloat(xlarun__jstrtod(t->p, t->n));
        else {
            uint64_t v = 0;
            size_t k;
            for (k = 0; k < t->n; k++) {
                if (t->p[k] == '_') continue;
                if (v > (XLARUN__CAST(uint64_t, INT64_MAX) - XLARUN__CAST(uint64_t, t->p[k] - '0')) / 10)
                    return xlarun__jperr(P, t, "an integer literal too large", NULL);
                v = v * 10 + XLARUN__CAST(uint64_t, t->p[k] - '0');
            }
            x->lit = xlarun__jint(XLARUN__CAST(int64_t, v));
        }
    } else if (t->kind == JK_OP && t->op == JO_LPAREN) {
        P->t++;
        if (xlarun__jis_op(P, JO_RPAREN)) { /* () */
            XLARUN__TRY(xlarun__jnew(P, JN_TUPLE, t, &x));
            P->t++;
        } else {
            XLARUN__TRY(xlarun__jdeeper(P));
            XLARUN__TRY(xlarun__jtuple(P, 0, 1, &x));
            P->depth--;
            XLARUN__TRY(xlarun__jexpect_op(P, JO_RPAREN));
        }
    } else if (t->kind == JK_OP && (t->op == JO_LBRACKET || t->op == JO_LBRACE)) {
        int dict = t->op == JO_LBRACE;
        xlarun__jnode **tail;
        P->t++;
        XLARUN__TRY(xlarun__jdeeper(P));
        XLARUN__TRY(xlarun__jnew(P, dict ? JN_DICT : JN_LIST, t, &x));
        tail = &x->a;
        while (!xlarun__jis_op(P, dict ? JO_RBRACE : JO_RBRACKET)) {
            xlarun__jnode *item = NULL;
            if (x->a) {
                XLARUN__TRY(xlarun__jexpect_op(P, JO_COMMA));
                if (xlarun__jis_op(P, dict ? JO_RBRACE : JO_RBRACKET)) break;
            }
            if (dict) {
                XLARUN__TRY(xlarun__jnew(P, JN_PAIR, P->t, &item));
                XLARUN__TRY(xlarun__jexpr(P, &item->a));
                XLARUN__TRY(xlarun__jexpect_op(P, JO_COLON));
                XLARUN__TRY(xlarun__jexpr(P, &item->b));
            } else XLARUN__TRY(xlarun__jexpr(P, &item));
            if (!item) return xlarun__jperr(P, P->t, "expected an expression", NULL);
            *tail = item;
            tail = &item->next;
        }
        P->t++;
        P->depth--;
    } else return xlarun__jperr(P, t, "expected an expression, found ", xlarun__jdescribe(t, b, sizeof b));
    *out = x;
    return xlarun__jpostfix(P, out);
}

/* .name, [index], [a:b:c], (args) */
static xlarun_status xlarun__jpostfix(xlarun__jparse *P, xlarun__jnode **x) {
    while (1) {
        const xlarun__jtok *t = P->t;
        xlarun__jnode *y = NULL;
        if (xlarun__jis_op(P, JO_DOT)) {
            P->t++;
            if (P->t->kind == JK_INT) { /* x.0 is x[0] */
                XLARUN__TRY(xlarun__jnew(P, JN_ITEM, t, &y));
                XLARUN__TRY(xlarun__jprimary(P, &y->b));
            } else {
                const xlarun__jtok *nm = NULL;
                XLARUN__TRY(xlarun__jexpect_name(P, &nm));
                XLARUN__TRY(xlarun__jnew(P, JN_ATTR, nm, &y));
                y->s = nm->p; y->n = nm->n;
            }
            y->a = *x;
        } else if (xlarun__jis_op(P, JO_LBRACKET)) {
            xlarun__jnode *parts[3] = {NULL, NULL, NULL};
            int k = 0, slice = 0;
            P->t++;
            XLARUN__TRY(xlarun__jdeeper(P));
            while (1) {
                if (!xlarun__jis_op(P, JO_COLON) && !xlarun__jis_op(P, JO_RBRACKET)) XLARUN__TRY(xlarun__jexpr(P, &parts[k]));
                if (xlarun__jis_op(P, JO_COLON) && k < 2) { P->t++; k++; slice = 1; continue; }
                break;
            }
            P->depth--;
            XLARUN__TRY(xlarun__jexpect_op(P, JO_RBRACKET));
            if (slice) {
                XLARUN__TRY(xlarun__jnew(P, JN_SLICE, t, &y));
                y->b = parts[0]; y->c = parts[1]; y->d = parts[2];
            } else {
                if (!parts[0]) return xlarun__jperr(P, t, "expected an index", NULL);
                XLARUN__TRY(xlarun__jnew(P, JN_ITEM, t, &y));
                y->b = parts[0];
            }
            y->a = *x;
        } else if (xlarun__jis_op(P, JO_LPAREN)) {
            P->t++;
            XLARUN__TRY(xlarun__jdeeper(P));
            XLARUN__TRY(xlarun__jnew(P, JN_CALL, t, &y));
            y->a = *x;
            XLARUN__TRY(xlarun__jargs(P, &y->b));
            P->depth--;
        } else return XLARUN_OK;
        *x = y;
    }
}

/* | filter(args) and 'is [not] test' chains after a value */
static xlarun_status xlarun__jfilters(xlarun__jparse *P, xlarun__jnode **x) {
    while (1) {
        xlarun__jnode *y = NULL;
        if (xlarun__jis_op(P, JO_PIPE)) {
            const xlarun__jtok *nm = NULL;
            P->t++;
            XLARUN__TRY(xlarun__jexpect_name(P, &nm));
            XLARUN__TRY(xlarun__jcheck_name(P, nm, 1));
            XLARUN__TRY(xlarun__jnew(P, JN_FILTER, nm, &y));
            y->s = nm->p; y->n = nm->n;
            if (xlarun__jis_op(P, JO_DOT)) /* dotted filter names are not jinja2's builtins */
                return xlarun__jperr(P, P->t, "dotted filter names are not supported", NULL);
            if (xlarun__jis_op(P, JO_LPAREN)) { P->t++; XLARUN__TRY(xlarun__jargs(P, &y->b)); }
            y->a = *x;
        } else if (xlarun__jis_name(P, "is")) {
            const xlarun__jtok *nm = NULL;
            int neg = 0;
            P->t++;
            if (xlarun__jis_name(P, "not")) { P->t++; neg = 1; }
            XLARUN__TRY(xlarun__jexpect_name(P, &nm));
            XLARUN__TRY(xlarun__jcheck_name(P, nm, 0));
            XLARUN__TRY(xlarun__jnew(P, JN_TEST, nm, &y));
            y->s = nm->p; y->n = nm->n; y->op = neg;
            if (xlarun__jis_op(P, JO_LPAREN)) { P->t++; XLARUN__TRY(xlarun__jargs(P, &y->b)); }
            else if ((P->t->kind == JK_NAME || P->t->kind == JK_STR || P->t->kind == JK_INT || P->t->kind == JK_FLOAT ||
                      xlarun__jis_op(P, JO_LBRACKET) || xlarun__jis_op(P, JO_LBRACE) || xlarun__jis_op(P, JO_LPAREN)) &&
                     !xlarun__jis_name(P, "else") && !xlarun__jis_name(P, "or") && !xlarun__jis_name(P, "and")) {
                xlarun__jnode *arg = NULL;
                if (xlarun__jis_name(P, "is")) return xlarun__jperr(P, P->t, "you cannot chain multiple tests with 'is'", NULL);
                XLARUN__TRY(xlarun__jprimary(P, &arg));
                y->b = arg;
            }
            y->a = *x;
        } else return XLARUN_OK;
        *x = y;
    }
}

static xlarun_status xlarun__junary(xlarun__jparse *P, int with_filter, xlarun__jnode **out) {
    const xlarun__jtok *t = P->t;
    if (xlarun__jis_op(P, JO_SUB) || xlarun__jis_op(P, JO_ADD)) {
        xlarun__jnode *x = NULL;
        P->t++;
        XLARUN__TRY(xlarun__jdeeper(P));
        XLARUN__TRY(xlarun__jnew(P, t->op == JO_SUB ? JN_NEG : JN_POS, t, &x));
        XLARUN__TRY(xlarun__junary(P, 0, &x->a));
        P->depth--;
        *out = x;
    } else XLARUN__TRY(xlarun__jprimary(P, out));
    if (with_filter) XLARUN__TRY(xlarun__jfilters(P, out));
    return XLARUN_OK;
}

static xlarun_status xlarun__jbinary(xlarun__jparse *P, int level, xlarun__jnode **out) {
    /* level 0: + -, 1: ~, 2: * / // %, 3: ** */
    static const int ops[4][4] = {{JO_ADD, JO_SUB, 0, 0}, {JO_TILDE, 0, 0, 0}, {JO_MUL, JO_DIV, JO_FLOORDIV, JO_MOD}, {JO_POW, 0, 0, 0}};
    xlarun__jnode *x = NULL;
    if (level == 4) return xlarun__junary(P, 1, out);
    XLARUN__TRY(xlarun__jbinary(P, level + 1, &x));
    while (1) {
        int k, op = 0;
        xlarun__jnode *y = NULL;
        const xlarun__jtok *t = P->t;
        for (k = 0; k < 4 && ops[level][k]; k++)
            if (xlarun__jis_op(P, ops[level][k])) op = ops[level][k];
        if (!op) break;
        P->t++;
        XLARUN__TRY(xlarun__jnew(P, op == JO_TILDE ? JN_CONCAT : JN_BIN, t, &y));
        y->op = op;
        y->a = x;
        XLARUN__TRY(xlarun__jdeeper(P));
        XLARUN__TRY(xlarun__jbinary(P, level + 1, &y->b));
        P->depth--;
        x = y;
    }
    *out = x;
    return XLARUN_OK;
}

static xlarun_status xlarun__jcompare(xlarun__jparse *P, xlarun__jnode **out) {
    xlarun__jnode *x = NULL, *cmp = NULL, **tail = NULL;
    XLARUN__TRY(xlarun__jbinary(P, 0, &x));
    while (1) {
        int op = 0;
        const xlarun__jtok *t = P->t;
        xlarun__jnode *pr = NULL;
        if (P->t->kind == JK_OP && (P->t->op == JO_EQ || P->t->op == JO_NE || P->t->op == JO_GT || P->t->op == JO_GE ||
                                    P->t->op == JO_LT || P->t->op == JO_LE)) { op = P->t->op; P->t++; }
        else if (xlarun__jis_name(P, "in")) { op = JO_IN; P->t++; }
        else if (xlarun__jis_name(P, "not") && xlarun__jtok_is(P->t + 1, "in")) { op = JO_NOTIN; P->t += 2; }
        else break;
        if (!cmp) {
            XLARUN__TRY(xlarun__jnew(P, JN_CMP, t, &cmp));
            cmp->a = x;
            tail = &cmp->b;
        }
        XLARUN__TRY(xlarun__jnew(P, JN_PAIR, t, &pr));
        pr->op = op;
        XLARUN__TRY(xlarun__jbinary(P, 0, &pr->a));
        *tail = pr;
        tail = &pr->next;
    }
    *out = cmp ? cmp : x;
    return XLARUN_OK;
}

static xlarun_status xlarun__jnot(xlarun__jparse *P, xlarun__jnode **out) {
    if (xlarun__jis_name(P, "not")) {
        xlarun__jnode *x = NULL;
        XLARUN__TRY(xlarun__jnew(P, JN_NOT, P->t, &x));
        P->t++;
        XLARUN__TRY(xlarun__jdeeper(P));
        XLARUN__TRY(xlarun__jnot(P, &x->a));
        P->depth--;
        *out = x;
        return XLARUN_OK;
    }
    return xlarun__jcompare(P, out);
}

static xlarun_status xlarun__jand(xlarun__jparse *P, xlarun__jnode **out) {
    xlarun__jnode *x = NULL;
    XLARUN__TRY(xlarun__jnot(P, &x));
    while (xlarun__jis_name(P, "and")) {
        xlarun__jnode *y = NULL;
        XLARUN__TRY(xlarun__jnew(P, JN_AND, P->t, &y));
        P->t++;
        y->a = x;
        XLARUN__TRY(xlarun__jnot(P, &y->b));
        x = y;
    }
    *out = x;
    return XLARUN_OK;
}

static xlarun_status xlarun__jor(xlarun__jparse *P, xlarun__jnode **out) {
    xlarun__jnode *x = NULL;
    XLARUN__TRY(xlarun__jand(P, &x));
    while (xlarun__jis_name(P, "or")) {
        xlarun__jnode *y = NULL;
        XLARUN__TRY(xlarun__jnew(P, JN_OR, P->t, &y));
        P->t++;
        y->a = x;
        XLARUN__TRY(xlarun__jand(P, &y->b));
        x = y;
    }
    *out = x;
    return XLARUN_OK;
}

/* a or b if c else d */
static xlarun_status xlarun__jexpr(xlarun__jparse *P, xlarun__jnode **out) {
    xlarun__jnode *x = NULL;
    XLARUN__TRY(xlarun__jdeeper(P));
    XLARUN__TRY(xlarun__jor(P, &x));
    while (xlarun__jis_name(P, "if")) {
        xlarun__jnode *y = NULL;
        XLARUN__TRY(xlarun__jnew(P, JN_COND, P->t, &y));
        P->t++;
        y->b = x;
        XLARUN__TRY(xlarun__jor(P, &y->a));
        if (xlarun__jis_name(P, "else")) { P->t++; XLARUN__TRY(xlarun__jexpr(P, &y->c)); }
        x = y;
    }
    P->depth--;
    *out = x;
    return XLARUN_OK;
}

/* ---- statements ---- */
static xlarun_status xlarun__jbody(xlarun__jparse *P, const char *const *ends, xlarun__jnode **first);

static xlarun_status xlarun__jblock_end(xlarun__jparse *P) {
    char b[64];
    if (P->t->kind == JK_BLOCK_END) { P->t++; return XLARUN_OK; }
    return xlarun__jperr(P, P->t, "expected the end of the statement block, found ", xlarun__jdescribe(P->t, b, sizeof b));
}

/* after a body: the '{% end... %}' (or else/elif: the caller looks) */
static xlarun_status xlarun__jend(xlarun__jparse *P, const char *word) {
    if (P->t->kind == JK_BLOCK && xlarun__jtok_is(P->t + 1, word)) {
        P->t += 2;
        return xlarun__jblock_end(P);
    }
    return xlarun__jperr(P, P->t, "expected ", word);
}

/* filters for a filter block or a block set: a chain over an empty slot */
static xlarun_status xlarun__jfilter_chain(xlarun__jparse *P, xlarun__jnode **out) {
    xlarun__jnode *x = NULL;
    while (1) {
        const xlarun__jtok *nm = NULL;
        xlarun__jnode *y = NULL;
        XLARUN__TRY(xlarun__jexpect_name(P, &nm));
        XLARUN__TRY(xlarun__jcheck_name(P, nm, 1));
        XLARUN__TRY(xlarun__jnew(P, JN_FILTER, nm, &y));
        y->s = nm->p; y->n = nm->n;
        y->a = x;
        if (xlarun__jis_op(P, JO_LPAREN)) { P->t++; XLARUN__TRY(xlarun__jargs(P, &y->b)); }
        x = y;
        if (!xlarun__jis_op(P, JO_PIPE)) break;
        P->t++;
    }
    *out = x;
    return XLARUN_OK;
}

/* macro and call-block parameters: (a, b=default, ...) */
static xlarun_status xlarun__jparams(xlarun__jparse *P, xlarun__jnode **first) {
    xlarun__jnode **tail = first;
    *first = NULL;
    XLARUN__TRY(xlarun__jexpect_op(P, JO_LPAREN));
    while (!xlarun__jis_op(P, JO_RPAREN)) {
        const xlarun__jtok *nm = NULL;
        xlarun__jnode *x = NULL;
        if (*first) XLARUN__TRY(xlarun__jexpect_op(P, JO_COMMA));
        XLARUN__TRY(xlarun__jexpect_name(P, &nm));
        XLARUN__TRY(xlarun__jnew(P, JN_PARAM, nm, &x));
        x->s = nm->p; x->n = nm->n;
        if (xlarun__jis_op(P, JO_ASSIGN)) { P->t++; XLARUN__TRY(xlarun__jexpr(P, &x->a)); }
        if (!x) return xlarun__jperr(P, P->t, "expected an expression", NULL);
        *tail = x;
        tail = &x->next;
    }
    P->t++;
    return XLARUN_OK;
}

static xlarun_status xlarun__jstatement(xlarun__jparse *P, xlarun__jnode **out) {
    const xlarun__jtok *kw = P->t;
    xlarun__jnode *x = NULL;
    char b[64];
    if (kw->kind != JK_NAME) return xlarun__jperr(P, kw, "expected a statement name, found ", xlarun__jdescribe(kw, b, sizeof b));
    P->t++;
    XLARUN__TRY(xlarun__jdeeper(P));
    if (xlarun__jtok_is(kw, "if")) {
        static const char *const ends[] = {"elif", "else", "endif", NULL};
        xlarun__jnode *cur;
        XLARUN__TRY(xlarun__jnew(P, JN_IF, kw, &x));
        XLARUN__TRY(xlarun__jtuple(P, 0, 1, &x->a));
        XLARUN__TRY(xlarun__jblock_end(P));
        XLARUN__TRY(xlarun__jbody(P, ends, &x->c));
        cur = x;
        while (1) {
            const xlarun__jtok *w = P->t + 1;
            P->t += 2;
            if (xlarun__jtok_is(w, "elif")) {
                xlarun__jnode *y = NULL;
                XLARUN__TRY(xlarun__jnew(P, JN_IF, w, &y));
                XLARUN__TRY(xlarun__jtuple(P, 0, 1, &y->a));
                XLARUN__TRY(xlarun__jblock_end(P));
                XLARUN__TRY(xlarun__jbody(P, ends, &y->c));
                cur->e = y;
                cur = y;
            } else if (xlarun__jtok_is(w, "else")) {
                static const char *const end_only[] = {"endif", NULL};
                XLARUN__TRY(xlarun__jblock_end(P));
                XLARUN__TRY(xlarun__jbody(P, end_only, &cur->d));
                XLARUN__TRY(xlarun__jend(P, "endif"));
                break;
            } else { XLARUN__TRY(xlarun__jblock_end(P)); break; }
        }
    } else if (xlarun__jtok_is(kw, "for")) {
        static const char *const ends[] = {"else", "endfor", NULL};
        static const char *const end_only[] = {"endfor", NULL};
        XLARUN__TRY(xlarun__jnew(P, JN_FOR, kw, &x));
        XLARUN__TRY(xlarun__jtuple(P, 1, 0, &x->a));
        if (!xlarun__jis_name(P, "in")) return xlarun__jperr(P, P->t, "expected 'in' in a for loop", NULL);
        P->t++;
        XLARUN__TRY(xlarun__jtuple(P, 0, 0, &x->b));
        if (xlarun__jis_name(P, "if")) { P->t++; XLARUN__TRY(xlarun__jexpr(P, &x->e)); }
        if (xlarun__jis_name(P, "recursive")) return xlarun__jperr(P, P->t, "recursive for loops are not supported", NULL);
        XLARUN__TRY(xlarun__jblock_end(P));
        XLARUN__TRY(xlarun__jbody(P, ends, &x->c));
        if (xlarun__jtok_is(P->t + 1, "else")) {
            P->t += 2;
            XLARUN__TRY(xlarun__jblock_end(P));
            XLARUN__TRY(xlarun__jbody(P, end_only, &x->d));
        }
        XLARUN__TRY(xlarun__jend(P, "endfor"));
    } else if (xlarun__jtok_is(kw, "set")) {
        xlarun__jnode *target;
        XLARUN__TRY(xlarun__jtuple(P, 1, 0, &target));
        if (xlarun__jis_op(P, JO_ASSIGN)) {
            XLARUN__TRY(xlarun__jnew(P, JN_SET, kw, &x));
            x->a = target;
            P->t++;
            XLARUN__TRY(xlarun__jtuple(P, 0, 1, &x->b));
            XLARUN__TRY(xlarun__jblock_end(P));
        } else {
            static const char *const ends[] = {"endset", NULL};
            XLARUN__TRY(xlarun__jnew(P, JN_SETBLOCK, kw, &x));
            x->a = target;
            if (xlarun__jis_op(P, JO_PIPE)) { P->t++; XLARUN__TRY(xlarun__jfilter_chain(P, &x->d)); }
            XLARUN__TRY(xlarun__jblock_end(P));
            XLARUN__TRY(xlarun__jbody(P, ends, &x->c));
            XLARUN__TRY(xlarun__jend(P, "endset"));
        }
    } else if (xlarun__jtok_is(kw, "macro")) {
        static const char *const ends[] = {"endmacro", NULL};
        const xlarun__jtok *nm = NULL;
        XLARUN__TRY(xlarun__jnew(P, JN_MACRO, kw, &x));
        XLARUN__TRY(xlarun__jexpect_name(P, &nm));
        x->s = nm->p; x->n = nm->n;
        XLARUN__TRY(xlarun__jparams(P, &x->a));
        XLARUN__TRY(xlarun__jblock_end(P));
        XLARUN__TRY(xlarun__jbody(P, ends, &x->c));
        XLARUN__TRY(xlarun__jend(P, "endmacro"));
    } else if (xlarun__jtok_is(kw, "call")) {
        static const char *const ends[] = {"endcall", NULL};
        XLARUN__TRY(xlarun__jnew(P, JN_CALLBLOCK, kw, &x));
        if (xlarun__jis_op(P, JO_LPAREN)) XLARUN__TRY(xlarun__jparams(P, &x->b));
        XLARUN__TRY(xlarun__jexpr(P, &x->a));
        if (x->a->kind != JN_CALL) return xlarun__jperr(P, kw, "expected a call after 'call'", NULL);
        XLARUN__TRY(xlarun__jblock_end(P));
        XLARUN__TRY(xlarun__jbody(P, ends, &x->c));
        XLARUN__TRY(xlarun__jend(P, "endcall"));
    } else if (xlarun__jtok_is(kw, "filter")) {
        static const char *const ends[] = {"endfilter", NULL};
        XLARUN__TRY(xlarun__jnew(P, JN_FILTERBLOCK, kw, &x));
        XLARUN__TRY(xlarun__jfilter_chain(P, &x->d));
        XLARUN__TRY(xlarun__jblock_end(P));
        XLARUN__TRY(xlarun__jbody(P, ends, &x->c));
        XLARUN__TRY(xlarun__jend(P, "endfilter"));
    } else if (xlarun__jtok_is(kw, "generation")) { /* transformers' AssistantTracker: the body as it is */
        static const char *const ends[] = {"endgeneration", NULL};
        XLARUN__TRY(xlarun__jnew(P, JN_BODY, kw, &x));
        XLARUN__TRY(xlarun__jblock_end(P));
        XLARUN__TRY(xlarun__jbody(P, ends, &x->c));
        XLARUN__TRY(xlarun__jend(P, "endgeneration"));
    } else if (xlarun__jtok_is(kw, "with")) {
        static const char *const ends[] = {"endwith", NULL};
        xlarun__jnode **tail;
        XLARUN__TRY(xlarun__jnew(P, JN_WITH, kw, &x));
        tail = &x->a;
        while (P->t->kind != JK_BLOCK_END) {
            xlarun__jnode *pr = NULL;
            if (x->a) XLARUN__TRY(xlarun__jexpect_op(P, JO_COMMA));
            XLARUN__TRY(xlarun__jnew(P, JN_PAIR, P->t, &pr));
            XLARUN__TRY(xlarun__jtuple(P, 1, 0, &pr->a));
            XLARUN__TRY(xlarun__jexpect_op(P, JO_ASSIGN));
            XLARUN__TRY(xlarun__jexpr(P, &pr->b));
            *tail = pr;
            tail = &pr->next;
        }
        XLARUN__TRY(xlarun__jblock_end(P));
        XLARUN__TRY(xlarun__jbody(P, ends, &x->c));
        XLARUN__TRY(xlarun__jend(P, "endwith"));
    } else if (xlarun__jtok_is(kw, "break") || xlarun__jtok_is(kw, "continue")) {
        XLARUN__TRY(xlarun__jnew(P, kw->p[0] == 'b' ? JN_BREAK : JN_CONTINUE, kw, &x));
        XLARUN__TRY(xlarun__jblock_end(P));
    } else if (xlarun__jtok_is(kw, "include") || xlarun__jtok_is(kw, "import") || xlarun__jtok_is(kw, "from") ||
               xlarun__jtok_is(kw, "extends") || xlarun__jtok_is(kw, "block")) {
        return xlarun__jperr(P, kw, "templates that load other templates are not supported: ", xlarun__jdescribe(kw, b, sizeof b));
    } else {
        return xlarun__jperr(P, kw, "encountered unknown tag ", xlarun__jdescribe(kw, b, sizeof b));
    }
    P->depth--;
    *out = x;
    return XLARUN_OK;
}

static xlarun_status xlarun__jcheck_tree(xlarun__jparse *P, const xlarun__jnode *x, int soft) {
    for (; x; x = x->next) {
        int inner = soft;
        if (x->kind == JN_FILTER || x->kind == JN_TEST) {
            if (!soft && !xlarun__jname_in(x->s, x->n, x->kind == JN_FILTER ? xlarun__jfilter_names : xlarun__jtest_names)) {
                char what[80];
                xlarun__jtok t;
                memset(&t, 0, sizeof t);
                t.line = x->line;
                t.col = x->col;
                snprintf(what, sizeof what, "'%.*s'", XLARUN__CAST(int, x->n > 60 ? 60 : x->n), x->s);
                return xlarun__jperr(P, &t, x->kind == JN_FILTER ? "no filter named " : "no test named ", what);
            }
        }
        if (x->kind == JN_IF || x->kind == JN_COND) inner = 1;
        if (x->kind == JN_FOR || x->kind == JN_MACRO || x->kind == JN_CALLBLOCK || x->kind == JN_WITH) inner = 0; /* jinja2's inner frames */
        XLARUN__TRY(xlarun__jcheck_tree(P, x->a, x->kind == JN_FOR ? soft : inner));
        XLARUN__TRY(xlarun__jcheck_tree(P, x->b, x->kind == JN_FOR ? soft : inner));
        XLARUN__TRY(xlarun__jcheck_tree(P, x->c, inner));
        XLARUN__TRY(xlarun__jcheck_tree(P, x->d, inner));
        XLARUN__TRY(xlarun__jcheck_tree(P, x->e, inner));
    }
    return XLARUN_OK;
}

/* statements and text up to a block whose first name is in ends (not consumed), or the end */
static xlarun_status xlarun__jbody(xlarun__jparse *P, const char *const *ends, xlarun__jnode **first) {
    xlarun__jnode **tail = first, *x = NULL;
    *first = NULL;
    while (1) {
        const xlarun__jtok *t = P->t;
        if (t->kind == JK_EOF) {
            if (ends) return xlarun__jperr(P, t, "unexpected end of template, expected ", ends[0]);
            return XLARUN_OK;
        }
        if (t->kind == JK_DATA) {
            XLARUN__TRY(xlarun__jnew(P, JN_DATA, t, &x));
            x->s = t->p; x->n = t->n;
            P->t++;
        } else if (t->kind == JK_VAR) {
            XLARUN__TRY(xlarun__jnew(P, JN_OUT, t, &x));
            P->t++;
            XLARUN__TRY(xlarun__jtuple(P, 0, 1, &x->a));
            if (P->t->kind != JK_VAR_END) {
                char b[64];
                return xlarun__jperr(P, P->t, "expected the end of the print statement, found ", xlarun__jdescribe(P->t, b, sizeof b));
            }
            P->t++;
        } else if (t->kind == JK_BLOCK) {
            size_t k;
            if (ends && t[1].kind == JK_NAME)
                for (k = 0; ends[k]; k++)
                    if (xlarun__jtok_is(t + 1, ends[k])) return XLARUN_OK;
            if (t[1].kind == JK_NAME && t[1].n >= 3 && (!memcmp(t[1].p, "end", 3) || xlarun__jtok_is(t + 1, "else") ||
                                                         xlarun__jtok_is(t + 1, "elif"))) {
                char b[64];
                return xlarun__jperr(P, t + 1, "unexpected ", xlarun__jdescribe(t + 1, b, sizeof b));
            }
            P->t++;
            XLARUN__TRY(xlarun__jstatement(P, &x));
        } else {
            char b[64];
            return xlarun__jperr(P, t, "unexpected ", xlarun__jdescribe(t, b, sizeof b));
        }
        if (!x) return xlarun__jperr(P, P->t, "expected an expression", NULL);
        *tail = x;
        tail = &x->next;
    }
}

/* ---- rendering: state, scopes, errors ---------------------------------------------------------- */
typedef struct xlarun__jframe {
    struct xlarun__jframe *parent;
    xlarun__jmap vars;
} xlarun__jframe;

typedef struct xlarun__jclosure {
    const xlarun__jnode *node;  /* JN_MACRO, or the JN_CALLBLOCK whose body 'caller()' renders */
    xlarun__jframe *frame;      /* where it was defined */
} xlarun__jclosure;

typedef struct xlarun__jrun {
    xlarun__jmem *mem;
    xlarun_error *err;
    uint64_t steps, max_steps;
    size_t calls;
    int64_t now;
    xlarun__jbuf *out;
    int jump;                   /* 1: break, 2: continue pending */
    xlarun__jframe *root;
    xlarun__jframe *frame;      /* the scope names are looked up in */
    size_t max_output;
} xlarun__jrun;

static xlarun_status xlarun__jfail(xlarun__jrun *R, const xlarun__jnode *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static xlarun_status xlarun__jfail(xlarun__jrun *R, const xlarun__jnode *at, const char *fmt, ...) {
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at)
        return xlarun__fail(R->err, XLARUN_ERR_ARGUMENT, "chat template line %u column %u: %s", XLARUN__CAST(unsigned, at->line),
                            XLARUN__CAST(unsigned, at->col), msg);
    return xlarun__fail(R->err, XLARUN_ERR_ARGUMENT, "chat template: %s", msg);
}

static xlarun_status xlarun__joom(xlarun__jrun *R) {
    return xlarun__fail(R->err, XLARUN_ERR_MEMORY, "chat template: the rendering needs more than the %lu bytes of work memory given",
                        XLARUN__CAST(unsigned long, R->mem->cap));
}

static xlarun_status xlarun__jstep(xlarun__jrun *R, const xlarun__jnode *at) {
    if (++R->steps > R->max_steps)
        return xlarun__jfail(R, at, "the rendering took more than %lu steps (a loop that does not end?)",
                             XLARUN__CAST(unsigned long, R->max_steps));
    return XLARUN_OK;
}

static const char *xlarun__jtype_name(const xlarun__jv *v) {
    switch (v->t) {
    case XJ_UNDEF: return "Undefined";
    case XJ_NONE: return "NoneType";
    case XJ_BOOL: return "bool";
    case XJ_INT: return "int";
    case XJ_FLOAT: return "float";
    case XJ_STR: return "str";
    case XJ_LIST: return v->aux & XJ_GEN ? "generator" : v->aux & XJ_VIEW ? "dict_items" : "list";
    case XJ_TUPLE: return "tuple";
    case XJ_DICT: return "dict";
    case XJ_NS: return "Namespace";
    case XJ_MACRO: return "Macro";
    case XJ_LOOP: return "LoopContext";
    default: return "function";
    }
}

/* jinja2's UndefinedError text for using v */
static xlarun_status xlarun__jundef_err(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *v) {
    if (v->aux == 2) return xlarun__jfail(R, at, "%.*s", XLARUN__CAST(int, v->u.s.n), v->u.s.p);
    if (v->aux == 1) return xlarun__jfail(R, at, "%.*s", XLARUN__CAST(int, v->u.s.n), v->u.s.p);
    return xlarun__jfail(R, at, "'%.*s' is undefined", XLARUN__CAST(int, v->u.s.n), v->u.s.p);
}

static void *xlarun__jnewmem(xlarun__jrun *R, size_t n) { return xlarun__jalloc(R->mem, n); }

static xlarun_status xlarun__jseq_new(xlarun__jrun *R, size_t n, int t, xlarun__jv *out) {
    xlarun__jseq *l = XLARUN__CAST(xlarun__jseq *, xlarun__jnewmem(R, sizeof *l));
    *out = xlarun__jmk(XJ_NONE);
    /* room for one item at least, so that v is never NULL */
    if (!l || !(l->v = XLARUN__CAST(xlarun__jv *, xlarun__jnewmem(R, (n ? n : 1) * sizeof(xlarun__jv))))) return xlarun__joom(R);
    l->n = n;
    *out = xlarun__jmk(t);
    out->u.l = l;
    return XLARUN_OK;
}

static xlarun_status xlarun__jmap_new(xlarun__jrun *R, size_t cap, int t, xlarun__jv *out) {
    xlarun__jmap *d = XLARUN__CAST(xlarun__jmap *, xlarun__jnewmem(R, sizeof *d));
    *out = xlarun__jmk(XJ_NONE);
    if (!d) return xlarun__joom(R);
    memset(d, 0, sizeof *d);
    if (cap) {
        d->k = XLARUN__CAST(xlarun__jv *, xlarun__jnewmem(R, cap * sizeof(xlarun__jv)));
        d->v = XLARUN__CAST(xlarun__jv *, xlarun__jnewmem(R, cap * sizeof(xlarun__jv)));
        if (!d->k || !d->v) return xlarun__joom(R);
        d->cap = cap;
    }
    *out = xlarun__jmk(t);
    out->u.d = d;
    return XLARUN_OK;
}

static int xlarun__jeq(const xlarun__jv *a, const xlarun__jv *b);

static xlarun__jv *xlarun__jmap_find(const xlarun__jmap *d, const xlarun__jv *k) {
    size_t i;
    for (i = 0; i < d->n; i++)
        if (xlarun__jeq(&d->k[i], k)) return &d->v[i];
    return NULL;
}
static xlarun__jv *xlarun__jmap_finds(const xlarun__jmap *d, const char *s, size_t n) {
    size_t i;
    for (i = 0; i < d->n; i++)
        if (d->k[i].t == XJ_STR && d->k[i].u.s.n == n && !memcmp(d->k[i].u.s.p, s, n)) return &d->v[i];
    return NULL;
}

static xlarun_status xlarun__jmap_set(xlarun__jrun *R, xlarun__jmap *d, const xlarun__jv *k, const xlarun__jv *v) {
    xlarun__jv *slot = xlarun__jmap_find(d, k);
    if (slot) { *slot = *v; return XLARUN_OK; }
    if (d->n == d->cap || !d->k || !d->v) { /* a map made by memset has no arrays yet */
        size_t nc = d->cap ? d->cap * 2 : 8;
        xlarun__jv *nk = XLARUN__CAST(xlarun__jv *, xlarun__jnewmem(R, nc * sizeof(xlarun__jv)));
        xlarun__jv *nv = XLARUN__CAST(xlarun__jv *, xlarun__jnewmem(R, nc * sizeof(xlarun__jv)));
        if (!nk || !nv) return xlarun__joom(R);
        if (d->n && d->k && d->v) { memcpy(nk, d->k, d->n * sizeof *nk); memcpy(nv, d->v, d->n * sizeof *nv); }
        d->k = nk; d->v = nv; d->cap = nc;
    }
    d->k[d->n] = *k;
    d->v[d->n] = *v;
    d->n++;
    return XLARUN_OK;
}

static xlarun_status xlarun__jframe_new(xlarun__jrun *R, xlarun__jframe *parent, xlarun__jframe **out) {
    xlarun__jframe *f = XLARUN__CAST(xlarun__jframe *, xlarun__jnewmem(R, sizeof *f));
    if (!f) return xlarun__joom(R);
    memset(f, 0, sizeof *f);
    f->parent = parent;
    *out = f;
    return XLARUN_OK;
}

static xlarun_status xlarun__jframe_set(xlarun__jrun *R, xlarun__jframe *f, const char *name, size_t n, const xlarun__jv *v) {
    xlarun__jv k = xlarun__jstr(name, n), *slot = xlarun__jmap_finds(&f->vars, name, n);
    if (slot) { *slot = *v; return XLARUN_OK; }
    return xlarun__jmap_set(R, &f->vars, &k, v);
}

static const xlarun__jv *xlarun__jlookup(const xlarun__jframe *f, const char *name, size_t n) {
    for (; f; f = f->parent) {
        const xlarun__jv *v = xlarun__jmap_finds(&f->vars, name, n);
        if (v) return v;
    }
    return NULL;
}

/* a new string in the work memory */
static xlarun_status xlarun__jstr_new(xlarun__jrun *R, const char *s, size_t n, xlarun__jv *out) {
    char *p = XLARUN__CAST(char *, xlarun__jnewmem(R, n + 1));
    *out = xlarun__jstr("", 0);
    if (!p) return xlarun__joom(R);
    if (n) memcpy(p, s, n);
    p[n] = 0;
    *out = xlarun__jstr(p, n);
    return XLARUN_OK;
}

static xlarun_status xlarun__jbuf_value(xlarun__jrun *R, xlarun__jbuf *b, xlarun__jv *out) {
    *out = xlarun__jstr("", 0);
    if (b->over) return b->limit && R->mem->failed == 0 ? xlarun__jfail(R, NULL, "the output is larger than %lu bytes",
                                                                          XLARUN__CAST(unsigned long, b->limit)) : xlarun__joom(R);
    *out = xlarun__jstr(b->p ? b->p : "", b->n);
    return XLARUN_OK;
}

/* ---- Python's str(), repr() and json.dumps() of a value ------------------------------------------ */
static int xlarun__jtruth(const xlarun__jv *v) {
    switch (v->t) {
    case XJ_UNDEF: case XJ_NONE: return 0;
    case XJ_BOOL: case XJ_INT: return v->u.i != 0;
    case XJ_FLOAT: return v->u.f != 0.0;
    case XJ_STR: return v->u.s.n != 0;
    case XJ_LIST: return (v->aux & XJ_GEN) || v->u.l->n != 0;
    case XJ_TUPLE: return v->u.l->n != 0;
    case XJ_DICT: return v->u.d->n != 0;
    default: return 1;
    }
}

static void xlarun__jwrite(xlarun__jbuf *b, const xlarun__jv *v, int repr);

static void xlarun__jwrite_items(xlarun__jbuf *b, const xlarun__jv *v) {
    size_t i;
    if (v->t == XJ_DICT || v->t == XJ_NS) {
        xlarun__jputc(b, '{');
        for (i = 0; i < v->u.d->n; i++) {
            if (i) xlarun__jputs(b, ", ");
            xlarun__jwrite(b, &v->u.d->k[i], 1);
            xlarun__jputs(b, ": ");
            xlarun__jwrite(b, &v->u.d->v[i], 1);
        }
        xlarun__jputc(b, '}');
        return;
    }
    xlarun__jputc(b, v->t == XJ_TUPLE ? '(' : '[');
    for (i = 0; i < v->u.l->n; i++) {
        if (i) xlarun__jputs(b, ", ");
        xlarun__jwrite(b, &v->u.l->v[i], 1);
    }
    if (v->t == XJ_TUPLE && v->u.l->n == 1) xlarun__jputc(b, ',');
    xlarun__jputc(b, v->t == XJ_TUPLE ? ')' : ']');
}

static void xlarun__jwrite(xlarun__jbuf *b, const xlarun__jv *v, int repr) {
    switch (v->t) {
    case XJ_UNDEF: break;
    case XJ_NONE: xlarun__jputs(b, "None"); break;
    case XJ_BOOL: xlarun__jputs(b, v->u.i ? "True" : "False"); break;
    case XJ_INT: xlarun__jfmt_int(b, v->u.i); break;
    case XJ_FLOAT: xlarun__jfmt_float(b, v->u.f, 0); break;
    case XJ_STR:
        if (repr) xlarun__jrepr_str(b, v->u.s.p, v->u.s.n);
        else xlarun__jput(b, v->u.s.p, v->u.s.n);
        break;
    case XJ_LIST:
        if (v->aux & XJ_GEN) { xlarun__jputs(b, "<generator object>"); break; }
        if (v->aux & XJ_VIEW) { xlarun__jputs(b, "dict_items("); xlarun__jwrite_items(b, v); xlarun__jputc(b, ')'); break; }
        xlarun__jwrite_items(b, v);
        break;
    case XJ_TUPLE: case XJ_DICT: xlarun__jwrite_items(b, v); break;
    case XJ_NS: xlarun__jputs(b, "<Namespace "); xlarun__jwrite_items(b, v); xlarun__jputc(b, '>'); break;
    case XJ_MACRO: xlarun__jputs(b, "<Macro>"); break;
    default: xlarun__jputs(b, "<function>"); break;
    }
}

typedef struct xlarun__jjson_opt {
    int ascii, sort, indent;    /* indent < 0: none */
    const char *item_sep, *key_sep;
    size_t item_n, key_n;
} xlarun__jjson_opt;

static xlarun_status xlarun__jjson(xlarun__jrun *R, const xlarun__jnode *at, xlarun__jbuf *b, const xlarun__jv *v,
                                   const xlarun__jjson_opt *o, int level);

static void xlarun__jjson_nl(xlarun__jbuf *b, const xlarun__jjson_opt *o, int level) {
    int k;
    xlarun__jputc(b, '\n');
    for (k = 0; k < o->indent * level; k++) xlarun__jputc(b, ' ');
}

static int xlarun__jcmp(const xlarun__jv *a, const xlarun__jv *b, int *ok);

static xlarun_status xlarun__jjson(xlarun__jrun *R, const xlarun__jnode *at, xlarun__jbuf *b, const xlarun__jv *v,
                                   const xlarun__jjson_opt *o, int level) {
    size_t i, n;
    if (level > 200) return xlarun__jfail(R, at, "tojson: the value is nested too deeply");
    XLARUN__TRY(xlarun__jstep(R, at));
    switch (v->t) {
    case XJ_NONE: xlarun__jputs(b, "null"); return XLARUN_OK;
    case XJ_BOOL: xlarun__jputs(b, v->u.i ? "true" : "false"); return XLARUN_OK;
    case XJ_INT: xlarun__jfmt_int(b, v->u.i); return XLARUN_OK;
    case XJ_FLOAT: xlarun__jfmt_float(b, v->u.f, 1); return XLARUN_OK;
    case XJ_STR: xlarun__jjson_str(b, v->u.s.p, v->u.s.n, o->ascii); return XLARUN_OK;
    case XJ_LIST: case XJ_TUPLE:
        if (v->aux & (XJ_GEN | XJ_VIEW)) break;
        n = v->u.l->n;
        if (!n) { xlarun__jputs(b, "[]"); return XLARUN_OK; }
        xlarun__jputc(b, '[');
        for (i = 0; i < n; i++) {
            if (i) xlarun__jput(b, o->item_sep, o->item_n);
            if (o->indent >= 0) xlarun__jjson_nl(b, o, level + 1);
            XLARUN__TRY(xlarun__jjson(R, at, b, &v->u.l->v[i], o, level + 1));
        }
        if (o->indent >= 0) xlarun__jjson_nl(b, o, level);
        xlarun__jputc(b, ']');
        return XLARUN_OK;
    case XJ_DICT: {
        size_t order[256], *ord = order;
        const xlarun__jmap *d = v->u.d;
        n = d->n;
        if (!n) { xlarun__jputs(b, "{}"); return XLARUN_OK; }
        if (n > 256) {
            if (!(ord = XLARUN__CAST(size_t *, xlarun__jnewmem(R, n * sizeof(size_t))))) return xlarun__joom(R);
        }
        for (i = 0; i < n; i++) ord[i] = i;
        if (o->sort) { /* insertion sort by key: stable, as Python's sorted */
            for (i = 1; i < n; i++) {
                size_t k = i, t = ord[i];
                int ok = 1;
                while (k > 0 && xlarun__jcmp(&d->k[ord[k - 1]], &d->k[t], &ok) > 0) { ord[k] = ord[k - 1]; k--; }
                if (!ok) return xlarun__jfail(R, at, "tojson: keys of different types cannot be sorted");
                ord[k] = t;
            }
        }
        xlarun__jputc(b, '{');
        for (i = 0; i < n; i++) {
            const xlarun__jv *k = &d->k[ord[i]];
            if (i) xlarun__jput(b, o->item_sep, o->item_n);
            if (o->indent >= 0) xlarun__jjson_nl(b, o, level + 1);
            if (k->t == XJ_STR) xlarun__jjson_str(b, k->u.s.p, k->u.s.n, o->ascii);
            else if (k->t == XJ_INT || k->t == XJ_BOOL || k->t == XJ_NONE || k->t == XJ_FLOAT) {
                xlarun__jputc(b, '"');
                XLARUN__TRY(xlarun__jjson(R, at, b, k, o, level + 1));
                xlarun__jputc(b, '"');
            } else return xlarun__jfail(R, at, "keys must be str, int, float, bool or None, not %s", xlarun__jtype_name(k));
            xlarun__jput(b, o->key_sep, o->key_n);
            XLARUN__TRY(xlarun__jjson(R, at, b, &d->v[ord[i]], o, level + 1));
        }
        if (o->indent >= 0) xlarun__jjson_nl(b, o, level);
        xlarun__jputc(b, '}');
        return XLARUN_OK;
    }
    default: break;
    }
    return xlarun__jfail(R, at, "Object of type %s is not JSON serializable", xlarun__jtype_name(v));
}

/* ---- comparisons ---------------------------------------------------------------------------------- */
static int xlarun__jeq(const xlarun__jv *a, const xlarun__jv *b) {
    size_t i;
    if (xlarun__jis_num(a) && xlarun__jis_num(b)) {
        if (a->t != XJ_FLOAT && b->t != XJ_FLOAT) return a->u.i == b->u.i;
        return xlarun__jnum(a) == xlarun__jnum(b);
    }
    if (a->t != b->t) return 0;
    switch (a->t) {
    case XJ_UNDEF: case XJ_NONE: return 1;
    case XJ_STR: return a->u.s.n == b->u.s.n && !memcmp(a->u.s.p, b->u.s.p, a->u.s.n);
    case XJ_LIST: case XJ_TUPLE:
        if ((a->aux | b->aux) & XJ_GEN) return a->u.l == b->u.l;
        if (a->u.l->n != b->u.l->n) return 0;
        for (i = 0; i < a->u.l->n; i++)
            if (!xlarun__jeq(&a->u.l->v[i], &b->u.l->v[i])) return 0;
        return 1;
    case XJ_DICT:
        if (a->u.d->n != b->u.d->n) return 0;
        for (i = 0; i < a->u.d->n; i++) {
            const xlarun__jv *o = xlarun__jmap_find(b->u.d, &a->u.d->k[i]);
            if (!o || !xlarun__jeq(&a->u.d->v[i], o)) return 0;
        }
        return 1;
    case XJ_NS: return a->u.d == b->u.d;
    case XJ_MACRO: return a->u.m == b->u.m;
    default: return a->aux == b->aux && a->u.self == b->u.self;
    }
}

/* Python's ordering: numbers, str (by code point: UTF-8 bytes order the same), lists and tuples
   item by item; *ok = 0 where Python raises TypeError */
static int xlarun__jcmp(const xlarun__jv *a, const xlarun__jv *b, int *ok) {
    if (xlarun__jis_num(a) && xlarun__jis_num(b)) {
        if (a->t != XJ_FLOAT && b->t != XJ_FLOAT) return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
        return xlarun__jnum(a) < xlarun__jnum(b) ? -1 : xlarun__jnum(a) > xlarun__jnum(b);
    }
    if (a->t == XJ_STR && b->t == XJ_STR) {
        size_t n = a->u.s.n < b->u.s.n ? a->u.s.n : b->u.s.n;
        int c = n ? memcmp(a->u.s.p, b->u.s.p, n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return a->u.s.n < b->u.s.n ? -1 : a->u.s.n > b->u.s.n;
    }
    if (a->t == b->t && (a->t == XJ_LIST || a->t == XJ_TUPLE) && !((a->aux | b->aux) & (XJ_GEN | XJ_VIEW))) {
        size_t i;
        for (i = 0; i < a->u.l->n && i < b->u.l->n; i++) {
            int c;
            if (xlarun__jeq(&a->u.l->v[i], &b->u.l->v[i])) continue;
            c = xlarun__jcmp(&a->u.l->v[i], &b->u.l->v[i], ok);
            return c;
        }
        return a->u.l->n < b->u.l->n ? -1 : a->u.l->n > b->u.l->n;
    }
    *ok = 0;
    return 0;
}

/* ---- sequences, attributes, items -------------------------------------------------------------- */
/* the items a for loop or a filter sees: list/tuple items, dict keys, a string's characters */
static xlarun_status xlarun__jiter(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *v, xlarun__jseq *out) {
    out->n = 0;
    out->v = NULL;
    switch (v->t) {
    case XJ_UNDEF:
        if (v->aux == 2) return xlarun__jundef_err(R, at, v);
        return XLARUN_OK;
    case XJ_LIST: case XJ_TUPLE: *out = *v->u.l; return XLARUN_OK;
    case XJ_DICT:
        out->n = v->u.d->n;
        out->v = v->u.d->k;
        return XLARUN_OK;
    case XJ_STR: {
        size_t i = 0, k = 0, n = xlarun__jlen(v->u.s.p, v->u.s.n);
        if (!(out->v = XLARUN__CAST(xlarun__jv *, xlarun__jnewmem(R, (n ? n : 1) * sizeof(xlarun__jv))))) return xlarun__joom(R);
        while (i < v->u.s.n && k < n) {
            size_t st = i;
            xlarun__jcp(v->u.s.p, v->u.s.n, &i);
            out->v[k++] = xlarun__jstr(v->u.s.p + st, i - st);
        }
        out->n = k;
        return XLARUN_OK;
    }
    default: return xlarun__jfail(R, at, "'%s' object is not iterable", xlarun__jtype_name(v));
    }
}

static xlarun_status xlarun__jlen_of(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *v, int64_t *n) {
    switch (v->t) {
    case XJ_UNDEF: *n = 0; return v->aux == 2 ? xlarun__jundef_err(R, at, v) : XLARUN_OK;
    case XJ_STR: *n = XLARUN__CAST(int64_t, xlarun__jlen(v->u.s.p, v->u.s.n)); return XLARUN_OK;
    case XJ_LIST: case XJ_TUPLE:
        if (v->aux & XJ_GEN) break;
        *n = XLARUN__CAST(int64_t, v->u.l->n);
        return XLARUN_OK;
    case XJ_DICT: case XJ_NS: *n = XLARUN__CAST(int64_t, v->u.d->n); return XLARUN_OK;
    default: break;
    }
    return xlarun__jfail(R, at, "object of type '%s' has no len()", xlarun__jtype_name(v));
}

/* the methods a value offers (jinja2's getattr finds them before dict keys) */
enum {
    JM_NONE = 0,
    /* str */
    JM_STRIP, JM_LSTRIP, JM_RSTRIP, JM_SPLIT, JM_RSPLIT, JM_STARTSWITH, JM_ENDSWITH, JM_REPLACE, JM_UPPER, JM_LOWER,
    JM_TITLE, JM_CAPITALIZE, JM_FIND, JM_RFIND, JM_COUNT, JM_JOIN, JM_SPLITLINES, JM_ISDIGIT, JM_ISALPHA, JM_ISALNUM,
    JM_ISSPACE, JM_ISUPPER, JM_ISLOWER, JM_REMOVEPREFIX, JM_REMOVESUFFIX, JM_FORMAT, JM_INDEX, JM_STR_LAST,
    /* dict */
    JM_ITEMS, JM_KEYS, JM_VALUES, JM_GET, JM_DICT_LAST,
    /* list (index and count are shared with str) */
    JM_LOOP_CYCLE, JM_CYCLER_NEXT, JM_CYCLER_RESET,
    JM_UNSAFE
};
static const char *const xlarun__jmethod_names[] = {
    "", "strip", "lstrip", "rstrip", "split", "rsplit", "startswith", "endswith", "replace", "upper", "lower", "title",
    "capitalize", "find", "rfind", "count", "join", "splitlines", "isdigit", "isalpha", "isalnum", "isspace", "isupper",
    "islower", "removeprefix", "removesuffix", "format", "index", "", "items", "keys", "values", "get", ""};
static const char *const xlarun__junsafe_dict[] = {"update", "pop", "popitem", "setdefault", "clear", "copy", "fromkeys", NULL};
static const char *const xlarun__junsafe_list[] = {"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear", "copy", NULL};

static int xlarun__jname_in(const char *s, size_t n, const char *const *names) {
    size_t k;
    for (k = 0; names[k]; k++)
        if (strlen(names[k]) == n && !memcmp(names[k], s, n)) return 1;
    return 0;
}

static xlarun_status xlarun__jmethod(xlarun__jrun *R, const xlarun__jv *self, int id, xlarun__jv *out) {
    xlarun__jv *p = XLARUN__CAST(xlarun__jv *, xlarun__jnewmem(R, sizeof *p));
    if (!p) return xlarun__joom(R);
    *p = *self;
    *out = xlarun__jmk(XJ_METHOD);
    out->aux = id;
    out->u.self = p;
    return XLARUN_OK;
}

/* obj.name: a method, a dict key, a loop attribute; else Undefined ('x' has no attribute 'name') */
static xlarun_status xlarun__jgetattr(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *obj, const char *name, size_t n,
                                      xlarun__jv *out) {
    int k;
    char msg[200];
    if (obj->t == XJ_UNDEF) return xlarun__jundef_err(R, at, obj);
    if (obj->t == XJ_STR || obj->t == XJ_DICT || obj->t == XJ_LIST || obj->t == XJ_TUPLE) {
        int lo = obj->t == XJ_STR ? JM_STRIP : obj->t == XJ_DICT ? JM_ITEMS : JM_COUNT;
        int hi = obj->t == XJ_STR ? JM_STR_LAST : obj->t == XJ_DICT ? JM_DICT_LAST : JM_JOIN;
        for (k = lo; k < hi; k++)
            if (strlen(xlarun__jmethod_names[k]) == n && !memcmp(xlarun__jmethod_names[k], name, n))
                return xlarun__jmethod(R, obj, k, out);
        if ((obj->t == XJ_LIST || obj->t == XJ_TUPLE) && n == 5 && !memcmp(name, "index", 5))
            return xlarun__jmethod(R, obj, JM_INDEX, out);
        if ((obj->t == XJ_DICT && xlarun__jname_in(name, n, xlarun__junsafe_dict)) ||
            (obj->t == XJ_LIST && xlarun__jname_in(name, n, xlarun__junsafe_list))) {
            /* the immutable sandbox: methods that change a value are unsafe (an error when used) */
            xlarun__jv m;
            snprintf(msg, sizeof msg, "access to attribute '%.*s' of '%s' object is unsafe.", XLARUN__CAST(int, n), name,
                     obj->t == XJ_DICT ? "dict" : "list");
            XLARUN__TRY(xlarun__jstr_new(R, msg, strlen(msg), &m));
            *out = xlarun__jundef(m.u.s.p, m.u.s.n, 2);
            return XLARUN_OK;
        }
    }
    if (obj->t == XJ_DICT || obj->t == XJ_NS) {
        const xlarun__jv *v = xlarun__jmap_finds(obj->u.d, name, n);
        if (v) { *out = *v; return XLARUN_OK; }
    } else if (obj->t == XJ_LOOP) {
        const xlarun__jloop *L = obj->u.loop;
        int64_t i = XLARUN__CAST(int64_t, L->i), len = XLARUN__CAST(int64_t, L->n);
#define XJ_IS(lit) (n == sizeof(lit) - 1 && !memcmp(name, lit, n))
        if (XJ_IS("index")) { *out = xlarun__jint(i + 1); return XLARUN_OK; }
        if (XJ_IS("index0")) { *out = xlarun__jint(i); return XLARUN_OK; }
        if (XJ_IS("revindex")) { *out = xlarun__jint(len - i); return XLARUN_OK; }
        if (XJ_IS("revindex0")) { *out = xlarun__jint(len - i - 1); return XLARUN_OK; }
        if (XJ_IS("first")) { *out = xlarun__jbool(i == 0); return XLARUN_OK; }
        if (XJ_IS("last")) { *out = xlarun__jbool(i == len - 1); return XLARUN_OK; }
        if (XJ_IS("length")) { *out = xlarun__jint(len); return XLARUN_OK; }
        if (XJ_IS("depth")) { *out = xlarun__jint(XLARUN__CAST(int64_t, L->depth)); return XLARUN_OK; }
        if (XJ_IS("depth0")) { *out = xlarun__jint(XLARUN__CAST(int64_t, L->depth) - 1); return XLARUN_OK; }
        if (XJ_IS("previtem")) {
            *out = i > 0 ? L->items[i - 1] : xlarun__jundef("there is no previous item", 25, 1);
            return XLARUN_OK;
        }
        if (XJ_IS("nextitem")) {
            *out = i + 1 < len ? L->items[i + 1] : xlarun__jundef("there is no next item", 21, 1);
            return XLARUN_OK;
        }
        if (XJ_IS("cycle")) return xlarun__jmethod(R, obj, JM_LOOP_CYCLE, out);
    } else if (obj->t == XJ_CYCLER) {
        if (XJ_IS("next")) return xlarun__jmethod(R, obj, JM_CYCLER_NEXT, out);
        if (XJ_IS("reset")) return xlarun__jmethod(R, obj, JM_CYCLER_RESET, out);
        if (XJ_IS("current")) { *out = obj->u.cyc->items.v[obj->u.cyc->i]; return XLARUN_OK; }
#undef XJ_IS
    }
    if (obj->t == XJ_NONE) snprintf(msg, sizeof msg, "'None' has no attribute '%.*s'", XLARUN__CAST(int, n > 80 ? 80 : n), name);
    else snprintf(msg, sizeof msg, "'%s object' has no attribute '%.*s'", obj->t == XJ_DICT ? "dict" : xlarun__jtype_name(obj),
                  XLARUN__CAST(int, n > 80 ? 80 : n), name);
    {
        xlarun__jv m;
        XLARUN__TRY(xlarun__jstr_new(R, msg, strlen(msg), &m));
        *out = xlarun__jundef(m.u.s.p, m.u.s.n, 1);
    }
    return XLARUN_OK;
}

/* Python's index into n items: negative from the end; -1 if out of range */
static int64_t xlarun__jindex(int64_t i, size_t n) {
    if (i < 0) i += XLARUN__CAST(int64_t, n);
    return i < 0 || i >= XLARUN__CAST(int64_t, n) ? -1 : i;
}

/* obj[key]: item first, then attribute (jinja2's getitem) */
static xlarun_status xlarun__jgetitem(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *obj, const xlarun__jv *key,
                                      xlarun__jv *out) {
    if (obj->t == XJ_UNDEF) return xlarun__jundef_err(R, at, obj);
    if ((obj->t == XJ_LIST || obj->t == XJ_TUPLE) && !(obj->aux & (XJ_GEN | XJ_VIEW)) && (key->t == XJ_INT || key->t == XJ_BOOL)) {
        int64_t i = xlarun__jindex(key->u.i, obj->u.l->n);
        if (i >= 0) { *out = obj->u.l->v[i]; return XLARUN_OK; }
        *out = xlarun__jundef("list index out of range", 23, 1);
        return XLARUN_OK;
    }
    if (obj->t == XJ_STR && (key->t == XJ_INT || key->t == XJ_BOOL)) {
        int64_t i = xlarun__jindex(key->u.i, xlarun__jlen(obj->u.s.p, obj->u.s.n));
        if (i >= 0) {
            size_t o = xlarun__joff(obj->u.s.p, obj->u.s.n, XLARUN__CAST(size_t, i)), e = o;
            xlarun__jcp(obj->u.s.p, obj->u.s.n, &e);
            *out = xlarun__jstr(obj->u.s.p + o, e - o);
            return XLARUN_OK;
        }
        *out = xlarun__jundef("string index out of range", 25, 1);
        return XLARUN_OK;
    }
    if (obj->t == XJ_DICT || obj->t == XJ_NS) {
        const xlarun__jv *v = xlarun__jmap_find(obj->u.d, key);
        if (v) { *out = *v; return XLARUN_OK; }
    }
    if (key->t == XJ_STR) return xlarun__jgetattr(R, at, obj, key->u.s.p, key->u.s.n, out);
    {
        char msg[160];
        xlarun__jv m;
        snprintf(msg, sizeof msg, "'%s object' has no item of that key", obj->t == XJ_DICT ? "dict" : xlarun__jtype_name(obj));
        XLARUN__TRY(xlarun__jstr_new(R, msg, strlen(msg), &m));
        *out = xlarun__jundef(m.u.s.p, m.u.s.n, 1);
    }
    return XLARUN_OK;
}

/* Python's slice indices for n items */
static void xlarun__jslice_idx(int64_t n, const xlarun__jv *a, const xlarun__jv *b, int64_t step, int64_t *start, int64_t *stop) {
    int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? n - 1 : n;
    if (a->t == XJ_NONE || a->t == XJ_UNDEF) *start = step < 0 ? hi : lo;
    else {
        *start = a->u.i;
        if (*start < 0) { *start += n; if (*start < lo) *start = lo; }
        else if (*start > hi) *start = hi;
    }
    if (b->t == XJ_NONE || b->t == XJ_UNDEF) *stop = step < 0 ? lo : hi;
    else {
        *stop = b->u.i;
        if (*stop < 0) { *stop += n; if (*stop < lo) *stop = lo; }
        else if (*stop > hi) *stop = hi;
    }
}

static xlarun_status xlarun__jslice(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *obj, const xlarun__jv *a,
                                    const xlarun__jv *b, const xlarun__jv *c, xlarun__jv *out) {
    int64_t step = 1, start, stop, n, i, k = 0;
    const xlarun__jv *parts[3];
    int j;
    parts[0] = a; parts[1] = b; parts[2] = c;
    for (j = 0; j < 3; j++)
        if (parts[j]->t != XJ_NONE && parts[j]->t != XJ_UNDEF && parts[j]->t != XJ_INT && parts[j]->t != XJ_BOOL)
            return xlarun__jfail(R, at, "slice indices must be integers or None");
    if (c->t == XJ_INT || c->t == XJ_BOOL) step = c->u.i;
    if (step == 0) return xlarun__jfail(R, at, "slice step cannot be zero");
    if (obj->t == XJ_UNDEF) return xlarun__jundef_err(R, at, obj);
    if (obj->t == XJ_STR) {
        xlarun__jseq chars;
        xlarun__jbuf bb;
        XLARUN__TRY(xlarun__jiter(R, at, obj, &chars));
        n = XLARUN__CAST(int64_t, chars.n);
        xlarun__jslice_idx(n, a, b, step, &start, &stop);
        xlarun__jbuf_init(&bb, R->mem);
        for (i = start; step > 0 ? i < stop : i > stop; i += step) xlarun__jput(&bb, chars.v[i].u.s.p, chars.v[i].u.s.n);
        return xlarun__jbuf_value(R, &bb, out);
    }
    if ((obj->t == XJ_LIST || obj->t == XJ_TUPLE) && !(obj->aux & (XJ_GEN | XJ_VIEW))) {
        n = XLARUN__CAST(int64_t, obj->u.l->n);
        xlarun__jslice_idx(n, a, b, step, &start, &stop);
        for (i = start; step > 0 ? i < stop : i > stop; i += step) k++;
        XLARUN__TRY(xlarun__jseq_new(R, XLARUN__CAST(size_t, k), obj->t, out));
        k = 0;
        for (i = start; step > 0 ? i < stop : i > stop; i += step) out->u.l->v[k++] = obj->u.l->v[i];
        return XLARUN_OK;
    }
    return xlarun__jfail(R, at, "'%s' object is not subscriptable", xlarun__jtype_name(obj));
}

/* ---- arithmetic --------------------------------------------------------------------------------- */
static xlarun_status xlarun__jstr_of(xlarun__jrun *R, const xlarun__jv *v, xlarun__jv *out) {
    xlarun__jbuf b;
    if (v->t == XJ_STR) { *out = *v; return XLARUN_OK; }
    xlarun__jbuf_init(&b, R->mem);
    xlarun__jwrite(&b, v, 0);
    return xlarun__jbuf_value(R, &b, out);
}

static xlarun_status xlarun__jconcat2(xlarun__jrun *R, const xlarun__jv *a, const xlarun__jv *b, xlarun__jv *out) {
    xlarun__jbuf bb;
    xlarun__jbuf_init(&bb, R->mem);
    /* appending to the last string made grows it in place */
    if (a->t == XJ_STR && a->u.s.p && XLARUN__CAST(const void *, a->u.s.p) == XLARUN__CAST(const void *, R->mem->last) &&
        R->mem->last_off + xlarun__round8(a->u.s.n + 1) == R->mem->used) {
        bb.p = XLARUN__PUN(char *, R->mem->last);
        bb.n = a->u.s.n;
        bb.cap = xlarun__round8(a->u.s.n + 1);
        /* the copy in a that others may hold keeps its length; the bytes after it are free */
    } else xlarun__jwrite(&bb, a, 0);
    xlarun__jwrite(&bb, b, 0);
    xlarun__jputc(&bb, 0);
    XLARUN__TRY(xlarun__jbuf_value(R, &bb, out));
    out->u.s.n--;
    return XLARUN_OK;
}

/* markupsafe's escape: & < > " ' as entities; the result is Markup */
static xlarun_status xlarun__jescape(xlarun__jrun *R, const xlarun__jv *s, xlarun__jv *out) {
    xlarun__jbuf b;
    size_t i;
    xlarun__jbuf_init(&b, R->mem);
    for (i = 0; i < s->u.s.n; i++) {
        char c = s->u.s.p[i];
        if (c == '&') xlarun__jputs(&b, "&amp;");
        else if (c == '<') xlarun__jputs(&b, "&lt;");
        else if (c == '>') xlarun__jputs(&b, "&gt;");
        else if (c == '"') xlarun__jputs(&b, "&#34;");
        else if (c == '\'') xlarun__jputs(&b, "&#39;");
        else xlarun__jputc(&b, c);
    }
    XLARUN__TRY(xlarun__jbuf_value(R, &b, out));
    out->aux = XJ_MARKUP;
    return XLARUN_OK;
}

static xlarun_status xlarun__jarith(xlarun__jrun *R, const xlarun__jnode *at, int op, const xlarun__jv *a, const xlarun__jv *b,
                                    xlarun__jv *out) {
    if (a->t == XJ_UNDEF) return xlarun__jundef_err(R, at, a);
    if (b->t == XJ_UNDEF) return xlarun__jundef_err(R, at, b);
    if (xlarun__jis_num(a) && xlarun__jis_num(b)) {
        int fl = a->t == XJ_FLOAT || b->t == XJ_FLOAT;
        double x = xlarun__jnum(a), y = xlarun__jnum(b);
        int64_t i = a->u.i, j = b->u.i;
        switch (op) {
        case JO_ADD:
            if (!fl) { if ((j > 0 && i > INT64_MAX - j) || (j < 0 && i < INT64_MIN - j)) break; *out = xlarun__jint(i + j); }
            else *out = xlarun__jfloat(x + y);
            return XLARUN_OK;
        case JO_SUB:
            if (!fl) { if ((j < 0 && i > INT64_MAX + j) || (j > 0 && i < INT64_MIN + j)) break; *out = xlarun__jint(i - j); }
            else *out = xlarun__jfloat(x - y);
            return XLARUN_OK;
        case JO_MUL:
            if (!fl) {
                if (i && j && (i > INT32_MAX || i < -INT32_MAX || j > INT32_MAX || j < -INT32_MAX)) break;
                *out = xlarun__jint(i * j);
            } else *out = xlarun__jfloat(x * y);
            return XLARUN_OK;
        case JO_DIV:
            if (y == 0.0) return xlarun__jfail(R, at, "division by zero");
            *out = xlarun__jfloat(x / y);
            return XLARUN_OK;
        case JO_FLOORDIV: case JO_MOD:
            if (y == 0.0) return xlarun__jfail(R, at, op == JO_MOD ? "integer modulo by zero" : "integer division or modulo by zero");
            if (!fl) {
                int64_t q, r;
                if (i == INT64_MIN && j == -1) break;
                q = i / j; r = i % j;
                if (r != 0 && ((r < 0) != (j < 0))) { q--; r += j; }
                *out = xlarun__jint(op == JO_MOD ? r : q);
            } else {
                double mod = fmod(x, y), div = (x - mod) / y, fd; /* Python's float divmod */
                if (mod != 0.0 && ((y < 0) != (mod < 0))) { mod += y; div -= 1.0; }
                if (mod == 0.0) mod = copysign(0.0, y);
                if (div != 0.0) { fd = floor(div); if (div - fd > 0.5) fd += 1.0; }
                else fd = copysign(0.0, x / y);
                *out = xlarun__jfloat(op == JO_MOD ? mod : fd);
            }
            return XLARUN_OK;
        case JO_POW:
            if (!fl && j >= 0) {
                int64_t r = 1;
                int64_t k2;
                for (k2 = 0; k2 < j; k2++) {
                    if (r && (i > INT32_MAX || i < -INT32_MAX || r > INT64_MAX / (i ? (i < 0 ? -i : i) : 1))) return xlarun__jfail(R, at, "integer overflow");
                    r *= i;
                    if (k2 > 64 && (i == 0 || i == 1)) break;
                }
                *out = xlarun__jint(r);
            } else *out = xlarun__jfloat(pow(x, y));
            return XLARUN_OK;
        default: break;
        }
        return xlarun__jfail(R, at, "integer overflow (xlarun's integers are 64-bit)");
    }
    if (op == JO_ADD && a->t == XJ_STR && b->t == XJ_STR) {
        xlarun__jv ea = *a, eb = *b;
        if (a->aux != XJ_MARKUP && b->aux != XJ_MARKUP) return xlarun__jconcat2(R, a, b, out);
        /* Markup + str escapes the str, and stays Markup (|safe, |e) */
        if (a->aux != XJ_MARKUP) XLARUN__TRY(xlarun__jescape(R, a, &ea));
        if (b->aux != XJ_MARKUP) XLARUN__TRY(xlarun__jescape(R, b, &eb));
        XLARUN__TRY(xlarun__jconcat2(R, &ea, &eb, out));
        out->aux = XJ_MARKUP;
        return XLARUN_OK;
    }
    if (op == JO_ADD && a->t == b->t && (a->t == XJ_LIST || a->t == XJ_TUPLE) && !((a->aux | b->aux) & (XJ_GEN | XJ_VIEW))) {
        size_t na = a->u.l->n, nb = b->u.l->n;
        XLARUN__TRY(xlarun__jseq_new(R, na + nb, a->t, out));
        if (na) memcpy(out->u.l->v, a->u.l->v, na * sizeof(xlarun__jv));
        if (nb) memcpy(out->u.l->v + na, b->u.l->v, nb * sizeof(xlarun__jv));
        return XLARUN_OK;
    }
    if (op == JO_MUL && ((xlarun__jis_seq(a) && !(a->aux & (XJ_GEN | XJ_VIEW)) && (b->t == XJ_INT || b->t == XJ_BOOL)) ||
                         (xlarun__jis_seq(b) && !(b->aux & (XJ_GEN | XJ_VIEW)) && (a->t == XJ_INT || a->t == XJ_BOOL)))) {
        const xlarun__jv *l = xlarun__jis_seq(a) ? a : b;
        int64_t k, times = xlarun__jis_seq(a) ? b->u.i : a->u.i;
        size_t n = l->u.l->n;
        if (times < 0) times = 0;
        if (n && XLARUN__CAST(uint64_t, times) > R->max_output / n) return xlarun__jfail(R, at, "the list would be too long");
        XLARUN__TRY(xlarun__jseq_new(R, n * XLARUN__CAST(size_t, times), l->t, out));
        for (k = 0; k < times; k++) if (n) memcpy(out->u.l->v + XLARUN__CAST(size_t, k) * n, l->u.l->v, n * sizeof(xlarun__jv));
        return XLARUN_OK;
    }
    if (op == JO_MUL && ((a->t == XJ_STR && (b->t == XJ_INT || b->t == XJ_BOOL)) || (b->t == XJ_STR && (a->t == XJ_INT || a->t == XJ_BOOL)))) {
        const xlarun__jv *s = a->t == XJ_STR ? a : b;
        int64_t k, times = a->t == XJ_STR ? b->u.i : a->u.i;
        xlarun__jbuf bb;
        xlarun__jbuf_init(&bb, R->mem);
        bb.limit = R->max_output;
        for (k = 0; k < times && !bb.over; k++) xlarun__jput(&bb, s->u.s.p, s->u.s.n);
        return xlarun__jbuf_value(R, &bb, out);
    }
    {
        static const char *const sym[] = {"", "+", "-", "/", "//", "*", "%", "**"};
        return xlarun__jfail(R, at, "unsupported operand type(s) for %s: '%s' and '%s'", op <= JO_POW ? sym[op] : "?",
                             xlarun__jtype_name(a), xlarun__jtype_name(b));
    }
}

/* x in container */
static xlarun_status xlarun__jcontains(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *x, const xlarun__jv *c, int *res) {
    size_t i;
    *res = 0;
    if (c->t == XJ_STR) {
        if (x->t != XJ_STR) return xlarun__jfail(R, at, "'in <string>' requires string as left operand, not %s", xlarun__jtype_name(x));
        if (!x->u.s.n) { *res = 1; return XLARUN_OK; }
        for (i = 0; i + x->u.s.n <= c->u.s.n; i++)
            if (!memcmp(c->u.s.p + i, x->u.s.p, x->u.s.n)) { *res = 1; break; }
        return XLARUN_OK;
    }
    if (c->t == XJ_DICT || c->t == XJ_NS) { *res = xlarun__jmap_find(c->u.d, x) != NULL; return XLARUN_OK; }
    if (c->t == XJ_LIST || c->t == XJ_TUPLE) {
        for (i = 0; i < c->u.l->n; i++)
            if (xlarun__jeq(x, &c->u.l->v[i])) { *res = 1; break; }
        return XLARUN_OK;
    }
    if (c->t == XJ_UNDEF) return c->aux == 2 ? xlarun__jundef_err(R, at, c) : XLARUN_OK;
    return xlarun__jfail(R, at, "argument of type '%s' is not iterable", xlarun__jtype_name(c));
}

/* ---- calls: arguments, global functions, methods, macros ---------------------------------------- */
#define XLARUN__JMAX_ARGS 16
typedef struct xlarun__jargv {
    xlarun__jv pos[XLARUN__JMAX_ARGS];
    size_t np;
    xlarun__jv kv[XLARUN__JMAX_ARGS];
    const char *kn[XLARUN__JMAX_ARGS];
    size_t kl[XLARUN__JMAX_ARGS], nk;
    int used[XLARUN__JMAX_ARGS]; /* keyword arguments taken */
} xlarun__jargv;

static xlarun_status xlarun__jeval(xlarun__jrun *R, const xlarun__jnode *x, xlarun__jv *out);
static xlarun_status xlarun__jexec(xlarun__jrun *R, const xlarun__jnode *first, xlarun__jframe *f);

static xlarun_status xlarun__jeval_args(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jnode *args, xlarun__jargv *A) {
    const xlarun__jnode *a;
    A->np = A->nk = 0;
    for (a = args; a; a = a->next) {
        if (a->kind == JN_STAR) { /* *seq adds positional arguments, **mapping keyword ones */
            xlarun__jv v;
            size_t i;
            XLARUN__TRY(xlarun__jeval(R, a->a, &v));
            if (a->op == JO_MUL) {
                xlarun__jseq items;
                XLARUN__TRY(xlarun__jiter(R, a, &v, &items));
                for (i = 0; i < items.n; i++) {
                    if (A->np == XLARUN__JMAX_ARGS) return xlarun__jfail(R, at, "more than 16 arguments");
                    A->pos[A->np++] = items.v[i];
                }
            } else {
                if (v.t != XJ_DICT) return xlarun__jfail(R, a, "argument after ** must be a mapping, not %s", xlarun__jtype_name(&v));
                for (i = 0; i < v.u.d->n; i++) {
                    if (A->nk == XLARUN__JMAX_ARGS) return xlarun__jfail(R, at, "more than 16 keyword arguments");
                    if (v.u.d->k[i].t != XJ_STR) return xlarun__jfail(R, a, "keywords must be strings");
                    A->kn[A->nk] = v.u.d->k[i].u.s.p;
                    A->kl[A->nk] = v.u.d->k[i].u.s.n;
                    A->used[A->nk] = 0;
                    A->kv[A->nk++] = v.u.d->v[i];
                }
            }
        } else if (a->kind == JN_KWARG) {
            if (A->nk == XLARUN__JMAX_ARGS) return xlarun__jfail(R, at, "more than 16 keyword arguments");
            A->kn[A->nk] = a->s;
            A->kl[A->nk] = a->n;
            A->used[A->nk] = 0;
            XLARUN__TRY(xlarun__jeval(R, a->a, &A->kv[A->nk]));
            A->nk++;
        } else {
            if (A->np == XLARUN__JMAX_ARGS) return xlarun__jfail(R, at, "more than 16 arguments");
            XLARUN__TRY(xlarun__jeval(R, a, &A->pos[A->np]));
            A->np++;
        }
    }
    return XLARUN_OK;
}

/* argument k (positional) or name (keyword); NULL if absent */
static const xlarun__jv *xlarun__jarg(xlarun__jargv *A, size_t k, const char *name) {
    size_t i;
    if (k < A->np) return &A->pos[k];
    if (name)
        for (i = 0; i < A->nk; i++)
            if (strlen(name) == A->kl[i] && !memcmp(name, A->kn[i], A->kl[i])) { A->used[i] = 1; return &A->kv[i]; }
    return NULL;
}

/* positional arguments beyond max, or keyword arguments not taken, are errors */
static xlarun_status xlarun__jargs_done(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jargv *A, size_t max, const char *what) {
    size_t i;
    if (A->np > max) return xlarun__jfail(R, at, "%s takes at most %lu argument(s), %lu given", what, XLARUN__CAST(unsigned long, max),
                                         XLARUN__CAST(unsigned long, A->np));
    for (i = 0; i < A->nk; i++)
        if (!A->used[i]) return xlarun__jfail(R, at, "%s got an unexpected keyword argument '%.*s'", what, XLARUN__CAST(int, A->kl[i]), A->kn[i]);
    return XLARUN_OK;
}

static int xlarun__jarg_str(const xlarun__jv *v) { return v && v->t == XJ_STR; }

/* strftime for strftime_now, in the C locale, UTC */
static void xlarun__jstrftime(xlarun__jbuf *b, const char *f, size_t n, int64_t t) {
    static const char *const days[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
    static const char *const months[] = {"January", "February", "March", "April", "May", "June", "July", "August",
                                         "September", "October", "November", "December"};
    int64_t days_since = t >= 0 ? t / 86400 : -((-t + 86399) / 86400), secs = t - days_since * 86400;
    int64_t z = days_since + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    int64_t wday = ((days_since % 7) + 11) % 7, yday, hh = secs / 3600, mi = secs / 60 % 60, ss = secs % 60;
    static const int cum[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    size_t i;
    char t2[64];
    if (m <= 2) y++;
    yday = cum[m - 1] + d - 1 + (m > 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
    for (i = 0; i < n; i++) {
        if (f[i] != '%' || i + 1 >= n) { xlarun__jputc(b, f[i]); continue; }
        i++;
        t2[0] = 0;
        switch (f[i]) {
        case 'd': snprintf(t2, sizeof t2, "%02d", XLARUN__CAST(int, d)); break;
        case 'e': snprintf(t2, sizeof t2, "%2d", XLARUN__CAST(int, d)); break;
        case 'm': snprintf(t2, sizeof t2, "%02d", XLARUN__CAST(int, m)); break;
        case 'Y': snprintf(t2, sizeof t2, "%lld", XLARUN__CAST(long long, y)); break;
        case 'y': snprintf(t2, sizeof t2, "%02d", XLARUN__CAST(int, ((y % 100) + 100) % 100)); break;
        case 'b': case 'h': snprintf(t2, sizeof t2, "%.3s", months[m - 1]); break;
        case 'B': snprintf(t2, sizeof t2, "%s", months[m - 1]); break;
        case 'a': snprintf(t2, sizeof t2, "%.3s", days[wday]); break;
        case 'A': snprintf(t2, sizeof t2, "%s", days[wday]); break;
        case 'H': snprintf(t2, sizeof t2, "%02d", XLARUN__CAST(int, hh)); break;
        case 'I': snprintf(t2, sizeof t2, "%02d", XLARUN__CAST(int, hh % 12 ? hh % 12 : 12)); break;
        case 'M': snprintf(t2, sizeof t2, "%02d", XLARUN__CAST(int, mi)); break;
        case 'S': snprintf(t2, sizeof t2, "%02d", XLARUN__CAST(int, ss)); break;
        case 'p': snprintf(t2, sizeof t2, "%s", hh < 12 ? "AM" : "PM"); break;
        case 'j': snprintf(t2, sizeof t2, "%03d", XLARUN__CAST(int, yday + 1)); break;
        case 'w': snprintf(t2, sizeof t2, "%d", XLARUN__CAST(int, wday)); break;
        case 'u': snprintf(t2, sizeof t2, "%d", XLARUN__CAST(int, wday ? wday : 7)); break;
        case 'F': snprintf(t2, sizeof t2, "%lld-%02d-%02d", XLARUN__CAST(long long, y), XLARUN__CAST(int, m), XLARUN__CAST(int, d)); break;
        case 'T': snprintf(t2, sizeof t2, "%02d:%02d:%02d", XLARUN__CAST(int, hh), XLARUN__CAST(int, mi), XLARUN__CAST(int, ss)); break;
        case 'Z': snprintf(t2, sizeof t2, "UTC"); break;
        case 'z': snprintf(t2, sizeof t2, "+0000"); break;
        case '%': snprintf(t2, sizeof t2, "%%"); break;
        default: t2[0] = '%'; t2[1] = f[i]; t2[2] = 0;
        }
        xlarun__jputs(b, t2);
    }
}

enum { JF_RANGE = 1, JF_DICT, JF_NAMESPACE, JF_CYCLER, JF_JOINER, JF_RAISE, JF_STRFTIME };

static xlarun_status xlarun__jcall_macro(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jclosure *c, xlarun__jargv *A,
                                         xlarun__jclosure *caller, xlarun__jv *out);

/* transformers' namespace refuses names that start with an underscore */
static xlarun_status xlarun__jns_name_err(xlarun__jrun *R, const xlarun__jnode *at, const char *name, size_t n) {
    return xlarun__jfail(R, at, "Chat templates cannot store underscore-prefixed attributes on a namespace, but got '%.*s'. "
                         "Please rename the attribute.", XLARUN__CAST(int, n > 60 ? 60 : n), name);
}

/* the text a callable gives for str methods that take a "chars" argument: whitespace when None */
static int xlarun__jstrip_has(const xlarun__jv *chars, unsigned c) {
    size_t i = 0;
    if (!chars || chars->t == XJ_NONE) return xlarun__jspace(c);
    while (i < chars->u.s.n)
        if (xlarun__jcp(chars->u.s.p, chars->u.s.n, &i) == c) return 1;
    return 0;
}

static void xlarun__jstrip_span(const xlarun__jv *s, const xlarun__jv *chars, int left, int right, size_t *b, size_t *e) {
    const char *p = s->u.s.p;
    size_t n = s->u.s.n;
    *b = 0;
    *e = n;
    if (left)
        while (*b < n) {
            size_t k = *b;
            if (!xlarun__jstrip_has(chars, xlarun__jcp(p, n, &k))) break;
            *b = k;
        }
    if (right)
        while (*e > *b) {
            size_t k = *e - 1, j;
            while (k > *b && (XLARUN__CAST(unsigned char, p[k]) & 0xC0) == 0x80) k--;
            j = k;
            if (!xlarun__jstrip_has(chars, xlarun__jcp(p, n, &j))) break;
            *e = k;
        }
}

/* ASCII and Latin-1 case mapping (Python maps all of Unicode; others stay as they are) */
static unsigned xlarun__jupper_cp(unsigned c) {
    if (c >= 'a' && c <= 'z') return c - 32;
    if ((c >= 0xE0 && c <= 0xFE && c != 0xF7)) return c - 32;
    if (c == 0xFF) return 0x178;
    return c;
}
static unsigned xlarun__jlower_cp(unsigned c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;
    if (c == 0x178) return 0xFF;
    return c;
}
static int xlarun__jalpha_cp(unsigned c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) || c > 0x370;
}

/* a letter whose case Python maps and xlarun does not: outside ASCII and Latin-1 (Latin Extended,
   Greek, Cyrillic, Armenian, Georgian, Cherokee, Glagolitic, Coptic, fullwidth Latin, ...) */
static int xlarun__jcased_beyond(unsigned c) {
    return (c >= 0x100 && c <= 0x58F) || (c >= 0x10A0 && c <= 0x10FF) || (c >= 0x13A0 && c <= 0x13FF) ||
           (c >= 0x1C80 && c <= 0x1CBF) || (c >= 0x1D00 && c <= 0x1FFF) || (c >= 0x2160 && c <= 0x218F) ||
           (c >= 0x24B6 && c <= 0x24E9) || (c >= 0x2C00 && c <= 0x2D2F) || (c >= 0xA640 && c <= 0xA7FF) ||
           (c >= 0xAB30 && c <= 0xABBF) || (c >= 0xFB00 && c <= 0xFB17) || (c >= 0xFF21 && c <= 0xFF5A) ||
           (c >= 0x10400 && c <= 0x104FF) || (c >= 0x10C80 && c <= 0x10CFF) || (c >= 0x118A0 && c <= 0x118DF) ||
           (c >= 0x16E40 && c <= 0x16E9F) || (c >= 0x1E900 && c <= 0x1E95F);
}
/* Python's "cased" (str.title's word boundaries) within ASCII and Latin-1 */
static int xlarun__jcased_cp(unsigned c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xFF && c != 0xD7 && c != 0xF7) ||
           c == 0xAA || c == 0xB5 || c == 0xBA;
}

/* mode: 0 upper, 1 lower, 2 title, 3 capitalize; as Python for ASCII and Latin-1 (ß -> SS, µ -> Μ),
   refused for a cased letter beyond them rather than left as it is */
static xlarun_status xlarun__jcase(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *s, int mode, xlarun__jv *out) {
    xlarun__jbuf b;
    size_t i = 0;
    int prev_cased = 0, first = 1;
    xlarun__jbuf_init(&b, R->mem);
    while (i < s->u.s.n) {
        unsigned c = xlarun__jcp(s->u.s.p, s->u.s.n, &i), o;
        char e[4];
        int up = mode == 0 || (mode == 2 && !prev_cased) || (mode == 3 && first);
        if (xlarun__jcased_beyond(c))
            return xlarun__jfail(R, at, "xlarun maps upper and lower case in ASCII and Latin-1 only, not U+%04X as Python does", c);
        if (up && c == 0xDF) xlarun__jput(&b, mode == 0 ? "SS" : "Ss", 2); /* ß */
        else {
            o = !up ? xlarun__jlower_cp(c) : c == 0xB5 ? 0x39C : xlarun__jupper_cp(c);
            xlarun__jput(&b, e, xlarun__jenc(o, e));
        }
        prev_cased = xlarun__jcased_cp(c);
        first = 0;
    }
    return xlarun__jbuf_value(R, &b, out);
}

/* Python's str.splitlines() boundaries */
static size_t xlarun__jline_break(const char *s, size_t n, size_t i) {
    size_t k = i;
    unsigned c = xlarun__jcp(s, n, &k);
    if (c == '\r') return k < n && s[k] == '\n' ? k + 1 : k;
    if (c == '\n' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E || c == 0x85 || c == 0x2028 || c == 0x2029)
        return k;
    return 0;
}

static xlarun_status xlarun__jsplitlines(xlarun__jrun *R, const xlarun__jv *s, xlarun__jv *out) {
    size_t i = 0, st = 0, cnt = 0, pass;
    for (pass = 0; pass < 2; pass++) {
        i = st = 0;
        cnt = 0;
        while (i < s->u.s.n) {
            size_t e = xlarun__jline_break(s->u.s.p, s->u.s.n, i);
            if (e) {
                if (pass) out->u.l->v[cnt] = xlarun__jstr(s->u.s.p + st, i - st);
                cnt++;
                i = st = e;
            } else xlarun__jcp(s->u.s.p, s->u.s.n, &i);
        }
        if (st < s->u.s.n) { if (pass) out->u.l->v[cnt] = xlarun__jstr(s->u.s.p + st, s->u.s.n - st); cnt++; }
        if (!pass) XLARUN__TRY(xlarun__jseq_new(R, cnt, XJ_LIST, out));
    }
    return XLARUN_OK;
}

/* the start of the code point before byte e (e > lo) */
static size_t xlarun__jprev(const char *p, size_t lo, size_t e) {
    size_t k = e - 1;
    while (k > lo && (XLARUN__CAST(unsigned char, p[k]) & 0xC0) == 0x80) k--;
    return k;
}
static int xlarun__jspace_at(const char *p, size_t n, size_t i) { return xlarun__jspace(xlarun__jcp(p, n, &i)); }

/* str.split / rsplit (sep None: runs of whitespace, no empty pieces); two passes: count, fill */
static xlarun_status xlarun__jsplit(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *s, const xlarun__jv *sep,
                                    int64_t maxsplit, int right, xlarun__jv *out) {
    const char *p = s->u.s.p;
    size_t n = s->u.s.n, pass, cnt = 0;
    int ws = !sep || sep->t == XJ_NONE;
    if (!ws && sep->t != XJ_STR) return xlarun__jfail(R, at, "must be str or None, not %s", xlarun__jtype_name(sep));
    if (!ws && !sep->u.s.n) return xlarun__jfail(R, at, "empty separator");
    memset(out, 0, sizeof *out);
    for (pass = 0; pass < 2; pass++) {
        int64_t splits = 0;
        size_t b = 0, e = n; /* the part not yet split */
        cnt = 0;
#define XJ_PIECE(st, en) do { if (pass) out->u.l->v[right ? out->u.l->n - 1 - cnt : cnt] = xlarun__jstr(p + (st), (en) - (st)); cnt++; } while (0)
        if (ws) { /* the remainder after maxsplit keeps its far side's whitespace, as Python */
            while (1) {
                size_t st, en;
                if (!right) { while (b < n && xlarun__jspace_at(p, n, b)) xlarun__jcp(p, n, &b); if (b >= n) break; }
                else { while (e > 0 && xlarun__jspace_at(p, n, xlarun__jprev(p, 0, e))) e = xlarun__jprev(p, 0, e); if (!e) break; }
                if (maxsplit >= 0 && splits >= maxsplit) {
                    if (!right) XJ_PIECE(b, n); else XJ_PIECE(0, e);
                    break;
                }
                if (!right) {
                    st = b;
                    while (b < n && !xlarun__jspace_at(p, n, b)) xlarun__jcp(p, n, &b);
                    XJ_PIECE(st, b);
                } else {
                    en = e;
                    while (e > 0 && !xlarun__jspace_at(p, n, xlarun__jprev(p, 0, e))) e = xlarun__jprev(p, 0, e);
                    XJ_PIECE(e, en);
                }
                splits++;
            }
        } else {
            const char *q = sep->u.s.p;
            size_t m = sep->u.s.n;
            if (!right) {
                size_t i = 0, st = 0;
                while (i + m <= n && (maxsplit < 0 || splits < maxsplit)) {
                    if (!memcmp(p + i, q, m)) { XJ_PIECE(st, i); splits++; i += m; st = i; }
                    else i++;
                }
                XJ_PIECE(st, n);
            } else {
                size_t i = n, en = n;
                while (i >= m && (maxsplit < 0 || splits < maxsplit)) {
                    if (!memcmp(p + i - m, q, m)) { XJ_PIECE(i, en); splits++; i -= m; en = i; }
                    else i--;
                }
                XJ_PIECE(0, en);
            }
        }
#undef XJ_PIECE
        if (!pass) XLARUN__TRY(xlarun__jseq_new(R, cnt, XJ_LIST, out));
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__jto_int(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *v, int64_t *out) {
    if (!v || (v->t != XJ_INT && v->t != XJ_BOOL)) return xlarun__jfail(R, at, "an integer is required");
    *out = v->u.i;
    return XLARUN_OK;
}

/* str.replace, also the replace filter */
static xlarun_status xlarun__jreplace(xlarun__jrun *R, const xlarun__jv *s, const xlarun__jv *old, const xlarun__jv *nw,
                                      int64_t count, xlarun__jv *out) {
    xlarun__jbuf b;
    size_t i = 0;
    int64_t done = 0;
    xlarun__jbuf_init(&b, R->mem);
    b.limit = R->max_output;
    if (!old->u.s.n) { /* between every character */
        while (i <= s->u.s.n) {
            size_t st = i;
            if (count < 0 || done < count) { xlarun__jput(&b, nw->u.s.p, nw->u.s.n); done++; }
            if (i == s->u.s.n) break;
            xlarun__jcp(s->u.s.p, s->u.s.n, &i);
            xlarun__jput(&b, s->u.s.p + st, i - st);
        }
        return xlarun__jbuf_value(R, &b, out);
    }
    while (i < s->u.s.n) {
        if ((count < 0 || done < count) && i + old->u.s.n <= s->u.s.n && !memcmp(s->u.s.p + i, old->u.s.p, old->u.s.n)) {
            xlarun__jput(&b, nw->u.s.p, nw->u.s.n);
            i += old->u.s.n;
            done++;
        } else xlarun__jputc(&b, s->u.s.p[i++]);
    }
    return xlarun__jbuf_value(R, &b, out);
}

/* 'sep'.join(items) and the join filter */
static xlarun_status xlarun__jjoin(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jseq *items, const char *sep, size_t sn,
                                   int strict, xlarun__jv *out) {
    xlarun__jbuf b;
    size_t i;
    xlarun__jbuf_init(&b, R->mem);
    for (i = 0; i < items->n; i++) {
        if (strict && items->v[i].t != XJ_STR)
            return xlarun__jfail(R, at, "sequence item %lu: expected str instance, %s found", XLARUN__CAST(unsigned long, i),
                                 xlarun__jtype_name(&items->v[i]));
        if (i) xlarun__jput(&b, sep, sn);
        if (items->v[i].t == XJ_UNDEF && items->v[i].aux == 2) return xlarun__jundef_err(R, at, &items->v[i]);
        xlarun__jwrite(&b, &items->v[i], 0);
    }
    return xlarun__jbuf_value(R, &b, out);
}

/* "{} {}".format(a, b) and "{0}" / "{name}" */
static xlarun_status xlarun__jstr_format(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *s, xlarun__jargv *A, xlarun__jv *out) {
    xlarun__jbuf b;
    size_t i = 0, auto_i = 0;
    xlarun__jbuf_init(&b, R->mem);
    while (i < s->u.s.n) {
        char c = s->u.s.p[i];
        if (c == '{' && i + 1 < s->u.s.n && s->u.s.p[i + 1] == '{') { xlarun__jputc(&b, '{'); i += 2; continue; }
        if (c == '}' && i + 1 < s->u.s.n && s->u.s.p[i + 1] == '}') { xlarun__jputc(&b, '}'); i += 2; continue; }
        if (c == '{') {
            size_t e = i + 1;
            const xlarun__jv *v = NULL;
            while (e < s->u.s.n && s->u.s.p[e] != '}') e++;
            if (e >= s->u.s.n) return xlarun__jfail(R, at, "Single '{' encountered in format string");
            if (e == i + 1) v = auto_i < A->np ? &A->pos[auto_i++] : NULL;
            else if (s->u.s.p[i + 1] >= '0' && s->u.s.p[i + 1] <= '9') {
                size_t k = XLARUN__CAST(size_t, strtoul(s->u.s.p + i + 1, NULL, 10));
                v = k < A->np ? &A->pos[k] : NULL;
            } else {
                size_t k;
                for (k = 0; k < A->nk; k++)
                    if (A->kl[k] == e - i - 1 && !memcmp(A->kn[k], s->u.s.p + i + 1, A->kl[k])) v = &A->kv[k];
            }
            if (!v) return xlarun__jfail(R, at, "str.format: a replacement field without its argument (only {}, {N} and {name} are supported)");
            xlarun__jwrite(&b, v, 0);
            i = e + 1;
            continue;
        }
        xlarun__jputc(&b, c);
        i++;
    }
    return xlarun__jbuf_value(R, &b, out);
}

static xlarun_status xlarun__jcall_method(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *m, xlarun__jargv *A,
                                          xlarun__jv *out) {
    const xlarun__jv *self = m->u.self;
    const xlarun__jv *a0 = xlarun__jarg(A, 0, NULL), *a1 = xlarun__jarg(A, 1, NULL);
    const char *name = m->aux < JM_LOOP_CYCLE ? xlarun__jmethod_names[m->aux] : "method";
    int id = m->aux;
    if (id == JM_LOOP_CYCLE) {
        if (!A->np) return xlarun__jfail(R, at, "no items for cycling given");
        *out = A->pos[self->u.loop->i % A->np];
        return XLARUN_OK;
    }
    if (id == JM_CYCLER_NEXT) {
        xlarun__jcyc *c = self->u.cyc;
        if (c->used) c->i = (c->i + 1) % c->items.n;
        c->used = 1;
        *out = c->items.v[c->i];
        return XLARUN_OK;
    }
    if (id == JM_CYCLER_RESET) { self->u.cyc->i = 0; self->u.cyc->used = 0; *out = xlarun__jmk(XJ_NONE); return XLARUN_OK; }
    if (self->t == XJ_DICT) {
        const xlarun__jmap *d = self->u.d;
        if (id == JM_GET) {
            const xlarun__jv *v;
            if (!a0) return xlarun__jfail(R, at, "get expected at least 1 argument, got 0");
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, "get"));
            v = xlarun__jmap_find(d, a0);
            *out = v ? *v : a1 ? *a1 : xlarun__jmk(XJ_NONE);
            return XLARUN_OK;
        }
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, name));
        if (id == JM_KEYS || id == JM_VALUES) {
            XLARUN__TRY(xlarun__jseq_new(R, d->n, XJ_LIST, out));
            if (d->n) memcpy(out->u.l->v, id == JM_KEYS ? d->k : d->v, d->n * sizeof(xlarun__jv));
            out->aux = XJ_VIEW;
            return XLARUN_OK;
        }
        if (id == JM_ITEMS) {
            size_t i;
            XLARUN__TRY(xlarun__jseq_new(R, d->n, XJ_LIST, out));
            for (i = 0; i < d->n; i++) {
                XLARUN__TRY(xlarun__jseq_new(R, 2, XJ_TUPLE, &out->u.l->v[i]));
                out->u.l->v[i].u.l->v[0] = d->k[i];
                out->u.l->v[i].u.l->v[1] = d->v[i];
            }
            out->aux = XJ_VIEW;
            return XLARUN_OK;
        }
    }
    if (self->t == XJ_LIST || self->t == XJ_TUPLE) {
        size_t i, cnt = 0;
        if (!a0) return xlarun__jfail(R, at, "%s() takes exactly one argument (0 given)", name);
        for (i = 0; i < self->u.l->n; i++)
            if (xlarun__jeq(&self->u.l->v[i], a0)) {
                if (id == JM_INDEX) { *out = xlarun__jint(XLARUN__CAST(int64_t, i)); return XLARUN_OK; }
                cnt++;
            }
        if (id == JM_INDEX) return xlarun__jfail(R, at, "value is not in list");
        *out = xlarun__jint(XLARUN__CAST(int64_t, cnt));
        return XLARUN_OK;
    }
    /* str */
    switch (id) {
    case JM_STRIP: case JM_LSTRIP: case JM_RSTRIP: {
        size_t b, e;
        if (a0 && a0->t != XJ_STR && a0->t != XJ_NONE) return xlarun__jfail(R, at, "%s arg must be None or str", name);
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 1, name));
        xlarun__jstrip_span(self, a0, id != JM_RSTRIP, id != JM_LSTRIP, &b, &e);
        *out = xlarun__jstr(self->u.s.p + b, e - b);
        return XLARUN_OK;
    }
    case JM_SPLIT: case JM_RSPLIT: {
        const xlarun__jv *sep = xlarun__jarg(A, 0, "sep"), *mx = xlarun__jarg(A, 1, "maxsplit");
        int64_t maxsplit = -1;
        if (mx) XLARUN__TRY(xlarun__jto_int(R, at, mx, &maxsplit));
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, name));
        return xlarun__jsplit(R, at, self, sep, maxsplit, id == JM_RSPLIT, out);
    }
    case JM_STARTSWITH: case JM_ENDSWITH: {
        size_t k, cnt = 1;
        const xlarun__jv *opts = a0;
        *out = xlarun__jbool(0);
        if (!a0) return xlarun__jfail(R, at, "%s takes at least 1 argument", name);
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 1, name));
        if (a0->t == XJ_TUPLE) { cnt = a0->u.l->n; opts = a0->u.l->v; }
        for (k = 0; k < cnt; k++) {
            const xlarun__jv *o = &opts[k];
            if (o->t != XJ_STR) return xlarun__jfail(R, at, "%s first arg must be str or a tuple of str, not %s", name, xlarun__jtype_name(o));
            if (o->u.s.n <= self->u.s.n &&
                !memcmp(self->u.s.p + (id == JM_STARTSWITH ? 0 : self->u.s.n - o->u.s.n), o->u.s.p, o->u.s.n)) {
                *out = xlarun__jbool(1);
                break;
            }
        }
        return XLARUN_OK;
    }
    case JM_REPLACE: {
        int64_t count = -1;
        const xlarun__jv *c = xlarun__jarg(A, 2, "count");
        if (!xlarun__jarg_str(a0) || !xlarun__jarg_str(a1)) return xlarun__jfail(R, at, "replace() arguments must be str");
        if (c) XLARUN__TRY(xlarun__jto_int(R, at, c, &count));
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 3, name));
        return xlarun__jreplace(R, self, a0, a1, count, out);
    }
    case JM_UPPER: case JM_LOWER: case JM_TITLE: case JM_CAPITALIZE:
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, name));
        return xlarun__jcase(R, at, self, id == JM_UPPER ? 0 : id == JM_LOWER ? 1 : id == JM_TITLE ? 2 : 3, out);
    case JM_FIND: case JM_RFIND: case JM_COUNT: case JM_INDEX: {
        size_t i, cnt = 0;
        int64_t found = -1;
        if (!xlarun__jarg_str(a0)) return xlarun__jfail(R, at, "%s() argument must be str", name);
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 1, name));
        for (i = 0; i + a0->u.s.n <= self->u.s.n; i++)
            if (!memcmp(self->u.s.p + i, a0->u.s.p, a0->u.s.n)) {
                if (found < 0 || id == JM_RFIND) found = XLARUN__CAST(int64_t, xlarun__jlen(self->u.s.p, i));
                cnt++;
                if (id == JM_COUNT && a0->u.s.n) i += a0->u.s.n - 1;
                if (id == JM_FIND || id == JM_INDEX) break;
            }
        if (id == JM_COUNT) { *out = xlarun__jint(XLARUN__CAST(int64_t, a0->u.s.n ? cnt : xlarun__jlen(self->u.s.p, self->u.s.n) + 1)); return XLARUN_OK; }
        if (id == JM_INDEX && found < 0) return xlarun__jfail(R, at, "substring not found");
        *out = xlarun__jint(found);
        return XLARUN_OK;
    }
    case JM_JOIN: {
        xlarun__jseq items;
        if (!a0) return xlarun__jfail(R, at, "join() takes exactly one argument (0 given)");
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 1, name));
        XLARUN__TRY(xlarun__jiter(R, at, a0, &items));
        return xlarun__jjoin(R, at, &items, self->u.s.p, self->u.s.n, 1, out);
    }
    case JM_SPLITLINES: XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, name)); return xlarun__jsplitlines(R, self, out);
    case JM_ISDIGIT: case JM_ISALPHA: case JM_ISALNUM: case JM_ISSPACE: case JM_ISUPPER: case JM_ISLOWER: {
        size_t i = 0;
        int ok = self->u.s.n > 0, cased = 0;
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, name));
        while (ok && i < self->u.s.n) {
            unsigned c = xlarun__jcp(self->u.s.p, self->u.s.n, &i);
            int dig = c >= '0' && c <= '9', al = xlarun__jalpha_cp(c);
            if (id == JM_ISDIGIT) ok = dig;
            else if (id == JM_ISALPHA) ok = al;
            else if (id == JM_ISALNUM) ok = al || dig;
            else if (id == JM_ISSPACE) ok = xlarun__jspace(c);
            else {
                int up = xlarun__jlower_cp(c) != c, lo = xlarun__jupper_cp(c) != c;
                if (up || lo) cased = 1;
                ok = id == JM_ISUPPER ? !lo : !up;
            }
        }
        if ((id == JM_ISUPPER || id == JM_ISLOWER) && !cased) ok = 0;
        *out = xlarun__jbool(ok);
        return XLARUN_OK;
    }
    case JM_REMOVEPREFIX: case JM_REMOVESUFFIX:
        if (!xlarun__jarg_str(a0)) return xlarun__jfail(R, at, "%s() argument must be str", name);
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 1, name));
        *out = *self;
        if (a0->u.s.n <= self->u.s.n) {
            if (id == JM_REMOVEPREFIX && !memcmp(self->u.s.p, a0->u.s.p, a0->u.s.n)) { out->u.s.p += a0->u.s.n; out->u.s.n -= a0->u.s.n; }
            if (id == JM_REMOVESUFFIX && !memcmp(self->u.s.p + self->u.s.n - a0->u.s.n, a0->u.s.p, a0->u.s.n)) out->u.s.n -= a0->u.s.n;
        }
        return XLARUN_OK;
    case JM_FORMAT: return xlarun__jstr_format(R, at, self, A, out);
    default: break;
    }
    return xlarun__jfail(R, at, "'%s' is not callable here", name);
}

static xlarun_status xlarun__jcall_value(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *fn, xlarun__jargv *A,
                                         xlarun__jclosure *caller, xlarun__jv *out) {
    XLARUN__TRY(xlarun__jstep(R, at));
    switch (fn->t) {
    case XJ_MACRO: return xlarun__jcall_macro(R, at, fn->u.m, A, caller, out);
    case XJ_METHOD: return xlarun__jcall_method(R, at, fn, A, out);
    case XJ_JOINER: {
        xlarun__jcyc *c = fn->u.cyc;
        if (!c->used) { c->used = 1; *out = xlarun__jstr("", 0); }
        else *out = c->items.v[0];
        return XLARUN_OK;
    }
    case XJ_FUNC: break;
    case XJ_UNDEF: return xlarun__jundef_err(R, at, fn);
    default: return xlarun__jfail(R, at, "'%s' object is not callable", xlarun__jtype_name(fn));
    }
    switch (fn->aux) {
    case JF_RANGE: {
        int64_t a = 0, b = 0, s = 1, n, k;
        size_t i;
        if (A->np < 1 || A->np > 3 || A->nk) return xlarun__jfail(R, at, "range expected 1 to 3 integer arguments");
        for (i = 0; i < A->np; i++)
            if (A->pos[i].t != XJ_INT && A->pos[i].t != XJ_BOOL)
                return xlarun__jfail(R, at, "'%s' object cannot be interpreted as an integer", xlarun__jtype_name(&A->pos[i]));
        if (A->np == 1) b = A->pos[0].u.i;
        else { a = A->pos[0].u.i; b = A->pos[1].u.i; if (A->np == 3) s = A->pos[2].u.i; }
        if (s == 0) return xlarun__jfail(R, at, "range() arg 3 must not be zero");
        if ((s > 0 && a >= b) || (s < 0 && a <= b)) n = 0;
        else if (s > 0) n = (b - a + s - 1) / s;
        else n = (a - b - s - 1) / -s;
        if (n > 100000) return xlarun__jfail(R, at, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
        XLARUN__TRY(xlarun__jseq_new(R, XLARUN__CAST(size_t, n), XJ_LIST, out));
        for (k = 0; k < n; k++) out->u.l->v[k] = xlarun__jint(a + k * s);
        return XLARUN_OK;
    }
    case JF_DICT: case JF_NAMESPACE: {
        size_t i;
        XLARUN__TRY(xlarun__jmap_new(R, A->nk + 4, fn->aux == JF_DICT ? XJ_DICT : XJ_NS, out));
        if (A->np > 1 || (A->np == 1 && A->pos[0].t != XJ_DICT && A->pos[0].t != XJ_NS))
            return xlarun__jfail(R, at, "%s() takes a mapping and keyword arguments", fn->aux == JF_DICT ? "dict" : "namespace");
        if (A->np == 1)
            for (i = 0; i < A->pos[0].u.d->n; i++) XLARUN__TRY(xlarun__jmap_set(R, out->u.d, &A->pos[0].u.d->k[i], &A->pos[0].u.d->v[i]));
        for (i = 0; i < A->nk; i++) {
            xlarun__jv k = xlarun__jstr(A->kn[i], A->kl[i]);
            if (fn->aux == JF_NAMESPACE && A->kl[i] && A->kn[i][0] == '_') return xlarun__jns_name_err(R, at, A->kn[i], A->kl[i]);
            XLARUN__TRY(xlarun__jmap_set(R, out->u.d, &k, &A->kv[i]));
        }
        return XLARUN_OK;
    }
    case JF_CYCLER: case JF_JOINER: {
        xlarun__jcyc *c = XLARUN__CAST(xlarun__jcyc *, xlarun__jnewmem(R, sizeof *c));
        if (!c) return xlarun__joom(R);
        memset(c, 0, sizeof *c);
        if (fn->aux == JF_CYCLER) {
            if (!A->np) return xlarun__jfail(R, at, "cycler needs at least one item");
            XLARUN__TRY(xlarun__jseq_new(R, A->np, XJ_LIST, out));
            memcpy(out->u.l->v, A->pos, A->np * sizeof(xlarun__jv));
            c->items = *out->u.l;
            *out = xlarun__jmk(XJ_CYCLER);
        } else {
            const xlarun__jv *sep = xlarun__jarg(A, 0, "sep");
            XLARUN__TRY(xlarun__jseq_new(R, 1, XJ_LIST, out));
            out->u.l->v[0] = sep ? *sep : xlarun__jstr(", ", 2);
            c->items = *out->u.l;
            *out = xlarun__jmk(XJ_JOINER);
        }
        out->u.cyc = c;
        return XLARUN_OK;
    }
    case JF_RAISE: {
        xlarun__jbuf b;
        xlarun__jv msg;
        xlarun__jbuf_init(&b, R->mem);
        if (A->np) xlarun__jwrite(&b, &A->pos[0], 0);
        XLARUN__TRY(xlarun__jbuf_value(R, &b, &msg));
        return xlarun__fail(R->err, XLARUN_ERR_ARGUMENT, "chat template line %u: %.*s", XLARUN__CAST(unsigned, at->line),
                            XLARUN__CAST(int, msg.u.s.n > 900 ? 900 : msg.u.s.n), msg.u.s.p);
    }
    case JF_STRFTIME: {
        xlarun__jbuf b;
        if (A->np != 1 || A->pos[0].t != XJ_STR) return xlarun__jfail(R, at, "strftime_now takes one format string");
        xlarun__jbuf_init(&b, R->mem);
        xlarun__jstrftime(&b, A->pos[0].u.s.p, A->pos[0].u.s.n, R->now);
        return xlarun__jbuf_value(R, &b, out);
    }
    default: break;
    }
    return xlarun__jfail(R, at, "not callable");
}

/* the body of a macro (or of a call block, for caller()) in a new scope; its output is the value */
static xlarun_status xlarun__jcall_macro(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jclosure *c, xlarun__jargv *A,
                                         xlarun__jclosure *caller, xlarun__jv *out) {
    xlarun__jframe *f = NULL;
    xlarun__jbuf b, *saved = R->out;
    const xlarun__jnode *p, *params = c->node->kind == JN_MACRO ? c->node->a : c->node->b;
    size_t k = 0, i;
    xlarun_status st;
    int saved_jump = R->jump;
    if (R->calls >= XLARUN_JINJA_MAX_CALLS)
        return xlarun__jfail(R, at, "more than %d macro calls in progress (a recursion that does not end?)", XLARUN_JINJA_MAX_CALLS);
    XLARUN__TRY(xlarun__jframe_new(R, c->frame, &f));
    for (p = params; p; p = p->next, k++) {
        const xlarun__jv *v = k < A->np ? &A->pos[k] : NULL;
        xlarun__jv dv;
        for (i = 0; !v && i < A->nk; i++)
            if (A->kl[i] == p->n && !memcmp(A->kn[i], p->s, p->n)) { v = &A->kv[i]; A->used[i] = 1; }
        if (!v) {
            if (p->a) {
                xlarun__jframe *cur = R->frame;
                R->frame = f;
                st = xlarun__jeval(R, p->a, &dv);
                R->frame = cur;
                XLARUN__TRY(st);
            } else dv = xlarun__jundef(p->s, p->n, 0);
            v = &dv;
        }
        XLARUN__TRY(xlarun__jframe_set(R, f, p->s, p->n, v));
    }
    if (A->np > k) return xlarun__jfail(R, at, "macro '%.*s' takes not more than %lu argument(s)",
                                        XLARUN__CAST(int, c->node->n), c->node->s ? c->node->s : "", XLARUN__CAST(unsigned long, k));
    for (i = 0; i < A->nk; i++)
        if (!A->used[i]) return xlarun__jfail(R, at, "macro '%.*s' takes no keyword argument '%.*s'", XLARUN__CAST(int, c->node->n),
                                              c->node->s ? c->node->s : "", XLARUN__CAST(int, A->kl[i]), A->kn[i]);
    if (caller) { /* called by a call block: caller() renders its body */
        xlarun__jv cv = xlarun__jmk(XJ_MACRO);
        cv.u.m = caller;
        XLARUN__TRY(xlarun__jframe_set(R, f, "caller", 6, &cv));
    }
    xlarun__jbuf_init(&b, R->mem);
    b.limit = R->max_output;
    R->out = &b;
    R->calls++;
    R->jump = 0;
    st = xlarun__jexec(R, c->node->c, f);
    R->calls--;
    R->out = saved;
    R->jump = saved_jump;
    XLARUN__TRY(st);
    return xlarun__jbuf_value(R, &b, out);
}

/* ---- tests (x is name) ---------------------------------------------------------------------------- */
static xlarun_status xlarun__jtest(xlarun__jrun *R, const xlarun__jnode *at, const char *name, size_t n, const xlarun__jv *v,
                                   xlarun__jargv *A, int *res) {
    const xlarun__jv *a0 = xlarun__jarg(A, 0, NULL);
#define XJ_T(lit) (n == sizeof(lit) - 1 && !memcmp(name, lit, n))
    if (XJ_T("defined")) { *res = v->t != XJ_UNDEF; return XLARUN_OK; }
    if (XJ_T("undefined")) { *res = v->t == XJ_UNDEF; return XLARUN_OK; }
    if (XJ_T("none")) { *res = v->t == XJ_NONE; return XLARUN_OK; }
    if (XJ_T("boolean")) { *res = v->t == XJ_BOOL; return XLARUN_OK; }
    if (XJ_T("true")) { *res = v->t == XJ_BOOL && v->u.i; return XLARUN_OK; }
    if (XJ_T("false")) { *res = v->t == XJ_BOOL && !v->u.i; return XLARUN_OK; }
    if (XJ_T("integer")) { *res = v->t == XJ_INT; return XLARUN_OK; }
    if (XJ_T("float")) { *res = v->t == XJ_FLOAT; return XLARUN_OK; }
    if (XJ_T("number")) { *res = xlarun__jis_num(v); return XLARUN_OK; }
    if (XJ_T("string")) { *res = v->t == XJ_STR; return XLARUN_OK; }
    if (XJ_T("mapping")) { *res = v->t == XJ_DICT; return XLARUN_OK; }
    if (XJ_T("sequence")) { *res = v->t == XJ_STR || v->t == XJ_DICT || ((v->t == XJ_LIST || v->t == XJ_TUPLE) && !(v->aux & XJ_GEN)); return XLARUN_OK; }
    if (XJ_T("iterable")) { *res = v->t == XJ_STR || v->t == XJ_DICT || v->t == XJ_LIST || v->t == XJ_TUPLE || v->t == XJ_UNDEF; return XLARUN_OK; }
    if (XJ_T("callable")) { *res = v->t == XJ_MACRO || v->t == XJ_FUNC || v->t == XJ_METHOD || v->t == XJ_JOINER; return XLARUN_OK; }
    if (XJ_T("odd") || XJ_T("even") || XJ_T("divisibleby")) {
        int64_t d = 2, r;
        if (v->t != XJ_INT && v->t != XJ_BOOL) return xlarun__jfail(R, at, "the %.*s test needs an integer", XLARUN__CAST(int, n), name);
        if (XJ_T("divisibleby")) {
            if (!a0 || (a0->t != XJ_INT && a0->t != XJ_BOOL) || a0->u.i == 0) return xlarun__jfail(R, at, "divisibleby needs a non-zero integer");
            d = a0->u.i;
        }
        r = v->u.i % d;
        *res = XJ_T("odd") ? r != 0 : r == 0;
        return XLARUN_OK;
    }
    if (XJ_T("lower") || XJ_T("upper")) {
        xlarun__jv t;
        if (v->t != XJ_STR) { *res = 0; return XLARUN_OK; }
        XLARUN__TRY(xlarun__jcase(R, at, v, XJ_T("lower") ? 1 : 0, &t));
        *res = xlarun__jeq(&t, v);
        return XLARUN_OK;
    }
    if (XJ_T("sameas")) {
        if (!a0) return xlarun__jfail(R, at, "sameas needs an argument");
        *res = (v->t == XJ_NONE || v->t == XJ_BOOL || a0->t == XJ_NONE || a0->t == XJ_BOOL) ? v->t == a0->t && v->u.i == a0->u.i
                                                                                             : xlarun__jeq(v, a0) && v->t == a0->t;
        return XLARUN_OK;
    }
    if (XJ_T("eq") || XJ_T("equalto") || XJ_T("==") || XJ_T("ne") || XJ_T("!=")) {
        if (!a0) return xlarun__jfail(R, at, "the %.*s test needs an argument", XLARUN__CAST(int, n), name);
        *res = xlarun__jeq(v, a0) == (name[0] == 'e' || name[0] == '=');
        return XLARUN_OK;
    }
    if (XJ_T("lt") || XJ_T("lessthan") || XJ_T("le") || XJ_T("gt") || XJ_T("greaterthan") || XJ_T("ge")) {
        int ok = 1, c;
        if (!a0) return xlarun__jfail(R, at, "the %.*s test needs an argument", XLARUN__CAST(int, n), name);
        c = xlarun__jcmp(v, a0, &ok);
        if (!ok) return xlarun__jfail(R, at, "'%s' not supported between instances of '%s' and '%s'", name[0] == 'l' ? "<" : ">",
                                      xlarun__jtype_name(v), xlarun__jtype_name(a0));
        *res = XJ_T("lt") || XJ_T("lessthan") ? c < 0 : XJ_T("le") ? c <= 0 : XJ_T("ge") ? c >= 0 : c > 0;
        return XLARUN_OK;
    }
    if (XJ_T("in")) {
        if (!a0) return xlarun__jfail(R, at, "the in test needs an argument");
        return xlarun__jcontains(R, at, v, a0, res);
    }
    if (XJ_T("escaped")) { *res = 0; return XLARUN_OK; }
#undef XJ_T
    return xlarun__jfail(R, at, "no test named '%.*s'", XLARUN__CAST(int, n), name);
}

/* ---- filters -------------------------------------------------------------------------------------- */
static xlarun_status xlarun__jfilter(xlarun__jrun *R, const xlarun__jnode *at, const char *name, size_t n, const xlarun__jv *v,
                                     xlarun__jargv *A, xlarun__jv *out);

/* item.attribute for map/selectattr/sort/...: dotted paths and integer parts as jinja2's make_attrgetter */
static xlarun_status xlarun__jattr_path(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *item, const xlarun__jv *path,
                                        xlarun__jv *out) {
    size_t i = 0, st;
    *out = *item;
    if (path->t == XJ_INT) return xlarun__jgetitem(R, at, item, path, out);
    if (path->t != XJ_STR) return xlarun__jfail(R, at, "attribute must be a string");
    while (i <= path->u.s.n) {
        xlarun__jv key, cur = *out;
        st = i;
        while (i < path->u.s.n && path->u.s.p[i] != '.') i++;
        key = xlarun__jstr(path->u.s.p + st, i - st);
        if (i > st && path->u.s.p[st] >= '0' && path->u.s.p[st] <= '9') {
            size_t k;
            int64_t num = 0;
            for (k = st; k < i && path->u.s.p[k] >= '0' && path->u.s.p[k] <= '9' && num < 1000000000; k++) num = num * 10 + (path->u.s.p[k] - '0');
            if (k == i) key = xlarun__jint(num);
        }
        XLARUN__TRY(xlarun__jgetitem(R, at, &cur, &key, out));
        i++;
    }
    return XLARUN_OK;
}

/* select/reject/selectattr/rejectattr: the test to apply to one item */
static xlarun_status xlarun__jselect_one(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *item, xlarun__jargv *A,
                                         size_t first_test_arg, int *keep) {
    xlarun__jargv T;
    size_t k;
    if (A->np <= first_test_arg) { *keep = xlarun__jtruth(item); return XLARUN_OK; }
    if (A->pos[first_test_arg].t != XJ_STR) return xlarun__jfail(R, at, "the test name must be a string");
    memset(&T, 0, sizeof T);
    for (k = first_test_arg + 1; k < A->np; k++) T.pos[T.np++] = A->pos[k];
    return xlarun__jtest(R, at, A->pos[first_test_arg].u.s.p, A->pos[first_test_arg].u.s.n, item, &T, keep);
}

/* sort key comparison with case folding as jinja2 (case_sensitive=False lowers strings) */
/* sets *st where lowering fails (xlarun__jcase's refusal), *ok = 0 where Python cannot order the two */
static int xlarun__jsort_cmp(xlarun__jrun *R, const xlarun__jnode *at, const xlarun__jv *a, const xlarun__jv *b, int cs, int *ok,
                             xlarun_status *st) {
    if (!cs && a->t == XJ_STR && b->t == XJ_STR) {
        xlarun__jv la, lb;
        if ((*st = xlarun__jcase(R, at, a, 1, &la)) != XLARUN_OK || (*st = xlarun__jcase(R, at, b, 1, &lb)) != XLARUN_OK) return 0;
        return xlarun__jcmp(&la, &lb, ok);
    }
    return xlarun__jcmp(a, b, ok);
}

static xlarun_status xlarun__jfilter(xlarun__jrun *R, const xlarun__jnode *at, const char *name, size_t n, const xlarun__jv *v,
                                     xlarun__jargv *A, xlarun__jv *out) {
    const xlarun__jv *a0 = xlarun__jarg(A, 0, NULL);
    char fname[40];
    snprintf(fname, sizeof fname, "%.*s", XLARUN__CAST(int, n > 30 ? 30 : n), name);
    XLARUN__TRY(xlarun__jstep(R, at));
#define XJ_F(lit) (n == sizeof(lit) - 1 && !memcmp(name, lit, n))
    if (XJ_F("default") || XJ_F("d")) {
        const xlarun__jv *dv = xlarun__jarg(A, 0, "default_value"), *bo = xlarun__jarg(A, 1, "boolean");
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, fname));
        if (v->t == XJ_UNDEF || (bo && xlarun__jtruth(bo) && !xlarun__jtruth(v))) *out = dv ? *dv : xlarun__jstr("", 0);
        else *out = *v;
        return XLARUN_OK;
    }
    if (v->t == XJ_UNDEF && v->aux == 2) return xlarun__jundef_err(R, at, v);
    if (XJ_F("length") || XJ_F("count")) {
        int64_t len = 0;
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
        XLARUN__TRY(xlarun__jlen_of(R, at, v, &len));
        *out = xlarun__jint(len);
        return XLARUN_OK;
    }
    if (XJ_F("string")) { XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname)); return xlarun__jstr_of(R, v, out); }
    if (XJ_F("safe")) {
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
        XLARUN__TRY(xlarun__jstr_of(R, v, out));
        out->aux = XJ_MARKUP;
        return XLARUN_OK;
    }
    if (XJ_F("trim") || XJ_F("upper") || XJ_F("lower") || XJ_F("title") || XJ_F("capitalize") || XJ_F("escape") || XJ_F("e") ||
        XJ_F("forceescape") || XJ_F("wordcount") || XJ_F("indent") || XJ_F("replace") || XJ_F("center")) {
        xlarun__jv s;
        XLARUN__TRY(xlarun__jstr_of(R, v, &s));
        if (XJ_F("trim")) {
            const xlarun__jv *chars = xlarun__jarg(A, 0, "chars");
            size_t b, e;
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 1, fname));
            xlarun__jstrip_span(&s, chars, 1, 1, &b, &e);
            *out = xlarun__jstr(s.u.s.p + b, e - b);
            return XLARUN_OK;
        }
        if (XJ_F("replace")) {
            const xlarun__jv *o = xlarun__jarg(A, 0, "old"), *nw = xlarun__jarg(A, 1, "new"), *c = xlarun__jarg(A, 2, "count");
            int64_t count = -1;
            xlarun__jv os, ns;
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 3, fname));
            if (!o || !nw) return xlarun__jfail(R, at, "replace needs the old and the new text");
            XLARUN__TRY(xlarun__jstr_of(R, o, &os));
            XLARUN__TRY(xlarun__jstr_of(R, nw, &ns));
            if (c && c->t != XJ_NONE) XLARUN__TRY(xlarun__jto_int(R, at, c, &count));
            return xlarun__jreplace(R, &s, &os, &ns, count, out);
        }
        if (XJ_F("escape") || XJ_F("e") || XJ_F("forceescape")) {
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
            if (v->t == XJ_STR && v->aux == XJ_MARKUP && !XJ_F("forceescape")) { *out = *v; return XLARUN_OK; }
            return xlarun__jescape(R, &s, out);
        }
        if (XJ_F("wordcount")) {
            size_t i = 0, words = 0;
            int in = 0;
            while (i < s.u.s.n) {
                unsigned c = xlarun__jcp(s.u.s.p, s.u.s.n, &i);
                int w = xlarun__jalpha_cp(c) || (c >= '0' && c <= '9') || c == '_';
                if (w && !in) words++;
                in = w;
            }
            *out = xlarun__jint(XLARUN__CAST(int64_t, words));
            return XLARUN_OK;
        }
        if (XJ_F("indent")) {
            const xlarun__jv *w = xlarun__jarg(A, 0, "width"), *first = xlarun__jarg(A, 1, "first"), *blank = xlarun__jarg(A, 2, "blank");
            xlarun__jbuf ind, b;
            xlarun__jv lines, ivs, s2;
            size_t i;
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 3, fname));
            xlarun__jbuf_init(&ind, R->mem);
            if (w && w->t == XJ_STR) xlarun__jput(&ind, w->u.s.p, w->u.s.n);
            else {
                int64_t k, width = 4;
                if (w) XLARUN__TRY(xlarun__jto_int(R, at, w, &width));
                for (k = 0; k < width && k < 4096; k++) xlarun__jputc(&ind, ' ');
            }
            XLARUN__TRY(xlarun__jbuf_value(R, &ind, &ivs));
            {
                xlarun__jv nl = xlarun__jstr("\n", 1);
                XLARUN__TRY(xlarun__jconcat2(R, &s, &nl, &s2)); /* jinja2 adds a newline for splitlines */
            }
            XLARUN__TRY(xlarun__jsplitlines(R, &s2, &lines));
            xlarun__jbuf_init(&b, R->mem);
            if (first && xlarun__jtruth(first)) xlarun__jput(&b, ivs.u.s.p, ivs.u.s.n);
            for (i = 0; i < lines.u.l->n; i++) {
                const xlarun__jv *ln = &lines.u.l->v[i];
                if (i) {
                    xlarun__jputc(&b, '\n');
                    if ((blank && xlarun__jtruth(blank)) || ln->u.s.n) xlarun__jput(&b, ivs.u.s.p, ivs.u.s.n);
                }
                xlarun__jput(&b, ln->u.s.p, ln->u.s.n);
            }
            return xlarun__jbuf_value(R, &b, out);
        }
        if (XJ_F("center")) {
            int64_t width = 80, len = XLARUN__CAST(int64_t, xlarun__jlen(s.u.s.p, s.u.s.n)), left, k;
            xlarun__jbuf b;
            const xlarun__jv *w = xlarun__jarg(A, 0, "width");
            if (w) XLARUN__TRY(xlarun__jto_int(R, at, w, &width));
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 1, fname));
            if (width > 100000) width = 100000;
            xlarun__jbuf_init(&b, R->mem);
            left = width > len ? (width - len) / 2 + ((width - len) & width & 1) : 0;
            for (k = 0; k < left; k++) xlarun__jputc(&b, ' ');
            xlarun__jput(&b, s.u.s.p, s.u.s.n);
            for (k = left + len; k < width; k++) xlarun__jputc(&b, ' ');
            return xlarun__jbuf_value(R, &b, out);
        }
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
        return xlarun__jcase(R, at, &s, XJ_F("upper") ? 0 : XJ_F("lower") ? 1 : XJ_F("title") ? 2 : 3, out);
    }
    if (XJ_F("truncate")) { /* jinja2: length=255, killwords=False, end='...', leeway=5 */
        const xlarun__jv *lv = xlarun__jarg(A, 0, "length"), *kw = xlarun__jarg(A, 1, "killwords"), *ev = xlarun__jarg(A, 2, "end"),
                         *lw = xlarun__jarg(A, 3, "leeway");
        int64_t length = 255, leeway = 5, keep;
        xlarun__jv s, endv = xlarun__jstr("...", 3), head, none = xlarun__jmk(XJ_NONE), stop;
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 4, fname));
        if (lv) XLARUN__TRY(xlarun__jto_int(R, at, lv, &length));
        if (lw && lw->t != XJ_NONE) XLARUN__TRY(xlarun__jto_int(R, at, lw, &leeway));
        if (ev) XLARUN__TRY(xlarun__jstr_of(R, ev, &endv));
        {
            int64_t len = 0;
            XLARUN__TRY(xlarun__jlen_of(R, at, v, &len)); /* len() of the value itself, as jinja2 */
            if (len <= length + leeway) { *out = *v; return XLARUN_OK; }
        }
        XLARUN__TRY(xlarun__jstr_of(R, v, &s));
        keep = length - XLARUN__CAST(int64_t, xlarun__jlen(endv.u.s.p, endv.u.s.n));
        stop = xlarun__jint(keep);
        XLARUN__TRY(xlarun__jslice(R, at, &s, &none, &stop, &none, &head));
        if (!(kw && xlarun__jtruth(kw))) { /* drop the last, cut word: rsplit(" ", 1)[0] */
            size_t k = head.u.s.n;
            while (k > 0 && head.u.s.p[k - 1] != ' ') k--;
            if (k > 0) head.u.s.n = k - 1;
        }
        return xlarun__jconcat2(R, &head, &endv, out);
    }
    if (XJ_F("tojson")) {
        const xlarun__jv *asc = xlarun__jarg(A, 0, "ensure_ascii"), *ind = xlarun__jarg(A, 1, "indent"),
                         *sep = xlarun__jarg(A, 2, "separators"), *sk = xlarun__jarg(A, 3, "sort_keys");
        xlarun__jjson_opt o;
        xlarun__jbuf b;
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 4, fname));
        memset(&o, 0, sizeof o);
        o.ascii = asc && xlarun__jtruth(asc);
        o.sort = sk && xlarun__jtruth(sk);
        o.indent = -1;
        if (ind && ind->t != XJ_NONE) {
            if (ind->t != XJ_INT) return xlarun__jfail(R, at, "tojson: indent must be an integer");
            o.indent = ind->u.i < 0 ? 0 : ind->u.i > 64 ? 64 : XLARUN__CAST(int, ind->u.i);
        }
        o.item_sep = o.indent >= 0 ? "," : ", "; o.item_n = o.indent >= 0 ? 1 : 2;
        o.key_sep = ": "; o.key_n = 2;
        if (sep && sep->t != XJ_NONE) {
            if (!xlarun__jis_seq(sep) || sep->u.l->n != 2 || sep->u.l->v[0].t != XJ_STR || sep->u.l->v[1].t != XJ_STR)
                return xlarun__jfail(R, at, "tojson: separators must be two strings");
            o.item_sep = sep->u.l->v[0].u.s.p; o.item_n = sep->u.l->v[0].u.s.n;
            o.key_sep = sep->u.l->v[1].u.s.p; o.key_n = sep->u.l->v[1].u.s.n;
        }
        xlarun__jbuf_init(&b, R->mem);
        b.limit = R->max_output;
        XLARUN__TRY(xlarun__jjson(R, at, &b, v, &o, 0));
        return xlarun__jbuf_value(R, &b, out);
    }
    if (XJ_F("int")) {
        const xlarun__jv *dv = xlarun__jarg(A, 0, "default");
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, fname));
        if (v->t == XJ_INT || v->t == XJ_BOOL) { *out = xlarun__jint(v->u.i); return XLARUN_OK; }
        if (v->t == XJ_FLOAT && v->u.f == v->u.f && fabs(v->u.f) < 9.2e18) { *out = xlarun__jint(XLARUN__CAST(int64_t, v->u.f)); return XLARUN_OK; }
        if (v->t == XJ_STR) {
            size_t b, e, k;
            xlarun__jstrip_span(v, NULL, 1, 1, &b, &e);
            k = b + (b < e && (v->u.s.p[b] == '-' || v->u.s.p[b] == '+'));
            if (k < e && xlarun__jdigits(v->u.s.p, e, k) == e) {
                int64_t num = 0;
                for (; k < e; k++) if (v->u.s.p[k] != '_') { if (num > INT64_MAX / 10 - 10) break; num = num * 10 + (v->u.s.p[k] - '0'); }
                if (k == e) { *out = xlarun__jint(v->u.s.p[b] == '-' ? -num : num); return XLARUN_OK; }
            } else if (b < e && xlarun__jseps_ok(v->u.s.p + b, e - b)) {
                int all = 0;
                double d = xlarun__jstrtod_n(v->u.s.p + b, e - b, &all);
                if (all && d == d && fabs(d) < 9.2e18 && !xlarun__jany_of(v->u.s.p + b, e - b, "xXnN")) {
                    *out = xlarun__jint(XLARUN__CAST(int64_t, d));
                    return XLARUN_OK;
                }
            }
        }
        *out = dv ? *dv : xlarun__jint(0);
        return XLARUN_OK;
    }
    if (XJ_F("float")) {
        const xlarun__jv *dv = xlarun__jarg(A, 0, "default");
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 1, fname));
        if (xlarun__jis_num(v)) { *out = xlarun__jfloat(xlarun__jnum(v)); return XLARUN_OK; }
        if (v->t == XJ_STR) {
            size_t b, e;
            xlarun__jstrip_span(v, NULL, 1, 1, &b, &e);
            if (b < e && xlarun__jseps_ok(v->u.s.p + b, e - b)) {
                int all = 0;
                double d = xlarun__jstrtod_n(v->u.s.p + b, e - b, &all);
                if (all && !xlarun__jany_of(v->u.s.p + b, e - b, "xX")) { *out = xlarun__jfloat(d); return XLARUN_OK; }
            }
        }
        *out = dv ? *dv : xlarun__jfloat(0.0);
        return XLARUN_OK;
    }
    if (XJ_F("abs")) {
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
        if (v->t == XJ_FLOAT) *out = xlarun__jfloat(fabs(v->u.f));
        else if (v->t == XJ_INT || v->t == XJ_BOOL) *out = xlarun__jint(v->u.i < 0 ? -v->u.i : v->u.i);
        else return xlarun__jfail(R, at, "bad operand type for abs(): '%s'", xlarun__jtype_name(v));
        return XLARUN_OK;
    }
    if (XJ_F("round")) {
        const xlarun__jv *pr = xlarun__jarg(A, 0, "precision"), *me = xlarun__jarg(A, 1, "method");
        int64_t p = 0;
        double x, m;
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, fname));
        if (!xlarun__jis_num(v)) return xlarun__jfail(R, at, "round needs a number");
        if (pr) XLARUN__TRY(xlarun__jto_int(R, at, pr, &p));
        if (p > 15) p = 15;
        if (p < -15) p = -15;
        x = xlarun__jnum(v);
        m = pow(10.0, XLARUN__CAST(double, p));
        if ((!me || xlarun__jstreq(me, "common")) && p >= 0 && x == x && fabs(x) < 1e300) {
            /* Python's round(): the exact value rounded half to even, as printf rounds it */
            char buf[400];
            snprintf(buf, sizeof buf, "%.*f", XLARUN__CAST(int, p), x);
            x = xlarun__jstrtod(buf, strlen(buf));
        } else if (!me || xlarun__jstreq(me, "common")) x = nearbyint(x * m) / m;
        else if (xlarun__jstreq(me, "floor")) x = floor(x * m) / m;
        else if (xlarun__jstreq(me, "ceil")) x = ceil(x * m) / m;
        else return xlarun__jfail(R, at, "method must be common, ceil or floor");
        *out = xlarun__jfloat(x);
        return XLARUN_OK;
    }
    if (XJ_F("attr")) {
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 1, fname));
        if (!a0 || a0->t != XJ_STR) return xlarun__jfail(R, at, "attr needs a name");
        if (v->t == XJ_DICT) { /* getattr(): a dict's methods, never its keys */
            xlarun__jmap none;
            xlarun__jv empty = *v;
            memset(&none, 0, sizeof none);
            empty.u.d = &none;
            XLARUN__TRY(xlarun__jgetattr(R, at, &empty, a0->u.s.p, a0->u.s.n, out));
            if (out->t == XJ_METHOD) out->u.self->u.d = v->u.d;
            return XLARUN_OK;
        }
        return xlarun__jgetattr(R, at, v, a0->u.s.p, a0->u.s.n, out);
    }
    if (XJ_F("format")) { /* printf-style: %s %d %i %r %f %% */
        xlarun__jv s;
        xlarun__jbuf b;
        size_t i, k = 0;
        XLARUN__TRY(xlarun__jstr_of(R, v, &s));
        xlarun__jbuf_init(&b, R->mem);
        for (i = 0; i < s.u.s.n; i++) {
            char c = s.u.s.p[i], f;
            if (c != '%') { xlarun__jputc(&b, c); continue; }
            if (++i >= s.u.s.n) return xlarun__jfail(R, at, "incomplete format");
            f = s.u.s.p[i];
            if (f == '%') { xlarun__jputc(&b, '%'); continue; }
            if (k >= A->np) return xlarun__jfail(R, at, "not enough arguments for format string");
            if (f == 's') xlarun__jwrite(&b, &A->pos[k], 0);
            else if (f == 'r') xlarun__jwrite(&b, &A->pos[k], 1);
            else if ((f == 'd' || f == 'i') && xlarun__jis_num(&A->pos[k]))
                xlarun__jfmt_int(&b, A->pos[k].t == XJ_FLOAT ? XLARUN__CAST(int64_t, A->pos[k].u.f) : A->pos[k].u.i);
            else return xlarun__jfail(R, at, "format: only %%s, %%r, %%d and %%i are supported");
            k++;
        }
        if (k < A->np) return xlarun__jfail(R, at, "not all arguments converted during string formatting");
        return xlarun__jbuf_value(R, &b, out);
    }
    if (XJ_F("items")) {
        xlarun__jargv none;
        XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
        if (v->t == XJ_UNDEF) return xlarun__jseq_new(R, 0, XJ_LIST, out);
        if (v->t != XJ_DICT) return xlarun__jfail(R, at, "Can only get item pairs from a mapping.");
        memset(&none, 0, sizeof none);
        {
            xlarun__jv m;
            XLARUN__TRY(xlarun__jmethod(R, v, JM_ITEMS, &m));
            XLARUN__TRY(xlarun__jcall_method(R, at, &m, &none, out));
        }
        out->aux = XJ_GEN;
        return XLARUN_OK;
    }
    /* the rest take a sequence */
    {
        xlarun__jseq items;
        size_t i, k = 0;
        if (XJ_F("first") || XJ_F("last")) {
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
            XLARUN__TRY(xlarun__jiter(R, at, v, &items));
            if (!items.n) *out = xlarun__jundef(XJ_F("first") ? "No first item, sequence was empty." : "No last item, sequence was empty.",
                                                34, 1);
            else *out = items.v[XJ_F("first") ? 0 : items.n - 1];
            return XLARUN_OK;
        }
        if (XJ_F("list")) {
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
            XLARUN__TRY(xlarun__jiter(R, at, v, &items));
            XLARUN__TRY(xlarun__jseq_new(R, items.n, XJ_LIST, out));
            if (items.n) memcpy(out->u.l->v, items.v, items.n * sizeof(xlarun__jv));
            return XLARUN_OK;
        }
        if (XJ_F("join")) {
            const xlarun__jv *sep = xlarun__jarg(A, 0, "d"), *attr = xlarun__jarg(A, 1, "attribute");
            xlarun__jv ss = xlarun__jstr("", 0);
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, fname));
            XLARUN__TRY(xlarun__jiter(R, at, v, &items));
            if (sep) XLARUN__TRY(xlarun__jstr_of(R, sep, &ss));
            if (attr && attr->t != XJ_NONE) {
                xlarun__jseq mapped;
                mapped.n = items.n;
                if (items.n && !(mapped.v = XLARUN__CAST(xlarun__jv *, xlarun__jnewmem(R, items.n * sizeof(xlarun__jv))))) return xlarun__joom(R);
                for (i = 0; i < items.n; i++) XLARUN__TRY(xlarun__jattr_path(R, at, &items.v[i], attr, &mapped.v[i]));
                items = mapped;
            }
            return xlarun__jjoin(R, at, &items, ss.u.s.p, ss.u.s.n, 0, out);
        }
        if (XJ_F("reverse")) {
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
            if (v->t == XJ_STR) {
                xlarun__jv none = xlarun__jmk(XJ_NONE), step = xlarun__jint(-1);
                return xlarun__jslice(R, at, v, &none, &none, &step, out);
            }
            XLARUN__TRY(xlarun__jiter(R, at, v, &items));
            XLARUN__TRY(xlarun__jseq_new(R, items.n, XJ_LIST, out));
            for (i = 0; i < items.n; i++) out->u.l->v[i] = items.v[items.n - 1 - i];
            if (v->t == XJ_LIST || v->t == XJ_TUPLE) out->aux = XJ_GEN; /* reversed(): an iterator */
            return XLARUN_OK;
        }
        if (XJ_F("map") || XJ_F("select") || XJ_F("reject") || XJ_F("selectattr") || XJ_F("rejectattr")) {
            int is_map = XJ_F("map"), attr_form = XJ_F("selectattr") || XJ_F("rejectattr"), want = XJ_F("select") || XJ_F("selectattr");
            if (xlarun__jtruth(v)) XLARUN__TRY(xlarun__jiter(R, at, v, &items));
            else items.n = 0, items.v = NULL; /* jinja2 yields nothing for a false value (None too) */
            XLARUN__TRY(xlarun__jseq_new(R, items.n, XJ_LIST, out));
            if (is_map) {
                const xlarun__jv *attr = NULL, *dflt = NULL;
                size_t j;
                for (j = 0; j < A->nk; j++) {
                    if (A->kl[j] == 9 && !memcmp(A->kn[j], "attribute", 9)) { attr = &A->kv[j]; A->used[j] = 1; }
                    else if (A->kl[j] == 7 && !memcmp(A->kn[j], "default", 7)) { dflt = &A->kv[j]; A->used[j] = 1; }
                }
                if (attr) {
                    XLARUN__TRY(xlarun__jargs_done(R, at, A, 0, fname));
                    for (i = 0; i < items.n; i++) {
                        XLARUN__TRY(xlarun__jattr_path(R, at, &items.v[i], attr, &out->u.l->v[i]));
                        if (out->u.l->v[i].t == XJ_UNDEF && dflt) out->u.l->v[i] = *dflt;
                    }
                } else {
                    xlarun__jargv F;
                    if (!A->np || A->pos[0].t != XJ_STR) return xlarun__jfail(R, at, "map needs a filter name or attribute=");
                    memset(&F, 0, sizeof F);
                    for (j = 1; j < A->np; j++) F.pos[F.np++] = A->pos[j];
                    for (j = 0; j < A->nk; j++) { F.kn[F.nk] = A->kn[j]; F.kl[F.nk] = A->kl[j]; F.kv[F.nk++] = A->kv[j]; }
                    for (i = 0; i < items.n; i++) {
                        xlarun__jargv G = F;
                        XLARUN__TRY(xlarun__jfilter(R, at, A->pos[0].u.s.p, A->pos[0].u.s.n, &items.v[i], &G, &out->u.l->v[i]));
                    }
                }
                out->aux = XJ_GEN;
                return XLARUN_OK;
            }
            if (attr_form && (!A->np || (A->pos[0].t != XJ_STR && A->pos[0].t != XJ_INT)))
                return xlarun__jfail(R, at, "%s needs an attribute name", fname);
            XLARUN__TRY(xlarun__jargs_done(R, at, A, XLARUN__JMAX_ARGS, fname));
            for (i = 0; i < items.n; i++) {
                xlarun__jv subject = items.v[i];
                int keep;
                if (attr_form) XLARUN__TRY(xlarun__jattr_path(R, at, &items.v[i], &A->pos[0], &subject));
                XLARUN__TRY(xlarun__jselect_one(R, at, &subject, A, attr_form ? 1 : 0, &keep));
                if (keep == want) out->u.l->v[k++] = items.v[i];
            }
            out->u.l->n = k;
            out->aux = XJ_GEN;
            return XLARUN_OK;
        }
        if (XJ_F("unique")) {
            const xlarun__jv *cs = xlarun__jarg(A, 0, "case_sensitive"), *attr = xlarun__jarg(A, 1, "attribute");
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, fname));
            XLARUN__TRY(xlarun__jiter(R, at, v, &items));
            XLARUN__TRY(xlarun__jseq_new(R, items.n, XJ_LIST, out));
            for (i = 0; i < items.n; i++) {
                xlarun__jv key = items.v[i];
                size_t j;
                int dup = 0;
                if (attr) XLARUN__TRY(xlarun__jattr_path(R, at, &items.v[i], attr, &key));
                if (!(cs && xlarun__jtruth(cs)) && key.t == XJ_STR) XLARUN__TRY(xlarun__jcase(R, at, &key, 1, &key));
                for (j = 0; j < k && !dup; j++) {
                    xlarun__jv other = out->u.l->v[j];
                    if (attr) XLARUN__TRY(xlarun__jattr_path(R, at, &out->u.l->v[j], attr, &other));
                    if (!(cs && xlarun__jtruth(cs)) && other.t == XJ_STR) XLARUN__TRY(xlarun__jcase(R, at, &other, 1, &other));
                    dup = xlarun__jeq(&key, &other);
                }
                if (!dup) out->u.l->v[k++] = items.v[i];
            }
            out->u.l->n = k;
            out->aux = XJ_GEN;
            return XLARUN_OK;
        }
        if (XJ_F("sort") || XJ_F("dictsort")) {
            int dict = XJ_F("dictsort");
            const xlarun__jv *rev = xlarun__jarg(A, dict ? 2 : 0, "reverse"), *cs = xlarun__jarg(A, dict ? 0 : 1, "case_sensitive"),
                             *attr = dict ? NULL : xlarun__jarg(A, 2, "attribute"), *by = dict ? xlarun__jarg(A, 1, "by") : NULL;
            int r = rev && xlarun__jtruth(rev), c = cs && xlarun__jtruth(cs), byval = by && xlarun__jstreq(by, "value");
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 3, fname));
            if (dict) {
                xlarun__jargv none;
                xlarun__jv m;
                if (v->t != XJ_DICT) return xlarun__jfail(R, at, "You can only sort by either \"key\" or \"value\"");
                memset(&none, 0, sizeof none);
                XLARUN__TRY(xlarun__jmethod(R, v, JM_ITEMS, &m));
                XLARUN__TRY(xlarun__jcall_method(R, at, &m, &none, out));
                out->aux = 0;
            } else {
                XLARUN__TRY(xlarun__jiter(R, at, v, &items));
                XLARUN__TRY(xlarun__jseq_new(R, items.n, XJ_LIST, out));
                if (items.n) memcpy(out->u.l->v, items.v, items.n * sizeof(xlarun__jv));
            }
            for (i = 1; i < out->u.l->n; i++) { /* a stable insertion sort, as Python's sorted */
                xlarun__jv t = out->u.l->v[i], kt = t;
                size_t j = i;
                int ok = 1;
                if (dict) kt = t.u.l->v[byval ? 1 : 0];
                else if (attr) XLARUN__TRY(xlarun__jattr_path(R, at, &t, attr, &kt));
                while (j > 0) {
                    xlarun__jv kp = out->u.l->v[j - 1];
                    int cmp;
                    if (dict) kp = kp.u.l->v[byval ? 1 : 0];
                    else if (attr) XLARUN__TRY(xlarun__jattr_path(R, at, &out->u.l->v[j - 1], attr, &kp));
                    xlarun_status cst = XLARUN_OK;
                    cmp = xlarun__jsort_cmp(R, at, &kp, &kt, c, &ok, &cst);
                    XLARUN__TRY(cst);
                    if (!ok) return xlarun__jfail(R, at, "'<' not supported between these values");
                    if (r ? cmp >= 0 : cmp <= 0) break;
                    out->u.l->v[j] = out->u.l->v[j - 1];
                    j--;
                }
                XLARUN__TRY(xlarun__jstep(R, at));
                out->u.l->v[j] = t;
            }
            return XLARUN_OK;
        }
        if (XJ_F("sum")) {
            const xlarun__jv *attr = xlarun__jarg(A, 0, "attribute"), *start = xlarun__jarg(A, 1, "start");
            xlarun__jv acc = start ? *start : xlarun__jint(0);
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, fname));
            XLARUN__TRY(xlarun__jiter(R, at, v, &items));
            for (i = 0; i < items.n; i++) {
                xlarun__jv x = items.v[i];
                if (attr && attr->t != XJ_NONE) XLARUN__TRY(xlarun__jattr_path(R, at, &items.v[i], attr, &x));
                XLARUN__TRY(xlarun__jarith(R, at, JO_ADD, &acc, &x, &acc));
            }
            *out = acc;
            return XLARUN_OK;
        }
        if (XJ_F("min") || XJ_F("max")) {
            const xlarun__jv *cs = xlarun__jarg(A, 0, "case_sensitive"), *attr = xlarun__jarg(A, 1, "attribute");
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, fname));
            XLARUN__TRY(xlarun__jiter(R, at, v, &items));
            if (!items.n) { *out = xlarun__jundef("No aggregated item, sequence was empty.", 39, 1); return XLARUN_OK; }
            *out = items.v[0];
            for (i = 1; i < items.n; i++) {
                xlarun__jv a = *out, b = items.v[i];
                int ok = 1, cmp;
                if (attr) { XLARUN__TRY(xlarun__jattr_path(R, at, out, attr, &a)); XLARUN__TRY(xlarun__jattr_path(R, at, &items.v[i], attr, &b)); }
                xlarun_status cst = XLARUN_OK;
                cmp = xlarun__jsort_cmp(R, at, &b, &a, cs && xlarun__jtruth(cs), &ok, &cst);
                XLARUN__TRY(cst);
                if (!ok) return xlarun__jfail(R, at, "'<' not supported between these values");
                if (XJ_F("min") ? cmp < 0 : cmp > 0) *out = items.v[i];
            }
            return XLARUN_OK;
        }
        if (XJ_F("batch")) {
            const xlarun__jv *ln = xlarun__jarg(A, 0, "linecount"), *fill = xlarun__jarg(A, 1, "fill_with");
            int64_t per = 0;
            size_t groups;
            XLARUN__TRY(xlarun__jargs_done(R, at, A, 2, fname));
            XLARUN__TRY(xlarun__jto_int(R, at, ln, &per));
            if (per <= 0) return xlarun__jfail(R, at, "batch needs a positive count");
            XLARUN__TRY(xlarun__jiter(R, at, v, &items));
            groups = (items.n + XLARUN__CAST(size_t, per) - 1) / XLARUN__CAST(size_t, per);
            XLARUN__TRY(xlarun__jseq_new(R, groups, XJ_LIST, out));
            for (i = 0; i < groups; i++) {
                size_t j, cnt = items.n - i * XLARUN__CAST(size_t, per);
                if (cnt > XLARUN__CAST(size_t, per)) cnt = XLARUN__CAST(size_t, per);
                XLARUN__TRY(xlarun__jseq_new(R, fill ? XLARUN__CAST(size_t, per) : cnt, XJ_LIST, &out->u.l->v[i]));
                for (j = 0; j < out->u.l->v[i].u.l->n; j++)
                    out->u.l->v[i].u.l->v[j] = j < cnt ? items.v[i * XLARUN__CAST(size_t, per) + j] : *fill;
            }
            out->aux = XJ_GEN;
            return XLARUN_OK;
        }
    }
#undef XJ_F
    return xlarun__jfail(R, at, "no filter named '%.*s'", XLARUN__CAST(int, n > 60 ? 60 : n), name);
}

/* ---- evaluating expressions ----------------------------------------------------------------------- */
static xlarun_status xlarun__jeval(xlarun__jrun *R, const xlarun__jnode *x, xlarun__jv *out) {
    xlarun__jv a, b;
    XLARUN__TRY(xlarun__jstep(R, x));
    switch (x->kind) {
    case JN_LIT: *out = x->lit; return XLARUN_OK;
    case JN_NAME: {
        const xlarun__jv *v = xlarun__jlookup(R->frame, x->s, x->n);
        static const struct { const char *name; int id; } fns[] = {
            {"range", JF_RANGE}, {"dict", JF_DICT}, {"namespace", JF_NAMESPACE}, {"cycler", JF_CYCLER},
            {"joiner", JF_JOINER}, {"raise_exception", JF_RAISE}, {"strftime_now", JF_STRFTIME}};
        size_t k;
        if (v) { *out = *v; return XLARUN_OK; }
        for (k = 0; k < sizeof fns / sizeof fns[0]; k++)
            if (strlen(fns[k].name) == x->n && !memcmp(fns[k].name, x->s, x->n)) {
                *out = xlarun__jmk(XJ_FUNC);
                out->aux = fns[k].id;
                return XLARUN_OK;
            }
        *out = xlarun__jundef(x->s, x->n, 0);
        return XLARUN_OK;
    }
    case JN_ATTR:
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        return xlarun__jgetattr(R, x, &a, x->s, x->n, out);
    case JN_ITEM:
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        XLARUN__TRY(xlarun__jeval(R, x->b, &b));
        return xlarun__jgetitem(R, x, &a, &b, out);
    case JN_SLICE: {
        xlarun__jv p[3];
        const xlarun__jnode *parts[3];
        int k;
        parts[0] = x->b; parts[1] = x->c; parts[2] = x->d;
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        for (k = 0; k < 3; k++) {
            if (parts[k]) XLARUN__TRY(xlarun__jeval(R, parts[k], &p[k]));
            else p[k] = xlarun__jmk(XJ_NONE);
        }
        return xlarun__jslice(R, x, &a, &p[0], &p[1], &p[2], out);
    }
    case JN_CALL: {
        xlarun__jargv A;
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        XLARUN__TRY(xlarun__jeval_args(R, x, x->b, &A));
        return xlarun__jcall_value(R, x, &a, &A, NULL, out);
    }
    case JN_FILTER: {
        xlarun__jargv A;
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        XLARUN__TRY(xlarun__jeval_args(R, x, x->b, &A));
        return xlarun__jfilter(R, x, x->s, x->n, &a, &A, out);
    }
    case JN_TEST: {
        xlarun__jargv A;
        int res;
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        XLARUN__TRY(xlarun__jeval_args(R, x, x->b, &A));
        XLARUN__TRY(xlarun__jtest(R, x, x->s, x->n, &a, &A, &res));
        *out = xlarun__jbool(x->op ? !res : res);
        return XLARUN_OK;
    }
    case JN_BIN:
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        XLARUN__TRY(xlarun__jeval(R, x->b, &b));
        return xlarun__jarith(R, x, x->op, &a, &b, out);
    case JN_CONCAT:
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        XLARUN__TRY(xlarun__jeval(R, x->b, &b));
        if (a.t == XJ_UNDEF && a.aux == 2) return xlarun__jundef_err(R, x, &a);
        if (b.t == XJ_UNDEF && b.aux == 2) return xlarun__jundef_err(R, x, &b);
        return xlarun__jconcat2(R, &a, &b, out);
    case JN_NEG: case JN_POS:
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        if (a.t == XJ_UNDEF) return xlarun__jundef_err(R, x, &a);
        if (a.t == XJ_FLOAT) *out = xlarun__jfloat(x->kind == JN_NEG ? -a.u.f : a.u.f);
        else if (a.t == XJ_INT || a.t == XJ_BOOL) {
            if (a.u.i == INT64_MIN && x->kind == JN_NEG) return xlarun__jfail(R, x, "integer overflow");
            *out = xlarun__jint(x->kind == JN_NEG ? -a.u.i : a.u.i);
        } else return xlarun__jfail(R, x, "bad operand type for unary %c: '%s'", x->kind == JN_NEG ? '-' : '+', xlarun__jtype_name(&a));
        return XLARUN_OK;
    case JN_NOT:
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        if (a.t == XJ_UNDEF && a.aux == 2) return xlarun__jundef_err(R, x, &a);
        *out = xlarun__jbool(!xlarun__jtruth(&a));
        return XLARUN_OK;
    case JN_AND: case JN_OR:
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        if (a.t == XJ_UNDEF && a.aux == 2) return xlarun__jundef_err(R, x, &a);
        if (xlarun__jtruth(&a) == (x->kind == JN_OR)) { *out = a; return XLARUN_OK; }
        return xlarun__jeval(R, x->b, out);
    case JN_COND:
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        if (a.t == XJ_UNDEF && a.aux == 2) return xlarun__jundef_err(R, x, &a);
        if (xlarun__jtruth(&a)) return xlarun__jeval(R, x->b, out);
        if (x->c) return xlarun__jeval(R, x->c, out);
        *out = xlarun__jundef("the inline if-expression on line evaluated to false and no else section was defined", 0, 0);
        return XLARUN_OK;
    case JN_CMP: {
        const xlarun__jnode *p;
        XLARUN__TRY(xlarun__jeval(R, x->a, &a));
        for (p = x->b; p; p = p->next) {
            int res = 0, ok = 1, c;
            XLARUN__TRY(xlarun__jeval(R, p->a, &b));
            switch (p->op) {
            case JO_EQ: res = xlarun__jeq(&a, &b); break;
            case JO_NE: res = !xlarun__jeq(&a, &b); break;
            case JO_IN: case JO_NOTIN:
                XLARUN__TRY(xlarun__jcontains(R, p, &a, &b, &res));
                if (p->op == JO_NOTIN) res = !res;
                break;
            default:
                if (a.t == XJ_UNDEF) return xlarun__jundef_err(R, p, &a);
                if (b.t == XJ_UNDEF) return xlarun__jundef_err(R, p, &b);
                c = xlarun__jcmp(&a, &b, &ok);
                if (!ok) return xlarun__jfail(R, p, "'%s' not supported between instances of '%s' and '%s'", xlarun__jops[p->op],
                                              xlarun__jtype_name(&a), xlarun__jtype_name(&b));
                res = p->op == JO_LT ? c < 0 : p->op == JO_LE ? c <= 0 : p->op == JO_GT ? c > 0 : c >= 0;
            }
            if (!res) { *out = xlarun__jbool(0); return XLARUN_OK; }
            a = b;
        }
        *out = xlarun__jbool(1);
        return XLARUN_OK;
    }
    case JN_LIST: case JN_TUPLE: {
        const xlarun__jnode *p;
        size_t n = 0, k = 0;
        for (p = x->a; p; p = p->next) n++;
        XLARUN__TRY(xlarun__jseq_new(R, n, x->kind == JN_LIST ? XJ_LIST : XJ_TUPLE, out));
        for (p = x->a; p; p = p->next) XLARUN__TRY(xlarun__jeval(R, p, &out->u.l->v[k++]));
        return XLARUN_OK;
    }
    case JN_DICT: {
        const xlarun__jnode *p;
        size_t n = 0;
        for (p = x->a; p; p = p->next) n++;
        XLARUN__TRY(xlarun__jmap_new(R, n, XJ_DICT, out));
        for (p = x->a; p; p = p->next) {
            XLARUN__TRY(xlarun__jeval(R, p->a, &a));
            XLARUN__TRY(xlarun__jeval(R, p->b, &b));
            if (a.t != XJ_STR && a.t != XJ_INT && a.t != XJ_BOOL && a.t != XJ_NONE && a.t != XJ_FLOAT && a.t != XJ_TUPLE)
                return xlarun__jfail(R, p, "unhashable type: '%s'", xlarun__jtype_name(&a));
            XLARUN__TRY(xlarun__jmap_set(R, out->u.d, &a, &b));
        }
        return XLARUN_OK;
    }
    default: break;
    }
    return xlarun__jfail(R, x, "cannot evaluate this expression");
}

/* ---- running statements ----------------------------------------------------------------------------- */
/* bind a for/set target (a name, a tuple of names, ns.attr) to v in frame f */
static xlarun_status xlarun__jassign(xlarun__jrun *R, const xlarun__jnode *target, const xlarun__jv *v, xlarun__jframe *f) {
    if (target->kind == JN_NAME) return xlarun__jframe_set(R, f, target->s, target->n, v);
    if (target->kind == JN_ATTR) {
        const xlarun__jv *ns = xlarun__jlookup(f, target->a->s, target->a->n);
        xlarun__jv k = xlarun__jstr(target->s, target->n);
        if (!ns || ns->t != XJ_NS) return xlarun__jfail(R, target, "cannot assign attribute on non-namespace object");
        if (target->n && target->s[0] == '_') return xlarun__jns_name_err(R, target, target->s, target->n);
        return xlarun__jmap_set(R, ns->u.d, &k, v);
    }
    if (target->kind == JN_TUPLE) {
        const xlarun__jnode *p;
        xlarun__jseq items;
        size_t n = 0, k = 0;
        for (p = target->a; p; p = p->next) n++;
        if (v->t == XJ_DICT || v->t == XJ_NS) return xlarun__jfail(R, target, "cannot unpack a mapping into %lu names", XLARUN__CAST(unsigned long, n));
        XLARUN__TRY(xlarun__jiter(R, target, v, &items));
        if (items.n != n)
            return xlarun__jfail(R, target, items.n > n ? "too many values to unpack (expected %lu)" : "not enough values to unpack (expected %lu)",
                                 XLARUN__CAST(unsigned long, n));
        for (p = target->a; p; p = p->next) XLARUN__TRY(xlarun__jassign(R, p, &items.v[k++], f));
        return XLARUN_OK;
    }
    return xlarun__jfail(R, target, "cannot assign to this");
}

/* a body's output as a value (block set, filter block) */
static xlarun_status xlarun__jcapture(xlarun__jrun *R, const xlarun__jnode *body, xlarun__jframe *f, xlarun__jv *out) {
    xlarun__jbuf b, *saved = R->out;
    xlarun_status st;
    xlarun__jbuf_init(&b, R->mem);
    b.limit = R->max_output;
    R->out = &b;
    st = xlarun__jexec(R, body, f);
    R->out = saved;
    XLARUN__TRY(st);
    return xlarun__jbuf_value(R, &b, out);
}

/* apply a filter chain built over an empty slot (block set, filter block) to v */
static xlarun_status xlarun__japply_chain(xlarun__jrun *R, const xlarun__jnode *chain, const xlarun__jv *v, xlarun__jv *out) {
    xlarun__jargv A;
    xlarun__jv in;
    if (!chain) { *out = *v; return XLARUN_OK; }
    XLARUN__TRY(xlarun__japply_chain(R, chain->a, v, &in));
    XLARUN__TRY(xlarun__jeval_args(R, chain, chain->b, &A));
    return xlarun__jfilter(R, chain, chain->s, chain->n, &in, &A, out);
}

static xlarun_status xlarun__jexec_for(xlarun__jrun *R, const xlarun__jnode *x, xlarun__jframe *f) {
    xlarun__jv it;
    xlarun__jseq items;
    xlarun__jloop *L;
    xlarun__jframe *g = NULL;
    size_t i, depth = 1;
    XLARUN__TRY(xlarun__jeval(R, x->b, &it));
    XLARUN__TRY(xlarun__jiter(R, x, &it, &items));
    if (x->e) { /* for ... if cond: the loop sees only the items that pass */
        xlarun__jseq kept;
        size_t k = 0;
        kept.n = 0;
        kept.v = items.n ? XLARUN__CAST(xlarun__jv *, xlarun__jnewmem(R, items.n * sizeof(xlarun__jv))) : NULL;
        if (items.n && !kept.v) return xlarun__joom(R);
        XLARUN__TRY(xlarun__jframe_new(R, f, &g));
        for (i = 0; i < items.n; i++) {
            xlarun__jv c;
            xlarun__jframe *saved = R->frame;
            xlarun_status st;
            g->vars.n = 0;
            XLARUN__TRY(xlarun__jassign(R, x->a, &items.v[i], g));
            R->frame = g;
            st = xlarun__jeval(R, x->e, &c);
            R->frame = saved;
            XLARUN__TRY(st);
            if (xlarun__jtruth(&c)) kept.v[k++] = items.v[i];
        }
        kept.n = k;
        items = kept;
    }
    if (!items.n) return x->d ? xlarun__jexec(R, x->d, f) : XLARUN_OK;
    L = XLARUN__CAST(xlarun__jloop *, xlarun__jnewmem(R, sizeof *L));
    if (!L) return xlarun__joom(R);
    L->n = items.n;
    L->items = items.v;
    L->depth = depth;
    XLARUN__TRY(xlarun__jframe_new(R, f, &g)); /* one scope for the loop, emptied at each iteration */
    for (i = 0; i < items.n; i++) {
        xlarun__jv lv = xlarun__jmk(XJ_LOOP);
        xlarun_status st;
        XLARUN__TRY(xlarun__jstep(R, x));
        L->i = i;
        lv.u.loop = L;
        g->vars.n = 0;
        XLARUN__TRY(xlarun__jframe_set(R, g, "loop", 4, &lv));
        XLARUN__TRY(xlarun__jassign(R, x->a, &items.v[i], g));
        st = xlarun__jexec(R, x->c, g);
        XLARUN__TRY(st);
        if (R->jump == 1) { R->jump = 0; break; }
        R->jump = 0;
    }
    return XLARUN_OK;
}

static xlarun_status xlarun__jexec(xlarun__jrun *R, const xlarun__jnode *first, xlarun__jframe *f) {
    const xlarun__jnode *x;
    xlarun__jframe *saved = R->frame;
    xlarun_status st = XLARUN_OK;
    R->frame = f;
    for (x = first; x && st == XLARUN_OK && !R->jump; x = x->next) {
        xlarun__jv v;
        st = xlarun__jstep(R, x);
        if (st != XLARUN_OK) break;
        switch (x->kind) {
        case JN_DATA: xlarun__jput(R->out, x->s, x->n); break;
        case JN_OUT:
            st = xlarun__jeval(R, x->a, &v);
            if (st != XLARUN_OK) break;
            if (v.t == XJ_UNDEF && v.aux == 2) { st = xlarun__jundef_err(R, x, &v); break; }
            xlarun__jwrite(R->out, &v, 0);
            break;
        case JN_IF: { /* a: the condition, c: its body, e: the elif, d: the else body */
            const xlarun__jnode *c = x;
            while (c) {
                st = xlarun__jeval(R, c->a, &v);
                if (st != XLARUN_OK) break;
                if (v.t == XJ_UNDEF && v.aux == 2) { st = xlarun__jundef_err(R, c, &v); break; }
                if (xlarun__jtruth(&v)) { st = xlarun__jexec(R, c->c, f); break; }
                if (!c->e) { st = xlarun__jexec(R, c->d, f); break; }
                c = c->e;
            }
            break;
        }
        case JN_FOR: st = xlarun__jexec_for(R, x, f); break;
        case JN_SET:
            st = xlarun__jeval(R, x->b, &v);
            if (st == XLARUN_OK) st = xlarun__jassign(R, x->a, &v, f);
            break;
        case JN_SETBLOCK: {
            xlarun__jv body;
            st = xlarun__jcapture(R, x->c, f, &body);
            if (st == XLARUN_OK) st = xlarun__japply_chain(R, x->d, &body, &v);
            if (st == XLARUN_OK) st = xlarun__jassign(R, x->a, &v, f);
            break;
        }
        case JN_FILTERBLOCK: {
            xlarun__jv body;
            st = xlarun__jcapture(R, x->c, f, &body);
            if (st == XLARUN_OK) st = xlarun__japply_chain(R, x->d, &body, &v);
            if (st == XLARUN_OK) xlarun__jwrite(R->out, &v, 0);
            break;
        }
        case JN_MACRO: {
            xlarun__jclosure *c = XLARUN__CAST(xlarun__jclosure *, xlarun__jnewmem(R, sizeof *c));
            if (!c) { st = xlarun__joom(R); break; }
            c->node = x;
            c->frame = f;
            v = xlarun__jmk(XJ_MACRO);
            v.u.m = c;
            st = xlarun__jframe_set(R, f, x->s, x->n, &v);
            break;
        }
        case JN_CALLBLOCK: {
            xlarun__jclosure *c = XLARUN__CAST(xlarun__jclosure *, xlarun__jnewmem(R, sizeof *c));
            xlarun__jargv A;
            xlarun__jv fn;
            if (!c) { st = xlarun__joom(R); break; }
            c->node = x; /* caller(): the body, with the call block's parameters (x->b) */
            c->frame = f;
            st = xlarun__jeval(R, x->a->a, &fn);
            if (st == XLARUN_OK) st = xlarun__jeval_args(R, x->a, x->a->b, &A);
            if (st == XLARUN_OK) {
                if (fn.t != XJ_MACRO) st = xlarun__jfail(R, x, "a call block needs a macro");
                else st = xlarun__jcall_value(R, x->a, &fn, &A, c, &v);
            }
            if (st == XLARUN_OK) xlarun__jwrite(R->out, &v, 0);
            break;
        }
        case JN_WITH: {
            xlarun__jframe *g = NULL;
            const xlarun__jnode *p;
            st = xlarun__jframe_new(R, f, &g);
            for (p = x->a; p && st == XLARUN_OK; p = p->next) {
                R->frame = g;
                st = xlarun__jeval(R, p->b, &v);
                if (st == XLARUN_OK) st = xlarun__jassign(R, p->a, &v, g);
            }
            if (st == XLARUN_OK) st = xlarun__jexec(R, x->c, g);
            break;
        }
        case JN_BODY: st = xlarun__jexec(R, x->c, f); break;
        case JN_BREAK: R->jump = 1; break;
        case JN_CONTINUE: R->jump = 2; break;
        default: st = xlarun__jfail(R, x, "cannot run this statement");
        }
        R->frame = f;
        if (st == XLARUN_OK && R->out->over)
            st = R->mem->failed ? xlarun__joom(R) : xlarun__jfail(R, x, "the output is larger than %lu bytes", XLARUN__CAST(unsigned long, R->out->limit));
    }
    R->frame = saved;
    return st;
}

/* ---- the compiled template -------------------------------------------------------------------------- */
struct xlarun_chat_template {
    const xlarun__jnode *body;
    const char *src;            /* the template text, newlines normalized */
    size_t n;
    void *own;                  /* xlarun_chat_template_create's block */
};

typedef struct xlarun__jbuild { const char *text; size_t len; } xlarun__jbuild;

static xlarun_status xlarun__jcompile(xlarun__jmem *m, const xlarun__jbuild *in, xlarun_chat_template **out, xlarun_error *err) {
    xlarun_chat_template *t = XLARUN__CAST(xlarun_chat_template *, xlarun__jalloc(m, sizeof *t));
    char *src = XLARUN__CAST(char *, xlarun__jalloc(m, in->len + 1));
    xlarun__jlex L;
    xlarun__jparse P;
    size_t i, n = 0;
    xlarun_status st;
    xlarun__jnode *body = NULL;
    if (!t || !src) return xlarun__fail(err, XLARUN_ERR_MEMORY, "chat template: out of memory");
    for (i = 0; i < in->len; i++) { /* \r\n and \r become \n, as jinja2 reads a template */
        if (in->text[i] == '\r') { src[n++] = '\n'; if (i + 1 < in->len && in->text[i + 1] == '\n') i++; }
        else src[n++] = in->text[i];
    }
    if (n && src[n - 1] == '\n') n--; /* keep_trailing_newline=False */
    src[n] = 0;
    if (xlarun__utf8_check(XLARUN__PUN(const unsigned char *, src), n) != n)
        return xlarun__jsyntax(err, src, src + xlarun__utf8_check(XLARUN__PUN(const unsigned char *, src), n), "invalid UTF-8", NULL);
    if (memchr(src, 0, n)) return xlarun__jsyntax(err, src, XLARUN__CAST(const char *, memchr(src, 0, n)), "a NUL byte in the template", NULL);
    memset(&L, 0, sizeof L);
    L.s = src; L.n = n; L.mem = m; L.err = err;
    XLARUN__TRY(xlarun__jlex_all(&L));
    memset(&P, 0, sizeof P);
    P.t = L.toks; P.src = src; P.mem = m; P.err = err;
    st = xlarun__jbody(&P, NULL, &body);
    if (st == XLARUN_OK) st = xlarun__jcheck_tree(&P, body, 0);
    if (st != XLARUN_OK) return st;
    t->body = body;
    t->src = src;
    t->n = n;
    t->own = NULL;
    *out = t;
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_chat_template_memory(const char *text, size_t len, size_t *bytes, xlarun_error *err) {
    xlarun__jmem m;
    xlarun__jbuild in;
    xlarun_chat_template *t = NULL;
    xlarun_status st;
    if (!text || !bytes) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_chat_template_memory: NULL %s", text ? "bytes" : "text");
    in.text = text; in.len = len;
    xlarun__jmem_init(&m, NULL, 0, NULL);
    st = xlarun__jcompile(&m, &in, &t, err);
    xlarun__jmem_release(&m);
    *bytes = st == XLARUN_OK ? m.peak : 0;
    if (st == XLARUN_OK) xlarun__ok(err);
    return st;
}

XLARUN_API xlarun_status xlarun_chat_template_init(const char *text, size_t len, void *mem, size_t bytes,
                                                   xlarun_chat_template **out, xlarun_error *err) {
    xlarun__jmem m;
    xlarun__jbuild in;
    xlarun_status st;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_chat_template_init: out is NULL");
    *out = NULL;
    if (!text || !mem) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_chat_template_init: NULL %s", text ? "mem" : "text");
    if (XLARUN__PUN(uintptr_t, mem) % 8)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_chat_template_init: mem must be 8-byte aligned");
    in.text = text; in.len = len;
    xlarun__jmem_init(&m, mem, bytes, NULL);
    st = xlarun__jcompile(&m, &in, out, err);
    if (st != XLARUN_OK && m.failed)
        st = xlarun__fail(err, XLARUN_ERR_MEMORY, "%lu bytes of chat template memory are too few (xlarun_chat_template_memory gives the size)",
                          XLARUN__CAST(unsigned long, bytes));
    if (st != XLARUN_OK) *out = NULL;
    else xlarun__ok(err);
    return st;
}

XLARUN_API xlarun_status xlarun_chat_template_create(const char *text, size_t len, xlarun_chat_template **out, xlarun_error *err) {
    size_t bytes = 0;
    void *mem;
    xlarun_status st;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_chat_template_create: out is NULL");
    *out = NULL;
    XLARUN__TRY(xlarun_chat_template_memory(text, len, &bytes, err));
    if (!(mem = XLARUN_MALLOC(bytes ? bytes : 1, NULL)))
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "cannot allocate %lu bytes for a chat template", XLARUN__CAST(unsigned long, bytes));
    st = xlarun_chat_template_init(text, len, mem, bytes, out, err);
    if (st != XLARUN_OK) { XLARUN_FREE(mem, NULL); return st; }
    (*out)->own = mem;
    return XLARUN_OK;
}

XLARUN_API void xlarun_chat_template_free(xlarun_chat_template *t) {
    if (t && t->own) XLARUN_FREE(t->own, NULL);
}

/* ---- the conversation as values ------------------------------------------------------------------------ */
static xlarun_status xlarun__jfrom_json(xlarun__jrun *R, const xlarun__json *j, size_t i, const char *what, xlarun__jv *out) {
    char c = j->s[i];
    if (c == 'n') { *out = xlarun__jmk(XJ_NONE); return XLARUN_OK; }
    if (c == 't' || c == 'f') { *out = xlarun__jbool(c == 't'); return XLARUN_OK; }
    if (c == '"') {
        size_t n = xlarun__json_str(j, i, NULL, 0);
        char *p = XLARUN__CAST(char *, xlarun__jnewmem(R, n + 1));
        if (!p) return xlarun__joom(R);
        xlarun__json_str(j, i, p, n + 1);
        *out = xlarun__jstr(p, n);
        return XLARUN_OK;
    }
    if (c == '[' || c == '{') {
        size_t it = i, k, v, n = 0;
        while (xlarun__json_next(j, &it, &k, &v)) n++;
        if (c == '[') {
            XLARUN__TRY(xlarun__jseq_new(R, n, XJ_LIST, out));
            it = i; n = 0;
            while (xlarun__json_next(j, &it, &k, &v)) XLARUN__TRY(xlarun__jfrom_json(R, j, v, what, &out->u.l->v[n++]));
        } else {
            XLARUN__TRY(xlarun__jmap_new(R, n, XJ_DICT, out));
            it = i;
            while (xlarun__json_next(j, &it, &k, &v)) {
                xlarun__jv kv, vv;
                XLARUN__TRY(xlarun__jfrom_json(R, j, k, what, &kv));
                XLARUN__TRY(xlarun__jfrom_json(R, j, v, what, &vv));
                XLARUN__TRY(xlarun__jmap_set(R, out->u.d, &kv, &vv)); /* a repeated key keeps its place, takes the last value */
            }
        }
        return XLARUN_OK;
    }
    { /* a number: int unless it has a fraction or an exponent, as Python's json */
        size_t e = i + 1;
        int fl = 0;
        while (e < j->n && strchr("0123456789+-.eE", j->s[e])) { if (j->s[e] == '.' || j->s[e] == 'e' || j->s[e] == 'E') fl = 1; e++; }
        if (!fl) {
            uint64_t u = 0;
            size_t k = i + (j->s[i] == '-');
            for (; k < e; k++) {
                if (u > (XLARUN__CAST(uint64_t, INT64_MAX) - XLARUN__CAST(uint64_t, j->s[k] - '0')) / 10)
                    return xlarun__fail(R->err, XLARUN_ERR_ARGUMENT, "%s: the integer %.*s is out of the 64-bit range", what,
                                        XLARUN__CAST(int, e - i > 40 ? 40 : e - i), j->s + i);
                u = u * 10 + XLARUN__CAST(uint64_t, j->s[k] - '0');
            }
            *out = xlarun__jint(j->s[i] == '-' ? -XLARUN__CAST(int64_t, u) : XLARUN__CAST(int64_t, u));
        } else *out = xlarun__jfloat(xlarun__jstrtod(j->s + i, e - i));
        return XLARUN_OK;
    }
}

/* parse text (a JSON document) whose top level must be kind ('[' or '{') into a value */
static xlarun_status xlarun__jparse_json(xlarun__jrun *R, const char *text, const char *what, char kind, xlarun__jv *out) {
    xlarun__json j;
    size_t i;
    j.s = text;
    j.n = strlen(text);
    XLARUN__TRY(xlarun__json_validate(j.s, j.n, what, R->err));
    i = xlarun__json_ws(j.s, j.n, 0);
    if (j.s[i] != kind)
        return xlarun__fail(R->err, XLARUN_ERR_ARGUMENT, "%s: expected a JSON %s at the top level", what, kind == '[' ? "array" : "object");
    return xlarun__jfrom_json(R, &j, i, what, out);
}

/* a message as transformers hands it to the template: keys whose value is None dropped, and the
   reasoning (reasoning_content, else thinking, else reasoning) under "thinking" first and
   "reasoning_content" last as well */
static xlarun_status xlarun__jnormalize(xlarun__jrun *R, xlarun__jv *msg) {
    static const char *const names[3] = {"reasoning_content", "thinking", "reasoning"};
    const xlarun__jmap *d = msg->u.d;
    const xlarun__jv *reasoning = NULL;
    xlarun__jv out, k;
    size_t i;
    for (i = 0; i < 3 && !reasoning; i++) {
        reasoning = xlarun__jmap_finds(d, names[i], strlen(names[i]));
        if (reasoning && reasoning->t == XJ_NONE) reasoning = NULL;
    }
    XLARUN__TRY(xlarun__jmap_new(R, d->n + 2, XJ_DICT, &out));
    if (reasoning) { k = xlarun__jstr("thinking", 8); XLARUN__TRY(xlarun__jmap_set(R, out.u.d, &k, reasoning)); }
    for (i = 0; i < d->n; i++)
        if (d->v[i].t != XJ_NONE) XLARUN__TRY(xlarun__jmap_set(R, out.u.d, &d->k[i], reasoning && xlarun__jstreq(&d->k[i], "thinking") ? reasoning : &d->v[i]));
    if (reasoning) { k = xlarun__jstr("reasoning_content", 17); XLARUN__TRY(xlarun__jmap_set(R, out.u.d, &k, reasoning)); }
    *msg = out;
    return XLARUN_OK;
}

static xlarun_status xlarun__jset_global(xlarun__jrun *R, const char *name, const xlarun__jv *v) {
    return xlarun__jframe_set(R, R->root, name, strlen(name), v);
}

static xlarun_status xlarun__jrender(xlarun__jrun *R, const xlarun_chat_template *t, const xlarun_chat_input *in, xlarun__jbuf *out) {
    xlarun__jv v;
    size_t i;
    XLARUN__TRY(xlarun__jframe_new(R, NULL, &R->root));
    /* as transformers: the special tokens, then the extra variables (which win), then messages, tools,
       documents and add_generation_prompt */
    {
        const char *vals[7];
        vals[0] = in->bos_token; vals[1] = in->eos_token; vals[2] = in->unk_token; vals[3] = in->sep_token;
        vals[4] = in->pad_token; vals[5] = in->cls_token; vals[6] = in->mask_token;
        for (i = 0; i < 7; i++)
            if (vals[i]) {
                XLARUN__TRY(xlarun__jstr_new(R, vals[i], strlen(vals[i]), &v));
                XLARUN__TRY(xlarun__jset_global(R, xlarun__special_names[i], &v));
            }
    }
    if (in->vars_json) {
        XLARUN__TRY(xlarun__jparse_json(R, in->vars_json, "chat variables", '{', &v));
        for (i = 0; i < v.u.d->n; i++) XLARUN__TRY(xlarun__jmap_set(R, &R->root->vars, &v.u.d->k[i], &v.u.d->v[i]));
    }
    if (in->messages_json) {
        XLARUN__TRY(xlarun__jparse_json(R, in->messages_json, "chat messages", '[', &v));
        for (i = 0; i < v.u.l->n; i++) {
            if (v.u.l->v[i].t != XJ_DICT)
                return xlarun__fail(R->err, XLARUN_ERR_ARGUMENT, "chat messages: message %lu is not a JSON object", XLARUN__CAST(unsigned long, i));
            XLARUN__TRY(xlarun__jnormalize(R, &v.u.l->v[i]));
        }
    } else {
        XLARUN__TRY(xlarun__jseq_new(R, in->n_messages, XJ_LIST, &v));
        for (i = 0; i < in->n_messages; i++) {
            xlarun__jv m, k, s;
            if (!in->messages || !in->messages[i].role || !in->messages[i].content)
                return xlarun__fail(R->err, XLARUN_ERR_ARGUMENT, "chat messages: message %lu has a NULL role or content", XLARUN__CAST(unsigned long, i));
            XLARUN__TRY(xlarun__jmap_new(R, 2, XJ_DICT, &m));
            k = xlarun__jstr("role", 4);
            s = xlarun__jstr(in->messages[i].role, strlen(in->messages[i].role));
            XLARUN__TRY(xlarun__jmap_set(R, m.u.d, &k, &s));
            k = xlarun__jstr("content", 7);
            s = xlarun__jstr(in->messages[i].content, strlen(in->messages[i].content));
            XLARUN__TRY(xlarun__jmap_set(R, m.u.d, &k, &s));
            v.u.l->v[i] = m;
        }
    }
    XLARUN__TRY(xlarun__jset_global(R, "messages", &v));
    if (in->tools_json) {
        XLARUN__TRY(xlarun__jparse_json(R, in->tools_json, "chat tools", '[', &v));
        for (i = 0; i < v.u.l->n; i++)
            if (v.u.l->v[i].t != XJ_DICT)
                return xlarun__fail(R->err, XLARUN_ERR_ARGUMENT, "chat tools: tool %lu is not a JSON object", XLARUN__CAST(unsigned long, i));
    } else v = xlarun__jmk(XJ_NONE);
    XLARUN__TRY(xlarun__jset_global(R, "tools", &v));
    v = xlarun__jmk(XJ_NONE);
    XLARUN__TRY(xlarun__jset_global(R, "documents", &v));
    v = xlarun__jbool(!in->no_generation_prompt);
    XLARUN__TRY(xlarun__jset_global(R, "add_generation_prompt", &v));
    R->out = out;
    return xlarun__jexec(R, t->body, R->root);
}

static void xlarun__jrun_init(xlarun__jrun *R, xlarun__jmem *m, const xlarun_chat_input *in, xlarun_error *err) {
    memset(R, 0, sizeof *R);
    R->mem = m;
    R->err = err;
    R->max_steps = in->max_steps ? in->max_steps : XLARUN_JINJA_DEFAULT_STEPS;
    R->max_output = in->max_output ? in->max_output : XLARUN_JINJA_DEFAULT_OUTPUT;
    R->now = in->now ? in->now : XLARUN__CAST(int64_t, time(NULL));
}

XLARUN_API xlarun_status xlarun_chat_render_memory(const xlarun_chat_template *t, const xlarun_chat_input *in, size_t *work_bytes,
                                                   size_t *text_len, xlarun_error *err) {
    xlarun__jmem m;
    xlarun__jrun R;
    xlarun__jbuf out;
    xlarun_status st;
    if (!t || !in || !work_bytes) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_chat_render_memory: NULL argument");
    xlarun__jmem_init(&m, NULL, 0, NULL);
    m.cap = in->max_work ? in->max_work : XLARUN_JINJA_DEFAULT_WORK;
    xlarun__jrun_init(&R, &m, in, err);
    memset(&out, 0, sizeof out);
    out.limit = R.max_output;
    st = xlarun__jrender(&R, t, in, &out);
    if (st == XLARUN_OK && out.over) st = xlarun__jfail(&R, NULL, "the output is larger than %lu bytes", XLARUN__CAST(unsigned long, out.limit));
    if (st != XLARUN_OK && m.failed)
        st = xlarun__fail(err, XLARUN_ERR_MEMORY, "chat template: the rendering needs more than %lu bytes of work memory "
                          "(xlarun_chat_input.max_work), or the allocator failed", XLARUN__CAST(unsigned long, m.cap));
    xlarun__jmem_release(&m);
    *work_bytes = st == XLARUN_OK ? m.peak : 0;
    if (text_len) *text_len = st == XLARUN_OK ? out.total : 0;
    if (st == XLARUN_OK) xlarun__ok(err);
    return st;
}

XLARUN_API xlarun_status xlarun_chat_render(const xlarun_chat_template *t, const xlarun_chat_input *in, void *work,
                                            size_t work_bytes, char *out, size_t cap, size_t *len, xlarun_error *err) {
    xlarun__jmem m;
    xlarun__jrun R;
    xlarun__jbuf o;
    xlarun_status st;
    if (len) *len = 0;
    if (!t || !in || (!work && work_bytes) || (!out && cap))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_chat_render: NULL argument");
    if (XLARUN__PUN(uintptr_t, work) % 8) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_chat_render: work must be 8-byte aligned");
    xlarun__jmem_init(&m, work ? work : XLARUN__CAST(void *, &o), work_bytes, NULL);
    xlarun__jrun_init(&R, &m, in, err);
    memset(&o, 0, sizeof o);
    o.p = out;
    o.cap = cap ? cap - 1 : 0;
    o.limit = R.max_output;
    st = xlarun__jrender(&R, t, in, &o);
    if (st == XLARUN_OK && o.over) st = xlarun__jfail(&R, NULL, "the output is larger than %lu bytes", XLARUN__CAST(unsigned long, o.limit));
    if (st != XLARUN_OK) return st;
    if (len) *len = o.total;
    if (o.total >= cap) {
        if (cap) out[cap - 1] = 0;
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "chat: the rendered conversation needs %lu bytes, %lu given",
                            XLARUN__CAST(unsigned long, o.total + 1), XLARUN__CAST(unsigned long, cap));
    }
    out[o.total] = 0;
    xlarun__ok(err);
    return XLARUN_OK;
}

/* strings over C99's 4095 bytes: GCC and clang take them, and say so under -pedantic without this */
#if defined(__GNUC__)
#define XLARUN__LONG_STRING __extension__
#else
#define XLARUN__LONG_STRING
#endif

/* ---- built-in templates ----------------------------------------------------------------------
   The chat templates published with these models, verbatim (tokenizer_config.json's chat_template;
   tests/fixtures/chat/templates holds the same texts and says where each came from). "chatml" is
   the ChatML template of OpenHermes 2.5 (teknium/OpenHermes-2.5-Mistral-7B). */
XLARUN__LONG_STRING static const char xlarun__tmpl_llama3[] =
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header"
    "_id|>' + message['role'] + '<|end_header_id|>\n"
    "\n"
    "'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + "
    "content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>a"
    "ssistant<|end_header_id|>\n"
    "\n"
    "' }}{% endif %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_llama31[] =
    "{{- bos_token }}\n"
    "{%- if custom_tools is defined %}\n"
    "    {%- set tools = custom_tools %}\n"
    "{%- endif %}\n"
    "{%- if not tools_in_user_message is defined %}\n"
    "    {%- set tools_in_user_message = true %}\n"
    "{%- endif %}\n"
    "{%- if not date_string is defined %}\n"
    "    {%- set date_string = \"26 Jul 2024\" %}\n"
    "{%- endif %}\n"
    "{%- if not tools is defined %}\n"
    "    {%- set tools = none %}\n"
    "{%- endif %}\n"
    "\n"
    "{#- This block extracts the system message, so we can slot it into the right place. #}\n"
    "{%- if messages[0]['role'] == 'system' %}\n"
    "    {%- set system_message = messages[0]['content']|trim %}\n"
    "    {%- set messages = messages[1:] %}\n"
    "{%- else %}\n"
    "    {%- set system_message = \"\" %}\n"
    "{%- endif %}\n"
    "\n"
    "{#- System message + builtin tools #}\n"
    "{{- \"<|start_header_id|>system<|end_header_id|>\\n\\n\" }}\n"
    "{%- if builtin_tools is defined or tools is not none %}\n"
    "    {{- \"Environment: ipython\\n\" }}\n"
    "{%- endif %}\n"
    "{%- if builtin_tools is defined %}\n"
    "    {{- \"Tools: \" + builtin_tools | reject('equalto', 'code_interpreter') | join(\", \") + \"\\n\\"
    "n\"}}\n"
    "{%- endif %}\n"
    "{{- \"Cutting Knowledge Date: December 2023\\n\" }}\n"
    "{{- \"Today Date: \" + date_string + \"\\n\\n\" }}\n"
    "{%- if tools is not none and not tools_in_user_message %}\n"
    "    {{- \"You have access to the following functions. To call a function, please respond with JSON f"
    "or a function call.\" }}\n"
    "    {{- 'Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name"
    " and its value}.' }}\n"
    "    {{- \"Do not use variables.\\n\\n\" }}\n"
    "    {%- for t in tools %}\n"
    "        {{- t | tojson(indent=4) }}\n"
    "        {{- \"\\n\\n\" }}\n"
    "    {%- endfor %}\n"
    "{%- endif %}\n"
    "{{- system_message }}\n"
    "{{- \"<|eot_id|>\" }}\n"
    "\n"
    "{#- Custom tools are passed in a user message with some extra guidance #}\n"
    "{%- if tools_in_user_message and not tools is none %}\n"
    "    {#- Extract the first user message so we can plug it in here #}\n"
    "    {%- if messages | length != 0 %}\n"
    "        {%- set first_user_message = messages[0]['content']|trim %}\n"
    "        {%- set messages = messages[1:] %}\n"
    "    {%- else %}\n"
    "        {{- raise_exception(\"Cannot put tools in the first user message when there's no first user "
    "message!\") }}\n"
    "{%- endif %}\n"
    "    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}\n"
    "    {{- \"Given the following functions, please respond with a JSON for a function call \" }}\n"
    "    {{- \"with its proper arguments that best answers the given prompt.\\n\\n\" }}\n"
    "    {{- 'Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name"
    " and its value}.' }}\n"
    "    {{- \"Do not use variables.\\n\\n\" }}\n"
    "    {%- for t in tools %}\n"
    "        {{- t | tojson(indent=4) }}\n"
    "        {{- \"\\n\\n\" }}\n"
    "    {%- endfor %}\n"
    "    {{- first_user_message + \"<|eot_id|>\"}}\n"
    "{%- endif %}\n"
    "\n"
    "{%- for message in messages %}\n"
    "    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}\n"
    "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] "
    "| trim + '<|eot_id|>' }}\n"
    "    {%- elif 'tool_calls' in message %}\n"
    "        {%- if not message.tool_calls|length == 1 %}\n"
    "            {{- raise_exception(\"This model only supports single tool-calls at once!\") }}\n"
    "        {%- endif %}\n"
    "        {%- set tool_call = message.tool_calls[0].function %}\n"
    "        {%- if builtin_tools is defined and tool_call.name in builtin_tools %}\n"
    "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
    "            {{- \"<|python_tag|>\" + tool_call.name + \".call(\" }}\n"
    "            {%- for arg_name, arg_val in tool_call.arguments | items %}\n"
    "                {{- arg_name + '=\"' + arg_val + '\"' }}\n"
    "                {%- if not loop.last %}\n"
    "                    {{- \", \" }}\n"
    "                {%- endif %}\n"
    "                {%- endfor %}\n"
    "            {{- \")\" }}\n"
    "        {%- else  %}\n"
    "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
    "            {{- '{\"name\": \"' + tool_call.name + '\", ' }}\n"
    "            {{- '\"parameters\": ' }}\n"
    "            {{- tool_call.arguments | tojson }}\n"
    "            {{- \"}\" }}\n"
    "        {%- endif %}\n"
    "        {%- if builtin_tools is defined %}\n"
    "            {#- This means we're in ipython mode #}\n"
    "            {{- \"<|eom_id|>\" }}\n"
    "        {%- else %}\n"
    "            {{- \"<|eot_id|>\" }}\n"
    "        {%- endif %}\n"
    "    {%- elif message.role == \"tool\" or message.role == \"ipython\" %}\n"
    "        {{- \"<|start_header_id|>ipython<|end_header_id|>\\n\\n\" }}\n"
    "        {%- if message.content is mapping or message.content is iterable %}\n"
    "            {{- message.content | tojson }}\n"
    "        {%- else %}\n"
    "            {{- message.content }}\n"
    "        {%- endif %}\n"
    "        {{- \"<|eot_id|>\" }}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
    "{%- endif %}\n";
XLARUN__LONG_STRING static const char xlarun__tmpl_llama32[] =
    "{{- bos_token }}\n"
    "{%- if custom_tools is defined %}\n"
    "    {%- set tools = custom_tools %}\n"
    "{%- endif %}\n"
    "{%- if not tools_in_user_message is defined %}\n"
    "    {%- set tools_in_user_message = true %}\n"
    "{%- endif %}\n"
    "{%- if not date_string is defined %}\n"
    "    {%- if strftime_now is defined %}\n"
    "        {%- set date_string = strftime_now(\"%d %b %Y\") %}\n"
    "    {%- else %}\n"
    "        {%- set date_string = \"26 Jul 2024\" %}\n"
    "    {%- endif %}\n"
    "{%- endif %}\n"
    "{%- if not tools is defined %}\n"
    "    {%- set tools = none %}\n"
    "{%- endif %}\n"
    "\n"
    "{#- This block extracts the system message, so we can slot it into the right place. #}\n"
    "{%- if messages[0]['role'] == 'system' %}\n"
    "    {%- set system_message = messages[0]['content']|trim %}\n"
    "    {%- set messages = messages[1:] %}\n"
    "{%- else %}\n"
    "    {%- set system_message = \"\" %}\n"
    "{%- endif %}\n"
    "\n"
    "{#- System message #}\n"
    "{{- \"<|start_header_id|>system<|end_header_id|>\\n\\n\" }}\n"
    "{%- if tools is not none %}\n"
    "    {{- \"Environment: ipython\\n\" }}\n"
    "{%- endif %}\n"
    "{{- \"Cutting Knowledge Date: December 2023\\n\" }}\n"
    "{{- \"Today Date: \" + date_string + \"\\n\\n\" }}\n"
    "{%- if tools is not none and not tools_in_user_message %}\n"
    "    {{- \"You have access to the following functions. To call a function, please respond with JSON f"
    "or a function call.\" }}\n"
    "    {{- 'Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name"
    " and its value}.' }}\n"
    "    {{- \"Do not use variables.\\n\\n\" }}\n"
    "    {%- for t in tools %}\n"
    "        {{- t | tojson(indent=4) }}\n"
    "        {{- \"\\n\\n\" }}\n"
    "    {%- endfor %}\n"
    "{%- endif %}\n"
    "{{- system_message }}\n"
    "{{- \"<|eot_id|>\" }}\n"
    "\n"
    "{#- Custom tools are passed in a user message with some extra guidance #}\n"
    "{%- if tools_in_user_message and not tools is none %}\n"
    "    {#- Extract the first user message so we can plug it in here #}\n"
    "    {%- if messages | length != 0 %}\n"
    "        {%- set first_user_message = messages[0]['content']|trim %}\n"
    "        {%- set messages = messages[1:] %}\n"
    "    {%- else %}\n"
    "        {{- raise_exception(\"Cannot put tools in the first user message when there's no first user "
    "message!\") }}\n"
    "{%- endif %}\n"
    "    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}\n"
    "    {{- \"Given the following functions, please respond with a JSON for a function call \" }}\n"
    "    {{- \"with its proper arguments that best answers the given prompt.\\n\\n\" }}\n"
    "    {{- 'Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name"
    " and its value}.' }}\n"
    "    {{- \"Do not use variables.\\n\\n\" }}\n"
    "    {%- for t in tools %}\n"
    "        {{- t | tojson(indent=4) }}\n"
    "        {{- \"\\n\\n\" }}\n"
    "    {%- endfor %}\n"
    "    {{- first_user_message + \"<|eot_id|>\"}}\n"
    "{%- endif %}\n"
    "\n"
    "{%- for message in messages %}\n"
    "    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}\n"
    "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] "
    "| trim + '<|eot_id|>' }}\n"
    "    {%- elif 'tool_calls' in message %}\n"
    "        {%- if not message.tool_calls|length == 1 %}\n"
    "            {{- raise_exception(\"This model only supports single tool-calls at once!\") }}\n"
    "        {%- endif %}\n"
    "        {%- set tool_call = message.tool_calls[0].function %}\n"
    "        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
    "        {{- '{\"name\": \"' + tool_call.name + '\", ' }}\n"
    "        {{- '\"parameters\": ' }}\n"
    "        {{- tool_call.arguments | tojson }}\n"
    "        {{- \"}\" }}\n"
    "        {{- \"<|eot_id|>\" }}\n"
    "    {%- elif message.role == \"tool\" or message.role == \"ipython\" %}\n"
    "        {{- \"<|start_header_id|>ipython<|end_header_id|>\\n\\n\" }}\n"
    "        {%- if message.content is mapping or message.content is iterable %}\n"
    "            {{- message.content | tojson }}\n"
    "        {%- else %}\n"
    "            {{- message.content }}\n"
    "        {%- endif %}\n"
    "        {{- \"<|eot_id|>\" }}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
    "{%- endif %}\n";
XLARUN__LONG_STRING static const char xlarun__tmpl_llama2[] =
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message "
    "= messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system_message = false"
    " %}{% endif %}{% for message in loop_messages %}{% if (message['role'] == 'user') != (loop.index0 % "
    "2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') "
    "}}{% endif %}{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + sy"
    "stem_message + '\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = message['conten"
    "t'] %}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/"
    "INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}{% e"
    "ndif %}{% endfor %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_zephyr[] =
    "{% for message in messages %}\n"
    "{% if message['role'] == 'user' %}\n"
    "{{ '<|user|>\n"
    "' + message['content'] + eos_token }}\n"
    "{% elif message['role'] == 'system' %}\n"
    "{{ '<|system|>\n"
    "' + message['content'] + eos_token }}\n"
    "{% elif message['role'] == 'assistant' %}\n"
    "{{ '<|assistant|>\n"
    "'  + message['content'] + eos_token }}\n"
    "{% endif %}\n"
    "{% if loop.last and add_generation_prompt %}\n"
    "{{ '<|assistant|>' }}\n"
    "{% endif %}\n"
    "{% endfor %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_chatml[] =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im"
    "_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif "
    "%}";
XLARUN__LONG_STRING static const char xlarun__tmpl_mistral[] =
    "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 =="
    " 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{%"
    " endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif "
    "message['role'] == 'assistant' %}{{ message['content'] + eos_token + ' ' }}{% else %}{{ raise_except"
    "ion('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_mistral_v3[] =
    "{%- if messages[0]['role'] == 'system' %}\n"
    "    {%- set system_message = messages[0]['content'] %}\n"
    "    {%- set loop_messages = messages[1:] %}\n"
    "{%- else %}\n"
    "    {%- set loop_messages = messages %}\n"
    "{%- endif %}\n"
    "\n"
    "{{- bos_token }}\n"
    "{%- for message in loop_messages %}\n"
    "    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}\n"
    "        {{- raise_exception('After the optional system message, conversation roles must alternate us"
    "er/assistant/user/assistant/...') }}\n"
    "    {%- endif %}\n"
    "    {%- if message['role'] == 'user' %}\n"
    "        {%- if loop.last and system_message is defined %}\n"
    "            {{- '[INST] ' + system_message + '\\n\\n' + message['content'] + '[/INST]' }}\n"
    "        {%- else %}\n"
    "            {{- '[INST] ' + message['content'] + '[/INST]' }}\n"
    "        {%- endif %}\n"
    "    {%- elif message['role'] == 'assistant' %}\n"
    "        {{- ' ' + message['content'] + eos_token}}\n"
    "    {%- else %}\n"
    "        {{- raise_exception('Only user and assistant roles are supported, with the exception of an i"
    "nitial optional system message!') }}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n";
XLARUN__LONG_STRING static const char xlarun__tmpl_mixtral[] =
    "{%- if messages[0]['role'] == 'system' %}\n"
    "    {%- set system_message = messages[0]['content'] %}\n"
    "    {%- set loop_messages = messages[1:] %}\n"
    "{%- else %}\n"
    "    {%- set loop_messages = messages %}\n"
    "{%- endif %}\n"
    "\n"
    "{{- bos_token }}\n"
    "{%- for message in loop_messages %}\n"
    "    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}\n"
    "        {{- raise_exception('After the optional system message, conversation roles must alternate us"
    "er/assistant/user/assistant/...') }}\n"
    "    {%- endif %}\n"
    "    {%- if message['role'] == 'user' %}\n"
    "        {%- if loop.first and system_message is defined %}\n"
    "            {{- ' [INST] ' + system_message + '\\n\\n' + message['content'] + ' [/INST]' }}\n"
    "        {%- else %}\n"
    "            {{- ' [INST] ' + message['content'] + ' [/INST]' }}\n"
    "        {%- endif %}\n"
    "    {%- elif message['role'] == 'assistant' %}\n"
    "        {{- ' ' + message['content'] + eos_token}}\n"
    "    {%- else %}\n"
    "        {{- raise_exception('Only user and assistant roles are supported, with the exception of an i"
    "nitial optional system message!') }}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n";
XLARUN__LONG_STRING static const char xlarun__tmpl_mistral_small[] =
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ '[INST]' + message["
    "'content'] + '[/INST]' }}{% elif message['role'] == 'system' %}{{ '[SYSTEM_PROMPT]' + message['conte"
    "nt'] + '[/SYSTEM_PROMPT]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_tok"
    "en }}{% else %}{{ raise_exception('Only user, system and assistant roles are supported!') }}{% endif"
    " %}{% endfor %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_mistral_large[] =
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ '[INST] ' + message"
    "['content'] + '[/INST]' }}{% elif message['role'] == 'system' %}{{ '[SYSTEM_PROMPT] ' + message['con"
    "tent'] + '[/SYSTEM_PROMPT]' }}{% elif message['role'] == 'assistant' %}{{ ' ' + message['content'] +"
    " eos_token }}{% else %}{{ raise_exception('Only user, system and assistant roles are supported!') }}"
    "{% endif %}{% endfor %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_qwen3[] =
    "{%- if tools %}\n"
    "    {{- '<|im_start|>system\\n' }}\n"
    "    {%- if messages[0].role == 'system' %}\n"
    "        {{- messages[0].content + '\\n\\n' }}\n"
    "    {%- endif %}\n"
    "    {{- \"# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou ar"
    "e provided with function signatures within <tools></tools> XML tags:\\n<tools>\" }}\n"
    "    {%- for tool in tools %}\n"
    "        {{- \"\\n\" }}\n"
    "        {{- tool | tojson }}\n"
    "    {%- endfor %}\n"
    "    {{- \"\\n</tools>\\n\\nFor each function call, return a json object with function name and argum"
    "ents within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\\"name\\\": <function-name>, \\\"ar"
    "guments\\\": <args-json-object>}\\n</tool_call><|im_end|>\\n\" }}\n"
    "{%- else %}\n"
    "    {%- if messages[0].role == 'system' %}\n"
    "        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n"
    "    {%- endif %}\n"
    "{%- endif %}\n"
    "{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}\n"
    "{%- for message in messages[::-1] %}\n"
    "    {%- set index = (messages|length - 1) - loop.index0 %}\n"
    "    {%- if ns.multi_step_tool and message.role == \"user\" and not(message.content.startswith('<tool"
    "_response>') and message.content.endswith('</tool_response>')) %}\n"
    "        {%- set ns.multi_step_tool = false %}\n"
    "        {%- set ns.last_query_index = index %}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n"
    "{%- for message in messages %}\n"
    "    {%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) %}\n"
    "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
    "    {%- elif message.role == \"assistant\" %}\n"
    "        {%- set content = message.content %}\n"
    "        {%- set reasoning_content = '' %}\n"
    "        {%- if message.reasoning_content is defined and message.reasoning_content is not none %}\n"
    "            {%- set reasoning_content = message.reasoning_content %}\n"
    "        {%- else %}\n"
    "            {%- if '</think>' in message.content %}\n"
    "                {%- set content = message.content.split('</think>')[-1].lstrip('\\n') %}\n"
    "                {%- set reasoning_content = message.content.split('</think>')[0].rstrip('\\n').split"
    "('<think>')[-1].lstrip('\\n') %}\n"
    "            {%- endif %}\n"
    "        {%- endif %}\n"
    "        {%- if loop.index0 > ns.last_query_index %}\n"
    "            {%- if loop.last or (not loop.last and reasoning_content) %}\n"
    "                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n')"
    " + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
    "            {%- else %}\n"
    "                {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
    "            {%- endif %}\n"
    "        {%- else %}\n"
    "            {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
    "        {%- endif %}\n"
    "        {%- if message.tool_calls %}\n"
    "            {%- for tool_call in message.tool_calls %}\n"
    "                {%- if (loop.first and content) or (not loop.first) %}\n"
    "                    {{- '\\n' }}\n"
    "                {%- endif %}\n"
    "                {%- if tool_call.function %}\n"
    "                    {%- set tool_call = tool_call.function %}\n"
    "                {%- endif %}\n"
    "                {{- '<tool_call>\\n{\"name\": \"' }}\n"
    "                {{- tool_call.name }}\n"
    "                {{- '\", \"arguments\": ' }}\n"
    "                {%- if tool_call.arguments is string %}\n"
    "                    {{- tool_call.arguments }}\n"
    "                {%- else %}\n"
    "                    {{- tool_call.arguments | tojson }}\n"
    "                {%- endif %}\n"
    "                {{- '}\\n</tool_call>' }}\n"
    "            {%- endfor %}\n"
    "        {%- endif %}\n"
    "        {{- '<|im_end|>\\n' }}\n"
    "    {%- elif message.role == \"tool\" %}\n"
    "        {%- if loop.first or (messages[loop.index0 - 1].role != \"tool\") %}\n"
    "            {{- '<|im_start|>user' }}\n"
    "        {%- endif %}\n"
    "        {{- '\\n<tool_response>\\n' }}\n"
    "        {{- message.content }}\n"
    "        {{- '\\n</tool_response>' }}\n"
    "        {%- if loop.last or (messages[loop.index0 + 1].role != \"tool\") %}\n"
    "            {{- '<|im_end|>\\n' }}\n"
    "        {%- endif %}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "    {{- '<|im_start|>assistant\\n' }}\n"
    "    {%- if enable_thinking is defined and enable_thinking is false %}\n"
    "        {{- '<think>\\n\\n</think>\\n\\n' }}\n"
    "    {%- endif %}\n"
    "{%- endif %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_gemma[] =
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported"
    "') }}{% endif %}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 ="
    "= 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{"
    "% endif %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = m"
    "essage['role'] %}{% endif %}{{ '<start_of_turn>' + role + '\n"
    "' + message['content'] | trim + '<end_of_turn>\n"
    "' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\n"
    "'}}{% endif %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_gemma3[] =
    "{{ bos_token }}\n"
    "{%- if messages[0]['role'] == 'system' -%}\n"
    "    {%- if messages[0]['content'] is string -%}\n"
    "        {%- set first_user_prefix = messages[0]['content'] + '\n"
    "\n"
    "' -%}\n"
    "    {%- else -%}\n"
    "        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '\n"
    "\n"
    "' -%}\n"
    "    {%- endif -%}\n"
    "    {%- set loop_messages = messages[1:] -%}\n"
    "{%- else -%}\n"
    "    {%- set first_user_prefix = \"\" -%}\n"
    "    {%- set loop_messages = messages -%}\n"
    "{%- endif -%}\n"
    "{%- for message in loop_messages -%}\n"
    "    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}\n"
    "        {{ raise_exception(\"Conversation roles must alternate user/assistant/user/assistant/...\") "
    "}}\n"
    "    {%- endif -%}\n"
    "    {%- if (message['role'] == 'assistant') -%}\n"
    "        {%- set role = \"model\" -%}\n"
    "    {%- else -%}\n"
    "        {%- set role = message['role'] -%}\n"
    "    {%- endif -%}\n"
    "    {{ '<start_of_turn>' + role + '\n"
    "' + (first_user_prefix if loop.first else \"\") }}\n"
    "    {%- if message['content'] is string -%}\n"
    "        {{ message['content'] | trim }}\n"
    "    {%- elif message['content'] is iterable -%}\n"
    "        {%- for item in message['content'] -%}\n"
    "            {%- if item['type'] == 'image' -%}\n"
    "                {{ '<start_of_image>' }}\n"
    "            {%- elif item['type'] == 'text' -%}\n"
    "                {{ item['text'] | trim }}\n"
    "            {%- endif -%}\n"
    "        {%- endfor -%}\n"
    "    {%- else -%}\n"
    "        {{ raise_exception(\"Invalid content type\") }}\n"
    "    {%- endif -%}\n"
    "    {{ '<end_of_turn>\n"
    "' }}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}\n"
    "    {{'<start_of_turn>model\n"
    "'}}\n"
    "{%- endif -%}\n";
XLARUN__LONG_STRING static const char xlarun__tmpl_phi3[] =
    "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\n"
    "' + message['content'] + '<|end|>\n"
    "'}}{% elif message['role'] == 'user' %}{{'<|user|>\n"
    "' + message['content'] + '<|end|>\n"
    "'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\n"
    "' + message['content'] + '<|end|>\n"
    "'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n"
    "' }}{% else %}{{ eos_token }}{% endif %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_phi35[] =
    "{% for message in messages %}{% if message['role'] == 'system' and message['content'] %}{{'<|system|"
    ">\n"
    "' + message['content'] + '<|end|>\n"
    "'}}{% elif message['role'] == 'user' %}{{'<|user|>\n"
    "' + message['content'] + '<|end|>\n"
    "'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\n"
    "' + message['content'] + '<|end|>\n"
    "'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n"
    "' }}{% else %}{{ eos_token }}{% endif %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_phi3_medium[] =
    "{% for message in messages %}{% if (message['role'] == 'user') %}{{'<|user|>' + '\n"
    "' + message['content'] + '<|end|>' + '\n"
    "' + '<|assistant|>' + '\n"
    "'}}{% elif (message['role'] == 'assistant') %}{{message['content'] + '<|end|>' + '\n"
    "'}}{% endif %}{% endfor %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_phi4_mini[] =
    "{% for message in messages %}{% if message['role'] == 'system' and 'tools' in message and message['t"
    "ools'] is not none %}{{ '<|' + message['role'] + '|>' + message['content'] + '<|tool|>' + message['t"
    "ools'] + '<|/tool|>' + '<|end|>' }}{% else %}{{ '<|' + message['role'] + '|>' + message['content'] +"
    " '<|end|>' }}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>' }}{% else %}{{ "
    "eos_token }}{% endif %}";
XLARUN__LONG_STRING static const char xlarun__tmpl_olmo2[] =
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'system' %}{{ '<|system|>\n"
    "' + message['content'] + '\n"
    "' }}{% elif message['role'] == 'user' %}{{ '<|user|>\n"
    "' + message['content'] + '\n"
    "' }}{% elif message['role'] == 'assistant' %}{% if not loop.last %}{{ '<|assistant|>\n"
    "'  + message['content'] + eos_token + '\n"
    "' }}{% else %}{{ '<|assistant|>\n"
    "'  + message['content'] + eos_token }}{% endif %}{% endif %}{% if loop.last and add_generation_promp"
    "t %}{{ '<|assistant|>\n"
    "' }}{% endif %}{% endfor %}";
static const struct { const char *name; const char *text; } xlarun__builtin_templates[] = {
    {"llama3", xlarun__tmpl_llama3},
    {"llama3.1", xlarun__tmpl_llama31},
    {"llama3.2", xlarun__tmpl_llama32},
    {"llama2", xlarun__tmpl_llama2},
    {"zephyr", xlarun__tmpl_zephyr},
    {"chatml", xlarun__tmpl_chatml},
    {"mistral", xlarun__tmpl_mistral},
    {"mistral-v3", xlarun__tmpl_mistral_v3},
    {"mixtral", xlarun__tmpl_mixtral},
    {"mistral-small", xlarun__tmpl_mistral_small},
    {"mistral-large", xlarun__tmpl_mistral_large},
    {"qwen3", xlarun__tmpl_qwen3},
    {"gemma", xlarun__tmpl_gemma},
    {"gemma3", xlarun__tmpl_gemma3},
    {"phi3", xlarun__tmpl_phi3},
    {"phi3.5", xlarun__tmpl_phi35},
    {"phi3-medium", xlarun__tmpl_phi3_medium},
    {"phi4-mini", xlarun__tmpl_phi4_mini},
    {"olmo2", xlarun__tmpl_olmo2}};

XLARUN_API const char *xlarun_chat_template_builtin(const char *name) {
    size_t k;
    if (!name) return NULL;
    for (k = 0; k < sizeof xlarun__builtin_templates / sizeof xlarun__builtin_templates[0]; k++)
        if (!strcmp(name, xlarun__builtin_templates[k].name)) return xlarun__builtin_templates[k].text;
    return NULL;
}

XLARUN_API const char *xlarun_chat_template_names(void) {
    return "llama3, llama3.1, llama3.2, llama2, zephyr, chatml, mistral, mistral-v3, mixtral, mistral-small, mistral-large, qwen3, gemma, gemma3, phi3, phi3.5, phi3-medium, phi4-mini, olmo2";
}

XLARUN_API void xlarun_chat_input_from_tokenizer(const xlarun_tokenizer *t, xlarun_chat_input *in) {
    const char **dst[7];
    size_t k;
    if (!xlarun__tok_ok(t) || !in) return;
    dst[0] = &in->bos_token; dst[1] = &in->eos_token; dst[2] = &in->unk_token; dst[3] = &in->sep_token;
    dst[4] = &in->pad_token; dst[5] = &in->cls_token; dst[6] = &in->mask_token;
    for (k = 0; k < 7; k++)
        if (t->special_texts[k]) *dst[k] = t->special_texts[k];
}

XLARUN_API xlarun_status xlarun_chat_render_alloc(const xlarun_chat_template *t, const xlarun_chat_input *in, char **text,
                                                  size_t *len, xlarun_error *err) {
    size_t work = 0, n = 0;
    void *mem;
    char *out;
    xlarun_status st;
    if (!text) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_chat_render_alloc: text is NULL");
    *text = NULL;
    XLARUN__TRY(xlarun_chat_render_memory(t, in, &work, &n, err));
    mem = XLARUN_MALLOC(work ? work : 1, NULL);
    out = XLARUN__CAST(char *, XLARUN_MALLOC(n + 1, NULL));
    if (!mem || !out) {
        if (mem) XLARUN_FREE(mem, NULL);
        if (out) XLARUN_FREE(out, NULL);
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "cannot allocate %lu bytes to render a chat template", XLARUN__CAST(unsigned long, work + n + 1));
    }
    st = xlarun_chat_render(t, in, mem, work, out, n + 1, len, err);
    XLARUN_FREE(mem, NULL);
    if (st != XLARUN_OK) { XLARUN_FREE(out, NULL); return st; }
    *text = out;
    return XLARUN_OK;
}

XLARUN_API void xlarun_chat_text_free(char *text) {
    if (text) XLARUN_FREE(text, NULL);
}


/* ---- tool calls: a reply split into reasoning, content and calls ----------------------------
   One pass over the text: the reasoning block first, then each format's markers in order; the
   text between markers is content. JSON after a marker is delimited by bracket matching, then
   validated strictly (xlarun__json_validate) before anything reads it. Strings go into the
   caller's memory: reasoning and content grow up from the low end, call strings down from the
   high end, the call array sits below both. */

#define XLARUN__REPLY_MAX_LEN (SIZE_MAX / 16)
#define XLARUN__FW_BAR "\xEF\xBD\x9C" /* U+FF5C FULLWIDTH VERTICAL LINE, in DeepSeek's markers */
#define XLARUN__LOW8TH "\xE2\x96\x81" /* U+2581 LOWER ONE EIGHTH BLOCK, their word separator */
#define XLARUN__DS(words) "<" XLARUN__FW_BAR words XLARUN__FW_BAR ">"
#define XLARUN__DS_CALLS_BEGIN XLARUN__DS("tool" XLARUN__LOW8TH "calls" XLARUN__LOW8TH "begin")
#define XLARUN__DS_CALLS_END XLARUN__DS("tool" XLARUN__LOW8TH "calls" XLARUN__LOW8TH "end")
#define XLARUN__DS_CALL_BEGIN XLARUN__DS("tool" XLARUN__LOW8TH "call" XLARUN__LOW8TH "begin")
#define XLARUN__DS_CALL_END XLARUN__DS("tool" XLARUN__LOW8TH "call" XLARUN__LOW8TH "end")
#define XLARUN__DS_SEP XLARUN__DS("tool" XLARUN__LOW8TH "sep")

XLARUN_API const char *xlarun_tool_format_name(xlarun_tool_format f) {
    switch (f) {
    case XLARUN_TOOLS_NONE: return "none";
    case XLARUN_TOOLS_LLAMA3: return "llama3";
    case XLARUN_TOOLS_HERMES: return "hermes";
    case XLARUN_TOOLS_MISTRAL: return "mistral";
    case XLARUN_TOOLS_GRANITE: return "granite";
    case XLARUN_TOOLS_PHI4: return "phi4";
    case XLARUN_TOOLS_DEEPSEEK_R1: return "deepseek-r1";
    }
    return "?";
}

XLARUN_API size_t xlarun_reply_memory(size_t len) {
    if (len > XLARUN__REPLY_MAX_LEN) return SIZE_MAX;
    return 64 + (len / 12 + 1) * sizeof(xlarun_tool_call) + 7 * len;
}

typedef struct xlarun__rp {
    const char *s;            /* the reply */
    size_t n;                 /* its length (LLAMA3: up to <|eom_id|> / <|eot_id|>) */
    const char *fmt;          /* the format's name, for messages */
    xlarun_tool_call *calls;
    size_t n_calls, cap_calls;
    char *lo, *hi;            /* free memory: text grows up from lo, call strings down from hi */
    char *content;            /* where the content starts (it is built at lo) */
    xlarun_error *err;
} xlarun__rp;

static int xlarun__rp_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int xlarun__rp_at(const xlarun__rp *r, size_t i, const char *lit) {
    size_t k = strlen(lit);
    return i <= r->n && r->n - i >= k && memcmp(r->s + i, lit, k) == 0;
}

/* the first lit at or after i, or NONE */
static size_t xlarun__rp_find(const xlarun__rp *r, size_t i, const char *lit) {
    size_t k = strlen(lit);
    const char *p;
    while (i < r->n && r->n - i >= k) {
        p = XLARUN__CAST(const char *, memchr(r->s + i, lit[0], r->n - i - k + 1));
        if (!p) break;
        i = XLARUN__CAST(size_t, p - r->s);
        if (memcmp(p, lit, k) == 0) return i;
        i++;
    }
    return XLARUN__NONE;
}

static size_t xlarun__rp_skip_ws(const xlarun__rp *r, size_t i) {
    while (i < r->n && xlarun__rp_ws(r->s[i])) i++;
    return i;
}

static xlarun_status xlarun__rp_oom(xlarun__rp *r) {
    /* not reached with xlarun_reply_memory(len) bytes; kept as a guard */
    return xlarun__fail(r->err, XLARUN_ERR_MEMORY, "%s reply: out of reply memory (xlarun_reply_memory gives the size)",
                        r->fmt);
}

/* n bytes for a call string, taken from the high end */
static char *xlarun__rp_take(xlarun__rp *r, size_t n) {
    if (XLARUN__CAST(size_t, r->hi - r->lo) < n) return NULL;
    r->hi -= n;
    return r->hi;
}

/* s[a, b) trimmed and appended to the content (leading white space only while it is empty) */
static xlarun_status xlarun__rp_text(xlarun__rp *r, size_t a, size_t b) {
    if (r->lo == r->content)
        while (a < b && xlarun__rp_ws(r->s[a])) a++;
    if (a >= b) return XLARUN_OK;
    if (XLARUN__CAST(size_t, r->hi - r->lo) < b - a + 1) return xlarun__rp_oom(r);
    memcpy(r->lo, r->s + a, b - a);
    r->lo += b - a;
    return XLARUN_OK;
}

/* Where the JSON value starting at s[i] ends (exclusive), found by string and bracket matching
   only: the end of the value, or just past a bracket that closes the wrong kind or nests deeper
   than the reader's limit (validating the span then names the fault); 0 when the reply ends
   first. The span is validated strictly afterwards. */
static size_t xlarun__rp_extent(const xlarun__rp *r, size_t i) {
    const char *s = r->s;
    size_t n = r->n, depth = 0;
    char open[XLARUN_JSON_MAX_DEPTH];
    int in_str = 0;
    if (i >= n) return 0;
    if (s[i] != '{' && s[i] != '[' && s[i] != '"') { /* a number or a literal */
        while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
                         (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '-' || s[i] == '+' || s[i] == '.'))
            i++;
        return i;
    }
    for (; i < n; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\') i++;
            else if (c == '"') {
                in_str = 0;
                if (depth == 0) return i + 1;
            }
        } else if (c == '"') in_str = 1;
        else if (c == '{' || c == '[') {
            if (depth == XLARUN_JSON_MAX_DEPTH) return i + 1;
            open[depth++] = c;
        } else if (c == '}' || c == ']') {
            if (depth == 0 || open[depth - 1] != (c == '}' ? '{' : '[')) return i + 1;
            if (--depth == 0) return i + 1;
        }
    }
    return 0;
}

/* the number after key in a message (0 when absent) */
static unsigned long xlarun__rp_msg_num(const char *m, const char *key) {
    unsigned long v = 0;
    m = strstr(m, key);
    if (!m) return 0;
    for (m += strlen(key); *m >= '0' && *m <= '9'; m++) v = v * 10 + XLARUN__CAST(unsigned long, *m - '0');
    return v;
}

/* validates s[a, b) as one JSON value; a failure names the byte where the reader stopped */
static xlarun_status xlarun__rp_validate(xlarun__rp *r, size_t a, size_t b, const char *what) {
    xlarun_error e;
    const char *why;
    unsigned long line, col, l = 1;
    size_t at = a;
    if (xlarun__json_validate(r->s + a, b - a, "x", &e) == XLARUN_OK) return XLARUN_OK;
    /* the message reads "x: invalid JSON at line L column C: why" */
    line = xlarun__rp_msg_num(e.message, " line ");
    col = xlarun__rp_msg_num(e.message, " column ");
    why = strstr(e.message, " column ");
    why = why ? strstr(why, ": ") : NULL;
    why = why ? why + 2 : e.message;
    while (at < b && l < line) { if (r->s[at] == '\n') l++; at++; }
    if (col > 1) at += col - 1 < b - at ? XLARUN__CAST(size_t, col - 1) : b - at;
    return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: invalid JSON in %s at byte %lu (it starts at byte %lu): %s",
                        r->fmt, what, XLARUN__CAST(unsigned long, at), XLARUN__CAST(unsigned long, a), why);
}

/* the JSON value at s[i]: delimited, validated; *end gets where it ends */
static xlarun_status xlarun__rp_value(xlarun__rp *r, size_t i, const char *what, size_t *end) {
    size_t e = xlarun__rp_extent(r, i);
    if (e == 0 || e == i)
        return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: %s at byte %lu %s", r->fmt, what,
                            XLARUN__CAST(unsigned long, i),
                            i >= r->n ? "is missing: the reply ends there" : e ? "is not a JSON value" : "is not closed before the reply ends");
    XLARUN__TRY(xlarun__rp_validate(r, i, e, what));
    *end = e;
    return XLARUN_OK;
}

/* ---- compact JSON: white space dropped, strings re-escaped as Python's json.dumps does ---- */

typedef struct xlarun__cw { char *out; size_t n; } xlarun__cw; /* out NULL: count only */

static void xlarun__cw_put(xlarun__cw *w, char c) {
    if (w->out) w->out[w->n] = c;
    w->n++;
}

static void xlarun__cw_cp(xlarun__cw *w, unsigned cp) {
    static const char hex[] = "0123456789abcdef";
    if (cp == '"' || cp == '\\') { xlarun__cw_put(w, '\\'); xlarun__cw_put(w, XLARUN__CAST(char, cp)); }
    else if (cp < 0x20) {
        const char *named = strchr("\bb\ff\nn\rr\tt", XLARUN__CAST(int, cp));
        xlarun__cw_put(w, '\\');
        if (cp && named) xlarun__cw_put(w, named[1]);
        else {
            xlarun__cw_put(w, 'u'); xlarun__cw_put(w, '0'); xlarun__cw_put(w, '0');
            xlarun__cw_put(w, hex[cp >> 4]); xlarun__cw_put(w, hex[cp & 15]);
        }
    } else if (cp < 0x80) xlarun__cw_put(w, XLARUN__CAST(char, cp));
    else if (cp < 0x800) {
        xlarun__cw_put(w, XLARUN__CAST(char, 0xC0 | (cp >> 6)));
        xlarun__cw_put(w, XLARUN__CAST(char, 0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        xlarun__cw_put(w, XLARUN__CAST(char, 0xE0 | (cp >> 12)));
        xlarun__cw_put(w, XLARUN__CAST(char, 0x80 | ((cp >> 6) & 0x3F)));
        xlarun__cw_put(w, XLARUN__CAST(char, 0x80 | (cp & 0x3F)));
    } else {
        xlarun__cw_put(w, XLARUN__CAST(char, 0xF0 | (cp >> 18)));
        xlarun__cw_put(w, XLARUN__CAST(char, 0x80 | ((cp >> 12) & 0x3F)));
        xlarun__cw_put(w, XLARUN__CAST(char, 0x80 | ((cp >> 6) & 0x3F)));
        xlarun__cw_put(w, XLARUN__CAST(char, 0x80 | (cp & 0x3F)));
    }
}

/* Writes the validated JSON value s[0, n) compactly. Each piece of output is no longer than the
   input it comes from and is written after that input is read, so out may be s itself. */
static void xlarun__cw_json(xlarun__cw *w, const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = XLARUN__CAST(unsigned char, s[i]);
        if (xlarun__rp_ws(XLARUN__CAST(char, c))) { i++; continue; }
        if (c != '"') { i++; xlarun__cw_put(w, XLARUN__CAST(char, c)); continue; }
        i++;
        xlarun__cw_put(w, '"');
        while (s[i] != '"') {
            unsigned cp = 0, lo = 0;
            char e;
            if (s[i] != '\\') { xlarun__cw_put(w, s[i++]); continue; }
            e = s[i + 1];
            if (e != 'u') {
                i += 2;
                if (e == '/') xlarun__cw_put(w, '/');
                else { xlarun__cw_put(w, '\\'); xlarun__cw_put(w, e); }
                continue;
            }
            xlarun__hex4(s + i + 2, &cp);
            i += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) { /* validated: a low surrogate follows */
                xlarun__hex4(s + i + 2, &lo);
                i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            xlarun__cw_cp(w, cp);
        }
        i++;
        xlarun__cw_put(w, '"');
    }
}

/* a string with a character below U+0020 (a name or id is refused with one) */
static int xlarun__rp_has_control(const xlarun__json *j, size_t v) {
    size_t i = v + 1;
    while (j->s[i] != '"') {
        if (j->s[i] == '\\') {
            unsigned cp = 0;
            if (j->s[i + 1] != 'u') {
                if (strchr("bfnrt", j->s[i + 1])) return 1;
                i += 2;
                continue;
            }
            xlarun__hex4(j->s + i + 2, &cp);
            if (cp < 0x20) return 1;
            i += 6;
            continue;
        }
        i++;
    }
    return 0;
}

/* ---- one call given as a JSON object ------------------------------------------------------ */

/* What a call object holds: {"name":..,"arguments":..} with "parameters" for "arguments", the
   OpenAI form {"type":"function","function":{"name":..,"arguments":..}}, an "id" beside them.
   Arguments may be an object, null or absent (then {}), or a string holding an object. */
typedef struct xlarun__rp_obj { size_t name, args, id; } xlarun__rp_obj;

/* Checks the call object at v of j (without writing). Returns NULL, or why it is not a call. */
static const char *xlarun__rp_check(xlarun__rp *r, const xlarun__json *j, size_t v, int need_args,
                                    xlarun__rp_obj *o) {
    size_t c = v, f, len;
    if (j->s[v] != '{') return "a tool call is not a JSON object";
    f = xlarun__json_get(j, v, "function");
    if (f != XLARUN__NONE && j->s[f] == '{') c = f;
    o->name = xlarun__json_get(j, c, "name");
    o->args = xlarun__json_get(j, c, "arguments");
    if (o->args == XLARUN__NONE) o->args = xlarun__json_get(j, c, "parameters");
    o->id = xlarun__json_get(j, v, "id");
    if (o->id == XLARUN__NONE && c != v) o->id = xlarun__json_get(j, c, "id");
    if (o->id != XLARUN__NONE && j->s[o->id] != '"') o->id = XLARUN__NONE;
    if (o->name == XLARUN__NONE || j->s[o->name] != '"') return "a tool call has no \"name\" string";
    if (xlarun__json_str(j, o->name, NULL, 0) == 0) return "a tool call's name is empty";
    if (xlarun__rp_has_control(j, o->name)) return "a tool call's name holds a control character";
    if (o->id != XLARUN__NONE && xlarun__rp_has_control(j, o->id)) return "a tool call's id holds a control character";
    if (o->args == XLARUN__NONE) return need_args ? "a tool call has no \"parameters\" or \"arguments\"" : NULL;
    if (j->s[o->args] == '{' || j->s[o->args] == 'n') return NULL;
    if (j->s[o->args] != '"') return "a tool call's arguments are not a JSON object";
    /* a string: decode it into scratch space (not kept) and check that it holds an object */
    len = xlarun__json_str(j, o->args, NULL, 0);
    if (XLARUN__CAST(size_t, r->hi - r->lo) < len + 1) return "out of reply memory";
    {
        char *tmp = r->hi - (len + 1);
        size_t k = 0;
        xlarun__json_str(j, o->args, tmp, len + 1);
        while (k < len && xlarun__rp_ws(tmp[k])) k++;
        if (k == len) return NULL; /* "" reads as {} */
        if (tmp[k] != '{' || xlarun__json_validate(tmp, len, "arguments", NULL) != XLARUN_OK)
            return "a tool call's arguments string does not hold a JSON object";
    }
    return NULL;
}

static xlarun_status xlarun__rp_add(xlarun__rp *r, const char *name, const char *args, const char *id) {
    xlarun_tool_call *t;
    if (r->n_calls == r->cap_calls) return xlarun__rp_oom(r);
    t = &r->calls[r->n_calls++];
    t->name = name;
    t->arguments = args;
    t->id = id;
    return XLARUN_OK;
}

/* a JSON string of j decoded into a new call string */
static char *xlarun__rp_str(xlarun__rp *r, const xlarun__json *j, size_t v) {
    size_t len = xlarun__json_str(j, v, NULL, 0);
    char *p = xlarun__rp_take(r, len + 1);
    if (p) xlarun__json_str(j, v, p, len + 1);
    return p;
}

/* writes the call checked by xlarun__rp_check */
static xlarun_status xlarun__rp_emit(xlarun__rp *r, const xlarun__json *j, const xlarun__rp_obj *o) {
    char *name, *args, *id = NULL;
    xlarun__cw w;
    if (!(name = xlarun__rp_str(r, j, o->name))) return xlarun__rp_oom(r);
    if (o->id != XLARUN__NONE && !(id = xlarun__rp_str(r, j, o->id))) return xlarun__rp_oom(r);
    if (o->args == XLARUN__NONE || j->s[o->args] == 'n') {
        if (!(args = xlarun__rp_take(r, 3))) return xlarun__rp_oom(r);
        memcpy(args, "{}", 3);
    } else if (j->s[o->args] == '"') { /* decoded, then compacted in place */
        size_t len = xlarun__json_str(j, o->args, NULL, 0);
        if (!(args = xlarun__rp_take(r, (len < 2 ? 2 : len) + 1))) return xlarun__rp_oom(r);
        xlarun__json_str(j, o->args, args, len + 1);
        w.out = args;
        w.n = 0;
        xlarun__cw_json(&w, args, len); /* in place */
        if (w.n == 0) { memcpy(args, "{}", 3); w.n = 2; }
        args[w.n] = 0;
    } else {
        size_t end = xlarun__json_skip(j, o->args);
        w.out = NULL;
        w.n = 0;
        xlarun__cw_json(&w, j->s + o->args, end - o->args);
        if (!(args = xlarun__rp_take(r, w.n + 1))) return xlarun__rp_oom(r);
        w.out = args;
        w.n = 0;
        xlarun__cw_json(&w, j->s + o->args, end - o->args);
        args[w.n] = 0;
    }
    return xlarun__rp_add(r, name, args, id);
}

/* The JSON at i after the marker what (at byte at): an object (one call) or an array of them;
   *end gets where it ends. */
static xlarun_status xlarun__rp_json_calls(xlarun__rp *r, size_t at, size_t i, const char *what, size_t *end) {
    xlarun__json j;
    xlarun__rp_obj o;
    const char *why;
    size_t it, k, v, pass;
    char label[64];
    if (i >= r->n || (r->s[i] != '{' && r->s[i] != '['))
        return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: %s at byte %lu is not followed by a JSON object or array (byte %lu)",
                            r->fmt, what, XLARUN__CAST(unsigned long, at), XLARUN__CAST(unsigned long, i));
    snprintf(label, sizeof label, "the tool call after %s", what);
    XLARUN__TRY(xlarun__rp_value(r, i, label, end));
    j.s = r->s + i;
    j.n = *end - i;
    for (pass = 0; pass < 2; pass++) { /* check every call, then write them */
        if (j.s[0] == '{') {
            if ((why = xlarun__rp_check(r, &j, 0, 0, &o)) != NULL) goto bad;
            if (pass) XLARUN__TRY(xlarun__rp_emit(r, &j, &o));
            continue;
        }
        it = 0;
        while (xlarun__json_next(&j, &it, &k, &v)) {
            if ((why = xlarun__rp_check(r, &j, v, 0, &o)) != NULL) { i += v; goto bad; }
            if (pass) XLARUN__TRY(xlarun__rp_emit(r, &j, &o));
        }
    }
    return XLARUN_OK;
bad:
    return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: %s (after %s, at byte %lu)", r->fmt, why, what,
                        XLARUN__CAST(unsigned long, i));
}

/* ---- the reasoning block -------------------------------------------------------------------- */

/* Takes a leading <think>...</think> (or text up to a first </think>) as the reasoning; returns
   where the rest of the reply starts. */
static xlarun_status xlarun__rp_reasoning(xlarun__rp *r, const char **reasoning, size_t *rest) {
    size_t i = xlarun__rp_skip_ws(r, 0), a, b, e;
    *reasoning = NULL;
    *rest = 0;
    if (xlarun__rp_at(r, i, "<think>")) {
        a = i + 7;
        e = xlarun__rp_find(r, a, "</think>");
        b = e == XLARUN__NONE ? r->n : e;
        *rest = e == XLARUN__NONE ? r->n : e + 8;
    } else if ((e = xlarun__rp_find(r, 0, "</think>")) != XLARUN__NONE) { /* the prompt opened it */
        a = 0;
        b = e;
        *rest = e + 8;
    } else
        return XLARUN_OK;
    while (a < b && xlarun__rp_ws(r->s[a])) a++;
    while (b > a && xlarun__rp_ws(r->s[b - 1])) b--;
    if (XLARUN__CAST(size_t, r->hi - r->lo) < b - a + 1) return xlarun__rp_oom(r);
    memcpy(r->lo, r->s + a, b - a);
    r->lo[b - a] = 0;
    *reasoning = r->lo;
    r->lo += b - a + 1;
    return XLARUN_OK;
}

/* ---- Llama 3 -------------------------------------------------------------------------------- */

/* JSON call objects from i, separated by white space or ';' (Llama 3's own form). strict: after
   <|python_tag|>, where anything malformed is an error and the objects may be followed by other
   text; otherwise the objects must fill the reply to the end, and a 1 in *is_calls says they do
   (nothing is written otherwise). *end gets where the last object ends. */
static xlarun_status xlarun__rp_llama_objs(xlarun__rp *r, size_t i, int strict, int *is_calls, size_t *end) {
    xlarun__json j;
    xlarun__rp_obj o;
    const char *why;
    size_t p = i, e = i, pass;
    *is_calls = 0;
    for (pass = 0; pass < 2; pass++) {
        p = i;
        for (;;) {
            e = xlarun__rp_extent(r, p);
            if (strict) XLARUN__TRY(xlarun__rp_value(r, p, "the tool call after <|python_tag|>", &e));
            else if (e == 0 || xlarun__json_validate(r->s + p, e - p, "reply", NULL) != XLARUN_OK) return XLARUN_OK;
            j.s = r->s + p;
            j.n = e - p;
            if ((why = xlarun__rp_check(r, &j, 0, 1, &o)) != NULL) {
                if (!strict) return XLARUN_OK;
                return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: %s (after <|python_tag|>, at byte %lu)",
                                    r->fmt, why, XLARUN__CAST(unsigned long, p));
            }
            if (pass) XLARUN__TRY(xlarun__rp_emit(r, &j, &o));
            p = e;
            while (p < r->n && (xlarun__rp_ws(r->s[p]) || r->s[p] == ';')) p++;
            if (p >= r->n || r->s[p] != '{') break;
        }
        if (!strict && p < r->n) return XLARUN_OK; /* other text follows: all of it is content */
    }
    *is_calls = 1;
    *end = strict ? p : e;
    return XLARUN_OK;
}

static int xlarun__rp_ident(char c, int first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
}

/* NAME.call(key=VALUE, ...) at i as the arguments object, written to w (counted when w->out is
   NULL); *end gets where the ')' ends. The keys are identifiers, the values JSON. */
static xlarun_status xlarun__rp_py_args(xlarun__rp *r, size_t i, xlarun__cw *w, size_t *end) {
    size_t p = i, k, e;
    int first = 1;
    while (p < r->n && r->s[p] != '(') p++; /* checked by the caller: NAME.call( */
    p++;
    xlarun__cw_put(w, '{');
    for (;;) {
        p = xlarun__rp_skip_ws(r, p);
        if (p < r->n && r->s[p] == ')' && first) break;
        k = p;
        while (p < r->n && xlarun__rp_ident(r->s[p], p == k)) p++;
        if (p == k)
            return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: expected an argument name at byte %lu (in the <|python_tag|> call at byte %lu)",
                                r->fmt, XLARUN__CAST(unsigned long, p), XLARUN__CAST(unsigned long, i));
        e = xlarun__rp_skip_ws(r, p);
        if (e >= r->n || r->s[e] != '=')
            return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: expected '=' at byte %lu (in the <|python_tag|> call at byte %lu)",
                                r->fmt, XLARUN__CAST(unsigned long, e), XLARUN__CAST(unsigned long, i));
        if (!first) xlarun__cw_put(w, ',');
        xlarun__cw_put(w, '"');
        for (; k < p; k++) xlarun__cw_put(w, r->s[k]);
        xlarun__cw_put(w, '"');
        xlarun__cw_put(w, ':');
        p = xlarun__rp_skip_ws(r, e + 1);
        XLARUN__TRY(xlarun__rp_value(r, p, "an argument's value", &e));
        xlarun__cw_json(w, r->s + p, e - p); /* written after it is read: never in place here */
        p = xlarun__rp_skip_ws(r, e);
        first = 0;
        if (p < r->n && r->s[p] == ',') { p++; continue; }
        if (p < r->n && r->s[p] == ')') break;
        return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: expected ',' or ')' at byte %lu (in the <|python_tag|> call at byte %lu)",
                            r->fmt, XLARUN__CAST(unsigned long, p), XLARUN__CAST(unsigned long, i));
    }
    xlarun__cw_put(w, '}');
    *end = p + 1;
    return XLARUN_OK;
}

/* after <|python_tag|> at i: JSON calls, a built-in NAME.call(...), or code; *end: where it ends */
static xlarun_status xlarun__rp_python_tag(xlarun__rp *r, size_t i, size_t *end) {
    size_t p = xlarun__rp_skip_ws(r, i), q, nb;
    char *name, *args;
    xlarun__cw w;
    int is_calls;
    if (p < r->n && r->s[p] == '{') return xlarun__rp_llama_objs(r, p, 1, &is_calls, end);
    q = p; /* NAME . call ( */
    while (q < r->n && xlarun__rp_ident(r->s[q], q == p)) q++;
    nb = q;
    q = xlarun__rp_skip_ws(r, q);
    if (nb > p && q < r->n && r->s[q] == '.') {
        q = xlarun__rp_skip_ws(r, q + 1);
        if (xlarun__rp_at(r, q, "call")) {
            q = xlarun__rp_skip_ws(r, q + 4);
            if (q < r->n && r->s[q] == '(') {
                w.out = NULL;
                w.n = 0;
                XLARUN__TRY(xlarun__rp_py_args(r, p, &w, end));
                if (!(name = xlarun__rp_take(r, nb - p + 1)) || !(args = xlarun__rp_take(r, w.n + 1)))
                    return xlarun__rp_oom(r);
                memcpy(name, r->s + p, nb - p);
                name[nb - p] = 0;
                w.out = args;
                w.n = 0;
                XLARUN__TRY(xlarun__rp_py_args(r, p, &w, end));
                args[w.n] = 0;
                return xlarun__rp_add(r, name, args, NULL);
            }
        }
    }
    /* raw code to the end of the reply: the code interpreter's form, as {"code": CODE} */
    q = r->n;
    while (q > p && xlarun__rp_ws(r->s[q - 1])) q--;
    if (q == p)
        return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: <|python_tag|> at byte %lu is followed by nothing",
                            r->fmt, XLARUN__CAST(unsigned long, i - 14));
    w.out = NULL;
    w.n = 0;
    for (nb = p; nb < q;) { /* counted as written below */
        size_t l = xlarun__utf8_len(XLARUN__PUN(const unsigned char *, r->s + nb), q - nb);
        if (!l)
            return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: invalid UTF-8 at byte %lu in the code after <|python_tag|>",
                                r->fmt, XLARUN__CAST(unsigned long, nb));
        if (l == 1) xlarun__cw_cp(&w, XLARUN__CAST(unsigned char, r->s[nb]));
        else w.n += l;
        nb += l;
    }
    if (!(name = xlarun__rp_take(r, 7)) || !(args = xlarun__rp_take(r, w.n + 12))) return xlarun__rp_oom(r);
    memcpy(name, "python", 7);
    memcpy(args, "{\"code\":\"", 9);
    w.out = args + 9;
    w.n = 0;
    for (nb = p; nb < q; nb++) {
        unsigned char c = XLARUN__CAST(unsigned char, r->s[nb]);
        if (c < 0x80) xlarun__cw_cp(&w, c);
        else xlarun__cw_put(&w, XLARUN__CAST(char, c));
    }
    memcpy(args + 9 + w.n, "\"}", 3);
    *end = r->n;
    return xlarun__rp_add(r, name, args, NULL);
}

/* ---- Mistral's [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{..} ---------------------------------------- */

/* s[a, b) trimmed into a new call string; NULL (with an error) when it is empty or has a control
   character */
static xlarun_status xlarun__rp_raw(xlarun__rp *r, size_t a, size_t b, const char *what, char **out) {
    size_t k, at = a;
    while (a < b && xlarun__rp_ws(r->s[a])) a++;
    while (b > a && xlarun__rp_ws(r->s[b - 1])) b--;
    for (k = a; k < b; k++)
        if (XLARUN__CAST(unsigned char, r->s[k]) < 0x20)
            return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: the %s at byte %lu holds a control character",
                                r->fmt, what, XLARUN__CAST(unsigned long, at));
    if (a == b)
        return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: the %s at byte %lu is empty", r->fmt, what,
                            XLARUN__CAST(unsigned long, at));
    if (!(*out = xlarun__rp_take(r, b - a + 1))) return xlarun__rp_oom(r);
    memcpy(*out, r->s + a, b - a);
    (*out)[b - a] = 0;
    return XLARUN_OK;
}

/* the arguments object at i, compacted into a new call string */
static xlarun_status xlarun__rp_args_obj(xlarun__rp *r, size_t i, const char *what, char **out, size_t *end) {
    xlarun__cw w;
    if (i >= r->n || r->s[i] != '{')
        return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: %s at byte %lu is not a JSON object", r->fmt, what,
                            XLARUN__CAST(unsigned long, i));
    XLARUN__TRY(xlarun__rp_value(r, i, what, end));
    w.out = NULL;
    w.n = 0;
    xlarun__cw_json(&w, r->s + i, *end - i);
    if (!(*out = xlarun__rp_take(r, w.n + 1))) return xlarun__rp_oom(r);
    w.out = *out;
    w.n = 0;
    xlarun__cw_json(&w, r->s + i, *end - i);
    (*out)[w.n] = 0;
    return XLARUN_OK;
}

static xlarun_status xlarun__rp_mistral(xlarun__rp *r, size_t i, size_t *end) {
    size_t p = xlarun__rp_skip_ws(r, i), b;
    char *name, *id = NULL, *args;
    if (p < r->n && (r->s[p] == '[' || r->s[p] == '{') && !xlarun__rp_at(r, p, "[ARGS]") &&
        !xlarun__rp_at(r, p, "[CALL_ID]"))
        return xlarun__rp_json_calls(r, i - 12, p, "[TOOL_CALLS]", end);
    b = p;
    while (b < r->n && r->s[b] != '[' && r->s[b] != '\n') b++;
    if (b >= r->n || r->s[b] != '[')
        return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: [TOOL_CALLS] at byte %lu is followed by neither JSON nor NAME[ARGS]",
                            r->fmt, XLARUN__CAST(unsigned long, i - 12));
    XLARUN__TRY(xlarun__rp_raw(r, p, b, "tool name after [TOOL_CALLS]", &name));
    p = b;
    if (xlarun__rp_at(r, p, "[CALL_ID]")) {
        p += 9;
        b = p;
        while (b < r->n && r->s[b] != '[' && r->s[b] != '\n') b++;
        XLARUN__TRY(xlarun__rp_raw(r, p, b, "call id after [CALL_ID]", &id));
        p = b;
    }
    if (!xlarun__rp_at(r, p, "[ARGS]"))
        return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: expected [ARGS] at byte %lu", r->fmt,
                            XLARUN__CAST(unsigned long, p));
    p = xlarun__rp_skip_ws(r, p + 6);
    XLARUN__TRY(xlarun__rp_args_obj(r, p, "the arguments after [ARGS]", &args, end));
    return xlarun__rp_add(r, name, args, id);
}

/* ---- DeepSeek-R1 ---------------------------------------------------------------------------- */

static xlarun_status xlarun__rp_deepseek(xlarun__rp *r, size_t at, size_t i, size_t *end) {
    static const char *const sep = XLARUN__DS_SEP, *const call_begin = XLARUN__DS_CALL_BEGIN,
                             *const call_end = XLARUN__DS_CALL_END, *const calls_end = XLARUN__DS_CALLS_END;
    size_t p = i, q, b, n0 = r->n_calls;
    char *name, *args;
    for (;;) {
        p = xlarun__rp_skip_ws(r, p);
        if (xlarun__rp_at(r, p, calls_end)) { *end = p + strlen(calls_end); return XLARUN_OK; }
        if (p >= r->n) {
            /* R1's template writes no end marker after a single call: the reply's end closes the
               block once a call is complete */
            if (r->n_calls > n0) { *end = p; return XLARUN_OK; }
            return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: the tool calls at byte %lu end before their first call",
                                r->fmt, XLARUN__CAST(unsigned long, at));
        }
        if (xlarun__rp_at(r, p, call_begin)) p += strlen(call_begin);
        /* TYPE<｜tool▁sep｜>NAME\n (the type is "function") */
        for (q = p; q < r->n && r->s[q] != '\n' && !xlarun__rp_at(r, q, sep); q++) {}
        if (!xlarun__rp_at(r, q, sep))
            return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: expected TYPE%sNAME at byte %lu", r->fmt, sep,
                                XLARUN__CAST(unsigned long, p));
        p = q + strlen(sep);
        for (b = p; b < r->n && r->s[b] != '\n'; b++) {}
        if (b >= r->n)
            return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: the tool name at byte %lu is not followed by a new line",
                                r->fmt, XLARUN__CAST(unsigned long, p));
        XLARUN__TRY(xlarun__rp_raw(r, p, b, "tool name", &name));
        p = xlarun__rp_skip_ws(r, b + 1);
        q = 0; /* a ``` fence, with a language tag */
        if (xlarun__rp_at(r, p, "```")) {
            q = 1;
            p += 3;
            while (p < r->n && r->s[p] != '\n' && r->s[p] != '{') p++;
            p = xlarun__rp_skip_ws(r, p);
        }
        XLARUN__TRY(xlarun__rp_args_obj(r, p, "the tool call's arguments", &args, &p));
        p = xlarun__rp_skip_ws(r, p);
        if (q) {
            if (!xlarun__rp_at(r, p, "```"))
                return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: expected ``` at byte %lu", r->fmt,
                                    XLARUN__CAST(unsigned long, p));
            p = xlarun__rp_skip_ws(r, p + 3);
        }
        if (!xlarun__rp_at(r, p, call_end))
            return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: expected %s at byte %lu", r->fmt, call_end,
                                XLARUN__CAST(unsigned long, p));
        p += strlen(call_end);
        XLARUN__TRY(xlarun__rp_add(r, name, args, NULL));
    }
}

/* ---- the markers of each format --------------------------------------------------------------- */

enum { XLARUN__RM_JSON, XLARUN__RM_HERMES, XLARUN__RM_PHI4, XLARUN__RM_MISTRAL, XLARUN__RM_DEEPSEEK,
       XLARUN__RM_PYTHON, XLARUN__RM_DROP };

typedef struct xlarun__rm { const char *text; int kind; } xlarun__rm;

static const xlarun__rm xlarun__rm_hermes[] = {{"<tool_call>", XLARUN__RM_HERMES}, {NULL, 0}};
static const xlarun__rm xlarun__rm_granite[] = {{"<|tool_call|>", XLARUN__RM_JSON}, {"<tool_call>", XLARUN__RM_HERMES},
                                                {"<response>", XLARUN__RM_DROP}, {"</response>", XLARUN__RM_DROP},
                                                {NULL, 0}};
static const xlarun__rm xlarun__rm_phi4[] = {{"<|tool_call|>", XLARUN__RM_PHI4}, {"functools[", XLARUN__RM_PHI4}, {NULL, 0}};
static const xlarun__rm xlarun__rm_mistral[] = {{"[TOOL_CALLS]", XLARUN__RM_MISTRAL}, {NULL, 0}};
static const xlarun__rm xlarun__rm_llama3[] = {{"<|python_tag|>", XLARUN__RM_PYTHON}, {NULL, 0}};
static const xlarun__rm xlarun__rm_deepseek[] = { /* with the variants R1's distills write */
    {XLARUN__DS_CALLS_BEGIN, XLARUN__RM_DEEPSEEK}, {XLARUN__DS("tool_calls_begin"), XLARUN__RM_DEEPSEEK},
    {XLARUN__DS("tool calls begin"), XLARUN__RM_DEEPSEEK}, {XLARUN__DS("tool\\_calls\\_begin"), XLARUN__RM_DEEPSEEK},
    {XLARUN__DS("tool" XLARUN__LOW8TH "calls"), XLARUN__RM_DEEPSEEK}, {NULL, 0}};

/* the marker block at q (marker m): parses it, *end gets where it ends */
static xlarun_status xlarun__rp_block(xlarun__rp *r, const xlarun__rm *m, size_t q, size_t *end) {
    size_t p = q + strlen(m->text), e;
    switch (m->kind) {
    case XLARUN__RM_DROP: *end = p; return XLARUN_OK;
    case XLARUN__RM_JSON: return xlarun__rp_json_calls(r, q, xlarun__rp_skip_ws(r, p), m->text, end);
    case XLARUN__RM_HERMES:
        XLARUN__TRY(xlarun__rp_json_calls(r, q, xlarun__rp_skip_ws(r, p), m->text, &e));
        e = xlarun__rp_skip_ws(r, e);
        if (!xlarun__rp_at(r, e, "</tool_call>"))
            return xlarun__fail(r->err, XLARUN_ERR_FORMAT, "%s reply: the <tool_call> at byte %lu is not closed by </tool_call> (byte %lu)",
                                r->fmt, XLARUN__CAST(unsigned long, q), XLARUN__CAST(unsigned long, e));
        *end = e + 12;
        return XLARUN_OK;
    case XLARUN__RM_PHI4:
        if (m->text[0] == 'f') p--; /* functools[ : the '[' opens the array */
        XLARUN__TRY(xlarun__rp_json_calls(r, q, xlarun__rp_skip_ws(r, p), m->text, &e));
        p = xlarun__rp_skip_ws(r, e);
        *end = xlarun__rp_at(r, p, "<|/tool_call|>") ? p + 14 : e;
        return XLARUN_OK;
    case XLARUN__RM_MISTRAL: return xlarun__rp_mistral(r, p, end);
    case XLARUN__RM_DEEPSEEK: return xlarun__rp_deepseek(r, q, p, end);
    default: return xlarun__rp_python_tag(r, p, end);
    }
}

/* content and marker blocks from i to the end; each marker's next position is kept until
   passed, so the text is searched once per marker */
static xlarun_status xlarun__rp_markers(xlarun__rp *r, const xlarun__rm *ms, size_t i) {
    size_t next[8], k, q;
    const xlarun__rm *best;
    for (k = 0; ms[k].text; k++) next[k] = xlarun__rp_find(r, i, ms[k].text);
    for (;;) {
        best = NULL;
        q = XLARUN__NONE;
        for (k = 0; ms[k].text; k++) {
            if (next[k] != XLARUN__NONE && next[k] < i) next[k] = xlarun__rp_find(r, i, ms[k].text);
            if (next[k] < q) { q = next[k]; best = &ms[k]; }
        }
        if (!best) return xlarun__rp_text(r, i, r->n);
        XLARUN__TRY(xlarun__rp_text(r, i, q));
        XLARUN__TRY(xlarun__rp_block(r, best, q, &i));
    }
}

XLARUN_API xlarun_status xlarun_reply_parse(xlarun_tool_format format, const char *text, size_t len,
                                            void *mem, size_t bytes, xlarun_reply *out,
                                            xlarun_error *err) {
    xlarun__rp r;
    xlarun_status st = XLARUN_OK;
    const char *nul, *reasoning = NULL;
    const xlarun__rm *ms = NULL;
    size_t need = xlarun_reply_memory(len), i, pad;
    unsigned char *base;
    if (out) memset(out, 0, sizeof *out);
    if (!out || (!text && len))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "reply: %s is NULL", out ? "the text" : "the output");
    if (XLARUN__CAST(unsigned, format) > XLARUN__CAST(unsigned, XLARUN_TOOLS_DEEPSEEK_R1))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "reply: unknown tool format %d", XLARUN__CAST(int, format));
    if (len > XLARUN__REPLY_MAX_LEN)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "reply: %lu bytes is over the limit of %lu",
                            XLARUN__CAST(unsigned long, len), XLARUN__CAST(unsigned long, XLARUN__REPLY_MAX_LEN));
    if (!mem || bytes < need)
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "reply: %lu bytes of reply memory are too few, %lu needed (xlarun_reply_memory gives the size)",
                            XLARUN__CAST(unsigned long, mem ? bytes : 0), XLARUN__CAST(unsigned long, need));
    memset(&r, 0, sizeof r);
    r.s = text ? text : "";
    r.n = len;
    r.fmt = xlarun_tool_format_name(format);
    r.err = err;
    if (len && (nul = XLARUN__CAST(const char *, memchr(text, 0, len))) != NULL)
        return xlarun__fail(err, XLARUN_ERR_FORMAT, "%s reply: a NUL byte at byte %lu", r.fmt,
                            XLARUN__CAST(unsigned long, nul - text));
    base = XLARUN__CAST(unsigned char *, mem);
    pad = (sizeof(void *) - XLARUN__CAST(size_t, XLARUN__PUN(uintptr_t, base) % sizeof(void *))) % sizeof(void *);
    r.calls = XLARUN__CAST(xlarun_tool_call *, XLARUN__CAST(void *, base + pad));
    r.cap_calls = len / 12 + 1;
    r.lo = XLARUN__CAST(char *, XLARUN__CAST(void *, base + pad + r.cap_calls * sizeof(xlarun_tool_call)));
    r.hi = XLARUN__CAST(char *, mem) + bytes;
    if (format == XLARUN_TOOLS_LLAMA3) { /* the reply ends at its end-of-message token */
        size_t a = xlarun__rp_find(&r, 0, "<|eom_id|>"), b = xlarun__rp_find(&r, 0, "<|eot_id|>");
        if (b < a) a = b;
        if (a != XLARUN__NONE) r.n = a;
    }
    st = xlarun__rp_reasoning(&r, &reasoning, &i);
    if (st != XLARUN_OK) goto done;
    r.content = r.lo;
    switch (format) {
    case XLARUN_TOOLS_NONE: break;
    case XLARUN_TOOLS_LLAMA3:
        if (xlarun__rp_find(&r, i, "<|python_tag|>") == XLARUN__NONE) {
            int is_calls = 0;
            size_t p = xlarun__rp_skip_ws(&r, i), e;
            size_t n0 = r.n;
            while (r.n > p && xlarun__rp_ws(r.s[r.n - 1])) r.n--;
            if (p < r.n && r.s[p] == '{') st = xlarun__rp_llama_objs(&r, p, 0, &is_calls, &e);
            r.n = n0;
            if (st != XLARUN_OK) goto done;
            if (is_calls) i = r.n;
        } else
            ms = xlarun__rm_llama3;
        break;
    case XLARUN_TOOLS_HERMES: ms = xlarun__rm_hermes; break;
    case XLARUN_TOOLS_MISTRAL: ms = xlarun__rm_mistral; break;
    case XLARUN_TOOLS_GRANITE: ms = xlarun__rm_granite; break;
    case XLARUN_TOOLS_PHI4: ms = xlarun__rm_phi4; break;
    case XLARUN_TOOLS_DEEPSEEK_R1: ms = xlarun__rm_deepseek; break;
    }
    st = ms ? xlarun__rp_markers(&r, ms, i) : xlarun__rp_text(&r, i, r.n);
    if (st != XLARUN_OK) goto done;
    while (r.lo > r.content && xlarun__rp_ws(r.lo[-1])) r.lo--;
    if (r.lo >= r.hi) { st = xlarun__rp_oom(&r); goto done; }
    *r.lo = 0;
    out->content = r.content;
    out->reasoning = reasoning;
    out->calls = r.n_calls ? r.calls : NULL;
    out->n_calls = r.n_calls;
    xlarun__ok(err);
    return XLARUN_OK;
done:
    memset(out, 0, sizeof *out);
    return st;
}

XLARUN_API xlarun_tool_format xlarun_tool_format_guess(int (*has_token)(void *user, const char *text),
                                                       void *user) {
    if (!has_token) return XLARUN_TOOLS_NONE;
    if (has_token(user, XLARUN__DS_CALLS_BEGIN)) return XLARUN_TOOLS_DEEPSEEK_R1;
    if (has_token(user, "[TOOL_CALLS]")) return XLARUN_TOOLS_MISTRAL;
    if (has_token(user, "<|tool_call|>"))
        return has_token(user, "<|/tool_call|>") ? XLARUN_TOOLS_PHI4 : XLARUN_TOOLS_GRANITE;
    if (has_token(user, "<tool_call>")) return XLARUN_TOOLS_HERMES;
    if (has_token(user, "<|python_tag|>")) return XLARUN_TOOLS_LLAMA3;
    return XLARUN_TOOLS_NONE;
}

/* ---- grammars: GBNF compiled to byte-level rules -------------------------------------------- */

/* A grammar compiles to rules over bytes. A rule is a list of alternatives; an alternative is a
   sequence of elements that ends in XLARUN__G_END; an element is a byte class (a 256-bit set,
   by index) or a reference to a rule (XLARUN__G_REF | id). A class of code points becomes a rule
   whose alternatives are the UTF-8 byte sequences of its ranges, a string its bytes, so the
   matcher sees bytes only and a token may end or start inside a character. Repetitions become
   right-recursive rules (x* is r ::= x r | ""); as the matcher never pushes a return to the end
   of a rule, its stacks do not grow with them. Alternatives that can never complete (they need
   a rule that never does, or an empty class) are dropped, so every parse stack the matcher keeps
   can still reach the end of a sentence: a prefix it accepts is a prefix of a sentence. */
#define XLARUN__G_END 0xFFFFFFFFu
#define XLARUN__G_REF 0x80000000u
#define XLARUN__G_MAX_ELEMS (1u << 22)  /* elements of the compiled grammar */
#define XLARUN__G_MAX_REPEAT 4096u       /* m and n of {m,n} */
#define XLARUN__G_MAX_NEST 64            /* groups inside groups */
#define XLARUN__G_MAX_RANGES 512         /* ranges in one character class */
#define XLARUN__GRAMMAR_MAGIC 0x58475241u

struct xlarun_grammar {
    uint32_t magic;
    uint32_t n_rules, n_alts, n_elems, n_classes, root;
    uint32_t *rule_first, *rule_nalt;   /* rule r: alternatives rule_first[r] .. + rule_nalt[r] */
    uint32_t *alt_start;                /* an alternative's first element */
    uint32_t *elems;
    uint32_t *classes;                  /* 8 words per byte class */
    void *own;                          /* xlarun_grammar_compile's block */
};

/* the parser: two passes over the text with the same code. The first counts (arrays NULL) and
   records the defined names; the second fills arrays of the counted sizes and resolves names. */
typedef struct xlarun__gp {
    const char *s;
    size_t n, i;
    int fill;
    xlarun_error *err;
    uint32_t n_defs, cap_defs, cur_def;
    size_t *def_at;                     /* offset of each defined rule's name */
    uint32_t *def_len;
    uint32_t n_rules, n_alts, n_elems, n_classes, any_rule, nest;
    uint32_t *rule_first, *rule_nalt, *rule_owner, *alt_start, *elems, *classes;
    uint32_t *stk;                      /* sequences being parsed: elements, G_END after alternatives */
    size_t sp, cap_stk;                 /* the text's length + room for one class's UTF-8 forms */
} xlarun__gp;

/* line and column (in characters) of a byte offset, for messages */
static void xlarun__g_where(const char *s, size_t at, unsigned long *line, unsigned long *col) {
    size_t i;
    *line = 1; *col = 1;
    for (i = 0; i < at; i++) {
        if (s[i] == '\n') { (*line)++; *col = 1; }
        else if ((XLARUN__CAST(unsigned char, s[i]) & 0xC0) != 0x80) (*col)++;
    }
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static xlarun_status xlarun__g_error(xlarun__gp *p, size_t at, const char *fmt, ...) {
    char msg[700];
    unsigned long line, col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    xlarun__g_where(p->s, at < p->n ? at : p->n, &line, &col);
    return xlarun__fail(p->err, XLARUN_ERR_GRAMMAR, "grammar line %lu column %lu: %s", line, col, msg);
}

static int xlarun__g_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

/* spaces, tabs and comments; newlines too where newline_ok */
static void xlarun__g_space(xlarun__gp *p, int newline_ok) {
    while (p->i < p->n) {
        char c = p->s[p->i];
        if (c == ' ' || c == '\t') p->i++;
        else if (c == '#') { while (p->i < p->n && p->s[p->i] != '\n' && p->s[p->i] != '\r') p->i++; }
        else if (newline_ok && (c == '\n' || c == '\r')) p->i++;
        else break;
    }
}

static xlarun_status xlarun__g_push(xlarun__gp *p, uint32_t e) {
    if (p->sp >= p->cap_stk) return xlarun__g_error(p, p->i, "the grammar is too large (more than %lu elements pending)", XLARUN__CAST(unsigned long, p->cap_stk));
    p->stk[p->sp++] = e;
    return XLARUN_OK;
}

/* the index of a byte class (deduplicated when filling) */
static uint32_t xlarun__g_class(xlarun__gp *p, const uint32_t bits[8]) {
    uint32_t c;
    if (p->classes) {
        for (c = 0; c < p->n_classes; c++)
            if (!memcmp(p->classes + 8 * c, bits, 8 * sizeof(uint32_t))) return c;
        memcpy(p->classes + 8 * p->n_classes, bits, 8 * sizeof(uint32_t));
    }
    return p->n_classes++;
}

static xlarun_status xlarun__g_byte_range(xlarun__gp *p, unsigned lo, unsigned hi) {
    uint32_t bits[8];
    unsigned b;
    memset(bits, 0, sizeof bits);
    for (b = lo; b <= hi; b++) bits[b >> 5] |= 1u << (b & 31);
    return xlarun__g_push(p, xlarun__g_class(p, bits));
}

/* a new rule from alternatives already in elems order: body holds elements with G_END after each
   alternative; the rule gets the next id unless id is given (a defined rule) */
static xlarun_status xlarun__g_rule(xlarun__gp *p, uint32_t id, const uint32_t *body, size_t n, size_t at) {
    size_t k;
    if (p->n_elems + n > XLARUN__G_MAX_ELEMS) return xlarun__g_error(p, at, "the grammar is too large (more than %lu elements)", XLARUN__CAST(unsigned long, XLARUN__G_MAX_ELEMS));
    if (p->rule_first) { p->rule_first[id] = p->n_alts; p->rule_nalt[id] = 0; p->rule_owner[id] = p->cur_def; }
    for (k = 0; k < n; k++) {
        if (k == 0 || body[k - 1] == XLARUN__G_END) {
            if (p->alt_start) { p->alt_start[p->n_alts] = p->n_elems; p->rule_nalt[id]++; }
            p->n_alts++;
        }
        if (p->elems) p->elems[p->n_elems] = body[k];
        p->n_elems++;
    }
    return XLARUN_OK;
}

/* a generated rule with up to two short alternatives: a (na elements) | b (nb elements) */
static xlarun_status xlarun__g_rule2(xlarun__gp *p, const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                                     int two, uint32_t *id) {
    uint32_t body[8];
    size_t n = 0, k;
    for (k = 0; k < na; k++) body[n++] = a[k];
    body[n++] = XLARUN__G_END;
    if (two) {
        for (k = 0; k < nb; k++) body[n++] = b[k];
        body[n++] = XLARUN__G_END;
    }
    *id = p->n_rules++;
    return xlarun__g_rule(p, *id, body, n, p->i);
}

/* UTF-8 of the code points lo..hi (one encoded length, already split) as byte ranges */
static size_t xlarun__g_enc(uint32_t c, unsigned char *o) {
    if (c < 0x80) { o[0] = XLARUN__CAST(unsigned char, c); return 1; }
    if (c < 0x800) { o[0] = XLARUN__CAST(unsigned char, 0xC0 | (c >> 6)); o[1] = XLARUN__CAST(unsigned char, 0x80 | (c & 63)); return 2; }
    if (c < 0x10000) {
        o[0] = XLARUN__CAST(unsigned char, 0xE0 | (c >> 12)); o[1] = XLARUN__CAST(unsigned char, 0x80 | ((c >> 6) & 63));
        o[2] = XLARUN__CAST(unsigned char, 0x80 | (c & 63)); return 3;
    }
    o[0] = XLARUN__CAST(unsigned char, 0xF0 | (c >> 18)); o[1] = XLARUN__CAST(unsigned char, 0x80 | ((c >> 12) & 63));
    o[2] = XLARUN__CAST(unsigned char, 0x80 | ((c >> 6) & 63)); o[3] = XLARUN__CAST(unsigned char, 0x80 | (c & 63));
    return 4;
}

/* splits lo..hi until each piece is a product of byte ranges, pushing one alternative each */
static xlarun_status xlarun__g_utf8_split(xlarun__gp *p, uint32_t lo, uint32_t hi, int depth) {
    static const uint32_t lim[3] = {0x7F, 0x7FF, 0xFFFF};
    unsigned char a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    size_t n, k, i;
    for (k = 0; k < 3; k++)
        if (lo <= lim[k] && hi > lim[k]) {
            XLARUN__TRY(xlarun__g_utf8_split(p, lo, lim[k], depth + 1));
            return xlarun__g_utf8_split(p, lim[k] + 1, hi, depth + 1);
        }
    n = xlarun__g_enc(lo, a);
    for (i = 1; i < n; i++) {
        uint32_t m = (1u << (6 * i)) - 1;
        if ((lo & ~m) != (hi & ~m)) {
            if ((lo & m) != 0) {
                XLARUN__TRY(xlarun__g_utf8_split(p, lo, lo | m, depth + 1));
                return xlarun__g_utf8_split(p, (lo | m) + 1, hi, depth + 1);
            }
            if ((hi & m) != m) {
                XLARUN__TRY(xlarun__g_utf8_split(p, lo, (hi & ~m) - 1, depth + 1));
                return xlarun__g_utf8_split(p, hi & ~m, hi, depth + 1);
            }
        }
    }
    xlarun__g_enc(hi, b);
    for (i = 0; i < n; i++) XLARUN__TRY(xlarun__g_byte_range(p, a[i], b[i]));
    return xlarun__g_push(p, XLARUN__G_END);
}

/* a class of code points (sorted, merged, no surrogates) as one element: a byte class when all
   are ASCII, else a reference to a new rule of UTF-8 sequences */
static xlarun_status xlarun__g_cps(xlarun__gp *p, const uint32_t *r, size_t nr) {
    size_t base = p->sp, k;
    uint32_t id;
    if (nr == 0 || r[2 * nr - 1] < 0x80) {
        uint32_t bits[8];
        uint32_t c;
        memset(bits, 0, sizeof bits);
        for (k = 0; k < nr; k++)
            for (c = r[2 * k]; c <= r[2 * k + 1]; c++) bits[c >> 5] |= 1u << (c & 31);
        return xlarun__g_push(p, xlarun__g_class(p, bits));
    }
    for (k = 0; k < nr; k++) XLARUN__TRY(xlarun__g_utf8_split(p, r[2 * k], r[2 * k + 1], 0));
    id = p->n_rules++;
    XLARUN__TRY(xlarun__g_rule(p, id, p->stk + base, p->sp - base, p->i));
    p->sp = base;
    return xlarun__g_push(p, XLARUN__G_REF | id);
}

/* one code point of a string or class, escapes decoded; 0 at the end of the text or on an error
   (p->err set) */
static int xlarun__g_char(xlarun__gp *p, uint32_t *cp) {
    const unsigned char *u = XLARUN__PUN(const unsigned char *, p->s);
    size_t at = p->i, l;
    if (p->i >= p->n) { xlarun__g_error(p, at, "the text ends inside a string or class"); return 0; }
    if (u[p->i] == '\\') {
        char c;
        unsigned digits = 0, k;
        if (p->i + 1 >= p->n) { xlarun__g_error(p, at, "the text ends after a backslash"); return 0; }
        c = p->s[p->i + 1];
        p->i += 2;
        switch (c) {
        case 'n': *cp = '\n'; return 1;
        case 'r': *cp = '\r'; return 1;
        case 't': *cp = '\t'; return 1;
        case '\\': case '"': case '\'': case '[': case ']': case '-': case '^': *cp = XLARUN__CAST(uint32_t, c); return 1;
        case 'x': digits = 2; break;
        case 'u': digits = 4; break;
        case 'U': digits = 8; break;
        default:
            xlarun__g_error(p, at, "unknown escape \\%c (known: \\n \\r \\t \\\\ \\\" \\' \\[ \\] \\- \\^ \\xHH \\uHHHH \\UHHHHHHHH)", c);
            return 0;
        }
        *cp = 0;
        for (k = 0; k < digits; k++) {
            char h = p->i < p->n ? p->s[p->i] : 0;
            unsigned v;
            if (h >= '0' && h <= '9') v = XLARUN__CAST(unsigned, h - '0');
            else if (h >= 'a' && h <= 'f') v = XLARUN__CAST(unsigned, h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') v = XLARUN__CAST(unsigned, h - 'A' + 10);
            else { xlarun__g_error(p, at, "\\%c needs %u hexadecimal digits", c, digits); return 0; }
            *cp = *cp * 16 + v;
            p->i++;
        }
        if (*cp > 0x10FFFF) { xlarun__g_error(p, at, "\\%c escape U+%lX is past U+10FFFF", c, XLARUN__CAST(unsigned long, *cp)); return 0; }
        return 1;
    }
    l = xlarun__utf8_len(u + p->i, p->n - p->i);
    if (!l) { xlarun__g_error(p, at, "invalid UTF-8"); return 0; }
    *cp = xlarun__cp_at(u, p->i, &l);
    p->i += l;
    return 1;
}

/* "..." : its bytes, one element each */
static xlarun_status xlarun__g_string(xlarun__gp *p) {
    size_t at = p->i;
    p->i++;
    while (p->i < p->n && p->s[p->i] != '"') {
        uint32_t cp;
        unsigned char b[4];
        size_t k, l;
        if (p->s[p->i] == '\n' || p->s[p->i] == '\r') return xlarun__g_error(p, at, "a string is not closed on its line");
        if (!xlarun__g_char(p, &cp)) return XLARUN_ERR_GRAMMAR;
        if (cp >= 0xD800 && cp <= 0xDFFF) return xlarun__g_error(p, at, "a string holds the surrogate U+%lX, which is not a character", XLARUN__CAST(unsigned long, cp));
        l = xlarun__g_enc(cp, b);
        for (k = 0; k < l; k++) XLARUN__TRY(xlarun__g_byte_range(p, b[k], b[k]));
    }
    if (p->i >= p->n) return xlarun__g_error(p, at, "a string is not closed");
    p->i++;
    return XLARUN_OK;
}

static int xlarun__g_cmp_range(const void *a, const void *b) {
    const uint32_t *x = XLARUN__CAST(const uint32_t *, a), *y = XLARUN__CAST(const uint32_t *, b);
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* sorted, merged, surrogates removed, negated when asked; returns the count of ranges */
static size_t xlarun__g_ranges(uint32_t *r, size_t nr, int neg) {
    size_t k, m = 0;
    uint32_t t[2 * (XLARUN__G_MAX_RANGES + 4)];
    memset(t, 0, sizeof t);
    qsort(r, nr, 2 * sizeof(uint32_t), xlarun__g_cmp_range);
    for (k = 0; k < nr; k++) {  /* merge */
        if (m && r[2 * k] <= r[2 * m - 1] + 1) { if (r[2 * k + 1] > r[2 * m - 1]) r[2 * m - 1] = r[2 * k + 1]; }
        else { r[2 * m] = r[2 * k]; r[2 * m + 1] = r[2 * k + 1]; m++; }
    }
    if (neg) {
        uint32_t next = 0;
        size_t n = 0;
        for (k = 0; k < m; k++) {
            if (r[2 * k] > next) { t[2 * n] = next; t[2 * n + 1] = r[2 * k] - 1; n++; }
            next = r[2 * k + 1] + 1;
        }
        if (next <= 0x10FFFF) { t[2 * n] = next; t[2 * n + 1] = 0x10FFFF; n++; }
        memcpy(r, t, 2 * n * sizeof(uint32_t));
        m = n;
    }
    for (k = 0, nr = m, m = 0; k < nr; k++) {  /* cut out U+D800..U+DFFF */
        uint32_t lo = r[2 * k], hi = r[2 * k + 1];
        if (hi < 0xD800 || lo > 0xDFFF) { t[2 * m] = lo; t[2 * m + 1] = hi; m++; continue; }
        if (lo < 0xD800) { t[2 * m] = lo; t[2 * m + 1] = 0xD7FF; m++; }
        if (hi > 0xDFFF) { t[2 * m] = 0xE000; t[2 * m + 1] = hi; m++; }
    }
    memcpy(r, t, 2 * m * sizeof(uint32_t));
    return m;
}

/* [...] or [^...] */
static xlarun_status xlarun__g_class_expr(xlarun__gp *p) {
    uint32_t r[2 * (XLARUN__G_MAX_RANGES + 4)];
    size_t nr = 0, at = p->i;
    int neg = 0;
    p->i++;
    if (p->i < p->n && p->s[p->i] == '^') { neg = 1; p->i++; }
    while (p->i < p->n && p->s[p->i] != ']') {
        uint32_t lo, hi;
        if (p->s[p->i] == '\n' || p->s[p->i] == '\r') return xlarun__g_error(p, at, "a character class is not closed on its line");
        if (!xlarun__g_char(p, &lo)) return XLARUN_ERR_GRAMMAR;
        hi = lo;
        if (p->i + 1 < p->n && p->s[p->i] == '-' && p->s[p->i + 1] != ']') {
            size_t rat = p->i;
            p->i++;
            if (!xlarun__g_char(p, &hi)) return XLARUN_ERR_GRAMMAR;
            if (hi < lo) return xlarun__g_error(p, rat, "the range U+%04lX-U+%04lX runs backwards", XLARUN__CAST(unsigned long, lo), XLARUN__CAST(unsigned long, hi));
        }
        if (nr >= XLARUN__G_MAX_RANGES) return xlarun__g_error(p, at, "a character class has more than %d ranges", XLARUN__G_MAX_RANGES);
        r[2 * nr] = lo; r[2 * nr + 1] = hi; nr++;
    }
    if (p->i >= p->n) return xlarun__g_error(p, at, "a character class is not closed");
    p->i++;
    nr = xlarun__g_ranges(r, nr, neg);
    return xlarun__g_cps(p, r, nr);
}

/* wraps the last symbol (stk[from..sp)) into one element: itself, or a rule of it */
static xlarun_status xlarun__g_wrap(xlarun__gp *p, size_t from, uint32_t *x) {
    uint32_t id;
    if (p->sp - from == 1) { *x = p->stk[from]; p->sp = from; return XLARUN_OK; }
    XLARUN__TRY(xlarun__g_push(p, XLARUN__G_END));
    id = p->n_rules++;
    XLARUN__TRY(xlarun__g_rule(p, id, p->stk + from, p->sp - from, p->i));
    p->sp = from;
    *x = XLARUN__G_REF | id;
    return XLARUN_OK;
}

/* x repeated min..max times (max UINT32_MAX: no bound) in place of the last symbol */
static xlarun_status xlarun__g_repeat(xlarun__gp *p, size_t from, uint32_t min, uint32_t max) {
    uint32_t x, id, k, self[2], q = 0;
    int have_q = 0;
    XLARUN__TRY(xlarun__g_wrap(p, from, &x));
    if (min > 1) {  /* x x ... x as one rule */
        if (p->n_elems + min + 1 > XLARUN__G_MAX_ELEMS) return xlarun__g_error(p, p->i, "the grammar is too large (more than %lu elements)", XLARUN__CAST(unsigned long, XLARUN__G_MAX_ELEMS));
        id = p->n_rules++;
        if (p->rule_first) { p->rule_first[id] = p->n_alts; p->rule_nalt[id] = 1; p->rule_owner[id] = p->cur_def; p->alt_start[p->n_alts] = p->n_elems; }
        p->n_alts++;
        for (k = 0; k <= min; k++) {
            if (p->elems) p->elems[p->n_elems] = k < min ? x : XLARUN__G_END;
            p->n_elems++;
        }
        XLARUN__TRY(xlarun__g_push(p, XLARUN__G_REF | id));
    } else if (min == 1) XLARUN__TRY(xlarun__g_push(p, x));
    if (max == UINT32_MAX) {  /* r ::= x r | "" */
        id = p->n_rules;
        self[0] = x; self[1] = XLARUN__G_REF | id;
        XLARUN__TRY(xlarun__g_rule2(p, self, 2, NULL, 0, 1, &id));
        return xlarun__g_push(p, XLARUN__G_REF | id);
    }
    for (k = min; k < max; k++) {  /* q1 ::= x | "" ; qk ::= x q(k-1) | "" */
        self[0] = x; self[1] = XLARUN__G_REF | q;
        XLARUN__TRY(xlarun__g_rule2(p, self, have_q ? 2u : 1u, NULL, 0, 1, &q));
        have_q = 1;
    }
    if (have_q) XLARUN__TRY(xlarun__g_push(p, XLARUN__G_REF | q));
    return XLARUN_OK;
}

static int xlarun__g_number(xlarun__gp *p, uint32_t *v) {
    size_t at = p->i;
    uint64_t x = 0;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
        x = x * 10 + XLARUN__CAST(uint64_t, p->s[p->i] - '0');
        if (x > XLARUN__G_MAX_REPEAT) { xlarun__g_error(p, at, "a repetition count is above %u", XLARUN__G_MAX_REPEAT); return -1; }
        p->i++;
    }
    *v = XLARUN__CAST(uint32_t, x);
    return p->i > at;
}

/* the index of a defined rule by name, or -1 */
static long xlarun__g_find(const xlarun__gp *p, const char *name, size_t len) {
    uint32_t d;
    for (d = 0; d < p->n_defs; d++)
        if (p->def_len[d] == len && !memcmp(p->s + p->def_at[d], name, len)) return XLARUN__CAST(long, d);
    return -1;
}

static xlarun_status xlarun__g_alternatives(xlarun__gp *p, int nested);

static xlarun_status xlarun__g_sequence(xlarun__gp *p, int nested) {
    size_t last = SIZE_MAX;   /* where the last symbol starts on the stack */
    for (;;) {
        size_t at = p->i;
        char c = p->i < p->n ? p->s[p->i] : 0;
        if (c == '"') { last = p->sp; XLARUN__TRY(xlarun__g_string(p)); }
        else if (c == '[') { last = p->sp; XLARUN__TRY(xlarun__g_class_expr(p)); }
        else if (c == '.') {
            last = p->sp;
            p->i++;
            if (!p->any_rule) {  /* any character: one rule for the whole grammar */
                uint32_t r[4] = {0, 0x10FFFF, 0, 0}; /* room for the cut around the surrogates */
                size_t nr = xlarun__g_ranges(r, 1, 0);
                uint32_t e;
                XLARUN__TRY(xlarun__g_cps(p, r, nr));
                e = p->stk[--p->sp];
                p->any_rule = e;
            }
            XLARUN__TRY(xlarun__g_push(p, p->any_rule));
        } else if (xlarun__g_word(c)) {
            size_t s = p->i;
            long d;
            while (p->i < p->n && xlarun__g_word(p->s[p->i])) p->i++;
            last = p->sp;
            d = p->fill ? xlarun__g_find(p, p->s + s, p->i - s) : 0;
            if (d < 0) return xlarun__g_error(p, s, "rule '%.*s' is not defined", XLARUN__CAST(int, p->i - s), p->s + s);
            XLARUN__TRY(xlarun__g_push(p, XLARUN__G_REF | XLARUN__CAST(uint32_t, d)));
        } else if (c == '(') {
            size_t base = p->sp;
            uint32_t id;
            if (++p->nest > XLARUN__G_MAX_NEST) return xlarun__g_error(p, at, "groups are nested more than %d deep", XLARUN__G_MAX_NEST);
            p->i++;
            xlarun__g_space(p, 1);
            XLARUN__TRY(xlarun__g_alternatives(p, 1));
            if (p->i >= p->n || p->s[p->i] != ')') {
                unsigned long line, col;
                xlarun__g_where(p->s, at, &line, &col);
                return xlarun__g_error(p, p->i, "expected ')' to close the group opened on line %lu column %lu", line, col);
            }
            p->i++;
            p->nest--;
            id = p->n_rules++;
            XLARUN__TRY(xlarun__g_rule(p, id, p->stk + base, p->sp - base, at));
            p->sp = base;
            last = p->sp;
            XLARUN__TRY(xlarun__g_push(p, XLARUN__G_REF | id));
        } else if (c == '*' || c == '+' || c == '?') {
            if (last == SIZE_MAX) return xlarun__g_error(p, at, "'%c' follows nothing", c);
            p->i++;
            XLARUN__TRY(xlarun__g_repeat(p, last, c == '+' ? 1u : 0u, c == '?' ? 1u : UINT32_MAX));
            last = SIZE_MAX;
        } else if (c == '{') {
            uint32_t lo = 0, hi = 0;
            int r;
            if (last == SIZE_MAX) return xlarun__g_error(p, at, "'{' follows nothing");
            p->i++;
            xlarun__g_space(p, 0);
            if ((r = xlarun__g_number(p, &lo)) < 0) return XLARUN_ERR_GRAMMAR;
            xlarun__g_space(p, 0);
            if (p->i < p->n && p->s[p->i] == ',') {
                int r2;
                p->i++;
                xlarun__g_space(p, 0);
                if ((r2 = xlarun__g_number(p, &hi)) < 0) return XLARUN_ERR_GRAMMAR;
                if (!r2) hi = UINT32_MAX;
                if (!r && !r2) return xlarun__g_error(p, at, "{,} names no count");
            } else {
                if (!r) return xlarun__g_error(p, at, "expected a count after '{'");
                hi = lo;
            }
            xlarun__g_space(p, 0);
            if (p->i >= p->n || p->s[p->i] != '}') return xlarun__g_error(p, p->i, "expected '}'");
            p->i++;
            if (hi < lo) return xlarun__g_error(p, at, "{%lu,%lu}: the upper bound is below the lower", XLARUN__CAST(unsigned long, lo), XLARUN__CAST(unsigned long, hi));
            XLARUN__TRY(xlarun__g_repeat(p, last, lo, hi));
            last = SIZE_MAX;
        } else return XLARUN_OK;
        xlarun__g_space(p, nested);
    }
}

static xlarun_status xlarun__g_alternatives(xlarun__gp *p, int nested) {
    XLARUN__TRY(xlarun__g_sequence(p, nested));
    XLARUN__TRY(xlarun__g_push(p, XLARUN__G_END));
    while (p->i < p->n && p->s[p->i] == '|') {
        p->i++;
        xlarun__g_space(p, 1);
        XLARUN__TRY(xlarun__g_sequence(p, nested));
        XLARUN__TRY(xlarun__g_push(p, XLARUN__G_END));
    }
    return XLARUN_OK;
}

/* the whole text: rule after rule */
static xlarun_status xlarun__g_parse(xlarun__gp *p) {
    xlarun__g_space(p, 1);
    while (p->i < p->n) {
        size_t s = p->i, len;
        long d;
        while (p->i < p->n && xlarun__g_word(p->s[p->i])) p->i++;
        len = p->i - s;
        if (!len) return xlarun__g_error(p, s, "expected a rule name");
        xlarun__g_space(p, 0);
        if (p->i + 3 > p->n || memcmp(p->s + p->i, "::=", 3)) return xlarun__g_error(p, p->i, "expected '::=' after the rule name '%.*s'", XLARUN__CAST(int, len), p->s + s);
        p->i += 3;
        if (!p->fill) {
            d = xlarun__g_find(p, p->s + s, len);
            if (d >= 0) {
                unsigned long line, col;
                xlarun__g_where(p->s, p->def_at[d], &line, &col);
                return xlarun__g_error(p, s, "rule '%.*s' is defined twice (first on line %lu)", XLARUN__CAST(int, len), p->s + s, line);
            }
            if (p->n_defs >= p->cap_defs) return xlarun__g_error(p, s, "too many rules");
            p->def_at[p->n_defs] = s;
            p->def_len[p->n_defs] = XLARUN__CAST(uint32_t, len);
            d = XLARUN__CAST(long, p->n_defs++);
        } else d = xlarun__g_find(p, p->s + s, len);
        p->cur_def = XLARUN__CAST(uint32_t, d);
        xlarun__g_space(p, 1);
        p->sp = 0;
        XLARUN__TRY(xlarun__g_alternatives(p, 0));
        if (p->i < p->n && p->s[p->i] != '\n' && p->s[p->i] != '\r')
            return xlarun__g_error(p, p->i, p->s[p->i] == ')' ? "')' closes no group" : "expected the end of the line");
        XLARUN__TRY(xlarun__g_rule(p, XLARUN__CAST(uint32_t, d), p->stk, p->sp, s));
        xlarun__g_space(p, 1);
    }
    return XLARUN_OK;
}

/* the name of a rule for messages: a defined rule's, or the one whose text made a generated rule */
static void xlarun__g_name(const xlarun__gp *p, uint32_t r, char *out, size_t cap) {
    uint32_t d = r < p->n_defs ? r : p->rule_owner[r];
    snprintf(out, cap, "%s'%.*s'", r < p->n_defs ? "" : "a group or repetition in ", XLARUN__CAST(int, p->def_len[d]), p->s + p->def_at[d]);
}

static int xlarun__g_bits_empty(const uint32_t *c) {
    int k;
    for (k = 0; k < 8; k++) if (c[k]) return 0;
    return 1;
}

/* after the fill pass: refuse an empty language and left recursion (in any alternative, also one
   that can never complete), then drop the alternatives that can never complete. mark: n_rules bytes of scratch; work: 3 * n_rules words. */
static xlarun_status xlarun__g_check(xlarun__gp *p, uint32_t root, unsigned char *mark, uint32_t *work) {
    uint32_t r, a, k, e, changed = 1;
    const uint32_t G = XLARUN__G_REF;
    /* productive: some alternative of only non-empty classes and productive rules (bit 1) */
    memset(mark, 0, p->n_rules);
    while (changed) {
        changed = 0;
        for (r = 0; r < p->n_rules; r++) {
            if (mark[r] & 1) continue;
            for (a = 0; a < p->rule_nalt[r]; a++) {
                int ok = 1;
                for (k = p->alt_start[p->rule_first[r] + a]; (e = p->elems[k]) != XLARUN__G_END; k++)
                    if ((e & G) ? !(mark[e & ~G] & 1) : xlarun__g_bits_empty(p->classes + 8 * e)) { ok = 0; break; }
                if (ok) { mark[r] |= 1; changed = 1; break; }
            }
        }
    }
    if (!(mark[root] & 1))
        return xlarun__g_error(p, p->def_at[root], "the grammar matches no text: rule 'root' never completes (every way through it needs an empty class or a rule that never completes)");
    /* nullable (bit 2): some alternative of nullable rules only */
    changed = 1;
    while (changed) {
        changed = 0;
        for (r = 0; r < p->n_rules; r++) {
            if (mark[r] & 2) continue;
            for (a = 0; a < p->rule_nalt[r]; a++) {
                int ok = 1;
                for (k = p->alt_start[p->rule_first[r] + a]; (e = p->elems[k]) != XLARUN__G_END; k++)
                    if (!(e & G) || !(mark[e & ~G] & 2)) { ok = 0; break; }
                if (ok) { mark[r] |= 2; changed = 1; break; }
            }
        }
    }
    /* left recursion: a cycle of rules each reachable from the last at the start of an
       alternative, or after rules that may match nothing. Depth-first, iterative: work holds the
       path as (rule, alternative, element) where its next edge is; bit 4 = on the path, bit 8 =
       done. Each element is looked at once per visit. */
    for (r = 0; r < p->n_rules; r++) {
        uint32_t depth = 0;
        if (mark[r] & 8) continue;
        work[0] = r; work[1] = 0; work[2] = 0; depth = 1; mark[r] |= 4;
        while (depth) {
            uint32_t *w = work + 3 * (depth - 1), u = w[0], next = UINT32_MAX;
            while (w[1] < p->rule_nalt[u]) {
                e = p->elems[p->alt_start[p->rule_first[u] + w[1]] + w[2]];
                if (e == XLARUN__G_END || !(e & G)) { w[1]++; w[2] = 0; continue; }
                next = e & ~G;
                if (mark[next] & 2) w[2]++;   /* it may match nothing: the element after it leads too */
                else { w[1]++; w[2] = 0; }
                break;
            }
            if (next == UINT32_MAX) { mark[u] = XLARUN__CAST(unsigned char, (mark[u] & ~4) | 8); depth--; continue; }
            if (mark[next] & 4) {
                char a1[160], a2[160];
                xlarun__g_name(p, next, a1, sizeof a1);
                xlarun__g_name(p, u, a2, sizeof a2);
                return xlarun__g_error(p, p->def_at[next < p->n_defs ? next : p->rule_owner[next]],
                                       "left recursion: %s comes back to itself through %s without reading a character%s", a1, a2,
                                       next < p->n_defs ? "" : " (a repetition of something that can match nothing?)");
            }
            if (mark[next] & 8) continue;
            mark[next] |= 4;
            work[3 * depth] = next; work[3 * depth + 1] = 0; work[3 * depth + 2] = 0; depth++;
        }
    }
    for (r = 0; r < p->n_rules; r++) {  /* keep the alternatives that can complete, in order */
        uint32_t f = p->rule_first[r], n = 0;
        for (a = 0; a < p->rule_nalt[r]; a++) {
            int ok = 1;
            for (k = p->alt_start[f + a]; (e = p->elems[k]) != XLARUN__G_END; k++)
                if ((e & G) ? !(mark[e & ~G] & 1) : xlarun__g_bits_empty(p->classes + 8 * e)) { ok = 0; break; }
            if (ok) p->alt_start[f + n++] = p->alt_start[f + a];
        }
        p->rule_nalt[r] = n;
    }
    return XLARUN_OK;
}

typedef struct xlarun__gbuild { const char *text; size_t len; } xlarun__gbuild;

static xlarun_status xlarun__grammar_build_cb(xlarun__arena *A, const void *args, void **obj, xlarun_error *err) {
    const xlarun__gbuild *in = XLARUN__CAST(const xlarun__gbuild *, args);
    xlarun__gp p;
    xlarun_grammar *g;
    size_t k, defs = 1;
    long root;
    uint32_t n_gen;
    unsigned char *mark;
    uint32_t *work;
    memset(&p, 0, sizeof p);
    p.s = in->text; p.n = in->len; p.err = err;
    if (memchr(in->text, 0, in->len)) {
        p.i = XLARUN__CAST(size_t, XLARUN__CAST(const char *, memchr(in->text, 0, in->len)) - in->text);
        return xlarun__g_error(&p, p.i, "a NUL byte in the grammar");
    }
    for (k = 0; k + 3 <= in->len; k++) if (!memcmp(in->text + k, "::=", 3)) defs++;
    p.cap_defs = defs > UINT32_MAX ? UINT32_MAX : XLARUN__CAST(uint32_t, defs);
    p.cap_stk = 2 * in->len + 64 * (XLARUN__G_MAX_RANGES + 4) + 256;
    p.def_at = XLARUN__CAST(size_t *, xlarun__alloc_ex(A, defs * sizeof(size_t), 1, 0));
    p.def_len = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(A, defs * sizeof(uint32_t), 1, 0));
    p.stk = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(A, p.cap_stk * sizeof(uint32_t), 1, 0));
    g = XLARUN__CAST(xlarun_grammar *, xlarun__alloc_ex(A, sizeof *g, 0, 0));
    if (!p.def_at || !p.def_len || !p.stk || !g) return XLARUN_ERR_MEMORY;
    XLARUN__TRY(xlarun__g_parse(&p));                       /* count */
    if (!p.n_defs) return xlarun__g_error(&p, p.n, "the grammar has no rules (it needs one named root)");
    n_gen = p.n_rules;
    p.n_rules = p.n_defs + n_gen;
    p.rule_first = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(A, p.n_rules * sizeof(uint32_t), 0, 0));
    p.rule_nalt = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(A, p.n_rules * sizeof(uint32_t), 0, 0));
    p.rule_owner = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(A, p.n_rules * sizeof(uint32_t), 1, 0));
    p.alt_start = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(A, (p.n_alts + 1) * sizeof(uint32_t), 0, 0));
    p.elems = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(A, (p.n_elems + 1) * sizeof(uint32_t), 0, 0));
    p.classes = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(A, (p.n_classes + 1) * 8 * sizeof(uint32_t), 0, 0));
    mark = XLARUN__CAST(unsigned char *, xlarun__alloc_ex(A, p.n_rules, 1, 0));
    work = XLARUN__CAST(uint32_t *, xlarun__alloc_ex(A, 3 * (p.n_rules + 1) * sizeof(uint32_t), 1, 0));
    if (!p.rule_first || !p.rule_nalt || !p.rule_owner || !p.alt_start || !p.elems || !p.classes || !mark || !work) return XLARUN_ERR_MEMORY;
    p.n_rules = p.n_defs; p.n_alts = 0; p.n_elems = 0; p.n_classes = 0; p.any_rule = 0; p.i = 0; p.fill = 1;
    XLARUN__TRY(xlarun__g_parse(&p));                       /* fill */
    root = xlarun__g_find(&p, "root", 4);
    if (root < 0) return xlarun__g_error(&p, 0, "no rule is named root (the rule a sentence starts from)");
    XLARUN__TRY(xlarun__g_check(&p, XLARUN__CAST(uint32_t, root), mark, work));
    g->magic = XLARUN__GRAMMAR_MAGIC;
    g->n_rules = p.n_rules; g->n_alts = p.n_alts; g->n_elems = p.n_elems; g->n_classes = p.n_classes;
    g->root = XLARUN__CAST(uint32_t, root);
    g->rule_first = p.rule_first; g->rule_nalt = p.rule_nalt; g->alt_start = p.alt_start;
    g->elems = p.elems; g->classes = p.classes; g->own = NULL;
    *obj = g;
    return XLARUN_OK;
}

static const xlarun__builder xlarun__grammar_builder = {xlarun__grammar_build_cb, NULL, "grammar"};

XLARUN_API xlarun_status xlarun_grammar_memory(const char *gbnf, size_t len, size_t *bytes, xlarun_error *err) {
    xlarun__gbuild in;
    if (bytes) *bytes = 0;
    if (!gbnf || !bytes) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_grammar_memory: NULL %s", gbnf ? "bytes" : "text");
    in.text = gbnf; in.len = len;
    return xlarun__measure(&xlarun__grammar_builder, &in, NULL, bytes, err);
}

XLARUN_API xlarun_status xlarun_grammar_compile_in(const char *gbnf, size_t len, void *mem, size_t bytes,
                                                   xlarun_grammar **out, xlarun_error *err) {
    xlarun__gbuild in;
    void *obj = NULL;
    xlarun_status st;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_grammar_compile_in: out is NULL");
    *out = NULL;
    if (!gbnf || !mem) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_grammar_compile_in: NULL %s", gbnf ? "mem" : "text");
    in.text = gbnf; in.len = len;
    st = xlarun__build_in(&xlarun__grammar_builder, &in, NULL, mem, bytes, NULL, &obj, err);
    if (st == XLARUN_OK) *out = XLARUN__CAST(xlarun_grammar *, obj);
    return st;
}

XLARUN_API xlarun_status xlarun_grammar_compile(const char *gbnf, size_t len, xlarun_grammar **out, xlarun_error *err) {
    xlarun__gbuild in;
    void *obj = NULL, *own = NULL;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_grammar_compile: out is NULL");
    *out = NULL;
    if (!gbnf) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_grammar_compile: NULL text");
    in.text = gbnf; in.len = len;
    XLARUN__TRY(xlarun__build_alloc(&xlarun__grammar_builder, &in, NULL, NULL, &obj, &own, err));
    *out = XLARUN__CAST(xlarun_grammar *, obj);
    (*out)->own = own;
    return XLARUN_OK;
}

XLARUN_API void xlarun_grammar_free(xlarun_grammar *g) {
    void *own;
    if (!g || g->magic != XLARUN__GRAMMAR_MAGIC || !g->own) return;
    own = g->own;
    g->magic = 0;
    XLARUN_FREE(own, NULL);
}

/* ---- the matcher: parse stacks, a sorted vocabulary, caches ---------------------------------
   A parse stack is a chain of frames, each (position of the next element, the frame below); the
   frames are hash-consed, so equal stacks are one frame id and sets of stacks compare as sorted
   id lists. Frame 0 is the bottom: a set that holds it has a complete sentence. Sets are
   interned too, and a cache maps (set, byte) to the next set: in the common states (inside a
   string, a number) walking a token's bytes costs a lookup per byte. The mask walks the
   vocabulary in sorted order, so tokens sharing a prefix share its walk (a trie without the
   pointers), and a dead prefix skips every token that starts with it. When the tables fill,
   the frames still in use are compacted and the caches start again. */
#define XLARUN__MATCHER_MAGIC 0x58474d41u
#define XLARUN__MASK_CACHE 4

struct xlarun_matcher {        /* pointers first, then counts (no padding) */
    const xlarun_grammar *g;
    void *own;
    /* the vocabulary, sorted by bytes */
    uint32_t *order;            /* sorted position -> id */
    uint32_t *id_pos;           /* id -> sorted position, UINT32_MAX for a token with no bytes */
    uint32_t *tok_off;          /* sorted position -> offset into bytes (n_sorted + 1) */
    uint32_t *lcp;              /* bytes shared with the token before in sorted order */
    unsigned char *bytes;
    uint32_t *npos, *npar, *nhash, *stamp, *remap;      /* frames */
    uint32_t *pool, *set_off, *set_len, *shash;         /* sets of stacks */
    uint32_t *tkey, *tval;                              /* transitions */
    uint32_t *masks, *out, *work, *level;               /* masks; work */
    uint32_t magic, n_vocab, n_sorted, max_len, n_end;
    uint32_t max_nodes, n_nodes, nmask, epoch;
    uint32_t pool_cap, pool_n, n_sets, max_sets, smask;
    uint32_t tmask, tn, words, age, max_stacks, n_out, work_cap;
    uint32_t cur;               /* the set of stacks after the bytes accepted so far */
    int accept, failed;
    uint32_t mask_set[XLARUN__MASK_CACHE], mask_age[XLARUN__MASK_CACHE];
    int32_t end_ids[64];
};

static uint32_t xlarun__m_node(xlarun_matcher *m, uint32_t pos, uint32_t par) {
    uint32_t h = ((pos * 0x9E3779B1u) ^ (par * 0x85EBCA77u)) & m->nmask, id;
    while ((id = m->nhash[h]) != 0) {
        if (m->npos[id] == pos && m->npar[id] == par) return id;
        h = (h + 1) & m->nmask;
    }
    if (m->n_nodes >= m->max_nodes) { m->failed = 1; return 0; }
    id = ++m->n_nodes;
    m->npos[id] = pos; m->npar[id] = par; m->stamp[id] = 0;
    m->nhash[h] = id;
    return id;
}

/* the stacks that the element at pos (with frame par below) leads to, before reading a byte:
   classes are kept as stack tops, rules are expanded, ends return to the frame below */
static void xlarun__m_expand(xlarun_matcher *m, uint32_t pos, uint32_t par) {
    const xlarun_grammar *g = m->g;
    uint32_t wn = 0;
    m->work[wn++] = pos; m->work[wn++] = par;
    while (wn && !m->failed) {
        uint32_t pr = m->work[--wn], q = m->work[--wn], e = g->elems[q], key, r, a, ret;
        if (e == XLARUN__G_END) {
            if (!pr) m->accept = 1;
            else { m->work[wn++] = m->npos[pr]; m->work[wn++] = m->npar[pr]; }
            continue;
        }
        key = xlarun__m_node(m, q, pr);
        if (m->failed || m->stamp[key] == m->epoch) continue;
        m->stamp[key] = m->epoch;
        if (!(e & XLARUN__G_REF)) {
            if (m->n_out >= m->max_stacks) { m->failed = 2; return; }
            m->out[m->n_out++] = key;
            continue;
        }
        r = e & ~XLARUN__G_REF;
        ret = g->elems[q + 1] == XLARUN__G_END ? pr : xlarun__m_node(m, q + 1, pr);
        if (wn + 2 * g->rule_nalt[r] > m->work_cap) { m->failed = 2; return; }
        for (a = g->rule_nalt[r]; a-- > 0;) { m->work[wn++] = g->alt_start[g->rule_first[r] + a]; m->work[wn++] = ret; }
    }
}

static int xlarun__m_cmp_u32(const void *a, const void *b) {
    uint32_t x = *XLARUN__CAST(const uint32_t *, a), y = *XLARUN__CAST(const uint32_t *, b);
    return x < y ? -1 : x > y;
}

static void xlarun__m_epoch(xlarun_matcher *m) {
    if (++m->epoch == 0) { memset(m->stamp, 0, (m->max_nodes + 1) * sizeof(uint32_t)); m->epoch = 1; }
}

/* the set m->out[0..n_out) (plus frame 0 when accept) as an id; 0 for the empty set */
static uint32_t xlarun__m_intern(xlarun_matcher *m) {
    uint32_t h = 2166136261u, k, id, n = m->n_out + (m->accept ? 1u : 0u), *s;
    if (!n) return 0;
    qsort(m->out, m->n_out, sizeof(uint32_t), xlarun__m_cmp_u32);
    h = (h ^ (m->accept ? 1u : 0u)) * 16777619u;
    for (k = 0; k < m->n_out; k++) h = (h ^ m->out[k]) * 16777619u;
    h &= m->smask;
    while ((id = m->shash[h]) != 0) {
        s = m->pool + m->set_off[id];
        if (m->set_len[id] == n && (s[0] == 0) == (m->accept != 0) &&
            !memcmp(s + (m->accept ? 1 : 0), m->out, m->n_out * sizeof(uint32_t))) return id;
        h = (h + 1) & m->smask;
    }
    if (m->n_sets + 1 >= m->max_sets || m->pool_n + n > m->pool_cap) { m->failed = 1; return 0; }
    id = ++m->n_sets;
    m->set_off[id] = m->pool_n; m->set_len[id] = n;
    s = m->pool + m->pool_n;
    if (m->accept) *s++ = 0;
    memcpy(s, m->out, m->n_out * sizeof(uint32_t));
    m->pool_n += n;
    m->shash[h] = id;
    return id;
}

/* the set after reading byte b in set s (0: nothing can read it) */
static uint32_t xlarun__m_step(xlarun_matcher *m, uint32_t s, unsigned b) {
    uint32_t key = s * 256u + b + 1u, h = (key * 0x9E3779B1u) & m->tmask, k, n, *set, r;
    while (m->tkey[h]) {
        if (m->tkey[h] == key) return m->tval[h];
        h = (h + 1) & m->tmask;
    }
    xlarun__m_epoch(m);
    m->n_out = 0; m->accept = 0;
    set = m->pool + m->set_off[s];
    n = m->set_len[s];
    for (k = 0; k < n && !m->failed; k++) {
        uint32_t t = set[k], e;
        if (!t) continue;
        e = m->g->elems[m->npos[t]];
        if (m->g->classes[8 * e + (b >> 5)] >> (b & 31) & 1u) xlarun__m_expand(m, m->npos[t] + 1, m->npar[t]);
    }
    if (m->failed) return 0;
    r = xlarun__m_intern(m);
    if (m->failed) return 0;
    if (m->tn < m->tmask / 2) { m->tkey[h] = key; m->tval[h] = r; m->tn++; }
    return r;
}

/* the frames, sets and caches start again, keeping the current set (renumbered) */
static void xlarun__m_flush(xlarun_matcher *m) {
    uint32_t *set = m->pool + m->set_off[m->cur], n = m->cur ? m->set_len[m->cur] : 0, k, id, cnt = 0;
    xlarun__m_epoch(m);
    for (k = 0; k < n; k++)
        for (id = set[k]; id && m->stamp[id] != m->epoch; id = m->npar[id]) m->stamp[id] = m->epoch;
    for (id = 1; id <= m->n_nodes; id++) {
        if (m->stamp[id] != m->epoch) continue;
        m->remap[id] = ++cnt;
        m->npos[cnt] = m->npos[id];
        m->npar[cnt] = m->npar[id] ? m->remap[m->npar[id]] : 0;
    }
    m->n_nodes = cnt;
    memset(m->nhash, 0, (m->nmask + 1) * sizeof(uint32_t));
    for (id = 1; id <= cnt; id++) {
        uint32_t h = ((m->npos[id] * 0x9E3779B1u) ^ (m->npar[id] * 0x85EBCA77u)) & m->nmask;
        while (m->nhash[h]) h = (h + 1) & m->nmask;
        m->nhash[h] = id;
        m->stamp[id] = 0;
    }
    m->accept = 0; m->n_out = 0;
    for (k = 0; k < n; k++) {
        if (set[k]) m->out[m->n_out++] = m->remap[set[k]];
        else m->accept = 1;
    }
    memset(m->shash, 0, (m->smask + 1) * sizeof(uint32_t));
    memset(m->tkey, 0, (m->tmask + 1) * sizeof(uint32_t));
    m->n_sets = 0; m->pool_n = 0; m->tn = 0;
    for (k = 0; k < XLARUN__MASK_CACHE; k++) m->mask_set[k] = 0;
    m->failed = 0;
    m->cur = xlarun__m_intern(m);   /* fits: the tables are empty */
}

static int xlarun__m_full(const xlarun_matcher *m) {
    return m->n_nodes > m->max_nodes / 2 || m->pool_n > m->pool_cap / 2 || m->n_sets > m->max_sets / 2;
}

static xlarun_status xlarun__m_limits(xlarun_matcher *m, xlarun_error *err) {
    int why = m->failed;
    m->failed = 0;
    if (why == 2)
        return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "grammar: more than %lu parse stacks are alive at once (the grammar is too ambiguous here; max_stacks raises the limit)",
                            XLARUN__CAST(unsigned long, m->max_stacks));
    return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "grammar: the parse needs more than %lu stack frames at once (max_nodes raises the limit)",
                        XLARUN__CAST(unsigned long, m->max_nodes));
}

XLARUN_API void xlarun_matcher_reset(xlarun_matcher *m) {
    if (!m || m->magic != XLARUN__MATCHER_MAGIC) return;
    m->n_nodes = 0; m->n_sets = 0; m->pool_n = 0; m->tn = 0; m->failed = 0;
    memset(m->nhash, 0, (m->nmask + 1) * sizeof(uint32_t));
    memset(m->shash, 0, (m->smask + 1) * sizeof(uint32_t));
    memset(m->tkey, 0, (m->tmask + 1) * sizeof(uint32_t));
    memset(m->mask_set, 0, sizeof m->mask_set);
    xlarun__m_epoch(m);
    m->n_out = 0; m->accept = 0;
    {
        const xlarun_grammar *g = m->g;
        uint32_t a;
        for (a = 0; a < g->rule_nalt[g->root]; a++) xlarun__m_expand(m, g->alt_start[g->rule_first[g->root] + a], 0);
    }
    m->cur = m->failed ? 0 : xlarun__m_intern(m);
}

/* walks bytes from the current set; *to gets the set after them (0: they do not continue) */
static xlarun_status xlarun__m_walk(xlarun_matcher *m, const unsigned char *p, size_t n, uint32_t *to, xlarun_error *err) {
    int tries;
    for (tries = 0; tries < 2; tries++) {
        uint32_t s = m->cur;
        size_t k;
        if (xlarun__m_full(m)) xlarun__m_flush(m);
        for (k = 0; k < n && s; k++) s = xlarun__m_step(m, s, p[k]);
        if (!m->failed) { *to = s; return XLARUN_OK; }
        if (tries == 0) xlarun__m_flush(m);
    }
    return xlarun__m_limits(m, err);
}

XLARUN_API xlarun_status xlarun_matcher_accept_bytes(xlarun_matcher *m, const char *bytes, size_t n, xlarun_error *err) {
    uint32_t to = 0;
    if (!m || m->magic != XLARUN__MATCHER_MAGIC || (!bytes && n)) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_matcher_accept_bytes: NULL argument");
    if (!m->cur) return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "grammar: the matcher has no parse left (an earlier call failed)");
    XLARUN__TRY(xlarun__m_walk(m, XLARUN__PUN(const unsigned char *, bytes), n, &to, err));
    if (!to) return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "grammar: the text \"%.*s\" does not continue the output", XLARUN__CAST(int, n > 64 ? 64 : n), bytes);
    m->cur = to;
    xlarun__ok(err);
    return XLARUN_OK;
}

static int xlarun__m_is_end(const xlarun_matcher *m, int32_t id) {
    uint32_t k;
    for (k = 0; k < m->n_end; k++) if (m->end_ids[k] == id) return 1;
    return 0;
}

XLARUN_API int xlarun_matcher_complete(const xlarun_matcher *m) {
    return m && m->magic == XLARUN__MATCHER_MAGIC && m->cur && m->pool[m->set_off[m->cur]] == 0;
}

XLARUN_API int xlarun_matcher_can_continue(const xlarun_matcher *m) {
    if (!m || m->magic != XLARUN__MATCHER_MAGIC || !m->cur) return 0;
    return m->set_len[m->cur] > (m->pool[m->set_off[m->cur]] == 0 ? 1u : 0u);
}

XLARUN_API xlarun_status xlarun_matcher_accept_token(xlarun_matcher *m, int32_t id, xlarun_error *err) {
    uint32_t sp;
    if (!m || m->magic != XLARUN__MATCHER_MAGIC) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_matcher_accept_token: NULL matcher");
    if (id < 0 || XLARUN__CAST(uint32_t, id) >= m->n_vocab)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_matcher_accept_token: id %ld is outside the vocabulary (0..%lu)", XLARUN__CAST(long, id), XLARUN__CAST(unsigned long, m->n_vocab - 1));
    if (xlarun__m_is_end(m, id)) {
        if (xlarun_matcher_complete(m)) { xlarun__ok(err); return XLARUN_OK; }
        return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "grammar: end id %ld where the sentence is not complete", XLARUN__CAST(long, id));
    }
    sp = m->id_pos[id];
    if (sp == UINT32_MAX) return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "grammar: token %ld has no bytes", XLARUN__CAST(long, id));
    return xlarun_matcher_accept_bytes(m, XLARUN__PUN(const char *, m->bytes + m->tok_off[sp]), m->tok_off[sp + 1] - m->tok_off[sp], err);
}

/* the mask of the current set: the sorted vocabulary walked once, each token from where it
   parts from the one before; levels[d] is the set after the first d bytes of the current path */
static void xlarun__m_mask(xlarun_matcher *m, uint32_t *mask) {
    uint32_t have = 0, dead = UINT32_MAX, i;
    m->level[0] = m->cur;
    for (i = 0; i < m->n_sorted && !m->failed; i++) {
        uint32_t l = m->lcp[i], len = m->tok_off[i + 1] - m->tok_off[i], k;
        const unsigned char *b = m->bytes + m->tok_off[i];
        if (dead <= l) continue;             /* starts with a prefix that cannot continue */
        dead = UINT32_MAX;
        if (have > l) have = l;
        for (k = have; k < len; k++) {
            uint32_t s = xlarun__m_step(m, m->level[k], b[k]);
            m->level[k + 1] = s;
            if (!s) { dead = k + 1; break; }
        }
        have = k < len ? k + 1 : len;
        if (k == len) mask[m->order[i] >> 5] |= 1u << (m->order[i] & 31);
    }
}

XLARUN_API xlarun_status xlarun_matcher_allowed(xlarun_matcher *m, uint32_t *mask, xlarun_error *err) {
    uint32_t k, slot = 0;
    int tries;
    if (!m || m->magic != XLARUN__MATCHER_MAGIC || !mask) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_matcher_allowed: NULL argument");
    memset(mask, 0, m->words * sizeof(uint32_t));
    if (!m->cur) return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "grammar: the matcher has no parse left (an earlier call failed)");
    for (k = 0; k < XLARUN__MASK_CACHE; k++)
        if (m->mask_set[k] == m->cur) {
            memcpy(mask, m->masks + XLARUN__CAST(size_t, k) * m->words, m->words * sizeof(uint32_t));
            m->mask_age[k] = ++m->age;
            xlarun__ok(err);
            return XLARUN_OK;
        }
    for (tries = 0; tries < 2; tries++) {
        if (xlarun__m_full(m)) xlarun__m_flush(m);
        memset(mask, 0, m->words * sizeof(uint32_t));
        xlarun__m_mask(m, mask);
        if (!m->failed) break;
        if (tries == 0) xlarun__m_flush(m);
        else return xlarun__m_limits(m, err);
    }
    if (xlarun_matcher_complete(m))
        for (k = 0; k < m->n_end; k++) mask[XLARUN__CAST(uint32_t, m->end_ids[k]) >> 5] |= 1u << (m->end_ids[k] & 31);
    for (k = 1; k < XLARUN__MASK_CACHE; k++)
        if (m->mask_age[k] < m->mask_age[slot]) slot = k;
    memcpy(m->masks + XLARUN__CAST(size_t, slot) * m->words, mask, m->words * sizeof(uint32_t));
    m->mask_set[slot] = m->cur;
    m->mask_age[slot] = ++m->age;
    xlarun__ok(err);
    return XLARUN_OK;
}

typedef size_t (*xlarun__bytes_fn)(const void *src, uint32_t id, unsigned char *out, size_t cap);
typedef struct xlarun__mbuild {
    const xlarun_grammar *g;
    xlarun__bytes_fn bytes;
    const void *src;
    uint32_t n_vocab;
    xlarun_matcher_options opt;
} xlarun__mbuild;
typedef struct xlarun__arrays { const char *const *tokens; const size_t *lens; } xlarun__arrays;
typedef struct xlarun__tokref { const unsigned char *p; uint32_t len, id; } xlarun__tokref;

static size_t xlarun__array_bytes(const void *src, uint32_t id, unsigned char *out, size_t cap) {
    const xlarun__arrays *a = XLARUN__CAST(const xlarun__arrays *, src);
    size_t n = a->tokens[id] ? a->lens[id] : 0;
    if (out && n <= cap) memcpy(out, a->tokens[id], n);
    return n;
}

static int xlarun__m_cmp_tok(const void *a, const void *b) {
    const xlarun__tokref *x = XLARUN__CAST(const xlarun__tokref *, a), *y = XLARUN__CAST(const xlarun__tokref *, b);
    uint32_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->p, y->p, n) : 0;
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static uint32_t xlarun__pow2_at_least(uint64_t n) {
    uint32_t p = 64;
    while (p < n && p < (1u << 30)) p <<= 1;
    return p;
}

static xlarun_status xlarun__m_start(xlarun_matcher *m, xlarun_error *err);

#define XLARUN__ALLOC_N(A, T, n, top) XLARUN__CAST(T *, xlarun__alloc_ex(A, XLARUN__CAST(size_t, n) * sizeof(T), top, 0))

/* an end id is allowed where a sentence is complete, never for its bytes */
static int xlarun__mb_is_end(const xlarun__mbuild *in, uint32_t id) {
    size_t k;
    for (k = 0; k < in->opt.n_end; k++) if (XLARUN__CAST(uint32_t, in->opt.end_ids[k]) == id) return 1;
    return 0;
}
static xlarun_status xlarun__matcher_build_cb(xlarun__arena *A, const void *args, void **obj, xlarun_error *err) {
    const xlarun__mbuild *in = XLARUN__CAST(const xlarun__mbuild *, args);
    xlarun_matcher *m = XLARUN__ALLOC_N(A, xlarun_matcher, 1, 0);
    uint64_t total = 0;
    uint32_t id, n_sorted = 0, max_len = 0, k, pos;
    unsigned char *raw;
    xlarun__tokref *refs;
    int measuring = xlarun__measuring(A);
    if (!m) return XLARUN_ERR_MEMORY;
    memset(m, 0, sizeof *m);
    for (id = 0; id < in->n_vocab; id++) {
        size_t n = xlarun__mb_is_end(in, id) ? 0 : in->bytes(in->src, id, NULL, 0); /* end ids: by completeness only */
        if (n > UINT32_MAX / 2) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "matcher: token %lu has %lu bytes", XLARUN__CAST(unsigned long, id), XLARUN__CAST(unsigned long, n));
        total += n;
        if (n) n_sorted++;
        if (n > max_len) max_len = XLARUN__CAST(uint32_t, n);
    }
    if (total > UINT32_MAX / 2) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "matcher: the vocabulary has %lu bytes of tokens (at most 2^31)", XLARUN__CAST(unsigned long, total));
    m->magic = XLARUN__MATCHER_MAGIC;
    m->g = in->g;
    m->n_vocab = in->n_vocab; m->n_sorted = n_sorted; m->max_len = max_len;
    m->n_end = XLARUN__CAST(uint32_t, in->opt.n_end);
    for (k = 0; k < m->n_end; k++) m->end_ids[k] = in->opt.end_ids[k];
    m->max_nodes = in->opt.max_nodes ? in->opt.max_nodes : (1u << 17);
    m->max_stacks = in->opt.max_stacks ? in->opt.max_stacks : 4096u;
    m->max_sets = m->max_nodes;
    m->pool_cap = 4 * m->max_nodes;
    m->nmask = xlarun__pow2_at_least(2ull * m->max_nodes) - 1;
    m->smask = xlarun__pow2_at_least(2ull * m->max_sets) - 1;
    m->tmask = xlarun__pow2_at_least(2ull * m->max_nodes) - 1;
    m->words = (in->n_vocab + 31) / 32;
    m->work_cap = 2 * (m->max_stacks + in->g->n_alts) + 64;
    /* the tables: while measuring only counted (nothing is sorted or walked then) */
#define XLARUN__ALLOC_B(A, T, n, top) XLARUN__CAST(T *, xlarun__alloc_ex(A, XLARUN__CAST(size_t, n) * sizeof(T), top, measuring))
    m->order = XLARUN__ALLOC_B(A, uint32_t, n_sorted + 1, 0);
    m->id_pos = XLARUN__ALLOC_B(A, uint32_t, in->n_vocab, 0);
    m->tok_off = XLARUN__ALLOC_B(A, uint32_t, n_sorted + 1, 0);
    m->lcp = XLARUN__ALLOC_B(A, uint32_t, n_sorted + 1, 0);
    m->bytes = XLARUN__ALLOC_B(A, unsigned char, total + 1, 0);
    m->npos = XLARUN__ALLOC_B(A, uint32_t, m->max_nodes + 1, 0);
    m->npar = XLARUN__ALLOC_B(A, uint32_t, m->max_nodes + 1, 0);
    m->stamp = XLARUN__ALLOC_B(A, uint32_t, m->max_nodes + 1, 0);
    m->remap = XLARUN__ALLOC_B(A, uint32_t, m->max_nodes + 1, 0);
    m->nhash = XLARUN__ALLOC_B(A, uint32_t, m->nmask + 1u, 0);
    m->pool = XLARUN__ALLOC_B(A, uint32_t, m->pool_cap, 0);
    m->set_off = XLARUN__ALLOC_B(A, uint32_t, m->max_sets + 1, 0);
    m->set_len = XLARUN__ALLOC_B(A, uint32_t, m->max_sets + 1, 0);
    m->shash = XLARUN__ALLOC_B(A, uint32_t, m->smask + 1u, 0);
    m->tkey = XLARUN__ALLOC_B(A, uint32_t, m->tmask + 1u, 0);
    m->tval = XLARUN__ALLOC_B(A, uint32_t, m->tmask + 1u, 0);
    m->masks = XLARUN__ALLOC_B(A, uint32_t, XLARUN__CAST(size_t, XLARUN__MASK_CACHE) * m->words, 0);
    m->out = XLARUN__ALLOC_B(A, uint32_t, m->max_stacks, 0);
    m->work = XLARUN__ALLOC_B(A, uint32_t, m->work_cap, 0);
    m->level = XLARUN__ALLOC_B(A, uint32_t, max_len + 1, 0);
    raw = XLARUN__ALLOC_B(A, unsigned char, total + 1, 1);
    refs = XLARUN__ALLOC_B(A, xlarun__tokref, n_sorted + 1, 1);
#undef XLARUN__ALLOC_B
    if (measuring) { *obj = m; return A->exhausted ? XLARUN_ERR_MEMORY : XLARUN_OK; }
    if (!m->order || !m->id_pos || !m->tok_off || !m->lcp || !m->bytes || !m->npos || !m->npar || !m->stamp || !m->remap ||
        !m->nhash || !m->pool || !m->set_off || !m->set_len || !m->shash || !m->tkey || !m->tval || !m->masks || !m->out ||
        !m->work || !m->level || !raw || !refs)
        return XLARUN_ERR_MEMORY;
    /* the tokens' bytes in id order, then sorted */
    for (id = 0, pos = 0, k = 0; id < in->n_vocab; id++) {
        size_t n = xlarun__mb_is_end(in, id) ? 0 : in->bytes(in->src, id, raw + pos, total - pos);
        m->id_pos[id] = UINT32_MAX;
        if (!n) continue;
        refs[k].p = raw + pos; refs[k].len = XLARUN__CAST(uint32_t, n); refs[k].id = id;
        k++;
        pos += XLARUN__CAST(uint32_t, n);
    }
    qsort(refs, n_sorted, sizeof *refs, xlarun__m_cmp_tok);
    for (k = 0, pos = 0; k < n_sorted; k++) {
        uint32_t l = 0;
        memcpy(m->bytes + pos, refs[k].p, refs[k].len);
        if (k) {
            uint32_t lim = refs[k].len < refs[k - 1].len ? refs[k].len : refs[k - 1].len;
            while (l < lim && refs[k].p[l] == refs[k - 1].p[l]) l++;
        }
        m->lcp[k] = l;
        m->tok_off[k] = pos;
        m->order[k] = refs[k].id;
        m->id_pos[refs[k].id] = k;
        pos += refs[k].len;
    }
    m->tok_off[n_sorted] = pos;
    memset(m->set_off, 0, (m->max_sets + 1) * sizeof(uint32_t));
    memset(m->set_len, 0, (m->max_sets + 1) * sizeof(uint32_t));
    memset(m->mask_age, 0, sizeof m->mask_age);
    m->epoch = 0;
    memset(m->stamp, 0, (m->max_nodes + 1) * sizeof(uint32_t));
    m->own = NULL;
    *obj = m;
    return xlarun__m_start(m, err);
}

static const xlarun__builder xlarun__matcher_builder = {xlarun__matcher_build_cb, NULL, "matcher"};

static xlarun_status xlarun__m_start(xlarun_matcher *m, xlarun_error *err) {
    xlarun_matcher_reset(m);
    if (m->failed) return xlarun__m_limits(m, err);
    return XLARUN_OK;
}

static xlarun_status xlarun__m_args(const xlarun_grammar *g, const char *const *tokens, const size_t *lens, uint32_t n_vocab,
                                    const xlarun_matcher_options *opt, const char *fn, xlarun__arrays *arr,
                                    xlarun__mbuild *in, xlarun_error *err) {
    size_t k;
    if (!g || g->magic != XLARUN__GRAMMAR_MAGIC) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "%s: NULL or freed grammar", fn);
    if (!tokens || !lens || !n_vocab || n_vocab > XLARUN_MAX_VOCAB)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "%s: %s", fn, !tokens || !lens ? "NULL tokens or lens" : "n_vocab must be 1..2^24");
    memset(in, 0, sizeof *in);
    if (opt) in->opt = *opt;
    if (in->opt.n_end > 64 || (in->opt.n_end && !in->opt.end_ids))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "%s: n_end %lu (at most 64, with end_ids)", fn, XLARUN__CAST(unsigned long, in->opt.n_end));
    for (k = 0; k < in->opt.n_end; k++)
        if (in->opt.end_ids[k] < 0 || XLARUN__CAST(uint32_t, in->opt.end_ids[k]) >= n_vocab)
            return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "%s: end id %ld is outside the vocabulary", fn, XLARUN__CAST(long, in->opt.end_ids[k]));
    if (in->opt.max_nodes > (1u << 26) || in->opt.max_stacks > (1u << 24))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "%s: max_nodes is at most 2^26 and max_stacks 2^24", fn);
    arr->tokens = tokens; arr->lens = lens;
    in->g = g; in->bytes = xlarun__array_bytes; in->src = arr; in->n_vocab = n_vocab;
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_matcher_memory(const xlarun_grammar *g, const char *const *tokens, const size_t *lens,
                                               uint32_t n_vocab, const xlarun_matcher_options *opt, size_t *bytes,
                                               xlarun_error *err) {
    xlarun__arrays arr;
    xlarun__mbuild in;
    if (bytes) *bytes = 0;
    if (!bytes) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_matcher_memory: NULL bytes");
    XLARUN__TRY(xlarun__m_args(g, tokens, lens, n_vocab, opt, "xlarun_matcher_memory", &arr, &in, err));
    return xlarun__measure(&xlarun__matcher_builder, &in, NULL, bytes, err);
}

XLARUN_API xlarun_status xlarun_matcher_init(const xlarun_grammar *g, const char *const *tokens, const size_t *lens,
                                             uint32_t n_vocab, const xlarun_matcher_options *opt, void *mem, size_t bytes,
                                             xlarun_matcher **out, xlarun_error *err) {
    xlarun__arrays arr;
    xlarun__mbuild in;
    void *obj = NULL;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_matcher_init: out is NULL");
    *out = NULL;
    if (!mem) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_matcher_init: NULL mem");
    XLARUN__TRY(xlarun__m_args(g, tokens, lens, n_vocab, opt, "xlarun_matcher_init", &arr, &in, err));
    XLARUN__TRY(xlarun__build_in(&xlarun__matcher_builder, &in, NULL, mem, bytes, NULL, &obj, err));
    *out = XLARUN__CAST(xlarun_matcher *, obj);
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_matcher_create(const xlarun_grammar *g, const char *const *tokens, const size_t *lens,
                                               uint32_t n_vocab, const xlarun_matcher_options *opt,
                                               xlarun_matcher **out, xlarun_error *err) {
    xlarun__arrays arr;
    xlarun__mbuild in;
    void *obj = NULL, *own = NULL;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_matcher_create: out is NULL");
    *out = NULL;
    XLARUN__TRY(xlarun__m_args(g, tokens, lens, n_vocab, opt, "xlarun_matcher_create", &arr, &in, err));
    XLARUN__TRY(xlarun__build_alloc(&xlarun__matcher_builder, &in, NULL, NULL, &obj, &own, err));
    *out = XLARUN__CAST(xlarun_matcher *, obj);
    (*out)->own = own;
    return XLARUN_OK;
}

XLARUN_API void xlarun_matcher_free(xlarun_matcher *m) {
    void *own;
    if (!m || m->magic != XLARUN__MATCHER_MAGIC || !m->own) return;
    own = m->own;
    m->magic = 0;
    XLARUN_FREE(own, NULL);
}


/* a token's bytes in the middle of generated text: what the decoder writes for it there, with
   byte-level and <0xHH> tokens as their raw byte (no UTF-8 held back, no U+FFFD) */
XLARUN_API size_t xlarun_tokenizer_token_bytes(const xlarun_tokenizer *t, int32_t id, unsigned flags, char *out, size_t cap) {
    const unsigned char *p;
    xlarun__sink k;
    size_t n, i, l;
    if (!xlarun__tok_ok(t) || id < 0 || XLARUN__CAST(uint32_t, id) >= t->n_ids || !t->flags[id] || xlarun__skip_id(t, flags, id)) return 0;
    p = XLARUN__PUN(const unsigned char *, t->pieces + t->off[id]);
    n = xlarun__piece_len(t, id);
    k.o = XLARUN__PUN(unsigned char *, out); k.cap = out ? cap : 0; k.n = 0; k.bad = 0;
    if (t->dec == XLARUN__DEC_BYTELEVEL) {
        for (i = 0; i < n; i += l) {
            unsigned char b;
            if (t->flags[id] & XLARUN__TF_BL_RAW) { b = p[i]; l = 1; }
            else b = XLARUN__CAST(unsigned char, xlarun__bl_byte(xlarun__cp_at(p, i, &l)));
            xlarun__sink_put(&k, &b, 1);
        }
    } else if (t->dec == XLARUN__DEC_NONE) {
        xlarun__sink_put(&k, " ", 1);
        xlarun__sink_put(&k, p, n);
    } else if (t->dec_byte_fallback && (t->flags[id] & XLARUN__TF_BYTE)) {
        unsigned char b = XLARUN__CAST(unsigned char, xlarun__byte_token(XLARUN__PUN(const char *, p), n));
        xlarun__sink_put(&k, &b, 1);
    } else if (t->dec_from) {
        size_t fl = strlen(t->dec_from), tl = strlen(t->dec_to), s0 = 0;
        for (i = 0; i + fl <= n;) {
            if (!memcmp(p + i, t->dec_from, fl)) {
                xlarun__sink_put(&k, p + s0, i - s0);
                xlarun__sink_put(&k, t->dec_to, tl);
                i += fl;
                s0 = i;
            } else i++;
        }
        xlarun__sink_put(&k, p + s0, n - s0);
    } else xlarun__sink_put(&k, p, n);
    return k.n <= k.cap || !out ? k.n : 0;
}

typedef struct xlarun__tokbytes { const xlarun_tokenizer *t; unsigned flags; } xlarun__tokbytes;
static size_t xlarun__tokenizer_bytes(const void *src, uint32_t id, unsigned char *out, size_t cap) {
    const xlarun__tokbytes *b = XLARUN__CAST(const xlarun__tokbytes *, src);
    return xlarun_tokenizer_token_bytes(b->t, XLARUN__CAST(int32_t, id), b->flags, XLARUN__PUN(char *, out), cap);
}

/* ---- JSON Schema to grammar ------------------------------------------------------------------
   One rule per schema node: "root" for the document, s<offset> for every other node (the byte
   offset of the node in the schema text, so a name is known before its rule is written and no
   table of names is needed). A node's rule is written, then the rules of its children; $ref
   targets (only #, #/$defs/NAME and #/definitions/NAME, nested) get their rules once each, after
   the tree, from a bounded table. The shared rules (value, object, array, string, char, hex,
   number, integer) are written last, those that are used. Output is counted past the capacity,
   so out = NULL measures and a second call fills. */
#define XLARUN__JS_MAX_REFS 256    /* distinct $ref targets */
#define XLARUN__JS_MAX_NAME 1024   /* bytes of a property name or $ref, decoded */
#define XLARUN__JS_MAX_LEAD 4096   /* steps of the check for a $ref cycle that reads no text, per target */
#define XLARUN__JS_MAX_COUNT 4096  /* the largest minItems, maxItems, minLength, maxLength */

enum { /* the shared rules */
    XLARUN__JS_VALUE = 1, XLARUN__JS_OBJECT = 2, XLARUN__JS_ARRAY = 4, XLARUN__JS_STRING = 8,
    XLARUN__JS_CHAR = 16, XLARUN__JS_HEX = 32, XLARUN__JS_NUMBER = 64, XLARUN__JS_INTEGER = 128
};
enum { /* types */
    XLARUN__JT_NULL = 1, XLARUN__JT_BOOL = 2, XLARUN__JT_INT = 4, XLARUN__JT_NUM = 8,
    XLARUN__JT_STR = 16, XLARUN__JT_ARR = 32, XLARUN__JT_OBJ = 64
};
enum { /* the keywords that validate, in the order of xlarun__js_kw_names */
    XLARUN__K_TYPE, XLARUN__K_PROPS, XLARUN__K_REQ, XLARUN__K_ADDL, XLARUN__K_ENUM,
    XLARUN__K_CONST, XLARUN__K_ITEMS, XLARUN__K_PREFIX, XLARUN__K_MIN_ITEMS, XLARUN__K_MAX_ITEMS,
    XLARUN__K_UNIQUE, XLARUN__K_MIN_LEN, XLARUN__K_MAX_LEN, XLARUN__K_MIN, XLARUN__K_MAX,
    XLARUN__K_XMIN, XLARUN__K_XMAX, XLARUN__K_ANY, XLARUN__K_ONE, XLARUN__K_ALL, XLARUN__K_REF,
    XLARUN__K_COUNT
};
static const char *const xlarun__js_kw_names[XLARUN__K_COUNT] = {
    "type", "properties", "required", "additionalProperties", "enum", "const", "items",
    "prefixItems", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "anyOf", "oneOf", "allOf", "$ref"};
/* keywords that only annotate, and the containers of definitions (read through $ref only) */
static const char *const xlarun__js_ignored[] = {
    "title", "description", "$schema", "default", "examples", "$comment", "deprecated",
    "readOnly", "writeOnly", "$defs", "definitions"};

typedef struct xlarun__js {
    xlarun__json j;
    char *out;
    size_t cap, n;                      /* n counts on past cap */
    unsigned used;                      /* XLARUN__JS_* rules referenced */
    size_t ref[XLARUN__JS_MAX_REFS];    /* $ref targets; [0] is the root */
    size_t ref_src[XLARUN__JS_MAX_REFS];/* the $ref string that first named each */
    size_t n_ref;
    char path[192];                     /* JSON pointer of the node, for messages */
    size_t plen;
    unsigned lead_steps;
    int no_root;                        /* the document's rule is s<offset> too (tool calls) */
    int spaced;                         /* ", " and ": " between items, as json.dumps writes (tool calls) */
    xlarun_error *err;
} xlarun__js;

typedef struct xlarun__js_int { int neg; uint64_t mag; } xlarun__js_int; /* neg only if mag > 0 */

/* ---- output ---- */
static void xlarun__js_put(xlarun__js *g, const char *s, size_t k) {
    if (g->out && g->n < g->cap) memcpy(g->out + g->n, s, g->cap - g->n < k ? g->cap - g->n : k);
    g->n += k;
}
static void xlarun__js_s(xlarun__js *g, const char *s) { xlarun__js_put(g, s, strlen(s)); }
static void xlarun__js_u64(xlarun__js *g, uint64_t v) {
    char b[24];
    size_t i = sizeof b;
    do { b[--i] = XLARUN__CAST(char, '0' + v % 10); v /= 10; } while (v);
    xlarun__js_put(g, b + i, sizeof b - i);
}
static void xlarun__js_name(xlarun__js *g, size_t node) {
    if (node == g->ref[0] && !g->no_root) { xlarun__js_s(g, "root"); return; }
    xlarun__js_s(g, "s");
    xlarun__js_u64(g, node);
}
/* bytes inside a GBNF string literal */
static void xlarun__js_lit(xlarun__js *g, const char *s, size_t k) {
    size_t i;
    for (i = 0; i < k; i++) {
        if (s[i] == '"' || s[i] == '\\') xlarun__js_put(g, "\\", 1);
        xlarun__js_put(g, s + i, 1);
    }
}
/* the literal between items */
static void xlarun__js_comma(xlarun__js *g) { xlarun__js_s(g, g->spaced ? "\", \" " : "\",\" "); }
/* a repetition suffix {lo,hi} (hi == UINT64_MAX: no bound) */
static void xlarun__js_rep(xlarun__js *g, uint64_t lo, uint64_t hi) {
    if (lo == 1 && hi == 1) return;
    if (lo == 0 && hi == UINT64_MAX) { xlarun__js_s(g, "*"); return; }
    if (lo == 1 && hi == UINT64_MAX) { xlarun__js_s(g, "+"); return; }
    if (lo == 0 && hi == 1) { xlarun__js_s(g, "?"); return; }
    xlarun__js_s(g, "{");
    xlarun__js_u64(g, lo);
    if (hi != lo) {
        xlarun__js_s(g, ",");
        if (hi != UINT64_MAX) xlarun__js_u64(g, hi);
    }
    xlarun__js_s(g, "}");
}

/* The JSON value at v as a GBNF literal of its compact form (json.dumps with separators ",", ":"
   and ensure_ascii off): white space dropped, strings re-escaped, numbers as written. suffix is
   appended inside the literal. */
static void xlarun__js_value_lit(xlarun__js *g, size_t v, const char *suffix) {
    const char *s = g->j.s;
    size_t e = xlarun__json_skip(&g->j, v), i = v;
    xlarun__js_s(g, "\"");
    while (i < e) {
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') { i++; continue; }
        if (s[i] != '"') {
            xlarun__js_lit(g, s + i, 1);
            if (g->spaced && (s[i] == ',' || s[i] == ':')) xlarun__js_lit(g, " ", 1);
            i++;
            continue;
        }
        xlarun__js_lit(g, s + i, 1);
        i++;
        while (s[i] != '"') {
            char tmp[8];
            xlarun__cw w;
            unsigned cp = 0, lo = 0;
            if (s[i] != '\\') { xlarun__js_lit(g, s + i, 1); i++; continue; }
            if (s[i + 1] != 'u') {
                if (s[i + 1] == '/') xlarun__js_lit(g, "/", 1);
                else xlarun__js_lit(g, s + i, 2);
                i += 2;
                continue;
            }
            xlarun__hex4(s + i + 2, &cp);
            i += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) { /* validated: the low half follows */
                xlarun__hex4(s + i + 2, &lo);
                i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            w.out = tmp;
            w.n = 0;
            xlarun__cw_cp(&w, cp);
            xlarun__js_lit(g, tmp, w.n);
        }
        xlarun__js_lit(g, "\"", 1);
        i++;
    }
    xlarun__js_lit(g, suffix, strlen(suffix));
    xlarun__js_s(g, "\"");
}

/* ---- messages ---- */
/* the string at v (its JSON text, escapes as written) for a message: at most cap - 1 bytes, cut
   at a character boundary with "..." when longer, control characters as '?' */
static void xlarun__js_show(const xlarun__json *j, size_t v, char *buf, size_t cap) {
    size_t e = xlarun__json_skip(j, v) - 1, i = v + 1, n = 0;
    while (i < e) {
        size_t l = xlarun__utf8_len(XLARUN__PUN(const unsigned char *, j->s + i), e - i);
        if (l == 0) l = 1;
        if (n + l + 4 > cap) { memcpy(buf + n, "...", 3); n += 3; break; }
        memcpy(buf + n, j->s + i, l);
        if (XLARUN__CAST(unsigned char, buf[n]) < 0x20) buf[n] = '?';
        n += l;
        i += l;
    }
    buf[n] = 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static xlarun_status xlarun__js_fail(xlarun__js *g, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return xlarun__fail(g->err, XLARUN_ERR_GRAMMAR, "%s: %s", g->path, msg);
}
#ifdef __clang_analyzer__
#define xlarun__js_fail(g, ...) (xlarun__js_fail(g, __VA_ARGS__), XLARUN_ERR_GRAMMAR)
#endif

/* appends "/seg" to the path (seg: a literal, or the JSON string at key when key != NONE, or the
   index idx when both are absent); returns the old length for xlarun__js_pop */
static size_t xlarun__js_push(xlarun__js *g, const char *seg, size_t key, size_t idx) {
    size_t old = g->plen, room = sizeof g->path - 1 - g->plen;
    char buf[96];
    if (seg) snprintf(buf, sizeof buf, "/%s", seg);
    else if (key != XLARUN__NONE) { buf[0] = '/'; xlarun__js_show(&g->j, key, buf + 1, sizeof buf - 1); }
    else snprintf(buf, sizeof buf, "/%lu", XLARUN__CAST(unsigned long, idx));
    if (strlen(buf) > room) { /* keep the path's start, mark the cut */
        if (room >= 4) { memcpy(g->path + g->plen, "/...", 4); g->plen += 4; }
    } else {
        memcpy(g->path + g->plen, buf, strlen(buf));
        g->plen += strlen(buf);
    }
    g->path[g->plen] = 0;
    return old;
}
static void xlarun__js_pop(xlarun__js *g, size_t old) { g->plen = old; g->path[old] = 0; }

/* ---- reading the schema ---- */
static int xlarun__js_is(const xlarun__json *j, size_t v, char c) { return v != XLARUN__NONE && j->s[v] == c; }

/* the decoded string at v into buf (XLARUN__JS_MAX_NAME bytes); 0 when longer or holding a NUL */
static int xlarun__js_str(const xlarun__json *j, size_t v, char *buf, size_t *len) {
    size_t n = xlarun__json_str(j, v, buf, XLARUN__JS_MAX_NAME);
    if (n == XLARUN__NONE || memchr(buf, 0, n)) return 0;
    *len = n;
    return 1;
}

/* do the strings at a and b decode to the same text? (names past the limit compare by text) */
static int xlarun__js_same(const xlarun__json *j, size_t a, size_t b) {
    char x[XLARUN__JS_MAX_NAME], y[XLARUN__JS_MAX_NAME];
    size_t nx = xlarun__json_str(j, a, x, sizeof x), ny = xlarun__json_str(j, b, y, sizeof y);
    if (nx == XLARUN__NONE || ny == XLARUN__NONE) {
        size_t ea = xlarun__json_skip(j, a), eb = xlarun__json_skip(j, b);
        return ea - a == eb - b && !memcmp(j->s + a, j->s + b, ea - a);
    }
    return nx == ny && !memcmp(x, y, nx);
}

/* reads the keywords of the object schema at v into kw (NONE where absent; a repeated key: the
   last, as Python's json); refuses those it does not know */
static xlarun_status xlarun__js_keywords(xlarun__js *g, size_t v, size_t *kw) {
    size_t it = v, k, val, i;
    for (i = 0; i < XLARUN__K_COUNT; i++) kw[i] = XLARUN__NONE;
    while (xlarun__json_next(&g->j, &it, &k, &val)) {
        int known = 0;
        for (i = 0; i < XLARUN__K_COUNT && !known; i++)
            if (xlarun__json_eq(&g->j, k, xlarun__js_kw_names[i])) { kw[i] = val; known = 1; }
        for (i = 0; i < sizeof xlarun__js_ignored / sizeof xlarun__js_ignored[0] && !known; i++)
            if (xlarun__json_eq(&g->j, k, xlarun__js_ignored[i])) known = 1;
        if (!known && xlarun__json_eq(&g->j, k, "$id") && v == g->ref[0]) known = 1;
        if (!known) {
            char name[80];
            xlarun__js_show(&g->j, k, name, sizeof name);
            return xlarun__js_fail(g, "\"%s\" is not supported", name);
        }
    }
    return XLARUN_OK;
}

/* a count keyword: a non-negative integer up to XLARUN__JS_MAX_COUNT */
static xlarun_status xlarun__js_count(xlarun__js *g, const size_t *kw, int which, uint64_t *out) {
    if (kw[which] == XLARUN__NONE) return XLARUN_OK;
    if (!xlarun__json_uint(&g->j, kw[which], UINT64_MAX, out))
        return xlarun__js_fail(g, "\"%s\" must be a non-negative integer", xlarun__js_kw_names[which]);
    if (*out > XLARUN__JS_MAX_COUNT)
        return xlarun__js_fail(g, "\"%s\" %llu is over the limit %d", xlarun__js_kw_names[which],
                               XLARUN__CAST(unsigned long long, *out), XLARUN__JS_MAX_COUNT);
    return XLARUN_OK;
}

/* ---- integers ---- */
static int xlarun__js_int_cmp(xlarun__js_int a, xlarun__js_int b) {
    if (a.neg != b.neg) return a.neg ? -1 : 1;
    if (a.mag == b.mag) return 0;
    return (a.mag < b.mag) != a.neg ? -1 : 1;
}
/* a + 1 or a - 1; 0 on overflow */
static int xlarun__js_int_step(xlarun__js_int *a, int up) {
    if (a->neg == up) { /* towards zero */
        a->mag--;
        if (a->mag == 0) a->neg = 0;
        return 1;
    }
    if (a->mag == UINT64_MAX) return 0;
    if (a->mag == 0) a->neg = !up;
    a->mag++;
    return 1;
}
/* The number at v rounded to an integer: up (ceil) or down (floor). 0 when it has an exponent or
   its integer part is past 64 bits. */
static int xlarun__js_int_read(const xlarun__json *j, size_t v, int up, xlarun__js_int *out) {
    const char *s = j->s;
    size_t i = v;
    uint64_t m = 0;
    int frac = 0;
    out->neg = s[i] == '-';
    if (out->neg) i++;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        uint64_t d = XLARUN__CAST(uint64_t, s[i] - '0');
        if (m > (UINT64_MAX - d) / 10) return 0;
        m = m * 10 + d;
    }
    if (s[i] == '.')
        for (i++; s[i] >= '0' && s[i] <= '9'; i++) frac |= s[i] != '0';
    if (s[i] == 'e' || s[i] == 'E') return 0;
    /* x = +-(m + f), 0 < f < 1 when frac: ceil(m + f) = m + 1, floor(-(m + f)) = -(m + 1) */
    if (frac && out->neg != (up != 0)) {
        if (m == UINT64_MAX) return 0;
        m++;
    }
    out->mag = m;
    if (m == 0) out->neg = 0;
    return 1;
}

/* decimal strings of length L (no leading zeros past the first digit: a[0] >= '1' when L > 1)
   from a to b, both of length L, a <= b */
static void xlarun__js_digits(xlarun__js *g, const char *a, const char *b, size_t L) {
    char nines[24], zeros[24], cls[8];
    size_t k;
    int alts = 0, all0 = 1, all9 = 1;
    char lo, hi;
    if (L == 0) return;
    if (a[0] == b[0]) {
        xlarun__js_put(g, "\"", 1);
        xlarun__js_put(g, a, 1);
        xlarun__js_put(g, "\"", 1);
        if (L > 1) { xlarun__js_s(g, " "); xlarun__js_digits(g, a + 1, b + 1, L - 1); }
        return;
    }
    for (k = 1; k < L; k++) { all0 &= a[k] == '0'; all9 &= b[k] == '9'; nines[k] = '9'; zeros[k] = '0'; }
    lo = a[0];
    hi = b[0];
    xlarun__js_s(g, "(");
    if (!all0) { /* a[0] followed by a[1..] up to 9..9 */
        xlarun__js_put(g, "\"", 1);
        xlarun__js_put(g, a, 1);
        xlarun__js_s(g, "\" ");
        xlarun__js_digits(g, a + 1, nines + 1, L - 1);
        alts++;
        lo++;
    }
    if (!all9) hi--;
    if (lo <= hi) { /* a full middle: [lo-hi] then any L - 1 digits */
        if (alts++) xlarun__js_s(g, " | ");
        cls[0] = '[';
        cls[1] = lo;
        cls[2] = '-';
        cls[3] = hi;
        cls[4] = ']';
        xlarun__js_put(g, cls, lo == hi ? 0 : 5);
        if (lo == hi) { xlarun__js_put(g, "\"", 1); xlarun__js_put(g, &lo, 1); xlarun__js_put(g, "\"", 1); }
        if (L > 1) { xlarun__js_s(g, " [0-9]"); xlarun__js_rep(g, L - 1, L - 1); }
    }
    if (!all9) { /* b[0] followed by 0..0 up to b[1..] */
        if (alts++) xlarun__js_s(g, " | ");
        xlarun__js_put(g, "\"", 1);
        xlarun__js_put(g, b, 1);
        xlarun__js_s(g, "\" ");
        xlarun__js_digits(g, zeros + 1, b + 1, L - 1);
    }
    xlarun__js_s(g, ")");
}

/* decimal magnitudes from lo to hi (inf: no upper bound) */
static void xlarun__js_mags(xlarun__js *g, uint64_t lo, uint64_t hi, int inf) {
    char ls[24], hs[24], a[24], b[24];
    size_t nl, nh, L;
    int alts = 0;
    nl = XLARUN__CAST(size_t, snprintf(ls, sizeof ls, "%llu", XLARUN__CAST(unsigned long long, lo)));
    nh = XLARUN__CAST(size_t, snprintf(hs, sizeof hs, "%llu", XLARUN__CAST(unsigned long long, hi)));
    if (inf) nh = nl;
    xlarun__js_s(g, "(");
    for (L = nl; L <= nh; L++) {
        memset(a, '0', L);
        memset(b, '9', L);
        a[0] = '1';
        if (L == nl) memcpy(a, ls, L);
        if (!inf && L == nh) memcpy(b, hs, L);
        if (alts++) xlarun__js_s(g, " | ");
        xlarun__js_digits(g, a, b, L);
    }
    if (inf) { /* every longer number */
        xlarun__js_s(g, " | [1-9] [0-9]");
        xlarun__js_rep(g, nl, UINT64_MAX);
    }
    xlarun__js_s(g, ")");
}

/* integers from lo to hi; lo_inf, hi_inf: no bound on that side */
static void xlarun__js_int_range(xlarun__js *g, xlarun__js_int lo, int lo_inf, xlarun__js_int hi,
                                 int hi_inf) {
    int neg = lo_inf || lo.neg, pos = hi_inf || !hi.neg;
    if (lo_inf && hi_inf) { xlarun__js_s(g, "integer"); g->used |= XLARUN__JS_INTEGER; return; }
    xlarun__js_s(g, "(");
    if (neg) { /* magnitudes from |hi| (or 1) to |lo| */
        xlarun__js_s(g, "\"-\" ");
        xlarun__js_mags(g, !hi_inf && hi.neg ? hi.mag : 1, lo_inf ? 0 : lo.mag, lo_inf);
    }
    if (pos) {
        if (neg) xlarun__js_s(g, " | ");
        xlarun__js_mags(g, !lo_inf && !lo.neg ? lo.mag : 0, hi_inf ? 0 : hi.mag, hi_inf);
    }
    xlarun__js_s(g, ")");
}

/* ---- $ref ---- */
static int xlarun__js_hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
/* The node a $ref string at r points to: "#" (the root) or a JSON pointer made of /$defs/NAME and
   /definitions/NAME steps (~0 ~1 and %XX decoded). */
static xlarun_status xlarun__js_resolve(xlarun__js *g, size_t r, size_t *node) {
    char p[XLARUN__JS_MAX_NAME], seg[XLARUN__JS_MAX_NAME], show[160];
    size_t n, i = 1, cur = g->ref[0];
    int step = 0;
    if (!xlarun__js_is(&g->j, r, '"')) return xlarun__js_fail(g, "\"$ref\" must be a string");
    xlarun__js_show(&g->j, r, show, sizeof show);
    if (!xlarun__js_str(&g->j, r, p, &n) || n == 0 || p[0] != '#')
        return xlarun__js_fail(g, "\"$ref\" \"%s\" does not resolve: only references inside the "
                               "document (#...) are supported", show);
    if (n > 1 && p[1] != '/') return xlarun__js_fail(g, "\"$ref\" \"%s\" does not resolve", show);
    while (i < n) {
        size_t k = 0, box;
        i++; /* the '/' */
        while (i < n && p[i] != '/') {
            char c = p[i++];
            unsigned h = 0;
            if (c == '~' && i < n && (p[i] == '0' || p[i] == '1')) c = p[i++] == '0' ? '~' : '/';
            else if (c == '%' && i + 1 < n && xlarun__js_hexval(p[i]) >= 0 && xlarun__js_hexval(p[i + 1]) >= 0) {
                h = XLARUN__CAST(unsigned, xlarun__js_hexval(p[i]) * 16 + xlarun__js_hexval(p[i + 1]));
                c = XLARUN__CAST(char, h);
                i += 2;
                if (h == 0) return xlarun__js_fail(g, "\"$ref\" \"%s\" does not resolve", show);
            }
            seg[k++] = c;
        }
        seg[k] = 0;
        if (step == 0) {
            if (strcmp(seg, "$defs") && strcmp(seg, "definitions"))
                return xlarun__js_fail(g, "\"$ref\" \"%s\" is not supported: only #, #/$defs/NAME "
                                       "and #/definitions/NAME", show);
            box = xlarun__json_get(&g->j, cur, seg);
            if (!xlarun__js_is(&g->j, box, '{'))
                return xlarun__js_fail(g, "\"$ref\" \"%s\" does not resolve", show);
            cur = box;
        } else {
            cur = xlarun__json_get(&g->j, cur, seg);
            if (cur == XLARUN__NONE) return xlarun__js_fail(g, "\"$ref\" \"%s\" does not resolve", show);
        }
        step ^= 1;
    }
    if (step) return xlarun__js_fail(g, "\"$ref\" \"%s\" does not resolve", show);
    *node = cur;
    return XLARUN_OK;
}

/* Does node lead back to target without reading a byte (through $ref, allOf, anyOf, oneOf)? Such
   a cycle is left recursion: refused. Any cycle goes through a $ref target, and each target is
   checked once, when it is first named. */
static xlarun_status xlarun__js_lead(xlarun__js *g, size_t node, size_t target, int depth) {
    static const char *const via[3] = {"allOf", "anyOf", "oneOf"};
    size_t r, t, it, e, k;
    int i;
    if (!xlarun__js_is(&g->j, node, '{')) return XLARUN_OK;
    if (++g->lead_steps > XLARUN__JS_MAX_LEAD || depth > 64)
        return xlarun__js_fail(g, "the $ref, allOf, anyOf and oneOf nest too deep to check for a "
                               "cycle");
    r = xlarun__json_get(&g->j, node, "$ref");
    if (r != XLARUN__NONE && xlarun__js_is(&g->j, r, '"')) {
        size_t saved = g->plen;
        xlarun_error *err = g->err;
        xlarun_status st;
        g->err = NULL; /* a $ref that does not resolve is refused where its rule is written */
        st = xlarun__js_resolve(g, r, &t);
        g->err = err;
        xlarun__js_pop(g, saved);
        if (st == XLARUN_OK) {
            if (t == target)
                return xlarun__js_fail(g, "\"$ref\" cycle that reads no text (left recursion)");
            XLARUN__TRY(xlarun__js_lead(g, t, target, depth + 1));
        }
    }
    for (i = 0; i < 3; i++) {
        it = xlarun__json_get(&g->j, node, via[i]);
        if (!xlarun__js_is(&g->j, it, '[')) continue;
        while (xlarun__json_next(&g->j, &it, &k, &e)) {
            XLARUN__TRY(xlarun__js_lead(g, e, target, depth + 1));
            if (i == 0) break; /* allOf: only its first schema counts (one is supported) */
        }
    }
    return XLARUN_OK;
}

/* the rule name of the $ref at r, its target added to the table on first sight */
static xlarun_status xlarun__js_ref(xlarun__js *g, size_t r, size_t *target) {
    size_t i, t;
    XLARUN__TRY(xlarun__js_resolve(g, r, &t));
    *target = t;
    g->lead_steps = 0; /* the budget is per target */
    for (i = 0; i < g->n_ref; i++)
        if (g->ref[i] == t) return i == 0 && g->ref_src[0] == XLARUN__NONE
                                   ? (g->ref_src[0] = r, xlarun__js_lead(g, t, t, 0))
                                   : XLARUN_OK;
    if (g->n_ref == XLARUN__JS_MAX_REFS)
        return xlarun__js_fail(g, "more than %d distinct \"$ref\" targets", XLARUN__JS_MAX_REFS);
    g->ref[g->n_ref] = t;
    g->ref_src[g->n_ref++] = r;
    return xlarun__js_lead(g, t, t, 0);
}

/* ---- schemas ---- */
/* the types named by a "type" value (a name or a list of names) */
static xlarun_status xlarun__js_types(xlarun__js *g, size_t v, unsigned *types) {
    static const char *const names[7] = {"null", "boolean", "integer", "number", "string", "array", "object"};
    size_t it = v, k, e = v;
    int i, list = xlarun__js_is(&g->j, v, '[');
    *types = 0;
    while (list ? xlarun__json_next(&g->j, &it, &k, &e) : it != XLARUN__NONE) {
        char show[80];
        it = list ? it : XLARUN__NONE;
        if (!xlarun__js_is(&g->j, e, '"')) return xlarun__js_fail(g, "\"type\" must be a string or a list of strings");
        for (i = 0; i < 7; i++)
            if (xlarun__json_eq(&g->j, e, names[i])) break;
        xlarun__js_show(&g->j, e, show, sizeof show);
        if (i == 7) return xlarun__js_fail(g, "\"type\" \"%s\" is not a JSON Schema type", show);
        *types |= 1u << i;
    }
    if (!*types) return xlarun__js_fail(g, "\"type\" is an empty list");
    return XLARUN_OK;
}

/* a property counts unless its schema is false or a later key repeats its name (the last wins,
   as in Python's json); it: the iterator just past it */
static int xlarun__js_live(const xlarun__json *j, size_t it, size_t key, size_t val) {
    size_t k, v;
    if (xlarun__js_is(j, val, 'f')) return 0;
    while (xlarun__json_next(j, &it, &k, &v))
        if (xlarun__js_same(j, k, key)) return 0;
    return 1;
}
static int xlarun__js_in(const xlarun__json *j, size_t arr, size_t key) {
    size_t it = arr, k, e;
    if (arr == XLARUN__NONE) return 0;
    while (xlarun__json_next(j, &it, &k, &e))
        if (xlarun__js_same(j, e, key)) return 1;
    return 0;
}

static void xlarun__js_kv(xlarun__js *g, size_t key, size_t val) {
    xlarun__js_value_lit(g, key, g->spaced ? ": " : ":");
    xlarun__js_s(g, " ");
    xlarun__js_name(g, val);
}
/* a key/value pair past the declared properties: any key; extra: its schema (NONE or true: any) */
static void xlarun__js_kv_extra(xlarun__js *g, size_t extra) {
    xlarun__js_s(g, g->spaced ? "string \": \" " : "string \":\" ");
    g->used |= XLARUN__JS_STRING;
    if (extra == XLARUN__NONE) { xlarun__js_s(g, "value"); g->used |= XLARUN__JS_VALUE; }
    else xlarun__js_name(g, extra);
}
/* the properties from iterator it on, after one was written: each with its comma, optional ones
   optional, then any number of extra pairs when allowed */
static void xlarun__js_obj_rest(xlarun__js *g, size_t it, size_t req, int extras, size_t extra) {
    size_t k, v;
    while (xlarun__json_next(&g->j, &it, &k, &v)) {
        int opt;
        if (!xlarun__js_live(&g->j, it, k, v)) continue;
        opt = !xlarun__js_in(&g->j, req, k);
        xlarun__js_s(g, opt ? " (" : " ");
        xlarun__js_comma(g);
        xlarun__js_kv(g, k, v);
        if (opt) xlarun__js_s(g, ")?");
    }
    if (extras) {
        xlarun__js_s(g, " (");
        xlarun__js_comma(g);
        xlarun__js_kv_extra(g, extra);
        xlarun__js_s(g, ")*");
    }
}

static xlarun_status xlarun__js_node(xlarun__js *g, size_t v);

/* an object: the declared properties in the schema's order, the required ones always and any
   subset of the optional ones, then extra pairs where additionalProperties allows them */
static xlarun_status xlarun__js_object(xlarun__js *g, const size_t *kw) {
    size_t props = kw[XLARUN__K_PROPS], req = kw[XLARUN__K_REQ], addl = kw[XLARUN__K_ADDL];
    size_t it, k, v, extra = XLARUN__NONE;
    int extras, alts = 0, closed = 0, live = 0;
    if (props != XLARUN__NONE && !xlarun__js_is(&g->j, props, '{'))
        return xlarun__js_fail(g, "\"properties\" must be an object");
    if (addl != XLARUN__NONE && !xlarun__js_is(&g->j, addl, 't') && !xlarun__js_is(&g->j, addl, 'f') &&
        !xlarun__js_is(&g->j, addl, '{'))
        return xlarun__js_fail(g, "\"additionalProperties\" must be a boolean or a schema");
    /* absent: extra pairs only where no properties are declared (documented: stricter) */
    extras = addl == XLARUN__NONE ? props == XLARUN__NONE : !xlarun__js_is(&g->j, addl, 'f');
    if (extras && xlarun__js_is(&g->j, addl, '{')) extra = addl;
    if (req != XLARUN__NONE) {
        if (!xlarun__js_is(&g->j, req, '[')) return xlarun__js_fail(g, "\"required\" must be a list of strings");
        it = req;
        while (xlarun__json_next(&g->j, &it, &k, &v)) {
            size_t pi = props, pk, pv;
            int found = 0;
            char show[80];
            if (!xlarun__js_is(&g->j, v, '"')) return xlarun__js_fail(g, "\"required\" must be a list of strings");
            while (props != XLARUN__NONE && xlarun__json_next(&g->j, &pi, &pk, &pv))
                if (xlarun__js_same(&g->j, pk, v) && xlarun__js_live(&g->j, pi, pk, pv)) found = 1;
            xlarun__js_show(&g->j, v, show, sizeof show);
            if (!found)
                return xlarun__js_fail(g, "\"required\" names \"%s\", which \"properties\" does not "
                                       "allow (a required name must be declared there)", show);
        }
    }
    it = props;
    while (props != XLARUN__NONE && xlarun__json_next(&g->j, &it, &k, &v)) live += xlarun__js_live(&g->j, it, k, v);
    xlarun__js_s(g, "\"{\" ");
    if (live || extras) {
        xlarun__js_s(g, "(");
        it = props;
        while (props != XLARUN__NONE && xlarun__json_next(&g->j, &it, &k, &v)) {
            if (!xlarun__js_live(&g->j, it, k, v)) continue;
            if (alts++) xlarun__js_s(g, " | ");
            xlarun__js_kv(g, k, v);
            xlarun__js_obj_rest(g, it, req, extras, extra);
            if (xlarun__js_in(&g->j, req, k)) { closed = 1; break; }
        }
        if (!closed && extras) {
            if (alts++) xlarun__js_s(g, " | ");
            xlarun__js_kv_extra(g, extra);
            xlarun__js_s(g, " (");
            xlarun__js_comma(g);
            xlarun__js_kv_extra(g, extra);
            xlarun__js_s(g, ")*");
        }
        xlarun__js_s(g, closed ? ") " : ")? ");
    }
    xlarun__js_s(g, "\"}\"");
    return XLARUN_OK;
}
static xlarun_status xlarun__js_object_children(xlarun__js *g, const size_t *kw) {
    size_t props = kw[XLARUN__K_PROPS], addl = kw[XLARUN__K_ADDL], it = props, k, v, old;
    if (props != XLARUN__NONE) {
        old = xlarun__js_push(g, "properties", XLARUN__NONE, 0);
        while (xlarun__json_next(&g->j, &it, &k, &v)) {
            size_t o2;
            if (!xlarun__js_live(&g->j, it, k, v)) continue;
            o2 = xlarun__js_push(g, NULL, k, 0);
            XLARUN__TRY(xlarun__js_node(g, v));
            xlarun__js_pop(g, o2);
        }
        xlarun__js_pop(g, old);
    }
    if (xlarun__js_is(&g->j, addl, '{')) {
        old = xlarun__js_push(g, "additionalProperties", XLARUN__NONE, 0);
        XLARUN__TRY(xlarun__js_node(g, addl));
        xlarun__js_pop(g, old);
    }
    return XLARUN_OK;
}

/* an array: prefixItems in place, then items, minItems to maxItems in all */
static xlarun_status xlarun__js_array(xlarun__js *g, const size_t *kw) {
    size_t items = kw[XLARUN__K_ITEMS], prefix = kw[XLARUN__K_PREFIX], it, k, v;
    uint64_t lo = 0, hi = UINT64_MAX, np = 0, i, opened = 0;
    int tail;
    XLARUN__TRY(xlarun__js_count(g, kw, XLARUN__K_MIN_ITEMS, &lo));
    XLARUN__TRY(xlarun__js_count(g, kw, XLARUN__K_MAX_ITEMS, &hi));
    if (lo > hi) return xlarun__js_fail(g, "\"minItems\" is more than \"maxItems\"");
    if (xlarun__js_is(&g->j, items, '['))
        return xlarun__js_fail(g, "\"items\" as a list is not supported (use \"prefixItems\")");
    if (items != XLARUN__NONE && !xlarun__js_is(&g->j, items, '{') && !xlarun__js_is(&g->j, items, 't') &&
        !xlarun__js_is(&g->j, items, 'f'))
        return xlarun__js_fail(g, "\"items\" must be a schema");
    if (prefix != XLARUN__NONE) {
        if (!xlarun__js_is(&g->j, prefix, '[')) return xlarun__js_fail(g, "\"prefixItems\" must be a list of schemas");
        it = prefix;
        while (xlarun__json_next(&g->j, &it, &k, &v)) {
            if (xlarun__js_is(&g->j, v, 'f')) { if (hi > np) hi = np; break; } /* no item here */
            np++;
        }
    }
    /* items absent: any values where no prefixItems are given, none past them where they are */
    tail = items == XLARUN__NONE ? prefix == XLARUN__NONE : !xlarun__js_is(&g->j, items, 'f');
    if (!tail && hi > np) hi = np;
    if (lo > hi) return xlarun__js_fail(g, "\"minItems\" is more than the items the schema allows");
    xlarun__js_s(g, "\"[\" ");
    it = prefix;
    for (i = 0; i < np && i < hi; i++) {
        xlarun__json_next(&g->j, &it, &k, &v);
        if (i >= lo) { xlarun__js_s(g, "("); opened++; }
        if (i) xlarun__js_comma(g);
        xlarun__js_name(g, v);
        xlarun__js_s(g, " ");
    }
    if (tail && hi > np) {
        uint64_t a = lo > np ? lo - np : 0, b = hi == UINT64_MAX ? hi : hi - np;
        const char *item = "value";
        if (items == XLARUN__NONE || xlarun__js_is(&g->j, items, 't')) g->used |= XLARUN__JS_VALUE;
        if (np == 0) { /* the first item has no comma */
            if (a == 0) xlarun__js_s(g, "(");
            if (items == XLARUN__NONE || xlarun__js_is(&g->j, items, 't')) xlarun__js_s(g, item);
            else xlarun__js_name(g, items);
            if (b > 1) {
                xlarun__js_s(g, " (");
                xlarun__js_comma(g);
                if (items == XLARUN__NONE || xlarun__js_is(&g->j, items, 't')) xlarun__js_s(g, item);
                else xlarun__js_name(g, items);
                xlarun__js_s(g, ")");
                xlarun__js_rep(g, a ? a - 1 : 0, b == UINT64_MAX ? b : b - 1);
            }
            xlarun__js_s(g, a == 0 ? ")? " : " ");
        } else {
            xlarun__js_s(g, "(");
            xlarun__js_comma(g);
            if (items == XLARUN__NONE || xlarun__js_is(&g->j, items, 't')) xlarun__js_s(g, item);
            else xlarun__js_name(g, items);
            xlarun__js_s(g, ")");
            xlarun__js_rep(g, a, b);
            xlarun__js_s(g, " ");
        }
    }
    for (i = 0; i < opened; i++) xlarun__js_s(g, ")? ");
    xlarun__js_s(g, "\"]\"");
    return XLARUN_OK;
}
static xlarun_status xlarun__js_array_children(xlarun__js *g, const size_t *kw) {
    size_t items = kw[XLARUN__K_ITEMS], prefix = kw[XLARUN__K_PREFIX], it = prefix, k, v, old, i = 0;
    if (prefix != XLARUN__NONE) {
        old = xlarun__js_push(g, "prefixItems", XLARUN__NONE, 0);
        while (xlarun__json_next(&g->j, &it, &k, &v)) {
            size_t o2;
            if (xlarun__js_is(&g->j, v, 'f')) break;
            o2 = xlarun__js_push(g, NULL, XLARUN__NONE, i++);
            XLARUN__TRY(xlarun__js_node(g, v));
            xlarun__js_pop(g, o2);
        }
        xlarun__js_pop(g, old);
    }
    if (xlarun__js_is(&g->j, items, '{')) {
        old = xlarun__js_push(g, "items", XLARUN__NONE, 0);
        XLARUN__TRY(xlarun__js_node(g, items));
        xlarun__js_pop(g, old);
    }
    return XLARUN_OK;
}

/* the integer bounds of kw: minimum, maximum, exclusiveMinimum, exclusiveMaximum */
static xlarun_status xlarun__js_bounds(xlarun__js *g, const size_t *kw, xlarun__js_int *lo, int *lo_inf,
                                       xlarun__js_int *hi, int *hi_inf) {
    int w;
    *lo_inf = *hi_inf = 1;
    for (w = XLARUN__K_MIN; w <= XLARUN__K_XMAX; w++) {
        size_t v = kw[w];
        int lower = w == XLARUN__K_MIN || w == XLARUN__K_XMIN, excl = w >= XLARUN__K_XMIN;
        xlarun__js_int b;
        if (v == XLARUN__NONE) continue;
        if (!xlarun__json_is_number(&g->j, v))
            return xlarun__js_fail(g, "\"%s\" must be a number", xlarun__js_kw_names[w]);
        /* lower: ceil(x), or floor(x) + 1 when exclusive; upper: floor(x), or ceil(x) - 1 */
        if (!xlarun__js_int_read(&g->j, v, lower != excl, &b) || (excl && !xlarun__js_int_step(&b, lower)))
            return xlarun__js_fail(g, "\"%s\" must be a number without an exponent, within 64 bits",
                                   xlarun__js_kw_names[w]);
        if (lower && (*lo_inf || xlarun__js_int_cmp(b, *lo) > 0)) { *lo = b; *lo_inf = 0; }
        if (!lower && (*hi_inf || xlarun__js_int_cmp(b, *hi) < 0)) { *hi = b; *hi_inf = 0; }
    }
    if (!*lo_inf && !*hi_inf && xlarun__js_int_cmp(*lo, *hi) > 0)
        return xlarun__js_fail(g, "no integer lies between the lower and the upper bound");
    return XLARUN_OK;
}

/* the rule of the schema at v, then the rules of the schemas inside it */
static xlarun_status xlarun__js_node(xlarun__js *g, size_t v) {
    size_t kw[XLARUN__K_COUNT], it, k, e;
    unsigned types = 0;
    int i, alts = 0, only = -1;
    if (xlarun__js_is(&g->j, v, 't')) {
        xlarun__js_name(g, v);
        xlarun__js_s(g, " ::= value\n");
        g->used |= XLARUN__JS_VALUE;
        return XLARUN_OK;
    }
    if (xlarun__js_is(&g->j, v, 'f')) return xlarun__js_fail(g, "the schema false allows no value");
    if (!xlarun__js_is(&g->j, v, '{')) return xlarun__js_fail(g, "a schema must be an object or a boolean");
    XLARUN__TRY(xlarun__js_keywords(g, v, kw));
    /* $ref, allOf, anyOf, oneOf, enum and const stand alone ("type" may go with enum and const) */
    for (i = XLARUN__K_REF; i >= 0; i--) {
        int alone = i == XLARUN__K_REF || i == XLARUN__K_ALL || i == XLARUN__K_ANY || i == XLARUN__K_ONE ||
                    i == XLARUN__K_ENUM || i == XLARUN__K_CONST;
        if (kw[i] != XLARUN__NONE && alone) { only = i; break; }
    }
    if (only >= 0)
        for (i = 0; i < XLARUN__K_COUNT; i++)
            if (i != only && kw[i] != XLARUN__NONE &&
                !(i == XLARUN__K_TYPE && (only == XLARUN__K_ENUM || only == XLARUN__K_CONST)))
                return xlarun__js_fail(g, "\"%s\" beside \"%s\" is not supported", xlarun__js_kw_names[i],
                                       xlarun__js_kw_names[only]);
    if (kw[XLARUN__K_UNIQUE] != XLARUN__NONE && !xlarun__js_is(&g->j, kw[XLARUN__K_UNIQUE], 'f'))
        return xlarun__js_fail(g, "\"uniqueItems\" is supported only as false");
    if (kw[XLARUN__K_TYPE] != XLARUN__NONE) XLARUN__TRY(xlarun__js_types(g, kw[XLARUN__K_TYPE], &types));
    xlarun__js_name(g, v);
    xlarun__js_s(g, " ::= ");
    switch (only) {
    case XLARUN__K_REF: {
        size_t t;
        XLARUN__TRY(xlarun__js_ref(g, kw[XLARUN__K_REF], &t));
        xlarun__js_name(g, t);
        xlarun__js_s(g, "\n");
        return XLARUN_OK;
    }
    case XLARUN__K_ALL: case XLARUN__K_ANY: case XLARUN__K_ONE: {
        size_t old, n = 0;
        it = kw[only];
        if (!xlarun__js_is(&g->j, it, '['))
            return xlarun__js_fail(g, "\"%s\" must be a list of schemas", xlarun__js_kw_names[only]);
        while (xlarun__json_next(&g->j, &it, &k, &e)) {
            n++;
            if (xlarun__js_is(&g->j, e, 'f')) {
                if (only == XLARUN__K_ALL) return xlarun__js_fail(g, "\"allOf\" holds the schema false");
                continue;
            }
            if (alts++) xlarun__js_s(g, " | ");
            xlarun__js_name(g, e);
        }
        if (only == XLARUN__K_ALL && n != 1)
            return xlarun__js_fail(g, "\"allOf\" with %lu schemas is not supported (only one)",
                                   XLARUN__CAST(unsigned long, n));
        if (!alts) return xlarun__js_fail(g, "\"%s\" allows no value", xlarun__js_kw_names[only]);
        xlarun__js_s(g, "\n");
        old = xlarun__js_push(g, xlarun__js_kw_names[only], XLARUN__NONE, 0);
        it = kw[only];
        n = 0;
        while (xlarun__json_next(&g->j, &it, &k, &e)) {
            size_t o2 = xlarun__js_push(g, NULL, XLARUN__NONE, n++);
            if (!xlarun__js_is(&g->j, e, 'f')) XLARUN__TRY(xlarun__js_node(g, e));
            xlarun__js_pop(g, o2);
        }
        xlarun__js_pop(g, old);
        return XLARUN_OK;
    }
    case XLARUN__K_ENUM: case XLARUN__K_CONST: {
        static const char kinds[] = "n\0tf\0-0123456789\0\"\0[\0{"; /* first bytes per type */
        size_t tk;
        it = kw[only];
        if (only == XLARUN__K_ENUM && !xlarun__js_is(&g->j, it, '['))
            return xlarun__js_fail(g, "\"enum\" must be a list");
        xlarun__js_s(g, "(");
        for (;;) {
            unsigned t = 0;
            if (only == XLARUN__K_ENUM) { if (!xlarun__json_next(&g->j, &it, &k, &e)) break; }
            else { if (it == XLARUN__NONE) break; e = it; it = XLARUN__NONE; }
            if (types) { /* only the values of the types allowed */
                const char *p = kinds;
                for (tk = 0; tk < 6 && !t; tk++, p += strlen(p) + 1)
                    if (strchr(p, g->j.s[e]) && g->j.s[e]) t = 1u << (tk + (tk >= 2));
                if (t == XLARUN__JT_NUM) { /* an integer when it has no fraction or exponent */
                    size_t end = xlarun__json_skip(&g->j, e), q;
                    int integral = 1;
                    for (q = e; q < end; q++) integral &= g->j.s[q] != '.' && g->j.s[q] != 'e' && g->j.s[q] != 'E';
                    if (integral) t |= XLARUN__JT_INT;
                }
                if (!(t & types)) continue;
            }
            if (alts++) xlarun__js_s(g, " | ");
            xlarun__js_value_lit(g, e, "");
        }
        if (!alts) return xlarun__js_fail(g, "\"%s\" allows no value", xlarun__js_kw_names[only]);
        xlarun__js_s(g, ")\n");
        return XLARUN_OK;
    }
    default: break;
    }
    if (!types) { /* no "type": the types that its keywords constrain, or any value */
        for (i = XLARUN__K_PROPS; i <= XLARUN__K_ADDL; i++) if (kw[i] != XLARUN__NONE) types |= XLARUN__JT_OBJ;
        for (i = XLARUN__K_ITEMS; i <= XLARUN__K_UNIQUE; i++) if (kw[i] != XLARUN__NONE) types |= XLARUN__JT_ARR;
        for (i = XLARUN__K_MIN_LEN; i <= XLARUN__K_MAX_LEN; i++) if (kw[i] != XLARUN__NONE) types |= XLARUN__JT_STR;
        for (i = XLARUN__K_MIN; i <= XLARUN__K_XMAX; i++) if (kw[i] != XLARUN__NONE) types |= XLARUN__JT_INT;
        if (!types) {
            xlarun__js_s(g, "value\n");
            g->used |= XLARUN__JS_VALUE;
            return XLARUN_OK;
        }
    }
    if (types & XLARUN__JT_NUM) types &= ~XLARUN__CAST(unsigned, XLARUN__JT_INT);
    if (types & XLARUN__JT_NUM)
        for (i = XLARUN__K_MIN; i <= XLARUN__K_XMAX; i++)
            if (kw[i] != XLARUN__NONE)
                return xlarun__js_fail(g, "\"%s\" is supported for \"integer\" only, not \"number\"",
                                       xlarun__js_kw_names[i]);
    xlarun__js_s(g, "(");
    if (types & XLARUN__JT_NULL) { xlarun__js_s(g, alts++ ? " | " : ""); xlarun__js_s(g, "\"null\""); }
    if (types & XLARUN__JT_BOOL) { xlarun__js_s(g, alts++ ? " | " : ""); xlarun__js_s(g, "\"true\" | \"false\""); }
    if (types & XLARUN__JT_INT) {
        xlarun__js_int lo, hi;
        int lo_inf, hi_inf;
        lo.neg = hi.neg = 0;
        lo.mag = hi.mag = 0;
        XLARUN__TRY(xlarun__js_bounds(g, kw, &lo, &lo_inf, &hi, &hi_inf));
        xlarun__js_s(g, alts++ ? " | " : "");
        xlarun__js_int_range(g, lo, lo_inf, hi, hi_inf);
    }
    if (types & XLARUN__JT_NUM) { xlarun__js_s(g, alts++ ? " | " : ""); xlarun__js_s(g, "number"); g->used |= XLARUN__JS_NUMBER; }
    if (types & XLARUN__JT_STR) {
        uint64_t lo = 0, hi = UINT64_MAX;
        XLARUN__TRY(xlarun__js_count(g, kw, XLARUN__K_MIN_LEN, &lo));
        XLARUN__TRY(xlarun__js_count(g, kw, XLARUN__K_MAX_LEN, &hi));
        if (lo > hi) return xlarun__js_fail(g, "\"minLength\" is more than \"maxLength\"");
        xlarun__js_s(g, alts++ ? " | " : "");
        if (lo == 0 && hi == UINT64_MAX) { xlarun__js_s(g, "string"); g->used |= XLARUN__JS_STRING; }
        else if (hi == 0) xlarun__js_s(g, "\"\\\"\\\"\"");
        else {
            xlarun__js_s(g, "\"\\\"\" char");
            xlarun__js_rep(g, lo, hi);
            xlarun__js_s(g, " \"\\\"\"");
            g->used |= XLARUN__JS_CHAR;
        }
    }
    if (types & XLARUN__JT_ARR) { xlarun__js_s(g, alts++ ? " | " : ""); XLARUN__TRY(xlarun__js_array(g, kw)); }
    if (types & XLARUN__JT_OBJ) { xlarun__js_s(g, alts++ ? " | " : ""); XLARUN__TRY(xlarun__js_object(g, kw)); }
    xlarun__js_s(g, ")\n");
    if (types & XLARUN__JT_ARR) XLARUN__TRY(xlarun__js_array_children(g, kw));
    if (types & XLARUN__JT_OBJ) XLARUN__TRY(xlarun__js_object_children(g, kw));
    return XLARUN_OK;
}

/* the shared rules, in the order written; each with the rules it uses */
static const struct xlarun__js_shared_rule { unsigned bit, uses; const char *text; } xlarun__js_shared[] = {
    /* with ", " and ": " (spaced; the compact object and array follow) */
    {XLARUN__JS_OBJECT << 8, 0, "object ::= \"{\" (string \": \" value (\", \" string \": \" value)*)? \"}\"\n"},
    {XLARUN__JS_ARRAY << 8, 0, "array ::= \"[\" (value (\", \" value)*)? \"]\"\n"},
    {XLARUN__JS_VALUE, XLARUN__JS_OBJECT | XLARUN__JS_ARRAY | XLARUN__JS_STRING | XLARUN__JS_NUMBER,
     "value ::= object | array | string | number | \"true\" | \"false\" | \"null\"\n"},
    {XLARUN__JS_OBJECT, XLARUN__JS_STRING | XLARUN__JS_VALUE,
     "object ::= \"{\" (string \":\" value (\",\" string \":\" value)*)? \"}\"\n"},
    {XLARUN__JS_ARRAY, XLARUN__JS_VALUE, "array ::= \"[\" (value (\",\" value)*)? \"]\"\n"},
    {XLARUN__JS_STRING, XLARUN__JS_CHAR, "string ::= \"\\\"\" char* \"\\\"\"\n"},
    {XLARUN__JS_CHAR, XLARUN__JS_HEX,
     "char ::= [^\"\\\\\\x00-\\x1F] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" ([0-9a-cA-Ce-fE-F] hex hex hex"
     " | [dD] [0-7] hex hex | [dD] [89abAB] hex hex \"\\\\u\" [dD] [c-fC-F] hex hex))\n"},
    {XLARUN__JS_HEX, 0, "hex ::= [0-9a-fA-F]\n"},
    {XLARUN__JS_NUMBER, XLARUN__JS_INTEGER, "number ::= integer (\".\" [0-9]+)? ([eE] [-+]? [0-9]+)?\n"},
    {XLARUN__JS_INTEGER, 0, "integer ::= \"-\"? (\"0\" | [1-9] [0-9]*)\n"}};

/* the begin of a conversion: the text validated, the state set */
static xlarun_status xlarun__js_begin(xlarun__js *g, const char *schema, size_t schema_len, char *out, size_t cap,
                                      xlarun_error *err) {
    xlarun_status st = xlarun__json_validate(schema, schema_len, "JSON Schema", err);
    if (st != XLARUN_OK) {
        if (err) err->status = XLARUN_ERR_GRAMMAR;
        return XLARUN_ERR_GRAMMAR;
    }
    memset(g, 0, sizeof *g);
    g->j.s = schema;
    g->j.n = schema_len;
    g->out = out;
    g->cap = cap;
    g->err = err;
    return XLARUN_OK;
}

/* the rules of the schema document at node ("root", or s<node> with no_root), then those of its
   $ref targets, each once ($ref resolves against this document) */
static xlarun_status xlarun__js_document(xlarun__js *g, size_t node) {
    xlarun_status st;
    size_t r;
    g->ref[0] = node;
    g->ref_src[0] = XLARUN__NONE;
    g->n_ref = 1;
    strcpy(g->path, "#");
    g->plen = 1;
    st = xlarun__js_node(g, g->ref[0]);
    for (r = 1; st == XLARUN_OK && r < g->n_ref; r++) { /* the $ref targets, each once */
        xlarun__js_show(&g->j, g->ref_src[r], g->path, sizeof g->path);
        g->plen = strlen(g->path);
        st = xlarun__js_node(g, g->ref[r]);
    }
    return st;
}

/* the shared rules used, after the rules that use them */
static void xlarun__js_shared_rules(xlarun__js *g) {
    size_t i, n = sizeof xlarun__js_shared / sizeof xlarun__js_shared[0];
    unsigned both = XLARUN__JS_OBJECT | XLARUN__JS_ARRAY;
    unsigned before = 0;
    while (before != g->used) { /* to a fixed point: object and value use each other */
        before = g->used;
        for (i = 0; i < n; i++) if (g->used & xlarun__js_shared[i].bit) g->used |= xlarun__js_shared[i].uses;
    }
    if (g->spaced) g->used = (g->used & ~both) | (g->used & both) << 8;
    for (i = 0; i < n; i++) if (g->used & xlarun__js_shared[i].bit) xlarun__js_s(g, xlarun__js_shared[i].text);
}

/* the end: the NUL, or the size */
static xlarun_status xlarun__js_end(xlarun__js *g, const char *fn, size_t *len) {
    *len = g->n;
    if (!g->out) { xlarun__ok(g->err); return XLARUN_OK; }
    if (g->n >= g->cap)
        return xlarun__fail(g->err, XLARUN_ERR_MEMORY, "%s: the grammar needs %lu bytes and a NUL, the buffer holds %lu", fn,
                            XLARUN__CAST(unsigned long, g->n), XLARUN__CAST(unsigned long, g->cap));
    g->out[g->n] = 0;
    xlarun__ok(g->err);
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_json_schema_to_grammar(const char *schema, size_t schema_len,
                                                       char *out, size_t cap, size_t *len,
                                                       xlarun_error *err) {
    xlarun__js state;
    if (len) *len = 0;
    if (!schema || !len || (!out && cap))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_json_schema_to_grammar: %s is NULL",
                            !schema ? "schema" : !len ? "len" : "out (with cap > 0)");
    XLARUN__TRY(xlarun__js_begin(&state, schema, schema_len, out, cap, err));
    XLARUN__TRY(xlarun__js_document(&state, xlarun__json_ws(schema, schema_len, 0)));
    xlarun__js_shared_rules(&state);
    return xlarun__js_end(&state, "xlarun_json_schema_to_grammar", len);
}

/* ---- tool calls as a grammar ----------------------------------------------------------------
   One row per format: the markers that open calls, each with the rule of the calls that follow
   it, and the calls of one tool in up to two forms ("call" and "callx"): %N is the tool's name
   JSON-escaped, %n as it is, %A the rule of its arguments. The forms are the ones the family's
   chat templates write (tests/fixtures/toolcalls), the union where a family's models differ.
   Before a marker, free text: one rule per state of matching the markers (a state is the
   longest marker prefix that ends the text), so the text never holds a marker, and a character
   that completes one goes on to its calls. */
#define XLARUN__DS_CALL_BEGIN XLARUN__DS("tool" XLARUN__LOW8TH "call" XLARUN__LOW8TH "begin")
#define XLARUN__DS_CALL_END XLARUN__DS("tool" XLARUN__LOW8TH "call" XLARUN__LOW8TH "end")
#define XLARUN__DS_CALLS_END XLARUN__DS("tool" XLARUN__LOW8TH "calls" XLARUN__LOW8TH "end")
#define XLARUN__TG_JSON(args) "\"{\\\"name\\\": \\\"\" %N \"\\\", \\\"" args "\\\": \" %A"
#define XLARUN__TG_HERMES "\"\\n\" call \"\\n</tool_call>\" (\"\\n<tool_call>\\n\" call \"\\n</tool_call>\")*"
static const struct xlarun__tool_gbnf {
    const char *marker[2], *calls[2], *call, *callx;
} xlarun__tool_gbnf[] = {
    {{NULL, NULL}, {NULL, NULL}, NULL, NULL},
    /* Llama 3: the whole reply is the call, or text that does not start with "{" */
    {{NULL, NULL}, {NULL, NULL}, XLARUN__TG_JSON("parameters") " \"}\"", NULL},
    /* Hermes, Qwen, Granite 4: <tool_call>\n{..}\n</tool_call>, one per line */
    {{"<tool_call>", NULL}, {XLARUN__TG_HERMES, NULL}, XLARUN__TG_JSON("arguments") " \"}\"", NULL},
    /* Mistral: [TOOL_CALLS] [{.., "id": ".."}, ..] (7B v0.3, Nemo), or NAME[CALL_ID]ID[ARGS]{..}
       (Small 3.2) and NAME[ARGS]{..} (Devstral), each after its own [TOOL_CALLS] */
    {{"[TOOL_CALLS]", NULL}, {"\" \"? \"[\" call (\", \" call)* \"]\" | callx (\"[TOOL_CALLS]\" callx)*", NULL},
     XLARUN__TG_JSON("arguments") " (\", \\\"id\\\": \\\"\" [a-zA-Z0-9]{9} \"\\\"\")? \"}\"",
     "%n (\"[CALL_ID]\" [a-zA-Z0-9]{9})? \"[ARGS]\" %A"},
    /* Granite 3: <|tool_call|>[{..}, ..]; Granite 4 as Hermes */
    {{"<|tool_call|>", "<tool_call>"}, {"\"[\" call (\", \" call)* \"]\"", XLARUN__TG_HERMES},
     XLARUN__TG_JSON("arguments") " \"}\"", NULL},
    /* Phi-4-mini: <|tool_call|>[{..}, ..]<|/tool_call|> */
    {{"<|tool_call|>", NULL}, {"\"[\" call (\", \" call)* \"]<|/tool_call|>\"", NULL}, XLARUN__TG_JSON("arguments") " \"}\"", NULL},
    /* DeepSeek-R1: the calls, one per line, then their end token (the distills' templates leave
       it out after a single call) */
    {{XLARUN__DS_CALLS_BEGIN, NULL}, {"callx (\"\\n\" callx)* (\"\\n\"? \"" XLARUN__DS_CALLS_END "\")?", NULL}, NULL,
     "\"" XLARUN__DS_CALL_BEGIN "function" XLARUN__DS("tool" XLARUN__LOW8TH "sep") "\" %n \"\\n```json\\n\" %A \"\\n```"
     XLARUN__DS_CALL_END "\""}};

/* a GBNF string literal of bytes */
static void xlarun__tg_lit(xlarun__js *g, const char *s, size_t n) {
    xlarun__js_s(g, "\"");
    xlarun__js_lit(g, s, n);
    xlarun__js_s(g, "\"");
}

/* the free text before the markers (up to two, each at most 32 characters): f<state> rules */
static void xlarun__tg_free(xlarun__js *g, const char *const *markers) {
    uint32_t cp[2][32], all[64];
    size_t len[2] = {0, 0}, nm = 0, m, i, l, n_all = 0, st[64][2], n_st = 0, k, c;
    char esc[24];
    for (m = 0; m < 2 && markers[m]; m++, nm++)
        for (i = 0; markers[m][i] && len[m] < 32; i += l) {
            cp[m][len[m]++] = xlarun__cp_at(XLARUN__PUN(const unsigned char *, markers[m]), i, &l);
            for (k = 0; k < n_all && all[k] != cp[m][len[m] - 1]; k++) {}
            if (k == n_all) all[n_all++] = cp[m][len[m] - 1];
        }
    /* the states: the distinct proper prefixes of the markers, the empty one first */
    st[n_st][0] = 0; st[n_st][1] = 0; n_st++;
    for (m = 0; m < nm; m++)
        for (l = 1; l < len[m]; l++) {
            for (k = 0; k < n_st; k++)
                if (st[k][1] == l && !memcmp(cp[st[k][0]], cp[m], l * sizeof(uint32_t))) break;
            if (k == n_st) { st[n_st][0] = m; st[n_st][1] = l; n_st++; }
        }
    for (k = 0; k < n_st; k++) {
        const uint32_t *p = cp[st[k][0]];
        size_t pl = st[k][1];
        xlarun__js_s(g, "f");
        xlarun__js_u64(g, k);
        xlarun__js_s(g, " ::= \"\" | [^");
        for (c = 0; c < n_all; c++) { snprintf(esc, sizeof esc, "\\U%08lX", XLARUN__CAST(unsigned long, all[c])); xlarun__js_s(g, esc); }
        xlarun__js_s(g, "] f0");
        for (c = 0; c < n_all; c++) {
            uint32_t t[33];
            size_t tl = pl + 1, best = 0, d, done = 0;
            memcpy(t, p, pl * sizeof(uint32_t));
            t[pl] = all[c];
            snprintf(esc, sizeof esc, " | [\\U%08lX]", XLARUN__CAST(unsigned long, all[c]));
            xlarun__js_s(g, esc);
            for (m = 0; m < nm && !done; m++)  /* a marker completed: its calls */
                if (len[m] == tl && !memcmp(cp[m], t, tl * sizeof(uint32_t))) {
                    xlarun__js_s(g, m ? " calls1" : " calls0");
                    done = 1;
                }
            if (done) continue;
            for (d = 1; d < n_st; d++) {  /* else the longest state that ends t */
                size_t sl = st[d][1];
                if (sl <= tl && sl > st[best][1] && !memcmp(cp[st[d][0]], t + tl - sl, sl * sizeof(uint32_t))) best = d;
            }
            xlarun__js_s(g, " f");
            xlarun__js_u64(g, best);
        }
        xlarun__js_s(g, "\n");
    }
}

/* one tool's form: the template with its name and arguments' rule */
static void xlarun__tg_form(xlarun__js *g, const char *form, const char *nm, size_t nlen, size_t params) {
    char esc[1100];
    size_t i, t;
    for (; *form; form++) {
        if (form[0] != '%' || !form[1]) { xlarun__js_put(g, form, 1); continue; }
        form++;
        if (*form == 'A') {
            if (params == XLARUN__NONE) { xlarun__js_s(g, "object"); g->used |= XLARUN__JS_OBJECT; }
            else xlarun__js_name(g, params);
        } else if (*form == 'n') xlarun__tg_lit(g, nm, nlen);
        else {  /* N: the name as JSON writes it */
            for (i = 0, t = 0; i < nlen && t + 8 < sizeof esc; i++) {
                unsigned char c = XLARUN__CAST(unsigned char, nm[i]);
                if (c == '"' || c == '\\') { esc[t++] = '\\'; esc[t++] = XLARUN__CAST(char, c); }
                else if (c < 0x20) t += XLARUN__CAST(size_t, snprintf(esc + t, sizeof esc - t, "\\u%04x", c));
                else esc[t++] = XLARUN__CAST(char, c);
            }
            xlarun__tg_lit(g, esc, t);
        }
    }
    xlarun__js_s(g, "\n");
}

XLARUN_API xlarun_status xlarun_tool_grammar(xlarun_tool_format format, const char *tools_json, size_t tools_len,
                                             char *out, size_t cap, size_t *len, xlarun_error *err) {
    const struct xlarun__tool_gbnf *f;
    xlarun__js state, *g = &state;
    size_t it, pass, form;
    if (len) *len = 0;
    if (!tools_json || !len || (!out && cap))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tool_grammar: %s is NULL",
                            !tools_json ? "tools_json" : !len ? "len" : "out (with cap > 0)");
    if (XLARUN__CAST(unsigned, format) == 0 || XLARUN__CAST(unsigned, format) > XLARUN__CAST(unsigned, XLARUN_TOOLS_DEEPSEEK_R1))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_tool_grammar: format %d has no tool calls", XLARUN__CAST(int, format));
    f = &xlarun__tool_gbnf[format];
    XLARUN__TRY(xlarun__js_begin(g, tools_json, tools_len, out, cap, err));
    g->no_root = 1;
    g->spaced = 1;
    it = xlarun__json_ws(tools_json, tools_len, 0);
    if (tools_json[it] != '[') return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "tools: a JSON array of tools was expected");
    /* the reply: free text, then the calls a marker opens */
    if (f->marker[0]) {
        xlarun__js_s(g, "root ::= f0\n");
        xlarun__tg_free(g, f->marker);
        for (form = 0; form < 2 && f->marker[form]; form++) {
            xlarun__js_s(g, form ? "calls1 ::= " : "calls0 ::= ");
            xlarun__js_s(g, f->calls[form]);
            xlarun__js_s(g, "\n");
        }
    } else xlarun__js_s(g, "root ::= \"\" | call | [^{] .*\n");
    /* call ::= tool0 | tool1 ..., callx likewise; then each tool's forms; then the arguments */
    for (pass = 0; pass < 4; pass++) {
        size_t cur = it, key, el, k = 0;
        const char *tmpl = pass == 0 || pass == 2 ? f->call : f->callx;
        if (pass < 2 && tmpl) xlarun__js_s(g, pass ? "callx ::= " : "call ::= ");
        while (xlarun__json_next(&g->j, &cur, &key, &el)) {
            char nm[1024];
            size_t nlen, fn, name, params;
            if (g->j.s[el] != '{') return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "tools[%lu]: a tool is a JSON object", XLARUN__CAST(unsigned long, k));
            fn = xlarun__json_get(&g->j, el, "function");
            if (fn == XLARUN__NONE || g->j.s[fn] != '{') fn = el;
            name = xlarun__json_get(&g->j, fn, "name");
            if (name == XLARUN__NONE || g->j.s[name] != '"' || (nlen = xlarun__json_str(&g->j, name, nm, sizeof nm)) == XLARUN__NONE || !nlen)
                return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "tools[%lu]: no \"name\" string (of 1 to 1023 bytes) in the tool%s",
                                    XLARUN__CAST(unsigned long, k), fn != el ? "'s \"function\"" : "");
            params = xlarun__json_get(&g->j, fn, "parameters");
            if (pass < 2 && tmpl) {
                xlarun__js_s(g, k ? (pass ? " | toolx" : " | tool") : (pass ? "toolx" : "tool"));
                xlarun__js_u64(g, k);
            } else if (pass < 4 && pass >= 2 && tmpl) {
                xlarun__js_s(g, pass == 3 ? "toolx" : "tool");
                xlarun__js_u64(g, k);
                xlarun__js_s(g, " ::= ");
                xlarun__tg_form(g, tmpl, nm, nlen, params);
            }
            if (pass == 3 && params != XLARUN__NONE) {
                xlarun_status st = xlarun__js_document(g, params);
                if (st != XLARUN_OK) {
                    char m[sizeof err->message];
                    snprintf(m, sizeof m, "%s", err ? err->message : "");
                    return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "tool '%.200s': %s", nm, m);
                }
            }
            k++;
        }
        if (!k) return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "tools: the array holds no tool");
        if (pass < 2 && tmpl) xlarun__js_s(g, "\n");
    }
    xlarun__js_shared_rules(g);
    return xlarun__js_end(g, "xlarun_tool_grammar", len);
}

/* ---- the token loop ------------------------------------------------------------------------- */

#define XLARUN__GENERATOR_MAGIC 0x5847454eu
#define XLARUN__MAX_GEN_EOS 64

struct xlarun_generator {
    uint32_t magic;
    xlarun_session *s;
    const xlarun_tokenizer *t;
    xlarun_sampler *smp;
    int32_t *ids;                     /* n_ctx + 1: the session's ids, then the last sampled one */
    size_t n_ids;                     /* ids in the session's KV cache (== its position) */
    int32_t last;                     /* the last sampled id, not yet in the session; -1 none */
    int32_t *enc;                     /* n_ctx: encoded prompt */
    void *scratch;
    size_t scratch_bytes, max_prompt_bytes;
    char *piece, *text;               /* detokenized piece; text handed to the callback */
    size_t piece_cap, text_cap, text_len;
    int32_t eos[XLARUN__MAX_GEN_EOS];
    size_t n_eos;
    int ignore_eos;
    unsigned decode_flags;
    xlarun_detok detok;
    xlarun_stopper stop;
    xlarun_matcher *gm;               /* the grammar's matcher, or NULL */
    float *masked;                    /* V logits with the tokens the grammar refuses at -inf */
    uint32_t *mask;                   /* (V + 31) / 32 words */
    void *own, *alloc_user;           /* xlarun_generator_create: its block, and the session's
                                         allocator argument (kept: the session may be gone) */
};

typedef struct xlarun__gen_layout {
    size_t sampler, ids, enc, scratch, piece, text, matcher, masked, mask, matcher_bytes, total;
    size_t scratch_bytes, piece_cap, text_cap, max_prompt;
} xlarun__gen_layout;

static xlarun_status xlarun__gen_layout_of(const xlarun_session *s, const xlarun_tokenizer *t,
                                           const xlarun_generator_options *o, xlarun__gen_layout *L,
                                           xlarun_error *err) {
    size_t n = xlarun__round64(sizeof(struct xlarun_generator)), n_ctx, V;
    if (!xlarun__session_ok(s))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "generator: NULL or freed session");
    if (t && !xlarun__tok_ok(t)) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "generator: closed tokenizer");
    if (!t && o->n_stop_strings)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "generator: stop strings need a tokenizer (this generator has none: ids only)");
    XLARUN__TRY(xlarun_sampling_check(&o->sampling, err));
    if (o->n_eos > XLARUN__MAX_GEN_EOS)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "generator: %lu eos ids, at most %d",
                            XLARUN__CAST(unsigned long, o->n_eos), XLARUN__MAX_GEN_EOS);
    if (o->n_eos && !o->eos_ids) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "generator: n_eos given with NULL eos_ids");
    n_ctx = s->n_ctx;
    V = s->m->cfg.vocab_size;
    L->max_prompt = !t ? 0 : o->max_prompt_bytes ? o->max_prompt_bytes : 16 * n_ctx;
    L->scratch_bytes = t ? xlarun_tokenizer_scratch_bytes(t, L->max_prompt) : 0;
    L->piece_cap = (t ? xlarun_tokenizer_max_piece(t) : 0) + 8;
    L->text_cap = L->piece_cap + 2 * XLARUN_MAX_STOP_BYTES + 8;
    L->sampler = n; n += xlarun__round64(xlarun_sampler_memory(XLARUN__CAST(uint32_t, V)));
    L->ids = n; n += xlarun__round64((n_ctx + 1) * sizeof(int32_t));
    L->enc = n; n += xlarun__round64(n_ctx * sizeof(int32_t));
    L->scratch = n; n += xlarun__round64(L->scratch_bytes);
    L->piece = n; n += xlarun__round64(L->piece_cap);
    L->text = n; n += xlarun__round64(L->text_cap);
    L->matcher_bytes = 0;
    if (o->grammar) {
        xlarun__tokbytes tb;
        xlarun__mbuild in;
        if (!t) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "generator: a grammar needs a tokenizer (this generator has none: ids only)");
        if (o->grammar->magic != XLARUN__GRAMMAR_MAGIC) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "generator: the grammar was freed");
        memset(&in, 0, sizeof in);
        tb.t = t; tb.flags = o->decode_flags;
        in.g = o->grammar; in.bytes = xlarun__tokenizer_bytes; in.src = &tb; in.n_vocab = XLARUN__CAST(uint32_t, V);
        in.opt.max_nodes = o->grammar_limits.max_nodes; in.opt.max_stacks = o->grammar_limits.max_stacks;
        if (in.opt.max_nodes > (1u << 26) || in.opt.max_stacks > (1u << 24))
            return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "generator: grammar_limits: max_nodes is at most 2^26 and max_stacks 2^24");
        XLARUN__TRY(xlarun__measure(&xlarun__matcher_builder, &in, NULL, &L->matcher_bytes, err));
        L->matcher = n; n += xlarun__round64(L->matcher_bytes);
        L->masked = n; n += xlarun__round64(V * sizeof(float));
        L->mask = n; n += xlarun__round64((V + 31) / 32 * sizeof(uint32_t));
    }
    L->total = n + XLARUN__ALIGN;
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_generator_memory(const xlarun_session *s, const xlarun_tokenizer *t,
                                                 const xlarun_generator_options *opt,
                                                 size_t *bytes, xlarun_error *err) {
    xlarun_generator_options zero;
    xlarun__gen_layout L;
    memset(&zero, 0, sizeof zero);
    memset(&L, 0, sizeof L); /* set by xlarun__gen_layout_of; zeroed for GCC -O3's -Wmaybe-uninitialized */
    if (!bytes) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generator_memory: bytes is NULL");
    XLARUN__TRY(xlarun__gen_layout_of(s, t, opt ? opt : &zero, &L, err));
    *bytes = L.total;
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_generator_init(xlarun_session *s, const xlarun_tokenizer *t,
                                               const xlarun_generator_options *opt, void *mem,
                                               size_t bytes, xlarun_generator **out,
                                               xlarun_error *err) {
    xlarun_generator_options zero;
    xlarun__gen_layout L;
    unsigned char *base;
    xlarun_generator *g;
    size_t i;
    memset(&zero, 0, sizeof zero);
    memset(&L, 0, sizeof L); /* as in xlarun_generator_memory */
    if (!opt) opt = &zero;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generator_init: out is NULL");
    *out = NULL;
    XLARUN__TRY(xlarun__gen_layout_of(s, t, opt, &L, err));
    if (!mem || bytes < L.total)
        return xlarun__fail(err, XLARUN_ERR_MEMORY, "%lu bytes of generator memory are too few (xlarun_generator_memory gives %lu)",
                            XLARUN__CAST(unsigned long, bytes), XLARUN__CAST(unsigned long, L.total));
    base = XLARUN__CAST(unsigned char *, mem);
    base += (XLARUN__ALIGN - XLARUN__PUN(uintptr_t, base) % XLARUN__ALIGN) % XLARUN__ALIGN;
    g = XLARUN__PUN(xlarun_generator *, base);
    memset(g, 0, sizeof *g);
    XLARUN__TRY(xlarun_stopper_init(&g->stop, opt->stop_strings, opt->n_stop_strings, err));
    XLARUN__TRY(xlarun_sampler_init(&opt->sampling, s->m->cfg.vocab_size, base + L.sampler,
                                    xlarun_sampler_memory(s->m->cfg.vocab_size), &g->smp, err));
    g->s = s;
    g->t = t;
    g->ids = XLARUN__PUN(int32_t *, base + L.ids);
    g->enc = XLARUN__PUN(int32_t *, base + L.enc);
    g->scratch = base + L.scratch;
    g->scratch_bytes = L.scratch_bytes;
    g->max_prompt_bytes = L.max_prompt;
    g->piece = XLARUN__PUN(char *, base + L.piece);
    g->piece_cap = L.piece_cap;
    g->text = XLARUN__PUN(char *, base + L.text);
    g->text_cap = L.text_cap;
    g->last = -1;
    g->ignore_eos = opt->ignore_eos;
    g->decode_flags = opt->decode_flags;
    if (opt->eos_ids) {
        for (i = 0; i < opt->n_eos; i++) g->eos[g->n_eos++] = opt->eos_ids[i];
    } else {
        const int32_t *e = NULL;
        size_t k, ne = t ? xlarun_tokenizer_eos_ids(t, &e) : 0;
        const xlarun_config *c = &s->m->cfg;
        for (k = 0; k < ne + c->n_eos && g->n_eos < XLARUN__MAX_GEN_EOS; k++) {
            int32_t id = k < ne ? e[k] : c->eos_token_ids[k - ne];
            size_t j;
            for (j = 0; j < g->n_eos && g->eos[j] != id; j++) {}
            if (j == g->n_eos) g->eos[g->n_eos++] = id;
        }
    }
    if (opt->grammar) {
        xlarun__tokbytes tb;
        xlarun__mbuild in;
        void *obj = NULL;
        memset(&in, 0, sizeof in);
        tb.t = t; tb.flags = opt->decode_flags;
        in.g = opt->grammar; in.bytes = xlarun__tokenizer_bytes; in.src = &tb; in.n_vocab = s->m->cfg.vocab_size;
        in.opt.max_nodes = opt->grammar_limits.max_nodes; in.opt.max_stacks = opt->grammar_limits.max_stacks;
        if (!opt->ignore_eos) { in.opt.end_ids = g->eos; in.opt.n_end = g->n_eos; }
        XLARUN__TRY(xlarun__build_in(&xlarun__matcher_builder, &in, NULL, base + L.matcher, L.matcher_bytes, NULL, &obj, err));
        g->gm = XLARUN__CAST(xlarun_matcher *, obj);
        g->masked = XLARUN__CAST(float *, XLARUN__CAST(void *, base + L.masked)); /* 64-aligned */
        g->mask = XLARUN__PUN(uint32_t *, base + L.mask);
    }
    xlarun_session_reset(s);
    g->magic = XLARUN__GENERATOR_MAGIC;
    *out = g;
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_generator_create(xlarun_session *s, const xlarun_tokenizer *t,
                                                 const xlarun_generator_options *opt,
                                                 xlarun_generator **out, xlarun_error *err) {
    size_t bytes;
    void *mem;
    xlarun_status st;
    if (!out) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generator_create: out is NULL");
    *out = NULL;
    XLARUN__TRY(xlarun_generator_memory(s, t, opt, &bytes, err));
    mem = XLARUN_MALLOC(bytes, s->alloc_user);
    if (!mem) return xlarun__fail(err, XLARUN_ERR_MEMORY, "generator: cannot allocate %lu bytes", XLARUN__CAST(unsigned long, bytes));
    st = xlarun_generator_init(s, t, opt, mem, bytes, out, err);
    if (st != XLARUN_OK) { XLARUN_FREE(mem, s->alloc_user); return st; }
    (*out)->own = mem;
    (*out)->alloc_user = s->alloc_user;
    return XLARUN_OK;
}

XLARUN_API void xlarun_generator_free(xlarun_generator *g) {
    void *own, *user;
    if (!g || g->magic != XLARUN__GENERATOR_MAGIC) return;
    own = g->own;
    user = g->alloc_user; /* not g->s: the session may already be freed */
    g->magic = 0;
    if (own) XLARUN_FREE(own, user);
}

XLARUN_API xlarun_status xlarun_generator_set_sampling(xlarun_generator *g, const xlarun_sampling *p,
                                                       xlarun_error *err) {
    if (!g || g->magic != XLARUN__GENERATOR_MAGIC)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generator_set_sampling: NULL or freed generator");
    return xlarun_sampler_set(g->smp, p, err);
}

XLARUN_API const int32_t *xlarun_generator_ids(const xlarun_generator *g, size_t *n) {
    if (!g || g->magic != XLARUN__GENERATOR_MAGIC) { if (n) *n = 0; return NULL; }
    if (n) *n = g->n_ids + (g->last >= 0);
    return g->ids;
}

static void xlarun__gen_emit(void *user, const char *text, size_t len) {
    xlarun_generator *g = XLARUN__CAST(xlarun_generator *, user);
    size_t k = g->text_cap - 1 - g->text_len < len ? g->text_cap - 1 - g->text_len : len;
    memcpy(g->text + g->text_len, text, k); /* k == len: text_cap bounds held + one piece */
    g->text_len += k;
    g->text[g->text_len] = 0;
}

/* ---- sampling under a grammar ----
   The matcher works on bytes; a token's bytes are what the detokenizer adds for it after the
   text so far (emitted plus held back, less what was held before). In the middle of the text
   they are the token's bytes of the vocabulary trie; at its start a decoder may drop a leading
   space, so there each token is checked on its own. */
static size_t xlarun__gen_contrib(xlarun_generator *g, int32_t id, int *ok) {
    xlarun_detok d = g->detok;
    xlarun__sink k;
    unsigned char h0[4], *o = XLARUN__PUN(unsigned char *, g->piece);
    unsigned n0 = d.n_held;
    size_t n;
    memcpy(h0, d.held, sizeof h0);
    k.o = o; k.cap = g->piece_cap - 4; k.n = 0; k.bad = 0;
    *ok = 0;
    if (!xlarun__skip_id(g->t, d.flags, id)) xlarun__decode_token(&d, &k, id);
    if (k.n > k.cap) return 0;
    memcpy(o + k.n, d.held, d.n_held);
    n = k.n + d.n_held;
    if (n <= n0 || memcmp(o, h0, n0)) return 0;
    memmove(o, o + n0, n - n0);
    *ok = 1;
    return n - n0;
}

static int xlarun__gen_is_eos(const xlarun_generator *g, int32_t id) {
    size_t e;
    if (g->ignore_eos) return 0;
    for (e = 0; e < g->n_eos; e++) if (g->eos[e] == id) return 1;
    return 0;
}

/* whether the grammar allows id here, checked on its own */
static xlarun_status xlarun__gen_allows(xlarun_generator *g, int32_t id, int *ok, xlarun_error *err) {
    uint32_t to = 0;
    size_t n;
    if (xlarun__gen_is_eos(g, id)) { *ok = xlarun_matcher_complete(g->gm); return XLARUN_OK; }
    n = xlarun__gen_contrib(g, id, ok);
    if (!*ok) return XLARUN_OK;
    XLARUN__TRY(xlarun__m_walk(g->gm, XLARUN__PUN(const unsigned char *, g->piece), n, &to, err));
    *ok = to != 0;
    return XLARUN_OK;
}

static int xlarun__gen_mid_text(const xlarun_generator *g) {
    const xlarun_tokenizer *t = g->t;
    const xlarun_detok *d = &g->detok;
    return d->strip_left <= 0 && !(t->dec == XLARUN__DEC_NONE && !d->started) && !(t->dec_ms == 2 && d->first);
}

/* the next id under the grammar (*done: the sentence is complete and no token may follow) */
static xlarun_status xlarun__gen_grammar_sample(xlarun_generator *g, const float *logits, int32_t *out, int *done,
                                                xlarun_error *err) {
    uint32_t V = g->s->m->cfg.vocab_size, i;
    int32_t id = -1;
    int ok = 0;
    *done = 0;
    *out = -1;
    if (!logits) return XLARUN_OK;
    if (g->smp->p.temperature == 0) {  /* greedy: the best token, if allowed, is the best allowed one */
        id = xlarun_sampler_sample(g->smp, logits);
        XLARUN__TRY(xlarun__gen_allows(g, id, &ok, err));
    }
    if (!ok) {
        if (xlarun__gen_mid_text(g)) XLARUN__TRY(xlarun_matcher_allowed(g->gm, g->mask, err));
        else {
            memset(g->mask, 0, (V + 31) / 32 * sizeof(uint32_t));
            for (i = 0; i < V; i++) {
                XLARUN__TRY(xlarun__gen_allows(g, XLARUN__CAST(int32_t, i), &ok, err));
                if (ok) g->mask[i >> 5] |= 1u << (i & 31);
            }
        }
        for (;;) {
            int any = 0;
            for (i = 0; i < V; i++) {
                int a = XLARUN__CAST(int, g->mask[i >> 5] >> (i & 31) & 1u);
                g->masked[i] = a ? logits[i] : -INFINITY;
                any |= a;
            }
            if (!any) {
                if (xlarun_matcher_complete(g->gm)) { *done = 1; return XLARUN_OK; }
                return xlarun__fail(err, XLARUN_ERR_GRAMMAR, "grammar: no token of the vocabulary continues the output, and it is not a complete sentence");
            }
            id = xlarun_sampler_sample(g->smp, g->masked);
            XLARUN__TRY(xlarun__gen_allows(g, id, &ok, err));
            if (ok) break;
            g->mask[XLARUN__CAST(uint32_t, id) >> 5] &= ~(1u << (id & 31)); /* its bytes here differ from the trie's */
        }
    }
    if (!xlarun__gen_is_eos(g, id)) {
        size_t n = xlarun__gen_contrib(g, id, &ok);
        XLARUN__TRY(xlarun_matcher_accept_bytes(g->gm, g->piece, n, err));
    }
    *out = id;
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_generate_ids(xlarun_generator *g, const int32_t *ids, size_t n,
                                             uint32_t max_new, xlarun_token_fn fn, void *user,
                                             xlarun_generate_result *res, xlarun_error *err) {
    xlarun_generate_result r;
    xlarun_session *s;
    size_t keep, i, n_ctx;
    uint32_t V;
    memset(&r, 0, sizeof r);
    if (res) *res = r;
    if (!g || g->magic != XLARUN__GENERATOR_MAGIC || !xlarun__session_ok(g->s))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generate: NULL or freed generator, or its session was freed");
    if (!ids || n == 0) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generate: empty prompt");
    s = g->s;
    n_ctx = s->n_ctx;
    V = s->m->cfg.vocab_size;
    if (n > n_ctx)
        return xlarun__fail(err, XLARUN_ERR_CONTEXT, "the prompt of %lu tokens does not fit the context of %lu tokens",
                            XLARUN__CAST(unsigned long, n), XLARUN__CAST(unsigned long, n_ctx));
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || XLARUN__CAST(uint32_t, ids[i]) >= V)
            return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "prompt token %lu: id %ld is outside the vocabulary of %lu",
                                XLARUN__CAST(unsigned long, i), XLARUN__CAST(long, ids[i]), XLARUN__CAST(unsigned long, V));
    /* keep what the session holds of this sequence; one id at least is run for the logits */
    if (s->pos != g->n_ids) g->n_ids = 0; /* someone else used the session: trust nothing */
    keep = 0;
    while (keep < g->n_ids && keep < n && g->ids[keep] == ids[keep]) keep++;
    if (keep == n) keep = n - 1;
    if (!xlarun__can_keep(s, keep)) keep = 0; /* a sliding window's ring no longer holds it */
    if (s->hist && (n > s->m->cfg.rope_original_max_position_embeddings) != s->rope_long)
        keep = 0; /* longrope: the prompt has the other factors, so every position is run again */
    /* the ids and their fit were checked above, so from here nothing can fail on input */
    XLARUN__TRY(xlarun_session_truncate(s, keep, err));
    XLARUN__TRY(xlarun_session_prefill(s, ids + keep, n - keep, err));
    if (ids != g->ids) memmove(g->ids + keep, ids + keep, (n - keep) * sizeof *ids);
    g->n_ids = n;
    g->last = -1;
    r.n_reused = keep;
    r.n_prefilled = n - keep;
    /* the repetition penalty sees the whole sequence; the RNG restarts from the seed */
    xlarun_sampler_reset(g->smp);
    xlarun_sampler_accept(g->smp, g->ids, n);
    xlarun_detok_init(&g->detok, g->t, g->decode_flags);
    xlarun_stopper_flush(&g->stop, NULL, NULL);
    if (g->gm) xlarun_matcher_reset(g->gm);
    for (;;) {
        const float *logits = xlarun_session_logits(s);
        int32_t id;
        int eos, cb = 0, hit = 0;
        if (g->gm) {
            int done = 0;
            XLARUN__TRY(xlarun__gen_grammar_sample(g, logits, &id, &done, err));
            if (done) { r.stop = XLARUN_STOP_GRAMMAR; break; }
        } else id = xlarun_sampler_sample(g->smp, logits);
        if (id < 0) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generate: the session has no logits");
        xlarun_sampler_accept(g->smp, &id, 1);
        g->ids[g->n_ids] = id;
        g->last = id;
        r.n_generated++;
        eos = xlarun__gen_is_eos(g, id);
        g->text_len = 0;
        g->text[0] = 0;
        if (eos) {
            r.stop = XLARUN_STOP_EOS;
            if (fn) fn(user, id, g->text, 0);
            break;
        }
        if (g->t) {
            size_t plen = 0;
            xlarun_status st = xlarun_detok_push(&g->detok, id, g->piece, g->piece_cap, &plen, err);
            if (st != XLARUN_OK) return st;
            hit = xlarun_stopper_push(&g->stop, g->piece, plen, xlarun__gen_emit, g);
        }
        if (fn) cb = fn(user, id, g->text, g->text_len);
        if (hit) { r.stop = XLARUN_STOP_STRING; break; }
        if (cb) { r.stop = XLARUN_STOP_CALLBACK; break; }
        if (max_new && r.n_generated >= max_new) { r.stop = XLARUN_STOP_LENGTH; break; }
        if (s->pos >= n_ctx) { r.stop = XLARUN_STOP_CONTEXT; break; }
        {
            size_t before = s->n_rerun;
            xlarun_status st = xlarun_session_decode(s, id, err);
            if (st != XLARUN_OK) return st;
            r.n_rerun += s->n_rerun - before;
        }
        g->n_ids++;
        g->last = -1;
    }
    /* what is still held back: the end of the text is final now */
    if (r.stop != XLARUN_STOP_STRING && g->t) {
        size_t plen = xlarun_detok_flush(&g->detok, g->piece, g->piece_cap);
        g->text_len = 0;
        g->text[0] = 0;
        if (plen && xlarun_stopper_push(&g->stop, g->piece, plen, xlarun__gen_emit, g)) r.stop = XLARUN_STOP_STRING;
        xlarun_stopper_flush(&g->stop, xlarun__gen_emit, g);
        if (g->text_len && fn) fn(user, -1, g->text, g->text_len);
    }
    if (res) *res = r;
    xlarun__ok(err);
    return XLARUN_OK;
}

XLARUN_API xlarun_status xlarun_generate_text(xlarun_generator *g, const char *text, size_t len,
                                              unsigned encode_flags, uint32_t max_new,
                                              xlarun_token_fn fn, void *user,
                                              xlarun_generate_result *res, xlarun_error *err) {
    size_t n = 0;
    xlarun_status st;
    if (res) memset(res, 0, sizeof *res);
    if (!g || g->magic != XLARUN__GENERATOR_MAGIC || !xlarun__session_ok(g->s))
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generate: NULL or freed generator, or its session was freed");
    if (!text) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generate_text: text is NULL");
    if (!g->t) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generate_text: the generator was made without a tokenizer (ids only: xlarun_generate_ids)");
    if (len > g->max_prompt_bytes)
        return xlarun__fail(err, XLARUN_ERR_CONTEXT, "the prompt of %lu bytes is longer than the %lu bytes the generator takes (max_prompt_bytes)",
                            XLARUN__CAST(unsigned long, len), XLARUN__CAST(unsigned long, g->max_prompt_bytes));
    st = xlarun_tokenizer_encode(g->t, text, len, encode_flags, g->enc, g->s->n_ctx, &n, g->scratch,
                                 g->scratch_bytes, err);
    if (st == XLARUN_ERR_MEMORY && n > g->s->n_ctx)
        return xlarun__fail(err, XLARUN_ERR_CONTEXT, "the prompt of %lu tokens does not fit the context of %lu tokens",
                            XLARUN__CAST(unsigned long, n), XLARUN__CAST(unsigned long, g->s->n_ctx));
    if (st != XLARUN_OK) return st;
    if (n == 0) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_generate_text: the prompt has no tokens");
    return xlarun_generate_ids(g, g->enc, n, max_new, fn, user, res, err);
}

/* ============================== 8. QUANTIZE =================================================== */
/* xlarun_quantize: a checkpoint folder -> a q8_0/q4_0 safetensors checkpoint (the layout is in
   xlarun_kernels.h, the keys in the API section above). It streams: the input through the
   xlarun_st reader (a block of rows at a time), the output through positioned writes, so memory
   is bounded by one row block whatever the model's size. The output header is computed from the
   input headers alone and written first.                                                       */
#if defined(XLARUN__POSIX_FILES)

typedef struct xlarun__qplan {   /* one input tensor, in input order (shards in order) */
    int quant;                   /* 0: copied as it is; 1: quantized */
    xlarun_k_qtype qt;
    uint64_t off, bytes;         /* the copy, or the codes, relative to the data section */
    uint64_t soff, sbytes;       /* the scales */
    uint64_t h, sh;              /* hashes of what was written, checked by reading it back */
} xlarun__qplan;

typedef struct xlarun__qbuf { char *p; size_t n, cap; int failed; void *u; } xlarun__qbuf;

static void xlarun__qbuf_put(xlarun__qbuf *b, const char *s, size_t n) {
    if (b->failed) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *p = XLARUN__CAST(char *, XLARUN_MALLOC(cap, b->u));
        if (!p) { b->failed = 1; return; }
        if (b->n) memcpy(p, b->p, b->n);
        if (b->p) XLARUN_FREE(b->p, b->u);
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void xlarun__qbuf_str(xlarun__qbuf *b, const char *s) { xlarun__qbuf_put(b, s, strlen(s)); }

/* a JSON string: quotes, backslashes and control characters escaped */
static void xlarun__qbuf_json(xlarun__qbuf *b, const char *s) {
    xlarun__qbuf_put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = XLARUN__CAST(unsigned char, *s);
        if (c == '"' || c == '\\') { char e[2]; e[0] = '\\'; e[1] = *s; xlarun__qbuf_put(b, e, 2); }
        else if (c < 0x20) { char e[8]; snprintf(e, sizeof e, "\\u%04x", c); xlarun__qbuf_put(b, e, 6); }
        else xlarun__qbuf_put(b, s, 1);
    }
    xlarun__qbuf_put(b, "\"", 1);
}

static void xlarun__qbuf_entry(xlarun__qbuf *b, const char *name, const char *suffix, const char *dtype,
                               uint64_t rows, uint64_t cols, int ndim, const uint64_t *shape, uint64_t off,
                               uint64_t bytes) {
    char tmp[256];
    int k;
    if (b->n > 1) xlarun__qbuf_put(b, ",", 1);
    if (suffix) {
        xlarun__qbuf b2;
        memset(&b2, 0, sizeof b2);
        b2.u = b->u;
        xlarun__qbuf_str(&b2, name);
        xlarun__qbuf_str(&b2, suffix);
        if (b2.failed) b->failed = 1;
        else xlarun__qbuf_json(b, b2.p);
        if (b2.p) XLARUN_FREE(b2.p, b2.u);
    } else
        xlarun__qbuf_json(b, name);
    snprintf(tmp, sizeof tmp, ":{\"dtype\":\"%s\",\"shape\":[", dtype);
    xlarun__qbuf_str(b, tmp);
    if (ndim < 0) {
        snprintf(tmp, sizeof tmp, "%llu,%llu", XLARUN__CAST(unsigned long long, rows), XLARUN__CAST(unsigned long long, cols));
        xlarun__qbuf_str(b, tmp);
    } else
        for (k = 0; k < ndim; k++) {
            snprintf(tmp, sizeof tmp, "%s%llu", k ? "," : "", XLARUN__CAST(unsigned long long, shape[k]));
            xlarun__qbuf_str(b, tmp);
        }
    snprintf(tmp, sizeof tmp, "],\"data_offsets\":[%llu,%llu]}", XLARUN__CAST(unsigned long long, off),
             XLARUN__CAST(unsigned long long, off + bytes));
    xlarun__qbuf_str(b, tmp);
}

/* 64-bit FNV-1a over 8-byte words (then the tail bytes), chained across calls */
static uint64_t xlarun__qhash(uint64_t h, const unsigned char *p, size_t n) {
    size_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static xlarun_status xlarun__qwrite(int fd, uint64_t at, const void *buf, size_t n, const char *path,
                                    xlarun_error *err) {
    const char *p = XLARUN__CAST(const char *, buf);
    if (XLARUN__CAST(uint64_t, XLARUN__CAST(off_t, at)) != at || lseek(fd, XLARUN__CAST(off_t, at), SEEK_SET) < 0)
        return xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot seek to byte %llu", path, XLARUN__CAST(unsigned long long, at));
    while (n) {
        ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return xlarun__fail(err, XLARUN_ERR_IO, "%s: write error at byte %llu (disk full?)", path,
                                        XLARUN__CAST(unsigned long long, at));
        p += w;
        at += XLARUN__CAST(uint64_t, w);
        n -= XLARUN__CAST(size_t, w);
    }
    return XLARUN_OK;
}

typedef struct xlarun__qctx {
    const xlarun_quantize_options *opt;
    const char *src, *dst;
    void *u;
    xlarun__arena a;             /* a measuring arena: config, index and shard names */
    xlarun_model *m;             /* only cfg is used */
    const char **shards;
    uint32_t n_shards;
    xlarun__qplan *plan;
    size_t n_plan, cap_plan;
    uint64_t total, done;
    unsigned char *in, *codes, *scales;
    float *row;
    size_t in_cap;
} xlarun__qctx;

/* open shard s and read its header into *hdr (freed by the caller) */
static xlarun_status xlarun__qopen(xlarun__qctx *q, uint32_t s, xlarun__file *f, xlarun_st_reader *r, void **hdr,
                                   char *path, size_t cap, xlarun_error *err) {
    xlarun_status st;
    *hdr = NULL;
    XLARUN__TRY(xlarun__file_open(f, NULL, q->src, q->shards[s], path, cap, err));
    st = xlarun_st_begin(r, xlarun__file_read, f, path, f->size, err);
    if (st == XLARUN_OK) {
        *hdr = XLARUN_MALLOC(xlarun_st_memory(r), q->u);
        st = *hdr ? xlarun_st_read_header(r, *hdr, xlarun_st_memory(r), err)
                  : xlarun__fail(err, XLARUN_ERR_MEMORY, "%s: no memory for the header", path);
    }
    if (st != XLARUN_OK) {
        xlarun__file_close(f);
        if (*hdr) XLARUN_FREE(*hdr, q->u);
        *hdr = NULL;
    }
    return st;
}

/* pass 1: what happens to each tensor, and the output header */
static xlarun_status xlarun__qplan_all(xlarun__qctx *q, xlarun__qbuf *hb, xlarun_error *err) {
    const xlarun_k_qtype qt = q->opt->type == XLARUN_QUANT_Q4_0 ? XLARUN_K_Q4_0 : XLARUN_K_Q8_0;
    xlarun__qbuf eb;
    uint64_t off = 0;
    uint32_t s;
    int src_dtype = -1, kept_odd = 0, any = 0;
    char tmp[512];
    xlarun_status st = XLARUN_OK;
    memset(&eb, 0, sizeof eb);
    eb.u = q->u;
    xlarun__qbuf_put(&eb, "{", 1);
    for (s = 0; s < q->n_shards && st == XLARUN_OK; s++) {
        xlarun__file f;
        xlarun_st_reader r;
        void *hdr;
        char path[4096];
        size_t i;
        st = xlarun__qopen(q, s, &f, &r, &hdr, path, sizeof path, err);
        if (st != XLARUN_OK) break; /* not a return: eb.p is freed below */
        xlarun__file_close(&f);
        for (i = 0; i < r.n_tensors && st == XLARUN_OK; i++) {
            const xlarun_st_tensor *t = &r.tensors[i];
            int sc, slot = xlarun__tensor_slot(q->m, t->name, &sc);
            xlarun__qplan *p;
            if (slot == -2) {
                st = xlarun__fail(err, XLARUN_ERR_MODEL, "%s: tensor '%s' is past num_hidden_layers %u in config.json",
                                  path, t->name, q->m->cfg.n_layers);
                break;
            }
            if ((slot >= 0 && !sc && (t->dtype == XLARUN_DTYPE_I8 || t->dtype == XLARUN_DTYPE_U8)) || (slot >= 0 && sc)) {
                st = xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "%s: tensor '%s' is already quantized", path, t->name);
                break;
            }
            if (slot >= 0 && (st = xlarun__check_tensor(q->m, slot, t, path, err)) != XLARUN_OK) break;
            if (q->n_plan == q->cap_plan) {
                size_t cap = q->cap_plan ? 2 * q->cap_plan : 256;
                xlarun__qplan *np = XLARUN__CAST(xlarun__qplan *, XLARUN_MALLOC(cap * sizeof *np, q->u));
                if (!np) { st = xlarun__fail(err, XLARUN_ERR_MEMORY, "out of memory for the tensor plan"); break; }
                if (q->n_plan) memcpy(np, q->plan, q->n_plan * sizeof *np);
                if (q->plan) XLARUN_FREE(q->plan, q->u);
                q->plan = np;
                q->cap_plan = cap;
            }
            p = &q->plan[q->n_plan++];
            memset(p, 0, sizeof *p);
            q->total += t->nbytes;
            p->quant = slot >= 0 && xlarun__slot_cls(q->m, slot) == XLARUN__C_MATRIX && /* not norms, biases, routers */
                       !(q->opt->keep_embeddings && (slot == XLARUN__W_EMBED || slot == XLARUN__W_LM_HEAD));
            if (p->quant && t->shape[1] % XLARUN_K_QBLOCK) { p->quant = 0; kept_odd = 1; }
            if (p->quant) {
                uint64_t rows = t->shape[0], K = t->shape[1];
                p->qt = qt;
                p->off = off;
                p->bytes = rows * xlarun_k_qrow_bytes(qt, XLARUN__CAST(size_t, K));
                p->soff = off + p->bytes;
                p->sbytes = rows * (K / XLARUN_K_QBLOCK) * 2;
                xlarun__qbuf_entry(&eb, t->name, NULL, qt == XLARUN_K_Q8_0 ? "I8" : "U8", rows,
                                   qt == XLARUN_K_Q8_0 ? K : K / 2, -1, NULL, p->off, p->bytes);
                xlarun__qbuf_entry(&eb, t->name, "_scale", "F16", rows, K / XLARUN_K_QBLOCK, -1, NULL, p->soff, p->sbytes);
                off = p->soff + p->sbytes;
                src_dtype = src_dtype == -1 || src_dtype == XLARUN__CAST(int, t->dtype) ? XLARUN__CAST(int, t->dtype) : -2;
                any = 1;
            } else {
                p->off = off;
                p->bytes = t->nbytes;
                xlarun__qbuf_entry(&eb, t->name, NULL, xlarun_dtype_name(t->dtype), 0, 0, XLARUN__CAST(int, t->ndim),
                                   t->shape, p->off, p->bytes);
                off += p->bytes;
            }
        }
        XLARUN_FREE(hdr, q->u);
    }
    (void)any; /* a model with no K a multiple of 32 is copied whole, as the metadata says */
    if (st == XLARUN_OK) {
        snprintf(tmp, sizeof tmp,
                 "{\"__metadata__\":{\"format\":\"pt\",\"xlarun.quant\":\"%s\",\"xlarun.block\":\"32\","
                 "\"xlarun.scale_dtype\":\"F16\",\"xlarun.source_dtype\":\"%s\",\"xlarun.unquantized\":\"norms%s%s%s%s%s\"}",
                 qt == XLARUN_K_Q8_0 ? "q8_0" : "q4_0",
                 src_dtype >= 0 ? xlarun_dtype_name(XLARUN__CAST(xlarun_dtype, src_dtype)) : "mixed",
                 q->m->plan.qkv_bias || q->m->plan.o_bias || q->m->plan.mlp_bias ? ",biases" : "",
                 q->m->cfg.n_experts ? ",routers" : "", q->m->cfg.moe_shared_size ? ",shared expert gates" : "",
                 q->opt->keep_embeddings ? ",embeddings" : "", kept_odd ? ",rows not a multiple of 32" : "");
        xlarun__qbuf_str(hb, tmp);
        if (eb.n > 1) { xlarun__qbuf_put(hb, ",", 1); xlarun__qbuf_put(hb, eb.p + 1, eb.n - 1); }
        xlarun__qbuf_put(hb, "}", 1);
        while (!hb->failed && (8 + hb->n) % 64) xlarun__qbuf_put(hb, " ", 1); /* data starts 64-aligned */
        if (hb->failed || eb.failed) st = xlarun__fail(err, XLARUN_ERR_MEMORY, "out of memory for the output header");
    }
    if (eb.p) XLARUN_FREE(eb.p, eb.u);
    return st;
}

static void xlarun__qprogress(xlarun__qctx *q, const char *name, uint64_t add) {
    q->done += add;
    if (q->opt->progress) q->opt->progress(q->opt->user, name, q->done, q->total);
}

/* pass 2: stream every shard's tensors into the output */
static xlarun_status xlarun__qconvert(xlarun__qctx *q, int fd, uint64_t data, const char *opath, xlarun_error *err) {
    size_t k = 0;
    uint32_t s;
    xlarun_status st = XLARUN_OK;
    for (s = 0; s < q->n_shards && st == XLARUN_OK; s++) {
        xlarun__file f;
        xlarun_st_reader r;
        void *hdr;
        char path[4096];
        const xlarun_st_tensor *t = NULL;
        XLARUN__TRY(xlarun__qopen(q, s, &f, &r, &hdr, path, sizeof path, err));
        for (;;) {
            xlarun__qplan *p;
            if ((st = xlarun_st_next(&r, &t, err)) != XLARUN_OK || !t) break;
            p = &q->plan[k++];
            if (!p->quant) {
                uint64_t done = 0;
                p->h = 0xcbf29ce484222325ull;
                while (done < t->nbytes && st == XLARUN_OK) {
                    size_t n = t->nbytes - done < q->in_cap ? XLARUN__CAST(size_t, t->nbytes - done) : q->in_cap, got;
                    if ((st = xlarun_st_read(&r, q->in, n, &got, err)) != XLARUN_OK) break;
                    st = xlarun__qwrite(fd, data + p->off + done, q->in, n, opath, err);
                    p->h = xlarun__qhash(p->h, q->in, n);
                    done += n;
                    xlarun__qprogress(q, t->name, n);
                }
            } else {
                size_t K = XLARUN__CAST(size_t, t->shape[1]), es = xlarun__dtypes[t->dtype].bits / 8;
                size_t rb = xlarun_k_qrow_bytes(p->qt, K), sb = K / XLARUN_K_QBLOCK * 2;
                size_t per = q->in_cap / (K * es), i;
                uint64_t rows = t->shape[0], r0 = 0;
                p->h = p->sh = 0xcbf29ce484222325ull;
                while (r0 < rows && st == XLARUN_OK) {
                    size_t nr = rows - r0 < per ? XLARUN__CAST(size_t, rows - r0) : per, got;
                    if ((st = xlarun_st_read(&r, q->in, nr * K * es, &got, err)) != XLARUN_OK) break;
                    for (i = 0; i < nr; i++) {
                        int rc;
                        xlarun_k_to_f32(xlarun__ktype(t->dtype), q->in + i * K * es, q->row, K);
                        rc = xlarun_k_quantize_row(p->qt, q->row, K, q->codes + i * rb, q->scales + i * sb);
                        if (rc) {
                            st = xlarun__fail(err, XLARUN_ERR_FORMAT, "%s: tensor '%s' row %llu: %s", path, t->name,
                                              XLARUN__CAST(unsigned long long, r0 + i),
                                              rc == 1 ? "a weight is not finite (inf or NaN)"
                                                      : "a block's scale is too large for f16 (|w| > 8.3e6)");
                            break;
                        }
                    }
                    if (st != XLARUN_OK) break;
                    st = xlarun__qwrite(fd, data + p->off + r0 * rb, q->codes, nr * rb, opath, err);
                    if (st == XLARUN_OK) st = xlarun__qwrite(fd, data + p->soff + r0 * sb, q->scales, nr * sb, opath, err);
                    p->h = xlarun__qhash(p->h, q->codes, nr * rb);
                    p->sh = xlarun__qhash(p->sh, q->scales, nr * sb);
                    r0 += nr;
                    xlarun__qprogress(q, t->name, XLARUN__CAST(uint64_t, nr) * K * es);
                }
            }
            if (st != XLARUN_OK) break;
        }
        xlarun__file_close(&f);
        XLARUN_FREE(hdr, q->u);
    }
    return st;
}

/* read the output back through the streaming reader: its header, and every byte against the
   hashes taken while writing */
static xlarun_status xlarun__qverify_bytes(xlarun__qctx *q, xlarun_error *err) {
    const xlarun__qctx *c = q;
    xlarun__file f;
    xlarun_st_reader r;
    void *hdr = NULL;
    char path[4096];
    const char *name = "model.safetensors";
    const xlarun_st_tensor *t = NULL;
    size_t k = 0, part = 0;
    xlarun_status st;
    XLARUN__TRY(xlarun__file_open(&f, NULL, q->dst, name, path, sizeof path, err));
    st = xlarun_st_begin(&r, xlarun__file_read, &f, path, f.size, err);
    if (st == XLARUN_OK) {
        hdr = XLARUN_MALLOC(xlarun_st_memory(&r), q->u);
        st = hdr ? xlarun_st_read_header(&r, hdr, xlarun_st_memory(&r), err) : xlarun__fail(err, XLARUN_ERR_MEMORY, "out of memory");
    }
    while (st == XLARUN_OK) {
        const xlarun__qplan *p;
        uint64_t want, h = 0xcbf29ce484222325ull, done = 0;
        if ((st = xlarun_st_next(&r, &t, err)) != XLARUN_OK || !t) break;
        if (k >= c->n_plan) { st = xlarun__fail(err, XLARUN_ERR_IO, "%s: verify: more tensors than written", path); break; }
        p = &c->plan[k];
        want = part ? p->sh : p->h;
        if ((part ? p->soff : p->off) + r.header_bytes + 8 != t->offset || (part ? p->sbytes : p->bytes) != t->nbytes) {
            st = xlarun__fail(err, XLARUN_ERR_IO, "%s: verify: tensor '%s' is not where it was written", path, t->name);
            break;
        }
        while (done < t->nbytes && st == XLARUN_OK) {
            size_t n = t->nbytes - done < c->in_cap ? XLARUN__CAST(size_t, t->nbytes - done) : c->in_cap, got;
            if ((st = xlarun_st_read(&r, c->in, n, &got, err)) != XLARUN_OK) break;
            h = xlarun__qhash(h, c->in, n);
            done += n;
        }
        if (st == XLARUN_OK && h != want)
            st = xlarun__fail(err, XLARUN_ERR_IO, "%s: verify: the bytes of tensor '%s' read back differ from those written",
                              path, t->name);
        if (p->quant && !part) part = 1;
        else { part = 0; k++; }
    }
    if (st == XLARUN_OK && k != c->n_plan)
        st = xlarun__fail(err, XLARUN_ERR_IO, "%s: verify: %lu tensors read back, %lu written", path,
                          XLARUN__CAST(unsigned long, k), XLARUN__CAST(unsigned long, c->n_plan));
    xlarun__file_close(&f);
    if (hdr) XLARUN_FREE(hdr, q->u);
    return st;
}

/* open the written model as any caller would and run one token */
static xlarun_status xlarun__qverify_model(xlarun__qctx *q, xlarun_error *err) {
    xlarun_model_options mo;
    xlarun_session_options so;
    xlarun_model *m = NULL;
    xlarun_session *s = NULL;
    xlarun_status st;
    memset(&mo, 0, sizeof mo);
    memset(&so, 0, sizeof so);
    mo.alloc_user = so.alloc_user = q->u;
    so.n_ctx = 4;
    so.n_threads = 1;
    st = xlarun_model_open(q->dst, &mo, &m, err);
    if (st == XLARUN_OK) st = xlarun_session_create(m, &so, &s, err);
    if (st == XLARUN_OK) {
        int32_t id = m->cfg.bos_token_id >= 0 && XLARUN__CAST(uint32_t, m->cfg.bos_token_id) < m->cfg.vocab_size ? m->cfg.bos_token_id : 0;
        st = xlarun_session_decode(s, id, err);
        if (st == XLARUN_OK) {
            const float *l = xlarun_session_logits(s);
            uint32_t i;
            for (i = 0; i < m->cfg.vocab_size; i++)
                if (!(l[i] - l[i] == 0.0f)) {
                    st = xlarun__fail(err, XLARUN_ERR_MODEL, "%s: verify: logit %u of a test token is not finite", q->dst, i);
                    break;
                }
        }
    }
    if (s) xlarun_session_free(s);
    if (m) xlarun_model_close(m);
    return st;
}

static xlarun_status xlarun__qcopy_file(xlarun__qctx *q, const char *name, xlarun_error *err) {
    xlarun__file f;
    xlarun_error e2;
    char path[4096], opath[4096];
    int fd, n;
    uint64_t at = 0;
    xlarun_status st = XLARUN_OK;
    if (xlarun__file_open(&f, NULL, q->src, name, path, sizeof path, &e2) != XLARUN_OK) return XLARUN_OK; /* absent */
    n = snprintf(opath, sizeof opath, "%s/%s", q->dst, name);
    if (n < 0 || XLARUN__CAST(size_t, n) >= sizeof opath) { xlarun__file_close(&f); return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "path too long: %s", q->dst); }
    fd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { xlarun__file_close(&f); return xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot create", opath); }
    for (;;) {
        size_t r = xlarun__file_read(&f, q->in, q->in_cap);
        if (r == XLARUN__CAST(size_t, -1)) { st = xlarun__fail(err, XLARUN_ERR_IO, "%s: read error", path); break; }
        if (r == 0) break;
        if ((st = xlarun__qwrite(fd, at, q->in, r, opath, err)) != XLARUN_OK) break;
        at += r;
    }
    if (close(fd) != 0 && st == XLARUN_OK) st = xlarun__fail(err, XLARUN_ERR_IO, "%s: write error on close", opath);
    xlarun__file_close(&f);
    return st;
}

XLARUN_API xlarun_status xlarun_quantize(const char *src, const char *dst, const xlarun_quantize_options *opt,
                                         xlarun_error *err) {
    static const xlarun_quantize_options defaults = {XLARUN_QUANT_Q8_0, 0, NULL, NULL, NULL, 0};
    static const char *const side[] = {"config.json", "generation_config.json", "tokenizer.json",
                                       "tokenizer_config.json", "special_tokens_map.json", "tokenizer.model"};
    xlarun__qctx q;
    xlarun__qbuf hb;
    xlarun__loader L;
    char *text, opath[4096];
    size_t len, i, maxk = 0;
    int fd = -1, n;
    xlarun_status st;
    xlarun__file probe;
    xlarun_error perr;
    if (!src || !dst) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_quantize: NULL folder");
    opt = opt ? opt : &defaults;
    if (opt->type != 0 && opt->type != XLARUN_QUANT_Q8_0 && opt->type != XLARUN_QUANT_Q4_0)
        return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "xlarun_quantize: unknown type %d", XLARUN__CAST(int, opt->type));
    memset(&q, 0, sizeof q);
    memset(&hb, 0, sizeof hb);
    memset(&L, 0, sizeof L);
    q.opt = opt;
    q.src = src;
    q.dst = dst;
    q.u = hb.u = opt->alloc_user;
    xlarun__arena_init(&q.a, NULL, 0, q.u);
    n = snprintf(opath, sizeof opath, "%s/model.safetensors", dst);
    if (n < 0 || XLARUN__CAST(size_t, n) >= sizeof opath) return xlarun__fail(err, XLARUN_ERR_ARGUMENT, "path too long: %s", dst);
    /* config.json and the shard list, as the loader reads them */
    q.m = XLARUN__CAST(xlarun_model *, xlarun__alloc_ex(&q.a, sizeof *q.m, 0, 0));
    st = q.m ? XLARUN_OK : xlarun__fail(err, XLARUN_ERR_MEMORY, "out of memory");
    if (st == XLARUN_OK) {
        memset(q.m, 0, sizeof *q.m);
        st = xlarun__read_small(&q.a, NULL, src, "config.json", XLARUN_MAX_CONFIG_BYTES, &text, &len, err);
    }
    if (st == XLARUN_OK) st = xlarun__parse_config(text, len, &q.m->cfg, &q.m->plan, NULL, err);
    if (st == XLARUN_OK) {
        q.shards = XLARUN__CAST(const char **, xlarun__alloc_ex(&q.a, sizeof(char *) * XLARUN__MAX_SHARDS, 0, 0));
        L.a = &q.a;
        L.m = q.m;
        L.n_slots = xlarun__n_slots(q.m);
        L.slots = XLARUN__CAST(xlarun__slot *, xlarun__alloc_ex(&q.a, sizeof(xlarun__slot) * XLARUN__CAST(size_t, L.n_slots), 0, 0));
        if (!q.shards || !L.slots) st = xlarun__fail(err, XLARUN_ERR_MEMORY, "out of memory");
    }
    if (st == XLARUN_OK) {
        char ppath[4096];
        if (xlarun__file_open(&probe, NULL, src, "model.safetensors", ppath, sizeof ppath, &perr) == XLARUN_OK) {
            xlarun__file_close(&probe);
            q.shards[0] = "model.safetensors";
            q.n_shards = 1;
        } else {
            st = xlarun__read_small(&q.a, NULL, src, "model.safetensors.index.json", XLARUN_MAX_INDEX_BYTES, &text, &len, err);
            if (st == XLARUN_ERR_IO)
                st = xlarun__fail(err, XLARUN_ERR_IO, "%s: no model.safetensors or model.safetensors.index.json", src);
            if (st == XLARUN_OK) st = xlarun__read_index(&L, text, len, q.shards, &q.n_shards, err);
        }
    }
    if (st == XLARUN_OK) st = xlarun__qplan_all(&q, &hb, err);
    /* buffers: a block of whole rows of the widest matrix, at least 1 MiB */
    if (st == XLARUN_OK) {
        maxk = xlarun__widest_input(q.m); /* an expert's rows too */
        q.in_cap = maxk * 4 > (1u << 20) ? maxk * 4 : (1u << 20);
        q.in = XLARUN__CAST(unsigned char *, XLARUN_MALLOC(q.in_cap, q.u));
        q.codes = XLARUN__CAST(unsigned char *, XLARUN_MALLOC(q.in_cap, q.u));
        q.scales = XLARUN__CAST(unsigned char *, XLARUN_MALLOC(q.in_cap / 8, q.u));
        q.row = XLARUN__CAST(float *, XLARUN_MALLOC(maxk * sizeof(float), q.u));
        if (!q.in || !q.codes || !q.scales || !q.row) st = xlarun__fail(err, XLARUN_ERR_MEMORY, "out of memory for the row buffers");
    }
    if (st == XLARUN_OK) {
        unsigned char len8[8];
        uint64_t hl = hb.n;
        int b;
        if (mkdir(dst, 0755) != 0 && errno != EEXIST) st = xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot create the folder", dst);
        else if ((fd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) st = xlarun__fail(err, XLARUN_ERR_IO, "%s: cannot create", opath);
        for (b = 0; b < 8; b++) len8[b] = XLARUN__CAST(unsigned char, hl >> (8 * b));
        if (st == XLARUN_OK) st = xlarun__qwrite(fd, 0, len8, 8, opath, err);
        if (st == XLARUN_OK) st = xlarun__qwrite(fd, 8, hb.p, hb.n, opath, err);
        if (st == XLARUN_OK) st = xlarun__qconvert(&q, fd, 8 + hl, opath, err);
        if (fd >= 0 && close(fd) != 0 && st == XLARUN_OK) st = xlarun__fail(err, XLARUN_ERR_IO, "%s: write error on close", opath);
    }
    for (i = 0; st == XLARUN_OK && i < sizeof side / sizeof side[0]; i++) st = xlarun__qcopy_file(&q, side[i], err);
    if (st == XLARUN_OK && !opt->no_verify) {
        if (opt->progress) opt->progress(opt->user, NULL, q.done, q.total); /* NULL: verifying */
        st = xlarun__qverify_bytes(&q, err);
        if (st == XLARUN_OK) st = xlarun__qverify_model(&q, err);
    }
    if (st != XLARUN_OK && fd >= 0) unlink(opath); /* never leave a half-written model behind */
    if (hb.p) XLARUN_FREE(hb.p, q.u);
    if (q.plan) XLARUN_FREE(q.plan, q.u);
    if (q.in) XLARUN_FREE(q.in, q.u);
    if (q.codes) XLARUN_FREE(q.codes, q.u);
    if (q.scales) XLARUN_FREE(q.scales, q.u);
    if (q.row) XLARUN_FREE(q.row, q.u);
    xlarun__arena_release_blocks(&q.a);
    if (st == XLARUN_OK) xlarun__ok(err);
    return st;
}

#else
XLARUN_API xlarun_status xlarun_quantize(const char *src, const char *dst, const xlarun_quantize_options *opt,
                                         xlarun_error *err) {
    (void)src; (void)dst; (void)opt;
    return xlarun__fail(err, XLARUN_ERR_UNSUPPORTED, "xlarun_quantize needs a POSIX file system (built with XLARUN_NO_STDIO, or not on POSIX)");
}
#endif

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
