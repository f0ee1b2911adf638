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
 * Every thread's stack of a hung process, where the GPU machine has no
 * debugger (tests/device/vulkan_hang.py uses gdb or eu-stack when there is
 * one).  Preloaded into ffmpeg:
 *     LD_PRELOAD=libfssim_stacks.so FSSIM_STACKS_FILE=out.txt ffmpeg ...
 * SIGUSR2 sent to the process makes the thread that takes it write its
 * stack, then send SIGUSR1 to every other thread, each of which writes its
 * own: "thread TID NAME" and the return addresses, after a copy of
 * /proc/self/maps, so that the addresses can be resolved later
 * (vulkan_hang.py runs addr2line on the unstripped ffmpeg where it can).
 * A thread blocked in a system call (a driver's ioctl, a futex) takes the
 * signal there, so its stack shows where it waits.
 *
 * This file is part of fssim's tests.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int out_fd = -1;

/* async-signal-safe formatting into buf; returns the new end */
static char *put_str(char *p, char *end, const char *s)
{
    while (*s && p < end)
        *p++ = *s++;
    return p;
}

static char *put_num(char *p, char *end, unsigned long v, int base)
{
    char tmp[32];
    int n = 0;

    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v && n < (int)sizeof(tmp));
    if (base == 16)
        p = put_str(p, end, "0x");
    while (n && p < end)
        *p++ = tmp[--n];
    return p;
}

static void dump_self(void)
{
    char buf[8192], name[64] = "?", path[64], *p, *end = buf + sizeof(buf) - 1;
    void *frames[64];
    const pid_t tid = (pid_t)syscall(SYS_gettid);
    int n, fd;

    p = put_str(path, path + sizeof(path) - 1, "/proc/self/task/");
    p = put_num(p, path + sizeof(path) - 1, (unsigned long)tid, 10);
    p = put_str(p, path + sizeof(path) - 1, "/comm");
    *p = 0;
    if ((fd = open(path, O_RDONLY)) >= 0) {
        ssize_t k = read(fd, name, sizeof(name) - 1);
        name[k > 0 ? k - 1 : 0] = 0;
        close(fd);
    }
    p = buf;
    n = backtrace(frames, 64);
    p = put_str(p, end, "thread ");
    p = put_num(p, end, (unsigned long)tid, 10);
    p = put_str(p, end, " ");
    p = put_str(p, end, name);
    p = put_str(p, end, "\n");
    for (int i = 0; i < n; i++) {
        p = put_str(p, end, "  ");
        p = put_num(p, end, (unsigned long)frames[i], 16);
        p = put_str(p, end, "\n");
    }
    write(out_fd, buf, p - buf);
}

static void on_thread(int sig)
{
    (void)sig;
    dump_self();
}

static void copy_maps(void)
{
    char buf[4096];
    ssize_t n;
    int fd = open("/proc/self/maps", O_RDONLY);

    if (fd < 0)
        return;
    write(out_fd, "maps\n", 5);
    while ((n = read(fd, buf, sizeof(buf))) > 0)
        write(out_fd, buf, n);
    write(out_fd, "end maps\n", 9);
    close(fd);
}

static void on_process(int sig)
{
    const pid_t self = (pid_t)syscall(SYS_gettid), pid = getpid();
    char dbuf[4096];
    int fd;

    (void)sig;
    copy_maps();
    dump_self();
    fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, dbuf, sizeof(dbuf));
        if (n <= 0)
            break;
        for (long off = 0; off < n;) {
            struct dirent64 *d = (struct dirent64 *)(dbuf + off);
            const pid_t tid = (pid_t)atoi(d->d_name);
            if (tid > 0 && tid != self)
                syscall(SYS_tgkill, pid, tid, SIGUSR1);
            off += d->d_reclen;
        }
    }
    close(fd);
}

__attribute__((constructor))
static void stacks_init(void)
{
    const char *path = getenv("FSSIM_STACKS_FILE");
    struct sigaction sa = { 0 };
    void *warm[2];

    if (!path || !*path)
        return;
    out_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out_fd < 0)
        return;
    /* the first backtrace() loads the unwinder: not in a signal handler */
    backtrace(warm, 2);
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_thread;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_process;
    sigaction(SIGUSR2, &sa, NULL);
}
