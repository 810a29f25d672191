/*
 * read_recent.c: jemalloc's recent-allocation records into a ying_recent.
 *
 * Three inputs, told apart by their top-level members: ying's capture
 * ("ying_recent": the raw JSON wrapped with the process's maps and two
 * clock readings, written by live_ctl_recent.c), jemalloc's own
 * experimental.prof_recent.alloc_dump JSON ("recent_alloc") and its prof
 * log ("stack_traces" + "allocations").  The text is parsed whole by
 * read_json.c, then every record is checked field by field (a missing or
 * out-of-range field is an error naming the record and its line:column).
 * Each distinct trace becomes one stack of a ying_profile built with the
 * model's constructors; a capture's maps go through the heap_v2 reader's
 * MAPPED_LIBRARIES parser (one rule for mappings and build IDs), so the
 * symbolizer treats the records' stacks exactly like a dump's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "read.h"

#define MAX_FRAMES 1024          /* jemalloc records at most 128 */

typedef struct rb {
	ying_recent *r;
	yi_json *j;
	const char *name;
	yi_idset traces;                    /* uint64_t pcs[] -> trace id */
	YI_VEC(uint64_t) pcs;
	YI_VEC(yi_counts) counts;           /* per trace id */
} rb;

static int
ferr(const rb *b, const yi_jnode *n, const char *ctx, size_t idx, const char *what)
{
	if (idx == SIZE_MAX)
		return yi_json_error(b->j, n ? n->off : 0, "%s: %s", ctx, what);
	return yi_json_error(b->j, n ? n->off : 0, "%s[%zu]: %s", ctx, idx, what);
}

/* Member key of obj, which must be present (else an error naming ctx[idx]). */
static int
need(const rb *b, const yi_jnode *obj, const char *key, const char *ctx,
    size_t idx, const yi_jnode **out)
{
	char what[96];

	if ((*out = yi_json_get(b->j, obj, key)) != NULL)
		return 0;
	snprintf(what, sizeof(what), "missing \"%s\"", key);
	return ferr(b, obj, ctx, idx, what);
}

static int
need_u64(const rb *b, const yi_jnode *obj, const char *key, const char *ctx,
    size_t idx, uint64_t *v)
{
	const yi_jnode *n;
	char what[128];
	int rc;

	if ((rc = need(b, obj, key, ctx, idx, &n)) != 0)
		return rc;
	if (idx == SIZE_MAX)
		snprintf(what, sizeof(what), "%s.%s", ctx, key);
	else
		snprintf(what, sizeof(what), "%s[%zu].%s", ctx, idx, key);
	return yi_json_u64(b->j, n, what, v);
}

/* The id of a trace: an array of "0x..." strings (leaf first). */
static int
trace_id(rb *b, const yi_jnode *arr, const char *ctx, size_t idx, int64_t *id)
{
	const yi_jnode *f;
	uint32_t tid;
	bool added;
	int rc;

	if (arr == NULL || arr->type != YI_JARR)
		return ferr(b, arr, ctx, idx, "expected a trace (an array of \"0x...\" addresses)");
	if (arr->count > MAX_FRAMES)
		return ferr(b, arr, ctx, idx, "trace deeper than 1024 frames");
	b->pcs.n = 0;
	if ((rc = yi_vec_grow(&b->pcs, arr->count + 1)) != 0)
		return rc;
	for (f = yi_json_first(b->j, arr); f; f = yi_json_next(b->j, f)) {
		const char *s, *q;
		uint64_t pc = 0;
		int nd = 0;
		if (f->type != YI_JSTR)
			return ferr(b, f, ctx, idx, "trace entry is not a string");
		s = yi_json_str(b->j, f);
		if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
			return ferr(b, f, ctx, idx, "trace entry is not a 0x-prefixed address");
		for (q = s + 2; *q; q++, nd++) {
			int d;
			if (*q >= '0' && *q <= '9')
				d = *q - '0';
			else if (*q >= 'a' && *q <= 'f')
				d = *q - 'a' + 10;
			else if (*q >= 'A' && *q <= 'F')
				d = *q - 'A' + 10;
			else
				return ferr(b, f, ctx, idx, "bad hex digit in a trace address");
			if (nd >= 16)
				return ferr(b, f, ctx, idx, "trace address longer than 64 bits");
			pc = pc << 4 | (uint64_t)d;
		}
		if (nd == 0)
			return ferr(b, f, ctx, idx, "empty trace address");
		b->pcs.v[b->pcs.n++] = pc;
	}
	if ((rc = yi_idset_add(&b->traces, b->pcs.v, b->pcs.n * sizeof(uint64_t),
	    &tid, &added)) != 0)
		return rc;
	if (added) {
		if ((rc = yi_vec_grow(&b->counts, 1)) != 0)
			return rc;
		memset(&b->counts.v[b->counts.n++], 0, sizeof(yi_counts));
	}
	*id = tid;
	return 0;
}

