/*
 * cli_util.c: helpers shared by the subcommands: error printing (one line,
 * then a hint at --help), option parsing without getopt's own messages,
 * loading dumps from files or URLs (with a bearer token from a file),
 * atomic output files.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fe.h"

const char *cli_prog = "ying";

/* Options of the URL reader (--token-file, --timeout), set by cli_getopt. */
static const char *fetch_token_file;
static double fetch_timeout;

int
cli_fail(int rc, const char *what)
{
	const char *detail = ying_last_error();
	size_t n = strlen(what);

	if (detail == NULL || *detail == '\0')
		detail = ying_strerror(rc);
	/* the detail of a file's error already starts with the file name */
	if (strncmp(detail, what, n) == 0 && detail[n] == ':')
		fprintf(stderr, "%s: %s\n", cli_prog, detail);
	else
		fprintf(stderr, "%s: %s: %s\n", cli_prog, what, detail);
	return CLI_EXIT_ERR;
}

int
cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	(void)cmd;
	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nsee '%s --help'\n", cli_prog);
	return CLI_EXIT_USAGE;
}

/* Report the option getopt_long just refused.  `at` is optind before the
 * call: a long option always moves optind past itself, a short one in the
 * middle of a cluster (-xl) does not. */
static void
bad_option(const cli_cmd *cmd, int c, char **argv, int at, const struct option *longopts)
{
	const char *arg = argv[optind - 1], *eq;
	size_t n, i, matches = 0;

	if (optind > at && strncmp(arg, "--", 2) == 0) {
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg) : strlen(arg);
		if (c == ':') {
			cli_usage_error(cmd, "option '%.*s' needs a value", (int)n, arg);
			return;
		}
		if (optopt != 0 && eq) {
			cli_usage_error(cmd, "option '%.*s' takes no value", (int)n, arg);
			return;
		}
		for (i = 0; longopts && longopts[i].name; i++)
			if (strncmp(longopts[i].name, arg + 2, n - 2) == 0)
				matches++;
		cli_usage_error(cmd, "%s option '%.*s'", matches > 1 ? "ambiguous" : "unknown",
		    (int)n, arg);
		return;
	}
	if (c == ':')
		cli_usage_error(cmd, "option '-%c' needs a value", optopt);
	else if (optopt > 0 && optopt < 256 && isprint(optopt))
		cli_usage_error(cmd, "unknown option '-%c'", optopt);
	else
		cli_usage_error(cmd, "unknown option (byte 0x%02x)", optopt & 0xff);
}

int
cli_getopt(const cli_cmd *cmd, int argc, char **argv, const char *shortopts,
    const struct option *longopts)
{
	char so[128];
	size_t lead = 0;
	char *end;
	int c, at;

	/* a leading ':' makes getopt return ':' for a missing value */
	if (shortopts[0] == '+' || shortopts[0] == '-')
		lead = 1;
	snprintf(so, sizeof(so), "%.*s:%s", (int)lead, shortopts, shortopts + lead);
	opterr = 0;
	for (;;) {
		at = optind;
		c = getopt_long(argc, argv, so, longopts, NULL);
		switch (c) {
		case CLI_OPT_TOKEN_FILE:
			fetch_token_file = optarg;
			continue;
		case CLI_OPT_TIMEOUT:
			errno = 0;
			fetch_timeout = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(fetch_timeout > 0) ||
			    fetch_timeout > 86400) {
				cli_usage_error(cmd, "--timeout wants seconds (0 < s <= 86400), "
				    "not '%s'", optarg);
				return '?';
			}
			continue;
		case '?':
		case ':':
			bad_option(cmd, c, argv, at, longopts);
			return '?';
		default:
			return c;
		}
	}
}

int
cli_help(const cli_cmd *cmd)
{
	fputs(cmd->usage, stdout);
	return CLI_EXIT_OK;
}

/* Read a secret (token, password): the first line of the file, without its line
 * end; opt names the option in messages.  Warns when others may read the file.  Returns a malloc'd string
 * (the caller wipes and frees it) or NULL after printing why. */
