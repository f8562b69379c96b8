#!/usr/bin/env python3
"""transformers' own prefill speed on a checkpoint folder, to set beside `build/bench`.

    python3 tools/hf_prefill.py -m /path/to/model [-p 256] [-t 2] [-r 5] [--dtype bfloat16|float32]

Loads the folder with transformers (AutoModelForCausalLM, its default attention, the dtype given),
sets torch to -t threads, and times one forward pass over -p token ids (seeded, drawn from the
vocabulary) with only the last position's logits (logits_to_keep=1, as generate's prefill does),
after one untimed pass. Prints one JSON object: the versions, the CPU, the median and every run in
tok/s. Issue 22 asks for the bf16-activation prefill (`bench --precision bf16`) to beat this
with --dtype bfloat16 on the same machine; alternate the two in one session, as the machines
are shared and noisy.
"""
import argparse
import json
import platform
import statistics
import time


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            info = {}
            for line in f:
                if ":" in line:
                    k, v = line.split(":", 1)
                    info.setdefault(k.strip(), v.strip())
                if not line.strip() and info:
                    break
        return "%s (%s family %s model %s)" % (info.get("model name"), info.get("vendor_id"), info.get("cpu family"),
                                               info.get("model"))
    except OSError:
        return platform.processor() or None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-m", required=True, help="checkpoint folder (config.json + safetensors)")
    ap.add_argument("-p", type=int, default=256, help="prompt tokens")
    ap.add_argument("-t", type=int, default=2, help="torch threads")
    ap.add_argument("-r", type=int, default=5, help="timed runs")
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    a = ap.parse_args()

    import torch
    import transformers
    torch.set_num_threads(a.t)
    dtype = getattr(torch, a.dtype)
    model = transformers.AutoModelForCausalLM.from_pretrained(a.m, dtype=dtype)
    model.eval()
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, model.config.vocab_size, (1, a.p), generator=g)
    runs = []
    with torch.inference_mode():
        model(input_ids=ids, logits_to_keep=1)
        for _ in range(a.r):
            t0 = time.perf_counter()
            model(input_ids=ids, logits_to_keep=1)
            runs.append(a.p / (time.perf_counter() - t0))
    print(json.dumps({
        "model": a.m, "cpu": cpu_name(), "threads": a.t, "dtype": a.dtype, "prompt": a.p,
        "attention": getattr(model.config, "_attn_implementation", None),
        "torch": torch.__version__, "transformers": transformers.__version__,
        "mkldnn_bf16": bool(getattr(torch.backends.mkldnn, "is_available", lambda: False)()),
        "prefill_tok_s": round(statistics.median(runs), 2), "runs": [round(x, 2) for x in runs],
    }))


if __name__ == "__main__":
    main()
