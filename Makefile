# xlarun - `make` builds the examples, `make test` runs the whole suite (see tests/run.sh),
# `make demo` generates with a committed tiny checkpoint.
CC      = gcc
CXX     = g++
B       = build
WARN    = -std=c99 -Wall -Wextra -pedantic -Werror
LIBS    = -lm -lpthread
HDRS    = xlarun.h xlarun_kernels.h
NATIVE  = -O2 -march=native
AVX2    = -mavx2 -mfma -mf16c
AVX512  = -mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -mf16c $(AVX512_EXT)
AMX     = -mamx-tile -mamx-int8 -mamx-bf16
NEON_CC = aarch64-linux-gnu-gcc
NEON    = -march=armv8.2-a+fp16+dotprod+bf16
WIN_CC  = x86_64-w64-mingw32-gcc
WIN_ISA = $(AVX2)
SAN     = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TESTS   = kernels model errors generate tokenizer chat reply schema grammar

.PHONY: all test check demo clean fuzz
all: $(B)/gen $(B)/simple $(B)/json $(B)/tools $(B)/bench $(B)/quantize $(B)/quant_accuracy $(B)/tokenize $(B)/inspect

$(B)/gen: examples/gen.c $(HDRS)
	@mkdir -p $(B)
	$(CC) $(WARN) $(NATIVE) -g $< -o $@ $(LIBS)

$(B)/simple: examples/simple.c $(HDRS)
	@mkdir -p $(B)
	$(CC) $(WARN) $(NATIVE) $< -o $@ $(LIBS)

# a JSON object asked for with a schema and read back (examples/json.c)
$(B)/json: examples/json.c $(HDRS)
	@mkdir -p $(B)
	$(CC) $(WARN) $(NATIVE) $< -o $@ $(LIBS)

# the tool loop (examples/tools.c); the scalar build is the one tests/run.sh runs under valgrind
$(B)/tools: examples/tools.c $(HDRS)
	@mkdir -p $(B)
	$(CC) $(WARN) $(NATIVE) $< -o $@ $(LIBS)
$(B)/scalar/tools: examples/tools.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g -DXLARUN_SIMD_SCALAR $< -o $@ $(LIBS)

# the tools: GNU C for the probe's vector types and inline asm
$(B)/bench: tools/bench.c $(HDRS)
	@mkdir -p $(B)
	$(CC) -std=gnu99 -Wall -Wextra -Werror $(NATIVE) $< -o $@ $(LIBS)

$(B)/tokenize: tools/tokenize.c $(HDRS)
	@mkdir -p $(B)
	$(CC) $(WARN) $(NATIVE) -g $< -o $@ $(LIBS)

$(B)/inspect: tools/inspect.c $(HDRS)
	@mkdir -p $(B)
	$(CC) $(WARN) -O2 -g $< -o $@ $(LIBS)

$(B)/quantize: tools/quantize.c $(HDRS)
	@mkdir -p $(B)
	$(CC) $(WARN) $(NATIVE) -g $< -o $@ $(LIBS)

$(B)/quant_accuracy: tools/quant_accuracy.c $(HDRS)
	@mkdir -p $(B)
	$(CC) $(WARN) $(NATIVE) -g $< -o $@ $(LIBS)

$(B)/oracle_ids: tests/oracle_ids.c $(HDRS)
	@mkdir -p $(B)
	$(CC) $(WARN) -O2 $< -o $@ $(LIBS)

# one test build per kernel variant: build/<variant>/test_<name>
$(B)/scalar/test_%: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g -DXLARUN_SIMD_SCALAR $< -o $@ $(LIBS)
# the grammar suite's independent recognizer
$(B)/scalar/test_grammar $(B)/native/test_grammar $(B)/avx2/test_grammar $(B)/avx512/test_grammar $(B)/asan/test_grammar \
$(B)/neon/test_grammar $(B)/win/test_grammar.exe $(B)/win-options/test_grammar.exe $(B)/options/test_grammar: tests/grammar_oracle.h
# make check's build: -O1 compiles in about two thirds of -O2's time, and the suites run in seconds
$(B)/native/test_%: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -march=native -g $< -o $@ $(LIBS)
$(B)/avx2/test_%: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g $(AVX2) $< -o $@ $(LIBS)
$(B)/avx512/test_%: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g $(AVX512) $< -o $@ $(LIBS)
# the AVX-512 build with the AMX-INT8 and AMX-BF16 GEMMs (tests/run.sh runs it where the CPU has amx_int8 and amx_bf16)
$(B)/amx/test_%: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g $(AVX512) $(AMX) $< -o $@ $(LIBS)
# the same with the tiles emulated in plain C (tests/amx_emu.h), for CPUs without AMX
$(B)/amxemu/test_%: tests/test_%.c tests/test.h tests/test_files.h tests/amx_emu.h $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g $(AVX512) -include tests/amx_emu.h $< -o $@ $(LIBS)
$(B)/asan/test_%: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g $(SAN_ISA) $(SAN) $< -o $@ $(LIBS)
$(B)/neon/test_%: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(NEON_CC) $(WARN) -O2 -g $(NEON) -static $< -o $@ $(LIBS)
# Windows (mingw-w64; tests/run.sh runs them under wine64): Win32 files, maps and threads
$(B)/win/test_%.exe: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(WIN_CC) $(WARN) -O2 $(WIN_ISA) $< -o $@ -lm
$(B)/win-options/test_%.exe: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(WIN_CC) $(WARN) -O2 $(WIN_ISA) -DXLARUN_NO_THREADS -DXLARUN_NO_MMAP -DXLARUN_STATIC $< -o $@ -lm
$(B)/win/gen.exe: examples/gen.c $(HDRS)
	@mkdir -p $(@D)
	$(WIN_CC) $(WARN) -O2 $(WIN_ISA) $< -o $@ -lm -lshell32
