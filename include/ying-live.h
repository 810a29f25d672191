/*
 * ying-live.h: the public API of libying-live, ying's live runtime: the
 * profiler of the running process (mallctl), the HTTP endpoint, the growth
 * runner, the Pyroscope uploader, profiles fetched from a URL, and the
 * capture of recent and giant allocations.
 *
 * libying-live sits on libying (ying.h, included here) and follows its
 * conventions (return codes, ying_last_error(), option structs, sinks).  It
 * is the part of ying that runs inside a process: it starts threads, may
 * listen on a socket, installs fork handlers and (for giant allocations)
 * jemalloc allocation hooks, and loads libcurl on first use.  A program that
 * only reads, symbolizes, diffs and writes dumps needs libying alone.
 *
 * Link with `pkg-config --libs ying-live` (which brings libying).
 */
#ifndef YING_LIVE_H
#define YING_LIVE_H

#include <ying.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Control (the running jemalloc, through mallctl)                          */
/* ------------------------------------------------------------------------ */

/*
 * These calls talk to the jemalloc inside the calling process.  mallctl is
 * found at run time: the function given to ying_ctl_use(), otherwise
 * dlsym(RTLD_DEFAULT) of "mallctl", "_rjem_mallctl", "je_mallctl", otherwise
 * the same names in the static symbol table (.symtab) of each loaded object
 * (a statically linked jemalloc: Rust's jemalloc-sys, libjemalloc.a),
 * accepted only if it answers "version".  libying never loads jemalloc itself.
 * Errors: YING_ENOJEMALLOC (none found; a stripped program that links
 * jemalloc statically needs its symbols or ying_ctl_use), YING_ENOPROF (built without --enable-prof, or
 * the process was started without MALLOC_CONF=prof:true; use
 * prof:true,prof_active:false for a zero-cost standby).  The detail names
 * the fix.  Every ying_ctl_* call is thread-safe; dumps are serialised.
 */

/** jemalloc's mallctl signature. */
typedef int (*ying_mallctl_fn)(const char *name, void *oldp, size_t *oldlenp,
    void *newp, size_t newlen);
/** jemalloc's malloc_stats_print signature. */
typedef void (*ying_stats_print_fn)(void (*write_cb)(void *, const char *),
    void *cbopaque, const char *opts);

/**
 * Use this mallctl (e.g. tikv_jemalloc_sys::mallctl, which is
 * `_rjem_mallctl`) instead of searching with dlsym.  Fails with YING_EINVAL
 * if fn does not answer "version" like jemalloc.  NULL returns to dlsym.
 */
YING_EXTERN int ying_ctl_use(ying_mallctl_fn fn);
/** Same for malloc_stats_print (otherwise found with the mallctl prefix). */
YING_EXTERN void ying_ctl_use_stats_print(ying_stats_print_fn fn);

/**
 * The mallctl the ying_ctl_* calls use (found as above), for a caller that
 * needs a node libying has no call for (the agent: experimental.hooks.*);
 * NULL when there is none (the reason in ying_last_error()).  Nothing to
 * free; the function stays valid for the life of the process.
 */
YING_EXTERN ying_mallctl_fn ying_ctl_mallctl(void);
/** 0 when heap profiling can be used, else YING_ENOJEMALLOC/YING_ENOPROF
 *  with the reason and its fix in ying_last_error(). */
YING_EXTERN int ying_ctl_available(void);

/** The profiler's state (filled by ying_ctl_status_get; nothing to free). */
typedef struct ying_ctl_status {
	char version[128];        /**< jemalloc's version string */
	char mallctl_symbol[32];  /**< "mallctl", "_rjem_mallctl", ... or "caller" */
	int config_prof;          /**< built with --enable-prof */
	int opt_prof;             /**< started with prof:true */
	int prof_active;          /**< prof.active: sampling on */
	int opt_prof_accum;       /**< cumulative counts are kept */
	int thread_active_init;   /**< new threads sample */
	unsigned lg_sample;       /**< prof.lg_sample: period is 2^lg_sample bytes */
	uint64_t interval;        /**< prof.interval in bytes; 0 = no interval dumps */
	char mallctl_how[16];     /**< how it was found: "dlsym", ".symtab" (or
	                               ".dynsym" of an object dlsym does not see), "caller" */
	char mallctl_file[256];   /**< the object defining it ("" for "caller") */
} ying_ctl_status;

/** Read the status.  Needs jemalloc only (works without prof:true). */
YING_EXTERN int ying_ctl_status_get(ying_ctl_status *st);

/**
 * prof.active: on = 1 starts sampling, 0 stops it, -1 only reads.  The
 * previous value goes to *old (may be NULL).  Dumps work either way.
 */
YING_EXTERN int ying_ctl_active(int *old, int on);

/** thread.prof.active of the calling thread (same on/old convention). */
YING_EXTERN int ying_ctl_thread_active(int *old, int on);

/**
 * prof.reset: drop every sample collected so far and sample from now on
 * with a period of 2^lg_sample bytes (0..63; -1 keeps the current rate).
 */
YING_EXTERN int ying_ctl_reset(int lg_sample);

/** thread.prof.name of the calling thread (printable characters, space,
 *  tab).  YING_ENOTSUP when jemalloc runs with prof_sys_thread_name. */
YING_EXTERN int ying_ctl_thread_name_set(const char *name);
/** The calling thread's profile name ("" if unset) in a new buffer; the
 *  caller frees *out with ying_free(). */
YING_EXTERN int ying_ctl_thread_name_get(char **out);

/** Dump the heap profile (heap_v2) to a file that jemalloc creates or
 *  truncates with mode 0644; libying then appends one "ying-build-id:"
 *  line per loaded object with a GNU build ID (jeprof and pprof skip
 *  them; ying checks the files against them). */
YING_EXTERN int ying_ctl_dump_file(const char *path);

/**
 * Dump the heap profile into memory (memfd, or a private 0700 temporary
 * directory that is removed again).  *out is a NUL-terminated heap_v2 text
 * of *len bytes, ending with the "ying-build-id:" lines of
 * ying_ctl_dump_file(); the caller frees it with ying_free().
 */
YING_EXTERN int ying_ctl_dump_mem(char **out, size_t *len);

/** Dump and parse: *out is a new profile; release it with
 *  ying_profile_free(). */
YING_EXTERN int ying_ctl_dump_profile(ying_profile **out);

