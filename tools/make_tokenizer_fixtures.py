#!/usr/bin/env python3
"""Oracle fixtures for xlarun's tokenizer layer: tests/fixtures/tokenizers/.

usage: python3 tools/make_tokenizer_fixtures.py [--out tests/fixtures/tokenizers] [--only qwen2,...]

Trains small tokenizers with the Hugging Face `tokenizers` library, one per family xlarun
supports, and records what `tokenizers` gives for a test corpus of a few thousand lines:

  llama3  the real Llama 3 pre-tokenizer (Split with the Llama 3 regex, Isolated, then ByteLevel
          without regex), ByteLevel decoder, ignore_merges, merges saved as [a, b] pairs, a
          Llama 3 style set of special tokens after the vocabulary and a TemplateProcessing BOS;
          extra whole-word vocab entries that only ignore_merges can reach.
  sp      SentencePiece-style BPE as Llama 2 / TinyLlama: Prepend("▁") + Replace(" ", "▁")
          normalizer, no pre-tokenizer, <unk>/<s>/</s>, <0x00>..<0xFF> byte fallback, fuse_unk,
          decoder Replace/ByteFallback/Fuse/Strip, BOS template, legacy "a b" merges, a limited
          alphabet (so CJK and emoji fall back to bytes), a normalized added token.
  ms      SentencePiece-style BPE as transformers v5 builds Llama 2 / TinyLlama from a
          sentencepiece model (SPEC.md 4): no normalizer, Metaspace(prepend_scheme "first", split
          false), byte fallback, decoder Sequence[ByteFallback, Metaspace], a normalized and a
          non-normalized added token. (What v5 writes when it re-saves a tokenizer.json is the
          v5sp fixture, tools/make_v5_tokenizer_fixture.py.)
  ms2     the older Metaspace form: {"add_prefix_space": true} (prepend always, split true) in
          both the pre-tokenizer and a bare Metaspace decoder, no byte fallback, <unk> not fused.
  gpt2    GPT-2 / SmolLM2 style: Digits(individual) then ByteLevel(use_regex), no BOS, special
          tokens first in the vocabulary, added tokens with lstrip / rstrip / single_word, legacy
          merges, extra vocab entries that merges cannot reach (ignore_merges false).
  qwen2   Qwen2 / Qwen2.5: NFC normalizer, Split with the Qwen2 pattern (Llama 3's with one digit
          per piece), Isolated, then ByteLevel without regex; ByteLevel post-processor and decoder,
          no BOS, ignore_merges false, two-digit tokens that only a split keeping digits together
          would reach; ChatML special tokens after the vocabulary, two non-special
          ones as Qwen2.5 has (<tool_call>), a normalized added token whose content NFC changes
          and a non-normalized one in decomposed form. Its cases are corpus.txt's and then
          corpus_nfc.txt's (the NFC cases: numbered on from corpus.txt's last).
  gemma   Gemma 1/2/3 as the hub files are made: a sentencepiece BPE model trained with Gemma's
          trainer options (byte fallback, split digits, whitespace-only pieces, no dummy prefix,
          identity normalization; pad 0, eos 1, bos 2, unk 3; control symbols <mask>, [@BOS@],
          <start_of_turn>, <end_of_turn>, <start_of_image>, <end_of_image> and 2,600 <unusedN>;
          user-defined runs of 1-31 newlines and 2-31 "▁", and HTML tags), no "\t" piece, then
          converted by transformers 4.51.3's GemmaTokenizerFast (its GemmaConverter: normalizer
          Replace(" ", "▁") alone, pre-tokenizer Split(" ", MergedWithPrevious), "\t" in place
          of <0x09>, merges from the piece scores, decoder Replace/ByteFallback/Fuse without
          Strip, a <bos> TemplateProcessing) and saved; that step runs in its own environment
          (GEMMA_PINNED below). Its cases are corpus.txt's and then corpus_gemma.txt's (numbered
          on from corpus.txt's last).
  o200k   Phi-4-mini / gpt-oss: Split with tiktoken's o200k_base pattern (case-aware words with a
          contraction after them, '/' after punctuation), Isolated, then ByteLevel without regex;
          no BOS; ignore_merges false. Its cases are corpus.txt's and then corpus_case.txt's, and
          pieces.txt records the Split alone on each.
  tekken  Mistral Nemo / Mistral Small 3: the Tekken pattern (o200k's without the contractions,
          one digit per piece); ignore_merges true; a <s> BOS template. Cases as o200k's.

Files written (all small; no Python is needed to use them):
  corpus.txt            one test case per line, the hex of its bytes (some are invalid UTF-8)
  corpus_nfc.txt        the same for the NFC cases (qwen2 only): decomposed and precomposed Latin,
                        marks to reorder, Hangul jamo, singletons, exclusions, blocked marks,
                        Vietnamese, Greek, CJK compatibility ideographs, marks next to added
                        tokens, long runs of marks, digit runs, 2,500 random strings of code points
                        with a class or a decomposition
  corpus_gemma.txt      the same for the Gemma cases (gemma only): literal "▁" runs, newline, space
                        and tab runs around the added whitespace pieces, chat turns, <unusedN> and
                        HTML tokens with their near misses (prefixes, digits more or fewer), and
                        random mixtures of them
  nfc.txt               the NFC of strings around every code point that has a combining class or
                        a canonical decomposition in Unicode 14.0 (and of Hangul), from Python
                        3.6's unicodedata.normalize (Unicode 9.0.0, tokenizers 0.20.3's version;
                        tools/make_unicode.py), checked equal to tokenizers' NFC on every line
  <family>/tokenizer.json, tokenizer_config.json, generation_config.json (llama3)
  <family>/expected.txt lines:
      n I ids       encode(text, add_special_tokens=False) for case I (every case)
      b I ids       encode(text) with the post-processor (cases 0..199)
      s I ids       as n with encode_special_tokens=True, only where it differs from n
      d I hex       decode(n ids), only where it differs from the text
      k I hex       decode(n ids, skip_special_tokens=True), only where it differs from d
      r ids hex     decode of random id sequences (byte runs, specials, lossy UTF-8)
  Invalid UTF-8 cases are given to `tokenizers` as bytes.decode("utf-8", errors="replace").

Pinned: tokenizers 0.20.3 (python 3.11.7); for the gemma family's sentencepiece model and its
conversion a second Python (XLARUN_GEMMA_PYTHON, default /tmp/venv-gemma-tok/bin/python) with
transformers 4.51.3, tokenizers 0.21.4, sentencepiece 0.2.3 and protobuf (a virtual environment:
python3 -m venv /tmp/venv-gemma-tok && /tmp/venv-gemma-tok/bin/pip install transformers==4.51.3
sentencepiece==0.2.3 protobuf); what it writes is recorded with tokenizers 0.20.3 like the
others. For nfc.txt a Python 3.6 (unicodedata 9.0.0; see
tools/make_unicode.py for how it is found). The script exits if the version differs
(XLARUN_FIXTURES_ANY_VERSION=1 downgrades that to a warning). The output is deterministic except
for the SentencePiece-style vocabularies (sp, ms, ms2): which of the rarest characters the trainer's
limit_alphabet keeps can change from run to run (tokenizers breaks the tie in hash-map order), so a
re-run may give another vocabulary. Each family's tokenizer.json and expected.txt are always written
together; to add a family, copy only its folder, or write only it with --only (the corpus files
are written every time: the same bytes).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

import unicodedata

import tokenizers
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers
from tokenizers import pre_tokenizers, processors, trainers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_unicode  # noqa: E402  (tools/make_unicode.py: the NFC data and the Unicode 9.0 Python)

PINNED = "0.20.3"
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                  r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
# Qwen2 / Qwen2.5 (their tokenizer.json): one digit per piece
QWEN2_PATTERN = LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}")
# o200k (tiktoken's o200k_base: Phi-4-mini, gpt-oss) and Tekken (Mistral Nemo, Mistral Small 3,
# Nemotron): case-aware words, a '/' after punctuation; Tekken without the contractions and with
# one digit per piece
_UP, _LO = r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"
_CONTR = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
O200K_PATTERN = (_UP + "*" + _LO + "+" + _CONTR + "|" + _UP + "+" + _LO + "*" + _CONTR +
                 r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
TEKKEN_PATTERN = O200K_PATTERN.replace(_CONTR, "").replace(r"\p{N}{1,3}", r"\p{N}")
assert QWEN2_PATTERN != LLAMA3_PATTERN

# ---- the corpus ------------------------------------------------------------------------------

WORDS = ("the of and to in is was for that on with as by at from his her it an were are which "
         "this be or has had not but what all when there can more one about would their will "
         "time people year way day man thing woman life child world school state family student "
         "group country problem hand part place case week company system program question work "
         "government number night point home water room mother area money story fact month lot "
         "right study book eye job word business issue side kind head house service friend father "
         "power hour game line end member law car city community name president team minute idea "
         "kid body information back parent face others level office door health person art war "
         "history party result change morning reason research girl guy moment air teacher force "
         "education unbelievable extraordinary tokenizer tokenization transformer llama alpaca "
         "quickly brown fox jumps over lazy dog naïve café résumé façade coöperate").split()

PROSE = [
    "The quick brown fox jumps over the lazy dog.",
    "Hello world! How are you doing today?",
    "It was the best of times, it was the worst of times.",
    "In 1969, Neil Armstrong walked on the Moon; 600 million people watched.",
    "She sells sea-shells by the sea-shore (or so they say).",
    "\"Quoted text\", said the narrator -- and then: silence...",
    "E-mail me at someone@example.com or visit https://example.org/path?q=1&r=2#frag.",
    "Prices rose 3.5% to $1,234.56 (approx. €1.100,00) in Q3 2024.",
    "Dr. Smith's lab—funded by the NIH—published 12 papers.",
    "Tokenizers split text into pieces; models see only the ids.",
    "Once upon a time, in a land far, far away, there lived a king.",
    "Mr. and Mrs. Dursley, of number four, Privet Drive, were proud to say that they were perfectly normal.",
    "To be, or not to be, that is the question:",
    "All happy families are alike; each unhappy family is unhappy in its own way.",
    "Call me Ishmael. Some years ago—never mind how long precisely—I went to sea.",
]

CODE = [
    "int main(int argc, char **argv) { return 0; }",
    "for (size_t i = 0; i < n; i++) sum += x[i] * y[i];",
    "def f(x):\n    return x ** 2 + 3*x - 1",
    "    if not ok:\n        raise ValueError(\"bad input: %r\" % (value,))",
    "const add = (a, b) => a + b; // arrow function",
    "#include <stdio.h>\n#define MAX(a,b) ((a)>(b)?(a):(b))",
    "SELECT id, name FROM users WHERE age >= 18 ORDER BY name;",
    "x = [i for i in range(10) if i % 2 == 0]",
    "fn main() { println!(\"{}\", 1 + 2); }",
    "<div class=\"box\"><p>Hello &amp; welcome</p></div>",
    "{\"key\": [1, 2.5, -3e10, true, null], \"nested\": {\"a\": \"b\"}}",
    "git commit -m 'fix: handle CRLF'\r\n",
    "\tindented_with_tab = 1\n\t\tdouble_tab = 2",
    "a+=b;c-=d;e*=f;g/=h;i%=j;k&=l;m|=n;o^=p;q<<=r;s>>=t;",
    "if (a != b && c == d || !e) { /* comment */ }",
    "    return self.weight @ x.T + self.bias  # matmul",
]

CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]
CONTRACTION_WORDS = ["it", "don", "we", "they", "I", "she", "you", "He", "IT", "DON", "WE"]

SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|start_header_id|>",
            "<|end_header_id|>", "<|python_tag|>", "<s>", "</s>", "<unk>", "<|im_start|>",
            "<|im_end|>", "<|endoftext|>", "<mask>", "[word]", "<sep>", "<|user|>", "<0x41>"]

UNICODE = [
    "中文文本测试，包括标点。", "日本語のテキスト、ひらがなとカタカナ。", "한국어 텍스트 테스트입니다.",
    "Tiếng Việt có dấu: Người ta nói rằng học đi đôi với hành.", "مرحبا بالعالم، هذا نص عربي.",
    "नमस्ते दुनिया, यह हिंदी पाठ है।", "Ελληνικά γράμματα και τόνοι.", "Русский текст с буквой ё.",
    "עברית מימין לשמאל", "ภาษาไทยไม่มีช่องว่าง", "ქართული ენა", "Ǆemal ǅemal ǆemal",
    "e\u0301 a\u0308\u0304 n\u0303o\u0302 combining marks", "Zalgo: z\u0334\u0327a\u0336\u0321l\u0335g\u0337o",
    "👨\u200d👩\u200d👧\u200d👦 family", "🏳\ufe0f\u200d🌈 flag", "👍🏽 thumbs", "🇫🇷🇯🇵 flags", "😀😃😄😁 smileys",
    "non\u00a0breaking\u00a0space", "ideographic\u3000space", "next\u0085line", "line\u2028sep para\u2029sep",
    "ogham\u1680space", "thin\u2009space hair\u200aspace", "zero\u200bwidth", "mongolian\u180evowel",
    "bom\ufeffinside", "narrow\u202fnbsp", "math\u205fspace", "ctrl\x1cfs\x1dgs\x1ers\x1fus",
    "vt\x0bff\x0c", "nul\x00inside", "del\x7fchar", "\u00ad soft hyphen", "ſ long s: it'ſ, IT'ſ",
    "ﬁ ligature ﬀ ﬃ", "Ⅻ roman numeral ⅻ", "½ ¾ ² ³ superscripts", "١٢٣ Arabic-Indic digits ٤٥٦",
    "१२३ Devanagari digits", "①②③ circled", "Ⓐⓑⓒ circled letters", "𝐁𝐨𝐥𝐝 math letters 𝟏𝟐𝟑",
    "𓀀 hieroglyph", "🀄 mahjong", "Kelvin K Angstrom Å", "snake_case and CONSTANT_CASE and a‿b",
]

INVALID = [
    b"\xff", b"abc\x80def", b"\xe4\xb8", b"\xe4\xb8 end", b"\xf0\x9f\x98", b"\xf0\x9f\x98 x",
    b"\xc0\xaf", b"\xed\xa0\x80 surrogate", b"\xf4\x90\x80\x80 too big", b"\xe0\x80\x80 overlong",
    b"\xfe\xfe\xff\xff", b"ok \xc3", b"\xc3\x28", b"\xa0\xa1", b"\xe2\x82\x28", b"\xe2\x28\xa1",
    b"\xf0\x90\x28\xbc", b"\xf0\x28\x8c\x28", b"\xf8\xa1\xa1\xa1\xa1", b"mixed \xe4\xb8\xad\xe6 text",
    b"<|eot_id|>\xff", b"\x80\x80\x80", b"caf\xe9", b"\xef\xbf\xbd real fffd", b"\xed\xbf\xbf",
]


def make_corpus():
    rng = random.Random(20260512)
    lines = []
    add = lines.append
    for s in PROSE + CODE + UNICODE:
        add(s)
    # numbers of every length, alone and in text
    for n in range(1, 41):
        d = "".join(rng.choice("0123456789") for _ in range(n))
        add(d)
        add(" " + d)
        add("x" + d + "y")
        add("%s.%s" % (d, d[::-1]))
    for v in [0, 7, 42, 100, 1000, 12345, 123456, 1234567, 3.14159, -2.5, 1e10, 6.022e23]:
        add("value = %r" % v)
        add("%s,%s" % (v, v))
    add("1,234,567.89 and 1 234 567 and 1_000_000 and 0x1F and 0b1010")
    # contractions in every case
    for w in CONTRACTION_WORDS:
        for c in CONTRACTIONS:
            for form in (c, c.upper(), c[:2] + c[2:].upper(), c.capitalize()):
                add("%s%s go" % (w, form))
    for c in CONTRACTIONS:
        add("'%s'" % c[1:])
        add("x%sy" % c)
        add(" %s" % c)
    add("it'ſ IT'ſ 'ſ ſ'S 'Ss ''s '''")
    for s in ["'ſab", "'Sab", "'sab", "'LLama", "'Reason", "'VEry", "'Dog", "'Mom", "'Tea", "'K", "x'ſ'ſ'ſ"]:
        add(s)
        add(" " + s)
    add("rock 'n' roll, 'tis, y'all, o'clock, don't, DON'T, Don'T")
    # white space
    for n in range(1, 21):
        add("a" + " " * n + "b")
        add(" " * n)
        add("a" + " " * n)
        add(" " * n + "a")
    ws = [" ", "\t", "\r", "\n", "\r\n", "\u00a0", "\u3000", "\u0085", "\x0b", "\x0c"]
    for a in ws:
        for b in ws:
            add("word%s%sword" % (a, b))
            add("%s%s" % (a, b))
    for k in range(60):
        add("".join(rng.choice(ws + ["x", "y", "!", "1", "é"]) for _ in range(rng.randint(1, 12))))
    add("line one\nline two\r\nline three\rline four")
    add("\n\n\nthree newlines first")
    add("trailing newlines\n\n\n")
    add("  \n  \n  indented block\n")
    add("tabs\t\tbetween\t\twords\t")
    add("!!!\n\n???\r\n...")
    # special-token strings inside text
    for s in SPECIALS:
        add(s)
        add("hello%sworld" % s)
        add("hello %s world" % s)
        add("%s%s" % (s, s))
        add(" %s " % s)
        add("a  %s  b" % s)
        add("%s\n" % s)
        add(s[:-1])
    add("<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")
    add("<s>[INST] Hello [/INST] Hi</s><s>[INST] again [/INST]")
    add("<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nhey<|im_end|>\n")
    add("<|eot_id|<|eot_id|>|> <<s>> <</s>")
    add("x[word]y [word] x [word]y [word]. ([word])")
    add("a <mask> b  <mask>c<sep>  d <sep>\n e")
    # random prose and word salad
    for k in range(700):
        n = rng.randint(1, 25)
        words = [rng.choice(WORDS) for _ in range(n)]
        s = " ".join(words)
        r = rng.random()
        if r < 0.2:
            s = s.capitalize() + rng.choice([".", "!", "?", "...", ";", ":"])
        elif r < 0.3:
            s = s.upper()
        elif r < 0.4:
            s = s.replace(" ", rng.choice(["  ", "\t", "\n", " - ", ", "]))
        elif r < 0.5:
            s = "%s %d %s" % (s, rng.randint(0, 10 ** rng.randint(1, 12)), rng.choice(WORDS))
        add(s)
    # random mixtures of everything
    pool = (PROSE + CODE + UNICODE + SPECIALS + [" ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "123",
                                                 "4567", "😀", "中", "\u00a0", "\u3000", "\u0085"])
    for k in range(500):
        parts = [rng.choice(pool) for _ in range(rng.randint(1, 5))]
        s = "".join(p if rng.random() < 0.5 else p[: rng.randint(0, len(p))] for p in parts)
        add(s)
    # random code points from many ranges
    ranges = [(0x20, 0x7E), (0xA0, 0x24F), (0x370, 0x52F), (0x590, 0x6FF), (0x900, 0x97F),
              (0x3040, 0x30FF), (0x4E00, 0x4FFF), (0xAC00, 0xAD00), (0x1F300, 0x1F64F),
              (0x2000, 0x206F), (0x0300, 0x036F), (0x10000, 0x1007F), (0xFF00, 0xFFEF)]
    for k in range(200):
        s = ""
        for _ in range(rng.randint(1, 16)):
            lo, hi = rng.choice(ranges)
            c = rng.randint(lo, hi)
            if 0xD800 <= c <= 0xDFFF:
                continue
            s += chr(c)
        add(s)
    add("")
    data = [s.encode("utf-8") for s in lines]
    # invalid UTF-8, alone and inside text
    data += INVALID
    for k in range(60):
        b = bytearray(rng.choice(lines).encode("utf-8"))
        for _ in range(rng.randint(1, 3)):
            b.insert(rng.randint(0, len(b)), rng.randint(0x80, 0xFF))
        data.append(bytes(b))
    return data


# ---- the NFC cases (qwen2) ------------------------------------------------------------------

QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
                 "<|box_start|>", "<|box_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>"]
NFC_ADDED = "<|ha\u0301|>"        # normalized: matches its NFC, "<|há|>"
RAW_ADDED = "<|e\u0301|>"         # not normalized: matches this raw text only


def nfd(s):
    return unicodedata.normalize("NFD", s)


def make_nfc_corpus():
    rng = random.Random(20260601)
    lines = []
    add = lines.append
    # decomposed and precomposed Latin
    for s in ["e\u0301", "caf\u00e9 cafe\u0301", "E\u0301COLE \u00c9COLE", "n\u0303o\u0303", "A\u030a \u00c5 \u212b",
              "A\u030a\u0301 \u01fa", "u\u0308\u0304 \u01d6", "C\u0327\u0301 \u1e08", "a\u0300\u0300", "I\u0307 \u0130",
              "\u00c0\u00c1\u00c2\u00c3\u00c4\u00c5", nfd("\u00c0\u00c1\u00c2\u00c3\u00c4\u00c5"), "ȧ\u0304 ǡ", "o\u031b\u0301 ớ",
              "s\u0323\u0307 \u1e69 s\u0307\u0323", "d\u0307\u0323 \u1e0d\u0307", "x\u0301\u0316", "q\u0307\u0323"]:
        add(s)
    # marks to reorder: both orders of 0323 (220) and 0302 (230), and more
    for base in "aeoAEO":
        for marks in ["\u0323\u0302", "\u0302\u0323", "\u0323\u0306", "\u0306\u0323", "\u0328\u0301", "\u0301\u0328",
                      "\u0308\u0304", "\u0304\u0308", "\u0327\u0306", "\u031b\u0303\u0323", "\u0323\u031b\u0303"]:
            add(base + marks)
            add(" " + base + marks + "x")
    # Hangul: LV, LVT, a composed syllable and a T jamo, a syllable that already has a T, fillers,
    # jamo outside the composing ranges
    for s in ["\u1100\u1161", "\u1100\u1161\u11a8", "\uac00\u11a8", "\uac01\u11a8", "\u1112\u1175\u11c2", "\ud7a3",
              "\u1100\u1100\u1161", "\u1100\u1161\u1161", "\uac00\u11a7", "\u1100\u1161\u11a7", "\u115f\u1161",
              "\u1100\u1160", "\u1100\u1176", "\u1113\u1161", "\uac00\u11c3", "\uac00\u0301", "\u1100\u0301\u1161",
              "\u1100\u1161\u0301\u11a8", nfd("한국어 텍스트 테스트입니다."), "한국어 " + nfd("한국어"), "\u110b\u1173\u11ab\u1103\u1161"]:
        add(s)
    for k in range(40):
        add("".join(chr(rng.choice([rng.randint(0x1100, 0x1112), rng.randint(0x1161, 0x1175),
                                    rng.randint(0x11a7, 0x11c3), rng.randint(0xac00, 0xd7a3)]))
                    for _ in range(rng.randint(2, 9))))
    # singletons, composition exclusions, non-starter decompositions
    for s in ["\u212b", "\u2126", "\u212a", "\u0340\u0341", "a\u0340", "\u0343", "\u0374", "\u037e", "\u0387", "\u1fbe",
              "\u2126\u0301", "\u212b\u0323", "\u0958\u0959\u095a", "\u0915\u093c", "\u2adc", "\u2add\u0338", "\ufb2c\ufb1d",
              "\u05e9\u05bc\u05c1", "\u0f73\u0f75\u0f81", "\u0344", "a\u0344", "\u2329\u232a", "\U0001d160\U0001d15e",
              "\U0001d1bb\U0001d1bc", "\u09dc\u09dd\u09df", "\u0f43\u0f4d", "\U0001109a \U00011099\U000110ba",
              "\u0b47\u0b3e \u0b4b", "\u0dd9\u0dcf\u0dca \u0ddd", "\u1b05\u1b35"]:
        add(s)
    # blocked marks, a starter after marks, marks with no starter
    for s in ["a\u0301\u0301", "a\u0328\u0301", "a\u0301b", "\u0301a", "\u0300\u0300a", "a\u0323\u0301\u0302e\u0301",
              "a\u0315\u0301", "a\u0345\u0301", "\u03b1\u0345\u0301", "a\u031b\u0301\u0323", "\u0301", " \u0301", "\u0301\u0323",
              "a\u05b0\u0301", "a\u0650\u0301", "k\u0301\u0301\u0301x"]:
        add(s)
    # Vietnamese, Greek with tonos and dialytika
    viet = ["Tiếng Việt có dấu: Người ta nói rằng học đi đôi với hành.", "Phở bò, bánh mì, cà phê sữa đá",
            "Đặng Thị Ngọc Thịnh, Hồ Chí Minh"]
    for s in viet:
        add(s)
        add(nfd(s))
        add("".join(nfd(c) if rng.random() < 0.5 else c for c in s))
    greek = ["ά έ ή ί ό ύ ώ ΐ ΰ", "Ἀθῆναι, ᾅδης, ᾨδή", "Ϊ Ϋ ϊ ϋ ΐ", "ι\u0308\u0301 υ\u0308\u0301", "\u1f71\u1f73\u1fbb",
             "α\u0313\u0300\u0345 \u1f82", "\u0345α", "Ω\u0301 \u038f", "ᾳ\u0342 ᾷ"]
    for s in greek:
        add(s)
        add(nfd(s))
    # CJK compatibility ideographs (singletons to unified ideographs), next to unified ones
    add("\uf900\uf901\uf902 \uf9dc\ufa10\ufa0e")
    add("\U0002f800\U0002f801\U0002fa1d 丽")
    add("".join(chr(c) for c in range(0xf900, 0xf960)))
    add("".join(chr(c) for c in range(0x2f800, 0x2f830)))
    # combining sequences at the edges of added tokens (each segment is normalized alone)
    for s in ["e<|im_end|>\u0301", "\u0301<|im_start|>", "<|im_start|>\u0301e", "e\u0301<|endoftext|>\u0323",
              "\u1100<|im_end|>\u1161", "\uac00<|endoftext|>\u11a8", NFC_ADDED, "<|h\u00e1|>", RAW_ADDED, "<|\u00e9|>",
              "x" + NFC_ADDED + "\u0323", RAW_ADDED + "\u0301", "a" + RAW_ADDED, "<|ha\u0301\u0301|>", "<|ha\u0323\u0301|>",
              "<|im_start|>user\nCafe\u0301?<|im_end|>\n<|im_start|>assistant\n", "<tool_call>\u0301</tool_call>",
              "<|e\u0301|>\u0301<|ha\u0301|>", "<|box_start|>\u0323\u0302a<|box_end|>"]:
        add(s)
    # long runs of marks (the sort goes beyond the short-run path) and Zalgo
    marks = [c for c in range(0x300, 0x370)] + [0x591, 0x5b0, 0x5c4, 0x610, 0x64b, 0x1dc0, 0x20d0, 0x302a, 0x302b]
    add("a" + "\u0301" * 40)
    add("e" + "\u0323\u0302" * 30)
    for n in (33, 100, 500, 3000):
        add("a" + "".join(chr(rng.choice(marks)) for _ in range(n)) + " b")
    add("".join(chr(rng.choice(marks)) for _ in range(200)))
    add("".join(c + "".join(chr(rng.choice(marks)) for _ in range(rng.randint(0, 6))) for c in "Zalgo text is here"))
    # digit runs (one digit per piece) and other numbers
    for s in ["1234567890", " 12345", "x1y22z333", "3.14159", "a1b2c3", "١٢٣٤٥", "१२३४", "①②③", "²³¹", "１２３４５",
              "12345 67890", "ⅫⅬ", "0x1F 0b1010", "1\u0301 2\u20e3", "٣\u0651"]:
        add(s)
    # random strings of code points with a class or a decomposition (Unicode 14.0's; the 99 that
    # Unicode 9.0 lacks included), jamo, Hangul, some ASCII
    props = sorted(make_unicode.assigned_with_props())
    pool = props + list(range(0x1100, 0x1200)) + list(range(0xac00, 0xd7a4, 37)) + [0x61, 0x65, 0x41, 0x20, 0x31]
    for k in range(2500):
        add("".join(chr(rng.choice(pool)) for _ in range(rng.randint(1, 10))))
    data = [x.encode("utf-8") for x in lines]
    # invalid UTF-8 next to marks and jamo (U+FFFD is a starter)
    data += [b"e\xcc", b"a\xff\xcc\x81", b"\xe1\x84\x80\xff\xe1\x85\xa1", b"\xcc\x81\xcc", b"o\xcc\x82\x80\xcc\xa3"]
    return data


# ---- the Gemma cases (gemma) -----------------------------------------------------------------

# what the gemma family's sentencepiece model has besides learned pieces, as Gemma's has them:
# control symbols (special added tokens) and user-defined ones (added tokens, not special)
GEMMA_UNUSED = 2600
GEMMA_HTML = ["<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", "</th>", "<thead>", "</thead>",
              "<tbody>", "</tbody>", "<caption>", "</caption>", "<b>", "</b>", "<br>", "<br/>", "<blockquote>",
              "</blockquote>", "<code>", "</code>", "<h1>", "</h1>", "<h2>", "</h2>", "<li>", "</li>", "<ul>", "</ul>",
              "<p>", "</p>", "<div>", "</div>", "<span>", "</span>", "<em>", "</em>", "<strong>", "</strong>"]


def gemma_control_symbols():
    return (["<mask>", "[@BOS@]"] + ["<unused%d>" % i for i in range(99)] + ["<start_of_turn>", "<end_of_turn>",
            "<start_of_image>", "<end_of_image>"] + ["<unused%d>" % i for i in range(99, GEMMA_UNUSED)])


def gemma_user_symbols():
    return ["\n" * k for k in range(1, 32)] + ["\u2581" * k for k in range(2, 32)] + GEMMA_HTML


def make_gemma_corpus():
    rng = random.Random(20260701)
    lines = []
    add = lines.append
    mark = "\u2581"
    # "▁" typed in the text: the added "▁▁".."▁"*31 match it before the normalizer runs
    for k in range(1, 41):
        add(mark * k)
    for s in ["a" + mark * 2 + "b", "a " + mark * 2 + " b", mark + " " + mark, " " + mark * 2, mark * 2 + " ",
              "x" + mark * 4 + "y z", mark + "a", "a" + mark, mark + "\n" + mark * 3, "caf\u00e9 " + mark + " na\u00efve",
              "\u4e2d\u6587" + mark + "\u6587\u672c", mark * 33 + " " * 33]:
        add(s)
    # runs of newlines (added tokens up to 31), spaces (pieces after the normalizer), tabs
    for k in range(1, 41):
        add("\n" * k)
    for k in (1, 2, 3, 30, 31, 32, 33, 62, 63, 64):
        add("a" + "\n" * k + "b")
    for k in range(21, 41):
        add(" " * k)
        add("a" + " " * k + "b")
    for s in ["\n \n", " \n\n ", "\r\n\r\n", "\n\r\n", "\n\n\n\n x", "x\n\n\n\n\n\n\n\n", "\t", "\t" * 5, "a\tb", " \t ",
              "\t\n\t", "\t\tindented\n\t\t\tmore", "a \t\n \t\n b"]:
        add(s)
    # chat turns and the special tokens
    turns = ["<bos><start_of_turn>user\nHi there<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n",
             "<start_of_turn>user\nBe brief.\n\nWhat is 2+2?<end_of_turn>\n<start_of_turn>model\n",
             "<start_of_turn>user\n<start_of_image> describe<end_of_turn>\n", "<end_of_turn><eos>", "<start_of_turn>model\n\n\n",
             "<start_of_turn> user <end_of_turn>", "<start_of_turn<end_of_turn>>", "<start_of_image><end_of_image>"]
    for s in turns:
        add(s)
    for s in ["<bos>", "<eos>", "<pad>", "<unk>", "<mask>", "[@BOS@]", "<bos>hi", "hi<eos>", "a <mask> b", "[@BOS@]x"]:
        add(s)
    # the <unusedN> tokens, their neighbours and near misses (prefixes share a first byte)
    for n in (0, 1, 9, 10, 11, 98, 99, 100, 999, 1000, 1234, GEMMA_UNUSED - 1, GEMMA_UNUSED, GEMMA_UNUSED + 1, 99999):
        add("<unused%d>" % n)
        add("x<unused%d>y" % n)
    for s in ["<unused>", "<unused-1>", "<unused1", "unused1>", "<<unused1>>", "<unused1><unused2>", "<unused05>",
              "<unused1 >", "<UNUSED1>", "<unused1>0", "<unused12345678901234567890>", "<un", "<", "<<", "<<<<<"]:
        add(s)
    # the HTML tokens (not special) and text full of "<"
    for s in ["<table><tr><td>1</td><td>2</td></tr></table>", "<br><br/><b>bold</b><blockquote>q</blockquote>",
              "<B>", "< br>", "<brr>", "<b", "a < b <= c <<< d >> e", "<p>para</p>\n<div><span>x</span></div>",
              "<h1>Title</h1>\n\n<h2>Sub</h2>", "<code>x = y</code>", "<li><em>a</em></li><li><strong>b</strong></li>"]:
        add(s)
    # random mixtures
    pool = (turns + GEMMA_HTML + ["<unused%d>" % rng.randrange(GEMMA_UNUSED + 50) for _ in range(40)] +
            [mark, mark * 2, mark * 5, " ", "  ", "    ", "\n", "\n\n", "\n\n\n\n", "\t", "\r\n", "<", ">", "<unused",
             "hello", "world", "The quick brown fox.", "caf\u00e9", "\u4e2d\u6587", "\U0001f600", "123", "4567", "'s",
             "\u00a0", "\u3000"] + PROSE[:5] + CODE[:5])
    for k in range(600):
        add("".join(rng.choice(pool) for _ in range(rng.randint(1, 8))))
    # long texts: a table of thousands of tags and unused tokens, and a run of "<"
    add("".join(rng.choice(GEMMA_HTML + ["<unused%d>" % rng.randrange(GEMMA_UNUSED + 50), "x", " ", "\n", "<"])
                for _ in range(3000)))
    add("<" * 3000 + "unused1>")
    data = [x.encode("utf-8") for x in lines]
    data += [b"<unused1\xff>", b"\xe2\x96", b"\xe2\x96\x81\xe2\x96", b"<start_of_turn>\xc3"]
    return data


def write_nfc_table(path):
    """nfc.txt: strings around every code point with a class or a canonical decomposition in
    Unicode 14.0, and Hangul, with their NFC from a Unicode 9.0 Python (tokenizers 0.20.3's)"""
    props = make_unicode.assigned_with_props()
    dec = {cp: p[1] for cp, p in props.items() if p[1] and not make_unicode.in_ranges(cp, make_unicode.NEW_SINCE_9)}
    probes = make_unicode.nfc_probes(dec, sorted(props))
    for s in range(0xac00, 0xd7a4, 29):   # Hangul: a stride of syllables, each with its jamo
        probes += [chr(s), nfd(chr(s))]
    for s in range(0xac00, 0xd7a4, 28):   # every LV syllable with the first and last T, and not-a-T
        probes += [chr(s) + "\u11a8", chr(s) + "\u11c2", chr(s) + "\u11a7"]
    seen, uniq = set(), []
    for x in probes:
        if x not in seen:
            seen.add(x)
            uniq.append(x)
    u9 = make_unicode.unicode9(uniq)
    if u9 is None:
        raise SystemExit("nfc.txt needs a Python whose unicodedata is 9.0.0 (Python 3.6; XLARUN_PYTHON_UNICODE9)")
    want = u9[1]
    norm = normalizers.NFC()
    bad = [x for x, w in zip(uniq, want) if norm.normalize_str(x) != w]
    if bad:
        raise SystemExit("tokenizers' NFC differs from Unicode 9.0.0's on %d strings, e.g. %r" % (len(bad), bad[0]))
    newer = sum(unicodedata.normalize("NFC", x) != w for x, w in zip(uniq, want))

    def h(x):
        return ".".join("%x" % ord(c) for c in x)
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write("# NFC (Unicode 9.0.0, as tokenizers %s): one string per line, its code points in hex joined by '.',\n"
                "# a space, then its NFC ('=' when unchanged). %d strings; tokenizers' NFC agrees on all, Python %s's\n"
                "# unicodedata (Unicode %s) differs on %d. Generated by tools/make_tokenizer_fixtures.py\n"
                % (tokenizers.__version__, len(uniq), sys.version.split()[0], unicodedata.unidata_version, newer))
        for x, w in zip(uniq, want):
            f.write("%s %s\n" % (h(x), "=" if w == x else h(w)))
    return len(uniq), newer


def training_text(corpus):
    rng = random.Random(7)
    out = [b.decode("utf-8", errors="replace") for b in corpus]
    for k in range(3000):
        out.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30))))
    out += PROSE * 20 + CODE * 20
    return out