static int
intern(rb *b, const char *s, uint32_t *id)
{
	return yi_strtab_intern(&b->r->prof->strs, s, strlen(s), id);
}

static int
opt_name(rb *b, const yi_jnode *obj, const char *key, uint32_t *id)
{
	const yi_jnode *n = yi_json_get(b->j, obj, key);

	*id = 0;
	if (n == NULL || n->type == YI_JNULL)
		return 0;
	if (n->type != YI_JSTR)
		return ferr(b, n, key, SIZE_MAX, "expected a string");
	return intern(b, yi_json_str(b->j, n), id);
}

static int
add_rec(rb *b, const yi_recent_rec *rec)
{
	int rc;

	if ((rc = yi_vec_grow(&b->r->recs, 1)) != 0)
		return rc;
	b->r->recs.v[b->r->recs.n++] = *rec;
	return 0;
}

/* jemalloc's alloc_dump JSON (also the "jemalloc" member of a capture). */
static int
parse_raw(rb *b, const yi_jnode *root)
{
	const yi_jnode *list, *e, *n;
	size_t i = 0;
	uint64_t v;
	int rc;

	if ((n = yi_json_get(b->j, root, "sample_interval")) != NULL) {
		if ((rc = yi_json_u64(b->j, n, "sample_interval", &v)) != 0)
			return rc;
		b->r->info.sample_interval = v;
	}
	if ((n = yi_json_get(b->j, root, "recent_alloc_max")) != NULL &&
	    (rc = yi_json_i64(b->j, n, "recent_alloc_max", &b->r->info.recent_alloc_max)) != 0)
		return rc;
	if ((rc = need(b, root, "recent_alloc", "jemalloc's JSON", SIZE_MAX, &list)) != 0)
		return rc;
	if (list->type != YI_JARR)
		return ferr(b, list, "recent_alloc", SIZE_MAX, "expected an array");
	for (e = yi_json_first(b->j, list); e; e = yi_json_next(b->j, e), i++) {
		yi_recent_rec rec;
		const yi_jnode *t;
		memset(&rec, 0, sizeof(rec));
		rec.fstack = -1;
		if (e->type != YI_JOBJ)
			return ferr(b, e, "recent_alloc", i, "expected an object");
		if ((rc = need_u64(b, e, "size", "recent_alloc", i, &rec.size)) != 0 ||
		    (rc = need_u64(b, e, "usize", "recent_alloc", i, &rec.usize)) != 0 ||
		    (rc = need_u64(b, e, "alloc_thread_uid", "recent_alloc", i, &rec.athr)) != 0 ||
		    (rc = need_u64(b, e, "alloc_time", "recent_alloc", i, &rec.ans)) != 0 ||
		    (rc = opt_name(b, e, "alloc_thread_name", &rec.aname)) != 0 ||
		    (rc = need(b, e, "released", "recent_alloc", i, &t)) != 0)
			return rc;
		if (t->type != YI_JBOOL)
			return ferr(b, t, "recent_alloc", i, "\"released\" is not true or false");
		rec.released = t->b;
		if ((rc = need(b, e, "alloc_trace", "recent_alloc", i, &t)) != 0 ||
		    (rc = trace_id(b, t, "recent_alloc", i, &rec.astack)) != 0)
			return rc;
		if (rec.released) {
			if ((rc = need_u64(b, e, "dalloc_thread_uid", "recent_alloc", i, &rec.fthr)) != 0 ||
			    (rc = need_u64(b, e, "dalloc_time", "recent_alloc", i, &rec.fns)) != 0 ||
			    (rc = opt_name(b, e, "dalloc_thread_name", &rec.fname)) != 0 ||
			    (rc = need(b, e, "dalloc_trace", "recent_alloc", i, &t)) != 0 ||
			    (rc = trace_id(b, t, "recent_alloc", i, &rec.fstack)) != 0)
				return rc;
		}
		if ((rc = add_rec(b, &rec)) != 0)
			return rc;
	}
	return 0;
}

