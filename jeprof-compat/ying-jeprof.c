/*
 * ying-jeprof: jeprof's command line with ying's answers.
 *
 * A thin front end over libying (include/ying.h only): it parses jeprof's
 * options (--opt, -opt, --opt=VALUE, --opt VALUE, as Perl's Getopt::Long
 * does), reads the profiles (files or http:// URLs), symbolizes them with
 * the program argument as the binary, sums several and subtracts --base
 * (ying_profile_merge), and hands the result to one writer:
 * ying_profile_write_jeprof (--text, --list), ying_profile_write_folded
 * (--collapsed), ying_profile_write_raw (--raw).  Every jeprof option it
 * does not implement exits 2 naming the ying command that does the job;
 * unknown options exit 2 too.  Exit status: 0 success, 1 bad input or I/O,
 * 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ying-live.h>

#include "fe.h"

#define PROG "ying-jeprof"

static const char usage_text[] =
    "usage: " PROG " [options] [program] profile...\n"
    "       " PROG " [options] [program] http://HOST:PORT[/pprof/heap]\n"
    "jeprof's command line with ying's symbolization (see ying-jeprof(1)).\n"
    "Several profiles are summed; --base=FILE is subtracted.  A first\n"
    "argument that is an ELF file is the program (symbols come from it).\n"
    "\n"
    "Output (one; default --text when stdout is not a terminal):\n"
    "  --text                 the flat/cum table with jeprof's Total line\n"
    "  --collapsed            folded stacks (flame graph input)\n"
    "  --raw                  the symbolized profile (jeprof reads it alone)\n"
    "  --list=RE              annotated source of the matching functions\n"
    "  --dot                  the call graph (Graphviz DOT)\n"
    "  --svg, --pdf, --png    the call graph rendered by Graphviz dot\n"
    "Granularity: --functions (default) --lines --addresses --files\n"
    "Values: --inuse_space (default) --inuse_objects --alloc_space\n"
    "        --alloc_objects --show_bytes\n"
    "Filters: --focus=RE --ignore=RE --cum --base=FILE --drop_negative\n"
    "Graph options (no effect on --text, as in jeprof):\n"
    "        --nodecount=N --nodefraction=F --edgefraction=F --maxdegree=N\n"
    "  --version, --help\n"
    "Interactive mode and the other jeprof options are not supported: each\n"
    "exits 2 naming the ying command to use instead.\n";

enum {
	O_TEXT = 0x100, O_COLLAPSED, O_RAW, O_LIST, O_DOT, O_SVG, O_PDF, O_PNG,
	O_FUNCTIONS, O_LINES, O_ADDRESSES, O_FILES,
	O_INUSE_SPACE, O_INUSE_OBJECTS, O_ALLOC_SPACE, O_ALLOC_OBJECTS,
	O_SHOW_BYTES, O_DROP_NEGATIVE, O_CUM, O_FOCUS, O_IGNORE, O_BASE,
	O_NODECOUNT, O_NODEFRACTION, O_EDGEFRACTION, O_MAXDEGREE,
	O_VERSION, O_HELP,
	O_UNSUPPORTED = 0x200   /* + index in unsupported[] */
};

