/*
 * sql_import.c: one profile into a ying database, in one transaction:
 * symbolize, refuse a dump whose content is already there, then the dump
 * row, its mappings and threads, its stacks (deduplicated across dumps by
 * their symbolized frames: function, file, line, module, inlined) with
 * their frames, and its samples: one row per (stack, heap, thread) with the raw
 * counts and the unsampled values computed like jeprof (the model's).
 * Any failure rolls the whole dump back.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sql.h"

/* A sample row before it is written: stacks of one dump (of one heap) that
 * symbolize to the same frames, and per-thread lines of one stack, are
 * summed. */
typedef struct sample_acc {
	int64_t stack;
	uint64_t thread;        /* uid */
	int has_thread;
	uint32_t heap;          /* strtab id of the stack's heap, 0: none */
	yi_counts raw;
	double val[4];          /* ying_sample_index order */
} sample_acc;


int
yi_sql_step_done(ying_sql *db, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE)
		return yi_sql_fail(db, YING_EIO, what);
	return 0;
}

/* Look a hash up with a FIND statement: 1 and *id when found, 0 when not,
 * negative on error. */
int
yi_sql_find_id(ying_sql *db, sqlite3_stmt *s, int64_t *id, const char *what)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return yi_sql_fail(db, YING_EIO, what);
}

static uint64_t
str_hash(const char *s)
{
	yi_shash h;

	yi_shash_init(&h);
	yi_shash_bytes(&h, s, strlen(s));
	return yi_shash_fold(&h);
}

static void
bind_counts(sqlite3_stmt *s, int first, const yi_counts *raw, const double *val)
{
	sqlite3_bind_int64(s, first, (sqlite3_int64)raw->objs);
	sqlite3_bind_int64(s, first + 1, (sqlite3_int64)raw->bytes);
	sqlite3_bind_int64(s, first + 2, (sqlite3_int64)raw->acc_objs);
	sqlite3_bind_int64(s, first + 3, (sqlite3_int64)raw->acc_bytes);
	sqlite3_bind_double(s, first + 4, val[YING_INUSE_OBJECTS]);
	sqlite3_bind_double(s, first + 5, val[YING_INUSE_SPACE]);
	sqlite3_bind_double(s, first + 6, val[YING_ALLOC_OBJECTS]);
	sqlite3_bind_double(s, first + 7, val[YING_ALLOC_SPACE]);
}

static void
unsample(const ying_profile *p, const yi_counts *raw, double *val)
{
	yi_unsample(raw->objs, raw->bytes, p->period, &val[YING_INUSE_OBJECTS],
	    &val[YING_INUSE_SPACE]);
	yi_unsample(raw->acc_objs, raw->acc_bytes, p->period,
	    &val[YING_ALLOC_OBJECTS], &val[YING_ALLOC_SPACE]);
}

/* The content hash of a dump: what it says, not where or when it was
 * read (a copy of a dump is the same dump). */
static void
content_hash(const ying_profile *p, char hex[33])
{
	yi_shash h;
	size_t i, k;

	yi_shash_init(&h);
	yi_shash_u64(&h, p->period);
	yi_shash_bytes(&h, &p->header, sizeof(p->header));
	yi_shash_u64(&h, p->stacks.n);
	for (i = 0; i < p->stacks.n; i++) {
		const yi_stack *s = &p->stacks.v[i];
		yi_shash_u64(&h, s->nframes);
		for (k = 0; k < s->nframes; k++)
			yi_shash_u64(&h, p->locs.v[p->frames.v[s->frame_off + k]].addr);
		yi_shash_bytes(&h, &s->raw, sizeof(s->raw));
	}
	yi_shash_u64(&h, p->threads.n);
	for (i = 0; i < p->threads.n; i++) {
		yi_shash_u64(&h, p->threads.v[i].uid);
		yi_shash_bytes(&h, &p->threads.v[i].raw, sizeof(p->threads.v[i].raw));
	}
	yi_shash_u64(&h, p->tcounts.n);
	for (i = 0; i < p->tcounts.n; i++) {
		yi_shash_u64(&h, p->tcounts.v[i].stack);
		yi_shash_u64(&h, p->tcounts.v[i].uid);
		yi_shash_bytes(&h, &p->tcounts.v[i].raw, sizeof(p->tcounts.v[i].raw));
	}
	if (p->maps_text)
		yi_shash_bytes(&h, p->maps_text, p->maps_text_len);
	/* heaps last, so a dump without heaps hashes as before they were */
	if (p->has_heaps) {
		yi_shash_u64(&h, p->heaps.n);
		for (i = 0; i < p->heaps.n; i++)
			yi_shash_u64(&h, str_hash(yi_profile_str(p, p->heaps.v[i])));
		for (i = 0; i < p->stacks.n; i++)
			yi_shash_u64(&h, str_hash(yi_profile_str(p, p->stacks.v[i].heap)));
	}
	yi_shash_hex(&h, hex);
}

