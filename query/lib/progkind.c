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