/* jemalloc's prof log (prof.log_stop). */
static int
parse_log(rb *b, const yi_jnode *root)
{
	const yi_jnode *info, *thr, *st, *al, *e, *n;
	YI_VEC(int64_t) ids = { NULL, 0, 0 };
	YI_VEC(uint64_t) uids = { NULL, 0, 0 };
	YI_VEC(uint32_t) names = { NULL, 0, 0 };
	size_t i;
	uint64_t v;
	int rc = 0;

	if ((info = yi_json_get(b->j, root, "info")) != NULL) {
		if ((n = yi_json_get(b->j, info, "lg_sample_rate")) != NULL) {
			if ((rc = yi_json_u64(b->j, n, "info.lg_sample_rate", &v)) != 0)
				return rc;
			if (v > 63)
				return ferr(b, n, "info.lg_sample_rate", SIZE_MAX, "out of range (0..63)");
			b->r->info.sample_interval = (uint64_t)1 << v;
		}
		if ((n = yi_json_get(b->j, info, "pid")) != NULL &&
		    (rc = yi_json_i64(b->j, n, "info.pid", &b->r->info.pid)) != 0)
			return rc;
		if ((n = yi_json_get(b->j, info, "prof_time_resolution")) != NULL &&
		    n->type == YI_JSTR) {
			uint32_t id;
			if ((rc = intern(b, yi_json_str(b->j, n), &id)) != 0)
				return rc;
			b->r->info.time_resolution = yi_strtab_get(&b->r->prof->strs, id);
			b->r->info.has_wall = strcmp(b->r->info.time_resolution, "high") == 0;
		}
	}
	if ((rc = need(b, root, "threads", "prof log", SIZE_MAX, &thr)) != 0 ||
	    (rc = need(b, root, "stack_traces", "prof log", SIZE_MAX, &st)) != 0 ||
	    (rc = need(b, root, "allocations", "prof log", SIZE_MAX, &al)) != 0)
		return rc;
	if (thr->type != YI_JARR || st->type != YI_JARR || al->type != YI_JARR)
		return ferr(b, root, "prof log", SIZE_MAX,
		    "\"threads\", \"stack_traces\" and \"allocations\" must be arrays");
	i = 0;
	for (e = yi_json_first(b->j, thr); e; e = yi_json_next(b->j, e), i++) {
		if (e->type != YI_JOBJ) {
			rc = ferr(b, e, "threads", i, "expected an object");
			goto out;
		}
		if ((rc = yi_vec_grow(&uids, 1)) != 0 || (rc = yi_vec_grow(&names, 1)) != 0)
			goto out;
		if ((rc = need_u64(b, e, "thr_uid", "threads", i, &uids.v[uids.n])) != 0 ||
		    (rc = opt_name(b, e, "thr_name", &names.v[names.n])) != 0)
			goto out;
		uids.n++;
		names.n++;
	}
	i = 0;
	for (e = yi_json_first(b->j, st); e; e = yi_json_next(b->j, e), i++) {
		if ((rc = yi_vec_grow(&ids, 1)) != 0 ||
		    (rc = trace_id(b, e, "stack_traces", i, &ids.v[ids.n])) != 0)
			goto out;
		ids.n++;
	}
	i = 0;
	for (e = yi_json_first(b->j, al); e; e = yi_json_next(b->j, e), i++) {
		yi_recent_rec rec;
		uint64_t at, ft, as, fs;
		memset(&rec, 0, sizeof(rec));
		if (e->type != YI_JOBJ) {
			rc = ferr(b, e, "allocations", i, "expected an object");
			goto out;
		}
		if ((rc = need_u64(b, e, "alloc_thread", "allocations", i, &at)) != 0 ||
		    (rc = need_u64(b, e, "free_thread", "allocations", i, &ft)) != 0 ||
		    (rc = need_u64(b, e, "alloc_trace", "allocations", i, &as)) != 0 ||
		    (rc = need_u64(b, e, "free_trace", "allocations", i, &fs)) != 0 ||
		    (rc = need_u64(b, e, "alloc_timestamp", "allocations", i, &rec.ans)) != 0 ||
		    (rc = need_u64(b, e, "free_timestamp", "allocations", i, &rec.fns)) != 0 ||
		    (rc = need_u64(b, e, "usize", "allocations", i, &rec.usize)) != 0)
			goto out;
		if (at >= uids.n || ft >= uids.n) {
			rc = ferr(b, e, "allocations", i, "thread index out of range of \"threads\"");
			goto out;
		}
		if (as >= ids.n || fs >= ids.n) {
			rc = ferr(b, e, "allocations", i, "trace index out of range of \"stack_traces\"");
			goto out;
		}
		rec.size = rec.usize;
		rec.released = true;
		rec.athr = uids.v[at];
		rec.aname = names.v[at];
		rec.fthr = uids.v[ft];
		rec.fname = names.v[ft];
		rec.astack = ids.v[as];
		rec.fstack = ids.v[fs];
		if ((rc = add_rec(b, &rec)) != 0)
			goto out;
	}
out:
	yi_vec_free(&ids);
	yi_vec_free(&uids);
	yi_vec_free(&names);
	return rc;
}

