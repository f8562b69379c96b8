/* oracle_ids DIR - print the prompt ids (line 1) and the greedy ids (line 2) of DIR's
   oracle.safetensors, comma- and space-separated, for the CLI test. */
#define XLARUN_IMPLEMENTATION
#include "../xlarun.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t file_read(void *user, void *buf, size_t n) {
    size_t r = fread(buf, 1, n, (FILE *)user);
    return r == 0 && ferror((FILE *)user) ? (size_t)-1 : r;
}

int main(int argc, char **argv) {
    char path[512];
    FILE *f;
    xlarun_st_reader r;
    xlarun_error err;
    const xlarun_st_tensor *t;
    void *mem = NULL;
    int32_t ids[4096];
    char line[2][65536] = {{0}};
    if (argc != 2) { fprintf(stderr, "usage: oracle_ids DIR\n"); return 2; }
    snprintf(path, sizeof path, "%s/oracle.safetensors", argv[1]);
    if (!(f = fopen(path, "rb"))) { fprintf(stderr, "xlarun: error: cannot open %s\n", path); return 1; }
    if (xlarun_st_begin(&r, file_read, f, path, 0, &err) != XLARUN_OK || !(mem = malloc(xlarun_st_memory(&r))) ||
        xlarun_st_read_header(&r, mem, xlarun_st_memory(&r), &err) != XLARUN_OK) {
        fprintf(stderr, "xlarun: error: %s\n", err.message);
        return 1;
    }
    while (xlarun_st_next(&r, &t, &err) == XLARUN_OK && t) {
        int which = !strcmp(t->name, "prompt") ? 0 : !strcmp(t->name, "greedy") ? 1 : -1;
        size_t got, i, n = (size_t)t->shape[0];
        if (which < 0 || t->dtype != XLARUN_DTYPE_I32 || n > 4096) continue;
        xlarun_st_read(&r, ids, n * 4, &got, &err);
        for (i = 0; i < n; i++)
            snprintf(line[which] + strlen(line[which]), sizeof line[which] - strlen(line[which]),
                     i ? (which ? " %d" : ",%d") : "%d", (int)ids[i]);
    }
    printf("%s\n%s\n", line[0], line[1]);
    free(mem);
    fclose(f);
    return 0;
}
