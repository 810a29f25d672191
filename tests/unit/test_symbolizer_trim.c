/*
 * test_symbolizer_trim.c: ying_symbolizer_trim against a real jemalloc dump.
 *
 * A copy of tests/programs/sym_prog whose DWARF is in a separate file
 * (objcopy --only-keep-debug and --add-gnu-debuglink: sym_prog.debug next
 * to it, what libc6-dbg is for libc) runs under
 * MALLOC_CONF=prof:true,lg_prof_sample:0 and writes a heap_v2 dump.  The
 * names a fresh symbolizer gives are the reference.  After ying_symbolizer_trim, the same symbolizer must give the
 * same names (from its kept results, reading no debug info: no separate
 * debug file mapped, no symbol table or unit index rebuilt), resolve
 * addresses it never saw (a miss opens the file again), and serve other
 * threads, also while trims run concurrently.
 */
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "sym_int.h"
#include "tap.h"

static char prog[4096], tmpdir[256], dump[700];

static void
bail(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

static ying_profile *
load(void)
{
	ying_profile *p = NULL;

	if (ying_profile_read_file(&p, dump) != 0) {
		printf("# %s\n", ying_last_error());
		bail("cannot parse the dump");
	}
	return p;
}

/* Every location's address and inline chain (name, mangled name, file,
 * line), one per line; malloc'd. */
static char *
names(const ying_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		bail("open_memstream");
	for (size_t i = 0; i < p->locs.n; i++) {
		const yi_loc *l = &p->locs.v[i];
		fprintf(f, "%#llx:", (unsigned long long)l->addr);
		for (uint32_t k = 0; k < l->nlines; k++) {
			const yi_line *ln = &p->lines.v[l->line_off + k];
			const yi_func *fn = &p->funcs.v[ln->func];
			fprintf(f, " %s|%s|%s:%u", yi_profile_str(p, fn->name),
			    yi_profile_str(p, fn->sysname), yi_profile_str(p, fn->file),
			    ln->line);
		}
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

/* Symbolize a fresh parse of the dump with s; its names (malloc'd). */
static char *
symbolized_names(ying_symbolizer *s)
{
	ying_profile *p = load();
	char *n;

	if (ying_profile_symbolize(p, s, NULL) != 0) {
		printf("# %s\n", ying_last_error());
		bail("symbolize");
	}
	n = names(p);
	ying_profile_free(p);
	return n;
}

/* Is the program's separate debug file mapped into us (libelf maps it while
 * libdwfl has it open)? */
static bool
debug_file_mapped(void)
{
	char line[8192];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (f == NULL)
		bail("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, "/sym_prog.debug\n") != NULL;
	fclose(f);
	return found;
}

/* Counts over s's cached files. */
typedef struct file_counts {
	size_t files, open, indexed, results;
} file_counts;

static file_counts
counts(ying_symbolizer *s)
{
	file_counts c = { 0, 0, 0, 0 };

	for (sym_file *f = s->head; f; f = f->next) {
		c.files++;
		c.open += f->dwfl != NULL;
		c.indexed += f->syms_loaded || f->syms != NULL || f->cus.n > 0 ||
		    f->units_built;
		c.results += f->results.n;
	}
	return c;
}

typedef struct job {
	ying_symbolizer *s;
	const char *want;
	int rounds, same;
} job;

static void *
job_run(void *arg)
{
	job *j = arg;

	for (int i = 0; i < j->rounds; i++) {
		char *n = symbolized_names(j->s);
		j->same += strcmp(n, j->want) == 0;
		free(n);
	}
	return NULL;
}

static void *
trimmer(void *arg)
{
	ying_symbolizer *s = arg;

	for (int i = 0; i < 20; i++) {
		if (ying_symbolizer_trim(s) != 0)
			bail("trim");
		usleep(1000);
	}
	return NULL;
}

int
main(void)
{
	const char *b = getenv("YING_BUILDDIR");
	ying_symbolizer *ref = NULL, *s = NULL;
	char cmd[16384], *want, *n;
	file_counts c0, c1, c2;
	ying_profile *p;
	pthread_t t[3];
	job j[2];

	/* what is asserted here is the in-memory cache across a trim: the
	 * persistent one (sym_cache.c) would answer the misses from disk */
	setenv("YING_CACHE_DIR", "off", 1);
	snprintf(prog, sizeof(prog), "%s/tests/programs/sym_prog", b ? b : ".");
	snprintf(tmpdir, sizeof(tmpdir), "%s/ying-symtrim.XXXXXX", tap_tmpdir());
	if (mkdtemp(tmpdir) == NULL)
		bail("mkdtemp");
	snprintf(dump, sizeof(dump), "%s/main.heap", tmpdir);
	snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug '%s' '%s/sym_prog.debug' && "
	    "objcopy --strip-debug --add-gnu-debuglink='%s/sym_prog.debug' '%s' "
	    "'%s/sym_prog' && MALLOC_CONF=prof:true,lg_prof_sample:0,"
	    "prof_prefix:%s/jeprof '%s/sym_prog' '%s'", prog, tmpdir, tmpdir, prog, tmpdir,
	    tmpdir, tmpdir, dump);
	is_int(system(cmd), 0, "run a copy of sym_prog with separate debug info under "
	    "MALLOC_CONF=prof:true");

	is_int(ying_symbolizer_trim(NULL), YING_EINVAL, "trim(NULL) is YING_EINVAL");

	/* the reference: a fresh symbolizer, never trimmed */
	if (ying_symbolizer_new(&ref) != 0 || ying_symbolizer_new(&s) != 0)
		bail("ying_symbolizer_new");
	want = symbolized_names(ref);
	ok(strstr(want, "sym_leaf_alloc|") != NULL && strstr(want, "sym_main.c:") != NULL,
	    "the reference names the program's functions and lines");
	ok(debug_file_mapped(), "the separate debug info is mapped after a cold "
	    "symbolization (what trim is for)");

	/* Half the locations first (the others look done), so that the
	 * full profile after the trim has addresses the symbolizer never saw. */
	p = load();
	{
		uint32_t func;
		yi_line l = { 0, 0 };
		if (yi_profile_func(p, "pre", "pre", "", &func) != 0)
			bail("yi_profile_func");
		l.func = func;
		for (size_t i = 1; i < p->locs.n; i += 2)
			if (yi_profile_set_lines(p, (uint32_t)i, &l, 1) != 0)
				bail("yi_profile_set_lines");
	}
	is_int(ying_profile_symbolize(p, s, NULL), 0, "symbolize half the locations");
	ying_profile_free(p);
	ying_symbolizer_free(ref);      /* its debug info is gone too */
	c0 = counts(s);
	is_int(ying_symbolizer_trim(s), 0, "ying_symbolizer_trim");
	c1 = counts(s);
	printf("# %zu files cached, %zu addresses resolved\n", c1.files, c1.results);
	ok(c1.files == c0.files && c1.files > 0 && c1.open == 0 && c1.indexed == 0,
	    "trim closes every file and drops symbol tables and unit indexes");
	is_int((int)c1.results, (int)c0.results, "trim keeps every resolved address");
	ok(!debug_file_mapped(), "no separate debug file is mapped after the trim");

	n = symbolized_names(s);
	is_str(n, want, "after trim: addresses never seen resolve (the files are "
	    "opened again), names equal the reference");
	free(n);
	c2 = counts(s);
	printf("# %zu addresses resolved after the misses\n", c2.results);
	ok(c2.results > c1.results, "the misses were resolved and cached");

	is_int(ying_symbolizer_trim(s), 0, "trim again");
	n = symbolized_names(s);
	is_str(n, want, "after trim: a profile of resolved addresses gets the same names");
	free(n);
	c2 = counts(s);
	ok(c2.indexed == 0 && c2.open == 0, "... from the kept results: no file opened "
	    "again with libdwfl, no symbol table or unit index rebuilt");
	ok(!debug_file_mapped(), "... and no separate debug file read");

	/* another thread, after a trim */
	is_int(ying_symbolizer_trim(s), 0, "trim before another thread uses it");
	j[0].s = s;
	j[0].want = want;
	j[0].rounds = 1;
	j[0].same = 0;
	if (pthread_create(&t[0], NULL, job_run, &j[0]) != 0)
		bail("pthread_create");
	pthread_join(t[0], NULL);
	is_int(j[0].same, 1, "another thread gets the same names after the trim");

	/* two threads symbolizing while a third trims */
	for (int i = 0; i < 2; i++) {
		j[i].s = s;
		j[i].want = want;
		j[i].rounds = 5;
		j[i].same = 0;
		if (pthread_create(&t[i], NULL, job_run, &j[i]) != 0)
			bail("pthread_create");
	}
	if (pthread_create(&t[2], NULL, trimmer, s) != 0)
		bail("pthread_create");
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	is_int(j[0].same + j[1].same, 10, "two threads symbolizing while a third "
	    "trims: the same names every time");

	/* A file replaced after the trim is not named from the kept results:
	 * a copy of the program, its dump symbolized, trimmed, then the copy
	 * is rewritten (a later file time): the file is checked again. */
	{
		char copy[600], dump2[600];
		ying_profile *p2;
		ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
		char *warn = NULL, *names2;
		size_t wlen = 0;
		FILE *w;
		snprintf(copy, sizeof(copy), "%s/sym_copy", tmpdir);
		snprintf(dump2, sizeof(dump2), "%s/copy.heap", tmpdir);
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && MALLOC_CONF=prof:true,"
		    "lg_prof_sample:0,prof_prefix:%s/jeprof '%s' '%s'", prog, copy, tmpdir,
		    copy, dump2);
		is_int(system(cmd), 0, "run a copy of sym_prog");
		snprintf(dump, sizeof(dump), "%s", dump2);
		n = symbolized_names(s);
		ok(strstr(n, "sym_leaf_alloc|") != NULL, "the copy's dump is named");
		free(n);
		is_int(ying_symbolizer_trim(s), 0, "trim");
		sleep(1);       /* a file time after the dump's */
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s.new' && mv '%s.new' '%s'", prog, copy,
		    copy, copy);
		is_int(system(cmd), 0, "replace the copy (new inode, later time)");
		p2 = load();
		if ((w = open_memstream(&warn, &wlen)) == NULL)
			bail("open_memstream");
		o.warnings = w;
		is_int(ying_profile_symbolize(p2, s, &o), 0, "symbolize its dump again");
		fclose(w);
		names2 = names(p2);
		ok(strstr(names2, "sym_leaf_alloc|") == NULL && strstr(warn, "sym_copy") != NULL &&
		    strstr(warn, "not the file the dump mapped") != NULL,
		    "after the trim the replaced file is checked again: its frames are "
		    "not named from the kept results, a warning says why");
		printf("# %s", warn);
		free(names2);
		free(warn);
		ying_profile_free(p2);
	}

	ying_symbolizer_free(s);
	free(want);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
