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
 * fssim: the files the outputs write (log_path, stats_file).  A file is
 * opened without blocking (a FIFO without a reader is an error, not a
 * hang), compared with the others by identity (device and inode, so that
 * x.json, ./x.json and a link to it are one file), locked against other
 * processes, and written a whole record at a time: a regular file by one
 * positioned write, whose failure is cut back to the record before it; a
 * pipe or a device by writes that wait for the reader in poll(), which a
 * stop signal ends.  A path that names the process's stdout (/dev/stdout,
 * /proc/self/fd/1) is stdout, a stream like "-".
 *
 * This file also watches the signals that stop a run (SIGINT, SIGTERM and
 * the others the ffmpeg tool stops on), so that the outputs can tell a run
 * stopped from one whose inputs ended, and keeps SIGXFSZ from killing the
 * process while a file is open: a write past the file size limit fails
 * with EFBIG instead, which the writers cope with.
 */
#ifndef AVFILTER_FSSIM_FILE_H
#define AVFILTER_FSSIM_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct FSSIMFile {
    int      fd;          /* -1: no file */
    int      own;         /* opened here; 0: stdout ("-"), never closed */
    int      regular;     /* a regular file: positioned writes, cut back, locked */
    int      nonblock;    /* its own description is non-blocking: writes wait in poll() */
    int      whole;       /* a stream that takes a record in one write (stdout on a
                             regular file) */
    int      held;        /* counted among the open files (SIGXFSZ is held off) */
    int64_t  end;         /* regular: the end of the whole records written */
    dev_t    dev;         /* identity */
    ino_t    ino;
    int      null;        /* the null device: any number of writers */
    char    *path;        /* as given, for messages */
} FSSIMFile;

#define FSSIM_FILE_NONE { .fd = -1 }

/**
 * Watch the signals that stop a run from now on (again if a handler was
 * installed over ours since).  Signals that the process leaves at their
 * default end it anyway, and ignored ones stop nothing: only installed
 * handlers are watched, and still run.
 */
void ff_fssim_file_watch(void);

/** The stop signal the process took since it was first watched, or 0. */
int  ff_fssim_file_stopped(void);

/**
 * Open path ("-", or a name of the process's stdout: stdout) for writing, without truncating it and without
 * blocking: a FIFO is waited for a reader a short while, then refused.
 * Logs the error, naming what ("log file", "stats file") and the path.
 */
int  ff_fssim_file_open(void *log_ctx, FSSIMFile *f, const char *path, const char *what);

/**
 * Take a regular file for this process alone (an advisory lock; another
 * process writing it is an error naming the path) and, unless keep, empty
 * it.  Nothing to do for other files.
 */
int  ff_fssim_file_claim(void *log_ctx, FSSIMFile *f, const char *what, int keep);

/**
 * Whether f is stdout and another descriptor of the process writes the
 * same file (a muxer's output "-" or "pipe:", which FFmpeg opens as a
 * duplicate of stdout): the two would mix their bytes.  Stdout on the null
 * device is never shared.
 */
int  ff_fssim_file_stdout_shared(const FSSIMFile *f);

/** Whether two open files are one (the null device never is). */
int  ff_fssim_file_same(const FSSIMFile *a, const FSSIMFile *b);

/**
 * Write len bytes.  A regular file: one positioned write at pos, after
 * which f->end is pos + len; on failure the file is cut back to pos.
 * Others: in order (pos is ignored), waiting for the reader; a stop
 * signal while waiting ends the wait with AVERROR(EINTR).
 */
int  ff_fssim_file_write(FSSIMFile *f, int64_t pos, const char *buf, size_t len);

/** A regular file: cut it at len (f->end follows). */
int  ff_fssim_file_cut(FSSIMFile *f, int64_t len);

/** Close it (stdout stays open); returns the close's error. */
int  ff_fssim_file_close(FSSIMFile *f);

/** When the first stop signal came (av_gettime_relative()), or 0: a
 *  thread waiting for something (a pipe's reader, the GPU) gives up in time. */
int64_t ff_fssim_stop_time(void);

#endif /* AVFILTER_FSSIM_FILE_H */
