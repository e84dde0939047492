/* diffeng-layout — see diffeng-layout.h. */
#include "diffeng-internal.h"
#include "progkind.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool dl_layout_prefix(const char *a, const char *b, char **pa, char **pb)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (lb > 1 && b[lb - 1] == '/')
        lb--;
    if (la == lb && !strncmp(a, b, la))
        return false;
    size_t ka = la, kb = lb; /* a[0..ka) and b[0..kb): the parts that differ */
    for (;;) {
        const char *sa = g_strrstr_len(a, (gssize)ka, "/"), *sb = g_strrstr_len(b, (gssize)kb, "/");
        if (!sa || !sb || sa == a || sb == b)
            break;
        size_t ca = ka - (size_t)(sa - a), cb = kb - (size_t)(sb - b); /* "/name" */
        if (ca != cb || strncmp(sa, sb, ca))
            break;
        ka = (size_t)(sa - a), kb = (size_t)(sb - b);
    }
    if (!ka || !kb || !memchr(a + 1, '/', ka - 1) || !memchr(b + 1, '/', kb - 1)) {
        if (ka == la && kb == lb)
            return false;
        ka = la, kb = lb; /* (the layout is too wide to map: the directories alone) */
        if (!memchr(a + 1, '/', ka - 1) || !memchr(b + 1, '/', kb - 1))
            return false;
    }
    *pa = g_strndup(a, ka);
    *pb = g_strndup(b, kb);
    return true;
}

char *dl_products_dir(struct prov *p, const char *root)
{
    size_t lr = strlen(root);
    GPtrArray *all = prov_products(p);
    char *common = NULL;
    for (guint i = 0; i < all->len; i++) {
        const char *path = ((const struct prov_version *)all->pdata[i])->path;
        if (lr <= 1 || strncmp(path, root, lr) || path[lr] != '/')
            continue;
        if (!common) {
            common = g_path_get_dirname(path);
            continue;
        }
        size_t l = strlen(common);
        while (l > lr && (strncmp(path, common, l) || path[l] != '/')) {
            while (l > lr && common[l - 1] != '/')
                l--;
            l = l > lr ? l - 1 : lr;
        }
        common[l] = '\0';
    }
    g_ptr_array_free(all, TRUE);
    return common;
}

/* The content of the regular file at `path` if it is version v (its SHA-256), else NULL. */
static GBytes *content_of(const struct prov_version *v)
{
    enum { MAX = 64 << 20 };
    if (!v->sha256[0] || v->size > MAX)
        return NULL;
    int fd = open(v->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    GByteArray *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= MAX &&
        (v->size < 0 || st.st_size == v->size)) {
        buf = g_byte_array_sized_new((guint)st.st_size);
        guint8 chunk[65536];
        for (;;) {
            ssize_t n = read(fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0 || buf->len + (size_t)n > MAX) {
                if (n != 0)
                    g_clear_pointer(&buf, g_byte_array_unref);
                break;
            }
            g_byte_array_append(buf, chunk, (guint)n);
        }
    }
    close(fd);
    if (!buf)
        return NULL;
    g_autofree char *sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, buf->data, buf->len);
    if (strcmp(sum, v->sha256)) {
        g_byte_array_unref(buf);
        return NULL;
    }
    return g_byte_array_free_to_bytes(buf);
}

bool dl_only_build_path(const struct prov_version *va, const struct prov_version *vb,
                        const char *old, const char *new)
{
    g_autoptr(GBytes) a = content_of(va);
    g_autoptr(GBytes) b = a ? content_of(vb) : NULL;
    if (!b)
        return false;
    gsize la = 0, lb = 0, lo = strlen(old), ln = strlen(new);
    const char *pa = g_bytes_get_data(a, &la), *pb = g_bytes_get_data(b, &lb);
    GString *m = g_string_sized_new(la);
    bool found = false;
    for (gsize at = 0; at < la;) {
        const char *hit = lo ? memmem(pa + at, la - at, old, lo) : NULL;
        if (!hit) {
            g_string_append_len(m, pa + at, (gssize)(la - at));
            break;
        }
        found = true;
        g_string_append_len(m, pa + at, hit - (pa + at));
        g_string_append_len(m, new, (gssize)ln);
        at = (gsize)(hit - pa) + lo;
    }
    bool same = found && m->len == lb && !memcmp(m->str, pb, lb);
    g_string_free(m, TRUE);
    return same;
}

/* The build's layout: where the two builds' directories part, so their siblings (the
 * packages dpkg-buildpackage leaves in `..`) map too; when both ran in one directory, where
 * their products lie (the same tree built in src/up and src/up2 from src/). */
