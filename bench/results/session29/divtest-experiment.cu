/*
 * Session 29's check of the batched divisions (cuda-experiments.diff) on an
 * H200: each fast quotient against div.rn.f64 / div.rn.f32, bit for bit, on
 * 2^34 operand pairs per mode.  Not part of the build; kept with its result
 * (h200-kernel_bench-experiments.txt, first lines).
 *   nvcc -O2 -gencode arch=compute_90,code=sm_90 -o divtest divtest-experiment.cu
 */
#include <cstdio>
#include <cstdint>
/* the two functions as in cuda-experiments.diff (kernels/fssim_cuda_device.cuh) */
/* The same for floats: ptxas's fast path of div.rn.f32, whose own test
 * (FCHK) has no PTX form; this one is stricter, and admits only operands
 * whose quotient and every intermediate are far from the ends of float's
 * range: the dividend 0 or of exponent -95..95, the divisor of exponent
 * -95..95, the quotient's exponent -100..100. */
static __device__ __forceinline__ float div_rn_fast_f32(float a, float b, bool *slow)
{
    unsigned ab, bb;
    float r, e, q, t;

    asm("mov.b32 %0, %1;" : "=r"(ab) : "f"(a));
    asm("mov.b32 %0, %1;" : "=r"(bb) : "f"(b));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
    asm("fma.rn.f32 %0, %1, %2, 0f3F800000;" : "=f"(e) : "f"(-b), "f"(r));
    asm("fma.rn.f32 %0, %1, %2, %1;" : "=f"(r) : "f"(r), "f"(e));
    asm("fma.rn.f32 %0, %1, %2, 0f00000000;" : "=f"(q) : "f"(a), "f"(r));
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(t) : "f"(-b), "f"(q), "f"(a));
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(q) : "f"(r), "f"(t), "f"(q));
    {
        const int ea = (int)(ab >> 23 & 0xff), eb = (int)(bb >> 23 & 0xff);
        const bool b_ok = (unsigned)(eb - 32) <= 190u;
        const bool a_ok = (ab << 1) == 0 ||
                          ((unsigned)(ea - 32) <= 190u && (unsigned)(ea - eb + 100) <= 200u);
        if (!(a_ok && b_ok))
            *slow = true;
    }
    return q;
}

