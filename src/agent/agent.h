/*
 * agent.h: what the agent's files (agent.c: the life cycle; agent_config.c:
 * the YING_* variables; agent_fork.c: fork following, the line to `ying
 * run` and the dump signal) share.  Private to src/agent; each group's
 * state is defined in the file named with it, and nothing here is exported
 * from libying-agent.so (only ying_agent_status is).
 */
#ifndef YING_AGENT_H
#define YING_AGENT_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ying-live.h>

#include "fe_signal.h"
#include "fe_agent.h"

#define STOP_WAIT_SEC 2        /* the destructor's wait for the stopper */
#define STOP_BUDGET_SEC 1.5    /* ... which plans to be done by then */
#define PYRO_ABORT_SLACK_SEC 1.0  /* libcurl's progress calls: up to 1 s apart */
#define REQUIRED_WAIT_SEC 10   /* the constructor's wait for a required endpoint */
#define WATCH_POLL_MS 100      /* the watcher checks its parent this often */
#define FORK_CHECK_MS 1        /* ... the fork hook at most this often */
#define LONG_LIVED_MS 1000     /* a forked child this old gets the watcher */
#define FOLLOW_GRACE_MS 200    /* ... and takes over this long after it exited */
#define REBIND_TRIES 50        /* the survivor's bind, every 100 ms */
#define CHILDREN_LONG_MS ((long)(YFE_CHILDREN_LONG_S * 1000))  /* YING_CHILDREN=long */

/* ---- agent_config.c: the configuration, copied out of the environment in
 * the constructor (the program may change its environment later). */
extern char cfg_http[256];
extern char cfg_token[4097];
extern char cfg_allow_hosts[1024];  /* YING_HTTP_ALLOW_HOSTS */
extern bool cfg_insecure;      /* YING_HTTP_INSECURE: non-loopback without a token */
extern bool cfg_open;          /* YING_HTTP_OPEN: serve every local user, not only
                                  the program's own and root */
extern char cfg_dir[PATH_MAX];
extern ying_runner_opts cfg_runner;
extern int cfg_signal;
extern bool cfg_quiet;
extern bool cfg_required;      /* YING_HTTP_REQUIRED: no endpoint, no program */
extern bool cfg_verbose;       /* YING_VERBOSE: say which jemalloc was found */
/* YING_PYROSCOPE_*: the uploader's options (cfg_pyro.url NULL: none); the
 * strings point into the cfg_pyro_* buffers.  Secrets are read from their
 * files (or variables) in the constructor; the variables are then wiped
 * and unset, so the program's children never see them. */
extern ying_pyroscope_opts cfg_pyro;
/* YING_RECENT_MAX: experimental.prof_recent.alloc_max set at start
 * (YING_RECENT_KEEP: not set). */
extern int64_t cfg_recent_max;
/* YING_GIANT: record allocations of at least this many bytes (0: off). */
extern uint64_t cfg_giant;
/* The user's allocator frames ($XDG_CONFIG_HOME/ying/frames and
 * YING_DROP_FRAMES, bad entries left out), for every symbolized output;
 * NULL = none.  Read once, never freed. */
extern char *cfg_frames;

/* YING_CHILDREN: which forked children (and exec'd images) become
 * members of the family (agent_member.c): none, the long-lived ones (a
 * child that has lived cfg_children_ms with its parent alive), or all
 * (at once). */
enum { CHILDREN_NONE, CHILDREN_LONG, CHILDREN_ALL };
extern int cfg_children;
extern long cfg_children_ms;
/* This image was exec'd in a process of the family that is not its head
 * (YING_FAMILY_HEAD or YING_AGENT_PID names another pid): it may only
 * become a member, lazily, like a forked child. */
extern bool cfg_exec_member;
/* The family's id (YING_FAMILY, or drawn by the head at start). */
extern char cfg_family[40];

/* A YING_* flag: set, not empty, not "0". */
bool env_true(const char *name);
/* Read the YING_* variables (and YING_RUN_FD, YING_AGENT_PID).  false: the
 * agent stays off or inert (already said, state set). */
bool agent_config_read(void);
/* The report directory: made absolute, or a private one for a dump signal
 * without YING_REPORT_DIR.  false: inert (already said). */
bool agent_config_dir(void);

