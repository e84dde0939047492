/* progkind — see progkind.h. */
#include "progkind.h"

#include <glib.h>
#include <string.h>

bool progkind_is_compiler_driver(const char *prog)
{
    static const char *const names[] = {"cc",  "c++",  "gcc",  "g++",  "clang", "clang++",
                                        "c89", "c99",  "tcc",  "icx",  "icpx",  "icc",
                                        "icpc", "emcc", "em++", "nvcc", NULL};
    for (const char *const *n = names; *n; n++)
        if (!strcmp(prog, *n))
            return true;
    /* gcc-12, x86_64-linux-gnu-gcc-12, clang-14, arm-none-eabi-g++ ... */
    static const char *const stems[] = {"gcc", "g++", "clang", "clang++", "cc", "c++", NULL};
    for (const char *const *s = stems; *s; s++) {
        size_t l = strlen(*s);
        for (const char *at = strstr(prog, *s); at; at = strstr(at + 1, *s)) {
            bool left = at == prog || at[-1] == '-';
            bool right = at[l] == '\0' || (at[l] == '-' && g_ascii_isdigit(at[l + 1]));
            if (left && right)
                return true;
        }
    }
    return false;
}

bool progkind_is_compiler_proper(const char *prog)
{
    return !strcmp(prog, "cc1plus") || !strcmp(prog, "cc1") || !strncmp(prog, "clang", 5);
}

bool progkind_is_build_driver(const char *prog)
{
    static const char *const drivers[] = {"make", "gmake", "remake", "bmake", "pmake", "ninja",
                                          "samu"};
    for (size_t i = 0; i < G_N_ELEMENTS(drivers); i++)
        if (!strcmp(prog, drivers[i]))
            return true;
    return false;
}

/* Is prog[0, len) a tool prefix: a toolchain's (llvm, gcc: llvm-objcopy, gcc-ar; elfutils'
 * eu) or a target's, whose first word is a CPU (x86_64-linux-gnu, arm-none-eabi, avr,
 * x86_64-w64-mingw32-gcc)?  Not any word: a build's own `embed-file` or `gen-size` is not
 * file(1) or size(1). */
static bool tool_prefix(const char *prog, size_t len)
{
    static const char *const tools[] = {"llvm", "gcc", "eu"};
    for (size_t i = 0; i < G_N_ELEMENTS(tools); i++)
        if (len == strlen(tools[i]) && !memcmp(prog, tools[i], len))
            return true;
    static const char *const cpus[] = {
        "x86_64", "amd64",     "i386",    "i486",    "i586",     "i686",      "aarch64",
        "aarch64_be", "arm64", "arm",     "armel",   "armhf",    "armeb",     "alpha",
        "hppa",   "ia64",      "m68k",    "s390",    "s390x",    "sparc",     "sparc64",
        "avr",    "msp430",    "xtensa",  "or1k",    "nios2",    "microblaze", "arc",
        "csky",   "bpf",       "hexagon", "loongarch64", "wasm32", "wasm64",  "sh",
        "sh4",    "mips",      "mipsel",  "mips64",  "mips64el", "powerpc",   "powerpc64",
        "powerpc64le", "ppc",  "ppc64",   "ppc64le", "riscv32",  "riscv64"};
    const char *dash = memchr(prog, '-', len);
    size_t first = dash ? (size_t)(dash - prog) : len;
    for (size_t i = 0; i < G_N_ELEMENTS(cpus); i++)
        if (first == strlen(cpus[i]) && !memcmp(prog, cpus[i], first))
            return true;
    /* armv7l, armv7a, mipsisa64r6el */
    return (first > 4 && !memcmp(prog, "armv", 4) && g_ascii_isdigit(prog[4])) ||
           (first > 7 && !memcmp(prog, "mipsisa", 7));
}

/* `prog` without a target or tool prefix ("x86_64-linux-gnu-", "llvm-": tool_prefix) or a
 * version suffix ("-12", "-14.0"): is it `name`? */
static bool named(const char *prog, const char *name)
{
    size_t pl = strlen(prog), nl = strlen(name);
    /* drop a version suffix: -12, -14.0 */
    size_t end = pl;
    while (end > 0 && (g_ascii_isdigit(prog[end - 1]) || prog[end - 1] == '.'))
        end--;
    if (end < pl && end > 0 && prog[end - 1] == '-')
        pl = end - 1;
    if (pl < nl || memcmp(prog + pl - nl, name, nl))
        return false;
    return pl == nl || (prog[pl - nl - 1] == '-' && tool_prefix(prog, pl - nl - 1));
}

