/*
 * read_giant.c: "ying-giant/1" JSON (the giant-allocation listing of
 * GET /debug/heap/giant and the growth runner's giant.json, written by
 * live_giant.c) -> a ying_giant: the records, and a ying_profile with one
 * stack per call site.
 *
 * The JSON is parsed whole by read_json.c (the project's one JSON reader:
 * strict, bounded nesting, errors naming NAME:LINE:COLUMN); the tree is
 * then walked here, member by member, unknown keys ignored, every value
 * checked for its type and range with an error naming where it is and what
 * was expected.  The profile is made with the model's constructor
 * (yi_profile_new_heap, period 1, one yi_profile_add_pcs per call site: what
 * the heap_v2 reader makes of '@' lines) and the reader's MAPPED_LIBRARIES
 * parser (yi_heap_parse_maps, on the listing's maps and build-id lines), so
 * mappings, build IDs and the symbolizer's file checks work exactly as for
 * a dump ying took.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read.h"

#define GJ_MAX_FRAMES 256         /* addresses per call site */
#define GJ_MAX_INPUT ((size_t)1 << 30)

typedef struct gj_site {
	uint64_t count, bytes;
	YI_VEC(uint64_t) pcs;
} gj_site;

typedef struct gj_rec {
	int64_t time_ns;
	uint64_t size, thread, seq;
	uint64_t site;
	char *kind;
} gj_rec;

struct ying_giant {
	uint64_t threshold, allocations, dropped;
	long pid;
	int64_t time_ns;
	YI_VEC(gj_site) sites;
	YI_VEC(gj_rec) recs;
	char *maps;
	ying_profile *prof;
};

typedef struct gj {
	const yi_json *j;
} gj;

/* An error at node n: NAME:LINE:COLUMN: what. */
#define gj_err(g, n, ...) yi_json_error((g)->j, (n)->off, __VA_ARGS__)

/* A number node that must be an integer in [lo, hi]. */
static int
gj_int(const gj *g, const yi_jnode *n, const char *key, int64_t lo, uint64_t hi,
    uint64_t *uv, int64_t *sv)
{
	const char *s;
	bool neg;
	uint64_t v = 0;

	if (n->type != YI_JNUM)
		return gj_err(g, n, "expected an integer for \"%s\"", key);
	s = yi_json_str(g->j, n);
	if ((neg = *s == '-'))
		s++;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return gj_err(g, n, "\"%s\" is out of range", key);
		v = v * 10 + d;
	}
	if (*s != '\0')
		return gj_err(g, n, "expected an integer for \"%s\"", key);
	if ((neg && (lo >= 0 || v > (uint64_t)INT64_MAX)) || (!neg && v > hi))
		return gj_err(g, n, "\"%s\" is out of range", key);
	if (uv)
		*uv = v;
	if (sv)
		*sv = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int
gj_u64(const gj *g, const yi_jnode *n, const char *key, uint64_t *v)
{
	return gj_int(g, n, key, 0, UINT64_MAX, v, NULL);
}

/* A string node's copy into *out (yi_malloc'd, the caller frees; any old
 * *out is freed first). */
static int
gj_string(const gj *g, const yi_jnode *n, const char *key, char **out)
{
	if (n->type != YI_JSTR)
		return gj_err(g, n, "expected a string for \"%s\"", key);
	yi_free(*out);
	if ((*out = yi_strdup(yi_json_str(g->j, n))) == NULL)
		return yi_oom("reading giant records");
	return 0;
}

static int
gj_array(const gj *g, const yi_jnode *n, const char *key)
{
	if (n->type != YI_JARR)
		return gj_err(g, n, "expected an array for \"%s\"", key);
	return 0;
}

static int
gj_object(const gj *g, const yi_jnode *n, const char *what)
{
	if (n->type != YI_JOBJ)
		return gj_err(g, n, "expected an object for %s", what);
	return 0;
}

/* "sites" and "records": an array, once (a second one is an error, not
 * silently one of the two). */
static int
gj_list(const gj *g, const yi_jnode *n, const char *key, bool *seen)
{
	if (*seen)
		return gj_err(g, n, "second \"%s\"", key);
	*seen = true;
	return gj_array(g, n, key);
}

