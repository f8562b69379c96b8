#!/usr/bin/env python3
"""Print the Unicode tables of xlarun.h's tokenizer layer (layer 6): the character classes of the
pre-tokenizers and the canonical normalization data of the NFC normalizer.

usage: python3 tools/make_unicode.py           print both C tables to stdout
       python3 tools/make_unicode.py --check   exit 1 unless xlarun.h holds exactly these tables

Each table is pasted into xlarun.h between its marker lines, "/* unicode table begin */" ..
"/* unicode table end */" and "/* nfc tables begin */" .. "/* nfc tables end */" (by hand or an
editor: this script never writes the header).

Classes, one per code point (the pre-tokenizers of SPEC.md section 4 need nothing else):
  LU  letters Lu Lt (the o200k pattern's upper set)   ND  decimal digits Nd
  LL  letters Ll (its lower set)                      LO  letters Lm Lo (in both of its sets)
      (\\p{L} is LU, LL and LO)
  NL  letter numbers Nl (\\p{N}, and \\w)             NO  other numbers No (\\p{N}, not \\w)
  WS  White_Space (Oniguruma's and Rust's \\s)        M   marks Mn Mc Me (\\w, not \\p{L})
  W   the rest of Rust regex \\w: Pc, Join_Control, Other_Alphabetic symbols
  OTHER everything else
The table comes from Python's unicodedata (Unicode 14.0.0 in Python 3.11), the same Unicode
version as the Oniguruma 6.9.8 inside tokenizers 0.20.3. White_Space and the Other_Alphabetic
symbols are not in unicodedata; they are listed here from PropList.txt (stable since 6.3).
Each entry is (first code point << 4) | class; a class holds up to the next entry's start.

NFC tables: tokenizers 0.20.3 normalizes with the Rust crate unicode-normalization-alignments
0.1.12 (its Cargo.lock), whose tables are Unicode 9.0.0 (its src/tables.rs: UNICODE_VERSION =
(9, 0, 0)). Tested, not assumed: tools/make_tokenizer_fixtures.py checks that its NFC equals
Python 3.6's unicodedata.normalize (Unicode 9.0.0) on the 18,750 strings of
tests/fixtures/tokenizers/nfc.txt (every code point with a combining class or a canonical
decomposition in Unicode 14.0, alone and next to marks and jamo, and Hangul); Python 3.11's
(14.0.0) differs on 175 of them. So these tables are Unicode 9.0's: Python 3.11's data without
NEW_SINCE_9, the 99 code points assigned in Unicode 10.0-14.0 that have a combining class or a
canonical decomposition (to Unicode 9.0 and to tokenizers 0.20.3 they are unassigned: class 0, no
decomposition, they compose with nothing). For the rest the normalization stability policy keeps
class, decomposition and composition exclusion unchanged from 9.0 to 14.0; the script checks that
against a Python whose unicodedata is 9.0.0 when it finds one (XLARUN_PYTHON_UNICODE9,
python3.6, or pyenv's 3.6), and says so when it does not.
  xlarun__ccc_ranges  (first code point << 8) | canonical combining class, up to the next entry
  xlarun__decomp      (code point << 42) | (first << 21) | second: each canonical decomposition
                      (one level; second 0 for a singleton), by code point. Hangul syllables are
                      not listed: they decompose by arithmetic (Unicode 3.12).
  xlarun__comp        indices into xlarun__decomp of the primary composites (two code points, not
                      excluded from composition), by (first, second)
  XLARUN__NFC_GROWTH  the most UTF-8 bytes NFC makes of one input byte (3: U+1D160 is 4 bytes and
                      NFC keeps its 3-code-point decomposition, 12 bytes)
The script checks the assumptions the C code makes (a second code point never decomposes, one
decomposition is at most 4 code points found in at most 4 lookups, at most 1.5 code points per
UTF-8 byte, composition never makes more bytes, composites are starters) and runs a model of the C algorithm against
unicodedata.normalize on every listed code point in context.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import unicodedata

CLASSES = ["OTHER", "LU", "ND", "NL", "NO", "WS", "M", "W", "LL", "LO"]

WHITE_SPACE = [(0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
               (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F),
               (0x3000, 0x3000)]
# Other_Alphabetic code points whose category is So (circled and squared Latin letters)
OTHER_ALPHA_SO = [(0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189)]
JOIN_CONTROL = [(0x200C, 0x200D)]
# Code points assigned in Unicode 10.0-14.0 that have a canonical combining class or a canonical
# decomposition in 14.0 (99 in all). Unicode 9.0, and so tokenizers 0.20.3's NFC, has them
# unassigned. Listed from Python 3.6's unicodedata (9.0.0) against Python 3.11's (14.0.0).
NEW_SINCE_9 = [(0x07FD, 0x07FD), (0x0898, 0x089F), (0x08CA, 0x08D3), (0x09FE, 0x09FE), (0x0C3C, 0x0C3C),
               (0x0D3B, 0x0D3C), (0x0EBA, 0x0EBA), (0x1715, 0x1715), (0x1ABF, 0x1ACE), (0x1DF6, 0x1DFA),
               (0xA82C, 0xA82C), (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50),
               (0x10F82, 0x10F85), (0x11070, 0x11070), (0x1133B, 0x1133B), (0x1145E, 0x1145E),
               (0x11839, 0x1183A), (0x11938, 0x11938), (0x1193D, 0x1193E), (0x11943, 0x11943),
               (0x119E0, 0x119E0), (0x11A34, 0x11A34), (0x11A47, 0x11A47), (0x11A99, 0x11A99),
               (0x11D42, 0x11D42), (0x11D44, 0x11D45), (0x11D97, 0x11D97), (0x16FF0, 0x16FF1),
               (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF)]


def in_ranges(cp, ranges):
    return any(a <= cp <= b for a, b in ranges)


def klass(cp):
    if in_ranges(cp, WHITE_SPACE):
        return "WS"
    cat = unicodedata.category(chr(cp))
    if cat in ("Lu", "Lt"):
        return "LU"
    if cat == "Ll":
        return "LL"
    if cat in ("Lm", "Lo"):
        return "LO"
    if cat == "Nd":
        return "ND"
    if cat == "Nl":
        return "NL"
    if cat == "No":
        return "NO"
    if cat[0] == "M":
        return "M"
    if cat == "Pc" or in_ranges(cp, JOIN_CONTROL) or in_ranges(cp, OTHER_ALPHA_SO):
        return "W"
    return "OTHER"


def table():
    assert unicodedata.unidata_version == "14.0.0", unicodedata.unidata_version
    # cross-check the hand list: White_Space is str.isspace() minus the C0 separators 1C..1F
    for cp in range(0x110000):
        if chr(cp).isspace() != (in_ranges(cp, WHITE_SPACE) or 0x1C <= cp <= 0x1F):
            raise SystemExit("White_Space list disagrees with isspace at U+%04X" % cp)
    entries, prev = [], None
    for cp in range(0x110000):
        k = klass(cp)
        if k != prev:
            entries.append((cp, k))
            prev = k
    return entries


def render_list(out, decl, vals):
    out.append(decl)
    line = "   "
    for v in vals:
        if len(line) + len(v) + 2 > 100:
            out.append(line)
            line = "   "
        line += " " + v + ","
    out.append(line)
    out.append("};")


def render(entries):
    out = ["/* unicode table begin */",
           "/* generated by tools/make_unicode.py from Unicode %s: %d ranges, (start << 4) | class */"
           % (unicodedata.unidata_version, len(entries))]
    render_list(out, "static const uint32_t xlarun__uni_ranges[%d] = {" % len(entries),
                ["0x%x" % ((cp << 4) | CLASSES.index(k)) for cp, k in entries])
    out.append("/* unicode table end */")
    return "\n".join(out) + "\n"


# ---- NFC -------------------------------------------------------------------------------------

S_BASE, L_BASE, V_BASE, T_BASE, L_COUNT, V_COUNT, T_COUNT = 0xAC00, 0x1100, 0x1161, 0x11A7, 19, 21, 28
S_COUNT = L_COUNT * V_COUNT * T_COUNT


def assigned_with_props():
    """every code point (no surrogates) that has a combining class or a canonical decomposition
    in this Python's unicodedata, with both: {cp: (ccc, [decomposition])}"""
    out = {}
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        d = unicodedata.decomposition(c)
        dec = [] if not d or d.startswith("<") else [int(x, 16) for x in d.split()]
        if unicodedata.combining(c) or dec:
            out[cp] = (unicodedata.combining(c), dec)
    return out


