#!/usr/bin/env python3
"""Write a random byte-level BPE tokenizer.json in Llama 3's size and format, for build/bench.

Usage: mktokenizer.py OUTDIR [--vocab 128000] [--merges 280147] [--added 256] [--pairs] [--seed N]

Llama 3.x's tokenizer.json (not redistributable here) has 128,000 model.vocab tokens, 280,147
merges and 256 added tokens, about 9 MB; opening it is xlarun's whole start-up. This writes one of
the same counts, pre-tokenizer, post-processor and decoder: the 256 byte-level characters, then
words of random syllables (a 'Ġ' space prefix on most, capitals, digits, punctuation and some
two-byte UTF-8 letters), each built by a merge of two tokens already present, then further merges
that split tokens already present another way (a real BPE vocabulary has many of those), until
the counts hold. Merges are written as "a b" strings as in the hub's Llama 3.2 file (--pairs:
["a", "b"] as tokenizers 0.20+ saves them). OUTDIR/tokenizer.json and tokenizer_config.json;
deterministic for a seed; standard library only.
"""
import argparse, json, os, random


def byte_chars():
    """the byte-level alphabet: byte -> character, as GPT-2's bytes_to_unicode"""
    keep = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    out, n = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(0x100 + n)
            n += 1
    return [out[b] for b in range(256)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--vocab", type=int, default=128000)
    ap.add_argument("--merges", type=int, default=280147)
    ap.add_argument("--added", type=int, default=256)
    ap.add_argument("--pairs", action="store_true")
    ap.add_argument("--seed", type=int, default=22)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    alpha = byte_chars()
    vocab = {c: i for i, c in enumerate(sorted(alpha, key=lambda c: alpha.index(c)))}
    tokens = list(alpha)
    merges, seen = [], set()
    cons, vows = "bcdfghjklmnpqrstvwxyz", "aeiouy"
    utf = [bytes(s, "utf-8").decode("latin-1") for s in "éèàüöäçñßøåłżšč"]   # byte-level text of each
    utf = ["".join(alpha[b] for b in ch.encode("latin-1")) for ch in utf]
    syll = set()
    while len(syll) < 400:
        s = rng.choice(["", rng.choice(cons)]) + rng.choice(vows) + rng.choice(["", "", rng.choice(cons)])
        if rng.random() < 0.05:
            s += rng.choice(utf)
        syll.add(s)
    syll = sorted(syll)

    def add(s):
        """s into the vocabulary, by a merge of a split whose halves are made first"""
        if s in vocab or len(tokens) >= a.vocab:
            return s in vocab
        i = rng.randint(1, len(s) - 1)
        while s[i - 1] == "\u0120" and i < len(s) - 1:   # no token ends in a bare space prefix
            i += 1
        if not add(s[:i]) or not add(s[i:]) or len(tokens) >= a.vocab:
            return False
        vocab[s] = len(tokens)
        tokens.append(s)
        merges.append((s[:i], s[i:]))
        seen.add((s[:i], s[i:]))
        return True

    def word():
        r = rng.random()
        if r < 0.08:
            w = "".join(rng.choice("0123456789") for _ in range(rng.randint(2, 3)))
        elif r < 0.14:
            w = "".join(rng.choice("!#$%&()*+,-./:;<=>?@[]^_{|}~") for _ in range(rng.randint(2, 4)))
        else:
            w = "".join(rng.choice(syll) for _ in range(rng.randint(1, 4)))
            if rng.random() < 0.2:
                w = w[0].upper() + w[1:]
        return ("\u0120" + w) if rng.random() < 0.6 else w

    while len(tokens) < a.vocab:
        w = word()
        if len(w) > 1:
            add(w)
    # more merges: other splits of tokens already there, in the order of the tokens they make
    extra = []
    for t in tokens[256:]:
        for i in range(1, len(t)):
            p = (t[:i], t[i:])
            if p not in seen and p[0] in vocab and p[1] in vocab:
                extra.append(p)
    rng.shuffle(extra)
    extra = extra[:max(0, a.merges - len(merges))]
    if len(merges) + len(extra) < a.merges:
        raise SystemExit("only %d merges; use fewer" % (len(merges) + len(extra)))
    made = {p: vocab[p[0] + p[1]] for p in merges + extra}
    allm = sorted(merges + extra, key=lambda p: (made[p], p not in seen))
    names = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
             "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>",
             "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>"]
    n = 3
    while len(names) < a.added:
        names.append("<|reserved_special_token_%d|>" % n)
        n += 1
    added = [dict(id=a.vocab + i, content=c, single_word=False, lstrip=False, rstrip=False, normalized=False,
                  special=True) for i, c in enumerate(names[:a.added])]
    bos = dict(id="<|begin_of_text|>", type_id=0)
    doc = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
             "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "post_processor": {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            {"type": "TemplateProcessing", "single": [{"SpecialToken": bos}, {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [{"SpecialToken": bos}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": dict(bos, type_id=1)},
                      {"Sequence": {"id": "B", "type_id": 1}}],
             "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [a.vocab],
                                                      "tokens": ["<|begin_of_text|>"]}}}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                  "vocab": vocab, "merges": [list(p) if a.pairs else p[0] + " " + p[1] for p in allm]},
    }
    os.makedirs(a.outdir, exist_ok=True)
    with open(os.path.join(a.outdir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=2)
    with open(os.path.join(a.outdir, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",
                   "tokenizer_class": "PreTrainedTokenizerFast"}, f, indent=2)
    print("%s: %d tokens, %d merges, %d added" % (a.outdir, len(vocab), len(allm), len(added)))


if __name__ == "__main__":
    main()
