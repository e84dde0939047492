/* What unit/archive and unit/artcmp share: a private scratch directory (removed at the end),
 * archives made there by the real tools through sh, a file's SHA-256, and tar headers made
 * by hand for the crafted cases. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <string.h>

/* A new scratch directory in $TMPDIR; ua_dir_free removes it and what it holds. */
static inline char *ua_dir_new(void)
{
    g_autoptr(GError) e = NULL;
    char *d = g_dir_make_tmp("bt-archive-XXXXXX", &e);
    g_assert_no_error(e);
    return d;
}

static inline void ua_dir_free(char *dir)
{
    const char *argv[] = {"rm", "-rf", "--", dir, NULL};
    g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, NULL, NULL));
    g_free(dir);
}

/* Runs `cmd` with sh -e in dir; fails the test (showing its stderr) when it fails. */
static inline void ua_sh(const char *dir, const char *cmd)
{
    const char *argv[] = {"sh", "-ec", cmd, NULL};
    g_autofree char *err = NULL;
    int status = 0;
    g_autoptr(GError) e = NULL;
    g_assert_true(g_spawn_sync(dir, (char **)argv, NULL, G_SPAWN_SEARCH_PATH |
                               G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &e));
    if (!g_spawn_check_wait_status(status, NULL))
        g_error("`%s` failed: %s", cmd, err);
}

/* FALSE (the test marked skipped) when one of the space-separated programs is missing. */
static inline gboolean ua_have(const char *programs)
{
    g_auto(GStrv) p = g_strsplit(programs, " ", -1);
    for (char **q = p; *q; q++) {
        g_autofree char *found = g_find_program_in_path(*q);
        if (!found) {
            g_autofree char *msg = g_strdup_printf("%s is not installed", *q);
            g_test_skip(msg);
            return FALSE;
        }
    }
    return TRUE;
}

static inline char *ua_path(const char *dir, const char *name)
{
    return g_build_filename(dir, name, NULL);
}

static inline char *ua_sha(const char *dir, const char *name)
{
    g_autofree char *p = ua_path(dir, name);
    g_autofree char *text = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(p, &text, &len, NULL));
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)text, len);
}

/* A tar header (GNU magic) for `name`, type t and the octal size; the checksum set by
 * ua_tar_sum after any crafting. */
static inline void ua_tar_header(uint8_t h[512], const char *name, char t, uint64_t size)
{
    memset(h, 0, 512);
    memcpy(h, name, MIN(strlen(name), 100));
    memcpy(h + 100, "0000644", 7);
    memcpy(h + 108, "0000000", 7);
    memcpy(h + 116, "0000000", 7);
    g_snprintf((char *)h + 124, 12, "%011" G_GINT64_MODIFIER "o", size);
    memcpy(h + 136, "14000000000", 11);
    h[156] = (uint8_t)t;
    memcpy(h + 257, "ustar  ", 8);
    memcpy(h + 265, "root", 4);
    memcpy(h + 297, "root", 4);
}

static inline void ua_tar_sum(uint8_t h[512])
{
    unsigned sum = 0;
    memset(h + 148, ' ', 8);
    for (int i = 0; i < 512; i++)
        sum += h[i];
    g_snprintf((char *)h + 148, 8, "%06o", sum);
}

/* Appends a header (checksummed) and `len` bytes of content, padded. */
static inline void ua_tar_add(GByteArray *b, uint8_t h[512], const void *data, size_t len)
{
    ua_tar_sum(h);
    g_byte_array_append(b, h, 512);
    if (len)
        g_byte_array_append(b, data, (guint)len);
    static const uint8_t zero[512];
    if (len % 512)
        g_byte_array_append(b, zero, (guint)(512 - len % 512));
}

static inline void ua_tar_end(GByteArray *b)
{
    static const uint8_t zero[1024];
    g_byte_array_append(b, zero, sizeof zero);
}
