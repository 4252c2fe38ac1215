// The LAPACK-backed factorizations (lapack.h): the library loaded with dlopen, LAPACKE's
// *_work entry points (column-major, caller-owned workspace, no NaN scan), one workspace
// query per call and per-thread workspaces over the batch.
#include "kernels/linalg/lapack.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "core/threading.h"

namespace xarr {

namespace {

using cd = std::complex<double>;
using lint = int64_t;        // ILP64 LAPACK: every integer argument is 64-bit
constexpr int kColMajor = 102;  // LAPACK_COL_MAJOR

// LAPACKE_?xxx_work signatures (ILP64); complex arguments are C99 double complex, which
// has std::complex<double>'s layout.
using dgesdd_t = lint (*)(int, char, lint, lint, double*, lint, double*, double*, lint,
                          double*, lint, double*, lint, lint*);
using zgesdd_t = lint (*)(int, char, lint, lint, cd*, lint, double*, cd*, lint, cd*, lint,
                          cd*, lint, double*, lint*);
using dsyevd_t = lint (*)(int, char, char, lint, double*, lint, double*, double*, lint,
                          lint*, lint);
using zheevd_t = lint (*)(int, char, char, lint, cd*, lint, double*, cd*, lint, double*,
                          lint, lint*, lint);
using dgeev_t = lint (*)(int, char, char, lint, double*, lint, double*, double*, double*,
                         lint, double*, lint, double*, lint);
using zgeev_t = lint (*)(int, char, char, lint, cd*, lint, cd*, cd*, lint, cd*, lint, cd*,
                         lint, double*);
using dgeqrf_t = lint (*)(int, lint, lint, double*, lint, double*, double*, lint);
using zgeqrf_t = lint (*)(int, lint, lint, cd*, lint, cd*, cd*, lint);
using dorgqr_t = lint (*)(int, lint, lint, lint, double*, lint, const double*, double*, lint);
using zungqr_t = lint (*)(int, lint, lint, lint, cd*, lint, const cd*, cd*, lint);
using dgelsd_t = lint (*)(int, lint, lint, lint, double*, lint, double*, lint, double*, double,
                          lint*, double*, lint, lint*);
using zgelsd_t = lint (*)(int, lint, lint, lint, cd*, lint, cd*, lint, double*, double, lint*,
                          cd*, lint, double*, lint*);
using set_threads_t = void (*)(int);
using get_threads_t = int (*)();

struct Lapack {
  void* handle = nullptr;
  dgesdd_t dgesdd = nullptr;
  zgesdd_t zgesdd = nullptr;
  dsyevd_t dsyevd = nullptr;
  zheevd_t zheevd = nullptr;
  dgeev_t dgeev = nullptr;
  zgeev_t zgeev = nullptr;
  dgeqrf_t dgeqrf = nullptr;
  zgeqrf_t zgeqrf = nullptr;
  dorgqr_t dorgqr = nullptr;
  zungqr_t zungqr = nullptr;
  dgelsd_t dgelsd = nullptr;
  zgelsd_t zgelsd = nullptr;
  set_threads_t set_threads = nullptr;
  get_threads_t get_threads = nullptr;
};

Lapack g_lapack;
std::atomic<bool> g_loaded{false};
std::mutex g_load_mutex;
// Held for a whole batched call: OpenBLAS's thread count is process-wide, so a batch
// threaded by xarr (count 1) and a lone matrix on OpenBLAS's threads (count nt) from two
// Python threads (the bindings release the GIL) must not overlap (nt^2 threads, and
// OpenBLAS's pthreads server inside an OpenMP region).
std::mutex g_call_mutex;

// OpenBLAS's thread count for the calls that follow: 1 while xarr threads over a batch
// (no nested teams), xarr's count for a lone large matrix. Read back each time (another
// user of the library, e.g. threadpoolctl, may have changed it); set when it differs.
void use_blas_threads(int nt) {
  if (!g_lapack.set_threads) return;
  if (g_lapack.get_threads && g_lapack.get_threads() == nt) return;
  g_lapack.set_threads(nt);
}

// Threads over the batch only for small matrices (each LAPACK call then runs on one
// thread); a larger matrix leaves the threads to OpenBLAS. Returns xarr's thread count for
// the batch loop.
int plan_threads(int64_t batch, int64_t m, int64_t n) {
  const int64_t big = std::max(m, n);
  const int64_t work = big * big * std::min(m, n);
  const int nt = get_num_threads();
  if (batch >= 2 && big <= 128 && batch * work >= (1 << 15) && nt > 1) {
    use_blas_threads(1);
    return nt;
  }
  use_blas_threads(nt);
  return 1;
}

// dst (column-major rows x cols, leading dim ld) <- src (row-major rows x cols).
template <class T>
void to_col_major(const T* src, int64_t rows, int64_t cols, T* dst, int64_t ld) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i) dst[i + j * ld] = src[i * cols + j];
    }
}

