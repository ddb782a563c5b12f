/*
 * term.h: facts about the terminal gpuq writes to, and the AGE formatter.
 */
#ifndef GQ_CLI_TERM_H
#define GQ_CLI_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes that always hold a human_duration() result, NUL included ("292471208677y"). */
#define HUMAN_DURATION_SIZE 16

/* True when fd refers to a terminal. */
bool term_is_tty(int fd);

/*
 * The width, in display columns, that table output on fd should fit: the
 * terminal's width (TIOCGWINSZ, else $COLUMNS) when fd is a terminal, and 0
 * ("do not limit") when it is not or the width is unknown, so that output read
 * by scripts is never truncated.
 */
int term_width(int fd);

/* Whether the locale's character set (LC_ALL, LC_CTYPE, LANG) is UTF-8. */
bool term_utf8(void);

/* True when mode is a value --color accepts: "auto", "always" or "never". */
bool term_color_mode_valid(const char *mode);

/*
 * Whether to write ANSI colour to fd. "always" and "never" decide alone;
 * "auto" (also NULL or any unrecognised value) means: fd is a terminal,
 * NO_COLOR is unset or empty, and TERM is not "dumb".
 */
bool term_use_color(int fd, const char *mode);

/*
 * Format an age in seconds the way kubectl's AGE column does (apimachinery
 * duration.HumanDuration): "59s", "9m59s", "179m", "7h59m", "47h", "7d23h",
 * "729d", "7y364d", "8y". -1 (clock skew) gives "0s"; anything smaller gives
 * "<invalid>". The result is truncated to size; HUMAN_DURATION_SIZE always fits.
 */
void human_duration(char *buf, size_t size, int64_t seconds);

/* Bytes that always hold int_text()'s result, NUL included. */
#define INT_TEXT_SIZE 24

/* v in decimal at buf (INT_TEXT_SIZE bytes); returns the NUL's address. */
char *int_text(char *buf, int64_t v);

#endif