static const char *
gj_key(const gj *g, const yi_jnode *member)
{
	return g->j->strs.v + member->key;
}

/* ---- the format's members ------------------------------------------------ */

static int
stack_addr(const gj *g, const yi_jnode *n, gj_site *s)
{
	const char *a;
	char *end;
	int rc;

	if (s->pcs.n >= GJ_MAX_FRAMES)
		return gj_err(g, n, "more than %d addresses in a stack", GJ_MAX_FRAMES);
	if (n->type != YI_JSTR)
		return gj_err(g, n, "expected an address \"0x...\" in \"stack\"");
	a = yi_json_str(g->j, n);
	if (strncmp(a, "0x", 2) != 0 || a[2] == '\0' || !isxdigit((unsigned char)a[2]))
		return gj_err(g, n, "expected an address \"0x...\" in \"stack\"");
	if ((rc = yi_vec_grow(&s->pcs, 1)) != 0)
		return rc;
	errno = 0;
	s->pcs.v[s->pcs.n] = strtoull(a + 2, &end, 16);
	if (*end != '\0' || errno != 0)
		return gj_err(g, n, "expected an address \"0x...\" in \"stack\"");
	s->pcs.n++;
	return 0;
}

static int
read_site(const gj *g, const yi_jnode *obj, gj_site *s)
{
	int rc = gj_object(g, obj, "a site");

	for (const yi_jnode *m = yi_json_first(g->j, obj); rc == 0 && m;
	    m = yi_json_next(g->j, m)) {
		const char *key = gj_key(g, m);
		uint64_t v;

		if (strcmp(key, "count") == 0) {
			rc = gj_u64(g, m, key, &s->count);
		} else if (strcmp(key, "bytes") == 0) {
			rc = gj_u64(g, m, key, &s->bytes);
		} else if (strcmp(key, "site") == 0) {
			rc = gj_u64(g, m, key, &v);
		} else if (strcmp(key, "stack") == 0) {
			if ((rc = gj_array(g, m, key)) != 0)
				break;
			for (const yi_jnode *a = yi_json_first(g->j, m); rc == 0 && a;
			    a = yi_json_next(g->j, a))
				rc = stack_addr(g, a, s);
		}
	}
	return rc;
}

static int
read_rec(const gj *g, const yi_jnode *obj, gj_rec *r)
{
	int rc = gj_object(g, obj, "a record");

	r->site = UINT64_MAX;
	for (const yi_jnode *m = yi_json_first(g->j, obj); rc == 0 && m;
	    m = yi_json_next(g->j, m)) {
		const char *key = gj_key(g, m);

		if (strcmp(key, "time_ns") == 0)
			rc = gj_int(g, m, key, INT64_MIN, INT64_MAX, NULL, &r->time_ns);
		else if (strcmp(key, "size") == 0)
			rc = gj_u64(g, m, key, &r->size);
		else if (strcmp(key, "thread") == 0)
			rc = gj_u64(g, m, key, &r->thread);
		else if (strcmp(key, "seq") == 0)
			rc = gj_u64(g, m, key, &r->seq);
		else if (strcmp(key, "site") == 0)
			rc = gj_u64(g, m, key, &r->site);
		else if (strcmp(key, "kind") == 0)
			rc = gj_string(g, m, key, &r->kind);
	}
	if (rc == 0 && r->site == UINT64_MAX)
		rc = gj_err(g, obj, "record without \"site\"");
	return rc;
}

