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
 * A small CUDA emulator: runs fssim's kernels as host C++ so that their
 * tiling, borders, shared-memory passes and fixed-order reductions are
 * tested where no GPU exists.  A launch runs a block's threads as OS
 * threads meeting at a barrier for __syncthreads(), and these threads run
 * the blocks one after another, so function-static "__shared__" arrays and
 * one global dynamic shared-memory buffer behave as shared memory does.
 *
 * It proves the kernels' logic, not the device: floating-point contraction,
 * warp scheduling and the real compilers are exercised only on the GPU.
 */
#ifndef FSSIM_CUDA_EMU_H
#define FSSIM_CUDA_EMU_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#define FSSIM_CUDA_EMULATION 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

struct uint3 { unsigned x, y, z; };
typedef uint3 dim3;

static thread_local uint3 threadIdx, blockIdx;
static uint3 blockDim, gridDim;
static pthread_barrier_t emu_barrier;

alignas(16) static char emu_smem[256 * 1024];
#define FSSIM_DYNAMIC_SMEM(name) char *name = emu_smem

static inline void __syncthreads(void)
{
    pthread_barrier_wait(&emu_barrier);
}

/* A warp's shuffle (shfl.sync.bfly): the value of v in thread t ^ m, for
 * kernels whose every thread of the block calls it together. */
static double emu_shfl[1024];

static inline double fssim_emu_shfl_xor(double v, int m)
{
    const unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
    double r;

    emu_shfl[t] = v;
    __syncthreads();
    r = emu_shfl[t ^ m];
    __syncthreads();
    return r;
}

/* The threads that run launches: started once, for the largest block seen,
 * and kept for the next launch.  Starting a block's threads per launch made
 * the emulated driver spend most of its time creating threads (several times
 * over under AddressSanitizer), slow enough to miss the tool's deadlines
 * after a signal; starting them per block, before that, was slower still.
 * Launches are serialized by their callers (the driver's lock, or one test
 * thread), so one pool serves them all.  Its destructor, run at exit or when
 * the stand-in driver is unloaded, joins the threads before the code they
 * run goes away. */
class EmuPool {
public:
    ~EmuPool()
    {
        {
            std::lock_guard<std::mutex> g(m);
            quit = true;
        }
        go.notify_all();
        for (auto &th : threads)
            th.join();
    }

    /* Run job(t) for t = 0..n-1, each on its own thread; return when all
     * have returned. */
    void run(unsigned n, std::function<void(unsigned)> fn)
    {
        std::unique_lock<std::mutex> l(m);

        while (threads.size() < n) {
            const unsigned id = threads.size();
            threads.emplace_back([this, id] { work(id); });
        }
        job  = std::move(fn);
        size = n;
        left = n;
        gen++;
        go.notify_all();
        done.wait(l, [this] { return left == 0; });
    }

private:
    void work(unsigned id)
    {
        unsigned long seen = 0;
        std::unique_lock<std::mutex> l(m);

        for (;;) {
            go.wait(l, [&] { return quit || gen != seen; });
            if (quit)
                return;
            seen = gen;
            if (id >= size)
                continue;
            l.unlock();
            job(id);
            l.lock();
            if (--left == 0)
                done.notify_one();
        }
    }

    std::mutex m;
    std::condition_variable go, done;
    std::vector<std::thread> threads;
    std::function<void(unsigned)> job;
    unsigned size = 0, left = 0;
    unsigned long gen = 0;
    bool quit = false;
};

static EmuPool emu_pool;

/* Run kernel(args...) on a grid of gx x gy blocks of bx x by threads: the
 * same threads for every block, one after another. */
template <typename... Args>
static void emu_launch(void (*kernel)(Args...), unsigned gx, unsigned gy,
                       unsigned bx, unsigned by, Args... args)
{
    const unsigned n = bx * by, nb = gx * gy;

    gridDim  = { gx, gy, 1 };
    blockDim = { bx, by, 1 };
    pthread_barrier_init(&emu_barrier, NULL, n);
    emu_pool.run(n, [=](unsigned t) {
        threadIdx = { t % bx, t / bx, 0 };
        for (unsigned b = 0; b < nb; b++) {
            blockIdx = { b % gx, b / gx, 0 };
            /* poison shared memory: every value read must have been written */
            if (t == 0)
                memset(emu_smem, 0xff, sizeof(emu_smem));
            pthread_barrier_wait(&emu_barrier);
            kernel(args...);
            /* the block's threads are done with shared memory */
            pthread_barrier_wait(&emu_barrier);
        }
    });
    pthread_barrier_destroy(&emu_barrier);
}

#endif /* FSSIM_CUDA_EMU_H */
