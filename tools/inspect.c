/* inspect - validate a checkpoint folder as xlarun would load it, and report everything.

     build/inspect DIR

   Prints the config.json summary, a table of every tensor of every shard (name, dtype, shape,
   bytes, shard; "-" in the last column marks a tensor the model does not use), then every problem
   found, one per line "problem: <message>", not only the first: each shard is read and checked
   on its own, each tensor on its own, and every tensor the model needs is looked for. The checks
   are the library's own (xlarun__check_named, xlarun__take, xlarun__check_quant_meta,
   xlarun__check_slot: the same functions xlarun_model_open runs, called one by one here instead of
   stopping at the first failure). tokenizer.json and generation_config.json are checked when
   present. Finally the folder is opened with xlarun_model_open, so a problem the piecewise
   checks cannot see (a failed map, a size that does not fit) is reported too. config.json is
   the one file whose first problem ends its checks (its later keys are read in the light of the
   earlier ones); without it the shards are still read and listed, but not checked.

   Exit status: 0 when the folder loads (and its tokenizer, when it has one), 1 when anything
   was found, 2 for a usage error. */
#define _POSIX_C_SOURCE 200809L
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_problems;

static void problem(const xlarun_error *e) {
    printf("problem: %s (%s)\n", e->message, xlarun_status_name(e->status));
    n_problems++;
}

/* config.json as read: the public config, the executor's plan, and the keys read under an alias
   or taken as a default (the log) */