char *
cli_read_secret_file(const char *opt, const char *path)
{
	char buf[4100];
	struct stat st;
	size_t n;
	FILE *f;

	if ((f = fopen(path, "re")) == NULL) {
		fprintf(stderr, "%s: %s %s: cannot open: %s\n", cli_prog, opt, path,
		    strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s %s: not a regular file\n", cli_prog, opt, path);
		fclose(f);
		return NULL;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO))
		fprintf(stderr, "%s: warning: %s %s can be read by other users "
		    "(chmod 600 %s)\n", cli_prog, opt, path, path);
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	n = strcspn(buf, "\r\n");
	if (n == sizeof(buf) - 1) {
		fprintf(stderr, "%s: %s %s: first line longer than 4096 bytes\n",
		    cli_prog, opt, path);
		memset(buf, 0, sizeof(buf));
		return NULL;
	}
	buf[n] = '\0';
	if (n == 0) {
		fprintf(stderr, "%s: %s %s: the first line is empty (expected "
		    "the secret)\n", cli_prog, opt, path);
		return NULL;
	}
	{
		char *t = strdup(buf);
		memset(buf, 0, sizeof(buf));
		if (t == NULL)
			fprintf(stderr, "%s: out of memory\n", cli_prog);
		return t;
	}
}

int
cli_pyro_list_add(const cli_cmd *cmd, cli_pyro_lists *l, bool header, const char *arg)
{
	if (!header) {
		if (strchr(arg, ',') || !strchr(arg, '='))
			return cli_usage_error(cmd, "--tag %s: expected K=V (one tag per "
			    "--tag, no ',')", arg);
		if (l->tags_len + strlen(arg) + 2 > sizeof(l->tags))
			return cli_usage_error(cmd, "--tag: too many tags");
		l->tags_len += (size_t)snprintf(l->tags + l->tags_len,
		    sizeof(l->tags) - l->tags_len, "%s%s", l->tags_len ? "," : "", arg);
		return 0;
	}
	if (strchr(arg, '\n') || l->nheaders == 16 ||
	    l->headers_len + strlen(arg) + 2 > sizeof(l->headers))
		return cli_usage_error(cmd, "--pyroscope-header: at most 16 one-line "
		    "headers");
	l->header_v[l->nheaders++] = arg;
	l->header_v[l->nheaders] = NULL;
	l->headers_len += (size_t)snprintf(l->headers + l->headers_len,
	    sizeof(l->headers) - l->headers_len, "%s%s", l->headers_len ? "\n" : "", arg);
	return 0;
}

void
cli_pyro_lists_apply(cli_pyro_lists *l, ying_pyroscope_opts *o)
{
	l->header_v[l->nheaders] = NULL;
	o->tags = l->tags_len ? l->tags : NULL;
	o->headers = l->nheaders ? l->header_v : NULL;
}

static int
is_url(const char *path)
{
	return strncasecmp(path, "http://", 7) == 0 || strncasecmp(path, "https://", 8) == 0;
}

const char *cli_heap;

/* --heap: keep that heap of a loaded p (freed, NULL, after saying why). */
static ying_profile *
keep_heap(ying_profile *p)
{
	int rc;

	if (p == NULL || cli_heap == NULL)
		return p;
	if ((rc = ying_profile_keep_heap(p, cli_heap)) != 0) {
		cli_fail(rc, "--heap");
		ying_profile_free(p);
		return NULL;
	}
	return p;
}

static ying_profile *load(const char *path);

ying_profile *
cli_load(const char *path)
{
	return keep_heap(load(path));
}

static ying_profile *
load(const char *path)
{
	ying_fetch_opts fo = YING_FETCH_OPTS_INIT;
	ying_profile *p;
	char *token = NULL;
	int rc;

	if (!is_url(path)) {
		if ((rc = ying_profile_read_file(&p, path)) != 0) {
			cli_fail(rc, "cannot read profile");
			return NULL;
		}
		return p;
	}
	if (fetch_token_file && (token = cli_read_secret_file("--token-file", fetch_token_file)) == NULL)
		return NULL;
	fo.token = token;
	fo.timeout = fetch_timeout;
	rc = ying_profile_read_url(&p, path, &fo);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	if (rc != 0) {
		cli_fail(rc, "cannot fetch profile");
		return NULL;
	}
	return p;
}

/* A temporary name next to path: DIR/.BASE.XXXXXX (BASE cut to 64 bytes so
 * that the name stays short); malloc'd, or NULL. */
static char *
tmp_template(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	size_t n = strlen(path) + 16;
	char *t = malloc(n);

	if (t != NULL)
		snprintf(t, n, "%.*s.%.64s.XXXXXX", dirlen, path, base);
	return t;
}

