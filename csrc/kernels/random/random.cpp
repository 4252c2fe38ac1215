// The random family's driver (random.h): splits whole tiles over threads, finishes a partial
// last tile through a local buffer, and runs the per-element samplers (integers, Poisson,
// binomial, gamma), each element on its own stream so results depend on neither the thread
// count nor the order elements are drawn in.
#include "kernels/random/random.h"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "core/threading.h"
#include "kernels/random/random_blocks.h"

namespace xarr {

namespace {

const RngTable& rng_table() {
  static const KernelTables<RngTable> t(XARR_ISA_FILLS(RngTable, fill_rng));
  return t.active();
}

bool valid_kind(int kind) { return kind >= 0 && kind < kNumRngKinds; }
bool valid_algorithm(int alg) { return alg == kPhilox4x32 || alg == kThreeFry2x32; }

// The words of element i's own stream (random.h, "Per-element samplers"), in order.
class ElementWords {
 public:
  // first_block > 0: the stream from its block first_block on (integers' rejection
  // fallback, whose block 0 the bulk tiles stand in for).
  ElementWords(const RngStream& s, uint64_t i, uint64_t first_block = 0)
      : s_(s), i_(i), block_(first_block) {}

  uint32_t next() {
    if (used_ == have_) refill();
    return words_[used_++];
  }
  uint64_t next64() {
    const uint64_t lo = next();
    return lo | (static_cast<uint64_t>(next()) << 32);
  }
  // Uniform in (0, 1): (m + 1/2) 2^-53 for 53 random bits m, never 0 or 1 (safe for log).
  double open01() { return (static_cast<double>(next64() >> 11) + 0.5) * 0x1p-53; }
  // A standard normal (Box-Muller, the cosine branch; one pair of uniforms per value).
  double normal() {
    const double r = std::sqrt(-2.0 * std::log(open01()));
    return r * std::cos(6.28318530717958647692 * open01());
  }

 private:
  void refill() {
    if (s_.algorithm == kThreeFry2x32) {
      uint32_t k0 = s_.key[0], k1 = s_.key[1];
      if (block_ > 0) {   // key j = threefry({j, 0x243f6a88}, key)
        uint32_t x0 = static_cast<uint32_t>(block_), x1 = 0x243f6a88u;
        rng_blocks::threefry(x0, x1, s_.key[0], s_.key[1]);
        k0 = x0;
        k1 = x1;
      }
      const uint64_t c = s_.counter[0] + i_;
      words_[0] = static_cast<uint32_t>(c);
      words_[1] = static_cast<uint32_t>(c >> 32);
      rng_blocks::threefry(words_[0], words_[1], k0, k1);
      have_ = 2;
    } else {
      // the 128-bit counter C + i + j 2^64 (a carry out of the low half as the tiles')
      const uint64_t lo = s_.counter[0] + i_;
      const uint64_t hi = s_.counter[1] + (lo < s_.counter[0] ? 1 : 0) + block_;
      words_[0] = static_cast<uint32_t>(lo);
      words_[1] = static_cast<uint32_t>(lo >> 32);
      words_[2] = static_cast<uint32_t>(hi);
      words_[3] = static_cast<uint32_t>(hi >> 32);
      rng_blocks::philox(words_[0], words_[1], words_[2], words_[3], s_.key[0], s_.key[1]);
      have_ = 4;
    }
    ++block_;
    used_ = 0;
  }