# the build options: no threads, no mmap, everything static
$(B)/options/test_%: tests/test_%.c tests/test.h tests/test_files.h $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g -DXLARUN_NO_THREADS -DXLARUN_NO_MMAP -DXLARUN_STATIC $< -o $@ $(LIBS)
# the header as C++ (and the static option), compiled and run
$(B)/cpp/test_cpp: tests/test_cpp.cpp tests/test.h $(HDRS)
	@mkdir -p $(@D)
	$(CXX) -std=c++11 -Wall -Wextra -Werror -O2 -g $< -o $@ $(LIBS)

test:
	@sh tests/run.sh

# the quick loop: the native build of every suite and the CLI tests (tests/run.sh check)
check:
	@sh tests/run.sh check

# fuzz harnesses (tests/fuzz/fuzz_*.c): `make fuzz` runs each under libFuzzer for FUZZ_SECONDS
# (clang-14 with libclang-rt-14-dev; the host's SIMD kernels, FUZZ_ISA); new corpus entries go to build/fuzz/corpus/<harness>, crash
# inputs to build/fuzz/crashes/<harness>/ (keep them in tests/fuzz/corpus/<harness>/crash-*); a
# dictionary tests/fuzz/<harness>.dict (keys, tokens, separators) is passed with -dict.
# `make test` replays tests/fuzz/corpus with the same harnesses built by gcc (ASan+UBSan, and
# the scalar build under valgrind). One harness: make fuzz FUZZERS=json
FUZZERS      = json safetensors model tokenizer encode decode jinja reply schema grammar
FUZZ_SECONDS ?= 60
FUZZ_CC      = clang-14
FUZZ_ISA    ?= -march=native
FUZZ_FLAGS   = -std=c99 -g -O1 $(FUZZ_ISA) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DXLARUN_FUZZ_LIBFUZZER
FUZZ_OPTS    = -timeout=10 -rss_limit_mb=2048
FUZZ_HDRS    = tests/fuzz/fuzz.h tests/fuzz/fuzz_tok.h tests/grammar_oracle.h $(HDRS)
# ThreadSanitizer build of the shared-model test (run by tests/run.sh when clang is there)
$(B)/tsan/test_threads: tests/test_threads.c tests/test.h $(HDRS)
	@mkdir -p $(@D)
	clang $(WARN) -O1 -g -fsanitize=thread $< -o $@ $(LIBS)
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $< -o $@ $(LIBS)
$(B)/replay/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g $(SAN_ISA) $(SAN) $< -o $@ $(LIBS)
$(B)/replay-scalar/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g -DXLARUN_SIMD_SCALAR $< -o $@ $(LIBS)
fuzz: $(FUZZERS:%=$(B)/fuzz/fuzz_%)
	@for h in $(FUZZERS); do \
	    mkdir -p $(B)/fuzz/corpus/$$h $(B)/fuzz/crashes/$$h; \
	    echo "== fuzz_$$h for $(FUZZ_SECONDS) s"; \
	    dict=; [ -f tests/fuzz/$$h.dict ] && dict=-dict=tests/fuzz/$$h.dict; \
	    $(B)/fuzz/fuzz_$$h $(FUZZ_OPTS) $$dict -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	        -artifact_prefix=$(B)/fuzz/crashes/$$h/ $(B)/fuzz/corpus/$$h tests/fuzz/corpus/$$h || exit 1; \
	done

# the demo model (tests/fixtures/demo, made by tools/make_chat_fixtures.py --demo): a chat turn as
# text, then the same folder driven by token ids
demo: $(B)/gen
	$(B)/gen -m tests/fixtures/demo --chat -p "What is xlarun?" -t 2
	$(B)/gen -m tests/fixtures/demo --chat --temp 0.8 --top-k 40 --top-p 0.95 --seed 1 -p "Tell me a story." -t 2
	$(B)/gen -m tests/fixtures/llama32-bf16 --ids 509,17,204,65,300 -n 24 --temp 0 --print-ids -t 2

clean:
	rm -rf $(B)
