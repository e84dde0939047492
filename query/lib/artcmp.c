/* artcmp — two artifacts compared member by member (artcmp.h): each read once, as a stream,
 * into a tree of member summaries (metadata, SHA-256, the members of a member that is an
 * archive), then the two trees compared. */
#include "artcmp.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#define ORDER_SHOWN 8

/* One member's summary (or the file's: the root). */
struct node {
    char *name;
    unsigned occ;              /* among members of this name before it */
    struct archive_member m;   /* its strings are the node's own copies */
    char sha[65];
    char inner[65];            /* a compressed non-archive: its uncompressed bytes' SHA-256 */
    enum archive_kind kind;
    enum archive_codec codec;
    GPtrArray *children;       /* struct node *, when kind != ARCHIVE_NONE */
    char *unread;              /* why it could not be read as the archive it looks like */
};

static void node_free(gpointer p)
{
    struct node *n = p;
    if (!n)
        return;
    g_free(n->name);
    g_free(n->unread);
    g_free((char *)n->m.link);
    g_free((char *)n->m.uname);
    g_free((char *)n->m.gname);
    if (n->children)
        g_ptr_array_unref(n->children);
    g_free(n);
}

static int summarize(struct archive_reader *r, struct node *into, char **why);

/* The uncompressed bytes' SHA-256 of a compressed member that is no archive. */
static int hash_inner(struct archive_reader *c, char out[65], char **why)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    uint8_t buf[16384];
    gssize n;
    while ((n = archive_read_raw(c, buf, sizeof buf, why)) > 0)
        g_checksum_update(sum, buf, n);
    if (n < 0)
        return (int)n;
    g_strlcpy(out, g_checksum_get_string(sum), 65);
    return 0;
}

/* The members of what r reads, or its uncompressed bytes' SHA-256; frees r. */
static int read_inside(struct archive_reader *r, struct node *n, char **why)
{
    n->kind = archive_kind(r);
    n->codec = archive_codec(r);
    int rc = 0;
    if (n->kind != ARCHIVE_NONE)
        rc = summarize(r, n, why);
    else if (n->codec != ARCHIVE_RAW)
        rc = hash_inner(r, n->inner, why);
    archive_free(r);
    return rc;
}

/* What a member holds: its own members when it is an archive.  A member that cannot be read
 * as one (damaged, nested too deep: a test suite's corrupt .gz) is compared by its bytes
 * alone, the reason kept for the note; the decompression limit, once reached, ends it all. */
static int look_inside(struct archive_reader *r, struct node *n, char **why)
{
    struct archive_reader *c = NULL;
    g_autofree char *w = NULL;
    int rc = archive_open_member(r, &c, &w);
    if (rc == 0)
        rc = read_inside(c, n, &w);
    if (rc == -EFBIG) {
        *why = g_steal_pointer(&w);
        return rc;
    }
    if (rc < 0) {
        /* (an error of r itself shows again in its archive_member_sha256) */
        n->kind = ARCHIVE_NONE;
        n->inner[0] = 0;
        g_clear_pointer(&n->children, g_ptr_array_unref);
        n->unread = g_steal_pointer(&w);
    }
    return 0;
}

static int summarize(struct archive_reader *r, struct node *into, char **why)
{
    into->children = g_ptr_array_new_with_free_func(node_free);
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    const struct archive_member *m;
    int rc;
    while ((rc = archive_next(r, &m, why)) > 0) {
        struct node *n = g_new0(struct node, 1);
        g_ptr_array_add(into->children, n);
        n->name = g_strdup(m->name);
        n->m = *m;
        n->m.name = n->name;
        n->m.link = g_strdup(m->link);
        n->m.uname = g_strdup(m->uname);
        n->m.gname = g_strdup(m->gname);
        n->occ = GPOINTER_TO_UINT(g_hash_table_lookup(seen, m->name));
        g_hash_table_insert(seen, g_strdup(m->name), GUINT_TO_POINTER(n->occ + 1));
        if (m->type == ARCHIVE_FILE && m->size > 0 && (rc = look_inside(r, n, why)) < 0)
            return rc;
        if ((rc = archive_member_sha256(r, n->sha, why)) < 0)
            return rc;
    }
    return rc;
}

