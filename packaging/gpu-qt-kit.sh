#!/usr/bin/env bash
# The GPU machines have no Qt. This packs what the app's binaries need to run there offscreen into one archive:
# the binaries named on the command line, every shared library they (and Qt's offscreen platform plugin) load
# from this Debian machine except the C runtime and the CUDA driver, the plugin, and two DejaVu fonts with a
# fontconfig file. On the GPU machine, `source env.sh` from the unpacked folder drops the carried libraries that
# the machine has itself and points the loader, Qt and fontconfig at the rest.
# Usage: bash packaging/gpu-qt-kit.sh OUT.tar.xz BINARY...
set -euo pipefail
out=$1
shift
kit=$(mktemp -d)
trap 'rm -rf "$kit"' EXIT
mkdir -p "$kit/bin" "$kit/lib" "$kit/plugins/platforms" "$kit/fonts"
plugin=$(find /usr/lib/x86_64-linux-gnu/qt6/plugins/platforms -name libqoffscreen.so | head -1)
cp "$plugin" "$kit/plugins/platforms/"
for b in "$@"; do
    cp "$b" "$kit/bin/"
    strip --strip-unneeded "$kit/bin/$(basename "$b")"
done
# The C runtime and the GPU driver come from the machine itself (they must match its kernel and driver).
skip='^(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|libgcc_s|libstdc\+\+|libcuda|libnvidia.*|libcudart|libnvrtc.*)\.so'
for f in "$kit"/bin/* "$kit/plugins/platforms/libqoffscreen.so"; do
    ldd "$f" | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
    name=$(basename "$lib")
    [[ $name =~ $skip ]] && continue
    cp -L "$lib" "$kit/lib/$name"
done
strip --strip-unneeded "$kit"/lib/*.so* 2>/dev/null || true
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf \
    /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf "$kit/fonts/"
cat >"$kit/fonts.conf" <<'CONF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir prefix="relative">fonts</dir>
  <cachedir>/tmp/kernelscope-fontconfig</cachedir>
  <alias><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
</fontconfig>
CONF
cat >"$kit/env.sh" <<'ENV'
# Sourced on the GPU machine from the unpacked kit's folder.
kit=$(pwd)
# A library the machine has itself is the machine's: ldconfig's cache lists it by soname.
have=$(ldconfig -p | awk 'NR > 1 {print $1}')
for lib in "$kit"/lib/*.so*; do
    if grep -qxF "$(basename "$lib")" <<<"$have"; then rm -f "$lib"; fi
done
export LD_LIBRARY_PATH="$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_PLUGIN_PATH="$kit/plugins"
export QT_QPA_PLATFORM=offscreen
export FONTCONFIG_FILE="$kit/fonts.conf"
ENV
tar -C "$kit" -cJf "$out" .
echo "$out: $(du -h "$out" | cut -f1) ($(ls "$kit/lib" | wc -l) libraries, $(du -sh "$kit" | cut -f1) unpacked)"