/** Allocator statistics in bytes, refreshed (`epoch`) by each call. */
typedef struct ying_ctl_stats {
	uint64_t allocated, active, metadata, resident, mapped, retained;
} ying_ctl_stats;
YING_EXTERN int ying_ctl_stats_get(ying_ctl_stats *st);

/** malloc_stats_print(..., "J"): jemalloc's full statistics as JSON in a
 *  new NUL-terminated buffer (*len bytes, len may be NULL); the caller frees
 *  *out with ying_free(). */
YING_EXTERN int ying_ctl_stats_json(char **out, size_t *len);

/** Where an ELF file defines jemalloc (ying_jem_elf.where). */
enum {
	YING_JEM_NONE = 0,      /**< no jemalloc defined in the file */
	YING_JEM_DYNSYM = 1,    /**< exported (.dynsym): dlsym finds it */
	YING_JEM_SYMTAB = 2,    /**< only in .symtab: linked statically, not exported */
	YING_JEM_STRIPPED = 3   /**< linked statically (its strings are there), but
	                             no .symtab: nothing can find its functions */
};
/** What jemalloc an ELF file defines (ying_jem_elf_read; nothing to free). */
typedef struct ying_jem_elf {
	int where;              /**< YING_JEM_* */
	char symbol[32];        /**< "mallctl", "_rjem_mallctl", "je_mallctl";
	                             "" unless DYNSYM or SYMTAB */
	char prefix[16];        /**< "", "_rjem_", "je_" (not NONE) */
	char conf_var[32];      /**< its variable: "MALLOC_CONF",
	                             "_RJEM_MALLOC_CONF", ... ("" for NONE) */
	int stripped;           /**< 1: the file has no .symtab */
} ying_jem_elf;
/**
 * Read path's .dynsym and .symtab (and, without .symtab, its read-only
 * strings) and say which jemalloc it defines: the same rule the control
 * layer applies to the loaded objects when dlsym finds no mallctl, so that
 * a launcher (`ying run`) decides as the agent will.  0 with *out filled
 * (where may be YING_JEM_NONE), or YING_ENOTFOUND / YING_EIO (cannot
 * open), YING_EPARSE (not ELF).
 */
YING_EXTERN int ying_jem_elf_read(ying_jem_elf *out, const char *path);

/** Turn jemalloc sampling off for the calling thread (a tool's own thread:
 *  its allocations are not the program's); once per thread, later calls
 *  are free.  Never fails (no jemalloc: nothing to do). */
YING_EXTERN void ying_ctl_quiet_thread(void);

/* ------------------------------------------------------------------------ */
/* HTTP endpoint                                                             */
/* ------------------------------------------------------------------------ */

/*
 * An embedded HTTP server (libmicrohttpd; YING_ENOTSUP when libying was
 * built without it) serving heap dumps in every format, growth profiles,
 * named snapshots and diffs, profiler control, and jeprof's and Go pprof's
 * remote protocols.  The server's threads never sample, block every
 * signal, and may be started from any thread (e.g. one spawned by a
 * constructor).  The endpoints, all of them (ying-http(7) has the details;
 * tests/integration/http_endpoint_list.sh checks this list, the man
 * page's and the router's agree):
 *
 *   /                        GET: the live page (and its script and style under
 *                            /ui/: no token needed, no data in them)
 *   /debug/                  GET: an HTML index of the endpoints
 *   /debug/heap              GET ?format=raw|pprof|folded|svg|text|json|tree
 *                            &sample_index=...&snapshot=N: a heap dump (or
 *                            a kept snapshot)
 *   /debug/heap/flamegraph   GET: SVG flame graph
 *   /debug/heap/snapshot     POST ?name=N keeps a base, GET lists,
 *                            DELETE ?name=N drops one
 *   /debug/heap/diff         GET ?base=N&now=M&format=...: growth since
 *                            base N (to snapshot M)
 *   /debug/heap/recent       GET: recent allocations (JSON capture);
 *                            POST ?max=N sets how many jemalloc keeps
 *   /debug/heap/leaks        GET ?format=json|text&stacks=1&limit=N: the
 *                            leak verdicts so far (the growth runner's
 *                            history; 404 before its first heap check)
 *   /debug/heap/giant        GET ?since=SEQ: giant allocations (JSON)
 *   /debug/history           GET ?since=T: memory over time and events
 *                            (JSON; 1/s for 10 min, 1/min for 24 h)
 *   /debug/ui                GET: mode, pid, program (the live page's)
 *   /debug/pprof/heap        GET: gzipped symbolized pprof; ?seconds=N
 *                            for growth over N seconds
 *   /debug/pprof/allocs      the same (Grafana Alloy's default path)
 *   /debug/pprof/symbol      GET, POST: Go pprof remote symbolization
 *   /debug/pprof/cmdline     GET: the command line
 *   /debug/processes         GET: the service's profiled processes (JSON);
 *                            every endpoint takes ?pid=N (one of them),
 *                            the pprof ones ?pid=all (their sum, label pid)
 *   /debug/prof              GET: profiler status and statistics (JSON)
 *   /debug/prof/active       POST ?on=0|1: prof.active
 *   /debug/prof/sample       POST ?lg=N: prof.reset with 2^N bytes
 *   /debug/stats             GET: malloc_stats_print JSON
 *   /debug/memory            GET ?format=json|text&sites=0|1: where the
 *                            RSS goes (ying_memory_*), parts summing to it
 *   /pprof/heap              GET: jeprof remote, raw heap_v2 dump
 *   /pprof/symbol            GET, POST: jeprof remote symbolization
 *   /pprof/cmdline           GET: jeprof remote, the program name
 */
typedef struct ying_http ying_http;

