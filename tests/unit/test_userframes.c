/*
 * test_userframes.c: the caller's own allocator wrappers
 * (ying_symbolize_opts.frames, sym_userframes.c): the entry syntax and its
 * errors by line, exact names against clone suffixes and argument lists,
 * PREFIX*, C++ names with spaces and templates; how yi_trim applies them
 * (leading frames only, keep_allocator_frames keeps them); the "same
 * options" check of ying_profile_symbolize; and the wrapper hint
 * (ying_profile_wrapper_hint), which fires on one function leading most of
 * the heap from many callers and not otherwise.
 *
 * Profiles are built by hand with named frames (as if symbolized), as
 * test_trim.c does.
 */
#include "internal.h"
#include "tap.h"

static void
test_entries(void)
{
	static const char *const good[] = {
		"", "   ", "# a comment", "arena_grab", "  arena_grab  # trailing",
		"my_alloc*", "Pool<int, std::allocator<int> >::grab", "operator new", "\tx\r",
	};
	static const struct { const char *line, *why; } bad[] = {
		{ "a*b", "'a*b': '*' may only end an entry (PREFIX*)" },
		{ "*", "'*': '*' alone would trim every frame" },
		{ "*foo", "'*foo': '*' may only end an entry (PREFIX*)" },
		{ "a\001b", "a control character" },
		{ "(int)", "no function name before" },
		{ ".constprop.0", "no function name before" },
	};
	char what[128];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(what, sizeof(what), "entry check accepts '%s'", good[i]);
		is_int(ying_frames_entry_check(good[i], strlen(good[i])), 0, what);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "entry check refuses '%s'", bad[i].line);
		is_int(ying_frames_entry_check(bad[i].line, strlen(bad[i].line)), YING_EINVAL, what);
		snprintf(what, sizeof(what), "... saying %s", bad[i].why);
		ok(strstr(ying_last_error(), bad[i].why) != NULL, what);
	}
	is_int(ying_frames_entry_check("a*b # c*d", 3), YING_EINVAL, "len bounds the line");
	is_int(ying_frames_entry_check("ab*b # c*d", 3), 0, "... nothing after it is read");
}

static void
test_parse(void)
{
	yi_uframes *u = (yi_uframes *)1;

	is_int(yi_uframes_parse(&u, NULL), 0, "NULL text");
	ok(u == NULL, "... no list");
	is_int(yi_uframes_parse(&u, "# only\n\n  # comments\n"), 0, "only comments");
	ok(u == NULL, "... no list");
	is_int(yi_uframes_parse(&u, "ok\n# c\nfine*\nx*y\n"), YING_EINVAL, "a bad line 4");
	ok(u == NULL, "... no list");
	is_str(ying_last_error(), "ying_symbolize_opts.frames line 4: 'x*y': "
	    "'*' may only end an entry (PREFIX*)", "... named by line");
	is_int(yi_uframes_parse(&u, "a\n*\n"), YING_EINVAL, "'*' alone");
	ok(strstr(ying_last_error(), "line 2: '*'") != NULL, "... line 2");
}

static void
test_match(void)
{
	yi_uframes *u = NULL;
	static const char *const yes[] = {
		"arena_grab", "arena_grab.constprop.0", "arena_grab(unsigned long)",
		"arena_grab.part.1", "pool_new", "pool_newer", "pool_", "Pool<int>::grab",
		"Pool<int>::grab(unsigned long) const",
		"std::vector<Session, std::allocator<Session> >::_M_realloc_insert(Session&&)",
		"myapp::alloc::Arena::take", "my arena",
	};
	static const char *const no[] = {
		"", "arena_grabber", "arena_gra", "xarena_grab", "arena_grab_x", "pool",
		"Pool<long>::grab", "Pool<int>::grabs", "std::vector<int>::push_back(int const&)",
		"myapp::alloc", "my arena2",
	};
	char what[160];
	size_t i;

	is_int(yi_uframes_parse(&u, " arena_grab  # ours\n\npool_*\nPool<int>::grab\n"
	    "std::vector<Session, std::allocator<Session> >::_M_realloc_insert\r\n"
	    "myapp::alloc::*\nmy arena\n"), 0, "parse a list");
	ok(u != NULL, "... a list");
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		snprintf(what, sizeof(what), "matches %s", yes[i]);
		ok(yi_uframes_match(u, yes[i]), what);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(what, sizeof(what), "does not match '%s'", no[i]);
		ok(!yi_uframes_match(u, no[i]), what);
	}
	ok(!yi_uframes_match(NULL, "arena_grab"), "no list matches nothing");
	ok(!yi_uframes_match(u, NULL), "NULL name");
	yi_uframes_free(u);
}

