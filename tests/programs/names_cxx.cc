/*
 * names_cxx.cc: C++ functions whose demangled names carry parameters,
 * template arguments, a return type, a lambda, an operator and an
 * anonymous namespace, for tests/integration/names_cxx.sh (compiled there
 * with the system c++ and -ljemalloc).
 *
 * `names_cxx BASE.heap NOW.heap`: keeps, then dumps BASE, then keeps more
 * and dumps NOW (run it under MALLOC_CONF=prof:true,lg_prof_sample:0).
 * Every function keeps a size of its own (bytes in BASE, twice in NOW):
 *   cache_blob(unsigned long)               100 x 1000
 *   store(int) / store(double)              100 x 1100 / 100 x 1200 (overloads)
 *   Box<Apple>::get() / Box<Pear>::get()    100 x 1300 / 100 x 1400
 *   app::Registry::remember(std::string const&)  100 x 1500
 *   Widget* make_many<Widget>(int)          100 x 1600 (a return type)
 *   run_lambda()::{lambda(int)#1}::operator()(int) const  100 x 1700
 *   (anonymous namespace)::hidden(int)      100 x 1800
 *   Sink::operator<<(int)                   100 x 1900
 */
#pragma GCC optimize("O0")

#include <cstdio>
#include <cstring>
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
	keep(new char[1100]);
}

NOINLINE void
store(double)
{
	keep(new char[1200]);
}

struct Apple { enum { SIZE = 1300 }; };
struct Pear { enum { SIZE = 1400 }; };

template <class T> struct Box {
	NOINLINE void get() { keep(new char[T::SIZE]); }
};

namespace app {
struct Registry {
	NOINLINE void remember(const std::string &) { keep(new char[1500]); }
};
}

struct Widget {
	char pad[1600];
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
	f(1700);
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
round()
{
	Box<Apple> a;
	Box<Pear> b;
	app::Registry r;
	Sink s;
	std::string key("k");

	for (int i = 0; i < 100; i++) {
		cache_blob(1000);
		store(1);
		store(1.0);
		a.get();
		b.get();
		r.remember(key);
		make_many<Widget>(1);
		run_lambda();
		hidden(1800);
		s << 1900;
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
	round();
	if (dump(argv[1]) != 0)
		return 3;
	round();
	return dump(argv[2]) != 0 ? 3 : 0;
}
