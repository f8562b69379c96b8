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
    xlarun_chat_template *tmpl = NULL;
    xlarun_session_options so;
    xlarun_chat_input in;
    xlarun_chat_message msg;
    xlarun_error err;
    const char *src = NULL;
    char *text = NULL;
    size_t len;
    int ok;
    if (argc < 3) { fprintf(stderr, "usage: simple DIR PROMPT\n"); return 1; }
    memset(&so, 0, sizeof so);              /* zero means defaults */
    memset(&in, 0, sizeof in);
    msg.role = "user";
    msg.content = argv[2];
    so.n_ctx = 1024;
    so.n_threads = xlarun_physical_cores();  /* one per core */
    ok = xlarun_model_open(argv[1], NULL, &model, &err) == XLARUN_OK &&
         xlarun_tokenizer_open(argv[1], NULL, &tok, &err) == XLARUN_OK &&
         xlarun_session_create(model, &so, &sess, &err) == XLARUN_OK &&
         xlarun_generator_create(sess, tok, NULL, &gen, &err) == XLARUN_OK;    /* greedy */
    if (ok && !(src = xlarun_tokenizer_chat_template(tok))) {
        strcpy(err.message, "the folder has no chat template");
        ok = 0;
    }
    if (ok) {                               /* the model's own Jinja chat template */
        in.messages = &msg;
        in.n_messages = 1;
        xlarun_chat_input_from_tokenizer(tok, &in);                             /* bos_token, eos_token */
        ok = xlarun_chat_template_create(src, strlen(src), &tmpl, &err) == XLARUN_OK &&
             xlarun_chat_render_alloc(tmpl, &in, &text, &len, &err) == XLARUN_OK &&
             xlarun_generate_text(gen, text, len, XLARUN_ENCODE_NO_BOS, 128, print_piece, NULL, NULL, &err) == XLARUN_OK;
        printf("\n");
    }
    if (!ok) fprintf(stderr, "xlarun: error: %s\n", err.message);
    xlarun_chat_text_free(text);
    xlarun_chat_template_free(tmpl);
    xlarun_generator_free(gen);
    xlarun_session_free(sess);
    xlarun_tokenizer_close(tok);
    xlarun_model_close(model);
    return ok ? 0 : 1;
}
