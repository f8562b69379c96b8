/* simple.c - the shortest complete use of xlarun: load, prompt, stream greedy tokens, free.
   build/simple DIR 128000 9906 1917 */
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    xlarun_model *model;
    xlarun_session *sess;
    xlarun_session_options so = {0, 0, 0, NULL};
    xlarun_error err;
    int32_t prompt[64];
    int n = 0, i;
    if (argc < 3) { fprintf(stderr, "usage: simple DIR ID [ID...]\n"); return 1; }
    for (i = 2; i < argc && n < 64; i++) prompt[n++] = (int32_t)atoi(argv[i]);
    if (xlarun_model_open(argv[1], NULL, &model, &err) != XLARUN_OK) {
        fprintf(stderr, "xlarun: error: %s\n", err.message);
        return 1;
    }
    so.n_ctx = 128;
    if (xlarun_session_create(model, &so, &sess, &err) != XLARUN_OK ||
        xlarun_session_prefill(sess, prompt, (size_t)n, &err) != XLARUN_OK) {
        fprintf(stderr, "xlarun: error: %s\n", err.message);
        xlarun_model_close(model);
        return 1;
    }
    for (i = 0; i < 16; i++) {                     /* greedy: feed back the most likely id */
        int32_t next = xlarun_session_argmax(sess);
        printf("%d ", (int)next);
        if (xlarun_session_decode(sess, next, &err) != XLARUN_OK) break;
    }
    printf("\n");
    xlarun_session_free(sess);
    xlarun_model_close(model);
    return 0;
}
