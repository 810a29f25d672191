/*
 * base.h: the base family (base_*.c): allocation, errors, growable vectors,
 * buffered output over a sink, formatting, interned strings, a u64 hash
 * map, gzip, signal names.  Depends on libc, zlib and ying.h only.
 *
 * Naming: cross-file internals use the `yi_` prefix; they are hidden by
 * -fvisibility=hidden and never exported from libying.so.  Everything that
 * can fail returns 0 or a negative ying_err and records detail with
 * yi_error().
 */
#ifndef YING_BASE_H
#define YING_BASE_H

#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "ying.h"
#include "base_num.h"   /* yi_num_parse: the one number parser */
#include "base_dir.h"   /* yi_dir_private: the one private-directory check */

#define YI_UNUSED(x) ((void)(x))
#define YI_PRINTF(a, b) __attribute__((format(printf, a, b)))
/* The private interface libying-live is built on (src/live/ calls it):
 * internal functions that libying.so exports besides the ying_* API.  Not
 * an API: declared only here in src/lib/, no compatibility promise between
 * versions (libying-live must come from the same build; ying-live.pc pins
 * the version), and tests/integration/symbols.sh checks that libying.so
 * exports exactly the ying_* functions of include/ying.h and these. */
#define YI_SHARED __attribute__((visibility("default")))


/* ---- memory (base_alloc.c) ----------------------------------------------- */
YI_SHARED void *yi_malloc(size_t n);
YI_SHARED void *yi_calloc(size_t n, size_t size);
YI_SHARED void *yi_realloc(void *p, size_t n);
/* realloc of n*size with overflow check; NULL on overflow or OOM */
void *yi_reallocarray(void *p, size_t n, size_t size);
YI_SHARED char *yi_strdup(const char *s);
YI_SHARED char *yi_strndup(const char *s, size_t n);
YI_SHARED void yi_free(void *p);

/* ---- errors (base_error.c) ----------------------------------------------- */
/* Record detail for the calling thread and return `code`. */
YI_SHARED int yi_error(int code, const char *fmt, ...) YI_PRINTF(2, 3);
int yi_verror(int code, const char *fmt, va_list ap);
/* Record ENOMEM detail ("out of memory while WHAT") and return YING_ENOMEM. */
YI_SHARED int yi_oom(const char *what);
YI_SHARED void yi_error_clear(void);

/* ---- growable vectors ---------------------------------------------------- */
/* A vector is any struct with `T *v; size_t n, cap;`.  yi_vec_grow makes room
 * for `extra` more elements; 0 or YING_ENOMEM. */
#define YI_VEC(T) struct { T *v; size_t n, cap; }
YI_SHARED int yi_vec_grow_(void **v, size_t *cap, size_t n, size_t extra, size_t elem);
/* Transparent huge pages for a block of bytes >= YI_VEC_HUGE (yi_vec_grow
 * does it for every vector it grows; advice only, nothing to free). */
#define YI_VEC_HUGE ((size_t)4 << 20)
void yi_vec_huge_hint(void *v, size_t bytes);
/* Is the process's malloc jemalloc's (mallctl is defined)?  Then no hint. */
bool yi_malloc_is_jemalloc(void);
#define yi_vec_grow(vec, extra) \
	yi_vec_grow_((void **)&(vec)->v, &(vec)->cap, (vec)->n, (extra), sizeof(*(vec)->v))
#define yi_vec_free(vec) do { yi_free((vec)->v); (vec)->v = NULL; \
	(vec)->n = (vec)->cap = 0; } while (0)

/* ---- buffered output over a sink (base_out.c) ---------------------------- */
/* Buffers writes and remembers the first error; check with yi_out_finish. */
typedef struct yi_out {
	ying_write_fn fn;
	void *opaque;
	int err;
	size_t len;
	char buf[1 << 16];
} yi_out;
YI_SHARED void yi_out_init(yi_out *o, ying_write_fn fn, void *opaque);
YI_SHARED void yi_out_write(yi_out *o, const void *p, size_t n);
YI_SHARED void yi_out_puts(yi_out *o, const char *s);
YI_SHARED void yi_out_putc(yi_out *o, char c);
YI_SHARED void yi_out_printf(yi_out *o, const char *fmt, ...) YI_PRINTF(2, 3);
/* printf straight into a sink (no yi_out buffer): fn's result, or
 * YING_ENOMEM for a long result that cannot be formatted.  The one
 * formatter behind yi_out_printf's long path and the HTTP responses. */
YI_SHARED int yi_write_vprintf(ying_write_fn fn, void *opaque, const char *fmt, va_list ap);
/* JSON string literal with quotes and escapes (UTF-8 passed through, control
 * characters and invalid bytes escaped). */
