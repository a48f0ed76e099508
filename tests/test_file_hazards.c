/* Files that are not what a model directory promises (issue #19): a FIFO or
 * a device where a model file is expected, which must be refused at once
 * instead of blocking forever (every test here has a time limit); links
 * out of the model's directory, which must not be followed unless the
 * caller allows it; and messages, which must never show the bytes of a
 * file the caller may not be allowed to read. Black-box: the public API
 * only, on files written to a temporary directory. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modelfiles.h"

TestSuite(hazards, .fini = drop_tmp, .timeout = 20);

static void fifo(const char *name)
{
    cr_assert_eq(mkfifo(tmp_path(name), 0600), 0, "mkfifo %s", tmp_path(name));
}

static void link_to(const char *target, const char *name)
{
    cr_assert_eq(symlink(target, tmp_path(name)), 0, "symlink %s -> %s", tmp_path(name), target);
}

static void mkdir_in(const char *name)
{
    cr_assert_eq(mkdir(tmp_path(name), 0700), 0, "mkdir %s", tmp_path(name));
}

static int parse_path(const char *path, vramest_source kind, int flags)
{
    vramest_model *m = new_model();
    int rc = vramest_model_parse_path(m, kind, path, flags);
    vramest_model_free(m);
    return rc;
}

/* ---- FIFOs and devices: refused at once --------------------------------------- */

Test(hazards, fifo_model_gguf_in_a_directory)
{
    make_tmp();
    fifo("model.gguf");
    cr_assert_eq(parse_path(tmpdir, VRAMEST_SRC_AUTO, 0), VRAMEST_E_IO);
    assert_msg("FIFO");
    assert_msg("model.gguf");
}

Test(hazards, fifo_shard_named_by_an_index)
{
    make_tmp();
    write_tiny(NULL, "config.json");
    write_index("model-00001-of-00001.safetensors", tiny_bytes(TL));
    fifo("model-00001-of-00001.safetensors");
    cr_assert_eq(parse_path(tmpdir, VRAMEST_SRC_AUTO, 0), VRAMEST_E_IO);
    assert_msg("FIFO");
    /* the index named directly reads the same shard */
    cr_assert_eq(parse_path(tmp_path("model.safetensors.index.json"), VRAMEST_SRC_AUTO, 0), VRAMEST_E_IO);
    assert_msg("FIFO");
}

Test(hazards, fifo_hf_config_file)
{
    make_tmp();
    fifo("config.json");
    for (int kind = VRAMEST_SRC_AUTO; kind <= VRAMEST_SRC_GGUF_HEADER; kind++) {
        cr_assert_eq(parse_path(tmp_path("config.json"), (vramest_source)kind, 0), VRAMEST_E_IO, "kind %d", kind);
        assert_msg("FIFO");
    }
    char spec[600];
    snprintf(spec, sizeof spec, "{\"model\": {\"hf_config_file\": \"%s\"}}", tmp_path("config.json"));
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &c), VRAMEST_E_IO);
    assert_msg("FIFO");
    cr_assert_null(m);
}

Test(hazards, fifo_config_json_is_an_error_not_skipped)
{
    make_tmp();
    write_tiny("model.safetensors", NULL);
    fifo("config.json");
    cr_assert_eq(parse_path(tmpdir, VRAMEST_SRC_AUTO, 0), VRAMEST_E_IO);
    assert_msg("config.json");
}

Test(hazards, devices_and_directories_are_not_model_files)
{
    cr_assert_eq(parse_path("/dev/null", VRAMEST_SRC_GGUF_HEADER, 0), VRAMEST_E_IO);
    assert_msg("character device");
    cr_assert_eq(parse_path("/dev/zero", VRAMEST_SRC_AUTO, 0), VRAMEST_E_IO);
    make_tmp();
    write_tiny(NULL, "config.json");
    mkdir_in("model.safetensors");
    cr_assert_eq(parse_path(tmpdir, VRAMEST_SRC_AUTO, 0), VRAMEST_E_IO);
    assert_msg("directory");
}

/* ---- links -------------------------------------------------------------------- */

static char outside[256];

/* A file outside the model directory, its first bytes a would-be secret. */
static const char secret[] = "SECRET-TOKEN=hunter2-a1b2c3d4e5f6\nroot:x:0:0:root:/root:/bin/bash\n";

static void write_outside(void)
{
    snprintf(outside, sizeof outside, "/tmp/vt_outside_XXXXXX");
    int fd = mkstemp(outside);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, secret, sizeof secret - 1), (ssize_t)(sizeof secret - 1));
    close(fd);
}

