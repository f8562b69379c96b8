// test_cpp.cpp - the header compiled as C++ (with XLARUN_STATIC): open a fixture, run greedy.
#define XLARUN_STATIC
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include "test.h"

int main(int argc, char **argv) {
    xlarun_model *m = nullptr;
    xlarun_session *s = nullptr;
    xlarun_error err;
    xlarun_session_options so = {};
    so.n_ctx = 64;
    so.n_threads = 2;
    test_init(argc, argv);
    if (!test_case("c++ greedy llama32-f16")) return test_report("c++");
    CHECK(xlarun_model_open("tests/fixtures/llama32-f16", nullptr, &m, &err) == XLARUN_OK);
    CHECK(xlarun_session_create(m, &so, &s, &err) == XLARUN_OK);
    if (s) {
        int32_t ids[] = {509, 17, 204};
        CHECK(xlarun_session_prefill(s, ids, 3, &err) == XLARUN_OK);
        int32_t next = xlarun_session_argmax(s);
        CHECK(next >= 0 && next < 512);
        CHECK(xlarun_session_decode(s, next, &err) == XLARUN_OK);
        CHECK(xlarun_session_position(s) == 4);
        CHECK(xlarun_session_decode(s, 512, &err) == XLARUN_ERR_ARGUMENT);
    }
    xlarun_session_free(s);
    xlarun_model_close(m);
    return test_report("c++");
}
