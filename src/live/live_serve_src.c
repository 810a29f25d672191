/*
 * live_serve_src.c: the files behind `ying serve` (live_serve.h): a report
 * directory, dump files or a live endpoint's fetched dumps, as entries by
 * time, each dump read once for its totals (the history's heap columns)
 * and each .report file for what its text says (pid, program, RSS).  Only
 * the totals stay in memory: a profile is parsed again when a request
 * asks for it, and the last YI_SERVE_CACHE parsed and symbolized ones are
 * kept (shared by the requests that hold them, reference counted).  A
 * directory is listed again when its modification time changes (a runner
 * still writing to it): new files are read, vanished ones forgotten, and
 * a file that is not a dump is named once on the warning stream.  The
 * URL fetcher is in live_serve_fetch.c.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live_serve.h"
#include "live_serve_int.h"

#define REPORT_MAX_BYTES (4 << 20)     /* a .report read for its facts */

/* ---- entries -------------------------------------------------------------------- */

void
yi_serve_entry_free(yi_serve_entry *e)
{
	yi_free(e->name);
	yi_free(e->path);
	yi_free(e->data);
	memset(e, 0, sizeof(*e));
}

static int
entry_cmp(const void *x, const void *y)
{
	const yi_serve_entry *a = x, *b = y;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The source's id of heap `name` (added when new); -1 past the columns. */
static int
heap_id(yi_serve *s, const char *name)
{
	for (size_t i = 0; i < s->nheaps; i++)
		if (strcmp(s->heaps[i], name) == 0)
			return (int)i;
	if (s->nheaps == YI_SERVE_MAX_HEAPS || (s->heaps[s->nheaps] = yi_strdup(name)) == NULL)
		return -1;
	return (int)s->nheaps++;
}

/* A dump's totals into e from p (unsymbolized). */
void
yi_serve_entry_totals(yi_serve *s, yi_serve_entry *e, const ying_profile *p)
{
	size_t nh = ying_profile_heap_count(p);
	const char *prog = ying_profile_program(p);
	const char *b = prog ? strrchr(prog, '/') : NULL;

	for (size_t i = 0; i < YI_SERVE_MAX_HEAPS; i++)
		e->heap[i] = NAN;
	if (ying_profile_total(&e->total, p, YING_INUSE_SPACE) != 0) {
		yi_error_clear();
		e->total = 0;
	}
	if (nh == 0) {
		int id = heap_id(s, YI_SERVE_HEAP_DEFAULT);
		if (id >= 0)
			e->heap[id] = e->total;
	}
	for (size_t i = 0; i < nh; i++) {
		int id = heap_id(s, ying_profile_heap_name(p, i));
		if (id >= 0)
			e->heap[id] = ying_profile_heap_total(p, i, YING_INUSE_SPACE);
	}
	snprintf(e->program, sizeof(e->program), "%s", b ? b + 1 : prog ? prog : "");
}

/* The number after `key` on a line of text ("pid        42"), or NAN. */
static double
line_num(const char *text, const char *key)
{
	const char *p = text;
	size_t kl = strlen(key);

	while ((p = strstr(p, key)) != NULL) {
		if (p == text || p[-1] == '\n') {
			char *end;
			double v = strtod(p + kl, &end);
			if (end != p + kl)
				return v;
		}
		p += kl;
	}
	return NAN;
}

/* What a .report says: pid, program, the RSS ("RSS 12 MiB (12582912
 * bytes)" of its memory section). */
static void
report_facts(yi_serve_entry *e, const char *text)
{
	const char *m = strstr(text, "memory of pid ");
	const char *r = m ? strstr(m, ": RSS ") : NULL;
	const char *pg = strstr(text, "\nprogram    ");
	double pid = line_num(text, "pid        ");

	e->rss = e->limit = NAN;
	e->pid = isfinite(pid) && pid > 0 ? (long)pid : -1;
	if (r != NULL) {
		const char *o = strchr(r, '(');
		const char *nl = strchr(r, '\n');
		if (o != NULL && (nl == NULL || o < nl)) {
			char *end;
			double v = strtod(o + 1, &end);
			if (end != o + 1 && strncmp(end, " bytes)", 7) == 0)
				e->rss = v;
		}
	}
	if (pg != NULL) {
		size_t n = strcspn(pg + 12, " \n");
		const char *b = pg + 12;
		for (size_t i = 0; i < n; i++)
			if (pg[12 + i] == '/')
				b = pg + 12 + i + 1;
		n -= (size_t)(b - (pg + 12));
		snprintf(e->program, sizeof(e->program), "%.*s", (int)n, b);
	}
}

/* Read a file whole (at most max bytes): *out yi_malloc'd, NUL-terminated. */
static int
slurp(const char *path, size_t max, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n = 0, cap = 1 << 16;

	*out = NULL;
	if (f == NULL)
		return yi_error(YING_EIO, "%s: %s", path, strerror(errno));
	if ((buf = yi_malloc(cap + 1)) == NULL) {
		fclose(f);
		return yi_oom("reading a file");
	}
	for (;;) {
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (n < cap)
			break;
		if (cap >= max) {
			fclose(f);
			yi_free(buf);
			return yi_error(YING_ELIMIT, "%s: larger than %zu bytes", path, max);
		}
		char *nb = yi_realloc(buf, 2 * cap + 1);
		if (nb == NULL) {
			fclose(f);
			yi_free(buf);
			return yi_oom("reading a file");
		}
		buf = nb;
		cap *= 2;
	}
	if (ferror(f)) {
		fclose(f);
		yi_free(buf);
		return yi_error(YING_EIO, "%s: %s", path, strerror(errno));
	}
	fclose(f);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Read path (a dump, or a report when `report`) into a new entry e. */
static int
entry_read(yi_serve *s, yi_serve_entry *e, const char *path, const char *name,
    const struct stat *sb, bool report)
{
	ying_profile *p = NULL;
	int rc;

	memset(e, 0, sizeof(*e));
	e->t = (double)sb->st_mtim.tv_sec + (double)sb->st_mtim.tv_nsec / 1e9;
	e->len = (size_t)sb->st_size;
	e->report = report;
	e->pid = -1;
	e->rss = e->limit = NAN;
	if (report) {
		char *text;
		size_t n;
		if ((rc = slurp(path, REPORT_MAX_BYTES, &text, &n)) != 0)
			return rc;
		report_facts(e, text);
		yi_free(text);
	} else {
		if ((rc = ying_profile_read_file(&p, path)) != 0)
			return rc;
		yi_serve_entry_totals(s, e, p);
		ying_profile_free(p);
	}
	e->name = yi_strdup(name);
	e->path = yi_strdup(path);
	if (e->name == NULL || e->path == NULL) {
		yi_serve_entry_free(e);
		return yi_oom("listing the dumps");
	}
	{
		size_t bl = 0;
		if (yi_report_parse_name(name, &bl))
			e->base_len = bl;
	}
	return 0;
}

/* ---- the directory ---------------------------------------------------------------- */

static bool
skipped_known(yi_serve *s, const char *name, const struct stat *sb)
{
	for (size_t i = 0; i < s->skipped.n; i++)
		if (strcmp(s->skipped.v[i].name, name) == 0 &&
		    s->skipped.v[i].size == sb->st_size &&
		    s->skipped.v[i].mtime == sb->st_mtim.tv_sec)
			return true;
	return false;
}

static void
skipped_add(yi_serve *s, const char *name, const struct stat *sb)
{
	char *n = yi_strdup(name);

	if (n == NULL || yi_vec_grow(&s->skipped, 1) != 0) {
		yi_free(n);
		return;
	}
	s->skipped.v[s->skipped.n].name = n;
	s->skipped.v[s->skipped.n].size = sb->st_size;
	s->skipped.v[s->skipped.n++].mtime = sb->st_mtim.tv_sec;
}

/* The old entry of this name when the file has not changed, or NULL. */
static yi_serve_entry *
old_entry(yi_serve *s, const char *name, const struct stat *sb)
{
	double t = (double)sb->st_mtim.tv_sec + (double)sb->st_mtim.tv_nsec / 1e9;

	for (size_t i = 0; i < s->ents.n; i++)
		if (s->ents.v[i].name && strcmp(s->ents.v[i].name, name) == 0 &&
		    s->ents.v[i].t == t && s->ents.v[i].len == (size_t)sb->st_size)
			return &s->ents.v[i];
	return NULL;
}

/* List the directory again into s->ents (lock held).  Files are read
 * under the lock: a refresh is rare (the directory changed) and short. */
static int
dir_scan(yi_serve *s)
{
	DIR *d;
	struct dirent *de;
	YI_VEC(yi_serve_entry) nv = { NULL, 0, 0 };
	size_t scanned = 0;
	int rc = 0;

	if ((d = opendir(s->dir)) == NULL)
		return yi_error(YING_EIO, "%s: cannot open the directory: %s", s->dir,
		    strerror(errno));
	while ((de = readdir(d)) != NULL && scanned++ < YI_SERVE_MAX_FILES) {
		const char *nm = de->d_name;
		size_t nl = strlen(nm), bl = 0;
		bool set, report;
		char *path;
		struct stat sb;
		yi_serve_entry *old, e;

		if (nm[0] == '.')
			continue;
		set = yi_report_parse_name(nm, &bl) != 0;
		report = set && strcmp(nm + bl, ".report") == 0;
		/* the other files of a report set are the same dump again */
		if (set && !report && strcmp(nm + bl, ".heap") != 0)
			continue;
		if ((path = yi_malloc(strlen(s->dir) + nl + 2)) == NULL) {
			rc = yi_oom("listing the dumps");
			break;
		}
		sprintf(path, "%s/%s", s->dir, nm);
		if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || skipped_known(s, nm, &sb)) {
			yi_free(path);
			continue;
		}
		if (yi_vec_grow(&nv, 1) != 0) {
			yi_free(path);
			rc = yi_oom("listing the dumps");
			break;
		}
		if ((old = old_entry(s, nm, &sb)) != NULL) {
			nv.v[nv.n++] = *old;
			memset(old, 0, sizeof(*old));
		} else if (entry_read(s, &e, path, nm, &sb, report) == 0) {
			nv.v[nv.n++] = e;
		} else {
			const char *why = ying_last_error();
			if (s->warn && strncmp(why, path, strlen(path)) == 0)
				fprintf(s->warn, "ying serve: %s (skipped: not a heap dump)\n", why);
			else if (s->warn)
				fprintf(s->warn, "ying serve: %s: %s (skipped: not a heap dump)\n",
				    path, why);
			yi_error_clear();
			skipped_add(s, nm, &sb);
		}
		yi_free(path);
	}
	closedir(d);
	if (rc != 0) {
		for (size_t i = 0; i < nv.n; i++)
			yi_serve_entry_free(&nv.v[i]);
		yi_vec_free(&nv);
		return rc;
	}
	for (size_t i = 0; i < s->ents.n; i++)
		yi_serve_entry_free(&s->ents.v[i]);
	yi_vec_free(&s->ents);
	if (nv.n > 1)
		qsort(nv.v, nv.n, sizeof(*nv.v), entry_cmp);
	s->ents.v = nv.v;
	s->ents.n = nv.n;
	s->ents.cap = nv.cap;
	s->generation++;
	return 0;
}

static bool
dir_changed(yi_serve *s, struct timespec *now)
{
	struct stat sb;

	if (stat(s->dir, &sb) != 0)
		return false;
	*now = sb.st_mtim;
	/* a change in the second of the last listing may not move a coarse
	 * mtime: list again until that second is over */
	return sb.st_mtim.tv_sec != s->dir_mtime.tv_sec ||
	    sb.st_mtim.tv_nsec != s->dir_mtime.tv_nsec ||
	    (int64_t)time(NULL) <= (int64_t)s->dir_mtime.tv_sec + 1;
}

void
yi_serve_refresh(yi_serve *s)
{
	struct timespec m;

	if (s->dir == NULL)     /* files given by name; a URL's thread adds its own */
		return;
	pthread_mutex_lock(&s->mtx);
	if (dir_changed(s, &m) && dir_scan(s) == 0)
		s->dir_mtime = m;
	yi_error_clear();
	pthread_mutex_unlock(&s->mtx);
}

/* ---- new / free --------------------------------------------------------------------- */

static int
add_file(yi_serve *s, const char *path)
{
	struct stat sb;
	const char *b = strrchr(path, '/');
	char name[512];
	yi_serve_entry e;
	int rc;

	if (stat(path, &sb) != 0)
		return yi_error(YING_EIO, "%s: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return yi_error(YING_EINVAL, "%s: not a regular file (a directory is "
		    "served alone: ying serve DIR)", path);
	snprintf(name, sizeof(name), "%s", b ? b + 1 : path);
	for (size_t i = 0; i < s->ents.n; i++)
		if (strcmp(s->ents.v[i].name, name) == 0)   /* the same name twice */
			snprintf(name, sizeof(name), "%s", path);
	if ((rc = entry_read(s, &e, path, name, &sb, false)) != 0) {
		const char *why = ying_last_error();
		/* the reader's detail names the file already */
		if (strstr(why, path) == NULL)
			return yi_error(rc, "%s: not a heap dump: %s", path, why);
		return rc;
	}
	if (yi_vec_grow(&s->ents, 1) != 0) {
		yi_serve_entry_free(&e);
		return yi_oom("listing the dumps");
	}
	s->ents.v[s->ents.n++] = e;
	return 0;
}

int
yi_serve_new(yi_serve **out, const char *const *inputs, size_t n,
    const ying_serve_opts *opts)
{
	yi_serve *s;
	struct stat sb;
	size_t k;
	int rc = 0;

	*out = NULL;
	if (n == 0 || inputs == NULL)
		return yi_error(YING_EINVAL, "ying serve: no input (a directory, dumps or a URL)");
	if ((s = yi_calloc(1, sizeof(*s))) == NULL)
		return yi_oom("starting ying serve");
	pthread_mutex_init(&s->mtx, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->warn = opts ? opts->warn : NULL;
	if ((s->what = yi_strdup(inputs[0])) == NULL) {
		yi_serve_free(s);
		return yi_oom("starting ying serve");
	}
	if (yi_serve_is_url(inputs[0])) {
		if (n != 1)
			rc = yi_error(YING_EINVAL, "ying serve: a URL is the only input, not "
			    "one of several");
		else
			rc = yi_serve_fetch_start(s, inputs[0], opts);
	} else if (stat(inputs[0], &sb) == 0 && S_ISDIR(sb.st_mode)) {
		if (n != 1)
			rc = yi_error(YING_EINVAL, "%s: a directory is the only input, not one "
			    "of several", inputs[0]);
		else if ((s->dir = yi_strdup(inputs[0])) == NULL)
			rc = yi_oom("starting ying serve");
		else if ((rc = dir_scan(s)) == 0)
			s->dir_mtime = sb.st_mtim;
		if (rc == 0 && s->ents.n == 0)
			rc = yi_error(YING_ENODATA, "%s: no heap dumps (a report directory of "
			    "`ying run --report-dir` holds ying.TIME.SIZE.heap files)", inputs[0]);
	} else {
		for (k = 0; k < n && rc == 0; k++)
			rc = add_file(s, inputs[k]);
		if (rc == 0)
			qsort(s->ents.v, s->ents.n, sizeof(*s->ents.v), entry_cmp);
	}
	if (rc != 0) {
		yi_serve_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void
yi_serve_free(yi_serve *s)
{
	if (s == NULL)
		return;
	yi_serve_fetch_stop(s);
	for (size_t i = 0; i < YI_SERVE_CACHE; i++) {
		ying_profile_free(s->cache[i].p);
		yi_free(s->cache[i].name);
	}
	for (size_t i = 0; i < s->ents.n; i++)
		yi_serve_entry_free(&s->ents.v[i]);
	yi_vec_free(&s->ents);
	for (size_t i = 0; i < s->skipped.n; i++)
		yi_free(s->skipped.v[i].name);
	yi_vec_free(&s->skipped);
	for (size_t i = 0; i < s->nheaps; i++)
		yi_free(s->heaps[i]);
	yi_free(s->dir);
	yi_free(s->what);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mtx);
	yi_free(s);
}

/* ---- accessors ---------------------------------------------------------------------- */

void yi_serve_lock(yi_serve *s) { pthread_mutex_lock(&s->mtx); }
void yi_serve_unlock(yi_serve *s) { pthread_mutex_unlock(&s->mtx); }

const yi_serve_entry *
yi_serve_entries(yi_serve *s, size_t *n)
{
	*n = s->ents.n;
	return s->ents.v;
}

const char *
yi_serve_heap_name(yi_serve *s, size_t id)
{
	return id < s->nheaps ? s->heaps[id] : NULL;
}

size_t
yi_serve_nheaps(yi_serve *s)
{
	return s->nheaps;
}

const char *
yi_serve_what(yi_serve *s)
{
	return s->what;
}

/* Lock held: the newest report's pid / program, else the newest dump's. */
long
yi_serve_pid(yi_serve *s)
{
	for (size_t i = s->ents.n; i-- > 0;)
		if (s->ents.v[i].report && s->ents.v[i].pid > 0)
			return s->ents.v[i].pid;
	return -1;
}

const char *
yi_serve_program(yi_serve *s)
{
	for (size_t i = s->ents.n; i-- > 0;)
		if (s->ents.v[i].program[0])
			return s->ents.v[i].program;
	return "";
}

size_t
yi_serve_ndumps(yi_serve *s, char *newest, size_t n)
{
	size_t k = 0;

	if (n)
		newest[0] = '\0';
	for (size_t i = 0; i < s->ents.n; i++)
		if (!s->ents.v[i].report) {
			k++;
			if (n)
				snprintf(newest, n, "%s", s->ents.v[i].name);
		}
	return k;
}

/* A file name asked for in a query: a '+' of the name may come as ' '
 * (a query's '+' decodes as a space; report names have "+01:00"). */
static bool
name_eq(const char *file, const char *asked)
{
	for (; *file && *asked; file++, asked++)
		if (*file != *asked && !(*file == '+' && *asked == ' '))
			return false;
	return *file == *asked;
}

/* Lock held: the dump named name (NULL: the newest), or NULL. */
static const yi_serve_entry *
find_dump(yi_serve *s, const char *name)
{
	for (size_t i = s->ents.n; i-- > 0;) {
		const yi_serve_entry *e = &s->ents.v[i];
		if (!e->report && (name == NULL || name_eq(e->name, name)))
			return e;
	}
	return NULL;
}

static int
not_found(yi_serve *s, const char *name)
{
	if (name == NULL)
		return yi_error(YING_ENOTFOUND, "no dumps in %s", s->what);
	return yi_error(YING_ENOTFOUND, "no dump named %s (GET /debug/heap/snapshot "
	    "lists them)", name);
}

/* ---- profiles ------------------------------------------------------------------------- */

/* Read the bytes of e (lock held; the copy is the caller's). */
static int
entry_bytes(const yi_serve_entry *e, char **data, size_t *len)
{
	if (e->data != NULL) {
		if ((*data = yi_malloc(e->len + 1)) == NULL)
			return yi_oom("copying a dump");
		memcpy(*data, e->data, e->len);
		(*data)[e->len] = '\0';
		*len = e->len;
		return 0;
	}
	return slurp(e->path, (size_t)1 << 32, data, len);
}

int
yi_serve_raw(yi_serve *s, const char *name, char **data, size_t *len)
{
	const yi_serve_entry *e;
	int rc;

	pthread_mutex_lock(&s->mtx);
	if ((e = find_dump(s, name)) == NULL)
		rc = not_found(s, name);
	else
		rc = entry_bytes(e, data, len);
	pthread_mutex_unlock(&s->mtx);
	return rc;
}

/* Read and symbolize the dump e names (its bytes copied under the lock). */
static int
load(yi_serve *s, const char *name, ying_symbolizer *sym, const char *frames,
    ying_profile **out, double *t, char **cname)
{
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;
	const yi_serve_entry *e;
	char *data = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	pthread_mutex_lock(&s->mtx);
	if ((e = find_dump(s, name)) == NULL) {
		rc = not_found(s, name);
	} else {
		*t = e->t;
		rc = entry_bytes(e, &data, &len);
		if (rc == 0 && (*cname = yi_strdup(e->name)) == NULL)
			rc = yi_oom("reading a dump");
	}
	pthread_mutex_unlock(&s->mtx);
	if (rc != 0) {
		yi_free(data);
		return rc;
	}
	so.frames = frames;
	rc = ying_profile_read_mem(out, data, len, *cname);
	yi_free(data);
	if (rc == 0 && (rc = ying_profile_symbolize(*out, sym, &so)) != 0) {
		ying_profile_free(*out);
		*out = NULL;
	}
	if (rc != 0) {
		yi_free(*cname);
		*cname = NULL;
	}
	return rc;
}

int
yi_serve_get(yi_serve *s, const char *name, ying_symbolizer *sym,
    const char *frames, const ying_profile **out)
{
	ying_profile *p;
	const yi_serve_entry *e;
	char *cname = NULL;
	double t = 0;
	size_t i, slot = YI_SERVE_CACHE;
	int rc;

	*out = NULL;
	pthread_mutex_lock(&s->mtx);
	e = find_dump(s, name);
	for (i = 0; e != NULL && i < YI_SERVE_CACHE; i++)
		if (s->cache[i].p && s->cache[i].t == e->t &&
		    strcmp(s->cache[i].name, e->name) == 0) {
			s->cache[i].refs++;
			s->cache[i].used = ++s->clock;
			*out = s->cache[i].p;
			pthread_mutex_unlock(&s->mtx);
			return 0;
		}
	pthread_mutex_unlock(&s->mtx);
	if ((rc = load(s, name, sym, frames, &p, &t, &cname)) != 0)
		return rc;
	pthread_mutex_lock(&s->mtx);
	/* the least recently used slot no request holds */
	for (i = 0; i < YI_SERVE_CACHE; i++)
		if (s->cache[i].refs == 0 && (slot == YI_SERVE_CACHE ||
		    s->cache[i].used < s->cache[slot].used))
			slot = i;
	if (slot < YI_SERVE_CACHE) {
		ying_profile_free(s->cache[slot].p);
		yi_free(s->cache[slot].name);
		s->cache[slot].p = p;
		s->cache[slot].name = cname;
		s->cache[slot].t = t;
		s->cache[slot].refs = 1;
		s->cache[slot].used = ++s->clock;
	} else {
		yi_free(cname);     /* every slot is held: this one is the caller's */
	}
	pthread_mutex_unlock(&s->mtx);
	*out = p;
	return 0;
}

void
yi_serve_put(yi_serve *s, const ying_profile *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&s->mtx);
	for (size_t i = 0; i < YI_SERVE_CACHE; i++)
		if (s->cache[i].p == p) {
			s->cache[i].refs--;
			pthread_mutex_unlock(&s->mtx);
			return;
		}
	pthread_mutex_unlock(&s->mtx);
	ying_profile_free((ying_profile *)p);
}

int
yi_serve_leaks(yi_serve *s, ying_symbolizer *sym, const char *frames, bool by_stack,
    ying_leaks **out)
{
	YI_VEC(char *) names = { NULL, 0, 0 };
	ying_leaks *l = NULL;
	int rc;

	*out = NULL;
	pthread_mutex_lock(&s->mtx);
	for (size_t i = 0; i < s->ents.n; i++) {
		char *c;
		if (s->ents.v[i].report)
			continue;
		if (yi_vec_grow(&names, 1) != 0 || (c = yi_strdup(s->ents.v[i].name)) == NULL) {
			pthread_mutex_unlock(&s->mtx);
			rc = yi_oom("the leak verdicts");
			goto out;
		}
		names.v[names.n++] = c;
	}
	pthread_mutex_unlock(&s->mtx);
	if ((rc = ying_leaks_new(&l, by_stack)) != 0)
		goto out;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		ying_profile *p = NULL;
		char *cname = NULL;
		double t = 0;
		/* not through the cache: every dump once would push out the ones
		 * the page is looking at */
		if ((rc = load(s, names.v[i], sym, frames, &p, &t, &cname)) == 0)
			rc = ying_leaks_add_at(l, p, t);
		ying_profile_free(p);
		yi_free(cname);
	}
	if (rc == 0)
		rc = ying_leaks_compute(l);
out:
	for (size_t i = 0; i < names.n; i++)
		yi_free(names.v[i]);
	yi_vec_free(&names);
	if (rc != 0) {
		ying_leaks_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

