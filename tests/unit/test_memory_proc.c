/*
 * test_memory_proc.c: the kernel's side of the memory breakdown
 * (live_memory_proc.c) on hand-written /proc and cgroup trees under the
 * test's own temporary directory (files with and without code, [heap],
 * [stack], glibc arenas, thread stacks found by a stack pointer and by the
 * guard below them, shared memory, the kernel's mappings, cgroups v1 and
 * v2 with and without a limit and the root fallback, malformed and mangled
 * smaps), then on this very process with three threads parked on 256 KiB
 * of their stacks and a 4 MiB mmapped file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "ying-live.h"
#include "internal.h"
#include "live_memory.h"

static char root[1024];

static void
put(const char *rel, const char *text)
{
	char path[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(path, 0700);
		*s = '/';
	}
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

static const char *
at(const char *rel)
{
	static char buf[2][2048];   /* two at once: proc_root and cg_root */
	static int k;
	k = !k;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", root, rel);
	return buf[k];
}

static uint64_t
sum(const yi_mem_proc *m)
{
	return m->file_code + m->file_data + m->shmem + m->brk_heap + m->glibc_arenas +
	    m->main_stack + m->thread_stacks + m->kernel + m->anon_other;
}

#define K(x) ((uint64_t)(x) * 1024)

static const char SMAPS[] =
    "00400000-00452000 r-xp 00000000 08:01 1234                       /usr/bin/prog\n"
    "Size:                328 kB\n"
    "KernelPageSize:        4 kB\n"
    "Rss:                 100 kB\n"
    "AnonHugePages:         0 kB\n"
    "Swap:                  0 kB\n"
    "THPeligible:    0\n"
    "ProtectionKey:         0\n"
    "VmFlags: rd ex mr mw me dw\n"
    "00651000-00652000 r--p 00051000 08:01 1234                       /usr/bin/prog\n"
    "Rss:                   4 kB\n"
    "00652000-00655000 rw-p 00052000 08:01 1234                       /usr/bin/prog\n"
    "Rss:                  12 kB\n"
    "01000000-01100000 rw-p 00000000 00:00 0                          [heap]\n"
    "Rss:                1000 kB\n"
    "Swap:                  8 kB\n"
    "VmFlags: rd wr mr mw me ac sd\n"
    "7f0000000000-7f0000800000 rw-p 00000000 00:00 0 \n"
    "Rss:                2000 kB\n"
    "7f0000800000-7f0004000000 ---p 00000000 00:00 0 \n"
    "Rss:                   0 kB\n"
    "7f0004000000-7f0008000000 rw-p 00000000 00:00 0 \n"
    "Rss:                 300 kB\n"
    "7f0008000000-7f0008100000 rw-p 00000000 00:00 0 \n"
    "Rss:                   4 kB\n"
    "7f1000000000-7f1000001000 ---p 00000000 00:00 0 \n"
    "Rss:                   0 kB\n"
    "7f1000001000-7f1000801000 rw-p 00000000 00:00 0 \n"
    "Rss:                  64 kB\n"
    "7f2000000000-7f2000800000 rw-p 00000000 00:00 0 \n"
    "Rss:                  32 kB\n"
    "7f3000000000-7f3000100000 rw-p 00000000 00:00 0 \n"
    "Rss:                 500 kB\n"
    "7f3000100000-7f3000200000 rw-s 00000000 00:01 555                /dev/zero (deleted)\n"
    "Rss:                  16 kB\n"
    "7f3000200000-7f3000300000 rw-s 00000000 00:01 556                /memfd:pool (deleted)\n"
    "Rss:                  20 kB\n"
    "7f3000300000-7f3000400000 rw-s 00000000 00:00 0 \n"
    "Rss:                  24 kB\n"
    "7f4000000000-7f4000400000 r--p 00000000 08:01 777                /var/lib/data.db\n"
    "Rss:                3000 kB\n"
    "7f4000400000-7f4000500000 r--p 00000000 08:01 778                /usr/lib/locale/locale-archive\n"
    "Rss:                  40 kB\n"
    "7f4000500000-7f4000600000 rw-s 00000000 08:01 779                /home/u/cache (deleted)\n"
    "Rss:                  12 kB\n"
    "7f5000000000-7f5000100000 r-xp 00000000 08:01 888                /usr/lib/libc.so.6\n"
    "Rss:                 800 kB\n"
    "7f5000100000-7f5000110000 r--p 00100000 08:01 888                /usr/lib/libc.so.6\n"
    "Rss:                  64 kB\n"
    "7f5000200000-7f5000210000 rw-p 00000000 00:00 0                  [anon:my pool]\n"
    "Rss:                  48 kB\n"
    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                  [stack]\n"
    "Rss:                 132 kB\n"
    "7ffd00100000-7ffd00102000 r--p 00000000 00:00 0                  [vvar]\n"
    "Rss:                   0 kB\n"
    "7ffd00102000-7ffd00104000 r-xp 00000000 00:00 0                  [vdso]\n"
    "Rss:                   8 kB\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0          [vsyscall]\n"
    "Rss:                   0 kB\n";

