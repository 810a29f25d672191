/*
 * test_family.c: a service's processes, the plumbing (live_family.c,
 * live_family_req.c): the id and socket-name helpers, the ancestry test,
 * the /proc/net/unix parser on a fixture, the answer parser, the role of a
 * process title, /proc's view of this process, and real requests to a
 * forked child that listens on its family socket (an answer, too large, a
 * timeout, a malformed one, nobody there, and a socket held by another
 * process than its name says).
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "internal.h"
#include "live_family.h"
#include "live_family_int.h"

static const char ID[] = "0123456789abcdef0123456789abcdef";

static void
test_ids(void)
{
	char a[YI_FAMILY_ID_LEN + 1], b[YI_FAMILY_ID_LEN + 1], name[128];
	struct sockaddr_un sa;
	socklen_t sl;

	ok(yi_family_new_id(a, sizeof(a)) == 0 && yi_family_new_id(b, sizeof(b)) == 0,
	    "two new family ids");
	is_int(strlen(a), YI_FAMILY_ID_LEN, "an id is 32 characters");
	ok(strspn(a, "0123456789abcdef") == YI_FAMILY_ID_LEN, "... of lowercase hex");
	ok(strcmp(a, b) != 0, "... and two differ");
	ok(yi_family_new_id(a, 8) == YING_EINVAL, "a short buffer: YING_EINVAL");
	is_int(yi_family_set("0123", 1), YING_EINVAL, "a short id is refused");
	is_int(yi_family_set("0123456789ABCDEF0123456789abcdef", 1), YING_EINVAL,
	    "an uppercase id is refused");
	has_str(ying_last_error(), "32 lowercase hex", "... saying what an id is");
	is_int(yi_family_set(ID, 42), 0, "a good id is set");
	is_str(yi_family_id(), ID, "yi_family_id");
	is_int(yi_family_head(), 42, "yi_family_head");
	yi_family_bind_name(name, sizeof(name), ID, 1234);
	is_str(name, "unix:@ying.0123456789abcdef0123456789abcdef.1234", "the bind name");
	sl = yi_family_addr(&sa, ID, 1234);
	ok(sa.sun_path[0] == '\0' && strcmp(sa.sun_path + 1, name + 6) == 0 &&
	    sl == offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name + 6),
	    "the abstract address: NUL, the name, its exact length");
	is_int(yi_family_set("", 0), 0, "no family");
	is_str(yi_family_id(), "", "... then the id is empty");
	ok(yi_proc_descends(getpid(), getppid()), "this process descends from its parent");
	ok(!yi_proc_descends(getppid(), getpid()), "... not the other way");
	ok(yi_proc_descends(getpid(), 1), "... and from pid 1");
	ok(!yi_proc_descends(getpid(), getpid()), "a process is not its own ancestor");
}

static void
test_parse_unix(void)
{
	char text[4096];
	pid_t v[8];
	size_t n;

	snprintf(text, sizeof(text),
	    "Num       RefCount Protocol Flags    Type St Inode Path\n"
	    "0000000000000000: 00000002 00000000 00010000 0001 01 100 @ying.%s.300\n"
	    "0000000000000001: 00000002 00000000 00010000 0001 01 101 @ying.%s.20\n"
	    "0000000000000002: 00000003 00000000 00000000 0001 03 102 @ying.%s.20\n"
	    "0000000000000003: 00000002 00000000 00010000 0001 01 103 @ying.%s.20\n"
	    "0000000000000004: 00000002 00000000 00000000 0001 03 104 @ying.%s.77\n"
	    "0000000000000005: 00000002 00000000 00010000 0001 01 105 @ying.ffff%s.5\n"
	    "0000000000000006: 00000002 00000000 00010000 0001 01 106 @ying.%s.0123\n"
	    "0000000000000007: 00000002 00000000 00010000 0001 01 107 @ying.%s.12x\n"
	    "0000000000000008: 00000002 00000000 00010000 0001 01 108 /run/ying.%s.9\n"
	    "0000000000000009: 00000002 00000000 00010000 0001 01 109 @ying.%s.99999999999\n"
	    "000000000000000a: 00000002 00000000 00010000 0001 01 110 @ying.%s.\n"
	    "000000000000000b: 00000002 00000000 00010000 0001 01 111\n"
	    "000000000000000c: 00000002 00000000 00010000 0001 01 112 @ying.%s.7",
	    ID, ID, ID, ID, ID, ID + 4, ID, ID, ID, ID, ID, ID);
	n = yi_family_parse_unix(text, ID, v, 8);
	is_int(n, 3, "3 members in the fixture (listeners, this id, canonical pids)");
	ok(n == 3 && v[0] == 7 && v[1] == 20 && v[2] == 300, "... 7, 20, 300: sorted, "
	    "deduplicated, no connected socket, no other id, no file path");
	is_int(yi_family_parse_unix(text, ID, v, 2), 2, "bounded by max");
	is_int(yi_family_parse_unix(text, "", v, 8), 0, "no family: none");
	is_int(yi_family_parse_unix("", ID, v, 8), 0, "an empty table: none");
	is_int(yi_family_parse_unix("garbage\n\n@ying\n", ID, v, 8), 0, "garbage: none");
}

static int
parse(const char *text, yi_family_resp *r)
{
	size_t n = strlen(text);
	char *buf = yi_malloc(n + 1);
	int rc;

	memcpy(buf, text, n + 1);
	rc = yi_family_parse_resp(buf, n, 42, r);
	if (rc != 0)
		yi_free(buf);
	return rc;
}

static void
test_parse_resp(void)
{
	yi_family_resp r;

	ok(parse("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX: y\r\n\r\n{}",
	    &r) == 0 && r.status == 200 && strcmp(r.ctype, "application/json") == 0 &&
	    r.len == 2 && strcmp(r.body, "{}") == 0, "an answer: status, type, body");
	yi_family_resp_free(&r);
	ok(parse("HTTP/1.0 404 Not Found\n\nno", &r) == 0 && r.status == 404 &&
	    r.ctype[0] == '\0' && r.len == 2, "LF-only headers, no type");
	yi_family_resp_free(&r);
	ok(parse("HTTP/1.1 204 No Content\r\n\r\n", &r) == 0 && r.len == 0,
	    "an empty body");
	yi_family_resp_free(&r);
	is_int(parse("SSH-2.0-OpenSSH\r\n\r\n", &r), YING_EPARSE, "not HTTP: YING_EPARSE");
	has_str(ying_last_error(), "process 42: malformed answer", "... naming the pid");
	is_int(parse("HTTP/1.1 2000 OK\r\n\r\n", &r), YING_EPARSE, "a bad status");
	is_int(parse("HTTP/1.1 200 OK\r\nContent-Type: x", &r), YING_EPARSE,
	    "no end of the headers");
	has_str(ying_last_error(), "no end of the headers", "... said so");
}

static void
test_role(void)
{
	char role[64], slug[64];

	yi_proc_role("nginx", "nginx: worker process", role, sizeof(role));
	is_str(role, "worker process", "nginx's worker");
	yi_proc_role("nginx", "nginx: master process /usr/sbin/nginx -c /x.conf", role,
	    sizeof(role));
	is_str(role, "master process /usr/sbin/nginx -c /x.conf", "nginx's master");
	yi_proc_role("postgres", "postgres: 15/main: checkpointer ", role, sizeof(role));
	is_str(role, "checkpointer", "postgres's checkpointer (cluster name cut)");
	yi_proc_role("postgres", "postgres: 15/main: alice db [local] idle", role,
	    sizeof(role));
	is_str(role, "alice db [local] idle", "a postgres backend");
	yi_proc_role("postgres", "/usr/lib/postgresql/15/bin/postgres -D /d", role,
	    sizeof(role));
	is_str(role, "", "an argv not rewritten: no role");
	yi_proc_role("redis-server", "redis-server *:6379", role, sizeof(role));
	is_str(role, "", "redis's title: no role");
	yi_proc_role_slug("worker process", slug, sizeof(slug));
	is_str(slug, "worker-process", "the slug of a role");
	yi_proc_role_slug("alice db [local] idle", slug, sizeof(slug));
	is_str(slug, "alice-db-local-idle", "... punctuation folded");
	yi_proc_role_slug("", slug, sizeof(slug));
	is_str(slug, "", "... empty");
}

static void
test_proc_info(void)
{
	yi_proc_info pi;

	ok(yi_proc_info_get(getpid(), &pi) == 0, "yi_proc_info_get of this process");
	ok(pi.ppid == getppid() && pi.uid == geteuid() && pi.user[0] && pi.rss > 0,
	    "... parent, uid, user, RSS");
	has_str(pi.program, "test_family", "... the program");
	has_str(pi.title, "test_family", "... the title");
	ok(pi.start_time > 1000000000 && pi.start_time <= time(NULL) + 1, "... start time");
	is_int(yi_proc_info_get(999999999, &pi), YING_ENOTFOUND, "no such process");
}

/* A child listening as member of ID: answers by path. */
static pid_t
listener(void)
{
	pid_t pid = fork();
	struct sockaddr_un sa;
	socklen_t sl;
	int lfd, c;

	if (pid != 0)
		return pid;
	sl = yi_family_addr(&sa, ID, getpid());
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&sa, sl) != 0 || listen(lfd, 8) != 0)
		_exit(1);
	while ((c = accept(lfd, NULL, NULL)) >= 0) {
		char req[2048];
		ssize_t k = read(c, req, sizeof(req) - 1);
		req[k > 0 ? k : 0] = '\0';
		if (strncmp(req, "GET /slow ", 10) == 0) {
			sleep(5);
		} else if (strncmp(req, "GET /big ", 9) == 0) {
			static char big[100000];
			memset(big, 'x', sizeof(big));
			(void)!write(c, "HTTP/1.0 200 OK\r\n\r\n", 19);
			(void)!write(c, big, sizeof(big));
		} else if (strncmp(req, "GET /bad ", 9) == 0) {
			(void)!write(c, "garbage\r\n\r\n", 11);
		} else {
			char ans[2200];
			int n = snprintf(ans, sizeof(ans), "HTTP/1.0 200 OK\r\nContent-Type: "
			    "text/plain\r\n\r\n%s", req);
			(void)!write(c, ans, (size_t)n);
		}
		close(c);
	}
	_exit(0);
}

