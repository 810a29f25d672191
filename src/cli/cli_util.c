/*
 * cli_util.c: helpers shared by the subcommands: error printing, loading
 * dumps, atomic output files.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char *cli_prog = "ying";

int
cli_fail(int rc, const char *what)
{
	const char *detail = ying_last_error();

	if (detail && *detail)
		fprintf(stderr, "%s: %s: %s\n", cli_prog, what, detail);
	else
		fprintf(stderr, "%s: %s: %s\n", cli_prog, what, ying_strerror(rc));
	return CLI_EXIT_ERR;
}

int
cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", cmd ? cmd->usage : "");
	return CLI_EXIT_USAGE;
}

int
cli_help(const cli_cmd *cmd)
{
	fputs(cmd->usage, stdout);
	return CLI_EXIT_OK;
}

ying_profile *
cli_load(const char *path)
{
	ying_profile *p;
	int rc = ying_profile_read_file(&p, path);

	if (rc != 0) {
		cli_fail(rc, "cannot read profile");
		return NULL;
	}
	return p;
}

int
cli_open_output(cli_output *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (path == NULL || strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	o->path = strdup(path);
	o->tmp = malloc(strlen(path) + 32);
	if (o->path == NULL || o->tmp == NULL) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		return YING_ENOMEM;
	}
	snprintf(o->tmp, strlen(path) + 32, "%s.tmp.%ld", path, (long)getpid());
	if ((o->f = fopen(o->tmp, "wb")) == NULL) {
		fprintf(stderr, "%s: cannot write %s: %s\n", cli_prog, path, strerror(errno));
		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		return YING_EIO;
	}
	return 0;
}

int
cli_close_output(cli_output *o, int rc)
{
	if (o->f == NULL)
		return rc;
	if (o->f == stdout) {
		if (fflush(stdout) != 0 && rc == 0) {
			fprintf(stderr, "%s: write to standard output failed: %s\n", cli_prog,
			    strerror(errno));
			rc = YING_EIO;
		}
		o->f = NULL;
		return rc;
	}
	if (fclose(o->f) != 0 && rc == 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", cli_prog, o->path, strerror(errno));
		rc = YING_EIO;
	}
	if (rc == 0 && rename(o->tmp, o->path) != 0) {
		fprintf(stderr, "%s: cannot create %s: %s\n", cli_prog, o->path, strerror(errno));
		rc = YING_EIO;
	}
	if (rc != 0)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	return rc;
}

int
cli_sample_index(const cli_cmd *cmd, const char *arg, ying_sample_index *out)
{
	if (ying_sample_index_parse(arg, out) != 0)
		return cli_usage_error(cmd, "%s", ying_last_error());
	return 0;
}

int
cli_one_dump(const cli_cmd *cmd, int argc, char **argv, ying_symbolize_opts *sopts,
    const char *out_path, cli_write_fn write, const void *wopts)
{
	ying_profile *p;
	cli_output out;
	int rc;

	if (optind + 1 != argc)
		return cli_usage_error(cmd, optind == argc ? "no dump given" :
		    "one dump at a time (for two, use yingdiff BASE NOW)");
	if ((p = cli_load(argv[optind])) == NULL)
		return CLI_EXIT_ERR;
	if (sopts != NULL) {
		sopts->warnings = stderr;
		if ((rc = ying_profile_symbolize(p, NULL, sopts)) != 0) {
			ying_profile_free(p);
			return rc == YING_EINVAL ? cli_usage_error(cmd, "%s", ying_last_error()) :
			    cli_fail(rc, "cannot symbolize");
		}
	}
	if (cli_open_output(&out, out_path) != 0) {
		ying_profile_free(p);
		return CLI_EXIT_ERR;
	}
	rc = write(p, wopts, ying_write_file, out.f);
	if (rc == YING_EINVAL) {
		cli_close_output(&out, rc);
		ying_profile_free(p);
		return cli_usage_error(cmd, "%s", ying_last_error());
	}
	if (rc != 0)
		cli_fail(rc, argv[optind]);
	rc = cli_close_output(&out, rc);
	ying_profile_free(p);
	return rc ? CLI_EXIT_ERR : CLI_EXIT_OK;
}
