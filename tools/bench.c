/* bench - measure xlarun's prefill and decode speed against what this machine can do.

     build/bench -m DIR [-m DIR ...] -p 256 -n 64 -t 2 [-t 1,2] [-r 5] [--no-mmap]
                 [--temp T --top-k K --top-p P --min-p M]

   For each model and thread count: -r runs (after one warm-up run) of a random -p token prompt
   followed by -n tokens, greedy, or drawn by a sampler (seed 1) when --temp is above 0, so
   decode_tok_s includes the sampler's time; one JSON object per line with the medians. In the same run, a
   child process measures the machine: the best multi-threaded read bandwidth over a buffer far
   larger than the caches (several passes, huge pages where the kernel gives them, each thread
   reading its slice both as one stream and as 8 runs side by side) and the f32
   FMA peak (independent FMA chains on every thread). Decoding reads every weight once per
   token, and attention the keys and values of every earlier position (kv_bytes_per_token, the
   mean over the generated tokens), so decode_gb_s = decode_tok_s * (weight_bytes_per_token +
   kv_bytes_per_token), and bandwidth_ratio compares it with the probe. run_bandwidth_ratio
   compares each run's decode with a probe read right before the run and right after its decode
   (run_read_gb_s: the better of the two, the median over the runs).
   prefill_gflops counts the matrix and attention FLOPs of the prompt. -t defaults to the machine's
   physical cores (xlarun_physical_cores). Each object also names the CPU ("cpu": /proc/cpuinfo's
   model name, else the cpuid brand string; "cpu_id": vendor, family, model and stepping on x86,
   else null) and the kernel set ("kernels"), and times opening the
   tokenizer: tokenizer_load_s is the median of 5 xlarun_tokenizer_open calls (after one more) on
   --tokenizer DIR (a folder, or its tokenizer.json), else the model folder's tokenizer.json;
   huge_page_bytes is what the process held in 2 MB pages at the end (Linux: FilePmdMapped +
   AnonHugePages of /proc/self/smaps_rollup, else null), mostly the weights: a file just written
   stays in the page cache in 4 KB pages, and is mapped so, until the cache lets it go
   (tools/README.md, "The second Zen 4 session");
   "tokenizer" names the file, or is null when there is none. tools/mktokenizer.py writes one of
   Llama 3's size. pool_waits_prefill and pool_waits_per_token (medians) count how often a thread
   of the session's pool slept on a futex instead of spinning: a worker waiting for the next task,
   or the caller for the workers to finish one. Each costs a wake-up, which a virtual machine's
   idle vCPU can make long; 0 with one thread.

     build/bench -m DIR ... --grammar FILE.gbnf | --json-schema FILE.json [--tokenizer DIR]

   also decodes each run a second time under the grammar (the tokenizer of DIR, or of --tokenizer):
   every step computes the full mask (xlarun_matcher_allowed: no greedy shortcut), takes the best
   allowed token and accepts it; a finished sentence starts the next. decode_tok_s_grammar,
   grammar_ms_per_token (the matcher's time) and grammar_overhead (1 - decode_tok_s_grammar /
   decode_tok_s, the medians of the same runs) say what the grammar costs.

     build/bench --chat TEMPLATE.jinja --messages MSGS.json [--tools TOOLS.json] [--tokenizer DIR] [-r 20]

   times the chat template instead: compiling it, sizing a render (xlarun_chat_render_memory) and
   rendering into the caller's memory (xlarun_chat_render), medians of -r runs; with --tokenizer,
   also the number of tokens of the rendered text (encoded as generation encodes it, no BOS added),
   to hold the render time against the prefill time of that many tokens.

     build/bench --gemv q4_0|q8_0|bf16 [-k 2048] [--precision exact|bf16] [-t N] [-r 20]
                 [--streams 1,2,4,8] [--mb 512]

   measures the decode GEMV alone against a plain read of the same memory: --mb of rows of K
   elements (2 MB pages where the kernel gives them), cut into products of 4096 rows, each
   thread a share of every product (as the decode's threads do); each pass reads the memory,
   runs the GEMV once for each --streams (runs of rows a thread reads at once), and reads it
   again. The host's memory can change pace from second to second, so each GEMV is held
   against the better of the reads beside it: "ratio" is the median of those per-pass ratios,
   "gb_s" the median GB/s of weights (codes and scales) per pass; "default_streams" is what a
   session picks on this CPU. bf16 with --precision bf16 is the bf16-activation GEMV. */
#define _GNU_SOURCE
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <pthread.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <ctype.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* bytes of the process in 2 MB pages (mapped file and anonymous) as JSON, or null */
static void huge_page_bytes(char *out, size_t size) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long long kb = 0, v;
    int found = 0;
    snprintf(out, size, "null");
    if (!f) return;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "FilePmdMapped: %lld kB", &v) == 1 || sscanf(line, "AnonHugePages: %lld kB", &v) == 1) {
            kb += v;
            found = 1;
        }
    fclose(f);
    if (found) snprintf(out, size, "%lld", kb * 1024);
}

/* ---- machine probes ------------------------------------------------------------------------ */

typedef unsigned long long v8u __attribute__((vector_size(64), aligned(64)));

struct gemv_spec;
typedef struct probe_job {
    const unsigned char *buf;
    size_t bytes;
    size_t streams;                      /* read_slice: the slice read as this many runs at once;
                                            gemv_slice: the GEMV's runs */
    int *go;                             /* 0: wait; 1: start; -1: a thread could not start, do nothing */
    double seconds;
    unsigned long long sink;
    float fsink;
    long fma_iters;
    const struct gemv_spec *gemv;        /* gemv_slice (bench --gemv): the GEMV, thread t of nt */
    int t, nt;
} probe_job;

/* wait for run_threads' word; 0 when the run is called off */
static int start_gate(const probe_job *j) {
    int g;
    while ((g = __atomic_load_n(j->go, __ATOMIC_ACQUIRE)) == 0) sched_yield();
    return g > 0;
}

/* read this thread's slice with several independent accumulators, front to back (streams 1) or
   as `streams` equal runs read side by side (a line of each in turn), as the decode kernels read
   their rows on cores whose outstanding misses bound one stream (tools/README.md, Intel) */
static void *read_slice(void *arg) {
    probe_job *j = (probe_job *)arg;
    const v8u *p = (const v8u *)j->buf;
    size_t n = j->bytes / sizeof(v8u), ns = j->streams > 1 ? j->streams : 1, len = n / ns, i, r;
    v8u a = {0}, b = {0}, c = {0}, d = {0};
    double t0;
    if (!start_gate(j)) return NULL;
    t0 = now();
    for (i = 0; i + 4 <= len; i += 4)
        for (r = 0; r < ns; r++) {
            const v8u *q = p + r * len + i;
            a += q[0];
            b += q[1];
            c += q[2];
            d += q[3];
        }
    j->seconds = now() - t0;
    a += b + c + d;
    j->sink = a[0] ^ a[7];
    return NULL;
}

