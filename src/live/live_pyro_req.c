/*
 * live_pyro_req.c: what the Pyroscope uploader sends, built without any
 * network: the checked options (URL, service name, tags, API, auth,
 * headers), the labels of a series, the two request forms and the retry
 * schedule.
 *
 * push: POST {url}/push.v1.PusherService/Push, Content-Type
 * application/proto, a push.v1.PushRequest (our own .proto files with
 * Pyroscope's field numbers, src/live/proto/pyroscope_*.proto, packed by
 * protoc-c's code) holding one series: labels __name__=memory,
 * service_name, the user's tags, hostname, __session_id__ and
 * __delta__=false (the inuse_* values are snapshots, and alloc_* ones are
 * already per-interval deltas: the server must not take deltas again),
 * and one sample, the gzipped pprof with a random UUID as ID.
 *
 * ingest (legacy): POST {url}/ingest?name=SERVICE{tags,hostname=,
 * __session_id__=}&from=&until= (milliseconds: Pyroscope reads the unit
 * from the number of digits)&spyName=ying with a multipart/form-data body: the pprof in
 * the part "profile", and a "sample_type_config" part saying that no value
 * is cumulative.  No format= parameter: Pyroscope reads format=pprof
 * before it looks for a multipart body, and would take the whole form for
 * a raw profile.  The server adds __delta__=false itself on this path.
 *
 * ying_pyroscope_check is here: options only, no network.
 *
 * Names that ying sets (__name__, service_name, hostname, and every
 * name starting with "__") cannot be tags: a tag with one is an error, so
 * a series never carries a key twice.  (pid is allowed since issue 27: a
 * pid label makes a new series at every restart, which is why ying sends
 * __session_id__ instead; a user who wants one can say so.)
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "live_pyro.h"
#include "proto/pyroscope_push.pb-c.h"

#define SERVICE_MAX 128
#define NAME_MAX_LEN 64
#define VALUE_MAX_LEN 256
#define SECRET_MAX 4096

/* ---- random numbers, UUIDs, backoff ------------------------------------------ */

static _Thread_local uint64_t rnd_state;

static uint64_t
rnd_next(void)
{
	uint64_t x;

	if (rnd_state == 0) {
		struct timespec ts;
		if (getrandom(&rnd_state, sizeof(rnd_state), GRND_NONBLOCK) !=
		    (ssize_t)sizeof(rnd_state) || rnd_state == 0) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			rnd_state = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
			    ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&ts;
			if (rnd_state == 0)
				rnd_state = 0x9e3779b97f4a7c15ULL;
		}
	}
	/* xorshift64* */
	x = rnd_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rnd_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

double
yi_pyro_random(void)
{
	return (double)(rnd_next() >> 11) / 9007199254740992.0;   /* 2^53 */
}

void
yi_pyro_uuid(char out[37])
{
	unsigned char b[16];
	uint64_t a, c;
	int i, k = 0;

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		a = rnd_next();
		c = rnd_next();
		memcpy(b, &a, 8);
		memcpy(b + 8, &c, 8);
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);   /* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);   /* RFC 4122 variant */
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[k++] = '-';
		out[k++] = "0123456789abcdef"[b[i] >> 4];
		out[k++] = "0123456789abcdef"[b[i] & 15];
	}
	out[k] = '\0';
}

double
yi_pyro_backoff(int attempt, double rnd)
{
	double step = YI_PYRO_BACKOFF_BASE;

	if (attempt < 1)
		attempt = 1;
	if (!(rnd >= 0) || rnd >= 1)
		rnd = 0.5;
	for (int i = 1; i < attempt && step < YI_PYRO_BACKOFF_CAP; i++)
		step *= 2;
	if (step > YI_PYRO_BACKOFF_CAP)
		step = YI_PYRO_BACKOFF_CAP;
	return step * (0.5 + rnd / 2);
}

/* ---- options ----------------------------------------------------------------- */

static bool
name_char(char ch, bool first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
	    (!first && ((ch >= '0' && ch <= '9') || ch == '.'));
}

