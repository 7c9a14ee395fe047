#!/usr/bin/env bash
# Fetch every Debian kernel image line the archive holds (5.10 to the newest,
# every flavour, amd64 arm64 armhf i386 ppc64el s390x riscv64), the newest
# package of each (line, flavour, architecture), through a private apt
# configuration (the system's sources are not touched), and extract each
# one's kernel image and raw BTF into a cache outside the repository.
#
#   scripts/kernels.sh [--arch A[,A]] [--only ID[,ID]] [--ci] [--offline]
#
#   --arch     only these Debian architectures (default: all seven)
#   --only     only these ids (LINE-FLAVOUR, e.g. 6.12-arm64, 7.3-s390x)
#   --ci       the CI subset: per architecture the oldest and newest line
#              of its main flavour, plus the lines booted in CI
#   --offline  use the package lists and images already cached
#
# Cache: $ABICAP_KERNEL_CACHE (default ~/.cache/abicap/kernels). The manifest
# ($CACHE/manifest.tsv, also printed) has one line per kernel: id, line,
# flavour, package, version, release, directory, status, arch. status is
# "ok", "no BTF (...)" for a kernel built without CONFIG_DEBUG_INFO_BTF (its
# config says so), "unavailable: ..." when the pool lacks every version the
# index lists for the line, or "FAILED: reason"; a kernel that fails is reported
# there and the rest still run. Each directory holds `vmlinuz` (the image as
# Debian ships it in /boot, or /usr/lib/modules/RELEASE/ from 6.16 on:
# bzImage, arm64 Image or EFI zboot, armhf zImage, s390x image, riscv64 EFI
# zboot, ppc64el ELF vmlinux), `config` and, when
# the kernel has BTF, `vmlinux.btf` (raw BTF in the kernel's byte order,
# extracted by shell tools, not by abicap). The pool lacks some packages its
# index lists: the next older version of the line is taken then.
set -uo pipefail
export LC_ALL=C # byte-wise grep for magics

CACHE=${ABICAP_KERNEL_CACHE:-$HOME/.cache/abicap/kernels}
APT=$CACHE/apt-all
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${ABICAP_DEBIAN_MIRROR:-http://deb.debian.org}
ALL_ARCHES=amd64,arm64,armhf,i386,ppc64el,s390x,riscv64
ARCHES=$ALL_ARCHES
ONLY=
CI=0
OFFLINE=0
while [ $# -gt 0 ]; do
	case $1 in
	--arch) ARCHES=${2:?--arch needs a list}; shift ;;
	--only) ONLY=${2:?--only needs a list}; shift ;;
	--ci) CI=1 ;;
	--offline) OFFLINE=1 ;;
	-h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "kernels.sh: error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