static int
get_str(rb *b, const yi_jnode *root, const char *key, const char **out)
{
	const yi_jnode *n = yi_json_get(b->j, root, key);
	uint32_t id;
	int rc;

	*out = "";
	if (n == NULL)
		return 0;
	if (n->type != YI_JSTR)
		return ferr(b, n, key, SIZE_MAX, "expected a string");
	if ((rc = intern(b, yi_json_str(b->j, n), &id)) != 0)
		return rc;
	*out = yi_strtab_get(&b->r->prof->strs, id);
	return 0;
}

/* The mappings of a capture: its "maps" text through the heap_v2 reader's
 * MAPPED_LIBRARIES parser, into a profile of no stacks. */
static int
load_maps(rb *b, const char *maps, size_t len, ying_profile **out)
{
	char label[300];
	int rc;

	snprintf(label, sizeof(label), "%s: \"maps\"", b->name);
	if ((rc = yi_profile_new_heap(out, label, 1, NULL)) != 0)
		return rc;
	if ((rc = yi_heap_parse_maps(*out, maps, len, label)) != 0) {
		ying_profile_free(*out);
		*out = NULL;
	}
	return rc;
}

static int
parse_capture(rb *b, const yi_jnode *root)
{
	ying_recent_info *in = &b->r->info;
	const yi_jnode *n, *raw;
	uint64_t v;
	int rc;

	if ((rc = need_u64(b, root, "ying_recent", "capture", SIZE_MAX, &v)) != 0)
		return rc;
	if (v != 1)
		return ferr(b, root, "capture", SIZE_MAX,
		    "unsupported \"ying_recent\" version (this ying reads 1)");
	if ((n = yi_json_get(b->j, root, "pid")) != NULL &&
	    (rc = yi_json_i64(b->j, n, "pid", &in->pid)) != 0)
		return rc;
	if ((rc = get_str(b, root, "program", &in->program)) != 0 ||
	    (rc = get_str(b, root, "time_resolution", &in->time_resolution)) != 0)
		return rc;
	if ((n = yi_json_get(b->j, root, "captured_prof_ns")) != NULL) {
		if ((rc = yi_json_u64(b->j, n, "captured_prof_ns", &in->captured_prof_ns)) != 0)
			return rc;
		in->has_prof_now = 1;
	}
	if ((n = yi_json_get(b->j, root, "captured_wall_ns")) != NULL) {
		if ((rc = yi_json_u64(b->j, n, "captured_wall_ns", &v)) != 0)
			return rc;
		if (v > INT64_MAX || !in->has_prof_now || in->captured_prof_ns > INT64_MAX)
			return ferr(b, n, "captured_wall_ns", SIZE_MAX,
			    "needs captured_prof_ns, and both below 2^63");
		in->captured_wall_ns = (int64_t)v;
		in->has_wall = 1;
	}
	if ((rc = need(b, root, "jemalloc", "capture", SIZE_MAX, &raw)) != 0)
		return rc;
	if (raw->type != YI_JOBJ)
		return ferr(b, raw, "jemalloc", SIZE_MAX, "expected jemalloc's JSON object");
	return parse_raw(b, raw);
}

