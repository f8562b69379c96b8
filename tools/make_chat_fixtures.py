#!/usr/bin/env python3
"""Chat-template fixtures for tests/test_generate.c: what transformers' apply_chat_template renders
(and, where a tokenizer fixture has the template's special tokens, the ids it gives) for several
multi-turn conversations, with and without a system message, for each template xlarun knows.

Pinned: transformers 4.46.3, tokenizers 0.20.3, jinja2 3.1.6, torch 2.5.1, numpy (python 3.11).
It also writes tests/fixtures/chat/sampling.txt and sampling_large.txt: which ids survive transformers' logits
processors, on 64 logits and on whole vocabularies. Developer-time only;
`make test` reads the committed output, tests/fixtures/chat/cases.txt.

    python3 tools/make_chat_fixtures.py           # chat and sampling fixtures
    python3 tools/make_chat_fixtures.py --demo    # the demo model, tests/fixtures/demo
    python3 tools/make_chat_fixtures.py --sampling  # the sampling fixtures only

The templates in tests/fixtures/chat/templates/ are the chat_template strings of the models'
tokenizer_config.json files, taken verbatim from the "gguf" field (the chat_template that
llama.cpp's converter copies from tokenizer_config.json) of
huggingface/huggingface.js packages/ollama-utils/src/chat-template-automap.ts
at commit 007948d5aac310316dd57b5d8e5c091e864418dc:

    llama3-instruct.jinja    library/llama3:8b      meta-llama/Meta-Llama-3-8B-Instruct
    llama3.1-instruct.jinja  library/llama3.1:8b    meta-llama/Llama-3.1-8B-Instruct
    llama3.2-instruct.jinja  library/llama3.2:3b    meta-llama/Llama-3.2-3B-Instruct
    llama2-chat.jinja        library/llama2:7b      meta-llama/Llama-2-7b-chat-hf
    tinyllama-chat.jinja     library/tinyllama:1.1b TinyLlama/TinyLlama-1.1B-Chat-v1.0
    smollm2-instruct.jinja   library/smollm2:135m   HuggingFaceTB/SmolLM2-135M-Instruct
    qwen2.5-instruct.jinja   library/qwen2.5:0.5b   Qwen/Qwen2.5-0.5B-Instruct
    qwen2-instruct.jinja     library/qwen2:0.5b     (Qwen2 Instruct: ChatML, default system "You are a
                                                     helpful assistant.")
    qwen1.5-chat.jinja       library/qwen:0.5b      (Qwen1.5 Chat, whose MoE-A2.7B-Chat Qwen2-MoE runs:
                                                     ChatML, no <|im_end|> after a last reply, no
                                                     assistant header after one)
    mistral-instruct.jinja   library/mistral:7b-instruct-fp16
    llava.jinja              library/llava:7b       (a Mistral 7B template without the space after </s>)
    mixtral-8x22b.jinja      library/mixtral:8x22b
    mixtral-8x7b.jinja       library/mixtral:8x7b
    mistral-small.jinja      library/mistral-small:24b
    mistral-large.jinja      library/mistral-large:123b
    qwen3.jinja              library/qwen3:0.6b     (the Qwen3 family's, with <think> handling)
    gemma2.jinja             library/gemma2:2b      (Gemma 2: a system message raises)
    gemma3-1b.jinja          library/gemma3:1b      (Gemma 3 1B: messages[0]['content'][0]['text'] for
                                                     the system message, so a text one raises)
    gemma3-270m.jinja        library/gemma3:270m    (Gemma 3: a text or parts system message opens the
                                                     first user turn)
    phi3-mini.jinja          library/phi3:3.8b      microsoft/Phi-3-mini-4k-instruct
    phi3.5-mini.jinja        library/phi3.5:3.8b    microsoft/Phi-3.5-mini-instruct (an empty system
                                                     message dropped)
    phi3-medium.jinja        library/phi3:14b       (Phi-3-medium: no system message, the assistant's
                                                     header after every user turn)
    phi4-mini.jinja          library/phi4-mini:3.8b microsoft/Phi-4-mini-instruct (no newlines; any role)
    olmo2.jinja              library/olmo2:7b       (OLMo 2 Instruct, Tulu's format: <|user|> turns end
                                                     with a newline, replies with eos)

(the Phi and OLMo 2 templates read from that file's JS string literals with json.loads)

Output format (one case per block; strings are hex-encoded UTF-8 so the C reader stays trivial):
    case TEMPLATE CONVERSATION
    date HEX | date -            (date_string passed to the template, or none: its default)
    bos HEX / eos HEX            (the bos_token / eos_token strings the template sees)
    msg ROLE HEX                 (one per message)
    text HEX                     (apply_chat_template(..., add_generation_prompt=True, tokenize=False))
    error HEX                    (instead of text: the template raised this; xlarun must refuse too)
    nothink                      (before text: rendered with enable_thinking=False)
    nogen                        (before text: rendered with add_generation_prompt=False)
    tokenizer NAME / ids N ID... (optional: the ids with tokenize=True, i.e. add_special_tokens=False)
    end
"""
import os
import sys

