/*
 * sym_wrap.c: the well-known allocation wrappers of other programs and
 * libraries, by project: functions whose job is to get memory for their
 * caller (count it, abort on failure, carve it from a pool, arena or memory
 * context, copy a string or a node tree into it), so the frame a developer
 * would fix is their caller.  sym_trim.c trims them while they lead a stack
 * (never in the middle), with the frames without a symbol that they call
 * inside their own module (a static AllocSetAlloc under palloc, nginx's
 * static pool code under ngx_create_temp_buf).
 *
 * Three kinds of entries:
 *  - exact names (C functions, and C++ members written without their
 *    parameters), compared with the name up to its argument list or clone
 *    suffix: "palloc", "palloc.constprop.0", "MemPoolMalloc::allocate" for
 *    "MemPoolMalloc::allocate()";
 *  - prefixes at the start of the name (Rust's paths);
 *  - C++ qualified prefixes, which may also follow a return type, as the
 *    demangler prints function templates ("Foo* google::protobuf::Arena::
 *    CreateMaybeMessage<Foo>(google::protobuf::Arena*)").
 * A name listed here must be the project's own: a generic name a program may
 * use for something else ("alloc", "new_node") is not listed.  Keep the
 * families in sync with docs/ying.1 (ALLOCATOR FRAMES) and README.md.
 * Matching runs once per distinct function of a profile.
 */
#include <string.h>