# ---- the three tokenizers --------------------------------------------------------------------

def with_json(tok, edit):
    j = json.loads(tok.to_str())
    edit(j)
    return Tokenizer.from_str(json.dumps(j, ensure_ascii=False))


def extra_words(tok, texts, n, prefix_map):
    """pre-tokens that BPE splits into 2+ tokens, in the model's alphabet"""
    seen, out = set(), []
    pre = tok.pre_tokenizer
    for t in texts:
        if pre is not None:
            pieces = [p for p, _ in pre.pre_tokenize_str(t)]
        else:
            pieces = [prefix_map(t)]
        for p in pieces:
            if p in seen or len(p) < 6 or len(p) > 24:
                continue
            seen.add(p)
            ids = tok.model.tokenize(p)
            if len(ids) >= 3:
                out.append(p)
                if len(out) == n:
                    return out
    return out


def llama3(train):
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)])
    tok.decoder = decoders.ByteLevel(add_prefix_space=True, trim_offsets=True, use_regex=True)
    tr = trainers.BpeTrainer(vocab_size=1400, min_frequency=2, show_progress=False,
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(train, tr)
    extra = extra_words(tok, train[-4000:], 40, None)

    def edit(j):
        v = j["model"]["vocab"]
        for w in extra:
            v[w] = len(v)
        j["model"]["ignore_merges"] = True
    tok = with_json(tok, edit)
    names = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
             "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>",
             "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>"]
    names += ["<|reserved_special_token_%d|>" % i for i in range(3, 21)]
    tok.add_special_tokens([AddedToken(n, special=True, normalized=False) for n in names])
    bos = tok.token_to_id("<|begin_of_text|>")
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True),
        processors.TemplateProcessing(single="<|begin_of_text|> $A",
                                      pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
                                      special_tokens=[("<|begin_of_text|>", bos)])])
    eot, eos = tok.token_to_id("<|eot_id|>"), tok.token_to_id("<|end_of_text|>")
    cfg = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",
           "clean_up_tokenization_spaces": True, "model_max_length": 131072,
           "tokenizer_class": "PreTrainedTokenizerFast",
           "chat_template": "{{- bos_token }}{%- for message in messages %}{{- '<|start_header_id|>' + "
                            "message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + "
                            "'<|eot_id|>' }}{%- endfor %}{%- if add_generation_prompt %}{{- "
                            "'<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}"}
    gen = {"bos_token_id": bos, "eos_token_id": [eos, tok.token_to_id("<|eom_id|>"), eot],
           "do_sample": True, "temperature": 0.6, "top_p": 0.9}
    return tok, cfg, gen, "pairs"


