/*
 * live_ctl.c: the control layer, libying's only door into the running jemalloc.
 *
 * Every call goes through one `mallctl` function pointer that is either
 * handed over by the caller (ying_ctl_use; a Rust program passes
 * tikv-jemallocator's `_rjem_mallctl`) or found once with dlsym(RTLD_DEFAULT)
 * under the three names jemalloc builds export (`mallctl`, `_rjem_mallctl`,
 * `je_mallctl`), else in the static symbol tables of the loaded objects
 * (live_ctl_find.c: a statically linked jemalloc, e.g. a Rust release
 * binary), and accepted only after it answers `version`.  libying never
 * links or loads jemalloc itself, so a process gets exactly the allocator it
 * already has.  On top of that pointer sit the profiler switches (prof.active,
 * prof.reset with a new lg_sample, the calling thread's name and sampling
 * flag), dumps to a file or to memory (live_ctl_dump.c),
 * the allocator statistics after an `epoch` refresh, and malloc_stats_print's
 * JSON.  Dumps are serialised by one mutex.  Every failure names its fix
 * (MALLOC_CONF=prof:true, LD_PRELOAD, a stripped binary's symbols, ...).
 */
#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live_ctl.h"

/* ---- finding mallctl ------------------------------------------------------ */

static pthread_mutex_t ctl_find_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t ctl_fork_once = PTHREAD_ONCE_INIT;
static void ctl_fork_init(void);

/* Held across fork, so that a child never inherits it held by a thread it
 * does not have (a worker forked while the HTTP listener found the heaps
 * hung its endpoint for good).  Never held around a fork. */
static pthread_mutex_t ctl_stats_mtx = PTHREAD_MUTEX_INITIALIZER;
static void
ctl_fork_prepare(void)
{
	pthread_mutex_lock(&ctl_stats_mtx);          /* the stats before the lookup */
	pthread_mutex_lock(&ctl_find_lock);
}
static void
ctl_fork_after(void)
{
	pthread_mutex_unlock(&ctl_find_lock);
	pthread_mutex_unlock(&ctl_stats_mtx);
}
static void
find_lock(void)
{
	pthread_once(&ctl_fork_once, ctl_fork_init);
	pthread_mutex_lock(&ctl_find_lock);
}

void
yi_ctl_stats_lock(void)
{
	pthread_once(&ctl_fork_once, ctl_fork_init);
	pthread_mutex_lock(&ctl_stats_mtx);
}

void
yi_ctl_stats_unlock(void)
{
	pthread_mutex_unlock(&ctl_stats_mtx);
}
static _Atomic(ying_mallctl_fn) ctl_fn;      /* resolved or given */
static _Atomic(ying_stats_print_fn) ctl_stats_fn;
static char ctl_symbol[32];                  /* "mallctl", "_rjem_mallctl", "caller" */
static char ctl_prefix[16];                  /* "", "_rjem_", "je_"; "?" unknown */
static char ctl_how[16];                     /* "dlsym", ".symtab", ".dynsym", "caller" */
static char ctl_file[PATH_MAX];              /* the object that defines it ("" caller) */
static ying_stats_print_fn ctl_found_stats;  /* found next to a .symtab mallctl */
static yi_jem_found ctl_found;               /* live_ctl_find.c's answer */
/* Cached immutable facts: -1 = not read yet. */
static _Atomic int ctl_config_prof = -1, ctl_opt_prof = -1;

pthread_mutex_t yi_ctl_dump_lock = PTHREAD_MUTEX_INITIALIZER;

/* Test seam: when true, dumps to memory skip memfd and use the directory. */
bool yi_ctl_force_dir_dump;


/* true when fn answers "version" like jemalloc ("5.3.0-0-g..."). */
static bool
looks_like_jemalloc(ying_mallctl_fn fn, const char **version)
{
	const char *v = NULL;
	size_t sz = sizeof(v);

	if (fn("version", &v, &sz, NULL, 0) != 0 || sz != sizeof(v) || v == NULL)
		return false;
	if (!isdigit((unsigned char)v[0]))
		return false;
	if (version)
		*version = v;
	return true;
}

