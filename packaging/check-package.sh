#!/usr/bin/env bash
# Checks the Debian package of a finished build (default build/ci): packs it with CPack from that build (no second
# build), lints the package, the AppStream metadata and the desktop entry (failing on errors and warnings), then,
# as root with apt-get, installs it, runs both programs from /usr/bin and removes it again.
# Usage: check-package.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
start=$SECONDS

echo "== check-package: licence (REUSE)"
if ! command -v reuse >/dev/null; then
    echo "check-package: reuse is not installed: skipping the REUSE check"
elif ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "check-package: not a git clone (reuse-lint.sh checks the tracked files): skipping the REUSE check"
else
    bash packaging/reuse-lint.sh
fi

echo "== check-package: cpack -G DEB in $build"
rm -f "$build"/kernelscope_*.deb
cmake --build "$build" --target ks_packaging_files
(cd "$build" && cpack -G DEB)
deb=$(realpath "$build"/kernelscope_*.deb)
dpkg-deb --info "$deb"
dpkg-deb --contents "$deb"

# Policy: everything under /usr, owned by root, 0755 for folders and programs, 0644 for the rest.
bad=$(dpkg-deb --contents "$deb" | awk '
    { path = $6; sub(/^\./, "", path) }
    path !~ /^\/usr\// { print "outside /usr: " path }
    $2 != "root/root" { print "owner " $2 ": " path }
    /^d/ && $1 != "drwxr-xr-x" { print "mode " $1 ": " path }
    /^-/ && path ~ /^\/usr\/bin\// && $1 != "-rwxr-xr-x" { print "mode " $1 ": " path }
    /^-/ && path !~ /^\/usr\/bin\// && $1 != "-rw-r--r--" { print "mode " $1 ": " path }')
if [ -n "$bad" ]; then
    echo "check-package: files against Debian policy:"
    echo "$bad"
    exit 1
fi

echo "== check-package: lintian $(lintian --version | awk '{print $2}')"
echo "(the package's lintian override, with its reason:)"
cat packaging/lintian-overrides
lintian --fail-on error,warning --display-info "$deb"

echo "== check-package: appstreamcli validate"
appstreamcli validate --no-net --strict packaging/io.kernelscope.KernelScope.metainfo.xml

echo "== check-package: desktop-file-validate"
desktop_issues=$(desktop-file-validate packaging/kernelscope.desktop 2>&1) || {
    echo "$desktop_issues"
    exit 1
}
if [ -n "$desktop_issues" ]; then
    echo "$desktop_issues"
    echo "check-package: desktop-file-validate reported the issues above"
    exit 1
fi
echo "kernelscope.desktop: no errors, no warnings"

echo "== check-package: install, run from /usr/bin, remove"
if [ "$(id -u)" -ne 0 ]; then
    echo "check-package: not root: skipping the install (it needs apt-get as root)"
elif ! command -v apt-get >/dev/null; then
    echo "check-package: no apt-get: skipping the install"
elif dpkg-query -W -f='${Status}' kernelscope 2>/dev/null | grep -q "install ok installed"; then
    # Removing it afterwards would take away a copy someone installed on purpose.
    echo "check-package: kernelscope is already installed here: skipping the install"
else
    apt_get=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300)
    trap '"${apt_get[@]}" purge -y -qq kernelscope >/dev/null || true' EXIT
    "${apt_get[@]}" install -y -qq --no-install-recommends "$deb"
    (
        cd /
        /usr/bin/kernelscope-cli list
        version=$(QT_QPA_PLATFORM=offscreen /usr/bin/kernelscope --version 2>/dev/null)
        echo "$version"
        [ "$version" = "kernelscope $(dpkg-query -W -f='${Version}' kernelscope | sed 's/-[^-]*$//')" ]
        # The manual pages are found by name once installed (man-db comes with lintian).
        man -w kernelscope-cli kernelscope
    )
    "${apt_get[@]}" purge -y -qq kernelscope
    trap - EXIT
    if [ -e /usr/bin/kernelscope ] || [ -e /usr/bin/kernelscope-cli ]; then
        echo "check-package: the programs are still in /usr/bin after removing the package"
        exit 1
    fi
    echo "check-package: installed, ran both programs from /usr/bin, removed"
fi
echo "check-package: passed in $((SECONDS - start)) s"