def sp_vocab(train, byte_fallback):
    """a SentencePiece-like BPE vocabulary (trained on ▁-prefixed words), <0xHH> tokens if asked"""
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=byte_fallback, byte_fallback=byte_fallback))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never", split=True)
    tr = trainers.BpeTrainer(vocab_size=900, min_frequency=2, show_progress=False, limit_alphabet=120,
                             special_tokens=["<unk>", "<s>", "</s>"])
    tok.train_from_iterator(train, tr)
    j = json.loads(tok.to_str())
    m = j["model"]
    old = sorted(m["vocab"].items(), key=lambda kv: kv[1])
    v = {}
    for k, i in old[:3]:
        v[k] = i
    if byte_fallback:
        for b in range(256):
            v["<0x%02X>" % b] = len(v)
    for k, i in old[3:]:
        if k not in v:
            v[k] = len(v)
    for extra in ["▁▁", "▁▁▁▁"]:
        if extra not in v:
            v[extra] = len(v)
    merges = [tuple(x) if isinstance(x, list) else tuple(x.split(" ")) for x in m["merges"]]
    merges += [("▁", "▁"), ("▁▁", "▁▁")]
    m["vocab"] = v
    m["merges"] = ["%s %s" % ab for ab in merges]
    for a in j["added_tokens"]:
        a["id"] = v[a["content"]]
    return j


