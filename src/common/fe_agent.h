/*
 * fe_agent.h: the live runtime's internals the agent uses.  The agent is
 * the one front end that carries the runtime's objects (a hidden copy,
 * linked whole into libying-agent.so), so it may call these; ying and the
 * other front ends link the installed libraries and cannot.  Not part of
 * any installed API.
 */
#ifndef YING_FE_AGENT_H
#define YING_FE_AGENT_H

#include <sys/socket.h>
#include <sys/types.h>

#include <ying-live.h>

/* The listening socket of a running endpoint (still owned by h: never close
 * it except in a forked child that drops its copy), or -1. */
int yi_http_listen_fd(const ying_http *h);
/* The report keeper's socket (YING_RUN_SINK) for the growth runners of
 * this process that can no longer write their directory; -1: none
 * (live_sink.c). */
void yi_runner_set_sink(int fd);

/* The family of processes (src/live/live_family.h says what they are and
 * what each call does): its id and head, a new id, and a member's
 * endpoint on its abstract socket. */
int yi_family_set(const char *id, pid_t head);
const char *yi_family_id(void);
pid_t yi_family_head(void);
int yi_family_new_id(char *buf, size_t n);
struct sockaddr_un;
socklen_t yi_family_addr(struct sockaddr_un *sa, const char *id, pid_t pid);
/* fd moved to a high number (close-on-exec), out of the program's way;
 * base_fd.c. */
int yi_fd_high(int fd);
int yi_http_member_start(ying_http **out, const ying_http_opts *opts);

#endif
