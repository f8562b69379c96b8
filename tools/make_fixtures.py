#!/usr/bin/env python3
"""Generate the oracle fixtures for xlarun's C tests.

Usage:  python3 tools/make_fixtures.py [--out tests/fixtures] [--only NAME ...]
        python3 tools/make_fixtures.py --generation 5 [--out tests/fixtures] [--only NAME ...]

--generation 5 (pinned to PINNED_V5: torch 2.15.0, transformers 5.24.0) writes, for every family
in CONFIGS and the 5.x-only ones in CONFIGS_V5 (qwen3moe5), one folder
tests/fixtures/<name>-v5-bf16/ with what transformers 5's save_pretrained writes, its config.json
untouched (rope_parameters, num_local_experts, dtype, ...; head_dim is not removed), plus
oracle.safetensors computed the same way with 5.x (from_pretrained(folder, dtype=float32,
attn_implementation="eager")). The weights are drawn from the same seeds in the same order as
4.x's parameters (fill_weights expands 5.x's fused expert tensors into 4.x's per-expert ones), the
seed is accepted by the same rule over all three dtype copies, and only the bf16 copy is saved; the
summary says, per family, whether its weights equal the 4.x <name>-bf16 folder's and how far its
oracle is from that folder's.

For each of five small random-weight LlamaForCausalLM configs (llama32, llama2, mqa, odd, and
biased: attention_bias and mlp_bias true), one MistralForCausalLM config with a sliding window
shorter than prompt + 48 (mistral), one Qwen2ForCausalLM config (qwen2: q, k, v biases), one
Qwen3ForCausalLM config (qwen3: per-head q and k norms; made with transformers 4.51.3, see
FAMILY_PINS) and one Gemma3ForCausalLM config (gemma3: local and global layers; transformers
4.57.1, whose Gemma 3 masks and caches the window the same way in a forward and in generate()),
and the later families in CONFIGS (gemma2, gemma, the Phi-3 ones, smollm3, granite, olmo2, and
the mixtures of experts mixtral, qwen3moe, olmoe and qwen2moe, whose seeds must also keep every routing
decision MIN_ROUTER_GAP away from a tie), this writes tests/fixtures/<name>-<dtype>/ for dtype in f32, bf16, f16, holding what
save_pretrained(safe_serialization=True) writes (config.json, generation_config.json,
model.safetensors or shards + model.safetensors.index.json) plus oracle.safetensors:

  prompt  I32 [P]       prompt token ids
  greedy  I32 [48]      greedy ids (KV-cached decoding, never stops at eos)
  logits  F32 [48, V]   row 0: logits at the last prompt position (chose greedy[0]);
                        row i>0: logits after feeding greedy[i-1] (chose greedy[i])
  metadata: versions, config, dtype, seed, min_margin, max_abs_logit, ...

Each oracle is computed by loading the folder back with
<Llama|Mistral|Qwen2|Qwen3|Gemma3|...>ForCausalLM.from_pretrained(folder, torch_dtype=torch.float32,
attn_implementation="eager"), so bf16/f16 weights are upcast exactly and every dtype has its
own oracle. --only regenerates the named families and leaves the other folders alone.

Everything is deterministic: weights come from numpy's PCG64 with fixed seeds, the prompt from
a separate fixed seed, and torch runs single-threaded on CPU. A weight seed is accepted only if
every dtype copy gives min_margin >= MIN_MARGIN, >= MIN_DISTINCT distinct greedy ids and no
run of one id longer than MAX_RUN; the
script tries seeds base, base+1, ... in order and records the chosen seed (and how many were
rejected) in the metadata and the summary.
"""
import argparse, copy, itertools, json, math, os, platform, shutil, struct, sys, warnings

PINNED = {"torch": "2.5.1", "transformers": "4.46.3", "safetensors": "0.4.5", "numpy": "1.26.4"}
PINNED_V5 = {"torch": "2.15.0", "transformers": "5.24.0", "safetensors": "0.8.0", "numpy": "2.4.6"}

import numpy as np
import torch
import transformers
import safetensors
from safetensors.torch import save_file, load_file
from transformers import LlamaConfig, LlamaForCausalLM, MistralConfig, MistralForCausalLM
from transformers import Qwen2Config, Qwen2ForCausalLM, GemmaConfig, GemmaForCausalLM, Phi3Config, Phi3ForCausalLM
from transformers import GraniteConfig, GraniteForCausalLM
try:   # transformers >= 4.51 (the qwen3 family only)
    from transformers import Qwen3Config, Qwen3ForCausalLM
except ImportError:
    Qwen3Config = Qwen3ForCausalLM = None
try:   # transformers >= 4.53 (the gemma3 family only: layer_types and sliding-window caches)
    from transformers import Gemma3TextConfig, Gemma3ForCausalLM, Gemma2Config, Gemma2ForCausalLM
    import transformers.models.gemma3.modeling_gemma3 as _g3
    if not hasattr(_g3, "create_sliding_window_causal_mask"):
        Gemma3TextConfig = Gemma3ForCausalLM = Gemma2Config = Gemma2ForCausalLM = None
except ImportError:
    Gemma3TextConfig = Gemma3ForCausalLM = Gemma2Config = Gemma2ForCausalLM = None
try:   # transformers >= 4.47 (the olmo2 family only)
    from transformers import Olmo2Config, Olmo2ForCausalLM
except ImportError:
    Olmo2Config = Olmo2ForCausalLM = None
try:   # mixture of experts: Qwen3-MoE from 4.51, OLMoE from 4.45 (their families are made with 4.57.1)
    from transformers import MixtralConfig, MixtralForCausalLM, Qwen3MoeConfig, Qwen3MoeForCausalLM, OlmoeConfig, OlmoeForCausalLM
    from transformers import Qwen2MoeConfig, Qwen2MoeForCausalLM
except ImportError:
    MixtralConfig = MixtralForCausalLM = Qwen3MoeConfig = Qwen3MoeForCausalLM = OlmoeConfig = OlmoeForCausalLM = None
    Qwen2MoeConfig = Qwen2MoeForCausalLM = None
try:   # transformers >= 4.53 (the smollm3 family only)
    from transformers import SmolLM3Config, SmolLM3ForCausalLM
except ImportError:
    SmolLM3Config = SmolLM3ForCausalLM = None
from transformers.cache_utils import DynamicCache

V5 = int(transformers.__version__.split(".")[0]) >= 5   # transformers 5's API: dtype=, DynamicCache(config=)
if V5:
    transformers.utils.logging.disable_progress_bar()
    # 5.24 renames forward's past_key_values to cache (removal announced for 5.40); generate() and
    # this script still pass past_key_values
    warnings.filterwarnings("ignore", message=".*past_key_values. is deprecated", category=FutureWarning)

VERSIONS = {
    "torch": torch.__version__.split("+")[0],
    "transformers": transformers.__version__,
    "safetensors": safetensors.__version__,
    "numpy": np.__version__,
    "python": platform.python_version(),
}

N_NEW = 48
MIN_MARGIN = 0.02      # required top1-top2 logit gap on every row, every dtype
MIN_DISTINCT = 10      # required distinct ids among the 48 greedy ids, every dtype
MAX_RUN = 6            # longest allowed run of one repeated greedy id, every dtype
MAX_SEED_TRIES = 200
DTYPES = [("f32", torch.float32), ("bf16", torch.bfloat16), ("f16", torch.float16)]

