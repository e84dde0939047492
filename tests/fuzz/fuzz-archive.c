/* libFuzzer target: archive reads any bytes as an archive (every member, nested ones opened
 * and read through) within small limits, and artcmp compares the two halves of the input
 * (split at the first "\n--\n", or in the middle).  Every error has a message; every member
 * has a name and a mode within 07777; a comparison gives sorted, well-formed differences. */
#include "archive.h"
#include "artcmp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct archive_limits limits = {.max_total = 8 << 20, .max_depth = 6,
                                             .max_members = 4096, .max_name = 65536};

static int walk(struct archive_reader *r, char **why)
{
    const struct archive_member *m;
    int rc;
    while ((rc = archive_next(r, &m, why)) > 0) {
        if (!m->name || !*m->name || m->mode > 07777 || (m->link == NULL) !=
            (m->type != ARCHIVE_SYMLINK && m->type != ARCHIVE_HARDLINK))
            abort();
        struct archive_reader *c = NULL;
        if (m->type == ARCHIVE_FILE && (rc = archive_open_member(r, &c, why)) < 0)
            return rc;
        if (c) {
            uint8_t buf[4096];
            gssize n = 0;
            if (archive_kind(c) != ARCHIVE_NONE)
                rc = walk(c, why);
            else
                while ((n = archive_read_raw(c, buf, sizeof buf, why)) > 0)
                    ;
            archive_free(c);
            if (rc < 0 || n < 0)
                return rc < 0 ? rc : (int)n;
        }
        char hex[65];
        if ((rc = archive_member_sha256(r, hex, why)) < 0)
            return rc;
        if (strlen(hex) != 64)
            abort();
    }
    return rc;
}

static void check_diffs(GPtrArray *d)
{
    for (guint i = 0; i < d->len; i++) {
        const struct artcmp_diff *x = d->pdata[i];
        g_autofree char *joined = g_strjoinv(" ", x->parts);
        if (strcmp(joined, x->member) != 0 || x->kind > ARTCMP_ORDER)
            abort();
        if (x->kind == ARTCMP_CONTENT && (!x->a || !x->b || strlen(x->a) != 64))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct archive_reader *r = NULL;
    char *why = NULL;
    int rc = archive_open_memory(data, size, &limits, &r, &why);
    if (rc == 0) {
        rc = walk(r, &why);
        archive_free(r);
    }
    if ((rc < 0) != (why != NULL) || rc > 0)
        abort();
    g_free(why);
    why = NULL;

    const uint8_t *sep = memmem(data, size, "\n--\n", 4);
    size_t la = sep ? (size_t)(sep - data) : size / 2;
    size_t skip = sep ? 4 : 0;
    GPtrArray *d = NULL;
    struct artcmp_opts o = {.limits = limits};
    rc = artcmp_compare_memory(data, la, data + la + skip, size - la - skip, &o, &d, &why);
    if (rc == 0) {
        if (!d || why)
            abort();
        check_diffs(d);
        g_ptr_array_unref(d);
    } else if (!why || d) {
        abort();
    }
    g_free(why);
    return 0;
}
