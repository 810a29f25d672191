/*
 * live.h: the live family (live_*.c): the mallctl layer, the growth
 * runner's internals (names, report text, report sets, pruning) and the
 * HTTP endpoint's listening socket.  Private to the HTTP files:
 * live_http.h; to the runner's files: live_runner.h.
 */
#ifndef YI_LIVE_H
#define YI_LIVE_H

#include <limits.h>
#include <sys/types.h>

#include <ying-live.h>

#include "diff.h"
#include "leaks.h"
#include "write.h"

/* ---- libcurl, loaded with dlopen on first use (live_curl.c) -------------- */
#ifdef YING_HAVE_CURL
#include <curl/curl.h>
/* The few libcurl functions ying calls (URL input, the Pyroscope uploader). */
typedef struct yi_curl_api {
	CURLcode (*global_init)(long);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	char load_error[256];
	int ok;
} yi_curl_api;
/* libcurl.so.4, loaded (and curl_global_init'ed) once per process; NULL
 * with YING_ENOTSUP and the reason when it cannot be.  Static; never freed. */
const yi_curl_api *yi_curl(void);
/* The same table whether or not it loaded (ok, load_error): for callers
 * that word the failure themselves; sets no error. */
const yi_curl_api *yi_curl_loaded(void);
/* What every request is set up with (yi_curl_set): the URL, the timeout in
 * seconds (connecting and the whole transfer), libcurl's error buffer
 * (CURL_ERROR_SIZE), the write callback and its data, the largest answer
 * accepted, extra headers (may be NULL), a body to POST (NULL: a GET), and
 * the socket opener (NULL: yi_curl_open_socket) with its data. */
typedef struct yi_curl_setup {
	const char *url;
	double timeout;
	char *errbuf;
	size_t (*write)(char *, size_t, size_t, void *);
	void *write_data;
	size_t max_bytes;
	struct curl_slist *headers;
	const void *post;
	size_t post_len;
	curl_socket_t (*open_socket)(void *, curlsocktype, struct curl_sockaddr *);
	void *socket_data;
} yi_curl_setup;
/* Set up h for one request: s, no signals, no redirects, http and https
 * only, ying's User-Agent, sockets high and registered (closed only while
 * still ours).  Callers add what is theirs (auth, progress, resolve). */
void yi_curl_set(CURL *h, const yi_curl_setup *s);
/* The default socket opener and closer (an opener of one's own calls
 * yi_curl_open_socket for the socket itself). */
curl_socket_t yi_curl_open_socket(void *cls, curlsocktype purpose, struct curl_sockaddr *a);
int yi_curl_close_socket(void *cls, curl_socket_t fd);
#endif

/* POST data (a form body) to url, the response in *out (yi_malloc'd,
 * NUL-terminated, length *outlen; free with yi_free).  live_fetch.c. */
int yi_http_post(const char *url, const ying_fetch_opts *opts, const char *data,
    size_t len, char **out, size_t *outlen);

/* ---- control layer (live_ctl.c) ------------------------------------------ */
/* Call mallctl(name, ...) on the process's jemalloc.  Returns 0 or
 * YING_ENOJEMALLOC; mallctl's own errno-style result goes to *err. */
int yi_ctl_call(const char *name, void *oldp, size_t *oldlenp, void *newp,
    size_t newlen, int *err);
/* Turn jemalloc sampling off for the calling thread, once per thread (a
 * thread-local flag makes later calls free).  Never fails; for the threads
 * of the HTTP server, the agent and the runner. */
void yi_ctl_quiet_thread(void);
/* After an agent cycle: flush the calling thread's tcache and purge its
 * arena's unused dirty pages (best effort; nothing without jemalloc). */
void yi_ctl_release_thread(void);
/* Test seam: dump to memory through the private directory, not a memfd. */
extern bool yi_ctl_force_dir_dump;

