/*
 * test_fe_settings.c: the front ends' settings table (src/common): the
 * runner's options from YING_REPORT_* (yfe_runner_opts_from_env, which
 * was libying's ying_runner_opts_from_env), and that every row with both
 * a `ying run` flag and a variable accepts and refuses the same values
 * the same way, with the same words after the name the user wrote.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe.h"
#include "tap.h"

static void
test_env(void)
{
	ying_runner_opts o = YING_RUNNER_OPTS_INIT;
	char why[512];

	is_int(yfe_runner_opts_from_env(&o, why, sizeof(why)), 0, "no variables: defaults kept");
	ok(o.dir == NULL && o.interval == 300 && o.pct == 10 &&
	    o.floor == 20u << 20 && o.max_sets == 64 && o.top == 10, "defaults");
	setenv("YING_REPORT_DIR", "/tmp/x", 1);    /* hermetic-ok: only parsed */
	setenv("YING_REPORT_INTERVAL", "5m", 1);
	setenv("YING_REPORT_PCT", "2.5", 1);
	setenv("YING_REPORT_FLOOR", "1MiB", 1);
	setenv("YING_REPORT_PORTABLE_NAMES", "1", 1);
	setenv("YING_REPORT_MAX_SETS", "7", 1);
	setenv("YING_REPORT_MAX_BYTES", "10M", 1);
	setenv("YING_REPORT_TOP", "3", 1);
	is_int(yfe_runner_opts_from_env(&o, why, sizeof(why)), 0, "variables parsed");
	ok(o.dir && strcmp(o.dir, "/tmp/x") == 0, "YING_REPORT_DIR");    /* hermetic-ok */
	is_near(o.interval, 300, 1e-9, "YING_REPORT_INTERVAL=5m");
	is_near(o.pct, 2.5, 1e-9, "YING_REPORT_PCT");
	is_u64(o.floor, 1u << 20, "YING_REPORT_FLOOR=1MiB");
	is_int(o.portable_names, 1, "YING_REPORT_PORTABLE_NAMES");
	is_int(o.max_sets, 7, "YING_REPORT_MAX_SETS");
	is_u64(o.max_bytes, 10u << 20, "YING_REPORT_MAX_BYTES");
	is_int(o.top, 3, "YING_REPORT_TOP");
	setenv("YING_REPORT_INTERVAL", "1.5", 1);
	yfe_runner_opts_from_env(&o, why, sizeof(why));
	is_near(o.interval, 1.5, 1e-9, "fractional seconds");
	setenv("YING_REPORT_INTERVAL", "500ms", 1);
	yfe_runner_opts_from_env(&o, why, sizeof(why));
	is_near(o.interval, 0.5, 1e-9, "500ms");
	setenv("YING_REPORT_PCT", "ten", 1);
	is_int(yfe_runner_opts_from_env(&o, why, sizeof(why)), -1, "bad YING_REPORT_PCT");
	has_str(why, "YING_REPORT_PCT=ten: expected a percentage", "the error names the variable");
	setenv("YING_REPORT_PCT", "10", 1);
	setenv("YING_REPORT_FLOOR", "lots", 1);
	is_int(yfe_runner_opts_from_env(&o, why, sizeof(why)), -1, "bad YING_REPORT_FLOOR");
	setenv("YING_REPORT_FLOOR", "20MiB", 1);
	setenv("YING_REPORT_MAX_SETS", "2.5", 1);
	is_int(yfe_runner_opts_from_env(&o, why, sizeof(why)), -1,
	    "fractional YING_REPORT_MAX_SETS");
	setenv("YING_REPORT_MAX_SETS", "7", 1);
	setenv("YING_REPORT_PORTABLE_NAMES", "maybe", 1);
	is_int(yfe_runner_opts_from_env(&o, why, sizeof(why)), -1, "a bool is 1 or 0");
	has_str(why, "YING_REPORT_PORTABLE_NAMES=maybe: expected 1 or 0", "... and says so");
	const char *vars[] = { "YING_REPORT_DIR", "YING_REPORT_INTERVAL", "YING_REPORT_PCT",
		"YING_REPORT_FLOOR", "YING_REPORT_PORTABLE_NAMES", "YING_REPORT_MAX_SETS",
		"YING_REPORT_MAX_BYTES", "YING_REPORT_TOP" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

/* Each row with a flag and a variable: the same verdict, value and words. */
static void
test_agree(void)
{
	static const char *const values[] = { "0", "1", "5", "5m", "1h", "500ms", "2.5",
	    "10%", "64M", "1GiB", "20MiB", "10000", "10001", "63", "64", "-1", "1e3",
	    "0.05", " 5", "5 ", "x", "", "USR2", "SIGRTMIN+1", "yes", "off", NULL };
	size_t n, rows = 0, mismatched = 0;
	const yfe_setting *t = yfe_settings(&n);

	for (size_t i = 0; i < n; i++) {
		if (t[i].flag == NULL || t[i].var == NULL || t[i].type == YFE_BOOL)
			continue;
		rows++;
		for (size_t k = 0; values[k]; k++) {
			char wf[512], wv[512];
			double vf = -7, vv = -7;
			int rf = yfe_setting_check(&t[i], true, values[k], &vf, wf, sizeof(wf));
			int rv = yfe_setting_check(&t[i], false, values[k], &vv, wv, sizeof(wv));
			const char *af = strchr(wf, ':'), *av = strchr(wv, ':');
			/* the words after "--flag VALUE" and "VAR=VALUE" */
			if (rf != rv || (rf == 0 && vf != vv) ||
			    (rf != 0 && (!af || !av || strcmp(af, av) != 0))) {
				printf("# %s / %s '%s': %d %g '%s' vs %d %g '%s'\n", t[i].flag,
				    t[i].var, values[k], rf, vf, rf ? wf : "", rv, vv,
				    rv ? wv : "");
				mismatched++;
			}
		}
	}
	ok(rows >= 8, "rows with a flag and a variable");
	is_int((int)mismatched, 0, "flag and variable agree on every value");

	const yfe_setting *iv = yfe_setting_by_flag("--interval");
	char why[512];
	double v;
	ok(iv && iv == yfe_setting_by_var("YING_REPORT_INTERVAL"),
	    "--interval and YING_REPORT_INTERVAL are one row");
	is_int(yfe_setting_check(iv, true, "5m", &v, why, sizeof(why)), 0, "--interval 5m");
	is_near(v, 300, 0, "... is 300 s");
	is_int(yfe_setting_check(iv, false, "5m", &v, why, sizeof(why)), 0,
	    "YING_REPORT_INTERVAL=5m");
	yfe_setting_check(iv, true, "5x", &v, why, sizeof(why));
	has_str(why, "--interval 5x: expected seconds", "the flag's message names the flag");
	yfe_setting_check(iv, false, "5x", &v, why, sizeof(why));
	has_str(why, "YING_REPORT_INTERVAL=5x: expected seconds", "the variable's names it");
	const yfe_setting *pi = yfe_setting_by_var("YING_PYROSCOPE_INTERVAL");
	is_int(yfe_setting_check(pi, false, "1h", &v, why, sizeof(why)), 0,
	    "YING_PYROSCOPE_INTERVAL=1h (was s/m only)");
	is_int(yfe_setting_check(pi, false, "0.05", &v, why, sizeof(why)), -1,
	    "YING_PYROSCOPE_INTERVAL below 0.1 s refused");
}

int
main(void)
{
	test_env();
	test_agree();
	return tap_done();
}