# name -> (LlamaConfig kwargs, prompt length, base weight seed, prompt seed, lm-head logit std)
CONFIGS = {
    # Llama 3.2 style: GQA, tied, explicit head_dim != hidden/heads, llama3 rope scaling with a
    # small original_max_position_embeddings so all three llama3 frequency bands occur at hd=32.
    "llama32": (dict(vocab_size=512, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                     tie_word_embeddings=True, rope_theta=500000.0,
                     rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                   "high_freq_factor": 4.0, "original_max_position_embeddings": 32},
                     rms_norm_eps=1e-5, max_position_embeddings=256,
                     bos_token_id=509, eos_token_id=[510, 511]),
                37, 1000, 11, 4.0),
    # Llama 2 / TinyLlama style: untied, MHA, theta 1e4, no scaling; f32 copy sharded in 2.
    "llama2": (dict(vocab_size=320, hidden_size=48, intermediate_size=96, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=4, head_dim=12,
                    tie_word_embeddings=False, rope_theta=10000.0, rope_scaling=None,
                    rms_norm_eps=1e-6, max_position_embeddings=256,
                    bos_token_id=1, eos_token_id=2),
               17, 2000, 22, 4.0),
    # Multi-query attention: one kv head, untied.
    "mqa": (dict(vocab_size=256, hidden_size=64, intermediate_size=80, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=1, head_dim=16,
                 tie_word_embeddings=False, rope_theta=10000.0, rope_scaling=None,
                 rms_norm_eps=1e-5, max_position_embeddings=256,
                 bos_token_id=1, eos_token_id=2),
            29, 3000, 33, 4.0),
    # Odd shapes, none a power of two; head_dim derived (key removed from config.json);
    # linear rope scaling; tied.
    "odd": (dict(vocab_size=389, hidden_size=60, intermediate_size=72, num_hidden_layers=3,
                 num_attention_heads=6, num_key_value_heads=3,
                 tie_word_embeddings=True, rope_theta=10000.0,
                 rope_scaling={"rope_type": "linear", "factor": 2.0},
                 rms_norm_eps=1e-5, max_position_embeddings=256,
                 bos_token_id=1, eos_token_id=2),
            40, 4000, 44, 4.0),
    # Mistral: MistralForCausalLM (rope without scaling, theta 1e6 as v0.2/v0.3) with a sliding
    # window of 20 positions, shorter than the 31-token prompt, so prefill and decode both
    # attend over a window that has left position 0 behind; GQA, untied.
    "mistral": (dict(vocab_size=300, hidden_size=64, intermediate_size=112, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                     tie_word_embeddings=False, rope_theta=1000000.0, sliding_window=20,
                     rms_norm_eps=1e-5, max_position_embeddings=256,
                     bos_token_id=1, eos_token_id=2),
                31, 5000, 55, 4.0),
    # Qwen2 (Qwen2.5 style): q, k and v projections with biases, o and the MLP without; GQA,
    # tied, theta 1e6, head_dim derived (Qwen2Config has no such key), eps 1e-6.
    "qwen2": (dict(vocab_size=352, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2,
                   tie_word_embeddings=True, rope_theta=1000000.0, rope_scaling=None,
                   use_sliding_window=False, rms_norm_eps=1e-6, max_position_embeddings=256,
                   bos_token_id=350, eos_token_id=[351, 349]),
              33, 6000, 66, 4.0),
    # Llama with every bias LlamaConfig can switch on: attention_bias (q, k, v and o) and
    # mlp_bias (gate, up, down); MHA, untied; every K a multiple of 32, so quantizing it
    # quantizes every matrix next to its bias.
    "biased": (dict(vocab_size=200, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=4, head_dim=16,
                    tie_word_embeddings=False, rope_theta=10000.0, rope_scaling=None,
                    attention_bias=True, mlp_bias=True,
                    rms_norm_eps=1e-5, max_position_embeddings=256,
                    bos_token_id=1, eos_token_id=2),
               23, 7000, 77, 4.0),
    # Qwen3 (Qwen3ForCausalLM, transformers 4.51.3): an RMSNorm over each head of q and k before
    # RoPE (q_norm, k_norm), no biases, head_dim 32 explicit (≠ H/nh, as Qwen3-0.6B's 128 x 16 ≠
    # 1024), GQA, tied, theta 1e6, eps 1e-6.
    "qwen3": (dict(vocab_size=320, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                   tie_word_embeddings=True, rope_theta=1000000.0, rope_scaling=None,
                   attention_bias=False, use_sliding_window=False, sliding_window=None, rms_norm_eps=1e-6,
                   max_position_embeddings=256, bos_token_id=318, eos_token_id=[319, 317]),
              35, 8000, 88, 4.0),
    # Gemma 3 (Gemma3ForCausalLM, transformers 4.57.1): 4 layers, the third global and the rest
    # local (sliding_window_pattern 3; the hub's is 6; 4.57 saves both it and layer_types) with a
    # window of 20 under a 31-token prompt; local RoPE base 1e4 unscaled, global 1e6 with linear
    # scaling 8 (as Gemma 3 4B+); MQA (1 KV head, as 1B); head_dim 32 != H/nh and a
    # query_pre_attn_scalar (24) that is neither; H = 96, so sqrt(H) is not exact in f32; tied.
    "gemma3": (dict(vocab_size=320, hidden_size=96, intermediate_size=160, num_hidden_layers=4,
                    num_attention_heads=4, num_key_value_heads=1, head_dim=32, query_pre_attn_scalar=24,
                    tie_word_embeddings=True, rope_theta=1000000.0, rope_local_base_freq=10000.0,
                    rope_scaling={"rope_type": "linear", "factor": 8.0}, sliding_window=20,
                    sliding_window_pattern=3, attention_bias=False, rms_norm_eps=1e-6,
                    max_position_embeddings=256, bos_token_id=2, eos_token_id=[1, 106], pad_token_id=0),
               31, 9000, 99, 3.0),
    # Gemma 2 (Gemma2ForCausalLM, transformers 4.57.1): 4 layers, even ones local (Gemma2Config's
    # layer_types) with a window of 20; soft caps on the scores and the logits, set low (5 and
    # 10; the hub's are 50 and 30) so they shape this small model's scores and logits; no head
    # norms; GQA; head_dim 32 != H/nh; query_pre_attn_scalar 24; tied.
    "gemma2": (dict(vocab_size=320, hidden_size=96, intermediate_size=160, num_hidden_layers=4,
                    num_attention_heads=4, num_key_value_heads=2, head_dim=32, query_pre_attn_scalar=24,
                    tie_word_embeddings=True, rope_theta=10000.0, sliding_window=20,
                    attn_logit_softcapping=5.0, final_logit_softcapping=10.0, attention_bias=False,
                    rms_norm_eps=1e-6, max_position_embeddings=256, bos_token_id=2, eos_token_id=[1, 107],
                    pad_token_id=0),
               29, 9500, 111, 3.0),
    # Gemma 1 (GemmaForCausalLM, transformers 4.57.1): GELU in its tanh form, named
    # gelu_pytorch_tanh, which every version reads alike (the hub's "gelu" is the exact form in
    # 4.51-4.57 only, the tanh form in 4.46 and 5.x); norms times 1 + w, the embedding times
    # sqrt(H) with H = 96 (not exact in f32), scores times head_dim^-0.5, no window; MQA (as
    # 2B); head_dim 32 != H/nh (as 7B's 256 x 16 != 3072); tied.
    "gemma": (dict(vocab_size=320, hidden_size=96, intermediate_size=160, num_hidden_layers=3,
                   num_attention_heads=4, num_key_value_heads=1, head_dim=32, hidden_act="gelu_pytorch_tanh",
                   tie_word_embeddings=True, rope_theta=10000.0, attention_bias=False,
                   rms_norm_eps=1e-6, max_position_embeddings=256, bos_token_id=2, eos_token_id=1,
                   pad_token_id=0),
              27, 9700, 121, 3.0),
    # Phi-3 (Phi3ForCausalLM, transformers 4.57.1): q, k and v in one matrix (qkv_proj, rows in
    # that order) and gate and up in one (gate_up_proj); a sliding window of 20 under the
    # 31-token prompt (Phi-3-mini-4k's is 2047); GQA (as Phi-3-medium); head_dim derived; untied;
    # eps 1e-5 (Phi3Config's default); no RoPE scaling (the 4k models).
    "phi3": (dict(vocab_size=320, hidden_size=64, intermediate_size=112, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=False,
                  rope_theta=10000.0, rope_scaling=None, sliding_window=20, rms_norm_eps=1e-5,
                  max_position_embeddings=256, original_max_position_embeddings=256,
                  bos_token_id=1, eos_token_id=2, pad_token_id=0),
             31, 9800, 131, 4.0),
    # Phi-3.5 / Phi-4-mini style (Phi3ForCausalLM, transformers 4.57.1): longrope with its short
    # factors (prompt + 48 stay within original_max_position_embeddings 128; max 512 gives the
    # attention factor sqrt(1 + ln 4 / ln 128) on cos and sin), a partial_rotary_factor of 0.5
    # (the first 8 of 16 dimensions rotate, as Phi-4-mini's 0.75), tied (as Phi-4-mini), MHA.
    "phi3lr": (dict(vocab_size=320, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=4, tie_word_embeddings=True,
                    rope_theta=10000.0, partial_rotary_factor=0.5,
                    rope_scaling={"type": "longrope", "short_factor": [1.0, 1.7, 3.1, 5.3], "long_factor": [2.0, 4.0, 8.0, 16.0]},
                    sliding_window=None, rms_norm_eps=1e-5, max_position_embeddings=512,
                    original_max_position_embeddings=128, bos_token_id=1, eos_token_id=2, pad_token_id=0),
               29, 9900, 141, 4.0),
}
# longrope past the original max: transformers picks the factors per forward by its last position,
# the long ones past original_max_position_embeddings, and Phi-3's generate() runs the whole
# sequence again at the crossing, so every row is that of one forward over the sequence (greedy()
# does the same). phi3mix: a 100-token prompt under the short factors, its decode step at position
# 128 runs all 129 again with the long ones; phi3long: a 150-token prompt, all long.
# SmolLM3 (SmolLM3ForCausalLM, transformers 4.57.1): Llama with no RoPE on the layers whose
# no_rope_layers entry is 0 (SmolLM3-3B: every 4th), here the middle one of three; GQA, tied (the
# class default), theta 1e4 so that RoPE matters at these positions
CONFIGS["smollm3"] = (dict(vocab_size=320, hidden_size=64, intermediate_size=112, num_hidden_layers=3,
                           num_attention_heads=4, num_key_value_heads=2, no_rope_layers=[1, 0, 1], rope_theta=10000.0,
                           rms_norm_eps=1e-6, max_position_embeddings=256, bos_token_id=1, eos_token_id=2, pad_token_id=0),
                      31, 9990, 171, 4.0)
