/*
 * agent_status_race.c: ThreadSanitizer harness for ying_agent_status()
 * (tests/integration/agent_status.sh).
 *
 * Linked with src/agent/agent.c alone, built with -fsanitize=thread (the
 * rest of the agent and libying are left unresolved: the constructor stops
 * at the stub agent_config_read below, and only set_state and
 * ying_agent_status run).  One thread changes the state twelve times, as
 * the agent's starter does, while the main thread reads the status and its
 * length 200000 times, as a program calling ying_agent_status would.
 * TSan reports a data race when a reader can see the text being written.
 * Prints the last status.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *ying_agent_status(void);
void set_state(const char *fmt, ...);

/* agent_config.c's entry points that agent.c's constructor calls: no
 * configuration, so the agent stays off. */
bool
agent_config_read(void)
{
	return false;
}

bool
env_true(const char *name)
{
	(void)name;
	return false;
}

static void *
writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 12; i++) {
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
		set_state("active: step %d: HTTP on http://127.0.0.1:%d/; reports in "
		    "DIR/x on request only", i, 1000 + i);
	}
	return NULL;
}

int
main(void)
{
	pthread_t w;
	size_t total = 0;

	if (pthread_create(&w, NULL, writer, NULL) != 0)
		return 1;
	for (int i = 0; i < 200000; i++)
		total += strlen(ying_agent_status());
	pthread_join(w, NULL);
	printf("read %zu bytes; last: %s\n", total, ying_agent_status());
	return 0;
}