import jinja2
import tokenizers
import transformers
from transformers import PreTrainedTokenizerFast

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FIX = os.path.join(ROOT, "tests", "fixtures")
TEMPLATES = os.path.join(FIX, "chat", "templates")

PINNED = {"transformers": "4.46.3", "tokenizers": "0.20.3", "jinja2": "3.1.6"}

# template file -> (bos_token, eos_token) as the model's tokenizer_config.json has them
SPECIALS = {
    "llama3-instruct": ("<|begin_of_text|>", "<|eot_id|>"),
    "llama3.1-instruct": ("<|begin_of_text|>", "<|eot_id|>"),
    "llama3.2-instruct": ("<|begin_of_text|>", "<|eot_id|>"),
    "llama2-chat": ("<s>", "</s>"),
    "tinyllama-chat": ("<s>", "</s>"),
    "smollm2-instruct": ("<|im_start|>", "<|im_end|>"),
    "qwen2.5-instruct": (None, "<|im_end|>"),
    "mistral-instruct": ("<s>", "</s>"),
    "llava": ("<s>", "</s>"),
    "mixtral-8x22b": ("<s>", "</s>"),
    "mixtral-8x7b": ("<s>", "</s>"),
    "mistral-small": ("<s>", "</s>"),
    "mistral-large": ("<s>", "</s>"),
    "qwen3": (None, "<|im_end|>"),
    "gemma2": ("<bos>", "<eos>"),
    "gemma3-1b": ("<bos>", "<eos>"),
    "gemma3-270m": ("<bos>", "<eos>"),
    # the Phi templates print eos only without a generation prompt, which these cases never ask
    "phi3-mini": ("<s>", "<|endoftext|>"),
    "phi3.5-mini": ("<s>", "<|endoftext|>"),
    "phi3-medium": ("<s>", "<|endoftext|>"),
    "phi4-mini": ("<|endoftext|>", "<|endoftext|>"),
    "olmo2": ("<|endoftext|>", "<|endoftext|>"),
    "qwen2-instruct": (None, "<|im_end|>"),
    "qwen1.5-chat": (None, "<|im_end|>"),
}
PHI = {"phi3-mini", "phi3.5-mini", "phi3-medium", "phi4-mini"}
GEMMA = {"gemma2", "gemma3-1b", "gemma3-270m"}
MISTRAL = {"mistral-instruct", "llava", "mixtral-8x22b", "mixtral-8x7b", "mistral-small", "mistral-large"}

