/*
 * run_preload.c: what `ying run` preloads into CMD: the agent (found next
 * to the build tree, then in the install directories), libjemalloc when
 * CMD brings none, or brings only a prefixed one of its own and --heaps=all
 * (its C code's malloc), and the LD_PRELOAD line made of them and the
 * user's; and the notice of which jemalloc CMD uses.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "run_elf.h"
#include "run.h"
#include "agent_paths.h"
#include "fe.h"

#define AGENT_SO "libying-agent.so"

static bool
path_join(char *out, size_t n, const char *dir, const char *name)
{
	int r = snprintf(out, n, "%s/%s", dir, name);

	return r > 0 && (size_t)r < n;
}

/* ld.so splits LD_PRELOAD at spaces and colons: a path holding one would
 * silently not load.  0, or -1 after saying so (what: where it came from). */
int
run_preload_path_ok(const char *what, const char *p)
{
	size_t k = strcspn(p, " :");

	if (p[k] == '\0')
		return 0;
	fprintf(stderr, "%s: %s %s contains %s: LD_PRELOAD is split at spaces and "
	    "colons, so it would not be loaded; use a path without them (a "
	    "symlink will do)\n", cli_prog, what, p,
	    p[k] == ' ' ? "a space" : "a colon");
	return -1;
}

/* Find the agent: --agent, $YING_AGENT_LIB, next to this binary (build
 * tree: .libs), then where make install puts it ($(pkglibdir), i.e.
 * $(libdir)/ying), then $(libdir), where installs before issue 23 put it. */
