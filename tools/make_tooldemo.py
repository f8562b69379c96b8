#!/usr/bin/env python3
"""The tool-calling demo model, tests/fixtures/tooldemo: a tiny Llama trained to hold a tool
conversation in the Hermes / Qwen2.5 format, for examples/tools.c and tests/test_tools_example.sh.

The folder is a Hugging Face checkpoint (LlamaForCausalLM, f32, tied embeddings): config.json,
model.safetensors, tokenizer.json, tokenizer_config.json (the real Qwen2.5-Instruct chat template,
tests/fixtures/jinja/templates/qwen2.5-instruct.jinja), generation_config.json, and oracle.txt
(a rendered prompt's ids and the greedy ids this script's forward pass gives for it).

What it learns: offered get_weather(city) and get_time(city) (TOOLS_JSON, the same text as
examples/tools.c), it answers a question about a city with one <tool_call>; shown the tool's result
in a <tool_response>, it answers with a sentence that uses the result:

    user      What is the weather in Paris?
    assistant <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>
    tool      {"city": "Paris", "temperature": 18, "condition": "sunny"}
    assistant It is 18 degrees and sunny in Paris.

Most training results carry random values (so the model learns to copy them from the tool
response, not to remember them per city); the rest carry CITY_TABLE's, the values the C tools
return.

Tokenizer: a byte-level BPE trained with `tokenizers` on the corpus (Digits(individual) then
ByteLevel, as SmolLM2: every digit is its own token, which makes numbers easy to copy), with
<|endoftext|>, <|im_start|>, <|im_end|> special and <tool_call>, </tool_call> added (not special,
as in Qwen2.5), so xlarun_tool_format_guess finds <tool_call> as one token: Hermes. The cities and
weather words are one token each wherever they stand (merges that would join the space before
them are dropped), so copying them from the question or the result is copying a token.
tokenizer_config.json names PreTrainedTokenizerFast: transformers 5's Qwen2Tokenizer would swap
in Qwen2's own pre-tokenizer.

Model: written and trained in JAX (CPU), the forward pass exactly as transformers'
LlamaForCausalLM computes it in float32 with eager attention (RMSNorm with eps inside the rsqrt,
rotate_half RoPE with f32 angles, GQA with contiguous kv-head blocks, finfo.min causal mask, f32
softmax, SiLU-gated MLP, tied lm_head), Adam, loss on the assistant turns only. The safetensors
file is written here (8-byte length, space-padded JSON header, tensors in name order) with
transformers' tensor names and shapes.

    python3 -m venv /work/venv-tooldemo
    /work/venv-tooldemo/bin/pip install "jax[cpu]==0.10.2" tokenizers==0.23.3 jinja2==3.1.6 numpy==2.4.6
    /work/venv-tooldemo/bin/python tools/make_tooldemo.py            # train, check, write the folder
    /work/venv-tooldemo/bin/python tools/make_tooldemo.py --load --verify

--load skips training and takes the weights the last run left in build/tooldemo-params.npz;
--verify then runs build/gen (make build/gen) on both turns of every CITY_TABLE conversation, twice
over, and exits unless its greedy ids equal this forward pass's. TOOLDEMO_STEPS=N overrides the
4000 Adam steps. The folder is written only when every CITY_TABLE conversation comes out exactly,
each greedy step ahead of the runner-up by a logit margin of at least 1 (the committed weights: 11.4,
and 120 of 120 turns right on held-out random values).

Pinned (python 3.11.7): jax/jaxlib 0.10.2, tokenizers 0.23.3, jinja2 3.1.6, numpy 2.4.6; the
script exits if they differ (XLARUN_FIXTURES_ANY_VERSION=1 makes that a warning). Seeds are fixed
(random.Random for the corpus and the tokenizer's, numpy PCG64 for the batches,
jax.random.PRNGKey(0) for the weights) and JAX runs on the CPU, so a rerun with the same versions
on the same CPU gives the same weights; another CPU may round differently in the last bits (the
tests check behaviour, and oracle.txt is written from the weights). Training takes about an hour
on 2 cores: the loss sits near 0.2 until the model learns to copy (about step 1700), then drops
to 0.
"""
import json
import os
import random
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "tests", "fixtures", "tooldemo")
TEMPLATE = os.path.join(ROOT, "tests", "fixtures", "jinja", "templates", "qwen2.5-instruct.jinja")
PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2", "tokenizers": "0.23.3", "jinja2": "3.1.6", "numpy": "2.4.6"}