  const RngStream& s_;
  uint64_t i_;
  uint64_t block_;
  uint32_t words_[4] = {};
  int have_ = 0, used_ = 0;
};

// U[0, range] (inclusive) by Lemire's multiply-and-reject, from a first candidate word
// (32 bits for ranges below 2^32, else 64) and more(), which gives the next candidates.
template <class More> uint64_t bounded(uint64_t first, uint64_t range, More more) {
  if (range == UINT64_MAX) return first;
  const uint64_t span = range + 1;
  if (span <= (uint64_t{1} << 32)) {
    uint64_t m = (first & 0xFFFFFFFFu) * span;
    if (static_cast<uint32_t>(m) < span) {
      const uint64_t floor = ((uint64_t{1} << 32) - span) % span;
      while (static_cast<uint32_t>(m) < floor) m = (more() & 0xFFFFFFFFu) * span;
    }
    return m >> 32;
  }
  unsigned __int128 m = static_cast<unsigned __int128>(first) * span;
  if (static_cast<uint64_t>(m) < span) {
    const uint64_t floor = (0 - span) % span;
    while (static_cast<uint64_t>(m) < floor)
      m = static_cast<unsigned __int128>(more()) * span;
  }
  return static_cast<uint64_t>(m >> 64);
}

// Past this variance a count's exact samplers lose to rounding (their acceptance bounds
// are differences of terms near n / lambda, whose doubles are no longer integers past
// 2^53), while the normal approximation's error (skewness 1 / sd = 1e-7) is far below
// what any sample can see: counts of that variance are round(mean + sd z), clipped.
constexpr double kNormalVariance = 1e14;

int64_t normal_count(ElementWords& w, double mean, double variance, double top) {
  const double x = std::nearbyint(mean + std::sqrt(variance) * w.normal());
  return static_cast<int64_t>(std::min(std::max(x, 0.0), top));
}

// Poisson: products of uniforms below lambda 10; above, Hormann's transformed rejection
// with squeeze (PTRS, "The transformed rejection method for generating Poisson random
// variables", 1993).
int64_t poisson(ElementWords& w, double lam) {
  if (lam <= 0) return 0;
  if (lam < 10) {
    const double limit = std::exp(-lam);
    double prod = w.open01();
    int64_t k = 0;
    while (prod > limit) {
      prod *= w.open01();
      ++k;
    }
    return k;
  }
  if (lam > kNormalVariance) return normal_count(w, lam, lam, HUGE_VAL);
  const double slam = std::sqrt(lam), loglam = std::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = w.open01() - 0.5, v = w.open01();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<int64_t>(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
        -lam + k * loglam - std::lgamma(k + 1))
      return static_cast<int64_t>(k);
  }
}

// log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi) / 2: the tail of Stirling's series
// for log((k)!), exact (from lgamma) below 10 and the series' first terms above.
double stirling_tail(double k) {
  if (k < 10) return std::lgamma(k + 1) - (k + 0.5) * std::log(k + 1) + (k + 1) -
                     0.91893853320467274178;
  const double kp1 = k + 1, sq = kp1 * kp1;
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / sq) / sq) / kp1;
}

// Binomial(n, p): inversion while n p < 10, else Hormann's BTRS ("The generation of
// binomial random variates", 1993), both for p <= 1/2 (p > 1/2 mirrored: n - X(n, 1 - p)).
// The plan holds an (n, p)'s constants, made once per parameter pair.
struct BinomialPlan {
  int64_t n = 0, fixed = -1;        // fixed >= 0: the result without drawing (p 0 or 1)
  bool mirrored = false, inversion = false, normal = false;
  double p = 0, q = 1, s = 0, a = 0, r0 = 0;               // inversion: p / q, (n+1) s, q^n
  double b = 0, c = 0, vr = 0, alpha = 0, r = 0, nd = 0, m = 0, hm = 0;   // BTRS
};

