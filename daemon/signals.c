/*
 * signals.c: gpuqd's signals, the same in every mode: they only set flags
 * that the loop reads between steps (a handler does nothing else, so no
 * step is ever cut in half). SIGTERM and SIGINT ask to stop; SIGHUP asks to
 * reload where a mode has something to reload, and is ignored otherwise;
 * SIGPIPE is ignored (a closed connection is an error return, not a death).
 */
#include <signal.h>
#include <string.h>

#include "daemon.h"

volatile sig_atomic_t gqd_stop_requested, gqd_reload_requested;

static void on_stop(int sig)
{
    (void)sig;
    gqd_stop_requested = 1;
}

static void on_hup(int sig)
{
    (void)sig;
    gqd_reload_requested = 1;
}

void gqd_signals(bool reload)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = reload ? on_hup : SIG_IGN;
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}