YI_SHARED void yi_out_json_str(yi_out *o, const char *s);
/* Length (1..4) of the valid UTF-8 sequence at s, 0 if invalid: RFC 3629,
 * no overlong forms, surrogates or code points above U+10FFFF.  The one
 * UTF-8 rule of libying (JSON strings, flame graph names). */
YI_SHARED size_t yi_utf8_len(const unsigned char *s);
/* JSON number: integers without exponent, others with up to 17 digits;
 * non-finite values as 0. */
YI_SHARED void yi_out_json_num(yi_out *o, double v);
/* Text for a terminal (top, diff, reports, warnings): bytes < 0x20 and
 * 0x7f as \n, \r, \t or \xHH, invalid UTF-8 and C1 controls as \xHH,
 * everything else (valid UTF-8, '\\') unchanged.  yi_text_escape sends the
 * escaped s to fn (its result ignored: the sink keeps its own error);
 * yi_text_escape_dup returns it in a new string the caller frees with
 * yi_free (NULL when out of memory). */
void yi_text_escape(const char *s, ying_write_fn fn, void *opaque);
void yi_out_text(yi_out *o, const char *s);
YI_SHARED char *yi_text_escape_dup(const char *s);
/* XML/SVG text with <, >, &, ", ' escaped. */
void yi_out_xml(yi_out *o, const char *s);
/* "name (file.c:line)": the file's base name, ":line" only when known,
 * nothing in parentheses when the file is unknown.  Every report prints
 * frames this way. */
YI_SHARED void yi_out_where(yi_out *o, const char *name, const char *file, uint32_t line);
/* Flush and return the first error (0 if none). */
YI_SHARED int yi_out_finish(yi_out *o);

/* ---- formatting helpers (base_format.c) ---------------------------------- */
/* Human-readable size: "1.5 MiB", "512 B"; buf >= 32 bytes. */
YI_SHARED const char *yi_fmt_bytes(double v, char *buf, size_t n);
/* A duration in seconds in words, into out[n] (n >= 32), returned:
 * "2.5 days", "4 h 2 min", "3 min 10 s", "42 s", "2.6 s", "never" (not
 * finite).  coarse: no seconds past a minute, whole days ("3 min",
 * "3 days"), for ages and windows. */
YI_SHARED const char *yi_fmt_duration(double s, bool coarse, char *out, size_t n);
/* Value in the unit of a sample index: bytes as yi_fmt_bytes, objects as
 * an integer count. */
const char *yi_fmt_value(double v, ying_sample_index idx, char *buf, size_t n);
static inline bool yi_index_is_bytes(ying_sample_index idx)
{
	return idx == YING_INUSE_SPACE || idx == YING_ALLOC_SPACE;
}
/* The one way a user's regex (--focus, --ignore, --drop_frames) is compiled:
 * POSIX extended, no submatches.  On failure the detail is "bad WHAT regex
 * 'SRC': why" and *re needs no regfree; on success the caller regfree()s. */
int yi_regex_compile(regex_t *re, const char *src, const char *what);

/* ---- content-addressed id set (base_hash.c) ------------------------------ */
/* Keys are byte strings compared by content; each distinct key gets the
 * next dense id 0, 1, 2, ... in insertion order, so nothing that walks ids
 * depends on hash values.  The set owns a copy of every key, NUL-terminated
 * and 8-byte aligned (a key may be a C string or an array of uint32_t or
 * uint64_t), in chunks that never move: yi_idset_key's pointers stay valid
 * until yi_idset_release.  Open addressing, doubled when half full; equal
 * hashes are told apart by comparing the keys.  `hash` NULL means
 * SipHash-1-3 under `key`, which yi_idset_init sets to the per-process key
 * (yi_hash_key): crafted keys cannot be aimed at one probe chain.  Tests may
 * pass a weak `hash` to force collisions, or set `key` while the set is
 * empty. */
typedef uint64_t (*yi_idset_hash_fn)(const void *key, size_t len);
typedef struct yi_idset {
	YI_VEC(const char *) keys;  /* id -> the set's copy of the key */
	YI_VEC(size_t) lens;        /* id -> key length in bytes */
	YI_VEC(uint64_t) hashes;    /* id -> hash, for growth without rehashing */
	uint64_t *slots;            /* hash high half << 32 | id + 1; 0 = empty */
	size_t nslots;
	char **chunks;              /* key storage */
	size_t nchunks, chunk_used, chunk_cap;
	yi_idset_hash_fn hash;
	uint64_t key[2];            /* SipHash key when hash is NULL */
} yi_idset;
/* An empty set (allocates nothing yet). */
void yi_idset_init(yi_idset *s, yi_idset_hash_fn hash);
void yi_idset_release(yi_idset *s);
/* The id of key[0..len), added (copied) when absent; *added (may be NULL)
 * says which.  0, YING_ENOMEM, or YING_ELIMIT past 2^32 - 2 keys. */
