#!/usr/bin/env bash
# The container image (make image-test): an OCI archive with one layer
# holding exactly /abicap (build/abicap-static) and /contract.json, the
# entrypoint /abicap; its filesystem alone runs abicap (check, serve). Run
# as a container by podman, or where podman cannot run one here, by runc
# from the image's own runtime config. Root.
source "$(dirname "$0")/lib.sh"
need umoci jq unshare chroot curl podman runc
echo "container image"
IMAGE=${IMAGE:-build/abicap-image.tar}
STATIC=${ABICAP_STATIC:-build/abicap-static}
w=$(mktemp -d /tmp/abicap-image.XXXXXX)
trap 'rm -rf "$w"' EXIT
mkdir "$w/oci"
tar -xf "$IMAGE" -C "$w/oci" || { fail "$IMAGE is not a tar"; done_; }
blob() { echo "$w/oci/blobs/${1/://}"; }
idx=$w/oci/index.json
[ "$(jq '.manifests | length' "$idx")" = 1 ] && ok "one manifest" || fail "manifests: $(jq -c .manifests "$idx")"
ref=$(jq -r '.manifests[0].annotations["org.opencontainers.image.ref.name"]' "$idx")
[ "$ref" = "localhost/abicap:latest" ] && ok "named $ref" || fail "ref name '$ref'"
man=$(blob "$(jq -r '.manifests[0].digest' "$idx")")
[ "$(jq '.layers | length' "$man")" = 1 ] && ok "one layer" || fail "layers: $(jq '.layers | length' "$man")"
layer=$(blob "$(jq -r '.layers[0].digest' "$man")")
files=$(tar -tvzf "$layer" | awk '{ print $1, $NF }' | sort)
[ "$files" = "$(printf '%s\n' '-rw-r--r-- contract.json' '-rwxr-xr-x abicap')" ] &&
	ok "the layer holds /abicap (0755) and /contract.json (0644), nothing else" ||
	fail "the layer holds: $(echo $files)"
cfg=$(blob "$(jq -r '.config.digest' "$man")")
[ "$(jq -c .config.Entrypoint "$cfg")" = '["/abicap"]' ] && ok "entrypoint /abicap" ||
	fail "entrypoint $(jq -c .config.Entrypoint "$cfg")"
[ "$(jq -c .config.Cmd "$cfg")" = '["serve","--listen","0.0.0.0:9464"]' ] && ok "default command serve" ||
	fail "cmd $(jq -c .config.Cmd "$cfg")"

# the filesystem the image describes, and nothing else, runs abicap
umoci raw unpack --image "$w/oci:$ref" "$w/rootfs" >/dev/null 2>&1 ||
	{ fail "umoci raw unpack"; done_; }
cmp -s "$w/rootfs/abicap" "$STATIC" && ok "/abicap is build/abicap-static" || fail "/abicap differs from $STATIC"
cmp -s "$w/rootfs/contract.json" bpf/contract.json && ok "/contract.json is bpf/contract.json" ||
	fail "/contract.json differs"
cp /sys/kernel/btf/vmlinux "$w/rootfs/vmlinux.btf"
out=$(chroot "$w/rootfs" /abicap check --btf /vmlinux.btf --contract /contract.json 2>&1) &&
	ok "in the image: abicap check --contract /contract.json: $(tail -1 <<<"$out")" || fail "check in the image: $out"
rm "$w/rootfs/vmlinux.btf"
# serve from the image's files, with /proc (as every container runtime
# mounts it) and the host's /sys (as the DaemonSet mounts it)
port=$((20000 + ($$ + 7) % 20000))
unshare -m --propagation private sh -c 'mkdir -p "$1/sys" "$1/proc" &&
	mount --rbind /sys "$1/sys" && mount --rbind /proc "$1/proc" &&
	exec chroot "$1" /abicap serve --listen "127.0.0.1:$2" -d 60' _ "$w/rootfs" "$port" \
	>"$w/serve.log" 2>&1 &
pid=$!
# the first scrape may come before any task has waited: wait for a sample
scrape_until $port "$w/m" '^abicap_runqueue_latency_seconds_bucket' $pid &&
	ok "in the image: abicap serve answers /metrics" || fail "serve in the image: $(tail -3 "$w/serve.log")"
kill $pid 2>/dev/null; wait $pid 2>/dev/null

# podman, with a storage of its own
P=(--root "$w/podman" --runroot "$w/podman-run" --storage-driver vfs)
if out=$(podman "${P[@]}" load -q -i "$IMAGE" 2>&1); then
	ok "podman load: $out"
	if out=$(podman "${P[@]}" run --rm --pull=never --network none localhost/abicap:latest --version 2>&1); then
		ok "podman run: $out"
	elif [[ $out == *"setrlimit"*"Operation not permitted"* ]] &&
	     (( ! (0x$(awk '/^CapBnd/ { print $2 }' /proc/self/status) & (1 << 24)) )); then
		# crun's setrlimit fails (EPERM): CAP_SYS_RESOURCE is not in this
		# machine's bounding set. The image still runs as a container:
		# its own runtime config (umoci unpack) under runc, which only
		# lowers limits
		umoci unpack --image "$w/oci:$ref" "$w/bundle" >/dev/null 2>&1 &&
			jq '.process.terminal = false | .process.args = ["/abicap", "--version"]' \
				"$w/bundle/config.json" >"$w/config.json" &&
			mv "$w/config.json" "$w/bundle/config.json" ||
			fail "umoci unpack of the image into an OCI bundle"
		if out=$(cd "$w/bundle" && timeout 60 runc --root "$w/runc" run "abicap-image-$$" 2>&1) &&
		   [[ $out == abicap\ * ]]; then
			ok "runc run of the image (podman cannot run containers here: no CAP_SYS_RESOURCE): $out"
		else
			fail "runc run of the image: $out"
		fi
	else
		fail "podman run: $out"
	fi
else
	fail "podman load: $out"
fi
podman "${P[@]}" rmi --all >/dev/null 2>&1
done_