#define YING_HTTP_OPTS_VERSION 3
typedef struct ying_http_opts {
	int version;
	/** "HOST:PORT", "[V6]:PORT" or ":PORT"; NULL = "127.0.0.1:6060".  Port 0
	 *  picks a free port (see ying_http_port).  "unix:/PATH": a Unix-domain
	 *  socket, created mode 0600 (an existing stale socket of this user is
	 *  replaced, anything else refused) and removed by ying_http_stop.
	 *  Copied. */
	const char *bind;
	/** When set, every request needs "Authorization: Bearer <token>"
	 *  (401 otherwise), and the token alone decides.  Without a token
	 *  (and without `open`) only the process's own effective user and
	 *  root are served: the owner of each connection's client socket is
	 *  looked up once per connection (SO_PEERCRED; for TCP the kernel's
	 *  socket table, NETLINK_SOCK_DIAG, else /proc/net/tcp), and any other
	 *  user, or a peer whose owner cannot be found, gets 403.  Copied. */
	const char *token;
	unsigned max_connections;   /**< concurrent connections; 0 = 64 (a new
	                                 client evicts the longest-idle one) */
	unsigned timeout_sec;       /**< idle connection timeout; 0 = 30 */
	unsigned max_seconds;       /**< bound of ?seconds=N; 0 = 300 */
	unsigned max_snapshots;     /**< named snapshots kept; 0 = 8 */
	size_t max_snapshot_bytes;  /**< their total size; 0 = 256 MiB */
	unsigned busy_wait_ms;      /**< wait for an in-flight dump, then 503; 0 = 2000 */
	size_t max_body;            /**< symbol POST body bound; 0 = 1 MiB */
	FILE *log;                  /**< one line per request; NULL = quiet */
	/** Comma-separated host names (or literal addresses) a request's
	 *  Host header may name besides loopback (localhost, 127.0.0.0/8,
	 *  [::1]) and the address the connection came in on; any other Host
	 *  is 403 (DNS rebinding).  NULL = none.  Copied. */
	const char *allow_hosts;
	/** Allow a non-loopback bind without a token (refused otherwise,
	 *  YING_EINVAL); such an endpoint serves every peer, as `open`. */
	int insecure;
	/** Serve every local user, not only the process's own user and root. */
	int open;
	/** The user's allocator wrappers for the symbolized outputs, as
	 *  ying_symbolize_opts.frames takes them (ying(1) ALLOCATOR FRAMES;
	 *  the agent reads $XDG_CONFIG_HOME/ying/frames and
	 *  YING_DROP_FRAMES).  NULL = none.  Checked (a bad entry is
	 *  YING_EINVAL) and copied. */
	const char *frames;
} ying_http_opts;
#define YING_HTTP_OPTS_INIT { YING_HTTP_OPTS_VERSION, NULL, NULL, 0, 0, 0, \
	0, 0, 0, 0, NULL, NULL, 0, 0, NULL }
/** Fill *o as YING_HTTP_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_http_opts_init(ying_http_opts *o);

/** Start serving.  *out is the server; stop and free it with
 *  ying_http_stop(). */
YING_EXTERN int ying_http_start(ying_http **out, const ying_http_opts *opts);
/** The bound TCP port (useful with port 0; 0 for a Unix-domain socket), or
 *  a negative ying_err. */
YING_EXTERN int ying_http_port(const ying_http *h);
/** Stop: wake waiting requests, join every server thread, free h.  NULL is
 *  a no-op. */
YING_EXTERN void ying_http_stop(ying_http *h);
/** Would ying_http_start(opts) get its address?  Checks the options (token),
 *  parses and resolves opts->bind and listens there with a plain socket,
 *  then closes it; 0, or the error ying_http_start would give (YING_EINVAL
 *  for a bad address, option or unresolvable host, YING_ESYS when it cannot
 *  listen, YING_ENOTSUP without HTTP support).  Neither starts a server nor
 *  loads libmicrohttpd; nothing to free. */
YING_EXTERN int ying_http_check(const ying_http_opts *opts);

/*
 * `ying serve`: the same endpoint over files, offline, with no process to
 * profile (like `go tool pprof -http`): its page and the JSON API the page
 * reads (/debug/ui says "mode": "serve", /debug/history has one point per
 * dump, /debug/heap?snapshot=NAME any dump by its file name, diff between
 * two dumps, leak verdicts over all of them); the endpoints of a process
 * (memory, control, giant allocations) answer 404 "offline", every POST
 * 405.  The doors are the agent's: loopback by default, owner-only
 * without a token, the token, Host and Origin rules of ying_http_opts.
 */
typedef struct ying_serve_opts {
	int version;            /**< YING_SERVE_OPTS_VERSION */
	/** A directory's skipped files are named here ("not a dump"); NULL:
	 *  quiet. */
	FILE *warn;
	/** A URL input: sent as "Authorization: Bearer <token>" when fetching
	 *  its dumps; NULL: none.  Copied. */
	const char *url_token;
	/** A URL input: seconds between fetches; 0 = 10. */
	double every;
	/** A URL input: the dumps kept in memory (the oldest dropped); 0 = 60. */
	unsigned max_dumps;
} ying_serve_opts;
#define YING_SERVE_OPTS_VERSION 1
#define YING_SERVE_OPTS_INIT { YING_SERVE_OPTS_VERSION, NULL, NULL, 0, 0 }

/**
 * Serve inputs[0..n) as ying_http_start serves a process: one directory
 * (a report directory of `ying run --report-dir`, or any directory of
 * heap dumps; looked at again when it changes), one or more dump files
 * (heap_v2, gzipped or not, or pprof), or one http(s):// URL of a live
 * endpoint whose heap is fetched every opts->every seconds.  A file given
 * by name that cannot be read as a dump fails the start (YING_EPARSE or
 * the reader's code, the detail naming the file); a directory without a
 * dump is YING_ENODATA.  *out is stopped and freed with ying_http_stop.
 */
YING_EXTERN int ying_http_serve_files(ying_http **out, const ying_http_opts *http,
    const char *const *inputs, size_t n, const ying_serve_opts *opts);

/* ------------------------------------------------------------------------ */
/* Growth runner                                                             */
/* ------------------------------------------------------------------------ */

/*
 * The growth runner watches the calling process's own heap from a
 * background thread and writes a report set whenever retained memory has
 * moved by opts->pct percent since the previous report (the first one once
 * it reaches opts->floor), so that `ls -l DIR` tells the story:
 *
 *   ying.2026-09-09T16:45:05-04:00.152MB.report   readable summary
 *   ying.2026-09-09T16:45:05-04:00.152MB.svg      flame graph
 *   ying.2026-09-09T16:45:05-04:00.152MB.heap     jemalloc's heap_v2 dump
 *   ying.2026-09-09T16:45:05-04:00.152MB.pb.gz    pprof (go tool pprof)
 *
 * The time is local time with its UTC offset; portable_names writes the
 * ISO 8601 basic form instead (ying.20260909T164505-0400.152MB.report), so
 * no ':' appears.  <N>MB is retained memory in MiB, rounded.
 *
 * "Retained memory" is the live heap: the unsampled inuse_space total of a
 * fresh dump (what `ying top` prints as Total), i.e. the bytes the program
 * holds, estimated from jemalloc's samples exactly like jeprof.  It leaves
 * out the runner's own work (its thread never samples), which
 * stats.allocated would not; jemalloc's own counters (allocated, active,
 * resident, mapped, retained) are printed in each .report for comparison.
 * Each check costs one dump (jemalloc: ~2 ms per 1000 stacks) and a parse;
 * symbolization and writing happen only for a report.
 *
 * Files appear atomically (written under a hidden temporary name in DIR,
 * fsync'd, then renamed; the .report last; then DIR is fsync'd), so a set
 * on disk is whole after a SIGKILL or a crash.  With a memory limit (the
 * cgroup's, or opts->limit) sets are also written when usage crosses
 * opts->limit_fracs (ying.<time>.limit90.<N>MiB.*; their .heap first,
 * before symbolizing) and at new high-water marks (.hwm.): ying-agent(7)
 * MEMORY LIMIT.  DIR is created with mode 0700 if
 * missing.  Only the runner's own files are ever removed: the oldest report
 * sets go once there are more than max_sets of them or they take more than
 * max_bytes.  A write error (full disk, ...) is reported once on opts->log
 * and never reaches the program; the runner keeps trying at each check.
 * Use one directory per process.
 */
