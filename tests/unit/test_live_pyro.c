/*
 * test_live_pyro.c: the Pyroscope uploader's pieces (live_pyro*.c).
 *
 * Options: defaults, tag parsing and its errors, reserved label names
 * rejected, bad URLs, APIs, auth and headers.  Requests: the push body
 * decoded with protobuf-c's code for our own .proto (labels in order, no
 * name twice, __delta__=false, one sample whose raw_profile is the pprof
 * byte for byte and decodes as profile.proto, a version 4 UUID as ID); the
 * ingest URL (name=SERVICE{tags,hostname,pid} percent-encoded, from,
 * until, spyName, no format=) and its multipart body (the pprof exactly
 * inside the "profile" part, the sample_type_config part, the closing
 * boundary).  The backoff schedule stays within [step/2, step] with the
 * step doubling up to its cap.  And a running uploader against a closed
 * port (connection refused, retried with backoff) with a queue of 2: the
 * oldest profiles are dropped and counted, /debug/prof's JSON carries the
 * counters and nothing is registered after stop; with retries off a
 * refused profile fails at once.  This program links jemalloc and re-runs
 * itself with MALLOC_CONF=prof:true for that part.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "live_pyro.h"
#include "tap.h"
#include "proto/pyroscope_push.pb-c.h"
#include "proto/profile.pb-c.h"

/* ---- options ------------------------------------------------------------------ */

static int
cfg_rc(const char *url, const char *service, const char *tags, const char *api)
{
	ying_pyroscope_opts o = YING_PYROSCOPE_OPTS_INIT;
	yi_pyro_cfg c;
	int rc;

	o.url = url;
	o.service = service;
	o.tags = tags;
	o.api = api;
	rc = yi_pyro_cfg_init(&c, &o);
	yi_pyro_cfg_release(&c);
	return rc;
}

