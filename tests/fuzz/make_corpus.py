#!/usr/bin/env python3
"""tests/fuzz/make_corpus.py - writes the seed corpora tests/fuzz/corpus/<harness>/ from the
committed fixtures (a developer-time tool: `make test` replays what is committed, and needs no
Python). Big fixture files are cut down: tiny generated checkpoints stand in for the fixture
models, and a few dozen lines stand in for the tokenizer corpus. Kept crash inputs live beside
the seeds as crash-<what>; this script leaves them alone and rewrites only seed-* files.

    python3 tests/fuzz/make_corpus.py      # from the repository root
"""
import json, os, random, struct, glob

FIX = "tests/fixtures"
OUT = "tests/fuzz/corpus"
SEP = b"\n--xlarun-part--\n"
rng = random.Random(1)


def put(harness, name, data):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def clear_seeds():
    for p in glob.glob(os.path.join(OUT, "*", "seed-*")):
        os.remove(p)


def rd(path):
    with open(path, "rb") as f:
        return f.read()


def f16(x):
    return struct.pack("<e", x)


def bf16(x):
    return struct.pack("<f", x)[2:]


def tensor_bytes(dtype, n):
    vals = [rng.uniform(-1, 1) for _ in range(n)]
    if dtype == "F32":
        return b"".join(struct.pack("<f", v) for v in vals)
    if dtype == "F16":
        return b"".join(f16(v) for v in vals)
    if dtype == "BF16":
        return b"".join(bf16(v) for v in vals)
    if dtype in ("I8", "U8"):
        return bytes(rng.randrange(256) for _ in range(n))
    raise ValueError(dtype)


def safetensors(tensors, metadata=None):
    """tensors: list of (name, dtype, shape, bytes)"""
    hdr, off, data = {}, 0, b""
    if metadata is not None:
        hdr["__metadata__"] = metadata
    for name, dt, shape, b in tensors:
        hdr[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(b)]}
        off += len(b)
        data += b
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


SIZE = {"F32": 4, "F16": 2, "BF16": 2, "I8": 1, "U8": 1}


