#!/usr/bin/env python3
"""Round-trip fixtures for xlarun's tool-call parser (xlarun_reply_parse): each model family's
real chat template renders a conversation whose last message is an assistant turn with tool calls;
what the template writes for that turn is the text the model was trained to generate, and parsing
it must give back the calls (and the content) that went in.

Developer-time only; the C test reads the committed tests/fixtures/toolcalls/cases.txt.

    /work/venv-jinja/bin/python tools/make_toolcall_fixtures.py     # transformers 5.24.0, jinja2 3.1.6

For each template of FAMILIES (read from tests/fixtures/jinja/templates/NAME.jinja, with the
special tokens of its tokenizer) and each conversation of CONVERSATIONS,
transformers.utils.chat_template_utils.render_jinja_template (the function apply_chat_template
renders with) renders

    full   = the whole conversation, add_generation_prompt=False
    prompt = the conversation less its last message, add_generation_prompt=True

and the script asserts that full starts with prompt. The model output is full[len(prompt):] less
what the template appends after the turn: its end-of-turn marker (eos_token, <|eot_id|>,
<|eom_id|>, <|im_end|>, </s>, <|end_of_text|>, <|end|>, <｜end▁of▁sentence｜>) and the white space
around it. What was stripped is printed per case and written as a comment line.

Where the generation prompt ends with white space or a reasoning opener ("<think>\\n") that the
rendered reply does not have (QwQ's "<think>\\n"; the R1-Distill-Qwen template's "\\n" after
<｜Assistant｜>), the output is taken from the common prefix on, and the case's comment says
"prompt-suffix ... not in the rendered reply". Any other mismatch stops the script.

Each assistant message is tried in these forms, the first that renders with the calls in it is
kept: arguments as an object (transformers' form), then as a JSON string (the OpenAI form, which
templates that concatenate the arguments need); content None, absent, then "". Content given with
the calls is expected back only where the template writes it (it is looked for in the output);
reasoning_content given ("reasoning") must be written by the template, else the case is left out;
an empty <think></think> the template writes is expected back as the reasoning "".

A template that raises for a conversation, or renders it without the calls, is left out for that
conversation; a family with no case left is reported. Output (hex is UTF-8):

    # comment lines
    tools HEX                  once, first: the tools every conversation offers (json.dumps), which
                               the parser takes (qwen3-coder types its values by their schemas)
    case TEMPLATE NAME
    format FORMATNAME          (none llama3 hermes mistral granite phi4 deepseek-r1 qwen3-coder
                               functionary-v3.1 functionary-v3.2)
    output HEX                 the model output
    call HEXNAME HEXARGS       per expected call; args as json.dumps(separators=(',', ':'),
                               ensure_ascii=False)
    content HEX                the expected content (after trimming white space)
    reasoning HEX | reasoning -   the expected reasoning text, or none (NULL)
    end

It also writes fuzz_reply's seed corpus, tests/fuzz/corpus/reply/fixture-TEMPLATE-NAME: one byte
for the format (its index in FORMATS), then the output (not seed-*: tests/fuzz/make_corpus.py
deletes the seed-* files it does not write itself).
"""
import datetime as _dt
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TEMPLATE_DIR = os.path.join(ROOT, "tests", "fixtures", "jinja", "templates")
OUT = os.path.join(ROOT, "tests", "fixtures", "toolcalls", "cases.txt")
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus", "reply")
FORMATS = ["none", "llama3", "hermes", "mistral", "granite", "phi4", "deepseek-r1", "qwen3-coder",
           "functionary-v3.1", "functionary-v3.2"]  # fuzz_reply's byte 0

PINNED = {"transformers": "5.24.0", "jinja2": "3.1.6"}
FIXED_NOW = _dt.datetime(2024, 9, 26, 13, 45, 7)

# special tokens passed to the template (apply_chat_template passes the tokenizer's
# special_tokens_map), as tools/make_jinja_fixtures.py passes them for the same templates
S_LLAMA3 = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
S_HERMES = {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>", "pad_token": "<|end_of_text|>"}
S_QWEN = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}
S_SMOLLM3 = {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>", "pad_token": "<|im_end|>"}
S_MISTRAL = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
S_GRANITE = {"bos_token": "<|end_of_text|>", "eos_token": "<|end_of_text|>", "unk_token": "<|end_of_text|>",
             "pad_token": "<|end_of_text|>"}
S_GRANITE4 = {"bos_token": "<|end_of_text|>", "eos_token": "<|end_of_text|>", "unk_token": "<|unk|>",
              "pad_token": "<|pad|>"}
S_PHI4MINI = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
              "pad_token": "<|endoftext|>"}