static bool
is_jemalloc(ying_mallctl_fn fn)
{
	return looks_like_jemalloc(fn, NULL);
}

/* Prefix from a symbol name ending in "mallctl"; "?" when unknown. */
static void
set_prefix_from(const char *sym)
{
	size_t n = sym ? strlen(sym) : 0;

	if (n >= 7 && strcmp(sym + n - 7, "mallctl") == 0 && n - 7 < sizeof(ctl_prefix)) {
		memcpy(ctl_prefix, sym, n - 7);
		ctl_prefix[n - 7] = '\0';
	} else {
		strcpy(ctl_prefix, "?");
	}
}

/* malloc_stats_print under the same prefix as mallctl, when visible. */
static ying_stats_print_fn
find_stats_print(void)
{
	char name[64];

	if (strcmp(ctl_prefix, "?") == 0) {
		for (size_t i = 0; i < YI_JEM_NPREFIX; i++) {
			void *f;
			snprintf(name, sizeof(name), "%smalloc_stats_print", yi_jem_prefixes[i]);
			if ((f = dlsym(RTLD_DEFAULT, name)) != NULL)
				return (ying_stats_print_fn)f;
		}
		return NULL;
	}
	if (ctl_how[0] == '.')
		return ctl_found_stats;      /* from the same object's symbol table */
	snprintf(name, sizeof(name), "%smalloc_stats_print", ctl_prefix);
	return (ying_stats_print_fn)dlsym(RTLD_DEFAULT, name);
}

static void
reset_cache_locked(void)
{
	atomic_store(&ctl_config_prof, -1);
	atomic_store(&ctl_opt_prof, -1);
	atomic_store(&ctl_stats_fn, NULL);
}

int
ying_ctl_use(ying_mallctl_fn fn)
{
	Dl_info info;

	yi_error_clear();
	find_lock();
	reset_cache_locked();
	if (fn == NULL) {
		atomic_store(&ctl_fn, NULL);
		pthread_mutex_unlock(&ctl_find_lock);
		return 0;
	}
	if (!looks_like_jemalloc(fn, NULL)) {
		pthread_mutex_unlock(&ctl_find_lock);
		return yi_error(YING_EINVAL, "ying_ctl_use: the function does not "
		    "answer mallctl(\"version\") like jemalloc; pass jemalloc's mallctl "
		    "(Rust: tikv_jemalloc_sys::mallctl)");
	}
	strcpy(ctl_symbol, "caller");
	strcpy(ctl_how, "caller");
	ctl_file[0] = '\0';
	ctl_found_stats = NULL;
	if (dladdr((void *)fn, &info) && info.dli_sname &&
	    info.dli_saddr == (void *)fn)
		set_prefix_from(info.dli_sname);
	else
		strcpy(ctl_prefix, "?");
	atomic_store(&ctl_fn, fn);
	pthread_mutex_unlock(&ctl_find_lock);
	return 0;
}

void
ying_ctl_use_stats_print(ying_stats_print_fn fn)
{
	atomic_store(&ctl_stats_fn, fn);
}

/* The MALLOC_CONF variable name for the prefix in use, for messages. */
static const char *
conf_var(char *buf, size_t n)
{
	if (strcmp(ctl_prefix, "?") == 0) {
		snprintf(buf, n, "MALLOC_CONF (_RJEM_MALLOC_CONF for a Rust "
		    "_rjem_-prefixed jemalloc)");
		return buf;
	}
	size_t i, k = 0;
	for (i = 0; ctl_prefix[i] && k + 1 < n; i++)
		buf[k++] = (char)toupper((unsigned char)ctl_prefix[i]);
	buf[k] = '\0';
	snprintf(buf + k, n - k, "MALLOC_CONF");
	return buf;
}