/* ---- the memory limit (live_limit.c) ------------------------------------- */
#define YI_LIMIT_MAX_FRACS 8
#define YI_LIMIT_REARM_PCT 5.0    /* a fraction re-arms this many points below */
#define YI_LIMIT_POLL_MS 200      /* the runner reads the usage this often */
#define YI_LIMIT_HIST 300         /* usage points kept for the trend ... */
#define YI_LIMIT_HIST_STEP 1.0    /* ... at least this many seconds apart */
#define YI_LIMIT_ETA_MIN 5        /* a trend needs this many points ... */
#define YI_LIMIT_ETA_MIN_S 4.0    /* ... over this many seconds */
enum { YI_LIMIT_NONE, YI_LIMIT_CGROUP, YI_LIMIT_GIVEN };
typedef struct yi_limit {
	int source;                /* YI_LIMIT_*: where limit comes from */
	uint64_t limit;            /* bytes; 0 with YI_LIMIT_NONE */
	int cg_version;            /* the cgroup with a limit: 1 or 2; else 0 */
	char cg_dir[PATH_MAX];     /* its directory under the cgroup mount */
	char statm[PATH_MAX];      /* PROC/self/statm: the resident set */
	uint64_t page;
	double frac[YI_LIMIT_MAX_FRACS]; /* percent of the limit */
	bool armed[YI_LIMIT_MAX_FRACS];
	unsigned nfrac;
	/* the usage over time (yi_limit_record): a ring of the last
	 * YI_LIMIT_HIST points, at least YI_LIMIT_HIST_STEP s apart */
	double hist_t[YI_LIMIT_HIST];
	double hist_u[YI_LIMIT_HIST];
	unsigned hist_n, hist_head;
} yi_limit;
/* When the usage reaches the limit at its current trend (yi_limit_eta_get). */
typedef struct yi_limit_eta {
	bool known;                /* enough history: YI_LIMIT_ETA_MIN points
	                              over YI_LIMIT_ETA_MIN_S seconds */
	unsigned points;
	double span;               /* seconds the fit covers */
	double usage;              /* the last usage recorded, bytes */
	double rate, rate_lo, rate_hi;  /* bytes/s and its 95 % interval */
	double eta, eta_lo, eta_hi;     /* seconds from the last point until
	                                   usage reaches the limit; INFINITY
	                                   when it does not at that rate */
} yi_limit_eta;
/* Find the limit: the cgroup's (PROC/self/cgroup under cg_root; NULL:
 * "/proc", "/sys/fs/cgroup"; tests pass fixtures) or `given` (0: none),
 * the smaller when both; fracs[nfracs] (percent, 0 < f <= 100) armed.  0
 * (l->source YI_LIMIT_NONE when no limit is known) or an error (a
 * malformed cgroup file, an unreadable usage: no limit then). */
int yi_limit_init(yi_limit *l, uint64_t given, const double *fracs, unsigned nfracs,
    const char *proc_root, const char *cg_root);
/* The usage measured against the limit, in bytes: the cgroup's, or the
 * resident set for a given limit.  0 or an error. */
int yi_limit_usage(const yi_limit *l, uint64_t *usage);
/* Account usage: the index of the fraction it crossed upward (the highest
 * when several; each fires once until re-armed), or -1. */
int yi_limit_step(yi_limit *l, uint64_t usage);
/* "the cgroup's memory.max", "--limit (YING_LIMIT)"; "the cgroup's
 * memory.current", "the process's resident set". */
const char *yi_limit_source_name(const yi_limit *l);
/* Remember usage at monotonic time t (seconds) when the last point is
 * YI_LIMIT_HIST_STEP old or more (the oldest point goes when the ring is
 * full). */
void yi_limit_record(yi_limit *l, double t, uint64_t usage);
/* The usage's trend over the points recorded (least squares, a t interval
 * on the slope) and when it reaches the limit; e->known false without
 * enough history. */
void yi_limit_eta_get(const yi_limit *l, yi_limit_eta *e);
/* "in 4 min 10 s (95 %: 3 min 58 s to 4 min 23 s), at +1.2 MiB/s over the
 * last 5 min" or "not at the current trend (...)" into out[n]; "" when
 * e is not known. */
void yi_limit_eta_text(const yi_limit_eta *e, char *out, size_t n);
/* The running growth runner's limit and trend, for /debug/memory: the
 * runner publishes them at every tick (l NULL: none any more, at stop);
 * yi_limit_published copies them (false: no runner with a limit). */
void yi_limit_publish(const yi_limit *l);
bool yi_limit_published(yi_limit_eta *e, uint64_t *limit, const char **source);
const char *yi_limit_usage_name(const yi_limit *l);