static bool
service_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '/' || ch == '-';
}

/* A tag value: printable, not empty, none of ",{}=" (they delimit tags in
 * the option and in ingest's name=), no space, no '"' or '\'. */
static bool
value_ok(const char *v, size_t n)
{
	if (n == 0 || n > VALUE_MAX_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v[i];
		if (ch <= ' ' || ch == 0x7f || strchr(",{}=\"\\", ch))
			return false;
	}
	/* bytes >= 0x80 must be well-formed UTF-8 (Pyroscope checks) */
	for (size_t i = 0, k; i < n; i += k)
		if ((k = yi_utf8_len((const unsigned char *)v + i)) == 0 || i + k > n)
			return false;
	return true;
}

static bool
reserved(const char *name, size_t n)
{
	static const char *const r[] = { "service_name", "hostname", NULL };

	if (n >= 2 && name[0] == '_' && name[1] == '_')
		return true;
	for (int i = 0; r[i]; i++)
		if (strlen(r[i]) == n && memcmp(r[i], name, n) == 0)
			return true;
	return false;
}

/* "k=v,k=v" into c->tags. */
static int
parse_tags(yi_pyro_cfg *c, const char *s)
{
	const char *p = s, *end, *eq;

	while (*p) {
		size_t n, vn;
		yi_pyro_label l;

		end = p + strcspn(p, ",");
		n = (size_t)(end - p);
		if (n == 0)
			return yi_error(YING_EINVAL, "tags '%s': an empty tag (two commas, "
			    "or one at an end)", s);
		eq = memchr(p, '=', n);
		if (eq == NULL)
			return yi_error(YING_EINVAL, "tag '%.*s': expected NAME=VALUE", (int)n, p);
		if (eq == p)
			return yi_error(YING_EINVAL, "tag '%.*s': no name before '='", (int)n, p);
		if ((size_t)(eq - p) > NAME_MAX_LEN)
			return yi_error(YING_EINVAL, "tag '%.*s': name longer than %d characters",
			    (int)n, p, NAME_MAX_LEN);
		for (const char *q = p; q < eq; q++)
			if (!name_char(*q, q == p))
				return yi_error(YING_EINVAL, "tag '%.*s': bad name (letters, digits, "
				    "'_' and '.', not starting with a digit or '.')", (int)n, p);
		if (reserved(p, (size_t)(eq - p)))
			return yi_error(YING_EINVAL, "tag '%.*s': '%.*s' is set by ying (__name__, "
			    "service_name, hostname and names starting with '__' cannot be "
			    "tags; the service name and the host name are options)", (int)n, p,
			    (int)(eq - p), p);
		vn = (size_t)(end - eq - 1);
		if (!value_ok(eq + 1, vn))
			return yi_error(YING_EINVAL, "tag '%.*s': bad value (1..%d characters, no "
			    "spaces, control characters, ',', '{', '}', '=', '\"' or '\\')",
			    (int)n, p, VALUE_MAX_LEN);
		for (size_t i = 0; i < c->tags.n; i++)
			if (strlen(c->tags.v[i].name) == (size_t)(eq - p) &&
			    memcmp(c->tags.v[i].name, p, (size_t)(eq - p)) == 0)
				return yi_error(YING_EINVAL, "tag '%.*s': '%s' given twice", (int)n, p,
				    c->tags.v[i].name);
		if (c->tags.n >= YI_PYRO_MAX_TAGS)
			return yi_error(YING_EINVAL, "more than %d tags", YI_PYRO_MAX_TAGS);
		l.name = yi_strndup(p, (size_t)(eq - p));
		l.value = yi_strndup(eq + 1, vn);
		if (l.name == NULL || l.value == NULL || yi_vec_grow(&c->tags, 1) != 0) {
			yi_free(l.name);
			yi_free(l.value);
			return yi_oom("the tags");
		}
		c->tags.v[c->tags.n++] = l;
		p = *end ? end + 1 : end;
		if (*end && *p == '\0')
			return yi_error(YING_EINVAL, "tags '%s': an empty tag (two commas, or "
			    "one at an end)", s);
	}
	return 0;
}