for a in ${ARCHES//,/ }; do
	[[ ",$ALL_ARCHES," == *",$a,"* ]] ||
		{ echo "kernels.sh: error: unknown architecture '$a' (one of $ALL_ARCHES)" >&2; exit 2; }
done

# The CI subset: booted kernels (both ends of amd64 and arm64) and, for
# every other architecture, its oldest and newest line (and, where the
# oldest has no BTF, the oldest with BTF; riscv64 7.3 is not in the pool).
CI_IDS=5.10-amd64,7.3-amd64,6.12-rt-amd64,5.10-arm64,7.3-arm64,7.3-arm64-16k
CI_IDS+=,5.10-armmp,7.3-armmp-lpae,6.1-686-pae,6.12-powerpc64le,7.3-powerpc64le
CI_IDS+=,6.1-s390x,6.12-s390x,7.3-s390x,6.12-riscv64,7.2-riscv64

mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$CACHE/debs"
{
	# one line per architecture: a suite that lacks one (bullseye has no
	# ppc64el index here) must not hide the others
	for a in ${ALL_ARCHES//,/ }; do
		for s in bullseye bookworm bookworm-backports trixie trixie-backports sid experimental; do
			echo "deb [signed-by=$KEYRING arch=$a] $MIRROR/debian $s main"
		done
		for s in bullseye-security bookworm-security trixie-security; do
			echo "deb [signed-by=$KEYRING arch=$a] $MIRROR/debian-security $s main"
		done
	done
} > "$APT/sources.list"
O=(-o "Dir::Etc::sourcelist=$APT/sources.list" -o "Dir::Etc::sourceparts=-"
   -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache"
   -o "APT::Get::List-Cleanup=0" -o "Acquire::Retries=3"
   -o "APT::Sandbox::User=root" -o "Acquire::Languages=none"
   -o "APT::Architecture=amd64" -o "APT::Architectures=$ALL_ARCHES"
   # the mirror's Release files are older than their Valid-Until; the
   # signature is still checked
   -o "Acquire::Check-Valid-Until=false")

# refresh the package lists once a day
if [ $OFFLINE -eq 0 ] &&
	[ -z "$(find "$APT/lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
	echo "kernels.sh: updating the package lists of $ALL_ARCHES" >&2
	# An index the mirror lacks (bullseye-security's armhf here) makes apt
	# drop that suite for every architecture: leave that suite and
	# architecture out and update again.
	for try in 1 2 3; do
		apt-get "${O[@]}" -qq update >"$APT/update.log" 2>&1 && break
		missing=$(sed -n 's#^E: Failed to fetch .*/\(debian[a-z-]*\)/dists/\([^/]*\)/main/binary-\([a-z0-9]*\)/Packages .*#\1 \2 \3#p' "$APT/update.log")
		[ -n "$missing" ] && [ $try -lt 3 ] || {
			echo "kernels.sh: warning: apt-get update reported errors (see $APT/update.log); using the lists there are" >&2
			break
		}
		while read -r archive suite a; do
			echo "kernels.sh: the mirror lacks $archive $suite $a's index; leaving it out" >&2
			grep -vF "arch=$a] $MIRROR/$archive $suite main" "$APT/sources.list" > "$APT/sources.list.new"
			mv "$APT/sources.list.new" "$APT/sources.list"
		done <<<"$missing"
	done
fi

# --- raw BTF by shell tools ----------------------------------------------------
# the BTF header (24 bytes, either byte order) at byte $2 of $1: prints its
# total size if the header is a plausible vmlinux BTF, else nothing
btf_size_at() {
	local f=$1 off=$2 endian magic words
	case $(od -An -tx1 -j "$off" -N 2 "$f" | tr -d ' ') in
	9feb) endian=little ;;
	eb9f) endian=big ;;
	*) return 1 ;;
	esac
	read -r magic words <<<"$(od -An -tu4 --endian=$endian -j $((off + 4)) -N 20 "$f" | tr -s ' \n' '  ')"
	# hdr_len type_off type_len str_off str_len
	read -r hl to tl so sl <<<"$magic $words"
	[ "$hl" = 24 ] && [ "$to" = 0 ] && [ "$so" -ge "$tl" ] && [ "$tl" -gt 0 ] && [ "$sl" -gt 0 ] || return 1
	local total=$((24 + so + sl)) size
	size=$(stat -c %s "$f")
	[ $((off + total)) -le "$size" ] || return 1
	echo "$total"
}

