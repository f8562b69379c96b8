#!/bin/sh
# build/inspect: the config summary, the tensor table, EVERY problem (one "problem:" line each,
# with the library's own message and status), exit 0 only when the folder loads, 1 otherwise,
# 2 for a usage error. Broken folders are fixture copies under a temp dir.
# usage: tests/test_inspect.sh BUILD_DIR
B=${1:-build}
F=tests/fixtures
T=$(mktemp -d /tmp/xlarun-inspect-XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
TOOL=inspect; ERR=$T/err; LABEL=inspect; NAME=inspect
. tests/cli.sh

# inspect DIR; want exit status; then check_has / check_count on its output
run() { "$B/inspect" "$1" >"$T/out" 2>"$T/err"; rc=$?; dir=$1
    if [ $rc -eq "$2" ]; then ok; else bad "inspect $1: exit $rc, want $2"; cat "$T/out" "$T/err" >&2; fi; }
has() { if grep -qF -- "$1" "$T/out"; then ok; else bad "inspect $dir: no line with '$1'"; fi; }
count() { n=$(grep -c '^problem: ' "$T/out"); if [ "$n" -eq "$1" ]; then ok; else bad "inspect $dir: $n problems, want $1"; grep '^problem: ' "$T/out" >&2; fi; }
copy() { rm -rf "$T/$2"; cp -r "$F/$1" "$T/$2"; }

# good folders
run $F/llama32-bf16 0
has "config.json: LlamaForCausalLM"; has "vocab_size 512, hidden_size 64, intermediate_size 96, num_hidden_layers 2"
has "rope: theta 500000, llama3, factor 8"; has "tie_word_embeddings true, bos 509, eos 510 511"
has "model.layers.1.mlp.down_proj.weight"; has "BF16"; has "[64,96]"; has "12288  model.safetensors"
has "model: loads"; has "result: ok"; count 0
# what the parser read under another name or took as a default, and the version that wrote the folder
run $F/qwen3moe5-v5-bf16 0
has "config.json: Qwen3MoeForCausalLM, written by transformers 5.24.0"; has "key num_experts read as its alias num_local_experts"
has "mixture of 5 experts of intermediate size 48, 2 per token"; count 0
run $F/odd-f32 0
has "written by transformers 4.46.3"; has "defaults (keys not in config.json): head_dim=10"; count 0
copy llama32-f32 v4params
sed 's/"rope_theta": 500000.0/"rope_theta": 500000.0, "rope_parameters": {"rope_type": "default"}/' $F/llama32-f32/config.json >"$T/v4params/config.json"
run $T/v4params 0
has "key rope_parameters ignored: transformers 4 does not read it"; has "rope: theta 500000, llama3, factor 8"
run $F/llama2-f32 0
has "model-00001-of-00002.safetensors"; has "21 tensors, 308160 bytes in 2 shards"; count 0
run $F/demo 0
has "tokenizer.json: vocab 400"; has "chat template compiles"
# a chat template that does not compile: said with its line and column, and the folder still loads
copy demo tmpl
sed 's/"chat_template": ".*"/"chat_template": "Hi\\n{%- if %}"/' $F/demo/tokenizer_config.json >"$T/tmpl/tokenizer_config.json"
run "$T/tmpl" 0
has "chat template does not compile: chat template line 2 column 8: expected an expression"; has "result: ok"; count 0

# two layers' tensors past num_hidden_layers 1: each one reported (9), not only the first
copy llama32-f32 layers
sed 's/"num_hidden_layers": 2/"num_hidden_layers": 1/' $F/llama32-f32/config.json >"$T/layers/config.json"
run "$T/layers" 1
count 9
has "problem: $T/layers/model.safetensors: tensor 'model.layers.1.input_layernorm.weight' is past num_hidden_layers 1 in config.json (inconsistent model)"
has "problem: $T/layers/model.safetensors: tensor 'model.layers.1.self_attn.v_proj.weight' is past num_hidden_layers 1"
has "result: 9 problems; xlarun does not load this folder"

# intermediate_size wrong: gate, up and down of both layers (6 shape problems, not "missing" too)
copy llama32-f32 inter
sed 's/"intermediate_size": 96/"intermediate_size": 95/' $F/llama32-f32/config.json >"$T/inter/config.json"
run "$T/inter" 1
count 6
has "tensor 'model.layers.0.mlp.gate_proj.weight' has shape [96,64], but config.json implies [95,64]"
has "tensor 'model.layers.1.mlp.down_proj.weight' has shape [64,96], but config.json implies [64,95]"

# a shard missing: its open fails, and each tensor it held is reported missing (10 + 1)
copy llama2-f32 shard
rm "$T/shard/model-00002-of-00002.safetensors"
run "$T/shard" 1
count 11
has "model-00002-of-00002.safetensors: cannot open (i/o error)"
has "missing tensor 'lm_head.weight' (config.json has tie_word_embeddings false)"
has "missing tensor 'model.layers.1.self_attn.k_proj.weight' (config.json has num_hidden_layers 2)"
has "model.layers.0.self_attn.q_proj.weight"   # the other shard's table is still printed

# the index names the wrong shard for two tensors
copy llama2-f32 index
sed -e 's/"lm_head.weight": "model-00002-of-00002/"lm_head.weight": "model-00001-of-00002/' \
    -e 's/"model.norm.weight": "model-00002-of-00002/"model.norm.weight": "model-00001-of-00002/' \
    $F/llama2-f32/model.safetensors.index.json >"$T/index/model.safetensors.index.json"
run "$T/index" 1
count 2
has "tensor 'lm_head.weight' is in model-00002-of-00002.safetensors, but model.safetensors.index.json says model-00001-of-00002.safetensors"
has "tensor 'model.norm.weight' is in model-00002-of-00002.safetensors"

# truncated weights: the header is fine (the table prints), the size is not
copy llama32-bf16 trunc
head -c 30000 $F/llama32-bf16/model.safetensors >"$T/trunc/model.safetensors"
run "$T/trunc" 1
count 1
has "ending at byte 240288, but the file has 30000 bytes (malformed file)"
has "model.layers.1.mlp.down_proj.weight"   # the table, read again as from a stream

# config.json broken: reported, the shard's tensors are still listed (unchecked)
copy llama32-bf16 cfg
printf '{"model_type": "llama", "vocab_size": 512,}' >"$T/cfg/config.json"
run "$T/cfg" 1
count 1
has "problem: config.json: invalid JSON at line 1 column 43: expected a string key (malformed file)"
has "model.embed_tokens.weight"

# an unsupported architecture is refused by name
copy llama32-bf16 arch
sed 's/LlamaForCausalLM/PhiForCausalLM/' $F/llama32-bf16/config.json >"$T/arch/config.json"
run "$T/arch" 1
has "architecture 'PhiForCausalLM' is not supported (supported: LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Gemma3ForCausalLM, Gemma2ForCausalLM, GemmaForCausalLM, Phi3ForCausalLM, SmolLM3ForCausalLM, GraniteForCausalLM, Olmo2ForCausalLM, MixtralForCausalLM, Qwen3MoeForCausalLM, OlmoeForCausalLM, Qwen2MoeForCausalLM) (unsupported model)"

# Gemma 1: the GELU, the 1 + w norms and the embedding scale are named
run $F/gemma-f32 0
has "config.json: GemmaForCausalLM"; has "MLP activation: gelu_pytorch_tanh"; has "RMSNorm weights used as 1 + w"
has "embeddings scaled by 9.79795933"

# Phi-3: the fused matrices are listed by their own names
run $F/phi3-f32 0
has "config.json: Phi3ForCausalLM"; has "model.layers.1.self_attn.qkv_proj.weight"; has "model.layers.0.mlp.gate_up_proj.weight"
has "sliding_window 20 (position i attends to i-19..i)"
run $F/phi3lr-f32 0
has "rope: theta 10000, longrope, short factors within original_max_position_embeddings 128 and long ones past it, cos and sin times 1.13389337"
has "rope on the first 8 of each head's 16 dimensions"

# OLMo 2: its norms are named
run $F/olmo2-f32 0
has "config.json: Olmo2ForCausalLM"; has "q_norm and k_norm: q and k, all heads at once, RMS-normalized before RoPE"
has "no norm before attention or the MLP; their outputs normalized before the residual add"

# Granite: its multipliers are named
run $F/granite-f32 0
has "config.json: GraniteForCausalLM"; has "embeddings scaled by 3"; has "attention scores scaled by 0.300000012"
has "attention and MLP outputs scaled by 0.699999988 before the residual add"; has "logits divided by 1.5"

# mixtures of experts: experts, routing and sparse layers named; the weight bytes a token reads
# count the experts it runs (Mixtral: attention 49152 + router 1024 + 2 of 4 experts 73728 per
# layer of 2, and lm_head 40960)
run $F/mixtral-bf16 0
has "config.json: MixtralForCausalLM"; has "mixture of 4 experts of intermediate size 96, 2 per token, their weights renormalized; sparse layers: all"
has "model.layers.1.block_sparse_moe.experts.3.w2.weight"; has "238592 weight bytes read per token, matrices bf16"
run $F/qwen3moe-f32 0
has "config.json: Qwen3MoeForCausalLM"; has "mixture of 8 experts of intermediate size 48, 3 per token, their weights renormalized; sparse layers 0 2 (the others dense)"
has "model.layers.1.mlp.gate_proj.weight"; has "model.layers.2.mlp.gate.weight"
run $F/olmoe-f32 0
has "config.json: OlmoeForCausalLM"; has "mixture of 6 experts of intermediate size 48, 2 per token; sparse layers: all"
has "q_norm and k_norm: q and k, all heads at once, RMS-normalized before RoPE"
# Qwen2-MoE: the shared expert counts whole (per sparse layer: attention 24576 + router 1024 + 2
# of 8 experts 24576 + shared expert 36864 + its gate 128; the dense layer 73728; lm_head 40960)
run $F/qwen2moe-bf16 0
has "config.json: Qwen2MoeForCausalLM"; has "biases: q_proj k_proj v_proj"
has "mixture of 8 experts of intermediate size 32, 2 per token, and a gated shared expert of intermediate size 96; sparse layers 0 2 (the others dense)"
has "model.layers.2.mlp.shared_expert_gate.weight"; has "289024 weight bytes read per token, matrices bf16"

# SmolLM3: the layers without RoPE are named
run $F/smollm3-f32 0
has "config.json: SmolLM3ForCausalLM"; has "no RoPE on layers 1"

# a Mistral model: the architecture and its sliding window are named
run $F/mistral-bf16 0
has "config.json: MistralForCausalLM"
has "sliding_window 20 (position i attends to i-19..i)"

# Qwen2 and a Llama with every bias: the biases the model reads are listed
run $F/qwen2-bf16 0
has "config.json: Qwen2ForCausalLM"; has "biases: q_proj k_proj v_proj"; has "model.layers.1.self_attn.k_proj.bias"
run $F/qwen3-f32 0
has "config.json: Qwen3ForCausalLM"; has "q_norm and k_norm"; has "model.layers.0.self_attn.q_norm.weight"
run $F/biased-f16 0
has "config.json: LlamaForCausalLM"; has "biases: q_proj k_proj v_proj o_proj gate_proj up_proj down_proj"

# the weights load but tokenizer.json is broken: still exit 1
copy demo tok
head -c 5000 $F/demo/tokenizer.json >"$T/tok/tokenizer.json"
run "$T/tok" 1
has "model: loads"; count 1; has "tokenizer.json: invalid JSON"

# tensors the model does not use are listed, marked, and not a problem
copy llama32-f32 extra
run "$T/extra" 0

# no folder, no weights; usage
run "$T/nonexistent" 1
has "config.json: cannot open (i/o error)"; has "no model.safetensors or model.safetensors.index.json"
mkdir "$T/empty"; cp $F/llama32-bf16/config.json "$T/empty/"
run "$T/empty" 1
count 1
"$B/inspect" >/dev/null 2>&1; rc=$?; if [ $rc -eq 2 ]; then ok; else bad "no argument: exit $rc, want 2"; fi
"$B/inspect" a b >/dev/null 2>&1; rc=$?; if [ $rc -eq 2 ]; then ok; else bad "two arguments: exit $rc, want 2"; fi

finish