/* independent FMA chains: enough of them to cover the FMA latency on every port */
#if defined(__AVX512F__)
#include <immintrin.h>
typedef __m512 vf;
#define VF_LANES 16
#define VF_SET(x) _mm512_set1_ps(x)
#define VF_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VF_ADD(a, b) _mm512_add_ps(a, b)
#define VF_FIRST(a) _mm512_cvtss_f32(a)
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
typedef __m256 vf;
#define VF_LANES 8
#define VF_SET(x) _mm256_set1_ps(x)
#define VF_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VF_ADD(a, b) _mm256_add_ps(a, b)
#define VF_FIRST(a) _mm256_cvtss_f32(a)
#elif defined(__ARM_NEON)
#include <arm_neon.h>
typedef float32x4_t vf;
#define VF_LANES 4
#define VF_SET(x) vdupq_n_f32(x)
#define VF_FMA(a, b, c) vfmaq_f32(c, a, b)
#define VF_ADD(a, b) vaddq_f32(a, b)
#define VF_FIRST(a) vgetq_lane_f32(a, 0)
#else
typedef float vf;
#define VF_LANES 1
#define VF_SET(x) (x)
#define VF_FMA(a, b, c) ((a) * (b) + (c))
#define VF_ADD(a, b) ((a) + (b))
#define VF_FIRST(a) (a)
#endif
#define N_CHAINS 12

static void *fma_chains(void *arg) {
    probe_job *j = (probe_job *)arg;
    vf x[N_CHAINS], m = VF_SET(0.999999f), k = VF_SET(1e-7f);
    long it;
    int q;
    double t0;
    for (q = 0; q < N_CHAINS; q++) x[q] = VF_SET((float)(q + 1));
    if (!start_gate(j)) return NULL;
    t0 = now();
    for (it = 0; it < j->fma_iters; it++) {
        x[0] = VF_FMA(x[0], m, k); x[1] = VF_FMA(x[1], m, k); x[2] = VF_FMA(x[2], m, k);
        x[3] = VF_FMA(x[3], m, k); x[4] = VF_FMA(x[4], m, k); x[5] = VF_FMA(x[5], m, k);
        x[6] = VF_FMA(x[6], m, k); x[7] = VF_FMA(x[7], m, k); x[8] = VF_FMA(x[8], m, k);
        x[9] = VF_FMA(x[9], m, k); x[10] = VF_FMA(x[10], m, k); x[11] = VF_FMA(x[11], m, k);
    }
    j->seconds = now() - t0;
    for (q = 1; q < N_CHAINS; q++) x[0] = VF_ADD(x[0], x[q]);
    j->fsink = VF_FIRST(x[0]);
    return NULL;
}

/* units per second of all threads reading (or computing) at once, timed by the slowest; 0 when a
   thread could not be started (the ones that did are released without measuring) */
static double run_threads(int nt, void *(*fn)(void *), probe_job *jobs, double units) {
    pthread_t th[512];
    double worst = 0;
    int i, started, go = 0;
    for (started = 0; started < nt; started++) {
        jobs[started].go = &go;
        if (pthread_create(&th[started], NULL, fn, &jobs[started]) != 0) break;
    }
    __atomic_store_n(&go, started == nt ? 1 : -1, __ATOMIC_RELEASE);
    for (i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        if (jobs[i].seconds > worst) worst = jobs[i].seconds;
    }
    return started == nt && worst > 0 ? units / worst : 0;
}

/* a filled buffer of bytes, huge pages where the kernel gives them; NULL if there is no room */
static unsigned char *probe_buffer(size_t bytes) {
    unsigned char *buf = (unsigned char *)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(buf, bytes, MADV_HUGEPAGE);
#endif
    memset(buf, 1, bytes);
    return buf;
}

/* the best of passes of nt threads reading their slices of buf at once, GB/s (0: they could not
   run); each pass reads every slice both ways, one stream and PROBE_STREAMS runs, so the probe is
   the better of what a plain loop and a decode kernel's access pattern get from the memory */
#define PROBE_STREAMS 8
static double best_read(const unsigned char *buf, size_t bytes, int nt, int passes) {
    size_t slice = bytes / (size_t)nt / (PROBE_STREAMS * 256) * (PROBE_STREAMS * 256); /* whole runs of 4 lines */
    probe_job jobs[512];
    double best = 0;
    int pass, i, way;
    for (pass = 0; pass < passes; pass++)
        for (way = 0; way < 2; way++) {
            double r;
            memset(jobs, 0, sizeof jobs);
            for (i = 0; i < nt; i++) {
                jobs[i].buf = buf + (size_t)i * slice;
                jobs[i].bytes = slice;
                jobs[i].streams = way ? PROBE_STREAMS : 1;
            }
            r = run_threads(nt, read_slice, jobs, (double)slice * nt / 1e9);
            if (r > best) best = r;
        }
    return best;
}

static void probe_machine(int nt, double *gb_s, double *gflops) {
    size_t bytes = (size_t)1 << 30;
    unsigned char *buf = probe_buffer(bytes);
    probe_job jobs[512];
    int pass, i;
    *gb_s = 0;
    *gflops = 0;
    if (!buf) return;
    *gb_s = best_read(buf, bytes, nt, 8);
    munmap(buf, bytes);
    for (pass = 0; pass < 3; pass++) {
        double r;
        long iters = 20000000;
        memset(jobs, 0, sizeof jobs);
        for (i = 0; i < nt; i++) jobs[i].fma_iters = iters;
        r = run_threads(nt, fma_chains, jobs, (double)iters * N_CHAINS * VF_LANES * 2 * nt / 1e9);
        if (r > *gflops) *gflops = r;
    }
}

/* the probe runs in a child so its 1 GiB buffer does not count in this process's peak RSS */
static int probe_in_child(int nt, double *gb_s, double *gflops) {
    int fd[2];
    pid_t pid;
    double r[2] = {0, 0};
    if (pipe(fd) != 0) return 0;
    pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        close(fd[0]);
        probe_machine(nt, &r[0], &r[1]);
        if (write(fd[1], r, sizeof r) != (ssize_t)sizeof r) _exit(1);
        _exit(0);
    }
    close(fd[1]);
    if (read(fd[0], r, sizeof r) != (ssize_t)sizeof r) r[0] = r[1] = 0;
    close(fd[0]);
    waitpid(pid, NULL, 0);
    *gb_s = r[0];
    *gflops = r[1];
    return r[0] > 0;
}

/* A second child keeps a smaller buffer (512 MiB) and reads it whenever asked, the best of two
   passes: the probe right before each run (its prefill) and right after its decode. This
   machine's bandwidth can double from one minute to the next, so each run's decode is compared
   with the memory as it was during that run (run_bandwidth_ratio), not only with the best the
   first probe saw. The child answers "ready" once its buffer is filled, so filling it never
   overlaps a timed run; a child that died makes the next question fail (EPIPE, SIGPIPE being
   ignored), not the bench. */
typedef struct probe_server {
    pid_t pid;
    int ask, answer;
} probe_server;

static void probe_server_stop(probe_server *ps) {
    close(ps->ask); /* the child's read ends, and so does the child */
    close(ps->answer);
    waitpid(ps->pid, NULL, 0);
}