#include "sym.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const wrap_exact[] = {
	/* redis (zmalloc.c) */
	"zmalloc", "zmalloc_usable", "zcalloc_num", "zcalloc_usable",
	"zrealloc", "zrealloc_usable", "ztrymalloc", "ztrymalloc_usable",
	"ztrycalloc", "ztrycalloc_usable", "ztryrealloc", "ztryrealloc_usable",
	"ztrymalloc_usable_internal", "ztrycalloc_usable_internal",
	"ztryrealloc_usable_internal", "zmalloc_no_tcache", "zstrdup",
	/* redis's zcalloc and zlib's (zutil.c: the default strm->zalloc) */
	"zcalloc",
	/* zlib: the stream constructors allocate the window and state */
	"deflateInit_", "deflateInit2_", "inflateInit_", "inflateInit2_",
	"inflateBackInit_",
	/* CPython (obmalloc.c, gcmodule.c) */
	"PyMem_Malloc", "PyMem_Calloc", "PyMem_Realloc",
	"PyMem_RawMalloc", "PyMem_RawCalloc", "PyMem_RawRealloc",
	"_PyMem_RawMalloc", "_PyMem_RawCalloc", "_PyMem_RawRealloc",
	"PyObject_Malloc", "PyObject_Calloc", "PyObject_Realloc",
	"_PyObject_Malloc", "_PyObject_Calloc", "_PyObject_Realloc",
	"_PyMem_DebugRawAlloc", "_PyMem_DebugRawMalloc", "_PyMem_DebugRawCalloc",
	"_PyMem_DebugRawRealloc", "_PyMem_DebugMalloc", "_PyMem_DebugCalloc",
	"_PyMem_DebugRealloc", "pymalloc_alloc",
	"_PyObject_GC_Malloc", "_PyObject_GC_Calloc", "_PyObject_GC_New",
	"_PyObject_GC_NewVar", "_PyObject_New", "_PyObject_NewVar",
	/* glib (gmem.c, gslice.c, gstrfuncs.c) */
	"g_malloc", "g_malloc0", "g_realloc", "g_malloc_n", "g_malloc0_n",
	"g_realloc_n", "g_try_malloc", "g_try_malloc0", "g_try_realloc",
	"g_try_malloc_n", "g_try_malloc0_n", "g_try_realloc_n",
	"g_aligned_alloc", "g_aligned_alloc0",
	"g_slice_alloc", "g_slice_alloc0", "g_slice_copy",
	"g_strdup", "g_strndup", "g_memdup", "g_memdup2",
	/* libxml2 (xmlmemory.c, xmlstring.c) */
	"xmlMalloc", "xmlMallocAtomic", "xmlRealloc", "xmlMemStrdup",
	"xmlMemMalloc", "xmlMemRealloc", "xmlMemoryStrdup", "xmlMallocLoc",
	"xmlMallocAtomicLoc", "xmlReallocLoc", "xmlMemStrdupLoc",
	"xmlStrdup", "xmlStrndup", "xmlCharStrdup", "xmlCharStrndup",
	/* OpenSSL (crypto/mem.c, mem_sec.c) */
	"CRYPTO_malloc", "CRYPTO_zalloc", "CRYPTO_realloc", "CRYPTO_clear_realloc",
	"CRYPTO_strdup", "CRYPTO_strndup", "CRYPTO_memdup", "CRYPTO_aligned_alloc",
	"CRYPTO_secure_malloc", "CRYPTO_secure_zalloc",
	/* xmalloc (gnulib, git, binutils, squid's compat/xalloc.cc, ...) */
	"xmalloc", "xcalloc", "xrealloc", "xzalloc", "xnmalloc", "xreallocarray",
	"xstrdup", "xstrndup", "xmemdup",
	/* SQLite (malloc.c, mem1.c, pcache1.c): the public API, the internal
	 * layers and the page cache's buffer allocator */
	"sqlite3Malloc", "sqlite3MallocZero", "sqlite3_malloc", "sqlite3_malloc64",
	"sqlite3Realloc", "sqlite3_realloc", "sqlite3_realloc64", "sqlite3MemMalloc",
	"sqlite3MemRealloc", "mallocWithAlarm", "sqlite3DbMallocRaw",
	"sqlite3DbMallocRawNN", "sqlite3DbMallocZero", "sqlite3DbRealloc",
	"sqlite3DbReallocOrFree", "dbMallocRawFinish", "dbReallocFinish",
	"sqlite3DbStrDup", "sqlite3DbStrNDup", "sqlite3DbSpanDup",
	"sqlite3PageMalloc", "pcache1Alloc",
	/* nginx (ngx_alloc.c, ngx_palloc.c, ngx_buf.c) */
	"ngx_alloc", "ngx_calloc", "ngx_memalign", "ngx_palloc", "ngx_pnalloc",
	"ngx_pcalloc", "ngx_pmemalign", "ngx_palloc_small", "ngx_palloc_large",
	"ngx_palloc_block", "ngx_create_pool", "ngx_create_temp_buf",
	"ngx_alloc_chain_link", "ngx_pstrdup",
	/* PostgreSQL (utils/mmgr: mcxt.c, aset.c, generation.c, slab.c;
	 * nodes/copyfuncs.c, list.c: copies of node trees and lists;
	 * common/fe_memutils.c for the client programs) */
	"palloc", "palloc0", "palloc_extended", "palloc_aligned", "repalloc",
	"repalloc0", "repalloc_extended", "repalloc_huge", "palloc_mul",
	"palloc0_mul", "palloc_mul_extended", "repalloc_mul", "repalloc_mul_extended",
	"pstrdup", "pnstrdup", "MemoryContextAlloc", "MemoryContextAllocZero",
	"MemoryContextAllocZeroAligned", "MemoryContextAllocExtended",
	"MemoryContextAllocHuge", "MemoryContextAllocAligned", "MemoryContextStrdup",
	"AllocSetAlloc", "AllocSetRealloc", "AllocSetAllocLarge",
	"AllocSetAllocFromNewBlock", "AllocSetAllocChunkFromBlock",
	"AllocSetContextCreateInternal", "GenerationAlloc", "GenerationRealloc",
	"GenerationAllocLarge", "GenerationAllocFromNewBlock",
	"GenerationContextCreate", "SlabAlloc", "SlabRealloc", "SlabContextCreate",
	"BumpAlloc", "BumpContextCreate",
	"copyObjectImpl", "list_copy", "list_copy_deep", "list_copy_head",
	"list_copy_tail", "lappend", "lappend_int", "lappend_oid", "lappend_xid",
	"lcons", "lcons_int", "lcons_oid", "list_make1_impl", "list_make2_impl",
	"list_make3_impl", "list_make4_impl", "list_make5_impl",
	"makeStringInfo", "initStringInfo", "enlargeStringInfo",
	"pg_malloc", "pg_malloc0", "pg_malloc_extended", "pg_realloc", "pg_strdup",
	/* squid (mem/: Pool, PoolMalloc, PoolChunked, AllocatorProxy, old_api) */
	"memAllocate", "memAllocBuf", "memReallocBuf", "memAllocString",
	"memAllocRigid", "MemPoolMalloc::allocate", "MemPoolChunked::allocate",
	"MemPoolChunked::get", "MemPoolChunked::createChunk", "MemChunk::MemChunk",
	"MemAllocator::alloc", "Mem::AllocatorProxy::alloc", "cbdataInternalAlloc",
	/* APR (memory/unix/apr_pools.c, strings/apr_strings.c) */
	"apr_palloc", "apr_pcalloc", "apr_palloc_debug", "apr_pcalloc_debug",
	"apr_pmemdup", "apr_pstrdup", "apr_pstrndup", "apr_pstrmemdup",
	"apr_allocator_alloc", "apr_pool_create_ex",
	"apr_pool_create_core_ex", "apr_pool_create_unmanaged_ex",
	"apr_bucket_alloc", "apr_bucket_alloc_create",
	/* gRPC core (gpr/alloc.cc, slice) */
	"gpr_malloc", "gpr_zalloc", "gpr_realloc", "gpr_malloc_aligned", "gpr_strdup",
	"grpc_slice_malloc", "grpc_slice_malloc_large",
	/* talloc (talloc.c) */
	"_talloc", "__talloc", "__talloc_with_prefix", "_talloc_named_const",
	"talloc_named_const", "talloc_named", "_talloc_zero", "_talloc_array",
	"_talloc_zero_array", "_talloc_realloc", "_talloc_realloc_array",
	"_talloc_memdup", "talloc_strdup", "talloc_strndup", "talloc_pool",
	"_talloc_pooled_object", "talloc_init",
	/* libevent (mm-internal.h, event.c) */
	"event_mm_malloc_", "event_mm_calloc_", "event_mm_realloc_", "event_mm_strdup_",
	/* Lua (lmem.c, lauxlib.c, lgc.c) */
	"luaM_malloc_", "luaM_realloc_", "luaM_growaux_", "luaM_saferealloc_",
	"luaM_shrinkvector_", "luaM_malloc", "luaM_realloc", "l_alloc", "luaC_newobj",
	/* Ruby (gc.c) */
	"ruby_xmalloc", "ruby_xmalloc2", "ruby_xcalloc", "ruby_xrealloc",
	"ruby_xrealloc2", "ruby_xmalloc_body", "ruby_xmalloc2_body",
	"ruby_xcalloc_body", "ruby_xrealloc_body", "ruby_xrealloc2_body",
	"objspace_xmalloc0", "objspace_xcalloc", "objspace_xrealloc",
	"rb_xmalloc_mul_add", "rb_xmalloc_mul_add_mul", "rb_xrealloc_mul_add",
	"rb_xcalloc_mul_add", "rb_xcalloc_mul_add_mul", "ruby_strdup",
	"rb_alloc_tmp_buffer", "rb_alloc_tmp_buffer_with_count", "ruby_mimmalloc",
	/* PHP (Zend/zend_alloc.c) */
	"_emalloc", "_safe_emalloc", "_ecalloc", "_erealloc", "_erealloc2",
	"_safe_erealloc", "_estrdup", "_estrndup", "_safe_malloc", "_safe_realloc",
	"__zend_malloc", "__zend_calloc", "__zend_realloc", "zend_strndup",
	"_emalloc_large", "_emalloc_huge", "zend_mm_alloc_heap", "zend_mm_alloc_small",
	"zend_mm_alloc_large", "zend_mm_alloc_huge", "zend_mm_alloc_pages",
	"zend_mm_realloc_heap", "zend_mm_realloc_huge", "zend_mm_chunk_alloc",
	"zend_mm_chunk_alloc_int",
	/* libc string duplication */
	"strdup", "strndup", "__strdup", "__strndup", "wcsdup",
};

