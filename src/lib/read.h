/*
 * read.h: the read family (read.c, read_heap*.c, read_pprof.c, read_url.c):
 * bytes -> ying_profile, for jemalloc's heap_v2 dumps and pprof
 * profile.proto.  read.c sniffs the format and dispatches; the readers
 * build the model through its constructors only and never call each other.
 */
#ifndef YING_READ_H
#define YING_READ_H

#include <zlib.h>

#include "model.h"

/* ---- heap_v2 reader (read_heap.c) ---------------------------------------- */
/* data is the (already gunzipped) dump; *out is the caller's to free. */
YI_SHARED int yi_heap_parse_mem(ying_profile **out, const void *data, size_t len,
    const char *name);
/* The body of a MAPPED_LIBRARIES section (text[0..len): /proc/PID/maps
 * lines and ying-build-id lines) into p's mappings and maps text, as the
 * heap_v2 reader parses the section: blank lines and a last line without
 * its newline are skipped; errors name `name` and the line in text. */
YI_SHARED int yi_heap_parse_maps(ying_profile *p, const char *text, size_t len, const char *name);
/* The rest of an open (gzip-transparent) stream whose first n bytes were
 * read into head already (n <= 1 MiB); the caller still owns and closes gz. */
int yi_heap_parse_gz(ying_profile **out, gzFile gz, const void *head, size_t n,
    const char *name);
/* The same with the stream's total size when the caller knows it (a plain
 * file's st_size; 0: unknown): the reader then sizes its vectors from the
 * first 4096 stacks rather than growing them by doubling. */
int yi_heap_parse_gz_sized(ying_profile **out, gzFile gz, const void *head, size_t n,
    const char *name, size_t size_hint);
/* ying's own dumps end their MAPPED_LIBRARIES section with one line per
 * loaded object that has a GNU build ID: "ying-build-id: <start> <hex>",
 * <start> (hex, no 0x) the first address the object maps.  jeprof and
 * go tool pprof skip such lines (no address range, no '='). */
#define YI_BUILD_ID_TAG "ying-build-id:"
/* "ying-heap: NAME STACKS": heap_v2 trailer, one line per heap in dump order */
#define YI_HEAP_TAG "ying-heap:"

/* ---- the decode budget (read.c) ------------------------------------------ */
/* How many bytes one profile may take while it is decoded (issue 13,
 * finding 5): the inflated input, protobuf-c's unpacked message and the
 * model.  YING_MAX_MEMORY (a size as yi_num_parse reads it: 512M, 4G),
 * else YI_READ_BUDGET_DEFAULT; read at each call.  0, or YING_EINVAL for
 * a bad YING_MAX_MEMORY (the detail names it). */
#define YI_READ_BUDGET_DEFAULT ((size_t)1 << 30)
YI_SHARED int yi_read_budget(size_t *budget);
/* Bytes the model of p holds (its vectors' capacities, tables, strings). */
size_t yi_profile_mem(const ying_profile *p);
/* Record "NAME: WHAT would need more than BUDGET (the decode budget; raise
 * it with YING_MAX_MEMORY=SIZE)" and return YING_ELIMIT. */
YI_SHARED int yi_budget_error(const char *name, const char *what, size_t budget);
/* The pprof pre-count (read_pprof.c): what protobuf-c would allocate for
 * data[0..n), walked without allocating, and a sample with fewer values than
 * sample types; resumable over a growing prefix (complete false: a cut
 * field waits).  Zero the state first.  0, YING_ELIMIT past budget - used
 * (yi_budget_error), YING_EPARSE for the sample. */
typedef struct yi_pprof_count {
	size_t off, total, ntypes, nsample, first_values, bad_sample, bad_values;
	size_t need;        /* a prefix: input bytes a cut LEN field claims, */
	size_t need_from;   /* ... its payload starting here */
	bool bad;
} yi_pprof_count;
int yi_pprof_count_more(yi_pprof_count *c, const void *data, size_t n, bool complete,
    const char *name, size_t used, size_t budget);

/* ---- format sniffing (read.c) -------------------------------------------- */
/* true when (gunzipped) data looks like profile.proto rather than heap_v2 */
bool yi_looks_like_pprof(const void *data, size_t n);
/* What the (gunzipped) first n bytes of an input are; complete: n is all of
 * it.  HEAP: starts with "heap" (the heap parser names what is wrong);
 * PPROF: well-formed top-level profile.proto fields (to the end, or cut
 * after a few: the pprof reader says truncated); NEITHER: empty, text, or
 * bytes that are no profile.proto. */
