/* steps — see steps.h. */
#include "steps.h"

#include "progkind.h"

#include <string.h>

/* The words of a command line, one at a time (qdb puts a NUL past argv_len: the last word is a
 * string even when a crafted trace's is cut off). */
struct words {
    const char *buf;
    size_t len, i;
};

static void words_init(struct words *ws, const struct qdb_process *pr)
{
    ws->len = pr->argv ? pr->argv_len : 0;
    ws->buf = pr->argv;
    ws->i = 0;
}

/* The next word, or NULL at the end. */
static const char *next_word(struct words *ws)
{
    if (ws->i >= ws->len)
        return NULL;
    const char *w = ws->buf + ws->i;
    ws->i += strlen(w) + 1;
    return w;
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool is_shell(const char *prog)
{
    static const char *const shells[] = {"sh", "bash", "dash", "ksh", "zsh", "mksh", "busybox"};
    for (size_t i = 0; i < G_N_ELEMENTS(shells); i++)
        if (!strcmp(prog, shells[i]))
            return true;
    return false;
}

static bool configure_image(const struct qdb_process *pr, struct words *ws);

bool steps_is_configure_image(const struct qdb_process *pr)
{
    struct words ws;
    words_init(&ws, pr);
    bool r = configure_image(pr, &ws);
    return r;
}

static bool configure_image(const struct qdb_process *pr, struct words *ws)
{
    const char *prog = qdb_process_program(pr);
    if (!strcmp(prog, "configure") || !strcmp(prog, "config.status"))
        return true; /* (also by its comm alone: a script's is its name) */
    const char *w = next_word(ws); /* argv[0] */
    if (!w)
        return false;
    if (is_shell(prog)) {
        /* sh [options] ./configure ...: the first word that is not an option */
        while ((w = next_word(ws))) {
            if (w[0] == '-' && w[1]) {
                if (!strcmp(w, "-c"))
                    return false; /* a command string, not a script */
                continue;
            }
            const char *b = base_of(w);
            return !strcmp(b, "configure") || !strcmp(b, "config.status");
        }
        return false;
    }
    if (!strcmp(prog, "cmake") || !strncmp(prog, "cmake3", 6)) {
        static const char *const running[] = {"--build", "--install", "-E", "-P",
                                              "--find-package", "--open", "--workflow"};
        while ((w = next_word(ws)))
            for (size_t k = 0; k < G_N_ELEMENTS(running); k++)
                if (!strcmp(w, running[k]))
                    return false;
        return true;
    }
    /* meson is a python script: python3 /usr/bin/meson setup ...; or run as meson itself */
    bool meson = !strcmp(base_of(w), "meson") || !strcmp(base_of(w), "meson.py");
    if (!meson && progkind_is_interpreter(prog)) {
        w = next_word(ws);
        meson = w && (!strcmp(base_of(w), "meson") || !strcmp(base_of(w), "meson.py"));
    }
    if (!meson)
        return false;
    w = next_word(ws);
    if (!w || !strcmp(w, "setup") || !strcmp(w, "configure"))
        return true;
    if (!strcmp(w, "--internal")) {
        w = next_word(ws);
        return w && !strcmp(w, "regenerate");
    }
    static const char *const subcommands[] = {"compile", "install", "test", "dist", "introspect",
                                              "init", "subprojects", "wrap", "rewrite", "devenv",
                                              "env2mfile", "format", "fmt", "help", "--version",
                                              "-v", "--help", "-h"};
    for (size_t k = 0; k < G_N_ELEMENTS(subcommands); k++)
        if (!strcmp(w, subcommands[k]))
            return false;
    return true; /* meson [options] builddir: setup */
}

bool steps_is_template(const char *out, const char *in)
{
    const char *ob = base_of(out), *ib = base_of(in);
    size_t ol = strlen(ob), il = strlen(ib);
    /* written to config.h.tmp (or config.h~) and then moved or copied into place */
    if (ol > 4 && !strcmp(ob + ol - 4, ".tmp"))
        ol -= 4;
    else if (ol > 1 && ob[ol - 1] == '~')
        ol -= 1;
    if (!ol)
        return false;
    if (il > ol + 1 && !memcmp(ib, ob, ol) && ib[ol] == '.')
        return true; /* config.h.in, config.h.cmake, foo.pc.in */
    if (il == ol + 2 && !memcmp(ib, ob, ol) && !strcmp(ib + ol, "in"))
        return true; /* config.hin */
    const char *dot = memrchr(ob, '.', ol);
    if (dot && dot != ob) {
        size_t stem = (size_t)(dot - ob);
        /* config.in.h */
        return il == ol + 3 && !memcmp(ib, ob, stem) && !strncmp(ib + stem, ".in", 3) &&
               !strncmp(ib + stem + 3, dot, ol - stem);
    }
    return false;
}

const char *const steps_compress_suffixes[] = {".gz",  ".xz",   ".bz2", ".zst",
                                                ".lz4", ".lzma", ".Z",   NULL};

int steps_common_dirs(const char *a, const char *b)
{
    const char *ea = strrchr(a, '/'), *eb = strrchr(b, '/');
    int n = 0;
    /* [ea, eb) walk back over one directory name each */
    while (ea && eb && ea > a && eb > b) {
        const char *sa = ea, *sb = eb;
        while (sa > a && sa[-1] != '/')
            sa--;
        while (sb > b && sb[-1] != '/')
            sb--;
        if (ea - sa != eb - sb || ea == sa || memcmp(sa, sb, (size_t)(ea - sa)))
            break;
        n++;
        ea = sa > a ? sa - 1 : NULL;
        eb = sb > b ? sb - 1 : NULL;
    }
    return n;
}

bool steps_compressed_pair(const char *a, const char *b)
{
    size_t al = strlen(a), bl = strlen(b);
    if (al == bl)
        return false;
    const char *longer = al > bl ? a : b, *shorter = al > bl ? b : a;
    size_t sl = MIN(al, bl);
    if (strncmp(longer, shorter, sl))
        return false;
    for (const char *const *sfx = steps_compress_suffixes; *sfx; sfx++)
        if (!strcmp(longer + sl, *sfx))
            return true;
    return false;
}

bool steps_argv_names(const struct qdb_process *pr, const char *path)
{
    const char *base = base_of(path);
    size_t bl = strlen(base);
    if (!bl)
        return false; /* "", "/", "dir/": no file's name (an empty word is no operand) */
    struct words words, *ws = &words;
    words_init(ws, pr);
    bool found = false;
    const char *w = next_word(ws); /* not the program */
    while (!found && w && (w = next_word(ws))) {
        const char *eq = w[0] == '-' ? strchr(w, '=') : NULL;
        const char *v = eq ? eq + 1 : w;
        size_t vl = strlen(v);
        found = !strcmp(v, path) || !strcmp(v, base) ||
                (vl > bl && v[vl - bl - 1] == '/' && !strcmp(v + vl - bl, base));
    }
    return found;
}

bool steps_is_script_of(const struct qdb_process *pr, const char *path)
{
    const char *prog = qdb_process_program(pr);
    if (!is_shell(prog) && !progkind_is_interpreter(prog))
        return false;
    struct words words, *ws = &words;
    words_init(ws, pr);
    bool is = false;
    const char *w = next_word(ws);
    while (w && (w = next_word(ws))) {
        if (!strcmp(w, "-m") || !strcmp(w, "-c") || !strcmp(w, "-e") || !strcmp(w, "-E") ||
            !strcmp(w, "-") || !w[0])
            break; /* a module, a command string, stdin or nothing: no script file */
        if (w[0] == '-')
            continue;
        if (w[0] == '/' || pr->cwd) {
            g_autofree char *abs = g_canonicalize_filename(w, w[0] == '/' ? "/" : pr->cwd);
            is = !strcmp(abs, path); /* (sh /w/./gen.sh runs /w/gen.sh) */
        }
        break;
    }
    return is;
}