/* A FIFO or character device at path (/dev/null, /dev/tty, a named
 * pipe) is written through, not replaced by a renamed file; through a
 * symlink only when root or this user owns the link (one planted by
 * someone else is replaced, never followed).  A descriptor, or -1 to take
 * the temporary-and-rename way. */
static int
open_special(const char *path)
{
	struct stat lst, st;
	int fd;

	if (lstat(path, &lst) != 0)
		return -1;
	if (S_ISLNK(lst.st_mode) && lst.st_uid != 0 && lst.st_uid != geteuid())
		return -1;
	if (!S_ISLNK(lst.st_mode) && !S_ISFIFO(lst.st_mode) && !S_ISCHR(lst.st_mode))
		return -1;
	if (S_ISLNK(lst.st_mode) && (stat(path, &st) != 0 ||
	    !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))))
		return -1;
	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) ||
	    S_ISCHR(st.st_mode)))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int
cli_open_output(cli_output *o, const char *path)
{
	mode_t mask;
	int fd, e;

	memset(o, 0, sizeof(*o));
	/* /dev/stdout is the standard output whatever it is (a file would
	 * otherwise be renamed over the symlink in /dev) */
	if (path == NULL || strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) {
		o->f = stdout;
		return 0;
	}
	if ((fd = open_special(path)) >= 0) {
		if ((o->f = fdopen(fd, "wb")) == NULL) {
			close(fd);
			fprintf(stderr, "%s: cannot write %s: %s\n", cli_prog, path,
			    strerror(errno));
			return YING_EIO;
		}
		o->path = strdup(path);     /* for messages; no tmp: no rename */
		return 0;
	}
	o->path = strdup(path);
	o->tmp = tmp_template(path);
	if (o->path == NULL || o->tmp == NULL) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		return YING_ENOMEM;
	}
	/* An unpredictable name, created exclusively (mkostemp: O_CREAT|O_EXCL,
	 * so neither a planted symlink nor a file someone else created first
	 * is ever written through), 0600 until it is whole; then the mode a
	 * new file gets under the umask, as fopen would have given it. */
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd >= 0) {
		mask = umask(077);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask) != 0 || (o->f = fdopen(fd, "wb")) == NULL) {
			e = errno;
			close(fd);
			unlink(o->tmp);
			errno = e;
			fd = -1;
		}
	}
	if (fd < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", cli_prog, path, strerror(errno));
		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		return YING_EIO;
	}
	return 0;
}

int
cli_close_output(cli_output *o, int rc)
{
	if (o->f == NULL)
		return rc;
	if (o->f == stdout) {
		if (fflush(stdout) != 0 && rc == 0) {
			fprintf(stderr, "%s: write to standard output failed: %s\n", cli_prog,
			    strerror(errno));
			rc = YING_EIO;
		}
		o->f = NULL;
		return rc;
	}
	if (fclose(o->f) != 0 && rc == 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", cli_prog,
		    o->path ? o->path : "the output", strerror(errno));
		rc = YING_EIO;
	}
	if (o->tmp == NULL) {       /* a FIFO or device, written through */
		free(o->path);
		memset(o, 0, sizeof(*o));
		return rc;
	}
	if (rc == 0 && rename(o->tmp, o->path) != 0) {
		fprintf(stderr, "%s: cannot create %s: %s\n", cli_prog, o->path, strerror(errno));
		rc = YING_EIO;
	}
	if (rc != 0)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	return rc;
}

int
cli_sample_index(const cli_cmd *cmd, const char *arg, ying_sample_index *out)
{
	if (ying_sample_index_parse(out, arg) != 0)
		return cli_usage_error(cmd, "%s", ying_last_error());
	return 0;
}

