#!/usr/bin/env bash
# A sysroot for cross-building abicap statically for one Debian architecture
# that the build machine cannot install beside its own (s390x, ppc64el,
# riscv64): the C library and the -dev packages abicap links, fetched from
# Debian's archive through a private apt configuration (the system's sources
# and dpkg database are not touched) and unpacked.
#
#   scripts/sysroot.sh ARCH DIR     e.g. s390x build/sysroot/s390x
#
# s390x and ppc64el take bookworm's packages, the suite of the build
# machine's cross compilers (gcc-12, binutils 2.40); riscv64 became a
# release architecture with trixie, so it takes trixie's. The compilers are
# Debian's gcc-<triplet> packages (scripts/setup.sh); the Makefile passes
# --sysroot=DIR. The downloads are cached in $ABICAP_KERNEL_CACHE (default
# ~/.cache/abicap/kernels)/sysroot-apt. Prints DIR when it is complete;
# a second run with the same package versions does nothing.
set -euo pipefail

arch=${1:?usage: sysroot.sh ARCH DIR}
dir=${2:?usage: sysroot.sh ARCH DIR}
case $arch in
s390x|ppc64el) suites=(bookworm bookworm-updates) sec=bookworm-security ;;
riscv64) suites=(trixie trixie-updates trixie-backports) sec=trixie-security ;;
*) echo "sysroot.sh: error: no sysroot for '$arch' (s390x, ppc64el or riscv64)" >&2; exit 2 ;;
esac
# the C library, the kernel's headers, and what the Makefile's LIBS name
PKGS=(libc6 libc6-dev linux-libc-dev libcrypt1 libcrypt-dev
	libbpf1 libbpf-dev libelf1 libelf-dev zlib1g zlib1g-dev libzstd1 libzstd-dev
	libjansson4 libjansson-dev liblzma5 liblzma-dev liblz4-1 liblz4-dev
	libcap2 libcap-dev libmicrohttpd12 libmicrohttpd-dev
	# the TLS stand-in for static builds (user/static/tls_absent.c): headers only
	libgnutls28-dev
	# not for the build: the test VMs' shell (scripts/vmtest.sh), /bin/busybox
	busybox-static)
# trixie renamed libraries whose ABI changed with 64-bit time_t
[ "$arch" = riscv64 ] && PKGS=("${PKGS[@]/#libmicrohttpd12/libmicrohttpd12t64}") &&
	PKGS=("${PKGS[@]/#libelf1/libelf1t64}")

cache=${ABICAP_KERNEL_CACHE:-$HOME/.cache/abicap/kernels}/sysroot-apt/$arch
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=${ABICAP_DEBIAN_MIRROR:-http://deb.debian.org}
mkdir -p "$cache/lists/partial" "$cache/cache/archives/partial" "$cache/debs"
{
	for s in "${suites[@]}"; do
		echo "deb [signed-by=$keyring arch=$arch] $mirror/debian $s main"
	done
	echo "deb [signed-by=$keyring arch=$arch] $mirror/debian-security $sec main"
} > "$cache/sources.list"
# trixie's libelf.a (0.192) lacks the eu_search_tree functions its objects
# call: a static link fails; trixie-backports' (0.196) has them
cat > "$cache/preferences" <<EOF
Package: libelf1t64 libelf-dev
Pin: release n=trixie-backports
Pin-Priority: 600
EOF
O=(-o "Dir::Etc::sourcelist=$cache/sources.list" -o "Dir::Etc::sourceparts=-"
   -o "Dir::State::Lists=$cache/lists" -o "Dir::Cache=$cache/cache"
   -o "Dir::Etc::preferences=$cache/preferences" -o "Dir::Etc::preferencesparts=-"
   -o "APT::Get::List-Cleanup=0" -o "Acquire::Retries=3"
   -o "APT::Sandbox::User=root" -o "Acquire::Languages=none"
   -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
   -o "Acquire::Check-Valid-Until=false")

if [ -z "$(find "$cache/lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
	# a security index the mirror is still syncing fails the update: the
	# suite's own packages are enough then (a warning says so)
	if ! apt-get "${O[@]}" -qq update > "$cache/update.log" 2>&1; then
		echo "sysroot.sh: warning: apt-get update reported errors (see $cache/update.log); using the lists there are" >&2
	fi
fi
# the candidate of each package, as "name version" (the newest the suites hold)
want=$(apt-cache "${O[@]}" policy "${PKGS[@]}" 2>/dev/null |
	awk '/^[^ ]/ { sub(/:$/, "", $1); p = $1 } $1 == "Candidate:" { print p, $2 }')
if grep -q "(none)" <<<"$want" || [ "$(wc -l <<<"$want")" -ne ${#PKGS[@]} ]; then
	echo "sysroot.sh: error: the archive has no $arch candidate for: $(grep "(none)" <<<"$want" | cut -d' ' -f1 | paste -sd' ') (see $cache/update.log)" >&2
	exit 1
fi
# the same packages unpacked by the same script: nothing to do
stamp="$want
sysroot.sh $(sha256sum < "$0" | cut -c1-16)"
if [ -f "$dir/.packages" ] && [ "$(cat "$dir/.packages")" = "$stamp" ]; then
	echo "$dir"
	exit 0
fi
(cd "$cache/debs" && apt-get "${O[@]}" -qq download "${PKGS[@]}") > "$cache/download.log" 2>&1 || {
	echo "sysroot.sh: error: cannot download the $arch packages (see $cache/download.log)" >&2
	exit 1
}
tmp=$dir.part
rm -rf "$tmp" && mkdir -p "$tmp"
while read -r p v; do
	deb=$(ls "$cache/debs/${p}_${v//:/%3a}_"{$arch,all}.deb 2>/dev/null || true)
	[ -n "$deb" ] || { echo "sysroot.sh: error: $p $v was not downloaded (see $cache/download.log)" >&2; exit 1; }
	dpkg-deb -x "$deb" "$tmp"
done <<<"$want"
# links to absolute paths (the -dev packages' .so, /lib64/ld64.so.2) would
# leave the sysroot: made relative, inside it
find "$tmp" -type l -lname '/*' | while read -r l; do
	ln -sfr "$tmp$(readlink "$l")" "$l"
done
# trixie's /usr is merged: its /lib is base-files' link to usr/lib
[ -e "$tmp/lib" ] || ln -s usr/lib "$tmp/lib"
echo "$stamp" > "$tmp/.packages"
rm -rf "$dir" && mv "$tmp" "$dir"
echo "$dir"
