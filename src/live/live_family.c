/*
 * live_family.c: a family's identity: its id, its head, the abstract
 * socket name of each member, and the ancestry test both sides use
 * (live_family.h says what a family is).  Listing the members, talking
 * to one and what /proc says of a process: live_family_req.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "live_family.h"

static char family_id[YI_FAMILY_ID_LEN + 1];
static pid_t family_head;

static bool
id_ok(const char *id)
{
	size_t i;

	for (i = 0; id[i]; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return i == YI_FAMILY_ID_LEN;
}

int
yi_family_set(const char *id, pid_t head)
{
	if (id == NULL || id[0] == '\0') {
		family_id[0] = '\0';
		family_head = 0;
		return 0;
	}
	if (!id_ok(id))
		return yi_error(YING_EINVAL, "family id \"%.40s\": not %d lowercase hex "
		    "digits", id, YI_FAMILY_ID_LEN);
	memcpy(family_id, id, YI_FAMILY_ID_LEN + 1);
	family_head = head;
	return 0;
}

const char *
yi_family_id(void)
{
	return family_id;
}

pid_t
yi_family_head(void)
{
	return family_head;
}

int
yi_family_new_id(char *buf, size_t n)
{
	unsigned char r[YI_FAMILY_ID_LEN / 2];
	size_t got = 0;

	if (n < YI_FAMILY_ID_LEN + 1)
		return yi_error(YING_EINVAL, "family id buffer too small");
	while (got < sizeof(r)) {
		ssize_t k = getrandom(r + got, sizeof(r) - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return yi_error(YING_ESYS, "getrandom: %s", strerror(errno));
		got += (size_t)k;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
	return 0;
}

socklen_t
yi_family_addr(struct sockaddr_un *sa, const char *id, pid_t pid)
{
	int k;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* sun_path[0] stays '\0': the abstract namespace */
	k = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "ying.%s.%ld", id,
	    (long)pid);
	if (k < 0)
		k = 0;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)k);
}

void
yi_family_bind_name(char *buf, size_t n, const char *id, pid_t pid)
{
	snprintf(buf, n, "unix:@ying.%s.%ld", id, (long)pid);
}

/* The parent of pid from /proc/PID/stat (the field after the ')' that
 * closes comm, which may itself hold ')'), or -1. */
static pid_t
proc_ppid(pid_t pid)
{
	char path[64], buf[1024], *p;
	ssize_t k;
	int fd;
	long pp;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return -1;
	buf[k] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1, " %*c %ld", &pp) != 1)
		return -1;
	return (pid_t)pp;
}

bool
yi_proc_descends(pid_t pid, pid_t anc)
{
	if (anc <= 0 || pid <= 0)
		return false;
	for (int i = 0; i < 64; i++) {
		pid_t pp = proc_ppid(pid);
		if (pp <= 0)
			return false;
		if (pp == anc)
			return true;
		pid = pp;
	}
	return false;
}