def sp(train):
    j = sp_vocab(train, True)
    j["pre_tokenizer"] = None
    tok = Tokenizer.from_str(json.dumps(j, ensure_ascii=False))
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(),
                                     decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A $B:1",
                                                       special_tokens=[("<s>", 1)])
    tok.add_tokens([AddedToken("<|user|>", normalized=True, special=False)])
    cfg = {"bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": False, "normalized": False,
                         "rstrip": False, "single_word": False},
           "eos_token": "</s>", "unk_token": "<unk>", "add_bos_token": True, "add_eos_token": False,
           "legacy": False, "tokenizer_class": "LlamaTokenizer",
           "chat_template": [{"name": "default", "template": "{% for m in messages %}{{ m['content'] }}{% endfor %}"},
                             {"name": "tool_use", "template": "tools"}]}
    return tok, cfg, None, "legacy"


def ms(train):
    j = sp_vocab(train, True)
    j["normalizer"] = None
    j["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
    j["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "ByteFallback"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}]}
    tok = Tokenizer.from_str(json.dumps(j, ensure_ascii=False))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A $B:1",
                                                       special_tokens=[("<s>", 1)])
    tok.add_tokens([AddedToken("<|user|>", normalized=True, special=False),
                    AddedToken("[INST]", normalized=False, special=True)])
    cfg = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "add_bos_token": True,
           "add_eos_token": False, "legacy": False, "tokenizer_class": "LlamaTokenizer"}
    return tok, cfg, None, "legacy"


