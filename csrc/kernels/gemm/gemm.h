// The contraction engine: C[batch, m, n] (+)= sum_k A[batch, m, k] * B[batch, n, k] over
// strided operands of any layout, BLIS's algorithm in xarr's code. lax.dot_general, matmul,
// einsum, tensordot ... all end here (xarr/_bindings/gemm.pyx `gemm_into`).
//
// Entry point:
//
//   void gemm_run(const GemmProblem& p);
//
// A problem is four lists of dims, each dim with its extent and one BYTE stride per operand
// (a, b, c; 0 where the operand lacks that dim, or for a broadcast batch dim):
//   batch dims   in A, B and C                     (lax: the batch dimensions)
//   m dims       in A and C (stride b = 0)          (lax: lhs free dims)
//   n dims       in B and C (stride a = 0)          (lax: rhs free dims)
//   k dims       in A and B (stride c = 0)          (lax: contracting dims)
// Several dims per list are allowed (the binding coalesces what it can first): the engine
// walks them through offset tables, so no operand is ever copied or transposed whole.
// Strides may be negative, zero (broadcast) or anything a view has.
//
// Element types: A and B have dtypes `dtype_a` and `dtype_b`; the product is computed in
// `type` (a GemmType: f32, f64, c64, c128, s32, s64), which is C's dtype. Inputs are
// converted while they are packed: f16 / bf16 -> f32, s8 / u8 / s16 / u16 / u32 / pred -> s32
// (u32 and s32 share their bits: the s32 result is the u32 result modulo 2**32),
// u64 -> s64. Integers wrap (two's complement), as XLA's do. Complex products are
// (ar*br - ai*bi, ar*bi + ai*br), with no Annex G recovery of infinities.
// Where the CPU has them, s8 / u8 x s8 / u8 -> s32 and bf16 x bf16 -> f32 products of
// more than kGemmSmallMacs multiply-adds each run on k-grouped kernels instead (AMX,
// AVX512-VNNI, AVX512-BF16: GemmMicroKernel::group below), reading the operands' own
// bits. The integer sums are the same; the bf16 ones sum pairs of exact products and
// treat denormal inputs and results as zero (as TPUs do), so a denormal operand gives 0
// where the converting path gives ~1e-38, and inf x denormal gives NaN, not inf.
//
// Worked example: A f32[2,3]{1,0} = [[1,2,3],[4,5,6]], B f32[3,2]{1,0} = [[1,0],[0,1],[1,1]]
// (a plain matmul: B's k dim is its first): m = {2, (12, 0, 8)}, n = {2, (0, 4, 4)},
// k = {3, (4, 8, 0)}, C f32[2,2]{1,0} -> [[4, 5], [10, 11]]. With B stored {0,1} only B's
// strides change (n stride 12, k stride 4); the result is the same.
//
// Strategy (gemm.cpp):
//   * C's unit-stride dim decides the orientation: if C is column-major the problem is
//     transposed (A and B swap roles), so micro-kernels always store along contiguous rows.
//   * matrix-vector (n == 1 after orientation, any m, any size): a row-dot kernel (four
//     rows at a time, dot4) if A's k stride is one element, else an axpy-of-columns
//     kernel; threaded over rows, or over a batch of small items. No packing.
//   * tiny products (kGemmSmallMacs): plain loops, no packing, no allocation.
//   * small products (at most kGemmDirectMacs per batch item, or kGemmDirectL2Macs when
//     B fits in half of L2), or products of few columns
//     (1 < n <= the tile's nr) whose B fits in half of L2, when B's rows and C's rows are
//     contiguous (a small product's B of at most kGemmDirectCopyB elements is first copied
//     into rows): the micro-kernel's direct variant reads A and B in place (no packing);
//     edge tiles are packed into local panels. Threads split a batch, or one product's
//     row tiles.
//   * a small C over a long k: k cut into two fixed parts, each part's packed product on
//     its own thread, the parts added in order (no barriers; thread-count independent).
//   * a short, wide product (M within one MC block, N of many L2-sized column blocks per
//     thread: an NCHW convolution, 64 channels x 46656 pixels) or a tall, narrow one (N
//     of at most 4 NR, many row blocks: NHWC): the short operand packed once; each thread
//     packs and multiplies its own L2-sized blocks of the long one (no barriers).
//   * otherwise the five BLIS loops: jc (NC columns of B) > pc (KC of k) > pack B into
//     NR-wide micro-panels > ic (MC rows of A) > pack A into MR-tall micro-panels > jr > ir:
//     the micro-kernel multiplies an MR x KC panel of A by a KC x NR panel of B into
//     registers and adds them to C. MC / KC / NC come from the running CPU's cache sizes
//     (GemmBlocking below), each dim cut into equal blocks. Edge tiles, and tiles of a C
//     whose dims are not one stride (a convolution's output rows), go through a local
//     MR x NR tile unless their rows are evenly spaced and their columns contiguous.
//   * packing reads runs: a panel's rows contiguous in a few runs are copied run by run,
//     rows contiguous along k (in runs) are transposed 4x4 (f32) / 2x2 (f64) in registers.
//   * threads: OpenMP over the jr loop (both packs are shared and packed by all threads),
//     or, for a batch of small products, over the batch (each thread packs its own). Below
//     kGemmParallelMinFlops one thread runs. The GIL is the caller's business.
// Every ISA computes each C element as a sum over k in the same order within a KC block
// and adds the blocks in order; only the rounding of the fused multiply-add differs from
// the reference (which multiplies, then adds).
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/isa.h"

