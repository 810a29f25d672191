/*
 * fe_signal.h: signal names for the front ends (ying run, the agent); see
 * fe_signal.c.  Not part of libying's API.
 */
#ifndef YING_FE_SIGNAL_H
#define YING_FE_SIGNAL_H

#include <stddef.h>

/* A signal for dump requests: "USR2", "SIGUSR2", "12", "RTMIN+2" into *sig.
 * Only USR1, USR2, WINCH, URG and RTMIN..RTMAX (offsets: plain digits within
 * the range) are accepted.  0, or -1 with the reason in why (wn bytes; why
 * may be NULL).  Nothing to free. */
int yfe_signal_parse(const char *s, int *sig, char *why, size_t wn);
/* "SIGUSR2", "SIGRTMIN+2", "signal 40" written into the caller's buf (at
 * least 24 bytes); returns buf. */
const char *yfe_signal_name(int sig, char *buf, size_t n);

#endif