// dst (row-major rows x cols) <- src (column-major rows x cols, leading dim ld).
template <class T>
void to_row_major(const T* src, int64_t rows, int64_t cols, int64_t ld, T* dst) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) dst[i * cols + j] = src[i + j * ld];
    }
}

template <class T> T conj_if(T x, bool c) {
  if constexpr (std::is_same_v<T, cd>) return c ? std::conj(x) : x;
  return x;
}

// The n x n matrix a <- a^T (conjugated too when `conj`), in place.
template <class T> void transpose_square(T* a, int64_t n, bool conj) {
  for (int64_t i = 0; i < n; ++i) {
    a[i * n + i] = conj_if(a[i * n + i], conj);
    for (int64_t j = i + 1; j < n; ++j) {
      const T upper = a[i * n + j];
      a[i * n + j] = conj_if(a[j * n + i], conj);
      a[j * n + i] = conj_if(upper, conj);
    }
  }
}

// A LAPACK workspace: T work, double rwork (complex routines), integer iwork, and two
// scratch matrices. Sized once per call from the workspace query.
template <class T> struct Workspace {
  std::vector<T> work, scratch_a, scratch_b;
  std::vector<double> rwork, real_a, real_b;
  std::vector<lint> iwork;
};

struct Sizes {
  lint work = 1, rwork = 1, iwork = 1, scratch_a = 0, scratch_b = 0, real = 0;
};

template <class T> lint as_size(T w) { return std::max<lint>(1, static_cast<lint>(std::real(w))); }

template <class T> Workspace<T> make_workspace(const Sizes& z) {
  Workspace<T> w;
  w.work.resize(static_cast<size_t>(z.work));
  w.rwork.resize(static_cast<size_t>(z.rwork));
  w.iwork.resize(static_cast<size_t>(z.iwork));
  w.scratch_a.resize(static_cast<size_t>(z.scratch_a));
  w.scratch_b.resize(static_cast<size_t>(z.scratch_b));
  w.real_a.resize(static_cast<size_t>(z.real));
  w.real_b.resize(static_cast<size_t>(z.real));
  return w;
}

// body(workspace, i) for each matrix, over `nt` threads, each with its own workspace.
template <class T, class Body>
void for_each_matrix(int nt, int64_t batch, const Sizes& z, Body body) {
  const int64_t chunk = std::max<int64_t>(1, batch / (8 * std::max(nt, 1)));
  parallel_for_dynamic(nt, batch, chunk, [&] { return make_workspace<T>(z); },
                       [&](Workspace<T>& w, int64_t i) { body(w, i); });
}

template <class Body> int with_lapack_type(int dtype, Body body) {
  if (!g_loaded.load(std::memory_order_acquire)) return -2;
  std::lock_guard<std::mutex> lock(g_call_mutex);
  switch (dtype) {
    case kF64: body(double{}); return 0;
    case kC128: body(cd{}); return 0;
    default: return -1;
  }
}

template <class F> bool resolve(void* handle, const std::string& name, F* out) {
  *out = reinterpret_cast<F>(dlsym(handle, name.c_str()));
  return *out != nullptr;
}

}  // namespace