int yi_idset_add(yi_idset *s, const void *key, size_t len, uint32_t *id, bool *added);
/* The id of key[0..len) if present: true and *id, else false. */
bool yi_idset_find(const yi_idset *s, const void *key, size_t len, uint32_t *id);
static inline size_t yi_idset_count(const yi_idset *s)
{
	return s->keys.n;
}
static inline const void *yi_idset_key(const yi_idset *s, uint32_t id)
{
	return s->keys.v[id];
}
static inline size_t yi_idset_len(const yi_idset *s, uint32_t id)
{
	return s->lens.v[id];
}
/* Probe lengths of the keys in s (1 = found in its home slot): the longest
 * and the sum (the cost of looking every key up once).  For tests. */
void yi_idset_probe_stats(const yi_idset *s, size_t *max, size_t *total);

/* ---- interned strings (base_strtab.c) ------------------------------------ */
/* An id set of strings.  Id 0 is always the empty string.  Ids are stable;
 * strings never move (pointers stay valid until yi_strtab_release). */
typedef struct yi_strtab {
	yi_idset set;
} yi_strtab;
int yi_strtab_init(yi_strtab *t);
void yi_strtab_release(yi_strtab *t);
/* Intern s[0..len); returns the id in *id. */
int yi_strtab_intern(yi_strtab *t, const char *s, size_t len, uint32_t *id);
static inline const char *yi_strtab_get(const yi_strtab *t, uint32_t id)
{
	return t->set.keys.v[id];
}
static inline size_t yi_strtab_len(const yi_strtab *t, uint32_t id)
{
	return t->set.lens.v[id];
}
/* Number of strings, and all of them in id order (for the pprof writer's
 * string_table); the array belongs to t. */
static inline size_t yi_strtab_count(const yi_strtab *t)
{
	return t->set.keys.n;
}
static inline const char *const *yi_strtab_all(const yi_strtab *t)
{
	return t->set.keys.v;
}

/* ---- u64 -> u32 hash map (base_hash.c) ----------------------------------- */
typedef struct yi_map64_slot {
	uint64_t key;
	uint32_t val;            /* UINT32_MAX = empty */
	uint32_t pad;
} yi_map64_slot;
/* Keyed: a key's home slot is SipHash-1-3 of it under `key`, the
 * per-process key set by yi_map64_init (tests may set another while the
 * map is empty); no order of the slots is ever visible. */
typedef struct yi_map64 {
	yi_map64_slot *slots;    /* key and value side by side: one cache miss */
	size_t cap, n;
	uint64_t key[2];         /* SipHash key */
} yi_map64;
int yi_map64_init(yi_map64 *m, size_t expect);
void yi_map64_release(yi_map64 *m);
/* Find key; returns pointer to the value slot or NULL. */
YI_SHARED uint32_t *yi_map64_get(const yi_map64 *m, uint64_t key);
/* Insert key with val if absent.  *slot points at the stored value;
 * *added tells whether it was inserted. */
int yi_map64_put(yi_map64 *m, uint64_t key, uint32_t val, uint32_t **slot, bool *added);
/* Probe lengths of the keys in m: the longest and the sum.  For tests. */
void yi_map64_probe_stats(const yi_map64 *m, size_t *max, size_t *total);
/* Unkeyed and deterministic (same value in every process): the splitmix64
 * finaliser (a bijection) and a byte hash.  Never for tables that input
 * fills; for what must be stable across runs (flame graph colours). */
uint64_t yi_hash64(uint64_t x);
uint64_t yi_hash_bytes(const void *p, size_t n, uint64_t seed);
/* The stable 128-bit content hash (the SQL databases' keys: written to
 * disk, so the same in every process and release, unlike the keyed
 * SipHash below): lane a FNV-1a over 64-bit words, lane b a multiply-rotate
 * chain; the hex finishes each lane with murmur3's fmix64. */
typedef struct yi_shash {
	uint64_t a, b;
} yi_shash;
void yi_shash_init(yi_shash *h);
void yi_shash_u64(yi_shash *h, uint64_t v);
/* The length, then the bytes as memcpy'd 64-bit words (the tail zero-padded). */
void yi_shash_bytes(yi_shash *h, const void *p, size_t n);
/* Lowercase hex of the two finished lanes into buf (33 bytes with the NUL). */
void yi_shash_hex(const yi_shash *h, char buf[33]);
/* The two lanes folded into one 64-bit key (a ^ b * 2^64/phi). */
uint64_t yi_shash_fold(const yi_shash *h);
/* Fibonacci hashing: the top `bits` bits of x * 2^64/phi, for the index of
 * a small direct-mapped cache (never for a table that input fills). */