# raw BTF found by its header in an image without section headers: the
# largest plausible one (the kernel's; other matches are stray bytes)
btf_by_magic() {
	local f=$1 out=$2 off total best=0 best_off=
	while IFS=: read -r off _; do
		total=$(btf_size_at "$f" "$off") || continue
		[ "$total" -gt $best ] && best=$total best_off=$off
	done < <(grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00|\xeb\x9f\x01\x00\x00\x00\x00\x18' "$f" | head -64)
	[ -n "$best_off" ] || return 1
	tail -c +$((best_off + 1)) "$f" | head -c "$best" > "$out"
	[ -s "$out" ]
}

# raw BTF from an ELF vmlinux: its .BTF section (readelf reads any byte order)
btf_from_elf() {
	local f=$1 out=$2 off size
	read -r off size < <(readelf -SW "$f" 2>/dev/null | sed -n 's/^.*\] //p' |
		awk '$1 == ".BTF" { print $4, $5 }')
	[ -n "${off:-}" ] || return 1
	tail -c +$((16#$off + 1)) "$f" | head -c $((16#$size)) > "$out"
	[ -s "$out" ]
}

is_elf() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; }

btf_from_plain() { # an ELF or a raw (decompressed) image
	if is_elf "$1"; then btf_from_elf "$1" "$2"; else btf_by_magic "$1" "$2"; fi
}

# Any image Debian ships: the file itself (ELF vmlinux, raw Image), else the
# first compressed stream in it that decompresses to one (bzImage, Image.gz,
# EFI zboot, zImage, s390x and riscv64 images).
extract_btf() {
	local img=$1 out=$2 kind off tool pat tmp=$2.tmp
	btf_from_plain "$img" "$out" && return 0
	for kind in gzip zstd xz lz4 lzma bzip2; do
		case $kind in
		gzip) pat='\x1f\x8b\x08'; tool="gzip -dc" ;;
		zstd) pat='\x28\xb5\x2f\xfd'; tool="zstd -dcq --long=31" ;;
		xz) pat='\xfd7zXZ\x00'; tool="xz -dc" ;;
		lz4) pat='\x02\x21\x4c\x18'; tool="lz4 -dcq" ;;
		lzma) pat='\x5d\x00\x00[\x00-\xff]\x00\xff\xff\xff\xff'; tool="xz -dc --format=lzma" ;;
		bzip2) pat='BZh[1-9]1AY&SY'; tool="bzip2 -dc" ;;
		esac
		while IFS=: read -r off _; do
			tail -c +$((off + 1)) "$img" | $tool 2>/dev/null > "$tmp"
			[ -s "$tmp" ] || continue
			if btf_from_plain "$tmp" "$out"; then
				rm -f "$tmp"
				return 0
			fi
		done < <(grep -obUaP "$pat" "$img" | head -8)
	done
	rm -f "$tmp" "$out"
	return 1
}