static int hash_file(const char *path, char out[65], char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        *why = g_strdup_printf("%s: cannot open: %s", path, g_strerror(e));
        return -e;
    }
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    uint8_t buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            *why = g_strdup_printf("%s: cannot read: %s", path, g_strerror(e));
            return -e;
        }
        if (n == 0)
            break;
        g_checksum_update(sum, buf, n);
    }
    close(fd);
    g_strlcpy(out, g_checksum_get_string(sum), 65);
    return 0;
}

/* The file's (or the bytes') tree: the root is the whole, its SHA-256 set by the caller. */
static int summarize_root(const char *path, const void *data, size_t len,
                          const struct archive_limits *lim, struct node *root, char **why)
{
    struct archive_reader *r = NULL;
    g_autofree char *w = NULL;
    int rc = path ? archive_open_file(path, lim, &r, &w) : archive_open_memory(data, len, lim, &r, &w);
    if (rc == 0)
        rc = read_inside(r, root, &w);
    if (rc < 0)
        *why = g_strdup_printf("%s: %s", path ? path : "the bytes",
                               w ? w : g_strerror(-rc));
    return rc < 0 ? rc : 0;
}

/* The comparison's state: where in the trees, and the differences found. */
struct cmp {
    GPtrArray *diffs;
    GPtrArray *parts; /* of char *: the path to the archive being compared */
};

static char *part_of(const struct node *n)
{
    return n->occ ? g_strdup_printf("%s [%u]", n->name, n->occ + 1) : g_strdup(n->name);
}

static void add(struct cmp *c, enum artcmp_kind kind, const struct node *member, char *a, char *b,
                const char *note)
{
    struct artcmp_diff *d = g_new0(struct artcmp_diff, 1);
    d->kind = kind;
    d->parts = g_new0(char *, c->parts->len + 2);
    for (guint i = 0; i < c->parts->len; i++)
        d->parts[i] = g_strdup(c->parts->pdata[i]);
    if (member)
        d->parts[c->parts->len] = part_of(member);
    d->member = g_strjoinv(" ", d->parts);
    d->a = a;
    d->b = b;
    d->note = g_strdup(note);
    g_ptr_array_add(c->diffs, d);
}

static char *owner(const struct archive_member *m)
{
    if (m->uname && (*m->uname || *m->gname)) /* (a tar's empty name: the id had none) */
        return g_strdup_printf("%" PRId64 "/%" PRId64 " %s/%s", m->uid, m->gid,
                               *m->uname ? m->uname : "-", *m->gname ? m->gname : "-");
    return g_strdup_printf("%" PRId64 "/%" PRId64, m->uid, m->gid);
}

static char *mtime(const struct archive_member *m, gboolean frac)
{
    if (frac)
        return g_strdup_printf("%" PRId64 ".%09" PRIu32, m->mtime, m->mtime_nsec);
    return g_strdup_printf("%" PRId64, m->mtime);
}

static guint compare_members(struct cmp *c, const struct node *a, const struct node *b);

/* Content, for two files (or the two roots when member is NULL). */
static void compare_content(struct cmp *c, const struct node *a, const struct node *b,
                            const struct node *member)
{
    if (strcmp(a->sha, b->sha) == 0)
        return;
    g_autofree char *note = NULL;
    if (a->kind != ARCHIVE_NONE && a->kind == b->kind) {
        if (member)
            g_ptr_array_add(c->parts, part_of(member));
        guint found = compare_members(c, a, b);
        if (member)
            g_ptr_array_remove_index(c->parts, c->parts->len - 1);
        if (found)
            return;
        note = g_strdup_printf("the members are identical; the archive's bytes differ (%s%s%s)",
                               archive_kind_name(a->kind), a->codec ? ", " : "",
                               a->codec ? archive_codec_name(a->codec) : "");
    } else if (a->inner[0] && a->codec == b->codec && strcmp(a->inner, b->inner) == 0) {
        note = g_strdup_printf("the uncompressed contents are identical (%s)",
                               archive_codec_name(a->codec));
    } else if (a->unread || b->unread) {
        note = g_strdup_printf("compared as bytes: %s%s unreadable (%s)",
                               a->unread ? "A's" : "B's", a->unread && b->unread ? " and B's" : "",
                               a->unread ? a->unread : b->unread);
    }
    add(c, ARTCMP_CONTENT, member, g_strdup(a->sha), g_strdup(b->sha), note);
}

