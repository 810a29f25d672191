/*
 * fe_agent.h: the live runtime's internals the agent uses.  The agent is
 * the one front end that carries the runtime's objects (a hidden copy,
 * linked whole into libying-agent.so), so it may call these; ying and the
 * other front ends link the installed libraries and cannot.  Not part of
 * any installed API.
 */
#ifndef YING_FE_AGENT_H
#define YING_FE_AGENT_H

#include <ying-live.h>

/* The listening socket of a running endpoint (still owned by h: never close
 * it except in a forked child that drops its copy), or -1. */
int yi_http_listen_fd(const ying_http *h);
/* The report keeper's socket (YING_RUN_SINK) for the growth runners of
 * this process that can no longer write their directory; -1: none
 * (live_sink.c). */
void yi_runner_set_sink(int fd);

#endif