BinomialPlan binomial_plan(int64_t n, double p_in) {
  BinomialPlan b;
  b.n = n;
  if (n <= 0 || p_in <= 0) {
    b.fixed = 0;
    return b;
  }
  if (p_in >= 1) {
    b.fixed = n;
    return b;
  }
  b.mirrored = p_in > 0.5;
  const double p = b.mirrored ? 1 - p_in : p_in, q = 1 - p;
  b.p = p;
  b.q = q;
  b.nd = static_cast<double>(n);
  if (n * p < 10) {
    b.inversion = true;
    b.s = p / q;
    b.a = (b.nd + 1) * b.s;
    b.r0 = std::exp(b.nd * std::log1p(-p));
    return b;
  }
  if (n * p * q > kNormalVariance) {
    b.normal = true;
    return b;
  }
  const double spq = std::sqrt(n * p * q);
  b.b = 1.15 + 2.53 * spq;
  b.a = -0.0873 + 0.0248 * b.b + 0.01 * p;
  b.c = n * p + 0.5;
  b.vr = 0.92 - 4.2 / b.b;
  b.alpha = (2.83 + 5.1 / b.b) * spq;
  b.r = p / q;
  b.m = std::floor((b.nd + 1) * p);
  // the acceptance bound log(f(k) / f(m)) with Stirling's series for the factorials (no
  // difference of huge lgamma values) and log1p of (k - m) / (n - k + 1) (a ratio of two
  // n-sized doubles rounds to 1 past n ~ 1e15): accurate for n up to 1e18
  b.hm = (b.m + 0.5) * std::log((b.m + 1) / (b.r * (b.nd - b.m + 1))) +
         stirling_tail(b.m) + stirling_tail(b.nd - b.m);
  return b;
}

// One attempt from uniforms u (and v, BTRS only): the draw, or -1 when rejected (also for
// the inversion's rare run past n from rounding, and for the normal approximation's plans).
inline int64_t binomial_attempt(const BinomialPlan& b, double u_in, double v_in) {
  if (b.fixed >= 0) return b.fixed;
  if (b.normal) return -1;
  int64_t k = -1;
  if (b.inversion) {
    double r = b.r0, u = u_in;
    int64_t x = 0;
    // (rounding can leave u just above the summed terms while r underflows to 0: reject
    // then, and past NumPy's bound n p + 10 sqrt(n p q + 1), instead of running to n)
    const double top = std::min(b.nd, b.nd * b.p + 10 * std::sqrt(b.nd * b.p * b.q + 1));
    while (u > r && x <= b.n) {
      u -= r;
      ++x;
      r *= b.a / static_cast<double>(x) - b.s;
      if (r == 0 || static_cast<double>(x) > top) return -1;
    }
    k = x <= b.n ? x : -1;
  } else {
    const double u = u_in - 0.5, us = 0.5 - std::fabs(u);
    const double kd = std::floor((2 * b.a / us + b.b) * u + b.c);
    if (kd < 0 || kd > b.nd) return -1;
    if (us >= 0.07 && v_in <= b.vr) {
      k = static_cast<int64_t>(kd);
    } else {
      const double v = std::log(v_in * b.alpha / (b.a / (us * us) + b.b));
      const double bound = b.hm + (b.nd + 1) * std::log1p((kd - b.m) / (b.nd - kd + 1)) +
                           (kd + 0.5) * std::log(b.r * (b.nd - kd + 1) / (kd + 1)) -
                           stirling_tail(kd) - stirling_tail(b.nd - kd);
      if (!(v <= bound)) return -1;
      k = static_cast<int64_t>(kd);
    }
  }
  return k < 0 ? -1 : (b.mirrored ? b.n - k : k);
}

int64_t binomial(ElementWords& w, const BinomialPlan& b) {
  if (b.fixed >= 0) return b.fixed;
  if (b.normal) {
    const int64_t k = normal_count(w, b.nd * b.p, b.nd * b.p * b.q, b.nd);
    return b.mirrored ? b.n - k : k;
  }
  for (;;) {
    const double u = w.open01(), v = b.inversion ? 0.0 : w.open01();
    const int64_t k = binomial_attempt(b, u, v);
    if (k >= 0) return k;
  }
}

// Gamma(shape, 1): Marsaglia and Tsang's squeeze ("A simple method for generating gamma
// variables", 2000); shape < 1 through Gamma(shape + 1) U^(1 / shape).
double gamma(ElementWords& w, double shape) {
  if (shape <= 0) return 0;
  const double boost = shape < 1 ? std::pow(w.open01(), 1 / shape) : 1.0;
  const double d = (shape < 1 ? shape + 1 : shape) - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    const double x = w.normal();
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = w.open01();
    if (u < 1 - 0.0331 * (x * x) * (x * x) ||
        std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))
      return d * v * boost;
  }
}

