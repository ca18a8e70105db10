#!/usr/bin/env bash
# Installs, from the distribution's packages, everything KernelScope needs to build and test
# (Debian 12 or Ubuntu 24.04). Installs only what is missing; uses sudo when not run as root.
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config
    libhdf5-dev          # HDF5 C API: dataset readers and writers
    libcli11-dev         # CLI11: kernelscope-cli's argument parsing
    nlohmann-json3-dev   # nlohmann-json: results, workspaces, calibration cache
    zlib1g-dev           # zlib: .gz inputs
    libcsv-dev           # libcsv: CSV parsing and quoting
    libgtest-dev         # GoogleTest
    clang libclang-rt-dev libomp-dev llvm   # clang with libFuzzer and the sanitizers, its OpenMP, llvm-symbolizer: tests/fuzz
    dataset-fashion-mnist # Fashion-MNIST in IDX under /usr/share/datasets: the cnn workload's real data, reader tests
    qt6-base-dev         # Qt 6 Widgets, PrintSupport, Test: the desktop app
    libqt6svg6-dev       # Qt 6 SVG: chart export to SVG
    libqcustomplot-dev   # QCustomPlot (its Qt 6 build): the charts
    libgl-dev            # OpenGL headers Qt 6's CMake files ask for
    xvfb xauth           # a virtual display for screenshots
    help2man             # the manual pages, from each program's --help
    lintian              # the Debian package's check
    appstream            # appstreamcli: the AppStream metadata's check
    desktop-file-utils   # desktop-file-validate: the desktop entry's check
    reuse                # reuse lint: every file's licence (REUSE.toml)
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
    echo "install-deps: everything is installed"
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
