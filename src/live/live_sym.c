/*
 * live_sym.c: the one symbolizer the live layer shares in a process.
 *
 * The growth runner's reports, the HTTP endpoint, the Pyroscope uploader
 * and the giant-allocation writer all symbolize the same process, so they
 * take one ying_symbolizer from here (yi_live_sym_get) and give it back when
 * they stop (yi_live_sym_put): the second report, request or upload finds
 * every address the first one resolved, and the files' debug info is read
 * once per process, not once per component or per report.  The symbolizer
 * serialises its calls (its own lock); after each cycle the caller trims it
 * (ying_symbolizer_trim) so that the host does not keep libdw's debug info
 * between cycles.  It is freed when its last user puts it back.
 *
 * fork(): the threads using the parent's symbolizer stay in the parent, and
 * one of them may hold its lock, so a forked child never uses or frees it:
 * a child handler (installed with the first yi_live_sym_get) forgets it and
 * re-initialises the registry's lock, and the child's components get a new
 * one.  A put of the parent's symbolizer in the child does nothing.
 */
#include <pthread.h>
#include <unistd.h>

#include "live.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static ying_symbolizer *reg_sym;   /* the shared one, or NULL */
static unsigned reg_users;

static void
reg_atfork_child(void)
{
	/* only this thread exists: the parent's symbolizer (and possibly a
	 * held lock) is left behind, unused */
	pthread_mutex_init(&reg_lock, NULL);
	reg_sym = NULL;
	reg_users = 0;
}

static void
reg_init(void)
{
	pthread_atfork(NULL, NULL, reg_atfork_child);
}

int
yi_live_sym_get(ying_symbolizer **out)
{
	int rc = 0;

	*out = NULL;
	pthread_once(&reg_once, reg_init);
	pthread_mutex_lock(&reg_lock);
	if (reg_sym == NULL)
		rc = ying_symbolizer_new(&reg_sym);
	if (rc == 0) {
		reg_users++;
		*out = reg_sym;
	}
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

void
yi_live_cycle_end(ying_symbolizer *s)
{
	if (s != NULL)
		ying_symbolizer_trim(s);
	yi_ctl_release_thread();
}

void
yi_live_sym_put(ying_symbolizer *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&reg_lock);
	if (s == reg_sym && --reg_users == 0) {
		ying_symbolizer_free(reg_sym);
		reg_sym = NULL;
	}
	pthread_mutex_unlock(&reg_lock);
}

int
yi_live_frames_check(const char *frames, const char *what)
{
	const char *s = frames;

	for (size_t line = 1; s && *s; line++) {
		size_t len = strcspn(s, "\n");
		if (ying_frames_entry_check(s, len) != 0)
			return yi_error(YING_EINVAL, "%s line %zu: %s", what, line,
			    ying_last_error());
		s += len + (s[len] == '\n');
	}
	return 0;
}