typedef struct ying_runner ying_runner;

#define YING_RUNNER_OPTS_VERSION 3
typedef struct ying_runner_opts {
	int version;
	/** Report directory (created 0700 if missing).  Required; copied. */
	const char *dir;
	/** Seconds between checks (default 300).  <= 0: no periodic checks,
	 *  reports only on ying_runner_trigger(). */
	double interval;
	/** Change since the previous report, in percent of it, that triggers
	 *  a report (default 10; growth and shrinkage alike). */
	double pct;
	/** No report until retained memory reaches this many bytes for the
	 *  first time (default 20 MiB). */
	uint64_t floor;
	/** Names without ':' (ISO 8601 basic time). */
	int portable_names;
	/** Report sets kept in dir (default 64; 0 = no bound). */
	unsigned max_sets;
	/** Bytes of report files kept in dir (default 512 MiB; 0 = no bound). */
	uint64_t max_bytes;
	/** Stacks listed in each .report (default 10). */
	unsigned top;
	/** Where notices go (errors, once; with verbose, a line per report);
	 *  NULL = stderr. */
	FILE *log;
	/** One notice line per report set written. */
	int verbose;
	/** Program label for reports; NULL = the executable and its command
	 *  line from /proc/self.  Copied. */
	const char *program;
	/** The user's allocator wrappers for the symbolized outputs, as
	 *  ying_symbolize_opts.frames takes them (ying(1) ALLOCATOR FRAMES;
	 *  the agent reads $XDG_CONFIG_HOME/ying/frames and
	 *  YING_DROP_FRAMES).  NULL = none.  Checked (a bad entry is
	 *  YING_EINVAL) and copied. */
	const char *frames;
	/** Reports print whole function names (parameters, template
	 *  arguments: ying_symbolize_opts.full_names); by default the short
	 *  ones.  The .pb.gz always has the full names. */
	int full_names;
	/* ---- version 3: the memory limit (ying-agent(7) MEMORY LIMIT) */
	/** The memory limit in bytes (`ying run --limit`, YING_LIMIT); 0:
	 *  none given.  The memory cgroup's limit is found by the runner; the
	 *  smaller of the two counts.  With a limit the runner reads the
	 *  usage every 200 ms and writes a report set (".limit90.") when it
	 *  crosses one of limit_fracs upward, and one (".hwm.") at each new
	 *  high-water mark of the heap. */
	uint64_t limit;
	/** Percentages of the limit (integers 1..100) whose upward crossing
	 *  writes a report set: limit_fracs[n_limit_fracs], at most 8,
	 *  copied.  NULL: 80 and 90; a pointer with n 0: none. */
	const double *limit_fracs;
	unsigned n_limit_fracs;
	/** The cgroup file system's mount point (NULL: /sys/fs/cgroup);
	 *  containers and tests give another (YING_CGROUP_ROOT).  Copied. */
	const char *cgroup_root;
	/** High-water-mark reports (with a limit only): when jemalloc's
	 *  stats.allocated is hwm_pct percent above its value after the
	 *  previous report set (default 10; 0: none), at most one per
	 *  hwm_interval seconds (default 60), once the heap reached floor. */
	double hwm_pct;
	double hwm_interval;
} ying_runner_opts;
#define YING_RUNNER_OPTS_INIT { YING_RUNNER_OPTS_VERSION, NULL, 300.0, 10.0, \
	(uint64_t)20 << 20, 0, 64, (uint64_t)512 << 20, 10, NULL, 0, NULL, NULL, 0, \
	0, NULL, 0, NULL, 10.0, 60.0 }
/** Fill *o as YING_RUNNER_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_runner_opts_init(ying_runner_opts *o);

/**
 * Start the runner thread.  Fails with YING_ENOJEMALLOC/YING_ENOPROF when
 * heap profiling is not available (see ying_ctl_available), YING_EINVAL on
 * bad options, YING_EIO when dir cannot be created.  *out is the runner;
 * stop and free it with ying_runner_stop().
 */
YING_EXTERN int ying_runner_start(ying_runner **out,
    const ying_runner_opts *opts);

/**
 * Ask for a report set now, whatever the growth (the runner thread does the
 * work).  Async-signal-safe: meant for a signal handler.  Calls from a
 * forked child are ignored (the runner belongs to the parent).
 */
YING_EXTERN int ying_runner_trigger(ying_runner *r);

/**
 * Ask every running runner of this process (of this copy of libying-live)
 * for a report set now.  Async-signal-safe, and it reads no runner: only
 * static state that is never freed, so a signal handler may call it at any
 * time, also while or after ying_runner_stop() runs on another thread (a
 * runner being stopped is no longer asked).  Returns how many runners were
 * asked (0: none runs; calls from a forked child ask none).
 */
YING_EXTERN int ying_runner_trigger_all(void);

/** Report sets written so far. */
YING_EXTERN unsigned ying_runner_reports(const ying_runner *r);

/** Stop the thread (an in-progress report is finished first) and free r.
 *  NULL is a no-op.  Never call it in a forked child of the process that
 *  started the runner. */
YING_EXTERN void ying_runner_stop(ying_runner *r);

