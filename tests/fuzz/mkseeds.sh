#!/usr/bin/env bash
# Regenerates the seed corpora in tests/fuzz/corpus/ (committed; the fuzz
# runs work on copies). The capture seed is the committed
# corpus/fuzz_capfile/real.abicap unless CAPTURE=FILE names another, e.g.
#   flock /tmp/abicap-bpf.lock build/abicap record -o /tmp/c.abicap -d 0.3
#   CAPTURE=/tmp/c.abicap tests/fuzz/mkseeds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=tests/fuzz/corpus
capture=${CAPTURE:-$corpus/fuzz_capfile/real.abicap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$capture" "$tmp/capture.abicap"
make --no-print-directory build/fuzz/seeds $(for c in tests/bpf/*.bpf.c; do
	b=${c##*/}; echo "build/tests/bpf/${b%.c}.o"; done)
mkdir -p $corpus/{fuzz_contract,fuzz_btf,fuzz_object,fuzz_capfile,fuzz_perfetto}
# the test objects without their DWARF (.BTF and .BTF.ext stay): 2-34 KB,
# named NAME.bpf (.o is ignored by git)
for o in build/tests/bpf/*.bpf.o; do
	llvm-objcopy --remove-section='.debug*' --remove-section='.rel.debug*' \
		"$o" "$corpus/fuzz_object/$(basename "$o" .o)"
done
FUZZ_SEED_DIR=$corpus FUZZ_CAPTURE=$tmp/capture.abicap build/fuzz/seeds --jobs 1

c=$corpus/fuzz_contract
cp bpf/contract.json $c/contract.json
jq -c . bpf/contract.json > $c/compact.json
jq '{abicap_contract, name, events: .events[:1]}' bpf/contract.json > $c/one-event.json
jq '{abicap_contract, name, fields}' bpf/contract.json > $c/fields-only.json
jq '.abicap_contract = 2' bpf/contract.json > $c/version2.json
jq '.events[0].args[0].type = "struct task_struct **"' bpf/contract.json > $c/bad-type.json
jq '.fields[0].field = "a.b.c.d.e"' bpf/contract.json > $c/deep-path.json
head -c 2000 bpf/contract.json > $c/cut.json

# fuzz_analysis: its seeds (hand-built record sequences in the 8-bytes-per-
# record form of tests/fuzz/fuzz_analysis.c) are committed as they are

# cgroup names for the metrics writer, split at NUL (fuzz_metrics.c)
c=$corpus/fuzz_metrics
mkdir -p $c
printf 'system.slice/foo.service\0system.slice/systemd\\x2dfsck.slice\0system.slice/foo.service' > $c/systemd
printf 'abicap-test/bad\xff\0abicap-test/bad\\xff\0abicap-test/bad\xfe' > $c/not-utf8
printf 'kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podcd47c704_97d7_4e6e_8ae0_6c4e96b25b92.slice/cri-containerd-b68e6db57fad67a6581e006e41c4fd10a11960b19929776ef3972f4c7783c69d.scope\0system.slice/docker-3f4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081.scope\0caf\xc3\xa9\n"q"\0a\\b\xc3' > $c/containers
