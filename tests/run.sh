#!/bin/sh
# make test: build the suite once per kernel variant this host can run and run it.
#   scalar, avx2      under valgrind memcheck (errors and definite leaks fail)
#   avx512            natively, and under AddressSanitizer + UndefinedBehaviorSanitizer
#   amx               the avx512 build with the AMX-INT8 and AMX-BF16 GEMMs, natively (where
#                     the CPU has AMX); elsewhere (AVX512_BF16, no AMX) the same with the tiles
#                     emulated in C (tests/amx_emu.h): kernels, quant, model
#   neon              aarch64-linux-gnu-gcc + qemu-aarch64
#   windows           mingw-w64 + wine64
#   c++, clang, options builds, static analysis, ThreadSanitizer, the fuzz corpora, the CLI tests
# A variant whose tool or CPU feature is missing is SKIPPED, loudly, and listed at the end.
# The work runs in three lanes at once (each a background job with its own report, printed when
# it ends): the machines this runs on have 2 cores and most steps use one.
# make check (tests/run.sh check): the native build of every suite and the CLI tests only.
cd "$(dirname "$0")/.." || exit 1
B=build
MAKE="${MAKE:-make}"
mkdir -p $B/logs
: >$B/logs/build-times.txt
: >$B/logs/counts.txt   # one "passed failed label" line per step, from every lane
: >$B/logs/skipped.txt
start_s=$(date +%s)
lane=main

cpu_has() { for f in "$@"; do grep -qw "$f" /proc/cpuinfo 2>/dev/null || return 1; done; }
have() { command -v "$1" >/dev/null 2>&1; }
el() { echo "$(($(date +%s) - mark)) s"; } # seconds since the last mark=$(date +%s)
skip() { echo "*** SKIPPED: $1"; echo "  - $1" >>$B/logs/skipped.txt; }
count() { echo "$1 $2 $3" >>$B/logs/counts.txt; } # passed failed label
pass1() { echo "ok    $1"; count 1 0 "$1"; }
fail1() { echo "FAIL  $1"; count 0 1 "$(echo "$1" | cut -d: -f1)"; }

# run one test binary (through an optional runner); collect its "N passed, M failed" line
run() { # label runner... binary
    label=$1; shift
    log=$B/logs/$(echo "$label" | tr ' /' '__').log
    t0=$(date +%s)
    if "$@" >"$log" 2>&1; then rc=0; else rc=$?; fi
    dt=$(($(date +%s) - t0))
    line=$(tr -d '\r' <"$log" | grep -E '^[a-z+]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed/\1/')
    [ -n "$p" ] || p=0
    [ -n "$f" ] || f=0
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    count "$p" "$f" "$label"
    if [ $rc -eq 0 ]; then echo "ok    $label: $p passed (${dt} s)"
    else echo "FAIL  $label: $p passed, $f failed (exit $rc; log $log; ${dt} s)"; tail -n 30 "$log"; fi
}

# build targets; a failed build counts as a failure
build() {
    b0=$(date +%s)
    if $MAKE -s "$@" >$B/logs/build-$lane.log 2>&1; then
        echo "$(($(date +%s) - b0)) build $*" >>$B/logs/build-times.txt; return 0
    fi
    cat $B/logs/build-$lane.log
    echo "FAIL  build $*"
    count 0 1 "build($*)"
    return 1
}

# the suites built per variant (tests/test_<name>.c); options builds skip kernels
TESTS="kernels model errors generate quant tokenizer chat reply schema grammar"

# the command-line tools' tests, on the native builds
cli_tests() {
    build $B/gen $B/json $B/oracle_ids $B/tokenize && run "gen cli" sh tests/test_cli.sh $B # tokenize decodes --print-ids
    build $B/inspect && run "inspect cli" sh tests/test_inspect.sh $B
    build $B/tokenize && run "tokenize cli" sh tests/test_tokenize_cli.sh $B
    if [ -n "$XLARUN_CHECK" ]; then build $B/tools $B/gen && XLARUN_CHECK=1 run "tools example" sh tests/test_tools_example.sh $B
    else build $B/tools $B/scalar/tools $B/gen && run "tools example" sh tests/test_tools_example.sh $B; fi
    build $B/bench && run "bench cli" sh tests/test_bench_cli.sh $B
    build $B/gen $B/tokenize $B/inspect $B/bench $B/quantize $B/quant_accuracy $B/tools &&
        run "readme" sh tests/test_readme.sh $B # README.md's code blocks, as written
}
summary() {
    echo
    if [ -s $B/logs/skipped.txt ]; then echo "SKIPPED (missing tools or CPU features):"; cat $B/logs/skipped.txt; fi
    bad=$(awk '$2 > 0 { $1 = ""; $2 = ""; sub(/^  /, ""); printf " %s;", $0 }' $B/logs/counts.txt)
    [ -n "$bad" ] && echo "FAILED:$bad"
    bs=$(awk '{ s += $1 } END { print s + 0 }' $B/logs/build-times.txt)
    echo "time: $(($(date +%s) - start_s)) s in all; the builds took $bs s, the lanes overlapping"
    awk '{ p += $1; f += $2 } END { printf "all: %d passed, %d failed\n", p, f; exit f > 0 }' $B/logs/counts.txt
}