# Granite 3 (GraniteForCausalLM, transformers 4.46.3): Llama with the embedding times
# embedding_multiplier, scores times attention_multiplier (not 1/sqrt(head_dim)), each attention
# and MLP output times residual_multiplier before it is added, the logits divided by
# logits_scaling; GQA, untied (the class default)
CONFIGS["granite"] = (dict(vocab_size=320, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, rope_theta=10000.0, rms_norm_eps=1e-6,
                           max_position_embeddings=256, embedding_multiplier=3.0, attention_multiplier=0.3,
                           residual_multiplier=0.7, logits_scaling=1.5, bos_token_id=1, eos_token_id=2, pad_token_id=0),
                      31, 9995, 181, 4.0)
# OLMo 2 (Olmo2ForCausalLM, transformers 4.57.1): no norm before attention or the MLP; their
# outputs normalized (post_attention_layernorm, post_feedforward_layernorm) before the residual
# add; q and k RMS-normalized over all heads at once before RoPE; GQA, untied
CONFIGS["olmo2"] = (dict(vocab_size=320, hidden_size=64, intermediate_size=112, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, rope_theta=10000.0, rms_norm_eps=1e-6,
                         max_position_embeddings=256, bos_token_id=1, eos_token_id=2, pad_token_id=0),
                    31, 10010, 191, 4.0)
# Mixtral (MixtralForCausalLM, transformers 4.57.1): Mistral (here with a window of 20 under the
# 31-token prompt) whose MLP is a mixture of 4 experts (w1 gate, w3 up, w2 down), 2 per token,
# their router probabilities renormalized; GQA, untied
CONFIGS["mixtral"] = (dict(vocab_size=320, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, rope_theta=10000.0, sliding_window=20,
                           num_local_experts=4, num_experts_per_tok=2, rms_norm_eps=1e-5,
                           max_position_embeddings=256, bos_token_id=1, eos_token_id=2, pad_token_id=0),
                      31, 10020, 201, 4.0)
# Qwen3-MoE (Qwen3MoeForCausalLM, transformers 4.57.1): Qwen3 (per-head q and k norms; head_dim 32
# != H/nh, as Qwen3-30B-A3B's 128 x 32 != 2048) with 8 experts of moe_intermediate_size 48, 3 per
# token, renormalized (norm_topk_prob, as the hub's); the middle layer of three dense
# (mlp_only_layers, intermediate_size 128)
CONFIGS["qwen3moe"] = (dict(vocab_size=320, hidden_size=64, intermediate_size=128, moe_intermediate_size=48,
                            num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                            num_experts=8, num_experts_per_tok=3, norm_topk_prob=True, decoder_sparse_step=1,
                            mlp_only_layers=[1], rope_theta=10000.0, rms_norm_eps=1e-6, tie_word_embeddings=False,
                            max_position_embeddings=256, bos_token_id=1, eos_token_id=2, pad_token_id=0),
                       31, 10030, 211, 4.0)
# OLMoE (OlmoeForCausalLM, transformers 4.57.1): Llama's norms, q and k RMS-normalized whole (as
# OLMo 2), a mixture of 6 experts, 2 per token, not renormalized (norm_topk_prob false, as the
# hub's OLMoE-1B-7B); GQA, untied
CONFIGS["olmoe"] = (dict(vocab_size=320, hidden_size=64, intermediate_size=48, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, num_experts=6, num_experts_per_tok=2,
                         norm_topk_prob=False, rope_theta=10000.0, rms_norm_eps=1e-5,
                         max_position_embeddings=256, bos_token_id=1, eos_token_id=2, pad_token_id=0),
                    31, 10040, 221, 4.0)
# Qwen2-MoE (Qwen2MoeForCausalLM, transformers 4.57.1): Qwen2 (q, k and v biases) with 8 experts of
# moe_intermediate_size 32, 2 per token, not renormalized (norm_topk_prob false, as Qwen1.5-MoE-A2.7B's),
# plus a shared expert of 96 on every token, times the sigmoid of shared_expert_gate; the middle
# layer of three dense (mlp_only_layers, intermediate_size 128); GQA, untied
CONFIGS["qwen2moe"] = (dict(vocab_size=320, hidden_size=64, intermediate_size=128, moe_intermediate_size=32,
                            shared_expert_intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
                            num_key_value_heads=2, num_experts=8, num_experts_per_tok=2, norm_topk_prob=False,
                            decoder_sparse_step=1, mlp_only_layers=[1], rope_theta=10000.0, rms_norm_eps=1e-6,
                            tie_word_embeddings=False, max_position_embeddings=256, bos_token_id=1, eos_token_id=2,
                            pad_token_id=0),
                       31, 10050, 231, 4.0)
