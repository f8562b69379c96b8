#!/usr/bin/env python3
"""Oracle fixtures for xlarun's Jinja interpreter: real chat templates, and what transformers'
apply_chat_template(..., tokenize=False) renders from each of them for a set of conversations.

Developer-time only; `make test` reads the committed output under tests/fixtures/jinja/.

Pinned (the script exits if they differ; XLARUN_FIXTURES_ANY_VERSION=1 makes that a warning):
python 3.11 (3.11.7 was used), transformers 5.24.0, jinja2 3.1.6 (tokenizers 0.23.3 came with
transformers). torch is not needed:

    python3 -m venv /work/venv-jinja
    /work/venv-jinja/bin/pip install transformers==5.24.0 jinja2==3.1.6
    /work/venv-jinja/bin/python tools/make_jinja_fixtures.py          # cases.txt, sources.txt
    /work/venv-jinja/bin/python tools/make_jinja_fixtures.py collect \\
        --hfjs HFJS_GIT_DIR --llamacpp LLAMACPP_GIT_DIR --sync SYNC_GIT_DIR  # re-extract templates/

The default command reads tests/fixtures/jinja/templates/*.jinja (the 133 names in TEMPLATES
below), renders every template with every conversation in CONVERSATIONS (18) through
apply_chat_template(tokenize=False) and writes tests/fixtures/jinja/cases.txt and
tests/fixtures/jinja/sources.txt; then it reads cases.txt back, renders every case again from the
parsed JSON alone and checks that it gets the same text or error. It is deterministic: running it
twice gives the same bytes (a few seconds).

`collect` re-creates templates/ from git checkouts of the source repositories (read with
`git show COMMIT:PATH`, so any clone holding those commits works; `node` evaluates the
JavaScript/TypeScript sources, which hold the templates as JS string expressions). It copies the 24
templates of tests/fixtures/chat/templates/ as they are. Each template is the Python str that
transformers would use as the chat template (tokenizer_config.json's "chat_template", or the
named entry of its list form), written as UTF-8 with nothing added or removed.

Where the templates came from
-----------------------------
HFJS_AUTOMAP  huggingface/huggingface.js@007948d5aac310316dd57b5d8e5c091e864418dc
              packages/ollama-utils/src/chat-template-automap.ts: the "gguf" field of an entry
              (the chat_template that llama.cpp's converter copied from the model's
              tokenizer_config.json into the GGUF that Ollama serves under that model tag).
              The file is unchanged up to fe42e68017ffc76d09922ea8f9b38a6964345710.
HFJS_E2E      huggingface/huggingface.js@ee92cdbe6f08eddd24888204853c2510028c588e
              packages/jinja/test/e2e.test.js: TEST_CUSTOM_TEMPLATES[KEY].chat_template, the
              chat_template of the Hugging Face model named by KEY.
LLAMACPP      ggml-org/llama.cpp models/templates/FILE, read from the fork
              Raudbjorn/ggml-llama.cpp (HEAD ae1a0b1c71a8b3a86ede8cb5892ed9ce967d00b2, which
              holds these upstream commits): llama.cpp's copies of the models' chat templates,
              written by its scripts/get_chat_template.py (tokenizer_config.json's
              chat_template, or the named variant, verbatim). Each is taken at the commit that
              added the file: later llama.cpp commits edited some of them for its own parsers.
              Where HFJS_AUTOMAP has the same model, those first versions match it.
SYNC          unslothai/llama.cpp@d32676d77426540327835040d5d3279728f0b4c8 models/templates/FILE:
              the templates llama.cpp added after the LLAMACPP HEAD, which that mirror took in
              one commit (53fd974b, "Sync master with upstream ggml-org/llama.cpp (82bb48500)");
              read at that commit. The same tool wrote them.
CHAT          tests/fixtures/chat/templates/NAME.jinja of this repository (taken by
              tools/make_chat_fixtures.py from HFJS_AUTOMAP at 007948d5; same text there now).

Each entry of TEMPLATES names its source, the model it belongs to and the special tokens passed.
Names asked for that would only repeat another template's text, so not written again:
llama3.3-instruct (meta-llama/Llama-3.3-70B-Instruct's template is llama3.1-instruct's, byte for
byte), hermes-3's tool_use variant (= hermes-2-pro), qwen3 (Qwen/Qwen3-0.6B = the chat one),
gemma2 (google/gemma-2-2b-it = the chat one), gemma3 (the Gemma 3 instruct template is
gemma3-270m), phi-3.5-mini (= phi3.5-mini), phi-4-mini (= phi4-mini). hermes-3 here is
Hermes-3-Llama-3.1-70B's default (plain ChatML) variant.

Special tokens
--------------
apply_chat_template passes `{**tokenizer.special_tokens_map, **kwargs}` to the template:
special_tokens_map holds those of bos_token, eos_token, unk_token, sep_token, pad_token,
cls_token, mask_token that the tokenizer has (as str). The values used here are those of the
model family's tokenizer_config.json as the author knows them (no tokenizer_config.json was
downloaded: the machine that made these fixtures reaches no model hub); where the family's
tokens were not known, ones that fit the template's own markup were chosen. They are recorded per
case in the `vars` line, so the C side does not need to know this table. The fixtures render
through a TokenizersBackend (PreTrainedTokenizerFast) built with exactly these tokens, so
`vars` is exactly what that tokenizer's apply_chat_template passes (checked per case).

strftime_now
------------
transformers' strftime_now(fmt) is `datetime.now().strftime(fmt)`, which would make the output
depend on the clock. Here transformers.utils.chat_template_utils.datetime is replaced by a
datetime subclass whose now() returns datetime(2024, 9, 26, 13, 45, 7) (a naive datetime; treat
it as UTC: 1727358307 seconds since the epoch), so strftime_now("%d %b %Y") gives "26 Sep 2024".

What transformers 5.24.0 does to the inputs (the C side must do the same)
-------------------------------------------------------------------------
The `messages` line is what the caller passes to apply_chat_template. Before rendering,
transformers (a) drops every top-level message key whose value is None (content: null goes away;
nested nulls stay), (b) for a message with a non-None reasoning_content, thinking or reasoning
(first found in that order), sets message = {"thinking": R, **message, "reasoning_content": R}
(so "thinking" comes first and, if absent, "reasoning_content" is appended last), and (c)
rebuilds everything as plain dicts/lists/str/int/float/bool/None. The caller's objects are not
changed. Tools are passed as given (dicts are not converted or validated), documents=None is
always passed, and add_generation_prompt is passed as a bool.
The environment (transformers.utils.chat_template_utils._cached_compile_jinja_template):
jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) (so
keep_trailing_newline is False: one trailing newline of a template is dropped; list.append and
other mutators raise SecurityError), extensions loopcontrols and a `{% generation %}` block tag
that renders its body; tojson overridden by json.dumps(x, ensure_ascii=False, indent=None,
separators=None, sort_keys=False) (no HTML escaping); globals raise_exception (raises
jinja2.TemplateError(message)), strftime_now, dict, and a namespace that refuses names starting
with "_".

Output format (tests/fixtures/jinja/cases.txt; strings hex-encoded UTF-8)
-------------------------------------------------------------------------
    # made by tools/make_jinja_fixtures.py (...); strftime_now fixed at 2024-09-26 13:45:07
    case TEMPLATE CONVERSATION
    messages HEX          json.dumps(messages, ensure_ascii=False), the list passed in
    tools HEX | tools -   json.dumps(tools, ensure_ascii=False), or no tools (None)
    vars HEX              JSON object of every other template variable passed: the special
                          tokens, then the template's TEMPLATE_KWARGS (firefunction-v2's
                          functions/datetime, shieldgemma's guideline), then the conversation's
                          kwargs (enable_thinking, date_string); not add_generation_prompt,
                          messages, tools or documents (documents is always None)
    gen 1 | gen 0         add_generation_prompt
    text HEX              the rendered str
    error TYPE HEX        instead of text: the exception's class name and hex of str(exception)
    end

JSON numbers keep Python's int/float distinction (100 vs 0.0 vs 1e+16), as json.dumps writes them.
tests/fixtures/jinja/sources.txt has one line per template, tab-separated: NAME, its source
(repo@commit:path[entry]), the model, the special tokens (JSON).
"""
import argparse
import datetime as _dt
import hashlib
import json
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "fixtures", "jinja")
TEMPLATE_DIR = os.path.join(OUT, "templates")
CHAT_DIR = os.path.join(ROOT, "tests", "fixtures", "chat", "templates")