/* A header value or secret: no control characters (no CR/LF injection). */
static int
check_text(const char *what, const char *s, bool allow_empty)
{
	size_t n = strlen(s);

	if ((!allow_empty && n == 0) || n > SECRET_MAX)
		return yi_error(YING_EINVAL, "%s must be %d..%d characters", what,
		    allow_empty ? 0 : 1, SECRET_MAX);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' || s[i] == 0x7f)
			return yi_error(YING_EINVAL, "%s contains a control character "
			    "(at byte %zu)", what, i);
	return 0;
}

static int
check_url(yi_pyro_cfg *c, const char *url)
{
	const char *auth, *end, *at = NULL;
	size_t slen, n;

	if (strncasecmp(url, "http://", 7) == 0)
		slen = 7;
	else if (strncasecmp(url, "https://", 8) == 0)
		slen = 8;
	else
		return yi_error(YING_EINVAL, "URL '%s': expected http://HOST[:PORT] or "
		    "https://...", url);
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return yi_error(YING_EINVAL, "URL with a space or control character "
			    "(at byte %zu)", (size_t)(p - url));
	if (strpbrk(url, "?#"))
		return yi_error(YING_EINVAL, "URL '%s': no query or fragment please (the "
		    "base URL of the Pyroscope server)", url);
	auth = url + slen;
	end = auth + strcspn(auth, "/");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if ((at ? at + 1 : auth) == end)
		return yi_error(YING_EINVAL, "URL '%s': no host", url);
	{
		/* a port, if any, is 1..5 digits */
		const char *h = at ? at + 1 : auth, *colon;
		if (*h == '[')
			h = memchr(h, ']', (size_t)(end - h)) ? memchr(h, ']', (size_t)(end - h)) : end;
		colon = memchr(h, ':', (size_t)(end - h));
		if (colon) {
			size_t pn = (size_t)(end - colon - 1);
			if (pn == 0 || pn > 5 || strspn(colon + 1, "0123456789") < pn)
				return yi_error(YING_EINVAL, "URL '%s': bad port", url);
		}
	}
	n = strlen(url);
	while (n > slen && url[n - 1] == '/')
		n--;
	if ((c->url = yi_strndup(url, n)) == NULL)
		return yi_oom("the URL");
	if (at) {
		size_t rest = strlen(at + 1);
		if ((c->url_name = yi_malloc(slen + 4 + rest + 1)) == NULL)
			return yi_oom("the URL");
		memcpy(c->url_name, url, slen);
		memcpy(c->url_name + slen, "***@", 4);
		memcpy(c->url_name + slen + 4, at + 1, rest + 1);
	} else if ((c->url_name = yi_strdup(c->url)) == NULL) {
		return yi_oom("the URL");
	}
	return 0;
}

/* The program's name as a service name: characters outside
 * [A-Za-z0-9_./-] become '_'. */
static char *
default_service(void)
{
	char buf[SERVICE_MAX + 1], exe[4096];
	const char *name = program_invocation_short_name;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	if (n > 0) {
		exe[n] = '\0';
		name = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	}
	if (name == NULL || *name == '\0')
		name = "unknown";
	for (i = 0; name[i] && i < SERVICE_MAX; i++)
		buf[i] = service_char(name[i]) ? name[i] : '_';
	buf[i] = '\0';
	return yi_strdup(buf);
}

static char *
copy_opt(const char *s, int *rc)
{
	char *d;

	if (s == NULL || *rc)
		return NULL;
	if ((d = yi_strdup(s)) == NULL)
		*rc = yi_oom("the options");
	return d;
}