static int probe_server_start(probe_server *ps, int nt) {
    int a[2], b[2];
    if (pipe(a) != 0) return 0;
    if (pipe(b) != 0) { close(a[0]); close(a[1]); return 0; }
    ps->pid = fork();
    if (ps->pid < 0) { close(a[0]); close(a[1]); close(b[0]); close(b[1]); return 0; }
    if (ps->pid == 0) {
        size_t bytes = (size_t)1 << 29;
        unsigned char *buf;
        char c = 'r';
        close(a[1]);
        close(b[0]);
        if (!(buf = probe_buffer(bytes)) || write(b[1], &c, 1) != 1) _exit(1);
        while (read(a[0], &c, 1) == 1) {
            double best = best_read(buf, bytes, nt, 2);
            if (write(b[1], &best, sizeof best) != (ssize_t)sizeof best) break;
        }
        _exit(0);
    }
    close(a[0]);
    close(b[1]);
    ps->ask = a[1];
    ps->answer = b[0];
    {
        char ready;
        if (read(ps->answer, &ready, 1) != 1) { probe_server_stop(ps); return 0; }
    }
    return 1;
}

/* GB/s, or 0 when the child did not answer */
static double probe_server_read(probe_server *ps) {
    double r = 0;
    char c = 'p';
    if (write(ps->ask, &c, 1) != 1 || read(ps->answer, &r, sizeof r) != (ssize_t)sizeof r) return 0;
    return r;
}

/* ---- model runs ----------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng_next(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

/* how often the session's pool threads have slept so far (xlarun__pool's waits; 0 with one thread) */
static uint64_t pool_waits(xlarun_session *s) {
    uint64_t w = 0;
    if (s->pool.threads) {
        xlarun__lock(&s->pool.mu);
        w = s->pool.waits;
        xlarun__unlock(&s->pool.mu);
    }
    return w;
}

static int fail(const char *msg) {
    fprintf(stderr, "xlarun: error: %s\n", msg);
    return 1;
}

/* the same, once the probe child is running: it is stopped and reaped first */
static int fail_probed(probe_server *ps, const char *msg) {
    probe_server_stop(ps);
    return fail(msg);
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (b = (char *)malloc((size_t)n + 1)) != NULL) {
        if (fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
        else { b[n] = 0; if (len) *len = (size_t)n; }
    }
    fclose(f);
    return b;
}

/* --chat: the template's compile and render times (see the top comment) */
static int bench_chat(const char *tmpl_path, const char *msgs_path, const char *tools_path, const char *tok_dir, int reps) {
    size_t tlen = 0, wbytes = 0, text_len = 0, len = 0, n_ids = 0;
    char *src = slurp(tmpl_path, &tlen), *msgs = slurp(msgs_path, NULL), *tools = tools_path ? slurp(tools_path, NULL) : NULL;
    char *text = NULL;
    void *work = NULL;
    double comp[101], meas[101], rend[101], t0;
    xlarun_chat_template *t = NULL;
    xlarun_chat_input in;
    xlarun_error err;
    int r;
    if (!src || !msgs || (tools_path && !tools)) return fail("cannot read the template, messages or tools file");
    memset(&in, 0, sizeof in);
    in.messages_json = msgs;
    in.tools_json = tools;
    in.bos_token = "<|endoftext|>";
    in.eos_token = "<|im_end|>";
    for (r = 0; r <= reps; r++) { /* run 0 warms up */
        xlarun_chat_template_free(t);
        t0 = now();
        if (xlarun_chat_template_create(src, tlen, &t, &err) != XLARUN_OK) return fail(err.message);
        comp[r ? r - 1 : 0] = now() - t0;
        t0 = now();
        if (xlarun_chat_render_memory(t, &in, &wbytes, &text_len, &err) != XLARUN_OK) return fail(err.message);
        meas[r ? r - 1 : 0] = now() - t0;
        if (!work) { work = malloc(wbytes); text = (char *)malloc(text_len + 1); if (!work || !text) return fail("out of memory"); }
        t0 = now();
        if (xlarun_chat_render(t, &in, work, wbytes, text, text_len + 1, &len, &err) != XLARUN_OK) return fail(err.message);
        rend[r ? r - 1 : 0] = now() - t0;
    }
    if (tok_dir) {
        xlarun_tokenizer *tok;
        int32_t *ids = (int32_t *)malloc((len + 16) * sizeof(int32_t));
        if (!ids || xlarun_tokenizer_open(tok_dir, NULL, &tok, &err) != XLARUN_OK) return fail(ids ? err.message : "out of memory");
        size_t sb = xlarun_tokenizer_scratch_bytes(tok, len);
        void *scratch = malloc(sb);
        if (!scratch) return fail("out of memory");
        if (xlarun_tokenizer_encode(tok, text, len, XLARUN_ENCODE_NO_BOS, ids, len + 16, &n_ids, scratch, sb, &err) != XLARUN_OK)
            return fail(err.message);
        free(scratch);
        xlarun_tokenizer_close(tok);
        free(ids);
    }
    printf("{\"template\": \"%s\", \"text_bytes\": %lu, \"work_bytes\": %lu, \"tokens\": %lu, \"compile_ms\": %.4f, "
           "\"render_memory_ms\": %.4f, \"render_ms\": %.4f, \"runs\": %d}\n", tmpl_path, (unsigned long)len,
           (unsigned long)wbytes, (unsigned long)n_ids, 1e3 * median(comp, reps), 1e3 * median(meas, reps), 1e3 * median(rend, reps), reps);
    xlarun_chat_template_free(t);
    free(src); free(msgs); free(tools); free(text); free(work);
    return 0;
}

/* the grammar run: a matcher over the tokenizer's vocabulary */
typedef struct gstate {
    xlarun_grammar *g;
    xlarun_matcher *m;
    xlarun_tokenizer *t;
    uint32_t *mask;
    double secs;      /* in the matcher this run */
    int sentences;    /* completed and started again */
} gstate;

