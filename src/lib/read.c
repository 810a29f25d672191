/*
 * read.c: the read family's entry points: what an input is, and which
 * reader takes it.
 *
 * Input may be gzipped (inflated first: on the fly for files, whole for
 * memory).  Its decompressed start is sniffed (yi_sniff): "heap..." goes to
 * the heap_v2 reader (read_heap.c), well-formed profile.proto fields to the
 * pprof reader (read_pprof.c), anything else is "not a heap profile".  Only
 * this file dispatches; the readers never call each other.  A file is read
 * through one zlib stream: the heap reader streams the rest of it, the
 * pprof reader gets it whole (bounded by PPROF_MAX and half the decode
 * budget, pre-counted as it is inflated).  The dump's time is
 * the file's mtime unless the input names one (pprof time_nanos).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "read.h"

#define PPROF_MAX ((size_t)1 << 30)

/* The wire types profile.proto's top-level fields may have (packed repeated
 * comment: LEN or VARINT); 0 for a field number it does not have. */
static int
pprof_field_ok(uint64_t field, unsigned wt)
{
	switch (field) {
	case 1: case 2: case 3: case 4: case 5: case 6: case 11:
		return wt == 2;
	case 7: case 8: case 9: case 10: case 12: case 14: case 15:
		return wt == 0;
	case 13:
		return wt == 0 || wt == 2;
	default:
		return 0;
	}
}

/* Read a varint at d[*i..n); 1 ok, 0 runs past n, -1 malformed. */
static int
sniff_varint(const unsigned char *d, size_t n, size_t *i, uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 70; shift += 7) {
		if (*i >= n)
			return 0;
		*v |= (uint64_t)(d[*i] & 0x7f) << (shift < 64 ? shift : 63);
		if ((d[(*i)++] & 0x80) == 0)
			return 1;
	}
	return -1;
}

yi_sniff_kind
yi_sniff(const void *data, size_t n, bool complete)
{
	const unsigned char *d = data;
	size_t i, fields = 0;
	uint64_t tag, v;
	int r = 1;

	if (n == 0)
		return complete ? YI_SNIFF_NEITHER : YI_SNIFF_HEAP;
	/* heap_v2 (or something starting like it: "heap_v3/", gperftools'
	 * "heap profile:"), for the heap parser's precise messages */
	if (memcmp(d, "heap", n < 4 ? n : 4) == 0)
		return YI_SNIFF_HEAP;
	/* text: profile.proto always has control bytes (tags 0x08, 0x10 of
	 * its ValueType and Sample messages) near the start */
	for (i = 0; i < n && i < 512; i++)
		if ((d[i] < 0x20 && d[i] != '\t' && d[i] != '\n' && d[i] != '\r') || d[i] == 0x7f)
			break;
	if (i == n || i == 512)
		return YI_SNIFF_NEITHER;
	/* walk the top-level fields: every tag must be one of profile.proto's */
	for (i = 0; i < n; fields++) {
		if ((r = sniff_varint(d, n, &i, &tag)) <= 0)
			break;
		if (!pprof_field_ok(tag >> 3, (unsigned)(tag & 7)))
			return YI_SNIFF_NEITHER;
		if ((r = sniff_varint(d, n, &i, &v)) <= 0)
			break;
		if ((tag & 7) == 2) {
			if (v > n - i) {
				r = 0;
				break;
			}
			i += (size_t)v;
		}
	}
	if (i == n && fields > 0)
		return YI_SNIFF_PPROF;
	if (r < 0)
		return YI_SNIFF_NEITHER;
	/* runs past the end: the rest is unseen, or the data was cut after
	 * some well-formed fields (a truncated profile: the pprof reader says so) */
	return !complete || fields >= 3 ? YI_SNIFF_PPROF : YI_SNIFF_NEITHER;
}

bool
yi_looks_like_pprof(const void *data, size_t n)
{
	return yi_sniff(data, n, false) == YI_SNIFF_PPROF;
}

int
yi_read_budget(size_t *budget)
{
	const char *e = getenv("YING_MAX_MEMORY");
	double v;

	*budget = YI_READ_BUDGET_DEFAULT;
	if (e == NULL || *e == '\0')
		return 0;
	if (yi_num_parse(e, YI_NUM_SIZE, 1, (double)(SIZE_MAX / 2), &v, NULL, 0) != 0)
		return yi_error(YING_EINVAL, "YING_MAX_MEMORY=%s: not a memory budget (a size "
		    "such as 512M or 4G)", e);
	*budget = (size_t)v;
	return 0;
}