/* The object that defines address a, for messages ("" if unknown). */
static void
set_file_of(void *a)
{
	Dl_info info;
	char real[PATH_MAX];

	ctl_file[0] = '\0';
	if (dladdr(a, &info) && info.dli_fname && info.dli_fname[0])
		snprintf(ctl_file, sizeof(ctl_file), "%s",
		    realpath(info.dli_fname, real) ? real : info.dli_fname);
}

/* Nothing found: the error, with the reason a search could not succeed. */
static int
not_found(void)
{
	if (ctl_found.stripped_file[0])
		return yi_error(YING_ENOJEMALLOC, "no jemalloc reachable in this "
		    "process: none of mallctl, _rjem_mallctl, je_mallctl is visible "
		    "to dlsym, and %s (which links jemalloc statically) is stripped: "
		    "no .symtab; build with symbols (Rust: strip = false) or pass "
		    "mallctl with ying_ctl_use()", ctl_found.stripped_file);
	return yi_error(YING_ENOJEMALLOC, "no jemalloc in this process: none of "
	    "mallctl, _rjem_mallctl, je_mallctl is visible to dlsym or in the "
	    ".symtab of a loaded object%s%s%s.  Link or preload it "
	    "(LD_PRELOAD=libjemalloc.so.2), or pass mallctl with ying_ctl_use()",
	    ctl_found.main_stripped ? " (" : "",
	    ctl_found.main_stripped ? ctl_found.main_file : "",
	    ctl_found.main_stripped ? " is stripped: no .symtab)" : "");
}

/* Find mallctl (caller's, else dlsym, else the loaded objects' symbol
 * tables).  0 or YING_ENOJEMALLOC. */
static int
ctl_get(ying_mallctl_fn *out)
{
	ying_mallctl_fn fn = atomic_load(&ctl_fn);
	int rc = 0;

	if (fn) {
		*out = fn;
		return 0;
	}
	find_lock();
	if ((fn = atomic_load(&ctl_fn)) == NULL) {
		for (size_t i = 0; i < YI_JEM_NPREFIX; i++) {
			char name[32];
			ying_mallctl_fn f;
			snprintf(name, sizeof(name), "%smallctl", yi_jem_prefixes[i]);
			f = (ying_mallctl_fn)dlsym(RTLD_DEFAULT, name);
			if (f && looks_like_jemalloc(f, NULL)) {
				snprintf(ctl_symbol, sizeof(ctl_symbol), "%s", name);
				strcpy(ctl_how, "dlsym");
				set_file_of((void *)f);
				set_prefix_from(name);
				reset_cache_locked();
				atomic_store(&ctl_fn, f);
				fn = f;
				break;
			}
		}
	}
	if (fn == NULL && yi_ctl_find_loaded(&ctl_found, is_jemalloc)) {
		fn = ctl_found.mallctl;
		snprintf(ctl_symbol, sizeof(ctl_symbol), "%s", ctl_found.symbol);
		snprintf(ctl_how, sizeof(ctl_how), "%s", ctl_found.how);
		snprintf(ctl_file, sizeof(ctl_file), "%s", ctl_found.file);
		set_prefix_from(ctl_found.symbol);
		reset_cache_locked();
		ctl_found_stats = ctl_found.stats;
		atomic_store(&ctl_fn, fn);
	}
	if (fn == NULL)
		rc = not_found();
	pthread_mutex_unlock(&ctl_find_lock);
	if (rc != 0)
		return rc;
	*out = fn;
	return 0;
}

int
yi_ctl_get(ying_mallctl_fn *out)
{
	return ctl_get(out);
}

/* ---- the heaps: every jemalloc of the process ------------------------------ */

static yi_ctl_heap ctl_heaps[YI_CTL_MAX_HEAPS];
static size_t ctl_nheaps;
static bool ctl_heaps_done;
static unsigned long long ctl_heaps_adds;
static yi_jem_found ctl_all[YI_CTL_MAX_HEAPS];

static int
adds_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof(info->dlpi_adds))
		*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

/* A heap's name by its prefix: "rust" for _rjem_, "c" for none, else the
 * prefix without underscores ("je"); a second of the same name gets its
 * number ("rust2"). */
