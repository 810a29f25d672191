/*
 * live_family.h: the processes of one service, a "family" (issue 25).
 *
 * The first process the agent runs in (the head) holds the HTTP endpoint.
 * A forked child that keeps running (a worker, a backend), or an image
 * exec'd under the agent, becomes a member: it serves its own ying_http
 * endpoint on an abstract Unix socket named "@ying.FAMILY.PID" (no file,
 * gone with the process, even after SIGKILL) that only its ancestors may
 * connect to, and never listens on a network port.  The registry is the
 * kernel's socket table: the head lists the members from /proc/net/unix
 * and checks each (the listener's SO_PEERCRED pid is the PID in the name,
 * and the head is one of its ancestors), so a fork storm leaves nothing
 * behind and a killed child is simply gone.  FAMILY is 32 hex digits
 * drawn by the head at start (YING_FAMILY passes it on to exec'd images).
 *
 * Process-wide state: yi_family_set is called by the agent before any
 * endpoint starts (and again in a member); everything else only reads.
 */
#ifndef YI_LIVE_FAMILY_H
#define YI_LIVE_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <ying-live.h>

#include "base.h"

#define YI_FAMILY_ID_LEN 32         /* hex digits */
#define YI_FAMILY_MAX_MEMBERS 4096  /* members listed at most */

/* The family this process belongs to ("" = none: no members are looked
 * for), and the head's pid (the process whose endpoint lists the others;
 * 0 unknown).  yi_family_set copies id (YI_FAMILY_ID_LEN hex digits, else
 * YING_EINVAL); not thread-safe against itself, called at safe points. */
YI_SHARED int yi_family_set(const char *id, pid_t head);
YI_SHARED const char *yi_family_id(void);
YI_SHARED pid_t yi_family_head(void);
/* A new random family id into buf (at least YI_FAMILY_ID_LEN + 1 bytes). */
YI_SHARED int yi_family_new_id(char *buf, size_t n);

/* The abstract socket address of member pid of family id into *sa;
 * returns its length for bind/connect. */
YI_SHARED socklen_t yi_family_addr(struct sockaddr_un *sa, const char *id, pid_t pid);
/* The same as a ying_http bind string: "unix:@ying.ID.PID". */
YI_SHARED void yi_family_bind_name(char *buf, size_t n, const char *id, pid_t pid);

/* Is anc one of pid's ancestors (the ppid chain in /proc, at most 64
 * steps; pid itself does not count)? */
YI_SHARED bool yi_proc_descends(pid_t pid, pid_t anc);

/* The live members of this process's family: pids listed in
 * /proc/net/unix as "@ying.ID.PID", still alive, descendants of the
 * calling process, this process excluded; sorted.  *out is yi_malloc'd
 * (free with yi_free), *n their count (at most YI_FAMILY_MAX_MEMBERS).
 * No family: 0 members. */
YI_SHARED int yi_family_members(pid_t **out, size_t *n);

/* One HTTP/1.0 request to member pid over its socket.  target is the
 * path and query to send (the caller has taken pid= out), auth the
 * Authorization header value or NULL, body/blen a POST body (NULL: GET).
 * The listener must be pid (SO_PEERCRED) and a descendant of this
 * process; the answer is bounded by max bytes and timeout_ms.  *r gets
 * the status, Content-Type and body (r->body yi_malloc'd: free with
 * yi_family_resp_free). */
typedef struct yi_family_resp {
	int status;
	char ctype[128];
	char *body;
	size_t len;
} yi_family_resp;
YI_SHARED int yi_family_request(pid_t pid, const char *method, const char *target,
    const char *auth, const void *body, size_t blen, size_t max, int timeout_ms,
    yi_family_resp *r);
YI_SHARED void yi_family_resp_free(yi_family_resp *r);

/* What /proc says of a process (any field may be empty or 0 when not
 * readable). */
typedef struct yi_proc_info {
	pid_t pid, ppid;
	uid_t uid;
	char user[64];          /* uid's name, or the number */
	char program[256];      /* /proc/PID/exe's base name, else comm */
	char title[256];        /* /proc/PID/cmdline as the process shows it */
	char role[64];          /* "worker process", "master", "backend": see
	                           yi_proc_role */
	int64_t start_time;     /* seconds since the epoch */
	uint64_t rss;           /* bytes */
} yi_proc_info;
YI_SHARED int yi_proc_info_get(pid_t pid, yi_proc_info *pi);

/* A member's endpoint (live_http_*.c): ying_http_start's server with bind
 * "unix:@ying.ID.PID" (yi_family_bind_name of this process), serving only
 * peers that are ancestors of this process (SO_PEERCRED pid,
 * yi_proc_descends; every other peer 403), no token asked (the head has
 * judged its client), Host and Origin not checked (no browser reaches an
 * abstract socket).  The other options as ying_http_start takes them
 * (bind ignored).  Stop with ying_http_stop. */
YI_SHARED int yi_http_member_start(ying_http **out, const ying_http_opts *opts);

#endif /* YI_LIVE_FAMILY_H */