# the tools as examples/tools.c offers them (its TOOLS_JSON is this text, byte for byte)
TOOLS_JSON = ('[{"type": "function", "function": {"name": "get_weather", "description": "Get the weather in a city.", '
              '"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}, '
              '{"type": "function", "function": {"name": "get_time", "description": "Get the local time in a city.", '
              '"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]')
# what examples/tools.c's get_weather and get_time return for each city they know
CITY_TABLE = [
    ("Paris", 18, "sunny", "14:05"), ("London", 12, "rainy", "13:05"), ("Tokyo", 24, "cloudy", "22:05"),
    ("Berlin", 9, "windy", "14:05"), ("Madrid", 27, "sunny", "14:05"), ("Rome", 21, "cloudy", "14:05"),
    ("Cairo", 33, "sunny", "15:05"), ("Sydney", 16, "rainy", "23:05"), ("Oslo", 3, "snowy", "14:05"),
    ("Lima", 19, "foggy", "08:05"), ("Delhi", 31, "cloudy", "17:35"), ("Toronto", 7, "snowy", "08:05"),
]
CONDITIONS = ["sunny", "cloudy", "rainy", "windy", "snowy", "foggy"]
WEATHER_QUESTIONS = ["What is the weather in {}?", "How is the weather in {}?", "What's the weather like in {}?",
                     "Is it warm in {}?", "Weather in {}?"]
TIME_QUESTIONS = ["What time is it in {}?", "What is the time in {}?", "Tell me the time in {}.",
                  "What is the local time in {}?", "Time in {}?"]
# the words the model copies from the question or the tool's result into its replies: one token
# each, the same token wherever they stand (after a space, in quotes), so that copying is the
# identity (a space before one is a token of its own)
COPIED = [row[0] for row in CITY_TABLE] + CONDITIONS
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
ADDED = ["<tool_call>", "</tool_call>"]

CONFIG = dict(hidden_size=64, intermediate_size=192, num_hidden_layers=4, num_attention_heads=4,
              num_key_value_heads=2, head_dim=16, max_position_embeddings=1024, rms_norm_eps=1e-6,
              rope_theta=10000.0)
STEPS, BATCH, LR = 4000, 16, 3e-3
PARAMS_CACHE = os.path.join(ROOT, "build", "tooldemo-params.npz")  # the trained weights, for --load


def weather_result(city, temp, cond):
    return json.dumps({"city": city, "temperature": temp, "condition": cond})


def time_result(city, hhmm):
    return json.dumps({"city": city, "time": hhmm})