int
yi_pyro_cfg_init(yi_pyro_cfg *c, const ying_pyroscope_opts *o)
{
	ying_pyroscope_opts v3;
	char host[256];
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (o == NULL)
		return yi_error(YING_EINVAL, "no options (the URL is required)");
	if (o->version == 2) {
		/* the struct before max_samples: its fields only, the rest defaults */
		memset(&v3, 0, sizeof(v3));
		memcpy(&v3, o, offsetof(ying_pyroscope_opts, max_samples));
		v3.version = YING_PYROSCOPE_OPTS_VERSION;
		o = &v3;
	}
	if (o->version != YING_PYROSCOPE_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_pyroscope_opts version %d, expected %d "
		    "(use YING_PYROSCOPE_OPTS_INIT)", o->version, YING_PYROSCOPE_OPTS_VERSION);
	if (o->url == NULL || o->url[0] == '\0')
		return yi_error(YING_EINVAL, "no Pyroscope URL given");
	if ((rc = check_url(c, o->url)) != 0)
		return rc;
	if (o->service) {
		size_t n = strlen(o->service);
		if (n == 0 || n > SERVICE_MAX)
			return yi_error(YING_EINVAL, "service name must be 1..%d characters",
			    SERVICE_MAX);
		for (size_t i = 0; i < n; i++)
			if (!service_char(o->service[i]))
				return yi_error(YING_EINVAL, "service name '%s': only letters, "
				    "digits, '_', '.', '/' and '-'", o->service);
		c->service = yi_strdup(o->service);
	} else {
		c->service = default_service();
	}
	if (c->service == NULL)
		return yi_oom("the service name");
	if (o->api == NULL || strcmp(o->api, "push") == 0)
		c->api = YI_PYRO_PUSH;
	else if (strcmp(o->api, "ingest") == 0)
		c->api = YI_PYRO_INGEST;
	else
		return yi_error(YING_EINVAL, "API '%s': expected push or ingest", o->api);
	if (o->tags && (rc = parse_tags(c, o->tags)) != 0)
		return rc;
	if (o->interval != 0 && !(o->interval >= 0.1 && o->interval <= 1e6))
		return yi_error(YING_EINVAL, "interval %g s: expected 0.1 to 1000000", o->interval);
	c->interval = o->interval ? o->interval : YI_PYRO_INTERVAL;
	if (o->timeout != 0 && !(o->timeout >= 0.01 && o->timeout <= 3600))
		return yi_error(YING_EINVAL, "timeout %g s: expected 0.01 to 3600", o->timeout);
	c->timeout = o->timeout ? o->timeout : YI_PYRO_TIMEOUT;
	if (o->queue < 0 || o->queue > YI_PYRO_QUEUE_MAX)
		return yi_error(YING_EINVAL, "queue %d: expected 1 to %d", o->queue,
		    YI_PYRO_QUEUE_MAX);
	c->queue = o->queue ? o->queue : YI_PYRO_QUEUE;
	if (o->retries < -1 || o->retries > 100)
		return yi_error(YING_EINVAL, "retries %d: expected -1 to 100", o->retries);
	c->retries = o->retries == 0 ? YI_PYRO_RETRIES : o->retries < 0 ? 0 : o->retries;
	if (o->user && (rc = check_text("the user name", o->user, false)) != 0)
		return rc;
	if (o->user && strchr(o->user, ':'))
		return yi_error(YING_EINVAL, "the user name must not contain ':'");
	if (o->password && (rc = check_text("the password", o->password, true)) != 0)
		return rc;
	if (o->password && o->user == NULL)
		return yi_error(YING_EINVAL, "a password without a user name");
	if (o->token && (rc = check_text("the token", o->token, false)) != 0)
		return rc;
	if (o->token && o->user)
		return yi_error(YING_EINVAL, "both basic auth (user) and a bearer token: "
		    "give one");
	if ((rc = yi_live_frames_check(o->frames, "ying_pyroscope_opts.frames")) != 0)
		return rc;
	if (o->tenant && (rc = check_text("the tenant (X-Scope-OrgID)", o->tenant, false)) != 0)
		return rc;
	for (const char *const *h = o->headers; h && *h; h++) {
		const char *colon = strchr(*h, ':');
		if ((rc = check_text("a header", *h, false)) != 0)
			return rc;
		if (colon == NULL || colon == *h)
			return yi_error(YING_EINVAL, "header '%s': expected 'Name: value'", *h);
		for (const char *q = *h; q < colon; q++)
			if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
			    (*q >= '0' && *q <= '9') || strchr("!#$%&'*+-.^_`|~", *q)))
				return yi_error(YING_EINVAL, "header '%s': bad name", *h);
		if (yi_vec_grow(&c->headers, 1) != 0 ||
		    (c->headers.v[c->headers.n] = yi_strdup(*h)) == NULL)
			return yi_oom("the headers");
		c->headers.n++;
	}
	c->user = copy_opt(o->user, &rc);
	c->password = copy_opt(o->user ? (o->password ? o->password : "") : NULL, &rc);
	c->token = copy_opt(o->token, &rc);
	c->tenant = copy_opt(o->tenant, &rc);
	c->frames = copy_opt(o->frames, &rc);
	if (rc)
		return rc;
	if (o->max_samples != 0 && (o->max_samples < 1 || o->max_samples > 10000000))
		return yi_error(YING_EINVAL, "max_samples %zu: expected 1 to 10000000",
		    o->max_samples);
	c->max_samples = o->max_samples ? o->max_samples : YI_PYRO_MAX_SAMPLES;
	if (o->max_bytes != 0 && (o->max_bytes < 4096 || o->max_bytes > ((size_t)1 << 30)))
		return yi_error(YING_EINVAL, "max_bytes %zu: expected 4096 to 1073741824 "
		    "(4 KiB to 1 GiB)", o->max_bytes);
	c->max_bytes = o->max_bytes ? o->max_bytes : YI_PYRO_MAX_BYTES;
	if (o->max_age != o->max_age)
		return yi_error(YING_EINVAL, "max_age is not a number");
	c->max_age = o->max_age == 0 ? YI_PYRO_MAX_AGE : o->max_age;
	if (o->hostname) {
		size_t n = strlen(o->hostname);
		if (!value_ok(o->hostname, n))
			return yi_error(YING_EINVAL, "host name '%s': 1..%d characters, no "
			    "spaces, control characters, ',', '{', '}', '=', '\"' or '\\'",
			    o->hostname, VALUE_MAX_LEN);
		snprintf(host, sizeof(host), "%s", o->hostname);
	} else if (gethostname(host, sizeof(host)) != 0 || host[0] == '\0') {
		snprintf(host, sizeof(host), "unknown");
	}
	host[sizeof(host) - 1] = '\0';
	for (char *q = host; *q; q++)
		if (!value_ok(q, 1))
			*q = '_';
	if ((c->hostname = yi_strdup(host)) == NULL)
		return yi_oom("the host name");
	{
		/* one per process run: 64 random bits, as Pyroscope's agents */
		uint64_t a = rnd_next();
		snprintf(c->session, sizeof(c->session), "%016" PRIx64, a);
	}
	c->log = o->log;
	return 0;
}

