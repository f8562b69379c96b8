/* tools/quantize.c - build/quantize SRC_DIR DST_DIR [--type q8|q4] [--keep-embeddings]

   Converts a Hugging Face Llama checkpoint (F32/F16/BF16, one file or shards) into a q8_0 or
   q4_0 checkpoint that xlarun maps in place (format: README.md, "Quantized weights"). A thin
   CLI over xlarun_quantize: it streams (memory stays a few row blocks whatever the model's
   size), shows progress on stderr (tensor, bytes done, rate), then verifies the file it wrote
   (reads it back against hashes taken while writing, opens it and runs a token).
   Exit 0 on success; on any error one line `xlarun: error: <message>` and exit 1. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct progress_state { double t0, last; int tty, verifying; } progress_state;

static void progress(void *user, const char *tensor, uint64_t done, uint64_t total) {
    progress_state *p = (progress_state *)user;
    double t = now_s(), el = t - p->t0;
    if (!tensor) {
        fprintf(stderr, "%squantize: %.1f MB in %.1f s (%.0f MB/s); verifying the output\n", p->tty ? "\r\033[K" : "",
                (double)done / 1e6, el, el > 0 ? (double)done / 1e6 / el : 0.0);
        p->verifying = 1;
        return;
    }
    if (t - p->last < (p->tty ? 0.2 : 2.0) && done < total) return;
    p->last = t;
    fprintf(stderr, "%squantize: %6.1f%%  %8.1f / %.1f MB  %6.0f MB/s  %s%s", p->tty ? "\r\033[K" : "",
            total ? 100.0 * (double)done / (double)total : 100.0, (double)done / 1e6, (double)total / 1e6,
            el > 0 ? (double)done / 1e6 / el : 0.0, tensor, p->tty ? "" : "\n");
}

static int usage(void) {
    fprintf(stderr, "usage: quantize SRC_DIR DST_DIR [--type q8|q4] [--keep-embeddings] [--no-verify]\n"
                    "  --type q8            q8_0: int8 codes, one f16 scale per 32 weights (default)\n"
                    "  --type q4            q4_0: 4-bit codes, one f16 scale per 32 weights\n"
                    "  --keep-embeddings    leave embed_tokens and lm_head in the source dtype\n"
                    "  --no-verify          skip reading the output back and running a token\n");
    return 1;
}

int main(int argc, char **argv) {
    xlarun_quantize_options o;
    xlarun_error err;
    progress_state ps;
    const char *src = NULL, *dst = NULL;
    int i;
    memset(&o, 0, sizeof o);
    o.type = XLARUN_QUANT_Q8_0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--type") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "q8") || !strcmp(argv[i], "q8_0")) o.type = XLARUN_QUANT_Q8_0;
            else if (!strcmp(argv[i], "q4") || !strcmp(argv[i], "q4_0")) o.type = XLARUN_QUANT_Q4_0;
            else {
                fprintf(stderr, "xlarun: error: --type %s: expected q8 or q4\n", argv[i]);
                return 1;
            }
        } else if (!strcmp(argv[i], "--keep-embeddings")) o.keep_embeddings = 1;
        else if (!strcmp(argv[i], "--no-verify")) o.no_verify = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return usage(), 0;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "xlarun: error: unknown option %s\n", argv[i]);
            return usage();
        } else if (!src) src = argv[i];
        else if (!dst) dst = argv[i];
        else return usage();
    }
    if (!src || !dst) return usage();
    memset(&ps, 0, sizeof ps);
    ps.t0 = now_s();
    ps.tty = isatty(2);
    o.progress = progress;
    o.user = &ps;
    if (xlarun_quantize(src, dst, &o, &err) != XLARUN_OK) {
        if (ps.tty) fprintf(stderr, "\n");
        fprintf(stderr, "xlarun: error: %s\n", err.message);
        return 1;
    }
    fprintf(stderr, "quantize: %s written (%s), verified, in %.1f s\n", dst,
            o.type == XLARUN_QUANT_Q4_0 ? "q4_0" : "q8_0", now_s() - ps.t0);
    return 0;
}
