/*
 * sym_pass.c: symbolizing a profile (yi_symbolize).
 *
 * For each mapped file the dump names: find it (--binary, --binary-path,
 * the path itself), open it through the cache (sym_file.c) and check that
 * it is the file the dump mapped (check_file: build ID, inode, file time,
 * layout, call sites), so that no frame is named from the wrong file.  A
 * file that cannot be opened or does not match gives "module+0xOFFSET"
 * names (file offset) and one warning.  A pc outside every mapping gives
 * "0x<16 hex digits>", as jeprof prints it.  Then every location gets its
 * inline chain and allocator frames are trimmed (sym_trim.c).
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "read.h"
#include "sym_int.h"

/* ---- the profile pass -------------------------------------------------------- */

#define SYM_SAMPLES 24           /* call sites checked per module */
#define SYM_MIN_SAMPLES 4        /* fewer say nothing */

/* What one distinct mapped path resolved to in this call. */
typedef struct path_state {
	uint32_t path;          /* strtab id in the profile (as dumped) */
	int first_map;          /* a mapping with this path */
	sym_file *file;
	bool tried;
	bool pseudo;            /* "[vdso]", "[anon:...]": nothing to open */
	bool user;              /* the file is --binary */
	bool mismatch;          /* the file is not what was mapped: reason[] */
	bool bid_match;         /* the dump's build ID equals the file's */
	size_t nframes;         /* locations that fell into it */
	unsigned nsamples;      /* distinct file offsets of its locations */
	uint64_t samples[SYM_SAMPLES];
	char why[256];
	char reason[320];
} path_state;

typedef struct sym_ctx {
	ying_profile *p;
	ying_symbolizer *s;
	const ying_symbolize_opts *opts;
	uint32_t *order;        /* executable mappings by start address */
	size_t norder;
	int32_t *mstate;        /* mapping -> path_state index */
	path_state *paths;
	size_t npaths;
	size_t nwarn;
	bool binary_used;       /* --binary was opened for some mapping */
} sym_ctx;

static void
warn(sym_ctx *c, const char *fmt, ...) YI_PRINTF(2, 3);

static void
warn(sym_ctx *c, const char *fmt, ...)
{
	va_list ap;
	char msg[4096];

	c->nwarn++;
	if (c->opts->warnings == NULL)
		return;
	/* Names in it come from the dump: escaped as text (no terminal
	 * sequences, no line breaks). */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fputs("ying: warning: ", c->opts->warnings);
	yi_text_escape(msg, ying_write_file, c->opts->warnings);
	fputc('\n', c->opts->warnings);
}

static int
set_single(ying_profile *p, uint32_t loc, const char *name)
{
	yi_line l;
	int rc;

	if ((rc = yi_profile_func(p, name, name, "", &l.func)) != 0)
		return rc;
	l.line = 0;
	return yi_profile_set_lines(p, loc, &l, 1);
}

static int
set_hex(ying_profile *p, uint32_t loc)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, p->locs.v[loc].addr);
	return set_single(p, loc, buf);
}

static const char deleted_suffix[] = " (deleted)";

/* Length of path without the " (deleted)" the kernel appends to unlinked
 * files. */
static size_t
path_len(const char *path, bool *deleted)
{
	size_t len = strlen(path), dl = sizeof(deleted_suffix) - 1;

	*deleted = len > dl && strcmp(path + len - dl, deleted_suffix) == 0;
	return *deleted ? len - dl : len;
}

static int
set_modoff(ying_profile *p, uint32_t loc, const yi_mapping *m, uint64_t off)
{
	const char *b = yi_base_name(yi_profile_str(p, m->path));
	char buf[512];
	bool deleted;
	size_t len = path_len(b, &deleted);

	snprintf(buf, sizeof(buf), "%.*s+0x%" PRIx64, (int)(len < 400 ? len : 400), b, off);
	return set_single(p, loc, buf);
}

static int
find_mapping(const sym_ctx *c, uint64_t addr)
{
	return yi_maps_find(c->p, c->order, c->norder, addr);
}