static inline uint64_t
yi_fib_hash(uint64_t x, unsigned bits)
{
	return (x * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits);
}
/* The per-process 128-bit hash key: drawn once (getrandom(2), else
 * /dev/urandom, else clock, pid and ASLR addresses), thread-safe. */
void yi_hash_key(uint64_t key[2]);
/* SipHash-1-3 and SipHash-2-4 of data[0..n) under key (the paper's
 * algorithm); yi_siphash13_u64(k, x) == yi_siphash13(k, x as 8 LE bytes). */
uint64_t yi_siphash13(const uint64_t key[2], const void *data, size_t n);
uint64_t yi_siphash24(const uint64_t key[2], const void *data, size_t n);
uint64_t yi_siphash13_u64(const uint64_t key[2], uint64_t x);

/* ---- gzip helpers (base_gz.c) -------------------------------------------- */
bool yi_is_gzip(const void *data, size_t len);
/* Inflate a whole gzip buffer; *out is yi_malloc'd.  `max` bounds the result. */
int yi_gunzip(const void *data, size_t len, size_t max, void **out,
    size_t *outlen, const char *name);
/* Gzip writer that forwards compressed bytes to a sink. */
typedef struct yi_gzout yi_gzout;
int yi_gzout_new(yi_gzout **out, ying_write_fn fn, void *opaque, int level);
int yi_gzout_write(void *gz /* yi_gzout* */, const void *data, size_t len);
int yi_gzout_finish(yi_gzout *g);   /* flushes and frees */
void yi_gzout_abort(yi_gzout *g);   /* frees without flushing */

/* ---- this process's maps (base_maps.c) ----------------------------------- */
/* The whole text of path (NULL: /proc/self/maps) into *out, yi_malloc'd and
 * NUL-terminated (the caller frees it), its length in *len (may be NULL);
 * more than max bytes (0: no bound) is YING_ELIMIT; errors name the path. */
YI_SHARED int yi_maps_read(const char *path, size_t max, char **out, size_t *len);

/* ---- write-to-temp-then-rename (base_tmpfile.c) ------------------------- */
/* Names are relative to the directory dfd (AT_FDCWD: paths).  Create tmp
 * for writing, exclusively and not through a link (O_EXCL|O_NOFOLLOW,
 * close-on-exec), with mode (less the umask); with `stale`, a name that
 * exists already is unlinked (the link, not its target) and created anew,
 * once.  The descriptor (the caller closes it), or -1 with errno. */
YI_SHARED int yi_tmp_create(int dfd, const char *tmp, mode_t mode, bool stale);
/* Rename the finished tmp over final (atomic); on failure tmp is removed
 * and -1 returned with the rename's errno. */
YI_SHARED int yi_tmp_commit(int dfd, const char *tmp, const char *final);
/* Remove an unfinished tmp; errno is kept. */
YI_SHARED void yi_tmp_discard(int dfd, const char *tmp);

/* ---- descriptors out of the host's way (base_fd.c) ------------------- */
/* fd moved to a high number (close-on-exec; the low one closed), above the
 * usual close loops to 1024 when the limit allows; fd itself otherwise. */
YI_SHARED int yi_fd_high(int fd);

/* ---- report-set names (base_reportname.c) ------------------------------ */
/* Local time t in ISO 8601 with its UTC offset: "2026-09-09T16:45:05-04:00",
 * or the basic form "20260909T164505-0400" when portable.  buf >= 32. */
YI_SHARED int yi_report_iso_time(char *buf, size_t n, int64_t t, bool portable);
/* The base name of a report set: "ying.<iso time>.<N>MiB" (N = the live
 * heap in MiB, rounded).  buf >= 64. */
YI_SHARED int yi_report_base_name(char *buf, size_t n, int64_t t, double bytes,
    bool portable);
/* The same with a reason tag before the size (NULL: none): "hwm" (a new
 * high-water mark) or "limit<N>" (usage crossed N % of the memory limit):
 * "ying.<iso time>.limit90.<N>MiB".  Another tag is YING_EINVAL. */
YI_SHARED int yi_report_base_name_tag(char *buf, size_t n, int64_t t, double bytes,
    bool portable, const char *tag);
/* Parse a report file name: 1 and the base length in *base_len when `name`
 * is "ying.<time>.<N>MiB.{report,svg,heap,pb.gz}" (or the older "<N>MB"),
 * with an optional tag before the size (".hwm.", ".limit90."), else 0. */
YI_SHARED int yi_report_parse_name(const char *name, size_t *base_len);

#endif /* YING_BASE_H */