static void
wipe_free(char *s)
{
	if (s) {
		volatile char *v = s;
		for (size_t i = 0; v[i]; i++)
			v[i] = 0;
	}
	yi_free(s);
}

void
yi_pyro_cfg_release(yi_pyro_cfg *c)
{
	yi_free(c->url);
	yi_free(c->url_name);
	yi_free(c->service);
	for (size_t i = 0; i < c->tags.n; i++) {
		yi_free(c->tags.v[i].name);
		yi_free(c->tags.v[i].value);
	}
	yi_vec_free(&c->tags);
	yi_free(c->hostname);
	yi_free(c->user);
	wipe_free(c->password);
	wipe_free(c->token);
	yi_free(c->tenant);
	yi_free(c->frames);
	for (size_t i = 0; i < c->headers.n; i++)
		wipe_free(c->headers.v[i]);
	yi_vec_free(&c->headers);
	memset(c, 0, sizeof(*c));
}

int
yi_pyro_labels(const yi_pyro_cfg *c, yi_pyro_label **out, size_t *n)
{
	yi_pyro_label *l = yi_calloc(c->tags.n + 5, sizeof(*l));
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (l == NULL)
		return yi_oom("the labels");
	l[k++] = (yi_pyro_label){ (char *)"__name__", (char *)"memory" };
	l[k++] = (yi_pyro_label){ (char *)"service_name", c->service };
	for (size_t i = 0; i < c->tags.n; i++)
		l[k++] = c->tags.v[i];
	l[k++] = (yi_pyro_label){ (char *)"hostname", c->hostname };
	if (c->session[0])
		l[k++] = (yi_pyro_label){ (char *)"__session_id__", (char *)c->session };
	l[k++] = (yi_pyro_label){ (char *)"__delta__", (char *)"false" };
	*out = l;
	*n = k;
	return 0;
}