# make check: the quick loop while working. The native variant (-O2 -march=native) of every suite,
# built two at a time, each run once natively, then the CLI tests; no valgrind, sanitizers, other
# variants or static analysis (make test has them all)
if [ "$1" = check ]; then
    XLARUN_CHECK=1
    build -j2 $(for t in $TESTS; do printf '%s ' "$B/native/test_$t"; done) $B/gen $B/oracle_ids $B/inspect $B/tokenize $B/tools $B/bench \
        $B/quantize $B/quant_accuracy
    for t in $TESTS; do run "native $t" $B/native/test_$t; done
    cli_tests
    summary
    exit
fi
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
# the AVX-512 build's extensions and the ISA of the sanitizer builds, for every lane
ext=""
cpu_has avx512_bf16 && ext="$ext -mavx512bf16"
cpu_has avx512_vnni && ext="$ext -mavx512vnni"
if cpu_has avx512f avx512bw avx512vl avx512dq fma f16c; then
    have_avx512=1; san_isa="-mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -mf16c $ext"
else
    have_avx512=""; san_isa=""
    cpu_has avx2 fma f16c && san_isa="-mavx2 -mfma -mf16c"
fi
# the valgrind lanes: one kernel variant's suites each
valgrind_suites() { # variant
    for t in $TESTS; do
        build $B/$1/test_$t || continue
        if have valgrind; then run "$1 $t (valgrind)" $VG $B/$1/test_$t
        else run "$1 $t" $B/$1/test_$t; fi
    done
}
lane_a() { # scalar under valgrind, NEON under qemu, C++, the fuzz corpora
    valgrind_suites scalar
    have valgrind || skip "valgrind: not installed, scalar/avx2 tests ran without memcheck (apt-get install valgrind)"
    if have aarch64-linux-gnu-gcc && have qemu-aarch64; then
        for t in $TESTS; do
            build $B/neon/test_$t && run "neon $t (qemu)" qemu-aarch64 $B/neon/test_$t
        done
    else
        skip "neon variant: needs aarch64-linux-gnu-gcc and qemu-aarch64 (apt-get install gcc-aarch64-linux-gnu qemu-user)"
    fi

    if have g++; then build $B/cpp/test_cpp && run "c++" $B/cpp/test_cpp
    else skip "c++ build: g++ not installed"; fi
    # the fuzz corpora (tests/fuzz/corpus: seeds and every kept crash input) replayed through the
    # harnesses built by gcc: with ASan+UBSan over the host's SIMD kernels, and the scalar build under valgrind
    FUZZERS="json safetensors model tokenizer encode decode jinja reply schema grammar"
    for h in $FUZZERS; do
        build SAN_ISA="$san_isa" $B/replay/fuzz_$h && run "replay $h (asan+ubsan)" $B/replay/fuzz_$h tests/fuzz/corpus/$h
        if have valgrind; then build $B/replay-scalar/fuzz_$h && run "replay $h (valgrind)" $VG $B/replay-scalar/fuzz_$h tests/fuzz/corpus/$h
        else build $B/replay-scalar/fuzz_$h && run "replay $h" $B/replay-scalar/fuzz_$h tests/fuzz/corpus/$h; fi
    done
}
lane_b() { # AVX2 under valgrind, Windows under wine, ASan+UBSan, the build options
    if cpu_has avx2 fma f16c; then valgrind_suites avx2; else skip "avx2 variant: this CPU lacks AVX2/FMA/F16C"; fi
    # Windows: the suites that need no POSIX test scaffolding, cross-built with mingw-w64 and run under
    # wine64 (the library's Win32 files, MapViewOfFile and Win32 threads), and the gen CLI on the demo
    wine=""
    if have wine64; then wine=wine64; elif [ -x /usr/lib/wine/wine64 ]; then wine=/usr/lib/wine/wine64; fi
    if have x86_64-w64-mingw32-gcc && [ -n "$wine" ]; then
        win_isa="-DXLARUN_SIMD_SCALAR"
        cpu_has avx2 fma f16c && win_isa="-mavx2 -mfma -mf16c"
        export WINEDEBUG=-all WINEPREFIX="$(pwd)/$B/wineprefix"
        rm -rf $B/win
        for t in kernels model generate tokenizer chat reply schema grammar; do
            build WIN_ISA="$win_isa" $B/win/test_$t.exe && run "windows $t (wine)" $wine $B/win/test_$t.exe
        done
        rm -rf $B/win-options # the weights read with ReadFile into the model's memory, no threads
        build WIN_ISA="$win_isa" $B/win-options/test_model.exe && run "windows options model (wine)" $wine $B/win-options/test_model.exe
        if build WIN_ISA="$win_isa" $B/win/gen.exe; then
            mkdir -p "$B/win/démo-模型" && cp tests/fixtures/demo/* "$B/win/démo-模型/" # a UTF-8 path through argv
            for d in tests/fixtures/demo "$B/win/démo-模型"; do
                got=$($wine $B/win/gen.exe -m "$d" --chat -p "What is xlarun?" -t 2 2>$B/logs/win_gen.log | tr -d '\r')
                if [ "$got" = "xlarun is a single-header C library that runs Llama models on the CPU." ]; then
                    pass1 "windows gen (wine): the demo's answer from $d"
                else fail1 "windows gen (wine) on $d: printed '$got'"; cat $B/logs/win_gen.log; fi
            done
        fi
    else
        skip "windows variant: needs x86_64-w64-mingw32-gcc and wine64 (apt-get install gcc-mingw-w64-x86-64 wine64)"
    fi

    rm -rf $B/asan
    for t in $TESTS; do
        build SAN_ISA="$san_isa" $B/asan/test_$t && run "asan+ubsan $t" $B/asan/test_$t
    done
    for t in $TESTS; do [ $t = kernels ] && continue; build $B/options/test_$t && run "options $t" $B/options/test_$t; done
}
lane_c() { # AVX-512 natively, static analysis, ThreadSanitizer, the CLI tests
    if [ -n "$have_avx512" ]; then
        for t in $TESTS; do
            build AVX512_EXT="$ext" $B/avx512/test_$t && run "avx512 $t" $B/avx512/test_$t
        done
    else skip "avx512 variant: this CPU lacks AVX-512 (F/BW/VL/DQ)"; fi
    # the same with the AMX-INT8 and AMX-BF16 GEMMs: built where the compiler knows AMX, run where the CPU has it
    amx_native=
    if ! ${CC:-gcc} -mamx-tile -mamx-int8 -mamx-bf16 -E -x c /dev/null >/dev/null 2>&1; then
        skip "amx variant: the compiler does not target AMX-TILE/AMX-INT8/AMX-BF16 (gcc 11 or later); the emulated tiles run instead where the CPU has AVX512_BF16"
    else
        [ -n "$have_avx512" ] && cpu_has amx_tile amx_int8 amx_bf16 avx512_bf16 && amx_native=1
        for t in kernels quant model; do
            build AVX512_EXT="$ext" $B/amx/test_$t || continue
            if [ -n "$amx_native" ]; then run "amx $t" $B/amx/test_$t; fi
        done
        [ -n "$amx_native" ] ||
            skip "amx variant: built, not run: this CPU lacks AMX-INT8/AMX-BF16 (grep amx /proc/cpuinfo); the emulated tiles run instead where it has AVX512_BF16"
    fi
    # the AMX kernels on tiles emulated in plain C wherever the real ones did not run (their
    # packing and indexing; the bf16 unit's own sums are modelled, not reproduced: tests/amx_emu.h)
    if [ -z "$amx_native" ] && [ -n "$have_avx512" ] && cpu_has avx512_bf16; then
        for t in kernels quant model; do
            build AVX512_EXT="$ext" $B/amxemu/test_$t && run "amx-emulated $t" $B/amxemu/test_$t
        done
    elif [ -z "$amx_native" ]; then
        skip "amx-emulated variant: this CPU lacks AVX-512 with BF16 (the AMX kernels build on it)"
    fi
    mark=$(date +%s)
    if have clang; then
        printf '#define XLARUN_IMPLEMENTATION\n#include "../../xlarun.h"\n' >$B/logs/clang.c
        if clang -std=c99 -Wall -Wextra -pedantic -Wshadow -Wconversion -Wdouble-promotion -Werror -fsyntax-only $B/logs/clang.c 2>$B/logs/clang.log; then
            pass1 "clang -std=c99 -pedantic -Wshadow -Wconversion -Wdouble-promotion: clean ($(el))"
        else cat $B/logs/clang.log; fail1 "clang -std=c99 -pedantic: warnings"; fi
    else skip "clang build: clang not installed"; fi

    # static analysis of the header with its implementation (warnings and portability findings fail)
    printf '#define XLARUN_IMPLEMENTATION\n#include "../../xlarun.h"\n' >$B/logs/header.c
    mark=$(date +%s)
    if have cppcheck; then
        if cppcheck -q --error-exitcode=1 --enable=warning,portability --std=c99 --suppress=missingIncludeSystem \
            --suppress=toomanyconfigs $B/logs/header.c 2>$B/logs/cppcheck.log; then
            pass1 "cppcheck xlarun.h: clean ($(el))"
        else cat $B/logs/cppcheck.log; fail1 "cppcheck xlarun.h: findings"; fi
    else skip "cppcheck: not installed (apt-get install cppcheck)"; fi
    mark=$(date +%s)
    # gcc's static analyzer over every public entry point and what it reaches (any warning fails)
    if gcc -std=c99 -O1 -fanalyzer -Werror -c $B/logs/header.c -o $B/logs/fanalyzer.o 2>$B/logs/fanalyzer.log; then
        pass1 "gcc -fanalyzer xlarun.h: clean ($(el))"
    else cat $B/logs/fanalyzer.log; fail1 "gcc -fanalyzer xlarun.h: warnings"; fi
    # an integrator's strict build: -O3 (GCC's -O3 inlining brings -Wmaybe-uninitialized findings that
    # -O2 does not: 5 places before this check, one of them only mingw's) with -Wall -Wextra -Wshadow
    # -Wconversion -Wdouble-promotion -Werror. The header TU is compiled for every x86 kernel variant,
    # as C and as C++ (g++ where installed), with the build options, and for Windows (mingw-w64 where
    # installed)
    mark=$(date +%s)
    o3_bad=""
    o3_w="-Wall -Wextra -Wshadow -Wconversion -Wdouble-promotion -Werror -O3"
    : >$B/logs/o3.log
    o3_isas='-DXLARUN_SIMD_SCALAR -march=native'
    [ "$(uname -m)" = x86_64 ] && o3_isas='-DXLARUN_SIMD_SCALAR -mavx2+-mfma+-mf16c -march=x86-64-v4 -march=native'
    for isa in $o3_isas; do
        isa=$(echo "$isa" | tr + ' ')
        gcc -std=c99 $o3_w $isa -c $B/logs/header.c -o $B/logs/o3.o 2>>$B/logs/o3.log || o3_bad="$o3_bad gcc $isa;"
        if have g++; then
            g++ -x c++ -std=c++11 $o3_w $isa -c $B/logs/header.c -o $B/logs/o3.o 2>>$B/logs/o3.log || o3_bad="$o3_bad g++ $isa;"
        fi
    done
    o3_opt="-DXLARUN_NO_THREADS -DXLARUN_NO_MMAP -DXLARUN_STATIC"
    gcc -std=c99 $o3_w $o3_opt -c $B/logs/header.c -o $B/logs/o3.o 2>>$B/logs/o3.log || o3_bad="$o3_bad gcc $o3_opt;"
    if have x86_64-w64-mingw32-gcc; then
        for o in "" "$o3_opt"; do
            x86_64-w64-mingw32-gcc -std=c99 $o3_w -mavx2 -mfma -mf16c $o -c $B/logs/header.c -o $B/logs/o3.o 2>>$B/logs/o3.log ||
                o3_bad="$o3_bad mingw $o;"
        done
    fi
    if [ -z "$o3_bad" ]; then
        echo "ok    $o3_w xlarun.h: clean (gcc$(have g++ && echo ', g++'): $o3_isas; the build options$(have x86_64-w64-mingw32-gcc && echo '; mingw-w64'); $(el))"
        count 1 0 "-O3 -Werror"
    else cat $B/logs/o3.log; fail1 "-O3 -Werror:$o3_bad"; fi
    # clang-tidy over the same TU once per kernel variant (any finding fails). -analyzer-opt-analyze-headers: without it
    # the clang analyzer skips every function defined in a header, i.e. all of xlarun.h. Checks left off, and why:
    #   cert-err33-c                          snprintf/fclose/... results the library ignores on purpose
    #   bugprone-easily-swappable-parameters  runs of size_t (K, r0, r1, ...) are the API's shape
    #   bugprone-branch-clone                 equal arms of ordered else-if chains (the JSON number parser's 0.0 twice)
    #   bugprone-narrowing-conversions        char literals are int in C; uint32 ids are < XLARUN_MAX_VOCAB
    #   bugprone-implicit-widening-of-multiplication-result  constant products (2 * XLARUN_MAX_STOP_BYTES, XK_VL * 4)
    #   bugprone-macro-parentheses            kernel macros whose arguments are literal 0/1 or token-pasted names
    #   bugprone-misplaced-widening-cast      (size_t)(2 * nb) in the kernels, nb <= 4
    #   performance-no-int-to-ptr             the kernels' prefetch addresses go through uintptr_t on purpose
    #   clang-analyzer-security.insecureAPI.strcpy         every strcpy copies a literal or a name into room made for it
    #   clang-analyzer-optin.portability.UnixAPI           malloc(0) needs xlarun_st_begin OK with no header, impossible
    #   clang-analyzer-core.UndefinedBinaryOperatorResult  misses invariants (\u escapes validated up front, strncmp on "")
    #   misc-no-recursion                     the Jinja parser and evaluator recurse on the template's tree, by design;
    #                                         depth is bounded (96 levels of nesting, 64 macro calls, tojson 200)
    # bugprone-suspicious-string-compare stays on except for the plain `if (strcmp(a, b))` (WarnOnImplicitComparison).
    mark=$(date +%s)
    tidy=""
    if have clang-tidy-14; then tidy=clang-tidy-14; elif have clang-tidy; then tidy=clang-tidy; fi
    if [ -n "$tidy" ]; then
        tidy_checks='-*,clang-analyzer-*,bugprone-*,cert-*,misc-*,portability-*,performance-*,-cert-err33-c'
        tidy_checks="$tidy_checks,-bugprone-easily-swappable-parameters,-bugprone-branch-clone,-bugprone-narrowing-conversions"
        tidy_checks="$tidy_checks,-bugprone-implicit-widening-of-multiplication-result,-bugprone-macro-parentheses"
        tidy_checks="$tidy_checks,-bugprone-misplaced-widening-cast,-performance-no-int-to-ptr,-clang-analyzer-security.insecureAPI.strcpy"
        tidy_checks="$tidy_checks,-clang-analyzer-optin.portability.UnixAPI,-clang-analyzer-core.UndefinedBinaryOperatorResult"
        tidy_checks="$tidy_checks,-misc-no-recursion"
        tidy_cfg='{CheckOptions: [{key: bugprone-suspicious-string-compare.WarnOnImplicitComparison, value: false}]}'
        tidy_isas="scalar avx2 avx512"
        have aarch64-linux-gnu-gcc && tidy_isas="$tidy_isas neon"
        tidy_bad=""
        for v in $tidy_isas; do
            case $v in
            scalar) isa="-DXLARUN_SIMD_SCALAR" ;;
            avx2) isa="-mavx2 -mfma -mf16c" ;;
            avx512) isa="-mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16 -mavx512vnni -mavx512vbmi -mfma -mf16c" ;;
            neon) isa="--target=aarch64-linux-gnu -march=armv8.2-a+dotprod+fp16+bf16" ;;
            esac
            if ! $tidy --quiet --header-filter='xlarun(_kernels)?\.h' -checks="$tidy_checks" -config="$tidy_cfg" \
                --warnings-as-errors='*' $B/logs/header.c -- -std=c99 $isa -Xclang -analyzer-opt-analyze-headers \
                >$B/logs/clang-tidy-$v.log 2>&1; then
                cat $B/logs/clang-tidy-$v.log; tidy_bad="$tidy_bad $v"
            fi
        done
        if [ -z "$tidy_bad" ]; then pass1 "$tidy xlarun.h ($tidy_isas): clean ($(el))"
        else fail1 "$tidy xlarun.h:$tidy_bad (logs $B/logs/clang-tidy-*.log)"; fi
    else skip "clang-tidy: not installed (apt-get install clang-tidy)"; fi

    # ThreadSanitizer: two sessions sharing one model on two threads at once (n_threads 2 each)
    if have clang; then
        build $B/tsan/test_threads && TSAN_OPTIONS="halt_on_error=1 exitcode=66" run "tsan threads" $B/tsan/test_threads
    else skip "ThreadSanitizer test: clang not installed (apt-get install clang)"; fi

    cli_tests
}

# the lanes at once; each report printed as its lane ends, in order
lane=a; lane_a >$B/logs/lane-a.txt 2>&1 &
pid_a=$!
lane=b; lane_b >$B/logs/lane-b.txt 2>&1 &
pid_b=$!
lane=c; lane_c >$B/logs/lane-c.txt 2>&1 &
pid_c=$!
wait $pid_a; cat $B/logs/lane-a.txt
wait $pid_b; cat $B/logs/lane-b.txt
wait $pid_c; cat $B/logs/lane-c.txt
summary
