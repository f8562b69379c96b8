# tests/cli.sh - sourced by the CLI tests (run from the repository root): the pass/fail counters,
# ok and bad, check_error, and the summary line run.sh reads. Before sourcing it the test sets
# B (the build folder), TOOL (the binary in $B), ERR (where its stderr goes), LABEL (the prefix of
# FAIL lines) and NAME (the name on the summary line).
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $LABEL: $*" >&2; }
# the tool must exit 1 with one "xlarun: error:" line on stderr that contains the substring
check_error() { # expected-substring args...
    want=$1; shift
    "$B/$TOOL" "$@" >/dev/null 2>"$ERR"; rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$ERR")" -eq 1 ] && grep -q "^xlarun: error: .*$want" "$ERR"; then ok
    else bad "$TOOL $*: exit $rc, stderr '$(cat "$ERR")', expected one line with '$want'"; fi
}
# the last command of a test: its exit status is the verdict
finish() { echo "$NAME: $pass passed, $fail failed"; [ $fail -eq 0 ]; }