static void
heap_name(const char *prefix, char *out, size_t n, const yi_ctl_heap *h, size_t nh)
{
	char base[24];
	size_t k = 0;

	if (strcmp(prefix, "_rjem_") == 0)
		snprintf(base, sizeof(base), "rust");
	else if (prefix[0] == '\0')
		snprintf(base, sizeof(base), "c");
	else {
		for (const char *p = prefix; *p && k + 1 < sizeof(base); p++)
			if (*p != '_')
				base[k++] = (char)tolower((unsigned char)*p);
		base[k] = '\0';
		if (k == 0)
			snprintf(base, sizeof(base), "jemalloc");
	}
	snprintf(out, n, "%s", base);
	for (unsigned d = 2; d < 100; d++) {
		bool taken = false;
		for (size_t i = 0; i < nh; i++)
			taken |= strcmp(h[i].name, out) == 0;
		if (!taken)
			return;
		snprintf(out, n, "%s%u", base, d);
	}
}

/* The cached list was built for another primary (ying_ctl_use since). */
static bool
ctl_heaps_fn_changed(ying_mallctl_fn fn)
{
	for (size_t i = 0; i < ctl_nheaps; i++)
		if (ctl_heaps[i].fn == fn)
			return false;
	return true;
}

/* A jemalloc that can dump: built with profiling and started with it. */
static bool
heap_profiled(ying_mallctl_fn fn)
{
	bool b = false;
	size_t sz = sizeof(b);

	if (fn("config.prof", &b, &sz, NULL, 0) != 0 || !b)
		return false;
	sz = sizeof(b);
	return fn("opt.prof", &b, &sz, NULL, 0) == 0 && b;
}

/* Add (fn, prefix) to the candidates unless it is there. */
static void
heap_add(ying_mallctl_fn fn, const char *prefix, ying_mallctl_fn *fns,
    char (*pfx)[16], size_t *nc)
{
	for (size_t i = 0; i < *nc; i++)
		if (fns[i] == fn)
			return;
	if (*nc >= YI_CTL_MAX_HEAPS)
		return;
	fns[*nc] = fn;
	snprintf(pfx[*nc], sizeof(pfx[0]), "%s", prefix);
	(*nc)++;
}

/* Build the list (under ctl_find_lock): the primary, then dlsym's other
 * prefixes and the loaded objects' symbol tables; in dump order, the
 * prefixed first. */
static void
heaps_build_locked(ying_mallctl_fn primary)
{
	ying_mallctl_fn fns[YI_CTL_MAX_HEAPS];
	char pfx[YI_CTL_MAX_HEAPS][16];
	size_t nc = 0, nf;

	ctl_nheaps = 0;
	heap_add(primary, ctl_prefix, fns, pfx, &nc);
	if (strcmp(ctl_how, "caller") != 0) {
		for (size_t i = 0; i < YI_JEM_NPREFIX; i++) {
			char name[32];
			ying_mallctl_fn f;
			snprintf(name, sizeof(name), "%smallctl", yi_jem_prefixes[i]);
			f = (ying_mallctl_fn)dlsym(RTLD_DEFAULT, name);
			if (f && f != primary && looks_like_jemalloc(f, NULL))
				heap_add(f, yi_jem_prefixes[i], fns, pfx, &nc);
		}
		nf = yi_ctl_find_all(ctl_all, YI_CTL_MAX_HEAPS, is_jemalloc);
		yi_error_clear();
		for (size_t i = 0; i < nf; i++)
			if (ctl_all[i].prefix >= 0 && ctl_all[i].prefix < YI_JEM_NPREFIX)
				heap_add(ctl_all[i].mallctl, yi_jem_prefixes[ctl_all[i].prefix],
				    fns, pfx, &nc);
	}
	/* prefixed first (the program's own), the unprefixed after them */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < nc; i++) {
			bool plain = pfx[i][0] == '\0' || strcmp(pfx[i], "?") == 0;
			if ((pass == 0) == plain)
				continue;
			if (fns[i] != primary && !heap_profiled(fns[i]))
				continue;
			ctl_heaps[ctl_nheaps].fn = fns[i];
			heap_name(strcmp(pfx[i], "?") == 0 ? "" : pfx[i],
			    ctl_heaps[ctl_nheaps].name, sizeof(ctl_heaps[0].name),
			    ctl_heaps, ctl_nheaps);
			ctl_nheaps++;
		}
}

