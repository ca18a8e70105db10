#!/usr/bin/env bash
# tests/fuzz/pack.sh OUTDIR [BUILD_DIR]
# Packs the fuzz targets of BUILD_DIR (build/fuzz, the fuzz preset) into one folder that runs on a machine without
# clang or the build's libraries (Ubuntu 24.04 or Debian 12, x86-64): the binaries (libFuzzer and the sanitizer
# runtimes are linked in statically), their seed corpora and regression inputs, every shared library they load
# except glibc's and the C++ runtime's (the host's newer ones serve), campaign.sh with common.sh, and run.sh, which
# runs one target with those libraries:
#   OUTDIR/run.sh fuzz_pdb -max_total_time=60 corpus/pdb seeds/pdb
#   OUTDIR/campaign.sh -t 3600 -j 16
# and OUTDIR.tar.xz, the same folder in one file (about 15 MB) to carry where it runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
out=${1:?usage: pack.sh OUTDIR [BUILD_DIR]}
build=${2:-$here/../../build/fuzz}
build=$(cd "$build" && pwd)

if [ -e "$out" ] && [ ! -f "$out/PACKED.txt" ] && [ -n "$(ls -A "$out")" ]; then
    echo "pack.sh: $out exists and is no earlier pack: not replacing it"
    exit 2
fi
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/seeds" "$out/regressions"
for t in "${KS_FUZZ_TARGETS[@]}"; do
    cp "$build/fuzz/fuzz_$t" "$out/bin/"
    cp -r "$build/fuzz-seeds/$t" "$out/seeds/$t"
    mkdir -p "$out/regressions/$t"
    [ -d "$here/regressions/$t" ] && cp -r "$here/regressions/$t/." "$out/regressions/$t/"
done
cp "$here/campaign.sh" "$here/common.sh" "$out/"

# glibc, the dynamic loader and the C++ runtime stay the host's: any glibc from 2.36 on runs these binaries, and a
# copied libc would not match the host's loader.
system='^(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux-x86-64|libstdc\+\+|libgcc_s|linux-vdso)\.so'
ldd "$out"/bin/* | awk '/=> \// {print $1, $3}' | sort -u > "$out/ldd.txt"
while read -r name path; do
    if ! [[ $name =~ $system ]]; then
        cp -L "$path" "$out/lib/$name"
    fi
done < "$out/ldd.txt"

cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# run.sh fuzz_NAME [libFuzzer arguments...]: one target, with the packed shared libraries.
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Where no llvm-symbolizer is installed, binutils' addr2line names the functions of a report.
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_addr2line=1}"
exec "$here/bin/$1" "${@:2}"
RUN
chmod +x "$out/run.sh" "$out/campaign.sh"
{
    echo "Packed $(date -u +%Y-%m-%dT%H:%MZ) from $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "Targets: ${KS_FUZZ_TARGETS[*]}"
    echo "Shared libraries carried in lib/:"
    ls "$out/lib"
} > "$out/PACKED.txt"
tar -cJf "$out.tar.xz" -C "$(dirname "$out")" "$(basename "$out")"
echo "pack.sh: $out ($(du -sh "$out" | cut -f1)) and $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1)); $(ls "$out/lib" | wc -l) shared libraries carried"