S_CHATML_S = {"bos_token": "<s>", "eos_token": "<|im_end|>", "unk_token": "<unk>"}
S_DEEPSEEK = {"bos_token": "<\uff5cbegin\u2581of\u2581sentence\uff5c>", "eos_token": "<\uff5cend\u2581of\u2581sentence\uff5c>",
              "pad_token": "<\uff5cend\u2581of\u2581sentence\uff5c>"}

# family template -> (tool format, special tokens, [other names its file may have])
FAMILIES = [
    ("llama3.1-instruct", "llama3", S_LLAMA3, []),
    ("llama3.2-instruct", "llama3", S_LLAMA3, []),
    ("llama3.3-instruct", "llama3", S_LLAMA3, []),
    ("hermes-2-pro", "hermes", S_HERMES, []),
    ("hermes-3", "hermes", S_HERMES, []),
    ("qwen2.5-instruct", "hermes", S_QWEN, []),
    ("qwen3", "hermes", S_QWEN, []),
    ("qwq-32b", "hermes", S_QWEN, ["qwq"]),
    ("smollm3", "hermes", S_SMOLLM3, []),
    ("mistral-7b-v0.3", "mistral", S_MISTRAL, []),
    ("mistral-nemo", "mistral", S_MISTRAL, []),
    ("mistral-small-3.2", "mistral", S_MISTRAL, []),
    ("devstral", "mistral", S_MISTRAL, []),
    ("granite-3.3", "granite", S_GRANITE, []),
    ("granite-4", "granite", S_GRANITE4, []),
    ("phi-4-mini", "phi4", S_PHI4MINI, ["phi4-mini"]),
    ("deepseek-r1-distill-llama", "deepseek-r1", S_DEEPSEEK, []),
    ("deepseek-r1-distill-qwen", "deepseek-r1", S_DEEPSEEK, []),
    ("qwen3-coder", "qwen3-coder", S_QWEN, []),
    ("qwen3.5", "qwen3-coder", S_QWEN, []),
    ("nemotron-3-nano", "qwen3-coder", S_CHATML_S, []),
    ("functionary-v3.1", "functionary-v3.1", S_LLAMA3, []),
    ("functionary-v3.2", "functionary-v3.2", S_LLAMA3, ["functionary"]),
]

END_MARKERS = ["<|eot_id|>", "<|eom_id|>", "<|im_end|>", "</s>", "<|end_of_text|>", "<|end|>",
               "<｜end▁of▁sentence｜>", "<|endoftext|>"]

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Get the current weather in a city",
        "parameters": {"type": "object", "properties": {
            "location": {"type": "string", "description": "City and country"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["location"]}}},
    {"type": "function", "function": {
        "name": "get_time", "description": "Get the current time in a time zone",
        "parameters": {"type": "object", "properties": {
            "timezone": {"type": "string", "description": "IANA time zone"}},
            "required": ["timezone"]}}},
    {"type": "function", "function": {
        "name": "search", "description": "Search a document store",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string"}, "limit": {"type": "integer"}, "ratio": {"type": "number"},
            "flags": {"type": "array"}, "opts": {"type": "object"}},
            "required": ["query"]}}},
]

USER = {"role": "user", "content": "What is the weather in Paris, and the time there?"}


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


W = ("get_weather", {"location": "Paris, France", "unit": "celsius"})
T = ("get_time", {"timezone": "Europe/Paris"})
S = ("search", {"query": "caf\u00e9 \"quoted\" \\path\nline 2\ttab \u2603 \U0001F600", "limit": 5,
                "ratio": 0.5, "flags": [True, False, None], "opts": {"deep": {"x": -1, "e": []}}})