int
cli_one_dump(const cli_cmd *cmd, int argc, char **argv, ying_symbolize_opts *sopts,
    const char *out_path, cli_write_fn write, const void *wopts)
{
	ying_profile *p;
	cli_output out;
	int rc;

	if (optind + 1 != argc)
		return cli_usage_error(cmd, optind == argc ? "no dump given" :
		    "one dump at a time (for two, use yingdiff BASE NOW)");
	if ((p = cli_load(argv[optind])) == NULL)
		return CLI_EXIT_ERR;
	if (sopts != NULL) {
		if (cli_symbolize_env(sopts) != 0) {
			ying_profile_free(p);
			return CLI_EXIT_ERR;
		}
		if ((rc = ying_profile_symbolize(p, NULL, sopts)) != 0) {
			ying_profile_free(p);
			return rc == YING_EINVAL ? cli_usage_error(cmd, "%s", ying_last_error()) :
			    cli_fail(rc, "cannot symbolize");
		}
		if (cli_hint_index >= 0)
			cli_hint(p, (ying_sample_index)cli_hint_index);
	}
	if (cli_open_output(&out, out_path) != 0) {
		ying_profile_free(p);
		return CLI_EXIT_ERR;
	}
	rc = write(p, wopts, ying_write_file, out.f);
	if (rc == YING_EINVAL) {
		cli_close_output(&out, rc);
		ying_profile_free(p);
		return cli_usage_error(cmd, "%s", ying_last_error());
	}
	if (rc != 0)
		cli_fail(rc, argv[optind]);
	rc = cli_close_output(&out, rc);
	ying_profile_free(p);
	return rc ? CLI_EXIT_ERR : CLI_EXIT_OK;
}

bool
cli_symbolize_opt(int c, const char *arg, ying_symbolize_opts *s)
{
	switch (c) {
	case CLI_OPT_BINARY: s->binary = arg; return true;
	case CLI_OPT_BINARY_PATH: s->search_path = arg; return true;
	case CLI_OPT_DROP_FRAMES: s->drop_frames = arg; return true;
	case CLI_OPT_KEEP_ALLOCATOR_FRAMES: s->keep_allocator_frames = 1; return true;
	case CLI_OPT_FULL_NAMES: s->full_names = 1; return true;
	case CLI_OPT_HEAP: cli_heap = arg; return true;
	default: return false;
	}
}

int
cli_symbolize_env(ying_symbolize_opts *s)
{
	s->warnings = stderr;
	if (s->search_path == NULL)
		s->search_path = getenv("YING_BINARY_PATH");
	s->debuginfod = cli_debuginfod();
	return cli_frames(&s->frames);
}

/* The user's allocator frames, read once per run (fe_frames.c). */
static char *frames_text;
static bool frames_read;

int
cli_frames(const char **out)
{
	char why[700];

	if (!frames_read) {
		if (yfe_frames_load(&frames_text, true, NULL, cli_prog, why, sizeof(why)) != 0) {
			fprintf(stderr, "%s: %s\n", cli_prog, why);
			*out = NULL;
			return CLI_EXIT_ERR;
		}
		frames_read = true;
	}
	*out = frames_text;
	return 0;
}

int cli_hint_index = -1;

void
cli_hint(const ying_profile *p, ying_sample_index idx)
{
	char *msg = NULL, *path;

	if (ying_profile_wrapper_hint(&msg, p, idx) != 0 || msg == NULL)
		return;
	path = yfe_frames_path();
	fprintf(stderr, "%s: hint: %s: if it is an allocator wrapper, add it to %s "
	    "(or YING_DROP_FRAMES)\n", cli_prog, msg, path ? path : "~/.config/ying/frames");
	free(path);
	ying_free(msg);
}

/*
 * Ask debuginfod when DEBUGINFOD_URLS names a server (libdebuginfod reads
 * it, and DEBUGINFOD_CACHE_PATH, itself).  A server that does not answer
 * is waited for DEBUGINFOD_TIMEOUT seconds per file, libdebuginfod's 90
 * when unset: the command line sets 10 then, so an unreachable server
 * costs seconds, not minutes.  Only here, in a command that symbolizes:
 * the agent and the runtime never ask.
 */
int
cli_debuginfod(void)
{
	const char *u = getenv("DEBUGINFOD_URLS");

	if (u == NULL || u[strspn(u, " \t")] == '\0')
		return 0;
	setenv("DEBUGINFOD_TIMEOUT", "10", 0);
	return 1;
}

bool
cli_is_url(const char *path)
{
	return is_url(path);
}

int
cli_fetch_body(const char *url, char **out, size_t *len)
{
	ying_fetch_opts fo = YING_FETCH_OPTS_INIT;
	char *token = NULL;
	int rc;

	*out = NULL;
	if (fetch_token_file && (token = cli_read_secret_file("--token-file",
	    fetch_token_file)) == NULL)
		return YING_EINVAL;
	fo.token = token;
	fo.timeout = fetch_timeout;
	rc = ying_fetch_body(out, len, url, &fo);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	return rc;
}
