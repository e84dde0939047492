/* objsyms — defined symbols of ELF files and ar archives (contract in objsyms.h). */
#include "objsyms.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ---- ELF --------------------------------------------------------------------------------- */

struct elf {
    const unsigned char *d;
    size_t len;
    bool is64, big;
};

static uint64_t rd(const struct elf *e, size_t off, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned k = e->big ? i : n - 1 - i;
        v = v << 8 | e->d[off + k];
    }
    return v;
}

/* Is [off, off + n) inside the file? */
static bool inside(const struct elf *e, uint64_t off, uint64_t n)
{
    return off <= e->len && n <= e->len - off;
}

struct shdr {
    uint32_t type, link;
    uint64_t offset, size, entsize;
};

static bool section(const struct elf *e, uint64_t shoff, unsigned shentsize, unsigned i,
                    struct shdr *s)
{
    uint64_t off = shoff + (uint64_t)i * shentsize;
    unsigned need = e->is64 ? 0x40 : 0x28;
    if (shentsize < need || !inside(e, off, need))
        return false;
    size_t o = (size_t)off;
    s->type = (uint32_t)rd(e, o + 4, 4);
    if (e->is64) {
        s->offset = rd(e, o + 0x18, 8);
        s->size = rd(e, o + 0x20, 8);
        s->link = (uint32_t)rd(e, o + 0x28, 4);
        s->entsize = rd(e, o + 0x38, 8);
    } else {
        s->offset = rd(e, o + 0x10, 4);
        s->size = rd(e, o + 0x14, 4);
        s->link = (uint32_t)rd(e, o + 0x18, 4);
        s->entsize = rd(e, o + 0x24, 4);
    }
    return true;
}

enum { SHT_SYMTAB_ = 2, SHT_DYNSYM_ = 11, STT_SECTION_ = 3, STT_FILE_ = 4, STB_LOCAL_ = 0 };

/* Add the defined symbols of symbol table `s` (globals only with `globals_only`). */
static void add_symbols(const struct elf *e, const struct shdr *s, const struct shdr *str,
                        bool globals_only, GHashTable *defined)
{
    unsigned symsz = e->is64 ? 24 : 16;
    if (s->entsize && s->entsize != symsz)
        return;
    if (!inside(e, s->offset, 0) || !inside(e, str->offset, 0))
        return;
    uint64_t size = s->size <= e->len - s->offset ? s->size : e->len - s->offset;
    uint64_t strsize = str->size <= e->len - str->offset ? str->size : e->len - str->offset;
    const char *strtab = (const char *)e->d + str->offset;
    for (uint64_t k = symsz; k + symsz <= size; k += symsz) { /* entry 0 is the null symbol */
        size_t o = (size_t)(s->offset + k);
        uint32_t name = (uint32_t)rd(e, o, 4);
        unsigned info = e->d[o + (e->is64 ? 4 : 12)];
        unsigned shndx = (unsigned)rd(e, o + (e->is64 ? 6 : 14), 2);
        unsigned type = info & 0xf, bind = info >> 4;
        if (!shndx || type == STT_SECTION_ || type == STT_FILE_ || !name || name >= strsize)
            continue;
        if (globals_only && bind == STB_LOCAL_)
            continue;
        const char *n = strtab + name;
        size_t l = strnlen(n, strsize - name);
        if (!l || l == strsize - name) /* not NUL-terminated inside the table */
            continue;
        if (!g_hash_table_contains(defined, n))
            g_hash_table_add(defined, g_strndup(n, l));
    }
}

static int elf_symbols(const void *data, size_t len, bool globals_only, GHashTable *defined)
{
    const unsigned char *d = data;
    if (len < 0x34 || memcmp(d, "\177ELF", 4) || (d[4] != 1 && d[4] != 2) ||
        (d[5] != 1 && d[5] != 2))
        return -EINVAL;
    struct elf e = {.d = d, .len = len, .is64 = d[4] == 2, .big = d[5] == 2};
    if (e.is64 && len < 0x40)
        return -EINVAL;
    uint64_t shoff = rd(&e, e.is64 ? 0x28 : 0x20, e.is64 ? 8 : 4);
    unsigned shentsize = (unsigned)rd(&e, e.is64 ? 0x3a : 0x2e, 2);
    unsigned shnum = (unsigned)rd(&e, e.is64 ? 0x3c : 0x30, 2);
    int found = OBJSYMS_NONE;
    for (int want = SHT_SYMTAB_; want; want = want == SHT_SYMTAB_ ? SHT_DYNSYM_ : 0) {
        for (unsigned i = 0; i < shnum; i++) {
            struct shdr s, str;
            if (!section(&e, shoff, shentsize, i, &s))
                break;
            if (s.type != (uint32_t)want || s.link >= shnum ||
                !section(&e, shoff, shentsize, s.link, &str))
                continue;
            add_symbols(&e, &s, &str, globals_only, defined);
            found = want == SHT_SYMTAB_ ? OBJSYMS_SYMTAB : OBJSYMS_DYNSYM;
            break; /* ELF has one table of each kind: a crafted file naming one large table
                    * from each of 65535 headers would be read 65535 times */
        }
        if (found) /* the full table has every symbol the dynamic one has */
            break;
    }
    return found;
}