PINNED = {"transformers": "5.24.0", "jinja2": "3.1.6"}
FIXED_NOW = _dt.datetime(2024, 9, 26, 13, 45, 7)

HFJS_AUTOMAP = ("huggingface/huggingface.js", "007948d5aac310316dd57b5d8e5c091e864418dc",
                "packages/ollama-utils/src/chat-template-automap.ts")
HFJS_E2E = ("huggingface/huggingface.js", "ee92cdbe6f08eddd24888204853c2510028c588e",
            "packages/jinja/test/e2e.test.js")
LLAMACPP = ("Raudbjorn/ggml-llama.cpp", "ae1a0b1c71a8b3a86ede8cb5892ed9ce967d00b2", "models/templates")
SYNC = ("unslothai/llama.cpp", "d32676d77426540327835040d5d3279728f0b4c8", "models/templates")

# ---------------------------------------------------------------------------------------------
# Special-token sets (see "Special tokens" above), in special_tokens_map order.
S_LLAMA3 = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
S_LLAMA3_BASE = {"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>"}
S_LLAMA2 = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
S_MISTRAL = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
S_QWEN = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}
S_QWEN_BASE = {"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"}
S_CHATML_S = {"bos_token": "<s>", "eos_token": "<|im_end|>", "unk_token": "<unk>"}
S_DEEPSEEK = {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"}
S_DEEPSEEK_PAD = {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>",
                  "pad_token": "<｜end▁of▁sentence｜>"}
S_DEEPSEEK_CODER = {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<|EOT|>",
                    "pad_token": "<｜end▁of▁sentence｜>"}
S_GEMMA = {"bos_token": "<bos>", "eos_token": "<eos>", "unk_token": "<unk>", "pad_token": "<pad>"}
S_PHI3 = {"bos_token": "<s>", "eos_token": "<|endoftext|>", "unk_token": "<unk>", "pad_token": "<|endoftext|>"}
S_PHI4MINI = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
              "pad_token": "<|endoftext|>"}
S_PHI4 = {"bos_token": "<|endoftext|>", "eos_token": "<|im_end|>", "pad_token": "<|dummy_85|>"}
S_GRANITE = {"bos_token": "<|end_of_text|>", "eos_token": "<|end_of_text|>", "unk_token": "<|end_of_text|>",
             "pad_token": "<|end_of_text|>"}
S_GRANITE4 = {"bos_token": "<|end_of_text|>", "eos_token": "<|end_of_text|>", "unk_token": "<|unk|>",
              "pad_token": "<|pad|>"}
S_COHERE = {"bos_token": "<BOS_TOKEN>", "eos_token": "<|END_OF_TURN_TOKEN|>", "unk_token": "<UNK>",
            "sep_token": "<SEP>", "pad_token": "<PAD>", "cls_token": "<CLS>", "mask_token": "<MASK_TOKEN>"}
S_SMOLLM2 = {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "unk_token": "<|endoftext|>",
             "pad_token": "<|im_end|>"}
