/*
 * exit.h: gpuq's exit statuses, as kubectl's: 0 success, 1 failure, 2 usage.
 * EXIT_SUCCESS and EXIT_FAILURE come from <stdlib.h>.
 */
#ifndef GQ_CLI_EXIT_H
#define GQ_CLI_EXIT_H

#include <stdlib.h>

#define EXIT_USAGE 2

/* The exit status for a library result code: GQ_OK is 0, any error 1. */
int exit_status(int code);

#endif
