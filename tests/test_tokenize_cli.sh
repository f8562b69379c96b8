#!/bin/sh
# The tokenize CLI contract: ids on one stdout line (BOS as the post-processor adds it unless
# --no-bos), --decode prints the text; errors as one "xlarun: error:" line on stderr, exit 1.
# The expected ids are those tools/make_tokenizer_fixtures.py recorded from `tokenizers`.
# usage: tests/test_tokenize_cli.sh BUILD_DIR
B=${1:-build}
T=tests/fixtures/tokenizers
TOOL=tokenize; ERR=$B/tok.err; LABEL="tokenize cli"; NAME=tokenize
. tests/cli.sh
expect() { # want args...
    want=$1; shift
    got=$("$B/tokenize" "$@" 2>"$B/tok.err"); rc=$?
    if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then ok; else bad "tokenize $*: exit $rc, printed '$got', want '$want' ($(cat "$B/tok.err"))"; fi
}
expect "1440 789 471 1449" -m $T/llama3 "Hello world<|eot_id|>"
expect "789 471 1449" -m $T/llama3 --no-bos "Hello world<|eot_id|>"
expect "789 471 685 68 315 813 693" -m $T/llama3 --no-bos --no-special "Hello world<|eot_id|>"
expect "1 818 840 555" -m $T/sp "Hello world"
expect "818 840 555" -m $T/sp --no-bos "Hello world"
expect "<|begin_of_text|>Hello world<|eot_id|>" -m $T/llama3 --decode 1440,789,471,1449
expect "<s> Hello world" -m $T/sp --decode 1,818,840,555
expect "Hello world" -m $T/sp --decode 818,840,555
printf 'one\ntwo  three\tfour' >"$B/tok.txt"
want=$("$B/tokenize" -m $T/gpt2 "$(printf 'one\ntwo  three\tfour')")
got=$("$B/tokenize" -m $T/gpt2 -f "$B/tok.txt")
if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad "tokenize -f gave '$got', the same text as TEXT gave '$want'"; fi
check_error "no tokenizer folder" "text"
check_error "cannot open" -m /nonexistent "text"
check_error "no text" -m $T/llama3
check_error "needs a value" -m $T/llama3 -f
check_error "unknown option" -m $T/llama3 --bogus x
check_error "cannot read" -m $T/llama3 -f /nonexistent/file
check_error "invalid --decode list" -m $T/llama3 --decode 1,,2
check_error "outside the vocabulary" -m $T/llama3 --decode 1,99999
printf 'ok \377 bad' >"$B/tok.txt"
check_error "invalid UTF-8 at byte offset 3" -m $T/llama3 -f "$B/tok.txt"
finish
