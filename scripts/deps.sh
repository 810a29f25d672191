#!/bin/sh
# Install every Debian package ying needs to build, test, benchmark and demo.
# Idempotent: only missing packages are installed. Run as root on Debian 12.
set -eu
PKGS="build-essential autoconf automake libtool pkg-config
libjemalloc-dev libjemalloc2 zlib1g-dev libdw-dev libelf-dev
libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev libcurl4-openssl-dev libsqlite3-dev sqlite3
curl golang-go chromium redis-server redis-tools binutils file
perl python3 gzip procps protobuf-compiler"
# tests/integration/run_sym_shared.sh: which files the agent opens.
PKGS="$PKGS strace"
# tests/integration/agent_stop.sh: memcheck over the dump signal at exit.
PKGS="$PKGS valgrind"
# libiberty: the demanglers (C++, Rust).  Rust test programs (tests/rust,
# examples/rust, sym_rust.sh): Debian's rustc and cargo, and the vendored
# jemalloc crate (jemalloc-sys, built offline from /usr/share/cargo/registry).
PKGS="$PKGS libiberty-dev rustc cargo librust-jemalloc-sys-dev"
# scripts/fuzz.sh: clang and its runtime (libFuzzer, ASan, UBSan).
PKGS="$PKGS clang libclang-rt-14-dev"
# layers_cxx.sh: the C++ layers of libc++ (clang++ -stdlib=libc++ and its ABI
# library), beside libstdc++'s.
PKGS="$PKGS libc++-14-dev libc++abi-14-dev"
# ying callgraph -o x.svg|pdf|png, ying-jeprof --svg/--pdf/--png: Graphviz's dot.
PKGS="$PKGS graphviz"
# sym_cache.sh: strace (which files a warm run opens) and libc's separate
# debug info (the work the persistent symbol cache saves).
PKGS="$PKGS strace libc6-dbg"
# real_closefds.sh: a real server that closes every descriptor >= 3 after the
# agent is up (OpenSSH's sshd, closefrom() early in main).
PKGS="$PKGS openssh-server"
# sym_debuginfod.sh: Debian's debuginfod server (on 127.0.0.1) and the
# client library libdwfl loads when a command asks it (DEBUGINFOD_URLS);
# libdebuginfod-dev: its header and pkg-config file (ying builds without them:
# libdwfl loads the client, nothing includes debuginfod.h).
PKGS="$PKGS debuginfod libdebuginfod1 libdebuginfod-dev"
# run_postgres.sh, run_nginx.sh, run_squid.sh, run_memcached.sh: Debian's
# own servers under ying run (run_sqlite.sh uses sqlite3, above).  Their
# packages would start a daemon (nginx on port 80, squid on 3128, memcached
# on 11211, a PostgreSQL cluster on 5432): installed with services denied
# (a policy-rc.d, which invoke-rc.d and deb-systemd-invoke honour, made
# only for the install and only when the machine has none).
PKGS="$PKGS nginx squid memcached postgresql-15"
# tests/integration/page_browser.sh, bench/page.sh: the live page in
# chromium (above), driven by Playwright: node and npm, which install the
# pinned playwright-core (tests/browser/package-lock.json) into the build
# tree with npm ci (tests/integration/browser_lib.sh; no browser download).
# Debian's npm only when no npm is there (NodeSource's nodejs has its own
# and conflicts with Debian's package).
PKGS="$PKGS nodejs"
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"
if [ "${1:-}" = "--bench" ]; then
	PKGS="$PKGS clang hyperfine heaptrack time"
fi
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: missing packages:$missing (run as root to install)" >&2
		exit 1
	fi
	echo "deps.sh: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\n# deps.sh: no service starts while it installs\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		trap 'rm -f "$policy"' EXIT
	fi
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	if [ -n "$policy" ]; then
		rm -f "$policy"
		trap - EXIT
	fi
fi
# sshd's privilege separation directory (made at boot by the package's
# tmpfiles rule, which a container may never have run).
if [ ! -d /run/sshd ] && [ "$(id -u)" = 0 ]; then
	mkdir -p -m 0755 /run/sshd
fi
# jeprof is the oracle; Debian ships it in libjemalloc-dev.
command -v jeprof >/dev/null || { echo "deps.sh: jeprof not found after install" >&2; exit 1; }