/* jeprof's options that ying-jeprof does not implement, and what to use. */
static const struct {
	const char *name;
	int has_arg;
	const char *instead;
} unsupported[] = {
	{ "callgrind", no_argument, "ying pprof DUMP -o x.pb.gz, then pprof -callgrind x.pb.gz" },
	{ "gv", no_argument, "--svg > x.svg (or ying callgraph DUMP -o x.svg) and open it" },
	{ "evince", no_argument, "--pdf > x.pdf (or ying callgraph DUMP -o x.pdf) and open it" },
	{ "web", no_argument, "--svg > x.svg and open it in a browser, or ying flamegraph DUMP -o x.svg" },
	{ "ps", no_argument, "--pdf or --svg (or ying callgraph DUMP -o x.pdf)" },
	{ "gif", no_argument, "--png (or ying callgraph DUMP -o x.png)" },
	{ "disasm", required_argument, "ying top --lines DUMP (per line), then objdump -d" },
	{ "symbols", no_argument, "ying pprof DUMP (symbolized pprof) or ying top" },
	{ "interactive", no_argument, "ying top DUMP with its options, or ying flamegraph" },
	{ "retain", required_argument, "--focus=RE (whole stacks), or ying --drop-frames for leading frames" },
	{ "exclude", required_argument, "--ignore=RE (whole stacks), or ying --drop-frames for leading frames" },
	{ "thread", required_argument, "ying top (all threads; per-thread reports are not offered)" },
	{ "heapcheck", no_argument, "ying top (gperftools heap checker profiles are not jemalloc's)" },
	{ "seconds", required_argument, "ying run --http and fetch twice, then yingdiff A B (heap profiles are not timed)" },
	{ "add_lib", required_argument, "ying top --binary-path DIR DUMP (or YING_BINARY_PATH=DIR ying-jeprof ...)" },
	{ "lib_prefix", required_argument, "ying top --binary-path DIR DUMP (or YING_BINARY_PATH=DIR ying-jeprof ...)" },
	{ "tools", required_argument, "nothing: ying needs no objdump, nm or addr2line" },
	{ "scale", required_argument, "--dot/--svg as they are (nodes are sized by value already)" },
	{ "debug", no_argument, "YING_VERBOSE=1, or ying top --json" },
	{ "test", no_argument, "make check in ying's tree" },
	{ "total_delay", no_argument, "nothing: contention profiles are not jemalloc heap profiles" },
	{ "contentions", no_argument, "nothing: contention profiles are not jemalloc heap profiles" },
	{ "mean_delay", no_argument, "nothing: contention profiles are not jemalloc heap profiles" },
	{ "debug-syms-by-id", no_argument, "nothing: ying checks build IDs itself" },
	{ "test_stride", required_argument, "make check in ying's tree" },
};
#define N_UNSUPPORTED (sizeof(unsupported) / sizeof(unsupported[0]))

static const struct option supported[] = {
	{ "text", no_argument, NULL, O_TEXT },
	{ "collapsed", no_argument, NULL, O_COLLAPSED },
	{ "raw", no_argument, NULL, O_RAW },
	{ "list", required_argument, NULL, O_LIST },
	{ "dot", no_argument, NULL, O_DOT },
	{ "svg", no_argument, NULL, O_SVG },
	{ "pdf", no_argument, NULL, O_PDF },
	{ "png", no_argument, NULL, O_PNG },
	{ "functions", no_argument, NULL, O_FUNCTIONS },
	{ "lines", no_argument, NULL, O_LINES },
	{ "addresses", no_argument, NULL, O_ADDRESSES },
	{ "files", no_argument, NULL, O_FILES },
	{ "inuse_space", no_argument, NULL, O_INUSE_SPACE },
	{ "inuse_objects", no_argument, NULL, O_INUSE_OBJECTS },
	{ "alloc_space", no_argument, NULL, O_ALLOC_SPACE },
	{ "alloc_objects", no_argument, NULL, O_ALLOC_OBJECTS },
	{ "show_bytes", no_argument, NULL, O_SHOW_BYTES },
	{ "drop_negative", no_argument, NULL, O_DROP_NEGATIVE },
	{ "cum", no_argument, NULL, O_CUM },
	{ "focus", required_argument, NULL, O_FOCUS },
	{ "ignore", required_argument, NULL, O_IGNORE },
	{ "base", required_argument, NULL, O_BASE },
	{ "nodecount", required_argument, NULL, O_NODECOUNT },
	{ "nodefraction", required_argument, NULL, O_NODEFRACTION },
	{ "edgefraction", required_argument, NULL, O_EDGEFRACTION },
	{ "maxdegree", required_argument, NULL, O_MAXDEGREE },
	{ "version", no_argument, NULL, O_VERSION },
	{ "help", no_argument, NULL, O_HELP },
};
#define N_SUPPORTED (sizeof(supported) / sizeof(supported[0]))

typedef struct args {
	int mode;                       /* O_TEXT, O_COLLAPSED, O_RAW, O_LIST; 0 = default */
	const char *mode_name;
	ying_jeprof_opts text;
	ying_dot_opts dot;
	int drop_negative;
	const char *base;
	int nsample_index;
} args;

