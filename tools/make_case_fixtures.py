#!/usr/bin/env python3
"""Oracle fixture for the Jinja interpreter's case mapping: what Python's str methods give for
every code point whose case is not trivial, as the chat templates reach them (jinja2 calls the str
methods themselves: `|upper` is str.upper, `|lower` str.lower, `is upper` str.isupper).

Developer-time only. Python 3.11 (its unicodedata is Unicode 14.0.0; the script exits otherwise):

    python3 tools/make_case_fixtures.py        # tests/fixtures/jinja/case.txt

One line per code point c, in order, for every c where any of the values below is not the
trivial one (c itself, or False; and 'A' c 'Σ' lowered ends in σ, 'AΣ' c lowered has σ second):

    HEX <tab> upper <tab> lower <tab> title <tab> casefold <tab> swapcase <tab> FLAGS

each mapping as UTF-8, or '=' where it is c itself; FLAGS six digits 0/1: c.isupper(),
c.islower(), c.istitle(), (c + 'a').title() ends in 'a' (c is cased), ('A' + c + 'Σ').lower()
ends in 'ς', ('AΣ' + c).lower() has 'ς' second (these two: the final sigma around c).
tests/test_chat.c renders the same expressions for the listed code points through a template, and
checks that every other code point maps to itself and is neither cased nor case-ignorable.
"""
import os
import sys
import unicodedata

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "fixtures", "jinja", "case.txt")
SIGMA, FINAL = "\u03a3", "\u03c2"


def line(c):
    ch = chr(c)
    maps = [ch.upper(), ch.lower(), ch.title(), ch.casefold(), ch.swapcase()]
    flags = [ch.isupper(), ch.islower(), ch.istitle(), (ch + "a").title()[-1] == "a",
             ("A" + ch + SIGMA).lower()[-1] == FINAL, ("A" + SIGMA + ch).lower()[1] == FINAL]
    if all(m == ch for m in maps) and flags == [False, False, False, False, False, True]:
        return None
    for m in maps:
        if any(ord(x) < 0x20 or x in "\x7f=" for x in m):
            raise SystemExit("U+%04X: a mapping this format cannot hold" % c)
    return "%X\t%s\t%s\n" % (c, "\t".join("=" if m == ch else m for m in maps), "".join("1" if f else "0" for f in flags))


def main():
    if sys.version_info[:2] != (3, 11) or unicodedata.unidata_version != "14.0.0":
        raise SystemExit("needs Python 3.11 (Unicode 14.0.0), not %s (%s)" % (sys.version.split()[0], unicodedata.unidata_version))
    lines = [line(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    lines = [x for x in lines if x]
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write("# Python %s, Unicode %s: %d code points\n" % (sys.version.split()[0], unicodedata.unidata_version, len(lines)))
        f.writelines(lines)
    print("%s: %d code points" % (OUT, len(lines)))


if __name__ == "__main__":
    main()
