// Kernels profiled by ncu for gpulens's H200 test data: memory-bound saxpy (~134 MB moved), a naive FP32 GEMM,
// a WMMA (tensor-core) bf16 GEMM and a latency-bound tiny kernel. Build: nvcc -O3 -arch=sm_90 kernels.cu -o kernels
#include <cstdio>
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void gemm_naive(int n, const float* A, const float* B, float* C) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n && c < n) {
    float acc = 0.f;
    for (int k = 0; k < n; ++k) acc += A[r * n + k] * B[k * n + c];
    C[r * n + c] = acc;
  }
}

// one warp computes one 16x16 tile of C with bf16 WMMA, fp32 accumulate
__global__ void gemm_wmma(int n, const __nv_bfloat16* A, const __nv_bfloat16* B, float* C) {
  int tile = (blockIdx.x * blockDim.x + threadIdx.x) / 32, tiles = n / 16;
  if (tile >= tiles * tiles) return;
  int tr = tile / tiles, tc = tile % tiles;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.f);
  for (int k = 0; k < n; k += 16) {
    wmma::load_matrix_sync(fa, A + tr * 16 * n + k, n);
    wmma::load_matrix_sync(fb, B + k * n + tc * 16, n);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(C + tr * 16 * n + tc * 16, fc, n, wmma::mem_row_major);
}

__global__ void tiny(float* p) { p[threadIdx.x] = p[threadIdx.x] * 2.f + 1.f; }

int main() {
  const int n = 1 << 24, g = 2048;  // saxpy: 3 × 64 MB touched (x read, y read + written) ≈ 134 MB of DRAM reads
  float *x, *y, *A, *B, *C;
  __nv_bfloat16 *Ah, *Bh;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  cudaMalloc(&A, g * g * 4); cudaMalloc(&B, g * g * 4); cudaMalloc(&C, g * g * 4);
  cudaMalloc(&Ah, g * g * 2); cudaMalloc(&Bh, g * g * 2);
  cudaMemset(x, 0, n * 4); cudaMemset(y, 0, n * 4); cudaMemset(A, 0, g * g * 4); cudaMemset(B, 0, g * g * 4);
  cudaMemset(Ah, 0, g * g * 2); cudaMemset(Bh, 0, g * g * 2);
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.f, x, y);
  gemm_naive<<<dim3(g / 16, g / 16), dim3(16, 16)>>>(g, A, B, C);
  gemm_wmma<<<(g / 16) * (g / 16) * 32 / 256, 256>>>(g, Ah, Bh, C);
  tiny<<<1, 32>>>(x);
  cudaError_t e = cudaDeviceSynchronize();
  printf("done: %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
