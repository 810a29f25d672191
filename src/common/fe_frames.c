/*
 * fe_frames.c: the user's own allocator wrappers for every front end (ying's
 * commands, yingdiff, ying-jeprof, the agent): the file
 * $XDG_CONFIG_HOME/ying/frames (~/.config/ying/frames without
 * XDG_CONFIG_HOME) and YING_DROP_FRAMES (the same entries separated by ';'
 * or newlines, after the file's), as one text for
 * ying_symbolize_opts.frames.  libying reads no file; this is where they
 * are read, once per program.  Each line is checked with
 * ying_frames_entry_check so that a bad entry is named by FILE:LINE (or
 * YING_DROP_FRAMES:N); a missing file is not an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fe.h"

#define FRAMES_FILE_MAX (1 << 20)

char *
yfe_frames_path(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	const char *base = x && x[0] == '/' ? x : h && *h ? h : NULL;
	const char *rest = x && x[0] == '/' ? "/ying/frames" : "/.config/ying/frames";
	char *p;

	if (base == NULL || (p = malloc(strlen(base) + strlen(rest) + 1)) == NULL)
		return NULL;
	strcpy(p, base);
	strcat(p, rest);
	return p;
}

typedef struct acc {
	char *text;
	size_t n, cap;
	bool strict;
	FILE *warn;
	const char *prog;
	char *why;
	size_t wn;
	int bad;
} acc;

static int
put(acc *a, const char *s, size_t len)
{
	if (a->n + len + 2 > a->cap) {
		size_t nc = (a->cap ? a->cap * 2 : 256) + len;
		char *t = realloc(a->text, nc);
		if (t == NULL) {
			snprintf(a->why, a->wn, "out of memory reading the frames list");
			return -1;
		}
		a->text = t;
		a->cap = nc;
	}
	memcpy(a->text + a->n, s, len);
	a->n += len;
	a->text[a->n++] = '\n';
	a->text[a->n] = '\0';
	return 0;
}

/* A problem: a warning, or (strict) the error. */
static int
problem(acc *a, const char *where, size_t line, const char *what)
{
	char msg[600];

	if (line)
		snprintf(msg, sizeof(msg), "%s:%zu: %s", where, line, what);
	else
		snprintf(msg, sizeof(msg), "%s: %s", where, what);
	a->bad++;
	if (a->strict) {
		snprintf(a->why, a->wn, "%s", msg);
		return -1;
	}
	if (a->warn)
		fprintf(a->warn, "%s: warning: %s (left out)\n", a->prog, msg);
	return 0;
}

/* Add the entries of s[0..len), split at any of `seps`, from `where`. */
static int
add_lines(acc *a, const char *s, size_t len, const char *seps, const char *where)
{
	size_t line = 0, i = 0;

	while (i < len) {
		size_t j = i;
		while (j < len && strchr(seps, s[j]) == NULL)
			j++;
		line++;
		if (ying_frames_entry_check(s + i, j - i) != 0) {
			if (problem(a, where, line, ying_last_error()) != 0)
				return -1;
		} else if (put(a, s + i, j - i) != 0) {
			return -1;
		}
		i = j + 1;
	}
	return 0;
}

static int
add_file(acc *a, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf, what[300];
	size_t n;
	int rc;

	if (f == NULL) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(what, sizeof(what), "cannot read: %s", strerror(errno));
		return problem(a, path, 0, what);
	}
	if ((buf = malloc(FRAMES_FILE_MAX + 1)) == NULL) {
		fclose(f);
		snprintf(a->why, a->wn, "out of memory reading %s", path);
		return -1;
	}
	n = fread(buf, 1, FRAMES_FILE_MAX + 1, f);
	if (ferror(f)) {
		snprintf(what, sizeof(what), "cannot read: %s", strerror(errno));
		rc = problem(a, path, 0, what);
	} else if (n > FRAMES_FILE_MAX) {
		rc = problem(a, path, 0, "larger than 1 MiB, not read");
	} else if (memchr(buf, '\0', n) != NULL) {
		rc = problem(a, path, 0, "a NUL byte: not a text file, not read");
	} else {
		rc = add_lines(a, buf, n, "\n", path);
	}
	free(buf);
	fclose(f);
	return rc;
}

int
yfe_frames_load(char **out, bool strict, FILE *warn, const char *prog, char *why, size_t wn)
{
	acc a = { NULL, 0, 0, strict, warn, prog, why, wn, 0 };
	const char *e = getenv("YING_DROP_FRAMES");
	char *path = yfe_frames_path();
	int rc = path ? add_file(&a, path) : 0;

	*out = NULL;
	if (rc == 0 && e != NULL && *e)
		rc = add_lines(&a, e, strlen(e), ";\n", "YING_DROP_FRAMES");
	free(path);
	if (rc != 0) {
		free(a.text);
		return -1;
	}
	*out = a.text;
	return 0;
}