int
yi_ctl_heaps(yi_ctl_heap *out, size_t *n)
{
	const char *env = getenv("YING_HEAPS");
	ying_mallctl_fn fn;
	unsigned long long adds = 0;
	int rc;

	*n = 0;
	if ((rc = ctl_get(&fn)) != 0)
		return rc;
	if (env && strcmp(env, "one") == 0) {
		out[0].fn = fn;
		snprintf(out[0].name, sizeof(out[0].name), "%s", "heap");
		*n = 1;
		return 0;
	}
	dl_iterate_phdr(adds_cb, &adds);
	find_lock();
	if (!ctl_heaps_done || adds != ctl_heaps_adds || ctl_nheaps == 0 ||
	    ctl_heaps_fn_changed(fn)) {
		heaps_build_locked(fn);
		ctl_heaps_done = true;
		ctl_heaps_adds = adds;
	}
	memcpy(out, ctl_heaps, ctl_nheaps * sizeof(*out));
	*n = ctl_nheaps;
	pthread_mutex_unlock(&ctl_find_lock);
	if (*n == 0) {               /* the primary itself not profiled: as today */
		out[0].fn = fn;
		snprintf(out[0].name, sizeof(out[0].name), "%s", "heap");
		*n = 1;
	}
	return 0;
}

int
yi_ctl_call(const char *name, void *oldp, size_t *oldlenp, void *newp,
    size_t newlen, int *err)
{
	ying_mallctl_fn fn;
	int rc;

	*err = 0;
	if ((rc = ctl_get(&fn)) != 0)
		return rc;
	*err = fn(name, oldp, oldlenp, newp, newlen);
	return 0;
}

/* Read a bool node; *val = 0 when the node does not exist (ENOENT). */
static int
read_bool(ying_mallctl_fn fn, const char *name, int *val)
{
	bool b = false;
	size_t sz = sizeof(b);
	int e = fn(name, &b, &sz, NULL, 0);

	if (e == ENOENT) {
		*val = 0;
		return 0;
	}
	if (e != 0)
		return yi_error(YING_ESYS, "mallctl(\"%s\") failed: %s", name, strerror(e));
	*val = b ? 1 : 0;
	return 0;
}

int
yi_ctl_read_num(ying_mallctl_fn fn, const char *name, void *out, size_t size)
{
	size_t sz = size;
	int e = fn(name, out, &sz, NULL, 0);

	if (e != 0)
		return yi_error(e == ENOENT ? YING_ENOTSUP : YING_ESYS,
		    "mallctl(\"%s\") failed: %s", name, strerror(e));
	if (sz != size)
		return yi_error(YING_ESYS, "mallctl(\"%s\") returned %zu bytes, "
		    "expected %zu", name, sz, size);
	return 0;
}

/* jemalloc found, built with profiling and started with prof:true. */
int
yi_ctl_need_prof(ying_mallctl_fn *out)
{
	ying_mallctl_fn fn;
	int rc, v;
	char var[96];

	if ((rc = ctl_get(&fn)) != 0)
		return rc;
	if ((v = atomic_load(&ctl_config_prof)) < 0) {
		if ((rc = read_bool(fn, "config.prof", &v)) != 0)
			return rc;
		atomic_store(&ctl_config_prof, v);
	}
	if (!v) {
		const char *ver = "";
		looks_like_jemalloc(fn, &ver);
		return yi_error(YING_ENOPROF, "jemalloc %s in this process was built "
		    "without heap profiling (config.prof is false): use a jemalloc "
		    "configured with --enable-prof (Debian's libjemalloc2 is; Rust: "
		    "tikv-jemallocator's \"profiling\" feature)", ver);
	}
	if ((v = atomic_load(&ctl_opt_prof)) < 0) {
		if ((rc = read_bool(fn, "opt.prof", &v)) != 0)
			return rc;
		atomic_store(&ctl_opt_prof, v);
	}
	if (!v)
		return yi_error(YING_ENOPROF, "heap profiling is off in this process "
		    "(opt.prof is false; it can only be set at startup): start it with "
		    "%s=prof:true, or prof:true,prof_active:false for a zero-cost "
		    "standby that can be activated later", conf_var(var, sizeof(var)));
	*out = fn;
	return 0;
}