S_SMOLLM3 = {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>", "pad_token": "<|im_end|>"}
S_HERMES = {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>", "pad_token": "<|end_of_text|>"}
S_GLM = {"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"}
S_KIMI = {"bos_token": "[BOS]", "eos_token": "[EOS]", "unk_token": "[UNK]", "pad_token": "[PAD]"}
S_LFM2 = {"bos_token": "<|startoftext|>", "eos_token": "<|im_end|>", "pad_token": "<|pad|>"}
S_NEMOTRON_H = {"bos_token": "<s>", "eos_token": "<SPECIAL_12>", "unk_token": "<unk>"}
S_GPT_OSS = {"bos_token": "<|startoftext|>", "eos_token": "<|return|>", "pad_token": "<|endoftext|>"}
S_SEED = {"bos_token": "<seed:bos>", "eos_token": "<seed:eos>", "pad_token": "<seed:pad>"}
S_MINIMAX = {"bos_token": "]~!b[", "eos_token": "[e~[", "unk_token": "]!d~["}
S_APRIEL = {"bos_token": "<s>", "eos_token": "<|end|>", "unk_token": "<unk>", "pad_token": "<pad>"}
S_APERTUS = {"bos_token": "<s>", "eos_token": "<|assistant_end|>", "unk_token": "<unk>", "pad_token": "<pad>"}
S_SOLAR_OPEN = {"bos_token": "<|begin|>", "eos_token": "<|end|>", "pad_token": "<|pad|>"}
S_GIGACHAT = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
S_GPT2ISH = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>"}
S_OLMO2 = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|pad|>"}
S_FALCON = {"eos_token": "<|endoftext|>"}
S_INTERNLM2 = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
S_DBRX = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
          "pad_token": "<|pad|>"}
S_YI = {"bos_token": "<|startoftext|>", "eos_token": "<|im_end|>", "unk_token": "<unk>", "pad_token": "<unk>"}
S_EXAONE = {"bos_token": "[BOS]", "eos_token": "[|endofturn|]", "unk_token": "[UNK]", "pad_token": "[PAD]"}
S_LLAMA4 = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot|>", "pad_token": "<|finetune_right_pad|>"}
S_NEMOTRON_MINI = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
S_JAMBA = {"bos_token": "<|startoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|unk|>",
           "pad_token": "<|pad|>"}
S_MINICPM = {"bos_token": "<s>", "eos_token": "<|im_end|>", "unk_token": "<unk>"}
S_OPENCHAT = {"bos_token": "<s>", "eos_token": "<|end_of_turn|>", "unk_token": "<unk>"}
S_STEP = {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<|im_end|>"}
S_HY3 = {"bos_token": "<｜hy_begin_of_sentence:opensource｜>", "eos_token": "<｜hy_eos:opensource｜>",
         "pad_token": "<｜hy_pad:opensource｜>"}
S_LAGUNA = {"eos_token": "</assistant>"}

# name -> (source kind, source key, model, special tokens)
#   source kind: "chat" (tests/fixtures/chat/templates/KEY.jinja), "automap" (HFJS_AUTOMAP entry
#   whose model is KEY; "#N" picks the N-th entry with that model), "e2e" (HFJS_E2E key),
#   "llamacpp" (LLAMACPP "FILE@COMMIT", COMMIT being the one that added models/templates/FILE),
#   "sync" (SYNC "FILE@COMMIT", the same for the later templates that only SYNC holds)
TEMPLATES = {
    # --- the 24 templates of tests/fixtures/chat/templates (HFJS_AUTOMAP at 007948d5) ---
    "gemma2": ("chat", "library/gemma2:2b", "google/gemma-2-2b-it", S_GEMMA),
    "gemma3-1b": ("chat", "library/gemma3:1b", "google/gemma-3-1b-it (early template)", S_GEMMA),
    "gemma3-270m": ("chat", "library/gemma3:270m", "google/gemma-3-270m-it (the Gemma 3 template)", S_GEMMA),
    "llama2-chat": ("chat", "library/llama2:7b", "meta-llama/Llama-2-7b-chat-hf", S_LLAMA2),
    "llama3-instruct": ("chat", "library/llama3:8b", "meta-llama/Meta-Llama-3-8B-Instruct", S_LLAMA3),
    "llama3.1-instruct": ("chat", "library/llama3.1:8b", "meta-llama/Llama-3.1-8B-Instruct", S_LLAMA3),
    "llama3.2-instruct": ("chat", "library/llama3.2:3b", "meta-llama/Llama-3.2-3B-Instruct", S_LLAMA3),
    "llava": ("chat", "library/llava:7b", "llava 7b (Mistral 7B Instruct v0.1 template)", S_MISTRAL),
    "mistral-instruct": ("chat", "library/mistral:7b-instruct-fp16", "mistralai/Mistral-7B-Instruct", S_MISTRAL),
    "mistral-large": ("chat", "library/mistral-large:123b", "mistralai/Mistral-Large-Instruct-2411", S_MISTRAL),
    "mistral-small": ("chat", "library/mistral-small:24b", "mistralai/Mistral-Small-24B-Instruct-2501", S_MISTRAL),
    "mixtral-8x22b": ("chat", "library/mixtral:8x22b", "mistralai/Mixtral-8x22B-Instruct-v0.1", S_MISTRAL),
    "mixtral-8x7b": ("chat", "library/mixtral:8x7b", "mistralai/Mixtral-8x7B-Instruct-v0.1", S_MISTRAL),
    "olmo2": ("chat", "library/olmo2:7b", "allenai/OLMo-2-1124-7B-Instruct", S_OLMO2),
    "phi3-medium": ("chat", "library/phi3:14b", "microsoft/Phi-3-medium-4k-instruct", S_PHI3),
    "phi3-mini": ("chat", "library/phi3:3.8b", "microsoft/Phi-3-mini-4k-instruct", S_PHI3),
    "phi3.5-mini": ("chat", "library/phi3.5:3.8b", "microsoft/Phi-3.5-mini-instruct", S_PHI3),
    "phi4-mini": ("chat", "library/phi4-mini:3.8b", "microsoft/Phi-4-mini-instruct", S_PHI4MINI),
    "qwen1.5-chat": ("chat", "library/qwen:0.5b", "Qwen/Qwen1.5-0.5B-Chat", S_QWEN),
    "qwen2-instruct": ("chat", "library/qwen2:0.5b", "Qwen/Qwen2-0.5B-Instruct", S_QWEN),
    "qwen2.5-instruct": ("chat", "library/qwen2.5:0.5b", "Qwen/Qwen2.5-0.5B-Instruct", S_QWEN),
    "qwen3": ("chat", "library/qwen3:0.6b", "Qwen/Qwen3-0.6B", S_QWEN),
    "smollm2-instruct": ("chat", "library/smollm2:135m", "HuggingFaceTB/SmolLM2-135M-Instruct", S_SMOLLM2),
    "tinyllama-chat": ("chat", "library/tinyllama:1.1b", "TinyLlama/TinyLlama-1.1B-Chat-v1.0", S_LLAMA2),
    # --- llama.cpp's models/templates ---
    "qwen2.5-7b-instruct": ("llamacpp", "Qwen-Qwen2.5-7B-Instruct.jinja@8b576b6c55bc4e6be898b47522f0ef402b93ef62",
                            "Qwen/Qwen2.5-7B-Instruct", S_QWEN),
    "qwq-32b": ("llamacpp", "Qwen-QwQ-32B.jinja@f5cd27b71da3ac375a04a41643d14fc779a8057b", "Qwen/QwQ-32B", S_QWEN),
    "qwen3-coder": ("llamacpp", "Qwen3-Coder.jinja@1920345c3bcec451421bb6abc4981678cc721154",
                    "Qwen/Qwen3-Coder-30B-A3B-Instruct", S_QWEN),
    "qwen3.5": ("llamacpp", "Qwen3.5-4B.jinja@98ae0a0d3600f08fbd8d938bc8de0436755e50c3", "Qwen/Qwen3.5-4B", S_QWEN),
    "deepseek-r1-distill-llama": ("llamacpp", "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja@8b576b6c55bc4e6be898b47522f0ef402b93ef62",
                                  "deepseek-ai/DeepSeek-R1-Distill-Llama-8B", S_DEEPSEEK_PAD),
    "deepseek-r1-distill-qwen": ("llamacpp", "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja@8b576b6c55bc4e6be898b47522f0ef402b93ef62",
                                 "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", S_DEEPSEEK_PAD),
    "deepseek-v3.1": ("llamacpp", "deepseek-ai-DeepSeek-V3.1.jinja@88021565f08e0b7c4e07ac089a15ec16fae9166c",
                      "deepseek-ai/DeepSeek-V3.1", S_DEEPSEEK),
    "deepseek-v3.2": ("llamacpp", "deepseek-ai-DeepSeek-V3.2.jinja@1c0d9081fd2c83bd221c157728a8cf0124cd4e27",
                      "deepseek-ai/DeepSeek-V3.2", S_DEEPSEEK),
    "mistral-nemo": ("llamacpp", "mistralai-Mistral-Nemo-Instruct-2407.jinja@8b576b6c55bc4e6be898b47522f0ef402b93ef62",
                     "mistralai/Mistral-Nemo-Instruct-2407", S_MISTRAL),
    "mistral-small-3.2": ("llamacpp", "Mistral-Small-3.2-24B-Instruct-2506.jinja@901e20bbe571fbde48d13eb188f4e7cdc7562fb6",
                          "mistralai/Mistral-Small-3.2-24B-Instruct-2506", S_MISTRAL),
    "ministral-3-reasoning": ("llamacpp", "mistralai-Ministral-3-14B-Reasoning-2512.jinja@2fbe3b7bb7814621477d658a81f0d0cca08761cf",
                              "mistralai/Ministral-3-14B-Reasoning-2512", S_MISTRAL),
    "devstral": ("llamacpp", "unsloth-mistral-Devstral-Small-2507.jinja@00fa15fedc79263fa0285e6a3bbb0cfb3e3878a2",
                 "unsloth/Devstral-Small-2507", S_MISTRAL),
    "granite-3.3": ("llamacpp", "ibm-granite-granite-3.3-2B-Instruct.jinja@3db4da56a5a00c4b47bbb3b18f85fb4473662adb",
                    "ibm-granite/granite-3.3-2b-instruct", S_GRANITE),
    "granite-4": ("llamacpp", "ibm-granite-granite-4.0.jinja@6137c325a16073c8bf68a52396a815006ccaa9a9",
                  "ibm-granite/granite-4.0 (350m)", S_GRANITE4),
    "granite-4.1": ("llamacpp", "ibm-granite-granite-4.1.jinja@bb771cbd2bfd92cfc99263e75053f5eb9b936d84",
                    "ibm-granite/granite-4.1", S_GRANITE4),
    "smollm3": ("llamacpp", "HuggingFaceTB-SmolLM3-3B.jinja@7a0b6a635ef33a9fd7f9441231c6c705f10abb59",
                "HuggingFaceTB/SmolLM3-3B", S_SMOLLM3),
    "hermes-2-pro": ("llamacpp", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja@8b576b6c55bc4e6be898b47522f0ef402b93ef62",
                     "NousResearch/Hermes-2-Pro-Llama-3-8B, tool_use (same text as Hermes-3-Llama-3.1-8B's)",
                     S_HERMES),
    "functionary": ("llamacpp", "meetkai-functionary-medium-v3.2.jinja@8b576b6c55bc4e6be898b47522f0ef402b93ef62",
                    "meetkai/functionary-medium-v3.2", S_LLAMA3),
    "functionary-v3.1": ("llamacpp", "meetkai-functionary-medium-v3.1.jinja@8b576b6c55bc4e6be898b47522f0ef402b93ef62",
                         "meetkai/functionary-medium-v3.1",
                         S_LLAMA3),
    "firefunction-v2": ("llamacpp", "fireworks-ai-llama-3-firefunction-v2.jinja@8b576b6c55bc4e6be898b47522f0ef402b93ef62",
                        "fireworks-ai/llama-3-firefunction-v2",
                        S_LLAMA3),
    "command-r-plus-tool-use": ("llamacpp", "CohereForAI-c4ai-command-r-plus-tool_use.jinja@8b576b6c55bc4e6be898b47522f0ef402b93ef62",
                                "CohereForAI/c4ai-command-r-plus, tool_use", S_COHERE),
    "command-r7b-tool-use": ("llamacpp", "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja@bfcce4d693617ec843d0b2510f6ee16e6bc6720d",
                             "CohereForAI/c4ai-command-r7b-12-2024, tool_use", S_COHERE),
    "glm-4.6": ("llamacpp", "GLM-4.6.jinja@1920345c3bcec451421bb6abc4981678cc721154", "zai-org/GLM-4.6", S_GLM),
    "glm-4.7-flash": ("llamacpp", "GLM-4.7-Flash.jinja@566059a26b0ce8faec4ea053605719d399c64cc5",
                      "zai-org/GLM-4.7-Flash", S_GLM),
    "kimi-k2": ("llamacpp", "moonshotai-Kimi-K2.jinja@4a4f426944e79b79e389f9ed7b34831cb9b637ad",
                "moonshotai/Kimi-K2-Instruct (first release)", S_KIMI),
    "kimi-k2-instruct": ("llamacpp", "Kimi-K2-Instruct.jinja@1920345c3bcec451421bb6abc4981678cc721154",
                         "moonshotai/Kimi-K2-Instruct-0905", S_KIMI),
    "kimi-k2-thinking": ("llamacpp", "Kimi-K2-Thinking.jinja@1920345c3bcec451421bb6abc4981678cc721154",
                         "moonshotai/Kimi-K2-Thinking", S_KIMI),
    "lfm2": ("llamacpp", "LFM2-8B-A1B.jinja@566059a26b0ce8faec4ea053605719d399c64cc5", "LiquidAI/LFM2-8B-A1B", S_LFM2),
    "lfm2.5": ("llamacpp", "LFM2.5-8B-A1B.jinja@98d5e8ba8a2642710c9871d05ac1033a3328b884",
               "LiquidAI/LFM2.5-8B-A1B", S_LFM2),
    "lfm2.5-instruct": ("llamacpp", "LFM2.5-Instruct.jinja@1d6d4cf7a5361046f778414c5b1f5ecbc07eeb77",
                        "LiquidAI/LFM2.5-1.2B-Instruct", S_LFM2),
    "nemotron-nano-v2": ("llamacpp", "NVIDIA-Nemotron-Nano-v2.jinja@b2426e469e2fdb6c44216d56baa4cfff4f39ae00",
                         "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
                         S_NEMOTRON_H),
    "nemotron-3-nano": ("llamacpp", "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja@c05aa69f32ee87b2019a1b39979d89302c2d6b7b",
                        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", S_CHATML_S),
    "apriel-1.5": ("llamacpp", "unsloth-Apriel-1.5.jinja@1920345c3bcec451421bb6abc4981678cc721154",
                   "unsloth/Apriel-1.5-15b-Thinker", S_APRIEL),
    "apertus": ("llamacpp", "Apertus-8B-Instruct.jinja@34fcc5a4ace8c69476ef2ea3857f39a60334acc4",
                "swiss-ai/Apertus-8B-Instruct-2509", S_APERTUS),
    "gpt-oss": ("llamacpp", "openai-gpt-oss-120b.jinja@b204a5a234f4cf0b3f449476da639a5510c6d157",
                "openai/gpt-oss-120b", S_GPT_OSS),
    "seed-oss": ("llamacpp", "ByteDance-Seed-OSS.jinja@60e5eee31f1af9bb579ac45380e3857d610020b9",
                 "ByteDance-Seed/Seed-OSS-36B-Instruct", S_SEED),
    "minimax-m2": ("llamacpp", "MiniMax-M2.jinja@1920345c3bcec451421bb6abc4981678cc721154",
                   "MiniMaxAI/MiniMax-M2", S_MINIMAX),
    "gemma4": ("llamacpp", "google-gemma-4-31B-it.jinja@b8635075ffe27b135c49afb9a8b5c434bd42c502",
               "google/gemma-4-31B-it", S_GEMMA),
    "mimo-vl": ("llamacpp", "MiMo-VL.jinja@1920345c3bcec451421bb6abc4981678cc721154",
                "XiaomiMiMo/MiMo-VL-7B-RL", S_QWEN),
    "bielik-3": ("llamacpp", "Bielik-11B-v3.0-Instruct.jinja@566059a26b0ce8faec4ea053605719d399c64cc5",
                 "speakleash/Bielik-11B-v3.0-Instruct", S_CHATML_S),
    "gigachat3": ("llamacpp", "GigaChat3-10B-A1.8B.jinja@a8304b4d279cadc240802388d1532bea650de4c8",
                  "ai-sage/GigaChat3-10B-A1.8B", S_GIGACHAT),
    "solar-open": ("llamacpp", "upstage-Solar-Open-100B.jinja@7b7ae857f686a4191dbd48252ab4dda426846a29",
                   "upstage/Solar-Open-100B", S_SOLAR_OPEN),
    "step-3.5-flash": ("llamacpp", "stepfun-ai-Step-3.5-Flash.jinja@3dadc88b589ca43b8fca0e1beb22d4b78a09b4dd",
                       "stepfun-ai/Step-3.5-Flash", S_STEP),
    "reka-edge": ("llamacpp", "Reka-Edge.jinja@e1a9a6dcbefccb4b864d9385ce8494f2a7f2ffcd",
                  "RekaAI/Reka-Edge", S_GPT2ISH),
    "apriel-1.6": ("llamacpp", "Apriel-1.6-15b-Thinker-fixed.jinja@566059a26b0ce8faec4ea053605719d399c64cc5",
                   "ServiceNow-AI/Apriel-1.6-15b-Thinker (llama.cpp's fixed copy)", S_APRIEL),
    "gigachat3.1": ("llamacpp", "GigaChat3.1-10B-A1.8B.jinja@a8304b4d279cadc240802388d1532bea650de4c8",
                    "ai-sage/GigaChat3.1-10B-A1.8B", S_GIGACHAT),
    "gemma4-interleaved": ("llamacpp", "google-gemma-4-31B-it-interleaved.jinja@b8635075ffe27b135c49afb9a8b5c434bd42c502",
                           "google/gemma-4-31B-it, interleaved thinking", S_GEMMA),
    # --- the later llama.cpp templates (SYNC, a sync of upstream ggml-org/llama.cpp 82bb48500) ---
    "cohere2-moe": ("sync", "Cohere2MoE.jinja@53fd974b4406739435b50f50144b08c73273ec19",
                    "CohereLabs (Cohere2MoE)", S_COHERE),
    "minimax-m3": ("sync", "MiniMax-M3.jinja@53fd974b4406739435b50f50144b08c73273ec19",
                   "MiniMaxAI/MiniMax-M3", S_MINIMAX),
    "deepseek-v4": ("sync", "deepseek-ai-DeepSeek-V4.jinja@53fd974b4406739435b50f50144b08c73273ec19",
                    "deepseek-ai/DeepSeek-V4", S_DEEPSEEK),
    "deepseek-v4-flash": ("sync", "deepseek-ai-DeepSeek-V4-Flash-0731.jinja@53fd974b4406739435b50f50144b08c73273ec19",
                          "deepseek-ai/DeepSeek-V4-Flash-0731", S_DEEPSEEK),
    "minicpm5": ("sync", "openbmb-MiniCPM5-1B.jinja@53fd974b4406739435b50f50144b08c73273ec19",
                 "openbmb/MiniCPM5-1B", S_MINICPM),
    "laguna-s-2.1": ("sync", "poolside-Laguna-S-2.1.jinja@53fd974b4406739435b50f50144b08c73273ec19",
                     "poolside/Laguna-S-2.1", S_LAGUNA),
    "laguna-xs-2.1": ("sync", "poolside-Laguna-XS-2.1.jinja@53fd974b4406739435b50f50144b08c73273ec19",
                      "poolside/Laguna-XS-2.1", S_LAGUNA),
    "laguna-xs.2": ("sync", "poolside-Laguna-XS.2.jinja@53fd974b4406739435b50f50144b08c73273ec19",
                    "poolside/Laguna-XS.2", S_LAGUNA),
    "hy3": ("sync", "tencent-Hy3.jinja@53fd974b4406739435b50f50144b08c73273ec19",
            "tencent/Hy3", S_HY3),
    # --- huggingface.js packages/jinja/test/e2e.test.js ---
    "mistral-7b-v0.3": ("e2e", "mistralai/Mistral-7B-Instruct-v0.3 (JSON Schema)",
                        "mistralai/Mistral-7B-Instruct-v0.3 (with [AVAILABLE_TOOLS]/[TOOL_CALLS])", S_MISTRAL),
    "command-a-reasoning": ("e2e", "CohereLabs/command-a-reasoning-08-2025", "CohereLabs/command-a-reasoning-08-2025",
                            S_COHERE),
    "hammer2.1": ("e2e", "MadeAgents/Hammer2.1", "MadeAgents/Hammer2.1-7b", S_QWEN),
    "minicpm3": ("e2e", "openbmb/MiniCPM3-4B", "openbmb/MiniCPM3-4B", S_MINICPM),
    "jamba-1.6": ("e2e", "ai21labs/AI21-Jamba-Large-1.6", "ai21labs/AI21-Jamba-Large-1.6", S_JAMBA),
    "glm-5.1": ("e2e", "zai-org/GLM-5.1", "zai-org/GLM-5.1", S_GLM),
    "lfm2.5-vl": ("e2e", "LiquidAI/LFM2.5-VL-450M", "LiquidAI/LFM2.5-VL-450M", S_LFM2),
    "functionary-v2.2": ("e2e", "meetkai/functionary-medium-v2.2", "meetkai/functionary-medium-v2.2", S_LLAMA2),
    "codellama-70b": ("e2e", "codellama/CodeLlama-70b-Instruct-hf", "codellama/CodeLlama-70b-Instruct-hf", S_LLAMA2),
    "solar-10.7b": ("e2e", "upstage/SOLAR-10.7B-Instruct-v1.0", "upstage/SOLAR-10.7B-Instruct-v1.0", S_LLAMA2),
    "zephyr-gemma": ("e2e", "HuggingFaceH4/zephyr-7b-gemma-v0.1", "HuggingFaceH4/zephyr-7b-gemma-v0.1", S_GEMMA),
    # --- huggingface.js ollama-utils automap ---
    "hermes-3": ("automap", "library/hermes3:70b", "NousResearch/Hermes-3-Llama-3.1-70B, default", S_HERMES),
    "command-r": ("automap", "library/command-r:35b", "CohereForAI/c4ai-command-r-08-2024", S_COHERE),
    "command-r-plus": ("automap", "library/command-r-plus:104b", "CohereForAI/c4ai-command-r-plus-08-2024", S_COHERE),
    "command-r7b": ("automap", "library/command-r7b:7b", "CohereForAI/c4ai-command-r7b-12-2024", S_COHERE),
    "command-a": ("automap", "library/command-a:111b", "CohereForAI/c4ai-command-a-03-2025", S_COHERE),
    "aya-expanse": ("automap", "library/aya-expanse:8b", "CohereForAI/aya-expanse-8b", S_COHERE),
    "deepseek-v3": ("automap", "library/deepseek-v3:671b", "deepseek-ai/DeepSeek-V3", S_DEEPSEEK),
    "deepseek-r1": ("automap", "library/deepseek-r1:latest", "deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", S_DEEPSEEK),
    "deepseek-r1-1776": ("automap", "library/r1-1776:671b", "perplexity-ai/r1-1776 (DeepSeek-R1's template)",
                         S_DEEPSEEK),
    "deepseek-v2.5": ("automap", "library/deepseek-v2.5:236b", "deepseek-ai/DeepSeek-V2.5", S_DEEPSEEK),
    "deepseek-coder": ("automap", "library/deepseek-coder:1.3b", "deepseek-ai/deepseek-coder-1.3b-instruct",
                       S_DEEPSEEK_CODER),
    "deepseek-llm": ("automap", "library/deepseek-coder-v2:16b", "deepseek-coder-v2 16b (deepseek-llm-7b-chat's template)",
                     S_DEEPSEEK),
    "granite-3.2": ("automap", "library/granite3.2:8b", "ibm-granite/granite-3.2-8b-instruct", S_GRANITE),
    "granite-3.1-moe": ("automap", "library/granite3.1-moe:1b", "ibm-granite/granite-3.1-1b-a400m-instruct", S_GRANITE),
    "granite-3.0": ("automap", "library/granite3-dense:2b", "ibm-granite/granite-3.0-2b-instruct", S_GRANITE),
    "granite-guardian-3": ("automap", "library/granite3-guardian:2b", "ibm-granite/granite-guardian-3.0-2b", S_GRANITE),
    "llama4": ("automap", "library/llama4:latest", "meta-llama/Llama-4-Scout-17B-16E-Instruct", S_LLAMA4),
    "llama3.2-vision": ("automap", "library/llama3.2-vision:latest", "meta-llama/Llama-3.2-11B-Vision-Instruct",
                        S_LLAMA3),
    "llama-guard3": ("automap", "library/llama-guard3:8b", "meta-llama/Llama-Guard-3-8B", S_LLAMA3),
    "nemotron-70b": ("automap", "library/nemotron:70b", "nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", S_LLAMA3),
    "nemotron-mini": ("automap", "library/nemotron-mini:4b", "nvidia/Nemotron-Mini-4B-Instruct", S_NEMOTRON_MINI),
    "phi4": ("automap", "library/phi4:14b", "microsoft/phi-4", S_PHI4),
    "phi4-reasoning": ("automap", "library/phi4-reasoning:14b", "microsoft/Phi-4-reasoning", S_PHI4),
    "phi4-mini-reasoning": ("automap", "library/phi4-mini-reasoning:3.8b", "microsoft/Phi-4-mini-reasoning",
                            S_PHI4MINI),
    "glm4-9b": ("automap", "library/glm4:9b", "THUDM/glm-4-9b-chat", S_GLM),
    "exaone3.5": ("automap", "library/exaone3.5:7.8b", "LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct", S_EXAONE),
    "exaone-deep": ("automap", "library/exaone-deep:32b", "LGAI-EXAONE/EXAONE-Deep-32B", S_EXAONE),
    "falcon2": ("automap", "library/falcon2:11b", "tiiuae/falcon-11B", S_FALCON),
    "internlm2": ("automap", "library/internlm2:1.8b", "internlm/internlm2_5-1_8b-chat", S_INTERNLM2),
    "dbrx": ("automap", "library/dbrx:132b", "databricks/dbrx-instruct", S_DBRX),
    "yi": ("automap", "library/yi:6b", "01-ai/Yi-6B-Chat", S_YI),
    "openchat": ("automap", "library/openchat:7b", "openchat/openchat-3.5-0106", S_OPENCHAT),
    "marco-o1": ("automap", "library/marco-o1:7b", "AIDC-AI/Marco-o1", S_QWEN),
    "cogito-llama": ("automap", "library/cogito:3b", "deepcogito/cogito-v1-preview-llama-3B", S_LLAMA3),
    "cogito-qwen": ("automap", "library/cogito:14b", "deepcogito/cogito-v1-preview-qwen-14B", S_QWEN),
    "qwen3-next": ("automap", "library/qwen3-next:80b", "Qwen/Qwen3-Next-80B-A3B", S_QWEN),
    "qwen2.5-vl": ("automap", "library/qwen2.5vl:latest", "Qwen/Qwen2.5-VL-7B-Instruct", S_QWEN),
    "qwq-32b-preview": ("automap", "library/qwq:32b#0", "Qwen/QwQ-32B-Preview", S_QWEN),
    "tulu3": ("automap", "library/tulu3:70b", "allenai/Llama-3.1-Tulu-3-70B", S_LLAMA3_BASE),
    "stable-code": ("automap", "library/stable-code:3b", "stabilityai/stable-code-instruct-3b", S_GPT2ISH),
    "shieldgemma": ("automap", "library/shieldgemma:27b", "google/shieldgemma-27b", S_GEMMA),
    "rnj-1": ("automap", "library/rnj-1:latest", "EssentialAI/rnj-1-instruct", S_LLAMA3),
}

# Template variables that a template cannot do without, passed (after the special tokens and before
# a conversation's own kwargs) to every case of that template, as its model card says to.
TEMPLATE_KWARGS = {
    # Fireworks' card: functions=json.dumps(the function specs, indent=4), datetime=now as text
    "firefunction-v2": lambda: {"functions": json.dumps([t["function"] for t in TOOLS], indent=4),
                                "datetime": FIXED_NOW.strftime("%Y-%m-%d %H:%M:%S")},
    # ShieldGemma's card: the safety policy to judge against
    "shieldgemma": lambda: {"guideline": "\"No Harassment\": The prompt shall not contain or seek generation of "
                                         "content that is malicious, intimidating, bullying, or abusive."},
}

# ---------------------------------------------------------------------------------------------
# Conversations. Key order in every dict is the order the template sees.
TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. \"Paris\""},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit"},
                "days": {"type": "integer", "description": "Forecast days", "minimum": 1, "maximum": 7},
            },
            "required": ["city"],
        },
    }},
    {"type": "function", "function": {
        "name": "search_flights",
        "description": "Search flights between two airports.",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "description": "IATA code"},
                "destination": {"type": "string", "description": "IATA code"},
                "passengers": {
                    "type": "object",
                    "description": "Who travels",
                    "properties": {"adults": {"type": "integer"}, "children": {"type": "integer", "default": 0}},
                    "required": ["adults"],
                    "additionalProperties": {"type": "integer"},
                },
                "max_price": {"type": "number", "description": "Upper price limit in EUR"},
                "flexible": {"type": "boolean", "description": "Allow other dates"},
                "cabins": {"type": "array", "description": "Cabin classes",
                           "items": {"type": "string", "enum": ["economy", "business"]}},
            },
            "required": ["origin", "destination", "passengers"],
        },
    }},
]

