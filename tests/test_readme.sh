#!/bin/sh
# README.md as a fresh clone reads it: every code block runs as written.
#   ```c        the C quick start: byte-identical to examples/simple.c, and compiled by itself as a
#               user would (the block in a folder below a copy of xlarun.h and xlarun_kernels.h,
#               -O0 with the Makefile's warnings as errors), then run on tests/fixtures/demo, whose
#               answer is known.
#   ```sh       one command per line, each run from the repository root by sh and required to exit
#               0; "build/" at the start of a word means $B/. `make test` is not run (it is the
#               whole suite, this test among it); `make demo` runs with B=$B and without remaking
#               $B/gen (make -o). A binary a line starts with that is not built yet is built
#               first (make $B/NAME). Commands may use only committed folders (tests/fixtures/...)
#               and may write only under $B.
#   ```console  commands on a folder of the reader's own (a model downloaded from the hub): shown,
#               never run.
# A block in any other language fails, so that nothing new is skipped without a decision here.
# Also the issue's shape: README.md at most 15,000 bytes, `make demo` and `make test` in its
# first 30 lines. Needs sh, awk, sed, cmp, make and a C compiler ($CC, default gcc); no Python.
# usage: tests/test_readme.sh BUILD_DIR
B=${1:-build}
CC=${CC:-gcc}
MAKE=${MAKE:-make}
T=$(mktemp -d /tmp/xlarun-readme-XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
TOOL=readme; ERR=$T/err; LABEL=readme; NAME=readme
. tests/cli.sh
R=README.md

# the shape
size=$(wc -c <$R)
if [ "$size" -le 15000 ]; then ok; else bad "README.md is $size bytes, more than 15,000"; fi
for c in "make demo" "make test"; do
    if head -n 30 $R | grep -q "^$c"; then ok; else bad "'$c' is not in the first 30 lines of README.md"; fi
done

# the blocks in order, one file each ($T/block.N), their languages in $T/langs ("N LANG" lines)
awk -v dir="$T" '
    /^```/ && !inside { inside = 1; n++; lang = substr($0, 4); if (lang == "") lang = "none"
                        file = dir "/block." n; printf "" > file; print n, lang > (dir "/langs"); next }
    /^```$/ && inside { inside = 0; close(file); next }
    inside            { print > file }
    END               { if (inside) print "unclosed" > (dir "/unclosed") }' $R
if [ -f "$T/unclosed" ]; then bad "README.md ends inside a code block"; fi
: >>"$T/langs"
n_c=0; n_sh=0
while read -r i lang; do
    f=$T/block.$i
    case $lang in
    c)
        n_c=$((n_c + 1))
        if cmp -s "$f" examples/simple.c; then ok; else bad "the C block differs from examples/simple.c"; fi
        mkdir -p "$T/app/examples"
        cp xlarun.h xlarun_kernels.h "$T/app/"
        cp "$f" "$T/app/examples/quickstart.c"
        if $CC -std=c99 -Wall -Wextra -pedantic -Werror -O0 "$T/app/examples/quickstart.c" \
               -o "$T/app/quickstart" -lm -lpthread </dev/null 2>"$ERR"; then ok
            got=$("$T/app/quickstart" tests/fixtures/demo "What is xlarun?" </dev/null 2>"$ERR"); rc=$?
            want="xlarun is a single-header C library that runs Llama models on the CPU."
            if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then ok
            else bad "the C block on tests/fixtures/demo: exit $rc, printed '$got' (stderr: $(head -c 300 "$ERR"))"; fi
        else bad "the C block does not compile: $(head -c 600 "$ERR")"; fi
        ;;
    sh)
        while IFS= read -r line; do
            case $line in ''|'#'*) continue ;; esac
            n_sh=$((n_sh + 1))
            case $line in
            "make test"*) continue ;;
            "make demo"*) cmd="$MAKE -s -o $B/gen demo B=$B" ;;
            *) cmd=$(printf '%s\n' "$line" | sed -e "s#^build/#$B/#" -e "s#\\([ =]\\)build/#\\1$B/#g") ;;
            esac
            case $cmd in
            "$B"/*) bin=${cmd%% *}
                    if [ ! -x "$bin" ]; then $MAKE -s "$bin" B="$B" </dev/null >"$ERR" 2>&1 || bad "make $bin: $(tail -c 300 "$ERR")"; fi ;;
            esac
            sh -c "$cmd" >"$T/out" </dev/null 2>"$ERR"; rc=$?
            if [ $rc -eq 0 ]; then ok
            else bad "'$line' exits $rc (stderr: $(head -c 300 "$ERR"); stdout: $(tail -c 300 "$T/out"))"; fi
        done <"$f"
        ;;
    console) ;;
    *) bad "a \`\`\`$lang block: this test knows c, sh and console blocks only" ;;
    esac
done <"$T/langs"
if [ $n_c -eq 1 ]; then ok; else bad "README.md has $n_c C blocks, expected the one quick start"; fi
if [ $n_sh -gt 0 ]; then ok; else bad "README.md has no sh commands"; fi
finish