void de_map_layout(struct diffeng *d)
{
    char *pa = NULL, *pb = NULL;
    if (strcmp(d->s[0].root, d->s[1].root)) {
        if (!dl_layout_prefix(d->s[0].root, d->s[1].root, &pa, &pb))
            pa = g_strdup(d->s[0].root), pb = g_strdup(d->s[1].root);
    } else {
        g_autofree char *da = dl_products_dir(d->s[0].p, d->s[0].root);
        g_autofree char *db = dl_products_dir(d->s[1].p, d->s[1].root);
        if (!da || !db || !dl_layout_prefix(da, db, &pa, &pb))
            return;
    }
    diffeng_add_map(d, pa, pb);
    d->layout[0] = pa, d->layout[1] = pb;
}

bool diffeng_is_artifact(struct diffeng *d, const char *product)
{
    const char *root = d->s[1].root;
    size_t l = strlen(root);
    if (l <= 1 || de_is_system_path(product))
        return false;
    if (strncmp(product, root, l) || product[l] != '/') {
        if (d->layout[1])
            return g_str_has_prefix(product, d->layout[1]) &&
                   product[strlen(d->layout[1])] == '/';
        /* two builds at one path (repro without build_path): what lies beside the build
         * directory, in its parent (dpkg-buildpackage's packages in `..`) */
        const char *slash = strrchr(root, '/');
        size_t pl = (size_t)(slash - root);
        return pl > 0 && !strncmp(product, root, pl) && product[pl] == '/' &&
               !strchr(product + pl + 1, '/');
    }
    const char *rel = product + l + 1;
    if (!g_str_has_prefix(rel, "debian/") || rel[7] == '.')
        return false;
    return strchr(rel + 7, '/') != NULL; /* debian/PKG/..., not debian/FILE */
}

/* model.artifacts, and how many of each cause's products are artifacts. */
void de_find_artifacts(struct diffeng *d)
{
    GPtrArray *lists[] = {d->m.identical, d->m.differ, d->m.only_a, d->m.only_b};
    for (size_t i = 0; i < G_N_ELEMENTS(lists); i++)
        for (guint k = 0; k < lists[i]->len; k++)
            if (diffeng_is_artifact(d, lists[i]->pdata[k]))
                g_ptr_array_add(d->m.artifacts, g_strdup(lists[i]->pdata[k]));
    g_ptr_array_sort(d->m.artifacts, de_by_str);
    for (guint i = 0; i < d->causes->len; i++) {
        struct cause *c = d->causes->pdata[i];
        for (guint k = 0; k < c->pub.products->len; k++)
            c->pub.artifacts += diffeng_is_artifact(d, c->pub.products->pdata[k]);
    }
}

/* The build path's cause says the two paths and how many processes embedded them. */
void de_name_build_path(struct diffeng *d)
{
    for (guint i = 0; i < d->causes->len; i++) {
        struct cause *c = d->causes->pdata[i];
        if (c->pub.kind != DIFFENG_BUILD_PATH)
            continue;
        guint n = g_hash_table_size(d->embedders);
        g_free(c->detail);
        c->detail = g_strdup_printf("%s \u2192 %s, embedded by %u step%s", d->layout[0],
                                    d->layout[1], n, n == 1 ? "" : "s");
        c->pub.detail = c->detail;
    }
}


bool de_compile_records_dir(struct diffeng *d, const struct qdb_process *pa)
{
    const char *top = d->layout[0];
    size_t lt = top ? strlen(top) : 0;
    if (!top || !pa->cwd || strncmp(pa->cwd, top, lt) || (pa->cwd[lt] && pa->cwd[lt] != '/') ||
        !progkind_is_compiler_proper(qdb_process_program(pa)))
        return false;
    bool debug = false;
    for (size_t i = 0; pa->argv && i < pa->argv_len;) {
        const char *w = pa->argv + i;
        size_t l = strnlen(w, pa->argv_len - i);
        if (g_str_has_prefix(w, "-fdebug-prefix-map=") || g_str_has_prefix(w, "-ffile-prefix-map="))
            return false;
        if (w[0] == '-' && w[1] == 'g' && strcmp(w, "-g0") && strncmp(w, "-gno-", 5))
            debug = true;
        i += l + 1;
    }
    return debug;
}

/* Whether `path` lies under a directory diffeng_expect_path named. */
bool de_expected_path(const struct diffeng *d, const char *path)
{
    for (guint i = 0; i < d->expected_paths->len; i++) {
        const char *dir = d->expected_paths->pdata[i];
        size_t l = strlen(dir);
        if (!strncmp(path, dir, l) && path[l] == '/')
            return true;
    }
    return false;
}

void diffeng_expect_env(struct diffeng *d, const char *name)
{
    g_hash_table_add(d->expected_env, g_strdup(name));
}

void diffeng_expect_path(struct diffeng *d, const char *dir)
{
    g_ptr_array_add(d->expected_paths, g_strdup(dir));
}