std::string lapack_load(const std::string& path, const std::string& prefix,
                        const std::string& suffix) {
  std::lock_guard<std::mutex> lock(g_load_mutex);
  if (g_loaded.load()) return "";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return std::string("cannot open ") + path + ": " + (why ? why : "unknown error");
  }
  Lapack l;
  l.handle = handle;
  std::string missing;
  auto need = [&](const char* name, auto* fn) {
    const std::string full = prefix + "LAPACKE_" + name + "_work" + suffix;
    if (!resolve(handle, full, fn)) missing += (missing.empty() ? "" : ", ") + full;
  };
  need("dgesdd", &l.dgesdd);
  need("zgesdd", &l.zgesdd);
  need("dsyevd", &l.dsyevd);
  need("zheevd", &l.zheevd);
  need("dgeev", &l.dgeev);
  need("zgeev", &l.zgeev);
  need("dgeqrf", &l.dgeqrf);
  need("zgeqrf", &l.zgeqrf);
  need("dorgqr", &l.dorgqr);
  need("zungqr", &l.zungqr);
  need("dgelsd", &l.dgelsd);
  need("zgelsd", &l.zgelsd);
  if (!missing.empty()) {
    dlclose(handle);
    return path + " lacks " + missing;
  }
  // (optional: a LAPACK without OpenBLAS's thread control runs on its own default)
  resolve(handle, prefix + "openblas_set_num_threads" + suffix, &l.set_threads);
  resolve(handle, prefix + "openblas_get_num_threads" + suffix, &l.get_threads);
  g_lapack = l;
  g_loaded.store(true, std::memory_order_release);
  return "";
}

bool lapack_loaded() { return g_loaded.load(std::memory_order_acquire); }

// ------------------------------------------------------------------------------------ SVD
// LAPACK factors a tall (or square) column-major matrix. A wide or square row-major A is
// read in place as X = A^T (n x m column-major, tall): with X = U_X S VT_X,
// A = VT_X^T S U_X^T, so VT_X's column-major memory is U row-major and U_X's is Vh, and
// gesdd writes U into vh's buffer and VT into u's, no copy. A tall A is copied into
// column-major first (gesdd on the wide A^T would take LAPACK's LQ path, 1.5x slower for
// 2048 x 512) and its U and VT transposed back.
int svd_batched(int dtype, int64_t batch, int64_t m, int64_t n, void* a, double* s, void* u,
                void* vh, bool full, int64_t* info) {
  return with_lapack_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    const int64_t k = std::min(m, n), big = std::max(m, n);
    if (batch == 0 || k == 0) return;
    const bool vectors = u != nullptr, tall = m > n;
    const char job = vectors ? (full ? 'A' : 'S') : 'N';
    const int64_t ucols = full ? m : k, vrows = full ? n : k;
    const int64_t u_size = vectors ? m * ucols : 0, vh_size = vectors ? vrows * n : 0;
    T* base = static_cast<T*>(a);
    T* ub = static_cast<T*>(u);
    T* vb = static_cast<T*>(vh);
    T dummy[1] = {T(0)};
    // gesdd of the rows x cols column-major x: U (ldu), VT (ldvt)
    auto gesdd = [&](lint rows, lint cols, T* x, double* sv, T* uu, lint ldu, T* vt,
                     lint ldvt, T* work, lint lwork, double* rwork, lint* iwork) -> lint {
      if (!vectors) uu = vt = dummy, ldu = ldvt = 1;
      if constexpr (std::is_same_v<T, double>)
        return g_lapack.dgesdd(kColMajor, job, rows, cols, x, rows, sv, uu, ldu, vt, ldvt,
                               work, lwork, iwork);
      else
        return g_lapack.zgesdd(kColMajor, job, rows, cols, x, rows, sv, uu, ldu, vt, ldvt,
                               work, lwork, rwork, iwork);
    };
    // one matrix: x (its row-major buffer, destroyed) -> sv, uu, vv (row-major outputs)
    auto one = [&](T* x, double* sv, T* uu, T* vv, Workspace<T>& w, lint lwork) -> lint {
      if (!tall)                         // X = A^T: U_X -> Vh, VT_X -> U
        return gesdd(n, m, x, sv, vv, n, uu, ucols, w.work.data(), lwork, w.rwork.data(),
                     w.iwork.data());
      T* col = w.scratch_a.data();
      T* ucol = w.scratch_b.data();
      T* vcol = ucol + u_size;
      to_col_major(x, m, n, col, m);
      const lint rc = gesdd(m, n, col, sv, ucol, m, vcol, vrows, w.work.data(), lwork,
                            w.rwork.data(), w.iwork.data());
      if (vectors) {
        to_row_major(ucol, m, ucols, m, uu);
        to_row_major(vcol, vrows, n, vrows, vv);
      }
      return rc;
    };
    Sizes z;
    z.iwork = 8 * k;
    if constexpr (!std::is_same_v<T, double>)      // (zgesdd only; LAPACK 3.7's bounds)
      z.rwork = vectors ? std::max(5 * k * k + 5 * k, 2 * big * k + 2 * k * k + k) : 7 * k;
    z.scratch_a = tall ? m * n : 0;
    z.scratch_b = tall ? u_size + vh_size : 0;
    {  // the workspace query reads no array: dummies of the right leading dimensions
      T query{};
      double rquery[1] = {0};
      lint iquery[1] = {0};
      const lint rows = tall ? m : n, cols = tall ? n : m;
      gesdd(rows, cols, base, s, dummy, rows, dummy, tall ? vrows : ucols, &query, -1, rquery,
            iquery);
      z.work = as_size(query);
    }
    const int nt = plan_threads(batch, m, n);
    for_each_matrix<T>(nt, batch, z, [&](Workspace<T>& w, int64_t i) {
      info[i] = one(base + i * m * n, s + i * k, vectors ? ub + i * u_size : nullptr,
                    vectors ? vb + i * vh_size : nullptr, w, z.work);
    });
  });
}