/* A path worth opening: absolute, not "[vdso]" and friends. */
static bool
is_file_path(const char *path)
{
	return path[0] == '/';
}

/* A regular file at path? */
static bool
regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Look for the file a mapping named `path` (len bytes) in the user's search
 * path (opts->search_path, directories separated by ':'): DIR/PATH first (a
 * copy of the other machine's tree), then DIR/BASENAME.  The first regular
 * file wins; true when one was found (in buf). */
static bool
search_file(const char *dirs, const char *path, size_t len, char *buf, size_t n)
{
	const char *b = path, *d = dirs;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			b = path + i + 1;
	while (*d) {
		size_t dl = strcspn(d, ":");
		if (dl > 0) {
			int k = snprintf(buf, n, "%.*s%.*s", (int)dl, d, (int)len, path);
			if (k > 0 && (size_t)k < n && regular_file(buf))
				return true;
			k = snprintf(buf, n, "%.*s/%.*s", (int)dl, d, (int)(len - (size_t)(b - path)), b);
			if (k > 0 && (size_t)k < n && regular_file(buf))
				return true;
		}
		d += dl;
		if (*d == ':')
			d++;
	}
	return false;
}

/* The file path to open for mapping mi: --binary for the main executable,
 * else a file found in the search path, else the dump's path (without
 * " (deleted)").  *user tells whether the user pointed at the file (then
 * it is checked by content only: build ID, layout, call sites). */
static const char *
open_path(sym_ctx *c, int mi, char *buf, size_t n, bool *user)
{
	const ying_profile *p = c->p;
	const char *path = yi_profile_str(p, p->maps.v[mi].path);
	bool deleted;
	size_t len = path_len(path, &deleted);

	*user = true;
	if (c->opts->binary && c->opts->binary[0] && p->main_map >= 0 &&
	    p->maps.v[mi].path == p->maps.v[p->main_map].path)
		return c->opts->binary;
	if (c->opts->search_path && c->opts->search_path[0] &&
	    search_file(c->opts->search_path, path, len, buf, n))
		return buf;
	*user = false;
	if (deleted) {
		snprintf(buf, n, "%.*s", (int)len, path);
		return buf;
	}
	return path;
}

static void
utc_time(char *buf, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL || strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(buf, n, "%lld", (long long)t);
}

static void
mismatch(path_state *ps, const char *fmt, ...) YI_PRINTF(2, 3);

static void
mismatch(path_state *ps, const char *fmt, ...)
{
	va_list ap;

	ps->mismatch = true;
	va_start(ap, fmt);
	vsnprintf(ps->reason, sizeof(ps->reason), fmt, ap);
	va_end(ap);
}

/* Does the dump's executable mapping m lie in an executable segment of f
 * (page-rounded, any page size up to 64 KiB)? */
static bool
layout_ok(const sym_file *f, const yi_mapping *m)
{
	const uint64_t big = 65536;

	for (size_t i = 0; i < f->nloads; i++) {
		const sym_load *l = &f->loads[i];
		uint64_t lo = l->offset & ~(big - 1), hi = (l->offset + l->filesz + big - 1) & ~(big - 1);
		if ((l->flags & PF_X) && m->offset >= lo && m->offset < l->offset + l->filesz &&
		    m->end - m->start <= hi - m->offset)
			return true;
	}
	return false;
}

/*
 * A trimmed file's bytes for the call-site check, mapped read-only (only
 * the pages read are loaded); NULL when it is no longer the file cached
 * (device, inode, size, time) or cannot be mapped.  munmap(*size) it.
 */
static void *
raw_map(const sym_file *f, size_t *size)
{
	void *map;
	int fd;

	*size = 0;
	if (f->size <= 0 || (fd = yi_file_open_same(f)) < 0)   /* size checked too */
		return NULL;
	map = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	*size = (size_t)f->size;
	return map;
}

/*
 * Is the file we opened for path state ps the one the dump mapped?  In
 * order: (1) build IDs, when the dump has one and the file too: equal is a
 * match (nothing else is checked), different a mismatch; (2) for a path
 * from the dump (not --binary): the same device and another inode means
 * the file was replaced, a file time after the dump's means it was
 * modified; (3) for every file: each executable mapping of the dump must
 * lie in an executable segment of the file (heap_v2 maps only), and most of
 * the sampled return addresses must follow a call instruction in the
 * file's bytes (x86, aarch64; at least SYM_MIN_SAMPLES addresses).  The
 * checks read nothing but the few bytes before each sampled address from
 * libelf's mapping of the file.
 */
static void
check_file(sym_ctx *c, path_state *ps)
{
	const ying_profile *p = c->p;
	sym_file *f = ps->file;
	const yi_mapping *m0 = &p->maps.v[ps->first_map];
	const char *dump_bid = NULL;
	int32_t self = (int32_t)(ps - c->paths);
	size_t i;

	for (i = 0; i < p->maps.n && dump_bid == NULL; i++)
		if (p->maps.v[i].path == ps->path && p->maps.v[i].build_id)
			dump_bid = yi_profile_str(p, p->maps.v[i].build_id);
	if (dump_bid && f->build_id) {
		if (strcmp(dump_bid, f->build_id) == 0)
			ps->bid_match = true;
		else
			mismatch(ps, "build ID %s in the dump, %s in the file", dump_bid,
			    f->build_id);
		return;
	}
	if (!ps->user) {
		int64_t dump_time = p->time > 0 ? p->time : (int64_t)time(NULL);
		if (m0->has_dev && m0->inode != 0 && major(f->dev) == m0->dev_major &&
		    minor(f->dev) == m0->dev_minor && (uint64_t)f->ino != m0->inode) {
			mismatch(ps, "replaced since the dump: inode %" PRIu64 " in the dump, "
			    "%" PRIu64 " now", m0->inode, (uint64_t)f->ino);
			return;
		}
		if ((int64_t)f->mtime.tv_sec > dump_time + 1) {
			char ft[64], dt[64];
			utc_time(ft, sizeof(ft), (int64_t)f->mtime.tv_sec);
			utc_time(dt, sizeof(dt), dump_time);
			mismatch(ps, "modified after the dump was taken (file time %s, dump time %s)",
			    ft, dt);
			return;
		}
	}
	if (p->format == YI_FMT_HEAP_V2) {
		for (i = 0; i < c->norder; i++) {
			const yi_mapping *m = &p->maps.v[c->order[i]];
			if (c->mstate[c->order[i]] != self || layout_ok(f, m))
				continue;
			mismatch(ps, "the dump maps code from file offset 0x%" PRIx64 " (%" PRIu64
			    " bytes), where the file has no executable segment", m->offset,
			    m->end - m->start);
			return;
		}
	}
	if ((f->machine == EM_X86_64 || f->machine == EM_386 || f->machine == EM_AARCH64) &&
	    ps->nsamples >= SYM_MIN_SAMPLES) {
		GElf_Addr bias;
		Elf *elf = f->mod ? dwfl_module_getelf(f->mod, &bias) : NULL;
		size_t rawsize = 0;
		const unsigned char *raw = elf ? (const unsigned char *)elf_rawfile(elf, &rawsize) : NULL;
		void *map = NULL;
		unsigned k = 0;
		if (f->mod == NULL)     /* trimmed: the file's bytes, not libdwfl */
			raw = map = raw_map(f, &rawsize);
		if (raw == NULL)
			return;
		for (i = 0; i < ps->nsamples; i++)
			k += yi_call_at(f, raw, rawsize, ps->samples[i] + 1) ||
			    yi_call_at(f, raw, rawsize, ps->samples[i]);
		if (map)
			munmap(map, rawsize);
		if (k * 10 < ps->nsamples * 7)
			mismatch(ps, "only %u of %u sampled return addresses follow a call "
			    "instruction in it", k, ps->nsamples);
	}
}

static int
path_file(sym_ctx *c, int mi, path_state **out)
{
	path_state *ps = &c->paths[c->mstate[mi]];
	char buf[4096];
	const char *path;
	int rc;

	*out = ps;
	if (ps->tried)
		return 0;
	ps->tried = true;
	path = yi_profile_str(c->p, ps->path);
	if (!is_file_path(path)) {
		ps->pseudo = true;
		return 0;
	}
	path = open_path(c, mi, buf, sizeof(buf), &ps->user);
	c->binary_used |= path == c->opts->binary;
	if ((rc = yi_file_get(c->s, path, &ps->file, ps->why, sizeof(ps->why))) != 0)
		return rc;
	if (ps->file != NULL)
		check_file(c, ps);
	return 0;
}

/* Note the file offset of every location that still needs symbols under
 * its module (the first SYM_SAMPLES distinct ones), for check_file. */
static void
collect_samples(sym_ctx *c)
{
	ying_profile *p = c->p;

	for (size_t i = 0; i < p->locs.n; i++) {
		const yi_loc *l = &p->locs.v[i];
		const yi_mapping *m;
		path_state *ps;
		uint64_t off;
		unsigned k;
		int mi;
		if (l->nlines != 0 || (mi = find_mapping(c, l->addr)) < 0)
			continue;
		m = &p->maps.v[mi];
		ps = &c->paths[c->mstate[mi]];
		if (m->path == 0 || ps->nsamples == SYM_SAMPLES)
			continue;
		off = l->addr - m->start + m->offset;
		for (k = 0; k < ps->nsamples && ps->samples[k] != off; k++)
			;
		if (k == ps->nsamples)
			ps->samples[ps->nsamples++] = off;
	}
}

static int
symbolize_loc(sym_ctx *c, uint32_t li)
{
	ying_profile *p = c->p;
	yi_loc *l = &p->locs.v[li];
	const yi_mapping *m;
	const sym_result *r;
	path_state *ps;
	uint64_t off, maddr;
	yi_line lines[SYM_MAX_CHAIN];
	uint32_t k;
	int mi, rc;

	if ((mi = find_mapping(c, l->addr)) < 0)
		return set_hex(p, li);
	l->mapping = mi;
	m = &p->maps.v[mi];
	off = l->addr - m->start + m->offset;
	if (m->path == 0)
		return set_hex(p, li);
	if ((rc = path_file(c, mi, &ps)) != 0)
		return rc;
	ps->nframes++;
	if (ps->file == NULL || ps->mismatch || !yi_file_addr(ps->file, off, &maddr))
		return set_modoff(p, li, m, off);
	/* a trimmed file (ying_symbolizer_trim) is opened again only for an
	 * address it has not resolved */
	if (ps->file->dwfl == NULL && yi_map64_get(&ps->file->by_addr, maddr) == NULL &&
	    !yi_file_reopen(ps->file))
		return set_modoff(p, li, m, off);
	if ((rc = yi_resolve(ps->file, maddr, &r)) != 0)
		return rc;
	if (r->n == 0)
		return set_modoff(p, li, m, off >= r->fdelta ? off - r->fdelta : off);
	for (k = 0; k < r->n && k < SYM_MAX_CHAIN; k++) {
		const sym_file *f = ps->file;
		const sym_frame *fr = &f->frames.v[r->off + k];
		if ((rc = yi_profile_func(p, yi_strtab_get(&f->strs, fr->name),
		    yi_strtab_get(&f->strs, fr->sysname),
		    yi_strtab_get(&f->strs, fr->file), &lines[k].func)) != 0)
			return rc;
		lines[k].line = fr->line;
	}
	return yi_profile_set_lines(p, li, lines, k);
}

/* Modules without frames are only asked whether they have a symbol table,
 * not made to sort it.  A yes is kept in the persistent cache (asking
 * libdwfl may open the separate debug file). */
static bool
file_has_symbols(sym_file *f)
{
	bool yes;

	/* remembered across ying_symbolizer_trim and, through the persistent
	 * cache, across runs: asking libdwfl again would load the separate
	 * debug info of a file without .symtab */
	if (f->cache_syms > 0)
		return true;
	yes = f->has_dwarf > 0 || f->nsyms > 0;
	if (!yes) {
		if (f->mod == NULL && !yi_file_reopen(f))
			return false;
		yes = !f->syms_loaded && dwfl_module_getsymtab(f->mod) > 1;
	}
	if (yes) {
		f->cache_syms = 1;
		f->cache_syms_new = true;
	}
	return yes;
}

/* The warning for a file without symbols says how to get them: where a
 * separate debug file is looked for, and debuginfod (asked, or not). */
static void
no_symbols(sym_ctx *c, const sym_file *f, int blen, const char *b)
{
	const char *bid = f->build_id, *pkg = "install the -dbgsym package of the "
	    "package that ships it (Debian, Ubuntu; -debuginfo elsewhere)";

	if (bid == NULL || strlen(bid) < 3)
		warn(c, "%s: %s has no symbols and no build ID; its frames are shown as "
		    "%.*s+0xSTART, the start of each function (to name them, give a build "
		    "with symbols: --binary PATH or --binary-path DIR)", c->p->source, f->path,
		    blen, b);
	else if (!f->debuginfod)
		warn(c, "%s: %s has no symbols; its frames are shown as %.*s+0xSTART, the "
		    "start of each function (to name them: %s, or put its debug file at "
		    "/usr/lib/debug/.build-id/%.2s/%s.debug, or set DEBUGINFOD_URLS to a "
		    "debuginfod server that has build ID %s)", c->p->source, f->path, blen, b,
		    pkg, bid, bid + 2, bid);
	else
		warn(c, "%s: %s has no symbols, and no server in DEBUGINFOD_URLS has debug "
		    "information for build ID %s; its frames are shown as %.*s+0xSTART, the "
		    "start of each function (to name them: %s, or put its debug file at "
		    "/usr/lib/debug/.build-id/%.2s/%s.debug)", c->p->source, f->path, bid,
		    blen, b, pkg, bid, bid + 2);
}

static int
symbolize_locked(sym_ctx *c)
{
	ying_profile *p = c->p;
	yi_map64 by_path = { 0 };
	size_t i;
	int rc = 0;

	if (!p->has_maps || p->maps.n == 0) {
		for (i = 0; i < p->locs.n && rc == 0; i++)
			if (p->locs.v[i].nlines == 0)
				rc = set_hex(p, (uint32_t)i);
		if (p->locs.n)
			warn(c, "%s: the dump has no MAPPED_LIBRARIES section; frames are "
			    "shown as addresses", p->source);
		return rc;
	}
	c->order = yi_calloc(p->maps.n, sizeof(*c->order));
	c->mstate = yi_calloc(p->maps.n, sizeof(*c->mstate));
	c->paths = yi_calloc(p->maps.n, sizeof(*c->paths));
	if (c->order == NULL || c->mstate == NULL || c->paths == NULL)
		return yi_oom("symbolizing");
	if ((rc = yi_map64_init(&by_path, p->maps.n)) != 0)
		return rc;
	for (i = 0; i < p->maps.n; i++) {
		uint32_t *slot;
		bool added;
		if (p->maps.v[i].exec)
			c->order[c->norder++] = (uint32_t)i;
		if ((rc = yi_map64_put(&by_path, p->maps.v[i].path, (uint32_t)c->npaths,
		    &slot, &added)) != 0)
			goto out;
		if (added) {
			c->paths[c->npaths].path = p->maps.v[i].path;
			c->paths[c->npaths++].first_map = (int)i;
		}
		c->mstate[i] = (int32_t)*slot;
	}
	yi_maps_sort(p, c->order, c->norder);
	collect_samples(c);

	for (i = 0; i < p->locs.n; i++) {
		if (p->locs.v[i].nlines != 0)
			continue;       /* done by an earlier, interrupted call */
		if ((rc = symbolize_loc(c, (uint32_t)i)) != 0)
			goto out;
	}
	/* Build IDs for every executable module, frames or not. */
	for (i = 0; i < c->norder; i++) {
		path_state *ps;
		if ((rc = path_file(c, (int)c->order[i], &ps)) != 0)
			goto out;
	}
	for (i = 0; i < p->maps.n; i++) {
		yi_mapping *m = &p->maps.v[i];
		path_state *ps = &c->paths[c->mstate[i]];
		sym_file *f = ps->file;
		if (f == NULL || ps->mismatch)
			continue;
		/* the dump's own build ID stays (it is the one that ran) */
		if (m->build_id == 0 && f->build_id && (rc = yi_strtab_intern(&p->strs,
		    f->build_id, strlen(f->build_id), &m->build_id)) != 0)
			goto out;
		m->symbolized = file_has_symbols(f);
	}
	for (i = 0; i < c->npaths; i++) {
		path_state *ps = &c->paths[i];
		const char *path = yi_profile_str(p, ps->path), *b = yi_base_name(path);
		char buf[4096];
		bool deleted, user;
		int blen = (int)path_len(b, &deleted);

		if (ps->pseudo || (ps->nframes == 0 && !(ps->user && ps->mismatch)))
			continue;
		if (ps->mismatch && ps->user) {
			warn(c, "%s: %s %s does not match the %.*s in the dump: %s; "
			    "it is not used, and its %zu frame%s shown as %.*s+0xOFFSET",
			    p->source, c->opts->binary && strcmp(ps->file->path, c->opts->binary) == 0 ?
			    "--binary" : "the search path's", ps->file->path, blen, b, ps->reason, ps->nframes,
			    ps->nframes == 1 ? " is" : "s are", blen, b);
		} else if (ps->mismatch) {
			warn(c, "%s: %s is not the file the dump mapped: %s; its %zu frame%s "
			    "shown as %.*s+0xOFFSET (give the build that ran with --binary PATH, "
			    "or a directory holding it with --binary-path DIR)",
			    p->source, ps->file->path, ps->reason, ps->nframes,
			    ps->nframes == 1 ? " is" : "s are", blen, b);
		} else if (ps->file == NULL) {
			warn(c, "%s: cannot read %s (%s); its %zu frame%s shown as %.*s+0xOFFSET",
			    p->source, open_path(c, ps->first_map, buf, sizeof(buf), &user), ps->why,
			    ps->nframes, ps->nframes == 1 ? " is" : "s are", blen, b);
		} else if (deleted && !ps->user && !ps->bid_match) {
			warn(c, "%s: %s was deleted or replaced after the dump; its "
			    "symbols come from the file now at that path and may be wrong",
			    p->source, ps->file->path);
		} else if (!file_has_symbols(ps->file)) {
			no_symbols(c, ps->file, blen, b);
		}
	}
	if (c->opts->binary && c->opts->binary[0] && !c->binary_used)
		warn(c, "%s: --binary %s is not used: the dump maps no main executable "
		    "(only shared libraries)", p->source, c->opts->binary);
out:
	yi_map64_release(&by_path);
	return rc;
}

int
yi_symbolize(ying_profile *p, ying_symbolizer *s, const ying_symbolize_opts *opts)
{
	ying_symbolizer *own = NULL;
	sym_ctx c;
	int rc;

	/* --drop_frames is compiled (and a bad one reported) once, by
	 * symbolize_trim, before this runs */
	if (s == NULL) {
		if ((rc = ying_symbolizer_new(&own)) != 0)
			return rc;
		s = own;
	}
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.s = s;
	c.opts = opts;
	pthread_mutex_lock(&s->lock);
	s->gen++;
	s->call_opened = 0;
	yi_free(s->cache_dir);
	s->cache_dir = yi_symcache_dir();
	s->debuginfod = opts->debuginfod != 0;
	rc = symbolize_locked(&c);
	if (rc == 0)
		rc = yi_symcache_save(s);
	s->gen++;       /* nothing is in use now: trim to the cap */
	yi_lru_trim(s);
	pthread_mutex_unlock(&s->lock);
	yi_free(c.order);
	yi_free(c.mstate);
	yi_free(c.paths);
	ying_symbolizer_free(own);
	return rc;
}

/* yi_symbolize (unless p->symbolized) then trimming, with
 * opts->drop_frames compiled once, before any work (a bad regex fails
 * first); sets p->symbolized and p->trimmed as each part succeeds. */
static int
symbolize_trim(ying_profile *p, ying_symbolizer *s, const ying_symbolize_opts *opts)
{
	regex_t drop;
	bool have;
	int rc = 0;

	if ((rc = yi_trim_compile(opts, &drop, &have)) != 0)
		return rc;
	if (!p->symbolized && (rc = yi_symbolize(p, s, opts)) == 0)
		p->symbolized = true;
	if (rc == 0 && (rc = yi_trim_with(p, opts, have ? &drop : NULL)) == 0) {
		p->trimmed = true;
		p->kept_allocators = opts->keep_allocator_frames != 0;
		p->full_names = opts->full_names != 0;
		rc = yi_profile_names(p);
	}
	if (have)
		regfree(&drop);
	return rc;
}

/* The options that decide what symbolizing gives (not `warnings`, not the
 * symbolizer): one malloc'd string the caller frees, NULL when out of
 * memory.  Fields are separated by '\n' after a length, so no two option
 * sets give the same key. */
static char *
opts_key(const ying_symbolize_opts *o)
{
	const char *f[4] = { o->binary, o->drop_frames, o->search_path, o->frames };
	size_t n = 16;
	char *k, *w;

	for (int i = 0; i < 4; i++)
		n += (f[i] ? strlen(f[i]) : 0) + 24;
	if ((k = yi_malloc(n)) == NULL)
		return NULL;
	w = k + snprintf(k, n, "%d%d%d", o->keep_allocator_frames != 0, o->debuginfod != 0,
	    o->full_names != 0);
	for (int i = 0; i < 4; i++)
		w += snprintf(w, n - (size_t)(w - k), "\n%zd:%s",
		    f[i] ? (ssize_t)strlen(f[i]) : (ssize_t)-1, f[i] ? f[i] : "");
	return k;
}

/*
 * The public symbolization step: resolve what the reader left unnamed
 * (a heap_v2 dump: everything; a pprof: bare addresses in mappings, none
 * when it has names, p->symbolized set at read), then trim allocator
 * frames and --drop-frames once (every format: a pprof's frames are trimmed
 * like a dump's, and --keep-allocator-frames keeps them).  It runs once per
 * profile: a later call with the same options is a no-op, one with other
 * options is refused (never silently ignored).
 */
int
ying_profile_symbolize(ying_profile *p, ying_symbolizer *s,
    const ying_symbolize_opts *opts)
{
	ying_symbolize_opts def = YING_SYMBOLIZE_OPTS_INIT;
	char *key;
	int rc;

	yi_error_clear();
	if (p == NULL)
		return yi_error(YING_EINVAL, "ying_profile_symbolize: no profile");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_SYMBOLIZE_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_symbolize_opts version %d unsupported "
		    "(this libying has version %d)", opts->version, YING_SYMBOLIZE_OPTS_VERSION);
	if (p->symbolized && p->trimmed && p->sym_opts == NULL)
		return 0;       /* a diff or merge result: symbolized when made */
	if ((key = opts_key(opts)) == NULL)
		return yi_oom("symbolizing");
	if (p->trimmed) {
		rc = strcmp(key, p->sym_opts) == 0 ? 0 :
		    yi_error(YING_EINVAL, "ying_profile_symbolize: %s was already symbolized "
		    "with other options (binary, drop_frames, keep_allocator_frames, "
		    "search_path, frames, debuginfod or full_names); read it again to symbolize it "
		    "differently",
		    p->source ? p->source : "the profile");
		yi_free(key);
		return rc;
	}
	if ((rc = symbolize_trim(p, s, opts)) == 0) {
		yi_free(p->sym_opts);
		p->sym_opts = key;
	} else {
		yi_free(key);
	}
	return rc;
}

/* The records of a recent-allocation capture name stacks of their own
 * profile: symbolizing them is symbolizing it. */
int
ying_recent_symbolize(ying_recent *r, ying_symbolizer *s,
    const ying_symbolize_opts *opts)
{
	yi_error_clear();
	if (r == NULL)
		return yi_error(YING_EINVAL, "ying_recent_symbolize: r is NULL");
	return ying_profile_symbolize(r->prof, s, opts);
}
