/*
 * top_cxx.cc: allocations through C++ operator new and new[], for
 * tests/integration/top_cxx_threads.sh.
 *
 * `top_cxx DUMP` writes DUMP while holding 1000 Widgets (128 bytes each,
 * made by make_widgets) and 100 x new char[4096] (make_buffers).  The
 * report must name these callers, not operator new (an allocator frame).
 */
#pragma GCC optimize("O0")

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <jemalloc/jemalloc.h>

struct Widget {
	char payload[128];
};

static std::vector<Widget *> *widgets;
static std::vector<char *> *buffers;

__attribute__((noinline)) void
make_widgets()
{
	for (int i = 0; i < 1000; i++)
		widgets->push_back(new Widget());
}

__attribute__((noinline)) void
make_buffers()
{
	for (int i = 0; i < 100; i++)
		buffers->push_back(new char[4096]);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: top_cxx DUMP\n");
		return 2;
	}
	widgets = new std::vector<Widget *>();
	buffers = new std::vector<char *>();
	widgets->reserve(1000);
	buffers->reserve(100);
	make_widgets();
	make_buffers();
	const char *path = argv[1];
	int rc = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));
	if (rc != 0) {
		fprintf(stderr, "prof.dump to %s failed: %s\n", path, strerror(rc));
		return 3;
	}
	return 0;
}
