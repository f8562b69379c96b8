#!/bin/sh
# The bench CLI contract: a bad option is one "xlarun: error:" line on stderr and exit 1, before
# any measuring; a good run prints one JSON object per model with the keys README.md lists.
# usage: tests/test_bench_cli.sh BUILD_DIR
B=${1:-build}
M=tests/fixtures/mqa-f32
TOOL=bench; ERR=$B/bench.err; LABEL="bench cli"; NAME=bench
. tests/cli.sh
check_error "no model: give -m DIR"
check_error "-b must be 1..65536 (0: the default)" -m $M -b 65537
check_error "-b must be 1..65536 (0: the default)" -m $M -b -1
check_error "need -p >= 1, -n >= 2" -m $M -p 0
check_error "threads must be 1..512" -m $M -t 0
check_error "--precision must be exact or bf16, not 'half'" -m $M --precision half
check_error "--kv must be f32, f16 or bf16, not 'q8'" -m $M --kv q8
check_error "-b needs a value" -m $M -b
check_error "sampling: top_p must be in .0, 1. (0 or 1 = off), found 2" -m $M --temp 0.8 --top-p 2
check_error "sampling: temperature must be" -m $M --temp -1
check_error "unknown option '--bogus'" -m $M --bogus x
# a real run, with a prefill chunk of 1 token (the prompt in 3 chunks)
out=$("$B/bench" -m $M -p 3 -n 2 -t 1 -r 1 -b 1 2>"$B/bench.err"); rc=$?
if [ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ]; then ok; else bad "bench -b 1: exit $rc, printed '$out' ($(cat "$B/bench.err"))"; fi
for key in model dtype threads n_prompt n_gen prefill_tok_s decode_tok_s weight_bytes_per_token decode_gb_s \
           mem_read_gb_s bandwidth_ratio run_read_gb_s run_bandwidth_ratio prefill_gflops peak_rss_bytes \
           kv_bytes_per_token cpu cpu_id kernels tokenizer tokenizer_load_s huge_page_bytes pool_waits_prefill \
           pool_waits_per_token; do
    case "$out" in *"\"$key\": "*) ok ;; *) bad "bench output lacks \"$key\": $out" ;; esac
done
case "$out" in *'"kv_type": "f32"'*) ok ;; *) bad "bench's default cache is not f32: $out" ;; esac
# cpu_id: the vendor, family, model and stepping from cpuid on x86, null elsewhere
case "$(uname -m)" in
x86_64|i?86) case "$out" in *'"cpu_id": "'*' family '*' model '*' stepping '*) ok ;; *) bad "bench's cpu_id is not cpuid's family and model: $out" ;; esac ;;
*) case "$out" in *'"cpu_id": null,'*) ok ;; *) bad "bench's cpu_id off x86 is not null: $out" ;; esac ;;
esac
# the bytes in 2 MB pages: a count on Linux (0 where nothing got one), null elsewhere
case "$(uname -s)" in
Linux) case "$out" in *'"huge_page_bytes": '[0-9]*) ok ;; *) bad "bench's huge_page_bytes is not a count on Linux: $out" ;; esac ;;
*) case "$out" in *'"huge_page_bytes": null'*) ok ;; *) bad "bench's huge_page_bytes off Linux is not null: $out" ;; esac ;;
esac
# the probe beside the runs answered (a reading of 0 would mean its child never did)
case "$out" in *'"run_read_gb_s": 0.00,'*) bad "bench: the probe beside the runs read nothing: $out" ;; *) ok ;; esac
case "$out" in *'"sampling": "greedy"'*) ok ;; *) bad "bench's default decode is not greedy: $out" ;; esac
# the KV bytes a decode step reads on average: 2 layers x 1 KV head x 16 dims x (key, value) x
# 4 bytes x 4 positions (3 prompt tokens + 2 / 2); half that with --kv f16
case "$out" in *'"kv_bytes_per_token": 1024,'*) ok ;; *) bad "bench -b 1: kv_bytes_per_token is not 1024: $out" ;; esac
out=$("$B/bench" -m $M -p 3 -n 2 -t 1 -r 1 --kv f16 2>"$B/bench.err"); rc=$?
case "$out" in *'"kv_bytes_per_token": 512,'*'"kv_type": "f16"'*) ok ;; *) bad "bench --kv f16: exit $rc, printed '$out' ($(cat "$B/bench.err"))" ;; esac
# the tokenizer's open timed: none in mqa-f32; the demo's by folder or by file; a bad one is an error
case "$out" in *'"tokenizer": null, "tokenizer_tokens": null, "tokenizer_load_s": null,'*) ok ;; *) bad "bench: mqa-f32 has no tokenizer: $out" ;; esac
out=$("$B/bench" -m $M -p 3 -n 2 -t 1 -r 1 --tokenizer tests/fixtures/demo/tokenizer.json 2>"$B/bench.err"); rc=$?
case "$out" in *'"tokenizer": "tests/fixtures/demo/tokenizer.json", "tokenizer_tokens": 400, "tokenizer_load_s": '[0-9]*) ok ;;
    *) bad "bench --tokenizer FILE: exit $rc, printed '$out' ($(cat "$B/bench.err"))" ;; esac
