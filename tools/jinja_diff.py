#!/usr/bin/env python3
"""Differential fuzzer: xlarun's Jinja interpreter against jinja2 as transformers sets it up.

Developer-time only (not run by make). Random small templates, from a grammar weighted toward
what real chat templates use, with random variables, messages and tools, are rendered by

  * the oracle: transformers' own chat-template environment (transformers.utils.chat_template_utils:
    ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols, transformers' tojson,
    raise_exception, strftime_now fixed at 2024-09-26 13:45:07 as tools/make_jinja_unit_fixtures.py
    does it, dict, namespace), messages normalized as apply_chat_template does
    (_normalize_chat_messages, then render_jinja_template with add_generation_prompt=True), and
  * xlarun: tools/jinja_diff.c (xlarun_chat_template_create, the size query, xlarun_chat_render),
    one persistent process a batch, built with ASan and UBSan:

    gcc -std=gnu99 -O1 -g -fsanitize=address,undefined -I. tools/jinja_diff.c -o /tmp/jinja_diff -lm -lpthread

Each case is classified
    SILENT       both render, the texts differ
    XLARUN_ONLY  xlarun renders, jinja2 raises
    REFUSED      jinja2 renders, xlarun fails
    CRASH/HANG/MISMATCH/LEAK   xlarun's driver died (sanitizer), hung, or its size query and render disagree
    agree        same text, or both fail
and every divergence is minimized (token then character deletion of the template, then the
variables, messages and tools pruned) while its class (and, for REFUSED, xlarun's message; for
XLARUN_ONLY, jinja2's exception type) stays, and deduplicated by minimized template.

    /work/venv-jinja/bin/python tools/jinja_diff.py --seed 1 --cases 20000 --out /tmp/jinja_diff_out
    /work/venv-jinja/bin/python tools/jinja_diff.py --report /tmp/jinja_diff_out   # writes the markdown report
    /work/venv-jinja/bin/python tools/jinja_diff.py --show 'TEMPLATE' --vars '{"x": 1}'  # one case, both sides
"""
import argparse
import collections
import datetime as _dt
import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.dont_write_bytecode = True  # no tools/__pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_jinja_unit_fixtures import FIXED_NOW, oracle_env  # noqa: E402  (the oracle's strftime_now instant)

# ---------------------------------------------------------------------------------------------
# the oracle: transformers' environment, as make_jinja_unit_fixtures.py sets it up
# ---------------------------------------------------------------------------------------------
_ctu = None


class OracleTimeout(BaseException):
    pass


def _oracle_setup():
    global _ctu
    if _ctu is not None:
        return
    _ctu = oracle_env()

    def _alarm(signum, frame):
        raise OracleTimeout()

    signal.signal(signal.SIGALRM, _alarm)


def oracle(template, vars_json, msgs_json, tools_json):
    """('ok', text) or ('err', type name, message)"""
    _oracle_setup()
    ctu = _ctu
    vars_ = json.loads(vars_json)
    msgs = json.loads(msgs_json)
    tools = json.loads(tools_json) if tools_json is not None else None
    signal.setitimer(signal.ITIMER_REAL, 3.0)
    try:
        conv = ctu._normalize_chat_messages(msgs)
        out, _ = ctu.render_jinja_template(conversations=[conv], tools=tools, documents=None, chat_template=template,
                                           add_generation_prompt=True, **vars_)
        return ("ok", out[0])
    except OracleTimeout:
        return ("err", "OracleTimeout", "")
    except RecursionError as e:
        return ("err", "RecursionError", str(e)[:300])
    except Exception as e:  # noqa: BLE001 -- every failure is an outcome
        return ("err", type(e).__name__, str(e)[:500])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