// The stream whose bulk block b is element b's block j (random.h, "Per-element samplers"):
// Philox counter C + j 2^64, ThreeFry key j = threefry({j, 0x243f6a88}, key).
RngStream block_stream(const RngStream& s, uint32_t j) {
  RngStream t = s;
  if (s.algorithm == kThreeFry2x32) {
    uint32_t x0 = j, x1 = 0x243f6a88u;
    rng_blocks::threefry(x0, x1, s.key[0], s.key[1]);
    t.key[0] = x0;
    t.key[1] = x1;
  } else {
    t.counter[1] = s.counter[1] + j;
  }
  return t;
}

// Gamma(shape, 1)'s first Marsaglia-Tsang attempt from a bulk normal x and uniforms u and
// (shape < 1) u_boost; NaN when rejected. (u may be 0: log(0) = -inf accepts, as the limit
// does.)
inline double gamma_attempt(double shape, double x, double u, double u_boost) {
  const double base = shape < 1 ? shape + 1 : shape;
  const double d = base - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  double v = 1 + c * x;
  if (v <= 0) return NAN;
  v = v * v * v;
  if (!(u < 1 - 0.0331 * (x * x) * (x * x) ||
        std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))))
    return NAN;
  return shape < 1 ? d * v * std::pow(u_boost, 1 / shape) : d * v;
}

// The first attempts of a per-element sampler, vectorized: element i's attempt reads
// element i of the stream's `kind0` tiles (its block 0: uniform64 or normal64), element i
// of block_stream(s, 1)'s uniform64 tiles and, when third(e0, e1) says a chunk needs it,
// of block_stream(s, 2)'s (all SIMD tiles, random.h). attempt(i, x0, x1, x2) returns
// whether it accepted (and wrote element i); otherwise fallback(i) continues on element
// i's own stream from block 3 on. Results depend on neither the thread count nor the
// order.
template <class Third, class Attempt, class Fallback>
void first_attempts(const RngStream& s, int64_t n, int kind0, Third third, Attempt attempt,
                    Fallback fallback) {
  const RngTable& t = rng_table();
  const RngStream s1 = block_stream(s, 1), s2 = block_stream(s, 2);
  constexpr int64_t per = kRngTileWords / 2, chunk = 16;   // 32 f64 per tile; 16 tiles
  const int64_t tiles = (n + per - 1) / per;
  const int nt = n < 4096 ? 1 : get_num_threads();
  split_items(nt, (tiles + chunk - 1) / chunk, [&](int64_t c0, int64_t c1) {
    alignas(64) double x0[per * chunk], x1[per * chunk], x2[per * chunk];
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t q0 = c * chunk, q1 = std::min(tiles, q0 + chunk);
      const int64_t e0 = q0 * per, e1 = std::min(n, q1 * per);
      t.tiles(s, kind0, q0, q1, x0, 0.0, 1.0);
      t.tiles(s1, kUniformF64, q0, q1, x1, 0.0, 1.0);
      const bool with_third = third(e0, e1);
      if (with_third) t.tiles(s2, kUniformF64, q0, q1, x2, 0.0, 1.0);
      for (int64_t i = e0; i < e1; ++i) {
        const int64_t e = i - e0;
        if (!attempt(i, x0[e], x1[e], with_third ? x2[e] : 1.0)) fallback(i);
      }
    }
  });
}

// out[i] = Gamma(p[i * sp], 1) for the elements not in `skip` (may be null): the first
// attempt from a bulk normal, a bulk uniform and, for a shape below 1, a bulk uniform for
// the boost U^(1 / shape); about 98% accept there.
void gamma_bulk(const RngStream& s, int64_t n, const double* p, int64_t sp, double* out,
                const uint8_t* skip) {
  first_attempts(
      s, n, kNormalF64,
      [&](int64_t e0, int64_t e1) {
        for (int64_t i = e0; i < e1; ++i)
          if (p[i * sp] < 1) return true;
        return false;
      },
      [&](int64_t i, double x, double u, double boost) {
        if (skip && skip[i]) return true;
        const double shape = p[i * sp];
        const double g = shape > 0 ? gamma_attempt(shape, x, u, boost) : 0.0;
        if (std::isnan(g)) return false;
        out[i] = g;
        return true;
      },
      [&](int64_t i) {
        ElementWords w(s, static_cast<uint64_t>(i), 3);
        out[i] = gamma(w, p[i * sp]);
      });
}

