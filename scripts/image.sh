#!/usr/bin/env bash
# Build the container image from scratch, offline (no base image): the
# static binary as /abicap (the entrypoint) and the default contract as
# /contract.json, one layer, nothing else. Written as an OCI archive named
# localhost/abicap:latest (the version in a label); buildah keeps its state under OUT/image only.
# usage: scripts/image.sh STATIC_BINARY CONTRACT OUT_ARCHIVE VERSION
set -euo pipefail
bin=$1 contract=$2 out=$3 version=$4
state=$(dirname "$out")/image
S=(--root "$state/storage" --runroot "$state/run" --storage-driver vfs)
command -v buildah >/dev/null ||
	{ echo "image.sh: error: buildah is not installed (run scripts/setup.sh)" >&2; exit 2; }
ctr=$(buildah "${S[@]}" from --quiet scratch)
trap 'buildah "${S[@]}" rm "$ctr" >/dev/null 2>&1 || true' EXIT
buildah "${S[@]}" copy --quiet --chmod 0755 "$ctr" "$bin" /abicap >/dev/null
buildah "${S[@]}" copy --quiet --chmod 0644 "$ctr" "$contract" /contract.json >/dev/null
buildah "${S[@]}" config \
	--entrypoint '["/abicap"]' --cmd '["serve", "--listen", "0.0.0.0:9464"]' \
	--port 9464/tcp \
	--label org.opencontainers.image.title=abicap \
	--label org.opencontainers.image.version="$version" \
	--label org.opencontainers.image.description="abicap: scheduler metrics per cgroup with eBPF; abicap check for kernels' ABI" \
	"$ctr"
img=$(buildah "${S[@]}" commit --quiet --rm --timestamp 0 "$ctr" localhost/abicap:latest)
trap - EXIT
rm -f "$out.tmp"
buildah "${S[@]}" push --quiet "$img" "oci-archive:$out.tmp:localhost/abicap:latest"
buildah "${S[@]}" rmi --all >/dev/null
mv "$out.tmp" "$out"
echo "  IMAGE    $out (localhost/abicap:latest, version $version)"