/**
 * The report keeper: writes the report files of processes that can no
 * longer create files in their report directory (they switched to another
 * user), which hand them over a SOCK_SEQPACKET socket (the agent's
 * YING_RUN_SINK; `ying run` is the keeper).  ying_keeper_open holds dir (a
 * private directory of this user, created 0700 when missing) open; only
 * dir itself and one level of per-process subdirectories in it
 * ("PROGRAM.PID" or "PROGRAM.PID.ROLE", created 0700) are written to, and
 * only files named as the runner names them.  Free with
 * ying_keeper_close (NULL is a no-op).
 */
typedef struct ying_keeper ying_keeper;
YING_EXTERN int ying_keeper_open(ying_keeper **out, const char *dir);
/** Handle one message waiting on sock (never blocks): 1 handled, 0 none
 *  waiting, 2 every sender closed its end, or a negative error (the
 *  message was refused, ying_last_error() says why; keep serving). */
YING_EXTERN int ying_keeper_serve(ying_keeper *k, int sock);
/** The i-th directory written to so far ("" for dir itself) and how many
 *  report sets (.report files) went there; 0, or -1 past the end.
 *  *subdir stays k's. */
YING_EXTERN int ying_keeper_count(const ying_keeper *k, size_t i, const char **subdir,
    unsigned *sets);
YING_EXTERN void ying_keeper_close(ying_keeper *k);

/* ------------------------------------------------------------------------ */
/* Agent                                                                     */
/* ------------------------------------------------------------------------ */

/*
 * libying-agent.so puts the HTTP endpoint, the growth runner and an on-demand
 * dump signal into any program that uses jemalloc, without changing it:
 *
 *   LD_PRELOAD=libying-agent.so MALLOC_CONF=prof:true \
 *       YING_HTTP=127.0.0.1:6060 YING_REPORT_DIR=/var/tmp/ying ./service
 *
 * (`ying run` sets all of this up, and preloads libjemalloc for programs
 * that do not link it.)  Its constructor reads YING_HTTP, YING_HTTP_TOKEN,
 * YING_REPORT_*, YING_DUMP_SIGNAL,
 * YING_PYROSCOPE_* (the uploader below; secrets are read, then wiped from
 * the environment), YING_AGENT_PID and YING_QUIET, and starts its work on its own threads,
 * which never sample and block every signal; see ying-agent(7).  Without
 * jemalloc or without prof:true it prints one line on stderr and stays
 * inert.  The agent carries its own hidden copy of libying; it exports only
 * the status function below, which a host may look up with
 * dlsym(RTLD_DEFAULT, YING_AGENT_STATUS_SYMBOL).
 */
/** "active: ...", "inert: <reason>" or "off" (not configured); static. */
typedef const char *(*ying_agent_status_fn)(void);
#define YING_AGENT_STATUS_SYMBOL "ying_agent_status"

/* ------------------------------------------------------------------------ */
/* Profiles from a URL (libcurl)                                             */
/* ------------------------------------------------------------------------ */

/** Options of ying_profile_read_url().  Nothing is retained after the call. */
typedef struct ying_fetch_opts {
	int version;            /**< YING_FETCH_OPTS_VERSION */
	/** Sent as "Authorization: Bearer <token>" (ying's endpoint, --token);
	 *  NULL sends none.  Owned by the caller; never logged or echoed. */
	const char *token;
	/** Seconds for connecting and the whole transfer; 0 = 60. */
	double timeout;
	/** Largest accepted response body in bytes; 0 = 1 GiB.  Never more
	 *  than half the decode budget (YING_MAX_MEMORY, default 1 GiB). */
	size_t max_bytes;
} ying_fetch_opts;
#define YING_FETCH_OPTS_VERSION 1
#define YING_FETCH_OPTS_INIT { YING_FETCH_OPTS_VERSION, NULL, 0, 0 }
/** Fill *o as YING_FETCH_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_fetch_opts_init(ying_fetch_opts *o);

/**
 * GET url exactly as given (no default path) with the same limits, token
 * and error messages as ying_profile_read_url, and return the body: *out
 * is NUL-terminated, *len bytes without the NUL; the caller frees *out
 * with ying_free().  An answer other than 200 is an error naming the
 * status and the server's first line (YING_EIO; 404 is YING_ENOTFOUND).
 */
YING_EXTERN int ying_fetch_body(char **out, size_t *len, const char *url,
    const ying_fetch_opts *opts);

/**
 * Fetch a profile over HTTP(S) and read it like ying_profile_read_mem()
 * (heap_v2 or pprof, plain or gzipped); the URL names it in messages.  Only
 * http:// and https:// URLs; redirects are not followed.  A URL without a
 * path (or with just "/") fetches "/debug/pprof/heap", the symbolized pprof
 * profile of ying's HTTP endpoint (see ying-http(7)).  opts may be NULL.
 * Errors: YING_EINVAL (bad URL or options), YING_EIO (cannot connect, time
 * out, HTTP error status; the detail names host:port or the status and what
 * to do, e.g. a token for 401), YING_ENOTFOUND (HTTP 404), YING_ELIMIT (body
 * over max_bytes), YING_EPARSE (not a profile), YING_ENOTSUP (libying was
 * built without libcurl).  On success *out is a new profile; release it
 * with ying_profile_free().
 */
YING_EXTERN int ying_profile_read_url(ying_profile **out, const char *url,
    const ying_fetch_opts *opts);

/**
 * Name p's addresses through a server speaking jeprof's symbol protocol:
 * the unique addresses still without names are POSTed to BASE/pprof/symbol,
 * BASE being `url` up to its "/pprof/" path (jeprof's rule; e.g.
 * "http://h:6060/pprof/heap" -> "http://h:6060/pprof/symbol"), and each
 * "0xADDRESS NAME[--NAME...]" line of the answer names its location (an
 * inline chain outermost first).  For a dump fetched from a machine whose
 * binaries are not here; ying's endpoint serves /pprof/symbol.  Run it
 * before ying_profile_symbolize, which then names what is left and trims
 * allocator frames.  A profile already symbolized is left alone.  *named
 * (may be NULL) is the number of locations named.  Errors as
 * ying_profile_read_url's, and YING_ENODATA when the answer names nothing.
 * Nothing to free.
 */
YING_EXTERN int ying_profile_symbolize_remote(size_t *named, ying_profile *p,
    const char *url, const ying_fetch_opts *opts);

/* ------------------------------------------------------------------------ */
/* Continuous upload to Grafana Pyroscope (libcurl)                          */
/* ------------------------------------------------------------------------ */