// Poisson(lam)'s constants for its first attempts, made once per lambda.
struct PoissonPlan {
  double lam = 0, limit = 0;                           // inversion: e^-lam
  double b = 0, a = 0, vr = 0, loglam = 0, log_inv_alpha = 0;   // PTRS
};

PoissonPlan poisson_plan(double lam) {
  PoissonPlan q;
  q.lam = lam;
  if (lam <= 0 || lam > kNormalVariance) return q;
  if (lam < 10) {
    q.limit = std::exp(-lam);
    return q;
  }
  const double slam = std::sqrt(lam);
  q.loglam = std::log(lam);
  q.b = 0.931 + 2.53 * slam;
  q.a = -0.059 + 0.02483 * q.b;
  q.log_inv_alpha = std::log(1.1239 + 1.1328 / (q.b - 3.4));
  q.vr = 0.9277 - 3.6224 / (q.b - 2);
  return q;
}

// Poisson's first attempt from bulk uniforms u, v: inversion of the CDF below lambda 10
// (one uniform, no rejection; -1 should the sum stop growing before u), PTRS's first
// attempt up to kNormalVariance (as poisson() above); -1 when rejected (or beyond).
inline int64_t poisson_attempt(const PoissonPlan& q, double u, double v) {
  const double lam = q.lam;
  if (lam <= 0) return 0;
  if (lam > kNormalVariance) return -1;
  if (lam < 10) {
    double p = q.limit, cdf = p;
    int64_t k = 0;
    while (u >= cdf) {
      p *= lam / static_cast<double>(++k);
      const double next = cdf + p;
      if (next == cdf) return -1;
      cdf = next;
    }
    return k;
  }
  const double uc = u - 0.5, us = 0.5 - std::fabs(uc);
  const double k = std::floor((2 * q.a / us + q.b) * uc + lam + 0.43);
  if (us >= 0.07 && v <= q.vr) return static_cast<int64_t>(k);
  if (k < 0 || (us < 0.013 && v > us)) return -1;
  if (std::log(v) + q.log_inv_alpha - std::log(q.a / (us * us) + q.b) <=
      -lam + k * q.loglam - std::lgamma(k + 1))
    return static_cast<int64_t>(k);
  return -1;
}

void poisson_bulk(const RngStream& s, int64_t n, const double* p, int64_t sp, int64_t* out) {
  const PoissonPlan shared = poisson_plan(p[0]);
  first_attempts(
      s, n, kUniformF64, [](int64_t, int64_t) { return false; },
      [&](int64_t i, double u, double v, double) {
        const int64_t k = poisson_attempt(sp ? poisson_plan(p[i * sp]) : shared, u, v);
        if (k < 0) return false;
        out[i] = k;
        return true;
      },
      [&](int64_t i) {
        ElementWords w(s, static_cast<uint64_t>(i), 3);
        out[i] = poisson(w, p[i * sp]);
      });
}

// Binomial(n[i * sn], p[i * sp]): first attempts from two bulk uniforms; one plan for
// scalar parameters, one per element otherwise.
void binomial_bulk(const RngStream& s, int64_t count, const double* n, int64_t sn,
                   const double* p, int64_t sp, int64_t* out) {
  const bool scalar = sn == 0 && sp == 0;
  const BinomialPlan shared = binomial_plan(static_cast<int64_t>(n[0]), p[0]);
  auto plan = [&](int64_t i) {
    return scalar ? shared : binomial_plan(static_cast<int64_t>(n[i * sn]), p[i * sp]);
  };
  first_attempts(
      s, count, kUniformF64, [](int64_t, int64_t) { return false; },
      [&](int64_t i, double u, double v, double) {
        const int64_t k = binomial_attempt(plan(i), u, v);
        if (k < 0) return false;
        out[i] = k;
        return true;
      },
      [&](int64_t i) {
        ElementWords w(s, static_cast<uint64_t>(i), 3);
        out[i] = binomial(w, plan(i));
      });
}