/* The process id in a dump's file name: jemalloc's "PREFIX.PID.SEQ.x.heap"
 * (prof.dump, gdump, final); -1 when the name does not say. */
static int64_t
pid_of_name(const char *path)
{
	const char *b = strrchr(path, '/');
	const char *s;
	char *end;
	long long v;

	b = b ? b + 1 : path;
	if ((s = strchr(b, '.')) == NULL || s[1] < '0' || s[1] > '9')
		return -1;
	v = strtoll(s + 1, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9' || v <= 0)
		return -1;
	return v;
}

static int
add_dump(yi_sql_ctx *c, const char *path, const char *hash)
{
	const ying_profile *p = c->p;
	sqlite3_stmt *s = c->db->st[YI_SQL_ADD_DUMP];
	const char *bid = NULL;
	double v[4] = { 0, 0, 0, 0 };
	int64_t pid = pid_of_name(path);
	int rc;

	for (size_t i = 0; i < p->stacks.n; i++)
		for (int k = 0; k < 4; k++)
			v[k] += p->stacks.v[i].val[k];
	if (p->main_map >= 0 && p->maps.v[p->main_map].build_id)
		bid = yi_profile_str(p, p->maps.v[p->main_map].build_id);
	sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, p->time);
	if (pid > 0)
		sqlite3_bind_int64(s, 3, pid);
	sqlite3_bind_text(s, 4, ying_profile_program(p), -1, SQLITE_STATIC);
	if (bid && *bid)
		sqlite3_bind_text(s, 5, bid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)p->period);
	sqlite3_bind_double(s, 7, v[YING_INUSE_OBJECTS]);
	sqlite3_bind_double(s, 8, v[YING_INUSE_SPACE]);
	if (p->has_accum) {
		sqlite3_bind_double(s, 9, v[YING_ALLOC_OBJECTS]);
		sqlite3_bind_double(s, 10, v[YING_ALLOC_SPACE]);
	}
	sqlite3_bind_int64(s, 11, (sqlite3_int64)p->stacks.n);
	sqlite3_bind_text(s, 12, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 13, (sqlite3_int64)time(NULL));
	if ((rc = yi_sql_step_done(c->db, s, "adding the dump")) != 0)
		return rc;
	c->dump = sqlite3_last_insert_rowid(c->db->db);
	return 0;
}

static int
add_mappings(yi_sql_ctx *c)
{
	const ying_profile *p = c->p;
	sqlite3_stmt *s = c->db->st[YI_SQL_ADD_MAPPING];
	int rc;

	for (size_t i = 0; i < p->maps.n; i++) {
		const yi_mapping *m = &p->maps.v[i];
		sqlite3_bind_int64(s, 1, c->dump);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)m->start);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)m->end);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)m->offset);
		sqlite3_bind_text(s, 5, m->perms, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)m->inode);
		sqlite3_bind_text(s, 7, yi_profile_str(p, m->path), -1, SQLITE_STATIC);
		if (m->build_id)
			sqlite3_bind_text(s, 8, yi_profile_str(p, m->build_id), -1, SQLITE_STATIC);
		if ((rc = yi_sql_step_done(c->db, s, "adding a mapping")) != 0)
			return rc;
	}
	return 0;
}

static int
add_threads(yi_sql_ctx *c)
{
	const ying_profile *p = c->p;
	sqlite3_stmt *s = c->db->st[YI_SQL_ADD_THREAD];
	double val[4];
	int rc;

	for (size_t i = 0; i < p->threads.n; i++) {
		const yi_thread *t = &p->threads.v[i];
		unsample(p, &t->raw, val);
		sqlite3_bind_int64(s, 1, c->dump);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)t->uid);
		sqlite3_bind_text(s, 3, yi_profile_str(p, t->name), -1, SQLITE_STATIC);
		bind_counts(s, 4, &t->raw, val);
		if ((rc = yi_sql_step_done(c->db, s, "adding a thread")) != 0)
			return rc;
	}
	return 0;
}

