/* filekind — see filekind.h. */
#include "filekind.h"

#include <glib.h>
#include <string.h>

static const char *const cc_sources[] = {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m",
                                         ".mm", ".s", ".S", ".sx", NULL};
static const char *const other_sources[] = {".f", ".f90", ".F", ".F90", ".go", ".rs", ".adb",
                                            ".ads", NULL};
static const char *const headers[] = {".h", ".hh", ".hpp", ".hxx", ".h++", ".H", ".inc", ".inl",
                                      ".ipp", ".tcc", ".def", ".modulemap", NULL};
static const char *const objects[] = {".o", ".obj", ".a", ".lo", ".lib", ".rlib", NULL};
static const char *const scripts[] = {".mk", ".cmake", ".sh", ".ninja", ".am", ".ac", ".m4",
                                      ".in", ".pc", NULL};
static const char *const script_names[] = {"Makefile", "makefile", "GNUmakefile", "configure",
                                           "CMakeLists.txt", "meson.build", "build.ninja",
                                           NULL};

static bool in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return true;
    return false;
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char *ext_of(const char *base)
{
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : "";
}

enum filekind filekind_of(const char *path)
{
    const char *base = base_of(path);
    const char *ext = ext_of(base);
    if (in(ext, cc_sources) || in(ext, other_sources))
        return FILEKIND_SOURCE;
    if (in(ext, headers))
        return FILEKIND_HEADER;
    if (in(ext, objects))
        return FILEKIND_OBJECT;
    if (!strcmp(ext, ".so") || strstr(base, ".so."))
        return FILEKIND_SHLIB;
    if (in(ext, scripts) || in(base, script_names))
        return FILEKIND_SCRIPT;
    return *ext ? FILEKIND_OTHER : FILEKIND_NO_EXT;
}

bool filekind_cc_source(const char *path)
{
    return in(ext_of(base_of(path)), cc_sources);
}

bool filekind_is_code(const char *path)
{
    enum filekind k = filekind_of(path);
    return k == FILEKIND_SOURCE || k == FILEKIND_HEADER;
}

bool filekind_is_runtime_data(const char *path)
{
    static const char *const dirs[] = {"/usr/lib/locale/", "/usr/share/locale/",
                                       "/usr/share/i18n/", "/usr/share/terminfo/",
                                       "/lib/terminfo/", "/etc/terminfo/", "/usr/share/zoneinfo/"};
    for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++)
        if (g_str_has_prefix(path, dirs[i]))
            return true;
    if (g_str_has_prefix(path, "/etc/ld.so.conf"))
        return true; /* the loader's search path (ld.so.conf, ld.so.conf.d/) */
    static const char *const files[] = {"/etc/ld.so.cache", "/etc/localtime", "/etc/locale.alias",
                                        "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
                                        "/etc/host.conf", "/etc/hosts", "/etc/resolv.conf"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
        if (!strcmp(path, files[i]))
            return true;
    /* gconv modules and their cache: /usr/lib/<triplet>/gconv/ */
    return g_str_has_prefix(path, "/usr/lib/") && strstr(path, "/gconv/") != NULL;
}

bool filekind_is_package_metadata(const char *path)
{
    const char *dir = strstr(path, "/DEBIAN/");
    if (!dir || strchr(dir + 8, '/'))
        return false;
    static const char *const names[] = {"control", "md5sums", "shlibs", "symbols", "triggers",
                                        "conffiles"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        if (!strcmp(dir + 8, names[i]))
            return true;
    return false;
}

const char *filekind_toolchain_runtime(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    /* glibc's start files: crt1.o, crti.o, crtn.o and the variants for PIE, profiling and
     * static PIE (Scrt1.o, gcrt1.o, Mcrt1.o, rcrt1.o, grcrt1.o); every other crt*.o is GCC's
     * (crtbegin*.o, crtend*.o, crtfastmath.o, ...). */
    static const char *const glibc_crt[] = {"crt1.o", "crti.o", "crtn.o", "Scrt1.o", "gcrt1.o",
                                            "Mcrt1.o", "rcrt1.o", "grcrt1.o"};
    for (size_t i = 0; i < G_N_ELEMENTS(glibc_crt); i++)
        if (!strcmp(base, glibc_crt[i]))
            return "LGPL-2.1-or-later WITH GCC-exception-2.0";
    if (g_str_has_prefix(base, "crt") && g_str_has_suffix(base, ".o"))
        return "GPL-3.0-or-later WITH GCC-exception-3.1";
    if (g_str_has_prefix(base, "libgcc") || g_str_has_prefix(base, "libssp_nonshared"))
        return "GPL-3.0-or-later WITH GCC-exception-3.1";
    if (!strcmp(base, "libc_nonshared.a"))
        return "LGPL-2.1-or-later WITH GCC-exception-2.0";
    return NULL;
}