size_t
yi_profile_mem(const ying_profile *p)
{
	size_t n = sizeof(*p);

	n += p->threads.cap * sizeof(*p->threads.v) + p->tcounts.cap * sizeof(*p->tcounts.v);
	n += p->stacks.cap * sizeof(*p->stacks.v) + p->frames.cap * sizeof(*p->frames.v);
	n += p->locs.cap * sizeof(*p->locs.v) + p->maps.cap * sizeof(*p->maps.v);
	n += p->lines.cap * sizeof(*p->lines.v) + p->funcs.cap * sizeof(*p->funcs.v);
	n += (p->loc_by_addr.cap + p->func_by_key.cap) * sizeof(yi_map64_slot);
	n += p->strs.set.nchunks * (64 * 1024) + p->strs.set.nslots * sizeof(uint64_t);
	n += p->strs.set.keys.cap * (sizeof(char *) + sizeof(size_t) + sizeof(uint64_t));
	n += p->maps_text_len;
	return n;
}

int
yi_budget_error(const char *name, const char *what, size_t budget)
{
	char b[32];

	return yi_error(YING_ELIMIT, "%s: %s would need more than %s (the decode budget; "
	    "raise it with YING_MAX_MEMORY=SIZE)", name, what,
	    ying_format_bytes((double)budget, b, sizeof(b)));
}

int
yi_not_a_profile(const char *name, size_t n)
{
	return yi_error(YING_EPARSE, "%s: %snot a heap profile (expected heap_v2 or pprof)",
	    name, n == 0 ? "empty input, " : "");
}

int
ying_profile_read_mem(ying_profile **out, const void *data, size_t len,
    const char *name)
{
	void *plain = NULL;
	size_t plen = 0, budget;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "no output pointer");
	*out = NULL;
	if (data == NULL && len)
		return yi_error(YING_EINVAL, "no input buffer");
	if (name == NULL)
		name = "(memory)";
	if ((rc = yi_read_budget(&budget)) != 0)
		return rc;
	if (yi_is_gzip(data, len)) {
		/* the inflated copy and its decoding share the budget: the
		 * copy may take half */
		if ((rc = yi_gunzip(data, len, budget / 2, &plain, &plen, name)) != 0)
			return rc == YING_ELIMIT ? yi_budget_error(name, "the decompressed input",
			    budget) : rc;
		data = plain;
		len = plen;
	}
	switch (yi_sniff(data, len, true)) {
	case YI_SNIFF_PPROF: rc = yi_pprof_parse(out, data, len, name); break;
	case YI_SNIFF_HEAP: rc = yi_heap_parse_mem(out, data, len, name); break;
	default: rc = yi_not_a_profile(name, len); break;
	}
	yi_free(plain);
	return rc;
}

/* Read a whole (decompressed) stream into memory, bounded. */
static int
slurp(gzFile gz, const char *name, const char *head, size_t headlen, char **out, size_t *outlen,
    yi_pprof_count *countp)
{
	size_t cap = headlen + (1 << 20), n = headlen, max = PPROF_MAX, budget;
	yi_pprof_count count;
	char *buf, *nb;
	int r;

	memset(&count, 0, sizeof(count));
	if ((r = yi_read_budget(&max)) != 0)
		return r;
	budget = max;
	max /= 2;                /* the input and its decoding share the budget */
	if (max > PPROF_MAX)
		max = PPROF_MAX;
	if ((buf = yi_malloc(cap)) == NULL)
		return yi_oom("reading a pprof file");
	memcpy(buf, head, headlen);
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				yi_free(buf);
				if (max < PPROF_MAX)
					return yi_budget_error(name, "the decompressed pprof input", budget);
				return yi_error(YING_ELIMIT, "%s: pprof file larger than %zu bytes", name, PPROF_MAX);
			}
			cap = cap > max / 2 ? max : cap * 2;
			if ((nb = yi_realloc(buf, cap)) == NULL) {
				yi_free(buf);
				return yi_oom("reading a pprof file");
			}
			buf = nb;
		}
		r = gzread(gz, buf + n, (unsigned)(cap - n > (1u << 30) ? (1u << 30) : cap - n));
		if (r < 0) {
			int zerr;
			const char *m = gzerror(gz, &zerr);
			yi_free(buf);
			return yi_error(YING_EPARSE, "%s: read failed: %s", name, m);
		}
		if (r == 0)
			break;
		n += (size_t)r;
		/* count what is in so far: a bomb is refused at its first
		 * empty sample, or once its decoding passes the budget, not
		 * after inflating all of it */
		if ((r = yi_pprof_count_more(&count, buf, n, false, name, n, budget)) != 0) {
			yi_free(buf);
			return r;
		}
		/* a field claiming more input than the budget allows, once 1 MiB
		 * of it has come (random bytes that looked like pprof end sooner,
		 * and are "not a heap profile") */
		if (count.need > max && max < PPROF_MAX && n - count.need_from >= (1u << 20)) {
			yi_free(buf);
			return yi_budget_error(name, "the decompressed pprof input", budget);
		}
	}
	*out = buf;
	*outlen = n;
	*countp = count;
	return 0;
}