static void
test_requests(void)
{
	yi_family_resp r;
	pid_t kid, other, *mv;
	size_t nm = 0;
	struct sockaddr_un sa;
	socklen_t sl;
	int fake, rc;

	yi_family_set(ID, getpid());
	kid = listener();
	for (int i = 0; i < 100; i++) {
		yi_family_members(&mv, &nm);
		if (nm > 0)
			break;
		yi_free(mv);
		usleep(20000);
	}
	ok(nm == 1 && mv[0] == kid, "yi_family_members finds the child listening");
	yi_free(mv);
	rc = yi_family_request(kid, "GET", "/debug/heap?format=text", "Bearer t", NULL, 0,
	    1 << 20, 2000, &r);
	ok(rc == 0 && r.status == 200 && strcmp(r.ctype, "text/plain") == 0,
	    "a request to the child: 200, its type");
	ok(rc == 0 && strstr(r.body, "GET /debug/heap?format=text HTTP/1.0\r\n") &&
	    strstr(r.body, "Host: localhost\r\n") && strstr(r.body, "Connection: close\r\n") &&
	    strstr(r.body, "Authorization: Bearer t\r\n"),
	    "... sent as HTTP/1.0, Host: localhost, Connection: close, the auth given");
	yi_family_resp_free(&r);
	rc = yi_family_request(kid, "POST", "/debug/prof/active?on=1", NULL, "abc", 3,
	    1 << 20, 2000, &r);
	ok(rc == 0 && strstr(r.body, "Content-Length: 3\r\n") &&
	    strstr(r.body, "\r\n\r\nabc"), "a POST carries its body");
	yi_family_resp_free(&r);
	is_int(yi_family_request(kid, "GET", "/big", NULL, NULL, 0, 1000, 2000, &r),
	    YING_ELIMIT, "an answer over max: YING_ELIMIT");
	has_str(ying_last_error(), "answer too large", "... said so");
	is_int(yi_family_request(kid, "GET", "/bad", NULL, NULL, 0, 1000, 2000, &r),
	    YING_EPARSE, "a malformed answer: YING_EPARSE");
	{
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = yi_family_request(kid, "GET", "/slow", NULL, NULL, 0, 1000, 300, &r);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ok(rc == YING_EBUSY && (t1.tv_sec - t0.tv_sec) * 1000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000 < 2000, "no answer: a timeout after "
		    "300 ms");
		has_str(ying_last_error(), "timed out", "... said so");
	}
	is_int(yi_family_request(kid, "GET", "bad target", NULL, NULL, 0, 1000, 2000, &r),
	    YING_EINVAL, "a target with a space is refused");
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	is_int(yi_family_request(kid, "GET", "/", NULL, NULL, 0, 1000, 2000, &r),
	    YING_ENOTFOUND, "the child gone: YING_ENOTFOUND");
	{
		char want[64];
		snprintf(want, sizeof(want), "process %ld:", (long)kid);
		has_str(ying_last_error(), want, "... naming its pid");
	}
	yi_family_members(&mv, &nm);
	is_int(nm, 0, "... and no longer a member");
	yi_free(mv);
	/* another process's name bound by this one: refused by SO_PEERCRED */
	if ((other = fork()) == 0) {
		pause();
		_exit(0);
	}
	sl = yi_family_addr(&sa, ID, other);
	fake = socket(AF_UNIX, SOCK_STREAM, 0);
	ok(bind(fake, (struct sockaddr *)&sa, sl) == 0 && listen(fake, 4) == 0,
	    "this process listens under its child's name");
	is_int(yi_family_request(other, "GET", "/", NULL, NULL, 0, 1000, 1000, &r),
	    YING_EINVAL, "a listener whose pid is not the name's is not asked");
	has_str(ying_last_error(), "is held by process", "... saying who holds it");
	close(fake);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	yi_family_set("", 0);
	is_int(yi_family_request(1, "GET", "/", NULL, NULL, 0, 1000, 1000, &r), YING_EINVAL,
	    "no family: nothing to ask");
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_ids();
	test_parse_unix();
	test_parse_resp();
	test_role();
	test_proc_info();
	test_requests();
	return tap_done();
}