/* Build the profile's stacks from the traces, in id order. */
static int
add_stacks(rb *b)
{
	ying_profile *p = b->r->prof;
	YI_VEC(uint32_t) locs = { NULL, 0, 0 };
	size_t nt = yi_idset_count(&b->traces);
	int rc = 0;

	for (size_t i = 0; i < b->r->recs.n; i++) {
		const yi_recent_rec *rec = &b->r->recs.v[i];
		yi_counts *c = &b->counts.v[rec->astack];
		c->acc_objs++;
		c->acc_bytes += rec->usize;
		if (!rec->released) {
			c->objs++;
			c->bytes += rec->usize;
		}
	}
	for (uint32_t t = 0; t < nt && rc == 0; t++) {
		const uint64_t *pcs = yi_idset_key(&b->traces, t);
		size_t n = yi_idset_len(&b->traces, t) / sizeof(uint64_t);
		const yi_counts *c = &b->counts.v[t];
		double val[4];
		locs.n = 0;
		if ((rc = yi_vec_grow(&locs, n + 1)) != 0)
			break;
		for (size_t k = 0; k < n && rc == 0; k++)
			rc = yi_profile_loc(p, pcs[k], k == 0, &locs.v[locs.n++]);
		if (rc != 0)
			break;
		val[YING_INUSE_SPACE] = (double)c->bytes;
		val[YING_INUSE_OBJECTS] = (double)c->objs;
		val[YING_ALLOC_SPACE] = (double)c->acc_bytes;
		val[YING_ALLOC_OBJECTS] = (double)c->acc_objs;
		if (c->acc_objs)
			p->has_accum = true;
		rc = yi_profile_add_stack(p, locs.v, locs.n, c, val);
	}
	yi_vec_free(&locs);
	return rc;
}

static void
fill_header(ying_profile *p)
{
	memset(&p->header, 0, sizeof(p->header));
	for (size_t i = 0; i < p->stacks.n; i++) {
		p->header.objs += p->stacks.v[i].raw.objs;
		p->header.bytes += p->stacks.v[i].raw.bytes;
		p->header.acc_objs += p->stacks.v[i].raw.acc_objs;
		p->header.acc_bytes += p->stacks.v[i].raw.acc_bytes;
	}
}

