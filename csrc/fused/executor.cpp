#include "fused/executor.h"

#include <emmintrin.h>
#include <omp.h>
#include <xmmintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>

#include "core/dtype.h"
#include "core/threading.h"
#include "engine/nary.h"
#include "kernels/elementwise/ew_table.h"
#include "kernels/reduce/reduce.h"
#include "kernels/relayout/transpose_tiles.h"

namespace xarr {

namespace {

// Outputs of at least this many bytes in all are written with non-temporal stores: they do
// not fit the caches anyway, and streaming saves the read-for-ownership of every line.
constexpr int64_t kStreamMinBytes = int64_t{16} << 20;
// Per-thread buffer arena: temporaries, materialized constants and output staging blocks.
constexpr int64_t kArenaBytes = int64_t{512} << 10;

enum Kind : int { kVar = 0, kConst = 1, kTemp = 2, kOut = 3 };

struct Operand {
  int kind;
  int index;     // engine argument (kVar: input, kOut: output k), constant or temporary
  int itemsize;
};

struct Bound {
  const FusedProgram* p;
  std::vector<LoopFn> loops;           // one per instruction, resolved once per run
  std::vector<Operand> ops;            // 4 per instruction: operands, then destination
  int nvar = 0;                        // engine arguments: nvar inputs, then the outputs
  std::vector<const char*> consts;     // each constant's element
  std::vector<int> const_itemsize;
  std::vector<int> const_wide;         // buffer slot of a materialized constant block, or -1
  std::vector<int> temp_slot;          // buffer slot of each temporary
  std::vector<int> out_itemsize;
  std::vector<int> out_slot;           // staging slot of each output, or -1 (no streaming)
  int64_t block = kFusedBlock;         // elements per block
  int64_t slot_bytes = 0;              // bytes per buffer slot
  uint64_t run_id = 0;                 // unique per run_fused call
  std::vector<int> pieces;             // loop calls per instruction and block
  int ncalls = 0;                      // their sum
  const ReduceKernel* red = nullptr;   // run_fused_reduce: the kernel reducing output 0
  std::vector<int> in_itemsize;        // each non-constant input's
  NativeFusedFn native = nullptr;      // p.native when the run began
  bool prefetch = false;               // inputs of kPrefetchMinBytes or more
};

// A pairwise cascade of 64-byte horizontal partials (reduce.h's ReduceKernel lanes), the
// same binary counter reduce.cpp builds: a pushed item merges with the newest item of the
// same level (older op newer); fold() combines what is left from the newest to the oldest.
// An item written at slot() and marked as the tail (a partial block or chunk, always the
// last one) is not pushed but folded in first.
class Cascade {
 public:
  explicit Cascade(const ReduceKernel* k) : k_(k) {}
  char* slot() { return st_[top_].b; }
  void push() {
    lev_[top_++] = 0;
    while (top_ >= 2 && lev_[top_ - 1] == lev_[top_ - 2]) {
      k_->combine_h(st_[top_ - 2].b, st_[top_ - 1].b, k_->lanes);
      ++lev_[top_ - 2];
      --top_;
    }
  }
  void set_tail() { tail_ = true; }
  // The combined partial (the cascade must hold at least one item).
  char* fold() {
    int r = tail_ ? top_ : --top_;
    for (int i = top_ - 1; i >= 0; --i) {
      k_->combine_h(st_[i].b, st_[r].b, k_->lanes);
      r = i;
    }
    top_ = 0;
    tail_ = false;
    return st_[r].b;
  }

