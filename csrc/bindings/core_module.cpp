// pybind11 bindings of the C++ op library (module xarr._core).
//
// Split with Cython (see docs/architecture.md): the per-call hot path of the tensor type
// (elementwise dispatch, allocation, indexing) is Cython calling capi.h directly; this
// module binds everything else: machine facts, ISA and thread control, the op-code table,
// and the relayout kernels. Tensors cross this line as (address, dims, byte strides);
// Python (xarr/_ops) decides what to call, C++ computes.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/isa.h"
#include "core/threading.h"
#include "engine/nary.h"
#include "fused/executor.h"
#include "kernels/elementwise/ew_table.h"
#include "kernels/relayout/relayout.h"

namespace py = pybind11;

namespace {

using Ints = std::vector<int64_t>;

char* as_ptr(uintptr_t address) { return reinterpret_cast<char*>(address); }

void check_rank(const char* op, const Ints& dims, const Ints& a, const Ints& b) {
  if (a.size() != dims.size() || b.size() != dims.size())
    throw std::invalid_argument(std::string(op) + ": strides must have one entry per dim");
}

int isa_from_name(const std::string& name) {
  const int isa = xarr::isa_code(name.c_str());
  if (isa < 0)
    throw std::invalid_argument("unknown ISA '" + name +
                                "' (expected one of 'ref', 'baseline', 'avx2', 'avx512')");
  return isa;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "xarr's C++ op library (pybind11 part): machine, ISA, threads, relayout.";

  m.def("dtypes", [] {
    py::list out;
    for (int dt = 0; dt < xarr::kNumDTypes; ++dt)
      out.append(py::make_tuple(xarr::dtype_name(dt), std::string(1, xarr::dtype_kind(dt)),
                                xarr::dtype_itemsize(dt)));
    return out;
  }, "[(XLA name, kind, itemsize)] by dtype code (csrc/core/dtype.h).");
  m.def("cpu_features", [] {
    const auto& f = xarr::cpu_features();
    py::dict d;
    d["avx2_fma"] = f.avx2_fma;
    d["avx512"] = f.avx512;
    d["avx512_bf16"] = f.avx512_bf16;
    d["avx512_vnni"] = f.avx512_vnni;
    d["amx"] = f.amx;
    return d;
  }, "CPU features detected at run time.");
  m.def("supported_isas", [] {
    std::vector<std::string> out;
    for (int isa = 0; isa < xarr::kNumIsas; ++isa)
      if (xarr::isa_supported(isa)) out.push_back(xarr::isa_name(isa));
    return out;
  }, "ISA variants compiled in and runnable here, the reference first.");
  m.def("best_isa", [] { return std::string(xarr::isa_name(xarr::best_isa())); });
  m.def("isa_code", &isa_from_name, "The Isa enum value of an ISA name (core/isa.h).");
  m.def("get_isa", [] { return std::string(xarr::isa_name(xarr::active_isa())); },
        "The ISA whose kernels run now.");
  m.def("set_isa", [](const std::string& name) { xarr::set_active_isa(isa_from_name(name)); },
        "Selects the kernel variant ('ref', 'baseline', 'avx2', 'avx512'); for tests.");

  m.def("get_num_threads", &xarr::get_num_threads);
  m.def("set_num_threads", [](int n) {
    if (n < 1) throw std::invalid_argument("set_num_threads: n must be >= 1, got " +
                                           std::to_string(n));
    xarr::set_num_threads(n);
  });
  m.attr("parallel_min_elements") = xarr::kParallelMinElements;
  m.def("get_parallel_min", [] {
    py::dict d;
    for (int f = 0; f < xarr::kNumParFamilies; ++f)
      d[py::str(xarr::parallel_family_name(f))] = xarr::parallel_min(f);
    return d;
  }, "{kernel family: element count from which it uses several threads} (threading.h).");
  m.def("set_parallel_min", [](const std::string& family, int64_t n) {
    for (int f = 0; f < xarr::kNumParFamilies; ++f)
      if (family == xarr::parallel_family_name(f)) {
        if (n < 0) throw std::invalid_argument("set_parallel_min: n must be >= 0");
        xarr::set_parallel_min(f, n);
        return;
      }
    throw std::invalid_argument("set_parallel_min: unknown kernel family '" + family + "'");
  }, "Moves a family's thread threshold (for tools/thread_thresholds.py and tests).");

  m.def("ew_ops", [] {
    py::dict d;
    for (int op = 0; op < xarr::kNumEwOps; ++op)
      d[py::str(xarr::ew_op_name(op))] = py::make_tuple(op, xarr::ew_op_arity(op));
    return d;
  }, "{OP_NAME: (code, arity)} for every elementwise kernel op.");
  m.def("ew_functors", [] {
    py::dict d;
    for (int op = 0; op < xarr::kNumEwOps; ++op)
      d[py::int_(op)] = py::make_tuple(xarr::ew_functor_name(op), xarr::ew_op_has_array(op),
                                       xarr::ew_op_expensive(op));
    return d;
  }, "{code: (functor name in ew_ops.h, has_array, expensive)}: for the native code "
     "generator.");
  m.def("ew_supported", [](int op, int dtype, const std::string& isa) {
    if (op < 0 || op >= xarr::kNumEwOps || dtype < 0 || dtype >= xarr::kNumDTypes)
      return false;
    return xarr::ew_table(isa_from_name(isa)).loops[op][dtype] != nullptr;
  }, py::arg("op"), py::arg("dtype"), py::arg("isa") = "ref");

  m.def("copy_strided", [](int itemsize, const Ints& dims, uintptr_t src, const Ints& sst,
                           uintptr_t dst, const Ints& dstst, const std::string& isa) {
    check_rank("copy_strided", dims, sst, dstst);
    int which = isa.empty() ? xarr::active_isa() : isa_from_name(isa);
    py::gil_scoped_release release;
    xarr::copy_strided_isa(which, itemsize, static_cast<int>(dims.size()), dims.data(),
                           as_ptr(src), sst.data(), as_ptr(dst), dstst.data());
  }, py::arg("itemsize"), py::arg("dims"), py::arg("src"), py::arg("src_strides"),
     py::arg("dst"), py::arg("dst_strides"), py::arg("isa") = "",
     "dst[i] = src[i] over dims (byte strides); cache-blocked SIMD transpose when needed.");

  m.attr("fused_convert") = xarr::kFusedConvert;
  m.attr("fused_block") = xarr::kFusedBlock;
  m.attr("fused_block_bytes") = xarr::kFusedBlockBytes;
  m.attr("fused_max_operands") = xarr::kFusedMaxOperands;
  m.attr("max_args") = xarr::kMaxArgs;
  m.def("copy_tiled", [](int itemsize, const Ints& phys_dims, const Ints& forms,
                         const Ints& bounds, const Ints& dims, uintptr_t strided,
                         const Ints& strided_strides, uintptr_t tiled, bool to_tiled,
                         py::bytes pad) {
    const int nphys = static_cast<int>(phys_dims.size());
    const int nforms = static_cast<int>(bounds.size());
    if (static_cast<int>(forms.size()) != nphys * nforms)
      throw std::invalid_argument("copy_tiled: forms must be nforms x nphys");
    if (strided_strides.size() != dims.size() || static_cast<int>(dims.size()) > nforms)
      throw std::invalid_argument("copy_tiled: bad logical dims/strides");
    std::string padv = pad;
    if (static_cast<int>(padv.size()) != itemsize)
      throw std::invalid_argument("copy_tiled: pad must be itemsize bytes");
    py::gil_scoped_release release;
    xarr::copy_tiled(itemsize, nphys, phys_dims.data(), nforms, forms.data(), bounds.data(),
                     static_cast<int>(dims.size()), as_ptr(strided), strided_strides.data(),
                     as_ptr(tiled), to_tiled, padv.data());
  }, "Copies between a strided array and a tiled buffer (relayout.h contract).");
}