// --------------------------------------------------------------------------------- eigh
// Row-major A is column-major X = A^T = conj(A) (A Hermitian), whose upper triangle is A's
// lower one. X Z = Z diag(w) gives A conj(Z) = conj(Z) diag(w): the eigenvalues are A's
// and V = conj(Z), whose row-major form is Z's memory conjugate-transposed.
int eigh_batched(int dtype, int64_t batch, int64_t n, void* a, double* w, bool vectors,
                 bool lower, int64_t* info) {
  return with_lapack_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    if (batch == 0 || n == 0) return;
    const char job = vectors ? 'V' : 'N', uplo = lower ? 'U' : 'L';
    T* base = static_cast<T*>(a);
    auto call = [&](T* x, double* ev, T* work, lint lwork, double* rwork, lint lrwork,
                    lint* iwork, lint liwork) -> lint {
      if constexpr (std::is_same_v<T, double>)
        return g_lapack.dsyevd(kColMajor, job, uplo, n, x, n, ev, work, lwork, iwork, liwork);
      else
        return g_lapack.zheevd(kColMajor, job, uplo, n, x, n, ev, work, lwork, rwork, lrwork,
                               iwork, liwork);
    };
    T query{};
    double rquery = 0;
    lint iquery = 0;
    call(base, w, &query, -1, &rquery, -1, &iquery, -1);
    Sizes z;
    z.work = as_size(query);
    z.rwork = as_size(rquery);
    z.iwork = std::max<lint>(1, iquery);
    const int nt = plan_threads(batch, n, n);
    for_each_matrix<T>(nt, batch, z, [&](Workspace<T>& ws, int64_t i) {
      T* x = base + i * n * n;
      info[i] = call(x, w + i * n, ws.work.data(), z.work, ws.rwork.data(), z.rwork,
                     ws.iwork.data(), z.iwork);
      if (vectors) transpose_square(x, n, true);
    });
  });
}

