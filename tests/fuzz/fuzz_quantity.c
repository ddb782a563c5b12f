/*
 * fuzz_quantity.c: gq_quantity_parse, which reads every resource quantity
 * of a manifest ("100m", "1.5Gi", "1e3"). It takes (pointer, length), so the
 * input goes in unterminated. A quantity that parses must print in its
 * canonical form, which parses back to an equal quantity, and its integer
 * views must not misbehave. The text need not print the same again: as in
 * apimachinery, "812.5Ki" prints "832000", which reads back as DecimalSI
 * and prints "832k" (corpus/quantity/binary-not-multiple-of-1024).
 */
#include "fuzz.h"
#include "gpuqueue/quantity.h"

static void check_canonical(const gq_quantity *q, const char *in, size_t len)
{
    char text[GQ_QUANTITY_BUFSIZE];
    gq_quantity again;
    size_t n = gq_quantity_format(text, sizeof(text), q);
    int rc = gq_quantity_parse(&again, text, n, NULL);

    FUZZ_ASSERT(rc == GQ_OK, "\"%.*s\" prints as \"%s\", which does not parse (%d)", (int)len,
                in, text, rc);
    FUZZ_ASSERT(gq_quantity_cmp(q, &again) == 0, "\"%.*s\" prints as \"%s\", another value",
                (int)len, in, text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size ? size : 1);
    gq_error err = {0, ""};
    gq_quantity q;
    int64_t v;

    if (!s)
        return 0;
    if (size)
        memcpy(s, data, size);
    if (gq_quantity_parse(&q, s, size, &err) == GQ_OK) {
        check_canonical(&q, s, size);
        (void)gq_quantity_value(&v, &q);
        (void)gq_quantity_milli_value(&v, &q);
        (void)gq_quantity_resource_value(&v, "cpu", &q);
    } else {
        FUZZ_ASSERT(err.msg[0] != '\0' && !strchr(err.msg, '\n'), "message \"%s\"", err.msg);
    }
    free(s);
    return 0;
}
