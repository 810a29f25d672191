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


/* ---- memory (base_alloc.c) ----------------------------------------------- */
void *yi_malloc(size_t n);
void *yi_calloc(size_t n, size_t size);
void *yi_realloc(void *p, size_t n);
/* realloc of n*size with overflow check; NULL on overflow or OOM */
void *yi_reallocarray(void *p, size_t n, size_t size);
char *yi_strdup(const char *s);
char *yi_strndup(const char *s, size_t n);
void yi_free(void *p);

/* ---- errors (base_error.c) ----------------------------------------------- */
/* Record detail for the calling thread and return `code`. */
int yi_error(int code, const char *fmt, ...) YI_PRINTF(2, 3);
int yi_verror(int code, const char *fmt, va_list ap);
/* Record ENOMEM detail ("out of memory while WHAT") and return YING_ENOMEM. */
int yi_oom(const char *what);
void yi_error_clear(void);

/* ---- growable vectors ---------------------------------------------------- */
/* A vector is any struct with `T *v; size_t n, cap;`.  yi_vec_grow makes room
 * for `extra` more elements; 0 or YING_ENOMEM. */
#define YI_VEC(T) struct { T *v; size_t n, cap; }
int yi_vec_grow_(void **v, size_t *cap, size_t n, size_t extra, size_t elem);
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
void yi_out_init(yi_out *o, ying_write_fn fn, void *opaque);
void yi_out_write(yi_out *o, const void *p, size_t n);
void yi_out_puts(yi_out *o, const char *s);
void yi_out_putc(yi_out *o, char c);
void yi_out_printf(yi_out *o, const char *fmt, ...) YI_PRINTF(2, 3);
/* printf straight into a sink (no yi_out buffer): fn's result, or
 * YING_ENOMEM for a long result that cannot be formatted.  The one
 * formatter behind yi_out_printf's long path and the HTTP responses. */
int yi_write_vprintf(ying_write_fn fn, void *opaque, const char *fmt, va_list ap);
/* JSON string literal with quotes and escapes (UTF-8 passed through, control
 * characters and invalid bytes escaped). */
void yi_out_json_str(yi_out *o, const char *s);
/* Length (1..4) of the valid UTF-8 sequence at s, 0 if invalid: RFC 3629,
 * no overlong forms, surrogates or code points above U+10FFFF.  The one
 * UTF-8 rule of libying (JSON strings, flame graph names). */
size_t yi_utf8_len(const unsigned char *s);
/* JSON number: integers without exponent, others with up to 17 digits;
 * non-finite values as 0. */
void yi_out_json_num(yi_out *o, double v);
/* Text for a terminal (top, diff, reports, warnings): bytes < 0x20 and
 * 0x7f as \n, \r, \t or \xHH, invalid UTF-8 and C1 controls as \xHH,
 * everything else (valid UTF-8, '\\') unchanged.  yi_text_escape sends the
 * escaped s to fn (its result ignored: the sink keeps its own error);
 * yi_text_escape_dup returns it in a new string the caller frees with
 * yi_free (NULL when out of memory). */
void yi_text_escape(const char *s, ying_write_fn fn, void *opaque);
void yi_out_text(yi_out *o, const char *s);
char *yi_text_escape_dup(const char *s);
/* XML/SVG text with <, >, &, ", ' escaped. */
void yi_out_xml(yi_out *o, const char *s);
/* "name (file.c:line)": the file's base name, ":line" only when known,
 * nothing in parentheses when the file is unknown.  Every report prints
 * frames this way. */
void yi_out_where(yi_out *o, const char *name, const char *file, uint32_t line);
/* Flush and return the first error (0 if none). */
int yi_out_finish(yi_out *o);

/* ---- formatting helpers (base_format.c) ---------------------------------- */
/* Human-readable size: "1.5 MiB", "512 B"; buf >= 32 bytes. */
const char *yi_fmt_bytes(double v, char *buf, size_t n);
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
uint32_t *yi_map64_get(const yi_map64 *m, uint64_t key);
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

/* ---- signal names (base_signal.c) ---------------------------------------- */
/* A signal for dump requests: "USR2", "SIGUSR2", "12", "RTMIN+2".  Signals
 * that cannot or must not be caught (KILL, STOP, SEGV, BUS, FPE, ILL, ABRT,
 * TRAP, SYS, CHLD, CONT, TSTP, TTIN, TTOU) are refused with YING_EINVAL. */
int yi_signal_parse(const char *s, int *sig);
/* "SIGUSR2", "SIGRTMIN+2", "signal 40"; buf >= 24. */
const char *yi_signal_name(int sig, char *buf, size_t n);

/* ---- descriptors libying owns (base_fd.c) ------------------------------- */
/* Register fd (open, close-on-exec) as libying's: a forked child closes its
 * copy at once (a pthread_atfork child handler, installed with the first
 * registration).  Disown it before closing it.  Never fail; no allocation. */
void yi_fd_own(int fd);
void yi_fd_disown(int fd);
/* Disown fd; true when it was registered and still is the same file (so
 * closing it closes ours, not a file the program opened on that number). */
bool yi_fd_disown_same(int fd);
/* Keep obj forever: an object whose descriptors the program closed and may
 * have reused (a libmicrohttpd daemon, a libcurl handle) must never be
 * freed, since freeing closes them; it stays reachable (LeakSanitizer) in a
 * table of YI_ABANDON_MAX (past it, only unreachable). */
#define YI_ABANDON_MAX 80
void yi_abandon(void *obj);
/* fd moved to a high number (close-on-exec; the low one closed), above the
 * usual close loops to 1024 when the limit allows; fd itself otherwise. */
int yi_fd_high(int fd);
/* Close every registered descriptor that is still the same file, and forget
 * them all: the child handler (async-signal-safe). */
void yi_fd_close_owned(void);

/* A descriptor and the file it was when taken (device and inode): a host
 * may close any number (a daemon closing every fd >= 3, close_range) and
 * reopen it for its own file, so a long-lived descriptor is checked with
 * yi_fdid_ok before every use; one that fails is lost: never read,
 * written, polled nor closed again (it is the host's now). */
typedef struct yi_fdid {
	int fd;                 /* -1: none */
	dev_t dev;
	ino_t ino;
} yi_fdid;
/* Take fd (open, close-on-exec): moved to a high number first (above the
 * usual close loops to 1024, when the descriptor limit allows; the low
 * number is closed), registered with yi_fd_own.  0, or -1 with fd closed
 * (id->fd is then -1). */
int yi_fdid_take(yi_fdid *id, int fd);
/* fd is still the file taken: async-signal-safe (one fstat). */
bool yi_fdid_ok(const yi_fdid *id);
/* Disown, and close it when it still is ours; id->fd becomes -1. */
void yi_fdid_close(yi_fdid *id);
/* Disown and forget it without closing: after yi_fdid_ok failed. */
void yi_fdid_forget(yi_fdid *id);

#endif /* YING_BASE_H */
