/* The strict JSON reader (lib/common/json_reader.h): a table of hostile and
 * borderline documents with the status and a word of the message each must
 * get, the tape's shape, numbers against strtod, and the two consumers (job
 * specs and config.json) refusing the same leniencies the same way. White-box:
 * links the static core. */
#include <criterion/criterion.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_reader.h"
#include "model/hf_config.h"

static int parse(const char *text, size_t len, vx_jdoc *d)
{
    return vx_json_parse(d, text, len, "doc");
}

typedef struct row {
    const char *name, *text;
    int len; /* -1: strlen */
    int rc;
    const char *word; /* in the message, or NULL */
} row;

#define BAD(n, t, w) {n, t, -1, VRAMEST_E_PARSE, w}
static const row rows[] = {
    BAD("empty", "", "empty document"),
    BAD("blank", "  \n ", "end of JSON"),
    BAD("comment /* */", "/* c */ {}", "comment"),
    BAD("comment //", "{\"a\": 1 // c\n}", "comment"),
    BAD("trailing comma object", "{\"a\": 1,}", "trailing comma"),
    BAD("trailing comma array", "[1, 2,]", "trailing comma"),
    BAD("double comma", "{\"a\": 1,, \"b\": 2}", "byte 8"),
    BAD("single-quoted string", "{\"a\": 'x'}", "single quote"),
    BAD("single-quoted key", "{'a': 1}", "single quote"),
    BAD("unquoted key", "{a: 1}", "key in double quotes"),
    BAD("duplicate key", "{\"a\": 1, \"b\": 2, \"a\": 3}", "duplicate key \"a\""),
    BAD("duplicate key by escape", "{\"a\": 1, \"\\u0061\": 2}", "duplicate key \"a\" (first at byte 1)"),
    BAD("duplicate nested", "{\"x\": {\"k\": 1, \"k\": 1}}", "byte 15"),
    BAD("NUL escape in a key", "{\"a\\u0000b\": 1}", "object key"),
    BAD("raw NUL in a string", "{\"a\": \"x\0y\"}", "NUL byte"),
    BAD("raw NUL after", "{}\0", "NUL byte"),
    BAD("control char", "[\"a\tb\"]", "control character"),
    BAD("invalid UTF-8 0xff", "[\"\xff\"]", "invalid UTF-8"),
    BAD("overlong UTF-8", "[\"\xc0\xaf\"]", "invalid UTF-8"),
    BAD("UTF-8 surrogate", "[\"\xed\xa0\x80\"]", "invalid UTF-8"),
    BAD("beyond U+10FFFF", "[\"\xf4\x90\x80\x80\"]", "invalid UTF-8"),
    BAD("cut UTF-8", "[\"\xe2\x82\"]", "invalid UTF-8"),
    BAD("byte >= 0x80 outside a string", "[1, \xc3\xa9]", "unexpected character, expected a value at byte 4"),
    BAD("lone high surrogate", "[\"\\ud800\"]", "lone high surrogate escape"),
    BAD("lone high, then a letter", "[\"\\ud800x\"]", "lone high surrogate"),
    BAD("high then high", "[\"\\ud800\\ud800\"]", "lone high surrogate"),
    BAD("lone low surrogate", "[\"\\udc00\"]", "lone low surrogate"),
    BAD("bad escape", "[\"\\x41\"]", "an invalid escape"),
    BAD("short \\u", "[\"\\u12\"]", "\\u escape"),
    BAD("leading zero", "[01]", "leading zero"),
    BAD("leading zero negative", "[-01]", "leading zero"),
    BAD("plus sign", "[+1]", "unexpected character, expected a value at byte 1"),
    BAD("bare point", "[.5]", "unexpected character, expected a value at byte 1"),
    BAD("point without digits", "[1.]", "after the decimal point"),
    BAD("exponent without digits", "[1e]", "exponent"),
    BAD("exponent sign only", "[1e+]", "exponent"),
    BAD("minus alone", "[-]", "a digit"),
    BAD("hex", "[0x10]", "expected ',' or ']' at byte 2"),
    BAD("nan lowercase", "[nan]", "expected a value at byte 1"),
    BAD("inf", "[inf]", "expected a value at byte 1"),
    BAD("-NaN", "[-NaN]", "expected a digit at byte 2"),
    BAD("+Infinity", "[+Infinity]", "expected a value at byte 1"),
    BAD("Infinit", "[Infinit", "end of JSON"),
    BAD("tru", "[tru", "end of JSON"),
    BAD("tru]", "[tru]", "expected a value at byte 1"),
    BAD("truex", "[truex]", "expected ',' or ']' at byte 5"),
    BAD("TRUE", "[TRUE]", "expected a value at byte 1"),
    BAD("None", "{\"a\": None}", "expected a value at byte 6"),
    BAD("two documents", "{} {}", "after the JSON document"),
    BAD("unclosed object", "{\"a\": 1", "end of JSON"),
    BAD("unclosed string", "[\"abc", "end of JSON"),
    BAD("missing colon", "{\"a\" 1}", "':'"),
    BAD("missing comma", "[1 2]", "',' or ']'"),
    BAD("close mismatch", "[1}", "',' or ']'"),
    BAD("BOM twice", "\xEF\xBB\xBF\xEF\xBB\xBF{}", "expected a value at byte 3"),
    {"accepted: BOM", "\xEF\xBB\xBF {}", -1, VRAMEST_OK, NULL},
    {"accepted: NaN, Infinity, -Infinity", "[NaN, Infinity, -Infinity]", -1, VRAMEST_OK, NULL},
    {"accepted: \\u0000 in a value", "{\"a\": \"x\\u0000y\"}", -1, VRAMEST_OK, NULL},
    {"accepted: scalar document", "12", -1, VRAMEST_OK, NULL},
    {"accepted: 1e400", "[1e400, -1e400, 1e-400]", -1, VRAMEST_OK, NULL},
    {"accepted: all whitespace kinds", " \t\r\n[ \t\r\n1 \t\r\n] \t\r\n", -1, VRAMEST_OK, NULL},
};