/* ---- the leak history (live_leakhist.c) ---------------------------------- */
/* The summed growth of the sites whose verdict is leak: bytes per second
 * and its 95 % interval (the sites' half-widths in quadrature). */
typedef struct yi_leak_sum {
	double time;               /* of the history's last point, epoch s */
	size_t dumps, sites;       /* points in the history; leak sites */
	double rate, rate_lo, rate_hi;
} yi_leak_sum;
/* Account the runner's dump p (raw), taken now (an error loses the point). */
void yi_leakhist_feed(const ying_profile *p);
/* The verdicts so far (computed; the caller frees *out): the history's
 * tracked stacks symbolized with sym, the user's allocator frames and
 * full_names.  YING_ENODATA: no history in this process.  info: its
 * size (may be NULL). */
int yi_leakhist_leaks(ying_symbolizer *sym, const char *frames, bool full_names,
    int by_stack, ying_leaks **out, yi_leaks_hist_info *info);
/* The leak sites' summed rate of l, whose last point is at t. */
void yi_leak_sum_of(const ying_leaks *l, double t, yi_leak_sum *s);
/* When usage reaches limit at s's rate (seconds; INFINITY: not at that
 * rate, or no leak; 0: over it) and its interval. */
void yi_leak_eta(const yi_leak_sum *s, double limit, double usage, double *eta,
    double *eta_lo, double *eta_hi);
/* The runner's latest summary, for /debug/memory (NULL: none any more). */
void yi_leakhist_publish(const yi_leak_sum *s);
bool yi_leakhist_published(yi_leak_sum *s);

/* ---- growth runner (live_runner*.c) -------------------------------------- */
/* What one report set says besides the profile. */
typedef struct yi_report_meta {
	int64_t time;              /* dump time (seconds since the epoch) */
	long pid;
	const char *program;       /* label */
	const char *base;          /* the set's base name (for the "files" line) */
	const char *trigger;       /* why this report ("grew 23.4 % ...") */
	bool portable;             /* names without ':' */
	bool full_names;           /* whole function names (ying_symbolize_opts) */
	unsigned top;              /* stacks to list */
	bool have_stats;
	ying_ctl_stats stats;
	const char *stats_error;   /* when !have_stats */
	const ying_memory *memory; /* where the RSS goes, or NULL ... */
	const char *memory_error;  /* ... and why */
	/* the previous report, if any */
	ying_profile *prev;        /* may be NULL */
	bool recent;               /* BASE.recent.json was written */
	bool heap_written;         /* BASE.heap is on disk already
	                              (yi_runner_write_heap): not again */
	int64_t prev_time;
	double prev_total;
	/* giant allocations since the previous report ("ying-giant/1" JSON,
	 * the caller's), or NULL when none are recorded (no YING_GIANT) */
	const char *giant_json;
	size_t giant_len;
	ying_symbolizer *sym;      /* for the giant records, or NULL */
	/* the memory limit, when one is known (limit > 0): what it is, the
	 * usage measured against it at the check and the fraction crossed
	 * (percent; 0 for reports not made by a crossing) */
	const yi_limit *limit;
	uint64_t usage;
	double frac;
	/* the leak verdicts so far (live_leakhist.c), or NULL and why */
	const ying_leaks *leaks;
	const char *leaks_error;
	yi_leaks_hist_info leaks_info;
} yi_report_meta;
/* Write the readable .report text for profile p (symbolized already by the
 * caller; only read, like m->prev). */
int yi_runner_write_report(const ying_profile *p, double total,
    const yi_report_meta *m, ying_write_fn fn, void *opaque);
/* The verdicts so far (live_leakhist.c) into m->leaks (the caller frees
 * it) or, failing, why into err[errn] and m->leaks_error; m NULL: only
 * publish the leaks' summed rate.  Either way the sum is published. */
void yi_leakhist_verdicts(ying_symbolizer *sym, const char *frames, bool full_names,
    yi_report_meta *m, char *err, size_t errn);
/* The runner's report directory, held open: every file is made relative
 * to fd.  path is the name given (messages), real its realpath at open
 * (what must still name the directory), dev/ino the directory's. */