size_t
yi_pyro_labels_size(const yi_pyro_cfg *c)
{
	/* every pair: name, value, and what its encoding adds (tags, lengths) */
	size_t n = strlen("__name__") + strlen("memory") + strlen("service_name") +
	    strlen(c->service) + strlen("hostname") + strlen(c->hostname) +
	    strlen("__delta__") + strlen("false") + 4 * 8;

	for (size_t i = 0; i < c->tags.n; i++)
		n += strlen(c->tags.v[i].name) + strlen(c->tags.v[i].value) + 8;
	if (c->session[0])
		n += strlen("__session_id__") + strlen(c->session) + 8;
	return n;
}

/* ---- requests ------------------------------------------------------------------ */

void
yi_pyro_req_release(yi_pyro_req *r)
{
	yi_free(r->url);
	yi_free(r->ctype);
	yi_free(r->body);
	memset(r, 0, sizeof(*r));
}

static int
build_push(yi_pyro_req *r, const yi_pyro_cfg *c, const void *pprof, size_t len)
{
	Push__V1__PushRequest req = PUSH__V1__PUSH_REQUEST__INIT;
	Push__V1__RawProfileSeries series = PUSH__V1__RAW_PROFILE_SERIES__INIT;
	Push__V1__RawSample sample = PUSH__V1__RAW_SAMPLE__INIT;
	Push__V1__RawProfileSeries *sp = &series;
	Push__V1__RawSample *smp = &sample;
	Types__V1__LabelPair *pairs = NULL, **pp = NULL;
	yi_pyro_label *labels = NULL;
	char id[37];
	size_t n = 0, size;
	int rc;

	if ((rc = yi_pyro_labels(c, &labels, &n)) != 0)
		return rc;
	pairs = yi_calloc(n, sizeof(*pairs));
	pp = yi_calloc(n, sizeof(*pp));
	if (pairs == NULL || pp == NULL) {
		rc = yi_oom("the push request");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		types__v1__label_pair__init(&pairs[i]);
		pairs[i].name = labels[i].name;
		pairs[i].value = labels[i].value;
		pp[i] = &pairs[i];
	}
	yi_pyro_uuid(id);
	sample.raw_profile.data = (uint8_t *)pprof;
	sample.raw_profile.len = len;
	sample.id = id;
	series.n_labels = n;
	series.labels = pp;
	series.n_samples = 1;
	series.samples = &smp;
	req.n_series = 1;
	req.series = &sp;
	size = push__v1__push_request__get_packed_size(&req);
	if ((r->body = yi_malloc(size ? size : 1)) == NULL) {
		rc = yi_oom("the push request");
		goto out;
	}
	r->len = push__v1__push_request__pack(&req, r->body);
	if ((r->url = yi_malloc(strlen(c->url) + 40)) == NULL ||
	    (r->ctype = yi_strdup("application/proto")) == NULL) {
		rc = yi_oom("the push request");
		goto out;
	}
	sprintf(r->url, "%s/push.v1.PusherService/Push", c->url);
out:
	yi_free(pairs);
	yi_free(pp);
	yi_free(labels);
	return rc;
}

/* Percent-encode s[0..n) onto o (unreserved characters stay). */
static void
url_encode(yi_out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' || ch == '~')
			yi_out_putc(o, (char)ch);
		else
			yi_out_printf(o, "%%%02X", ch);
	}
}

static void
url_encode_str(yi_out *o, const char *s)
{
	url_encode(o, s, strlen(s));
}