/* The metadata of two members of one name, then their content. */
static void compare_pair(struct cmp *c, const struct node *a, const struct node *b)
{
    const struct archive_member *x = &a->m, *y = &b->m;
    if (x->type != y->type) {
        add(c, ARTCMP_TYPE, a, g_strdup(archive_type_name(x->type)),
            g_strdup(archive_type_name(y->type)), NULL);
        return;
    }
    if (g_strcmp0(x->link, y->link) != 0)
        add(c, ARTCMP_LINK, a, g_strdup(x->link), g_strdup(y->link), NULL);
    if (x->mode != y->mode)
        add(c, ARTCMP_MODE, a, g_strdup_printf("%04o", x->mode), g_strdup_printf("%04o", y->mode),
            NULL);
    if (x->uid != y->uid || x->gid != y->gid || g_strcmp0(x->uname, y->uname) != 0 ||
        g_strcmp0(x->gname, y->gname) != 0)
        add(c, ARTCMP_OWNER, a, owner(x), owner(y), NULL);
    if (x->mtime != y->mtime || x->mtime_nsec != y->mtime_nsec) {
        gboolean frac = x->mtime_nsec || y->mtime_nsec;
        add(c, ARTCMP_MTIME, a, mtime(x, frac), mtime(y, frac), NULL);
    }
    if (x->devmajor != y->devmajor || x->devminor != y->devminor)
        add(c, ARTCMP_DEVICE, a, g_strdup_printf("%" PRIu32 ",%" PRIu32, x->devmajor, x->devminor),
            g_strdup_printf("%" PRIu32 ",%" PRIu32, y->devmajor, y->devminor), NULL);
    compare_content(c, a, b, a);
}

static char *key_of(const struct node *n)
{
    return g_strdup_printf("%u/%s", n->occ, n->name);
}

/* The names of `order` from `from` on, one per line, "..." after ORDER_SHOWN. */
static char *order_text(GPtrArray *order, guint from)
{
    GString *s = g_string_new(NULL);
    for (guint i = from; i < order->len && i < from + ORDER_SHOWN; i++) {
        g_autofree char *p = part_of(order->pdata[i]);
        g_string_append_printf(s, "%s%s", i > from ? "\n" : "", p);
    }
    if (order->len > from + ORDER_SHOWN)
        g_string_append(s, "\n...");
    return g_string_free(s, FALSE);
}

/* The common members in each order (oa[i] and ob[i] both exist): one ARTCMP_ORDER for the
 * archive when they differ. */
static void compare_order(struct cmp *c, GPtrArray *oa, GPtrArray *ob)
{
    guint i = 0;
    for (; i < oa->len; i++) {
        const struct node *x = oa->pdata[i], *y = ob->pdata[i];
        if (x->occ != y->occ || strcmp(x->name, y->name) != 0)
            break;
    }
    if (i < oa->len)
        add(c, ARTCMP_ORDER, NULL, order_text(oa, i), order_text(ob, i), NULL);
}

/* The members of two archives: paired by name and occurrence.  Returns the differences added. */
static guint compare_members(struct cmp *c, const struct node *a, const struct node *b)
{
    guint before = c->diffs->len;
    g_autoptr(GHashTable) in_b = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) paired = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < b->children->len; i++) {
        struct node *n = b->children->pdata[i];
        g_hash_table_insert(in_b, key_of(n), n);
    }
    g_autoptr(GPtrArray) oa = g_ptr_array_new(), ob = g_ptr_array_new();
    for (guint i = 0; i < a->children->len; i++) {
        struct node *x = a->children->pdata[i];
        g_autofree char *k = key_of(x);
        struct node *y = g_hash_table_lookup(in_b, k);
        if (!y) {
            add(c, ARTCMP_ONLY_A, x, g_strdup(archive_type_name(x->m.type)), NULL, NULL);
            continue;
        }
        g_hash_table_add(paired, y);
        g_ptr_array_add(oa, x);
        compare_pair(c, x, y);
    }
    for (guint i = 0; i < b->children->len; i++) {
        struct node *y = b->children->pdata[i];
        if (g_hash_table_contains(paired, y))
            g_ptr_array_add(ob, y);
        else
            add(c, ARTCMP_ONLY_B, y, NULL, g_strdup(archive_type_name(y->m.type)), NULL);
    }
    compare_order(c, oa, ob);
    return c->diffs->len - before;
}