static int
usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nsee '" PROG " --help'\n");
	return 2;
}

static int
fail(const char *what)
{
	const char *detail = ying_last_error();
	size_t n = strlen(what);

	if (strncmp(detail, what, n) == 0 && detail[n] == ':')
		fprintf(stderr, PROG ": %s\n", detail);
	else
		fprintf(stderr, PROG ": %s: %s\n", what, *detail ? detail : "failed");
	return 1;
}

/* A number in [min, max] into *out; a usage error otherwise. */
static int
number(const char *opt, const char *arg, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= min && v <= max))
		return usage_error("bad number for --%s", opt);
	*out = v;
	return 0;
}

static int
set_mode(args *a, int mode, const char *name)
{
	if (a->mode && a->mode != mode) {
		fprintf(stderr, PROG ": --%s and --%s: only one output option\n", a->mode_name, name);
		return 2;
	}
	a->mode = mode;
	a->mode_name = name;
	return 0;
}

static int
is_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

static int
is_elf(const char *path)
{
	unsigned char m[4];
	FILE *f = fopen(path, "rb");
	int r;

	if (f == NULL)
		return 0;
	r = fread(m, 1, 4, f) == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F';
	fclose(f);
	return r;
}

/* The user's allocator frames ($XDG_CONFIG_HOME/ying/frames,
 * YING_DROP_FRAMES: fe_frames.c), read once in main; NULL = none. */
static char *user_frames;

static ying_profile *
load(const char *path, ying_symbolizer *s, const char *program)
{
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;
	ying_profile *p = NULL;
	int rc;

	rc = is_url(path) ? ying_profile_read_url(&p, path, NULL) : ying_profile_read_file(&p, path);
	if (rc != 0) {
		fail(path);
		return NULL;
	}
	/* jeprof's sums of unrounded estimates, to the byte */
	(void)ying_profile_use_jeprof_values(p);
	/* remote mode: names from the server's /pprof/symbol first (jeprof's
	 * way: the binaries need not be here); ying_profile_symbolize then
	 * names what is left with the local files and trims */
	if (is_url(path)) {
		size_t named = 0;
		if ((rc = ying_profile_symbolize_remote(&named, p, path, NULL)) != 0)
			fprintf(stderr, PROG ": warning: %s; symbolizing with the local files\n",
			    ying_last_error());
	}
	so.binary = program;
	so.search_path = getenv("YING_BINARY_PATH");
	so.warnings = stderr;
	so.frames = user_frames;
	if ((rc = ying_profile_symbolize(p, s, &so)) != 0) {
		fail(path);
		ying_profile_free(p);
		return NULL;
	}
	return p;
}