 private:
  struct alignas(64) Item {
    char b[64];
  };
  const ReduceKernel* k_;
  Item st_[68];
  int lev_[68];
  int top_ = 0;
  bool tail_ = false;
};

std::atomic<uint64_t> g_run_counter{0};

// run_fused_reduce: many rows shorter than this whose inputs do not walk the iteration
// space linearly are computed into a temporary and reduced by reduce_run (the per-row
// set-up of a fused evaluation would cost more than the extra memory pass).
constexpr int64_t kShortRowTemp = 64;

// Runs whose inputs span at least this many bytes over the iteration space (each input
// counted at the full iteration size, broadcast or not) prefetch block by block
// (eval_rows); smaller ones read from the caches, where the prefetch loop only costs (a
// 40000-element complex Mandelbrot step spent 14% of its time issuing prefetches).
constexpr int64_t kPrefetchMinBytes = int64_t{8} << 20;

// Loop calls an expensive instruction is cut into per block (see fused_rows).
constexpr int kExpensivePieces = 4;

// dst[0, bytes) = src[0, bytes) with non-temporal stores for the 16-byte aligned middle.
void stream_copy(char* dst, const char* src, int64_t bytes) {
  int64_t head = static_cast<int64_t>((16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15);
  if (head > bytes) head = bytes;
  std::memcpy(dst, src, static_cast<size_t>(head));
  dst += head;
  src += head;
  bytes -= head;
  int64_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i v3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), v0);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), v1);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), v2);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), v3);
  }
  for (; i + 16 <= bytes; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  std::memcpy(dst + i, src + i, static_cast<size_t>(bytes - i));
}

struct NoSink {};