// A stream independent of s and of all its element streams (another key: Philox's block
// of counter "beta" under s's key, ThreeFry's key j = "beta"): the second gamma of a beta.
RngStream other_key_stream(const RngStream& s) {
  RngStream t = s;
  constexpr uint32_t kTag = 0x62657461u;   // "beta"
  if (s.algorithm == kThreeFry2x32) {
    uint32_t x0 = kTag, x1 = 0x243f6a88u;
    rng_blocks::threefry(x0, x1, s.key[0], s.key[1]);
    t.key[0] = x0;
    t.key[1] = x1 ^ 0x5bd1e995u;     // (not key j = kTag itself)
  } else {
    uint32_t w0 = kTag, w1 = 0, w2 = 0, w3 = 0;
    rng_blocks::philox(w0, w1, w2, w3, s.key[0], s.key[1]);
    t.key[0] = w0;
    t.key[1] = w1;
  }
  return t;
}

// Beta(a, b): Johnk's method in logarithms for a, b <= 1 (X = U^(1/a), Y = V^(1/b),
// accepted when X + Y <= 1; logs keep tiny a and b from underflowing to 0 / 0), else
// X / (X + Y) of two gamma draws.
double beta(ElementWords& w, double a, double b) {
  if (a <= 1 && b <= 1) {
    for (;;) {
      const double lu = std::log(w.open01()), lv = std::log(w.open01());
      const double lx = lu / a, ly = lv / b;
      if (std::isinf(lx) && std::isinf(ly))   // a, b subnormal: X, Y underflow; the
        return lu * b > lv * a ? 1.0 : 0.0;   // larger log decides (NumPy: 0 or 1)
      const double top = std::max(lx, ly);
      const double ex = std::exp(lx - top), ey = std::exp(ly - top);
      if (std::log(ex + ey) + top > 0) continue;          // X + Y > 1: reject
      return ex / (ex + ey);
    }
  }
  const double x = gamma(w, a), y = gamma(w, b);
  return x / (x + y);
}

}  // namespace

void philox4x32_10(const uint32_t c[4], const uint32_t k[2], uint32_t out[4]) {
  uint32_t x[4] = {c[0], c[1], c[2], c[3]};
  rng_blocks::philox(x[0], x[1], x[2], x[3], k[0], k[1]);
  std::memcpy(out, x, sizeof(x));
}

void threefry2x32_20(const uint32_t c[2], const uint32_t k[2], uint32_t out[2]) {
  uint32_t x0 = c[0], x1 = c[1];
  rng_blocks::threefry(x0, x1, k[0], k[1]);
  out[0] = x0;
  out[1] = x1;
}

int rng_per_tile(int kind) {
  return kind == kBits64 || kind == kUniformF64 || kind == kNormalF64 ? kRngTileWords / 2
                                                                      : kRngTileWords;
}

int64_t rng_blocks_used(int algorithm, int kind, int64_t n) {
  const int64_t per = rng_per_tile(kind);
  const int64_t tiles = (n + per - 1) / per;
  return tiles * (algorithm == kThreeFry2x32 ? 32 : 16);
}

int rng_fill(const RngStream& s, int kind, int64_t n, void* out, double a, double b) {
  if (!valid_kind(kind) || !valid_algorithm(s.algorithm)) return 1;
  if (n <= 0) return 0;
  const RngTable& t = rng_table();
  const int64_t per = rng_per_tile(kind);
  const int64_t bytes = kRngTileWords * 4;   // of every kind's tile
  const int64_t whole = n / per, rest = n % per;
  const int nt = n < kParallelMinElements ? 1 : get_num_threads();
  char* o = static_cast<char*>(out);
  split_items(nt, whole, [&](int64_t q0, int64_t q1) {
    t.tiles(s, kind, q0, q1, o + q0 * bytes, a, b);
  });
  if (rest) {
    alignas(64) char last[kRngTileWords * 4];
    t.tiles(s, kind, whole, whole + 1, last, a, b);
    std::memcpy(o + whole * bytes, last, static_cast<size_t>(rest * (bytes / per)));
  }
  return 0;
}