static int
parse(args *a, int argc, char **argv)
{
	struct option longopts[N_SUPPORTED + N_UNSUPPORTED + 1];
	size_t i;
	double v;
	int c, rc;

	memcpy(longopts, supported, sizeof(supported));
	for (i = 0; i < N_UNSUPPORTED; i++)
		longopts[N_SUPPORTED + i] = (struct option){ unsupported[i].name,
		    unsupported[i].has_arg == required_argument ? optional_argument : no_argument,
		    NULL, O_UNSUPPORTED + (int)i };
	memset(&longopts[N_SUPPORTED + N_UNSUPPORTED], 0, sizeof(struct option));
	opterr = 0;
	while ((c = getopt_long_only(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_TEXT: if ((rc = set_mode(a, c, "text"))) return rc; break;
		case O_COLLAPSED: if ((rc = set_mode(a, c, "collapsed"))) return rc; break;
		case O_RAW: if ((rc = set_mode(a, c, "raw"))) return rc; break;
		case O_DOT: if ((rc = set_mode(a, c, "dot"))) return rc; break;
		case O_SVG: if ((rc = set_mode(a, c, "svg"))) return rc; break;
		case O_PDF: if ((rc = set_mode(a, c, "pdf"))) return rc; break;
		case O_PNG: if ((rc = set_mode(a, c, "png"))) return rc; break;
		case O_LIST:
			if ((rc = set_mode(a, c, "list")))
				return rc;
			a->text.list = optarg;
			break;
		case O_FUNCTIONS: a->text.granularity = YING_BY_FUNCTION; break;
		case O_LINES: a->text.granularity = YING_BY_LINE; break;
		case O_ADDRESSES: a->text.granularity = YING_BY_ADDRESS; break;
		case O_FILES: a->text.granularity = YING_BY_FILE; break;
		case O_INUSE_SPACE: case O_INUSE_OBJECTS: case O_ALLOC_SPACE: case O_ALLOC_OBJECTS:
			a->text.sample_index = (ying_sample_index)(c - O_INUSE_SPACE);
			if (++a->nsample_index > 1) {
				fprintf(stderr, PROG ": give only one of --inuse_space, --inuse_objects, "
				    "--alloc_space, --alloc_objects\n");
				return 2;
			}
			break;
		case O_SHOW_BYTES: a->text.show_bytes = 1; break;
		case O_DROP_NEGATIVE: a->drop_negative = 1; break;
		case O_CUM: a->text.sort_cum = 1; break;
		case O_FOCUS: a->text.focus = optarg; break;
		case O_IGNORE: a->text.ignore = optarg; break;
		case O_BASE: a->base = optarg; break;
		case O_NODECOUNT:
			if (number("nodecount", optarg, 1, 1e9, &v))
				return 2;
			a->dot.nodecount = (size_t)v;
			break;
		case O_MAXDEGREE:
			if (number("maxdegree", optarg, 1, 1e6, &v))
				return 2;
			a->dot.maxdegree = (int)v;
			break;
		case O_NODEFRACTION:
			if (number("nodefraction", optarg, 0, 1, &a->dot.nodefraction))
				return 2;
			break;
		case O_EDGEFRACTION:
			if (number("edgefraction", optarg, 0, 1, &a->dot.edgefraction))
				return 2;
			break;
		case O_VERSION:
			printf(PROG " %s (libying %s): jeprof's command line, ying's answers\n",
			    YING_VERSION_STRING, ying_version());
			return -1;
		case O_HELP:
			fputs(usage_text, stdout);
			return -1;
		case '?':
			if (optopt)
				return usage_error("unknown option -%c", (char[]){ (char)optopt, 0 });
			return usage_error("unknown option or bad value: %s", argv[optind - 1]);
		default:
			if (c >= O_UNSUPPORTED && c < O_UNSUPPORTED + (int)N_UNSUPPORTED) {
				i = (size_t)(c - O_UNSUPPORTED);
				fprintf(stderr, PROG ": --%s is not supported: use %s\n",
				    unsupported[i].name, unsupported[i].instead);
				return 2;
			}
			return usage_error("unexpected option %s", argv[optind - 1]);
		}
	}
	return 0;
}

/* --dot: ying's call graph; --svg/--pdf/--png: rendered by Graphviz dot. */
static int
write_graph(args *a, ying_profile *p)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	int rc;

	a->dot.sample_index = a->text.sample_index;
	a->dot.granularity = a->text.granularity;
	a->dot.focus = a->text.focus;
	a->dot.ignore = a->text.ignore;
	a->dot.show_bytes = a->text.show_bytes;
	if (a->mode == O_DOT)
		return ying_profile_write_dot(p, &a->dot, ying_write_file, stdout);
	if ((rc = ying_profile_write_dot(p, &a->dot, ying_write_membuf, &mb)) == 0)
		rc = ying_graphviz_render(a->mode_name, mb.data, mb.len, ying_write_file, stdout);
	ying_membuf_release(&mb);
	return rc;
}