/* Add a stack of named frames, leaf first: "a;b;c"; `sys` names the
 * frame's symbol (mangled) name when it differs. */
static void
add(ying_profile *p, const char *spec, uint64_t bytes)
{
	char buf[512], *save = NULL, *tok;
	uint32_t locs[64];
	size_t n = 0;
	yi_counts raw = { 1, bytes, 0, 0 };

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ";", &save); tok && n < 64; tok = strtok_r(NULL, ";", &save)) {
		uint32_t loc, func;
		yi_line ln;
		uint64_t pc = 0x1000 + 16 * yi_hash_bytes(tok, strlen(tok), 1) % 0x100000;
		char *eq = strchr(tok, '=');

		if (eq != NULL)
			*eq++ = '\0';
		yi_profile_loc(p, pc, n == 0, &loc);
		if (p->locs.v[loc].nlines == 0) {
			yi_profile_func(p, tok, eq ? eq : tok, "x.c", &func);
			ln.func = func;
			ln.line = 1;
			yi_profile_set_lines(p, loc, &ln, 1);
		}
		locs[n++] = loc;
	}
	yi_profile_add_stack(p, locs, n, &raw, NULL);
}

static ying_profile *
new_profile(void)
{
	ying_profile *p;

	if (yi_profile_new(&p, "userframes") != 0) {
		printf("Bail out! yi_profile_new\n");
		exit(1);
	}
	p->period = 1;
	p->symbolized = true;
	return p;
}

static void
test_trim(void)
{
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	ying_profile *p = new_profile();

	add(p, "malloc;arena_grab;parse;main", 4096);
	add(p, "malloc;arena_grab.constprop.0;load;main", 4096);
	add(p, "malloc;leaf;arena_grab;main", 4096);
	add(p, "malloc;Pool<int>::grab(unsigned long);_ZN4PoolIiE4growEv=_ZN4Pool4growEv;main", 4096);
	add(p, "malloc;arena_grab", 4096);

	is_int(yi_trim(p, &o), 0, "yi_trim without frames");
	is_int(p->stacks.v[0].skip, 1, "arena_grab leads without the list");
	o.frames = "arena_grab\nPool<int>::grab\n_ZN4Pool4*\n";
	is_int(yi_trim(p, &o), 0, "yi_trim with frames");
	is_int(p->stacks.v[0].skip, 2, "arena_grab trimmed: parse leads");
	is_int(p->stacks.v[1].skip, 2, "its clone too: load leads");
	is_int(p->stacks.v[2].skip, 1, "arena_grab in the middle of a stack is kept");
	is_int(p->stacks.v[3].skip, 3, "a C++ entry and a symbol-name prefix: main leads");
	is_int(p->stacks.v[4].skip, 1, "only wrappers: the outermost is kept");
	o.keep_allocator_frames = 1;
	is_int(yi_trim(p, &o), 0, "yi_trim keep_allocator_frames");
	is_int(p->stacks.v[0].skip, 0, "keep_allocator_frames keeps the user's wrappers too");
	o.keep_allocator_frames = 0;
	o.frames = "ok\nbad*entry\n";
	is_int(yi_trim(p, &o), YING_EINVAL, "a bad entry fails trimming");
	ying_profile_free(p);

	/* the public step: frames count in the "same options" check */
	p = new_profile();
	add(p, "malloc;arena_grab;parse;main", 4096);
	o.frames = "arena_grab";
	is_int(ying_profile_symbolize(p, NULL, &o), 0, "ying_profile_symbolize with frames");
	is_int(p->stacks.v[0].skip, 2, "... trimmed");
	is_int(ying_profile_symbolize(p, NULL, &o), 0, "again, same frames: no-op");
	o.frames = "arena_grab\n";
	is_int(ying_profile_symbolize(p, NULL, &o), YING_EINVAL, "other frames text: refused");
	ok(strstr(ying_last_error(), "frames") != NULL, "... naming frames among the options");
	ying_profile_free(p);

	p = new_profile();
	add(p, "malloc;arena_grab;parse;main", 4096);
	o.frames = "x**";
	is_int(ying_profile_symbolize(p, NULL, &o), YING_EINVAL, "a bad entry: EINVAL");
	ok(strstr(ying_last_error(), "frames line 1: 'x**'") != NULL, "... naming line and entry");
	ok(!p->trimmed, "... before any trimming");
	ying_profile_free(p);
}