Test(json, hostile_table)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        size_t len = r->len < 0 ? strlen(r->text) : (size_t)r->len;
        /* The raw-NUL rows are written with an explicit NUL inside. */
        if (strstr(r->name, "raw NUL")) len = strlen(r->text) + 1 + strlen(r->text + strlen(r->text) + 1);
        vx_jdoc d;
        int rc = parse(r->text, len, &d);
        cr_expect_eq(rc, r->rc, "%s: status %d, expected %d: %s", r->name, rc, r->rc, vramest_last_error_message());
        if (rc && r->word)
            cr_expect(strstr(vramest_last_error_message(), r->word), "%s: message '%s' lacks '%s'", r->name,
                      vramest_last_error_message(), r->word);
        if (rc) cr_expect(strstr(vramest_last_error_message(), "byte"), "%s: no offset", r->name);
        /* The byte found is never shown (docs/security.md, "Messages"): no
         * quoted character, no hex value, no escaped code point. */
        const char *m = vramest_last_error_message();
        if (rc)
            cr_expect(!strstr(m, "unexpected '") && !strstr(m, "found '") && !strstr(m, "0x") && !strstr(m, "\\uD") &&
                          !strstr(m, "\\ud"),
                      "%s: '%s' shows what it found", r->name, m);
        vx_json_free(&d);
    }
}

Test(json, every_prefix_of_a_document_fails)
{
    static const char doc[] = "{\"a\": [1, -2.5e-3, \"x\\u00e9\\ud83d\\ude00\", true, false, null, {\"b\": {}}], "
                              "\"c\": NaN, \"d\": -Infinity}";
    vx_jdoc d;
    cr_assert_eq(parse(doc, sizeof doc - 1, &d), VRAMEST_OK, "%s", vramest_last_error_message());
    vx_json_free(&d);
    for (size_t n = 0; n + 1 < sizeof doc; n++) {
        int rc = parse(doc, n, &d);
        vx_json_free(&d);
        /* "{...}" cut after a complete scalar is never a document. */
        cr_expect_neq(rc, VRAMEST_OK, "prefix of %zu bytes parsed", n);
    }
}