static const char SMALL[] =
    "01000000-01100000 rw-p 00000000 00:00 0                          [heap]\n"
    "Rss:                  40 kB\n";

static void
proc_tree(int pid, const char *smaps, const char *cgroup)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "proc/%d/smaps", pid);
	put(rel, smaps);
	snprintf(rel, sizeof(rel), "proc/%d/status", pid);
	put(rel, "Name:\tprog\nVmRSS:\t    8000 kB\nThreads:\t4\n");
	if (cgroup) {
		snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
		put(rel, cgroup);
	}
	snprintf(rel, sizeof(rel), "proc/%d/task/%d/syscall", pid, pid);
	put(rel, "running\n");
}

static void
test_fixture(void)
{
	yi_mem_proc m;
	int rc;

	proc_tree(100, SMAPS, "0::/app.slice/x.service\n");
	put("proc/100/task/100/syscall",
	    "7 0x1 0x2 0x3 0x4 0x5 0x6 0x7ffd00020000 0x7f5000001234\n");
	put("proc/100/task/101/syscall",
	    "202 0x7f20007ff100 0x80 0x0 0x0 0x0 0x0 0x7f20007ff000 0x7f5000002000\n");
	put("proc/100/task/102/syscall", "running\n");
	put("proc/100/task/103/syscall", "-1 0x7f1000800000 0x7f5000003000\n");
	put("cg2/app.slice/x.service/memory.current", "123456\n");
	put("cg2/app.slice/x.service/memory.max", "max\n");
	put("cg2/app.slice/x.service/memory.stat", "anon 1000\nfile 2000\nkernel 5\n");

	rc = yi_mem_proc_read(&m, at("proc"), at("cg2"), 100, 0);
	is_int(rc, 0, "the fixture process is read");
	if (rc)
		printf("# %s\n", ying_last_error());
	is_u64(m.file_code, K(116 + 864), "file_code: the program and libc, every mapping");
	is_u64(m.file_data, K(3000 + 40 + 12), "file_data: a database, the locale, a deleted file");
	is_u64(m.shmem, K(16 + 20 + 24), "shmem: /dev/zero, memfd, shared anonymous");
	is_u64(m.brk_heap, K(1000), "brk_heap: [heap]");
	is_u64(m.glibc_arenas, K(2000 + 300), "glibc_arenas: a partly used and a full 64 MiB heap");
	is_int(m.n_glibc_arenas, 2, "... two of them");
	is_u64(m.thread_stacks, K(64 + 32), "thread_stacks: above a guard, and by a stack pointer");
	is_int(m.n_thread_stacks, 2, "... two of them");
	is_u64(m.main_stack, K(132), "main_stack: [stack] (the main thread's pointer there too)");
	is_u64(m.kernel, K(8), "kernel: [vdso], [vvar], [vsyscall]");
	is_u64(m.anon_other, K(500 + 48 + 4), "anon_other: plain, prctl-named, after an arena");
	is_u64(m.rss, K(8180), "rss is the sum of every Rss");
	is_u64(sum(&m), m.rss, "the fields sum to rss");
	is_u64(m.swap, K(8), "swap");
	is_u64(m.vmrss, K(8000), "vmrss from status");
	is_int(m.n_threads, 4, "four threads in task/");
	is_int(m.n_files, 5, "five files with resident pages");
	is_str(m.files[0].path, "/var/lib/data.db", "the largest file first");
	ok(m.files[0].rss == K(3000) && !m.files[0].code, "... 3000 kB of data");
	is_str(m.files[1].path, "/usr/lib/libc.so.6", "libc second");
	ok(m.files[1].rss == K(864) && m.files[1].code, "... 864 kB, code");
	is_str(m.files[2].path, "/usr/bin/prog", "the program third");
	ok(m.files[2].rss == K(116) && m.files[2].code, "... its data mapping with its code");
	is_str(m.files[4].path, "/home/u/cache (deleted)", "a deleted file is still a file");
	is_int(m.cg_version, 2, "cgroup v2");
	is_str(m.cg_path, "/app.slice/x.service", "... its path");
	is_u64(m.cg_usage, 123456, "... memory.current");
	is_u64(m.cg_limit, UINT64_MAX, "... memory.max \"max\": no limit");
	ok(m.cg_anon == 1000 && m.cg_file == 2000, "... memory.stat anon and file");

	/* the same without a stack pointer for 101's stack: only the guarded
	 * one is found */
	put("proc/100/task/101/syscall", "running\n");
	is_int(yi_mem_proc_read(&m, at("proc"), at("cg2"), 100, 0), 0, "without 101's pointer");
	ok(m.n_thread_stacks == 1 && m.thread_stacks == K(64) &&
	    m.anon_other == K(552 + 32), "... its stack is anon_other");
	is_u64(sum(&m), m.rss, "... the sum still holds");
	/* self_sp names it instead */
	is_int(yi_mem_proc_read(&m, at("proc"), at("cg2"), 100, 0x7f2000000010), 0,
	    "with self_sp in it");
	ok(m.n_thread_stacks == 2 && m.thread_stacks == K(96), "... it is a thread stack again");
}