CONVERSATIONS = {
    "single": [("user", "Hello!")],
    "system": [
        ("system", "You are a terse assistant."),
        ("user", "Hi"),
        ("assistant", "Hello."),
        ("user", "What is 2+2?"),
    ],
    "multi": [
        ("user", "First question?"),
        ("assistant", " An answer with spaces.  "),
        ("user", "Second\nline\n"),
        ("assistant", "ok"),
        ("user", "Thanks"),
    ],
    "whitespace": [
        ("system", "  padded system \n"),
        ("user", "\u00a0 nbsp and ideographic space\u3000"),
        ("assistant", "\treply\n"),
        ("user", " last "),
    ],
    "unicode": [
        ("system", "Réponds en français."),
        ("user", "Héllo wörld — 你好 🙂"),
    ],
}

# more conversations for the Mistral templates: where the system message goes when the
# conversation ends with a reply, roles that do not alternate, a role none of them takes
MISTRAL_CONVERSATIONS = {
    "ends_reply": [("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello.")],
    "two_users": [("user", "a"), ("user", "b")],
    "tool_role": [("user", "a"), ("tool", "b")],
    "tool_first": [("tool", "x"), ("user", "a")],
    "reply_first": [("assistant", "x"), ("user", "a")],
}

# more conversations for Qwen3: replies with <think> blocks before and after the last user query,
# tool results (one, several in a row, and a user turn that is a tool response)
QWEN3_CONVERSATIONS = {
    "think_earlier": [("user", "Hi"), ("assistant", "<think>\nplan it\n</think>\n\nHello."), ("user", "More")],
    "think_last": [("system", "Be brief."), ("user", "Hi"), ("assistant", "<think>\n\nr1\nr2\n\n</think>\n\n\nans")],
    "no_think_last": [("user", "Hi"), ("assistant", "\n\nplain")],
    "odd_think": [("user", "q"), ("assistant", "a<think>x</think>b</think>\nc"), ("user", "q2"), ("assistant", "</think>d"),
                  ("tool", "{\"t\": 1}")],
    "tools": [("user", "Weather?"), ("assistant", "<think>need tool</think>Let me check."), ("tool", "{\"t\": 20}"),
              ("tool", "{\"h\": 5}"), ("assistant", "It is 20."), ("user", "<tool_response>x</tool_response>"),
              ("assistant", "<think>\nhm\n</think>ok")],
    "system_late": [("user", "a"), ("system", "late system"), ("user", "b")],
    "tool_first": [("tool", "r0"), ("tool", "r1"), ("user", "q"), ("assistant", "<think>open only"), ("other", "x"),
                   ("user", " <tool_response>y</tool_response>"), ("assistant", "</think>")],
    "near_tool_response": [("user", "q"), ("assistant", "<think>\nr\n</think>\n\na"), ("user", "<tool_response>y</tool_response>\n"),
                           ("assistant", "\n</think>\n\n")],
}
# more conversations for the Gemma templates: a system message alone, empty, or with no user turn
# after it, a later one (a turn of its own), roles at even and odd places, special-token text and
# white space in contents (trimmed)
GEMMA_CONVERSATIONS = {
    "ends_reply": [("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello.")],
    "system_only": [("system", "S")],
    "system_empty": [("system", ""), ("user", "  \n "), ("assistant", "\u3000")],
    "system_newlines": [("system", "line 1\n\nline 2\n"), ("user", "\n\nq\n\n"), ("assistant", "a\n"), ("user", "b")],
    "system_late": [("user", "a"), ("system", "late system"), ("user", "b")],
    "two_systems": [("system", "a"), ("system", "b"), ("user", "c")],
    "system_reply": [("system", "s"), ("assistant", "x")],
    "tool_odd": [("user", "Weather?"), ("tool", "{\"t\": 20}"), ("user", "Thanks")],
    "two_users": [("user", "a"), ("user", "b")],
    "reply_first": [("assistant", "x"), ("user", "a")],
    "other_first": [("other", "x")],
    "specials": [("user", "a <end_of_turn> b<start_of_turn>"), ("assistant", "<unused5>\n\n\n  x <table>"), ("user", "\t\tz")],
}
# more conversations for the Phi templates: an empty system message (Phi-3.5 drops it), roles they
# drop or print as they are, a conversation that ends with a reply, user turns in a row
PHI_CONVERSATIONS = {
    "system_empty": [("system", ""), ("user", "q")],
    "tool_role": [("user", "Weather?"), ("tool", "{\"t\": 20}"), ("other", "x"), ("user", "Thanks")],
    "ends_reply": [("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello.")],
    "two_users": [("user", "a"), ("user", "b"), ("system", "late")],
}
OPTIONS = {"qwen3": [{}, {"enable_thinking": False}],   # and without the generation prompt, for the
           "qwen1.5-chat": [{}, {"add_generation_prompt": False}],   # ChatML forms that differ there
           "qwen2-instruct": [{}, {"add_generation_prompt": False}]}