UNICODE9_SNIPPET = """
import json, sys, unicodedata
out = {}
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF: continue
    c = chr(cp); d = unicodedata.decomposition(c)
    dec = [] if not d or d.startswith('<') else [int(x, 16) for x in d.split()]
    if unicodedata.combining(c) or dec: out[cp] = (unicodedata.combining(c), dec)
strs = json.loads(sys.stdin.read())
json.dump({"version": unicodedata.unidata_version, "props": out,
           "nfc": [unicodedata.normalize("NFC", s) for s in strs]}, sys.stdout)
"""


def python_unicode9():
    """the path of a Python whose unicodedata is Unicode 9.0.0 (Python 3.6), or None"""
    cands = [os.environ.get("XLARUN_PYTHON_UNICODE9"), shutil.which("python3.6")]
    cands += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.6*/bin/python3")))
    for c in cands:
        if not c:
            continue
        try:
            v = subprocess.run([c, "-c", "import unicodedata; print(unicodedata.unidata_version)"],
                               capture_output=True, text=True, timeout=60).stdout.strip()
        except OSError:
            continue
        if v == "9.0.0":
            return c
    return None


def unicode9(strs):
    """(props, NFC of each string) from a Unicode 9.0.0 Python, or None when there is none"""
    py = python_unicode9()
    if not py:
        return None
    r = subprocess.run([py, "-c", UNICODE9_SNIPPET], input=json.dumps(strs), capture_output=True, text=True,
                       check=True)
    j = json.loads(r.stdout)
    assert j["version"] == "9.0.0"
    return {int(k): (v[0], v[1]) for k, v in j["props"].items()}, j["nfc"]