def ms2(train):
    j = sp_vocab(train, False)
    j["normalizer"] = None
    j["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
    j["decoder"] = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
    tok = Tokenizer.from_str(json.dumps(j, ensure_ascii=False))
    tok.add_tokens([AddedToken("<mask>", lstrip=True, special=True, normalized=False)])
    cfg = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "tokenizer_class": "LlamaTokenizer"}
    return tok, cfg, None, "legacy-file"


def gpt2(train):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)])
    tok.decoder = decoders.ByteLevel(add_prefix_space=True, trim_offsets=True, use_regex=True)
    tok.post_processor = processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<repo_name>", "<reponame>", "<file_sep>"]
    tr = trainers.BpeTrainer(vocab_size=1100, min_frequency=2, show_progress=False, special_tokens=specials,
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(train, tr)
    extra = extra_words(tok, train[-4000:], 20, None)

    def edit(j):
        m = j["model"]
        for w in extra:
            m["vocab"][w] = len(m["vocab"])
        m["merges"] = [x if isinstance(x, str) else "%s %s" % tuple(x) for x in m["merges"]]
    tok = with_json(tok, edit)
    tok.add_tokens([AddedToken("<mask>", lstrip=True, special=True, normalized=False),
                    AddedToken("<sep>", rstrip=True, special=True, normalized=False),
                    AddedToken("[word]", single_word=True, special=False, normalized=False),
                    AddedToken("@@", special=False, normalized=True)])
    cfg = {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "unk_token": "<|endoftext|>",
           "add_prefix_space": False, "tokenizer_class": "GPT2Tokenizer",
           "chat_template": "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
                            "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}"
                            "{{ '<|im_start|>assistant\\n' }}{% endif %}"}
    return tok, cfg, None, "legacy"


def qwen2(train):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    tok.post_processor = processors.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    tr = trainers.BpeTrainer(vocab_size=1500, min_frequency=2, show_progress=False,
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(train, tr)
    extra = extra_words(tok, train[-4000:], 20, None)

    def edit(j):
        m = j["model"]
        for w in extra:
            m["vocab"][w] = len(m["vocab"])
        # two-digit tokens and their merges: with one digit per piece they are never reached, so
        # a split that kept digits together would show in the ids
        for a in "0123456789":
            for b in "0123456789":
                if a + b not in m["vocab"]:
                    m["vocab"][a + b] = len(m["vocab"])
                    m["merges"].append([a, b] if m["merges"] and isinstance(m["merges"][0], list) else a + " " + b)
    tok = with_json(tok, edit)
    tok.add_special_tokens([AddedToken(n, special=True, normalized=False) for n in QWEN_SPECIALS])
    tok.add_tokens([AddedToken("<tool_call>", special=False, normalized=False),
                    AddedToken("</tool_call>", special=False, normalized=False),
                    AddedToken(NFC_ADDED, special=False, normalized=True),
                    AddedToken(RAW_ADDED, special=False, normalized=False)])

    def as_qwen(j):   # the ByteLevel steps and model keys exactly as Qwen2.5's file has them
        bl = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
        j["pre_tokenizer"]["pretokenizers"][1] = dict(bl)
        j["post_processor"], j["decoder"] = dict(bl), dict(bl)
        j["model"]["continuing_subword_prefix"], j["model"]["end_of_word_suffix"] = "", ""
    tok = with_json(tok, as_qwen)
    eot, im_end = tok.token_to_id("<|endoftext|>"), tok.token_to_id("<|im_end|>")
    cfg = {"add_bos_token": False, "add_prefix_space": False, "bos_token": None, "clean_up_tokenization_spaces": False,
           "eos_token": "<|im_end|>", "errors": "replace", "model_max_length": 131072, "pad_token": "<|endoftext|>",
           "split_special_tokens": False, "tokenizer_class": "Qwen2Tokenizer", "unk_token": None,
           "chat_template": "{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + messages[0]['content'] + "
                            "'<|im_end|>\\n' }}{%- else %}{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. "
                            "You are a helpful assistant.<|im_end|>\\n' }}{%- endif %}{%- for message in messages %}{%- if "
                            "not (message.role == 'system' and loop.first) %}{{- '<|im_start|>' + message.role + '\\n' + "
                            "message.content + '<|im_end|>' + '\\n' }}{%- endif %}{%- endfor %}{%- if add_generation_prompt "
                            "%}{{- '<|im_start|>assistant\\n' }}{%- endif %}"}
    gen = {"bos_token_id": eot, "eos_token_id": [im_end, eot], "do_sample": True, "pad_token_id": eot,
           "repetition_penalty": 1.1, "temperature": 0.7, "top_k": 20, "top_p": 0.8}
    return tok, cfg, gen, "legacy"


# the gemma family's sentencepiece model and its conversion run in another Python (see the top)
GEMMA_PINNED = {"transformers": "4.51.3", "tokenizers": "0.21.4", "sentencepiece": "0.2.3"}
GEMMA_PYTHON = os.environ.get("XLARUN_GEMMA_PYTHON", "/tmp/venv-gemma-tok/bin/python")
GEMMA_TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "chat", "templates",
                              "gemma3-270m.jinja")


def gemma_convert(d):
    """(in GEMMA_PYTHON) train d/train.json's sentences into a sentencepiece BPE model with Gemma's
    trainer options and save it as transformers' GemmaTokenizerFast converts it, into d/saved"""
    import sentencepiece as spm
    import transformers
    from transformers import GemmaTokenizerFast
    have = {"transformers": transformers.__version__, "tokenizers": tokenizers.__version__,
            "sentencepiece": spm.__version__}
    if have != GEMMA_PINNED:
        msg = "%s: installed %s, the gemma fixture pins %s" % (sys.executable, have, GEMMA_PINNED)
        if os.environ.get("XLARUN_FIXTURES_ANY_VERSION") != "1":
            raise SystemExit(msg + " (XLARUN_FIXTURES_ANY_VERSION=1 to go on)")
        print("warning: " + msg)
    with open(os.path.join(d, "train.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    ctrl, user = gemma_control_symbols(), gemma_user_symbols()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences), model_prefix=os.path.join(d, "gemma"), model_type="bpe",
        vocab_size=4 + len(ctrl) + len(user) + 256 + 1200, character_coverage=0.98, byte_fallback=True,
        split_digits=True, split_by_whitespace=True, split_by_unicode_script=True, split_by_number=True,
        treat_whitespace_as_suffix=False, allow_whitespace_only_pieces=True, add_dummy_prefix=False,
        remove_extra_whitespaces=False, normalization_rule_name="identity", pad_id=0, eos_id=1, bos_id=2, unk_id=3,
        pad_piece="<pad>", eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>", control_symbols=ctrl,
        user_defined_symbols=user, num_threads=1, minloglevel=2)
    GemmaTokenizerFast(vocab_file=os.path.join(d, "gemma.model")).save_pretrained(os.path.join(d, "saved"))


def gemma(train):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "train.json"), "w", encoding="utf-8") as f:
            json.dump([t.replace("\t", " ") for t in train if t.strip()], f)   # no "\t" piece: <0x09> becomes "\t"
        subprocess.run([GEMMA_PYTHON, os.path.abspath(__file__), "--gemma-convert", d], check=True)
        with open(os.path.join(d, "saved", "tokenizer.json"), encoding="utf-8") as f:
            tok = Tokenizer.from_str(f.read())
    with open(GEMMA_TEMPLATE, encoding="utf-8") as f:
        template = f.read()
    cfg = {"add_bos_token": True, "add_eos_token": False, "bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>",
           "unk_token": "<unk>", "additional_special_tokens": ["<start_of_turn>", "<end_of_turn>"],
           "clean_up_tokenization_spaces": False, "spaces_between_special_tokens": False,
           "tokenizer_class": "GemmaTokenizer", "chat_template": template}
    gen = {"bos_token_id": tok.token_to_id("<bos>"), "eos_token_id": [tok.token_to_id("<eos>"), tok.token_to_id("<end_of_turn>")],
           "pad_token_id": tok.token_to_id("<pad>"), "do_sample": True, "top_k": 64, "top_p": 0.95}
    return tok, cfg, gen, "pairs"