/*
 * The decompressed size of a regular file open on fd, for the heap reader's
 * vector sizing (a hint, 0 when unknown): st_size for a plain file; for
 * gzip, the trailer's ISIZE (the input's size modulo 4 GiB, of the last
 * member only: wrong for a multi-member file or one over 4 GiB, which only
 * makes the reader fall back to doubling).  pread(2) leaves the offset
 * zlib reads from alone.
 */
static size_t
plain_size(int fd, const struct stat *st, gzFile gz)
{
	unsigned char t[4];

	if (st->st_size <= 0)
		return 0;
	if (gzdirect(gz))
		return (size_t)st->st_size;
	if (st->st_size < 18 || pread(fd, t, 4, st->st_size - 4) != 4)
		return 0;
	return (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
}

int
ying_profile_read_file(ying_profile **out, const char *path)
{
	struct stat stt;
	char head[512];
	gzFile gz;
	yi_sniff_kind kind;
	const char *name;
	int fd, n, rc;
	bool is_stdin, have_stat;

	yi_error_clear();
	if (out == NULL || path == NULL)
		return yi_error(YING_EINVAL, "no path given");
	*out = NULL;
	is_stdin = strcmp(path, "-") == 0;
	name = is_stdin ? "(stdin)" : path;
	fd = is_stdin ? fcntl(0, F_DUPFD_CLOEXEC, 0) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return yi_error(errno == ENOENT ? YING_ENOTFOUND : YING_EIO, "%s: cannot open: %s",
		    path, strerror(errno));
	have_stat = fstat(fd, &stt) == 0;
	if (have_stat && S_ISDIR(stt.st_mode)) {
		close(fd);
		return yi_error(YING_EINVAL, "%s: is a directory, not a heap dump", path);
	}
	if ((gz = gzdopen(fd, "rb")) == NULL) {
		close(fd);
		return yi_oom("opening a file");
	}
	gzbuffer(gz, 1 << 17);
	/* Peek at the decompressed start to tell heap_v2 from pprof from
	 * neither (then say so, rather than a parser's complaint). */
	n = gzread(gz, head, sizeof(head));
	if (n < 0) {
		int zerr;
		rc = yi_error(YING_EIO, "%s: read failed: %s", name, gzerror(gz, &zerr));
		gzclose(gz);
		return rc;
	}
	kind = yi_sniff(head, (size_t)n, (size_t)n < sizeof(head));
	if (kind == YI_SNIFF_HEAP) {
		rc = yi_heap_parse_gz_sized(out, gz, head, (size_t)n, name,
		    have_stat && S_ISREG(stt.st_mode) ? plain_size(fd, &stt, gz) : 0);
	} else if (kind == YI_SNIFF_PPROF) {
		char *all = NULL;
		size_t alllen = 0;
		yi_pprof_count count;
		if ((rc = slurp(gz, name, head, (size_t)n, &all, &alllen, &count)) == 0) {
			if (yi_sniff(all, alllen, true) == YI_SNIFF_PPROF)
				rc = yi_pprof_parse_counted(out, all, alllen, name, &count);
			else
				rc = yi_not_a_profile(name, alllen);
			yi_free(all);
		}
	} else {
		rc = yi_not_a_profile(name, (size_t)n);
	}
	gzclose(gz);
	/* the file's time, unless the profile names its own (pprof) */
	if (rc == 0 && !is_stdin && have_stat &&
	    ((*out)->format == YI_FMT_HEAP_V2 || (*out)->time == 0))
		(*out)->time = (int64_t)stt.st_mtime;
	return rc;
}