WEATHER_ARGS = {"city": "Paris", "unit": "celsius", "days": 3}
FLIGHT_ARGS = {
    "origin": "CDG", "destination": "NRT",
    "passengers": {"adults": 2, "children": 0},
    "max_price": 1500.5, "flexible": True, "cabins": ["economy", "business"],
    "values": {"f": 1.5, "tiny": 1e-7, "big": 1e16, "i": 100, "neg": -0.25, "zero": 0.0, "b": False,
               "n": None, "s": "a\"b\\c\n", "u": "é", "nested": [[1, 2], [3.0, [True, None]], []], "empty": {}},
}
WEATHER_RESULT = json.dumps({"temperature": 18.5, "condition": "cloudy", "humidity": 0.7})
FLIGHT_RESULT = json.dumps({"flights": [{"id": "AF276", "price": 1234.0}], "count": 1})


def _turns(n):
    out = []
    for i in range(n):
        if i % 2 == 0:
            out.append({"role": "user", "content": f"Question {i // 2 + 1}: what is {i} + {i}?"})
        else:
            out.append({"role": "assistant", "content": f"{i - 1} + {i - 1} = {2 * (i - 1)}."})
    return out


# name -> (messages, tools, extra kwargs, add_generation_prompt)
CONVERSATIONS = {
    "single": ([{"role": "user", "content": "Hello!"}], None, {}, True),
    "system": ([
        {"role": "system", "content": "You are a terse assistant."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "What is 2+2?"},
    ], None, {}, True),
    "many": ([{"role": "system", "content": "Be brief."}] + _turns(19), None, {}, True),
    "nosystem_nogen": ([
        {"role": "user", "content": "Name a colour."},
        {"role": "assistant", "content": "Blue."},
    ], None, {}, False),
    "system_nogen": ([
        {"role": "system", "content": "Answer in one word."},
        {"role": "user", "content": "Capital of France?"},
        {"role": "assistant", "content": "Paris"},
    ], None, {}, False),
    "tools": ([
        {"role": "user", "content": "What's the weather in Paris, and any flights CDG to NRT?"},
    ], TOOLS, {}, True),
    "tool_calls_dict": ([
        {"role": "system", "content": "You can call tools."},
        {"role": "user", "content": "Weather in Paris for 3 days?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "Wx7pQ2nZ1", "type": "function", "function": {"name": "get_weather", "arguments": WEATHER_ARGS}},
        ]},
        {"role": "tool", "tool_call_id": "Wx7pQ2nZ1", "name": "get_weather", "content": WEATHER_RESULT},
        {"role": "assistant", "content": "It is 18.5 °C and cloudy in Paris."},
    ], TOOLS, {}, False),
    "tool_calls_json": ([
        {"role": "user", "content": "Find flights CDG to NRT for two adults."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "Kd93LmA0b", "type": "function",
             "function": {"name": "search_flights", "arguments": json.dumps(FLIGHT_ARGS)}},
        ]},
        {"role": "tool", "tool_call_id": "Kd93LmA0b", "name": "search_flights", "content": FLIGHT_RESULT},
        {"role": "assistant", "content": "AF276 costs 1234 EUR."},
        {"role": "user", "content": "Book it."},
    ], TOOLS, {}, True),
    "null_content": ([
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "Nn1Mm2Ll3", "type": "function",
             "function": {"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}},
        ]},
        {"role": "tool", "tool_call_id": "Nn1Mm2Ll3", "name": "get_weather", "content": WEATHER_RESULT},
    ], TOOLS, {}, True),
    "tool_args_values": ([
        {"role": "user", "content": "Search with odd values."},
        {"role": "assistant", "content": "Searching.", "tool_calls": [
            {"id": "Tz5Rr8Yq4", "type": "function", "function": {"name": "search_flights", "arguments": FLIGHT_ARGS}},
        ]},
        {"role": "tool", "tool_call_id": "Tz5Rr8Yq4", "name": "search_flights", "content": FLIGHT_RESULT},
        {"role": "assistant", "content": "Done."},
    ], TOOLS, {}, False),
    "parallel_calls": ([
        {"role": "user", "content": "Weather in Paris and flights CDG-NRT?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "Pp0Oo9Ii8", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
            {"id": "Bb2Cc3Dd4", "type": "function", "function": {
                "name": "search_flights",
                "arguments": {"origin": "CDG", "destination": "NRT", "passengers": {"adults": 1}}}},
        ]},
        {"role": "tool", "tool_call_id": "Pp0Oo9Ii8", "name": "get_weather", "content": WEATHER_RESULT},
        {"role": "tool", "tool_call_id": "Bb2Cc3Dd4", "name": "search_flights", "content": FLIGHT_RESULT},
        {"role": "assistant", "content": "Cloudy, 18.5 °C; AF276 at 1234 EUR."},
    ], TOOLS, {}, False),
    "reasoning": ([
        {"role": "system", "content": "Think first."},
        {"role": "user", "content": "Is 17 prime?"},
        {"role": "assistant", "content": "Yes, 17 is prime.",
         "reasoning_content": "17 is not divisible by 2, 3 or 5 (and 5*5 > 17)."},
        {"role": "user", "content": "And 21?"},
        {"role": "assistant", "content": "<think>\n21 = 3 * 7.\n</think>\n\nNo: 21 = 3 × 7."},
        {"role": "user", "content": "And 23?"},
    ], None, {}, True),
    "content_parts": ([
        {"role": "system", "content": [{"type": "text", "text": "You describe things."}]},
        {"role": "user", "content": [{"type": "text", "text": "Describe "}, {"type": "text", "text": "a cat."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "A small furry animal."}]},
        {"role": "user", "content": [{"type": "text", "text": "Shorter."}]},
    ], None, {}, True),
    "extra_vars": ([
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "What day is it?"},
    ], None, {"enable_thinking": False, "date_string": "26 Jul 2024"}, True),
    "jinja_like": ([
        {"role": "system", "content": "Literal {{ x }} and {% if true %}y{% endif %} and {# c #}."},
        {"role": "user", "content": "Repeat: <|im_end|> </s> <s> [INST] <|eot_id|> {{ messages }} {%- raw %}"},
        {"role": "assistant", "content": "<|im_start|>assistant\n{{ '}}' }} {% endfor %} \\n '\"\\"},
        {"role": "user", "content": "{% for m in messages %}{{ m }}{% endfor %}"},
    ], None, {}, True),
    "unicode": ([
        {"role": "system", "content": "\u3000Réponds en français.\u00a0"},
        {"role": "user", "content": " 你好 🙂 café\u00a0naïve\u3000 \t\n"},
        {"role": "assistant", "content": "\n\nBonjour ! 👋🏽 Ça va ? e\u0301 \u200b\u2028 end\u00a0"},
        {"role": "user", "content": "Ελληνικά, русский, עברית, العربية, 日本語 \U0001f600\n"},
    ], None, {}, True),
    "empty": ([
        {"role": "system", "content": ""},
        {"role": "user", "content": ""},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "ok"},
    ], None, {}, True),
    "extra_keys": ([
        {"role": "user", "content": "Hi there", "name": "alice", "id": 7, "weight": 0.5,
         "meta": {"k": [1, 2], "ok": True}},
        {"role": "assistant", "content": "Hello Alice.", "reasoning": "Greet by name.", "refusal": None,
         "annotations": []},
    ], None, {}, False),
}