def nfc_data():
    """Unicode 9.0's canonical normalization data: (ccc, decompositions, composites)"""
    props = {cp: p for cp, p in assigned_with_props().items() if not in_ranges(cp, NEW_SINCE_9)}
    assert len(assigned_with_props()) - len(props) == 99
    ccc = {cp: p[0] for cp, p in props.items() if p[0]}
    dec = {cp: p[1] for cp, p in props.items() if p[1]}
    # a primary composite: two code points, not excluded (then NFC leaves it alone)
    comp = {cp: d for cp, d in dec.items() if len(d) == 2 and unicodedata.normalize("NFC", chr(cp)) == chr(cp)}
    return ccc, dec, comp


def full_decomposition(dec, cp):
    if S_BASE <= cp < S_BASE + S_COUNT:
        s = cp - S_BASE
        out = [L_BASE + s // (V_COUNT * T_COUNT), V_BASE + s % (V_COUNT * T_COUNT) // T_COUNT]
        return out + ([T_BASE + s % T_COUNT] if s % T_COUNT else [])
    d = dec.get(cp)
    return full_decomposition(dec, d[0]) + d[1:] if d else [cp]


def u8len(cp):
    return len(chr(cp).encode("utf-8"))


def nfc_model(ccc, dec, comp, s):
    """the C code's algorithm: decompose, order marks by class (stable), compose in place"""
    pairs = {tuple(d): cp for cp, d in comp.items()}
    cps = [x for c in s for x in full_decomposition(dec, ord(c))]
    i = 0
    while i < len(cps):   # each run of non-starters, stably by class
        j = i
        while j < len(cps) and ccc.get(cps[j], 0):
            j += 1
        cps[i:j] = sorted(cps[i:j], key=lambda x: ccc[x])
        i = j + 1
    out, starter, last = [], -1, 0
    for c in cps:
        cc = ccc.get(c, 0)
        if starter >= 0 and (len(out) == starter + 1 or 0 < last < cc):
            a, r = out[starter], None
            if L_BASE <= a < L_BASE + L_COUNT and V_BASE <= c < V_BASE + V_COUNT:
                r = S_BASE + ((a - L_BASE) * V_COUNT + c - V_BASE) * T_COUNT
            elif S_BASE <= a < S_BASE + S_COUNT and (a - S_BASE) % T_COUNT == 0 and T_BASE < c < T_BASE + T_COUNT:
                r = a + c - T_BASE
            else:
                r = pairs.get((a, c))
            if r is not None:
                out[starter] = r
                continue
        if cc == 0:
            starter = len(out)
        last = cc
        out.append(c)
    return "".join(chr(c) for c in out)


def nfc_probes(dec, cps):
    """strings around each code point: alone, decomposed (by dec), after a starter and before
    marks of classes 220 and 230, after an LV syllable"""
    out = []
    for cp in cps:
        c = chr(cp)
        out += [c, "".join(chr(x) for x in full_decomposition(dec, cp)), "a" + c + "\u0323", "a" + c + "\u0301",
                c + "\u0323\u0302", "\u1100\u1161" + c]
    return out


def nfc_check(ccc, dec, comp):
    """the assumptions of the C code, and its algorithm against unicodedata"""
    assert all(len(d) in (1, 2) for d in dec.values())
    assert all(d[1] not in dec for d in dec.values() if len(d) == 2), "a second code point decomposes"
    assert all(ccc.get(cp, 0) == 0 and ccc.get(d[0], 0) == 0 for cp, d in comp.items()), "a composite is not a starter"
    assert all(u8len(d[0]) + u8len(d[1]) >= u8len(cp) for cp, d in comp.items()), "a composition makes more bytes"
    assert max(len(full_decomposition(dec, cp)) for cp in dec) <= 4
    def steps(cp):   # table lookups that find a decomposition, following the first code point
        return 1 + steps(dec[cp][0]) if cp in dec else 0
    assert max(steps(cp) for cp in dec) <= 4 and max(len(d) - 1 for d in dec.values()) <= 1
    hangul = [S_BASE, S_BASE + 1, S_BASE + S_COUNT - 1]
    growth = max(sum(u8len(x) for x in full_decomposition(dec, cp)) / u8len(cp) for cp in list(dec) + hangul)
    per_byte = max(len(full_decomposition(dec, cp)) / u8len(cp) for cp in list(dec) + hangul)
    assert growth == 3 and per_byte == 1.5, (growth, per_byte)
    assert max(comp) < 0x200000 and len(dec) < 65536
    props14 = assigned_with_props()
    probes = nfc_probes(dec, sorted(props14) + list(range(S_BASE, S_BASE + S_COUNT, 97)))
    new = [s for s in probes if any(in_ranges(ord(c), NEW_SINCE_9) for c in s)]
    old = [s for s in probes if not any(in_ranges(ord(c), NEW_SINCE_9) for c in s)]
    for s in old:   # Unicode 14.0 and 9.0 agree on these
        if nfc_model(ccc, dec, comp, s) != unicodedata.normalize("NFC", s):
            raise SystemExit("the NFC model differs from unicodedata on %r" % s)
    u9 = unicode9(probes)
    if u9 is None:
        sys.stderr.write("make_unicode.py: no Python with Unicode 9.0.0 (XLARUN_PYTHON_UNICODE9, python3.6): "
                         "NEW_SINCE_9 and %d probes with those code points not cross-checked\n" % len(new))
        return
    props9, nfc9 = u9
    if props9 != {cp: p for cp, p in props14.items() if not in_ranges(cp, NEW_SINCE_9)}:
        raise SystemExit("NEW_SINCE_9 does not make Python 3.11's data equal Unicode 9.0.0's")
    for s, want in zip(probes, nfc9):
        if nfc_model(ccc, dec, comp, s) != want:
            raise SystemExit("the NFC model differs from Unicode 9.0.0's NFC on %r" % s)


def render_nfc(ccc, dec, comp):
    ranges, prev = [], None
    for cp in range(0x110000):
        v = ccc.get(cp, 0)
        if v != prev:
            ranges.append((cp, v))
            prev = v
    keys = sorted(dec)
    index = {cp: i for i, cp in enumerate(keys)}
    pairs = sorted(comp, key=lambda cp: (comp[cp][0], comp[cp][1]))
    out = ["/* nfc tables begin */",
           "/* generated by tools/make_unicode.py: canonical normalization of Unicode 9.0.0 (as tokenizers 0.20.3),",
           "   Python's Unicode %s data without the %d code points assigned since 9.0 that have a class or",
           "   a decomposition. %d class ranges, %d decompositions, %d composites */"]
    out[2] = out[2] % (unicodedata.unidata_version, 99)
    out[3] = out[3] % (len(ranges), len(dec), len(comp))
    out.append("#define XLARUN__NFC_GROWTH 3 /* UTF-8 bytes of output per byte of input, at most (U+1D160) */")
    render_list(out, "static const uint32_t xlarun__ccc_ranges[%d] = {" % len(ranges),
                ["0x%x" % ((cp << 8) | v) for cp, v in ranges])
    render_list(out, "static const uint64_t xlarun__decomp[%d] = {" % len(dec),
                ["0x%x" % ((cp << 42) | (dec[cp][0] << 21) | (dec[cp][1] if len(dec[cp]) > 1 else 0)) for cp in keys])
    render_list(out, "static const uint16_t xlarun__comp[%d] = {" % len(comp), ["%d" % index[cp] for cp in pairs])
    out.append("/* nfc tables end */")
    return "\n".join(out) + "\n"


def nfc_tables():
    ccc, dec, comp = nfc_data()
    nfc_check(ccc, dec, comp)
    return render_nfc(ccc, dec, comp)


# ---- case tables: Python 3.11's str.upper, lower, title, capitalize, swapcase, casefold, isupper,
# islower, istitle, for the chat layer's Jinja interpreter. Read off the str methods themselves
# (CPython's _PyUnicode_ToUpperFull and friends, the CASED and CASE_IGNORABLE flags of its database),
# one code point at a time: Python keeps no other handle on Cased and Case_Ignorable, so they are
# probed through the two places it uses them, str.title (a letter after a cased one is lowered) and
# the final sigma of str.lower.

CASE_OPS = ("upper", "lower", "title", "casefold")
SIGMA, FINAL = "\u03a3", "\u03c2"


def case_cps():
    return [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]


def case_cased(ch):
    return (ch + "a").title()[-1] == "a"


def case_ignorable(ch):
    if case_cased(ch):  # a cased letter after the sigma ends the final context unless it is skipped
        return ("A" + SIGMA + ch).lower()[1] == FINAL
    return ("A" + ch + SIGMA).lower()[-1] == FINAL


def case_kind(ch):  # 0 uncased, 1 lower, 2 upper, 3 title (str.islower / isupper / istitle of one)
    return 2 if ch.isupper() else 1 if ch.islower() else 3 if ch.istitle() else 0


def case_data():
    """(simple deltas per code point, full mappings, kinds, case-ignorable set), checked for the
    assumptions the C code makes"""
    simple, full, kind, ign = {}, {}, {}, set()
    for cp in case_cps():
        ch = chr(cp)
        res = [getattr(ch, op)() for op in CASE_OPS]
        d = tuple(ord(r) - cp if len(r) == 1 else 0 for r in res)
        if any(d):
            simple[cp] = d
        if any(len(r) > 1 for r in res):
            full[cp] = [[ord(x) for x in r] if len(r) > 1 else [] for r in res]
        kind[cp] = case_kind(ch)
        if case_ignorable(ch):
            ign.add(cp)
        cat = unicodedata.category(ch)
        if (kind[cp] == 3) != (cat == "Lt"):  # a letter with two of the flags would read as title here
            raise SystemExit("U+%04X: str.istitle() alone and category %s disagree" % (cp, cat))
        if (kind[cp] != 0) != case_cased(ch):
            raise SystemExit("U+%04X: cased, but neither upper, lower nor title" % cp)
    return simple, full, kind, ign


def case_predict(cp, simple, full):  # the kind its mappings suggest: lower if it has an upper case, ...
    def changed(k):
        return bool(full.get(cp, [[]] * 4)[k]) or simple.get(cp, (0, 0, 0, 0))[k] != 0
    u, l = changed(0), changed(1)
    return 3 if u and l else 2 if l else 1 if u else 0


def case_tables():
    simple, full, kind, ign = case_data()
    # simple deltas: runs of code points whose even and odd members have one delta tuple each
    zero = (0, 0, 0, 0)
    top = max(simple) + 1
    runs, cp = [], min(simple)
    while cp < top:
        a, b = simple.get(cp, zero), simple.get(cp + 1, zero)
        if a == zero:
            cp += 1
            continue
        n = 1
        while cp + n < top and n < 256 and simple.get(cp + n, zero) == (a if n % 2 == 0 else b):
            n += 1
        if n == 2 and a != b:  # a pair of two tuples: two entries of one
            n = 1
        if all(simple.get(cp + i, zero) == a for i in range(n)):
            b = a
        runs.append((cp, n, a, b))
        cp += n
    palette = sorted(set(t for r in runs for t in r[2:]))
    if len(palette) > 255:
        raise SystemExit("more than 255 delta tuples")
    pal = {t: i for i, t in enumerate(palette)}
    # kinds: ranges where the mappings' guess is wrong (4: as the mappings say)
    kinds, prev = [], None
    for cp in range(0x110000):
        v = kind.get(cp, 0)
        v = 4 if v == case_predict(cp, simple, full) else v
        if v != prev:
            kinds.append((cp, v))
            prev = v
    bounds, inside = [], False
    for cp in range(0x110001):
        if (cp in ign) != inside:
            bounds.append(cp)
            inside = not inside
    case_check(simple, full, kind, ign, runs, pal, kinds, bounds)
    return runs, palette, pal, full, kinds, bounds


def case_model(runs, palette, pal, full, kinds, bounds):
    """The C lookups, in Python: (mapping(cp, k) -> list of code points, kind(cp), ignorable(cp))"""
    import bisect
    starts = [r[0] for r in runs]
    kstarts = [k[0] for k in kinds]

    def simple(cp, k):
        i = bisect.bisect_right(starts, cp) - 1
        if i < 0 or cp - runs[i][0] >= runs[i][1]:
            return cp
        t = runs[i][3] if (cp - runs[i][0]) & 1 else runs[i][2]
        return cp + palette[pal[t]][k]

    def mapping(cp, k):
        f = full.get(cp)
        return f[k] if f and f[k] else [simple(cp, k)]

    def kind(cp):
        v = kinds[bisect.bisect_right(kstarts, cp) - 1][1]
        if v != 4:
            return v
        u, l = mapping(cp, 0) != [cp], mapping(cp, 1) != [cp]
        return 3 if u and l else 2 if l else 1 if u else 0

    def ignorable(cp):
        return bisect.bisect_right(bounds, cp) % 2 == 1
    return mapping, kind, ignorable


def case_check(simple, full, kind, ign, runs, pal, kinds, bounds):
    mapping, kindf, ignf = case_model(runs, sorted(pal, key=pal.get), pal, full, kinds, bounds)
    for cp in case_cps():
        ch = chr(cp)
        for k, op in enumerate(CASE_OPS):
            if "".join(map(chr, mapping(cp, k))) != getattr(ch, op)():
                raise SystemExit("the case model's %s of U+%04X differs from Python's" % (op, cp))
        if kindf(cp) != kind[cp] or ignf(cp) != (cp in ign):
            raise SystemExit("the case model's properties of U+%04X differ from Python's" % cp)


def render_case():
    runs, palette, pal, full, kinds, bounds = case_tables()
    out = ["/* case tables begin */",
           "/* generated by tools/make_unicode.py from Python %d.%d's str methods (Unicode %s): %d runs of simple"
           % (sys.version_info[0], sys.version_info[1], unicodedata.unidata_version, len(runs)),
           "   mappings, %d delta tuples (upper, lower, title, casefold), %d full mappings, %d kind ranges, %d"
           % (len(palette), len(full), len(kinds), len(bounds)),
           "   case-ignorable bounds */"]
    render_list(out, "static const int32_t xlarun__case_delta[%d][4] = {" % len(palette),
                ["{%d, %d, %d, %d}" % t for t in palette])
    render_list(out, "static const uint64_t xlarun__case_runs[%d] = {" % len(runs),
                ["0x%x" % ((cp << 24) | ((n - 1) << 16) | (pal[a] << 8) | pal[b]) for cp, n, a, b in runs])
    rows = []
    for cp in sorted(full):
        cells = ["0x%x" % cp]
        for seq in full[cp]:
            cells += ["0x%x" % x if x else "0" for x in (seq + [0, 0, 0])[:3]]
        rows.append("{" + ", ".join(cells) + "}")
    render_list(out, "static const uint32_t xlarun__case_full[%d][13] = {" % len(full), rows)
    render_list(out, "static const uint32_t xlarun__case_kinds[%d] = {" % len(kinds),
                ["0x%x" % ((cp << 3) | v) for cp, v in kinds])
    render_list(out, "static const uint32_t xlarun__case_ign_bounds[%d] = {" % len(bounds), ["0x%x" % b for b in bounds])
    out.append("/* case tables end */")
    return "\n".join(out) + "\n"


def main():
    blocks = [("unicode table", render(table())), ("nfc tables", nfc_tables()), ("case tables", render_case())]
    if sys.argv[1:] == ["--check"]:
        hdr = open(os.path.join(os.path.dirname(__file__), "..", "xlarun.h"), encoding="utf-8").read()
        bad = 0
        for name, text in blocks:
            a = hdr.find("/* %s begin */" % name)
            b = hdr.find("/* %s end */" % name)
            if a < 0 or b < 0 or hdr[a:b + len("/* %s end */\n" % name)] != text:
                print("xlarun.h: the %s differ%s from tools/make_unicode.py's output" % (name, "" if name.endswith("s") else "s"))
                bad = 1
            else:
                print("xlarun.h: %s up to date" % name)
        return bad
    sys.stdout.write("".join(text for _, text in blocks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