out=$("$B/bench" -m tests/fixtures/demo -p 3 -n 2 -t 1 -r 1 2>"$B/bench.err"); rc=$?
case "$out" in *'"tokenizer": "tests/fixtures/demo/tokenizer.json", "tokenizer_tokens": 400,'*) ok ;;
    *) bad "bench: the model folder's tokenizer: exit $rc, printed '$out' ($(cat "$B/bench.err"))" ;; esac
check_error "/nonexistent/tokenizer.json: cannot open" -m $M --tokenizer /nonexistent
# no -t: one object, with the physical cores
out=$("$B/bench" -m $M -p 3 -n 2 -r 1 2>"$B/bench.err"); rc=$?
case "$out" in *'"threads": '[1-9]*) ok ;; *) bad "bench without -t: exit $rc, printed '$out' ($(cat "$B/bench.err"))" ;; esac
# decode through a sampler
out=$("$B/bench" -m $M -p 3 -n 3 -t 1 -r 1 --temp 0.8 --top-k 0 --top-p 0.9 2>"$B/bench.err"); rc=$?
case "$out" in *'"sampling": "temp 0.8 top_k 0 top_p 0.9 min_p 0"}'*) ok ;; *) bad "bench --temp 0.8: exit $rc, printed '$out' ($(cat "$B/bench.err"))" ;; esac
# decode again under a grammar (the demo folder has a tokenizer): its keys, and its errors
printf 'root ::= ("yes" | "no") " because " [a-z ]{3,20} "."\n' >"$B/bench.gbnf"
out=$("$B/bench" -m tests/fixtures/demo -p 3 -n 40 -t 1 -r 1 --grammar "$B/bench.gbnf" 2>"$B/bench.err"); rc=$?
for key in decode_tok_s_grammar grammar_ms_per_token grammar_overhead grammar_sentences; do
    case "$out" in *"\"$key\": "*) ok ;; *) bad "bench --grammar: exit $rc, no \"$key\" in '$out' ($(cat "$B/bench.err"))" ;; esac
done
case "$out" in *'"grammar_sentences": 0'*) bad "bench --grammar: 39 tokens finished no sentence of at most 33 bytes: $out" ;; *) ok ;; esac
check_error "cannot read" -m tests/fixtures/demo --grammar /nonexistent
printf 'root ::= foo\n' >"$B/bench.bad.gbnf"
check_error "rule 'foo' is not defined" -m tests/fixtures/demo --grammar "$B/bench.bad.gbnf"
printf '{"type": "string", "pattern": "a+"}' >"$B/bench.schema"
check_error "\"pattern\" is not supported" -m tests/fixtures/demo --json-schema "$B/bench.schema"
# --gemv: the decode GEMV against a read of the same memory, its errors before any measuring
check_error "--gemv must be q4_0, q8_0 or bf16, not 'f64'" --gemv f64
check_error "-k must be 32..65536 (a multiple of 32 for q4_0 and q8_0)" --gemv q8_0 -k 100
check_error "-k must be 32..65536" --gemv bf16 -k 16
check_error "--streams takes 1, 2, 4 and 8" --gemv q4_0 --streams 2,3
check_error "--mb is too small for that many threads and K" --gemv bf16 -k 65536 --mb 1 -t 2
check_error "unknown option '-m' with --gemv" --gemv q4_0 -m $M
check_error "-r needs a value" --gemv q4_0 -r
check_error "--precision must be exact or bf16, not 'half'" --gemv bf16 --precision half
check_error "--mb must be 1..65536" --gemv q4_0 --mb 0
check_error "need 1 <= -r <= 1000" --gemv q4_0 -r 1001
check_error "threads must be 1..512" --gemv q4_0 -t 0
check_error "-t and --streams need at least one value" --gemv q4_0 --streams ''
for g in "q4_0" "q8_0 -k 4096" "bf16" "bf16 --precision bf16"; do
    out=$("$B/bench" --gemv $g --mb 4 -t 1,2 -r 2 --streams 1,2 2>"$B/bench.err"); rc=$?
    if [ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 2 ]; then ok; else bad "bench --gemv $g: exit $rc, printed '$out' ($(cat "$B/bench.err"))"; fi
    for key in gemv precision K rows threads passes cpu cpu_id kernels huge_page_bytes default_streams read_gb_s streams; do
        case "$out" in *"\"$key\": "*) ok ;; *) bad "bench --gemv $g lacks \"$key\": $out" ;; esac
    done
    case "$out" in *'{"streams": 1, "gb_s": '[0-9]*', "ratio": '[0-9]*'}, {"streams": 2, "gb_s": '*) ok ;; *) bad "bench --gemv $g: no figures for streams 1 and 2: $out" ;; esac
    case "$out" in *'"gb_s": 0.00'*|*'"read_gb_s": 0.00'*) bad "bench --gemv $g: a pass read nothing: $out" ;; *) ok ;; esac
done
case "$("$B/bench" --gemv bf16 --precision bf16 --mb 4 -t 1 -r 1 2>&1)" in *'"precision": "bf16", "K": 2048,'*) ok ;; *) bad "bench --gemv bf16 --precision bf16 does not say so" ;; esac
finish