ying_mallctl_fn
ying_ctl_mallctl(void)
{
	ying_mallctl_fn fn;

	return ctl_get(&fn) == 0 ? fn : NULL;
}

int
ying_ctl_available(void)
{
	ying_mallctl_fn fn;

	yi_error_clear();
	return yi_ctl_need_prof(&fn);
}

/* ---- status ---------------------------------------------------------------- */

int
ying_ctl_status_get(ying_ctl_status *st)
{
	ying_mallctl_fn fn;
	const char *ver = "";
	size_t lg = 0;
	uint64_t iv = 0;
	int rc;

	yi_error_clear();
	if (st == NULL)
		return yi_error(YING_EINVAL, "ying_ctl_status: st is NULL");
	memset(st, 0, sizeof(*st));
	if ((rc = ctl_get(&fn)) != 0)
		return rc;
	looks_like_jemalloc(fn, &ver);
	snprintf(st->version, sizeof(st->version), "%s", ver);
	find_lock();
	snprintf(st->mallctl_symbol, sizeof(st->mallctl_symbol), "%s", ctl_symbol);
	snprintf(st->mallctl_how, sizeof(st->mallctl_how), "%s", ctl_how);
	{
		size_t n = strnlen(ctl_file, sizeof(st->mallctl_file) - 1);
		memcpy(st->mallctl_file, ctl_file, n);    /* truncated if longer */
		st->mallctl_file[n] = '\0';
	}
	pthread_mutex_unlock(&ctl_find_lock);
	if ((rc = read_bool(fn, "config.prof", &st->config_prof)) != 0 ||
	    (rc = read_bool(fn, "opt.prof", &st->opt_prof)) != 0 ||
	    (rc = read_bool(fn, "opt.prof_accum", &st->opt_prof_accum)) != 0 ||
	    (rc = read_bool(fn, "prof.active", &st->prof_active)) != 0 ||
	    (rc = read_bool(fn, "prof.thread_active_init", &st->thread_active_init)) != 0)
		return rc;
	if (st->config_prof) {
		if ((rc = yi_ctl_read_num(fn, "prof.lg_sample", &lg, sizeof(lg))) != 0 ||
		    (rc = yi_ctl_read_num(fn, "prof.interval", &iv, sizeof(iv))) != 0)
			return rc;
	}
	st->lg_sample = (unsigned)lg;
	st->interval = iv;
	return 0;
}

/* ---- switches -------------------------------------------------------------- */

static int
rw_bool(const char *name, int on, int *old)
{
	ying_mallctl_fn fn;
	bool b, prev = false;
	size_t sz = sizeof(prev);
	int rc, e;

	if (old)
		*old = 0;
	if (on > 1)
		return yi_error(YING_EINVAL, "%s: value must be 0, 1 or -1 (read only)", name);
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	b = on > 0;
	e = fn(name, &prev, &sz, on < 0 ? NULL : &b, on < 0 ? 0 : sizeof(b));
	if (e != 0)
		return yi_error(e == EAGAIN ? YING_ENOMEM : YING_ESYS,
		    "mallctl(\"%s\") failed: %s", name, strerror(e));
	if (old)
		*old = prev ? 1 : 0;
	return 0;
}

/* The other heaps (yi_ctl_heaps) get what the primary got: prof.active,
 * prof.reset.  Best effort: a heap that refuses keeps its setting (its
 * dump still works). */