static void print_config(const xlarun_config *c, const xlarun__plan *p, const xlarun__cfglog *log) {
    uint32_t i, k;
    printf("config.json: %s, written by transformers %s\n", xlarun_arch_name(c->arch),
           c->transformers_version[0] ? c->transformers_version : "(no transformers_version; read as 4.x)");
    printf("  vocab_size %u, hidden_size %u, intermediate_size %u, num_hidden_layers %u\n", c->vocab_size,
           c->hidden_size, c->intermediate_size, c->n_layers);
    printf("  heads %u, kv heads %u, head_dim %u, max_position_embeddings %u, rms_norm_eps %g\n", c->n_heads,
           c->n_kv_heads, c->head_dim, c->max_position_embeddings, (double)c->rms_norm_eps);
    printf("  rope: theta %g, ", (double)c->rope_theta);
    if (c->rope_type == XLARUN_ROPE_LINEAR) printf("linear, factor %g\n", (double)c->rope_factor);
    else if (c->rope_type == XLARUN_ROPE_LLAMA3)
        printf("llama3, factor %g, low_freq_factor %g, high_freq_factor %g, original_max_position_embeddings %u\n",
               (double)c->rope_factor, (double)c->rope_low_freq_factor, (double)c->rope_high_freq_factor,
               c->rope_original_max_position_embeddings);
    else if (c->rope_type == XLARUN_ROPE_LONGROPE)
        printf("longrope, short factors within original_max_position_embeddings %u and long ones past it, cos and sin times %.9g\n",
               c->rope_original_max_position_embeddings, (double)p->rope_attn_factor);
    else printf("default\n");
    if (c->rope_dim != c->head_dim) printf("  rope on the first %u of each head's %u dimensions\n", c->rope_dim, c->head_dim);
    if (p->qkv_bias || p->o_bias || p->mlp_bias)
        printf("  biases:%s%s%s\n", p->qkv_bias ? " q_proj k_proj v_proj" : "", p->o_bias ? " o_proj" : "",
               p->mlp_bias ? " gate_proj up_proj down_proj" : "");
    if (p->qk) printf("  q_norm and k_norm: %s RMS-normalized before RoPE\n", p->qk == XLARUN__QK_WHOLE ? "q and k, all heads at once," : "each head of q and k");
    if (p->norms == XLARUN__NORMS_POST) printf("  no norm before attention or the MLP; their outputs normalized before the residual add\n");
    if (c->sliding_window && p->sliding_pattern)
        printf("  sliding_window %u on the local layers (position i attends to i-%u..i); every %u%s layer global\n", c->sliding_window,
               c->sliding_window - 1, p->sliding_pattern, p->sliding_pattern == 1 ? "st" : p->sliding_pattern == 2 ? "nd" : p->sliding_pattern == 3 ? "rd" : "th");
    else if (c->sliding_window) printf("  sliding_window %u (position i attends to i-%u..i)\n", c->sliding_window, c->sliding_window - 1);
    if (c->rope_local_theta > 0.0f) printf("  local layers' rope: theta %g, default\n", (double)c->rope_local_theta);
    for (i = 0, k = 0; i < c->n_layers; i++)
        if (p->no_rope[i]) printf(k++ ? " %u" : "  no RoPE on layers %u", (unsigned)i);
    if (k) printf("\n");
    if (c->n_experts) {
        printf("  mixture of %u experts of intermediate size %u, %u per token%s", c->n_experts,
               c->moe_intermediate_size, c->n_experts_used, p->moe_norm_topk ? ", their weights renormalized" : "");
        if (c->moe_shared_size) printf(", and a gated shared expert of intermediate size %u", c->moe_shared_size);
        printf("; sparse layers");
        for (k = 0, i = 0; i < c->n_layers; i++) k += p->moe[i];
        if (k == c->n_layers) printf(": all\n");
        else {
            for (i = 0; i < c->n_layers; i++)
                if (p->moe[i]) printf(" %u", (unsigned)i);
            printf(" (the others dense)\n");
        }
    }
    if (p->act == XLARUN__ACT_GELU_TANH) printf("  MLP activation: gelu_pytorch_tanh\n");
    if (p->attn_softcap > 0.0f) printf("  attention scores soft-capped at %g\n", (double)p->attn_softcap);
    if (p->final_softcap > 0.0f) printf("  logits soft-capped at %g\n", (double)p->final_softcap);
    if (p->norm_plus_one) printf("  RMSNorm weights used as 1 + w%s\n", p->norms == XLARUN__NORMS_SANDWICH ? "; norms also after attention and around the MLP" : "");
    if (p->embed_scale != 1.0f) printf("  embeddings scaled by %.9g\n", (double)p->embed_scale);
    if (p->attn_scale != (float)(1.0 / sqrt((double)c->head_dim))) printf("  attention scores scaled by %.9g\n", (double)p->attn_scale);
    if (p->residual_scale != 1.0f) printf("  attention and MLP outputs scaled by %.9g before the residual add\n", (double)p->residual_scale);
    if (p->logit_scale != 1.0f) printf("  logits divided by %.9g\n", (double)p->logit_scale);
    printf("  tie_word_embeddings %s, bos %d, eos", c->tie_word_embeddings ? "true" : "false", (int)c->bos_token_id);
    if (!c->n_eos) printf(" none");
    for (i = 0; i < c->n_eos; i++) printf(" %d", (int)c->eos_token_ids[i]);
    printf("\n");
    for (i = 0; i < log->n; i++) /* what the folder did not say in the class's own words */
        if (log->e[i].via && log->e[i].via[0]) printf("  key %s read as its alias %s\n", log->e[i].key, log->e[i].via);
        else if (log->e[i].via) printf("  key %s ignored: %s\n", log->e[i].key, log->e[i].value);
    for (i = 0, k = 0; i < log->n; i++)
        if (!log->e[i].via) printf("%s %s%s=%s", k++ ? "," : "  defaults (keys not in config.json):", log->e[i].where, log->e[i].key, log->e[i].value);
    if (k) printf("\n");
}