/* Decimal v at p (no NUL); its length (at most 20).  snprintf was a tenth
 * of a 262k-stack import. */
static size_t
put_i64(char *p, int64_t v)
{
	char tmp[24];
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	size_t n = 0, k = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		p[k++] = '-';
	while (n)
		p[k++] = tmp[--n];
	return k;
}

static size_t
put_null(char *p)
{
	memcpy(p, "null", 4);
	return 4;
}

/* The id of a row of functions (name, file) or modules (path, file NULL),
 * added when missing. */
static int
string_row(yi_sql_ctx *c, int find, int add, const char *a, const char *b,
    int64_t *id)
{
	ying_sql *db = c->db;
	sqlite3_stmt *s = db->st[find];
	int rc;

	sqlite3_bind_text(s, 1, a, -1, SQLITE_STATIC);
	if (b)
		sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
	if ((rc = yi_sql_find_id(db, s, id, "looking a name up")) != 0)
		return rc < 0 ? rc : 0;
	s = db->st[add];
	sqlite3_bind_text(s, 1, a, -1, SQLITE_STATIC);
	if (b)
		sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
	if ((rc = yi_sql_step_done(db, s, "adding a name")) != 0)
		return rc;
	*id = sqlite3_last_insert_rowid(db->db);
	return 0;
}

static int
func_row(yi_sql_ctx *c, uint32_t f, int64_t *id)
{
	const ying_profile *p = c->p;
	int rc;

	if (c->func_id[f] == 0 && (rc = string_row(c, YI_SQL_FIND_FUNC, YI_SQL_ADD_FUNC,
	    yi_profile_str(p, p->funcs.v[f].name), yi_profile_str(p, p->funcs.v[f].file),
	    &c->func_id[f])) != 0)
		return rc;
	*id = c->func_id[f];
	return 0;
}

static int
module_row(yi_sql_ctx *c, int32_t m, int64_t *id)
{
	const ying_profile *p = c->p;
	size_t k = m >= 0 ? (size_t)m : p->maps.n;
	int rc;

	if (c->mod_id[k] == 0 && (rc = string_row(c, YI_SQL_FIND_MODULE,
	    YI_SQL_ADD_MODULE, m >= 0 ? yi_profile_str(p, p->maps.v[m].path) : "",
	    NULL, &c->mod_id[k])) != 0)
		return rc;
	*id = c->mod_id[k];
	return 0;
}

/* stacks.id of profile stack i, added with its frames when new. */
int
yi_sql_stack_id(yi_sql_ctx *c, size_t i, int64_t *id)
{
	const ying_profile *p = c->p;
	ying_sql *db = c->db;
	sqlite3_stmt *s;
	yi_shash h;
	unsigned char key[16];
	long n;
	int rc;

	if ((n = yi_stack_expand(p, &p->stacks.v[i], &c->fv)) < 0)
		return (int)n;
	yi_shash_init(&h);
	for (long k = 0; k < n; k++) {
		const yi_frame *f = &c->fv.v[k];
		int32_t m = f->loc == UINT32_MAX ? -1 : p->locs.v[f->loc].mapping;
		yi_shash_u64(&h, c->func_h[f->func]);
		yi_shash_u64(&h, (uint64_t)f->line << 1 | f->inlined);
		yi_shash_u64(&h, m >= 0 ? c->map_h[m] : 0);
	}
	yi_shash_u64(&h, (uint64_t)n);
	h.a ^= h.a >> 31;
	h.b ^= h.b >> 29;
	memcpy(key, &h.a, 8);
	memcpy(key + 8, &h.b, 8);

	s = db->st[YI_SQL_FIND_STACK];
	sqlite3_bind_blob(s, 1, key, 16, SQLITE_STATIC);
	if ((rc = yi_sql_find_id(db, s, id, "looking a stack up")) != 0)
		return rc < 0 ? rc : 0;

	/* the frames: one JSON array of [function, line, module, address,
	 * inlined] (the frames view unpacks it), so a stack is one row */
	size_t need = 2 + (size_t)n * 96, len = 0;
	if (need > c->json_cap) {
		char *nb = yi_realloc(c->json, need);
		if (nb == NULL)
			return yi_oom("importing a stack");
		c->json = nb;
		c->json_cap = need;
	}
	c->json[len++] = '[';
	for (long k = 0; k < n; k++) {
		const yi_frame *f = &c->fv.v[k];
		const yi_loc *l = f->loc == UINT32_MAX ? NULL : &p->locs.v[f->loc];
		int64_t fid, mid;
		if ((rc = func_row(c, f->func, &fid)) != 0 ||
		    (rc = module_row(c, l ? l->mapping : -1, &mid)) != 0)
			return rc;
		if (k)
			c->json[len++] = ',';
		c->json[len++] = '[';
		len += put_i64(c->json + len, fid);
		c->json[len++] = ',';
		if (f->line)
			len += put_i64(c->json + len, f->line);
		else
			len += put_null(c->json + len);
		c->json[len++] = ',';
		len += put_i64(c->json + len, mid);
		c->json[len++] = ',';
		if (l)
			len += put_i64(c->json + len, (int64_t)l->addr);
		else
			len += put_null(c->json + len);
		c->json[len++] = ',';
		c->json[len++] = f->inlined ? '1' : '0';
		c->json[len++] = ']';
	}
	c->json[len++] = ']';

	s = db->st[YI_SQL_ADD_STACK];
	sqlite3_bind_blob(s, 1, key, 16, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, n);
	sqlite3_bind_text(s, 3, yi_profile_str(p, p->funcs.v[c->fv.v[0].func].name), -1,
	    SQLITE_STATIC);
	sqlite3_bind_text(s, 4, c->json, (int)len, SQLITE_STATIC);
	if ((rc = yi_sql_step_done(db, s, "adding a stack")) != 0)
		return rc;
	*id = sqlite3_last_insert_rowid(db->db);
	if (c->st)
		c->st->stacks_added++;
	return 0;
}