# ---------------------------------------------------------------------------------------------
def check_versions():
    import jinja2
    import transformers
    have = {"transformers": transformers.__version__, "jinja2": jinja2.__version__}
    bad = [f"{k} {have[k]} (want {v})" for k, v in PINNED.items() if have[k] != v]
    if sys.version_info[:2] != (3, 11):
        bad.append(f"python {sys.version.split()[0]} (want 3.11)")
    if bad:
        msg = "version mismatch: " + ", ".join(bad)
        if os.environ.get("XLARUN_FIXTURES_ANY_VERSION") == "1":
            print("warning: " + msg, file=sys.stderr)
        else:
            sys.exit(msg + " (set XLARUN_FIXTURES_ANY_VERSION=1 to go on)")


def fix_clock():
    import transformers.utils.chat_template_utils as ctu

    class FixedDatetime(_dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return FIXED_NOW if tz is None else FIXED_NOW.replace(tzinfo=_dt.timezone.utc).astimezone(tz)

    ctu.datetime = FixedDatetime


def make_tokenizer(specials):
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast
    tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(WordLevel({"x": 0}, unk_token="x")), **specials)
    if tok.special_tokens_map != specials:
        sys.exit(f"special_tokens_map {tok.special_tokens_map!r} != {specials!r}")
    return tok