def conversation(rnd, table_only=False):
    """one [user, assistant tool call, tool, assistant answer] conversation"""
    row = rnd.choice(CITY_TABLE)
    city = row[0]
    weather = rnd.random() < 0.5
    if table_only or rnd.random() < 0.3:
        temp, cond, hhmm = row[1], row[2], row[3]
    else:
        temp, cond = rnd.randint(0, 39), rnd.choice(CONDITIONS)
        hhmm = "%02d:%02d" % (rnd.randint(0, 23), rnd.randint(0, 59))
    if weather:
        q, name = rnd.choice(WEATHER_QUESTIONS).format(city), "get_weather"
        result, answer = weather_result(city, temp, cond), "It is %d degrees and %s in %s." % (temp, cond, city)
    else:
        q, name = rnd.choice(TIME_QUESTIONS).format(city), "get_time"
        result, answer = time_result(city, hhmm), "It is %s in %s." % (hhmm, city)
    return [{"role": "user", "content": q},
            {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": name, "arguments": {"city": city}}}]},
            {"role": "tool", "name": name, "content": result},
            {"role": "assistant", "content": answer}]


def template_env():
    """the template run as transformers 5.x runs it (utils/chat_template_utils.py)"""
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from jinja2.exceptions import TemplateError

    def raise_exception(msg):
        raise TemplateError(msg)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env.from_string(open(TEMPLATE, encoding="utf-8").read())


def render(tmpl, messages, add_generation_prompt):
    return tmpl.render(messages=messages, tools=json.loads(TOOLS_JSON), add_generation_prompt=add_generation_prompt,
                       bos_token=None, eos_token="<|im_end|>", pad_token="<|endoftext|>")


def assistant_spans(text):
    """(start, end) of each assistant turn's text and its <|im_end|>: what the loss looks at"""
    spans, head, pos = [], "<|im_start|>assistant\n", 0
    while True:
        i = text.find(head, pos)
        if i < 0:
            return spans
        s = i + len(head)
        e = text.index("<|im_end|>", s) + len("<|im_end|>")
        spans.append((s, e))
        pos = e


def make_tokenizer(tmpl):
    from tokenizers import Tokenizer, AddedToken, models, pre_tokenizers, decoders, trainers
    rnd = random.Random(1)
    texts = []
    for _ in range(400):
        text = render(tmpl, conversation(rnd), False)
        for m in SPECIAL + ADDED:
            text = text.replace(m, "\x00")
        for w in COPIED:  # no merge may join a space to these words: "in Paris" is "Ġin", "Ġ", "Paris"
            text = text.replace(" " + w, "\n" + w)
        texts += [t for t in text.split("\x00") if t]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=SPECIAL, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    # and none that starts a copied word with the space before it ("Ġ"+"To" from " Tools" would
    # make " Tokyo" "ĠTo", "ky", "o"): drop those merges (their tokens stay, unused)
    spec = json.loads(tok.to_str())
    heads = {"\u0120" + w[:k] for w in COPIED for k in range(1, len(w) + 1)}
    spec["model"]["merges"] = [m for m in spec["model"]["merges"] if (m[0] + m[1]) not in heads]
    tok = Tokenizer.from_str(json.dumps(spec))
    tok.add_tokens([AddedToken(m, special=False, normalized=False) for m in ADDED])
    for w in COPIED:
        for form in (w, " " + w, '"' + w + '"'):
            pieces = tok.encode(form, add_special_tokens=False).tokens
            if w not in pieces:
                sys.exit("tokenizer: %r is %s, not one token %r" % (form, pieces, w))
    return tok


def encode_conversation(tok, tmpl, msgs):
    """ids and loss mask (1 on the assistant turns' tokens) of one whole conversation"""
    text = render(tmpl, msgs, False)
    enc = tok.encode(text, add_special_tokens=False)
    spans = assistant_spans(text)
    mask = [1 if any(s <= a and b <= e for s, e in spans) else 0 for a, b in enc.offsets]
    return enc.ids, mask


# ---- the model: transformers' LlamaForCausalLM in float32 (eager attention) -----------------------

def init_params(key, V):
    import jax
    import jax.numpy as jnp
    c = CONFIG
    H, I, hd = c["hidden_size"], c["intermediate_size"], c["head_dim"]
    nh, nkv = c["num_attention_heads"], c["num_key_value_heads"]
    shapes = {"model.embed_tokens.weight": (V, H), "model.norm.weight": (H,)}
    for i in range(c["num_hidden_layers"]):
        p = "model.layers.%d." % i
        shapes.update({p + "input_layernorm.weight": (H,), p + "post_attention_layernorm.weight": (H,),
                       p + "self_attn.q_proj.weight": (nh * hd, H), p + "self_attn.k_proj.weight": (nkv * hd, H),
                       p + "self_attn.v_proj.weight": (nkv * hd, H), p + "self_attn.o_proj.weight": (H, nh * hd),
                       p + "mlp.gate_proj.weight": (I, H), p + "mlp.up_proj.weight": (I, H),
                       p + "mlp.down_proj.weight": (H, I)})
    params = {}
    for k, name in zip(jax.random.split(key, len(shapes)), sorted(shapes)):
        if name.endswith("norm.weight"):
            params[name] = jnp.ones(shapes[name], jnp.float32)
        else:  # LlamaPreTrainedModel._init_weights: normal(0, initializer_range 0.02)
            params[name] = 0.02 * jax.random.normal(k, shapes[name], jnp.float32)
    return params


def forward(params, ids):
    """logits [B, T, V] for ids [B, T] at positions 0..T-1"""
    import jax
    import jax.numpy as jnp
    c = CONFIG
    nh, nkv, hd, eps = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], c["rms_norm_eps"]
    B, T = ids.shape

    def rmsnorm(x, w):
        var = jnp.mean(x * x, axis=-1, keepdims=True)
        return w * (x * jax.lax.rsqrt(var + eps))

    inv_freq = 1.0 / (c["rope_theta"] ** (jnp.arange(0, hd, 2, dtype=jnp.float32) / hd))
    ang = jnp.arange(T, dtype=jnp.float32)[:, None] * inv_freq[None, :]
    emb = jnp.concatenate([ang, ang], axis=-1)
    cos, sin = jnp.cos(emb), jnp.sin(emb)  # [T, hd]

    def rope(x):  # [B, T, n, hd], rotate_half pairing i <-> i + hd/2
        x1, x2 = x[..., :hd // 2], x[..., hd // 2:]
        rot = jnp.concatenate([-x2, x1], axis=-1)
        return x * cos[None, :, None, :] + rot * sin[None, :, None, :]

    causal = jnp.tril(jnp.ones((T, T), bool))
    neg = jnp.finfo(jnp.float32).min
    E = params["model.embed_tokens.weight"]
    h = E[ids]
    for i in range(c["num_hidden_layers"]):
        p = "model.layers.%d." % i
        x = rmsnorm(h, params[p + "input_layernorm.weight"])
        q = (x @ params[p + "self_attn.q_proj.weight"].T).reshape(B, T, nh, hd)
        k = (x @ params[p + "self_attn.k_proj.weight"].T).reshape(B, T, nkv, hd)
        v = (x @ params[p + "self_attn.v_proj.weight"].T).reshape(B, T, nkv, hd)
        q, k = rope(q), rope(k)
        k = jnp.repeat(k, nh // nkv, axis=2)  # query head j uses kv head j // (nh / nkv)
        v = jnp.repeat(v, nh // nkv, axis=2)
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * (hd ** -0.5)
        s = jnp.where(causal[None, None], s, neg)
        a = jax.nn.softmax(s, axis=-1)
        o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(B, T, nh * hd)
        h = h + o @ params[p + "self_attn.o_proj.weight"].T
        x = rmsnorm(h, params[p + "post_attention_layernorm.weight"])
        g = x @ params[p + "mlp.gate_proj.weight"].T
        u = x @ params[p + "mlp.up_proj.weight"].T
        h = h + (jax.nn.silu(g) * u) @ params[p + "mlp.down_proj.weight"].T
    h = rmsnorm(h, params["model.norm.weight"])
    return h @ E.T  # tied lm_head


def train(tok, tmpl, V):
    import jax
    import jax.numpy as jnp
    import numpy as np
    rnd = random.Random(2)
    pad = tok.token_to_id("<|endoftext|>")
    convs = [encode_conversation(tok, tmpl, conversation(rnd)) for _ in range(6000)]
    seq = (max(len(ids) for ids, _ in convs) + 7) // 8 * 8  # one shape: the step compiles once
    pool_ids = [ids + [pad] * (seq - len(ids)) for ids, _ in convs]
    pool_mask = [mask + [0] * (seq - len(mask)) for _, mask in convs]
    pool_ids, pool_mask = np.array(pool_ids, np.int32), np.array(pool_mask, np.float32)
    print("corpus: %d conversations, %d-%d tokens" % (len(pool_ids), int((pool_ids != pad).sum(1).min()),
                                                        int((pool_ids != pad).sum(1).max())))

    def loss_fn(params, ids, mask):
        logits = forward(params, ids[:, :-1])
        lp = jax.nn.log_softmax(logits, axis=-1)
        nll = -jnp.take_along_axis(lp, ids[:, 1:, None], axis=-1)[..., 0]
        m = mask[:, 1:]
        return jnp.sum(nll * m) / jnp.sum(m)

    b1, b2, ae = 0.9, 0.98, 1e-9

    @jax.jit
    def step(params, m, v, t, ids, mask):
        loss, g = jax.value_and_grad(loss_fn)(params, ids, mask)
        warm = jnp.minimum(1.0, t / 100.0)
        lr = LR * warm * (0.05 + 0.95 * 0.5 * (1 + jnp.cos(jnp.pi * t / steps)))
        m = jax.tree_util.tree_map(lambda a, b: b1 * a + (1 - b1) * b, m, g)
        v = jax.tree_util.tree_map(lambda a, b: b2 * a + (1 - b2) * b * b, v, g)
        mh = 1 - b1 ** t
        vh = 1 - b2 ** t
        params = jax.tree_util.tree_map(lambda p, a, b: p - lr * (a / mh) / (jnp.sqrt(b / vh) + ae), params, m, v)
        return params, m, v, loss

    steps = int(os.environ.get("TOOLDEMO_STEPS", STEPS))
    params = init_params(jax.random.PRNGKey(0), V)
    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    gen = np.random.Generator(np.random.PCG64(3))
    t0 = time.time()
    for t in range(1, steps + 1):
        idx = gen.integers(0, len(pool_ids), BATCH)
        params, m, v, loss = step(params, m, v, jnp.float32(t), jnp.asarray(pool_ids[idx]), jnp.asarray(pool_mask[idx]))
        if t % 100 == 0 or t == 1:
            print("step %4d  loss %.4f  %.0f s" % (t, float(loss), time.time() - t0), flush=True)
    params = {k: np.asarray(a) for k, a in params.items()}
    os.makedirs(os.path.dirname(PARAMS_CACHE), exist_ok=True)
    np.savez(PARAMS_CACHE, **params)
    return params


def greedy(params, ids, eos, max_new=48):
    """greedy ids after the prompt ids (until an eos id, kept) and the smallest top-1 margin"""
    import jax.numpy as jnp
    import numpy as np
    ids, out, margin = list(ids), [], 1e9
    while len(out) < max_new:
        n = len(ids)
        T = (n + 31) // 32 * 32  # few shapes to compile; causal, so the padding does not matter
        x = jnp.asarray(np.array([ids + [0] * (T - n)], np.int32))
        logits = np.asarray(forward(params, x)[0, n - 1])
        top = np.argsort(-logits, kind="stable")
        nxt = int(np.argmax(logits))
        margin = min(margin, float(logits[top[0]] - logits[top[1]]))
        out.append(nxt)
        ids.append(nxt)
        if nxt in eos:
            break
    return out, margin


def check(params, tok, tmpl, eos, n_random=60):
    """the table's conversations must come out exactly; random values are reported"""
    ok, worst = True, 1e9
    rnd = random.Random(4)
    cases = []
    for row in CITY_TABLE:
        for weather in (True, False):
            while True:
                msgs = conversation(rnd, table_only=True)
                if msgs[0]["content"].split()[-1].rstrip("?.") == row[0] and ("weather" in msgs[1]["tool_calls"][0]["function"]["name"]) == weather:
                    break
            cases.append((msgs, True))
    for _ in range(n_random):
        cases.append((conversation(rnd), False))
    bad_random = 0
    for msgs, must in cases:
        for turn, upto in ((1, 1), (2, 3)):
            prompt = render(tmpl, msgs[:upto], True)
            want_text = render(tmpl, msgs[:upto + 1], False)[len(render(tmpl, msgs[:upto], True)):]
            want_text = want_text[:want_text.index("<|im_end|>") + len("<|im_end|>")]
            got, margin = greedy(params, tok.encode(prompt, add_special_tokens=False).ids, eos)
            text = tok.decode(got, skip_special_tokens=False)
            good = text == want_text
            if must:
                worst = min(worst, margin)
                if not good:
                    ok = False
                    print("WRONG turn %d of %s: %r, expected %r" % (turn, msgs[0]["content"], text, want_text))
            elif not good:
                bad_random += 1
    print("table conversations: %s, smallest top-1 margin %.2f; random-value turns wrong: %d of %d"
          % ("all exact" if ok else "WRONG", worst, bad_random, 2 * n_random))
    return ok, worst


# ---- files --------------------------------------------------------------------------------------

def write_safetensors(path, params):
    import numpy as np
    header, blobs, off = {}, [], 0
    for name in sorted(params):
        a = np.ascontiguousarray(np.asarray(params[name], dtype="<f4"))
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + a.nbytes]}
        blobs.append(a.tobytes())
        off += a.nbytes
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def write_folder(tok, params, V):
    c = CONFIG
    im_end, eot = tok.token_to_id("<|im_end|>"), tok.token_to_id("<|endoftext|>")
    config = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
              "bos_token_id": eot, "eos_token_id": im_end, "head_dim": c["head_dim"], "hidden_act": "silu",
              "hidden_size": c["hidden_size"], "initializer_range": 0.02, "intermediate_size": c["intermediate_size"],
              "max_position_embeddings": c["max_position_embeddings"], "mlp_bias": False, "model_type": "llama",
              "num_attention_heads": c["num_attention_heads"], "num_hidden_layers": c["num_hidden_layers"],
              "num_key_value_heads": c["num_key_value_heads"], "pretraining_tp": 1, "rms_norm_eps": c["rms_norm_eps"],
              "rope_scaling": None, "rope_theta": c["rope_theta"], "tie_word_embeddings": True, "torch_dtype": "float32",
              "use_cache": True, "vocab_size": V}
    gen = {"bos_token_id": eot, "do_sample": False, "eos_token_id": [im_end, eot], "pad_token_id": eot}
    tcfg = {"add_prefix_space": False, "bos_token": None, "chat_template": open(TEMPLATE, encoding="utf-8").read(),
            "clean_up_tokenization_spaces": False, "eos_token": "<|im_end|>", "errors": "replace",
            "model_max_length": c["max_position_embeddings"], "pad_token": "<|endoftext|>", "split_special_tokens": False,
            "tokenizer_class": "PreTrainedTokenizerFast", "unk_token": None}
    os.makedirs(OUT, exist_ok=True)
    for name, obj in (("config.json", config), ("generation_config.json", gen), ("tokenizer_config.json", tcfg)):
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2, ensure_ascii=False)
            f.write("\n")
    tok.save(os.path.join(OUT, "tokenizer.json"))
    write_safetensors(os.path.join(OUT, "model.safetensors"), params)