// One row chunk of n elements: args[0..nvar-1] the non-constant inputs, then the outputs,
// with byte strides st. With a sink (run_fused_reduce), output 0 goes to its staging slot
// (st[nvar] is its itemsize) and (*sink)(stage, lo, m) consumes each block of values
// [lo, lo + m) of the chunk instead of storing it.
template <class Sink>
void eval_rows(const Bound& b, char* const* args, const int64_t* st, int64_t n, Sink* sink) {
  constexpr bool kSink = !std::is_same_v<Sink, NoSink>;
  const FusedProgram& p = *b.p;
  alignas(64) static thread_local char arena[kArenaBytes];
  auto slot = [&](int s) { return arena + s * b.slot_bytes; };

  const int nout = static_cast<int>(b.out_slot.size());
  // A computed block [lo, lo + m): to the sink, or its staged outputs streamed to memory.
  auto flush = [&](int64_t lo, int64_t m) {
    if constexpr (kSink) {
      (*sink)(slot(b.out_slot[0]), lo, m);
    } else {
      for (int k = 0; k < nout; ++k) {
        const int e = b.nvar + k;
        const int isz = b.out_itemsize[k];
        if (b.out_slot[k] >= 0 && st[e] == isz)
          stream_copy(args[e] + lo * isz, slot(b.out_slot[k]), m * isz);
      }
    }
  };
  // The native form runs when every non-constant input and output is contiguous along
  // the row (outputs then go to their staging slots exactly as the interpreter's do). It
  // reads the scalar constants directly and keeps values in registers, so it needs none
  // of the interpreter's block buffers, and without staged outputs it takes the whole row.
  bool native = b.native != nullptr;
  for (int a = 0; a < b.nvar && native; ++a) native = st[a] == b.in_itemsize[a];
  for (int k = 0; k < nout && native; ++k)
    native = (kSink && k == 0) || st[b.nvar + k] == b.out_itemsize[k];
  if (native) {
    bool staged = kSink;
    for (int k = 0; k < nout; ++k) staged = staged || b.out_slot[k] >= 0;
    const int64_t step = staged ? b.block : std::max<int64_t>(n, 1);
    char* np[kFusedMaxOperands];
    for (int64_t lo = 0; lo < n; lo += step) {
      const int64_t m = std::min(step, n - lo);
      for (int a = 0; a < b.nvar; ++a) np[a] = args[a] + lo * st[a];
      for (int k = 0; k < nout; ++k) {
        const int e = b.nvar + k;
        np[e] = b.out_slot[k] >= 0 ? slot(b.out_slot[k]) : args[e] + lo * st[e];
      }
      b.native(np, b.consts.data(), m);
      flush(lo, m);
    }
    if (!kSink && staged) _mm_sfence();
    return;
  }
  // Per instruction and operand: the block's pointer is base + lo * step, its stride st.
  struct Arg {
    char* base;
    int64_t step;
    int64_t st;
  };
  const int ninstr = static_cast<int>(p.code.size());
  static thread_local std::vector<Arg> argv;
  argv.resize(static_cast<size_t>(ninstr) * 4);
  const int nconst = static_cast<int>(b.consts.size());
  static thread_local uint64_t filled_run = ~uint64_t{0};
  for (int c = 0; c < nconst && filled_run != b.run_id; ++c) {  // once per thread and run
    const int s = b.const_wide[c];
    if (s < 0) continue;
    const int isz = b.const_itemsize[c];
    char* d = slot(s);
    for (int64_t i = 0; i < b.block; ++i) std::memcpy(d + i * isz, b.consts[c], isz);
  }
  filled_run = b.run_id;
  bool staged = false;
  for (int i = 0; i < ninstr; ++i) {
    const int na = p.code[i].nargs;
    for (int k = 0; k <= na; ++k) {
      const Operand& o = b.ops[i * 4 + (k == na ? 3 : k)];
      Arg& a = argv[i * 4 + k];
      switch (o.kind) {
        case kVar:
          a = {args[o.index], st[o.index], st[o.index]};
          break;
        case kConst:
          if (b.const_wide[o.index] >= 0)
            a = {slot(b.const_wide[o.index]), 0, o.itemsize};
          else
            a = {const_cast<char*>(b.consts[o.index]), 0, 0};
          break;
        case kTemp:
          a = {slot(b.temp_slot[o.index]), 0, o.itemsize};
          break;
        default: {  // output
          const int e = b.nvar + o.index;
          if (b.out_slot[o.index] >= 0 && st[e] == o.itemsize) {
            a = {slot(b.out_slot[o.index]), 0, o.itemsize};
            staged = true;
          } else {
            a = {args[e], st[e], st[e]};
          }
        }
      }
    }
  }
  // Software prefetch (into L2) of the next block's input lines, spread over the block's
  // loop calls so the memory reads overlap the computation instead of stalling the first
  // loads of each block. Expensive instructions (exp, tanh, ...) are cut into several calls
  // so their long computation overlaps several slices of prefetches.
  int pf_in[kMaxArgs];
  int npf = 0;
  for (int a = 0; a < b.nvar && b.prefetch; ++a)
    if (st[a] != 0 && st[a] >= -64 && st[a] <= 64) pf_in[npf++] = a;
  for (int64_t lo = 0; lo < n; lo += b.block) {
    const int64_t m = std::min(b.block, n - lo);
    const int64_t pf_lo = lo + m;  // the next block
    const int64_t m_next = std::min(b.block, n - pf_lo);
    int pf_a = 0;
    int64_t pf_off = 0, pf_quota = 0;
    if (npf > 0 && m_next > 0 && b.ncalls > 0) {
      int64_t lines = 0;
      for (int j = 0; j < npf; ++j) lines += (m_next * std::llabs(st[pf_in[j]]) + 63) / 64;
      pf_quota = (lines + b.ncalls - 1) / b.ncalls;
    }
    for (int i = 0; i < ninstr; ++i) {
      const int na = p.code[i].nargs;
      const Arg* av = &argv[i * 4];
      const int pieces = m >= 512 ? b.pieces[i] : 1;
      for (int j = 0; j < pieces; ++j) {
        for (int64_t q = 0; q < pf_quota && pf_a < npf; ++q) {
          const int a = pf_in[pf_a];
          _mm_prefetch(args[a] + pf_lo * st[a] + (st[a] > 0 ? pf_off : -pf_off), _MM_HINT_T1);
          pf_off += 64;
          if (pf_off >= m_next * std::llabs(st[a])) {
            pf_off = 0;
            ++pf_a;
          }
        }
        const int64_t p0 = pieces == 1 ? 0 : m * j / pieces / 64 * 64;
        const int64_t p1 = pieces == 1 || j == pieces - 1 ? m : m * (j + 1) / pieces / 64 * 64;
        char* a[4];
        int64_t s[4];
        for (int k = 0; k <= na; ++k) {
          a[k] = av[k].base + lo * av[k].step + p0 * av[k].st;
          s[k] = av[k].st;
        }
        if (p1 > p0) b.loops[i](a, s, p1 - p0);
      }
    }
    if (kSink || staged) flush(lo, m);
  }
  if (!kSink && staged) _mm_sfence();  // order the streaming stores before the engine's join
}