static void drop_outside(void)
{
    if (outside[0]) unlink(outside);
    outside[0] = '\0';
}

/* No message shows the file's bytes: no 4-byte run of them, not the first
 * 8 as a little-endian number, not the first 4 in hex. */
static void assert_no_echo(const uint8_t *d, size_t n)
{
    const char *m = msg();
    for (size_t i = 0; i + 4 <= n; i++) {
        char run[5];
        memcpy(run, d + i, 4);
        run[4] = '\0';
        /* "GGUF" is the magic, a word of the messages themselves. */
        if (strlen(run) == 4 && strcmp(run, "GGUF") != 0)
            cr_assert_null(strstr(m, run), "message '%s' shows bytes %zu.. of the file", m, i);
    }
    if (n >= 8) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--) v = (v << 8) | d[k];
        char num[32];
        snprintf(num, sizeof num, "%" PRIu64, v);
        cr_assert_null(strstr(m, num), "message '%s' shows bytes 0-7 as a number", m);
    }
    char hex[16];
    snprintf(hex, sizeof hex, "%02x", d[0]);
    snprintf(hex + 2, sizeof hex - 2, "%s%02x", strstr(m, "\\x") ? "\\x" : " ", d[1]);
    cr_assert_null(strstr(m, hex), "message '%s' shows the first bytes in hex", m);
}

Test(hazards, shard_linked_out_of_the_directory_is_refused, .fini = drop_outside)
{
    write_outside();
    make_tmp();
    write_tiny(NULL, "config.json");
    write_index("model-00001-of-00001.safetensors", tiny_bytes(TL));
    link_to(outside, "model-00001-of-00001.safetensors");
    cr_assert_eq(parse_path(tmpdir, VRAMEST_SRC_AUTO, 0), VRAMEST_E_IO);
    assert_msg("outside the model directory");
    assert_msg("VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS");
    assert_no_echo((const uint8_t *)secret, sizeof secret - 1);
    cr_assert_eq(parse_path(tmp_path("model.safetensors.index.json"), VRAMEST_SRC_AUTO, 0), VRAMEST_E_IO);
    assert_msg("outside the model directory");
    /* Allowed, the link is followed; the file is no safetensors, and the
     * message still shows none of its bytes. */
    cr_assert_neq(parse_path(tmpdir, VRAMEST_SRC_AUTO, VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS), VRAMEST_OK);
    assert_no_echo((const uint8_t *)secret, sizeof secret - 1);
}

Test(hazards, config_and_weights_linked_out_are_refused_unless_allowed)
{
    make_tmp();
    write_tiny("real.safetensors", "real-config.json");
    /* A second directory whose files link into the first. */
    char first[256];
    snprintf(first, sizeof first, "%s", tmpdir);
    char model[300];
    snprintf(model, sizeof model, "%s/model", first);
    cr_assert_eq(mkdir(model, 0700), 0);
    char target[300], name[400];
    snprintf(target, sizeof target, "%s/real-config.json", first);
    snprintf(name, sizeof name, "%s/config.json", model);
    cr_assert_eq(symlink(target, name), 0);
    cr_assert_eq(parse_path(model, VRAMEST_SRC_AUTO, 0), VRAMEST_E_IO);
    assert_msg("config.json");
    assert_msg("outside the model directory");
    snprintf(target, sizeof target, "../real.safetensors");
    snprintf(name, sizeof name, "%s/model.safetensors", model);
    cr_assert_eq(symlink(target, name), 0);
    cr_assert_eq(parse_path(model, VRAMEST_SRC_AUTO, VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS), VRAMEST_OK, "%s", msg());
    /* A file the caller names itself may be a link to anywhere. */
    snprintf(name, sizeof name, "%s/config.json", model);
    cr_assert_eq(parse_path(name, VRAMEST_SRC_AUTO, 0), VRAMEST_OK, "%s", msg());
    cr_assert_eq(unlink(name), 0);
    snprintf(name, sizeof name, "%s/model.safetensors", model);
    cr_assert_eq(unlink(name), 0);
    cr_assert_eq(rmdir(model), 0);
}