// ---------------------------------------------------------------------------------- eig
// A is transposed in place into column-major, then geev computes the right eigenvectors.
// Real A: LAPACK stores a complex pair's vectors as two real columns (re, im) for the
// eigenvalue with positive imaginary part; they are unpacked into v and its conjugate.
int eig_batched(int dtype, int64_t batch, int64_t n, void* a, void* w, void* v,
                int64_t* info) {
  return with_lapack_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    if (batch == 0 || n == 0) return;
    const bool vectors = v != nullptr;
    const char jobvr = vectors ? 'V' : 'N';
    T* base = static_cast<T*>(a);
    cd* wb = static_cast<cd*>(w);
    cd* vb = static_cast<cd*>(v);
    T dummy[1] = {T(0)};
    Sizes z;
    T query{};
    if constexpr (std::is_same_v<T, double>) {
      double wr = 0, wi = 0;
      g_lapack.dgeev(kColMajor, 'N', jobvr, n, base, n, &wr, &wi, dummy, 1, dummy, n, &query,
                     -1);
      z.real = n;
      z.scratch_a = vectors ? n * n : 0;
    } else {
      cd wq{};
      double rq[1];
      g_lapack.zgeev(kColMajor, 'N', jobvr, n, base, n, &wq, dummy, 1, dummy, n, &query, -1,
                     rq);
      z.rwork = 2 * n;
    }
    z.work = as_size(query);
    const int nt = plan_threads(batch, n, n);
    for_each_matrix<T>(nt, batch, z, [&](Workspace<T>& ws, int64_t i) {
      T* x = base + i * n * n;
      cd* wi_out = wb + i * n;
      cd* vi = vectors ? vb + i * n * n : nullptr;
      transpose_square(x, n, false);
      if constexpr (std::is_same_v<T, double>) {
        double* vr = vectors ? ws.scratch_a.data() : dummy;
        info[i] = g_lapack.dgeev(kColMajor, 'N', jobvr, n, x, n, ws.real_a.data(),
                                 ws.real_b.data(), dummy, 1, vr, n, ws.work.data(), z.work);
        const double* re = ws.real_a.data();
        const double* im = ws.real_b.data();
        for (int64_t j = 0; j < n; ++j) wi_out[j] = cd(re[j], im[j]);
        if (!vectors || info[i] != 0) return;
        for (int64_t j = 0; j < n; ++j) {
          if (im[j] == 0 || j + 1 == n) {
            for (int64_t r = 0; r < n; ++r) vi[r * n + j] = cd(vr[r + j * n], 0);
            continue;
          }
          for (int64_t r = 0; r < n; ++r) {
            const cd value(vr[r + j * n], vr[r + (j + 1) * n]);
            vi[r * n + j] = value;
            vi[r * n + j + 1] = std::conj(value);
          }
          ++j;
        }
      } else {
        info[i] = g_lapack.zgeev(kColMajor, 'N', jobvr, n, x, n, wi_out, dummy, 1,
                                 vectors ? vi : dummy, n, ws.work.data(), z.work,
                                 ws.rwork.data());
        if (vectors) transpose_square(vi, n, false);
      }
    });
  });
}

// ----------------------------------------------------------------------------------- QR
int qr_batched(int dtype, int64_t batch, int64_t m, int64_t n, const void* a, void* h,
               void* tau, void* q, int64_t qcols, int64_t* info) {
  return with_lapack_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    const int64_t k = std::min(m, n);
    if (batch == 0 || m == 0) return;
    const T* ab = static_cast<const T*>(a);
    T* hb = static_cast<T*>(h);
    T* tb = static_cast<T*>(tau);
    T* qb = static_cast<T*>(q);
    const lint lda = std::max<int64_t>(1, m);
    auto geqrf = [&](T* x, T* t, T* work, lint lwork) -> lint {
      if constexpr (std::is_same_v<T, double>)
        return g_lapack.dgeqrf(kColMajor, m, n, x, lda, t, work, lwork);
      else
        return g_lapack.zgeqrf(kColMajor, m, n, x, lda, t, work, lwork);
    };
    auto orgqr = [&](T* x, const T* t, T* work, lint lwork) -> lint {
      if constexpr (std::is_same_v<T, double>)
        return g_lapack.dorgqr(kColMajor, m, qcols, k, x, lda, t, work, lwork);
      else
        return g_lapack.zungqr(kColMajor, m, qcols, k, x, lda, t, work, lwork);
    };
    T query{}, dummy[1] = {T(0)};
    Sizes z;
    geqrf(hb, tb, &query, -1);
    z.work = as_size(query);
    if (q) {
      orgqr(hb, tb, &query, -1);
      z.work = std::max(z.work, as_size(query));
      z.scratch_a = m * qcols;
    }
    const int nt = plan_threads(batch, m, n);
    for_each_matrix<T>(nt, batch, z, [&](Workspace<T>& ws, int64_t i) {
      T* x = hb + i * m * n;
      T* t = k ? tb + i * k : dummy;
      to_col_major(ab + i * m * n, m, n, x, m);
      info[i] = geqrf(x, t, ws.work.data(), z.work);
      if (!q) return;
      T* qc = ws.scratch_a.data();
      const int64_t kept = std::min(n, qcols);
      std::copy(x, x + m * kept, qc);
      std::fill(qc + m * kept, qc + m * qcols, T(0));
      const lint rc = orgqr(qc, t, ws.work.data(), z.work);
      if (rc) info[i] = rc;
      to_row_major(qc, m, qcols, m, qb + i * m * qcols);
    });
  });
}