# name -> (calls, content given with them, reasoning_content given, extra template kwargs)
CONVERSATIONS = {
    "one": ([("abcDEF123", *W)], None, None, {}),
    "two": ([("abcDEF123", *W), ("xyz789QRS", *T)], None, None, {}),
    "content": ([("abcDEF123", *W)], "Let me check the weather.", None, {}),
    "escapes": ([("q1w2e3r4t", *S)], None, None, {}),
    "reasoning": ([("abcDEF123", *W)], None, "The user wants the weather.\nI will call get_weather.", {}),
}
# Llama 3.1+'s built-in tools: <|python_tag|>NAME.call(key="value")
BUILTIN = {"builtin": ([("abcDEF123", "brave_search", {"query": "weather in Paris"})], None, None,
                       {"builtin_tools": ["brave_search", "wolfram_alpha"]})}
# Functionary's code interpreter: a call to "python" whose arguments are the code itself, read back
# as {"code": CODE}; then the same followed by a call (v3.1's code ends at the next <function=)
CODE = "import math\nprint(math.pi)  # \"pi\""
PYCODE = {"code": ([("abcDEF123", "python", {"code": CODE})], None, None, {}),
          "code-then-call": ([("abcDEF123", "python", {"code": CODE}), ("xyz789QRS", *W)], None, None, {})}


def check_versions():
    import jinja2
    import transformers
    have = {"transformers": transformers.__version__, "jinja2": jinja2.__version__}
    bad = [f"{k} {have[k]} (want {v})" for k, v in PINNED.items() if have[k] != v]
    if bad:
        msg = "version mismatch: " + ", ".join(bad)
        if os.environ.get("XLARUN_FIXTURES_ANY_VERSION") == "1":
            print("warning: " + msg, file=sys.stderr)
        else:
            sys.exit(msg + " (set XLARUN_FIXTURES_ANY_VERSION=1 to go on)")