Test(hazards, links_inside_the_directory_are_followed)
{
    make_tmp();
    mkdir_in("store");
    write_tiny("store/weights.safetensors", "store/config.json");
    link_to("store/weights.safetensors", "model.safetensors");
    link_to("store/config.json", "config.json");
    vramest_model *m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_OK, "%s", msg());
    int64_t layers = 0;
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &layers), VRAMEST_OK);
    cr_assert_eq(layers, TL);
    vramest_model_free(m);
    unlink(tmp_path("model.safetensors"));
    unlink(tmp_path("config.json"));
    unlink(tmp_path("store/weights.safetensors"));
    unlink(tmp_path("store/config.json"));
    rmdir(tmp_path("store"));
}

/* huggingface_hub's cache: snapshots/REV/FILE -> ../../blobs/SHA. */
Test(hazards, hugging_face_hub_cache_snapshot_needs_no_flag)
{
    make_tmp();
    mkdir_in("models--org--tiny");
    mkdir_in("models--org--tiny/blobs");
    mkdir_in("models--org--tiny/snapshots");
    mkdir_in("models--org--tiny/snapshots/0123abc");
    write_tiny("models--org--tiny/blobs/aaaa", "models--org--tiny/blobs/bbbb");
    link_to("../../blobs/aaaa", "models--org--tiny/snapshots/0123abc/model.safetensors");
    link_to("../../blobs/bbbb", "models--org--tiny/snapshots/0123abc/config.json");
    cr_assert_eq(parse_path(tmp_path("models--org--tiny/snapshots/0123abc"), VRAMEST_SRC_AUTO, 0), VRAMEST_OK, "%s",
                 msg());
    static const char *const rm[] = {"models--org--tiny/snapshots/0123abc/model.safetensors",
                                      "models--org--tiny/snapshots/0123abc/config.json", "models--org--tiny/blobs/aaaa",
                                      "models--org--tiny/blobs/bbbb"};
    for (size_t i = 0; i < sizeof rm / sizeof rm[0]; i++) unlink(tmp_path(rm[i]));
    static const char *const dirs[] = {"models--org--tiny/snapshots/0123abc", "models--org--tiny/snapshots",
                                       "models--org--tiny/blobs", "models--org--tiny"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) rmdir(tmp_path(dirs[i]));
}

Test(hazards, unknown_flags_are_refused)
{
    make_tmp();
    write_tiny("model.safetensors", "config.json");
    cr_assert_eq(parse_path(tmpdir, VRAMEST_SRC_AUTO, 2), VRAMEST_E_INVALID_ARG);
    assert_msg("flags");
    cr_assert_eq(parse_path(tmpdir, VRAMEST_SRC_AUTO, -1), VRAMEST_E_INVALID_ARG);
}

/* ---- messages show no bytes of a file that is not what it claims -------------- */

Test(hazards, messages_show_no_file_bytes)
{
    static const char *const names[] = {"x.safetensors", "x.gguf", "x.index.json", "x.json", "x"};
#define BYTES(lit) {lit, sizeof lit - 1}
    static const struct {
        const char *d;
        size_t n;
    } contents[] = {
        BYTES("SECRET-TOKEN=hunter2-a1b2c3d4e5f6\nroot:x:0:0:root:/root:/bin/bash\n"),
        BYTES("GGUF\x07\x00\x00\x00SECRETSECRETSECRETSECRET"),       /* a version no reader knows */
        BYTES("GGUF\x03\x00\x00\x00" "AAAAAAAABBBBBBBBCCCCCCCC"),   /* counts beyond the limits */
        BYTES("\x10\x00\x00\x00\x00\x00\x00\x00{\"SECRET\": 1}"), /* a length past the end */
        BYTES("\x0e\x00\x00\x00\x00\x00\x00\x00[\"SECRET\",  1]"), /* no '{' after the length */
        BYTES("{\"SECRET\x01TOKEN\": 1}"),                          /* a control byte in a key */
        BYTES("{\"a\": \"\\udead-SECRET\"}"),                      /* an unpaired surrogate */
        BYTES("{\"SECRET\" 1}"),                                    /* a missing colon */
    };
#undef BYTES
    make_tmp();
    for (size_t c = 0; c < sizeof contents / sizeof contents[0]; c++)
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            write_file(names[i], contents[c].d, contents[c].n);
            for (int kind = VRAMEST_SRC_AUTO; kind <= VRAMEST_SRC_GGUF_HEADER; kind++) {
                int rc = parse_path(tmp_path(names[i]), (vramest_source)kind, 0);
                if (rc == VRAMEST_OK) continue;
                cr_log_info("content %zu as %s, kind %d: %s", c, names[i], kind, msg());
                assert_no_echo((const uint8_t *)contents[c].d, contents[c].n);
            }
            unlink(tmp_path(names[i]));
        }
}
