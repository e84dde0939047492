/* critpath: the critical path and the parallelism of a process tree (critpath.h). */
#include "critpath.h"

#include <stdlib.h>
#include <string.h>

struct cp {
    const struct cp_task *t;
    size_t n;
    int64_t *end;        /* [i]: the end, never before the start */
    gssize *parent;      /* [i]: the parent's index, -1 for none */
    guint *kid_at, *kids; /* children of i: kids[kid_at[i] .. kid_at[i + 1]), by end */
    guint *dep_at;       /* dependencies of reader i: deps[dep_at[i] .. dep_at[i + 1]) */
    const struct cp_dep **deps;
    bool *stepped;
    GHashTable *index;   /* id -> index + 1 */
};

static gssize index_of(const struct cp *c, int64_t id)
{
    gpointer v = g_hash_table_lookup(c->index, &id);
    return v ? (gssize)GPOINTER_TO_SIZE(v) - 1 : -1;
}

static const struct cp *sort_ctx; /* qsort_r is not in every libc's C11: one sort at a time */

static int kid_by_end(const void *a, const void *b)
{
    int64_t x = sort_ctx->end[*(const guint *)a], y = sort_ctx->end[*(const guint *)b];
    if (x != y)
        return (x > y) - (x < y);
    return (*(const guint *)a > *(const guint *)b) - (*(const guint *)a < *(const guint *)b);
}