int
main(int argc, char **argv)
{
	ying_jeprof_opts init = YING_JEPROF_OPTS_INIT;
	ying_dot_opts dinit = YING_DOT_OPTS_INIT;
	ying_merge_opts mo = YING_MERGE_OPTS_INIT;
	ying_profile **ps = NULL, *base = NULL, *merged = NULL, *p;
	ying_symbolizer *sym = NULL;
	const char *program = NULL;
	args a;
	int rc, first, n, i, status = 1;

	memset(&a, 0, sizeof(a));
	a.text = init;
	a.dot = dinit;
	if ((rc = parse(&a, argc, argv)) != 0)
		return rc < 0 ? 0 : rc;
	first = optind;
	if (argc - first >= 2 && !is_url(argv[first]) && is_elf(argv[first]))
		program = argv[first++];
	n = argc - first;
	if (n < 1)
		return usage_error("%s", "no profile given");
	if (n == 1 && is_elf(argv[first]))
		return usage_error("%s is a program: give a profile after it", argv[first]);
	if (a.mode == 0) {
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr, PROG ": interactive mode is not supported: give --text "
			    "(or another output option), or pipe the output\n");
			return 2;
		}
		a.mode = O_TEXT;
	}
	if (a.mode == O_COLLAPSED && (a.text.focus || a.text.ignore)) {
		fprintf(stderr, PROG ": --focus/--ignore with --collapsed is not supported: "
		    "use ying folded DUMP | grep -e RE\n");
		return 2;
	}
	if ((a.mode == O_DOT || a.mode == O_SVG || a.mode == O_PDF || a.mode == O_PNG) &&
	    (a.text.granularity == YING_BY_ADDRESS || a.text.granularity == YING_BY_FILE)) {
		fprintf(stderr, PROG ": --%s with --addresses or --files is not supported: use "
		    "--functions or --lines\n", a.mode_name);
		return 2;
	}
	if (a.mode == O_RAW && (n > 1 || a.base)) {
		fprintf(stderr, PROG ": --raw takes one profile (no --base): a sum or difference "
		    "has no raw counts\n");
		return 2;
	}
	if (a.mode == O_RAW && (a.text.focus || a.text.ignore)) {
		fprintf(stderr, PROG ": --focus/--ignore with --raw is not supported "
		    "(the raw profile is the whole dump)\n");
		return 2;
	}
	if (a.drop_negative && !a.base) {
		fprintf(stderr, PROG ": --drop_negative needs --base\n");
		return 2;
	}
	{
		char why[700];
		if (yfe_frames_load(&user_frames, true, NULL, PROG, why, sizeof(why)) != 0) {
			fprintf(stderr, PROG ": %s\n", why);
			return 1;
		}
	}
	if ((rc = ying_symbolizer_new(&sym)) != 0)
		return fail("symbolizer");
	if ((ps = calloc((size_t)n, sizeof(*ps))) == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	for (i = 0; i < n; i++)
		if ((ps[i] = load(argv[first + i], sym, program)) == NULL)
			goto out;
	if (a.base && (base = load(a.base, sym, program)) == NULL)
		goto out;
	p = ps[0];
	if (n > 1 || base) {
		mo.drop_negative = a.drop_negative;
		if ((rc = ying_profile_merge(&merged, ps, (size_t)n, base, &mo)) != 0) {
			fail(a.base ? a.base : argv[first]);
			goto out;
		}
		p = merged;
	}
	switch (a.mode) {
	case O_COLLAPSED: {
		ying_folded_opts fo = YING_FOLDED_OPTS_INIT;
		fo.sample_index = a.text.sample_index;
		rc = ying_profile_write_folded(p, &fo, ying_write_file, stdout);
		break;
	}
	case O_DOT: case O_SVG: case O_PDF: case O_PNG:
		rc = write_graph(&a, p);
		break;
	case O_RAW:
		rc = ying_profile_write_raw(p, program ? program : ying_profile_program(p),
		    ying_write_file, stdout);
		break;
	default:
		rc = ying_profile_write_jeprof(p, &a.text, ying_write_file, stdout);
		break;
	}
	if (rc == 0 && fflush(stdout) != 0)
		rc = YING_EIO;
	if (rc == YING_EINVAL) {
		fprintf(stderr, PROG ": %s\n", ying_last_error());
		status = 2;
	} else if (rc != 0) {
		char opt[16];
		snprintf(opt, sizeof(opt), "--%s", a.mode_name ? a.mode_name : "text");
		/* a Graphviz failure is not the profile's */
		fail(a.mode == O_SVG || a.mode == O_PDF || a.mode == O_PNG ? opt : argv[first]);
	} else {
		status = 0;
	}
out:
	ying_profile_free(merged);
	ying_profile_free(base);
	for (i = 0; ps && i < n; i++)
		ying_profile_free(ps[i]);
	free(ps);
	ying_symbolizer_free(sym);
	free(user_frames);
	return status;
}