/* The top-level object's members, in order. */
static int
read_top(const gj *g, const yi_jnode *root, ying_giant *out, bool *format_ok,
    bool *have_sites, bool *have_recs)
{
	int rc = 0;

	if (root->type != YI_JOBJ)
		return gj_err(g, root, "expected a \"ying-giant/1\" JSON object");
	for (const yi_jnode *m = yi_json_first(g->j, root); rc == 0 && m;
	    m = yi_json_next(g->j, m)) {
		const char *key = gj_key(g, m);
		uint64_t v;

		if (strcmp(key, "format") == 0) {
			*format_ok = m->type == YI_JSTR &&
			    strcmp(yi_json_str(g->j, m), "ying-giant/1") == 0;
			if (!*format_ok)
				rc = gj_err(g, m, "\"format\" is not \"ying-giant/1\"");
		} else if (strcmp(key, "threshold") == 0) {
			rc = gj_u64(g, m, key, &out->threshold);
		} else if (strcmp(key, "allocations") == 0) {
			rc = gj_u64(g, m, key, &out->allocations);
		} else if (strcmp(key, "dropped") == 0) {
			rc = gj_u64(g, m, key, &out->dropped);
		} else if (strcmp(key, "pid") == 0) {
			if ((rc = gj_int(g, m, key, 0, INT32_MAX, &v, NULL)) == 0)
				out->pid = (long)v;
		} else if (strcmp(key, "time_ns") == 0) {
			rc = gj_int(g, m, key, INT64_MIN, INT64_MAX, NULL, &out->time_ns);
		} else if (strcmp(key, "maps") == 0) {
			rc = gj_string(g, m, key, &out->maps);
		} else if (strcmp(key, "sites") == 0) {
			if ((rc = gj_list(g, m, key, have_sites)) != 0 ||
			    (rc = yi_vec_grow(&out->sites, m->count)) != 0)
				break;
			for (const yi_jnode *e = yi_json_first(g->j, m); rc == 0 && e;
			    e = yi_json_next(g->j, e)) {
				gj_site *s = &out->sites.v[out->sites.n++];
				memset(s, 0, sizeof(*s));
				rc = read_site(g, e, s);
			}
		} else if (strcmp(key, "records") == 0) {
			if ((rc = gj_list(g, m, key, have_recs)) != 0 ||
			    (rc = yi_vec_grow(&out->recs, m->count)) != 0)
				break;
			for (const yi_jnode *e = yi_json_first(g->j, m); rc == 0 && e;
			    e = yi_json_next(g->j, e)) {
				gj_rec *r = &out->recs.v[out->recs.n++];
				memset(r, 0, sizeof(*r));
				rc = read_rec(g, e, r);
			}
		}
	}
	return rc;
}

/* ---- the profile ----------------------------------------------------------- */

/* The call sites (one stack each) and the maps, through the model's
 * constructor and the heap_v2 reader's MAPPED_LIBRARIES parser. */
static int
make_profile(ying_giant *g, const char *name)
{
	yi_counts tot = { 0, 0, 0, 0 };
	char label[300];
	int rc;

	for (size_t i = 0; i < g->sites.n; i++) {
		tot.objs += g->sites.v[i].count;
		tot.bytes += g->sites.v[i].bytes;
	}
	if ((rc = yi_profile_new_heap(&g->prof, name, 1, &tot)) != 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < g->sites.n; i++) {
		const gj_site *s = &g->sites.v[i];
		yi_counts c = { s->count, s->bytes, 0, 0 };
		rc = yi_profile_add_pcs(g->prof, s->pcs.v, s->pcs.n, &c);
	}
	snprintf(label, sizeof(label), "%s: \"maps\"", name);
	if (rc == 0)
		rc = yi_heap_parse_maps(g->prof, g->maps ? g->maps : "",
		    g->maps ? strlen(g->maps) : 0, label);
	if (rc != 0) {
		ying_profile_free(g->prof);
		g->prof = NULL;
		return rc;
	}
	if (g->time_ns != 0)
		g->prof->time = g->time_ns / 1000000000;
	return 0;
}