static void cp_build(struct cp *c, const struct cp_task *tasks, size_t n, const struct cp_dep *deps,
                     size_t ndeps)
{
    memset(c, 0, sizeof *c);
    c->t = tasks;
    c->n = n;
    c->index = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (size_t i = 0; i < n; i++)
        g_hash_table_insert(c->index, (gpointer)&tasks[i].id, GSIZE_TO_POINTER(i + 1));
    c->end = g_new(int64_t, n ? n : 1);
    c->parent = g_new(gssize, n ? n : 1);
    c->stepped = g_new0(bool, n ? n : 1);
    c->kid_at = g_new0(guint, n + 1);
    c->kids = g_new(guint, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        c->end[i] = MAX(tasks[i].end_ns, tasks[i].start_ns);
        c->parent[i] = tasks[i].parent ? index_of(c, tasks[i].parent) : -1;
        if (c->parent[i] == (gssize)i)
            c->parent[i] = -1;
        if (c->parent[i] >= 0)
            c->kid_at[c->parent[i] + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        c->kid_at[i + 1] += c->kid_at[i];
    guint *fill = g_memdup2(c->kid_at, sizeof(guint) * (n + 1));
    for (size_t i = 0; i < n; i++)
        if (c->parent[i] >= 0)
            c->kids[fill[c->parent[i]]++] = (guint)i;
    g_free(fill);
    sort_ctx = c;
    for (size_t i = 0; i < n; i++)
        qsort(c->kids + c->kid_at[i], c->kid_at[i + 1] - c->kid_at[i], sizeof(guint), kid_by_end);
    sort_ctx = NULL;
    c->dep_at = g_new0(guint, n + 1);
    c->deps = g_new(const struct cp_dep *, ndeps ? ndeps : 1);
    gssize *reader = g_new(gssize, ndeps ? ndeps : 1);
    for (size_t k = 0; k < ndeps; k++) {
        reader[k] = index_of(c, deps[k].reader);
        if (reader[k] >= 0 && index_of(c, deps[k].writer) >= 0 && deps[k].writer != deps[k].reader)
            c->dep_at[reader[k] + 1]++;
        else
            reader[k] = -1;
    }
    for (size_t i = 0; i < n; i++)
        c->dep_at[i + 1] += c->dep_at[i];
    fill = g_memdup2(c->dep_at, sizeof(guint) * (n + 1));
    for (size_t k = 0; k < ndeps; k++)
        if (reader[k] >= 0)
            c->deps[fill[reader[k]]++] = &deps[k];
    g_free(fill);
    g_free(reader);
}

static void cp_free(struct cp *c)
{
    g_free(c->end);
    g_free(c->parent);
    g_free(c->stepped);
    g_free(c->kid_at);
    g_free(c->kids);
    g_free(c->dep_at);
    g_free(c->deps);
    g_hash_table_destroy(c->index);
}

/* The child of p that ended last at or before t (and not before p started), not yet a step
 * and not `except`; -1 if none. */
static gssize latest_child(const struct cp *c, size_t p, int64_t t, gssize except)
{
    guint lo = c->kid_at[p], hi = c->kid_at[p + 1];
    while (lo < hi) { /* the first child ending after t */
        guint mid = lo + (hi - lo) / 2;
        if (c->end[c->kids[mid]] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (guint k = lo; k > c->kid_at[p]; k--) {
        guint i = c->kids[k - 1];
        if (c->end[i] < c->t[p].start_ns)
            return -1;
        if ((gssize)i != except && !c->stepped[i])
            return (gssize)i;
    }
    return -1;
}

/* Is `writer` task `step` or one of its ancestors (a shell writing `> gen.h` after the
 * command that was the step)? */
static bool wrote_before(const struct cp *c, int64_t writer, int64_t step)
{
    gssize i = index_of(c, step);
    for (size_t guard = 0; i >= 0 && guard <= c->n; guard++, i = c->parent[i])
        if (c->t[i].id == writer)
            return true;
    return false;
}

void critpath_compute(const struct cp_task *tasks, size_t n, const struct cp_dep *deps,
                      size_t ndeps, struct critpath *out)
{
    critpath_compute_from(tasks, n, deps, ndeps, 0, out);
}

void critpath_compute_from(const struct cp_task *tasks, size_t n, const struct cp_dep *deps,
                           size_t ndeps, int64_t root, struct critpath *out)
{
    memset(out, 0, sizeof *out);
    out->steps = g_array_new(FALSE, FALSE, sizeof(struct cp_step));
    if (!n)
        return;
    struct cp c;
    cp_build(&c, tasks, n, deps, ndeps);
    gssize cur = root ? index_of(&c, root) : -1;
    if (cur >= 0 && c.parent[cur] >= 0)
        cur = -1; /* a root with a parent (crafted): as without one */
    if (cur < 0) /* the task with no parent that ends last */
        for (size_t i = 0; i < n; i++)
            if (c.parent[i] < 0 && (cur < 0 || c.end[i] > c.end[cur]))
                cur = (gssize)i;
    if (cur < 0) { /* no root: every task has a parent (a cycle a crafted trace made) */
        cp_free(&c);
        return;
    }
    out->start_ns = tasks[cur].start_ns;
    out->end_ns = c.end[cur];
    int64_t t = c.end[cur];
    GArray *back = g_array_new(FALSE, FALSE, sizeof(struct cp_step));
    for (size_t guard = 4 * n + 16; guard > 0 && cur >= 0; guard--) {
        for (gssize k; (k = latest_child(&c, (size_t)cur, t, -1)) >= 0;) {
            cur = k;
            t = c.end[k];
        }
        int64_t s = MIN(tasks[cur].start_ns, t);
        /* a parent that had no time of its own before its child (make starting its first
         * job at once) is no step */
        bool nothing = s == t && c.kid_at[cur + 1] > c.kid_at[cur];
        if (!c.stepped[cur] && !nothing) {
            c.stepped[cur] = true;
            struct cp_step st = {.task = tasks[cur].id, .from_ns = s, .to_ns = t,
                                 .why = CP_WAIT_START};
            g_array_append_val(back, st);
        }
        struct cp_step *last = back->len ? &g_array_index(back, struct cp_step, back->len - 1)
                                         : NULL;
        gssize q = c.parent[cur];
        if (q < 0)
            break;
        gssize sib = latest_child(&c, (size_t)q, s, cur);
        int64_t parent_t = sib >= 0 ? c.end[sib] : tasks[q].start_ns;
        const struct cp_dep *best = NULL;
        for (guint k = c.dep_at[cur]; k < c.dep_at[cur + 1]; k++) {
            const struct cp_dep *d = c.deps[k];
            if (d->ready_ns <= s && (!best || d->ready_ns > best->ready_ns) &&
                !c.stepped[index_of(&c, d->writer)])
                best = d;
        }
        if (best && best->ready_ns >= parent_t) {
            if (last && last->task == tasks[cur].id) {
                last->why = CP_WAIT_FILE;
                last->file_id = best->file_id;
            }
            cur = index_of(&c, best->writer);
            t = best->ready_ns;
        } else {
            if (last && last->task == tasks[cur].id)
                last->why = CP_WAIT_PARENT;
            cur = q;
            t = s;
        }
    }
    for (guint k = back->len; k > 0; k--) {
        struct cp_step st = g_array_index(back, struct cp_step, k - 1);
        const struct cp_step *prev = out->steps->len
            ? &g_array_index(out->steps, struct cp_step, out->steps->len - 1) : NULL;
        st.after_task = prev ? prev->task : 0;
        st.wait_ns = MAX(0, st.from_ns - (prev ? prev->to_ns : out->start_ns));
        if (!prev)
            st.why = CP_WAIT_START;
        else if (st.why == CP_WAIT_PARENT) {
            /* started by its parent after the previous step ended — and it read a file that
             * step wrote: that is what it waited for (make starting a compile once the
             * generator of its header is done) */
            gssize me = index_of(&c, st.task);
            for (guint j = me >= 0 ? c.dep_at[me] : 0; me >= 0 && j < c.dep_at[me + 1]; j++)
                if (c.deps[j]->ready_ns <= st.from_ns &&
                    wrote_before(&c, c.deps[j]->writer, prev->task)) {
                    st.why = CP_WAIT_FILE;
                    st.file_id = c.deps[j]->file_id;
                    break;
                }
        }
        out->busy_ns += st.to_ns - st.from_ns;
        g_array_append_val(out->steps, st);
    }
    g_array_free(back, TRUE);
    cp_free(&c);
}

void critpath_clear(struct critpath *cp)
{
    if (cp->steps)
        g_array_free(cp->steps, TRUE);
    cp->steps = NULL;
}

/* The sweep over starts and ends: fn(from, to, working) for each stretch of constant count.
 * At one instant ends come before starts, a parent starts before its children and ends after
 * them (by depth in the tree), then the task's index: the count never depends on the order
 * the tasks were given in. */
struct event {
    int64_t at;
    guint task, depth;
    bool start;
};

static int event_cmp(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    if (x->at != y->at)
        return (x->at > y->at) - (x->at < y->at);
    if (x->start != y->start)
        return (int)x->start - (int)y->start; /* ends first */
    if (x->depth != y->depth)
        return x->start ? (x->depth > y->depth) - (x->depth < y->depth)
                        : (x->depth < y->depth) - (x->depth > y->depth);
    return (x->task > y->task) - (x->task < y->task);
}

/* Each task's depth in the tree (a root 0); a parent link that loops (a damaged trace) counts
 * from where the loop was entered. */
static guint *task_depths(const struct cp *c)
{
    const guint unknown = G_MAXUINT, visiting = G_MAXUINT - 1;
    guint *depth = g_new(guint, c->n ? c->n : 1), *path = g_new(guint, c->n ? c->n : 1);
    for (size_t i = 0; i < c->n; i++)
        depth[i] = unknown;
    for (size_t i = 0; i < c->n; i++) {
        size_t len = 0;
        gssize j = (gssize)i;
        while (j >= 0 && depth[j] == unknown) {
            depth[j] = visiting;
            path[len++] = (guint)j;
            j = c->parent[j];
        }
        guint d = j < 0 || depth[j] == visiting ? 0 : depth[j] + 1;
        while (len > 0)
            depth[path[--len]] = d++;
    }
    g_free(path);
    return depth;
}

static void sweep(const struct cp_task *tasks, size_t n,
                  void (*fn)(int64_t from, int64_t to, unsigned working, void *data), void *data)
{
    struct cp c;
    cp_build(&c, tasks, n, NULL, 0);
    guint *depth = task_depths(&c);
    struct event *ev = g_new(struct event, 2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        ev[2 * i] = (struct event){tasks[i].start_ns, (guint)i, depth[i], true};
        ev[2 * i + 1] = (struct event){c.end[i], (guint)i, depth[i], false};
    }
    g_free(depth);
    qsort(ev, 2 * n, sizeof *ev, event_cmp);
    bool *running = g_new0(bool, n + 1), *counted = g_new0(bool, n + 1);
    unsigned *rc = g_new0(unsigned, n + 1), working = 0;
    for (size_t k = 0; k < 2 * n; k++) {
        if (k && ev[k].at > ev[k - 1].at)
            fn(ev[k - 1].at, ev[k].at, working, data);
        guint i = ev[k].task;
        gssize p = c.parent[i];
        if (ev[k].start) {
            running[i] = true;
            working++;
            if (p >= 0 && running[p]) {
                counted[i] = true;
                if (rc[p]++ == 0)
                    working--;
            }
        } else if (running[i]) {
            running[i] = false;
            if (rc[i] == 0)
                working--;
            if (counted[i] && --rc[p] == 0 && running[p])
                working++;
        }
    }
    g_free(running);
    g_free(counted);
    g_free(rc);
    g_free(ev);
    cp_free(&c);
}

struct par {
    int64_t start, end;
    unsigned buckets;
    double *avg;
    unsigned *peak, max;
};

static void par_add(int64_t from, int64_t to, unsigned w, void *data)
{
    struct par *p = data;
    p->max = MAX(p->max, w);
    if (to <= p->start || from >= p->end || p->end <= p->start)
        return;
    /* in nanoseconds from the start: a clock's absolute value as a double (hours after boot,
     * 2^44 ns and more) has steps large enough to push a slice's mean above its peak */
    double f = (double)(MAX(from, p->start) - p->start), t = (double)(MIN(to, p->end) - p->start);
    double span = (double)(p->end - p->start) / p->buckets;
    unsigned b0 = (unsigned)(f / span);
    for (unsigned b = MIN(b0, p->buckets - 1); b < p->buckets; b++) {
        double lo = b * span, hi = lo + span;
        if (lo >= t)
            break;
        double overlap = MIN(hi, t) - MAX(lo, f);
        if (overlap > 0) {
            p->avg[b] += w * overlap / span;
            p->peak[b] = MAX(p->peak[b], w);
        }
    }
}

void critpath_parallelism(const struct cp_task *tasks, size_t n, int64_t start_ns,
                          int64_t end_ns, unsigned buckets, double *avg, unsigned *peak,
                          unsigned *max_out)
{
    struct par p = {start_ns, end_ns, buckets, avg, peak, 0};
    memset(avg, 0, sizeof(double) * buckets);
    memset(peak, 0, sizeof(unsigned) * buckets);
    if (buckets)
        sweep(tasks, n, par_add, &p);
    *max_out = p.max;
}

struct serial {
    GArray *out;  /* int64_t triples */
    int64_t from; /* the open stretch's start, or -1 */
    int64_t last;
    int64_t min_ns;
};

static void serial_add(int64_t from, int64_t to, unsigned w, void *data)
{
    struct serial *s = data;
    if (w <= 1) {
        if (s->from < 0)
            s->from = from;
        s->last = to;
        return;
    }
    if (s->from >= 0 && s->last - s->from >= s->min_ns) {
        int64_t v[3] = {s->from, s->last, 0};
        g_array_append_vals(s->out, v, 3);
    }
    s->from = -1;
}

static gint by_length(gconstpointer a, gconstpointer b)
{
    const int64_t *x = a, *y = b;
    int64_t lx = x[1] - x[0], ly = y[1] - y[0];
    return (lx < ly) - (lx > ly);
}

GArray *critpath_serial_stretches(const struct cp_task *tasks, size_t n, int64_t min_ns,
                                  unsigned max)
{
    struct serial s = {g_array_new(FALSE, FALSE, sizeof(int64_t)), -1, 0, min_ns};
    sweep(tasks, n, serial_add, &s);
    serial_add(s.last, s.last, 2, &s); /* close the last one */
    GArray *out = g_array_new(FALSE, FALSE, sizeof(int64_t) * 3);
    for (guint i = 0; i + 2 < s.out->len; i += 3)
        g_array_append_vals(out, &g_array_index(s.out, int64_t, i), 1);
    g_array_free(s.out, TRUE);
    g_array_sort(out, by_length);
    if (out->len > max)
        g_array_set_size(out, max);
    /* The task working in each: running at its middle with no child running then (the
     * deepest such). */
    struct cp c;
    cp_build(&c, tasks, n, NULL, 0);
    for (guint k = 0; k < out->len; k++) {
        int64_t *v = (int64_t *)(void *)(out->data + (gsize)k * 3 * sizeof(int64_t));
        int64_t mid = v[0] + (v[1] - v[0]) / 2;
        for (size_t i = 0; i < n; i++) {
            if (tasks[i].start_ns > mid || c.end[i] <= mid)
                continue;
            bool busy_kid = false;
            for (guint j = c.kid_at[i]; j < c.kid_at[i + 1] && !busy_kid; j++)
                busy_kid = tasks[c.kids[j]].start_ns <= mid && c.end[c.kids[j]] > mid;
            if (!busy_kid) {
                v[2] = tasks[i].id;
                break;
            }
        }
    }
    cp_free(&c);
    return out;
}