Test(json, tape_shape)
{
    static const char doc[] = "{\"a\": [1, [2, 3], {}], \"b\": {\"c\": \"x\"}, \"e\": []}";
    vx_jdoc d;
    cr_assert_eq(parse(doc, sizeof doc - 1, &d), VRAMEST_OK);
    const vx_jv *root = vx_jroot(&d);
    cr_assert_eq(root->type, VX_J_OBJ);
    cr_assert_eq(root->u.c.count, 3);
    cr_assert_eq(root->u.c.span, d.n);
    const vx_jv *a = vx_jget(&d, root, "a");
    cr_assert(a && a->type == VX_J_ARR && a->u.c.count == 3);
    const vx_jv *e = vx_jfirst(a);
    cr_assert_eq(e->type, VX_J_INT);
    cr_assert_eq(e->u.i, 1);
    e = vx_jskip(e);
    cr_assert(e->type == VX_J_ARR && e->u.c.count == 2);
    e = vx_jskip(e);
    cr_assert(e->type == VX_J_OBJ && e->u.c.count == 0);
    cr_assert_eq(vx_jskip(e), vx_jend(a));
    const vx_jv *c = vx_jget(&d, vx_jget(&d, root, "b"), "c");
    cr_assert(c && c->type == VX_J_STR);
    cr_assert_str_eq(vx_jstr(&d, c), "x");
    cr_assert_eq(c->at, 34u, "offset %u", c->at);
    cr_assert_null(vx_jget(&d, root, "z"));
    cr_assert_null(vx_jget(&d, a, "a"));
    vx_json_free(&d);
}