namespace xarr {

constexpr int kGemmMaxDims = 32;      // a tensor's rank limit (engine/nary.h kMaxDims)
constexpr int kGemmMaxTileRows = 32;  // a micro-kernel's mr
constexpr int kGemmMaxKc = 2048;      // KC's upper bound (gemm_blocking), in k indices

// The types a product is computed (and C stored) in.
enum GemmType : int {
  kGemmF32 = 0, kGemmF64, kGemmC64, kGemmC128, kGemmS32, kGemmS64, kGemmNumTypes
};

// The GemmType that computes a product of two dtype codes whose result is `out_dtype`, or -1.
int gemm_type_of(int out_dtype);
// Whether a product into `out_dtype` reads operands of `in_dtype` (the conversions above).
bool gemm_reads(int out_dtype, int in_dtype);

struct GemmDim {
  int64_t size = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // bytes
};

struct GemmProblem {
  int type = kGemmF32;          // GemmType: C's dtype and the arithmetic
  int dtype_a = kF32, dtype_b = kF32;
  const char* a = nullptr;
  const char* b = nullptr;
  char* c = nullptr;
  int nbatch = 0, nm = 0, nn = 0, nk = 0;
  GemmDim batch[kGemmMaxDims], m[kGemmMaxDims], n[kGemmMaxDims], k[kGemmMaxDims];
  // C += A B, C's values kept (BLAS's beta = 1; the factorizations' trailing updates
  // C -= A B pass a negated copy of the smaller operand). Float types only (f32 / f64 /
  // c64 / c128 with operands of that type); runs the packed path.
  bool accumulate = false;
};

// Throws std::invalid_argument for an unsupported (type, dtype) pair or too many dims, and
// std::bad_alloc when the packing buffers cannot be allocated. Threads: get_num_threads().
void gemm_run(const GemmProblem& p);

// ------------------------------------------------------------------ micro-kernels
// c[i * rs_c + j * cs_c] = (accumulate ? c[...] : 0) + sum_p a[p * mr + i] * b[p * nr + j]
// for i < mr, j < nr (element strides, in the kernel's type). `a` is a packed micro-panel
// of A (kc steps of mr values), `b` one of B (kc steps of nr values), both 64-byte aligned.
using GemmMicroKernelFn = void (*)(int64_t kc, const void* a, const void* b, void* c,
                                   int64_t rs_c, int64_t cs_c, bool accumulate);
// The same tile from unpacked operands (small products): A at a[i * a_rs + p * a_cs], B's
// rows contiguous at b[p * b_rs + j], C's at c[i * rs_c + j]; element strides.
using GemmDirectKernelFn = void (*)(int64_t kc, const void* a, int64_t a_rs, int64_t a_cs,
                                    const void* b, int64_t b_rs, void* c, int64_t rs_c,
                                    bool accumulate);
// Matrix-vector kernels (type T): dot(k, x, y) = sum_p x[p] * y[p] (contiguous);
// axpy(n, alpha, x, y): y[i] += alpha * x[i] (contiguous).
using GemmDotFn = void (*)(int64_t k, const void* x, const void* y, void* result);
// dot4(k, a, lda, x, result): result[r] = dot(k, a + r * lda, x) for r < 4 (lda in
// elements), four rows read together; it may round differently from dot.
using GemmDot4Fn = void (*)(int64_t k, const void* a, int64_t lda, const void* x,
                            void* result);
using GemmAxpyFn = void (*)(int64_t n, const void* alpha, const void* x, void* y);

struct GemmMicroKernel {
  GemmMicroKernelFn fn = nullptr;
  int mr = 0, nr = 0;
  const char* name = "";  // dtype, ISA and tile: "sgemm_avx2_6x16"
  GemmDirectKernelFn direct = nullptr;
  // k values per packed group (1: the panels above). A k-grouped kernel (an instruction
  // summing several products per lane: vpdpbusd, vdpbf16ps, AMX's tdp*) reads panels of
  // the OPERANDS' type with k padded with zeros to a multiple of a_group and grouped:
  //   A: a[(q * mr + i) * a_group + g]  for k index q * a_group + g
  //   B: b[(q * nr + j) * group + g]    for k index q * group + g
  // (gemm_avx512dot.cpp: a_group = group = 4 or 2; gemm_amx.cpp: A's rows in 64-byte
  // runs, a_group = 64 / itemsize, B in 32-bit words, group = 4 / itemsize). KC is then a
  // multiple of a_group.
  int group = 1, a_group = 1;
  // Called by each thread before / after its run of this kernel's calls (AMX: load and
  // release the tile configuration); nullptr: nothing to do. The k-grouped kernels store
  // only rows of C with unit column stride (cs_c == 1, as the driver always passes).
  void (*begin)() = nullptr;
  void (*end)() = nullptr;
};

struct GemmTable {
  GemmMicroKernel kernel[kGemmNumTypes];
  // Taller, one-vector-wide tiles for products with few columns (n <= nr; 4096 x 8): no
  // padded columns computed. fn == nullptr: the regular kernel serves.
  GemmMicroKernel narrow[kGemmNumTypes];
  // Flatter, wider tiles (AVX-512: 8 x 48 f32, 8 x 24 f64) taken when their rows pad less
  // of the product than the regular kernel's (gemm.cpp pick_kernel: 64 rows, an NCHW
  // convolution's output channels, run as 8 tiles of 8, not 6 of 12 with 8 rows wasted).
  // fn == nullptr: none.
  GemmMicroKernel flat[kGemmNumTypes];
  // direct_rows[type][r]: the regular kernel's direct variant for r < mr rows (nullptr:
  // such edge tiles are packed into local panels instead).
  GemmDirectKernelFn direct_rows[kGemmNumTypes][kGemmMaxTileRows] = {};
  GemmDotFn dot[kGemmNumTypes] = {};
  GemmDot4Fn dot4[kGemmNumTypes] = {};  // nullptr: rows one at a time by dot
  GemmAxpyFn axpy[kGemmNumTypes] = {};
  // k-grouped kernels (fn == nullptr where the CPU lacks the instruction): s8 / u8
  // operands into s32 (u8s8: A's bytes unsigned, B's signed; s8u8 the other way; the
  // driver shifts one operand when both have the same signedness), and bf16 operands into
  // f32. They serve the packed path; other paths convert while packing as before.
  GemmMicroKernel u8s8, s8u8, bf16;
  // AMX kernels (gemm_amx.cpp), preferred where present: int8 by [A unsigned][B unsigned]
  // (tdpbssd, tdpbsud, tdpbusd, tdpbuud: no shift), bf16 into f32.
  GemmMicroKernel amx_int8[2][2], amx_bf16;
};

XARR_DECLARE_ISA_FILLS(GemmTable, fill_gemm)
// gemm_avx512dot.cpp (AVX512-VNNI / AVX512-BF16 flags): fills u8s8 / s8u8 when `vnni`,
// bf16 when `bf16`. Weak: absent off x86-64.
__attribute__((weak)) void fill_gemm_avx512dot(GemmTable* t, bool vnni, bool bf16);
// gemm_amx.cpp (AMX flags): fills amx_int8 and amx_bf16. Weak, as above.
__attribute__((weak)) void fill_gemm_amx(GemmTable* t);
// Whether the packed path may take the AMX kernels (default true; tests and benchmarks
// turn it off to run the AVX-512 ones). Returns the previous setting.
bool gemm_set_amx(bool enabled);
// The k-grouped kernel the packed path takes for products of at least kGemmSmallMacs
// multiply-adds of dtypes da x db computed into `out_dtype` on `isa` (-1: the active
// one); fn == nullptr where they convert while packing.
GemmMicroKernel gemm_grouped_kernel(int out_dtype, int da, int db, int isa = -1);

// The table of an ISA (the active one for isa < 0); the binding reports kernel names.
const GemmTable& gemm_table(int isa = -1);

// Cache blocking for a micro-kernel: KC keeps a B micro-panel in a sixteenth of L2 (at
// most 512; 2048 / itemsize for 1- and 2-byte panels), for 4-byte and wider panels halved
// (to a multiple of 8) while the A block would be at most a quarter as tall as deep; MC an
// A block in half of L2, NC a B block in a share of L3 (each thread's).
// From the running CPU's cache sizes (sysconf), with BLIS-like defaults when the OS does
// not say.
struct GemmBlocking {
  int64_t mc, kc, nc;
};
GemmBlocking gemm_blocking(const GemmMicroKernel& k, int itemsize);

// The micro-kernel's own rate, the "peak" a whole product's rate is measured against
// (issue 12: >= 0.85 of it at 2048^3): the kernel the packed path takes for products of
// dtypes da x db into out_dtype on `isa` (-1: the active one; the k-grouped one where
// gemm_grouped_kernel names one, else the table's regular kernel) multiplying one packed
// A micro-panel by one packed B micro-panel, both of gemm_blocking's KC (L1 or L2
// resident), into a C tile in L1, over and over on the calling thread for about
// `seconds`. Returns multiply-adds per second (a complex one is four real ones); 0 when
// the ISA has no kernel for the type. Throws std::invalid_argument for an out_dtype no
// product computes.
double gemm_kernel_rate(int out_dtype, int da, int db, int isa, double seconds);

// Below this many multiply-adds a product runs on one thread.
constexpr int64_t kGemmParallelMinFlops = int64_t{1} << 18;
// Products of at most this many multiply-adds (all batch items), each of m, n, k at most
// kGemmSmallDim and m * k, n * k at most kGemmSmallPanel, that the direct path does not
// take run as plain loops over local copies of the operands.
constexpr int64_t kGemmSmallMacs = 8192;
constexpr int64_t kGemmSmallDim = 64;
constexpr int64_t kGemmSmallPanel = 1024;  // elements of m * k and of n * k
constexpr int64_t kGemmDirectMacs = int64_t{1} << 18;
constexpr int64_t kGemmDirectL2Macs = int64_t{1} << 26;  // ... when B fits in half of L2
constexpr int64_t kGemmDirectCopyB = 4096;  // elements of a small B copied to rows
// x @ A (matrix-vector with A's columns contiguous): k is cut into kGemvKParts fixed parts
// (partial results added in order) when A has at most kGemvSplitRows rows.
constexpr int kGemvKParts = 2;
// A C of at most kGemmKSplitMaxC elements over k >= kGemmKSplitMinK (64 x 4096 x 64):
// k is cut into kGemmKSplitParts fixed parts computed independently and added in order.
constexpr int kGemmKSplitParts = 2;
constexpr int64_t kGemmKSplitMaxC = 128 * 128;
constexpr int64_t kGemmKSplitMinK = 2048;
constexpr int64_t kGemvSplitRows = 16384;

}  // namespace xarr