void fused_rows(void* ctx, char* const* args, const int64_t* st, int64_t n) {
  eval_rows<NoSink>(*static_cast<const Bound*>(ctx), args, st, n, nullptr);
}

}  // namespace

std::string validate_fused(const FusedProgram& p) {
  const EwTable& t = active_ew_table();
  if (p.ntemps < 0 || p.ntemps > kFusedMaxTemps) return "too many temporaries (max 16)";
  if (p.ninputs < 0 || static_cast<int>(p.input_dtypes.size()) != p.ninputs)
    return "input_dtypes size";
  if (static_cast<int>(p.temp_dtypes.size()) != p.ntemps) return "temp_dtypes size";
  if (p.nconst < 0 || p.nconst > p.ninputs) return "nconst must be 0..ninputs";
  const int nout = static_cast<int>(p.output_dtypes.size());
  if (nout < 1) return "no outputs";
  if (p.ninputs - p.nconst + nout > kMaxArgs)
    return "too many operands (non-constant inputs + outputs > " + std::to_string(kMaxArgs) +
           ")";
  if (p.ninputs + nout > kFusedMaxOperands)
    return "too many operands (inputs + constants + outputs > " +
           std::to_string(kFusedMaxOperands) + ")";
  for (int d : p.input_dtypes)
    if (d < 0 || d >= kNumDTypes) return "bad input dtype";
  for (int d : p.temp_dtypes)
    if (d < 0 || d >= kNumDTypes) return "bad temporary dtype";
  for (int d : p.output_dtypes)
    if (d < 0 || d >= kNumDTypes) return "bad output dtype";
  const int nregs = p.ninputs + p.ntemps;
  for (size_t i = 0; i < p.code.size(); ++i) {
    const FusedInstr& ins = p.code[i];
    const std::string where = "instruction " + std::to_string(i) + ": ";
    if (ins.nargs < 1 || ins.nargs > 3) return where + "nargs must be 1..3";
    for (int k = 0; k < ins.nargs; ++k)
      if (ins.args[k] < 0 || ins.args[k] >= nregs) return where + "operand register out of range";
    if (ins.dst >= 0 && (ins.dst < p.ninputs || ins.dst >= nregs))
      return where + "destination must be a temporary or an output";
    if (ins.dst < 0 && -1 - ins.dst >= nout) return where + "output index out of range";
    if (ins.dtype < 0 || ins.dtype >= kNumDTypes || ins.out_dtype < 0 ||
        ins.out_dtype >= kNumDTypes)
      return where + "bad dtype";
    const int dst_dt = ins.dst < 0 ? p.output_dtypes[-1 - ins.dst]
                                   : p.temp_dtypes[ins.dst - p.ninputs];
    if (dst_dt != ins.out_dtype) return where + "destination dtype differs from out_dtype";
    if (ins.op == kFusedConvert) {
      if (ins.nargs != 1) return where + "convert takes one operand";
    } else {
      if (ins.op < 0 || ins.op >= kNumEwOps) return where + "bad op code";
      if (ew_op_arity(ins.op) != ins.nargs) return where + "wrong number of operands";
      if (!t.loops[ins.op][ins.dtype]) return where + "no kernel for this op and dtype";
    }
  }
  if (p.reduce_op != -1) {
    if (p.reduce_op != kReduce_SUM && p.reduce_op != kReduce_MAX && p.reduce_op != kReduce_MIN)
      return "reduce_op must be -1, SUM, MAX or MIN";
    if (nout != 1) return "a reducing program has exactly one output";
    if (!reduce_supported(p.reduce_op, p.output_dtypes[0]))
      return std::string("no ") + reduce_op_name(p.reduce_op) + " reduction for dtype " +
             std::to_string(p.output_dtypes[0]);
  }
  return "";
}