# ---------------------------------------------------------------------------------------------
# xlarun: one persistent driver process, lockstep
# ---------------------------------------------------------------------------------------------
class Driver:
    def __init__(self, exe):
        self.exe = exe
        self.p = None
        self.buf = b""
        self.fresh = False      # a new process for every case (UBSan reports a place once a process)
        self.err_seen = 0
        self.last_stderr = ""   # what the sanitizers wrote during the last case

    def _start(self):
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = "detect_leaks=1:halt_on_error=1:abort_on_error=0"
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        self.errf = open("/tmp/jinja_diff_driver_stderr.txt", "w+b")
        self.p = subprocess.Popen([self.exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errf, cwd=ROOT)
        self.buf = b""
        self.err_seen = 0

    def _stderr(self):
        try:
            self.errf.flush()
            self.errf.seek(0)
            return self.errf.read().decode("utf-8", "replace")
        except Exception:  # noqa: BLE001
            return ""

    def close(self):
        """ends the process; returns its stderr if it reported anything (a leak)"""
        if not self.p:
            return ""
        try:
            self.p.stdin.close()
        except Exception:  # noqa: BLE001
            pass
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        err = self._stderr()[self.err_seen:]
        rc = self.p.returncode
        self.p = None
        self.errf.close()
        return err if (rc != 0 or "Sanitizer" in err or "runtime error" in err) else ""

    def _kill(self):
        if self.p:
            try:
                self.p.kill()
            except Exception:  # noqa: BLE001
                pass
            self.p.wait()
            err = self._stderr()
            self.errf.close()
            self.p = None
            return err
        return ""

    def run(self, template, vars_json, msgs_json, tools_json, timeout=30.0):
        """('ok', text) | ('err', status, message) | ('crash', stderr) | ('hang', '')"""
        if self.fresh and self.p is not None:
            self._kill()
        self.last_stderr = ""
        if self.p is None:
            self._start()
        fields = [template.encode("utf-8", "surrogatepass").hex(), vars_json.encode().hex(), msgs_json.encode().hex()]
        if tools_json is not None:
            fields.append(tools_json.encode().hex())
        try:
            self.p.stdin.write((" ".join(fields) + "\n").encode())
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            return ("crash", self._kill())
        fd = self.p.stdout.fileno()
        deadline = time.time() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                self._kill()
                return ("hang", "")
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return ("crash", self._kill())
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        line = line.decode()
        size = os.fstat(self.errf.fileno()).st_size
        if size > self.err_seen:
            self.errf.seek(self.err_seen)
            self.last_stderr = self.errf.read().decode("utf-8", "replace")
            self.err_seen = size
        if line.startswith("OK "):
            return ("ok", bytes.fromhex(line[3:]).decode("utf-8", "replace"))
        if line.startswith("OK"):
            return ("ok", "")
        parts = line.split(" ", 2)
        msg = bytes.fromhex(parts[2]).decode("utf-8", "replace") if len(parts) > 2 and parts[2] else ""
        return ("err", parts[1] if len(parts) > 1 else "?", msg)


# ---------------------------------------------------------------------------------------------
# classification
# ---------------------------------------------------------------------------------------------
def xl_key(msg):
    """xlarun's message without positions, numbers and long quotes: the 'same refusal' key"""
    k = re.sub(r"line \d+ column \d+", "", msg)
    k = re.sub(r"'([^']*)'", lambda m: m.group(0) if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]{0,30}", m.group(1)) else "'_'", k)
    k = re.sub(r"\d+", "N", k)
    return k[:120]


def norm_msg(m):
    m = re.sub(r"line \d+ column \d+", "", m)
    m = re.sub(r"'[^']*'|\"[^\"]*\"", "_", m)
    return re.sub(r"\d+", "N", m)[:60]


def signature(py, xl, cls, key):
    """what limits how many cases of one kind are minimized: for SILENT the first difference of the
    two texts, for XLARUN_ONLY jinja2's exception, for REFUSED xlarun's message"""
    if cls == "SILENT":
        a, b = py[1], xl[1]
        i = 0
        while i < min(len(a), len(b)) and a[i] == b[i]:
            i += 1
        return "SILENT|" + re.sub(r"\d", "N", a[i:i + 10]) + "|" + re.sub(r"\d", "N", b[i:i + 10])
    if cls == "XLARUN_ONLY":
        return f"XLARUN_ONLY|{py[1]}|{norm_msg(py[2])}"
    return f"{cls}|{key}"


def classify(py, xl, stderr=""):
    """(class, key) where key is what minimization must keep"""
    if "runtime error" in stderr or "Sanitizer" in stderr:
        m = re.search(r"xlarun\.h:(\d+):\d+: runtime error: ([a-z -]+)", stderr)
        return ("UB", m.group(1) + " " + m.group(2) if m else "sanitizer")
    if xl[0] == "crash":
        return ("CRASH", "")
    if xl[0] == "hang":
        return ("HANG", "")
    if xl[0] == "err" and xl[1] == "MISMATCH":
        return ("MISMATCH", "")
    if py[0] == "err" and py[1] == "OracleTimeout":
        return ("SKIP", "")
    if py[0] == "ok" and xl[0] == "ok":
        return ("agree", "") if py[1] == xl[1] else ("SILENT", "")
    if py[0] == "err" and xl[0] == "err":
        return ("agree", "")
    if py[0] == "err":
        return ("XLARUN_ONLY", py[1] + "|" + norm_msg(py[2]))
    return ("REFUSED", xl_key(xl[2]))


# ---------------------------------------------------------------------------------------------
# random variables, messages and tools
# ---------------------------------------------------------------------------------------------
STR_POOL = [
    "", " ", "a", "abc", "Hello World", "  padded  ", "\n", "a,b,,c", "x y  z", "é", "Héllo, wörld 🙂", "ß",
    "ΣΑΣ ΟΔΟΣ", "ǅemal ǆ", "ﬁne ﬀ", "ı İstanbul", "\u00a0nbsp\u3000", "\x1c\x1dsep\x1e\x1f", "\u0085nel\u2028ls",
    "tab\tsep", "line1\nline2\r\nline3\rline4", "<b>&amp;</b> 'q' \"dq\"", "%s %d", "{0} {}", "user", "assistant",
    "system", "tool", "<tool_call>", "</think>", "<think>\nreason\n</think>\n\nanswer", "it's", 'say "hi"',
    "back\\slash", "123", "-4.5", "0x1F", " 42 ", "1e3", "True", "a_b-c.d", "ǰ", "Straße", "o'neil x2y 3rd",
    "a\u0301", "\u200bzw", "\ufeffbom", "\x7fdel\x00nul", "UPPER lower", "  \t a b \u00a0\u3000c \n", "中文 字",
    "١٢٣", "Ⅻ", "²", "ǈ", "ŉ", "x" * 40, "the quick brown fox jumps over the lazy dog", "a b\tc\nd\u2003e",
    "http://x.y/?a=1&b=ü", "<p>para</p><br/>", "[1, 2]", "{\"k\": 1}", "null", "<|im_start|>", "\r\n",
    # case beyond Latin-1: final sigmas in context, title case, full mappings, cased letters without a mapping
    "ΌΣΟΣ'Σ ΣΑ.Σ", "ΑΣ\u0301 Σ\u0345a", "Привет, МИР", "և ﬃ ᾳᾼ ΐ", "ა Ꭰꭰ 𐐀𐑏 𞤀", "ℂ𝐀 ₐʰ ⓐⒶ🄰 Ｚｚ", "İi\u0307 ꞵꞴ ƛ ǲ",
    "\u1680ogham\u2029x",
]
INT_POOL = [0, 1, 2, 3, 5, 7, -1, -7, 10, 42, 100, 255, 1000, 2 ** 31, 2 ** 53 + 1, 10 ** 18]
INT_RARE = [2 ** 63 - 1, -(2 ** 63), 2 ** 63, 2 ** 64, 10 ** 30]
FLOAT_POOL = [0.0, -0.0, 0.5, 1.0, 2.5, -2.5, 1e16, 1e-7, 0.1, 1 / 3, 3.14159, 1e22, 1.5e300, 123456789.0, 2.675,
              0.125, 1e15, 12345678901234567.0, 100.0, -1e-5, 5e-324, 1.7976931348623157e308, 0.30000000000000004]
ROLES = ["system", "user", "assistant", "tool"]


def rnd_str(r):
    return r.choice(STR_POOL)


def rnd_int(r):
    return r.choice(INT_RARE) if r.random() < 0.005 else r.choice(INT_POOL)


def rnd_scalar(r):
    k = r.random()
    if k < 0.4:
        return rnd_str(r)
    if k < 0.65:
        return rnd_int(r)
    if k < 0.8:
        return r.choice(FLOAT_POOL)
    if k < 0.92:
        return r.random() < 0.5
    return None


def rnd_value(r, depth=2):
    k = r.random()
    if depth <= 0 or k < 0.55:
        return rnd_scalar(r)
    if k < 0.8:
        return [rnd_value(r, depth - 1) for _ in range(r.randint(0, 3))]
    return {r.choice(["a", "b", "c", "k", "name", "type", "x", "é", "Z", "1"]): rnd_value(r, depth - 1)
            for _ in range(r.randint(0, 3))}


def rnd_content(r):
    k = r.random()
    if k < 0.7:
        return rnd_str(r)
    if k < 0.85:
        parts = []
        for _ in range(r.randint(0, 3)):
            if r.random() < 0.7:
                parts.append({"type": "text", "text": rnd_str(r)})
            else:
                parts.append({"type": r.choice(["image", "image_url", "video"])})
        return parts
    if k < 0.93:
        return None
    return rnd_value(r)


def rnd_messages(r):
    msgs = []
    n = r.choice([0, 1, 2, 2, 3, 3, 4, 5])
    for i in range(n):
        if i == 0 and r.random() < 0.5:
            role = "system"
        elif r.random() < 0.7:
            role = "user" if i % 2 == (1 if msgs and msgs[0]["role"] == "system" else 0) else "assistant"
        else:
            role = r.choice(ROLES + ["tool_results", "developer"])
        m = {"role": role}
        if r.random() < 0.95:
            m["content"] = rnd_content(r)
        if role == "assistant" and r.random() < 0.35:
            tcs = []
            for _ in range(r.randint(1, 2)):
                args = r.choice([{"city": "Paris", "n": 2}, {}, {"q": rnd_str(r), "f": 1.5, "l": [1, None, True]},
                                 '{"a": 1}', rnd_value(r)])
                tc = {"type": "function", "function": {"name": r.choice(["get_weather", "search", "f"]), "arguments": args}}
                if r.random() < 0.5:
                    tc["id"] = r.choice(["call_1", "abc123XYZ", "0"])
                tcs.append(tc)
            m["tool_calls"] = tcs
        if role == "assistant" and r.random() < 0.15:
            m[r.choice(["reasoning_content", "thinking", "reasoning"])] = r.choice(["I think.", "", "a\nb", None])
        if role == "tool":
            if r.random() < 0.5:
                m["tool_call_id"] = "call_1"
            if r.random() < 0.5:
                m["name"] = "get_weather"
        msgs.append(m)
    return msgs


def rnd_tools(r):
    if r.random() < 0.6:
        return None
    tools = []
    for _ in range(r.randint(0, 2)):
        tools.append({"type": "function", "function": {
            "name": r.choice(["get_weather", "search", "f"]), "description": rnd_str(r),
            "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City é"},
                                                              "n": {"type": "integer", "enum": [1, 2]}},
                           "required": ["city"]}}})
    return tools


def rnd_vars(r):
    v = {
        "s": rnd_str(r), "t": rnd_str(r), "n": rnd_int(r), "k": r.choice([0, 1, 2, 3, -1, -2, 5]),
        "f": r.choice(FLOAT_POOL), "b": r.random() < 0.5, "z": None,
        "l": [r.choice([0, 1, 2, 3, 5, -1, 7, 10, 2.5]) for _ in range(r.randint(0, 5))],
        "names": [rnd_str(r) if r.random() < 0.3 else r.choice(["b", "A", "c", "a", "B", "é", "Z"]) for _ in range(r.randint(0, 4))],
        "d": {r.choice(["a", "b", "c", "role", "content", "B", "é", "1"]): rnd_value(r, 1) for _ in range(r.randint(0, 4))},
        "nested": {"x": {"y": [10, 20, {"z": rnd_str(r)}]}, "name": "n", "items": [1, 2]},
        "tree": [{"name": "a", "children": [{"name": "b", "children": []}, {"name": "c"}]}, {"name": "d", "children": [{"name": "e"}]}],
        "any": rnd_value(r),
        "enable_thinking": r.random() < 0.5,
        "bos_token": "<s>", "eos_token": "</s>",
    }
    for key in list(v):
        if r.random() < 0.06:
            del v[key]
    return v


# ---------------------------------------------------------------------------------------------
# the template generator
# ---------------------------------------------------------------------------------------------
def str_lit(r, s=None):
    """a Jinja string literal for s (escapes as jinja2's lexer reads them)"""
    if s is None:
        s = r.choice(STR_POOL[:60] + ["a", "b", ", ", "-", "\n", "\n\n", " ", "user", "role", "content", "x", "é"])
    q = r.choice(["'", "'", '"'])
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == q:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n" if r.random() < 0.85 else "\n")
        elif ch == "\t":
            out.append("\\t" if r.random() < 0.5 else "\t")
        elif ch == "\r":
            out.append("\\r")
        elif o < 32 or o == 127:
            out.append("\\x%02x" % o)
        elif o > 127 and r.random() < 0.2:
            out.append("\\u%04x" % o if o < 0x10000 else "\\U%08x" % o)
        else:
            out.append(ch)
    return q + "".join(out) + q


def int_lit(r):
    return r.choice(["0", "1", "2", "3", "4", "5", "7", "10", "42", "100", "-1", "-3", "1_000", "255", "2147483648",
                     "9007199254740993", "1000000000000000000"])


def small_int_lit(r):
    return r.choice(["0", "1", "2", "3", "-1", "-2", "4"])


def float_lit(r):
    return r.choice(["0.5", "1.0", "2.5", "-2.5", "1e3", "1.5e-3", "1E5", "1e16", "1e22", "0.1", "3.14159", "2.675",
                     "123456789.123", "1e-7", "100.0", "1e100", "-0.0", "0.0", "1_0.5", "2e0", "12345678901234567.0",
                     "1.7976931348623157e308", "5e-324", "1e308"])