typedef enum { YI_SNIFF_HEAP, YI_SNIFF_PPROF, YI_SNIFF_NEITHER } yi_sniff_kind;
yi_sniff_kind yi_sniff(const void *data, size_t n, bool complete);
/* "NAME: not a heap profile (expected heap_v2 or pprof)"; YING_EPARSE. */
int yi_not_a_profile(const char *name, size_t n);

/* ---- pprof reader (read_pprof.c) ----------------------------------------- */
/* data is the (already gunzipped) profile.proto. */
int yi_pprof_parse(ying_profile **out, const void *data, size_t len,
    const char *name);
/* The same, continuing c, a pre-count (yi_pprof_count_more) of a prefix of
 * data made while it was read, instead of counting it again. */
int yi_pprof_parse_counted(ying_profile **out, const void *data, size_t len,
    const char *name, yi_pprof_count *c);

/* ---- a small JSON reader (read_json.c) ----------------------------------- */
#define YI_JSON_MAX_DEPTH 64
enum { YI_JNULL, YI_JBOOL, YI_JNUM, YI_JSTR, YI_JARR, YI_JOBJ };
typedef struct yi_jnode {
	uint8_t type;           /* YI_J* */
	uint8_t b;              /* YI_JBOOL: the value */
	uint32_t next;          /* next sibling (node index), 0 = none */
	uint32_t child;         /* YI_JARR/YI_JOBJ: first child, 0 = none */
	uint32_t count;         /* YI_JARR/YI_JOBJ: children */
	uint32_t key;           /* member of an object: name offset in strs */
	uint32_t str, len;      /* YI_JSTR: decoded text; YI_JNUM: its text */
	size_t off;             /* byte offset in the input (yi_json_error) */
} yi_jnode;
typedef struct yi_json {
	YI_VEC(yi_jnode) nodes; /* node 0 is the root */
	YI_VEC(char) strs;      /* NUL-terminated strings and number texts */
	const char *name;       /* for messages (not copied) */
	size_t budget;          /* bytes the tree may take; 0 = unbounded */
	const char *text;       /* the input (not copied): lines for messages */
	size_t len;
} yi_json;
/* Parse data[0..len) whole; j is the caller's to release (also on error).
 * The tree may take at most `budget` bytes (0 = unbounded): YING_ELIMIT
 * (yi_budget_error) past it. */
int yi_json_parse(yi_json *j, const char *data, size_t len, const char *name,
    size_t budget);
void yi_json_release(yi_json *j);
static inline const yi_jnode *yi_json_root(const yi_json *j)
{
	return &j->nodes.v[0];
}
/* Member `key` of object obj (NULL: not an object, or no such member). */
const yi_jnode *yi_json_get(const yi_json *j, const yi_jnode *obj, const char *key);
/* First child of an array/object and the next sibling (NULL at the end). */
const yi_jnode *yi_json_first(const yi_json *j, const yi_jnode *n);
const yi_jnode *yi_json_next(const yi_json *j, const yi_jnode *n);
/* A string node's text (NUL-terminated, owned by j). */
const char *yi_json_str(const yi_json *j, const yi_jnode *n);
/* Integer values; YING_EPARSE naming `what` and the offset when n is NULL,
 * not an integer, or out of range. */
int yi_json_u64(const yi_json *j, const yi_jnode *n, const char *what, uint64_t *out);
int yi_json_i64(const yi_json *j, const yi_jnode *n, const char *what, int64_t *out);
/* YING_EPARSE, message "NAME:LINE:COLUMN: what" for byte off of j's input
 * (a node's off), which must still be alive (the caller's). */
int yi_json_error(const yi_json *j, size_t off, const char *fmt, ...) YI_PRINTF(3, 4);

/* ---- recent-allocation records (read_recent.c) --------------------------- */
typedef struct yi_recent_rec {
	uint64_t size, usize;
	uint64_t athr, fthr;            /* thread uids */
	uint32_t aname, fname;          /* thread names: strtab ids in prof->strs */
	uint64_t ans, fns;              /* prof clock */
	int64_t astack, fstack;         /* stack indices; -1 = none */
	bool released;
} yi_recent_rec;
struct ying_recent {
	ying_profile *prof;             /* the stacks (and mappings) */
	YI_VEC(yi_recent_rec) recs;
	ying_recent_info info;          /* strings point into prof->strs */
};

#endif /* YING_READ_H */