namespace {

// Resolves p's loops, operands and buffer slots for one run. `total` elements in all (for
// the streaming decision); red: the reduce kernel of a reducing run (output 0 is staged
// block by block and the block holds a power-of-two number of the kernel's leaves).
void bind_program(Bound& b, const FusedProgram& p, char* const* ptrs, int64_t total,
                  const ReduceKernel* red) {
  b.p = &p;
  b.red = red;
  b.run_id = g_run_counter.fetch_add(1, std::memory_order_relaxed);
  const EwTable& table = active_ew_table();
  const int nout = static_cast<int>(p.output_dtypes.size());
  const int nconst = p.nconst;
  b.nvar = p.ninputs - nconst;
  const NativeForm* form = __atomic_load_n(&p.native, __ATOMIC_ACQUIRE);
  b.native = form && form->isa == active_isa() ? form->fn : nullptr;
  for (int a = 0; a < b.nvar; ++a) b.in_itemsize.push_back(dtype_itemsize(p.input_dtypes[a]));
  for (const FusedInstr& ins : p.code) {
    const int pieces = ins.op != kFusedConvert && ew_op_expensive(ins.op) ? kExpensivePieces : 1;
    b.pieces.push_back(pieces);
    b.ncalls += pieces;
  }
  for (const FusedInstr& ins : p.code)
    b.loops.push_back(ins.op == kFusedConvert ? table.convert[ins.dtype][ins.out_dtype]
                                              : table.loops[ins.op][ins.dtype]);
  int widest = 1;
  for (int d : p.temp_dtypes) widest = std::max(widest, dtype_itemsize(d));
  for (int d : p.output_dtypes) widest = std::max(widest, dtype_itemsize(d));
  for (int c = 0; c < nconst; ++c) {
    const int dt = p.input_dtypes[b.nvar + c];
    b.consts.push_back(ptrs[b.nvar + c]);
    b.const_itemsize.push_back(dtype_itemsize(dt));
    b.const_wide.push_back(-1);
  }
  // A constant read by a unary or ternary instruction is materialized as a block (those
  // loops have no scalar-broadcast fast path); binary loops read it with stride 0.
  int nslots = p.ntemps;
  for (const FusedInstr& ins : p.code)
    for (int k = 0; k < ins.nargs; ++k) {
      const int c = ins.args[k] - b.nvar;
      if (ins.nargs != 2 && c >= 0 && c < nconst && b.const_wide[c] < 0) {
        b.const_wide[c] = nslots++;
        widest = std::max(widest, b.const_itemsize[c]);
      }
    }
  for (int t = 0; t < p.ntemps; ++t) b.temp_slot.push_back(t);
  int64_t out_bytes = 0;
  for (int d : p.output_dtypes) {
    b.out_itemsize.push_back(dtype_itemsize(d));
    out_bytes += total * dtype_itemsize(d);
  }
  const bool stream = !red && out_bytes >= kStreamMinBytes;
  int64_t in_bytes = 0;
  for (int a = 0; a < b.nvar; ++a) in_bytes += total * b.in_itemsize[a];
  b.prefetch = in_bytes >= kPrefetchMinBytes;
  for (int k = 0; k < nout; ++k) b.out_slot.push_back(stream || red ? nslots++ : -1);
  // Elements per block: kFusedBlockBytes of the widest dtype, whole cache lines, and every
  // buffer slot inside the per-thread arena.
  int64_t block = std::min<int64_t>(kFusedBlock, kFusedBlockBytes / widest);
  if (nslots > 0) block = std::min<int64_t>(block, kArenaBytes / (nslots * int64_t{widest}));
  block = std::max<int64_t>(64, block / 64 * 64);
  if (red) {
    // A power-of-two number of leaves per block, so the block cascade is reduce_run's tree.
    const int64_t leaf = red->leaf;
    if (block >= leaf) {
      int64_t u = leaf;
      while (u * 2 <= block) u *= 2;
      block = u;
    } else if (leaf * widest * nslots <= kArenaBytes) {
      block = leaf;
    }
  }
  b.block = block;
  b.slot_bytes = block * widest;
  for (const FusedInstr& ins : p.code) {
    Operand o[4] = {};
    for (int k = 0; k < ins.nargs; ++k) {
      const int r = ins.args[k];
      if (r < b.nvar)
        o[k] = {kVar, r, dtype_itemsize(p.input_dtypes[r])};
      else if (r < p.ninputs)
        o[k] = {kConst, r - b.nvar, dtype_itemsize(p.input_dtypes[r])};
      else
        o[k] = {kTemp, r - p.ninputs, dtype_itemsize(p.temp_dtypes[r - p.ninputs])};
    }
    if (ins.dst < 0)
      o[3] = {kOut, -1 - ins.dst, dtype_itemsize(p.output_dtypes[-1 - ins.dst])};
    else
      o[3] = {kTemp, ins.dst - p.ninputs, dtype_itemsize(p.temp_dtypes[ins.dst - p.ninputs])};
    b.ops.insert(b.ops.end(), o, o + 4);
  }
}

// Elements from which a run takes every thread: kParallelMinElements for a one-call
// program, less for longer ones (the work per element grows with the loop calls), never
// below kFusedMinParallel. A 30-step complex Mandelbrot loop of ~300 calls on 200 x 200
// points ran on one thread at 65536.
constexpr int64_t kFusedMinParallel = 4096;

int64_t parallel_min_elements(const Bound& b) {
  return std::max<int64_t>(kFusedMinParallel, kParallelMinElements / std::max(b.ncalls, 1));
}

}  // namespace

