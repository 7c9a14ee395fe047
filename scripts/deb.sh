#!/usr/bin/env bash
# Build the Debian package in a copy of the tree (make deb): the tree's
# build outputs (build/abicap, build/pingpong, build/abicap-static) stay,
# no `make clean` runs on it, and nothing is left in debian/. The copy is
# what git tracks plus untracked files not ignored (the tree as it would be
# committed); the .deb lands in OUTDIR.
#   scripts/deb.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
outdir=${1:?usage: scripts/deb.sh OUTDIR}
command -v dpkg-buildpackage >/dev/null ||
	{ echo "deb.sh: error: dpkg-buildpackage is missing: apt-get install dpkg-dev debhelper" >&2; exit 2; }
w=$(mktemp -d /tmp/abicap-deb.XXXXXX)
trap 'rm -rf "$w"' EXIT
mkdir "$w/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -co --exclude-standard -z | tar --null -cf - -T - | tar -xf - -C "$w/src"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$w/src"
fi
if ! (cd "$w/src" && dpkg-buildpackage -us -uc -b) >"$w/build.log" 2>&1; then
	tail -20 "$w/build.log" >&2
	echo "deb.sh: error: dpkg-buildpackage failed (the log's end above)" >&2
	exit 1
fi
mkdir -p "$outdir"
for f in "$w"/abicap_*.deb; do
	cp "$f" "$outdir/"
	echo "$outdir/$(basename "$f")"
done