int
ying_giant_read_mem(ying_giant **out, const void *data, size_t len,
    const char *name)
{
	ying_giant *g;
	yi_json j;
	gj r;
	bool format_ok = false, have_sites = false, have_recs = false;
	size_t budget;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_giant_read_mem: out is NULL");
	*out = NULL;
	if (data == NULL && len > 0)
		return yi_error(YING_EINVAL, "ying_giant_read_mem: data is NULL");
	if (name == NULL)
		name = "<giant json>";
	if ((rc = yi_read_budget(&budget)) != 0)
		return rc;
	if (len == 0)
		return yi_error(YING_EPARSE, "%s:1:1: empty input, expected a "
		    "\"ying-giant/1\" JSON object", name);
	if ((g = yi_calloc(1, sizeof(*g))) == NULL)
		return yi_oom("reading giant records");
	r.j = &j;
	if ((rc = yi_json_parse(&j, data, len, name, budget)) == 0 &&
	    (rc = read_top(&r, yi_json_root(&j), g, &format_ok, &have_sites,
	    &have_recs)) == 0) {
		if (!format_ok)
			rc = yi_error(YING_EPARSE, "%s: no \"format\":\"ying-giant/1\": not "
			    "a giant-allocation listing", name);
		else if (!have_sites || !have_recs)
			rc = yi_error(YING_EPARSE, "%s: no \"%s\" array", name,
			    have_sites ? "records" : "sites");
	}
	yi_json_release(&j);
	for (size_t i = 0; rc == 0 && i < g->recs.n; i++)
		if (g->recs.v[i].site >= g->sites.n)
			rc = yi_error(YING_EPARSE, "%s: record %zu names site %" PRIu64
			    " of %zu", name, i, g->recs.v[i].site, g->sites.n);
	if (rc == 0)
		rc = make_profile(g, name);
	if (rc != 0) {
		ying_giant_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int
ying_giant_read_file(ying_giant **out, const char *path)
{
	YI_VEC(char) b = { NULL, 0, 0 };
	int fd, rc = 0;
	bool std = path && strcmp(path, "-") == 0;

	yi_error_clear();
	if (out)
		*out = NULL;
	if (out == NULL || path == NULL)
		return yi_error(YING_EINVAL, "ying_giant_read_file: NULL argument");
	if (std)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return yi_error(errno == ENOENT ? YING_ENOTFOUND : YING_EIO,
		    "cannot open %s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r;
		if (b.n >= GJ_MAX_INPUT) {
			rc = yi_error(YING_ELIMIT, "%s: more than 1 GiB", path);
			break;
		}
		if ((rc = yi_vec_grow(&b, 65536)) != 0)
			break;
		r = read(fd, b.v + b.n, b.cap - b.n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = yi_error(YING_EIO, "cannot read %s: %s", path, strerror(errno));
			break;
		}
		if (r == 0)
			break;
		b.n += (size_t)r;
	}
	if (!std)
		close(fd);
	if (rc == 0)
		rc = ying_giant_read_mem(out, b.v, b.n, std ? "<stdin>" : path);
	yi_vec_free(&b);
	return rc;
}

void
ying_giant_free(ying_giant *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->recs.n; i++)
		yi_free(g->recs.v[i].kind);
	yi_vec_free(&g->recs);
	for (size_t i = 0; i < g->sites.n; i++)
		yi_vec_free(&g->sites.v[i].pcs);
	yi_vec_free(&g->sites);
	yi_free(g->maps);
	ying_profile_free(g->prof);
	yi_free(g);
}

int
ying_giant_info_get(ying_giant_info *out, const ying_giant *g)
{
	yi_error_clear();
	if (out == NULL || g == NULL) {
		if (out != NULL)
			memset(out, 0, sizeof(*out));
		return yi_error(YING_EINVAL, "ying_giant_info_get: %s is NULL",
		    out == NULL ? "out" : "g");
	}
	out->threshold = g->threshold;
	out->pid = g->pid;
	out->time_ns = g->time_ns;
	out->allocations = g->allocations;
	out->dropped = g->dropped;
	return 0;
}

size_t
ying_giant_count(const ying_giant *g)
{
	return g ? g->recs.n : 0;
}

int
ying_giant_get(ying_giant_record *out, const ying_giant *g, size_t i)
{
	const gj_rec *r;

	if (g == NULL || out == NULL || i >= g->recs.n)
		return yi_error(YING_EINVAL, "ying_giant_get: no record %zu", i);
	r = &g->recs.v[i];
	out->time_ns = r->time_ns;
	out->size = r->size;
	out->thread = r->thread;
	out->stack = (size_t)r->site;
	out->repeats = g->sites.v[r->site].count;
	out->seq = r->seq;
	out->kind = r->kind ? r->kind : "";
	return 0;
}

ying_profile *
ying_giant_profile(ying_giant *g)
{
	return g ? g->prof : NULL;
}
