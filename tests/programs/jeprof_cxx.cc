/*
 * jeprof_cxx.cc: a C++ program with threads for
 * tests/integration/jeprof_compat.sh, which compiles it at test time with
 * the system c++ and -ljemalloc (configure looks for no C++ compiler).
 *
 * `jeprof_cxx OUT.heap`: four std::threads each keep 64 Node objects made
 * with new (Worker::fill, 256 bytes each) and one std::vector<char> of
 * 1 MiB (Worker::buffer); the main thread keeps 100 x new char[4096]
 * (make_buffers); then the main thread dumps a jemalloc heap profile
 * ("prof.dump").  Run it under MALLOC_CONF=prof:true,lg_prof_sample:0.
 */
#pragma GCC optimize("O0")

#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include <jemalloc/jemalloc.h>

struct Node {
	char pad[256];
};

static std::vector<Node *> nodes[4];
static std::vector<char> *buffers[4];
static char *keep[100];

struct Worker {
	int id;
	__attribute__((noinline)) void fill()
	{
		for (int i = 0; i < 64; i++)
			nodes[id].push_back(new Node());
	}
	__attribute__((noinline)) void buffer()
	{
		buffers[id] = new std::vector<char>(1 << 20, 'x');
	}
	void operator()()
	{
		fill();
		buffer();
	}
};

__attribute__((noinline)) static void
make_buffers()
{
	for (int i = 0; i < 100; i++) {
		keep[i] = new char[4096];
		memset(keep[i], 1, 4096);
	}
}

int
main(int argc, char **argv)
{
	std::vector<std::thread> ts;
	const char *out = argc > 1 ? argv[1] : "jeprof_cxx.heap";

	for (int i = 0; i < 4; i++)
		nodes[i].reserve(64);
	for (int i = 0; i < 4; i++)
		ts.emplace_back(Worker{ i });
	for (auto &t : ts)
		t.join();
	make_buffers();
	if (mallctl("prof.dump", NULL, NULL, &out, sizeof(out)) != 0) {
		fprintf(stderr, "jeprof_cxx: prof.dump failed\n");
		return 1;
	}
	return 0;
}