int
ying_recent_read_mem(ying_recent **out, const void *data, size_t len,
    const char *name)
{
	yi_json j;
	rb b;
	ying_recent *r = NULL;
	const yi_jnode *root, *maps;
	void *plain = NULL;
	size_t budget, plen;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_recent_read_mem: out is NULL");
	*out = NULL;
	if (data == NULL && len > 0)
		return yi_error(YING_EINVAL, "ying_recent_read_mem: data is NULL");
	name = name ? name : "(memory)";
	memset(&b, 0, sizeof(b));
	yi_idset_init(&b.traces, NULL);
	memset(&j, 0, sizeof(j));
	if ((rc = yi_read_budget(&budget)) != 0)
		goto fail;
	if (yi_is_gzip(data, len)) {
		/* the inflated copy and the tree share the budget */
		if ((rc = yi_gunzip(data, len, budget / 2, &plain, &plen, name)) != 0) {
			if (rc == YING_ELIMIT)
				rc = yi_budget_error(name, "the decompressed input", budget);
			goto fail;
		}
		data = plain;
		len = plen;
	}
	if ((rc = yi_json_parse(&j, data, len, name, budget)) != 0)
		goto fail;
	root = yi_json_root(&j);
	if (root->type != YI_JOBJ) {
		rc = yi_error(YING_EPARSE, "%s: not a recent-allocation capture (expected a "
		    "JSON object)", name);
		goto fail;
	}
	if ((r = yi_calloc(1, sizeof(*r))) == NULL) {
		rc = yi_oom("reading recent allocations");
		goto fail;
	}
	r->info.pid = -1;
	r->info.program = r->info.time_resolution = "";
	b.r = r;
	b.j = &j;
	b.name = name;
	maps = yi_json_get(&j, root, "maps");
	if (yi_json_get(&j, root, "ying_recent") && maps != NULL) {
		if (maps->type != YI_JSTR) {
			rc = ferr(&b, maps, "maps", SIZE_MAX, "expected a string");
			goto fail;
		}
		if ((rc = load_maps(&b, yi_json_str(&j, maps), maps->len, &r->prof)) != 0)
			goto fail;
		yi_free(r->prof->source);
		if ((r->prof->source = yi_strdup(name)) == NULL) {
			rc = yi_oom("reading recent allocations");
			goto fail;
		}
		r->info.has_maps = r->prof->has_maps;
	} else if ((rc = yi_profile_new(&r->prof, name)) != 0) {
		goto fail;
	}
	if (yi_json_get(&j, root, "ying_recent")) {
		r->info.format = YING_RECENT_CAPTURE;
		rc = parse_capture(&b, root);
	} else if (yi_json_get(&j, root, "recent_alloc")) {
		r->info.format = YING_RECENT_RAW;
		rc = parse_raw(&b, root);
	} else if (yi_json_get(&j, root, "allocations") && yi_json_get(&j, root, "stack_traces")) {
		r->info.format = YING_RECENT_LOG;
		rc = parse_log(&b, root);
	} else {
		rc = yi_error(YING_EPARSE, "%s: not a recent-allocation capture (expected "
		    "ying's capture, jemalloc's prof_recent JSON with \"recent_alloc\", or "
		    "its prof log with \"stack_traces\" and \"allocations\")", name);
	}
	if (rc != 0 || (rc = add_stacks(&b)) != 0)
		goto fail;
	r->prof->period = r->info.sample_interval ? r->info.sample_interval : 1;
	if (r->info.has_wall && r->info.format == YING_RECENT_CAPTURE)
		r->prof->time = r->info.captured_wall_ns / 1000000000;
	fill_header(r->prof);
	yi_idset_release(&b.traces);
	yi_vec_free(&b.pcs);
	yi_vec_free(&b.counts);
	yi_json_release(&j);
	yi_free(plain);
	*out = r;
	return 0;
fail:
	yi_idset_release(&b.traces);
	yi_vec_free(&b.pcs);
	yi_vec_free(&b.counts);
	yi_json_release(&j);
	yi_free(plain);
	ying_recent_free(r);
	return rc;
}

