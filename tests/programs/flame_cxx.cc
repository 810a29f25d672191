/*
 * flame_cxx.cc: a C++ program for tests/integration/flame_chromium.sh.
 *
 * `flame_cxx OUT.heap` fills a std::map<int, char*> (so the stacks hold
 * libstdc++ template frames whose names contain '<', '>' and '&'), grows a
 * cache, recurses, and dumps a jemalloc heap profile ("prof.dump").  Run it
 * under MALLOC_CONF=prof:true,lg_prof_sample:0.  The test compiles it itself
 * with the system c++ (configure looks for no C++ compiler).
 *
 * Live at dump time: grow_cache 8 x 1 MiB, fill_table 3000 map nodes plus
 * 3000 x 512 B, recurse(6) 4 x 256 KiB, Pool<Widget>::make 200 x 1000 B.
 */
#pragma GCC optimize("O0")

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include <jemalloc/jemalloc.h>

static void *volatile keep[64];
static int nkeep;
static std::map<int, char *> *table;

struct Widget {
	char payload[1000];
};

template <typename T> struct Pool {
	__attribute__((noinline)) static T *make(int n)
	{
		T *last = nullptr;
		for (int i = 0; i < n; i++)
			last = new T();
		return last;
	}
};

__attribute__((noinline)) void
grow_cache()
{
	for (int i = 0; i < 8; i++)
		keep[nkeep++] = malloc(1 << 20);
}

__attribute__((noinline)) void
fill_table()
{
	for (int i = 0; i < 3000; i++)
		(*table)[i] = new char[512];
}

__attribute__((noinline)) void
recurse(int depth)
{
	if (depth > 0) {
		recurse(depth - 1);
		return;
	}
	for (int i = 0; i < 4; i++)
		keep[nkeep++] = malloc(256 << 10);
}

int
main(int argc, char **argv)
{
	const char *path;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: flame_cxx OUT.heap\n");
		return 2;
	}
	table = new std::map<int, char *>();
	grow_cache();
	fill_table();
	recurse(6);
	keep[nkeep++] = Pool<Widget>::make(200);
	path = argv[1];
	rc = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));
	if (rc != 0) {
		fprintf(stderr, "prof.dump to %s failed: %s\n", path, strerror(rc));
		return 3;
	}
	return 0;
}
