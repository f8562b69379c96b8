/* fuzz_encode: encoding arbitrary bytes with the committed fixture tokenizers (Llama 3, GPT-2,
   SentencePiece-style, the demo's SmolLM2-style, the two Metaspace ones, Qwen2's with NFC and
   Gemma's). The first byte picks the tokenizer (low 2 bits, plus 4 when bit 5 is set; 7 is Gemma's)
   and the encode flags (bits 2-4); the rest is the text. The ids are decoded whole and streamed. */
#include "fuzz_tok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const xlarun_tokenizer *t;
    if (size < 1) return 0;
    t = fuzz_fixture((data[0] & 3u) | ((data[0] >> 3) & 4u));
    fuzz_encode(t, (const char *)data + 1, size - 1, (data[0] >> 2) & 7);
    return 0;
}