/*
 * An uploader dumps the calling process's heap every `interval` seconds on
 * a background thread (which never samples and blocks every signal),
 * symbolizes it (with the symbolizer the process's runner, HTTP endpoint
 * and giant writer share: resolved addresses are kept, debug info is
 * dropped after each upload), writes it as a gzipped pprof and queues it;
 * a second thread sends the queue to Pyroscope.  The queue is bounded (`queue` profiles; when it
 * is full the oldest is dropped and counted), each request has a timeout,
 * and 429, 5xx and network errors are retried with exponential backoff and
 * jitter (other 4xx are not: counted as failed, the error kept).  Nothing
 * of it ever blocks or fails the program.
 *
 * APIs:
 *  - "push" (default): POST {url}/push.v1.PusherService/Push, Connect
 *    unary, Content-Type application/proto, a push.v1.PushRequest with one
 *    series (labels __name__=memory, service_name, the tags, hostname,
 *    __session_id__, __delta__=false) holding one sample (the gzipped
 *    pprof, a random UUID as ID).
 *  - "ingest" (legacy): POST {url}/ingest?name=SERVICE{tags,hostname,
 *    __session_id__}&from=&until= (milliseconds)&spyName=ying,
 *    multipart/form-data with the pprof in the part "profile" and a
 *    sample_type_config part.
 * __session_id__ is a random 16-hex-digit id drawn when the uploader
 * starts: one per process run, as Pyroscope's own agents send it (the
 * server keeps it off the series by default, so a restart or another
 * worker of the same service does not make a new series).
 *
 * What a default Pyroscope refuses is never sent.  A profile with more
 * samples than max_samples (default 16,000: the server's samples_limit) or
 * bigger than max_bytes (default 2 MiB, uncompressed with its labels: the
 * server's per-profile ingestion burst, past which it answers 429 for
 * ever) is folded first (ying_profile_fold: its least significant stacks
 * are cut near the root and summed under a "[ying: folded]" frame, so
 * every total stays exact); one that cannot be made to fit is not sent
 * and counts as oversized.  With prof_accum, alloc_space and
 * alloc_objects are what each stack allocated during the upload's
 * interval (the first interval counts from the uploader's start), as
 * pyroscope-go sends them; inuse_* are snapshots.  time_nanos has
 * millisecond precision and duration_nanos is the interval.  The numeric
 * "bytes" label (mean object size) is left out: it changes between
 * profiles, and Pyroscope drops numeric labels anyway.
 * libcurl.so.4 is loaded with dlopen when the first request is sent, so
 * programs that never upload never load it.  The counters also appear in
 * the HTTP endpoint's /debug/prof (key "pyroscope") while both run.
 */
typedef struct ying_pyroscope ying_pyroscope;

#define YING_PYROSCOPE_OPTS_VERSION 3
/** Options; every field 0/NULL means its default.  Strings are copied by
 *  ying_pyroscope_start; none is kept by the other calls. */
typedef struct ying_pyroscope_opts {
	/** YING_PYROSCOPE_OPTS_VERSION. */
	int version;
	/** Base URL, http:// or https://, e.g. "http://127.0.0.1:4040" (a
	 *  path prefix is kept: ".../pyroscope").  Required. */
	const char *url;
	/** service_name: [A-Za-z0-9_./-], 1..128 characters; NULL = the
	 *  program's name (characters outside the set become '_'). */
	const char *service;
	/** "k=v,k=v": names [A-Za-z_][A-Za-z0-9_.]* (reserved: __name__,
	 *  service_name, hostname, pid and every name starting with "__"),
	 *  values without ',', '{', '}', '=', spaces or control characters;
	 *  at most 24 tags.  NULL = none. */
	const char *tags;
	/** "push" (default) or "ingest". */
	const char *api;
	/** Seconds between uploads (default 15; at least 0.1). */
	double interval;
	/** Basic auth (user, and password or ""), or NULL. */
	const char *user, *password;
	/** Sent as "Authorization: Bearer <token>"; not with user. */
	const char *token;
	/** Sent as X-Scope-OrgID (multi-tenant Pyroscope), or NULL. */
	const char *tenant;
	/** Extra header lines "Name: value", NULL-terminated array, or NULL. */
	const char *const *headers;
	/** Profiles waiting to be sent (default 4, at most 1024). */
	int queue;
	/** Seconds per request, connecting included (default 10). */
	double timeout;
	/** Retries of one profile after its first attempt (default 4;
	 *  -1 = none). */
	int retries;
	/** Notices (the first failure after a success, and recovery), one
	 *  line each; NULL = stderr. */
	FILE *log;
	/** The user's allocator wrappers for the symbolized outputs, as
	 *  ying_symbolize_opts.frames takes them (ying(1) ALLOCATOR FRAMES;
	 *  the agent reads $XDG_CONFIG_HOME/ying/frames and
	 *  YING_DROP_FRAMES).  NULL = none.  Checked (a bad entry is
	 *  YING_EINVAL) and copied. */
	const char *frames;
	/* ---- version 3 (a version-2 struct is still accepted: these are
	 * then their defaults) */
	/** Samples per profile at most (default 16000, Pyroscope's default
	 *  samples_limit; 1 to 10,000,000): more are folded. */
	size_t max_samples;
	/** Bytes per profile at most, the uncompressed profile plus its
	 *  series labels (default 2 MiB, Pyroscope's default per-profile
	 *  ingestion burst; 4 KiB to 1 GiB): bigger ones are folded. */
	size_t max_bytes;
	/** The hostname label: the name of the host the profile comes from
	 *  (NULL = this machine's; `ying upload` of another host's dumps). */
	const char *hostname;
	/** ying_pyroscope_upload only: a profile dumped longer ago than this
	 *  many seconds is refused with YING_EINVAL before anything is sent
	 *  (default 3600, the server's default reject-older-than; < 0: never
	 *  refused).  Pass `until` to stamp it with another time. */
	double max_age;
} ying_pyroscope_opts;
#define YING_PYROSCOPE_OPTS_INIT { YING_PYROSCOPE_OPTS_VERSION, NULL, NULL, \
	NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, 0, 0, NULL, 0 }
/** Fill *o as YING_PYROSCOPE_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_pyroscope_opts_init(ying_pyroscope_opts *o);

/**
 * Check opts as ying_pyroscope_start would (URL, service, tags, API,
 * numbers, auth), without starting anything or loading libcurl: 0 or
 * YING_EINVAL naming the bad field, YING_ENOTSUP without libcurl's headers
 * at build time.  Nothing to free.
 */
YING_EXTERN int ying_pyroscope_check(const ying_pyroscope_opts *opts);