/* The rarer names, and an arena's PROT_NONE rest is no guard. */
static void
test_names(void)
{
	yi_mem_proc m;

	proc_tree(110,
	    "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
	    "Rss: 100 kB\n"
	    "7f0000100000-7f0004000000 ---p 00000000 00:00 0 \n"
	    "Rss: 0 kB\n"
	    "7f0004000000-7f0004001000 ---p 00000000 00:00 0 \n"
	    "7f0004001000-7f0004100000 rw-p 00000000 00:00 0 \n"
	    "Rss: 1 kB\n"
	    "7f0008000000-7f0008100000 rw-p 00000000 00:00 0 \n"
	    "Rss: 2 kB\n"
	    "7f0008100000-7f000b000000 ---p 00000000 00:00 0 \n"
	    "7f000c000000-7f000c100000 rw-p 00000000 00:00 0 \n"
	    "Rss: 4 kB\n"
	    "7f1000000000-7f1000100000 rw-s 00000000 00:19 42   /dev/shm/pool\n"
	    "Rss: 8 kB\n"
	    "7f1000100000-7f1000300000 rw-p 00000000 00:0f 43   /anon_hugepage (deleted)\n"
	    "Rss: 16 kB\n"
	    "7f1000300000-7f1000400000 rw-s 00000000 00:0f 44   /anon_hugepage (deleted)\n"
	    "Rss: 32 kB\n"
	    "7f1000400000-7f1000500000 rw-p 00000000 00:00 0    [stack:4242]\n"
	    "Rss: 64 kB\n"
	    "7f1000500000-7f1000600000 rw-p 00000000 00:00 0    [anon: glibc: pthread stack: 7]\n"
	    "Rss: 128 kB\n"
	    "7f1000600000-7f1000700000 rw-p 00000000 00:00 0    [anon: glibc: malloc arena]\n"
	    "Rss: 256 kB\n"
	    "7f1000700000-7f1000800000 rw-p 00000000 00:00 0    [uprobes]\n"
	    "Rss: 512 kB\n"
	    "7f1000800000-7f1000900000 rw-s 00000000 00:00 0    [anon:shared]\n"
	    "Rss: 1024 kB\n"
	    "7f1000900000-7f1000a00000 rw-p 00000000 00:0e 45   anon_inode:[io_uring]\n"
	    "Rss: 2048 kB\n", NULL);
	is_int(yi_mem_proc_read(&m, at("proc"), NULL, 110, 0), 0, "rarer names: read");
	is_u64(m.glibc_arenas, K(100 + 256), "an arena with its rest, a named arena");
	is_int(m.n_glibc_arenas, 2, "... two");
	is_u64(m.thread_stacks, K(1 + 64 + 128),
	    "stacks: above a guard, [stack:TID], a glibc-named one");
	is_int(m.n_thread_stacks, 3, "... three (not the one right above an arena's rest)");
	is_u64(m.shmem, K(8 + 32 + 1024), "shmem: /dev/shm, shared hugetlb, shared named");
	is_u64(m.anon_other, K(2 + 4 + 16 + 2048),
	    "anon_other: a small aligned mapping, private hugetlb, anon_inode");
	is_u64(m.kernel, K(512), "kernel: [uprobes]");
	ok(m.n_files == 0 && m.file_data == 0, "none of them a file");
	is_u64(sum(&m), m.rss, "the fields sum to rss");
}

