/*
 * layers_cxx.cc: growth of the standard containers, each in its own named
 * function, for tests/integration/layers_cxx.sh.
 *
 * Built by that test with g++ (libstdc++) and with clang++ -stdlib=libc++,
 * at -O0 (every library layer a frame of its own) and -O2 (most of them
 * inlined into the grow_* function).  `layers_cxx BASE DUMP` writes BASE
 * before the growth and DUMP after it, keeping what each grow_* function
 * made (mallctl "prof.dump", so MALLOC_CONF must hold prof:true).  Every stack that goes through grow_X must start
 * at grow_X in ying's reports: the allocator layers of the standard library
 * (allocator<T>::allocate, _M_realloc_insert, __split_buffer, _M_create,
 * __construct_node, __allocate_guarded, ...) are trimmed like operator new.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <jemalloc/jemalloc.h>

struct Session {
	long id;
	char payload[120];
};

static std::vector<Session> *sessions;
static std::vector<int> *counters;
static std::map<int, Session> *by_id;
static std::string *journal;
static std::unordered_map<long, long> *index_;
static std::vector<std::shared_ptr<Session>> *shared;
static std::vector<std::string> *names;

/* vector growth: push_back past the capacity (_M_realloc_insert or
 * _M_realloc_append; libc++'s __push_back_slow_path and __split_buffer) */
__attribute__((noinline)) void
grow_vector(int n)
{
	for (int i = 0; i < n; i++) {
		Session s;
		s.id = i;
		memset(s.payload, 'v', sizeof(s.payload));
		sessions->push_back(s);
	}
}

/* vector::resize (_M_default_append; libc++'s __append) */
__attribute__((noinline)) void
grow_resize(int n)
{
	counters->resize((size_t)n);
	asm volatile("" ::: "memory");  /* no tail call: keep this frame */
}

/* map nodes (_Rb_tree::_M_create_node / _M_get_node; __tree::__construct_node) */
__attribute__((noinline)) void
grow_map(int n)
{
	for (int i = 0; i < n; i++) {
		Session s;
		s.id = i;
		memset(s.payload, 'm', sizeof(s.payload));
		by_id->emplace(i, s);
	}
}

/* string growth (basic_string::_M_mutate / _M_create; __grow_by, __init) */
__attribute__((noinline)) void
grow_string(int n)
{
	for (int i = 0; i < n; i++)
		journal->append("a line of the session journal\n");
}

/* long strings built from a char* (basic_string::_M_construct; __init) */
__attribute__((noinline)) void
grow_names(int n)
{
	char buf[100];

	memset(buf, 'n', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	for (int i = 0; i < n; i++)
		names->emplace_back(buf);
}

/* hash table nodes and buckets (_Hashtable_alloc; __hash_table) */
__attribute__((noinline)) void
grow_unordered(int n)
{
	for (long i = 0; i < n; i++)
		(*index_)[i] = i * 2;
}

/* make_shared (allocate_shared, __allocate_guarded; __shared_ptr_emplace) */
__attribute__((noinline)) void
grow_shared(int n)
{
	for (int i = 0; i < n; i++)
		shared->push_back(std::make_shared<Session>());
}

static void
dump(const char *path)
{
	int rc = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));

	if (rc != 0) {
		fprintf(stderr, "prof.dump to %s failed: %s (is MALLOC_CONF=prof:true set?)\n",
		    path, strerror(rc));
		exit(3);
	}
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: layers_cxx BASE DUMP\n");
		return 2;
	}
	sessions = new std::vector<Session>();
	counters = new std::vector<int>();
	by_id = new std::map<int, Session>();
	journal = new std::string();
	index_ = new std::unordered_map<long, long>();
	shared = new std::vector<std::shared_ptr<Session>>();
	names = new std::vector<std::string>();
	shared->reserve(3000);
	names->reserve(3000);
	dump(argv[1]);
	grow_vector(5000);
	grow_resize(300000);
	grow_map(3000);
	grow_string(20000);
	grow_names(3000);
	grow_unordered(20000);
	grow_shared(3000);
	dump(argv[2]);
	return 0;
}
