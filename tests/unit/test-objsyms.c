/* Unit tests: objsyms — the symbols an ELF file defines (both classes, both byte orders, full
 * and dynamic tables, undefined and section symbols left out) and those an ar archive defines
 * (from its GNU index, from its ELF members without one, empty and thin archives, crafted
 * sizes). */
#include "objsyms.h"

#include <errno.h>
#include <stdint.h>
#include <glib.h>
#include <string.h>

static GHashTable *set_new(void)
{
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

static void put(GByteArray *b, size_t off, uint64_t v, unsigned n, gboolean big)
{
    if (b->len < off + n)
        g_byte_array_set_size(b, (guint)(off + n));
    for (unsigned i = 0; i < n; i++)
        b->data[off + (big ? n - 1 - i : i)] = (guint8)(v >> (8 * i));
}

/* A relocatable ELF with sections null, symtab (type `symtype`), strtab, and the symbols:
 * "defined_g" (global, in section 1), "defined_l" (local), "undef" (undefined), a section
 * symbol. */
static GByteArray *make_elf(gboolean is64, gboolean big, unsigned symtype)
{
    GByteArray *b = g_byte_array_new();
    const char strtab[] = "\0defined_g\0defined_l\0undef\0sect";
    unsigned ehsz = is64 ? 64 : 52, symsz = is64 ? 24 : 16, shsz = is64 ? 64 : 40;
    size_t symoff = ehsz, nsym = 5, stroff = symoff + nsym * symsz;
    size_t shoff = (stroff + sizeof strtab + 7) & ~(size_t)7;
    g_byte_array_set_size(b, (guint)(shoff + 3 * shsz));
    memset(b->data, 0, b->len);
    memcpy(b->data, "\177ELF", 4);
    b->data[4] = is64 ? 2 : 1;
    b->data[5] = big ? 2 : 1;
    b->data[6] = 1;
    put(b, is64 ? 0x28 : 0x20, shoff, is64 ? 8 : 4, big);
    put(b, is64 ? 0x3a : 0x2e, shsz, 2, big);
    put(b, is64 ? 0x3c : 0x30, 3, 2, big);
    memcpy(b->data + stroff, strtab, sizeof strtab);
    struct { unsigned name, info, shndx; } syms[5] = {
        {0, 0, 0}, {1, 0x12, 1}, {11, 0x02, 1}, {21, 0x10, 0}, {27, 0x03, 1}};
    for (unsigned i = 0; i < nsym; i++) {
        size_t o = symoff + i * symsz;
        put(b, o, syms[i].name, 4, big);
        b->data[o + (is64 ? 4 : 12)] = (guint8)syms[i].info;
        put(b, o + (is64 ? 6 : 14), syms[i].shndx, 2, big);
    }
    for (unsigned s = 1; s < 3; s++) {
        size_t o = shoff + s * shsz;
        put(b, o + 4, s == 1 ? symtype : 3, 4, big);
        put(b, o + (is64 ? 0x18 : 0x10), s == 1 ? symoff : stroff, is64 ? 8 : 4, big);
        put(b, o + (is64 ? 0x20 : 0x14), s == 1 ? nsym * symsz : sizeof strtab, is64 ? 8 : 4, big);
        put(b, o + (is64 ? 0x28 : 0x18), s == 1 ? 2 : 0, 4, big);
        put(b, o + (is64 ? 0x38 : 0x24), s == 1 ? symsz : 0, is64 ? 8 : 4, big);
    }
    return b;
}

static void test_elf(void)
{
    for (int is64 = 0; is64 < 2; is64++)
        for (int big = 0; big < 2; big++) {
            GByteArray *b = make_elf(is64, big, 2);
            GHashTable *s = set_new();
            g_assert_cmpint(objsyms_elf(b->data, b->len, s), ==, OBJSYMS_SYMTAB);
            g_assert_true(g_hash_table_contains(s, "defined_g"));
            g_assert_true(g_hash_table_contains(s, "defined_l"));
            g_assert_false(g_hash_table_contains(s, "undef"));
            g_assert_false(g_hash_table_contains(s, "sect"));
            g_assert_cmpuint(g_hash_table_size(s), ==, 2);
            /* every truncation reads only what is whole, never past the end */
            for (guint cut = 0; cut < b->len; cut += 7) {
                g_hash_table_remove_all(s);
                guint8 *copy = g_memdup2(b->data, cut);
                (void)objsyms_elf(copy, cut, s);
                g_free(copy);
            }
            g_hash_table_destroy(s);
            g_byte_array_unref(b);
            b = make_elf(is64, big, 11); /* only a dynamic table: a stripped file */
            s = set_new();
            g_assert_cmpint(objsyms_elf(b->data, b->len, s), ==, OBJSYMS_DYNSYM);
            g_assert_true(g_hash_table_contains(s, "defined_g"));
            g_hash_table_destroy(s);
            g_byte_array_unref(b);
        }
    GHashTable *s = set_new();
    g_assert_cmpint(objsyms_elf("!<arch>\n", 8, s), ==, -EINVAL);
    g_assert_cmpint(objsyms_elf("", 0, s), ==, -EINVAL);
    GByteArray *b = make_elf(TRUE, FALSE, 2);
    put(b, 0x3c, 0, 2, FALSE); /* no sections */
    g_assert_cmpint(objsyms_elf(b->data, b->len, s), ==, OBJSYMS_NONE);
    put(b, 0x3c, 3, 2, FALSE);
    put(b, 0x28, G_MAXUINT64 - 8, 8, FALSE); /* section headers far outside */
    g_assert_cmpint(objsyms_elf(b->data, b->len, s), ==, OBJSYMS_NONE);
    g_assert_cmpuint(g_hash_table_size(s), ==, 0);
    g_byte_array_unref(b);
    g_hash_table_destroy(s);
}

/* ELF allows one symbol table of each kind: a crafted file with thousands of section headers
 * all naming one large table made the scan read it once per header (hours for a few MB).  Only
 * the first full table is read: a second one's symbols are not. */
static void test_elf_one_table(void)
{
    GByteArray *b = make_elf(TRUE, FALSE, 2);
    const unsigned shsz = 64;
    size_t old_shoff = 0;
    for (unsigned i = 0; i < 8; i++)
        old_shoff |= (size_t)b->data[0x28 + i] << (8 * i);
    const char str2[] = "\0second";
    size_t str2off = b->len, sym2off = (str2off + sizeof str2 + 7) & ~(size_t)7;
    size_t shoff = sym2off + 2 * 24;
    g_byte_array_set_size(b, (guint)(shoff + 5 * shsz));
    memset(b->data + str2off, 0, b->len - str2off);
    memcpy(b->data + str2off, str2, sizeof str2);
    put(b, sym2off + 24, 1, 4, FALSE);        /* "second" */
    b->data[sym2off + 24 + 4] = 0x12;         /* global function */
    put(b, sym2off + 24 + 6, 1, 2, FALSE);    /* defined in section 1 */
    memcpy(b->data + shoff, b->data + old_shoff, 3 * shsz);
    size_t h3 = shoff + 3 * shsz, h4 = shoff + 4 * shsz;
    put(b, h3 + 4, 2, 4, FALSE);              /* a second SHT_SYMTAB */
    put(b, h3 + 0x18, sym2off, 8, FALSE);
    put(b, h3 + 0x20, 2 * 24, 8, FALSE);
    put(b, h3 + 0x28, 4, 4, FALSE);
    put(b, h3 + 0x38, 24, 8, FALSE);
    put(b, h4 + 4, 3, 4, FALSE);
    put(b, h4 + 0x18, str2off, 8, FALSE);
    put(b, h4 + 0x20, sizeof str2, 8, FALSE);
    put(b, 0x28, shoff, 8, FALSE);
    put(b, 0x3c, 5, 2, FALSE);
    GHashTable *s = set_new();
    g_assert_cmpint(objsyms_elf(b->data, b->len, s), ==, OBJSYMS_SYMTAB);
    g_assert_true(g_hash_table_contains(s, "defined_g"));
    g_assert_false(g_hash_table_contains(s, "second"));
    g_hash_table_destroy(s);
    g_byte_array_unref(b);
}

static void member(GByteArray *a, const char *name, const void *data, size_t len)
{
    char h[61];
    g_snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "0", "0", "0", "644", len);
    g_byte_array_append(a, (const guint8 *)h, 60);
    g_byte_array_append(a, data, (guint)len);
    if (len & 1)
        g_byte_array_append(a, (const guint8 *)"\n", 1);
}

