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
 * fssim: the outputs' files.  A log must never hang the run: a FIFO is
 * opened without blocking, and a pipe whose reader stops reading is waited
 * for in poll(), which a stop signal ends; and it must never be left half
 * written: a regular file takes each record in one positioned write, cut
 * back to the record before it when that write fails (SIGXFSZ is ignored
 * meanwhile, so that a write past the size limit fails rather than ends
 * the process).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libavutil/avstring.h"
#include "libavutil/error.h"
#include "libavutil/file_open.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/thread.h"
#include "libavutil/time.h"

#include "fssim_file.h"

/* How long a FIFO is waited for its reader when the log is opened. */
#define FIFO_WAIT_US   2000000
#define FIFO_STEP_US   10000
/* How often a write waiting for a pipe's reader looks for a stop signal. */
#define STOP_CHECK_MS  50

/*
 * A signal stops the ffmpeg tool on its main thread: its handler sets a
 * flag, the main thread stops the inputs, and the filters see them end as
 * at the end of the files.  So the filters cannot tell a run stopped from
 * one that ended, and a filter thread waiting for a pipe's reader would
 * never see the signal (poll() is interrupted only on the thread that
 * takes it).  The handlers of the stop signals are chained: they note the
 * signal here, then run as before.  Only a handler is chained: a signal
 * whose default ends the process already does so, and an ignored one must
 * not stop it.  (SIGQUIT and SIGXCPU stop the tool as SIGINT does.)
 */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGQUIT, SIGXCPU };
static struct sigaction chained[FF_ARRAY_ELEMS(stop_signals)];
static volatile sig_atomic_t stop_signal;
/* when the first one came (av_gettime_relative(): clock_gettime(), which a
 * signal handler may call) */
static volatile int64_t stop_time;
static AVMutex watch_lock = AV_MUTEX_INITIALIZER;

static void on_stop_signal(int sig, siginfo_t *info, void *uc)
{
    const struct sigaction *prev = NULL;

    if (!stop_signal)
        stop_time = av_gettime_relative();
    for (int i = 0; i < FF_ARRAY_ELEMS(stop_signals); i++)
        if (stop_signals[i] == sig)
            prev = &chained[i];
    stop_signal = sig;
    if (!prev)
        return;
    if (prev->sa_flags & SA_SIGINFO)
        prev->sa_sigaction(sig, info, uc);
    else
        prev->sa_handler(sig);
}

void ff_fssim_file_watch(void)
{
    ff_mutex_lock(&watch_lock);
    for (int i = 0; i < FF_ARRAY_ELEMS(stop_signals); i++) {
        struct sigaction cur, act;
        if (sigaction(stop_signals[i], NULL, &cur) < 0)
            continue;
        if ((cur.sa_flags & SA_SIGINFO) ? cur.sa_sigaction == on_stop_signal :
            cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN)
            continue;
        /* ours is not installed now, so it cannot read chained[i] */
        chained[i] = cur;
        act = cur;
        act.sa_sigaction = on_stop_signal;
        act.sa_flags |= SA_SIGINFO;
        sigaction(stop_signals[i], &act, NULL);
    }
    ff_mutex_unlock(&watch_lock);
}

int ff_fssim_file_stopped(void)
{
    return stop_signal;
}

/*
 * SIGXFSZ (a write past RLIMIT_FSIZE, ulimit -f) ends the process by
 * default, in the middle of whatever it writes.  While a file of the
 * outputs is open it is ignored, so that the write fails with EFBIG: a
 * regular file is then cut back to its last whole record, and the run
 * fails naming the file.  Its default comes back when the last file is
 * closed; a handler or disposition set by the program is left alone.
 */
static unsigned nb_held;
static int      xfsz_ignored;

static void hold_size_signal(FSSIMFile *f)
{
    struct sigaction cur, act;

    ff_mutex_lock(&watch_lock);
    if (!nb_held++ && !sigaction(SIGXFSZ, NULL, &cur) && !(cur.sa_flags & SA_SIGINFO) &&
        cur.sa_handler == SIG_DFL) {
        act = cur;
        act.sa_handler = SIG_IGN;
        xfsz_ignored = !sigaction(SIGXFSZ, &act, NULL);
    }
    f->held = 1;
    ff_mutex_unlock(&watch_lock);
}

static void release_size_signal(FSSIMFile *f)
{
    struct sigaction cur;

    if (!f->held)
        return;
    f->held = 0;
    ff_mutex_lock(&watch_lock);
    if (!--nb_held && xfsz_ignored) {
        if (!sigaction(SIGXFSZ, NULL, &cur) && !(cur.sa_flags & SA_SIGINFO) &&
            cur.sa_handler == SIG_IGN) {
            cur.sa_handler = SIG_DFL;
            sigaction(SIGXFSZ, &cur, NULL);
        }
        xfsz_ignored = 0;
    }
    ff_mutex_unlock(&watch_lock);
}

