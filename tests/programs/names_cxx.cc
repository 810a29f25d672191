/*
 * names_cxx.cc: C++ functions whose demangled names carry parameters,
 * template arguments, a return type, a lambda, an operator and an
 * anonymous namespace, for tests/integration/names_cxx.sh (compiled there
 * with the system c++ and -ljemalloc).
 *
 * `names_cxx BASE.heap NOW.heap`: keeps, then dumps BASE, then keeps more
 * and dumps NOW (run it under MALLOC_CONF=prof:true,lg_prof_sample:0).
 * `names_cxx --hold SECONDS`: two rounds, then sleeps (for `ying run`'s
 * growth reports).
 * Every function keeps a size of its own (bytes in BASE, twice in NOW;
 * store(double) only in NOW, so BASE has one `store` and NOW two):
 * (sizes are jemalloc size classes, so bytes are exact):
 *   cache_blob(unsigned long)               100 x 1024
 *   store(int) / store(double)              100 x 1280 / 100 x 1536 (overloads)
 *   Box<Apple>::get() / Box<Pear>::get()    100 x 1792 / 100 x 2048
 *   app::Registry::remember(std::string const&)  100 x 2560
 *   Widget* make_many<Widget>(int)          100 x 3072 (a return type)
 *   run_lambda()::{lambda(int)#1}::operator()(int) const  100 x 3584
 *   (anonymous namespace)::hidden(int)      100 x 4096
 *   Sink::operator<<(int)                   100 x 5120
 */
#pragma GCC optimize("O0")

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <string>
#include <vector>

#include <jemalloc/jemalloc.h>

#define NOINLINE __attribute__((noinline))

static std::vector<void *> *kept;

static NOINLINE void
keep(void *p)
{
	kept->push_back(p);
}

NOINLINE void
cache_blob(unsigned long n)
{
	keep(new char[n]);
}

NOINLINE void
store(int)
{
	keep(new char[1280]);
}

NOINLINE void
store(double)
{
	keep(new char[1536]);
}

struct Apple { enum { SIZE = 1792 }; };
struct Pear { enum { SIZE = 2048 }; };

template <class T> struct Box {
	NOINLINE void get() { keep(new char[T::SIZE]); }
};

namespace app {
struct Registry {
	NOINLINE void remember(const std::string &) { keep(new char[2560]); }
};
}

struct Widget {
	char pad[3072];
};

template <class T> NOINLINE T *
make_many(int)
{
	T *w = new T;
	keep(w);
	return w;
}

NOINLINE void
run_lambda()
{
	auto f = [](int n) NOINLINE { keep(new char[n]); };
	f(3584);
}

namespace {
NOINLINE void
hidden(int n)
{
	keep(new char[n]);
}
}

struct Sink {
	NOINLINE Sink &operator<<(int n) { keep(new char[n]); return *this; }
};

static void
round(bool base)
{
	Box<Apple> a;
	Box<Pear> b;
	app::Registry r;
	Sink s;
	std::string key("k");

	for (int i = 0; i < 100; i++) {
		cache_blob(1024);
		store(1);
		if (!base)
			store(1.0);
		a.get();
		b.get();
		r.remember(key);
		make_many<Widget>(1);
		run_lambda();
		hidden(4096);
		s << 5120;
	}
}

static int
dump(const char *path)
{
	int rc = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));

	if (rc != 0)
		fprintf(stderr, "prof.dump to %s failed: %s\n", path, strerror(rc));
	return rc;
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: names_cxx BASE.heap NOW.heap\n");
		return 2;
	}
	kept = new std::vector<void *>();
	kept->reserve(4000);
	if (strcmp(argv[1], "--hold") == 0) {
		round(false);
		round(false);
		sleep((unsigned)atoi(argv[2]));
		return 0;
	}
	round(true);
	if (dump(argv[1]) != 0)
		return 3;
	round(false);
	return dump(argv[2]) != 0 ? 3 : 0;
}
