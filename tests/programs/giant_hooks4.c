/*
 * giant_hooks4.c: a preloadable object that takes jemalloc's four hook
 * slots (experimental.hooks.install, HOOK_MAX = 4) with no-op hooks in its
 * constructor, so that the agent's own install fails with EAGAIN.
 * Compiled by tests/integration/giant.sh; listed after the agent in
 * LD_PRELOAD, its constructor runs before the agent's.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct hooks4 {
	void (*alloc_hook)(void *, int, void *, uintptr_t, uintptr_t *);
	void *dalloc_hook, *expand_hook, *extra;
} hooks4;

static void
noop_alloc(void *extra, int type, void *result, uintptr_t raw, uintptr_t *args)
{
	(void)extra, (void)type, (void)result, (void)raw, (void)args;
}

__attribute__((constructor)) static void
take_all_slots(void)
{
	int (*mc)(const char *, void *, size_t *, void *, size_t) =
	    (int (*)(const char *, void *, size_t *, void *, size_t))dlsym(RTLD_DEFAULT,
	    "mallctl");
	int taken = 0;

	for (int i = 0; mc && i < 4; i++) {
		hooks4 h = { noop_alloc, NULL, NULL, NULL };
		void *handle;
		size_t sz = sizeof(handle);
		if (mc("experimental.hooks.install", &handle, &sz, &h, sizeof(h)) == 0)
			taken++;
	}
	fprintf(stderr, "giant_hooks4: %d hook slots taken\n", taken);
}