# (template, conversation, date_string or None); Llama 3.2's own default is today's date, so it
# only gets fixed dates
DATES = {"llama3.1-instruct": [None, "05 Mar 2025"], "llama3.2-instruct": ["05 Mar 2025", "31 Dec 1999"]}

# tokenizer fixtures (tests/fixtures/tokenizers/NAME) whose vocabularies hold the special tokens
# of a template: their ids for the rendered text are recorded too
TOKENIZERS = {
    "llama3-instruct": ["llama3"],
    "llama3.1-instruct": ["llama3"],
    "llama3.2-instruct": ["llama3"],
    "llama2-chat": ["sp"],
    "tinyllama-chat": ["sp"],
    "smollm2-instruct": ["gpt2"],
    "qwen2.5-instruct": ["gpt2"],
    **{name: ["sp"] for name in ("mistral-instruct", "llava", "mixtral-8x22b", "mixtral-8x7b", "mistral-small", "mistral-large")},
    "qwen3": ["qwen2"],
    "qwen2-instruct": ["qwen2"],
    "qwen1.5-chat": ["qwen2"],
    "phi4-mini": ["o200k"],   # Phi-4-mini's o200k split and its chat tokens
    **{name: ["gemma"] for name in GEMMA},
}


def hx(s):
    return s.encode("utf-8").hex()


def dummy_tokenizer(template, bos, eos):
    t = tokenizers.Tokenizer(tokenizers.models.BPE())
    kw = {"tokenizer_object": t, "chat_template": template}
    if bos is not None:
        kw["bos_token"] = bos
    if eos is not None:
        kw["eos_token"] = eos
    return PreTrainedTokenizerFast(**kw)


def fixture_tokenizer(name, template):
    d = os.path.join(FIX, "tokenizers", name)
    if not os.path.exists(os.path.join(d, "tokenizer.json")):
        return None
    tok = PreTrainedTokenizerFast.from_pretrained(d)
    tok.chat_template = template
    return tok


# Sampling: the ids that survive transformers' logits processors, built in the order and under the
# conditions of GenerationMixin._get_logits_processor (transformers 4.46.3 generation/utils.py):
# repetition penalty (when != 1, also for greedy), then with do_sample: temperature (!= 1),
# top-k (!= 0), top-p (< 1), min-p (not None). Written to tests/fixtures/chat/sampling.txt as
#   sample TEMPERATURE TOP_K TOP_P MIN_P PENALTY
#   context N ID...
#   logits V X... (float32, printed with 9 significant digits)
#   kept N ID...  (ascending)
SAMPLING = [  # temperature, top_k, top_p, min_p, repetition_penalty
    (1.0, 0, 1.0, None, 1.0), (0.7, 0, 1.0, None, 1.0), (1.0, 5, 1.0, None, 1.0), (1.0, 1, 1.0, None, 1.0),
    (1.0, 0, 0.9, None, 1.0), (1.0, 0, 0.5, None, 1.0), (0.6, 0, 0.9, None, 1.0), (1.0, 50, 0.95, None, 1.0),
    (1.0, 0, 1.0, 0.05, 1.0), (1.0, 0, 1.0, 0.3, 1.0), (0.8, 10, 0.9, 0.1, 1.0), (1.0, 0, 1.0, None, 1.3),
    (0.7, 20, 0.8, 0.05, 1.2), (1.5, 0, 0.99, None, 0.8), (1.0, 3, 0.2, None, 1.0),
]