enum progkind_step progkind_step(const char *prog)
{
    static const struct {
        const char *name;
        enum progkind_step step;
    } steps[] = {
        {"cc1", PROGKIND_COMPILE},       {"cc1plus", PROGKIND_COMPILE},
        {"cc1obj", PROGKIND_COMPILE},    {"as", PROGKIND_COMPILE},
        {"ld", PROGKIND_LINK},           {"ld.bfd", PROGKIND_LINK},
        {"ld.gold", PROGKIND_LINK},      {"ld.lld", PROGKIND_LINK},
        {"ld.mold", PROGKIND_LINK},      {"gold", PROGKIND_LINK},
        {"lld", PROGKIND_LINK},          {"mold", PROGKIND_LINK},
        {"collect2", PROGKIND_LINK},     {"ar", PROGKIND_ARCHIVE},
        {"ranlib", PROGKIND_ARCHIVE},    {"tar", PROGKIND_ARCHIVE},
        {"bsdtar", PROGKIND_ARCHIVE},    {"cpio", PROGKIND_ARCHIVE},
        {"zip", PROGKIND_ARCHIVE},       {"dpkg-deb", PROGKIND_ARCHIVE},
        {"strip", PROGKIND_POSTPROC},
        {"objcopy", PROGKIND_POSTPROC},  {"dwz", PROGKIND_POSTPROC},
        {"debugedit", PROGKIND_POSTPROC}, {"chrpath", PROGKIND_POSTPROC},
        {"patchelf", PROGKIND_POSTPROC}, {"sstrip", PROGKIND_POSTPROC},
        {"gzip", PROGKIND_COMPRESS},     {"pigz", PROGKIND_COMPRESS},
        {"xz", PROGKIND_COMPRESS},       {"lzma", PROGKIND_COMPRESS},
        {"bzip2", PROGKIND_COMPRESS},    {"zstd", PROGKIND_COMPRESS},
        {"lz4", PROGKIND_COMPRESS},      {"md5sum", PROGKIND_INSPECT},
        {"sha1sum", PROGKIND_INSPECT},   {"sha256sum", PROGKIND_INSPECT},
        {"sha512sum", PROGKIND_INSPECT}, {"b2sum", PROGKIND_INSPECT},
        {"cksum", PROGKIND_INSPECT},     {"readelf", PROGKIND_INSPECT},
        {"objdump", PROGKIND_INSPECT},   {"nm", PROGKIND_INSPECT},
        {"file", PROGKIND_INSPECT},      {"ldd", PROGKIND_INSPECT},
        {"size", PROGKIND_INSPECT},
    };
    if (!strncmp(prog, "clang", 5) && !strstr(prog, "clang-tidy") && !strstr(prog, "clang-format"))
        return PROGKIND_COMPILE; /* clang is its own compiler proper (clang -cc1) */
    for (size_t i = 0; i < G_N_ELEMENTS(steps); i++)
        if (named(prog, steps[i].name))
            return steps[i].step;
    return PROGKIND_GENERIC;
}

static const struct {
    const char *stem;
    const char *exts[6];
} interpreters[] = {
    {"perl", {".pm", ".pl", ".al", ".ix", ".bs", NULL}},
    {"python", {".py", ".pyc", ".pth", NULL}},
    {"ruby", {".rb", NULL}},
    {"tclsh", {".tcl", NULL}},
    {"php", {".php", NULL}},
    {"node", {".js", ".mjs", ".cjs", NULL}},
};

/* The interpreters[] row of `prog` (perl, perl5.36.0, python3, python3.11, ...), or -1. */
static int interpreter_of(const char *prog)
{
    for (size_t i = 0; i < G_N_ELEMENTS(interpreters); i++) {
        size_t l = strlen(interpreters[i].stem);
        if (!strncmp(prog, interpreters[i].stem, l) &&
            (prog[l] == '\0' || g_ascii_isdigit(prog[l])))
            return (int)i;
    }
    return -1;
}

bool progkind_is_interpreter(const char *prog)
{
    return interpreter_of(prog) >= 0;
}

bool progkind_loads_module(const char *prog, const char *path)
{
    int i = interpreter_of(prog);
    if (i < 0)
        return false;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (const char *const *e = interpreters[i].exts; *e; e++)
        if (g_str_has_suffix(base, *e))
            return true;
    return strstr(base, ".so") != NULL && (g_str_has_suffix(base, ".so") || strstr(base, ".so."));
}