static int
acc_cmp(const void *x, const void *y)
{
	const sample_acc *a = x, *b = y;

	if (a->stack != b->stack)
		return a->stack < b->stack ? -1 : 1;
	if (a->heap != b->heap)         /* one path in two heaps: two rows */
		return a->heap < b->heap ? -1 : 1;
	if (a->has_thread != b->has_thread)
		return a->has_thread - b->has_thread;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return 0;
}

static int
add_samples(yi_sql_ctx *c)
{
	const ying_profile *p = c->p;
	sqlite3_stmt *s = c->db->st[YI_SQL_ADD_SAMPLE];
	size_t n = p->stacks.n + p->tcounts.n, i, j, out;
	sample_acc *a;
	int rc = 0;

	if (n == 0)
		return 0;
	if ((a = yi_calloc(n, sizeof(*a))) == NULL)
		return yi_oom("importing samples");
	for (i = 0; i < p->stacks.n; i++) {
		a[i].stack = c->sid[i];
		a[i].heap = p->has_heaps ? p->stacks.v[i].heap : 0;
		a[i].raw = p->stacks.v[i].raw;
		memcpy(a[i].val, p->stacks.v[i].val, sizeof(a[i].val));
	}
	for (j = 0; j < p->tcounts.n; j++, i++) {
		const yi_thread_count *t = &p->tcounts.v[j];
		a[i].stack = c->sid[t->stack];
		a[i].heap = p->has_heaps ? p->stacks.v[t->stack].heap : 0;
		a[i].thread = t->uid;
		a[i].has_thread = 1;
		a[i].raw = t->raw;
		unsample(p, &t->raw, a[i].val);
	}
	qsort(a, n, sizeof(*a), acc_cmp);
	for (i = 0, out = 0; i < n; i++) {
		if (out > 0 && acc_cmp(&a[out - 1], &a[i]) == 0) {
			sample_acc *d = &a[out - 1];
			d->raw.objs += a[i].raw.objs;
			d->raw.bytes += a[i].raw.bytes;
			d->raw.acc_objs += a[i].raw.acc_objs;
			d->raw.acc_bytes += a[i].raw.acc_bytes;
			for (int k = 0; k < 4; k++)
				d->val[k] += a[i].val[k];
		} else {
			a[out++] = a[i];
		}
	}
	for (i = 0; i < out && rc == 0; i++) {
		sqlite3_bind_int64(s, 1, c->dump);
		sqlite3_bind_int64(s, 2, a[i].stack);
		if (a[i].has_thread)
			sqlite3_bind_int64(s, 3, (sqlite3_int64)a[i].thread);
		bind_counts(s, 4, &a[i].raw, a[i].val);
		if (a[i].heap)
			sqlite3_bind_text(s, 12, yi_profile_str(p, a[i].heap), -1, SQLITE_STATIC);
		rc = yi_sql_step_done(c->db, s, "adding a sample");
	}
	if (rc == 0 && c->st)
		c->st->samples_added += out;
	yi_free(a);
	return rc;
}