int rng_integers(const RngStream& s, int64_t n, const int64_t* low, int64_t ls,
                 const uint64_t* range, int64_t rs, int64_t* out) {
  if (!valid_algorithm(s.algorithm)) return 1;
  if (n <= 0) return 0;
  bool wide = false;   // a range of 2^32 values or more: 64-bit candidates
  for (int64_t i = 0; i < (rs ? n : 1); ++i) wide = wide || range[i * rs] > 0xFFFFFFFFu;
  const int kind = wide ? kBits64 : kBits32;
  const int64_t per = rng_per_tile(kind), tiles = (n + per - 1) / per;
  const RngTable& t = rng_table();
  const int nt = n < kParallelMinElements ? 1 : get_num_threads();
  split_items(nt, tiles, [&](int64_t q0, int64_t q1) {
    alignas(64) uint64_t tile[kRngTileWords / 2];
    const uint32_t* w32 = reinterpret_cast<const uint32_t*>(tile);
    for (int64_t q = q0; q < q1; ++q) {
      t.tiles(s, kind, q, q + 1, tile, 0.0, 1.0);
      const int64_t e1 = std::min(per, n - q * per);
      for (int64_t e = 0; e < e1; ++e) {
        const int64_t i = q * per + e;
        const uint64_t first = wide ? tile[e] : w32[e];
        // a rejection (probability below range / 2^32) continues on element i's own
        // stream from block 1 on (its block 0 is what the tile stands in for)
        std::optional<ElementWords> more_words;
        const uint64_t v = bounded(first, range[i * rs], [&]() -> uint64_t {
          if (!more_words) more_words.emplace(s, static_cast<uint64_t>(i), 1);
          return wide ? more_words->next64() : more_words->next();
        });
        out[i] = static_cast<int64_t>(static_cast<uint64_t>(low[i * ls]) + v);   // wraps
      }
    }
  });
  return 0;
}

int rng_sample(const RngStream& s, int sampler, int64_t n, const double* p0, int64_t s0,
               const double* p1, int64_t s1, void* out) {
  if (!valid_algorithm(s.algorithm) || sampler < 0 || sampler >= kNumRngSamplers) return 1;
  if (n <= 0) return 0;
  for (int64_t i = 0; i < n; ++i) {   // a NaN or infinite parameter would never accept
    const double x = p0[i * s0], y = p1[i * s1];
    const bool counts = sampler == kSamplePoisson || sampler == kSampleBinomial;
    if (!(x >= 0) || (counts && !(x <= 1e18)) || !(x < HUGE_VAL)) return 2;
    if (sampler == kSampleBinomial && !(y >= 0 && y <= 1)) return 2;
    if (sampler == kSampleBeta && !(y > 0 && y < HUGE_VAL)) return 2;
  }
  if (sampler == kSampleGamma) {
    gamma_bulk(s, n, p0, s0, static_cast<double*>(out), nullptr);
    return 0;
  }
  if (sampler == kSamplePoisson) {
    poisson_bulk(s, n, p0, s0, static_cast<int64_t*>(out));
    return 0;
  }
  if (sampler == kSampleBeta) {   // X / (X + Y) of bulk gammas; Johnk for a, b <= 1
    std::vector<uint8_t> johnk(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) johnk[i] = p0[i * s0] <= 1 && p1[i * s1] <= 1;
    std::vector<double> y(static_cast<size_t>(n));
    double* od = static_cast<double*>(out);
    gamma_bulk(s, n, p0, s0, od, johnk.data());
    gamma_bulk(other_key_stream(s), n, p1, s1, y.data(), johnk.data());
    const int nt = n < 4096 ? 1 : get_num_threads();
    parallel_for(nt, n, [&](int64_t i) {
      if (johnk[i]) {
        ElementWords w(s, static_cast<uint64_t>(i), 3);
        od[i] = beta(w, p0[i * s0], p1[i * s1]);
      } else {
        od[i] = od[i] / (od[i] + y[i]);
      }
    });
    return 0;
  }
  binomial_bulk(s, n, p0, s0, p1, s1, static_cast<int64_t*>(out));
  return 0;
}