static void
test_options(void)
{
	ying_pyroscope_opts o = YING_PYROSCOPE_OPTS_INIT;
	yi_pyro_cfg c;
	char what[200];
	int rc;

	o.url = "http://127.0.0.1:4040/";
	o.service = "checkout";
	o.tags = "env=prod,region=eu-1,k8s.pod=ab_c";
	rc = yi_pyro_cfg_init(&c, &o);
	is_int(rc, 0, "good options");
	is_str(c.url, "http://127.0.0.1:4040", "trailing '/' dropped from the URL");
	is_int(c.tags.n, 3, "three tags");
	if (c.tags.n == 3) {
		is_str(c.tags.v[0].name, "env", "tag 1 name");
		is_str(c.tags.v[0].value, "prod", "tag 1 value");
		is_str(c.tags.v[2].name, "k8s.pod", "a dotted name");
		is_str(c.tags.v[2].value, "ab_c", "tag 3 value");
	}
	is_near(c.interval, 15, 0, "default interval 15 s");
	is_near(c.timeout, 10, 0, "default timeout 10 s");
	is_int(c.queue, 4, "default queue 4");
	is_int(c.retries, 4, "default retries 4");
	is_int(c.api, YI_PYRO_PUSH, "default API push");
	is_int(strlen(c.session), 16, "a session id of 16 hex digits");
	ok(strspn(c.session, "0123456789abcdef") == 16, "... all hex");
	is_int(c.max_samples, 16000, "default max_samples 16000 (Pyroscope's samples_limit)");
	is_int(c.max_bytes, 2 << 20, "default max_bytes 2 MiB (its ingestion burst)");
	is_near(c.max_age, 3600, 0, "default max_age 1 h (its reject-older-than)");
	ok(c.hostname && c.hostname[0], "hostname taken");
	yi_pyro_cfg_release(&c);

	o.url = "https://user:pw@pyro.example/prefix";
	o.tags = NULL;
	o.service = NULL;
	rc = yi_pyro_cfg_init(&c, &o);
	is_int(rc, 0, "https with credentials and a path prefix");
	is_str(c.url_name, "https://***@pyro.example/prefix", "credentials hidden in messages");
	ok(c.service && c.service[0] && strchr(c.service, ' ') == NULL,
	    "default service: the program's name");
	yi_pyro_cfg_release(&c);

	/* reserved names: never a key twice, never ours overridden */
	static const char *const reserved[] = { "service_name=x", "__name__=cpu",
	    "hostname=h", "__delta__=true", "__session_id__=1", NULL };
	for (int i = 0; reserved[i]; i++) {
		rc = cfg_rc("http://h:1", "s", reserved[i], NULL);
		snprintf(what, sizeof(what), "tag %s is rejected", reserved[i]);
		is_int(rc, YING_EINVAL, what);
		has_str(ying_last_error(), "is set by ying", "... saying that ying sets it");
	}
	/* tag syntax */
	static const char *const bad[] = { "env", "=x", "env=", "a=b,,c=d", "a=b,",
	    ",a=b", "a=b,a=c", "1a=b", "a b=c", "a=b c", "a=b{c", "a=b=c", "a=\"q\"",
	    "a=\x01", "a=\xff\xfe", ".a=b", NULL };
	for (int i = 0; bad[i]; i++) {
		rc = cfg_rc("http://h:1", "s", bad[i], NULL);
		snprintf(what, sizeof(what), "bad tags '%s' rejected", bad[i]);
		for (char *q = what; *q; q++)
			if ((unsigned char)*q < ' ' || (unsigned char)*q >= 0x7f)
				*q = '?';
		is_int(rc, YING_EINVAL, what);
		ok(strstr(ying_last_error(), "tag") != NULL, "... the message is about tags");
	}
	is_int(cfg_rc("http://h:1", "s", "a=b,a=c", NULL), YING_EINVAL, "a name twice");
	has_str(ying_last_error(), "'a' given twice", "... named");
	is_int(cfg_rc("http://h:1", "s", "zone=\xc3\xa9t\xc3\xa9", NULL), 0, "UTF-8 values");
	{
		char many[1024];
		size_t w = 0;
		for (int i = 0; i < 25; i++)
			w += (size_t)snprintf(many + w, sizeof(many) - w, "%st%d=v", i ? "," : "", i);
		is_int(cfg_rc("http://h:1", "s", many, NULL), YING_EINVAL, "25 tags: too many");
		has_str(ying_last_error(), "more than 24 tags", "... says the bound");
	}
	/* URL, service, API */
	is_int(cfg_rc("ftp://h", "s", NULL, NULL), YING_EINVAL, "ftp:// rejected");
	is_int(cfg_rc("http://", "s", NULL, NULL), YING_EINVAL, "no host rejected");
	is_int(cfg_rc("http://h:1/x?y=1", "s", NULL, NULL), YING_EINVAL, "a query rejected");
	is_int(cfg_rc("http://h :1", "s", NULL, NULL), YING_EINVAL, "a space rejected");
	is_int(cfg_rc("http://h:", "s", NULL, NULL), YING_EINVAL, "an empty port rejected");
	is_int(cfg_rc("http://h:4o40", "s", NULL, NULL), YING_EINVAL, "a bad port rejected");
	is_int(cfg_rc("http://[::1]:4040/p", "s", NULL, NULL), 0, "an IPv6 address with a port");
	is_int(cfg_rc(NULL, "s", NULL, NULL), YING_EINVAL, "no URL rejected");
	is_int(cfg_rc("http://h:1", "a b", NULL, NULL), YING_EINVAL, "service with a space");
	is_int(cfg_rc("http://h:1", "", NULL, NULL), YING_EINVAL, "empty service");
	is_int(cfg_rc("http://h:1", "team/svc-1.v2", NULL, NULL), 0, "service with /.-");
	is_int(cfg_rc("http://h:1", "s", NULL, "grpc"), YING_EINVAL, "API grpc rejected");
	has_str(ying_last_error(), "push or ingest", "... naming the choices");
	is_int(cfg_rc("http://h:1", "s", NULL, "ingest"), 0, "API ingest");

	/* auth, headers, numbers */
	memset(&o, 0, sizeof(o));      /* version 0 is refused: the current one */
	o.version = YING_PYROSCOPE_OPTS_VERSION;
	o.url = "http://h:1";
	o.user = "u";
	o.token = "t";
	is_int(ying_pyroscope_check(&o), YING_EINVAL, "basic auth and a token: one please");
	o.user = NULL;
	o.password = "p";
	o.token = NULL;
	is_int(ying_pyroscope_check(&o), YING_EINVAL, "a password without a user");
	o.password = NULL;
	o.token = "abc\r\nX-Evil: 1";
	is_int(ying_pyroscope_check(&o), YING_EINVAL, "CR/LF in the token rejected");
	o.token = NULL;
	{
		const char *h1[] = { "X-Good: yes", NULL };
		const char *h2[] = { "X-Bad yes", NULL };
		const char *h3[] = { "X-Bad: a\nb: c", NULL };
		const char *h4[] = { "X Bad: a", NULL };
		o.headers = h1;
		is_int(ying_pyroscope_check(&o), 0, "a good extra header");
		o.headers = h2;
		is_int(ying_pyroscope_check(&o), YING_EINVAL, "a header without ':'");
		o.headers = h3;
		is_int(ying_pyroscope_check(&o), YING_EINVAL, "a header with a newline");
		o.headers = h4;
		is_int(ying_pyroscope_check(&o), YING_EINVAL, "a header name with a space");
		o.headers = NULL;
	}
	o.interval = 0.01;
	is_int(ying_pyroscope_check(&o), YING_EINVAL, "interval below 0.1 s");
	o.interval = 0;
	o.queue = -1;
	is_int(ying_pyroscope_check(&o), YING_EINVAL, "negative queue");
	o.queue = 0;
	o.version = 7;
	is_int(ying_pyroscope_check(&o), YING_EINVAL, "unknown version");
}

