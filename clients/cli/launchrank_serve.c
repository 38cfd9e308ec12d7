/*
 * launchrank-serve: the HTTP daemon as its own executable. `launchrank serve` execs
 * it, so the other subcommands start without loading libmicrohttpd and its TLS
 * library chain, which they never use (issue 12: start-up). Run directly, it takes the
 * options of `launchrank serve`.
 */
#include "server.h"

int main(int argc, char **argv)
{
    /* srv_main expects the subcommand's argv, whose argv[0] is "serve" */
    char serve[] = "serve";
    argv[0] = serve;
    return srv_main(argc, argv);
}
