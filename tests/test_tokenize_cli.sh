#!/bin/sh
# The tokenize CLI contract: ids on one stdout line (BOS as the post-processor adds it unless
# --no-bos), --decode prints the text, --chat renders a conversation with a chat template (--text:
# the text's bytes; else its ids, special tokens recognised and no BOS added); errors as one
# "xlarun: error:" line on stderr, exit 1. The expected ids are those
# tools/make_tokenizer_fixtures.py recorded from `tokenizers`; the expected chat renderings are
# transformers' apply_chat_template's (tests/fixtures/jinja/cases.txt, tools/make_jinja_fixtures.py).
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

# --chat against transformers. A case of tests/fixtures/jinja/cases.txt is hex lines (messages,
# tools, vars, gen, text); the case's vars are given as --var KEY=JSON and checked to be the case's.
J=tests/fixtures/jinja
C=$B/tokchat
rm -rf "$C" && mkdir -p "$C"
NOW=1727358307 # the cases' strftime_now: 2024-09-26 13:45:07 UTC
unhex() { # hex on stdin -> its bytes on stdout (POSIX sh and awk: octal escapes for printf)
    # shellcheck disable=SC2059 # the format is the escapes
    printf "$(LC_ALL=C awk '{ for (i = 1; i < length($0); i += 2) printf "\\%03o", 16 * (index("0123456789abcdef", substr($0, i, 1)) - 1) + index("0123456789abcdef", substr($0, i + 1, 1)) - 1 }')"
}
field() { sed -n "s/^$1 //p" "$C/case"; }
# chat_case TEMPLATE CASE DIR [TEMPLATE-ARGS --] [KEY=JSON...]: --text gives transformers' text
# byte for byte and the ids mode the ids of that text (encoded apart, no BOS); the template is
# --chat-template-file $J/templates/TEMPLATE.jinja unless TEMPLATE-ARGS (possibly none) are given;
# without KEY=JSON the folder's own special tokens stand in for the case's vars
chat_case() {
    tn=$1; cn=$2; dir=$3; shift 3
    tmpl="--chat-template-file $J/templates/$tn.jinja"
    case " $* " in *" -- "*) tmpl=""; while [ "$1" != -- ]; do tmpl="$tmpl $1"; shift; done; shift ;; esac
    awk -v c="case $tn $cn" '$0 == c { f = 1; next } f && $1 == "end" { exit } f' $J/cases.txt >"$C/case"
    if [ ! -s "$C/case" ]; then bad "no case '$tn $cn' in $J/cases.txt"; return; fi
    field messages | unhex >"$C/messages.json"
    field text | unhex >"$C/want.txt"
    extra="--now $NOW"
    [ "$(field gen)" = 0 ] && extra="$extra --no-generation-prompt"
    if [ "$(field tools)" != - ]; then field tools | unhex >"$C/tools.json"; extra="$extra --tools $C/tools.json"; fi
    if [ $# -gt 0 ]; then # as json.dumps writes the case's vars
        vars=""
        for kv in "$@"; do vars="$vars${vars:+, }\"${kv%%=*}\": ${kv#*=}"; done
        if [ "{$vars}" = "$(field vars | unhex)" ]; then ok
        else bad "$tn $cn: the --var arguments make {$vars}, the case's vars are $(field vars | unhex)"; fi
    fi
    n=$#; for kv in "$@"; do set -- "$@" --var "$kv"; done; shift $n
    # shellcheck disable=SC2086 # $tmpl and $extra are lists of arguments
    "$B/tokenize" -m "$dir" --chat "$C/messages.json" $tmpl $extra "$@" --text >"$C/got.txt" 2>"$B/tok.err"; rc=$?
    if [ $rc -eq 0 ] && cmp -s "$C/want.txt" "$C/got.txt"; then ok
    else bad "$tn $cn: --text exit $rc, $(wc -c <"$C/got.txt") bytes, transformers gave $(wc -c <"$C/want.txt") ($(cat "$B/tok.err"); $(cmp "$C/want.txt" "$C/got.txt" 2>&1))"; fi
    want=$("$B/tokenize" -m "$dir" --no-bos -f "$C/want.txt" 2>&1)
    # shellcheck disable=SC2086
    got=$("$B/tokenize" -m "$dir" --chat "$C/messages.json" $tmpl $extra "$@" 2>&1); rc=$?
    if [ $rc -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then ok
    else bad "$tn $cn: ids '$got' (exit $rc), the text's own ids are '$want'"; fi
}
chat_case llama3.2-instruct single $T/llama3 'bos_token="<|begin_of_text|>"' 'eos_token="<|eot_id|>"'
chat_case llama3.2-instruct nosystem_nogen $T/llama3 'bos_token="<|begin_of_text|>"' 'eos_token="<|eot_id|>"'
chat_case llama3.2-instruct tools $T/llama3 'bos_token="<|begin_of_text|>"' 'eos_token="<|eot_id|>"'
chat_case llama3.2-instruct extra_vars $T/llama3 'bos_token="<|begin_of_text|>"' 'eos_token="<|eot_id|>"' \
    'enable_thinking=false' 'date_string="26 Jul 2024"'
chat_case llama3.2-instruct unicode $T/llama3 'bos_token="<|begin_of_text|>"' 'eos_token="<|eot_id|>"'
chat_case llama3.1-instruct tool_calls_dict $T/llama3 'bos_token="<|begin_of_text|>"' 'eos_token="<|eot_id|>"'
chat_case qwen3 extra_vars $T/qwen2 'eos_token="<|im_end|>"' 'pad_token="<|endoftext|>"' 'enable_thinking=false' \
    'date_string="26 Jul 2024"'
chat_case qwen3 extra_vars $T/qwen2 --chat-template qwen3 -- 'eos_token="<|im_end|>"' 'pad_token="<|endoftext|>"' \
    'enable_thinking=false' 'date_string="26 Jul 2024"'
# the folder's own template (tokenizers/gemma's is gemma3-270m's) and its own special tokens
chat_case gemma3-270m system $T/gemma --
chat_case gemma3-270m single $T/gemma --
# variables: the later --var wins; any JSON value
printf '{{ x | tojson }}|{{ y }}' >"$C/vars.jinja"
echo '[]' >"$C/empty.json"
expect '{"a": [1, "b"]}|2' -m $T/llama3 --chat "$C/empty.json" --chat-template-file "$C/vars.jinja" --text \
    --var 'x={"a":[1,"b"]}' --var y=1 --var y=2
# errors: one line naming what went wrong, exit 1
echo '[{"role": "user", "content": "Hi"}]' >"$C/m.json"
printf 'Hello\n{%% if %%}' >"$C/bad.jinja"
check_error "bad.jinja: chat template line 2 column 7: expected an expression" -m $T/llama3 --chat "$C/m.json" --chat-template-file "$C/bad.jinja"
printf "{{ raise_exception('nope') }}" >"$C/raise.jinja"
check_error "nope" -m $T/llama3 --chat "$C/m.json" --chat-template-file "$C/raise.jinja"
printf "{{ raise_exception('two\\\\nlines') }}" >"$C/raise2.jinja"
check_error "two lines" -m $T/llama3 --chat "$C/m.json" --chat-template-file "$C/raise2.jinja" --text
echo '{"role": "user", "content": "Hi"}' >"$C/obj.json"
check_error "chat messages: expected a JSON array" -m $T/llama3 --chat "$C/obj.json"
echo '[{"role": "user", "content": "Hi"},]' >"$C/broken.json"
check_error "chat messages: invalid JSON at line 1 column 36" -m $T/llama3 --chat "$C/broken.json" --text
check_error "chat tools: expected a JSON array" -m $T/llama3 --chat "$C/m.json" --tools "$C/obj.json"
check_error "--var x: the value is not JSON .*line 1 column 1" -m $T/llama3 --chat "$C/m.json" --var x=notjson
check_error "--var x: the value is not JSON .*trailing characters" -m $T/llama3 --chat "$C/m.json" --var 'x=1, "y": 2'
check_error "invalid --var 'x'" -m $T/llama3 --chat "$C/m.json" --var x
check_error "invalid --var '1x=2'" -m $T/llama3 --chat "$C/m.json" --var 1x=2
check_error "unknown chat template name 'vicuna'; the names are: llama3, " -m $T/llama3 --chat "$C/m.json" --chat-template vicuna
check_error "has no chat template" -m $T/ms --chat "$C/m.json"
check_error "cannot read" -m $T/llama3 --chat /nonexistent/m.json
check_error "cannot read" -m $T/llama3 --chat "$C/m.json" --chat-template-file /nonexistent/t.jinja
check_error "--text needs --chat" -m $T/llama3 --text hi
check_error "--var needs --chat" -m $T/llama3 --var x=1 hi
check_error "--chat takes a messages file, not TEXT" -m $T/llama3 --chat "$C/m.json" hi
check_error "--no-special cannot be combined with --chat" -m $T/llama3 --chat "$C/m.json" --no-special
check_error "invalid value for --now" -m $T/llama3 --chat "$C/m.json" --now soon
check_error "not both" -m $T/llama3 --chat "$C/m.json" --chat-template llama3 --chat-template-file "$C/bad.jinja"
finish
