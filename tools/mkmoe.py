#!/usr/bin/env python3
"""Write a random-weight mixture-of-experts checkpoint in a real model's shapes, for benchmarks.

Usage: mkmoe.py OUTDIR [--preset olmoe-1b-7b|qwen3-30b-a3b|mixtral-8x7b|qwen1.5-moe-a2.7b] [--layers N] [--seed N]

The companion of shared/tools/mkmodel.py (dense Llama shapes) for the mixtures of experts xlarun
runs: OUTDIR/config.json and OUTDIR/model.safetensors in bf16, with the tensor names, shapes and
config keys that OlmoeForCausalLM, Qwen3MoeForCausalLM, MixtralForCausalLM and Qwen2MoeForCausalLM
save. --layers keeps the first N layers (Qwen3-30B-A3B is 61 GB in bf16, Mixtral-8x7B 93 GB and
Qwen1.5-MoE-A2.7B 28.6 GB; a few layers give the per-layer speed). Tensors are written one at a time, so memory stays at one tensor.
Matrices are N(0, 0.02^2) as in mkmodel.py, norms 1 + 0.1 N(0, 1): the router's logits are then
nearly equal, so tokens spread over the experts about evenly. Needs only numpy.
"""
import argparse, json, os, struct
import numpy as np

PRESETS = {
    # allenai/OLMoE-1B-7B-0924: 64 experts, 8 per token, q and k normalized whole
    "olmoe-1b-7b": dict(architectures=["OlmoeForCausalLM"], model_type="olmoe", hidden_size=2048,
                        intermediate_size=1024, num_hidden_layers=16, num_attention_heads=16,
                        num_key_value_heads=16, vocab_size=50304, num_experts=64, num_experts_per_tok=8,
                        norm_topk_prob=False, rope_theta=10000.0, max_position_embeddings=4096,
                        rms_norm_eps=1e-5, tie_word_embeddings=False, clip_qkv=None,
                        bos_token_id=None, eos_token_id=50279, pad_token_id=1),
    # Qwen/Qwen3-30B-A3B: 128 experts of 768, 8 per token, renormalized; per-head q and k norms
    "qwen3-30b-a3b": dict(architectures=["Qwen3MoeForCausalLM"], model_type="qwen3_moe", hidden_size=2048,
                          intermediate_size=6144, moe_intermediate_size=768, num_hidden_layers=48,
                          num_attention_heads=32, num_key_value_heads=4, head_dim=128, vocab_size=151936,
                          num_experts=128, num_experts_per_tok=8, norm_topk_prob=True, decoder_sparse_step=1,
                          mlp_only_layers=[], rope_theta=1000000.0, max_position_embeddings=40960,
                          rms_norm_eps=1e-6, tie_word_embeddings=False, use_sliding_window=False,
                          sliding_window=None, bos_token_id=151643, eos_token_id=151645),
    # mistralai/Mixtral-8x7B-v0.1: 8 experts of 14336, 2 per token
    "mixtral-8x7b": dict(architectures=["MixtralForCausalLM"], model_type="mixtral", hidden_size=4096,
                         intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                         num_key_value_heads=8, vocab_size=32000, num_local_experts=8, num_experts_per_tok=2,
                         rope_theta=1000000.0, max_position_embeddings=32768, rms_norm_eps=1e-5,
                         tie_word_embeddings=False, sliding_window=None, bos_token_id=1, eos_token_id=2),
    # Qwen/Qwen1.5-MoE-A2.7B: 60 experts of 1408, 4 per token, not renormalized, and a shared expert
    # of 5632 behind a sigmoid gate; q, k and v biases
    "qwen1.5-moe-a2.7b": dict(architectures=["Qwen2MoeForCausalLM"], model_type="qwen2_moe", hidden_size=2048,
                              intermediate_size=5632, moe_intermediate_size=1408, shared_expert_intermediate_size=5632,
                              num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=16, vocab_size=151936,
                              num_experts=60, num_experts_per_tok=4, norm_topk_prob=False, decoder_sparse_step=1,
                              mlp_only_layers=[], rope_theta=1000000.0, max_position_embeddings=8192,
                              rms_norm_eps=1e-6, tie_word_embeddings=False, use_sliding_window=False,
                              sliding_window=32768, max_window_layers=21, bos_token_id=151643, eos_token_id=151643),
}


