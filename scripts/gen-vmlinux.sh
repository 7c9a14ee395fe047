#!/usr/bin/env bash
# Regenerate a vmlinux/ARCH/vmlinux.h from a kernel's BTF (default: the
# running kernel, into vmlinux/x86/). The header only has to be a superset of
# what bpf/ reads: CO-RE relocations adapt field offsets to whatever kernel
# the programs load on.
#
#   scripts/gen-vmlinux.sh [BTF [OUT]]   e.g. an arm64 kernel's raw BTF from
#                                        scripts/kernels.sh, vmlinux/arm64/vmlinux.h
set -euo pipefail
btf=${1:-/sys/kernel/btf/vmlinux}
out=${2:-"$(dirname "$0")/../vmlinux/x86/vmlinux.h"}
if [ ! -r "$btf" ]; then
	echo "gen-vmlinux.sh: error: cannot read BTF '$btf' (kernel needs CONFIG_DEBUG_INFO_BTF=y, or pass a BTF/vmlinux file)" >&2
	exit 2
fi
command -v bpftool >/dev/null || { echo "gen-vmlinux.sh: error: bpftool not found (run scripts/setup.sh)" >&2; exit 2; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
bpftool btf dump file "$btf" format c >"$tmp"
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "gen-vmlinux.sh: wrote $out from $btf ($(wc -l <"$out") lines)"