# families made by --generation 5 only (transformers 5.24.0)
CONFIGS_V5 = {
    # Qwen3-MoE with 5 experts (an odd count), 2 per token, renormalized; head_dim 22 (11 rotary
    # frequencies; != H/nh = 16); layer 0 dense (mlp_only_layers [0]), layers 1 and 2 sparse.
    # transformers 5 saves the expert count as num_local_experts (issue 24)
    "qwen3moe5": (dict(vocab_size=320, hidden_size=64, intermediate_size=128, moe_intermediate_size=48,
                       num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=22,
                       num_experts=5, num_experts_per_tok=2, norm_topk_prob=True, decoder_sparse_step=1,
                       mlp_only_layers=[0], rope_theta=10000.0, rms_norm_eps=1e-6, tie_word_embeddings=False,
                       max_position_embeddings=256, bos_token_id=1, eos_token_id=2, pad_token_id=0),
                  31, 10060, 241, 4.0),
}
PHI3LR = CONFIGS["phi3lr"][0]
CONFIGS["phi3mix"] = (PHI3LR, 100, 9950, 151, 4.0)
CONFIGS["phi3long"] = (PHI3LR, 150, 9970, 161, 4.0)
# q and k rows of qkv_proj times this after fill_weights: over 100+ positions attention at the
# usual gain averages the context away and greedy settles on one id (no seed of 200 passed)
QK_SCALE = {"phi3mix": 3.0, "phi3long": 3.0}
ARCH = {"mistral": (MistralConfig, MistralForCausalLM), "qwen2": (Qwen2Config, Qwen2ForCausalLM),
        "gemma": (GemmaConfig, GemmaForCausalLM), "phi3": (Phi3Config, Phi3ForCausalLM), "phi3lr": (Phi3Config, Phi3ForCausalLM),
        "phi3mix": (Phi3Config, Phi3ForCausalLM), "phi3long": (Phi3Config, Phi3ForCausalLM),
        "qwen3": (Qwen3Config, Qwen3ForCausalLM), "smollm3": (SmolLM3Config, SmolLM3ForCausalLM),
        "granite": (GraniteConfig, GraniteForCausalLM), "olmo2": (Olmo2Config, Olmo2ForCausalLM),
        "mixtral": (MixtralConfig, MixtralForCausalLM), "qwen3moe": (Qwen3MoeConfig, Qwen3MoeForCausalLM),
        "olmoe": (OlmoeConfig, OlmoeForCausalLM), "qwen2moe": (Qwen2MoeConfig, Qwen2MoeForCausalLM),
        "gemma3": (Gemma3TextConfig, Gemma3ForCausalLM), "gemma2": (Gemma2Config, Gemma2ForCausalLM),
        "qwen3moe5": (Qwen3MoeConfig, Qwen3MoeForCausalLM)}   # the rest: Llama
# families whose model class needs other versions than PINNED: made only with --only, under these
# (python3 -m venv --system-site-packages V && V/bin/pip install transformers==4.51.3;
#  V/bin/python tools/make_fixtures.py --only qwen3; the same with 4.57.1 and --only gemma3)
FAMILY_PINS = {"qwen3": {"transformers": "4.51.3"}, "gemma3": {"transformers": "4.57.1"}, "gemma2": {"transformers": "4.57.1"},
               "gemma": {"transformers": "4.57.1"}, "phi3": {"transformers": "4.57.1"}, "phi3lr": {"transformers": "4.57.1"},
               "phi3long": {"transformers": "4.57.1"}, "smollm3": {"transformers": "4.57.1"}, "olmo2": {"transformers": "4.57.1"},
               "mixtral": {"transformers": "4.57.1"}, "qwen3moe": {"transformers": "4.57.1"}, "olmoe": {"transformers": "4.57.1"},
               "qwen2moe": {"transformers": "4.57.1"},
               # 4.57.1's generate() with eager attention drops the cache at the crossing but not its
               # cache_position and then matches neither this loop nor a forward over the sequence
               # (with sdpa it matches); 5.23.0's matches with either
               "phi3mix": {"transformers": "5.23.0", "torch": "2.6.0", "safetensors": "0.8.0"}}
SHARDED = {("llama2", "f32")}   # folders saved as exactly two shards + index


def check_versions(pins):
    bad = {k: (VERSIONS[k], v) for k, v in pins.items() if VERSIONS[k] != v}
    if bad:
        msg = "version mismatch (have, pinned): %s" % bad
        if os.environ.get("XLARUN_FIXTURES_ANY_VERSION"):
            warnings.warn(msg)
        else:
            sys.exit(msg + "\nset XLARUN_FIXTURES_ANY_VERSION=1 to proceed anyway")


def make_config(name, kw):
    if name in ("gemma3", "gemma2", "gemma"):   # 2, 3: hidden_activation (default gelu_pytorch_tanh); 1: hidden_act in kw
        cfg = ARCH[name][0](**kw)
    elif name in ARCH:
        cfg = ARCH[name][0](hidden_act="silu", **kw)
    else:
        cfg = LlamaConfig(hidden_act="silu", **{"attention_bias": False, "mlp_bias": False, **kw})
    cfg._attn_implementation = "eager"
    return cfg


def model_class(name):
    return ARCH[name][1] if name in ARCH else LlamaForCausalLM


EXPERT_NAMES = {"mixtral": ("block_sparse_moe.experts.%d.", "w1", "w3", "w2", ("w1", "w2", "w3"))}
EXPERT_NAMES_DEFAULT = ("mlp.experts.%d.", "gate_proj", "up_proj", "down_proj", ("gate_proj", "up_proj", "down_proj"))


def param_plan(model):
    """(name, shape, tensor to copy into) for every parameter, in transformers 4's named_parameters
    order with its names and shapes. transformers 5 keeps a mixture's experts as two 3-D tensors per
    layer (experts.gate_up_proj [E, 2I, H]: gate rows then up rows; experts.down_proj [E, H, I]) and
    may list them before the router (Qwen3-MoE); 4.x had the router, then per expert its own
    matrices (Mixtral: w1, w2, w3; the others: gate_proj, up_proj, down_proj). Listing them the 4.x
    way draws the same numbers into the same places, so both generations get the same weights."""
    ex = EXPERT_NAMES.get(model.config.model_type, EXPERT_NAMES_DEFAULT)
    params = dict(model.named_parameters())
    plan = []
    for name, p in params.items():
        if p.dim() == 3 and name.endswith("experts.down_proj"):
            continue
        if p.dim() == 3 and name.endswith("experts.gate_up_proj"):
            lp = name[:-len("mlp.experts.gate_up_proj")]   # "model.layers.N."
            down = params[name[:-len("gate_up_proj")] + "down_proj"]
            I = down.shape[2]
            router = lp + "mlp.gate.weight"
            if not any(n == router for n, _, _ in plan):   # the router first, as 4.x registered it
                plan.append((router, tuple(params[router].shape), params[router]))
            for e in range(p.shape[0]):
                views = {ex[1]: p[e, :I], ex[2]: p[e, I:], ex[3]: down[e]}
                for part in ex[4]:
                    v = views[part]
                    plan.append((lp + (ex[0] % e) + part + ".weight", tuple(v.shape), v))
            continue
        if any(n == name for n, _, _ in plan):
            continue
        plan.append((name, tuple(p.shape), p))
    return plan


