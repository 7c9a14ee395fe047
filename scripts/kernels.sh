#!/usr/bin/env bash
# Download Debian kernel images (linux-image-*-unsigned) for the lines abicap
# is tested on, in the generic, cloud and rt flavours, through a private apt
# configuration (the system's sources are not touched), and extract each
# one's vmlinuz and raw BTF into a cache outside the repository.
#
#   scripts/kernels.sh            download what is missing; print the manifest
#
# Cache: $ABICAP_KERNEL_CACHE (default ~/.cache/abicap/kernels). The manifest
# ($CACHE/manifest.tsv) has one line per kernel: id, line, flavour, package,
# version, release, directory, status ("ok" or "FAILED: reason"). A kernel
# that fails is reported there and the rest still run.
set -uo pipefail
export LC_ALL=C # byte-wise grep for compression magics

CACHE=${ABICAP_KERNEL_CACHE:-$HOME/.cache/abicap/kernels}
APT=$CACHE/apt
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${ABICAP_DEBIAN_MIRROR:-http://deb.debian.org}

# line suite package-regex (%s: flavour)
LINES=(
	"5.10 bullseye ^linux-image-5\.10\.0-[0-9]+-%s-unsigned$"
	"6.1 bookworm ^linux-image-6\.1\.0-[0-9]+-%s-unsigned$"
	"6.12 trixie ^linux-image-6\.12\.[0-9]+\+deb13-%s-unsigned$"
)
FLAVOURS=(amd64 cloud-amd64 rt-amd64)

mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$CACHE/debs"
cat > "$APT/sources.list" <<SRC
deb [signed-by=$KEYRING] $MIRROR/debian bullseye main
deb [signed-by=$KEYRING] $MIRROR/debian-security bullseye-security main
deb [signed-by=$KEYRING] $MIRROR/debian bookworm main
deb [signed-by=$KEYRING] $MIRROR/debian-security bookworm-security main
deb [signed-by=$KEYRING] $MIRROR/debian trixie main
SRC
O=(-o "Dir::Etc::sourcelist=$APT/sources.list" -o "Dir::Etc::sourceparts=-"
   -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache"
   -o "APT::Get::List-Cleanup=0" -o "Acquire::Retries=3"
   -o "APT::Sandbox::User=root")

# refresh the package lists once a day
if [ -z "$(find "$APT/lists" -name '*_Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
	if ! apt-get "${O[@]}" -qq update >"$APT/update.log" 2>&1; then
		echo "kernels.sh: warning: apt-get update failed (see $APT/update.log); using the lists there are" >&2
	fi
fi

# Extract the raw BTF from a bzImage with shell tools (abicap reads the
# bzImage itself; this copy is for bpftool and a cross-check).
extract_btf() {
	local bz=$1 out=$2 off magic tool
	for magic in xz zstd gzip lz4; do
		case $magic in
		xz) off=$(grep -obUaP '\xfd7zXZ\x00' "$bz" | head -1 | cut -d: -f1); tool="xz -dc" ;;
		zstd) off=$(grep -obUaP '\x28\xb5\x2f\xfd' "$bz" | head -1 | cut -d: -f1); tool="zstd -dcq" ;;
		gzip) off=$(grep -obUaP '\x1f\x8b\x08' "$bz" | head -1 | cut -d: -f1); tool="gzip -dc" ;;
		lz4) off=$(grep -obUaP '\x02\x21\x4c\x18' "$bz" | head -1 | cut -d: -f1); tool="lz4 -dcq" ;;
		esac
		[ -n "$off" ] || continue
		tail -c +$((off + 1)) "$bz" | $tool 2>/dev/null > "$out.vmlinux"
		if [ "$(head -c 4 "$out.vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ] &&
			objcopy -O binary --only-section=.BTF "$out.vmlinux" "$out" 2>/dev/null &&
			[ -s "$out" ]; then
			rm -f "$out.vmlinux"
			return 0
		fi
	done
	rm -f "$out.vmlinux" "$out"
	return 1
}

# "package version" for every linux-image-*-unsigned in the lists, read
# straight from the Packages files (apt-cache takes seconds per call here)
INDEX=$(for f in "$APT"/lists/*_Packages*; do
		/usr/lib/apt/apt-helper cat-file "$f"
	done 2>/dev/null | awk '/^Package: linux-image-.*-unsigned$/ { p = $2 }
	/^Version: / && p { print p, $2; p = "" }' | sort -V)

manifest=$CACHE/manifest.tsv
: > "$manifest.new"
for entry in "${LINES[@]}"; do
	read -r line suite regex <<<"$entry"
	for flavour in "${FLAVOURS[@]}"; do
		id="$line-$flavour"
		# shellcheck disable=SC2059
		re=$(printf "$regex" "$flavour")
		# newest first; an index can list a package its pool no longer has,
		# so fall back to the next older ones
		mapfile -t cands < <(awk '{ print $1 }' <<<"$INDEX" | grep -E "$re" |
			sort -urV | head -8)
		if [ "${#cands[@]}" -eq 0 ]; then
			printf '%s\t%s\t%s\t-\t-\t-\t-\tFAILED: no package matching %s in %s\n' \
				"$id" "$line" "$flavour" "$re" "$suite" >> "$manifest.new"
			continue
		fi
		for pkg in "${cands[@]}"; do
			ver=$(awk -v p="$pkg" '$1 == p { v = $2 } END { print v }' <<<"$INDEX")
			dir=$CACHE/$pkg-$ver
			status=ok
			[ -s "$dir/vmlinuz" ] && break
			# a pool 404 is remembered for a day, not retried every run
			if [ -n "$(find "$dir/download-failed" -mtime -1 2>/dev/null)" ]; then
				status="FAILED: download of $pkg $ver failed ($(cat "$dir/download-failed"))"
				continue
			fi
			echo "kernels.sh: downloading $pkg $ver" >&2
			rm -rf "$dir" && mkdir -p "$dir"
			if ! (cd "$CACHE/debs" && apt-get "${O[@]}" -qq download "$pkg=$ver" \
				>"$dir/download.log" 2>&1); then
				tail -1 "$dir/download.log" > "$dir/download-failed"
				status="FAILED: download of $pkg $ver failed ($(cat "$dir/download-failed"))"
				rm -f "$dir/vmlinuz"
				continue
			fi
			deb=$(ls "$CACHE/debs/${pkg}_"*.deb 2>/dev/null | head -1)
			if ! dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './boot/vmlinuz-*' \
				> "$dir/vmlinuz" || [ ! -s "$dir/vmlinuz" ]; then
				status="FAILED: no boot/vmlinuz in $deb"
				rm -f "$dir/vmlinuz"
			fi
			rm -f "$deb"
			break
		done
		release=${pkg#linux-image-}
		release=${release%-unsigned}
		if [ "$status" = ok ] && [ ! -s "$dir/vmlinux.btf" ] && ! extract_btf "$dir/vmlinuz" "$dir/vmlinux.btf"; then
			status="FAILED: no BTF found in $dir/vmlinuz"
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$line" "$flavour" "$pkg" "$ver" \
			"$release" "$dir" "$status" >> "$manifest.new"
	done
done
mv "$manifest.new" "$manifest"
cat "$manifest"