/* ---- requests ----------------------------------------------------------------- */

/* A real pprof (gzipped) from a fixture dump. */
static ying_membuf
fixture_pprof(void)
{
	ying_pprof_opts po = YING_PPROF_OPTS_INIT;
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_profile *p = NULL;

	if (ying_profile_read_file(&p, tap_data("heap1.heap")) != 0 ||
	    ying_profile_write_pprof(p, &po, ying_write_membuf, &mb) != 0) {
		printf("Bail out! cannot make a pprof from heap1.heap: %s\n", ying_last_error());
		exit(1);
	}
	ying_profile_free(p);
	return mb;
}

static void
test_push(const ying_membuf *pp)
{
	ying_pyroscope_opts o = YING_PYROSCOPE_OPTS_INIT;
	Push__V1__PushRequest *m;
	yi_pyro_cfg c;
	yi_pyro_req r;
	int rc;

	o.url = "http://127.0.0.1:4040//";
	o.service = "checkout";
	o.tags = "env=prod,region=eu";
	if (yi_pyro_cfg_init(&c, &o) != 0) {
		printf("Bail out! %s\n", ying_last_error());
		exit(1);
	}
	rc = yi_pyro_req_build(&r, &c, pp->data, pp->len, 100, 115);
	is_int(rc, 0, "push request built");
	is_str(r.url, "http://127.0.0.1:4040/push.v1.PusherService/Push", "push URL");
	is_str(r.ctype, "application/proto", "Content-Type application/proto");
	m = push__v1__push_request__unpack(NULL, r.len, r.body);
	ok(m != NULL, "the body decodes as push.v1.PushRequest");
	if (m) {
		is_int(m->n_series, 1, "one series");
		if (m->n_series == 1) {
			Push__V1__RawProfileSeries *s = m->series[0];
			const char *want[][2] = { { "__name__", "memory" },
			    { "service_name", "checkout" }, { "env", "prod" },
			    { "region", "eu" }, { "hostname", c.hostname },
			    { "__session_id__", c.session }, { "__delta__", "false" } };
			size_t nw = sizeof(want) / sizeof(want[0]);
			bool dup = false;
			is_int(s->n_labels, nw, "seven labels");
			for (size_t i = 0; i < s->n_labels && i < nw; i++) {
				char what[80];
				snprintf(what, sizeof(what), "label %zu is %s", i, want[i][0]);
				is_str(s->labels[i]->name, want[i][0], what);
				is_str(s->labels[i]->value, want[i][1], "... with its value");
				for (size_t j = 0; j < i; j++)
					dup |= strcmp(s->labels[i]->name, s->labels[j]->name) == 0;
			}
			ok(!dup, "no label name twice");
			is_int(s->n_samples, 1, "one sample");
			if (s->n_samples == 1) {
				const char *id = s->samples[0]->id;
				void *raw = NULL;
				size_t rawlen = 0;
				Perftools__Profiles__Profile *pr = NULL;
				ok(s->samples[0]->raw_profile.len == pp->len &&
				    memcmp(s->samples[0]->raw_profile.data, pp->data, pp->len) == 0,
				    "raw_profile is the pprof, byte for byte");
				if (yi_gunzip(s->samples[0]->raw_profile.data,
				    s->samples[0]->raw_profile.len, 1 << 28, &raw, &rawlen, "raw") == 0)
					pr = perftools__profiles__profile__unpack(NULL, rawlen, raw);
				ok(pr != NULL && pr->n_sample > 0 && pr->n_sample_type >= 2,
				    "raw_profile decodes as profile.proto with samples");
				if (pr)
					perftools__profiles__profile__free_unpacked(pr, NULL);
				yi_free(raw);
				ok(id && strlen(id) == 36 && id[8] == '-' && id[14] == '4' &&
				    strchr("89ab", id[19]) != NULL, "ID is a version 4 UUID");
			}
		}
		push__v1__push_request__free_unpacked(m, NULL);
	}
	yi_pyro_req_release(&r);
	yi_pyro_cfg_release(&c);

	/* two pushes: two IDs */
	{
		char a[37], b[37];
		int same = 0;
		for (int i = 0; i < 200; i++) {
			yi_pyro_uuid(a);
			yi_pyro_uuid(b);
			same |= strcmp(a, b) == 0;
		}
		ok(!same, "UUIDs differ");
	}
}

