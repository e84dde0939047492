/* repro.h — what repro.c (the command: options, the builds, the comparison, --bisect) hands
 * to repro-render.c (the report as text and as JSON).  Internal to query/cmd. */
#pragma once

#include "diffeng.h"
#include "prov.h"
#include "qdb.h"
#include "reproeng.h"
#include "reprorun.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct repro_report {
    const char *out;                  /* the output directory */
    const char *command;              /* the build command, for people */
    struct reprorun_build *build[2];  /* control, experiment */
    uint32_t asked;                   /* the variations asked for */
    uint32_t applied;                 /* ... made (the experiment's trace says so) */
    GPtrArray *not_applied;           /* char*: "NAME: why", each asked and not made */
    struct qdb *q[2];
    struct diffeng *d;
    GPtrArray *artifacts;             /* struct reproeng_artifact* */
    GPtrArray *left_out;              /* char*: the products that differ (or are one build's
                                       * only) and are no artifact, relative to the tree (by
                                       * default, when the build delivers files apart) */
    GArray *causes;                   /* size_t: the model's causes reaching an artifact */
    GHashTable *hints;                /* cause index (+1) -> variations that may explain it */
    bool bisected;
    bool bisect_failed;               /* a bisect build failed: pins are partial */
    GHashTable *pins;                 /* cause key -> variations (--bisect), or NULL */
    unsigned bisect_builds;
    GHashTable *members;              /* artifact path -> GPtrArray of struct artcmp_diff*
                                       * (artcmp: the members that differ), or -> NULL */
    GHashTable *member_errors;        /* artifact path -> why artcmp could not compare */
    bool diffoscope;                  /* --diffoscope asked */
    bool diffoscope_missing;          /* ... and it is not installed */
    GHashTable *diffoscope_text;      /* artifact path -> its report */
};

/* Whether any artifact differs or is one build's only. */
bool repro_differs(const struct repro_report *r);
void repro_render_text(GString *out, struct repro_report *r);
void repro_render_json(GString *out, struct repro_report *r);