void run_fused(const FusedProgram& p, char* const* ptrs, int ndim, const int64_t* dims,
               const int64_t* strides) {
  int64_t total = 1;
  for (int d = 0; d < ndim; ++d) total *= dims[d];
  Bound b;
  bind_program(b, p, ptrs, total, nullptr);
  const int nout = static_cast<int>(p.output_dtypes.size());
  // The engine sees the non-constant inputs and the outputs only.
  const int nargs = b.nvar + nout;
  char* eptrs[kMaxArgs];
  int64_t est[kMaxArgs * kMaxDims];
  for (int a = 0, e = 0; a < p.ninputs + nout; ++a) {
    if (a >= b.nvar && a < p.ninputs) continue;
    eptrs[e] = ptrs[a];
    for (int d = 0; d < ndim; ++d) est[e * ndim + d] = strides[a * ndim + d];
    ++e;
  }
  int isz[kMaxArgs];
  for (int a = 0; a < b.nvar; ++a) isz[a] = b.in_itemsize[a];
  for (int k = 0; k < nout; ++k) isz[b.nvar + k] = b.out_itemsize[k];
  // Transposed inputs (x.T + y) go through transposed tiles (nary.h InputTranspose): those
  // of the element size, 4 or 8 bytes, that most inputs have (jit exp(p.T) * 2 + q, f32
  // 316 x 316 on AVX-512: 70 -> 47 us; contiguous p: 22 us; NumPy 131).
  InputTranspose tr;
  int n4 = 0, n8 = 0;
  for (int a = 0; a < b.nvar; ++a) {
    n4 += isz[a] == 4;
    n8 += isz[a] == 8;
  }
  tr.itemsize = n4 >= n8 ? 4 : 8;
  tr.inputs = 0;
  for (int a = 0; a < b.nvar && a < 32; ++a)
    if (isz[a] == tr.itemsize) tr.inputs |= uint32_t{1} << a;
  if (n4 + n8 > 0) tr.panel = transpose_panel(active_isa(), tr.itemsize);
  run_nary_ctx(&fused_rows, &b, nargs, eptrs, ndim, dims, est, parallel_min_elements(b), isz,
               nout, &tr);
}