static const char *
memmem_s(const char *hay, size_t n, const char *needle)
{
	return memmem(hay, n, needle, strlen(needle));
}

static void
test_ingest(const ying_membuf *pp)
{
	ying_pyroscope_opts o = YING_PYROSCOPE_OPTS_INIT;
	yi_pyro_cfg c;
	yi_pyro_req r;
	char want[512], bnd[128], open_part[200];
	const char *body, *at;
	int rc;

	o.url = "http://127.0.0.1:4040";
	o.service = "checkout";
	o.tags = "env=prod";
	o.api = "ingest";
	if (yi_pyro_cfg_init(&c, &o) != 0) {
		printf("Bail out! %s\n", ying_last_error());
		exit(1);
	}
	rc = yi_pyro_req_build(&r, &c, pp->data, pp->len, 1700000000123, 1700000015456);
	is_int(rc, 0, "ingest request built");
	snprintf(want, sizeof(want), "http://127.0.0.1:4040/ingest?name=checkout%%7Benv%%3Dprod"
	    "%%2Chostname%%3D%s%%2C__session_id__%%3D%s%%7D&from=1700000000123&until=1700000015456"
	    "&spyName=ying", c.hostname, c.session);
	is_str(r.url, want, "ingest URL: name=SERVICE{tags,hostname,__session_id__}, from, "
	    "until, spyName");
	ok(strstr(r.url, "format=") == NULL, "no format= (Pyroscope would ignore the form)");
	ok(strncmp(r.ctype, "multipart/form-data; boundary=", 30) == 0,
	    "Content-Type multipart/form-data with a boundary");
	snprintf(bnd, sizeof(bnd), "--%s", r.ctype + 30);
	body = (const char *)r.body;
	snprintf(open_part, sizeof(open_part), "%s\r\nContent-Disposition: form-data; "
	    "name=\"profile\"; filename=\"profile.pprof\"\r\nContent-Type: "
	    "application/octet-stream\r\n\r\n", bnd);
	ok(r.len > strlen(open_part) && memcmp(body, open_part, strlen(open_part)) == 0,
	    "the body opens the part \"profile\"");
	ok(r.len > strlen(open_part) + pp->len + 2 &&
	    memcmp(body + strlen(open_part), pp->data, pp->len) == 0 &&
	    memcmp(body + strlen(open_part) + pp->len, "\r\n", 2) == 0,
	    "... which holds the pprof exactly, then CRLF");
	at = memmem_s(body, r.len, "name=\"sample_type_config\"");
	ok(at != NULL, "a sample_type_config part");
	ok(memmem_s(body, r.len, "\"inuse_space\":{\"units\":\"bytes\",\"aggregation\":"
	    "\"average\"}") != NULL, "... inuse_space: bytes, average");
	ok(memmem_s(body, r.len, "cumulative") == NULL, "... nothing cumulative");
	snprintf(want, sizeof(want), "\r\n%s--\r\n", bnd);
	ok(r.len > strlen(want) && memcmp(body + r.len - strlen(want), want, strlen(want)) == 0,
	    "the body ends with the closing boundary");
	ok(memmem_s(body + 2, r.len - 2, bnd) != NULL &&
	    memmem(pp->data, pp->len, bnd + 2, strlen(bnd) - 2) == NULL,
	    "the boundary does not occur in the pprof");
	yi_pyro_req_release(&r);
	/* a one-shot upload has no session */
	c.session[0] = '\0';
	rc = yi_pyro_req_build(&r, &c, pp->data, pp->len, 1, 2);
	ok(rc == 0 && strstr(r.url, "session") == NULL && strstr(r.url, "pid") == NULL,
	    "no session: no __session_id__ (and no pid) in name=");
	yi_pyro_req_release(&r);
	yi_pyro_cfg_release(&c);
}

