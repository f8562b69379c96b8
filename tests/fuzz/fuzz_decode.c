/* fuzz_decode: decoding arbitrary ids with the committed fixture tokenizers. The first byte picks
   the tokenizer (low 2 bits, plus 4 when bit 5 is set; 6 is Qwen2's, 7 Gemma's), the decode
   flags (bit 2) and the id width (bit 3: one byte per id,
   else two, little-endian, so most ids land in the vocabulary); bit 4 lets an id run past the
   vocabulary (raw 32-bit little-endian ids). Whole and streamed decoding must agree. */
#include "fuzz_tok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const xlarun_tokenizer *t;
    int32_t *ids;
    size_t n = 0, i, w;
    unsigned mode;
    if (size < 1) return 0;
    mode = data[0];
    t = fuzz_fixture((mode & 3u) | ((mode >> 3) & 4u));
    w = (mode & 16) ? 4 : (mode & 8) ? 1 : 2;
    ids = (int32_t *)malloc(((size - 1) / w + 1) * sizeof *ids);
    FUZZ_CHECK(ids != NULL);
    for (i = 1; i + w <= size; i += w) {
        uint32_t v = 0;
        size_t k;
        for (k = 0; k < w; k++) v |= (uint32_t)data[i + k] << (8 * k);
        ids[n++] = w == 4 ? (int32_t)v : (int32_t)(v % xlarun_tokenizer_vocab_size(t));
    }
    fuzz_decode(t, ids, n, (mode & 4) ? XLARUN_DECODE_SKIP_SPECIAL : 0);
    free(ids);
    return 0;
}
