/*
 * test_base_out.c: buffered output over a sink (base_out.c): the membuf sink and
 * its bound, JSON/XML escaping, numbers, "name (file:line)", and that a sink
 * error is remembered and reported by yi_out_finish.
 */
#include "internal.h"
#include "tap.h"

static int
failing_sink(void *opaque, const void *data, size_t len)
{
	(void)data;
	(void)len;
	(*(int *)opaque)++;
	return yi_error(YING_EIO, "sink refused");
}

static int
sink_printf(ying_membuf *mb, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = yi_write_vprintf(ying_write_membuf, mb, fmt, ap);
	va_end(ap);
	return rc;
}

int
main(void)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	yi_out *o = malloc(sizeof(*o));
	int calls = 0;

	yi_out_init(o, ying_write_membuf, &mb);
	yi_out_json_str(o, "a\"b\\c\n\x01<\xc3\xa9\xff");
	yi_out_putc(o, ' ');
	yi_out_xml(o, "std::map<int, char*>& \"q\"");
	yi_out_putc(o, ' ');
	yi_out_json_num(o, 125520189.0);
	yi_out_putc(o, ' ');
	yi_out_json_num(o, 0.5);
	is_int(yi_out_finish(o), 0, "membuf write");
	is_str(mb.data, "\"a\\\"b\\\\c\\n\\u0001<\xc3\xa9\\ufffd\" std::map&lt;int, char*&gt;&amp; "
	    "&quot;q&quot; 125520189 0.5", "escapes");
	ying_membuf_release(&mb);
	ok(mb.data == NULL && mb.len == 0, "membuf release empties it");

	/* JSON strings follow the one UTF-8 rule (yi_utf8_len): a 4-byte
	 * character passes, an overlong form, a surrogate and a 0xf8 lead byte
	 * are each replaced byte by byte */
	yi_out_init(o, ying_write_membuf, &mb);
	yi_out_json_str(o, "\xf0\x9f\x90\x8d|\xe0\x80\xaf|\xed\xa0\x80|\xf8\x88\x80");
	is_int(yi_out_finish(o), 0, "json_str of invalid UTF-8");
	is_str(mb.data, "\"\xf0\x9f\x90\x8d|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
	    "\\ufffd\\ufffd\\ufffd\"", "overlong, surrogate and bad lead bytes become U+FFFD");
	ok(yi_utf8_len((const unsigned char *)"\xef\xbf\xbe") == 3, "U+FFFE is valid UTF-8");
	ok(yi_utf8_len((const unsigned char *)"\xf4\x90\x80\x80") == 0, "above U+10FFFF is not");
	ying_membuf_release(&mb);

	mb.max = 10;
	yi_out_init(o, ying_write_membuf, &mb);
	yi_out_puts(o, "0123456789abc");
	is_int(yi_out_finish(o), YING_ELIMIT, "membuf max enforced");
	ying_membuf_release(&mb);
	mb.max = 0;

	yi_out_init(o, ying_write_membuf, &mb);
	yi_out_where(o, "main", "/src/app/main.c", 42);
	yi_out_putc(o, '|');
	yi_out_where(o, "f", "g.c", 0);
	yi_out_putc(o, '|');
	yi_out_where(o, "h", "", 7);
	yi_out_printf(o, "|%d-%s", 12, "x");
	is_int(yi_out_finish(o), 0, "where and printf");
	is_str(mb.data, "main (main.c:42)|f (g.c)|h|12-x", "base name, line only when known");
	ying_membuf_release(&mb);

	/* printf straight into a sink, short and longer than its stack buffer */
	{
		char *long_arg = malloc(3000);
		memset(long_arg, 'y', 2999);
		long_arg[2999] = '\0';
		is_int(sink_printf(&mb, "<%d>", 7), 0, "yi_write_vprintf short");
		is_int(sink_printf(&mb, "%s|", long_arg), 0, "yi_write_vprintf long");
		ok(mb.len == 3 + 3000 && strncmp(mb.data, "<7>yyy", 6) == 0 && mb.data[3002] == '|',
		    "both written whole");
		ying_membuf_release(&mb);
		free(long_arg);
	}

	/* a large write goes through in one piece */
	{
		char *big = malloc(100000);
		memset(big, 'z', 100000);
		yi_out_init(o, ying_write_membuf, &mb);
		yi_out_write(o, big, 100000);
		is_int(yi_out_finish(o), 0, "large write");
		is_int(mb.len, 100000, "all bytes arrive");
		ok(mb.data && mb.data[99999] == 'z', "last byte");
		ying_membuf_release(&mb);
		free(big);
	}

	/* the first sink error is kept; later writes do not call the sink again */
	yi_out_init(o, failing_sink, &calls);
	yi_out_puts(o, "x");
	is_int(yi_out_finish(o), YING_EIO, "sink error reported by finish");
	has_str(ying_last_error(), "sink refused", "with the sink's detail");
	yi_out_puts(o, "more");
	is_int(yi_out_finish(o), YING_EIO, "still an error after more writes");
	is_int(calls, 1, "the failed sink is not called again");
	free(o);
	return tap_done();
}