/* compiles the grammar (GBNF, or made from a JSON Schema) for the tokenizer in tdir */
static int gstate_open(gstate *G, const char *gfile, int schema, const char *tdir, uint32_t n_vocab, char *msg, size_t cap) {
    xlarun_error err;
    xlarun_matcher_options mo;
    size_t len = 0, need = 0, k, *lens = NULL;
    char *text = slurp(gfile, &len), *gbnf = NULL, **toks = NULL;
    const int32_t *eos = NULL;
    uint32_t V, i;
    int ok = 0;
    memset(G, 0, sizeof *G);
    if (!text) { snprintf(msg, cap, "%s: cannot read", gfile); return 0; }
    if (schema) {
        xlarun_status st = xlarun_json_schema_to_grammar(text, len, NULL, 0, &need, &err);
        if (st == XLARUN_OK && !(gbnf = (char *)malloc(need + 1))) { snprintf(msg, cap, "out of memory"); goto done; }
        if (st == XLARUN_OK) st = xlarun_json_schema_to_grammar(text, len, gbnf, need + 1, &len, &err);
        if (st != XLARUN_OK) { snprintf(msg, cap, "%.300s: %.380s", gfile, err.message); goto done; }
    }
    if (xlarun_grammar_compile(schema ? gbnf : text, len, &G->g, &err) != XLARUN_OK) { snprintf(msg, cap, "%.300s: %.380s", gfile, err.message); goto done; }
    if (xlarun_tokenizer_open(tdir, NULL, &G->t, &err) != XLARUN_OK) { snprintf(msg, cap, "%.600s", err.message); goto done; }
    V = xlarun_tokenizer_vocab_size(G->t);
    if (V > n_vocab) { snprintf(msg, cap, "%.500s: the tokenizer has %u ids, the model %u", tdir, V, n_vocab); goto done; }
    toks = (char **)calloc(n_vocab, sizeof *toks);
    lens = (size_t *)calloc(n_vocab, sizeof *lens);
    G->mask = (uint32_t *)malloc((n_vocab + 31) / 32 * sizeof(uint32_t));
    if (!toks || !lens || !G->mask) { snprintf(msg, cap, "out of memory"); goto done; }
    for (i = 0; i < V; i++) {
        size_t n = xlarun_tokenizer_token_bytes(G->t, (int32_t)i, 0, NULL, 0);
        if (!n) continue;
        if (!(toks[i] = (char *)malloc(n))) { snprintf(msg, cap, "out of memory"); goto done; }
        lens[i] = xlarun_tokenizer_token_bytes(G->t, (int32_t)i, 0, toks[i], n);
    }
    memset(&mo, 0, sizeof mo);
    mo.n_end = xlarun_tokenizer_eos_ids(G->t, &eos);
    mo.end_ids = eos;
    if (xlarun_matcher_create(G->g, (const char *const *)toks, lens, n_vocab, &mo, &G->m, &err) != XLARUN_OK) { snprintf(msg, cap, "%.600s", err.message); goto done; }
    ok = 1;
done:
    if (toks) for (k = 0; k < n_vocab; k++) free(toks[k]);
    free(toks);
    free(lens);
    free(text);
    free(gbnf);
    return ok;
}

static void gstate_close(gstate *G) {
    xlarun_matcher_free(G->m);
    xlarun_grammar_free(G->g);
    xlarun_tokenizer_close(G->t);
    free(G->mask);
}

/* the best token the grammar allows (the full mask each step); -1 on an error. Where the
   best is an eos id of a complete sentence, the next sentence starts instead. */
static int32_t gstate_next(gstate *G, const float *logits, uint32_t V, xlarun_error *err) {
    double t0 = now();
    const int32_t *eos = NULL;
    size_t n_eos = xlarun_tokenizer_eos_ids(G->t, &eos), e;
    int32_t best;
    uint32_t i;
    int fresh = 0;
    for (;;) {
        int end = 0;
        best = -1;
        if (xlarun_matcher_allowed(G->m, G->mask, err) != XLARUN_OK) return -1;
        for (i = 0; i < V; i++)
            if ((G->mask[i >> 5] >> (i & 31) & 1u) && (best < 0 || logits[i] > logits[best])) best = (int32_t)i;
        for (e = 0; e < n_eos && best >= 0; e++) end |= eos[e] == best;
        if (best >= 0 && !end) break;
        if (fresh) { snprintf(err->message, sizeof err->message, "the grammar allows no token at its start"); return -1; }
        xlarun_matcher_reset(G->m);  /* the sentence is complete: the next one starts */
        G->sentences++;
        fresh = 1;
    }
    if (xlarun_matcher_accept_token(G->m, best, err) != XLARUN_OK) return -1;
    G->secs += now() - t0;
    return best;
}

/* ---- the machine and the tokenizer ---------------------------------------------------------- */

/* the CPU's name as a JSON string's contents: /proc/cpuinfo's "model name", else cpuid's brand */
static void cpu_name(char *out, size_t cap) {
    char line[512], raw[256] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    size_t i, n = 0;
    if (f) {
        while (!raw[0] && fgets(line, sizeof line, f)) {
            char *c = strchr(line, ':');
            if (strncmp(line, "model name", 10) || !c) continue;
            for (c++; *c == ' ' || *c == '\t'; c++) {}
            snprintf(raw, sizeof raw, "%s", c);
            raw[strcspn(raw, "\r\n")] = 0;
        }
        fclose(f);
    }
#if defined(__x86_64__) || defined(__i386__)
    if (!raw[0] && (unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x80000004u) {
        unsigned r[12], k;
        for (k = 0; k < 3; k++) __get_cpuid(0x80000002u + k, &r[4 * k], &r[4 * k + 1], &r[4 * k + 2], &r[4 * k + 3]);
        memcpy(raw, r, sizeof r);
        raw[sizeof r] = 0;
    }
#endif
    for (i = 0; raw[i] == ' '; i++) {}
    if (!raw[i]) snprintf(raw, sizeof raw, "unknown");
    for (; raw[i] && n + 3 < cap; i++) {   /* JSON: escape quotes and backslashes, drop controls */
        unsigned char ch = (unsigned char)raw[i];
        if (ch < 0x20) continue;
        if (ch == '"' || ch == '\\') out[n++] = '\\';
        out[n++] = (char)ch;
    }
    while (n && out[n - 1] == ' ') n--;
    out[n] = 0;
}

/* the CPU's identity as JSON: "GenuineIntel family 6 model 207 stepping 2" from cpuid (a
   virtual machine's model name is often only "Intel(R) Xeon(R) Processor"), null off x86 */
static void cpu_id(char *out, size_t cap) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d, fam, mod, k;
    char v[13];
    if (!__get_cpuid(0, &a, &b, &c, &d) || a < 1) { snprintf(out, cap, "null"); return; }
    memcpy(v, &b, 4);
    memcpy(v + 4, &d, 4);
    memcpy(v + 8, &c, 4);
    v[12] = 0;
    for (k = 0; k < 12; k++)
        if (!isalnum((unsigned char)v[k])) v[k] = '?';
    __get_cpuid(1, &a, &b, &c, &d);
    fam = (a >> 8) & 15;
    mod = (a >> 4) & 15;
    if (fam == 15) fam += (a >> 20) & 255;
    if (fam == 6 || fam >= 15) mod += ((a >> 16) & 15) << 4;
    snprintf(out, cap, "\"%s family %u model %u stepping %u\"", v, fam, mod, a & 15);
#else
    snprintf(out, cap, "null");
#endif
}

/* "tokenizer": "PATH", "tokenizer_tokens": N, "tokenizer_load_s": S, (or nulls) into out; the
   folder is given (tok: a folder or its tokenizer.json) or the model's */
static int tokenizer_timing(const char *tok, const char *model_dir, char *out, size_t cap) {
    char dir[4096], file[4200];
    double t[6];
    xlarun_tokenizer *tk = NULL;
    xlarun_error err;
    uint32_t n_tokens = 0;
    size_t n;
    int r;
    FILE *f;
    snprintf(dir, sizeof dir, "%s", tok ? tok : model_dir);
    n = strlen(dir);
    if (n >= 14 && !strcmp(dir + n - 14, "tokenizer.json")) {   /* a file: its folder */
        dir[n - 14] = 0;
        if (!dir[0]) snprintf(dir, sizeof dir, ".");
    }
    snprintf(file, sizeof file, "%s%stokenizer.json", dir, dir[strlen(dir) - 1] == '/' ? "" : "/");
    if (!tok && !(f = fopen(file, "r"))) {   /* the model folder has none */
        snprintf(out, cap, "\"tokenizer\": null, \"tokenizer_tokens\": null, \"tokenizer_load_s\": null, ");
        return 1;
    } else if (!tok) fclose(f);
    for (r = 0; r < 6; r++) {
        double t0 = now();
        if (xlarun_tokenizer_open(dir, NULL, &tk, &err) != XLARUN_OK) {   /* the message, for the error line */
            snprintf(out, cap, "%s", err.message);
            return 0;
        }
        t[r] = now() - t0;
        n_tokens = xlarun_tokenizer_vocab_size(tk);
        xlarun_tokenizer_close(tk);
    }
    snprintf(out, cap, "\"tokenizer\": \"%s\", \"tokenizer_tokens\": %u, \"tokenizer_load_s\": %.4f, ", file, n_tokens,
             median(t + 1, 5));
    return 1;
}