/* ---- agent.c: the life cycle */
extern pid_t agent_pid;
extern atomic_bool agent_forked;
extern _Atomic(ying_runner *) agent_runner;
extern ying_http *agent_http;
extern ying_pyroscope *agent_pyro;
extern bool agent_giant;       /* ying_giant_capture_start succeeded */
extern struct sigaction agent_old_sa;
extern atomic_bool agent_sa_installed;
/* The constructor's wait for a required endpoint: 0 pending, 1 up, -1 not. */
extern pthread_mutex_t ready_lock;
extern pthread_cond_t ready_cond;
extern int ready_state;
/* agent_lock orders the starter and the stopper; stop_lock only guards the
 * "stopped" flag the destructor waits for, so that wait stays bounded. */
extern pthread_mutex_t agent_lock;
extern bool agent_stopping;
extern pthread_mutex_t stop_lock;
extern pthread_cond_t stop_cond;
extern bool agent_stopped;

/* One line to stderr with write(2): no stdio buffering shared with the
 * program, no locks. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ying_agent_status()'s text (each call publishes a new immutable
 * string; race-free for readers). */
void set_state(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Inert: one line, and nothing else ever happens. */
void go_inert(const char *why);
void sleep_ms(long ms);
/* Bring the HTTP endpoint, the runner and the dump signal up in this
 * process; follow: a forked child that outlived its parent (pid parent). */
void bring_up(bool follow, pid_t parent);

/* ---- agent_member.c: the agent in a member (a worker, a backend).
 * member_up: this process (parent: the pid it was forked from; exec_image:
 * an exec'd image, which has no uploader: its secrets were scrubbed)
 * serves on its abstract socket, writes its reports into
 * member_subdir of the report directory and uploads; member_down stops
 * all that again (the member becomes the head). */
extern bool agent_member;
extern char member_subdir[128];
void member_up(pid_t parent, bool exec_image);
void member_down(void);

/* ---- agent_fork.c: fork following, `ying run`'s pipe, the dump signal.
 * self_pid is this process (in a forked child the parent's until
 * atfork_child); agent_port the endpoint's port (the survivor binds the
 * same); http_listen_fd/_ino the socket a forked child must close;
 * fork_lock is held while the endpoint starts and in fork's prepare
 * handler; run_fd/_dev/_ino the pipe to `ying run` (YING_RUN_FD). */
extern pid_t self_pid;
extern int agent_port;
extern int http_listen_fd;
extern ino_t http_listen_ino;
extern pthread_mutex_t fork_lock;
/* Remember agent_http's listening socket for atfork_child; fork_lock held. */
void listen_fd_note(void);
extern int run_fd;
extern dev_t run_dev;
extern ino_t run_ino;
/* The lazy take-over's jemalloc hook: agent_mallctl is libying's mallctl
 * (ying_ctl_mallctl, found in the constructor); agent_fork_hook_ok false
 * when jemalloc would never call the hook (opt.tcache off): then a forked
 * child gets the watcher thread at once. */
extern ying_mallctl_fn agent_mallctl;
extern bool agent_fork_hook_ok;
/* True while the agent installs or removes a jemalloc hook (giant's, the
 * survivor's removal of its own): jemalloc does not reset its hook lock in
 * a forked child, so a child forked meanwhile takes the watcher thread
 * instead of installing a hook. */
extern atomic_bool agent_hooks_busy;

/* The dump signal's handler: pokes the runner (async-signal-safe). */
/* The dump signal is the agent's again (unless the program took it
 * meanwhile), or gets its old action back.  agent_lock held. */
void signal_take_back(void);
void signal_give_back(void);
/* An exec'd image that may become a member: watch it as a forked child
 * (the hook, then the watcher) from the constructor. */
void exec_watch(void);
/* Claim to head the family (its abstract name "@ying.FAMILY.0"): true
 * when this process holds it now (or there is no family, or no socket to
 * contest it with); false when another process holds it. */
bool head_claim(void);
void on_dump_signal(int sig);
/* True when run_fd is still the pipe `ying run` gave us. */
bool run_fd_ok(void);
/* One line to `ying run`, then the pipe is closed. */
void tell_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void atfork_prepare(void);
void atfork_parent(void);
void atfork_child(void);

#endif /* YING_AGENT_H */