/* one shard: its header, its table, and each tensor checked on its own */
static void inspect_shard(xlarun__loader *L, int have_cfg, const char *name, int shard, uint64_t *total,
                          size_t *count) {
    char path[4096], shape[160];
    xlarun__file f;
    xlarun_st_reader r;
    xlarun_error e;
    void *hdr;
    size_t i;
    int retry, ok = 0;
    hdr = NULL;
    /* a header that fails only because of the file's size (truncated or padded data) is read
       again as from a stream of unknown size, so its table is printed and checked as well */
    for (retry = 0; retry < 2 && !ok; retry++) {
        if (xlarun__file_open(&f, NULL, L->dir, name, path, sizeof path, &e) != XLARUN_OK) { problem(&e); return; }
        if (xlarun_st_begin(&r, xlarun__file_read, &f, path, retry ? 0 : f.size, &e) != XLARUN_OK) {
            if (!retry) problem(&e);
            xlarun__file_close(&f);
            return;
        }
        free(hdr);
        hdr = malloc(xlarun_st_memory(&r));
        if (!hdr) {
            printf("problem: %s: no memory for the header\n", path);
            n_problems++;
            xlarun__file_close(&f);
            return;
        }
        if (xlarun_st_read_header(&r, hdr, xlarun_st_memory(&r), &e) == XLARUN_OK) ok = 1;
        else if (!retry) problem(&e);
        if (!ok) xlarun__file_close(&f);
    }
    if (ok) {
        for (i = 0; i < r.n_tensors; i++) {
            const xlarun_st_tensor *t = &r.tensors[i];
            int sc = 0, slot = have_cfg ? xlarun__tensor_slot(L->m, t->name, &sc) : 0;
            xlarun__shape_str(t, shape, sizeof shape);
            printf("  %-48s %-7s %-16s %12llu  %s%s\n", t->name, xlarun_dtype_name(t->dtype), shape,
                   (unsigned long long)t->nbytes, name, have_cfg && slot == -1 ? " -" : "");
            *total += t->nbytes;
            ++*count;
        }
        if (have_cfg) {
            for (i = 0; i < r.n_tensors; i++) {
                const xlarun_st_tensor *t = &r.tensors[i];
                int sc, slot = xlarun__tensor_slot(L->m, t->name, &sc);
                if (xlarun__check_named(L->m, t, path, &e) != XLARUN_OK) {
                    problem(&e);
                    if (slot >= 0 && sc) L->slots[slot].scale_found = 1; /* present, though wrong: not "missing" too */
                    else if (slot >= 0 && !L->slots[slot].found) {
                        L->slots[slot].found = 1;
                        L->slots[slot].shard = shard;
                        L->slots[slot].dtype = t->dtype;
                    }
                } else if (slot >= 0 && xlarun__take(L, shard, t, NULL, slot, sc, path, &e) != XLARUN_OK) problem(&e);
            }
            if (xlarun__check_quant_meta(L->m, &r, path, &e) != XLARUN_OK) problem(&e);
        }
    }
    free(hdr);
    if (ok) xlarun__file_close(&f);
}