# ---- recording -------------------------------------------------------------------------------

def ids_str(ids):
    return " ".join(str(i) for i in ids)


def record(name, tok, corpus, out, tool="tools/make_tokenizer_fixtures.py"):
    rng = random.Random(99)
    lines = ["# %s: tokenizers %s, python %s; generated by %s"
             % (name, tokenizers.__version__, sys.version.split()[0], tool)]
    stats = {"cases": 0, "invalid": 0, "roundtrip": 0, "valid": 0, "special_diff": 0}
    for i, raw in enumerate(corpus):
        text = raw.decode("utf-8", errors="replace")
        valid = text.encode("utf-8") == raw
        tok.encode_special_tokens = False
        n = tok.encode(text, add_special_tokens=False).ids
        lines.append(("n %d %s" % (i, ids_str(n))).rstrip())
        if i < 200:
            lines.append(("b %d %s" % (i, ids_str(tok.encode(text).ids))).rstrip())
        tok.encode_special_tokens = True
        s = tok.encode(text, add_special_tokens=False).ids
        tok.encode_special_tokens = False
        if s != n:
            lines.append(("s %d %s" % (i, ids_str(s))).rstrip())
            stats["special_diff"] += 1
        d = tok.decode(n, skip_special_tokens=False)
        if d != text:
            lines.append("d %d %s" % (i, d.encode("utf-8").hex()))
        k = tok.decode(n, skip_special_tokens=True)
        if k != d:
            lines.append("k %d %s" % (i, k.encode("utf-8").hex()))
        stats["cases"] += 1
        stats["valid"] += valid
        stats["invalid"] += not valid
        stats["roundtrip"] += valid and d == text
    V = tok.get_vocab_size(with_added_tokens=True)
    bid = [tok.token_to_id("<0x%02X>" % b) for b in range(256)]   # None where the vocabulary has no such token
    byte_ids = [b for b in bid if b is not None]
    for k in range(400):
        seq = []
        for _ in range(rng.randint(1, 12)):
            r = rng.random()
            if byte_ids and r < 0.4:
                seq.append(rng.choice(byte_ids))
            else:
                seq.append(rng.randrange(V))
        lines.append("r %s %s" % (",".join(map(str, seq)), tok.decode(seq, skip_special_tokens=False).encode("utf-8").hex()))
    if all(bid[b] is not None for b in (0xE2, 0x96, 0x81, 0x20)) and tok.token_to_id("▁a") is not None:
        # "▁" and " " made of <0xHH> tokens, first, inside and after the text: the decoder's
        # Replace or Metaspace, before or after ByteFallback, treats them differently
        mark, sp, a = [bid[0xE2], bid[0x96], bid[0x81]], [bid[0x20]], [tok.token_to_id("▁a")]
        s0 = [tok.token_to_id("<bos>" if tok.token_to_id("<bos>") is not None else "<s>")]
        for seq in (mark + a, a + mark, mark + mark + a, sp + a, a + sp + mark, s0 + mark + a, mark + s0 + a,
                    mark[:2] + a, a + mark + sp + mark):
            lines.append("r %s %s" % (",".join(map(str, seq)), tok.decode(seq, skip_special_tokens=False).encode("utf-8").hex()))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "expected.txt"), "w", encoding="ascii", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return stats