int64_t ff_fssim_stop_time(void)
{
    return stop_signal ? stop_time : 0;
}

static int is_null_device(const struct stat *st)
{
    struct stat null;
    return S_ISCHR(st->st_mode) && !stat("/dev/null", &null) && st->st_rdev == null.st_rdev;
}

/* Whether st is the process's stdout: another name for "-". */
static int is_stdout(const struct stat *st)
{
    struct stat out;
    return !fstat(STDOUT_FILENO, &out) && out.st_dev == st->st_dev && out.st_ino == st->st_ino;
}

static int is_fifo(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISFIFO(st.st_mode);
}

/* A FIFO without a reader refuses a non-blocking open (ENXIO): give the
 * reader a moment to come, but never wait for it for good. */
static int open_nonblocking(const char *path)
{
    int64_t waited = 0;
    int fd;

    for (;;) {
        fd = avpriv_open(path, O_WRONLY | O_CREAT | O_NONBLOCK, 0666);
        if (fd >= 0 || errno != ENXIO || !is_fifo(path) || waited >= FIFO_WAIT_US)
            return fd;
        if (!waited)
            ff_fssim_file_watch();
        if (stop_signal) {
            errno = ENXIO;
            return -1;
        }
        av_usleep(FIFO_STEP_US);
        waited += FIFO_STEP_US;
    }
}

int ff_fssim_file_open(void *log_ctx, FSSIMFile *f, const char *path, const char *what)
{
    struct stat st;
    int err;

    *f = (FSSIMFile)FSSIM_FILE_NONE;
    if (!(f->path = av_strdup(path)))
        return AVERROR(ENOMEM);
    if (!strcmp(path, "-")) {
        f->fd = STDOUT_FILENO;
    } else if ((f->fd = open_nonblocking(path)) >= 0) {
        f->own = 1;
    } else if (errno == ENXIO && is_fifo(path)) {
        av_log(log_ctx, AV_LOG_ERROR, "Could not open the %s %s for writing: no process "
               "reads this FIFO (waited %d s). Start its reader first.\n", what, path,
               FIFO_WAIT_US / 1000000);
        return AVERROR(ENXIO);
    } else {
        err = AVERROR(errno);
        av_log(log_ctx, AV_LOG_ERROR, "Could not open %s %s for writing: %s. Check that the "
               "directory exists and is writable.\n", what, path, av_err2str(err));
        return err;
    }
    if (fstat(f->fd, &st) < 0) {
        err = AVERROR(errno);
        av_log(log_ctx, AV_LOG_ERROR, "Could not open %s %s for writing: %s.\n", what, path,
               av_err2str(err));
        return err;
    }
    f->null = is_null_device(&st);
    /* /dev/stdout, /proc/self/fd/1, or stdout's file by its name: a new
     * description of it would write from its start (truncating it, or
     * over what the shell and others wrote there), so it is stdout's own */
    if (f->own && !f->null && is_stdout(&st)) {
        close(f->fd);
        f->fd  = STDOUT_FILENO;
        f->own = 0;
    }
    f->dev  = st.st_dev;
    f->ino  = st.st_ino;
    /* stdout is a stream whatever it is: another program may write it too */
    f->regular = f->own && S_ISREG(st.st_mode);
    f->whole   = !f->own && S_ISREG(st.st_mode);
    hold_size_signal(f);
    if (f->regular) {
        int flags = fcntl(f->fd, F_GETFL);
        if (flags >= 0)
            fcntl(f->fd, F_SETFL, flags & ~O_NONBLOCK);
    } else {
        /* stdout's description is shared (a terminal, the shell's pipe):
         * it stays blocking, and is written a pipe buffer at a time once
         * poll() says there is room */
        f->nonblock = f->own;
        ff_fssim_file_watch();
    }
    return 0;
}

/* Whether descriptor fd, not one of the standard three, is stdout's file
 * (dev, ino), opened by this process: a muxer writing to "-" or "pipe:"
 * holds a duplicate of stdout, one writing to /dev/stdout a description of
 * its own, both close-on-exec (FFmpeg opens every file so).  A descriptor
 * inherited from the shell (3>&1) cannot be close-on-exec: not counted. */
static int holds_stdout(int fd, const struct stat *out)
{
    struct stat st;
    const int flags = fd > STDERR_FILENO ? fcntl(fd, F_GETFD) : -1;

    return flags >= 0 && (flags & FD_CLOEXEC) && !fstat(fd, &st) &&
           st.st_dev == out->st_dev && st.st_ino == out->st_ino;
}