def oracle(params, tok, tmpl, eos):
    """oracle.txt: the ids of "What is the weather in Paris?" rendered with the tools, and this
    forward pass's greedy ids after them (to the <|im_end|>)"""
    msgs = [{"role": "user", "content": "What is the weather in Paris?"}]
    ids = tok.encode(render(tmpl, msgs, True), add_special_tokens=False).ids
    got, margin = greedy(params, ids, eos)
    with open(os.path.join(OUT, "oracle.txt"), "w") as f:
        f.write("# made by tools/make_tooldemo.py: prompt ids, then the JAX forward's greedy ids (smallest top-1 "
                "margin %.2f)\n" % margin)
        f.write(",".join(map(str, ids)) + "\n")
        f.write(" ".join(map(str, got)) + "\n")
    return ids, got


def verify(params, tok, tmpl, eos):
    """build/gen's greedy ids equal this forward pass's, for both turns of every table city"""
    gen = os.path.join(ROOT, "build", "gen")
    rnd = random.Random(5)
    n = 0
    for row in CITY_TABLE:
        for msgs in (conversation(rnd, table_only=True), conversation(rnd, table_only=True)):
            for upto in (1, 3):
                prompt = tok.encode(render(tmpl, msgs[:upto], True), add_special_tokens=False).ids
                want, _ = greedy(params, prompt, eos)
                r = subprocess.run([gen, "-m", OUT, "--ids", ",".join(map(str, prompt)), "-n", "48", "--temp", "0",
                                    "--print-ids", "-t", "2", "-c", "1024"], capture_output=True, text=True)
                got = [int(x) for x in r.stdout.split()]
                if r.returncode or got != want:
                    sys.exit("verify: %s turn %d: build/gen gave %s, JAX %s (%s)" % (row[0], upto, got, want, r.stderr.strip()))
                n += 1
    print("verify: build/gen's greedy ids equal the JAX forward's for %d prompts" % n)