typedef struct yi_rdir {
	char *path, *real;
	int fd;                    /* registered with yi_fd_own; -1: lost */
	bool sink;                 /* this process cannot write it (another
	                            * user's): files go to the keeper
	                            * (live_sink.c), fd is YI_RDIR_SINK */
	dev_t dev;
	ino_t ino;
} yi_rdir;
/* yi_mkdir_p(path), then open it (O_DIRECTORY, O_NOFOLLOW once resolved)
 * and check on the descriptor that it is ours and private.  0, or an
 * error saying why (*d then holds nothing).  A directory this process
 * cannot use (another user's, no permission) while a keeper's socket is
 * set (yi_runner_set_sink) and path can be made absolute is taken in
 * sink mode (d->sink).  yi_rdir_close frees. */
int yi_rdir_open(yi_rdir *d, const char *path);
/* The "directory descriptor" of a yi_rdir whose files go to the keeper:
 * yi_runner_write_set_at, yi_runner_write_recent take it. */
#define YI_RDIR_SINK (-2)
/* Before writing: 0 when d's descriptor is still the directory opened (a
 * descriptor the program closed or reused is forgotten, not closed, and
 * the directory reopened by name if that is still the same one), it still
 * has a name, d->real still leads to it and it is still private;
 * otherwise YING_EIO saying what happened (removed, replaced by a symlink
 * or another directory, ...).  A directory that now belongs to another
 * user than this process's (it switched user) turns d to sink mode when a
 * keeper is set, or is refused saying how to fix it.  In sink mode: 0
 * while the keeper's socket is there. */
int yi_rdir_check(yi_rdir *d);
void yi_rdir_close(yi_rdir *d);
/* Write a whole set (.heap from dump[0..len), .pb.gz, .svg, .report last)
 * into the directory dfd (named dir in messages) atomically.  `base` is
 * yi_runner_base_name's result.  On failure nothing of the set is left
 * behind.  yi_runner_write_set opens dir (no symlink at its last step)
 * for the call. */
int yi_runner_write_set_at(int dfd, const char *dir, const char *base,
    const ying_profile *p, double total, const char *dump, size_t len,
    const yi_report_meta *m);
int yi_runner_write_set(const char *dir, const char *base, const ying_profile *p,
    double total, const char *dump, size_t len, const yi_report_meta *m);
/* Write BASE.recent.json (the recent allocations' capture) into dfd when
 * jemalloc keeps recent records; *written says whether it did. */
int yi_runner_write_recent(int dfd, const char *dir, const char *base, bool *written);
/* Write BASE.heap (dump[0..len)) on its own, synced and renamed into place,
 * the directory synced: a limit report's raw dump is on disk before the
 * symbolization that may push the process over its limit. */
int yi_runner_write_heap(int dfd, const char *dir, const char *base, const char *dump,
    size_t len);
/* Remove the oldest report sets in dfd/dir (never `keep`, a base name or
 * NULL) until at most max_sets remain and they take at most max_bytes (0 =
 * no bound).  Only names yi_runner_parse_name accepts are touched.  Returns
 * the number of sets removed or a negative error. */
int yi_runner_prune_at(int dfd, const char *dir, unsigned max_sets,
    uint64_t max_bytes, const char *keep);
int yi_runner_prune(const char *dir, unsigned max_sets, uint64_t max_bytes,
    const char *keep);
/* Create dir and missing parents with mode 0700; refuse (YING_EIO, saying
 * why) a dir that is not private (yi_dir_private, base_dir.c: a symlink,
 * not owned by the effective uid, writable by group/others). */
int yi_mkdir_p(const char *dir);

/* ---- the report directories the endpoint reads (live_reports.c) ---------- */
/* Register (at start) or take back (at stop) runner owner's directory d:
 * its realpath, device and inode are copied.  At most 8 per process (more
 * are not readable from the endpoint, nothing else). */
void yi_reports_add(const void *owner, const yi_rdir *d);
void yi_reports_remove(const void *owner);
/* Is name a report set's dump ("ying.TIME.NMiB.heap", no path)? */
bool yi_reports_name_ok(const char *name);
/* Read the dump `name` from a directory this process's runners registered,
 * at most max bytes (0: no bound), into *data (NUL-terminated, the caller
 * yi_free()s it) and *len.  0; YING_EINVAL for a name that is not a
 * dump's; YING_ENOTFOUND (no such report, no directory, or one only the
 * keeper can read), YING_ELIMIT or YING_EIO, each saying why. */