def fix_clock():
    import transformers.utils.chat_template_utils as ctu

    class FixedDatetime(_dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return FIXED_NOW if tz is None else FIXED_NOW.replace(tzinfo=_dt.timezone.utc).astimezone(tz)

    ctu.datetime = FixedDatetime


def render(template, messages, gen, specials, kwargs):
    from transformers.utils.chat_template_utils import render_jinja_template
    rendered, _ = render_jinja_template([messages], tools=TOOLS, chat_template=template,
                                        add_generation_prompt=gen, **specials, **kwargs)
    return rendered[0]


def strip_end(text, specials):
    """the model output less the end-of-turn marker and white space after the turn"""
    markers = [specials["eos_token"]] if specials.get("eos_token") else []
    markers += [m for m in END_MARKERS if m not in markers]
    stripped = []
    while True:
        t = text.rstrip(" \n")
        if t != text:
            stripped.append(repr(text[len(t):])[1:-1])
            text = t
        for m in markers:
            if text.endswith(m):
                text = text[: -len(m)]
                stripped.append(m)
                break
        else:
            return text, stripped[::-1]


def hx(s):
    return s.encode("utf-8").hex()


def compact(args):
    return json.dumps(args, separators=(",", ":"), ensure_ascii=False)


def one_case(name_of_case, template, specials, calls, content, reasoning, kwargs):
    """(output, note, expected content, expected reasoning), or (None, why not)"""
    base = [USER]
    prompt = render(template, base, True, specials, kwargs)
    whys = []
    for as_string in (False, True):
        for content_form in ("none", "absent", "empty") if content is None else ("given",):
            msg = {"role": "assistant"}
            if content_form == "none":
                msg["content"] = None
            elif content_form == "empty":
                msg["content"] = ""
            elif content_form == "given":
                msg["content"] = content
            if reasoning is not None:
                msg["reasoning_content"] = reasoning
            msg["tool_calls"] = [call(cid, n, a["code"] if n == "python" and as_string
                                      else json.dumps(a, ensure_ascii=False) if as_string else a)
                                 for cid, n, a in calls]
            try:
                full = render(template, base + [msg], False, specials, kwargs)
            except Exception as e:  # noqa: BLE001 -- a template that raises leaves the case out
                whys.append(f"raises {type(e).__name__}: {str(e)[:100]}")
                continue
            start = prompt
            while not full.startswith(start):  # drop a trailing "<think>" or white space, if that is all
                shorter = start[:-7] if start.endswith("<think>") else start[:-1] if start[-1:] in " \n" else None
                if shorter is None:
                    break
                start = shorter
            if any(n not in full[len(start):] for _, n, _ in calls):
                whys.append("renders without the calls")
                continue
            note = []
            if not full.startswith(start):
                sys.exit(f"{name_of_case}: the full rendering does not start with the generation prompt:\n"
                         f"{prompt!r}\n{full!r}")
            if start != prompt:
                note.append(f"prompt-suffix {prompt[len(start):]!r} not in the rendered reply")
            out, stripped = strip_end(full[len(start):], specials)
            note.append("args " + ("string" if as_string else "object"))
            note.append("content " + content_form)
            note.append("stripped " + ("".join(stripped) if stripped else "nothing"))
            expect = content if content is not None and content in out else ""
            if content is not None and not expect:
                note.append("content dropped by the template")
            # the reasoning: what was given, where the template writes it; "" for an empty
            # <think></think> the template writes (or a bare </think> after a generation prompt
            # that opened the block); else none
            think = reasoning if reasoning is not None and reasoning in out else "" if "</think>" in out else None
            if reasoning is not None and think != reasoning:
                whys.append("drops the reasoning")
                continue
            return out, "; ".join(note), expect, think
    return None, " / ".join(dict.fromkeys(whys))


def write_corpus(seeds):
    """fuzz_reply's seeds: byte 0 the format, then a fixture's output. They are named fixture-*
    (tests/fuzz/make_corpus.py deletes every seed-* it does not write); only those are rewritten,
    the hand-written hand-* and kept crash-* inputs are left alone."""
    os.makedirs(CORPUS, exist_ok=True)
    for old in os.listdir(CORPUS):
        if old.startswith("fixture-"):
            os.remove(os.path.join(CORPUS, old))
    for name, data in sorted(seeds.items()):
        with open(os.path.join(CORPUS, "fixture-" + name), "wb") as f:
            f.write(data)


def main():
    check_versions()
    fix_clock()
    import jinja2
    import transformers
    lines = [f"# made by tools/make_toolcall_fixtures.py (transformers {transformers.__version__}, "
             f"jinja2 {jinja2.__version__}); strftime_now fixed at {FIXED_NOW:%Y-%m-%d %H:%M:%S}\n"]
    lines.append(f"tools {hx(json.dumps(TOOLS, ensure_ascii=False))}\n")
    report = []
    seeds = {}
    n = 0
    for family, fmt, specials, aliases in FAMILIES:
        name = next((a for a in [family] + aliases if os.path.exists(os.path.join(TEMPLATE_DIR, a + ".jinja"))), None)
        if name is None:
            report.append(f"{family}: left out: no template in tests/fixtures/jinja/templates")
            continue
        with open(os.path.join(TEMPLATE_DIR, name + ".jinja"), encoding="utf-8", newline="") as f:
            template = f.read()
        convs = dict(CONVERSATIONS)
        if fmt == "llama3":
            convs.update(BUILTIN)
        if fmt.startswith("functionary"):
            convs.update(PYCODE)
        kept = 0
        for conv, (calls, content, reasoning, kwargs) in convs.items():
            r = one_case(f"{name} {conv}", template, specials, calls, content, reasoning, kwargs)
            if r[0] is None:
                report.append(f"{name} {conv}: left out: {r[1]}")
                continue
            out, note, expect, think = r
            kept += 1
            n += 1
            report.append(f"{name} {conv}: {note}")
            lines.append(f"# {name} {conv}: {note}\n")
            lines.append(f"case {name} {conv}\n")
            lines.append(f"format {fmt}\n")
            lines.append(f"output {hx(out)}\n")
            for _, cname, args in calls:
                lines.append(f"call {hx(cname)} {hx(compact(args))}\n")
            lines.append(f"content {hx(expect)}\n")
            lines.append(f"reasoning {hx(think)}\n" if think is not None else "reasoning -\n")
            lines.append("end\n")
            seeds[f"{name}-{conv}"] = bytes([FORMATS.index(fmt)]) + out.encode("utf-8")
        if not kept:
            report.append(f"{name}: left out entirely")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)
    write_corpus(seeds)
    print("\n".join(report))
    print(f"{n} cases -> {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