/* ---- --gemv: the decode GEMV against a plain read of the same memory ----------------------- */

/* the GEMV of a bench --gemv pass, shared by its threads */
typedef struct gemv_spec {
    int kind;                            /* 0 q4_0, 1 q8_0, 2 bf16 (f32 activations), 3 bf16 activations */
    const unsigned char *w, *sc;         /* the rows' codes (or bf16 values), the q types' scales */
    const void *x;                       /* the activations as the GEMV takes them */
    float *y;
    size_t K, rows, rb, sb;              /* rb, sb: bytes of a row's codes and of its scales */
} gemv_spec;

#define GEMV_PRODUCT 4096 /* rows of a product; each thread takes its share of each */

static void *gemv_slice(void *arg) {
    probe_job *j = (probe_job *)arg;
    const gemv_spec *g = j->gemv;
    size_t p, len, r0, r1;
    double t0;
    if (!start_gate(j)) return NULL;
    t0 = now();
    for (p = 0; p < g->rows; p += GEMV_PRODUCT) {
        len = g->rows - p < GEMV_PRODUCT ? g->rows - p : GEMV_PRODUCT;
        r0 = p + len * (size_t)j->t / (size_t)j->nt;
        r1 = p + len * (size_t)(j->t + 1) / (size_t)j->nt;
        if (g->kind < 2)
            xlarun_k_qgemv(g->kind ? XLARUN_K_Q8_0 : XLARUN_K_Q4_0, g->w, g->sc, g->K, r0, r1, g->x, g->y, (int)j->streams);
        else if (g->kind == 2) xlarun_k_gemv(XLARUN_K_BF16, g->w, g->K, r0, r1, (const float *)g->x, g->y, (int)j->streams);
        else xlarun_k_gemv_bf16x(g->w, g->K, r0, r1, (const uint16_t *)g->x, g->y, (int)j->streams);
    }
    j->seconds = now() - t0;
    return NULL;
}

/* GB/s of nt threads: the GEMV with `streams` runs a thread, or (streams 0) a plain read of
   each thread's slice of the codes; 0 if a thread could not start */
static double gemv_pass(const gemv_spec *g, int nt, int streams) {
    static probe_job jobs[512];
    size_t slice = g->rows * g->rb / (size_t)nt / 256 * 256;
    int i;
    memset(jobs, 0, sizeof jobs);
    for (i = 0; i < nt; i++) {
        jobs[i].gemv = g;
        jobs[i].t = i;
        jobs[i].nt = nt;
        jobs[i].streams = streams ? (size_t)streams : 1;
        jobs[i].buf = g->w + (size_t)i * slice;
        jobs[i].bytes = slice;
    }
    if (!streams) return run_threads(nt, read_slice, jobs, (double)slice * nt / 1e9);
    return run_threads(nt, gemv_slice, jobs, (double)g->rows * (double)(g->rb + g->sb) / 1e9);
}

static int bench_gemv(const char *type, long K_in, int act_bf16, const int *threads, int n_threads, int passes,
                      const int *streams, int n_streams, long mb) {
    gemv_spec g;
    size_t K, i, k, nrow_pat = 64;
    float *row, *x;
    char cpu[300], cpuid[96], huge[64], msg[300];
    double *rd, *gb, *ra;
    int ti, pass, si;
    memset(&g, 0, sizeof g);
    if (!strcmp(type, "q4_0")) g.kind = 0;
    else if (!strcmp(type, "q8_0")) g.kind = 1;
    else if (!strcmp(type, "bf16")) g.kind = act_bf16 ? 3 : 2;
    else {
        snprintf(msg, sizeof msg, "--gemv must be q4_0, q8_0 or bf16, not '%s'", type);
        return fail(msg);
    }
    if (K_in < 32 || K_in > 65536 || (g.kind < 2 && K_in % 32)) return fail("-k must be 32..65536 (a multiple of 32 for q4_0 and q8_0)");
    if (mb < 1 || mb > 65536) return fail("--mb must be 1..65536");
    if (passes < 1 || passes > 1000) return fail("need 1 <= -r <= 1000");
    K = (size_t)K_in;
    g.K = K;
    g.rb = g.kind < 2 ? xlarun_k_qrow_bytes(g.kind ? XLARUN_K_Q8_0 : XLARUN_K_Q4_0, K) : 2 * K;
    g.sb = g.kind < 2 ? K / 32 * 2 : 0;
    g.rows = ((size_t)mb << 20) / (g.rb + g.sb);
    for (ti = 0; ti < n_threads; ti++)
        if (g.rows < 64 * (size_t)threads[ti]) return fail("--mb is too small for that many threads and K");
    row = (float *)malloc(nrow_pat * K * sizeof(float));
    x = (float *)malloc(K * sizeof(float));
    g.x = malloc(xlarun_k_qact_bytes(K) + 4 * K + 64);
    g.y = (float *)malloc(g.rows * sizeof(float));
    rd = (double *)malloc((size_t)passes * sizeof(double));
    gb = (double *)malloc((size_t)passes * (size_t)n_streams * sizeof(double));
    ra = (double *)malloc((size_t)passes * (size_t)n_streams * sizeof(double));
    g.w = probe_buffer(g.rows * g.rb);
    g.sc = g.sb ? probe_buffer(g.rows * g.sb) : NULL;
    if (!row || !x || !g.x || !g.y || !rd || !gb || !ra || !g.w || (g.sb && !g.sc)) return fail("out of memory");
    for (i = 0; i < nrow_pat * K; i++) row[i] = (float)((i * 7919u) % 1000u) / 1000.0f - 0.5f;
    for (k = 0; k < K; k++) x[k] = (float)(k % 13u) / 13.0f - 0.4f;
    for (i = 0; i < g.rows; i++) { /* 64 distinct rows, repeated */
        unsigned char *w = (unsigned char *)(uintptr_t)g.w + i * g.rb;
        if (i >= nrow_pat) {
            memcpy(w, g.w + (i % nrow_pat) * g.rb, g.rb);
            if (g.sb) memcpy((unsigned char *)(uintptr_t)g.sc + i * g.sb, g.sc + (i % nrow_pat) * g.sb, g.sb);
        } else if (g.kind < 2)
            xlarun_k_quantize_row(g.kind ? XLARUN_K_Q8_0 : XLARUN_K_Q4_0, row + i * K, K, w, (unsigned char *)(uintptr_t)g.sc + i * g.sb);
        else xlarun_k_f32_to_bf16_row(row + i * K, (uint16_t *)(void *)w, K);
    }
    if (g.kind < 2) xlarun_k_quantize_act(x, K, (void *)(uintptr_t)g.x);
    else if (g.kind == 2) memcpy((void *)(uintptr_t)g.x, x, K * sizeof(float));
    else xlarun_k_f32_to_bf16_row(x, (uint16_t *)(uintptr_t)g.x, K);
    cpu_name(cpu, sizeof cpu);
    cpu_id(cpuid, sizeof cpuid);
    huge_page_bytes(huge, sizeof huge);
    for (ti = 0; ti < n_threads; ti++) {
        int nt = threads[ti];
        for (pass = 0; pass < passes; pass++) {
            double r0 = gemv_pass(&g, nt, 0), r1;
            for (si = 0; si < n_streams; si++) gb[si * passes + pass] = gemv_pass(&g, nt, streams[si]);
            r1 = gemv_pass(&g, nt, 0);
            if (r0 <= 0 || r1 <= 0) return fail("could not start the threads");
            rd[pass] = r0 > r1 ? r0 : r1;
            for (si = 0; si < n_streams; si++) ra[si * passes + pass] = gb[si * passes + pass] / rd[pass];
        }
        printf("{\"gemv\": \"%s\", \"precision\": \"%s\", \"K\": %zu, \"rows\": %zu, \"threads\": %d, \"passes\": %d, \"cpu\": \"%s\", "
               "\"cpu_id\": %s, \"kernels\": \"%s\", \"huge_page_bytes\": %s, \"default_streams\": %d, \"read_gb_s\": %.2f, \"streams\": [",
               type, g.kind == 3 ? "bf16" : "exact", K, g.rows, nt, passes, cpu, cpuid, XLARUN_K_ISA, huge,
               xlarun__gemv_streams(), median(rd, passes));
        for (si = 0; si < n_streams; si++)
            printf("%s{\"streams\": %d, \"gb_s\": %.2f, \"ratio\": %.3f}", si ? ", " : "", streams[si],
                   median(gb + si * passes, passes), median(ra + si * passes, passes));
        printf("]}\n");
        fflush(stdout);
    }
    return 0;
}