def processors(t, top_k, top_p, min_p, pen):
    """transformers' logits processors for these settings, in generate()'s order"""
    from transformers.generation import logits_process as lp
    procs = []
    if pen != 1.0:
        procs.append(lp.RepetitionPenaltyLogitsProcessor(penalty=pen))
    if t != 1.0:
        procs.append(lp.TemperatureLogitsWarper(t))
    if top_k != 0:
        procs.append(lp.TopKLogitsWarper(top_k=top_k, min_tokens_to_keep=1))
    if top_p < 1.0:
        procs.append(lp.TopPLogitsWarper(top_p=top_p, min_tokens_to_keep=1))
    if min_p is not None:
        procs.append(lp.MinPLogitsWarper(min_p=min_p, min_tokens_to_keep=1))
    return procs


def sampling_fixture():
    import numpy as np
    import torch
    rng = np.random.default_rng(1234)
    out = []
    for k, (t, top_k, top_p, min_p, pen) in enumerate(SAMPLING):
        for trial in range(4):
            V = 64
            x = rng.normal(0, 2.0, V).astype(np.float32)
            if trial % 2:  # ties, as bf16 logits have
                x = (np.round(x * 2) / 2).astype(np.float32)
            ctx = rng.integers(0, V, 12)
            procs = processors(t, top_k, top_p, min_p, pen)
            ids = torch.tensor(ctx[None, :], dtype=torch.long)
            scores = torch.tensor(x[None, :])
            for pr in procs:
                scores = pr(ids, scores)
            kept = [i for i in range(V) if scores[0, i].item() != float("-inf")]
            out.append("sample %r %d %r %r %r" % (t, top_k, top_p, min_p if min_p is not None else 0.0, pen))
            out.append("context %d %s" % (len(ctx), " ".join(map(str, ctx))))
            out.append("logits %d %s" % (V, " ".join("%.9g" % v for v in x)))
            out.append("kept %d %s" % (len(kept), " ".join(map(str, kept))))
    with open(os.path.join(FIX, "chat", "sampling.txt"), "w") as f:
        f.write("# made by tools/make_chat_fixtures.py (transformers %s, torch %s)\n" % (transformers.__version__, torch.__version__))
        f.write("\n".join(out) + "\n")
    print("sampling cases:", len(out) // 4)


# Whole-vocabulary sampling: the same processors over V = 8,192 and 50,000 logits, where xlarun's
# sampler selects without sorting (top-p by mass-guided quickselect, top-k by a heap up to k =
# 1,024). The logits are made from integers by splitmix64, so tests/test_generate.c makes the same
# float32 values without reading them; written to tests/fixtures/chat/sampling_large.txt as
#   large SHAPE SEED V TEMPERATURE TOP_K TOP_P MIN_P
#   kept N HEX    (the kept ids as a bitmap, bit i of the hex digit i / 4, low bit first)
# SHAPE: flat (uniform [-8, 8)), normal (a sum of four uniforms, std about 2.3), peaked (normal plus
# 16 on every id whose hash is a multiple of 401), ties (the eight multiples of 0.25 in [-1, 1)),
# narrow (the normal sum at a quarter of the scale: many ids a little below and above the mean
# probability).
SAMPLING_LARGE = [  # shape, V, temperature, top_k, top_p, min_p
    ("flat", 8192, 1.0, 0, 0.9, None), ("normal", 8192, 1.0, 0, 0.9, None),
    ("peaked", 8192, 1.0, 0, 0.9, None), ("ties", 8192, 1.0, 0, 0.9, None),
    ("flat", 8192, 1.0, 0, 0.5, None), ("normal", 8192, 1.0, 0, 0.5, None),
    ("peaked", 8192, 1.0, 0, 0.5, None), ("ties", 8192, 0.7, 0, 0.95, None),
    ("normal", 8192, 0.7, 0, 0.95, None), ("flat", 8192, 1.0, 0, 0.99, None),
    ("ties", 8192, 1.0, 0, 0.99, None), ("normal", 8192, 1.0, 2000, 0.9, None),
    ("ties", 8192, 1.0, 2000, 0.9, None), ("peaked", 8192, 1.0, 100, 0.95, 0.05),
    ("normal", 8192, 1.0, 100, 0.95, 0.05), ("flat", 8192, 1.0, 0, 1.0, 0.02),
    ("ties", 8192, 1.0, 40, 1.0, None), ("normal", 8192, 1.0, 1000, 1.0, None),
    ("peaked", 8192, 1.0, 0, 0.999, None), ("normal", 8192, 1.5, 0, 0.8, 0.1),
    ("normal", 50000, 1.0, 0, 0.9, None), ("peaked", 50000, 0.8, 50, 0.9, 0.05),
    ("flat", 50000, 1.0, 0, 0.95, None), ("ties", 50000, 1.0, 0, 0.7, None),
    ("narrow", 8192, 1.0, 0, 0.5, None), ("narrow", 8192, 1.0, 0, 0.9, None),
    ("narrow", 50000, 1.0, 0, 0.3, None), ("narrow", 8192, 1.0, 3000, 0.6, 0.5),
]


def synth_logits(shape, seed, V):
    """float32 logits from integers only (tests/test_generate.c's synth_logits makes the same)"""
    import numpy as np
    M = (1 << 64) - 1

    def h(k):  # splitmix64 of seed * 2^32 + k
        z = ((seed << 32) + k + 0x9E3779B97F4A7C15) & M
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        return z ^ (z >> 31)

    def u(k):  # an integer in [-2^23, 2^23)
        return (h(k) >> 40) - (1 << 23)

    x = np.zeros(V, dtype=np.float32)
    for i in range(V):
        if shape == "flat":
            x[i] = np.float32(u(i)) * np.float32(2.0 ** -20)
        elif shape == "ties":
            x[i] = np.float32(u(i) >> 21) * np.float32(0.25)
        else:
            scale = 2.0 ** -24 if shape == "narrow" else 2.0 ** -22
            v = np.float32(u(4 * i) + u(4 * i + 1) + u(4 * i + 2) + u(4 * i + 3)) * np.float32(scale)
            if shape == "peaked" and h(4 * V + i) % 401 == 0:
                v = np.float32(v + np.float32(16.0))
            x[i] = v
    return x


def sampling_large_fixture():
    import torch
    out = []
    for seed, (shape, V, t, top_k, top_p, min_p) in enumerate(SAMPLING_LARGE, 1):
        x = synth_logits(shape, seed, V)
        procs = processors(t, top_k, top_p, min_p, 1.0)
        ids = torch.zeros((1, 1), dtype=torch.long)
        scores = torch.tensor(x[None, :])
        for pr in procs:
            scores = pr(ids, scores)
        kept = (scores[0] != float("-inf")).numpy()
        digits = []
        for d in range(0, V, 4):
            digits.append("%x" % sum(1 << b for b in range(4) if d + b < V and kept[d + b]))
        out.append("large %s %d %d %r %d %r %r" % (shape, seed, V, t, top_k, top_p, min_p if min_p is not None else 0.0))
        out.append("kept %d %s" % (int(kept.sum()), "".join(digits)))
    with open(os.path.join(FIX, "chat", "sampling_large.txt"), "w") as f:
        f.write("# made by tools/make_chat_fixtures.py (transformers %s, torch %s)\n" % (transformers.__version__, torch.__version__))
        f.write("\n".join(out) + "\n")
    print("large sampling cases:", len(out) // 2)


# The demo model (tests/fixtures/demo): a byte-level BPE tokenizer trained on a small ChatML corpus
# (SmolLM2's special tokens and chat template), and a 2-layer Llama trained on the same corpus for
# a few hundred steps, so that `make demo` and `gen -i` print words rather than noise. Saved in
# f32; well under 1 MB. Deterministic for a given torch build (torch.manual_seed, one thread).
DEMO_PAIRS = [
    ("Hello!", "Hello! How can I help you today?"),
    ("Hi", "Hi there! What would you like to talk about?"),
    ("What is your name?", "I am a tiny demo model for xlarun."),
    ("Who are you?", "I am a tiny demo model. I run on the CPU with xlarun."),
    ("What can you do?", "I can repeat a few simple sentences. I am very small."),
    ("What is xlarun?", "xlarun is a single-header C library that runs Llama models on the CPU."),
    ("Tell me a story.", "Once upon a time, a small model learned to say hello."),
    ("Thanks", "You are welcome!"),
    ("Thank you!", "You are welcome! Have a nice day."),
    ("How are you?", "I am fine, thank you. How are you?"),
    ("Goodbye", "Goodbye! See you soon."),
    ("What is the capital of France?", "The capital of France is Paris."),
    ("What is two plus two?", "Two plus two is four."),
    ("Say something.", "The quick brown fox jumps over the lazy dog."),
]
DEMO_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"


def demo_model():
    import random
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers
    from transformers import LlamaConfig, LlamaForCausalLM
    import json
    out = os.path.join(FIX, "demo")
    os.makedirs(out, exist_ok=True)
    template = open(os.path.join(TEMPLATES, "smollm2-instruct.jinja"), encoding="utf-8").read()
    convs = []
    rnd = random.Random(5)
    for _ in range(300):
        k = rnd.randint(1, 3)
        msgs = []
        for q, a in rnd.sample(DEMO_PAIRS, k):
            msgs += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
        convs.append(msgs)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    texts = [q for q, _ in DEMO_PAIRS] + [a for _, a in DEMO_PAIRS] + [DEMO_SYSTEM, "system", "user", "assistant"]
    tok.train_from_iterator(texts * 20, trainer)
    tok.save(os.path.join(out, "tokenizer.json"))
    cfg_tok = {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "unk_token": "<|endoftext|>",
               "pad_token": "<|im_end|>", "chat_template": template, "model_max_length": 512,
               "clean_up_tokenization_spaces": False, "tokenizer_class": "GPT2Tokenizer", "add_prefix_space": False}
    json.dump(cfg_tok, open(os.path.join(out, "tokenizer_config.json"), "w"), indent=2)
    hf = PreTrainedTokenizerFast.from_pretrained(out)
    V = len(hf)
    config = LlamaConfig(vocab_size=V, hidden_size=64, intermediate_size=192, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=True,
                         bos_token_id=1, eos_token_id=2)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = LlamaForCausalLM(config)
    seqs = [hf.apply_chat_template(c, tokenize=True) for c in convs]
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for step in range(400):
        batch = [seqs[(step * 8 + i) % len(seqs)] for i in range(8)]
        n = max(len(b) for b in batch)
        ids = torch.tensor([b + [2] * (n - len(b)) for b in batch])
        labels = torch.tensor([b + [-100] * (n - len(b)) for b in batch])
        loss = model(input_ids=ids, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("demo model: vocab %d, final loss %.3f" % (V, loss.item()))
    model.eval()
    model.generation_config.do_sample = False
    model.generation_config.eos_token_id = 2
    model.generation_config.bos_token_id = 1
    model.save_pretrained(out, safe_serialization=True)
    for f in os.listdir(out):
        print("  %s %d bytes" % (f, os.path.getsize(os.path.join(out, f))))


def main():
    for mod, want in ((transformers, PINNED["transformers"]), (tokenizers, PINNED["tokenizers"]),
                      (jinja2, PINNED["jinja2"])):
        if mod.__version__ != want:
            print(f"warning: {mod.__name__} {mod.__version__}, fixtures were made with {want}", file=sys.stderr)
    out = []
    n_ids = 0
    for name in sorted(SPECIALS):
        template = open(os.path.join(TEMPLATES, name + ".jinja"), encoding="utf-8").read()
        bos, eos = SPECIALS[name]
        dummy = dummy_tokenizer(template, bos, eos)
        tok = None
        for cand in TOKENIZERS.get(name, []):
            t = fixture_tokenizer(cand, template)
            if t is None:
                continue
            vocab = t.get_vocab()
            if all(s is None or s in vocab for s in (bos, eos)):
                if bos is not None:
                    t.bos_token = bos
                if eos is not None:
                    t.eos_token = eos
                tok = (cand, t)
                break
        convs = dict(CONVERSATIONS, **(MISTRAL_CONVERSATIONS if name in MISTRAL else {}),
                     **(QWEN3_CONVERSATIONS if name == "qwen3" else {}), **(GEMMA_CONVERSATIONS if name in GEMMA else {}),
                     **(PHI_CONVERSATIONS if name in PHI or name in ("olmo2", "qwen2-instruct", "qwen1.5-chat") else {}))
        for conv_name, conv in convs.items():
            msgs = [{"role": r, "content": c} for r, c in conv]
            for date, extra in [(d, e) for d in DATES.get(name, [None]) for e in OPTIONS.get(name, [{}])]:
                kw = dict({"date_string": date} if date is not None else {}, **extra)
                gen = kw.pop("add_generation_prompt", True)
                try:
                    text, error = dummy.apply_chat_template(msgs, tokenize=False, add_generation_prompt=gen, **kw), None
                except jinja2.exceptions.TemplateError as e:
                    text, error = None, str(e)
                out.append(f"case {name} {conv_name}")
                out.append("date " + (hx(date) if date is not None else "-"))
                out.append("bos " + (hx(bos) if bos is not None else "-"))
                out.append("eos " + (hx(eos) if eos is not None else "-"))
                if extra.get("enable_thinking") is False:
                    out.append("nothink")
                if not gen:
                    out.append("nogen")
                for r, c in conv:
                    out.append(f"msg {r} {hx(c)}")
                if error is not None:
                    out.append("error " + hx(error))
                    out.append("end")
                    continue
                out.append("text " + hx(text))
                if tok is not None:
                    ids = tok[1].apply_chat_template(msgs, tokenize=True, add_generation_prompt=gen, **kw)
                    assert ids == tok[1](text, add_special_tokens=False)["input_ids"]
                    out.append("tokenizer " + tok[0])
                    out.append("ids %d %s" % (len(ids), " ".join(map(str, ids))))
                    n_ids += 1
                out.append("end")
    os.makedirs(os.path.join(FIX, "chat"), exist_ok=True)
    with open(os.path.join(FIX, "chat", "cases.txt"), "w", encoding="utf-8") as f:
        f.write("# made by tools/make_chat_fixtures.py (transformers %s, tokenizers %s, jinja2 %s)\n"
                % (transformers.__version__, tokenizers.__version__, jinja2.__version__))
        f.write("\n".join(out) + "\n")
    print("cases:", sum(1 for l in out if l.startswith("case ")), "with ids:", n_ids)
    sampling_fixture()
    sampling_large_fixture()


if __name__ == "__main__":
    if "--demo" in sys.argv:
        demo_model()
    elif "--sampling" in sys.argv:
        sampling_fixture()
        sampling_large_fixture()
    else:
        main()