# --- what the archive holds ----------------------------------------------------
# "arch line flavour version package size sha256 filename" for each package
# that holds a kernel image: linux-binary-* (6.16 on), linux-image-*-unsigned
# and linux-image-* (signed or not; the small linux-image-* of 6.16 on only
# depend on linux-binary-*)
INDEX=$(for f in "$APT"/lists/*_Packages*; do
		# the archive (debian, debian-security) the Filename is relative to
		base=${f##*/}; base=${base#*_}; base=${base%%_dists_*}
		/usr/lib/apt/apt-helper cat-file "$f" | awk -v b="$base" '{ print } /^Filename: / { print "Base: " b }'
	done 2>/dev/null | awk '
	/^Package: / { p = $2; a = v = s = h = fn = "" }
	/^Architecture: / { a = $2 }
	/^Version: / { v = $2 }
	/^Size: / { s = $2 }
	/^SHA256: / { h = $2 }
	/^Filename: / { fn = $2 }
	/^Base: / { fn = $2 "/" fn }
	/^$/ {
		if (p ~ /^linux-(image|binary)-[0-9]+\.[0-9]+(\.[0-9]+)?[-+]/ && p !~ /-dbg(sym)?$/ &&
		    p !~ /signed-template$/ && s > 1000000) {
			r = p; sub(/^linux-(image|binary)-/, "", r); sub(/-unsigned$/, "", r)
			match(r, /^[0-9]+\.[0-9]+/); line = substr(r, 1, RLENGTH)
			fl = r
			sub(/^[0-9]+\.[0-9]+(\.[0-9]+(-[0-9]+(\.deb[0-9]+\.[0-9]+)?|\+deb[0-9]+(\.[0-9]+)?))?-/, "", fl)
			if (fl != r)
				print a, line, fl, v, p, s, h, fn
		}
		p = ""
	}' | sort -u)

# linux-base-RELEASE (6.16 on): /usr/lib/modules/RELEASE/config for the
# linux-binary-RELEASE of the same version; "arch package version sha256 filename"
BASES=$(for f in "$APT"/lists/*_Packages*; do
		base=${f##*/}; base=${base#*_}; base=${base%%_dists_*}
		/usr/lib/apt/apt-helper cat-file "$f" | awk -v b="$base" '
		/^Package: / { p = $2; a = v = h = fn = "" }
		/^Architecture: / { a = $2 }
		/^Version: / { v = $2 }
		/^SHA256: / { h = $2 }
		/^Filename: / { fn = b "/" $2 }
		/^$/ { if (p ~ /^linux-base-[0-9]/) print a, p, v, h, fn; p = "" }'
	done 2>/dev/null | sort -u)

# newest version first per (arch, line, flavour); linux-binary and -unsigned
# before the signed linux-image of the same version (smaller, or the same)
pref() { awk '{ k = ($5 ~ /^linux-binary/) ? 0 : ($5 ~ /-unsigned$/) ? 1 : 2; print $0, k }'; }
CANDS=$(pref <<<"$INDEX" | sort -k1,1 -k2,2V -k3,3 -k4,4Vr -k9,9n)

selected() { # arch id
	[[ ",$ARCHES," == *",$1,"* ]] || return 1
	[ -z "$ONLY" ] || [[ ",$ONLY," == *",$2,"* ]] || return 1
	[ $CI -eq 0 ] || [[ ",$CI_IDS," == *",$2,"* ]]
}

# the kernel config of a linux-binary-* package, from its linux-base-*:
# prints the extracted file's path (nothing if it cannot be had)
fetch_config() {
	local base=$1 ver=$2 tmpd=$3 sha fn deb
	read -r sha fn < <(awk -v p="$base" -v v="$ver" '$2 == p && $3 == v { print $4, $5; exit }' <<<"$BASES")
	[ -n "${fn:-}" ] || return 0
	deb=$CACHE/debs/$(basename "$fn")
	curl -sSf --retry 3 -o "$deb" "$MIRROR/$fn" 2>/dev/null &&
		[ "$(sha256sum < "$deb" | cut -d' ' -f1)" = "$sha" ] &&
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmpd" --wildcards './usr/lib/modules/*/config' 2>/dev/null
	rm -f "$deb"
	ls "$tmpd"/usr/lib/modules/*/config 2>/dev/null | head -1
}

# one package: download, check, keep /boot's image and config; status on stdout
fetch() {
	local pkg=$1 ver=$2 sha=$3 fn=$4 dir=$5 deb tmpd
	deb=$CACHE/debs/$(basename "$fn")
	if [ $OFFLINE -eq 1 ]; then
		echo "FAILED: $pkg $ver not in the cache (--offline)"
		return 1
	fi
	# a pool 404 is remembered for a day, not retried every run
	if [ -n "$(find "$dir/download-failed" -mtime -1 2>/dev/null)" ]; then
		echo "FAILED: download of $pkg $ver failed ($(cat "$dir/download-failed"))"
		return 1
	fi
	echo "kernels.sh: downloading $pkg $ver" >&2
	rm -rf "$dir" && mkdir -p "$dir"
	if ! curl -sSf --retry 3 -o "$deb.part" "$MIRROR/$fn" 2> "$dir/download.log"; then
		tail -1 "$dir/download.log" > "$dir/download-failed"
		rm -f "$deb.part"
		echo "FAILED: download of $pkg $ver failed ($(cat "$dir/download-failed"))"
		return 1
	fi
	# the index's checksum, from the signed Release file apt-get update checked
	if [ "$(sha256sum < "$deb.part" | cut -d' ' -f1)" != "$sha" ]; then
		rm -f "$deb.part"
		echo "sha256 mismatch" > "$dir/download-failed"
		echo "FAILED: $pkg $ver: the download's SHA256 differs from the signed index"
		return 1
	fi
	mv "$deb.part" "$deb"
	tmpd=$dir/x
	mkdir -p "$tmpd"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmpd" --wildcards './boot/vmlinu[xz]-*' './boot/config-*' \
		'./usr/lib/modules/*/vmlinu[xz]' './usr/lib/modules/*/config' 2>/dev/null
	rm -f "$deb"
	local img cfg
	# /boot up to 6.12, /usr/lib/modules/RELEASE/ from 6.16 on
	img=$(ls "$tmpd"/boot/vmlinu[xz]-* "$tmpd"/usr/lib/modules/*/vmlinu[xz] 2>/dev/null | head -1)
	cfg=$(ls "$tmpd"/boot/config-* "$tmpd"/usr/lib/modules/*/config 2>/dev/null | head -1)
	if [ -z "$img" ] || [ ! -s "$img" ]; then
		rm -rf "$tmpd"
		echo "FAILED: no boot/vmlinuz or boot/vmlinux in $pkg $ver"
		return 1
	fi
	if [ -z "$cfg" ] && [[ $pkg == linux-binary-* ]]; then
		cfg=$(fetch_config "${pkg/linux-binary-/linux-base-}" "$ver" "$tmpd")
	fi
	[ -n "$cfg" ] && mv "$cfg" "$dir/config"
	mv "$img" "$dir/vmlinuz.part" && mv "$dir/vmlinuz.part" "$dir/vmlinuz"
	rm -rf "$tmpd"
	echo ok
}

manifest=$CACHE/manifest.tsv
: > "$manifest.new.$$"
while read -r arch line flavour; do
	id=$line-$flavour
	selected "$arch" "$id" || continue
	status=
	# newest first; the pool lacks some files its index lists: the next
	# older version then
	while read -r _ _ _ v p _ sha fn _; do
		ver=$v pkg=$p dir=$CACHE/$p-$v
		status=ok
		[ -s "$dir/vmlinuz" ] && break
		status=$(fetch "$pkg" "$ver" "$sha" "$fn" "$dir") && break
	done < <(awk -v a="$arch" -v l="$line" -v f="$flavour" \
		'$1 == a && $2 == l && $3 == f' <<<"$CANDS")
	# the archive's own hole, not a failure of ours: listed, never checked
	[[ $status == "FAILED: download"*404* ]] && status="unavailable: the pool lacks ${status#FAILED: download of }"
	release=${pkg#linux-image-}
	release=${release#linux-binary-}
	release=${release%-unsigned}
	if [ "$status" = ok ] && [ -f "$dir/config" ] &&
		! grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$dir/config"; then
		status="no BTF (built without CONFIG_DEBUG_INFO_BTF)"
		rm -f "$dir/vmlinux.btf"
	elif [ "$status" = ok ] && [ ! -s "$dir/vmlinux.btf" ] &&
		! extract_btf "$dir/vmlinuz" "$dir/vmlinux.btf"; then
		status="FAILED: no BTF found in $dir/vmlinuz"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$line" "$flavour" "$pkg" "$ver" \
		"$release" "$dir" "$status" "$arch" >> "$manifest.new.$$"
done < <(awk '{ print $1, $2, $3 }' <<<"$CANDS" | uniq)
# by architecture (amd64 first, as before), then line
awk -F'\t' -v order="$ALL_ARCHES" 'BEGIN { n = split(order, o, ","); for (i = 1; i <= n; i++) r[o[i]] = i }
	{ print r[$9] "\t" $0 }' "$manifest.new.$$" | sort -t$'\t' -k1,1n -k3,3V -k4,4 | cut -f2- > "$manifest.sorted.$$"
rm -f "$manifest.new.$$"
mv "$manifest.sorted.$$" "$manifest"
cat "$manifest"