/* --precision's value; 0 and a message in msg when it is neither */
static int parse_precision(const char *v, xlarun_precision *p, char *msg, size_t cap) {
    if (!strcmp(v, "exact")) *p = XLARUN_PRECISION_EXACT;
    else if (!strcmp(v, "bf16")) *p = XLARUN_PRECISION_BF16_ACTIVATIONS;
    else {
        snprintf(msg, cap, "--precision must be exact or bf16, not '%s'", v);
        return 0;
    }
    return 1;
}

/* "1,2,4" into out (at most cap numbers); how many */
static int int_list(const char *v, int *out, int cap) {
    int n = 0;
    while (*v && n < cap) {
        out[n++] = atoi(v);
        v += strcspn(v, ",");
        if (*v == ',') v++;
    }
    return n;
}

static void usage(FILE *f) {
    fprintf(f, "usage: bench -m DIR [-m DIR ...] [-p 256] [-n 64] [-t N | -t 1,2] [-r 5] [-b N] [--no-mmap] [--no-amx]\n"
               "             [--precision exact|bf16] [--kv f32|f16|bf16] [--temp T] [--top-k K] [--top-p P] [--min-p M]\n"
               "             [--tokenizer DIR|FILE]\n"
               "  -t: thread counts (default: the machine's physical cores, %u here)\n"
               "  --tokenizer: the tokenizer.json tokenizer_load_s times (default: each model folder's)\n"
               "  -b: the session's prefill chunk (n_batch; default the library's, 256)\n"
               "  --no-amx: the AVX-512 kernels even where the session got AMX tiles (an A/B of the tiles)\n"
               "  --temp above 0: decode draws each token with these sampler settings (greedy by default)\n"
               "  prints one JSON object per model and thread count (medians of -r runs)\n"
               "  --grammar F.gbnf | --json-schema F.json [--tokenizer DIR]: decode again under the grammar\n"
               "       bench --chat TEMPLATE.jinja --messages MSGS.json [--tools TOOLS.json] [--tokenizer DIR] [-r 20]\n"
               "  times compiling and rendering a chat template instead\n"
               "       bench --gemv q4_0|q8_0|bf16 [-k 2048] [--precision exact|bf16] [-t N] [-r 20] [--streams 1,2,4,8] [--mb 512]\n"
               "  times the decode GEMV against a plain read of the same memory instead\n", xlarun_physical_cores());
}