void run_fused_reduce(const FusedProgram& p, char* const* ptrs, int64_t outer, int64_t inner,
                      const int64_t* strides_outer, const int64_t* strides_inner,
                      int64_t out_stride) {
  if (p.reduce_op < 0 || p.output_dtypes.size() != 1 || outer <= 0) return;
  const ReduceKernel& k = reduce_table(active_isa()).k[p.reduce_op][p.output_dtypes[0]];
  if (!k.row) return;  // validate_fused rejects this
  char* out = ptrs[p.ninputs];
  if (inner <= 0) {
    for (int64_t o = 0; o < outer; ++o) k.identity(out + o * out_stride);
    return;
  }
  const int odt = p.output_dtypes[0];
  const int nvar = p.ninputs - p.nconst;
  const int64_t osz = dtype_itemsize(odt);
  Bound b;
  bind_program(b, p, ptrs, outer * inner, &k);
  const int nt = outer * inner >= parallel_min_elements(b) ? get_num_threads() : 1;
  // reduce_run's strategy rule for a contiguous [outer, inner] (the unfused path): short
  // rows of many outputs fold vertically (each output a sequential fold of its row),
  // others horizontally (row kernel, leaf cascade). Following it keeps the bits equal.
  const bool vertical = inner < 16 && outer >= 64;
  bool packable = true;  // every input walks the [outer, inner] space linearly
  for (int a = 0; a < nvar; ++a)
    if (strides_outer[a] != inner * strides_inner[a]) packable = false;
  if (outer >= 2 && inner * 2 <= b.block && packable) {
    // Short rows: blocks of whole rows over the flattened space, each block's rows
    // reduced from the staging slot (vertically with k.cols, or one k.row per row).
    const int64_t rows_per_block = b.block / inner;
    b.block = rows_per_block * inner;
    const size_t abytes = static_cast<size_t>(k.acc_size) * rows_per_block;
    parallel_for(nt, nt, [&](int64_t t) {   // one contiguous range of rows per thread
      const int64_t r0 = outer * t / nt, r1 = outer * (t + 1) / nt;
      static thread_local std::vector<char> acc, scratch;
      if (vertical) {
        acc.resize(abytes);
        scratch.resize(abytes * (cascade_levels(1) + 1));
      }
      RowSpan rs;
      rs.nd = 1;
      rs.dims[0] = inner;
      rs.strides[0] = osz;
      rs.begin = 0;
      rs.end = inner;
      auto sink = [&](const char* stage, int64_t lo, int64_t m) {
        const int64_t first = r0 + lo / inner, nr = m / inner;
        char* dst = out + first * out_stride;
        if (vertical) {
          k.cols(stage, nr, inner * osz, rs, acc.data(), scratch.data());
          k.store(acc.data(), nr, dst, out_stride);
          return;
        }
        alignas(64) char lanes[64];
        for (int64_t r = 0; r < nr; ++r) {
          k.row(stage + r * inner * osz, inner, osz, lanes);
          k.finish(lanes, dst + r * out_stride);
        }
      };
      if (r1 > r0) {
        char* args[kMaxArgs];
        int64_t st[kMaxArgs];
        for (int a = 0; a < nvar; ++a) {
          args[a] = ptrs[a] + r0 * strides_outer[a];
          st[a] = strides_inner[a];
        }
        args[nvar] = nullptr;
        st[nvar] = osz;
        eval_rows(b, args, st, (r1 - r0) * inner, &sink);
      }
    });
    return;
  }
  if (outer >= 64 && inner < kShortRowTemp) {
    // Many short rows the flattened walk cannot cover (a broadcast or sliced input): the
    // values into a temporary (run_fused), then reduce_run - cheaper than a block per row.
    std::unique_ptr<char[]> tmp(new char[static_cast<size_t>(outer * inner * osz) + 64]);
    char* t0 = tmp.get() + ((64 - (reinterpret_cast<uintptr_t>(tmp.get()) & 63)) & 63);
    std::vector<char*> tptrs(ptrs, ptrs + p.ninputs);
    tptrs.push_back(t0);
    std::vector<int64_t> tst;
    for (int a = 0; a < p.ninputs; ++a) {
      tst.push_back(a < nvar ? strides_outer[a] : 0);
      tst.push_back(a < nvar ? strides_inner[a] : 0);
    }
    tst.push_back(inner * osz);
    tst.push_back(osz);
    const int64_t dims[2] = {outer, inner};
    run_fused(p, tptrs.data(), 2, dims, tst.data());
    const int64_t src_st[2] = {inner * osz, osz};
    const int64_t dst_st[2] = {out_stride != 0 ? out_stride : osz, 0};
    reduce_run(p.reduce_op, odt, t0, 2, dims, src_st, dst_st, out);
    return;
  }
  // Chunks of a row: a power-of-two number of blocks, fixed (not the thread count's).
  int64_t chunk = b.block;
  while (chunk * 2 <= kFusedReduceChunk) chunk *= 2;
  const int64_t cpr = (inner + chunk - 1) / chunk;  // chunks per row
  // Values (o, lo .. lo + n) reduced into c: full blocks pushed, a last partial one the tail.
  auto eval = [&](int64_t o, int64_t lo, int64_t n, Cascade& c) {
    char* args[kMaxArgs];
    int64_t st[kMaxArgs];
    for (int a = 0; a < nvar; ++a) {
      args[a] = ptrs[a] + o * strides_outer[a] + lo * strides_inner[a];
      st[a] = strides_inner[a];
    }
    args[nvar] = nullptr;
    st[nvar] = osz;
    auto sink = [&](const char* stage, int64_t, int64_t m) {
      k.row(stage, m, osz, c.slot());
      if (m == b.block) c.push();
      else c.set_tail();
    };
    eval_rows(b, args, st, n, &sink);
  };
  if (nt <= 1 || cpr == 1 || outer >= 4 * int64_t{nt}) {
    // Whole rows per thread (many rows, or short ones).
    parallel_for(nt, outer, [&](int64_t o) {
      Cascade c(&k);
      eval(o, 0, inner, c);
      k.finish(c.fold(), out + o * out_stride);
    });
    return;
  }
  // Few long rows: (row, chunk) items over the threads, then each row's chunk partials
  // join one cascade in order - the tree a whole-row evaluation builds.
  const int64_t items = outer * cpr;
  struct alignas(64) Part {
    char b[64];
  };
  std::vector<Part> part(static_cast<size_t>(items));
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t it = 0; it < items; ++it) {
    const int64_t o = it / cpr, q = it % cpr;
    Cascade c(&k);
    eval(o, q * chunk, std::min(chunk, inner - q * chunk), c);
    std::memcpy(part[it].b, c.fold(), 64);
  }
  const bool tail = inner % chunk != 0;
  for (int64_t o = 0; o < outer; ++o) {
    Cascade c(&k);
    for (int64_t q = 0; q < cpr; ++q) {
      std::memcpy(c.slot(), part[o * cpr + q].b, 64);
      if (tail && q == cpr - 1) c.set_tail();
      else c.push();
    }
    k.finish(c.fold(), out + o * out_stride);
  }
}

}  // namespace xarr