Test(json, strings_decode)
{
    static const char doc[] = "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\\ud83d\\ude00\", \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", "
                              "\"a\\u0000b\"]";
    vx_jdoc d;
    cr_assert_eq(parse(doc, sizeof doc - 1, &d), VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_jv *s = vx_jfirst(vx_jroot(&d));
    cr_assert_str_eq(vx_jstr(&d, s), "\"\\/\b\f\n\r\t");
    s = vx_jskip(s);
    cr_assert_str_eq(vx_jstr(&d, s), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    s = vx_jskip(s);
    cr_assert_str_eq(vx_jstr(&d, s), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    s = vx_jskip(s);
    cr_assert_eq(s->u.s.len, 3);
    cr_assert(s->flags & VX_JF_NUL);
    const char *out;
    cr_assert_eq(vx_jcstr(&d, s, "here", &out), VRAMEST_E_PARSE);
    cr_assert(strstr(vramest_last_error_message(), "here: the string holds \\u0000"), "%s",
              vramest_last_error_message());
    vx_json_free(&d);
}

static double num_of(const char *lit, int *flags)
{
    char doc[512];
    snprintf(doc, sizeof doc, "[%s]", lit);
    vx_jdoc d;
    cr_assert_eq(parse(doc, strlen(doc), &d), VRAMEST_OK, "%s: %s", lit, vramest_last_error_message());
    const vx_jv *v = vx_jfirst(vx_jroot(&d));
    double x = v->type == VX_J_INT ? (double)v->u.i : v->u.d;
    *flags = v->type == VX_J_INT ? -1 : v->flags;
    vx_json_free(&d);
    return x;
}

Test(json, integers_are_exact)
{
    static const struct {
        const char *lit;
        int64_t v;
    } ints[] = {{"0", 0}, {"-0", 0}, {"7", 7}, {"-7", -7}, {"9223372036854775807", INT64_MAX},
                {"-9223372036854775808", INT64_MIN}, {"9007199254740993", 9007199254740993LL}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        char doc[64];
        snprintf(doc, sizeof doc, "[%s]", ints[i].lit);
        vx_jdoc d;
        cr_assert_eq(parse(doc, strlen(doc), &d), VRAMEST_OK);
        const vx_jv *v = vx_jfirst(vx_jroot(&d));
        cr_expect_eq(v->type, VX_J_INT, "%s", ints[i].lit);
        cr_expect_eq(v->u.i, ints[i].v, "%s", ints[i].lit);
        int64_t got;
        cr_expect_eq(vx_jnum_i64(v, &got), VRAMEST_OK);
        vx_json_free(&d);
    }
    int f;
    cr_expect_eq(num_of("9223372036854775808", &f), 9223372036854775808.0);
    cr_expect_eq(f, VX_JF_BIG);
    cr_expect_eq(num_of("-99999999999999999999", &f), -1e20);
    cr_expect_eq(f, VX_JF_BIG);
}

/* What an integer option makes of each number (json_reader.h's rule). */
Test(json, numbers_for_integer_options)
{
    static const struct {
        const char *lit;
        int rc;
        int64_t v;
    } cases[] = {
        {"8", VRAMEST_OK, 8},          {"8.0", VRAMEST_OK, 8},       {"1e3", VRAMEST_OK, 1000},
        {"-2E+1", VRAMEST_OK, -20},    {"8.5", VX_JN_NOT_INTEGER, 0}, {"1e-1", VX_JN_NOT_INTEGER, 0},
        {"1e30", VX_JN_TOO_BIG, 0},    {"9007199254740993.0", VX_JN_TOO_BIG, 0},
        {"99999999999999999999", VX_JN_TOO_BIG, 0}, {"NaN", VX_JN_NONFINITE, 0},
        {"-Infinity", VX_JN_NONFINITE, 0}, {"1e400", VX_JN_NONFINITE, 0}, {"\"8\"", VX_JN_NOT_NUMBER, 0},
        {"true", VX_JN_NOT_NUMBER, 0}, {"null", VX_JN_NOT_NUMBER, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[64];
        snprintf(doc, sizeof doc, "[%s]", cases[i].lit);
        vx_jdoc d;
        cr_assert_eq(parse(doc, strlen(doc), &d), VRAMEST_OK);
        int64_t got = 0;
        cr_expect_eq(vx_jnum_i64(vx_jfirst(vx_jroot(&d)), &got), cases[i].rc, "%s", cases[i].lit);
        if (!cases[i].rc) cr_expect_eq(got, cases[i].v, "%s", cases[i].lit);
        vx_json_free(&d);
    }
}

/* Every double the reader makes is strtod's (correctly rounded) for the
 * same text: the fast path and the slow one, in a locale whose decimal
 * separator is a comma when the system has one. */
static void same_as_strtod(unsigned seed, int count)
{
    static const char *const fmts[] = {"%.17g", "%.15g", "%.6g", "%.3e", "%.20e", "%.1f", "%.0f"};
    uint64_t x = seed * 2654435761u + 1;
    for (int i = 0; i < count; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        uint64_t bits = x;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v)) continue;
        if (i % 3 == 0) v = (double)(int64_t)(x % 100000000) / (double)(1 + x % 1000); /* ordinary values */
        char lit[400];
        snprintf(lit, sizeof lit, fmts[i % 7], v);
        if (strchr(lit, ',')) {
            for (char *c = lit; *c; c++)
                if (*c == ',') *c = '.'; /* a locale's comma: JSON writes a point */
        }
        char *end;
        char c_lit[400];
        memcpy(c_lit, lit, sizeof lit);
        locale_t c_loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
        locale_t old = uselocale(c_loc);
        double want = strtod(c_lit, &end);
        uselocale(old);
        freelocale(c_loc);
        int f;
        double got = num_of(lit, &f);
        /* An integer literal is an integer: "-0" is 0. */
        if (f == -1)
            cr_expect(got == want, "%s: got %.17g, strtod %.17g", lit, got, want);
        else
            cr_expect(memcmp(&got, &want, sizeof got) == 0, "%s: got %.17g, strtod %.17g", lit, got, want);
    }
}

Test(json, doubles_are_correctly_rounded)
{
    same_as_strtod(1, 20000);
    /* Long mantissas and extreme exponents take the slow path. */
    static const char *const lits[] = {
        "0.30000000000000004", "2.2250738585072014e-308", "4.9406564584124654e-324", "1.7976931348623157e308",
        "123456789012345678901234567890e-20", "0.000000000000000000000000000001234567890123456789",
        "9007199254740993", "1e23", "8.988465674311579e307", "2.47032822920623272e-324",
        "7.2057594037927933e16", "1.00000000000000011102230246251565404236316680908203125",
    };
    for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
        int f;
        double got = num_of(lits[i], &f), want = strtod(lits[i], NULL);
        cr_expect(memcmp(&got, &want, sizeof got) == 0, "%s: got %.17g, strtod %.17g", lits[i], got, want);
    }
}

Test(json, doubles_ignore_the_locale)
{
    static const char *const commas[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "fr_FR"};
    const char *set = NULL;
    for (size_t i = 0; i < sizeof commas / sizeof commas[0] && !set; i++) set = setlocale(LC_NUMERIC, commas[i]);
    if (!set) cr_skip_test("no locale with a decimal comma installed");
    int f;
    cr_expect_eq(num_of("1.5", &f), 1.5);
    cr_expect_eq(num_of("0.30000000000000004", &f), 0.30000000000000004);
    same_as_strtod(7, 2000);
    setlocale(LC_NUMERIC, "C");
}

Test(json, duplicate_keys_in_a_wide_object)
{
    /* Past the pairwise check: the hash set. */
    char *doc = malloc(200000);
    cr_assert_not_null(doc);
    size_t o = 0;
    doc[o++] = '{';
    for (int i = 0; i < 5000; i++) o += (size_t)sprintf(doc + o, "%s\"k%d\": %d", i ? "," : "", i, i);
    doc[o++] = '}';
    vx_jdoc d;
    cr_assert_eq(parse(doc, o, &d), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vx_jroot(&d)->u.c.count, 5000);
    cr_assert_eq(vx_jget(&d, vx_jroot(&d), "k4999")->u.i, 4999);
    vx_json_free(&d);
    o--;
    o += (size_t)sprintf(doc + o, ",\"k1234\": 0}");
    cr_assert_eq(parse(doc, o, &d), VRAMEST_E_PARSE);
    cr_assert(strstr(vramest_last_error_message(), "duplicate key \"k1234\""), "%s", vramest_last_error_message());
    vx_json_free(&d);
    free(doc);
}

Test(json, limits)
{
    char deep[200];
    for (int i = 0; i < 65; i++) deep[i] = '[';
    for (int i = 0; i < 65; i++) deep[65 + i] = ']';
    vx_jdoc d;
    cr_assert_eq(parse(deep, 130, &d), VRAMEST_E_LIMIT);
    cr_assert(strstr(vramest_last_error_message(), "deeper than 64"), "%s", vramest_last_error_message());
    vx_json_free(&d);
    cr_assert_eq(parse(deep + 1, 128, &d), VRAMEST_OK, "64 levels are allowed");
    vx_json_free(&d);

    /* 20 MB: one long string is fine, 20 MB of values is not. */
    size_t n = 20u << 20;
    char *big = malloc(n);
    cr_assert_not_null(big);
    memset(big, 'x', n);
    big[0] = '"', big[n - 1] = '"';
    cr_assert_eq(parse(big, n, &d), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vx_jroot(&d)->u.s.len, n - 2);
    vx_json_free(&d);
    big[0] = '[', big[n - 1] = ']';
    for (size_t i = 1; i + 1 < n; i += 2) big[i] = '0', big[i + 1] = ',';
    big[n - 2] = '0';
    cr_assert_eq(parse(big, n, &d), VRAMEST_E_LIMIT);
    cr_assert(strstr(vramest_last_error_message(), "JSON values"), "%s", vramest_last_error_message());
    vx_json_free(&d);
    for (size_t i = 1; i + 2 < n; i += 3) big[i] = '{', big[i + 1] = '}', big[i + 2] = ',';
    cr_assert_eq(parse(big, n, &d), VRAMEST_E_LIMIT);
    cr_assert(strstr(vramest_last_error_message(), "JSON objects"), "%s", vramest_last_error_message());
    vx_json_free(&d);
    free(big);
}

/* ---- the consumers refuse the same things, naming the key ---- */

static int config(const char *json)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    int rc = vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, json, strlen(json), NULL);
    vramest_model_free(m);
    return rc;
}