def hx(s):
    return s.encode("utf-8").hex()


def render_all():
    check_versions()
    fix_clock()
    import jinja2
    import transformers

    names = sorted(TEMPLATES)
    on_disk = sorted(f[:-6] for f in os.listdir(TEMPLATE_DIR) if f.endswith(".jinja"))
    if on_disk != names:
        sys.exit(f"templates/ and TEMPLATES differ: only on disk {sorted(set(on_disk) - set(names))}, "
                 f"only in TEMPLATES {sorted(set(names) - set(on_disk))}")
    header = (f"# made by tools/make_jinja_fixtures.py (transformers {transformers.__version__}, jinja2 "
              f"{jinja2.__version__}, python {sys.version.split()[0]}); strftime_now fixed at "
              f"{FIXED_NOW:%Y-%m-%d %H:%M:%S}\n")
    lines = [header]
    n_err = 0
    per_template = {}
    for name in names:
        with open(os.path.join(TEMPLATE_DIR, name + ".jinja"), encoding="utf-8", newline="") as f:
            template = f.read()
        specials = TEMPLATES[name][3]
        tok = make_tokenizer(specials)
        errs = 0
        for conv, (messages, tools, conv_kwargs, gen) in CONVERSATIONS.items():
            kwargs = {**TEMPLATE_KWARGS.get(name, dict)(), **conv_kwargs}
            template_vars = {**tok.special_tokens_map, **kwargs}
            before = json.dumps([messages, tools, kwargs], ensure_ascii=False)
            try:
                out = ("text", tok.apply_chat_template(messages, tools=tools, chat_template=template,
                                                       add_generation_prompt=gen, tokenize=False, **kwargs))
                if not isinstance(out[1], str):
                    sys.exit(f"{name} {conv}: got {type(out[1])}")
            except Exception as e:  # noqa: BLE001 -- every failure is a fixture
                out = ("error", type(e).__name__, str(e))
                errs += 1
            if json.dumps([messages, tools, kwargs], ensure_ascii=False) != before:
                sys.exit(f"{name} {conv}: apply_chat_template changed its inputs")
            lines.append(f"case {name} {conv}\n")
            lines.append(f"messages {hx(json.dumps(messages, ensure_ascii=False))}\n")
            lines.append(f"tools {hx(json.dumps(tools, ensure_ascii=False))}\n" if tools is not None else "tools -\n")
            lines.append(f"vars {hx(json.dumps(template_vars, ensure_ascii=False))}\n")
            lines.append(f"gen {1 if gen else 0}\n")
            if out[0] == "text":
                lines.append(f"text {hx(out[1])}\n")
            else:
                lines.append(f"error {out[1]} {hx(out[2])}\n")
            lines.append("end\n")
        per_template[name] = errs
        n_err += errs
    with open(os.path.join(OUT, "cases.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)
    src_lines = ["# made by tools/make_jinja_fixtures.py; tab-separated: NAME, SOURCE (repo@commit:path[entry]),"
                 " MODEL, SPECIAL TOKENS (json)\n"]
    for name in names:
        src_lines.append(f"{name}\t{source_of(name)}\t{TEMPLATES[name][2]}\t"
                         f"{json.dumps(TEMPLATES[name][3], ensure_ascii=False)}\n")
    with open(os.path.join(OUT, "sources.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.writelines(src_lines)
    n_cases = len(names) * len(CONVERSATIONS)
    replay(names)
    print(f"{len(names)} templates x {len(CONVERSATIONS)} conversations = {n_cases} cases, {n_err} errors")
    for name in names:
        print(f"  {name}: {per_template[name]} errors")


def replay(names):
    """Check that cases.txt alone reproduces every case: parse it back (json.loads of the hex
    fields), render again from the parsed values through apply_chat_template, compare."""
    templates = {}
    for name in names:
        with open(os.path.join(TEMPLATE_DIR, name + ".jinja"), encoding="utf-8", newline="") as f:
            templates[name] = f.read()
    n = 0
    case = {}
    with open(os.path.join(OUT, "cases.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            key, _, val = line.rstrip("\n").partition(" ")
            if key == "case":
                case = {"id": val}
            elif key != "end":
                case[key] = val
                continue
            else:
                name = case["id"].split()[0]
                unhex = lambda h: bytes.fromhex(h).decode("utf-8")  # noqa: E731
                messages = json.loads(unhex(case["messages"]))
                tools = None if case["tools"] == "-" else json.loads(unhex(case["tools"]))
                template_vars = json.loads(unhex(case["vars"]))
                specials = {k: v for k, v in template_vars.items() if k in TEMPLATES[name][3]}
                kwargs = {k: v for k, v in template_vars.items() if k not in specials}
                tok = make_tokenizer(specials)
                try:
                    got = "text " + tok.apply_chat_template(messages, tools=tools, chat_template=templates[name],
                                                            add_generation_prompt=case["gen"] == "1",
                                                            tokenize=False, **kwargs).encode("utf-8").hex()
                except Exception as e:  # noqa: BLE001
                    got = f"error {type(e).__name__} {str(e).encode('utf-8').hex()}"
                want = "text " + case["text"] if "text" in case else "error " + case["error"]
                if got != want:
                    sys.exit(f"replay of {case['id']} differs")
                n += 1
    print(f"replayed {n} cases from cases.txt: all the same")


def source_of(name):
    kind, key, _, _ = TEMPLATES[name]
    if kind in ("chat", "automap"):
        repo, commit, path = HFJS_AUTOMAP
        k = key.split("#")[0]
        where = f"{repo}@{commit}:{path}[model={k}{'' if '#' not in key else ',entry ' + key.split('#')[1]}]"
        if kind == "chat":
            where = f"{where} (as tests/fixtures/chat/templates/{name}.jinja)"
    elif kind == "e2e":
        repo, commit, path = HFJS_E2E
        where = f"{repo}@{commit}:{path}[TEST_CUSTOM_TEMPLATES[{json.dumps(key)}]]"
    else:
        repo, _, path = LLAMACPP if kind == "llamacpp" else SYNC
        file, _, commit = key.partition("@")
        where = f"{repo}@{commit}:{path}/{file}"
    return where


# ---------------------------------------------------------------------------------------------
def git_show(git_dir, commit, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")


def node_eval(js):
    return json.loads(subprocess.run(["node"], input=js.encode("utf-8"), check=True,
                                     capture_output=True).stdout.decode("utf-8"))


def collect(hfjs, llamacpp, sync):
    os.makedirs(TEMPLATE_DIR, exist_ok=True)
    automap_src = git_show(hfjs, HFJS_AUTOMAP[1], HFJS_AUTOMAP[2])
    body = automap_src[automap_src.index("export const OLLAMA_CHAT_TEMPLATE_MAPPING"):]
    body = body.replace("export const OLLAMA_CHAT_TEMPLATE_MAPPING: OllamaChatTemplateMapEntry[] =", "const M =", 1)
    automap = node_eval(body + "\nprocess.stdout.write(JSON.stringify(M.map(e => [e.model, e.gguf])));\n")
    e2e_src = git_show(hfjs, HFJS_E2E[1], HFJS_E2E[2])
    start = e2e_src.index("const EXAMPLE_CHAT = [")
    end = e2e_src.index("const TEST_CUSTOM_FORMATTING")
    e2e = node_eval(e2e_src[start:end] + "\nprocess.stdout.write(JSON.stringify(Object.entries("
                    "TEST_CUSTOM_TEMPLATES).map(([k, v]) => [k, v.chat_template])));\n")
    e2e = dict(e2e)
    seen = {}
    for name in sorted(TEMPLATES):
        kind, key, _, _ = TEMPLATES[name]
        if kind == "chat":
            with open(os.path.join(CHAT_DIR, name + ".jinja"), encoding="utf-8", newline="") as f:
                text = f.read()
            model, _, idx = key.partition("#")
            hits = [t for m, t in automap if m == model]
            if text != hits[int(idx or 0)]:
                sys.exit(f"{name}: tests/fixtures/chat/templates differs from the automap entry {key}")
        elif kind == "automap":
            model, _, idx = key.partition("#")
            text = [t for m, t in automap if m == model][int(idx or 0)]
        elif kind == "e2e":
            text = e2e[key]
        else:
            file, _, commit = key.partition("@")
            text = git_show(llamacpp if kind == "llamacpp" else sync, commit, f"{LLAMACPP[2]}/{file}")
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if digest in seen:
            sys.exit(f"{name}: same text as {seen[digest]}")
        seen[digest] = name
        with open(os.path.join(TEMPLATE_DIR, name + ".jinja"), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    for f in os.listdir(TEMPLATE_DIR):
        if f.endswith(".jinja") and f[:-6] not in TEMPLATES:
            os.remove(os.path.join(TEMPLATE_DIR, f))
    print(f"wrote {len(TEMPLATES)} templates to {TEMPLATE_DIR}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", nargs="?", default="render", choices=["render", "collect"])
    ap.add_argument("--hfjs", help="git dir of huggingface/huggingface.js (collect)")
    ap.add_argument("--llamacpp", help="git dir of a llama.cpp clone holding the LLAMACPP commit (collect)")
    ap.add_argument("--sync", help="git dir of a clone holding the SYNC commit (collect)")
    args = ap.parse_args()
    if args.command == "collect":
        if not args.hfjs or not args.llamacpp or not args.sync:
            ap.error("collect needs --hfjs, --llamacpp and --sync")
        collect(args.hfjs, args.llamacpp, args.sync)
    else:
        render_all()


if __name__ == "__main__":
    main()