/**
 * Start uploading (two threads).  Fails with YING_EINVAL (bad options),
 * YING_ENOJEMALLOC/YING_ENOPROF (no heap profiling here), YING_ENOTSUP
 * (built without libcurl).  *out is the uploader; stop and free it with
 * ying_pyroscope_stop().
 */
YING_EXTERN int ying_pyroscope_start(ying_pyroscope **out,
    const ying_pyroscope_opts *opts);

/**
 * Stop taking dumps, send what is queued (giving up after opts->timeout
 * seconds; an unsent profile counts as dropped), join the threads and free
 * p.  NULL is a no-op (0).  Returns 0, or YING_EIO when profiles were
 * dropped at stop.  Never call it in a forked child.
 */
YING_EXTERN int ying_pyroscope_stop(ying_pyroscope *p);

/**
 * ying_pyroscope_stop() with a shorter flush: what is queued is sent for
 * at most `seconds` (never longer than opts->timeout; <= 0: nothing more
 * is sent), then a transfer still running is abandoned at libcurl's next
 * progress call (about once a second at most later) and the threads are
 * joined.  For a caller whose own wait is bounded (the agent at exit).
 */
YING_EXTERN int ying_pyroscope_stop_within(ying_pyroscope *p, double seconds);

/** Counters of an uploader (nothing to free). */
typedef struct ying_pyroscope_stats {
	uint64_t sent;          /**< profiles the server accepted (2xx) */
	uint64_t failed;        /**< profiles given up: a 4xx other than 429,
	                             or still failing after the retries; and
	                             heap dumps that failed */
	uint64_t retried;       /**< retry attempts (429, 5xx, network) */
	uint64_t dropped;       /**< profiles dropped: queue full, or at stop */
	uint64_t bytes;         /**< request bodies of the sent profiles */
	double last_duration;   /**< seconds of the last request */
	char last_error[256];   /**< the last failure ("" when none yet) */
	uint64_t collected;     /**< profiles dumped and queued */
	double last_collect;    /**< seconds of the last dump+symbolize+pprof */
	unsigned queued;        /**< profiles waiting now */
	uint64_t folded;        /**< profiles folded to fit max_samples and
	                             max_bytes (ying_profile_fold) */
	uint64_t stacks_folded; /**< stacks those foldings merged, in all */
	uint64_t oversized;     /**< profiles not sent: even folded they did
	                             not fit (also counted as failed) */
	uint64_t last_samples;  /**< samples of the last profile queued */
	uint64_t last_bytes;    /**< its uncompressed size with its labels */
	char session_id[17];    /**< this uploader's __session_id__ */
} ying_pyroscope_stats;

/** Copy p's counters into *out (safe from any thread). */
YING_EXTERN int ying_pyroscope_stats_get(ying_pyroscope_stats *out,
    const ying_pyroscope *p);

/**
 * Upload one profile now, on the calling thread (`ying upload`): a
 * symbolized profile (ying_profile_symbolize; YING_EINVAL otherwise),
 * folded to opts' limits like the uploader's, written as gzipped pprof and
 * sent with opts (interval and queue are ignored; retries as for the
 * uploader).  The labels are the uploader's without __session_id__ (this
 * process did not make the profile).  from/until: seconds since the epoch
 * the profile covers; 0 = the profile's own time.  An `until` other than
 * the profile's time stamps the profile with it (time_nanos) and keeps the
 * dump's own time as a comment of the profile ("ying: dumped at ...").  A
 * profile whose time is older than opts->max_age is YING_EINVAL, naming
 * the window, before any request.  alloc_* are sent as the profile holds
 * them (the caller subtracts an earlier profile: ying_profile_subtract_alloc).
 * Errors: YING_EIO (network or HTTP status: the detail names the URL and
 * the status and the server's message), YING_EINVAL, YING_ENOTSUP.
 * Nothing to free.
 */
YING_EXTERN int ying_pyroscope_upload(const ying_pyroscope_opts *opts,
    const ying_profile *prof, double from, double until);

/* ------------------------------------------------------------------------ */
/* Recent allocations: capture (the running jemalloc)                       */
/* ------------------------------------------------------------------------ */


/**
 * experimental.prof_recent.alloc_max: set it to max (0 = off, at most
 * YING_RECENT_MAX_LIMIT) unless max is YING_RECENT_KEEP (only read); the
 * previous value goes to *old (may be NULL; it is -1 when jemalloc was
 * started with prof_recent_alloc_max:-1).  jemalloc's -1 (unlimited) is
 * refused like any count out of range (YING_EINVAL naming the range): the
 * record would grow without bound, and jemalloc holds a lock that every
 * mallctl("epoch") caller waits for while it dumps the record.  Needs
 * prof:true (YING_ENOPROF); YING_ENOTSUP for a jemalloc without it
 * (before 5.3).
 */
#define YING_RECENT_KEEP INT64_MIN
/** The most recent-allocation records ying asks jemalloc to keep (the
 *  bound of ying_ctl_recent_max, YING_RECENT_MAX, ying run --recent-max
 *  and POST /debug/heap/recent?max=N). */
#define YING_RECENT_MAX_LIMIT 10000
YING_EXTERN int ying_ctl_recent_max(int64_t *old, int64_t max);

/**
 * Dump the recent records in ying's capture format (above) to fn.
 * jemalloc's JSON is gathered into memory first (jemalloc 5.3 holds its
 * prof_recent_dump mutex while it walks the record and calls back; the
 * callback only appends to fixed-size chunks, never copies what it has,
 * and fn is never called under it); then the wrapper with the maps and
 * both clocks is written to fn.  A record allowed to hold more than
 * YING_RECENT_MAX_LIMIT entries (prof_recent_alloc_max:-1 or larger,
 * from MALLOC_CONF) is not dumped: YING_ELIMIT, naming the fix.  Dumps
 * are serialised with heap dumps.  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_ctl_recent_dump(ying_write_fn fn, void *opaque);

/**
 * prof.log_start: log every sampled allocation freed from now on, to path
 * (NULL: jemalloc's <prefix>.<pid>.<seq>.json) when ying_ctl_log_stop()
 * is called or at exit.  Refused (YING_EBUSY) while prof.gdump is on:
 * jemalloc 5.3 deadlocks when a logged free triggers a gdump; and
 * YING_EBUSY when a log is already running.
 */
YING_EXTERN int ying_ctl_log_start(const char *path);
/** prof.log_stop: write the log; YING_EINVAL when none is running. */
YING_EXTERN int ying_ctl_log_stop(void);