def fill_weights(model, cfg, seed, logit_std, qk_scale=1.0):
    """Deterministic weights with spread-out logits.

    embeddings / lm_head: N(0, (logit_std/sqrt(H))^2) -> logits std ~ logit_std (RMSNorm output
    has RMS ~1); projections: N(0, (gain/sqrt(fan_in))^2), gain 1.5 for q/k (peaked attention),
    3.0 for o_proj/down_proj (Mixtral's w2; the layers, not the current token's embedding, dominate the
    residual stream; otherwise tied models just repeat their last token) and 1.0 for v/gate/up;
    norms: 1 + 0.1*N(0,1) (Qwen3's q_norm/k_norm twice that; Gemma's norms multiply by 1 + w, so
    theirs are stored 1 less, and its norms on the attention's and the MLP's output scale by
    about 9, so the layers, not the sqrt(H)-scaled embedding, decide the next token; Gemma 1,
    without those norms, gets o_proj/down_proj gains of 24 for the same reason); biases: N(0, 0.5^2) (1.0 for k_proj, as Qwen's k biases are large).
    Tied models use the embedding for both. qk_scale multiplies the q and k rows of a fused
    qkv_proj (QK_SCALE).
    """
    rng = np.random.default_rng(seed)
    H = cfg.hidden_size
    gemma = np.float32(cfg.model_type in ("gemma3_text", "gemma2", "gemma"))
    with torch.no_grad():
        for name, shape, p in param_plan(model):   # tied lm_head is not listed separately
            if name.endswith(("q_norm.weight", "k_norm.weight")):   # peaked attention after the head norms
                w = 2.0 * (1.0 + 0.1 * rng.standard_normal(shape, dtype=np.float32)) - gemma
            elif gemma and cfg.model_type != "gemma" and name.endswith(("post_attention_layernorm.weight", "post_feedforward_layernorm.weight")):
                w = 8.0 + 0.1 * rng.standard_normal(shape, dtype=np.float32)   # 9x: the layers outweigh the scaled embedding
            elif name.endswith("norm.weight"):
                w = 1.0 + 0.1 * rng.standard_normal(shape, dtype=np.float32) - gemma
            elif name.endswith(".bias"):
                w = (1.0 if "k_proj" in name else 0.5) * rng.standard_normal(shape, dtype=np.float32)
            elif name in ("model.embed_tokens.weight", "lm_head.weight"):
                w = (logit_std / math.sqrt(H)) * rng.standard_normal(shape, dtype=np.float32)
            else:
                gain = (1.5 if ("q_proj" in name or "k_proj" in name) else
                        (24.0 if cfg.model_type == "gemma" else 3.0) if ("o_proj" in name or "down_proj" in name or name.endswith(".w2.weight")) else 1.0)
                w = (gain / math.sqrt(shape[1])) * rng.standard_normal(shape, dtype=np.float32)
            if name.endswith("qkv_proj.weight"):   # q's and k's rows, before v's
                w[:(cfg.num_attention_heads + cfg.num_key_value_heads) * (cfg.hidden_size // cfg.num_attention_heads)] *= qk_scale
            p.copy_(torch.from_numpy(w))
    if cfg.tie_word_embeddings:
        assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()


def new_cache(model):
    """The cache generate() makes: 5.x's DynamicCache(config=) holds the window's layers as sliding ones."""
    return DynamicCache(config=model.config) if V5 else DynamicCache()


@torch.no_grad()
def greedy(model, prompt, n=N_NEW):
    """KV-cached greedy decoding as generate(do_sample=False) does it, never stopping. longrope
    (Phi3ForCausalLM.prepare_inputs_for_generation): the step whose sequence first passes
    original_max_position_embeddings drops the cache and runs the whole sequence again, now with
    the long factors, so each row is the last row of one forward over the whole sequence."""
    rs = (getattr(model.config, "rope_parameters", None) if V5 else getattr(model.config, "rope_scaling", None)) or {}
    om = getattr(model.config, "original_max_position_embeddings", None) if rs.get("rope_type", rs.get("type")) == "longrope" else None
    seq = list(prompt)
    out = model(input_ids=torch.tensor([seq]), past_key_values=new_cache(model), use_cache=True)
    rows, toks = [], []
    for i in range(n):
        logits = out.logits[0, -1].to(torch.float32)
        t = int(torch.argmax(logits))
        rows.append(logits.clone())
        toks.append(t)
        seq.append(t)
        if i + 1 < n:
            if om and len(seq) == om + 1 and len(prompt) <= om:   # the crossing: all again
                out = model(input_ids=torch.tensor([seq]), past_key_values=new_cache(model), use_cache=True)
            else:
                out = model(input_ids=torch.tensor([[t]]), past_key_values=out.past_key_values,
                            use_cache=True)
    return toks, torch.stack(rows)


def stats(toks, logits):
    top2 = torch.topk(logits, 2, dim=-1).values
    margins = top2[:, 0] - top2[:, 1]
    return dict(min_margin=float(margins.min()), min_margin_row=int(margins.argmin()),
                max_abs_logit=float(logits.abs().max()), distinct=len(set(toks)),
                longest_run=max(len(list(g)) for _, g in itertools.groupby(toks)))


MIN_ROUTER_GAP = 1e-4  # mixture of experts: required gap between the last chosen and the first
                       # unchosen expert's probability, every token and layer, every dtype


@torch.no_grad()
def router_gap(model, prompt, toks):
    """Mixture of experts: the smallest gap between the num_experts_per_tok-th and the next
    router probability over every sparse layer and position of one forward over the sequence
    (None for a dense model). A gap near 0 would let rounding choose another expert."""
    k = getattr(model.config, "num_experts_per_tok", None)
    if not k:
        return None
    out = model(input_ids=torch.tensor([prompt + toks[:-1]]), output_router_logits=True)
    gaps = [float((p[:, k - 1] - p[:, k]).min())
            for p in (torch.sort(torch.softmax(r.float(), -1), -1, descending=True).values for r in out.router_logits)]
    assert len(gaps) == sum(1 for m in model.modules() if type(m).__name__.endswith("SparseMoeBlock"))
    return min(gaps)


def rounded(model, dtype):
    """The model whose weights are `model`'s rounded to dtype, upcast back to f32."""
    if dtype == torch.float32:
        return model
    m = type(model)(model.config)
    m.load_state_dict({k: v.to(dtype).to(torch.float32) for k, v in model.state_dict().items()})
    m.eval()
    return m


def choose_seed(name, kw, plen, base_seed, prompt_seed, logit_std):
    cfg = make_config(name, kw)
    prompt = np.random.default_rng(prompt_seed).integers(0, cfg.vocab_size, plen).tolist()
    rejected = []
    for seed in range(base_seed, base_seed + MAX_SEED_TRIES):
        model = model_class(name)(cfg)
        fill_weights(model, cfg, seed, logit_std, QK_SCALE.get(name, 1.0))
        model.eval()
        ok, worst = True, []
        for dn, dt in DTYPES:
            rm = rounded(model, dt)
            toks, logits = greedy(rm, prompt)
            s = stats(toks, logits)
            gap = router_gap(rm, prompt, toks)
            worst.append((dn, round(s["min_margin"], 5), s["distinct"], s["longest_run"]) + (() if gap is None else (gap,)))
            if s["min_margin"] < MIN_MARGIN or s["distinct"] < MIN_DISTINCT or s["longest_run"] > MAX_RUN or \
                    (gap is not None and gap < MIN_ROUTER_GAP):
                ok = False
                break
        if ok:
            return cfg, model, prompt, seed, rejected
        rejected.append((seed, worst[-1]))
    sys.exit("%s: no acceptable seed in %d tries" % (name, MAX_SEED_TRIES))


def save_folder(model, dt, folder, sharded, drop_head_dim):
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    m = copy.deepcopy(model).to(dt) if dt != torch.float32 else model
    if sharded:
        total = sum(p.numel() * p.element_size() for p in m.state_dict().values())
        for frac in (0.55, 0.6, 0.65, 0.7, 0.75, 0.5):
            m.save_pretrained(folder, safe_serialization=True, max_shard_size=int(total * frac))
            shards = [f for f in os.listdir(folder) if f.endswith(".safetensors")]
            if len(shards) == 2 and os.path.exists(os.path.join(folder, "model.safetensors.index.json")):
                break
            shutil.rmtree(folder)
        else:
            sys.exit("could not shard %s into exactly 2 files" % folder)
    else:
        m.save_pretrained(folder, safe_serialization=True)
    if drop_head_dim:   # exercise the derived head_dim = hidden/heads path in the C loader
        p = os.path.join(folder, "config.json")
        with open(p) as f:
            c = json.load(f)
        assert (c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]) == c["hidden_size"] // c["num_attention_heads"]
        c.pop("head_dim", None)
        with open(p, "w") as f:
            json.dump(c, f, indent=2, sort_keys=True)
            f.write("\n")


def canonicalize_header(path):
    """save_file writes __metadata__ in Rust HashMap order, which changes run to run. Rewrite the
    header in place with the metadata keys sorted (same JSON text, permuted; same length), so
    the fixtures are byte-reproducible. Tensor entries and data are untouched."""
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    text = raw[8:8 + n].decode("utf-8")
    body = text.rstrip(" ")
    h = json.loads(body)
    h["__metadata__"] = dict(sorted(h["__metadata__"].items()))
    new = json.dumps(h, separators=(",", ":"), ensure_ascii=False)
    assert len(new.encode()) == len(body.encode()) and json.loads(new) == json.loads(body)
    new = new + " " * (n - len(new.encode()))
    with open(path, "wb") as f:
        f.write(raw[:8] + new.encode() + raw[8 + n:])


def oracle(folder, name, dn, seed, prompt, check_generate):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = model_class(name).from_pretrained(folder, **{"dtype" if V5 else "torch_dtype": torch.float32},
                                                  attn_implementation="eager")
    model.eval()
    assert model.config._attn_implementation == "eager"
    toks, logits = greedy(model, prompt)
    s = stats(toks, logits)
    gap = router_gap(model, prompt, toks)
    assert torch.equal(torch.argmax(logits, dim=-1), torch.tensor(toks))
    gen_note = "not checked"
    if check_generate:
        eos = model.generation_config.eos_token_id
        eos = set(eos if isinstance(eos, list) else ([] if eos is None else [eos]))
        eos_off = bool(eos & set(toks))
        if eos_off:   # min_new_tokens would mask eos (changing the argmax); turn eos off instead
            model.generation_config.eos_token_id = None
        with torch.no_grad():
            g = model.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                               do_sample=False, max_new_tokens=N_NEW, min_new_tokens=N_NEW,
                               output_logits=True, return_dict_in_generate=True,
                               pad_token_id=0)
        gids = g.sequences[0, len(prompt):].tolist()
        assert gids == toks, "%s-%s: generate() ids differ from the KV-cached greedy loop" % (name, dn)
        glog = torch.stack([l[0].float() for l in g.logits])
        diff = float((glog - logits).abs().max())
        gen_note = "ids equal; max |logit diff| %.3g%s" % (
            diff, "; eos occurs in greedy, checked with eos_token_id=None" if eos_off else
            "; checked with min_new_tokens=48")
    meta = {
        **VERSIONS, "config": name, "dtype": dn, "seed": str(seed),
        "min_margin": repr(s["min_margin"]), "max_abs_logit": repr(s["max_abs_logit"]),
        "min_margin_row": str(s["min_margin_row"]), "distinct_ids": str(s["distinct"]),
        "longest_run": str(s["longest_run"]),
        "n_new": str(N_NEW), "prompt_len": str(len(prompt)),
        "reference": model_class(name).__name__ + ".from_pretrained(folder, %s=float32, " % ("dtype" if V5 else "torch_dtype") +
                     "attn_implementation=eager), KV-cached greedy, torch.argmax",
        "generate_check": gen_note,
    }
    if gap is not None:
        meta["min_router_gap"] = repr(gap)
    save_file({"prompt": torch.tensor(prompt, dtype=torch.int32),
               "greedy": torch.tensor(toks, dtype=torch.int32),
               "logits": logits.contiguous().to(torch.float32)},
              os.path.join(folder, "oracle.safetensors"), metadata=meta)
    canonicalize_header(os.path.join(folder, "oracle.safetensors"))
    # re-verify from disk
    back = load_file(os.path.join(folder, "oracle.safetensors"))
    assert back["greedy"].tolist() == toks and back["prompt"].tolist() == prompt
    assert torch.equal(torch.argmax(back["logits"], dim=-1).to(torch.int32), back["greedy"])
    return s, gen_note


