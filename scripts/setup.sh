#!/usr/bin/env bash
# Install everything abicap needs to build and test on Debian (bookworm or
# later), and mount tracefs/bpffs if they are missing. Safe to run again.
set -euo pipefail

PKGS=(
	make gcc clang llvm pkg-config
	libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev
	libjansson-dev libcriterion-dev liblzma-dev liblz4-dev
	jq linux-perf sudo python3 stress-ng
	qemu-system-x86 busybox-static cpio xz-utils zstd lz4 binutils
	protobuf-compiler
	libmicrohttpd-dev prometheus curl
	libcap-dev libcap2-bin bpftrace strace systemd util-linux
	libbpf-tools
	runc crun
	libclang-rt-14-dev libfuzzer-14-dev
	man-db groff-base zsh bash-completion
	debhelper dpkg-dev fakeroot lintian
	buildah umoci podman docker.io containerd
	# the pictures' tests render pages in a real headless browser
	chromium-headless-shell
	# arm64: the cross build (make ARCH=arm64) and its test VMs
	qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libzstd-dev:arm64
	libjansson-dev:arm64 liblzma-dev:arm64 liblz4-dev:arm64 libcap-dev:arm64
	libmicrohttpd-dev:arm64
	# s390x, ppc64el, riscv64: the cross builds (make ARCH=s390|powerpc|
	# riscv; their libraries come in a sysroot, scripts/sysroot.sh, not as
	# multiarch packages) and their test VMs; lld-19 links riscv64's
	qemu-system-misc qemu-system-ppc opensbi
	gcc-s390x-linux-gnu gcc-powerpc64le-linux-gnu gcc-riscv64-linux-gnu lld-19
	# each architecture's capture writer run under user-mode emulation
	qemu-user-static
)

if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: error: must run as root (try: sudo scripts/setup.sh)" >&2
	exit 2
fi

# the arm64 -dev packages are multiarch (installed beside the amd64 ones)
added_arch=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	added_arch=1
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ] || [ $added_arch -eq 1 ]; then
	echo "setup.sh: installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	[ "${#missing[@]}" -eq 0 ] ||
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs nodev /sys/kernel/tracing
mountpoint -q /sys/fs/bpf ||
	mount -t bpf bpf /sys/fs/bpf

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "setup.sh: warning: /sys/kernel/btf/vmlinux missing: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF=y needed to run abicap)" >&2
fi
echo "setup.sh: ok"