int objsyms_elf(const void *data, size_t len, GHashTable *defined)
{
    return elf_symbols(data, len, false, defined);
}

/* ---- ar ---------------------------------------------------------------------------------- */

gboolean objsyms_is_archive(const void *data, size_t len)
{
    return len >= 8 && (!memcmp(data, "!<arch>\n", 8) || !memcmp(data, "!<thin>\n", 8));
}

static uint64_t be(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The names of a GNU symbol index: a count, that many offsets, then the names. */
static void index_names(const unsigned char *m, size_t size, unsigned w, GHashTable *defined)
{
    if (size < w)
        return;
    uint64_t n = be(m, w);
    if (n > (size - w) / w)
        return;
    size_t at = w + (size_t)n * w;
    for (uint64_t k = 0; k < n && at < size; k++) {
        const char *s = (const char *)m + at;
        size_t l = strnlen(s, size - at);
        if (l == size - at)
            break; /* the last name runs off the member */
        if (l && !g_hash_table_contains(defined, s))
            g_hash_table_add(defined, g_strndup(s, l));
        at += l + 1;
    }
}

int objsyms_archive(const void *data, size_t len, GHashTable *defined)
{
    if (!objsyms_is_archive(data, len))
        return -EINVAL;
    const unsigned char *d = data;
    bool thin = !memcmp(d, "!<thin>\n", 8), indexed = false;
    int members = 0;
    GPtrArray *elf = g_ptr_array_new(); /* member data, read only without an index */
    GArray *elf_len = g_array_new(FALSE, FALSE, sizeof(size_t));
    size_t at = 8;
    while (at + 60 <= len) {
        const unsigned char *h = d + at;
        if (h[58] != '`' || h[59] != '\n')
            break;
        char num[11];
        memcpy(num, h + 48, 10);
        num[10] = '\0';
        char *end;
        errno = 0;
        unsigned long long size = g_ascii_strtoull(num, &end, 10);
        if (end == num || errno || size > len - at - 60) {
            /* a thin archive's members are not in it: only the index and names are */
            if (!(thin && end != num && !errno))
                break;
        }
        const unsigned char *m = h + 60;
        bool is_index = !memcmp(h, "/               ", 16) || !memcmp(h, "/SYM64/         ", 16);
        bool special = is_index || !memcmp(h, "//              ", 16) ||
                       !memcmp(h, "__.SYMDEF", 9);
        bool inline_data = !thin || special;
        if (inline_data && size > len - at - 60)
            break;
        if (is_index) {
            index_names(m, (size_t)size, h[1] == 'S' ? 8 : 4, defined);
            indexed = true;
        } else if (!special) {
            members++;
            if (inline_data) {
                size_t sz = (size_t)size;
                size_t off = 0;
                if (!memcmp(h, "#1/", 3)) { /* BSD: the name is the first bytes of the data */
                    char nl[14];
                    memcpy(nl, h + 3, 13);
                    nl[13] = '\0';
                    unsigned long long n = g_ascii_strtoull(nl, NULL, 10);
                    off = n <= sz ? (size_t)n : sz;
                }
                g_ptr_array_add(elf, (gpointer)(m + off));
                size_t l = sz - off;
                g_array_append_val(elf_len, l);
            }
        }
        if (!inline_data)
            size = 0;
        at += 60 + (size_t)size + (size & 1);
    }
    if (!indexed)
        for (guint i = 0; i < elf->len; i++)
            (void)elf_symbols(elf->pdata[i], g_array_index(elf_len, size_t, i), true, defined);
    g_ptr_array_free(elf, TRUE);
    g_array_unref(elf_len);
    return members;
}