TESTS_NOARG = ["defined", "undefined", "none", "string", "number", "integer", "float", "mapping", "iterable", "sequence",
               "boolean", "true", "false", "odd", "even", "callable", "lower", "upper", "escaped"]
TESTS_ARG = ["divisibleby", "eq", "ne", "lt", "gt", "ge", "le", "in", "sameas", "equalto", "lessthan", "greaterthan"]


class Gen:
    def __init__(self, r, vars_, msgs, tools):
        self.r = r
        self.scope = {}
        types = {"s": "str", "t": "str", "n": "int", "k": "int", "f": "float", "b": "bool", "z": "none", "l": "numlist",
                 "names": "strlist", "d": "dict", "nested": "dict", "tree": "tree", "any": "any",
                 "enable_thinking": "bool", "bos_token": "str", "eos_token": "str"}
        self.scope.update(types)  # names rnd_vars left out stay: using an undefined variable is a case too
        self.scope["messages"] = "msglist"
        self.scope["add_generation_prompt"] = "bool"
        self.scope["tools"] = "toollist" if tools is not None else "none"
        self.loops = 0          # enclosing for loops
        self.macros = []        # (name, n params, uses caller)
        self.ns = []            # namespace variable names and their attributes
        self.counter = 0
        self.ws_mode = False    # templates of mostly whitespace and tags: trim_blocks, lstrip_blocks, -, +

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def pick(self, weighted):
        """weighted: list of (weight, fn) -> fn()"""
        tot = sum(w for w, _ in weighted)
        x = self.r.random() * tot
        for w, fn in weighted:
            x -= w
            if x <= 0:
                return fn()
        return weighted[-1][1]()

    def names_of(self, *tys):
        return [n for n, t in self.scope.items() if t in tys]

    def var(self, *tys):
        c = self.names_of(*tys)
        return self.r.choice(c) if c else None

    # ---- expressions ------------------------------------------------------------------------
    def expr(self, ty, d):
        """a Jinja expression of (roughly) type ty, at most d levels deep"""
        r = self.r
        if ty == "any":
            ty = r.choice(["str", "str", "str", "int", "float", "bool", "numlist", "strlist", "dict", "msg", "misc", "misc"])
        fn = getattr(self, "e_" + ty)
        return fn(max(d, 0))

    def par(self, e):
        """parenthesize when it is not already an atom"""
        if re.fullmatch(r"[\w.]+|'[^']*'|\"[^\"]*\"", e) or (e.startswith("(") and e.endswith(")") and e.count("(") == 1):
            return e
        return "(" + e + ")"

    def sub(self, ty, d):
        return self.par(self.expr(ty, d - 1))

    def loopattr(self, kind):
        if not self.loops:
            return None
        if kind == "int":
            return "loop." + self.r.choice(["index", "index0", "revindex", "revindex0", "length", "depth", "depth0"])
        if kind == "bool":
            return "loop." + self.r.choice(["first", "last"])
        return "loop." + self.r.choice(["previtem", "nextitem", "cycle('odd', 'even')", "changed(1)"])

    def e_str(self, d):
        r = self.r
        atoms = [(4, lambda: str_lit(r)), (4, lambda: self.var("str") or str_lit(r)),
                 (0.3, lambda: r.choice(["'\\N{DEGREE SIGN}'", "'\\101\\x41\\u0041'", "'\\q\\d'", "'a\\\nb'", "'\\0'",
                                         "'\\U0001F642'", "'a' 'b'", "\"\\'\"", "'\\a\\b\\f\\v'", "'\\''"]))]
        if self.names_of("msg"):
            atoms.append((4, lambda: self.var("msg") + r.choice([".role", "['role']", ".content", "['content']", "['role']|string"])))
        if d <= 0:
            return self.pick(atoms)
        S = lambda: self.sub("str", d)  # noqa: E731
        A = lambda: self.sub("any", d)  # noqa: E731
        prods = atoms + [
            (4, lambda: S() + " + " + S()),
            (3, lambda: S() + " ~ " + A()),
            (1, lambda: S() + " * " + r.choice(["0", "1", "2", "3", "-1"])),
            (4, lambda: S() + r.choice([".strip()", ".lstrip()", ".rstrip()", ".strip('\\n')", ".strip(' a')",
                                        ".lstrip('\\n')", ".rstrip('.!?')", ".upper()", ".lower()", ".title()",
                                        ".capitalize()", ".swapcase()", ".strip(none)", ".center(9)", ".zfill(4)"])),
            (2, lambda: S() + ".replace(" + str_lit(r) + ", " + str_lit(r) + r.choice(["", "", ", 1", ", 0", ", -1"]) + ")"),
            (2, lambda: self.sub("strlist", d) + "|join" + r.choice(["", "(', ')", "('-')", "(\"\\n\")", "(attribute='x')"])),
            (1, lambda: str_lit(r, r.choice([", ", "", "\n", "-"])) + ".join(" + self.expr("strlist", d - 1) + ")"),
            (3, lambda: S() + r.choice([".split(" + str_lit(r, r.choice([",", " ", "</think>", "\n", "a"])) + ")",
                                        ".split()", ".split(',', 1)", ".rsplit(' ', 1)", ".split(none, 1)",
                                        ".splitlines()", ".partition(',')"]) + "[" + r.choice(["0", "-1", "1"]) + "]"),
            (3, lambda: S() + self.slice_or_index()),
            (4, lambda: A() + "|" + r.choice(["string", "tojson", "tojson(indent=2)", "tojson(sort_keys=true)",
                                              "tojson(separators=(',', ':'))", "tojson(ensure_ascii=true)", "tojson(indent=4)",
                                              "tojson(indent='  ')", "pprint", "e", "escape", "safe|string", "list|string",
                                              "string|e"])),
            (4, lambda: S() + "|" + r.choice(["trim", "upper", "lower", "title", "capitalize", "e", "safe", "striptags",
                                              "urlencode", "trim('x')", "indent", "indent(2)", "indent(4, true)",
                                              "indent(2, first=true, blank=true)", "indent('> ')", "center", "center(11)",
                                              "truncate(5)", "truncate(9, true)", "truncate(3, false, '…', 0)",
                                              "replace('a', 'A')", "replace(' ', '', 1)", "reverse", "wordwrap(5)",
                                              "wordwrap(3, false)", "wordwrap(4, wrapstring='|')",
                                              "format", "forceescape", "string", "first", "last", "default('dflt')",
                                              "d('x', true)", "default(none)|string"])),
            (2, lambda: S() + " if " + self.sub("bool", d) + (" else " + S() if r.random() < 0.75 else "")),
            (2, lambda: self.sub("strlist", d) + r.choice(["|first", "|last", "[0]", "[-1]", "|max", "|min", "|sort|first"])),
            (1, lambda: "strftime_now(" + str_lit(r, r.choice(["%Y-%m-%d", "%d %B %Y", "%b %d %Y %H:%M:%S", "%A %j %U %p %I",
                                                             "%-d %e %y", "%c", "%x %X", "%%", "%Z%z", "%s", "%G-W%V-%u"])) + ")"),
            (2, lambda: self.sub("misc", d) + "|default(" + str_lit(r) + r.choice(["", ", true", ", false"]) + ")"),
            (1, lambda: str_lit(r, r.choice(["%s-%s", "%d|%s", "%r", "%.2f %5s", "%x %o %e %g", "%(a)s", "%c %i %%"]))
             + "|format(" + A() + ", " + A() + ")"),
            (1, lambda: str_lit(r, r.choice(["{} {}", "{0}{1}{0}", "{!r}-{:>5}", "{a}", "{:.2f}", "{{}}{}", "{0:>3}{1!r}",
                                             "{0[0]}{1}", "{1!s:}{0}", "{}{1}"])) + ".format(" + A() + ", " + A() + ")"),
            (2, lambda: self.sub("dict", d) + r.choice([".get('a', 'dflt')", ".get('role')|string", "['role']", ".role", ".name",
                                                        "|tojson", ".get('x', 0)|string", "|dictsort|string", "|items|list|string"])),
            (1, lambda: self.sub("int", d) + "|string"),
            (1, lambda: self.sub("float", d) + "|string"),
            (1, lambda: S() + r.choice([".removeprefix('a')", ".removesuffix('\\n')", ".ljust(6, '*')", ".rjust(5)",
                                        ".expandtabs(4)", ".casefold()", ".encode()"])),
            (1, lambda: "'x' ~ " + self.sub("none", d) + " ~ " + self.sub("bool", d)),
        ]
        if self.macros:
            prods.append((3, lambda: self.call_macro(d)))
        if self.ns:
            prods.append((2, lambda: self.ns_get()))
        return self.pick(prods)

    def ns_get(self):
        name, attrs = self.r.choice(self.ns)
        return name + "." + self.r.choice(attrs + ["missing"])

    def slice_or_index(self):
        r = self.r
        k = r.random()
        if k < 0.4:
            return "[" + r.choice(["0", "1", "-1", "-2", "2", "k", "100"]) + "]"
        parts = [r.choice(["", "", "1", "-1", "2", "-2", "k", "0", "10", "-10", "none"]) for _ in range(2)]
        if r.random() < 0.5:
            return "[" + parts[0] + ":" + parts[1] + "]"
        return "[" + parts[0] + ":" + parts[1] + ":" + r.choice(["", "-1", "2", "-2", "1", "3", "k", "none"]) + "]"

    def e_int(self, d):
        r = self.r
        atoms = [(4, lambda: int_lit(r)), (3, lambda: self.var("int") or int_lit(r))]
        la = self.loopattr("int")
        if la:
            atoms.append((5, lambda: la))
        if d <= 0:
            return self.pick(atoms)
        I = lambda: self.sub("int", d)  # noqa: E731
        prods = atoms + [
            (5, lambda: I() + " " + r.choice(["+", "-", "*", "//", "%", "+", "-"]) + " " + I()),
            (1, lambda: I() + " ** " + r.choice(["0", "1", "2", "3", "-1", "63", "64"])),
            (1, lambda: "-" + I()),
            (5, lambda: self.sub("any", d) + r.choice(["|length", "|count", "|length", "|wordcount"])),
            (2, lambda: self.sub("str", d) + r.choice([".find(" + str_lit(r) + ")", ".rfind('a')", ".count(" + str_lit(r) + ")",
                                                       ".index('a')", ".count('')"])),
            (3, lambda: self.sub("numlist", d) + r.choice(["|sum", "|min", "|max", "|first", "|last", "[0]", "[-1]",
                                                           "|length", "|sum(start=10)", "|count"])),
            (2, lambda: self.sub("any", d) + r.choice(["|int", "|int(-1)", "|int(0, 16)", "|int(base=2)", "|abs", "|round|int"])),
            (1, lambda: "(" + self.sub("float", d) + ")|int"),
            (1, lambda: I() + " if " + self.sub("bool", d) + " else " + I()),
            (1, lambda: "range(" + r.choice(["3", "0", "5", "1, 4", "10, 0, -3"]) + ")|" + r.choice(["sum", "length", "last"])),
        ]
        return self.pick(prods)

    def e_float(self, d):
        r = self.r
        atoms = [(4, lambda: float_lit(r)), (2, lambda: self.var("float") or float_lit(r))]
        if d <= 0:
            return self.pick(atoms)
        N = lambda: self.sub(r.choice(["int", "float"]), d)  # noqa: E731
        prods = atoms + [
            (4, lambda: N() + " / " + N()),
            (4, lambda: N() + " " + r.choice(["+", "-", "*", "//", "%"]) + " " + self.sub("float", d)),
            (1, lambda: self.sub("float", d) + " ** " + r.choice(["2", "0.5", "-1", "3"])),
            (3, lambda: self.sub("any", d) + r.choice(["|float", "|float(-1.5)", "|float|abs"])),
            (4, lambda: N() + r.choice(["|round", "|round(2)", "|round(1, 'floor')", "|round(0, 'ceil')", "|round(3, 'common')",
                                        "|round(-1)", "|abs", "|round(method='floor')"])),
            (1, lambda: self.sub("numlist", d) + r.choice(["|sum(start=0.5)", "|map('float')|sum"])),
            (1, lambda: "-" + self.sub("float", d)),
        ]
        return self.pick(prods)

    def test_expr(self, d):
        r = self.r
        subj = self.sub("any", d)
        neg = " not" if r.random() < 0.3 else ""
        if r.random() < 0.75:
            t = r.choice(TESTS_NOARG + ["defined", "defined", "none", "string", "mapping"])
            return f"{subj} is{neg} {t}"
        t = r.choice(TESTS_ARG)
        arg = self.expr(r.choice(["int", "str", "numlist"]) if t in ("in", "eq") else r.choice(["int", "int", "str"]), 0)
        if t == "divisibleby":
            arg = r.choice(["2", "3", "0", "1"])
        if r.random() < 0.5:
            return f"{subj} is{neg} {t} {arg}" if t != "in" else f"{subj} is{neg} in {arg}"
        return f"{subj} is{neg} {t}({arg})"

    def e_bool(self, d):
        r = self.r
        atoms = [(2, lambda: r.choice(["true", "false", "True", "False"])), (3, lambda: self.var("bool") or "true")]
        la = self.loopattr("bool")
        if la:
            atoms.append((6, lambda: la))
        if d <= 0:
            return self.pick(atoms)
        if self.names_of("gen"):
            atoms.append((2, lambda: self.expr(r.choice(["int", "str"]), 0) + r.choice([" in ", " not in "]) + self.var("gen")))
        prods = atoms + [
            (6, lambda: self.cmp(d)),
            (6, lambda: self.test_expr(d)),
            (3, lambda: self.sub("bool", d) + r.choice([" and ", " or "]) + self.sub("bool", d)),
            (2, lambda: "not " + self.sub("bool", d)),
            (1, lambda: "not " + self.sub("any", d)),
            (3, lambda: self.sub("str", d) + r.choice([" in ", " not in "]) + self.sub("str", d)),
            (2, lambda: self.sub("any", d) + r.choice([" in ", " not in "]) + self.sub(r.choice(["numlist", "strlist", "dict", "misc"]), d)),
            (3, lambda: self.sub("str", d) + r.choice([".startswith(", ".endswith("]) + r.choice([str_lit(r), "(" + str_lit(r) + ", " + str_lit(r) + ")"]) + ")"),
            (1, lambda: self.sub("str", d) + r.choice([".isdigit()", ".isalpha()", ".isalnum()", ".isspace()", ".isupper()",
                                                       ".islower()", ".isnumeric()", ".istitle()"])),
            (1, lambda: self.sub("bool", d) + " == " + self.sub("any", d)),
        ]
        return self.pick(prods)

    def cmp(self, d):
        r = self.r
        ty = r.choice(["int", "int", "str", "float", "any", "numlist", "msg"])
        ops = ["==", "!=", "<", ">", "<=", ">="] if ty != "msg" else ["==", "!="]
        e = self.sub(ty, d) + " " + r.choice(ops) + " " + self.sub(ty if r.random() < 0.85 else "any", d)
        if r.random() < 0.12:
            e += " " + r.choice(ops) + " " + self.sub(ty, d)
        return e

    def e_numlist(self, d):
        r = self.r
        atoms = [(3, lambda: self.var("numlist") or "[1, 2]"),
                 (2, lambda: "[" + ", ".join(r.choice([int_lit(r), float_lit(r)]) for _ in range(r.randint(0, 4))) + "]"),
                 (2, lambda: "range(" + r.choice(["3", "0", "5", "1, 4", "10, 0, -3", "-2", "k", "0, 10, 4"]) + ")")]
        if d <= 0:
            return self.pick(atoms)
        L = lambda: self.sub("numlist", d)  # noqa: E731
        prods = atoms + [
            (3, lambda: L() + r.choice(["|sort", "|sort(reverse=true)", "|unique|list", "|reverse|list", "|list",
                                        "|select('odd')|list", "|reject('even')|list", "|select('gt', 2)|list",
                                        "|select('>', 1)|list", "|select('divisibleby', 3)|list", "|map('abs')|list",
                                        "|map('int')|list", "|map('string')|map('int')|list", "|select|list",
                                        "|reject('none')|list", "|select('lessthan', 3)|list", "|unique(true)|list"])),
            (2, lambda: L() + self.slice_or_index() if r.random() < 0.2 else L() + "[" + r.choice(["1:", ":-1", "::-1", "::2", "-2:", "1:3"]) + "]"),
            (1, lambda: L() + " + " + L()),
            (1, lambda: L() + " * " + r.choice(["2", "0"])),
            (1, lambda: "[" + self.sub("int", d) + ", " + self.sub("float", d) + "]"),
            (1, lambda: "(" + self.sub("int", d) + ", " + self.sub("int", d) + r.choice([")", ",)"])),
            (1, lambda: self.sub("dict", d) + ".values()|select('number')|list"),
        ]
        return self.pick(prods)

    def e_strlist(self, d):
        r = self.r
        atoms = [(3, lambda: self.var("strlist") or "['a']"),
                 (2, lambda: "[" + ", ".join(str_lit(r) for _ in range(r.randint(0, 3))) + "]")]
        if d <= 0:
            return self.pick(atoms)
        L = lambda: self.sub("strlist", d)  # noqa: E731
        prods = atoms + [
            (3, lambda: self.sub("str", d) + r.choice([".split()", ".split(',')", ".split(' ', 1)", ".rsplit(',', 1)",
                                                       ".splitlines()", ".split('\\n')", "|list"])),
            (3, lambda: L() + r.choice(["|sort", "|sort(case_sensitive=true)", "|sort(reverse=true)", "|unique|list",
                                        "|unique(case_sensitive=true)|list", "|reverse|list", "|map('upper')|list",
                                        "|map('trim')|list", "|map('lower')|list", "|select('lower')|list",
                                        "|reject('equalto', 'a')|list", "|select('in', ['a', 'b'])|list", "|map('length')|list",
                                        "|select('upper')|list", "|map('title')|list", "|map('replace', 'a', 'x')|list"])),
            (3, lambda: "messages|map(attribute=" + r.choice(["'role'", "'content'", "'name'", "'content', default='?'"]) + ")|list"),
            (2, lambda: self.sub("dict", d) + r.choice(["|list", ".keys()|list", "|sort", "|map('upper')|list"])),
            (1, lambda: L() + self.slice_or_index() if r.random() < 0.3 else L() + "[1:]"),
            (1, lambda: L() + " + " + L()),
            (1, lambda: "[" + self.sub("str", d) + "]"),
            (1, lambda: "tree|map(attribute='name')|list"),
        ]
        return self.pick(prods)

    def dict_lit(self, d):
        r = self.r
        items = []
        for _ in range(r.randint(0, 3)):
            key = r.choice([str_lit(r, r.choice(["a", "b", "role", "content", "é", "k k", "1"])), "1", "true", "none", "2.5"])
            items.append(key + ": " + self.expr(r.choice(["str", "int", "float", "bool", "numlist", "misc"]), d - 1))
        return "{" + ", ".join(items) + "}"

    def e_dict(self, d):
        r = self.r
        atoms = [(3, lambda: self.var("dict") or "{}"), (2, lambda: self.dict_lit(0))]
        if self.names_of("msg"):
            atoms.append((3, lambda: self.var("msg")))
        if d <= 0:
            return self.pick(atoms)
        prods = atoms + [
            (2, lambda: self.dict_lit(d)),
            (2, lambda: "dict(" + ", ".join(f"{k}=" + self.expr(r.choice(["str", "int", "bool"]), d - 1)
                                           for k in r.sample(["a", "b", "role", "content", "x"], r.randint(0, 3))) + ")"),
            (2, lambda: "messages[" + r.choice(["0", "-1", "1"]) + "]"),
            (1, lambda: "messages|selectattr('role', 'equalto', " + str_lit(r, r.choice(ROLES)) + ")|first"),
            (1, lambda: "nested.x"),
            (1, lambda: "nested['x']['y'][2]"),
            (1, lambda: "messages|last"),
            (1, lambda: "tools[0]" if self.scope.get("tools") == "toollist" else "tree[0]"),
        ]
        return self.pick(prods)

    def e_msg(self, d):
        return self.e_dict(d)

    def e_none(self, d):
        return self.r.choice(["none", "None", "z", "undefined_x", "nested.missing", "d.nokey"])

    def e_misc(self, d):
        """values of the other shapes: None, undefined, nested lists, items, tuples, message parts, tool calls"""
        r = self.r
        atoms = [(2, lambda: self.e_none(0)), (2, lambda: "any"), (1, lambda: "messages"), (1, lambda: "tools"),
                 (1, lambda: "tree"), (1, lambda: r.choice(["(1, 'a')", "(none,)", "()", "[[1, 2], [3]]", "[none, true, 'x', 1.5]"]))]
        if self.names_of("gen"):  # a generator in a variable: each read takes what it reads (Python's generators run once)
            atoms.append((8, lambda: self.var("gen") + r.choice(["|list", "|first", "|list", "|join(',')", "|sort", "|map('string')|list",
                                                                 "|select|list", "|reverse|list", "|unique|list", "|last", "|length"])))
        if self.names_of("msg"):
            atoms.append((4, lambda: self.var("msg") + r.choice([".tool_calls", ".content", "['tool_calls'][0]", ".tool_calls[0].function.arguments",
                                                                  ".tool_calls[0]['function']['name']", ".reasoning_content", ".thinking",
                                                                  ".content[0]", ".content[0].text", ".get('content')", ".name"])))
        if self.names_of("other"):
            atoms.append((3, lambda: self.var("other")))
        la = self.loopattr("other")
        if la:
            atoms.append((4, lambda: la))
        if d <= 0:
            return self.pick(atoms)
        prods = atoms + [
            (2, lambda: self.sub("dict", d) + r.choice(["|items|list", ".items()|list", "|dictsort", "|dictsort(reverse=true)",
                                                        "|dictsort(by='value')", ".values()|list", "|dictsort(true)"])),
            (2, lambda: self.sub("any", d) + r.choice([" or ", " and "]) + self.sub("any", d)),
            (2, lambda: "messages|" + r.choice(["selectattr('role', 'equalto', 'user')", "rejectattr('role', 'in', ['system', 'tool'])",
                                                "selectattr('tool_calls', 'defined')", "selectattr('content', 'string')",
                                                "rejectattr('content')", "selectattr('role', '==', 'assistant')",
                                                "map(attribute='tool_calls')", "sort(attribute='role')",
                                                "unique(attribute='role')", "map(attribute='content')|select",
                                                "groupby('role')", "sum(attribute='x')"]) + "|list"),
            (1, lambda: self.sub("numlist", d) + r.choice(["|batch(2)|list", "|batch(3, 0)|list", "|slice(2)|list",
                                                           "|slice(3, 'x')|list"])),
            (1, lambda: self.sub("any", d) + " if " + self.sub("bool", d)),
            (1, lambda: "nested" + r.choice([".x.y", "['x'].y[2]", ".items", ".x.y[2].z", ".x.missing.z"])),
            (1, lambda: "namespace(" + r.choice(["a=1", "", "a=[1], b='x'"]) + ")"),
            (1, lambda: r.choice(["range", "dict", "namespace", "raise_exception", "strftime_now", "loop", "caller",
                                  "lipsum", "cycler", "joiner", "self", "varargs", "kwargs"])),
            (1, lambda: "tree|map(attribute='children')|list"),
            (1, lambda: "tools|map(attribute='function.name')|list" if r.random() < 0.5 else "tools[0].function.parameters|tojson"),
        ]
        return self.pick(prods)

    def e_other(self, d):
        return self.e_misc(d)

    def call_macro(self, d):
        name, nparams, _ = self.r.choice(self.macros)
        args = [self.expr("any", d - 1) for _ in range(self.r.choice([nparams, nparams, max(0, nparams - 1), nparams + 1]))]
        if args and self.r.random() < 0.3:
            args[-1] = "p" + str(len(args) - 1) + "=" + args[-1]
        return f"{name}({', '.join(args)})"

    # ---- statements -------------------------------------------------------------------------
    def tag(self, body):
        r = self.r
        lws = r.choice(["", "", "", "", "-", "-", "+"])
        rws = r.choice(["", "", "", "", "-", "-", "+" if r.random() < 0.1 else ""])
        sp1 = " " if r.random() < 0.92 else ""
        sp2 = " " if r.random() < 0.92 else ""
        return "{%" + lws + sp1 + body + sp2 + rws + "%}"

    def out(self, e):
        r = self.r
        lws = r.choice(["", "", "", "-"])
        rws = r.choice(["", "", "", "-"])
        return "{{" + lws + " " + e + " " + rws + "}}"

    def text(self):
        r = self.r
        if self.ws_mode:
            return "".join(r.choice(["\n", "\n", " ", "  ", "\t", "x", "ab", "\r\n", "\n  ", "  \n", " \t ", "\r", "\u3000", "\f"])
                           for _ in range(r.randint(1, 4)))
        return r.choice(["", "", "x", "\n", "  ", "\n  ", "A\n", " | ", "<|im_start|>", "\n\n", "   \n", "\t", "é ",
                         "text ", "\n    ", "}", "{", "#", "%", "  \n  ", "[INST] ", "\r\n", "a\nb"])

    def block(self, d, n=None):
        r = self.r
        if n is None:
            n = r.randint(1, 3 if d > 0 else 2)
        parts = []
        for _ in range(n):
            parts.append(self.stmt(d))
        return "".join(parts)

    def stmt(self, d):
        r = self.r
        prods = [
            (4 if not self.ws_mode else 14, lambda: self.text()),
            (10 if not self.ws_mode else 4, lambda: self.out(self.expr("any", r.choice([1, 2, 2, 3]) if not self.ws_mode else 0))),
            (2, lambda: self.s_set()),
            (1, lambda: self.s_comment()),
        ]
        if self.loops:
            prods.append((2, lambda: self.tag("if " + self.expr("bool", 2) + "") + self.tag(r.choice(["break", "continue"])) + self.tag("endif")))
            prods.append((0.3, lambda: self.tag(r.choice(["break", "continue"]))))
        if self.ns:
            prods.append((3, lambda: self.s_ns_set()))
        if d > 0:
            prods += [
                (7, lambda: self.s_if(d)),
                (6, lambda: self.s_for(d)),
                (1.5, lambda: self.s_macro(d)),
                (1, lambda: self.s_set_block(d)),
                (1.5, lambda: self.s_namespace()),
                (1, lambda: self.s_filter(d)),
                (0.5, lambda: self.s_raw()),
                (0.4, lambda: self.tag("with " + self.fresh("w") + " = " + self.expr("any", 1)) + self.block(d - 1) + self.tag("endwith")),
                (0.4, lambda: self.tag("if " + self.expr("bool", 1)) + self.out("raise_exception(" + str_lit(r, "Bad: ") + " ~ " + self.expr("str", 1) + ")") + self.tag("endif")),
                (0.3, lambda: self.tag("generation") + self.block(d - 1) + self.tag("endgeneration")),
                (0.6, lambda: self.s_messages_loop(d)),
            ]
        return self.pick(prods)

    def s_comment(self):
        r = self.r
        return "{#" + r.choice(["", "-"]) + r.choice([" c ", " {{ x }} ", "\n multi\nline ", " {% if %} "]) + r.choice(["", "-"]) + "#}"

    def s_raw(self):
        r = self.r
        return self.tag("raw") + r.choice(["{{ x }}", " {% if %} ", "\n{#", "a  ", "{{- y -}}\n"]) + self.tag("endraw")

    def s_set(self):
        r = self.r
        k = r.random()
        if k < 0.08:
            a, b = self.fresh("a"), self.fresh("b")
            self.scope[a] = "int"
            self.scope[b] = "any"
            return self.tag(f"set {a}, {b} = " + r.choice(["1, 2", "(3, 'x')", "[4, 5]", "'ab'", "d.items()|first", "[1]"]))
        if k < 0.14:
            lst = self.fresh("lst")
            self.scope[lst] = "numlist"
            return self.tag(f"set {lst} = []") + self.tag(f"set _ = {lst}.append(" + self.expr("int", 1) + ")")
        if k < 0.25 and self.scope.get("messages") == "msglist":
            # the idiom: split off the system message
            return (self.tag("if messages[0]['role'] == 'system'" if r.random() < 0.5 else "if messages and messages[0].role == 'system'")
                    + self.tag("set system_message = messages[0]['content']" + r.choice(["", "|trim"]))
                    + self.tag("set loop_messages = messages[1:]") + self.tag("else")
                    + self.tag("set loop_messages = messages") + self.tag("endif"))
        if k < 0.4 and k >= 0.3:
            g = self.fresh("g")
            src = r.choice([(self.expr("numlist", 1), ["map('string')", "select", "reject('odd')", "reverse", "unique", "batch(2)", "map('int')"]),
                            (self.expr("strlist", 1), ["map('upper')", "select", "reverse", "unique", "reject('none')"]),
                            ("messages", ["map(attribute='role')", "selectattr('role', 'ne', 'system')", "reverse", "rejectattr('content')"]),
                            (self.expr("dict", 0), ["items", "reverse", "map('upper')"])])
            e = src[0] + "|" + r.choice(src[1])
            if r.random() < 0.3:  # a generator made from a generator
                e += "|" + r.choice(["map('string')", "select", "reverse", "unique"])
            self.scope[g] = "gen"
            return self.tag(f"set {g} = {e}")
        if k < 0.3:
            self.scope["messages"] = "msglist"
            return self.tag("set messages = messages" + r.choice(["[1:]", "[::-1]", "|rejectattr('role', 'equalto', 'system')|list"]))
        ty = r.choice(["str", "str", "int", "bool", "numlist", "strlist", "dict", "misc", "float"])
        if r.random() < 0.3:
            existing = [n for n, t in self.scope.items() if t == ty and n not in ("messages",)]
            name = r.choice(existing) if existing else self.fresh("v")
        else:
            name = self.fresh("v")
        e = self.expr(ty, r.choice([1, 2]))
        self.scope[name] = ty if ty != "misc" else "other"
        return self.tag(f"set {name} = {e}")

    def s_set_block(self, d):
        r = self.r
        name = self.fresh("blk")
        body = self.block(d - 1)
        self.scope[name] = "str"
        f = r.choice(["", "", " | trim", " | upper", " | indent(2)"])
        return self.tag(f"set {name}{f}") + body + self.tag("endset")

    def s_namespace(self):
        r = self.r
        name = self.fresh("ns")
        attrs = r.sample(["flag", "count", "text", "idx", "last"], r.randint(1, 3))
        init = ", ".join(f"{a}=" + self.expr(r.choice(["bool", "int", "str", "numlist"]), 0) for a in attrs)
        self.ns.append((name, attrs))
        self.scope[name] = "ns"
        return self.tag(f"set {name} = namespace({init})")

    def s_ns_set(self):
        r = self.r
        name, attrs = r.choice(self.ns)
        a = r.choice(attrs + ([self.fresh("new")] if r.random() < 0.2 else []))
        if a not in attrs:
            attrs.append(a)
        e = r.choice([f"{name}.{a} + 1", f"{name}.{a} ~ 'x'", self.expr("any", 1), "true", f"not {name}.{a}", "loop.index0" if self.loops else "1"])
        return self.tag(f"set {name}.{a} = {e}")

    def s_if(self, d):
        r = self.r
        out = self.tag("if " + self.expr("bool", r.choice([1, 2, 2, 3]))) + self.block(d - 1)
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            out += self.tag("elif " + self.expr("bool", 2)) + self.block(d - 1)
        if r.random() < 0.5:
            out += self.tag("else") + self.block(d - 1)
        return out + self.tag("endif")

    def loop_target(self, d):
        """(for-head, [(name, type)])"""
        r = self.r
        x = self.fresh("x")
        k = r.random()
        if k < 0.3:
            return ("messages" + r.choice(["", "", "[1:]", "[::-1]", "|selectattr('role', 'ne', 'system')"]), [(x, "msg")])
        if k < 0.45:
            return (self.expr("numlist", 1), [(x, "int")])
        if k < 0.55:
            return (self.expr("strlist", 1), [(x, "str")])
        if k < 0.68:
            kk, vv = self.fresh("k"), self.fresh("v")
            return ((self.expr("dict", 0) + r.choice([".items()", "|items", "|dictsort"])), [(kk, "str"), (vv, "other")])
        if k < 0.75:
            return (self.expr("str", 0), [(x, "str")])
        if k < 0.82:
            return (self.var("msg") + ".tool_calls" if self.names_of("msg") else "messages[-1].tool_calls", [(x, "other")])
        if k < 0.88:
            return ("tools" if r.random() < 0.7 else "tools or []", [(x, "dict")])
        if k < 0.94 and self.names_of("gen"):
            return (self.var("gen"), [(x, "other")])
        return (self.expr("misc", 1), [(x, "other")])

    def s_for(self, d):
        r = self.r
        if r.random() < 0.06:
            x = self.fresh("node")
            self.loops += 1
            saved = dict(self.scope)
            self.scope[x] = "dict"
            body = (self.out(x + ".name") + self.block(0, 1)
                    + self.tag(f"if {x}.children") + "[" + self.out("loop(" + x + ".children)") + "]" + self.tag("endif"))
            self.scope = saved
            self.loops -= 1
            return self.tag(f"for {x} in tree recursive") + body + self.tag("endfor")
        head, names = self.loop_target(d)
        cond = (" if " + self.expr("bool", 1)) if r.random() < 0.12 else ""
        saved = dict(self.scope)
        for n, t in names:
            self.scope[n] = t
        self.loops += 1
        body = self.block(d - 1)
        self.loops -= 1
        targ = ", ".join(n for n, _ in names)
        out = self.tag(f"for {targ} in {head}{cond}") + body
        # names the body set stay visible to the generator (their not leaking is a case too)
        for n, t in names:
            self.scope.pop(n, None)
        for n, t in saved.items():
            self.scope.setdefault(n, t)
        if r.random() < 0.15:
            out += self.tag("else") + self.block(d - 1)
        return out + self.tag("endfor")

    def s_messages_loop(self, d):
        """the shape of a real template's main loop"""
        r = self.r
        m = r.choice(["message", "m", "msg"])
        self.scope[m] = "msg"
        self.loops += 1
        role = f"{m}['role']" if r.random() < 0.5 else f"{m}.role"
        content = r.choice([f"{m}['content']", f"{m}.content", f"{m}['content']|trim", f"{m}.content|string"])
        body = (self.tag(f"if {role} == " + str_lit(r, r.choice(ROLES))) + self.out(str_lit(r, "<|" ) + " + " + role + " + " + str_lit(r, "|>\n") + " + " + content + " + " + str_lit(r, "\n"))
                + self.tag("elif " + r.choice([f"{m}.content is string", f"{m}.tool_calls is defined", "loop.last", f"{m}.content is not none"]))
                + self.block(d - 1) + self.tag("else") + self.block(d - 1) + self.tag("endif"))
        self.loops -= 1
        self.scope.pop(m, None)
        tail = ""
        if r.random() < 0.5:
            tail = self.tag("if add_generation_prompt") + self.out(str_lit(r, "<|im_start|>assistant\n")) + self.tag("endif")
        return self.tag(f"for {m} in messages") + body + self.tag("endfor") + tail

    def s_macro(self, d):
        r = self.r
        name = self.fresh("mac")
        nparams = r.randint(0, 2)
        params = []
        saved = dict(self.scope)
        for i in range(nparams):
            params.append(f"p{i}" + (("=" + self.expr(r.choice(["str", "int", "none"]), 0)) if i == nparams - 1 and r.random() < 0.5 else ""))
            self.scope[f"p{i}"] = "any"
        uses_caller = r.random() < 0.3
        loops, self.loops = self.loops, 0
        body = self.block(d - 1)
        if uses_caller:
            body += self.out("caller()")
        self.loops = loops
        self.scope = saved
        self.macros.append((name, nparams, uses_caller))
        out = self.tag(f"macro {name}({', '.join(params)})") + body + self.tag("endmacro")
        if uses_caller:
            args = ", ".join(self.expr("any", 1) for _ in range(nparams))
            out += self.tag(f"call {name}({args})") + self.block(d - 1) + self.tag("endcall")
        else:
            out += self.out(self.call_macro(1))
        return out

    def s_filter(self, d):
        r = self.r
        f = r.choice(["upper", "lower", "trim", "indent(2)", "title", "replace('a', 'b')", "e", "capitalize", "center(20)",
                      "tojson", "length", "list|join(',')", "striptags", "truncate(4)", "wordcount", "reverse", "string"])
        return self.tag("filter " + f) + self.block(d - 1) + self.tag("endfilter")

    def template(self):
        r = self.r
        depth = r.choice([1, 2, 2, 2, 3])
        if r.random() < 0.15:
            self.ws_mode = True
            t = self.block(depth, r.randint(3, 8))
            return t
        t = self.block(depth, r.randint(1, 4))
        if r.random() < 0.04:
            t = self.mutate(t)
        return t

    def mutate(self, t):
        """a small syntax mutation: where the templates jinja2 refuses are"""
        r = self.r
        if not t:
            return t
        i = r.randrange(len(t))
        k = r.random()
        if k < 0.4:
            return t[:i] + t[i + 1:]
        if k < 0.8:
            return t[:i] + r.choice(["{", "}", "%", "(", ")", "'", "|", ".", ",", "-", " if", " else", "=", "[", "]", "*", "~", "#"]) + t[i:]
        j = r.randrange(len(t))
        return t[:min(i, j)] + t[max(i, j):]