def main():
    import jax
    import jaxlib
    import jinja2
    import numpy
    import tokenizers
    jax.config.update("jax_platforms", "cpu")
    for mod, name in ((jax, "jax"), (jaxlib, "jaxlib"), (tokenizers, "tokenizers"), (jinja2, "jinja2"), (numpy, "numpy")):
        if mod.__version__ != PINNED[name]:
            msg = "%s %s, pinned %s" % (name, mod.__version__, PINNED[name])
            if not os.environ.get("XLARUN_FIXTURES_ANY_VERSION"):
                sys.exit(msg + " (XLARUN_FIXTURES_ANY_VERSION=1 to go on)")
            print("warning: " + msg)
    tmpl = template_env()
    tok = make_tokenizer(tmpl)
    V = tok.get_vocab_size(with_added_tokens=True)
    eos = {tok.token_to_id("<|im_end|>"), tok.token_to_id("<|endoftext|>")}
    print("vocab %d" % V)
    if "--load" in sys.argv:  # the weights the last training left in PARAMS_CACHE
        import numpy as np
        params = dict(np.load(PARAMS_CACHE))
    else:
        params = train(tok, tmpl, V)
    ok, margin = check(params, tok, tmpl, eos)
    if not ok or margin < 1.0:
        sys.exit("the model does not hold the table's conversations with a margin of 1 yet")
    write_folder(tok, params, V)
    oracle(params, tok, tmpl, eos)
    for f in sorted(os.listdir(OUT)):
        print("  %s %d bytes" % (f, os.path.getsize(os.path.join(OUT, f))))
    if "--verify" in sys.argv:
        verify(params, tok, tmpl, eos)


if __name__ == "__main__":
    main()