int ff_fssim_file_stdout_shared(const FSSIMFile *f)
{
    struct stat out;
    struct dirent *e;
    DIR *dir;
    int found = 0;

    if (f->fd != STDOUT_FILENO || f->null || fstat(STDOUT_FILENO, &out) < 0)
        return 0;
    if ((dir = opendir("/proc/self/fd"))) {
        while (!found && (e = readdir(dir)))
            /* (the directory's own descriptor is a directory's) */
            found = av_isdigit(e->d_name[0]) && holds_stdout(atoi(e->d_name), &out);
        closedir(dir);
        return found;
    }
    /* no /proc: the descriptors a process usually has */
    for (int fd = STDERR_FILENO + 1; fd < 4096 && !found; fd++)
        found = holds_stdout(fd, &out);
    return found;
}

int ff_fssim_file_claim(void *log_ctx, FSSIMFile *f, const char *what, int keep)
{
    int err;

    if (!f->regular)
        return 0;
    /* a file system without locks (ENOLCK, EINVAL) writes unchecked */
    if (flock(f->fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
        av_log(log_ctx, AV_LOG_ERROR, "Could not open the %s %s: another process is writing "
               "%s. Give each run its own log_path and stats_file.\n", what, f->path,
               f->path);
        return AVERROR(EBUSY);
    }
    if (keep) {
        f->end = lseek(f->fd, 0, SEEK_END);
        return f->end < 0 ? AVERROR(errno) : 0;
    }
    if (ftruncate(f->fd, 0) < 0) {
        err = AVERROR(errno);
        av_log(log_ctx, AV_LOG_ERROR, "Could not open %s %s for writing: %s.\n", what,
               f->path, av_err2str(err));
        return err;
    }
    f->end = 0;
    return 0;
}

int ff_fssim_file_same(const FSSIMFile *a, const FSSIMFile *b)
{
    return a->fd >= 0 && b->fd >= 0 && !a->null && a->dev == b->dev && a->ino == b->ino;
}

/* Wait until a pipe's reader makes room; a stop signal ends the wait, but
 * not a write that has room: a run stopped by a signal still closes its
 * document. */
static int wait_writable(const FSSIMFile *f)
{
    struct pollfd p = { .fd = f->fd, .events = POLLOUT };

    for (;;) {
        const int stop = stop_signal;
        const int n = poll(&p, 1, stop ? 0 : STOP_CHECK_MS);
        if (n > 0)
            return 0;       /* room, or an error that the write reports */
        if (n < 0 && errno != EINTR)
            return AVERROR(errno);
        if (stop)
            return AVERROR(EINTR);
    }
}

static int write_stream(FSSIMFile *f, const char *buf, size_t len)
{
    while (len) {
        /* a blocking description: no more than poll() promised room for
         * (a regular file always has room) */
        const size_t chunk = f->nonblock || f->whole ? len : FFMIN(len, PIPE_BUF);
        ssize_t n;
        int ret;

        if (!f->nonblock && (ret = wait_writable(f)) < 0)
            return ret;
        n = write(f->fd, buf, chunk);
        if (n < 0 && errno == EAGAIN) {
            if ((ret = wait_writable(f)) < 0)
                return ret;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;       /* a stop signal ends the wait above, not here */
        if (n < 0)
            return AVERROR(errno);
        buf += n;
        len -= n;
    }
    return 0;
}

int ff_fssim_file_write(FSSIMFile *f, int64_t pos, const char *buf, size_t len)
{
    size_t done = 0;

    if (!f->regular)
        return write_stream(f, buf, len);
    /* one write; a short one (the disk filled, the size limit) is tried
     * again for its error */
    while (done < len) {
        ssize_t n = pwrite(f->fd, buf + done, len - done, pos + done);
        int err;
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0) {
            done += n;
            continue;
        }
        err = n < 0 ? errno : ENOSPC;
        /* no part of a record stays behind */
        ff_fssim_file_cut(f, pos);
        return AVERROR(err);
    }
    f->end = pos + len;
    return 0;
}

int ff_fssim_file_cut(FSSIMFile *f, int64_t len)
{
    if (!f->regular)
        return 0;
    if (ftruncate(f->fd, len) < 0)
        return AVERROR(errno);
    f->end = len;
    return 0;
}

int ff_fssim_file_close(FSSIMFile *f)
{
    int ret = 0;

    if (f->own && f->fd >= 0 && close(f->fd) < 0)
        ret = AVERROR(errno);
    release_size_signal(f);
    f->fd = -1;
    av_freep(&f->path);
    return ret;
}