static void test_archive(void)
{
    GHashTable *s = set_new();
    /* glibc's libpthread.a: the magic and nothing else */
    g_assert_cmpint(objsyms_archive("!<arch>\n", 8, s), ==, 0);
    g_assert_cmpuint(g_hash_table_size(s), ==, 0);
    g_assert_cmpint(objsyms_archive("!<arch", 6, s), ==, -EINVAL);
    g_assert_cmpint(objsyms_archive("\177ELF\2\1\1\0", 8, s), ==, -EINVAL);

    /* a GNU index (2 symbols) and one member: the index answers */
    GByteArray *a = g_byte_array_new();
    g_byte_array_append(a, (const guint8 *)"!<arch>\n", 8);
    const guint8 idx[] = {0, 0, 0, 2, 0, 0, 0, 0x50, 0, 0, 0, 0x50, 'z', 'l', 'i', 'b', 'V', 0,
                          'c', 'r', 'c', '3', '2', 0};
    member(a, "/", idx, sizeof idx);
    GByteArray *o = make_elf(TRUE, FALSE, 2);
    member(a, "zutil.o/", o->data, o->len);
    g_assert_cmpint(objsyms_archive(a->data, a->len, s), ==, 1);
    g_assert_true(g_hash_table_contains(s, "zlibV"));
    g_assert_true(g_hash_table_contains(s, "crc32"));
    g_assert_false(g_hash_table_contains(s, "defined_g")); /* the index is the archive's word */
    /* every truncation: never past the end */
    for (guint cut = 0; cut < a->len; cut++) {
        g_hash_table_remove_all(s);
        guint8 *copy = g_memdup2(a->data, cut);
        (void)objsyms_archive(copy, cut, s);
        g_free(copy);
    }
    g_byte_array_unref(a);

    /* no index: the members' ELF global symbols (not their locals), two members */
    a = g_byte_array_new();
    g_byte_array_append(a, (const guint8 *)"!<arch>\n", 8);
    member(a, "//", "a-long-member-name.o/\n", 22);
    member(a, "/0", o->data, o->len);
    member(a, "b.o/", "not an object", 13);
    g_hash_table_remove_all(s);
    g_assert_cmpint(objsyms_archive(a->data, a->len, s), ==, 2);
    g_assert_true(g_hash_table_contains(s, "defined_g"));
    g_assert_false(g_hash_table_contains(s, "defined_l"));
    g_byte_array_unref(a);

    /* a crafted size past the end stops the scan */
    a = g_byte_array_new();
    g_byte_array_append(a, (const guint8 *)"!<arch>\n", 8);
    member(a, "x.o/", "abcd", 4);
    memcpy(a->data + 8 + 48, "9999999999", 10);
    g_assert_cmpint(objsyms_archive(a->data, a->len, s), ==, 0);
    g_byte_array_unref(a);

    /* a thin archive: an index and members whose data lie elsewhere */
    a = g_byte_array_new();
    g_byte_array_append(a, (const guint8 *)"!<thin>\n", 8);
    member(a, "/", idx, sizeof idx);
    char h[61];
    g_snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10u`\n", "/0", "0", "0", "0", "644", 5000u);
    g_byte_array_append(a, (const guint8 *)h, 60);
    g_hash_table_remove_all(s);
    g_assert_cmpint(objsyms_archive(a->data, a->len, s), ==, 1);
    g_assert_true(g_hash_table_contains(s, "crc32"));
    g_byte_array_unref(a);
    g_byte_array_unref(o);
    g_hash_table_destroy(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/objsyms/elf", test_elf);
    g_test_add_func("/objsyms/elf-one-table", test_elf_one_table);
    g_test_add_func("/objsyms/archive", test_archive);
    return g_test_run();
}