static const char sample_type_config[] =
    "{\"inuse_space\":{\"units\":\"bytes\",\"aggregation\":\"average\"},"
    "\"inuse_objects\":{\"units\":\"objects\",\"aggregation\":\"average\"},"
    "\"alloc_space\":{\"units\":\"bytes\"},"
    "\"alloc_objects\":{\"units\":\"objects\"}}";

static int
build_ingest(yi_pyro_req *r, const yi_pyro_cfg *c, const void *pprof, size_t len,
    int64_t from, int64_t until)
{
	ying_membuf ub = YING_MEMBUF_INIT, bb = YING_MEMBUF_INIT;
	char boundary[48], id[37];
	yi_out *o;
	int rc;

	if ((o = yi_malloc(sizeof(*o))) == NULL)
		return yi_oom("the ingest request");
	/* the URL: name=SERVICE{k=v,...}, percent-encoded as a whole */
	yi_out_init(o, ying_write_membuf, &ub);
	yi_out_printf(o, "%s/ingest?name=", c->url);
	url_encode_str(o, c->service);
	url_encode_str(o, "{");
	for (size_t i = 0; i < c->tags.n; i++) {
		url_encode_str(o, c->tags.v[i].name);
		url_encode_str(o, "=");
		url_encode_str(o, c->tags.v[i].value);
		url_encode_str(o, ",");
	}
	url_encode_str(o, "hostname=");
	url_encode_str(o, c->hostname);
	if (c->session[0]) {
		/* the one "__" name /ingest keeps */
		url_encode_str(o, ",__session_id__=");
		url_encode_str(o, c->session);
	}
	url_encode_str(o, "}");
	yi_out_printf(o, "&from=%" PRId64 "&until=%" PRId64 "&spyName=ying", from, until);
	if ((rc = yi_out_finish(o)) != 0)
		goto out;
	/* the body */
	yi_pyro_uuid(id);
	snprintf(boundary, sizeof(boundary), "ying-%s", id);
	yi_out_init(o, ying_write_membuf, &bb);
	yi_out_printf(o, "--%s\r\nContent-Disposition: form-data; name=\"profile\"; "
	    "filename=\"profile.pprof\"\r\nContent-Type: application/octet-stream\r\n\r\n",
	    boundary);
	yi_out_write(o, pprof, len);
	yi_out_printf(o, "\r\n--%s\r\nContent-Disposition: form-data; "
	    "name=\"sample_type_config\"; filename=\"sample_type_config.json\"\r\n"
	    "Content-Type: application/octet-stream\r\n\r\n%s\r\n--%s--\r\n", boundary,
	    sample_type_config, boundary);
	if ((rc = yi_out_finish(o)) != 0)
		goto out;
	r->url = ub.data;
	ub.data = NULL;
	r->body = (unsigned char *)bb.data;
	r->len = bb.len;
	bb.data = NULL;
	if ((r->ctype = yi_malloc(80)) == NULL) {
		rc = yi_oom("the ingest request");
		goto out;
	}
	snprintf(r->ctype, 80, "multipart/form-data; boundary=%s", boundary);
out:
	ying_membuf_release(&ub);
	ying_membuf_release(&bb);
	yi_free(o);
	return rc;
}

int
yi_pyro_req_build(yi_pyro_req *r, const yi_pyro_cfg *c, const void *pprof,
    size_t len, int64_t from, int64_t until)
{
	memset(r, 0, sizeof(*r));
	return c->api == YI_PYRO_PUSH ? build_push(r, c, pprof, len) :
	    build_ingest(r, c, pprof, len, from, until);
}

int
ying_pyroscope_check(const ying_pyroscope_opts *opts)
{
	yi_pyro_cfg c;
	int rc;

	yi_error_clear();
	rc = yi_pyro_cfg_init(&c, opts);
	yi_pyro_cfg_release(&c);
#ifndef YING_HAVE_CURL
	if (rc == 0)
		rc = yi_error(YING_ENOTSUP, "cannot upload: libying was built without "
		    "libcurl (apt-get install libcurl4-openssl-dev and rebuild)");
#endif
	return rc;
}