/* Prefixes at the start of a name. */
static const char *const wrap_prefix[] = {
	/* Rust's growth paths of Vec/String, below the caller's push/reserve,
	 * and the layers `vec![x; n]` goes through before RawVec allocates */
	"alloc::raw_vec::finish_grow", "<alloc::raw_vec::RawVec<",
	"alloc::raw_vec::RawVec<", "alloc::raw_vec::RawVecInner<",
	"<alloc::raw_vec::RawVecInner<",
	"alloc::vec::from_elem", "alloc::vec::spec_from_elem::",
	/* PHP: _emalloc_8, _emalloc_16, ... (one per small bin size) */
	"_emalloc_",
};

/* C++ prefixes, at the start or after a return type. */
static const char *const wrap_cxx[] = {
	/* protobuf arenas (arena.cc, serial_arena.h, thread_safe_arena.h) */
	"google::protobuf::Arena::Allocate", "google::protobuf::Arena::Create",
	"google::protobuf::Arena::DefaultConstruct<",
	"google::protobuf::Arena::CopyConstruct<",
	"google::protobuf::internal::ArenaImpl::Allocate",
	"google::protobuf::internal::ThreadSafeArena::Allocate",
	"google::protobuf::internal::SerialArena::Allocate",
	"google::protobuf::internal::AllocateMemory(",
	/* gRPC's call arena (src/core/lib/resource_quota/arena.h) */
	"grpc_core::Arena::Alloc", "grpc_core::Arena::New<",
	"grpc_core::Arena::MakePooled<",
	/* LLVM (Support/Allocator.h, MemAlloc.h, SmallVector.cpp) */
	"llvm::BumpPtrAllocatorImpl<", "llvm::SpecificBumpPtrAllocator<",
	"llvm::safe_malloc(", "llvm::safe_calloc(", "llvm::safe_realloc(",
	"llvm::allocate_buffer(", "llvm::MallocAllocator::Allocate(",
	"llvm::SmallVectorBase<",
};