def write_corpus(path, cases, what):
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write("# xlarun tokenizer test corpus%s: one case per line, the hex of its bytes; %d cases\n" % (what, len(cases)))
        for raw in cases:
            f.write(raw.hex() + "\n")


def case_corpus():
    """corpus_case.txt: the cases of the o200k and tekken families after corpus.txt's: upper,
    lower, title-case, modifier and other letters and marks in every order, contractions after
    words in any case, '/' and newlines after punctuation, digits, white space"""
    rng = random.Random(2026)
    pools = {
        "Lu": "ABCXYZÀÉÑΩΣЯЖǄǇ", "Lt": "ǅǈᾈᾼ", "Ll": "abcxyzéñßſωσяжǆǉ", "Lm": "ʰʲˆーᵃ々",
        "Lo": "中文あカאاกªº", "M": "\u0301\u0308\u0323\u0903\u20dd\u0e31",
        "N": "0123456789٣Ⅻ½", "P": "'.,-/\\!?\"()_@#+=:;", "WS": " \t\n\r\u00a0\u3000",
    }
    fixed = ["HELLOworld", "helloWORLD", "HelloWorld", "McDonald's", "DON'T", "don't", "Don'T",
             "I'M", "we'RE", "it'ſ", "IT'ſ", "they've'll", "'s", "'S'", "a'", "A'd", "ǅemal ǄEMAL ǆemal",
             "ʰello", "aʰB", "ABʰ", "ʰʰ", "A\u0301B", "A\u0301b", "\u0301abc", "\u0301ABC", " \u0301ABC",
             ".\u0301ABC", "x\u0301", "X\u0301\u0301Y", "ABC\u0301DEF", "AB\u0301CDe", "中文ABC", "ABC中文",
             "中文abc", "あいうAIU", "x/y\n/", "a.b//\n", "..//", "it's/they're", "path/to/File.TXT",
             "http://Example.COM/Path", "1/2/3", "12345678", "٣٣٣٣", "ⅫⅫⅫⅫ", "½½½½", "A1B2c3",
             "\r\n/", "?!/\r/\n", " /", "  //  ", "'\n'", "(ABC)def", "\"Quote\"", "x''s", "X'''S",
             "ABCDEFGHIJKLMNOPQRSTUVWXYZ" * 3, "ǅǅǅǅ", "ᾈᾈa", "aᾈ", "Lo中Lu", "naïve CAFÉ Ñandú",
             "Straße STRASSE", "ΣΊΣΥΦΟΣ σίσυφος", "ЖЖжж", "ªº", "e\u0301e\u0301E\u0301", "A\u20ddB",
             "\u00a0ABC\u00a0", "\u3000中文\u3000", "\u0301", "\u0301\u0301A", "'\u0301s", ".\u0301'S",
             "a.\n/b", ".\r\n//x", "!\n/\n/x", "x;\n\n/ y", "}\r/", "//\n//\n", "a /\n/ b", "é.\n/É"]
    out = [f.encode("utf-8") for f in fixed]
    names = list(pools)
    weights = [6, 2, 8, 2, 3, 3, 3, 5, 4]
    for k in range(1500):
        n = rng.randint(1, 24)
        chars = []
        for _ in range(n):
            cls = rng.choices(names, weights)[0]
            if cls == "P" and rng.random() < 0.3:   # an apostrophe and a contraction's letters
                chars.append("'" + rng.choice(["s", "t", "re", "ve", "m", "ll", "d", "S", "T", "RE", "Ve", "LL", "D", "ſ", "x"]))
            else:
                chars.append(rng.choice(pools[cls]))
        out.append("".join(chars).encode("utf-8"))
    return out


