/*
 * peer_micro.c: the cost of one owner lookup of a connection's peer
 * (live_http_peer.c), built by bench/http_peer.sh against a build's
 * libying_core.a: NETLINK_SOCK_DIAG (what every connection pays) and the
 * /proc/net/tcp fallback, with EXTRA other connections open (the fallback
 * reads the whole table).  Prints "diag NS proc NS" (ns per lookup, median
 * of 5 batches of ITERS).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "live.h"

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 2000, extra = argc > 2 ? atoi(argv[2]) : 0;
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct sockaddr_storage peer, local;
	socklen_t sl = sizeof(a), pl = sizeof(peer), ll = sizeof(local);
	int l = socket(AF_INET, SOCK_STREAM, 0), c, s;
	double d[5], p[5];
	char why[320];
	uid_t u;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 4096) ||
	    getsockname(l, (struct sockaddr *)&a, &sl))
		return 1;
	for (int i = 0; i < extra; i++) {   /* other connections in the table */
		int x = socket(AF_INET, SOCK_STREAM, 0);
		if (x < 0 || connect(x, (struct sockaddr *)&a, sizeof(a)) || accept(l, NULL, NULL) < 0)
			return 1;
	}
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&a, sizeof(a)) || (s = accept(l, NULL, NULL)) < 0)
		return 1;
	getpeername(s, (struct sockaddr *)&peer, &pl);
	getsockname(s, (struct sockaddr *)&local, &ll);
	for (int b = 0; b < 5; b++) {
		double t0 = now();
		for (int i = 0; i < iters; i++)
			if (yi_http_peer_uid(s, &u, why, sizeof(why)) != 0)
				return 2;
		d[b] = (now() - t0) / iters;
		t0 = now();
		for (int i = 0; i < iters / 10 + 1; i++)
			if (yi_http_peer_proc(&peer, &local, &u, why, sizeof(why)) != 0)
				return 3;
		p[b] = (now() - t0) / (iters / 10 + 1);
	}
	qsort(d, 5, sizeof(d[0]), cmp);
	qsort(p, 5, sizeof(p[0]), cmp);
	printf("diag %.0f proc %.0f\n", d[2], p[2]);
	return 0;
}