// -------------------------------------------------------------------------------- lstsq
int lstsq_batched(int dtype, int64_t batch, int64_t m, int64_t n, int64_t nrhs,
                  const void* a, const void* b, void* x, double* s, int64_t* rank,
                  double* residuals, double rcond, int64_t* info) {
  return with_lapack_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    const int64_t k = std::min(m, n);
    if (batch == 0) return;
    const T* ab = static_cast<const T*>(a);
    const T* bb = static_cast<const T*>(b);
    T* xb = static_cast<T*>(x);
    const lint lda = std::max<int64_t>(1, m), ldb = std::max<int64_t>({1, m, n});
    // (gelsd needs a right-hand side: with none, a zero column gives s and the rank)
    const int64_t cols = std::max<int64_t>(1, nrhs);
    auto gelsd = [&](T* am, T* bm, double* sv, lint* r, T* work, lint lwork, double* rwork,
                     lint* iwork) -> lint {
      if constexpr (std::is_same_v<T, double>)
        return g_lapack.dgelsd(kColMajor, m, n, cols, am, lda, bm, ldb, sv, rcond, r, work,
                               lwork, iwork);
      else
        return g_lapack.zgelsd(kColMajor, m, n, cols, am, lda, bm, ldb, sv, rcond, r, work,
                               lwork, rwork, iwork);
    };
    Sizes z;
    z.scratch_a = lda * std::max<int64_t>(1, n);
    z.scratch_b = ldb * cols;
    if (k > 0) {
      std::vector<T> qa(static_cast<size_t>(z.scratch_a)), qb(static_cast<size_t>(z.scratch_b));
      std::vector<double> qs(static_cast<size_t>(k));
      T query{};
      double rquery = 1;
      lint iquery = 1, r = 0;
      gelsd(qa.data(), qb.data(), qs.data(), &r, &query, -1, &rquery, &iquery);
      z.work = as_size(query);
      z.rwork = as_size(rquery);
      z.iwork = std::max<lint>(1, iquery);
    }
    const int nt = plan_threads(batch, m, n);
    for_each_matrix<T>(nt, batch, z, [&](Workspace<T>& ws, int64_t i) {
      T* xi = xb + i * n * nrhs;
      double* res = residuals + i * nrhs;
      std::fill(res, res + nrhs, 0.0);
      info[i] = 0;
      rank[i] = 0;
      if (k == 0) {   // x = 0; every b is its own residual when m > n
        std::fill(xi, xi + n * nrhs, T(0));
        if (m > n)
          for (int64_t row = 0; row < m; ++row)
            for (int64_t c = 0; c < nrhs; ++c)
              res[c] += std::norm(bb[(i * m + row) * nrhs + c]);
        return;
      }
      T* am = ws.scratch_a.data();
      T* bm = ws.scratch_b.data();
      to_col_major(ab + i * m * n, m, n, am, lda);
      std::fill(bm, bm + ldb * cols, T(0));
      to_col_major(bb + i * m * nrhs, m, nrhs, bm, ldb);
      lint r = 0;
      info[i] = gelsd(am, bm, s + i * k, &r, ws.work.data(), z.work, ws.rwork.data(),
                      ws.iwork.data());
      rank[i] = r;
      to_row_major(bm, n, nrhs, ldb, xi);
      if (m > n && r == n)
        for (int64_t c = 0; c < nrhs; ++c) {
          double sum = 0;
          for (int64_t row = n; row < m; ++row) sum += std::norm(bm[row + c * ldb]);
          res[c] = sum;
        }
    });
  });
}

}  // namespace xarr