static __device__ __forceinline__ double div_rn_fast_f64(double a, double b, bool *slow)
{
    unsigned ah, al, bh, bl, rh, rl, qh, ql;
    double r, e, q, t;

    asm("mov.b64 {%0, %1}, %2;" : "=r"(al), "=r"(ah) : "d"(a));
    asm("mov.b64 {%0, %1}, %2;" : "=r"(bl), "=r"(bh) : "d"(b));
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(b));
    asm("mov.b64 {%0, %1}, %2;" : "=r"(rl), "=r"(rh) : "d"(r));
    asm("mov.b64 %0, {%1, %2};" : "=d"(r) : "r"(1u), "r"(rh));
    asm("fma.rn.f64 %0, %1, %2, 1.0;" : "=d"(e) : "d"(-b), "d"(r));
    asm("fma.rn.f64 %0, %1, %1, %1;" : "=d"(e) : "d"(e));
    asm("fma.rn.f64 %0, %1, %2, %1;" : "=d"(r) : "d"(r), "d"(e));
    asm("fma.rn.f64 %0, %1, %2, 1.0;" : "=d"(e) : "d"(-b), "d"(r));
    asm("fma.rn.f64 %0, %1, %2, %1;" : "=d"(r) : "d"(r), "d"(e));
    asm("mul.rn.f64 %0, %1, %2;" : "=d"(q) : "d"(a), "d"(r));
    asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(t) : "d"(-b), "d"(q), "d"(a));
    asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(q) : "d"(r), "d"(t), "d"(q));
    asm("mov.b64 {%0, %1}, %2;" : "=r"(ql), "=r"(qh) : "d"(q));
    (void)al; (void)bl; (void)rl; (void)ql;
    /* ptxas's own tests, on the high words read as floats: the dividend
     * not tiny (or NaN), the divisor's word finite, the quotient's word
     * beyond 2^-129 and not NaN */
    ah &= 0x7fffffffu; bh &= 0x7fffffffu; qh &= 0x7fffffffu;
    if (!(ah >= 0x03600000u && bh < 0x7f800000u && qh > 0x00100000u && qh <= 0x7f800000u))
        *slow = true;
    return q;
}
__device__ uint64_t mix(uint64_t x) { x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33; return x; }
__global__ void kf(uint64_t seed, int mode, unsigned long long *cnt)
{
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    unsigned long long bad = 0, slowc = 0, n = 0;
    for (int it = 0; it < 64; it++) {
        uint64_t x = mix(seed ^ (i * 64 + it) * 0x9e3779b97f4a7c15ULL);
        unsigned xa = (unsigned)x, xb = (unsigned)(x >> 32);
        float a, b;
        if (mode == 0) { a = __uint_as_float(xa); b = __uint_as_float(xb); }
        else if (mode == 1) { a = __uint_as_float((xa & 0x807fffffu) | ((127 - 40 + (xa >> 23) % 80) << 23));
                              b = __uint_as_float((xb & 0x807fffffu) | ((127 - 40 + (xb >> 23) % 80) << 23)); }
        else if (mode == 2) { a = (float)((int)(xa & 0xffffff) - 0x800000) * (float)(xb & 0xff);
                              b = (float)(xb >> 8) * 0.25f + 380.0f; if (it & 1) a = it & 2 ? 0.0f : -0.0f; }
        else { a = __uint_as_float((xa & 0x807fffffu) | ((127 - 100 + (xa >> 23) % 200) << 23));
               b = __uint_as_float((xb & 0x807fffffu) | ((127 - 100 + (xb >> 23) % 200) << 23)); }
        bool slow = false;
        float q = div_rn_fast_f32(a, b, &slow);
        float r = __fdiv_rn(a, b);
        n++;
        if (slow) slowc++;
        else if (__float_as_uint(q) != __float_as_uint(r)) bad++;
    }
    atomicAdd(&cnt[0], n); atomicAdd(&cnt[1], slowc); atomicAdd(&cnt[2], bad);
}
__global__ void k(uint64_t seed, int mode, unsigned long long *cnt)
{
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    unsigned long long bad = 0, slowc = 0, n = 0;
    for (int it = 0; it < 64; it++) {
        uint64_t x = mix(seed ^ (i * 64 + it) * 0x9e3779b97f4a7c15ULL), y = mix(x + 1);
        double a, b;
        if (mode == 0) { a = __longlong_as_double(x); b = __longlong_as_double(y); }
        else if (mode == 3) { a = (it & 1) ? 0.0 : -0.0; b = (double)(y >> 11) + 1.0; }
        else if (mode == 1) { // SSIM-like magnitudes: integers up to 2^53 products
            a = (double)(x >> 11) * ((double)(y & 0xffff) + 1.0) * ((y >> 63) ? -1.0 : 1.0);
            b = (double)(y >> 11) * ((double)(x & 0xffffff) + 1.0) + 1.0; }
        else { // exponents within +-200, random mantissas, signs
            a = __longlong_as_double((x & 0x800fffffffffffffULL) | ((uint64_t)(1023 - 200 + (x >> 52) % 400) << 52));
            b = __longlong_as_double((y & 0x800fffffffffffffULL) | ((uint64_t)(1023 - 200 + (y >> 52) % 400) << 52)); }
        bool slow = false;
        double q = div_rn_fast_f64(a, b, &slow);
        double r = __ddiv_rn(a, b);
        n++;
        if (slow) slowc++;
        else if (__double_as_longlong(q) != __double_as_longlong(r)) bad++;
    }
    atomicAdd(&cnt[0], n); atomicAdd(&cnt[1], slowc); atomicAdd(&cnt[2], bad);
}
int main()
{
    unsigned long long *c, h[3];
    cudaMalloc(&c, sizeof(h));
    for (int mode = 0; mode < 4; mode++) {
        cudaMemset(c, 0, sizeof(h));
        for (int s = 0; s < 16; s++)
            k<<<65536, 256>>>(s * 1234567ULL + mode, mode, c);
        cudaMemcpy(h, c, sizeof(h), cudaMemcpyDeviceToHost);
        printf("mode %d: %llu divisions, %llu slow, %llu fast ones differing from div.rn.f64\n", mode, h[0], h[1], h[2]);
    }
    for (int mode = 0; mode < 4; mode++) {
        cudaMemset(c, 0, sizeof(h));
        for (int s = 0; s < 16; s++)
            kf<<<65536, 256>>>(s * 7654321ULL + mode, mode, c);
        cudaMemcpy(h, c, sizeof(h), cudaMemcpyDeviceToHost);
        printf("f32 mode %d: %llu divisions, %llu slow, %llu fast ones differing from div.rn.f32\n", mode, h[0], h[1], h[2]);
    }
    return 0;
}