static void
test_cgroups(void)
{
	yi_mem_proc m;

	/* v2, the process's own path missing: the root of the mount */
	proc_tree(201, SMALL, "0::/kubepods/pod1/c1\n");
	put("cgb/memory.current", "777\n");
	put("cgb/memory.max", "1048576\n");
	is_int(yi_mem_proc_read(&m, at("proc"), at("cgb"), 201, 0), 0, "v2 fallback: read");
	ok(m.cg_version == 2 && m.cg_usage == 777 && m.cg_limit == 1048576,
	    "... the root's files, with the limit");
	ok(m.cg_anon == UINT64_MAX && m.cg_file == UINT64_MAX, "... no memory.stat: not read");
	ok(m.rss == K(40) && m.brk_heap == K(40) && m.n_files == 0, "... the small smaps");

	/* v2 at the host's root: no memory.current anywhere */
	proc_tree(202, SMALL, "0::/\n");
	put("cgc/cgroup.procs", "1\n");
	is_int(yi_mem_proc_read(&m, at("proc"), at("cgc"), 202, 0), 0, "v2 root: read");
	is_int(m.cg_version, 0, "... no cgroup numbers: version 0");

	/* v1 (a hybrid host: v1's memory controller wins over 0::) */
	proc_tree(203, SMALL, "12:cpu,cpuacct:/x\n4:memory:/docker/abc\n1:name=systemd:/y\n0::/\n");
	put("cg1/memory/docker/abc/memory.usage_in_bytes", "5000\n");
	put("cg1/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
	put("cg1/memory/docker/abc/memory.stat",
	    "cache 10\nrss 20\nmapped_file 3\ntotal_cache 30\ntotal_rss 40\n");
	is_int(yi_mem_proc_read(&m, at("proc"), at("cg1"), 203, 0), 0, "v1: read");
	ok(m.cg_version == 1 && m.cg_usage == 5000, "... version 1, usage_in_bytes");
	is_str(m.cg_path, "/docker/abc", "... the memory controller's path");
	is_u64(m.cg_limit, UINT64_MAX, "... v1's huge limit is no limit");
	ok(m.cg_anon == 40 && m.cg_file == 30, "... total_rss, total_cache");

	/* v1 with a limit, memory among other controllers, no totals */
	proc_tree(204, SMALL, "3:hugetlb,memory:/y\n");
	put("cg1/memory/y/memory.usage_in_bytes", "100\n");
	put("cg1/memory/y/memory.limit_in_bytes", "2097152\n");
	put("cg1/memory/y/memory.stat", "cache 7\nrss 8\n");
	is_int(yi_mem_proc_read(&m, at("proc"), at("cg1"), 204, 0), 0, "v1 with a limit: read");
	ok(m.cg_version == 1 && m.cg_usage == 100 && m.cg_limit == 2097152 &&
	    m.cg_anon == 8 && m.cg_file == 7, "... usage, limit, rss, cache");
	/* not "memoryx" */
	proc_tree(205, SMALL, "3:memoryx:/y\n");
	is_int(yi_mem_proc_read(&m, at("proc"), at("cg1"), 205, 0), 0, "memoryx: read");
	is_int(m.cg_version, 0, "... is not the memory controller");

	/* no cgroup file at all */
	proc_tree(206, SMALL, NULL);
	is_int(yi_mem_proc_read(&m, at("proc"), at("cg1"), 206, 0), 0, "no cgroup file: no error");
	ok(m.cg_version == 0 && m.cg_anon == UINT64_MAX, "... version 0");

	/* a malformed memory.current is an error naming it */
	proc_tree(207, SMALL, "0::/bad\n");
	put("cgd/bad/memory.current", "12abc\n");
	is_int(yi_mem_proc_read(&m, at("proc"), at("cgd"), 207, 0), YING_EPARSE,
	    "a malformed memory.current: YING_EPARSE");
	has_str(ying_last_error(), "bad/memory.current", "... naming the file");
}

static void
test_errors(void)
{
	yi_mem_proc m;
	char *s;
	size_t len = strlen(SMAPS);
	uint64_t seed = 88172645463325252ull;
	int crashes = 0, parsed = 0, bad = 0;

	is_int(yi_mem_proc_read(&m, at("proc"), at("cg1"), 999, 0), YING_ENOTFOUND,
	    "no such process: YING_ENOTFOUND");
	has_str(ying_last_error(), "999/smaps", "... naming smaps");
	is_int(yi_mem_proc_read(&m, at("proc"), NULL, 0, 0), YING_EINVAL, "pid 0: YING_EINVAL");

	proc_tree(300, "hello world\n", NULL);
	is_int(yi_mem_proc_read(&m, at("proc"), NULL, 300, 0), YING_EPARSE, "garbage: YING_EPARSE");
	has_str(ying_last_error(), "300/smaps line 1", "... naming the file and line");
	proc_tree(301, "01000000-01100000 rw-p 00000000 00:00 0  [heap]\nRss: 4 kB\n7f00-", NULL);
	is_int(yi_mem_proc_read(&m, at("proc"), NULL, 301, 0), YING_EPARSE, "truncated: YING_EPARSE");
	has_str(ying_last_error(), "line 3", "... at line 3");
	proc_tree(302, "01000000-01100000 rw-p 00000000 00:00 0  [heap]\nRss: abc kB\n", NULL);
	is_int(yi_mem_proc_read(&m, at("proc"), NULL, 302, 0), YING_EPARSE, "a bad size: YING_EPARSE");
	proc_tree(303, "Rss: 4 kB\n", NULL);
	is_int(yi_mem_proc_read(&m, at("proc"), NULL, 303, 0), YING_EPARSE,
	    "a field before any mapping: YING_EPARSE");
	/* mappings out of order: smaps read while the process changed its
	 * mappings (the kernel makes it a page at a time).  Read again, and
	 * on the last try the newer view wins (the earlier mappings it
	 * overlaps dropped or cut) */
	proc_tree(304, "02000000-02100000 rw-p 00000000 00:00 0\nRss: 8 kB\n"
	    "01000000-01100000 rw-p 00000000 00:00 0\nRss: 4 kB\n", NULL);
	ok(yi_mem_proc_read(&m, at("proc"), NULL, 304, 0) == 0 && m.rss == K(4),
	    "a torn read, a mapping below the last: the newer one counts");
	proc_tree(308, "01000000-01100000 rw-p 00000000 00:00 0\nRss: 8 kB\n"
	    "01080000-01200000 rw-p 00000000 00:00 0\nRss: 4 kB\n"
	    "03000000-03100000 rw-p 00000000 00:00 0\nRss: 1 kB\n", NULL);
	ok(yi_mem_proc_read(&m, at("proc"), NULL, 308, 0) == 0 && m.rss == K(13) &&
	    sum(&m) == m.rss, "a torn read, a mapping overlapping the last: both count, "
	    "the parts still sum to the RSS");
	proc_tree(305, "01000000-01100000 rw-p 00000000 00:00 0\n"
	    "Rss: 999999999999999999999999999 kB\n"
	    "02000000-02100000 rw-p 00000000 00:00 0\nRss: 5 kB\n", NULL);
	is_int(yi_mem_proc_read(&m, at("proc"), NULL, 305, 0), 0, "a huge size: read");
	is_u64(m.rss, UINT64_MAX, "... saturated");
	proc_tree(306, "", NULL);
	ok(yi_mem_proc_read(&m, at("proc"), NULL, 306, 0) == 0 && m.rss == 0,
	    "an empty smaps (a kernel thread): nothing");
	proc_tree(307, "1000000000000000000-1000000000000000001 rw-p 00000000 00:00 0\n", NULL);
	is_int(yi_mem_proc_read(&m, at("proc"), NULL, 307, 0), YING_EPARSE,
	    "an address beyond 64 bits: YING_EPARSE");

	/* mangled copies of the fixture: an error or a consistent answer */
	s = malloc(len + 1);
	for (int i = 0; i < 300; i++) {
		size_t n = len;
		int rc;
		memcpy(s, SMAPS, len + 1);
		for (int k = 0; k < 1 + i % 5; k++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			s[seed % len] = (char)(" -:0fk\nxps/[]Rz9"[(seed >> 20) % 16]);
		}
		if (i % 3 == 0)
			n = (size_t)((seed >> 33) % len);
		s[n] = '\0';
		proc_tree(400, s, NULL);
		rc = yi_mem_proc_read(&m, at("proc"), NULL, 400, 0);
		if (rc == 0) {
			parsed++;
			if (sum(&m) != m.rss)
				crashes++;
		} else if (rc == YING_EPARSE) {
			bad++;
		} else {
			crashes++;
		}
	}
	free(s);
	is_int(crashes, 0, "300 mangled smaps: each an EPARSE or a consistent answer");
	ok(parsed > 0 && bad > 0, "... some of each");
	printf("# mangled: %d read, %d malformed\n", parsed, bad);
}

/* ---- this process ------------------------------------------------------- */

static pthread_barrier_t started;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;

static void *
parked(void *arg)
{
	volatile char buf[256 * 1024];

	(void)arg;
	for (size_t i = 0; i < sizeof(buf); i += 512)
		buf[i] = (char)i;
	pthread_barrier_wait(&started);
	pthread_mutex_lock(&mu);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return (void *)(uintptr_t)buf[512];
}

static void
test_self(void)
{
	yi_mem_proc *m = calloc(1, sizeof(*m));
	pthread_t th[3];
	char path[1100];
	volatile char *map;
	volatile int local = 0;
	unsigned long sum_bytes = 0;
	bool found = false;
	int fd;
	size_t sz = (size_t)4 << 20;

	snprintf(path, sizeof(path), "%s/mapped.dat", root);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ok(fd >= 0 && ftruncate(fd, (off_t)sz) == 0, "a 4 MiB file");
	map = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ok(map != MAP_FAILED, "... mapped");
	if (map == MAP_FAILED)
		return;
	for (size_t i = 0; i < sz; i += 4096)
		map[i] = 1;
	msync((void *)map, sz, MS_SYNC);
	for (size_t i = 0; i < sz; i += 4096)
		sum_bytes += (unsigned char)map[i];
	ok(sum_bytes == sz / 4096, "... and read back");

	pthread_barrier_init(&started, NULL, 4);
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, parked, NULL);
	pthread_barrier_wait(&started);
	usleep(20000);      /* let them reach the condition wait */

	is_int(yi_mem_proc_read(m, "/proc", NULL, getpid(), (uintptr_t)&local), 0,
	    "this process is read");
	ok(m->rss > 0, "rss > 0");
	is_u64(sum(m), m->rss, "the fields sum to rss");
	ok(m->main_stack > 0, "main_stack > 0 (self_sp in [stack])");
	ok(m->n_threads >= 4, "at least four threads");
	ok(m->n_thread_stacks >= 3, "three thread stacks or more");
	ok(m->thread_stacks >= 3 * 256 * 1024, "... holding 3 x 256 KiB or more");
	for (unsigned i = 0; i < m->n_files; i++)
		if (strstr(m->files[i].path, "mapped.dat")) {
			found = m->files[i].rss >= sz && !m->files[i].code;
			break;
		}
	ok(found, "the mapped file among files[], 4 MiB, no code");
	ok(m->file_data >= sz, "file_data >= 4 MiB");
	ok(m->file_code > 0, "file_code > 0 (this program, libc)");
	printf("# rss %llu vmrss %llu code %llu data %llu stacks %llu (%u) main %llu "
	    "anon %llu cg v%d\n", (unsigned long long)m->rss, (unsigned long long)m->vmrss,
	    (unsigned long long)m->file_code, (unsigned long long)m->file_data,
	    (unsigned long long)m->thread_stacks, m->n_thread_stacks,
	    (unsigned long long)m->main_stack, (unsigned long long)m->anon_other,
	    m->cg_version);

	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	munmap((void *)map, sz);
	close(fd);
	free(m);
}

int
main(void)
{
	snprintf(root, sizeof(root), "%s/ying-memproc-XXXXXX", tap_tmpdir());
	if (mkdtemp(root) == NULL) {
		printf("Bail out! mkdtemp %s\n", root);
		return 1;
	}
	test_fixture();
	test_names();
	test_cgroups();
	test_errors();
	test_self();
	return tap_done();
}
