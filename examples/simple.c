/* simple.c - the shortest complete use of xlarun: load, prompt, stream text, free.
   build/simple tests/fixtures/demo "What is xlarun?" */
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include <stdio.h>
#include <string.h>

static int print_piece(void *user, int32_t id, const char *text, size_t len) {
    (void)user; (void)id;
    fwrite(text, 1, len, stdout);           /* text arrives as it is generated */
    fflush(stdout);
    return 0;                               /* non-zero would stop */
}

int main(int argc, char **argv) {
    xlarun_model *model = NULL;
    xlarun_tokenizer *tok = NULL;
    xlarun_session *sess = NULL;
    xlarun_generator *gen = NULL;
    xlarun_session_options so;
    xlarun_chat_template tmpl;
    xlarun_chat_options co;
    xlarun_chat_message msg;
    xlarun_error err;
    char text[4096];
    size_t len;
    int ok;
    if (argc < 3) { fprintf(stderr, "usage: simple DIR PROMPT\n"); return 1; }
    memset(&so, 0, sizeof so);              /* zero means defaults */
    memset(&co, 0, sizeof co);
    msg.role = "user";
    msg.content = argv[2];
    so.n_ctx = 1024;
    ok = xlarun_model_open(argv[1], NULL, &model, &err) == XLARUN_OK &&
         xlarun_tokenizer_open(argv[1], NULL, &tok, &err) == XLARUN_OK &&
         xlarun_session_create(model, &so, &sess, &err) == XLARUN_OK &&
         xlarun_generator_create(sess, tok, NULL, &gen, &err) == XLARUN_OK &&   /* greedy */
         xlarun_chat_template_detect(xlarun_tokenizer_chat_template(tok), &tmpl, &err) == XLARUN_OK;
    if (ok) {
        xlarun_chat_options_from_tokenizer(tok, &co);
        ok = xlarun_chat_apply(&tmpl, &co, &msg, 1, text, sizeof text, &len, &err) == XLARUN_OK &&
             xlarun_generate_text(gen, text, len, XLARUN_ENCODE_NO_BOS, 128, print_piece, NULL, NULL, &err) == XLARUN_OK;
        printf("\n");
    }
    if (!ok) fprintf(stderr, "xlarun: error: %s\n", err.message);
    xlarun_generator_free(gen);
    xlarun_session_free(sess);
    xlarun_tokenizer_close(tok);
    xlarun_model_close(model);
    return ok ? 0 : 1;
}