/*
 * Is `needle` the qualified name of the function `name` (after an optional
 * return type)?  True when name starts with it, or when " needle" occurs
 * before the argument list: "T* google::protobuf::Arena::Create<T>(...)".
 */
static bool
cxx_at(const char *at)
{
	size_t i;

	for (i = 0; i < NELEM(wrap_cxx); i++)
		if (wrap_cxx[i][0] == at[0] && yi_has_prefix(at, wrap_cxx[i]))
			return true;
	return false;
}

/* Any of wrap_cxx at the start of `name` or after a space before its
 * argument list (the positions are found once, not once per needle). */
static bool
cxx_match(const char *name)
{
	const char *s, *args = strchr(name, '(');

	if (cxx_at(name))
		return true;
	while (args != NULL && yi_has_prefix(args, "(anonymous namespace)"))
		args = strchr(args + 1, '(');
	for (s = strchr(name, ' '); s != NULL && (args == NULL || s < args);
	    s = strchr(s + 1, ' '))
		if (cxx_at(s + 1))
			return true;
	return false;
}

/* A class's own operator new ("mem_node::operator new(unsigned long)", what
 * squid's MEMPROXY_CLASS and LLVM's User define): its caller is the `new`. */
static bool
is_class_new(const char *name)
{
	const char *s = strstr(name, "::operator new");

	if (s == NULL)
		return false;
	s += sizeof("::operator new") - 1;
	if (s[0] == '[' && s[1] == ']')
		s += 2;
	return *s == '(' || *s == '\0';
}

bool
yi_is_wrap_family(const char *name)
{
	size_t i, len;

	if (name == NULL || name[0] == '\0')
		return false;
	for (i = 0; i < NELEM(wrap_prefix); i++)
		if (wrap_prefix[i][0] == name[0] && yi_has_prefix(name, wrap_prefix[i]))
			return true;
	if (strstr(name, "::") != NULL) {
		if (cxx_match(name))
			return true;
		if (is_class_new(name))
			return true;
	}
	len = strcspn(name, "(.");
	if (len == 0)
		return false;
	for (i = 0; i < NELEM(wrap_exact); i++)
		if (wrap_exact[i][0] == name[0] && strncmp(name, wrap_exact[i], len) == 0 &&
		    wrap_exact[i][len] == '\0')
			return true;
	return false;
}

const char *const *
yi_wrap_list(int kind, size_t *n)
{
	switch (kind) {
	case YI_WRAP_EXACT:
		*n = NELEM(wrap_exact);
		return wrap_exact;
	case YI_WRAP_PREFIX:
		*n = NELEM(wrap_prefix);
		return wrap_prefix;
	default:
		*n = NELEM(wrap_cxx);
		return wrap_cxx;
	}
}