int yi_reports_read(const char *name, size_t max, char **data, size_t *len);

/* ---- the report keeper's runner side (live_sink.c) ------------------------ */
/* The socket to hand report files to (the agent's YING_RUN_SINK; -1: none),
 * process-wide; remembered by device and inode, forgotten (never closed)
 * once fd is no longer that socket.  Only a SOCK_SEQPACKET socket is taken. */
YI_SHARED void yi_runner_set_sink(int fd);
/* Is the sink still the socket given? */
bool yi_sink_ok(void);
/* Hand the finished file fd (a memfd; the caller keeps and closes it) to
 * be written as dir/name (dir absolute: yi_sink_path); ask the keeper to
 * bound dir as yi_runner_prune_at would. */
int yi_sink_put(const char *dir, const char *name, int fd);
int yi_sink_prune(const char *dir, unsigned max_sets, uint64_t max_bytes,
    const char *keep);
/* path made absolute without needing to see into it (its parent
 * resolved); yi_malloc'd, or NULL. */
char *yi_sink_path(const char *path);
/* A per-process report subdirectory's name: "PROGRAM.PID" or
 * "PROGRAM.PID.ROLE" (ROLE [a-z0-9-]). */
bool yi_report_subdir_ok(const char *name);

/* ---- the endpoint's address (live_http_addr.c; no libmicrohttpd) -------- */
#define YI_HTTP_DEFAULT_BIND "127.0.0.1:6060"
/* Listen on "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" (loopback); port 0
 * picks one.  *fd_out is the caller's to close. */
int yi_http_listen(const char *bind_addr, int *fd_out, int *family, int *port);
/* ying_http_opts checks shared by ying_http_start and ying_http_check. */
int yi_http_check_opts(const ying_http_opts *opts);
/* A bound socket fd on a non-loopback address needs opts->token or
 * opts->insecure: 0, or YING_EINVAL naming bind_addr and why. */
int yi_http_bind_policy(int fd, const ying_http_opts *opts, const char *bind_addr);
/* fd's local address as canonical text (a v4-mapped one as IPv4) into addr
 * (n bytes), *loopback (may be NULL) when 127.0.0.0/8 or ::1; false on error. */
bool yi_http_fd_local(int fd, char *addr, size_t n, bool *loopback);
/* The host of a Host header value ("name", "name:port", "[v6]:port"),
 * lower-cased, into out (n bytes); false when malformed or too long. */
bool yi_http_host_part(const char *hdr, char *out, size_t n);
/* May a request name host (from yi_http_host_part)?  Yes for localhost,
 * loopback literals, a literal equal to local (the connection's local
 * address, may be NULL) and the names of allow (comma-separated, may be
 * NULL, case-insensitive). */
bool yi_http_host_allowed(const char *host, const char *local, const char *allow);
/* ying_http_opts.open, 0 for a version-1 struct (which has no such field). */
int yi_http_opts_open(const ying_http_opts *opts);
/* *dst = *src, only as far as src's version has fields (the rest zero). */
void yi_http_opts_copy(ying_http_opts *dst, const ying_http_opts *src);

/* ---- who is at the other end (live_http_peer.c; no libmicrohttpd) ------- */
struct sockaddr_storage;
/* The uid owning the client end of the connected socket fd: SO_PEERCRED
 * for a Unix-domain socket, else the kernel's table of TCP sockets
 * (yi_http_peer_diag, then yi_http_peer_proc).  0, or -1 with why (wn
 * bytes) saying what failed. */
int yi_http_peer_uid(int fd, uid_t *uid, char *why, size_t wn);
/* The uid of the local TCP socket whose source is peer and destination
 * local (the client of our connection peer <- local), by
 * NETLINK_SOCK_DIAG / by /proc/net/tcp{,6}.  0, or -1 with why; the
 * sock_diag one returns 1 when the kernel answered that there is no such
 * socket (no fallback needed: yi_http_peer_uid reads /proc only when
 * sock_diag fails otherwise). */
int yi_http_peer_diag(const struct sockaddr_storage *peer,
    const struct sockaddr_storage *local, uid_t *uid, char *why, size_t wn);
int yi_http_peer_proc(const struct sockaddr_storage *peer,
    const struct sockaddr_storage *local, uid_t *uid, char *why, size_t wn);
