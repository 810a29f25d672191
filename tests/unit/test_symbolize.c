/*
 * test_symbolize.c: the symbolizer and allocator trimming against a real
 * jemalloc dump.
 *
 * tests/programs/sym_prog (linked with the system jemalloc) is run under
 * MALLOC_CONF=prof:true,lg_prof_sample:0 and writes a heap_v2 dump with
 * mallctl("prof.dump").  The dump is parsed and symbolized here, and the
 * results are checked against the program's sources (SYM_LINE_* markers
 * give the expected lines), `readelf -n` (build IDs) and the rules of
 * trimming.  The moved-binary and --binary cases run a copy of the program
 * that is then deleted.
 */
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static char prog[4096], srcdir[4096], tmpdir[256];

static void
bail(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

/* Line number of the source line holding marker in tests/programs/file. */
static uint32_t
marker_line(const char *file, const char *marker)
{
	char path[8192], line[1024];
	uint32_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/programs/%s", srcdir, file);
	if ((f = fopen(path, "r")) == NULL)
		bail(path);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	bail(marker);
	return 0;
}

/* Run exe under jemalloc profiling, dumping to dump. */
static int
run_prog_args(const char *exe, const char *dump, const char *extra)
{
	char cmd[16384];

	snprintf(cmd, sizeof(cmd), "MALLOC_CONF=prof:true,lg_prof_sample:0,"
	    "prof_prefix:%s/jeprof '%s' '%s' %s", tmpdir, exe, dump, extra);
	return system(cmd);
}

static int
run_prog(const char *exe, const char *dump)
{
	return run_prog_args(exe, dump, "");
}

/* GNU build ID of a file as `readelf -n` prints it ("" when none). */
static void
readelf_build_id(const char *path, char *out, size_t n)
{
	char cmd[8192], line[1024], *q;
	FILE *f;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	if ((f = popen(cmd, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		if ((q = strstr(line, "Build ID: ")) != NULL) {
			q += strlen("Build ID: ");
			q[strcspn(q, " \n")] = '\0';
			snprintf(out, n, "%s", q);
		}
	}
	pclose(f);
}

static const char *
fname(const ying_profile *p, uint32_t func)
{
	return yi_profile_str(p, p->funcs.v[func].name);
}

/* The first stack whose (trimmed) leaf function is `leaf`; frames in *fv. */
static const yi_stack *
stack_with_leaf(const ying_profile *p, const char *leaf, yi_framevec *fv)
{
	size_t i;

	for (i = 0; i < p->stacks.n; i++) {
		if (yi_stack_expand(p, &p->stacks.v[i], fv) <= 0)
			continue;
		if (strcmp(fname(p, fv->v[0].func), leaf) == 0)
			return &p->stacks.v[i];
	}
	return NULL;
}

static int
count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static const char *
file_base(const ying_profile *p, uint32_t func)
{
	const char *f = yi_profile_str(p, p->funcs.v[func].file);
	const char *b = strrchr(f, '/');
	return b ? b + 1 : f;
}

static ying_profile *
load(const char *dump)
{
	ying_profile *p = NULL;

	if (ying_profile_read_file(&p, dump) != 0) {
		printf("# %s\n", ying_last_error());
		bail("cannot parse the dump");
	}
	return p;
}

/* Symbolize with warnings captured in *warn (malloc'd). */
static int
symbolize(ying_profile *p, ying_symbolizer *s, ying_symbolize_opts *o, char **warn)
{
	size_t len = 0;
	FILE *w;
	int rc;

	*warn = NULL;
	if ((w = open_memstream(warn, &len)) == NULL)
		bail("open_memstream");
	o->warnings = w;
	rc = ying_profile_symbolize(p, s, o);
	fclose(w);
	o->warnings = NULL;
	return rc;
}

static void
test_main_dump(const char *dump)
{
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	yi_framevec fv = { NULL, 0, 0 };
	ying_profile *p = load(dump);
	const yi_stack *st;
	char *warn, bid[256];
	uint32_t k;
	int rc;

	ok(p->has_maps && p->main_map >= 0, "dump has mappings and a main executable");
	rc = symbolize(p, NULL, &o, &warn);
	is_int(rc, 0, "symbolize the dump");
	is_int(count_lines(warn), 0, "no warnings when every binary is present");
	if (warn && *warn)
		printf("# %s", warn);
	free(warn);

	/* plain C leaf, -O0 */
	st = stack_with_leaf(p, "sym_leaf_alloc", &fv);
	ok(st != NULL, "a stack's trimmed leaf is sym_leaf_alloc");
	if (st) {
		is_str(file_base(p, fv.v[0].func), "sym_main.c", "leaf file is sym_main.c");
		is_int(fv.v[0].line, marker_line("sym_main.c", "SYM_LINE_LEAF"), "leaf line is the malloc call");
		is_int(fv.v[0].inlined, 0, "leaf is not inlined");
		ok(fv.n >= 3 && strcmp(fname(p, fv.v[1].func), "sym_caller") == 0, "caller is sym_caller");
		if (fv.n >= 3) {
			is_int(fv.v[1].line, marker_line("sym_main.c", "SYM_LINE_CALLER"), "caller line (pc-1 in the call)");
			is_str(fname(p, fv.v[2].func), "main", "then main");
		}
		ok(st->skip >= 1, "jemalloc frames were skipped");
		for (k = 0; k < st->skip; k++) {
			const yi_loc *l = &p->locs.v[p->frames.v[st->frame_off + k]];
			if (!l->allocator || l->mapping < 0 || !p->maps.v[l->mapping].is_jemalloc) {
				ok(0, "every skipped frame is in the jemalloc mapping");
				break;
			}
		}
		if (k == st->skip)
			ok(1, "every skipped frame is in the jemalloc mapping");
		is_u64(st->raw.objs, 4, "the four allocations, all sampled");
	}

	/* inline chain, -O2 */
	st = stack_with_leaf(p, "sym_inline_inner", &fv);
	ok(st != NULL, "a stack's leaf is the inlined sym_inline_inner");
	if (st && fv.n >= 2) {
		is_int(fv.v[0].inlined, 1, "it is marked inlined");
		is_int(fv.v[0].line, marker_line("sym_inline.c", "SYM_LINE_INNER"), "inline frame line");
		is_str(file_base(p, fv.v[0].func), "sym_inline.c", "inline frame file");
		is_str(fname(p, fv.v[1].func), "sym_inline_outer", "inlined into sym_inline_outer");
		is_int(fv.v[1].line, marker_line("sym_inline.c", "SYM_LINE_OUTER"), "call line in the outer function");
		is_int(fv.v[1].inlined, 0, "the outer function is the real frame");
		is_u64(fv.v[0].loc, fv.v[1].loc, "both come from one location");
		is_int(p->locs.v[fv.v[0].loc].nlines, 2, "the location has a 2-entry chain");
		ok(fv.n >= 3 && strcmp(fname(p, fv.v[2].func), "main") == 0, "then main");
	}

	/* C++, demangled from DW_AT_linkage_name */
	st = stack_with_leaf(p, "ying_test::Widget::make(unsigned long)", &fv);
	ok(st != NULL, "C++ leaf demangled: ying_test::Widget::make(unsigned long)");
	if (st) {
		is_str(yi_profile_str(p, p->funcs.v[fv.v[0].func].sysname),
		    "_ZN9ying_test6Widget4makeEm", "system name stays mangled");
		is_int(fv.v[0].line, marker_line("sym_cxx.cc", "SYM_LINE_CXX"), "C++ leaf line");
		is_str(file_base(p, fv.v[0].func), "sym_cxx.cc", "C++ leaf file");
		ok(fv.n >= 2 && strcmp(fname(p, fv.v[1].func), "sym_cxx_make") == 0, "called by sym_cxx_make");
		ok(st->skip >= 1 && p->locs.v[p->frames.v[st->frame_off + st->skip - 1]].allocator,
		    "operator new[] frames trimmed");
	}

	/* symbol table only (no -g): legacy Rust and C++ mangled names */
	st = stack_with_leaf(p, "ying_rust::module::make_thing", &fv);
	ok(st != NULL, "Rust legacy name demangled from .symtab (hash dropped)");
	if (st && fv.n >= 4) {
		is_str(yi_profile_str(p, p->funcs.v[fv.v[0].func].sysname),
		    "_ZN9ying_rust6module10make_thing17h0123456789abcdefE", "Rust system name");
		is_int(fv.v[0].line, 0, "no line without DWARF");
		is_str(yi_profile_str(p, p->funcs.v[fv.v[0].func].file), "", "no file without DWARF");
		is_str(fname(p, fv.v[1].func), "<ying_rust::Thing as core::fmt::Debug>::fmt",
		    "Rust $-escapes decoded");
		is_str(fname(p, fv.v[2].func), "ying_cxx::Plain::grow(unsigned long)",
		    "C++ demangled from .symtab");
		is_str(fname(p, fv.v[3].func), "sym_nodebug_calls", "plain C from .symtab");
	}

	/* build IDs and flags */
	readelf_build_id(prog, bid, sizeof(bid));
	ok(bid[0] != '\0', "readelf -n shows the program's build ID");
	is_str(yi_profile_str(p, p->maps.v[p->main_map].build_id), bid, "main build ID matches readelf");
	ok(p->maps.v[p->main_map].symbolized, "main mapping marked symbolized");
	{
		size_t i, njem = 0, nok = 0, nexec = 0, nbid = 0;
		for (i = 0; i < p->maps.n; i++) {
			const yi_mapping *m = &p->maps.v[i];
			const char *path = yi_profile_str(p, m->path);
			char want[256];
			if (!m->exec || path[0] != '/')
				continue;
			nexec++;
			readelf_build_id(path, want, sizeof(want));
			nbid += want[0] != '\0';
			if (want[0] && strcmp(want, yi_profile_str(p, m->build_id)) == 0)
				nok++;
			else
				printf("# %s: build id '%s', readelf '%s'\n", path,
				    yi_profile_str(p, m->build_id), want);
			if (m->is_jemalloc) {
				njem++;
				ok(m->symbolized, "libjemalloc mapping marked symbolized (.dynsym)");
			}
		}
		ok(njem == 1, "one executable jemalloc mapping");
		ok(nexec >= 4 && nok == nbid, "build IDs of every executable module match readelf");
	}
	{
		/* pcs outside every mapping become 0x addresses */
		size_t i, nout = 0, nhex = 0, nlines = 0;
		for (i = 0; i < p->locs.n; i++) {
			const yi_loc *l = &p->locs.v[i];
			nlines += l->nlines > 0;
			if (l->mapping < 0) {
				char want[32];
				snprintf(want, sizeof(want), "0x%016" PRIx64, l->addr);
				nout++;
				nhex += strcmp(fname(p, p->lines.v[l->line_off].func), want) == 0;
			}
		}
		is_int(nlines, p->locs.n, "every location has a line chain");
		is_int(nhex, nout, "unmapped pcs are named 0x<addr>");
	}
	yi_vec_free(&fv);
	ying_profile_free(p);
}

static void
test_options(const char *dump)
{
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	yi_framevec fv = { NULL, 0, 0 };
	ying_profile *p;
	const yi_stack *st;
	char *warn;
	int rc;

	/* keep_allocator_frames */
	p = load(dump);
	o.keep_allocator_frames = 1;
	is_int(symbolize(p, NULL, &o, &warn), 0, "symbolize keeping allocator frames");
	free(warn);
	{
		size_t i, nskip = 0;
		bool found = false;
		for (i = 0; i < p->stacks.n; i++)
			nskip += p->stacks.v[i].skip;
		is_int(nskip, 0, "keep_allocator_frames: nothing skipped");
		for (i = 0; i < p->stacks.n && !found; i++) {
			const yi_stack *s = &p->stacks.v[i];
			uint32_t k;
			yi_stack_expand(p, s, &fv);
			for (k = 0; k < fv.n; k++)
				if (strcmp(fname(p, fv.v[k].func), "sym_leaf_alloc") == 0)
					break;
			if (k < fv.n && k > 0) {
				const yi_loc *l = &p->locs.v[fv.v[0].loc];
				found = true;
				ok(l->allocator && l->mapping >= 0 && p->maps.v[l->mapping].is_jemalloc,
				    "the kept leaf is a jemalloc frame marked allocator");
			}
		}
		ok(found, "sym_leaf_alloc below kept jemalloc frames");
	}
	ying_profile_free(p);
	o.keep_allocator_frames = 0;

	/* --drop_frames */
	p = load(dump);
	o.drop_frames = "^sym_leaf_";
	is_int(symbolize(p, NULL, &o, &warn), 0, "symbolize with a drop regex");
	free(warn);
	st = stack_with_leaf(p, "sym_caller", &fv);
	ok(st != NULL, "drop regex: the leaf is now sym_caller");
	ok(stack_with_leaf(p, "sym_leaf_alloc", &fv) == NULL, "no stack starts at sym_leaf_alloc");
	ying_profile_free(p);

	/* a bad regex fails before any work */
	p = load(dump);
	o.drop_frames = "(unclosed";
	rc = symbolize(p, NULL, &o, &warn);
	free(warn);
	is_int(rc, YING_EINVAL, "bad drop regex -> YING_EINVAL");
	has_str(ying_last_error(), "regex", "error names the regex");
	ok(!p->symbolized && p->lines.n == 0, "nothing was symbolized");
	o.drop_frames = NULL;
	is_int(symbolize(p, NULL, &o, &warn), 0, "a later call works");
	free(warn);
	ying_profile_free(p);
	yi_vec_free(&fv);
}

static void
test_moved_binary(void)
{
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	yi_framevec fv = { NULL, 0, 0 };
	char copy[512], dump[512], cmd[16384], *warn;
	ying_profile *p;
	size_t i, nmain = 0, nok = 0;
	const yi_stack *st;

	snprintf(copy, sizeof(copy), "%s/sym_copy", tmpdir);
	snprintf(dump, sizeof(dump), "%s/moved.heap", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", prog, copy);
	if (system(cmd) != 0)
		bail("cannot copy the program");
	is_int(run_prog(copy, dump), 0, "run a copy of the program");
	unlink(copy);

	p = load(dump);
	is_int(symbolize(p, NULL, &o, &warn), 0, "missing binary is not an error");
	is_int(count_lines(warn), 1, "exactly one warning");
	has_str(warn, "sym_copy", "the warning names the binary");
	printf("# warning: %s", warn ? warn : "\n");
	free(warn);
	for (i = 0; i < p->locs.n; i++) {
		const yi_loc *l = &p->locs.v[i];
		const yi_mapping *m;
		char want[128];
		if (l->mapping < 0 || p->maps.v[l->mapping].path != p->maps.v[p->main_map].path)
			continue;
		m = &p->maps.v[l->mapping];
		nmain++;
		snprintf(want, sizeof(want), "sym_copy+0x%" PRIx64, l->addr - m->start + m->offset);
		nok += l->nlines == 1 && strcmp(fname(p, p->lines.v[l->line_off].func), want) == 0;
	}
	ok(nmain >= 8, "frames fell into the missing binary");
	is_int(nok, nmain, "each is module+0x<file offset>");
	ok(!p->maps.v[p->main_map].symbolized, "the missing module is not marked symbolized");
	ok(p->maps.v[p->main_map].build_id == 0, "and has no build ID");
	ying_profile_free(p);

	/* --binary: the original build is the same file as the deleted copy */
	p = load(dump);
	o.binary = prog;
	is_int(symbolize(p, NULL, &o, &warn), 0, "symbolize with --binary");
	is_int(count_lines(warn), 0, "no warning with --binary");
	free(warn);
	st = stack_with_leaf(p, "sym_leaf_alloc", &fv);
	ok(st != NULL, "--binary: sym_leaf_alloc resolved");
	if (st)
		is_int(fv.v[0].line, marker_line("sym_main.c", "SYM_LINE_LEAF"), "--binary: line resolved");
	ok(p->maps.v[p->main_map].symbolized, "--binary: main mapping symbolized");
	has_str(ying_profile_program(p), "sym_copy", "the program name stays the dumped one");
	ying_profile_free(p);

	/* --binary pointing nowhere: one warning naming it */
	p = load(dump);
	o.binary = "/nonexistent/ying-sym-prog";
	is_int(symbolize(p, NULL, &o, &warn), 0, "missing --binary is not an error");
	is_int(count_lines(warn), 1, "one warning");
	has_str(warn, "/nonexistent/ying-sym-prog", "it names the --binary path");
	free(warn);
	ying_profile_free(p);
	yi_vec_free(&fv);
}

/* The binary was unlinked while the program ran: maps say "(deleted)". */
static void
test_deleted_binary(void)
{
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	yi_framevec fv = { NULL, 0, 0 };
	char copy[512], dump[512], cmd[16384], *warn;
	ying_profile *p;
	const yi_stack *st;
	size_t i, nmod = 0;

	snprintf(copy, sizeof(copy), "%s/sym_gone", tmpdir);
	snprintf(dump, sizeof(dump), "%s/deleted.heap", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", prog, copy);
	if (system(cmd) != 0)
		bail("cannot copy the program");
	is_int(run_prog_args(copy, dump, "--unlink-self"), 0, "run a copy that deletes itself");
	ok(access(copy, F_OK) != 0, "the copy is gone");

	p = load(dump);
	has_str(ying_profile_program(p), "(deleted)", "maps name the binary '(deleted)'");
	is_int(symbolize(p, NULL, &o, &warn), 0, "symbolize: deleted and not replaced");
	is_int(count_lines(warn), 1, "one warning");
	free(warn);
	for (i = 0; i < p->funcs.n; i++)
		nmod += strncmp(fname(p, (uint32_t)i), "sym_gone+0x", 11) == 0;
	ok(nmod >= 8, "module name without ' (deleted)': sym_gone+0x...");
	ying_profile_free(p);

	/* Put a binary back at the path.  Under another inode (same device)
	 * it is known not to be the file that ran: frames stay module+0x.
	 * The file system may hand the freed inode to the new file; then
	 * nothing tells them apart but content, the call sites agree (it is
	 * a copy of the same build), and it is used with a warning. */
	if (system(cmd) != 0)
		bail("cannot copy the program");
	p = load(dump);
	is_int(symbolize(p, NULL, &o, &warn), 0, "symbolize: deleted, then replaced");
	is_int(count_lines(warn), 1, "one warning");
	{
		struct stat sb;
		const yi_mapping *mm = &p->maps.v[p->main_map];
		if (stat(copy, &sb) == 0 && (uint64_t)sb.st_ino != mm->inode) {
			has_str(warn, "replaced since the dump: inode", "another inode: the warning says so");
			ok(stack_with_leaf(p, "sym_leaf_alloc", &fv) == NULL,
			    "and no name is taken from the new file");
		} else {
			has_str(warn, "deleted or replaced", "inode reused: saying the file may not match");
			st = stack_with_leaf(p, "sym_leaf_alloc", &fv);
			ok(st != NULL, "symbols come from the file now at the path");
		}
	}
	free(warn);
	ying_profile_free(p);

	/* --binary takes precedence and silences the warning. */
	p = load(dump);
	o.binary = prog;
	is_int(symbolize(p, NULL, &o, &warn), 0, "symbolize: deleted, with --binary");
	is_int(count_lines(warn), 0, "no warning with --binary");
	free(warn);
	ok(stack_with_leaf(p, "sym_leaf_alloc", &fv) != NULL, "resolved through --binary");
	ying_profile_free(p);
	unlink(copy);
	yi_vec_free(&fv);
}

static void
test_no_maps(void)
{
	static const char dump[] =
	    "heap_v2/1\n"
	    "  t*: 2: 32 [0: 0]\n"
	    "  t0: 2: 32 [0: 0]\n"
	    "@ 0x1234 0x5678 0x9abc\n"
	    "  t*: 2: 32 [0: 0]\n"
	    "  t0: 2: 32 [0: 0]\n";
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	yi_framevec fv = { NULL, 0, 0 };
	ying_profile *p = NULL;
	char *warn;
	int rc;

	rc = ying_profile_read_mem(&p, dump, sizeof(dump) - 1, "nomaps");
	is_int(rc, 0, "parse a dump without MAPPED_LIBRARIES");
	if (rc != 0) {
		printf("# %s\n", ying_last_error());
		return;
	}
	is_int(symbolize(p, NULL, &o, &warn), 0, "symbolize it");
	is_int(count_lines(warn), 1, "one warning");
	has_str(warn, "MAPPED_LIBRARIES", "naming the missing section");
	free(warn);
	yi_stack_expand(p, &p->stacks.v[0], &fv);
	is_int(fv.n, 3, "three frames, nothing trimmed");
	if (fv.n == 3) {
		is_str(fname(p, fv.v[0].func), "0x0000000000001234", "leaf as an address");
		is_str(fname(p, fv.v[1].func), "0x0000000000005677", "caller as address - 1");
	}
	yi_vec_free(&fv);
	ying_profile_free(p);
}

static void
test_names(void)
{
	static const char *yes[] = {
		"malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc",
		"memalign", "valloc", "pvalloc", "mallocx", "rallocx", "xallocx",
		"sdallocx", "nallocx", "malloc_usable_size", "operator new(unsigned long)",
		"operator new[](unsigned long, std::nothrow_t const&)",
		"operator new(unsigned long, std::align_val_t)", "_Znwm", "_Znam",
		"_ZnwmRKSt9nothrow_t", "je_malloc", "je_prof_backtrace",
		"_rjem_malloc", "_rjem_je_malloc_default", "_rjem_je_prof_backtrace",
		"prof_backtrace_impl", "imalloc_body.constprop.0", "arena_malloc_hard",
		"tcache_alloc_small_hard", "__rust_alloc", "__rust_realloc", "__rdl_alloc",
		"__rg_alloc", "alloc::alloc::alloc", "alloc::alloc::exchange_malloc",
		"<tikv_jemallocator::Jemalloc as core::alloc::global::GlobalAlloc>::alloc",
		"<jemallocator::Jemalloc as core::alloc::global::GlobalAlloc>::alloc",
		"__libc_malloc", "malloc.cold", "__rustc::__rust_alloc",
		"__rustc::__rust_alloc_zeroed", "<alloc::alloc::Global>::alloc_impl",
		"<std::alloc::System>::alloc_impl",
	};
	static const char *no[] = {
		"", "main", "sym_leaf_alloc", "mallocate", "freelist_pop", "my_malloc",
		"std::vector<int, std::allocator<int> >::push_back(int const&)",
		"alloc_big_1m", "callocate", "operator+(int)", "_ZN3foo3barEv",
		"alloc::vec::Vec<T>::push", "0x0000000000001234",
		"__rustc::rust_begin_unwind", "<alloc::vec::Vec<u8>>::push",
	};
	size_t i;
	char what[512];

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		snprintf(what, sizeof(what), "allocator name: %s", yes[i]);
		ok(yi_is_allocator_name(yes[i]), what);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(what, sizeof(what), "not an allocator name: '%s'", no[i]);
		ok(!yi_is_allocator_name(no[i]), what);
	}
	ok(!yi_is_allocator_name(NULL), "NULL is not an allocator name");
}

/* One symbolizer shared by threads and reused across profiles. */
typedef struct job {
	const char *dump;
	ying_symbolizer *s;
	int rc;
	bool leaf_ok;
} job;

static void *
job_run(void *arg)
{
	job *j = arg;
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	yi_framevec fv = { NULL, 0, 0 };
	ying_profile *p = NULL;

	if ((j->rc = ying_profile_read_file(&p, j->dump)) != 0)
		return NULL;
	j->rc = ying_profile_symbolize(p, j->s, &o);
	j->leaf_ok = stack_with_leaf(p, "sym_leaf_alloc", &fv) != NULL &&
	    stack_with_leaf(p, "sym_inline_inner", &fv) != NULL;
	yi_vec_free(&fv);
	ying_profile_free(p);
	return NULL;
}

static double
now_ms(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

static void
test_shared(const char *dump)
{
	ying_symbolizer *s = NULL;
	pthread_t t[4];
	job j[4];
	int i, nok = 0;
	double t0, t1, t2;

	is_int(ying_symbolizer_new(&s), 0, "ying_symbolizer_new");
	is_int(ying_symbolizer_new(NULL), YING_EINVAL, "ying_symbolizer_new(NULL) fails");
	ying_symbolizer_free(NULL);

	t0 = now_ms();
	j[0].dump = dump;
	j[0].s = s;
	job_run(&j[0]);
	t1 = now_ms();
	j[1] = j[0];
	job_run(&j[1]);
	t2 = now_ms();
	ok(j[0].rc == 0 && j[0].leaf_ok && j[1].rc == 0 && j[1].leaf_ok,
	    "the same symbolizer serves two profiles");
	printf("# parse+symbolize: cold %.1f ms, warm %.1f ms\n", t1 - t0, t2 - t1);

	for (i = 0; i < 4; i++) {
		j[i].dump = dump;
		j[i].s = s;
		pthread_create(&t[i], NULL, job_run, &j[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		nok += j[i].rc == 0 && j[i].leaf_ok;
	}
	is_int(nok, 4, "four threads share one symbolizer");
	ying_symbolizer_free(s);
}

/* The call-instruction decoder behind the "does this file match the dump"
 * check: a call must end exactly at the return address. */
static void
test_call_decoder(void)
{
	static const struct {
		unsigned machine;
		const char *what;
		unsigned char b[8];
		size_t n;       /* bytes before the return address */
		size_t want;    /* call length, 0 = none */
	} t[] = {
		{ EM_X86_64, "call rel32", { 0xe8, 0x10, 0x20, 0x00, 0x00 }, 5, 5 },
		{ EM_X86_64, "call rel32 after other code", { 0x48, 0x89, 0xe8, 0xe8, 0xf0, 0xff, 0xff, 0xff }, 8, 5 },
		{ EM_X86_64, "call *%rax", { 0x90, 0xff, 0xd0 }, 3, 2 },
		{ EM_X86_64, "call *%r12 (REX)", { 0x41, 0xff, 0xd4 }, 3, 2 },
		{ EM_X86_64, "call *(%rax)", { 0xff, 0x10 }, 2, 2 },
		{ EM_X86_64, "call *0x8(%rax)", { 0xff, 0x50, 0x08 }, 3, 3 },
		{ EM_X86_64, "call *(%rsp) (SIB)", { 0xff, 0x14, 0x24 }, 3, 3 },
		{ EM_X86_64, "call *0x8(%rsp) (SIB, disp8)", { 0xff, 0x54, 0x24, 0x08 }, 4, 4 },
		{ EM_X86_64, "call *0x0(%rip) (GOT)", { 0xff, 0x15, 0x00, 0x10, 0x00, 0x00 }, 6, 6 },
		{ EM_X86_64, "call *0x100(%rax) (disp32)", { 0xff, 0x90, 0x00, 0x01, 0x00, 0x00 }, 6, 6 },
		{ EM_X86_64, "call *0x100(,%rax,8) (SIB, no base)", { 0xff, 0x14, 0xc5, 0x00, 0x01, 0x00, 0x00 }, 7, 7 },
		{ EM_X86_64, "call *0x100(%rax,%rbx,1) (SIB, disp32)", { 0xff, 0x94, 0x18, 0x00, 0x01, 0x00, 0x00 }, 7, 7 },
		{ EM_X86_64, "nops", { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 }, 7, 0 },
		{ EM_X86_64, "jmp *%rax is no call", { 0x90, 0xff, 0xe0 }, 3, 0 },
		{ EM_X86_64, "ret is no call", { 0x90, 0x90, 0xc3 }, 3, 0 },
		{ EM_X86_64, "FF /2 of the wrong length", { 0xff, 0xd0, 0x90 }, 3, 0 },
		{ EM_X86_64, "SIB form cut short", { 0xff, 0x54, 0x24 }, 3, 0 },
		{ EM_X86_64, "E8 too far back", { 0xe8, 0, 0, 0, 0, 0x90 }, 6, 0 },
		{ EM_X86_64, "E8 before the start", { 0x00, 0x00, 0x00, 0x00 }, 4, 0 },
		{ EM_AARCH64, "bl", { 0x10, 0x00, 0x00, 0x94 }, 4, 4 },
		{ EM_AARCH64, "bl backwards", { 0xff, 0xff, 0xff, 0x97 }, 4, 4 },
		{ EM_AARCH64, "blr x1", { 0x20, 0x00, 0x3f, 0xd6 }, 4, 4 },
		{ EM_AARCH64, "blraaz x1", { 0x3f, 0x08, 0x3f, 0xd6 }, 4, 4 },
		{ EM_AARCH64, "ret is no call", { 0xc0, 0x03, 0x5f, 0xd6 }, 4, 0 },
		{ EM_AARCH64, "b is no call", { 0x10, 0x00, 0x00, 0x14 }, 4, 0 },
		{ EM_AARCH64, "too few bytes", { 0x00, 0x00, 0x94 }, 3, 0 },
		{ EM_RISCV, "other machines: no answer", { 0xe8, 0, 0, 0, 0 }, 5, 0 },
	};
	char what[128];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(what, sizeof(what), "call decoder: %s", t[i].what);
		is_int(yi_call_before(t[i].machine, t[i].b + t[i].n, t[i].n), t[i].want, what);
	}
}

int
main(void)
{
	const char *b = getenv("YING_BUILDDIR"), *sd = getenv("YING_SRCDIR");
	char dump[512], cmd[1024];

	snprintf(prog, sizeof(prog), "%s/tests/programs/sym_prog", b ? b : ".");
	snprintf(srcdir, sizeof(srcdir), "%s", sd ? sd : ".");
	snprintf(tmpdir, sizeof(tmpdir), "%s/ying-sym.XXXXXX", tap_tmpdir());
	if (mkdtemp(tmpdir) == NULL)
		bail("mkdtemp");
	snprintf(dump, sizeof(dump), "%s/main.heap", tmpdir);

	test_names();
	test_call_decoder();
	test_no_maps();
	is_int(run_prog(prog, dump), 0, "run sym_prog under MALLOC_CONF=prof:true");
	test_main_dump(dump);
	test_options(dump);
	test_shared(dump);
	test_moved_binary();
	test_deleted_binary();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
