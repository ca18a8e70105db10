#!/usr/bin/env bash
# Checks the repository against the REUSE specification with `reuse lint`. reuse before 3.1 (Debian 12 has 1.1.2,
# Ubuntu 24.04 3.0.1) cannot read REUSE.toml, only the older .reuse/dep5; for those the check runs on a copy of
# the tracked files with REUSE.toml's annotations written out as .reuse/dep5, which states the same thing.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(reuse --version | awk '{print $2}')
if printf '3.1\n%s\n' "$version" | sort -V -C; then
    exec reuse lint
fi
echo "reuse-lint: reuse $version predates REUSE.toml; checking a copy with it as .reuse/dep5"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
git ls-files -z --cached --others --exclude-standard | tar --null -cf - -T - | tar -xf - -C "$tree"
mkdir -p "$tree/.reuse"
python3 - REUSE.toml >"$tree/.reuse/dep5" <<'PY'
import sys, tomllib

with open(sys.argv[1], "rb") as f:
    statement = tomllib.load(f)
print("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/")
for annotation in statement["annotations"]:
    paths = annotation["path"] if isinstance(annotation["path"], list) else [annotation["path"]]
    for path in paths:
        # dep5's * matches across folders like REUSE.toml's **; a lone * (one folder level) has no dep5 form.
        if "*" in path.replace("**", ""):
            sys.exit(f"reuse-lint: cannot write path '{path}' as dep5: use ** or a literal path")
    print()
    print("Files:", " ".join(p.replace("**", "*") for p in paths))
    print("Copyright:", annotation["SPDX-FileCopyrightText"])
    print("License:", annotation["SPDX-License-Identifier"])
PY
cd "$tree"
reuse lint
