#!/bin/sh
# The gen CLI contract: generated ids on one stdout line, equal to transformers' greedy ids;
# errors as one "xlarun: error:" line on stderr with exit status 1, never a signal.
# usage: tests/test_cli.sh BUILD_DIR
B=${1:-build}
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL cli: $*" >&2; }
for d in llama32-bf16 llama2-f32 odd-f16; do
    dir=tests/fixtures/$d
    prompt=$("$B/oracle_ids" "$dir" | sed -n 1p)
    want=$("$B/oracle_ids" "$dir" | sed -n 2p)
    got=$("$B/gen" -m "$dir" --ids "$prompt" -n 48 --temp 0 --print-ids --ignore-eos -t 2 -c 512 2>"$B/cli.err")
    if [ "$got" = "$want" ]; then ok; else bad "$d: gen printed '$got', transformers gave '$want'"; fi
    for k in load: prefill: decode: arena: mapped:; do
        if grep -q "^$k" "$B/cli.err"; then ok; else bad "$d: no '$k' line on stderr"; fi
    done
done
# errors: status 1, one line, the message
check_error() { # expected-substring args...
    want=$1; shift
    "$B/gen" "$@" >/dev/null 2>"$B/cli.err"; rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$B/cli.err")" -eq 1 ] && grep -q "^xlarun: error: .*$want" "$B/cli.err"; then ok
    else bad "gen $*: exit $rc, stderr '$(cat "$B/cli.err")', expected one line with '$want'"; fi
}
check_error "no model folder"
check_error "cannot open" -m /nonexistent --ids 1,2
check_error "outside the vocabulary" -m tests/fixtures/mqa-f32 --ids 1,256
check_error "do not fit" -m tests/fixtures/mqa-f32 --ids 1,2,3,4 -c 3
check_error "invalid token id" -m tests/fixtures/mqa-f32 --ids 1,x
check_error "invalid --ids" -m tests/fixtures/mqa-f32 --ids 1,,2
check_error "unknown option" -m tests/fixtures/mqa-f32 --bogus
check_error "needs a value" -m
check_error "invalid value for -t" -m tests/fixtures/mqa-f32 --ids 1 -t 0
echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