def numpy_reference(folder):
    """Independent float64 numpy forward pass written from SPEC.md section 2 (RMSNorm, rotate_half
    RoPE with default/linear/llama3 inv_freq, GQA by contiguous blocks, causal softmax attention
    scaled by 1/sqrt(head_dim), Mistral's (and Phi-3's) sliding window (position i sees
    i-W+1..i), Phi-3's fused qkv_proj and gate_up_proj split by rows, SwiGLU,
    tied head, each projection's bias when the file has one, Qwen3's per-head q/k norms; Gemma 3:
    norms times 1 + w, embeddings times sqrt(hidden), scores times query_pre_attn_scalar^-0.5,
    local layers (layer_types) with their own RoPE base and the window, norms after attention and
    around the MLP, GELU (tanh); Gemma 1: the 1 + w, the sqrt(hidden) and GELU (tanh) on the
    Llama block; Granite: its four multipliers; OLMo 2: norms after attention and MLP only, q and
    k normalized whole; SmolLM3: no RoPE on the layers no_rope_layers gives 0; Phi-3: partial rotary, longrope's factors (a row whose sequence is longer than
    the original max from one forward with the long ones) and attention factor). Returns
    max |logit - oracle| over the 48 rows
    and whether its argmax reproduces greedy. A cross-check of the spec, not of the oracle."""
    from safetensors import safe_open
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    W = {}
    for fn in sorted(os.listdir(folder)):
        if fn.startswith("model") and fn.endswith(".safetensors"):
            with safe_open(os.path.join(folder, fn), "pt") as st:
                for k in st.keys():
                    W[k] = st.get_tensor(k).to(torch.float64).numpy()
    H, nh, nkv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg.get("head_dim") or H // nh
    for k in [k for k in W if k.endswith("qkv_proj.weight")]:   # Phi-3: q, k, v rows in one matrix
        p = k[:-len("qkv_proj.weight")]
        W[p + "q_proj.weight"], W[p + "k_proj.weight"], W[p + "v_proj.weight"] = np.split(W.pop(k), [nh * hd, (nh + nkv) * hd])
    for k in [k for k in W if k.endswith("gate_up_proj.weight")]:   # gate rows, then up rows
        p = k[:-len("gate_up_proj.weight")]
        W[p + "gate_proj.weight"], W[p + "up_proj.weight"] = np.split(W.pop(k), 2)
    for k in [k for k in W if ".block_sparse_moe." in k]:   # Mixtral's names: w1 gate, w3 up, w2 down
        W[k.replace(".block_sparse_moe.", ".mlp.").replace(".w1.", ".gate_proj.").replace(".w3.", ".up_proj.")
          .replace(".w2.", ".down_proj.")] = W.pop(k)
    eps = cfg["rms_norm_eps"]
    gemma = cfg.get("model_type") in ("gemma3_text", "gemma2")
    gemma1 = cfg.get("model_type") == "gemma"
    olmo2 = cfg.get("model_type") == "olmo2"   # norms after attention and MLP only; q, k normalized whole
    whole_qk = cfg.get("model_type") in ("olmo2", "olmoe")   # q and k RMS-normalized whole, not per head
    rot = int(hd * cfg.get("partial_rotary_factor", 1.0))   # Phi-3: the first rot dims of a head rotate
    rp = cfg.get("rope_parameters") or {}   # transformers 5 writes theta and the scaling there
    local_theta = cfg.get("rope_local_base_freq")
    if "full_attention" in rp:   # transformers 5's Gemma 3: one set per layer type
        local_theta = rp["sliding_attention"]["rope_theta"]
        assert rp["sliding_attention"].get("rope_type", "default") == "default"
        rp = rp["full_attention"]
    inv = 1.0 / (cfg.get("rope_theta", rp.get("rope_theta")) ** (np.arange(0, rot, 2) / rot))
    inv_long = long_from = None
    mscale = 1.0
    rs = cfg.get("rope_scaling") or (rp if rp.get("rope_type", "default") != "default" else None)
    if rs:
        kind = rs.get("rope_type", rs.get("type"))
        if kind == "longrope":   # short factors; long ones for calls that pass the original max
            om = cfg["original_max_position_embeddings"]
            inv_long = inv / np.array(rs["long_factor"])
            inv = inv / np.array(rs["short_factor"])
            long_from = om
            s = cfg["max_position_embeddings"] / om
            mscale = math.sqrt(1 + math.log(s) / math.log(om)) if s > 1 else 1.0
        elif kind == "linear":
            inv = inv / rs["factor"]
        elif kind == "llama3":
            fa, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
            L = rs["original_max_position_embeddings"]
            wl = 2 * math.pi / inv
            sm = (L / wl - lo) / (hi - lo)
            inv = np.where(wl < L / hi, inv, np.where(wl > L / lo, inv / fa, (1 - sm) * inv / fa + sm * inv))
        else:
            raise ValueError(kind)
    o = load_file(os.path.join(folder, "oracle.safetensors"))
    prompt, toks = o["prompt"].tolist(), o["greedy"].tolist()
    seq = prompt + toks[:-1]
    T = len(seq)
    def cos_sin(inv):
        ang = np.outer(np.arange(T), inv)
        return (np.cos(np.concatenate([ang, ang], 1)) * mscale)[:, None], (np.sin(np.concatenate([ang, ang], 1)) * mscale)[:, None]
    rms = lambda x, w: (1.0 + w if gemma or gemma1 else w) * x / np.sqrt((x * x).mean(-1, keepdims=True) + eps)
    rope = lambda x, cs: np.concatenate([x[..., :rot] * cs[0] + np.concatenate([-x[..., rot // 2:rot], x[..., :rot // 2]], -1) * cs[1],
                                         x[..., rot:]], -1)
    def forward(glob):   # logits at every position of one forward over seq
        local = cos_sin(1.0 / (local_theta ** (np.arange(0, hd, 2) / hd))) if local_theta else glob
        types = cfg.get("layer_types") or ["sliding_attention" if cfg.get("sliding_window") else "full_attention"] * cfg["num_hidden_layers"]
        scale = cfg["query_pre_attn_scalar"] ** -0.5 if gemma else cfg.get("attention_multiplier", 1 / math.sqrt(hd))
        rm = cfg.get("residual_multiplier", 1.0)   # Granite's multipliers (1 elsewhere)
        h = W["model.embed_tokens.weight"][seq] * (math.sqrt(H) if gemma or gemma1 else cfg.get("embedding_multiplier", 1.0))
        for l in range(cfg["num_hidden_layers"]):
            p = "model.layers.%d." % l
            cs = local if types[l] == "sliding_attention" else glob
            x = h if olmo2 else rms(h, W[p + "input_layernorm.weight"])
            lin = lambda x, n: x @ W[p + n + ".weight"].T + W.get(p + n + ".bias", 0.0)
            qn, kn = W.get(p + "self_attn.q_norm.weight"), W.get(p + "self_attn.k_norm.weight")
            q = lin(x, "self_attn.q_proj")
            k = lin(x, "self_attn.k_proj")
            if whole_qk:
                q, k, qn, kn = rms(q, qn), rms(k, kn), None, None
            q, k = q.reshape(T, nh, hd), k.reshape(T, nkv, hd)
            nope = not (cfg.get("no_rope_layers") or [1] * cfg["num_hidden_layers"])[l]   # SmolLM3: no RoPE here
            q = q if qn is None else rms(q, qn)   # Qwen3, Gemma 3: per head, before RoPE
            k = k if kn is None else rms(k, kn)
            q, k = (q, k) if nope else (rope(q, cs), rope(k, cs))
            v = lin(x, "self_attn.v_proj").reshape(T, nkv, hd)
            att = np.zeros((T, nh, hd))
            for hh in range(nh):
                g = hh // (nh // nkv)
                S = q[:, hh] @ k[:, g].T * scale
                if cfg.get("attn_logit_softcapping") and cfg.get("model_type") == "gemma2":   # Gemma 2 only
                    S = np.tanh(S / cfg["attn_logit_softcapping"]) * cfg["attn_logit_softcapping"]
                S[np.triu_indices(T, 1)] = -np.inf
                if types[l] == "sliding_attention":
                    S[np.tril_indices(T, -cfg["sliding_window"])] = -np.inf
                P = np.exp(S - S.max(1, keepdims=True))
                att[:, hh] = (P / P.sum(1, keepdims=True)) @ v[:, g]
            if gemma:   # norms after attention and around the MLP; GELU (tanh form)
                h = h + rms(lin(att.reshape(T, nh * hd), "self_attn.o_proj"), W[p + "post_attention_layernorm.weight"])
                x = rms(h, W[p + "pre_feedforward_layernorm.weight"])
                gt = lin(x, "mlp.gate_proj")
                act = 0.5 * gt * (1 + np.tanh(math.sqrt(2 / math.pi) * (gt + 0.044715 * gt ** 3)))
                h = h + rms(lin(act * lin(x, "mlp.up_proj"), "mlp.down_proj"), W[p + "post_feedforward_layernorm.weight"])
                continue
            if olmo2:
                h = h + rms(lin(att.reshape(T, nh * hd), "self_attn.o_proj"), W[p + "post_attention_layernorm.weight"])
                gt = lin(h, "mlp.gate_proj")
                h = h + rms(lin(gt / (1 + np.exp(-gt)) * lin(h, "mlp.up_proj"), "mlp.down_proj"), W[p + "post_feedforward_layernorm.weight"])
                continue
            h = h + rm * lin(att.reshape(T, nh * hd), "self_attn.o_proj")
            x = rms(h, W[p + "post_attention_layernorm.weight"])
            def mlp(x, m):
                gt = lin(x, m + "gate_proj")
                if gemma1:   # GELU, tanh form
                    act = 0.5 * gt * (1 + np.tanh(math.sqrt(2 / math.pi) * (gt + 0.044715 * gt ** 3)))
                else:
                    act = gt / (1 + np.exp(-gt))
                return lin(act * lin(x, m + "up_proj"), m + "down_proj")
            if p + "mlp.gate.weight" in W:   # a mixture of experts: softmax over the router's logits,
                # the num_experts_per_tok most probable, their probabilities (renormalized: Mixtral
                # always, the others when norm_topk_prob) weighting their outputs
                r = lin(x, "mlp.gate")
                P = np.exp(r - r.max(1, keepdims=True))
                P /= P.sum(1, keepdims=True)
                K = cfg["num_experts_per_tok"]
                out = np.zeros_like(h)
                for t in range(T):
                    idx = np.argsort(-P[t], kind="stable")[:K]
                    wt = P[t, idx] / (P[t, idx].sum() if cfg.get("model_type") == "mixtral" or cfg.get("norm_topk_prob") else 1.0)
                    for e, we in zip(idx, wt):
                        out[t] += we * mlp(x[t:t + 1], "mlp.experts.%d." % e)[0]
                if p + "mlp.shared_expert_gate.weight" in W:   # Qwen2-MoE: + sigmoid(gate) * shared expert
                    out += mlp(x, "mlp.shared_expert.") / (1 + np.exp(-lin(x, "mlp.shared_expert_gate")))
                h = h + rm * out
            else:
                h = h + rm * mlp(x, "mlp.")
        head = W.get("lm_head.weight", W["model.embed_tokens.weight"])
        lg = rms(h, W["model.norm.weight"]) @ head.T / cfg.get("logits_scaling", 1.0)
        if cfg.get("final_logit_softcapping"):
            lg = np.tanh(lg / cfg["final_logit_softcapping"]) * cfg["final_logit_softcapping"]
        return lg
    lg = forward(cos_sin(inv))
    if inv_long is not None:   # the positions p with p + 1 > original max: a forward with the long factors
        lg = np.where((np.arange(T) + 1 > long_from)[:, None], forward(cos_sin(inv_long)), lg)
    lg = lg[len(prompt) - 1:]
    return float(np.abs(lg - o["logits"].to(torch.float64).numpy()).max()), bool((lg.argmax(1) == np.array(toks)).all())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=FIXTURES)
    ap.add_argument("--only", nargs="+", choices=sorted(CONFIGS) + sorted(CONFIGS_V5), help="regenerate only these families")
    ap.add_argument("--generation", type=int, choices=(4, 5), default=4,
                    help="4: the <name>-<dtype> folders (transformers 4.x, FAMILY_PINS); "
                         "5: the <name>-v5-bf16 folders (transformers 5.24.0, every family)")
    a = ap.parse_args()
    if a.generation == 5:
        return main_v5(a)
    if a.only and set(a.only) & set(CONFIGS_V5):
        sys.exit("%s: --generation 5 only" % ", ".join(sorted(set(a.only) & set(CONFIGS_V5))))
    names = a.only or [n for n in CONFIGS if n not in FAMILY_PINS]
    pins = [dict(PINNED, **FAMILY_PINS.get(n, {})) for n in names]
    if any(p != pins[0] for p in pins):
        sys.exit("these families need different versions (FAMILY_PINS): run them apart with --only")
    check_versions(pins[0])
    skipped = [n for n in CONFIGS if n not in names]
    if skipped and not a.only:
        print("not made (other versions, see FAMILY_PINS; use --only): %s" % ", ".join(skipped))
    torch.set_num_threads(1)
    transformers.logging.set_verbosity_error()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for name, (kw, plen, base_seed, prompt_seed, logit_std) in CONFIGS.items():
        if name not in names:
            continue
        cfg, model, prompt, seed, rejected = choose_seed(name, kw, plen, base_seed, prompt_seed, logit_std)
        print("%s: weight seed %d (prompt seed %d); rejected (seed, (dtype, min_margin, distinct, longest_run)): %s"
              % (name, seed, prompt_seed, rejected))
        for dn, dt in DTYPES:
            folder = os.path.join(a.out, "%s-%s" % (name, dn))
            save_folder(model, dt, folder, (name, dn) in SHARDED, "head_dim" not in kw)
            s, gen = oracle(folder, name, dn, seed, prompt, check_generate=True)
            ref_diff, ref_argmax = numpy_reference(folder)
            assert ref_argmax and ref_diff < 1e-3, (folder, ref_diff, ref_argmax)
            files = sorted(os.listdir(folder))
            size = sum(os.path.getsize(os.path.join(folder, f)) for f in files)
            rows.append((name + "-" + dn, cfg.vocab_size, cfg.hidden_size, cfg.intermediate_size,
                         cfg.num_hidden_layers, cfg.num_attention_heads, cfg.num_key_value_heads,
                         getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads, cfg.tie_word_embeddings, len(prompt), seed, len(rejected),
                         s["min_margin"], s["max_abs_logit"], s["distinct"], s["longest_run"], size, "%.1e" % ref_diff, gen))
    hdr = ("folder", "V", "H", "I", "L", "nh", "nkv", "hd", "tied", "P", "seed", "rej",
           "min_margin", "max|logit|", "distinct", "run", "bytes", "numpy64 |d|", "generate()")
    print("versions:", json.dumps(VERSIONS))
    print(" | ".join(hdr))
    for r in rows:
        print(" | ".join(("%.4f" % x if isinstance(x, float) else str(x)) for x in r))
    total = 0
    for root, _, fs in os.walk(a.out):
        if a.only and os.path.basename(root).rsplit("-", 1)[0] not in a.only:
            continue
        total += sum(os.path.getsize(os.path.join(root, f)) for f in fs)
    print("total bytes under %s: %d" % (os.path.normpath(a.out), total))


FIXTURES = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))


