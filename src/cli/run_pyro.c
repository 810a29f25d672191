/*
 * run_pyro.c: the Pyroscope options of `ying run` (--pyroscope URL,
 * --service, --tag, --pyroscope-*): checked with libying's
 * ying_pyroscope_check before CMD starts, then handed to the agent as
 * YING_PYROSCOPE_* variables.  Secrets are never options: the password and
 * token files are checked here (run_secret_file, with cli_read_secret_file:
 * readable, a non-empty first line, a warning when others can read them)
 * and only their paths go into the environment.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run.h"

/* FILE's first line is a usable secret (cli_read_secret_file: readable, a
 * regular file, a non-empty first line, a warning when others can read it)?
 * Its absolute path into out[n], which is what goes into the environment;
 * the secret itself is wiped, or handed to *secret when that is not NULL
 * (the caller wipes and frees it).  0, or CLI_EXIT_ERR after saying why. */
int
run_secret_file(const char *opt, const char *file, char *out, size_t n, char **secret)
{
	char *s = cli_read_secret_file(opt, file);

	if (s == NULL)
		return CLI_EXIT_ERR;
	if (secret) {
		*secret = s;
	} else {
		memset(s, 0, strlen(s));
		free(s);
	}
	if (realpath(file, out) == NULL || strlen(out) >= n) {
		fprintf(stderr, "%s: %s %s: %s\n", cli_prog, opt, file, strerror(errno));
		if (secret) {
			memset(*secret, 0, strlen(*secret));
			free(*secret);
			*secret = NULL;
		}
		return CLI_EXIT_ERR;
	}
	return 0;
}

/* Check the options (exit 2 when one is bad) and put them into the
 * environment for the agent. */
int
run_pyro_setup(pyro_args *a, bool verbose)
{
	char pw[PATH_MAX], tk[PATH_MAX];
	int rc;

	if (a->o.url == NULL) {
		if (a->o.service || a->l.tags_len || a->o.api || a->interval || a->o.user ||
		    a->password_file || a->token_file || a->o.tenant || a->l.nheaders ||
		    a->max_samples || a->max_bytes)
			return cli_usage_error(&cli_cmd_run, "--service, --tag and "
			    "--pyroscope-* need --pyroscope URL");
		return 0;
	}
	if (a->password_file && a->o.user == NULL)
		return cli_usage_error(&cli_cmd_run, "--pyroscope-password-file needs "
		    "--pyroscope-user");
	cli_pyro_lists_apply(&a->l, &a->o);
	/* the secrets themselves stay with the agent: stand-ins for the check */
	a->o.password = a->password_file ? "x" : NULL;
	a->o.token = a->token_file ? "x" : NULL;
	if (ying_pyroscope_check(&a->o) != 0)
		return cli_usage_error(&cli_cmd_run, "--pyroscope: %s", ying_last_error());
	if (a->password_file && (rc = run_secret_file("--pyroscope-password-file",
	    a->password_file, pw, sizeof(pw), NULL)) != 0)
		return rc;
	if (a->token_file && (rc = run_secret_file("--pyroscope-token-file",
	    a->token_file, tk, sizeof(tk), NULL)) != 0)
		return rc;
	if (run_set_env("YING_PYROSCOPE_URL", a->o.url, false) != 0 ||
	    (a->o.service && run_set_env("YING_PYROSCOPE_SERVICE", a->o.service, verbose) != 0) ||
	    (a->o.tags && run_set_env("YING_PYROSCOPE_TAGS", a->o.tags, verbose) != 0) ||
	    (a->o.api && run_set_env("YING_PYROSCOPE_API", a->o.api, verbose) != 0) ||
	    (a->interval && run_set_env("YING_PYROSCOPE_INTERVAL", a->interval, verbose) != 0) ||
	    (a->max_samples && run_set_env("YING_PYROSCOPE_MAX_SAMPLES", a->max_samples,
	    verbose) != 0) ||
	    (a->max_bytes && run_set_env("YING_PYROSCOPE_MAX_BYTES", a->max_bytes, verbose) != 0) ||
	    (a->o.user && run_set_env("YING_PYROSCOPE_USER", a->o.user, verbose) != 0) ||
	    (a->password_file && run_set_env("YING_PYROSCOPE_PASSWORD_FILE", pw, verbose) != 0) ||
	    (a->token_file && run_set_env("YING_PYROSCOPE_TOKEN_FILE", tk, verbose) != 0) ||
	    (a->o.tenant && run_set_env("YING_PYROSCOPE_TENANT", a->o.tenant, verbose) != 0) ||
	    (a->l.nheaders && run_set_env("YING_PYROSCOPE_HEADERS", a->l.headers, false) != 0))
		return CLI_EXIT_ERR;
	return 0;
}
