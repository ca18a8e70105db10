#pragma once

// The `precision` parameter of the workloads whose variants read their inputs in float64 or float32 (linreg, spmv).

#include "compute/core/params.h"

#include <type_traits>

namespace ks {

/// The type a variant reads its inputs in: the dataset's doubles themselves (F64), or copies rounded to float
/// (F32). What it accumulates in is the workload's choice (linreg always sums in double or wider; spmv in the same
/// type).
enum class Precision { F64, F32 };

/// The `precision` parameter: "f32" or (the default) "f64".
inline Precision precisionOf(const ParamSet& params)
{
    return params.text("precision") == "f32" ? Precision::F32 : Precision::F64;
}

/// The Precision of values of type T (float or double).
template <class T> constexpr Precision kPrecisionOf = std::is_same_v<T, float> ? Precision::F32 : Precision::F64;

} // namespace ks
