/*
 * Copyright (c) 2026 the fssim developers
 *
 * This file is part of fssim, built into FFmpeg.
 *
 * fssim is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * fssim is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with fssim; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
 */

/*
 * Minimal TAP producer for fssim's C unit tests (https://testanything.org).
 * One line per check; the plan is printed at the end by tap_done(), so the
 * number of checks need not be known in advance.  automake's tap-driver
 * reads the output.
 */
#ifndef FSSIM_TAP_H
#define FSSIM_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

static void tap_vline(int cond, const char *fmt, va_list ap)
{
    tap_n++;
    if (!cond)
        tap_failed++;
    printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
    vprintf(fmt, ap);
    putchar('\n');
    fflush(stdout);
}

/* One check: passes when cond is true. */
static int tap_ok(int cond, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vline(cond, fmt, ap);
    va_end(ap);
    return cond;
}

/* A diagnostic line (shown by the driver in the log). */
static void tap_diag(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void tap_diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("# ", stdout);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    fflush(stdout);
}

/* |got - want| <= tol; NaN never passes.  A failure prints both values. */
static int tap_close(double got, double want, double tol, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int tap_close(double got, double want, double tol, const char *fmt, ...)
{
    const int cond = fabs(got - want) <= tol;
    va_list ap;
    va_start(ap, fmt);
    tap_vline(cond, fmt, ap);
    va_end(ap);
    if (!cond)
        tap_diag("got %.17g, expected %.17g, diff %.3g > tolerance %.3g",
                 got, want, fabs(got - want), tol);
    return cond;
}

/* Bitwise-equal doubles (NaN == NaN of the same bits is not needed here). */
static int tap_same(double got, double want, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int tap_same(double got, double want, const char *fmt, ...)
{
    const int cond = got == want;
    va_list ap;
    va_start(ap, fmt);
    tap_vline(cond, fmt, ap);
    va_end(ap);
    if (!cond)
        tap_diag("got %.17g, expected exactly %.17g (diff %.3g)", got, want, got - want);
    return cond;
}

static void tap_bail(const char *reason)
{
    printf("Bail out! %s\n", reason);
    exit(1);
}

/* Print the plan; the exit status is 0 (the driver counts the failures). */
static int tap_done(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

#endif /* FSSIM_TAP_H */
