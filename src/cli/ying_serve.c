/*
 * ying_serve.c: the program ying-serve, which `ying serve` runs
 * (cmd_serve_exec.c): the command of cmd_serve.c as a program of its own,
 * linked with the live library's HTTP server.
 */
#include "cli.h"

int
main(int argc, char **argv)
{
	cli_prog = "ying serve";
	return cli_cmd_serve.main(argc, argv);
}