def compare_v4(folder, v4):
    """How the 5.x folder compares with the 4.x folder of the same family and dtype (a report only;
    nothing is taken from it): are the weights equal tensor by tensor (the 5.x file names them as
    4.x did), and the largest |logit difference| between the two oracles, and their greedy ids."""
    if not os.path.isdir(v4):
        return "no 4.x folder", "-"
    def tensors(d):
        out = {}
        for fn in sorted(os.listdir(d)):
            if fn.startswith("model") and fn.endswith(".safetensors"):
                out.update(load_file(os.path.join(d, fn)))
        return out
    a, b = tensors(folder), tensors(v4)
    same = sorted(a) == sorted(b) and all(torch.equal(a[k], b[k]) for k in a)
    oa, ob = load_file(os.path.join(folder, "oracle.safetensors")), load_file(os.path.join(v4, "oracle.safetensors"))
    if oa["logits"].shape != ob["logits"].shape or not torch.equal(oa["prompt"], ob["prompt"]):
        return ("equal" if same else "differ"), "other prompt/vocab"
    ids = int((oa["greedy"] == ob["greedy"]).sum())
    return ("equal" if same else "differ"), "%.1e, ids %d/%d" % (float((oa["logits"] - ob["logits"]).abs().max()), ids, N_NEW)