static int spec(const char *json)
{
    size_t needed;
    char buf[8];
    int rc = vramest_spec_plan(json, strlen(json), buf, sizeof buf, &needed);
    return rc == VRAMEST_E_BUFFER_TOO_SMALL ? VRAMEST_OK : rc; /* it got as far as the plan */
}

#define LLAMA                                                                                                     \
    "\"model_type\": \"llama\", \"hidden_size\": 256, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, " \
    "\"intermediate_size\": 512, \"vocab_size\": 1000"

Test(json, config_json_and_specs_are_equally_strict)
{
    static const struct {
        const char *body; /* config.json members after LLAMA */
        int rc;
        const char *word;
    } cases[] = {
        {", \"hidden_size\": 512", VRAMEST_E_PARSE, "duplicate key \"hidden_size\""},
        {", /* no */ \"x\": 1", VRAMEST_E_PARSE, "comment"},
        {",", VRAMEST_E_PARSE, "trailing comma"},
        {", 'x': 1", VRAMEST_E_PARSE, "single quote"},
        {", \"hidden_act\": \"si\xfflu\"", VRAMEST_E_PARSE, "invalid UTF-8"},
        {", \"architectures\": [\"Llama\\u0000X\"]", VRAMEST_E_PARSE, "'architectures'"},
        {", \"rope_theta\": Infinity, \"time_step_limit\": [0.0, Infinity], \"x\": NaN", VRAMEST_OK, NULL},
        {", \"hidden_dropout\": NaN", VRAMEST_E_RANGE, "'hidden_dropout'"},
        {", \"num_key_value_heads\": Infinity", VRAMEST_E_TYPE, "'num_key_value_heads'"},
        {", \"max_position_embeddings\": 4096.0", VRAMEST_OK, NULL},
        {", \"max_position_embeddings\": 99999999999999999999", VRAMEST_E_RANGE, "'max_position_embeddings'"},
        {", \"unused\": \"a\\u0000b\"", VRAMEST_OK, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[512], sp[640];
        snprintf(cfg, sizeof cfg, "{" LLAMA "%s}", cases[i].body);
        snprintf(sp, sizeof sp, "{\"model\": {\"hf_config\": %s}}", cfg);
        for (int k = 0; k < 2; k++) {
            int rc = k ? spec(sp) : config(cfg);
            cr_expect_eq(rc, cases[i].rc, "%s: %s -> %d: %s", k ? "spec" : "config.json", cfg, rc,
                         vramest_last_error_message());
            if (cases[i].word && rc)
                cr_expect(strstr(vramest_last_error_message(), cases[i].word), "%s: '%s' lacks '%s'", cfg,
                          vramest_last_error_message(), cases[i].word);
        }
    }
    /* model_type holding a NUL is refused, not read as "llama". */
    cr_expect_eq(config("{\"model_type\": \"llama\\u0000evil\", \"hidden_size\": 8}"), VRAMEST_E_PARSE);
    cr_expect(strstr(vramest_last_error_message(), "'model_type'"), "%s", vramest_last_error_message());
    cr_expect_eq(spec("{\"model\": \"llama-2-7b\\u0000evil\"}"), VRAMEST_E_PARSE);
    cr_expect(strstr(vramest_last_error_message(), "spec.model"), "%s", vramest_last_error_message());
    cr_expect_eq(spec("{\"model\": \"llama-2-7b\", \"workload\": {\"mode\": \"train\", \"mode\": \"load\"}}"),
                 VRAMEST_E_PARSE);
    cr_expect(strstr(vramest_last_error_message(), "duplicate key \"mode\""), "%s", vramest_last_error_message());
}

/* An inline hf_config's messages give the spec's own byte offsets. */
Test(json, inline_config_offsets_are_the_specs)
{
    static const char sp[] = "{\"model\": {\"hf_config\": {\"model_type\": \"llama\", \"a\": 1, \"a\": 2}}}";
    cr_assert_eq(spec(sp), VRAMEST_E_PARSE);
    cr_expect(strstr(vramest_last_error_message(), "at byte 56"), "%s", vramest_last_error_message());
}