/* ------------------------------------------------------------------------ */
/* Giant allocations: capture (jemalloc's allocation hooks)                */
/* ------------------------------------------------------------------------ */

#define YING_GIANT_CAPTURE_OPTS_VERSION 1
typedef struct ying_giant_capture_opts {
	int version;
	/** Allocations of at least this many bytes are recorded (> 0). */
	uint64_t threshold;
	/** The once-per-call-site lines and the install warning go here;
	 *  NULL = stderr. */
	FILE *log;
	/** No once-per-call-site lines (records are still kept). */
	int quiet;
} ying_giant_capture_opts;
#define YING_GIANT_CAPTURE_OPTS_INIT { YING_GIANT_CAPTURE_OPTS_VERSION, 0, NULL, 0 }
/** Fill *o as YING_GIANT_CAPTURE_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_giant_capture_opts_init(ying_giant_capture_opts *o);

/**
 * Install the hook and start the background thread.  Errors:
 * YING_EINVAL (threshold 0), YING_EBUSY (already started),
 * YING_ENOJEMALLOC, YING_ENOTSUP (this jemalloc has no
 * experimental.hooks.install: ENOENT), YING_ELIMIT (jemalloc's 4 hook
 * slots are taken: EAGAIN), YING_ESYS; the detail says which.  Nothing
 * is changed in the process on failure.
 */
YING_EXTERN int ying_giant_capture_start(const ying_giant_capture_opts *opts);

/**
 * Remove the hook, take the last records out of the ring (logging new
 * call sites), stop the thread and forget the records.  No-op when not
 * started.  Never call it in a forked child.
 */
YING_EXTERN void ying_giant_capture_stop(void);

/** The threshold of the running capture, 0 when none runs. */
YING_EXTERN uint64_t ying_giant_capture_threshold(void);

/**
 * Write the records kept with sequence >= since (0 = all) as one
 * "ying-giant/1" JSON object (above), symbolized with s (NULL: the
 * capture's own symbolizer).  *next (may be NULL) is the sequence
 * following the last one listed, for the next call.  YING_ENODATA when
 * no capture runs.  Nothing to free.
 */
YING_EXTERN int ying_giant_capture_write_json(uint64_t *next, ying_symbolizer *s,
    uint64_t since, ying_write_fn fn, void *opaque);

/* ------------------------------------------------------------------------ */
/* Where the RSS goes                                                       */
/* ------------------------------------------------------------------------ */

/*
 * A breakdown of a process's resident memory into parts that sum to its
 * RSS (the sum of Rss over /proc/PID/smaps): jemalloc's live heap, thread
 * caches, fragmentation (free regions in partly used slabs, per size
 * class), dirty and muzzy pages, metadata; glibc malloc's heap; the
 * threads' stacks; file mappings (code, data); shared memory; other
 * anonymous memory; with what is mapped but not resident (jemalloc's
 * retained pages, swap) listed apart, the cgroup's usage and limit, and
 * advice for each large part backed by its number (ying-agent(7) WHERE THE
 * RSS GOES has the method).  jemalloc's and glibc's counters can only be
 * read in the process itself (pid 0); for another pid the breakdown has
 * the kernel's side only (jemalloc's pages are then in "other anonymous").
 * No dump is taken: reading it costs a few mallctl calls and one read of
 * smaps (about 1 ms for 1,000 mappings), nothing on the allocation path.
 */
typedef struct ying_memory ying_memory;

#define YING_MEMORY_OPTS_VERSION 1
typedef struct ying_memory_opts {
	int version;
	/** 0: the calling process, with jemalloc's and glibc's counters;
	 *  another pid: /proc/PID only. */
	long pid;
	/** /proc and the cgroup file system's mount point (NULL: "/proc",
	 *  "/sys/fs/cgroup"); tests pass fixture directories.  Not kept. */
	const char *proc_root;
	const char *cgroup_root;
	/** The process's heap profile (symbolized for names; pid 0 only), or
	 *  NULL: with it the breakdown names the live heap as profiled and,
	 *  for each fragmented size class, the call sites whose objects are of
	 *  that class (an estimate: ying-agent(7)).  Not kept.  A profile
	 *  dumped for the breakdown is better given afterwards
	 *  (ying_memory_set_profile). */
	const ying_profile *profile;
} ying_memory_opts;
#define YING_MEMORY_OPTS_INIT { YING_MEMORY_OPTS_VERSION, 0, NULL, NULL, NULL }
/** Fill *o as YING_MEMORY_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_memory_opts_init(ying_memory_opts *o);

/**
 * Take the breakdown now.  0 with *out set (free it with
 * ying_memory_free()); YING_EINVAL (bad options), YING_EIO (smaps cannot
 * be read: no such process, or not ours), YING_EPARSE (smaps malformed).
 * A process without jemalloc, or whose jemalloc has no statistics, is no
 * error: the breakdown says so in its "jemalloc" line.
 */
YING_EXTERN int ying_memory_get(ying_memory **out, const ying_memory_opts *opts);
/**
 * Give the breakdown the process's heap profile (symbolized for names):
 * the live heap as profiled and, for each fragmented size class, the call
 * sites whose objects are of that class (an estimate).  Take the
 * breakdown first and dump after it: dumping and symbolizing grow the
 * process, and ying_memory_get would count that.  p is not kept.
 * YING_EINVAL for NULL; a breakdown without jemalloc's counters is left
 * as it is.
 */
YING_EXTERN int ying_memory_set_profile(ying_memory *m, const ying_profile *p);
/** The process's RSS as the parts sum it (bytes); 0 for NULL. */
YING_EXTERN uint64_t ying_memory_rss(const ying_memory *m);
/** Write the breakdown as one JSON object ("ying-memory/1"; ying-http(7)
 *  /debug/memory documents the keys) and a newline. */
YING_EXTERN int ying_memory_write_json(const ying_memory *m, ying_write_fn fn,
    void *opaque);
/** Write the breakdown as text: a table of the parts, what is not in RSS,
 *  the fragmented size classes, the largest files, the advice.  compact:
 *  the parts of at least 1 % and the advice only (for an exit summary). */
YING_EXTERN int ying_memory_write_text(const ying_memory *m, int compact,
    ying_write_fn fn, void *opaque);
/** Free m (NULL: no-op). */
YING_EXTERN void ying_memory_free(ying_memory *m);

#ifdef __cplusplus
}
#endif
#endif /* YING_LIVE_H */