def byte_level_bpe(train, pattern, vocab_size, ignore_merges, n_extra):
    tok = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)])
    tok.decoder = decoders.ByteLevel(add_prefix_space=True, trim_offsets=True, use_regex=True)
    tr = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=2, show_progress=False,
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(train, tr)
    extra = extra_words(tok, train[-4000:], n_extra, None)

    def edit(j):
        v = j["model"]["vocab"]
        for w in extra:
            v[w] = len(v)
        j["model"]["ignore_merges"] = ignore_merges
    return with_json(tok, edit)


def o200k(train):
    """Phi-4-mini's layout: the o200k Split, no BOS, <|endoftext|> and the Phi chat tokens
    special, ignore_merges false with 20 vocab entries merges cannot reach"""
    tok = byte_level_bpe(train, O200K_PATTERN, 1500, False, 20)
    names = ["<|endoftext|>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>", "<|tool|>", "<|/tool|>"]
    tok.add_special_tokens([AddedToken(n, special=True, normalized=False) for n in names])
    eot, end = tok.token_to_id("<|endoftext|>"), tok.token_to_id("<|end|>")
    cfg = {"add_bos_token": False, "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>",
           "clean_up_tokenization_spaces": False, "model_max_length": 131072, "tokenizer_class": "GPT2Tokenizer"}
    gen = {"bos_token_id": eot, "eos_token_id": [eot, end]}
    return tok, cfg, gen, "pairs"


def tekken(train):
    """Mistral Nemo's layout: the Tekken Split, <unk> <s> </s> and [INST] tokens special,
    ignore_merges true with 40 whole-word entries, a <s> TemplateProcessing BOS"""
    tok = byte_level_bpe(train, TEKKEN_PATTERN, 1400, True, 40)
    names = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]"]
    tok.add_special_tokens([AddedToken(n, special=True, normalized=False) for n in names])
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B:1", special_tokens=[("<s>", bos)])
    cfg = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "clean_up_tokenization_spaces": False,
           "model_max_length": 1024000, "tokenizer_class": "PreTrainedTokenizerFast"}
    gen = {"bos_token_id": bos, "eos_token_id": eos}
    return tok, cfg, gen, "pairs"


def removed_inverted_agree(text, corpus):
    """how many cases the tokenizer whose Split is (Removed, invert true) encodes to the ids of the
    saved one (Isolated, invert false): the same for a pattern that matches every character
    (test_tokenizer.c loads the edited file and checks it against expected.txt)"""
    j = json.loads(text)
    sp = j["pre_tokenizer"]["pretokenizers"][0]
    assert sp["type"] == "Split" and sp["behavior"] == "Isolated" and sp["invert"] is False
    sp["behavior"], sp["invert"] = "Removed", True
    a, b = Tokenizer.from_str(text), Tokenizer.from_str(json.dumps(j, ensure_ascii=False))
    return sum(a.encode(raw.decode("utf-8", errors="replace"), add_special_tokens=False).ids ==
               b.encode(raw.decode("utf-8", errors="replace"), add_special_tokens=False).ids for raw in corpus)


def record_pieces(pattern, corpus, path):
    """pieces.txt: the Split regex alone, as tokenizers runs it on each case's text: "i" and the
    UTF-8 byte lengths of the pieces (a direct check of the pattern; BPE ids can hide a wrong
    boundary where no merge crosses it)"""
    sp = pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False)
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write("# the Split pattern's pieces of each case (UTF-8 byte lengths), tokenizers %s\n" % tokenizers.__version__)
        for i, raw in enumerate(corpus):
            pieces = [p for p, _ in sp.pre_tokenize_str(raw.decode("utf-8", errors="replace"))]
            assert "".join(pieces) == raw.decode("utf-8", errors="replace")
            f.write(("%d %s" % (i, " ".join(str(len(p.encode("utf-8"))) for p in pieces))).rstrip() + "\n")


FAMILIES = (("llama3", llama3), ("sp", sp), ("gpt2", gpt2), ("ms", ms), ("ms2", ms2), ("qwen2", qwen2), ("gemma", gemma),
            ("o200k", o200k), ("tekken", tekken))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "tokenizers"))
    ap.add_argument("--only", default=",".join(n for n, _ in FAMILIES), help="families to write, comma-separated")
    args = ap.parse_args()
    if tokenizers.__version__ != PINNED:
        msg = "tokenizers %s is installed, the fixtures pin %s" % (tokenizers.__version__, PINNED)
        if os.environ.get("XLARUN_FIXTURES_ANY_VERSION") != "1":
            raise SystemExit(msg + " (XLARUN_FIXTURES_ANY_VERSION=1 to go on)")
        print("warning: " + msg)
    only = args.only.split(",")
    for name in only:
        if name not in dict(FAMILIES):
            raise SystemExit("--only: no family %r (%s)" % (name, ", ".join(n for n, _ in FAMILIES)))
    corpus, nfc_corpus, gemma_corpus, cases_case = make_corpus(), make_nfc_corpus(), make_gemma_corpus(), case_corpus()
    os.makedirs(args.out, exist_ok=True)
    write_corpus(os.path.join(args.out, "corpus.txt"), corpus, "")
    write_corpus(os.path.join(args.out, "corpus_nfc.txt"), nfc_corpus, " of NFC cases (the qwen2 family, after corpus.txt's)")
    write_corpus(os.path.join(args.out, "corpus_gemma.txt"), gemma_corpus, " of Gemma cases (the gemma family, after corpus.txt's)")
    write_corpus(os.path.join(args.out, "corpus_case.txt"), cases_case,
                 " of letter-case cases (the o200k and tekken families, after corpus.txt's)")
    n, newer = write_nfc_table(os.path.join(args.out, "nfc.txt"))
    print("nfc.txt  %d strings, tokenizers' NFC = Unicode 9.0.0's on all; Unicode %s differs on %d"
          % (n, unicodedata.unidata_version, newer))
    train = training_text(corpus)
    for name, fn in FAMILIES:
        if name not in only:
            continue
        cases = corpus + {"qwen2": nfc_corpus, "gemma": gemma_corpus, "o200k": cases_case, "tekken": cases_case}.get(name, [])
        tok, cfg, gen, merges = fn(training_text(cases) if name in ("qwen2", "o200k", "tekken") else train)
        d = os.path.join(args.out, name)
        os.makedirs(d, exist_ok=True)
        j = json.loads(tok.to_str())
        if merges == "legacy-file":   # keep the older Metaspace keys in the file, as old exports have them
            merges = "legacy"
            j["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
            j["decoder"] = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
        mm = j["model"]["merges"]
        if merges == "legacy" and mm and not isinstance(mm[0], str):
            j["model"]["merges"] = ["%s %s" % tuple(x) for x in mm]
        if merges == "pairs" and mm and isinstance(mm[0], str):
            j["model"]["merges"] = [x.split(" ") for x in mm]
        text = json.dumps(j, ensure_ascii=False, indent=1)
        tok = Tokenizer.from_str(text)   # record what the saved file gives
        with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8", newline="\n") as f:
            f.write(text + "\n")
        with open(os.path.join(d, "tokenizer_config.json"), "w", encoding="utf-8", newline="\n") as f:
            json.dump(cfg, f, indent=2, ensure_ascii=False)
            f.write("\n")
        if gen:
            with open(os.path.join(d, "generation_config.json"), "w", encoding="utf-8", newline="\n") as f:
                json.dump(gen, f, indent=2)
                f.write("\n")
        st = record(name, tok, cases, d)
        if name in ("llama3", "o200k", "tekken"):   # Split(Removed, invert true) gives the same ids
            k = removed_inverted_agree(text, cases)
            print("%-7s Split(Removed, invert true): the same ids as Isolated on %d of %d cases" % (name, k, len(cases)))
            assert k == len(cases)
        if name in ("o200k", "tekken"):
            record_pieces(O200K_PATTERN if name == "o200k" else TEKKEN_PATTERN, cases, os.path.join(d, "pieces.txt"))
        print("%-7s vocab %5d  merges %5d  cases %d (valid %d, invalid %d), decode(encode(x)) == x on %d valid, "
              "special-as-text differs on %d" % (name, tok.get_vocab_size(), len(j["model"]["merges"]), st["cases"],
                                                st["valid"], st["invalid"], st["roundtrip"], st["special_diff"]))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--gemma-convert":
        gemma_convert(sys.argv[2])
    else:
        main()