static void
heaps_write_others(ying_mallctl_fn primary, const char *name, void *newp,
    size_t newlen)
{
	yi_ctl_heap h[YI_CTL_MAX_HEAPS];
	size_t n = 0;

	if (yi_ctl_heaps(h, &n) != 0) {
		yi_error_clear();
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (h[i].fn != primary)
			h[i].fn(name, NULL, NULL, newp, newlen);
}

int
ying_ctl_active(int *old, int on)
{
	ying_mallctl_fn fn;
	bool b = on > 0;
	int rc;

	yi_error_clear();
	/* the list of heaps first: finding them allocates (dlsym), which
	 * must not be sampled once the primary samples */
	if (on >= 0) {
		yi_ctl_heap h[YI_CTL_MAX_HEAPS];
		size_t n = 0;
		(void)yi_ctl_heaps(h, &n);
		yi_error_clear();
	}
	if ((rc = rw_bool("prof.active", on, old)) != 0 || on < 0)
		return rc;
	if (yi_ctl_need_prof(&fn) == 0)
		heaps_write_others(fn, "prof.active", &b, sizeof(b));
	yi_error_clear();
	return 0;
}

int
ying_ctl_thread_active(int *old, int on)
{
	yi_error_clear();
	return rw_bool("thread.prof.active", on, old);
}

static _Thread_local bool ctl_thread_quiet;

void
yi_ctl_quiet_thread(void)
{
	ying_mallctl_fn fn;
	bool off = false;

	if (ctl_thread_quiet)
		return;
	ctl_thread_quiet = true;
	/* No profiling (or no jemalloc): nothing samples, nothing to do. */
	if (atomic_load(&ctl_opt_prof) == 0)
		return;
	if ((fn = atomic_load(&ctl_fn)) == NULL && ctl_get(&fn) != 0) {
		yi_error_clear();
		return;
	}
	fn("thread.prof.active", NULL, NULL, &off, sizeof(off));
}

/* ---- statistics ------------------------------------------------------------ */

typedef struct stats_sink {
	ying_membuf buf;
	int err;
} stats_sink;

static void
stats_write_cb(void *opaque, const char *s)
{
	stats_sink *k = opaque;

	if (k->err == 0)
		k->err = ying_write_membuf(&k->buf, s, strlen(s));
}

int
ying_ctl_stats_json(char **out, size_t *len)
{
	ying_mallctl_fn fn;
	ying_stats_print_fn pr;
	stats_sink k = { YING_MEMBUF_INIT, 0 };
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_ctl_stats_json: out is NULL");
	*out = NULL;
	if (len)
		*len = 0;
	if ((rc = ctl_get(&fn)) != 0)
		return rc;
	if ((pr = atomic_load(&ctl_stats_fn)) == NULL) {
		find_lock();
		if ((pr = find_stats_print()) == NULL && ctl_how[0] == '.')
			rc = yi_error(YING_ENOTSUP, "%s defines %s but no %smalloc_stats_"
			    "print; pass it with ying_ctl_use_stats_print()", ctl_file,
			    ctl_symbol, ctl_prefix);
		else if (pr == NULL)
			rc = yi_error(YING_ENOTSUP, "malloc_stats_print is not visible "
			    "to dlsym; pass it with ying_ctl_use_stats_print()");
		pthread_mutex_unlock(&ctl_find_lock);
		if (rc != 0)
			return rc;
		atomic_store(&ctl_stats_fn, pr);
	}
	pr(stats_write_cb, &k, "J");
	if (k.err != 0) {
		ying_membuf_release(&k.buf);
		return k.err;
	}
	if (k.buf.data == NULL && (rc = ying_write_membuf(&k.buf, "", 0)) != 0)
		return rc;
	*out = k.buf.data;
	if (len)
		*len = k.buf.len;
	return 0;
}

void
ying_ctl_quiet_thread(void)
{
	yi_ctl_quiet_thread();
}

static void
ctl_fork_init(void)
{
	pthread_atfork(ctl_fork_prepare, ctl_fork_after, ctl_fork_after);
}