int main(int argc, char **argv) {
    const char *dir;
    xlarun__arena a;
    xlarun__loader L;
    xlarun_model cfgm;
    static xlarun__cfglog keys; /* the keys read under an alias or taken as a default */
    xlarun_model_options opt;
    xlarun_error e;
    char *text, path[4096];
    size_t len, count = 0, bytes = 0;
    const char *names_single[1];
    const char **names = names_single;
    uint32_t n_shards = 0, s;
    uint64_t total = 0;
    int have_cfg = 0, i, loads = 0;
    xlarun__file probe;
    xlarun_model *m = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: inspect DIR\n"
                        "  validates a checkpoint folder as xlarun loads it: prints the config summary, every\n"
                        "  tensor (name, dtype, shape, bytes, shard) and every problem; exit 0 only if it loads\n");
        return 2;
    }
    dir = argv[1];
    printf("folder: %s\n", dir);
    /* a measuring arena: the loader's own allocations come from malloc and are freed at the end */
    xlarun__arena_init(&a, NULL, 0, NULL);
    memset(&L, 0, sizeof L);
    memset(&cfgm, 0, sizeof cfgm);
    memset(&opt, 0, sizeof opt);
    L.a = &a;
    L.opt = &opt;
    L.dir = dir;
    L.m = &cfgm;

    if (xlarun__read_small(&a, NULL, dir, "config.json", XLARUN_MAX_CONFIG_BYTES, &text, &len, &e) != XLARUN_OK) problem(&e);
    else if (xlarun__parse_config(text, len, &cfgm.cfg, &cfgm.plan, &keys, &e) != XLARUN_OK) problem(&e);
    else {
        have_cfg = 1;
        print_config(&cfgm.cfg, &cfgm.plan, &keys);
        L.n_slots = xlarun__n_slots(&cfgm);
        L.slots = (xlarun__slot *)calloc((size_t)L.n_slots, sizeof *L.slots);
        if (!L.slots) { fprintf(stderr, "inspect: out of memory\n"); return 2; }
        for (i = 0; i < L.n_slots; i++) L.slots[i].index_shard = -1;
    }

    /* the shards: model.safetensors, or those the index names */
    if (xlarun__file_open(&probe, NULL, dir, "model.safetensors", path, sizeof path, &e) == XLARUN_OK) {
        xlarun__file_close(&probe);
        names[0] = "model.safetensors";
        n_shards = 1;
    } else if (xlarun__file_open(&probe, NULL, dir, "model.safetensors.index.json", path, sizeof path, &e) == XLARUN_OK) {
        xlarun__file_close(&probe);
        names = (const char **)malloc(sizeof(char *) * XLARUN__MAX_SHARDS);
        if (!names) { fprintf(stderr, "inspect: out of memory\n"); return 2; }
        if (xlarun__read_small(&a, NULL, dir, "model.safetensors.index.json", XLARUN_MAX_INDEX_BYTES, &text, &len, &e) != XLARUN_OK)
            problem(&e);
        else if (!have_cfg) {
            printf("problem: %s: model.safetensors.index.json not read: config.json did not load\n", dir);
            n_problems++;
        } else if (xlarun__read_index(&L, text, len, names, &n_shards, &e) != XLARUN_OK) {
            problem(&e);
            n_shards = 0;
        }
    } else {
        printf("problem: %s: no model.safetensors or model.safetensors.index.json (i/o error)\n", dir);
        n_problems++;
    }
    if (n_shards) {
        printf("tensors:\n  %-48s %-7s %-16s %12s  %s\n", "name", "dtype", "shape", "bytes", "shard");
        for (s = 0; s < n_shards; s++) inspect_shard(&L, have_cfg, names[s], (int)s, &total, &count);
        printf("  %lu tensors, %llu bytes in %u shard%s (\"-\": not used by the model)\n", (unsigned long)count,
               (unsigned long long)total, n_shards, n_shards == 1 ? "" : "s");
        /* every tensor the model needs, once every shard has been seen */
        if (have_cfg)
            for (i = 0; i < L.n_slots; i++)
                if (xlarun__check_slot(&L, i, names, &e) != XLARUN_OK) problem(&e);
    }
    free(L.slots);
    if (names != names_single) free((void *)names);
    xlarun__arena_release_blocks(&a);

    /* the loader itself: it must agree, and it sees what only a real open can (maps, memory) */
    if (xlarun_model_memory(dir, NULL, &bytes, &e) != XLARUN_OK) {
        if (!n_problems) problem(&e);
    } else if (n_problems) {
        printf("inspect: internal error: xlarun_model_memory accepts the folder despite the problems above\n");
        return 2;
    } else if (xlarun_model_open(dir, NULL, &m, &e) != XLARUN_OK) problem(&e);
    else {
        loads = 1;
        printf("model: loads: %lu bytes of model memory, %llu bytes mapped, %llu weight bytes read per token, matrices %s\n",
               (unsigned long)bytes, (unsigned long long)xlarun_model_mapped_bytes(m),
               (unsigned long long)xlarun_model_weight_bytes(m), xlarun_model_dtype(m));
    }

    /* the files beside it */
    if (xlarun__file_open(&probe, NULL, dir, "tokenizer.json", path, sizeof path, &e) == XLARUN_OK) {
        xlarun_tokenizer *tok = NULL;
        xlarun__file_close(&probe);
        if (xlarun_tokenizer_open(dir, NULL, &tok, &e) != XLARUN_OK) problem(&e);
        else {
            const int32_t *eos;
            size_t k, ne = xlarun_tokenizer_eos_ids(tok, &eos);
            xlarun_chat_template *ct = NULL;
            const char *tmpl = xlarun_tokenizer_chat_template(tok);
            printf("tokenizer.json: vocab %u, bos %d%s, eos", xlarun_tokenizer_vocab_size(tok), (int)xlarun_tokenizer_bos_id(tok),
                   xlarun_tokenizer_adds_bos(tok) ? " (added)" : "");
            if (!ne) printf(" none");
            for (k = 0; k < ne; k++) printf(" %d", (int)eos[k]);
            /* the template is a program: say whether xlarun's interpreter compiles it (a template
               that does not compile is no problem for loading; gen --chat-template NAME or
               --chat-template-file FILE runs another) */
            if (!tmpl) printf(", chat template none\n");
            else if (xlarun_chat_template_create(tmpl, strlen(tmpl), &ct, &e) == XLARUN_OK) printf(", chat template compiles\n");
            else printf(", chat template does not compile: %s\n", e.message);
            xlarun_chat_template_free(ct);
            if (m && xlarun_tokenizer_check_model(tok, m, &e) != XLARUN_OK) problem(&e);
            xlarun_tokenizer_close(tok);
        }
    } else
        printf("tokenizer.json: none\n");
    {
        xlarun_generation_config g;
        if (xlarun_generation_config_load(m, dir, NULL, &g, &e) != XLARUN_OK) problem(&e);
    }
    xlarun_model_close(m);
    if (n_problems || !loads) {
        printf("result: %d problem%s; xlarun does not load this folder\n", n_problems, n_problems == 1 ? "" : "s");
        return 1;
    }
    printf("result: ok\n");
    return 0;
}
