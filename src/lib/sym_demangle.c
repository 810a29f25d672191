/*
 * sym_demangle.c: C++ and legacy Rust symbol names made readable.
 *
 * C++ names go through __cxa_demangle, found at run time with dlsym so
 * libying stays plain C (no libstdc++ linked); legacy Rust names
 * (_ZN...17h<hash>E) are demangled here and lose their hash.  The mangled
 * name is kept by the caller as the system name.
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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "sym_int.h"

/* ---- demangling ---------------------------------------------------------- */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void
cxa_init(void)
{
	void *h, *f;

	/* In a C++ process libstdc++ is already loaded; else load it once and
	 * keep it (never dlclose: the function pointer must stay valid). */
	f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (f == NULL && (h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL)) != NULL)
		f = dlsym(h, "__cxa_demangle");
	if (f != NULL)
		memcpy(&cxa_demangle, &f, sizeof(f));
}

static bool
is_hex_hash(const char *s, size_t n)
{
	size_t i;

	if (n != 17 || s[0] != 'h')
		return false;
	for (i = 1; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* One legacy Rust escape at s ("$LT$", "$u20$", ...): its character and
 * length, or 0. */
static size_t
rust_escape(const char *s, size_t n, char *out)
{
	static const struct { const char *e; char c; } tab[] = {
		{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' },
		{ "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' },
	};
	size_t i, l;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		l = strlen(tab[i].e);
		if (n >= l && memcmp(s, tab[i].e, l) == 0) {
			*out = tab[i].c;
			return l;
		}
	}
	if (n >= 5 && s[1] == 'u' && s[4] == '$') {
		unsigned v = 0;
		for (i = 2; i < 4; i++) {
			char c = s[i];
			v = v * 16 + (unsigned)(c >= '0' && c <= '9' ? c - '0' :
			    c >= 'a' && c <= 'f' ? c - 'a' + 10 : 255);
		}
		if (v >= 0x20 && v < 0x7f) {
			*out = (char)v;
			return 5;
		}
	}
	return 0;
}

/*
 * Legacy Rust symbols: _ZN <len><ident>... 17h<16 hex> E [.suffix].  The
 * hash component is dropped and $-escapes decoded.  Returns a yi_malloc'd
 * string, or NULL when s is not such a symbol.
 */
static char *
rust_demangle(const char *s)
{
	const char *q = s + 3, *idents[256];
	size_t lens[256], n = 0, i, k, total = 0;
	char *out, *o;

	if (strncmp(s, "_ZN", 3) != 0)
		return NULL;
	while (*q >= '0' && *q <= '9') {
		size_t len = 0;
		while (*q >= '0' && *q <= '9') {
			len = len * 10 + (size_t)(*q++ - '0');
			if (len > 4096)
				return NULL;
		}
		if (strnlen(q, len) < len || n == 256)
			return NULL;
		idents[n] = q;
		lens[n++] = len;
		total += len + 2;
		q += len;
	}
	if (*q != 'E' || n < 2 || !is_hex_hash(idents[n - 1], lens[n - 1]))
		return NULL;
	n--;
	if ((out = yi_malloc(total + 1)) == NULL)
		return NULL;
	o = out;
	for (i = 0; i < n; i++) {
		const char *id = idents[i];
		size_t len = lens[i];
		if (i) {
			*o++ = ':';
			*o++ = ':';
		}
		if (len >= 2 && id[0] == '_' && id[1] == '$') {
			id++;
			len--;
		}
		for (k = 0; k < len;) {
			char c;
			size_t el;
			if (id[k] == '$' && (el = rust_escape(id + k, len - k, &c)) != 0) {
				*o++ = c;
				k += el;
			} else if (id[k] == '.' && k + 1 < len && id[k + 1] == '.') {
				*o++ = ':';
				*o++ = ':';
				k += 2;
			} else {
				*o++ = id[k++];
			}
		}
	}
	*o = '\0';
	return out;
}

/* Demangled form of a C++ or legacy Rust name: yi_malloc'd, or NULL when
 * the name is not mangled (or cannot be demangled). */
char *
yi_demangle(const char *s)
{
	char *d, *r;
	int status = -1;

	if (s[0] != '_' || s[1] != 'Z')
		return NULL;
	if ((r = rust_demangle(s)) != NULL)
		return r;
	pthread_once(&cxa_once, cxa_init);
	if (cxa_demangle == NULL)
		return NULL;
	d = cxa_demangle(s, NULL, NULL, &status);
	if (d == NULL || status != 0) {
		free(d);    /* allocated by libstdc++ with malloc */
		return NULL;
	}
	r = yi_strdup(d);
	free(d);
	return r;
}
