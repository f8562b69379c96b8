#!/usr/bin/env python3
"""The tokenizer as transformers v5 saves it: tests/fixtures/tokenizers/v5sp/.

usage: python3 tools/make_v5_tokenizer_fixture.py [--out tests/fixtures/tokenizers/v5sp]

transformers v5 rebuilds a Llama 2 / TinyLlama tokenizer when it loads one and writes its own
tokenizer.json back (SPEC.md 4: no normalizer, the Metaspace pre-tokenizer with prepend_scheme
"first"). This script loads the `sp` fixture (made by tools/make_tokenizer_fixtures.py with
tokenizers 0.20.3) with AutoTokenizer, saves it with save_pretrained (tokenizer.json,
tokenizer_config.json, chat_template.jinja, additional_chat_templates/), and records what the
saved file gives through the `tokenizers` version transformers v5 brings, in the expected.txt
format of make_tokenizer_fixtures.py, for the committed corpus.txt.

Pinned: transformers 5.23.0 with tokenizers 0.23.3 (in a virtual environment of their own: the
other fixture scripts pin older versions). The script exits if the versions differ
(XLARUN_FIXTURES_ANY_VERSION=1 downgrades that to a warning). The output is deterministic.
"""
import argparse
import os
import shutil
import sys

import tokenizers
import transformers
from tokenizers import Tokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_tokenizer_fixtures import record  # noqa: E402

PINNED = {"transformers": "5.23.0", "tokenizers": "0.23.3"}
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FIX = os.path.join(ROOT, "tests", "fixtures", "tokenizers")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(FIX, "v5sp"))
    args = ap.parse_args()
    have = {"transformers": transformers.__version__, "tokenizers": tokenizers.__version__}
    if have != PINNED:
        msg = "installed %s, the fixture pins %s" % (have, PINNED)
        if os.environ.get("XLARUN_FIXTURES_ANY_VERSION") != "1":
            raise SystemExit(msg + " (XLARUN_FIXTURES_ANY_VERSION=1 to go on)")
        print("warning: " + msg)
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(os.path.join(FIX, "sp"))
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    tok.save_pretrained(args.out)
    with open(os.path.join(FIX, "corpus.txt")) as f:
        corpus = [bytes.fromhex(line.strip()) for line in f if not line.startswith("#")]
    backend = Tokenizer.from_file(os.path.join(args.out, "tokenizer.json"))
    st = record("v5sp", backend, corpus, args.out, "tools/make_v5_tokenizer_fixture.py (transformers %s)"
                % transformers.__version__)
    print("v5sp (%s): cases %d (valid %d, invalid %d), decode(encode(x)) == x on %d valid, special-as-text "
          "differs on %d" % (type(tok).__name__, st["cases"], st["valid"], st["invalid"], st["roundtrip"],
                             st["special_diff"]))


if __name__ == "__main__":
    main()