/* "ADDR:PORT" or "[ADDR]:PORT" of ss into out (n bytes). */
void yi_http_addr_text(const struct sockaddr_storage *ss, char *out, size_t n);
/* Who may use the endpoint (live_http_access.c): the verdict on the peer
 * of the connected socket fd: served when its uid is this process's
 * effective uid or 0, refused otherwise and when it cannot be found.  Never
 * NULL; free it with yi_http_peer_free. */
void *yi_http_peer_verdict(int fd);
/* NULL when the verdict serves the peer, else the one-line reason for the
 * 403 (owned by the verdict).  A NULL verdict is refused. */
const char *yi_http_peer_refusal(const void *verdict);
void yi_http_peer_free(void *verdict);
/* A Unix-domain endpoint: the socket file made by yi_http_unix_listen. */
typedef struct yi_http_unix {
	char path[108];             /* "" when none */
	dev_t dev;
	ino_t ino;
	int64_t btime_sec;          /* its birth time, when the file system has one: */
	uint32_t btime_nsec;        /* an inode number can be reused at once */
	bool has_btime;
	pid_t pid;                  /* the process that made it: only it removes it */
} yi_http_unix;
/* Does bind_addr name a Unix-domain socket ("unix:/PATH", or "unix:@NAME"
 * in the abstract namespace: no file made or removed)? */
bool yi_http_is_unix(const char *bind_addr);
/* Listen on "unix:/PATH": the socket file is made 0600; an existing path is
 * replaced only when it is a stale socket of this user.  *fd_out is the
 * caller's to close, u is filled for yi_http_unix_remove.  0, YING_EINVAL
 * (bad path, a non-socket or another user's socket there) or YING_ESYS
 * (a server listens there, or a system call failed). */
int yi_http_unix_listen(const char *bind_addr, int *fd_out, yi_http_unix *u);
/* Remove u's socket file if this process made it and the path still is
 * that socket; then u names none. */
void yi_http_unix_remove(yi_http_unix *u);

/* The listening socket of a running endpoint (still owned by h), or -1:
 * the agent closes its copy in a forked child (live_http_listen.c; live_ctl.c without HTTP). */
int yi_http_listen_fd(const ying_http *h);

/* ---- the Pyroscope uploader (live_pyro.c) -------------------------------- */
/* ',"pyroscope":{...}' with the counters of this process's running
 * uploader (the last one started), or nothing when none runs: for the
 * endpoint's /debug/prof. */
void yi_pyro_status_json(yi_out *o);

/* ---- giant allocations (live_giant.c; live_ctl_dump.c) ------------------- */
/* The "ying-build-id:" lines of the loaded objects, as every dump ying
 * takes ends with: *out is yi_malloc'd (*len may be 0). */
int yi_ctl_build_id_lines(char **out, size_t *len);
/* /proc/self/maps (at most max bytes: yi_maps_read) and then those lines,
 * the MAPPED_LIBRARIES body of a dump ying takes: *out is yi_malloc'd and
 * NUL-terminated (the caller frees it), *len (may be NULL) its length. */
int yi_ctl_maps_text(size_t max, char **out, size_t *len);

/* ---- the shared symbolizer (live_sym.c) ---------------------------------- */
/* The process's one symbolizer for the runner, the HTTP endpoint, the
 * Pyroscope uploader and the giant writer: *out is it (created by the first
 * get); each get is matched by one yi_live_sym_put, the last put frees it.
 * Callers trim it (ying_symbolizer_trim) after each cycle.  0 or
 * YING_ENOMEM/YING_ESYS. */
int yi_live_sym_get(ying_symbolizer **out);
void yi_live_sym_put(ying_symbolizer *s);
/* The end of a cycle on the calling thread: ying_symbolizer_trim(s), then
 * yi_ctl_release_thread (what the cycle freed leaves the process). */
void yi_live_cycle_end(ying_symbolizer *s);
/* Check an option struct's `frames` (ying_symbolize_opts.frames syntax)
 * line by line: 0, or YING_EINVAL "WHAT line N: 'entry': why". */
int yi_live_frames_check(const char *frames, const char *what);

/* ---- descriptors the runtime owns (live_fd.c) --------------------------- */
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


#endif /* YI_LIVE_H */
