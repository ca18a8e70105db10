#pragma once

// Which readers a file looks made for, from its name and its first bytes, without reading it: what the GUI names
// when a file fails under the workload the user had chosen ("a PDB: the sdh workload reads it").

#include <string>
#include <vector>

namespace ks::data {

/// The dataset kinds (DatasetMeta::kind: "series2d", "points", "csr", "expression", "images") whose readers would
/// take the file at `path`, judged by its extension and, for plain text, by its first 64 KiB: a Matrix Market
/// banner, PDB atom records, an XYZ count line, a PLY header, or a table's shape (two numeric columns for an x/y
/// series, three for x y z points, named rows or many columns for an expression table). Empty when the file
/// cannot be read or nothing tells (HDF5 containers, compressed text of no telling extension); never throws.
std::vector<std::string> sniffDatasetKinds(const std::string& path);

} // namespace ks::data