def tiny_model(dtype="F32", V=8, H=4, I=8, L=1, NH=2, NKV=1, D=2, tie=True, rope=None, quant=None):
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
           "vocab_size": V, "hidden_size": H, "intermediate_size": I, "num_hidden_layers": L,
           "num_attention_heads": NH, "num_key_value_heads": NKV, "head_dim": D,
           "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
           "tie_word_embeddings": tie, "bos_token_id": 1, "eos_token_id": [2, 3]}
    if rope:
        cfg["rope_scaling"] = rope
    mats = [("model.embed_tokens.weight", [V, H])]
    if not tie:
        mats.append(("lm_head.weight", [V, H]))
    norms = ["model.norm.weight"]
    for l in range(L):
        p = "model.layers.%d." % l
        norms += [p + "input_layernorm.weight", p + "post_attention_layernorm.weight"]
        mats += [(p + "self_attn.q_proj.weight", [NH * D, H]), (p + "self_attn.k_proj.weight", [NKV * D, H]),
                 (p + "self_attn.v_proj.weight", [NKV * D, H]), (p + "self_attn.o_proj.weight", [H, NH * D]),
                 (p + "mlp.gate_proj.weight", [I, H]), (p + "mlp.up_proj.weight", [I, H]),
                 (p + "mlp.down_proj.weight", [H, I])]
    ts = []
    for name in norms:
        ts.append((name, dtype, [H], tensor_bytes(dtype, H)))
    for name, shape in mats:
        if quant and shape[1] % 32 == 0:
            qd = "I8" if quant == "q8_0" else "U8"
            k = shape[1] if quant == "q8_0" else shape[1] // 2
            ts.append((name, qd, [shape[0], k], tensor_bytes(qd, shape[0] * k)))
            ts.append((name + "_scale", "F16", [shape[0], shape[1] // 32], tensor_bytes("F16", shape[0] * shape[1] // 32)))
        else:
            ts.append((name, dtype, shape, tensor_bytes(dtype, shape[0] * shape[1])))
    meta = {"format": "pt"}
    if quant:
        meta.update({"xlarun.quant": quant, "xlarun.block": "32"})
    return json.dumps(cfg, indent=2).encode(), ts, meta


def main():
    clear_seeds()
    # ---- json: the fixtures' small JSON files, and edge cases of the grammar
    for name in ["llama32-f32", "llama2-f32", "odd-bf16", "mqa-f16", "demo"]:
        put("json", name + "-config", rd(os.path.join(FIX, name, "config.json")))
        put("json", name + "-generation", rd(os.path.join(FIX, name, "generation_config.json")))
    put("json", "index", rd(os.path.join(FIX, "llama2-f32", "model.safetensors.index.json")))
    for fam in ["llama3", "gpt2", "sp", "ms", "ms2"]:
        put("json", fam + "-tokenizer-config", rd(os.path.join(FIX, "tokenizers", fam, "tokenizer_config.json")))
    for i, doc in enumerate([b'{"a":"\\ud83d\\ude00\\u00e9\\n\\"","b":[1,-0.5e-3,1E+400,true,false,null],"c":{}}',
                             b'[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
                             b' "caf\xc3\xa9 \xf0\x9f\x98\x80" ', b'12345678901234567890123', b'{"rope_scaling":{"type":"linear","factor":2}}']):
        put("json", "edge%d" % i, doc)
    # ---- safetensors and model: tiny checkpoints
    variants = [("f32", dict(dtype="F32")), ("bf16-untied", dict(dtype="BF16", tie=False)),
                ("f16-2layers", dict(dtype="F16", L=2, NH=4, NKV=2, D=1 * 2, H=8)),
                ("llama3-rope", dict(rope={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                           "high_freq_factor": 4.0, "original_max_position_embeddings": 16})),
                ("q8", dict(dtype="F32", H=32, I=32, NH=2, NKV=1, D=16, quant="q8_0")),
                ("q4", dict(dtype="BF16", H=32, I=32, NH=2, NKV=2, D=16, quant="q4_0"))]
    for name, kw in variants:
        cfg, ts, meta = tiny_model(**kw)
        st = safetensors(ts, meta)
        put("safetensors", name, st)
        put("model", name, cfg + SEP + st)
    # every architecture's config.json as transformers 4.x and 5.x save them (config only: the
    # parser, its row and version rules; the missing weights end each run)
    for name in sorted(os.listdir(FIX)):
        if (name.endswith("-f32") or name.endswith("-v5-bf16")) and os.path.exists(os.path.join(FIX, name, "config.json")):
            put("model", "config-" + name, rd(os.path.join(FIX, name, "config.json")) + SEP)
    # sharded: index + two shards
    cfg, ts, meta = tiny_model(dtype="F16", tie=False)
    half = len(ts) // 2
    wm = {t[0]: ("a.safetensors" if i < half else "b.safetensors") for i, t in enumerate(ts)}
    index = json.dumps({"metadata": {"total_size": sum(len(t[3]) for t in ts)}, "weight_map": wm}).encode()
    put("model", "sharded", cfg + SEP + index + SEP + safetensors(ts[:half]) + SEP + safetensors(ts[half:]))
    # odd safetensors: every dtype, empty tensors, scalars, an escaped name
    ts = [("scalar", "F64", [], b"\0" * 8), ("empty", "U8", [0, 5], b""), ("b\\u00e9", "BOOL", [3], b"\1\0\1"),
          ("i64", "I64", [2], b"\0" * 16), ("f4", "F4", [4], b"\0\0"), ("e4m3", "F8_E4M3", [2, 1], b"\0\0")]
    put("safetensors", "dtypes", safetensors(ts, {"k": "v", "xlarun.quant": "q8_0"}))
    put("safetensors", "empty", safetensors([]))
    # a fixture's real header, its data cut to 256 bytes (the reader refuses the length: a seed for the header paths)
    b = rd(os.path.join(FIX, "llama32-bf16", "model.safetensors"))
    n = struct.unpack("<Q", b[:8])[0]
    put("safetensors", "llama32-header", b[:8 + n + 256])
    # ---- tokenizer: the fixture tokenizers whole, with the files beside them
    for fam, d in [("llama3", "tokenizers/llama3"), ("gpt2", "tokenizers/gpt2"), ("sp", "tokenizers/sp"), ("demo", "demo"),
                   ("ms", "tokenizers/ms"), ("ms2", "tokenizers/ms2"), ("qwen2", "tokenizers/qwen2")]:
        parts = [rd(os.path.join(FIX, d, "tokenizer.json"))]
        for extra in ["tokenizer_config.json", "generation_config.json"]:
            p = os.path.join(FIX, d, extra)
            parts.append(rd(p) if os.path.exists(p) else b"{}")
        put("tokenizer", fam, SEP.join(parts))
    # Gemma's, cut down to the added tokens below id 300 (the file has 2,711) and without the
    # <unusedN> past 98 in the vocabulary either (their ids become holes)
    g = json.loads(rd(os.path.join(FIX, "tokenizers", "gemma", "tokenizer.json")))
    g["added_tokens"] = [a for a in g["added_tokens"] if a["id"] < 300]
    g["model"]["vocab"] = {k: v for k, v in g["model"]["vocab"].items() if not (k.startswith("<unused") and int(k[7:-1]) > 98)}
    put("tokenizer", "gemma", SEP.join([json.dumps(g, ensure_ascii=False, separators=(",", ":")).encode()] +
                                       [rd(os.path.join(FIX, "tokenizers", "gemma", f)) for f in ["tokenizer_config.json", "generation_config.json"]]))
    # the demo again with a chat_template.jinja (fifth part; config.json left empty)
    demo = [rd(os.path.join(FIX, "demo", f)) for f in ["tokenizer.json", "tokenizer_config.json", "generation_config.json"]]
    put("tokenizer", "demo-jinja", SEP.join(demo + [b"{}", b"{{ bos_token }}{% for m in messages %}\r\n[INST] {{ m['content'] }} [/INST]{% endfor %}\n"]))
    # ---- encode: a few dozen corpus lines, for each tokenizer and some flags
    lines = [bytes.fromhex(l.strip()) for l in open(os.path.join(FIX, "tokenizers", "corpus.txt")) if l.strip() and not l.startswith("#")]
    pick = lines[:12] + rng.sample(lines[12:], 28)
    for i, text in enumerate(pick):
        if len(text) > 600:
            text = text[:600]
        put("encode", "%02d" % i, bytes([(i % 4) | (((i // 4) % 8) << 2)]) + text)
    put("encode", "invalid", bytes([4 << 2 | 2]) + b"\xff\xc3(abc\xed\xa0\x80\xf4\x90\x80\x80 <|eot_id|><s>")
    # the Metaspace tokenizers (bit 5 adds 4 to the tokenizer index): text at the start, after
    # special tokens, leading and repeated spaces; a second sample so the pick above is unchanged
    ms_rng = random.Random(2)
    for i, text in enumerate([b" Hello  world", b"<s>[INST] hi [/INST]", b"a<|user|>b <mask> c"] + ms_rng.sample(lines, 5)):
        put("encode", "ms%02d" % i, bytes([32 | (i % 2) | (((i // 2) % 8) << 2)]) + text[:600])
    # the Qwen2 tokenizer (index 6: bit 5 and low bits 2): NFC cases, marks next to special
    # tokens, a long run of marks; its own sample so the picks above are unchanged
    nfc_lines = [bytes.fromhex(l.strip()) for l in open(os.path.join(FIX, "tokenizers", "corpus_nfc.txt"))
                 if l.strip() and not l.startswith("#")]
    qwen_rng = random.Random(3)
    for i, text in enumerate([b"e\xcc\x81<|im_end|>\xcc\x81 12345", "\u1100\u1161\u11a8 \u212b \u0958".encode(),
                              "a".encode() + "\u0301\u0323\u0302".encode() * 20] + qwen_rng.sample(nfc_lines, 5)):
        put("encode", "qwen%02d" % i, bytes([32 | 2 | (((i // 2) % 8) << 2)]) + text[:600])
    # Gemma's (index 7: bit 5 and low bits 3): chat turns, whitespace runs, <unusedN> and HTML
    gemma_lines = [bytes.fromhex(l.strip()) for l in open(os.path.join(FIX, "tokenizers", "corpus_gemma.txt"))
                   if l.strip() and not l.startswith("#")]
    gemma_rng = random.Random(4)
    for i, text in enumerate([b"<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n", b"a  \n\n\n\tb \xe2\x96\x81\xe2\x96\x81",
                              b"<unused1000><unused100><unused10><table><tr>"] + gemma_rng.sample(gemma_lines, 5)):
        put("encode", "gemma%02d" % i, bytes([32 | 3 | (((i // 2) % 8) << 2)]) + text[:600])
    # ---- decode: ids of each width for each tokenizer
    for k in range(4):
        put("decode", "bytes%d" % k, bytes([k | 8]) + bytes(rng.randrange(256) for _ in range(40)))
        put("decode", "u16-%d" % k, bytes([k | 4]) + bytes(rng.randrange(256) for _ in range(80)))
    put("decode", "raw32", bytes([16 | 2]) + struct.pack("<5i", 3, 300, -1, 2**31 - 1, 7))
    for k in range(2):   # the Metaspace tokenizers; byte-token ids 3..258 in ms
        put("decode", "ms-u16-%d" % k, bytes([32 | k | 4 * k]) + b"".join(struct.pack("<H", v) for v in [229, 153, 132, 383, 1, 229, 153, 132, 35, 383, 600]))
    put("decode", "gemma-u16", bytes([32 | 3]) + b"".join(struct.pack("<H", v) for v in [2, 105, 3908, 2610, 232, 150, 129, 106, 9, 4166, 2720]))
    put("decode", "qwen-u16", bytes([32 | 2]) + b"".join(struct.pack("<H", v) for v in [1620, 300, 1622, 5, 1633, 1632, 901, 77]))
    # ---- chat: real templates (tests/fixtures/jinja) with one conversation each: template part
    # (a flags byte first), messages, tools, variables -- as the oracle cases have them; the
    # tool-call ones also run xlarun_chat_tool_format's probe (flag 16)
    cases = rd(os.path.join(FIX, "jinja", "cases.txt")).decode().split("\nend\n")
    seen = {}
    for c in cases:
        f = dict(l.split(" ", 1) for l in c.strip().splitlines() if " " in l and not l.startswith("#"))
        if "case" not in f:
            continue
        name, conv = f["case"].split()
        # one seed a template: its tool-call conversation where transformers renders it, else "system"
        if conv not in ("tool_calls_dict", "system") or name in seen or (conv == "tool_calls_dict" and "text" not in f):
            continue
        if conv == "system" and any(("case %s tool_calls_dict" % name) in c and "\ntext " in c for c in cases):
            continue
        seen[name] = 1
        tmpl = rd(os.path.join(FIX, "jinja", "templates", name + ".jinja"))
        tools = bytes.fromhex(f["tools"]) if f.get("tools", "-") != "-" else b""
        flags = (0 if f.get("gen") == "1" else 1) | (2 if tools else 0) | 4 | (16 if conv == "tool_calls_dict" else 0)
        put("jinja", "%s-%s" % (name, conv), bytes([flags]) + tmpl + SEP + bytes.fromhex(f["messages"]) + SEP + tools + SEP +
            bytes.fromhex(f["vars"]))
    schema_seeds()


def schema_seeds():
    """schema: every schema of the oracle fixtures (tests/fixtures/schema/cases.txt), one a file,
    and a few that are refused"""
    lines = rd(os.path.join(FIX, "schema", "cases.txt")).decode().split("\n")
    for i, l in enumerate(lines):
        if l.startswith("schema "):
            put("schema", l[7:], lines[i + 1].encode())
    for k, t in enumerate([b'{"type":"object","properties":{"a":{"pattern":"x"}}}', b'{"$ref":"#/$defs/x"}',
                           b'{"anyOf":[{"$ref":"#"},{"type":"null"}]}', b'{"type":"integer","minimum":5,"maximum":4}',
                           b'false', b'{"$defs":{"a b":{"type":"null"}},"$ref":"#/$defs/a%20b"}']):
        put("schema", "refused-%d" % k, t)


if __name__ == "__main__":
    main()
