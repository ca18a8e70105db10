#pragma once

#include <map>
#include <string>

namespace ks::data {

/// Options every reader understands.
struct ReadOptions {
    bool allowNonFinite = false; ///< keep NaN/Inf instead of rejecting the file
    std::string h5Path; ///< the group or dataset to read from an HDF5 file with several candidates
    /// A second operand from its own file, for workloads that have one (spmv's x); empty: generated.
    std::string vectorPath;
    /// Reader settings a workload declares as run parameters (lrv: orientation, zeros, na); keys it does not know
    /// are ignored by the reader (the workload's parameter axes validate them).
    std::map<std::string, std::string> params;
};

} // namespace ks::data