// Sanders' parallel shuffle ("Random permutations on distributed, external and
// hierarchical memory", 1998): every index goes to a uniformly random bucket (the top bits
// of element i of the stream's bits32 tiles), the buckets are filled in index order (a
// counting sort: the same layout for any thread count), and each bucket, small enough for
// L1 / L2, is shuffled by Fisher-Yates on bucket j's own stream of block_stream(s, 1)
// (Lemire's bounded draws). Concatenated, the buckets are a uniform permutation.
int64_t rng_permutation(const RngStream& s, int64_t n, int64_t* out) {
  if (!valid_algorithm(s.algorithm) || n <= 0) return 0;
  int bits = 0;                                      // 2^bits buckets of ~2048 indices
  while (bits < 20 && (n >> (bits + 11)) > 0) ++bits;
  const int64_t buckets = int64_t{1} << bits;
  const int64_t per = kRngTileWords, tiles = (n + per - 1) / per;
  const RngTable& t = rng_table();
  const int nt = n < kParallelMinElements ? 1 : get_num_threads();
  // pass 1: each thread's share of the tiles -> bucket of each index, per-thread counts
  std::vector<uint32_t> bucket_of(static_cast<size_t>(tiles * per));
  std::vector<int64_t> counts(static_cast<size_t>(nt * buckets), 0);
  auto share = [&](int th, int64_t* q0, int64_t* q1) {
    *q0 = tiles * th / nt;
    *q1 = tiles * (th + 1) / nt;
  };
  parallel_for(nt, nt, [&](int64_t th) {
    int64_t q0, q1;
    share(static_cast<int>(th), &q0, &q1);
    if (q1 > q0) t.tiles(s, kBits32, q0, q1, bucket_of.data() + q0 * per, 0.0, 1.0);
    int64_t* c = counts.data() + th * buckets;
    const int64_t e1 = std::min(n, q1 * per);
    for (int64_t i = q0 * per; i < e1; ++i) {
      const uint32_t b = bits ? bucket_of[i] >> (32 - bits) : 0;
      bucket_of[i] = b;
      ++c[b];
    }
  });
  // bucket starts, then each thread's offset inside each bucket (threads in order)
  std::vector<int64_t> start(static_cast<size_t>(buckets + 1), 0);
  std::vector<int64_t> offset(static_cast<size_t>(nt * buckets));
  for (int64_t b = 0; b < buckets; ++b) {
    int64_t pos = start[b];
    for (int th = 0; th < nt; ++th) {
      offset[th * buckets + b] = pos;
      pos += counts[th * buckets + b];
    }
    start[b + 1] = pos;
  }
  // pass 2: scatter the indices into their buckets, in index order within each
  parallel_for(nt, nt, [&](int64_t th) {
    int64_t q0, q1;
    share(static_cast<int>(th), &q0, &q1);
    int64_t* o = offset.data() + th * buckets;
    const int64_t e1 = std::min(n, q1 * per);
    for (int64_t i = q0 * per; i < e1; ++i) out[o[bucket_of[i]]++] = i;
  });
  // pass 3: Fisher-Yates inside each bucket
  const RngStream sb = block_stream(s, 1);
  parallel_for(buckets >= 2 ? nt : 1, buckets, [&](int64_t b) {
    ElementWords w(sb, static_cast<uint64_t>(b));
    int64_t* x = out + start[b];
    for (int64_t i = start[b + 1] - start[b] - 1; i > 0; --i) {
      const uint64_t j = bounded(w.next(), static_cast<uint64_t>(i), [&] {
        return static_cast<uint64_t>(w.next());
      });
      std::swap(x[i], x[j]);
    }
  });
  return std::max(tiles * (s.algorithm == kThreeFry2x32 ? 32 : 16), buckets);
}

}  // namespace xarr