int
yi_sql_ctx_init(yi_sql_ctx *c, ying_sql *db, const ying_profile *p,
    ying_sql_stats *st)
{
	memset(c, 0, sizeof(*c));
	c->db = db;
	c->p = p;
	c->st = st;
	if ((c->func_h = yi_calloc(p->funcs.n + 1, sizeof(uint64_t))) == NULL ||
	    (c->map_h = yi_calloc(p->maps.n + 1, sizeof(uint64_t))) == NULL ||
	    (c->sid = yi_calloc(p->stacks.n + 1, sizeof(int64_t))) == NULL ||
	    (c->func_id = yi_calloc(p->funcs.n + 1, sizeof(int64_t))) == NULL ||
	    (c->mod_id = yi_calloc(p->maps.n + 1, sizeof(int64_t))) == NULL)
		return yi_oom("importing stacks");
	for (size_t i = 0; i < p->funcs.n; i++) {
		yi_shash h;
		const char *name = yi_profile_str(p, p->funcs.v[i].name);
		const char *file = yi_profile_str(p, p->funcs.v[i].file);
		yi_shash_init(&h);
		yi_shash_bytes(&h, name, strlen(name));
		yi_shash_bytes(&h, file, strlen(file));
		c->func_h[i] = yi_shash_fold(&h);
	}
	for (size_t i = 0; i < p->maps.n; i++)
		c->map_h[i] = str_hash(yi_profile_str(p, p->maps.v[i].path));
	return 0;
}

void
yi_sql_ctx_release(yi_sql_ctx *c)
{
	yi_free(c->func_h);
	yi_free(c->map_h);
	yi_free(c->sid);
	yi_free(c->func_id);
	yi_free(c->mod_id);
	yi_vec_free(&c->fv);
	yi_free(c->json);
}

static int
import_body(yi_sql_ctx *c, const char *path, const char *hash)
{
	const ying_profile *p = c->p;
	int rc;

	if ((rc = add_dump(c, path, hash)) != 0 ||
	    (rc = add_mappings(c)) != 0 ||
	    (rc = add_threads(c)) != 0)
		return rc;
	for (size_t i = 0; i < p->stacks.n; i++)
		if ((rc = yi_sql_stack_id(c, i, &c->sid[i])) != 0)
			return rc;
	return add_samples(c);
}

int
ying_sql_import_profile(ying_sql *db, ying_profile *p, const char *path,
    const ying_sql_import_opts *opts, ying_sql_stats *stats)
{
	ying_sql_import_opts dflt = YING_SQL_IMPORT_OPTS_INIT;
	ying_sql_stats local = { 0, 0, 0, 0, 0 };
	yi_sql_ctx c;
	char hash[33];
	int64_t id;
	int rc;

	yi_error_clear();
	if (db == NULL || p == NULL)
		return yi_error(YING_EINVAL, "ying_sql_import_profile: no %s",
		    db == NULL ? "database" : "profile");
	if (opts == NULL)
		opts = &dflt;
	if (path == NULL)
		path = p->source ? p->source : "";
	if ((rc = ying_profile_symbolize(p, opts->symbolizer, opts->symbolize)) != 0)
		return rc;
	content_hash(p, hash);

	if ((rc = yi_sql_exec(db, "BEGIN IMMEDIATE")) != 0)
		return rc;
	sqlite3_bind_text(db->st[YI_SQL_FIND_DUMP], 1, hash, -1, SQLITE_STATIC);
	rc = yi_sql_find_id(db, db->st[YI_SQL_FIND_DUMP], &id, "looking the dump up");
	if (rc != 0) {
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
		if (rc < 0)
			return rc;
		if (stats) {
			stats->dumps_skipped++;
			stats->last_dump = id;
		}
		if (opts->messages)
			fprintf(opts->messages, "%s: already in the database as dump %"
			    PRId64 ", skipped\n", path, id);
		return 0;
	}
	rc = yi_sql_ctx_init(&c, db, p, &local);
	if (rc == 0)
		rc = import_body(&c, path, hash);
	if (rc == 0)
		rc = yi_sql_exec(db, "COMMIT");
	if (rc != 0) {
		/* keep the first error's detail: ROLLBACK's own is of no use */
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	} else if (stats) {
		/* counted only once committed: a rolled back dump adds nothing */
		stats->dumps_added++;
		stats->stacks_added += local.stacks_added;
		stats->samples_added += local.samples_added;
		stats->last_dump = c.dump;
	}
	yi_sql_ctx_release(&c);
	return rc;
}