def gen_case(r):
    vars_ = rnd_vars(r)
    msgs = rnd_messages(r)
    tools = rnd_tools(r)
    g = Gen(r, vars_, msgs, tools)
    tmpl = g.template()
    return {"template": tmpl, "vars": json.dumps(vars_, ensure_ascii=False), "msgs": json.dumps(msgs, ensure_ascii=False),
            "tools": json.dumps(tools, ensure_ascii=False) if tools is not None else None}


# ---------------------------------------------------------------------------------------------
# evaluation and minimization
# ---------------------------------------------------------------------------------------------
def evaluate(drv, case):
    py = oracle(case["template"], case["vars"], case["msgs"], case["tools"])
    xl = drv.run(case["template"], case["vars"], case["msgs"], case["tools"])
    if drv.last_stderr:
        xl = list(xl) + [drv.last_stderr[-3000:]]
    return py, xl, classify(py, xl, drv.last_stderr)


TOKEN_RE = re.compile(r"\{%[-+]?|[-+]?%\}|\{\{-?|-?\}\}|\{#-?|-?#\}|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|\w+|\s+|.", re.S)


def ddmin_seq(items, keeps, join):
    """greedy chunk deletion over a list: the smallest sublist (1-minimal for single items) keeps() holds for"""
    n = max(1, len(items) // 2)
    while True:
        i = 0
        changed = False
        while i < len(items):
            cand = items[:i] + items[i + n:]
            if cand != items and keeps(join(cand)):
                items = cand
                changed = True
            else:
                i += n
        if n == 1 and not changed:
            return items
        if n > 1:
            n = max(1, n // 2)


def prune_json(value, keeps):
    """remove list items and dict keys, simplify strings, while keeps(value) holds"""
    def paths(v, p=()):
        if isinstance(v, dict):
            for k in list(v):
                yield p + (k,)
                yield from paths(v[k], p + (k,))
        elif isinstance(v, list):
            for i in range(len(v)):
                yield p + (i,)
                yield from paths(v[i], p + (i,))

    def without(v, path):
        v = json.loads(json.dumps(v))
        cur = v
        for k in path[:-1]:
            cur = cur[k]
        del cur[path[-1]]
        return v

    def replaced(v, path, new):
        v = json.loads(json.dumps(v))
        cur = v
        for k in path[:-1]:
            cur = cur[k]
        cur[path[-1]] = new
        return v

    changed = True
    while changed:
        changed = False
        for path in list(paths(value)):
            try:
                cand = without(value, path)
            except (KeyError, IndexError, TypeError):
                continue
            if keeps(cand):
                value = cand
                changed = True
                break
        if changed:
            continue
        for path in list(paths(value)):
            try:
                cur = value
                for k in path:
                    cur = cur[k]
            except (KeyError, IndexError, TypeError):
                continue
            if isinstance(cur, str) and len(cur) > 1:
                for new in ("", cur[:len(cur) // 2], cur[len(cur) // 2:], cur[1:], cur[:-1]):
                    if keeps(replaced(value, path, new)):
                        value = replaced(value, path, new)
                        changed = True
                        break
                if changed:
                    break
    return value


TAG_RE = re.compile(r"\{%[-+]?\s*(\w*)(?:[^%]|%(?!\}))*?[-+]?%\}|\{\{(?:[^}]|\}(?!\}))*\}\}|\{#.*?#\}", re.S)
BLOCK_END = {"if": "endif", "for": "endfor", "macro": "endmacro", "call": "endcall", "filter": "endfilter",
             "raw": "endraw", "with": "endwith", "generation": "endgeneration", "set": "endset"}
BLOCK_MID = {"elif", "else"}


def tag_candidates(t):
    """structural deletions: a whole block, a block's tags around its body, a branch, one tag, one output"""
    tags = [(m.start(), m.end(), m.group(1) if m.group(0).startswith("{%") else "") for m in TAG_RE.finditer(t)]
    cands = []
    stack = []
    for idx, (a, b, name) in enumerate(tags):
        if name in BLOCK_END and not (name == "set" and "=" in t[a:b]):
            stack.append((idx, name, []))
        elif name in BLOCK_MID and stack:
            stack[-1][2].append(idx)
        elif stack and name == BLOCK_END.get(stack[-1][1]):
            o, oname, mids = stack.pop()
            oa, ob = tags[o][0], tags[o][1]
            cands.append(t[:oa] + t[b:])                                          # the whole block
            inner = t[ob:a]
            if not mids:
                cands.append(t[:oa] + inner + t[b:])                              # unwrap
            else:
                first = tags[mids[0]]
                cands.append(t[:oa] + t[ob:first[0]] + t[b:])                      # keep the first branch's body
                mtext = t[first[0]:first[1]]
                if first[2] == "elif":                                             # drop the if branch: elif -> if
                    cands.append(t[:oa] + mtext.replace("elif", "if", 1) + t[first[1]:])
                else:                                                              # keep the else body alone
                    cands.append(t[:oa] + t[first[1]:a] + t[b:])
                for k, mi in enumerate(mids):                                      # drop one elif/else branch
                    end = tags[mids[k + 1]][0] if k + 1 < len(mids) else a
                    cands.append(t[:tags[mi][0]] + t[end:])
    for a, b, name in tags:
        if name not in BLOCK_END and name not in BLOCK_MID and not name.startswith("end"):
            cands.append(t[:a] + t[b:])                                           # one tag or output
    # text between tags
    prev = 0
    for a, b, _ in tags + [(len(t), len(t), "")]:
        if a > prev:
            cands.append(t[:prev] + t[a:])
        prev = b
    seen = set()
    out = []
    for c in sorted(cands, key=len):
        if c != t and c not in seen:
            seen.add(c)
            out.append(c)
    return out


SIMPLER = ["1", "0", "'a'", "''", "x", "none", "[]", "true"]


def expr_candidates(t):
    """parenthesized subexpressions replaced by their content, and atoms by simpler ones"""
    out = []
    for m in re.finditer(r"\(([^()]*)\)", t):
        if m.start() > 0 and (t[m.start() - 1].isalnum() or t[m.start() - 1] in "_."):
            continue  # a call's arguments
        out.append(t[:m.start()] + m.group(1) + t[m.end():])
    for m in re.finditer(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", t):
        if len(m.group(0)) > 3:
            out.append(t[:m.start()] + "'a'" + t[m.end():])
    return out


def minimize(drv, case, cls, key, budget=3000):
    """shrinks a divergent case while classify() gives the same (class, key)"""
    count = [0]

    def same(c):
        if count[0] >= budget:
            return False
        count[0] += 1
        return classify(oracle(c["template"], c["vars"], c["msgs"], c["tools"]),
                        drv.run(c["template"], c["vars"], c["msgs"], c["tools"], timeout=15), drv.last_stderr) == (cls, key)

    case = dict(case)

    def keeps_t(t):
        return same(dict(case, template=t))

    def greedy(cands_fn):
        progress = True
        while progress:
            progress = False
            for c in cands_fn(case["template"]):
                if keeps_t(c):
                    case["template"] = c
                    progress = True
                    break

    # variables, messages and tools the template does not name go first, all at once
    v = json.loads(case["vars"])
    fewer = {k: x for k, x in v.items() if re.search(r"\b" + re.escape(k) + r"\b", case["template"])}
    if fewer != v and same(dict(case, vars=json.dumps(fewer, ensure_ascii=False))):
        case["vars"] = json.dumps(fewer, ensure_ascii=False)
    if case["msgs"] != "[]" and same(dict(case, msgs="[]")):
        case["msgs"] = "[]"
    if case["tools"] is not None and same(dict(case, tools=None)):
        case["tools"] = None
    for _ in range(4):
        before = (case["template"], case["vars"], case["msgs"], case["tools"])
        greedy(tag_candidates)
        toks = TOKEN_RE.findall(case["template"])
        case["template"] = "".join(ddmin_seq(toks, keeps_t, "".join))
        greedy(expr_candidates)
        greedy(tag_candidates)
        v = prune_json(json.loads(case["vars"]), lambda v: same(dict(case, vars=json.dumps(v, ensure_ascii=False))))
        case["vars"] = json.dumps(v, ensure_ascii=False)
        m = prune_json(json.loads(case["msgs"]), lambda m: same(dict(case, msgs=json.dumps(m, ensure_ascii=False))))
        case["msgs"] = json.dumps(m, ensure_ascii=False)
        if case["tools"] is not None:
            if same(dict(case, tools=None)):
                case["tools"] = None
            else:
                tl = prune_json(json.loads(case["tools"]), lambda t: same(dict(case, tools=json.dumps(t, ensure_ascii=False))))
                case["tools"] = json.dumps(tl, ensure_ascii=False)
        if (case["template"], case["vars"], case["msgs"], case["tools"]) == before:
            break
    case["template"] = "".join(ddmin_seq(list(case["template"]), keeps_t, "".join))
    return case, count[0]


# ---------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------
def run(args):
    os.makedirs(args.out, exist_ok=True)
    findings_path = os.path.join(args.out, "findings.jsonl")
    stats_path = os.path.join(args.out, f"stats_seed{args.seed}.json")
    seen = set()
    per_sig = collections.Counter()
    if os.path.exists(findings_path):
        for line in open(findings_path, encoding="utf-8"):
            f = json.loads(line)
            if "min" in f:
                seen.add((f["class"], f["min"]["template"]))
                per_sig[f["sig"]] += 1
                per_sig[f.get("min_sig", "")] += 1
    r = random.Random(args.seed)
    drv = Driver(args.exe)
    counts = collections.Counter()
    minimized = collections.Counter()
    per_key = collections.Counter()
    t0 = time.time()
    done = 0
    fout = open(findings_path, "a", encoding="utf-8")
    while done < args.cases:
        for _ in range(min(args.batch, args.cases - done)):
            case = gen_case(r)
            py, xl, (cls, key) = evaluate(drv, case)
            counts[cls if cls != "agree" else ("agree_text" if py[0] == "ok" else "agree_error")] += 1
            done += 1
            if cls in ("agree", "SKIP"):
                continue
            # bound the minimization work for a divergence already seen often
            sig = signature(py, xl, cls, key)
            per_key[sig] += 1
            if per_sig[sig] >= args.max_per_key:
                continue
            per_sig[sig] += 1
            crash_err = xl[1] if xl[0] == "crash" else ""
            drv.fresh = cls == "UB"
            mcase, nrun = minimize(drv, case, cls, key)
            mpy, mxl, mcls = evaluate(drv, mcase)
            drv.fresh = False
            msig = signature(mpy, mxl, cls, key) if mcls[0] == cls else sig
            per_sig[msig] += 1
            minimized[cls] += 1
            ident = (cls, mcase["template"])
            if ident in seen:
                continue
            seen.add(ident)
            rec = {"class": cls, "key": key, "sig": sig, "min_sig": msig, "seed": args.seed, "index": done - 1, "orig": case, "min": mcase,
                   "py": list(mpy), "xl": list(mxl) if mxl[0] != "crash" else ["crash", mxl[1][-4000:]],
                   "orig_crash": crash_err[-4000:], "steps": nrun}
            fout.write(json.dumps(rec, ensure_ascii=False) + "\n")
            fout.flush()
            print(f"[{done}] {cls}: {mcase['template']!r} py={mpy[:3]!r:.200} xl={list(mxl)[:3]!r:.200}", flush=True)
        leak = drv.close()
        if leak:
            counts["LEAK"] += 1
            rec = {"class": "LEAK", "key": "", "seed": args.seed, "index": done - 1, "stderr": leak[-6000:]}
            fout.write(json.dumps(rec, ensure_ascii=False) + "\n")
            fout.flush()
            print(f"[{done}] LEAK/driver stderr after batch: {leak[-500:]}", flush=True)
        el = time.time() - t0
        print(f"seed {args.seed}: {done} cases, {el:.0f}s, {dict(counts)}", flush=True)
        with open(stats_path, "w") as f:
            json.dump({"seed": args.seed, "cases": done, "seconds": el, "counts": dict(counts),
                       "minimized": dict(minimized), "signatures": dict(per_key)}, f, indent=1)
    fout.close()


def show(args):
    case = {"template": args.show, "vars": args.vars, "msgs": args.msgs, "tools": args.tools}
    drv = Driver(args.exe)
    py, xl, cls = evaluate(drv, case)
    drv.close()
    print("jinja2:", repr(py))
    print("xlarun:", repr(xl))
    print("class: ", cls)


# ---------------------------------------------------------------------------------------------
# the report
# ---------------------------------------------------------------------------------------------
def fmt_side(res):
    if (res[0] == "ok" and len(res) > 2) or (res[0] == "err" and len(res) > 3):
        return f"{tuple(res[:-1])!r}, and the sanitizer said:\n```\n{res[-1][-1500:]}\n```"
    if res[0] == "ok":
        return "renders " + repr(res[1])
    if res[0] == "crash":
        return "CRASH:\n```\n" + res[1][-2500:] + "\n```"
    if res[0] == "hang":
        return "HANG"
    return f"raises {res[1]}: {res[2]!r}"


def report(args):
    recs = [json.loads(line) for line in open(os.path.join(args.report, "findings.jsonl"), encoding="utf-8")]
    stats = []
    for fn in sorted(os.listdir(args.report)):
        if fn.startswith("stats_seed"):
            stats.append(json.load(open(os.path.join(args.report, fn))))
    tot = collections.Counter()
    ncases = 0
    for s in stats:
        tot.update(s["counts"])
        ncases += s["cases"]
    out = ["# xlarun Jinja vs jinja2 (transformers 5.24.0 environment): differential fuzz report", ""]
    out.append(f"{ncases} cases over seeds {', '.join(str(s['seed']) for s in stats)}; per class: "
               + ", ".join(f"{k} {v}" for k, v in sorted(tot.items())))
    out.append("")
    order = ["CRASH", "UB", "HANG", "MISMATCH", "LEAK", "SILENT", "XLARUN_ONLY", "REFUSED"]
    for cls in order:
        rs = [x for x in recs if x["class"] == cls]
        if not rs:
            continue
        out.append(f"## {cls} ({len(rs)} distinct minimized)")
        out.append("")
        if cls == "REFUSED":
            groups = collections.defaultdict(list)
            for x in rs:
                groups[x["key"]].append(x)
            for k in sorted(groups, key=lambda k: -len(groups[k])):
                out.append(f"### xlarun: {k}")
                for x in sorted(groups[k], key=lambda x: len(x["min"]["template"]))[:3]:
                    out += fmt_rec(x)
                out.append("")
            continue
        for x in sorted(rs, key=lambda x: len(x.get("min", {}).get("template", ""))):
            if cls == "LEAK":
                out.append("```\n" + x["stderr"][-3000:] + "\n```")
                continue
            out += fmt_rec(x)
        out.append("")
    text = "\n".join(out)
    path = args.report_md
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(text)


def fmt_rec(x):
    m = x["min"]
    lines = [f"- template `{m['template']!r}`"]
    if m["vars"] not in ("{}",):
        lines.append(f"  vars `{m['vars']}`")
    if m["msgs"] != "[]":
        lines.append(f"  messages `{m['msgs']}`")
    if m["tools"] is not None:
        lines.append(f"  tools `{m['tools']}`")
    lines.append(f"  - jinja2: {fmt_side(x['py'])}")
    lines.append(f"  - xlarun: {fmt_side(x['xl'])}")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=1000, help="cases a driver process")
    ap.add_argument("--exe", default="/tmp/jinja_diff")
    ap.add_argument("--out", default="/tmp/jinja_diff_out")
    ap.add_argument("--max-per-key", type=int, default=3, help="minimize at most this many cases of one REFUSED message")
    ap.add_argument("--show", help="one template: print both sides")
    ap.add_argument("--vars", default="{}")
    ap.add_argument("--msgs", default="[]")
    ap.add_argument("--tools", default=None)
    ap.add_argument("--gen", type=int, help="print this many generated templates and stop")
    ap.add_argument("--report", help="findings folder: write the markdown report")
    ap.add_argument("--report-md", default="/tmp/jinja_diff_report.md")
    args = ap.parse_args()
    if args.report:
        return report(args)
    if args.show is not None:
        return show(args)
    if args.gen:
        r = random.Random(args.seed)
        for _ in range(args.gen):
            c = gen_case(r)
            print(repr(c["template"]))
        return
    run(args)


if __name__ == "__main__":
    main()