int main(int argc, char **argv) {
    const char *dirs[16];
    int n_dirs = 0, n_prompt = 256, n_gen = 64, reps = 5, no_mmap = 0, no_amx = 0, n_batch = 0, i, k;
    xlarun_precision precision = XLARUN_PRECISION_EXACT;
    xlarun_kv_type kv = XLARUN_KV_F32;
    static const char *kv_names[] = {"f32", "f16", "bf16"};
    int threads[16] = {0}, n_threads = 1, schema = 0;
    const char *tok_dir = NULL, *gfile = NULL;
    char cpu[300], cpuid[96], tok_json[16][4800];
    xlarun_sampling sp;
    xlarun_error serr;
    char msg[700];
    memset(&sp, 0, sizeof sp);
    sp.seed = 1;
    threads[0] = (int)xlarun_physical_cores();
    { /* --chat: the template benchmark, a mode of its own */
        const char *ct = NULL, *cm = NULL, *ctools = NULL, *ctok = NULL;
        int creps = 20, chat = 0;
        for (i = 1; i + 1 < argc; i += 2) {
            if (!strcmp(argv[i], "--chat")) { ct = argv[i + 1]; chat = 1; }
            else if (!strcmp(argv[i], "--messages")) cm = argv[i + 1];
            else if (!strcmp(argv[i], "--tools")) ctools = argv[i + 1];
            else if (!strcmp(argv[i], "--tokenizer")) ctok = argv[i + 1];
            else if (!strcmp(argv[i], "-r")) creps = atoi(argv[i + 1]);
            else if (chat) { snprintf(msg, sizeof msg, "unknown option '%s' with --chat (see --help)", argv[i]); return fail(msg); }
        }
        if (chat) {
            if (!cm) return fail("--chat needs --messages MSGS.json");
            if (creps < 1 || creps > 100) return fail("need 1 <= -r <= 100");
            return bench_chat(ct, cm, ctools, ctok, creps);
        }
    }
    { /* --gemv: the decode GEMV against a read, a mode of its own */
        const char *gt = NULL;
        long gk = 2048, gmb = 512;
        int gpasses = 20, gstreams[8] = {1, 2, 4, 8}, gns = 4;
        for (i = 1; i < argc; i++)
            if (!strcmp(argv[i], "--gemv")) gt = i + 1 < argc ? argv[i + 1] : "";
        if (gt) {
            for (i = 1; i < argc; i += 2) {
                const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
                if (!v) { snprintf(msg, sizeof msg, "%s needs a value (see --help)", a); return fail(msg); }
                if (!strcmp(a, "--gemv")) continue;
                else if (!strcmp(a, "-k")) gk = atol(v);
                else if (!strcmp(a, "--mb")) gmb = atol(v);
                else if (!strcmp(a, "-r")) gpasses = atoi(v);
                else if (!strcmp(a, "--precision")) {
                    if (!parse_precision(v, &precision, msg, sizeof msg)) return fail(msg);
                } else if (!strcmp(a, "-t")) n_threads = int_list(v, threads, 16);
                else if (!strcmp(a, "--streams")) gns = int_list(v, gstreams, 8);
                else { snprintf(msg, sizeof msg, "unknown option '%s' with --gemv (see --help)", a); return fail(msg); }
            }
            for (k = 0; k < n_threads; k++)
                if (threads[k] < 1 || threads[k] > 512) return fail("threads must be 1..512");
            for (k = 0; k < gns; k++)
                if (gstreams[k] != 1 && gstreams[k] != 2 && gstreams[k] != 4 && gstreams[k] != 8) return fail("--streams takes 1, 2, 4 and 8");
            if (!n_threads || !gns) return fail("-t and --streams need at least one value");
            return bench_gemv(gt, gk, precision == XLARUN_PRECISION_BF16_ACTIVATIONS, threads, n_threads, gpasses, gstreams, gns, gmb);
        }
    }
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        if (!strcmp(a, "--no-mmap")) { no_mmap = 1; continue; }
        if (!strcmp(a, "--no-amx")) { no_amx = 1; continue; }
        if (!v) { snprintf(msg, sizeof msg, "%s needs a value (see --help)", a); return fail(msg); }
        i++;
        if (!strcmp(a, "-m") && n_dirs < 16) dirs[n_dirs++] = v;
        else if (!strcmp(a, "-p")) n_prompt = atoi(v);
        else if (!strcmp(a, "-n")) n_gen = atoi(v);
        else if (!strcmp(a, "-r")) reps = atoi(v);
        else if (!strcmp(a, "-b")) n_batch = atoi(v);
        else if (!strcmp(a, "--tokenizer")) tok_dir = v;
        else if (!strcmp(a, "--temp")) sp.temperature = (float)atof(v);
        else if (!strcmp(a, "--top-k")) sp.top_k = atoi(v);
        else if (!strcmp(a, "--top-p")) sp.top_p = atof(v);
        else if (!strcmp(a, "--min-p")) sp.min_p = (float)atof(v);
        else if (!strcmp(a, "--grammar") || !strcmp(a, "--json-schema")) {
            if (gfile) return fail("give one --grammar or --json-schema");
            gfile = v;
            schema = !strcmp(a, "--json-schema");
        }
        else if (!strcmp(a, "--precision")) {
            if (!parse_precision(v, &precision, msg, sizeof msg)) return fail(msg);
        }
        else if (!strcmp(a, "--kv")) {
            if (!strcmp(v, "f32")) kv = XLARUN_KV_F32;
            else if (!strcmp(v, "f16")) kv = XLARUN_KV_F16;
            else if (!strcmp(v, "bf16")) kv = XLARUN_KV_BF16;
            else { snprintf(msg, sizeof msg, "--kv must be f32, f16 or bf16, not '%s'", v); return fail(msg); }
        }
        else if (!strcmp(a, "-t")) n_threads = int_list(v, threads, 16);
        else { snprintf(msg, sizeof msg, "unknown option '%s' (see --help)", a); return fail(msg); }
    }
    if (!n_dirs) return fail("no model: give -m DIR");
    if (n_prompt < 1 || n_gen < 2 || reps < 1 || reps > 100) return fail("need -p >= 1, -n >= 2, 1 <= -r <= 100");
    if (n_batch < 0 || n_batch > 65536) return fail("-b must be 1..65536 (0: the default)");
    for (k = 0; k < n_threads; k++)
        if (threads[k] < 1 || threads[k] > 512) return fail("threads must be 1..512");
    if (xlarun_sampling_check(&sp, &serr) != XLARUN_OK) return fail(serr.message);
    signal(SIGPIPE, SIG_IGN); /* a probe child that died: its pipe's write fails instead */
    cpu_name(cpu, sizeof cpu);
    cpu_id(cpuid, sizeof cpuid);
    for (k = 0; k < n_dirs; k++)   /* before the probes: nothing else runs while it is timed */
        if (!tokenizer_timing(tok_dir, dirs[k], tok_json[k], sizeof tok_json[k])) return fail(tok_json[k]);

    for (k = 0; k < n_threads; k++) {
        int nt = threads[k], d;
        double mem_gb_s, peak_gflops;
        probe_server ps;
        if (!probe_in_child(nt, &mem_gb_s, &peak_gflops)) return fail("the machine probe failed");
        if (!probe_server_start(&ps, nt)) return fail("the machine probe failed"); /* before any thread starts */
        for (d = 0; d < n_dirs; d++) {
            xlarun_model *m;
            xlarun_model_options mo;
            xlarun_session_options so;
            xlarun_session *s;
            xlarun_sampler *smp = NULL;
            xlarun_error err;
            const xlarun_config *c;
            int32_t *ids = (int32_t *)malloc((size_t)n_prompt * sizeof(int32_t));
            double pre[101], dec[101], rd[101], ratio[101], t0, t1, t2, flops, wbytes, kvbytes, attn, pre_tok_s, dec_tok_s;
            double decg[101], gms[101], pw[101], dw[101]; /* the pool's waits a prefill, a decoded token */
            gstate G;
            struct rusage ru;
            char sampling[96], huge[32];
            int r, g, probe_failed = 0;
            uint64_t w0, w1, w2;
            memset(&mo, 0, sizeof mo);
            mo.no_mmap = no_mmap;
            if (!ids) return fail_probed(&ps, "out of memory");
            if (xlarun_model_open(dirs[d], &mo, &m, &err) != XLARUN_OK) { free(ids); return fail_probed(&ps, err.message); }
            c = xlarun_model_config(m);
            memset(&so, 0, sizeof so);
            so.n_ctx = (uint32_t)(n_prompt + n_gen);
            so.n_threads = (uint32_t)nt;
            so.n_batch = (uint32_t)n_batch;
            so.precision = precision;
            so.kv_type = kv;
            if (xlarun_session_create(m, &so, &s, &err) != XLARUN_OK) { xlarun_model_close(m); free(ids); return fail_probed(&ps, err.message); }
            if (no_amx && s->amx == 1) s->amx = 0; /* the executor passes tile scratch only where amx is 1 */
            if (sp.temperature > 0.0f && xlarun_sampler_create(&sp, c->vocab_size, &smp, &err) != XLARUN_OK) {
                xlarun_session_free(s); xlarun_model_close(m); free(ids); return fail_probed(&ps, err.message);
            }
            for (i = 0; i < n_prompt; i++) ids[i] = (int32_t)(rng_next() % c->vocab_size);
            memset(&G, 0, sizeof G);
            if (gfile && !gstate_open(&G, gfile, schema, tok_dir ? tok_dir : dirs[d], c->vocab_size, msg, sizeof msg)) {
                gstate_close(&G); xlarun_sampler_free(smp); xlarun_session_free(s); xlarun_model_close(m); free(ids);
                return fail_probed(&ps, msg);
            }
            for (r = -1; r < reps; r++) { /* run -1 warms the page cache and the caches */
                xlarun_session_reset(s);
                if (smp) xlarun_sampler_reset(smp);
                if (r >= 0) rd[r] = probe_server_read(&ps);
                w0 = pool_waits(s);
                t0 = now();
                if (xlarun_session_prefill(s, ids, (size_t)n_prompt, &err) != XLARUN_OK) break;
                t1 = now();
                w1 = pool_waits(s);
                for (g = 1; g < n_gen; g++)
                    if (xlarun_session_decode(s, smp ? xlarun_sampler_sample(smp, xlarun_session_logits(s))
                                                     : xlarun_session_argmax(s), &err) != XLARUN_OK) break;
                t2 = now();
                w2 = pool_waits(s);
                if (g < n_gen) break;
                if (r >= 0) {
                    double after = probe_server_read(&ps);
                    if (after > rd[r]) rd[r] = after;
                    if ((probe_failed = !(rd[r] > 0))) break;
                    pre[r] = n_prompt / (t1 - t0);
                    dec[r] = (n_gen - 1) / (t2 - t1);
                    ratio[r] = dec[r] / rd[r]; /* times the bytes per token below: the same for every run */
                    pw[r] = (double)(w1 - w0);
                    dw[r] = (double)(w2 - w1) / (n_gen - 1);
                }
                if (gfile) { /* the same decode under the grammar */
                    int32_t next;
                    xlarun_session_reset(s);
                    xlarun_matcher_reset(G.m);
                    G.secs = 0;
                    if (xlarun_session_prefill(s, ids, (size_t)n_prompt, &err) != XLARUN_OK) break;
                    t1 = now();
                    for (g = 1; g < n_gen; g++)
                        if ((next = gstate_next(&G, xlarun_session_logits(s), c->vocab_size, &err)) < 0 ||
                            xlarun_session_decode(s, next, &err) != XLARUN_OK) break;
                    t2 = now();
                    if (g < n_gen) break;
                    if (r >= 0) { decg[r] = (n_gen - 1) / (t2 - t1); gms[r] = G.secs / (n_gen - 1) * 1e3; }
                }
            }
            if (r < reps) {
                gstate_close(&G);
                xlarun_sampler_free(smp); xlarun_session_free(s); xlarun_model_close(m); free(ids);
                return fail_probed(&ps, probe_failed ? "the machine probe failed" : err.message);
            }
            pre_tok_s = median(pre, reps);
            dec_tok_s = median(dec, reps);
            wbytes = (double)xlarun_model_weight_bytes(m);
            /* decode step g (1..n_gen-1) attends over n_prompt + g positions (or a local
               layer's window): keys and values of every layer, 2 or 4 bytes each; the mean is
               at g = n_gen / 2 */
            /* FLOPs of the prompt: 2 per weight of every layer matrix per token (a sparse layer:
               its router, the experts a token runs, and a shared expert with its gate), the
               lm_head once, and attention (QK and PV: 4 * heads * head_dim per key, keys 1..n,
               or the window's) */
            {
                double H = c->hidden_size, I = c->intermediate_size, hd = c->head_dim;
                double qd = c->n_heads * hd, kvd = c->n_kv_heads * hd;
                double layers = 0, keys = 0, kv_pos = 0;
                uint32_t l, i;
                for (l = 0; l < c->n_layers; l++) {
                    layers += H * qd + 2 * H * kvd + qd * H +
                              (m->layers[l].experts ? H * c->n_experts + 3.0 * H * c->moe_intermediate_size * c->n_experts_used +
                                               (c->moe_shared_size ? H + 3.0 * H * c->moe_shared_size : 0) : 3 * H * I);
                    double w = m->layers[l].window; /* the layer's, as the model's plan sets it */
                    double mid = n_prompt + n_gen / 2.0;
                    for (i = 1; i <= (uint32_t)n_prompt; i++) keys += w && i > w ? w : i;
                    kv_pos += w && mid > w ? w : mid;
                }
                attn = 4.0 * qd * keys;
                flops = 2.0 * layers * n_prompt + 2.0 * c->vocab_size * H + attn;
                kvbytes = 2.0 * c->n_kv_heads * c->head_dim * (kv == XLARUN_KV_F32 ? 4 : 2) * kv_pos;
            }
            getrusage(RUSAGE_SELF, &ru);
            huge_page_bytes(huge, sizeof huge);
            if (smp) snprintf(sampling, sizeof sampling, "temp %g top_k %d top_p %g min_p %g", (double)sp.temperature,
                              (int)sp.top_k, sp.top_p, (double)sp.min_p);
            else snprintf(sampling, sizeof sampling, "greedy");
            printf("{\"model\": \"%s\", \"cpu\": \"%s\", \"cpu_id\": %s, %s", dirs[d], cpu, cpuid, tok_json[d]);
            printf("\"dtype\": \"%s\", \"threads\": %d, \"n_prompt\": %d, \"n_gen\": %d, "
                   "\"runs\": %d, \"prefill_tok_s\": %.2f, \"decode_tok_s\": %.2f, "
                   "\"weight_bytes_per_token\": %.0f, \"kv_bytes_per_token\": %.0f, \"decode_gb_s\": %.2f, \"mem_read_gb_s\": %.2f, "
                   "\"bandwidth_ratio\": %.3f, \"run_read_gb_s\": %.2f, \"run_bandwidth_ratio\": %.3f, \"prefill_gflops\": %.1f, \"fma_peak_gflops\": %.1f, "
                   "\"prefill_peak_ratio\": %.3f, \"peak_rss_bytes\": %ld, \"huge_page_bytes\": %s, \"pool_waits_prefill\": %.0f, \"pool_waits_per_token\": %.2f, \"kernels\": \"%s\", \"amx\": \"%s\", \"precision\": \"%s\", "
                   "\"kv_type\": \"%s\", \"sampling\": \"%s\"",
                   xlarun_model_dtype(m), nt, n_prompt, n_gen, reps, pre_tok_s, dec_tok_s, wbytes, kvbytes,
                   dec_tok_s * (wbytes + kvbytes) / 1e9, mem_gb_s, dec_tok_s * (wbytes + kvbytes) / 1e9 / mem_gb_s,
                   median(rd, reps), median(ratio, reps) * (wbytes + kvbytes) / 1e9,
                   pre_tok_s * flops / n_prompt / 1e9, peak_gflops,
                   pre_tok_s * flops / n_prompt / 1e9 / peak_gflops, ru.ru_maxrss * 1024L, huge, median(pw, reps), median(dw, reps), XLARUN_K_ISA, no_amx ? "off (--no-amx)" : xlarun_session_amx(s),
                   precision == XLARUN_PRECISION_EXACT ? "exact" : "bf16-activations", kv_names[kv], sampling);
            if (gfile)
                printf(", \"grammar\": \"%s\", \"decode_tok_s_grammar\": %.2f, \"grammar_ms_per_token\": %.3f, "
                       "\"grammar_overhead\": %.3f, \"grammar_sentences\": %d",
                       gfile, median(decg, reps), median(gms, reps), 1 - median(decg, reps) / dec_tok_s, G.sentences);
            printf("}\n");
            fflush(stdout);
            gstate_close(&G);
            xlarun_sampler_free(smp);
            xlarun_session_free(s);
            xlarun_model_close(m);
            free(ids);
        }
        probe_server_stop(&ps);
    }
    return 0;
}
