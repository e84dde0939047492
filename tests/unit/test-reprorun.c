/* unit/reprorun: launcher/reprorun.[ch] — the output directory of `repro`: the default name
 * beside the tree is claimed when it is chosen, so two repro started at once in one tree
 * never share it (the second one failed with "is another repro using the same -o?"). */
#include "reprorun.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

static void test_default_claimed(void)
{
    g_autofree char *dir = g_dir_make_tmp("reprorun-XXXXXX", NULL);
    g_assert_nonnull(dir);
    g_autofree char *src = g_build_filename(dir, "tree", NULL);
    g_assert_cmpint(g_mkdir(src, 0755), ==, 0);
    g_autofree char *a = NULL, *b = NULL, *err = NULL;
    /* two repro at once: each chooses its name before either makes its builds */
    g_assert_cmpint(reprorun_outdir(NULL, src, &a, &err), ==, 0);
    g_assert_cmpint(reprorun_outdir(NULL, src, &b, &err), ==, 0);
    g_assert_null(err);
    g_autofree char *first = g_strconcat(src, ".repro", NULL);
    g_autofree char *second = g_strconcat(src, ".repro-2", NULL);
    g_assert_cmpstr(a, ==, first);
    g_assert_cmpstr(b, ==, second);
    g_assert_true(g_file_test(a, G_FILE_TEST_IS_DIR));
    g_assert_cmpint(reprorun_outdir_make(a), ==, 0); /* made already: no error */
    g_assert_cmpint(reprorun_outdir_make(b), ==, 0);
    const char *made[] = {a, b, src, dir}; /* each empty: nothing else was made */
    for (size_t i = 0; i < G_N_ELEMENTS(made); i++)
        g_assert_cmpint(g_rmdir(made[i]), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/reprorun/default-claimed", test_default_claimed);
    return g_test_run();
}
