/*
 * live_family_int.h: the pieces of live_family_req.c that its unit test
 * (tests/unit/test_family.c) and the endpoint use beside live_family.h's
 * contract: the parsers, split from their I/O so a fixture can feed them,
 * and the role of a process title.
 */
#ifndef YI_LIVE_FAMILY_INT_H
#define YI_LIVE_FAMILY_INT_H

#include "live_family.h"

/* The pids of family id's listening sockets in the text of
 * /proc/net/unix ("@ying.ID.PID" paths, listeners only, canonical decimal
 * pids), deduplicated and sorted, at most max of them, into out; their
 * count. */
size_t yi_family_parse_unix(const char *text, const char *id, pid_t *out, size_t max);
/* Parse an HTTP/1.x answer buf[0..len) (buf has len + 1 bytes, yi_malloc'd)
 * into *r: status, Content-Type, body (moved to the front of buf, which
 * r->body then is: the caller's to free).  Errors name pid. */
int yi_family_parse_resp(char *buf, size_t len, pid_t pid, yi_family_resp *r);
/* The role in a process title the program rewrote ("nginx: worker
 * process" -> "worker process", "postgres: 15/main: checkpointer" ->
 * "checkpointer"), "" when title does not start with "PROGRAM: ". */
void yi_proc_role(const char *program, const char *title, char *out, size_t n);
/* role as a file-name slug: lowercase [a-z0-9] words joined by '-' ("worker
 * process" -> "worker-process"), at most 40 characters. */
void yi_proc_role_slug(const char *role, char *out, size_t n);

#endif /* YI_LIVE_FAMILY_INT_H */
