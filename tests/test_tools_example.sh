#!/bin/sh
# The tool loop example (examples/tools.c) on tests/fixtures/tooldemo (a tiny Llama trained by
# tools/make_tooldemo.py to call get_weather / get_time in the Hermes format of the Qwen2.5 chat
# template and to answer from the result): each call printed as one JSON line, the C tool's
# result in the next rendered prompt, the trained answer; errors as one "xlarun: error:" line with
# exit status 1; the same runs under valgrind (the scalar build: valgrind 3.19 runs no AVX-512).
# Builds nothing: run.sh builds $B/tools, $B/scalar/tools and $B/gen first.
# usage: tests/test_tools_example.sh BUILD_DIR
B=${1:-build}
T=$(mktemp -d /tmp/xlarun-tools-XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
TOOL=tools; ERR=$T/err; LABEL=tools; NAME=tools
. tests/cli.sh
demo=tests/fixtures/tooldemo
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"

# RUNNER BINARY want-stdout args...: exit 0 and exactly that stdout
expect() {
    runner=$1; bin=$2; want=$3; shift 3
    got=$($runner "$bin" "$@" 2>"$T/err"); rc=$?
    if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then ok
    else bad "$runner $bin $*: exit $rc, printed '$got', expected '$want' (stderr: $(head -c 400 "$T/err"))"; fi
}
paris='{"name": "get_weather", "arguments": {"city":"Paris"}}
It is 18 degrees and sunny in Paris.'
tokyo='{"name": "get_time", "arguments": {"city":"Tokyo"}}
It is 22:05 in Tokyo.'
oslo='{"name": "get_weather", "arguments": {"city":"Oslo"}}
It is 3 degrees and snowy in Oslo.'

# the two tools, three cities; the default question; thread counts give the same text
expect env "$B/tools" "$paris" -m $demo -p "What is the weather in Paris?" -t 2
expect env "$B/tools" "$tokyo" -m $demo -p "What time is it in Tokyo?" -t 2
expect env "$B/tools" "$oslo" -m $demo -p "How is the weather in Oslo?"
expect env "$B/tools" "$paris" -m $demo
expect env "$B/tools" "$paris" -m $demo -t 3 -p "What is the weather in Paris?"

# -v: the format guessed from the vocabulary, the C function's result, and that result inside the
# second rendered prompt, in the <tool_response> block the Qwen2.5 template writes
expect env "$B/tools" "$paris" -m $demo -p "What is the weather in Paris?" -t 2 -v
cp "$T/err" "$T/verbose"
has_line() { # text: a whole line of the verbose stderr after the line "---- prompt 2"
    if sed -n '/^---- prompt 2$/,$p' "$T/verbose" | grep -qxF -- "$1"; then ok
    else bad "-v: no line '$1' in the second prompt (stderr: $(head -c 600 "$T/verbose"))"; fi
}
if grep -qxF 'tool format: hermes' "$T/verbose"; then ok; else bad "-v: no 'tool format: hermes' line"; fi
if grep -qxF 'result of get_weather: {"city": "Paris", "temperature": 18, "condition": "sunny"}' "$T/verbose"; then ok
else bad "-v: no result line for get_weather"; fi
has_line '<tool_call>'
has_line '{"name": "get_weather", "arguments": {"city": "Paris"}}'
has_line '<tool_response>'
has_line '{"city": "Paris", "temperature": 18, "condition": "sunny"}'
has_line '</tool_response><|im_end|>'
n=$(grep -c '^---- prompt ' "$T/verbose")
if [ "$n" -eq 2 ]; then ok; else bad "-v: $n prompts rendered, expected 2"; fi

# errors: exit 1, one line
check_error "no model folder: give -m DIR"
check_error "cannot open" -m /nonexistent/tooldemo
check_error "unknown option '--bogus'" -m $demo --bogus
check_error "-m needs a value" -m
check_error "invalid value for -t: '0'" -m $demo -t 0
check_error "invalid value for -t: 'x'" -m $demo -t x
check_error "no tool-call marker" -m tests/fixtures/demo  # a ChatML model without <tool_call>
mkdir -p "$T/notemplate"
for f in config.json model.safetensors tokenizer.json generation_config.json; do cp $demo/$f "$T/notemplate/"; done
printf '{"eos_token": "<|im_end|>"}' >"$T/notemplate/tokenizer_config.json"
check_error "has no chat template" -m "$T/notemplate"

# the fixture's forward pass: build/gen's greedy ids for the first prompt equal what the JAX model
# that wrote it gives (oracle.txt)
if [ -x "$B/gen" ]; then
    want=$(sed -n 3p $demo/oracle.txt)
    got=$("$B/gen" -m $demo --ids "$(sed -n 2p $demo/oracle.txt)" -n 48 --temp 0 --print-ids -t 2 -c 1024 2>"$T/err")
    if [ "$got" = "$want" ]; then ok; else bad "gen on oracle.txt's prompt printed '$got', the JAX model gave '$want'"; fi
else bad "$B/gen is not built"; fi

# valgrind: both conversations and two error paths, no errors and no definite leaks
if [ -n "$XLARUN_CHECK" ]; then : # make check: the valgrind runs are make test's
elif command -v valgrind >/dev/null 2>&1 && [ -x "$B/scalar/tools" ]; then
    expect "$VG" "$B/scalar/tools" "$paris" -m $demo -p "What is the weather in Paris?" -t 2
    expect "$VG" "$B/scalar/tools" "$tokyo" -m $demo -p "What time is it in Tokyo?" -t 2 -v
    for args in "-m /nonexistent/tooldemo" "-m tests/fixtures/demo"; do
        # shellcheck disable=SC2086
        $VG "$B/scalar/tools" $args >/dev/null 2>"$T/err"; rc=$?
        if [ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then ok
        else bad "valgrind tools $args: exit $rc, stderr '$(cat "$T/err")'"; fi
    done
elif ! command -v valgrind >/dev/null 2>&1; then echo "SKIPPED: tools under valgrind (valgrind not installed)"
else bad "$B/scalar/tools is not built"; fi
finish