int
run_find_agent(const char *opt, char *out, size_t n)
{
	char exe[PATH_MAX], dir[PATH_MAX];
	const char *env = getenv("YING_AGENT_LIB");
	ssize_t len;

	if (opt || (env && *env)) {
		const char *p = opt ? opt : env;
		if (!run_is_file(p) || strlen(p) >= n) {
			fprintf(stderr, "%s: agent %s not found\n", cli_prog, p);
			return -1;
		}
		if (run_preload_path_ok(opt ? "--agent" : "YING_AGENT_LIB", p) != 0)
			return -1;
		memcpy(out, p, strlen(p) + 1);
		return 0;
	}
	if ((len = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		char *s;
		exe[len] = '\0';
		memcpy(dir, exe, (size_t)len + 1);
		if ((s = strrchr(dir, '/')) != NULL)
			*s = '\0';
		if (path_join(out, n, dir, ".libs/" AGENT_SO) && run_is_file(out))
			return 0;
		if (path_join(out, n, dir, AGENT_SO) && run_is_file(out))
			return 0;
	}
	if (path_join(out, n, YING_RUN_PKGLIBDIR, AGENT_SO) && run_is_file(out))
		return 0;
	if (path_join(out, n, YING_RUN_LIBDIR, AGENT_SO) && run_is_file(out))
		return 0;
	fprintf(stderr, "%s: cannot find %s (looked next to this program, in "
	    "%s and %s); set YING_AGENT_LIB or use --agent\n", cli_prog, AGENT_SO,
	    YING_RUN_PKGLIBDIR, YING_RUN_LIBDIR);
	return -1;
}

static int
find_jemalloc(char *out, size_t n, bool quiet)
{
	const char *env = getenv("YING_JEMALLOC_LIB");

	if (env && *env) {
		if (!run_is_file(env) || strlen(env) >= n) {
			fprintf(stderr, "%s: YING_JEMALLOC_LIB=%s: no such file\n", cli_prog, env);
			return -1;
		}
		if (run_preload_path_ok("YING_JEMALLOC_LIB", env) != 0)
			return -1;
		memcpy(out, env, strlen(env) + 1);
		return 0;
	}
	if (YING_RUN_JEMALLOC_LIBDIR[0] &&
	    path_join(out, n, YING_RUN_JEMALLOC_LIBDIR, JEMALLOC_SO) && run_is_file(out))
		return 0;
	for (const char *const *d = run_default_lib_dirs; *d; d++)
		if (path_join(out, n, *d, JEMALLOC_SO) && run_is_file(out))
			return 0;
	if (!quiet)
		fprintf(stderr, "%s: CMD does not link jemalloc and %s was not found "
		    "(apt-get install libjemalloc2, or set YING_JEMALLOC_LIB)\n", cli_prog,
		    JEMALLOC_SO);
	return -1;
}

static bool
preload_has(const char *preload, const char *what)
{
	return preload && strstr(preload, what) != NULL;
}


/* -v: the jemalloc CMD defines, in the words of the agent's own -v line
 * ("jemalloc: SYMBOL (TABLE of FILE)"), or why the agent cannot call it. */
void
run_say_jemalloc(const elf_scan *sc)
{
	const char *f = sc->jem_file ? sc->jem_file : "?";

	if (!sc->jemalloc_defined)
		return;
	if (sc->jem.where == YING_JEM_STRIPPED)
		fprintf(stderr, "%s: jemalloc: linked statically into %s, which is "
		    "stripped: no .symtab (the agent cannot call it; build with "
		    "symbols)\n", cli_prog, f);
	else
		fprintf(stderr, "%s: jemalloc: %s (%s of %s)\n", cli_prog,
		    sc->jem.symbol, sc->jem.where == YING_JEM_DYNSYM ? ".dynsym" :
		    ".symtab", f);
}

/* --heaps=all and a CMD whose own jemalloc is prefixed (Rust's _rjem_,
 * callable: in .dynsym or .symtab) and that links no plain one: its C
 * code's malloc is glibc's, so libjemalloc is preloaded for it too. */
static bool
second_heap(const elf_scan *sc, bool heaps_all, const char *preload)
{
	return heaps_all && sc->jemalloc_defined && sc->jem.prefix[0] &&
	    (sc->jem.where == YING_JEM_DYNSYM || sc->jem.where == YING_JEM_SYMTAB) &&
	    !sc->jemalloc_needed && !preload_has(preload, "libjemalloc");
}

/* The name of a prefixed jemalloc's heap (the contract's: "rust" for
 * _rjem_, else the prefix without underscores). */
static void
heap_name_of(const char *prefix, char *out, size_t n)
{
	size_t k = 0;

	if (strcmp(prefix, "_rjem_") == 0) {
		snprintf(out, n, "rust");
		return;
	}
	for (const char *p = prefix; *p && k + 1 < n; p++)
		if (*p != '_')
			out[k++] = *p;
	out[k] = '\0';
}

/* LD_PRELOAD: [jemalloc:]agent[:the user's] (jemalloc when the command
 * brings none, or brings a prefixed one only and heaps_all).  0 or -1
 * (said). */
int
run_preload(const elf_scan *sc, const char *path, const char *agent,
    const char *preload, bool heaps_all, bool verbose, bool quiet)
{
	bool second = second_heap(sc, heaps_all, preload);
	bool need_jem = second || (!sc->jemalloc_needed && !sc->jemalloc_defined &&
	    !preload_has(preload, "libjemalloc"));
	char jem[PATH_MAX], *pl;
	size_t n;
	int rc = 0;

	if (second && getenv("YING_JEMALLOC_LIB") == NULL &&
	    find_jemalloc(jem, sizeof(jem), true) != 0) {
		/* the program's own heap still works: one heap, said */
		fprintf(stderr, "%s: %s was not found: only %s's own heap (%s) is "
		    "profiled, its C code's malloc is not (apt-get install "
		    "libjemalloc2, or set YING_JEMALLOC_LIB)\n", cli_prog, JEMALLOC_SO,
		    path, sc->jem.prefix);
		second = need_jem = false;
	}
	if (need_jem && find_jemalloc(jem, sizeof(jem), false) != 0) {
		rc = -1;
	} else {
		n = strlen(agent) + (need_jem ? strlen(jem) + 1 : 0) +
		    (preload && *preload ? strlen(preload) + 1 : 0) + 1;
		if ((pl = malloc(n)) == NULL) {
			rc = -1;
		} else {
			snprintf(pl, n, "%s%s%s%s%s", need_jem ? jem : "",
			    need_jem ? ":" : "", agent, preload && *preload ? ":" : "",
			    preload && *preload ? preload : "");
			rc = run_set_env("LD_PRELOAD", pl, verbose);
			free(pl);
		}
	}
	if (rc == 0 && second && !quiet) {
		char name[32];
		const char *base = strrchr(path, '/');
		heap_name_of(sc->jem.prefix, name, sizeof(name));
		fprintf(stderr, "%s: heaps: %s (%s, in %s) and c (libjemalloc, "
		    "preloaded for its C code's malloc); --heaps=one for %s's only\n",
		    cli_prog, name, sc->jem.prefix, base ? base + 1 : path,
		    base ? base + 1 : path);
	}
	if (verbose && !need_jem)
		fprintf(stderr, "%s: %s brings its own jemalloc (%s); not "
		    "preloading another\n", cli_prog, path,
		    sc->jemalloc_by ? sc->jemalloc_by : "LD_PRELOAD");
	else if (verbose && rc == 0 && second)
		fprintf(stderr, "%s: jemalloc: %s's own is %s-prefixed; preloading "
		    "%s for the rest\n", cli_prog, path, sc->jem.prefix, jem);
	else if (verbose && rc == 0)
		fprintf(stderr, "%s: jemalloc: none in %s; preloading %s\n",
		    cli_prog, path, jem);
	return rc;
}

/* --name VALUE checked by the settings table's row; *out keeps VALUE as
 * written (the agent reads it by the same row). */
