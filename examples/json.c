/* json.c - ask a model for a JSON object and read it back.

     build/json MODEL_DIR ["prompt"]

   A JSON Schema becomes a grammar (xlarun_json_schema_to_grammar), and the generator samples
   only tokens that keep the reply a prefix of compact JSON that the schema accepts, so the
   reply always parses: the properties come in the schema's order, with no white space, and
   this program reads them with a few lines of C instead of a JSON library. */
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SCHEMA =
    "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"name\", \"age\", \"city\"],"
    " \"properties\": {\"name\": {\"type\": \"string\", \"maxLength\": 40},"
    "                  \"age\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 150},"
    "                  \"city\": {\"type\": \"string\", \"maxLength\": 40}}}";

typedef struct reply { char text[2048]; size_t n; } reply;

static int on_token(void *user, int32_t id, const char *text, size_t len) {
    reply *r = (reply *)user;
    (void)id;
    if (r->n + len < sizeof r->text) { memcpy(r->text + r->n, text, len); r->n += len; r->text[r->n] = 0; }
    return 0;
}

/* "key": then a JSON string into out (escapes decoded; \u as UTF-8) */
static const char *read_string(const char *p, const char *key, char *out, size_t cap) {
    size_t n = 0, k = strlen(key);
    if (*p++ != '"' || strncmp(p, key, k) || p[k] != '"' || p[k + 1] != ':' || p[k + 2] != '"') return NULL;
    for (p += k + 3; *p && *p != '"'; p++) {
        unsigned c = (unsigned char)*p;
        if (c == '\\') {
            const char *esc = "\"\"\\\\//b\bf\fn\nr\rt\t", *e;
            if (*++p == 'u') {
                c = (unsigned)strtoul((char[5]){p[1], p[2], p[3], p[4], 0}, NULL, 16);
                p += 4;
                if (c >= 0xD800 && c < 0xDC00 && p[1] == '\\' && p[2] == 'u') { /* a surrogate pair */
                    unsigned lo = (unsigned)strtoul((char[5]){p[3], p[4], p[5], p[6], 0}, NULL, 16);
                    c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
                if (n + 4 >= cap) return NULL;
                if (c < 0x80) out[n++] = (char)c;
                else if (c < 0x800) { out[n++] = (char)(0xC0 | c >> 6); out[n++] = (char)(0x80 | (c & 63)); }
                else if (c < 0x10000) { out[n++] = (char)(0xE0 | c >> 12); out[n++] = (char)(0x80 | (c >> 6 & 63)); out[n++] = (char)(0x80 | (c & 63)); }
                else { out[n++] = (char)(0xF0 | c >> 18); out[n++] = (char)(0x80 | (c >> 12 & 63)); out[n++] = (char)(0x80 | (c >> 6 & 63)); out[n++] = (char)(0x80 | (c & 63)); }
                continue;
            }
            for (e = esc; *e && *e != *p; e += 2) {}
            c = (unsigned char)e[1];
        }
        if (n + 1 >= cap) return NULL;
        out[n++] = (char)c;
    }
    out[n] = 0;
    return *p == '"' ? p + 1 : NULL;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : NULL;
    const char *prompt = argc > 2 ? argv[2] : "Invent a person. Answer in JSON with their name, age and city.";
    xlarun_error err;
    xlarun_model *model = NULL;
    xlarun_tokenizer *tok = NULL;
    xlarun_session *sess = NULL;
    xlarun_generator *gen = NULL;
    xlarun_grammar *grammar = NULL;
    xlarun_generator_options go;
    xlarun_generate_result res;
    static reply r;
    char gbnf[8192], name[256], city[256];
    size_t len = 0;
    long age = -1;
    const char *p;
    int rc = 1;
    if (!dir) { fprintf(stderr, "usage: %s MODEL_DIR [\"prompt\"]\n", argv[0]); return 2; }
    /* schema -> grammar -> the generator's option */
    if (xlarun_json_schema_to_grammar(SCHEMA, strlen(SCHEMA), gbnf, sizeof gbnf, &len, &err) != XLARUN_OK ||
        xlarun_grammar_compile(gbnf, len, &grammar, &err) != XLARUN_OK ||
        xlarun_model_open(dir, NULL, &model, &err) != XLARUN_OK || xlarun_tokenizer_open(dir, NULL, &tok, &err) != XLARUN_OK ||
        xlarun_session_create(model, NULL, &sess, &err) != XLARUN_OK)
        goto fail;
    memset(&go, 0, sizeof go);   /* greedy, eos ids from the folder */
    go.grammar = grammar;
    if (xlarun_generator_create(sess, tok, &go, &gen, &err) != XLARUN_OK ||
        xlarun_generate_text(gen, prompt, strlen(prompt), 0, 200, on_token, &r, &res, &err) != XLARUN_OK)
        goto fail;
    printf("%s\n", r.text);
    if (res.stop != XLARUN_STOP_EOS && res.stop != XLARUN_STOP_GRAMMAR) {
        fprintf(stderr, "the reply did not finish in 200 tokens\n");
        goto done;
    }
    /* read it back: {"name":"...","age":N,"city":"..."} and nothing else */
    if ((p = r.text, *p++ == '{') && (p = read_string(p, "name", name, sizeof name)) && !strncmp(p, ",\"age\":", 7) &&
        (age = strtol(p + 7, (char **)&p, 10), *p++ == ',') && (p = read_string(p, "city", city, sizeof city)) && !strcmp(p, "}")) {
        printf("name: %s\nage: %ld\ncity: %s\n", name, age, city);
        rc = 0;
    } else fprintf(stderr, "could not read the reply back\n");
    goto done;
fail:
    fprintf(stderr, "error: %s\n", err.message);
done:
    xlarun_generator_free(gen);
    xlarun_session_free(sess);
    xlarun_tokenizer_close(tok);
    xlarun_model_close(model);
    xlarun_grammar_free(grammar);
    return rc;
}