static void
test_hint(void)
{
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	ying_profile *p = new_profile();
	char *msg = (char *)1, spec[128];
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(spec, sizeof(spec), "malloc;arena_grab.constprop.0;caller%d;main", i);
		add(p, spec, 1000);
	}
	add(p, "malloc;other;main", 1000);
	is_int(ying_profile_symbolize(p, NULL, &o), 0, "symbolize");
	is_int(ying_profile_wrapper_hint(&msg, p, YING_INUSE_SPACE), 0, "hint");
	is_str(msg, "`arena_grab` leads 89 % of the heap from 8 callers",
	    "8 callers, 89 %: the hint names the entry to add");
	ying_free(msg);
	is_int(ying_profile_wrapper_hint(&msg, p, YING_ALLOC_SPACE), YING_ENODATA,
	    "an index the profile lacks: ENODATA");
	ying_profile_free(p);

	/* seven callers: no hint */
	p = new_profile();
	for (i = 0; i < 7; i++) {
		snprintf(spec, sizeof(spec), "malloc;arena_grab;caller%d;main", i);
		add(p, spec, 1000);
	}
	ying_profile_symbolize(p, NULL, &o);
	is_int(ying_profile_wrapper_hint(&msg, p, YING_INUSE_SPACE), 0, "hint, 7 callers");
	ok(msg == NULL, "... none");
	ying_profile_free(p);

	/* many callers but under half of the heap: no hint */
	p = new_profile();
	for (i = 0; i < 10; i++) {
		snprintf(spec, sizeof(spec), "malloc;arena_grab;caller%d;main", i);
		add(p, spec, 100);
	}
	add(p, "malloc;big;main", 1100);
	ying_profile_symbolize(p, NULL, &o);
	is_int(ying_profile_wrapper_hint(&msg, p, YING_INUSE_SPACE), 0, "hint, 48 %");
	ok(msg == NULL, "... none");
	ying_profile_free(p);

	/* listed: trimmed, the callers lead, no hint */
	p = new_profile();
	for (i = 0; i < 9; i++) {
		snprintf(spec, sizeof(spec), "malloc;arena_grab;caller%d;main", i);
		add(p, spec, 1000);
	}
	o.frames = "arena_grab";
	ying_profile_symbolize(p, NULL, &o);
	is_int(ying_profile_wrapper_hint(&msg, p, YING_INUSE_SPACE), 0, "hint, listed");
	ok(msg == NULL, "... none");
	ying_profile_free(p);
	is_int(ying_profile_wrapper_hint(&msg, NULL, YING_INUSE_SPACE), YING_EINVAL, "no profile");
}

int
main(void)
{
	test_entries();
	test_parse();
	test_match();
	test_trim();
	test_hint();
	return tap_done();
}