def bf16(a):
    u = a.view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")   # round to nearest even


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--preset", default="olmoe-1b-7b", choices=PRESETS)
    ap.add_argument("--layers", type=int, default=0, help="keep the first N layers (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    c = dict(PRESETS[a.preset])
    if a.layers:
        c["num_hidden_layers"] = min(a.layers, c["num_hidden_layers"])
    H, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    nh, nkv = c["num_attention_heads"], c["num_key_value_heads"]
    hd = c.get("head_dim") or H // nh
    mixtral = c["model_type"] == "mixtral"
    E = c["num_local_experts"] if mixtral else c["num_experts"]
    I = c.get("moe_intermediate_size", c["intermediate_size"])
    shapes = [("model.embed_tokens.weight", (V, H))]
    for i in range(L):
        p = "model.layers.%d." % i
        shapes += [(p + "input_layernorm.weight", (H,)),
                   (p + "self_attn.q_proj.weight", (nh * hd, H)),
                   (p + "self_attn.k_proj.weight", (nkv * hd, H)),
                   (p + "self_attn.v_proj.weight", (nkv * hd, H)),
                   (p + "self_attn.o_proj.weight", (H, nh * hd))]
        if c["model_type"] == "qwen2_moe":   # q, k and v biases
            shapes += [(p + "self_attn.q_proj.bias", (nh * hd,)), (p + "self_attn.k_proj.bias", (nkv * hd,)),
                       (p + "self_attn.v_proj.bias", (nkv * hd,))]
        if c["model_type"] == "olmoe":   # whole-vector norms
            shapes += [(p + "self_attn.q_norm.weight", (nh * hd,)), (p + "self_attn.k_norm.weight", (nkv * hd,))]
        elif c["model_type"] == "qwen3_moe":   # per-head norms
            shapes += [(p + "self_attn.q_norm.weight", (hd,)), (p + "self_attn.k_norm.weight", (hd,))]
        shapes.append((p + "post_attention_layernorm.weight", (H,)))
        m = p + ("block_sparse_moe." if mixtral else "mlp.")
        shapes.append((m + "gate.weight", (E, H)))
        for e in range(E):
            names = ("w1", "w3", "w2") if mixtral else ("gate_proj", "up_proj", "down_proj")
            shapes += [(m + "experts.%d.%s.weight" % (e, names[0]), (I, H)),
                       (m + "experts.%d.%s.weight" % (e, names[1]), (I, H)),
                       (m + "experts.%d.%s.weight" % (e, names[2]), (H, I))]
        if "shared_expert_intermediate_size" in c:   # Qwen2-MoE's shared expert and its gate
            Is = c["shared_expert_intermediate_size"]
            shapes += [(m + "shared_expert.gate_proj.weight", (Is, H)), (m + "shared_expert.up_proj.weight", (Is, H)),
                       (m + "shared_expert.down_proj.weight", (H, Is)), (m + "shared_expert_gate.weight", (1, H))]
    shapes += [("model.norm.weight", (H,)), ("lm_head.weight", (V, H))]
    header, off = {"__metadata__": {"format": "pt"}}, 0
    for name, shp in shapes:
        n = int(np.prod(shp)) * 2
        header[name] = {"dtype": "BF16", "shape": list(shp), "data_offsets": [off, off + n]}
        off += n
    hj = json.dumps(header, separators=(",", ":")).encode()
    hj += b" " * (-len(hj) % 8)
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    with open(os.path.join(a.out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(hj)) + hj)
        for name, shp in shapes:
            if name.endswith("norm.weight"):
                w = 1.0 + 0.1 * rng.standard_normal(shp, dtype=np.float32)
            else:
                w = rng.standard_normal(shp, dtype=np.float32)
                w *= np.float32(0.02)
            f.write(bf16(w).tobytes())
    cfg = dict(c, hidden_act="silu", attention_bias=False, initializer_range=0.02, torch_dtype="bfloat16")
    if mixtral or c["model_type"] == "qwen2_moe":
        cfg.pop("attention_bias")
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    print("%s: %s, %d layers, %d experts (%d per token), %.2f GB" % (a.out, a.preset, L, E, c["num_experts_per_tok"], (off + len(hj) + 8) / 1e9))


if __name__ == "__main__":
    main()