/* ---- backoff ------------------------------------------------------------------ */

static void
test_backoff(void)
{
	static const double rnds[] = { 0, 0.25, 0.5, 0.999999 };
	bool in_bounds = true, grows = true, capped = true;

	for (size_t k = 0; k < sizeof(rnds) / sizeof(rnds[0]); k++) {
		double prev = 0;
		for (int a = 1; a <= 40; a++) {
			double step = fmin(YI_PYRO_BACKOFF_CAP, YI_PYRO_BACKOFF_BASE * pow(2, a - 1));
			double d = yi_pyro_backoff(a, rnds[k]);
			if (d < step / 2 - 1e-9 || d > step + 1e-9) {
				in_bounds = false;
				printf("# attempt %d rnd %g: %g not in [%g, %g]\n", a, rnds[k], d,
				    step / 2, step);
			}
			if (d + 1e-9 < prev)
				grows = false;
			if (d > YI_PYRO_BACKOFF_CAP)
				capped = false;
			prev = d;
		}
	}
	ok(in_bounds, "every delay is in [step/2, step], step = min(30, 2^(n-1)) s");
	ok(grows, "delays never shrink with the attempt number (same jitter)");
	ok(capped, "never more than 30 s");
	is_near(yi_pyro_backoff(1, 0), 0.5, 1e-9, "first retry after 0.5 s at the least");
	is_near(yi_pyro_backoff(3, 0.999999), 4, 1e-5, "third retry after 4 s at the most");
	is_near(yi_pyro_backoff(40, 0), 15, 1e-9, "the cap's half at attempt 40");
	ok(yi_pyro_backoff(0, -1) >= 0.5 && yi_pyro_backoff(0, 2) <= 1.0,
	    "nonsense arguments stay in the first step");
	{
		double lo = 1, hi = 0;
		for (int i = 0; i < 10000; i++) {
			double r = yi_pyro_random();
			lo = fmin(lo, r);
			hi = fmax(hi, r);
		}
		ok(lo >= 0 && lo < 0.01 && hi < 1 && hi > 0.99, "yi_pyro_random covers [0, 1)");
	}
}

/* ---- a running uploader against a closed port ---------------------------------- */