static int diff_cmp(gconstpointer pa, gconstpointer pb)
{
    const struct artcmp_diff *a = *(struct artcmp_diff *const *)pa;
    const struct artcmp_diff *b = *(struct artcmp_diff *const *)pb;
    for (guint i = 0;; i++) {
        if (!a->parts[i] || !b->parts[i]) {
            if (a->parts[i] || b->parts[i])
                return a->parts[i] ? 1 : -1;
            break;
        }
        int r = strcmp(a->parts[i], b->parts[i]);
        if (r)
            return r;
    }
    return (int)a->kind - (int)b->kind;
}

/* Both trees compared into a new sorted list. */
static GPtrArray *compare_roots(const struct node *a, const struct node *b)
{
    struct cmp c = {g_ptr_array_new_with_free_func((GDestroyNotify)artcmp_diff_free),
                    g_ptr_array_new_with_free_func(g_free)};
    compare_content(&c, a, b, NULL);
    g_ptr_array_unref(c.parts);
    g_ptr_array_sort(c.diffs, diff_cmp);
    return c.diffs;
}

/* One artifact: a file (path) or bytes. */
struct side {
    const char *path;
    const void *data;
    size_t len;
};

static int hash_side(const struct side *s, char out[65], char **why)
{
    if (s->path)
        return hash_file(s->path, out, why);
    g_autofree char *h = g_compute_checksum_for_data(G_CHECKSUM_SHA256, s->data, s->len);
    g_strlcpy(out, h, 65);
    return 0;
}

static int compare_sides(const struct side *sa, const struct side *sb,
                         const struct artcmp_opts *opts, GPtrArray **diffs, char **why)
{
    g_autofree char *w = NULL;
    struct node *a = g_new0(struct node, 1), *b = g_new0(struct node, 1);
    const struct archive_limits *lim = opts ? &opts->limits : NULL;
    int rc = hash_side(sa, a->sha, &w);
    if (rc == 0)
        rc = hash_side(sb, b->sha, &w);
    if (rc == 0 && strcmp(a->sha, b->sha) != 0) {
        rc = summarize_root(sa->path, sa->data, sa->len, lim, a, &w);
        if (rc == 0)
            rc = summarize_root(sb->path, sb->data, sb->len, lim, b, &w);
    }
    if (rc == 0) {
        *diffs = compare_roots(a, b);
    } else if (why) {
        g_free(*why);
        *why = g_steal_pointer(&w);
    }
    node_free(a);
    node_free(b);
    return rc;
}

int artcmp_compare(const char *path_a, const char *path_b, const struct artcmp_opts *opts,
                   GPtrArray **diffs, char **why)
{
    struct side a = {.path = path_a}, b = {.path = path_b};
    return compare_sides(&a, &b, opts, diffs, why);
}

int artcmp_compare_memory(const void *data_a, size_t len_a, const void *data_b, size_t len_b,
                          const struct artcmp_opts *opts, GPtrArray **diffs, char **why)
{
    struct side a = {NULL, data_a ? data_a : "", len_a}, b = {NULL, data_b ? data_b : "", len_b};
    return compare_sides(&a, &b, opts, diffs, why);
}

const char *artcmp_kind_name(enum artcmp_kind k)
{
    static const char *const names[] = {"only in A", "only in B", "type", "content",
                                        "link target", "mode", "owner", "mtime", "device",
                                        "order"};
    return (unsigned)k < G_N_ELEMENTS(names) ? names[k] : "?";
}

void artcmp_diff_free(struct artcmp_diff *d)
{
    if (!d)
        return;
    g_free(d->member);
    g_strfreev(d->parts);
    g_free(d->a);
    g_free(d->b);
    g_free(d->note);
    g_free(d);
}