def main_v5(a):
    """--generation 5: <name>-v5-bf16 for every family, with transformers 5."""
    check_versions(PINNED_V5)
    if not V5:
        sys.exit("--generation 5 needs transformers 5")
    families = dict(CONFIGS, **CONFIGS_V5)
    names = a.only or list(families)
    torch.set_num_threads(1)
    transformers.logging.set_verbosity_error()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for name in names:
        kw, plen, base_seed, prompt_seed, logit_std = families[name]
        cfg, model, prompt, seed, rejected = choose_seed(name, kw, plen, base_seed, prompt_seed, logit_std)
        print("%s: weight seed %d (prompt seed %d); rejected (seed, (dtype, min_margin, distinct, longest_run)): %s"
              % (name, seed, prompt_seed, rejected))
        folder = os.path.join(a.out, "%s-v5-bf16" % name)
        save_folder(model, torch.bfloat16, folder, False, False)   # config.json as 5.x writes it
        s, gen = oracle(folder, name, "bf16", seed, prompt, check_generate=True)
        ref_diff, ref_argmax = numpy_reference(folder)
        assert ref_argmax and ref_diff < 1e-3, (folder, ref_diff, ref_argmax)
        same_w, vs4 = compare_v4(folder, os.path.join(FIXTURES, "%s-bf16" % name))
        files = sorted(os.listdir(folder))
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in files)
        rows.append((name + "-v5-bf16", len(prompt), seed, len(rejected), s["min_margin"], s["max_abs_logit"],
                     s["distinct"], s["longest_run"], size, "%.1e" % ref_diff, same_w, vs4, gen))
    hdr = ("folder", "P", "seed", "rej", "min_margin", "max|logit|", "distinct", "run", "bytes", "numpy64 |d|",
           "weights vs 4.x bf16", "oracle vs 4.x bf16", "generate()")
    print("versions:", json.dumps(VERSIONS))
    print(" | ".join(hdr))
    for r in rows:
        print(" | ".join(("%.4f" % x if isinstance(x, float) else str(x)) for x in r))
    total = 0
    for n in names:
        d = os.path.join(a.out, "%s-v5-bf16" % n)
        total += sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    print("total bytes in the %d v5 folders: %d" % (len(names), total))


if __name__ == "__main__":
    main()