/* A port on 127.0.0.1 where nothing listens (bound, then closed). */
static int
closed_port(void)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &al) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static void
test_queue(void)
{
	ying_pyroscope_opts o = YING_PYROSCOPE_OPTS_INIT;
	ying_pyroscope_stats st;
	ying_membuf js = YING_MEMBUF_INIT;
	ying_pyroscope *p = NULL;
	char url[64];
	void *keep[64];
	yi_out *out;
	int rc;

	if (ying_ctl_available() != 0) {
		ok(0, "jemalloc with prof:true in this process");
		printf("# %s\n", ying_last_error());
		return;
	}
	/* a heap worth dumping */
	for (int i = 0; i < 64; i++)
		keep[i] = malloc(64 * 1024);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", closed_port());
	o.url = url;
	o.service = "queue-test";
	o.interval = 0.1;
	o.queue = 2;
	o.retries = 10;
	o.timeout = 0.5;
	o.log = fopen("/dev/null", "w");
	rc = ying_pyroscope_start(&p, &o);
	is_int(rc, 0, "uploader started");
	if (rc != 0) {
		printf("# %s\n", ying_last_error());
		return;
	}
	/* the sender waits 0.5..1 s, then 1..2 s, before its retries; the
	 * collector queues a profile every 0.1 s meanwhile (a dump under ASan
	 * on a loaded 2-core machine can take longer than that: up to 10 s for
	 * the five collections and the retry) */
	for (int i = 0; i < 200; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		ying_pyroscope_stats_get(&st, p);
		if (st.collected >= 5 && st.dropped >= 3 && st.retried >= 1)
			break;
	}
	rc = ying_pyroscope_stats_get(&st, p);
	is_int(rc, 0, "stats");
	ok(st.collected >= 5, "profiles were collected every 0.1 s");
	ok(st.dropped >= 3, "a full queue drops the oldest, counted");
	ok(st.queued <= 2, "never more than the queue's 2 waiting");
	is_u64(st.sent, 0, "nothing sent to a closed port");
	ok(st.retried >= 1, "connection refused is retried");
	has_str(st.last_error, "cannot connect", "the last error says why");
	ok(st.last_collect > 0, "collect time measured");
	out = malloc(sizeof(*out));
	yi_out_init(out, ying_write_membuf, &js);
	yi_pyro_status_json(out);
	yi_out_finish(out);
	free(out);
	has_str(js.data, ",\"pyroscope\":{\"url\":\"http://127.0.0.1:", "/debug/prof JSON: the uploader");
	has_str(js.data, "\"service\":\"queue-test\"", "... its service");
	has_str(js.data, "\"dropped\":", "... its drop counter");
	has_str(js.data, "\"last_error\":\"http://127.0.0.1:", "... its last error");
	ying_membuf_release(&js);
	{
		double t0 = yi_pyro_now();
		rc = ying_pyroscope_stop(p);
		ok(rc == 0 || rc == YING_EIO, "stopped");
		ok(yi_pyro_now() - t0 < 3.0, "... within its timeout (0.5 s) and a dump, "
		    "not after the pending retries");
	}
	/* after stop: nothing registered any more */
	out = malloc(sizeof(*out));
	yi_out_init(out, ying_write_membuf, &js);
	yi_pyro_status_json(out);
	yi_out_finish(out);
	free(out);
	ok(js.len == 0, "/debug/prof has no uploader once it stopped");
	ying_membuf_release(&js);
	for (int i = 0; i < 64; i++)
		free(keep[i]);
	fclose(o.log);
}

static void
test_no_retries(void)
{
	/* retries -1: a refused profile fails at once, never retried */
	ying_pyroscope_opts o = YING_PYROSCOPE_OPTS_INIT;
	ying_pyroscope_stats st;
	ying_pyroscope *p = NULL;
	char url[64];

	if (ying_ctl_available() != 0)
		return;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", closed_port());
	o.url = url;
	o.interval = 0.1;
	o.queue = 3;
	o.retries = -1;
	o.timeout = 0.5;
	o.log = fopen("/dev/null", "w");
	if (ying_pyroscope_start(&p, &o) != 0) {
		ok(0, "second uploader started");
		return;
	}
	for (int i = 0; i < 40; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		ying_pyroscope_stats_get(&st, p);
		if (st.failed >= 2)
			break;
	}
	ying_pyroscope_stats_get(&st, p);
	is_u64(st.retried, 0, "retries -1: none");
	ok(st.failed >= 2, "refused profiles count as failed");
	is_u64(st.dropped, 0, "a sender that keeps up drops nothing");
	ying_pyroscope_stop(p);
	fclose(o.log);
}

int
main(int argc, char **argv)
{
	ying_membuf pp;

	(void)argc;
	/* jemalloc reads MALLOC_CONF once: run again with the profiler on */
	if (getenv("MALLOC_CONF") == NULL) {
		setenv("MALLOC_CONF", "prof:true,lg_prof_sample:12", 1);
		execv("/proc/self/exe", argv);
		printf("Bail out! cannot re-run with MALLOC_CONF\n");
		return 1;
	}
	test_options();
	pp = fixture_pprof();
	test_push(&pp);
	test_ingest(&pp);
	ying_membuf_release(&pp);
	test_backoff();
	test_queue();
	test_no_retries();
	return tap_done();
}
