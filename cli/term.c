/*
 * term.c: what gpuq needs to know about the terminal it writes to. Output is
 * read either by a person at a terminal or by a script through a pipe or
 * file, and the two are treated differently: only a terminal gets colour and
 * tables fitted to its width, so scripts always see full values and no escape
 * sequences. The AGE formatter lives here too, being the other presentation
 * rule borrowed from kubectl. Each function runs a few times per command and
 * caches nothing, so a test may change the environment between calls.
 */
#include "term.h"

#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A $COLUMNS beyond this is a typo, not a terminal. */
#define TERM_MAX_WIDTH 100000

bool term_is_tty(int fd)
{
    return isatty(fd) == 1;
}

/* $COLUMNS as a positive int, or 0 when unset or not a plausible width. */
static int env_columns(void)
{
    const char *s = getenv("COLUMNS");
    char *end;
    long n;

    if (s == NULL || *s == '\0')
        return 0;
    errno = 0;
    n = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || n <= 0 || n > TERM_MAX_WIDTH)
        return 0;
    return (int)n;
}

int term_width(int fd)
{
    struct winsize ws;

    if (!term_is_tty(fd))
        return 0;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return env_columns();
}

bool term_color_mode_valid(const char *mode)
{
    return mode != NULL &&
           (strcmp(mode, "auto") == 0 || strcmp(mode, "always") == 0 || strcmp(mode, "never") == 0);
}

bool term_use_color(int fd, const char *mode)
{
    const char *env;

    if (mode != NULL && strcmp(mode, "always") == 0)
        return true;
    if (mode != NULL && strcmp(mode, "never") == 0)
        return false;
    /* no-color.org: NO_COLOR set to an empty string does not count. */
    env = getenv("NO_COLOR");
    if (env != NULL && *env != '\0')
        return false;
    env = getenv("TERM");
    if (env != NULL && strcmp(env, "dumb") == 0)
        return false;
    return term_is_tty(fd);
}

char *int_text(char *buf, int64_t v)
{
    char rev[INT_TEXT_SIZE];
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t n = 0;

    do {
        rev[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *buf++ = '-';
    while (n)
        *buf++ = rev[--n];
    *buf = '\0';
    return buf;
}

/* "<n><unit>" at buf; returns the NUL's address. */
static char *put_unit(char *buf, int64_t n, char unit)
{
    buf = int_text(buf, n);
    *buf++ = unit;
    *buf = '\0';
    return buf;
}

/* "<big><bu><small><su>", or just "<big><bu>" when small is 0 ("2m", not "2m0s"). */
static void put_pair(char *buf, int64_t big, char bu, int64_t small, char su)
{
    buf = put_unit(buf, big, bu);
    if (small != 0)
        put_unit(buf, small, su);
}

/*
 * A line-by-line port of HumanDuration in k8s.io/apimachinery
 * pkg/util/duration/duration.go, checked against the kubernetes/kubernetes
 * staging copy and its duration_test.go boundary table. Go takes a
 * nanosecond time.Duration and truncates toward zero (int(d.Seconds())), so
 * -1.5s is "0s" there; callers here pass whole seconds, which they should
 * round the same way. A year is 365 days, as upstream has it.
 */
/* Copy s into buf, cut to size (snprintf of a constant draws truncation warnings). */
static void put_text(char *buf, size_t size, const char *s)
{
    size_t n = strlen(s);

    if (size == 0)
        return;
    if (n >= size)
        n = size - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

void human_duration(char *buf, size_t size, int64_t seconds)
{
    char tmp[40]; /* room for any int64: the result is cut to size only at the end */
    int64_t minutes = seconds / 60;
    int64_t hours = seconds / 3600;
    int64_t days = hours / 24;

    if (seconds < -1)
        put_text(tmp, sizeof(tmp), "<invalid>");
    else if (seconds < 0)
        put_text(tmp, sizeof(tmp), "0s");
    else if (seconds < 60 * 2)
        put_unit(tmp, seconds, 's');
    else if (minutes < 10)
        put_pair(tmp, minutes, 'm', seconds % 60, 's');
    else if (minutes < 60 * 3)
        put_unit(tmp, minutes, 'm');
    else if (hours < 8)
        put_pair(tmp, hours, 'h', minutes % 60, 'm');
    else if (hours < 48)
        put_unit(tmp, hours, 'h');
    else if (hours < 24 * 8)
        put_pair(tmp, days, 'd', hours % 24, 'h');
    else if (hours < 24 * 365 * 2)
        put_unit(tmp, days, 'd');
    else if (hours < 24 * 365 * 8)
        put_pair(tmp, days / 365, 'y', days % 365, 'd');
    else
        put_unit(tmp, days / 365, 'y');
    put_text(buf, size, tmp);
}

bool term_utf8(void)
{
    const char *cs;
    bool utf8;

    if (!setlocale(LC_CTYPE, ""))
        return false;
    cs = nl_langinfo(CODESET);
    utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
    setlocale(LC_CTYPE, "C");
    return utf8;
}