int
ying_recent_read_file(ying_recent **out, const char *path)
{
	gzFile gz;
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, budget;
	int rc, n, fd;

	yi_error_clear();
	if (out == NULL || path == NULL)
		return yi_error(YING_EINVAL, "ying_recent_read_file: out or path is NULL");
	*out = NULL;
	if ((rc = yi_read_budget(&budget)) != 0)
		return rc;
	if (strcmp(path, "-") == 0) {
		if ((fd = dup(0)) < 0)
			return yi_error(YING_ESYS, "-: cannot read stdin: %s", strerror(errno));
	} else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		return yi_error(errno == ENOENT ? YING_ENOTFOUND : YING_EIO,
		    "%s: cannot open: %s", path, strerror(errno));
	}
	if ((gz = gzdopen(fd, "rb")) == NULL) {
		close(fd);
		return yi_oom("opening a capture");
	}
	for (;;) {
		if (len + 65536 + 1 > cap) {
			size_t ncap = cap ? cap * 2 : 262144;
			if (ncap > budget + 65536 + 1) {
				gzclose(gz);
				yi_free(buf);
				return yi_budget_error(path, "the capture", budget);
			}
			if ((nb = yi_realloc(buf, ncap)) == NULL) {
				gzclose(gz);
				yi_free(buf);
				return yi_oom("reading a capture");
			}
			buf = nb;
			cap = ncap;
		}
		n = gzread(gz, buf + len, 65536);
		if (n < 0) {
			int e;
			const char *m = gzerror(gz, &e);
			rc = yi_error(YING_EIO, "%s: read failed: %s", path, m ? m : "?");
			gzclose(gz);
			yi_free(buf);
			return rc;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	gzclose(gz);
	rc = ying_recent_read_mem(out, buf ? buf : "", len, path);
	yi_free(buf);
	return rc;
}

void
ying_recent_free(ying_recent *r)
{
	if (r == NULL)
		return;
	ying_profile_free(r->prof);
	yi_vec_free(&r->recs);
	yi_free(r);
}

int
ying_recent_info_get(ying_recent_info *out, const ying_recent *r)
{
	yi_error_clear();
	if (r == NULL || out == NULL)
		return yi_error(YING_EINVAL, "ying_recent_info_get: NULL argument");
	*out = r->info;
	return 0;
}

size_t
ying_recent_count(const ying_recent *r)
{
	return r ? r->recs.n : 0;
}

static int64_t
to_wall(const ying_recent *r, uint64_t t)
{
	if (r->info.format == YING_RECENT_LOG)
		return t > INT64_MAX ? INT64_MAX : (int64_t)t;
	/* wall = captured_wall - (captured_prof - t), in signed 64 bits */
	if (t > INT64_MAX)
		return INT64_MAX;
	return r->info.captured_wall_ns - ((int64_t)r->info.captured_prof_ns - (int64_t)t);
}

int
ying_recent_get(ying_recent_record *out, const ying_recent *r, size_t i)
{
	const yi_recent_rec *rec;
	const yi_strtab *st;

	yi_error_clear();
	if (r == NULL || out == NULL)
		return yi_error(YING_EINVAL, "ying_recent_get: NULL argument");
	if (i >= r->recs.n)
		return yi_error(YING_EINVAL, "ying_recent_get: record %zu of %zu", i, r->recs.n);
	rec = &r->recs.v[i];
	st = &r->prof->strs;
	memset(out, 0, sizeof(*out));
	out->size = rec->size;
	out->usize = rec->usize;
	out->released = rec->released;
	out->alloc_thread = rec->athr;
	out->alloc_thread_name = yi_strtab_get(st, rec->aname);
	out->free_thread = rec->fthr;
	out->free_thread_name = yi_strtab_get(st, rec->fname);
	out->alloc_ns = rec->ans;
	out->free_ns = rec->released ? rec->fns : 0;
	out->alloc_stack = rec->astack;
	out->free_stack = rec->released ? rec->fstack : -1;
	if (r->info.has_wall) {
		out->alloc_wall_ns = to_wall(r, rec->ans);
		if (rec->released)
			out->free_wall_ns = to_wall(r, rec->fns);
	}
	return 0;
}

ying_profile *
ying_recent_profile(ying_recent *r)
{
	return r ? r->prof : NULL;
}
