/*
 * fuzz_config.c: the small parsers of settings: sizes (yi_num_parse,
 * then ying_format_bytes on the result), dump signals (ying_signal_parse,
 * then ying_signal_name), sample indexes (ying_sample_index_parse), the
 * endpoint's token check (yi_http_check_opts) and the runner's YING_REPORT_*
 * variables (yfe_runner_opts_from_env, src/common: the settings table the
 * agent's configuration reads them by).  Input: fields separated by '\n', in that
 * order: size, signal, sample index, token, then the values of
 * YING_REPORT_INTERVAL, _PCT, _FLOOR, _MAX_BYTES, _PORTABLE_NAMES,
 * _MAX_SETS, _TOP and YING_VERBOSE (set in the environment for the call,
 * unset after it).  The bind address is not fed: checking it resolves and
 * binds (network).
 */
#include "fuzz.h"
#include "fe_signal.h"
#include "fe.h"

static const char *const env_vars[] = {
	"YING_REPORT_INTERVAL", "YING_REPORT_PCT", "YING_REPORT_FLOOR",
	"YING_REPORT_MAX_BYTES", "YING_REPORT_PORTABLE_NAMES", "YING_REPORT_MAX_SETS",
	"YING_REPORT_TOP", "YING_VERBOSE",
};
#define NENV (sizeof(env_vars) / sizeof(env_vars[0]))
#define NFIELDS (4 + NENV)

FUZZ_TARGET(config)
{
	char *s = fuzz_str(data, size), *field[NFIELDS], *p = s;
	size_t nf = 0;
	double v;
	int sig;
	char buf[64];
	ying_sample_index idx;
	ying_runner_opts ro = YING_RUNNER_OPTS_INIT;

	while (nf < NFIELDS) {
		char *nl = strchr(p, '\n');
		field[nf++] = p;
		if (nl == NULL)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	if (nf > 0 && yi_num_parse(field[0], YI_NUM_SIZE, 0, YI_NUM_SIZE_MAX, &v, NULL, 0) == 0)
		ying_format_bytes(v, buf, sizeof(buf));
	if (nf > 1 && yfe_signal_parse(field[1], &sig, NULL, 0) == 0)
		yfe_signal_name(sig, buf, sizeof(buf));
	if (nf > 2)
		ying_sample_index_parse(&idx, field[2]);
#ifdef YING_HAVE_HTTP
	if (nf > 3) {
		ying_http_opts ho = YING_HTTP_OPTS_INIT;
		ho.token = field[3];
		yi_http_check_opts(&ho);
	}
#endif
	if (nf > 4) {
		for (size_t i = 4; i < nf; i++)
			if (setenv(env_vars[i - 4], field[i], 1) != 0)
				abort();
		char why[512];
		yfe_runner_opts_from_env(&ro, why, sizeof(why));
		for (size_t i = 0; i < NENV; i++)
			unsetenv(env_vars[i]);
	}
	yi_error_clear();
	free(s);
	return 0;
}
